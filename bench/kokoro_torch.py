#!/usr/bin/env python3
"""The PyTorch reference side of bench_kokoro: hexgrad/kokoro's KModel.forward_with_tokens
on the GPU, timed the way build/bench_kokoro times gpukit, for the issue's figures.

    python3 bench/kokoro_torch.py --ref /path/to/refs/kokoro --config CONFIG.json --json OUT.json

--ref: a folder holding hexgrad/kokoro's package folder `kokoro/` (or that folder);
--config: the published config.json. Nothing is downloaded (loguru, misaki and
huggingface_hub are stubbed as tests/gen_kokoro_fixtures.py does).

The model: the published architecture with PyTorch's default initialisation (the
five submodules built fresh, saved as a .pth and loaded by KModel itself), except
the duration head, whose weights are zero and whose bias is logit(3.2 / 50) so every
token gets 3 frames as in bench_kokoro (about 3 frames a phoneme: real speech; random
weights give some 25). Cases as bench_kokoro's: a 400-phoneme paragraph and a
50-phoneme sentence (ids 1..177, the pads added), one voice row of values in
+-0.4. Each case: a warm-up call, then the median of --runs calls, each ended by
torch.cuda.synchronize() and the audio copied to the host (bench_kokoro's calls
return host samples too). Two precisions: PyTorch's defaults (cuDNN convolutions
may use TF32: torch.backends.cudnn.allow_tf32, True by default; matmuls f32), and
strict f32 (TF32 off everywhere).
"""
import argparse
import datetime
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

import torch


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ref", required=True)
    ap.add_argument("--config", required=True)
    ap.add_argument("--json", default=None)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "tests"))
    import gen_kokoro_fixtures as G  # the reference importer (stubs, no downloads)

    with open(a.config, encoding="utf-8") as f:
        cfg = json.load(f)
    kmodel_mod, modules_mod, istft_mod = G.import_reference(a.ref)
    torch.manual_seed(0)
    mods = G.reference_modules(cfg, modules_mod, istft_mod)
    with torch.no_grad():
        dp = mods["predictor"].duration_proj.linear_layer
        dp.weight.zero_()
        dp.bias.fill_(math.log(3.2 / 46.8))  # max_dur * sigmoid(b) = 3.2
    tmp = tempfile.mkdtemp(prefix="kokoro_bench_")
    pth = os.path.join(tmp, "kokoro-v1_0.pth")
    torch.save({k: v.state_dict() for k, v in mods.items()}, pth)
    km = kmodel_mod.KModel(repo_id="hexgrad/Kokoro-82M", config=dict(cfg), model=pth, disable_complex=False)
    os.remove(pth)
    os.rmdir(tmp)
    km = km.to("cuda").eval()
    dev = torch.device("cuda")
    g = torch.Generator().manual_seed(1)
    ref_s = ((torch.rand(1, 256, generator=g) * 2 - 1) * 0.4).to(dev)
    ids_all = torch.randint(1, 178, (400,), generator=g)

    def call(n):
        ids = torch.cat([torch.zeros(1, dtype=torch.long), ids_all[:n], torch.zeros(1, dtype=torch.long)]).unsqueeze(0).to(dev)
        with torch.no_grad():
            audio, dur = km.forward_with_tokens(ids, ref_s, 1.0)
        out = audio.float().cpu()
        return out, int(dur.sum())

    defaults = dict(cudnn_tf32=torch.backends.cudnn.allow_tf32, matmul_tf32=torch.backends.cuda.matmul.allow_tf32)
    res = {}
    for prec in ("default", "f32"):
        torch.backends.cudnn.allow_tf32 = defaults["cudnn_tf32"] if prec == "default" else False
        torch.backends.cuda.matmul.allow_tf32 = defaults["matmul_tf32"] if prec == "default" else False
        for name, n in (("paragraph_400", 400), ("sentence_50", 50)):
            audio, frames = call(n)  # warm-up (cuDNN picks its algorithms)
            times = []
            for _ in range(a.runs):
                torch.cuda.synchronize()
                t = time.perf_counter()
                audio, frames = call(n)
                times.append((time.perf_counter() - t) * 1000.0)
            ms = statistics.median(times)
            secs = audio.numel() / 24000.0
            res[f"{name}_{prec}"] = dict(phonemes=n, frames=frames, audio_s=round(secs, 3), ms=round(ms, 3),
                                         x_real_time=round(secs * 1000.0 / ms, 1))
            print(f"torch {prec:7s} {name:14s} {n:3d} phonemes, {frames:4d} frames, {secs:6.2f} s: {ms:8.2f} ms, "
                  f"{secs * 1000.0 / ms:7.1f}x real time", flush=True)
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=here).stdout.strip()
    except OSError:
        commit = ""
    out = dict(bench="kokoro_torch", commit=os.environ.get("GK_COMMIT", commit or "unknown"), device=torch.cuda.get_device_name(0),
               date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), torch=torch.__version__,
               torch_defaults=defaults, cases=res)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(out, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
