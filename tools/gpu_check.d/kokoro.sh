#!/usr/bin/env bash
# Kokoro-82M on the GPU machine (run by tools/gpu_check.sh with the output
# folder as $1, or on its own; binaries prebuilt in build/; test_kokoro_model
# runs with the other tests): build/bench_kokoro (f32 and TF32), and beside it,
# when KOKORO_REF names a folder holding hexgrad/kokoro's kokoro/ package and
# its config.json (nothing is downloaded), bench/kokoro_torch.py: the
# reference's KModel timed the same way. JSON lands in "$1" and
# bench/results/; the last line is a one-line summary.
set -u
cd "$(dirname "$0")/../.."
OUT=${1:-build/gpu-out}
mkdir -p "$OUT" bench/results
stamp=$(date -u +%Y%m%d)
export GK_COMMIT=${GK_COMMIT:-$(cat build/COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)}
build/bench_kokoro --json "$OUT/bench_kokoro.json" > "$OUT/bench_kokoro.log" 2>&1; brc=$?
grep -E "real time" "$OUT/bench_kokoro.log"
[ -f "$OUT/bench_kokoro.json" ] && cp "$OUT/bench_kokoro.json" "bench/results/bench_kokoro-h200-$stamp.json"
ref="reference: skipped (KOKORO_REF unset)"
if [ -n "${KOKORO_REF:-}" ]; then
  python3 bench/kokoro_torch.py --ref "$KOKORO_REF" --config "$KOKORO_REF/config.json" --json "$OUT/kokoro_torch.json" > "$OUT/kokoro_torch.log" 2>&1
  trc=$?
  grep -E "^torch" "$OUT/kokoro_torch.log"
  [ -f "$OUT/kokoro_torch.json" ] && cp "$OUT/kokoro_torch.json" "bench/results/kokoro_torch-h200-$stamp.json"
  ref="reference rc=$trc"
fi
python3 - "$OUT" "bench rc=$brc, $ref" <<'PY'
import json, os, sys
out = sys.argv[1]
try:
    g = json.load(open(os.path.join(out, "bench_kokoro.json")))["cases"]
except (OSError, ValueError, KeyError):
    print("kokoro: no bench_kokoro.json"); sys.exit(0)
try:
    t = json.load(open(os.path.join(out, "kokoro_torch.json")))["cases"]
except (OSError, ValueError, KeyError):
    t = {}
parts = []
for case in ("paragraph_400", "sentence_50"):
    a = g.get(case + "_tf32", {}).get("ms")
    b = t.get(case + "_default", {}).get("ms")
    parts.append("%s tf32 %.1f ms%s" % (case, a or 0, " (PyTorch %.1f, %.2fx)" % (b, b / a) if a and b else ""))
print("kokoro: " + "; ".join(parts) + "; " + sys.argv[2])
PY
