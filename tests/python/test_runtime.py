"""Streams, events, graphs, the memory pool, device info, the profiler and
the scheduler."""
import json
import threading
import time

import numpy as np
import pytest

import gpukit as gk
from gpukit import ops


def test_device_info(ctx):
    info = gk.get_device_info()
    assert info.backend == ctx.backend and info.name
    caps = gk.get_device_capabilities()
    if ctx.backend == "cpu":
        assert caps.sm_version == 0 and not caps.tensorcore and info.arch == ""
    else:
        assert caps.sm_version >= 80 and caps.tensorcore and info.arch.startswith("sm_")
    assert info.total_memory > 0
    assert gk.is_cuda_available() == (ctx.backend == "cuda")
    assert set(info.as_dict()) >= {"name", "arch", "cc_major", "sm_count"}


def test_streams(ctx, rng):
    x = rng.standard_normal((64, 64)).astype(np.float32)
    a = gk.asarray(x)
    default = gk.current_stream()
    s = gk.Stream(priority="high")
    assert s.priority == "high"
    with s:
        assert gk.current_stream() == s
        b = a @ a
        c = b + 1
    assert gk.current_stream() == default
    s.synchronize()
    np.testing.assert_allclose(c.to_numpy(), x.astype(np.float64) @ x + 1, rtol=1e-4, atol=1e-4)
    st = s.stats()
    assert st["priority"] == "high" and st["max_inflight"] == 0
    s.set_max_inflight(4)
    assert s.stats()["max_inflight"] == 4
    if ctx.backend == "cuda":
        assert s.handle != 0 and st["launches"] >= 2
    else:
        assert s.handle == 0
    with pytest.raises(gk.InvalidArgumentError):
        gk.Stream(priority="urgent")
    s.close()
    with pytest.raises(gk.InvalidHandleError):
        s.synchronize()
    gk.synchronize()


def test_events(ctx):
    s = gk.Stream()
    e0, e1 = gk.Event(), gk.Event()
    with s:
        e0.record()
        a = gk.ones((256, 256)) @ gk.ones((256, 256))
        e1.record()
    e1.synchronize()
    assert e1.query()
    ms = gk.event_elapsed_ms(e0, e1)
    assert ms >= 0.0
    other = gk.Stream()
    other.wait_event(e1)
    e2 = other.record()
    e2.synchronize()
    assert a[0, 0].item() == 256.0


def test_graph_capture_and_replay(ctx, rng):
    x, y = rng.standard_normal(16).astype(np.float32), rng.standard_normal(16).astype(np.float32)
    a, b, out = gk.asarray(x), gk.asarray(y), gk.zeros(16)
    s = gk.Stream()
    with s:
        with gk.graph() as g:
            ops.add(a, b, out=out)
            ops.mul(out, b, out=out)
    assert np.all(out.to_numpy() == 0)  # captured, not run
    g.launch(s)
    s.synchronize()
    np.testing.assert_allclose(out.to_numpy(), (x + y) * y, rtol=1e-6)
    b.copy_from(np.ones(16, np.float32))  # replays read the arrays' current values
    g.replay(s)
    s.synchronize()
    np.testing.assert_allclose(out.to_numpy(), x + 1, rtol=1e-6)
    g.close()
    with pytest.raises(gk.InvalidHandleError):
        g.launch()
    # an error inside the capture ends it and drops the graph
    with pytest.raises(gk.ShapeError):
        with gk.graph() as g2:
            ops.add(a, gk.zeros(3), out=out)
    assert g2._ptr is None
    c = a + b  # the stream runs normally again
    np.testing.assert_allclose(c.to_numpy(), x + 1, rtol=1e-6)


def test_pool(ctx):
    c = gk.Context(backend=ctx.backend, memory_quota=64 << 20)
    try:
        pool = c.pool
        assert pool is gk.get_memory_pool(c)
        s0 = pool.stats()
        assert s0["quota"] == 64 << 20 and {"used", "cached", "allocation_count", "reuse_count", "eviction_count",
                                             "available"} <= set(s0)
        a = gk.zeros((1 << 20,), ctx=c)  # 4 MiB
        s1 = pool.stats()
        assert s1["used"] >= 4 << 20 and s1["allocations"] == s0["allocations"] + 1
        a.free()
        assert pool.stats()["cached"] >= 4 << 20
        b = gk.zeros((1 << 20,), ctx=c)
        assert pool.stats()["reuses"] == s1["reuses"] + 1
        b.pin()
        assert b.pinned and pool.stats()["pinned"] >= 4 << 20
        with pytest.raises(gk.GpukitError):
            b.evict()  # pinned storage is never evicted
        b.unpin()
        b.fill(3.0)
        b.evict()
        assert not b.resident and pool.stats()["evicted"] >= 4 << 20
        assert b[5].item() == 3.0  # restored on use
        assert b.resident and pool.stats()["restores"] >= 1
        pool.trim()
        assert pool.stats()["cached"] == 0
        pool.quota = 32 << 20
        assert pool.quota == 32 << 20
        b.pin()
        with pytest.raises(gk.OutOfMemoryError):
            pool.set_quota(1 << 20)  # below the pinned bytes
        b.unpin()
    finally:
        c.close()


def test_profiler(ctx, tmp_path):
    p = gk.Profiler()
    with p:
        a = gk.ones((64, 64))
        b = a @ a
        c = ops.softmax(b)
        c.to_numpy()
    st = p.stats()
    assert not st["running"] and st["records"] >= 3
    names = [e["name"] for e in p.summary()]
    assert any("matmul" in n.lower() or "gemm" in n.lower() for n in names), names
    rep = p.report()
    assert "total ms" in rep and "count" in rep
    path = tmp_path / "trace.json"
    p.write_trace(path)
    trace = json.loads(path.read_text())
    assert any(ev.get("ph") == "X" for ev in trace["traceEvents"])
    p.reset()
    with pytest.raises(gk.StateError):
        p.stats()
    with pytest.raises(gk.StateError):
        p.stop()


def test_scheduler(ctx):
    results = []
    with gk.Scheduler(workers=2) as s:
        def work(stream):
            assert isinstance(stream, gk.Stream) and gk.current_stream() == stream
            x = gk.ones((32, 32))
            results.append(float((x @ x).sum().item()))

        t1 = s.submit(work, qos="guaranteed", memory=1 << 20, share=0.5, name="g")
        t2 = s.submit(work, qos="besteffort", deps=[t1])
        assert t1.admission[0] in ("admit", "queue")
        i2 = t2.wait(timeout=30)
        i1 = t1.wait(timeout=30)
        assert i1.state == "completed" and i2.state == "completed" and i1.qos == "guaranteed" and i1.name == "g"
        assert results == [32.0 * 32 * 32] * 2

        def boom(stream):
            raise KeyError("no such thing")
        t3 = s.submit(boom)
        with pytest.raises(KeyError, match="no such thing"):
            t3.wait(timeout=30)
        assert "KeyError" in t3.info().reason
        t4 = s.submit(work, hold=True, name="held")
        assert t4.state == "pending"
        t4.cancel()
        with pytest.raises(gk.CancelledError):
            t4.wait(timeout=30)
        with pytest.raises(gk.RejectedError) as e:
            s.submit(work, qos="guaranteed", memory=1 << 62, share=0.1)
        assert "reserves" in str(e.value) and "can reserve" in str(e.value)
        with pytest.raises(gk.InvalidArgumentError):
            s.submit(work, qos="premium")
        s.wait_all(timeout=30)
        st = s.stats()
        assert st["classes"]["guaranteed"]["completed"] >= 1 and st["classes"]["besteffort"]["failed"] >= 1
        assert st["partitioning_note"]
    with pytest.raises(gk.StateError):
        s.submit(work)


def test_scheduler_threads_and_ctx_close():
    c = gk.Context(backend="cpu")
    s = gk.Scheduler(ctx=c, workers=2)
    started = threading.Event()

    def slow(stream):
        started.set()
        time.sleep(0.05)
    s.submit(slow)
    started.wait(10)
    c.close()  # closes the scheduler first: waits for the running task
    with pytest.raises(gk.GpukitError):
        s.submit(slow)


def test_scheduler_graph_task(ctx):
    a, out = gk.ones(8), gk.zeros(8)
    s0 = gk.Stream()
    with s0:
        with gk.graph() as g:
            ops.add(a, a, out=out)
    with gk.Scheduler() as s:
        t = s.submit(graph=g, qos="burstable", memory=1 << 20, share=0.2)
        del g  # the scheduler keeps the graph until it is done
        assert t.wait(timeout=30).state == "completed"
    assert out.to_numpy().tolist() == [2.0] * 8
    with gk.Scheduler() as s:
        with pytest.raises(gk.InvalidArgumentError, match="fn or graph"):
            s.submit()
