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
      >>api_ops_math    elementwise math, reductions, softmax, top-k, sampling
      >>api_ops_nn      norms, rotary positions, layout
      >>api_ops_signal  convolution, LSTM, FFT / STFT / mel
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
      >>ops_math, >>ops_nn, >>ops_signal   the op groups

   RECENT REVISION HISTORY
      0.1.0  (2026-11-21) first release: runtime core
*/
#ifndef GPUKIT_H
#define GPUKIT_H

/* The implementation needs POSIX (clock_gettime, dlopen) under -std=c99:
   include gpukit.h before any system header in that file. */
#if defined(GPUKIT_IMPLEMENTATION) && !defined(_WIN32) && !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
/* mingw-w64: C99 printf (%zu, %lld) in the implementation */
#if defined(GPUKIT_IMPLEMENTATION) && defined(__MINGW32__) && !defined(__USE_MINGW_ANSI_STDIO)
#define __USE_MINGW_ANSI_STDIO 1
#endif

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

#if defined(__MINGW32__)
#define GK__PRINTF(a, b) __attribute__((format(gnu_printf, a, b)))
#elif defined(__GNUC__) || defined(__clang__)
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

/* >>api_ops_math: more elementwise ops, reductions, softmax, cumsum, top-k, sampling
   (declarations of this group go below this line) */
/* Elementwise math. Float ops take f32, f64, f16 or bf16 (16-bit compute in
   f32, f64 in double); inputs broadcast to the output (NumPy rules, any
   strides), all operands of one dtype unless said otherwise. The _new
   variants allocate the output (broadcast shape). */
typedef enum gk_unary_op {
    GK_UNARY_EXP = 0, GK_UNARY_LOG, GK_UNARY_SQRT, GK_UNARY_RSQRT, GK_UNARY_ABS, GK_UNARY_NEG,
    GK_UNARY_SIN, GK_UNARY_COS, GK_UNARY_TANH,
    GK_UNARY_SIGMOID,    /* 1 / (1 + exp(-x)) */
    GK_UNARY_RELU,       /* max(x, 0), NaN stays NaN */
    GK_UNARY_LEAKY_RELU, /* x < 0 ? param * x : x (torch default slope 0.01 is not implied: pass it) */
    GK_UNARY_GELU,       /* x/2 (1 + erf(x / sqrt 2)): torch gelu(approximate='none') */
    GK_UNARY_GELU_TANH,  /* x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): approximate='tanh' */
    GK_UNARY_SILU,       /* x * sigmoid(x) */
    GK_UNARY_RELU2,      /* relu(x)^2 */
    GK_UNARY_SOFTPLUS,   /* log(1 + exp(b x)) / b, x where b x > 20; b = param, 0 means 1 (torch defaults) */
    GK_UNARY_COUNT
} gk_unary_op;
GKDEF gk_status gk_unary(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_unary_op op, double param);
GKDEF gk_status gk_unary_new(gk_ctx *ctx, gk_tensor x, gk_unary_op op, double param, gk_tensor *out);
/* out = min(max(x, lo), hi); pass -INFINITY / INFINITY for one side; NaN x stays NaN; lo <= hi. */
GKDEF gk_status gk_clamp(gk_ctx *ctx, gk_tensor out, gk_tensor x, double lo, double hi);
GKDEF gk_status gk_clamp_new(gk_ctx *ctx, gk_tensor x, double lo, double hi, gk_tensor *out);

/* Binary: POW takes floats; MAXIMUM / MINIMUM take every dtype (NaN propagates, like torch). */
typedef enum gk_binary_op { GK_BINARY_POW = 0, GK_BINARY_MAXIMUM, GK_BINARY_MINIMUM, GK_BINARY_COUNT } gk_binary_op;
GKDEF gk_status gk_binary(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b, gk_binary_op op);
GKDEF gk_status gk_binary_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_binary_op op, gk_tensor *out);
/* Comparisons: out (u8) = 1 where a OP b holds, else 0; a and b of any one dtype (NaN compares unequal). */
typedef enum gk_compare_op { GK_CMP_EQ = 0, GK_CMP_NE, GK_CMP_LT, GK_CMP_LE, GK_CMP_GT, GK_CMP_GE, GK_CMP_COUNT } gk_compare_op;
GKDEF gk_status gk_compare(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b, gk_compare_op op);
GKDEF gk_status gk_compare_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_compare_op op, gk_tensor *out);
/* out = cond != 0 ? a : b; cond u8, a / b / out of any one dtype (elements copied bit for bit). */
GKDEF gk_status gk_where(gk_ctx *ctx, gk_tensor out, gk_tensor cond, gk_tensor a, gk_tensor b);
GKDEF gk_status gk_where_new(gk_ctx *ctx, gk_tensor cond, gk_tensor a, gk_tensor b, gk_tensor *out);
/* Snake activation of vocoders: out = x + sin(alpha x)^2 / (alpha + 1e-9), x [B, C, T] or [C, T],
   alpha [C] (one value per channel). */
GKDEF gk_status gk_snake(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor alpha);
GKDEF gk_status gk_snake_new(gk_ctx *ctx, gk_tensor x, gk_tensor alpha, gk_tensor *out);
/* Gated units: out = act(gate) * up (SwiGLU: SILU, GeGLU: GELU or GELU_TANH). gk_glu_split takes
   one tensor x [..., 2n] whose first half (along the last dim) is the gate: out [..., n]. */
typedef enum gk_glu_op { GK_GLU_SILU = 0, GK_GLU_GELU, GK_GLU_GELU_TANH, GK_GLU_COUNT } gk_glu_op;
GKDEF gk_status gk_glu(gk_ctx *ctx, gk_tensor out, gk_tensor gate, gk_tensor up, gk_glu_op op);
GKDEF gk_status gk_glu_new(gk_ctx *ctx, gk_tensor gate, gk_tensor up, gk_glu_op op, gk_tensor *out);
GKDEF gk_status gk_glu_split(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_glu_op op);
GKDEF gk_status gk_glu_split_new(gk_ctx *ctx, gk_tensor x, gk_glu_op op, gk_tensor *out);

/* Reductions over one dim (negative counts from the end) or every dim
   (GK_AXIS_ALL) of f32 / f64 / f16 / bf16 tensors, accumulating in f32 (f64
   for f64). out has x's shape with the reduced dims removed (keepdim = 0) or
   kept as 1 (keepdim = 1); its dtype is x's, i64 for ARGMAX / ARGMIN (first
   occurrence; NaN counts as the extreme, like torch). Reducing 0 elements:
   SUM gives 0, MEAN and VAR NaN, MAX / MIN / ARG* are an error. VAR divides
   by n (population), VAR_UNBIASED by n - 1 (torch correction=1; n = 1 gives NaN). */
#define GK_AXIS_ALL 0x7FFF
typedef enum gk_reduce_op {
    GK_REDUCE_SUM = 0, GK_REDUCE_MEAN, GK_REDUCE_MAX, GK_REDUCE_MIN, GK_REDUCE_ARGMAX, GK_REDUCE_ARGMIN,
    GK_REDUCE_VAR, GK_REDUCE_VAR_UNBIASED, GK_REDUCE_COUNT
} gk_reduce_op;
GKDEF gk_status gk_reduce(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_reduce_op op, int axis, int keepdim);
GKDEF gk_status gk_reduce_new(gk_ctx *ctx, gk_tensor x, gk_reduce_op op, int axis, int keepdim, gk_tensor *out);
/* softmax / log_softmax over the last dim (f32 / f64 / f16 / bf16), out of x's shape and dtype.
   Numerically stable (max subtracted). Defined edge cases: a row of only -inf gives zeros
   (softmax) and -inf (log_softmax); a NaN makes its row NaN; +inf entries share the row's
   mass equally (others 0). */
GKDEF gk_status gk_softmax(gk_ctx *ctx, gk_tensor out, gk_tensor x);
GKDEF gk_status gk_softmax_new(gk_ctx *ctx, gk_tensor x, gk_tensor *out);
GKDEF gk_status gk_log_softmax(gk_ctx *ctx, gk_tensor out, gk_tensor x);
GKDEF gk_status gk_log_softmax_new(gk_ctx *ctx, gk_tensor x, gk_tensor *out);
/* Inclusive cumulative sum along dim `axis` (f32 / f64 / f16 / bf16 accumulate in f32 / f64;
   i32 / i64 in i64, wrapping); out of x's shape and dtype. */
GKDEF gk_status gk_cumsum(gk_ctx *ctx, gk_tensor out, gk_tensor x, int axis);
GKDEF gk_status gk_cumsum_new(gk_ctx *ctx, gk_tensor x, int axis, gk_tensor *out);
/* The k largest entries along the last dim of x (f32 / f16 / bf16), largest first, ties by
   lower index, NaN above +inf (like torch.topk): values [..., k] (x's dtype, copied exactly) and
   indices [..., k] (i64). 0 <= k <= the last dim. */
GKDEF gk_status gk_topk(gk_ctx *ctx, gk_tensor values, gk_tensor indices, gk_tensor x, int64_t k);
GKDEF gk_status gk_topk_new(gk_ctx *ctx, gk_tensor x, int64_t k, gk_tensor *values, gk_tensor *indices);

/* Sampling of one token per row from logits [batch, vocab] (f32 / f16 / bf16) into
   tokens [batch] (i32), on the device, deterministic: the same inputs, seed and step give
   the same tokens on every run and on both backends. A zeroed descriptor is greedy.
   Per row, in this order:
     1. NaN logits count as -inf; penalties over the distinct tokens of prev[row]
        (i32 [batch, n_prev], entries < 0 or >= vocab ignored, e.g. -1 padding):
        repetition (x > 0 ? x / r : x * r), then x -= count * frequency + presence
        (HF / llama.cpp semantics).
     2. temperature <= 0: greedy, the first index of the largest logit.
     3. else weights w_i = floor(2^40 exp((x_i - max) / temperature)) (integers, so
        sums are exact in any order); candidates: the top_k largest logits (ties by
        lower index), then top-p (the shortest prefix, largest first, whose mass
        before each kept token is < top_p of the candidates' mass), then min-p
        ((x_i - max) / T >= log(min_p)); one draw r = floor(u * total) with u from
        Philox4x32-10 (counter {row, step lo, step hi, 0}, key {seed lo, seed hi})
        picks the candidate where the running weight passes r (index order when
        neither top_k nor top_p filter, else largest first).
   A row with no finite logit gives -1. One block per row; with top_k / top_p the
   candidates (less those of weight 0) are sorted in shared memory up to 4096 of them,
   else in the workspace (correct, slower: e.g. top_p without top_k on flat logits). */
typedef struct gk_sample_desc {
    float temperature;        /* <= 0: greedy */
    int top_k;                /* 0: off; >= vocab: off */
    float top_p;              /* 0 or 1: off; else in (0, 1) */
    float min_p;              /* 0: off; else in (0, 1] */
    float repetition_penalty; /* 0 or 1: off; else > 0 */
    float presence_penalty;   /* 0: off */
    float frequency_penalty;  /* 0: off */
    uint64_t seed;
    uint64_t step;            /* e.g. the position of the token being sampled */
} gk_sample_desc;
/* prev may be a null handle ({0}) when no penalty applies; desc NULL means greedy. */
GKDEF gk_status gk_sample(gk_ctx *ctx, gk_tensor tokens, gk_tensor logits, gk_tensor prev, const gk_sample_desc *desc);
/* One Philox4x32-10 block: out = philox(counter, key) (the generator gk_sample uses). */
GKDEF void gk_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]);
/* end of >>api_ops_math */

/* >>api_ops_nn: norms, positions (RoPE), layout (permute, concat, gather, pad, interpolate)
   (declarations of this group go below this line) */

/* end of >>api_ops_nn */

/* >>api_ops_signal: convolution, LSTM, FFT / STFT / mel, Whisper log-mel
   (declarations of this group go below this line) */

/* end of >>api_ops_signal */

#ifdef __cplusplus
}
#endif
#endif /* GPUKIT_H */

/* ======================================================================== */
/*                              IMPLEMENTATION                              */
/* ======================================================================== */
#ifdef GPUKIT_IMPLEMENTATION
#ifndef GPUKIT_IMPLEMENTATION_DONE
#define GPUKIT_IMPLEMENTATION_DONE

#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <direct.h>
#include <io.h>
#include <process.h>
#else
#if !defined(_POSIX_C_SOURCE) && !defined(__cplusplus)
/* pthreads, dlopen, clock_gettime, mkdir: declared by POSIX headers */
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <time.h>
#endif
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpukit_kernels.h"

#if defined(GPUKIT_MALLOC) && defined(GPUKIT_FREE) && defined(GPUKIT_REALLOC)
/* ok */
#elif !defined(GPUKIT_MALLOC) && !defined(GPUKIT_FREE) && !defined(GPUKIT_REALLOC)
#define GPUKIT_MALLOC(sz) malloc(sz)
#define GPUKIT_REALLOC(p, sz) realloc(p, sz)
#define GPUKIT_FREE(p) free(p)
#else
#error "Must define all or none of GPUKIT_MALLOC, GPUKIT_FREE, and GPUKIT_REALLOC."
#endif

#ifdef __cplusplus
#define GK__CAST(T, x) (static_cast<T>(x))
#define GK__RCAST(T, x) (reinterpret_cast<T>(x))
#else
#define GK__CAST(T, x) ((T)(x))
#define GK__RCAST(T, x) ((T)(x))
#endif
#define GK__ALLOC(T, n) GK__CAST(T *, GPUKIT_MALLOC(sizeof(T) * (size_t)(n)))
#define GK__CALLOC(T, n) GK__CAST(T *, gk__calloc(sizeof(T) * (size_t)(n)))
#define GK__UNUSED(x) ((void)(x))
#if defined(__GNUC__) || defined(__clang__)
#define GK__MAYBE_UNUSED __attribute__((unused)) /* helpers for ops still to come */
#else
#define GK__MAYBE_UNUSED
#endif
#define GK__MIN(a, b) ((a) < (b) ? (a) : (b))
#define GK__MAX(a, b) ((a) > (b) ? (a) : (b))

#if defined(__cplusplus)
#define GK__TLS thread_local
#elif defined(_MSC_VER)
#define GK__TLS __declspec(thread)
#else
#define GK__TLS __thread
#endif

static void *gk__calloc(size_t n) {
    void *p = GPUKIT_MALLOC(n ? n : 1);
    if (p) memset(p, 0, n ? n : 1);
    return p;
}
static char *gk__strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = GK__CAST(char *, GPUKIT_MALLOC(n));
    if (p) memcpy(p, s, n);
    return p;
}

/* ------------------------------------------------------------------------ */
/* >>platform */
#if defined(_WIN32)
typedef HMODULE gk__lib;
static gk__lib gk__dlopen(const char *name) { return LoadLibraryA(name); }
static void *gk__dlsym(gk__lib l, const char *name) {
    FARPROC p = GetProcAddress(l, name);
    void *r;
    memcpy(&r, &p, sizeof r);
    return r;
}
static void gk__dlclose(gk__lib l) { if (l) FreeLibrary(l); }
static const char *gk__dlerror(char *buf, size_t n) {
    snprintf(buf, n, "LoadLibrary error %lu", (unsigned long)GetLastError());
    return buf;
}
typedef CRITICAL_SECTION gk__mutex;
static void gk__mutex_init(gk__mutex *m) { InitializeCriticalSection(m); }
static void gk__mutex_destroy(gk__mutex *m) { DeleteCriticalSection(m); }
static void gk__lock(gk__mutex *m) { EnterCriticalSection(m); }
static void gk__unlock(gk__mutex *m) { LeaveCriticalSection(m); }
static double gk__now_ms(void) {
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart * 1000.0 / (double)f.QuadPart;
}
static int gk__mkdir1(const char *p) { return _mkdir(p) == 0 || errno == EEXIST ? 0 : -1; }
static int gk__rename_replace(const char *a, const char *b) { return MoveFileExA(a, b, MOVEFILE_REPLACE_EXISTING) ? 0 : -1; }
static unsigned long gk__pid(void) { return (unsigned long)_getpid(); }
static size_t gk__host_ram(void) {
    MEMORYSTATUSEX ms;
    ms.dwLength = sizeof ms;
    return GlobalMemoryStatusEx(&ms) ? (size_t)ms.ullTotalPhys : (size_t)8 << 30;
}
#define GK__PATH_SEP '\\'
#else
typedef void *gk__lib;
static gk__lib gk__dlopen(const char *name) { return dlopen(name, RTLD_NOW | RTLD_LOCAL); }
static void *gk__dlsym(gk__lib l, const char *name) { return dlsym(l, name); }
static void gk__dlclose(gk__lib l) { if (l) dlclose(l); }
static const char *gk__dlerror(char *buf, size_t n) {
    const char *e = dlerror();
    snprintf(buf, n, "%s", e ? e : "unknown dlopen error");
    return buf;
}
typedef pthread_mutex_t gk__mutex;
static void gk__mutex_init(gk__mutex *m) { pthread_mutex_init(m, NULL); }
static void gk__mutex_destroy(gk__mutex *m) { pthread_mutex_destroy(m); }
static void gk__lock(gk__mutex *m) { pthread_mutex_lock(m); }
static void gk__unlock(gk__mutex *m) { pthread_mutex_unlock(m); }
static double gk__now_ms(void) {
#if defined(CLOCK_MONOTONIC)
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
#else /* a system header came first without POSIX: processor time */
    return (double)clock() * 1000.0 / CLOCKS_PER_SEC;
#endif
}
static int gk__mkdir1(const char *p) { return mkdir(p, 0755) == 0 || errno == EEXIST ? 0 : -1; }
static int gk__rename_replace(const char *a, const char *b) { return rename(a, b); }
static unsigned long gk__pid(void) { return (unsigned long)getpid(); }
static size_t gk__host_ram(void) {
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGE_SIZE);
    return (pages > 0 && psize > 0) ? (size_t)pages * (size_t)psize : (size_t)8 << 30;
}
#define GK__PATH_SEP '/'
#endif

/* mkdir -p */
static int gk__mkdirs(const char *path) {
    char buf[1024];
    size_t i, n = strlen(path);
    if (n == 0 || n >= sizeof buf) return -1;
    memcpy(buf, path, n + 1);
    for (i = 1; i < n; i++) {
        if (buf[i] == '/' || buf[i] == '\\') {
            char c = buf[i];
            buf[i] = 0;
            if (gk__mkdir1(buf) != 0) return -1;
            buf[i] = c;
        }
    }
    return gk__mkdir1(buf);
}

/* ------------------------------------------------------------------------ */
/* >>cuda_decls
   Our own declarations of the few CUDA driver, NVRTC and cuBLASLt types,
   constants and entry points gpukit uses (checked against the toolkit's
   headers by tests/test_decls.c). Names carry the gk__ prefix so a program
   may include cuda.h in the same file. */
typedef int gk__cu_result;
typedef int gk__cu_device;
typedef unsigned long long gk__cu_ptr;
typedef struct gk__cu_ctx_st *gk__cu_ctx;
typedef struct gk__cu_mod_st *gk__cu_module;
typedef struct gk__cu_func_st *gk__cu_function;
typedef struct gk__cu_stream_st *gk__cu_stream;
typedef struct gk__cu_event_st *gk__cu_event;
typedef struct gk__cu_graph_st *gk__cu_graph;
typedef struct gk__cu_graphexec_st *gk__cu_graph_exec;

enum {
    GK__CUDA_SUCCESS = 0,
    GK__CUDA_ERROR_OUT_OF_MEMORY = 2,
    GK__CUDA_ERROR_NOT_INITIALIZED = 3,
    GK__CUDA_ERROR_NO_DEVICE = 100,
    GK__CUDA_ERROR_INVALID_DEVICE = 101,
    GK__CUDA_ERROR_STUB_LIBRARY = 34,
    GK__CUDA_ERROR_NOT_READY = 600,
    GK__CUDA_ERROR_NOT_FOUND = 500
};
enum {
    GK__CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    GK__CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
    GK__CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    GK__CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
    GK__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    GK__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    GK__CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97
};
enum {
    GK__CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
    GK__CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
    GK__CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
    GK__CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
    GK__CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
};
enum { GK__CU_STREAM_NON_BLOCKING = 1 };
enum { GK__CU_EVENT_DEFAULT = 0 };
enum { GK__CU_STREAM_CAPTURE_MODE_RELAXED = 2 };
enum { GK__CU_STREAM_CAPTURE_STATUS_NONE = 0, GK__CU_STREAM_CAPTURE_STATUS_ACTIVE = 1 };

#if defined(_WIN32)
#define GK__CUDAAPI __stdcall
#else
#define GK__CUDAAPI
#endif

/* X(return type, exported symbol, field name, (parameters), required) */
#define GK__CU_FUNCS(X)                                                                          \
    X(gk__cu_result, cuInit, Init, (unsigned flags), 1)                                          \
    X(gk__cu_result, cuDriverGetVersion, DriverGetVersion, (int *v), 1)                          \
    X(gk__cu_result, cuGetErrorName, GetErrorName, (gk__cu_result e, const char **s), 1)         \
    X(gk__cu_result, cuGetErrorString, GetErrorString, (gk__cu_result e, const char **s), 1)     \
    X(gk__cu_result, cuDeviceGetCount, DeviceGetCount, (int *n), 1)                              \
    X(gk__cu_result, cuDeviceGet, DeviceGet, (gk__cu_device * d, int ordinal), 1)                \
    X(gk__cu_result, cuDeviceGetName, DeviceGetName, (char *name, int len, gk__cu_device d), 1)  \
    X(gk__cu_result, cuDeviceGetAttribute, DeviceGetAttribute, (int *v, int attr, gk__cu_device d), 1) \
    X(gk__cu_result, cuDeviceTotalMem_v2, DeviceTotalMem, (size_t * b, gk__cu_device d), 1)      \
    X(gk__cu_result, cuDevicePrimaryCtxRetain, PrimaryCtxRetain, (gk__cu_ctx * c, gk__cu_device d), 1) \
    X(gk__cu_result, cuDevicePrimaryCtxRelease_v2, PrimaryCtxRelease, (gk__cu_device d), 1)      \
    X(gk__cu_result, cuCtxSetCurrent, CtxSetCurrent, (gk__cu_ctx c), 1)                          \
    X(gk__cu_result, cuCtxSynchronize, CtxSynchronize, (void), 1)                                \
    X(gk__cu_result, cuCtxGetStreamPriorityRange, CtxGetStreamPriorityRange, (int *least, int *greatest), 1) \
    X(gk__cu_result, cuMemGetInfo_v2, MemGetInfo, (size_t * free_b, size_t * total_b), 1)         \
    X(gk__cu_result, cuMemAlloc_v2, MemAlloc, (gk__cu_ptr * p, size_t n), 1)                     \
    X(gk__cu_result, cuMemFree_v2, MemFree, (gk__cu_ptr p), 1)                                   \
    X(gk__cu_result, cuMemAllocHost_v2, MemAllocHost, (void **p, size_t n), 1)                   \
    X(gk__cu_result, cuMemFreeHost, MemFreeHost, (void *p), 1)                                   \
    X(gk__cu_result, cuMemcpyHtoD_v2, MemcpyHtoD, (gk__cu_ptr d, const void *s, size_t n), 1)    \
    X(gk__cu_result, cuMemcpyDtoH_v2, MemcpyDtoH, (void *d, gk__cu_ptr s, size_t n), 1)          \
    X(gk__cu_result, cuMemcpyHtoDAsync_v2, MemcpyHtoDAsync, (gk__cu_ptr d, const void *s, size_t n, gk__cu_stream st), 1) \
    X(gk__cu_result, cuMemcpyDtoHAsync_v2, MemcpyDtoHAsync, (void *d, gk__cu_ptr s, size_t n, gk__cu_stream st), 1) \
    X(gk__cu_result, cuMemcpyDtoDAsync_v2, MemcpyDtoDAsync, (gk__cu_ptr d, gk__cu_ptr s, size_t n, gk__cu_stream st), 1) \
    X(gk__cu_result, cuMemsetD8Async, MemsetD8Async, (gk__cu_ptr d, unsigned char v, size_t n, gk__cu_stream st), 1) \
    X(gk__cu_result, cuStreamCreateWithPriority, StreamCreateWithPriority, (gk__cu_stream * s, unsigned flags, int prio), 1) \
    X(gk__cu_result, cuStreamDestroy_v2, StreamDestroy, (gk__cu_stream s), 1)                    \
    X(gk__cu_result, cuStreamSynchronize, StreamSynchronize, (gk__cu_stream s), 1)               \
    X(gk__cu_result, cuStreamQuery, StreamQuery, (gk__cu_stream s), 1)                           \
    X(gk__cu_result, cuStreamWaitEvent, StreamWaitEvent, (gk__cu_stream s, gk__cu_event e, unsigned flags), 1) \
    X(gk__cu_result, cuEventCreate, EventCreate, (gk__cu_event * e, unsigned flags), 1)          \
    X(gk__cu_result, cuEventDestroy_v2, EventDestroy, (gk__cu_event e), 1)                       \
    X(gk__cu_result, cuEventRecord, EventRecord, (gk__cu_event e, gk__cu_stream s), 1)           \
    X(gk__cu_result, cuEventSynchronize, EventSynchronize, (gk__cu_event e), 1)                  \
    X(gk__cu_result, cuEventQuery, EventQuery, (gk__cu_event e), 1)                              \
    X(gk__cu_result, cuEventElapsedTime, EventElapsedTime, (float *ms, gk__cu_event a, gk__cu_event b), 1) \
    X(gk__cu_result, cuModuleLoadData, ModuleLoadData, (gk__cu_module * m, const void *image), 1) \
    X(gk__cu_result, cuModuleUnload, ModuleUnload, (gk__cu_module m), 1)                         \
    X(gk__cu_result, cuModuleGetFunction, ModuleGetFunction, (gk__cu_function * f, gk__cu_module m, const char *name), 1) \
    X(gk__cu_result, cuFuncGetAttribute, FuncGetAttribute, (int *v, int attr, gk__cu_function f), 1) \
    X(gk__cu_result, cuFuncSetAttribute, FuncSetAttribute, (gk__cu_function f, int attr, int v), 1) \
    X(gk__cu_result, cuFuncGetParamInfo, FuncGetParamInfo, (gk__cu_function f, size_t i, size_t *off, size_t *size), 0) \
    X(gk__cu_result, cuLaunchKernel, LaunchKernel, (gk__cu_function f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem, gk__cu_stream s, void **params, void **extra), 1) \
    X(gk__cu_result, cuLaunchCooperativeKernel, LaunchCooperativeKernel, (gk__cu_function f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem, gk__cu_stream s, void **params), 1) \
    X(gk__cu_result, cuOccupancyMaxActiveBlocksPerMultiprocessor, OccupancyMaxActiveBlocksPerMultiprocessor, (int *nblocks, gk__cu_function f, int block_size, size_t smem), 1) \
    X(gk__cu_result, cuStreamBeginCapture_v2, StreamBeginCapture, (gk__cu_stream s, int mode), 1) \
    X(gk__cu_result, cuStreamEndCapture, StreamEndCapture, (gk__cu_stream s, gk__cu_graph * g), 1) \
    X(gk__cu_result, cuStreamIsCapturing, StreamIsCapturing, (gk__cu_stream s, int *status), 1)  \
    X(gk__cu_result, cuGraphInstantiateWithFlags, GraphInstantiate, (gk__cu_graph_exec * e, gk__cu_graph g, unsigned long long flags), 1) \
    X(gk__cu_result, cuGraphLaunch, GraphLaunch, (gk__cu_graph_exec e, gk__cu_stream s), 1)      \
    X(gk__cu_result, cuGraphExecDestroy, GraphExecDestroy, (gk__cu_graph_exec e), 1)             \
    X(gk__cu_result, cuGraphDestroy, GraphDestroy, (gk__cu_graph g), 1)

typedef int gk__nvrtc_result;
typedef struct gk__nvrtc_prog_st *gk__nvrtc_program;
#define GK__NVRTC_FUNCS(X)                                                                       \
    X(gk__nvrtc_result, nvrtcVersion, Version, (int *major, int *minor), 1)                      \
    X(const char *, nvrtcGetErrorString, GetErrorString, (gk__nvrtc_result r), 1)               \
    X(gk__nvrtc_result, nvrtcGetNumSupportedArchs, GetNumSupportedArchs, (int *n), 0)           \
    X(gk__nvrtc_result, nvrtcGetSupportedArchs, GetSupportedArchs, (int *archs), 0)             \
    X(gk__nvrtc_result, nvrtcCreateProgram, CreateProgram, (gk__nvrtc_program * p, const char *src, const char *name, int nh, const char *const *headers, const char *const *include_names), 1) \
    X(gk__nvrtc_result, nvrtcDestroyProgram, DestroyProgram, (gk__nvrtc_program * p), 1)         \
    X(gk__nvrtc_result, nvrtcCompileProgram, CompileProgram, (gk__nvrtc_program p, int nopt, const char *const *opts), 1) \
    X(gk__nvrtc_result, nvrtcGetProgramLogSize, GetProgramLogSize, (gk__nvrtc_program p, size_t *n), 1) \
    X(gk__nvrtc_result, nvrtcGetProgramLog, GetProgramLog, (gk__nvrtc_program p, char *log), 1)  \
    X(gk__nvrtc_result, nvrtcGetPTXSize, GetPTXSize, (gk__nvrtc_program p, size_t *n), 1)        \
    X(gk__nvrtc_result, nvrtcGetPTX, GetPTX, (gk__nvrtc_program p, char *ptx), 1)                \
    X(gk__nvrtc_result, nvrtcGetCUBINSize, GetCUBINSize, (gk__nvrtc_program p, size_t *n), 1)    \
    X(gk__nvrtc_result, nvrtcGetCUBIN, GetCUBIN, (gk__nvrtc_program p, char *cubin), 1)

typedef int gk__cublas_status;
typedef struct gk__cublaslt_st *gk__cublaslt_handle;
#define GK__CUBLASLT_FUNCS(X)                                                                    \
    X(size_t, cublasLtGetVersion, GetVersion, (void), 1)                                        \
    X(gk__cublas_status, cublasLtCreate, Create, (gk__cublaslt_handle * h), 1)                  \
    X(gk__cublas_status, cublasLtDestroy, Destroy, (gk__cublaslt_handle h), 1)

#define GK__FN_FIELD(ret, sym, field, params, req) ret(GK__CUDAAPI *field) params;
typedef struct gk__cu_api { GK__CU_FUNCS(GK__FN_FIELD) } gk__cu_api;
typedef struct gk__nvrtc_api { GK__NVRTC_FUNCS(GK__FN_FIELD) } gk__nvrtc_api;
typedef struct gk__cublaslt_api { GK__CUBLASLT_FUNCS(GK__FN_FIELD) } gk__cublaslt_api;
#undef GK__FN_FIELD

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
    gk__libmod lib[GK__MOD_COUNT > 0 ? GK__MOD_COUNT : 1];
    char *cache_dir;
    gk_jit_stats jst;
    /* tensors and pool */
    gk__slot **pages;
    uint32_t npages, nslots, free_slot; /* free_slot: 1-based index, 0 = none */
    gk__pool pool;
};

/* ------------------------------------------------------------------------ */
/* >>errors */
static GK__TLS char gk__tls_err[GK__ERRBUF];

#define GK__STATUS_NAME(name, msg) "GK_" #name,
#define GK__STATUS_MSG(name, msg) msg,
static const char *const gk__status_names[] = { GK__STATUS_LIST(GK__STATUS_NAME) "GK_STATUS_COUNT" };
static const char *const gk__status_msgs[] = { GK__STATUS_LIST(GK__STATUS_MSG) "invalid status" };
#undef GK__STATUS_NAME
#undef GK__STATUS_MSG

GKDEF const char *gk_status_name(gk_status s) {
    return (s >= 0 && s < GK_STATUS_COUNT) ? gk__status_names[s] : "GK_STATUS_INVALID";
}
GKDEF const char *gk_status_message(gk_status s) {
    return (s >= 0 && s < GK_STATUS_COUNT) ? gk__status_msgs[s] : "invalid status";
}
GKDEF const char *gk_last_error(gk_ctx *ctx) { return ctx ? ctx->err : gk__tls_err; }
GKDEF void gk_error_clear(gk_ctx *ctx) {
    if (ctx) ctx->err[0] = 0;
    else gk__tls_err[0] = 0;
}

static void gk__log(gk_ctx *ctx, gk_log_level lvl, const char *fmt, ...) GK__PRINTF(3, 4);
static void gk__log(gk_ctx *ctx, gk_log_level lvl, const char *fmt, ...) {
    char buf[2048];
    va_list ap;
    gk_log_level thr = (ctx && ctx->desc.log_level != GK_LOG_DEFAULT) ? ctx->desc.log_level : GK_LOG_WARN;
    if (thr == GK_LOG_OFF || lvl > thr) return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (ctx && ctx->desc.log) ctx->desc.log(lvl, buf, ctx->desc.log_user);
    else fprintf(stderr, "gpukit %s: %s\n", lvl == GK_LOG_ERROR ? "error" : lvl == GK_LOG_WARN ? "warning" : "info", buf);
}

static gk_status gk__verr(gk_ctx *ctx, gk_status st, const char *fmt, va_list ap) {
    char *buf = ctx ? ctx->err : gk__tls_err;
    vsnprintf(buf, GK__ERRBUF, fmt, ap);
    return st;
}
GKDEF gk_status gk_error_set(gk_ctx *ctx, gk_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    gk__verr(ctx, st, fmt, ap);
    va_end(ap);
    return st;
}
/* gk__err(ctx, status, "gk_add: shapes %s and %s do not broadcast", ...) */
static gk_status gk__err(gk_ctx *ctx, gk_status st, const char *fmt, ...) GK__PRINTF(3, 4);
static gk_status gk__err(gk_ctx *ctx, gk_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    gk__verr(ctx, st, fmt, ap);
    va_end(ap);
    gk__log(ctx, GK_LOG_DEBUG, "%s: %s", gk_status_name(st), ctx ? ctx->err : gk__tls_err);
    return st;
}

static const char *gk__cu_errname(gk_ctx *ctx, gk__cu_result r) {
    const char *s = NULL;
    if (r == GK__CUDA_ERROR_STUB_LIBRARY) return "CUDA_ERROR_STUB_LIBRARY";
    if (ctx && ctx->cu.GetErrorName && ctx->cu.GetErrorName(r, &s) == 0 && s) return s;
    return "CUDA_ERROR_UNKNOWN";
}
static const char *gk__cu_errstr(gk_ctx *ctx, gk__cu_result r) {
    const char *s = NULL;
    if (r == GK__CUDA_ERROR_STUB_LIBRARY) return "the loaded libcuda is the toolkit's stub library, not a driver";
    if (ctx && ctx->cu.GetErrorString && ctx->cu.GetErrorString(r, &s) == 0 && s) return s;
    return "unknown error";
}
/* An error from a CUDA call: "where: call failed: CUDA_ERROR_X (text)" */
static gk_status gk__cu_fail(gk_ctx *ctx, gk__cu_result r, const char *where, const char *call) {
    gk_status st = r == GK__CUDA_ERROR_OUT_OF_MEMORY ? GK_ERR_OUT_OF_MEMORY : GK_ERR_CUDA;
    return gk__err(ctx, st, "%s: %s failed: %s (%s)", where, call, gk__cu_errname(ctx, r), gk__cu_errstr(ctx, r));
}
#define GK__CU(ctx, call, where)                                                   \
    do {                                                                           \
        gk__cu_result r_ = (call);                                                 \
        if (r_ != GK__CUDA_SUCCESS) return gk__cu_fail((ctx), r_, (where), #call); \
    } while (0)
#define GK__TRY(x)                       \
    do {                                 \
        gk_status st_ = (x);             \
        if (st_ != GK_OK) return st_;    \
    } while (0)

/* ------------------------------------------------------------------------ */
/* >>dtypes */
static const size_t gk__dtype_sizes[GK_DTYPE_COUNT] = { 4, 8, 2, 2, 1, 1, 1, 1, 4, 8 };
static const char *const gk__dtype_names[GK_DTYPE_COUNT] = {
    "f32", "f64", "f16", "bf16", "f8e4m3", "f8e5m2", "i8", "u8", "i32", "i64" };

GKDEF size_t gk_dtype_size(gk_dtype dt) { return (dt >= 0 && dt < GK_DTYPE_COUNT) ? gk__dtype_sizes[dt] : 0; }
GKDEF const char *gk_dtype_name(gk_dtype dt) { return (dt >= 0 && dt < GK_DTYPE_COUNT) ? gk__dtype_names[dt] : "invalid"; }
GKDEF int gk_dtype_is_float(gk_dtype dt) { return dt >= GK_F32 && dt <= GK_F8E5M2; }
GKDEF gk_status gk_dtype_from_name(const char *name, gk_dtype *out) {
    int i;
    if (!name || !out) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "gk_dtype_from_name: NULL argument");
    for (i = 0; i < GK_DTYPE_COUNT; i++)
        if (strcmp(name, gk__dtype_names[i]) == 0) { *out = (gk_dtype)i; return GK_OK; }
    return gk__err(NULL, GK_ERR_DTYPE, "gk_dtype_from_name: unknown dtype '%s'", name);
}
static int gk__dtype_ok(gk_dtype dt) { return dt >= 0 && dt < GK_DTYPE_COUNT; }

/* Narrow float formats: exponent bits, mantissa bits, has inf (else satfinite). */
typedef struct gk__ffmt { int ebits, mbits, has_inf; } gk__ffmt;
static const gk__ffmt gk__fmt_f16 = { 5, 10, 1 }, gk__fmt_bf16 = { 8, 7, 1 },
                      gk__fmt_e4m3 = { 4, 3, 0 }, gk__fmt_e5m2 = { 5, 2, 1 };

/* Rounds sign * m * 2^(e - 63) (m has its top bit set, sticky already folded
   into bit 0) to the format, round to nearest even. */
static uint32_t gk__round_fmt(int sign, int e, uint64_t m, gk__ffmt f) {
    int bias = (1 << (f.ebits - 1)) - 1, emin = 1 - bias;
    uint32_t sbit = (uint32_t)sign << (f.ebits + f.mbits);
    uint32_t maxfin = f.has_inf ? ((((1u << f.ebits) - 2u) << f.mbits) | ((1u << f.mbits) - 1u))
                                : ((((1u << f.ebits) - 1u) << f.mbits) | ((1u << f.mbits) - 2u));
    uint32_t inf = ((1u << f.ebits) - 1u) << f.mbits;
    int shift = 63 - f.mbits + (e < emin ? emin - e : 0);
    uint64_t kept, rem, half;
    uint32_t bits;
    if (e > bias + 1) return sbit | (f.has_inf ? inf : maxfin);
    if (shift > 64) return sbit; /* below half of the smallest subnormal */
    if (shift == 64) { kept = 0; rem = m; half = (uint64_t)1 << 63; }
    else { kept = m >> shift; rem = m & (((uint64_t)1 << shift) - 1); half = (uint64_t)1 << (shift - 1); }
    if (rem > half || (rem == half && (kept & 1))) kept++;
    if (e < emin) bits = (uint32_t)kept; /* subnormal; a carry into bit mbits makes it normal */
    else bits = ((uint32_t)(e + bias - 1) << f.mbits) + (uint32_t)kept;
    if (bits > maxfin) bits = f.has_inf ? inf : maxfin;
    return sbit | bits;
}
/* canonical quiet NaN: exponent all ones, top mantissa bit (f16 0x7E00, bf16
   0x7FC0, e5m2 0x7E); e4m3's only NaN is 0x7F */
static uint32_t gk__fmt_nan(gk__ffmt f) {
    return f.has_inf ? (((1u << f.ebits) - 1u) << f.mbits) | (1u << (f.mbits - 1)) : (1u << (f.ebits + f.mbits)) - 1u;
}

static uint32_t gk__f64_to_fmt(double x, gk__ffmt f) {
    uint64_t u, m;
    int sign, ex;
    memcpy(&u, &x, 8);
    sign = (int)(u >> 63);
    ex = (int)((u >> 52) & 0x7FF);
    m = u & 0xFFFFFFFFFFFFFull;
    if (ex == 0x7FF) {
        if (m) return gk__fmt_nan(f);
        return ((uint32_t)sign << (f.ebits + f.mbits)) |
               (f.has_inf ? ((1u << f.ebits) - 1u) << f.mbits
                          : ((((1u << f.ebits) - 1u) << f.mbits) | ((1u << f.mbits) - 2u)));
    }
    if (ex == 0) {
        if (m == 0) return (uint32_t)sign << (f.ebits + f.mbits);
        ex = 1 - 1023;
        while (!(m & (1ull << 52))) { m <<= 1; ex--; }
    } else {
        ex -= 1023;
        m |= 1ull << 52;
    }
    return gk__round_fmt(sign, ex, m << 11, f);
}
static uint32_t gk__u64_to_fmt(int sign, uint64_t mag, gk__ffmt f) {
    int e = 63;
    if (mag == 0) return (uint32_t)sign << (f.ebits + f.mbits);
    while (!(mag & (1ull << 63))) { mag <<= 1; e--; }
    return gk__round_fmt(sign, e, mag, f);
}
static double gk__fmt_to_f64(uint32_t b, gk__ffmt f) {
    int bias = (1 << (f.ebits - 1)) - 1;
    int sign = (int)((b >> (f.ebits + f.mbits)) & 1);
    int ex = (int)((b >> f.mbits) & ((1u << f.ebits) - 1));
    uint32_t man = b & ((1u << f.mbits) - 1);
    double v;
    if (ex == (1 << f.ebits) - 1 && (f.has_inf || man == (1u << f.mbits) - 1)) {
        if (f.has_inf && man == 0) v = HUGE_VAL;
        else return NAN;
    } else if (ex == 0) v = ldexp((double)man, 1 - bias - f.mbits);
    else v = ldexp((double)(man | (1u << f.mbits)), ex - bias - f.mbits);
    return sign ? -v : v;
}

GKDEF uint16_t gk_f32_to_f16(float x) { return (uint16_t)gk__f64_to_fmt((double)x, gk__fmt_f16); }
GKDEF float gk_f16_to_f32(uint16_t h) { return (float)gk__fmt_to_f64(h, gk__fmt_f16); }
GKDEF uint16_t gk_f32_to_bf16(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0;
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
GKDEF float gk_bf16_to_f32(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
GKDEF uint8_t gk_f32_to_f8e4m3(float x) { return (uint8_t)gk__f64_to_fmt((double)x, gk__fmt_e4m3); }
GKDEF float gk_f8e4m3_to_f32(uint8_t v) { return (float)gk__fmt_to_f64(v, gk__fmt_e4m3); }
GKDEF uint8_t gk_f32_to_f8e5m2(float x) { return (uint8_t)gk__f64_to_fmt((double)x, gk__fmt_e5m2); }
GKDEF float gk_f8e5m2_to_f32(uint8_t v) { return (float)gk__fmt_to_f64(v, gk__fmt_e5m2); }

/* A loaded scalar: integers stay exact in i, floats are exact in f. */
typedef struct gk__scalar { int is_int; int64_t i; double f; } gk__scalar;

static gk__scalar gk__load(gk_dtype dt, const void *p) {
    gk__scalar s;
    s.is_int = 0; s.i = 0; s.f = 0;
    switch (dt) {
    case GK_F32: { float v; memcpy(&v, p, 4); s.f = v; break; }
    case GK_F64: memcpy(&s.f, p, 8); break;
    case GK_F16: { uint16_t v; memcpy(&v, p, 2); s.f = gk__fmt_to_f64(v, gk__fmt_f16); break; }
    case GK_BF16: { uint16_t v; memcpy(&v, p, 2); s.f = gk_bf16_to_f32(v); break; }
    case GK_F8E4M3: s.f = gk__fmt_to_f64(*(const uint8_t *)p, gk__fmt_e4m3); break;
    case GK_F8E5M2: s.f = gk__fmt_to_f64(*(const uint8_t *)p, gk__fmt_e5m2); break;
    case GK_I8: s.is_int = 1; s.i = *(const int8_t *)p; break;
    case GK_U8: s.is_int = 1; s.i = *(const uint8_t *)p; break;
    case GK_I32: { int32_t v; memcpy(&v, p, 4); s.is_int = 1; s.i = v; break; }
    case GK_I64: s.is_int = 1; memcpy(&s.i, p, 8); break;
    default: break;
    }
    return s;
}
static int64_t gk__f64_to_i64_sat(double x, int64_t lo, int64_t hi) {
    if (x != x) return 0;
    if (x <= (double)lo) return lo;
    if (x >= (double)hi) return hi; /* (double)INT64_MAX == 2^63 */
    return (int64_t)x;              /* truncates toward zero */
}
static void gk__store(gk_dtype dt, void *p, gk__scalar s) {
    switch (dt) {
    case GK_F32: { /* NaN -> canonical 0x7FC00000 */
        float v = s.is_int ? (float)s.i : (float)s.f;
        uint32_t u = 0x7FC00000u;
        if (v == v) memcpy(&u, &v, 4);
        memcpy(p, &u, 4);
        break;
    }
    case GK_F64: {
        double v = s.is_int ? (double)s.i : s.f;
        uint64_t u = 0x7FF8000000000000ull;
        if (v == v) memcpy(&u, &v, 8);
        memcpy(p, &u, 8);
        break;
    }
    case GK_F16: case GK_BF16: {
        gk__ffmt f = dt == GK_F16 ? gk__fmt_f16 : gk__fmt_bf16;
        uint16_t v = (uint16_t)(s.is_int ? gk__u64_to_fmt(s.i < 0, s.i < 0 ? 0 - (uint64_t)s.i : (uint64_t)s.i, f)
                                         : gk__f64_to_fmt(s.f, f));
        memcpy(p, &v, 2);
        break;
    }
    case GK_F8E4M3: case GK_F8E5M2: {
        gk__ffmt f = dt == GK_F8E4M3 ? gk__fmt_e4m3 : gk__fmt_e5m2;
        *(uint8_t *)p = (uint8_t)(s.is_int ? gk__u64_to_fmt(s.i < 0, s.i < 0 ? 0 - (uint64_t)s.i : (uint64_t)s.i, f)
                                           : gk__f64_to_fmt(s.f, f));
        break;
    }
    case GK_I8: *(int8_t *)p = (int8_t)(uint8_t)(s.is_int ? (uint64_t)s.i : (uint64_t)gk__f64_to_i64_sat(s.f, -128, 127)); break;
    case GK_U8: *(uint8_t *)p = (uint8_t)(s.is_int ? (uint64_t)s.i : (uint64_t)gk__f64_to_i64_sat(s.f, 0, 255)); break;
    case GK_I32: {
        int32_t v = (int32_t)(uint32_t)(s.is_int ? (uint64_t)s.i : (uint64_t)gk__f64_to_i64_sat(s.f, INT32_MIN, INT32_MAX));
        memcpy(p, &v, 4);
        break;
    }
    case GK_I64: { int64_t v = s.is_int ? s.i : gk__f64_to_i64_sat(s.f, INT64_MIN, INT64_MAX); memcpy(p, &v, 8); break; }
    default: break;
    }
}

GKDEF gk_status gk_convert(gk_dtype dt, void *dst, gk_dtype st, const void *src, size_t n) {
    size_t i, ds, ss;
    if (!gk__dtype_ok(dt) || !gk__dtype_ok(st)) return gk__err(NULL, GK_ERR_DTYPE, "gk_convert: invalid dtype (%d -> %d)", (int)st, (int)dt);
    if (n && (!dst || !src)) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "gk_convert: NULL buffer");
    ds = gk__dtype_sizes[dt]; ss = gk__dtype_sizes[st];
    if (dt == st) { if (dst != src) memmove(dst, src, n * ds); return GK_OK; }
    if (st == GK_F32 && dt == GK_BF16) { /* the common weight path, kept fast */
        for (i = 0; i < n; i++) { float v; uint16_t h; memcpy(&v, (const char *)src + 4 * i, 4); h = gk_f32_to_bf16(v); memcpy((char *)dst + 2 * i, &h, 2); }
        return GK_OK;
    }
    if (st == GK_BF16 && dt == GK_F32) {
        for (i = 0; i < n; i++) {
            uint16_t h;
            uint32_t u;
            memcpy(&h, (const char *)src + 2 * i, 2);
            u = ((h & 0x7FFFu) > 0x7F80u) ? 0x7FC00000u : (uint32_t)h << 16; /* canonical NaN */
            memcpy((char *)dst + 4 * i, &u, 4);
        }
        return GK_OK;
    }
    for (i = 0; i < n; i++) gk__store(dt, (char *)dst + i * ds, gk__load(st, (const char *)src + i * ss));
    return GK_OK;
}

/* ------------------------------------------------------------------------ */
/* >>loader */
static GK__TLS gk__cu_ctx gk__tls_bound;

/* Binds the context's CUDA context to the calling thread (cheap when bound). */
static gk_status gk__bind(gk_ctx *ctx) {
    if (ctx->backend != GK_BACKEND_CUDA || gk__tls_bound == ctx->cuctx) return GK_OK;
    GK__CU(ctx, ctx->cu.CtxSetCurrent(ctx->cuctx), "gpukit");
    gk__tls_bound = ctx->cuctx;
    return GK_OK;
}

/* Resolves the X-list of a library into api; fails naming a missing symbol. */
#define GK__RESOLVE(ret, sym, field, params, req)                                            \
    {                                                                                        \
        void *p_ = gk__dlsym(lib, #sym);                                                     \
        memcpy(&api->field, &p_, sizeof p_);                                                 \
        if (!p_ && (req)) { snprintf(missing, nmissing, "%s", #sym); return 0; }             \
    }
static int gk__resolve_cu(gk__lib lib, gk__cu_api *api, char *missing, size_t nmissing) {
    GK__CU_FUNCS(GK__RESOLVE)
    return 1;
}
static int gk__resolve_nvrtc(gk__lib lib, gk__nvrtc_api *api, char *missing, size_t nmissing) {
    GK__NVRTC_FUNCS(GK__RESOLVE)
    return 1;
}
static int gk__resolve_cublaslt(gk__lib lib, gk__cublaslt_api *api, char *missing, size_t nmissing) {
    GK__CUBLASLT_FUNCS(GK__RESOLVE)
    return 1;
}
#undef GK__RESOLVE

/* Opens the first library that loads: explicit path, then $env, then each name
   as is (the dynamic linker's search), then in the usual CUDA folders. On
   failure `why` says what was tried. */
static gk__lib gk__open_lib(const char *explicit_path, const char *env, const char *const *names,
                            char *why, size_t nwhy) {
    static const char *const dirs[] = {
#if defined(_WIN32)
        "%CUDA_PATH%\\bin\\x64", "%CUDA_PATH%\\bin",
#else
        "$CUDA_PATH/lib64", "$CUDA_HOME/lib64", "/usr/local/cuda/lib64",
        "/usr/local/cuda/targets/x86_64-linux/lib", "/usr/local/cuda/targets/sbsa-linux/lib",
        "/usr/lib/x86_64-linux-gnu", "/usr/lib64",
#endif
        NULL };
    char path[1024], err[512];
    const char *p = explicit_path ? explicit_path : getenv(env);
    gk__lib l;
    int i, j;
    why[0] = 0;
    if (p && *p) {
        l = gk__dlopen(p);
        if (!l) snprintf(why, nwhy, "%s (from %s): %s", p, explicit_path ? "desc" : env, gk__dlerror(err, sizeof err));
        return l;
    }
    for (i = 0; names[i]; i++) {
        l = gk__dlopen(names[i]);
        if (l) return l;
        if (i == 0) snprintf(why, nwhy, "%s: %s", names[0], gk__dlerror(err, sizeof err));
    }
    for (j = 0; dirs[j]; j++) {
        const char *d = dirs[j];
        char base[512];
        if (d[0] == '$' || d[0] == '%') { /* $VAR/rest or %VAR%\rest */
            char var[64];
            size_t k = 0;
            const char *s = d + 1, *v;
            while (*s && *s != '/' && *s != '%' && *s != '\\' && k + 1 < sizeof var) var[k++] = *s++;
            var[k] = 0;
            if (*s == '%') s++;
            v = getenv(var);
            if (!v || !*v) continue;
            snprintf(base, sizeof base, "%s%s", v, s);
        } else snprintf(base, sizeof base, "%s", d);
        for (i = 0; names[i]; i++) {
            snprintf(path, sizeof path, "%s%c%s", base, GK__PATH_SEP, names[i]);
            l = gk__dlopen(path);
            if (l) return l;
        }
    }
    return NULL;
}

#if defined(_WIN32)
static const char *const gk__cuda_names[] = { "nvcuda.dll", NULL };
static const char *const gk__nvrtc_names[] = { "nvrtc64_130_0.dll", "nvrtc64_120_0.dll", NULL };
static const char *const gk__cublaslt_names[] = { "cublasLt64_13.dll", "cublasLt64_12.dll", NULL };
#else
static const char *const gk__cuda_names[] = { "libcuda.so.1", "libcuda.so", NULL };
static const char *const gk__nvrtc_names[] = { "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", NULL };
static const char *const gk__cublaslt_names[] = { "libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so", NULL };
#endif

static void gk__load_nvrtc(gk_ctx *ctx) {
    char why[1200], missing[128];
    int maj = 0, min = 0, n = 0;
    gk__lib l = gk__open_lib(ctx->desc.nvrtc_lib, "GPUKIT_NVRTC_LIB", gk__nvrtc_names, why, sizeof why);
    if (!l) {
        gk__log(ctx, ctx->backend == GK_BACKEND_CUDA ? GK_LOG_WARN : GK_LOG_INFO,
                "NVRTC not found: GPU kernels unavailable unless already in the kernel cache (%s)", why);
        return;
    }
    if (!gk__resolve_nvrtc(l, &ctx->nvrtc, missing, sizeof missing)) {
        gk__log(ctx, GK_LOG_WARN, "NVRTC library lacks %s: GPU kernels unavailable", missing);
        gk__dlclose(l);
        memset(&ctx->nvrtc, 0, sizeof ctx->nvrtc);
        return;
    }
    ctx->nvrtc_lib = l;
    ctx->nvrtc.Version(&maj, &min);
    ctx->info.nvrtc_version = maj * 1000 + min * 10;
    ctx->info.has_nvrtc = 1;
    if (ctx->nvrtc.GetNumSupportedArchs && ctx->nvrtc.GetSupportedArchs &&
        ctx->nvrtc.GetNumSupportedArchs(&n) == 0 && n > 0 && n <= 64 &&
        ctx->nvrtc.GetSupportedArchs(ctx->nvrtc_archs) == 0)
        ctx->n_nvrtc_archs = n;
}

static void gk__load_cublaslt(gk_ctx *ctx) {
    char why[1200], missing[128];
    gk__lib l;
    if (ctx->desc.disable_cublaslt) return;
    l = gk__open_lib(ctx->desc.cublaslt_lib, "GPUKIT_CUBLASLT_LIB", gk__cublaslt_names, why, sizeof why);
    if (!l) { gk__log(ctx, GK_LOG_INFO, "cuBLASLt not found: using gpukit's own GEMM (%s)", why); return; }
    if (!gk__resolve_cublaslt(l, &ctx->lt, missing, sizeof missing)) {
        gk__log(ctx, GK_LOG_INFO, "cuBLASLt library lacks %s: using gpukit's own GEMM", missing);
        gk__dlclose(l);
        memset(&ctx->lt, 0, sizeof ctx->lt);
        return;
    }
    ctx->cublaslt_lib = l;
    ctx->info.cublaslt_version = ctx->lt.GetVersion();
    ctx->info.has_cublaslt = 1;
}

/* Brings up the CUDA backend, or returns a status and message saying why not. */
static gk_status gk__cuda_init(gk_ctx *ctx) {
#ifdef GPUKIT_NO_CUDA
    return gk__err(ctx, GK_ERR_NO_DRIVER, "CUDA driver not used: gpukit was built with GPUKIT_NO_CUDA");
#else
    char why[1200], missing[128];
    gk__cu_result r;
    int n = 0, v;
    size_t total = 0;
    gk__lib l = gk__open_lib(ctx->desc.cuda_lib, "GPUKIT_CUDA_LIB", gk__cuda_names, why, sizeof why);
    if (!l) return gk__err(ctx, GK_ERR_NO_DRIVER, "CUDA driver not found (%s)", why);
    if (!gk__resolve_cu(l, &ctx->cu, missing, sizeof missing)) {
        gk__dlclose(l);
        memset(&ctx->cu, 0, sizeof ctx->cu);
        return gk__err(ctx, GK_ERR_NO_DRIVER, "CUDA driver too old: it lacks %s", missing);
    }
    ctx->cu_lib = l;
    r = ctx->cu.Init(0);
    if (r == GK__CUDA_ERROR_STUB_LIBRARY)
        return gk__err(ctx, GK_ERR_NO_DRIVER,
                       "the CUDA driver library found is the toolkit's stub (CUDA_ERROR_STUB_LIBRARY): no NVIDIA driver is installed");
    if (r == GK__CUDA_ERROR_NO_DEVICE) return gk__err(ctx, GK_ERR_NO_DEVICE, "no CUDA device found (cuInit: CUDA_ERROR_NO_DEVICE)");
    if (r != 0) return gk__cu_fail(ctx, r, "gk_ctx_create", "cuInit");
    ctx->cu.DriverGetVersion(&ctx->info.driver_version);
    GK__CU(ctx, ctx->cu.DeviceGetCount(&n), "gk_ctx_create");
    if (n == 0) return gk__err(ctx, GK_ERR_NO_DEVICE, "no CUDA device found (cuDeviceGetCount == 0)");
    if (ctx->desc.device < 0 || ctx->desc.device >= n)
        return gk__err(ctx, GK_ERR_NO_DEVICE, "device %d requested, but %d CUDA device%s found", ctx->desc.device, n, n == 1 ? "" : "s");
    GK__CU(ctx, ctx->cu.DeviceGet(&ctx->dev, ctx->desc.device), "gk_ctx_create");
    ctx->cu.DeviceGetName(ctx->info.name, (int)sizeof ctx->info.name - 1, ctx->dev);
#define GK__ATTR(field, a) GK__CU(ctx, ctx->cu.DeviceGetAttribute(&v, a, ctx->dev), "gk_ctx_create"); field = v
    GK__ATTR(ctx->info.cc_major, GK__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    GK__ATTR(ctx->info.cc_minor, GK__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    GK__ATTR(ctx->info.sm_count, GK__CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    GK__ATTR(ctx->info.warp_size, GK__CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    GK__ATTR(ctx->info.max_threads_per_block, GK__CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    GK__ATTR(ctx->info.max_smem_per_block_optin, GK__CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    GK__ATTR(ctx->info.l2_bytes, GK__CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
#undef GK__ATTR
    GK__CU(ctx, ctx->cu.DeviceTotalMem(&total, ctx->dev), "gk_ctx_create");
    ctx->info.total_memory = total;
    snprintf(ctx->info.arch, sizeof ctx->info.arch, "sm_%d%d", ctx->info.cc_major, ctx->info.cc_minor);
    if (ctx->info.cc_major < 8)
        return gk__err(ctx, GK_ERR_UNSUPPORTED, "%s has compute capability %d.%d; gpukit needs 8.0 or newer",
                       ctx->info.name, ctx->info.cc_major, ctx->info.cc_minor);
    GK__CU(ctx, ctx->cu.PrimaryCtxRetain(&ctx->cuctx, ctx->dev), "gk_ctx_create");
    r = ctx->cu.CtxSetCurrent(ctx->cuctx);
    if (r != 0) {
        ctx->cu.PrimaryCtxRelease(ctx->dev);
        ctx->cuctx = NULL;
        return gk__cu_fail(ctx, r, "gk_ctx_create", "cuCtxSetCurrent");
    }
    gk__tls_bound = ctx->cuctx;
    ctx->cu.CtxGetStreamPriorityRange(&ctx->prio_least, &ctx->prio_greatest);
    r = ctx->cu.StreamCreateWithPriority(&ctx->default_stream.cu, GK__CU_STREAM_NON_BLOCKING, 0);
    if (r != 0) {
        ctx->cu.PrimaryCtxRelease(ctx->dev);
        ctx->cuctx = NULL;
        return gk__cu_fail(ctx, r, "gk_ctx_create", "cuStreamCreateWithPriority");
    }
    return GK_OK;
#endif
}

static void gk__unload_libs(gk_ctx *ctx) {
    if (ctx->cuctx && ctx->cu.PrimaryCtxRelease) ctx->cu.PrimaryCtxRelease(ctx->dev);
    if (gk__tls_bound == ctx->cuctx) gk__tls_bound = NULL;
    ctx->cuctx = NULL;
    /* The libraries stay loaded for the life of the process (as the CUDA
       runtime does): NVRTC and the driver keep global state that unloading
       would strand, and a later context finds them loaded. */
    ctx->cublaslt_lib = ctx->nvrtc_lib = ctx->cu_lib = NULL;
}

/* ------------------------------------------------------------------------ */
/* >>pool
   Every device allocation: size classes (4 per power of two from 512 B to
   64 MiB, 2 MiB steps above), cached free blocks reused per class, a quota on
   used + cached, LRU eviction (first cached free blocks back to the driver,
   then idle live blocks copied to host memory; restored on next use), pins.
   The CPU backend runs the same logic over malloc. Callers hold ctx->mu. */
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
    gk_stream *stream;          /* last stream that used it */
    uint64_t tick;              /* LRU clock */
    uint64_t cap_id;            /* last capture that pinned it */
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
    int synced = 0;
    while (P->used + P->cached + need > P->quota && P->cache_head) gk__pool_release(ctx, P->cache_head);
    if (P->used + need <= P->quota) return GK_OK;
    if (ctx->desc.disable_eviction)
        return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: %zu bytes needed, %zu of the quota %zu in use (eviction disabled)",
                       where, need, P->used, P->quota);
    for (b = P->live_head; b && P->used + need > P->quota; b = nx) {
        nx = b->next;
        if (b->pins > 0) continue;
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

static gk_status gk__pool_alloc(gk_ctx *ctx, size_t nbytes, gk__block **out, const char *where) {
    gk__pool *P = &ctx->pool;
    gk__block *b;
    size_t csize;
    int cls = gk__size_class(nbytes, &csize);
    gk_stream *s = ctx->cur_stream;
    *out = NULL;
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

static gk_status gk__pool_evict(gk_ctx *ctx, gk__block *b, const char *where) {
    gk__pool *P = &ctx->pool;
    void *h;
    if (b->state != GK__BLK_LIVE || b->pins > 0)
        return gk__err(ctx, GK_ERR_STATE, "%s: storage is pinned or not resident; it cannot be evicted", where);
    h = GPUKIT_MALLOC(b->size);
    if (!h) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: no host memory (%zu bytes) to evict to", where, b->size);
    if (ctx->backend == GK_BACKEND_CUDA) {
        gk__cu_result r;
        gk__stream_wait_idle(ctx, b->stream);
        r = ctx->cu.MemcpyDtoH(h, b->ptr, b->size);
        if (r != 0) { GPUKIT_FREE(h); return gk__cu_fail(ctx, r, where, "cuMemcpyDtoH_v2 (eviction)"); }
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

static gk_status gk__pool_restore(gk_ctx *ctx, gk__block *b, gk_stream *s, const char *where) {
    gk__pool *P = &ctx->pool;
    gk__cu_ptr p = 0;
    GK__TRY(gk__pool_get_memory(ctx, b->size, &p, where));
    if (ctx->backend == GK_BACKEND_CUDA) {
        gk__cu_stream cs = s ? s->cu : ctx->default_stream.cu;
        gk__cu_result r = ctx->cu.MemcpyHtoDAsync(p, b->host, b->size, cs);
        if (r == 0) r = ctx->cu.StreamSynchronize(cs); /* the host copy is freed next */
        if (r != 0) { gk__dev_free(ctx, p); return gk__cu_fail(ctx, r, where, "cuMemcpyHtoDAsync_v2 (restore)"); }
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

/* A block whose last tensor handle and last pin are gone goes to the cache. */
static void gk__pool_to_cache(gk_ctx *ctx, gk__block *b) {
    gk__pool *P = &ctx->pool;
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
    if (P->live_tail != b) {
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
    gk__lock(&ctx->mu);
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
    gk__lock(&ctx->mu);
    st = gk__bind(ctx);
    ctx->pool.quota = quota;
    if (st == GK_OK) st = gk__pool_make_room(ctx, 0, "gk_pool_set_quota");
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_pool_trim(gk_ctx *ctx) {
    gk_status st;
    if (!ctx) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "gk_pool_trim: ctx is NULL");
    gk__lock(&ctx->mu);
    st = gk__bind(ctx);
    while (st == GK_OK && ctx->pool.cache_head) gk__pool_release(ctx, ctx->pool.cache_head);
    gk__unlock(&ctx->mu);
    return st;
}

/* ------------------------------------------------------------------------ */
/* >>context */
static unsigned gk__ctx_serial;

static void gk__resolve_cache_dir(gk_ctx *ctx) {
    char buf[1024];
    const char *e;
    buf[0] = 0;
    if (ctx->desc.disable_disk_cache) return;
    if (ctx->desc.cache_dir && ctx->desc.cache_dir[0]) snprintf(buf, sizeof buf, "%s", ctx->desc.cache_dir);
    else if ((e = getenv("GPUKIT_CACHE_DIR")) && *e) snprintf(buf, sizeof buf, "%s", e);
#if defined(_WIN32)
    else if ((e = getenv("LOCALAPPDATA")) && *e) snprintf(buf, sizeof buf, "%s\\gpukit", e);
#endif
    else if ((e = getenv("XDG_CACHE_HOME")) && *e) snprintf(buf, sizeof buf, "%s/gpukit", e);
    else if ((e = getenv("HOME")) && *e) snprintf(buf, sizeof buf, "%s/.cache/gpukit", e);
    if (buf[0]) ctx->cache_dir = gk__strdup(buf);
}


GKDEF gk_status gk_ctx_create(const gk_ctx_desc *desc, gk_ctx **out) {
    gk_ctx *ctx;
    gk_status st = GK_OK;
    const char *env;
    if (!out) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "gk_ctx_create: out is NULL");
    *out = NULL;
    ctx = GK__CALLOC(gk_ctx, 1);
    if (!ctx) return gk__err(NULL, GK_ERR_OUT_OF_MEMORY, "gk_ctx_create: out of host memory");
    if (desc) ctx->desc = *desc;
    if (ctx->desc.backend < GK_BACKEND_AUTO || ctx->desc.backend > GK_BACKEND_CPU) {
        int b = (int)ctx->desc.backend;
        GPUKIT_FREE(ctx);
        return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "gk_ctx_create: invalid backend %d", b);
    }
    gk__mutex_init(&ctx->mu);
    ctx->cur_stream = &ctx->default_stream;
    ctx->backend = ctx->desc.backend;
    if (ctx->backend == GK_BACKEND_AUTO && (env = getenv("GPUKIT_BACKEND")) && *env) {
        if (strcmp(env, "cpu") == 0) ctx->backend = GK_BACKEND_CPU;
        else if (strcmp(env, "cuda") == 0) ctx->backend = GK_BACKEND_CUDA;
    }
    if (ctx->backend != GK_BACKEND_CPU) {
        st = gk__cuda_init(ctx);
        if (st != GK_OK) {
            if (ctx->backend == GK_BACKEND_CUDA) {
                gk__err(NULL, st, "gk_ctx_create: %s", ctx->err);
                gk__unload_libs(ctx);
                gk__mutex_destroy(&ctx->mu);
                GPUKIT_FREE(ctx);
                return st;
            }
            gk__log(ctx, GK_LOG_WARN, "%s; using the CPU backend", ctx->err);
            gk__unload_libs(ctx);
            memset(&ctx->cu, 0, sizeof ctx->cu);
            memset(&ctx->info, 0, sizeof ctx->info);
            ctx->err[0] = 0;
            ctx->backend = GK_BACKEND_CPU;
        } else ctx->backend = GK_BACKEND_CUDA;
    }
    ctx->info.backend = ctx->backend;
    if (ctx->backend == GK_BACKEND_CPU) {
        snprintf(ctx->info.name, sizeof ctx->info.name, "CPU (gpukit reference backend)");
        ctx->info.total_memory = gk__host_ram();
        ctx->info.sm_count = 1;
        ctx->info.warp_size = 1;
        ctx->info.max_threads_per_block = 1024;
    }
    gk__load_nvrtc(ctx);
    if (ctx->backend == GK_BACKEND_CUDA) gk__load_cublaslt(ctx);
    ctx->default_stream.priority = GK_PRIORITY_NORMAL;
    if (ctx->desc.memory_quota) ctx->pool.quota = ctx->desc.memory_quota;
    else if (ctx->backend == GK_BACKEND_CUDA) {
        size_t fr = 0, tot = 0;
        ctx->cu.MemGetInfo(&fr, &tot);
        ctx->pool.quota = fr / 10 * 9;
    } else ctx->pool.quota = gk__host_ram() / 2;
    gk__resolve_cache_dir(ctx);
    gk__ctx_serial = (gk__ctx_serial + 1) & 0xFFF;
    if (gk__ctx_serial == 0) gk__ctx_serial = 1;
    ctx->tag = gk__ctx_serial;
    gk__log(ctx, GK_LOG_INFO, "context on %s (%s backend)", ctx->info.name, ctx->backend == GK_BACKEND_CUDA ? "CUDA" : "CPU");
    *out = ctx;
    return GK_OK;
}

GKDEF gk_backend gk_ctx_backend(gk_ctx *ctx) { return ctx ? ctx->backend : GK_BACKEND_CPU; }

GKDEF gk_status gk_device_info_get(gk_ctx *ctx, gk_device_info *out) {
    if (!ctx || !out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_device_info_get: NULL argument");
    *out = ctx->info;
    return GK_OK;
}

static gk_status gk__sync_locked(gk_ctx *ctx, const char *where) {
    gk_stream *s;
    if (ctx->backend != GK_BACKEND_CUDA) return GK_OK;
    GK__TRY(gk__bind(ctx));
    if (!ctx->default_stream.capture) GK__CU(ctx, ctx->cu.StreamSynchronize(ctx->default_stream.cu), where);
    for (s = ctx->streams; s; s = s->next)
        if (!s->capture) GK__CU(ctx, ctx->cu.StreamSynchronize(s->cu), where);
    return GK_OK;
}
GKDEF gk_status gk_sync(gk_ctx *ctx) {
    gk_status st;
    if (!ctx) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "gk_sync: ctx is NULL");
    gk__lock(&ctx->mu);
    st = gk__sync_locked(ctx, "gk_sync");
    gk__unlock(&ctx->mu);
    return st;
}

/* ------------------------------------------------------------------------ */
/* >>tensor */
#define GK__IDX(id) ((uint32_t)((id) & 0xFFFFFFFFu))
#define GK__GEN(id) ((uint32_t)((id) >> 32))

static gk__slot *gk__slot_at(gk_ctx *ctx, uint32_t idx) { return &ctx->pages[idx / GK__SLOT_PAGE][idx % GK__SLOT_PAGE]; }

static gk_status gk__slot_new(gk_ctx *ctx, uint32_t *out, const char *where) {
    gk__slot *s;
    uint32_t idx;
    if (ctx->free_slot) {
        idx = ctx->free_slot - 1;
        s = gk__slot_at(ctx, idx);
        ctx->free_slot = s->next_free;
    } else {
        if (ctx->nslots == ctx->npages * GK__SLOT_PAGE) {
            gk__slot **np;
            if (ctx->npages >= 1u << 20) return gk__err(ctx, GK_ERR_LIMIT, "%s: too many live tensors", where);
            np = GK__CAST(gk__slot **, GPUKIT_REALLOC(ctx->pages, sizeof(gk__slot *) * (ctx->npages + 1)));
            if (!np) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", where);
            ctx->pages = np;
            np[ctx->npages] = GK__CALLOC(gk__slot, GK__SLOT_PAGE);
            if (!np[ctx->npages]) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", where);
            ctx->npages++;
        }
        idx = ctx->nslots++;
        s = gk__slot_at(ctx, idx);
        s->gen = 1;
        s->idx = idx;
    }
    s->live = 1;
    s->next_free = 0;
    s->blk = NULL;
    s->is_view = 0;
    s->offset = 0;
    *out = idx;
    return GK_OK;
}
static gk_tensor gk__handle(gk_ctx *ctx, uint32_t idx) {
    gk_tensor t;
    gk__slot *s = gk__slot_at(ctx, idx);
    t.id = ((uint64_t)((ctx->tag << 20) | (s->gen & 0xFFFFFu)) << 32) | (uint64_t)(idx + 1);
    return t;
}
static void gk__slot_release(gk_ctx *ctx, uint32_t idx) {
    gk__slot *s = gk__slot_at(ctx, idx);
    s->live = 0;
    s->gen = (s->gen + 1) & 0xFFFFFu;
    if (s->gen == 0) s->gen = 1;
    s->blk = NULL;
    s->next_free = ctx->free_slot;
    ctx->free_slot = idx + 1;
}

/* Looks a handle up; `what` names the argument in the message. */
static gk_status gk__lookup(gk_ctx *ctx, gk_tensor t, gk__slot **out, const char *where, const char *what) {
    uint32_t idx = GK__IDX(t.id), hi = GK__GEN(t.id);
    gk__slot *s;
    *out = NULL;
    if (t.id == 0) return gk__err(ctx, GK_ERR_INVALID_HANDLE, "%s: %s is a null tensor handle", where, what);
    if ((hi >> 20) != ctx->tag || idx == 0 || idx > ctx->nslots)
        return gk__err(ctx, GK_ERR_INVALID_HANDLE, "%s: %s is not a tensor of this context", where, what);
    s = gk__slot_at(ctx, idx - 1);
    if (!s->live || (s->gen & 0xFFFFFu) != (hi & 0xFFFFFu))
        return gk__err(ctx, GK_ERR_INVALID_HANDLE, "%s: %s was freed (use after free)", where, what);
    *out = s;
    return GK_OK;
}

static int64_t gk__numel(const gk__slot *s) {
    int64_t n = 1;
    int i;
    for (i = 0; i < s->ndim; i++) n *= s->shape[i];
    return n;
}
static int gk__is_contig(const gk__slot *s) {
    int64_t st = 1;
    int i;
    for (i = s->ndim - 1; i >= 0; i--) {
        if (s->shape[i] == 0) return 1;
        if (s->shape[i] != 1 && s->strides[i] != st) return 0;
        st *= s->shape[i];
    }
    return 1;
}
static void gk__contig_strides(int ndim, const int64_t *shape, int64_t *strides) {
    int64_t st = 1;
    int i;
    for (i = ndim - 1; i >= 0; i--) { strides[i] = st; st *= shape[i] > 0 ? shape[i] : 1; }
}
/* Validates a shape; *nbytes = numel * elem, rejecting overflow. */
static gk_status gk__check_shape(gk_ctx *ctx, gk_dtype dt, int ndim, const int64_t *shape, int64_t *numel,
                                 size_t *nbytes, const char *where) {
    int64_t n = 1;
    int i;
    if (!gk__dtype_ok(dt)) return gk__err(ctx, GK_ERR_DTYPE, "%s: invalid dtype %d", where, (int)dt);
    if (ndim < 0 || ndim > GK_MAX_DIMS) return gk__err(ctx, GK_ERR_SHAPE, "%s: ndim %d outside 0..%d", where, ndim, GK_MAX_DIMS);
    if (ndim > 0 && !shape) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: shape is NULL", where);
    for (i = 0; i < ndim; i++) {
        if (shape[i] < 0) return gk__err(ctx, GK_ERR_SHAPE, "%s: dim %d has negative size %lld", where, i, (long long)shape[i]);
        /* a division only when the product could leave 2^59 elements */
        if ((n >= ((int64_t)1 << 29) || shape[i] >= ((int64_t)1 << 29)) && shape[i] > 0 && n > (INT64_MAX / 16) / shape[i])
            return gk__err(ctx, GK_ERR_OVERFLOW, "%s: shape overflows (dim %d = %lld)", where, i, (long long)shape[i]);
        n *= shape[i];
    }
    /* n < 2^59 here, times at most 8 bytes: no overflow of a 64-bit size_t */
    if (sizeof(size_t) < 8 && (uint64_t)n > (uint64_t)SIZE_MAX / gk__dtype_sizes[dt])
        return gk__err(ctx, GK_ERR_OVERFLOW, "%s: %lld elements overflow size_t", where, (long long)n);
    *numel = n;
    *nbytes = (size_t)n * gk__dtype_sizes[dt];
    return GK_OK;
}

static gk_status gk__tensor_new(gk_ctx *ctx, gk_dtype dt, int ndim, const int64_t *shape, uint32_t *out_idx,
                                const char *where) {
    int64_t numel = 0;
    size_t nbytes = 0;
    uint32_t idx;
    gk__block *b = NULL;
    gk__slot *s;
    GK__TRY(gk__check_shape(ctx, dt, ndim, shape, &numel, &nbytes, where));
    if (nbytes > 0) GK__TRY(gk__pool_alloc(ctx, nbytes, &b, where));
    if (gk__slot_new(ctx, &idx, where) != GK_OK) {
        if (b) gk__block_unref(ctx, b);
        return GK_ERR_OUT_OF_MEMORY;
    }
    s = gk__slot_at(ctx, idx);
    s->blk = b;
    s->dtype = dt;
    s->ndim = ndim;
    if (ndim) memcpy(s->shape, shape, sizeof(int64_t) * (size_t)ndim);
    gk__contig_strides(ndim, s->shape, s->strides);
    *out_idx = idx;
    return GK_OK;
}

#define GK__ENTER(ctx, where)                                                                   \
    if (!(ctx)) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "%s: ctx is NULL", where);          \
    gk__lock(&(ctx)->mu)

GKDEF gk_status gk_tensor_empty(gk_ctx *ctx, gk_dtype dtype, int ndim, const int64_t *shape, gk_tensor *out) {
    gk_status st;
    uint32_t idx;
    if (out) out->id = 0;
    GK__ENTER(ctx, "gk_tensor_empty");
    if (!out) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_tensor_empty: out is NULL");
    else if ((st = gk__bind(ctx)) == GK_OK && (st = gk__tensor_new(ctx, dtype, ndim, shape, &idx, "gk_tensor_empty")) == GK_OK)
        *out = gk__handle(ctx, idx);
    gk__unlock(&ctx->mu);
    return st;
}

static void gk__tensor_free_locked(gk_ctx *ctx, gk__slot *s) {
    gk__block *b = s->blk;
    gk__slot_release(ctx, s->idx);
    gk__block_unref(ctx, b);
}

GKDEF gk_status gk_tensor_free(gk_ctx *ctx, gk_tensor t) {
    gk__slot *s;
    gk_status st;
    GK__ENTER(ctx, "gk_tensor_free");
    st = gk__lookup(ctx, t, &s, "gk_tensor_free", "the tensor");
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK) gk__tensor_free_locked(ctx, s);
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF int gk_tensor_valid(gk_ctx *ctx, gk_tensor t) {
    gk__slot *s;
    int ok;
    char save[GK__ERRBUF];
    if (!ctx) return 0;
    gk__lock(&ctx->mu);
    memcpy(save, ctx->err, sizeof save);
    ok = gk__lookup(ctx, t, &s, "gk_tensor_valid", "t") == GK_OK;
    memcpy(ctx->err, save, sizeof save);
    gk__unlock(&ctx->mu);
    return ok;
}

static void gk__fill_info(const gk__slot *s, gk_tensor_info *o) {
    memset(o, 0, sizeof *o);
    o->dtype = s->dtype;
    o->ndim = s->ndim;
    memcpy(o->shape, s->shape, sizeof o->shape);
    memcpy(o->strides, s->strides, sizeof o->strides);
    o->offset = s->offset;
    o->numel = gk__numel(s);
    o->nbytes = (size_t)o->numel * gk__dtype_sizes[s->dtype];
    o->contiguous = gk__is_contig(s);
    o->resident = !s->blk || s->blk->state == GK__BLK_LIVE;
    o->pinned = s->blk && s->blk->pins > 0;
    o->is_view = s->is_view;
}
GKDEF gk_status gk_tensor_info_get(gk_ctx *ctx, gk_tensor t, gk_tensor_info *out) {
    gk__slot *s;
    gk_status st;
    GK__ENTER(ctx, "gk_tensor_info_get");
    st = out ? gk__lookup(ctx, t, &s, "gk_tensor_info_get", "the tensor")
             : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_tensor_info_get: out is NULL");
    if (st == GK_OK) gk__fill_info(s, out);
    gk__unlock(&ctx->mu);
    return st;
}

static gk__cu_ptr gk__slot_addr(const gk__slot *s) {
    return s->blk ? s->blk->ptr + (gk__cu_ptr)(s->offset * (int64_t)gk__dtype_sizes[s->dtype]) : 0;
}

GKDEF gk_status gk_tensor_ptr(gk_ctx *ctx, gk_tensor t, uint64_t *out) {
    gk__slot *s;
    gk_status st;
    GK__ENTER(ctx, "gk_tensor_ptr");
    st = out ? gk__lookup(ctx, t, &s, "gk_tensor_ptr", "the tensor") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_tensor_ptr: out is NULL");
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK) st = gk__use(ctx, s->blk, ctx->cur_stream, "gk_tensor_ptr");
    if (st == GK_OK) {
        *out = gk__slot_addr(s);
        gk__unuse(ctx, s->blk);
    }
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_tensor_pin(gk_ctx *ctx, gk_tensor t) {
    gk__slot *s;
    gk_status st;
    GK__ENTER(ctx, "gk_tensor_pin");
    st = gk__lookup(ctx, t, &s, "gk_tensor_pin", "the tensor");
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK && s->blk) {
        if (s->blk->state == GK__BLK_EVICTED) st = gk__pool_restore(ctx, s->blk, ctx->cur_stream, "gk_tensor_pin");
        if (st == GK_OK) s->blk->pins++;
    }
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_tensor_unpin(gk_ctx *ctx, gk_tensor t) {
    gk__slot *s;
    gk_status st;
    GK__ENTER(ctx, "gk_tensor_unpin");
    st = gk__lookup(ctx, t, &s, "gk_tensor_unpin", "the tensor");
    if (st == GK_OK && s->blk) {
        if (s->blk->pins <= 0) st = gk__err(ctx, GK_ERR_STATE, "gk_tensor_unpin: the tensor is not pinned");
        else gk__block_unpin(ctx, s->blk);
    }
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_tensor_evict(gk_ctx *ctx, gk_tensor t) {
    gk__slot *s;
    gk_status st;
    GK__ENTER(ctx, "gk_tensor_evict");
    st = gk__lookup(ctx, t, &s, "gk_tensor_evict", "the tensor");
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK && s->blk && s->blk->state == GK__BLK_LIVE) {
        st = gk__sync_locked(ctx, "gk_tensor_evict");
        if (st == GK_OK) st = gk__pool_evict(ctx, s->blk, "gk_tensor_evict");
    }
    gk__unlock(&ctx->mu);
    return st;
}

/* ---- views ---- */
static int gk__norm_dim(int d, int ndim) { return d < 0 ? d + ndim : d; }

static gk_status gk__view_new(gk_ctx *ctx, const gk__slot *src, int ndim, const int64_t *shape,
                              const int64_t *strides, int64_t offset, gk_tensor *out, const char *where) {
    uint32_t idx;
    gk__slot *s;
    GK__TRY(gk__slot_new(ctx, &idx, where));
    s = gk__slot_at(ctx, idx);
    s->blk = src->blk;
    if (s->blk) s->blk->refs++;
    s->dtype = src->dtype;
    s->ndim = ndim;
    if (ndim) {
        memcpy(s->shape, shape, sizeof(int64_t) * (size_t)ndim);
        memcpy(s->strides, strides, sizeof(int64_t) * (size_t)ndim);
    }
    s->offset = offset;
    s->is_view = 1;
    *out = gk__handle(ctx, idx);
    return GK_OK;
}

/* Strides of a reshape that shares storage, or 0 when a copy is needed. */
static int gk__reshape_strides(const gk__slot *s, int nd, const int64_t *nshape, int64_t *nstr) {
    int64_t chunk_stride, tnum = 1, vnum = 1;
    int td, vd = nd - 1;
    if (s->ndim == 0 || gk__numel(s) == 0) { gk__contig_strides(nd, nshape, nstr); return 1; }
    chunk_stride = s->strides[s->ndim - 1];
    for (td = s->ndim - 1; td >= 0; td--) {
        tnum *= s->shape[td];
        if (td == 0 || (s->shape[td - 1] != 1 && s->strides[td - 1] != tnum * chunk_stride)) {
            while (vd >= 0 && (vnum < tnum || nshape[vd] == 1)) {
                nstr[vd] = vnum * chunk_stride;
                vnum *= nshape[vd];
                vd--;
            }
            if (vnum != tnum) return 0;
            if (td > 0) { chunk_stride = s->strides[td - 1]; tnum = 1; vnum = 1; }
        }
    }
    return vd == -1;
}

GKDEF gk_status gk_view_reshape(gk_ctx *ctx, gk_tensor t, int ndim, const int64_t *shape, gk_tensor *out) {
    const char *W = "gk_view_reshape";
    gk__slot *s;
    gk_status st;
    int64_t ns[GK_MAX_DIMS], nstr[GK_MAX_DIMS], known = 1, numel;
    int i, neg = -1;
    if (out) out->id = 0;
    GK__ENTER(ctx, W);
    st = out ? gk__lookup(ctx, t, &s, W, "the tensor") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (st == GK_OK && (ndim < 0 || ndim > GK_MAX_DIMS || (ndim > 0 && !shape)))
        st = gk__err(ctx, GK_ERR_SHAPE, "%s: ndim %d outside 0..%d (or shape NULL)", W, ndim, GK_MAX_DIMS);
    if (st == GK_OK) {
        numel = gk__numel(s);
        for (i = 0; i < ndim && st == GK_OK; i++) {
            ns[i] = shape[i];
            if (shape[i] == -1) {
                if (neg >= 0) st = gk__err(ctx, GK_ERR_SHAPE, "%s: more than one dim is -1", W);
                neg = i;
            } else if (shape[i] < 0) st = gk__err(ctx, GK_ERR_SHAPE, "%s: dim %d is %lld", W, i, (long long)shape[i]);
            else if (shape[i] > 0 && known > INT64_MAX / shape[i]) st = gk__err(ctx, GK_ERR_OVERFLOW, "%s: shape overflows", W);
            else known *= shape[i];
        }
        if (st == GK_OK && neg >= 0) {
            if (known == 0 || numel % known != 0)
                st = gk__err(ctx, GK_ERR_SHAPE, "%s: cannot infer dim %d: %lld elements", W, neg, (long long)numel);
            else { ns[neg] = numel / known; known = numel; }
        }
        if (st == GK_OK && known != numel)
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: %lld elements cannot be viewed as %lld", W, (long long)numel, (long long)known);
        if (st == GK_OK && !gk__reshape_strides(s, ndim, ns, nstr))
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: the strides do not allow this view without a copy (use gk_contiguous first)", W);
        if (st == GK_OK) st = gk__view_new(ctx, s, ndim, ns, nstr, s->offset, out, W);
    }
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_view_permute(gk_ctx *ctx, gk_tensor t, const int *perm, gk_tensor *out) {
    const char *W = "gk_view_permute";
    gk__slot *s;
    gk_status st;
    int64_t ns[GK_MAX_DIMS], nstr[GK_MAX_DIMS];
    int i, seen[GK_MAX_DIMS] = { 0 };
    if (out) out->id = 0;
    GK__ENTER(ctx, W);
    st = out ? gk__lookup(ctx, t, &s, W, "the tensor") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (st == GK_OK && s->ndim > 0 && !perm) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: perm is NULL", W);
    for (i = 0; st == GK_OK && i < s->ndim; i++) {
        int d = gk__norm_dim(perm[i], s->ndim);
        if (d < 0 || d >= s->ndim || seen[d]) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: perm is not a permutation of %d dims (entry %d = %d)", W, s->ndim, i, perm[i]);
        else { seen[d] = 1; ns[i] = s->shape[d]; nstr[i] = s->strides[d]; }
    }
    if (st == GK_OK) st = gk__view_new(ctx, s, s->ndim, ns, nstr, s->offset, out, W);
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_view_transpose(gk_ctx *ctx, gk_tensor t, int d0, int d1, gk_tensor *out) {
    const char *W = "gk_view_transpose";
    gk__slot *s;
    gk_status st;
    int64_t ns[GK_MAX_DIMS], nstr[GK_MAX_DIMS], x;
    if (out) out->id = 0;
    GK__ENTER(ctx, W);
    st = out ? gk__lookup(ctx, t, &s, W, "the tensor") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (st == GK_OK) {
        d0 = gk__norm_dim(d0, s->ndim);
        d1 = gk__norm_dim(d1, s->ndim);
        if (d0 < 0 || d0 >= s->ndim || d1 < 0 || d1 >= s->ndim)
            st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: dims out of range for a %d-d tensor", W, s->ndim);
    }
    if (st == GK_OK) {
        memcpy(ns, s->shape, sizeof ns);
        memcpy(nstr, s->strides, sizeof nstr);
        x = ns[d0]; ns[d0] = ns[d1]; ns[d1] = x;
        x = nstr[d0]; nstr[d0] = nstr[d1]; nstr[d1] = x;
        st = gk__view_new(ctx, s, s->ndim, ns, nstr, s->offset, out, W);
    }
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_view_slice(gk_ctx *ctx, gk_tensor t, int dim, int64_t start, int64_t stop, int64_t step, gk_tensor *out) {
    const char *W = "gk_view_slice";
    gk__slot *s;
    gk_status st;
    int64_t ns[GK_MAX_DIMS], nstr[GK_MAX_DIMS], n, len;
    if (out) out->id = 0;
    GK__ENTER(ctx, W);
    st = out ? gk__lookup(ctx, t, &s, W, "the tensor") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (st == GK_OK) {
        dim = gk__norm_dim(dim, s->ndim);
        if (dim < 0 || dim >= s->ndim) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: dim out of range for a %d-d tensor", W, s->ndim);
        else if (step < 1) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: step %lld < 1", W, (long long)step);
    }
    if (st == GK_OK) {
        n = s->shape[dim];
        if (start < 0) start += n;
        if (stop < 0) stop += n;
        start = start < 0 ? 0 : (start > n ? n : start);
        stop = stop < 0 ? 0 : (stop > n ? n : stop);
        len = stop > start ? (stop - start + step - 1) / step : 0;
        memcpy(ns, s->shape, sizeof ns);
        memcpy(nstr, s->strides, sizeof nstr);
        ns[dim] = len;
        nstr[dim] = s->strides[dim] * step;
        st = gk__view_new(ctx, s, s->ndim, ns, nstr, s->offset + (len > 0 ? start * s->strides[dim] : 0), out, W);
    }
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_view_squeeze(gk_ctx *ctx, gk_tensor t, int dim, gk_tensor *out) {
    const char *W = "gk_view_squeeze";
    gk__slot *s;
    gk_status st;
    int64_t ns[GK_MAX_DIMS], nstr[GK_MAX_DIMS];
    int i, j = 0;
    if (out) out->id = 0;
    GK__ENTER(ctx, W);
    st = out ? gk__lookup(ctx, t, &s, W, "the tensor") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (st == GK_OK) {
        dim = gk__norm_dim(dim, s->ndim);
        if (dim < 0 || dim >= s->ndim) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: dim out of range for a %d-d tensor", W, s->ndim);
        else if (s->shape[dim] != 1) st = gk__err(ctx, GK_ERR_SHAPE, "%s: dim %d has size %lld, not 1", W, dim, (long long)s->shape[dim]);
    }
    if (st == GK_OK) {
        for (i = 0; i < s->ndim; i++)
            if (i != dim) { ns[j] = s->shape[i]; nstr[j] = s->strides[i]; j++; }
        st = gk__view_new(ctx, s, s->ndim - 1, ns, nstr, s->offset, out, W);
    }
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_view_unsqueeze(gk_ctx *ctx, gk_tensor t, int dim, gk_tensor *out) {
    const char *W = "gk_view_unsqueeze";
    gk__slot *s;
    gk_status st;
    int64_t ns[GK_MAX_DIMS], nstr[GK_MAX_DIMS];
    int i, j = 0;
    if (out) out->id = 0;
    GK__ENTER(ctx, W);
    st = out ? gk__lookup(ctx, t, &s, W, "the tensor") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (st == GK_OK) {
        dim = dim < 0 ? dim + s->ndim + 1 : dim;
        if (s->ndim >= GK_MAX_DIMS) st = gk__err(ctx, GK_ERR_SHAPE, "%s: tensor already has %d dims", W, GK_MAX_DIMS);
        else if (dim < 0 || dim > s->ndim) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: dim out of range for a %d-d tensor", W, s->ndim);
    }
    if (st == GK_OK) {
        for (i = 0; i <= s->ndim; i++) {
            if (i == dim) {
                ns[i] = 1;
                nstr[i] = dim < s->ndim ? s->shape[dim] * s->strides[dim] : 1;
            } else { ns[i] = s->shape[j]; nstr[i] = s->strides[j]; j++; }
        }
        st = gk__view_new(ctx, s, s->ndim + 1, ns, nstr, s->offset, out, W);
    }
    gk__unlock(&ctx->mu);
    return st;
}

/* ------------------------------------------------------------------------ */
/* >>stream
   CUDA: non-blocking streams, events, stream capture into CUDA graphs.
   CPU: work runs at once on the calling thread; while a stream captures,
   ops are recorded as host thunks instead and replayed by gk_graph_launch. */
typedef void (*gk__thunk_fn)(const void *params);
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
    if (!c) { fn(params); return GK_OK; }
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

GKDEF gk_status gk_stream_destroy(gk_ctx *ctx, gk_stream *s) {
    gk_status st;
    gk__block *b;
    gk_stream **pp;
    GK__ENTER(ctx, "gk_stream_destroy");
    st = (!s || s == &ctx->default_stream) ? gk__err(ctx, GK_ERR_INVALID_HANDLE, "gk_stream_destroy: NULL or the default stream")
                                            : gk__find_stream(ctx, s, "gk_stream_destroy");
    if (st == GK_OK && s->capture) st = gk__err(ctx, GK_ERR_STATE, "gk_stream_destroy: the stream is capturing a graph");
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK) {
        if (ctx->backend == GK_BACKEND_CUDA) {
            ctx->cu.StreamSynchronize(s->cu);
            ctx->cu.StreamDestroy(s->cu);
        }
        for (b = ctx->pool.live_head; b; b = b->next) if (b->stream == s) b->stream = NULL;
        for (b = ctx->pool.cache_head; b; b = b->next) if (b->stream == s) b->stream = NULL;
        for (pp = &ctx->streams; *pp; pp = &(*pp)->next)
            if (*pp == s) { *pp = s->next; break; }
        if (ctx->cur_stream == s) ctx->cur_stream = &ctx->default_stream;
        GPUKIT_FREE(s);
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
        gk__cu_result r;
        st = gk__bind(ctx);
        if (st == GK_OK && (r = ctx->cu.StreamSynchronize(s->cu)) != 0) st = gk__cu_fail(ctx, r, "gk_stream_sync", "cuStreamSynchronize");
    }
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_set_stream(gk_ctx *ctx, gk_stream *s) {
    gk_status st;
    GK__ENTER(ctx, "gk_set_stream");
    if (!s) s = &ctx->default_stream;
    st = gk__find_stream(ctx, s, "gk_set_stream");
    if (st == GK_OK) ctx->cur_stream = s;
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_stream *gk_get_stream(gk_ctx *ctx) { return ctx ? ctx->cur_stream : NULL; }
GKDEF gk_stream *gk_default_stream(gk_ctx *ctx) { return ctx ? &ctx->default_stream : NULL; }
GKDEF void *gk_stream_native(gk_ctx *ctx, gk_stream *s) {
    if (!ctx || ctx->backend != GK_BACKEND_CUDA) return NULL;
    return (void *)(s ? s->cu : ctx->cur_stream->cu);
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
        if (st == GK_OK && (r = ctx->cu.EventSynchronize(e->cu)) != 0) st = gk__cu_fail(ctx, r, "gk_event_sync", "cuEventSynchronize");
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
        for (i = 0; i < g->cap->nblocks; i++) g->cap->blocks[i]->stream = s;
        if (ctx->backend == GK_BACKEND_CUDA) {
            gk__cu_result r;
            st = gk__bind(ctx);
            if (st == GK_OK && (r = ctx->cu.GraphLaunch(g->exec, s->cu)) != 0) st = gk__cu_fail(ctx, r, "gk_graph_launch", "cuGraphLaunch");
        } else
            for (i = 0; i < g->cap->nthunks; i++) g->cap->thunks[i].fn(g->cap->thunks[i].params);
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

/* ---- host transfers ---- */
static gk_status gk__host_copy(gk_ctx *ctx, gk_tensor t, const void *hsrc, void *hdst, size_t nbytes, gk_stream *s,
                               int wait, const char *where) {
    int to_device = hsrc != NULL || hdst == NULL;
    const void *host = to_device ? hsrc : hdst;
    gk__slot *sl;
    gk_status st;
    size_t want;
    GK__ENTER(ctx, where);
    if (!s) s = ctx->cur_stream;
    st = gk__lookup(ctx, t, &sl, where, "the tensor");
    if (st == GK_OK) st = gk__find_stream(ctx, s, where);
    if (st == GK_OK) {
        want = (size_t)gk__numel(sl) * gk__dtype_sizes[sl->dtype];
        if (!gk__is_contig(sl)) st = gk__err(ctx, GK_ERR_SHAPE, "%s: the tensor is not contiguous (use gk_contiguous first)", where);
        else if (nbytes != want) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: nbytes is %zu but the tensor holds %zu bytes", where, nbytes, want);
        else if (want && !host) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: host pointer is NULL", where);
    }
    if (st == GK_OK && want == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK) st = gk__use(ctx, sl->blk, s, where);
    if (st == GK_OK) {
        gk__cu_ptr p = gk__slot_addr(sl);
        if (ctx->backend == GK_BACKEND_CUDA) {
            gk__cu_result r = to_device ? ctx->cu.MemcpyHtoDAsync(p, hsrc, nbytes, s->cu) : ctx->cu.MemcpyDtoHAsync(hdst, p, nbytes, s->cu);
            if (r != 0) st = gk__cu_fail(ctx, r, where, to_device ? "cuMemcpyHtoDAsync_v2" : "cuMemcpyDtoHAsync_v2");
            else if (wait && (r = ctx->cu.StreamSynchronize(s->cu)) != 0) st = gk__cu_fail(ctx, r, where, "cuStreamSynchronize");
        } else if (s->capture) st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: host copies cannot be captured on the CPU backend", where);
        else if (to_device) memcpy((void *)(uintptr_t)p, hsrc, nbytes);
        else memcpy(hdst, (const void *)(uintptr_t)p, nbytes);
        gk__unuse(ctx, sl->blk);
    }
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_copy_from_host(gk_ctx *ctx, gk_tensor dst, const void *src, size_t nbytes) {
    return gk__host_copy(ctx, dst, src, NULL, nbytes, NULL, 1, "gk_copy_from_host");
}
GKDEF gk_status gk_copy_to_host(gk_ctx *ctx, gk_tensor src, void *dst, size_t nbytes) {
    return gk__host_copy(ctx, src, NULL, dst, nbytes, NULL, 1, "gk_copy_to_host");
}
GKDEF gk_status gk_copy_from_host_async(gk_ctx *ctx, gk_tensor dst, const void *src, size_t nbytes, gk_stream *s) {
    return gk__host_copy(ctx, dst, src, NULL, nbytes, s, 0, "gk_copy_from_host_async");
}
GKDEF gk_status gk_copy_to_host_async(gk_ctx *ctx, gk_tensor src, void *dst, size_t nbytes, gk_stream *s) {
    return gk__host_copy(ctx, src, NULL, dst, nbytes, s, 0, "gk_copy_to_host_async");
}
GKDEF gk_status gk_tensor_from_host(gk_ctx *ctx, gk_dtype dtype, int ndim, const int64_t *shape, const void *data,
                                    gk_tensor *out) {
    gk_tensor t;
    gk_status st;
    gk_tensor_info info;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_tensor_from_host: out is NULL");
    GK__TRY(gk_tensor_empty(ctx, dtype, ndim, shape, &t));
    st = gk_tensor_info_get(ctx, t, &info);
    if (st == GK_OK) st = gk_copy_from_host(ctx, t, data, info.nbytes);
    if (st != GK_OK) { char save[GK__ERRBUF]; memcpy(save, ctx->err, sizeof save); gk_tensor_free(ctx, t); memcpy(ctx->err, save, sizeof save); return st; }
    *out = t;
    return GK_OK;
}
GKDEF gk_status gk_host_alloc(gk_ctx *ctx, size_t nbytes, void **out) {
    gk_status st = GK_OK;
    if (out) *out = NULL;
    GK__ENTER(ctx, "gk_host_alloc");
    if (!out) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_host_alloc: out is NULL");
    else if (ctx->backend == GK_BACKEND_CUDA) {
        gk__cu_result r;
        st = gk__bind(ctx);
        if (st == GK_OK && (r = ctx->cu.MemAllocHost(out, nbytes ? nbytes : 1)) != 0) st = gk__cu_fail(ctx, r, "gk_host_alloc", "cuMemAllocHost_v2");
    } else if (!(*out = GPUKIT_MALLOC(nbytes ? nbytes : 1))) st = gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "gk_host_alloc: %zu bytes", nbytes);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_host_free(gk_ctx *ctx, void *p) {
    gk_status st = GK_OK;
    GK__ENTER(ctx, "gk_host_free");
    if (p) {
        if (ctx->backend == GK_BACKEND_CUDA) {
            gk__cu_result r;
            st = gk__bind(ctx);
            if (st == GK_OK && (r = ctx->cu.MemFreeHost(p)) != 0) st = gk__cu_fail(ctx, r, "gk_host_free", "cuMemFreeHost");
        } else GPUKIT_FREE(p);
    }
    gk__unlock(&ctx->mu);
    return st;
}

/* ------------------------------------------------------------------------ */
/* >>jit
   Modules are compiled by NVRTC for the device's exact arch (a cubin; PTX for
   an arch NVRTC does not know) and cached: in memory per context, and on disk
   as <cache_dir>/<key>.gkc, keyed by a 128-bit hash of the source, headers,
   options, target, NVRTC version and gpukit version. Files carry a checksum of
   their payload, are written to a temporary name and renamed (atomic), and a
   file that fails any check is recompiled and rewritten, never trusted. */
struct gk__modrec { uint64_t key[2]; gk__cu_module mod; int refs; gk__modrec *next; };
#define GK__MAX_PARAMS 64
struct gk_kernel {
    gk_module *m;
    char name[128];
    gk__cu_function fn;
    int nparams;                    /* -1: unknown */
    int psize[GK__MAX_PARAMS];      /* bytes; 0: unknown */
    char pkind[GK__MAX_PARAMS];     /* 'p' pointer, 'f' float, 'i' integer, '?' */
    gk_cpu_kernel_fn cpu;
    void *cpu_user;
    gk_kernel *next;
};
struct gk_module {
    gk__modrec *rec;                /* NULL on the CPU backend */
    char *source;
    char *name;
    gk_kernel *kernels;
    gk_module *next;
};

/* 128-bit hash: two 64-bit multiply-xorshift lanes over 8-byte words. */
typedef struct gk__hash { uint64_t a, b; size_t n; } gk__hash;
static uint64_t gk__mix64(uint64_t x) {
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27; x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
static void gk__hash_init(gk__hash *h) { h->a = 0x243f6a8885a308d3ull; h->b = 0x13198a2e03707344ull; h->n = 0; }
static void gk__hash_bytes(gk__hash *h, const void *data, size_t n) {
    const unsigned char *p = (const unsigned char *)data;
    uint64_t w;
    h->n += n;
    while (n >= 8) {
        memcpy(&w, p, 8);
        h->a = (h->a ^ w) * 0x9e3779b97f4a7c15ull;
        h->a ^= h->a >> 29;
        h->b = (h->b + w) * 0xc2b2ae3d27d4eb4full;
        h->b ^= h->b >> 31;
        p += 8;
        n -= 8;
    }
    if (n) {
        w = 0;
        memcpy(&w, p, n);
        w ^= (uint64_t)n << 56;
        h->a = (h->a ^ w) * 0x9e3779b97f4a7c15ull;
        h->b = (h->b + w) * 0xc2b2ae3d27d4eb4full;
    }
    h->a ^= 0xff; /* separates consecutive fields */
    h->b += 0x3d;
}
static void gk__hash_str(gk__hash *h, const char *s) { gk__hash_bytes(h, s, strlen(s)); }
static void gk__hash_final(gk__hash *h, uint64_t key[2]) {
    key[0] = gk__mix64(h->a ^ gk__mix64(h->b + h->n));
    key[1] = gk__mix64(h->b ^ gk__mix64(h->a ^ 0x5851f42d4c957f2dull));
}
static uint64_t gk__checksum(const void *p, size_t n) {
    gk__hash h;
    uint64_t k[2];
    gk__hash_init(&h);
    gk__hash_bytes(&h, p, n);
    gk__hash_final(&h, k);
    return k[0] ^ k[1];
}

#define GK__CACHE_MAGIC "GKCACHE1"
typedef struct gk__cache_hdr {
    char magic[8];
    uint64_t key[2];
    uint64_t size;
    uint64_t checksum;
    uint32_t kind;      /* 1 cubin, 2 ptx */
    uint32_t reserved;
} gk__cache_hdr;

static void gk__cache_path(gk_ctx *ctx, const uint64_t key[2], char *buf, size_t n) {
    snprintf(buf, n, "%s%c%016llx%016llx.gkc", ctx->cache_dir, GK__PATH_SEP, (unsigned long long)key[0], (unsigned long long)key[1]);
}
/* Reads a cache entry: 1 valid (payload malloc'd), 0 absent, -1 corrupt. */
static int gk__cache_read(gk_ctx *ctx, const uint64_t key[2], char **payload, size_t *size) {
    char path[1200];
    gk__cache_hdr h;
    FILE *f;
    long end;
    char *buf;
    *payload = NULL;
    if (!ctx->cache_dir) return 0;
    gk__cache_path(ctx, key, path, sizeof path);
    f = fopen(path, "rb");
    if (!f) return 0;
    if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, GK__CACHE_MAGIC, 8) != 0 || h.key[0] != key[0] ||
        h.key[1] != key[1] || h.size == 0 || h.size > ((uint64_t)1 << 31) || fseek(f, 0, SEEK_END) != 0 ||
        (end = ftell(f)) < 0 || (uint64_t)end != sizeof h + h.size || fseek(f, (long)sizeof h, SEEK_SET) != 0) {
        fclose(f);
        return -1;
    }
    buf = GK__CAST(char *, GPUKIT_MALLOC((size_t)h.size + 1));
    if (!buf) { fclose(f); return 0; }
    if (fread(buf, 1, (size_t)h.size, f) != (size_t)h.size || gk__checksum(buf, (size_t)h.size) != h.checksum) {
        fclose(f);
        GPUKIT_FREE(buf);
        return -1;
    }
    fclose(f);
    buf[h.size] = 0;
    *payload = buf;
    *size = (size_t)h.size;
    return 1;
}
static void gk__cache_write(gk_ctx *ctx, const uint64_t key[2], const char *payload, size_t size, int kind) {
    char path[1200], tmp[1300];
    gk__cache_hdr h;
    FILE *f;
    static unsigned counter;
    int ok;
    if (!ctx->cache_dir) return;
    if (gk__mkdirs(ctx->cache_dir) != 0) {
        gk__log(ctx, GK_LOG_WARN, "kernel cache folder %s cannot be created: disk cache off", ctx->cache_dir);
        GPUKIT_FREE(ctx->cache_dir);
        ctx->cache_dir = NULL;
        return;
    }
    gk__cache_path(ctx, key, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.%lu.%u.tmp", path, gk__pid(), ++counter);
    memset(&h, 0, sizeof h);
    memcpy(h.magic, GK__CACHE_MAGIC, 8);
    h.key[0] = key[0];
    h.key[1] = key[1];
    h.size = size;
    h.checksum = gk__checksum(payload, size);
    h.kind = (uint32_t)kind;
    f = fopen(tmp, "wb");
    if (!f) { gk__log(ctx, GK_LOG_WARN, "kernel cache: cannot write %s", tmp); return; }
    ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(payload, 1, size, f) == size;
    ok = (fclose(f) == 0) && ok;
    if (!ok || gk__rename_replace(tmp, path) != 0) {
        remove(tmp);
        gk__log(ctx, GK_LOG_WARN, "kernel cache: cannot write %s", path);
        return;
    }
    ctx->jst.disk_writes++;
}

/* The compile target for an arch "sm_XY[a]": "--gpu-architecture=sm_XY" when
   NVRTC knows it (cubin), else compute_ of the newest arch it knows (PTX). */
static void gk__target(gk_ctx *ctx, const char *arch, char *opt, size_t n, int *ptx) {
    int want = 0, best = 0, i;
    const char *suffix = "";
    if (arch && strncmp(arch, "sm_", 3) == 0) {
        want = atoi(arch + 3);
        if (arch[strlen(arch) - 1] == 'a') suffix = "a";
    }
    *ptx = 0;
    if (ctx->n_nvrtc_archs == 0 || want == 0) { snprintf(opt, n, "--gpu-architecture=%s", arch ? arch : "sm_80"); return; }
    for (i = 0; i < ctx->n_nvrtc_archs; i++) {
        if (ctx->nvrtc_archs[i] == want) { snprintf(opt, n, "--gpu-architecture=sm_%d%s", want, suffix); return; }
        if (ctx->nvrtc_archs[i] <= want && ctx->nvrtc_archs[i] > best) best = ctx->nvrtc_archs[i];
    }
    *ptx = 1;
    snprintf(opt, n, "--gpu-architecture=compute_%d", best ? best : 80);
}

static char *gk__lib_headers[GK__HEADER_COUNT > 0 ? GK__HEADER_COUNT : 1];
/* Joins the chunks of an embedded source (kept under C99's literal limit). */
static char *gk__join_chunks(const char *const *chunks) {
    size_t n = 0, i, k;
    char *s;
    for (i = 0; chunks[i]; i++) n += strlen(chunks[i]);
    s = GK__CAST(char *, GPUKIT_MALLOC(n + 1));
    if (!s) return NULL;
    for (i = 0, k = 0; chunks[i]; i++) { size_t m = strlen(chunks[i]); memcpy(s + k, chunks[i], m); k += m; }
    s[k] = 0;
    return s;
}
/* The embedded headers every library and user module may #include by name. */
static gk_status gk__headers(gk_ctx *ctx, const char *const **names, const char *const **srcs) {
    int i;
    for (i = 0; i < GK__HEADER_COUNT; i++)
        if (!gk__lib_headers[i] && !(gk__lib_headers[i] = gk__join_chunks(gk__header_chunks[i])))
            return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "jit: out of host memory");
    *names = gk__header_names;
    *srcs = GK__CAST(const char *const *, gk__lib_headers);
    return GK_OK;
}

static void gk__set_log(gk_ctx *ctx, const char *log) {
    GPUKIT_FREE(ctx->jit_log);
    ctx->jit_log = log ? gk__strdup(log) : NULL;
}

/* NVRTC: source -> cubin or PTX (malloc'd). */
static gk_status gk__nvrtc_compile(gk_ctx *ctx, const char *src, const char *name, const char *const *opts, int nopts,
                                   int ptx, char **out, size_t *outn, const char *where) {
    gk__nvrtc_program prog = NULL;
    gk__nvrtc_result r;
    const char *const *hn, *const *hs;
    size_t logn = 0, n = 0;
    char *log = NULL, *bin;
    double t0 = gk__now_ms();
    *out = NULL;
    GK__TRY(gk__headers(ctx, &hn, &hs));
    r = ctx->nvrtc.CreateProgram(&prog, src, name, GK__HEADER_COUNT, hs, hn);
    if (r != 0) return gk__err(ctx, GK_ERR_COMPILE, "%s: nvrtcCreateProgram(%s) failed: %s", where, name, ctx->nvrtc.GetErrorString(r));
    r = ctx->nvrtc.CompileProgram(prog, nopts, opts);
    ctx->jst.compiles++;
    if (ctx->nvrtc.GetProgramLogSize(prog, &logn) == 0 && logn > 1 && (log = GK__CAST(char *, GPUKIT_MALLOC(logn + 1))) != NULL) {
        ctx->nvrtc.GetProgramLog(prog, log);
        log[logn] = 0;
    }
    gk__set_log(ctx, log);
    if (r != 0) {
        gk__err(ctx, GK_ERR_COMPILE, "%s: NVRTC failed to compile %s (%s) for %s: %s\n%.3000s", where, name,
                ctx->nvrtc.GetErrorString(r), opts[0], "see gk_jit_log for the whole log", log ? log : "");
        GPUKIT_FREE(log);
        ctx->nvrtc.DestroyProgram(&prog);
        return GK_ERR_COMPILE;
    }
    GPUKIT_FREE(log);
    r = ptx ? ctx->nvrtc.GetPTXSize(prog, &n) : ctx->nvrtc.GetCUBINSize(prog, &n);
    if (r != 0 || n == 0 || !(bin = GK__CAST(char *, GPUKIT_MALLOC(n + 1)))) {
        ctx->nvrtc.DestroyProgram(&prog);
        return gk__err(ctx, GK_ERR_COMPILE, "%s: NVRTC produced no %s for %s", where, ptx ? "PTX" : "cubin", name);
    }
    r = ptx ? ctx->nvrtc.GetPTX(prog, bin) : ctx->nvrtc.GetCUBIN(prog, bin);
    ctx->nvrtc.DestroyProgram(&prog);
    if (r != 0) { GPUKIT_FREE(bin); return gk__err(ctx, GK_ERR_COMPILE, "%s: NVRTC could not return the binary of %s", where, name); }
    bin[n] = 0;
    if (ptx) n = strlen(bin) + 1;
    ctx->jst.compile_ms += gk__now_ms() - t0;
    *out = bin;
    *outn = n;
    return GK_OK;
}

/* Compiles (through the caches) source for arch; loads it when mod != NULL. */
static gk_status gk__jit_build(gk_ctx *ctx, const char *src, const char *name, const char *const *uopts, int nuopts,
                               const char *arch, int use_cache, gk__cu_module *mod, gk__modrec **rec_out,
                               const char *where) {
    char target[64];
    const char *opts[72];
    int ptx = 0, i, nopts = 0, disk;
    gk__hash h;
    uint64_t key[2];
    gk__modrec *rec;
    char *bin = NULL;
    size_t binn = 0;
    gk_status st;
    if (nuopts < 0 || nuopts > 64) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: %d options (at most 64)", where, nuopts);
    if (!arch) arch = ctx->info.arch[0] ? ctx->info.arch : "sm_80";
    gk__target(ctx, arch, target, sizeof target, &ptx);
    opts[nopts++] = target;
    for (i = 0; i < nuopts; i++) {
        if (!uopts[i]) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: option %d is NULL", where, i);
        opts[nopts++] = uopts[i];
    }
    gk__hash_init(&h);
    gk__hash_str(&h, "gpukit " GK_VERSION_STRING);
    gk__hash_bytes(&h, &ctx->info.nvrtc_version, sizeof ctx->info.nvrtc_version);
    for (i = 0; i < nopts; i++) gk__hash_str(&h, opts[i]);
    gk__hash_str(&h, src);
    for (i = 0; i < GK__HEADER_COUNT; i++) {
        int j;
        for (j = 0; gk__header_chunks[i][j]; j++) gk__hash_str(&h, gk__header_chunks[i][j]);
    }
    gk__hash_final(&h, key);
    if (mod && use_cache)
        for (rec = ctx->modcache; rec; rec = rec->next)
            if (rec->key[0] == key[0] && rec->key[1] == key[1]) {
                rec->refs++;
                ctx->jst.memory_hits++;
                *mod = rec->mod;
                if (rec_out) *rec_out = rec;
                return GK_OK;
            }
    disk = use_cache ? gk__cache_read(ctx, key, &bin, &binn) : 0;
    if (disk < 0) {
        ctx->jst.disk_rejects++;
        gk__log(ctx, GK_LOG_WARN, "kernel cache entry for %s is corrupt: recompiling", name);
    }
    if (disk > 0 && mod) {
        if (gk__bind(ctx) != GK_OK || ctx->cu.ModuleLoadData(mod, bin) != 0) {
            ctx->jst.disk_rejects++;
            gk__log(ctx, GK_LOG_WARN, "kernel cache entry for %s does not load: recompiling", name);
            GPUKIT_FREE(bin);
            bin = NULL;
            disk = 0;
        }
    }
    if (disk > 0) {
        ctx->jst.disk_hits++;
        GPUKIT_FREE(bin);
        bin = NULL;
    } else {
        if (!ctx->info.has_nvrtc)
            return gk__err(ctx, GK_ERR_NO_NVRTC, "%s: NVRTC not found: cannot compile %s for %s (and no cached copy%s%s)", where,
                           name, arch, ctx->cache_dir ? " in " : "", ctx->cache_dir ? ctx->cache_dir : "");
        GK__TRY(gk__nvrtc_compile(ctx, src, name, opts, nopts, ptx, &bin, &binn, where));
        if (use_cache) gk__cache_write(ctx, key, bin, binn, ptx ? 2 : 1);
        if (mod) {
            gk__cu_result r;
            st = gk__bind(ctx);
            if (st != GK_OK) { GPUKIT_FREE(bin); return st; }
            r = ctx->cu.ModuleLoadData(mod, bin);
            GPUKIT_FREE(bin);
            if (r != 0) return gk__cu_fail(ctx, r, where, "cuModuleLoadData");
        } else GPUKIT_FREE(bin);
    }
    if (mod) {
        rec = GK__CALLOC(gk__modrec, 1);
        if (!rec) { ctx->cu.ModuleUnload(*mod); return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", where); }
        rec->key[0] = key[0];
        rec->key[1] = key[1];
        rec->mod = *mod;
        rec->refs = 1;
        rec->next = ctx->modcache;
        ctx->modcache = rec;
        if (rec_out) *rec_out = rec;
    }
    return GK_OK;
}

/* Library modules: compiled lazily, once per context, on first use. */
static gk_status gk__lib_function(gk_ctx *ctx, int m, const char *fname, gk__cu_function *out, const char *where) {
    gk__libmod *L = &ctx->lib[m];
    int i;
    gk__cu_result r;
    for (i = 0; i < L->nfns; i++)
        if (L->fns[i].name == fname || strcmp(L->fns[i].name, fname) == 0) { *out = L->fns[i].fn; return GK_OK; }
    if (!L->mod) {
        char *src;
        gk_status st;
        if (L->tried && L->status != GK_OK) return gk__err(ctx, L->status, "%s: kernel module %s is unavailable (its first build failed)", where, gk__module_names[m]);
        L->tried = 1;
        src = gk__join_chunks(gk__module_chunks[m]);
        if (!src) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", where);
        st = gk__jit_build(ctx, src, gk__module_names[m], NULL, 0, NULL, 1, &L->mod, NULL, where);
        GPUKIT_FREE(src);
        L->status = st;
        if (st != GK_OK) return st;
    }
    if (L->nfns == (int)(sizeof L->fns / sizeof L->fns[0])) return gk__err(ctx, GK_ERR_LIMIT, "%s: too many kernels in %s", where, gk__module_names[m]);
    r = ctx->cu.ModuleGetFunction(out, L->mod, fname);
    if (r != 0) return gk__err(ctx, GK_ERR_NOT_FOUND, "%s: kernel %s not found in %s (%s)", where, fname, gk__module_names[m], gk__cu_errname(ctx, r));
    L->fns[L->nfns].name = fname;
    L->fns[L->nfns].fn = *out;
    L->nfns++;
    return GK_OK;
}

GKDEF gk_status gk_jit_precompile(gk_ctx *ctx, const char *arch, int *num_modules) {
    int m, n = 0;
    gk_status st = GK_OK;
    GK__ENTER(ctx, "gk_jit_precompile");
    if (!ctx->cache_dir) st = gk__err(ctx, GK_ERR_STATE, "gk_jit_precompile: the disk cache is off");
    if (!arch && !ctx->info.arch[0]) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_jit_precompile: no arch given and no GPU");
    for (m = 0; st == GK_OK && m < GK__MOD_COUNT; m++) {
        char *src = gk__join_chunks(gk__module_chunks[m]);
        if (!src) { st = gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "gk_jit_precompile: out of host memory"); break; }
        st = gk__jit_build(ctx, src, gk__module_names[m], NULL, 0, arch, 1, NULL, NULL, "gk_jit_precompile");
        GPUKIT_FREE(src);
        if (st == GK_OK) n++;
    }
    if (num_modules) *num_modules = n;
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_jit_stats_get(gk_ctx *ctx, gk_jit_stats *out) {
    if (!ctx || !out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_jit_stats_get: NULL argument");
    gk__lock(&ctx->mu);
    *out = ctx->jst;
    gk__unlock(&ctx->mu);
    return GK_OK;
}
GKDEF const char *gk_jit_log(gk_ctx *ctx) { return (ctx && ctx->jit_log) ? ctx->jit_log : ""; }

GKDEF gk_status gk_module_create(gk_ctx *ctx, const gk_module_desc *desc, gk_module **out) {
    const char *W = "gk_module_create";
    gk_module *m;
    gk_status st = GK_OK;
    gk__cu_module cm = NULL;
    if (out) *out = NULL;
    GK__ENTER(ctx, W);
    if (!out || !desc || !desc->source) { gk__unlock(&ctx->mu); return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: desc, desc->source and out must not be NULL", W); }
    m = GK__CALLOC(gk_module, 1);
    if (!m || !(m->source = gk__strdup(desc->source)) || !(m->name = gk__strdup(desc->name ? desc->name : "user.cu"))) {
        if (m) { GPUKIT_FREE(m->source); GPUKIT_FREE(m); }
        gk__unlock(&ctx->mu);
        return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
    }
    if (ctx->backend == GK_BACKEND_CUDA)
        st = gk__jit_build(ctx, desc->source, m->name, desc->options, desc->num_options, NULL, !desc->no_cache, &cm, &m->rec, W);
    else if (ctx->info.has_nvrtc) /* compile anyway: errors show on every backend */
        st = gk__jit_build(ctx, desc->source, m->name, desc->options, desc->num_options, "sm_80", !desc->no_cache, NULL, NULL, W);
    if (st != GK_OK) {
        GPUKIT_FREE(m->source);
        GPUKIT_FREE(m->name);
        GPUKIT_FREE(m);
    } else {
        m->next = ctx->modules;
        ctx->modules = m;
        *out = m;
    }
    gk__unlock(&ctx->mu);
    return st;
}

static void gk__module_free(gk_ctx *ctx, gk_module *m) {
    gk_kernel *k, *nk;
    gk__modrec **pp;
    for (k = m->kernels; k; k = nk) { nk = k->next; GPUKIT_FREE(k); }
    if (m->rec && --m->rec->refs == 0) {
        for (pp = &ctx->modcache; *pp; pp = &(*pp)->next) if (*pp == m->rec) { *pp = m->rec->next; break; }
        ctx->cu.ModuleUnload(m->rec->mod);
        GPUKIT_FREE(m->rec);
    }
    GPUKIT_FREE(m->source);
    GPUKIT_FREE(m->name);
    GPUKIT_FREE(m);
}
static gk_status gk__find_module(gk_ctx *ctx, gk_module *m, const char *where) {
    gk_module *x;
    for (x = ctx->modules; x; x = x->next) if (x == m && m) return GK_OK;
    return gk__err(ctx, GK_ERR_INVALID_HANDLE, "%s: not a live module of this context", where);
}
GKDEF gk_status gk_module_destroy(gk_ctx *ctx, gk_module *m) {
    gk_status st;
    gk_module **pp;
    GK__ENTER(ctx, "gk_module_destroy");
    st = gk__find_module(ctx, m, "gk_module_destroy");
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK) st = gk__sync_locked(ctx, "gk_module_destroy"); /* queued launches use it */
    if (st == GK_OK) {
        for (pp = &ctx->modules; *pp; pp = &(*pp)->next) if (*pp == m) { *pp = m->next; break; }
        gk__module_free(ctx, m);
    }
    gk__unlock(&ctx->mu);
    return st;
}

/* Finds `__global__ ... name(params)` in source and classifies each param. */
static int gk__is_ident(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }
static int gk__has_word(const char *s, size_t n, const char *w) {
    size_t m = strlen(w), i;
    for (i = 0; i + m <= n; i++)
        if (memcmp(s + i, w, m) == 0 && (i == 0 || !gk__is_ident(s[i - 1])) && (i + m == n || !gk__is_ident(s[i + m]))) return 1;
    return 0;
}
static int gk__parse_params(const char *src, const char *name, int *sizes, char *kinds, int max) {
    size_t nl = strlen(name);
    const char *p = src;
    while ((p = strstr(p, name)) != NULL) {
        const char *q = p + nl, *b = p;
        int found_global = 0, depth, n = 0;
        if ((p > src && gk__is_ident(p[-1])) || gk__is_ident(*q)) { p = q; continue; }
        while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
        if (*q != '(') { p = q; continue; }
        while (b > src && b[-1] != ';' && b[-1] != '}' && b[-1] != '{') b--;
        if (gk__has_word(b, (size_t)(p - b), "__global__")) found_global = 1;
        if (!found_global) { p = q; continue; }
        q++;
        depth = 0;
        {
            const char *start = q;
            for (;; q++) {
                if (*q == 0) return -1;
                if (*q == '(' || *q == '<' || *q == '[') depth++;
                else if ((*q == ')' || *q == '>' || *q == ']') && depth > 0) depth--;
                else if ((*q == ',' || *q == ')') && depth == 0) {
                    const char *e = q, *s = start, *ne;
                    size_t len;
                    while (s < e && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')) s++;
                    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r')) e--;
                    len = (size_t)(e - s);
                    if (len == 0 || (len == 4 && memcmp(s, "void", 4) == 0)) {
                        if (*q == ')' && n == 0) return 0;
                    } else {
                        if (n >= max) return -1;
                        /* the type is everything before the last identifier */
                        ne = e;
                        while (ne > s && gk__is_ident(ne[-1])) ne--;
                        if (ne == s) ne = e; /* unnamed parameter */
                        len = (size_t)(ne - s);
                        if (memchr(s, '*', len) || memchr(s, '&', len)) { kinds[n] = 'p'; sizes[n] = 8; }
                        else if (gk__has_word(s, len, "double")) { kinds[n] = 'f'; sizes[n] = 8; }
                        else if (gk__has_word(s, len, "float")) { kinds[n] = 'f'; sizes[n] = 4; }
                        else if (gk__has_word(s, len, "long") || gk__has_word(s, len, "int64_t") || gk__has_word(s, len, "uint64_t") ||
                                 gk__has_word(s, len, "size_t") || gk__has_word(s, len, "ptrdiff_t")) { kinds[n] = 'i'; sizes[n] = 8; }
                        else if (gk__has_word(s, len, "short") || gk__has_word(s, len, "int16_t") || gk__has_word(s, len, "uint16_t")) { kinds[n] = 'i'; sizes[n] = 2; }
                        else if (gk__has_word(s, len, "char") || gk__has_word(s, len, "bool") || gk__has_word(s, len, "int8_t") || gk__has_word(s, len, "uint8_t")) { kinds[n] = 'i'; sizes[n] = 1; }
                        else if (gk__has_word(s, len, "int") || gk__has_word(s, len, "unsigned") || gk__has_word(s, len, "int32_t") || gk__has_word(s, len, "uint32_t")) { kinds[n] = 'i'; sizes[n] = 4; }
                        else { kinds[n] = '?'; sizes[n] = 0; }
                        n++;
                    }
                    if (*q == ')') return n;
                    start = q + 1;
                }
            }
        }
    }
    return -1;
}

GKDEF gk_status gk_module_kernel(gk_ctx *ctx, gk_module *m, const char *name, gk_kernel **out) {
    const char *W = "gk_module_kernel";
    gk_kernel *k;
    gk_status st;
    if (out) *out = NULL;
    GK__ENTER(ctx, W);
    st = gk__find_module(ctx, m, W);
    if (st == GK_OK && (!name || !out || strlen(name) >= sizeof k->name))
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: name (shorter than %d) and out must be given", W, (int)sizeof k->name);
    if (st != GK_OK) { gk__unlock(&ctx->mu); return st; }
    for (k = m->kernels; k; k = k->next)
        if (strcmp(k->name, name) == 0) { *out = k; gk__unlock(&ctx->mu); return GK_OK; }
    k = GK__CALLOC(gk_kernel, 1);
    if (!k) { gk__unlock(&ctx->mu); return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W); }
    k->m = m;
    snprintf(k->name, sizeof k->name, "%s", name);
    k->nparams = gk__parse_params(m->source, name, k->psize, k->pkind, GK__MAX_PARAMS);
    if (ctx->backend == GK_BACKEND_CUDA) {
        gk__cu_result r;
        st = gk__bind(ctx);
        if (st == GK_OK && (r = ctx->cu.ModuleGetFunction(&k->fn, m->rec->mod, name)) != 0)
            st = gk__err(ctx, GK_ERR_NOT_FOUND, "%s: no kernel '%s' in %s (%s; kernels must be declared extern \"C\" __global__)", W, name,
                         m->name, gk__cu_errname(ctx, r));
        if (st == GK_OK && ctx->cu.FuncGetParamInfo) {
            /* the driver knows the exact parameter sizes; parsed kinds are kept
               only where the parse agrees with it */
            size_t off, sz, i;
            int n = 0, agree;
            int dsize[GK__MAX_PARAMS];
            for (i = 0; i < GK__MAX_PARAMS && ctx->cu.FuncGetParamInfo(k->fn, i, &off, &sz) == 0; i++) dsize[n++] = (int)sz;
            agree = k->nparams == n;
            for (i = 0; i < (size_t)n; i++) {
                if (!agree || (k->psize[i] && k->psize[i] != dsize[i])) k->pkind[i] = '?';
                k->psize[i] = dsize[i];
            }
            k->nparams = n;
        }
    } else if (k->nparams < 0)
        st = gk__err(ctx, GK_ERR_NOT_FOUND, "%s: no __global__ function '%s' in %s", W, name, m->name);
    if (st != GK_OK) GPUKIT_FREE(k);
    else { k->next = m->kernels; m->kernels = k; *out = k; }
    gk__unlock(&ctx->mu);
    return st;
}

static gk_status gk__find_kernel(gk_ctx *ctx, gk_kernel *k, const char *where) {
    gk_module *m;
    gk_kernel *x;
    for (m = ctx->modules; m; m = m->next)
        for (x = m->kernels; x; x = x->next) if (x == k && k) return GK_OK;
    return gk__err(ctx, GK_ERR_INVALID_HANDLE, "%s: not a live kernel of this context", where);
}
GKDEF gk_status gk_kernel_set_cpu(gk_ctx *ctx, gk_kernel *k, gk_cpu_kernel_fn fn, void *user) {
    gk_status st;
    GK__ENTER(ctx, "gk_kernel_set_cpu");
    st = gk__find_kernel(ctx, k, "gk_kernel_set_cpu");
    if (st == GK_OK) { k->cpu = fn; k->cpu_user = user; }
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_kernel_attrs_get(gk_ctx *ctx, gk_kernel *k, gk_kernel_attrs *out) {
    gk_status st;
    GK__ENTER(ctx, "gk_kernel_attrs_get");
    st = out ? gk__find_kernel(ctx, k, "gk_kernel_attrs_get") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_kernel_attrs_get: out is NULL");
    if (st == GK_OK) {
        memset(out, 0, sizeof *out);
        out->num_params = k->nparams;
        if (ctx->backend == GK_BACKEND_CUDA && gk__bind(ctx) == GK_OK) {
            ctx->cu.FuncGetAttribute(&out->num_regs, GK__CU_FUNC_ATTRIBUTE_NUM_REGS, k->fn);
            ctx->cu.FuncGetAttribute(&out->local_bytes, GK__CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, k->fn);
            ctx->cu.FuncGetAttribute(&out->static_smem_bytes, GK__CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->fn);
            ctx->cu.FuncGetAttribute(&out->max_threads_per_block, GK__CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->fn);
        }
    }
    gk__unlock(&ctx->mu);
    return st;
}

static int gk__arg_size(gk_arg_type t) {
    switch (t) {
    case GK_ARG_I32: case GK_ARG_U32: case GK_ARG_F32: return 4;
    case GK_ARG_I64: case GK_ARG_U64: case GK_ARG_F64: case GK_ARG_PTR: case GK_ARG_TENSOR: return 8;
    default: return 0;
    }
}
static char gk__arg_kind(gk_arg_type t) {
    return t == GK_ARG_F32 || t == GK_ARG_F64 ? 'f' : (t == GK_ARG_PTR || t == GK_ARG_TENSOR) ? 'p' : 'i';
}
static const char *const gk__arg_names[] = { "none", "i32", "u32", "i64", "u64", "f32", "f64", "ptr", "tensor" };

typedef struct gk__cpu_kparams {
    gk_cpu_kernel_fn fn;
    void *user;
    unsigned grid[3], block[3];
    int n;
    gk_arg args[GK__MAX_PARAMS];
    void *ptrs[GK__MAX_PARAMS];
} gk__cpu_kparams;
static void gk__cpu_kernel_thunk(const void *p) {
    const gk__cpu_kparams *k = (const gk__cpu_kparams *)p;
    gk_cpu_launch l;
    memcpy(l.grid, k->grid, sizeof l.grid);
    memcpy(l.block, k->block, sizeof l.block);
    l.args = k->args;
    l.ptrs = k->ptrs;
    l.num_args = k->n;
    l.user = k->user;
    k->fn(&l);
}

GKDEF gk_status gk_kernel_launch(gk_ctx *ctx, gk_kernel *k, const gk_launch_desc *d) {
    const char *W = "gk_kernel_launch";
    gk_status st;
    gk_stream *s;
    unsigned g[3], b[3];
    uint64_t vals[GK__MAX_PARAMS];
    void *params[GK__MAX_PARAMS];
    gk__block *used[GK__MAX_PARAMS];
    int i, nused = 0;
    GK__ENTER(ctx, W);
    st = gk__find_kernel(ctx, k, W);
    if (st == GK_OK && !d) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: desc is NULL", W);
    if (st != GK_OK) { gk__unlock(&ctx->mu); return st; }
    s = d->stream ? d->stream : ctx->cur_stream;
    st = gk__find_stream(ctx, s, W);
    if (st == GK_OK && (d->num_args < 0 || d->num_args > GK__MAX_PARAMS || (d->num_args > 0 && !d->args)))
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: num_args %d invalid (0..%d, args not NULL)", W, d->num_args, GK__MAX_PARAMS);
    if (st == GK_OK && k->nparams >= 0 && d->num_args != k->nparams)
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: kernel '%s' takes %d argument%s, the launch passes %d", W, k->name, k->nparams,
                     k->nparams == 1 ? "" : "s", d->num_args);
    for (i = 0; st == GK_OK && i < d->num_args; i++) {
        int sz = gk__arg_size(d->args[i].type);
        if (sz == 0) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: argument %d has an invalid type %d", W, i, (int)d->args[i].type);
        else if (k->nparams >= 0 && k->psize[i] && k->psize[i] != sz)
            st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: argument %d of '%s' is %s (%d bytes) but the parameter takes %d bytes", W, i,
                         k->name, gk__arg_names[d->args[i].type], sz, k->psize[i]);
        else if (k->nparams >= 0 && k->pkind[i] != '?' && k->pkind[i] != gk__arg_kind(d->args[i].type))
            st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: argument %d of '%s' is %s but the parameter is a%s", W, i, k->name,
                         gk__arg_names[d->args[i].type], k->pkind[i] == 'p' ? " pointer" : k->pkind[i] == 'f' ? " float" : "n integer");
    }
    for (i = 0; i < 3; i++) { g[i] = d->grid[i] ? d->grid[i] : 1; b[i] = d->block[i] ? d->block[i] : 1; }
    if (st == GK_OK && (uint64_t)b[0] * b[1] * b[2] > 1024)
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: block %ux%ux%u exceeds 1024 threads", W, b[0], b[1], b[2]);
    if (st == GK_OK) st = gk__bind(ctx);
    /* resolve tensors (restoring evicted storage) and pin them for the launch */
    for (i = 0; st == GK_OK && i < d->num_args; i++) {
        vals[i] = d->args[i].v.u64;
        if (d->args[i].type == GK_ARG_TENSOR) {
            gk__slot *sl;
            char what[32];
            snprintf(what, sizeof what, "argument %d", i);
            st = gk__lookup(ctx, d->args[i].v.tensor, &sl, W, what);
            if (st == GK_OK) st = gk__use(ctx, sl->blk, s, W);
            if (st == GK_OK) { used[nused++] = sl->blk; vals[i] = gk__slot_addr(sl); }
        }
        params[i] = &vals[i];
    }
    if (st == GK_OK) {
        if (ctx->backend == GK_BACKEND_CUDA) {
            gk__cu_result r = ctx->cu.LaunchKernel(k->fn, g[0], g[1], g[2], b[0], b[1], b[2], d->shared_mem, s->cu, params, NULL);
            if (r != 0) {
                st = gk__cu_fail(ctx, r, W, "cuLaunchKernel");
                if (st == GK_ERR_CUDA) st = GK_ERR_LAUNCH;
            }
        } else if (!k->cpu)
            st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: kernel '%s' has no CPU fallback (gk_kernel_set_cpu) and the context runs on the CPU backend", W, k->name);
        else {
            gk__cpu_kparams kp;
            gk_stream *save = ctx->cur_stream;
            memset(&kp, 0, sizeof kp);
            kp.fn = k->cpu;
            kp.user = k->cpu_user;
            memcpy(kp.grid, g, sizeof g);
            memcpy(kp.block, b, sizeof b);
            kp.n = d->num_args;
            for (i = 0; i < d->num_args; i++) {
                kp.args[i] = d->args[i];
                kp.ptrs[i] = (d->args[i].type == GK_ARG_TENSOR || d->args[i].type == GK_ARG_PTR) ? (void *)(uintptr_t)vals[i] : NULL;
            }
            ctx->cur_stream = s;
            st = gk__cpu_run(ctx, gk__cpu_kernel_thunk, &kp, sizeof kp, W);
            ctx->cur_stream = save;
        }
    }
    for (i = 0; i < nused; i++) gk__unuse(ctx, used[i]);
    if (st != GK_OK && s->capture && s->capture->failed == GK_OK) s->capture->failed = st;
    gk__unlock(&ctx->mu);
    return st;
}

/* ------------------------------------------------------------------------ */
/* >>ops
   One path for every op: validate the operands, build the iteration (the
   output's shape, inputs broadcast to it, dims of size 1 dropped and
   contiguous dims merged), then either run the CPU reference loop (now, or
   recorded while capturing) or launch the library kernel on the current
   stream. Operands are pinned while the op is issued (gk__use). */
#define GK__ND_OPS 4
typedef struct gk__nd {          /* the layout of gk_nd in kernels/gk_common.cuh */
    int ndim;
    int pad;
    int64_t n;
    int64_t shape[GK_MAX_DIMS];
    int64_t st[GK__ND_OPS][GK_MAX_DIMS]; /* operand 0: output; 1..3 inputs */
} gk__nd;

static void gk__shape_str(const gk__slot *s, char *buf, size_t n) {
    size_t k = 0;
    int i;
    k += (size_t)snprintf(buf + k, n - k, "[");
    for (i = 0; i < s->ndim && k < n; i++) k += (size_t)snprintf(buf + k, n - k, i ? ",%lld" : "%lld", (long long)s->shape[i]);
    if (k < n) snprintf(buf + k, n - k, "]");
}

/* The iteration of an elementwise op: ops[0] is the output, ops[1..nops-1]
   (at most GK__ND_OPS in all) the inputs, broadcast to the output's shape. */
static gk_status gk__nd_build(gk_ctx *ctx, gk__nd *nd, gk__slot *const *ops, int nops, const char *const *names, const char *where) {
    const gk__slot *o = ops[0];
    int64_t st[GK__ND_OPS][GK_MAX_DIMS];
    int k, d, j = 0;
    memset(nd, 0, sizeof *nd);
    for (k = 0; k < nops; k++) {
        const gk__slot *s = ops[k];
        if (s->ndim > o->ndim) goto bad;
        for (d = 0; d < o->ndim; d++) {
            int id = d - (o->ndim - s->ndim);
            if (id < 0) st[k][d] = 0;
            else if (s->shape[id] == o->shape[d]) st[k][d] = s->shape[id] == 1 ? 0 : s->strides[id];
            else if (s->shape[id] == 1) st[k][d] = 0;
            else goto bad;
        }
        continue;
    bad: {
        char a[160], b[160];
        gk__shape_str(s, a, sizeof a);
        gk__shape_str(o, b, sizeof b);
        return gk__err(ctx, GK_ERR_SHAPE, "%s: %s of shape %s does not broadcast to %s of shape %s", where, names[k], a, names[0], b);
    }
    }
    nd->n = gk__numel(o);
    for (d = 0; d < o->ndim; d++) {
        if (o->shape[d] == 1) continue;
        if (j > 0) { /* merge into the previous kept dim when contiguous for every operand */
            int merge = 1;
            for (k = 0; k < nops; k++)
                if (nd->st[k][j - 1] != st[k][d] * o->shape[d]) merge = 0;
            if (merge) {
                nd->shape[j - 1] *= o->shape[d];
                for (k = 0; k < nops; k++) nd->st[k][j - 1] = st[k][d];
                continue;
            }
        }
        nd->shape[j] = o->shape[d];
        for (k = 0; k < nops; k++) nd->st[k][j] = st[k][d];
        j++;
    }
    nd->ndim = j;
    if (j == 0) { nd->ndim = 1; nd->shape[0] = 1; for (k = 0; k < GK__ND_OPS; k++) nd->st[k][0] = 1; }
    return GK_OK;
}
static int gk__nd_contig(const gk__nd *nd, int nops) {
    int k;
    if (nd->ndim != 1) return 0;
    for (k = 0; k < nops; k++) if (nd->st[k][0] != 1) return 0;
    return 1;
}

/* Walks every element of nd; o0..o2 are element offsets of the operands. */
#define GK__ND_FOR(nd, ...)                                                             \
    do {                                                                                 \
        int64_t ix_[GK_MAX_DIMS] = { 0 }, o0 = 0, o1 = 0, o2 = 0, o3 = 0, i_;            \
        int d_;                                                                          \
        for (i_ = 0; i_ < (nd)->n; i_++) {                                               \
            __VA_ARGS__;                                                                 \
            for (d_ = (nd)->ndim - 1; d_ >= 0; d_--) {                                   \
                if (++ix_[d_] < (nd)->shape[d_]) {                                       \
                    o0 += (nd)->st[0][d_]; o1 += (nd)->st[1][d_]; o2 += (nd)->st[2][d_]; \
                    o3 += (nd)->st[3][d_];                                               \
                    break;                                                               \
                }                                                                        \
                o0 -= (nd)->st[0][d_] * ((nd)->shape[d_] - 1);                           \
                o1 -= (nd)->st[1][d_] * ((nd)->shape[d_] - 1);                           \
                o2 -= (nd)->st[2][d_] * ((nd)->shape[d_] - 1);                           \
                o3 -= (nd)->st[3][d_] * ((nd)->shape[d_] - 1);                           \
                ix_[d_] = 0;                                                             \
            }                                                                            \
        }                                                                                \
        GK__UNUSED(o0); GK__UNUSED(o1); GK__UNUSED(o2); GK__UNUSED(o3);                  \
    } while (0)

enum { GK__OP_ADD = 0, GK__OP_SUB, GK__OP_MUL, GK__OP_DIV, GK__OP_FILL, GK__OP_COPY, GK__OP_CAST, GK__OP_SCALE, GK__OP_AXPY };

typedef struct gk__ew {          /* CPU thunk parameters of an elementwise op */
    gk__nd nd;
    char *o;
    const char *a, *b;
    gk_dtype dt, sdt;
    int op;
    double alpha;
    uint64_t pattern;
} gk__ew;

/* f32 view of the float formats (CPU), same rounding as the kernels */
static float gk__ldf(gk_dtype dt, const char *p) {
    float v;
    uint16_t h;
    switch (dt) {
    case GK_F32: memcpy(&v, p, 4); return v;
    case GK_F16: memcpy(&h, p, 2); return (float)gk__fmt_to_f64(h, gk__fmt_f16);
    case GK_BF16: memcpy(&h, p, 2); return gk_bf16_to_f32(h);
    case GK_F8E4M3: return (float)gk__fmt_to_f64(*(const uint8_t *)p, gk__fmt_e4m3);
    default: return (float)gk__fmt_to_f64(*(const uint8_t *)p, gk__fmt_e5m2);
    }
}
static void gk__stf(gk_dtype dt, char *p, float v) {
    uint16_t h;
    switch (dt) {
    case GK_F32: memcpy(p, &v, 4); break;
    case GK_F16: h = (uint16_t)gk__f64_to_fmt(v, gk__fmt_f16); memcpy(p, &h, 2); break;
    case GK_BF16: h = gk_f32_to_bf16(v); memcpy(p, &h, 2); break;
    case GK_F8E4M3: *(uint8_t *)p = (uint8_t)gk__f64_to_fmt(v, gk__fmt_e4m3); break;
    default: *(uint8_t *)p = (uint8_t)gk__f64_to_fmt(v, gk__fmt_e5m2); break;
    }
}
static int64_t gk__ldi(gk_dtype dt, const char *p) { return gk__load(dt, p).i; }
static void gk__sti(gk_dtype dt, char *p, int64_t v) {
    gk__scalar s;
    s.is_int = 1; s.i = v; s.f = 0;
    gk__store(dt, p, s);
}
static void gk__std_sat(gk_dtype dt, char *p, double v) { /* integer dtypes: truncate and saturate */
    gk__scalar s;
    s.is_int = 0; s.i = 0; s.f = v;
    gk__store(dt, p, s);
}
static int64_t gk__int_binop(int op, int64_t a, int64_t b) {
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    switch (op) {
    case GK__OP_ADD: return (int64_t)(ua + ub);
    case GK__OP_SUB: return (int64_t)(ua - ub);
    case GK__OP_MUL: return (int64_t)(ua * ub);
    default: return b == 0 ? 0 : b == -1 ? (int64_t)(0 - ua) : a / b;
    }
}

static void gk__ew_cpu(const void *vp) {
    const gk__ew *p = (const gk__ew *)vp;
    const gk__nd *nd = &p->nd;
    size_t es = gk__dtype_sizes[p->dt], ss = gk__dtype_sizes[p->sdt];
    gk_dtype dt = p->dt;
    int op = p->op;
    float fa = (float)p->alpha;
    switch (op) {
    case GK__OP_FILL: GK__ND_FOR(nd, memcpy(p->o + o0 * (int64_t)es, &p->pattern, es)); return;
    case GK__OP_COPY: GK__ND_FOR(nd, memcpy(p->o + o0 * (int64_t)es, p->a + o1 * (int64_t)es, es)); return;
    case GK__OP_CAST: GK__ND_FOR(nd, gk__store(dt, p->o + o0 * (int64_t)es, gk__load(p->sdt, p->a + o1 * (int64_t)ss))); return;
    default: break;
    }
    if (dt == GK_F32 && op <= GK__OP_DIV && gk__nd_contig(nd, 3)) { /* the common case, kept tight */
        float *o = (float *)(void *)p->o;
        const float *a = (const float *)(const void *)p->a, *b = (const float *)(const void *)p->b;
        int64_t i;
        for (i = 0; i < nd->n; i++)
            o[i] = op == GK__OP_ADD ? a[i] + b[i] : op == GK__OP_SUB ? a[i] - b[i] : op == GK__OP_MUL ? a[i] * b[i] : a[i] / b[i];
        return;
    }
    if (dt == GK_F64) {
        GK__ND_FOR(nd, {
            double x, y, r;
            memcpy(&x, p->a + o1 * 8, 8);
            if (op == GK__OP_AXPY) memcpy(&y, p->o + o0 * 8, 8);
            else if (op != GK__OP_SCALE) memcpy(&y, p->b + o2 * 8, 8);
            else y = 0;
            r = op == GK__OP_ADD ? x + y : op == GK__OP_SUB ? x - y : op == GK__OP_MUL ? x * y : op == GK__OP_DIV ? x / y
              : op == GK__OP_SCALE ? p->alpha * x : fma(p->alpha, x, y);
            memcpy(p->o + o0 * 8, &r, 8);
        });
    } else if (gk_dtype_is_float(dt)) {
        GK__ND_FOR(nd, {
            float x = gk__ldf(dt, p->a + o1 * (int64_t)es), y, r;
            y = op == GK__OP_AXPY ? gk__ldf(dt, p->o + o0 * (int64_t)es) : op == GK__OP_SCALE ? 0.0f : gk__ldf(dt, p->b + o2 * (int64_t)es);
            r = op == GK__OP_ADD ? x + y : op == GK__OP_SUB ? x - y : op == GK__OP_MUL ? x * y : op == GK__OP_DIV ? x / y
              : op == GK__OP_SCALE ? fa * x : fmaf(fa, x, y);
            gk__stf(dt, p->o + o0 * (int64_t)es, r);
        });
    } else {
        GK__ND_FOR(nd, {
            int64_t x = gk__ldi(dt, p->a + o1 * (int64_t)es);
            if (op == GK__OP_SCALE) gk__std_sat(dt, p->o + o0 * (int64_t)es, p->alpha * (double)x);
            else if (op == GK__OP_AXPY) gk__std_sat(dt, p->o + o0 * (int64_t)es, fma(p->alpha, (double)x, (double)gk__ldi(dt, p->o + o0 * (int64_t)es)));
            else gk__sti(dt, p->o + o0 * (int64_t)es, gk__int_binop(op, x, gk__ldi(dt, p->b + o2 * (int64_t)es)));
        });
    }
}

/* kernel names (static strings: the function cache compares pointers) */
#define GK__DTNAMES(P, S) { P "f32" S, P "f64" S, P "f16" S, P "bf16" S, P "f8e4m3" S, P "f8e5m2" S, P "i8" S, P "u8" S, P "i32" S, P "i64" S }
static const char *const gk__k_bin[4][2][GK_DTYPE_COUNT] = {
    { GK__DTNAMES("gk_add_", ""), GK__DTNAMES("gk_add_", "_c") },
    { GK__DTNAMES("gk_sub_", ""), GK__DTNAMES("gk_sub_", "_c") },
    { GK__DTNAMES("gk_mul_", ""), GK__DTNAMES("gk_mul_", "_c") },
    { GK__DTNAMES("gk_div_", ""), GK__DTNAMES("gk_div_", "_c") } };
static const char *const gk__k_scale[2][GK_DTYPE_COUNT] = { GK__DTNAMES("gk_scale_", ""), GK__DTNAMES("gk_axpy_", "") };
static const char *const gk__k_cast[GK_DTYPE_COUNT][GK_DTYPE_COUNT] = {
    GK__DTNAMES("gk_cast_f32_", ""), GK__DTNAMES("gk_cast_f64_", ""), GK__DTNAMES("gk_cast_f16_", ""),
    GK__DTNAMES("gk_cast_bf16_", ""), GK__DTNAMES("gk_cast_f8e4m3_", ""), GK__DTNAMES("gk_cast_f8e5m2_", ""),
    GK__DTNAMES("gk_cast_i8_", ""), GK__DTNAMES("gk_cast_u8_", ""), GK__DTNAMES("gk_cast_i32_", ""), GK__DTNAMES("gk_cast_i64_", "") };
static const char *const gk__k_fill[9] = { NULL, "gk_fill_b1", "gk_fill_b2", NULL, "gk_fill_b4", NULL, NULL, NULL, "gk_fill_b8" };
static const char *const gk__k_copy[9] = { NULL, "gk_copy_b1", "gk_copy_b2", NULL, "gk_copy_b4", NULL, NULL, NULL, "gk_copy_b8" };

/* Launches a library kernel over `work` items (grid-stride kernels). */
static gk_status gk__launch(gk_ctx *ctx, int mod, const char *fname, int64_t work, void **args, const char *where) {
    gk__cu_function f;
    gk__cu_result r;
    int64_t blocks = (work + 255) / 256, maxb = (int64_t)ctx->info.sm_count * 32;
    if (work <= 0) return GK_OK;
    GK__TRY(gk__lib_function(ctx, mod, fname, &f, where));
    if (blocks > maxb) blocks = maxb;
    if (blocks < 1) blocks = 1;
    r = ctx->cu.LaunchKernel(f, (unsigned)blocks, 1, 1, 256, 1, 1, 0, ctx->cur_stream->cu, args, NULL);
    if (r != 0) {
        gk__cu_fail(ctx, r, where, fname);
        return GK_ERR_LAUNCH;
    }
    return GK_OK;
}

/* Launches a library kernel with an explicit configuration; raises the
   kernel's dynamic shared memory limit when it asks for more than 48 KiB. */
GK__MAYBE_UNUSED static gk_status gk__launch_cfg(gk_ctx *ctx, int mod, const char *fname, const unsigned grid[3], const unsigned block[3],
                                unsigned smem, void **args, const char *where) {
    gk__cu_function f;
    gk__cu_result r;
    GK__TRY(gk__lib_function(ctx, mod, fname, &f, where));
    if (smem > 48 * 1024) {
        if ((int)smem > ctx->info.max_smem_per_block_optin)
            return gk__err(ctx, GK_ERR_LIMIT, "%s: %s needs %u bytes of shared memory, the device allows %d", where, fname, smem,
                           ctx->info.max_smem_per_block_optin);
        r = ctx->cu.FuncSetAttribute(f, GK__CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem);
        if (r != 0) return gk__cu_fail(ctx, r, where, "cuFuncSetAttribute");
    }
    r = ctx->cu.LaunchKernel(f, grid[0] ? grid[0] : 1, grid[1] ? grid[1] : 1, grid[2] ? grid[2] : 1, block[0] ? block[0] : 1,
                             block[1] ? block[1] : 1, block[2] ? block[2] : 1, smem, ctx->cur_stream->cu, args, NULL);
    if (r != 0) {
        gk__cu_fail(ctx, r, where, fname);
        return GK_ERR_LAUNCH;
    }
    return GK_OK;
}

/* A persistent kernel: every block resident at once (cooperative launch), so
   blocks may wait on each other (grid-wide barriers). Fails with GK_ERR_LIMIT
   when the grid is larger than what fits on the device. */
GK__MAYBE_UNUSED static gk_status gk__launch_coop(gk_ctx *ctx, int mod, const char *fname, unsigned grid, unsigned block,
                                                   unsigned smem, void **args, const char *where) {
    gk__cu_function f;
    gk__cu_result r;
    int per_sm = 0;
    GK__TRY(gk__lib_function(ctx, mod, fname, &f, where));
    if (smem > 48 * 1024) {
        r = ctx->cu.FuncSetAttribute(f, GK__CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem);
        if (r != 0) return gk__cu_fail(ctx, r, where, "cuFuncSetAttribute");
    }
    r = ctx->cu.OccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, (int)block, smem);
    if (r != 0) return gk__cu_fail(ctx, r, where, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    if ((int64_t)per_sm * ctx->info.sm_count < (int64_t)grid)
        return gk__err(ctx, GK_ERR_LIMIT, "%s: %s needs %u resident blocks of %u threads, the device holds %d", where, fname, grid, block,
                       per_sm * ctx->info.sm_count);
    r = ctx->cu.LaunchCooperativeKernel(f, grid, 1, 1, block, 1, 1, smem, ctx->cur_stream->cu, args);
    if (r != 0) {
        gk__cu_fail(ctx, r, where, fname);
        return GK_ERR_LAUNCH;
    }
    return GK_OK;
}

/* Scratch memory for ops (FFT buffers, partial reductions ...): one pool
   block per context, grown only when an op needs more, so warmed-up ops
   allocate nothing. Work on one stream runs in order, so one buffer serves
   every op. The caller holds ctx->mu and, after issuing its work, calls
   gk__unuse(ctx, ctx->ws) (the block is pinned meanwhile, and by a graph
   that captures the op). */
GK__MAYBE_UNUSED static gk_status gk__workspace(gk_ctx *ctx, size_t nbytes, gk__cu_ptr *out, const char *where) {
    if (!ctx->ws || ctx->ws->size < nbytes) {
        gk__block *nb;
        GK__TRY(gk__pool_alloc(ctx, nbytes < ((size_t)1 << 20) ? ((size_t)1 << 20) : nbytes, &nb, where));
        if (ctx->ws) gk__block_unref(ctx, ctx->ws);
        ctx->ws = nb;
    }
    GK__TRY(gk__use(ctx, ctx->ws, ctx->cur_stream, where));
    *out = ctx->ws->ptr;
    return GK_OK;
}

/* Operands of one op: looked up, dtype-checked, resident and pinned. */
#define GK__MAX_OPNDS 16
typedef struct gk__opnds { gk__slot *s[GK__MAX_OPNDS]; int n; int used; } gk__opnds;
static gk_status gk__operands(gk_ctx *ctx, gk__opnds *ops, const gk_tensor *ts, const char *const *names, int n, const char *where) {
    int i;
    if (n > GK__MAX_OPNDS) return gk__err(ctx, GK_ERR_INTERNAL, "%s: %d operands (at most %d)", where, n, GK__MAX_OPNDS);
    ops->n = n;
    ops->used = 0;
    for (i = 0; i < n; i++) GK__TRY(gk__lookup(ctx, ts[i], &ops->s[i], where, names[i]));
    return GK_OK;
}
static gk_status gk__operands_use(gk_ctx *ctx, gk__opnds *ops, const char *where) {
    int i;
    GK__TRY(gk__bind(ctx));
    for (i = 0; i < ops->n; i++) {
        GK__TRY(gk__use(ctx, ops->s[i]->blk, ctx->cur_stream, where));
        ops->used = i + 1;
    }
    return GK_OK;
}
static void gk__operands_done(gk_ctx *ctx, gk__opnds *ops, gk_status st) {
    int i;
    for (i = 0; i < ops->used; i++) gk__unuse(ctx, ops->s[i]->blk);
    if (st != GK_OK && ctx->cur_stream->capture && ctx->cur_stream->capture->failed == GK_OK) ctx->cur_stream->capture->failed = st;
}

/* The one entry of the elementwise ops: op, out (operand 0), inputs. */
static gk_status gk__elementwise(gk_ctx *ctx, int op, const gk_tensor *ts, int n, double alpha, double fillv, const char *where) {
    static const char *const names3[3] = { "out", "a", "b" };
    static const char *const names_copy[2] = { "dst", "src" };
    static const char *const names_scale[2] = { "out", "x" };
    static const char *const names_axpy[2] = { "y", "x" };
    static const char *const names_fill[1] = { "the tensor" };
    const char *const *names = op <= GK__OP_DIV ? names3 : op == GK__OP_FILL ? names_fill
                             : (op == GK__OP_COPY || op == GK__OP_CAST) ? names_copy : op == GK__OP_SCALE ? names_scale : names_axpy;
    gk__opnds ops;
    gk__ew p;
    gk_status st;
    int i;
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__operands(ctx, &ops, ts, names, n, where);
    if (st == GK_OK) {
        p.dt = ops.s[0]->dtype;
        p.sdt = n > 1 ? ops.s[1]->dtype : p.dt;
        p.op = op;
        p.alpha = alpha;
        for (i = 1; i < n && op != GK__OP_CAST; i++)
            if (ops.s[i]->dtype != p.dt) {
                st = gk__err(ctx, GK_ERR_DTYPE, "%s: %s is %s but %s is %s (use gk_cast)", where, names[i], gk_dtype_name(ops.s[i]->dtype),
                             names[0], gk_dtype_name(p.dt));
                break;
            }
    }
    if (st == GK_OK) st = gk__nd_build(ctx, &p.nd, ops.s, n, names, where);
    if (st == GK_OK && p.nd.n == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK && op == GK__OP_FILL) {
        gk__scalar sc;
        sc.is_int = 0; sc.i = 0; sc.f = fillv;
        if (!gk_dtype_is_float(p.dt) && fillv == floor(fillv) && fabs(fillv) < 9.2e18) { sc.is_int = 1; sc.i = (int64_t)fillv; }
        gk__store(p.dt, &p.pattern, sc);
    }
    if (st == GK_OK) st = gk__operands_use(ctx, &ops, where);
    if (st == GK_OK) {
        p.o = (char *)(uintptr_t)gk__slot_addr(ops.s[0]);
        p.a = n > 1 ? (const char *)(uintptr_t)gk__slot_addr(ops.s[1]) : NULL;
        p.b = n > 2 ? (const char *)(uintptr_t)gk__slot_addr(ops.s[2]) : NULL;
        if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__ew_cpu, &p, sizeof p, where);
        else {
            gk__cu_ptr po = gk__slot_addr(ops.s[0]), pa = n > 1 ? gk__slot_addr(ops.s[1]) : 0, pb = n > 2 ? gk__slot_addr(ops.s[2]) : 0;
            size_t es = gk__dtype_sizes[p.dt];
            int contig = gk__nd_contig(&p.nd, n);
            void *args[4];
            args[0] = &p.nd;
            args[1] = &po;
            args[2] = &pa;
            args[3] = &pb;
            if (op <= GK__OP_DIV) {
                if (contig && ((po | pa | pb) & 15) == 0) {
                    int64_t nn = p.nd.n;
                    args[0] = &nn;
                    st = gk__launch(ctx, GK__MOD_ELEMENTWISE, gk__k_bin[op][1][p.dt], (nn * (int64_t)es + 15) / 16, args, where);
                } else st = gk__launch(ctx, GK__MOD_ELEMENTWISE, gk__k_bin[op][0][p.dt], p.nd.n, args, where);
            } else if (op == GK__OP_FILL) {
                if (contig && (po & 15) == 0) {
                    int64_t nbytes = p.nd.n * (int64_t)es;
                    uint64_t pat = p.pattern, rep = 0;
                    size_t k;
                    for (k = 0; k < 8; k += es) rep |= (pat & (es == 8 ? ~0ull : ((1ull << (8 * es)) - 1))) << (8 * k);
                    args[0] = &nbytes;
                    args[2] = &rep;
                    args[3] = &rep;
                    st = gk__launch(ctx, GK__MOD_ELEMENTWISE, "gk_fill_c", (nbytes + 15) / 16, args, where);
                } else {
                    args[2] = &p.pattern;
                    st = gk__launch(ctx, GK__MOD_ELEMENTWISE, gk__k_fill[es], p.nd.n, args, where);
                }
            } else if (op == GK__OP_COPY) {
                if (contig) {
                    gk__cu_result r = ctx->cu.MemcpyDtoDAsync(po, pa, (size_t)p.nd.n * es, ctx->cur_stream->cu);
                    if (r != 0) st = gk__cu_fail(ctx, r, where, "cuMemcpyDtoDAsync_v2");
                } else st = gk__launch(ctx, GK__MOD_ELEMENTWISE, gk__k_copy[es], p.nd.n, args, where);
            } else if (op == GK__OP_CAST) {
                st = gk__launch(ctx, GK__MOD_CAST, gk__k_cast[p.sdt][p.dt], p.nd.n, args, where);
            } else {
                args[3] = &p.alpha;
                st = gk__launch(ctx, GK__MOD_ELEMENTWISE, gk__k_scale[op == GK__OP_AXPY][p.dt], p.nd.n, args, where);
            }
        }
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_fill(gk_ctx *ctx, gk_tensor t, double value) { return gk__elementwise(ctx, GK__OP_FILL, &t, 1, 0, value, "gk_fill"); }
GKDEF gk_status gk_copy(gk_ctx *ctx, gk_tensor dst, gk_tensor src) {
    gk_tensor ts[2];
    ts[0] = dst; ts[1] = src;
    return gk__elementwise(ctx, GK__OP_COPY, ts, 2, 0, 0, "gk_copy");
}
GKDEF gk_status gk_cast(gk_ctx *ctx, gk_tensor dst, gk_tensor src) {
    gk_tensor ts[2];
    ts[0] = dst; ts[1] = src;
    return gk__elementwise(ctx, GK__OP_CAST, ts, 2, 0, 0, "gk_cast");
}
static gk_status gk__binary(gk_ctx *ctx, int op, gk_tensor out, gk_tensor a, gk_tensor b, const char *where) {
    gk_tensor ts[3];
    ts[0] = out; ts[1] = a; ts[2] = b;
    return gk__elementwise(ctx, op, ts, 3, 0, 0, where);
}
GKDEF gk_status gk_add(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b) { return gk__binary(ctx, GK__OP_ADD, out, a, b, "gk_add"); }
GKDEF gk_status gk_sub(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b) { return gk__binary(ctx, GK__OP_SUB, out, a, b, "gk_sub"); }
GKDEF gk_status gk_mul(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b) { return gk__binary(ctx, GK__OP_MUL, out, a, b, "gk_mul"); }
GKDEF gk_status gk_div(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b) { return gk__binary(ctx, GK__OP_DIV, out, a, b, "gk_div"); }
GKDEF gk_status gk_scale(gk_ctx *ctx, gk_tensor out, gk_tensor x, double alpha) {
    gk_tensor ts[2];
    ts[0] = out; ts[1] = x;
    return gk__elementwise(ctx, GK__OP_SCALE, ts, 2, alpha, 0, "gk_scale");
}
GKDEF gk_status gk_axpy(gk_ctx *ctx, gk_tensor y, double alpha, gk_tensor x) {
    gk_tensor ts[2];
    ts[0] = y; ts[1] = x;
    return gk__elementwise(ctx, GK__OP_AXPY, ts, 2, alpha, 0, "gk_axpy");
}

/* Broadcast shape of a and b (NumPy rules) for the _new variants. */
static gk_status gk__broadcast_shape(gk_ctx *ctx, const gk__slot *a, const gk__slot *b, int *nd, int64_t *shape, const char *where) {
    int n = a->ndim > b->ndim ? a->ndim : b->ndim, i;
    for (i = 0; i < n; i++) {
        int ia = i - (n - a->ndim), ib = i - (n - b->ndim);
        int64_t x = ia >= 0 ? a->shape[ia] : 1, y = ib >= 0 ? b->shape[ib] : 1;
        if (x != y && x != 1 && y != 1) {
            char sa[160], sb[160];
            gk__shape_str(a, sa, sizeof sa);
            gk__shape_str(b, sb, sizeof sb);
            return gk__err(ctx, GK_ERR_SHAPE, "%s: shapes %s and %s do not broadcast", where, sa, sb);
        }
        shape[i] = x == 1 ? y : x;
    }
    *nd = n;
    return GK_OK;
}
static gk_status gk__binary_new(gk_ctx *ctx, int op, gk_tensor a, gk_tensor b, gk_tensor *out, const char *where) {
    gk__slot *sa, *sb;
    int64_t shape[GK_MAX_DIMS];
    int nd = 0;
    uint32_t idx;
    gk_tensor t;
    gk_status st;
    if (out) out->id = 0;
    GK__ENTER(ctx, where);
    st = out ? gk__lookup(ctx, a, &sa, where, "a") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", where);
    if (st == GK_OK) st = gk__lookup(ctx, b, &sb, where, "b");
    if (st == GK_OK && sa->dtype != sb->dtype)
        st = gk__err(ctx, GK_ERR_DTYPE, "%s: a is %s but b is %s (use gk_cast)", where, gk_dtype_name(sa->dtype), gk_dtype_name(sb->dtype));
    if (st == GK_OK) st = gk__broadcast_shape(ctx, sa, sb, &nd, shape, where);
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK) st = gk__tensor_new(ctx, sa->dtype, nd, shape, &idx, where);
    if (st == GK_OK) t = gk__handle(ctx, idx);
    gk__unlock(&ctx->mu);
    if (st != GK_OK) return st;
    st = gk__binary(ctx, op, t, a, b, where);
    if (st != GK_OK) {
        char save[GK__ERRBUF];
        memcpy(save, ctx->err, sizeof save);
        gk_tensor_free(ctx, t);
        memcpy(ctx->err, save, sizeof save);
        return st;
    }
    *out = t;
    return GK_OK;
}
GKDEF gk_status gk_add_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_tensor *out) { return gk__binary_new(ctx, GK__OP_ADD, a, b, out, "gk_add_new"); }
GKDEF gk_status gk_sub_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_tensor *out) { return gk__binary_new(ctx, GK__OP_SUB, a, b, out, "gk_sub_new"); }
GKDEF gk_status gk_mul_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_tensor *out) { return gk__binary_new(ctx, GK__OP_MUL, a, b, out, "gk_mul_new"); }
GKDEF gk_status gk_div_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_tensor *out) { return gk__binary_new(ctx, GK__OP_DIV, a, b, out, "gk_div_new"); }

/* A new tensor shaped like src (dtype given), freed again if fill fails. */
static gk_status gk__new_like(gk_ctx *ctx, gk_tensor src, gk_dtype dt, gk_tensor *out, const char *where) {
    gk__slot *s;
    uint32_t idx;
    gk_status st;
    GK__ENTER(ctx, where);
    st = gk__lookup(ctx, src, &s, where, "src");
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK) st = gk__tensor_new(ctx, dt, s->ndim, s->shape, &idx, where);
    if (st == GK_OK) *out = gk__handle(ctx, idx);
    gk__unlock(&ctx->mu);
    return st;
}
static gk_status gk__finish_new(gk_ctx *ctx, gk_status st, gk_tensor t, gk_tensor *out) {
    if (st != GK_OK) {
        char save[GK__ERRBUF];
        memcpy(save, ctx->err, sizeof save);
        gk_tensor_free(ctx, t);
        memcpy(ctx->err, save, sizeof save);
        return st;
    }
    *out = t;
    return GK_OK;
}
GKDEF gk_status gk_cast_new(gk_ctx *ctx, gk_tensor src, gk_dtype dtype, gk_tensor *out) {
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_cast_new: out is NULL");
    GK__TRY(gk__new_like(ctx, src, dtype, &t, "gk_cast_new"));
    return gk__finish_new(ctx, gk_cast(ctx, t, src), t, out);
}
GKDEF gk_status gk_contiguous(gk_ctx *ctx, gk_tensor t, gk_tensor *out) {
    gk__slot *s;
    gk_status st;
    int contig = 0;
    gk_tensor n;
    if (out) out->id = 0;
    GK__ENTER(ctx, "gk_contiguous");
    st = out ? gk__lookup(ctx, t, &s, "gk_contiguous", "the tensor") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_contiguous: out is NULL");
    if (st == GK_OK && (contig = gk__is_contig(s)) != 0) st = gk__view_new(ctx, s, s->ndim, s->shape, s->strides, s->offset, out, "gk_contiguous");
    gk__unlock(&ctx->mu);
    if (st != GK_OK || contig) return st;
    GK__TRY(gk__new_like(ctx, t, s->dtype, &n, "gk_contiguous"));
    return gk__finish_new(ctx, gk_copy(ctx, n, t), n, out);
}

/* ------------------------------------------------------------------------ */
/* >>ops_math: implementation of the >>api_ops_math group (below this line) */
static int gk__fdt(gk_dtype dt) { return dt == GK_F32 || dt == GK_F64 || dt == GK_F16 || dt == GK_BF16; }
static gk_status gk__need_fdt(gk_ctx *ctx, const gk__slot *s, const char *what, const char *where) {
    if (gk__fdt(s->dtype)) return GK_OK;
    return gk__err(ctx, GK_ERR_DTYPE, "%s: %s is %s; this op takes f32, f64, f16 or bf16", where, what, gk_dtype_name(s->dtype));
}
static double gk__ldd(gk_dtype dt, const char *p) {
    double d;
    if (dt == GK_F64) { memcpy(&d, p, 8); return d; }
    if (gk_dtype_is_float(dt)) return gk__ldf(dt, p);
    return (double)gk__ldi(dt, p);
}
/* element offset of item i of a one-operand (operand k) iteration, by division */
static int64_t gk__nd_off(const gk__nd *nd, int k, int64_t i) {
    int64_t o = 0;
    int d;
    for (d = nd->ndim - 1; d >= 0; d--) {
        int64_t q = i / nd->shape[d];
        o += (i - q * nd->shape[d]) * nd->st[k][d];
        i = q;
    }
    return o;
}
/* a slot with dim `d` removed (views of the op's operands for its iterations) */
static gk__slot gk__slot_drop(const gk__slot *s, int d) {
    gk__slot r = *s;
    int i;
    for (i = d; i < s->ndim - 1; i++) { r.shape[i] = s->shape[i + 1]; r.strides[i] = s->strides[i + 1]; }
    r.ndim = s->ndim - 1;
    return r;
}
static gk_status gk__shape_eq(gk_ctx *ctx, const gk__slot *s, int nd, const int64_t *shape, const char *what, const char *where) {
    int i, same = s->ndim == nd;
    for (i = 0; same && i < nd; i++) same = s->shape[i] == shape[i];
    if (!same) {
        char a[160], b[160];
        gk__slot t;
        memset(&t, 0, sizeof t);
        t.ndim = nd;
        for (i = 0; i < nd; i++) t.shape[i] = shape[i];
        gk__shape_str(s, a, sizeof a);
        gk__shape_str(&t, b, sizeof b);
        return gk__err(ctx, GK_ERR_SHAPE, "%s: %s has shape %s but must have shape %s", where, what, a, b);
    }
    return GK_OK;
}
static int gk__same_shape(const gk__slot *a, const gk__slot *b) {
    int i;
    if (a->ndim != b->ndim) return 0;
    for (i = 0; i < a->ndim; i++) if (a->shape[i] != b->shape[i]) return 0;
    return 1;
}
static int gk__grid_cap(gk_ctx *ctx, int64_t want, int per_sm) {
    int64_t cap = (int64_t)(ctx->info.sm_count > 0 ? ctx->info.sm_count : 1) * per_sm;
    return (int)(want < 1 ? 1 : want < cap ? want : cap);
}

/* ---- elementwise math: one path for every class ---- */
enum { GK__MC_UNARY = 0, GK__MC_BIN, GK__MC_CMP, GK__MC_WHERE, GK__MC_GLU, GK__MC_GLU_SPLIT, GK__MC_SNAKE };
#define GK__UNARY_CLAMP GK_UNARY_COUNT
typedef struct gk__mw {
    gk__nd nd;
    char *o;
    const char *a, *b, *c;
    gk_dtype dt;               /* the inputs' dtype (a for compare, out for where) */
    int cls, op;
    double p0, p1;
} gk__mw;

#define GK__UN_DEF(NAME, T, EXP, LOG, LOG1P, SQRT, SIN, COS, TANH, ERF, FABS)                              \
    static T NAME(int op, T x, T p0, T p1) {                                                             \
        T r;                                                                                             \
        switch (op) {                                                                                    \
        case GK_UNARY_EXP: return EXP(x);                                                                \
        case GK_UNARY_LOG: return LOG(x);                                                                \
        case GK_UNARY_SQRT: return SQRT(x);                                                              \
        case GK_UNARY_RSQRT: return (T)1 / SQRT(x);                                                      \
        case GK_UNARY_ABS: return FABS(x);                                                               \
        case GK_UNARY_NEG: return -x;                                                                    \
        case GK_UNARY_SIN: return SIN(x);                                                                \
        case GK_UNARY_COS: return COS(x);                                                                \
        case GK_UNARY_TANH: return TANH(x);                                                              \
        case GK_UNARY_SIGMOID: return (T)1 / ((T)1 + EXP(-x));                                           \
        case GK_UNARY_RELU: return x < (T)0 ? (T)0 : x;                                                  \
        case GK_UNARY_LEAKY_RELU: return x < (T)0 ? x * p0 : x;                                          \
        case GK_UNARY_GELU: return (T)0.5 * x * ((T)1 + ERF(x * (T)0.70710678118654752440));             \
        case GK_UNARY_GELU_TANH:                                                                         \
            return (T)0.5 * x * ((T)1 + TANH((T)0.79788456080286535588 * (x + (T)0.044715 * x * x * x)));  \
        case GK_UNARY_SILU: return x / ((T)1 + EXP(-x));                                                 \
        case GK_UNARY_RELU2: r = x < (T)0 ? (T)0 : x; return r * r;                                      \
        case GK_UNARY_SOFTPLUS: r = p0 * x; return r > (T)20 ? x : LOG1P(EXP(r)) / p0;                   \
        default: return x < p0 ? p0 : x > p1 ? p1 : x;                                                   \
        }                                                                                                \
    }
GK__UN_DEF(gk__unf, float, expf, logf, log1pf, sqrtf, sinf, cosf, tanhf, erff, fabsf)
GK__UN_DEF(gk__und, double, exp, log, log1p, sqrt, sin, cos, tanh, erf, fabs)

static void gk__mw_cpu(const void *vp) {
    const gk__mw *p = (const gk__mw *)vp;
    const gk__nd *nd = &p->nd;
    gk_dtype dt = p->dt;
    int64_t es = (int64_t)gk__dtype_sizes[dt];
    int op = p->op, f64 = dt == GK_F64;
    float f0 = (float)p->p0, f1 = (float)p->p1;
    switch (p->cls) {
    case GK__MC_UNARY:
        if (f64) GK__ND_FOR(nd, { double x, r; memcpy(&x, p->a + o1 * 8, 8); r = gk__und(op, x, p->p0, p->p1); memcpy(p->o + o0 * 8, &r, 8); });
        else GK__ND_FOR(nd, gk__stf(dt, p->o + o0 * es, gk__unf(op, gk__ldf(dt, p->a + o1 * es), f0, f1)));
        break;
    case GK__MC_GLU: case GK__MC_GLU_SPLIT: {
        int uop = op == GK_GLU_SILU ? GK_UNARY_SILU : op == GK_GLU_GELU ? GK_UNARY_GELU : GK_UNARY_GELU_TANH;
        if (f64) GK__ND_FOR(nd, {
            double g, u, r;
            memcpy(&g, p->a + o1 * 8, 8); memcpy(&u, p->b + o2 * 8, 8);
            r = gk__und(uop, g, 0, 0) * u;
            memcpy(p->o + o0 * 8, &r, 8);
        });
        else GK__ND_FOR(nd, gk__stf(dt, p->o + o0 * es, gk__unf(uop, gk__ldf(dt, p->a + o1 * es), 0, 0) * gk__ldf(dt, p->b + o2 * es)));
        break;
    }
    case GK__MC_SNAKE:
        if (f64) GK__ND_FOR(nd, {
            double x, a, s, r;
            memcpy(&x, p->a + o1 * 8, 8); memcpy(&a, p->b + o2 * 8, 8);
            s = sin(a * x); r = x + s * s / (a + 1e-9);
            memcpy(p->o + o0 * 8, &r, 8);
        });
        else GK__ND_FOR(nd, {
            float x = gk__ldf(dt, p->a + o1 * es), a = gk__ldf(dt, p->b + o2 * es), s = sinf(a * x);
            gk__stf(dt, p->o + o0 * es, x + s * s / (a + 1e-9f));
        });
        break;
    case GK__MC_BIN:
        if (!gk_dtype_is_float(dt)) GK__ND_FOR(nd, {
            int64_t x = gk__ldi(dt, p->a + o1 * es), y = gk__ldi(dt, p->b + o2 * es);
            gk__sti(dt, p->o + o0 * es, op == GK_BINARY_MAXIMUM ? (x > y ? x : y) : (x < y ? x : y));
        });
        else if (f64) GK__ND_FOR(nd, {
            double x, y, r;
            memcpy(&x, p->a + o1 * 8, 8); memcpy(&y, p->b + o2 * 8, 8);
            r = op == GK_BINARY_POW ? pow(x, y) : (x != x || y != y) ? x + y : op == GK_BINARY_MAXIMUM ? (x > y ? x : y) : (x < y ? x : y);
            memcpy(p->o + o0 * 8, &r, 8);
        });
        else GK__ND_FOR(nd, {
            float x = gk__ldf(dt, p->a + o1 * es), y = gk__ldf(dt, p->b + o2 * es), r;
            r = op == GK_BINARY_POW ? powf(x, y) : (x != x || y != y) ? x + y : op == GK_BINARY_MAXIMUM ? (x > y ? x : y) : (x < y ? x : y);
            gk__stf(dt, p->o + o0 * es, r);
        });
        break;
    case GK__MC_CMP:
        if (gk_dtype_is_float(dt)) GK__ND_FOR(nd, {
            double x = gk__ldd(dt, p->a + o1 * es), y = gk__ldd(dt, p->b + o2 * es);
            int r = op == GK_CMP_EQ ? x == y : op == GK_CMP_NE ? x != y : op == GK_CMP_LT ? x < y : op == GK_CMP_LE ? x <= y : op == GK_CMP_GT ? x > y : x >= y;
            ((uint8_t *)p->o)[o0] = (uint8_t)r;
        });
        else GK__ND_FOR(nd, {
            int64_t x = gk__ldi(dt, p->a + o1 * es), y = gk__ldi(dt, p->b + o2 * es);
            int r = op == GK_CMP_EQ ? x == y : op == GK_CMP_NE ? x != y : op == GK_CMP_LT ? x < y : op == GK_CMP_LE ? x <= y : op == GK_CMP_GT ? x > y : x >= y;
            ((uint8_t *)p->o)[o0] = (uint8_t)r;
        });
        break;
    default: /* where: operands out, cond, a, b */
        GK__ND_FOR(nd, memcpy(p->o + o0 * es, ((const uint8_t *)p->a)[o1] ? p->b + o2 * es : p->c + o3 * es, (size_t)es));
        break;
    }
}

static const char *const gk__k_unary[2][GK_DTYPE_COUNT] = { GK__DTNAMES("gk_unary_", ""), GK__DTNAMES("gk_unary_", "_c") };
static const char *const gk__k_glu[2][GK_DTYPE_COUNT] = { GK__DTNAMES("gk_glu_", ""), GK__DTNAMES("gk_glu_", "_c") };
static const char *const gk__k_glu_split[GK_DTYPE_COUNT] = GK__DTNAMES("gk_glu_split_", "_c");
static const char *const gk__k_snake[GK_DTYPE_COUNT] = GK__DTNAMES("gk_snake_", "");
static const char *const gk__k_snake_rows[GK_DTYPE_COUNT] = GK__DTNAMES("gk_snake_rows_", "");
static const char *const gk__k_bin2[GK_DTYPE_COUNT] = GK__DTNAMES("gk_bin2_", "");
static const char *const gk__k_bin2c[GK_DTYPE_COUNT] = GK__DTNAMES("gk_bin2_", "_c");
static const char *const gk__k_cmp[GK_DTYPE_COUNT] = GK__DTNAMES("gk_cmp_", "");
static const char *const gk__k_where[9] = { NULL, "gk_where_b1", "gk_where_b2", NULL, "gk_where_b4", NULL, NULL, NULL, "gk_where_b8" };

static gk_status gk__mew(gk_ctx *ctx, int cls, int op, const gk_tensor *ts, int n, double p0, double p1, const char *where) {
    static const char *const nm_un[2] = { "out", "x" };
    static const char *const nm_bin[3] = { "out", "a", "b" };
    static const char *const nm_where[4] = { "out", "cond", "a", "b" };
    static const char *const nm_glu[3] = { "out", "gate", "up" };
    static const char *const nm_split[3] = { "out", "x (gate half)", "x (up half)" };
    static const char *const nm_snake[3] = { "out", "x", "alpha" };
    const char *const *names = cls == GK__MC_UNARY ? nm_un : cls == GK__MC_WHERE ? nm_where : cls == GK__MC_GLU ? nm_glu
                             : cls == GK__MC_GLU_SPLIT ? nm_split : cls == GK__MC_SNAKE ? nm_snake : nm_bin;
    gk__opnds ops;
    gk__mw p;
    gk__slot fs[4];
    gk__slot *fp[4];
    gk_status st;
    int i, nn = n;
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__operands(ctx, &ops, ts, cls == GK__MC_GLU_SPLIT ? nm_un : names, n, where);
    if (st == GK_OK) {
        gk_dtype dt = ops.s[0]->dtype;
        for (i = 0; i < n; i++) { fs[i] = *ops.s[i]; fp[i] = &fs[i]; }
        p.cls = cls; p.op = op; p.p0 = p0; p.p1 = p1;
        if (cls == GK__MC_CMP) {
            dt = ops.s[1]->dtype;
            if (ops.s[0]->dtype != GK_U8) st = gk__err(ctx, GK_ERR_DTYPE, "%s: out is %s but must be u8", where, gk_dtype_name(ops.s[0]->dtype));
            else if (ops.s[2]->dtype != dt)
                st = gk__err(ctx, GK_ERR_DTYPE, "%s: a is %s but b is %s (use gk_cast)", where, gk_dtype_name(dt), gk_dtype_name(ops.s[2]->dtype));
        } else if (cls == GK__MC_WHERE) {
            if (ops.s[1]->dtype != GK_U8) st = gk__err(ctx, GK_ERR_DTYPE, "%s: cond is %s but must be u8", where, gk_dtype_name(ops.s[1]->dtype));
            for (i = 2; i < 4 && st == GK_OK; i++)
                if (ops.s[i]->dtype != dt)
                    st = gk__err(ctx, GK_ERR_DTYPE, "%s: %s is %s but out is %s (use gk_cast)", where, names[i], gk_dtype_name(ops.s[i]->dtype), gk_dtype_name(dt));
        } else {
            for (i = 1; i < n && st == GK_OK; i++)
                if (ops.s[i]->dtype != dt)
                    st = gk__err(ctx, GK_ERR_DTYPE, "%s: %s is %s but out is %s (use gk_cast)", where, cls == GK__MC_GLU_SPLIT ? "x" : names[i],
                                 gk_dtype_name(ops.s[i]->dtype), gk_dtype_name(dt));
            if (st == GK_OK && !(cls == GK__MC_BIN && op != GK_BINARY_POW)) st = gk__need_fdt(ctx, ops.s[0], "out", where);
        }
        p.dt = dt;
    }
    if (st == GK_OK && cls == GK__MC_UNARY && op == GK__UNARY_CLAMP && !(p0 <= p1))
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_clamp: lo (%g) must be <= hi (%g), neither NaN", p0, p1);
    if (st == GK_OK && cls == GK__MC_SNAKE) {
        const gk__slot *x = ops.s[1], *al = ops.s[2];
        if (x->ndim != 2 && x->ndim != 3) st = gk__err(ctx, GK_ERR_SHAPE, "%s: x has %d dims; it must be [B, C, T] or [C, T]", where, x->ndim);
        else if (al->ndim != 1 || al->shape[0] != x->shape[x->ndim - 2])
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: alpha must be [C] with C = %lld (x's channel dim), got %d dims of first size %lld", where,
                         (long long)x->shape[x->ndim - 2], al->ndim, (long long)(al->ndim ? al->shape[0] : 0));
        else {
            fs[2].ndim = x->ndim;
            for (i = 0; i < x->ndim; i++) { fs[2].shape[i] = 1; fs[2].strides[i] = 0; }
            fs[2].shape[x->ndim - 2] = al->shape[0];
            fs[2].strides[x->ndim - 2] = al->strides[0];
        }
    }
    if (st == GK_OK && cls == GK__MC_GLU_SPLIT) {
        const gk__slot *x = ops.s[1];
        int64_t h;
        if (x->ndim < 1 || x->shape[x->ndim - 1] % 2 != 0)
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: x's last dim must be even (gate and up halves), got %lld", where,
                         (long long)(x->ndim ? x->shape[x->ndim - 1] : 0));
        else {
            h = x->shape[x->ndim - 1] / 2;
            fs[1].shape[x->ndim - 1] = h;
            fs[2] = fs[1];
            fs[2].offset += h * x->strides[x->ndim - 1];
            fp[2] = &fs[2];
            nn = 3;
        }
    }
    if (st == GK_OK) st = gk__nd_build(ctx, &p.nd, fp, nn, names, where);
    if (st == GK_OK && p.nd.n == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__operands_use(ctx, &ops, where);
    if (st == GK_OK) {
        gk__cu_ptr pp[4] = { 0, 0, 0, 0 };
        for (i = 0; i < nn; i++) pp[i] = gk__slot_addr(&fs[i]);
        p.o = (char *)(uintptr_t)pp[0];
        p.a = (const char *)(uintptr_t)pp[1];
        p.b = (const char *)(uintptr_t)pp[2];
        p.c = (const char *)(uintptr_t)pp[3];
        if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__mw_cpu, &p, sizeof p, where);
        else {
            void *args[6];
            int contig = gk__nd_contig(&p.nd, nn) && ((pp[0] | pp[1] | pp[2]) & 15) == 0;
            int64_t nel = p.nd.n, es = (int64_t)gk__dtype_sizes[p.dt];
            int iop = op;
            args[0] = &p.nd; args[1] = &pp[0]; args[2] = &pp[1]; args[3] = &pp[2]; args[4] = &pp[3];
            switch (cls) {
            case GK__MC_UNARY:
                args[3] = &iop; args[4] = &p.p0; args[5] = &p.p1;
                if (contig) { args[0] = &nel; st = gk__launch(ctx, GK__MOD_MATH, gk__k_unary[1][p.dt], (nel * es + 15) / 16, args, where); }
                else st = gk__launch(ctx, GK__MOD_MATH, gk__k_unary[0][p.dt], nel, args, where);
                break;
            case GK__MC_GLU: case GK__MC_GLU_SPLIT:
                args[4] = &iop;
                if (cls == GK__MC_GLU_SPLIT && !contig && gk__is_contig(ops.s[0]) && gk__is_contig(ops.s[1]) && gk__same_shape(ops.s[0], &fs[1]) &&
                    ((pp[0] | pp[1]) & 15) == 0 && (fs[1].shape[fs[1].ndim - 1] * es) % 16 == 0) {
                    /* contiguous rows [rows, 2n] -> [rows, n], 16 bytes per thread */
                    int64_t half = fs[1].shape[fs[1].ndim - 1], rows = nel / half;
                    void *sargs[5];
                    sargs[0] = &rows; sargs[1] = &half; sargs[2] = &pp[0]; sargs[3] = &pp[1]; sargs[4] = &iop;
                    st = gk__launch(ctx, GK__MOD_MATH, gk__k_glu_split[p.dt], (nel * es + 15) / 16, sargs, where);
                    break;
                }
                if (contig) { args[0] = &nel; st = gk__launch(ctx, GK__MOD_MATH, gk__k_glu[1][p.dt], (nel * es + 15) / 16, args, where); }
                else st = gk__launch(ctx, GK__MOD_MATH, gk__k_glu[0][p.dt], nel, args, where);
                break;
            case GK__MC_SNAKE:
                if (gk__is_contig(ops.s[0]) && gk__is_contig(ops.s[1]) && gk__same_shape(ops.s[0], ops.s[1])) {
                    /* rows of T with one alpha each: no index arithmetic per element */
                    const gk__slot *x = ops.s[1];
                    int64_t T = x->shape[x->ndim - 1], C = x->shape[x->ndim - 2], rows = nel / T, ast = ops.s[2]->strides[0];
                    unsigned grid[3] = { 1, 1, 1 }, block[3] = { 256, 1, 1 };
                    void *sargs[7];
                    sargs[0] = &rows; sargs[1] = &T; sargs[2] = &C; sargs[3] = &ast; sargs[4] = &pp[0]; sargs[5] = &pp[1]; sargs[6] = &pp[2];
                    grid[0] = (unsigned)((T + 255) / 256 < 64 ? (T + 255) / 256 : 64);
                    grid[1] = (unsigned)(rows < 65535 ? rows : 65535);
                    st = gk__launch_cfg(ctx, GK__MOD_MATH, gk__k_snake_rows[p.dt], grid, block, 0, sargs, where);
                } else st = gk__launch(ctx, GK__MOD_MATH, gk__k_snake[p.dt], nel, args, where);
                break;
            case GK__MC_BIN:
                args[4] = &iop;
                if (contig && gk__fdt(p.dt)) { args[0] = &nel; st = gk__launch(ctx, GK__MOD_MATH, gk__k_bin2c[p.dt], (nel * es + 15) / 16, args, where); }
                else st = gk__launch(ctx, GK__MOD_MATH, gk__k_bin2[p.dt], nel, args, where);
                break;
            case GK__MC_CMP: args[4] = &iop; st = gk__launch(ctx, GK__MOD_MATH, gk__k_cmp[p.dt], nel, args, where); break;
            default: st = gk__launch(ctx, GK__MOD_MATH, gk__k_where[es], nel, args, where); break;
            }
        }
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}

/* result shape and dtype of an elementwise math op, for the _new variants */
static gk_status gk__mew_new(gk_ctx *ctx, int cls, int op, const gk_tensor *ins, int nin, double p0, double p1, gk_tensor *out,
                             const char *where) {
    gk__slot *s[3];
    int64_t shape[GK_MAX_DIMS];
    int nd = 0, i, d;
    uint32_t idx;
    gk_dtype dt = GK_F32;
    gk_tensor ts[4];
    gk_status st = GK_OK;
    if (out) out->id = 0;
    GK__ENTER(ctx, where);
    if (!out) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", where);
    for (i = 0; i < nin && st == GK_OK; i++) st = gk__lookup(ctx, ins[i], &s[i], where, i == 0 ? "the first input" : "an input");
    if (st == GK_OK) {
        if (cls == GK__MC_SNAKE || cls == GK__MC_GLU_SPLIT) { /* x's shape (last dim halved for split) */
            nd = s[0]->ndim;
            for (d = 0; d < nd; d++) shape[d] = s[0]->shape[d];
            if (cls == GK__MC_GLU_SPLIT && nd > 0) shape[nd - 1] /= 2;
        } else {
            for (i = 0; i < nin; i++) if (s[i]->ndim > nd) nd = s[i]->ndim;
            for (d = 0; d < nd && st == GK_OK; d++) {
                int64_t v = 1;
                for (i = 0; i < nin; i++) {
                    int id = d - (nd - s[i]->ndim);
                    int64_t x = id >= 0 ? s[i]->shape[id] : 1;
                    if (x != 1 && v != 1 && x != v) {
                        char a[160], b[160];
                        gk__shape_str(s[0], a, sizeof a);
                        gk__shape_str(s[i], b, sizeof b);
                        st = gk__err(ctx, GK_ERR_SHAPE, "%s: shapes %s and %s do not broadcast", where, a, b);
                        break;
                    }
                    if (x != 1) v = x;
                }
                shape[d] = v;
            }
        }
        dt = cls == GK__MC_CMP ? GK_U8 : cls == GK__MC_WHERE ? s[1]->dtype : s[0]->dtype;
    }
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK) st = gk__tensor_new(ctx, dt, nd, shape, &idx, where);
    if (st == GK_OK) ts[0] = gk__handle(ctx, idx);
    gk__unlock(&ctx->mu);
    if (st != GK_OK) return st;
    for (i = 0; i < nin; i++) ts[i + 1] = ins[i];
    return gk__finish_new(ctx, gk__mew(ctx, cls, op, ts, nin + 1, p0, p1, where), ts[0], out);
}

GKDEF gk_status gk_unary(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_unary_op op, double param) {
    gk_tensor ts[2];
    ts[0] = out; ts[1] = x;
    if ((int)op < 0 || op >= GK_UNARY_COUNT) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_unary: unknown op %d", (int)op);
    if (op == GK_UNARY_SOFTPLUS && param == 0) param = 1;
    return gk__mew(ctx, GK__MC_UNARY, (int)op, ts, 2, param, 0, "gk_unary");
}
GKDEF gk_status gk_unary_new(gk_ctx *ctx, gk_tensor x, gk_unary_op op, double param, gk_tensor *out) {
    if ((int)op < 0 || op >= GK_UNARY_COUNT) { if (out) out->id = 0; return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_unary_new: unknown op %d", (int)op); }
    if (op == GK_UNARY_SOFTPLUS && param == 0) param = 1;
    return gk__mew_new(ctx, GK__MC_UNARY, (int)op, &x, 1, param, 0, out, "gk_unary_new");
}
GKDEF gk_status gk_clamp(gk_ctx *ctx, gk_tensor out, gk_tensor x, double lo, double hi) {
    gk_tensor ts[2];
    ts[0] = out; ts[1] = x;
    return gk__mew(ctx, GK__MC_UNARY, GK__UNARY_CLAMP, ts, 2, lo, hi, "gk_clamp");
}
GKDEF gk_status gk_clamp_new(gk_ctx *ctx, gk_tensor x, double lo, double hi, gk_tensor *out) {
    return gk__mew_new(ctx, GK__MC_UNARY, GK__UNARY_CLAMP, &x, 1, lo, hi, out, "gk_clamp_new");
}
GKDEF gk_status gk_binary(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b, gk_binary_op op) {
    gk_tensor ts[3];
    ts[0] = out; ts[1] = a; ts[2] = b;
    if ((int)op < 0 || op >= GK_BINARY_COUNT) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_binary: unknown op %d", (int)op);
    return gk__mew(ctx, GK__MC_BIN, (int)op, ts, 3, 0, 0, "gk_binary");
}
GKDEF gk_status gk_binary_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_binary_op op, gk_tensor *out) {
    gk_tensor ins[2];
    ins[0] = a; ins[1] = b;
    if ((int)op < 0 || op >= GK_BINARY_COUNT) { if (out) out->id = 0; return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_binary_new: unknown op %d", (int)op); }
    return gk__mew_new(ctx, GK__MC_BIN, (int)op, ins, 2, 0, 0, out, "gk_binary_new");
}
GKDEF gk_status gk_compare(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b, gk_compare_op op) {
    gk_tensor ts[3];
    ts[0] = out; ts[1] = a; ts[2] = b;
    if ((int)op < 0 || op >= GK_CMP_COUNT) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_compare: unknown op %d", (int)op);
    return gk__mew(ctx, GK__MC_CMP, (int)op, ts, 3, 0, 0, "gk_compare");
}
GKDEF gk_status gk_compare_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_compare_op op, gk_tensor *out) {
    gk_tensor ins[2];
    ins[0] = a; ins[1] = b;
    if ((int)op < 0 || op >= GK_CMP_COUNT) { if (out) out->id = 0; return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_compare_new: unknown op %d", (int)op); }
    return gk__mew_new(ctx, GK__MC_CMP, (int)op, ins, 2, 0, 0, out, "gk_compare_new");
}
GKDEF gk_status gk_where(gk_ctx *ctx, gk_tensor out, gk_tensor cond, gk_tensor a, gk_tensor b) {
    gk_tensor ts[4];
    ts[0] = out; ts[1] = cond; ts[2] = a; ts[3] = b;
    return gk__mew(ctx, GK__MC_WHERE, 0, ts, 4, 0, 0, "gk_where");
}
GKDEF gk_status gk_where_new(gk_ctx *ctx, gk_tensor cond, gk_tensor a, gk_tensor b, gk_tensor *out) {
    gk_tensor ins[3];
    ins[0] = cond; ins[1] = a; ins[2] = b;
    return gk__mew_new(ctx, GK__MC_WHERE, 0, ins, 3, 0, 0, out, "gk_where_new");
}
GKDEF gk_status gk_snake(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor alpha) {
    gk_tensor ts[3];
    ts[0] = out; ts[1] = x; ts[2] = alpha;
    return gk__mew(ctx, GK__MC_SNAKE, 0, ts, 3, 0, 0, "gk_snake");
}
GKDEF gk_status gk_snake_new(gk_ctx *ctx, gk_tensor x, gk_tensor alpha, gk_tensor *out) {
    gk_tensor ins[2];
    ins[0] = x; ins[1] = alpha;
    return gk__mew_new(ctx, GK__MC_SNAKE, 0, ins, 2, 0, 0, out, "gk_snake_new");
}
GKDEF gk_status gk_glu(gk_ctx *ctx, gk_tensor out, gk_tensor gate, gk_tensor up, gk_glu_op op) {
    gk_tensor ts[3];
    ts[0] = out; ts[1] = gate; ts[2] = up;
    if ((int)op < 0 || op >= GK_GLU_COUNT) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_glu: unknown op %d", (int)op);
    return gk__mew(ctx, GK__MC_GLU, (int)op, ts, 3, 0, 0, "gk_glu");
}
GKDEF gk_status gk_glu_new(gk_ctx *ctx, gk_tensor gate, gk_tensor up, gk_glu_op op, gk_tensor *out) {
    gk_tensor ins[2];
    ins[0] = gate; ins[1] = up;
    if ((int)op < 0 || op >= GK_GLU_COUNT) { if (out) out->id = 0; return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_glu_new: unknown op %d", (int)op); }
    return gk__mew_new(ctx, GK__MC_GLU, (int)op, ins, 2, 0, 0, out, "gk_glu_new");
}
GKDEF gk_status gk_glu_split(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_glu_op op) {
    gk_tensor ts[2];
    ts[0] = out; ts[1] = x;
    if ((int)op < 0 || op >= GK_GLU_COUNT) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_glu_split: unknown op %d", (int)op);
    return gk__mew(ctx, GK__MC_GLU_SPLIT, (int)op, ts, 2, 0, 0, "gk_glu_split");
}
GKDEF gk_status gk_glu_split_new(gk_ctx *ctx, gk_tensor x, gk_glu_op op, gk_tensor *out) {
    if ((int)op < 0 || op >= GK_GLU_COUNT) { if (out) out->id = 0; return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_glu_split_new: unknown op %d", (int)op); }
    return gk__mew_new(ctx, GK__MC_GLU_SPLIT, (int)op, &x, 1, 0, 0, out, "gk_glu_split_new");
}

/* ---- reductions ---- */
typedef struct gk__rpart { double v; double m2; int64_t n; } gk__rpart; /* gk_rpart in kernels/reduce.cu */
typedef struct gk__red {
    gk__nd on, rn;               /* outputs (0 out, 1 x), reduced elements (0 x) */
    int64_t R;
    int op;
    gk_dtype dt;
    char *o;
    const char *x;
} gk__red;
typedef struct { double v, m2; int64_t n; } gk__rs;
static void gk__rs_init(int op, gk__rs *s) {
    s->m2 = 0;
    s->n = (op == GK_REDUCE_ARGMAX || op == GK_REDUCE_ARGMIN) ? INT64_MAX : 0;
    s->v = (op == GK_REDUCE_MAX || op == GK_REDUCE_ARGMAX) ? -INFINITY : (op == GK_REDUCE_MIN || op == GK_REDUCE_ARGMIN) ? INFINITY : 0;
}
static int gk__rs_better(int mx, double xv, int64_t xi, double sv, int64_t si) {
    int xn = xv != xv, sn = sv != sv;
    if (xn || sn) return xn && (!sn || xi < si);
    if (xv == sv) return xi < si;
    return mx ? xv > sv : xv < sv;
}
/* one element; the reference accumulates sums and moments in double (f64 = 1) */
static void gk__rs_push(int op, int f64, gk__rs *s, double x, int64_t i) {
    switch (op) {
    case GK_REDUCE_SUM: case GK_REDUCE_MEAN: s->v = f64 ? s->v + x : (double)((float)s->v + (float)x); break;
    case GK_REDUCE_MAX: if (s->v == s->v && (x != x || x > s->v)) s->v = x; break;
    case GK_REDUCE_MIN: if (s->v == s->v && (x != x || x < s->v)) s->v = x; break;
    case GK_REDUCE_ARGMAX: case GK_REDUCE_ARGMIN:
        if (gk__rs_better(op == GK_REDUCE_ARGMAX, x, i, s->v, s->n)) { s->v = x; s->n = i; }
        break;
    default:
        s->n++;
        if (f64) {
            double d = x - s->v;
            s->v += d / (double)s->n;
            s->m2 += d * (x - s->v);
        } else {
            float d = (float)x - (float)s->v, v = (float)s->v + d / (float)s->n;
            s->m2 = (double)((float)s->m2 + d * ((float)x - v));
            s->v = v;
        }
    }
}
static void gk__red_cpu(const void *vp) {
    const gk__red *p = (const gk__red *)vp;
    int64_t es = (int64_t)gk__dtype_sizes[p->dt];
    int f64 = p->dt == GK_F64, op = p->op;
    const gk__nd *on = &p->on;
    GK__ND_FOR(on, {
        gk__rs s;
        int64_t r;
        double res;
        gk__rs_init(op, &s);
        for (r = 0; r < p->R; r++) gk__rs_push(op, 1, &s, gk__ldd(p->dt, p->x + (o1 + gk__nd_off(&p->rn, 0, r)) * es), r);
        if (op == GK_REDUCE_ARGMAX || op == GK_REDUCE_ARGMIN) { memcpy(p->o + o0 * 8, &s.n, 8); }
        else {
            res = op == GK_REDUCE_MEAN ? s.v / (double)p->R : op == GK_REDUCE_VAR ? s.m2 / (double)p->R
                : op == GK_REDUCE_VAR_UNBIASED ? s.m2 / (double)(p->R > 1 ? p->R - 1 : 0) : s.v;
            if (f64) memcpy(p->o + o0 * 8, &res, 8);
            else gk__stf(p->dt, p->o + o0 * es, (float)res);
        }
    });
}
static const char *const gk__k_red_rows[GK_DTYPE_COUNT] = GK__DTNAMES("gk_red_rows_", "");
static const char *const gk__k_red_fin[GK_DTYPE_COUNT] = GK__DTNAMES("gk_red_fin_", "");
static const char *const gk__k_red_cols[GK_DTYPE_COUNT] = GK__DTNAMES("gk_red_cols_", "");

static int gk__norm_axis(int axis, int ndim, int *out) {
    int a = axis < 0 ? axis + ndim : axis;
    if (ndim == 0 && (axis == 0 || axis == -1)) { *out = -1; return 1; }
    if (a < 0 || a >= ndim) return 0;
    *out = a;
    return 1;
}
/* shape of a reduction's result */
static gk_status gk__red_shape(gk_ctx *ctx, const gk__slot *x, int axis, int keepdim, int *all, int *ax, int *nd, int64_t *shape, const char *where) {
    int d, k = 0;
    *all = axis == GK_AXIS_ALL;
    *ax = -1;
    if (!*all) {
        if (!gk__norm_axis(axis, x->ndim, ax)) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: axis %d out of range for %d dims", where, axis, x->ndim);
        if (*ax < 0) *all = 1;
    }
    for (d = 0; d < x->ndim; d++) {
        int red = *all || d == *ax;
        if (!red) shape[k++] = x->shape[d];
        else if (keepdim) shape[k++] = 1;
    }
    *nd = k;
    return GK_OK;
}
static gk_status gk__reduce(gk_ctx *ctx, gk_tensor out, gk_tensor x, int op, int axis, int keepdim, const char *where) {
    static const char *const names[2] = { "out", "x" };
    gk_tensor ts[2];
    gk__opnds ops;
    gk__red p;
    gk__slot so, sx, sr;
    gk__slot *pp[2];
    int64_t shape[GK_MAX_DIMS];
    int all = 0, ax = -1, nd = 0, d, k = 0, j = 0;
    gk_status st;
    ts[0] = out; ts[1] = x;
    if (op < 0 || op >= GK_REDUCE_COUNT) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: unknown op %d", where, op);
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__operands(ctx, &ops, ts, names, 2, where);
    if (st == GK_OK) st = gk__need_fdt(ctx, ops.s[1], "x", where);
    if (st == GK_OK) {
        gk_dtype want = (op == GK_REDUCE_ARGMAX || op == GK_REDUCE_ARGMIN) ? GK_I64 : ops.s[1]->dtype;
        if (ops.s[0]->dtype != want) st = gk__err(ctx, GK_ERR_DTYPE, "%s: out is %s but must be %s", where, gk_dtype_name(ops.s[0]->dtype), gk_dtype_name(want));
    }
    if (st == GK_OK) st = gk__red_shape(ctx, ops.s[1], axis, keepdim, &all, &ax, &nd, shape, where);
    if (st == GK_OK) st = gk__shape_eq(ctx, ops.s[0], nd, shape, "out", where);
    if (st == GK_OK) {
        const gk__slot *xs = ops.s[1], *os = ops.s[0];
        memset(&so, 0, sizeof so); memset(&sx, 0, sizeof sx); memset(&sr, 0, sizeof sr);
        so = *os; sx = *xs; sr = *xs;
        so.ndim = sx.ndim = sr.ndim = 0;
        for (d = 0; d < xs->ndim; d++) {
            int red = all || d == ax;
            if (red) { sr.shape[j] = xs->shape[d]; sr.strides[j] = xs->strides[d]; j++; if (keepdim) k++; }
            else {
                sx.shape[sx.ndim] = xs->shape[d]; sx.strides[sx.ndim] = xs->strides[d]; sx.ndim++;
                so.shape[so.ndim] = os->shape[k]; so.strides[so.ndim] = os->strides[k]; so.ndim++;
                k++;
            }
        }
        sr.ndim = j;
        p.R = 1;
        for (d = 0; d < j; d++) p.R *= sr.shape[d];
        pp[0] = &so; pp[1] = &sx;
        st = gk__nd_build(ctx, &p.on, pp, 2, names, where);
        pp[0] = &sr;
        if (st == GK_OK) st = gk__nd_build(ctx, &p.rn, pp, 1, names + 1, where);
        if (st == GK_OK && p.R == 0 && gk__numel(os) > 0 && op >= GK_REDUCE_MAX && op <= GK_REDUCE_ARGMIN)
            st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: max / min / argmax / argmin of 0 elements is undefined", where);
        p.op = op;
        p.dt = xs->dtype;
    }
    if (st == GK_OK && gk__numel(ops.s[0]) == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__operands_use(ctx, &ops, where);
    if (st == GK_OK) {
        gk__cu_ptr po = gk__slot_addr(ops.s[0]), px = gk__slot_addr(ops.s[1]);
        p.o = (char *)(uintptr_t)po;
        p.x = (const char *)(uintptr_t)px;
        if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__red_cpu, &p, sizeof p, where);
        else {
            int64_t M = p.on.n, R = p.R, S = 1, chunk = R;
            int contig = p.rn.ndim == 1 && p.rn.st[0][0] == 1, sms = ctx->info.sm_count > 0 ? ctx->info.sm_count : 1;
            if (M >= 2048 && (!contig || R < 64)) {
                void *args[6] = { &p.on, &p.rn, &p.R, &p.op, &po, &px };
                unsigned grid[3] = { 1, 1, 1 }, block[3] = { 32, 8, 1 };
                grid[0] = (unsigned)gk__grid_cap(ctx, (M + 31) / 32, 64);
                st = gk__launch_cfg(ctx, GK__MOD_REDUCE, gk__k_red_cols[p.dt], grid, block, 0, args, where);
            } else {
                unsigned grid[3] = { 1, 1, 1 }, block[3] = { 256, 1, 1 };
                gk__cu_ptr ws = 0;
                if (M < 2 * sms && R >= 32768) {
                    S = (4 * sms + M - 1) / M;
                    if (S > (R + 4095) / 4096) S = (R + 4095) / 4096;
                    chunk = ((R + S - 1) / S + 15) / 16 * 16;
                    S = (R + chunk - 1) / chunk;
                }
                if (R >= 4096) block[0] = 512;
                if (S > 1) st = gk__workspace(ctx, (size_t)(M * S) * sizeof(gk__rpart), &ws, where);
                if (st == GK_OK) {
                    void *args[9] = { &p.on, &p.rn, &p.R, &p.op, &S, &chunk, &po, &px, &ws };
                    grid[0] = (unsigned)gk__grid_cap(ctx, M * S, 16);
                    st = gk__launch_cfg(ctx, GK__MOD_REDUCE, gk__k_red_rows[p.dt], grid, block, 0, args, where);
                    if (st == GK_OK && S > 1) {
                        void *fargs[6] = { &p.on, &p.R, &p.op, &S, &po, &ws };
                        st = gk__launch(ctx, GK__MOD_REDUCE, gk__k_red_fin[p.dt], M, fargs, where);
                    }
                }
                if (S > 1 && ws) gk__unuse(ctx, ctx->ws);
            }
        }
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_reduce(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_reduce_op op, int axis, int keepdim) {
    return gk__reduce(ctx, out, x, (int)op, axis, keepdim, "gk_reduce");
}
GKDEF gk_status gk_reduce_new(gk_ctx *ctx, gk_tensor x, gk_reduce_op op, int axis, int keepdim, gk_tensor *out) {
    gk__slot *s;
    int64_t shape[GK_MAX_DIMS];
    int all, ax, nd = 0;
    uint32_t idx;
    gk_tensor t;
    gk_status st;
    if (out) out->id = 0;
    if ((int)op < 0 || op >= GK_REDUCE_COUNT) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_reduce_new: unknown op %d", (int)op);
    GK__ENTER(ctx, "gk_reduce_new");
    st = out ? gk__lookup(ctx, x, &s, "gk_reduce_new", "x") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_reduce_new: out is NULL");
    if (st == GK_OK) st = gk__red_shape(ctx, s, axis, keepdim, &all, &ax, &nd, shape, "gk_reduce_new");
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK)
        st = gk__tensor_new(ctx, (op == GK_REDUCE_ARGMAX || op == GK_REDUCE_ARGMIN) ? GK_I64 : s->dtype, nd, shape, &idx, "gk_reduce_new");
    if (st == GK_OK) t = gk__handle(ctx, idx);
    gk__unlock(&ctx->mu);
    if (st != GK_OK) return st;
    return gk__finish_new(ctx, gk__reduce(ctx, t, x, (int)op, axis, keepdim, "gk_reduce_new"), t, out);
}

/* ---- softmax / log_softmax over the last dim, cumsum along a dim ---- */
typedef struct gk__rowop {
    gk__nd on;                   /* the rows (lines): 0 out, 1 x */
    int64_t n, xs, os;           /* elements per row, their strides */
    gk_dtype dt;
    int kind;                    /* 0 softmax, 1 log_softmax, 2 cumsum */
    char *o;
    const char *x;
} gk__rowop;
static void gk__rowop_cpu(const void *vp) {
    const gk__rowop *p = (const gk__rowop *)vp;
    int64_t es = (int64_t)gk__dtype_sizes[p->dt], n = p->n, j;
    int f64 = p->dt == GK_F64, fl = gk_dtype_is_float(p->dt);
    const gk__nd *on = &p->on;
    GK__ND_FOR(on, {
        const char *xr = p->x + o1 * es;
        char *yr = p->o + o0 * es;
        if (p->kind == 2) {
            double acc = 0;
            int64_t iacc = 0;
            for (j = 0; j < n; j++) {
                const char *e = xr + j * p->xs * es;
                char *y = yr + j * p->os * es;
                if (!fl) { iacc = (int64_t)((uint64_t)iacc + (uint64_t)gk__ldi(p->dt, e)); gk__sti(p->dt, y, iacc); }
                else if (f64) { acc += gk__ldd(p->dt, e); memcpy(y, &acc, 8); }
                else { acc += gk__ldf(p->dt, e); gk__stf(p->dt, y, (float)acc); }
            }
        } else {
            /* the kernel's semantics: m = max over non-NaN, exp(0) = 1 for entries equal to m */
            double m = -INFINITY, s = 0, ls, v;
            int nan = 0;
            for (j = 0; j < n; j++) {
                double x = gk__ldd(p->dt, xr + j * p->xs * es);
                if (x != x) nan = 1;
                else if (x > m) m = x;
            }
            for (j = 0; j < n && !nan; j++) {
                double x = gk__ldd(p->dt, xr + j * p->xs * es);
                if (x == m) s += 1;
                else if (x != -INFINITY) s += f64 ? exp(x - m) : (double)expf((float)(x - m));
            }
            ls = log(s);
            for (j = 0; j < n; j++) {
                double x = gk__ldd(p->dt, xr + j * p->xs * es);
                char *y = yr + j * p->os * es;
                if (nan) v = NAN;
                else if (m == -INFINITY) v = p->kind ? -INFINITY : 0;
                else if (p->kind) v = (x == m ? 0 : x - m) - ls;
                else v = (x == m ? 1 : f64 ? exp(x - m) : (double)expf((float)(x - m))) / s;
                if (f64) memcpy(y, &v, 8);
                else gk__stf(p->dt, y, (float)v);
            }
        }
    });
}
static const char *const gk__k_softmax[2][GK_DTYPE_COUNT] = { GK__DTNAMES("gk_softmax_", ""), GK__DTNAMES("gk_log_softmax_", "") };
static const char *const gk__k_cumsum[2][GK_DTYPE_COUNT] = { GK__DTNAMES("gk_cumsum_", ""), GK__DTNAMES("gk_cumsum_", "_b") };

static gk_status gk__rowop_run(gk_ctx *ctx, gk_tensor out, gk_tensor x, int kind, int axis, const char *where) {
    static const char *const names[2] = { "out", "x" };
    gk_tensor ts[2];
    gk__opnds ops;
    gk__rowop p;
    gk__slot so, sx;
    gk__slot *pp[2];
    gk_status st;
    int ax = -1;
    ts[0] = out; ts[1] = x;
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__operands(ctx, &ops, ts, names, 2, where);
    if (st == GK_OK) {
        gk_dtype dt = ops.s[1]->dtype;
        if (kind == 2 && (dt == GK_I32 || dt == GK_I64)) st = GK_OK;
        else st = gk__need_fdt(ctx, ops.s[1], "x", where);
        if (st == GK_OK && ops.s[0]->dtype != dt)
            st = gk__err(ctx, GK_ERR_DTYPE, "%s: out is %s but x is %s", where, gk_dtype_name(ops.s[0]->dtype), gk_dtype_name(dt));
    }
    if (st == GK_OK) st = gk__shape_eq(ctx, ops.s[0], ops.s[1]->ndim, ops.s[1]->shape, "out", where);
    if (st == GK_OK) {
        const gk__slot *xs = ops.s[1];
        if (kind == 2) {
            if (!gk__norm_axis(axis, xs->ndim, &ax)) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: axis %d out of range for %d dims", where, axis, xs->ndim);
        } else ax = xs->ndim - 1;
    }
    if (st == GK_OK) {
        if (ax < 0) { /* 0-d: one row of one element */
            so = *ops.s[0]; sx = *ops.s[1];
            p.n = 1; p.xs = 1; p.os = 1;
        } else {
            so = gk__slot_drop(ops.s[0], ax);
            sx = gk__slot_drop(ops.s[1], ax);
            p.n = ops.s[1]->shape[ax]; p.xs = ops.s[1]->strides[ax]; p.os = ops.s[0]->strides[ax];
        }
        pp[0] = &so; pp[1] = &sx;
        st = gk__nd_build(ctx, &p.on, pp, 2, names, where);
        p.dt = ops.s[1]->dtype;
        p.kind = kind;
    }
    if (st == GK_OK && (p.on.n == 0 || p.n == 0)) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__operands_use(ctx, &ops, where);
    if (st == GK_OK) {
        gk__cu_ptr po = gk__slot_addr(ops.s[0]), px = gk__slot_addr(ops.s[1]);
        void *args[6];
        p.o = (char *)(uintptr_t)po;
        p.x = (const char *)(uintptr_t)px;
        args[0] = &p.on; args[1] = &p.n; args[2] = &p.xs; args[3] = &p.os; args[4] = &po; args[5] = &px;
        if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__rowop_cpu, &p, sizeof p, where);
        else if (kind == 2 && p.n < 256) st = gk__launch(ctx, GK__MOD_REDUCE, gk__k_cumsum[0][p.dt], p.on.n, args, where);
        else if (kind == 2) {
            unsigned grid[3] = { 1, 1, 1 }, block[3] = { 256, 1, 1 };
            grid[0] = (unsigned)gk__grid_cap(ctx, p.on.n, 32);
            st = gk__launch_cfg(ctx, GK__MOD_REDUCE, gk__k_cumsum[1][p.dt], grid, block, 0, args, where);
        } else {
            /* one block per row; few long rows are split into parts (stats per part in the
               workspace, then each part merges its row's stats in order and writes) */
            unsigned grid[3] = { 1, 1, 1 }, block[3] = { 256, 1, 1 };
            int64_t M = p.on.n, S = 1, chunk = p.n, sms = ctx->info.sm_count > 0 ? ctx->info.sm_count : 1;
            int phase = 0;
            gk__cu_ptr ws = 0;
            void *sargs[10];
            if (M < sms && p.n >= 16384) {
                S = (2 * sms + M - 1) / M;
                if (S > (p.n + 8191) / 8192) S = (p.n + 8191) / 8192;
                chunk = ((p.n + S - 1) / S + 15) / 16 * 16;
                S = (p.n + chunk - 1) / chunk;
            }
            block[0] = chunk >= 16384 ? 1024 : chunk >= 2048 ? 512 : chunk >= 512 ? 256 : 128;
            grid[0] = (unsigned)gk__grid_cap(ctx, M * S, 32);
            if (S > 1) st = gk__workspace(ctx, (size_t)(M * S) * 16, &ws, where);
            memcpy(sargs, args, sizeof args);
            sargs[6] = &S; sargs[7] = &chunk; sargs[8] = &phase; sargs[9] = &ws;
            if (st == GK_OK) st = gk__launch_cfg(ctx, GK__MOD_REDUCE, gk__k_softmax[kind][p.dt], grid, block, 0, sargs, where);
            if (st == GK_OK && S > 1) {
                phase = 1; /* read at launch: the argument buffer is copied then */
                st = gk__launch_cfg(ctx, GK__MOD_REDUCE, gk__k_softmax[kind][p.dt], grid, block, 0, sargs, where);
            }
            if (ws) gk__unuse(ctx, ctx->ws);
        }
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
static gk_status gk__rowop_new(gk_ctx *ctx, gk_tensor x, int kind, int axis, gk_tensor *out, const char *where) {
    gk_tensor t;
    gk__slot *s;
    gk_status st;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", where);
    GK__ENTER(ctx, where);
    st = gk__lookup(ctx, x, &s, where, "x");
    gk__unlock(&ctx->mu);
    if (st != GK_OK) return st;
    GK__TRY(gk__new_like(ctx, x, s->dtype, &t, where));
    return gk__finish_new(ctx, gk__rowop_run(ctx, t, x, kind, axis, where), t, out);
}
GKDEF gk_status gk_softmax(gk_ctx *ctx, gk_tensor out, gk_tensor x) { return gk__rowop_run(ctx, out, x, 0, -1, "gk_softmax"); }
GKDEF gk_status gk_log_softmax(gk_ctx *ctx, gk_tensor out, gk_tensor x) { return gk__rowop_run(ctx, out, x, 1, -1, "gk_log_softmax"); }
GKDEF gk_status gk_cumsum(gk_ctx *ctx, gk_tensor out, gk_tensor x, int axis) { return gk__rowop_run(ctx, out, x, 2, axis, "gk_cumsum"); }
GKDEF gk_status gk_softmax_new(gk_ctx *ctx, gk_tensor x, gk_tensor *out) { return gk__rowop_new(ctx, x, 0, -1, out, "gk_softmax_new"); }
GKDEF gk_status gk_log_softmax_new(gk_ctx *ctx, gk_tensor x, gk_tensor *out) { return gk__rowop_new(ctx, x, 1, -1, out, "gk_log_softmax_new"); }
GKDEF gk_status gk_cumsum_new(gk_ctx *ctx, gk_tensor x, int axis, gk_tensor *out) { return gk__rowop_new(ctx, x, 2, axis, out, "gk_cumsum_new"); }

/* ---- top-k and sampling: 64-bit keys (value bits, ~index), see kernels/sample.cu ---- */
static uint64_t gk__comp_key(float f, int64_t i) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if (f != f) u = 0xFFFFFFFFu;
    else u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    return ((uint64_t)u << 32) | (uint64_t)(~(uint32_t)i);
}
static int gk__cmp_desc_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x > y ? -1 : x < y;
}
typedef struct gk__topk_p {
    gk__nd on;                   /* rows: 0 values, 1 indices, 2 x */
    int64_t n, k, xs, vs, is;
    gk_dtype dt;
    char *v, *ix;
    const char *x;
} gk__topk_p;
static void gk__topk_cpu(const void *vp) {
    const gk__topk_p *p = (const gk__topk_p *)vp;
    int64_t es = (int64_t)gk__dtype_sizes[p->dt], j;
    uint64_t *keys = GK__CAST(uint64_t *, GPUKIT_MALLOC((size_t)p->n * 8));
    const gk__nd *on = &p->on;
    if (!keys) return;
    GK__ND_FOR(on, {
        const char *xr = p->x + o2 * es;
        for (j = 0; j < p->n; j++) keys[j] = gk__comp_key(gk__ldf(p->dt, xr + j * p->xs * es), j);
        qsort(keys, (size_t)p->n, 8, gk__cmp_desc_u64);
        for (j = 0; j < p->k; j++) {
            int64_t i = (int64_t)(uint32_t)~(uint32_t)keys[j];
            memcpy(p->v + (o0 + j * p->vs) * es, xr + i * p->xs * es, (size_t)es);
            memcpy(p->ix + (o1 + j * p->is) * 8, &i, 8);
        }
    });
    GPUKIT_FREE(keys);
}
static const char *const gk__k_topk[GK_DTYPE_COUNT] = GK__DTNAMES("gk_topk_", "");
#define GK__SMEM_SORT 4096
static int64_t gk__pow2_at_least(int64_t k) {
    int64_t p = 1;
    while (p < k) p <<= 1;
    return p;
}

GKDEF gk_status gk_topk(gk_ctx *ctx, gk_tensor values, gk_tensor indices, gk_tensor x, int64_t k) {
    static const char *const names[3] = { "values", "indices", "x" };
    const char *where = "gk_topk";
    gk_tensor ts[3];
    gk__opnds ops;
    gk__topk_p p;
    gk__slot fs[3];
    gk__slot *pp[3];
    int64_t shape[GK_MAX_DIMS];
    gk_status st;
    int i, nd = 0;
    ts[0] = values; ts[1] = indices; ts[2] = x;
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__operands(ctx, &ops, ts, names, 3, where);
    if (st == GK_OK) {
        gk_dtype dt = ops.s[2]->dtype;
        nd = ops.s[2]->ndim;
        if (dt != GK_F32 && dt != GK_F16 && dt != GK_BF16) st = gk__err(ctx, GK_ERR_DTYPE, "%s: x is %s; top-k takes f32, f16 or bf16", where, gk_dtype_name(dt));
        else if (ops.s[0]->dtype != dt) st = gk__err(ctx, GK_ERR_DTYPE, "%s: values is %s but x is %s", where, gk_dtype_name(ops.s[0]->dtype), gk_dtype_name(dt));
        else if (ops.s[1]->dtype != GK_I64) st = gk__err(ctx, GK_ERR_DTYPE, "%s: indices is %s but must be i64", where, gk_dtype_name(ops.s[1]->dtype));
        else if (nd < 1) st = gk__err(ctx, GK_ERR_SHAPE, "%s: x is 0-d; top-k needs a last dim", where);
        else if (ops.s[2]->shape[nd - 1] >= ((int64_t)1 << 31)) st = gk__err(ctx, GK_ERR_LIMIT, "%s: the last dim (%lld) must be below 2^31", where, (long long)ops.s[2]->shape[nd - 1]);
        else if (k < 0 || k > ops.s[2]->shape[nd - 1])
            st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: k = %lld outside 0..%lld (the last dim)", where, (long long)k, (long long)ops.s[2]->shape[nd - 1]);
    }
    if (st == GK_OK) {
        for (i = 0; i < nd; i++) shape[i] = ops.s[2]->shape[i];
        shape[nd - 1] = k;
        st = gk__shape_eq(ctx, ops.s[0], nd, shape, "values", where);
        if (st == GK_OK) st = gk__shape_eq(ctx, ops.s[1], nd, shape, "indices", where);
    }
    if (st == GK_OK) {
        for (i = 0; i < 3; i++) { fs[i] = gk__slot_drop(ops.s[i], nd - 1); pp[i] = &fs[i]; }
        st = gk__nd_build(ctx, &p.on, pp, 3, names, where);
        p.n = ops.s[2]->shape[nd - 1]; p.k = k;
        p.xs = ops.s[2]->strides[nd - 1]; p.vs = ops.s[0]->strides[nd - 1]; p.is = ops.s[1]->strides[nd - 1];
        p.dt = ops.s[2]->dtype;
    }
    if (st == GK_OK && (p.on.n == 0 || k == 0)) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__operands_use(ctx, &ops, where);
    if (st == GK_OK) {
        gk__cu_ptr pv = gk__slot_addr(ops.s[0]), pi = gk__slot_addr(ops.s[1]), px = gk__slot_addr(ops.s[2]);
        p.v = (char *)(uintptr_t)pv; p.ix = (char *)(uintptr_t)pi; p.x = (const char *)(uintptr_t)px;
        if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__topk_cpu, &p, sizeof p, where);
        else {
            int n = (int)p.n, kk = (int)k, P = (int)gk__pow2_at_least(k);
            unsigned grid[3] = { 1, 1, 1 }, block[3] = { 1024, 1, 1 };
            gk__cu_ptr ws = 0;
            grid[0] = (unsigned)gk__grid_cap(ctx, p.on.n, 2);
            if (n <= 2048) block[0] = n <= 256 ? 128 : 256;
            if (P > GK__SMEM_SORT) st = gk__workspace(ctx, (size_t)grid[0] * (size_t)P * 8, &ws, where);
            if (st == GK_OK) {
                void *args[12] = { &p.on, &n, &p.xs, &p.vs, &p.is, &kk, &P, &pv, &pi, &px, &ws };
                st = gk__launch_cfg(ctx, GK__MOD_SAMPLE, gk__k_topk[p.dt], grid, block, P <= GK__SMEM_SORT ? (unsigned)P * 8 : 0, args, where);
            }
            if (ws) gk__unuse(ctx, ctx->ws);
        }
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_topk_new(gk_ctx *ctx, gk_tensor x, int64_t k, gk_tensor *values, gk_tensor *indices) {
    gk__slot *s;
    int64_t shape[GK_MAX_DIMS];
    uint32_t i1 = 0, i2 = 0;
    int nd = 0, d, made = 0;
    gk_tensor v, ix;
    gk_status st;
    if (values) values->id = 0;
    if (indices) indices->id = 0;
    GK__ENTER(ctx, "gk_topk_new");
    st = values && indices ? gk__lookup(ctx, x, &s, "gk_topk_new", "x") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_topk_new: values or indices is NULL");
    if (st == GK_OK && s->ndim < 1) st = gk__err(ctx, GK_ERR_SHAPE, "gk_topk_new: x is 0-d; top-k needs a last dim");
    if (st == GK_OK && (k < 0 || k > s->shape[s->ndim - 1]))
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_topk_new: k = %lld outside 0..%lld (the last dim)", (long long)k, (long long)s->shape[s->ndim - 1]);
    if (st == GK_OK) {
        nd = s->ndim;
        for (d = 0; d < nd; d++) shape[d] = s->shape[d];
        shape[nd - 1] = k;
        st = gk__bind(ctx);
    }
    if (st == GK_OK) st = gk__tensor_new(ctx, s->dtype, nd, shape, &i1, "gk_topk_new");
    if (st == GK_OK) { made = 1; st = gk__tensor_new(ctx, GK_I64, nd, shape, &i2, "gk_topk_new"); }
    if (st == GK_OK) made = 2;
    if (made >= 1) v = gk__handle(ctx, i1);
    if (made == 2) ix = gk__handle(ctx, i2);
    gk__unlock(&ctx->mu);
    if (made == 1) gk_tensor_free(ctx, v);
    if (st != GK_OK) return st;
    st = gk_topk(ctx, v, ix, x, k);
    if (st != GK_OK) {
        char save[GK__ERRBUF];
        memcpy(save, ctx->err, sizeof save);
        gk_tensor_free(ctx, v);
        gk_tensor_free(ctx, ix);
        memcpy(ctx->err, save, sizeof save);
        return st;
    }
    *values = v;
    *indices = ix;
    return GK_OK;
}

GKDEF void gk_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]) {
    uint32_t c0 = counter[0], c1 = counter[1], c2 = counter[2], c3 = counter[3], k0 = key[0], k1 = key[1];
    int r;
    for (r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
        if (r) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
        c0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
        c1 = (uint32_t)p1;
        c2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c3 = (uint32_t)p0;
    }
    out[0] = c0; out[1] = c1; out[2] = c2; out[3] = c3;
}
static uint64_t gk__mulhi64(uint64_t a, uint64_t b) {
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* sampling parameters: the layout of gk_sp in kernels/sample.cu */
typedef struct gk__sp {
    double log_min_p, top_p;
    int64_t lrs, lcs, prs, pcs, tst;
    float temperature, rep, presence, freq;
    int top_k, n_prev, V, B;
    uint32_t key0, key1, step0, step1;
    int P, pad;
} gk__sp;
typedef struct gk__sample_p {
    gk__sp sp;
    gk_dtype dt;
    int32_t *tokens;
    const char *logits;
    const int32_t *prev;
} gk__sample_p;
/* log-weight and integer weight of a candidate (gk_sw in kernels/sample.cu) */
static double gk__sw(float x, float m, float temp, uint64_t *w) {
    double s;
    if (x == -INFINITY) { *w = 0; return -INFINITY; }
    s = x == m ? 0.0 : ((double)x - (double)m) / (double)temp;
    *w = (uint64_t)(exp(s) * 1099511627776.0);
    return s;
}
static void gk__sample_cpu(const void *vp) {
    const gk__sample_p *pp = (const gk__sample_p *)vp;
    const gk__sp *sp = &pp->sp;
    int V = sp->V, b, i, j;
    int64_t es = (int64_t)gk__dtype_sizes[pp->dt];
    float *xr = GK__CAST(float *, GPUKIT_MALLOC((size_t)V * 4));
    uint64_t *keys = GK__CAST(uint64_t *, GPUKIT_MALLOC((size_t)V * 8));
    for (b = 0; b < sp->B; b++) {
        float bv = -INFINITY, m;
        int bi = -1, topk, topp, n;
        uint64_t Z = 0, Z2 = 0, cum, w, r, run;
        double target = 0;
        uint32_t ctr[4], key[2], rnd[4];
        int32_t *tok = pp->tokens + (int64_t)b * sp->tst;
        if (!xr || !keys) { *tok = -1; continue; }
        for (i = 0; i < V; i++) {
            float v = gk__ldf(pp->dt, pp->logits + ((int64_t)b * sp->lrs + (int64_t)i * sp->lcs) * es);
            xr[i] = v != v ? -INFINITY : v;
        }
        if (sp->n_prev > 0 && ((sp->rep > 0.0f && sp->rep != 1.0f) || sp->presence != 0.0f || sp->freq != 0.0f)) {
            const int32_t *pr = pp->prev + (int64_t)b * sp->prs;
            for (j = 0; j < sp->n_prev; j++) {
                int t = pr[(int64_t)j * sp->pcs], c = 0, first = 1, q;
                float x;
                if (t < 0 || t >= V) continue;
                for (q = 0; q < sp->n_prev; q++)
                    if (pr[(int64_t)q * sp->pcs] == t) {
                        if (q < j) { first = 0; break; }
                        c++;
                    }
                if (!first) continue;
                x = xr[t];
                if (sp->rep > 0.0f && sp->rep != 1.0f) x = x > 0.0f ? x / sp->rep : x * sp->rep;
                if (sp->presence != 0.0f || sp->freq != 0.0f) {
                    float pen = (float)c * sp->freq;
                    pen = pen + sp->presence;
                    x = x - pen;
                }
                xr[t] = x != x ? -INFINITY : x;
            }
        }
        for (i = 0; i < V; i++)
            if (xr[i] > bv) { bv = xr[i]; bi = i; }
        if (bi < 0 || !(sp->temperature > 0.0f)) { *tok = bi; continue; }
        m = bv;
        topk = sp->top_k > 0 && sp->top_k < V;
        topp = sp->top_p < 1.0;
        n = topk ? sp->top_k : V;
        if (topk || topp) {
            for (i = 0; i < V; i++) keys[i] = gk__comp_key(xr[i], i);
            qsort(keys, (size_t)V, 8, gk__cmp_desc_u64);
        }
#define GK__CAND(j) ((topk || topp) ? (int)(uint32_t)~(uint32_t)keys[j] : (j))
        if (topp) {
            for (j = 0; j < n; j++) { gk__sw(xr[GK__CAND(j)], m, sp->temperature, &w); Z += w; }
            target = sp->top_p * (double)Z;
        }
        cum = 0;
        for (j = 0; j < n; j++) {
            double s = gk__sw(xr[GK__CAND(j)], m, sp->temperature, &w);
            if ((!topp || (double)cum < target) && s >= sp->log_min_p) Z2 += w;
            cum += w;
        }
        ctr[0] = (uint32_t)b; ctr[1] = sp->step0; ctr[2] = sp->step1; ctr[3] = 0;
        key[0] = sp->key0; key[1] = sp->key1;
        gk_philox4x32_10(ctr, key, rnd);
        r = gk__mulhi64(((uint64_t)rnd[0] << 32) | rnd[1], Z2);
        cum = 0; run = 0;
        *tok = -1;
        for (j = 0; j < n; j++) {
            double s = gk__sw(xr[GK__CAND(j)], m, sp->temperature, &w);
            if ((!topp || (double)cum < target) && s >= sp->log_min_p) {
                run += w;
                if (run > r) { *tok = GK__CAND(j); break; }
            }
            cum += w;
        }
#undef GK__CAND
    }
    GPUKIT_FREE(xr);
    GPUKIT_FREE(keys);
}
static const char *const gk__k_sample[GK_DTYPE_COUNT] = GK__DTNAMES("gk_sample_", "");

GKDEF gk_status gk_sample(gk_ctx *ctx, gk_tensor tokens, gk_tensor logits, gk_tensor prev, const gk_sample_desc *desc) {
    static const char *const names[3] = { "tokens", "logits", "prev" };
    const char *where = "gk_sample";
    gk_tensor ts[3];
    gk__opnds ops;
    gk__sample_p p;
    gk_sample_desc d;
    gk_status st;
    int hasprev = prev.id != 0;
    ts[0] = tokens; ts[1] = logits; ts[2] = prev;
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__operands(ctx, &ops, ts, names, hasprev ? 3 : 2, where);
    if (st == GK_OK) {
        const gk__slot *t = ops.s[0], *l = ops.s[1];
        if (l->dtype != GK_F32 && l->dtype != GK_F16 && l->dtype != GK_BF16)
            st = gk__err(ctx, GK_ERR_DTYPE, "%s: logits are %s; sampling takes f32, f16 or bf16", where, gk_dtype_name(l->dtype));
        else if (t->dtype != GK_I32) st = gk__err(ctx, GK_ERR_DTYPE, "%s: tokens is %s but must be i32", where, gk_dtype_name(t->dtype));
        else if (hasprev && ops.s[2]->dtype != GK_I32) st = gk__err(ctx, GK_ERR_DTYPE, "%s: prev is %s but must be i32", where, gk_dtype_name(ops.s[2]->dtype));
        else if (l->ndim != 2) st = gk__err(ctx, GK_ERR_SHAPE, "%s: logits must be [batch, vocab], got %d dims", where, l->ndim);
        else if (t->ndim != 1 || t->shape[0] != l->shape[0])
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: tokens must be [%lld] (one per logits row)", where, (long long)l->shape[0]);
        else if (hasprev && (ops.s[2]->ndim != 2 || ops.s[2]->shape[0] != l->shape[0]))
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: prev must be [%lld, n_prev]", where, (long long)l->shape[0]);
        else if (l->shape[0] > 0 && (l->shape[1] < 1 || l->shape[1] >= ((int64_t)1 << 31) || l->shape[0] >= ((int64_t)1 << 31)))
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: the vocabulary size (%lld) must be in 1..2^31-1", where, (long long)l->shape[1]);
        else if (hasprev && ops.s[2]->shape[1] >= ((int64_t)1 << 31)) st = gk__err(ctx, GK_ERR_SHAPE, "%s: too many previous tokens", where);
    }
    if (st == GK_OK) {
        if (d.temperature != d.temperature) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: temperature is NaN", where);
        else if (d.top_k < 0) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: top_k = %d is negative", where, d.top_k);
        else if (!(d.top_p >= 0.0f && d.top_p <= 1.0f)) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: top_p = %g outside (0, 1] (0: off)", where, (double)d.top_p);
        else if (!(d.min_p >= 0.0f && d.min_p <= 1.0f)) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: min_p = %g outside [0, 1]", where, (double)d.min_p);
        else if (!(d.repetition_penalty >= 0.0f) || d.repetition_penalty == INFINITY)
            st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: repetition_penalty = %g must be finite and > 0 (0: off)", where, (double)d.repetition_penalty);
        else if (!(fabs((double)d.presence_penalty) < INFINITY) || !(fabs((double)d.frequency_penalty) < INFINITY))
            st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: presence / frequency penalties must be finite", where);
    }
    if (st == GK_OK) {
        const gk__slot *l = ops.s[1];
        gk__sp *sp = &p.sp;
        sp->log_min_p = d.min_p > 0.0f ? log((double)d.min_p) : -INFINITY;
        sp->top_p = d.top_p > 0.0f && d.top_p < 1.0f ? (double)d.top_p : 1.0;
        sp->lrs = l->strides[0]; sp->lcs = l->strides[1];
        sp->prs = hasprev ? ops.s[2]->strides[0] : 0; sp->pcs = hasprev ? ops.s[2]->strides[1] : 0;
        sp->tst = ops.s[0]->strides[0];
        sp->temperature = d.temperature; sp->rep = d.repetition_penalty; sp->presence = d.presence_penalty; sp->freq = d.frequency_penalty;
        sp->top_k = d.top_k; sp->n_prev = hasprev ? (int)ops.s[2]->shape[1] : 0;
        sp->V = (int)l->shape[1]; sp->B = (int)l->shape[0];
        sp->key0 = (uint32_t)d.seed; sp->key1 = (uint32_t)(d.seed >> 32);
        sp->step0 = (uint32_t)d.step; sp->step1 = (uint32_t)(d.step >> 32);
        if (sp->temperature > 0 && ((sp->top_k > 0 && sp->top_k < sp->V) || sp->top_p < 1.0))
            sp->P = (int)gk__pow2_at_least(sp->top_k > 0 && sp->top_k < sp->V ? sp->top_k : sp->V);
        p.dt = l->dtype;
    }
    if (st == GK_OK && p.sp.B == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__operands_use(ctx, &ops, where);
    if (st == GK_OK) {
        gk__cu_ptr pt = gk__slot_addr(ops.s[0]), pl = gk__slot_addr(ops.s[1]), ppv = hasprev ? gk__slot_addr(ops.s[2]) : 0;
        p.tokens = (int32_t *)(uintptr_t)pt; p.logits = (const char *)(uintptr_t)pl; p.prev = (const int32_t *)(uintptr_t)ppv;
        if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__sample_cpu, &p, sizeof p, where);
        else {
            unsigned grid[3] = { 1, 1, 1 }, block[3] = { 1024, 1, 1 };
            gk__cu_ptr ws = 0, pbuf;
            size_t xbytes;
            grid[0] = (unsigned)gk__grid_cap(ctx, p.sp.B, 2);
            xbytes = ((size_t)grid[0] * (size_t)p.sp.V * 4 + 255) / 256 * 256;
            st = gk__workspace(ctx, xbytes + (p.sp.P > GK__SMEM_SORT ? (size_t)grid[0] * (size_t)p.sp.P * 8 : 0), &ws, where);
            if (st == GK_OK) {
                void *args[6] = { &p.sp, &pt, &pl, &ppv, &ws, &pbuf };
                pbuf = ws + xbytes;
                st = gk__launch_cfg(ctx, GK__MOD_SAMPLE, gk__k_sample[p.dt], grid, block,
                                    (unsigned)(p.sp.P < GK__SMEM_SORT ? p.sp.P : GK__SMEM_SORT) * 8, args, where);
            }
            if (ws) gk__unuse(ctx, ctx->ws);
        }
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}

/* end of >>ops_math */

/* ------------------------------------------------------------------------ */
/* >>ops_nn: implementation of the >>api_ops_nn group (below this line) */

/* end of >>ops_nn */

/* ------------------------------------------------------------------------ */
/* >>ops_signal: implementation of the >>api_ops_signal group (below this line) */

/* end of >>ops_signal */

/* ------------------------------------------------------------------------ */
/* context teardown */
GKDEF void gk_ctx_destroy(gk_ctx *ctx) {
    uint32_t i;
    gk__block *b, *nb;
    if (!ctx) return;
    gk__lock(&ctx->mu);
    if (ctx->backend == GK_BACKEND_CUDA && gk__bind(ctx) == GK_OK) {
        gk_stream *s;
        if (ctx->default_stream.capture) { gk__cu_graph g = NULL; ctx->cu.StreamEndCapture(ctx->default_stream.cu, &g); if (g) ctx->cu.GraphDestroy(g); }
        for (s = ctx->streams; s; s = s->next)
            if (s->capture) { gk__cu_graph g = NULL; ctx->cu.StreamEndCapture(s->cu, &g); if (g) ctx->cu.GraphDestroy(g); }
        gk__sync_locked(ctx, "gk_ctx_destroy");
    }
    gk__capture_free(ctx, ctx->default_stream.capture);
    ctx->default_stream.capture = NULL;
    while (ctx->graphs) { gk_graph *g = ctx->graphs; ctx->graphs = g->next; gk__graph_free(ctx, g); }
    while (ctx->modules) { gk_module *m = ctx->modules; ctx->modules = m->next; gk__module_free(ctx, m); }
    for (i = 0; i < GK__MOD_COUNT; i++)
        if (ctx->lib[i].mod && ctx->backend == GK_BACKEND_CUDA) ctx->cu.ModuleUnload(ctx->lib[i].mod);
    while (ctx->events) {
        gk_event *e = ctx->events;
        ctx->events = e->next;
        if (ctx->backend == GK_BACKEND_CUDA) ctx->cu.EventDestroy(e->cu);
        GPUKIT_FREE(e);
    }
    while (ctx->streams) {
        gk_stream *s = ctx->streams;
        ctx->streams = s->next;
        gk__capture_free(ctx, s->capture);
        if (ctx->backend == GK_BACKEND_CUDA) ctx->cu.StreamDestroy(s->cu);
        GPUKIT_FREE(s);
    }
    /* every block, whatever its state */
    for (b = ctx->pool.live_head; b; b = nb) { nb = b->next; gk__dev_free(ctx, b->ptr); GPUKIT_FREE(b); }
    for (b = ctx->pool.cache_head; b; b = nb) { nb = b->next; gk__dev_free(ctx, b->ptr); GPUKIT_FREE(b); }
    for (b = ctx->pool.evict_head; b; b = nb) { nb = b->next; GPUKIT_FREE(b->host); GPUKIT_FREE(b); }
    for (i = 0; i < ctx->npages; i++) GPUKIT_FREE(ctx->pages[i]);
    GPUKIT_FREE(ctx->pages);
    if (ctx->backend == GK_BACKEND_CUDA && ctx->default_stream.cu) ctx->cu.StreamDestroy(ctx->default_stream.cu);
    GPUKIT_FREE(ctx->cache_dir);
    GPUKIT_FREE(ctx->jit_log);
    gk__unload_libs(ctx);
    gk__unlock(&ctx->mu);
    gk__mutex_destroy(&ctx->mu);
    GPUKIT_FREE(ctx);
}

#endif /* GPUKIT_IMPLEMENTATION_DONE */
#endif /* GPUKIT_IMPLEMENTATION */

/*
------------------------------------------------------------------------------
This software is available under 2 licenses -- choose whichever you prefer.
------------------------------------------------------------------------------
ALTERNATIVE A - MIT License
Copyright (c) 2026 the gpukit authors
Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do
so, subject to the following conditions:
The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
ALTERNATIVE B - Public Domain (www.unlicense.org)
This is free and unencumbered software released into the public domain.
Anyone is free to copy, modify, publish, use, compile, sell, or distribute this
software, either in source code form or as a compiled binary, for any purpose,
commercial or non-commercial, and by any means.
In jurisdictions that recognize copyright laws, the author or authors of this
software dedicate any and all copyright interest in the software to the public
domain. We make this dedication for the benefit of the public at large and to
the detriment of our heirs and successors. We intend this dedication to be an
overt act of relinquishment in perpetuity of all present and future rights to
this software under copyright law.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN
ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION
WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
------------------------------------------------------------------------------
*/
