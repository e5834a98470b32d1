"""DLPack and the CUDA array interface.

Export (no copy): a.__dlpack__() hands out a DLManagedTensor over the
array's storage (device memory on CUDA, host memory on the CPU backend) in
a "dltensor" capsule; __cuda_array_interface__ (CUDA only) gives the device
pointer. The storage is pinned for as long as it is shared: DLPack through
a view of the array that the capsule's deleter releases, the CUDA array
interface through the array itself until it is garbage-collected. bfloat16
and fp8 go out as DLPack's bfloat / float8_e4m3fn / float8_e5m2 codes; the
CUDA array interface, which has no such types, shows their bit patterns
(<u2, |u1).

Import (gpukit.from_dlpack, gpukit.asarray of a torch / CuPy / NumPy
array): no copy where the memory is where the context computes (device
memory of its device, or page-locked host memory, on CUDA; host memory on
the CPU backend): gk_tensor_wrap makes a tensor over the producer's memory,
and the producer's object (or the DLPack capsule's tensor, whose deleter
then runs) is kept until gpukit releases the memory, after the array, its
views and the work queued on them are gone. Ordering: DLPack's stream
protocol orders the producer's pending work before our current stream (the
producer is given it); the CUDA array interface's stream is not waited on
(gpukit has no call that waits on a stream it did not make), so objects
that have both go through DLPack. Writes through either side show in the
other; ordering between the producer's later work and ours is the user's,
as with any DLPack exchange. Memory that cannot be wrapped (host memory on
CUDA, reversed, broadcast or overlapping strides, unaligned addresses,
another device) is copied: from host memory into the pool, or on CUDA a
device-to-device copy on the current stream. copy=True always copies;
copy=False raises UnsupportedError instead of copying.
"""
import ctypes
import itertools
import threading

import numpy as np

from . import dtypes as _dt
from ._gpukit import ffi, lib
from ._array import GPUArray, _wrap_foreign, empty, from_numpy
from .context import _resolve
from .errors import DtypeError, InvalidArgumentError, UnsupportedError

__all__ = ["from_dlpack"]

_KDL_CPU, _KDL_CUDA, _KDL_CUDA_HOST, _KDL_CUDA_MANAGED = 1, 2, 3, 13

_capi = ctypes.pythonapi
_capsule_new = _capi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
_capsule_get = _capi.PyCapsule_GetPointer
_capsule_get.restype = ctypes.c_void_p
_capsule_get.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_set_name = _capi.PyCapsule_SetName
_capsule_set_name.restype = ctypes.c_int
_capsule_set_name.argtypes = [ctypes.py_object, ctypes.c_void_p]
_capsule_is_valid = _capi.PyCapsule_IsValid
_capsule_is_valid.restype = ctypes.c_int
_capsule_is_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]

_NAME = int(ffi.cast("uintptr_t", lib.gkpy_capsule_name(0)))
_USED = int(ffi.cast("uintptr_t", lib.gkpy_capsule_name(1)))
_DESTRUCTOR = int(ffi.cast("uintptr_t", lib.gkpy_capsule_destructor()))

_exports = {}  # key -> the pinned view a capsule holds
_keys = itertools.count(1)
_lock = threading.Lock()


@ffi.def_extern()
def gkpy_dlpack_release(key):
    with _lock:
        _exports.pop(key, None)  # the view's __del__ unpins and frees it


def dlpack_device(a):
    a._raw()
    if a._ctx.backend == "cuda":
        return (_KDL_CUDA, a._ctx.device)
    return (_KDL_CPU, 0)


def _stream_handle(ctx):
    h = lib.gk_stream_native(ctx._raw(), ffi.NULL)
    return int(ffi.cast("uintptr_t", h))


def dlpack_export(a, stream=None, dl_device=None, copy=None):
    ctx = a._ctx
    p = a._raw()
    if dl_device is not None and tuple(dl_device) != dlpack_device(a):
        raise UnsupportedError("__dlpack__: the array is on device %r; a copy to %r is not supported"
                               % (dlpack_device(a), tuple(dl_device)))
    if copy:
        a = a.copy()
    v = a._view(lib.gk_view_slice, 0, 0, a._shape[0], 1) if a.ndim else a.reshape(())
    ctx._check(lib.gk_tensor_pin(p, v._t))
    v._pins += 1
    info = v._info()
    ptr = v.ptr
    if ctx.backend == "cuda":
        if stream != -1:  # the consumer reads on its own stream: finish ours first
            ctx._check(lib.gk_stream_sync(p, ffi.NULL))
        dev_type, dev_id = _KDL_CUDA, ctx.device
    else:
        dev_type, dev_id = _KDL_CPU, 0
    nd = int(info.ndim)
    shape = ffi.new("int64_t[]", [int(s) for s in info.shape[0:nd]] or [0])
    strides = ffi.new("int64_t[]", [int(s) for s in info.strides[0:nd]] or [0])
    dt = a._dtype
    with _lock:
        key = next(_keys)
        _exports[key] = v
    m = lib.gkpy_dlpack_new(ptr, dev_type, dev_id, nd, dt.dl_code, dt.itemsize * 8, shape, strides, key)
    if m == ffi.NULL:
        with _lock:
            _exports.pop(key, None)
        raise MemoryError("__dlpack__: out of host memory")
    try:
        return _capsule_new(int(ffi.cast("uintptr_t", m)), _NAME, _DESTRUCTOR)
    except BaseException:
        lib.gkpy_dlpack_call_deleter(m)
        raise


_TYPESTR = {"float32": "<f4", "float64": "<f8", "float16": "<f2", "bfloat16": "<u2", "float8_e4m3fn": "|u1",
            "float8_e5m2": "|u1", "int8": "|i1", "uint8": "|u1", "int32": "<i4", "int64": "<i8"}


def cuda_array_interface(a):
    ctx = a._ctx
    if ctx.backend != "cuda":
        raise AttributeError("__cuda_array_interface__: the array lives on the CPU backend (use to_numpy or DLPack)")
    p = a._raw()
    if a._pins == 0:  # pinned until the array is garbage-collected: the consumer may hold the pointer that long
        ctx._check(lib.gk_tensor_pin(p, a._t))
        a._pins = 1
    info = a._info()
    nd = int(info.ndim)
    item = a._dtype.itemsize
    strides = None if info.contiguous else tuple(int(s) * item for s in info.strides[0:nd])
    h = _stream_handle(ctx)
    return {
        "shape": tuple(int(s) for s in info.shape[0:nd]),
        "typestr": _TYPESTR[a._dtype.name],
        "data": (a.ptr if a.size else 0, False),
        "version": 3,
        "strides": strides,
        "stream": h if h else 1,
    }


# ---- import
_FROM_DL = {}
for _d in _dt.all_dtypes:
    _FROM_DL[(_d.dl_code, _d.itemsize * 8)] = _d
_FROM_DL[(6, 8)] = _dt.uint8  # kDLBool


class _DLTensorView:
    """The fields of a consumed DLManagedTensor."""

    def __init__(self, m):
        t = m.dl_tensor
        self.m = m
        self.ptr = int(ffi.cast("uintptr_t", t.data)) + int(t.byte_offset)
        self.device = (int(t.device.device_type), int(t.device.device_id))
        self.ndim = int(t.ndim)
        self.shape = tuple(int(t.shape[i]) for i in range(self.ndim))
        key = (int(t.dtype.code), int(t.dtype.bits))
        if int(t.dtype.lanes) != 1 or key not in _FROM_DL:
            raise DtypeError("from_dlpack: DLPack dtype code %d, %d bits, %d lanes has no gpukit dtype"
                             % (key[0], key[1], int(t.dtype.lanes)))
        self.dtype = _FROM_DL[key]
        self.is_bool = key == (6, 8)
        if t.strides == ffi.NULL:
            self.strides = None
        else:
            self.strides = tuple(int(t.strides[i]) for i in range(self.ndim))

    def contiguous(self):
        if self.strides is None:
            return True
        expect = 1
        for s, st in zip(reversed(self.shape), reversed(self.strides)):
            if s != 1 and st != expect:
                return False
            expect *= s
        return True


_COPY_SRC = r"""
extern "C" __global__ void gkpy_copy_bytes(const unsigned char *src, unsigned char *dst, unsigned long long n) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    if ((((unsigned long long)src | (unsigned long long)dst) & 15) == 0) {
        unsigned long long n16 = n / 16;
        for (unsigned long long j = i; j < n16; j += stride)
            ((uint4 *)dst)[j] = ((const uint4 *)src)[j];
        for (unsigned long long j = n16 * 16 + i; j < n; j += stride) dst[j] = src[j];
    } else {
        for (unsigned long long j = i; j < n; j += stride) dst[j] = src[j];
    }
}
"""


def _copy_kernel(ctx):
    k = getattr(ctx, "_gkpy_copy", None)
    if k is None:
        from ._jit import jit
        k = ctx._gkpy_copy = jit(_COPY_SRC, "gkpy_copy_bytes", ctx=ctx)
    return k


def _capsule_of(obj, stream):
    if type(obj).__name__ == "PyCapsule":
        return obj
    if stream is None:
        return obj.__dlpack__()
    try:
        return obj.__dlpack__(stream=stream)
    except TypeError:  # producers without the stream keyword
        return obj.__dlpack__()


class _DLOwner:
    """A consumed DLManagedTensor: its deleter runs when this goes (when
    gpukit has released the memory it wrapped)."""

    __slots__ = ("m",)

    def __init__(self, m):
        self.m = m

    def __del__(self):
        m, self.m = self.m, None
        if m is not None:
            lib.gkpy_dlpack_call_deleter(m)


def _no_copy(what):
    raise UnsupportedError("from_dlpack: %s cannot be used without a copy (copy=False)" % what)


def from_dlpack(obj, ctx=None, copy=None):
    """A gpukit array of obj: an object with __dlpack__ (torch, CuPy, NumPy,
    JAX, gpukit) or __cuda_array_interface__, or a "dltensor" capsule.
    copy=None: the array shares obj's memory where the context can use it
    in place (see the module docstring), else it is a copy; copy=True: a
    copy (into the pool; on CUDA a device-to-device copy on the current
    stream, ordered after the producer's work through DLPack's stream
    argument); copy=False: shared or UnsupportedError."""
    ctx = _resolve(ctx)
    if copy is not None and not isinstance(copy, bool):
        raise InvalidArgumentError("from_dlpack: copy must be None, True or False, not %r" % (copy,))
    if isinstance(obj, GPUArray):
        if obj._ctx is ctx:
            return obj.copy() if copy else obj[...]
        if copy:
            return from_numpy(obj.to_numpy(), dtype=obj.dtype, ctx=ctx)
        obj = obj.__dlpack__()  # another context: its memory, pinned while the capsule's tensor lives
    if not hasattr(obj, "__dlpack__") and type(obj).__name__ != "PyCapsule":
        if hasattr(obj, "__cuda_array_interface__"):
            return _from_cai(obj, ctx, copy)
        raise InvalidArgumentError("from_dlpack: %s has neither __dlpack__ nor __cuda_array_interface__"
                                   % type(obj).__name__)
    dev = obj.__dlpack_device__() if hasattr(obj, "__dlpack_device__") else None
    stream = None
    if dev is not None and dev[0] in (_KDL_CUDA, _KDL_CUDA_MANAGED):
        if ctx.backend != "cuda":
            raise UnsupportedError("from_dlpack: a CUDA tensor cannot be read by a context on the CPU backend")
        stream = _stream_handle(ctx) or 1
    cap = _capsule_of(obj, stream)
    if not _capsule_is_valid(cap, b"dltensor"):
        raise InvalidArgumentError("from_dlpack: not an unconsumed 'dltensor' capsule (a capsule can be read once)")
    mptr = _capsule_get(cap, b"dltensor")
    _capsule_set_name(cap, _USED)  # ours now: the owner runs the deleter when gpukit is done with the memory
    owner = _DLOwner(ffi.cast("DLManagedTensor *", mptr))
    t = _DLTensorView(owner.m)
    if copy is not True:
        out, why = _share(ctx, t, owner)
        if out is not None:
            return out
        if copy is False:
            _no_copy(why)
    return _import(ctx, t)  # (the owner goes, and the deleter runs, when the copy is made)


def _strides_ok(strides):
    return strides is None or all(s >= 0 for s in strides)


def _share(ctx, t, owner):
    """The tensor t wrapped in place (gk_tensor_wrap), or None and why not."""
    dev = t.device[0]
    if ctx.backend == "cpu":
        if dev not in (_KDL_CPU, _KDL_CUDA_HOST):
            return None, "memory of DLPack device type %d on a context of the CPU backend" % dev
    else:
        if dev == _KDL_CPU:
            return None, "host memory on a CUDA context (kernels cannot read pageable memory)"
        if dev not in (_KDL_CUDA, _KDL_CUDA_MANAGED, _KDL_CUDA_HOST):
            return None, "memory of DLPack device type %d" % dev
        if dev != _KDL_CUDA_HOST and t.device[1] != ctx.device:
            return None, "memory of CUDA device %d on a context of device %d" % (t.device[1], ctx.device)
    if t.is_bool:
        return None, "bool values (gpukit's uint8 could store others)"
    if not _strides_ok(t.strides):
        return None, "negative strides %r" % (t.strides,)
    from .errors import GpukitError
    try:
        return _wrap_foreign(ctx, t.dtype, t.shape, t.strides, t.ptr, owner), None
    except GpukitError as e:  # overlapping or broadcast strides, misalignment, memory the driver does not know
        return None, str(e)


def _import(ctx, t):
    dt = t.dtype
    n = 1
    for s in t.shape:
        n *= s
    nbytes = n * dt.itemsize
    if t.device[0] in (_KDL_CPU, _KDL_CUDA_HOST):
        if nbytes == 0:
            return empty(t.shape, dt, ctx)
        strides_b = None if t.strides is None else tuple(s * dt.itemsize for s in t.strides)
        lo = 0  # the bytes the elements span: [ptr + lo, ptr + hi + itemsize) (negative strides reach below ptr)
        if strides_b is None:
            hi = nbytes - dt.itemsize
        else:
            lo = sum((s - 1) * st for s, st in zip(t.shape, strides_b) if st < 0)
            hi = sum((s - 1) * st for s, st in zip(t.shape, strides_b) if st > 0)
        buf = ffi.buffer(ffi.cast("char *", t.ptr + lo), hi - lo + dt.itemsize)
        host = np.ndarray(t.shape, dtype=dt.bits_dtype if not dt.is_numpy_native else dt.numpy_dtype, buffer=buf,
                          offset=-lo, strides=strides_b)
        return from_numpy(host, dtype=dt, ctx=ctx)
    if t.device[0] not in (_KDL_CUDA, _KDL_CUDA_MANAGED):
        raise UnsupportedError("from_dlpack: DLPack device type %d is not supported" % t.device[0])
    if t.device[1] != ctx.device:
        raise UnsupportedError("from_dlpack: the tensor is on CUDA device %d, the context on device %d"
                               % (t.device[1], ctx.device))
    if not t.contiguous():
        raise UnsupportedError("from_dlpack: a non-contiguous CUDA tensor cannot be imported; "
                               "make it contiguous first (.contiguous() / cupy.ascontiguousarray)")
    out = empty(t.shape, dt, ctx)
    if nbytes:
        _device_copy(ctx, t.ptr, out, nbytes)
    return out


def _device_copy(ctx, src_ptr, out, nbytes):
    from ._jit import ptr as _ptr, u64
    k = _copy_kernel(ctx)
    blocks = min(max((nbytes // 16 + 255) // 256, 1), 65535)
    k((blocks,), (256,), _ptr(src_ptr), out, u64(nbytes))
    ctx._check(lib.gk_stream_sync(ctx._raw(), ffi.NULL))  # the producer may free its memory once we return


def _from_cai(obj, ctx, copy=None):
    # The interface's "stream" (the producer's) is not waited on: gpukit has
    # no call that waits on a stream it did not make. Objects that also have
    # __dlpack__ go through DLPack, whose stream protocol orders the copy.
    cai = obj.__cuda_array_interface__
    if ctx.backend != "cuda":
        raise UnsupportedError("from_dlpack: a CUDA array cannot be read by a context on the CPU backend")
    if cai.get("mask") is not None:
        raise UnsupportedError("from_dlpack: a CUDA array interface with a mask is not supported")
    typestr = cai["typestr"]
    try:
        nd = np.dtype(typestr)
    except TypeError:
        raise DtypeError("from_dlpack: typestr %r is not supported" % (typestr,)) from None
    dt = _dt.dtype(nd)
    shape = tuple(cai["shape"])
    strides = cai.get("strides")
    ptr, readonly = cai["data"]
    if copy is not True:
        why = "read-only memory" if readonly else "bool values (gpukit's uint8 could store others)" if nd.kind == "b" \
            else None
        if why is None and strides is not None and any(st % dt.itemsize or st < 0 for st in strides):
            why = "strides %r (bytes) that are not whole, non-negative elements" % (tuple(strides),)
        if why is None:
            from .errors import GpukitError
            try:
                return _wrap_foreign(ctx, dt, shape, None if strides is None else [st // dt.itemsize for st in strides],
                                     int(ptr or 0), obj)
            except GpukitError as e:
                why = str(e)
        if copy is False:
            _no_copy(why)
    if strides is not None:
        expect, ok = dt.itemsize, True
        for s, st in zip(reversed(shape), reversed(strides)):
            if s != 1 and st != expect:
                ok = False
            expect *= s
        if not ok:
            raise UnsupportedError("from_dlpack: a non-contiguous CUDA array cannot be imported; make it contiguous first")
    out = empty(shape, dt, ctx)
    n = out.nbytes
    if n:
        _device_copy(ctx, int(cai["data"][0]), out, n)
    return out
