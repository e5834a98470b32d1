#!/usr/bin/env python3
"""HF transformers next to build/bench_llm on random-weight bf16 models of
real shapes (Qwen2.5-0.5B, Llama-3.2-1B, Llama-2-7B), in the same run.

    python3 bench/llm_torch.py [--models /tmp/gk_llm_models] [--only qwen2.5-0.5b,...] [--json out.json]

For each shape: makes the model folder (configs written by hand from the
public shapes; weights initialised on the GPU in bf16, save_pretrained with
safetensors, a small byte-level tokenizer.json; reused when the folder
exists), times HF generate (greedy, 32-token prompt, 128 new tokens, EOS
ignored; batch 1 and batch 8; decode rate = new tokens over generate time
minus the one-token generate time) and a 512-token forward, frees it, then
runs build/bench_llm on the same folder and prints the ratios and the
targets (batch-1 decode >= 1500 / 800 / 180 tok/s, prefill-512 on the 7B
>= 10000 tok/s, batch 8 >= 6x batch 1)."""
import argparse
import datetime
import json
import os
import subprocess
import sys
import time

import torch
import transformers

SHAPES = {
    "qwen2.5-0.5b": ("Qwen2ForCausalLM", dict(hidden_size=896, intermediate_size=4864, num_hidden_layers=24, num_attention_heads=14,
                                              num_key_value_heads=2, head_dim=64, vocab_size=151936, max_position_embeddings=32768,
                                              rms_norm_eps=1e-6, tie_word_embeddings=True, bos_token_id=151643, eos_token_id=151643),
                     dict(rope_type="default", rope_theta=1000000.0), 1500),
    "llama-3.2-1b": ("LlamaForCausalLM", dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16, num_attention_heads=32,
                                              num_key_value_heads=8, head_dim=64, vocab_size=128256, max_position_embeddings=131072,
                                              rms_norm_eps=1e-5, tie_word_embeddings=True, bos_token_id=128000, eos_token_id=128001),
                     dict(rope_type="llama3", rope_theta=500000.0, factor=32.0, low_freq_factor=1.0, high_freq_factor=4.0,
                          original_max_position_embeddings=8192), 800),
    "llama-2-7b": ("LlamaForCausalLM", dict(hidden_size=4096, intermediate_size=11008, num_hidden_layers=32, num_attention_heads=32,
                                            num_key_value_heads=32, vocab_size=32000, max_position_embeddings=4096, rms_norm_eps=1e-5,
                                            tie_word_embeddings=False, bos_token_id=1, eos_token_id=2),
                   dict(rope_type="default", rope_theta=10000.0), 180),
}
PROMPT, NEW, PREFILL, BATCH = 32, 128, 512, 8


def tokenizer_json():
    vocab = {"\u010a": 98, "\u0120": 0}
    for b in range(33, 127):
        vocab[chr(b)] = b - 32
    return {"version": "1.0", "added_tokens": [{"id": 95, "content": "<|endoftext|>", "special": True},
                                               {"id": 96, "content": "<|im_start|>", "special": True},
                                               {"id": 97, "content": "<|im_end|>", "special": True}],
            "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "use_regex": False},
            "decoder": {"type": "ByteLevel"}, "model": {"type": "BPE", "vocab": vocab, "merges": []}}


def config_for(arch, kw, rope):
    cls = getattr(transformers, arch.replace("ForCausalLM", "Config"))
    try:  # transformers 5: rope_parameters
        cfg = cls(rope_parameters=dict(rope), **kw)
    except TypeError:
        r = dict(rope)
        theta = r.pop("rope_theta")
        cfg = cls(rope_theta=theta, rope_scaling=r if r.get("rope_type") != "default" else None, **kw)
    cfg.architectures = [arch]
    return cfg


def make_or_load(name, root):
    arch, kw, rope, _ = SHAPES[name]
    d = os.path.join(root, name)
    cls = getattr(transformers, arch)
    if os.path.exists(os.path.join(d, "config.json")) and os.path.exists(os.path.join(d, "tokenizer.json")):
        try:
            return d, cls.from_pretrained(d, dtype=torch.bfloat16).cuda().eval()
        except TypeError:
            return d, cls.from_pretrained(d, torch_dtype=torch.bfloat16).cuda().eval()
    os.makedirs(d, exist_ok=True)
    torch.manual_seed(0)
    torch.set_default_dtype(torch.bfloat16)
    with torch.device("cuda"):
        model = cls(config_for(arch, kw, rope))
    torch.set_default_dtype(torch.float32)
    model.eval()
    model.save_pretrained(d, safe_serialization=True, max_shard_size="100GB")
    json.dump(tokenizer_json(), open(os.path.join(d, "tokenizer.json"), "w"))
    json.dump({"eos_token": "<|im_end|>", "bos_token": None}, open(os.path.join(d, "tokenizer_config.json"), "w"))
    return d, model


def sync_time(fn, reps=3):
    ts = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        ts.append(time.perf_counter() - t)
    ts.sort()
    return ts[len(ts) // 2]


def hf_bench(model, vocab):
    g = torch.Generator(device="cuda").manual_seed(1)
    p1 = torch.randint(0, min(vocab, 30000), (1, PROMPT), device="cuda", generator=g)
    p8 = torch.randint(0, min(vocab, 30000), (BATCH, PROMPT), device="cuda", generator=g)
    pre = torch.randint(0, min(vocab, 30000), (1, PREFILL), device="cuda", generator=g)
    res = {}
    with torch.inference_mode():
        def gen(ids, n):
            return model.generate(ids, attention_mask=torch.ones_like(ids), max_new_tokens=n, min_new_tokens=n, do_sample=False,
                                  pad_token_id=0)
        for key, ids in (("b1", p1), ("b%d" % BATCH, p8)):
            gen(ids, 4)
            t_one = sync_time(lambda: gen(ids, 1))
            t_all = sync_time(lambda: gen(ids, NEW), reps=2)
            res["decode_%s_tok_s" % key] = ids.shape[0] * (NEW - 1) / max(t_all - t_one, 1e-9)
        model(pre)
        res["prefill_tok_s"] = PREFILL / sync_time(lambda: model(pre), reps=5)
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", default=os.environ.get("LLM_MODELS", "/tmp/gk_llm_models"))
    ap.add_argument("--only", default="")
    ap.add_argument("--json")
    ap.add_argument("--bench", default="build/bench_llm")
    args = ap.parse_args()
    names = [n for n in SHAPES if not args.only or n in args.only.split(",")]
    out = {"bench": "llm_vs_hf", "commit": os.environ.get("GK_COMMIT", "unknown"), "device": torch.cuda.get_device_name(),
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
           "torch": torch.__version__, "transformers": transformers.__version__, "models": {}}
    for name in names:
        t = time.time()
        d, model = make_or_load(name, args.models)
        print("%s: folder %s ready in %.0f s" % (name, d, time.time() - t), flush=True)
        hf = hf_bench(model, SHAPES[name][1]["vocab_size"])
        del model
        torch.cuda.empty_cache()
        gj = os.path.join(args.models, name + ".bench.json")
        r = subprocess.run([args.bench, d, "--json", gj, "--prompt", str(PROMPT), "--new", str(NEW), "--prefill", str(PREFILL),
                            "--batch", str(BATCH)], capture_output=True, text=True)
        print(r.stdout.strip())
        if r.returncode != 0:
            print("bench_llm failed (rc %d): %s" % (r.returncode, r.stderr.strip()[-2000:]))
            out["models"][name] = {"hf": hf, "gpukit": None}
            continue
        gk = json.load(open(gj))
        row = {"hf": hf, "gpukit": gk, "target_decode_b1": SHAPES[name][3],
               "ratio_decode_b1": gk["decode_b1_tok_s"] / hf["decode_b1_tok_s"],
               "ratio_prefill": gk["prefill_tok_s"] / hf["prefill_tok_s"],
               "ratio_decode_b%d" % BATCH: gk["decode_batch_tok_s"] / hf["decode_b%d_tok_s" % BATCH]}
        out["models"][name] = row
        print("%-14s decode b1 %7.0f tok/s (HF %6.0f, %.1fx; roofline %.0f; target %d %s) | prefill %d %8.0f tok/s (HF %8.0f, %.2fx) | "
              "b%d %7.0f tok/s (HF %6.0f, %.1fx; %.1fx b1 %s)" % (
                  name, gk["decode_b1_tok_s"], hf["decode_b1_tok_s"], row["ratio_decode_b1"], gk["roofline_b1_tok_s"], SHAPES[name][3],
                  "ok" if gk["decode_b1_tok_s"] >= SHAPES[name][3] else "MISSED", PREFILL, gk["prefill_tok_s"], hf["prefill_tok_s"],
                  row["ratio_prefill"], BATCH, gk["decode_batch_tok_s"], hf["decode_b%d_tok_s" % BATCH], row["ratio_decode_b%d" % BATCH],
                  gk["batch_over_b1"], "ok" if gk["batch_over_b1"] >= 6 else "MISSED"), flush=True)
    if args.json:
        json.dump(out, open(args.json, "w"), indent=1)
    summ = []
    for n, r in out["models"].items():
        if r.get("gpukit"):
            summ.append("%s %.0f tok/s (%.1fx HF)" % (n, r["gpukit"]["decode_b1_tok_s"], r["ratio_decode_b1"]))
    if "llama-2-7b" in out["models"] and out["models"]["llama-2-7b"].get("gpukit"):
        summ.append("7B prefill %.0f tok/s" % out["models"]["llama-2-7b"]["gpukit"]["prefill_tok_s"])
    print("llm bench: " + "; ".join(summ))


if __name__ == "__main__":
    main()
