"""PyTorch (cuBLAS) side of bench/bench_gemv.c, with the same method:
back-to-back F.linear calls over rotating bf16 weight copies (512 MiB in all,
so the L2 serves none of it), events around the whole run, median of 5;
copy bandwidth measured the same way. Usage: gemv_torch.py [--json FILE]"""
import json, sys, time
import torch
import torch.nn.functional as F

dev = "cuda"


def time_calls(fn, iters):
    for i in range(iters):
        fn(i)
    ts = []
    for _ in range(5):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for i in range(iters):
            fn(i)
        b.record()
        b.synchronize()
        ts.append(a.elapsed_time(b) / iters)
    return sorted(ts)[2]


def main():
    out = sys.argv[sys.argv.index("--json") + 1] if "--json" in sys.argv else None
    n = 1 << 29
    src = torch.ones(n, dtype=torch.bfloat16, device=dev)
    dst = torch.empty_like(src)
    ms = time_calls(lambda i: dst.copy_(src), 4)
    copy = 2 * n * 2 / (ms * 1e-3) / 1e9
    del src, dst
    print(f"copy bandwidth {copy:.0f} GB/s")
    res = []
    shapes = [(4096, 4096), (14336, 4096), (151936, 896)]
    glus = [(4864, 896), (8192, 2048), (11008, 4096)]
    g = torch.Generator(device=dev).manual_seed(0)

    def weights(rows, K):
        nbytes = rows * K * 2
        nw = max(2, -(-(512 << 20) // nbytes))
        return [torch.randn(rows, K, dtype=torch.bfloat16, device=dev, generator=g) * 0.05 for _ in range(nw)]

    for N, K in shapes:
        ws = weights(N, K)
        for M in (1, 4, 8):
            x = torch.randn(M, K, dtype=torch.bfloat16, device=dev)
            ms = time_calls(lambda i: F.linear(x, ws[i % len(ws)]), max(64, 4 * len(ws)))
            gbs = N * K * 2 / (ms * 1e-3) / 1e9
            print(f"gemv torch     bf16 M{M} {N:6d}x{K:<5d} {ms * 1e3:8.2f} us {gbs:7.0f} GB/s ({100 * gbs / copy:.0f}% of copy)")
            res.append({"op": "gemv", "M": M, "N": N, "K": K, "us": ms * 1e3, "GBs": gbs, "of_copy": gbs / copy})
        del ws
    for N, K in glus:
        ws = weights(2 * N, K)
        x = torch.randn(1, K, dtype=torch.bfloat16, device=dev)

        def swiglu(i):
            gu = F.linear(x, ws[i % len(ws)])
            return F.silu(gu[:, :N]) * gu[:, N:]
        ms = time_calls(swiglu, max(64, 4 * len(ws)))
        gbs = 2 * N * K * 2 / (ms * 1e-3) / 1e9
        print(f"glu torch      bf16 M1 {2 * N:6d}x{K:<5d} {ms * 1e3:8.2f} us {gbs:7.0f} GB/s ({100 * gbs / copy:.0f}% of copy)")
        res.append({"op": "glu", "M": 1, "N": 2 * N, "K": K, "us": ms * 1e3, "GBs": gbs, "of_copy": gbs / copy})
        del ws
    if out:
        json.dump({"bench": "gemv_torch", "torch": torch.__version__, "device": torch.cuda.get_device_name(),
                   "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "copy_GBs": copy,
                   "method": "back-to-back F.linear over rotating weight copies (512 MiB), median of 5",
                   "results": res}, open(out, "w"), indent=1)


if __name__ == "__main__":
    main()
