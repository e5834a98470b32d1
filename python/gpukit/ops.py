"""gpukit's ops (gpukit.h >>api_ops*), one Python function per C op.

Conventions, the same for every function here:
- Array arguments are GPUArrays; NumPy arrays, lists and scalars are
  uploaded to the context of the first GPUArray argument (else the current
  context).
- `out=`: where the C op takes an output tensor, out= writes into an
  existing array (any strides the op accepts) and returns it; without it the
  op's `_new` variant allocates the result.
- Optional tensors (weight, bias, mask ...) are None when absent.
- `use_tf32` is explicit (default False): f32 GEMMs run exact unless asked.
- Errors are the C library's, as exceptions of gpukit.errors.

Most wrappers are generated from the table _SPECS below (name, Python
signature, the C call's arguments); the ops whose C forms differ are
written out after it.
"""
import builtins as _b
import math as _math
import numbers

import numpy as np

from . import dtypes as _dt
from ._gpukit import ffi, lib
from ._array import GPUArray, _broadcast_shapes, _wrap, _wrap_info, empty, from_numpy
from .context import _resolve
from .errors import DtypeError, InvalidArgumentError, ShapeError

_new_t = ffi.new
_T = "gk_tensor *"
_GK_OK = lib.GK_OK
_NONE = ffi.new("gk_tensor *")[0]  # the null handle: an absent optional tensor


def _ctx_of(*xs):
    for x in xs:
        if isinstance(x, GPUArray):
            return x._ctx
    return _resolve(None)


def _arr(x, ctx, like=None):
    """x as a GPUArray of ctx (scalars take like's dtype)."""
    if isinstance(x, GPUArray):
        return x
    if like is not None and isinstance(x, numbers.Number):
        return ctx._scalar(x, like._dtype if (like._dtype.is_float or isinstance(x, numbers.Integral)) else _dt.float32)
    if x is None:
        raise InvalidArgumentError("an array argument is None")
    return from_numpy(np.asarray(x), ctx=ctx)


def _h(x):
    """The handle of an optional tensor (the null handle for None)."""
    return _NONE if x is None else x._t


def _check_out(out, ctx):
    if not isinstance(out, GPUArray):
        raise InvalidArgumentError("out= must be a GPUArray, not %s" % type(out).__name__)
    if out._ctx is not ctx:
        raise InvalidArgumentError("out= belongs to another gpukit context")
    out._raw()
    return out


def _ints(seq, what, ctype="int64_t"):
    if isinstance(seq, numbers.Integral):
        seq = (seq,)
    try:
        vals = [int(v) for v in seq]
    except TypeError:
        raise InvalidArgumentError("%s must be a sequence of ints, not %r" % (what, seq)) from None
    return ffi.new("%s[]" % ctype, vals or [0]), len(vals)


def _pair(v, what):
    if isinstance(v, numbers.Integral):
        v = (int(v), int(v))
    v = tuple(int(x) for x in v)
    if len(v) != 2:
        raise InvalidArgumentError("%s must be an int or a pair of ints, not %r" % (what, v))
    return ffi.new("int64_t[2]", list(v))


def _enum(table, what):
    def conv(v):
        key = v.lower() if isinstance(v, str) else v
        if key not in table:
            raise InvalidArgumentError("%s must be one of %s, not %r" % (what, ", ".join(repr(k) for k in table), v))
        return table[key]
    return conv


_PAD_MODES = _enum({"constant": lib.GK_PAD_CONSTANT, "reflect": lib.GK_PAD_REFLECT, "replicate": lib.GK_PAD_REPLICATE},
                   "mode")
_ROPE_LAYOUTS = _enum({"neox": lib.GK_ROPE_NEOX, "gptj": lib.GK_ROPE_GPTJ}, "layout")
_INTERP_MODES = _enum({"nearest": lib.GK_INTERP_NEAREST, "linear": lib.GK_INTERP_LINEAR,
                       "bilinear": lib.GK_INTERP_LINEAR}, "mode")


def _lo(v):
    return -_math.inf if v is None else float(v)


def _hi(v):
    return _math.inf if v is None else float(v)


# ---------------------------------------------------------------------------
# The generated wrappers. Each entry: Python name, C name (gk_<c> and
# gk_<c>_new), the Python parameters, the C arguments after out (tensors:
# `x`, optional tensors: `x?`, converted values: `conv(x)`, literals:
# `=EXPR`), and the docstring. A C name ending in "!" has no _new variant:
# the output is allocated with the shape and dtype given by `alloc`.
_SPECS = [
    ("softmax", "softmax", "x", "x", "Softmax over the last dim (gk_softmax; a row of -inf gives zeros)."),
    ("log_softmax", "log_softmax", "x", "x", "Log-softmax over the last dim (gk_log_softmax)."),
    ("cumsum", "cumsum", "x, axis=-1", "x int(axis)",
     "Inclusive cumulative sum along axis (gk_cumsum; f32 / f64 / f16 / bf16 / i32 / i64)."),
    ("snake", "snake", "x, alpha", "x alpha", "Snake activation x + sin(alpha x)^2 / (alpha + 1e-9), alpha per channel "
     "(gk_snake; x [B, C, T] or [C, T], alpha [C])."),
    ("clamp", "clamp", "x, min=None, max=None", "x _lo(min) _hi(max)",
     "min(max(x, min), max) (gk_clamp); None leaves that side open; NaN stays NaN."),
    ("layer_norm", "layer_norm", "x, weight=None, bias=None, eps=1e-5", "x weight? bias? float(eps)",
     "torch.nn.LayerNorm over the last dim (gk_layer_norm): (x - mean) / sqrt(var + eps) * weight + bias."),
    ("rms_norm", "rms_norm", "x, weight=None, eps=1e-6", "x weight? float(eps)",
     "HF LlamaRMSNorm over the last dim (gk_rms_norm): weight * (x * rsqrt(mean(x^2) + eps))."),
    ("group_norm", "group_norm", "x, num_groups, weight=None, bias=None, eps=1e-5",
     "x int(num_groups) weight? bias? float(eps)", "torch.nn.GroupNorm on x [B, C, *] (gk_group_norm)."),
    ("instance_norm", "instance_norm", "x, weight=None, bias=None, eps=1e-5", "x weight? bias? float(eps)",
     "torch.nn.InstanceNorm1d/2d without running statistics on x [B, C, *] (gk_instance_norm)."),
    ("adain", "adain", "x, scale, shift, eps=1e-5", "x scale shift float(eps)",
     "AdaIN: scale * instance_norm(x) + shift, scale / shift [B, C] (gk_adain)."),
    ("rope", "rope", "x, positions, cos_tab, sin_tab, rotary_dim=None, layout='neox'",
     "x positions cos_tab sin_tab int(rotary_dim if rotary_dim is not None else 2 * cos_tab.shape[-1]) "
     "_ROPE_LAYOUTS(layout)",
     "Rotary position embedding of x [T, H, D] at positions [T] (gk_rope) with cos / sin tables "
     "[P, rotary_dim / 2] (gpukit.ops.rope_table); layout 'neox' (rotate-half) or 'gptj' (interleaved). "
     "out=x rotates in place."),
    ("permute_copy", "permute", "x, axes", "x _ints(axes, 'axes', 'int')[0]",
     "x.transpose(axes) materialised into a new contiguous array (gk_permute)."),
    ("index_select", "index_select", "x, axis, index", "x int(axis) index",
     "torch.index_select(x, axis, index) with an int32 / int64 index [n] (gk_index_select); out-of-range "
     "indices give zeros."),
    ("embedding", "embedding", "table, ids", "table ids",
     "Rows of table [V, D] at ids (any shape, int32 / int64) -> [ids.shape..., D] (gk_embedding)."),
    ("repeat", "repeat", "x, repeats", "x *_ints(repeats, 'repeats')",
     "torch.Tensor.repeat(repeats) (gk_repeat): tiles x; len(repeats) >= x.ndim."),
    ("repeat_interleave", "repeat_interleave", "x, repeats, axis=0", "x int(repeats) int(axis)",
     "torch.repeat_interleave(x, repeats, axis) with one repeat count (gk_repeat_interleave)."),
    ("pad", "pad", "x, pads, mode='constant', value=0.0", "x *_ints(pads, 'pads') _PAD_MODES(mode) float(value)",
     "torch.nn.functional.pad over the last 1 (pads (left, right)) or 2 dims (left, right, top, bottom) "
     "(gk_pad); mode 'constant', 'reflect' or 'replicate'."),
    ("conv_transpose1d", "conv_transpose1d",
     "x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1",
     "x weight bias? int(stride) int(padding) int(output_padding) int(groups) int(dilation)",
     "torch.nn.functional.conv_transpose1d: weight [Cin, Cout/groups, K] (gk_conv_transpose1d)."),
    ("conv2d", "conv2d", "x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1",
     "x weight bias? _pair(stride, 'stride') _pair(padding, 'padding') _pair(dilation, 'dilation') int(groups)",
     "torch.nn.functional.conv2d (NCHW): weight [Cout, Cin/groups, KH, KW] (gk_conv2d)."),
    ("weight_norm", "weight_norm", "v, g", "v g",
     "PyTorch weight_norm folding (dim=0): g * v / ||v|| per output channel (gk_weight_norm)."),
    ("fft", "fft", "x, inverse=False", "x int(bool(inverse))",
     "FFT of any length over the last complex dim of x [..., n, 2] (interleaved re, im) (gk_fft); "
     "inverse=True scales by 1/n (torch.fft.ifft)."),
    ("rfft", "rfft", "x", "x", "Real FFT: x [..., n] -> [..., n/2+1, 2] (gk_rfft)."),
    ("stft", "stft", "x, n_fft, hop_length, window=None, center=True",
     "x window? int(n_fft) int(hop_length) int(bool(center))",
     "torch.stft(..., pad_mode='reflect', onesided=True, return_complex=True) viewed as real: x [L] or [B, L] "
     "-> [(B,) n_fft/2+1, frames, 2] (gk_stft); window None is the periodic Hann window."),
    ("complex_abs", "complex_abs", "z", "z", "|z| of a complex array z [..., 2] (gk_complex_abs)."),
    ("complex_angle", "complex_angle", "z", "z", "atan2(im, re) of z [..., 2] (gk_complex_angle)."),
    ("complex_polar", "complex_polar", "mag, phase", "mag phase",
     "torch.polar: mag * (cos phase, sin phase) -> [..., 2] (gk_complex_polar)."),
    ("whisper_log_mel", "whisper_log_mel", "audio, filters, n_samples=0", "audio filters int(n_samples)",
     "Whisper's log-mel features (HF WhisperFeatureExtractor) of audio [L] or [B, L] with filters "
     "[n_mels, 201] (gk_whisper_log_mel); n_samples > 0 pads or cuts first (480000 for 30 s)."),
    ("glu_split", "glu_split", "x, act='silu'", "x _GLU_OPS(act)",
     "Gated unit of one tensor x [..., 2n]: act(x[..., :n]) * x[..., n:] (gk_glu_split); act 'silu', "
     "'gelu' or 'gelu_tanh'."),
    ("swiglu", "glu", "gate, up", "gate up =lib.GK_GLU_SILU", "silu(gate) * up (gk_glu)."),
    ("geglu", "glu", "gate, up, approximate='none'", "gate up _GELU_GLU(approximate)",
     "gelu(gate) * up (gk_glu); approximate 'none' (erf) or 'tanh'."),
]

_GLU_OPS = _enum({"silu": lib.GK_GLU_SILU, "gelu": lib.GK_GLU_GELU, "gelu_tanh": lib.GK_GLU_GELU_TANH}, "act")
_GELU_GLU = _enum({"none": lib.GK_GLU_GELU, "tanh": lib.GK_GLU_GELU_TANH}, "approximate")

# unary ops of gk_unary: Python name, GK_UNARY_*, the parameter (None: none)
_UNARY = [
    ("exp", "EXP", None), ("log", "LOG", None), ("sqrt", "SQRT", None), ("rsqrt", "RSQRT", None),
    ("abs", "ABS", None), ("negative", "NEG", None), ("sin", "SIN", None), ("cos", "COS", None),
    ("tanh", "TANH", None), ("sigmoid", "SIGMOID", None), ("relu", "RELU", None),
    ("leaky_relu", "LEAKY_RELU", ("negative_slope", 0.01)), ("silu", "SILU", None), ("relu2", "RELU2", None),
    ("softplus", "SOFTPLUS", ("beta", 1.0)),
]
_BINARY = [("power", "POW"), ("maximum", "MAXIMUM"), ("minimum", "MINIMUM")]
_COMPARE = [("equal", "EQ"), ("not_equal", "NE"), ("less", "LT"), ("less_equal", "LE"), ("greater", "GT"),
            ("greater_equal", "GE")]


def _param_names(pysig):
    names = []
    for part in pysig.split(","):
        part = part.strip()
        if part:
            names.append(part.split("=")[0].strip())
    return names


def _gen_spec(name, cname, pysig, cargs, doc):
    params = _param_names(pysig)
    conv_lines = []
    call = []
    tensors = []
    for tok in _split_args(cargs):
        if tok.startswith("="):
            call.append(tok[1:])
        elif tok.endswith("?") and tok[:-1].isidentifier():
            n = tok[:-1]
            conv_lines.append("    %s = None if %s is None else _arr(%s, ctx)" % (n, n, n))
            call.append("_h(%s)" % n)
            tensors.append(n)
        elif tok.isidentifier():
            conv_lines.append("    %s = _arr(%s, ctx)" % (tok, tok))
            call.append("%s._t" % tok)
            tensors.append(tok)
        else:
            call.append(tok)
    tensor_params = [p for p in params if p in tensors]
    src = ["def %s(%s, *, out=None):" % (name, pysig),
           "    ctx = _ctx_of(%s)" % ", ".join(tensor_params),
           "    p = ctx._raw()"]
    src += conv_lines
    src += ["    if out is None:",
            "        tp = _new_t(_T)",
            "        st = lib.gk_%s_new(p, %s, tp)" % (cname, ", ".join(call)),
            "        if st != _GK_OK:",
            "            raise ctx._error(st)",
            "        return _wrap_info(ctx, tp)",
            "    o = _check_out(out, ctx)",
            "    st = lib.gk_%s(p, o._t, %s)" % (cname, ", ".join(call)),
            "    if st != _GK_OK:",
            "        raise ctx._error(st)",
            "    return out"]
    ns = {}
    exec("\n".join(src), globals(), ns)
    f = ns[name]
    f.__doc__ = doc
    f.__module__ = __name__
    f.__gpukit_c__ = "gk_" + cname
    return f


def _split_args(s):
    """Splits a C-argument list on spaces outside parentheses."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == " " and depth == 0:
            if cur:
                out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        out.append(cur)
    return out


def _gen_unary(name, op, param):
    const = getattr(lib, "GK_UNARY_" + op)
    if param is None:
        sig, pval = "x", "0.0"
    else:
        sig, pval = "x, %s=%r" % param, "float(%s)" % param[0]
    src = ("def {n}({sig}, *, out=None):\n"
           "    ctx = _ctx_of(x)\n"
           "    x = _arr(x, ctx)\n"
           "    p = ctx._raw()\n"
           "    if out is None:\n"
           "        tp = _new_t(_T)\n"
           "        st = lib.gk_unary_new(p, x._t, {c}, {pv}, tp)\n"
           "        if st != _GK_OK:\n"
           "            raise ctx._error(st)\n"
           "        return _wrap(ctx, tp, x._shape, x._dtype)\n"
           "    o = _check_out(out, ctx)\n"
           "    st = lib.gk_unary(p, o._t, x._t, {c}, {pv})\n"
           "    if st != _GK_OK:\n"
           "        raise ctx._error(st)\n"
           "    return out\n").format(n=name, sig=sig, c=const, pv=pval)
    ns = {}
    exec(src, globals(), ns)
    f = ns[name]
    f.__doc__ = "Elementwise %s (gk_unary GK_UNARY_%s; f32 / f64 / f16 / bf16)." % (name, op)
    f.__module__ = __name__
    f.__gpukit_c__ = "gk_unary"
    return f


def _two(a, b):
    """a and b as GPUArrays of one context and one dtype (scalars take the other's dtype)."""
    ctx = _ctx_of(a, b)
    if not isinstance(a, GPUArray) and isinstance(b, GPUArray):
        a = _arr(a, ctx, like=b)
    else:
        a = _arr(a, ctx)
    b = _arr(b, ctx, like=a)
    if a._dtype is not b._dtype:
        dt = _dt.result_type(a._dtype, b._dtype)
        a = a if a._dtype is dt else a.astype(dt)
        b = b if b._dtype is dt else b.astype(dt)
    return ctx, a, b


def _gen_binary(name, fn_new, fn, op, out_dtype=None, doc=""):
    def f(a, b, *, out=None):
        ctx, a, b = _two(a, b)
        p = ctx._raw()
        if out is None:
            tp = _new_t(_T)
            st = fn_new(p, a._t, b._t, op, tp)
            if st != _GK_OK:
                raise ctx._error(st)
            sa, sb = a._shape, b._shape
            return _wrap(ctx, tp, sa if sa == sb else _broadcast_shapes(sa, sb), out_dtype or a._dtype)
        o = _check_out(out, ctx)
        st = fn(p, o._t, a._t, b._t, op)
        if st != _GK_OK:
            raise ctx._error(st)
        return out
    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return f


_generated = []
for _spec in _SPECS:
    globals()[_spec[0]] = _gen_spec(*_spec)
    _generated.append(_spec[0])
for _name, _op, _param in _UNARY:
    globals()[_name] = _gen_unary(_name, _op, _param)
    _generated.append(_name)


def gelu(x, approximate="none", *, out=None):
    """GELU (gk_unary): approximate 'none' is the erf form (torch's default), 'tanh' the tanh form."""
    if approximate == "none":
        return _gelu_erf(x, out=out)
    if approximate == "tanh":
        return _gelu_tanh(x, out=out)
    raise InvalidArgumentError("gelu: approximate must be 'none' or 'tanh', not %r" % (approximate,))


_gelu_erf = _gen_unary("_gelu_erf", "GELU", None)
_gelu_tanh = _gen_unary("_gelu_tanh", "GELU_TANH", None)
neg = negative  # noqa: F821 - generated above

for _name, _op in _BINARY:
    globals()[_name] = _gen_binary(_name, lib.gk_binary_new, lib.gk_binary, getattr(lib, "GK_BINARY_" + _op),
                                   doc="Elementwise %s with broadcasting (gk_binary GK_BINARY_%s)." % (_name, _op))
    _generated.append(_name)
for _name, _op in _COMPARE:
    globals()[_name] = _gen_binary(_name, lib.gk_compare_new, lib.gk_compare, getattr(lib, "GK_CMP_" + _op),
                                   out_dtype=_dt.uint8,
                                   doc="a %s b elementwise as uint8 0 / 1 (gk_compare GK_CMP_%s)." % (_name, _op))
    _generated.append(_name)
pow = power  # noqa: A001,F821 - NumPy's alias, generated above


# ---------------------------------------------------------------------------
# elementwise core (gk_add ...), written out: out= takes the C op, the result
# keeps the inputs' dtype (result_type when they differ)
def _arith(fn_new, fn, name):
    def f(a, b, *, out=None):
        ctx, a, b = _two(a, b)
        p = ctx._raw()
        if out is None:
            tp = _new_t(_T)
            st = fn_new(p, a._t, b._t, tp)
            if st != _GK_OK:
                raise ctx._error(st)
            sa, sb = a._shape, b._shape
            return _wrap(ctx, tp, sa if sa == sb else _broadcast_shapes(sa, sb), a._dtype)
        o = _check_out(out, ctx)
        st = fn(p, o._t, a._t, b._t)
        if st != _GK_OK:
            raise ctx._error(st)
        return out
    f.__name__ = f.__qualname__ = name
    f.__doc__ = "a %s b with NumPy broadcasting (gk_%s); out= writes into an array of the broadcast shape." % (
        {"add": "+", "sub": "-", "mul": "*", "div": "/"}[name], name)
    return f


add = _arith(lib.gk_add_new, lib.gk_add, "add")
sub = _arith(lib.gk_sub_new, lib.gk_sub, "sub")
mul = _arith(lib.gk_mul_new, lib.gk_mul, "mul")
div = _arith(lib.gk_div_new, lib.gk_div, "div")
subtract, multiply, divide = sub, mul, div


def fill(x, value):
    """Sets every element of x to value (gk_fill); returns x."""
    return x.fill(value)


def copy(dst, src):
    """dst[...] = src (gk_copy, same dtype; src broadcasts to dst); returns dst."""
    ctx = dst._ctx
    src = _arr(src, ctx)
    ctx._check(lib.gk_copy(ctx._raw(), dst._t, src._t))
    return dst


def cast(x, dtype=None, *, out=None):
    """x converted to dtype (gk_cast / gk_cast_new); with out=, to out's dtype."""
    ctx = _ctx_of(x)
    x = _arr(x, ctx)
    if out is None:
        if dtype is None:
            raise InvalidArgumentError("cast: give dtype or out=")
        return x.astype(dtype)
    o = _check_out(out, ctx)
    ctx._check(lib.gk_cast(ctx._raw(), o._t, x._t))
    return out


def scale(x, alpha, *, out=None):
    """alpha * x (gk_scale)."""
    ctx = _ctx_of(x)
    x = _arr(x, ctx)
    o = empty(x._shape, x._dtype, ctx) if out is None else _check_out(out, ctx)
    ctx._check(lib.gk_scale(ctx._raw(), o._t, x._t, float(alpha)))
    return o


def axpy(y, alpha, x):
    """y += alpha * x in place (gk_axpy); returns y."""
    ctx = y._ctx
    x = _arr(x, ctx)
    ctx._check(lib.gk_axpy(ctx._raw(), y._t, float(alpha), x._t))
    return y


def where(cond, a, b, *, out=None):
    """cond != 0 ? a : b elementwise (gk_where); cond is uint8 (a NumPy bool
    array is uploaded as uint8), a and b meet in one dtype."""
    ctx = _ctx_of(cond, a, b)
    cond = _arr(cond, ctx)
    if cond._dtype is not _dt.uint8:
        cond = (cond != 0)
    if not isinstance(a, GPUArray) and isinstance(b, GPUArray):
        a = _arr(a, ctx, like=b)
    else:
        a = _arr(a, ctx)
    b = _arr(b, ctx, like=a)
    if a._dtype is not b._dtype:
        dt = _dt.result_type(a._dtype, b._dtype)
        a, b = a.astype(dt, copy=False), b.astype(dt, copy=False)
    p = ctx._raw()
    if out is None:
        tp = _new_t(_T)
        ctx._check(lib.gk_where_new(p, cond._t, a._t, b._t, tp))
        return _wrap_info(ctx, tp)
    o = _check_out(out, ctx)
    ctx._check(lib.gk_where(p, o._t, cond._t, a._t, b._t))
    return out


def glu(gate, up, act="silu", *, out=None):
    """act(gate) * up (gk_glu); act 'silu' (SwiGLU), 'gelu' or 'gelu_tanh' (GeGLU)."""
    ctx = _ctx_of(gate, up)
    gate, up = _arr(gate, ctx), _arr(up, ctx)
    p = ctx._raw()
    op = _GLU_OPS(act)
    if out is None:
        tp = _new_t(_T)
        ctx._check(lib.gk_glu_new(p, gate._t, up._t, op, tp))
        return _wrap_info(ctx, tp)
    ctx._check(lib.gk_glu(p, _check_out(out, ctx)._t, gate._t, up._t, op))
    return out


# ---------------------------------------------------------------------------
# reductions
_REDUCE = {"sum": lib.GK_REDUCE_SUM, "mean": lib.GK_REDUCE_MEAN, "max": lib.GK_REDUCE_MAX, "min": lib.GK_REDUCE_MIN,
           "argmax": lib.GK_REDUCE_ARGMAX, "argmin": lib.GK_REDUCE_ARGMIN, "var": lib.GK_REDUCE_VAR,
           "var_unbiased": lib.GK_REDUCE_VAR_UNBIASED}


def _norm_axes(axis, ndim):
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    out = []
    for a in axes:
        a = int(a)
        if a < -ndim or a >= _b.max(ndim, 1):
            raise InvalidArgumentError("axis %d is out of bounds for a %d-d array" % (a, ndim))
        out.append(a + ndim if a < 0 else a)
    if len(set(out)) != len(out):
        raise InvalidArgumentError("repeated axis in %r" % (axis,))
    return tuple(sorted(out))


def reduce(x, op, axis=None, keepdims=False, *, out=None):
    """gk_reduce over axis (an int, a tuple of ints, or None for all):
    op is 'sum', 'mean', 'max', 'min', 'argmax', 'argmin', 'var' or
    'var_unbiased'. Integer inputs reduce in float64 (exact up to 2^53) and
    come back as int64 (sum / max / min), float64 (mean / var) or int64 indices."""
    if op not in _REDUCE:
        raise InvalidArgumentError("reduce: op must be one of %s, not %r" % (", ".join(_REDUCE), op))
    ctx = _ctx_of(x)
    x = _arr(x, ctx)
    back = None
    if not x._dtype.is_float:
        back = _dt.int64 if op in ("sum", "max", "min") else None
        if op in ("max", "min") and x._dtype is not _dt.int64:
            back = x._dtype
        x = x.astype(_dt.float64)
    c = _REDUCE[op]
    axes = _norm_axes(axis, x.ndim)
    p = ctx._raw()
    arg = op in ("argmax", "argmin")
    if axes is not None and len(axes) > 1 and arg:
        raise InvalidArgumentError("%s over several axes: give one axis or None" % op)
    if axes is None or x.ndim == 0 or (len(axes) == x.ndim and not (arg and keepdims)):
        res = _reduce1(ctx, p, x, c, lib.GK_AXIS_ALL, keepdims, out if back is None else None)
    elif len(axes) == 1:
        res = _reduce1(ctx, p, x, c, axes[0], keepdims, out if back is None else None)
    else:
        keep = [d for d in range(x.ndim) if d not in axes]
        moved = x.transpose(keep + list(axes))
        merged = moved.reshape(tuple(x._shape[d] for d in keep) + (-1,))
        res = _reduce1(ctx, p, merged, c, -1, False, None)
        if keepdims:
            res = res.reshape(tuple(1 if d in axes else s for d, s in enumerate(x._shape)))
        if out is not None and back is None:
            copy(out, res)
            res = out
    if back is not None:
        res = res.astype(back)
        if out is not None:
            copy(out, res)
            return out
    return res


def _reduce1(ctx, p, x, c, axis, keepdims, out):
    if out is None:
        tp = _new_t(_T)
        ctx._check(lib.gk_reduce_new(p, x._t, c, int(axis), int(bool(keepdims)), tp))
        return _wrap_info(ctx, tp)
    ctx._check(lib.gk_reduce(p, _check_out(out, ctx)._t, x._t, c, int(axis), int(bool(keepdims))))
    return out


def sum(x, axis=None, keepdims=False, dtype=None, *, out=None):  # noqa: A001
    """Sum over axis (None: all) (gk_reduce SUM)."""
    r = reduce(x if dtype is None else _arr(x, _ctx_of(x)).astype(dtype), "sum", axis, keepdims, out=out)
    return r


def mean(x, axis=None, keepdims=False, dtype=None, *, out=None):
    """Mean over axis (gk_reduce MEAN; integer inputs give float64)."""
    return reduce(x if dtype is None else _arr(x, _ctx_of(x)).astype(dtype), "mean", axis, keepdims, out=out)


def max(x, axis=None, keepdims=False, *, out=None):  # noqa: A001
    """Largest value over axis (gk_reduce MAX; NaN counts as the extreme)."""
    return reduce(x, "max", axis, keepdims, out=out)


def min(x, axis=None, keepdims=False, *, out=None):  # noqa: A001
    """Smallest value over axis (gk_reduce MIN)."""
    return reduce(x, "min", axis, keepdims, out=out)


amax, amin = max, min


def argmax(x, axis=None, keepdims=False, *, out=None):
    """Index (int64) of the first largest value over one axis, or of the flattened array (gk_reduce ARGMAX)."""
    return reduce(x, "argmax", axis, keepdims, out=out)


def argmin(x, axis=None, keepdims=False, *, out=None):
    """Index (int64) of the first smallest value (gk_reduce ARGMIN)."""
    return reduce(x, "argmin", axis, keepdims, out=out)


def var(x, axis=None, keepdims=False, ddof=0, *, out=None):
    """Variance over axis: ddof 0 divides by n (NumPy's default), ddof 1 by n - 1 (gk_reduce VAR / VAR_UNBIASED)."""
    if ddof not in (0, 1):
        raise InvalidArgumentError("var: ddof must be 0 or 1, not %r" % (ddof,))
    return reduce(x, "var" if ddof == 0 else "var_unbiased", axis, keepdims, out=out)


def std(x, axis=None, keepdims=False, ddof=0):
    """Standard deviation: sqrt(var)."""
    return sqrt(var(x, axis, keepdims, ddof))  # noqa: F821 - generated above


# ---------------------------------------------------------------------------
# matrix products
_ACTS = {None: lib.GK_ACT_NONE, "none": lib.GK_ACT_NONE, "gelu": lib.GK_ACT_GELU, "gelu_tanh": lib.GK_ACT_GELU_TANH,
         "silu": lib.GK_ACT_SILU, "relu": lib.GK_ACT_RELU}
_MM_BACKENDS = {"auto": lib.GK_MATMUL_AUTO, "gpukit": lib.GK_MATMUL_GPUKIT, "cublaslt": lib.GK_MATMUL_CUBLASLT}


def _mm_desc(ctx, a_dtype, alpha, beta, bias, act, residual, use_tf32, backend):
    if use_tf32 and a_dtype is not _dt.float32:
        raise DtypeError("use_tf32=True applies to float32 inputs only; the inputs are %s" % a_dtype.name)
    if act not in _ACTS:
        raise InvalidArgumentError("activation must be one of None, 'gelu', 'gelu_tanh', 'silu', 'relu', not %r" % (act,))
    if backend not in _MM_BACKENDS:
        raise InvalidArgumentError("backend must be 'auto', 'gpukit' or 'cublaslt', not %r" % (backend,))
    d = _new_t("gk_matmul_desc *")
    d.alpha = float(alpha)
    d.beta = float(beta)
    keep = []  # uploaded operands live until the call is made
    if bias is not None:
        bias = _arr(bias, ctx)
        keep.append(bias)
        d.bias = bias._t
    d.act = _ACTS[act]
    if residual is not None:
        residual = _arr(residual, ctx)
        keep.append(residual)
        d.residual = residual._t
    d.allow_tf32 = int(bool(use_tf32))
    d.backend = _MM_BACKENDS[backend]
    return d, keep


def matmul(a, b, *, out=None, out_dtype=None, alpha=1.0, beta=0.0, bias=None, activation=None, residual=None,
           use_tf32=False, backend="auto"):
    """a @ b (gk_matmul): out = act(alpha * a @ b + beta * out + bias) + residual.

    a [.., M, K], b [.., K, N]: 2-d, 3-d (a leading batch; a 2-d operand is
    shared by every batch) and 1-d (NumPy's rules: a vector is a row of a or
    a column of b, its dim dropped from the result); more leading dims are
    folded into one batch. Transposed views (b.T) are taken as they are
    (column-major operands, no copy). f32 / f64 / f16 / bf16; out_dtype: the
    inputs' or float32. use_tf32: f32 on tensor cores (TF32), only when asked.
    """
    ctx = _ctx_of(a, b)
    a, b = _arr(a, ctx), _arr(b, ctx)
    if a.ndim == 0 or b.ndim == 0:
        raise ShapeError("matmul: operands must have at least 1 dim (shapes %r and %r); use * for scalars"
                         % (a._shape, b._shape))
    if a._dtype is not b._dtype:
        dt = _dt.result_type(a._dtype, b._dtype)
        a, b = a.astype(dt, copy=False), b.astype(dt, copy=False)
    squeeze = []
    if a.ndim == 1:
        a = a.reshape(1, -1)
        squeeze.append(-2)
    if b.ndim == 1:
        b = b.reshape(-1, 1)
        squeeze.append(-1)
    lead = None
    if a.ndim > 3 or b.ndim > 3:
        la, lb = a._shape[:-2], b._shape[:-2]
        lead = _broadcast_shapes(la, lb)
        n = 1
        for s in lead:
            n *= s
        if la and la != lead or lb and lb != lead:
            raise ShapeError("matmul: batch dims %r and %r must be equal (or one operand 2-d)" % (la, lb))
        a = a.reshape((n,) + a._shape[-2:]) if la else a
        b = b.reshape((n,) + b._shape[-2:]) if lb else b
    d, keep = _mm_desc(ctx, a._dtype, alpha, beta, bias, activation, residual, use_tf32, backend)
    p = ctx._raw()
    if out is not None and not squeeze and lead is None:
        ctx._check(lib.gk_matmul(p, _check_out(out, ctx)._t, a._t, b._t, d))
        return out
    if out is not None and beta:
        raise InvalidArgumentError("matmul: beta with out= needs 2-d / 3-d operands")
    odt = _dt.dtype(out_dtype) if out_dtype is not None else (out._dtype if out is not None else a._dtype)
    tp = _new_t(_T)
    ctx._check(lib.gk_matmul_new(p, a._t, b._t, odt.gk, d, tp))
    r = _wrap_info(ctx, tp)
    if lead is not None:
        r = r.reshape(lead + r._shape[-2:])
    for s in squeeze if len(squeeze) < 2 else (-1, -1):
        r = r.squeeze(s if len(squeeze) < 2 else -1)
    if out is not None:
        copy(out, r)
        return out
    return r


def linear(x, weight, bias=None, *, out=None, activation=None, residual=None, alpha=1.0, use_tf32=False,
           backend="auto"):
    """torch.nn.functional.linear: x[.., K] @ weight[N, K]^T + bias (gk_linear), with an optional fused
    activation and residual."""
    ctx = _ctx_of(x, weight)
    x, weight = _arr(x, ctx), _arr(weight, ctx)
    d, keep = _mm_desc(ctx, x._dtype, alpha, 0.0, bias, activation, residual, use_tf32, backend)
    if out is None:
        if weight.ndim != 2:
            raise ShapeError("linear: weight must be [N, K], got %r" % (weight._shape,))
        out = empty(x._shape[:-1] + (weight._shape[0],), x._dtype, ctx)
    ctx._check(lib.gk_linear(ctx._raw(), _check_out(out, ctx)._t, x._t, weight._t, d))
    return out


def conv1d(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1, *, out=None, use_tf32=False):
    """torch.nn.functional.conv1d: x [B, Cin, L], weight [Cout, Cin/groups, K] (gk_conv1d_ex).
    use_tf32: float32 convolutions of stride 1 and one group on TF32 tensor cores (relative error ~7e-4),
    only when asked; other shapes and the CPU backend compute in f32."""
    ctx = _ctx_of(x, weight)
    x, weight = _arr(x, ctx), _arr(weight, ctx)
    keep = []
    d = _new_t("gk_conv1d_desc *")
    d.stride, d.padding, d.dilation, d.groups = int(stride), int(padding), int(dilation), int(groups)
    d.allow_tf32 = int(bool(use_tf32))
    if use_tf32 and x._dtype is not _dt.float32:
        raise DtypeError("use_tf32=True applies to float32 inputs only; x is %s" % x._dtype.name)
    b = _arr(bias, ctx) if bias is not None else None
    if b is not None:
        keep.append(b)
    if out is None:
        if x.ndim != 3 or weight.ndim != 3:
            raise ShapeError("conv1d: x must be [B, Cin, L] and weight [Cout, Cin/groups, K], got %r and %r"
                             % (x._shape, weight._shape))
        s, dl = _b.max(int(stride), 1), _b.max(int(dilation), 1)
        lo = (x._shape[2] + 2 * int(padding) - dl * (weight._shape[2] - 1) - 1) // s + 1
        out = empty((x._shape[0], weight._shape[0], _b.max(lo, 1)), x._dtype, ctx)
    ctx._check(lib.gk_conv1d_ex(ctx._raw(), _check_out(out, ctx)._t, x._t, weight._t,
                                b._t if b is not None else _NONE, d))
    return out


def linear_glu(x, weight, bias=None, activation="silu", *, out=None, residual=None, alpha=1.0, use_tf32=False,
               scratch=None):
    """Gated linear unit from one weight [2N, K] = [gate; up] (gk_linear_glu):
    act(x @ gate^T + b[:N]) * (x @ up^T + b[N:]); activation 'silu' (SwiGLU),
    'gelu' / 'gelu_tanh' (GeGLU) or None (bilinear). The scratch the C op may
    need ([rows, 2N]) is made here when not given."""
    ctx = _ctx_of(x, weight)
    x, weight = _arr(x, ctx), _arr(weight, ctx)
    d, keep = _mm_desc(ctx, x._dtype, alpha, 0.0, bias, activation, residual, use_tf32, "auto")
    if weight.ndim != 2 or weight._shape[0] % 2:
        raise ShapeError("linear_glu: weight must be [2N, K], got %r" % (weight._shape,))
    n = weight._shape[0] // 2
    if out is None:
        out = empty(x._shape[:-1] + (n,), x._dtype, ctx)
    o = _check_out(out, ctx)
    p = ctx._raw()
    st = lib.gk_linear_glu(p, o._t, x._t, weight._t, _h(scratch), d)
    if st != _GK_OK and scratch is None and "scratch" in ffi.string(lib.gk_last_error(p)).decode("utf-8", "replace"):
        rows = 1
        for s in x._shape[:-1]:
            rows *= s
        scratch = empty((rows, 2 * n), o._dtype, ctx)
        st = lib.gk_linear_glu(p, o._t, x._t, weight._t, scratch._t, d)
    if st != _GK_OK:
        raise ctx._error(st)
    return out


# ---------------------------------------------------------------------------
# attention and the LLM ops
def attention(q, k, v, *, scale=None, causal=False, mask=None, q_lens=None, kv_lens=None, out=None):
    """Scaled dot-product attention per head (gk_attention): q [B, Sq, Hq, D],
    k / v [B, Skv, Hkv, D] (Hq a multiple of Hkv: GQA / MQA), out like q.
    scale: default 1 / sqrt(D). causal aligns the diagonal at the end (KV
    caches). mask: f32 [Sq, Skv] or [B, Sq, Skv], added to the scores.
    q_lens / kv_lens: int32 [B] per-sequence lengths."""
    ctx = _ctx_of(q, k, v)
    q, k, v = _arr(q, ctx), _arr(k, ctx), _arr(v, ctx)
    d = _new_t("gk_attention_desc *")
    d.scale = 0.0 if scale is None else float(scale)
    d.causal = int(bool(causal))
    keep = []  # uploaded operands live until the call is made
    for name, val in (("mask", mask), ("q_lens", q_lens), ("kv_lens", kv_lens)):
        if val is not None:
            val = _arr(val, ctx)
            keep.append(val)
            setattr(d, name, val._t)
    if out is None:
        out = empty(q._shape, q._dtype, ctx)
    ctx._check(lib.gk_attention(ctx._raw(), _check_out(out, ctx)._t, q._t, k._t, v._t, d))
    return out


scaled_dot_product_attention = attention


def kv_write(cache, x, start):
    """cache[b, start[b] + t, h, :] = x[b, t, h, :] (gk_kv_write); start int32 [B] on the device. Returns cache."""
    ctx = cache._ctx
    x, start = _arr(x, ctx), _arr(start, ctx)
    ctx._check(lib.gk_kv_write(ctx._raw(), cache._t, x._t, start._t))
    return cache


def rope_kv_write(x, cache, pos, cos_tab, sin_tab, rotary_dim, q_heads):
    """RoPE of one decode token's q and k heads in x [B, Hq + 2 Hkv, D] (in place) and
    their k / v rows written into cache [B, S, 2 Hkv, D] at pos (gk_rope_kv_write). Returns x."""
    ctx = x._ctx
    cache, pos, cos_tab, sin_tab = (_arr(t, ctx) for t in (cache, pos, cos_tab, sin_tab))
    ctx._check(lib.gk_rope_kv_write(ctx._raw(), x._t, cache._t, pos._t, cos_tab._t, sin_tab._t, int(rotary_dim),
                                    int(q_heads)))
    return x


def decode_rms_norm(x, weight, eps=1e-6, *, out=None):
    """gk_rms_norm for the few rows of a decode step (gk_decode_rms_norm)."""
    ctx = _ctx_of(x, weight)
    x, weight = _arr(x, ctx), _arr(weight, ctx)
    if out is None:
        out = empty(x._shape, x._dtype, ctx)
    ctx._check(lib.gk_decode_rms_norm(ctx._raw(), _check_out(out, ctx)._t, x._t, weight._t, float(eps)))
    return out


def add_rms_norm(x, residual, weight=None, eps=1e-6, *, out=None, h=None):
    """h = x + residual, out = rms_norm(h) (gk_add_rms_norm); returns (out, h).
    h= may be x or residual (in place)."""
    ctx = _ctx_of(x, residual)
    x, residual = _arr(x, ctx), _arr(residual, ctx)
    weight = None if weight is None else _arr(weight, ctx)
    p = ctx._raw()
    if out is None and h is None:
        to, th = _new_t(_T), _new_t(_T)
        ctx._check(lib.gk_add_rms_norm_new(p, x._t, residual._t, _h(weight), float(eps), to, th))
        return _wrap(ctx, to, x._shape, x._dtype), _wrap(ctx, th, x._shape, x._dtype)
    out = empty(x._shape, x._dtype, ctx) if out is None else _check_out(out, ctx)
    h = empty(x._shape, x._dtype, ctx) if h is None else _check_out(h, ctx)
    ctx._check(lib.gk_add_rms_norm(p, out._t, h._t, x._t, residual._t, _h(weight), float(eps)))
    return out, h


# ---------------------------------------------------------------------------
# top-k and sampling
def topk(x, k, *, out=None):
    """The k largest entries along the last dim, largest first (gk_topk):
    returns (values, indices int64). out=: a (values, indices) pair."""
    ctx = _ctx_of(x)
    x = _arr(x, ctx)
    p = ctx._raw()
    if out is None:
        tv, ti = _new_t(_T), _new_t(_T)
        ctx._check(lib.gk_topk_new(p, x._t, int(k), tv, ti))
        return _wrap_info(ctx, tv), _wrap_info(ctx, ti)
    values, indices = out
    ctx._check(lib.gk_topk(p, _check_out(values, ctx)._t, _check_out(indices, ctx)._t, x._t, int(k)))
    return values, indices


def sample(logits, *, temperature=0.0, top_k=0, top_p=0.0, min_p=0.0, repetition_penalty=0.0, presence_penalty=0.0,
           frequency_penalty=0.0, seed=0, step=0, prev=None, out=None):
    """One token per row of logits [batch, vocab] (gk_sample), int32 [batch];
    temperature <= 0 is greedy. The same inputs, seed and step give the same
    tokens on both backends. prev: int32 [batch, n_prev] earlier tokens for
    the penalties (-1 entries ignored)."""
    ctx = _ctx_of(logits)
    logits = _arr(logits, ctx)
    prev = None if prev is None else _arr(prev, ctx)
    d = _new_t("gk_sample_desc *")
    d.temperature = float(temperature)
    d.top_k = int(top_k)
    d.top_p = float(top_p)
    d.min_p = float(min_p)
    d.repetition_penalty = float(repetition_penalty)
    d.presence_penalty = float(presence_penalty)
    d.frequency_penalty = float(frequency_penalty)
    d.seed = int(seed)
    d.step = int(step)
    if logits.ndim != 2:
        raise ShapeError("sample: logits must be [batch, vocab], got %r" % (logits._shape,))
    if out is None:
        out = empty((logits._shape[0],), _dt.int32, ctx)
    ctx._check(lib.gk_sample(ctx._raw(), _check_out(out, ctx)._t, logits._t, _h(prev), d))
    return out


def philox4x32_10(counter, key):
    """One Philox4x32-10 block (the generator gk_sample uses): 4 uint32 words from counter (4 words) and key (2)."""
    c = ffi.new("uint32_t[4]", [int(x) & 0xFFFFFFFF for x in counter])
    k = ffi.new("uint32_t[2]", [int(x) & 0xFFFFFFFF for x in key])
    o = ffi.new("uint32_t[4]")
    lib.gk_philox4x32_10(c, k, o)
    return tuple(o)


# ---------------------------------------------------------------------------
# layout
def permute(x, axes):
    """A permuted view (no copy); permute_copy materialises it."""
    return _arr(x, _ctx_of(x)).transpose(axes)


def concat(xs, axis=0, *, out=None):
    """torch.cat(xs, axis) (gk_concat): one dtype, equal shapes but along axis."""
    xs = list(xs)
    if not xs:
        raise InvalidArgumentError("concat: no arrays given")
    ctx = _ctx_of(*xs)
    xs = [_arr(x, ctx) for x in xs]
    hs = ffi.new("gk_tensor[]", [x._t for x in xs])
    p = ctx._raw()
    if out is None:
        tp = _new_t(_T)
        ctx._check(lib.gk_concat_new(p, hs, len(xs), int(axis), tp))
        return _wrap_info(ctx, tp)
    ctx._check(lib.gk_concat(p, _check_out(out, ctx)._t, hs, len(xs), int(axis)))
    return out


concatenate = concat


def stack(xs, axis=0):
    """The arrays joined along a new axis."""
    xs = [_arr(x, _ctx_of(*xs)) for x in xs]
    return concat([x.expand_dims(axis) for x in xs], axis)


def split(x, sizes, axis=0):
    """torch.split as views (gk_split): sizes is a list of sizes summing to
    the dim, or one int (equal parts, the last one smaller)."""
    ctx = _ctx_of(x)
    x = _arr(x, ctx)
    ax = axis + x.ndim if axis < 0 else axis
    if isinstance(sizes, numbers.Integral):
        n = x._shape[ax]
        sizes = [sizes] * (n // sizes) + ([n % sizes] if n % sizes else [])
    arr, n = _ints(sizes, "sizes")
    outs = ffi.new("gk_tensor[]", n or 1)
    ctx._check(lib.gk_split(ctx._raw(), x._t, int(axis), arr, n, outs))
    res = []
    for i in range(n):
        tp = _new_t(_T)
        tp[0] = outs[i]
        res.append(_wrap_info(ctx, tp))
    return res


def slice_copy(x, axis, start, stop, step=1, *, out=None):
    """x[..., start:stop:step, ...] along axis as a copy (gk_slice_copy)."""
    ctx = _ctx_of(x)
    x = _arr(x, ctx)
    if out is None:
        out = x[(slice(None),) * (axis % x.ndim) + (slice(start, stop, step),)].copy()
        return out
    ctx._check(lib.gk_slice_copy(ctx._raw(), _check_out(out, ctx)._t, x._t, int(axis), int(start), int(stop), int(step)))
    return out


def interpolate(x, size=None, scale_factor=None, mode="nearest", *, out=None):
    """torch.nn.functional.interpolate(align_corners=False) (gk_interpolate):
    x [N, C, W] (nearest / linear) or [N, C, H, W] (nearest / bilinear);
    size or scale_factor (an int / float or one per spatial dim)."""
    ctx = _ctx_of(x)
    x = _arr(x, ctx)
    nsp = x.ndim - 2
    m = _INTERP_MODES(mode)
    scales = ffi.NULL
    if scale_factor is not None:
        sf = [scale_factor] * nsp if isinstance(scale_factor, numbers.Number) else list(scale_factor)
        scales = ffi.new("double[]", [float(s) for s in sf])
    p = ctx._raw()
    if out is not None:
        ctx._check(lib.gk_interpolate(p, _check_out(out, ctx)._t, x._t, m, scales))
        return out
    sz = ffi.NULL
    if size is not None:
        sz, _n = _ints([size] * nsp if isinstance(size, numbers.Integral) else size, "size")
    elif scale_factor is None:
        raise InvalidArgumentError("interpolate: give size or scale_factor")
    tp = _new_t(_T)
    ctx._check(lib.gk_interpolate_new(p, x._t, m, sz, scales, tp))
    return _wrap_info(ctx, tp)


# ---------------------------------------------------------------------------
# signal
def irfft(x, n=None, *, out=None):
    """Inverse real FFT: x [..., n/2+1, 2] -> [..., n] (gk_irfft); n default 2 * (bins - 1)."""
    ctx = _ctx_of(x)
    x = _arr(x, ctx)
    p = ctx._raw()
    if out is not None:
        ctx._check(lib.gk_irfft(p, _check_out(out, ctx)._t, x._t))
        return out
    if n is None:
        n = 2 * (x._shape[-2] - 1)
    tp = _new_t(_T)
    ctx._check(lib.gk_irfft_new(p, x._t, int(n), tp))
    return _wrap_info(ctx, tp)


def istft(spec, n_fft, hop_length, window=None, center=True, length=None, *, out=None):
    """torch.istft of spec [(B,) n_fft/2+1, frames, 2] (gk_istft); window None: periodic Hann."""
    ctx = _ctx_of(spec, window)
    spec = _arr(spec, ctx)
    window = None if window is None else _arr(window, ctx)
    p = ctx._raw()
    if out is not None:
        ctx._check(lib.gk_istft(p, _check_out(out, ctx)._t, spec._t, _h(window), int(n_fft), int(hop_length),
                                int(bool(center))))
        return out
    tp = _new_t(_T)
    ctx._check(lib.gk_istft_new(p, spec._t, _h(window), int(n_fft), int(hop_length), int(bool(center)),
                                -1 if length is None else int(length), tp))
    return _wrap_info(ctx, tp)


def mel_filters(n_mels, n_fft, sample_rate, fmin=0.0, fmax=None, htk=False, norm=None, ctx=None, *, out=None):
    """Mel filter bank [n_mels, n_fft/2+1] f32 as HF transformers' mel_filter_bank (gk_mel_filters);
    htk: the HTK scale instead of Slaney's; norm 'slaney' scales each filter by 2 / its width."""
    ctx = _resolve(ctx) if out is None else out._ctx
    flags = (lib.GK_MEL_HTK if htk else 0) | (lib.GK_MEL_NORM_SLANEY if norm == "slaney" else 0)
    if norm not in (None, "slaney"):
        raise InvalidArgumentError("mel_filters: norm must be None or 'slaney', not %r" % (norm,))
    fmax = sample_rate / 2.0 if fmax is None else fmax
    p = ctx._raw()
    if out is not None:
        ctx._check(lib.gk_mel_filters(p, out._t, float(sample_rate), float(fmin), float(fmax), flags))
        return out
    tp = _new_t(_T)
    ctx._check(lib.gk_mel_filters_new(p, int(n_mels), int(n_fft), float(sample_rate), float(fmin), float(fmax), flags,
                                      tp))
    return _wrap_info(ctx, tp)


def lstm(x, w_ih, w_hh, b_ih=None, b_hh=None, h0=None, c0=None, *, out=None, return_state=False):
    """One LSTM layer, batch 1, 1 or 2 directions, as PyTorch (gk_lstm):
    x [T, I], w_ih [D, 4H, I], w_hh [D, 4H, H], biases [D, 4H], h0 / c0 [D, H].
    Returns out [T, D*H], or (out, h_n, c_n) with return_state."""
    ctx = _ctx_of(x, w_ih, w_hh)
    args = [None if t is None else _arr(t, ctx) for t in (x, w_ih, w_hh, b_ih, b_hh, h0, c0)]
    x, w_ih, w_hh, b_ih, b_hh, h0, c0 = args
    p = ctx._raw()
    if out is None and not return_state:
        tp = _new_t(_T)
        ctx._check(lib.gk_lstm_new(p, x._t, w_ih._t, w_hh._t, _h(b_ih), _h(b_hh), _h(h0), _h(c0), tp))
        return _wrap_info(ctx, tp)
    if w_ih.ndim != 3:
        raise ShapeError("lstm: w_ih must be [D, 4H, I], got %r" % (w_ih._shape,))
    nd, hh = w_ih._shape[0], w_ih._shape[1] // 4
    if out is None:
        out = empty(x._shape[:-1] + (nd * hh,), x._dtype, ctx)
    hn = empty((nd, hh), x._dtype, ctx) if return_state else None
    cn = empty((nd, hh), x._dtype, ctx) if return_state else None
    ctx._check(lib.gk_lstm(p, _check_out(out, ctx)._t, _h(hn), _h(cn), x._t, w_ih._t, w_hh._t, _h(b_ih), _h(b_hh),
                           _h(h0), _h(c0)))
    return (out, hn, cn) if return_state else out


# ---------------------------------------------------------------------------
# rotary tables and sinusoids (host computations of the C library)
_ROPE_TYPES = {"default": lib.GK_ROPE_DEFAULT, "linear": lib.GK_ROPE_LINEAR, "dynamic": lib.GK_ROPE_DYNAMIC,
               "yarn": lib.GK_ROPE_YARN, "llama3": lib.GK_ROPE_LLAMA3}


def _rope_config(rotary_dim, theta, rope_type, **kw):
    if rope_type not in _ROPE_TYPES:
        raise InvalidArgumentError("rope_type must be one of %s, not %r" % (", ".join(_ROPE_TYPES), rope_type))
    c = _new_t("gk_rope_config *")
    c.type = _ROPE_TYPES[rope_type]
    c.rotary_dim = int(rotary_dim)
    c.theta = float(theta)
    for k, v in kw.items():
        if not hasattr(c, k):
            raise InvalidArgumentError("rope: unknown parameter %r" % k)
        setattr(c, k, v)
    return c


def rope_inv_freq(rotary_dim, theta=10000.0, rope_type="default", **params):
    """HF's inverse frequencies [rotary_dim / 2] (float32) and attention scaling (gk_rope_inv_freq).
    params: gk_rope_config's fields (factor, max_position_embeddings, original_max_position_embeddings, ...)."""
    c = _rope_config(rotary_dim, theta, rope_type, **params)
    inv = np.empty(int(rotary_dim) // 2, np.float32)
    sc = ffi.new("double *")
    st = lib.gk_rope_inv_freq(c, ffi.from_buffer("float[]", inv), sc)
    if st != _GK_OK:
        from .errors import raise_status
        raise_status(st)
    return inv, sc[0]


def rope_table(max_pos, rotary_dim, theta=10000.0, rope_type="default", dtype="float32", ctx=None, **params):
    """cos / sin tables [max_pos, rotary_dim / 2] as new arrays (gk_rope_table_new), for gpukit.ops.rope."""
    ctx = _resolve(ctx)
    c = _rope_config(rotary_dim, theta, rope_type, **params)
    tc, ts = _new_t(_T), _new_t(_T)
    ctx._check(lib.gk_rope_table_new(ctx._raw(), c, int(max_pos), _dt.dtype(dtype).gk, tc, ts))
    return _wrap_info(ctx, tc), _wrap_info(ctx, ts)


def sinusoids(length, channels, max_timescale=10000.0):
    """Whisper's sinusoids(length, channels) as a NumPy float32 array (gk_sinusoids, host only)."""
    out = np.empty((int(length), int(channels)), np.float32)
    st = lib.gk_sinusoids(int(length), int(channels), float(max_timescale), ffi.from_buffer("float[]", out))
    if st != _GK_OK:
        from .errors import raise_status
        raise_status(st)
    return out


# ---------------------------------------------------------------------------
# PyGPUkit's names for some of the ops above
def layernorm(input, gamma, beta, eps=1e-5):
    """PyGPUkit's layernorm(input, gamma, beta, eps): layer_norm over the last dim."""
    return layer_norm(input, gamma, beta, eps)  # noqa: F821 - generated above


def transpose(a):
    """PyGPUkit's transpose(a): a new array holding a.T (a copy; GPUArray.T is the view)."""
    return _arr(a, _ctx_of(a)).T.copy()


def sum_axis(a, axis):
    """PyGPUkit's sum_axis(a, axis): sum over one axis."""
    return sum(a, axis=axis)


def bias_add_inplace(output, bias):
    """PyGPUkit's bias_add_inplace(output, bias): output += bias (broadcast over the rows)."""
    output += bias
    return output


def linear_bias_gelu(input, weight, bias):
    """PyGPUkit's linear_bias_gelu(input, weight, bias): gelu(input @ weight^T + bias), fused in gk_linear."""
    return linear(input, weight, bias, activation="gelu")


__all__ = sorted(set(_generated) | {
    "layernorm", "transpose", "sum_axis", "bias_add_inplace", "linear_bias_gelu",
    "gelu", "neg", "pow", "add", "sub", "mul", "div", "subtract", "multiply", "divide", "fill", "copy", "cast", "scale",
    "axpy", "where", "glu", "reduce", "sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "var", "std",
    "matmul", "linear", "linear_glu", "conv1d", "attention", "scaled_dot_product_attention", "kv_write", "rope_kv_write",
    "decode_rms_norm", "add_rms_norm", "topk", "sample", "philox4x32_10", "permute", "concat", "concatenate", "stack",
    "split", "slice_copy", "interpolate", "irfft", "istft", "mel_filters", "lstm", "rope_inv_freq", "rope_table",
    "sinusoids",
})
