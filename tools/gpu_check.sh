#!/usr/bin/env bash
# gpu-check: everything that needs the GPU, in one device call. Run `make
# gpu-prep` here first (builds the programs, fills the sm_90 kernel cache into
# .carry/kc.txz, records the commit), then carry .carry/.
# Results land in $OUT (the device tool) or build/gpu-out, and
# bench/results/*.json; a short table is printed last.
set -u
cd "$(dirname "$0")/.."
OUT=${OUT:-build/gpu-out}
mkdir -p "$OUT"
export GPUKIT_CACHE_DIR=${GPUKIT_CACHE_DIR:-$PWD/.carry/kcache}
# the kernel cache travels compressed (make gpu-prep): unpack it once
if [ -f .carry/kc.txz ] && [ ! -d "$GPUKIT_CACHE_DIR" ]; then
  mkdir -p "$GPUKIT_CACHE_DIR" && tar xJf .carry/kc.txz -C "$GPUKIT_CACHE_DIR" --strip-components=1 && echo "kernel cache: $(ls "$GPUKIT_CACHE_DIR" | wc -l) entries from .carry/kc.txz"
fi
export GK_COMMIT=$(cat build/COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)
summary=()
note() { summary+=("$1"); }
# GPU_CHECK_PARTS selects parts (default all): tests memcheck bench extra
PARTS=${GPU_CHECK_PARTS:-tests memcheck bench extra}
want() { case " $PARTS " in *" $1 "*) return 0;; esac; return 1; }

# GPU_CHECK_FILL=1 (after `make gpu-prep GPU_PREP_FILL=device`): fill the kernel
# cache here, one NVRTC process per module in parallel, before anything runs
if [ "${GPU_CHECK_FILL:-0}" = 1 ] && [ -x build/check_kernels ]; then
  t0=$(date +%s)
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d .)
  mods=$(grep -o 'gk__module_names\[[0-9]*\] = {[^}]*}' gpukit_kernels.h | grep -o '"[^"]*"' | tr -d '"')
  for m in $mods; do build/check_kernels --fill "$GPUKIT_CACHE_DIR" --only "$m" "sm_$arch" > "$OUT/fill_$m.log" 2>&1 & done
  wait
  ok=$(cat "$OUT"/fill_*.log | grep -c 'in the cache')
  note "kernel cache filled here for sm_$arch in $(( $(date +%s) - t0 )) s: $ok of $(echo $mods | wc -w) modules"
  grep -hv -e 'in the cache' -e '^check_kernels:' "$OUT"/fill_*.log | head -n 5
  rm -f "$OUT"/fill_*.log
fi

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | tee "$OUT/device.txt"

# 1. every core test on the CUDA backend, against the CPU reference
if want tests; then
rm -f build/test-results.txt
tests=$(cat build/GPU_TESTS 2>/dev/null || echo build/test_core build/test_tensor build/test_pool build/test_ops build/test_jit build/test_stream)
GKT_BACKEND=cuda RUN_TESTS_TIMEOUT=${RUN_TESTS_TIMEOUT:-240} tools/run_tests.sh $tests > "$OUT/tests.log" 2>&1; rc=$?
grep -E "FAIL|passed" "$OUT/tests.log" | tail -n 30
note "tests (CUDA vs CPU ref): $(tools/run_tests.sh --summary 2>&1 | tail -n 1) rc=$rc"
fi

# 2. compute-sanitizer memcheck on the GPU tests (in parallel: each is mostly host time)
if want memcheck; then
if command -v compute-sanitizer >/dev/null 2>&1; then
  mts=$(awk '$1 !~ /^#/ && $2 == "test" { for (i = 3; i <= NF; i++) print $i }' src/groups.txt | grep -v -e test_core -e test_decls)
  for t in $mts; do
    GKT_BACKEND=cuda timeout 420 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 --leak-check full build/$t > "$OUT/memcheck_$t.log" 2>&1 &
  done
  wait
  for t in $mts; do
    errs=$(grep -E "ERROR SUMMARY" "$OUT/memcheck_$t.log" | tail -n 1)
    res=$(grep -E "[0-9]+ passed, [0-9]+ failed" "$OUT/memcheck_$t.log" | tail -n 1)
    note "memcheck $t: ${errs:-no summary (timed out?)} | $res"
  done
else
  note "memcheck: compute-sanitizer not found"
fi
fi

# 3. the demo and the benchmarks
if want bench; then
build/demo > "$OUT/demo.log" 2>&1; note "demo: rc=$? $(grep kernel "$OUT/demo.log" | cut -c1-90)"
mkdir -p bench/results
stamp=$(date -u +%Y%m%d)
build/bench_core --json "$OUT/bench_core.json" > "$OUT/bench_core.log" 2>&1; note "bench_core: rc=$?"
cp "$OUT/bench_core.json" "bench/results/core-$stamp.json" 2>/dev/null
cat "$OUT/bench_core.log"
fi

# 4. the parts' GPU checks (src/groups.txt, kind gpu: tools/gpu_check.d/<name>.sh;
#    GPU_CHECK_EXTRA names some)
if want extra; then
extra=${GPU_CHECK_EXTRA:-$(awk '$1 !~ /^#/ && $2 == "gpu" { for (i = 3; i <= NF; i++) print "tools/gpu_check.d/" $i ".sh" }' src/groups.txt)}
for f in $extra; do
  [ -f "$f" ] || continue
  timeout 300 bash "$f" "$OUT" > "$OUT/$(basename "$f" .sh).log" 2>&1
  note "$(basename "$f"): rc=$? $(tail -n 1 "$OUT/$(basename "$f" .sh).log" | cut -c1-160)"
done
fi

echo
echo "================ gpu-check summary ($GK_COMMIT) ================"
for s in "${summary[@]}"; do echo "  $s"; done | tee "$OUT/summary.txt"
# the device tool brings back at most 8 files: everything goes in one archive
if [ "${GPU_CHECK_PACK:-1}" = 1 ]; then
  tar czf /tmp/gpu-check.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/gpu-check.tgz "$OUT/gpu-check.tgz"
fi
