"""pytest setup for the gpukit Python package.

The suite runs on the backend a default gpukit context gets: the CPU
backend on CI, CUDA on the GPU machine (GPUKIT_BACKEND=cpu|cuda forces one).
Random inputs are fresh each run; GKPY_SEED=<n> replays a run (the seed is
printed in the header and with each failure).
"""
import os
import random

import numpy as np
import pytest

import gpukit as gk

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
SEED = int(os.environ.get("GKPY_SEED", random.SystemRandom().randrange(1 << 31)))


def pytest_report_header(config):
    ctx = gk.current_context()
    info = ctx.device_info()
    return "gpukit %s from %s: backend %s (%s); seed %d (GKPY_SEED=%d replays it)" % (
        gk.__version__, os.path.dirname(gk.__file__), ctx.backend, info.name, SEED, SEED)


@pytest.fixture
def rng(request):
    """A NumPy generator seeded from SEED and the test's name."""
    h = abs(hash(request.node.nodeid)) % (1 << 30)
    return np.random.default_rng(SEED ^ h)


@pytest.fixture
def ctx():
    return gk.current_context()


@pytest.fixture
def cuda(ctx):
    if ctx.backend != "cuda":
        pytest.skip("needs the CUDA backend")
    return ctx


def pytest_runtest_makereport(item, call):
    if call.excinfo is not None and call.when == "call":
        item.add_report_section("call", "seed", "GKPY_SEED=%d" % SEED)


def tol(dtype):
    """rtol / atol fitting a dtype's precision."""
    name = gk.dtype(dtype).name
    return {"float64": 1e-12, "float32": 2e-5, "float16": 2e-3, "bfloat16": 1.6e-2}.get(name, 0)


def close(got, want, dtype="float32", rtol=None, atol=None):
    """Asserts got (GPUArray or NumPy) matches want within the dtype's tolerance."""
    if isinstance(got, gk.GPUArray):
        if got.dtype in (gk.bfloat16, gk.float8_e4m3fn, gk.float8_e5m2):
            got = got.astype("float32")
        got = got.to_numpy()
    t = tol(dtype)
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64), np.asarray(want, dtype=np.float64),
                               rtol=t if rtol is None else rtol, atol=t if atol is None else atol)
