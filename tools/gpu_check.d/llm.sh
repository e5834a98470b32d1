#!/usr/bin/env bash
# issue 5 on the GPU machine (called by tools/gpu_check.sh with the output
# folder as $1): gpukit's tokenizers against HF `tokenizers` on the same
# tokenizer.json files, and encode throughput side by side (single-threaded).
# Needs the tokenizer models staged in .carry/npm (make gpu-prep does it).
OUT=${1:-build/gpu-out}
TOK=.carry/npm
python3 tests/tokenizer_hf_check.py --tokenizers $TOK --gpukit ./build/tokenize --out "$OUT/hf_ids" > "$OUT/tokenizer_hf_check.log" 2>&1
rc=$?
tail -n 8 "$OUT/tokenizer_hf_check.log"
python3 bench/bench_tokenizer.py --tokenizers $TOK --mb 20 --gpukit ./build/bench_tokenizer --out "$OUT" > "$OUT/bench_tokenizer.log" 2>&1
brc=$?
tail -n 8 "$OUT/bench_tokenizer.log"
echo "llm: HF tokenizers parity rc=$rc; tokenizer bench rc=$brc ($(grep -h -o 'ratio[^,]*' "$OUT/bench_tokenizer.log" | head -3 | tr '\n' ' '))"
