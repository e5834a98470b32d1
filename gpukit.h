/* gpukit.h - v0.1.0 - header-only NVIDIA GPU runtime for C and C++, no CUDA Toolkit at build time
   https://github.com/gpukit/gpukit - see end of file for license information.

   Do this:
      #define GPUKIT_IMPLEMENTATION
   before you include this file in *one* C or C++ file to create the implementation.
   Build with nothing but:   cc -std=c99 app.c -ldl -lm -lpthread

   gpukit finds the GPU at run time: it loads the CUDA driver (libcuda.so.1 /
   nvcuda.dll), NVRTC and cuBLASLt with dlopen, declares every type and
   prototype itself (no cuda.h), compiles its CUDA kernels with NVRTC on first
   use (cached in memory and on disk), and runs every op on a plain-C CPU
   backend when no usable GPU is found. The CPU backend is also the reference
   every GPU kernel is tested against.

   QUICK START
      gk_ctx *ctx; gk_tensor a, b, c; int64_t shape[2] = {1024, 1024};
      gk_ctx_desc desc = {0};                       // zero means defaults
      if (gk_ctx_create(&desc, &ctx) != GK_OK) { puts(gk_last_error(NULL)); return 1; }
      gk_tensor_empty(ctx, GK_F32, 2, shape, &a);   // allocated through the pool
      gk_tensor_empty(ctx, GK_F32, 2, shape, &b);
      gk_tensor_empty(ctx, GK_F32, 2, shape, &c);
      gk_fill(ctx, a, 1.0); gk_fill(ctx, b, 2.0);
      if (gk_add(ctx, c, a, b) != GK_OK) puts(gk_last_error(ctx));
      gk_copy_to_host(ctx, c, host, sizeof(float) << 20);  // waits for the stream
      gk_ctx_destroy(ctx);                          // frees every tensor too

   PRINCIPLES
   - Errors are values. Every call returns a gk_status; gk_last_error(ctx)
     says what failed and where (CUDA error names, NVRTC logs). Nothing in
     gpukit aborts or exits, whatever the input.
   - Explicit: ops run asynchronously on the context's current stream
     (gk_set_stream). Only functions named *_sync, gk_copy_to_host and the
     memory-pressure path (eviction) wait for the GPU. Ops that take an
     output tensor allocate nothing; *_new variants allocate their output.
     TF32 and other precision trade-offs are used only when asked for.
   - Every device allocation goes through the pool: size classes, cached free
     blocks, a quota, LRU eviction of idle blocks to host memory (restored on
     their next use), pinning. The CPU backend uses the same pool logic.

   COMPILE-TIME OPTIONS (define before including)
      GPUKIT_STATIC          make every function static (private to one file)
      GKDEF                  linkage of public functions (default: extern)
      GPUKIT_NO_CUDA         build the CPU backend only (no dlopen at all)
      GPUKIT_MALLOC/GPUKIT_REALLOC/GPUKIT_FREE   host allocator (all or none)

   ENVIRONMENT
      GPUKIT_CUDA_LIB, GPUKIT_NVRTC_LIB, GPUKIT_CUBLASLT_LIB   library paths
      GPUKIT_CACHE_DIR       kernel cache folder (default ~/.cache/gpukit)
      GPUKIT_BACKEND         "cpu" or "cuda": overrides desc.backend AUTO

   gpukit DOES NOT: link or include anything from the CUDA Toolkit at build
   time, run on GPUs older than compute capability 8.0 (they fall back to the
   CPU backend), hide host synchronisation in ops, or use TF32 unless asked.

   TABLE OF CONTENTS (grep for the >>anchors)
      >>api_errors      status codes, error text, logging
      >>api_dtypes      data types and host conversion
      >>api_context     context, backends, device information
      >>api_pool        memory pool statistics and control
      >>api_tensor      tensors, views, host transfers
      >>api_stream      streams, events, CUDA graphs
      >>api_jit         NVRTC JIT: modules, user kernels, kernel cache
      >>api_ops         ops: fill, copy, cast, add/sub/mul/div, scale, axpy
   IMPLEMENTATION
      >>platform        dlopen, mutex, thread-local, files, clocks
      >>cuda_decls      our own CUDA driver / NVRTC / cuBLASLt declarations
      >>errors          status names, error text, logging
      >>dtypes          conversions (round-to-nearest-even, bit-exact)
      >>loader          finding and loading the libraries
      >>context         context creation, device information
      >>pool            size classes, cache, quota, LRU eviction, restore
      >>tensor          handle table, views, host transfers
      >>stream          streams, events, graphs (CPU: recorded thunks)
      >>jit             NVRTC, hash, memory + disk kernel cache, launches
      >>ops             op dispatch, CPU reference loops, GPU launches

   RECENT REVISION HISTORY
      0.1.0  (2026-11-21) first release: runtime core
*/
#ifndef GPUKIT_H
#define GPUKIT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef GKDEF
#ifdef GPUKIT_STATIC
#define GKDEF static
#else
#define GKDEF extern
#endif
#endif

#define GK_VERSION_MAJOR 0
#define GK_VERSION_MINOR 1
#define GK_VERSION_PATCH 0
#define GK_VERSION_STRING "0.1.0"
#define GK_MAX_DIMS 8

#if defined(__GNUC__) || defined(__clang__)
#define GK__PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GK__PRINTF(a, b)
#endif

typedef struct gk_ctx gk_ctx;

/* ------------------------------------------------------------------------ */
/* >>api_errors */
/* X(name, message): every status has a name ("GK_ERR_SHAPE") and a message. */
#define GK__STATUS_LIST(X)                                                    \
    X(OK, "success")                                                          \
    X(ERR_INVALID_ARGUMENT, "invalid argument")                               \
    X(ERR_INVALID_HANDLE, "invalid, NULL or freed handle")                    \
    X(ERR_SHAPE, "incompatible shape")                                        \
    X(ERR_DTYPE, "unsupported or mismatched dtype")                           \
    X(ERR_OVERFLOW, "size overflow")                                          \
    X(ERR_OUT_OF_MEMORY, "out of memory")                                     \
    X(ERR_NO_DRIVER, "CUDA driver not available")                             \
    X(ERR_NO_DEVICE, "no usable CUDA device")                                 \
    X(ERR_NO_NVRTC, "NVRTC not available")                                    \
    X(ERR_CUDA, "CUDA driver call failed")                                    \
    X(ERR_COMPILE, "kernel compilation failed")                               \
    X(ERR_LAUNCH, "kernel launch failed")                                     \
    X(ERR_NOT_FOUND, "not found")                                             \
    X(ERR_UNSUPPORTED, "not supported")                                       \
    X(ERR_IO, "I/O error")                                                    \
    X(ERR_FORMAT, "malformed data")                                           \
    X(ERR_LIMIT, "limit exceeded")                                            \
    X(ERR_STATE, "call not valid in the current state")                       \
    X(ERR_INTERNAL, "internal error")

#define GK__STATUS_ENUM(name, msg) GK_##name,
typedef enum gk_status { GK__STATUS_LIST(GK__STATUS_ENUM) GK_STATUS_COUNT } gk_status;
#undef GK__STATUS_ENUM

GKDEF const char *gk_status_name(gk_status s);     /* "GK_ERR_SHAPE" */
GKDEF const char *gk_status_message(gk_status s);  /* "incompatible shape" */
/* The last error text of a context (what failed and where), or of the calling
   thread when ctx is NULL (errors of gk_ctx_create and context-free calls).
   Never NULL; "" when there was no error. */
GKDEF const char *gk_last_error(gk_ctx *ctx);
/* Records an error (printf format) for ctx, or for the calling thread when ctx
   is NULL, and returns st. For layers built on gpukit (gpukit_llm.h). */
GKDEF gk_status gk_error_set(gk_ctx *ctx, gk_status st, const char *fmt, ...) GK__PRINTF(3, 4);
GKDEF void gk_error_clear(gk_ctx *ctx);

typedef enum gk_log_level {
    GK_LOG_DEFAULT = 0, /* = GK_LOG_WARN */
    GK_LOG_OFF,
    GK_LOG_ERROR,
    GK_LOG_WARN,
    GK_LOG_INFO,
    GK_LOG_DEBUG
} gk_log_level;
typedef void (*gk_log_fn)(gk_log_level level, const char *message, void *user);

/* ------------------------------------------------------------------------ */
/* >>api_dtypes */
typedef enum gk_dtype {
    GK_F32 = 0,  /* float */
    GK_F64,      /* double */
    GK_F16,      /* IEEE half, stored as uint16_t bits */
    GK_BF16,     /* bfloat16, stored as uint16_t bits */
    GK_F8E4M3,   /* OCP fp8 e4m3fn (no inf; conversion saturates to +-448) */
    GK_F8E5M2,   /* OCP fp8 e5m2 (IEEE-like, has inf) */
    GK_I8,
    GK_U8,
    GK_I32,
    GK_I64,
    GK_DTYPE_COUNT
} gk_dtype;

GKDEF size_t gk_dtype_size(gk_dtype dt);              /* 0 for an invalid dtype */
GKDEF const char *gk_dtype_name(gk_dtype dt);         /* "f32", "bf16", "f8e4m3", ...; "invalid" */
GKDEF gk_status gk_dtype_from_name(const char *name, gk_dtype *out);
GKDEF int gk_dtype_is_float(gk_dtype dt);
/* Converts n values between host buffers with exactly the rules of gk_cast on
   the device: float narrowing rounds to nearest even (overflow gives inf, or
   +-448 for e4m3; NaN stays NaN); float -> int truncates toward zero and
   saturates (NaN -> 0); int -> int wraps (two's complement); int -> float
   rounds to nearest even. dst and src must not overlap unless equal dtypes. */
GKDEF gk_status gk_convert(gk_dtype dst_type, void *dst, gk_dtype src_type, const void *src, size_t n);
/* Scalar conversions (the same rules). */
GKDEF uint16_t gk_f32_to_f16(float x);
GKDEF float gk_f16_to_f32(uint16_t h);
GKDEF uint16_t gk_f32_to_bf16(float x);
GKDEF float gk_bf16_to_f32(uint16_t h);
GKDEF uint8_t gk_f32_to_f8e4m3(float x);
GKDEF float gk_f8e4m3_to_f32(uint8_t v);
GKDEF uint8_t gk_f32_to_f8e5m2(float x);
GKDEF float gk_f8e5m2_to_f32(uint8_t v);

/* ------------------------------------------------------------------------ */
/* >>api_context */
typedef enum gk_backend {
    GK_BACKEND_AUTO = 0, /* CUDA when a usable GPU is found, else CPU (with a log line) */
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
    gk_log_fn log;              /* NULL: write warnings and errors to stderr */
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

/* ------------------------------------------------------------------------ */
/* >>api_pool */
typedef struct gk_pool_stats {
    size_t used;            /* bytes in live blocks resident on the device */
    size_t cached;          /* bytes in free blocks kept for reuse */
    size_t peak;            /* highest used + cached seen */
    size_t quota;           /* limit on used + cached */
    size_t evicted;         /* bytes of live blocks currently evicted to host memory */
    size_t pinned;          /* bytes in pinned blocks (never evicted) */
    uint64_t allocations;   /* blocks handed out */
    uint64_t reuses;        /* ... of which came from the cache */
    uint64_t evictions;     /* live blocks copied to host and released */
    uint64_t restores;      /* evicted blocks brought back on use */
    uint64_t releases;      /* cached blocks given back to the driver */
    uint64_t driver_allocs; /* cuMemAlloc (or malloc on CPU) calls */
    uint64_t driver_frees;
} gk_pool_stats;

GKDEF gk_status gk_pool_stats_get(gk_ctx *ctx, gk_pool_stats *out);
/* Sets the quota; lowering it releases cached blocks and evicts idle ones
   as needed (fails with GK_ERR_OUT_OF_MEMORY if pinned blocks exceed it). */
GKDEF gk_status gk_pool_set_quota(gk_ctx *ctx, size_t quota);
/* Gives every cached free block back to the driver. */
GKDEF gk_status gk_pool_trim(gk_ctx *ctx);

/* ------------------------------------------------------------------------ */
/* >>api_tensor */
/* A tensor handle: an index into the context's table plus a generation, so a
   freed or foreign handle is detected (GK_ERR_INVALID_HANDLE), never used. */
typedef struct gk_tensor { uint64_t id; } gk_tensor;

typedef struct gk_tensor_info {
    gk_dtype dtype;
    int ndim;
    int64_t shape[GK_MAX_DIMS];
    int64_t strides[GK_MAX_DIMS];   /* in elements */
    int64_t offset;                 /* first element, in elements from the storage start */
    int64_t numel;
    size_t nbytes;                  /* numel * element size */
    int contiguous;                 /* row-major dense */
    int resident;                   /* storage on the device (not evicted) */
    int pinned;                     /* storage never evicted */
    int is_view;                    /* shares storage with another tensor */
} gk_tensor_info;

/* New tensor of the given shape (ndim 0..8; dims >= 0), uninitialised, from the pool. */
GKDEF gk_status gk_tensor_empty(gk_ctx *ctx, gk_dtype dtype, int ndim, const int64_t *shape, gk_tensor *out);
/* New tensor filled from a packed row-major host array (synchronous). */
GKDEF gk_status gk_tensor_from_host(gk_ctx *ctx, gk_dtype dtype, int ndim, const int64_t *shape,
                                    const void *data, gk_tensor *out);
/* Frees the handle; storage goes back to the pool when no view uses it and no
   queued work or graph holds it. */
GKDEF gk_status gk_tensor_free(gk_ctx *ctx, gk_tensor t);
GKDEF int gk_tensor_valid(gk_ctx *ctx, gk_tensor t);
GKDEF gk_status gk_tensor_info_get(gk_ctx *ctx, gk_tensor t, gk_tensor_info *out);
/* Address of the first element: a CUdeviceptr on CUDA, a host address on the
   CPU backend. Restores the storage if it was evicted; the address stays valid
   until the storage is evicted again (pin it to prevent that). */
GKDEF gk_status gk_tensor_ptr(gk_ctx *ctx, gk_tensor t, uint64_t *out);
/* Pinned storage is never evicted (pins nest). Evict moves idle storage to
   host memory now (it comes back on next use). */
GKDEF gk_status gk_tensor_pin(gk_ctx *ctx, gk_tensor t);
GKDEF gk_status gk_tensor_unpin(gk_ctx *ctx, gk_tensor t);
GKDEF gk_status gk_tensor_evict(gk_ctx *ctx, gk_tensor t);

/* Views share storage (no copy) and need gk_tensor_free like any tensor.
   Negative dims count from the end. */
GKDEF gk_status gk_view_reshape(gk_ctx *ctx, gk_tensor t, int ndim, const int64_t *shape, gk_tensor *out); /* one dim may be -1 */
GKDEF gk_status gk_view_permute(gk_ctx *ctx, gk_tensor t, const int *perm, gk_tensor *out);
GKDEF gk_status gk_view_transpose(gk_ctx *ctx, gk_tensor t, int dim0, int dim1, gk_tensor *out);
/* Python-style slice of one dim: start/stop clamp, negative values count from the end, step >= 1. */
GKDEF gk_status gk_view_slice(gk_ctx *ctx, gk_tensor t, int dim, int64_t start, int64_t stop, int64_t step, gk_tensor *out);
GKDEF gk_status gk_view_squeeze(gk_ctx *ctx, gk_tensor t, int dim, gk_tensor *out);
GKDEF gk_status gk_view_unsqueeze(gk_ctx *ctx, gk_tensor t, int dim, gk_tensor *out);
/* A contiguous tensor with t's values: a view when t is already contiguous,
   else a new tensor filled by a copy on the current stream. */
GKDEF gk_status gk_contiguous(gk_ctx *ctx, gk_tensor t, gk_tensor *out);

/* Host transfers of a contiguous tensor; nbytes must equal its size.
   The synchronous forms wait for the current stream first. The _async forms
   are ordered on the stream (NULL: current stream); the host buffer must stay
   valid until the stream reaches the copy; page-locked buffers from
   gk_host_alloc make them truly asynchronous. */
GKDEF gk_status gk_copy_from_host(gk_ctx *ctx, gk_tensor dst, const void *src, size_t nbytes);
GKDEF gk_status gk_copy_to_host(gk_ctx *ctx, gk_tensor src, void *dst, size_t nbytes);
typedef struct gk_stream gk_stream;
GKDEF gk_status gk_copy_from_host_async(gk_ctx *ctx, gk_tensor dst, const void *src, size_t nbytes, gk_stream *stream);
GKDEF gk_status gk_copy_to_host_async(gk_ctx *ctx, gk_tensor src, void *dst, size_t nbytes, gk_stream *stream);
GKDEF gk_status gk_host_alloc(gk_ctx *ctx, size_t nbytes, void **out);   /* page-locked on CUDA */
GKDEF gk_status gk_host_free(gk_ctx *ctx, void *p);

/* ------------------------------------------------------------------------ */
/* >>api_stream */
typedef struct gk_event gk_event;
typedef struct gk_graph gk_graph;
typedef enum gk_stream_priority {
    GK_PRIORITY_NORMAL = 0,
    GK_PRIORITY_HIGH,
    GK_PRIORITY_LOW
} gk_stream_priority;

GKDEF gk_status gk_stream_create(gk_ctx *ctx, gk_stream_priority priority, gk_stream **out);
GKDEF gk_status gk_stream_destroy(gk_ctx *ctx, gk_stream *s);    /* waits for its work */
GKDEF gk_status gk_stream_sync(gk_ctx *ctx, gk_stream *s);       /* NULL: current stream */
GKDEF gk_status gk_stream_wait_event(gk_ctx *ctx, gk_stream *s, gk_event *e);
/* The stream every op of the context runs on; NULL selects the default stream. */
GKDEF gk_status gk_set_stream(gk_ctx *ctx, gk_stream *s);
GKDEF gk_stream *gk_get_stream(gk_ctx *ctx);
GKDEF gk_stream *gk_default_stream(gk_ctx *ctx);
GKDEF void *gk_stream_native(gk_ctx *ctx, gk_stream *s);         /* the CUstream; NULL on CPU */

GKDEF gk_status gk_event_create(gk_ctx *ctx, gk_event **out);
GKDEF gk_status gk_event_destroy(gk_ctx *ctx, gk_event *e);
GKDEF gk_status gk_event_record(gk_ctx *ctx, gk_event *e, gk_stream *s);  /* NULL: current stream */
GKDEF gk_status gk_event_sync(gk_ctx *ctx, gk_event *e);
GKDEF gk_status gk_event_query(gk_ctx *ctx, gk_event *e, int *done);
GKDEF gk_status gk_event_elapsed_ms(gk_ctx *ctx, gk_event *start, gk_event *end, float *ms);

/* Graph capture: work issued on stream s (NULL: current) between begin and end
   is recorded, not run, and replayed by gk_graph_launch with the same tensors.
   Storage used by a graph stays pinned until the graph is destroyed. On the
   CPU backend the ops are recorded as host thunks and replayed in order. */
GKDEF gk_status gk_graph_begin(gk_ctx *ctx, gk_stream *s);
GKDEF gk_status gk_graph_end(gk_ctx *ctx, gk_stream *s, gk_graph **out);
GKDEF gk_status gk_graph_launch(gk_ctx *ctx, gk_graph *g, gk_stream *s);
GKDEF gk_status gk_graph_destroy(gk_ctx *ctx, gk_graph *g);

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
/* NVRTC log of the last compile of this context (warnings too); "" if none. */
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

/* ------------------------------------------------------------------------ */
/* >>api_ops */
/* Ops run on the current stream. Shapes follow NumPy broadcasting: inputs
   broadcast to the output's shape (the output itself never broadcasts).
   Arithmetic on f16 / bf16 / fp8 computes in f32 and rounds to nearest even;
   integer arithmetic wraps; integer division by zero gives 0. The _new
   variants allocate the output (broadcast shape, the inputs' dtype). */
GKDEF gk_status gk_fill(gk_ctx *ctx, gk_tensor t, double value);
GKDEF gk_status gk_copy(gk_ctx *ctx, gk_tensor dst, gk_tensor src);     /* same dtype */
GKDEF gk_status gk_cast(gk_ctx *ctx, gk_tensor dst, gk_tensor src);     /* any dtype pair (gk_convert rules) */
GKDEF gk_status gk_add(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b);
GKDEF gk_status gk_sub(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b);
GKDEF gk_status gk_mul(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b);
GKDEF gk_status gk_div(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b);
GKDEF gk_status gk_scale(gk_ctx *ctx, gk_tensor out, gk_tensor x, double alpha);  /* out = alpha * x */
GKDEF gk_status gk_axpy(gk_ctx *ctx, gk_tensor y, double alpha, gk_tensor x);    /* y += alpha * x */
GKDEF gk_status gk_add_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_tensor *out);
GKDEF gk_status gk_sub_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_tensor *out);
GKDEF gk_status gk_mul_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_tensor *out);
GKDEF gk_status gk_div_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_tensor *out);
GKDEF gk_status gk_cast_new(gk_ctx *ctx, gk_tensor src, gk_dtype dtype, gk_tensor *out);

#ifdef __cplusplus
}
#endif
#endif /* GPUKIT_H */
