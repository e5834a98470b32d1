"""gpukit.ops: every op against a NumPy reference on fresh random inputs,
both the allocating form and out=."""
import math

import numpy as np
import pytest

import gpukit as gk
from gpukit import ops
from conftest import close

F32 = np.float32
TOL = 2e-5  # f32 against float64 references: tests/test_nn.c and test_math.c's bound
NTOL = 4 * TOL  # norms: test_nn.c allows 4x for their two reductions


def rnd(rng, *shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(F32)


def both(fn, want, *args, dt="float32", rtol=None, atol=None, **kw):
    """fn(*args, **kw) and fn(*args, out=..., **kw) both match want."""
    got = fn(*args, **kw)
    close(got, want, dt, rtol=rtol, atol=atol)
    out = gk.empty(got.shape, got.dtype)
    r = fn(*args, out=out, **kw)
    assert r is out
    close(out, want, dt, rtol=rtol, atol=atol)
    return got


# ---- elementwise
def erf(x):
    return np.vectorize(math.erf)(x)


UNARY = {
    "exp": np.exp, "log": lambda x: np.log(np.abs(x) + 0.5), "sqrt": lambda x: np.sqrt(np.abs(x)),
    "rsqrt": lambda x: 1 / np.sqrt(np.abs(x) + 0.5), "abs": np.abs, "negative": np.negative, "sin": np.sin,
    "cos": np.cos, "tanh": np.tanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "relu": lambda x: np.maximum(x, 0),
    "silu": lambda x: x / (1 + np.exp(-x)), "relu2": lambda x: np.maximum(x, 0) ** 2,
}
PRE = {"log": lambda x: np.abs(x) + 0.5, "sqrt": np.abs, "rsqrt": lambda x: np.abs(x) + 0.5}


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dt", ["float32", "float64", "bfloat16"])
def test_unary(ctx, rng, name, dt):
    x = rnd(rng, 5, 7)
    x = PRE.get(name, lambda v: v)(x).astype(F32)
    a = gk.asarray(x, dtype=dt)
    xr = a.astype("float64").to_numpy()
    want = UNARY[name](xr) if name not in PRE else {"log": np.log, "sqrt": np.sqrt, "rsqrt": lambda v: 1 / np.sqrt(v)}[name](xr)
    both(getattr(ops, name), want, a, dt=dt)


def test_unary_params(ctx, rng):
    x = rnd(rng, 64)
    a = gk.asarray(x.astype(np.float64))
    xd = x.astype(np.float64)
    close(ops.leaky_relu(a, 0.2), np.where(xd < 0, 0.2 * xd, xd), "float64")
    sp = np.where(2 * xd > 20, xd, np.log1p(np.exp(2 * xd)) / 2)
    close(ops.softplus(a, beta=2.0), sp, "float64")
    close(ops.gelu(a), xd / 2 * (1 + erf(xd / math.sqrt(2))), "float64")
    close(ops.gelu(a, approximate="tanh"), xd / 2 * (1 + np.tanh(math.sqrt(2 / math.pi) * (xd + 0.044715 * xd ** 3))),
          "float64")
    with pytest.raises(gk.InvalidArgumentError, match="approximate"):
        ops.gelu(a, approximate="fast")


def test_binary_compare_where(ctx, rng):
    x, y = rnd(rng, 4, 6), rnd(rng, 6)
    a, b = gk.asarray(x), gk.asarray(y)
    both(ops.maximum, np.maximum(x, y), a, b)
    both(ops.minimum, np.minimum(x, y), a, b)
    both(ops.power, np.abs(x) ** y, ops.abs(a), b, rtol=1e-5)
    for name, f in (("equal", np.equal), ("not_equal", np.not_equal), ("less", np.less), ("less_equal", np.less_equal),
                    ("greater", np.greater), ("greater_equal", np.greater_equal)):
        r = getattr(ops, name)(a, b)
        assert r.dtype is gk.uint8
        np.testing.assert_array_equal(r.to_numpy(), f(x, y).astype(np.uint8))
    c = x > 0.2
    both(ops.where, np.where(c, x, y), c, a, b)
    close(ops.where(a > 0, a, 0.0), np.where(x > 0, x, 0))
    ints = gk.asarray(rng.integers(-9, 9, (3, 3)).astype(np.int64))
    np.testing.assert_array_equal(ops.maximum(ints, 0).to_numpy(), np.maximum(ints.to_numpy(), 0))


def test_core_elementwise(ctx, rng):
    x, y = rnd(rng, 3, 5), rnd(rng, 3, 5)
    a, b = gk.asarray(x), gk.asarray(y)
    both(ops.add, x + y, a, b)
    both(ops.sub, x - y, a, b)
    both(ops.mul, x * y, a, b)
    both(ops.div, x / y, a, b, rtol=1e-5)
    both(ops.scale, 2.5 * x, a, 2.5)
    c = a.copy()
    ops.axpy(c, -0.5, b)
    close(c, x - 0.5 * y)
    d = gk.empty((3, 5))
    ops.fill(d, 4.0)
    assert np.all(d.to_numpy() == 4.0)
    ops.copy(d, a)
    np.testing.assert_array_equal(d.to_numpy(), x)
    h = ops.cast(a, "float16")
    np.testing.assert_array_equal(h.to_numpy(), x.astype(np.float16))
    o = gk.empty((3, 5), "float64")
    ops.cast(a, out=o)
    np.testing.assert_array_equal(o.to_numpy(), x.astype(np.float64))
    both(ops.clamp, np.clip(x, -0.3, 0.4), a, -0.3, 0.4)
    close(ops.clamp(a, None, 0.1), np.minimum(x, 0.1))


def test_glu_snake(ctx, rng):
    g, u = rnd(rng, 4, 8), rnd(rng, 4, 8)
    silu = g / (1 + np.exp(-g.astype(np.float64)))
    gel = g / 2 * (1 + erf(g / math.sqrt(2)))
    both(ops.swiglu, silu * u, gk.asarray(g), gk.asarray(u))
    both(ops.geglu, gel * u, gk.asarray(g), gk.asarray(u))
    both(ops.glu, gel * u, gk.asarray(g), gk.asarray(u), "gelu")
    x = np.concatenate([g, u], axis=-1)
    both(ops.glu_split, silu * u, gk.asarray(x))
    xs, alpha = rnd(rng, 2, 3, 10), np.abs(rnd(rng, 3)) + 0.1
    want = xs + np.sin(alpha[:, None] * xs) ** 2 / (alpha[:, None] + 1e-9)
    both(ops.snake, want, gk.asarray(xs), gk.asarray(alpha))


# ---- softmax, reductions, top-k, sampling
def test_softmax(ctx, rng):
    x = rnd(rng, 6, 33, scale=3)
    e = np.exp(x - x.max(-1, keepdims=True))
    both(ops.softmax, e / e.sum(-1, keepdims=True), gk.asarray(x))
    both(ops.log_softmax, x - x.max(-1, keepdims=True) - np.log(e.sum(-1, keepdims=True)), gk.asarray(x), rtol=1e-5,
         atol=1e-5)
    z = np.full((1, 4), -np.inf, F32)
    assert np.all(ops.softmax(gk.asarray(z)).to_numpy() == 0)  # a row of -inf gives zeros


def test_reduce_and_cumsum(ctx, rng):
    x = rnd(rng, 4, 5, 6)
    a = gk.asarray(x)
    both(ops.reduce, x.sum(axis=1), a, "sum", 1, rtol=TOL, atol=TOL)
    both(ops.reduce, x.max(axis=2, keepdims=True), a, "max", 2, True)
    close(ops.reduce(a, "var_unbiased", 0), x.var(axis=0, ddof=1), rtol=1e-4, atol=1e-5)
    close(ops.reduce(a, "argmin", -1), x.argmin(-1))
    with pytest.raises(gk.InvalidArgumentError, match="op must be one of"):
        ops.reduce(a, "median")
    both(ops.cumsum, np.cumsum(x, axis=1), a, 1, rtol=TOL, atol=TOL)
    ints = rng.integers(-50, 50, (3, 7)).astype(np.int64)
    np.testing.assert_array_equal(ops.cumsum(gk.asarray(ints), -1).to_numpy(), np.cumsum(ints, -1))


def test_topk(ctx, rng):
    x = rnd(rng, 5, 40)
    x[0, 3] = x[0, 7]  # a tie: the lower index first
    v, i = ops.topk(gk.asarray(x), 6)
    order = np.argsort(-x, axis=-1, kind="stable")[:, :6]
    np.testing.assert_array_equal(i.to_numpy(), order)
    np.testing.assert_array_equal(v.to_numpy(), np.take_along_axis(x, order, -1))
    vo, io = gk.empty((5, 6)), gk.empty((5, 6), "int64")
    ops.topk(gk.asarray(x), 6, out=(vo, io))
    np.testing.assert_array_equal(io.to_numpy(), order)


def test_sample(ctx, rng):
    logits = rnd(rng, 8, 100, scale=3)
    lg = gk.asarray(logits)
    np.testing.assert_array_equal(ops.sample(lg).to_numpy(), logits.argmax(-1))
    t1 = ops.sample(lg, temperature=0.8, top_k=5, seed=7, step=3).to_numpy()
    t2 = ops.sample(lg, temperature=0.8, top_k=5, seed=7, step=3).to_numpy()
    np.testing.assert_array_equal(t1, t2)  # deterministic
    top5 = np.argsort(-logits, -1)[:, :5]
    assert all(t1[r] in top5[r] for r in range(8))
    np.testing.assert_array_equal(ops.sample(lg, temperature=1.0, top_k=1, seed=3).to_numpy(), logits.argmax(-1))
    # the repetition penalty, greedy: HF's rule on the distinct previous tokens
    prev = rng.integers(-1, 100, (8, 6)).astype(np.int32)
    pen = logits.astype(np.float64).copy()
    for r in range(8):
        for t in set(prev[r].tolist()) - {-1}:
            pen[r, t] = pen[r, t] / 1.3 if pen[r, t] > 0 else pen[r, t] * 1.3
    got = ops.sample(lg, repetition_penalty=1.3, prev=gk.asarray(prev)).to_numpy()
    np.testing.assert_array_equal(got, pen.argmax(-1))
    draws = [int(ops.sample(lg[:1], temperature=1.0, seed=s).item()) for s in range(40)]
    assert len(set(draws)) > 1  # temperature sampling varies with the seed


def test_philox():
    assert ops.philox4x32_10([0, 0, 0, 0], [0, 0]) == (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)
    assert ops.philox4x32_10([0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344], [0xa4093822, 0x299f31d0]) == (
        0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1)


# ---- matmul family
def test_matmul_epilogue(ctx, rng):
    x, w = rnd(rng, 9, 16), rnd(rng, 16, 12)
    bias, res = rnd(rng, 12), rnd(rng, 9, 12)
    a, b = gk.asarray(x), gk.asarray(w)
    xd, wd = x.astype(np.float64), w.astype(np.float64)
    base = xd @ wd
    close(ops.matmul(a, b, alpha=0.5), 0.5 * base, rtol=TOL, atol=TOL)
    close(ops.matmul(a, b, bias=bias), base + bias, rtol=TOL, atol=TOL)
    relu = np.maximum(base + bias, 0) + res
    close(ops.matmul(a, b, bias=bias, activation="relu", residual=res), relu, rtol=TOL, atol=TOL)
    out = gk.asarray(res)
    ops.matmul(a, b, out=out, beta=1.0)
    close(out, base + res, rtol=TOL, atol=TOL)
    o32 = ops.matmul(a.astype("bf16"), b.astype("bf16"), out_dtype="float32")
    assert o32.dtype is gk.float32
    ops.matmul(a, b, use_tf32=True)  # allowed for f32 (exact on the CPU backend)
    with pytest.raises(gk.DtypeError, match="float32"):
        ops.matmul(a.astype("float16"), b.astype("float16"), use_tf32=True)
    with pytest.raises(gk.ShapeError):
        ops.matmul(a, a)
    with pytest.raises(gk.ShapeError, match="at least 1 dim"):
        ops.matmul(gk.zeros(()), a)
    # batched with a shared 2-d operand
    bx = rnd(rng, 3, 5, 16)
    close(ops.matmul(gk.asarray(bx), b), bx.astype(np.float64) @ wd, rtol=TOL, atol=TOL)
    # the transposed weight layout (NT) without a copy
    wt = rnd(rng, 12, 16)
    close(ops.matmul(a, gk.asarray(wt).T), xd @ wt.T.astype(np.float64), rtol=TOL, atol=TOL)


def test_linear(ctx, rng):
    x, w, b = rnd(rng, 2, 3, 8), rnd(rng, 5, 8), rnd(rng, 5)
    want = x.astype(np.float64) @ w.T + b
    got = ops.linear(gk.asarray(x), gk.asarray(w), gk.asarray(b))
    assert got.shape == (2, 3, 5)
    close(got, want, rtol=TOL, atol=TOL)
    close(ops.linear(gk.asarray(x), gk.asarray(w), activation="silu"),
          (lambda z: z / (1 + np.exp(-z)))(x.astype(np.float64) @ w.T), rtol=TOL, atol=TOL)
    # gated: [gate; up] in one weight, few rows (GEMV) and many (scratch)
    for rows in (3, 40):
        xg, wg, bg = rnd(rng, rows, 8), rnd(rng, 10, 8), rnd(rng, 10)
        p = xg.astype(np.float64) @ wg.T + bg
        gate, up = p[:, :5], p[:, 5:]
        close(ops.linear_glu(gk.asarray(xg), gk.asarray(wg), gk.asarray(bg)), gate / (1 + np.exp(-gate)) * up,
              rtol=TOL, atol=TOL)


# ---- norms and positions
def test_norms(ctx, rng):
    x, w, b = rnd(rng, 4, 32), rnd(rng, 32), rnd(rng, 32)
    xd = x.astype(np.float64)
    ln = (xd - xd.mean(-1, keepdims=True)) / np.sqrt(xd.var(-1, keepdims=True) + 1e-5) * w + b
    both(ops.layer_norm, ln, gk.asarray(x), gk.asarray(w), gk.asarray(b), rtol=NTOL, atol=NTOL)
    rms = xd / np.sqrt((xd ** 2).mean(-1, keepdims=True) + 1e-6) * w
    both(ops.rms_norm, rms, gk.asarray(x), gk.asarray(w), rtol=NTOL, atol=NTOL)
    close(ops.rms_norm(gk.asarray(x)), xd / np.sqrt((xd ** 2).mean(-1, keepdims=True) + 1e-6), rtol=NTOL, atol=NTOL)
    r = rnd(rng, 4, 32)
    out, h = ops.add_rms_norm(gk.asarray(x), gk.asarray(r), gk.asarray(w))
    hd = xd + r
    close(h, hd)
    close(out, hd / np.sqrt((hd ** 2).mean(-1, keepdims=True) + 1e-6) * w, rtol=NTOL, atol=NTOL)
    close(ops.decode_rms_norm(gk.asarray(x), gk.asarray(w)), rms, rtol=NTOL, atol=NTOL)
    # group / instance norm and AdaIN on [B, C, T]
    xc = rnd(rng, 2, 6, 10)
    wc, bc = rnd(rng, 6), rnd(rng, 6)
    g = xc.reshape(2, 3, 2, 10).astype(np.float64)
    gn = ((g - g.mean((2, 3), keepdims=True)) / np.sqrt(g.var((2, 3), keepdims=True) + 1e-5)).reshape(2, 6, 10)
    both(ops.group_norm, gn * wc[:, None] + bc[:, None], gk.asarray(xc), 3, gk.asarray(wc), gk.asarray(bc),
         rtol=NTOL, atol=NTOL)
    xcd = xc.astype(np.float64)
    inn = (xcd - xcd.mean(-1, keepdims=True)) / np.sqrt(xcd.var(-1, keepdims=True) + 1e-5)
    both(ops.instance_norm, inn, gk.asarray(xc), rtol=NTOL, atol=NTOL)
    sc, sh = rnd(rng, 2, 6), rnd(rng, 2, 6)
    both(ops.adain, sc[:, :, None] * inn + sh[:, :, None], gk.asarray(xc), gk.asarray(sc), gk.asarray(sh), rtol=1e-5,
         atol=1e-5)


def rope_ref(x, pos, rd, theta, layout):
    inv = 1.0 / theta ** (np.arange(0, rd, 2, dtype=np.float64) / rd)
    ang = pos[:, None].astype(np.float64) * inv  # [T, rd/2]
    c, s = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    out = x.astype(np.float64).copy()
    if layout == "neox":
        x1, x2 = out[..., : rd // 2].copy(), out[..., rd // 2: rd].copy()
        out[..., : rd // 2] = x1 * c - x2 * s
        out[..., rd // 2: rd] = x2 * c + x1 * s
    else:
        x1, x2 = out[..., 0:rd:2].copy(), out[..., 1:rd:2].copy()
        out[..., 0:rd:2] = x1 * c - x2 * s
        out[..., 1:rd:2] = x2 * c + x1 * s
    return out


@pytest.mark.parametrize("layout", ["neox", "gptj"])
def test_rope(ctx, rng, layout):
    T, H, D, rd = 5, 3, 16, 12
    x = rnd(rng, T, H, D)
    pos = rng.integers(0, 50, T).astype(np.int32)
    cos, sin = ops.rope_table(64, rd, theta=10000.0)
    assert cos.shape == (64, rd // 2)
    want = rope_ref(x, pos, rd, 10000.0, layout)
    both(ops.rope, want, gk.asarray(x), gk.asarray(pos), cos, sin, layout=layout, rtol=TOL, atol=TOL)
    inv, scaling = ops.rope_inv_freq(rd, theta=500000.0)
    np.testing.assert_allclose(inv, 1.0 / 500000.0 ** (np.arange(0, rd, 2) / rd), rtol=1e-6)
    assert scaling == 1.0
    lin, _ = ops.rope_inv_freq(rd, theta=10000.0, rope_type="linear", factor=4.0)
    np.testing.assert_allclose(lin, 1.0 / 10000.0 ** (np.arange(0, rd, 2) / rd) / 4.0, rtol=1e-6)
    a = gk.asarray(x)
    ops.rope(a, gk.asarray(pos), cos, sin, out=a, layout=layout)  # in place
    close(a, want, rtol=TOL, atol=TOL)


def test_sinusoids():
    got = ops.sinusoids(7, 8)
    inc = math.log(10000) / (8 // 2 - 1)
    inv = np.exp(-inc * np.arange(4))
    t = np.arange(7)[:, None] * inv[None, :]
    np.testing.assert_allclose(got, np.concatenate([np.sin(t), np.cos(t)], 1), rtol=1e-5, atol=1e-6)


# ---- layout
def test_layout_ops(ctx, rng):
    x = rnd(rng, 3, 4, 5)
    a = gk.asarray(x)
    both(ops.permute_copy, x.transpose(2, 0, 1), a, (2, 0, 1))
    p = ops.permute(a, (1, 0, 2))
    np.testing.assert_array_equal(p.to_numpy(), x.transpose(1, 0, 2))
    idx = np.array([3, 0, 3], np.int64)
    both(ops.index_select, x[:, idx], a, 1, gk.asarray(idx))
    table, ids = rnd(rng, 10, 4), rng.integers(0, 10, (2, 3)).astype(np.int32)
    both(ops.embedding, table[ids], gk.asarray(table), gk.asarray(ids))
    both(ops.repeat, np.tile(x, (2, 1, 1, 3)), a, (2, 1, 1, 3))
    both(ops.repeat_interleave, np.repeat(x, 2, axis=1), a, 2, 1)
    for mode, npmode in (("constant", "constant"), ("reflect", "reflect"), ("replicate", "edge")):
        want = np.pad(x, ((0, 0), (0, 0), (2, 1)), mode=npmode)
        both(ops.pad, want, a, (2, 1), mode=mode)
    want = np.pad(x, ((0, 0), (1, 2), (2, 1)), constant_values=1.5)
    close(ops.pad(a, (2, 1, 1, 2), value=1.5), want)
    y = rnd(rng, 3, 2, 5)
    c = ops.concat([a, gk.asarray(y)], axis=1)
    np.testing.assert_array_equal(c.to_numpy(), np.concatenate([x, y], 1))
    o = gk.empty((3, 6, 5))
    ops.concat([a, gk.asarray(y)], 1, out=o)
    np.testing.assert_array_equal(o.to_numpy(), np.concatenate([x, y], 1))
    np.testing.assert_array_equal(ops.stack([a, a], 1).to_numpy(), np.stack([x, x], 1))
    parts = ops.split(a, [1, 3], axis=1)
    np.testing.assert_array_equal(parts[1].to_numpy(), x[:, 1:4])
    assert parts[0].is_view
    eq = ops.split(a, 2, axis=2)
    assert [p.shape[2] for p in eq] == [2, 2, 1]
    both(ops.slice_copy, x[:, 1:4:2], a, 1, 1, 4, 2)


def interp_linear_1d(x, out_w):
    in_w = x.shape[-1]
    scale = in_w / out_w
    src = np.maximum((np.arange(out_w) + 0.5) * scale - 0.5, 0)
    i0 = np.floor(src).astype(int)
    i1 = np.minimum(i0 + 1, in_w - 1)
    lam = src - i0
    return x[..., i0] * (1 - lam) + x[..., i1] * lam


def test_interpolate(ctx, rng):
    x = rnd(rng, 2, 3, 7)
    close(ops.interpolate(gk.asarray(x), size=12, mode="linear"), interp_linear_1d(x.astype(np.float64), 12),
          rtol=1e-5, atol=1e-6)
    near = x[..., np.minimum(np.floor(np.arange(12) * 7 / 12).astype(int), 6)]
    close(ops.interpolate(gk.asarray(x), size=12, mode="nearest"), near)
    x2 = rnd(rng, 1, 2, 4, 5)
    want = interp_linear_1d(interp_linear_1d(x2.astype(np.float64), 10).swapaxes(-1, -2), 8).swapaxes(-1, -2)
    got = ops.interpolate(gk.asarray(x2), size=(8, 10), mode="bilinear")
    assert got.shape == (1, 2, 8, 10)
    close(got, want, rtol=1e-5, atol=1e-6)
    o = gk.empty((2, 3, 14))
    ops.interpolate(gk.asarray(x), mode="nearest", out=o)
    close(o, x[..., np.floor(np.arange(14) * 7 / 14).astype(int)])


# ---- signal
def conv1d_ref(x, w, b, stride, pad, dil, groups):
    B, Cin, L = x.shape
    Cout, Cg, K = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad)))
    Lout = (L + 2 * pad - dil * (K - 1) - 1) // stride + 1
    out = np.zeros((B, Cout, Lout))
    og = Cout // groups
    for o in range(Cout):
        g = o // og
        for t in range(Lout):
            seg = xp[:, g * Cg:(g + 1) * Cg, t * stride: t * stride + dil * (K - 1) + 1: dil]
            out[:, o, t] = (seg * w[o]).sum((1, 2))
    return out + (b[None, :, None] if b is not None else 0)


def test_conv(ctx, rng):
    x, w, b = rnd(rng, 2, 4, 20), rnd(rng, 6, 2, 3), rnd(rng, 6)
    want = conv1d_ref(x.astype(np.float64), w, b, 2, 1, 2, 2)
    both(ops.conv1d, want, gk.asarray(x), gk.asarray(w), gk.asarray(b), stride=2, padding=1, dilation=2, groups=2,
         rtol=TOL, atol=TOL)
    # use_tf32 (gk_conv1d_ex): stride 1, one group, 64 outputs: TF32 on a GPU (relative ~1e-3), f32 on the CPU
    x2, w2, b2 = rnd(rng, 1, 16, 40), rnd(rng, 64, 16, 3), rnd(rng, 64)
    want2 = conv1d_ref(x2.astype(np.float64), w2, b2, 1, 1, 1, 1)
    for kw in ({}, {"out": gk.empty((1, 64, 40), "float32")}):
        got = ops.conv1d(gk.asarray(x2), gk.asarray(w2), gk.asarray(b2), padding=1, use_tf32=True, **kw).to_numpy()
        err = np.linalg.norm(got - want2) / np.linalg.norm(want2)  # TF32: 10-bit mantissas, ~7e-4 relative (norm-wise)
        assert err < 2e-3, err
    with pytest.raises(gk.DtypeError, match="use_tf32=True applies to float32"):
        ops.conv1d(gk.asarray(x2).astype("float16"), gk.asarray(w2).astype("float16"), use_tf32=True)
    with pytest.raises(gk.InvalidArgumentError, match="stride -1"):
        ops.conv1d(gk.asarray(x2), gk.asarray(w2), stride=-1)
    # transposed conv: the adjoint of conv1d (no groups, dilation 1)
    xt, wt = rnd(rng, 1, 3, 6), rnd(rng, 3, 4, 5)
    stride, pad, opad = 2, 1, 1
    Lout = (6 - 1) * stride - 2 * pad + (5 - 1) + opad + 1
    full = np.zeros((1, 4, (6 - 1) * stride + 5 + opad))
    for t in range(6):
        full[:, :, t * stride: t * stride + 5] += np.einsum("bc,cok->bok", xt[:, :, t], wt)
    want = full[:, :, pad: pad + Lout]
    both(ops.conv_transpose1d, want, gk.asarray(xt), gk.asarray(wt), None, stride=stride, padding=pad,
         output_padding=opad, rtol=TOL, atol=TOL)
    # conv2d
    x2, w2 = rnd(rng, 1, 2, 6, 7), rnd(rng, 3, 2, 3, 2)
    xp = np.pad(x2, ((0, 0), (0, 0), (1, 1), (0, 0))).astype(np.float64)
    Ho, Wo = (6 + 2 - 3) // 1 + 1, (7 - 2) // 2 + 1
    want = np.zeros((1, 3, Ho, Wo))
    for i in range(Ho):
        for j in range(Wo):
            want[:, :, i, j] = np.einsum("bckl,ockl->bo", xp[:, :, i:i + 3, j * 2:j * 2 + 2], w2)
    both(ops.conv2d, want, gk.asarray(x2), gk.asarray(w2), stride=(1, 2), padding=(1, 0), rtol=TOL, atol=TOL)
    v, g = rnd(rng, 4, 3, 5), rnd(rng, 4)
    norm = np.sqrt((v.astype(np.float64) ** 2).sum((1, 2), keepdims=True))
    both(ops.weight_norm, g[:, None, None] * v / norm, gk.asarray(v), gk.asarray(g), rtol=1e-5, atol=1e-6)


def test_fft(ctx, rng):
    for n in (8, 12, 7, 400):
        z = rnd(rng, 3, n) + 1j * rnd(rng, 3, n)
        zr = np.stack([z.real, z.imag], -1).astype(F32)
        f = ops.fft(gk.asarray(zr)).to_numpy()
        np.testing.assert_allclose(f[..., 0] + 1j * f[..., 1], np.fft.fft(z), rtol=1e-4, atol=1e-4 * n)
        fi = ops.fft(gk.asarray(zr), inverse=True).to_numpy()
        np.testing.assert_allclose(fi[..., 0] + 1j * fi[..., 1], np.fft.ifft(z), rtol=1e-4, atol=1e-5)
        x = rnd(rng, 2, n)
        r = ops.rfft(gk.asarray(x)).to_numpy()
        np.testing.assert_allclose(r[..., 0] + 1j * r[..., 1], np.fft.rfft(x), rtol=1e-4, atol=1e-4 * n)
        back = ops.irfft(gk.asarray(r), n=n)
        close(back, x, rtol=1e-4, atol=1e-4)
    m, p = np.abs(rnd(rng, 6)), rnd(rng, 6)
    zp = ops.complex_polar(gk.asarray(m), gk.asarray(p)).to_numpy()
    np.testing.assert_allclose(zp[..., 0] + 1j * zp[..., 1], m * np.exp(1j * p), rtol=1e-5, atol=1e-6)
    close(ops.complex_abs(gk.asarray(zp)), m, rtol=1e-5, atol=1e-6)
    close(ops.complex_angle(gk.asarray(zp)), np.angle(m * np.exp(1j * p)), rtol=TOL, atol=TOL)


def hann(n):
    return 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n) / n)


def stft_ref(x, n_fft, hop):
    xp = np.pad(x.astype(np.float64), (n_fft // 2, n_fft // 2), mode="reflect")
    frames = 1 + (len(xp) - n_fft) // hop
    fr = np.stack([xp[i * hop: i * hop + n_fft] * hann(n_fft) for i in range(frames)])
    return np.fft.rfft(fr, axis=-1).T  # [freq, frames]


def test_stft_istft(ctx, rng):
    x = rnd(rng, 1000)
    s = ops.stft(gk.asarray(x), 64, 16).to_numpy()
    want = stft_ref(x, 64, 16)
    assert s.shape == want.shape + (2,)
    np.testing.assert_allclose(s[..., 0] + 1j * s[..., 1], want, rtol=1e-4, atol=1e-4)
    back = ops.istft(gk.asarray(s), 64, 16, length=1000)
    close(back, x, rtol=1e-4, atol=1e-4)
    sb = ops.stft(gk.asarray(np.stack([x, x[::-1].copy()])), 64, 16)
    assert sb.shape == (2,) + s.shape


def slaney_mel_filters(n_mels, n_fft, sr, fmin, fmax):
    def hz2mel(f):
        f = np.asarray(f, np.float64)
        m = f / (200.0 / 3)
        return np.where(f >= 1000, 15.0 + np.log(np.maximum(f, 1e-10) / 1000) / (np.log(6.4) / 27), m)

    def mel2hz(m):
        m = np.asarray(m, np.float64)
        return np.where(m >= 15.0, 1000 * np.exp(np.log(6.4) / 27 * (m - 15.0)), m * 200.0 / 3)
    n_freqs = n_fft // 2 + 1
    fft_f = np.linspace(0, sr // 2, n_freqs)
    filt_f = mel2hz(np.linspace(hz2mel(fmin), hz2mel(fmax), n_mels + 2))
    diff = np.diff(filt_f)
    slopes = filt_f[None, :] - fft_f[:, None]
    down = -slopes[:, :-2] / diff[:-1]
    up = slopes[:, 2:] / diff[1:]
    fb = np.maximum(0, np.minimum(down, up))
    fb *= 2.0 / (filt_f[2:n_mels + 2] - filt_f[:n_mels])
    return fb.T  # [n_mels, n_freqs]


def test_mel_and_whisper_log_mel(ctx, rng):
    fb = ops.mel_filters(80, 400, 16000, 0, 8000, norm="slaney")
    want = slaney_mel_filters(80, 400, 16000, 0, 8000)
    close(fb, want, rtol=1e-4, atol=1e-7)
    audio = rnd(rng, 8000, scale=0.1)
    mel = ops.whisper_log_mel(gk.asarray(audio), fb).to_numpy()
    spec = stft_ref(audio, 400, 160)[:, :-1]
    lm = np.log10(np.maximum(want @ (np.abs(spec) ** 2), 1e-10))
    lm = np.maximum(lm, lm.max() - 8)
    ref = (lm + 4) / 4
    assert mel.shape == ref.shape == (80, 50)
    np.testing.assert_allclose(mel, ref, rtol=1e-3, atol=1e-3)


def lstm_ref(x, wih, whh, bih, bhh):
    D, H4, _ = wih.shape
    H = H4 // 4
    outs = []
    for d in range(D):
        h, c = np.zeros(H), np.zeros(H)
        seq = range(len(x)) if d == 0 else range(len(x) - 1, -1, -1)
        res = np.zeros((len(x), H))
        for t in seq:
            g = wih[d] @ x[t] + whh[d] @ h + bih[d] + bhh[d]
            i, f, gg, o = 1 / (1 + np.exp(-g[:H])), 1 / (1 + np.exp(-g[H:2 * H])), np.tanh(g[2 * H:3 * H]), 1 / (
                1 + np.exp(-g[3 * H:]))
            c = f * c + i * gg
            h = o * np.tanh(c)
            res[t] = h
        outs.append(res)
    return np.concatenate(outs, -1)


def test_lstm(ctx, rng):
    T, I, H = 7, 5, 4
    for D in (1, 2):
        x, wih, whh = rnd(rng, T, I), rnd(rng, D, 4 * H, I, scale=0.5), rnd(rng, D, 4 * H, H, scale=0.5)
        bih, bhh = rnd(rng, D, 4 * H), rnd(rng, D, 4 * H)
        want = lstm_ref(x.astype(np.float64), wih, whh, bih, bhh)
        got = ops.lstm(gk.asarray(x), gk.asarray(wih), gk.asarray(whh), gk.asarray(bih), gk.asarray(bhh))
        close(got, want, rtol=1e-4, atol=1e-5)
        out, hn, cn = ops.lstm(gk.asarray(x), gk.asarray(wih), gk.asarray(whh), gk.asarray(bih), gk.asarray(bhh),
                               return_state=True)
        close(out, want, rtol=1e-4, atol=1e-5)
        assert hn.shape == (D, H) and cn.shape == (D, H)
        close(hn[0], want[-1, :H], rtol=1e-4, atol=1e-5)


# ---- attention and the LLM ops
def attn_ref(q, k, v, scale, causal, mask=None, q_lens=None, kv_lens=None):
    B, Sq, Hq, D = q.shape
    Skv, Hkv = k.shape[1], k.shape[2]
    G = Hq // Hkv
    out = np.zeros(q.shape)
    for b in range(B):
        ql = Sq if q_lens is None else q_lens[b]
        kl = Skv if kv_lens is None else kv_lens[b]
        for h in range(Hq):
            for i in range(ql):
                jend = kl
                if causal:
                    jend = max(min(jend, i + (kl - ql) + 1), 0)
                if jend == 0:
                    continue
                s = k[b, :jend, h // G] @ q[b, i, h] * scale
                if mask is not None:
                    s = s + (mask[i, :jend] if mask.ndim == 2 else mask[b, i, :jend])
                if np.all(np.isneginf(s)):
                    continue
                w = np.exp(s - s.max())
                out[b, i, h] = (w / w.sum()) @ v[b, :jend, h // G]
    return out


def rel_err(got, want):
    got = (got.astype("float32") if isinstance(got, gk.GPUArray) else got)
    got = got.to_numpy() if isinstance(got, gk.GPUArray) else got
    return float(np.linalg.norm(got.astype(np.float64) - want) / np.linalg.norm(want))


@pytest.mark.parametrize("dt", ["float32", "bfloat16"])
def test_attention(ctx, rng, dt):
    B, Sq, Skv, Hq, Hkv, D = 2, 5, 9, 4, 2, 16
    q, k, v = rnd(rng, B, Sq, Hq, D), rnd(rng, B, Skv, Hkv, D), rnd(rng, B, Skv, Hkv, D)
    ga, gb, gc = gk.asarray(q, dtype=dt), gk.asarray(k, dtype=dt), gk.asarray(v, dtype=dt)
    qd, kd, vd = (t.astype("float64").to_numpy() for t in (ga, gb, gc))
    tol = 2e-5 if dt == "float32" else 1e-2  # ||out - ref|| / ||ref||, as tests/test_attention.c
    for causal in (False, True):
        want = attn_ref(qd, kd, vd, 1 / math.sqrt(D), causal)
        assert rel_err(ops.attention(ga, gb, gc, causal=causal), want) <= tol
    assert rel_err(ops.attention(ga, gb, gc, scale=0.3), attn_ref(qd, kd, vd, 0.3, False)) <= tol
    if dt == "float32":
        mask = rnd(rng, Sq, Skv)
        mask[:, 0] = -np.inf
        assert rel_err(ops.attention(ga, gb, gc, mask=mask), attn_ref(qd, kd, vd, 1 / math.sqrt(D), False, mask)) <= tol
        ql, kl = np.array([3, 5], np.int32), np.array([6, 9], np.int32)
        want = attn_ref(qd, kd, vd, 1 / math.sqrt(D), True, q_lens=ql, kv_lens=kl)
        got = ops.attention(ga, gb, gc, causal=True, q_lens=ql, kv_lens=kl).to_numpy()
        assert rel_err(got, want) <= tol and np.all(got[0, 3:] == 0)  # rows past q_len are zeros
        out = gk.empty(ga.shape)
        assert ops.attention(ga, gb, gc, out=out) is out


def test_kv_write_and_rope_kv_write(ctx, rng):
    B, S, H, D, T = 2, 8, 3, 4, 2
    cache = gk.zeros((B, S, H, D))
    x = rnd(rng, B, T, H, D)
    start = np.array([1, 5], np.int32)
    ops.kv_write(cache, gk.asarray(x), gk.asarray(start))
    want = np.zeros((B, S, H, D), F32)
    for b in range(B):
        want[b, start[b]:start[b] + T] = x[b]
    np.testing.assert_array_equal(cache.to_numpy(), want)
    # one decode token: RoPE on q and k heads in place, k / v into the cache
    Hq, Hkv, rd = 4, 2, 8
    xr = rnd(rng, B, Hq + 2 * Hkv, D * 2)
    pos = np.array([2, 6], np.int32)
    cos, sin = ops.rope_table(16, rd)
    c2 = gk.zeros((B, S, 2 * Hkv, D * 2))
    a = gk.asarray(xr)
    ops.rope_kv_write(a, c2, gk.asarray(pos), cos, sin, rd, Hq)
    roped = xr.astype(np.float64).copy()
    roped[:, :Hq + Hkv] = rope_ref(xr[:, :Hq + Hkv], pos, rd, 10000.0, "neox")
    close(a, roped, rtol=TOL, atol=TOL)
    cw = np.zeros((B, S, 2 * Hkv, D * 2))
    for b in range(B):
        cw[b, pos[b]] = roped[b, Hq:]
    close(c2, cw, rtol=TOL, atol=TOL)


def test_generated_wrappers_are_documented():
    for name in ops.__all__:
        f = getattr(ops, name)
        assert callable(f) and f.__doc__, name
