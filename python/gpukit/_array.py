"""GPUArray: a gpukit tensor with NumPy's manners.

A GPUArray is one gk_tensor handle of a Context: storage from the context's
memory pool (device memory on CUDA, host memory on the CPU backend), a
shape, strides and a dtype. Slicing, indexing with integers, slices, None
and ..., reshape (when the strides allow it), transpose and .T are views
that share storage (gk_view_*); everything else makes a new array. Ops run
asynchronously on the calling thread's current stream; to_numpy() and
__array__ wait for them.

Arithmetic follows NumPy's broadcasting. Python scalars take the array's
dtype (a float with an integer array gives float32); arrays of two dtypes
meet in gpukit.dtypes.result_type. Comparisons give uint8 arrays of 0 / 1
(NumPy's bool). `/` on two integer arrays divides in float32.
"""
import collections
import itertools
import numbers
import operator

import numpy as np

from . import dtypes as _dt
from ._gpukit import ffi, lib
from .context import _resolve
from .errors import DtypeError, InvalidArgumentError, InvalidHandleError, ShapeError, StateError

__all__ = [
    "GPUArray", "empty", "zeros", "ones", "full", "arange", "asarray", "array", "from_numpy", "to_numpy",
    "empty_like", "zeros_like", "ones_like", "full_like",
]

_new_t = ffi.new
_GK_OK = lib.GK_OK
_T = "gk_tensor *"


def _shape_arg(shape):
    if isinstance(shape, numbers.Integral):
        shape = (int(shape),)
    try:
        shape = tuple(operator.index(s) for s in shape)
    except TypeError:
        raise InvalidArgumentError("shape must be an int or a sequence of ints, not %r" % (shape,)) from None
    if len(shape) > lib.GK_MAX_DIMS:
        raise ShapeError("gpukit arrays have at most %d dims; shape %r has %d" % (lib.GK_MAX_DIMS, shape, len(shape)))
    for s in shape:
        if s < 0:
            raise ShapeError("negative dimension in shape %r" % (shape,))
    return shape


def _broadcast_shapes(a, b):
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + a
    b = (1,) * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise ShapeError("shapes %r and %r do not broadcast" % (a, b))
    return tuple(out)


def _wrap(ctx, tp, shape, dt):
    """A GPUArray owning the handle in tp (a gk_tensor *)."""
    a = object.__new__(GPUArray)
    a._ctx = ctx
    a._tp = tp
    a._t = tp[0]
    a._shape = shape
    a._dtype = dt
    a._pins = 0
    a._freed = False
    return a


# ---- foreign memory (gk_tensor_wrap): the objects that own it, kept until
# the C library releases it. The release callback runs with the context's
# lock held, so it only queues the key; _drain drops the owners (whose
# deleters may call gpukit) after the C call has returned.
_keepers = {}
_released = collections.deque()
_keys = itertools.count(1)


@ffi.def_extern()
def gkpy_wrap_release(user):
    _released.append(int(ffi.cast("uintptr_t", user)))


def _drain():
    """Lets go of the owners of foreign memory that gpukit has released."""
    while _released:
        try:
            key = _released.popleft()
        except IndexError:  # another thread took the last one
            return
        _keepers.pop(key, None)


def _wrap_foreign(ctx, dt, shape, strides, address, keeper):
    """A GPUArray over memory gpukit does not own (gk_tensor_wrap): address a
    device address on CUDA, a host address on the CPU backend; strides in
    elements or None (row-major). keeper (the producer's object) is held
    until gpukit releases the memory: after the array, its views and the work
    queued on them are gone."""
    nd = len(shape)
    key = next(_keys)
    _keepers[key] = keeper
    tp = _new_t(_T)
    st = lib.gk_tensor_wrap(ctx._raw(), dt.gk, nd, ffi.new("int64_t[]", list(shape) or [0]),
                            ffi.new("int64_t[]", list(strides)) if strides is not None and nd else ffi.NULL,
                            int(address), lib.gkpy_wrap_release, ffi.cast("void *", key), tp)
    if st != _GK_OK:
        _keepers.pop(key, None)  # (a failed wrap never releases)
        raise ctx._error(st)
    _drain()  # (a wrap without elements is released at once)
    return _wrap(ctx, tp, tuple(shape), dt)


def _wrap_info(ctx, tp):
    """A GPUArray owning tp, its shape and dtype read back from the library."""
    info = _new_t("gk_tensor_info *")
    st = lib.gk_tensor_info_get(ctx._raw(), tp[0], info)
    if st != _GK_OK:
        lib.gk_tensor_free(ctx._raw(), tp[0])
        raise ctx._error(st)
    return _wrap(ctx, tp, tuple(info.shape[0:info.ndim]), _dt.from_gk(info.dtype))


class GPUArray:
    """An array of a gpukit context (see the module's docstring).

    Made by gpukit.zeros / ones / empty / full / arange / asarray /
    from_numpy and by ops; not by calling GPUArray() directly."""

    __slots__ = ("_ctx", "_tp", "_t", "_shape", "_dtype", "_pins", "_freed", "__weakref__")
    __array_ufunc__ = None  # NumPy defers to GPUArray's reflected operators (np_array + gpu_array)
    __hash__ = None

    def __init__(self, *args, **kwargs):
        raise TypeError("GPUArray is made by gpukit.asarray / zeros / empty / ..., not directly")

    # ---- lifetime
    def __del__(self):
        try:
            if self._freed:
                return
            self._freed = True
            p = self._ctx._ptr
            if p is not None:
                while self._pins > 0:
                    lib.gk_tensor_unpin(p, self._t)
                    self._pins -= 1
                lib.gk_tensor_free(p, self._t)
                if _released:
                    _drain()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass

    def free(self):
        """Frees the array's handle now (its storage goes back to the pool when
        no view or queued work uses it). Using the array afterwards raises
        InvalidHandleError."""
        if self._freed:
            return
        p = self._ctx._raw()
        if self._pins:
            raise StateError("GPUArray.free: the array's memory is exported (__cuda_array_interface__) and "
                             "may be in use there; it is freed when the array is garbage-collected")
        self._freed = True
        st = lib.gk_tensor_free(p, self._t)
        if _released:
            _drain()
        if st != _GK_OK:
            raise self._ctx._error(st)

    def _raw(self):
        if self._freed:
            raise InvalidHandleError("the GPUArray was freed")
        return self._ctx._raw()

    @property
    def ctx(self):
        """The Context the array belongs to."""
        return self._ctx

    context = ctx

    # ---- properties
    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        """The gpukit DataType (compares equal to NumPy dtypes and names: a.dtype == np.float32)."""
        return self._dtype

    @property
    def ndim(self):
        return len(self._shape)

    @property
    def size(self):
        n = 1
        for s in self._shape:
            n *= s
        return n

    @property
    def itemsize(self):
        return self._dtype.itemsize

    @property
    def nbytes(self):
        return self.size * self._dtype.itemsize

    def _info(self):
        info = _new_t("gk_tensor_info *")
        st = lib.gk_tensor_info_get(self._raw(), self._t, info)
        if st != _GK_OK:
            raise self._ctx._error(st)
        return info

    @property
    def strides(self):
        """Strides in bytes, as NumPy gives them."""
        info = self._info()
        return tuple(int(s) * self._dtype.itemsize for s in info.strides[0:info.ndim])

    @property
    def offset(self):
        """The first element's offset from the storage's start, in elements."""
        return int(self._info().offset)

    def is_contiguous(self):
        """Whether the array is dense row-major (a method, as torch's and PyGPUkit's)."""
        return bool(self._info().contiguous)

    @property
    def is_view(self):
        return bool(self._info().is_view)

    @property
    def resident(self):
        """Whether the storage is on the device (not evicted to host memory)."""
        return bool(self._info().resident)

    @property
    def pinned(self):
        """Whether the storage is pinned (never evicted)."""
        return bool(self._info().pinned)

    @property
    def device(self):
        """"cuda" or "cpu": where the storage lives."""
        return self._ctx.backend

    @property
    def T(self):
        return self.transpose()

    @property
    def mT(self):
        """The last two dims swapped (a view)."""
        if self.ndim < 2:
            raise ShapeError("mT needs at least 2 dims, the array has %d" % self.ndim)
        return self.swapaxes(-1, -2)

    @property
    def ptr(self):
        """The address of the first element (gk_tensor_ptr): a device address on
        CUDA, a host address on the CPU backend. It stays valid while the
        storage is not evicted: pin() the array to keep it."""
        v = _new_t("uint64_t *")
        st = lib.gk_tensor_ptr(self._raw(), self._t, v)
        if st != _GK_OK:
            raise self._ctx._error(st)
        return int(v[0])

    data_ptr = ptr
    device_ptr = ptr  # PyGPUkit's name

    @property
    def on_gpu(self):
        """Whether the storage is device memory now (CUDA backend, not evicted)."""
        return self._ctx.backend == "cuda" and self.resident

    def __len__(self):
        if not self._shape:
            raise TypeError("len() of a 0-d GPUArray")
        return self._shape[0]

    def __repr__(self):
        if self._freed:
            return "GPUArray(<freed>, dtype=%s)" % self._dtype.name
        if self._ctx._ptr is None:
            return "GPUArray(<context closed>, dtype=%s)" % self._dtype.name
        if self.size <= 1000:
            try:
                body = np.array2string(self.to_numpy(), separator=", ", prefix="GPUArray(")
                return "GPUArray(%s, shape=%s, dtype=%s)" % (body, self._shape, self._dtype.name)
            except Exception:  # values unavailable (an error in queued work): say so, never raise in repr
                pass
        return "GPUArray(shape=%s, dtype=%s, device=%s)" % (self._shape, self._dtype.name, self._ctx.backend)

    __str__ = __repr__

    # ---- memory pool
    def pin(self):
        """Pins the storage (never evicted; pins nest). Returns self."""
        self._ctx._check(lib.gk_tensor_pin(self._raw(), self._t))
        return self

    def unpin(self):
        self._ctx._check(lib.gk_tensor_unpin(self._raw(), self._t))
        return self

    def evict(self):
        """Moves idle storage to host memory now (it comes back on next use)."""
        self._ctx._check(lib.gk_tensor_evict(self._raw(), self._t))
        return self

    # ---- host transfers
    def to_numpy(self):
        """A NumPy copy of the values (waits for the stream). bfloat16 and fp8
        come as their bit patterns (uint16 / uint8) unless ml_dtypes is installed."""
        p = self._raw()
        dt = self._dtype
        out = np.empty(self._shape, dtype=dt.numpy_dtype)
        if out.nbytes == 0:
            return out
        tp = _new_t(_T)
        st = lib.gk_contiguous(p, self._t, tp)
        if st != _GK_OK:
            raise self._ctx._error(st)
        st = lib.gk_copy_to_host(p, tp[0], ffi.from_buffer(out, require_writable=True), out.nbytes)
        lib.gk_tensor_free(p, tp[0])
        if st != _GK_OK:
            raise self._ctx._error(st)
        return out

    def get(self):
        """CuPy's name for to_numpy()."""
        return self.to_numpy()

    def __array__(self, dtype=None, copy=None):
        a = self.to_numpy()
        if dtype is not None:
            a = a.astype(dtype, copy=False)
        return a

    def __reduce__(self):
        """Pickles the values; unpickling uploads them to the current context."""
        return (_unpickle, (self.to_numpy(), self._dtype.name))

    def tolist(self):
        return self.to_numpy().tolist()

    def item(self):
        """The single value of a one-element array, as a Python number."""
        if self.size != 1:
            raise ValueError("item(): the array has %d elements, not 1" % self.size)
        v = self.to_numpy().reshape(())
        if not self._dtype.is_numpy_native:
            v = self.astype(_dt.float32).to_numpy().reshape(())
        return v.item()

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self._dtype.is_float:
            raise TypeError("only integer GPUArrays can be used as an index")
        return int(self.item())

    def __bool__(self):
        if self.size != 1:
            raise ValueError("the truth value of a GPUArray with %d elements is ambiguous: use .any() or .all()"
                             % self.size)
        return bool(self.item())

    def copy_from(self, src):
        """Writes src (a GPUArray, NumPy array, list or scalar; broadcast to
        this array's shape) into this array; returns self."""
        _assign(self, src)
        return self

    def set(self, src):
        """CuPy's name for copy_from (from a NumPy array)."""
        return self.copy_from(src)

    # ---- views
    def _view(self, fn, *args):
        tp = _new_t(_T)
        st = fn(self._raw(), self._t, *args, tp)
        if st != _GK_OK:
            raise self._ctx._error(st)
        return _wrap_info(self._ctx, tp)

    def reshape(self, *shape):
        """A view with the new shape (one dim may be -1), or a copy when the
        strides do not allow a view (as NumPy does)."""
        if len(shape) == 1 and not isinstance(shape[0], numbers.Integral):
            shape = shape[0]
        shape = tuple(operator.index(s) for s in shape)
        if len(shape) > lib.GK_MAX_DIMS:
            raise ShapeError("reshape: at most %d dims, got %r" % (lib.GK_MAX_DIMS, shape))
        arr = ffi.new("int64_t[]", list(shape) or [0])
        tp = _new_t(_T)
        p = self._raw()
        st = lib.gk_view_reshape(p, self._t, len(shape), arr, tp)
        if st == lib.GK_ERR_SHAPE and "without a copy" in ffi.string(lib.gk_last_error(p)).decode():
            c = self.copy()
            return c.reshape(shape)
        if st != _GK_OK:
            raise self._ctx._error(st)
        return _wrap_info(self._ctx, tp)

    view = reshape

    def narrow(self, offset, length):
        """Rows offset..offset+length of dim 0 as a view (PyGPUkit's narrow)."""
        n = self._shape[0] if self._shape else 0
        if offset < 0 or length < 0 or offset + length > n:
            raise IndexError("narrow(%d, %d) is outside dim 0 of size %d" % (offset, length, n))
        return self._view(lib.gk_view_slice, 0, int(offset), int(offset + length), 1)

    def slice_rows(self, num_rows):
        """The first num_rows rows as a view (PyGPUkit's slice_rows)."""
        return self.narrow(0, num_rows)

    def flatten(self):
        """A contiguous 1-d copy."""
        return self.copy().reshape(-1)

    def ravel(self):
        """A 1-d view when the strides allow it, else a copy."""
        return self.reshape(-1)

    def transpose(self, *axes):
        """A view with the axes permuted (reversed when none are given)."""
        n = self.ndim
        if len(axes) == 1 and not isinstance(axes[0], numbers.Integral):
            axes = tuple(axes[0]) if axes[0] is not None else ()
        if not axes:
            axes = tuple(range(n - 1, -1, -1))
        if len(axes) != n:
            raise ShapeError("transpose: %d axes given for a %d-d array" % (len(axes), n))
        perm = ffi.new("int[]", [operator.index(x) for x in axes] or [0])
        return self._view(lib.gk_view_permute, perm)

    permute = transpose

    def swapaxes(self, a, b):
        return self._view(lib.gk_view_transpose, int(a), int(b))

    def squeeze(self, axis=None):
        """Removes dims of size 1 (all of them, or those in axis)."""
        if axis is None:
            axes = [i for i, s in enumerate(self._shape) if s == 1]
        else:
            axes = [axis] if isinstance(axis, numbers.Integral) else list(axis)
            axes = [a + self.ndim if a < 0 else a for a in axes]
        out = self
        for a in sorted(axes, reverse=True):
            out = out._view(lib.gk_view_squeeze, int(a))
        return out if out is not self else self._view(lib.gk_view_permute, ffi.new("int[]", list(range(self.ndim)) or [0]))

    def expand_dims(self, axis):
        """A view with a new dim of size 1 at axis."""
        return self._view(lib.gk_view_unsqueeze, int(axis))

    unsqueeze = expand_dims

    def __getitem__(self, key):
        return _getitem(self, key)

    def __setitem__(self, key, value):
        view = _getitem(self, key, for_write=True)
        _assign(view, value)

    def __iter__(self):
        if not self._shape:
            raise TypeError("iteration over a 0-d GPUArray")
        for i in range(self._shape[0]):
            yield self[i]

    # ---- copies and conversions
    def copy(self):
        """A contiguous copy."""
        p = self._raw()
        tp = _new_t(_T)
        arr = ffi.new("int64_t[]", list(self._shape) or [0])
        st = lib.gk_tensor_empty(p, self._dtype.gk, len(self._shape), arr, tp)
        if st != _GK_OK:
            raise self._ctx._error(st)
        out = _wrap(self._ctx, tp, self._shape, self._dtype)
        st = lib.gk_copy(p, out._t, self._t)
        if st != _GK_OK:
            raise self._ctx._error(st)
        return out

    clone = copy

    def contiguous(self):
        """self when contiguous (a view of it), else a contiguous copy (gk_contiguous)."""
        return self._view(lib.gk_contiguous)

    def astype(self, dtype, copy=True):
        """The values converted to dtype (gk_cast: round to nearest even,
        float -> int truncates and saturates, int -> int wraps)."""
        dt = _dt.dtype(dtype)
        if dt is self._dtype:
            return self.copy() if copy else self
        tp = _new_t(_T)
        st = lib.gk_cast_new(self._raw(), self._t, dt.gk, tp)
        if st != _GK_OK:
            raise self._ctx._error(st)
        return _wrap(self._ctx, tp, self._shape, dt)

    def fill(self, value):
        """Sets every element to value (gk_fill); returns self."""
        self._ctx._check(lib.gk_fill(self._raw(), self._t, float(value)))
        return self

    # ---- arithmetic
    def __add__(self, o):
        return _arith(self, o, lib.gk_add_new, False)

    def __radd__(self, o):
        return _arith(self, o, lib.gk_add_new, True)

    def __sub__(self, o):
        return _arith(self, o, lib.gk_sub_new, False)

    def __rsub__(self, o):
        return _arith(self, o, lib.gk_sub_new, True)

    def __mul__(self, o):
        return _arith(self, o, lib.gk_mul_new, False)

    def __rmul__(self, o):
        return _arith(self, o, lib.gk_mul_new, True)

    def __truediv__(self, o):
        return _truediv(self, o, False)

    def __rtruediv__(self, o):
        return _truediv(self, o, True)

    def __pow__(self, o):
        return _binop(self, o, lib.GK_BINARY_POW, False)

    def __rpow__(self, o):
        return _binop(self, o, lib.GK_BINARY_POW, True)

    def __iadd__(self, o):
        return _inplace(self, o, lib.gk_add)

    def __isub__(self, o):
        return _inplace(self, o, lib.gk_sub)

    def __imul__(self, o):
        return _inplace(self, o, lib.gk_mul)

    def __itruediv__(self, o):
        if not self._dtype.is_float:
            raise DtypeError("/= on an integer array: true division gives floats (use astype first)")
        return _inplace(self, o, lib.gk_div)

    def __neg__(self):
        if self._dtype.is_float:
            return _unary(self, lib.GK_UNARY_NEG)
        out = empty(self._shape, self._dtype, ctx=self._ctx)
        self._ctx._check(lib.gk_scale(self._raw(), out._t, self._t, -1.0))
        return out

    def __pos__(self):
        return self.copy()

    def __abs__(self):
        return _unary(self, lib.GK_UNARY_ABS)

    def __matmul__(self, o):
        if type(o) is GPUArray and o._dtype is self._dtype and len(self._shape) == 2 and len(o._shape) == 2:
            tp = _new_t(_T)  # the common case straight to gk_matmul_new (default descriptor)
            st = lib.gk_matmul_new(self._raw(), self._t, o._t, self._dtype.gk, ffi.NULL, tp)
            if st != _GK_OK:
                raise self._ctx._error(st)
            return _wrap(self._ctx, tp, (self._shape[0], o._shape[1]), self._dtype)
        from .ops import matmul
        if not isinstance(o, GPUArray):
            o = _operand(self, o)
            if o is NotImplemented:
                return NotImplemented
        return matmul(self, o)

    def __rmatmul__(self, o):
        from .ops import matmul
        o = _operand(self, o)
        if o is NotImplemented:
            return NotImplemented
        return matmul(o, self)

    def __eq__(self, o):
        return _compare(self, o, lib.GK_CMP_EQ)

    def __ne__(self, o):
        return _compare(self, o, lib.GK_CMP_NE)

    def __lt__(self, o):
        return _compare(self, o, lib.GK_CMP_LT)

    def __le__(self, o):
        return _compare(self, o, lib.GK_CMP_LE)

    def __gt__(self, o):
        return _compare(self, o, lib.GK_CMP_GT)

    def __ge__(self, o):
        return _compare(self, o, lib.GK_CMP_GE)

    # ---- reductions (gpukit.ops.reduce)
    def sum(self, axis=None, keepdims=False, dtype=None, out=None):
        from .ops import sum as f
        return f(self, axis=axis, keepdims=keepdims, dtype=dtype, out=out)

    def mean(self, axis=None, keepdims=False, dtype=None, out=None):
        from .ops import mean as f
        return f(self, axis=axis, keepdims=keepdims, dtype=dtype, out=out)

    def max(self, axis=None, keepdims=False, out=None):
        from .ops import max as f
        return f(self, axis=axis, keepdims=keepdims, out=out)

    def min(self, axis=None, keepdims=False, out=None):
        from .ops import min as f
        return f(self, axis=axis, keepdims=keepdims, out=out)

    def argmax(self, axis=None, keepdims=False, out=None):
        from .ops import argmax as f
        return f(self, axis=axis, keepdims=keepdims, out=out)

    def argmin(self, axis=None, keepdims=False, out=None):
        from .ops import argmin as f
        return f(self, axis=axis, keepdims=keepdims, out=out)

    def var(self, axis=None, keepdims=False, ddof=0, out=None):
        from .ops import var as f
        return f(self, axis=axis, keepdims=keepdims, ddof=ddof, out=out)

    def std(self, axis=None, keepdims=False, ddof=0):
        from .ops import std as f
        return f(self, axis=axis, keepdims=keepdims, ddof=ddof)

    def any(self, axis=None, keepdims=False):
        return (self != 0).astype(_dt.float32).max(axis=axis, keepdims=keepdims).astype(_dt.uint8)

    def all(self, axis=None, keepdims=False):
        return (self != 0).astype(_dt.float32).min(axis=axis, keepdims=keepdims).astype(_dt.uint8)

    def cumsum(self, axis=-1):
        from .ops import cumsum as f
        return f(self, axis=axis)

    def clip(self, lo=None, hi=None):
        from .ops import clamp
        return clamp(self, lo, hi)

    # ---- interop (gpukit._interop)
    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        from ._interop import dlpack_export
        return dlpack_export(self, stream, dl_device, copy)

    def __dlpack_device__(self):
        from ._interop import dlpack_device
        return dlpack_device(self)

    @property
    def __cuda_array_interface__(self):
        from ._interop import cuda_array_interface
        return cuda_array_interface(self)


# ---- operands and elementwise helpers
def _operand(a, x):
    """x as a GPUArray of a's context: Python scalars become cached 0-d
    arrays of a's dtype (a float with an integer a: float32); NumPy arrays
    and lists are uploaded; other types give NotImplemented."""
    if isinstance(x, GPUArray):
        return x
    if isinstance(x, (bool, np.bool_)):
        return a._ctx._scalar(int(x), a._dtype)
    if isinstance(x, numbers.Integral):
        return a._ctx._scalar(int(x), a._dtype)
    if isinstance(x, numbers.Real):
        dt = a._dtype if a._dtype.is_float else _dt.float32
        return a._ctx._scalar(float(x), dt)
    if isinstance(x, (np.ndarray, list, tuple)) or hasattr(x, "__array_interface__"):
        return from_numpy(np.asarray(x), ctx=a._ctx)
    return NotImplemented


def _promote(a, b):
    dt = _dt.result_type(a._dtype, b._dtype)
    if a._dtype is not dt:
        a = a.astype(dt)
    if b._dtype is not dt:
        b = b.astype(dt)
    return a, b


def _arith(a, b, fn, swap):
    if type(b) is not GPUArray:
        b = _operand(a, b)
        if b is NotImplemented:
            return NotImplemented
    if a._dtype is not b._dtype:
        a, b = _promote(a, b)
    if swap:
        a, b = b, a
    ctx = a._ctx
    tp = _new_t(_T)
    st = fn(a._raw(), a._t, b._t, tp)
    if st != _GK_OK:
        raise ctx._error(st)
    sa, sb = a._shape, b._shape
    return _wrap(ctx, tp, sa if sa == sb else _broadcast_shapes(sa, sb), a._dtype)


def _truediv(a, b, swap):
    if type(b) is not GPUArray:
        if isinstance(b, numbers.Real) and not isinstance(b, numbers.Integral) and not a._dtype.is_float:
            a = a.astype(_dt.float32)
        b = _operand(a, b)
        if b is NotImplemented:
            return NotImplemented
    if not a._dtype.is_float and not b._dtype.is_float:
        a = a.astype(_dt.float32)
        b = b.astype(_dt.float32)
    return _arith(a, b, lib.gk_div_new, swap)


def _inplace(a, b, fn):
    if type(b) is not GPUArray:
        b = _operand(a, b)
        if b is NotImplemented:
            return NotImplemented
    if b._dtype is not a._dtype:
        b = b.astype(a._dtype)
    a._ctx._check(fn(a._raw(), a._t, a._t, b._t))
    return a


def _binop(a, b, op, swap):
    if type(b) is not GPUArray:
        b = _operand(a, b)
        if b is NotImplemented:
            return NotImplemented
    if a._dtype is not b._dtype:
        a, b = _promote(a, b)
    if swap:
        a, b = b, a
    tp = _new_t(_T)
    st = lib.gk_binary_new(a._raw(), a._t, b._t, op, tp)
    if st != _GK_OK:
        raise a._ctx._error(st)
    sa, sb = a._shape, b._shape
    return _wrap(a._ctx, tp, sa if sa == sb else _broadcast_shapes(sa, sb), a._dtype)


def _compare(a, b, op):
    if type(b) is not GPUArray:
        b = _operand(a, b)
        if b is NotImplemented:
            return NotImplemented
    if a._dtype is not b._dtype:
        a, b = _promote(a, b)
    tp = _new_t(_T)
    st = lib.gk_compare_new(a._raw(), a._t, b._t, op, tp)
    if st != _GK_OK:
        raise a._ctx._error(st)
    sa, sb = a._shape, b._shape
    return _wrap(a._ctx, tp, sa if sa == sb else _broadcast_shapes(sa, sb), _dt.uint8)


def _unary(a, op, param=0.0):
    tp = _new_t(_T)
    st = lib.gk_unary_new(a._raw(), a._t, op, float(param), tp)
    if st != _GK_OK:
        raise a._ctx._error(st)
    return _wrap(a._ctx, tp, a._shape, a._dtype)


def _assign(view, value):
    """view[...] = value (broadcast; cast to view's dtype)."""
    p = view._raw()
    if isinstance(value, (numbers.Number, np.number, np.bool_)) and not isinstance(value, complex):
        if isinstance(value, numbers.Integral) and abs(int(value)) > 2 ** 53:  # gk_fill takes a double
            value = view._ctx._scalar(int(value), view._dtype)
        else:
            view._ctx._check(lib.gk_fill(p, view._t, float(value)))
            return
    if not isinstance(value, GPUArray):
        value = from_numpy(np.asarray(value), ctx=view._ctx)
    if value._dtype is view._dtype:
        view._ctx._check(lib.gk_copy(p, view._t, value._t))
    else:
        view._ctx._check(lib.gk_cast(p, view._t, value._t))


# ---- indexing
def _getitem(a, key, for_write=False):
    if not isinstance(key, tuple):
        key = (key,)
    # advanced indexing: one integer array / list (a copy, gk_index_select) or a boolean mask
    adv = [i for i, k in enumerate(key) if isinstance(k, (list, np.ndarray, GPUArray))]
    if adv:
        if for_write:
            raise IndexError("assignment through an integer array or mask index is not supported; "
                             "index with ints and slices (views)")
        return _advanced(a, key, adv)
    n_ell = sum(1 for k in key if k is Ellipsis)
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_real > a.ndim:
        raise IndexError("too many indices for a %d-d GPUArray: %d given" % (a.ndim, n_real))
    if n_ell:
        i = key.index(Ellipsis)
        key = key[:i] + (slice(None),) * (a.ndim - n_real) + key[i + 1:]
    else:
        key = key + (slice(None),) * (a.ndim - n_real)
    cur = a
    dim = 0  # dim of cur that the next key entry addresses
    squeeze = []
    reverse = []
    for k in key:
        if k is None:
            cur = cur._view(lib.gk_view_unsqueeze, dim)
            dim += 1
            continue
        n = cur._shape[dim]
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            if step < 0:  # a negative step has no view: slice the range, then gather reversed below
                if for_write:
                    raise IndexError("assignment through a negative-step slice is not supported")
                length = len(range(start, stop, step))
                first = start + (length - 1) * step if length else 0
                if length:
                    cur = cur._view(lib.gk_view_slice, dim, first, start + 1, -step)
                else:
                    cur = cur._view(lib.gk_view_slice, dim, 0, 0, 1)
                reverse.append(dim)
            elif not (start == 0 and stop == n and step == 1):
                cur = cur._view(lib.gk_view_slice, dim, start, stop, step)
            dim += 1
            continue
        try:
            i = operator.index(k)
        except TypeError:
            raise IndexError("GPUArray indices are ints, slices, None, ... or one integer array; got %r" % (k,)) from None
        if i < -n or i >= n:
            raise IndexError("index %d is out of bounds for axis %d with size %d" % (i, dim, n))
        if i < 0:
            i += n
        cur = cur._view(lib.gk_view_slice, dim, i, i + 1, 1)
        squeeze.append(dim)
        dim += 1
    for d in reversed(squeeze):
        cur = cur._view(lib.gk_view_squeeze, d)
        reverse = [r - 1 if r > d else r for r in reverse]
    for d in reverse:
        m = cur._shape[d]
        if m > 1:
            idx = from_numpy(np.arange(m - 1, -1, -1, dtype=np.int64), ctx=a._ctx)
            from .ops import index_select
            cur = index_select(cur.contiguous(), d, idx)
    if cur is a:  # a[...] / a[:] : a new view, as NumPy
        cur = a._view(lib.gk_view_slice, 0, 0, a._shape[0], 1) if a.ndim else a.reshape(())
    return cur


def _advanced(a, key, adv):
    from .ops import index_select
    if len(adv) != 1:
        raise IndexError("only one integer-array index is supported (got %d)" % len(adv))
    pos = adv[0]
    k = key[pos]
    if isinstance(k, GPUArray):
        if k._dtype is _dt.uint8 and k._shape == a._shape and len(key) == 1:
            k = k.to_numpy().astype(bool)
        elif k._dtype in (_dt.int32, _dt.int64) and k.ndim == 1:
            pass
        else:
            raise IndexError("a GPUArray index must be a 1-d int32 / int64 array (or a uint8 mask of the array's shape)")
    else:
        k = np.asarray(k)
    if isinstance(k, np.ndarray) and k.dtype == np.bool_:
        if len(key) != 1 or k.shape != a._shape:
            raise IndexError("a boolean mask must have the array's shape %r (got %r)" % (a._shape, k.shape))
        flat = a.reshape(-1)
        return index_select(flat.contiguous(), 0, from_numpy(np.flatnonzero(k).astype(np.int64), ctx=a._ctx))
    if isinstance(k, np.ndarray):
        if k.dtype.kind not in "iu" or k.ndim != 1:
            raise IndexError("an array index must be a 1-d integer array (got %s %r)" % (k.dtype, k.shape))
        if k.size and (k.min() < -a._shape[_axis_of(key, pos)] or k.max() >= a._shape[_axis_of(key, pos)]):
            raise IndexError("an index in the array is out of bounds for axis %d with size %d"
                             % (_axis_of(key, pos), a._shape[_axis_of(key, pos)]))
        k = np.where(k < 0, k + a._shape[_axis_of(key, pos)], k).astype(np.int64)
        k = from_numpy(k, ctx=a._ctx)
    rest = key[:pos] + (slice(None),) + key[pos + 1:]
    base = _getitem(a, rest)
    axis = sum(1 for x in key[:pos] if not isinstance(x, numbers.Integral) and x is not Ellipsis)
    if any(x is Ellipsis for x in key[:pos]):
        axis = base.ndim - sum(1 for x in key[pos + 1:] if x is not None and not isinstance(x, numbers.Integral) and x is not Ellipsis) - 1
    return index_select(base.contiguous(), axis, k)


def _axis_of(key, pos):
    if any(x is Ellipsis for x in key[:pos]):
        raise IndexError("an integer-array index after '...' is not supported")
    return sum(1 for x in key[:pos] if x is not None)


# ---- constructors
def empty(shape, dtype="float32", ctx=None):
    """A new uninitialised array from the pool."""
    ctx = _resolve(ctx)
    shape = _shape_arg(shape)
    dt = _dt.dtype(dtype)
    tp = _new_t(_T)
    st = lib.gk_tensor_empty(ctx._raw(), dt.gk, len(shape), ffi.new("int64_t[]", list(shape) or [0]), tp)
    if st != _GK_OK:
        raise ctx._error(st)
    return _wrap(ctx, tp, shape, dt)


def full(shape, fill_value, dtype=None, ctx=None):
    """A new array of shape filled with fill_value (dtype default: float32
    for a float, int64 for an int)."""
    if dtype is None:
        dtype = _dt.int64 if isinstance(fill_value, numbers.Integral) and not isinstance(fill_value, bool) else _dt.float32
    a = empty(shape, dtype, ctx)
    if isinstance(fill_value, numbers.Integral) and abs(int(fill_value)) > 2 ** 53:
        arr = np.full(a._shape, int(fill_value), dtype=np.int64)
        _assign(a, from_numpy(arr, ctx=a._ctx))
    else:
        a._ctx._check(lib.gk_fill(a._raw(), a._t, float(fill_value)))
    return a


def zeros(shape, dtype="float32", ctx=None):
    return full(shape, 0.0, dtype, ctx)


def ones(shape, dtype="float32", ctx=None):
    return full(shape, 1.0, dtype, ctx)


def empty_like(a, dtype=None):
    return empty(a.shape, dtype or a.dtype, a.ctx)


def zeros_like(a, dtype=None):
    return zeros(a.shape, dtype or a.dtype, a.ctx)


def ones_like(a, dtype=None):
    return ones(a.shape, dtype or a.dtype, a.ctx)


def full_like(a, fill_value, dtype=None):
    return full(a.shape, fill_value, dtype or a.dtype, a.ctx)


def arange(start, stop=None, step=1, dtype=None, ctx=None):
    """Evenly spaced values as numpy.arange (computed on the host, uploaded)."""
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        ints = all(isinstance(v, numbers.Integral) for v in (start, stop, step))
        dtype = _dt.int64 if ints else _dt.float32
    dt = _dt.dtype(dtype)
    host_dt = dt.numpy_dtype if dt.is_numpy_native else np.float64
    return from_numpy(np.arange(start, stop, step, dtype=host_dt), dtype=dt, ctx=ctx)


_BITS = (_dt.bfloat16, _dt.float8_e4m3fn, _dt.float8_e5m2)  # taken as bit patterns from uint16 / uint8
# NumPy dtypes gpukit lacks, widened on the host to one it has before upload
_WIDEN = {"b": np.uint8, "?": np.uint8, "h": np.int32, "H": np.int32, "I": np.int64, "L": np.int64, "Q": np.int64,
          "l": np.int64, "q": np.int64, "g": np.float64}


def from_numpy(a, dtype=None, ctx=None):
    """Uploads a NumPy array (a copy; non-contiguous arrays are made
    contiguous on the host first). dtype: the gpukit dtype wanted; the values
    are converted on the device with gk_cast's rules, except that a uint16
    array read as bfloat16 (a uint8 array as an fp8 type) is taken as the bit
    patterns it holds, so to_numpy() round-trips. Object, string, complex
    and structured arrays are refused (DtypeError)."""
    ctx = _resolve(ctx)
    if isinstance(a, GPUArray):
        return a.astype(dtype) if dtype is not None else a.copy()
    try:
        a = np.asarray(a)
    except (ValueError, TypeError) as e:  # ragged lists and the like
        raise InvalidArgumentError("cannot make an array of the %s given: %s" % (type(a).__name__, e)) from None
    if a.dtype.kind in "OSUVcMm" and not (dtype is None and a.dtype in _dt._BY_NUMPY):
        if a.dtype.kind != "V" or a.dtype not in _dt._BY_NUMPY:
            raise DtypeError("gpukit arrays hold numbers: a NumPy array of dtype %s (%s) cannot be uploaded"
                             % (a.dtype, {"O": "objects", "S": "bytes", "U": "strings", "V": "records", "c": "complex",
                                          "M": "datetimes", "m": "timedeltas"}[a.dtype.kind]))
    if a.ndim > lib.GK_MAX_DIMS:
        raise ShapeError("gpukit arrays have at most %d dims; the NumPy array has %d" % (lib.GK_MAX_DIMS, a.ndim))
    if a.dtype.byteorder == ">":
        a = a.astype(a.dtype.newbyteorder("="))
    want = _dt.dtype(dtype) if dtype is not None else None
    if want is not None and (a.dtype == want.numpy_dtype or (want in _BITS and a.dtype == want.bits_dtype)):
        src = want  # the values (or bit patterns) as they are
    else:
        if a.dtype not in _dt._BY_NUMPY:
            w = _WIDEN.get(a.dtype.char)
            if w is None:
                raise DtypeError("Unsupported dtype %s: gpukit has %s" % (a.dtype, ", ".join(d.name for d in _dt.all_dtypes)))
            a = a.astype(w)
        src = _dt._BY_NUMPY[a.dtype]
    if not a.flags.c_contiguous:
        a = a.copy(order="C")  # (np.ascontiguousarray would make a 0-d array 1-d)
    shape = a.shape
    tp = _new_t(_T)
    st = lib.gk_tensor_from_host(ctx._raw(), src.gk, len(shape), ffi.new("int64_t[]", list(shape) or [0]),
                                 ffi.from_buffer(a) if a.nbytes else ffi.NULL, tp)
    if st != _GK_OK:
        raise ctx._error(st)
    out = _wrap(ctx, tp, tuple(shape), src)
    if want is not None and want is not src:
        out = out.astype(want, copy=False)
    return out


def _share_numpy(a, want, ctx):
    """A GPUArray over a NumPy array's own memory (CPU backend), or the reason
    it cannot be one."""
    if ctx.backend != "cpu":
        return None, "the context runs on CUDA, where host memory is not device memory"
    if a.dtype.kind == "b":
        return None, "a bool array (gpukit's uint8 could store values that are not 0 or 1)"
    src = _dt._BY_NUMPY.get(a.dtype) if a.dtype.byteorder in "=|<" else None
    if want is not None and want in _BITS and a.dtype == want.bits_dtype:
        src = want  # bit patterns, as from_numpy takes them
    if src is None:
        return None, "dtype %s is not one of gpukit's" % a.dtype
    if want is not None and want is not src:
        return None, "dtype %s differs from the array's %s" % (want.name, a.dtype)
    if not a.flags.writeable:
        return None, "the array is read-only (gpukit's ops may write into what they are given)"
    if not a.flags.aligned:
        return None, "the array is not aligned to its element size"
    if a.ndim > lib.GK_MAX_DIMS:
        return None, "%d dims (gpukit has at most %d)" % (a.ndim, lib.GK_MAX_DIMS)
    item = a.dtype.itemsize
    if any(st % item for st in a.strides):
        return None, "strides %r are not whole elements" % (a.strides,)
    from .errors import GpukitError
    try:
        return _wrap_foreign(ctx, src, a.shape, [st // item for st in a.strides], a.ctypes.data if a.size else 0, a), None
    except GpukitError as e:  # negative or overlapping strides (broadcast views)
        return None, str(e)


def asarray(obj, dtype=None, ctx=None, copy=None):
    """obj as a GPUArray. A GPUArray is returned as it is (or converted to
    dtype). An object with __dlpack__ or __cuda_array_interface__ (a torch
    or CuPy tensor) is shared where the context can use its memory in place
    (see gpukit.from_dlpack): the GPUArray and the object then share memory
    (writes show in both), and the object is kept alive as long as gpukit
    uses it. A NumPy array (or a list ...) is copied into the pool, as on
    CUDA, where host memory cannot be shared, so code behaves alike on both
    backends; copy=False shares a writable NumPy array of one of gpukit's
    dtypes on the CPU backend. copy=True always copies; copy=False never does
    (UnsupportedError says why it cannot share)."""
    if copy is not None and not isinstance(copy, bool):
        raise InvalidArgumentError("asarray: copy must be None, True or False, not %r" % (copy,))
    if isinstance(obj, GPUArray):
        if ctx is not None and ctx is not obj._ctx:
            if copy is False:
                from .errors import UnsupportedError
                raise UnsupportedError("asarray: the array belongs to another context (copy=False)")
            return from_numpy(obj.to_numpy(), dtype=dtype or obj._dtype, ctx=ctx)
        if dtype is None or _dt.dtype(dtype) is obj._dtype:
            return obj.copy() if copy else obj
        if copy is False:
            from .errors import UnsupportedError
            raise UnsupportedError("asarray: dtype %s needs a conversion of the %s array (copy=False)"
                                   % (_dt.dtype(dtype).name, obj._dtype.name))
        return obj.astype(dtype)
    if not isinstance(obj, np.ndarray) and (hasattr(obj, "__cuda_array_interface__") or
                                            (hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"))):
        from ._interop import from_dlpack
        out = from_dlpack(obj, ctx=ctx, copy=copy)
        if dtype is None or _dt.dtype(dtype) is out._dtype:
            return out
        if copy is False:
            from .errors import UnsupportedError
            raise UnsupportedError("asarray: dtype %s needs a conversion of the %s input (copy=False)"
                                   % (_dt.dtype(dtype).name, out._dtype.name))
        return out.astype(dtype, copy=False)
    if copy is False and isinstance(obj, np.ndarray):
        out, why = _share_numpy(obj, _dt.dtype(dtype) if dtype is not None else None, _resolve(ctx))
        if out is not None:
            return out
        from .errors import UnsupportedError
        raise UnsupportedError("asarray: the NumPy array cannot be shared (copy=False): " + why)
    if copy is False:
        from .errors import UnsupportedError
        raise UnsupportedError("asarray: a %s is copied to make an array (copy=False)" % type(obj).__name__)
    return from_numpy(obj, dtype=dtype, ctx=ctx)


def array(obj, dtype=None, ctx=None):
    """A new GPUArray with obj's values (always a copy)."""
    if isinstance(obj, GPUArray):
        return obj.astype(dtype) if dtype is not None else obj.copy()
    return asarray(obj, dtype, ctx)


def _unpickle(values, dtype):
    return from_numpy(values, dtype=dtype)


def to_numpy(a):
    """a.to_numpy() for a GPUArray; numpy.asarray otherwise."""
    return a.to_numpy() if isinstance(a, GPUArray) else np.asarray(a)

