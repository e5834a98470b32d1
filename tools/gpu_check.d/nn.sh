#!/usr/bin/env bash
# nn op group on the GPU machine (run by tools/gpu_check.sh with the output
# folder as $1; binaries prebuilt in build/):
#   1. PyTorch / HF fixtures (tests/gen_nn_fixtures.py) into $1/nn_fixtures
#      (commit them as tests/fixtures/nn), then build/test_nn on CUDA with them
#   2. build/bench_nn and bench/nn_torch.py in one go, JSON into $1 and
#      bench/results/, ratios printed; the last line is the summary.
set -u
cd "$(dirname "$0")/../.."
OUT=${1:-build/gpu-out}
mkdir -p "$OUT" bench/results
export GK_COMMIT=${GK_COMMIT:-$(cat build/COMMIT 2>/dev/null || git rev-parse --short HEAD 2>/dev/null || echo unknown)}
stamp=$(date -u +%Y%m%d)

fx="fixtures: not made"
if python3 tests/gen_nn_fixtures.py "$OUT/nn_fixtures" > "$OUT/nn_fixtures.log" 2>&1; then
  GKT_BACKEND=cuda GKT_NN_FIXTURES="$OUT/nn_fixtures" build/test_nn > "$OUT/test_nn_fixtures.log" 2>&1
  fx="test_nn+fixtures rc=$? $(tail -n 1 "$OUT/test_nn_fixtures.log")"
  grep -E "FAIL|fixtures:" "$OUT/test_nn_fixtures.log" | head -n 20
else
  tail -n 5 "$OUT/nn_fixtures.log"
fi

build/bench_nn --json "$OUT/bench_nn.json"; rc1=$?
python3 bench/nn_torch.py --json "$OUT/bench_nn_torch.json"; rc2=$?
cp "$OUT/bench_nn.json" "bench/results/nn-$stamp.json" 2>/dev/null
cp "$OUT/bench_nn_torch.json" "bench/results/nn-torch-$stamp.json" 2>/dev/null

python3 - "$OUT" "$fx" "$rc1" "$rc2" <<'PY'
import json, sys
out, fx, rc1, rc2 = sys.argv[1:5]
try:
    g = json.load(open(out + "/bench_nn.json"))
    t = json.load(open(out + "/bench_nn_torch.json"))
except Exception as e:
    print("nn: bench JSON missing (bench_nn rc=%s, nn_torch rc=%s): %s; %s" % (rc1, rc2, e, fx))
    sys.exit(0)
copy = g["copy_gbs"]
rows, worst_t, worst_c = [], None, None
for name, v in g["ops"].items():
    if name.startswith("copy"):
        continue
    peers = [tv["gbs"] for tn, tv in t["ops"].items() if tn == name or tn.startswith(name + "_")]
    peer = max(peers) if peers else None
    ratio = v["gbs"] / peer if peer else None
    frac = v["gbs"] / copy
    rows.append((name, v["gbs"], frac, peer, ratio))
    if ratio is not None and (worst_t is None or ratio < worst_t[1]):
        worst_t = (name, ratio)
    if worst_c is None or frac < worst_c[1]:
        worst_c = (name, frac)
print("%-38s %9s %7s %9s %7s" % ("op", "gpukit", "%copy", "torch", "ratio"))
for n, gb, fr, pe, ra in rows:
    print("%-38s %9.0f %6.1f%% %9s %7s" % (n, gb, 100 * fr, "%.0f" % pe if pe else "-", "%.2fx" % ra if ra else "-"))
json.dump({"commit": g["commit"], "device": g["device"], "date": g["date"], "copy_gbs": copy, "torch_copy_gbs": t["ops"].get("copy_f32_256MiB", {}).get("gbs"),
           "ops": {n: {"gbs": gb, "frac_copy": fr, "torch_gbs": pe, "ratio_vs_torch": ra} for n, gb, fr, pe, ra in rows}},
          open(out + "/bench_nn_summary.json", "w"), indent=2)
for name, vs in g.get("layernorm_variants", {}).items():  # % of copy per variant (ran: the variant that ran), torch's
    pe = t["ops"].get(name, {}).get("gbs")
    print("%-26s %s  torch %s" % (name, " ".join("%s %.1f%% (ran %d)" % (k, 100 * v["frac_copy"], v["ran"]) for k, v in vs.items()),
                                  "%.1f%%" % (100 * pe / copy) if pe else "-"))
print("nn: copy %.0f GB/s; min vs torch %s %.2fx; min %%copy %s %.0f%%; %s" % (copy, worst_t[0] if worst_t else "-", worst_t[1] if worst_t else 0,
      worst_c[0], 100 * worst_c[1], fx))
PY
