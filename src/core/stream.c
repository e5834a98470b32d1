/* ------------------------------------------------------------------------ */
/* >>stream
   CUDA: non-blocking streams, events, stream capture into CUDA graphs.
   CPU: work runs at once on the calling thread; while a stream captures,
   ops are recorded as host thunks instead and replayed by gk_graph_launch. */
/* A CPU op: 0 when done, nonzero when it could not get its host scratch
   memory (the output is then unwritten; the caller reports it). */
typedef int (*gk__thunk_fn)(const void *params);
typedef struct gk__thunk { gk__thunk_fn fn; void *params; } gk__thunk;

struct gk__capture {
    uint64_t id;
    gk__block **blocks;         /* pinned by the graph */
    int nblocks, capblocks;
    gk__thunk *thunks;          /* CPU backend */
    int nthunks, capthunks;
    gk_status failed;           /* first error seen while capturing */
};
struct gk_graph {
    gk__cu_graph graph;
    gk__cu_graph_exec exec;
    gk__capture *cap;
    gk_graph *next;
};

static gk_status gk__capture_add_block(gk_ctx *ctx, gk__capture *c, gk__block *b) {
    if (b->cap_id == c->id) return GK_OK;
    if (c->nblocks == c->capblocks) {
        int nc = c->capblocks ? c->capblocks * 2 : 16;
        gk__block **nb = GK__CAST(gk__block **, GPUKIT_REALLOC(c->blocks, sizeof(gk__block *) * (size_t)nc));
        if (!nb) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "graph capture: out of host memory");
        c->blocks = nb;
        c->capblocks = nc;
    }
    b->cap_id = c->id;
    b->pins++;
    c->blocks[c->nblocks++] = b;
    return GK_OK;
}
static void gk__capture_free(gk_ctx *ctx, gk__capture *c) {
    int i;
    if (!c) return;
    for (i = 0; i < c->nblocks; i++) {
        c->blocks[i]->cap_id = 0;
        gk__block_unpin(ctx, c->blocks[i]);
    }
    for (i = 0; i < c->nthunks; i++) GPUKIT_FREE(c->thunks[i].params);
    GPUKIT_FREE(c->thunks);
    GPUKIT_FREE(c->blocks);
    GPUKIT_FREE(c);
}

/* Runs a CPU op now, or records it when the current stream is capturing. */
static gk_status gk__cpu_run(gk_ctx *ctx, gk__thunk_fn fn, const void *params, size_t size, const char *where) {
    gk__capture *c = ctx->cur_stream->capture;
    void *copy;
    if (!c) {
        int rec = ctx->prof ? gk__prof_begin(ctx, ctx->cur_stream, where, GK__PROF_CPU) : -1, bad = fn(params);
        if (rec >= 0) gk__prof_end(ctx, ctx->cur_stream, rec);
        if (bad) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory for the CPU backend's scratch", where);
        ctx->cur_stream->launches++;
        return GK_OK;
    }
    if (c->nthunks == c->capthunks) {
        int nc = c->capthunks ? c->capthunks * 2 : 16;
        gk__thunk *nt = GK__CAST(gk__thunk *, GPUKIT_REALLOC(c->thunks, sizeof(gk__thunk) * (size_t)nc));
        if (!nt) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory while capturing", where);
        c->thunks = nt;
        c->capthunks = nc;
    }
    copy = GPUKIT_MALLOC(size);
    if (!copy) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory while capturing", where);
    memcpy(copy, params, size);
    c->thunks[c->nthunks].fn = fn;
    c->thunks[c->nthunks].params = copy;
    c->nthunks++;
    return GK_OK;
}

static int gk__cu_priority(gk_ctx *ctx, gk_stream_priority p) {
    if (p == GK_PRIORITY_HIGH) return ctx->prio_greatest;
    if (p == GK_PRIORITY_LOW) return ctx->prio_least;
    return (ctx->prio_least + ctx->prio_greatest) / 2;
}

GKDEF gk_status gk_stream_create(gk_ctx *ctx, gk_stream_priority priority, gk_stream **out) {
    gk_stream *s;
    gk_status st = GK_OK;
    if (out) *out = NULL;
    GK__ENTER(ctx, "gk_stream_create");
    if (!out || priority < GK_PRIORITY_NORMAL || priority > GK_PRIORITY_LOW) {
        gk__unlock(&ctx->mu);
        return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_stream_create: out is NULL or priority %d invalid", (int)priority);
    }
    s = GK__CALLOC(gk_stream, 1);
    if (!s) st = gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "gk_stream_create: out of host memory");
    else {
        s->priority = priority;
        s->serial = ++ctx->stream_serial;
        if (ctx->backend == GK_BACKEND_CUDA) {
            gk__cu_result r;
            st = gk__bind(ctx);
            if (st == GK_OK && (r = ctx->cu.StreamCreateWithPriority(&s->cu, GK__CU_STREAM_NON_BLOCKING, gk__cu_priority(ctx, priority))) != 0)
                st = gk__cu_fail(ctx, r, "gk_stream_create", "cuStreamCreateWithPriority");
        }
        if (st != GK_OK) GPUKIT_FREE(s);
        else { s->next = ctx->streams; ctx->streams = s; *out = s; }
    }
    gk__unlock(&ctx->mu);
    return st;
}

static gk_status gk__find_stream(gk_ctx *ctx, gk_stream *s, const char *where) {
    gk_stream *x;
    if (s == &ctx->default_stream) return GK_OK;
    for (x = ctx->streams; x; x = x->next)
        if (x == s) return GK_OK;
    return gk__err(ctx, GK_ERR_INVALID_HANDLE, "%s: the stream is not a live stream of this context", where);
}

/* Waits for stream s's work with the context's lock released (the lock is
   held again when it returns), so other threads keep issuing work meanwhile.
   The stream stays valid: a gk_stream_destroy meanwhile leaves freeing it to
   the last waiter. */
static gk_status gk__stream_wait_unlocked(gk_ctx *ctx, gk_stream *s, const char *where) {
    gk__cu_result r;
    if (ctx->backend != GK_BACKEND_CUDA || s->capture) return GK_OK;
    s->waiters++;
    gk__unlock(&ctx->mu);
    r = ctx->cu.StreamSynchronize(s->cu);
    gk__lock(&ctx->mu);
    if (--s->waiters == 0 && s->dead) gk__stream_free_struct(ctx, s);
    if (r != 0) return gk__cu_fail(ctx, r, where, "cuStreamSynchronize");
    return GK_OK;
}

GKDEF gk_status gk_stream_destroy(gk_ctx *ctx, gk_stream *s) {
    gk_status st;
    gk__block *b;
    gk_stream **pp;
    int i;
    GK__ENTER(ctx, "gk_stream_destroy");
    st = (!s || s == &ctx->default_stream) ? gk__err(ctx, GK_ERR_INVALID_HANDLE, "gk_stream_destroy: NULL or the default stream")
                                            : gk__find_stream(ctx, s, "gk_stream_destroy");
    if (st == GK_OK && s->capture) st = gk__err(ctx, GK_ERR_STATE, "gk_stream_destroy: the stream is capturing a graph");
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK) {
        for (b = ctx->pool.live_head; b; b = b->next) if (b->stream == s) b->stream = NULL;
        for (b = ctx->pool.cache_head; b; b = b->next) if (b->stream == s) b->stream = NULL;
        for (b = ctx->pool.wrap_head; b; b = b->next) if (b->stream == s) b->stream = NULL;
        for (pp = &ctx->streams; *pp; pp = &(*pp)->next)
            if (*pp == s) { *pp = s->next; break; }
        /* every thread whose current stream it was is back on the default stream */
        for (i = ctx->nthreads - 1; i >= 0; i--)
            if (ctx->threads[i].stream == s) { ctx->threads[i].stream = NULL; gk__thread_tidy(ctx, &ctx->threads[i]); }
        if (ctx->cur_stream == s) ctx->cur_stream = &ctx->default_stream;
        /* no thread can reach it now: wait for its work, then free it (or
           leave that to the last thread still waiting on it) */
        s->dead = 1;
        gk__cond_broadcast(&ctx->pace_cv); /* threads held on it go on, on the default stream */
        s->waiters++;
        gk__stream_wait_unlocked(ctx, s, "gk_stream_destroy");
        if (--s->waiters == 0) gk__stream_free_struct(ctx, s);
    }
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_stream_sync(gk_ctx *ctx, gk_stream *s) {
    gk_status st = GK_OK;
    GK__ENTER(ctx, "gk_stream_sync");
    if (!s) s = ctx->cur_stream;
    st = gk__find_stream(ctx, s, "gk_stream_sync");
    if (st == GK_OK && s->capture) st = gk__err(ctx, GK_ERR_STATE, "gk_stream_sync: the stream is capturing a graph");
    if (st == GK_OK && ctx->backend == GK_BACKEND_CUDA) {
        st = gk__bind(ctx);
        if (st == GK_OK) st = gk__stream_wait_unlocked(ctx, s, "gk_stream_sync");
    }
    gk__unlock(&ctx->mu);
    return st;
}

/* The current stream is the calling thread's (gk__thread_rec): threads
   sharing a context each issue their ops on their own stream. */
GKDEF gk_status gk_set_stream(gk_ctx *ctx, gk_stream *s) {
    gk_status st;
    gk__thread_rec *r;
    GK__ENTER(ctx, "gk_set_stream");
    if (!s) s = &ctx->default_stream;
    st = gk__find_stream(ctx, s, "gk_set_stream");
    if (st == GK_OK && s == &ctx->default_stream) {
        if ((r = gk__thread_find(ctx)) != NULL) { r->stream = NULL; gk__thread_tidy(ctx, r); }
    } else if (st == GK_OK) {
        if ((r = gk__thread_get(ctx)) != NULL) r->stream = s;
        else st = gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "gk_set_stream: out of host memory");
    }
    if (st == GK_OK) ctx->cur_stream = s;
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_stream *gk_get_stream(gk_ctx *ctx) {
    gk_stream *s;
    if (!ctx) return NULL;
    gk__enter(ctx);
    s = ctx->cur_stream;
    gk__unlock(&ctx->mu);
    return s;
}
GKDEF gk_stream *gk_default_stream(gk_ctx *ctx) { return ctx ? &ctx->default_stream : NULL; }
GKDEF void *gk_stream_native(gk_ctx *ctx, gk_stream *s) {
    void *p;
    if (!ctx || ctx->backend != GK_BACKEND_CUDA) return NULL;
    gk__enter(ctx);
    p = (void *)(s ? s->cu : ctx->cur_stream->cu);
    gk__unlock(&ctx->mu);
    return p;
}

GKDEF gk_status gk_event_create(gk_ctx *ctx, gk_event **out) {
    gk_event *e;
    gk_status st = GK_OK;
    if (out) *out = NULL;
    GK__ENTER(ctx, "gk_event_create");
    e = out ? GK__CALLOC(gk_event, 1) : NULL;
    if (!out) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_event_create: out is NULL");
    else if (!e) st = gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "gk_event_create: out of host memory");
    else if (ctx->backend == GK_BACKEND_CUDA) {
        gk__cu_result r;
        st = gk__bind(ctx);
        if (st == GK_OK && (r = ctx->cu.EventCreate(&e->cu, GK__CU_EVENT_DEFAULT)) != 0) st = gk__cu_fail(ctx, r, "gk_event_create", "cuEventCreate");
    }
    if (st == GK_OK) { e->next = ctx->events; ctx->events = e; *out = e; }
    else GPUKIT_FREE(e);
    gk__unlock(&ctx->mu);
    return st;
}
static gk_status gk__find_event(gk_ctx *ctx, gk_event *e, const char *where) {
    gk_event *x;
    for (x = ctx->events; x; x = x->next) if (x == e && e) return GK_OK;
    return gk__err(ctx, GK_ERR_INVALID_HANDLE, "%s: not a live event of this context", where);
}
GKDEF gk_status gk_event_destroy(gk_ctx *ctx, gk_event *e) {
    gk_status st;
    gk_event **pp;
    GK__ENTER(ctx, "gk_event_destroy");
    st = gk__find_event(ctx, e, "gk_event_destroy");
    if (st == GK_OK) {
        if (e->waiters > 0) {
            st = gk__err(ctx, GK_ERR_STATE, "gk_event_destroy: %d thread%s wait%s on the event (gk_event_sync)", e->waiters,
                         e->waiters == 1 ? "" : "s", e->waiters == 1 ? "s" : "");
            gk__unlock(&ctx->mu);
            return st;
        }
        if (ctx->backend == GK_BACKEND_CUDA && gk__bind(ctx) == GK_OK) ctx->cu.EventDestroy(e->cu);
        for (pp = &ctx->events; *pp; pp = &(*pp)->next) if (*pp == e) { *pp = e->next; break; }
        GPUKIT_FREE(e);
    }
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_event_record(gk_ctx *ctx, gk_event *e, gk_stream *s) {
    gk_status st;
    GK__ENTER(ctx, "gk_event_record");
    if (!s) s = ctx->cur_stream;
    st = gk__find_event(ctx, e, "gk_event_record");
    if (st == GK_OK) st = gk__find_stream(ctx, s, "gk_event_record");
    if (st == GK_OK) {
        if (ctx->backend == GK_BACKEND_CUDA) {
            gk__cu_result r;
            st = gk__bind(ctx);
            if (st == GK_OK && (r = ctx->cu.EventRecord(e->cu, s->cu)) != 0) st = gk__cu_fail(ctx, r, "gk_event_record", "cuEventRecord");
        } else e->host_ms = gk__now_ms();
        if (st == GK_OK) e->recorded = 1;
    }
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_event_sync(gk_ctx *ctx, gk_event *e) {
    gk_status st;
    GK__ENTER(ctx, "gk_event_sync");
    st = gk__find_event(ctx, e, "gk_event_sync");
    if (st == GK_OK && ctx->backend == GK_BACKEND_CUDA && e->recorded) {
        gk__cu_result r;
        st = gk__bind(ctx);
        if (st == GK_OK) {
            /* the lock is released while it waits (gk_event_destroy refuses meanwhile) */
            e->waiters++;
            gk__unlock(&ctx->mu);
            r = ctx->cu.EventSynchronize(e->cu);
            gk__lock(&ctx->mu);
            e->waiters--;
            if (r != 0) st = gk__cu_fail(ctx, r, "gk_event_sync", "cuEventSynchronize");
        }
    }
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_event_query(gk_ctx *ctx, gk_event *e, int *done) {
    gk_status st;
    GK__ENTER(ctx, "gk_event_query");
    st = done ? gk__find_event(ctx, e, "gk_event_query") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_event_query: done is NULL");
    if (st == GK_OK) {
        *done = 1;
        if (ctx->backend == GK_BACKEND_CUDA && e->recorded) {
            gk__cu_result r;
            st = gk__bind(ctx);
            if (st == GK_OK) {
                r = ctx->cu.EventQuery(e->cu);
                if (r == GK__CUDA_ERROR_NOT_READY) *done = 0;
                else if (r != 0) st = gk__cu_fail(ctx, r, "gk_event_query", "cuEventQuery");
            }
        }
    }
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_event_elapsed_ms(gk_ctx *ctx, gk_event *a, gk_event *b, float *ms) {
    gk_status st;
    GK__ENTER(ctx, "gk_event_elapsed_ms");
    st = ms ? gk__find_event(ctx, a, "gk_event_elapsed_ms") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_event_elapsed_ms: ms is NULL");
    if (st == GK_OK) st = gk__find_event(ctx, b, "gk_event_elapsed_ms");
    if (st == GK_OK && (!a->recorded || !b->recorded)) st = gk__err(ctx, GK_ERR_STATE, "gk_event_elapsed_ms: an event was never recorded");
    if (st == GK_OK) {
        if (ctx->backend == GK_BACKEND_CUDA) {
            gk__cu_result r;
            st = gk__bind(ctx);
            if (st == GK_OK && (r = ctx->cu.EventElapsedTime(ms, a->cu, b->cu)) != 0) st = gk__cu_fail(ctx, r, "gk_event_elapsed_ms", "cuEventElapsedTime");
        } else *ms = (float)(b->host_ms - a->host_ms);
    }
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_stream_wait_event(gk_ctx *ctx, gk_stream *s, gk_event *e) {
    gk_status st;
    GK__ENTER(ctx, "gk_stream_wait_event");
    if (!s) s = ctx->cur_stream;
    st = gk__find_stream(ctx, s, "gk_stream_wait_event");
    if (st == GK_OK) st = gk__find_event(ctx, e, "gk_stream_wait_event");
    if (st == GK_OK && ctx->backend == GK_BACKEND_CUDA && e->recorded) {
        gk__cu_result r;
        st = gk__bind(ctx);
        if (st == GK_OK && (r = ctx->cu.StreamWaitEvent(s->cu, e->cu, 0)) != 0) st = gk__cu_fail(ctx, r, "gk_stream_wait_event", "cuStreamWaitEvent");
    }
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_graph_begin(gk_ctx *ctx, gk_stream *s) {
    gk_status st;
    gk__capture *c;
    GK__ENTER(ctx, "gk_graph_begin");
    if (!s) s = ctx->cur_stream;
    st = gk__find_stream(ctx, s, "gk_graph_begin");
    if (st == GK_OK && s->capture) st = gk__err(ctx, GK_ERR_STATE, "gk_graph_begin: the stream is already capturing");
    if (st == GK_OK && !(c = GK__CALLOC(gk__capture, 1))) st = gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "gk_graph_begin: out of host memory");
    if (st == GK_OK) {
        c->id = ++ctx->capture_serial;
        if (ctx->backend == GK_BACKEND_CUDA) {
            gk__cu_result r;
            st = gk__bind(ctx);
            if (st == GK_OK && (r = ctx->cu.StreamBeginCapture(s->cu, GK__CU_STREAM_CAPTURE_MODE_RELAXED)) != 0)
                st = gk__cu_fail(ctx, r, "gk_graph_begin", "cuStreamBeginCapture_v2");
        }
        if (st == GK_OK) s->capture = c;
        else GPUKIT_FREE(c);
    }
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_graph_end(gk_ctx *ctx, gk_stream *s, gk_graph **out) {
    gk_status st;
    gk_graph *g = NULL;
    gk__capture *c;
    if (out) *out = NULL;
    GK__ENTER(ctx, "gk_graph_end");
    if (!s) s = ctx->cur_stream;
    st = gk__find_stream(ctx, s, "gk_graph_end");
    if (st == GK_OK && !s->capture) st = gk__err(ctx, GK_ERR_STATE, "gk_graph_end: the stream is not capturing (call gk_graph_begin)");
    if (st != GK_OK) { gk__unlock(&ctx->mu); return st; }
    c = s->capture;
    s->capture = NULL;
    if (!out) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_graph_end: out is NULL");
    if (!(g = GK__CALLOC(gk_graph, 1)) && st == GK_OK) st = gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "gk_graph_end: out of host memory");
    if (ctx->backend == GK_BACKEND_CUDA) {
        gk__cu_graph graph = NULL;
        gk__cu_result r;
        if (gk__bind(ctx) == GK_OK) {
            r = ctx->cu.StreamEndCapture(s->cu, &graph); /* always end the capture */
            if (r != 0 && st == GK_OK) st = gk__cu_fail(ctx, r, "gk_graph_end", "cuStreamEndCapture (an op inside the capture failed or was not capturable)");
            if (st == GK_OK && c->failed != GK_OK) st = gk__err(ctx, c->failed, "gk_graph_end: an op failed while capturing");
            if (st == GK_OK && (r = ctx->cu.GraphInstantiate(&g->exec, graph, 0)) != 0)
                st = gk__cu_fail(ctx, r, "gk_graph_end", "cuGraphInstantiateWithFlags");
            if (st == GK_OK) g->graph = graph;
            else if (graph) ctx->cu.GraphDestroy(graph);
        }
    } else if (st == GK_OK && c->failed != GK_OK) st = gk__err(ctx, c->failed, "gk_graph_end: an op failed while capturing");
    if (st != GK_OK) {
        gk__capture_free(ctx, c);
        GPUKIT_FREE(g);
    } else {
        g->cap = c;
        g->next = ctx->graphs;
        ctx->graphs = g;
        *out = g;
    }
    gk__unlock(&ctx->mu);
    return st;
}
static gk_status gk__find_graph(gk_ctx *ctx, gk_graph *g, const char *where) {
    gk_graph *x;
    for (x = ctx->graphs; x; x = x->next) if (x == g && g) return GK_OK;
    return gk__err(ctx, GK_ERR_INVALID_HANDLE, "%s: not a live graph of this context", where);
}
GKDEF gk_status gk_graph_launch(gk_ctx *ctx, gk_graph *g, gk_stream *s) {
    gk_status st;
    int i;
    GK__ENTER(ctx, "gk_graph_launch");
    if (!s) s = ctx->cur_stream;
    st = gk__find_graph(ctx, g, "gk_graph_launch");
    if (st == GK_OK) st = gk__find_stream(ctx, s, "gk_graph_launch");
    if (st == GK_OK && s->capture) st = gk__err(ctx, GK_ERR_STATE, "gk_graph_launch: the stream is capturing");
    if (st == GK_OK) {
        /* the profiler sees a replay as one record: its kernels run inside the graph */
        int rec = ctx->prof ? gk__prof_begin(ctx, s, "gk_graph_launch", GK__PROF_KERNEL) : -1;
        for (i = 0; i < g->cap->nblocks; i++) g->cap->blocks[i]->stream = s;
        if (ctx->backend == GK_BACKEND_CUDA) {
            gk__cu_result r;
            st = gk__bind(ctx);
            if (st == GK_OK && (r = ctx->cu.GraphLaunch(g->exec, s->cu)) != 0) st = gk__cu_fail(ctx, r, "gk_graph_launch", "cuGraphLaunch");
        } else
            for (i = 0; i < g->cap->nthunks && st == GK_OK; i++)
                if (g->cap->thunks[i].fn(g->cap->thunks[i].params))
                    st = gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "gk_graph_launch: op %d of %d ran out of host memory for the CPU backend's scratch (the ops after it did not run)", i + 1, g->cap->nthunks);
        if (rec >= 0) gk__prof_end(ctx, s, rec);
    }
    gk__unlock(&ctx->mu);
    return st;
}
static void gk__graph_free(gk_ctx *ctx, gk_graph *g) {
    if (ctx->backend == GK_BACKEND_CUDA) {
        if (g->exec) ctx->cu.GraphExecDestroy(g->exec);
        if (g->graph) ctx->cu.GraphDestroy(g->graph);
    }
    gk__capture_free(ctx, g->cap);
    GPUKIT_FREE(g);
}
GKDEF gk_status gk_graph_destroy(gk_ctx *ctx, gk_graph *g) {
    gk_status st;
    gk_graph **pp;
    GK__ENTER(ctx, "gk_graph_destroy");
    st = gk__find_graph(ctx, g, "gk_graph_destroy");
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK) {
        /* replays may still be queued: they read the pinned blocks */
        st = gk__sync_locked(ctx, "gk_graph_destroy");
        for (pp = &ctx->graphs; *pp; pp = &(*pp)->next) if (*pp == g) { *pp = g->next; break; }
        gk__graph_free(ctx, g);
    }
    gk__unlock(&ctx->mu);
    return st;
}

