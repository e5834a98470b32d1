"""gpukit.jit: compile, type arguments from the signature, launch (on CUDA,
or through a Python CPU fallback), checked arguments, errors."""
import numpy as np
import pytest

import gpukit as gk

SRC = r"""
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void fill64(double *v, long long n, double value, unsigned int tag) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) v[i] = value + tag;
}
"""


def saxpy_cpu(grid, block, a, x, y, n):
    assert isinstance(x, np.ndarray) and isinstance(y, np.ndarray) and isinstance(a, float) and isinstance(n, int)
    m = min(n, grid[0] * block[0])
    y[:m] = np.float32(a) * x[:m] + y[:m]


def fill_cpu(grid, block, v, n, value, tag):
    v[:n] = value + tag


def test_launch(ctx, rng):
    k = gk.jit(SRC, "saxpy", cpu=saxpy_cpu)
    assert k.params == [(4, "f"), (8, "p"), (8, "p"), (4, "i")] and k.num_params == 4 and k.is_compiled
    x = rng.standard_normal(1000).astype(np.float32)
    y = rng.standard_normal(1000).astype(np.float32)
    gx, gy = gk.asarray(x), gk.asarray(y)
    k((4,), (256,), 2.5, gx, gy, 1000)
    got = gy.to_numpy()
    # the product rounded then the sum, or one fused multiply-add (NVRTC contracts a * x + y to an FMA: the exact
    # product, one rounding)
    ok = (got == np.float32(2.5) * x + y) | (got == (2.5 * x.astype(np.float64) + y.astype(np.float64)).astype(np.float32))
    np.testing.assert_allclose(got, 2.5 * x + y, rtol=1e-6, atol=1e-6)
    assert ok.mean() > 0.99
    # views: the kernel sees the first element of the view
    gz = gk.zeros(10)
    k(1, 32, 1.0, gk.asarray(np.arange(10, dtype=np.float32))[5:], gz[2:], 5)
    assert gz.to_numpy().tolist() == [0, 0, 5, 6, 7, 8, 9, 0, 0, 0]


def test_argument_types(ctx):
    k = gk.jit(SRC, "fill64", cpu=fill_cpu)
    assert k.params == [(8, "p"), (8, "i"), (8, "f"), (4, "i")]
    v = gk.zeros(8, "float64")
    k(1, 8, v, 6, 1.5, 2)  # ints typed as int64 / uint32 (by the signature), the float as a double
    assert v.to_numpy().tolist() == [3.5] * 6 + [0, 0]
    k(1, 8, v, np.int64(8), np.float64(0.25), gk.u32(1))
    assert v.to_numpy().tolist() == [1.25] * 8
    with pytest.raises(gk.InvalidArgumentError, match="argument 3"):
        k(1, 8, v, 8, 1.0, np.float32(1.0))  # a float for an integer parameter
    with pytest.raises(gk.InvalidArgumentError, match="argument 1"):
        k(1, 8, v, gk.i32(8), 1.0, 1)  # 4 bytes for an 8-byte parameter
    with pytest.raises(gk.InvalidArgumentError, match="takes 4 arguments"):
        k(1, 8, v, 8, 1.0)
    with pytest.raises(gk.InvalidArgumentError, match="argument 2 is a str"):
        k(1, 8, v, 8, "1.0", 1)
    with pytest.raises(gk.InvalidArgumentError, match="1024 threads"):
        k(1, 2048, v, 8, 1.0, 1)
    with pytest.raises(gk.InvalidArgumentError, match="grid"):
        k(0, 8, v, 8, 1.0, 1)
    v.free()
    with pytest.raises(gk.InvalidHandleError):
        k(1, 8, v, 8, 1.0, 1)


def test_cpu_fallback_errors(ctx):
    if ctx.backend != "cpu":
        pytest.skip("the CPU backend's behaviour")
    k = gk.jit(SRC, "saxpy")
    x = gk.zeros(4)
    with pytest.raises(gk.UnsupportedError, match="CPU backend.*cpu=fn"):
        k(1, 4, 1.0, x, x, 4)

    def bad(grid, block, *args):
        raise RuntimeError("fallback failed")
    k2 = gk.jit(SRC, "saxpy", cpu=bad)
    with pytest.raises(RuntimeError, match="fallback failed"):
        k2(1, 4, 1.0, x, x, 4)


def test_compile_errors(ctx):
    if not gk.is_nvrtc_available():
        pytest.skip("NVRTC is not installed here")
    assert gk.get_nvrtc_version()[0] >= 11
    with pytest.raises(gk.CompileError) as e:
        gk.jit('extern "C" __global__ void broken(float *x) { x[0] = undeclared; }', "broken")
    assert "undeclared" in str(e.value)
    with pytest.raises(gk.NotFoundError, match="nope"):
        gk.jit(SRC, "nope")
    k = gk.jit('extern "C" __global__ void k(int *x) { x[0] = N; }', "k", options=["-DN=3"],
               cpu=lambda g, b, x: x.__setitem__(0, 3))
    out = gk.zeros(1, "int32")
    k(1, 1, out)
    assert out.item() == 3


def test_cache_shared(ctx):
    before = ctx.jit_stats()
    gk.jit(SRC, "saxpy", cpu=saxpy_cpu)
    gk.jit(SRC, "saxpy", cpu=saxpy_cpu)
    after = ctx.jit_stats()
    if ctx.device_info().has_nvrtc:
        assert after["memory_hits"] + after["disk_hits"] > before["memory_hits"] + before["disk_hits"]


def test_cpu_fallback_in_a_graph(ctx):
    if ctx.backend != "cpu":
        pytest.skip("the CPU backend's fallback")
    calls = []
    k = gk.jit(SRC, "saxpy", cpu=lambda g, b, a, x, y, n: (calls.append(n), saxpy_cpu(g, b, a, x, y, n)))
    x, y = gk.ones(4), gk.zeros(4)
    with gk.graph() as g:
        k(1, 4, 2.0, x, y, 4)
    del k  # the graph keeps calling the fallback
    import gc
    gc.collect()
    g.launch()
    g.launch()
    assert calls == [4, 4] and y.to_numpy().tolist() == [4.0] * 4
