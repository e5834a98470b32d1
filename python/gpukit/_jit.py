"""Your own CUDA kernels, compiled by NVRTC at run time (gk_module_create,
gk_kernel_launch).

    k = gpukit.jit(source, "saxpy")                  # extern "C" __global__ void saxpy(...)
    k(grid, block, 2.0, x, y, n)                     # x, y GPUArrays; 2.0 and n scalars

Arguments are typed from the kernel's signature, as gk_kernel_param reads
it (from the driver on CUDA, from the source on the CPU backend):
- a GPUArray is passed as the address of its first element (its storage
  is restored if evicted and held for the launch); a pointer parameter also
  takes a raw address (an int, gpukit.ptr(x)) or any object with
  __cuda_array_interface__ (a CuPy / torch tensor);
- a Python int becomes an int32 for a 4-byte integer parameter (uint32
  when it is above 2^31 - 1), an int64 for an 8-byte one (uint64 above
  2^63 - 1), and int64 where the signature does not say;
- a Python float becomes a float for a float parameter, a double for a
  double one (and a double where the signature does not say); an int passed
  to a float parameter is converted;
- NumPy scalars (np.int32(3), np.float32(1.5)) and gpukit.i32 / u32 / i64
  / u64 / f32 / f64 / ptr keep their own type.
The C library checks the count, and each argument's size and kind, against
the parameters: a mismatch is an InvalidArgumentError naming the argument.

The compiled module goes through gpukit's memory and disk kernel cache, the
same cache C programs use (the context's cache_dir, default
~/.cache/gpukit).

On the CPU backend the source is still compiled when NVRTC is present (so
errors show), but no GPU code runs: a launch raises UnsupportedError unless
the kernel was given a CPU fallback, jit(..., cpu=fn): fn(grid, block,
*args) runs in its place, with each GPUArray argument as a NumPy view of
its storage and each scalar as a Python number. fn runs while the context is
locked: it must not call gpukit.
"""
import numbers

import numpy as np

from ._gpukit import ffi, lib
from ._array import GPUArray
from .context import _resolve
from .errors import InvalidArgumentError, UnsupportedError

__all__ = ["jit", "Kernel", "i32", "u32", "i64", "u64", "f32", "f64", "ptr", "is_nvrtc_available",
           "get_nvrtc_version"]

_GK_OK = lib.GK_OK
_TENSOR = lib.GK_ARG_TENSOR
_new = ffi.new


class _Typed:
    __slots__ = ("kind", "value")

    def __init__(self, kind, value):
        self.kind = kind
        self.value = value

    def __repr__(self):
        return "gpukit.%s(%r)" % (self.kind, self.value)


def i32(v):
    """An int32 kernel argument."""
    return _Typed("i32", int(v))


def u32(v):
    """A uint32 kernel argument."""
    return _Typed("u32", int(v))


def i64(v):
    """An int64 kernel argument."""
    return _Typed("i64", int(v))


def u64(v):
    """A uint64 kernel argument."""
    return _Typed("u64", int(v))


def f32(v):
    """A float kernel argument."""
    return _Typed("f32", float(v))


def f64(v):
    """A double kernel argument."""
    return _Typed("f64", float(v))


def ptr(v):
    """A raw device address as a pointer argument."""
    return _Typed("ptr", int(v))


_ARG_TYPES = {"i32": lib.GK_ARG_I32, "u32": lib.GK_ARG_U32, "i64": lib.GK_ARG_I64, "u64": lib.GK_ARG_U64,
              "f32": lib.GK_ARG_F32, "f64": lib.GK_ARG_F64, "ptr": lib.GK_ARG_PTR}
_NP_SCALARS = {np.dtype("int32"): "i32", np.dtype("uint32"): "u32", np.dtype("int64"): "i64",
               np.dtype("uint64"): "u64", np.dtype("float32"): "f32", np.dtype("float64"): "f64"}


def _set(a, kind, value):
    a.type = _ARG_TYPES[kind]
    if kind == "i32":
        a.v.i32 = value
    elif kind == "u32":
        a.v.u32 = value
    elif kind == "i64":
        a.v.i64 = value
    elif kind == "u64" or kind == "ptr":
        a.v.u64 = value
    elif kind == "f32":
        a.v.f32 = value
    else:
        a.v.f64 = value


def _dims(v, what):
    if isinstance(v, numbers.Integral):
        v = (int(v),)
    v = tuple(int(x) for x in v)
    if not 1 <= len(v) <= 3 or any(x < 1 or x > 0xFFFFFFFF for x in v):
        raise InvalidArgumentError("%s must be 1 to 3 positive ints, not %r" % (what, v))
    return v + (1,) * (3 - len(v))


class Kernel:
    """A compiled kernel of a gpukit context; call it to launch:
    k(grid, block, *args, shared_mem=0, stream=None). grid and block: an
    int or a tuple of up to 3. stream: a gpukit.Stream (default: the
    thread's current stream)."""

    def __init__(self, ctx, module, kptr, name, source, options, cpu):
        self._ctx = ctx
        self._module = module
        self._k = kptr
        self.name = name
        self.source = source
        self.options = tuple(options)
        self._cpu = cpu
        self._cpu_meta = {}
        self._cpu_error = None
        self._handle = None
        n = ffi.new("gk_kernel_attrs *")
        ctx._check(lib.gk_kernel_attrs_get(ctx._raw(), kptr, n))
        self.num_params = int(n.num_params)
        self.params = []  # (size in bytes, kind 'p' / 'f' / 'i' / '?')
        sz, kd = ffi.new("int *"), ffi.new("char *")
        for i in range(self.num_params):
            ctx._check(lib.gk_kernel_param(ctx._raw(), kptr, i, sz, kd))
            self.params.append((int(sz[0]), kd[0].decode()))
        if cpu is not None:
            self._handle = ffi.new_handle(self)
            ctx._check(lib.gk_kernel_set_cpu(ctx._raw(), kptr, lib.gkpy_cpu_kernel, self._handle))
            ctx._held.append(self)  # a captured graph may call the fallback after this object is dropped
        ctx._dependents.add(self)

    @property
    def is_compiled(self):
        return self._module is not None and self._ctx._ptr is not None

    def attributes(self):
        """gk_kernel_attrs: num_params, num_regs, local_bytes, static_smem_bytes, max_threads_per_block."""
        a = ffi.new("gk_kernel_attrs *")
        self._ctx._check(lib.gk_kernel_attrs_get(self._raw(), self._k, a))
        return {f: int(getattr(a, f)) for f in ("num_params", "num_regs", "local_bytes", "static_smem_bytes",
                                                  "max_threads_per_block")}

    def _raw(self):
        p = self._ctx._raw()
        if self._module is None:
            raise UnsupportedError("kernel '%s': its module was closed" % self.name)
        return p

    def _release(self):
        self._module = None
        self._handle = None

    def close(self):
        """Unloads the module (waits for the context's work first)."""
        if self._module is not None and self._ctx._ptr is not None:
            m, self._module = self._module, None
            self._ctx._check(lib.gk_module_destroy(self._ctx._ptr, m))

    def _arg(self, a, i, x):
        t = type(x)
        if t is GPUArray:  # the common cases first, by exact type (isinstance on numbers' ABCs is slow)
            if x._freed:
                x._raw()
            if x._ctx is not self._ctx:
                raise InvalidArgumentError("kernel '%s': argument %d belongs to another gpukit context" % (self.name, i))
            a.type = _TENSOR
            a.v.tensor = x._t
            if self._cpu is not None:
                self._remember(x)
            return
        size, kind = self.params[i] if i < len(self.params) else (0, "?")
        if t is int or t is bool:
            x = int(x)
            if kind == "p":
                _set(a, "ptr", x)
            elif kind == "f":
                _set(a, "f32" if size == 4 else "f64", float(x))
            elif size == 4:
                _set(a, "u32" if x > 0x7FFFFFFF else "i32", x)
            else:
                _set(a, "u64" if x > 0x7FFFFFFFFFFFFFFF else "i64", x)
            return
        if t is float:
            _set(a, "f32" if size == 4 else "f64", x)
            return
        if isinstance(x, _Typed):
            _set(a, x.kind, x.value)
            return
        if isinstance(x, GPUArray):
            a.type = _TENSOR
            a.v.tensor = x._t
            return
        if isinstance(x, np.generic):
            k = _NP_SCALARS.get(x.dtype)
            if k is None:
                raise InvalidArgumentError("kernel '%s': argument %d is a NumPy %s, which no kernel argument type takes "
                                           "(use int32, uint32, int64, uint64, float32 or float64)" % (self.name, i, x.dtype))
            _set(a, k, x.item())
            return
        if isinstance(x, numbers.Integral):
            return self._arg(a, i, int(x))
        if isinstance(x, numbers.Real):
            return self._arg(a, i, float(x))
        cai = getattr(x, "__cuda_array_interface__", None)
        if cai is not None:
            _set(a, "ptr", int(cai["data"][0]))
            return
        raise InvalidArgumentError("kernel '%s': argument %d is a %s; kernels take GPUArrays, ints, floats, NumPy "
                                   "scalars, gpukit.i32 / f32 / ptr ... or arrays with __cuda_array_interface__"
                                   % (self.name, i, type(x).__name__))

    def __call__(self, grid, block, *args, shared_mem=0, stream=None):
        p = self._ctx._ptr
        if p is None or self._module is None:
            p = self._raw()
        d = _new("gk_launch_desc *")
        d.grid = (grid, 1, 1) if type(grid) is int and 0 < grid <= 0xFFFFFFFF else _dims(grid, "grid")
        d.block = (block, 1, 1) if type(block) is int and 0 < block <= 0xFFFFFFFF else _dims(block, "block")
        if shared_mem:
            d.shared_mem = int(shared_mem)
        if stream is not None:
            d.stream = stream._raw()
        n = len(args)
        arr = _new("gk_arg[]", n or 1)
        for i in range(n):
            self._arg(arr[i], i, args[i])
        d.args = arr
        d.num_args = n
        self._cpu_error = None
        st = lib.gk_kernel_launch(p, self._k, d)
        if st != _GK_OK:
            err = self._ctx._error(st)
            if isinstance(err, UnsupportedError) and "CPU fallback" in str(err):
                err = UnsupportedError(str(err) + " (gpukit.jit(..., cpu=fn) gives one from Python)")
            raise err
        if self._cpu_error is not None:
            e, self._cpu_error = self._cpu_error, None
            raise e

    launch = __call__

    # ---- the CPU fallback
    def _remember(self, x):
        """Records where x's storage is, so the fallback can show it as a NumPy array."""
        address = x.ptr
        info = x._info()
        nd = int(info.ndim)
        item = x._dtype.itemsize
        shape = tuple(int(s) for s in info.shape[0:nd])
        strides = tuple(int(s) * item for s in info.strides[0:nd])
        if len(self._cpu_meta) > 4096:
            self._cpu_meta.clear()
        self._cpu_meta[address] = (shape, strides, x._dtype)

    def _run_cpu(self, launch):
        args = []
        for i in range(launch.num_args):
            a = launch.args[i]
            t = a.type
            if t == lib.GK_ARG_TENSOR or t == lib.GK_ARG_PTR:
                address = int(ffi.cast("uintptr_t", launch.ptrs[i]))
                meta = self._cpu_meta.get(address) if t == lib.GK_ARG_TENSOR else None
                if meta is None:
                    args.append(address)
                    continue
                shape, strides, dt = meta
                extent = dt.itemsize
                for s, st in zip(shape, strides):
                    if s == 0:
                        extent = 0
                        break
                    extent += (s - 1) * st
                npdt = dt.numpy_dtype if dt.is_numpy_native else dt.bits_dtype
                if extent == 0:
                    args.append(np.empty(shape, npdt))
                else:
                    buf = ffi.buffer(launch.ptrs[i], extent)
                    args.append(np.ndarray(shape, npdt, buffer=buf, strides=strides))
            elif t == lib.GK_ARG_I32:
                args.append(int(a.v.i32))
            elif t == lib.GK_ARG_U32:
                args.append(int(a.v.u32))
            elif t == lib.GK_ARG_I64:
                args.append(int(a.v.i64))
            elif t == lib.GK_ARG_U64:
                args.append(int(a.v.u64))
            elif t == lib.GK_ARG_F32:
                args.append(float(a.v.f32))
            else:
                args.append(float(a.v.f64))
        self._cpu(tuple(launch.grid), tuple(launch.block), *args)

    def __repr__(self):
        return "<gpukit.Kernel %s (%d params)>" % (self.name, self.num_params)


@ffi.def_extern()
def gkpy_cpu_kernel(launch):
    k = ffi.from_handle(launch.user)
    try:
        k._run_cpu(launch)
    except BaseException as e:  # reported by the launch that ran it
        k._cpu_error = e


def jit(source, name, options=(), ctx=None, no_cache=False, cpu=None, filename=None):
    """Compiles source with NVRTC (or finds it in the kernel cache) and returns
    the kernel `name` (declared extern "C" __global__) as a callable Kernel.
    options: NVRTC options ("-DN=4", ...). cpu: a Python fallback for the CPU
    backend (see the module docstring). A compile error is a CompileError
    holding NVRTC's log."""
    ctx = _resolve(ctx)
    if not isinstance(source, str) or not isinstance(name, str):
        raise InvalidArgumentError("jit: source and name must be strings")
    if isinstance(options, str):
        options = (options,)
    opts = [ffi.new("char[]", o.encode()) for o in options]
    copts = ffi.new("const char *[]", opts or [ffi.NULL])
    src = ffi.new("char[]", source.encode())
    fname = ffi.new("char[]", (filename or name + ".cu").encode())
    d = ffi.new("gk_module_desc *")
    d.source = src
    d.name = fname
    d.options = copts
    d.num_options = len(opts)
    d.no_cache = int(bool(no_cache))
    mp = ffi.new("gk_module **")
    p = ctx._raw()
    st = lib.gk_module_create(p, d, mp)
    if st != _GK_OK:
        err = ctx._error(st)
        log = ffi.string(lib.gk_jit_log(p)).decode("utf-8", "replace")
        if log and log not in str(err):
            err = type(err)(str(err) + "\n" + log)
        raise err
    kp = ffi.new("gk_kernel **")
    st = lib.gk_module_kernel(p, mp[0], name.encode(), kp)
    if st != _GK_OK:
        err = ctx._error(st)
        lib.gk_module_destroy(p, mp[0])
        raise err
    return Kernel(ctx, mp[0], kp[0], name, source, options, cpu)


def is_nvrtc_available(ctx=None):
    """Whether NVRTC was found (gk_device_info.has_nvrtc)."""
    return _resolve(ctx).device_info().has_nvrtc


def get_nvrtc_version(ctx=None):
    """(major, minor) of NVRTC, or None when it is missing."""
    v = _resolve(ctx).device_info().nvrtc_version
    return (v // 1000, (v % 1000) // 10) if v else None

