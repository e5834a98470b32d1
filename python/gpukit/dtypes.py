"""The ten gpukit dtypes and their NumPy and DLPack counterparts.

Each dtype is a DataType object (gpukit.float32, gpukit.bfloat16, ...).
Anywhere a dtype is taken, these are accepted too: the DataType's name
("float32", "bfloat16", "float8_e4m3fn"), gpukit's short name ("f32",
"bf16", "f8e4m3"), a NumPy dtype or scalar type (np.float32), and Python's
float (float32), int (int64) and bool (uint8).

NumPy has no bfloat16 or fp8: without the ml_dtypes package they reach
NumPy as their bit patterns (uint16 for bfloat16, uint8 for the fp8 types);
with ml_dtypes importable, as ml_dtypes.bfloat16 / float8_e4m3fn /
float8_e5m2. DataType.numpy_dtype says which.
"""
import numpy as np

from ._gpukit import lib
from .errors import DtypeError

try:  # optional: real NumPy dtypes for bfloat16 and fp8
    import ml_dtypes as _ml
except ImportError:  # pragma: no cover - depends on the machine
    _ml = None

__all__ = [
    "DataType", "dtype", "float32", "float64", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2",
    "int8", "uint8", "int32", "int64", "all_dtypes",
]

# DLPack type codes (dlpack.h DLDataTypeCode)
_DL_INT, _DL_UINT, _DL_FLOAT, _DL_BFLOAT, _DL_F8E4M3FN, _DL_F8E5M2 = 0, 1, 2, 4, 10, 12


class DataType:
    """A gpukit dtype. `name` is NumPy's spelling ("float32"), `short` gpukit's
    ("f32"), `gk` the C enum value, `itemsize` its bytes, `numpy_dtype` the
    NumPy dtype its values are shown as (bit patterns for bfloat16 / fp8
    without ml_dtypes), `is_float` whether it is a floating-point type."""

    __slots__ = ("name", "short", "gk", "itemsize", "kind", "numpy_dtype", "bits_dtype", "dl_code", "is_float")

    def __init__(self, name, short, gk, itemsize, kind, numpy_dtype, bits_dtype, dl_code):
        self.name = name
        self.short = short
        self.gk = gk
        self.itemsize = itemsize
        self.kind = kind  # "f" float, "i" signed int, "u" unsigned int
        self.numpy_dtype = numpy_dtype
        self.bits_dtype = bits_dtype  # the NumPy dtype of the same bits (uint16 / uint8 for bf16 / fp8)
        self.dl_code = dl_code
        self.is_float = kind == "f"

    def __repr__(self):
        return "DataType(%s)" % self.name

    def __str__(self):
        return self.name

    def __eq__(self, other):
        if isinstance(other, DataType):
            return self is other
        try:
            return dtype(other) is self
        except (DtypeError, TypeError):
            return False

    def __hash__(self):
        return hash(self.name)

    def __reduce__(self):
        return (dtype, (self.name,))

    @property
    def is_numpy_native(self):
        """Whether NumPy holds this dtype's values as numbers (not as bit patterns)."""
        return self.numpy_dtype != self.bits_dtype or self.kind != "f" or self.name in ("float16", "float32", "float64")


def _np(name):
    return np.dtype(name)


def _ml_or_bits(attr, bits):
    if _ml is not None and hasattr(_ml, attr):
        return np.dtype(getattr(_ml, attr))
    return np.dtype(bits)


float32 = DataType("float32", "f32", lib.GK_F32, 4, "f", _np("float32"), _np("float32"), _DL_FLOAT)
float64 = DataType("float64", "f64", lib.GK_F64, 8, "f", _np("float64"), _np("float64"), _DL_FLOAT)
float16 = DataType("float16", "f16", lib.GK_F16, 2, "f", _np("float16"), _np("float16"), _DL_FLOAT)
bfloat16 = DataType("bfloat16", "bf16", lib.GK_BF16, 2, "f", _ml_or_bits("bfloat16", "uint16"), _np("uint16"), _DL_BFLOAT)
float8_e4m3fn = DataType("float8_e4m3fn", "f8e4m3", lib.GK_F8E4M3, 1, "f", _ml_or_bits("float8_e4m3fn", "uint8"),
                         _np("uint8"), _DL_F8E4M3FN)
float8_e5m2 = DataType("float8_e5m2", "f8e5m2", lib.GK_F8E5M2, 1, "f", _ml_or_bits("float8_e5m2", "uint8"),
                       _np("uint8"), _DL_F8E5M2)
int8 = DataType("int8", "i8", lib.GK_I8, 1, "i", _np("int8"), _np("int8"), _DL_INT)
uint8 = DataType("uint8", "u8", lib.GK_U8, 1, "u", _np("uint8"), _np("uint8"), _DL_UINT)
int32 = DataType("int32", "i32", lib.GK_I32, 4, "i", _np("int32"), _np("int32"), _DL_INT)
int64 = DataType("int64", "i64", lib.GK_I64, 8, "i", _np("int64"), _np("int64"), _DL_INT)

all_dtypes = (float32, float64, float16, bfloat16, float8_e4m3fn, float8_e5m2, int8, uint8, int32, int64)
_BY_GK = {d.gk: d for d in all_dtypes}
_BY_NAME = {}
for _d in all_dtypes:
    _BY_NAME[_d.name] = _d
    _BY_NAME[_d.short] = _d
_BY_NAME.update({"float": float32, "half": float16, "double": float64, "bool": uint8, "float8_e4m3": float8_e4m3fn,
                 "e4m3": float8_e4m3fn, "e5m2": float8_e5m2, "int": int64})
# NumPy dtypes whose values gpukit holds as they are (bool as 0 / 1 bytes)
_BY_NUMPY = {np.dtype(d.name): d for d in (float32, float64, float16, int8, uint8, int32, int64)}
_BY_NUMPY[np.dtype("bool")] = uint8
if _ml is not None:
    for _d in (bfloat16, float8_e4m3fn, float8_e5m2):
        if _d.numpy_dtype != _d.bits_dtype:
            _BY_NUMPY[_d.numpy_dtype] = _d


def from_gk(value):
    """The DataType of a gk_dtype enum value."""
    return _BY_GK[value]


def dtype(x):
    """The gpukit DataType named by x (a DataType, a name, a NumPy dtype or
    type, or float / int / bool). Raises DtypeError for anything else."""
    if isinstance(x, DataType):
        return x
    if isinstance(x, str):
        d = _BY_NAME.get(x.lower())
        if d is None:
            raise DtypeError("Unsupported dtype string %r (gpukit has %s)" % (x, ", ".join(d.name for d in all_dtypes)))
        return d
    if x is float:
        return float32
    if x is int:
        return int64
    if x is bool:
        return uint8
    try:
        nd = np.dtype(x)
    except TypeError:
        raise DtypeError("Unsupported dtype %r" % (x,)) from None
    d = _BY_NUMPY.get(nd)
    if d is None:
        raise DtypeError("Unsupported dtype %s: gpukit has %s" % (nd, ", ".join(d.name for d in all_dtypes)))
    return d


def from_numpy_dtype(nd):
    """The gpukit DataType of a NumPy dtype (PyGPUkit's DataType.from_numpy_dtype)."""
    return dtype(np.dtype(nd))


def from_string(s):
    """The gpukit DataType of a name (PyGPUkit's DataType.from_string)."""
    if not isinstance(s, str):
        raise DtypeError("Unsupported dtype string %r" % (s,))
    return dtype(s)


_FLOAT_RANK = {float64: 4, float32: 3, float16: 2, bfloat16: 2, float8_e4m3fn: 1, float8_e5m2: 1}


def result_type(a, b):
    """The dtype of a binary op on dtypes a and b: equal dtypes keep theirs;
    float beats int; the wider float wins, and float16 with bfloat16 (or two
    fp8 kinds) meet in float32; integers widen to int64 as needed (uint8 with
    int8 gives int32, as NumPy gives int16, which gpukit lacks)."""
    if a is b:
        return a
    if a.is_float and b.is_float:
        ra, rb = _FLOAT_RANK[a], _FLOAT_RANK[b]
        if ra == rb:
            return float32
        return a if ra > rb else b
    if a.is_float:
        return a
    if b.is_float:
        return b
    if int64 in (a, b):
        return int64
    if int32 in (a, b):
        return int32
    return int32  # int8 with uint8
