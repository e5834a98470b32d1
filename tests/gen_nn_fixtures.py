#!/usr/bin/env python3
"""Writes PyTorch / HF transformers fixtures for tests/test_nn.c.

Run on the GPU machine (torch, transformers, numpy; no network):
    python3 tests/gen_nn_fixtures.py tests/fixtures/nn

Writes <dir>/index.txt (one case a line: `kind name key=value ... file=F`) and
raw little-endian f32 files F (several arrays back to back, in the order the
line's kind documents below). Everything runs on the CPU in f32.

  table  inv_freq [rd/2], cos [npos, rd/2], sin [npos, rd/2]  (HF rope init
         functions; cos/sin as HF's rotary forward: cat(freqs, freqs).cos() *
         attention_scaling, first half)
  rope   x [T, H, D], pos [T] (as f32), cos [P, rd/2], sin [P, rd/2], expected [T, H, D]
  interp x [N, C, (H,) W], expected
  pad    x, expected
  sinus  expected [length, channels]  (transformers' Whisper sinusoids)
  norm   x, weight, bias, expected (layer: F.layer_norm; rms: LlamaRMSNorm;
         group: F.group_norm; instance: F.instance_norm)
"""
import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

OUT = sys.argv[1] if len(sys.argv) > 1 else "tests/fixtures/nn"
os.makedirs(OUT, exist_ok=True)
torch.manual_seed(1234)
lines = []


def write(name, arrays):
    fn = name + ".bin"
    with open(os.path.join(OUT, fn), "wb") as f:
        for a in arrays:
            f.write(np.ascontiguousarray(a.detach().cpu().numpy() if torch.is_tensor(a) else a, dtype="<f4").tobytes())
    return fn


def line(kind_, name_, **kw):
    lines.append(kind_ + " " + name_ + " " + " ".join("%s=%s" % (k, v) for k, v in kw.items()))


# ---- RoPE tables through HF's own init functions
import transformers
from transformers import LlamaConfig
from transformers import modeling_rope_utils as ru


def hf_inv_freq(cfg, rope_type, seq_len=None):
    if rope_type == "default":
        fn = getattr(ru, "_compute_default_rope_parameters", None)
        if fn is None:
            from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding
            fn = LlamaRotaryEmbedding.compute_default_rope_parameters
    else:
        fn = ru.ROPE_INIT_FUNCTIONS[rope_type]
    if seq_len is None:
        return fn(cfg, torch.device("cpu"))
    return fn(cfg, torch.device("cpu"), seq_len=seq_len)


def table_case(name, rope_type, head_dim=64, partial=1.0, theta=10000.0, max_pos=2048, npos=64, seq=None, **params):
    rp = {"rope_type": rope_type, "rope_theta": theta}
    rp.update(params)
    if partial != 1.0:
        rp["partial_rotary_factor"] = partial
    kw = dict(hidden_size=head_dim * 4, num_attention_heads=4, head_dim=head_dim, max_position_embeddings=max_pos,
              num_hidden_layers=1, intermediate_size=32, vocab_size=32)
    try:
        cfg = LlamaConfig(rope_parameters=rp, **kw)
    except TypeError:  # transformers 4.x
        cfg = LlamaConfig(rope_theta=theta, rope_scaling=None if rope_type == "default" else dict(rp, type=rope_type), **kw)
    if partial != 1.0:
        cfg.partial_rotary_factor = partial
    inv, att = hf_inv_freq(cfg, rope_type, seq)
    inv = inv.float()
    rd = inv.numel() * 2
    pos = torch.arange(npos, dtype=torch.float32)
    freqs = (inv[None, :, None].float() @ pos[None, None, :]).transpose(1, 2)  # as HF's forward
    emb = torch.cat((freqs, freqs), dim=-1)
    cos = (emb.cos() * att)[0, :, : rd // 2]
    sin = (emb.sin() * att)[0, :, : rd // 2]
    fn = write("table_" + name, [inv, cos, sin])
    g = lambda k: params.get(k, 0) or 0
    line("table", name, type=rope_type, rd=rd, theta=theta, factor=g("factor"), maxpos=max_pos,
         orig=g("original_max_position_embeddings"), seq=seq or 0, attn=g("attention_factor"), bfast=g("beta_fast"),
         bslow=g("beta_slow"), mscale=g("mscale"), msall=g("mscale_all_dim"), trunc=int(params.get("truncate", True)),
         low=g("low_freq_factor"), high=g("high_freq_factor"), npos=npos, att=repr(float(att)), file=fn)


table_case("default", "default")
table_case("default_partial", "default", head_dim=80, partial=0.5, theta=500000.0)
table_case("linear", "linear", factor=4.0)
table_case("dynamic", "dynamic", max_pos=64, npos=200, seq=200, factor=2.0)
table_case("yarn", "yarn", factor=4.0, max_pos=4096, original_max_position_embeddings=1024)
table_case("yarn_mscale", "yarn", head_dim=128, factor=40.0, max_pos=163840, original_max_position_embeddings=4096,
           beta_fast=32, beta_slow=1, mscale=1.0, mscale_all_dim=1.0)
table_case("yarn_notrunc", "yarn", factor=8.0, max_pos=8192, original_max_position_embeddings=1024, truncate=False)
table_case("llama3", "llama3", head_dim=128, theta=500000.0, factor=8.0, low_freq_factor=1.0, high_freq_factor=4.0,
           original_max_position_embeddings=8192, max_pos=131072, npos=100)

# ---- rotary application (NeoX via HF Llama's apply_rotary_pos_emb, GPT-J interleaved)
from transformers.models.llama.modeling_llama import apply_rotary_pos_emb as llama_apply


def rope_case(name, layout, T, H, D, rd, P=64):
    x = torch.randn(T, H, D)
    pos = torch.randint(0, P, (T,))
    inv = 1.0 / (10000.0 ** (torch.arange(0, rd, 2, dtype=torch.int64).float() / rd))
    freqs = torch.arange(P, dtype=torch.float32)[:, None] * inv[None, :]
    cos_h, sin_h = freqs.cos(), freqs.sin()
    c, s = cos_h[pos], sin_h[pos]  # [T, rd/2]
    xr, xp = x[..., :rd], x[..., rd:]
    if layout == "neox":
        cf = torch.cat((c, c), -1)[None]  # [1, T, rd]
        sf = torch.cat((s, s), -1)[None]
        q = xr.transpose(0, 1)[None]  # [1, H, T, rd]
        out, _ = llama_apply(q, q, cf, sf, unsqueeze_dim=1)
        out = out[0].transpose(0, 1)
    else:
        ci = torch.repeat_interleave(c, 2, -1)[:, None, :]
        si = torch.repeat_interleave(s, 2, -1)[:, None, :]
        x1, x2 = xr[..., ::2], xr[..., 1::2]
        rot = torch.stack((-x2, x1), dim=-1).flatten(-2)  # GPT-J rotate_every_two
        out = xr * ci + rot * si
    y = torch.cat((out, xp), -1)
    fn = write("rope_" + name, [x, pos.float(), cos_h, sin_h, y])
    line("rope", name, layout=layout, T=T, H=H, D=D, rd=rd, P=P, file=fn)


rope_case("neox", "neox", 5, 3, 64, 64)
rope_case("neox_partial", "neox", 7, 2, 80, 32)
rope_case("gptj", "gptj", 5, 3, 64, 64)
rope_case("gptj_partial", "gptj", 4, 2, 10, 6)

# ---- interpolate (align_corners=False) and pad
def interp_case(name, mode, shape, size=None, scale=None):
    x = torch.randn(*shape)
    kw = {}
    if mode != "nearest":
        kw["align_corners"] = False
    y = F.interpolate(x, size=size, scale_factor=scale, mode=mode, **kw)
    nd = x.dim()
    sc = scale if isinstance(scale, (tuple, list)) else ([scale] * (nd - 2) if scale else [0] * (nd - 2))
    H, W = (x.shape[2], x.shape[3]) if nd == 4 else (1, x.shape[2])
    OH, OW = (y.shape[2], y.shape[3]) if nd == 4 else (1, y.shape[2])
    fn = write("interp_" + name, [x, y])
    line("interp", name, mode="nearest" if mode == "nearest" else "linear", nd=nd, N=x.shape[0], C=x.shape[1], H=H, W=W,
         OH=OH, OW=OW, sh=sc[0] if nd == 4 else 0, sw=sc[-1], file=fn)


interp_case("nearest1d_size", "nearest", (2, 3, 10), size=23)
interp_case("nearest1d_scale", "nearest", (2, 3, 10), scale=2.5)
interp_case("linear1d_size", "linear", (2, 3, 10), size=23)
interp_case("linear1d_down", "linear", (1, 2, 31), size=7)
interp_case("linear1d_scale", "linear", (2, 3, 10), scale=1.7)
interp_case("bilinear_size", "bilinear", (2, 2, 5, 7), size=(11, 4))
interp_case("bilinear_scale", "bilinear", (1, 3, 6, 9), scale=(2.0, 0.5))
interp_case("nearest2d_scale", "nearest", (1, 2, 5, 7), scale=(1.5, 3.0))


def pad_case(name, mode, shape, pads, value=0.0):
    x = torch.randn(*shape)
    y = F.pad(x, pads, mode=mode, value=value) if mode == "constant" else F.pad(x, pads, mode=mode)
    p = list(pads) + [0] * (4 - len(pads))
    fn = write("pad_" + name, [x, y])
    s = list(shape)
    line("pad", name, mode=mode, npads=len(pads), p0=p[0], p1=p[1], p2=p[2], p3=p[3], value=value, ndim=len(s),
         s0=s[0], s1=s[1], s2=s[2], s3=s[3] if len(s) > 3 else 0, file=fn)


pad_case("const1d", "constant", (2, 3, 9), (2, 5), 1.5)
pad_case("reflect1d", "reflect", (2, 3, 9), (3, 8))
pad_case("replicate1d", "replicate", (2, 3, 9), (4, 1))
pad_case("reflect2d", "reflect", (1, 2, 5, 6), (1, 2, 4, 3))
pad_case("replicate2d", "replicate", (1, 2, 5, 6), (3, 0, 2, 7))
pad_case("const2d", "constant", (1, 2, 5, 6), (1, 1, 2, 0), -2.0)

# ---- Whisper sinusoids
try:
    from transformers.models.whisper.modeling_whisper import sinusoids
except ImportError:
    sinusoids = None
if sinusoids is not None:
    for L, Cc in ((30, 16), (1500, 384)):
        y = sinusoids(L, Cc)
        fn = write("sinus_%d_%d" % (L, Cc), [y])
        line("sinus", "w%d_%d" % (L, Cc), length=L, channels=Cc, file=fn)

# ---- norms
from transformers.models.llama.modeling_llama import LlamaRMSNorm


def norm_case(name, kind, shape, groups=0, eps=1e-5, affine=True):
    x = torch.randn(*shape) * 2 + 0.5
    C = shape[-1] if kind in ("layer", "rms") else shape[1]
    w = torch.rand(C) + 0.5 if affine else torch.ones(C)
    b = torch.randn(C) if affine and kind != "rms" else torch.zeros(C)
    if kind == "layer":
        y = F.layer_norm(x, (C,), w, b, eps)
    elif kind == "rms":
        m = LlamaRMSNorm(C, eps=eps)
        with torch.no_grad():
            m.weight.copy_(w)
        y = m(x).detach()
    elif kind == "group":
        y = F.group_norm(x, groups, w, b, eps)
    else:
        y = F.instance_norm(x, weight=w if affine else None, bias=b if affine else None, eps=eps)
    fn = write("norm_" + name, [x, w, b, y])
    s = list(shape) + [0] * (4 - len(shape))
    line("norm", name, kind=kind, ndim=len(shape), s0=s[0], s1=s[1], s2=s[2], s3=s[3], groups=groups, eps=eps,
         affine=int(affine), file=fn)


norm_case("layer", "layer", (4, 33))
norm_case("layer_1000", "layer", (2, 1000))
norm_case("rms", "rms", (3, 64), eps=1e-6)
norm_case("group", "group", (2, 6, 7), groups=3)
norm_case("group_2d", "group", (2, 8, 3, 5), groups=4)
norm_case("instance", "instance", (2, 3, 50), affine=False)
norm_case("instance_affine", "instance", (2, 3, 50))

with open(os.path.join(OUT, "index.txt"), "w") as f:
    f.write("# made by tests/gen_nn_fixtures.py: torch %s, transformers %s\n" % (torch.__version__, transformers.__version__))
    f.write("\n".join(lines) + "\n")
print("wrote %d cases to %s (torch %s, transformers %s)" % (len(lines), OUT, torch.__version__, transformers.__version__))
