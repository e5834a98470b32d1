# llm op group (KV-cache write for gpukit_llm.h's runtime): tests, built by the core Makefile.
OPS_TESTS += test_llm_ops
