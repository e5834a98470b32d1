/* ------------------------------------------------------------------------ */
/* >>api_context */
typedef enum gk_backend {
    GK_BACKEND_AUTO = 0, /* CUDA when a usable GPU is found, else CPU: an info line when the machine
                            has no NVIDIA driver, a warning when a driver is there but unusable */
    GK_BACKEND_CUDA,     /* CUDA or an error saying why not */
    GK_BACKEND_CPU       /* plain C reference backend */
} gk_backend;

typedef struct gk_ctx_desc {
    gk_backend backend;
    int device;                 /* CUDA device ordinal (default 0) */
    size_t memory_quota;        /* bytes the pool may hold (live + cached); 0: 90% of the
                                   device's free memory at creation (CPU: half of RAM) */
    const char *cache_dir;      /* kernel cache folder; NULL: $GPUKIT_CACHE_DIR, else
                                   $XDG_CACHE_HOME/gpukit, else $HOME/.cache/gpukit */
    int disable_disk_cache;     /* compile in memory only */
    int disable_eviction;       /* never evict live blocks to host: fail instead */
    int disable_cublaslt;       /* do not load cuBLASLt */
    gk_log_fn log;              /* NULL: write warnings and errors to stderr. Called on the thread
                                   making the call, with the context's lock held: it must
                                   not call gpukit on this context */
    void *log_user;
    gk_log_level log_level;     /* DEFAULT: WARN */
    const char *cuda_lib;       /* library paths; NULL: $GPUKIT_*_LIB, then the usual names */
    const char *nvrtc_lib;
    const char *cublaslt_lib;
} gk_ctx_desc;

typedef struct gk_device_info {
    gk_backend backend;         /* the backend actually in use */
    char name[256];             /* "NVIDIA H100 80GB HBM3" or "CPU (reference backend)" */
    char arch[16];              /* "sm_90"; "" on CPU */
    int cc_major, cc_minor;     /* compute capability; 0 on CPU */
    int sm_count;
    int warp_size;
    int max_threads_per_block;
    int max_smem_per_block_optin;   /* bytes */
    size_t total_memory;        /* bytes */
    size_t l2_bytes;
    int driver_version;         /* 13000 = CUDA 13.0; 0 when no driver */
    int nvrtc_version;          /* 13000 = NVRTC 13.0; 0 when missing */
    size_t cublaslt_version;    /* e.g. 130000; 0 when missing */
    int has_nvrtc;
    int has_cublaslt;
} gk_device_info;

/* Creates a context. desc may be NULL (all defaults). On failure *out is NULL
   and gk_last_error(NULL) says why. */
GKDEF gk_status gk_ctx_create(const gk_ctx_desc *desc, gk_ctx **out);
/* Waits for all work, then frees every tensor, stream, event, graph and module
   of the context and the pool's memory. NULL is ignored. */
GKDEF void gk_ctx_destroy(gk_ctx *ctx);
GKDEF gk_status gk_device_info_get(gk_ctx *ctx, gk_device_info *out);
GKDEF gk_backend gk_ctx_backend(gk_ctx *ctx);
/* Waits until all work issued on every stream of the context is done. */
GKDEF gk_status gk_sync(gk_ctx *ctx);

