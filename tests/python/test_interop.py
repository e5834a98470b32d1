"""DLPack and the CUDA array interface: export and import without a copy
(import: gk_tensor_wrap where the memory is usable in place, else a copy),
lifetimes. NumPy on the CPU backend; PyTorch and CuPy on CUDA when they are
importable (the GPU machine)."""
import gc
import weakref

import numpy as np
import pytest

import gpukit as gk


def test_dlpack_device(ctx):
    a = gk.zeros(3)
    if ctx.backend == "cpu":
        assert a.__dlpack_device__() == (1, 0)
        assert not hasattr(a, "__cuda_array_interface__")
    else:
        assert a.__dlpack_device__() == (2, ctx.device)


def test_numpy_from_dlpack_shares_memory(ctx, rng):
    if ctx.backend != "cpu":
        pytest.skip("host memory: the CPU backend")
    x = rng.standard_normal((4, 5)).astype(np.float32)
    a = gk.asarray(x)
    n = np.from_dlpack(a)
    np.testing.assert_array_equal(n, x)
    assert n.ctypes.data == a.ptr  # no copy
    a[1, 2] = 42.0
    assert n[1, 2] == 42.0
    if n.flags.writeable:  # NumPy before 2.1 hands out DLPack imports read-only
        n[0, 0] = -7.0
        assert a[0, 0].item() == -7.0
    assert ctx.pool.stats()["pinned"] > 0
    t = np.from_dlpack(a.T[1:])  # strided views travel with their strides
    np.testing.assert_array_equal(t, a.to_numpy().T[1:])
    del a
    gc.collect()
    assert n[1, 2] == 42.0  # the export keeps the storage
    del n, t
    gc.collect()
    assert ctx.pool.stats()["pinned"] == 0  # the deleters ran


def test_from_dlpack_copies(ctx, rng):
    x = rng.standard_normal((3, 4)).astype(np.float32)
    a = gk.from_dlpack(x, copy=True)
    np.testing.assert_array_equal(a.to_numpy(), x)
    x[0, 0] = 100.0
    assert a[0, 0].item() != 100.0  # a copy
    if ctx.backend == "cpu":
        s = gk.from_dlpack(x[:, ::2], copy=True)  # strided host input
        np.testing.assert_array_equal(s.to_numpy(), x[:, ::2])
    i = gk.from_dlpack(np.arange(5, dtype=np.int64))
    assert i.dtype is gk.int64 and i.to_numpy().tolist() == [0, 1, 2, 3, 4]
    b = gk.asarray(x)
    c = gk.from_dlpack(b.__dlpack__(), copy=True)  # a bare capsule
    np.testing.assert_array_equal(c.to_numpy(), x)
    h = gk.asarray(x, dtype="bf16")
    h2 = gk.from_dlpack(h.__dlpack__())  # bfloat16 through DLPack's bfloat code
    assert h2.dtype is gk.bfloat16
    np.testing.assert_array_equal(h2.astype("float32").to_numpy(), h.astype("float32").to_numpy())
    cap = b.__dlpack__()
    gk.from_dlpack(cap)
    with pytest.raises(gk.InvalidArgumentError, match="read once"):
        gk.from_dlpack(cap)
    with pytest.raises(gk.InvalidArgumentError):
        gk.from_dlpack(object())
    with pytest.raises(gk.InvalidArgumentError, match="copy"):
        gk.from_dlpack(x, copy="no")


def test_from_dlpack_shares_host_memory(ctx, rng):
    """On the CPU backend a NumPy array comes in without a copy (gk_tensor_wrap), kept alive while gpukit uses it."""
    x = rng.standard_normal((3, 5)).astype(np.float32)
    keep = x.copy()
    if ctx.backend != "cpu":
        with pytest.raises(gk.UnsupportedError, match="host memory on a CUDA context"):
            gk.from_dlpack(x, copy=False)
        np.testing.assert_array_equal(gk.from_dlpack(x).to_numpy(), x)  # copied
        return
    before = ctx.pool.stats()
    a = gk.from_dlpack(x)
    assert a.ptr == x.ctypes.data and a.shape == (3, 5) and a.pinned and a.resident
    assert ctx.pool.stats()["used"] == before["used"]  # nothing of the pool
    x[1, 2] = 7.0  # writes show both ways
    assert a[1, 2].item() == 7.0
    a *= 2.0
    np.testing.assert_array_equal(x, np.where(np.arange(15).reshape(3, 5) == 7, 14.0, 2 * keep))
    with pytest.raises(gk.UnsupportedError, match="never evicted"):
        a.evict()
    n = np.from_dlpack(a)  # and out again: the same memory
    assert n.ctypes.data == x.ctypes.data
    del n
    # strided layouts come in as they are; reversed, broadcast and bool ones are copied (or refused with copy=False)
    t = gk.from_dlpack(x.T)
    assert t.ptr == x.ctypes.data and t.strides == (4, 20)
    np.testing.assert_array_equal(t.to_numpy(), x.T)
    s = gk.from_dlpack(x[:, 1::2], copy=False)
    assert s.ptr == x.ctypes.data + 4
    np.testing.assert_array_equal(s.to_numpy(), x[:, 1::2])
    r = gk.from_dlpack(x[::-1])
    np.testing.assert_array_equal(r.to_numpy(), x[::-1])
    assert r.ptr != x.ctypes.data + 2 * 20
    with pytest.raises(gk.UnsupportedError, match="negative strides"):
        gk.from_dlpack(x[::-1], copy=False)
    # asarray: NumPy arrays are copied unless copy=False asks to share
    c = gk.asarray(x)
    assert c.ptr != x.ctypes.data
    w = gk.asarray(x, copy=False)
    assert w.ptr == x.ctypes.data
    with pytest.raises(gk.UnsupportedError, match="bool"):
        gk.asarray(np.array([True, False]), copy=False)
    with pytest.raises(gk.UnsupportedError, match="read-only"):
        gk.asarray(np.broadcast_to(x[0], (3, 5)), copy=False)
    with pytest.raises(gk.UnsupportedError, match="dtype"):
        gk.asarray(x.astype(np.uint16), copy=False)
    with pytest.raises(gk.UnsupportedError, match="float16 differs"):
        gk.asarray(x, dtype="float16", copy=False)
    bits = gk.asarray(np.zeros(4, np.uint16), dtype="bf16", copy=False)  # bit patterns, shared
    assert bits.dtype is gk.bfloat16
    del a, t, s, r, c, w, bits


def test_shared_memory_lifetime(ctx, rng):
    """The producer lives as long as the wrapped array or any view of it, and no longer."""
    if ctx.backend != "cpu":
        pytest.skip("host memory: the CPU backend")
    for share in (lambda x: gk.from_dlpack(x), lambda x: gk.asarray(x, copy=False)):
        x = rng.standard_normal(8).astype(np.float32)
        want = x.copy()
        ref = weakref.ref(x)
        a = share(x)
        del x
        gc.collect()
        assert ref() is not None
        v = a[2:6]  # a view shares the wrapped memory
        del a
        gc.collect()
        assert ref() is not None
        np.testing.assert_array_equal(v.to_numpy(), want[2:6])
        del v
        gc.collect()
        assert ref() is None  # released: the deleter ran (DLPack) or the array went
    # a context closed with a wrapped array releases it too
    c = gk.Context(backend="cpu")
    x = np.ones(4, np.float32)
    ref = weakref.ref(x)
    a = gk.from_dlpack(x, ctx=c)
    del x
    c.close()
    del a
    gc.collect()
    assert ref() is None
    # another context's array: shared through its DLPack export
    c = gk.Context(backend="cpu")
    src = gk.asarray(rng.standard_normal(6).astype(np.float32))
    b = gk.from_dlpack(src, ctx=c)
    assert b.ptr == src.ptr and b.ctx is c
    assert src.pinned  # the export pins it while b uses it
    del b
    gc.collect()
    assert not src.pinned
    c.close()
    same = gk.from_dlpack(src)
    assert same.ptr == src.ptr and same is not src
    assert gk.from_dlpack(src, copy=True).ptr != src.ptr


def test_own_capsule_shared(ctx, rng):
    """A DLPack capsule of this context's own array comes back without a copy; its deleter (which unpins the
    array, a call on this same context) runs once gpukit releases the memory, outside the C library's lock."""
    src = gk.asarray(rng.standard_normal((4, 6)).astype(np.float32))
    a = gk.from_dlpack(src.__dlpack__())
    assert a.ptr == src.ptr and src.pinned and a.shape == (4, 6)
    v = a.T
    del a
    gc.collect()
    assert src.pinned  # the view still uses it
    np.testing.assert_array_equal(v.to_numpy(), src.to_numpy().T)
    del v
    gc.collect()
    assert not src.pinned


def _torch():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch without CUDA")
    return torch


def test_torch(cuda, rng):
    torch = _torch()
    x = rng.standard_normal((64, 32)).astype(np.float32)
    a = gk.asarray(x)
    t = torch.from_dlpack(a)
    assert t.is_cuda and t.data_ptr() == a.ptr  # no copy
    np.testing.assert_array_equal(t.cpu().numpy(), x)
    t.mul_(2)
    torch.cuda.synchronize()
    np.testing.assert_array_equal(a.to_numpy(), 2 * x)
    tb = torch.from_dlpack(gk.asarray(x, dtype="bf16"))
    assert tb.dtype == torch.bfloat16
    del a
    gc.collect()
    assert float(t.sum()) == pytest.approx(2 * float(x.sum()), rel=1e-4)
    # torch -> gpukit: shared, no copy (gk_tensor_wrap)
    src = torch.randn(5, 7, device="cuda")
    want = src.cpu().numpy()
    g = gk.asarray(src)
    assert g.ptr == src.data_ptr() and g.pinned
    np.testing.assert_array_equal(g.to_numpy(), want)
    g *= 2.0
    gk.synchronize()  # gpukit's stream, then torch's
    np.testing.assert_array_equal(src.cpu().numpy(), 2 * want)
    g2 = gk.from_dlpack(src.to(torch.bfloat16))  # a temporary, kept by gpukit while it uses it
    assert g2.dtype is gk.bfloat16
    np.testing.assert_array_equal(g2.astype("float32").to_numpy(), src.to(torch.bfloat16).float().cpu().numpy())
    gt = gk.from_dlpack(src.t())  # strided: shared as it is
    assert gt.ptr == src.data_ptr() and gt.shape == (7, 5)
    np.testing.assert_array_equal(gt.to_numpy(), src.t().cpu().numpy())
    with pytest.raises(gk.UnsupportedError, match="non-contiguous"):
        gk.from_dlpack(src.t(), copy=True)
    cp_ = gk.from_dlpack(src, copy=True)
    assert cp_.ptr != src.data_ptr()
    np.testing.assert_array_equal(cp_.to_numpy(), src.cpu().numpy())
    hs = gk.from_dlpack(torch.arange(4.0))  # host memory: copied onto the device
    assert hs.to_numpy().tolist() == [0.0, 1.0, 2.0, 3.0]
    with pytest.raises(gk.UnsupportedError, match="host memory"):
        gk.from_dlpack(torch.arange(4.0), copy=False)
    # the memory stays torch's tensor's while gpukit uses it, though the Python tensor is gone
    t3 = torch.full((4096,), 3.0, device="cuda")
    g3 = gk.from_dlpack(t3)
    del t3
    gc.collect()
    junk = [torch.full((4096,), 7.0, device="cuda") for _ in range(8)]  # the caching allocator would reuse it
    torch.cuda.synchronize()
    assert float(g3.sum()) == 3.0 * 4096
    del junk, g3
    # the CUDA array interface
    c = gk.asarray(x)
    t2 = torch.as_tensor(c, device="cuda")
    assert t2.data_ptr() == c.ptr


def test_cupy(cuda, rng):
    cp = pytest.importorskip("cupy")
    x = rng.standard_normal((16, 8)).astype(np.float32)
    a = gk.asarray(x)
    c = cp.asarray(a)  # __cuda_array_interface__
    assert c.data.ptr == a.ptr and a.pinned
    np.testing.assert_array_equal(cp.asnumpy(c), x)
    d = cp.from_dlpack(a)
    assert d.data.ptr == a.ptr
    t = a.T
    ct = cp.asarray(t)
    np.testing.assert_array_equal(cp.asnumpy(ct), x.T)
    g = gk.asarray(cp.arange(10, dtype=cp.float32))
    assert g.to_numpy().tolist() == list(range(10))
    c2 = cp.arange(12, dtype=cp.float32).reshape(3, 4)
    g2 = gk.asarray(c2)  # through DLPack: shared
    assert g2.ptr == c2.data.ptr

    class CAIOnly:  # the CUDA array interface alone (as Numba's arrays): shared too, the object kept alive
        def __init__(self, a):
            self.a = a

        @property
        def __cuda_array_interface__(self):
            return self.a.__cuda_array_interface__
    o = CAIOnly(c2[:, ::2])
    ref = weakref.ref(o)
    g3 = gk.asarray(o)
    assert g3.ptr == c2.data.ptr and g3.shape == (3, 2)
    np.testing.assert_array_equal(g3.to_numpy(), cp.asnumpy(c2[:, ::2]))
    del o
    gc.collect()
    assert ref() is not None
    del g3
    gc.collect()
    assert ref() is None
    g4 = gk.from_dlpack(CAIOnly(c2), copy=True)
    assert g4.ptr != c2.data.ptr and g4.to_numpy().tolist() == cp.asnumpy(c2).tolist()


def test_device_copy_kernel_compiles(ctx):
    if not gk.is_nvrtc_available():
        pytest.skip("NVRTC is not installed here")
    from gpukit._interop import _COPY_SRC
    k = gk.jit(_COPY_SRC, "gkpy_copy_bytes")  # the kernel from_dlpack copies CUDA tensors with
    assert k.params == [(8, "p"), (8, "p"), (8, "i")]
