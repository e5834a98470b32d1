"""GPUArray: constructors, properties, dtypes, views and indexing, arithmetic
with broadcasting, comparisons, reductions, host round trips, against NumPy."""
import numpy as np
import pytest

import gpukit as gk
from conftest import close

FLOATS = ["float32", "float64", "float16", "bfloat16"]


def bf16_bits(x):
    """float32 -> bfloat16 bit patterns, round to nearest even (NaN kept a NaN)."""
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    nan = np.isnan(np.asarray(x, np.float32))
    return np.where(nan, (b >> 16).astype(np.uint16) | 0x40, r)


def bf16_values(bits):
    return (np.asarray(bits, np.uint16).astype(np.uint32) << 16).view(np.float32)


def host(dt, shape, rng):
    """Random host data of a gpukit dtype (as NumPy values), and what it uploads as."""
    d = gk.dtype(dt)
    if d.is_float:
        x = rng.standard_normal(shape).astype(np.float32)
    elif d.name == "uint8":
        x = rng.integers(0, 256, shape).astype(np.uint8)
    elif d.name == "int8":
        x = rng.integers(-128, 128, shape).astype(np.int8)
    else:
        x = rng.integers(-1000, 1000, shape).astype(d.numpy_dtype)
    if d.name in ("float32", "float64", "float16"):
        x = x.astype(d.numpy_dtype)
    return x


# ---- constructors and properties
def test_constructors(ctx):
    for dt in gk.all_dtypes:
        z = gk.zeros((2, 3), dt)
        assert z.shape == (2, 3) and z.dtype == dt and z.ndim == 2 and z.size == 6
        assert z.nbytes == 6 * dt.itemsize and z.itemsize == dt.itemsize
        assert z.ctx is ctx
        o = gk.ones(4, dt)
        vals = o.astype("float64").to_numpy()
        assert np.all(vals == 1.0), (dt, vals)
    f = gk.full((3,), 2.5)
    assert f.dtype == gk.float32 and np.all(f.to_numpy() == 2.5)
    i = gk.full((2,), 7)
    assert i.dtype == gk.int64 and i.to_numpy().tolist() == [7, 7]
    big = gk.full((2,), 2 ** 60 + 3, dtype="int64")
    assert big.to_numpy().tolist() == [2 ** 60 + 3] * 2
    e = gk.empty((0, 5))
    assert e.shape == (0, 5) and e.size == 0 and e.to_numpy().shape == (0, 5)
    s = gk.zeros(())
    assert s.shape == () and s.ndim == 0 and s.size == 1
    assert gk.arange(5).to_numpy().tolist() == [0, 1, 2, 3, 4]
    assert gk.arange(1, 2, 0.25).dtype == gk.float32
    np.testing.assert_allclose(gk.arange(1, 2, 0.25).to_numpy(), [1, 1.25, 1.5, 1.75])
    assert gk.arange(3, dtype="bf16").astype("float32").to_numpy().tolist() == [0, 1, 2]
    like = gk.zeros_like(f)
    assert like.shape == f.shape and like.dtype == f.dtype
    assert gk.ones_like(f, "int32").dtype == gk.int32
    assert gk.full_like(f, 3).to_numpy().tolist() == [3, 3, 3]


def test_repr_and_len(ctx):
    a = gk.zeros((2, 3))
    r = repr(a)
    assert "GPUArray" in r and "(2, 3)" in r and "float32" in r
    assert len(a) == 2
    with pytest.raises(TypeError):
        len(gk.zeros(()))
    big = gk.zeros((100, 100))
    assert "shape=(100, 100)" in repr(big)


def test_dtype_objects():
    assert repr(gk.float32) == "DataType(float32)"
    assert gk.dtype("f32") is gk.float32 and gk.dtype("bf16") is gk.bfloat16 and gk.dtype(np.int8) is gk.int8
    assert gk.dtype("float8_e4m3fn") is gk.float8_e4m3fn and gk.dtype("f8e5m2") is gk.float8_e5m2
    assert gk.float32 == np.float32 and gk.float32 == "float32" and gk.int64 != gk.int32
    assert gk.dtype(float) is gk.float32 and gk.dtype(int) is gk.int64 and gk.dtype(bool) is gk.uint8
    with pytest.raises(gk.DtypeError, match="Unsupported dtype string"):
        gk.dtype("float128x")
    with pytest.raises(gk.DtypeError, match="Unsupported dtype"):
        gk.dtype(np.complex64)
    assert gk.dtypes.from_numpy_dtype(np.dtype("float16")) is gk.float16
    assert gk.dtypes.from_string("int32") is gk.int32
    assert len(gk.all_dtypes) == 10
    assert gk.result_type(gk.float16, gk.bfloat16) is gk.float32
    assert gk.result_type(gk.int32, gk.float16) is gk.float16
    assert gk.result_type(gk.int8, gk.int64) is gk.int64


@pytest.mark.parametrize("dt", [d.name for d in gk.all_dtypes])
def test_round_trip_every_dtype(ctx, rng, dt):
    d = gk.dtype(dt)
    x = host(dt, (3, 5), rng)
    if d.name == "bfloat16":
        bits = bf16_bits(x)
        a = gk.from_numpy(bits, dtype="bfloat16")  # bit patterns in, bit patterns out
        assert a.dtype is gk.bfloat16
        if d.is_numpy_native:  # ml_dtypes present
            np.testing.assert_array_equal(a.to_numpy().view(np.uint16), bits)
        else:
            np.testing.assert_array_equal(a.to_numpy(), bits)
        # values converted on the device round to nearest even like our host rounding
        b = gk.from_numpy(x, dtype="bfloat16")
        np.testing.assert_array_equal(b.astype("float32").to_numpy(), bf16_values(bits))
    elif d.name.startswith("float8"):
        a = gk.from_numpy(x, dtype=dt)
        back = a.astype("float32").to_numpy()
        lim = 448.0 if d.name == "float8_e4m3fn" else 57344.0
        assert np.all(np.abs(back) <= lim)
        rel = np.abs(back - x) / np.maximum(np.abs(x), 2.0 ** -6)
        assert rel.max() <= (0.0625 if d.name == "float8_e4m3fn" else 0.125) + 1e-6, rel.max()
        bits = a.to_numpy() if not d.is_numpy_native else a.to_numpy().view(np.uint8)
        a2 = gk.from_numpy(bits.view(np.uint8), dtype=dt)
        np.testing.assert_array_equal(a2.astype("float32").to_numpy(), back)
    else:
        a = gk.from_numpy(x)
        assert a.dtype is d
        np.testing.assert_array_equal(a.to_numpy(), x)
        np.testing.assert_array_equal(np.asarray(a), x)
        assert a.tolist() == x.tolist()


def test_from_numpy_conversions(ctx, rng):
    x = rng.standard_normal((4, 4))
    a = gk.asarray(x, dtype="float32")
    np.testing.assert_array_equal(a.to_numpy(), x.astype(np.float32))
    b = gk.asarray(np.array([True, False, True]))
    assert b.dtype is gk.uint8 and b.to_numpy().tolist() == [1, 0, 1]
    c = gk.asarray(np.array([1, 2, 40000], np.uint16))  # no uint16 in gpukit: widened
    assert c.dtype is gk.int32 and c.to_numpy().tolist() == [1, 2, 40000]
    d = gk.asarray([[1.5, 2.5], [3.5, 4.5]])
    assert d.dtype is gk.float64 and d.shape == (2, 2)
    # non-contiguous NumPy input is made contiguous on the host
    base = rng.standard_normal((6, 8)).astype(np.float32)
    e = gk.asarray(base[::2, 1::3])
    np.testing.assert_array_equal(e.to_numpy(), base[::2, 1::3])
    f = gk.asarray(base.T)
    np.testing.assert_array_equal(f.to_numpy(), base.T)
    # float -> int on the device truncates and saturates (gk_convert's rules)
    g = gk.asarray(np.array([1.9, -1.9, 300.0, -300.0, np.nan], np.float32), dtype="int8")
    assert g.to_numpy().tolist() == [1, -1, 127, -128, 0]
    big_endian = np.arange(4, dtype=">i4")
    assert gk.asarray(big_endian).to_numpy().tolist() == [0, 1, 2, 3]


def test_item_scalars(ctx):
    a = gk.asarray(np.array([3.5], np.float32))
    assert a.item() == 3.5 and float(a) == 3.5 and bool(a)
    assert int(gk.asarray(np.array([7], np.int32))) == 7
    assert gk.asarray(np.array([1.5], np.float32)).astype("bf16").item() == 1.5
    with pytest.raises(ValueError, match="ambiguous"):
        bool(gk.zeros(3))
    with pytest.raises(ValueError):
        gk.zeros(3).item()


# ---- views and indexing
def test_views_share_storage(ctx, rng):
    x = rng.standard_normal((4, 6)).astype(np.float32)
    a = gk.asarray(x)
    v = a[1:3, ::2]
    assert v.is_view and v.shape == (2, 3)
    v[...] = 0.0  # writes through the view
    x[1:3, ::2] = 0.0
    np.testing.assert_array_equal(a.to_numpy(), x)
    t = a.T
    assert t.shape == (6, 4) and t.strides == (4, 24)
    t[0, 0] = 5.0
    x[0, 0] = 5.0
    np.testing.assert_array_equal(a.to_numpy(), x)
    r = a.reshape(2, 12)
    assert r.is_view
    r[1, 11] = -1.0
    x.reshape(2, 12)[1, 11] = -1.0
    np.testing.assert_array_equal(a.to_numpy(), x)
    assert a.strides == (24, 4) and a.is_contiguous() and not t.is_contiguous()


def test_indexing_matches_numpy(ctx, rng):
    x = rng.standard_normal((5, 6, 7)).astype(np.float32)
    a = gk.asarray(x)
    keys = [
        0, -1, 4, (1, 2), (1, 2, 3), (-1, -2, -3), slice(1, 4), (slice(None), 2), (slice(None, None, 2), slice(1, None, 3)),
        (Ellipsis, 1), (1, Ellipsis), (None, 1), (slice(None), None, slice(2, 5)), (slice(4, 1, -1),),
        (slice(None, None, -2), 0), (Ellipsis,), (), (slice(10, 20),), (slice(-100, 100), -1, slice(None, None, 3)),
        (0, slice(None), None), [0, 2, 4], ([4, 0, 1],), (slice(None), [5, 0]), (1, [0, 3, 3]),
    ]
    for k in keys:
        np.testing.assert_array_equal(a[k].to_numpy(), x[k], err_msg=repr(k))
    mask = x > 0.3
    np.testing.assert_array_equal(a[mask].to_numpy(), x[mask])
    np.testing.assert_array_equal(a[gk.asarray(mask)].to_numpy(), x[mask])
    idx = gk.asarray(np.array([3, 1], np.int64))
    np.testing.assert_array_equal(a[idx].to_numpy(), x[[3, 1]])
    # random slices
    for _ in range(40):
        k = tuple(slice(int(rng.integers(-8, 8)), int(rng.integers(-8, 8)), int(rng.choice([1, 2, 3, -1, -2])))
                  for _ in range(int(rng.integers(1, 4))))
        np.testing.assert_array_equal(a[k].to_numpy(), x[k], err_msg=repr(k))


def test_index_errors(ctx):
    a = gk.zeros((3, 4))
    with pytest.raises(IndexError, match="out of bounds"):
        a[3]
    with pytest.raises(IndexError, match="out of bounds"):
        a[0, -5]
    with pytest.raises(IndexError, match="too many indices"):
        a[0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        a[..., ...]
    with pytest.raises(IndexError):
        a[1.5]
    with pytest.raises(IndexError, match="out of bounds"):
        a[[0, 7]]
    with pytest.raises(IndexError, match="only one integer-array"):
        a[[0, 1], [0, 1]]
    with pytest.raises(IndexError, match="assignment"):
        a[[0, 1]] = 1.0


def test_setitem(ctx, rng):
    x = rng.standard_normal((4, 5)).astype(np.float32)
    a = gk.asarray(x)
    a[0] = 1.5
    x[0] = 1.5
    a[1:3, 2:] = np.arange(3, dtype=np.float32)  # broadcast
    x[1:3, 2:] = np.arange(3)
    a[3] = gk.asarray(np.arange(5, dtype=np.float64))  # cast on copy
    x[3] = np.arange(5)
    a[:, 0] = [9, 8, 7, 6]
    x[:, 0] = [9, 8, 7, 6]
    np.testing.assert_array_equal(a.to_numpy(), x)
    i = gk.zeros(3, "int64")
    i[1] = 2 ** 60 + 1
    assert i.to_numpy().tolist() == [0, 2 ** 60 + 1, 0]


def test_reshape_transpose_copy(ctx, rng):
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    a = gk.asarray(x)
    np.testing.assert_array_equal(a.reshape(4, -1).to_numpy(), x.reshape(4, -1))
    np.testing.assert_array_equal(a.reshape((24,)).to_numpy(), x.reshape(24))
    np.testing.assert_array_equal(a.transpose(2, 0, 1).to_numpy(), x.transpose(2, 0, 1))
    np.testing.assert_array_equal(a.transpose((1, 0, 2)).to_numpy(), x.transpose(1, 0, 2))
    np.testing.assert_array_equal(a.T.to_numpy(), x.T)
    np.testing.assert_array_equal(a.swapaxes(0, 2).to_numpy(), x.swapaxes(0, 2))
    np.testing.assert_array_equal(a.mT.to_numpy(), np.swapaxes(x, -1, -2))
    # reshape of a transposed view needs a copy, as in NumPy
    t = a.transpose(2, 1, 0)
    r = t.reshape(-1)
    np.testing.assert_array_equal(r.to_numpy(), x.transpose(2, 1, 0).reshape(-1))
    r[0] = 1000.0  # a copy: a is unchanged
    np.testing.assert_array_equal(a.to_numpy(), x)
    np.testing.assert_array_equal(t.flatten().to_numpy(), x.transpose(2, 1, 0).flatten())
    c = a.copy()
    c[0, 0, 0] = 100.0
    assert a.to_numpy()[0, 0, 0] == x[0, 0, 0]
    np.testing.assert_array_equal(a.expand_dims(1).to_numpy(), x[:, None])
    np.testing.assert_array_equal(a[:, :1].squeeze().to_numpy(), x[:, :1].squeeze())
    np.testing.assert_array_equal(a[:1].squeeze(0).to_numpy(), x[0])
    np.testing.assert_array_equal(t.contiguous().to_numpy(), x.transpose(2, 1, 0))
    with pytest.raises(gk.ShapeError):
        a.reshape(5, 5)
    with pytest.raises(gk.ShapeError):
        a.transpose(0, 1)


def test_astype(ctx, rng):
    x = (rng.standard_normal(64) * 50).astype(np.float32)
    a = gk.asarray(x)
    for dt in gk.all_dtypes:
        b = a.astype(dt)
        assert b.dtype is dt and b.shape == a.shape
    np.testing.assert_array_equal(a.astype("float64").to_numpy(), x.astype(np.float64))
    np.testing.assert_array_equal(a.astype("float16").to_numpy(), x.astype(np.float16))
    np.testing.assert_array_equal(a.astype("bf16").astype("float32").to_numpy(), bf16_values(bf16_bits(x)))
    np.testing.assert_array_equal(a.astype("int32").to_numpy(), np.trunc(x).astype(np.int32))
    assert a.astype("float32", copy=False) is a


# ---- arithmetic
@pytest.mark.parametrize("dt", FLOATS)
def test_arithmetic_broadcasting(ctx, rng, dt):
    shapes = [((3, 4), (3, 4)), ((3, 4), (4,)), ((2, 1, 4), (3, 1)), ((1,), (5, 2)), ((), (2, 3)), ((4, 1), (1, 5))]
    for sa, sb in shapes:
        x = rng.standard_normal(sa).astype(np.float32)
        y = rng.standard_normal(sb).astype(np.float32) + 3.0
        a, b = gk.asarray(x, dtype=dt), gk.asarray(y, dtype=dt)
        xr, yr = a.astype("float64").to_numpy(), b.astype("float64").to_numpy()  # the rounded inputs
        for got, want in ((a + b, xr + yr), (a - b, xr - yr), (a * b, xr * yr), (a / b, xr / yr)):
            assert got.shape == np.broadcast_shapes(sa, sb) and got.dtype == gk.dtype(dt)
            close(got, want, dt)
        close(a * 2.5, xr * 2.5, dt)
        close(2.5 - a, 2.5 - xr, dt)
        close(1.0 / b, 1.0 / yr, dt)
        close(-a, -xr, dt)
        close(abs(a), np.abs(xr), dt)
        close(b ** 2, yr ** 2, dt)
        close(2.0 ** a, 2.0 ** xr, dt)


def test_integer_arithmetic(ctx, rng):
    x = rng.integers(-100, 100, (4, 5)).astype(np.int32)
    y = rng.integers(1, 50, (5,)).astype(np.int32)
    a, b = gk.asarray(x), gk.asarray(y)
    np.testing.assert_array_equal((a + b).to_numpy(), x + y)
    np.testing.assert_array_equal((a - 3).to_numpy(), x - 3)
    np.testing.assert_array_equal((a * b).to_numpy(), x * y)
    np.testing.assert_array_equal((-a).to_numpy(), -x)
    q = a / b  # true division in float32
    assert q.dtype is gk.float32
    np.testing.assert_allclose(q.to_numpy(), x / y, rtol=1e-6)
    m = a * 1.5  # a float scalar with an integer array: float32
    assert m.dtype is gk.float32
    np.testing.assert_allclose(m.to_numpy(), x * 1.5, rtol=1e-6)


def test_mixed_dtypes_and_numpy_operands(ctx, rng):
    x = rng.standard_normal(6).astype(np.float32)
    y = rng.standard_normal(6)
    a = gk.asarray(x)
    r = a + gk.asarray(y)  # float32 + float64 -> float64
    assert r.dtype is gk.float64
    np.testing.assert_allclose(r.to_numpy(), x.astype(np.float64) + y, rtol=1e-12)
    r2 = a + y.astype(np.float32)  # a NumPy operand is uploaded
    np.testing.assert_allclose(r2.to_numpy(), x + y.astype(np.float32), rtol=1e-6)
    r3 = y.astype(np.float32) * a  # NumPy on the left defers to GPUArray
    assert isinstance(r3, gk.GPUArray)
    np.testing.assert_allclose(r3.to_numpy(), x * y.astype(np.float32), rtol=1e-6)
    h = gk.asarray(x, dtype="float16") + gk.asarray(x, dtype="bf16")
    assert h.dtype is gk.float32


def test_inplace(ctx, rng):
    x = rng.standard_normal((3, 4)).astype(np.float32)
    y = rng.standard_normal(4).astype(np.float32)
    a = gk.asarray(x)
    ident = id(a)
    a += gk.asarray(y)
    a *= 2.0
    a -= 1
    a /= 4.0
    assert id(a) == ident
    close(a, ((x + y) * 2 - 1) / 4)
    i = gk.asarray(np.arange(4, dtype=np.int32))
    with pytest.raises(gk.DtypeError):
        i /= 2


def test_comparisons(ctx, rng):
    x = rng.standard_normal((4, 5)).astype(np.float32)
    y = rng.standard_normal(5).astype(np.float32)
    x[0, :3] = y[:3]
    a, b = gk.asarray(x), gk.asarray(y)
    for got, want in ((a == b, x == y), (a != b, x != y), (a < b, x < y), (a <= b, x <= y), (a > b, x > y),
                      (a >= b, x >= y), (a > 0, x > 0)):
        assert got.dtype is gk.uint8
        np.testing.assert_array_equal(got.to_numpy().astype(bool), want)
    with pytest.raises(TypeError):
        hash(a)
    assert bool((a == a).all()) and not bool((a != a).any())


@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16"])
def test_matmul_operator(ctx, rng, dt):
    for m, k, n in ((17, 33, 65), (1, 8, 1), (64, 64, 64), (5, 1, 7)):
        x = rng.standard_normal((m, k)).astype(np.float32)
        y = rng.standard_normal((k, n)).astype(np.float32)
        a, b = gk.asarray(x, dtype=dt), gk.asarray(y, dtype=dt)
        want = a.astype("float64").to_numpy() @ b.astype("float64").to_numpy()
        got = a @ b
        assert got.shape == (m, n) and got.dtype == gk.dtype(dt)
        scale = np.abs(want).max() + 1
        eps = {"float32": 1.2e-7, "float64": 2.2e-16, "float16": 9.8e-4, "bfloat16": 7.8e-3}[dt]
        err = np.abs(got.astype("float64").to_numpy() - want).max() / scale
        assert err <= 4 * eps * np.sqrt(k), (m, k, n, err)
    v = rng.standard_normal(8).astype(np.float32)
    w = rng.standard_normal((8, 3)).astype(np.float32)
    np.testing.assert_allclose((gk.asarray(v) @ gk.asarray(w)).to_numpy(), v @ w, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose((gk.asarray(w.T) @ gk.asarray(v)).to_numpy(), w.T @ v, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose((gk.asarray(w.T) @ w).to_numpy(), w.T @ w, rtol=1e-5, atol=1e-5)
    bx = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    by = rng.standard_normal((2, 3, 5, 2)).astype(np.float32)
    np.testing.assert_allclose((gk.asarray(bx) @ gk.asarray(by)).to_numpy(), bx @ by, rtol=1e-5, atol=1e-5)


# ---- reductions
@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16"])
def test_reductions(ctx, rng, dt):
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    a = gk.asarray(x, dtype=dt)
    xr = a.astype("float64").to_numpy()
    for axis in (None, 0, 1, 2, -1, (0, 2), (1, 2), (0, 1, 2)):
        for keep in (False, True):
            for name in ("sum", "mean", "max", "min", "var"):
                got = getattr(a, name)(axis=axis, keepdims=keep)
                want = getattr(np, name)(xr, axis=axis, keepdims=keep)
                assert got.shape == np.shape(want), (name, axis, keep, got.shape)
                close(got, want, dt, rtol=10 * max(1e-6, {"float32": 1e-6, "float64": 1e-12, "float16": 1e-3,
                                                              "bfloat16": 8e-3}[dt]), atol=1e-2 if dt in ("float16", "bfloat16") else 1e-5)
    for axis in (None, 0, 1, -1):
        np.testing.assert_array_equal(a.argmax(axis=axis).to_numpy(), np.argmax(xr, axis=axis))
        np.testing.assert_array_equal(a.argmin(axis=axis).to_numpy(), np.argmin(xr, axis=axis))
    close(a.var(axis=1, ddof=1), np.var(xr, axis=1, ddof=1), dt, rtol=2e-2, atol=2e-2)
    close(a.std(axis=0), np.std(xr, axis=0), dt, rtol=2e-2, atol=2e-2)
    close(gk.sum(a, axis=1), xr.sum(axis=1), dt, rtol=2e-2, atol=5e-2)


def test_integer_reductions(ctx, rng):
    x = rng.integers(-1000, 1000, (4, 6)).astype(np.int32)
    a = gk.asarray(x)
    assert a.sum().dtype is gk.int64 and a.sum().item() == int(x.sum())
    np.testing.assert_array_equal(a.sum(axis=0).to_numpy(), x.sum(axis=0))
    assert a.max().item() == x.max() and a.max().dtype is gk.int32
    np.testing.assert_array_equal(a.min(axis=1).to_numpy(), x.min(axis=1))
    np.testing.assert_allclose(a.mean(axis=1).to_numpy(), x.mean(axis=1))
    assert a.argmax().item() == int(np.argmax(x))


def test_cumsum_clip_any_all(ctx, rng):
    x = rng.standard_normal((3, 5)).astype(np.float32)
    a = gk.asarray(x)
    close(a.cumsum(axis=1), np.cumsum(x, axis=1))
    close(a.cumsum(axis=0), np.cumsum(x, axis=0))
    close(a.clip(-0.5, 0.5), np.clip(x, -0.5, 0.5))
    assert bool((a > -100).all()) and not bool((a > 100).any())
    np.testing.assert_array_equal((a > 0).any(axis=1).to_numpy().astype(bool), (x > 0).any(axis=1))


def test_iteration(ctx):
    a = gk.asarray(np.arange(6, dtype=np.float32).reshape(3, 2))
    rows = [r.to_numpy().tolist() for r in a]
    assert rows == [[0, 1], [2, 3], [4, 5]]


def test_pickle(ctx, rng):
    import pickle
    x = rng.standard_normal((3, 2)).astype(np.float32)
    for dt in ("float32", "bfloat16", "int32"):
        a = gk.asarray(x * 10, dtype=dt)
        b = pickle.loads(pickle.dumps(a[:, ::-1]))
        assert b.dtype == a.dtype and b.shape == (3, 2)
        np.testing.assert_array_equal(b.astype("float64").to_numpy(), a[:, ::-1].astype("float64").to_numpy())
