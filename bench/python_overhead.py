#!/usr/bin/env python3
"""Per-call overhead of gpukit's Python package against CuPy and PyTorch, in
one process on one device:

  add     c = a + b of 1-element float32 arrays (each library allocates c
          from its pool), and the same into an existing output (out=)
  matmul  c = a @ b of 1x1 float32 matrices
  jit     a launch of a trivial user kernel (gpukit.jit; cupy.RawKernel;
          PyTorch has no raw-kernel launch: its jiterator elementwise
          function stands in)

Each figure is host wall time per call: N calls issued back to back, then
one device synchronisation, divided by N (median of 7 such runs, after a
warm-up), so it is the rate a Python loop of small ops sustains. Also:
  large   bf16 4096^3 matmul through Python (CUDA events), to compare with
          build/bench_gemm's number for the C library (the issue asks for
          the C library's speed within 2%)
  interop DLPack and __cuda_array_interface__ between gpukit, PyTorch and
          CuPy: the pointers seen on each side (export and import are
          zero-copy)
A library that is not importable is skipped; the gpukit CPU backend's
figures are added for reference.

    python3 bench/python_overhead.py [--json FILE] [--n 2000]
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--json")
ap.add_argument("--n", type=int, default=2000, help="calls per timing run")
ap.add_argument("--runs", type=int, default=7)
args = ap.parse_args()

import numpy as np  # noqa: E402

import gpukit as gk  # noqa: E402

try:
    import torch
    if not torch.cuda.is_available():
        torch = None
except ImportError:
    torch = None
try:
    import cupy as cp
    cp.cuda.runtime.getDeviceCount()
except Exception:
    cp = None

res = {"what": "per-call host overhead, us per call (median of runs of N back-to-back calls + one sync)",
       "n": args.n, "runs": args.runs, "results": {}}


def timed(lib, name, fn, sync):
    for _ in range(200):
        fn()
    sync()
    per = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        for _ in range(args.n):
            fn()
        sync()
        per.append((time.perf_counter() - t0) / args.n * 1e6)
    us = statistics.median(per)
    res["results"].setdefault(name, {})[lib] = {"us": round(us, 3), "min_us": round(min(per), 3)}
    print("%-10s %-8s %9.2f us/call (min %.2f)" % (name, lib, us, min(per)))


JIT_SRC = r'extern "C" __global__ void touch(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1.0f; }'


def bench_gpukit(ctx, tag):
    with gk.use_context(ctx):
        a, b, c = gk.ones(1), gk.ones(1), gk.zeros(1)
        m1, m2 = gk.ones((1, 1)), gk.ones((1, 1))
        sync = ctx.synchronize
        timed(tag, "add", lambda: a + b, sync)
        timed(tag, "add_out", lambda: gk.ops.add(a, b, out=c), sync)
        timed(tag, "matmul", lambda: m1 @ m2, sync)
        if ctx.backend == "cuda":
            k = gk.jit(JIT_SRC, "touch")
        else:
            k = gk.jit(JIT_SRC, "touch", cpu=lambda g, bl, x, n: None)
        timed(tag, "jit", lambda: k(1, 32, c, 1), sync)


def bench_torch():
    dev = torch.device("cuda")
    a, b, c = (torch.ones(1, device=dev) for _ in range(3))
    m1, m2 = torch.ones(1, 1, device=dev), torch.ones(1, 1, device=dev)
    sync = torch.cuda.synchronize
    timed("torch", "add", lambda: a + b, sync)
    timed("torch", "add_out", lambda: torch.add(a, b, out=c), sync)
    timed("torch", "matmul", lambda: m1 @ m2, sync)
    try:
        from torch.cuda import jiterator
        fn = jiterator._create_jit_fn("template <typename T> T touch(T x) { return x + T(1); }")
        timed("torch", "jit", lambda: fn(c), sync)
        res["results"]["jit"]["torch"]["note"] = "torch.cuda.jiterator elementwise function (no raw kernel launch in torch)"
    except Exception as e:  # pragma: no cover - depends on the torch build
        print("torch jiterator: %s" % e)


def bench_cupy():
    a, b, c = cp.ones(1, cp.float32), cp.ones(1, cp.float32), cp.zeros(1, cp.float32)
    m1, m2 = cp.ones((1, 1), cp.float32), cp.ones((1, 1), cp.float32)
    sync = cp.cuda.Device().synchronize
    timed("cupy", "add", lambda: a + b, sync)
    timed("cupy", "add_out", lambda: cp.add(a, b, out=c), sync)
    timed("cupy", "matmul", lambda: m1 @ m2, sync)
    k = cp.RawKernel(JIT_SRC, "touch")
    n = np.int32(1)
    timed("cupy", "jit", lambda: k((1,), (32,), (c, n)), sync)


def large(ctx):
    with gk.use_context(ctx):
        a = gk.asarray(np.random.default_rng(0).standard_normal((4096, 4096)).astype(np.float32), dtype="bf16")
        out = gk.empty((4096, 4096), "bf16")
        for _ in range(3):
            gk.ops.matmul(a, a, out=out)
        ts = []
        for _ in range(10):
            e0, e1 = gk.Event(), gk.Event()
            e0.record()
            for _ in range(5):
                gk.ops.matmul(a, a, out=out)
            e1.record()
            e1.synchronize()
            ts.append(e0.elapsed_ms(e1) / 5)
        ms = statistics.median(ts)
        res["large"] = {"gpukit_bf16_4096_matmul_ms": round(ms, 4), "tflops": round(2 * 4096 ** 3 / ms / 1e9, 1),
                        "compare": "build/bench_gemm bf16 4096^3 in the same device session"}
        print("large     gpukit   bf16 4096^3 matmul %.3f ms (%.0f TFLOP/s)" % (ms, res["large"]["tflops"]))
        if torch is not None:
            t = torch.randn(4096, 4096, device="cuda").to(torch.bfloat16)
            for _ in range(3):
                t @ t
            torch.cuda.synchronize()
            tts = []
            for _ in range(10):
                e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                e0.record()
                for _ in range(5):
                    t @ t
                e1.record()
                e1.synchronize()
                tts.append(e0.elapsed_time(e1) / 5)
            res["large"]["torch_bf16_4096_matmul_ms"] = round(statistics.median(tts), 4)
            print("large     torch    bf16 4096^3 matmul %.3f ms" % statistics.median(tts))


def interop(ctx):
    out = {}
    with gk.use_context(ctx):
        x = np.arange(12, dtype=np.float32).reshape(3, 4)
        g = gk.asarray(x)
        if torch is not None:
            t = torch.from_dlpack(g)
            t2 = torch.as_tensor(g, device="cuda")  # __cuda_array_interface__
            t.add_(1)
            torch.cuda.synchronize()
            src = torch.arange(5, device="cuda", dtype=torch.float32)
            back = gk.from_dlpack(src)
            out["torch"] = {"dlpack_zero_copy": t.data_ptr() == g.ptr, "cai_zero_copy": t2.data_ptr() == g.ptr,
                            "write_visible": bool((g.to_numpy() == x + 1).all()),
                            "import_values": back.to_numpy().tolist() == [0, 1, 2, 3, 4],
                            "import_zero_copy": back.ptr == src.data_ptr()}
        if cp is not None:
            c = cp.asarray(g)
            d = cp.from_dlpack(g)
            src = cp.arange(5, dtype=cp.float32)
            back = gk.asarray(src)
            out["cupy"] = {"cai_zero_copy": c.data.ptr == g.ptr, "dlpack_zero_copy": d.data.ptr == g.ptr,
                           "import_values": back.to_numpy().tolist() == [0, 1, 2, 3, 4],
                           "import_zero_copy": back.ptr == src.data.ptr}
    res["interop"] = out
    for k, v in out.items():
        print("interop   %-8s %s" % (k, " ".join("%s=%s" % kv for kv in v.items())))


gpu = gk.Context(backend="auto")
info = gpu.device_info()
res["device"] = info.name
res["backend"] = gpu.backend
res["python"] = platform.python_version()
res["versions"] = {"gpukit": gk.__version__, "numpy": np.__version__,
                   "torch": torch.__version__ if torch is not None else None,
                   "cupy": cp.__version__ if cp is not None else None}
try:
    res["commit"] = os.environ.get("GK_COMMIT") or subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                                                                   capture_output=True, text=True).stdout.strip()
except Exception:
    res["commit"] = "unknown"
res["date"] = datetime.datetime.utcnow().strftime("%Y-%m-%dT%H:%M:%SZ")
print("device: %s (%s), Python %s" % (info.name, gpu.backend, res["python"]))

if gpu.backend == "cuda":
    bench_gpukit(gpu, "gpukit")
    if cp is not None:
        bench_cupy()
    if torch is not None:
        bench_torch()
    large(gpu)
    interop(gpu)
cpu = gk.Context(backend="cpu")
bench_gpukit(cpu, "gpukit-cpu")

# the verdict the issue asks for: gpukit at or below both peers
verdict = {}
for op, libs in res["results"].items():
    if "gpukit" in libs:
        peers = {k: v["us"] for k, v in libs.items() if k in ("torch", "cupy")}
        if peers:
            verdict[op] = {"gpukit_us": libs["gpukit"]["us"], "peers_us": peers,
                           "at_or_below_all": all(libs["gpukit"]["us"] <= v for v in peers.values())}
res["verdict"] = verdict
if verdict:
    print("python_overhead: " + "; ".join("%s gpukit %.2f us vs %s%s" % (
        op, v["gpukit_us"], ", ".join("%s %.2f" % kv for kv in v["peers_us"].items()),
        "" if v["at_or_below_all"] else " (slower)") for op, v in verdict.items()))
if args.json:
    with open(args.json, "w") as f:
        json.dump(res, f, indent=1)
    print("wrote %s" % args.json)
sys.exit(0)
