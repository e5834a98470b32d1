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
array): a copy into a new gpukit array. The C library allocates every
tensor from its own pool and has no way to wrap memory it does not own, so
import cannot be zero-copy. On CUDA the copy is a device-to-device kernel
on the current stream, ordered after the producer's work by DLPack's stream
protocol (the producer is given our current stream).
"""
import ctypes
import itertools
import threading

import numpy as np

from . import dtypes as _dt
from ._gpukit import ffi, lib
from ._array import GPUArray, empty, from_numpy
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


def from_dlpack(obj, ctx=None):
    """A new gpukit array with the values of obj: an object with __dlpack__
    (torch, CuPy, NumPy, JAX, gpukit) or __cuda_array_interface__, or a
    "dltensor" capsule. Always a copy (see the module docstring): from host
    memory into the pool, or on CUDA a device-to-device copy on the current
    stream (ordered after the producer's work through DLPack's stream
    argument)."""
    ctx = _resolve(ctx)
    if isinstance(obj, GPUArray):
        return obj.copy() if obj._ctx is ctx else from_numpy(obj.to_numpy(), dtype=obj.dtype, ctx=ctx)
    if not hasattr(obj, "__dlpack__") and type(obj).__name__ != "PyCapsule":
        if hasattr(obj, "__cuda_array_interface__"):
            return _from_cai(obj, ctx)
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
    _capsule_set_name(cap, _USED)  # ours now: the deleter below runs when the copy is done
    m = ffi.cast("DLManagedTensor *", mptr)
    try:
        t = _DLTensorView(m)
        return _import(ctx, t)
    finally:
        lib.gkpy_dlpack_call_deleter(m)


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
        extent = dt.itemsize
        if strides_b is None:
            extent = nbytes
        else:
            extent += sum((s - 1) * st for s, st in zip(t.shape, strides_b) if s > 0)
            if any(st < 0 for st in strides_b):
                raise UnsupportedError("from_dlpack: negative strides are not supported")
        buf = ffi.buffer(ffi.cast("char *", t.ptr), extent)
        host = np.ndarray(t.shape, dtype=dt.bits_dtype if not dt.is_numpy_native else dt.numpy_dtype, buffer=buf,
                          strides=strides_b)
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


def _from_cai(obj, ctx):
    # The interface's "stream" (the producer's) is not waited on: gpukit has
    # no call that waits on a stream it did not make. Objects that also have
    # __dlpack__ go through DLPack, whose stream protocol orders the copy.
    cai = obj.__cuda_array_interface__
    if ctx.backend != "cuda":
        raise UnsupportedError("from_dlpack: a CUDA array cannot be read by a context on the CPU backend")
    typestr = cai["typestr"]
    try:
        nd = np.dtype(typestr)
    except TypeError:
        raise DtypeError("from_dlpack: typestr %r is not supported" % (typestr,)) from None
    dt = _dt.dtype(nd)
    shape = tuple(cai["shape"])
    strides = cai.get("strides")
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
