"""The memory pool of a context (gk_pool_*): every array's storage comes
from it. Size classes, cached free blocks, a quota on used + cached bytes,
LRU eviction of idle blocks to host memory (restored on next use), pinning.

    pool = gpukit.current_context().pool      # or gpukit.get_memory_pool()
    pool.quota = 2 << 30
    pool.stats()["used"]
    a.pin(); a.evict(); a.resident           # per array
"""
from ._gpukit import ffi, lib
from .context import _resolve

__all__ = ["MemoryPool", "get_memory_pool"]

_FIELDS = ("used", "cached", "peak", "quota", "evicted", "pinned", "allocations", "reuses", "evictions", "restores",
           "releases", "driver_allocs", "driver_frees")


class MemoryPool:
    """A context's pool (Context.pool)."""

    def __init__(self, ctx):
        self._ctx = ctx

    def stats(self):
        """gk_pool_stats as a dict; PyGPUkit's names too: allocation_count,
        reuse_count, eviction_count, available (quota - used - cached)."""
        s = ffi.new("gk_pool_stats *")
        self._ctx._check(lib.gk_pool_stats_get(self._ctx._raw(), s))
        d = {f: int(getattr(s, f)) for f in _FIELDS}
        d["allocation_count"] = d["allocations"]
        d["reuse_count"] = d["reuses"]
        d["eviction_count"] = d["evictions"]
        d["available"] = max(d["quota"] - d["used"] - d["cached"], 0)
        return d

    @property
    def quota(self):
        return self.stats()["quota"]

    @quota.setter
    def quota(self, n):
        self.set_quota(n)

    def set_quota(self, n):
        """Sets the quota; lowering it releases cached blocks and evicts idle
        ones (OutOfMemoryError when pinned blocks exceed it)."""
        self._ctx._check(lib.gk_pool_set_quota(self._ctx._raw(), int(n)))

    @property
    def used(self):
        return self.stats()["used"]

    @property
    def cached(self):
        return self.stats()["cached"]

    @property
    def available(self):
        return self.stats()["available"]

    def trim(self):
        """Gives every cached free block back to the driver (gk_pool_trim)."""
        self._ctx._check(lib.gk_pool_trim(self._ctx._raw()))

    free_all_blocks = trim

    def __repr__(self):
        s = self.stats()
        return "<gpukit.MemoryPool used=%d cached=%d quota=%d>" % (s["used"], s["cached"], s["quota"])


def get_memory_pool(ctx=None):
    """The pool of ctx (default: the current context)."""
    return _resolve(ctx).pool
