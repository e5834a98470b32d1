#!/usr/bin/env python3
"""Writes the PyTorch / HF fixtures of tests/test_signal.c into a folder
(default tests/fixtures/signal): raw little-endian f32 files <name>_<part>.bin
and index.txt, one case per line: "<kind> <name> <integers...>".

  stft    name n_fft hop L            x [L], y = view_as_real(torch.stft(...)) [F, T, 2]
  istft   name n_fft hop L            y [F, T, 2] (input), x = torch.istft(..., length=L) [L]
  logmel  name n_mels L n_samples keep  x [L] audio, f = HF mel_filters [201, n_mels],
                                      y = HF input_features[0][:, :keep] [n_mels, keep]
  lstm    name T I H D                x [T, I], wih [D,4H,I], whh [D,4H,H], bih, bhh [D,4H],
                                      y [T, D*H], hn, cn [D, H]   (h0 = c0 = 0)
  conv1d / convt1d / conv2d  name B Cin H W Cout KH KW sh sw ph pw dh dw groups outpad Ho [Wo]
                                      x, w (PyTorch layout), b [Cout], y
  wnorm   name C inner                v [C, inner], g [C], w = weight_norm(v, g, dim=0)

STFT: center=True, pad_mode="reflect", periodic Hann window, onesided,
normalized=False. WhisperFeatureExtractor pads (or truncates) every signal
to n_samples = chunk_length * sampling_rate = 480000 samples (30 s) with
zeros, computes the STFT of that (3001 frames), drops the last frame, and
takes the max - 8 clamp over the whole 30 s window; gk_whisper_log_mel(...,
n_samples = 480000) does the same. Only the first `keep` frames are stored
to keep the files small (the clamp still sees all 3000).

Everything is computed in float64 from float32-rounded inputs (HF's feature
extractor computes in float32), on the CPU; no network is needed.
Usage: python3 tests/gen_signal_fixtures.py [folder]
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "signal")
os.makedirs(out_dir, exist_ok=True)
index = []
rng = np.random.default_rng(20261121)
torch.manual_seed(20261121)


def save(name, part, arr):
    a = np.ascontiguousarray(np.asarray(arr, dtype="<f4"))
    a.tofile(os.path.join(out_dir, f"{name}_{part}.bin"))


def f32(a):
    return np.asarray(a, dtype=np.float32)


# ---- STFT / iSTFT ----
for n_fft, hop, L in [(400, 160, 4000), (20, 5, 500), (64, 16, 777)]:
    x = f32(rng.uniform(-1, 1, L))
    win = torch.hann_window(n_fft, periodic=True, dtype=torch.float64)
    spec = torch.stft(torch.from_numpy(x).double(), n_fft, hop, window=win, center=True, pad_mode="reflect",
                      normalized=False, onesided=True, return_complex=True)
    y = torch.view_as_real(spec).numpy()
    name = f"stft_{n_fft}_{hop}"
    save(name, "x", x)
    save(name, "y", y)
    index.append(f"stft {name} {n_fft} {hop} {L}")
    spec32 = torch.from_numpy(f32(y)).double()
    rec = torch.istft(torch.view_as_complex(spec32.contiguous()), n_fft, hop, window=win, center=True, length=L).numpy()
    name = f"istft_{n_fft}_{hop}"
    save(name, "y", y)
    save(name, "x", rec)
    index.append(f"istft {name} {n_fft} {hop} {L}")

# ---- Whisper log-mel (HF WhisperFeatureExtractor) ----
try:
    from transformers import WhisperFeatureExtractor
    L = 24000
    t = np.arange(L) / 16000.0
    audio = f32(0.3 * np.sin(2 * np.pi * 440 * t) + 0.2 * np.sin(2 * np.pi * 1234.5 * t) * np.exp(-t)
                + 0.05 * rng.standard_normal(L))
    for n_mels in (80, 128):
        fe = WhisperFeatureExtractor(feature_size=n_mels)
        feats = fe(audio, sampling_rate=16000, return_tensors="np")["input_features"][0]
        assert feats.shape == (n_mels, 3000), feats.shape
        keep = 64
        name = f"logmel_{n_mels}"
        save(name, "x", audio)
        save(name, "f", fe.mel_filters)            # [201, n_mels]
        save(name, "y", feats[:, :keep])
        index.append(f"logmel {name} {n_mels} {L} {fe.n_samples} {keep}")
except ImportError as e:
    print("no transformers: log-mel fixtures skipped:", e)

# ---- LSTM ----
for T, I, H, D in [(300, 32, 32, 1), (200, 24, 40, 2)]:
    lstm = torch.nn.LSTM(I, H, bidirectional=(D == 2)).double()
    with torch.no_grad():
        for p in lstm.parameters():
            p.copy_(torch.from_numpy(f32(p.detach().numpy())).double())
        x = torch.from_numpy(f32(rng.uniform(-1, 1, (T, 1, I)))).double()
        y, (hn, cn) = lstm(x)
    sfx = ["", "_reverse"][:D]
    g = lambda n: np.stack([getattr(lstm, n + s).detach().numpy() for s in sfx])
    name = f"lstm_{T}_{I}_{H}_{D}"
    save(name, "x", x.numpy().reshape(T, I))
    save(name, "wih", g("weight_ih_l0"))
    save(name, "whh", g("weight_hh_l0"))
    save(name, "bih", g("bias_ih_l0"))
    save(name, "bhh", g("bias_hh_l0"))
    save(name, "y", y.detach().numpy().reshape(T, D * H))
    save(name, "hn", hn.detach().numpy().reshape(D, H))
    save(name, "cn", cn.detach().numpy().reshape(D, H))
    index.append(f"lstm {name} {T} {I} {H} {D}")

# ---- convolutions ----
def conv_case(kind, B, Cin, H, W, Cout, KH, KW, s, p, d, groups, outpad=(0, 0)):
    x = torch.from_numpy(f32(rng.uniform(-1, 1, (B, Cin, H, W) if kind == "conv2d" else (B, Cin, W)))).double()
    if kind == "convt1d":
        w = torch.from_numpy(f32(rng.uniform(-1, 1, (Cin, Cout // groups, KW)))).double()
    elif kind == "conv2d":
        w = torch.from_numpy(f32(rng.uniform(-1, 1, (Cout, Cin // groups, KH, KW)))).double()
    else:
        w = torch.from_numpy(f32(rng.uniform(-1, 1, (Cout, Cin // groups, KW)))).double()
    b = torch.from_numpy(f32(rng.uniform(-1, 1, Cout))).double()
    if kind == "conv1d":
        y = F.conv1d(x, w, b, stride=s[1], padding=p[1], dilation=d[1], groups=groups)
    elif kind == "convt1d":
        y = F.conv_transpose1d(x, w, b, stride=s[1], padding=p[1], output_padding=outpad[1], groups=groups, dilation=d[1])
    else:
        y = F.conv2d(x, w, b, stride=s, padding=p, dilation=d, groups=groups)
    name = f"{kind}_{len(index)}"
    save(name, "x", x.numpy())
    save(name, "w", w.numpy())
    save(name, "b", b.numpy())
    save(name, "y", y.numpy())
    shape = list(y.shape)
    tail = f"{shape[2]} {shape[3]}" if kind == "conv2d" else f"{shape[2]}"
    index.append(f"{kind} {name} {B} {Cin} {H} {W} {Cout} {KH} {KW} {s[0]} {s[1]} {p[0]} {p[1]} {d[0]} {d[1]} {groups} {outpad[1]} {tail}")


conv_case("conv1d", 2, 8, 1, 50, 12, 1, 5, (1, 2), (0, 3), (1, 2), 4)
conv_case("conv1d", 1, 22, 1, 120, 16, 1, 12, (1, 6), (0, 3), (1, 1), 1)       # Kokoro noise_convs[0]
conv_case("conv1d", 1, 16, 1, 64, 16, 1, 7, (1, 1), (0, 9), (1, 3), 1)         # AdaINResBlock1 dilation 3
conv_case("convt1d", 1, 16, 1, 12, 8, 1, 20, (1, 10), (0, 5), (1, 1), 1)       # ups[0] k20 s10 p5
conv_case("convt1d", 1, 8, 1, 15, 8, 1, 3, (1, 2), (0, 1), (1, 1), 8, (0, 1))  # depthwise pool k3 s2 p1 op1
conv_case("convt1d", 2, 6, 1, 9, 4, 1, 3, (1, 3), (0, 2), (1, 2), 2, (0, 1))
conv_case("conv2d", 2, 6, 9, 11, 8, 3, 3, (1, 2), (1, 0), (1, 2), 2)
conv_case("conv2d", 1, 3, 16, 15, 5, 2, 4, (2, 1), (1, 2), (2, 1), 1)

# ---- weight norm (torch.nn.utils.parametrizations.weight_norm, dim=0) ----
for mod in (torch.nn.Conv1d(12, 10, 5).double(), torch.nn.ConvTranspose1d(12, 6, 4, groups=2).double()):
    with torch.no_grad():
        mod.weight.copy_(torch.from_numpy(f32(rng.uniform(-1, 1, tuple(mod.weight.shape)))).double())
    wn = torch.nn.utils.parametrizations.weight_norm(mod, dim=0)
    with torch.no_grad():
        g = wn.parametrizations.weight.original0
        g.copy_(torch.from_numpy(f32(rng.uniform(0.5, 2, tuple(g.shape)))).double())
        v = wn.parametrizations.weight.original1
        w = wn.weight
    C = v.shape[0]
    name = f"wnorm_{len(index)}"
    save(name, "v", v.detach().numpy().reshape(C, -1))
    save(name, "g", g.detach().numpy().reshape(C))
    save(name, "w", w.detach().numpy().reshape(C, -1))
    index.append(f"wnorm {name} {C} {v[0].numel()}")

with open(os.path.join(out_dir, "index.txt"), "w") as f:
    f.write("# generated by tests/gen_signal_fixtures.py (torch %s)\n" % torch.__version__)
    f.write("\n".join(index) + "\n")
total = sum(os.path.getsize(os.path.join(out_dir, n)) for n in os.listdir(out_dir))
print(f"wrote {len(index)} cases to {out_dir} ({total} bytes)")
