#!/usr/bin/env python3
"""HF's ids for the English-only Whisper tokenizer folder that
tools/whisper_tokenizer.py writes, for tests/test_whisper_tokenizer.c.
Runs where transformers and tokenizers are installed (the GPU machine);
nothing is downloaded.

    python3 tests/whisper_tok_hf.py [--folder build/whisper_en] [--out tests/fixtures/whisper_tok/hf_ids.json] [--all]

Four HF tokenizers on the same folder:
    raw    tokenizers.Tokenizer.from_file(tokenizer.json)
    fast   transformers.WhisperTokenizerFast.from_pretrained(folder) (tokenizer.json)
    slow   transformers.WhisperTokenizer.from_pretrained(folder) (vocab.json, merges.txt,
           added_tokens.json, special_tokens_map.json; in transformers versions whose
           WhisperTokenizer is tokenizers-backed, "classes" in the JSON says so)
    files  transformers.WhisperTokenizer(vocab_file, merges_file) with the added tokens
           added as HF's convert_openai_to_hf.py adds them (special tokens, then the
           timestamps as plain tokens): the folder without its tokenizer.json
Each encodes tests/data/whisper_tok_corpus.jsonl and tests/data/tokenizer_corpus_hf_only.jsonl
(with --all also tests/data/tokenizer_corpus.jsonl) without special tokens, and
the first 40 strings with them. Each tokenizer's ids of every added token
(convert_tokens_to_ids / token_to_id) are checked here against the layout of
tools/whisper_tokenizer.py.

The JSON: {"transformers", "tokenizers", "date", "folder", "kinds": [the tokenizers that
loaded], "classes", "failed": {kind: error}, "layout_ok": {kind: bool},
"cases": [{"text", "ids", ["special"], [kind: ids], ["special_" + kind: ids]}]}
where "ids" / "special" are the first loaded tokenizer's (kinds[0]) and a
kind's own key appears only where its ids differ from them. Prints how the
tokenizers agree with each other and, when build/whisper_tok/whisper_en.jsonl
exists, with gpt-3-encoder's ids."""
import argparse
import datetime
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tools"))
import whisper_tokenizer  # noqa: E402  (the layout)

N_SPECIAL = 40


def corpus(name):
    with open(os.path.join(HERE, "data", name), encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip()]


def load(folder):
    """{kind: (encode(text, special) -> ids, token_to_id(name) -> id or None, class name)}, {kind: error}"""
    toks, failed = {}, {}
    try:
        from tokenizers import Tokenizer
        t = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
        toks["raw"] = (lambda s, sp, t=t: t.encode(s, add_special_tokens=sp).ids, t.token_to_id, "tokenizers.Tokenizer")
    except Exception as e:  # noqa: BLE001 - recorded in the JSON
        failed["raw"] = "%s: %s" % (type(e).__name__, e)
    for kind, cls_name in (("fast", "WhisperTokenizerFast"), ("slow", "WhisperTokenizer")):
        try:
            import transformers
            cls = getattr(transformers, cls_name)
            t = cls.from_pretrained(folder)
            unk = t.unk_token_id

            def tid(name, t=t, unk=unk):
                i = t.convert_tokens_to_ids(name)
                return None if i is None or (i == unk and name != t.unk_token) else i
            toks[kind] = (lambda s, sp, t=t: list(t.encode(s, add_special_tokens=sp)), tid,
                          "%s (%s)" % (type(t).__name__, "fast" if getattr(t, "is_fast", False) else "python"))
        except Exception as e:  # noqa: BLE001
            failed[kind] = "%s: %s" % (type(e).__name__, e)
            traceback.print_exc()
    # the files without tokenizer.json, as HF's converter builds a Whisper tokenizer: vocab.json and
    # merges.txt, then the special tokens (special) and the timestamps (plain), in id order
    try:
        import transformers
        t = transformers.WhisperTokenizer(vocab_file=os.path.join(folder, "vocab.json"), merges_file=os.path.join(folder, "merges.txt"))
        with open(os.path.join(folder, "tokenizer.json"), encoding="utf-8") as f:
            added = json.load(f)["added_tokens"]
        t.add_tokens([a["content"] for a in added if a["special"]], special_tokens=True)
        t.add_tokens([a["content"] for a in added if not a["special"]], special_tokens=False)
        unk = t.unk_token_id

        def tid(name, t=t, unk=unk):
            i = t.convert_tokens_to_ids(name)
            return None if i is None or (i == unk and name != t.unk_token) else i
        toks["files"] = (lambda s, sp, t=t: list(t.encode(s, add_special_tokens=sp)), tid,
                         "%s from vocab.json + merges.txt + add_tokens (%s)" % (type(t).__name__, "fast" if getattr(t, "is_fast", False) else "python"))
    except Exception as e:  # noqa: BLE001
        failed["files"] = "%s: %s" % (type(e).__name__, e)
        traceback.print_exc()
    return toks, failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--folder", default=os.path.join(ROOT, "build", "whisper_en"))
    ap.add_argument("--out", default=os.path.join(ROOT, "tests", "fixtures", "whisper_tok", "hf_ids.json"))
    ap.add_argument("--all", action="store_true", help="also tests/data/tokenizer_corpus.jsonl (a larger file)")
    a = ap.parse_args()
    if not os.path.isfile(os.path.join(a.folder, "tokenizer.json")):
        print("whisper_tok_hf: %s has no tokenizer.json (tests/setup_tokenizers.sh writes build/whisper_en; carry it)" % a.folder)
        return 1
    texts = corpus("whisper_tok_corpus.jsonl") + corpus("tokenizer_corpus_hf_only.jsonl")
    if a.all:
        texts += corpus("tokenizer_corpus.jsonl")
    toks, failed = load(a.folder)
    kinds = [k for k in ("raw", "fast", "slow", "files") if k in toks]
    if not kinds:
        print("whisper_tok_hf: no HF tokenizer loaded: %s" % failed)
        return 1
    # every added token's id, as each tokenizer has it
    with open(os.path.join(a.folder, "tokenizer.json"), encoding="utf-8") as f:
        ns = next(t["content"] for t in json.load(f)["added_tokens"] if t["id"] == 50361)
    lay = whisper_tokenizer.layout(ns[2:-2])
    layout_ok = {}
    for k in kinds:
        bad = [(i, c, toks[k][1](c)) for i, c, _ in lay if toks[k][1](c) != i]
        layout_ok[k] = not bad
        print("%s: %s; added tokens: %s" % (k, toks[k][2], "all %d at their ids" % len(lay) if not bad else "%d wrong, e.g. %s" % (len(bad), bad[:3])))
    for k, e in failed.items():
        print("%s: failed to load: %s" % (k, e))
    cases, differ = [], {k: 0 for k in kinds}
    for n, s in enumerate(texts):
        ids = {k: toks[k][0](s, False) for k in kinds}
        c = {"text": s, "ids": ids[kinds[0]]}
        for k in kinds[1:]:
            if ids[k] != ids[kinds[0]]:
                c[k] = ids[k]
                differ[k] += 1
        if n < N_SPECIAL:
            sp = {k: toks[k][0](s, True) for k in kinds}
            c["special"] = sp[kinds[0]]
            for k in kinds[1:]:
                if sp[k] != sp[kinds[0]]:
                    c["special_" + k] = sp[k]
        cases.append(c)
    vers = {}
    for m in ("transformers", "tokenizers"):
        try:
            vers[m] = __import__(m).__version__
        except Exception:  # noqa: BLE001
            vers[m] = None
    out = {"what": "whisper_tok_hf", "transformers": vers["transformers"], "tokenizers": vers["tokenizers"],
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "folder": a.folder,
           "kinds": kinds, "classes": {k: toks[k][2] for k in kinds}, "failed": failed, "layout_ok": layout_ok, "cases": cases}
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print("%d strings; differing from %s: %s" % (len(texts), kinds[0], ", ".join("%s %d" % (k, differ[k]) for k in kinds[1:]) or "-"))
    js = os.path.join(ROOT, "build", "whisper_tok", "whisper_en.jsonl")
    if os.path.isfile(js):
        with open(js) as f:
            ref = [json.loads(l) for l in f if l.strip()]
        m = min(len(ref), len(corpus("whisper_tok_corpus.jsonl")))
        print("gpt-3-encoder (build/whisper_tok): %d of %d English strings differ from %s" % (
            sum(1 for i in range(m) if ref[i] != cases[i]["ids"]), m, kinds[0]))
    print("wrote %s (%d bytes): transformers %s, tokenizers %s" % (a.out, os.path.getsize(a.out), vers["transformers"], vers["tokenizers"]))
    return 0 if all(layout_ok.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
