#!/usr/bin/env python3
"""HF transformers' Whisper on CUDA (fp16, SDPA attention), next to
build/bench_whisper on the same model folders (issue 25's speed figures).

    python3 bench/whisper_hf.py --model large-v3=DIR [--model turbo=DIR ...] --json out.json
                                [--runs 5] [--enc-runs 20] [--tokens 100] [--windows 16]
                                [--no-static] [--no-static-batch] [--no-features]

Per folder (tools/make_whisper_random.py makes them):
    encoder_ms        model.model.encoder on one 30 s window of log-mel features already on the GPU
                      (CUDA events; median of --enc-runs after 5 warm-up calls)
    e2e_eager_ms      one window + --tokens generated tokens: model.generate(input_features,
                      language="en", task="transcribe", min_new_tokens = max_new_tokens = --tokens,
                      greedy), the default dynamic cache; wall time with torch.cuda.synchronize at
                      both ends, median of --runs after 2 warm-up calls
    e2e_static_ms     the same with cache_implementation="static". transformers versions whose
                      generate compiles the forward pass itself for a static cache (the ones with
                      generation's CompileConfig) do so; in older ones model.forward is wrapped here
                      in torch.compile(mode="reduce-overhead", fullgraph=True), the recipe of HF's
                      Whisper documentation. "static_compile" in the JSON says which; the first
                      (compiling) call's time is "static_first_call_s"
    batch_eager_ms / batch_static_ms, *_rtfx
                      --windows windows (16) in one generate call; x real time = windows * 30 s /
                      wall time
    features_ms       WhisperFeatureExtractor of one 30 s window (numpy, the default), and
                      features_cuda_ms with device="cuda" where the extractor takes it (for
                      reference: the timed runs above start from features on the GPU)
The JSON (rewritten after every figure, so a run cut short keeps what it
measured) has the device name, torch / transformers versions, the date, and
per model the figures, the generated token counts and any error met."""
import argparse
import datetime
import json
import os
import statistics
import sys
import time
import traceback

import numpy as np
import torch
import transformers
from transformers import WhisperFeatureExtractor, WhisperForConditionalGeneration

RATE = 16000


def audio(seconds=30.0, seed=1):
    """A chirp with a harmonic and a little noise (the weights are random: only the shape of the input matters)."""
    t = np.arange(int(seconds * RATE)) / RATE
    f = 150 + 20 * t
    g = np.random.default_rng(seed)
    return (0.3 * np.sin(2 * np.pi * f * t) + 0.1 * np.sin(6 * np.pi * f * t) + 0.02 * g.standard_normal(t.size)).astype(np.float32)


def load(folder):
    kw = dict(attn_implementation="sdpa")
    try:
        m = WhisperForConditionalGeneration.from_pretrained(folder, dtype=torch.float16, **kw)
    except TypeError:
        m = WhisperForConditionalGeneration.from_pretrained(folder, torch_dtype=torch.float16, **kw)
    return m.to("cuda").eval()


def wall_ms(fn, runs, warmup):
    first = None
    for i in range(warmup):
        torch.cuda.synchronize()
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        if i == 0:
            first = time.perf_counter() - t
    ts = []
    for _ in range(runs):
        torch.cuda.synchronize()
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts), first


def event_ms(fn, runs, warmup):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(runs):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b))
    return statistics.median(ts)


def has_auto_compile():
    try:
        from transformers.generation.configuration_utils import CompileConfig  # noqa: F401
        return True
    except ImportError:
        return False


def bench_model(name, folder, a, res, save):
    r = res.setdefault(name, {"folder": folder, "errors": {}})
    model = load(folder)
    cfg = model.config
    gc = model.generation_config
    r["config"] = dict(d_model=cfg.d_model, encoder_layers=cfg.encoder_layers, decoder_layers=cfg.decoder_layers,
                       heads=cfg.encoder_attention_heads, n_mels=cfg.num_mel_bins, vocab=cfg.vocab_size)
    r["params"] = sum(p.numel() for p in model.parameters())
    fe = WhisperFeatureExtractor(feature_size=cfg.num_mel_bins)
    x1 = audio()
    feats = fe(x1, sampling_rate=RATE, return_tensors="pt").input_features
    mel1 = feats.to("cuda", torch.float16)
    melb = torch.cat([fe(audio(seed=k + 1), sampling_rate=RATE, return_tensors="pt").input_features for k in range(a.windows)]).to("cuda", torch.float16)
    sot = gc.decoder_start_token_id
    gen_kw = dict(language="en", task="transcribe", min_new_tokens=a.tokens, max_new_tokens=a.tokens, do_sample=False, num_beams=1,
                  return_timestamps=False)

    def new_tokens(out):
        seq = out if torch.is_tensor(out) else out.sequences
        n = seq.shape[-1]
        prompt = 4 if int(seq[0, 0]) == sot else 0  # <|startoftranscript|> <|en|> <|transcribe|> <|notimestamps|>
        return int(n - prompt), int(n)

    if not a.no_features:
        try:
            r["features_ms"] = wall_ms(lambda: fe(x1, sampling_rate=RATE, return_tensors="pt"), 5, 1)[0]
            save()
            r["features_cuda_ms"] = wall_ms(lambda: fe(x1, sampling_rate=RATE, return_tensors="pt", device="cuda"), 5, 2)[0]
        except Exception as e:  # noqa: BLE001 - older extractors take no device
            r["errors"]["features"] = "%s: %s" % (type(e).__name__, e)
        save()

    with torch.inference_mode():
        enc = model.model.encoder
        r["encoder_ms"] = event_ms(lambda: enc(mel1), a.enc_runs, 5)
        print("%s: encoder %.2f ms" % (name, r["encoder_ms"]), flush=True)
        save()

        def run_generate(mel, key, runs, warmup, **extra):
            out = {}
            med, first = wall_ms(lambda: out.__setitem__("o", model.generate(input_features=mel, **gen_kw, **extra)), runs, warmup)
            n_new, n_all = new_tokens(out["o"])
            r[key + "_ms"] = med
            r[key + "_first_call_s"] = first
            r[key + "_new_tokens"] = n_new
            r[key + "_seq_len"] = n_all
            if n_new != a.tokens:
                r["errors"][key] = "generated %d tokens, not %d" % (n_new, a.tokens)
            return med

        try:
            run_generate(mel1, "e2e_eager", a.runs, 2)
            print("%s: 30 s + %d tokens, eager %.1f ms" % (name, a.tokens, r["e2e_eager_ms"]), flush=True)
        except Exception as e:  # noqa: BLE001
            r["errors"]["e2e_eager"] = "%s: %s" % (type(e).__name__, e)
            traceback.print_exc()
        save()
        try:
            run_generate(melb, "batch_eager", max(1, a.runs // 2), 1)
            r["batch_eager_rtfx"] = a.windows * 30.0 / (r["batch_eager_ms"] / 1e3)
            print("%s: %d windows, eager %.1f ms, %.0fx real time" % (name, a.windows, r["batch_eager_ms"], r["batch_eager_rtfx"]), flush=True)
        except Exception as e:  # noqa: BLE001
            r["errors"]["batch_eager"] = "%s: %s" % (type(e).__name__, e)
            traceback.print_exc()
        save()

        if not a.no_static:
            auto = has_auto_compile()
            r["static_compile"] = "generate's own (CompileConfig)" if auto else "torch.compile(model.forward, mode='reduce-overhead', fullgraph=True)"
            if not auto:
                model.forward = torch.compile(model.forward, mode="reduce-overhead", fullgraph=True)
            try:
                run_generate(mel1, "e2e_static", a.runs, 3, cache_implementation="static")
                r["static_first_call_s"] = r.get("e2e_static_first_call_s")
                r["static_compiled"] = bool(getattr(model, "_compiled_call", None) is not None) if auto else True
                print("%s: 30 s + %d tokens, static cache %.1f ms (first call %.0f s, compiled: %s)" % (
                    name, a.tokens, r["e2e_static_ms"], r["static_first_call_s"] or 0, r["static_compiled"]), flush=True)
            except Exception as e:  # noqa: BLE001
                r["errors"]["e2e_static"] = "%s: %s" % (type(e).__name__, e)
                traceback.print_exc()
            save()
            if not a.no_static_batch:
                try:
                    run_generate(melb, "batch_static", max(1, a.runs // 2), 2, cache_implementation="static")
                    r["batch_static_rtfx"] = a.windows * 30.0 / (r["batch_static_ms"] / 1e3)
                    print("%s: %d windows, static cache %.1f ms, %.0fx real time" % (name, a.windows, r["batch_static_ms"], r["batch_static_rtfx"]),
                          flush=True)
                except Exception as e:  # noqa: BLE001
                    r["errors"]["batch_static"] = "%s: %s" % (type(e).__name__, e)
                    traceback.print_exc()
                save()
    del model
    torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", action="append", required=True, help="NAME=DIR (repeatable)")
    ap.add_argument("--json", required=True)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--enc-runs", type=int, default=20)
    ap.add_argument("--tokens", type=int, default=100)
    ap.add_argument("--windows", type=int, default=16)
    ap.add_argument("--no-static", action="store_true")
    ap.add_argument("--no-static-batch", action="store_true")
    ap.add_argument("--no-features", action="store_true")
    a = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = True
    out = {"bench": "whisper_hf", "commit": os.environ.get("GK_COMMIT", "unknown"), "device": torch.cuda.get_device_name(),
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "torch": torch.__version__,
           "transformers": transformers.__version__, "dtype": "float16", "attn": "sdpa", "tokens": a.tokens, "windows": a.windows,
           "runs": a.runs, "models": {}}

    def save():
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1, default=str)

    print("HF transformers %s, torch %s on %s" % (transformers.__version__, torch.__version__, out["device"]), flush=True)
    for spec in a.model:
        name, _, folder = spec.partition("=")
        if not folder:
            print("--model wants NAME=DIR, got %r" % spec)
            return 2
        try:
            bench_model(name, folder, a, out["models"], save)
        except Exception as e:  # noqa: BLE001 - the next model still runs
            out["models"].setdefault(name, {"errors": {}})["errors"]["load"] = "%s: %s" % (type(e).__name__, e)
            traceback.print_exc()
        save()
    save()
    return 0


if __name__ == "__main__":
    sys.exit(main())
