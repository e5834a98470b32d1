#!/usr/bin/env python3
"""PyTorch's side of bench_math: the same ops and shapes, CUDA-event timed
(median of 25 timings of 10 back-to-back calls, after 3 warm-ups, as
bench_math.c), GB/s of bytes read + written.
    python3 bench/math_torch.py [--json FILE]"""
import argparse, datetime, json, os, statistics
import torch
import torch.nn.functional as F

ap = argparse.ArgumentParser()
ap.add_argument("--json")
args = ap.parse_args()
dev = torch.device("cuda")
res = {}


INNER = 10  # back-to-back calls between the two events, as bench_math.c


def timed(name, nbytes, fn):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(25):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        for _ in range(INNER):
            fn()
        e1.record()
        e1.synchronize()
        ts.append(e0.elapsed_time(e1) / INNER)
    us = statistics.median(ts) * 1000.0
    gbs = nbytes / (us * 1e-6) / 1e9 if nbytes else 0.0
    res[name] = {"us": round(us, 3), "gbs": round(gbs, 1)}
    print(f"{name:36s} {us:10.1f} us {gbs:9.1f} GB/s")


def rnd(shape, dtype, scale):
    return (torch.randn(shape, device=dev) * (scale / 2)).to(dtype)


B = 256 << 20
n, nh = 64 << 20, 128 << 20
a, b, c = rnd(n, torch.float32, 3), rnd(n, torch.float32, 3), torch.empty(n, device=dev)
ha, hb, hc = rnd(nh, torch.bfloat16, 3), rnd(nh, torch.bfloat16, 3), torch.empty(nh, device=dev, dtype=torch.bfloat16)
timed("copy_d2d_256MiB", 2 * B, lambda: c.copy_(a))
timed("silu_f32_256MiB", 2 * B, lambda: torch.ops.aten.silu.out(a, out=c))
timed("gelu_bf16_256MiB", 2 * B, lambda: torch.ops.aten.gelu.out(ha, out=hc))
timed("gelu_tanh_bf16_256MiB", 2 * B, lambda: torch.ops.aten.gelu.out(ha, approximate="tanh", out=hc))
hv, ov = ha[: 64 << 20], hc[: 64 << 20]
timed("gelu_bf16_64M", B, lambda: torch.ops.aten.gelu.out(hv, out=ov))
timed("swiglu_bf16_256MiB", 3 * B, lambda: torch.mul(F.silu(ha), hb, out=hc))  # eager: two kernels
timed("maximum_f32_256MiB", 3 * B, lambda: torch.maximum(a, b, out=c))
x3, al = ha.view(16, 512, 16384), torch.full((1, 512, 1), 0.75, device=dev, dtype=torch.bfloat16)
timed("snake_bf16_16x512x16384", 2 * B, lambda: x3 + (1.0 / (al + 1e-9)) * torch.sin(al * x3).pow(2))  # eager, as vocoders write it
m2, o2, r1 = a.view(8192, 8192), c.view(8192, 8192), b[:8192]
timed("add_bcast_f32_8192x8192+8192", 2 * B, lambda: torch.add(m2, r1, out=o2))
s = torch.empty((), device=dev)
timed("sum_all_f32_256MiB", B, lambda: torch.sum(a, dim=0, out=s))
del a, b, c, ha, hb, hc, m2, o2, r1
torch.cuda.empty_cache()

b1, b2 = 4096 * 32000 * 4, 32 * 151936 * 2
x, y = rnd((4096, 32000), torch.float32, 8), torch.empty((4096, 32000), device=dev)
xh, yh = rnd((32, 151936), torch.bfloat16, 8), torch.empty((32, 151936), device=dev, dtype=torch.bfloat16)
r = torch.empty(4096, device=dev)
timed("softmax_f32_4096x32000", 2 * b1, lambda: torch.ops.aten._softmax.out(x, -1, False, out=y))
timed("log_softmax_f32_4096x32000", 2 * b1, lambda: torch.ops.aten._log_softmax.out(x, -1, False, out=y))
timed("softmax_bf16_32x151936", 2 * b2, lambda: torch.softmax(xh, -1))
timed("sum_lastdim_f32_4096x32000", b1, lambda: torch.sum(x, -1, out=r))
timed("max_lastdim_f32_4096x32000", b1, lambda: torch.amax(x, -1, out=r))
del x, y, xh, yh, r
torch.cuda.empty_cache()

x = rnd((64, 151936), torch.float32, 8)
l8 = rnd((8, 151936), torch.bfloat16, 8)
prev = torch.full((8, 64), 7, device=dev, dtype=torch.long)
timed("topk50_f32_64x151936", 64 * 151936 * 4, lambda: torch.topk(x, 50, -1))
timed("sample_greedy_bf16_8x151936", 8 * 151936 * 2, lambda: torch.argmax(l8, -1))
x1, l1 = x[:1].clone(), l8[:1].clone()
timed("topk50_f32_1x151936", 151936 * 4, lambda: torch.topk(x1, 50, -1))
timed("sample_greedy_bf16_1x151936", 151936 * 2, lambda: torch.argmax(l1, -1))
gen = torch.Generator(device=dev)
gen.manual_seed(1234)


def sample_temp(lg=l8):
    p = torch.softmax(lg.float() / 0.8, -1)
    return torch.multinomial(p, 1, generator=gen)


def sample_hf(lg=l8, pv=prev):  # HF-style: repetition penalty, temperature, top-k, top-p, multinomial
    lg = lg.float()
    sc = torch.gather(lg, 1, pv)
    sc = torch.where(sc < 0, sc * 1.1, sc / 1.1)
    lg = lg.scatter(1, pv, sc) / 0.8
    v, i = torch.topk(lg, 50, -1)
    p = torch.softmax(v, -1)
    cp = torch.cumsum(p, -1)
    p = torch.where(cp - p >= 0.9, torch.zeros_like(p), p)
    t = torch.multinomial(p, 1, generator=gen)
    return torch.gather(i, 1, t)


timed("sample_temp_bf16_8x151936", 8 * 151936 * 2, sample_temp)
timed("sample_topk50_topp_bf16_8x151936", 8 * 151936 * 2, sample_hf)
prev1 = prev[:1].clone()
timed("sample_temp_bf16_1x151936", 151936 * 2, lambda: sample_temp(l1))
timed("sample_topk50_topp_bf16_1x151936", 151936 * 2, lambda: sample_hf(l1, prev1))

if args.json:
    with open(args.json, "w") as f:
        json.dump({"bench": "math", "side": "torch", "torch": torch.__version__, "commit": os.environ.get("GK_COMMIT", "unknown"),
                   "device": torch.cuda.get_device_name(), "date": datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ"),
                   "results": res}, f, indent=2)
