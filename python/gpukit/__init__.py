from ._gpukit import ffi, lib
from .errors import *
from .dtypes import *
from .context import *
from .array import *
from . import ops
from .ops import matmul, softmax, layer_norm, rms_norm, gelu, silu, rope, attention, conv1d, stft, whisper_log_mel, topk, sample
