"""Streams, events and CUDA graphs (gk_stream_*, gk_event_*, gk_graph_*).

    with gpukit.Stream(priority="high") as s:   # ops on this thread go to s
        y = x @ w
    s.synchronize()

    with gpukit.graph() as g:                   # captured, not run
        gpukit.ops.add(a, b, out=c)
    g.launch()                                  # replays with the same arrays

Each thread has its own current stream per context (a thread starts on the
default stream). On the CPU backend streams and events exist and ops run
synchronously; graphs record host thunks and replay them in order.
"""
from ._gpukit import ffi, lib
from ._array import _drain
from .context import _resolve
from .errors import InvalidArgumentError, InvalidHandleError

__all__ = ["Stream", "Event", "Graph", "graph", "current_stream", "default_stream", "event_elapsed_ms", "event_elapsed_us"]

_PRIORITIES = {"normal": lib.GK_PRIORITY_NORMAL, "high": lib.GK_PRIORITY_HIGH, "low": lib.GK_PRIORITY_LOW}
_PRIORITY_NAMES = {v: k for k, v in _PRIORITIES.items()}


class Stream:
    """A gpukit stream (gk_stream_create). priority: "normal", "high" or "low".
    `with stream:` makes it the thread's current stream inside the block."""

    def __init__(self, priority="normal", ctx=None):
        if priority not in _PRIORITIES:
            raise InvalidArgumentError("Stream: priority must be 'normal', 'high' or 'low', not %r" % (priority,))
        ctx = _resolve(ctx)
        pp = ffi.new("gk_stream **")
        ctx._check(lib.gk_stream_create(ctx._raw(), _PRIORITIES[priority], pp))
        self._ctx = ctx
        self._ptr = pp[0]
        self._owned = True
        self._prev = []
        self.priority = priority
        ctx._dependents.add(self)

    @classmethod
    def _borrow(cls, ctx, p, priority="normal"):
        """A Stream object for a stream gpukit owns (the default stream, a scheduler task's)."""
        s = object.__new__(cls)
        s._ctx = ctx
        s._ptr = p
        s._owned = False
        s._prev = []
        s.priority = priority
        return s

    def _raw(self):
        self._ctx._raw()
        if self._ptr is None:
            raise InvalidHandleError("the stream was destroyed")
        return self._ptr

    def _release(self):
        self._ptr = None

    @property
    def ctx(self):
        return self._ctx

    def synchronize(self):
        """Waits until the stream's work is done (gk_stream_sync)."""
        self._ctx._check(lib.gk_stream_sync(self._ctx._raw(), self._raw()))

    sync = synchronize

    def wait_event(self, event):
        """Work issued on this stream later waits for event (gk_stream_wait_event)."""
        self._ctx._check(lib.gk_stream_wait_event(self._ctx._raw(), self._raw(), event._raw()))

    def record(self, event=None):
        """Records event (a new one when None) on this stream; returns it."""
        if event is None:
            event = Event(self._ctx)
        event.record(self)
        return event

    @property
    def handle(self):
        """The CUstream as an int (0 on the CPU backend)."""
        return int(ffi.cast("uintptr_t", lib.gk_stream_native(self._ctx._raw(), self._raw())))

    ptr = handle

    def set_max_inflight(self, n):
        """Bounds this stream's launches in flight (0: no bound; gk_stream_set_max_inflight)."""
        self._ctx._check(lib.gk_stream_set_max_inflight(self._ctx._raw(), self._raw(), int(n)))

    def stats(self):
        """The dispatch controller's counters for this stream (gk_stream_stats_get)."""
        s = ffi.new("gk_stream_stats *")
        self._ctx._check(lib.gk_stream_stats_get(self._ctx._raw(), self._raw(), s))
        return {"launches": s.launches, "paced_waits": s.paced_waits, "paced_ms": s.paced_ms,
                "max_inflight": s.max_inflight, "inflight": s.inflight, "held": bool(s.held),
                "priority": _PRIORITY_NAMES.get(s.priority, "normal")}

    def __enter__(self):
        p = self._ctx._raw()
        self._prev.append(lib.gk_get_stream(p))
        self._ctx._check(lib.gk_set_stream(p, self._raw()))
        return self

    def __exit__(self, *exc):
        prev = self._prev.pop() if self._prev else ffi.NULL
        if self._ctx._ptr is not None:
            lib.gk_set_stream(self._ctx._ptr, prev)
        return False

    def close(self):
        """Waits for the stream's work and destroys it (owned streams only)."""
        if self._owned and self._ptr is not None and self._ctx._ptr is not None:
            p, self._ptr = self._ptr, None
            self._ctx._check(lib.gk_stream_destroy(self._ctx._ptr, p))

    destroy = close

    def __del__(self):
        try:
            if self._owned and self._ptr is not None and self._ctx._ptr is not None:
                lib.gk_stream_destroy(self._ctx._ptr, self._ptr)
                self._ptr = None
        except Exception:  # pragma: no cover
            pass

    def __eq__(self, other):
        return isinstance(other, Stream) and other._ptr == self._ptr and other._ctx is self._ctx

    def __hash__(self):
        return hash((id(self._ctx), int(ffi.cast("uintptr_t", self._ptr)) if self._ptr is not None else 0))

    def __repr__(self):
        return "<gpukit.Stream %s%s>" % (self.priority, "" if self._owned else " (borrowed)")


def current_stream(ctx=None):
    """The calling thread's current stream on ctx."""
    ctx = _resolve(ctx)
    return Stream._borrow(ctx, lib.gk_get_stream(ctx._raw()))


def default_stream(ctx=None):
    """The context's default stream."""
    ctx = _resolve(ctx)
    return Stream._borrow(ctx, lib.gk_default_stream(ctx._raw()))


class Event:
    """A gpukit event (gk_event_create): record it on a stream, wait for it,
    time between two."""

    def __init__(self, ctx=None):
        ctx = _resolve(ctx)
        pp = ffi.new("gk_event **")
        ctx._check(lib.gk_event_create(ctx._raw(), pp))
        self._ctx = ctx
        self._ptr = pp[0]
        ctx._dependents.add(self)

    def _raw(self):
        self._ctx._raw()
        if self._ptr is None:
            raise InvalidHandleError("the event was destroyed")
        return self._ptr

    def _release(self):
        self._ptr = None

    def record(self, stream=None):
        """Records the event on stream (default: the current stream); returns self."""
        s = ffi.NULL if stream is None else stream._raw()
        self._ctx._check(lib.gk_event_record(self._ctx._raw(), self._raw(), s))
        return self

    def synchronize(self):
        self._ctx._check(lib.gk_event_sync(self._ctx._raw(), self._raw()))

    sync = synchronize

    def query(self):
        """Whether the work before the event is done."""
        done = ffi.new("int *")
        self._ctx._check(lib.gk_event_query(self._ctx._raw(), self._raw(), done))
        return bool(done[0])

    def elapsed_ms(self, end):
        """Milliseconds from this event to end (both recorded and complete)."""
        ms = ffi.new("float *")
        self._ctx._check(lib.gk_event_elapsed_ms(self._ctx._raw(), self._raw(), end._raw(), ms))
        return float(ms[0])

    def close(self):
        if self._ptr is not None and self._ctx._ptr is not None:
            p, self._ptr = self._ptr, None
            self._ctx._check(lib.gk_event_destroy(self._ctx._ptr, p))

    def __del__(self):
        try:
            if self._ptr is not None and self._ctx._ptr is not None:
                lib.gk_event_destroy(self._ctx._ptr, self._ptr)
                self._ptr = None
        except Exception:  # pragma: no cover
            pass


def event_elapsed_ms(start, end):
    """Milliseconds between two recorded events."""
    return start.elapsed_ms(end)


def event_elapsed_us(start, end):
    """Microseconds between two recorded events."""
    return start.elapsed_ms(end) * 1e3


class Graph:
    """A captured graph. Made by `with gpukit.graph() as g:`; g.launch()
    replays it (with the same arrays: storage used by the graph stays pinned
    until the graph is closed)."""

    def __init__(self, stream=None, ctx=None):
        self._ctx = _resolve(ctx) if stream is None else stream._ctx
        self._stream = stream
        self._ptr = None
        self._capturing = False

    def _sp(self):
        return ffi.NULL if self._stream is None else self._stream._raw()

    def __enter__(self):
        self._ctx._check(lib.gk_graph_begin(self._ctx._raw(), self._sp()))
        self._capturing = True
        return self

    def __exit__(self, exc_type, exc, tb):
        self._capturing = False
        pp = ffi.new("gk_graph **")
        st = lib.gk_graph_end(self._ctx._raw(), self._sp(), pp)
        if st == lib.GK_OK:
            self._ptr = pp[0]
            self._ctx._dependents.add(self)
        if exc_type is not None:  # the body's error wins; the graph is dropped
            self.close()
            return False
        self._ctx._check(st)
        return False

    def _release(self):
        self._ptr = None

    # PyGPUkit's CudaGraph names
    def begin_capture(self):
        """Starts capturing (the `with` statement's entry)."""
        self.__enter__()

    def end_capture(self):
        """Ends the capture (the `with` statement's exit)."""
        self.__exit__(None, None, None)

    def reset(self):
        """Drops the captured graph."""
        self.close()

    def launch(self, stream=None):
        """Replays the graph on stream (default: the current stream)."""
        if self._ptr is None:
            raise InvalidHandleError("the graph was not captured (or was closed)")
        s = ffi.NULL if stream is None else stream._raw()
        self._ctx._check(lib.gk_graph_launch(self._ctx._raw(), self._ptr, s))

    replay = launch

    def close(self):
        if self._ptr is not None and self._ctx._ptr is not None:
            p, self._ptr = self._ptr, None
            st = lib.gk_graph_destroy(self._ctx._ptr, p)
            _drain()  # wrapped memory the graph held
            self._ctx._check(st)

    def __del__(self):
        try:
            if self._ptr is not None and self._ctx._ptr is not None:
                lib.gk_graph_destroy(self._ctx._ptr, self._ptr)
                self._ptr = None
                _drain()
        except Exception:  # pragma: no cover
            pass


def graph(stream=None, ctx=None):
    """`with gpukit.graph() as g:` captures the work issued on stream
    (default: the current stream) into g instead of running it."""
    return Graph(stream, ctx)
