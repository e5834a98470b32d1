OPS_TESTS += test_matmul test_attention
OPS_BENCHES += build/bench_gemm
