/* ------------------------------------------------------------------------ */
/* >>pool
   Every device allocation: size classes (4 per power of two from 512 B to
   64 MiB, 2 MiB steps above), cached free blocks reused per class, a quota on
   used + cached, LRU eviction (first cached free blocks back to the driver,
   then idle live blocks copied to host memory; restored on next use), pins.
   The CPU backend runs the same logic over malloc. Blocks of foreign memory
   (gk_tensor_wrap) sit on a list of their own: they are never counted in the
   quota, evicted, cached or freed; their struct goes when the last handle
   and pin do. Callers hold ctx->mu. */
enum { GK__BLK_LIVE = 0, GK__BLK_CACHED = 1, GK__BLK_EVICTED = 2 };
#define GK__LARGE_CLASS GK__NUM_CLASSES
#define GK__SMALLEST ((size_t)512)
#define GK__LARGEST_CLASS ((size_t)64 << 20)
#define GK__LARGE_STEP ((size_t)2 << 20)

struct gk__block {
    gk__cu_ptr ptr;             /* device address (CPU: host address); 0 while evicted */
    void *host;                 /* host copy while evicted */
    size_t size;                /* size-class bytes */
    int cls;
    int refs;                   /* tensor handles using it */
    int pins;                   /* explicit + graph + in-flight pins */
    int state;
    int free_pending;           /* refs fell to 0 while pinned */
    int foreign;                /* memory gpukit does not own (gk_tensor_wrap): on the wrap list, never moved or freed */
    gk_release_fn release;      /* foreign: called when the struct goes (its owner may free the memory then) */
    void *release_user;
    gk_stream *stream;          /* last stream that used it */
    uint64_t tick;              /* LRU clock */
    uint64_t cap_id;            /* last capture that pinned it */
    gk__tenant *tenant;         /* the scheduled task it is charged to (>>sched); NULL: none */
    int qos;                    /* the QoS class of the task that allocated it (gk_qos; eviction takes BestEffort first) */
    gk__block *prev, *next;     /* live, cache or evicted list */
    gk__block *cprev, *cnext;   /* class free list */
};

static void gk__list_push(gk__block **head, gk__block **tail, gk__block *b) {
    b->next = NULL;
    b->prev = *tail;
    if (*tail) (*tail)->next = b;
    else *head = b;
    *tail = b;
}
static void gk__list_remove(gk__block **head, gk__block **tail, gk__block *b) {
    if (b->prev) b->prev->next = b->next;
    else *head = b->next;
    if (b->next) b->next->prev = b->prev;
    else *tail = b->prev;
    b->prev = b->next = NULL;
}

static int gk__size_class(size_t n, size_t *csize) {
    size_t c;
    int lg = 9;
    if (n <= GK__SMALLEST) { *csize = GK__SMALLEST; return 0; }
    if (n > GK__LARGEST_CLASS) {
        *csize = (n + GK__LARGE_STEP - 1) & ~(GK__LARGE_STEP - 1);
        return GK__LARGE_CLASS;
    }
#if defined(__GNUC__) || defined(__clang__)
    lg = 63 - __builtin_clzll((unsigned long long)(n - 1));
#else
    while (((size_t)2 << lg) < n) lg++;
#endif
    /* 2^lg < n <= 2^(lg+1); 4 classes per octave: steps of 2^(lg-2) */
    c = (n + ((size_t)1 << (lg - 2)) - 1) & ~(((size_t)1 << (lg - 2)) - 1);
    *csize = c;
    return 4 * (lg - 9) + (int)((c - ((size_t)1 << lg)) >> (lg - 2));
}

static gk_status gk__dev_alloc(gk_ctx *ctx, size_t n, gk__cu_ptr *out, const char *where) {
    ctx->pool.st.driver_allocs++;
    if (ctx->backend == GK_BACKEND_CUDA) {
        gk__cu_result r = ctx->cu.MemAlloc(out, n);
        if (r != 0) { ctx->pool.st.driver_allocs--; return gk__cu_fail(ctx, r, where, "cuMemAlloc_v2"); }
    } else {
        void *p = GPUKIT_MALLOC(n);
        if (!p) { ctx->pool.st.driver_allocs--; return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: host allocation of %zu bytes failed", where, n); }
        *out = (gk__cu_ptr)(uintptr_t)p;
    }
    return GK_OK;
}
static void gk__dev_free(gk_ctx *ctx, gk__cu_ptr p) {
    if (!p) return;
    ctx->pool.st.driver_frees++;
    if (ctx->backend == GK_BACKEND_CUDA) ctx->cu.MemFree(p);
    else GPUKIT_FREE((void *)(uintptr_t)p);
}
static int gk__stream_idle(gk_ctx *ctx, gk_stream *s) {
    if (!s || ctx->backend != GK_BACKEND_CUDA) return 1;
    return ctx->cu.StreamQuery(s->cu) == GK__CUDA_SUCCESS;
}
static void gk__stream_wait_idle(gk_ctx *ctx, gk_stream *s) {
    if (s && ctx->backend == GK_BACKEND_CUDA && !s->capture) ctx->cu.StreamSynchronize(s->cu);
}

static void gk__cls_remove(gk_ctx *ctx, gk__block *b) {
    if (b->cprev) b->cprev->cnext = b->cnext;
    else ctx->pool.cls_head[b->cls] = b->cnext;
    if (b->cnext) b->cnext->cprev = b->cprev;
    b->cprev = b->cnext = NULL;
}
static void gk__cls_push(gk_ctx *ctx, gk__block *b) { /* most recently freed first */
    b->cprev = NULL;
    b->cnext = ctx->pool.cls_head[b->cls];
    if (b->cnext) b->cnext->cprev = b;
    ctx->pool.cls_head[b->cls] = b;
}

/* Gives one cached free block back to the driver. */
static void gk__pool_release(gk_ctx *ctx, gk__block *b) {
    gk__pool *P = &ctx->pool;
    if (b->stream && !gk__stream_idle(ctx, b->stream)) gk__stream_wait_idle(ctx, b->stream);
    gk__list_remove(&P->cache_head, &P->cache_tail, b);
    gk__cls_remove(ctx, b);
    P->cached -= b->size;
    gk__dev_free(ctx, b->ptr);
    P->st.releases++;
    GPUKIT_FREE(b);
}

static gk_status gk__pool_evict(gk_ctx *ctx, gk__block *b, const char *where);
static gk_status gk__sync_locked(gk_ctx *ctx, const char *where);

/* Frees room for `need` more bytes under the quota: cached blocks first (oldest
   first), then idle live blocks (least recently used first) go to host memory. */
static gk_status gk__pool_make_room(gk_ctx *ctx, size_t need, const char *where) {
    gk__pool *P = &ctx->pool;
    gk__block *b, *nx;
    int synced = 0, pass;
    while (P->used + P->cached + need > P->quota && P->cache_head) gk__pool_release(ctx, P->cache_head);
    if (P->used + need <= P->quota) return GK_OK;
    if (ctx->desc.disable_eviction)
        return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: %zu bytes needed, %zu of the quota %zu in use (eviction disabled)",
                       where, need, P->used, P->quota);
    /* BestEffort tasks' blocks go first; a BestEffort task never evicts others' */
    for (pass = 0; pass < 2 && P->used + need > P->quota; pass++)
    for (b = P->live_head; b && P->used + need > P->quota; b = nx) {
        nx = b->next;
        if (b->pins > 0) continue;
        if (pass == 0 && b->qos != GK_QOS_BESTEFFORT) continue;
        if (pass == 1 && (b->qos == GK_QOS_BESTEFFORT || (ctx->cur_tenant && ctx->cur_tenant->qos == GK_QOS_BESTEFFORT))) continue;
        if (!synced && ctx->backend == GK_BACKEND_CUDA) {
            /* queued work may still use idle-looking blocks: let it finish once */
            gk_status st = gk__sync_locked(ctx, where);
            if (st != GK_OK) return st;
            synced = 1;
        }
        GK__TRY(gk__pool_evict(ctx, b, where));
    }
    if (P->used + need > P->quota)
        return gk__err(ctx, GK_ERR_OUT_OF_MEMORY,
                       "%s: %zu bytes needed but the pool quota is %zu and %zu bytes are pinned or in use by pinned work",
                       where, need, P->quota, P->used);
    return GK_OK;
}

/* Device memory for a block of b->size bytes, making room under the quota and
   retrying once after freeing everything possible when the driver is out. */
static gk_status gk__pool_get_memory(gk_ctx *ctx, size_t size, gk__cu_ptr *out, const char *where) {
    gk_status st;
    GK__TRY(gk__pool_make_room(ctx, size, where));
    st = gk__dev_alloc(ctx, size, out, where);
    if (st == GK_ERR_OUT_OF_MEMORY) {
        size_t q = ctx->pool.quota;
        /* the driver is out before the quota: shrink to what we hold and retry */
        ctx->pool.quota = ctx->pool.used + ctx->pool.cached > size ? ctx->pool.used + ctx->pool.cached - size : 0;
        st = gk__pool_make_room(ctx, size, where);
        ctx->pool.quota = q;
        if (st == GK_OK) st = gk__dev_alloc(ctx, size, out, where);
    }
    return st;
}

static void gk__pool_note_peak(gk__pool *P) {
    if (P->used + P->cached > P->peak) P->peak = P->used + P->cached;
}

/* Bytes that reservations hold and their tenants have not used yet (other
   than `self`): memory a BestEffort allocation may not take. */
static size_t gk__reserved_free(gk_ctx *ctx, const gk__tenant *self) {
    const gk__tenant *t;
    size_t n = 0;
    for (t = ctx->tenants; t; t = t->next)
        if (t != self && t->reserve > t->used) n += t->reserve - t->used;
    return n;
}
/* The calling thread's task (ctx->cur_tenant) may take csize more bytes:
   its own limit, and memory beyond its reservation comes only from what no
   other reservation holds (BestEffort: all of it). */
static gk_status gk__tenant_admit(gk_ctx *ctx, gk__tenant *t, size_t csize, const char *where) {
    gk__pool *P = &ctx->pool;
    size_t held;
    if (t->limit && t->used + csize > t->limit)
        return gk__err(ctx, GK_ERR_OUT_OF_MEMORY,
                       "%s: task '%s' would hold %zu bytes, over its memory %s of %zu bytes (it holds %zu, asks for %zu more)", where,
                       t->name, t->used + csize, t->qos == GK_QOS_GUARANTEED ? "reservation" : "limit", t->limit, t->used, csize);
    if (t->used + csize <= t->reserve) return GK_OK;
    held = gk__reserved_free(ctx, t);
    if (P->used + csize + held <= P->quota) return GK_OK;
    gk__pool_make_room(ctx, csize + held, where); /* its own failure is replaced by the reason below */
    if (P->used + csize + held <= P->quota) return GK_OK;
    return gk__err(ctx, GK_ERR_OUT_OF_MEMORY,
                   "%s: task '%s' (%s): %zu bytes beyond its reservation do not fit: %zu of %zu in use, %zu reserved for other tasks", where, t->name, t->qos == GK_QOS_BESTEFFORT ? "BestEffort" : "Burstable", csize, P->used,
                   P->quota, held);
}

static gk_status gk__pool_alloc(gk_ctx *ctx, size_t nbytes, gk__block **out, const char *where) {
    gk__pool *P = &ctx->pool;
    gk__block *b;
    size_t csize;
    int cls = gk__size_class(nbytes, &csize);
    gk_stream *s = ctx->cur_stream;
    gk__tenant *t = ctx->cur_tenant;
    *out = NULL;
    if (t) GK__TRY(gk__tenant_admit(ctx, t, csize, where));
    /* 1. a cached block of the class, free of other streams' queued work */
    for (b = P->cls_head[cls]; b; b = b->cnext) {
        if (cls == GK__LARGE_CLASS && (b->size < csize || b->size > csize + csize / 8)) continue;
        if (b->stream && b->stream != s && !gk__stream_idle(ctx, b->stream)) continue;
        gk__cls_remove(ctx, b);
        gk__list_remove(&P->cache_head, &P->cache_tail, b);
        P->cached -= b->size;
        P->used += b->size;
        P->st.reuses++;
        goto got;
    }
    /* 2. new memory */
    b = GK__CALLOC(gk__block, 1);
    if (!b) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", where);
    b->size = csize;
    b->cls = cls;
    {
        gk_status st = gk__pool_get_memory(ctx, csize, &b->ptr, where);
        if (st != GK_OK) { GPUKIT_FREE(b); return st; }
    }
    P->used += csize;
got:
    b->tenant = t;
    b->qos = t ? t->qos : GK_QOS_GUARANTEED; /* memory outside the scheduler is not BestEffort's */
    if (t && (t->used += b->size) > t->peak) t->peak = t->used;
    b->state = GK__BLK_LIVE;
    b->refs = 1;
    b->pins = 0;
    b->free_pending = 0;
    b->stream = NULL;
    b->tick = ++P->tick;
    gk__list_push(&P->live_head, &P->live_tail, b);
    P->st.allocations++;
    gk__pool_note_peak(P);
    *out = b;
    return GK_OK;
}

static gk_status gk__xfer_block_copy(gk_ctx *ctx, int to_device, gk__cu_ptr dev, void *host, size_t n, const char *where);
/* Moves a live block to host memory; the copy goes through the transfer
   engine's pinned bounce buffers on its device-to-host stream (CUDA) and is
   complete when this returns. */
static gk_status gk__pool_evict(gk_ctx *ctx, gk__block *b, const char *where) {
    gk__pool *P = &ctx->pool;
    void *h;
    if (b->foreign)
        return gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: the storage is memory gpukit does not own (gk_tensor_wrap); it is never evicted", where);
    if (b->state != GK__BLK_LIVE || b->pins > 0)
        return gk__err(ctx, GK_ERR_STATE, "%s: storage is pinned or not resident; it cannot be evicted", where);
    h = GPUKIT_MALLOC(b->size);
    if (!h) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: no host memory (%zu bytes) to evict to", where, b->size);
    if (ctx->backend == GK_BACKEND_CUDA) {
        gk_status st;
        gk__stream_wait_idle(ctx, b->stream);
        st = gk__xfer_block_copy(ctx, 0, b->ptr, h, b->size, where);
        if (st != GK_OK) { GPUKIT_FREE(h); return st; }
    } else memcpy(h, (void *)(uintptr_t)b->ptr, b->size);
    gk__list_remove(&P->live_head, &P->live_tail, b);
    gk__dev_free(ctx, b->ptr);
    b->ptr = 0;
    b->host = h;
    b->state = GK__BLK_EVICTED;
    b->stream = NULL;
    P->used -= b->size;
    P->evicted += b->size;
    P->st.evictions++;
    gk__list_push(&P->evict_head, &P->evict_tail, b);
    return GK_OK;
}

/* Brings an evicted block back (s: the stream about to use it); the copy goes
   through the transfer engine's pinned bounce buffers on its host-to-device
   stream (CUDA) and is complete when this returns (the host copy is freed
   next, and work on any stream may follow). */
static gk_status gk__pool_restore(gk_ctx *ctx, gk__block *b, gk_stream *s, const char *where) {
    gk__pool *P = &ctx->pool;
    gk__cu_ptr p = 0;
    GK__UNUSED(s);
    GK__TRY(gk__pool_get_memory(ctx, b->size, &p, where));
    if (ctx->backend == GK_BACKEND_CUDA) {
        gk_status st = gk__xfer_block_copy(ctx, 1, p, b->host, b->size, where);
        if (st != GK_OK) { gk__dev_free(ctx, p); return st; }
    } else memcpy((void *)(uintptr_t)p, b->host, b->size);
    GPUKIT_FREE(b->host);
    b->host = NULL;
    b->ptr = p;
    gk__list_remove(&P->evict_head, &P->evict_tail, b);
    gk__list_push(&P->live_head, &P->live_tail, b);
    b->state = GK__BLK_LIVE;
    P->evicted -= b->size;
    P->used += b->size;
    P->st.restores++;
    gk__pool_note_peak(P);
    return GK_OK;
}

/* The end of a foreign block: the work queued on its last stream finishes
   (its owner may reuse the memory at once), then its release callback runs,
   then the struct goes. */
static void gk__wrap_release(gk_ctx *ctx, gk__block *b) {
    if (b->release) {
        gk__stream_wait_idle(ctx, b->stream);
        b->release(b->release_user);
    }
    GPUKIT_FREE(b);
}

/* A block whose last tensor handle and last pin are gone goes to the cache. */
static void gk__pool_to_cache(gk_ctx *ctx, gk__block *b) {
    gk__pool *P = &ctx->pool;
    if (b->foreign) { /* the memory is its owner's: only the struct goes */
        gk__list_remove(&P->wrap_head, &P->wrap_tail, b);
        gk__wrap_release(ctx, b);
        return;
    }
    if (b->tenant) { b->tenant->used -= b->size; b->tenant = NULL; }
    if (b->state == GK__BLK_EVICTED) {
        gk__list_remove(&P->evict_head, &P->evict_tail, b);
        P->evicted -= b->size;
        GPUKIT_FREE(b->host);
        GPUKIT_FREE(b);
        return;
    }
    gk__list_remove(&P->live_head, &P->live_tail, b);
    P->used -= b->size;
    b->state = GK__BLK_CACHED;
    b->free_pending = 0;
    gk__list_push(&P->cache_head, &P->cache_tail, b);
    gk__cls_push(ctx, b);
    P->cached += b->size;
    /* a lowered quota is enforced as blocks come back */
    while (P->used + P->cached > P->quota && P->cache_head) gk__pool_release(ctx, P->cache_head);
}
static void gk__block_unref(gk_ctx *ctx, gk__block *b) {
    if (!b || --b->refs > 0) return;
    if (b->pins > 0) b->free_pending = 1;
    else gk__pool_to_cache(ctx, b);
}
static void gk__block_unpin(gk_ctx *ctx, gk__block *b) {
    if (!b || b->pins <= 0) return;
    if (--b->pins == 0 && b->refs == 0) gk__pool_to_cache(ctx, b);
}

static gk_status gk__capture_add_block(gk_ctx *ctx, gk__capture *c, gk__block *b);

/* Makes a block resident and marks its use by work about to be issued on s:
   LRU touch, last stream, an op pin (released by gk__unuse after the launch)
   and, while s is capturing, a pin held by the graph. */
static gk_status gk__use(gk_ctx *ctx, gk__block *b, gk_stream *s, const char *where) {
    gk__pool *P = &ctx->pool;
    if (!b) return GK_OK;
    if (b->state == GK__BLK_EVICTED) GK__TRY(gk__pool_restore(ctx, b, s, where));
    b->tick = ++P->tick;
    if (!b->foreign && P->live_tail != b) {
        gk__list_remove(&P->live_head, &P->live_tail, b);
        gk__list_push(&P->live_head, &P->live_tail, b);
    }
    b->stream = s;
    b->pins++;
    if (s && s->capture) GK__TRY(gk__capture_add_block(ctx, s->capture, b));
    return GK_OK;
}
static void gk__unuse(gk_ctx *ctx, gk__block *b) { gk__block_unpin(ctx, b); }

GKDEF gk_status gk_pool_stats_get(gk_ctx *ctx, gk_pool_stats *out) {
    gk__block *b;
    if (!ctx || !out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_pool_stats_get: NULL argument");
    gk__enter(ctx);
    *out = ctx->pool.st;
    out->used = ctx->pool.used;
    out->cached = ctx->pool.cached;
    out->peak = ctx->pool.peak;
    out->quota = ctx->pool.quota;
    out->evicted = ctx->pool.evicted;
    out->pinned = 0;
    for (b = ctx->pool.live_head; b; b = b->next)
        if (b->pins > 0) out->pinned += b->size;
    gk__unlock(&ctx->mu);
    return GK_OK;
}
GKDEF gk_status gk_pool_set_quota(gk_ctx *ctx, size_t quota) {
    gk_status st;
    if (!ctx) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "gk_pool_set_quota: ctx is NULL");
    gk__enter(ctx);
    st = gk__bind(ctx);
    ctx->pool.quota = quota;
    if (st == GK_OK) st = gk__pool_make_room(ctx, 0, "gk_pool_set_quota");
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_pool_trim(gk_ctx *ctx) {
    gk_status st;
    if (!ctx) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "gk_pool_trim: ctx is NULL");
    gk__enter(ctx);
    st = gk__bind(ctx);
    while (st == GK_OK && ctx->pool.cache_head) gk__pool_release(ctx, ctx->pool.cache_head);
    gk__unlock(&ctx->mu);
    return st;
}

