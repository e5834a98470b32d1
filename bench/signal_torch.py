#!/usr/bin/env python3
"""PyTorch / HF peers of bench/bench_signal.c, same sizes, CUDA events
(median of 7 runs of several calls after a warm-up). Writes JSON to argv[1].
  stft      torch.stft(8 x 480000, 400, 160, hann, center, reflect, return_complex)
  logmel    HF WhisperFeatureExtractor on 8 x 30 s: its default (numpy, CPU) path
            and its torch path with device="cuda" (the fastest HF offers)
  lstm      torch.nn.LSTM (cuDNN), 1000 steps, batch 1, hidden 256 / 512
  conv1d    F.conv1d / F.conv_transpose1d (cuDNN), fp32 (TF32 off), vocoder upsampling shapes"""
import json
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False
dev = "cuda"
res = {}


def timeit(name, fn, per):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    v = []
    for _ in range(7):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(per):
            fn()
        b.record()
        b.synchronize()
        v.append(a.elapsed_time(b) / per)
    v.sort()
    res[name] = v[3]
    print(f"  {name:36s} {v[3]:10.4f} ms", flush=True)


def wall(name, fn, reps=3):
    fn()
    v = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        v.append((time.perf_counter() - t0) * 1e3)
    v.sort()
    res[name] = v[len(v) // 2]
    print(f"  {name:36s} {res[name]:10.4f} ms (wall)", flush=True)


torch.manual_seed(1)
x = (torch.rand(8, 480000, device=dev) - 0.5)
win = torch.hann_window(400, device=dev)
timeit("stft_8x480000_n400_h160", lambda: torch.stft(x, 400, 160, window=win, center=True, pad_mode="reflect", return_complex=True), 10)

try:
    from transformers import WhisperFeatureExtractor
    audio = [a for a in x.cpu().numpy()]
    for n_mels in (80, 128):
        fe = WhisperFeatureExtractor(feature_size=n_mels)
        try:
            wall(f"hf_logmel{n_mels}_8x30s_cuda", lambda: fe(audio, sampling_rate=16000, return_tensors="pt", device="cuda"))
        except Exception as e:  # older transformers: no device argument
            print("HF cuda path failed:", e)
        try:
            wall(f"hf_logmel{n_mels}_8x30s_default", lambda: fe(audio, sampling_rate=16000, return_tensors="np"), reps=1)
        except Exception as e:
            print("HF default path failed:", e)
        # the GPU part of HF's torch path alone (no host<->device copies, no padding)
        filt = torch.from_numpy(fe.mel_filters).to(dev, torch.float32)

        def hf_core():
            s = torch.stft(x, 400, 160, window=win, return_complex=True)
            mag = s[..., :-1].abs() ** 2
            ls = torch.clamp(filt.T @ mag, min=1e-10).log10()
            mx = ls.max(dim=2, keepdim=True)[0].max(dim=1, keepdim=True)[0]
            return (torch.maximum(ls, mx - 8.0) + 4.0) / 4.0
        timeit(f"torch_logmel{n_mels}_core_8x30s", hf_core, 10)
except ImportError as e:
    print("transformers missing:", e)

for H in (256, 512):
    for bi in (False, True):
        lstm = torch.nn.LSTM(H, H, bidirectional=bi).to(dev)
        xs = torch.randn(1000, 1, H, device=dev)
        with torch.no_grad():
            timeit(f"lstm_T1000_H{H}_{'bi' if bi else 'uni'}", lambda: lstm(xs), 3)

for name, cin, cout, k, L, s, p, d, tr in [("conv1d_512x512_k3_L2000", 512, 512, 3, 2000, 1, 1, 1, 0),
                                           ("conv1d_1090x1024_k3_L600", 1090, 1024, 3, 600, 1, 1, 1, 0),
                                           ("conv1d_128x128_k7_d5_L36000", 128, 128, 7, 36000, 1, 15, 5, 0),
                                           ("convt1d_512x256_k20_s10_L600", 512, 256, 20, 600, 10, 5, 1, 1),
                                           ("convt1d_512x256_k20_s10_L100", 512, 256, 20, 100, 10, 5, 1, 1),
                                           ("convt1d_512x256_k16_s8_L200", 512, 256, 16, 200, 8, 4, 1, 1),
                                           ("convt1d_512x256_k16_s8_L1000", 512, 256, 16, 1000, 8, 4, 1, 1),
                                           ("convt1d_256x128_k12_s6_L6000", 256, 128, 12, 6000, 6, 3, 1, 1),
                                           ("convt1d_128x64_k4_s2_L1000", 128, 64, 4, 1000, 2, 1, 1, 1)]:
    xi = torch.randn(1, cin, L, device=dev)
    b = torch.randn(cout, device=dev)
    with torch.no_grad():
        if tr:
            w = torch.randn(cin, cout, k, device=dev) * 0.05
            timeit(name, lambda: F.conv_transpose1d(xi, w, b, stride=s, padding=p, dilation=d), 20)
        else:
            w = torch.randn(cout, cin, k, device=dev) * 0.05
            timeit(name, lambda: F.conv1d(xi, w, b, stride=s, padding=p, dilation=d), 20)

for name, n in [("fft_1024x4096", 4096), ("fft_1024x997_bluestein", 997)]:
    z = torch.randn(1024, n, dtype=torch.complex64, device=dev)
    timeit(name, lambda: torch.fft.fft(z), 20)

out = {"bench": "signal_torch", "torch": torch.__version__, "device": torch.cuda.get_device_name(0), "torch_ms": res}
with open(sys.argv[1] if len(sys.argv) > 1 else "signal_torch.json", "w") as f:
    json.dump(out, f, indent=2)
