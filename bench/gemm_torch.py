"""PyTorch (cuBLAS) side of bench_gemm, same shapes, run in the same device call.
Prints one line per case and writes JSON to argv[1]. With argv[2], bench_gemm's
JSON of the same run, it also prints gpukit's GEMM figures as ratios to PyTorch's.
GK_GEMM_ONLY=1 in the environment: the GEMM shapes only; GK_GEMM_DTYPES=tf32,bf16
(a comma list) times only those GEMM dtypes; GK_ATTN_ONLY=1: the causal
attention rows only (with argv[2], also as ratios to SDPA). Ratios are also printed against
bench_gemm's cuBLASLt row of the same dtype and size."""
import json, os, sys, datetime
import torch

def bench(fn, reps=20):
    for _ in range(3):
        fn()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); b.synchronize()
        ts.append(a.elapsed_time(b))
    ts.sort()
    return ts[len(ts) // 2]

res = []
torch.backends.cuda.matmul.allow_tf32 = False
for s in (4096, 8192) if os.environ.get("GK_ATTN_ONLY") != "1" else ():
    for name, dt, tf32 in (("bf16", torch.bfloat16, False), ("f16", torch.float16, False), ("tf32", torch.float32, True), ("f32", torch.float32, False)):
        if os.environ.get("GK_GEMM_DTYPES") and name not in os.environ["GK_GEMM_DTYPES"].split(","):
            continue
        torch.backends.cuda.matmul.allow_tf32 = tf32
        a = torch.randn(s, s, device="cuda", dtype=dt); b = torch.randn(s, s, device="cuda", dtype=dt)
        # exact f32 also as NT (a @ b^T) and TN (a^T @ b), as bench_gemm's f32 rows
        for lay in ("nn", "nt", "tn") if name == "f32" else ("nn",):
            x = a.t() if lay == "tn" else a
            y = b.t() if lay == "nt" else b
            ms = bench(lambda: torch.matmul(x, y))
            tf = 2 * s ** 3 / (ms * 1e-3) / 1e12
            print("torch gemm %-5s %5d^3 %s %8.3f ms %7.1f TFLOP/s" % (name, s, lay, ms, tf))
            res.append({"op": "gemm", "dtype": name, "layout": lay, "size": s, "backend": "torch", "ms": ms, "tflops": tf})
torch.backends.cuda.matmul.allow_tf32 = False
if len(sys.argv) > 2 and os.path.exists(sys.argv[2]) and os.path.getsize(sys.argv[2]) > 0:
    gk = json.load(open(sys.argv[2]))["results"]
    for r in [x for x in res if x["op"] == "gemm"]:
        for g in gk:
            if g.get("op") == "gemm" and g["dtype"] == r["dtype"] and g["size"] == r["size"] and g["backend"] != "cublaslt" and \
                    g.get("layout", "nn") == r["layout"]:
                ratio = g["tflops"] / r["tflops"] if r["tflops"] > 0 else 0
                lt = [x for x in gk if x.get("op") == "gemm" and x["dtype"] == r["dtype"] and x["size"] == r["size"] and x["backend"] == "cublaslt"
                      and x.get("layout", "nn") == r["layout"]]
                lts = " %.2fx cublaslt" % (g["tflops"] / lt[0]["tflops"]) if lt and lt[0]["tflops"] > 0 else ""
                print("ratio gemm %-5s %5d^3 %s %-11s (%s) %7.1f / %7.1f TFLOP/s = %.2fx torch%s" % (r["dtype"], r["size"], r["layout"], g["backend"],
                      g.get("kernel", "?"), g["tflops"], r["tflops"], ratio, lts))
                res.append({"op": "gemm_ratio", "dtype": r["dtype"], "layout": r["layout"], "size": r["size"], "backend": g["backend"], "kernel": g.get("kernel"),
                            "ratio_to_torch": ratio})
gemm_only = os.environ.get("GK_GEMM_ONLY") == "1"
for n, k in ((4096, 4096), (14336, 4096), (151936, 896)) if not gemm_only and os.environ.get("GK_ATTN_ONLY") != "1" else ():
    w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16); x = torch.randn(1, k, device="cuda", dtype=torch.bfloat16)
    ms = bench(lambda: torch.nn.functional.linear(x, w), 41)
    gbs = n * k * 2 / (ms * 1e-3) / 1e9
    print("torch gemv bf16 %6dx%-5d %8.4f ms %7.0f GB/s" % (n, k, ms, gbs))
    res.append({"op": "gemv", "dtype": "bf16", "N": n, "K": k, "backend": "torch", "ms": ms, "GBs": gbs})
import torch.nn.functional as F
for s in (1024, 4096) if not gemm_only else ():
    q = torch.randn(8, 32, s, 128, device="cuda", dtype=torch.bfloat16); k = torch.randn_like(q); v = torch.randn_like(q)
    ms = bench(lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True), 7)
    tf = 4 * 8 * 32 * s * s * 128 / 2 / (ms * 1e-3) / 1e12
    print("torch attention causal bf16 B8 H32 D128 S%-5d %8.3f ms %7.1f TFLOP/s" % (s, ms, tf))
    res.append({"op": "attention_causal", "dtype": "bf16", "S": s, "backend": "torch_sdpa", "ms": ms, "tflops": tf})
if len(sys.argv) > 2 and os.path.exists(sys.argv[2]):
    gk = json.load(open(sys.argv[2]))["results"]
    for r in [x for x in res if x["op"] == "attention_causal"]:
        for g in gk:
            if g.get("op") == "attention_causal" and g["S"] == r["S"]:
                ratio = g["tflops"] / r["tflops"] if r["tflops"] > 0 else 0
                print("ratio attention causal S%-5d %-10s (%s) %7.1f / %7.1f TFLOP/s = %.2fx sdpa" % (r["S"], g["backend"], g.get("kernel", "?"),
                      g["tflops"], r["tflops"], ratio))
                res.append({"op": "attention_ratio", "S": r["S"], "backend": g["backend"], "kernel": g.get("kernel"), "ratio_to_torch": ratio})
if os.environ.get("GK_ATTN_ONLY") == "1":
    gemm_only = True
if not gemm_only:
    q = torch.randn(1, 32, 1, 128, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(1, 8, 8192, 128, device="cuda", dtype=torch.bfloat16); v = torch.randn_like(k)
    ms = bench(lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True), 21)
    gbs = 2 * 8192 * 8 * 128 * 2 / (ms * 1e-3) / 1e9
    print("torch decode attention bf16 cache 8192 H32/8 D128 %8.4f ms %7.0f GB/s" % (ms, gbs))
    res.append({"op": "attention_decode", "dtype": "bf16", "kv": 8192, "backend": "torch_sdpa", "ms": ms, "GBs": gbs})
out = {"bench": "gemm_torch", "commit": os.environ.get("GK_COMMIT", "unknown"), "device": torch.cuda.get_device_name(),
       "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "torch": torch.__version__, "results": res}
json.dump(out, open(sys.argv[1], "w"), indent=1)
