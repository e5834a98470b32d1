/* ------------------------------------------------------------------------ */
/* >>api_jit */
typedef struct gk_module gk_module;
typedef struct gk_kernel gk_kernel;

typedef struct gk_module_desc {
    const char *source;             /* CUDA C++ source; kernels must be extern "C" */
    const char *name;               /* for messages and NVRTC; default "user.cu" */
    const char *const *options;     /* extra NVRTC options, e.g. "-DN=4" */
    int num_options;
    int no_cache;                   /* bypass the memory and disk caches */
} gk_module_desc;

/* Compiles (or finds in the cache) and loads a module for the device's exact
   arch (cubin; PTX when NVRTC does not know the arch). On the CPU backend the
   source is still compiled (for sm_80) when NVRTC is present, so compile errors
   show everywhere; launches there run the kernel's CPU fallback. */
GKDEF gk_status gk_module_create(gk_ctx *ctx, const gk_module_desc *desc, gk_module **out);
GKDEF gk_status gk_module_destroy(gk_ctx *ctx, gk_module *m);
GKDEF gk_status gk_module_kernel(gk_ctx *ctx, gk_module *m, const char *name, gk_kernel **out);
/* NVRTC log of the calling thread's last compile on this context (warnings
   too); "" if none. Valid until that thread's next compile on the context. */
GKDEF const char *gk_jit_log(gk_ctx *ctx);

typedef enum gk_arg_type {
    GK_ARG_NONE = 0,
    GK_ARG_I32, GK_ARG_U32, GK_ARG_I64, GK_ARG_U64, GK_ARG_F32, GK_ARG_F64,
    GK_ARG_PTR,     /* a raw device address */
    GK_ARG_TENSOR   /* a tensor: passed as the address of its first element */
} gk_arg_type;

typedef struct gk_arg {
    gk_arg_type type;
    union { int32_t i32; uint32_t u32; int64_t i64; uint64_t u64; float f32; double f64;
            uint64_t ptr; gk_tensor tensor; } v;
} gk_arg;

static inline gk_arg gk_arg_i32(int32_t x) { gk_arg a; a.type = GK_ARG_I32; a.v.u64 = 0; a.v.i32 = x; return a; }
static inline gk_arg gk_arg_u32(uint32_t x) { gk_arg a; a.type = GK_ARG_U32; a.v.u64 = 0; a.v.u32 = x; return a; }
static inline gk_arg gk_arg_i64(int64_t x) { gk_arg a; a.type = GK_ARG_I64; a.v.i64 = x; return a; }
static inline gk_arg gk_arg_u64(uint64_t x) { gk_arg a; a.type = GK_ARG_U64; a.v.u64 = x; return a; }
static inline gk_arg gk_arg_f32(float x) { gk_arg a; a.type = GK_ARG_F32; a.v.u64 = 0; a.v.f32 = x; return a; }
static inline gk_arg gk_arg_f64(double x) { gk_arg a; a.type = GK_ARG_F64; a.v.f64 = x; return a; }
static inline gk_arg gk_arg_ptr(uint64_t x) { gk_arg a; a.type = GK_ARG_PTR; a.v.ptr = x; return a; }
static inline gk_arg gk_arg_tensor(gk_tensor t) { gk_arg a; a.type = GK_ARG_TENSOR; a.v.tensor = t; return a; }

typedef struct gk_launch_desc {
    unsigned grid[3];               /* 0 means 1 */
    unsigned block[3];              /* 0 means 1 */
    unsigned shared_mem;            /* dynamic shared memory bytes */
    gk_stream *stream;              /* NULL: current stream */
    const gk_arg *args;
    int num_args;
} gk_launch_desc;

/* Launches for real. The argument count and each argument's size are checked
   against the kernel's parameters (read from the driver, or parsed from the
   source on the CPU backend): a mismatch is GK_ERR_INVALID_ARGUMENT. */
GKDEF gk_status gk_kernel_launch(gk_ctx *ctx, gk_kernel *k, const gk_launch_desc *desc);

/* CPU fallback of a user kernel, run by gk_kernel_launch on the CPU backend:
   gpukit calls fn once per launch; ptrs[i] is the host address of argument i
   when it is a TENSOR (else NULL). */
typedef struct gk_cpu_launch {
    unsigned grid[3], block[3];
    const gk_arg *args;
    void *const *ptrs;
    int num_args;
    void *user;
} gk_cpu_launch;
typedef void (*gk_cpu_kernel_fn)(const gk_cpu_launch *launch);
GKDEF gk_status gk_kernel_set_cpu(gk_ctx *ctx, gk_kernel *k, gk_cpu_kernel_fn fn, void *user);

typedef struct gk_kernel_attrs {
    int num_params;
    int num_regs;                   /* 0 when unknown (CPU backend) */
    int local_bytes;                /* spill / stack bytes per thread */
    int static_smem_bytes;
    int max_threads_per_block;
} gk_kernel_attrs;
GKDEF gk_status gk_kernel_attrs_get(gk_ctx *ctx, gk_kernel *k, gk_kernel_attrs *out);
/* Parameter i (0 <= i < num_params) of k as gk_kernel_launch checks it:
   *size its bytes (0: unknown), *kind 'p' (pointer), 'f' (floating point),
   'i' (integer) or '?' (only the size is checked, e.g. a struct). Either
   may be NULL. For bindings that type a launch's arguments from the
   kernel's signature (gk_arg_i32 for an int parameter, ...). */
GKDEF gk_status gk_kernel_param(gk_ctx *ctx, gk_kernel *k, int i, int *size, char *kind);

typedef struct gk_jit_stats {
    uint64_t compiles;          /* NVRTC compilations */
    uint64_t memory_hits;       /* modules found already loaded */
    uint64_t disk_hits;         /* modules loaded from the disk cache */
    uint64_t disk_writes;
    uint64_t disk_rejects;      /* corrupt or mismatched cache files recompiled */
    double compile_ms;          /* total NVRTC time */
} gk_jit_stats;
GKDEF gk_status gk_jit_stats_get(gk_ctx *ctx, gk_jit_stats *out);
/* Compiles every library kernel module for arch (e.g. "sm_90"; NULL: the
   device's) into the disk cache without loading it: works without a GPU, so a
   cache can be filled ahead of time. */
GKDEF gk_status gk_jit_precompile(gk_ctx *ctx, const char *arch, int *num_modules);

