/* >>internals: the context, slot and block structs every section uses */
/* ------------------------------------------------------------------------ */
/* context internals (used by every section below) */
typedef struct gk__block gk__block;
typedef struct gk__capture gk__capture;

#define GK__PACE_RING 64
struct gk_stream {
    gk__cu_stream cu;           /* NULL on CPU */
    gk_stream_priority priority;
    gk__capture *capture;       /* non-NULL while a graph is being captured */
    gk_stream *next;            /* context's list */
    uint64_t serial;            /* its number in the context (from 1, never reused; 0 the default stream) */
    /* the dispatch controller (>>dispatch): launches through it, and the
       bound on work in flight (0: none) kept with one event a launch */
    uint64_t launches;          /* kernels launched on it */
    uint64_t paced_waits;       /* calls that waited for its in-flight work to fall under the bound */
    double paced_ms;            /* ... and how long they waited in all */
    int max_inflight;           /* 0: unbounded; else at most this many launches in flight (1..GK__PACE_RING-1) */
    int held;                   /* the scheduler holds its launches (>>sched): calls entering on it wait on ctx->pace_cv ... */
    double hold_until;          /* ... until released (0) or until this time (gk__now_ms) */
    gk__cu_event *ring;         /* GK__PACE_RING events, made when a bound is first set (CUDA) */
    unsigned ring_head, ring_tail; /* recorded, not known complete: [head, tail) */
    int waiters;                /* threads waiting on it with the context's lock released */
    int dead;                   /* destroyed while waited on: the last waiter frees it */
};
struct gk_event {
    gk__cu_event cu;
    double host_ms;             /* CPU backend: time of the record */
    int recorded;
    int waiters;                /* threads in gk_event_sync with the context's lock released */
    gk_event *next;
};

typedef struct gk__slot {       /* one tensor handle */
    uint32_t gen;               /* generation: bumped on free */
    int live;
    gk__block *blk;             /* NULL for zero-size tensors */
    gk_dtype dtype;
    int ndim;
    int64_t shape[GK_MAX_DIMS];
    int64_t strides[GK_MAX_DIMS];
    int64_t offset;
    int is_view;
    uint32_t idx;               /* own index in the table */
    uint32_t next_free;
} gk__slot;

#define GK__SLOT_PAGE 1024
#define GK__NUM_CLASSES 96
#define GK__ERRBUF 4096

typedef struct gk__pool {
    gk__block *live_head, *live_tail;     /* resident live blocks, least recently used first */
    gk__block *cache_head, *cache_tail;   /* cached free blocks, oldest first */
    gk__block *evict_head, *evict_tail;   /* live blocks evicted to host memory */
    gk__block *wrap_head, *wrap_tail;     /* foreign memory of gk_tensor_wrap: never counted, moved or freed */
    gk__block *cls_head[GK__NUM_CLASSES + 1]; /* per size class free lists (last: large) */
    size_t used, cached, peak, quota, evicted, pinned;
    uint64_t tick;
    gk_pool_stats st;
} gk__pool;

typedef struct gk__libmod {     /* a library kernel module, loaded lazily */
    gk__cu_module mod;
    int tried;
    gk_status status;
    struct { const char *name; gk__cu_function fn; } fns[256];
    int nfns;
} gk__libmod;

typedef struct gk__modrec gk__modrec;

/* The ops' tuning knobs and launch counters, one set a context: tests and
   benchmarks (they include the implementation) force each kernel path
   through the knobs and check which ran through the counters, on one context
   without touching another. gk_ctx_create sets the defaults (the
   dispatchers' own rules); the ops read the knobs and count their launches
   while they hold ctx->mu, and gk__tune(ctx) is the one way in from outside.
   Knobs: -1 (or 0 where noted) is the dispatcher's choice. The environment
   switches GPUKIT_PDL, GPUKIT_GEMM_WGMMA and GPUKIT_ATTN_WGMMA ("0": off)
   set pdl, wg_mode and fwg_mode when the context is created. */
typedef struct gk__tuning {
    int pdl;                /* 1: programmatic dependent launches where they apply (sm_90+); 0: never (GPUKIT_PDL=0) */
    /* decode attention (gk_attention with one query; src/ops/attention/attention.c) */
    int dec_variant;        /* -1 the dispatcher; 0 gk_attn_dec; 3 gk_attn_dec3; 5 gk_attn_dec4t (9.0+, where its maps build) */
    int64_t dec4t_from;     /* the dispatcher's switch to gk_attn_dec4t on 9.0+, in keys of cache; negative: never */
    int dec4t_stages;       /* gk_attn_dec4t's ring depth; 0: GK__DEC4T_STAGES */
    int64_t dec4t_min_keys; /* gk_attn_dec4t's fewest keys a split; 0: GK__DEC4T_MIN_KEYS */
    int dec4t_blocks_sm;    /* gk_attn_dec4t's splits sized for this many blocks a SM; 0: its rule */
    int dec4t_pad;          /* 1: gk_attn_dec4t sized for one block a SM takes more than half the SM's shared memory */
    int dec3_per_sm;        /* gk_attn_dec3's splits sized for this many blocks a SM */
    int64_t dec3_one_split; /* caches of at most this many keys take one split (no combine) */
    int combine_one_round;  /* 1: gk_attn_combine's one-round form where it applies; 0: its three-round form */
    int dec_prefetch;       /* 64-key tiles a split prefetched into L2 before the PDL wait; -1: each kernel's default */
    int dec_fold;           /* 1: the splits combine themselves where the grid is one wave; 0: gk_attn_combine */
    long dec3_launches, dec4t_launches; /* launches of each decode kernel */
    long dec3_direct;       /* decode launches of one split that wrote the output */
    long dec_fold_launches; /* decode launches whose splits combined themselves */
    /* prefill attention on 9.0 (src/ops/attention/flash_wg.cu) */
    int fwg_mode;           /* -1: flash_wg wherever gk__fwg_ok takes the problem; 0: never (flash.cu) */
    int64_t fwg_group;      /* heads a tile group; 0: gk__fwg_group_for's choice */
    long fwg_launches;
    /* GEMV and GEMM (src/ops/matmul/gemm.c) */
    int gemv_force_cfg;     /* -1: gk__gemv_cfg's table; else that GEMV configuration */
    int gemv_smalln;        /* 1: gk__gemv_cfg's rule for few output rows; 0: off */
    int wg_mode;            /* -1: the wgmma GEMM wherever gk__wg_ok takes the problem; 0: never (gemm_tc) */
    long wg_launches;
    int sg_variant;         /* exact f32 GEMM: -1 the rule; 0 k tile 8; 1 k tile 16 (f32 out) */
    int sg_last;            /* the variant of its last launch */
    int sg_mode;            /* -1: the exact f32 GEMM wherever gk__sg_ok takes the problem; 0: never (SIMT) */
    long sg_launches;
    /* reductions (src/core/launch.c gk__counters, src/ops/math/reduce.c) */
    int ctr_off;            /* 1: no arrival counters, so split reductions merge in a second kernel */
    long red_fused;         /* split reductions merged by their last block */
    /* layer norm (src/ops/nn/norm.c) */
    int ln_variant;         /* -1 the rule; 0 gk_rownorm; 1 gk_lnwarp; 3 gk_lnorm_p (where it applies) */
    int ln_last;            /* the variant of the last CUDA gk_layer_norm; -1 another kernel */
} gk__tuning;

/* What one thread has set on one context: its current stream (gk_set_stream)
   and the NVRTC log of its last compile (gk_jit_log). A record exists only
   while one of them is set; the thread is gk__thread_id()'s number. */
/* Memory accounting of a scheduled task (>>sched): the pool charges every
   block a thread allocates while a tenant is set on it (gk__thread_rec) to
   that tenant, refuses allocations past its limit, and keeps best-effort
   tenants out of memory that reservations hold (ctx->tenants). */
typedef struct gk__tenant {
    char name[64];              /* for messages: the task's name */
    size_t reserve;             /* bytes reserved for it (Guaranteed, Burstable request) */
    size_t limit;               /* bytes it may hold; 0: no limit of its own */
    size_t used;                /* bytes of live blocks charged to it */
    size_t peak;                /* the most it held at once */
    int qos;                    /* gk_qos */
    int linked;                 /* on ctx->tenants */
    struct gk__tenant *next;
} gk__tenant;

typedef struct gk__thread_rec {
    uint64_t thread;
    gk_stream *stream;          /* NULL: the default stream */
    char *jit_log;
    gk__tenant *tenant;         /* set while the thread runs a scheduled task */
} gk__thread_rec;

struct gk_ctx {
    gk_backend backend;
    uint64_t serial;            /* this context's number in the process (from 1, never reused):
                                   stamped into its tensor handles and keys its per-thread errors */
    gk_ctx_desc desc;
    gk_device_info info;
    gk__mutex mu;               /* held by every call on the context (gk__enter) */
    gk__cond pace_cv;           /* with mu: threads waiting for a held stream (gk__pace_wait) */
    gk__thread_rec *threads;    /* per-thread streams and JIT logs */
    int nthreads, capthreads;
    char **lib_headers;         /* the embedded kernel headers, joined on the first compile */
    unsigned cache_tmp;         /* kernel cache: temporary file names */
    char nvrtc_why[512];        /* why NVRTC is not loaded ("" when it is) */
    /* libraries */
    gk__lib cu_lib, nvrtc_lib, cublaslt_lib;
    gk__cu_api cu;
    gk__nvrtc_api nvrtc;
    gk__cublaslt_api lt;
    gk__cu_device dev;
    gk__cu_ctx cuctx;
    int prio_least, prio_greatest;
    int nvrtc_archs[64], n_nvrtc_archs;
    /* streams, events, graphs, modules */
    gk_stream default_stream;
    gk_stream *cur_stream;      /* the calling thread's current stream, set by gk__enter */
    gk_stream *streams;
    gk_event *events;
    gk_graph *graphs;
    gk_module *modules;
    gk__modrec *modcache;
    uint64_t capture_serial;
    uint64_t stream_serial;     /* the last stream's serial */
    gk__block *ws;              /* op scratch memory (gk__workspace) */
    gk__cu_ptr ctr;             /* arrival counters, kept at zero between kernels (gk__counters) */
    gk__cu_ptr dslot;           /* decode attention's split words, GK__DEC_EMPTY between kernels (gk__dec_slots) */
    gk__tuning tune;            /* the ops' knobs and launch counters (gk__tune) */
    void *lt_state;             /* cuBLASLt handle and descriptor cache (>>ops_matmul) */
    gk__libmod lib[GK__MOD_COUNT > 0 ? GK__MOD_COUNT : 1];
    char *cache_dir;
    gk_jit_stats jst;
    /* tensors and pool */
    gk__slot **pages;
    uint32_t npages, nslots, free_slot; /* free_slot: 1-based index, 0 = none */
    gk__pool pool;
    /* runtime services */
    gk__tenant *cur_tenant;     /* the calling thread's tenant, set by gk__enter */
    gk__tenant *tenants;        /* tenants holding reservations (>>sched) */
    struct gk__prof *prof;      /* the profiler while it is on (>>profile); NULL: off */
    struct gk_xfer *xfer;       /* the context's own transfer engine, made on first use (>>xfer) */
    struct gk_xfer *xfers;      /* engines made by gk_xfer_create, destroyed by gk_ctx_destroy */
    struct gk_sched *scheds;    /* live schedulers, shut down by gk_ctx_destroy */
};

/* ---- what each thread has set on a context (gk__thread_rec) ---- */
/* The calling thread's number in the process (from 1, never reused, unlike
   pthread_t, so a new thread never inherits an ended one's records). */
static volatile uint64_t gk__thread_serial;
static GK__TLS uint64_t gk__tls_thread;
static uint64_t gk__thread_id(void) {
    if (!gk__tls_thread) gk__tls_thread = gk__atomic_inc64(&gk__thread_serial);
    return gk__tls_thread;
}
/* The calling thread's record on ctx, or NULL (ctx->mu held). */
static gk__thread_rec *gk__thread_find(gk_ctx *ctx) {
    uint64_t me;
    int i;
    if (ctx->nthreads == 0) return NULL;
    me = gk__thread_id();
    for (i = 0; i < ctx->nthreads; i++)
        if (ctx->threads[i].thread == me) return &ctx->threads[i];
    return NULL;
}
/* ... made when missing; NULL when out of host memory. The pointer is good
   until the next record is added or removed. */
static gk__thread_rec *gk__thread_get(gk_ctx *ctx) {
    gk__thread_rec *r = gk__thread_find(ctx);
    if (r) return r;
    if (ctx->nthreads == ctx->capthreads) {
        int nc = ctx->capthreads ? ctx->capthreads * 2 : 4;
        gk__thread_rec *nr = GK__CAST(gk__thread_rec *, GPUKIT_REALLOC(ctx->threads, sizeof(gk__thread_rec) * (size_t)nc));
        if (!nr) return NULL;
        ctx->threads = nr;
        ctx->capthreads = nc;
    }
    r = &ctx->threads[ctx->nthreads++];
    r->thread = gk__thread_id();
    r->stream = NULL;
    r->jit_log = NULL;
    r->tenant = NULL;
    return r;
}
/* Drops a record that holds nothing any more. */
static void gk__thread_tidy(gk_ctx *ctx, gk__thread_rec *r) {
    if (r->stream || r->jit_log || r->tenant) return;
    *r = ctx->threads[--ctx->nthreads];
}
/* Takes the context's lock for a call of the calling thread: every call on a
   context goes through here, and while it holds the lock ctx->cur_stream is
   this thread's current stream. */
static void gk__pace_wait(gk_ctx *ctx);
static void gk__stream_free_struct(gk_ctx *ctx, gk_stream *s);
/* the profiler's hooks (>>profile): a record's kind */
enum { GK__PROF_KERNEL = 0, GK__PROF_H2D = 1, GK__PROF_D2H = 2, GK__PROF_D2D = 3, GK__PROF_CPU = 4 };
static int gk__prof_begin(gk_ctx *ctx, gk_stream *s, const char *name, int kind);
static void gk__prof_end(gk_ctx *ctx, gk_stream *s, int rec);
static void gk__enter(gk_ctx *ctx) {
    gk__thread_rec *r;
    gk__lock(&ctx->mu);
    r = gk__thread_find(ctx);
    ctx->cur_stream = r && r->stream ? r->stream : &ctx->default_stream;
    ctx->cur_tenant = r ? r->tenant : NULL;
    if (ctx->cur_stream->max_inflight || ctx->cur_stream->held) gk__pace_wait(ctx);
}
