"""gpukit's errors as Python exceptions: one class per gk_status.

Every class derives from GpukitError and from the built-in exception that
fits it (ShapeError is a ValueError, OutOfMemoryError a MemoryError, ...),
so `except ValueError` catches a bad shape too. The message is gpukit's own
(gk_last_error): what failed, where, and the value at fault.
"""
from ._gpukit import ffi, lib

__all__ = [
    "GpukitError", "InvalidArgumentError", "InvalidHandleError", "ShapeError", "DtypeError",
    "SizeOverflowError", "OutOfMemoryError", "NoDriverError", "NoDeviceError", "NoNvrtcError",
    "CudaError", "CompileError", "LaunchError", "NotFoundError", "UnsupportedError", "IoError",
    "FormatError", "LimitError", "StateError", "InternalError", "TimedOutError", "CancelledError",
    "RejectedError", "ContextClosedError", "error_class",
]


class GpukitError(Exception):
    """Base class of gpukit's errors. `status` is the gk_status number,
    `status_name` its name ("GK_ERR_SHAPE")."""

    status = -1
    status_name = ""

    def __init__(self, message=""):
        Exception.__init__(self, message)
        self.message = message


class InvalidArgumentError(GpukitError, ValueError):
    """GK_ERR_INVALID_ARGUMENT: an argument out of range or of the wrong kind."""


class InvalidHandleError(GpukitError, ValueError):
    """GK_ERR_INVALID_HANDLE: a freed, NULL or foreign handle (a freed array, a destroyed stream)."""


class ContextClosedError(InvalidHandleError):
    """A call on a context (or one of its arrays, streams ...) after Context.close()."""


class ShapeError(GpukitError, ValueError):
    """GK_ERR_SHAPE: incompatible shapes."""


class DtypeError(GpukitError, TypeError):
    """GK_ERR_DTYPE: an unsupported or mismatched dtype."""


class SizeOverflowError(GpukitError, OverflowError):
    """GK_ERR_OVERFLOW: a size that overflows."""


class OutOfMemoryError(GpukitError, MemoryError):
    """GK_ERR_OUT_OF_MEMORY: the pool's quota, the device or the host is out of memory."""


class NoDriverError(GpukitError, RuntimeError):
    """GK_ERR_NO_DRIVER: no CUDA driver (backend="cuda" asked for)."""


class NoDeviceError(GpukitError, RuntimeError):
    """GK_ERR_NO_DEVICE: no usable CUDA device."""


class NoNvrtcError(GpukitError, RuntimeError):
    """GK_ERR_NO_NVRTC: NVRTC is needed and not found."""


class CudaError(GpukitError, RuntimeError):
    """GK_ERR_CUDA: a CUDA driver call failed (the message names it)."""


class CompileError(GpukitError, RuntimeError):
    """GK_ERR_COMPILE: NVRTC refused a kernel (the message holds its log)."""


class LaunchError(GpukitError, RuntimeError):
    """GK_ERR_LAUNCH: a kernel launch failed."""


class NotFoundError(GpukitError, LookupError):
    """GK_ERR_NOT_FOUND: a kernel, tensor, token or file entry that is not there."""


class UnsupportedError(GpukitError, NotImplementedError):
    """GK_ERR_UNSUPPORTED: not supported (here, or on this backend)."""


class IoError(GpukitError, OSError):
    """GK_ERR_IO: a file could not be opened, read or written."""


class FormatError(GpukitError, ValueError):
    """GK_ERR_FORMAT: malformed data (a file, or non-finite values)."""


class LimitError(GpukitError, ValueError):
    """GK_ERR_LIMIT: a limit exceeded (context length, sizes)."""


class StateError(GpukitError, RuntimeError):
    """GK_ERR_STATE: a call not valid in the current state."""


class InternalError(GpukitError, RuntimeError):
    """GK_ERR_INTERNAL: a bug in gpukit."""


class TimedOutError(GpukitError, TimeoutError):
    """GK_ERR_TIMEOUT: a wait or a deadline passed."""


class CancelledError(GpukitError, RuntimeError):
    """GK_ERR_CANCELLED: cancelled."""


class RejectedError(GpukitError, RuntimeError):
    """GK_ERR_REJECTED: refused by the scheduler's admission control."""


_BY_STATUS = {}
for _name, _cls in (
    ("GK_ERR_INVALID_ARGUMENT", InvalidArgumentError), ("GK_ERR_INVALID_HANDLE", InvalidHandleError),
    ("GK_ERR_SHAPE", ShapeError), ("GK_ERR_DTYPE", DtypeError), ("GK_ERR_OVERFLOW", SizeOverflowError),
    ("GK_ERR_OUT_OF_MEMORY", OutOfMemoryError), ("GK_ERR_NO_DRIVER", NoDriverError),
    ("GK_ERR_NO_DEVICE", NoDeviceError), ("GK_ERR_NO_NVRTC", NoNvrtcError), ("GK_ERR_CUDA", CudaError),
    ("GK_ERR_COMPILE", CompileError), ("GK_ERR_LAUNCH", LaunchError), ("GK_ERR_NOT_FOUND", NotFoundError),
    ("GK_ERR_UNSUPPORTED", UnsupportedError), ("GK_ERR_IO", IoError), ("GK_ERR_FORMAT", FormatError),
    ("GK_ERR_LIMIT", LimitError), ("GK_ERR_STATE", StateError), ("GK_ERR_INTERNAL", InternalError),
    ("GK_ERR_TIMEOUT", TimedOutError), ("GK_ERR_CANCELLED", CancelledError), ("GK_ERR_REJECTED", RejectedError),
):
    _st = getattr(lib, _name)
    _cls.status = _st
    _cls.status_name = _name
    _BY_STATUS[_st] = _cls
ContextClosedError.status = lib.GK_ERR_INVALID_HANDLE
ContextClosedError.status_name = "GK_ERR_INVALID_HANDLE"
if len(_BY_STATUS) != lib.GK_STATUS_COUNT - 1:  # every status but GK_OK has its class
    raise ImportError("gpukit.errors: the statuses of the C library changed; errors.py must follow")


def error_class(status):
    """The exception class of a gk_status value."""
    return _BY_STATUS.get(status, GpukitError)


def make_error(status, message=None):
    """The exception for status with message (default: the status's own text)."""
    if message is None or message == "":
        message = ffi.string(lib.gk_status_message(status)).decode("utf-8", "replace")
    return error_class(status)(message)


def raise_status(status, raw_ctx=ffi.NULL):
    """Raises the exception of a failed call; the message is gk_last_error(raw_ctx)
    of the calling thread (the thread's context-free error when raw_ctx is NULL)."""
    msg = ffi.string(lib.gk_last_error(raw_ctx)).decode("utf-8", "replace")
    raise make_error(status, msg)
