#!/usr/bin/env bash
# Signal ops on the GPU machine (run by tools/gpu_check.sh with the output
# folder as $1; binaries prebuilt in build/): the fixtures (PyTorch / HF),
# test_signal on CUDA against the CPU reference and the fixtures, then
# bench_signal side by side with bench/signal_torch.py. JSON lands in "$1"
# and bench/results/; the last line is a one-line summary.
set -u
cd "$(dirname "$0")/../.."
OUT=${1:-build/gpu-out}
mkdir -p "$OUT" bench/results
stamp=$(date -u +%Y%m%d)
commit=${GK_COMMIT:-$(cat build/COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)}
export GK_COMMIT=$commit

# 1. fixtures (only when missing: the committed ones are used otherwise)
if [ ! -f tests/fixtures/signal/index.txt ]; then
  python3 tests/gen_signal_fixtures.py tests/fixtures/signal > "$OUT/signal_fixtures.log" 2>&1 || echo "fixture generation failed (see signal_fixtures.log)"
  mkdir -p "$OUT/signal_fixtures" && cp -r tests/fixtures/signal/. "$OUT/signal_fixtures/" 2>/dev/null
fi

# 2. the tests on CUDA
GKT_BACKEND=cuda build/test_signal > "$OUT/test_signal_cuda.log" 2>&1; trc=$?
grep -E "FAIL|passed|skip|fixtures" "$OUT/test_signal_cuda.log" | tail -n 20
tests=$(tail -n 1 "$OUT/test_signal_cuda.log")

# 3. benchmarks, side by side
build/bench_signal --json "$OUT/bench_signal.json" 2>&1 | tee "$OUT/bench_signal.log"
python3 bench/signal_torch.py "$OUT/signal_torch.json" 2>&1 | tee "$OUT/signal_torch.log"
python3 - "$OUT" "$commit" "$stamp" <<'PY'
import json, os, sys
out, commit, stamp = sys.argv[1:4]
try:
    g = json.load(open(os.path.join(out, "bench_signal.json")))
except Exception as e:
    print("summary: no gpukit results:", e); sys.exit(0)
try:
    t = json.load(open(os.path.join(out, "signal_torch.json")))
except Exception:
    t = {"torch_ms": {}, "torch": "missing"}
gm, tm = g["gpukit_ms"], t["torch_ms"]
pairs = [("stft_8x480000_n400_h160", "stft_8x480000_n400_h160"),
         ("logmel80_8x30s", "hf_logmel80_8x30s_cuda"), ("logmel80_8x30s", "torch_logmel80_core_8x30s"),
         ("logmel80_8x30s", "hf_logmel80_8x30s_default"),
         ("logmel128_8x30s", "hf_logmel128_8x30s_cuda"), ("logmel128_8x30s", "torch_logmel128_core_8x30s")]
pairs += [(k, k) for k in gm if k.startswith(("lstm", "conv", "fft"))]
rows = []
for a, b in pairs:
    if a in gm and b in tm:
        rows.append({"gpukit": a, "peer": b, "gpukit_ms": gm[a], "peer_ms": tm[b], "speedup": tm[b] / gm[a] if gm[a] > 0 else None})
        print(f"  {a:30s} {gm[a]:9.3f} ms  vs {b:32s} {tm[b]:9.3f} ms  x{tm[b] / gm[a]:.2f}")
merged = {"bench": "signal", "commit": commit, "device": g.get("device"), "date": g.get("date"), "torch": t.get("torch"),
          "gpukit_ms": gm, "peer_ms": tm, "pairs": rows}
for path in (os.path.join(out, "signal.json"), f"bench/results/signal-{stamp}.json"):
    with open(path, "w") as f:
        json.dump(merged, f, indent=2)
def sp(a, b):
    r = [x for x in rows if x["gpukit"] == a and x["peer"] == b]
    return f"x{r[0]['speedup']:.2f}" if r else "n/a"
print(f"SUMMARY stft {sp('stft_8x480000_n400_h160','stft_8x480000_n400_h160')} vs torch; logmel80 {sp('logmel80_8x30s','hf_logmel80_8x30s_cuda')} vs HF cuda; "
      f"lstm H256 {sp('lstm_T1000_H256_uni','lstm_T1000_H256_uni')} H512 {sp('lstm_T1000_H512_uni','lstm_T1000_H512_uni')} "
      f"bi512 {sp('lstm_T1000_H512_bi','lstm_T1000_H512_bi')} vs cuDNN", file=open(os.path.join(out, "signal_summary.txt"), "w"))
PY
echo "signal: tests [$tests] rc=$trc; $(cat "$OUT/signal_summary.txt" 2>/dev/null || echo 'no bench summary')"
