"""pytest setup for the gpukit Python package.

The suite runs on the backend a default gpukit context gets: the CPU
backend on CI, CUDA on the GPU machine (GPUKIT_BACKEND=cpu|cuda forces one).
Random inputs are fresh each run; GKPY_SEED=<n> replays a run (the seed is
printed in the header and with each failure).
"""
import os
import random
import signal

import numpy as np
import pytest

import gpukit as gk

# The Ctrl-C tests deliver SIGINT to the main thread (_thread.interrupt_main), which does nothing
# where SIGINT is ignored: a shell without job control starts background commands that way, and
# Python then keeps SIG_IGN. Python's own handler is what an interactive user has.
if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
    signal.signal(signal.SIGINT, signal.default_int_handler)

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


class ctrl_c:
    """`with ctrl_c(cond, delay):` sends a Ctrl-C (KeyboardInterrupt) to the
    main thread delay seconds after cond() first holds, from a helper thread
    (as a terminal's SIGINT arrives while the main thread is inside a C call).
    None is sent once the block has ended; one sent too late for the block is
    absorbed at its end, and `late` says so (fired: one was sent)."""

    def __init__(self, cond, delay=0.0, timeout=120.0):
        import threading
        self.cond, self.delay, self.timeout = cond, delay, timeout
        self.done = threading.Event()
        self.fired = self.late = False
        self.th = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        import _thread
        import time
        t0 = time.time()
        while not self.done.is_set() and time.time() - t0 < self.timeout:
            if self.cond():
                if not self.done.wait(self.delay):
                    self.fired = True
                    _thread.interrupt_main()
                return
            time.sleep(0.002)

    def __enter__(self):
        self.th.start()
        return self

    def __exit__(self, *exc):
        import time
        self.done.set()
        try:
            self.th.join()
            time.sleep(0.01)  # a pending Ctrl-C is raised here, not in the next test
        except KeyboardInterrupt:
            self.late = True
        return False
