"""PyGPUkit's names (docs/python.md) that gpukit keeps, with PyGPUkit's meaning."""
import math

import numpy as np
import pytest

import gpukit as gk
from conftest import close


def test_array_methods(ctx, rng):
    x = rng.standard_normal((6, 4)).astype(np.float32)
    a = gk.from_numpy(x)
    np.testing.assert_array_equal(a.narrow(2, 3).to_numpy(), x[2:5])
    np.testing.assert_array_equal(a.slice_rows(2).to_numpy(), x[:2])
    with pytest.raises(IndexError):
        a.narrow(5, 3)
    np.testing.assert_array_equal(a.clone().to_numpy(), x)
    np.testing.assert_array_equal(a.view((4, 6)).to_numpy(), x.reshape(4, 6))
    assert a.device_ptr == a.ptr and a.on_gpu == (ctx.backend == "cuda")
    assert a.itemsize == 4 and a.is_contiguous()
    assert gk.zeros((2, 2)).dtype == gk.float32 and gk.empty(3).dtype == gk.float32


def test_functions(ctx, rng):
    x, w, b = rng.standard_normal((3, 8)).astype(np.float32), rng.standard_normal((5, 8)).astype(np.float32), \
        rng.standard_normal(5).astype(np.float32)
    g, be = rng.standard_normal(8).astype(np.float32), rng.standard_normal(8).astype(np.float32)
    xd = x.astype(np.float64)
    ln = (xd - xd.mean(-1, keepdims=True)) / np.sqrt(xd.var(-1, keepdims=True) + 1e-5) * g + be
    close(gk.layernorm(gk.from_numpy(x), gk.from_numpy(g), gk.from_numpy(be)), ln, rtol=1e-5, atol=1e-5)
    t = gk.transpose(gk.from_numpy(x))
    assert t.is_contiguous() and t.shape == (8, 3)
    np.testing.assert_array_equal(t.to_numpy(), x.T)
    close(gk.sum_axis(gk.from_numpy(x), 1), x.sum(1), rtol=1e-5, atol=1e-5)
    o = gk.from_numpy(x[:, :5].copy())
    gk.bias_add_inplace(o, gk.from_numpy(b))
    close(o, x[:, :5] + b)
    lin = xd @ w.T + b
    close(gk.linear_bias_gelu(gk.from_numpy(x), gk.from_numpy(w), gk.from_numpy(b)),
          lin / 2 * (1 + np.vectorize(math.erf)(lin / math.sqrt(2))), rtol=1e-5, atol=1e-5)
    for name, f in (("neg", np.negative), ("abs", np.abs), ("sin", np.sin), ("cos", np.cos)):
        close(getattr(gk, name)(gk.from_numpy(x)), f(xd), rtol=1e-5, atol=1e-6)
    close(gk.rsqrt(gk.from_numpy(np.abs(x) + 1)), 1 / np.sqrt(np.abs(xd) + 1), rtol=1e-5)


def test_graph_and_event_names(ctx):
    a, out = gk.ones(4), gk.zeros(4)
    s = gk.Stream()
    with s:
        g = gk.CudaGraph()
        g.begin_capture()
        gk.ops.add(a, a, out=out)
        g.end_capture()
        g.replay()
    s.synchronize()
    assert out.to_numpy().tolist() == [2, 2, 2, 2]
    g.reset()
    e0, e1 = gk.CudaEvent().record(), gk.CudaEvent().record()
    e1.synchronize()
    assert gk.event_elapsed_us(e0, e1) >= 0
    assert gk.JITKernel is gk.Kernel and gk.NvrtcError is gk.CompileError
    assert gk.get_sm_version() == gk.get_device_capabilities().sm_version
