#!/usr/bin/env bash
# issue 4 on the GPU machine: decode GEMV and the fused gate/up GLU, gpukit and
# PyTorch (cuBLAS) side by side with one method (bench/bench_gemv.c).
OUT=${1:-build/gpu-out}
build/bench_gemv --json "$OUT/bench_gemv.json" 2>&1 | tee "$OUT/bench_gemv.log"
python3 bench/gemv_torch.py --json "$OUT/bench_gemv_torch.json" 2>&1 | tee -a "$OUT/bench_gemv.log"
python3 - "$OUT/bench_gemv.json" "$OUT/bench_gemv_torch.json" <<'PY'
import json, sys
g = json.load(open(sys.argv[1])); t = json.load(open(sys.argv[2]))
tt = {(r["op"], r["M"], r["N"], r["K"]): r for r in t["results"]}
line = []
for r in g["results"]:
    if r["op"] == "gemv" and r["cfg"] == -1:
        p = tt.get(("gemv", r["M"], r["N"], r["K"]))
        s = f"M{r['M']} {r['N']}x{r['K']}: {100 * r['of_copy']:.0f}% of copy, {p['us'] / r['us']:.2f}x torch" if p else ""
        print("ratio gemv", s); line.append(f"{r['N']}x{r['K']}/M{r['M']} {100 * r['of_copy']:.0f}%")
    if r["op"] == "glu_fused":
        p = tt.get(("glu", 1, r["N"], r["K"]))
        print(f"ratio glu {r['N']}x{r['K']}: {100 * r['of_copy']:.0f}% of copy, {p['us'] / r['us']:.2f}x torch" if p else "")
print("gemv: " + ", ".join(l for l in line if "/M1 " in l))
PY
