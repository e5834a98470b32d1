"""gpukit: NVIDIA GPUs from Python without the CUDA Toolkit.

A thin cffi layer over the header-only C library gpukit.h / gpukit_llm.h,
compiled into the extension gpukit._gpukit: the driver, NVRTC and cuBLASLt
are loaded at run time, and without a usable GPU everything runs on the
plain-C CPU backend.

    import gpukit as gk
    a = gk.asarray(np.random.rand(256, 256).astype(np.float32))
    b = (a @ a.T).sum(axis=1)
    b.to_numpy()

Modules: gpukit.ops (every C op), gpukit.jit (your kernels), streams and
graphs (gpukit.Stream, gpukit.graph), the pool (Context.pool), the
scheduler (gpukit.Scheduler), the profiler (gpukit.Profiler), gpukit.llm,
gpukit.asr and gpukit.tts (model runtimes). Errors: gpukit.errors, one
class per gk_status under gpukit.GpukitError.
"""
from ._gpukit import ffi as _ffi, lib as _lib
from . import errors
from .errors import *  # noqa: F401,F403
from . import dtypes
from .dtypes import (DataType, dtype, float32, float64, float16, bfloat16, float8_e4m3fn, float8_e5m2, int8, uint8,
                     int32, int64, all_dtypes, result_type)
from .context import (Context, DeviceInfo, default_context, set_default_context, current_context, use_context,
                      get_device_info, get_device_capabilities, is_cuda_available, synchronize)
from ._array import (GPUArray, empty, zeros, ones, full, arange, asarray, array, from_numpy, to_numpy, empty_like,
                    zeros_like, ones_like, full_like)
from . import ops
from .ops import (add, sub, mul, div, matmul, linear, softmax, log_softmax, layer_norm, rms_norm, gelu, silu, relu,
                  sigmoid, tanh, exp, log, sqrt, rope, attention, conv1d, stft, istft, whisper_log_mel, topk, sample,
                  where, maximum, minimum, clamp, concat, stack, split, sum, mean, max, min, argmax, argmin, var, std,
                  cumsum, embedding)
from .ops import abs, neg, sin, cos, rsqrt, layernorm, transpose, sum_axis, bias_add_inplace, linear_bias_gelu
from ._interop import from_dlpack
from ._jit import jit, Kernel, i32, u32, i64, u64, f32, f64, ptr, is_nvrtc_available, get_nvrtc_version
from .stream import Stream, Event, Graph, graph, current_stream, default_stream, event_elapsed_ms, event_elapsed_us
from .pool import MemoryPool, get_memory_pool
from .sched import Scheduler, Task, TaskInfo
from .profiler import Profiler
from . import llm, asr, tts

__version__ = "0.1.0"
# PyGPUkit's names for the same things (docs/python.md maps them all)
JITKernel = Kernel
NvrtcError = CompileError
CudaGraph = Graph
CudaEvent = Event


def get_sm_version(ctx=None):
    """Compute capability as one number (90 for 9.0); 0 on the CPU backend."""
    return get_device_info(ctx).sm_version


c_version = "%d.%d.%d" % (_lib.GK_VERSION_MAJOR, _lib.GK_VERSION_MINOR, _lib.GK_VERSION_PATCH)  # gpukit.h's
