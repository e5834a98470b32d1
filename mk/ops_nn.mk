# nn op group (norms, RoPE, layout): tests and benchmark, built by the core Makefile.
OPS_TESTS += test_nn
OPS_BENCHES += build/bench_nn
build/test_nn build/asan/test_nn: tests/test_nn_fixtures.h
