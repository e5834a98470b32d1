// Reference ids for the English-only Whisper tokenizer (tests/test_whisper_tokenizer.c)
// from the npm package gpt-3-encoder (OpenAI's GPT-2 encoder ported to JS).
//   node tests/whisper_tok_ref.mjs NPM_DIR WHISPER_DIR OUT_DIR
// NPM_DIR holds node_modules/gpt-3-encoder; WHISPER_DIR the folder
// tools/whisper_tokenizer.py wrote (its added tokens: Whisper's special and
// timestamp tokens). gpt-3-encoder knows no added tokens, so each string is
// first split at them as HF tokenizers does (at each position the longest
// added token that starts there, scanning left to right) and the text
// between them is encoded by gpt-3-encoder.
// Writes OUT_DIR/whisper_en.jsonl (tests/data/whisper_tok_corpus.jsonl) and
// OUT_DIR/shared.jsonl (tests/data/tokenizer_corpus.jsonl): one JSON array of
// ids per corpus line; OUT_DIR/nonspeech.json: the token ids whisper's
// tokenizer.py suppresses as non-speech (its non_speech_tokens rule, here
// with gpt-3-encoder's encode).
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const [npmDir, whisperDir, outDir] = process.argv.slice(2);
if (!outDir) {
  console.error("usage: node tests/whisper_tok_ref.mjs NPM_DIR WHISPER_DIR OUT_DIR");
  process.exit(2);
}
const here = path.dirname(new URL(import.meta.url).pathname);
const require = createRequire(import.meta.url);
const gpt = require(path.resolve(npmDir, "node_modules/gpt-3-encoder"));
const tj = JSON.parse(fs.readFileSync(path.join(whisperDir, "tokenizer.json"), "utf8"));
const added = new Map(tj.added_tokens.map((a) => [a.content, a.id]));
const maxLen = Math.max(...[...added.keys()].map((k) => k.length));
fs.mkdirSync(outDir, { recursive: true });

function encode(s) {
  const ids = [];
  let start = 0, i = 0;
  while (i < s.length) {
    let hit = null;
    if (s.startsWith("<|", i)) {
      for (let n = Math.min(maxLen, s.length - i); n >= 4; n--) {
        const c = s.substr(i, n);
        if (added.has(c)) { hit = c; break; }
      }
    }
    if (hit === null) { i++; continue; }
    if (i > start) ids.push(...gpt.encode(s.slice(start, i)));
    ids.push(added.get(hit));
    i += hit.length;
    start = i;
  }
  if (s.length > start) ids.push(...gpt.encode(s.slice(start)));
  return ids;
}

function corpus(file) {
  return fs.readFileSync(path.join(here, "data", file), "utf8").split("\n").filter((l) => l.length).map((l) => JSON.parse(l));
}
let total = 0;
for (const [file, out] of [["whisper_tok_corpus.jsonl", "whisper_en.jsonl"], ["tokenizer_corpus.jsonl", "shared.jsonl"]]) {
  const lines = corpus(file).map((s) => JSON.stringify(encode(s)));
  fs.writeFileSync(path.join(outDir, out), lines.join("\n") + "\n");
  total += lines.length;
}

// non-speech symbols: the first token of " -" and " '"; each symbol, alone and after a
// space, when it is one token; the musical signs (U+2640..U+267F) always by their first token
const symbols = [...'"#()*+/:;<=>@[\\]^_`{|}~「」『』',
  ..."<< >> <<< >>> -- --- -( -[ (' (\" (( )) ((( ))) [[ ]] {{ }} ♪♪ ♪♪♪".split(" ")];
const misc = [..."♩♪♫♬♭♮♯"];
const ns = new Set([gpt.encode(" -")[0], gpt.encode(" '")[0]]);
for (const sym of [...symbols, ...misc]) {
  for (const t of [gpt.encode(sym), gpt.encode(" " + sym)]) {
    if (t.length === 1 || misc.includes(sym)) ns.add(t[0]);
  }
}
fs.writeFileSync(path.join(outDir, "nonspeech.json"), JSON.stringify([...ns].sort((a, b) => a - b)) + "\n");
console.log(`whisper_tok_ref: ${total} strings, ${ns.size} non-speech tokens -> ${outDir}`);
