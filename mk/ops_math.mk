# The math group (>>ops_math): elementwise math, reductions, softmax, cumsum,
# top-k, sampling. Included by the main Makefile (include mk/*.mk).
OPS_TESTS += test_math
OPS_BENCHES += build/bench_math build/bench_stream
