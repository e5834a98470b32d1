#!/usr/bin/env python3
"""PyTorch side of bench/bench_nn.c: the same ops, shapes and byte counts,
GB/s from CUDA events (median of 30 timings of 10 calls).

    python3 bench/nn_torch.py --json out.json

RMS norm is timed two ways: torch.nn.functional.rms_norm (PyTorch's own
kernel) and HF LlamaRMSNorm's eager formula; the peer ratio uses the faster.
RoPE is HF's rotate_half formula (q * cos + rotate_half(q) * sin)."""
import argparse
import datetime
import json
import os

import torch
import torch.nn.functional as F

ap = argparse.ArgumentParser()
ap.add_argument("--json")
args = ap.parse_args()
dev = torch.device("cuda")
torch.backends.cuda.matmul.allow_tf32 = False


def timeit(fn, inner=10, reps=30):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(inner):
            fn()
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) / inner)
    ts.sort()
    return 0.5 * (ts[reps // 2 - 1] + ts[reps // 2])


res = {}


def rec(name, nbytes, fn):
    ms = timeit(fn)
    res[name] = {"ms": ms, "gbs": nbytes / (ms * 1e-3) / 1e9}
    print("%-40s %9.4f ms %8.0f GB/s" % (name, ms, res[name]["gbs"]), flush=True)


n = 64 << 20
a = torch.ones(n, device=dev)
b = torch.empty_like(a)
rec("copy_f32_256MiB", 2.0 * 256 * 1048576, lambda: b.copy_(a))
del a, b

M = 8192 * 4096


def hf_rms(x, w, eps=1e-6):
    h = x.to(torch.float32)
    v = h.pow(2).mean(-1, keepdim=True)
    h = h * torch.rsqrt(v + eps)
    return w * h.to(x.dtype)


for dt, es, nm in ((torch.bfloat16, 2, "bf16"), (torch.float32, 4, "f32")):
    x = torch.randn(8192, 4096, device=dev, dtype=dt)
    r = torch.randn_like(x)
    w = torch.ones(4096, device=dev, dtype=dt)
    bb = torch.zeros(4096, device=dev, dtype=dt)
    if hasattr(F, "rms_norm"):
        rec("rmsnorm_%s_8192x4096" % nm, 2 * M * es, lambda: F.rms_norm(x, (4096,), w, 1e-6))
    rec("rmsnorm_%s_8192x4096_hf_eager" % nm, 2 * M * es, lambda: hf_rms(x, w))
    rec("layernorm_%s_8192x4096" % nm, 2 * M * es, lambda: F.layer_norm(x, (4096,), w, bb, 1e-5))

    def addrms():
        h = x + r
        return h, (F.rms_norm(h, (4096,), w, 1e-6) if hasattr(F, "rms_norm") else hf_rms(h, w))

    rec("add_rmsnorm_%s_8192x4096" % nm, 4 * M * es, addrms)
    del x, r

for dt, es, nm in ((torch.bfloat16, 2, "bf16"),):
    x = torch.randn(4096, 4096, device=dev, dtype=dt)
    w = torch.ones(4096, device=dev, dtype=dt)
    bb = torch.zeros(4096, device=dev, dtype=dt)
    K2 = 4096 * 4096
    if hasattr(F, "rms_norm"):
        rec("rmsnorm_%s_4096x4096" % nm, 2 * K2 * es, lambda: F.rms_norm(x, (4096,), w, 1e-6))
    rec("rmsnorm_%s_4096x4096_hf_eager" % nm, 2 * K2 * es, lambda: hf_rms(x, w))
    rec("layernorm_%s_4096x4096" % nm, 2 * K2 * es, lambda: F.layer_norm(x, (4096,), w, bb, 1e-5))
    del x

# the other layer norm shapes bench_nn times once per kernel variant ("layernorm_variants")
for dt, es, nm, R, C in ((torch.float16, 2, "f16", 4096, 4096), (torch.bfloat16, 2, "bf16", 512, 4096),
                         (torch.bfloat16, 2, "bf16", 4096, 1024), (torch.float32, 4, "f32", 8192, 2048)):
    x = torch.randn(R, C, device=dev, dtype=dt)
    w = torch.ones(C, device=dev, dtype=dt)
    bb = torch.zeros(C, device=dev, dtype=dt)
    rec("layernorm_%s_%dx%d" % (nm, R, C), 2 * R * C * es, lambda: F.layer_norm(x, (C,), w, bb, 1e-5))
    del x

for dt, es, nm in ((torch.bfloat16, 2, "bf16"), (torch.float32, 4, "f32")):
    x = torch.randn(8192, 4096, device=dev, dtype=dt)
    y = torch.randn(4096, device=dev, dtype=dt)
    o = torch.empty_like(x)
    rec("add_bcast_%s_8192x4096+4096" % nm, 2 * M * es + 4096 * es, lambda: torch.add(x, y, out=o))
    del x, o
    x = torch.randn(16, 1024, 1024, device=dev, dtype=dt)
    y = torch.randn(16, 1, 1024, device=dev, dtype=dt)
    o = torch.empty_like(x)
    rec("add_bcast_%s_16x1024x1024+16x1x1024" % nm, 2 * 16 * 1024 * 1024 * es + 16 * 1024 * es, lambda: torch.add(x, y, out=o))
    del x, o

Rn = 4096 * 32 * 128
xh = torch.randn(4096 * 32, 128, device=dev, dtype=torch.bfloat16)
wh = torch.ones(128, device=dev, dtype=torch.bfloat16)
if hasattr(F, "rms_norm"):
    rec("rmsnorm_bf16_heads_131072x128", 2 * Rn * 2, lambda: F.rms_norm(xh, (128,), wh, 1e-6))
rec("rmsnorm_bf16_heads_131072x128_hf_eager", 2 * Rn * 2, lambda: hf_rms(xh, wh))
del xh
q = torch.randn(1, 32, 4096, 128, device=dev, dtype=torch.bfloat16)
inv = 1.0 / (10000.0 ** (torch.arange(0, 128, 2, device=dev).float() / 128))
fr = torch.arange(4096, device=dev).float()[:, None] * inv[None, :]
emb = torch.cat((fr, fr), -1)
cos, sin = emb.cos()[None, None].to(torch.bfloat16), emb.sin()[None, None].to(torch.bfloat16)


def rot_half(t):
    t1, t2 = t[..., :64], t[..., 64:]
    return torch.cat((-t2, t1), -1)


rec("rope_bf16_4096x32x128", 2 * Rn * 2, lambda: q * cos + rot_half(q) * sin)
del q

P = 16 * 2048 * 32 * 128
x = torch.ones(16, 2048, 32, 128, device=dev, dtype=torch.bfloat16)
rec("permute_bf16_BSHD_to_BHSD_256MiB", 2 * P * 2, lambda: x.permute(0, 2, 1, 3).contiguous())
del x
T = 16 * 2048 * 2048
x = torch.ones(16, 2048, 2048, device=dev)
rec("transpose_f32_16x2048x2048", 2 * T * 4, lambda: x.transpose(1, 2).contiguous())
del x
E = 8192 * 896
tab = torch.ones(151936, 896, device=dev, dtype=torch.bfloat16)
ids = ((torch.arange(8192, device=dev, dtype=torch.int64) * 2654435761) % 151936).to(torch.int32)
rec("embedding_bf16_151936x896_8192ids", 2 * E * 2, lambda: F.embedding(ids, tab))

if args.json:
    with open(args.json, "w") as f:
        json.dump({"bench": "nn_torch", "commit": os.environ.get("GK_COMMIT", "unknown"), "device": torch.cuda.get_device_name(0),
                   "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                   "torch": torch.__version__, "ops": res}, f, indent=2)
