#!/usr/bin/env python3
"""PyTorch's side of bench_stream: copy, gelu (tanh) over 256 MiB of bf16, sum / max
over the last dim of [4096, 32000] f32, timed as bench_stream.c times its entries:
rounds in which every entry is timed once (10 back-to-back calls between two CUDA
events); an entry's figure is its median over the rounds, with the quartiles. Each
entry also as a CUDA graph of the 10 calls (torch.cuda.CUDAGraph), as bench_stream
replays gpukit's ops, which leaves the host's work between calls out.
    python3 bench/stream_torch.py [--json FILE] [--rounds N]"""
import argparse, datetime, json, os
import torch

ap = argparse.ArgumentParser()
ap.add_argument("--json")
ap.add_argument("--rounds", type=int, default=21)
args = ap.parse_args()
dev = torch.device("cuda")
nb = 128 << 20
xb = (torch.rand(nb, device=dev) * 12 - 6).to(torch.bfloat16)
ob = torch.empty_like(xb)
xf = torch.rand(4096, 32000, device=dev) * 2 - 1
rf = torch.empty(4096, device=dev)
gb, rb = 4.0 * nb, 4.0 * 4096 * 32000
ent = [("copy (copy_)", gb, lambda: ob.copy_(xb)),
       ("gelu_tanh (aten.gelu.out)", gb, lambda: torch.ops.aten.gelu.out(xb, approximate="tanh", out=ob)),
       ("sum lastdim (torch.sum out)", rb, lambda: torch.sum(xf, dim=1, out=rf)),
       ("max lastdim (torch.amax out)", rb, lambda: torch.amax(xf, dim=1, out=rf))]
def graphed(f):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        f(); f()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(10):
            f()
    return g


graphs = {n + " graph": graphed(f) for n, _, f in ent}
ent += [(n + " graph", by, None) for n, by, _ in ent]
ts = {n: [] for n, _, _ in ent}
for _, _, f in ent:
    if f:
        f(); f()
torch.cuda.synchronize()
for _ in range(max(3, args.rounds)):
    for n, _, f in ent:
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record()
        if f:
            for _ in range(10):
                f()
        else:
            graphs[n].replay()
        e1.record()
        e1.synchronize()
        ts[n].append(e0.elapsed_time(e1) / 10 * 1000.0)
res = []
for n, by, _ in ent:
    t = sorted(ts[n])
    med, q1, q3 = t[len(t) // 2], t[len(t) // 4], t[(3 * len(t)) // 4]
    print(f"{n:30s} {med:9.2f} us  (quartiles {q1:.2f} .. {q3:.2f})  {by / (med * 1e-6) / 1e9:7.1f} GB/s")
    res.append({"name": n, "us": round(med, 3), "q1": round(q1, 3), "q3": round(q3, 3), "GBs": round(by / (med * 1e-6) / 1e9, 1)})
if args.json:
    with open(args.json, "w") as f:
        json.dump({"bench": "stream_torch", "torch": torch.__version__, "commit": os.environ.get("GK_COMMIT", "unknown"),
                   "device": torch.cuda.get_device_name(), "rounds": args.rounds,
                   "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "results": res}, f, indent=1)
