#!/usr/bin/env python3
"""A Hugging Face WhisperForConditionalGeneration folder with random weights
of a real Whisper shape, for the speed benchmarks (bench/bench_whisper.c,
bench/whisper_hf.py). Runs where torch, transformers and safetensors are
installed (the GPU machine); downloads nothing.

    python3 tools/make_whisper_random.py --shape large-v3|turbo|tiny --out DIR [--seed 0] [--std 0.02] [--force]

Shapes (OpenAI's dimensions):
    large-v3   d_model 1280, 32 encoder + 32 decoder layers, 20 heads, ffn 5120, 128 mels, vocab 51866
    turbo      large-v3-turbo: the same encoder, 4 decoder layers
    tiny       d_model 384, 4 + 4 layers, 6 heads, ffn 1536, 80 mels, vocab 51865 (a quick check)
Weights: torch.manual_seed(seed); linear, convolution and embedding weights
normal(0, std) (HF's init_std, 0.02: activations stay in range through 32
layers in fp16), biases 0, layer norms 1 and 0, the encoder's positions
Whisper's sinusoids; stored as fp16 safetensors (one file). Written into DIR:
config.json and model.safetensors (save_pretrained), generation_config.json
(written here: lang_to_id, task_to_id, suppress_tokens, begin_suppress_tokens,
no_timestamps_token_id, prev_sot_token_id, alignment_heads,
max_initial_timestamp_index, is_multilingual, ... with the ids of OpenAI's
multilingual layout for the vocabulary size), preprocessor_config.json
(WhisperFeatureExtractor) and random.json (what made the folder). No
tokenizer: gpukit takes the special tokens from generation_config.json, or
from OpenAI's layout by vocab size.

A folder whose random.json matches (shape, seed, std) is left as it is unless
--force: the folders are a few GB and are reused between runs.
"""
import argparse
import json
import math
import os
import sys
import time

LANGS = ("en zh de es ru ko fr ja pt tr pl ca nl ar sv it id hi fi vi he uk el ms cs ro da hu ta no th ur hr bg lt la mi ml cy "
         "sk te fa lv bn sr az sl kn et mk br eu is hy ne mn bs kk sq sw gl mr pa si km sn yo so af oc ka be tg sd gu am yi lo "
         "uz fo ht ps tk nn mt sa lb my bo tl mg as tt haw ln ha ba jw su yue").split()

# whisper's non_speech_tokens rule (tokenizer.py) applied to the multilingual
# vocabulary (whisper/assets/multilingual.tiktoken): the text ids every
# multilingual model's suppress_tokens hold; the special ids are added below
NON_SPEECH_MULTILINGUAL = [
    1, 2, 7, 8, 9, 10, 14, 25, 26, 27, 28, 29, 31, 58, 59, 60, 61, 62, 63, 90, 91, 92, 93, 359, 503, 522, 542, 873, 893, 902,
    918, 922, 931, 1350, 1853, 1982, 2460, 2627, 3246, 3253, 3268, 3536, 3846, 3961, 4183, 4667, 6585, 6647, 7273, 9061, 9383,
    10428, 10929, 11938, 12033, 12331, 12562, 13793, 14157, 14635, 15265, 15618, 16553, 16604, 18362, 18956, 20075, 21675, 22520,
    26130, 26161, 26435, 28279, 29464, 31650, 32302, 32470, 36865, 42863, 47425, 49870, 50254]

# (decoder layer, head) pairs: whisper's _ALIGNMENT_HEADS for the checkpoints of these shapes
SHAPES = {
    "large-v3": dict(d_model=1280, encoder_layers=32, decoder_layers=32, heads=20, ffn=5120, n_mels=128, vocab=51866,
                     alignment_heads=[[7, 0], [10, 17], [12, 18], [13, 12], [16, 1], [17, 14], [19, 11], [21, 4], [24, 1], [25, 6]]),
    "turbo": dict(d_model=1280, encoder_layers=32, decoder_layers=4, heads=20, ffn=5120, n_mels=128, vocab=51866,
                  alignment_heads=[[2, 4], [2, 11], [3, 3], [3, 6], [3, 11], [3, 14]]),
    "tiny": dict(d_model=384, encoder_layers=4, decoder_layers=4, heads=6, ffn=1536, n_mels=80, vocab=51865,
                 alignment_heads=[[2, 2], [3, 0], [3, 2], [3, 3], [3, 4], [3, 5]]),
}


def layout(vocab):
    """OpenAI's multilingual layout: eot 50257, sot, the languages, translate, transcribe, startoflm,
    startofprev, nospeech, notimestamps, then the timestamps (vocab - 51765 - 1 languages)."""
    n_langs = vocab - 51765 - 1
    assert n_langs in (99, 100), vocab
    eot = 50257
    sot = eot + 1
    tr = sot + 1 + n_langs
    t = dict(eot=eot, sot=sot, langs={"<|%s|>" % LANGS[i]: sot + 1 + i for i in range(n_langs)}, translate=tr, transcribe=tr + 1,
             sot_lm=tr + 2, sot_prev=tr + 3, no_speech=tr + 4, no_timestamps=tr + 5, timestamp_begin=tr + 6)
    assert t["timestamp_begin"] + 1501 == vocab
    return t


def generation_config(shape, t):
    sup = sorted(set(NON_SPEECH_MULTILINGUAL + [t["sot"], t["translate"], t["transcribe"], t["sot_lm"], t["sot_prev"], t["no_speech"]]))
    return dict(
        alignment_heads=SHAPES[shape]["alignment_heads"], begin_suppress_tokens=[220, t["eot"]], bos_token_id=t["eot"],
        decoder_start_token_id=t["sot"], eos_token_id=t["eot"], pad_token_id=50256, is_multilingual=True, lang_to_id=t["langs"],
        max_initial_timestamp_index=50, max_length=448, no_timestamps_token_id=t["no_timestamps"], prev_sot_token_id=t["sot_prev"],
        return_timestamps=False, suppress_tokens=sup, task_to_id={"translate": t["translate"], "transcribe": t["transcribe"]})


def sinusoids(length, channels, torch):
    """Whisper's encoder positions: sin then cos of position * 10000^(-i / (channels/2 - 1))."""
    inc = math.log(10000) / (channels // 2 - 1)
    inv = torch.exp(-inc * torch.arange(channels // 2, dtype=torch.float64))
    x = torch.arange(length, dtype=torch.float64)[:, None] * inv[None, :]
    return torch.cat([torch.sin(x), torch.cos(x)], dim=1)


def make(shape, out, seed=0, std=0.02, force=False, device=None):
    import torch
    import transformers
    from transformers import WhisperConfig, WhisperFeatureExtractor, WhisperForConditionalGeneration
    s = SHAPES[shape]
    stamp = {"shape": shape, "seed": seed, "std": std}
    sp = os.path.join(out, "random.json")
    if not force and os.path.isfile(sp) and os.path.isfile(os.path.join(out, "config.json")):
        try:
            with open(sp) as f:
                old = json.load(f)
            if all(old.get(k) == v for k, v in stamp.items()):
                print("%s: %s folder already there (random.json matches; --force remakes it)" % (out, shape))
                return out
        except ValueError:
            pass
    t0 = time.time()
    t = layout(s["vocab"])
    gen = generation_config(shape, t)
    cfg = WhisperConfig(
        vocab_size=s["vocab"], num_mel_bins=s["n_mels"], d_model=s["d_model"], encoder_layers=s["encoder_layers"],
        decoder_layers=s["decoder_layers"], encoder_attention_heads=s["heads"], decoder_attention_heads=s["heads"],
        encoder_ffn_dim=s["ffn"], decoder_ffn_dim=s["ffn"], max_source_positions=1500, max_target_positions=448,
        bos_token_id=t["eot"], eos_token_id=t["eot"], pad_token_id=50256, decoder_start_token_id=t["sot"],
        begin_suppress_tokens=gen["begin_suppress_tokens"], suppress_tokens=gen["suppress_tokens"], activation_function="gelu",
        scale_embedding=False, tie_word_embeddings=True, init_std=std, use_cache=True, median_filter_width=7)
    cfg.architectures = ["WhisperForConditionalGeneration"]
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(seed)
    old_dtype = torch.get_default_dtype()
    torch.set_default_dtype(torch.float16)
    try:
        with torch.device(device):
            model = WhisperForConditionalGeneration(cfg)
    finally:
        torch.set_default_dtype(old_dtype)
    model.eval()
    g = torch.Generator(device=device).manual_seed(seed)
    with torch.no_grad():  # the same init whatever transformers' own _init_weights does in this version
        for name, p in model.named_parameters():
            if name.endswith("encoder.embed_positions.weight"):
                p.copy_(sinusoids(p.shape[0], p.shape[1], torch).to(p.dtype))
            elif "layer_norm" in name:
                p.fill_(1.0 if name.endswith(".weight") else 0.0)
            elif name.endswith(".bias"):
                p.zero_()
            else:
                p.normal_(0.0, std, generator=g)
    n_params = sum(p.numel() for p in model.parameters())
    try:  # generate's settings where transformers looks for them (the file is rewritten below in any case)
        model.generation_config = transformers.GenerationConfig(**gen)
    except Exception as e:  # noqa: BLE001 - a version that rejects a field: the file below still has it
        print("GenerationConfig(...) refused (%s: %s); generation_config.json is written directly" % (type(e).__name__, e))
    os.makedirs(out, exist_ok=True)

    def save():
        try:
            model.save_pretrained(out, safe_serialization=True, max_shard_size="100GB")
        except TypeError:  # transformers versions without safe_serialization (always safetensors)
            model.save_pretrained(out, max_shard_size="100GB")
    try:
        save()
    except ValueError as e:  # versions that refuse generation settings in config.json: they are in generation_config.json
        print("save_pretrained refused the config's generation settings (%s); saving without them" % e)
        for k in ("suppress_tokens", "begin_suppress_tokens"):
            if hasattr(model.config, k):
                delattr(model.config, k)
        save()
    gpath = os.path.join(out, "generation_config.json")
    g_old = {}
    if os.path.isfile(gpath):
        with open(gpath) as f:
            g_old = json.load(f)
    g_old.update(gen)
    g_old.setdefault("transformers_version", transformers.__version__)
    with open(gpath, "w") as f:
        json.dump(g_old, f, indent=2)
    WhisperFeatureExtractor(feature_size=s["n_mels"]).save_pretrained(out)
    stamp.update(params=n_params, dtype="float16", transformers=transformers.__version__, torch=torch.__version__)
    with open(sp, "w") as f:
        json.dump(stamp, f, indent=1)
    del model
    if device == "cuda":
        torch.cuda.empty_cache()
    files = sorted(os.listdir(out))
    size = sum(os.path.getsize(os.path.join(out, f)) for f in files)
    print("%s: %s, %.0fM parameters, %.2f GB in %s, made in %.0f s" % (out, shape, n_params / 1e6, size / 1e9, ", ".join(files), time.time() - t0))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", required=True, choices=sorted(SHAPES))
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--std", type=float, default=0.02)
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--device", help="cuda (default when available) or cpu")
    a = ap.parse_args()
    make(a.shape, a.out, a.seed, a.std, a.force, a.device)
    return 0


if __name__ == "__main__":
    sys.exit(main())
