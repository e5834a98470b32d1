#!/usr/bin/env bash
# issue 4 on the GPU machine: GEMM / GEMV, gpukit (own kernels, cuBLASLt path) and PyTorch side by side.
OUT=${1:-build/gpu-out}
build/bench_gemm --json "$OUT/bench_gemm.json" 2>&1 | tee "$OUT/bench_gemm.log"
python3 bench/gemm_torch.py "$OUT/bench_gemm_torch.json" "$OUT/bench_gemm.json" 2>&1 | tee -a "$OUT/bench_gemm.log"
echo "gemm: $(grep -c . "$OUT/bench_gemm.log") lines; see bench_gemm.log"
