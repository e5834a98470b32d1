/* >>profile: the profiler: kernel and copy records, statistics, Chrome trace */
/* ------------------------------------------------------------------------ */
/* The hooks (gk__prof_begin / _end) run with ctx->mu held, only while
   ctx->prof is set, between a caller's work being ready and its issue: they
   take a preallocated record and, on CUDA, record one of the events made by
   gk_profiler_start on the work's stream (the CPU backend takes host time).
   Nothing there allocates, waits or creates. Records are resolved (event
   times read) only when results are asked for (gk__prof_resolve). */
#define GK__PROF_MAX_RECORDS (1 << 24)
#define GK__PROF_NAMES 2048     /* distinct names; more share the name "(other names)" */
#define GK__PROF_NAME_LEN 96    /* = gk_profile_entry.name */
#define GK__PROF_HASH 4096      /* open addressing over the names (a power of two) */
#define GK__PROF_STREAMS 256    /* distinct streams; more share the last entry */
#define GK__PROF_KINDS 5

enum { GK__PREC_BEGUN = 0, GK__PREC_ENDED, GK__PREC_DONE, GK__PREC_BAD };

typedef struct gk__prof_rec {
    double t0, t1;              /* ms from the start: CPU at once, CUDA once resolved */
    double bytes, flops;        /* gk__prof_note's hints; 0: unknown */
    size_t used, cached, evicted; /* the pool when it began (GK_PROFILE_NO_POOL: 0) */
    uint16_t name, stream;      /* indexes of p->names, p->strm */
    uint8_t kind, state;        /* GK__PROF_*, GK__PREC_* */
} gk__prof_rec;

typedef struct gk__prof_strm {
    gk_stream *s;               /* NULL once a new stream took its address */
    uint64_t serial;            /* s->serial: a new stream at a destroyed one's address has another */
    int priority, number;       /* number: 0 the default stream, else 1, 2 ... in order of first record */
    int anchor;                 /* CUDA: the last resolved record on it (-1: the base event) ... */
    double anchor_t;            /* ... and its start (ms): start times chain from record to record */
    int nrec;                   /* resolved records on it */
} gk__prof_strm;

struct gk__prof {
    int on;                     /* recording (the hooks return at once when 0) */
    unsigned flags;
    int alloc, cap, n;          /* records: allocated, kept this recording (<= alloc), begun */
    int resolved;               /* records [0, resolved) are DONE or BAD */
    int readers;                /* threads resolving with the lock released: start / reset wait for none */
    int64_t dropped, skipped;
    double note_bytes, note_flops; /* for the next record (gk__prof_note) */
    gk__prof_rec *rec;
    gk__cu_event *ev;           /* CUDA: 2 a record (start, end), made by gk_profiler_start */
    int nev;
    gk__cu_event base;          /* CUDA: recorded on the default stream at start: time 0 */
    double host_base;           /* gk__now_ms() at start */
    char (*names)[GK__PROF_NAME_LEN];
    int nnames;
    uint16_t *hash;             /* GK__PROF_HASH slots: name index + 1; 0 empty */
    gk__prof_strm strm[GK__PROF_STREAMS];
    int nstrm, last_strm;
};

/* Sets the bytes and FLOPs of the next record begun on ctx (its op's main
   kernel). Ops call it guarded by `if (ctx->prof)`, right before issuing. */
static void gk__prof_note(gk_ctx *ctx, double bytes, double flops) {
    ctx->prof->note_bytes = bytes;
    ctx->prof->note_flops = flops;
}

static int gk__prof_name(struct gk__prof *p, const char *name) {
    uint32_t h = 2166136261u;
    int i;
    unsigned k;
    if (!name) name = "(unnamed)";
    for (i = 0; i < GK__PROF_NAME_LEN - 1 && name[i]; i++) h = (h ^ (unsigned char)name[i]) * 16777619u;
    for (k = h & (GK__PROF_HASH - 1);; k = (k + 1) & (GK__PROF_HASH - 1)) {
        int x = p->hash[k];
        if (!x) break;
        if (strncmp(p->names[x - 1], name, GK__PROF_NAME_LEN - 1) == 0) return x - 1;
    }
    if (p->nnames == GK__PROF_NAMES) return 0; /* full: "(other names)" */
    i = p->nnames++;
    strncpy(p->names[i], name, GK__PROF_NAME_LEN - 1);
    p->names[i][GK__PROF_NAME_LEN - 1] = 0;
    p->hash[k] = (uint16_t)(i + 1);
    return i;
}

static int gk__prof_stream(gk_ctx *ctx, struct gk__prof *p, gk_stream *s) {
    gk__prof_strm *e;
    int i = p->last_strm;
    if (p->strm[i].s != s) {
        for (i = 0; i < p->nstrm; i++)
            if (p->strm[i].s == s) break;
    }
    e = &p->strm[i < p->nstrm ? i : 0];
    if (i < p->nstrm && s->serial != e->serial) {
        e->s = NULL; /* destroyed: this is a new stream at its address */
        i = p->nstrm;
    }
    if (i == p->nstrm) {
        if (p->nstrm == GK__PROF_STREAMS) i = GK__PROF_STREAMS - 1; /* full: the last entry takes the rest */
        else {
            e = &p->strm[p->nstrm++];
            memset(e, 0, sizeof *e);
            e->s = s;
            e->priority = (int)s->priority;
            e->serial = s->serial;
            e->number = s == &ctx->default_stream ? 0 : i;
            e->anchor = -1;
        }
    }
    p->last_strm = i;
    return i;
}

static int gk__prof_begin(gk_ctx *ctx, gk_stream *s, const char *name, int kind) {
    struct gk__prof *p = ctx->prof;
    gk__prof_rec *r;
    int i;
    double nb = p->note_bytes, nf = p->note_flops;
    p->note_bytes = p->note_flops = 0;
    if (!p->on) return -1;
    if (s->capture) { p->skipped++; return -1; }
    if (p->n >= p->cap) { p->dropped++; return -1; }
    i = p->n;
    r = &p->rec[i];
    r->name = (uint16_t)gk__prof_name(p, name);
    r->stream = (uint16_t)gk__prof_stream(ctx, p, s);
    r->kind = (uint8_t)kind;
    r->state = GK__PREC_BEGUN;
    r->bytes = nb;
    r->flops = nf;
    if (!(p->flags & GK_PROFILE_NO_POOL)) {
        r->used = ctx->pool.used;
        r->cached = ctx->pool.cached;
        r->evicted = ctx->pool.evicted;
    } else r->used = r->cached = r->evicted = 0;
    r->t0 = r->t1 = 0;
    if (ctx->backend == GK_BACKEND_CUDA) {
        if (ctx->cu.EventRecord(p->ev[2 * i], s->cu) != 0) { p->dropped++; return -1; }
    } else r->t0 = gk__now_ms() - p->host_base;
    p->n++;
    return i;
}

static void gk__prof_end(gk_ctx *ctx, gk_stream *s, int rec) {
    struct gk__prof *p = ctx->prof;
    gk__prof_rec *r;
    if (!p || rec < 0 || rec >= p->n) return;
    r = &p->rec[rec];
    if (ctx->backend == GK_BACKEND_CUDA) {
        r->state = ctx->cu.EventRecord(p->ev[2 * rec + 1], s->cu) == 0 ? GK__PREC_ENDED : GK__PREC_BAD;
    } else {
        r->t1 = gk__now_ms() - p->host_base;
        r->state = GK__PREC_ENDED;
    }
}

/* Frees the events, records and the struct (lock held). */
static void gk__prof_free(gk_ctx *ctx) {
    struct gk__prof *p = ctx->prof;
    int i;
    if (!p) return;
    ctx->prof = NULL;
    if (ctx->backend == GK_BACKEND_CUDA && (p->nev || p->base) && gk__bind(ctx) == GK_OK) {
        for (i = 0; i < p->nev; i++) ctx->cu.EventDestroy(p->ev[i]);
        if (p->base) ctx->cu.EventDestroy(p->base);
    }
    GPUKIT_FREE(p->ev);
    GPUKIT_FREE(p->rec);
    GPUKIT_FREE(p->names);
    GPUKIT_FREE(p->hash);
    GPUKIT_FREE(p);
}

GKDEF const char *gk_profile_kind_name(gk_profile_kind k) {
    static const char *const n[GK__PROF_KINDS] = { "kernel", "HtoD", "DtoH", "DtoD", "cpu" };
    return (int)k >= 0 && (int)k < GK__PROF_KINDS ? n[k] : "unknown";
}

GKDEF gk_status gk_profiler_start(gk_ctx *ctx, const gk_profiler_desc *desc) {
    const char *W = "gk_profiler_start";
    struct gk__prof *p;
    gk_profiler_desc d;
    gk_status st = GK_OK;
    int i;
    GK__ENTER(ctx, W);
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    p = ctx->prof;
    if (p && p->on) st = gk__err(ctx, GK_ERR_STATE, "%s: the profiler is already running (gk_profiler_stop first)", W);
    else if (p && p->readers) st = gk__err(ctx, GK_ERR_STATE, "%s: another thread is reading the profiler's results", W);
    else if (d.max_records < 0 || d.max_records > GK__PROF_MAX_RECORDS)
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: desc->max_records is %d; it must be 0 (the default, %d) to %d", W, d.max_records,
                     GK_PROFILE_DEFAULT_RECORDS, GK__PROF_MAX_RECORDS);
    else if (d.flags & ~(unsigned)GK_PROFILE_NO_POOL) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: desc->flags 0x%x has unknown bits", W, d.flags);
    if (st == GK_OK) st = gk__bind(ctx);
    if (st != GK_OK) { gk__unlock(&ctx->mu); return st; }
    if (d.max_records == 0) d.max_records = GK_PROFILE_DEFAULT_RECORDS;
    /* a stopped profiler's arrays and events are kept when they are large enough */
    if (p && p->alloc < d.max_records) gk__prof_free(ctx);
    p = ctx->prof;
    if (!p) {
        p = GK__CALLOC(struct gk__prof, 1);
        if (p) {
            p->alloc = d.max_records;
            p->rec = GK__ALLOC(gk__prof_rec, p->alloc);
            p->names = GK__CAST(char(*)[GK__PROF_NAME_LEN], GPUKIT_MALLOC(sizeof *p->names * GK__PROF_NAMES));
            p->hash = GK__ALLOC(uint16_t, GK__PROF_HASH);
            if (ctx->backend == GK_BACKEND_CUDA) p->ev = GK__CALLOC(gk__cu_event, 2 * (size_t)p->alloc);
        }
        if (!p || !p->rec || !p->names || !p->hash || (ctx->backend == GK_BACKEND_CUDA && !p->ev)) {
            if (p) { GPUKIT_FREE(p->rec); GPUKIT_FREE(p->names); GPUKIT_FREE(p->hash); GPUKIT_FREE(p->ev); GPUKIT_FREE(p); }
            gk__unlock(&ctx->mu);
            return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory for %d records", W, d.max_records);
        }
        ctx->prof = p;
        if (ctx->backend == GK_BACKEND_CUDA) {
            gk__cu_result r = ctx->cu.EventCreate(&p->base, GK__CU_EVENT_DEFAULT);
            if (r != 0) p->base = NULL;
            for (i = 0; r == 0 && i < 2 * p->alloc; i++) {
                if ((r = ctx->cu.EventCreate(&p->ev[i], GK__CU_EVENT_DEFAULT)) == 0) p->nev++;
            }
            if (r != 0) {
                st = gk__cu_fail(ctx, r, W, "cuEventCreate");
                gk__prof_free(ctx);
                gk__unlock(&ctx->mu);
                return st;
            }
        }
    }
    /* a fresh recording */
    p->cap = d.max_records;
    p->flags = d.flags;
    p->n = p->resolved = 0;
    p->dropped = p->skipped = 0;
    p->note_bytes = p->note_flops = 0;
    p->nnames = 1;
    memset(p->hash, 0, sizeof(uint16_t) * GK__PROF_HASH);
    memset(p->names[0], 0, GK__PROF_NAME_LEN);
    strncpy(p->names[0], "(other names)", GK__PROF_NAME_LEN - 1);
    p->nstrm = 0;
    p->last_strm = 0;
    gk__prof_stream(ctx, p, &ctx->default_stream); /* entry 0, number 0 */
    p->host_base = gk__now_ms();
    if (ctx->backend == GK_BACKEND_CUDA) {
        gk__cu_result r = ctx->cu.EventRecord(p->base, ctx->default_stream.cu);
        if (r != 0) {
            st = gk__cu_fail(ctx, r, W, "cuEventRecord");
            gk__prof_free(ctx);
            gk__unlock(&ctx->mu);
            return st;
        }
    }
    p->on = 1;
    gk__unlock(&ctx->mu);
    return GK_OK;
}

GKDEF gk_status gk_profiler_stop(gk_ctx *ctx) {
    gk_status st = GK_OK;
    GK__ENTER(ctx, "gk_profiler_stop");
    if (!ctx->prof || !ctx->prof->on) st = gk__err(ctx, GK_ERR_STATE, "gk_profiler_stop: the profiler is not running");
    else ctx->prof->on = 0;
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_profiler_reset(gk_ctx *ctx) {
    gk_status st = GK_OK;
    GK__ENTER(ctx, "gk_profiler_reset");
    if (ctx->prof && ctx->prof->readers) st = gk__err(ctx, GK_ERR_STATE, "gk_profiler_reset: another thread is reading the profiler's results");
    else gk__prof_free(ctx);
    gk__unlock(&ctx->mu);
    return st;
}

/* The results' precondition (lock held). */
static gk_status gk__prof_have(gk_ctx *ctx, const char *where) {
    if (!ctx->prof) return gk__err(ctx, GK_ERR_STATE, "%s: the profiler was never started on this context (gk_profiler_start)", where);
    return GK_OK;
}

/* Reads the times of the records begun so far (lock held; on CUDA it waits
   for their work with the lock released). *pending: records left for later
   (begun and not ended, or begun by other threads during the wait). */
static gk_status gk__prof_resolve(gk_ctx *ctx, const char *where, int64_t *pending) {
    struct gk__prof *p = ctx->prof;
    int n = p->n, i, k, nw = 0, left = 0;
    gk__cu_event *wait;
    char *seen;
    gk__cu_result r = 0;
    gk_status st;
    if (ctx->backend != GK_BACKEND_CUDA) {
        for (i = p->resolved; i < n; i++) {
            gk__prof_rec *x = &p->rec[i];
            if (x->state == GK__PREC_ENDED) { x->state = GK__PREC_DONE; p->strm[x->stream].nrec++; }
            if (x->state == GK__PREC_BEGUN) left++;
            else if (i == p->resolved) p->resolved++;
        }
        *pending = left;
        return GK_OK;
    }
    if ((st = gk__bind(ctx)) != GK_OK) return st;
    /* the end event of the last record of each stream, and the base */
    wait = GK__ALLOC(gk__cu_event, p->nstrm + 1);
    seen = GK__CALLOC(char, p->nstrm);
    if (!wait || !seen) { GPUKIT_FREE(wait); GPUKIT_FREE(seen); return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", where); }
    wait[nw++] = p->base;
    for (i = n - 1; i >= p->resolved && nw <= p->nstrm; i--) {
        const gk__prof_rec *x = &p->rec[i];
        if (x->state == GK__PREC_ENDED && !seen[x->stream]) { seen[x->stream] = 1; wait[nw++] = p->ev[2 * i + 1]; }
    }
    GPUKIT_FREE(seen);
    p->readers++;
    gk__unlock(&ctx->mu);
    for (k = 0; k < nw; k++) {
        gk__cu_result rk = ctx->cu.EventSynchronize(wait[k]);
        if (r == 0) r = rk;
    }
    gk__lock(&ctx->mu);
    p->readers--;
    GPUKIT_FREE(wait);
    if (r != 0) return gk__cu_fail(ctx, r, where, "cuEventSynchronize");
    for (i = p->resolved; i < n; i++) {
        gk__prof_rec *x = &p->rec[i];
        if (x->state == GK__PREC_ENDED) {
            gk__prof_strm *e = &p->strm[x->stream];
            float a = 0, dms = 0;
            gk__cu_event from = e->anchor < 0 ? p->base : p->ev[2 * e->anchor];
            gk__cu_result ra = ctx->cu.EventElapsedTime(&a, from, p->ev[2 * i]), rd = ra ? ra : ctx->cu.EventElapsedTime(&dms, p->ev[2 * i], p->ev[2 * i + 1]);
            if (ra == GK__CUDA_ERROR_NOT_READY || rd == GK__CUDA_ERROR_NOT_READY) {
                /* (a stream sharing the last entry of a full table: not waited for) */
            } else if (ra != 0 || rd != 0)
                x->state = GK__PREC_BAD;
            else {
                /* chained from the stream's previous record: short spans keep float's precision */
                x->t0 = e->anchor_t + (double)a;
                x->t1 = x->t0 + (double)dms;
                x->state = GK__PREC_DONE;
                e->anchor = i;
                e->anchor_t = x->t0;
                e->nrec++;
            }
        }
        if (x->state == GK__PREC_BEGUN || x->state == GK__PREC_ENDED) left++;
        else if (i == p->resolved) p->resolved++;
    }
    *pending = left + (p->n - n);
    return GK_OK;
}

/* Sums the DONE records per (name, kind), largest total first (lock held):
   *out (GPUKIT_FREE it) holds *n entries. */
static gk_status gk__prof_entries(gk_ctx *ctx, gk_profile_entry **out, int *n, gk_profile_stats *stats, const char *where) {
    struct gk__prof *p = ctx->prof;
    int64_t pending = 0;
    int i, j, m = 0, *slot;
    double *bms, *fms, first = 0, last = 0;
    gk_profile_entry *e;
    gk_status st;
    *out = NULL;
    *n = 0;
    if ((st = gk__prof_resolve(ctx, where, &pending)) != GK_OK) return st;
    p = ctx->prof; /* (the same: reset waits for readers) */
    slot = GK__ALLOC(int, p->nnames * GK__PROF_KINDS);
    e = GK__CALLOC(gk_profile_entry, p->nnames * GK__PROF_KINDS);
    bms = GK__CALLOC(double, p->nnames * GK__PROF_KINDS);
    fms = GK__CALLOC(double, p->nnames * GK__PROF_KINDS);
    if (!slot || !e || !bms || !fms) {
        GPUKIT_FREE(slot); GPUKIT_FREE(e); GPUKIT_FREE(bms); GPUKIT_FREE(fms);
        return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", where);
    }
    memset(stats, 0, sizeof *stats);
    for (i = 0; i < p->nnames * GK__PROF_KINDS; i++) slot[i] = -1;
    for (i = 0; i < p->n; i++) {
        const gk__prof_rec *x = &p->rec[i];
        gk_profile_entry *y;
        double ms;
        int key;
        if (x->state == GK__PREC_BAD) stats->dropped++;
        if (x->state != GK__PREC_DONE) continue;
        key = x->name * GK__PROF_KINDS + (x->kind < GK__PROF_KINDS ? x->kind : 0);
        ms = x->t1 - x->t0;
        if (ms < 0) ms = 0;
        if (slot[key] < 0) {
            slot[key] = m;
            y = &e[m++];
            memcpy(y->name, p->names[x->name], GK__PROF_NAME_LEN);
            y->kind = (gk_profile_kind)x->kind;
            y->min_ms = ms;
            y->max_ms = ms;
        }
        j = slot[key];
        y = &e[j];
        y->count++;
        y->total_ms += ms;
        if (ms < y->min_ms) y->min_ms = ms;
        if (ms > y->max_ms) y->max_ms = ms;
        if (x->bytes > 0) { y->bytes += x->bytes; bms[j] += ms; }
        if (x->flops > 0) { y->flops += x->flops; fms[j] += ms; }
        stats->records++;
        stats->busy_ms += ms;
        if (x->kind == GK__PROF_KERNEL || x->kind == GK__PROF_CPU) stats->kernel_ms += ms;
        else stats->copy_ms += ms;
        if (stats->records == 1 || x->t0 < first) first = x->t0;
        if (stats->records == 1 || x->t1 > last) last = x->t1;
        if (x->used > stats->pool_peak) stats->pool_peak = x->used;
    }
    for (j = 0; j < m; j++) {
        gk_profile_entry *y = &e[j];
        y->mean_ms = y->count ? y->total_ms / (double)y->count : 0;
        y->gbps = bms[j] > 0 ? y->bytes / (bms[j] * 1e-3) / 1e9 : 0;
        y->tflops = fms[j] > 0 ? y->flops / (fms[j] * 1e-3) / 1e12 : 0;
    }
    /* largest total first (insertion sort: a few hundred names at most in practice) */
    for (i = 1; i < m; i++) {
        gk_profile_entry t = e[i];
        for (j = i; j > 0 && (e[j - 1].total_ms < t.total_ms || (e[j - 1].total_ms == t.total_ms && strcmp(e[j - 1].name, t.name) > 0)); j--)
            e[j] = e[j - 1];
        e[j] = t;
    }
    stats->running = p->on;
    stats->dropped += p->dropped;
    stats->skipped = p->skipped;
    stats->pending = pending;
    stats->span_ms = stats->records ? last - first : 0;
    stats->entries = m;
    for (i = 0; i < p->nstrm; i++)
        if (p->strm[i].nrec) stats->streams++;
    GPUKIT_FREE(slot); GPUKIT_FREE(bms); GPUKIT_FREE(fms);
    *out = e;
    *n = m;
    return GK_OK;
}

GKDEF gk_status gk_profiler_stats(gk_ctx *ctx, gk_profile_stats *out) {
    const char *W = "gk_profiler_stats";
    gk_profile_entry *e = NULL;
    gk_profile_stats s;
    gk_status st;
    int n = 0;
    GK__ENTER(ctx, W);
    st = out ? gk__prof_have(ctx, W) : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (st == GK_OK) st = gk__prof_entries(ctx, &e, &n, &s, W);
    if (st == GK_OK) *out = s;
    GPUKIT_FREE(e);
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_profiler_summary(gk_ctx *ctx, gk_profile_entry *out, int cap, int *n) {
    const char *W = "gk_profiler_summary";
    gk_profile_entry *e = NULL;
    gk_profile_stats s;
    gk_status st = GK_OK;
    int m = 0;
    if (n) *n = 0;
    GK__ENTER(ctx, W);
    if (!n || cap < 0 || (cap > 0 && !out))
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: n is NULL, cap (%d) negative, or out NULL with cap > 0", W, cap);
    if (st == GK_OK) st = gk__prof_have(ctx, W);
    if (st == GK_OK) st = gk__prof_entries(ctx, &e, &m, &s, W);
    if (st == GK_OK) {
        if (cap > 0) memcpy(out, e, sizeof *e * (size_t)GK__MIN(cap, m));
        *n = m;
    }
    GPUKIT_FREE(e);
    gk__unlock(&ctx->mu);
    return st;
}

/* ---- the report: text appended to a buffer, cut to its size ---- */
typedef struct gk__prof_out { char *buf; size_t size, len; } gk__prof_out;
static void gk__prof_put(gk__prof_out *o, const char *fmt, ...) GK__PRINTF(2, 3);
static void gk__prof_put(gk__prof_out *o, const char *fmt, ...) {
    va_list ap;
    int k;
    char one;
    va_start(ap, fmt);
    k = vsnprintf(o->len < o->size ? o->buf + o->len : &one, o->len < o->size ? o->size - o->len : 1, fmt, ap);
    va_end(ap);
    if (k > 0) o->len += (size_t)k;
}

GKDEF gk_status gk_profiler_report(gk_ctx *ctx, char *buf, size_t size, size_t *needed) {
    const char *W = "gk_profiler_report";
    gk_profile_entry *e = NULL;
    gk_profile_stats s;
    gk_status st = GK_OK;
    gk__prof_out o;
    int m = 0, i;
    if (needed) *needed = 0;
    if (buf && size) buf[0] = 0;
    GK__ENTER(ctx, W);
    if (!buf && size) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: buf is NULL but size is %zu", W, size);
    if (st == GK_OK) st = gk__prof_have(ctx, W);
    if (st == GK_OK) st = gk__prof_entries(ctx, &e, &m, &s, W);
    if (st == GK_OK) {
        o.buf = buf; o.size = buf ? size : 0; o.len = 0;
        gk__prof_put(&o, "gpukit profile (%s): %lld records, %lld dropped, %lld skipped (graph capture), %lld pending; %d stream%s\n",
                     s.running ? "running" : "stopped", (long long)s.records, (long long)s.dropped, (long long)s.skipped, (long long)s.pending,
                     s.streams, s.streams == 1 ? "" : "s");
        gk__prof_put(&o, "%s time %.3f ms (kernels %.3f, copies %.3f) over a span of %.3f ms; pool peak %.1f MiB\n",
                     ctx->backend == GK_BACKEND_CUDA ? "GPU" : "CPU op", s.busy_ms, s.kernel_ms, s.copy_ms, s.span_ms,
                     (double)s.pool_peak / 1048576.0);
        gk__prof_put(&o, "%10s %6s %8s %10s %10s %10s %9s %9s  %-6s  %s\n", "total ms", "%", "count", "mean us", "min us", "max us", "GB/s",
                     "TFLOP/s", "kind", "name");
        for (i = 0; i < m; i++) {
            const gk_profile_entry *y = &e[i];
            gk__prof_put(&o, "%10.3f %6.2f %8lld %10.2f %10.2f %10.2f ", y->total_ms, s.busy_ms > 0 ? 100.0 * y->total_ms / s.busy_ms : 0.0,
                         (long long)y->count, y->mean_ms * 1e3, y->min_ms * 1e3, y->max_ms * 1e3);
            if (y->gbps > 0) gk__prof_put(&o, "%9.2f ", y->gbps);
            else gk__prof_put(&o, "%9s ", "-");
            if (y->tflops > 0) gk__prof_put(&o, "%9.4f ", y->tflops);
            else gk__prof_put(&o, "%9s ", "-");
            gk__prof_put(&o, " %-6s  %s\n", gk_profile_kind_name(y->kind), y->name);
        }
        if (needed) *needed = o.len + 1;
        if (o.len + 1 > size) {
            if (buf && size) buf[size - 1] = 0;
            st = gk__err(ctx, GK_ERR_LIMIT, "%s: the report takes %zu bytes, buf holds %zu", W, o.len + 1, size);
        }
    }
    GPUKIT_FREE(e);
    gk__unlock(&ctx->mu);
    return st;
}

/* ---- the Chrome trace ---- */
static void gk__prof_json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') { fputc('\\', f); fputc(c, f); }
        else if (c < 0x20) fprintf(f, "\\u%04x", (unsigned)c);
        else fputc(c, f);
    }
    fputc('"', f);
}
static double gk__prof_us(double ms) { return ms > 0 && ms < 1e15 ? ms * 1e3 : 0; }

GKDEF gk_status gk_profiler_write_trace(gk_ctx *ctx, const char *path) {
    const char *W = "gk_profiler_write_trace";
    static const char *const prio[3] = { "normal", "high", "low" };
    struct gk__prof *p;
    gk_profile_entry *e = NULL;
    gk_profile_stats s;
    gk_status st = GK_OK;
    FILE *f = NULL;
    int m = 0, i, bad;
    size_t pu = 0, pc = 0, pe = 0;
    int have_pool = 0;
    GK__ENTER(ctx, W);
    if (!path || !*path) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: path is NULL or empty", W);
    if (st == GK_OK) st = gk__prof_have(ctx, W);
    if (st == GK_OK) st = gk__prof_entries(ctx, &e, &m, &s, W); /* resolves the records */
    GPUKIT_FREE(e);
    if (st == GK_OK && !(f = fopen(path, "w"))) st = gk__err(ctx, GK_ERR_IO, "%s: cannot write %s: %s", W, path, strerror(errno));
    if (st != GK_OK) { gk__unlock(&ctx->mu); return st; }
    p = ctx->prof;
    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n", f);
    fputs("{\"name\":\"process_name\",\"ph\":\"M\",\"ts\":0,\"pid\":1,\"tid\":0,\"args\":{\"name\":", f);
    {
        char pn[300];
        snprintf(pn, sizeof pn, "gpukit: %s", ctx->info.name);
        gk__prof_json_str(f, pn);
    }
    fputs("}}", f);
    for (i = 0; i < p->nstrm; i++) {
        const gk__prof_strm *x = &p->strm[i];
        char tn[64];
        if (!x->nrec) continue;
        if (x->number == 0) snprintf(tn, sizeof tn, "default stream");
        else snprintf(tn, sizeof tn, "stream %d (%s priority)", x->number, prio[x->priority >= 0 && x->priority < 3 ? x->priority : 0]);
        fprintf(f, ",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0,\"pid\":1,\"tid\":%d,\"args\":{\"name\":\"%s\"}}", x->number + 1, tn);
        fprintf(f, ",\n{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"ts\":0,\"pid\":1,\"tid\":%d,\"args\":{\"sort_index\":%d}}", x->number + 1,
                x->number + 1);
    }
    for (i = 0; i < p->n; i++) {
        const gk__prof_rec *x = &p->rec[i];
        double dur = x->t1 - x->t0;
        if (x->state != GK__PREC_DONE) continue;
        if (dur < 0) dur = 0;
        fputs(",\n{\"name\":", f);
        gk__prof_json_str(f, p->names[x->name]);
        fprintf(f, ",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,\"dur\":%.3f,\"pid\":1,\"tid\":%d", gk_profile_kind_name((gk_profile_kind)x->kind),
                gk__prof_us(x->t0), gk__prof_us(dur), p->strm[x->stream].number + 1);
        if (x->bytes > 0 || x->flops > 0) {
            fputs(",\"args\":{", f);
            if (x->bytes > 0) {
                fprintf(f, "\"bytes\":%.0f", x->bytes);
                if (dur > 0) fprintf(f, ",\"GB/s\":%.3f", x->bytes / (dur * 1e-3) / 1e9);
            }
            if (x->flops > 0) {
                fprintf(f, "%s\"flops\":%.0f", x->bytes > 0 ? "," : "", x->flops);
                if (dur > 0) fprintf(f, ",\"TFLOP/s\":%.4f", x->flops / (dur * 1e-3) / 1e12);
            }
            fputc('}', f);
        }
        fputc('}', f);
        if (!(p->flags & GK_PROFILE_NO_POOL) && (!have_pool || x->used != pu || x->cached != pc || x->evicted != pe)) {
            have_pool = 1;
            pu = x->used; pc = x->cached; pe = x->evicted;
            fprintf(f, ",\n{\"name\":\"pool\",\"ph\":\"C\",\"ts\":%.3f,\"pid\":1,\"tid\":0,\"args\":{\"used\":%.0f,\"cached\":%.0f,\"evicted\":%.0f}}",
                    gk__prof_us(x->t0), (double)pu, (double)pc, (double)pe);
        }
    }
    fputs("\n]}\n", f);
    bad = ferror(f) != 0;
    bad |= fclose(f) != 0;
    if (bad) st = gk__err(ctx, GK_ERR_IO, "%s: writing %s failed", W, path);
    gk__unlock(&ctx->mu);
    return st;
}
