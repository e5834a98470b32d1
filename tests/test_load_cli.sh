#!/bin/sh
# examples/load_safetensors on the committed HF fixtures (CPU backend here).
pass=0; fail=0
check() { if [ "$1" = "ok" ]; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: $2"; fi; }
out=$(./build/load_safetensors tests/fixtures/safetensors/sharded --list --cpu 2>/dev/null)
echo "$out" | grep -q "4 tensors in 2 files" && check ok || check no "sharded set: $out"
echo "$out" | grep -q "model.embed_tokens.weight *BF16 *\[16, 8\]" && check ok || check no "listing"
echo "$out" | grep -q "uploaded 4 tensors" && check ok || check no "upload"
err=$(./build/load_safetensors tests/fixtures/safetensors/sharded --cpu 2>&1 >/dev/null)
echo "$err" | grep -q "100.0%" && check ok || check no "progress bar reaches 100%"
out=$(./build/load_safetensors tests/fixtures/safetensors/all_dtypes.safetensors --dtype f32 --cpu 2>/dev/null)
echo "$out" | grep -q "uploaded" && check ok || check no "all dtypes as f32: $out"
if ./build/load_safetensors /nonexistent.safetensors --cpu >/dev/null 2>&1; then check no "missing file must fail"; else check ok; fi
echo "load_safetensors: $pass passed, $fail failed"
[ $fail -eq 0 ]
