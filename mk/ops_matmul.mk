OPS_TESTS += test_matmul test_attention test_gemv
OPS_BENCHES += build/bench_gemm build/bench_gemv
