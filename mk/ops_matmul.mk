OPS_TESTS += test_matmul
OPS_BENCHES += build/bench_gemm
