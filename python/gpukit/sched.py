"""The scheduler (gk_sched_*): one GPU shared by tenants with Kubernetes'
QoS classes, admission control, dependencies, deadlines and cancellation.

    with gpukit.Scheduler(workers=2) as s:
        t = s.submit(lambda stream: step(), qos="guaranteed", memory=1 << 30, share=0.5, name="chat")
        info = t.wait()                        # TaskInfo: state, result, times, memory peak

A task's fn(stream) runs on one of the scheduler's worker threads with
`stream` (a gpukit.Stream) as that thread's current stream, so gpukit ops
inside it go there; it is done when fn has returned and its GPU work has
completed. An exception in fn fails the task (wait() raises it again).
Submitting answers with a decision (admit, queue, reject) and its reason;
a rejected submission raises RejectedError (or InvalidArgumentError for an
invalid description) carrying the reason.

Python differs from PyGPUkit's Scheduler (a host-side simulation stepped
with step()): the C scheduler runs tasks itself on worker threads and
enforces reservations in the pool; see docs/python.md.
"""
import threading

from ._gpukit import ffi, lib
from .context import _resolve
from .errors import GpukitError, InvalidArgumentError, StateError, make_error
from .stream import Stream

__all__ = ["Scheduler", "Task", "TaskInfo", "QOS", "TASK_STATES"]

QOS = {"besteffort": lib.GK_QOS_BESTEFFORT, "burstable": lib.GK_QOS_BURSTABLE, "guaranteed": lib.GK_QOS_GUARANTEED}
_QOS_NAMES = {v: k for k, v in QOS.items()}
TASK_STATES = {lib.GK_TASK_PENDING: "pending", lib.GK_TASK_QUEUED: "queued", lib.GK_TASK_RUNNING: "running",
               lib.GK_TASK_COMPLETED: "completed", lib.GK_TASK_FAILED: "failed", lib.GK_TASK_CANCELLED: "cancelled"}
_DECISIONS = {lib.GK_ADMIT: "admit", lib.GK_QUEUE: "queue", lib.GK_REJECT: "reject"}


def _s(p):
    return ffi.string(p).decode("utf-8", "replace")


class TaskInfo:
    """gk_task_info: id, name, qos, state ("pending" ... "cancelled"),
    result (a gk_status; 0 is success), reason, queued_ms, run_ms, gpu_ms,
    memory_peak, cancel_requested, deadline_missed."""

    __slots__ = ("id", "name", "qos", "state", "result", "reason", "queued_ms", "run_ms", "gpu_ms", "memory_peak",
                 "cancel_requested", "deadline_missed")

    def __init__(self, i):
        self.id = int(i.id)
        self.name = _s(i.name)
        self.qos = _QOS_NAMES.get(i.qos, "?")
        self.state = TASK_STATES.get(i.state, "?")
        self.result = int(i.result)
        self.reason = _s(i.reason)
        self.queued_ms = i.queued_ms
        self.run_ms = i.run_ms
        self.gpu_ms = i.gpu_ms
        self.memory_peak = int(i.memory_peak)
        self.cancel_requested = bool(i.cancel_requested)
        self.deadline_missed = bool(i.deadline_missed)

    def __repr__(self):
        return "TaskInfo(id=%d, name=%r, state=%r, reason=%r)" % (self.id, self.name, self.state, self.reason)


class Task:
    """A submitted task. `admission` is (decision, reason message)."""

    def __init__(self, sched, fn, name):
        self._sched = sched
        self._fn = fn
        self.name = name
        self.id = 0
        self.admission = None
        self._exc = None
        self._handle = ffi.new_handle(self) if fn is not None else None

    def info(self):
        i = ffi.new("gk_task_info *")
        self._sched._check(lib.gk_sched_task_info(self._sched._raw(), self.id, i))
        return TaskInfo(i)

    @property
    def state(self):
        return self.info().state

    def wait(self, timeout=None):
        """Waits until the task finished (TimedOutError past timeout seconds);
        returns its TaskInfo. A failed task raises: the exception its fn raised,
        or the gpukit error it failed with; a cancelled one CancelledError."""
        i = ffi.new("gk_task_info *")
        self._sched._check(lib.gk_sched_wait(self._sched._raw(), self.id, -1.0 if timeout is None else timeout * 1e3, i))
        info = TaskInfo(i)
        if info.state == "failed":
            if self._exc is not None:
                raise self._exc
            raise make_error(info.result, info.reason)
        if info.state == "cancelled":
            raise make_error(lib.GK_ERR_CANCELLED, info.reason or "task %d cancelled" % self.id)
        return info

    def cancel(self):
        """Cancels the task if it has not started (StateError while it runs:
        the request is marked, see Scheduler.cancel_requested)."""
        self._sched._check(lib.gk_sched_cancel(self._sched._raw(), self.id))

    def release(self):
        """Ends a hold (submit(..., hold=True))."""
        self._sched._check(lib.gk_sched_release(self._sched._raw(), self.id))

    def add_dependency(self, on):
        """This task (not yet started) waits for `on` (a Task or id) to complete."""
        self._sched._check(lib.gk_sched_add_dependency(self._sched._raw(), self.id, on.id if isinstance(on, Task) else int(on)))

    def __repr__(self):
        return "<gpukit.Task %d %r>" % (self.id, self.name)


@ffi.def_extern()
def gkpy_task(ctx, stream, user):
    task = ffi.from_handle(user)
    try:
        task._fn(Stream._borrow(task._sched._ctx, stream))
        return lib.GK_OK
    except BaseException as e:  # the task fails with it; wait() raises it again
        task._exc = e
        st = e.status if isinstance(e, GpukitError) and e.status > 0 else lib.GK_ERR_INTERNAL
        msg = ("task '%s' raised %s: %s" % (task.name, type(e).__name__, e)).encode("utf-8", "replace")
        lib.gk_error_set(ctx, st, b"%s", ffi.new("char[]", msg))
        return st
    finally:
        task._sched._done(task)


class Scheduler:
    """A scheduler on a context (gk_sched_create); the arguments are
    gk_sched_desc's fields (0 / False: the defaults). `with Scheduler() as s:`
    closes it at the end (cancelling what has not started, waiting for what runs)."""

    def __init__(self, ctx=None, workers=0, max_queued=0, memory=0, reserved_share=0.0, besteffort_inflight=0,
                 besteffort_hold=False, guaranteed_linger_ms=0.0, burstable_inflight=0, share_window_ms=0.0,
                 keep_finished=0):
        self._ctx = _resolve(ctx)
        d = ffi.new("gk_sched_desc *")
        d.workers = int(workers)
        d.max_queued = int(max_queued)
        d.memory = int(memory)
        d.reserved_share = float(reserved_share)
        d.besteffort_inflight = int(besteffort_inflight)
        d.besteffort_hold = int(bool(besteffort_hold))
        d.guaranteed_linger_ms = float(guaranteed_linger_ms)
        d.burstable_inflight = int(burstable_inflight)
        d.share_window_ms = float(share_window_ms)
        d.keep_finished = int(keep_finished)
        pp = ffi.new("gk_sched **")
        self._ctx._check(lib.gk_sched_create(self._ctx._raw(), d, pp))
        self._ptr = pp[0]
        self._running = {}  # task id -> Task whose callback may still run (keeps its handle alive)
        self._graphs = []  # graphs submitted as tasks: alive until the scheduler closes
        self._lock = threading.Lock()
        self._ctx._dependents.add(self)

    def _raw(self):
        self._ctx._raw()
        if self._ptr is None:
            raise StateError("the scheduler is closed")
        return self._ptr

    def _check(self, st):
        self._ctx._check(st)

    def _done(self, task):
        with self._lock:
            self._running.pop(task.id, None)

    def submit(self, fn=None, *, qos="besteffort", name=None, memory=0, memory_limit=0, share=0.0, share_limit=0.0,
               deps=(), deadline_ms=0.0, hold=False, graph=None):
        """Submits fn(stream) (or a captured gpukit.Graph) as a task; returns
        the Task (its admission says admit or queue, and why). qos:
        "guaranteed", "burstable" or "besteffort"; memory / share: the
        reservation (Guaranteed) or request (Burstable); deps: tasks or ids
        that must complete first; deadline_ms: from now; hold: stays pending
        until task.release()."""
        if qos not in QOS:
            raise InvalidArgumentError("submit: qos must be 'guaranteed', 'burstable' or 'besteffort', not %r" % (qos,))
        if (fn is None) == (graph is None):
            raise InvalidArgumentError("submit: give fn or graph (one of them)")
        if fn is not None and not callable(fn):
            raise InvalidArgumentError("submit: fn must be callable")
        task = Task(self, fn, name)
        d = ffi.new("gk_task_desc *")
        cname = ffi.new("char[]", name.encode()) if name else ffi.NULL
        d.name = cname
        d.qos = QOS[qos]
        if fn is not None:
            d.fn = lib.gkpy_task
            d.user = task._handle
        else:
            if graph._ptr is None:
                raise InvalidArgumentError("submit: the graph was not captured (or was closed)")
            d.graph = graph._ptr
            self._graphs.append(graph)
        d.memory = int(memory)
        d.memory_limit = int(memory_limit)
        d.share = float(share)
        d.share_limit = float(share_limit)
        dep_ids = [t.id if isinstance(t, Task) else int(t) for t in deps]
        cdeps = ffi.new("gk_task_id[]", dep_ids or [0])
        d.deps = cdeps
        d.ndeps = len(dep_ids)
        d.deadline_ms = float(deadline_ms)
        d.hold = int(bool(hold))
        tid = ffi.new("gk_task_id *")
        why = ffi.new("gk_admission *")
        with self._lock:  # the task may start (and end) before submit returns
            st = lib.gk_sched_submit(self._raw(), d, tid, why)
            if st == lib.GK_OK:
                task.id = int(tid[0])
                if fn is not None:
                    self._running[task.id] = task
        task.admission = (_DECISIONS.get(why.decision, "?"), _s(why.message))
        if st != lib.GK_OK:
            raise make_error(st, _s(why.message) or _s(lib.gk_last_error(self._ctx._raw())))
        if not name:
            task.name = "task %d" % task.id
        return task

    def wait_all(self, timeout=None):
        """Waits for every task (TimedOutError past timeout seconds)."""
        self._check(lib.gk_sched_wait_all(self._raw(), -1.0 if timeout is None else timeout * 1e3))

    def cancel_requested(self):
        """Inside a task's fn: whether its task was asked to stop."""
        return bool(lib.gk_sched_cancel_requested(self._raw()))

    def stats(self):
        """gk_sched_stats as a dict: per QoS class counters and latencies, memory and share reserved."""
        s = ffi.new("gk_sched_stats *")
        self._check(lib.gk_sched_stats_get(self._raw(), s))
        classes = {}
        for q, name in _QOS_NAMES.items():
            c = s.cls[q]
            classes[name] = {f: getattr(c, f) for f in (
                "submitted", "admitted", "queued", "rejected", "completed", "failed", "cancelled", "deadline_missed",
                "pending", "ready", "running", "latency_p50_ms", "latency_p99_ms", "latency_max_ms", "gpu_ms")}
        return {"classes": classes, "memory": s.memory, "memory_reserved": s.memory_reserved,
                "share_reserved": s.share_reserved, "throttled": s.throttled, "guaranteed_active": s.guaranteed_active,
                "partitioning": bool(s.partitioning), "partitioning_note": _s(s.partitioning_note)}

    def shutdown(self, cancel_pending=False):
        """Stops admitting; with cancel_pending, cancels what has not started."""
        self._check(lib.gk_sched_shutdown(self._raw(), int(bool(cancel_pending))))

    def close(self):
        """Cancels tasks not yet running, waits for running ones, joins the workers."""
        p, self._ptr = self._ptr, None
        if p is not None and self._ctx._ptr is not None:
            lib.gk_sched_destroy(p)

    _release = close

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:  # pragma: no cover
            pass
