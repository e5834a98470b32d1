#!/usr/bin/env bash
# gpu-check, math group: bench_math (gpukit) and bench/math_torch.py (PyTorch)
# in one go, JSON of both into "$1" and bench/results/, bench_stream and
# bench/stream_torch.py (JSON into "$1"), a side-by-side table, and a
# one-line summary LAST. (The correctness run, build/test_math on CUDA
# against the CPU reference, is part of gpu_check.sh's test step.)
set -u
cd "$(dirname "$0")/../.."
OUT=${1:-build/gpu-out}
mkdir -p "$OUT" bench/results
stamp=$(date -u +%Y%m%d)
export GK_COMMIT=${GK_COMMIT:-$(cat build/COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)}
build/bench_math --json "$OUT/bench_math.json"; rc1=$?
python3 bench/math_torch.py --json "$OUT/bench_math_torch.json"; rc2=$?
cp "$OUT/bench_math.json" "bench/results/math-$stamp.json" 2>/dev/null
cp "$OUT/bench_math_torch.json" "bench/results/math-torch-$stamp.json" 2>/dev/null
# the streaming probe and PyTorch's side, each op also replayed from a CUDA graph
build/bench_stream --json "$OUT/bench_stream.json" > "$OUT/bench_stream.log" 2>&1 || echo "bench_stream failed: $(tail -n 2 "$OUT/bench_stream.log")"
python3 bench/stream_torch.py --json "$OUT/stream_torch.json" > "$OUT/stream_torch.log" 2>&1 || echo "stream_torch.py failed: $(tail -n 2 "$OUT/stream_torch.log")"
grep -E "WRONG|\(gk_" "$OUT/bench_stream.log"; grep graph "$OUT/stream_torch.log"
python3 - "$OUT/bench_math.json" "$OUT/bench_math_torch.json" "$rc1" "$rc2" <<'PY'
import json, sys
try:
    g = json.load(open(sys.argv[1]))["results"]
except Exception as e:
    print(f"math: no gpukit results ({e}) rc={sys.argv[3]}"); sys.exit(1)
try:
    t = json.load(open(sys.argv[2]))["results"]
except Exception:
    t = {}
copy = g.get("copy_d2d_256MiB", {}).get("gbs", 0) or 1
print(f"{'op':36s} {'gpukit us':>10s} {'GB/s':>8s} {'%copy':>6s} {'torch us':>10s} {'speedup':>8s}")
worst, slower = 1e9, []
for k, v in g.items():
    tv = t.get(k, {})
    sp = tv.get("us", 0) / v["us"] if v["us"] and tv.get("us") else 0
    pc = 100 * v["gbs"] / copy if v["gbs"] else 0
    print(f"{k:36s} {v['us']:10.1f} {v['gbs']:8.1f} {pc:6.1f} {tv.get('us', 0):10.1f} {sp:8.2f}")
    if k != "copy_d2d_256MiB" and sp:
        worst = min(worst, sp)
        if sp < 1: slower.append(k)
bw = [100 * g[k]["gbs"] / copy for k in ("silu_f32_256MiB", "gelu_bf16_256MiB", "swiglu_bf16_256MiB", "softmax_f32_4096x32000") if k in g]
print(f"math: bandwidth ops at {min(bw):.0f}-{max(bw):.0f}% of copy; vs torch worst {worst:.2f}x; slower than torch: {', '.join(slower) or 'none'}")
PY
