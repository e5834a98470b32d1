#!/usr/bin/env bash
# issue 5 on the GPU machine (called by tools/gpu_check.sh with the output
# folder as $1): gpukit's tokenizers against HF `tokenizers` on the same
# tokenizer.json files, and encode throughput side by side (single-threaded).
# Needs the tokenizer models staged in .carry/npm (make gpu-prep GPU_PREP_TOK=1).
OUT=${1:-build/gpu-out}
TOK=.carry/npm
rc=skipped brc=skipped
if [ -d "$TOK" ]; then
python3 tests/tokenizer_hf_check.py --tokenizers $TOK --gpukit ./build/tokenize --out "$OUT/hf_ids" > "$OUT/tokenizer_hf_check.log" 2>&1
rc=$?
tail -n 8 "$OUT/tokenizer_hf_check.log"
python3 bench/bench_tokenizer.py --tokenizers $TOK --mb 20 --gpukit ./build/bench_tokenizer --out "$OUT" > "$OUT/bench_tokenizer.log" 2>&1
brc=$?
tail -n 8 "$OUT/bench_tokenizer.log"
echo "llm: HF tokenizers parity rc=$rc; tokenizer bench rc=$brc ($(grep -h -o 'ratio[^,]*' "$OUT/bench_tokenizer.log" | head -3 | tr '\n' ' '))"
else
echo "llm: tokenizer parity and bench skipped: no $TOK (make gpu-prep GPU_PREP_TOK=1 stages the models)"
fi

# issue 6: the transformer runtime. test_llm_model runs with the other GPU
# tests (HF fixture parity in f32 and bf16 on CUDA). The model benchmark
# makes ~16 GB of random-weight model folders the first time, so it is only
# run here when LLM_BENCH=1 (gpu_check.d scripts have 300 s); otherwise run
#   python3 bench/llm_torch.py --json $OUT/bench_llm.json
# in its own device call.
if [ "${LLM_BENCH:-0}" = 1 ]; then
  python3 bench/llm_torch.py --json "$OUT/bench_llm.json" > "$OUT/bench_llm.log" 2>&1
  lrc=$?
  tail -n 6 "$OUT/bench_llm.log"
  cp "$OUT/bench_llm.json" "bench/results/llm-$(date -u +%Y%m%d).json" 2>/dev/null
  echo "llm: tokenizer parity rc=$rc, bench rc=$brc; model bench rc=$lrc: $(tail -n 1 "$OUT/bench_llm.log" | cut -c1-200)"
fi
