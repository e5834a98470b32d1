# Signal ops (convolution, LSTM, FFT / STFT / mel): tests/test_signal.c and
# bench/bench_signal.c, built and run by the core Makefile's rules.
OPS_TESTS += test_signal
OPS_BENCHES += build/bench_signal
