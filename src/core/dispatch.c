/* >>dispatch: the kernel dispatch controller: every launch, its stream, pacing, counts */
/* ------------------------------------------------------------------------ */
/* Every kernel launch of the library, of user kernels (gk_launch) and of
   cuBLASLt goes through gk__dispatch_begin / gk__dispatch_end: the launch
   happens on ctx->cur_stream (the calling thread's stream: the scheduler
   sets it for a task), is counted on that stream, is timed by the profiler
   when it is on, and, on a stream with an in-flight bound, is followed by one
   event of the stream's ring. The bound is applied when a call enters the
   context (gk__enter -> gk__pace_wait): a thread whose stream has
   max_inflight launches not yet complete waits, without the context's lock,
   until the oldest completes. A call may issue several launches, so the
   bound holds at each call's entry. A stream the scheduler holds (held)
   takes no launches at all: calls entering on it wait until the hold ends.
   Streams without a bound or hold cost one test. */

/* Frees a stream that gk_stream_destroy unlinked while threads waited on it
   (the last waiter calls this). */
static void gk__stream_free_struct(gk_ctx *ctx, gk_stream *s) {
    int i;
    if (ctx->backend == GK_BACKEND_CUDA && s->cu) ctx->cu.StreamDestroy(s->cu);
    if (s->ring) {
        if (ctx->backend == GK_BACKEND_CUDA)
            for (i = 0; i < GK__PACE_RING; i++)
                if (s->ring[i]) ctx->cu.EventDestroy(s->ring[i]);
        GPUKIT_FREE(s->ring);
    }
    GPUKIT_FREE(s);
}

/* Called by gk__enter with the lock held when the current stream has a bound.
   Returns 1 when it released the lock to wait (gk__enter then looks up the
   thread's stream again: it may have changed), 0 when the stream is under
   its bound. */
static int gk__pace_wait_once(gk_ctx *ctx) {
    gk_stream *s = ctx->cur_stream;
    gk__cu_event e;
    gk__cu_result r;
    double t0;
    if (ctx->backend != GK_BACKEND_CUDA || !s->ring || s->capture || gk__bind(ctx) != GK_OK) return 0;
    while (s->ring_tail - s->ring_head >= (unsigned)s->max_inflight) {
        e = s->ring[s->ring_head % GK__PACE_RING];
        r = ctx->cu.EventQuery(e);
        if (r != GK__CUDA_ERROR_NOT_READY) { s->ring_head++; continue; } /* done, or an error the next sync reports */
        s->waiters++;
        s->paced_waits++;
        gk__unlock(&ctx->mu);
        t0 = gk__now_ms();
        ctx->cu.EventSynchronize(e);
        t0 = gk__now_ms() - t0;
        gk__lock(&ctx->mu);
        s->waiters--;
        s->paced_ms += t0;
        if (s->dead && s->waiters == 0) gk__stream_free_struct(ctx, s);
        return 1;
    }
    return 0;
}
/* A held stream (the scheduler's lower classes while a Guaranteed task is
   active): the call waits on ctx->pace_cv, the lock released, until the
   hold ends or the stream is destroyed (gk__sched_pace and gk_stream_destroy
   broadcast). Returns 1 after waiting. */
static int gk__hold_wait_once(gk_ctx *ctx) {
    gk_stream *s = ctx->cur_stream;
    double t0;
    if (!s->held || s->capture) return 0;
    t0 = gk__now_ms();
    if (s->hold_until > 0 && t0 >= s->hold_until) { /* a hold for a while, over */
        s->held = 0;
        return 0;
    }
    s->waiters++;
    s->paced_waits++;
    if (s->hold_until > 0) gk__cond_timedwait(&ctx->pace_cv, &ctx->mu, s->hold_until - t0);
    else gk__cond_wait(&ctx->pace_cv, &ctx->mu);
    s->waiters--;
    s->paced_ms += gk__now_ms() - t0;
    if (s->dead && s->waiters == 0) gk__stream_free_struct(ctx, s);
    return 1;
}
static void gk__pace_wait(gk_ctx *ctx) {
    gk__thread_rec *r;
    while (gk__hold_wait_once(ctx) || (ctx->cur_stream->max_inflight && gk__pace_wait_once(ctx))) {
        r = gk__thread_find(ctx);
        ctx->cur_stream = r && r->stream ? r->stream : &ctx->default_stream;
        ctx->cur_tenant = r ? r->tenant : NULL;
        if (!ctx->cur_stream->max_inflight && !ctx->cur_stream->held) break;
    }
}

/* Before a launch on ctx->cur_stream: the profiler's record (-1: none). */
static int gk__dispatch_begin(gk_ctx *ctx, const char *name) {
    if (ctx->prof) return gk__prof_begin(ctx, ctx->cur_stream, name, GK__PROF_KERNEL);
    return -1;
}
/* After it (ok: the launch succeeded): the stream's count, the ring event, the profiler. */
static void gk__dispatch_end(gk_ctx *ctx, int prof, int ok) {
    gk_stream *s = ctx->cur_stream;
    if (prof >= 0) gk__prof_end(ctx, s, prof);
    if (!ok) return;
    s->launches++;
    if (s->max_inflight && s->ring && !s->capture) {
        if (s->ring_tail - s->ring_head >= GK__PACE_RING) s->ring_head++; /* full: the oldest is forgotten */
        if (ctx->cu.EventRecord(s->ring[s->ring_tail % GK__PACE_RING], s->cu) == 0) s->ring_tail++;
    }
}

enum { GK__DISPATCH_PLAIN = 0, GK__DISPATCH_PDL = 1, GK__DISPATCH_COOP = 2 };
/* Launches f on the calling thread's stream through the controller.
   kind: plain, programmatic dependent launch (cuLaunchKernelEx with
   programmatic stream serialization), or cooperative. */
static gk_status gk__dispatch(gk_ctx *ctx, gk__cu_function f, const char *name, const unsigned grid[3], const unsigned block[3],
                              unsigned smem, void **args, int kind, const char *where) {
    gk__cu_result r;
    unsigned gx = grid[0] ? grid[0] : 1, gy = grid[1] ? grid[1] : 1, gz = grid[2] ? grid[2] : 1;
    unsigned bx = block[0] ? block[0] : 1, by = block[1] ? block[1] : 1, bz = block[2] ? block[2] : 1;
    gk__cu_stream cs = ctx->cur_stream->cu;
    int prof = gk__dispatch_begin(ctx, name);
    if (kind == GK__DISPATCH_PDL) {
        gk__cu_launch_config c;
        gk__cu_launch_attr a;
        memset(&c, 0, sizeof c);
        memset(&a, 0, sizeof a);
        a.id = GK__CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        a.val.i = 1;
        c.gx = gx; c.gy = gy; c.gz = gz;
        c.bx = bx; c.by = by; c.bz = bz;
        c.smem = smem;
        c.stream = cs;
        c.attrs = &a;
        c.nattrs = 1;
        r = ctx->cu.LaunchKernelEx(&c, f, args, NULL);
    } else if (kind == GK__DISPATCH_COOP)
        r = ctx->cu.LaunchCooperativeKernel(f, gx, gy, gz, bx, by, bz, smem, cs, args);
    else
        r = ctx->cu.LaunchKernel(f, gx, gy, gz, bx, by, bz, smem, cs, args, NULL);
    gk__dispatch_end(ctx, prof, r == 0);
    if (r != 0) {
        gk__cu_fail(ctx, r, where, name);
        return GK_ERR_LAUNCH;
    }
    return GK_OK;
}

GKDEF gk_status gk_stream_set_max_inflight(gk_ctx *ctx, gk_stream *s, int n) {
    gk_status st;
    GK__ENTER(ctx, "gk_stream_set_max_inflight");
    if (!s) s = ctx->cur_stream;
    st = gk__find_stream(ctx, s, "gk_stream_set_max_inflight");
    if (st == GK_OK && (n < 0 || n >= GK__PACE_RING))
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_stream_set_max_inflight: n is %d; it must be 0 (no bound) to %d", n, GK__PACE_RING - 1);
    if (st == GK_OK && n > 0 && !s->ring && ctx->backend == GK_BACKEND_CUDA) {
        int i;
        st = gk__bind(ctx);
        if (st == GK_OK && !(s->ring = GK__CALLOC(gk__cu_event, GK__PACE_RING)))
            st = gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "gk_stream_set_max_inflight: out of host memory");
        for (i = 0; st == GK_OK && i < GK__PACE_RING; i++) {
            gk__cu_result r = ctx->cu.EventCreate(&s->ring[i], GK__CU_EVENT_DISABLE_TIMING);
            if (r != 0) st = gk__cu_fail(ctx, r, "gk_stream_set_max_inflight", "cuEventCreate");
        }
        if (st != GK_OK && s->ring) {
            for (i = 0; i < GK__PACE_RING; i++)
                if (s->ring[i]) ctx->cu.EventDestroy(s->ring[i]);
            GPUKIT_FREE(s->ring);
            s->ring = NULL;
        }
    }
    if (st == GK_OK) s->max_inflight = n;
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_stream_stats_get(gk_ctx *ctx, gk_stream *s, gk_stream_stats *out) {
    gk_status st;
    GK__ENTER(ctx, "gk_stream_stats_get");
    if (!s) s = ctx->cur_stream;
    st = out ? gk__find_stream(ctx, s, "gk_stream_stats_get") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_stream_stats_get: out is NULL");
    if (st == GK_OK) {
        unsigned i, n = 0;
        memset(out, 0, sizeof *out);
        out->launches = s->launches;
        out->paced_waits = s->paced_waits;
        out->paced_ms = s->paced_ms;
        out->max_inflight = s->max_inflight;
        out->held = s->held;
        out->priority = s->priority;
        if (s->ring && ctx->backend == GK_BACKEND_CUDA && gk__bind(ctx) == GK_OK)
            for (i = s->ring_head; i != s->ring_tail; i++)
                if (ctx->cu.EventQuery(s->ring[i % GK__PACE_RING]) == GK__CUDA_ERROR_NOT_READY) n++;
        out->inflight = (int)n;
    }
    gk__unlock(&ctx->mu);
    return st;
}
