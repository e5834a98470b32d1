"""DLPack and the CUDA array interface: export without a copy, import as a
copy, lifetimes. NumPy on the CPU backend; PyTorch and CuPy on CUDA when
they are importable (the GPU machine)."""
import gc

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
    if ctx.backend == "cpu":
        a = gk.from_dlpack(x)
        np.testing.assert_array_equal(a.to_numpy(), x)
        x[0, 0] = 100.0
        assert a[0, 0].item() != 100.0  # a copy
        s = gk.from_dlpack(x[:, ::2])  # strided host input
        np.testing.assert_array_equal(s.to_numpy(), x[:, ::2])
        i = gk.from_dlpack(np.arange(5, dtype=np.int64))
        assert i.dtype is gk.int64 and i.to_numpy().tolist() == [0, 1, 2, 3, 4]
    b = gk.asarray(x)
    c = gk.from_dlpack(b.__dlpack__())  # a bare capsule
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
    # torch -> gpukit: a copy on the device
    src = torch.randn(5, 7, device="cuda")
    g = gk.asarray(src)
    np.testing.assert_array_equal(g.to_numpy(), src.cpu().numpy())
    g2 = gk.from_dlpack(src.to(torch.bfloat16))
    assert g2.dtype is gk.bfloat16
    np.testing.assert_array_equal(g2.astype("float32").to_numpy(), src.to(torch.bfloat16).float().cpu().numpy())
    with pytest.raises(gk.UnsupportedError, match="non-contiguous"):
        gk.from_dlpack(src.t())
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


def test_device_copy_kernel_compiles(ctx):
    if not gk.is_nvrtc_available():
        pytest.skip("NVRTC is not installed here")
    from gpukit._interop import _COPY_SRC
    k = gk.jit(_COPY_SRC, "gkpy_copy_bytes")  # the kernel from_dlpack copies CUDA tensors with
    assert k.params == [(8, "p"), (8, "p"), (8, "i")]
