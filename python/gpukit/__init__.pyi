from typing import Optional

from . import asr as asr, dtypes as dtypes, errors as errors, llm as llm, ops as ops, tts as tts
from ._array import (GPUArray as GPUArray, arange as arange, array as array, asarray as asarray, empty as empty,
                     empty_like as empty_like, from_numpy as from_numpy, full as full, full_like as full_like,
                     ones as ones, ones_like as ones_like, to_numpy as to_numpy, zeros as zeros, zeros_like as zeros_like)
from ._interop import from_dlpack as from_dlpack
from ._jit import (Kernel as Kernel, f32 as f32, f64 as f64, get_nvrtc_version as get_nvrtc_version, i32 as i32,
                   i64 as i64, is_nvrtc_available as is_nvrtc_available, jit as jit, ptr as ptr, u32 as u32, u64 as u64)
from .context import (Context as Context, DeviceInfo as DeviceInfo, current_context as current_context,
                      default_context as default_context, get_device_capabilities as get_device_capabilities,
                      get_device_info as get_device_info, is_cuda_available as is_cuda_available,
                      set_default_context as set_default_context, synchronize as synchronize, use_context as use_context)
from .dtypes import (DataType as DataType, all_dtypes as all_dtypes, bfloat16 as bfloat16, dtype as dtype,
                     float8_e4m3fn as float8_e4m3fn, float8_e5m2 as float8_e5m2, float16 as float16, float32 as float32,
                     float64 as float64, int8 as int8, int32 as int32, int64 as int64, result_type as result_type,
                     uint8 as uint8)
from .errors import (CancelledError as CancelledError, CompileError as CompileError,
                     ContextClosedError as ContextClosedError, CudaError as CudaError, DtypeError as DtypeError,
                     FormatError as FormatError, GpukitError as GpukitError, InternalError as InternalError,
                     InvalidArgumentError as InvalidArgumentError, InvalidHandleError as InvalidHandleError,
                     IoError as IoError, LaunchError as LaunchError, LimitError as LimitError,
                     NoDeviceError as NoDeviceError, NoDriverError as NoDriverError, NoNvrtcError as NoNvrtcError,
                     NotFoundError as NotFoundError, OutOfMemoryError as OutOfMemoryError,
                     RejectedError as RejectedError, ShapeError as ShapeError, SizeOverflowError as SizeOverflowError,
                     StateError as StateError, TimedOutError as TimedOutError, UnsupportedError as UnsupportedError,
                     error_class as error_class)
from .ops import (abs as abs, add as add, argmax as argmax, argmin as argmin, attention as attention,
                  bias_add_inplace as bias_add_inplace, clamp as clamp, concat as concat, conv1d as conv1d, cos as cos,
                  cumsum as cumsum, div as div, embedding as embedding, exp as exp, gelu as gelu, istft as istft,
                  layer_norm as layer_norm, layernorm as layernorm, linear as linear,
                  linear_bias_gelu as linear_bias_gelu, log as log, log_softmax as log_softmax, matmul as matmul,
                  max as max, maximum as maximum, mean as mean, min as min, minimum as minimum, mul as mul, neg as neg,
                  relu as relu, rms_norm as rms_norm, rope as rope, rsqrt as rsqrt, sample as sample,
                  sigmoid as sigmoid, silu as silu, sin as sin, softmax as softmax, split as split, sqrt as sqrt,
                  stack as stack, std as std, stft as stft, sub as sub, sum as sum, sum_axis as sum_axis, tanh as tanh,
                  topk as topk, transpose as transpose, var as var, where as where, whisper_log_mel as whisper_log_mel)
from .pool import MemoryPool as MemoryPool, get_memory_pool as get_memory_pool
from .profiler import Profiler as Profiler
from .sched import Scheduler as Scheduler, Task as Task, TaskInfo as TaskInfo
from .stream import (Event as Event, Graph as Graph, Stream as Stream, current_stream as current_stream,
                     default_stream as default_stream, event_elapsed_ms as event_elapsed_ms,
                     event_elapsed_us as event_elapsed_us, graph as graph)

__version__: str
c_version: str
JITKernel = Kernel
NvrtcError = CompileError
CudaGraph = Graph
CudaEvent = Event

def get_sm_version(ctx: Optional[Context] = ...) -> int: ...
