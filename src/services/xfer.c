/* >>xfer: the async transfer engine: pinned staging, copy streams, chunks, priorities */
/* ------------------------------------------------------------------------ */
/* How an engine (gk_xfer) works (the API's semantics: >>api_xfer).

   Threads. `workers` staging threads take chunks, highest priority first,
   and do a chunk's host side: a memcpy into a staging buffer, a pread() of a
   file into one, or (downloads) the memcpy out of one once its DMA is done;
   they issue the chunk's copy on the copy stream of its direction (a lane).
   Each lane has one thread that completes requests in stream order: it waits
   for a request's completion event (CUDA), releases the tensor's pin, runs
   the callback and marks the request done. On the CPU backend a lane's thread
   is also its stream: chunks' copies are queued to it as ops and it performs
   them (memcpy) in order, so ordering is the same as on CUDA.

   Slots. Every chunk in flight holds one slot of the ring: a staging buffer,
   the event recorded after the chunk's copy (CPU: the op's place on its
   lane) and the op node. A worker takes a free slot (oldest first) and waits
   for its last copy before it reuses it, so the ring bounds the copies in
   flight (and what a late high-priority request waits behind). Chunks of
   pinned host memory use a slot but not its buffer.

   A request's life: submit (the caller: the tensor looked up, its storage
   made resident and pinned, under ctx->mu; queued under x->mu) -> its chunks
   taken and finished by workers -> once the last one is finished, a mark on
   its lane (CUDA: its event recorded after its chunks' copies on the stream)
   -> completed by the lane's thread -> reported to a waiter, then freed.

   Locks. ctx->mu before x->mu, never the other way; no thread of the engine
   holds x->mu while it takes ctx->mu, nor ctx->mu while it waits on an event.
   Workers issue copies without ctx->mu, except for requests submitted while
   the profiler was on (its hooks need the lock: those copies are recorded as
   "xfer HtoD" / "xfer DtoH" on the engine's streams); lanes take it to
   release a tensor's pin. Nothing on the
   engine's threads allocates memory (records are made by the submitting
   thread and freed by the reporting one), so GPUKIT_MALLOC need not be
   thread-safe against them.

   The pool's eviction and restore (gk__pool_evict / gk__pool_restore, ctx->mu
   held, CUDA) copy through the context engine's copy streams and two pinned
   bounce buffers of their own (gk__xfer_block_copy), which only code holding
   ctx->mu touches. */

#if defined(_WIN32)
#include <fcntl.h>
#else
#include <fcntl.h>
#if defined(__GLIBC__) && !defined(__USE_UNIX98) && !defined(__USE_XOPEN2K8)
/* a strict C build (-std=c99) hides pread; the library has it */
extern ssize_t pread(int fd, void *buf, size_t n, off_t offset);
#endif
#endif

#define GK__XFER_KEEP 4096          /* unreported successful requests kept (the oldest are forgotten first) */
#define GK__XFER_MAX_SLOTS 256
#define GK__XFER_BOUNCE ((size_t)8 << 20)
enum { GK__XK_UP = 0, GK__XK_DOWN = 1, GK__XK_FILE = 2 };
enum { GK__XL_H2D = 0, GK__XL_D2H = 1 };
enum { GK__XOP_COPY = 0, GK__XOP_MARK = 1 };
enum { GK__XR_QUEUED = 0, GK__XR_ISSUED = 1, GK__XR_DONE = 2 };

typedef struct gk__xreq gk__xreq;
typedef struct gk__xop {            /* an op on a lane: CPU copies and completion marks; CUDA: marks only */
    int type;
    void *dst;
    const void *src;
    size_t n;
    gk__xreq *req;                  /* GK__XOP_MARK */
    struct gk__xop *next;
} gk__xop;

struct gk__xreq {
    uint64_t id;
    int kind, lane, prio, direct;
    int prof;                       /* the profiler was on at submit: its copies are recorded */
    const char *where;              /* the call that submitted it, for messages */
    char *path;                     /* a file request's path (NULL: an fd without one) */
    gk__block *blk;                 /* pinned until completion; NULL: none (zero bytes) */
    gk__cu_ptr dev;                 /* the range's first byte (CPU: a host address) */
    unsigned char *host;            /* the host side of an upload or download */
    int fd, own_fd;
    uint64_t foff;                  /* the file offset of byte 0 of the range */
    size_t len, next;               /* bytes; next: the first byte no worker has taken */
    int inflight;                   /* chunks taken and not finished */
    gk__cu_event ready;             /* CUDA: recorded on the tensor's last stream at submit (NULL: none) */
    int waited;                     /* the copy stream waits on `ready` */
    gk__cu_event done_ev;           /* CUDA: recorded after its chunks' copies (the mark) */
    int ev_ok;                      /* done_ev was recorded */
    int state;                      /* GK__XR_* */
    gk_status status;
    char msg[400];
    gk_xfer_done_fn fn;
    void *user;
    int waiters;                    /* threads in wait / stream_wait holding it */
    int reported;                   /* its status went to a waiter: the last waiter frees it */
    gk__xop mark;
    gk__xreq *pnext;                /* pending (chunks left): best first */
    gk__xreq *hnext;                /* hash chain */
    gk__xreq *aprev, *anext;        /* not done, by id */
    gk__xreq *dprev, *dnext;        /* done and unreported, in completion order */
};

typedef struct gk__xslot {
    unsigned char *buf;             /* chunk bytes of pinned (CPU: plain) memory */
    gk__cu_event ev;                /* CUDA: after its last copy */
    int lane;                       /* CPU: its last copy's lane ... */
    uint64_t seq;                   /* ... and place there */
    int used;                       /* its last copy was issued (so there is something to wait for) */
    gk__xop op;
} gk__xslot;

typedef struct gk__xlane {
    struct gk_xfer *x;
    gk_stream *s;                   /* CUDA: the copy stream (the engine's own gk_stream, on no list of the context) */
    gk__xop *head, *tail;           /* ops in stream order */
    uint64_t pushed, done;          /* ops queued / performed */
    gk__thread th;
    int th_ok;
} gk__xlane;

struct gk_xfer {
    gk_ctx *ctx;
    int is_ctx;                     /* the context's own engine (gk_xfer_default) */
    int started;                    /* slots and threads made */
    gk_xfer_desc desc;              /* as resolved */
    size_t chunk;
    int nslots, nworkers;
    gk__mutex mu;
    gk__cond cv_work;               /* workers: a request or a slot */
    gk__cond cv_lane;               /* lanes: an op; CPU slot waits: an op done */
    gk__cond cv_done;               /* waiters: a request issued or done, a caller left, threads started */
    gk__xlane lane[2];
    gk__xslot *slots;
    int *freeq, fq_head, fq_n;      /* free slots, oldest first */
    gk__thread *workers;
    int nworkers_ok;
    uint64_t tids[72];              /* the engine's threads (gk__thread_id), to refuse waits on itself */
    int ntids;
    gk__xreq *pend;
    gk__xreq **hash;
    size_t hcap, hn;
    gk__xreq *act_head, *act_tail;
    gk__xreq *done_head, *done_tail;
    size_t ndone_ok;                /* successful on the done list */
    gk__cu_event *evfree;           /* CUDA: recycled request events */
    int nevfree, capevfree;
    uint64_t next_id;
    int active;                     /* submitted, not done */
    int callers;                    /* public calls inside */
    int closing, stop;
    double busy_t0, busy_ms;
    gk_xfer_stats st;
    /* the pool's eviction and restore (ctx->mu held) */
    void *bounce[2];
    gk__cu_event bounce_ev[2];
    size_t bounce_n;
    int bounce_failed;
    struct gk_xfer *next;           /* ctx->xfers */
};

/* ---- the platform: CPUs, files ---- */
static int gk__xfer_ncpu(void) {
#if defined(_WIN32)
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return (int)si.dwNumberOfProcessors;
#else
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
#endif
}
static int gk__xfer_open(const char *path) {
#if defined(_WIN32)
    return _open(path, _O_RDONLY | _O_BINARY);
#else
    return open(path, O_RDONLY);
#endif
}
static void gk__xfer_close(int fd) {
#if defined(_WIN32)
    _close(fd);
#else
    close(fd);
#endif
}
/* 1 and the size when fd is a regular file; 0 when it is something else; -1 when it cannot be asked */
static int gk__xfer_fsize(int fd, uint64_t *size) {
#if defined(_WIN32)
    LARGE_INTEGER sz;
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    if (h == INVALID_HANDLE_VALUE) return -1;
    if (GetFileType(h) != FILE_TYPE_DISK) return 0;
    if (!GetFileSizeEx(h, &sz)) return -1;
    *size = (uint64_t)sz.QuadPart;
    return 1;
#else
    struct stat sb;
    if (fstat(fd, &sb) != 0) return -1;
    if (!S_ISREG(sb.st_mode)) return 0;
    *size = (uint64_t)sb.st_size;
    return 1;
#endif
}
/* Reads up to n bytes at off: the count, 0 at the end of the file, -1 on an error. */
static long long gk__xfer_pread1(int fd, void *buf, size_t n, uint64_t off) {
#if defined(_WIN32)
    OVERLAPPED o;
    DWORD got = 0;
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    memset(&o, 0, sizeof o);
    o.Offset = (DWORD)(off & 0xFFFFFFFFu);
    o.OffsetHigh = (DWORD)(off >> 32);
    if (n > ((size_t)1 << 30)) n = (size_t)1 << 30;
    if (!ReadFile(h, buf, (DWORD)n, &got, &o)) return GetLastError() == ERROR_HANDLE_EOF ? 0 : -1;
    return (long long)got;
#else
    ssize_t r;
    if (n > ((size_t)1 << 30)) n = (size_t)1 << 30;
    do r = pread(fd, buf, n, (off_t)off);
    while (r < 0 && errno == EINTR);
    return (long long)r;
#endif
}
static const char *gk__xfer_syserr(void) {
#if defined(_WIN32)
    static const char *const generic = "read error";
    return errno ? strerror(errno) : generic;
#else
    return strerror(errno);
#endif
}

/* ---- requests (x->mu held) ---- */
static gk__xreq *gk__xreq_find(gk_xfer *x, uint64_t id) {
    gk__xreq *r;
    if (!x->hcap) return NULL;
    for (r = x->hash[id & (x->hcap - 1)]; r; r = r->hnext)
        if (r->id == id) return r;
    return NULL;
}
/* Makes room for one more request: 0 when there is no table at all (out of memory). */
static int gk__xreq_hash_room(gk_xfer *x) {
    if (x->hn >= x->hcap) { /* grow; when out of memory the chains just get longer */
        size_t nc = x->hcap ? x->hcap * 2 : 64, i;
        gk__xreq **nh = GK__CALLOC(gk__xreq *, nc);
        if (nh) {
            for (i = 0; i < x->hcap; i++) {
                gk__xreq *e = x->hash[i], *nx;
                for (; e; e = nx) {
                    nx = e->hnext;
                    e->hnext = nh[e->id & (nc - 1)];
                    nh[e->id & (nc - 1)] = e;
                }
            }
            GPUKIT_FREE(x->hash);
            x->hash = nh;
            x->hcap = nc;
        }
    }
    return x->hcap > 0;
}
static void gk__xreq_hash_add(gk_xfer *x, gk__xreq *r) {
    size_t k = r->id & (x->hcap - 1);
    r->hnext = x->hash[k];
    x->hash[k] = r;
    x->hn++;
}
static void gk__xreq_hash_remove(gk_xfer *x, gk__xreq *r) {
    gk__xreq **pp = &x->hash[r->id & (x->hcap - 1)];
    for (; *pp; pp = &(*pp)->hnext)
        if (*pp == r) { *pp = r->hnext; x->hn--; return; }
}
static gk__cu_event gk__xfer_event_get(gk_xfer *x) {
    gk__cu_event e = NULL;
    if (x->nevfree) return x->evfree[--x->nevfree];
    if (x->ctx->cu.EventCreate(&e, GK__CU_EVENT_BLOCKING_SYNC | GK__CU_EVENT_DISABLE_TIMING) != 0) return NULL;
    return e;
}
static void gk__xfer_event_put(gk_xfer *x, gk__cu_event e) {
    if (!e) return;
    if (x->nevfree == x->capevfree) {
        int nc = x->capevfree ? x->capevfree * 2 : 64;
        gk__cu_event *ne = GK__CAST(gk__cu_event *, GPUKIT_REALLOC(x->evfree, sizeof(gk__cu_event) * (size_t)nc));
        if (!ne) { x->ctx->cu.EventDestroy(e); return; }
        x->evfree = ne;
        x->capevfree = nc;
    }
    x->evfree[x->nevfree++] = e;
}
/* Frees a done request nobody holds (off the done list and the hash). */
static void gk__xreq_free(gk_xfer *x, gk__xreq *r) {
    if (r->dprev) r->dprev->dnext = r->dnext;
    else if (x->done_head == r) x->done_head = r->dnext;
    if (r->dnext) r->dnext->dprev = r->dprev;
    else if (x->done_tail == r) x->done_tail = r->dprev;
    if (r->status == GK_OK && x->ndone_ok) x->ndone_ok--;
    gk__xreq_hash_remove(x, r);
    if (x->ctx->backend == GK_BACKEND_CUDA) {
        gk__xfer_event_put(x, r->ready);
        gk__xfer_event_put(x, r->done_ev);
    }
    GPUKIT_FREE(r->path);
    GPUKIT_FREE(r);
}
/* Its status went to a caller: freed now, or by the last thread still waiting on it. */
static void gk__xreq_report(gk_xfer *x, gk__xreq *r) {
    r->reported = 1;
    if (r->waiters == 0) gk__xreq_free(x, r);
}
/* Forgets the oldest successful unreported requests beyond GK__XFER_KEEP. */
static void gk__xfer_prune(gk_xfer *x) {
    gk__xreq *r = x->done_head, *nx;
    for (; r && x->ndone_ok > GK__XFER_KEEP; r = nx) {
        nx = r->dnext;
        if (r->status == GK_OK && r->waiters == 0) gk__xreq_free(x, r);
    }
}
static void gk__xfer_pend_remove(gk_xfer *x, gk__xreq *r) {
    gk__xreq **pp;
    for (pp = &x->pend; *pp; pp = &(*pp)->pnext)
        if (*pp == r) { *pp = r->pnext; r->pnext = NULL; return; }
}
/* Queues r's chunks: after every request of a higher priority, and of the
   same priority submitted before it. */
static void gk__xfer_pend_add(gk_xfer *x, gk__xreq *r) {
    gk__xreq **pp = &x->pend;
    while (*pp && (*pp)->prio >= r->prio) pp = &(*pp)->pnext;
    r->pnext = *pp;
    *pp = r;
}
static void gk__xlane_push(gk_xfer *x, int l, gk__xop *op) {
    gk__xlane *ln = &x->lane[l];
    op->next = NULL;
    if (ln->tail) ln->tail->next = op;
    else ln->head = op;
    ln->tail = op;
    ln->pushed++;
    gk__cond_broadcast(&x->cv_lane);
}
/* Every chunk of r is finished (or none will be): its mark goes on its lane,
   after its copies (CUDA: its event is recorded on the copy stream). */
static void gk__xreq_mark(gk_xfer *x, gk__xreq *r) {
    if (x->ctx->backend == GK_BACKEND_CUDA && r->done_ev) {
        gk__cu_result e = x->ctx->cu.EventRecord(r->done_ev, x->lane[r->lane].s->cu);
        if (e == 0) r->ev_ok = 1;
        else if (r->status == GK_OK) {
            r->status = GK_ERR_CUDA;
            snprintf(r->msg, sizeof r->msg, "%s: cuEventRecord failed: %s (%s)", r->where, gk__cu_errname(x->ctx, e), gk__cu_errstr(x->ctx, e));
        }
    }
    r->state = GK__XR_ISSUED;
    r->mark.type = GK__XOP_MARK;
    r->mark.req = r;
    gk__xlane_push(x, r->lane, &r->mark);
    gk__cond_broadcast(&x->cv_done);
}
/* r failed (the first failure is kept): its untaken chunks are dropped. */
static void gk__xreq_fail(gk_xfer *x, gk__xreq *r, gk_status st, const char *msg) {
    if (r->status == GK_OK) {
        r->status = st;
        snprintf(r->msg, sizeof r->msg, "%s", msg);
    }
    if (r->next < r->len) {
        gk__xfer_pend_remove(x, r);
        r->next = r->len;
    }
    if (r->inflight == 0 && r->state == GK__XR_QUEUED) gk__xreq_mark(x, r);
}
static int gk__xfer_own_thread(gk_xfer *x) {
    uint64_t me = gk__thread_id();
    int i;
    for (i = 0; i < x->ntids; i++)
        if (x->tids[i] == me) return 1;
    return 0;
}
static void gk__xfer_thread_started(gk_xfer *x) {
    if (x->ntids < (int)(sizeof x->tids / sizeof x->tids[0])) x->tids[x->ntids++] = gk__thread_id();
    gk__cond_broadcast(&x->cv_done);
}

/* ---- chunks (no lock held) ---- */
/* Waits until the slot's last copy is done, so its buffer (and its place in
   the bound on copies in flight) is free. */
static gk_status gk__xslot_wait(gk_xfer *x, gk__xslot *sl, const char *where, char *msg, size_t cap) {
    gk_ctx *ctx = x->ctx;
    if (!sl->used) return GK_OK;
    if (ctx->backend == GK_BACKEND_CUDA) {
        gk__cu_result e = ctx->cu.EventSynchronize(sl->ev);
        if (e != 0) {
            snprintf(msg, cap, "%s: cuEventSynchronize failed: %s (%s)", where, gk__cu_errname(ctx, e), gk__cu_errstr(ctx, e));
            return e == GK__CUDA_ERROR_OUT_OF_MEMORY ? GK_ERR_OUT_OF_MEMORY : GK_ERR_CUDA;
        }
    } else {
        gk__xlane *ln = &x->lane[sl->lane];
        gk__lock(&x->mu);
        while (ln->done < sl->seq) gk__cond_wait(&x->cv_lane, &x->mu);
        gk__unlock(&x->mu);
    }
    sl->used = 0;
    return GK_OK;
}
/* Issues one chunk's copy on lane l and records the slot's event after it:
   dev <- host (H2D) or host <- dev (D2H). The context's lock is taken only
   for requests submitted while the profiler was on (its hooks need it), so
   copies go on while other threads hold it (allocating, compiling). */
static gk_status gk__xfer_issue(gk_xfer *x, gk__xreq *r, int l, gk__cu_ptr dev, void *host, size_t n, gk__xslot *sl, char *msg, size_t cap) {
    gk_ctx *ctx = x->ctx;
    const char *where = r->where;
    if (ctx->backend == GK_BACKEND_CUDA) {
        gk_stream *s = x->lane[l].s;
        gk__cu_result e;
        const char *call = l == GK__XL_H2D ? "cuMemcpyHtoDAsync_v2" : "cuMemcpyDtoHAsync_v2";
        int rec = -1;
        if (r->prof) {
            gk__lock(&ctx->mu);
            if (ctx->prof) {
                gk__prof_note(ctx, (double)n, 0);
                rec = gk__prof_begin(ctx, s, l == GK__XL_H2D ? "xfer HtoD" : "xfer DtoH", l == GK__XL_H2D ? GK__PROF_H2D : GK__PROF_D2H);
            }
        }
        e = l == GK__XL_H2D ? ctx->cu.MemcpyHtoDAsync(dev, host, n, s->cu) : ctx->cu.MemcpyDtoHAsync(host, dev, n, s->cu);
        if (rec >= 0) gk__prof_end(ctx, s, rec);
        if (r->prof) gk__unlock(&ctx->mu);
        if (e == 0) {
            call = "cuEventRecord";
            e = ctx->cu.EventRecord(sl->ev, s->cu);
            if (e == 0) sl->used = 1;
        }
        if (e != 0) {
            snprintf(msg, cap, "%s: %s failed: %s (%s)", where, call, gk__cu_errname(ctx, e), gk__cu_errstr(ctx, e));
            return e == GK__CUDA_ERROR_OUT_OF_MEMORY ? GK_ERR_OUT_OF_MEMORY : GK_ERR_CUDA;
        }
    } else {
        gk__lock(&x->mu);
        sl->op.type = GK__XOP_COPY;
        sl->op.dst = l == GK__XL_H2D ? (void *)(uintptr_t)dev : host;
        sl->op.src = l == GK__XL_H2D ? (const void *)host : (const void *)(uintptr_t)dev;
        sl->op.n = n;
        sl->op.req = NULL;
        gk__xlane_push(x, l, &sl->op);
        sl->lane = l;
        sl->seq = x->lane[l].pushed;
        sl->used = 1;
        gk__unlock(&x->mu);
    }
    return GK_OK;
}
/* One chunk: bytes [off, off + n) of r's range, through slot sl. */
static gk_status gk__xfer_chunk(gk_xfer *x, gk__xreq *r, gk__xslot *sl, size_t off, size_t n, char *msg, size_t cap) {
    gk_status st = gk__xslot_wait(x, sl, r->where, msg, cap);
    if (st != GK_OK) return st;
    if (r->kind == GK__XK_UP) {
        if (r->direct) return gk__xfer_issue(x, r, GK__XL_H2D, r->dev + off, r->host + off, n, sl, msg, cap);
        memcpy(sl->buf, r->host + off, n);
        return gk__xfer_issue(x, r, GK__XL_H2D, r->dev + off, sl->buf, n, sl, msg, cap);
    }
    if (r->kind == GK__XK_FILE) {
        size_t got = 0;
        while (got < n) {
            long long k = gk__xfer_pread1(r->fd, sl->buf + got, n - got, r->foff + off + got);
            char fdname[32];
            if (k > 0) { got += (size_t)k; continue; }
            snprintf(fdname, sizeof fdname, "fd %d", r->fd);
            if (k == 0) {
                uint64_t now = 0;
                char had[48];
                if (gk__xfer_fsize(r->fd, &now) == 1) snprintf(had, sizeof had, "%llu bytes", (unsigned long long)now);
                else snprintf(had, sizeof had, "fewer bytes");
                snprintf(msg, cap, "%s: '%.200s' has %s now, too short for bytes %llu..%llu (it shrank after the request was submitted)",
                         r->where, r->path ? r->path : fdname, had, (unsigned long long)r->foff, (unsigned long long)(r->foff + r->len));
            } else
                snprintf(msg, cap, "%s: reading '%.200s' at byte %llu: %s", r->where, r->path ? r->path : fdname,
                         (unsigned long long)(r->foff + off + got), gk__xfer_syserr());
            return GK_ERR_IO;
        }
        return gk__xfer_issue(x, r, GK__XL_H2D, r->dev + off, sl->buf, n, sl, msg, cap);
    }
    /* download */
    if (r->direct) return gk__xfer_issue(x, r, GK__XL_D2H, r->dev + off, r->host + off, n, sl, msg, cap);
    st = gk__xfer_issue(x, r, GK__XL_D2H, r->dev + off, sl->buf, n, sl, msg, cap);
    if (st == GK_OK) st = gk__xslot_wait(x, sl, r->where, msg, cap);
    if (st == GK_OK) memcpy(r->host + off, sl->buf, n);
    return st;
}

/* ---- the engine's threads ---- */
static void gk__xfer_worker(void *arg) {
    gk_xfer *x = (gk_xfer *)arg;
    char msg[400];
    if (x->ctx->backend == GK_BACKEND_CUDA) gk__bind(x->ctx); /* a failure shows in the first copy */
    gk__lock(&x->mu);
    gk__xfer_thread_started(x);
    for (;;) {
        gk__xreq *r;
        gk__xslot *sl;
        size_t off, n;
        int si;
        gk_status st;
        while (!x->stop && (!x->pend || x->fq_n == 0)) gk__cond_wait(&x->cv_work, &x->mu);
        if (x->stop) break; /* (only once nothing is pending or in flight) */
        si = x->freeq[x->fq_head];
        x->fq_head = (x->fq_head + 1) % x->nslots;
        x->fq_n--;
        sl = &x->slots[si];
        r = x->pend;
        off = r->next;
        n = r->len - off < x->chunk ? r->len - off : x->chunk;
        r->next += n;
        r->inflight++;
        if (r->next == r->len) { x->pend = r->pnext; r->pnext = NULL; }
        st = GK_OK;
        if (r->ready && !r->waited) {
            /* before any of its copies: the work queued on the tensor's stream at submit */
            gk__cu_result e = x->ctx->cu.StreamWaitEvent(x->lane[r->lane].s->cu, r->ready, 0);
            r->waited = 1;
            if (e != 0) {
                snprintf(msg, sizeof msg, "%s: cuStreamWaitEvent failed: %s (%s)", r->where, gk__cu_errname(x->ctx, e), gk__cu_errstr(x->ctx, e));
                st = GK_ERR_CUDA;
            }
        }
        gk__unlock(&x->mu);
        if (st == GK_OK) st = gk__xfer_chunk(x, r, sl, off, n, msg, sizeof msg);
        gk__lock(&x->mu);
        r->inflight--;
        if (st != GK_OK) gk__xreq_fail(x, r, st, msg);
        else {
            x->st.chunks++;
            if (r->lane == GK__XL_H2D) x->st.bytes_h2d += n;
            else x->st.bytes_d2h += n;
            if (r->kind == GK__XK_FILE) x->st.bytes_file += n;
            if (r->direct) x->st.bytes_direct += n;
            else x->st.bytes_staged += n;
        }
        x->freeq[(x->fq_head + x->fq_n) % x->nslots] = si;
        x->fq_n++;
        if (r->next == r->len && r->inflight == 0 && r->state == GK__XR_QUEUED) gk__xreq_mark(x, r);
        gk__cond_signal(&x->cv_work); /* a slot is free: one worker more may go on */
    }
    gk__unlock(&x->mu);
}

/* Completes r (no lock held): its copies done, the pin released, the callback. */
static void gk__xfer_complete(gk_xfer *x, gk__xreq *r) {
    gk_ctx *ctx = x->ctx;
    double now;
    if (ctx->backend == GK_BACKEND_CUDA && r->ev_ok) {
        gk__cu_result e = ctx->cu.EventSynchronize(r->done_ev);
        if (e != 0 && r->status == GK_OK) {
            r->status = e == GK__CUDA_ERROR_OUT_OF_MEMORY ? GK_ERR_OUT_OF_MEMORY : GK_ERR_CUDA;
            snprintf(r->msg, sizeof r->msg, "%s: cuEventSynchronize failed: %s (%s)", r->where, gk__cu_errname(ctx, e), gk__cu_errstr(ctx, e));
        }
    }
    if (r->blk) {
        gk__lock(&ctx->mu);
        gk__block_unpin(ctx, r->blk);
        gk__unlock(&ctx->mu);
        r->blk = NULL;
    }
    if (r->own_fd) { gk__xfer_close(r->fd); r->own_fd = 0; }
    if (r->fn) r->fn(x, r->id, r->status, r->status == GK_OK ? "" : r->msg, r->user);
    gk__lock(&x->mu);
    r->state = GK__XR_DONE;
    if (r->aprev) r->aprev->anext = r->anext;
    else x->act_head = r->anext;
    if (r->anext) r->anext->aprev = r->aprev;
    else x->act_tail = r->aprev;
    r->aprev = r->anext = NULL;
    r->dnext = NULL;
    r->dprev = x->done_tail;
    if (x->done_tail) x->done_tail->dnext = r;
    else x->done_head = r;
    x->done_tail = r;
    if (r->status == GK_OK) x->ndone_ok++;
    if (r->lane == GK__XL_H2D) x->st.requests_h2d++;
    else x->st.requests_d2h++;
    if (r->status == GK_ERR_CANCELLED) x->st.cancelled++;
    else if (r->status != GK_OK) x->st.failed++;
    if (--x->active == 0) {
        now = gk__now_ms();
        x->busy_ms += now - x->busy_t0;
    }
    gk__cond_broadcast(&x->cv_done);
    gk__unlock(&x->mu);
}

/* A lane: the completion thread of one direction (and on the CPU backend its stream). */
static void gk__xfer_lane_main(void *arg) {
    gk__xlane *ln = (gk__xlane *)arg;
    gk_xfer *x = ln->x;
    if (x->ctx->backend == GK_BACKEND_CUDA) gk__bind(x->ctx);
    gk__lock(&x->mu);
    gk__xfer_thread_started(x);
    for (;;) {
        gk__xop *op;
        while (!ln->head && !x->stop) gk__cond_wait(&x->cv_lane, &x->mu);
        if (!ln->head) break;
        op = ln->head;
        ln->head = op->next;
        if (!ln->head) ln->tail = NULL;
        gk__unlock(&x->mu);
        if (op->type == GK__XOP_COPY) memcpy(op->dst, op->src, op->n);
        else gk__xfer_complete(x, op->req);
        gk__lock(&x->mu);
        ln->done++;
        gk__cond_broadcast(&x->cv_lane);
    }
    gk__unlock(&x->mu);
}

/* ---- making and freeing engines ---- */
static gk_status gk__xfer_desc_resolve(gk_ctx *ctx, const gk_xfer_desc *in, int is_ctx, gk_xfer_desc *d, const char *where) {
    int cuda = ctx->backend == GK_BACKEND_CUDA;
    if (in) *d = *in;
    else memset(d, 0, sizeof *d);
    if (d->workers < 0 || d->workers > 64) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: desc->workers = %d (0: the default, else 1..64)", where, d->workers);
    if (d->chunk_bytes && (d->chunk_bytes < ((size_t)64 << 10) || d->chunk_bytes > ((size_t)1 << 30)))
        return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: desc->chunk_bytes = %zu (0: the default, else 64 KiB .. 1 GiB)", where, d->chunk_bytes);
    if ((int)d->h2d_priority < (int)GK_PRIORITY_NORMAL || (int)d->h2d_priority > (int)GK_PRIORITY_LOW ||
        (int)d->d2h_priority < (int)GK_PRIORITY_NORMAL || (int)d->d2h_priority > (int)GK_PRIORITY_LOW)
        return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: desc->h2d_priority = %d / d2h_priority = %d is not a gk_stream_priority", where,
                       (int)d->h2d_priority, (int)d->d2h_priority);
    if (!d->chunk_bytes) d->chunk_bytes = is_ctx && cuda ? ((size_t)8 << 20) : cuda ? ((size_t)16 << 20) : ((size_t)4 << 20);
    if (!d->workers) {
        /* the context's engine reads files for model loading: pread from the
           page cache runs at a few GB/s a thread, so many threads */
        int n = gk__xfer_ncpu() * 3 / 4;
        d->workers = !is_ctx || !cuda ? 2 : n < 2 ? 2 : n > 12 ? 12 : n;
    }
    if (!d->staging_bytes) {
        int nb = is_ctx ? 2 * d->workers : 4;
        d->staging_bytes = d->chunk_bytes * (size_t)(nb < 4 ? 4 : nb);
    }
    if (d->staging_bytes < d->chunk_bytes)
        return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: desc->staging_bytes = %zu is less than one chunk (%zu bytes)", where, d->staging_bytes, d->chunk_bytes);
    if (d->staging_bytes / d->chunk_bytes > GK__XFER_MAX_SLOTS) d->staging_bytes = d->chunk_bytes * GK__XFER_MAX_SLOTS;
    return GK_OK;
}

static gk_status gk__xfer_lane_stream(gk_ctx *ctx, gk_stream_priority p, gk_stream **out, const char *where) {
    gk_stream *s;
    gk__cu_result e;
    *out = NULL;
    if (ctx->backend != GK_BACKEND_CUDA) return GK_OK;
    if (!(s = GK__CALLOC(gk_stream, 1))) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", where);
    s->priority = p;
    e = ctx->cu.StreamCreateWithPriority(&s->cu, GK__CU_STREAM_NON_BLOCKING, gk__cu_priority(ctx, p));
    if (e != 0) { GPUKIT_FREE(s); return gk__cu_fail(ctx, e, where, "cuStreamCreateWithPriority"); }
    *out = s;
    return GK_OK;
}

/* Stops the threads, frees everything (no lock held; nothing in flight or
   pending, or never started). */
static void gk__xfer_free(gk_xfer *x) {
    gk_ctx *ctx = x->ctx;
    int i, cuda = ctx->backend == GK_BACKEND_CUDA;
    gk__lock(&x->mu);
    x->stop = 1;
    gk__cond_broadcast(&x->cv_work);
    gk__cond_broadcast(&x->cv_lane);
    gk__unlock(&x->mu);
    for (i = 0; i < x->nworkers_ok; i++) gk__thread_join(x->workers[i]);
    for (i = 0; i < 2; i++)
        if (x->lane[i].th_ok) gk__thread_join(x->lane[i].th);
    if (cuda) gk__bind(ctx);
    while (x->done_head) gk__xreq_free(x, x->done_head);
    if (x->slots)
        for (i = 0; i < x->nslots; i++) {
            if (cuda) {
                if (x->slots[i].buf) ctx->cu.MemFreeHost(x->slots[i].buf);
                if (x->slots[i].ev) ctx->cu.EventDestroy(x->slots[i].ev);
            } else GPUKIT_FREE(x->slots[i].buf);
        }
    for (i = 0; i < 2; i++) {
        if (cuda && x->bounce[i]) ctx->cu.MemFreeHost(x->bounce[i]);
        if (cuda && x->bounce_ev[i]) ctx->cu.EventDestroy(x->bounce_ev[i]);
        if (x->lane[i].s) gk__stream_free_struct(ctx, x->lane[i].s);
    }
    if (cuda)
        for (i = 0; i < x->nevfree; i++) ctx->cu.EventDestroy(x->evfree[i]);
    GPUKIT_FREE(x->evfree);
    GPUKIT_FREE(x->slots);
    GPUKIT_FREE(x->freeq);
    GPUKIT_FREE(x->workers);
    GPUKIT_FREE(x->hash);
    gk__cond_destroy(&x->cv_work);
    gk__cond_destroy(&x->cv_lane);
    gk__cond_destroy(&x->cv_done);
    gk__mutex_destroy(&x->mu);
    GPUKIT_FREE(x);
}

/* The struct, its lock and its copy streams (what the pool's eviction
   needs); gk__xfer_start adds the staging ring and the threads. */
static gk_status gk__xfer_new(gk_ctx *ctx, const gk_xfer_desc *d, int is_ctx, gk_xfer **out, const char *where) {
    gk_xfer *x = GK__CALLOC(gk_xfer, 1);
    gk_status st;
    *out = NULL;
    if (!x) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", where);
    x->ctx = ctx;
    x->is_ctx = is_ctx;
    x->desc = *d;
    x->chunk = d->chunk_bytes;
    x->next_id = 1;
    x->lane[0].x = x->lane[1].x = x;
    gk__mutex_init(&x->mu);
    gk__cond_init(&x->cv_work);
    gk__cond_init(&x->cv_lane);
    gk__cond_init(&x->cv_done);
    st = gk__xfer_lane_stream(ctx, d->h2d_priority, &x->lane[GK__XL_H2D].s, where);
    if (st == GK_OK) st = gk__xfer_lane_stream(ctx, d->d2h_priority, &x->lane[GK__XL_D2H].s, where);
    if (st != GK_OK) { gk__xfer_free(x); return st; }
    *out = x;
    return GK_OK;
}

/* Allocates the staging ring and starts the threads (x not yet shared with
   other threads, or ctx->mu held and x->started 0). */
static gk_status gk__xfer_start(gk_xfer *x, const char *where) {
    gk_ctx *ctx = x->ctx;
    int i, cuda = ctx->backend == GK_BACKEND_CUDA, nthreads;
    gk_status st = GK_OK;
    if (x->started) return GK_OK;
    x->nslots = (int)(x->desc.staging_bytes / x->desc.chunk_bytes);
    x->nworkers = x->desc.workers;
    x->slots = GK__CALLOC(gk__xslot, x->nslots);
    x->freeq = GK__ALLOC(int, x->nslots);
    x->workers = GK__ALLOC(gk__thread, x->nworkers);
    if (!x->slots || !x->freeq || !x->workers) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", where);
    for (i = 0; i < x->nslots && st == GK_OK; i++) {
        gk__xslot *sl = &x->slots[i];
        if (cuda) {
            void *p = NULL;
            gk__cu_result e = ctx->cu.MemAllocHost(&p, x->chunk);
            if (e != 0) { st = gk__cu_fail(ctx, e, where, "cuMemAllocHost_v2 (the staging buffers)"); break; }
            sl->buf = (unsigned char *)p;
            if ((e = ctx->cu.EventCreate(&sl->ev, GK__CU_EVENT_BLOCKING_SYNC | GK__CU_EVENT_DISABLE_TIMING)) != 0) st = gk__cu_fail(ctx, e, where, "cuEventCreate");
        } else if (!(sl->buf = (unsigned char *)GPUKIT_MALLOC(x->chunk)))
            st = gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory for the staging buffers (%d of %zu bytes)", where, x->nslots, x->chunk);
        x->freeq[i] = i;
    }
    if (st != GK_OK) return st;
    x->fq_head = 0;
    x->fq_n = x->nslots;
    /* the threads; each says when it runs (its start record is freed by then) */
    for (i = 0; i < 2 && st == GK_OK; i++) {
        if (gk__thread_create(&x->lane[i].th, gk__xfer_lane_main, &x->lane[i]) != 0)
            st = gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory to start the engine's completion threads", where);
        else x->lane[i].th_ok = 1;
    }
    for (i = 0; i < x->nworkers && st == GK_OK; i++) {
        if (gk__thread_create(&x->workers[i], gk__xfer_worker, x) != 0)
            st = gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory to start staging thread %d of %d", where, i + 1, x->nworkers);
        else x->nworkers_ok++;
    }
    nthreads = x->nworkers_ok + x->lane[0].th_ok + x->lane[1].th_ok;
    gk__lock(&x->mu);
    while (x->ntids < nthreads) gk__cond_wait(&x->cv_done, &x->mu);
    gk__unlock(&x->mu);
    if (st == GK_OK) x->started = 1;
    x->st.chunk_bytes = x->chunk;
    x->st.staging_bytes = x->chunk * (size_t)x->nslots;
    x->st.workers = x->nworkers;
    x->st.buffers = x->nslots;
    return st;
}

/* Stops an engine and frees it (no lock held): cancels what is not issued,
   waits for the rest and for the calls inside. */
static void gk__xfer_stop(gk_xfer *x) {
    gk__xreq *r;
    gk__bind(x->ctx); /* (cancelling records events; the calling thread may not have used the context) */
    gk__lock(&x->mu);
    x->closing = 1;
    while ((r = x->pend) != NULL) {
        char msg[200];
        snprintf(msg, sizeof msg, "%s: cancelled (the engine was destroyed before its chunks were issued)", r->where);
        gk__xreq_fail(x, r, GK_ERR_CANCELLED, msg);
    }
    while (x->active > 0 || x->callers > 0) gk__cond_wait(&x->cv_done, &x->mu);
    gk__unlock(&x->mu);
    gk__xfer_free(x);
}

/* context teardown, before the context's lock is taken: every engine of the
   context stopped and freed */
static void gk__xfer_destroy_all(gk_ctx *ctx) {
    gk_xfer *list, *own;
    gk__lock(&ctx->mu);
    list = ctx->xfers;
    own = ctx->xfer;
    ctx->xfers = NULL;
    ctx->xfer = NULL;
    gk__unlock(&ctx->mu);
    while (list) {
        gk_xfer *nx = list->next;
        gk__xfer_stop(list);
        list = nx;
    }
    if (own) gk__xfer_stop(own);
}

/* The context's engine (ctx->mu held): made when missing (desc NULL:
   defaults), started when `start`. */
static gk_status gk__xfer_ctx_locked(gk_ctx *ctx, const gk_xfer_desc *desc, int start, gk_xfer **out, const char *where) {
    gk_xfer_desc d;
    gk_status st;
    *out = NULL;
    if (ctx->xfer && ctx->xfer->started && desc)
        return gk__err(ctx, GK_ERR_STATE, "%s: the context's engine runs already; its desc applies only on the call that makes it", where);
    if (ctx->xfer && !desc && (ctx->xfer->started || !start)) { *out = ctx->xfer; return GK_OK; }
    GK__TRY(gk__xfer_desc_resolve(ctx, desc, 1, &d, where));
    GK__TRY(gk__bind(ctx));
    if (!ctx->xfer) {
        gk_xfer *x;
        GK__TRY(gk__xfer_new(ctx, &d, 1, &x, where));
        ctx->xfer = x;
    } else if (!ctx->xfer->started && desc) {
        /* made for the pool (streams only): this desc applies; the streams are idle (ctx->mu is held) */
        gk_xfer *x = ctx->xfer;
        int i;
        gk_stream *ns[2] = { NULL, NULL };
        st = gk__xfer_lane_stream(ctx, d.h2d_priority, &ns[0], where);
        if (st == GK_OK) st = gk__xfer_lane_stream(ctx, d.d2h_priority, &ns[1], where);
        if (st != GK_OK) {
            for (i = 0; i < 2; i++) if (ns[i]) gk__stream_free_struct(ctx, ns[i]);
            return st;
        }
        for (i = 0; i < 2; i++) {
            if (x->lane[i].s) gk__stream_free_struct(ctx, x->lane[i].s);
            x->lane[i].s = ns[i];
        }
        x->desc = d;
        x->chunk = d.chunk_bytes;
    }
    if (start && !ctx->xfer->started) {
        st = gk__xfer_start(ctx->xfer, where);
        if (st != GK_OK) {
            /* back to no engine: what it made is freed */
            gk_xfer *x = ctx->xfer;
            ctx->xfer = NULL;
            gk__xfer_free(x); /* (its threads never take ctx->mu while nothing was submitted) */
            return st;
        }
    }
    *out = ctx->xfer;
    return GK_OK;
}

GKDEF gk_status gk_xfer_create(gk_ctx *ctx, const gk_xfer_desc *desc, gk_xfer **out) {
    const char *W = "gk_xfer_create";
    gk_xfer_desc d;
    gk_xfer *x = NULL;
    gk_status st;
    if (out) *out = NULL;
    GK__ENTER(ctx, W);
    if (!out) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    else st = gk__xfer_desc_resolve(ctx, desc, 0, &d, W);
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK) st = gk__xfer_new(ctx, &d, 0, &x, W);
    gk__unlock(&ctx->mu);
    if (st != GK_OK) return st;
    /* the ring and the threads without the lock: nothing else knows x yet */
    st = gk__xfer_start(x, W);
    if (st != GK_OK) { gk__xfer_free(x); return st; }
    gk__enter(ctx);
    x->next = ctx->xfers;
    ctx->xfers = x;
    gk__unlock(&ctx->mu);
    *out = x;
    return GK_OK;
}

GKDEF gk_status gk_xfer_default(gk_ctx *ctx, const gk_xfer_desc *desc, gk_xfer **out) {
    const char *W = "gk_xfer_default";
    gk_status st;
    if (out) *out = NULL;
    GK__ENTER(ctx, W);
    if (!out) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    else st = gk__xfer_ctx_locked(ctx, desc, 1, out, W);
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_xfer_destroy(gk_xfer *x) {
    const char *W = "gk_xfer_destroy";
    gk_ctx *ctx;
    gk_xfer **pp;
    int own, found = 0;
    if (!x) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "%s: x is NULL", W);
    ctx = x->ctx;
    gk__lock(&x->mu);
    own = gk__xfer_own_thread(x);
    gk__unlock(&x->mu);
    if (own) return gk__err(ctx, GK_ERR_STATE, "%s: called from the engine's own thread (a completion callback): it would wait for itself", W);
    GK__ENTER(ctx, W);
    if (x->is_ctx) {
        gk__unlock(&ctx->mu);
        return gk__err(ctx, GK_ERR_STATE, "%s: the context's own engine (gk_xfer_default) is destroyed with the context", W);
    }
    for (pp = &ctx->xfers; *pp; pp = &(*pp)->next)
        if (*pp == x) { *pp = x->next; found = 1; break; }
    gk__unlock(&ctx->mu);
    if (!found) return gk__err(ctx, GK_ERR_STATE, "%s: the engine is being destroyed already", W);
    gk__xfer_stop(x);
    return GK_OK;
}

/* ---- submitting ---- */
/* 1 when [p, p + n) is page-locked host memory the driver knows (ctx->mu held, CUDA). */
static int gk__xfer_pinned(gk_ctx *ctx, const void *p, size_t n) {
    unsigned mt = 0, fl = 0;
    gk__cu_ptr a = (gk__cu_ptr)(uintptr_t)p, start = 0;
    size_t size = 0;
    if (ctx->cu.PointerGetAttribute) {
        if (ctx->cu.PointerGetAttribute(&mt, GK__CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a) != 0 || mt != GK__CU_MEMORYTYPE_HOST) return 0;
        if (ctx->cu.PointerGetAttribute(&start, GK__CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, a) == 0 &&
            ctx->cu.PointerGetAttribute(&size, GK__CU_POINTER_ATTRIBUTE_RANGE_SIZE, a) == 0 && size)
            return a >= start && a - start <= size && n <= size - (size_t)(a - start);
        mt = 0; /* no range: both ends pinned */
        return ctx->cu.PointerGetAttribute(&mt, GK__CU_POINTER_ATTRIBUTE_MEMORY_TYPE, a + n - 1) == 0 && mt == GK__CU_MEMORYTYPE_HOST;
    }
    return ctx->cu.MemHostGetFlags && ctx->cu.MemHostGetFlags(&fl, (void *)(uintptr_t)p) == 0;
}

static gk_status gk__xfer_submit(gk_xfer *x, int kind, gk_tensor t, size_t offset, unsigned char *host, const char *path, int fd,
                                 uint64_t foff, size_t n, const gk_xfer_opts *opts, gk_xfer_id *id, const char *W) {
    gk_ctx *ctx;
    gk__xreq *r;
    gk__slot *sl;
    gk__block *b = NULL;
    gk_status st = GK_OK;
    int own_fd = 0, pinned = 0, cuda;
    char fdname[32];
    if (id) *id = 0;
    if (!x) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "%s: x is NULL", W);
    ctx = x->ctx;
    cuda = ctx->backend == GK_BACKEND_CUDA;
    if (opts && (opts->host < GK_XFER_HOST_DETECT || opts->host > GK_XFER_HOST_PAGEABLE))
        return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: opts->host = %d is not a GK_XFER_HOST_* value", W, opts->host);
    if (kind != GK__XK_FILE && n && !host)
        return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL but nbytes is %zu", W, kind == GK__XK_UP ? "src" : "dst", n);
    if (kind == GK__XK_FILE) {
        uint64_t fsz = 0;
        int k;
        snprintf(fdname, sizeof fdname, "fd %d", fd);
        if (fd < 0 && !path) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: path is NULL and fd is %d (one of them names the file)", W, fd);
        if (fd < 0) {
            if ((fd = gk__xfer_open(path)) < 0) return gk__err(ctx, GK_ERR_IO, "%s: cannot open '%s': %s", W, path, gk__xfer_syserr());
            own_fd = 1;
        }
        k = gk__xfer_fsize(fd, &fsz);
        if (k < 0) st = gk__err(ctx, GK_ERR_IO, "%s: cannot get the size of '%s': %s", W, path ? path : fdname, gk__xfer_syserr());
        else if (k > 0 && (foff > fsz || n > fsz - foff))
            st = gk__err(ctx, GK_ERR_IO, "%s: '%s' is too short: it has %llu bytes, bytes %llu..%llu were asked for", W, path ? path : fdname,
                         (unsigned long long)fsz, (unsigned long long)foff, (unsigned long long)(foff + n));
        if (st != GK_OK) { if (own_fd) gk__xfer_close(fd); return st; }
    }
    r = GK__CALLOC(gk__xreq, 1);
    if (r && path && (r->path = (char *)GPUKIT_MALLOC(strlen(path) + 1)) != NULL) memcpy(r->path, path, strlen(path) + 1);
    if (!r || (path && !r->path)) {
        if (r) GPUKIT_FREE(r);
        if (own_fd) gk__xfer_close(fd);
        return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
    }
    r->kind = kind;
    r->lane = kind == GK__XK_DOWN ? GK__XL_D2H : GK__XL_H2D;
    r->prio = opts ? opts->priority : 0;
    r->fn = opts ? opts->done : NULL;
    r->user = opts ? opts->user : NULL;
    r->where = W;
    r->host = host;
    r->fd = fd;
    r->own_fd = own_fd;
    r->foff = foff;
    r->len = n;
    gk__enter(ctx);
    st = gk__lookup(ctx, t, &sl, W, kind == GK__XK_DOWN ? "src" : "dst");
    if (st == GK_OK) {
        size_t nb = (size_t)gk__numel(sl) * gk__dtype_sizes[sl->dtype];
        if (!gk__is_contig(sl)) st = gk__err(ctx, GK_ERR_SHAPE, "%s: the tensor is not contiguous (use gk_contiguous first)", W);
        else if (offset > nb || n > nb - offset)
            st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: bytes %zu..%zu are outside the tensor, which holds %zu bytes", W, offset, offset + n, nb);
    }
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK && n) {
        if (kind != GK__XK_FILE)
            pinned = opts && opts->host == GK_XFER_HOST_PINNED ? 1 : opts && opts->host == GK_XFER_HOST_PAGEABLE ? 0 : cuda && gk__xfer_pinned(ctx, host, n);
        b = sl->blk;
        if (b->state == GK__BLK_EVICTED) st = gk__pool_restore(ctx, b, ctx->cur_stream, W);
        if (st == GK_OK) {
            gk__pool *P = &ctx->pool;
            b->tick = ++P->tick;
            if (!b->foreign && P->live_tail != b) {
                gk__list_remove(&P->live_head, &P->live_tail, b);
                gk__list_push(&P->live_head, &P->live_tail, b);
            }
            b->pins++;
            r->blk = b;
            r->dev = gk__slot_addr(sl) + (gk__cu_ptr)offset;
        }
    }
    r->direct = pinned;
    r->prof = ctx->prof != NULL;
    if (st == GK_OK) {
        gk__lock(&x->mu);
        if (x->closing) st = gk__err(ctx, GK_ERR_STATE, "%s: the engine is being destroyed", W);
        else if (!x->started) st = gk__err(ctx, GK_ERR_STATE, "%s: the engine is not running", W);
        else if (!gk__xreq_hash_room(x)) st = gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
        if (st == GK_OK && cuda) {
            if (!(r->done_ev = gk__xfer_event_get(x))) st = gk__err(ctx, GK_ERR_CUDA, "%s: cuEventCreate failed", W);
            else if (b && (b->stream ? b->stream : ctx->cur_stream) && !(b->stream ? b->stream : ctx->cur_stream)->capture) {
                /* the copy stream first waits for the work queued so far on the tensor's stream or, for
                   storage not used since it was allocated, on the calling thread's current stream: the
                   pool hands a block back to that stream while its last user's kernels may still read it */
                gk_stream *ws = b->stream ? b->stream : ctx->cur_stream;
                if (!(r->ready = gk__xfer_event_get(x))) st = gk__err(ctx, GK_ERR_CUDA, "%s: cuEventCreate failed", W);
                else {
                    gk__cu_result e = ctx->cu.EventRecord(r->ready, ws->cu);
                    if (e != 0) st = gk__cu_fail(ctx, e, W, "cuEventRecord");
                }
            }
        }
        if (st == GK_OK) {
            r->id = x->next_id++;
            gk__xreq_hash_add(x, r);
            r->aprev = x->act_tail;
            if (x->act_tail) x->act_tail->anext = r;
            else x->act_head = r;
            x->act_tail = r;
            if (x->active++ == 0) x->busy_t0 = gk__now_ms();
            if (n) {
                gk__xfer_pend_add(x, r);
                gk__cond_broadcast(&x->cv_work);
            } else gk__xreq_mark(x, r);
            if (x->ndone_ok > GK__XFER_KEEP) gk__xfer_prune(x);
            if (id) *id = r->id;
        } else if (cuda) {
            gk__xfer_event_put(x, r->done_ev);
            gk__xfer_event_put(x, r->ready);
        }
        gk__unlock(&x->mu);
    }
    if (st != GK_OK) {
        if (r->blk) gk__block_unpin(ctx, r->blk);
        if (own_fd) gk__xfer_close(fd);
        GPUKIT_FREE(r->path);
        GPUKIT_FREE(r);
    }
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_xfer_upload(gk_xfer *x, gk_tensor dst, size_t offset, const void *src, size_t nbytes, const gk_xfer_opts *opts,
                               gk_xfer_id *id) {
    return gk__xfer_submit(x, GK__XK_UP, dst, offset, (unsigned char *)(uintptr_t)src, NULL, -1, 0, nbytes, opts, id, "gk_xfer_upload");
}
GKDEF gk_status gk_xfer_download(gk_xfer *x, gk_tensor src, size_t offset, void *dst, size_t nbytes, const gk_xfer_opts *opts,
                                 gk_xfer_id *id) {
    return gk__xfer_submit(x, GK__XK_DOWN, src, offset, (unsigned char *)dst, NULL, -1, 0, nbytes, opts, id, "gk_xfer_download");
}
GKDEF gk_status gk_xfer_upload_file(gk_xfer *x, gk_tensor dst, size_t offset, const char *path, int fd, uint64_t file_offset,
                                    size_t nbytes, const gk_xfer_opts *opts, gk_xfer_id *id) {
    return gk__xfer_submit(x, GK__XK_FILE, dst, offset, NULL, path, fd, file_offset, nbytes, opts, id, "gk_xfer_upload_file");
}

/* ---- waiting ---- */
/* Takes x->mu for a public call (counted, so destroy waits for it to leave). */
static gk_status gk__xfer_in(gk_xfer *x, const char *W) {
    if (!x) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "%s: x is NULL", W);
    gk__bind(x->ctx); /* (freeing a request may destroy an event) */
    gk__lock(&x->mu);
    x->callers++;
    return GK_OK;
}
static void gk__xfer_out(gk_xfer *x) {
    if (--x->callers == 0 && x->closing) gk__cond_broadcast(&x->cv_done);
    gk__unlock(&x->mu);
}
static gk_status gk__xfer_bad_id(gk_xfer *x, uint64_t id, const char *W) {
    if (id == 0) return gk__err(x->ctx, GK_ERR_INVALID_ARGUMENT, "%s: id 0 is no request", W);
    if (id >= x->next_id)
        return gk__err(x->ctx, GK_ERR_INVALID_ARGUMENT, "%s: id %llu is not a request of this engine (it has made %llu)", W,
                       (unsigned long long)id, (unsigned long long)(x->next_id - 1));
    return GK_OK;
}
/* Reports a done request's status to the caller (x->mu held). */
static gk_status gk__xfer_take(gk_xfer *x, gk__xreq *r, char *msg, size_t cap) {
    gk_status st = r->status;
    if (st != GK_OK) snprintf(msg, cap, "%s", r->msg);
    gk__xreq_report(x, r);
    return st;
}

GKDEF gk_status gk_xfer_wait(gk_xfer *x, gk_xfer_id id, double timeout_ms) {
    const char *W = "gk_xfer_wait";
    gk__xreq *r;
    gk_status st;
    char msg[400];
    double end = timeout_ms > 0 ? gk__now_ms() + timeout_ms : 0;
    GK__TRY(gk__xfer_in(x, W));
    if ((st = gk__xfer_bad_id(x, id, W)) != GK_OK || !(r = gk__xreq_find(x, id))) { gk__xfer_out(x); return st; }
    if (r->state != GK__XR_DONE && timeout_ms != 0 && gk__xfer_own_thread(x)) {
        gk__xfer_out(x);
        return gk__err(x->ctx, GK_ERR_STATE, "%s: called from the engine's own thread (a completion callback) on request %llu, which is in flight: it would wait for itself",
                       W, (unsigned long long)id);
    }
    r->waiters++;
    while (r->state != GK__XR_DONE) {
        if (timeout_ms < 0) gk__cond_wait(&x->cv_done, &x->mu);
        else {
            double left = end - gk__now_ms();
            if (timeout_ms == 0 || left <= 0) break;
            gk__cond_timedwait(&x->cv_done, &x->mu, left);
        }
    }
    r->waiters--;
    if (r->state != GK__XR_DONE) {
        gk__xfer_out(x);
        return gk__err(x->ctx, GK_ERR_TIMEOUT, "%s: request %llu is still in flight after %.1f ms", W, (unsigned long long)id, timeout_ms);
    }
    st = gk__xfer_take(x, r, msg, sizeof msg);
    gk__xfer_out(x);
    if (st != GK_OK) gk__err(x->ctx, st, "%s", msg);
    return st;
}

GKDEF gk_status gk_xfer_query(gk_xfer *x, gk_xfer_id id, int *done) {
    const char *W = "gk_xfer_query";
    gk__xreq *r;
    gk_status st;
    char msg[400];
    if (done) *done = 0;
    GK__TRY(gk__xfer_in(x, W));
    if (!done) st = gk__err(x->ctx, GK_ERR_INVALID_ARGUMENT, "%s: done is NULL", W);
    else st = gk__xfer_bad_id(x, id, W);
    if (st != GK_OK) { gk__xfer_out(x); return st; }
    r = gk__xreq_find(x, id);
    if (!r || r->state == GK__XR_DONE) {
        *done = 1;
        if (r) st = gk__xfer_take(x, r, msg, sizeof msg);
    }
    gk__xfer_out(x);
    if (st != GK_OK) gk__err(x->ctx, st, "%s", msg);
    return st;
}

GKDEF gk_status gk_xfer_flush(gk_xfer *x) {
    const char *W = "gk_xfer_flush";
    gk__xreq *r, *nx, *first = NULL;
    gk_status st = GK_OK;
    uint64_t mark;
    char msg[400];
    GK__TRY(gk__xfer_in(x, W));
    mark = x->next_id;
    if (x->act_head && x->act_head->id < mark && gk__xfer_own_thread(x)) {
        gk__xfer_out(x);
        return gk__err(x->ctx, GK_ERR_STATE, "%s: called from the engine's own thread (a completion callback) with requests in flight: it would wait for itself", W);
    }
    while (x->act_head && x->act_head->id < mark) gk__cond_wait(&x->cv_done, &x->mu);
    for (r = x->done_head; r; r = r->dnext)
        if (r->id < mark && r->status != GK_OK && !r->reported && (!first || r->id < first->id)) first = r;
    if (first) {
        st = first->status;
        snprintf(msg, sizeof msg, "%s", first->msg);
    }
    for (r = x->done_head; r; r = nx) {
        nx = r->dnext;
        if (r->id < mark && !r->reported) gk__xreq_report(x, r);
    }
    gk__xfer_out(x);
    if (st != GK_OK) gk__err(x->ctx, st, "%s", msg);
    return st;
}

GKDEF gk_status gk_xfer_stream_wait(gk_xfer *x, gk_xfer_id id, gk_stream *s) {
    const char *W = "gk_xfer_stream_wait";
    gk__xreq *r;
    gk_status st;
    gk_ctx *ctx;
    gk__cu_event ev = NULL;
    int cpu;
    GK__TRY(gk__xfer_in(x, W));
    ctx = x->ctx;
    cpu = ctx->backend != GK_BACKEND_CUDA;
    if ((st = gk__xfer_bad_id(x, id, W)) != GK_OK || !(r = gk__xreq_find(x, id))) { gk__xfer_out(x); return st; }
    /* on the host: until its event is recorded (CPU: until it is done) */
    if ((cpu ? r->state != GK__XR_DONE : r->state == GK__XR_QUEUED) && gk__xfer_own_thread(x)) {
        gk__xfer_out(x);
        return gk__err(ctx, GK_ERR_STATE, "%s: called from the engine's own thread (a completion callback) on request %llu, whose copies are not issued: it would wait for itself",
                       W, (unsigned long long)id);
    }
    r->waiters++;
    while (cpu ? r->state != GK__XR_DONE : r->state == GK__XR_QUEUED) gk__cond_wait(&x->cv_done, &x->mu);
    if (!cpu && r->state != GK__XR_DONE && r->ev_ok) ev = r->done_ev;
    gk__unlock(&x->mu);
    /* then the stream, under the context's lock (ctx->mu before x->mu: x->mu is not held here) */
    gk__enter(ctx);
    if (!s) s = ctx->cur_stream;
    st = gk__find_stream(ctx, s, W);
    if (st == GK_OK && s->capture) st = gk__err(ctx, GK_ERR_STATE, "%s: the stream is capturing a graph", W);
    if (st == GK_OK && ev) {
        gk__cu_result e;
        st = gk__bind(ctx);
        if (st == GK_OK && (e = ctx->cu.StreamWaitEvent(s->cu, ev, 0)) != 0) st = gk__cu_fail(ctx, e, W, "cuStreamWaitEvent");
    }
    gk__unlock(&ctx->mu);
    gk__lock(&x->mu);
    if (--r->waiters == 0 && r->reported) gk__xreq_free(x, r);
    gk__xfer_out(x);
    return st;
}

GKDEF gk_status gk_xfer_stats_get(gk_xfer *x, gk_xfer_stats *out) {
    const char *W = "gk_xfer_stats_get";
    double ms;
    GK__TRY(gk__xfer_in(x, W));
    if (!out) {
        gk__xfer_out(x);
        return gk__err(x->ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    }
    *out = x->st;
    out->pending = (uint64_t)x->active;
    ms = x->busy_ms + (x->active ? gk__now_ms() - x->busy_t0 : 0);
    out->busy_ms = ms;
    out->gbps = ms > 0 ? (double)(out->bytes_h2d + out->bytes_d2h) / (ms * 1e6) : 0;
    gk__xfer_out(x);
    return GK_OK;
}

/* ---- the pool's eviction and restore ---- */
/* n bytes between device memory and a pageable host buffer (ctx->mu held,
   CUDA): through two pinned bounce buffers of the context's engine on its copy
   streams, the host memcpy of one piece overlapping the DMA of the next; done
   when it returns. Without them (no engine, no pinned memory): one copy on
   the engine's stream, or a plain synchronous copy. */
static gk_status gk__xfer_block_copy(gk_ctx *ctx, int to_device, gk__cu_ptr dev, void *host, size_t n, const char *where) {
    const char *call = to_device ? "cuMemcpyHtoDAsync_v2 (restore)" : "cuMemcpyDtoHAsync_v2 (eviction)";
    unsigned char *h = (unsigned char *)host;
    gk_xfer *x = NULL;
    gk_stream *s;
    gk__cu_result e = 0;
    size_t off, m, bn;
    int i, rec = -1, used[2] = { 0, 0 };
    {
        char save[GK__ERRBUF];
        gk__err_save(ctx, save);
        if (gk__xfer_ctx_locked(ctx, NULL, 0, &x, where) != GK_OK) x = NULL;
        gk__err_restore(ctx, save);
    }
    if (!x) {
        e = to_device ? ctx->cu.MemcpyHtoD(dev, host, n) : ctx->cu.MemcpyDtoH(host, dev, n);
        return e ? gk__cu_fail(ctx, e, where, to_device ? "cuMemcpyHtoD_v2 (restore)" : "cuMemcpyDtoH_v2 (eviction)") : GK_OK;
    }
    s = x->lane[to_device ? GK__XL_H2D : GK__XL_D2H].s;
    if (!x->bounce[0] && !x->bounce_failed) {
        x->bounce_n = x->chunk < GK__XFER_BOUNCE ? x->chunk : GK__XFER_BOUNCE;
        for (i = 0; i < 2; i++)
            if (ctx->cu.MemAllocHost(&x->bounce[i], x->bounce_n) != 0 ||
                ctx->cu.EventCreate(&x->bounce_ev[i], GK__CU_EVENT_BLOCKING_SYNC | GK__CU_EVENT_DISABLE_TIMING) != 0)
                x->bounce_failed = 1;
        if (x->bounce_failed)
            for (i = 0; i < 2; i++) {
                if (x->bounce[i]) ctx->cu.MemFreeHost(x->bounce[i]);
                if (x->bounce_ev[i]) ctx->cu.EventDestroy(x->bounce_ev[i]);
                x->bounce[i] = NULL;
                x->bounce_ev[i] = NULL;
            }
    }
    if (ctx->prof) {
        gk__prof_note(ctx, (double)n, 0);
        rec = gk__prof_begin(ctx, s, to_device ? "pool restore HtoD" : "pool evict DtoH", to_device ? GK__PROF_H2D : GK__PROF_D2H);
    }
    if (!x->bounce[0]) { /* pageable, on the copy stream */
        e = to_device ? ctx->cu.MemcpyHtoDAsync(dev, host, n, s->cu) : ctx->cu.MemcpyDtoHAsync(host, dev, n, s->cu);
        if (rec >= 0) gk__prof_end(ctx, s, rec);
        if (e == 0) e = ctx->cu.StreamSynchronize(s->cu);
        return e ? gk__cu_fail(ctx, e, where, call) : GK_OK;
    }
    bn = x->bounce_n;
    if (to_device) {
        for (off = 0, i = 0; off < n && e == 0; off += m, i ^= 1) {
            m = n - off < bn ? n - off : bn;
            if (used[i] && (e = ctx->cu.EventSynchronize(x->bounce_ev[i])) != 0) { call = "cuEventSynchronize (restore)"; break; }
            memcpy(x->bounce[i], h + off, m);
            if ((e = ctx->cu.MemcpyHtoDAsync(dev + off, x->bounce[i], m, s->cu)) == 0 &&
                (e = ctx->cu.EventRecord(x->bounce_ev[i], s->cu)) == 0) used[i] = 1;
        }
    } else {
        /* piece k goes to buffer k % 2; it is copied out while piece k + 1's DMA runs */
        size_t poff[2] = { 0, 0 }, plen[2] = { 0, 0 };
        off = 0;
        for (i = 0;; i ^= 1) {
            if (off < n && e == 0) {
                m = n - off < bn ? n - off : bn;
                if ((e = ctx->cu.MemcpyDtoHAsync(x->bounce[i], dev + off, m, s->cu)) == 0 &&
                    (e = ctx->cu.EventRecord(x->bounce_ev[i], s->cu)) == 0) {
                    used[i] = 1;
                    poff[i] = off;
                    plen[i] = m;
                    off += m;
                }
            }
            if (!used[i ^ 1]) { if (!used[i] || e) break; continue; }
            if ((e = ctx->cu.EventSynchronize(x->bounce_ev[i ^ 1])) != 0) { call = "cuEventSynchronize (eviction)"; break; }
            memcpy(h + poff[i ^ 1], x->bounce[i ^ 1], plen[i ^ 1]);
            used[i ^ 1] = 0;
            if (!used[i] && off >= n) break;
        }
    }
    if (rec >= 0) gk__prof_end(ctx, s, rec);
    /* the bounce buffers are idle again (also after a failure) */
    for (i = 0; i < 2; i++)
        if (used[i]) {
            gk__cu_result e2 = ctx->cu.EventSynchronize(x->bounce_ev[i]);
            if (e == 0 && e2 != 0) { e = e2; call = "cuEventSynchronize"; }
        }
    return e ? gk__cu_fail(ctx, e, where, call) : GK_OK;
}
/* ------------------------------------------------------------------------ */
