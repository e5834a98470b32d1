/* >>internals: the context, slot and block structs every section uses */
/* ------------------------------------------------------------------------ */
/* context internals (used by every section below) */
typedef struct gk__block gk__block;
typedef struct gk__capture gk__capture;

struct gk_stream {
    gk__cu_stream cu;           /* NULL on CPU */
    gk_stream_priority priority;
    gk__capture *capture;       /* non-NULL while a graph is being captured */
    gk_stream *next;            /* context's list */
};
struct gk_event {
    gk__cu_event cu;
    double host_ms;             /* CPU backend: time of the record */
    int recorded;
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

struct gk_ctx {
    gk_backend backend;
    unsigned tag;               /* stamped into handles: which context minted them */
    gk_ctx_desc desc;
    gk_device_info info;
    gk__mutex mu;
    char err[GK__ERRBUF];
    char *jit_log;
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
    gk_stream *cur_stream;
    gk_stream *streams;
    gk_event *events;
    gk_graph *graphs;
    gk_module *modules;
    gk__modrec *modcache;
    uint64_t capture_serial;
    gk__block *ws;              /* op scratch memory (gk__workspace) */
    gk__cu_ptr ctr;             /* arrival counters, kept at zero between kernels (gk__counters) */
    gk__cu_ptr dslot;           /* decode attention's split words, GK__DEC_EMPTY between kernels (gk__dec_slots) */
    void *lt_state;             /* cuBLASLt handle and descriptor cache (>>ops_matmul) */
    gk__libmod lib[GK__MOD_COUNT > 0 ? GK__MOD_COUNT : 1];
    char *cache_dir;
    gk_jit_stats jst;
    /* tensors and pool */
    gk__slot **pages;
    uint32_t npages, nslots, free_slot; /* free_slot: 1-based index, 0 = none */
    gk__pool pool;
};

