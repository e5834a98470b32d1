"""The profiler (gk_profiler_*): per-kernel counts and times (CUDA events on
the GPU, host time on the CPU backend), bytes / FLOPs and the rates they
give, pool use over time, and a Chrome trace (opens in Perfetto).

    with gpukit.Profiler() as prof:
        y = x @ w
    print(prof.report())
    prof.write_trace("trace.json")
"""
from ._gpukit import ffi, lib
from .context import _resolve
from .errors import LimitError

__all__ = ["Profiler"]

_KINDS = {lib.GK_PROFILE_KERNEL: "kernel", lib.GK_PROFILE_H2D: "HtoD", lib.GK_PROFILE_D2H: "DtoH",
          lib.GK_PROFILE_D2D: "DtoD", lib.GK_PROFILE_CPU: "cpu"}


class Profiler:
    """The profiler of a context. max_records: records kept (default 65536);
    pool_samples: sample the pool with each record (a counter track)."""

    def __init__(self, ctx=None, max_records=0, pool_samples=True):
        self._ctx = _resolve(ctx)
        self._desc = ffi.new("gk_profiler_desc *")
        self._desc.max_records = int(max_records)
        self._desc.flags = 0 if pool_samples else lib.GK_PROFILE_NO_POOL

    def start(self):
        self._ctx._check(lib.gk_profiler_start(self._ctx._raw(), self._desc))
        return self

    def stop(self):
        self._ctx._check(lib.gk_profiler_stop(self._ctx._raw()))
        return self

    def reset(self):
        """Stops and frees everything: the profiler is off as if never started."""
        self._ctx._check(lib.gk_profiler_reset(self._ctx._raw()))

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        if self._ctx._ptr is not None:
            lib.gk_profiler_stop(self._ctx._ptr)
        return False

    def stats(self):
        """Totals (gk_profiler_stats) as a dict."""
        s = ffi.new("gk_profile_stats *")
        self._ctx._check(lib.gk_profiler_stats(self._ctx._raw(), s))
        return {"running": bool(s.running), "records": s.records, "dropped": s.dropped, "skipped": s.skipped,
                "pending": s.pending, "busy_ms": s.busy_ms, "kernel_ms": s.kernel_ms, "copy_ms": s.copy_ms,
                "span_ms": s.span_ms, "entries": s.entries, "streams": s.streams, "pool_peak": s.pool_peak}

    def summary(self):
        """One dict per kernel name (or copy, or CPU op), by total time."""
        p = self._ctx._raw()
        n = ffi.new("int *")
        self._ctx._check(lib.gk_profiler_summary(p, ffi.NULL, 0, n))
        cap = n[0]
        out = ffi.new("gk_profile_entry[]", cap or 1)
        self._ctx._check(lib.gk_profiler_summary(p, out, cap, n))
        res = []
        for i in range(min(cap, n[0])):
            e = out[i]
            res.append({"name": ffi.string(e.name).decode("utf-8", "replace"), "kind": _KINDS.get(e.kind, "?"),
                        "count": e.count, "total_ms": e.total_ms, "mean_ms": e.mean_ms, "min_ms": e.min_ms,
                        "max_ms": e.max_ms, "bytes": e.bytes, "flops": e.flops, "gbps": e.gbps, "tflops": e.tflops})
        return res

    def report(self):
        """A readable table of the summary (gk_profiler_report)."""
        p = self._ctx._raw()
        need = ffi.new("size_t *")
        st = lib.gk_profiler_report(p, ffi.NULL, 0, need)
        if st not in (lib.GK_OK, lib.GK_ERR_LIMIT):
            self._ctx._check(st)
        buf = ffi.new("char[]", need[0] + 1)
        st = lib.gk_profiler_report(p, buf, need[0] + 1, need)
        if st == lib.GK_ERR_LIMIT:  # grew meanwhile (another thread's records)
            raise LimitError("Profiler.report: the table grew while it was written; call again")
        self._ctx._check(st)
        return ffi.string(buf).decode("utf-8", "replace")

    def write_trace(self, path):
        """Writes a Chrome trace (Trace Event Format) to path."""
        self._ctx._check(lib.gk_profiler_write_trace(self._ctx._raw(), str(path).encode()))

    export_chrome_trace = write_trace
