"""Contexts: gpukit's gk_ctx (a backend, a device, a memory pool, streams).

Every array, stream, kernel and model belongs to one Context. Most code
never makes one: the default context is made on first use (backend "auto":
CUDA when a usable GPU is there, else the CPU backend; the environment
variable GPUKIT_BACKEND=cpu|cuda overrides auto, as in C). Contexts made
explicitly serve as the current one inside `with ctx:` (which closes it at
the end) or `with gpukit.use_context(ctx):` (which does not).
"""
import atexit
import threading
import weakref

from ._gpukit import ffi, lib
from .errors import ContextClosedError, InvalidArgumentError, StateError, make_error

__all__ = [
    "Context", "DeviceInfo", "default_context", "set_default_context", "current_context", "use_context",
    "get_device_info", "get_device_capabilities", "is_cuda_available", "synchronize",
]

_BACKENDS = {"auto": lib.GK_BACKEND_AUTO, "cuda": lib.GK_BACKEND_CUDA, "cpu": lib.GK_BACKEND_CPU}
_BACKEND_NAMES = {lib.GK_BACKEND_AUTO: "auto", lib.GK_BACKEND_CUDA: "cuda", lib.GK_BACKEND_CPU: "cpu"}
_LOG_LEVELS = {None: lib.GK_LOG_DEFAULT, "off": lib.GK_LOG_OFF, "error": lib.GK_LOG_ERROR, "warn": lib.GK_LOG_WARN,
               "warning": lib.GK_LOG_WARN, "info": lib.GK_LOG_INFO, "debug": lib.GK_LOG_DEBUG}

_live_contexts = weakref.WeakSet()


def _text(p):
    return ffi.string(p).decode("utf-8", "replace") if p != ffi.NULL else ""


class DeviceInfo:
    """What gk_device_info_get reports: the backend in use, the device's name,
    arch ("sm_90"; "" on the CPU), compute capability, SM count, memory,
    the driver / NVRTC / cuBLASLt versions (0 when absent)."""

    __slots__ = ("backend", "name", "arch", "cc_major", "cc_minor", "sm_count", "warp_size", "max_threads_per_block",
                 "max_smem_per_block_optin", "total_memory", "l2_bytes", "driver_version", "nvrtc_version",
                 "cublaslt_version", "has_nvrtc", "has_cublaslt")

    def __init__(self, info):
        self.backend = _BACKEND_NAMES.get(info.backend, "?")
        self.name = _text(info.name)
        self.arch = _text(info.arch)
        for f in ("cc_major", "cc_minor", "sm_count", "warp_size", "max_threads_per_block", "max_smem_per_block_optin",
                  "total_memory", "l2_bytes", "driver_version", "nvrtc_version", "cublaslt_version"):
            setattr(self, f, int(getattr(info, f)))
        self.has_nvrtc = bool(info.has_nvrtc)
        self.has_cublaslt = bool(info.has_cublaslt)

    @property
    def sm_version(self):
        """Compute capability as one number (90 for 9.0); 0 on the CPU backend."""
        return self.cc_major * 10 + self.cc_minor

    @property
    def tensorcore(self):
        """Whether gpukit's tensor-core kernels run here (compute capability 8.0 or newer)."""
        return self.backend == "cuda" and self.cc_major >= 8

    def as_dict(self):
        return {k: getattr(self, k) for k in self.__slots__}

    def __repr__(self):
        return "DeviceInfo(backend=%r, name=%r, arch=%r)" % (self.backend, self.name, self.arch)


class Context:
    """A gpukit context (gk_ctx_create).

    backend: "auto" (CUDA when usable, else CPU), "cuda" (CUDA or an error
    saying why not) or "cpu" (the plain-C reference backend). device: the
    CUDA ordinal. memory_quota: bytes the pool may hold (0: 90% of the
    device's free memory; CPU: half the RAM). cache_dir: the kernel cache
    (default as in C: $GPUKIT_CACHE_DIR, $XDG_CACHE_HOME/gpukit, ~/.cache/gpukit,
    shared with C programs). log_level: "off", "error", "warn", "info", "debug".
    The other switches are gk_ctx_desc's.

    close() frees everything of the context (arrays, streams, kernels,
    models, and memory exported through DLPack or the CUDA array interface,
    which the consumer must no longer use); using them afterwards raises
    ContextClosedError. close() refuses while a model generates on another
    thread, and must not run while another thread is inside a call on the
    context.
    """

    def __init__(self, backend="auto", device=0, memory_quota=0, cache_dir=None, disable_disk_cache=False,
                 disable_eviction=False, disable_cublaslt=False, log_level=None, cuda_lib=None, nvrtc_lib=None,
                 cublaslt_lib=None):
        if backend not in _BACKENDS:
            raise InvalidArgumentError("Context: backend %r is not one of 'auto', 'cuda', 'cpu'" % (backend,))
        if log_level not in _LOG_LEVELS:
            raise InvalidArgumentError("Context: log_level %r is not one of off, error, warn, info, debug" % (log_level,))
        self._ptr = None
        self._keep = []  # strings the descriptor points to
        d = ffi.new("gk_ctx_desc *")
        d.backend = _BACKENDS[backend]
        d.device = int(device)
        d.memory_quota = int(memory_quota)
        d.disable_disk_cache = int(bool(disable_disk_cache))
        d.disable_eviction = int(bool(disable_eviction))
        d.disable_cublaslt = int(bool(disable_cublaslt))
        d.log_level = _LOG_LEVELS[log_level]
        for field, value in (("cache_dir", cache_dir), ("cuda_lib", cuda_lib), ("nvrtc_lib", nvrtc_lib),
                             ("cublaslt_lib", cublaslt_lib)):
            if value is not None:
                b = ffi.new("char[]", str(value).encode())
                self._keep.append(b)
                setattr(d, field, b)
        pp = ffi.new("gk_ctx **")
        st = lib.gk_ctx_create(d, pp)
        if st != lib.GK_OK:
            raise make_error(st, _text(lib.gk_last_error(ffi.NULL)))
        self._ptr = pp[0]
        self.device = int(device)
        self._dependents = weakref.WeakSet()  # models, schedulers, streams ... released by close()
        self._scalars = {}  # cached 0-d tensors of Python scalars, by (dtype, value)
        self._held = []  # objects the C side may call back into until the context closes (CPU fallbacks)
        self._lock = threading.Lock()
        self._pool = None
        self.backend = _BACKEND_NAMES[lib.gk_ctx_backend(self._ptr)]
        _live_contexts.add(self)

    # ---- lifetime
    @property
    def closed(self):
        return self._ptr is None

    def _raw(self):
        """The gk_ctx pointer; ContextClosedError after close()."""
        p = self._ptr
        if p is None:
            raise ContextClosedError("the gpukit context is closed")
        return p

    def close(self):
        """Waits for the context's work, releases its models, schedulers,
        streams and kernels, then destroys it (gk_ctx_destroy): every array
        of it is freed. Idempotent."""
        p = self._ptr
        if p is None:
            return
        for dep in list(self._dependents):
            if getattr(dep, "_in_use", None) is not None and dep._in_use():
                raise StateError("Context.close: %r is in use on another thread (a generation is running); "
                                 "finish or close it first" % (dep,))
        for dep in list(self._dependents):
            try:
                dep._release()
            except Exception:  # pragma: no cover - teardown goes on regardless
                pass
        self._scalars.clear()
        self._ptr = None
        lib.gk_ctx_destroy(p)
        del self._held[:]
        _ctx_closed(self)
        from ._array import _drain
        _drain()  # the owners of the memory it wrapped (gpukit.asarray / from_dlpack without a copy)

    def __enter__(self):
        _push_current(self)
        return self

    def __exit__(self, *exc):
        _pop_current(self)
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass

    def __repr__(self):
        if self._ptr is None:
            return "<gpukit.Context closed>"
        return "<gpukit.Context backend=%s device=%r>" % (self.backend, self.device_info().name)

    def _check(self, st):
        """Raises the error of a failed call on this context."""
        if st != lib.GK_OK:
            raise self._error(st)

    def _error(self, st):
        """The exception of a failed call on this context (its message is gk_last_error's)."""
        p = self._ptr
        msg = _text(lib.gk_last_error(p if p is not None else ffi.NULL))
        if "gk_contiguous" in msg:
            msg += " (in Python: x.contiguous())"
        return make_error(st, msg)

    # ---- information
    def device_info(self):
        """The device (DeviceInfo)."""
        info = ffi.new("gk_device_info *")
        self._check(lib.gk_device_info_get(self._raw(), info))
        return DeviceInfo(info)

    @property
    def is_cuda(self):
        return self.backend == "cuda"

    def synchronize(self):
        """Waits for all work issued on every stream of the context (gk_sync)."""
        self._check(lib.gk_sync(self._raw()))

    sync = synchronize

    @property
    def pool(self):
        """The memory pool (gpukit.MemoryPool) of this context."""
        if self._pool is None:
            from .pool import MemoryPool
            self._pool = MemoryPool(self)
        return self._pool

    def jit_stats(self):
        """NVRTC and kernel-cache counters (gk_jit_stats_get) as a dict."""
        s = ffi.new("gk_jit_stats *")
        self._check(lib.gk_jit_stats_get(self._raw(), s))
        return {"compiles": s.compiles, "memory_hits": s.memory_hits, "disk_hits": s.disk_hits,
                "disk_writes": s.disk_writes, "disk_rejects": s.disk_rejects, "compile_ms": s.compile_ms}

    def precompile(self, arch=None):
        """Compiles every library kernel for arch ("sm_90"; None: the device's) into the
        disk cache (gk_jit_precompile; no GPU needed). Returns the number of modules."""
        n = ffi.new("int *")
        self._check(lib.gk_jit_precompile(self._raw(), arch.encode() if arch else ffi.NULL, n))
        return n[0]

    def _scalar(self, value, dt):
        """A cached 0-d tensor holding value as dtype dt (for array-scalar ops)."""
        key = (dt.gk, type(value), value)
        t = self._scalars.get(key)
        if t is not None:
            return t
        from ._array import full
        t = full((), value, dtype=dt, ctx=self)
        if len(self._scalars) >= 256:
            self._scalars.clear()
        self._scalars[key] = t
        return t


# ---- the default and current contexts
_default = None
_default_lock = threading.Lock()
_tls = threading.local()


def default_context():
    """The process's default context, made on first use (backend "auto")."""
    global _default
    c = _default
    if c is None or c._ptr is None:
        with _default_lock:
            if _default is None or _default._ptr is None:
                _default = Context()
            c = _default
    return c


def set_default_context(ctx):
    """Makes ctx (a Context, or None to make a new one on next use) the default."""
    global _default
    if ctx is not None and not isinstance(ctx, Context):
        raise InvalidArgumentError("set_default_context: %r is not a gpukit.Context" % (ctx,))
    with _default_lock:
        _default = ctx


def _stack():
    s = getattr(_tls, "stack", None)
    if s is None:
        s = _tls.stack = []
    return s


def _push_current(ctx):
    _stack().append(ctx)


def _pop_current(ctx):
    s = _stack()
    for i in range(len(s) - 1, -1, -1):
        if s[i] is ctx:
            del s[i]
            break


def _ctx_closed(ctx):
    global _default
    if _default is ctx:
        _default = None


def current_context():
    """The calling thread's current context: the innermost `with ctx:` /
    `with use_context(ctx):`, else the default context."""
    s = getattr(_tls, "stack", None)
    if s:
        return s[-1]
    c = _default
    if c is not None and c._ptr is not None:
        return c
    return default_context()


class use_context:
    """`with gpukit.use_context(ctx):` makes ctx current on this thread
    inside the block (arrays made there belong to it); it stays open."""

    def __init__(self, ctx):
        if not isinstance(ctx, Context):
            raise InvalidArgumentError("use_context: %r is not a gpukit.Context" % (ctx,))
        self.ctx = ctx

    def __enter__(self):
        _push_current(self.ctx)
        return self.ctx

    def __exit__(self, *exc):
        _pop_current(self.ctx)
        return False


def _resolve(ctx):
    if ctx is None:
        return current_context()
    if not isinstance(ctx, Context):
        raise InvalidArgumentError("ctx must be a gpukit.Context, not %s" % type(ctx).__name__)
    return ctx


def get_device_info(ctx=None):
    """DeviceInfo of ctx (default: the current context)."""
    return _resolve(ctx).device_info()


def get_device_capabilities(ctx=None):
    """PyGPUkit's name for get_device_info: has .tensorcore and .sm_version."""
    return get_device_info(ctx)


def is_cuda_available():
    """Whether the current context runs on CUDA."""
    return current_context().backend == "cuda"


def synchronize(ctx=None):
    """Waits for all work of ctx (default: the current context)."""
    _resolve(ctx).synchronize()


@atexit.register
def _close_all():  # schedulers' worker threads and models go before the interpreter does
    for c in list(_live_contexts):
        try:
            c.close()
        except Exception:  # pragma: no cover
            pass
