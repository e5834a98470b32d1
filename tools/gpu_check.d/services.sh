#!/usr/bin/env bash
# issue 24 on the GPU machine (called by tools/gpu_check.sh with the output
# folder as $1): the runtime services measured, each beside its baseline in
# the same run.
#  1. examples/tenants: a chat decode step of the Qwen2.5-0.5B shape as a
#     Guaranteed task, alone and beside BestEffort bf16 GEMMs, with the
#     scheduler (paced, and with BestEffort held) and without it
#  2. bench_xfer: the transfer engine against plain cuMemcpyAsync from pinned
#     memory, a copy overlapped with a kernel, loading the 7B shape
#  3. bench_profile: the profiler's overhead on the decode launch stream and a
#     Chrome trace of one decode step
# The 0.5B folder is made by bench/llm_torch.py (random weights) under
# $LLM_MODELS (default /tmp/gk_llm_models); the 7B load only with XFER_7B=1
# (it writes 13.5 GB).
OUT=${1:-build/gpu-out}
M=${LLM_MODELS:-/tmp/gk_llm_models}
C=${GK_COMMIT:-unknown}
python3 -c "import sys; sys.path.insert(0, 'bench'); import llm_torch; llm_torch.make_or_load('qwen2.5-0.5b', '$M')" > "$OUT/services_model.log" 2>&1 ||
  { echo "services: cannot make the 0.5B model: $(tail -n 2 "$OUT/services_model.log")"; exit 1; }
build/tenants "$M/qwen2.5-0.5b" --json "$OUT/tenants.json" --commit "$C" 2>&1 | tee "$OUT/tenants.log"
build/tenants "$M/qwen2.5-0.5b" --paced 1 --no-compare --json "$OUT/tenants_paced.json" --commit "$C" 2>&1 | tee "$OUT/tenants_paced.log"
python3 - "$OUT/tenants.json" "$OUT/tenants_paced.json" <<'PY'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
print("services: Guaranteed p99 %.2fx solo held, %.2fx paced, %.2fx without the scheduler; BestEffort after idle %.0f%% of solo"
      % (a["p99_ratio_sched"], b["p99_ratio_sched"], a["p99_ratio_plain"], 100 * a["besteffort_recovery"]))
PY
build/bench_xfer --json "$OUT/bench_xfer.json" 2>&1 | tee "$OUT/bench_xfer.log" | tail -n 25
if [ "${XFER_7B:-0}" = 1 ]; then
  build/bench_xfer --make-model /tmp/gk_m7b --load /tmp/gk_m7b --sweep --json "$OUT/bench_xfer_7b.json" 2>&1 | tee "$OUT/bench_xfer_7b.log" | tail -n 15
fi
build/bench_profile --json "$OUT/bench_profile.json" --trace "$OUT/profile_trace.json" 2>&1 | tee "$OUT/bench_profile.log" | tail -n 15
tail -n 1 "$OUT/bench_xfer.log"; tail -n 1 "$OUT/bench_profile.log"
