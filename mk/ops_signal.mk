# Signal ops (convolution, LSTM, FFT / STFT / mel): tests/test_signal.c and
# bench/bench_signal.c, built and run by the core Makefile's rules.
OPS_TESTS += test_signal
OPS_BENCHES += build/bench_signal

# The signal kernels run on the CPU in a small CUDA emulator (no GPU needed):
# checks their logic (indexing, FFT stages, barriers); not part of `make test`.
build/signal_emu/emu_test: tests/signal_emu/emu_test.cpp tests/signal_emu/emu.h tests/signal_emu/prep.py kernels/fft.cu kernels/conv.cu \
                           kernels/lstm.cu kernels/gk_common.cuh
	@mkdir -p build/signal_emu
	python3 tests/signal_emu/prep.py kernels build/signal_emu
	$(CXX) -std=c++20 -O1 -g -w -Itests/signal_emu -o $@ tests/signal_emu/emu_test.cpp -lpthread
signal-emu: build/signal_emu/emu_test
	build/signal_emu/emu_test
.PHONY: signal-emu
