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

   ENVIRONMENT (read by gk_ctx_create; a context keeps what it read)
      GPUKIT_CUDA_LIB, GPUKIT_NVRTC_LIB, GPUKIT_CUBLASLT_LIB   library paths
                             (one that does not load is a warning naming the
                             path and the loader's reason)
      GPUKIT_CACHE_DIR       kernel cache folder (default ~/.cache/gpukit)
      GPUKIT_BACKEND         "cpu", "cuda" or "auto": overrides desc.backend
                             AUTO; any other value fails gk_ctx_create
      GPUKIT_PDL             "0": no programmatic dependent launch (sm_90+):
                             every kernel waits for the one before it to end
      GPUKIT_GEMM_WGMMA, GPUKIT_ATTN_WGMMA   "0": no Hopper wgmma GEMM / attention

   THREADS
   - A context may be shared by any number of threads. Every call on a
     context holds the context's lock while it runs, so the calls on one
     context run one at a time (for CPU-backend parallelism use a context a
     thread). Waits release it: gk_sync, gk_stream_sync, gk_event_sync, the
     synchronous host copies and the dispatch controller's in-flight bound
     (gk_stream_set_max_inflight) wait with the lock released, so one
     thread's wait never stalls another thread's launches. gk_ctx_create may run on many threads at once; gk_ctx_destroy
     may run once every other call on that context has returned, on every
     thread.
   - Each thread has its own, on each context: its current stream
     (gk_set_stream; the ops a thread issues run on it; a thread starts on
     the default stream, and gk_stream_destroy puts the threads on that
     stream back on the default one), its error text (gk_last_error(ctx) is
     the calling thread's last error on ctx, "" when it has none, never
     another thread's; it stays until that thread's next error on ctx; a
     thread keeps the texts of the 4 contexts it failed on most recently)
     and its NVRTC log (gk_jit_log). A graph capture on a stream records the
     ops of the threads whose current stream it is: a thread that captures
     uses a stream of its own.
   - Tensors, streams, events, graphs, modules and kernels belong to the
     context: any of its threads may use or free them. Order the threads'
     work yourself (a tensor written by one thread and read by another:
     events between their streams, as on one thread, and your own
     synchronisation saying the write was issued). A handle another thread
     freed fails with GK_ERR_INVALID_HANDLE, never crashes. The pool and its
     quota are shared: threads may evict each other's idle tensors (restored
     on use, so a gk_tensor_ptr address holds only while the tensor is
     pinned).
   - Callbacks (gk_ctx_desc.log, CPU kernel fallbacks) run on the calling
     thread while it holds the context's lock: they must not call gpukit on
     that context. Do not change the environment (setenv) while another
     thread creates a context.
   - gpukit_llm.h: a gk_tokenizer is read-only once loaded (no scratch
     inside): encode, decode and the id / token lookups may run on many
     threads at once; free it after the last. A gk_tok_stream is one
     thread's. A gk_llm is used by one thread at a time (it holds the KV
     cache, graphs and scratch of its sequences); gk_llm objects on
     different threads each have a context of their own. Other objects
     (JSON documents, safetensors files): one thread at a time.

   gpukit DOES NOT: link or include anything from the CUDA Toolkit at build
   time, run on GPUs older than compute capability 8.0 (they fall back to the
   CPU backend), hide host synchronisation in ops, or use TF32 unless asked.

   TABLE OF CONTENTS (grep for the >>anchors; the source of each part is under src/)
   API
      >>api_errors            core/errors.h                      status codes, error text, logging
      >>api_dtypes            core/dtypes.h                      data types and host conversion
      >>api_context           core/context.h                     context, backends, device information
      >>api_pool              core/pool.h                        memory pool statistics and control
      >>api_tensor            core/tensor.h                      tensors, views, host transfers
      >>api_stream            core/stream.h                      streams, events, CUDA graphs
      >>api_jit               core/jit.h                         NVRTC JIT: modules, user kernels, kernel cache
      >>api_profile           services/profile.h                 the profiler: per-kernel statistics, Chrome trace
      >>api_xfer              services/xfer.h                    the async transfer engine: pinned staging, copy streams
      >>api_sched             services/sched.h                   the scheduler: QoS classes, admission control, tasks
      >>api_ops               ops/elementwise/elementwise.h      ops: fill, copy, cast, add/sub/mul/div, scale, axpy
      >>api_ops_math          ops/math/math.h                    elementwise math, reductions, softmax, top-k, sampling
      >>api_ops_nn            ops/nn/nn.h                        norms, rotary positions, layout
      >>api_ops_signal        ops/signal/signal.h                convolution, LSTM, FFT / STFT / mel
      >>api_ops_matmul        ops/matmul/matmul.h                GEMM, linear, gated linear (GLU), GEMV for decode
      >>api_ops_attention     ops/attention/attention.h          attention (prefill, decode, GQA / MQA, cross)
      >>api_ops_llm           ops/llm/llm.h                      KV-cache write at device positions (gpukit_llm.h's runtime)
   IMPLEMENTATION
      >>platform              core/platform.c                    dlopen, mutex, thread-local, files, clocks
      >>cuda_decls            core/cuda.c                        our own CUDA driver / NVRTC / cuBLASLt declarations
      >>internals             core/internal.c                    the context, slot and block structs every section uses
      >>errors                core/errors.c                      status names, error text, logging
      >>dtypes                core/dtypes.c                      conversions (round-to-nearest-even, bit-exact)
      >>loader                core/loader.c                      finding and loading the libraries
      >>pool                  core/pool.c                        size classes, cache, quota, LRU eviction, restore
      >>context               core/context.c                     context creation, device information
      >>tensor                core/tensor.c                      handle table, tensor creation
      >>views                 core/views.c                       reshape, permute, transpose, slice, squeeze
      >>stream                core/stream.c                      streams, events, graphs (CPU: recorded thunks)
      >>profile               services/profile.c                 the profiler: records, statistics, Chrome trace
      >>dispatch              core/dispatch.c                    the kernel dispatch controller: every launch, in-flight bounds
      >>transfer              core/transfer.c                    host <-> device copies, pinned host memory
      >>xfer                  services/xfer.c                    the transfer engine: staging, copy streams, chunks, priorities
      >>jit                   core/jit.c                         NVRTC, hash, memory + disk kernel cache, user launches
      >>ops                   core/iter.c                        op iteration: operand shapes, broadcasting, dim merging
      >>ops_elementwise_cpu   ops/elementwise/elementwise_cpu.c  CPU reference of the elementwise ops, kernel name tables
      >>launch                core/launch.c                      library kernel launches, workspace, arrival counters
      >>ops_elementwise       ops/elementwise/elementwise.c      operands, elementwise dispatch, fill/copy/cast/add/...
      >>ops_matmul            ops/matmul/gemm.c                  GEMM backends: CPU reference, cuBLASLt, tensor cores, wgmma, split, GEMV
      >>matmul_dispatch       ops/matmul/matmul.c                the matmul dispatcher, gk_matmul / gk_linear / gk_linear_glu
      >>ops_attention         ops/attention/attention.c          attention: CPU reference, flash, wgmma flash, decode splits
      >>ops_math              ops/math/common.c                  helpers shared by the math group
      >>math_elementwise      ops/math/elementwise.c             unary, clamp, binary, compare, where, snake, GLU
      >>math_reduce           ops/math/reduce.c                  reductions
      >>math_softmax          ops/math/softmax.c                 softmax, log_softmax, cumsum
      >>math_sample           ops/math/sample.c                  top-k and sampling
      >>ops_nn                ops/nn/common.c                    helpers shared by the nn group
      >>nn_norm               ops/nn/norm.c                      layer, RMS, add+RMS, group, instance norm, AdaIN
      >>nn_rope               ops/nn/rope.c                      rotary position tables and rotation, sinusoidal positions
      >>nn_layout             ops/nn/layout.c                    permute, concat, split, repeat, gather / embedding, pad, interpolate
      >>ops_signal            ops/signal/common.c                helpers shared by the signal group
      >>signal_conv_cpu       ops/signal/conv_cpu.c              the CPU convolution: phases, repacked weights, a 4 x 8 register block
      >>signal_conv           ops/signal/conv.c                  conv1d, transposed conv1d, conv2d, weight norm
      >>signal_lstm           ops/signal/lstm.c                  LSTM
      >>signal_fft            ops/signal/fft.c                   FFT, real FFT and its inverse
      >>signal_stft           ops/signal/stft.c                  STFT / iSTFT, Whisper log-mel, complex magnitude and phase
      >>signal_mel            ops/signal/mel.c                   mel filter banks
      >>ops_llm               ops/llm/llm.c                      KV-cache writes (plain and with RoPE), decode RMS norm
      >>sched                 services/sched.c                   the scheduler: admission, QoS classes, workers, pacing
      >>teardown              core/teardown.c                    context teardown

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
/* private to the including file; unused functions are no warning there */
#if defined(__GNUC__) || defined(__clang__)
#define GKDEF static __attribute__((unused))
#else
#define GKDEF static
#endif
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
    X(ERR_INTERNAL, "internal error")                                         \
    X(ERR_TIMEOUT, "timed out")                                               \
    X(ERR_CANCELLED, "cancelled")                                             \
    X(ERR_REJECTED, "rejected by admission control")

#define GK__STATUS_ENUM(name, msg) GK_##name,
typedef enum gk_status { GK__STATUS_LIST(GK__STATUS_ENUM) GK_STATUS_COUNT } gk_status;
#undef GK__STATUS_ENUM

GKDEF const char *gk_status_name(gk_status s);     /* "GK_ERR_SHAPE" */
GKDEF const char *gk_status_message(gk_status s);  /* "incompatible shape" */
/* The calling thread's last error text on ctx (what failed and where; other
   threads' errors on a shared context never show here), or its last error
   outside any context when ctx is NULL (gk_ctx_create, context-free calls).
   Never NULL; "" when the thread had no error there. Successful calls leave
   it as it was; it stays until the thread's next error on ctx (a thread keeps
   the texts of the 4 contexts it failed on most recently). */
GKDEF const char *gk_last_error(gk_ctx *ctx);
/* Records an error (printf format) for the calling thread on ctx, or outside
   any context when ctx is NULL, and returns st. For layers built on gpukit
   (gpukit_llm.h). */
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
/* A tensor handle (opaque; copy it freely). id: an index into the context's
   table and a generation; owner: the serial of the context that made it (one
   number a context, never reused in the process). A freed handle, a handle of
   another context (live or destroyed) and a made-up one are detected
   (GK_ERR_INVALID_HANDLE), never used. id 0 is the null handle: a zeroed
   gk_tensor (in C++, gk_tensor t = {} or {0, 0}). Limits: 2^64 contexts a
   process, 2^30 live tensors a context, and a slot's generation repeats after
   2^32 frees of that slot (a handle kept that long could match again). */
typedef struct gk_tensor { uint64_t id, owner; } gk_tensor;

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
    int wrapped;                    /* storage is foreign memory (gk_tensor_wrap) */
} gk_tensor_info;

/* New tensor of the given shape (ndim 0..8; dims >= 0), uninitialised, from the pool. */
GKDEF gk_status gk_tensor_empty(gk_ctx *ctx, gk_dtype dtype, int ndim, const int64_t *shape, gk_tensor *out);
/* New tensor filled from a packed row-major host array (synchronous). */
GKDEF gk_status gk_tensor_from_host(gk_ctx *ctx, gk_dtype dtype, int ndim, const int64_t *shape,
                                    const void *data, gk_tensor *out);
/* Called once when gpukit is done with wrapped memory (gk_tensor_wrap). */
typedef void (*gk_release_fn)(void *user);
/* Wraps memory that gpukit does not own as a tensor, without a copy (the
   way in for other libraries' arrays: DLPack, the CUDA array interface).
   address: a device address on CUDA (device memory of the context's device,
   or page-locked host memory the device can read, which the driver is asked
   about: pageable host memory is GK_ERR_INVALID_ARGUMENT); a host address on
   the CPU backend. It must be aligned to the element size (and may be 0 only
   when the tensor has no elements). strides: in elements, NULL for row-major
   contiguous; dims of size 1 take any stride, the others need strides >= 0
   that never make two elements share memory (a stride of 0 or an overlapping
   layout is GK_ERR_INVALID_ARGUMENT).
   LIFETIME: the caller keeps the memory valid until gpukit is done with it:
   when every handle on it is gone (the tensor and its views, freed or taken
   by gk_ctx_destroy) and no CUDA graph captured with it is left. Then, when
   release is not NULL, gpukit waits for the work queued on the stream that
   last used it and calls release(user), once, on the thread that dropped
   the last reference, with the context's lock held: release must not call
   gpukit on this context (hand the memory back, drop a reference, queue the
   work for later). Without release the caller tracks this itself (and syncs
   before freeing the memory). gk_tensor_free releases a handle, never the
   memory. A failed call never calls release; a tensor without elements
   keeps nothing, so its release runs before gk_tensor_wrap returns.
   The pool never counts it in its quota and never moves or frees it:
   gk_tensor_evict on it is GK_ERR_UNSUPPORTED, eviction under memory
   pressure passes it by, and pins are counted but change nothing
   (gk_tensor_info reports it resident, pinned and wrapped). */
GKDEF gk_status gk_tensor_wrap(gk_ctx *ctx, gk_dtype dtype, int ndim, const int64_t *shape, const int64_t *strides,
                               uint64_t address, gk_release_fn release, void *user, gk_tensor *out);
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
/* The stream the calling thread's ops on the context run on; NULL selects the
   default stream. Each thread has its own (a thread starts on the default
   stream), so threads sharing a context can each use their own stream.
   Destroying a stream moves the threads using it back to the default one. */
GKDEF gk_status gk_set_stream(gk_ctx *ctx, gk_stream *s);
GKDEF gk_stream *gk_get_stream(gk_ctx *ctx);
GKDEF gk_stream *gk_default_stream(gk_ctx *ctx);
GKDEF void *gk_stream_native(gk_ctx *ctx, gk_stream *s);         /* the CUstream; NULL on CPU */

/* The dispatch controller: every kernel launch (the library's, gk_launch's,
   cuBLASLt's) goes through one place that counts it on its stream, times it
   when the profiler is on, and applies the stream's bound on work in flight:
   with gk_stream_set_max_inflight(ctx, s, n), a call entering the context on
   a thread whose stream has n launches not yet complete first waits (the
   context's lock released, so other threads go on) until fewer are. A call
   may launch several kernels, so the bound holds at each call's entry. The
   scheduler (>>api_sched) bounds its lower classes' streams this way.
   n: 0 (no bound, the default) to 63. s NULL: the current stream. */
typedef struct gk_stream_stats {
    uint64_t launches;          /* kernels launched on the stream */
    uint64_t paced_waits;       /* calls that waited for its in-flight work */
    double paced_ms;            /* ... how long they waited in all */
    int max_inflight;           /* its bound; 0: none */
    int inflight;               /* launches recorded under the bound and not yet complete */
    int held;                   /* 1: the scheduler holds the stream's launches now */
    gk_stream_priority priority;
} gk_stream_stats;
GKDEF gk_status gk_stream_set_max_inflight(gk_ctx *ctx, gk_stream *s, int n);
GKDEF gk_status gk_stream_stats_get(gk_ctx *ctx, gk_stream *s, gk_stream_stats *out);

GKDEF gk_status gk_event_create(gk_ctx *ctx, gk_event **out);
GKDEF gk_status gk_event_destroy(gk_ctx *ctx, gk_event *e);
GKDEF gk_status gk_event_record(gk_ctx *ctx, gk_event *e, gk_stream *s);  /* NULL: current stream */
/* gk_event_sync and gk_stream_sync (and gk_sync, and the synchronous host
   copies) wait without holding the context's lock: other threads keep
   issuing work meanwhile. Destroying an event while a thread waits on it
   fails (GK_ERR_STATE). */
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

/* ------------------------------------------------------------------------ */
/* >>api_profile */
/* The profiler: the time of every kernel launch, copy and CPU op issued on a
   context, summed per kernel name, with bytes and FLOPs where the op knows
   them, the pool's usage over time, and a Chrome trace of it all.

   Off by default, and free when off: each place that issues work (the
   dispatch controller's launches, cuBLASLt, the host copies, the CPU
   backend's ops) tests one pointer of the context, a predictable branch, and
   records nothing. gk_profiler_start turns it on for the whole context:
   every thread's work on every stream is recorded (records are per context,
   kept under its lock). gk_profiler_stop stops recording and keeps the
   results (the sites then call a function that returns at once);
   gk_profiler_reset frees them, so the sites are back to their one test.

   What is measured. CUDA: two events on the work's own stream, one recorded
   just before the launch or copy is issued and one just after, so a record's
   time is what the GPU spent on that stream between them: the kernel's
   execution (its start waits for the stream's previous work, so queueing
   behind it is not counted; idle gaps while the host is still issuing are
   not counted either). The events sit between kernels on the stream, so a
   programmatic dependent launch (PDL) cannot overlap its kernel with the one
   before while the profiler is on. Start times are relative to an event
   recorded when the profiler starts. CPU backend: host time around each op,
   which runs synchronously on the calling thread. Work on a stream that is
   capturing a graph is not recorded (it does not run then; events recorded
   in a capture would become graph nodes), only counted as skipped; a graph
   launch (gk_graph_launch) is one record, "gk_graph_launch", its kernels
   not broken down: profiling a graph-replayed loop (gpukit_llm.h's decode
   step) costs one event pair a replay, where profiling the same work issued
   op by op costs one a launch.

   Bytes and FLOPs: the ops that know them (GEMM / GEMV 2*M*N*K FLOPs and the
   bytes of A, B and C; attention about 4*B*H*Sq*Skv*D FLOPs and the bytes of
   q, k, v and out; the elementwise ops the bytes they read and write; copies
   their size; a device-to-device copy counts read and write) attach them to
   their main kernel. The achieved GB/s and TFLOP/s are these totals over the
   time of the records that carried them.

   Cost when on: nothing is allocated, synchronised or created while work is
   issued: gk_profiler_start makes the record array and, on CUDA, all the
   events (2 a record) up front, so it takes time in proportion to
   max_records (a restart after gk_profiler_stop reuses them). Issuing a
   launch costs two event records on CUDA (host time; a measure of it is
   bench/bench_profile.c). Past max_records, records are counted as dropped,
   never waited for. Results are resolved only when asked for
   (gk_profiler_stats, _summary, _report, _write_trace): that waits for the
   recorded work to finish (with the context's lock released, so other
   threads go on issuing; their newer records are left for the next call). */
enum { GK_PROFILE_NO_POOL = 1 };        /* flags: no pool sample with each record (no counter track) */
#define GK_PROFILE_DEFAULT_RECORDS 65536
typedef struct gk_profiler_desc {
    int max_records;            /* records kept; 0: GK_PROFILE_DEFAULT_RECORDS; at most 1 << 24 */
    unsigned flags;             /* GK_PROFILE_NO_POOL */
} gk_profiler_desc;

typedef enum gk_profile_kind {
    GK_PROFILE_KERNEL = 0,      /* a kernel launch (library, gk_launch, cuBLASLt) */
    GK_PROFILE_H2D,             /* host-to-device copy */
    GK_PROFILE_D2H,             /* device-to-host copy */
    GK_PROFILE_D2D,             /* device-to-device copy */
    GK_PROFILE_CPU              /* an op of the CPU backend (host time) */
} gk_profile_kind;
GKDEF const char *gk_profile_kind_name(gk_profile_kind k);    /* "kernel", "HtoD", "DtoH", "DtoD", "cpu" */

/* One kernel name (or copy, or CPU op) and kind: its records summed. */
typedef struct gk_profile_entry {
    char name[96];              /* the kernel's name; CPU: the op ("gk_add"); copies "memcpy HtoD" ... */
    gk_profile_kind kind;
    int64_t count;
    double total_ms, mean_ms, min_ms, max_ms;
    double bytes;               /* summed over the records that carried a byte count; 0: none did */
    double flops;               /* ... a FLOP count */
    double gbps;                /* bytes / the time of those records, in GB/s (1e9 bytes); 0: unknown */
    double tflops;              /* flops / the time of those records, in TFLOP/s; 0: unknown */
} gk_profile_entry;

typedef struct gk_profile_stats {
    int running;                /* recording now (started, not stopped) */
    int64_t records;            /* records kept and timed */
    int64_t dropped;            /* not kept: past max_records (or an event could not be recorded) */
    int64_t skipped;            /* not recorded: issued on a stream capturing a graph */
    int64_t pending;            /* begun after this call's snapshot (other threads): left for the next */
    double busy_ms;             /* the records' times summed: total GPU (CPU: op) time */
    double kernel_ms;           /* ... of kernels and CPU ops */
    double copy_ms;             /* ... of copies */
    double span_ms;             /* the first record's start to the last one's end */
    int entries;                /* distinct (name, kind): gk_profiler_summary's count */
    int streams;                /* streams that have records */
    size_t pool_peak;           /* the most pool bytes in use at a record (0 with GK_PROFILE_NO_POOL) */
} gk_profile_stats;

/* desc NULL: the defaults. GK_ERR_STATE while already running; starting
   again after gk_profiler_stop discards the previous results. */
GKDEF gk_status gk_profiler_start(gk_ctx *ctx, const gk_profiler_desc *desc);
/* Stops recording; the results stay until gk_profiler_reset or the next
   start. GK_ERR_STATE when not running. */
GKDEF gk_status gk_profiler_stop(gk_ctx *ctx);
/* Stops and frees everything (the profiler is off as if never started). */
GKDEF gk_status gk_profiler_reset(gk_ctx *ctx);
/* The calls below fail with GK_ERR_STATE when the profiler was never started
   (or was reset); while it runs they give the results so far. */
GKDEF gk_status gk_profiler_stats(gk_ctx *ctx, gk_profile_stats *out);
/* The entries, by total time (largest first): min(cap, all) of them into
   out; *n: how many there are in all (out may be NULL with cap 0). */
GKDEF gk_status gk_profiler_summary(gk_ctx *ctx, gk_profile_entry *out, int cap, int *n);
/* A readable table of the summary and totals into buf (NUL-terminated, cut
   to size). *needed (may be NULL): the bytes the whole table takes with its
   NUL; GK_ERR_LIMIT when it did not fit (buf may be NULL with size 0). */
GKDEF gk_status gk_profiler_report(gk_ctx *ctx, char *buf, size_t size, size_t *needed);
/* Writes the records as a Chrome trace (the Trace Event Format; opens in
   Perfetto and chrome://tracing): a complete ("X") event a record, ts and dur
   in microseconds from the start, one tid a stream (named "stream N (high
   priority)" ...; the default stream is "default stream"), args with bytes,
   FLOPs and the rates; the pool's used / cached / evicted bytes as counter
   ("C") events. */
GKDEF gk_status gk_profiler_write_trace(gk_ctx *ctx, const char *path);
/* ------------------------------------------------------------------------ */
/* >>api_xfer */
/* The async transfer engine: moves bytes between host memory (or a file) and
   a byte range of a tensor's storage without blocking the caller, so copies
   overlap compute and each other.

   An engine has two copy streams of its own (host-to-device and
   device-to-host, CUDA non-blocking streams at the priorities of its desc), a
   ring of pinned (page-locked) host staging buffers allocated when it is
   made, `workers` staging threads and one completion thread a direction.
   A request is cut into chunks of chunk_bytes:
     - host memory that is pinned (gk_host_alloc, cuMemHostAlloc,
       cuMemHostRegister: detected with cuPointerGetAttribute) is copied
       straight from / to the tensor on the copy stream, chunk by chunk;
     - pageable memory goes through the staging ring: a worker copies chunk
       i+1 into a free staging buffer while the DMA of chunk i runs; a buffer
       is reused only once its last copy has completed (its event);
     - a file region (path or fd, offset, length) is read with pread() by the
       workers, in parallel, straight into staging buffers and DMA'd from
       there (no page faults, no mapping): the path model loading takes
       (gk_llm_load, gk_st_upload).
   Chunks of higher-priority requests are taken first: a small request with a
   higher priority submitted behind a large one completes before it. At most
   as many chunks as there are staging buffers are in flight, so a
   late high-priority request waits for those at most.

   Tensors: the request names a contiguous tensor, a byte offset into its
   data (its first element) and a length, so one large tensor can be filled
   or read in parts by several requests. The storage is made resident and
   pinned at submit (the pool never evicts it) and released when the request
   completes; a tensor freed while its transfer is in flight keeps its
   storage until then. The copy stream first waits for the work queued on the
   stream that last used the tensor (for storage not used since it was
   allocated: the calling thread's current stream, which the pool hands it
   back to) before the submit (so a download sees
   the result of an op issued before it, an upload does not overwrite data an
   earlier op still reads). Work issued after the submit is not ordered with
   the request: wait for it (gk_xfer_wait) or make a stream wait for it
   (gk_xfer_stream_wait) before using the data. Requests are not ordered
   with each other either (their chunks go to several threads and two
   streams): a request that depends on another (a download of what an
   upload writes) is submitted once the first is complete.

   Requests get ids (from 1, increasing). A request's status is reported
   once: to its callback, and to the first gk_xfer_wait / gk_xfer_query that
   sees it complete, or to gk_xfer_flush; then its id is forgotten, and later
   waits and queries on it return GK_OK (done). Ids the engine never gave
   out are an error. The engine keeps at most a few thousand unreported
   successful requests (the oldest are forgotten first); failed ones are
   kept until reported.

   Callbacks run on the engine's completion thread after the data has
   arrived and the tensor's pin is released, before the request counts as
   complete (gk_xfer_wait returns after its callback). A callback may call
   gpukit (submit more requests, free tensors, ...) but must not block for
   long: it holds up the completions behind it. Waiting on its own engine
   from a callback (gk_xfer_wait on an incomplete request, gk_xfer_flush,
   gk_xfer_destroy) fails with GK_ERR_STATE instead of deadlocking.

   The CPU backend runs the same engine: the copy streams are the two
   completion threads, which perform the copies (memcpy) in stream order, so
   chunking, staging, priorities, callbacks and waits behave alike.

   The profiler (>>api_profile) records the copies of requests submitted
   while it is on, as "xfer HtoD" / "xfer DtoH" on the engine's streams.

   Errors are recorded on the engine's context for the calling thread
   (gk_last_error(ctx)). A failed request (a short file, a CUDA error)
   reports "<call>: <what>" naming the file. gk_sync does not wait for
   engines: use gk_xfer_flush. Every call is thread-safe. */
typedef struct gk_xfer gk_xfer;
typedef uint64_t gk_xfer_id;        /* 0: no request */

typedef struct gk_xfer_desc {       /* zero: defaults */
    size_t chunk_bytes;             /* bytes a chunk (64 KiB .. 1 GiB); 0: 16 MiB (CPU: 4 MiB) */
    size_t staging_bytes;           /* pinned staging ring in all, at least one chunk; 0: 4 chunks */
    int workers;                    /* staging threads (1 .. 64); 0: 2 */
    gk_stream_priority h2d_priority; /* the copy streams' priorities */
    gk_stream_priority d2h_priority;
} gk_xfer_desc;

/* The completion callback: status GK_OK, the failure (message: what failed,
   naming the file where there is one), or GK_ERR_CANCELLED (the engine was
   destroyed before its chunks were all issued). message is "" on success
   and valid during the call only. */
typedef void (*gk_xfer_done_fn)(gk_xfer *x, gk_xfer_id id, gk_status status, const char *message, void *user);

enum {                              /* gk_xfer_opts.host */
    GK_XFER_HOST_DETECT = 0,        /* pinned or pageable, asked of the driver (CPU: pageable) */
    GK_XFER_HOST_PINNED = 1,        /* page-locked: copied directly, no staging */
    GK_XFER_HOST_PAGEABLE = 2       /* staged through the pinned ring */
};
typedef struct gk_xfer_opts {       /* per request; NULL or zero: defaults */
    int priority;                   /* higher goes first; default 0 */
    gk_xfer_done_fn done;           /* NULL: no callback */
    void *user;                     /* handed to done */
    int host;                       /* GK_XFER_HOST_*: how the host memory is copied */
} gk_xfer_opts;

typedef struct gk_xfer_stats {
    uint64_t requests_h2d, requests_d2h; /* completed (file uploads count as h2d) */
    uint64_t bytes_h2d, bytes_d2h;  /* moved by chunks that completed */
    uint64_t bytes_file;            /* of bytes_h2d: read from files */
    uint64_t bytes_staged;          /* through the staging buffers (pageable memory, files) */
    uint64_t bytes_direct;          /* straight from / to pinned host memory */
    uint64_t chunks;
    uint64_t failed, cancelled;     /* requests */
    uint64_t pending;               /* submitted, not complete */
    double busy_ms;                 /* time with at least one request in flight */
    double gbps;                    /* (bytes_h2d + bytes_d2h) / busy_ms, in GB/s (1e9 bytes) */
    size_t chunk_bytes, staging_bytes; /* as configured */
    int workers, buffers;           /* staging threads, staging buffers */
} gk_xfer_stats;

/* Makes an engine (desc NULL: defaults): its staging memory, streams and
   threads. gk_ctx_destroy destroys the engines of its context that are left. */
GKDEF gk_status gk_xfer_create(gk_ctx *ctx, const gk_xfer_desc *desc, gk_xfer **out);
/* Cancels the requests whose chunks are not all issued yet (their callbacks
   get GK_ERR_CANCELLED; a partly copied range keeps what arrived), waits for
   the rest to complete and for calls on the engine in other threads to
   return, then frees it. Submits made while it runs fail with GK_ERR_STATE.
   Not for the context's own engine (gk_xfer_default), which goes with the
   context. */
GKDEF gk_status gk_xfer_destroy(gk_xfer *x);
/* The context's own engine, made on the first call: the one model loading
   (gk_llm_load, gk_st_upload) uses. Its defaults are sized for many
   parallel file reads: on CUDA 8 MiB chunks, 3/4 of the CPUs as workers
   (2 .. 12) and two staging buffers a worker. desc (NULL: defaults)
   configures it on the call that makes it; GK_ERR_STATE when it is given
   and the engine already runs. */
GKDEF gk_status gk_xfer_default(gk_ctx *ctx, const gk_xfer_desc *desc, gk_xfer **out);

/* Requests. dst / src: a contiguous tensor of the engine's context; offset:
   a byte offset into its data; nbytes: how many bytes (offset + nbytes at
   most the tensor's size). The host buffer must stay valid, and unchanged
   for an upload, until the request completes. nbytes 0 is a request that
   completes at once (its callback runs). *id (id may be NULL) is the
   request's id. Errors at submit (bad arguments, a freed tensor, a missing
   file) submit nothing and call no callback. */
GKDEF gk_status gk_xfer_upload(gk_xfer *x, gk_tensor dst, size_t offset, const void *src, size_t nbytes,
                               const gk_xfer_opts *opts, gk_xfer_id *id);
GKDEF gk_status gk_xfer_download(gk_xfer *x, gk_tensor src, size_t offset, void *dst, size_t nbytes,
                                 const gk_xfer_opts *opts, gk_xfer_id *id);
/* nbytes of a file, from byte file_offset, into dst at offset. fd >= 0: read
   from that descriptor with pread() (it must stay open until the request
   completes; path, if not NULL, names it in messages); fd < 0: path is
   opened (and closed when the request completes). A file that cannot be
   opened or is shorter than file_offset + nbytes fails at submit; one that
   shrinks meanwhile fails the request. Both name the path. */
GKDEF gk_status gk_xfer_upload_file(gk_xfer *x, gk_tensor dst, size_t offset, const char *path, int fd,
                                    uint64_t file_offset, size_t nbytes, const gk_xfer_opts *opts, gk_xfer_id *id);

/* Waits for request id; timeout_ms < 0: for ever, 0: a poll. Returns its
   status (its message on the context), GK_ERR_TIMEOUT if it is still in
   flight when the time is up, GK_OK for an id whose status was already
   reported. */
GKDEF gk_status gk_xfer_wait(gk_xfer *x, gk_xfer_id id, double timeout_ms);
/* *done = 1 when complete (and then returns its status, as gk_xfer_wait), 0 when in flight. */
GKDEF gk_status gk_xfer_query(gk_xfer *x, gk_xfer_id id, int *done);
/* Waits for every request submitted before the call; returns the status of
   the first (lowest id) that failed, GK_OK when none did. */
GKDEF gk_status gk_xfer_flush(gk_xfer *x);
/* Makes stream s (NULL: the calling thread's current stream) wait on the
   GPU for request id's copies: work issued on s afterwards sees the
   uploaded data (or may overwrite the downloaded range) with no host sync.
   If the request's chunks are not all issued yet, the call waits on the
   host until they are (not until they complete). On the CPU backend it
   waits for the request to complete. The request's status is not reported
   here: use gk_xfer_wait / gk_xfer_flush for it. */
GKDEF gk_status gk_xfer_stream_wait(gk_xfer *x, gk_xfer_id id, gk_stream *s);
GKDEF gk_status gk_xfer_stats_get(gk_xfer *x, gk_xfer_stats *out);
/* ------------------------------------------------------------------------ */
/* >>api_sched
   The scheduler makes one GPU a resource several tenants share, with the
   QoS classes of Kubernetes:

   GK_QOS_GUARANTEED  a memory reservation and a compute share, both held for
                      it from admission to its end; admitted only when both
                      fit, else queued (or rejected when they never can).
                      Its work runs on high-priority streams, and while a
                      Guaranteed task is queued or running the lower classes
                      are paced (below) so that its latency holds. Its
                      reservation is also its memory limit.
   GK_QOS_BURSTABLE   a request (memory, share) admitted like Guaranteed's
                      and a limit above it: memory beyond the request comes
                      only from what no reservation holds, and when the
                      GPU time of its tasks (by name) over the last window
                      passes share_limit, its next tasks wait while others
                      are ready (throttled). Normal-priority streams.
   GK_QOS_BESTEFFORT  no reservation (the zero value): runs on what is left,
                      low-priority streams; the first to be throttled (paced
                      to a few kernels in flight, or held, while a
                      Guaranteed task is active) and its memory the first
                      the pool evicts. It never takes memory a reservation
                      holds, and never evicts others' memory.

   A task is a callback that issues GPU work on the stream it is given (the
   stream is also the calling thread's current stream while it runs, so
   plain gpukit calls go there), or a captured graph. It runs on one of the
   scheduler's worker threads and is done when its callback has returned and
   its GPU work has completed. Its memory is charged to it: allocations past
   its limit fail with GK_ERR_OUT_OF_MEMORY naming the task.

   Submission answers with a decision and its reason (gk_admission): admit
   (state QUEUED: ready, waiting for a worker), queue (state PENDING:
   waiting for dependencies, memory or share) or reject (no task is made;
   the status is GK_ERR_REJECTED or GK_ERR_INVALID_ARGUMENT, and the reason
   says why: insufficient memory, share exceeded, queue full, shut down,
   invalid). States: PENDING -> QUEUED -> RUNNING -> COMPLETED or FAILED;
   CANCELLED from any state before COMPLETED. A task whose dependency fails
   or is cancelled fails in turn, naming it. A task with a deadline that has
   not started by then fails with GK_ERR_TIMEOUT; one that starts in time
   but ends late is counted as a missed deadline. Every task keeps the
   reason for its last decision (gk_task_info.reason).

   Pacing uses the dispatch controller on the lower classes' streams: by
   default BestEffort streams are held while the Guaranteed class is active
   (a task queued or running, or one ended less than guaranteed_linger_ms
   ago), so a Guaranteed task shares the GPU only with the BestEffort
   kernels already in flight when it arrives; with besteffort_inflight they
   run paced instead, that many launches in flight
   (gk_stream_set_max_inflight). Burstable streams are paced to
   burstable_inflight. SM partitioning (green
   contexts) is not used: gk_sched_stats.partitioning says why and that
   priorities and pacing stand in for it.

   Threads: every function may be called from any thread, tasks' callbacks
   included (a callback may submit and cancel, but must not wait for a task
   that cannot start before it returns). gk_sched_destroy (and
   gk_ctx_destroy, which destroys a context's schedulers first) cancels what
   has not started and waits for what runs. */
typedef enum gk_qos { GK_QOS_BESTEFFORT = 0, GK_QOS_BURSTABLE = 1, GK_QOS_GUARANTEED = 2 } gk_qos;
typedef enum gk_task_state {
    GK_TASK_PENDING = 0,    /* waiting for dependencies, memory or share (or held) */
    GK_TASK_QUEUED,         /* admitted: resources held, waiting for a worker */
    GK_TASK_RUNNING,
    GK_TASK_COMPLETED,
    GK_TASK_FAILED,
    GK_TASK_CANCELLED
} gk_task_state;
typedef enum gk_decision { GK_ADMIT = 0, GK_QUEUE, GK_REJECT } gk_decision;
typedef enum gk_reason {
    GK_REASON_FITS = 0,             /* admitted: its reservation and share fit */
    GK_REASON_DEPENDENCIES,         /* queued: dependencies not complete */
    GK_REASON_MEMORY,               /* queued: its reservation does not fit now */
    GK_REASON_SHARE,                /* queued: its share does not fit now */
    GK_REASON_HELD,                 /* queued: submitted with hold, waiting for gk_sched_release */
    GK_REASON_INSUFFICIENT_MEMORY,  /* rejected: the reservation exceeds what the scheduler can reserve */
    GK_REASON_SHARE_EXCEEDED,       /* rejected: the share exceeds what Guaranteed and Burstable may hold */
    GK_REASON_QUEUE_FULL,           /* rejected: max_queued tasks pending or queued */
    GK_REASON_SHUTDOWN,             /* rejected: the scheduler is shutting down */
    GK_REASON_INVALID               /* rejected: a field of the description is invalid */
} gk_reason;
typedef struct gk_admission {
    gk_decision decision;
    gk_reason reason;
    char message[256];              /* the reason in words, with the numbers */
} gk_admission;

typedef uint64_t gk_task_id;        /* from 1; 0 is no task */
typedef struct gk_sched gk_sched;
/* The work of a task: issue GPU work on `stream` (also the thread's current
   stream) and return GK_OK, or an error status (the task fails with it and
   with the thread's error text on ctx). It need not wait for its work. */
typedef gk_status (*gk_task_fn)(gk_ctx *ctx, gk_stream *stream, void *user);

typedef struct gk_task_desc {
    const char *name;           /* in messages and statistics, and the key of Burstable share accounting; NULL: "task <id>" */
    gk_qos qos;
    gk_task_fn fn;              /* the work, or: */
    void *user;
    gk_graph *graph;            /* a captured graph, launched on the task's stream */
    size_t memory;              /* Guaranteed: its reservation and limit; Burstable: its request */
    size_t memory_limit;        /* Burstable: the most it may hold (0: its request); BestEffort: 0 (no limit of its own) */
    double share;               /* Guaranteed, Burstable: the compute share it holds, in (0, 1]; BestEffort: 0 */
    double share_limit;         /* Burstable: throttled above this share of GPU time (0: its share) */
    const gk_task_id *deps;     /* tasks that must complete first */
    int ndeps;
    double deadline_ms;         /* from submission; 0: none */
    int hold;                   /* 1: stays PENDING until gk_sched_release (dependencies may be added meanwhile) */
} gk_task_desc;

typedef struct gk_sched_desc {
    int workers;                /* threads running tasks (1..64); 0: 2. With 2 or more, Burstable and
                                   BestEffort tasks run on all but one at most, so a Guaranteed task never
                                   waits for a worker behind them */
    int max_queued;             /* tasks PENDING or QUEUED at once; 0: 1024 */
    size_t memory;              /* bytes reservations may hold in all; 0: the pool's quota at creation */
    double reserved_share;      /* share Guaranteed and Burstable requests may hold in all, (0, 1]; 0: 1 */
    int besteffort_inflight;    /* while a Guaranteed task is active: 0, BestEffort streams are held (a call
                                   entering on one waits until the class is idle: only kernels already
                                   in flight run beside it; with one worker, which a held task would keep
                                   from the Guaranteed one, 1 in flight instead); 1..63, that many in flight */
    int besteffort_hold;        /* 1: BestEffort tasks do not even start while a Guaranteed task is active */
    double guaranteed_linger_ms; /* the Guaranteed class stays active this long after its last task ends,
                                   covering the gaps between one tenant's steps; 0: 1 ms; negative: none */
    int burstable_inflight;     /* Burstable launches in flight while a Guaranteed task is active; 0: 4 */
    double share_window_ms;     /* Burstable share accounting window; 0: 1000 */
    int keep_finished;          /* finished tasks kept for gk_sched_task_info; 0: 4096 (older ones are forgotten) */
} gk_sched_desc;

typedef struct gk_task_info {
    gk_task_id id;
    char name[64];
    gk_qos qos;
    gk_task_state state;
    gk_status result;           /* GK_OK, or why it failed / was cancelled */
    char reason[256];           /* the last decision about it, or its error */
    double queued_ms;           /* submission to start (so far, while it waits) */
    double run_ms;              /* start to the end of its GPU work (so far, while it runs) */
    double gpu_ms;              /* its stream's time from first to last work (CUDA; CPU: run_ms) */
    size_t memory_peak;         /* the most pool memory charged to it at once */
    int cancel_requested;       /* gk_sched_cancel was called while it ran */
    int deadline_missed;
} gk_task_info;

typedef struct gk_sched_class_stats {
    uint64_t submitted, admitted, queued, rejected, completed, failed, cancelled, deadline_missed;
    int pending, ready, running; /* now */
    double latency_p50_ms, latency_p99_ms, latency_max_ms; /* submission to end, over the last 1024 completed */
    double gpu_ms;               /* GPU time of its completed tasks */
} gk_sched_class_stats;
typedef struct gk_sched_stats {
    gk_sched_class_stats cls[3]; /* by gk_qos */
    uint64_t rejected_by_reason[GK_REASON_INVALID + 1];
    size_t memory, memory_reserved; /* what reservations may hold, and hold now */
    double share_reserved;       /* share held now (of reserved_share) */
    uint64_t throttled;          /* times a ready task was held back by pacing or share */
    int guaranteed_active;       /* Guaranteed tasks queued or running now */
    int partitioning;            /* 1: SM partitioning in use; 0: priorities and pacing only */
    char partitioning_note[192]; /* why (or which) */
} gk_sched_stats;

GKDEF gk_status gk_sched_create(gk_ctx *ctx, const gk_sched_desc *desc, gk_sched **out);
/* Stops admitting, cancels every task not yet running, waits for running
   ones, joins the workers and frees it. NULL is ignored. */
GKDEF void gk_sched_destroy(gk_sched *s);
/* Stops admitting (later submissions are rejected with GK_REASON_SHUTDOWN);
   with cancel_pending, cancels what has not started, else lets it run. */
GKDEF gk_status gk_sched_shutdown(gk_sched *s, int cancel_pending);
/* Submits a task; *id is 0 when rejected. why (may be NULL) gets the
   decision and its reason. */
GKDEF gk_status gk_sched_submit(gk_sched *s, const gk_task_desc *desc, gk_task_id *id, gk_admission *why);
/* Adds a dependency to a task not yet started (fails naming the cycle when
   `on` depends on `task`, directly or not). */
GKDEF gk_status gk_sched_add_dependency(gk_sched *s, gk_task_id task, gk_task_id on);
GKDEF gk_status gk_sched_release(gk_sched *s, gk_task_id task);   /* ends a hold */
/* Cancels a task that has not started (its dependents fail). A running task
   cannot be stopped: the call fails with GK_ERR_STATE, marks the request
   (gk_sched_cancel_requested) and the task ends CANCELLED when its
   callback returns. */
GKDEF gk_status gk_sched_cancel(gk_sched *s, gk_task_id task);
/* Inside a callback: whether its task was asked to stop (0 elsewhere). */
GKDEF int gk_sched_cancel_requested(gk_sched *s);
/* Waits until the task has finished (timeout_ms < 0: no limit; GK_ERR_TIMEOUT
   past it) and fills info (may be NULL). Returns GK_OK when it finished,
   whatever its result: info->state and info->result say how. */
GKDEF gk_status gk_sched_wait(gk_sched *s, gk_task_id task, double timeout_ms, gk_task_info *info);
GKDEF gk_status gk_sched_wait_all(gk_sched *s, double timeout_ms);
GKDEF gk_status gk_sched_task_info(gk_sched *s, gk_task_id task, gk_task_info *out);
GKDEF gk_status gk_sched_stats_get(gk_sched *s, gk_sched_stats *out);
GKDEF const char *gk_qos_name(gk_qos q);             /* "Guaranteed" */
GKDEF const char *gk_task_state_name(gk_task_state s); /* "running" */
GKDEF const char *gk_reason_name(gk_reason r);       /* "queue full" */
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

/* >>api_ops_math: more elementwise ops, reductions, softmax, cumsum, top-k, sampling, Gaussian noise
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
   A row with no finite logit gives -1. On the device each row is split over many blocks
   (partial maxima and integer weight sums, or per-part top-k candidates, then a small
   block per row; the results are the same, since every sum is of integers) when
   temperature > 0 without top_k / top_p, with 0 < top_k <= 1024 (top_p and min_p
   allowed), or greedy with penalties, for vocab <= 4194304. Else one block per row
   (greedy without penalties: many blocks from vocab 8192); top_p without top_k and
   top_k > 1024 sort the candidates (less those of weight 0) in shared memory up to 4096
   of them, else in the workspace (correct, slower: e.g. top_p without top_k on flat logits). */
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
/* Gaussian noise N(0, 1) on the device: element i of out (f32, contiguous, any shape) is number
   offset + i of the stream of seed. Number j comes from Philox4x32-10 block j / 4 (counter {block lo,
   block hi, 0, 0}, key {seed lo, seed hi}) by Box-Muller in float: words w0, w1 give numbers 0 and 1
   of the block (r cos t, r sin t), words w2, w3 numbers 2 and 3, with u = ((w >> 8) + 0.5) 2^-24 in
   (0, 1), r = sqrt(-2 log u_first), t = 2 pi u_second (so |x| < 5.9). The same seed and offset give
   the same numbers; the CPU and CUDA backends agree up to the rounding of logf, sqrtf, sinf, cosf. */
GKDEF gk_status gk_randn(gk_ctx *ctx, gk_tensor out, uint64_t seed, uint64_t offset);
/* end of >>api_ops_math */

/* >>api_ops_nn: norms, positions (RoPE), layout (permute, concat, gather, pad, interpolate)
   (declarations of this group go below this line) */
/* ---- norms. x is f32, f16 or bf16 and contiguous; out has x's shape and
   dtype, is contiguous and may be x (in place). Statistics in f32, biased
   variance, eps inside the square root as in the PyTorch module each one
   matches. weight / bias are f32 or x's dtype; a zero handle (gk_tensor){0}
   means absent. */
/* torch.nn.LayerNorm over the last dim D: (x - mean) / sqrt(var + eps) * w + b;
   weight, bias [D]. PyTorch's default eps is 1e-5. */
GKDEF gk_status gk_layer_norm(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor weight, gk_tensor bias, double eps);
/* HF LlamaRMSNorm over the last dim: y = round(x * rsqrt(mean(x^2) + eps)) to
   x's dtype, out = round(weight * y); weight [D] or absent. */
GKDEF gk_status gk_rms_norm(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor weight, double eps);
/* Fused residual add: h = round(x + residual) is written to h (x's shape and
   dtype; may be x or residual), out = gk_rms_norm(h). */
GKDEF gk_status gk_add_rms_norm(gk_ctx *ctx, gk_tensor out, gk_tensor h, gk_tensor x, gk_tensor residual, gk_tensor weight, double eps);
/* torch.nn.GroupNorm on x [B, C, *]: statistics per (batch, group) over C /
   num_groups channels and every position; weight, bias [C]. Default eps 1e-5. */
GKDEF gk_status gk_group_norm(gk_ctx *ctx, gk_tensor out, gk_tensor x, int num_groups, gk_tensor weight, gk_tensor bias, double eps);
/* torch.nn.InstanceNorm1d/2d (no running stats) on x [B, C, *] (3+ dims):
   statistics per (b, c) over the positions; optional affine weight, bias [C].
   PyTorch's eps is 1e-5. */
GKDEF gk_status gk_instance_norm(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor weight, gk_tensor bias, double eps);
/* AdaIN: out = scale * instance_norm(x) + shift, x [B, C, *] (3+ dims),
   scale and shift [B, C] (contiguous; f32 or x's dtype). Kokoro's AdaIN1d is
   scale = 1 + gamma, eps 1e-5. */
GKDEF gk_status gk_adain(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor scale, gk_tensor shift, double eps);
GKDEF gk_status gk_layer_norm_new(gk_ctx *ctx, gk_tensor x, gk_tensor weight, gk_tensor bias, double eps, gk_tensor *out);
GKDEF gk_status gk_rms_norm_new(gk_ctx *ctx, gk_tensor x, gk_tensor weight, double eps, gk_tensor *out);
GKDEF gk_status gk_add_rms_norm_new(gk_ctx *ctx, gk_tensor x, gk_tensor residual, gk_tensor weight, double eps, gk_tensor *out, gk_tensor *h);
GKDEF gk_status gk_group_norm_new(gk_ctx *ctx, gk_tensor x, int num_groups, gk_tensor weight, gk_tensor bias, double eps, gk_tensor *out);
GKDEF gk_status gk_instance_norm_new(gk_ctx *ctx, gk_tensor x, gk_tensor weight, gk_tensor bias, double eps, gk_tensor *out);
GKDEF gk_status gk_adain_new(gk_ctx *ctx, gk_tensor x, gk_tensor scale, gk_tensor shift, double eps, gk_tensor *out);

/* ---- rotary position embedding (RoPE) and sinusoidal positions */
typedef enum gk_rope_type {
    GK_ROPE_DEFAULT = 0,   /* inv_freq[i] = 1 / theta^(2i / rotary_dim) */
    GK_ROPE_LINEAR,        /* inv_freq / factor */
    GK_ROPE_DYNAMIC,       /* NTK-aware: theta * ((factor * seq / max_pos) - (factor - 1))^(d / (d - 2)) */
    GK_ROPE_YARN,          /* YaRN ramp between interpolation and extrapolation, attention factor */
    GK_ROPE_LLAMA3         /* Llama 3.1 wavelength bands */
} gk_rope_type;
typedef enum gk_rope_layout {
    GK_ROPE_NEOX = 0,      /* rotate-half: pairs (j, j + rotary_dim/2) (HF default) */
    GK_ROPE_GPTJ           /* interleaved: pairs (2j, 2j + 1) */
} gk_rope_layout;
/* The fields of HF transformers' rope_parameters (a zero means "absent",
   and HF's default applies). */
typedef struct gk_rope_config {
    gk_rope_type type;
    int rotary_dim;                  /* int(head_dim * partial_rotary_factor); even, > 0 */
    double theta;                    /* rope_theta; 0: 10000 */
    double factor;                   /* linear, dynamic, llama3: required; yarn: 0 = max_pos / original */
    int64_t max_position_embeddings; /* dynamic, yarn */
    int64_t original_max_position_embeddings; /* yarn (0: max_position_embeddings), llama3 (required) */
    int64_t seq_len;                 /* dynamic: current length (HF uses max(seq_len, max_pos)); 0: max_pos */
    double attention_factor;         /* yarn: 0 = from factor, mscale, mscale_all_dim */
    double beta_fast, beta_slow;     /* yarn: 0 = 32, 1 */
    double mscale, mscale_all_dim;   /* yarn */
    int no_truncate;                 /* yarn: truncate = false */
    double low_freq_factor, high_freq_factor; /* llama3 (required) */
} gk_rope_config;
/* HF's inverse frequencies (rotary_dim / 2 floats, computed in f32 like
   torch) and attention scaling (1 except YaRN). Host only. */
GKDEF gk_status gk_rope_inv_freq(const gk_rope_config *cfg, float *inv_freq, double *attention_scaling);
/* cos / sin tables [max_pos, rotary_dim / 2] (row p: cos(p * inv_freq) *
   attention_scaling, like HF's cos/sin halves). Host only. */
GKDEF gk_status gk_rope_table(const gk_rope_config *cfg, int64_t max_pos, float *cos_tab, float *sin_tab, double *attention_scaling);
/* The same tables as new tensors [max_pos, rotary_dim / 2] of dtype (f32, f16
   or bf16), uploaded synchronously (set-up time, not for the hot path). */
GKDEF gk_status gk_rope_table_new(gk_ctx *ctx, const gk_rope_config *cfg, int64_t max_pos, gk_dtype dtype, gk_tensor *cos_tab,
                                  gk_tensor *sin_tab);
/* Rotates the first rotary_dim dims of every head of x [T, H, D] (f32, f16,
   bf16; last dim contiguous, any token / head strides, e.g. a view into a
   fused qkv) at positions [T] (i32 or i64) with cos / sin tables [P,
   rotary_dim / 2] (f32 or x's dtype); dims rotary_dim..D-1 pass through.
   out [T, H, D] of x's dtype may be x (in place). Computes in f32, rounds once.
   A position outside [0, P) gives zeros in the rotary part (no host sync
   can check device data). */
GKDEF gk_status gk_rope(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor positions, gk_tensor cos_tab, gk_tensor sin_tab,
                        int rotary_dim, gk_rope_layout layout);
GKDEF gk_status gk_rope_new(gk_ctx *ctx, gk_tensor x, gk_tensor positions, gk_tensor cos_tab, gk_tensor sin_tab, int rotary_dim,
                            gk_rope_layout layout, gk_tensor *out);
/* Whisper's sinusoids(length, channels, max_timescale): out [length, channels]
   f32, sin of the first channels/2, cos of the rest (channels even, >= 4);
   max_timescale 0 means 10000. Host only. */
GKDEF gk_status gk_sinusoids(int64_t length, int64_t channels, double max_timescale, float *out);

/* ---- layout. Any dtype; these copy (on the current stream) unless said. */
/* out = x.permute(perm) materialised (out: the permuted shape, any strides).
   Contiguous runs move 16 bytes per thread; a moved last dim goes through a
   tiled shared-memory transpose. */
GKDEF gk_status gk_permute(gk_ctx *ctx, gk_tensor out, gk_tensor x, const int *perm);
GKDEF gk_status gk_permute_new(gk_ctx *ctx, gk_tensor x, const int *perm, gk_tensor *out);
/* torch.cat(xs, axis): n >= 1 inputs of one dtype, equal shapes but along
   axis. One strided copy per input. */
GKDEF gk_status gk_concat(gk_ctx *ctx, gk_tensor out, const gk_tensor *xs, int n, int axis);
GKDEF gk_status gk_concat_new(gk_ctx *ctx, const gk_tensor *xs, int n, int axis, gk_tensor *out);
/* torch.split(x, sizes, axis) as n VIEWS of x (no copy; sizes sum to the
   dim): free them with gk_tensor_free; gk_contiguous gives copies. */
GKDEF gk_status gk_split(gk_ctx *ctx, gk_tensor x, int axis, const int64_t *sizes, int n, gk_tensor *outs);
/* out = x[..., start:stop:step, ...] along axis (Python rules, step >= 1) as a copy. */
GKDEF gk_status gk_slice_copy(gk_ctx *ctx, gk_tensor out, gk_tensor x, int axis, int64_t start, int64_t stop, int64_t step);
/* torch.index_select(x, axis, index): index i32 / i64 [n] (contiguous); x and
   out contiguous. An index outside [0, x.shape[axis]) (negative included)
   gives zeros in its slice: no status, no host sync. */
GKDEF gk_status gk_index_select(gk_ctx *ctx, gk_tensor out, gk_tensor x, int axis, gk_tensor index);
GKDEF gk_status gk_index_select_new(gk_ctx *ctx, gk_tensor x, int axis, gk_tensor index, gk_tensor *out);
/* Embedding lookup: out [ids.shape..., D] = table [V, D] rows at ids (i32 or
   i64, any shape); out-of-range ids give zero rows (as gk_index_select). */
GKDEF gk_status gk_embedding(gk_ctx *ctx, gk_tensor out, gk_tensor table, gk_tensor ids);
GKDEF gk_status gk_embedding_new(gk_ctx *ctx, gk_tensor table, gk_tensor ids, gk_tensor *out);
/* torch.Tensor.repeat(repeats): nrep >= x.ndim (leading repeats add dims),
   repeats >= 0; out shape [..., repeats[i] * shape[i]]. At most 8 dims after
   dropping size-1 ones (GK_ERR_UNSUPPORTED otherwise). */
GKDEF gk_status gk_repeat(gk_ctx *ctx, gk_tensor out, gk_tensor x, const int64_t *repeats, int nrep);
GKDEF gk_status gk_repeat_new(gk_ctx *ctx, gk_tensor x, const int64_t *repeats, int nrep, gk_tensor *out);
/* torch.repeat_interleave(x, repeats, axis) with one repeat count >= 0. */
GKDEF gk_status gk_repeat_interleave(gk_ctx *ctx, gk_tensor out, gk_tensor x, int64_t repeats, int axis);
GKDEF gk_status gk_repeat_interleave_new(gk_ctx *ctx, gk_tensor x, int64_t repeats, int axis, gk_tensor *out);
typedef enum gk_pad_mode { GK_PAD_CONSTANT = 0, GK_PAD_REFLECT, GK_PAD_REPLICATE } gk_pad_mode;
/* torch.nn.functional.pad over the last 1 (npads 2: left, right) or 2 dims
   (npads 4: left, right, top, bottom); pads >= 0; x and out contiguous.
   Reflect needs each pad < its dim, replicate a non-empty dim. value: the
   constant (converted to x's dtype). */
GKDEF gk_status gk_pad(gk_ctx *ctx, gk_tensor out, gk_tensor x, const int64_t *pads, int npads, gk_pad_mode mode, double value);
GKDEF gk_status gk_pad_new(gk_ctx *ctx, gk_tensor x, const int64_t *pads, int npads, gk_pad_mode mode, double value, gk_tensor *out);
typedef enum gk_interp_mode { GK_INTERP_NEAREST = 0, GK_INTERP_LINEAR } gk_interp_mode;
/* torch.nn.functional.interpolate, align_corners=False: x [N, C, W] (linear
   or nearest over W) or [N, C, H, W] (bilinear or nearest over H, W), f32 /
   f16 / bf16, contiguous; the output size is out's shape. scales (1 per
   spatial dim, NULL or 0: none) are the scale_factor PyTorch was given:
   the source step is then 1 / scale, else in / out, exactly as PyTorch.
   _new: size (NULL: floor(in * scale)) or scales. */
GKDEF gk_status gk_interpolate(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_interp_mode mode, const double *scales);
GKDEF gk_status gk_interpolate_new(gk_ctx *ctx, gk_tensor x, gk_interp_mode mode, const int64_t *size, const double *scales,
                                   gk_tensor *out);

/* end of >>api_ops_nn */

/* >>api_ops_signal: convolution, LSTM, FFT / STFT / mel, Whisper log-mel
   (declarations of this group go below this line) */
/* Signal ops run on the current stream like every op; f32 unless said.
   Complex tensors are interleaved f32 pairs: a [..., n, 2] tensor. Operands
   must be contiguous. Optional tensors are passed as a zero handle
   (gk_tensor none = {0}). FFT lengths 2..2^22: radix 2/3/4/5 when n has
   no other prime factor, else Bluestein over m = the smallest 2^a 3^b 5^c
   >= 2n-1; on CUDA one block per transform in shared memory while m * 8
   bytes fit, else one launch per stage over a global workspace.

   Convolution (PyTorch semantics, f32 / f16 / bf16 with f32 accumulation,
   output dtype = input dtype; bias [Cout] or none):
     conv1d: x [B, Cin, L], w [Cout, Cin/groups, K] -> out [B, Cout, Lout],
       Lout = (L + 2*padding - dilation*(K-1) - 1) / stride + 1. */
GKDEF gk_status gk_conv1d(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor bias, int64_t stride, int64_t padding,
                          int64_t dilation, int64_t groups);
GKDEF gk_status gk_conv1d_new(gk_ctx *ctx, gk_tensor x, gk_tensor w, gk_tensor bias, int64_t stride, int64_t padding, int64_t dilation,
                              int64_t groups, gk_tensor *out);
/* conv1d with its options in a desc (zeroed: stride 1, padding 0,
   dilation 1, one group, f32 exact). allow_tf32: f32 data may run on TF32
   tensor cores (10-bit mantissas in, f32 accumulation; relative error
   ~1e-3) where the shape allows (stride 1, one group, >= 64 output
   channels, kernel and dilation <= 64; else the exact kernel). The CPU
   backend always computes in f32. */
typedef struct gk_conv1d_desc {
    int64_t stride;                /* 0: 1 */
    int64_t padding;
    int64_t dilation;              /* 0: 1 */
    int64_t groups;                /* 0: 1 */
    int allow_tf32;
} gk_conv1d_desc;
GKDEF gk_status gk_conv1d_ex(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor bias, const gk_conv1d_desc *desc);
/* conv_transpose1d: x [B, Cin, L], w [Cin, Cout/groups, K] -> out [B, Cout, Lout],
   Lout = (L-1)*stride - 2*padding + dilation*(K-1) + output_padding + 1
   (output_padding < stride or < dilation, as PyTorch). */
GKDEF gk_status gk_conv_transpose1d(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor bias, int64_t stride,
                                    int64_t padding, int64_t output_padding, int64_t groups, int64_t dilation);
GKDEF gk_status gk_conv_transpose1d_new(gk_ctx *ctx, gk_tensor x, gk_tensor w, gk_tensor bias, int64_t stride, int64_t padding,
                                        int64_t output_padding, int64_t groups, int64_t dilation, gk_tensor *out);
/* conv2d (NCHW): x [B, Cin, H, W], w [Cout, Cin/groups, KH, KW] -> out [B, Cout, Ho, Wo];
   stride, padding, dilation: {height, width}. */
GKDEF gk_status gk_conv2d(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor bias, const int64_t stride[2],
                          const int64_t padding[2], const int64_t dilation[2], int64_t groups);
GKDEF gk_status gk_conv2d_new(gk_ctx *ctx, gk_tensor x, gk_tensor w, gk_tensor bias, const int64_t stride[2], const int64_t padding[2],
                              const int64_t dilation[2], int64_t groups, gk_tensor *out);
/* Weight-norm folding (PyTorch weight_norm, dim=0): out = g * v / ||v||, the
   norm over all dims but 0 (per output channel of a conv weight; per input
   channel of a transposed conv weight [Cin, Cout/g, K], as PyTorch does).
   v [C, ...], g with C elements ([C] or [C, 1, ...]); f32 / f16 / bf16. */
GKDEF gk_status gk_weight_norm(gk_ctx *ctx, gk_tensor out, gk_tensor v, gk_tensor g);
GKDEF gk_status gk_weight_norm_new(gk_ctx *ctx, gk_tensor v, gk_tensor g, gk_tensor *out);

/* LSTM, one layer, batch 1, D = 1 or 2 directions (PyTorch: gates i, f, g, o;
   bias_ih + bias_hh; output [forward, backward] per step), f32:
     x [T, I] (or [T, 1, I]); w_ih [D, 4H, I]; w_hh [D, 4H, H]; b_ih, b_hh [D, 4H] or none;
     h0, c0 [D, H] (or [D, 1, H]) or none (zeros) -> out [T, D*H] (or [T, 1, D*H]),
     h_n, c_n [D, H] or none.
   CUDA: one GEMM for the input projection of all steps, then one persistent
   cooperative kernel for the recurrence (no launch per step). */
GKDEF gk_status gk_lstm(gk_ctx *ctx, gk_tensor out, gk_tensor h_n, gk_tensor c_n, gk_tensor x, gk_tensor w_ih, gk_tensor w_hh,
                        gk_tensor b_ih, gk_tensor b_hh, gk_tensor h0, gk_tensor c0);
GKDEF gk_status gk_lstm_new(gk_ctx *ctx, gk_tensor x, gk_tensor w_ih, gk_tensor w_hh, gk_tensor b_ih, gk_tensor b_hh, gk_tensor h0,
                            gk_tensor c0, gk_tensor *out);

/* FFT of any length n >= 2 over the last complex dim: x, out [..., n, 2].
   inverse != 0: the inverse transform scaled by 1/n (torch.fft.ifft). */
GKDEF gk_status gk_fft(gk_ctx *ctx, gk_tensor out, gk_tensor x, int inverse);
GKDEF gk_status gk_fft_new(gk_ctx *ctx, gk_tensor x, int inverse, gk_tensor *out);
/* rfft: x [..., n] real -> out [..., n/2+1, 2]. irfft: x [..., n/2+1, 2] ->
   out [..., n] (n from out, or the argument of _new; 1/n scaled; the
   imaginary parts of the DC and Nyquist bins are ignored, as torch). */
GKDEF gk_status gk_rfft(gk_ctx *ctx, gk_tensor out, gk_tensor x);
GKDEF gk_status gk_rfft_new(gk_ctx *ctx, gk_tensor x, gk_tensor *out);
GKDEF gk_status gk_irfft(gk_ctx *ctx, gk_tensor out, gk_tensor x);
GKDEF gk_status gk_irfft_new(gk_ctx *ctx, gk_tensor x, int64_t n, gk_tensor *out);
/* STFT as torch.stft(x, n_fft, hop, window=window, center=center,
   pad_mode="reflect", normalized=False, onesided=True, return_complex=True)
   viewed as real: x [L] or [B, L] -> out [(B,) n_fft/2+1, frames, 2],
   frames = 1 + (L + 2*pad - n_fft) / hop, pad = center ? n_fft/2 : 0.
   window: f32 [n_fft], or none for the periodic Hann window (torch's
   window=None would be rectangular: pass a tensor of ones for that). */
GKDEF gk_status gk_stft(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor window, int64_t n_fft, int64_t hop, int center);
GKDEF gk_status gk_stft_new(gk_ctx *ctx, gk_tensor x, gk_tensor window, int64_t n_fft, int64_t hop, int center, gk_tensor *out);
/* iSTFT as torch.istft: spec [(B,) n_fft/2+1, frames, 2] -> out [(B,) length]:
   irfft per frame, times the window, overlap-add, divided by the overlap-added
   squared window (samples where that is below 1e-11 are 0; torch raises),
   center trims n_fft/2 at the start; length from out (_new: length < 0 means
   n_fft + hop*(frames-1) - 2*pad; longer outputs are zero-padded). */
GKDEF gk_status gk_istft(gk_ctx *ctx, gk_tensor out, gk_tensor spec, gk_tensor window, int64_t n_fft, int64_t hop, int center);
GKDEF gk_status gk_istft_new(gk_ctx *ctx, gk_tensor spec, gk_tensor window, int64_t n_fft, int64_t hop, int center, int64_t length,
                             gk_tensor *out);
/* |z| and the phase atan2(im, re) of a complex tensor: z [..., 2] -> out [...]. */
GKDEF gk_status gk_complex_abs(gk_ctx *ctx, gk_tensor out, gk_tensor z);
GKDEF gk_status gk_complex_angle(gk_ctx *ctx, gk_tensor out, gk_tensor z);
GKDEF gk_status gk_complex_abs_new(gk_ctx *ctx, gk_tensor z, gk_tensor *out);
GKDEF gk_status gk_complex_angle_new(gk_ctx *ctx, gk_tensor z, gk_tensor *out);
/* torch.polar: out [..., 2] = mag * (cos phase, sin phase); mag, phase [...]. */
GKDEF gk_status gk_complex_polar(gk_ctx *ctx, gk_tensor out, gk_tensor mag, gk_tensor phase);
GKDEF gk_status gk_complex_polar_new(gk_ctx *ctx, gk_tensor mag, gk_tensor phase, gk_tensor *out);
/* Mel filter bank as HF transformers' audio_utils.mel_filter_bank (and
   librosa): out [n_mels, n_freqs] f32 (the transpose of HF's), triangles
   between n_mels+2 points equally spaced on the mel scale from fmin to fmax,
   over the frequencies linspace(0, floor(sample_rate/2), n_freqs).
   flags: GK_MEL_HTK (2595 log10(1 + f/700)) instead of the Slaney scale, and
   GK_MEL_NORM_SLANEY (each filter times 2 / (its upper - lower edge in Hz)).
   Computed on the host and uploaded synchronously: call it once, at setup. */
#define GK_MEL_HTK 1
#define GK_MEL_NORM_SLANEY 2
GKDEF gk_status gk_mel_filters(gk_ctx *ctx, gk_tensor out, double sample_rate, double fmin, double fmax, int flags);
GKDEF gk_status gk_mel_filters_new(gk_ctx *ctx, int64_t n_mels, int64_t n_fft, double sample_rate, double fmin, double fmax, int flags,
                                   gk_tensor *out);
/* Whisper log-mel features as HF WhisperFeatureExtractor (n_fft 400, hop
   160, periodic Hann, center + reflect): power spectrum, filters
   ([n_mels, 201] from gk_mel_filters(.., 16000, 0, 8000, GK_MEL_NORM_SLANEY)),
   log10(max(x, 1e-10)), clamp to (max over each signal) - 8, (x + 4) / 4; the
   last STFT frame is dropped. audio [L] or [B, L] -> out [(B,) n_mels, n_samples/160].
   n_samples: the signal is zero-padded or truncated to that length first
   (HF pads to 480000 = 30 s by default: pass 480000 to match it); <= 0 uses L. */
GKDEF gk_status gk_whisper_log_mel(gk_ctx *ctx, gk_tensor out, gk_tensor audio, gk_tensor filters, int64_t n_samples);
GKDEF gk_status gk_whisper_log_mel_new(gk_ctx *ctx, gk_tensor audio, gk_tensor filters, int64_t n_samples, gk_tensor *out);

/* end of >>api_ops_signal */

/* >>api_ops_matmul: matrix products (GEMM, GEMV for decode)
   out[b] = act(alpha * A[b] @ B[b] + beta * out[b] + bias) + residual[b]
   A is [.., M, K] and B [.., K, N], 2-d or 3-d (a leading batch dim; a 2-d
   operand is shared by every batch); each may be row-major or column-major
   (a transposed view, e.g. gk_view_transpose of a [N, K] weight), which is
   how the NN / NT / TN layouts are expressed. A and B have one dtype (f32,
   f64, f16, bf16); out is row-major with that dtype or f32. Accumulation is
   f32 (f64 for f64); f32 inputs use tensor cores (TF32) only with
   allow_tf32. The dispatcher (see gk__matmul_plan) picks the GEMV kernel for
   M <= 8 rows against a [N, K] weight, else cuBLASLt when loaded for
   f16/bf16/f32, else gpukit's own GEMM; backend forces one. gpukit's own
   GEMM is a tensor-core kernel for f16/bf16 (wgmma on compute capability
   9.0, mma.sync on other sm_80+ devices; and f32 with allow_tf32 on
   mma.sync) when A and B rows are 16-byte aligned; exact f32 runs on a
   CUDA-core kernel with 128x128 tiles under the same alignment rule; else
   the exact SIMT kernel. */
typedef enum gk_act { GK_ACT_NONE = 0, GK_ACT_GELU, GK_ACT_GELU_TANH, GK_ACT_SILU, GK_ACT_RELU } gk_act;
typedef enum gk_matmul_backend { GK_MATMUL_AUTO = 0, GK_MATMUL_GPUKIT, GK_MATMUL_CUBLASLT } gk_matmul_backend;
typedef struct gk_matmul_desc {
    double alpha;               /* 0 means 1 */
    double beta;                /* weight of out's previous contents (0: ignored) */
    gk_tensor bias;             /* [N], optional (id 0: none) */
    gk_act act;                 /* applied after the bias (GELU: erf form; GELU_TANH: tanh form) */
    gk_tensor residual;         /* shaped like out, added last, optional */
    int allow_tf32;             /* f32 inputs may run on tensor cores in TF32 */
    gk_matmul_backend backend;  /* AUTO, or force gpukit's kernels or cuBLASLt */
} gk_matmul_desc;
GKDEF gk_status gk_matmul(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b, const gk_matmul_desc *desc);
GKDEF gk_status gk_matmul_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_dtype out_dtype, const gk_matmul_desc *desc, gk_tensor *out);
/* PyTorch's Linear: out[.., N] = x[.., K] @ w[N, K]^T (+ desc's epilogue);
   x may have any number of leading dims (flattened into M). */
GKDEF gk_status gk_linear(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, const gk_matmul_desc *desc);
/* Gated linear unit from one weight (gate and up projections fused):
   w = [gate; up] is [2N, K], out is [.., N], and
   out = act(x @ gate^T + b[:N]) * (x @ up^T + b[N:]) (+ residual), with
   desc->act as the gate's activation (SILU: SwiGLU; GELU / GELU_TANH:
   GeGLU; NONE: bilinear) and alpha scaling both products; beta must be 0.
   Up to 8 rows (decode) it is one pass over w with nothing in memory (the
   GEMV kernel, or the CPU reference). More rows, or operands the GEMV cannot
   take, go through scratch: the product [rows, 2N] is written there (out's
   dtype, contiguous, as PyTorch rounds the two projections), then the GLU;
   scratch may be id 0 when it is not needed, and an error says so when it
   is. */
GKDEF gk_status gk_linear_glu(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor scratch, const gk_matmul_desc *desc);
/* >>api_ops_attention: attention (prefill, decode, GQA / MQA, cross) */
/* Attention, per head: out = softmax(q k^T * scale + mask) v.
   q [B, Sq, Hq, D], k and v [B, Skv, Hkv, D], out [B, Sq, Hq, D] (views
   allowed; the last dim contiguous); Hq a multiple of Hkv (GQA / MQA: q
   head h reads kv head h / (Hq / Hkv)); f32, f16, bf16; D up to 256. Causal:
   query i sees key j <= i + (kv_len - q_len) (aligned at the end, as for a
   KV cache). Cross-attention is Sq != Skv without causal. q_lens / kv_lens
   (i32 [B], optional) give per-sequence lengths inside padded batches; they
   are read on the device, so a captured graph sees the values at replay.
   Rows past q_len, and rows that see no key, are written as zeros.
   Kernels: on a compute capability 9.0 device, f16 / bf16 with D 64 or 128,
   no mask, no lengths and a positive scale run on the wgmma + TMA kernel
   (src/ops/attention/flash_wg.cu; GPUKIT_ATTN_WGMMA=0 in the environment turns it
   off); other 16-bit prefill on mma.sync (src/ops/attention/flash.cu). */
typedef struct gk_attention_desc {
    float scale;                /* 0: 1 / sqrt(D) */
    int causal;
    gk_tensor mask;             /* optional f32 [Sq, Skv] or [B, Sq, Skv], added to the scores (-inf hides) */
    gk_tensor q_lens;           /* optional i32 [B] */
    gk_tensor kv_lens;          /* optional i32 [B] */
} gk_attention_desc;
GKDEF gk_status gk_attention(gk_ctx *ctx, gk_tensor out, gk_tensor q, gk_tensor k, gk_tensor v, const gk_attention_desc *desc);
/* end of >>api_ops_matmul */

/* >>api_ops_llm: ops for the transformer runtime of gpukit_llm.h
   (declarations of this group go below this line) */
/* KV-cache write at positions read on the device: for every b, t, h,
   cache[b, start[b] + t, h, :] = x[b, t, h, :]. cache [B, S, H, D] and
   x [B, T, H, D] share one dtype (any; elements are copied bit for bit),
   any strides (views into a fused qkv buffer or a cache slot are fine);
   start is a contiguous i32 [B]. Rows whose target start[b] + t falls
   outside [0, S) are skipped (no status: the positions live on the device,
   so a captured graph reads the values current at replay). */
GKDEF gk_status gk_kv_write(gk_ctx *ctx, gk_tensor cache, gk_tensor x, gk_tensor start);
/* RoPE and KV-cache write of one decode token per sequence: x [B, Hq + 2 Hkv, D]
   holds the q heads, k heads and v heads of a fused projection (f32, f16 or
   bf16), cache [B, S, 2 Hkv, D] (k heads, then v heads) has x's dtype, pos is a
   contiguous i32 [B], cos_tab / sin_tab are gk_rope's tables. The same as
   gk_rope(x[:, :Hq + Hkv], positions pos, rotary_dim, GK_ROPE_NEOX) in place,
   then gk_kv_write(cache, x[:, Hq:] as [B, 1, 2 Hkv, D], start pos); on CUDA one
   kernel (launched with programmatic dependent launch) when the heads of x
   are contiguous, the cache rows have unit stride and the tables have x's
   dtype, else those two ops. */
GKDEF gk_status gk_rope_kv_write(gk_ctx *ctx, gk_tensor x, gk_tensor cache, gk_tensor pos, gk_tensor cos_tab, gk_tensor sin_tab, int rotary_dim,
                                 int64_t q_heads);
/* gk_rms_norm(out, x, weight, eps) for the few rows of a decode step: on CUDA,
   with x and out contiguous [R, D], weight [D] of their dtype (f32, f16,
   bf16), 16-byte aligned and D <= 1024 vectors of 16 bytes, one kernel launched
   with programmatic dependent launch (its weight loads overlap the previous
   kernel's tail); otherwise, and on the CPU, gk_rms_norm itself. */
GKDEF gk_status gk_decode_rms_norm(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor weight, double eps);
/* end of >>api_ops_llm */

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
#include <sys/time.h>
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
/* The text of GetLastError after a failed LoadLibrary ("The specified module
   could not be found. (error 126)"). */
static const char *gk__dlerror(char *buf, size_t n) {
    DWORD e = GetLastError();
    char msg[256];
    DWORD k = FormatMessageA(FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS, NULL, e, 0, msg, (DWORD)sizeof msg, NULL);
    while (k > 0 && (msg[k - 1] == '\n' || msg[k - 1] == '\r' || msg[k - 1] == ' ' || msg[k - 1] == '.')) k--;
    msg[k < sizeof msg ? k : sizeof msg - 1] = 0;
    snprintf(buf, n, "%s%s(error %lu)", msg, k ? ". " : "", (unsigned long)e);
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
/* Condition variables and threads, for the runtime services' own threads
   (the scheduler's workers, the transfer engine). */
typedef CONDITION_VARIABLE gk__cond;
static void gk__cond_init(gk__cond *c) { InitializeConditionVariable(c); }
static void gk__cond_destroy(gk__cond *c) { GK__UNUSED(c); }
GK__MAYBE_UNUSED static void gk__cond_wait(gk__cond *c, gk__mutex *m) { SleepConditionVariableCS(c, m, INFINITE); }
/* waits at most ms milliseconds (spurious wakeups possible: callers loop) */
static void gk__cond_timedwait(gk__cond *c, gk__mutex *m, double ms) {
    SleepConditionVariableCS(c, m, ms <= 0 ? 0 : (DWORD)(ms + 0.999));
}
GK__MAYBE_UNUSED static void gk__cond_signal(gk__cond *c) { WakeConditionVariable(c); }
static void gk__cond_broadcast(gk__cond *c) { WakeAllConditionVariable(c); }
typedef HANDLE gk__thread;
typedef struct gk__thread_start_t { void (*fn)(void *); void *arg; } gk__thread_start_t;
static unsigned __stdcall gk__thread_tramp(void *p) {
    gk__thread_start_t t = *(gk__thread_start_t *)p;
    GPUKIT_FREE(p);
    t.fn(t.arg);
    return 0;
}
/* 0 on success */
static int gk__thread_create(gk__thread *t, void (*fn)(void *), void *arg) {
    gk__thread_start_t *st = (gk__thread_start_t *)GPUKIT_MALLOC(sizeof *st);
    uintptr_t h;
    if (!st) return -1;
    st->fn = fn;
    st->arg = arg;
    h = _beginthreadex(NULL, 0, gk__thread_tramp, st, 0, NULL);
    if (!h) { GPUKIT_FREE(st); return -1; }
    *t = (HANDLE)h;
    return 0;
}
static void gk__thread_join(gk__thread t) { WaitForSingleObject(t, INFINITE); CloseHandle(t); }
GK__MAYBE_UNUSED static void gk__sleep_ms(double ms) { Sleep(ms <= 0 ? 0 : (DWORD)ms); }
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
#else /* a strict C build hides clock_gettime: the wall clock, in microseconds */
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec * 1000.0 + (double)tv.tv_usec / 1000.0;
#endif
}
static int gk__mkdir1(const char *p) { return mkdir(p, 0755) == 0 || errno == EEXIST ? 0 : -1; }
static int gk__rename_replace(const char *a, const char *b) { return rename(a, b); }
static unsigned long gk__pid(void) { return (unsigned long)getpid(); }
static size_t gk__host_ram(void) {
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGE_SIZE);
    return (pages > 0 && psize > 0) ? (size_t)pages * (size_t)psize : (size_t)8 << 30;
}
/* Condition variables and threads, for the runtime services' own threads
   (the scheduler's workers, the transfer engine). */
typedef pthread_cond_t gk__cond;
static void gk__cond_init(gk__cond *c) { pthread_cond_init(c, NULL); }
static void gk__cond_destroy(gk__cond *c) { pthread_cond_destroy(c); }
GK__MAYBE_UNUSED static void gk__cond_wait(gk__cond *c, gk__mutex *m) { pthread_cond_wait(c, m); }
/* waits at most ms milliseconds (spurious wakeups possible: callers loop) */
static void gk__cond_timedwait(gk__cond *c, gk__mutex *m, double ms) {
    struct timespec ts;
    struct timeval tv;
    long long ns;
    gettimeofday(&tv, NULL); /* pthread_cond_timedwait's clock: CLOCK_REALTIME */
    if (ms < 0) ms = 0;
    ns = (long long)tv.tv_usec * 1000LL + (long long)(ms * 1e6);
    ts.tv_sec = tv.tv_sec + (time_t)(ns / 1000000000LL);
    ts.tv_nsec = (long)(ns % 1000000000LL);
    pthread_cond_timedwait(c, m, &ts);
}
GK__MAYBE_UNUSED static void gk__cond_signal(gk__cond *c) { pthread_cond_signal(c); }
static void gk__cond_broadcast(gk__cond *c) { pthread_cond_broadcast(c); }
typedef pthread_t gk__thread;
typedef struct gk__thread_start_t { void (*fn)(void *); void *arg; } gk__thread_start_t;
static void *gk__thread_tramp(void *p) {
    gk__thread_start_t t = *(gk__thread_start_t *)p;
    GPUKIT_FREE(p);
    t.fn(t.arg);
    return NULL;
}
/* 0 on success */
static int gk__thread_create(gk__thread *t, void (*fn)(void *), void *arg) {
    gk__thread_start_t *st = (gk__thread_start_t *)GPUKIT_MALLOC(sizeof *st);
    if (!st) return -1;
    st->fn = fn;
    st->arg = arg;
    if (pthread_create(t, NULL, gk__thread_tramp, st) != 0) { GPUKIT_FREE(st); return -1; }
    return 0;
}
static void gk__thread_join(gk__thread t) { pthread_join(t, NULL); }
GK__MAYBE_UNUSED static void gk__sleep_ms(double ms) {
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    double end = gk__now_ms() + ms;
    pthread_mutex_lock(&m);
    while (gk__now_ms() < end) gk__cond_timedwait(&c, &m, end - gk__now_ms());
    pthread_mutex_unlock(&m);
}
#define GK__PATH_SEP '/'
#endif

/* A process-wide counter: returns the incremented value, atomically (many
   threads may call it at once; it never returns the same value twice). */
static uint64_t gk__atomic_inc64(volatile uint64_t *p) {
#if defined(_MSC_VER) && !defined(__clang__)
    return (uint64_t)InterlockedIncrement64((volatile LONG64 *)p);
#elif defined(__GNUC__) || defined(__clang__)
    return __atomic_add_fetch(p, 1, __ATOMIC_RELAXED);
#elif defined(_WIN32)
    return (uint64_t)InterlockedIncrement64((volatile LONG64 *)p);
#else /* a compiler without known atomics: contexts must then be created one thread at a time */
    return ++*p;
#endif
}

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
/* cuLaunchKernelEx's configuration and attribute (CUlaunchConfig / CUlaunchAttribute layouts) */
enum { GK__CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION = 6 };
typedef struct gk__cu_launch_attr { int id; char pad[4]; union { char pad[64]; int i; } val; } gk__cu_launch_attr;
typedef struct gk__cu_launch_config {
    unsigned gx, gy, gz, bx, by, bz, smem;
    struct gk__cu_stream_st *stream;
    gk__cu_launch_attr *attrs;
    unsigned nattrs;
} gk__cu_launch_config;
/* TMA tensor maps (cuTensorMapEncodeTiled; the sm_90a GEMM, src/ops/matmul/gemm_wg.cu):
   an opaque 128-byte object that must be 64-byte aligned (gk__wg_launch
   aligns its buffer by hand: C99 has no alignas) */
typedef struct gk__cu_tensormap { uint64_t opaque[16]; } gk__cu_tensormap;
enum { GK__CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6, GK__CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7, GK__CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9 };
enum { GK__CU_TENSOR_MAP_INTERLEAVE_NONE = 0, GK__CU_TENSOR_MAP_SWIZZLE_128B = 3, GK__CU_TENSOR_MAP_L2_PROMOTION_L2_256B = 3,
       GK__CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0 };
enum { GK__CU_STREAM_NON_BLOCKING = 1 };
enum { GK__CU_EVENT_DEFAULT = 0, GK__CU_EVENT_DISABLE_TIMING = 2 };
enum { GK__CU_EVENT_BLOCKING_SYNC = 1 };
/* cuPointerGetAttribute: the memory type of a host pointer (pinned host memory
   is CU_MEMORYTYPE_HOST; pageable memory is an error) and its allocation's range */
enum { GK__CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2, GK__CU_POINTER_ATTRIBUTE_IS_MANAGED = 8, GK__CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
       GK__CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11, GK__CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12, GK__CU_MEMORYTYPE_HOST = 1,
       GK__CU_MEMORYTYPE_DEVICE = 2, GK__CU_MEMORYTYPE_UNIFIED = 4 };
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
    X(gk__cu_result, cuMemHostGetFlags, MemHostGetFlags, (unsigned *flags, void *p), 0)           \
    X(gk__cu_result, cuPointerGetAttribute, PointerGetAttribute, (void *data, int attr, gk__cu_ptr p), 0) \
    X(gk__cu_result, cuMemcpyHtoD_v2, MemcpyHtoD, (gk__cu_ptr d, const void *s, size_t n), 1)    \
    X(gk__cu_result, cuMemcpyDtoH_v2, MemcpyDtoH, (void *d, gk__cu_ptr s, size_t n), 1)          \
    X(gk__cu_result, cuMemcpyHtoDAsync_v2, MemcpyHtoDAsync, (gk__cu_ptr d, const void *s, size_t n, gk__cu_stream st), 1) \
    X(gk__cu_result, cuMemcpyDtoHAsync_v2, MemcpyDtoHAsync, (void *d, gk__cu_ptr s, size_t n, gk__cu_stream st), 1) \
    X(gk__cu_result, cuMemcpyDtoDAsync_v2, MemcpyDtoDAsync, (gk__cu_ptr d, gk__cu_ptr s, size_t n, gk__cu_stream st), 1) \
    X(gk__cu_result, cuMemsetD8Async, MemsetD8Async, (gk__cu_ptr d, unsigned char v, size_t n, gk__cu_stream st), 1) \
    X(gk__cu_result, cuMemsetD32Async, MemsetD32Async, (gk__cu_ptr d, unsigned v, size_t n, gk__cu_stream st), 1) \
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
    X(gk__cu_result, cuTensorMapEncodeTiled, TensorMapEncodeTiled, (gk__cu_tensormap * m, int dtype, unsigned rank, void *addr, const uint64_t *dims, const uint64_t *strides, const unsigned *box, const unsigned *estrides, int interleave, int swizzle, int l2promo, int oobfill), 0) \
    X(gk__cu_result, cuLaunchKernel, LaunchKernel, (gk__cu_function f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz, unsigned smem, gk__cu_stream s, void **params, void **extra), 1) \
    X(gk__cu_result, cuLaunchKernelEx, LaunchKernelEx, (const gk__cu_launch_config *c, gk__cu_function f, void **params, void **extra), 0) \
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
typedef struct gk__lt_desc_st *gk__lt_desc;
typedef struct gk__lt_layout_st *gk__lt_layout;
typedef struct gk__lt_pref_st *gk__lt_pref;
typedef struct gk__lt_algo { uint64_t data[8]; } gk__lt_algo;
typedef struct gk__lt_heur {
    gk__lt_algo algo;
    size_t workspace_size;
    gk__cublas_status state;
    float waves;
    int reserved[4];
} gk__lt_heur;
enum {
    GK__CUDA_R_32F = 0, GK__CUDA_R_64F = 1, GK__CUDA_R_16F = 2, GK__CUDA_R_16BF = 14,
    GK__CUBLAS_COMPUTE_32F = 68, GK__CUBLAS_COMPUTE_64F = 70, GK__CUBLAS_COMPUTE_32F_FAST_TF32 = 77,
    GK__CUBLAS_OP_N = 0, GK__CUBLAS_OP_T = 1,
    GK__LT_DESC_COMPUTE_TYPE = 0, GK__LT_DESC_SCALE_TYPE = 1, GK__LT_DESC_TRANSA = 3, GK__LT_DESC_TRANSB = 4,
    GK__LT_DESC_EPILOGUE = 7, GK__LT_DESC_BIAS_POINTER = 8, GK__LT_DESC_BIAS_DATA_TYPE = 26,
    GK__LT_LAYOUT_BATCH_COUNT = 5, GK__LT_LAYOUT_STRIDED_BATCH_OFFSET = 6,
    GK__LT_PREF_MAX_WORKSPACE_BYTES = 1,
    GK__LT_EPILOGUE_DEFAULT = 1, GK__LT_EPILOGUE_BIAS = 4, GK__LT_EPILOGUE_GELU = 32, GK__LT_EPILOGUE_GELU_BIAS = 36
};
#define GK__CUBLASLT_FUNCS(X)                                                                    \
    X(size_t, cublasLtGetVersion, GetVersion, (void), 1)                                        \
    X(gk__cublas_status, cublasLtCreate, Create, (gk__cublaslt_handle * h), 1)                  \
    X(gk__cublas_status, cublasLtDestroy, Destroy, (gk__cublaslt_handle h), 1)                  \
    X(gk__cublas_status, cublasLtMatmulDescCreate, DescCreate, (gk__lt_desc * d, int compute, int scale), 1) \
    X(gk__cublas_status, cublasLtMatmulDescDestroy, DescDestroy, (gk__lt_desc d), 1)             \
    X(gk__cublas_status, cublasLtMatmulDescSetAttribute, DescSet, (gk__lt_desc d, int attr, const void *v, size_t n), 1) \
    X(gk__cublas_status, cublasLtMatrixLayoutCreate, LayoutCreate, (gk__lt_layout * l, int type, uint64_t rows, uint64_t cols, int64_t ld), 1) \
    X(gk__cublas_status, cublasLtMatrixLayoutDestroy, LayoutDestroy, (gk__lt_layout l), 1)       \
    X(gk__cublas_status, cublasLtMatrixLayoutSetAttribute, LayoutSet, (gk__lt_layout l, int attr, const void *v, size_t n), 1) \
    X(gk__cublas_status, cublasLtMatmulPreferenceCreate, PrefCreate, (gk__lt_pref * p), 1)       \
    X(gk__cublas_status, cublasLtMatmulPreferenceDestroy, PrefDestroy, (gk__lt_pref p), 1)       \
    X(gk__cublas_status, cublasLtMatmulPreferenceSetAttribute, PrefSet, (gk__lt_pref p, int attr, const void *v, size_t n), 1) \
    X(gk__cublas_status, cublasLtMatmulAlgoGetHeuristic, AlgoGetHeuristic, (gk__cublaslt_handle h, gk__lt_desc d, gk__lt_layout a, gk__lt_layout b, gk__lt_layout c, gk__lt_layout dd, gk__lt_pref p, int want, gk__lt_heur *res, int *got), 1) \
    X(gk__cublas_status, cublasLtMatmul, Matmul, (gk__cublaslt_handle h, gk__lt_desc d, const void *alpha, const void *a, gk__lt_layout la, const void *b, gk__lt_layout lb, const void *beta, const void *c, gk__lt_layout lc, void *dd, gk__lt_layout ld, const gk__lt_algo *algo, void *ws, size_t wsn, gk__cu_stream s), 1)

#define GK__FN_FIELD(ret, sym, field, params, req) ret(GK__CUDAAPI *field) params;
typedef struct gk__cu_api { GK__CU_FUNCS(GK__FN_FIELD) } gk__cu_api;
typedef struct gk__nvrtc_api { GK__NVRTC_FUNCS(GK__FN_FIELD) } gk__nvrtc_api;
typedef struct gk__cublaslt_api { GK__CUBLASLT_FUNCS(GK__FN_FIELD) } gk__cublaslt_api;
#undef GK__FN_FIELD

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
/* ------------------------------------------------------------------------ */
/* >>errors
   Error text is per thread: gk_last_error(NULL) is the calling thread's last
   error outside any context, gk_last_error(ctx) its last error on ctx. The
   texts of contexts are a small thread-local table keyed by the context's
   serial (never reused, so an entry of a destroyed context matches no other
   context); the least recently written entry is reused when the table is
   full (16 KiB of thread-local storage a thread). Only the owning thread
   writes an entry, so the text gk_last_error returns stays as it is until
   that thread's next error. */
static GK__TLS char gk__tls_err[GK__ERRBUF];
#define GK__TLS_CTX_ERRS 4
typedef struct gk__ctx_err {
    uint64_t serial;            /* the context's; 0: free */
    uint64_t used;              /* gk__tls_err_clock at the last write */
    char text[GK__ERRBUF];
} gk__ctx_err;
static GK__TLS gk__ctx_err gk__tls_ctx_errs[GK__TLS_CTX_ERRS];
static GK__TLS uint64_t gk__tls_err_clock;

static gk__ctx_err *gk__ctx_err_find(const gk_ctx *ctx) {
    int i;
    for (i = 0; i < GK__TLS_CTX_ERRS; i++)
        if (gk__tls_ctx_errs[i].serial == ctx->serial) return &gk__tls_ctx_errs[i];
    return NULL;
}
/* The calling thread's error buffer for ctx, taking a table entry if needed. */
static char *gk__errbuf(gk_ctx *ctx) {
    gk__ctx_err *e = gk__ctx_err_find(ctx);
    int i;
    if (!e) {
        e = &gk__tls_ctx_errs[0];
        for (i = 0; i < GK__TLS_CTX_ERRS; i++) {
            if (gk__tls_ctx_errs[i].serial == 0) { e = &gk__tls_ctx_errs[i]; break; }
            if (gk__tls_ctx_errs[i].used < e->used) e = &gk__tls_ctx_errs[i];
        }
        e->serial = ctx->serial;
        e->text[0] = 0;
    }
    e->used = ++gk__tls_err_clock;
    return e->text;
}
/* Keeps the calling thread's error text of ctx around a call that may
   overwrite it (a lookup that is allowed to fail, a clean-up). */
static void gk__err_save(gk_ctx *ctx, char *save) {
    const gk__ctx_err *e = gk__ctx_err_find(ctx);
    size_t n = e ? strlen(e->text) + 1 : 1;
    memcpy(save, e ? e->text : "", n);
}
static void gk__err_restore(gk_ctx *ctx, const char *save) {
    gk__ctx_err *e = gk__ctx_err_find(ctx);
    if (save[0]) memcpy(e ? e->text : gk__errbuf(ctx), save, strlen(save) + 1);
    else if (e) { e->serial = 0; e->text[0] = 0; } /* no text: no entry (it would push out another context's) */
}
/* The calling thread forgets ctx's entry (ctx is being destroyed). */
static void gk__err_forget(gk_ctx *ctx) {
    gk__ctx_err *e = gk__ctx_err_find(ctx);
    if (e) { e->serial = 0; e->text[0] = 0; }
}

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
GKDEF const char *gk_last_error(gk_ctx *ctx) {
    const gk__ctx_err *e;
    if (!ctx) return gk__tls_err;
    e = gk__ctx_err_find(ctx);
    return e ? e->text : "";
}
GKDEF void gk_error_clear(gk_ctx *ctx) {
    gk__ctx_err *e;
    if (!ctx) gk__tls_err[0] = 0;
    else if ((e = gk__ctx_err_find(ctx)) != NULL) e->text[0] = 0;
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
    else fprintf(stderr, "gpukit %s: %s\n", lvl == GK_LOG_ERROR ? "error" : lvl == GK_LOG_WARN ? "warning" : lvl == GK_LOG_INFO ? "info" : "debug", buf);
}

static gk_status gk__verr(gk_ctx *ctx, gk_status st, const char *fmt, va_list ap) {
    char *buf = ctx ? gk__errbuf(ctx) : gk__tls_err;
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
    gk__log(ctx, GK_LOG_DEBUG, "%s: %s", gk_status_name(st), gk_last_error(ctx));
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
/* 2^e as a double, built from its bits: valid for -1022 <= e <= 1023, which
   covers every format here (ebits <= 8). Multiplying by it is exact, as
   ldexp is, and costs a few instructions instead of a libm call (the CPU
   backend converts every fp8 load through here). */
static double gk__pow2(int e) {
    uint64_t u = (uint64_t)(e + 1023) << 52;
    double d;
    memcpy(&d, &u, 8);
    return d;
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
    } else if (ex == 0) v = (double)man * gk__pow2(1 - bias - f.mbits);
    else v = (double)(man | (1u << f.mbits)) * gk__pow2(ex - bias - f.mbits);
    return sign ? -v : v;
}

GKDEF uint16_t gk_f32_to_f16(float x) { return (uint16_t)gk__f64_to_fmt((double)x, gk__fmt_f16); }
GKDEF float gk_f16_to_f32(uint16_t h) { /* exact, by bits: normals rebias the exponent, subnormals are man * 2^-24 */
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, ex = (h >> 10) & 0x1Fu, man = h & 0x3FFu, u;
    float f;
    if (ex == 0) { f = (float)man * (1.0f / 16777216.0f); return sign ? -f : f; }
    u = sign | (ex == 0x1Fu ? 0x7F800000u | (man << 13) : ((ex + 112u) << 23) | (man << 13));
    memcpy(&f, &u, 4);
    return f;
}
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
    case GK_F16: { uint16_t v; memcpy(&v, p, 2); s.f = gk_f16_to_f32(v); break; }
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
GK__MAYBE_UNUSED static int gk__resolve_cu(gk__lib lib, gk__cu_api *api, char *missing, size_t nmissing) {
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

/* Opens the first library that loads: explicit path (gk_ctx_desc.<field>),
   then $env, then each name as is (the dynamic linker's search), then in the
   usual CUDA folders. On failure `why` says what was tried and the loader's
   reason (dlerror / GetLastError's text), and *asked is 1 when the path came
   from the desc or the environment (a failure the user should see). */
static gk__lib gk__open_lib(const char *explicit_path, const char *field, const char *env, const char *const *names,
                            char *why, size_t nwhy, int *asked) {
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
    *asked = 0;
    if (p && *p) {
        l = gk__dlopen(p);
        *asked = 1;
        if (!l && explicit_path) snprintf(why, nwhy, "gk_ctx_desc.%s \"%s\" cannot be loaded: %s", field, p, gk__dlerror(err, sizeof err));
        else if (!l) snprintf(why, nwhy, "%s=%s cannot be loaded: %s", env, p, gk__dlerror(err, sizeof err));
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
    int maj = 0, min = 0, n = 0, asked = 0;
    gk__lib l;
#ifdef GPUKIT_NO_CUDA /* as documented: no library is opened */
    snprintf(ctx->nvrtc_why, sizeof ctx->nvrtc_why, "gpukit was built with GPUKIT_NO_CUDA");
    gk__log(ctx, GK_LOG_INFO, "NVRTC not loaded: gpukit was built with GPUKIT_NO_CUDA");
    return;
#endif
    l = gk__open_lib(ctx->desc.nvrtc_lib, "nvrtc_lib", "GPUKIT_NVRTC_LIB", gk__nvrtc_names, why, sizeof why, &asked);
    if (!l) {
        snprintf(ctx->nvrtc_why, sizeof ctx->nvrtc_why, "%.500s", why);
        gk__log(ctx, ctx->backend == GK_BACKEND_CUDA || asked ? GK_LOG_WARN : GK_LOG_INFO,
                "NVRTC not found: GPU kernels unavailable unless already in the kernel cache (%s)", why);
        return;
    }
    if (!gk__resolve_nvrtc(l, &ctx->nvrtc, missing, sizeof missing)) {
        snprintf(ctx->nvrtc_why, sizeof ctx->nvrtc_why, "the NVRTC library lacks %s", missing);
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
    int asked = 0;
    gk__lib l;
    if (ctx->desc.disable_cublaslt) return;
    l = gk__open_lib(ctx->desc.cublaslt_lib, "cublaslt_lib", "GPUKIT_CUBLASLT_LIB", gk__cublaslt_names, why, sizeof why, &asked);
    if (!l) { gk__log(ctx, asked ? GK_LOG_WARN : GK_LOG_INFO, "cuBLASLt not found: using gpukit's own GEMM (%s)", why); return; }
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

/* Brings up the CUDA backend, or returns a status and message saying why not;
   *normal is 1 when there is simply no driver on the machine (none found
   where it is looked for, no path asked for), 2 under GPUKIT_NO_CUDA. */
static gk_status gk__cuda_init(gk_ctx *ctx, int *normal) {
#ifdef GPUKIT_NO_CUDA
    *normal = 2;
    return gk__err(ctx, GK_ERR_NO_DRIVER, "CUDA driver not used: gpukit was built with GPUKIT_NO_CUDA");
#else
    char why[1200], missing[128];
    gk__cu_result r;
    int n = 0, v, asked = 0;
    size_t total = 0;
    gk__lib l = gk__open_lib(ctx->desc.cuda_lib, "cuda_lib", "GPUKIT_CUDA_LIB", gk__cuda_names, why, sizeof why, &asked);
    *normal = 0;
    if (!l) {
        *normal = !asked;
        return gk__err(ctx, GK_ERR_NO_DRIVER, "CUDA driver not found (%s)", why);
    }
    if (!gk__resolve_cu(l, &ctx->cu, missing, sizeof missing)) {
        gk__dlclose(l);
        memset(&ctx->cu, 0, sizeof ctx->cu);
        return gk__err(ctx, GK_ERR_NO_DRIVER, "CUDA driver too old: it lacks %s", missing);
    }
    ctx->cu_lib = l;
    r = ctx->cu.Init(0);
    if (r == GK__CUDA_ERROR_STUB_LIBRARY) {
        /* unload it: its SONAME is libcuda.so.1, so while loaded it would
           also answer later lookups of the real driver */
        gk__dlclose(l);
        ctx->cu_lib = NULL;
        memset(&ctx->cu, 0, sizeof ctx->cu);
        return gk__err(ctx, GK_ERR_NO_DRIVER,
                       "the CUDA driver library found is the toolkit's stub (CUDA_ERROR_STUB_LIBRARY): no NVIDIA driver is installed");
    }
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
    /* (bounded so that the compiler sees it fits: compute capabilities are small) */
    snprintf(ctx->info.arch, sizeof ctx->info.arch, "sm_%u%u", (unsigned)ctx->info.cc_major & 255u, (unsigned)ctx->info.cc_minor & 255u);
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

/* ------------------------------------------------------------------------ */
/* >>context
   Process-wide mutable state: everything else lives in a context (or is the
   calling thread's: gk__tls_err, gk__tls_ctx_errs, gk__tls_thread,
   gk__tls_bound), and the environment is read when a context is created.
   What remains, and why it is safe:
   - gk__ctx_serial and gk__thread_serial: counters that number contexts and
     threads; incremented atomically (gk__atomic_inc64), never reused, 2^64
     values.
   - The libraries gpukit opens (driver, NVRTC, cuBLASLt) stay loaded for the
     process (gk__unload_libs says why); dlopen / LoadLibrary count and lock
     themselves, and each context resolves its own function tables.
   - Constant tables only otherwise (kernel sources, dtype and status names). */
static volatile uint64_t gk__ctx_serial;

/* Whether the environment switch `name` is on: on unless it is "0". Read by
   gk_ctx_create only; the context keeps the answer. */
static int gk__env_on(const char *name) {
    const char *e = getenv(name);
    return !(e && strcmp(e, "0") == 0);
}
static int gk__streq_nocase(const char *a, const char *b) {
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        if (x != *b) return 0;
    }
    return *a == *b;
}

/* The tuning knobs' defaults (gk__tuning): the dispatchers' own rules; the
   counters and the knobs not set here start at 0 (the context is calloc'd). */
static void gk__tune_init(gk__tuning *t) {
    t->dec_variant = -1;
    t->dec4t_from = 4096; /* gk_attn_dec4t from 4096 keys of cache on 9.0+ (gk_attention's decode) */
    t->dec4t_pad = 1;
    t->dec3_per_sm = 2;   /* the gk_attn_dec3 blocks resident a SM */
    t->dec3_one_split = 256;
    t->combine_one_round = 1;
    t->dec_prefetch = -1;
    t->dec_fold = 1;
    t->fwg_mode = -1;
    t->gemv_force_cfg = -1;
    t->gemv_smalln = 1;
    t->wg_mode = -1;
    t->sg_variant = -1;
    t->sg_last = -1;
    t->sg_mode = -1;
    t->ln_variant = -1;
    t->ln_last = -1;
}
/* The context's tuning knobs and launch counters, for tests and benchmarks
   (which include the implementation): set a knob or read a counter between
   calls, from the thread that makes them. */
GK__MAYBE_UNUSED static gk__tuning *gk__tune(gk_ctx *ctx) { return &ctx->tune; }

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
    ctx->backend = ctx->desc.backend;
    if ((env = getenv("GPUKIT_BACKEND")) && *env) { /* checked even when desc.backend decides: a typo is never ignored */
        gk_backend eb = GK_BACKEND_AUTO;
        if (gk__streq_nocase(env, "cpu")) eb = GK_BACKEND_CPU;
        else if (gk__streq_nocase(env, "cuda")) eb = GK_BACKEND_CUDA;
        else if (!gk__streq_nocase(env, "auto")) {
            GPUKIT_FREE(ctx);
            return gk__err(NULL, GK_ERR_INVALID_ARGUMENT,
                           "gk_ctx_create: environment variable GPUKIT_BACKEND is \"%.100s\"; accepted values: cpu, cuda, auto (or unset)", env);
        }
        if (ctx->backend == GK_BACKEND_AUTO) ctx->backend = eb;
    }
    ctx->serial = gk__atomic_inc64(&gk__ctx_serial);
    gk__mutex_init(&ctx->mu);
    gk__cond_init(&ctx->pace_cv);
    gk__tune_init(&ctx->tune);
    /* the environment's switches, read once (GPUKIT_GEMM_WGMMA / GPUKIT_ATTN_WGMMA "0": those kernels never run) */
    ctx->tune.pdl = gk__env_on("GPUKIT_PDL");
    if (!gk__env_on("GPUKIT_GEMM_WGMMA")) ctx->tune.wg_mode = 0;
    if (!gk__env_on("GPUKIT_ATTN_WGMMA")) ctx->tune.fwg_mode = 0;
    ctx->cur_stream = &ctx->default_stream;
    if (ctx->backend != GK_BACKEND_CPU) {
        int normal = 0; /* no driver on this machine (or none wanted): the CPU backend is no surprise */
        st = gk__cuda_init(ctx, &normal);
        if (st != GK_OK) {
            if (ctx->backend == GK_BACKEND_CUDA) {
                gk__err(NULL, st, "gk_ctx_create: %s", gk_last_error(ctx));
                gk__err_forget(ctx);
                gk__unload_libs(ctx);
                gk__mutex_destroy(&ctx->mu);
                GPUKIT_FREE(ctx);
                return st;
            }
            if (normal) {
                gk__log(ctx, GK_LOG_INFO, "%s: using the CPU backend", normal == 2 ? "built with GPUKIT_NO_CUDA" : "no NVIDIA driver found");
                gk__log(ctx, GK_LOG_DEBUG, "%s", gk_last_error(ctx));
            } else
                gk__log(ctx, GK_LOG_WARN, "%s; using the CPU backend", gk_last_error(ctx));
            gk__unload_libs(ctx);
            memset(&ctx->cu, 0, sizeof ctx->cu);
            memset(&ctx->info, 0, sizeof ctx->info);
            gk__err_forget(ctx);
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
static gk_status gk__stream_wait_unlocked(gk_ctx *ctx, gk_stream *s, const char *where);
GKDEF gk_status gk_sync(gk_ctx *ctx) {
    gk_status st = GK_OK;
    if (!ctx) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "gk_sync: ctx is NULL");
    gk__enter(ctx);
    if (ctx->backend != GK_BACKEND_CUDA || (st = gk__bind(ctx)) != GK_OK) st = GK_OK;
    else {
        /* every stream, waited on with the lock released (gk__stream_wait_unlocked) */
        gk_stream *s, **all, *few[16];
        int n = 1, i;
        for (s = ctx->streams; s; s = s->next) n++;
        all = n <= 16 ? few : GK__ALLOC(gk_stream *, n); /* no allocation for the usual few streams */
        if (!all) st = gk__sync_locked(ctx, "gk_sync");
        else {
            all[0] = &ctx->default_stream;
            for (i = 1, s = ctx->streams; s; s = s->next) all[i++] = s;
            for (i = 0; i < n; i++) all[i]->waiters++;
            for (i = 0; i < n; i++) {
                gk_status si = all[i]->dead ? GK_OK : gk__stream_wait_unlocked(ctx, all[i], "gk_sync");
                if (st == GK_OK) st = si;
            }
            for (i = 0; i < n; i++)
                if (--all[i]->waiters == 0 && all[i]->dead) gk__stream_free_struct(ctx, all[i]);
            if (all != few) GPUKIT_FREE(all);
        }
    }
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
/* id: the slot index + 1 (low 32 bits) and the slot's generation (high 32
   bits, never 0); owner: the context's serial. */
static gk_tensor gk__handle(gk_ctx *ctx, uint32_t idx) {
    gk_tensor t;
    gk__slot *s = gk__slot_at(ctx, idx);
    t.id = ((uint64_t)s->gen << 32) | (uint64_t)(idx + 1);
    t.owner = ctx->serial;
    return t;
}
static void gk__slot_release(gk_ctx *ctx, uint32_t idx) {
    gk__slot *s = gk__slot_at(ctx, idx);
    s->live = 0;
    s->gen++;
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
    if (t.owner != ctx->serial)
        return gk__err(ctx, GK_ERR_INVALID_HANDLE, "%s: %s is not a tensor of this context (it belongs to context #%llu, this is #%llu)",
                       where, what, (unsigned long long)t.owner, (unsigned long long)ctx->serial);
    if (idx == 0 || idx > ctx->nslots || hi == 0)
        return gk__err(ctx, GK_ERR_INVALID_HANDLE, "%s: %s is not a tensor of this context (no such handle)", where, what);
    s = gk__slot_at(ctx, idx - 1);
    if (!s->live || s->gen != hi)
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
    gk__enter(ctx)

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

/* gk_tensor_wrap's layout: strides (NULL: contiguous) checked and copied to
   st, *span = the bytes from the first element to past the last. Dims of size
   1 take stride 0; the others need strides >= 0 where each, in increasing
   order, passes the extent of the smaller ones (no element shares memory). */
static gk_status gk__wrap_layout(gk_ctx *ctx, gk_dtype dt, int ndim, const int64_t *shape, const int64_t *strides, int64_t *st,
                                 int64_t numel, size_t *span, const char *W) {
    int order[GK_MAX_DIMS], n = 0, i, j;
    int64_t reach = 0; /* elements past the first that the dims seen so far reach */
    if (!strides) gk__contig_strides(ndim, shape, st);
    for (i = 0; i < ndim; i++) {
        if (!strides) continue;
        if (shape[i] <= 1) { st[i] = 0; continue; }
        if (strides[i] < 0)
            return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: strides[%d] = %lld is negative (reversed layouts are not supported: copy the data first)", W, i,
                           (long long)strides[i]);
        if (strides[i] > ((int64_t)1 << 56) / (shape[i] - 1))
            return gk__err(ctx, GK_ERR_OVERFLOW, "%s: strides[%d] = %lld over %lld elements reaches past 2^56 elements", W, i, (long long)strides[i],
                           (long long)shape[i]);
        st[i] = strides[i];
    }
    for (i = 0; i < ndim; i++) /* the dims of size > 1, by increasing stride */
        if (shape[i] > 1) {
            for (j = n; j > 0 && st[order[j - 1]] > st[i]; j--) order[j] = order[j - 1];
            order[j] = i;
            n++;
        }
    for (j = 0; j < n; j++) {
        int d = order[j];
        if (st[d] <= reach)
            return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: strides[%d] = %lld makes elements overlap (dim %d of size %lld needs a stride above %lld)", W, d,
                           (long long)st[d], d, (long long)shape[d], (long long)reach);
        reach += (shape[d] - 1) * st[d];
    }
    if ((uint64_t)(reach + 1) > (uint64_t)SIZE_MAX / gk__dtype_sizes[dt])
        return gk__err(ctx, GK_ERR_OVERFLOW, "%s: the strides reach %lld elements, past size_t", W, (long long)(reach + 1));
    *span = numel > 0 ? (size_t)(reach + 1) * gk__dtype_sizes[dt] : 0;
    return GK_OK;
}

/* On CUDA the driver must know [address, address + span): device memory of
   the context's device, managed memory, or page-locked host memory. */
static gk_status gk__wrap_check_address(gk_ctx *ctx, uint64_t address, size_t span, const char *W) {
    unsigned mt = 0, mt_end = 0, managed = 0;
    int ord = -1;
    if (ctx->backend != GK_BACKEND_CUDA || !ctx->cu.PointerGetAttribute || span == 0) return GK_OK;
    if (ctx->cu.PointerGetAttribute(&mt, GK__CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (gk__cu_ptr)address) != 0 ||
        ctx->cu.PointerGetAttribute(&mt_end, GK__CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (gk__cu_ptr)(address + span - 1)) != 0)
        return gk__err(ctx, GK_ERR_INVALID_ARGUMENT,
                       "%s: address 0x%llx (%zu bytes) is not memory the CUDA driver knows: kernels cannot read pageable host memory "
                       "(wrap device memory or page-locked host memory such as gk_host_alloc's)", W, (unsigned long long)address, span);
    if ((mt != GK__CU_MEMORYTYPE_HOST && mt != GK__CU_MEMORYTYPE_DEVICE && mt != GK__CU_MEMORYTYPE_UNIFIED) || mt_end != mt)
        return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: address 0x%llx (%zu bytes) spans CUDA memory of types %u and %u; one allocation is needed", W,
                       (unsigned long long)address, span, mt, mt_end);
    if (mt == GK__CU_MEMORYTYPE_DEVICE && ctx->cu.PointerGetAttribute(&managed, GK__CU_POINTER_ATTRIBUTE_IS_MANAGED, (gk__cu_ptr)address) == 0 && !managed &&
        ctx->cu.PointerGetAttribute(&ord, GK__CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, (gk__cu_ptr)address) == 0 && ord != ctx->desc.device)
        return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: address 0x%llx is memory of CUDA device %d; the context runs on device %d", W,
                       (unsigned long long)address, ord, ctx->desc.device);
    return GK_OK;
}

GKDEF gk_status gk_tensor_wrap(gk_ctx *ctx, gk_dtype dtype, int ndim, const int64_t *shape, const int64_t *strides, uint64_t address,
                               gk_release_fn release, void *user, gk_tensor *out) {
    const char *W = "gk_tensor_wrap";
    int64_t numel = 0, st[GK_MAX_DIMS];
    size_t nbytes = 0, span = 0;
    uint32_t idx;
    gk__block *b = NULL;
    gk__slot *s;
    gk_status rc;
    if (out) out->id = 0;
    GK__ENTER(ctx, W);
    if (!out) rc = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    else if ((rc = gk__check_shape(ctx, dtype, ndim, shape, &numel, &nbytes, W)) == GK_OK &&
             (rc = gk__wrap_layout(ctx, dtype, ndim, shape, strides, st, numel, &span, W)) == GK_OK) {
        if (span && !address) rc = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: address is 0 for a tensor of %lld elements", W, (long long)numel);
        else if (span && address % gk__dtype_sizes[dtype])
            rc = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: address 0x%llx is not aligned to the %s element size (%zu bytes)", W,
                         (unsigned long long)address, gk_dtype_name(dtype), gk__dtype_sizes[dtype]);
        else if (span && address > UINT64_MAX - span)
            rc = gk__err(ctx, GK_ERR_OVERFLOW, "%s: address 0x%llx + %zu bytes wraps around", W, (unsigned long long)address, span);
    }
    if (rc == GK_OK) rc = gk__bind(ctx);
    if (rc == GK_OK) rc = gk__wrap_check_address(ctx, address, span, W);
    if (rc == GK_OK && span) {
        if (!(b = GK__CALLOC(gk__block, 1))) rc = gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
        else {
            b->ptr = (gk__cu_ptr)address;
            b->size = span;
            b->cls = -1;
            b->refs = 1;
            b->state = GK__BLK_LIVE;
            b->foreign = 1;
            b->release = release;
            b->release_user = user;
            b->qos = GK_QOS_GUARANTEED;
            b->tick = ++ctx->pool.tick;
        }
    }
    if (rc == GK_OK && (rc = gk__slot_new(ctx, &idx, W)) != GK_OK) {
        GPUKIT_FREE(b);
        b = NULL;
    }
    if (rc == GK_OK) {
        if (b) gk__list_push(&ctx->pool.wrap_head, &ctx->pool.wrap_tail, b);
        else if (release) release(user); /* no elements: nothing of the memory is kept */
        s = gk__slot_at(ctx, idx);
        s->blk = b;
        s->dtype = dtype;
        s->ndim = ndim;
        if (ndim) {
            memcpy(s->shape, shape, sizeof(int64_t) * (size_t)ndim);
            memcpy(s->strides, st, sizeof(int64_t) * (size_t)ndim);
        }
        *out = gk__handle(ctx, idx);
    }
    gk__unlock(&ctx->mu);
    return rc;
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
    gk__enter(ctx);
    gk__err_save(ctx, save);
    ok = gk__lookup(ctx, t, &s, "gk_tensor_valid", "t") == GK_OK;
    gk__err_restore(ctx, save);
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
    o->pinned = s->blk && (s->blk->pins > 0 || s->blk->foreign);
    o->is_view = s->is_view;
    o->wrapped = s->blk && s->blk->foreign;
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
    if (st == GK_OK && s->blk && s->blk->foreign)
        st = gk__err(ctx, GK_ERR_UNSUPPORTED, "gk_tensor_evict: the tensor wraps memory gpukit does not own (gk_tensor_wrap); it is never evicted");
    else if (st == GK_OK && s->blk && s->blk->state == GK__BLK_LIVE) {
        st = gk__sync_locked(ctx, "gk_tensor_evict");
        if (st == GK_OK) st = gk__pool_evict(ctx, s->blk, "gk_tensor_evict");
    }
    gk__unlock(&ctx->mu);
    return st;
}

/* >>views: reshape, permute, transpose, slice, squeeze */
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
/* >>dispatch: the kernel dispatch controller: every launch, its stream, pacing, counts */
/* ------------------------------------------------------------------------ */
/* Every kernel launch of the library, of user kernels (gk_launch) and of
   cuBLASLt goes through gk__dispatch_begin / gk__dispatch_end: the launch
   happens on ctx->cur_stream (the calling thread's stream: the scheduler
   sets it for a task), is counted on that stream, is timed by the profiler
   when it is on, and, on a stream with an in-flight bound, is followed by one
   event of the stream's ring. The bound is applied when a call enters the
   context (gk__enter -> gk__pace_wait): a thread whose stream has
   max_inflight launches not yet complete waits, without the context's lock,
   until the oldest completes. A call may issue several launches, so the
   bound holds at each call's entry. A stream the scheduler holds (held)
   takes no launches at all: calls entering on it wait until the hold ends.
   Streams without a bound or hold cost one test. */

/* Frees a stream that gk_stream_destroy unlinked while threads waited on it
   (the last waiter calls this). */
static void gk__stream_free_struct(gk_ctx *ctx, gk_stream *s) {
    int i;
    if (ctx->backend == GK_BACKEND_CUDA && s->cu) ctx->cu.StreamDestroy(s->cu);
    if (s->ring) {
        if (ctx->backend == GK_BACKEND_CUDA)
            for (i = 0; i < GK__PACE_RING; i++)
                if (s->ring[i]) ctx->cu.EventDestroy(s->ring[i]);
        GPUKIT_FREE(s->ring);
    }
    GPUKIT_FREE(s);
}

/* Called by gk__enter with the lock held when the current stream has a bound.
   Returns 1 when it released the lock to wait (gk__enter then looks up the
   thread's stream again: it may have changed), 0 when the stream is under
   its bound. */
static int gk__pace_wait_once(gk_ctx *ctx) {
    gk_stream *s = ctx->cur_stream;
    gk__cu_event e;
    gk__cu_result r;
    double t0;
    if (ctx->backend != GK_BACKEND_CUDA || !s->ring || s->capture || gk__bind(ctx) != GK_OK) return 0;
    while (s->ring_tail - s->ring_head >= (unsigned)s->max_inflight) {
        e = s->ring[s->ring_head % GK__PACE_RING];
        r = ctx->cu.EventQuery(e);
        if (r != GK__CUDA_ERROR_NOT_READY) { s->ring_head++; continue; } /* done, or an error the next sync reports */
        s->waiters++;
        s->paced_waits++;
        gk__unlock(&ctx->mu);
        t0 = gk__now_ms();
        ctx->cu.EventSynchronize(e);
        t0 = gk__now_ms() - t0;
        gk__lock(&ctx->mu);
        s->waiters--;
        s->paced_ms += t0;
        if (s->dead && s->waiters == 0) gk__stream_free_struct(ctx, s);
        return 1;
    }
    return 0;
}
/* A held stream (the scheduler's lower classes while a Guaranteed task is
   active): the call waits on ctx->pace_cv, the lock released, until the
   hold ends or the stream is destroyed (gk__sched_pace and gk_stream_destroy
   broadcast). Returns 1 after waiting. */
static int gk__hold_wait_once(gk_ctx *ctx) {
    gk_stream *s = ctx->cur_stream;
    double t0;
    if (!s->held || s->capture) return 0;
    t0 = gk__now_ms();
    if (s->hold_until > 0 && t0 >= s->hold_until) { /* a hold for a while, over */
        s->held = 0;
        return 0;
    }
    s->waiters++;
    s->paced_waits++;
    if (s->hold_until > 0) gk__cond_timedwait(&ctx->pace_cv, &ctx->mu, s->hold_until - t0);
    else gk__cond_wait(&ctx->pace_cv, &ctx->mu);
    s->waiters--;
    s->paced_ms += gk__now_ms() - t0;
    if (s->dead && s->waiters == 0) gk__stream_free_struct(ctx, s);
    return 1;
}
static void gk__pace_wait(gk_ctx *ctx) {
    gk__thread_rec *r;
    while (gk__hold_wait_once(ctx) || (ctx->cur_stream->max_inflight && gk__pace_wait_once(ctx))) {
        r = gk__thread_find(ctx);
        ctx->cur_stream = r && r->stream ? r->stream : &ctx->default_stream;
        ctx->cur_tenant = r ? r->tenant : NULL;
        if (!ctx->cur_stream->max_inflight && !ctx->cur_stream->held) break;
    }
}

/* Before a launch on ctx->cur_stream: the profiler's record (-1: none). */
static int gk__dispatch_begin(gk_ctx *ctx, const char *name) {
    if (ctx->prof) return gk__prof_begin(ctx, ctx->cur_stream, name, GK__PROF_KERNEL);
    return -1;
}
/* After it (ok: the launch succeeded): the stream's count, the ring event, the profiler. */
static void gk__dispatch_end(gk_ctx *ctx, int prof, int ok) {
    gk_stream *s = ctx->cur_stream;
    if (prof >= 0) gk__prof_end(ctx, s, prof);
    if (!ok) return;
    s->launches++;
    if (s->max_inflight && s->ring && !s->capture) {
        if (s->ring_tail - s->ring_head >= GK__PACE_RING) s->ring_head++; /* full: the oldest is forgotten */
        if (ctx->cu.EventRecord(s->ring[s->ring_tail % GK__PACE_RING], s->cu) == 0) s->ring_tail++;
    }
}

enum { GK__DISPATCH_PLAIN = 0, GK__DISPATCH_PDL = 1, GK__DISPATCH_COOP = 2 };
/* Launches f on the calling thread's stream through the controller.
   kind: plain, programmatic dependent launch (cuLaunchKernelEx with
   programmatic stream serialization), or cooperative. */
static gk_status gk__dispatch(gk_ctx *ctx, gk__cu_function f, const char *name, const unsigned grid[3], const unsigned block[3],
                              unsigned smem, void **args, int kind, const char *where) {
    gk__cu_result r;
    unsigned gx = grid[0] ? grid[0] : 1, gy = grid[1] ? grid[1] : 1, gz = grid[2] ? grid[2] : 1;
    unsigned bx = block[0] ? block[0] : 1, by = block[1] ? block[1] : 1, bz = block[2] ? block[2] : 1;
    gk__cu_stream cs = ctx->cur_stream->cu;
    int prof = gk__dispatch_begin(ctx, name);
    if (kind == GK__DISPATCH_PDL) {
        gk__cu_launch_config c;
        gk__cu_launch_attr a;
        memset(&c, 0, sizeof c);
        memset(&a, 0, sizeof a);
        a.id = GK__CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
        a.val.i = 1;
        c.gx = gx; c.gy = gy; c.gz = gz;
        c.bx = bx; c.by = by; c.bz = bz;
        c.smem = smem;
        c.stream = cs;
        c.attrs = &a;
        c.nattrs = 1;
        r = ctx->cu.LaunchKernelEx(&c, f, args, NULL);
    } else if (kind == GK__DISPATCH_COOP)
        r = ctx->cu.LaunchCooperativeKernel(f, gx, gy, gz, bx, by, bz, smem, cs, args);
    else
        r = ctx->cu.LaunchKernel(f, gx, gy, gz, bx, by, bz, smem, cs, args, NULL);
    gk__dispatch_end(ctx, prof, r == 0);
    if (r != 0) {
        gk__cu_fail(ctx, r, where, name);
        return GK_ERR_LAUNCH;
    }
    return GK_OK;
}

GKDEF gk_status gk_stream_set_max_inflight(gk_ctx *ctx, gk_stream *s, int n) {
    gk_status st;
    GK__ENTER(ctx, "gk_stream_set_max_inflight");
    if (!s) s = ctx->cur_stream;
    st = gk__find_stream(ctx, s, "gk_stream_set_max_inflight");
    if (st == GK_OK && (n < 0 || n >= GK__PACE_RING))
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_stream_set_max_inflight: n is %d; it must be 0 (no bound) to %d", n, GK__PACE_RING - 1);
    if (st == GK_OK && n > 0 && !s->ring && ctx->backend == GK_BACKEND_CUDA) {
        int i;
        st = gk__bind(ctx);
        if (st == GK_OK && !(s->ring = GK__CALLOC(gk__cu_event, GK__PACE_RING)))
            st = gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "gk_stream_set_max_inflight: out of host memory");
        for (i = 0; st == GK_OK && i < GK__PACE_RING; i++) {
            gk__cu_result r = ctx->cu.EventCreate(&s->ring[i], GK__CU_EVENT_DISABLE_TIMING);
            if (r != 0) st = gk__cu_fail(ctx, r, "gk_stream_set_max_inflight", "cuEventCreate");
        }
        if (st != GK_OK && s->ring) {
            for (i = 0; i < GK__PACE_RING; i++)
                if (s->ring[i]) ctx->cu.EventDestroy(s->ring[i]);
            GPUKIT_FREE(s->ring);
            s->ring = NULL;
        }
    }
    if (st == GK_OK) s->max_inflight = n;
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_stream_stats_get(gk_ctx *ctx, gk_stream *s, gk_stream_stats *out) {
    gk_status st;
    GK__ENTER(ctx, "gk_stream_stats_get");
    if (!s) s = ctx->cur_stream;
    st = out ? gk__find_stream(ctx, s, "gk_stream_stats_get") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_stream_stats_get: out is NULL");
    if (st == GK_OK) {
        unsigned i, n = 0;
        memset(out, 0, sizeof *out);
        out->launches = s->launches;
        out->paced_waits = s->paced_waits;
        out->paced_ms = s->paced_ms;
        out->max_inflight = s->max_inflight;
        out->held = s->held;
        out->priority = s->priority;
        if (s->ring && ctx->backend == GK_BACKEND_CUDA && gk__bind(ctx) == GK_OK)
            for (i = s->ring_head; i != s->ring_tail; i++)
                if (ctx->cu.EventQuery(s->ring[i % GK__PACE_RING]) == GK__CUDA_ERROR_NOT_READY) n++;
        out->inflight = (int)n;
    }
    gk__unlock(&ctx->mu);
    return st;
}
/* >>transfer: host <-> device copies, pinned host memory */
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
            if (ctx->prof) gk__prof_note(ctx, (double)nbytes, 0);
            int prof = ctx->prof ? gk__prof_begin(ctx, s, to_device ? "memcpy HtoD" : "memcpy DtoH", to_device ? GK__PROF_H2D : GK__PROF_D2H) : -1;
            gk__cu_result r = to_device ? ctx->cu.MemcpyHtoDAsync(p, hsrc, nbytes, s->cu) : ctx->cu.MemcpyDtoHAsync(hdst, p, nbytes, s->cu);
            if (prof >= 0) gk__prof_end(ctx, s, prof);
            if (r != 0) st = gk__cu_fail(ctx, r, where, to_device ? "cuMemcpyHtoDAsync_v2" : "cuMemcpyDtoHAsync_v2");
            else if (wait) st = gk__stream_wait_unlocked(ctx, s, where); /* the block stays pinned meanwhile */
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
    if (st != GK_OK) { char save[GK__ERRBUF]; gk__err_save(ctx, save); gk_tensor_free(ctx, t); gk__err_restore(ctx, save); return st; }
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
    int ok;
    if (!ctx->cache_dir) return;
    if (gk__mkdirs(ctx->cache_dir) != 0) {
        gk__log(ctx, GK_LOG_WARN, "kernel cache folder %s cannot be created: disk cache off", ctx->cache_dir);
        GPUKIT_FREE(ctx->cache_dir);
        ctx->cache_dir = NULL;
        return;
    }
    gk__cache_path(ctx, key, path, sizeof path);
    /* a name no other writer uses: process, context, this context's count */
    snprintf(tmp, sizeof tmp, "%s.%lu.%llu.%u.tmp", path, gk__pid(), (unsigned long long)ctx->serial, ++ctx->cache_tmp);
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

/* The arch a library module is built for: arch (the context's), except the
   Hopper GEMM and attention (src/ops/matmul/gemm_wg.cu, src/ops/attention/flash_wg.cu:
   wgmma, setmaxnreg), which need the arch-specific sm_90a target on an
   sm_90 device. For other arches those modules compile to empty stubs that
   are never launched (gk__wg_ok, gk__fwg_ok). */
static const char *gk__mod_arch(int m, const char *arch) {
    (void)m;
#ifdef GK__MOD_GEMM_WG
    if (m == GK__MOD_GEMM_WG && arch && strcmp(arch, "sm_90") == 0) return "sm_90a";
#endif
#ifdef GK__MOD_FLASH_WG
    if (m == GK__MOD_FLASH_WG && arch && strcmp(arch, "sm_90") == 0) return "sm_90a";
#endif
    return arch;
}

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
/* The embedded headers every library and user module may #include by name,
   joined on the context's first compile (one copy a context: no
   process-wide state; freed by gk_ctx_destroy). */
static gk_status gk__headers(gk_ctx *ctx, const char *const **names, const char *const **srcs) {
    int i;
    if (!ctx->lib_headers && !(ctx->lib_headers = GK__CALLOC(char *, GK__HEADER_COUNT > 0 ? GK__HEADER_COUNT : 1)))
        return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "jit: out of host memory");
    for (i = 0; i < GK__HEADER_COUNT; i++)
        if (!ctx->lib_headers[i] && !(ctx->lib_headers[i] = gk__join_chunks(gk__header_chunks[i])))
            return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "jit: out of host memory");
    *names = gk__header_names;
    *srcs = GK__CAST(const char *const *, ctx->lib_headers);
    return GK_OK;
}

/* The NVRTC log of the calling thread's last compile on ctx (gk_jit_log). */
static void gk__set_log(gk_ctx *ctx, const char *log) {
    gk__thread_rec *r = log ? gk__thread_get(ctx) : gk__thread_find(ctx);
    if (!r) return;
    GPUKIT_FREE(r->jit_log);
    r->jit_log = log ? gk__strdup(log) : NULL;
    gk__thread_tidy(ctx, r);
}

/* NVRTC: source -> cubin or PTX (malloc'd). */
static gk_status gk__nvrtc_compile(gk_ctx *ctx, const char *src, const char *name, const char *const *opts, int nopts,
                                   int ptx, char **out, size_t *outn, const char *where) {
    gk__nvrtc_program prog = NULL;
    gk__nvrtc_result r;
    const char *const *hn = NULL, *const *hs = NULL;
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
            return gk__err(ctx, GK_ERR_NO_NVRTC, "%s: NVRTC not found: cannot compile %s for %s (and no cached copy%s%s); NVRTC: %s", where,
                           name, arch, ctx->cache_dir ? " in " : "", ctx->cache_dir ? ctx->cache_dir : "",
                           ctx->nvrtc_why[0] ? ctx->nvrtc_why : "not loaded");
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
        st = gk__jit_build(ctx, src, gk__module_names[m], NULL, 0, gk__mod_arch(m, ctx->info.arch[0] ? ctx->info.arch : NULL), 1, &L->mod,
                           NULL, where);
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
        st = gk__jit_build(ctx, src, gk__module_names[m], NULL, 0, gk__mod_arch(m, arch ? arch : ctx->info.arch), 1, NULL, NULL,
                           "gk_jit_precompile");
        GPUKIT_FREE(src);
#ifdef GK__MOD_GEMM_WG
        if (st != GK_OK && m == GK__MOD_GEMM_WG && st != GK_ERR_OUT_OF_MEMORY) { st = GK_OK; gk_error_clear(ctx); continue; } /* an NVRTC without sm_90a: gemm_tc serves */
#endif
#ifdef GK__MOD_FLASH_WG
        if (st != GK_OK && m == GK__MOD_FLASH_WG && st != GK_ERR_OUT_OF_MEMORY) { st = GK_OK; gk_error_clear(ctx); continue; } /* no sm_90a: flash.cu serves */
#endif
        if (st == GK_OK) n++;
    }
    if (num_modules) *num_modules = n;
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_jit_stats_get(gk_ctx *ctx, gk_jit_stats *out) {
    if (!ctx || !out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_jit_stats_get: NULL argument");
    gk__enter(ctx);
    *out = ctx->jst;
    gk__unlock(&ctx->mu);
    return GK_OK;
}
GKDEF const char *gk_jit_log(gk_ctx *ctx) {
    const char *s;
    gk__thread_rec *r;
    if (!ctx) return "";
    gk__enter(ctx);
    r = gk__thread_find(ctx);
    s = r && r->jit_log ? r->jit_log : "";
    gk__unlock(&ctx->mu);
    return s;
}

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

GKDEF gk_status gk_kernel_param(gk_ctx *ctx, gk_kernel *k, int i, int *size, char *kind) {
    gk_status st;
    GK__ENTER(ctx, "gk_kernel_param");
    st = gk__find_kernel(ctx, k, "gk_kernel_param");
    if (st == GK_OK && (i < 0 || i >= k->nparams))
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_kernel_param: parameter %d outside 0..%d of kernel '%s'", i, k->nparams - 1, k->name);
    if (st == GK_OK) {
        if (size) *size = k->psize[i];
        if (kind) *kind = k->pkind[i];
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
static int gk__cpu_kernel_thunk(const void *p) {
    const gk__cpu_kparams *k = (const gk__cpu_kparams *)p;
    gk_cpu_launch l;
    memcpy(l.grid, k->grid, sizeof l.grid);
    memcpy(l.block, k->block, sizeof l.block);
    l.args = k->args;
    l.ptrs = k->ptrs;
    l.num_args = k->n;
    l.user = k->user;
    k->fn(&l);
    return 0;
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
            gk_stream *save = ctx->cur_stream;
            ctx->cur_stream = s;
            st = gk__dispatch(ctx, k->fn, k->name, g, b, d->shared_mem, params, GK__DISPATCH_PLAIN, W);
            ctx->cur_stream = save;
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
typedef struct gk__nd {          /* the layout of gk_nd in src/kernels/gk_common.cuh */
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
    if (k + 1 < n) { buf[k] = ']'; buf[k + 1] = 0; }
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
/* The 16-byte vector path of a broadcast (the *_v kernels): the innermost
   dim is a multiple of vec elements, with stride 1 in the output and 1 or 0
   in each input, and every row of a stride-1 operand starts 16-byte aligned
   (base address and outer strides). */
static int gk__nd_vec_ok(const gk__nd *nd, int nops, const gk__cu_ptr *base, int64_t vec) {
    int in = nd->ndim - 1, k, d;
    if (nd->shape[in] % vec != 0 || nd->st[0][in] != 1) return 0;
    for (k = 0; k < nops; k++) {
        if (nd->st[k][in] == 0) continue;
        if (nd->st[k][in] != 1 || (base[k] & 15) != 0) return 0;
        for (d = 0; d < in; d++)
            if (nd->st[k][d] % vec != 0) return 0;
    }
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

/* >>ops_elementwise_cpu: CPU reference of the elementwise ops, kernel name tables */
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
    case GK_F16: memcpy(&h, p, 2); return gk_f16_to_f32(h);
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

static int gk__ew_cpu(const void *vp) {
    const gk__ew *p = (const gk__ew *)vp;
    const gk__nd *nd = &p->nd;
    size_t es = gk__dtype_sizes[p->dt], ss = gk__dtype_sizes[p->sdt];
    gk_dtype dt = p->dt;
    int op = p->op;
    float fa = (float)p->alpha;
    switch (op) {
    case GK__OP_FILL: GK__ND_FOR(nd, memcpy(p->o + o0 * (int64_t)es, &p->pattern, es)); return 0;
    case GK__OP_COPY: GK__ND_FOR(nd, memcpy(p->o + o0 * (int64_t)es, p->a + o1 * (int64_t)es, es)); return 0;
    case GK__OP_CAST: GK__ND_FOR(nd, gk__store(dt, p->o + o0 * (int64_t)es, gk__load(p->sdt, p->a + o1 * (int64_t)ss))); return 0;
    default: break;
    }
    if (dt == GK_F32 && op <= GK__OP_DIV && gk__nd_contig(nd, 3)) { /* the common case, kept tight */
        float *o = (float *)(void *)p->o;
        const float *a = (const float *)(const void *)p->a, *b = (const float *)(const void *)p->b;
        int64_t i;
        for (i = 0; i < nd->n; i++)
            o[i] = op == GK__OP_ADD ? a[i] + b[i] : op == GK__OP_SUB ? a[i] - b[i] : op == GK__OP_MUL ? a[i] * b[i] : a[i] / b[i];
        return 0;
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
    return 0;
}

/* kernel names (static strings: the function cache compares pointers) */
#define GK__DTNAMES(P, S) { P "f32" S, P "f64" S, P "f16" S, P "bf16" S, P "f8e4m3" S, P "f8e5m2" S, P "i8" S, P "u8" S, P "i32" S, P "i64" S }
static const char *const gk__k_bin[4][3][GK_DTYPE_COUNT] = {
    { GK__DTNAMES("gk_add_", ""), GK__DTNAMES("gk_add_", "_c"), GK__DTNAMES("gk_add_", "_v") },
    { GK__DTNAMES("gk_sub_", ""), GK__DTNAMES("gk_sub_", "_c"), GK__DTNAMES("gk_sub_", "_v") },
    { GK__DTNAMES("gk_mul_", ""), GK__DTNAMES("gk_mul_", "_c"), GK__DTNAMES("gk_mul_", "_v") },
    { GK__DTNAMES("gk_div_", ""), GK__DTNAMES("gk_div_", "_c"), GK__DTNAMES("gk_div_", "_v") } };
static const char *const gk__k_scale[2][GK_DTYPE_COUNT] = { GK__DTNAMES("gk_scale_", ""), GK__DTNAMES("gk_axpy_", "") };
static const char *const gk__k_cast[GK_DTYPE_COUNT][GK_DTYPE_COUNT] = {
    GK__DTNAMES("gk_cast_f32_", ""), GK__DTNAMES("gk_cast_f64_", ""), GK__DTNAMES("gk_cast_f16_", ""),
    GK__DTNAMES("gk_cast_bf16_", ""), GK__DTNAMES("gk_cast_f8e4m3_", ""), GK__DTNAMES("gk_cast_f8e5m2_", ""),
    GK__DTNAMES("gk_cast_i8_", ""), GK__DTNAMES("gk_cast_u8_", ""), GK__DTNAMES("gk_cast_i32_", ""), GK__DTNAMES("gk_cast_i64_", "") };
static const char *const gk__k_fill[9] = { NULL, "gk_fill_b1", "gk_fill_b2", NULL, "gk_fill_b4", NULL, NULL, NULL, "gk_fill_b8" };
static const char *const gk__k_copy[9] = { NULL, "gk_copy_b1", "gk_copy_b2", NULL, "gk_copy_b4", NULL, NULL, NULL, "gk_copy_b8" };

/* >>launch: library kernel launches, workspace, arrival counters */
/* Launches a library kernel over `work` items (grid-stride kernels). */
static gk_status gk__launch(gk_ctx *ctx, int mod, const char *fname, int64_t work, void **args, const char *where) {
    gk__cu_function f;
    int64_t blocks = (work + 255) / 256, maxb = (int64_t)ctx->info.sm_count * 32;
    if (work <= 0) return GK_OK;
    unsigned grid[3] = { 1, 1, 1 }, block[3] = { 256, 1, 1 };
    GK__TRY(gk__lib_function(ctx, mod, fname, &f, where));
    if (blocks > maxb) blocks = maxb;
    if (blocks < 1) blocks = 1;
    grid[0] = (unsigned)blocks;
    return gk__dispatch(ctx, f, fname, grid, block, 0, args, GK__DISPATCH_PLAIN, where);
}

/* Launches a library kernel with an explicit configuration; raises the
   kernel's dynamic shared memory limit when it asks for more than 48 KiB. */
/* The kernel `fname` of module `mod`, its dynamic shared memory limit raised to
   `smem` when that is above the default 48 KiB (GK_ERR_LIMIT past the device's). */
GK__MAYBE_UNUSED static gk_status gk__fn_smem(gk_ctx *ctx, int mod, const char *fname, unsigned smem, gk__cu_function *f, const char *where) {
    gk__cu_result r;
    GK__TRY(gk__lib_function(ctx, mod, fname, f, where));
    if (smem > 48 * 1024) {
        if ((int)smem > ctx->info.max_smem_per_block_optin)
            return gk__err(ctx, GK_ERR_LIMIT, "%s: %s needs %u bytes of shared memory, the device allows %d", where, fname, smem,
                           ctx->info.max_smem_per_block_optin);
        r = ctx->cu.FuncSetAttribute(*f, GK__CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem);
        if (r != 0) return gk__cu_fail(ctx, r, where, "cuFuncSetAttribute");
    }
    return GK_OK;
}
GK__MAYBE_UNUSED static gk_status gk__launch_cfg(gk_ctx *ctx, int mod, const char *fname, const unsigned grid[3], const unsigned block[3],
                                unsigned smem, void **args, const char *where) {
    gk__cu_function f;
    GK__TRY(gk__fn_smem(ctx, mod, fname, smem, &f, where));
    return gk__dispatch(ctx, f, fname, grid, block, smem, args, GK__DISPATCH_PLAIN, where);
}

/* gk__launch_cfg with launch options: GK__LAUNCH_PDL launches with
   programmatic stream serialization (sm_90+, when the driver has
   cuLaunchKernelEx; else a plain launch): the kernel may start while its
   predecessor drains. Only for kernels that execute gk_pdl_wait()
   (griddepcontrol.wait, src/kernels/gk_common.cuh) before they touch anything
   the previous kernels write or read. */
enum { GK__LAUNCH_PDL = 1 };
GK__MAYBE_UNUSED static gk_status gk__launch_ex(gk_ctx *ctx, int mod, const char *fname, const unsigned grid[3], const unsigned block[3],
                                               unsigned smem, void **args, unsigned opts, const char *where) {
    gk__cu_function f;
    /* tune.pdl 0 (GPUKIT_PDL=0 when the context was created): plain launches, to rule PDL in or out */
    if (!(opts & GK__LAUNCH_PDL) || !ctx->tune.pdl || !ctx->cu.LaunchKernelEx || ctx->info.cc_major < 9)
        return gk__launch_cfg(ctx, mod, fname, grid, block, smem, args, where);
    GK__TRY(gk__fn_smem(ctx, mod, fname, smem, &f, where));
    return gk__dispatch(ctx, f, fname, grid, block, smem, args, GK__DISPATCH_PDL, where);
}

/* Blocks of `block` threads and `smem` bytes of dynamic shared memory resident
   on one SM at once (registers, shared memory and threads counted by the driver);
   *f the kernel (gk__fn_smem). */
GK__MAYBE_UNUSED static gk_status gk__occupancy(gk_ctx *ctx, int mod, const char *fname, unsigned block, unsigned smem, int *per_sm,
                                                gk__cu_function *f, const char *where) {
    gk__cu_result r;
    GK__TRY(gk__fn_smem(ctx, mod, fname, smem, f, where));
    r = ctx->cu.OccupancyMaxActiveBlocksPerMultiprocessor(per_sm, *f, (int)block, smem);
    if (r != 0) return gk__cu_fail(ctx, r, where, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    return GK_OK;
}

/* A persistent kernel: every block resident at once (cooperative launch), so
   blocks may wait on each other (grid-wide barriers). Fails with GK_ERR_LIMIT
   when the grid is larger than what fits on the device. */
GK__MAYBE_UNUSED static gk_status gk__launch_coop(gk_ctx *ctx, int mod, const char *fname, unsigned grid, unsigned block,
                                                   unsigned smem, void **args, const char *where) {
    gk__cu_function f;
    int per_sm = 0;
    GK__TRY(gk__occupancy(ctx, mod, fname, block, smem, &per_sm, &f, where));
    if ((int64_t)per_sm * ctx->info.sm_count < (int64_t)grid)
        return gk__err(ctx, GK_ERR_LIMIT, "%s: %s needs %u resident blocks of %u threads, the device holds %d", where, fname, grid, block,
                       per_sm * ctx->info.sm_count);
    {
        unsigned g3[3] = { 1, 1, 1 }, b3[3] = { 1, 1, 1 };
        g3[0] = grid;
        b3[0] = block;
        return gk__dispatch(ctx, f, fname, g3, b3, smem, args, GK__DISPATCH_COOP, where);
    }
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

/* Arrival counters for kernels whose last block to finish does the final
   step itself, saving a second launch (the merge of a split reduction):
   GK__CTR_N u32 in one allocation per context,
   outside the pool, zeroed on the current stream when first asked for. A
   kernel counts its blocks in with atomicAdd after a __threadfence, and the
   last one resets its counter to zero, so they are zero between kernels
   (graph replays included). Like the workspace, they serve one stream's
   work at a time. *out is 0 when n is above GK__CTR_N or when they do not
   exist yet and the stream is being captured (no allocation in a graph):
   the caller then takes its two-kernel path, as it does when
   ctx->tune.ctr_off is set (tests and benchmarks compare the two). */
#define GK__CTR_N 16384
/* a context's buffer of n32 32-bit words set to fill32, kept at *buf (allocated and filled on
   the current stream when first asked for; *out 0, and no error, while a graph is captured) */
static gk_status gk__ctx_words(gk_ctx *ctx, gk__cu_ptr *buf, size_t n32, unsigned fill32, gk__cu_ptr *out, const char *where) {
    gk__cu_result r;
    *out = 0;
    if (!*buf) {
        gk__cu_ptr p = 0;
        if (ctx->cur_stream->capture) return GK_OK;
        GK__TRY(gk__dev_alloc(ctx, n32 * 4, &p, where));
        if ((r = ctx->cu.MemsetD32Async(p, fill32, n32, ctx->cur_stream->cu)) != 0) {
            gk__dev_free(ctx, p);
            return gk__cu_fail(ctx, r, where, "cuMemsetD32Async");
        }
        *buf = p;
    }
    *out = *buf;
    return GK_OK;
}
GK__MAYBE_UNUSED static gk_status gk__counters(gk_ctx *ctx, int64_t n, gk__cu_ptr *out, const char *where) {
    *out = 0;
    if (ctx->tune.ctr_off || n > GK__CTR_N || ctx->backend != GK_BACKEND_CUDA) return GK_OK;
    return gk__ctx_words(ctx, &ctx->ctr, GK__CTR_N, 0u, out, where);
}

/* Decode attention's split words (src/ops/attention/attention.cu, gk_dec_fold): GK__DEC_SLOTS_SM
   64-bit words a SM (enough for every grid that is one wave: at most 4 blocks a SM of at
   most 8 q heads x 128 dims each) in one allocation per context, outside the pool, set to
   GK__DEC_EMPTY on the current stream when first asked for; every kernel that fills a word
   empties it again, so they are empty between kernels (graph replays included). Like the
   workspace they serve one stream's work at a time. *out is 0 when nwords is above what
   they hold or when they do not exist yet and the stream is being captured: the caller
   then takes its gk_attn_combine path. */
#define GK__DEC_SLOTS_SM 4096
#define GK__DEC_EMPTY32 0x7fbadbadu /* both halves of src/ops/attention/attention.cu's GK_DEC_EMPTY */
static gk_status gk__dec_slots(gk_ctx *ctx, int64_t nwords, gk__cu_ptr *out, const char *where) {
    const int64_t n = (int64_t)ctx->info.sm_count * GK__DEC_SLOTS_SM;
    *out = 0;
    if (nwords > n || ctx->backend != GK_BACKEND_CUDA) return GK_OK;
    return gk__ctx_words(ctx, &ctx->dslot, (size_t)n * 2, GK__DEC_EMPTY32, out, where);
}

/* >>ops_elementwise: operands, elementwise dispatch, fill/copy/cast/add/... */
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
        if (ctx->prof) {
            /* the profiler's hint: the bytes read and written (y of axpy both), a FLOP an
               element (axpy two) */
            double bytes = 0, e = (double)p.nd.n;
            for (i = 0; i < n; i++) bytes += (double)gk__numel(ops.s[i]) * (double)gk__dtype_sizes[ops.s[i]->dtype];
            if (op == GK__OP_AXPY) bytes += (double)gk__numel(ops.s[0]) * (double)gk__dtype_sizes[p.dt];
            gk__prof_note(ctx, bytes, op <= GK__OP_DIV || op == GK__OP_SCALE ? e : op == GK__OP_AXPY ? 2 * e : 0);
        }
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
                    /* two 16-byte vectors a thread */
                    st = gk__launch(ctx, GK__MOD_ELEMENTWISE, gk__k_bin[op][1][p.dt], ((nn * (int64_t)es + 15) / 16 + 1) / 2, args, where);
                } else {
                    gk__cu_ptr bases[3];
                    int64_t vec = 16 / (int64_t)es;
                    bases[0] = po; bases[1] = pa; bases[2] = pb;
                    if (gk__nd_vec_ok(&p.nd, 3, bases, vec)) {
                        /* rows of 32+ vectors go a warp a segment of at most 1024 vectors (the kernel's):
                           about as many warps as are resident (4 blocks of 256 an SM) */
                        int64_t nv = p.nd.n / vec, wv = p.nd.shape[p.nd.ndim - 1] / vec, work = nv;
                        if (wv >= 32) work = 256 * GK__MIN((nv / wv * ((wv + 1023) / 1024) + 7) / 8, (int64_t)ctx->info.sm_count * 4);
                        st = gk__launch(ctx, GK__MOD_ELEMENTWISE, gk__k_bin[op][2][p.dt], work, args, where);
                    }
                    else st = gk__launch(ctx, GK__MOD_ELEMENTWISE, gk__k_bin[op][0][p.dt], p.nd.n, args, where);
                }
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
                    int rec = ctx->prof ? gk__prof_begin(ctx, ctx->cur_stream, "memcpy DtoD", GK__PROF_D2D) : -1;
                    gk__cu_result r = ctx->cu.MemcpyDtoDAsync(po, pa, (size_t)p.nd.n * es, ctx->cur_stream->cu);
                    if (rec >= 0) gk__prof_end(ctx, ctx->cur_stream, rec);
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
        gk__err_save(ctx, save);
        gk_tensor_free(ctx, t);
        gk__err_restore(ctx, save);
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
        gk__err_save(ctx, save);
        gk_tensor_free(ctx, t);
        gk__err_restore(ctx, save);
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
/* >>ops_matmul: GEMM / GEMV (the >>api_ops_matmul group) */
typedef struct gk__mm {          /* layout of gk_gemm_p in src/ops/matmul/gemm.cu */
    int64_t M, N, K;
    int64_t a_rs, a_cs, a_bs, b_rs, b_cs, b_bs, o_rs, o_bs, r_rs, r_bs;
    uint64_t a, b, bias, res;
    uint64_t o;
    double alpha, beta;
    int act, bias_dt, res_dt, pad;
} gk__mm;
typedef struct gk__mm_cpu { gk__mm m; int64_t batch; gk_dtype dt, odt; int glu; } gk__mm_cpu;
/* The profiler's hint for the product's kernel (>>profile gk__prof_note): 2*M*N*K FLOPs
   (N: B's columns, both halves of a GLU's) and the bytes of A, B, C (read too when beta
   is not 0), bias and residual. Called when ctx->prof is set. */
static void gk__mm_note(gk_ctx *ctx, const gk__mm *p, int64_t batch, gk_dtype dt, gk_dtype odt, int glu) {
    double es = (double)gk__dtype_sizes[dt], os = (double)gk__dtype_sizes[odt], nb = (double)p->N * (glu ? 2 : 1);
    double mno = (double)batch * (double)p->M * (double)p->N;
    double bytes = (double)(p->a_bs ? batch : 1) * (double)p->M * (double)p->K * es + (double)(p->b_bs ? batch : 1) * (double)p->K * nb * es +
                   mno * os * (p->beta != 0 ? 2 : 1);
    if (p->bias) bytes += nb * (double)gk__dtype_sizes[p->bias_dt];
    if (p->res) bytes += mno * (double)gk__dtype_sizes[p->res_dt];
    gk__prof_note(ctx, bytes, 2.0 * (double)batch * (double)p->M * nb * (double)p->K);
}

static double gk__act_d(double v, int act) {
    switch (act) {
    case GK_ACT_GELU: return 0.5 * v * (1.0 + erf(v * 0.70710678118654752440));
    case GK_ACT_GELU_TANH: return 0.5 * v * (1.0 + tanh(0.79788456080286535588 * (v + 0.044715 * v * v * v)));
    case GK_ACT_SILU: return v / (1.0 + exp(-v));
    case GK_ACT_RELU: return v > 0 ? v : 0;
    default: return v;
    }
}
static double gk__ld_d(gk_dtype dt, const char *base, int64_t i) { gk__scalar s = gk__load(dt, base + i * (int64_t)gk__dtype_sizes[dt]); return s.f; }

/* The CPU reference: f64 accumulation in k order, f64 epilogue, one rounding
   at the end. B is converted to f64 once, nbw columns at a time (bt: [cols]
   [K], a column contiguous; 64, fewer when K is so long that bt would pass
   4 MB), and each A row once per such block, so a product costs a
   multiply-add, not a conversion (per-element loads would take most of the time). */
static int gk__matmul_cpu(const void *vp) {
    const gk__mm_cpu *c = (const gk__mm_cpu *)vp;
    const gk__mm *p = &c->m;
    const char *A = (const char *)(uintptr_t)p->a, *B = (const char *)(uintptr_t)p->b;
    char *O = (char *)(uintptr_t)p->o;
    int64_t bz, m, n0, j, k, K = p->K, es = (int64_t)gk__dtype_sizes[c->odt], nh = c->glu ? 2 : 1;
    size_t kk = (size_t)(K > 0 ? K : 1), nbw = ((size_t)1 << 19) / (kk * (size_t)nh);
    double *row, *bt;
    nbw = nbw < 1 ? 1 : nbw > 64 ? 64 : nbw;
    row = GK__CAST(double *, GPUKIT_MALLOC(sizeof(double) * kk));
    bt = GK__CAST(double *, GPUKIT_MALLOC(sizeof(double) * kk * nbw * (size_t)nh)); /* [h][col][K] */
    if (!row || !bt) { GPUKIT_FREE(row); GPUKIT_FREE(bt); return 1; }
    for (bz = 0; bz < c->batch; bz++)
        for (n0 = 0; n0 < p->N; n0 += (int64_t)nbw) {
            int64_t nb = p->N - n0 < (int64_t)nbw ? p->N - n0 : (int64_t)nbw, h;
            for (h = 0; h < nh; h++) /* glu: the gate columns n, then the up columns N + n */
                for (j = 0; j < nb; j++) {
                    double *col = bt + ((size_t)h * nbw + (size_t)j) * kk;
                    int64_t off = bz * p->b_bs + (n0 + j + h * p->N) * p->b_cs;
                    for (k = 0; k < K; k++) col[k] = gk__ld_d(c->dt, B, off + k * p->b_rs);
                }
            for (m = 0; m < p->M; m++) {
                for (k = 0; k < K; k++) row[k] = gk__ld_d(c->dt, A, bz * p->a_bs + m * p->a_rs + k * p->a_cs);
                for (j = 0; j < nb; j++) {
                    int64_t n = n0 + j;
                    double acc[2] = { 0, 0 }, v;
                    gk__scalar sc;
                    for (h = 0; h < nh; h++) {
                        const double *col = bt + ((size_t)h * nbw + (size_t)j) * kk;
                        double a = 0;
                        for (k = 0; k < K; k++) a += row[k] * col[k];
                        acc[h] = a;
                    }
                    v = p->alpha * acc[0];
                    if (p->beta != 0) v += p->beta * gk__ld_d(c->odt, O, bz * p->o_bs + m * p->o_rs + n);
                    if (p->bias) v += gk__ld_d((gk_dtype)p->bias_dt, (const char *)(uintptr_t)p->bias, n);
                    v = gk__act_d(v, p->act);
                    if (c->glu) {
                        double u = p->alpha * acc[1];
                        if (p->bias) u += gk__ld_d((gk_dtype)p->bias_dt, (const char *)(uintptr_t)p->bias, p->N + n);
                        v *= u;
                    }
                    if (p->res) v += gk__ld_d((gk_dtype)p->res_dt, (const char *)(uintptr_t)p->res, bz * p->r_bs + m * p->r_rs + n);
                    sc.is_int = 0; sc.i = 0; sc.f = v;
                    gk__store(c->odt, O + (bz * p->o_bs + m * p->o_rs + n) * es, sc);
                }
            }
        }
    GPUKIT_FREE(row);
    GPUKIT_FREE(bt);
    return 0;
}

/* Strides of a matrix operand [.., R, C]: row and column strides and the
   batch stride (0 for a 2-d operand shared by every batch). */
static gk_status gk__mat_strides(gk_ctx *ctx, const gk__slot *s, int64_t *rs, int64_t *cs, int64_t *bs, const char *what, const char *where) {
    int d = s->ndim;
    *rs = s->strides[d - 2];
    *cs = s->strides[d - 1];
    *bs = d == 3 ? (s->shape[0] == 1 ? 0 : s->strides[0]) : 0;
    if (s->shape[d - 1] == 1) *cs = 1; /* a single column: any stride works as contiguous */
    if (s->shape[d - 2] == 1) *rs = *cs == 1 ? s->shape[d - 1] : 1;
    if (*cs != 1 && *rs != 1)
        return gk__err(ctx, GK_ERR_SHAPE, "%s: %s must be row-major or column-major in its last two dims (strides %lld, %lld)", where, what,
                       (long long)s->strides[d - 2], (long long)s->strides[d - 1]);
    return GK_OK;
}

/* cuBLASLt: one handle per context, descriptors and the heuristic's algorithm
   cached per problem shape (cleared when the small cache fills). */
typedef struct gk__lt_entry {
    int64_t key[16];
    gk__lt_desc desc;
    gk__lt_layout la, lb, lc;
    gk__lt_algo algo;
    size_t ws;
    int used;
} gk__lt_entry;
#define GK__LT_CACHE 64
typedef struct gk__lt_state { gk__cublaslt_handle h; gk__lt_entry e[GK__LT_CACHE]; int n; } gk__lt_state;

static void gk__lt_entry_free(gk_ctx *ctx, gk__lt_entry *e) {
    if (e->desc) ctx->lt.DescDestroy(e->desc);
    if (e->la) ctx->lt.LayoutDestroy(e->la);
    if (e->lb) ctx->lt.LayoutDestroy(e->lb);
    if (e->lc) ctx->lt.LayoutDestroy(e->lc);
    memset(e, 0, sizeof *e);
}
static void gk__lt_free(gk_ctx *ctx) {
    int i;
    gk__lt_state *L = (gk__lt_state *)ctx->lt_state;
    if (!L) return;
    for (i = 0; i < L->n; i++) gk__lt_entry_free(ctx, &L->e[i]);
    if (L->h) ctx->lt.Destroy(L->h);
    GPUKIT_FREE(L);
    ctx->lt_state = NULL;
}
static int gk__lt_type(gk_dtype dt) {
    return dt == GK_F32 ? GK__CUDA_R_32F : dt == GK_F16 ? GK__CUDA_R_16F : dt == GK_BF16 ? GK__CUDA_R_16BF : GK__CUDA_R_64F;
}
#define GK__LT(call, what)                                                                                    \
    do {                                                                                                      \
        gk__cublas_status s_ = (call);                                                                        \
        if (s_ != 0) return gk__err(ctx, GK_ERR_CUDA, "%s: cuBLASLt %s failed (cublasStatus %d)", where, what, s_); \
    } while (0)

/* Row-major out[M, N] = op(A) op(B) is column-major out^T[N, M] = op(B)^T op(A)^T:
   cuBLASLt's A is our B and its B our A, with m = N, n = M. */
static gk_status gk__matmul_lt(gk_ctx *ctx, const gk__mm *p, int64_t batch, gk_dtype dt, gk_dtype odt, int tf32, int lt_epi,
                               const char *where) {
    gk__lt_state *L = (gk__lt_state *)ctx->lt_state;
    gk__lt_entry *e = NULL;
    int64_t key[16];
    int i, compute = dt == GK_F64 ? GK__CUBLAS_COMPUTE_64F : (dt == GK_F32 && tf32) ? GK__CUBLAS_COMPUTE_32F_FAST_TF32 : GK__CUBLAS_COMPUTE_32F;
    int scale = dt == GK_F64 ? GK__CUDA_R_64F : GK__CUDA_R_32F;
    int ta = p->b_cs == 1 ? GK__CUBLAS_OP_N : GK__CUBLAS_OP_T, tb = p->a_cs == 1 ? GK__CUBLAS_OP_N : GK__CUBLAS_OP_T;
    int64_t lda = ta == GK__CUBLAS_OP_N ? p->b_rs : p->b_cs, ldb = tb == GK__CUBLAS_OP_N ? p->a_rs : p->a_cs;
    gk__cu_ptr ws = 0;
    size_t wsn = (size_t)32 << 20;
    float af = (float)p->alpha, bf = (float)p->beta;
    const void *alpha = dt == GK_F64 ? (const void *)&p->alpha : (const void *)&af;
    const void *beta = dt == GK_F64 ? (const void *)&p->beta : (const void *)&bf;
    if (!L) {
        L = GK__CALLOC(gk__lt_state, 1);
        if (!L) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", where);
        ctx->lt_state = L;
        GK__LT(ctx->lt.Create(&L->h), "cublasLtCreate");
    }
    memset(key, 0, sizeof key);
    key[0] = dt; key[1] = odt; key[2] = compute; key[3] = ta; key[4] = tb; key[5] = p->M; key[6] = p->N; key[7] = p->K;
    key[8] = lda; key[9] = ldb; key[10] = p->o_rs; key[11] = batch; key[12] = p->a_bs; key[13] = p->b_bs; key[14] = p->o_bs;
    key[15] = lt_epi * 16 + (p->bias ? p->bias_dt + 1 : 0);
    for (i = 0; i < L->n; i++)
        if (memcmp(L->e[i].key, key, sizeof key) == 0) { e = &L->e[i]; break; }
    if (!e) {
        gk__lt_pref pref = NULL;
        gk__lt_heur heur;
        int got = 0;
        int64_t sa = p->b_bs, sb = p->a_bs, sc = p->o_bs;
        int b32 = (int)batch;
        gk_status st = GK_OK;
        if (L->n == GK__LT_CACHE) { for (i = 0; i < L->n; i++) gk__lt_entry_free(ctx, &L->e[i]); L->n = 0; }
        e = &L->e[L->n];
        memset(e, 0, sizeof *e);
        memcpy(e->key, key, sizeof key);
        GK__LT(ctx->lt.DescCreate(&e->desc, compute, scale), "MatmulDescCreate");
        L->n++; /* from here on freed with the cache */
        GK__LT(ctx->lt.DescSet(e->desc, GK__LT_DESC_TRANSA, &ta, sizeof ta), "TRANSA");
        GK__LT(ctx->lt.DescSet(e->desc, GK__LT_DESC_TRANSB, &tb, sizeof tb), "TRANSB");
        if (lt_epi != GK__LT_EPILOGUE_DEFAULT) {
            GK__LT(ctx->lt.DescSet(e->desc, GK__LT_DESC_EPILOGUE, &lt_epi, sizeof lt_epi), "EPILOGUE");
            if (p->bias) {
                int bt = gk__lt_type((gk_dtype)p->bias_dt);
                GK__LT(ctx->lt.DescSet(e->desc, GK__LT_DESC_BIAS_DATA_TYPE, &bt, sizeof bt), "BIAS_DATA_TYPE");
            }
        }
        GK__LT(ctx->lt.LayoutCreate(&e->la, gk__lt_type(dt), (uint64_t)(ta == GK__CUBLAS_OP_N ? p->N : p->K),
                                    (uint64_t)(ta == GK__CUBLAS_OP_N ? p->K : p->N), lda), "layout A");
        GK__LT(ctx->lt.LayoutCreate(&e->lb, gk__lt_type(dt), (uint64_t)(tb == GK__CUBLAS_OP_N ? p->K : p->M),
                                    (uint64_t)(tb == GK__CUBLAS_OP_N ? p->M : p->K), ldb), "layout B");
        GK__LT(ctx->lt.LayoutCreate(&e->lc, gk__lt_type(odt), (uint64_t)p->N, (uint64_t)p->M, p->o_rs), "layout C");
        if (batch > 1) {
            GK__LT(ctx->lt.LayoutSet(e->la, GK__LT_LAYOUT_BATCH_COUNT, &b32, sizeof b32), "batch A");
            GK__LT(ctx->lt.LayoutSet(e->lb, GK__LT_LAYOUT_BATCH_COUNT, &b32, sizeof b32), "batch B");
            GK__LT(ctx->lt.LayoutSet(e->lc, GK__LT_LAYOUT_BATCH_COUNT, &b32, sizeof b32), "batch C");
            GK__LT(ctx->lt.LayoutSet(e->la, GK__LT_LAYOUT_STRIDED_BATCH_OFFSET, &sa, sizeof sa), "batch stride A");
            GK__LT(ctx->lt.LayoutSet(e->lb, GK__LT_LAYOUT_STRIDED_BATCH_OFFSET, &sb, sizeof sb), "batch stride B");
            GK__LT(ctx->lt.LayoutSet(e->lc, GK__LT_LAYOUT_STRIDED_BATCH_OFFSET, &sc, sizeof sc), "batch stride C");
        }
        GK__LT(ctx->lt.PrefCreate(&pref), "PreferenceCreate");
        if (ctx->lt.PrefSet(pref, GK__LT_PREF_MAX_WORKSPACE_BYTES, &wsn, sizeof wsn) != 0 ||
            ctx->lt.AlgoGetHeuristic(L->h, e->desc, e->la, e->lb, e->lc, e->lc, pref, 1, &heur, &got) != 0 || got < 1)
            st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: cuBLASLt has no algorithm for this problem (%s, M=%lld N=%lld K=%lld)", where,
                         gk_dtype_name(dt), (long long)p->M, (long long)p->N, (long long)p->K);
        ctx->lt.PrefDestroy(pref);
        if (st != GK_OK) { L->n--; gk__lt_entry_free(ctx, e); return st; }
        e->algo = heur.algo;
        e->ws = heur.workspace_size;
    }
    if (p->bias && lt_epi != GK__LT_EPILOGUE_DEFAULT) {
        const void *bp = (const void *)(uintptr_t)p->bias;
        GK__LT(ctx->lt.DescSet(e->desc, GK__LT_DESC_BIAS_POINTER, &bp, sizeof bp), "BIAS_POINTER");
    }
    if (e->ws) GK__TRY(gk__workspace(ctx, e->ws, &ws, where));
    {
        int prof = gk__dispatch_begin(ctx, "cublasLtMatmul");
        gk__cublas_status s = ctx->lt.Matmul(L->h, e->desc, alpha, (const void *)(uintptr_t)p->b, e->la, (const void *)(uintptr_t)p->a,
                                             e->lb, beta, (const void *)(uintptr_t)p->o, e->lc, (void *)(uintptr_t)p->o, e->lc, &e->algo,
                                             (void *)(uintptr_t)ws, e->ws, ctx->cur_stream->cu);
        gk__dispatch_end(ctx, prof, s == 0);
        if (e->ws) gk__unuse(ctx, ctx->ws);
        if (s != 0) return gk__err(ctx, GK_ERR_CUDA, "%s: cublasLtMatmul failed (cublasStatus %d)", where, s);
    }
    return GK_OK;
}

static const char *const gk__k_gemm[GK_DTYPE_COUNT][GK_DTYPE_COUNT] = {
    /* in f32 */ { "gk_gemm_f32_f32", NULL, "gk_gemm_f32_f16", "gk_gemm_f32_bf16" },
    /* in f64 */ { NULL, "gk_gemm_f64_f64" },
    /* in f16 */ { "gk_gemm_f16_f32", NULL, "gk_gemm_f16_f16", "gk_gemm_f16_bf16" },
    /* in bf16 */ { "gk_gemm_bf16_f32", NULL, "gk_gemm_bf16_f16", "gk_gemm_bf16_bf16" } };
/* gk__matmul's answer to gk_linear_glu when the one-pass kernel cannot run */
#define GK__NEED_SCRATCH ((gk_status)(GK_STATUS_COUNT + 1))
/* GEMV kernels: [dtype][glu][MR = 1, 2, 4, 8][configuration] */
#define GK__GEMV_CFGN(D, G, M) { "gk_gemv" G "_" D "_m" M "_c0", "gk_gemv" G "_" D "_m" M "_c1", "gk_gemv" G "_" D "_m" M "_c2", \
                                 "gk_gemv" G "_" D "_m" M "_c3", "gk_gemv" G "_" D "_m" M "_c4", "gk_gemv" G "_" D "_m" M "_c5" }
#define GK__GEMV_MRN(D, G) { GK__GEMV_CFGN(D, G, "1"), GK__GEMV_CFGN(D, G, "2"), GK__GEMV_CFGN(D, G, "4"), GK__GEMV_CFGN(D, G, "8") }
#define GK__GEMV_NCFG 6
static const char *const gk__k_gemv[4][2][4][GK__GEMV_NCFG] = {
    { GK__GEMV_MRN("f32", ""), GK__GEMV_MRN("f32", "_glu") }, { { { NULL } } },
    { GK__GEMV_MRN("f16", ""), GK__GEMV_MRN("f16", "_glu") }, { GK__GEMV_MRN("bf16", ""), GK__GEMV_MRN("bf16", "_glu") } };
/* tensor-core GEMV (16-bit weights; src/ops/matmul/gemm.cu gk_gemv_tc): [dtype][glu][configuration 6, 7] */
#define GK__GEMVTC_N(D, G) { "gk_gemvtc" G "_" D "_c0", "gk_gemvtc" G "_" D "_c1" }
#define GK__GEMV_NALL 8
static const char *const gk__k_gemvtc[4][2][2] = {
    { { NULL } }, { { NULL } }, { GK__GEMVTC_N("f16", ""), GK__GEMVTC_N("f16", "_glu") }, { GK__GEMVTC_N("bf16", ""), GK__GEMVTC_N("bf16", "_glu") } };
static const int gk__gemvtc_warps[2] = { 4, 8 };
/* threads, vectors in flight per row, weight rows, per configuration (src/ops/matmul/gemm.cu GK_GEMV_CFGS) */
static const int gk__gemv_cfgs[GK__GEMV_NCFG][3] = { { 32, 4, 4 }, { 64, 4, 4 }, { 128, 4, 2 }, { 256, 4, 2 }, { 128, 2, 4 }, { 256, 2, 2 } };
/* The configuration for K (in 16-byte vectors): the smallest block that covers
   a row in one pass (NT * U >= nv), the fastest of bench_gemv's sweep
   ("gemv_cfg" rows; docs/perf-log.md has the figures). t->gemv_force_cfg >= 0
   forces a configuration (bench_gemv times each), t->gemv_smalln 0 turns the
   few-rows rule off (bench_llm --gemv-smalln 0). */
static int gk__gemv_cfg(const gk__tuning *t, int64_t nv, int64_t M, gk_dtype dt, int64_t blocks4, int sms, int glu) {
    int tc = dt == GK_F16 || dt == GK_BF16;
    if (t->gemv_force_cfg >= 0 && t->gemv_force_cfg < (tc ? GK__GEMV_NALL : GK__GEMV_NCFG)) return t->gemv_force_cfg;
    /* few output rows (blocks4: the blocks at 4 weight rows a block; a decode step's 896- or
       1152-row projections): the 4-row configurations leave most SMs with one or two
       warps, so take 2 rows a block and 4 or 8 warps (twice the blocks, more loads in flight);
       above 256 vectors one pass of 256 threads with 4 vectors in flight, ahead of 2 in flight
       (Qwen2.5-0.5B's down projection, 896 x 4864) */
    if (t->gemv_smalln && M == 1 && blocks4 * (nv <= 128 ? 1 : nv <= 256 ? 2 : 4) < 8 * (int64_t)sms) return nv <= 256 ? 2 : nv <= 1024 ? 3 : 5;
    /* several rows: the tensor cores take all of them in one pass (4 warps a block up to 256
       vectors, 8 above), far ahead of the SIMT kernels */
    if (tc && M > 1) return nv <= 256 ? 6 : 7;
    /* one row of at most 128 vectors: one warp a block of 4 rows; with fewer blocks (under 32 a
       SM at 4 rows a block) a GLU takes the tensor-core GEMV with 8 warps (Qwen2.5-0.5B's gate /
       up, 2 x 4864 x 896), other products 4 rows over 128 threads */
    if (nv <= 128) return blocks4 < 32 * (int64_t)sms ? (glu && tc ? 7 : 4) : 0;
    if (nv <= 256) return 1;
    return 4;
}
static const char *const gk__k_epi[4] = { "gk_epilogue_f32", NULL, "gk_epilogue_f16", "gk_epilogue_bf16" };

/* gpukit's tensor-core GEMM (src/ops/matmul/gk_gemm_tc.cuh, sm_80+; modules gemm_tc.cu
   for bf16, gemm_tc_f16.cu, gemm_tc_tf32.cu): names by input
   [f32 (TF32) / f16 / bf16][tile][A layout k/m][B layout k/n]. Tiles:
   0 = 128x256 (16-bit) / 128x128 (tf32), 1 = 128x128 (16-bit). */
#define GK__TC_NAMES(D, T) { { "gk_tc_" D "_" T "_kk", "gk_tc_" D "_" T "_kn" }, { "gk_tc_" D "_" T "_mk", "gk_tc_" D "_" T "_mn" } }
static const char *const gk__k_tc[3][2][2][2] = {
    { GK__TC_NAMES("tf32", "128x128"), GK__TC_NAMES("tf32", "128x128") },
    { GK__TC_NAMES("f16", "128x256"), GK__TC_NAMES("f16", "128x128") },
    { GK__TC_NAMES("bf16", "128x256"), GK__TC_NAMES("bf16", "128x128") } };
#undef GK__TC_NAMES
/* tile sizes and shared memory (stages * (BM + BN) * BK * element size) of gk__k_tc */
static const int gk__tc_tile[3][2][3] = { { { 128, 128, 3 * 256 * 32 * 4 }, { 128, 128, 3 * 256 * 32 * 4 } },
                                          { { 128, 256, 4 * 384 * 32 * 2 }, { 128, 128, 4 * 256 * 32 * 2 } },
                                          { { 128, 256, 4 * 384 * 32 * 2 }, { 128, 128, 4 * 256 * 32 * 2 } } };

/* Whether the tensor-core kernels take this problem: sm_80+, f16 / bf16 (f32
   only with allow_tf32), A and B 16-byte aligned with leading and batch
   strides that keep every row 16-byte aligned. Anything else (odd leading
   dims, offset views) runs on the SIMT kernel: never a misaligned access. */
static int gk__tc_ok(const gk_ctx *ctx, const gk__mm *p, gk_dtype dt, int tf32) {
    int v = dt == GK_F32 ? 4 : 8;
    int64_t lda = p->a_cs == 1 ? p->a_rs : p->a_cs, ldb = p->b_rs == 1 ? p->b_cs : p->b_rs;
    if (ctx->info.cc_major < 8 || !(dt == GK_F16 || dt == GK_BF16 || (dt == GK_F32 && tf32))) return 0;
    if ((p->a_cs != 1 && p->a_rs != 1) || (p->b_cs != 1 && p->b_rs != 1)) return 0;
    if (((p->a | p->b) & 15) != 0 || lda % v != 0 || ldb % v != 0 || p->a_bs % v != 0 || p->b_bs % v != 0) return 0;
    return 1;
}
/* Launches it: the 128x256 tile unless that gives fewer blocks than SMs. */
static gk_status gk__tc_launch(gk_ctx *ctx, const gk__mm *p, int64_t batch, gk_dtype dt, gk_dtype odt, const char *W) {
    int di = dt == GK_F32 ? 0 : dt == GK_F16 ? 1 : 2, ti = 0;
    int ak = p->a_cs == 1 ? 0 : 1, bk = p->b_rs == 1 ? 0 : 1;
    int64_t tiles;
    unsigned g[3], bl[3];
    void *args[1];
    gk__mm q = *p;
    tiles = (p->M + gk__tc_tile[di][0][0] - 1) / gk__tc_tile[di][0][0] * ((p->N + gk__tc_tile[di][0][1] - 1) / gk__tc_tile[di][0][1]) * batch;
    if (di != 0 && tiles < ctx->info.sm_count) ti = 1;
    tiles = (p->M + gk__tc_tile[di][ti][0] - 1) / gk__tc_tile[di][ti][0] * ((p->N + gk__tc_tile[di][ti][1] - 1) / gk__tc_tile[di][ti][1]);
    if (tiles > 0x7FFFFFFF) return gk__err(ctx, GK_ERR_LIMIT, "%s: %lld tiles too many for one launch", W, (long long)tiles);
    q.pad = (int)odt; /* gemm_tc.cu reads pad as the output dtype */
    args[0] = &q;
    g[0] = (unsigned)tiles; g[1] = 1; g[2] = (unsigned)batch;
    bl[0] = 256; bl[1] = 1; bl[2] = 1;
    return gk__launch_cfg(ctx, di == 0 ? GK__MOD_GEMM_TC_TF32 : di == 1 ? GK__MOD_GEMM_TC_F16 : GK__MOD_GEMM_TC, gk__k_tc[di][ti][ak][bk], g, bl,
                          (unsigned)gk__tc_tile[di][ti][2], args, W);
}

/* gpukit's Hopper GEMM (src/ops/matmul/gemm_wg.cu, module built for sm_90a): wgmma
   fed by TMA, names by [f16 / bf16][tile 128x256 / 128x128][A k/m][B k/n],
   and per tile its BN and shared memory (ST * (128 + BN) * 64 * 2 + 1024 +
   256: 4 stages at BN 256, 6 at BN 128). */
#define GK__WG_NAMES(D, T) { { "gk_wg_" D "_" T "_kk", "gk_wg_" D "_" T "_kn" }, { "gk_wg_" D "_" T "_mk", "gk_wg_" D "_" T "_mn" } }
static const char *const gk__k_wg[2][2][2][2] = { { GK__WG_NAMES("f16", "128x256"), GK__WG_NAMES("f16", "128x128") },
                                                  { GK__WG_NAMES("bf16", "128x256"), GK__WG_NAMES("bf16", "128x128") } };
#undef GK__WG_NAMES
/* tf32 (f32 with allow_tf32): K-major operands only, [tile] */
static const char *const gk__k_wg_f32[2] = { "gk_wg_f32_128x256_kk", "gk_wg_f32_128x128_kk" };
/* gk_wg_tr32's parameters (src/ops/matmul/gemm_wg.cu gk_wg_tr_p):
   out[b][c * ldo + r] = in[b][r * ld + c] */
typedef struct gk__wg_tr { uint64_t in, out; int64_t R, C, ld, bs, ldo, obs; } gk__wg_tr;
static const int gk__wg_tile[2][2] = { { 256, 4 * 384 * 64 * 2 + 1280 }, { 128, 6 * 256 * 64 * 2 + 1280 } };
/* ctx->tune.wg_mode -1: the wgmma kernel wherever gk__wg_ok allows it (unless
   the environment has GPUKIT_GEMM_WGMMA=0); 0: never (the mma.sync kernel
   instead). Set by bench/bench_gemm.c and tests/test_matmul.c (they include
   the implementation) to measure and test both; tune.wg_launches counts
   launches. */
/* gk__wg_launch's answer when it did not launch (no tensor map, module
   unavailable): the caller runs the mma.sync kernel; no error recorded */
#define GK__WG_DECLINED ((gk_status)(GK_STATUS_COUNT + 2))

/* Whether the wgmma kernel takes this problem: what gemm_tc needs (16-byte
   aligned A and B, leading and batch strides multiples of 16 bytes: also
   TMA's rules) for f16 / bf16, or f32 with allow_tf32 (tf32), on a
   compute capability 9.0 device, with
   cuTensorMapEncodeTiled in the driver, NVRTC able to target sm_90 (or a
   cached build) and the module not already failed; sizes within TMA's
   32-bit coordinates and 2^40-byte strides. */
static int gk__wg_ok(gk_ctx *ctx, const gk__mm *p, int64_t batch, gk_dtype dt, int tf32) {
    int i, nv = ctx->n_nvrtc_archs == 0;
    int64_t lim = (int64_t)1 << 30, la = p->a_cs == 1 ? p->a_rs : p->a_cs, lb = p->b_rs == 1 ? p->b_cs : p->b_rs;
    if (ctx->tune.wg_mode == 0) return 0; /* also GPUKIT_GEMM_WGMMA=0 (gk_ctx_create) */
    if (ctx->info.cc_major != 9 || ctx->info.cc_minor != 0 || (dt != GK_F16 && dt != GK_BF16 && !(dt == GK_F32 && tf32)) ||
        !ctx->cu.TensorMapEncodeTiled)
        return 0;
#ifdef GK__MOD_GEMM_WG
    if (ctx->lib[GK__MOD_GEMM_WG].tried && ctx->lib[GK__MOD_GEMM_WG].status != GK_OK) return 0;
#else
    return 0;
#endif
    for (i = 0; i < ctx->n_nvrtc_archs; i++) if (ctx->nvrtc_archs[i] == 90) nv = 1;
    if (!nv || !gk__tc_ok(ctx, p, dt, tf32)) return 0;
    if (p->M >= lim || p->N >= lim || p->K >= lim || batch > 65535 || la >= lim || lb >= lim || p->a_bs >= ((int64_t)1 << 38) ||
        p->b_bs >= ((int64_t)1 << 38) || la * (p->a_cs == 1 ? p->M : p->K) >= ((int64_t)1 << 38) ||
        lb * (p->b_rs == 1 ? p->N : p->K) >= ((int64_t)1 << 38))
        return 0;
    return 1;
}
/* Builds the two tensor maps and launches a persistent grid (at most one
   block per SM): the 128x256 tile unless that gives fewer tiles than SMs
   (then 128x128). Maps are 3-d {inner, outer,
   batch} with the box src/ops/matmul/gemm_wg.cu describes; a 2-d operand shared by
   every batch has a batch extent of 1. tf32 (f32): wgmma reads tf32 operands
   K-major only, so an M-major A or N-major B is first transposed (gk_wg_tr32)
   into K-major scratch from gk__workspace (rows padded to 16 bytes); the
   kernel is gk_wg_f32_*_kk with k tiles of 32 elements (boxes {32, ..}). */
static gk_status gk__wg_launch(gk_ctx *ctx, const gk__mm *p, int64_t batch, gk_dtype dt, gk_dtype odt, const char *W) {
    unsigned char buf[2 * sizeof(gk__cu_tensormap) + 64];
    gk__cu_tensormap *tm = (gk__cu_tensormap *)(void *)(buf + ((64 - ((uintptr_t)buf & 63)) & 63));
    int di = dt == GK_BF16, ak = p->a_cs == 1 ? 0 : 1, bk = p->b_rs == 1 ? 0 : 1, ti = 0, BN, tdt, f32 = dt == GK_F32, ntr = 0, i, pinned = 0;
    int64_t tiles, esz = f32 ? 4 : 2, kbox = f32 ? 32 : 64;
    uint64_t dims[3], strides[2];
    unsigned box[3], es[3] = { 1, 1, 1 }, g[3], bl[3];
    void *args[3];
    gk__mm q = *p;
    gk__wg_tr tr[2];
    gk_status st;
    tdt = f32 ? GK__CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : dt == GK_BF16 ? GK__CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : GK__CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    if (f32 && (ak || bk)) {
        /* K-major copies of the operands that are not: A as [batch][M][ldk], B as [batch][N][ldk] */
        int64_t ldk = (p->K + 3) / 4 * 4, na = ak ? (p->a_bs ? batch : 1) * p->M * ldk : 0, nb = bk ? (p->b_bs ? batch : 1) * p->N * ldk : 0;
        int64_t offb = (na * 4 + 255) / 256 * 256;
        gk__cu_ptr ws;
        if (gk__workspace(ctx, (size_t)(offb + nb * 4), &ws, W) != GK_OK) { gk_error_clear(ctx); return GK__WG_DECLINED; } /* no room: gemm_tc needs none */
        pinned = 1; /* released (gk__unuse) on every return below */
        if (ak) { /* op(A)[m, k] at m + k * a_cs: rows k, columns m */
            tr[ntr].in = p->a; tr[ntr].out = ws; tr[ntr].R = p->K; tr[ntr].C = p->M; tr[ntr].ld = p->a_cs; tr[ntr].bs = p->a_bs;
            tr[ntr].ldo = ldk; tr[ntr].obs = p->a_bs ? p->M * ldk : 0; ntr++;
            q.a = ws; q.a_rs = ldk; q.a_cs = 1; q.a_bs = p->a_bs ? p->M * ldk : 0;
        }
        if (bk) { /* op(B)[k, n] at k * b_rs + n: rows k, columns n; K-major is b_rs = 1, b_cs = ldk */
            tr[ntr].in = p->b; tr[ntr].out = ws + (uint64_t)offb; tr[ntr].R = p->K; tr[ntr].C = p->N; tr[ntr].ld = p->b_rs; tr[ntr].bs = p->b_bs;
            tr[ntr].ldo = ldk; tr[ntr].obs = p->b_bs ? p->N * ldk : 0; ntr++;
            q.b = ws + (uint64_t)offb; q.b_rs = 1; q.b_cs = ldk; q.b_bs = p->b_bs ? p->N * ldk : 0;
        }
        ak = bk = 0;
    }
    if (f32) p = &q; /* the maps below read the (possibly transposed) operands */
    if ((p->M + 127) / 128 * ((p->N + 255) / 256) * batch < ctx->info.sm_count) ti = 1;
    BN = gk__wg_tile[ti][0];
    tiles = (p->M + 127) / 128 * ((p->N + BN - 1) / BN);
    /* A: k-major {K, M, b} box {64, 128}; m-major {M, K, b} box {64, 64} */
    dims[0] = (uint64_t)(ak ? p->M : p->K); dims[1] = (uint64_t)(ak ? p->K : p->M); dims[2] = (uint64_t)(p->a_bs ? batch : 1);
    strides[0] = (uint64_t)((ak ? p->a_cs : p->a_rs) * esz);
    strides[1] = p->a_bs ? (uint64_t)(p->a_bs * esz) : strides[0] * dims[1];
    box[0] = (unsigned)kbox; box[1] = ak ? 64 : 128; box[2] = 1;
    if (ctx->cu.TensorMapEncodeTiled(&tm[0], tdt, 3, (void *)(uintptr_t)p->a, dims, strides, box, es, GK__CU_TENSOR_MAP_INTERLEAVE_NONE,
                                     GK__CU_TENSOR_MAP_SWIZZLE_128B, GK__CU_TENSOR_MAP_L2_PROMOTION_L2_256B, GK__CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != 0) {
        if (pinned) gk__unuse(ctx, ctx->ws);
        return GK__WG_DECLINED;
    }
    /* B: k-major ([N, K] weight) {K, N, b} box {64, BN}; n-major {N, K, b} box {64, 64} */
    dims[0] = (uint64_t)(bk ? p->N : p->K); dims[1] = (uint64_t)(bk ? p->K : p->N); dims[2] = (uint64_t)(p->b_bs ? batch : 1);
    strides[0] = (uint64_t)((bk ? p->b_rs : p->b_cs) * esz);
    strides[1] = p->b_bs ? (uint64_t)(p->b_bs * esz) : strides[0] * dims[1];
    box[0] = (unsigned)kbox; box[1] = bk ? 64 : (unsigned)BN; box[2] = 1;
    if (ctx->cu.TensorMapEncodeTiled(&tm[1], tdt, 3, (void *)(uintptr_t)p->b, dims, strides, box, es, GK__CU_TENSOR_MAP_INTERLEAVE_NONE,
                                     GK__CU_TENSOR_MAP_SWIZZLE_128B, GK__CU_TENSOR_MAP_L2_PROMOTION_L2_256B, GK__CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != 0) {
        if (pinned) gk__unuse(ctx, ctx->ws);
        return GK__WG_DECLINED;
    }
    q.pad = (int)odt | (int)(batch << 8); /* gemm_wg.cu reads pad as output dtype | batch count << 8 */
    args[0] = &tm[0]; args[1] = &tm[1]; args[2] = &q;
    /* persistent: one block per SM at most (197 KiB of shared memory each) walks the tiles */
    tiles *= batch;
    g[0] = (unsigned)(tiles < ctx->info.sm_count ? tiles : ctx->info.sm_count); g[1] = 1; g[2] = 1;
    bl[0] = 384; bl[1] = 1; bl[2] = 1;
#ifdef GK__MOD_GEMM_WG
    st = GK_OK;
    for (i = 0; i < ntr && st == GK_OK; i++) {
        unsigned tg[3], tb[3] = { 32, 8, 1 };
        void *ta[1];
        int64_t ry = (tr[i].R + 63) / 64; /* 64x64 tiles */
        ta[0] = &tr[i];
        tg[0] = (unsigned)((tr[i].C + 63) / 64); tg[1] = (unsigned)(ry < 65535 ? ry : 65535); tg[2] = (unsigned)(tr[i].bs ? batch : 1);
        if (ctx->prof) gk__prof_note(ctx, 8.0 * (double)tr[i].R * (double)tr[i].C * (double)tg[2], 0); /* (the product's hint follows) */
        st = gk__launch_cfg(ctx, GK__MOD_GEMM_WG, "gk_wg_tr32", tg, tb, 0, ta, W);
    }
    if (ntr && ctx->prof) gk__mm_note(ctx, p, batch, dt, odt, 0);
    if (st == GK_OK)
        st = gk__launch_cfg(ctx, GK__MOD_GEMM_WG, f32 ? gk__k_wg_f32[ti] : gk__k_wg[di][ti][ak][bk], g, bl, (unsigned)gk__wg_tile[ti][1], args, W);
    if (pinned) gk__unuse(ctx, ctx->ws);
    if (st != GK_OK && ctx->lib[GK__MOD_GEMM_WG].status != GK_OK) { gk_error_clear(ctx); return GK__WG_DECLINED; } /* module unavailable */
#else
    (void)W; (void)args; (void)g; (void)bl; (void)di; (void)tr; (void)i; st = GK__WG_DECLINED;
    if (pinned) gk__unuse(ctx, ctx->ws);
#endif
    if (st == GK_OK) ctx->tune.wg_launches++;
    return st;
}

/* gpukit's exact f32 GEMM on CUDA cores (src/ops/matmul/gemm_f32.cu): 128x128
   tiles, k tile 8, 256 threads of 8x8 register tiles, double-buffered
   k-major shared memory. Names by [A k/m][B k/n][output dtype]. It needs A
   and B 16-byte aligned with leading and batch strides multiples of 4
   elements (float4 loads; any M, N, K: the edges are predicated), else the
   SIMT kernel runs. ctx->tune.sg_mode -1: used wherever gk__sg_ok allows; 0:
   never (bench and tests set it to compare); tune.sg_launches counts its
   launches. */
#define GK__SG_NAMES(A, B) { "gk_sg_" A "_" B "_f32", NULL, "gk_sg_" A "_" B "_f16", "gk_sg_" A "_" B "_bf16" }
static const char *const gk__k_sg[2][2][4] = { { GK__SG_NAMES("k", "n"), GK__SG_NAMES("k", "k") }, { GK__SG_NAMES("m", "n"), GK__SG_NAMES("m", "k") } };
#undef GK__SG_NAMES
/* gk_sg1_*: the same tile with a k tile of 16 (f32 out only), which halves the
   barriers and, for a k-contiguous operand, reads 64 bytes of a row a tile
   instead of 32: ahead for NT and TN, behind for NN (docs/perf-log.md).
   ctx->tune.sg_variant -1 (default): the rule, f32 out of NN (A k-, B
   n-contiguous) on the kernels above, of the other layouts (TT as NT and
   TN) on gk_sg1; 0 / 1: that kernel (bench_gemm times both, tests check
   both). tune.sg_last: the variant of the last launch. */
static const char *const gk__k_sg1[2][2] = { { "gk_sg1_k_n_f32", "gk_sg1_k_k_f32" }, { "gk_sg1_m_n_f32", "gk_sg1_m_k_f32" } };
static int gk__sg_ok(const gk_ctx *ctx, const gk__mm *p, int64_t batch, gk_dtype dt, gk_dtype odt) {
    int64_t lda = p->a_cs == 1 ? p->a_rs : p->a_cs, ldb = p->b_cs == 1 ? p->b_rs : p->b_cs;
    int64_t tiles = (p->M + 127) / 128 * ((p->N + 127) / 128);
    if (ctx->tune.sg_mode == 0 || dt != GK_F32 || (odt != GK_F32 && odt != GK_F16 && odt != GK_BF16) || p->K <= 0 || batch > 65535 || tiles > 0x7FFFFFFF)
        return 0;
    if ((p->a_cs != 1 && p->a_rs != 1) || (p->b_cs != 1 && p->b_rs != 1)) return 0;
    if (((p->a | p->b) & 15) != 0 || lda % 4 != 0 || ldb % 4 != 0 || p->a_bs % 4 != 0 || p->b_bs % 4 != 0) return 0;
    return 1;
}
static gk_status gk__sg_launch(gk_ctx *ctx, const gk__mm *p, int64_t batch, gk_dtype odt, const char *W) {
    int ak = p->a_cs == 1 ? 0 : 1, bk = p->b_cs == 1 ? 0 : 1, v = 0;
    if (odt == GK_F32) v = ctx->tune.sg_variant >= 0 && ctx->tune.sg_variant <= 1 ? ctx->tune.sg_variant : (ak || bk) ? 1 : 0;
    unsigned g[3], bl[3];
    void *args[1];
    gk__mm q = *p;
    gk_status st;
    args[0] = &q;
    g[0] = (unsigned)((p->M + 127) / 128 * ((p->N + 127) / 128)); g[1] = (unsigned)batch; g[2] = 1;
    bl[0] = 256; bl[1] = 1; bl[2] = 1;
    st = gk__launch_cfg(ctx, GK__MOD_GEMM_F32, v ? gk__k_sg1[ak][bk] : gk__k_sg[ak][bk][odt], g, bl, 0, args, W);
    if (st == GK_OK) { ctx->tune.sg_launches++; ctx->tune.sg_last = v; }
    return st;
}

/* >>matmul_dispatch: the matmul dispatcher, gk_matmul / gk_linear / gk_linear_glu */
/* The dispatcher. GEMV (decode) when A has at most 8 rows, B is a [N, K]
   weight (column-major op(B)) and both are 16-byte aligned with K a multiple
   of the vector width: it reads each weight once. Else cuBLASLt for
   f16/bf16/f32/f64 when loaded (AUTO; its wgmma kernels are what gpukit's own
   are measured against; bench/bench_gemm.c), else gpukit's GEMM
   (GK__MM_GEMM), which is, in gk__matmul:
   - gemm_wg (src/ops/matmul/gemm_wg.cu; gk__wg_ok / gk__wg_launch): compute
     capability 9.0 (the module is built for sm_90a), f16 / bf16 / tf32, gemm_tc's
     alignment rules (which are TMA's), every layout, batch, epilogue and
     output dtype; wgmma fed by TMA through an mbarrier pipeline, 128x256 or
     128x128 tiles, persistent grid. Off with GPUKIT_GEMM_WGMMA=0 in the
     environment; any failure to build its tensor maps or its module falls
     back to gemm_tc. At 4096^3 and 8192^3 it runs within about 10% of
     PyTorch and several times gemm_tc (docs/perf-log.md).
     tf32 (f32 with allow_tf32): K-major operands only (tf32 wgmma has no
     transpose bits), so an M-major A / N-major B is first transposed into
     K-major scratch from gk__workspace (gk_wg_tr32, same stream); with that
     transpose it stays within about 10% of cuBLASLt (docs/perf-log.md).
   - gemm_tc (src/ops/matmul/gk_gemm_tc.cuh; gk__tc_ok / gk__tc_launch): sm_80+,
     f16 / bf16, or f32 with allow_tf32 (TF32, m16n8k8); A and B 16-byte
     aligned with leading and batch strides multiples of 16 bytes (any M, N,
     K; any of the NN / NT / TN / TT layouts; batches; every epilogue and
     output dtype). Tile 128x256 (1 block / SM), or 128x128 (2 blocks / SM)
     when 128x256 tiles would not cover the SMs; tf32 128x128. On 9.0 it is
     far behind gemm_wg and cuBLASLt (docs/perf-log.md), so there it runs
     only where gemm_wg declines.
   - exact f32 (no TF32; src/ops/matmul/gemm_f32.cu; gk__sg_ok / gk__sg_launch):
     any arch; A and B 16-byte aligned with leading and batch strides
     multiples of 4 elements, row- or column-major each (NN / NT / TN / TT),
     any M, N, K (edges predicated), batches, every epilogue, f32 / f16 /
     bf16 out. 128x128 block tiles, k tile 8, 8x8 per thread, double-buffered
     shared memory, one barrier per k tile; 1D grid grouped by 8 tile rows.
     bench_gemm --f32 times it and its two k tiles (tune.sg_variant) next to
     cuBLASLt and PyTorch (docs/perf-log.md).
   - else the SIMT kernel (f64, f32 with misaligned or odd strides).
   backend GPUKIT forces gpukit's GEMV / GEMM; CUBLASLT forces cuBLASLt. */
enum { GK__MM_CPU = 0, GK__MM_GEMV, GK__MM_GEMM, GK__MM_LT };
static int gk__matmul_plan(gk_ctx *ctx, const gk__mm *p, int64_t batch, gk_dtype dt, gk_dtype odt, gk_matmul_backend be) {
    int vec = dt == GK_F32 ? 4 : 8;
    if (ctx->backend == GK_BACKEND_CPU) return GK__MM_CPU;
    if (be != GK_MATMUL_CUBLASLT && batch == 1 && p->M <= 8 && dt != GK_F64 && odt == dt && p->b_rs == 1 && p->a_cs == 1 &&
        p->K % vec == 0 && (p->b_cs * (int64_t)gk__dtype_sizes[dt]) % 16 == 0 && (p->a_rs * (int64_t)gk__dtype_sizes[dt]) % 16 == 0 &&
        ((p->a | p->b) & 15) == 0)
        return GK__MM_GEMV;
    if (be == GK_MATMUL_GPUKIT) return GK__MM_GEMM;
    if (ctx->info.has_cublaslt && (odt == dt || (odt == GK_F32 && dt != GK_F64))) return GK__MM_LT;
    return GK__MM_GEMM;
}

static gk_status gk__matmul(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b, const gk_matmul_desc *desc, int linear, const char *W) {
    const char *names[5] = { "out", "a", "b", "bias", "residual" };
    gk_tensor ts[5];
    gk__opnds ops;
    gk__slot *so, *sa, *sb;
    gk__mm p;
    gk_matmul_desc d;
    int64_t batch, M, N, K, tmp;
    int n = 3, plan, ib = -1, ir = -1;
    gk_status st;
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    ts[0] = out; ts[1] = a; ts[2] = b;
    if (d.bias.id) { ib = n; ts[n++] = d.bias; }
    if (d.residual.id) { ir = n; names[n] = "residual"; ts[n++] = d.residual; }
    GK__ENTER(ctx, W);
    memset(&p, 0, sizeof p);
    st = gk__operands(ctx, &ops, ts, names, n, W);
    if (st != GK_OK) goto done;
    so = ops.s[0]; sa = ops.s[1]; sb = ops.s[2];
    if (d.act < GK_ACT_NONE || d.act > GK_ACT_RELU || d.backend < GK_MATMUL_AUTO || d.backend > GK_MATMUL_CUBLASLT) {
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: invalid act %d or backend %d", W, (int)d.act, (int)d.backend);
        goto done;
    }
    if (sa->dtype != sb->dtype || (sa->dtype != GK_F32 && sa->dtype != GK_F64 && sa->dtype != GK_F16 && sa->dtype != GK_BF16)) {
        st = gk__err(ctx, GK_ERR_DTYPE, "%s: a is %s and b is %s; they must be one of f32, f64, f16, bf16", W, gk_dtype_name(sa->dtype), gk_dtype_name(sb->dtype));
        goto done;
    }
    if (!(so->dtype == sa->dtype || (so->dtype == GK_F32 && sa->dtype != GK_F64) ||
          (gk_dtype_is_float(so->dtype) && so->dtype <= GK_BF16 && sa->dtype != GK_F64 && so->dtype != GK_F64))) {
        st = gk__err(ctx, GK_ERR_DTYPE, "%s: out is %s but a and b are %s", W, gk_dtype_name(so->dtype), gk_dtype_name(sa->dtype));
        goto done;
    }
    if (d.allow_tf32 && sa->dtype != GK_F32) {
        st = gk__err(ctx, GK_ERR_DTYPE, "%s: allow_tf32 applies to f32 inputs, not %s", W, gk_dtype_name(sa->dtype));
        goto done;
    }
    if (linear) {
        /* x [.., K] flattened to [M, K]; w [N, K] used as its transpose */
        int64_t rows = 1;
        int i;
        if (sa->ndim < 1 || sb->ndim != 2 || so->ndim != sa->ndim) {
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: x must be [.., K], w [N, K] and out [.., N] (ndims %d, %d, %d)", W, sa->ndim, sb->ndim, so->ndim);
            goto done;
        }
        for (i = 0; i < sa->ndim - 1; i++) {
            if (so->shape[i] != sa->shape[i]) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: out's leading dims differ from x's", W); goto done; }
            rows *= sa->shape[i];
        }
        /* rows must be one stride apart */
        for (i = 0; i + 1 < sa->ndim - 1; i++)
            if (sa->shape[i] > 1 && sa->strides[i] != sa->strides[i + 1] * sa->shape[i + 1]) break;
        if (i + 1 < sa->ndim - 1 || sa->strides[sa->ndim - 1] != 1 || so->strides[so->ndim - 1] != 1) {
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: x and out need contiguous rows (use gk_contiguous)", W);
            goto done;
        }
        batch = 1; M = rows; K = sa->shape[sa->ndim - 1]; N = linear == 2 ? sb->shape[0] / 2 : sb->shape[0];
        if (linear == 2 && (sb->shape[0] % 2 != 0 || d.beta != 0)) {
            st = gk__err(ctx, sb->shape[0] % 2 ? GK_ERR_SHAPE : GK_ERR_INVALID_ARGUMENT, "%s: %s", W,
                         sb->shape[0] % 2 ? "w must have an even number of rows ([gate; up])" : "beta must be 0");
            goto done;
        }
        if (sb->shape[1] != K || so->shape[so->ndim - 1] != N) {
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: x has K = %lld, w is [%lld, %lld], out's last dim %lld", W, (long long)K,
                         (long long)sb->shape[0], (long long)sb->shape[1], (long long)so->shape[so->ndim - 1]);
            goto done;
        }
        p.a_rs = sa->ndim >= 2 ? sa->strides[sa->ndim - 2] : K; p.a_cs = 1;
        if (M == 1) p.a_rs = K;
        p.b_rs = sb->strides[1]; p.b_cs = sb->strides[0]; /* op(B)[k, n] = w[n, k] */
        if (p.b_rs != 1 && p.b_cs != 1) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: w must be contiguous in one dim", W); goto done; }
        p.o_rs = so->ndim >= 2 ? so->strides[so->ndim - 2] : N;
        if (M == 1) p.o_rs = N;
    } else {
        if (sa->ndim < 2 || sa->ndim > 3 || sb->ndim < 2 || sb->ndim > 3) {
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: a and b must be 2-d or 3-d (ndims %d, %d)", W, sa->ndim, sb->ndim);
            goto done;
        }
        M = sa->shape[sa->ndim - 2]; K = sa->shape[sa->ndim - 1]; N = sb->shape[sb->ndim - 1];
        batch = sa->ndim == 3 ? sa->shape[0] : 1;
        if (sb->ndim == 3 && sb->shape[0] != 1) {
            if (batch != 1 && batch != sb->shape[0]) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: batch sizes %lld and %lld differ", W, (long long)batch, (long long)sb->shape[0]); goto done; }
            batch = sb->shape[0];
        }
        if (sb->shape[sb->ndim - 2] != K) {
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: inner dimensions differ: a is [.., %lld, %lld], b is [.., %lld, %lld]", W, (long long)M,
                         (long long)K, (long long)sb->shape[sb->ndim - 2], (long long)N);
            goto done;
        }
        if (so->ndim != (batch > 1 || sa->ndim == 3 || sb->ndim == 3 ? 3 : 2) || so->shape[so->ndim - 2] != M || so->shape[so->ndim - 1] != N ||
            (so->ndim == 3 && so->shape[0] != batch)) {
            char sh[160];
            gk__shape_str(so, sh, sizeof sh);
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: out is %s but the product is [%s%lld, %lld]", W, sh, so->ndim == 3 || batch > 1 ? "batch, " : "",
                         (long long)M, (long long)N);
            goto done;
        }
        if ((st = gk__mat_strides(ctx, sa, &p.a_rs, &p.a_cs, &p.a_bs, "a", W)) != GK_OK) goto done;
        if ((st = gk__mat_strides(ctx, sb, &p.b_rs, &p.b_cs, &p.b_bs, "b", W)) != GK_OK) goto done;
        if ((st = gk__mat_strides(ctx, so, &p.o_rs, &tmp, &p.o_bs, "out", W)) != GK_OK) goto done;
        if (tmp != 1) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: out must be row-major", W); goto done; }
        if (so->ndim == 3 && batch == 1) p.o_bs = 0;
    }
    if (ib >= 0) {
        gk__slot *s = ops.s[ib];
        if (s->ndim != 1 || s->shape[0] != (linear == 2 ? 2 * N : N) || s->strides[0] != 1 || !gk_dtype_is_float(s->dtype) || s->dtype > GK_BF16) {
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: bias must be a contiguous float vector of %lld elements", W, (long long)(linear == 2 ? 2 * N : N));
            goto done;
        }
        p.bias_dt = s->dtype;
    }
    if (ir >= 0) {
        gk__slot *s = ops.s[ir];
        int same = s->ndim == so->ndim, i;
        for (i = 0; same && i < s->ndim; i++) same = s->shape[i] == so->shape[i];
        if (!same || s->strides[s->ndim - 1] != 1 || !gk_dtype_is_float(s->dtype) || s->dtype > GK_BF16) {
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: residual must be a float tensor shaped like out, rows contiguous", W);
            goto done;
        }
        p.r_rs = s->ndim >= 2 ? s->strides[s->ndim - 2] : N;
        p.r_bs = s->ndim == 3 ? s->strides[0] : 0;
        if (linear) { p.r_rs = N; p.r_bs = 0; if (s->ndim >= 2 && !gk__is_contig(s)) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: residual must be contiguous", W); goto done; } }
        p.res_dt = s->dtype;
    }
    if (linear && !gk__is_contig(so)) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: out must be contiguous", W); goto done; }
    if (linear && M > 1 && !gk__is_contig(sa) && sa->ndim > 2) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: x must be contiguous", W); goto done; }
    p.M = M; p.N = N; p.K = K;
    p.alpha = d.alpha == 0 ? 1.0 : d.alpha;
    p.beta = d.beta;
    p.act = d.act;
    if (M == 0 || N == 0 || batch == 0) goto done;
    if ((st = gk__operands_use(ctx, &ops, W)) != GK_OK) goto done;
    p.o = gk__slot_addr(so); p.a = gk__slot_addr(sa); p.b = gk__slot_addr(sb);
    if (ib >= 0) p.bias = gk__slot_addr(ops.s[ib]);
    if (ir >= 0) p.res = gk__slot_addr(ops.s[ir]);
    if (K == 0) { p.a = p.b; } /* the product is 0: the epilogue still runs */
    plan = gk__matmul_plan(ctx, &p, batch, sa->dtype, so->dtype, d.backend);
    if (K == 0 && plan == GK__MM_LT) plan = GK__MM_GEMM; /* nothing to multiply: gpukit's epilogue */
    if (d.backend == GK_MATMUL_CUBLASLT && plan != GK__MM_LT && plan != GK__MM_CPU) {
        st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: cuBLASLt %s for %s -> %s", W, ctx->info.has_cublaslt ? "has no path" : "is not loaded",
                     gk_dtype_name(sa->dtype), gk_dtype_name(so->dtype));
    } else if (linear == 2 && plan != GK__MM_GEMV && !(plan == GK__MM_CPU && M <= 8)) {
        st = GK__NEED_SCRATCH; /* gk_linear_glu takes the two-step path (both backends alike); no error recorded */
    } else if (plan == GK__MM_CPU) {
        gk__mm_cpu c;
        c.m = p; c.batch = batch; c.dt = sa->dtype; c.odt = so->dtype; c.glu = linear == 2;
        if (ctx->prof) gk__mm_note(ctx, &p, batch, sa->dtype, so->dtype, linear == 2);
        st = gk__cpu_run(ctx, gk__matmul_cpu, &c, sizeof c, W);
    } else if (plan == GK__MM_GEMV) {
        /* programmatic dependent launch (sm_90+): the GEMV kernels issue their first
           weight loads, then wait for the previous kernel (gk_pdl_wait), so a block's
           start and its first DRAM round trip overlap the previous kernel's tail */
        void *args[1];
        unsigned g[3], bl[3];
        args[0] = &p;
        int cfg = gk__gemv_cfg(&ctx->tune, K / (16 / (int64_t)gk__dtype_sizes[sa->dtype]), M, sa->dtype, (N + (linear == 2 ? 1 : 3)) / (linear == 2 ? 2 : 4),
                               ctx->info.sm_count, linear == 2);
        int mri = M <= 1 ? 0 : M <= 2 ? 1 : M <= 4 ? 2 : 3;
        g[1] = 1; g[2] = 1; bl[1] = 1; bl[2] = 1;
        if (ctx->prof) gk__mm_note(ctx, &p, 1, sa->dtype, so->dtype, linear == 2);
        if (cfg >= GK__GEMV_NCFG) { /* tensor cores: 16 output columns a block */
            g[0] = (unsigned)((N + 15) / 16);
            bl[0] = (unsigned)(32 * gk__gemvtc_warps[cfg - GK__GEMV_NCFG]);
            st = gk__launch_ex(ctx, GK__MOD_GEMM, gk__k_gemvtc[sa->dtype][linear == 2][cfg - GK__GEMV_NCFG], g, bl, 0, args, GK__LAUNCH_PDL, W);
        } else {
            int rows = gk__gemv_cfgs[cfg][2] / (linear == 2 ? 2 : 1);
            g[0] = (unsigned)((N + rows - 1) / rows);
            bl[0] = (unsigned)gk__gemv_cfgs[cfg][0];
            st = gk__launch_ex(ctx, GK__MOD_GEMM, gk__k_gemv[sa->dtype][linear == 2][mri][cfg], g, bl, 0, args, GK__LAUNCH_PDL, W);
        }
    } else if (plan == GK__MM_LT && K > 0) {
        int epi = GK__LT_EPILOGUE_DEFAULT, post = p.res || (p.act != GK_ACT_NONE && p.act != GK_ACT_GELU_TANH);
        if (p.act == GK_ACT_GELU_TANH) epi = p.bias ? GK__LT_EPILOGUE_GELU_BIAS : GK__LT_EPILOGUE_GELU;
        else if (p.bias) epi = GK__LT_EPILOGUE_BIAS;
        if (p.act != GK_ACT_NONE && p.act != GK_ACT_GELU_TANH && p.bias == 0) epi = GK__LT_EPILOGUE_DEFAULT;
        if (ctx->prof) gk__mm_note(ctx, &p, batch, sa->dtype, so->dtype, 0); /* (cublasLtMatmul's record) */
        st = gk__matmul_lt(ctx, &p, batch, sa->dtype, so->dtype, d.allow_tf32, epi, W);
        if (st == GK_ERR_UNSUPPORTED && epi != GK__LT_EPILOGUE_DEFAULT) {
            /* no algorithm with that epilogue (e.g. unaligned leading dims):
               the plain product, then bias and activation in our pass */
            st = gk__matmul_lt(ctx, &p, batch, sa->dtype, so->dtype, d.allow_tf32, GK__LT_EPILOGUE_DEFAULT, W);
            if (st == GK_OK) { epi = GK__LT_EPILOGUE_DEFAULT; post = 1; }
        }
        if (st == GK_ERR_UNSUPPORTED && d.backend == GK_MATMUL_AUTO) {
            plan = GK__MM_GEMM; /* AUTO never fails a valid problem: gpukit's kernel */
            gk_error_clear(ctx);
            st = GK_OK;
            post = 0;
        } else if (st == GK_OK && post) {
            void *args[1];
            unsigned g[3], bl[3];
            gk__mm q = p;
            if (epi == GK__LT_EPILOGUE_GELU || epi == GK__LT_EPILOGUE_GELU_BIAS) q.act = GK_ACT_NONE; /* done by cuBLASLt */
            q.pad = epi == GK__LT_EPILOGUE_DEFAULT && p.bias != 0; /* the bias is still to add */
            args[0] = &q;
            g[0] = (unsigned)GK__MIN((M * N + 255) / 256, (int64_t)ctx->info.sm_count * 16); g[1] = (unsigned)batch; g[2] = 1;
            bl[0] = 256; bl[1] = 1; bl[2] = 1;
            st = gk__launch_cfg(ctx, GK__MOD_GEMM, gk__k_epi[so->dtype], g, bl, 0, args, W);
        }
    }
    if (st == GK_OK && plan == GK__MM_GEMM) {
        const char *k = gk__k_gemm[sa->dtype][so->dtype];
        void *args[1];
        unsigned g[3], bl[3];
        if (ctx->prof) gk__mm_note(ctx, &p, batch, sa->dtype, so->dtype, 0);
        if (!k) st = gk__err(ctx, GK_ERR_DTYPE, "%s: no kernel for %s -> %s", W, gk_dtype_name(sa->dtype), gk_dtype_name(so->dtype));
        else if (batch > 65535) st = gk__err(ctx, GK_ERR_LIMIT, "%s: batch %lld above 65535", W, (long long)batch);
        else if (K > 0 && gk__wg_ok(ctx, &p, batch, sa->dtype, d.allow_tf32) && (st = gk__wg_launch(ctx, &p, batch, sa->dtype, so->dtype, W)) != GK__WG_DECLINED) {
        } else if (K > 0 && gk__tc_ok(ctx, &p, sa->dtype, d.allow_tf32)) st = gk__tc_launch(ctx, &p, batch, sa->dtype, so->dtype, W);
        else if (K > 0 && gk__sg_ok(ctx, &p, batch, sa->dtype, so->dtype)) st = gk__sg_launch(ctx, &p, batch, so->dtype, W);
        else {
            args[0] = &p;
            g[0] = (unsigned)((N + 63) / 64); g[1] = (unsigned)((M + 63) / 64); g[2] = (unsigned)batch;
            bl[0] = 256; bl[1] = 1; bl[2] = 1;
            if (g[1] > 65535) st = gk__err(ctx, GK_ERR_LIMIT, "%s: M = %lld too large for one launch", W, (long long)M);
            else st = gk__launch_cfg(ctx, GK__MOD_GEMM, k, g, bl, 0, args, W);
        }
    }
    gk__operands_done(ctx, &ops, st == GK__NEED_SCRATCH ? GK_OK : st);
    gk__unlock(&ctx->mu);
    return st;
done:
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_matmul(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b, const gk_matmul_desc *desc) {
    return gk__matmul(ctx, out, a, b, desc, 0, "gk_matmul");
}
GKDEF gk_status gk_linear(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, const gk_matmul_desc *desc) {
    return gk__matmul(ctx, out, x, w, desc, 1, "gk_linear");
}
GKDEF gk_status gk_linear_glu(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor scratch, const gk_matmul_desc *desc) {
    const char *W = "gk_linear_glu";
    gk_tensor_info xi, wi, si, oi;
    gk_matmul_desc d;
    gk_tensor s2, g, u;
    int64_t rows = 1, N, sh[2];
    gk_status st;
    int i;
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    if (d.act != GK_ACT_NONE && d.act != GK_ACT_SILU && d.act != GK_ACT_GELU && d.act != GK_ACT_GELU_TANH)
        return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "%s: act %d is not a GLU gate (NONE, SILU, GELU, GELU_TANH)", W, (int)d.act);
    st = gk__matmul(ctx, out, x, w, &d, 2, W);
    if (st != GK__NEED_SCRATCH) return st;
    /* more than 8 rows, or operands the GEMV kernel cannot take: product to scratch, then the GLU */
    if ((st = gk_tensor_info_get(ctx, x, &xi)) != GK_OK || (st = gk_tensor_info_get(ctx, w, &wi)) != GK_OK ||
        (st = gk_tensor_info_get(ctx, out, &oi)) != GK_OK) return st;
    for (i = 0; i + 1 < xi.ndim; i++) rows *= xi.shape[i];
    N = wi.shape[0] / 2;
    if (scratch.id == 0)
        return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "%s: %lld rows need a scratch tensor of [%lld, %lld] (out's dtype)", W,
                            (long long)rows, (long long)rows, (long long)(2 * N));
    if ((st = gk_tensor_info_get(ctx, scratch, &si)) != GK_OK) return st;
    if (si.numel != rows * 2 * N || !si.contiguous || si.dtype != oi.dtype)
        return gk_error_set(ctx, GK_ERR_SHAPE, "%s: scratch is %s with %lld elements%s; it must be a contiguous %s [%lld, %lld]", W,
                            gk_dtype_name(si.dtype), (long long)si.numel, si.contiguous ? "" : " (not contiguous)", gk_dtype_name(oi.dtype),
                            (long long)rows, (long long)(2 * N));
    sh[0] = rows; sh[1] = 2 * N;
    if ((st = gk_view_reshape(ctx, scratch, 2, sh, &s2)) != GK_OK) return st;
    {
        gk_matmul_desc p = d;
        gk_tensor o2 = out, xo = x;
        int64_t xs[2];
        p.act = GK_ACT_NONE; p.residual.id = 0;
        xs[0] = rows; xs[1] = wi.shape[1];
        if ((st = gk_view_reshape(ctx, x, 2, xs, &xo)) == GK_OK) {
            st = gk_linear(ctx, s2, xo, w, &p);
            gk_tensor_free(ctx, xo);
        }
        if (st == GK_OK && (st = gk_view_slice(ctx, s2, 1, 0, N, 1, &g)) == GK_OK) {
            if ((st = gk_view_slice(ctx, s2, 1, N, 2 * N, 1, &u)) == GK_OK) {
                sh[0] = rows; sh[1] = N;
                if ((st = gk_view_reshape(ctx, out, 2, sh, &o2)) == GK_OK) {
                    gk_glu_op op = d.act == GK_ACT_SILU ? GK_GLU_SILU : d.act == GK_ACT_GELU ? GK_GLU_GELU : GK_GLU_GELU_TANH;
                    if (d.act == GK_ACT_NONE) st = gk_mul(ctx, o2, g, u);
                    else st = gk_glu(ctx, o2, g, u, op);
                    if (st == GK_OK && d.residual.id) st = gk_add(ctx, out, out, d.residual);
                    gk_tensor_free(ctx, o2);
                }
                gk_tensor_free(ctx, u);
            }
            gk_tensor_free(ctx, g);
        }
    }
    gk_tensor_free(ctx, s2);
    return st;
}
GKDEF gk_status gk_matmul_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_dtype out_dtype, const gk_matmul_desc *desc, gk_tensor *out) {
    const char *W = "gk_matmul_new";
    gk__slot *sa, *sb;
    int64_t shape[3];
    int nd;
    uint32_t idx;
    gk_tensor t;
    gk_status st;
    if (out) out->id = 0;
    GK__ENTER(ctx, W);
    st = out ? gk__lookup(ctx, a, &sa, W, "a") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (st == GK_OK) st = gk__lookup(ctx, b, &sb, W, "b");
    if (st == GK_OK && (sa->ndim < 2 || sb->ndim < 2 || sa->ndim > 3 || sb->ndim > 3))
        st = gk__err(ctx, GK_ERR_SHAPE, "%s: a and b must be 2-d or 3-d", W);
    if (st == GK_OK) {
        int64_t batch = sa->ndim == 3 ? sa->shape[0] : (sb->ndim == 3 ? sb->shape[0] : 1);
        if (sb->ndim == 3 && sb->shape[0] != 1) batch = sb->shape[0];
        nd = (sa->ndim == 3 || sb->ndim == 3) ? 3 : 2;
        if (nd == 3) { shape[0] = batch; shape[1] = sa->shape[sa->ndim - 2]; shape[2] = sb->shape[sb->ndim - 1]; }
        else { shape[0] = sa->shape[0]; shape[1] = sb->shape[1]; }
        st = gk__bind(ctx);
        if (st == GK_OK) st = gk__tensor_new(ctx, out_dtype, nd, shape, &idx, W);
        if (st == GK_OK) t = gk__handle(ctx, idx);
    }
    gk__unlock(&ctx->mu);
    if (st != GK_OK) return st;
    return gk__finish_new(ctx, gk_matmul(ctx, t, a, b, desc), t, out);
}

/* >>ops_attention: attention: CPU reference, flash, wgmma flash, decode splits */
/* ---- attention ---- */
typedef struct gk__attn {       /* layout of gk_attn_p in src/ops/attention/gk_attn.cuh */
    int64_t B, Sq, Skv, Hq, Hkv, D;
    int64_t q_bs, q_ss, q_hs, k_bs, k_ss, k_hs, v_bs, v_ss, v_hs, o_bs, o_ss, o_hs;
    int64_t m_bs, m_qs;
    uint64_t q, k, v, mask, o, q_lens, kv_lens, part;
    float scale;
    int causal, splits, chunk, tile;
    int comb; /* gk_attn_combine's one-round form allowed (tune.combine_one_round) */
    int pf;   /* decode: 64-key tiles a split prefetched into L2 before the PDL wait (tune.dec_prefetch) */
    uint64_t slot; /* decode: the splits' words (gk__dec_slots): they combine themselves (gk__dec_fold) */
} gk__attn;
typedef struct gk__attn_cpu { gk__attn a; gk_dtype dt; } gk__attn_cpu;

/* The CPU reference: f64 scores and softmax. */
static int gk__attn_cpu_run(const void *vp) {
    const gk__attn_cpu *c = (const gk__attn_cpu *)vp;
    const gk__attn *p = &c->a;
    const char *Q = (const char *)(uintptr_t)p->q, *K = (const char *)(uintptr_t)p->k, *V = (const char *)(uintptr_t)p->v;
    char *O = (char *)(uintptr_t)p->o;
    int64_t es = (int64_t)gk__dtype_sizes[c->dt], b, i, h, hk, j, d, G = p->Hq / p->Hkv;
    size_t kvn = (size_t)(p->Skv > 0 ? p->Skv : 1) * (size_t)(p->D > 0 ? p->D : 1);
    /* one kv head's K and V as f32 (exact: the operands are f32, f16 or bf16),
       converted once per (batch, kv head) rather than once per query and head */
    float *kf = GK__CAST(float *, GPUKIT_MALLOC(sizeof(float) * kvn)), *vf = GK__CAST(float *, GPUKIT_MALLOC(sizeof(float) * kvn));
    double *s = GK__CAST(double *, GPUKIT_MALLOC(sizeof(double) * (size_t)(p->Skv + 1)));
    double *acc = GK__CAST(double *, GPUKIT_MALLOC(sizeof(double) * (size_t)(p->D + 1)));
    double *qd = GK__CAST(double *, GPUKIT_MALLOC(sizeof(double) * (size_t)(p->D + 1)));
    int fail = !s || !acc || !qd || !kf || !vf;
    if (fail) goto done;
    for (b = 0; b < p->B; b++) {
        int64_t qlen = p->q_lens ? ((const int32_t *)(uintptr_t)p->q_lens)[b] : p->Sq;
        int64_t kvlen = p->kv_lens ? ((const int32_t *)(uintptr_t)p->kv_lens)[b] : p->Skv;
        if (kvlen > p->Skv) kvlen = p->Skv;
        if (qlen > p->Sq) qlen = p->Sq;
        for (hk = 0; hk < p->Hkv; hk++) {
            for (j = 0; j < kvlen; j++)
                for (d = 0; d < p->D; d++) {
                    kf[j * p->D + d] = (float)gk__ld_d(c->dt, K, b * p->k_bs + j * p->k_ss + hk * p->k_hs + d);
                    vf[j * p->D + d] = (float)gk__ld_d(c->dt, V, b * p->v_bs + j * p->v_ss + hk * p->v_hs + d);
                }
            for (h = hk * G; h < (hk + 1) * G; h++)
                for (i = 0; i < p->Sq; i++) {
                    int64_t jend = kvlen;
                    double mx = -HUGE_VAL, sum = 0;
                    gk__scalar sc;
                    if (p->causal) { int64_t lim = i + (kvlen - qlen) + 1; if (lim < jend) jend = lim < 0 ? 0 : lim; }
                    if (i >= qlen) jend = 0;
                    for (d = 0; d < p->D; d++) qd[d] = gk__ld_d(c->dt, Q, b * p->q_bs + i * p->q_ss + h * p->q_hs + d);
                    for (j = 0; j < jend; j++) {
                        const float *kr = kf + j * p->D;
                        double dot = 0;
                        for (d = 0; d < p->D; d++) dot += qd[d] * (double)kr[d];
                        s[j] = dot * p->scale;
                        if (p->mask) { float mv; memcpy(&mv, (const char *)(uintptr_t)p->mask + (b * p->m_bs + i * p->m_qs + j) * 4, 4); s[j] += mv; }
                        if (s[j] > mx) mx = s[j];
                    }
                    for (d = 0; d < p->D; d++) acc[d] = 0;
                    if (mx > -HUGE_VAL)
                        for (j = 0; j < jend; j++) {
                            const float *vr = vf + j * p->D;
                            double w = s[j] == -HUGE_VAL ? 0 : exp(s[j] - mx);
                            sum += w;
                            for (d = 0; d < p->D; d++) acc[d] += w * (double)vr[d];
                        }
                    sc.is_int = 0; sc.i = 0;
                    for (d = 0; d < p->D; d++) {
                        sc.f = sum > 0 ? acc[d] / sum : 0;
                        gk__store(c->dt, O + (b * p->o_bs + i * p->o_ss + h * p->o_hs + d) * es, sc);
                    }
                }
        }
    }
done:
    GPUKIT_FREE(kf);
    GPUKIT_FREE(vf);
    GPUKIT_FREE(s);
    GPUKIT_FREE(acc);
    GPUKIT_FREE(qd);
    return fail;
}

/* gpukit's Hopper attention (src/ops/attention/flash_wg.cu, module built for sm_90a):
   wgmma fed by TMA, 128 queries a block (two consumer warpgroups of 64 rows,
   one producer), K / V tiles of 128 keys in a ring of 2 stages; names by
   [f16 / bf16][D 64 / 128]; shared memory D/64 * 16384 * (1 + 2 stages) +
   1280; a block per tile of 128 queries (grid = q tiles x Hq x B, 1-d).
   ctx->tune.fwg_mode -1: this kernel wherever gk__fwg_ok allows it (unless the
   environment has GPUKIT_ATTN_WGMMA=0); 0: never (src/ops/attention/flash.cu instead).
   Set by tests/test_attention.c and bench/bench_gemm.c (they include the
   implementation) to test and measure both; tune.fwg_launches counts launches. */
static const char *const gk__k_fwg[2][2] = { { "gk_fwg_f16_64", "gk_fwg_f16_128" }, { "gk_fwg_bf16_64", "gk_fwg_bf16_128" } };
/* Heads a tile group (the kernel's p.tile; flash_wg.cu's tile order): a
   group's q tiles run before the next group's, so the blocks resident
   together read a few heads' K / V, which stay in L2. ctx->tune.fwg_group 0:
   gk__fwg_group_for's choice; else forced (bench_gemm sweeps it; Hq * B
   gives every head at one q tile, whose blocks stream K / V from DRAM) */
static int64_t gk__fwg_group_for(const gk__attn *p) { (void)p; return 1; }

/* Whether the wgmma attention takes this problem: f16 / bf16, head dim 64 or
   128, no mask and no per-sequence lengths, a positive scale (the kernel
   keeps unscaled row maxima), 16-byte aligned q, k, v with sequence, head and
   batch strides in multiples of 8 elements (TMA's 16-byte rules), out as
   flash.cu's (4-byte pairs), on a 9.0 device with cuTensorMapEncodeTiled,
   NVRTC able to target sm_90 (or a cached build) and the module not failed. */
static int gk__fwg_ok(gk_ctx *ctx, const gk__attn *p, gk_dtype dt) {
    int i, nv = ctx->n_nvrtc_archs == 0;
    int64_t lim = (int64_t)1 << 30, big = (int64_t)1 << 38;
    if (ctx->tune.fwg_mode == 0) return 0; /* also GPUKIT_ATTN_WGMMA=0 (gk_ctx_create) */
    if (ctx->info.cc_major != 9 || ctx->info.cc_minor != 0 || (dt != GK_F16 && dt != GK_BF16) || !ctx->cu.TensorMapEncodeTiled) return 0;
#ifdef GK__MOD_FLASH_WG
    if (ctx->lib[GK__MOD_FLASH_WG].tried && ctx->lib[GK__MOD_FLASH_WG].status != GK_OK) return 0;
#else
    return 0;
#endif
    for (i = 0; i < ctx->n_nvrtc_archs; i++) if (ctx->nvrtc_archs[i] == 90) nv = 1;
    if (!nv || p->mask || p->q_lens || p->kv_lens || !(p->scale > 0) || (p->D != 64 && p->D != 128)) return 0;
    if (p->Sq >= lim || p->Skv >= lim || p->Hq > 65535 || p->B > 65535 || (p->Sq + 127) / 128 * p->Hq * p->B >= ((int64_t)1 << 31)) return 0;
    if (((p->q | p->k | p->v) & 15) != 0 || (p->o & 3) != 0 || ((p->o_ss | p->o_hs | p->o_bs) % 2) != 0) return 0;
    if ((p->q_bs | p->q_ss | p->q_hs | p->k_bs | p->k_ss | p->k_hs | p->v_bs | p->v_ss | p->v_hs) % 8 != 0) return 0;
    if (p->q_bs < 0 || p->q_ss < 0 || p->q_hs < 0 || p->k_bs < 0 || p->k_ss < 0 || p->k_hs < 0 || p->v_bs < 0 || p->v_ss < 0 || p->v_hs < 0 ||
        p->q_bs >= big || p->q_ss >= big || p->q_hs >= big || p->k_bs >= big || p->k_ss >= big || p->k_hs >= big || p->v_bs >= big ||
        p->v_ss >= big || p->v_hs >= big)
        return 0;
    return 1;
}
/* One 4-d map {D, S, H, B} (strides in bytes; a stride of an extent-1
   dimension, which addresses nothing, is replaced by a dense one) with the
   box {64, rows, 1, 1}, 128-byte swizzle; nonzero when the driver refuses.
   flash_wg.cu takes boxes of 128 rows, gk_attn_dec4t 64. */
static int gk__fwg_map(gk_ctx *ctx, gk__cu_tensormap *m, gk_dtype dt, uint64_t addr, int64_t D, int64_t S, int64_t H, int64_t B, int64_t ss,
                       int64_t hs, int64_t bs, unsigned rows) {
    uint64_t dims[4], strides[3];
    unsigned box[4], es[4] = { 1, 1, 1, 1 };
    box[0] = 64; box[1] = rows; box[2] = 1; box[3] = 1;
    dims[0] = (uint64_t)D; dims[1] = (uint64_t)S; dims[2] = (uint64_t)H; dims[3] = (uint64_t)B;
    strides[0] = S > 1 && ss > 0 ? (uint64_t)ss * 2 : (uint64_t)D * 2;
    strides[1] = H > 1 && hs > 0 ? (uint64_t)hs * 2 : strides[0] * dims[1];
    strides[2] = B > 1 && bs > 0 ? (uint64_t)bs * 2 : strides[1] * dims[2];
    return ctx->cu.TensorMapEncodeTiled(m, dt == GK_BF16 ? GK__CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : GK__CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4,
                                        (void *)(uintptr_t)addr, dims, strides, box, es, GK__CU_TENSOR_MAP_INTERLEAVE_NONE,
                                        GK__CU_TENSOR_MAP_SWIZZLE_128B, GK__CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                        GK__CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != 0;
}
/* Builds the three maps and launches a 1-d grid over the q tiles of 128
   (in head groups of p->tile: flash_wg.cu's tile order); returns
   GK__WG_DECLINED (no error recorded) when a map is refused or the module is
   unavailable: the caller runs flash.cu. */
static gk_status gk__fwg_launch(gk_ctx *ctx, gk__attn *p, gk_dtype dt, const char *W) {
    unsigned char buf[3 * sizeof(gk__cu_tensormap) + 64];
    gk__cu_tensormap *tm = (gk__cu_tensormap *)(void *)(buf + ((64 - ((uintptr_t)buf & 63)) & 63));
    unsigned g[3], bl[3];
    void *args[4];
    gk_status st;
    int64_t tiles = (p->Sq + 127) / 128 * p->Hq * p->B;
    if (gk__fwg_map(ctx, &tm[0], dt, p->q, p->D, p->Sq, p->Hq, p->B, p->q_ss, p->q_hs, p->q_bs, 128) ||
        gk__fwg_map(ctx, &tm[1], dt, p->k, p->D, p->Skv, p->Hkv, p->B, p->k_ss, p->k_hs, p->k_bs, 128) ||
        gk__fwg_map(ctx, &tm[2], dt, p->v, p->D, p->Skv, p->Hkv, p->B, p->v_ss, p->v_hs, p->v_bs, 128))
        return GK__WG_DECLINED;
    p->tile = (int)GK__MIN(ctx->tune.fwg_group > 0 ? ctx->tune.fwg_group : gk__fwg_group_for(p), p->Hq * p->B);
    args[0] = &tm[0]; args[1] = &tm[1]; args[2] = &tm[2]; args[3] = p;
    g[0] = (unsigned)tiles; g[1] = 1; g[2] = 1;
    bl[0] = 384; bl[1] = 1; bl[2] = 1;
#ifdef GK__MOD_FLASH_WG
    st = gk__launch_cfg(ctx, GK__MOD_FLASH_WG, gk__k_fwg[dt == GK_BF16][p->D == 128], g, bl, (unsigned)(p->D / 64 * 16384 * (1 + 2 * 2) + 1280), args, W);
    if (st != GK_OK && ctx->lib[GK__MOD_FLASH_WG].status != GK_OK) { gk_error_clear(ctx); return GK__WG_DECLINED; } /* module unavailable */
#else
    (void)W; (void)g; (void)bl; (void)args; st = GK__WG_DECLINED;
#endif
    p->tile = 0; /* flash.cu / attention.cu read no group */
    if (st == GK_OK) ctx->tune.fwg_launches++;
    return st;
}

/* Decode attention: its kernels and the knobs that force each (ctx->tune, gk__tuning;
   tests and benchmarks set them and read the launch counters to see which ran).
   - dec_variant -1 (the dispatcher): gk_attn_dec3 (tensor cores; D 64 / 128, at most 8 q
     heads a kv head) where it applies, and on 9.0+ devices gk_attn_dec4t from dec4t_from
     keys of cache (the K / V views' sequence length) on, where its tensor maps build; the
     shared-memory gk_attn_dec for the rest. 0 always takes gk_attn_dec; 3 takes
     gk_attn_dec3 and 5 gk_attn_dec4t where they apply (5: on 9.0+ where its maps build,
     else gk_attn_dec3). dec4t_from is 4096 by default: from there dec4t's
     copy-engine ring streams the cache faster than dec3's warps, below it dec3 is ahead
     (docs/perf-log.md).
   - gk_attn_dec4t streams each split through a ring of dec4t_stages (0: GK__DEC4T_STAGES)
     stages of 64 keys in 64 x 64 tiles; its splits take at least dec4t_min_keys keys (0:
     GK__DEC4T_MIN_KEYS) and are sized for dec4t_blocks_sm blocks a SM (0: one, where that
     still gives 4 splits a (b, kv head), else as many as are resident). With dec4t_pad a
     block sized for one a SM asks for more than half an SM's shared memory, so that no
     block of the next kernel, launched early by PDL, shares its SM.
   - gk_attn_dec3's splits are sized for dec3_per_sm blocks a SM (2 are resident at its 254
     registers). A cache of at most dec3_one_split keys takes one split a (b, kv head),
     which writes the output itself, with no gk_attn_combine (dec3_direct counts these
     launches of either kernel).
   - dec_prefetch: the 64-key tiles of each split that dec3 / dec4t prefetch into L2 before
     their PDL wait (sm_90+, where the wait lets a kernel start while the previous ones
     drain; the kernels' gk_dec_hint_range); -1 each kernel's default, GK__DEC3_PREFETCH /
     GK__DEC4T_PREFETCH; 0 none.
   - dec_fold 1 (the default): dec3 / dec4t combine their splits themselves (gk_dec_fold:
     each split publishes its result in words of gk__dec_slots, then polls for the other
     splits' words of its slice of the outputs) where the whole grid is resident at once and
     the words exist, which saves the gk_attn_combine launch (dec_fold_launches counts these
     launches); 0 always launches gk_attn_combine.
   - combine_one_round 1 (the default): gk_attn_combine's one-round form where it applies
     (at most 32 splits); 0 its three-round form everywhere. */
#define GK__DEC4T_STAGES 3
#define GK__DEC4T_MIN_KEYS 256
#define GK__DEC3_PREFETCH 2
#define GK__DEC4T_PREFETCH 1
static const char *const gk__k_attn[4][2] = { { "gk_attn_f32", "gk_attn_combine_f32" }, { NULL, NULL },
                                              { "gk_attn_f16", "gk_attn_combine_f16" }, { "gk_attn_bf16", "gk_attn_combine_bf16" } };

GKDEF gk_status gk_attention(gk_ctx *ctx, gk_tensor out, gk_tensor q, gk_tensor k, gk_tensor v, const gk_attention_desc *desc) {
    const char *W = "gk_attention";
    const char *names[6] = { "out", "q", "k", "v", "", "" };
    gk_tensor ts[6];
    gk__opnds ops;
    gk__attn p;
    gk_attention_desc d;
    int n = 4, im = -1, iq = -1, ik = -1, i;
    gk_status st = GK_OK;
    gk__slot *so, *sq, *sk, *sv;
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    ts[0] = out; ts[1] = q; ts[2] = k; ts[3] = v;
    if (d.mask.id) { im = n; names[n] = "mask"; ts[n++] = d.mask; }
    if (d.q_lens.id) { iq = n; names[n] = "q_lens"; ts[n++] = d.q_lens; }
    if (d.kv_lens.id) { ik = n; names[n] = "kv_lens"; ts[n++] = d.kv_lens; }
    GK__ENTER(ctx, W);
    memset(&p, 0, sizeof p);
    st = gk__operands(ctx, &ops, ts, names, n, W);
    if (st != GK_OK) goto fail;
    so = ops.s[0]; sq = ops.s[1]; sk = ops.s[2]; sv = ops.s[3];
    if (sq->dtype != sk->dtype || sq->dtype != sv->dtype || sq->dtype != so->dtype || (sq->dtype != GK_F32 && sq->dtype != GK_F16 && sq->dtype != GK_BF16)) {
        st = gk__err(ctx, GK_ERR_DTYPE, "%s: q, k, v and out must share one of f32, f16, bf16 (got %s, %s, %s, %s)", W, gk_dtype_name(sq->dtype),
                     gk_dtype_name(sk->dtype), gk_dtype_name(sv->dtype), gk_dtype_name(so->dtype));
        goto fail;
    }
    for (i = 0; i < 4; i++)
        if (ops.s[i]->ndim != 4 || (ops.s[i]->shape[3] > 1 && ops.s[i]->strides[3] != 1)) {
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: %s must be 4-d [B, S, H, D] with D contiguous", W, names[i]);
            goto fail;
        }
    p.B = sq->shape[0]; p.Sq = sq->shape[1]; p.Hq = sq->shape[2]; p.D = sq->shape[3];
    p.Skv = sk->shape[1]; p.Hkv = sk->shape[2];
    for (i = 0; i < 4; i++) {
        const gk__slot *s = ops.s[i];
        int kvside = i == 2 || i == 3;
        if (s->shape[0] != p.B || s->shape[1] != (kvside ? p.Skv : p.Sq) || s->shape[2] != (kvside ? p.Hkv : p.Hq) || s->shape[3] != p.D) {
            char a[160];
            gk__shape_str(s, a, sizeof a);
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: %s is %s; expected [%lld, %lld, %lld, %lld]", W, names[i], a, (long long)p.B,
                         (long long)(kvside ? p.Skv : p.Sq), (long long)(kvside ? p.Hkv : p.Hq), (long long)p.D);
            goto fail;
        }
    }
    if (p.Hkv == 0 || p.Hq % p.Hkv != 0) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: %lld query heads are not a multiple of %lld kv heads", W, (long long)p.Hq, (long long)p.Hkv); goto fail; }
    if (p.D > 256) { st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: head_dim %lld above 256 is not supported", W, (long long)p.D); goto fail; }
    if (im >= 0) {
        gk__slot *s = ops.s[im];
        if (s->dtype != GK_F32 || (s->ndim != 2 && s->ndim != 3) || s->shape[s->ndim - 1] != p.Skv || s->shape[s->ndim - 2] != p.Sq ||
            (s->ndim == 3 && s->shape[0] != p.B && s->shape[0] != 1) || s->strides[s->ndim - 1] != 1) {
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: mask must be f32 [%lld, %lld] or [B, %lld, %lld] with rows contiguous", W, (long long)p.Sq,
                         (long long)p.Skv, (long long)p.Sq, (long long)p.Skv);
            goto fail;
        }
        p.m_qs = s->strides[s->ndim - 2];
        p.m_bs = s->ndim == 3 && s->shape[0] > 1 ? s->strides[0] : 0;
    }
    for (i = 0; i < 2; i++) {
        int ix = i ? ik : iq;
        if (ix >= 0) {
            gk__slot *s = ops.s[ix];
            if (s->dtype != GK_I32 || s->ndim != 1 || s->shape[0] != p.B || s->strides[0] != 1) {
                st = gk__err(ctx, GK_ERR_SHAPE, "%s: %s must be a contiguous i32 vector of %lld", W, names[ix], (long long)p.B);
                goto fail;
            }
        }
    }
#define GK__ATTN_STRIDES(X, s) p.X##_bs = (s)->strides[0]; p.X##_ss = (s)->strides[1]; p.X##_hs = (s)->strides[2]
    GK__ATTN_STRIDES(q, sq); GK__ATTN_STRIDES(k, sk); GK__ATTN_STRIDES(v, sv); GK__ATTN_STRIDES(o, so);
#undef GK__ATTN_STRIDES
    p.scale = d.scale != 0 ? d.scale : (float)(1.0 / sqrt((double)(p.D > 0 ? p.D : 1)));
    p.causal = d.causal != 0;
    p.splits = 1;
    p.comb = ctx->tune.combine_one_round != 0;
    if (p.B == 0 || p.Sq == 0 || p.Hq == 0 || p.D == 0) goto fail; /* nothing to do: st is GK_OK */
    if ((st = gk__operands_use(ctx, &ops, W)) != GK_OK) { gk__operands_done(ctx, &ops, st); goto fail; }
    p.o = gk__slot_addr(so); p.q = gk__slot_addr(sq); p.k = gk__slot_addr(sk); p.v = gk__slot_addr(sv);
    if (im >= 0) p.mask = gk__slot_addr(ops.s[im]);
    if (iq >= 0) p.q_lens = gk__slot_addr(ops.s[iq]);
    if (ik >= 0) p.kv_lens = gk__slot_addr(ops.s[ik]);
    if (ctx->prof) {
        /* the profiler's hint for the main kernel: QK^T and PV, 4*B*Hq*Sq*Skv*D FLOPs (about
           half of the key range under a causal mask when Sq = Skv), and q, k, v and out read or
           written once (kv_lens are on the device: the full cache is counted) */
        double es = (double)gk__dtype_sizes[sq->dtype], keys = (double)p.Skv;
        if (p.causal && p.Sq > 1 && p.Sq <= p.Skv) keys = (double)p.Skv - 0.5 * (double)p.Sq;
        gk__prof_note(ctx, es * (double)(gk__numel(sq) + gk__numel(sk) + gk__numel(sv) + gk__numel(so)),
                      4.0 * (double)p.B * (double)p.Hq * (double)p.Sq * keys * (double)p.D);
    }
    if (ctx->backend == GK_BACKEND_CPU) {
        gk__attn_cpu c;
        c.a = p; c.dt = sq->dtype;
        st = gk__cpu_run(ctx, gk__attn_cpu_run, &c, sizeof c, W);
    } else {
        int64_t rows = p.Sq * p.Hq, warps = rows * p.B, want = (int64_t)ctx->info.sm_count * 32;
        unsigned g[3], bl[3];
        void *args[1];
        int G = (int)(p.Hq / p.Hkv);
        int dec = p.Sq == 1 && !p.mask && !p.q_lens && sq->dtype != GK_F32 && p.D % 8 == 0 && G <= 32 && (p.k_ss % 8) == 0 && (p.v_ss % 8) == 0 &&
                  ((p.k | p.v) & 15) == 0 && (p.k_bs % 8) == 0 && (p.v_bs % 8) == 0 && (p.k_hs % 8) == 0 && (p.v_hs % 8) == 0;
        if (dec) {
            /* decode: a block per (b, kv head, split), one wave: splits = the resident
               slots over B * Hkv, so every SM streams the same bytes; sized for the longest
               cache (kv_lens are read on the device); at most 256 (the combine's limit).
               A split is `chunk` keys, a multiple of the kernel's granule.
               - gk_attn_dec3 (tensor cores; D 64 / 128, at most 8 q heads a kv head): blocks
                 of 4 warps, each warp streaming its own 16-key blocks into registers, 2 blocks
                 a SM resident (at most 255 registers; the split count is sized for
                 tune.dec3_per_sm a SM), granule 64 keys (a 16-key block a warp). Its few
                 warps' latency bounds it: two 16-key blocks in flight take the registers that
                 more warps would need.
               - gk_attn_dec4t (9.0+, from tune.dec4t_from keys of cache): the same math fed by
                 the copy engine, a producer warp streaming the split through a ring in shared
                 memory in 64 x 64 tensor-map tiles (4 copies a stage at D 128) for 4 consumer
                 warps, so the bytes in flight are the ring's and not the registers'. Its
                 splits are sized for one block a SM where that still gives 4 a (b, kv head),
                 else for the resident blocks, with at least GK__DEC4T_MIN_KEYS keys each:
                 more and shorter splits spend their time filling the pipeline.
               - gk_attn_dec (the rest): K / V tiles of 64 keys (32 above D 128) in two
                 shared-memory stages, as many blocks a SM as the shared memory holds,
                 granule 8 keys (a split may hold less than a tile: a tile a split at least
                 is slower at batch 8).
               - a cache of at most tune.dec3_one_split (256) keys: one split per (b, kv head),
                 writing the output itself, with no combine launch, which at that size costs
                 more than the splits gain; from 512 keys the splits win.
               - where the grid is one wave (cuOccupancyMaxActiveBlocksPerMultiprocessor over
                 the SMs), dec3 / dec4t combine their splits themselves (tune.dec_fold;
                 src/ops/attention/attention.cu gk_dec_fold): each split publishes {o / l,
                 log-sum-exp} as 64-bit words that carry their own presence (gk__dec_slots)
                 and polls for and merges its slice of the outputs, a round trip through L2
                 in place of a kernel boundary and gk_attn_combine. Elsewhere gk_attn_combine
                 merges the splits; programmatic dependent launch overlaps its start with the
                 decode kernel's tail.
               - before their PDL wait, dec3 and dec4t prefetch the first p.pf 64-key tiles of
                 their split into L2 (tune.dec_prefetch; GK__DEC3_PREFETCH, GK__DEC4T_PREFETCH),
                 so that the DRAM reads start while the previous kernels drain.
               docs/perf-log.md has the measurements behind each rule and the forms measured
               and not kept. */
            static const char *const k3[2][2] = { { "gk_attn_dec3_f16_64", "gk_attn_dec3_f16_128" }, { "gk_attn_dec3_bf16_64", "gk_attn_dec3_bf16_128" } };
            static const char *const k4t[2][2] = { { "gk_attn_dec4t_f16_64", "gk_attn_dec4t_f16_128" },
                                                   { "gk_attn_dec4t_bf16_64", "gk_attn_dec4t_bf16_128" } };
            void *targs[3];
            const int tc = (p.D == 64 || p.D == 128) && G <= 8;
            unsigned char mbuf[2 * sizeof(gk__cu_tensormap) + 64];
            gk__cu_tensormap *tm = (gk__cu_tensormap *)(void *)(mbuf + ((64 - ((uintptr_t)mbuf & 63)) & 63));
            /* gk_attn_dec4t when asked for (5); tiles: the tensor maps of K and V were built (else gk_attn_dec3) */
            const int want4t = tc && ctx->info.cc_major >= 9 &&
                               (ctx->tune.dec_variant == 5 || (ctx->tune.dec_variant == -1 && ctx->tune.dec4t_from >= 0 && p.Skv >= ctx->tune.dec4t_from));
            const int tiles = want4t && ctx->cu.TensorMapEncodeTiled && p.Skv < ((int64_t)1 << 31) &&
                              !gk__fwg_map(ctx, &tm[0], sq->dtype, p.k, p.D, p.Skv, p.Hkv, p.B, p.k_ss, p.k_hs, p.k_bs, 64) &&
                              !gk__fwg_map(ctx, &tm[1], sq->dtype, p.v, p.D, p.Skv, p.Hkv, p.B, p.v_ss, p.v_hs, p.v_bs, 64);
            const int d4 = tiles;
            const int d3 = tc && !d4 && ctx->tune.dec_variant != 0;
            int64_t bh = p.B * p.Hkv, C = p.D <= 128 ? 64 : 32, gran = d3 || d4 ? 64 : 8, slots, chunk, smem = 0;
            int direct;
            const char *kn;
            if (d4) {
                /* stages of 64 keys (16 a consumer warp) of K and V, then a full and an empty
                   barrier a stage; as many blocks a SM as that fits */
                const int64_t stages = ctx->tune.dec4t_stages > 0 ? ctx->tune.dec4t_stages : GK__DEC4T_STAGES;
                int per_sm = 1;
                gk__cu_function f4; /* (the launch looks it up again: both are cached lookups) */
                /* tensor tiles unpadded (swizzled) in a ring aligned to 1 KiB */
                smem = stages * 2 * 64 * 2 * p.D + 1024 + 16 * stages;
                kn = k4t[sq->dtype == GK_BF16][p.D == 128];
                st = gk__occupancy(ctx, GK__MOD_ATTENTION, kn, 160, (unsigned)smem, &per_sm, &f4, W);
                if (ctx->tune.dec4t_blocks_sm > 0 && ctx->tune.dec4t_blocks_sm < per_sm) per_sm = ctx->tune.dec4t_blocks_sm;
                else if (ctx->tune.dec4t_blocks_sm == 0 && (int64_t)ctx->info.sm_count / bh >= 4) {
                    per_sm = 1; /* gk_attn_dec4t: splits for one block a SM, where that still gives 4 a (b, kv head) */
                    /* and no room for a second block on an SM (tune.dec4t_pad; half the per-block opt-in
                       maximum, which is an SM's shared memory less 1 KiB): with room for two, the blocks
                       of the next kernel, launched early by PDL, take the free slots and double up on some
                       SMs when it runs */
                    if (ctx->tune.dec4t_pad && smem <= (int64_t)ctx->info.max_smem_per_block_optin / 2)
                        smem = (int64_t)ctx->info.max_smem_per_block_optin / 2 + 1024;
                }
                slots = (int64_t)ctx->info.sm_count * GK__MAX(per_sm, 1);
                p.tile = (int)stages;
                p.pf = ctx->tune.dec_prefetch < 0 ? GK__DEC4T_PREFETCH : ctx->tune.dec_prefetch;
            } else if (d3) {
                int per_sm = 1;
                gk__cu_function f3;
                kn = k3[sq->dtype == GK_BF16][p.D == 128];
                /* (at most as many a SM as are resident: 2 at 254 registers, __launch_bounds__(128, 2)) */
                st = gk__occupancy(ctx, GK__MOD_ATTENTION, kn, 128, 0, &per_sm, &f3, W);
                slots = (int64_t)ctx->info.sm_count * GK__MAX(GK__MIN(ctx->tune.dec3_per_sm, per_sm), 1);
                p.tile = 16;
                p.pf = ctx->tune.dec_prefetch < 0 ? GK__DEC3_PREFETCH : ctx->tune.dec_prefetch;
            } else {
                int64_t bps;
                smem = 4 * C * (p.D / 8 + 1) * 16 + (2 * G * p.D + G * C + 3 * G) * 4;
                bps = GK__MAX(GK__MIN((int64_t)ctx->info.max_smem_per_block_optin / (smem + 1024), (int64_t)8), (int64_t)1);
                slots = (int64_t)ctx->info.sm_count * bps;
                kn = sq->dtype == GK_BF16 ? "gk_attn_dec_bf16" : "gk_attn_dec_f16";
                p.tile = (int)C;
            }
            p.splits = (int)GK__MAX(GK__MIN(GK__MIN(slots / bh, (p.Skv + gran - 1) / gran), (int64_t)256), (int64_t)1);
            {
                const int64_t mk = ctx->tune.dec4t_min_keys > 0 ? ctx->tune.dec4t_min_keys : GK__DEC4T_MIN_KEYS; /* the fewest keys a split */
                if (d4 && mk > gran) p.splits = (int)GK__MAX(GK__MIN((int64_t)p.splits, (p.Skv + mk - 1) / mk), (int64_t)1);
            }
            if ((d3 || d4) && p.Skv <= ctx->tune.dec3_one_split) p.splits = 1;
            chunk = GK__MAX(((p.Skv + p.splits - 1) / p.splits + gran - 1) / gran * gran, gran);
            p.splits = (int)GK__MAX((p.Skv + chunk - 1) / chunk, (int64_t)1);
            p.chunk = (int)GK__MIN(chunk, (int64_t)2147483647);
            if (chunk > 2147483647) st = gk__err(ctx, GK_ERR_LIMIT, "%s: a cache of %lld keys is too long", W, (long long)p.Skv);
            if (p.Hkv > 65535 || p.B > 65535) st = gk__err(ctx, GK_ERR_LIMIT, "%s: %lld kv heads or batch %lld above 65535", W, (long long)p.Hkv, (long long)p.B);
            direct = (d3 || d4) && p.splits == 1;
            if (st == GK_OK && !direct && ctx->tune.dec_fold && (d3 || tiles) && bh * p.splits <= slots) {
                /* the splits combine themselves: they wait for each other, so only where the whole grid is
                   resident at once (slots: the resident blocks, from the occupancy of the kernel as launched) */
                gk__cu_ptr sl;
                st = gk__dec_slots(ctx, bh * G * p.splits * p.D, &sl, W);
                p.slot = sl;
            }
            if (st == GK_OK && !direct && !p.slot) {
                gk__cu_ptr ws;
                st = gk__workspace(ctx, (size_t)(p.B * p.Hq * p.splits * (p.D + 2)) * 4, &ws, W);
                p.part = ws;
            }
            g[0] = (unsigned)p.Hkv; g[1] = (unsigned)p.splits; g[2] = (unsigned)p.B;
            bl[0] = d4 ? 160 : 128; bl[1] = 1; bl[2] = 1; /* gk_attn_dec4t: 4 consumer warps and a producer */
            args[0] = &p;
            /* both kernels wait for their predecessor (gk_pdl_wait) before they read anything:
               programmatic dependent launch (sm_90+) overlaps their start with its tail. Splits
               past a sequence's kv_len return at once and the combine skips them. */
            targs[0] = &tm[0]; targs[1] = &tm[1]; targs[2] = &p; /* gk_attn_dec4t(tk, tv, p) */
            if (st == GK_OK) st = gk__launch_ex(ctx, GK__MOD_ATTENTION, kn, g, bl, (unsigned)smem, tiles ? targs : args, GK__LAUNCH_PDL, W);
            if (st == GK_OK && d3) ctx->tune.dec3_launches++;
            if (st == GK_OK && tiles) ctx->tune.dec4t_launches++;
            if (st == GK_OK && direct) ctx->tune.dec3_direct++;
            g[0] = (unsigned)rows; g[1] = 1;
            bl[0] = p.D > 96 ? 128u : (unsigned)((p.D + 31) / 32 * 32); /* the combine's launch bound */
            if (st == GK_OK && p.slot) ctx->tune.dec_fold_launches++;
            if (st == GK_OK && !direct && !p.slot) st = gk__launch_ex(ctx, GK__MOD_ATTENTION, gk__k_attn[sq->dtype][1], g, bl, 0, args, GK__LAUNCH_PDL, W);
            if (p.part) gk__unuse(ctx, ctx->ws);
            gk__operands_done(ctx, &ops, st);
            gk__unlock(&ctx->mu);
            return st;
        }
        /* Hopper (src/ops/attention/flash_wg.cu): wgmma + TMA, head dims 64 / 128 */
        if (p.Sq > 1 && gk__fwg_ok(ctx, &p, sq->dtype)) {
            st = gk__fwg_launch(ctx, &p, sq->dtype, W);
            if (st != GK__WG_DECLINED) {
                gk__operands_done(ctx, &ops, st);
                gk__unlock(&ctx->mu);
                return st;
            }
            st = GK_OK;
        }
        /* tensor cores (src/ops/attention/flash.cu): 16-bit, head dims 64/80/96/128, no mask, 16-byte rows */
        if ((sq->dtype == GK_BF16 || sq->dtype == GK_F16) && !p.mask && (p.D == 64 || p.D == 80 || p.D == 96 || p.D == 128) && p.Sq > 1 &&
            ((p.q_bs | p.q_ss | p.q_hs | p.k_bs | p.k_ss | p.k_hs | p.v_bs | p.v_ss | p.v_hs) % 8) == 0 && ((p.o_ss | p.o_hs | p.o_bs) % 2) == 0 &&
            ((p.q | p.k | p.v) & 15) == 0 && (p.o & 3) == 0 && p.Hq <= 65535 && p.B <= 65535 &&
            (p.Sq + 63) / 64 <= 2147483647) {
            static const char *const fk[2][2][4] = {
                { { "gk_flash_f16_64", "gk_flash_f16_80", "gk_flash_f16_96", "gk_flash_f16_128" },
                  { "gk_flash_bf16_64", "gk_flash_bf16_80", "gk_flash_bf16_96", "gk_flash_bf16_128" } },
                { { "gk_flash8_f16_64", "gk_flash8_f16_80", "gk_flash8_f16_96", "gk_flash8_f16_128" },
                  { "gk_flash8_bf16_64", "gk_flash8_bf16_80", "gk_flash8_bf16_96", "gk_flash8_bf16_128" } } };
            int di = p.D == 64 ? 0 : p.D == 80 ? 1 : p.D == 96 ? 2 : 3;
            /* 128-query blocks (8 warps) when they still fill the device, else 64 (4 warps);
               K / V tiles of 64 keys in two stages: 4 * 64 * (D + 8) * 2 bytes */
            int w8 = (p.Sq + 127) / 128 * p.Hq * p.B >= 2 * (int64_t)ctx->info.sm_count;
            int64_t bq = w8 ? 128 : 64;
            g[0] = (unsigned)((p.Sq + bq - 1) / bq); g[1] = (unsigned)p.Hq; g[2] = (unsigned)p.B; /* a head's q tiles together (K / V stay in L2) */
            bl[0] = (unsigned)(w8 ? 256 : 128); bl[1] = 1; bl[2] = 1;
            args[0] = &p;
            st = gk__launch_cfg(ctx, GK__MOD_FLASH, fk[w8][sq->dtype == GK_BF16][di], g, bl, (unsigned)(4 * 64 * (p.D + 8) * 2), args, W);
            gk__operands_done(ctx, &ops, st);
            gk__unlock(&ctx->mu);
            return st;
        }
        /* split the keys when there are too few (query, head) rows to fill the device */
        if (warps < want && p.Skv >= 128) {
            int64_t sp = (want + warps - 1) / warps, maxs = (p.Skv + 63) / 64;
            p.splits = (int)GK__MIN(GK__MIN(sp, maxs), (int64_t)64);
        }
        if (p.splits > 1) {
            gk__cu_ptr ws;
            st = gk__workspace(ctx, (size_t)(p.B * p.Hq * p.Sq * p.splits * (p.D + 2)) * 4, &ws, W);
            p.part = ws;
        }
        g[0] = (unsigned)((rows + 3) / 4); g[1] = (unsigned)p.splits; g[2] = (unsigned)p.B;
        bl[0] = 128; bl[1] = 1; bl[2] = 1;
        args[0] = &p;
        if (st == GK_OK && (p.B > 65535 || g[0] == 0)) st = gk__err(ctx, GK_ERR_LIMIT, "%s: batch %lld above 65535", W, (long long)p.B);
        if (st == GK_OK) st = gk__launch_cfg(ctx, GK__MOD_ATTENTION, gk__k_attn[sq->dtype][0], g, bl, 0, args, W);
        if (st == GK_OK && p.splits > 1) {
            g[0] = (unsigned)rows; g[1] = 1;
            bl[0] = p.D > 96 ? 128u : (unsigned)((p.D + 31) / 32 * 32); /* the combine's launch bound */
            st = gk__launch_cfg(ctx, GK__MOD_ATTENTION, gk__k_attn[sq->dtype][1], g, bl, 0, args, W);
        }
        if (p.splits > 1 && p.part) gk__unuse(ctx, ctx->ws);
    }
    gk__operands_done(ctx, &ops, st);
fail:
    gk__unlock(&ctx->mu);
    return st;
}
/* end of >>ops_matmul */

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

/* >>math_elementwise: unary, clamp, binary, compare, where, snake, GLU */
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

static int gk__mw_cpu(const void *vp) {
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
    return 0;
}

/* The contiguous unary / binary kernels of math.cu (16-byte vectors, `per` a
   thread a step: gk_unary_c GK_UN_STEP = 1 in 512-thread blocks, gk_bin2_c 4 in
   256): one step's worth of blocks, so every thread runs once and the block
   scheduler balances the SMs (no tail of grid-stride blocks). */
static gk_status gk__launch_c4(gk_ctx *ctx, const char *fname, int64_t nbytes, int per, unsigned threads, void **args, const char *where) {
    int64_t nvec = (nbytes + 15) / 16, step = (int64_t)per * threads, blocks = (nvec + step - 1) / step;
    unsigned grid[3] = { 1, 1, 1 }, block[3] = { 1, 1, 1 };
    if (nbytes <= 0) return GK_OK;
    block[0] = threads;
    grid[0] = (unsigned)(blocks < ((int64_t)1 << 30) ? blocks : ((int64_t)1 << 30));
    return gk__launch_cfg(ctx, GK__MOD_MATH, fname, grid, block, 0, args, where);
}
static const char *const gk__k_unary[GK_DTYPE_COUNT] = GK__DTNAMES("gk_unary_", "");
/* the contiguous unary kernels, one a (dtype, op) for f32 / f64 / f16 / bf16 (math.cu: one
   kernel a dtype with a switch over the op is slower) */
#define GK__UNC(D)                                                                                                     \
    { "gk_unary_" D "_c0", "gk_unary_" D "_c1", "gk_unary_" D "_c2", "gk_unary_" D "_c3", "gk_unary_" D "_c4",          \
      "gk_unary_" D "_c5", "gk_unary_" D "_c6", "gk_unary_" D "_c7", "gk_unary_" D "_c8", "gk_unary_" D "_c9",          \
      "gk_unary_" D "_c10", "gk_unary_" D "_c11", "gk_unary_" D "_c12", "gk_unary_" D "_c13", "gk_unary_" D "_c14",     \
      "gk_unary_" D "_c15", "gk_unary_" D "_c16", "gk_unary_" D "_c17" }
static const char *const gk__k_unary_c[4][GK_UNARY_COUNT + 1] = { GK__UNC("f32"), GK__UNC("f64"), GK__UNC("f16"), GK__UNC("bf16") };
static const char *const gk__k_glu[2][GK_DTYPE_COUNT] = { GK__DTNAMES("gk_glu_", ""), GK__DTNAMES("gk_glu_", "_c") };
static const char *const gk__k_glu_split[GK_DTYPE_COUNT] = GK__DTNAMES("gk_glu_split_", "_c");
static const char *const gk__k_snake[GK_DTYPE_COUNT] = GK__DTNAMES("gk_snake_", "");
static const char *const gk__k_snake_rows[GK_DTYPE_COUNT] = GK__DTNAMES("gk_snake_rows_", "");
static const char *const gk__k_snake_rv[GK_DTYPE_COUNT] = GK__DTNAMES("gk_snake_rv_", "");
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
                if (contig && p.dt <= GK_BF16 && op >= 0 && op <= GK_UNARY_COUNT) {
                    void *cargs[5];
                    cargs[0] = &nel; cargs[1] = &pp[0]; cargs[2] = &pp[1]; cargs[3] = &p.p0; cargs[4] = &p.p1;
                    st = gk__launch_c4(ctx, gk__k_unary_c[p.dt][op], nel * es, 1, 512, cargs, where);
                } else st = gk__launch(ctx, GK__MOD_MATH, gk__k_unary[p.dt], nel, args, where);
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
                    grid[1] = (unsigned)(rows < 65535 ? rows : 65535);
                    if ((T * es) % 16 == 0 && ((pp[0] | pp[1]) & 15) == 0) {
                        /* 16-byte vectors, two per thread: T / V vectors a row */
                        int64_t tv = T * es / 16;
                        sargs[1] = &tv;
                        grid[0] = (unsigned)((tv + 511) / 512 < 64 ? (tv + 511) / 512 : 64);
                        st = gk__launch_cfg(ctx, GK__MOD_MATH, gk__k_snake_rv[p.dt], grid, block, 0, sargs, where);
                    } else {
                        grid[0] = (unsigned)((T + 255) / 256 < 64 ? (T + 255) / 256 : 64);
                        st = gk__launch_cfg(ctx, GK__MOD_MATH, gk__k_snake_rows[p.dt], grid, block, 0, sargs, where);
                    }
                } else st = gk__launch(ctx, GK__MOD_MATH, gk__k_snake[p.dt], nel, args, where);
                break;
            case GK__MC_BIN:
                args[4] = &iop;
                if (contig && gk__fdt(p.dt)) { args[0] = &nel; st = gk__launch_c4(ctx, gk__k_bin2c[p.dt], nel * es, 4, 256, args, where); }
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

/* >>math_reduce: reductions */
/* ---- reductions ---- */
typedef struct gk__rpart { double v; double m2; int64_t n; } gk__rpart; /* gk_rpart in src/ops/math/reduce.cu */
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
static int gk__red_cpu(const void *vp) {
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
    return 0;
}
static const char *const gk__k_red_rows[GK_DTYPE_COUNT] = GK__DTNAMES("gk_red_rows_", "");
static const char *const gk__k_red_rowsf[GK_DTYPE_COUNT] = GK__DTNAMES("gk_red_rowsf_", "");
static const char *const gk__k_red_fin[GK_DTYPE_COUNT] = GK__DTNAMES("gk_red_fin_", "");
static const char *const gk__k_red_finb[GK_DTYPE_COUNT] = GK__DTNAMES("gk_red_finb_", "");
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
                const char *kn = (p.op <= GK_REDUCE_MIN ? gk__k_red_rowsf : gk__k_red_rows)[p.dt];
                if (M < 2 * sms && R >= 32768) {
                    /* one wave of 256-thread blocks: as many as are resident, asked of the driver (the
                       row kernels' registers set it: 4 blocks an SM of the sum / mean / max / min kernel
                       at sm_90, 2 of the other; a fixed 4 made two waves of a form with 112 registers) */
                    int per_sm = 4;
                    gk__cu_function f;
                    st = gk__occupancy(ctx, GK__MOD_REDUCE, kn, 256, 0, &per_sm, &f, where);
                    S = (int64_t)GK__MAX(per_sm, 1) * sms / M;
                    if (S < 1) S = 1;
                    if (S > (R + 4095) / 4096) S = (R + 4095) / 4096;
                    chunk = ((R + S - 1) / S + 15) / 16 * 16;
                    S = (R + chunk - 1) / chunk;
                }
                /* whole long rows: 512 threads (reduce.cu has the sweep); split rows stay at 256 */
                if (R >= 4096 && S == 1) block[0] = 512;
                gk__cu_ptr ctr = 0;
                if (st == GK_OK && S > 1) st = gk__workspace(ctx, (size_t)(M * S) * sizeof(gk__rpart), &ws, where);
                /* split rows: the last block of an output merges its parts (arrival
                   counters), no second kernel; without counters gk_red_fin(b) does */
                if (st == GK_OK && S > 1) st = gk__counters(ctx, M, &ctr, where);
                if (st == GK_OK) {
                    void *args[10] = { &p.on, &p.rn, &p.R, &p.op, &S, &chunk, &po, &px, &ws, &ctr };
                    grid[0] = (unsigned)gk__grid_cap(ctx, M * S, 16);
                    /* sum / mean / max / min: the kernel without the others' states (fewer registers) */
                    st = gk__launch_cfg(ctx, GK__MOD_REDUCE, kn, grid, block, 0, args, where);
                    if (st == GK_OK && S > 1 && ctr) ctx->tune.red_fused++; /* the last block merged the parts (tests check both paths) */
                    if (st == GK_OK && S > 1 && !ctr) {
                        void *fargs[6] = { &p.on, &p.R, &p.op, &S, &po, &ws };
                        if (S >= 64) { /* many parts: a block an output merges them (a thread an output is slow at that many) */
                            unsigned fgrid[3] = { 1, 1, 1 }, fblock[3] = { 256, 1, 1 };
                            fgrid[0] = (unsigned)gk__grid_cap(ctx, M, 16);
                            st = gk__launch_cfg(ctx, GK__MOD_REDUCE, gk__k_red_finb[p.dt], fgrid, fblock, 0, fargs, where);
                        } else st = gk__launch(ctx, GK__MOD_REDUCE, gk__k_red_fin[p.dt], M, fargs, where);
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

/* >>math_softmax: softmax, log_softmax, cumsum */
/* ---- softmax / log_softmax over the last dim, cumsum along a dim ---- */
typedef struct gk__rowop {
    gk__nd on;                   /* the rows (lines): 0 out, 1 x */
    int64_t n, xs, os;           /* elements per row, their strides */
    gk_dtype dt;
    int kind;                    /* 0 softmax, 1 log_softmax, 2 cumsum */
    char *o;
    const char *x;
} gk__rowop;
static int gk__rowop_cpu(const void *vp) {
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
    return 0;
}
static const char *const gk__k_softmax[2][GK_DTYPE_COUNT] = { GK__DTNAMES("gk_softmax_", ""), GK__DTNAMES("gk_log_softmax_", "") };
static const char *const gk__k_softmax_reg[2][2][GK_DTYPE_COUNT] = {
    { GK__DTNAMES("gk_softmax_r4_", ""), GK__DTNAMES("gk_softmax_r8_", "") },
    { GK__DTNAMES("gk_log_softmax_r4_", ""), GK__DTNAMES("gk_log_softmax_r8_", "") } };
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
            int64_t nvec = p.n / (int64_t)(16 / gk__dtype_sizes[p.dt]);
            if (p.xs == 1 && p.os == 1 && nvec <= 8192 && (M >= sms || p.n < 16384)) {
                /* the row fits in the registers of one block: read once, write once */
                int nv = nvec <= 4096 ? 4 : 8;
                int64_t T = ((nvec + nv - 1) / nv + 31) / 32 * 32;
                if (T < 128) T = 128;
                block[0] = (unsigned)T;
                grid[0] = (unsigned)gk__grid_cap(ctx, M, (int)(2048 / T));
                st = gk__launch_cfg(ctx, GK__MOD_REDUCE, gk__k_softmax_reg[kind][nv == 8][p.dt], grid, block, 0, args, where);
                goto launched;
            }
            if (M < sms && p.n >= 16384) {
                /* at most two blocks an SM in all, so both phases run in one
                   wave (rounding up gave 288 blocks of 1024 threads for 32
                   rows on 132 SMs: two waves each) */
                S = 2 * sms / M;
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
launched:
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

/* >>math_sample: top-k and sampling */
/* ---- top-k and sampling: 64-bit keys (value bits, ~index), see src/ops/math/sample.cu ---- */
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
static int gk__topk_cpu(const void *vp) {
    const gk__topk_p *p = (const gk__topk_p *)vp;
    int64_t es = (int64_t)gk__dtype_sizes[p->dt], j;
    uint64_t *keys = GK__CAST(uint64_t *, GPUKIT_MALLOC((size_t)p->n * 8));
    const gk__nd *on = &p->on;
    if (!keys) return 1;
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
    return 0;
}
static const char *const gk__k_topk[GK_DTYPE_COUNT] = GK__DTNAMES("gk_topk_", "");
static const char *const gk__k_topk_part[GK_DTYPE_COUNT] = GK__DTNAMES("gk_topk_part_", "");
static const char *const gk__k_topk_merge[GK_DTYPE_COUNT] = GK__DTNAMES("gk_topk_merge_", "");
#define GK__SMEM_SORT 4096
#define GK__TK_PART 4096 /* GK_TK_PART in src/ops/math/sample.cu */
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
        else if (p.n >= 4 * GK__TK_PART && k <= 256) {
            /* long rows: the top k of each part of GK__TK_PART elements (many blocks per row),
               then one block per row merges the parts' candidates */
            int n = (int)p.n, kk = (int)k, P = (int)gk__pow2_at_least(k), S = (int)((p.n + GK__TK_PART - 1) / GK__TK_PART);
            unsigned grid[3] = { 1, 1, 1 }, block[3] = { 256, 1, 1 };
            gk__cu_ptr ws = 0;
            st = gk__workspace(ctx, (size_t)p.on.n * (size_t)S * (size_t)k * 8, &ws, where);
            if (st == GK_OK) {
                void *args[7] = { &p.on, &n, &p.xs, &kk, &S, &px, &ws };
                grid[0] = (unsigned)gk__grid_cap(ctx, p.on.n * S, 8);
                st = gk__launch_cfg(ctx, GK__MOD_SAMPLE, gk__k_topk_part[p.dt], grid, block, 0, args, where);
            }
            if (st == GK_OK) {
                void *args[12] = { &p.on, &p.xs, &p.vs, &p.is, &kk, &S, &P, &pv, &pi, &px, &ws };
                grid[0] = (unsigned)gk__grid_cap(ctx, p.on.n, 2);
                block[0] = 512;
                st = gk__launch_cfg(ctx, GK__MOD_SAMPLE, gk__k_topk_merge[p.dt], grid, block, (unsigned)P * 8, args, where);
            }
            if (ws) gk__unuse(ctx, ctx->ws);
        } else {
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
        gk__err_save(ctx, save);
        gk_tensor_free(ctx, v);
        gk_tensor_free(ctx, ix);
        gk__err_restore(ctx, save);
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

/* sampling parameters: the layout of gk_sp in src/ops/math/sample.cu */
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
/* log-weight and integer weight of a candidate (gk_sw in src/ops/math/sample.cu) */
static double gk__sw(float x, float m, float temp, uint64_t *w) {
    double s;
    if (x == -INFINITY) { *w = 0; return -INFINITY; }
    s = x == m ? 0.0 : ((double)x - (double)m) / (double)temp;
    *w = (uint64_t)(exp(s) * 1099511627776.0);
    return s;
}
static int gk__sample_cpu(const void *vp) {
    const gk__sample_p *pp = (const gk__sample_p *)vp;
    const gk__sp *sp = &pp->sp;
    int V = sp->V, b, i, j;
    int64_t es = (int64_t)gk__dtype_sizes[pp->dt];
    float *xr = GK__CAST(float *, GPUKIT_MALLOC((size_t)V * 4));
    uint64_t *keys = GK__CAST(uint64_t *, GPUKIT_MALLOC((size_t)V * 8));
    if (!xr || !keys) { GPUKIT_FREE(xr); GPUKIT_FREE(keys); return 1; }
    for (b = 0; b < sp->B; b++) {
        float bv = -INFINITY, m;
        int bi = -1, topk, topp, n;
        uint64_t Z = 0, Z2 = 0, cum, w, r, run;
        double target = 0;
        uint32_t ctr[4], key[2], rnd[4];
        int32_t *tok = pp->tokens + (int64_t)b * sp->tst;
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
    return 0;
}
static const char *const gk__k_sample[GK_DTYPE_COUNT] = GK__DTNAMES("gk_sample_", "");
static const char *const gk__k_greedy_part[GK_DTYPE_COUNT] = GK__DTNAMES("gk_greedy_part_", "");
static const char *const gk__k_spen[GK_DTYPE_COUNT] = GK__DTNAMES("gk_spen_", "");
static const char *const gk__k_smax[GK_DTYPE_COUNT] = GK__DTNAMES("gk_smax_", "");
static const char *const gk__k_ssum[GK_DTYPE_COUNT] = GK__DTNAMES("gk_ssum_", "");
static const char *const gk__k_sfin[GK_DTYPE_COUNT] = GK__DTNAMES("gk_sfin_", "");
static const char *const gk__k_stkpart[GK_DTYPE_COUNT] = GK__DTNAMES("gk_stkpart_", "");
#define GK__SCHUNK 8192    /* GK_SCHUNK in src/ops/math/sample.cu */
#define GK__SKPART 4096    /* GK_SKPART */
#define GK__SFINKEYS 8192  /* GK_SFINKEYS */
#define GK__SP_KMAX 1024   /* the largest top_k of the many-blocks path */
#define GK__SP_SMAX 512    /* the most parts per row of the temperature path (gk_sfin's block) */
static size_t gk__al256(size_t x) { return (x + 255) & ~(size_t)255; } /* also for the lstm and stft workspaces below */
/* Sampling over many blocks per row (src/ops/math/sample.cu, "sampling over many blocks per row"):
   mode 1, temperature without top-k / top-p (or greedy with penalties): per part the
   largest key, then (temperature > 0) per part the kept weight, then per row the draw;
   mode 2, 0 < top_k <= GK__SP_KMAX: per part its top-k keys, then per row the top k of
   those, sorted, and the draw. Penalties first go to a list of per-row overrides. */
static gk_status gk__sample_parts(gk_ctx *ctx, const gk__sample_p *p, int mode, int pen, gk__cu_ptr pt, gk__cu_ptr pl, gk__cu_ptr ppv,
                                  const char *where) {
    gk__sp spc = p->sp;
    const gk__sp *sp = &spc;
    int64_t sms = ctx->info.sm_count > 0 ? ctx->info.sm_count : 1, want = (2 * sms + sp->B - 1) / sp->B, C, cmin, cmax;
    int k = sp->top_k, Ci, Si, P = 0;
    size_t ob = pen ? gk__al256((size_t)sp->B * (size_t)sp->n_prev * 8) : 0, pb, total;
    unsigned grid[3] = { 1, 1, 1 }, block[3] = { 256, 1, 1 };
    gk__cu_ptr ws = 0, ovr = 0, w1 = 0, w2 = 0;
    gk_status st;
    /* parts of C elements: about two blocks per SM over the batch, C in cmin..cmax */
    cmin = mode == 2 ? (8 * (int64_t)k < 1024 ? 1024 : 8 * (int64_t)k < GK__SKPART ? 8 * (int64_t)k : GK__SKPART) : 1024;
    cmax = mode == 2 ? GK__SKPART : GK__SCHUNK;
    if (mode == 1 && (sp->V + GK__SP_SMAX - 1) / GK__SP_SMAX > cmin) cmin = (sp->V + GK__SP_SMAX - 1) / GK__SP_SMAX; /* <= cmax */
    C = (sp->V + want - 1) / want;
    C = (C + 255) / 256 * 256;
    C = C < cmin ? cmin : C > cmax ? cmax : C;
    Ci = (int)C;
    Si = (int)((sp->V + C - 1) / C);
    pb = gk__al256((size_t)sp->B * (size_t)Si * 8);
    if (mode == 2) {
        P = (int)gk__pow2_at_least(k);
        total = ob + (size_t)sp->B * (size_t)Si * (size_t)k * 8;
    } else total = ob + 2 * pb;
    st = gk__workspace(ctx, total, &ws, where);
    if (st != GK_OK) return st;
    if (pen) ovr = ws;
    w1 = ws + ob;
    w2 = w1 + pb;
    if (pen) {
        void *args[4] = { &spc, &pl, &ppv, &ovr };
        grid[0] = (unsigned)gk__grid_cap(ctx, (int64_t)sp->B * ((sp->n_prev + 255) / 256), 8);
        st = gk__launch_ex(ctx, GK__MOD_SAMPLE, gk__k_spen[p->dt], grid, block, 0, args, GK__LAUNCH_PDL, where);
    }
    grid[0] = (unsigned)gk__grid_cap(ctx, (int64_t)sp->B * Si, 8);
    if (mode == 2) {
        if (st == GK_OK) {
            void *args[7] = { &spc, &pl, &ovr, &Ci, &Si, &k, &w1 };
            st = gk__launch_ex(ctx, GK__MOD_SAMPLE, gk__k_stkpart[p->dt], grid, block, 0, args, GK__LAUNCH_PDL, where);
        }
        if (st == GK_OK) {
            void *args[6] = { &spc, &pt, &Si, &k, &P, &w1 };
            int64_t nc = (int64_t)Si * k;
            grid[0] = (unsigned)gk__grid_cap(ctx, sp->B, 2);
            block[0] = 512;
            st = gk__launch_ex(ctx, GK__MOD_SAMPLE, "gk_stkfin_k", grid, block, (unsigned)((P + (nc <= GK__SFINKEYS ? nc : 0)) * 8), args,
                               GK__LAUNCH_PDL, where);
        }
    } else {
        if (st == GK_OK) {
            void *args[6] = { &spc, &pl, &ovr, &Ci, &Si, &w1 };
            st = gk__launch_ex(ctx, GK__MOD_SAMPLE, gk__k_smax[p->dt], grid, block, 0, args, GK__LAUNCH_PDL, where);
        }
        if (st == GK_OK && sp->temperature > 0.0f) {
            void *args[7] = { &spc, &pl, &ovr, &Ci, &Si, &w1, &w2 };
            st = gk__launch_ex(ctx, GK__MOD_SAMPLE, gk__k_ssum[p->dt], grid, block, 0, args, GK__LAUNCH_PDL, where);
        }
        if (st == GK_OK) {
            void *args[8] = { &spc, &pt, &pl, &ovr, &Ci, &Si, &w1, &w2 };
            grid[0] = (unsigned)gk__grid_cap(ctx, sp->B, 2);
            block[0] = 512;
            st = gk__launch_ex(ctx, GK__MOD_SAMPLE, gk__k_sfin[p->dt], grid, block, 0, args, GK__LAUNCH_PDL, where);
        }
    }
    gk__unuse(ctx, ctx->ws);
    return st;
}

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
        const gk__sp *sp = &p.sp;
        int pen = sp->n_prev > 0 && ((sp->rep > 0.0f && sp->rep != 1.0f) || sp->presence != 0.0f || sp->freq != 0.0f);
        int topk = sp->top_k > 0 && sp->top_k < sp->V, topp = sp->top_p < 1.0;
        /* 1: temperature over every token (or greedy with penalties), 2: top-k, 0: one block per row */
        int mode = sp->temperature > 0.0f ? (topk ? (sp->top_k <= GK__SP_KMAX) * 2 : !topp) : pen;
        if (mode && sp->V > (int64_t)GK__SP_SMAX * GK__SCHUNK) mode = 0; /* more parts than gk_sfin takes (or merges well) */
        if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__sample_cpu, &p, sizeof p, where);
        else if (mode) st = gk__sample_parts(ctx, &p, mode, pen, pt, pl, ppv, where);
        else if (!(sp->temperature > 0.0f) && !pen && sp->V >= 8192) {
            /* greedy without penalties: each row over many blocks, then a merge of the parts */
            int64_t sms = ctx->info.sm_count > 0 ? ctx->info.sm_count : 1, S = (4 * sms + sp->B - 1) / sp->B;
            int Si, chunk;
            unsigned grid[3] = { 1, 1, 1 }, block[3] = { 256, 1, 1 };
            gk__cu_ptr ws = 0;
            if (S > sp->V / 2048) S = sp->V / 2048;
            chunk = (int)((sp->V + S - 1) / S);
            Si = (int)((sp->V + chunk - 1) / chunk);
            st = gk__workspace(ctx, (size_t)sp->B * (size_t)Si * 8, &ws, where);
            if (st == GK_OK) {
                void *args[5] = { &p.sp, &pl, &Si, &chunk, &ws };
                grid[0] = (unsigned)gk__grid_cap(ctx, (int64_t)sp->B * Si, 8);
                st = gk__launch_cfg(ctx, GK__MOD_SAMPLE, gk__k_greedy_part[p.dt], grid, block, 0, args, where);
            }
            if (st == GK_OK) {
                void *args[4] = { &p.sp, &Si, &ws, &pt };
                st = gk__launch(ctx, GK__MOD_SAMPLE, "gk_greedy_fin_k", sp->B, args, where);
            }
            if (ws) gk__unuse(ctx, ctx->ws);
        } else {
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

/* ---- Gaussian noise (gk_randn) ---- */
typedef struct gk__randn_p { float *out; int64_t n; uint64_t off; uint32_t k0, k1; } gk__randn_p;
/* number j of the stream of key (k0, k1): the CUDA kernel gk_randn_f32 computes the same in the same order */
static float gk__randn_one(uint64_t j, uint32_t k0, uint32_t k1) {
    uint32_t c[4], key[2], o[4];
    uint64_t b = j >> 2;
    int q = (int)(j & 3), w = q & 2;
    float u1, u2, r, t;
    c[0] = (uint32_t)b; c[1] = (uint32_t)(b >> 32); c[2] = 0; c[3] = 0;
    key[0] = k0; key[1] = k1;
    gk_philox4x32_10(c, key, o);
    u1 = ((float)(o[w] >> 8) + 0.5f) * 5.9604644775390625e-8f;
    u2 = ((float)(o[w + 1] >> 8) + 0.5f) * 5.9604644775390625e-8f;
    r = sqrtf(-2.0f * logf(u1));
    t = 6.28318548f * u2;
    return (q & 1) ? r * sinf(t) : r * cosf(t);
}
static int gk__randn_cpu(const void *vp) {
    const gk__randn_p *p = (const gk__randn_p *)vp;
    int64_t i;
    for (i = 0; i < p->n; i++) p->out[i] = gk__randn_one(p->off + (uint64_t)i, p->k0, p->k1);
    return 0;
}
GKDEF gk_status gk_randn(gk_ctx *ctx, gk_tensor out, uint64_t seed, uint64_t offset) {
    static const char *const names[1] = { "out" };
    const char *where = "gk_randn";
    gk__opnds ops;
    gk__randn_p p;
    gk_status st;
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__operands(ctx, &ops, &out, names, 1, where);
    if (st == GK_OK && ops.s[0]->dtype != GK_F32) st = gk__err(ctx, GK_ERR_DTYPE, "%s: out is %s; the noise is f32", where, gk_dtype_name(ops.s[0]->dtype));
    if (st == GK_OK && !gk__is_contig(ops.s[0])) st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: out must be contiguous (use a contiguous tensor, then gk_copy)", where);
    if (st == GK_OK) {
        p.n = gk__numel(ops.s[0]);
        p.off = offset;
        p.k0 = (uint32_t)seed; p.k1 = (uint32_t)(seed >> 32);
    }
    if (st == GK_OK && p.n == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__operands_use(ctx, &ops, where);
    if (st == GK_OK) {
        gk__cu_ptr po = gk__slot_addr(ops.s[0]);
        p.out = (float *)(uintptr_t)po;
        if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__randn_cpu, &p, sizeof p, where);
        else {
            void *args[5];
            args[0] = &po; args[1] = &p.n; args[2] = &p.off; args[3] = &p.k0; args[4] = &p.k1;
            st = gk__launch(ctx, GK__MOD_SAMPLE, "gk_randn_f32", p.n, args, where);
        }
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}

/* end of >>ops_math */

/* ------------------------------------------------------------------------ */
/* >>ops_nn: implementation of the >>api_ops_nn group (below this line) */
/* Shared helpers of the nn group. */
static int gk__nn_has(gk_tensor t) { return t.id != 0; }
static gk_status gk__nn_axis(gk_ctx *ctx, int axis, int ndim, int *out, const char *where) {
    int a = axis < 0 ? axis + ndim : axis;
    if (a < 0 || a >= ndim) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: axis %d out of range for %d dims", where, axis, ndim);
    *out = a;
    return GK_OK;
}
static int gk__nn_isfloat3(gk_dtype dt) { return dt == GK_F32 || dt == GK_F16 || dt == GK_BF16; }
/* (x dtype, weight dtype) -> kernel variant: f32/f32, f16/f16, f16/f32, bf16/bf16, bf16/f32; -1 if none */
static int gk__nn_combo(gk_dtype dt, gk_dtype wt) {
    if (dt == GK_F32) return wt == GK_F32 ? 0 : -1;
    if (dt == GK_F16) return wt == GK_F16 ? 1 : wt == GK_F32 ? 2 : -1;
    if (dt == GK_BF16) return wt == GK_BF16 ? 3 : wt == GK_F32 ? 4 : -1;
    return -1;
}
static float gk__nn_rnd(gk_dtype dt, float v) {
    char b[8];
    if (dt == GK_F32) return v;
    gk__stf(dt, b, v);
    return gk__ldf(dt, b);
}
static int gk__nn_same_shape(const gk__slot *a, const gk__slot *b) {
    return a->ndim == b->ndim && (a->ndim == 0 || memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)a->ndim) == 0);
}
static gk_status gk__nn_shape_err(gk_ctx *ctx, const char *where, const char *what, const gk__slot *s, const char *want) {
    char a[160];
    gk__shape_str(s, a, sizeof a);
    return gk__err(ctx, GK_ERR_SHAPE, "%s: %s has shape %s, expected %s", where, what, a, want);
}
/* A new tensor of the given shape (for the _new variants). */
static gk_status gk__nn_empty(gk_ctx *ctx, gk_dtype dt, int ndim, const int64_t *shape, gk_tensor *out, const char *where) {
    uint32_t idx;
    gk_status st;
    GK__ENTER(ctx, where);
    st = gk__bind(ctx);
    if (st == GK_OK) st = gk__tensor_new(ctx, dt, ndim, shape, &idx, where);
    if (st == GK_OK) *out = gk__handle(ctx, idx);
    gk__unlock(&ctx->mu);
    return st;
}
static gk_status gk__nn_info(gk_ctx *ctx, gk_tensor t, gk_tensor_info *info, gk_tensor *out, const char *where) {
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", where);
    return gk_tensor_info_get(ctx, t, info);
}

/* >>nn_norm: layer, RMS, add+RMS, group, instance norm, AdaIN */
/* ======================== norms ======================== */
typedef struct gk__normp {
    int64_t rows, L, R, cpg, S;
    int mode;          /* 0 mean/var, 1 rms, 2 add + rms */
    float eps;
    gk_dtype dt, wt;
    char *out, *h;
    const char *x, *res, *w, *b;
} gk__normp;

static int gk__norm_cpu(const void *vp) {
    const gk__normp *p = (const gk__normp *)vp;
    size_t es = gk__dtype_sizes[p->dt], ws = gk__dtype_sizes[p->wt];
    int64_t row, c;
    for (row = 0; row < p->rows; row++) {
        const char *xr = p->x + row * p->L * (int64_t)es;
        char *orow = p->out + row * p->L * (int64_t)es;
        double s = 0, q = 0, mean = 0;
        float rstd;
        int64_t cbase = (row % p->R) * p->cpg;
        if (p->mode == 2) {
            const char *rr = p->res + row * p->L * (int64_t)es;
            char *hr = p->h + row * p->L * (int64_t)es;
            for (c = 0; c < p->L; c++)
                gk__stf(p->dt, hr + c * (int64_t)es, gk__ldf(p->dt, xr + c * (int64_t)es) + gk__ldf(p->dt, rr + c * (int64_t)es));
            xr = hr;
        }
        if (p->mode == 0) {
            for (c = 0; c < p->L; c++) s += gk__ldf(p->dt, xr + c * (int64_t)es);
            mean = s / (double)p->L;
            for (c = 0; c < p->L; c++) { double d = gk__ldf(p->dt, xr + c * (int64_t)es) - mean; q += d * d; }
        } else {
            for (c = 0; c < p->L; c++) { double d = gk__ldf(p->dt, xr + c * (int64_t)es); q += d * d; }
        }
        rstd = (float)(1.0 / sqrt(q / (double)p->L + (double)p->eps));
        for (c = 0; c < p->L; c++) {
            int64_t ch = cbase + c / p->S;
            float v = gk__ldf(p->dt, xr + c * (int64_t)es), y;
            if (p->mode == 0) {
                y = (float)(((double)v - mean) * (double)rstd); /* mean unrounded: rows far from 0 keep their digits */
                if (p->w) y = y * gk__ldf(p->wt, p->w + ch * (int64_t)ws);
                if (p->b) y = y + gk__ldf(p->wt, p->b + ch * (int64_t)ws);
            } else {
                y = gk__nn_rnd(p->dt, v * rstd);
                if (p->w) y = gk__ldf(p->wt, p->w + ch * (int64_t)ws) * y;
            }
            gk__stf(p->dt, orow + c * (int64_t)es, y);
        }
    }
    return 0;
}

#define GK__NORM_NAMES(P, D, W) { P D "_" W "_v1", P D "_" W "_v2", P D "_" W "_v4", P D "_" W "_v8" }
#define GK__NORM_NAMES5(P) { GK__NORM_NAMES(P, "f32", "f32"), GK__NORM_NAMES(P, "f16", "f16"), GK__NORM_NAMES(P, "f16", "f32"), \
                             GK__NORM_NAMES(P, "bf16", "bf16"), GK__NORM_NAMES(P, "bf16", "f32") }
/* [0]: layer / rms, [1]: add + rms (residual loaded with x, before h is written) */
static const char *const gk__k_rownorm[2][5][4] = { GK__NORM_NAMES5("gk_rownorm_"), GK__NORM_NAMES5("gk_addrownorm_") };
/* persistent RMS norm, V = 1, 2, 4 */
#define GK__NORM_NAMESP(D, W) { "gk_rmsnorm_p_" D "_" W "_v1", "gk_rmsnorm_p_" D "_" W "_v2", "gk_rmsnorm_p_" D "_" W "_v4" }
static const char *const gk__k_rownorm_p[5][3] = { GK__NORM_NAMESP("f32", "f32"), GK__NORM_NAMESP("f16", "f16"), GK__NORM_NAMESP("f16", "f32"),
                                                    GK__NORM_NAMESP("bf16", "bf16"), GK__NORM_NAMESP("bf16", "f32") };
#define GK__NORM_NAMESL(D, W) { "gk_lnorm_p_" D "_" W "_v1", "gk_lnorm_p_" D "_" W "_v2", "gk_lnorm_p_" D "_" W "_v4" }
static const char *const gk__k_lnorm_p[5][3] = { GK__NORM_NAMESL("f32", "f32"), GK__NORM_NAMESL("f16", "f16"), GK__NORM_NAMESL("f16", "f32"),
                                                 GK__NORM_NAMESL("bf16", "bf16"), GK__NORM_NAMESL("bf16", "f32") };
#undef GK__NORM_NAMESL
static const char *const gk__k_warpnorm[2][5] = {
    { "gk_warpnorm_f32_f32", "gk_warpnorm_f16_f16", "gk_warpnorm_f16_f32", "gk_warpnorm_bf16_bf16", "gk_warpnorm_bf16_f32" },
    { "gk_addwarpnorm_f32_f32", "gk_addwarpnorm_f16_f16", "gk_addwarpnorm_f16_f32", "gk_addwarpnorm_bf16_bf16", "gk_addwarpnorm_bf16_f32" } };
/* the warp-per-row layer norm (src/ops/nn/norm.cu gk_lnwarp): [combo][V 4, 8, 16 vectors a lane] */
#define GK__LNW_NAMES(D, W) { "gk_lnwarp_" D "_" W "_v4", "gk_lnwarp_" D "_" W "_v8", "gk_lnwarp_" D "_" W "_v16" }
static const char *const gk__k_lnwarp[5][3] = { GK__LNW_NAMES("f32", "f32"), GK__LNW_NAMES("f16", "f16"), GK__LNW_NAMES("f16", "f32"),
                                                GK__LNW_NAMES("bf16", "bf16"), GK__LNW_NAMES("bf16", "f32") };
#undef GK__LNW_NAMES
/* The layer norm's kernel where the warp-per-row kernel can take the rows
   (no residual, rows of 33 to 512 16-byte vectors, x and out 16-byte
   aligned; the lane groups take shorter rows, the others gk_rownorm or
   gk_gnorm whatever this says). ctx->tune.ln_variant -1: the rule in gk__norm;
   0: gk_rownorm (one block a row); 1: gk_lnwarp, one row a warp (a block
   of 4 warps per 4 rows); 3: gk_lnorm_p, one block a row on a persistent
   grid, the next row's loads in flight during this one (only where
   gk__ln_persist holds; else 0); other values: the rule. Set by
   tests/test_nn.c and bench/bench_nn.c (they include the implementation) to
   check and time each. tune.ln_last: the variant the last CUDA
   gk_layer_norm launched (0, 1 or 3 as above; -1 another kernel). */
/* the persistent block-per-row kernels (gk_rmsnorm_p, gk_lnorm_p) take rows
   of 1 to 4 vectors a thread (vi 0..2) when there are more rows than fit at
   once but only a few waves of blocks (about 9 rows an SM at a time) */
static int gk__ln_persist(gk_ctx *ctx, int64_t rows, int vi) {
    return vi >= 0 && vi <= 2 && rows > (int64_t)ctx->info.sm_count * 4 && rows <= (int64_t)ctx->info.sm_count * 40;
}

static const char *const gk__k_gnorm[5] = { "gk_gnorm_f32_f32", "gk_gnorm_f16_f16", "gk_gnorm_f16_f32", "gk_gnorm_bf16_bf16", "gk_gnorm_bf16_f32" };
static const char *const gk__k_gnorm_part[5] = { "gk_gnorm_part_f32_f32", "gk_gnorm_part_f16_f16", "gk_gnorm_part_f16_f32", "gk_gnorm_part_bf16_bf16",
                                                 "gk_gnorm_part_bf16_f32" };
static const char *const gk__k_gnorm_apply[5] = { "gk_gnorm_apply_f32_f32", "gk_gnorm_apply_f16_f16", "gk_gnorm_apply_f16_f32", "gk_gnorm_apply_bf16_bf16",
                                                  "gk_gnorm_apply_bf16_f32" };

enum { GK__NK_LAYER = 0, GK__NK_RMS, GK__NK_ADDRMS, GK__NK_GROUP, GK__NK_INSTANCE, GK__NK_ADAIN };

/* One entry for every norm: kind, out, h (add+rms), x, residual, weight (or
   scale), bias (or shift), groups, eps. */
static gk_status gk__norm(gk_ctx *ctx, int kind, gk_tensor out, gk_tensor h, gk_tensor x, gk_tensor res, gk_tensor w, gk_tensor b,
                          int groups, double eps, const char *where) {
    const char *wn = kind == GK__NK_ADAIN ? "scale" : "weight", *bn = kind == GK__NK_ADAIN ? "shift" : "bias";
    gk_tensor ts[6];
    const char *names[6];
    int n = 0, iw = -1, ib = -1, ih = -1, ir = -1, i, combo;
    gk__opnds ops;
    gk__normp p;
    gk_status st;
    gk__slot *xs, *os;
    memset(&p, 0, sizeof p);
    ops.used = 0;
    GK__ENTER(ctx, where);
    ts[n] = out; names[n++] = "out";
    ts[n] = x; names[n++] = "x";
    if (kind == GK__NK_ADDRMS) { ih = n; ts[n] = h; names[n++] = "h"; ir = n; ts[n] = res; names[n++] = "residual"; }
    if (gk__nn_has(w) || kind == GK__NK_ADAIN) { iw = n; ts[n] = w; names[n++] = wn; }
    if (gk__nn_has(b) || kind == GK__NK_ADAIN) { ib = n; ts[n] = b; names[n++] = bn; }
    st = gk__operands(ctx, &ops, ts, names, n, where);
    if (st != GK_OK) goto done;
    os = ops.s[0];
    xs = ops.s[1];
    p.dt = xs->dtype;
    p.wt = iw >= 0 ? ops.s[iw]->dtype : p.dt;
    if (!gk__nn_isfloat3(p.dt)) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: x is %s (f32, f16 or bf16 only)", where, gk_dtype_name(p.dt)); goto done; }
    for (i = 0; i < n; i++) {
        int is_w = i == iw || i == ib;
        if (is_w && ops.s[i]->dtype != p.wt) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: %s is %s but %s is %s", where, names[i], gk_dtype_name(ops.s[i]->dtype), iw >= 0 ? names[iw] : "x", gk_dtype_name(p.wt)); goto done; }
        if (!is_w && ops.s[i]->dtype != p.dt) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: %s is %s but x is %s", where, names[i], gk_dtype_name(ops.s[i]->dtype), gk_dtype_name(p.dt)); goto done; }
        if (!gk__is_contig(ops.s[i])) { st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: %s is not contiguous (use gk_contiguous)", where, names[i]); goto done; }
        if (!is_w && i > 0 && !gk__nn_same_shape(ops.s[i], xs)) {
            char a[160];
            gk__shape_str(xs, a, sizeof a);
            st = gk__nn_shape_err(ctx, where, names[i], ops.s[i], a);
            goto done;
        }
    }
    if (!gk__nn_same_shape(os, xs)) {
        char a[160];
        gk__shape_str(xs, a, sizeof a);
        st = gk__nn_shape_err(ctx, where, "out", os, a);
        goto done;
    }
    combo = gk__nn_combo(p.dt, p.wt);
    if (combo < 0) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: %s is %s (f32 or x's dtype %s)", where, names[iw], gk_dtype_name(p.wt), gk_dtype_name(p.dt)); goto done; }
    if (!(eps >= 0) || eps > 1e30) { st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: eps %g must be >= 0", where, eps); goto done; }
    p.eps = (float)eps;
    if (kind <= GK__NK_ADDRMS) {
        int64_t D;
        if (xs->ndim < 1) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: x must have at least 1 dim", where); goto done; }
        D = xs->shape[xs->ndim - 1];
        p.L = D; p.R = 1; p.cpg = D; p.S = 1;
        p.rows = D ? gk__numel(xs) / D : 0;
        p.mode = kind == GK__NK_LAYER ? 0 : kind == GK__NK_RMS ? 1 : 2;
        for (i = 0; i < n; i++)
            if ((i == iw || i == ib) && (ops.s[i]->ndim != 1 || ops.s[i]->shape[0] != D)) {
                char want[64];
                snprintf(want, sizeof want, "[%lld]", (long long)D);
                st = gk__nn_shape_err(ctx, where, names[i], ops.s[i], want);
                goto done;
            }
    } else {
        int64_t B, C, S = 1;
        int d;
        if (xs->ndim < (kind == GK__NK_GROUP ? 2 : 3)) {
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: x has %d dims, expected [B, C, %s]", where, xs->ndim, kind == GK__NK_GROUP ? "*" : "T, ...");
            goto done;
        }
        B = xs->shape[0]; C = xs->shape[1];
        for (d = 2; d < xs->ndim; d++) S *= xs->shape[d];
        p.mode = 0;
        if (kind == GK__NK_GROUP) {
            if (groups <= 0 || C % groups != 0) { st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: num_groups %d must be > 0 and divide the %lld channels", where, groups, (long long)C); goto done; }
            p.rows = B * groups; p.L = (C / groups) * S; p.R = groups; p.cpg = C / groups; p.S = S;
        } else if (kind == GK__NK_INSTANCE) {
            p.rows = B * C; p.L = S; p.R = C > 0 ? C : 1; p.cpg = 1; p.S = S > 0 ? S : 1;
        } else {
            p.rows = B * C; p.L = S; p.R = B * C > 0 ? B * C : 1; p.cpg = 1; p.S = S > 0 ? S : 1;
        }
        if (p.S == 0) p.S = 1;
        for (i = 0; i < n; i++) {
            if (i != iw && i != ib) continue;
            if (kind == GK__NK_ADAIN) {
                if (ops.s[i]->ndim != 2 || ops.s[i]->shape[0] != B || ops.s[i]->shape[1] != C) {
                    char want[64];
                    snprintf(want, sizeof want, "[%lld,%lld]", (long long)B, (long long)C);
                    st = gk__nn_shape_err(ctx, where, names[i], ops.s[i], want);
                    goto done;
                }
            } else if (ops.s[i]->ndim != 1 || ops.s[i]->shape[0] != C) {
                char want[64];
                snprintf(want, sizeof want, "[%lld]", (long long)C);
                st = gk__nn_shape_err(ctx, where, names[i], ops.s[i], want);
                goto done;
            }
        }
    }
    if (p.rows == 0 || p.L == 0) goto done; /* empty: nothing to do */
    st = gk__operands_use(ctx, &ops, where);
    if (st != GK_OK) goto done;
    p.out = (char *)(uintptr_t)gk__slot_addr(os);
    p.x = (const char *)(uintptr_t)gk__slot_addr(xs);
    p.h = ih >= 0 ? (char *)(uintptr_t)gk__slot_addr(ops.s[ih]) : NULL;
    p.res = ir >= 0 ? (const char *)(uintptr_t)gk__slot_addr(ops.s[ir]) : NULL;
    p.w = iw >= 0 ? (const char *)(uintptr_t)gk__slot_addr(ops.s[iw]) : NULL;
    p.b = ib >= 0 ? (const char *)(uintptr_t)gk__slot_addr(ops.s[ib]) : NULL;
    if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__norm_cpu, &p, sizeof p, where);
    else {
        gk__cu_ptr px = gk__slot_addr(xs), po = gk__slot_addr(os), ph = ih >= 0 ? gk__slot_addr(ops.s[ih]) : 0,
                   pr = ir >= 0 ? gk__slot_addr(ops.s[ir]) : 0, pw = iw >= 0 ? gk__slot_addr(ops.s[iw]) : 0,
                   pb = ib >= 0 ? gk__slot_addr(ops.s[ib]) : 0;
        size_t es = gk__dtype_sizes[p.dt];
        int64_t rowb = p.L * (int64_t)es, nvec = rowb / 16;
        unsigned grid[3] = { 1, 1, 1 }, block[3] = { 1, 1, 1 };
        int vi = -1, lnv = 0;
        grid[0] = (unsigned)(p.rows < (1 << 30) ? p.rows : (1 << 30));
        if (kind <= GK__NK_ADDRMS && rowb % 16 == 0 && ((px | po | ph | pr) & 15) == 0) {
            int64_t t;
            /* vectors a thread by row length, 1 to 8 for blocks of about 128
               threads: one vector a thread on more threads is slower, and 8 on
               64 threads take 126 registers, too few rows in flight
               (docs/perf-log.md) */
            if (nvec <= 128) vi = 0;
            else if (nvec <= 256) vi = 1;
            else if (nvec <= 512) vi = 2;
            else if (nvec <= 4096) vi = 3;
            if (vi >= 0) {
                t = (nvec + (1 << vi) - 1) >> vi;
                block[0] = (unsigned)((t + 31) / 32 * 32);
            }
        }
        if (kind == GK__NK_LAYER) {
            ctx->tune.ln_last = -1;
            if (vi >= 0 && nvec > 32 && nvec <= 512) {
                /* the warp-per-row kernel (1) for rows of at most 128 vectors,
                   where it is ahead (bench_nn's layernorm_variants;
                   docs/perf-log.md), else the block-per-row kernel (0), on a
                   persistent grid (3) where gk__ln_persist holds */
                const int v = ctx->tune.ln_variant;
                if (v == 0 || v == 1 || v == 3) lnv = v;
                else lnv = nvec <= 128 ? 1 : gk__ln_persist(ctx, p.rows, vi) ? 3 : 0;
                if (lnv == 3 && !gk__ln_persist(ctx, p.rows, vi)) lnv = 0;
            }
            if (lnv == 0 && vi >= 0 && !(vi == 0 && nvec <= 32)) ctx->tune.ln_last = 0;
        }
        if (lnv == 1) {
            /* blocks of 4 warps, one row a warp (grid-stride beyond 2^30 blocks) */
            int Di = (int)p.L, kv = nvec <= 128 ? 0 : nvec <= 256 ? 1 : 2;
            const char *fn = gk__k_lnwarp[combo][kv];
            int64_t nb = (p.rows + 3) / 4;
            void *args[7];
            block[0] = 128;
            grid[0] = (unsigned)(nb < (1 << 30) ? nb : (1 << 30));
            args[0] = &p.rows; args[1] = &Di; args[2] = &p.eps; args[3] = &px; args[4] = &po; args[5] = &pw; args[6] = &pb;
            /* programmatic dependent launch (sm_90+): nothing touched before gk_pdl_wait */
            st = gk__launch_ex(ctx, GK__MOD_NORM, fn, grid, block, 0, args, GK__LAUNCH_PDL, where);
            if (st == GK_OK) ctx->tune.ln_last = lnv;
        } else if (vi == 0 && nvec <= 32) { /* short rows: G lanes a row (G a power of two >= nvec), 4 rows per lane a step */
            int Di = (int)p.L, G = 1, per_sm = 0;
            int64_t rpb, nb, maxb;
            void *args[11];
            gk__cu_function f;
            while (G < nvec) G *= 2;
            /* 128 threads, at most 64 registers (85 with the residual): as
               many blocks as are resident at once (8 an SM; 6), each walking
               steps of rpb rows, so there is no tail wave */
            rpb = 4 * (32 / G) * 4;
            nb = (p.rows + rpb - 1) / rpb;
            st = gk__lib_function(ctx, GK__MOD_NORM, gk__k_warpnorm[p.mode == 2][combo], &f, where);
            if (st != GK_OK) goto done;
            if (ctx->cu.OccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, 128, 0) != 0 || per_sm < 1) per_sm = 4;
            maxb = (int64_t)per_sm * ctx->info.sm_count;
            if (nb > maxb) nb = maxb;
            grid[0] = (unsigned)(nb < 1 ? 1 : nb);
            block[0] = 128;
            args[0] = &p.rows; args[1] = &Di; args[2] = &G; args[3] = &p.mode; args[4] = &p.eps; args[5] = &px; args[6] = &pr;
            args[7] = &ph; args[8] = &po; args[9] = &pw; args[10] = &pb;
            st = gk__launch_cfg(ctx, GK__MOD_NORM, gk__k_warpnorm[p.mode == 2][combo], grid, block, 0, args, where);
        } else if ((p.mode == 1 && gk__ln_persist(ctx, p.rows, vi)) || lnv == 3) {
            /* RMS norm over more rows than fit at once but only a few waves
               of blocks (about 9 rows an SM at a time): the persistent kernel
               (a block prefetches its next row during the current one), as
               many blocks as are resident, no tail wave: ahead of the
               block-per-row kernel at a few waves, behind it at many
               (docs/perf-log.md). */
            int Di = (int)p.L, per_sm = 0;
            int64_t nb;
            void *args[7];
            gk__cu_function f;
            const char *fn = (lnv == 3 ? gk__k_lnorm_p : gk__k_rownorm_p)[combo][vi];
            st = gk__lib_function(ctx, GK__MOD_NORM, fn, &f, where);
            if (st == GK_OK) {
                if (ctx->cu.OccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, (int)block[0], 0) != 0 || per_sm < 1) per_sm = 8;
                nb = (int64_t)per_sm * ctx->info.sm_count;
                grid[0] = (unsigned)(p.rows < nb ? p.rows : nb);
                args[0] = &p.rows; args[1] = &Di; args[2] = &p.eps; args[3] = &px; args[4] = &po; args[5] = &pw; args[6] = &pb;
                /* programmatic dependent launch (sm_90+): the kernel waits for
                   the previous one before touching memory, but its launch and
                   block setup overlap that kernel's tail */
                st = gk__launch_ex(ctx, GK__MOD_NORM, fn, grid, block, 0, args, GK__LAUNCH_PDL, where);
                if (st == GK_OK && lnv == 3) ctx->tune.ln_last = 3;
            }
        } else if (vi >= 0) {
            int Di = (int)p.L;
            void *args[10];
            args[0] = &p.rows; args[1] = &Di; args[2] = &p.mode; args[3] = &p.eps; args[4] = &px; args[5] = &pr;
            args[6] = &ph; args[7] = &po; args[8] = &pw; args[9] = &pb;
            st = gk__launch_cfg(ctx, GK__MOD_NORM, gk__k_rownorm[p.mode == 2][combo][vi], grid, block, 0, args, where);
        } else if (p.mode != 2 && p.L >= 16384 && p.rows < 2 * (int64_t)ctx->info.sm_count && p.rows <= 65535) {
            /* few long rows: split into chunks of >= 4096 columns, about 4 blocks an SM in all
               (gk_gnorm_part, then gk_gnorm_apply); the partial statistics in the workspace */
            int64_t want = (4 * (int64_t)ctx->info.sm_count + p.rows - 1) / p.rows, chunk;
            int splits = (int)GK__MIN(GK__MIN(want, p.L / 4096), (int64_t)1024);
            gk__cu_ptr pws = 0;
            void *args[15];
            unsigned g2[3], b2[3] = { 256, 1, 1 };
            if (splits < 1) splits = 1;
            chunk = (p.L + splits - 1) / splits;
            g2[0] = (unsigned)splits; g2[1] = (unsigned)p.rows; g2[2] = 1;
            st = gk__workspace(ctx, (size_t)p.rows * (size_t)splits * 8, &pws, where);
            if (st == GK_OK) {
                args[0] = &p.L; args[1] = &splits; args[2] = &chunk; args[3] = &p.mode; args[4] = &px; args[5] = &pws;
                st = gk__launch_cfg(ctx, GK__MOD_NORM, gk__k_gnorm_part[combo], g2, b2, 0, args, where);
                if (st == GK_OK) {
                    args[0] = &p.L; args[1] = &p.R; args[2] = &p.cpg; args[3] = &p.S; args[4] = &splits; args[5] = &chunk; args[6] = &p.mode;
                    args[7] = &p.eps; args[8] = &px; args[9] = &po; args[10] = &pw; args[11] = &pb; args[12] = &pws;
                    st = gk__launch_cfg(ctx, GK__MOD_NORM, gk__k_gnorm_apply[combo], g2, b2, 0, args, where);
                }
                gk__unuse(ctx, ctx->ws);
            }
        } else {
            void *args[13];
            block[0] = p.L >= 256 ? 256 : (unsigned)((p.L + 31) / 32 * 32);
            args[0] = &p.rows; args[1] = &p.L; args[2] = &p.R; args[3] = &p.cpg; args[4] = &p.S; args[5] = &p.mode; args[6] = &p.eps;
            args[7] = &px; args[8] = &pr; args[9] = &ph; args[10] = &po; args[11] = &pw; args[12] = &pb;
            st = gk__launch_cfg(ctx, GK__MOD_NORM, gk__k_gnorm[combo], grid, block, 0, args, where);
        }
    }
done:
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}

static const gk_tensor gk__nn_none = { 0, 0 };
GKDEF gk_status gk_layer_norm(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor weight, gk_tensor bias, double eps) {
    return gk__norm(ctx, GK__NK_LAYER, out, gk__nn_none, x, gk__nn_none, weight, bias, 0, eps, "gk_layer_norm");
}
GKDEF gk_status gk_rms_norm(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor weight, double eps) {
    return gk__norm(ctx, GK__NK_RMS, out, gk__nn_none, x, gk__nn_none, weight, gk__nn_none, 0, eps, "gk_rms_norm");
}
GKDEF gk_status gk_add_rms_norm(gk_ctx *ctx, gk_tensor out, gk_tensor h, gk_tensor x, gk_tensor residual, gk_tensor weight, double eps) {
    return gk__norm(ctx, GK__NK_ADDRMS, out, h, x, residual, weight, gk__nn_none, 0, eps, "gk_add_rms_norm");
}
GKDEF gk_status gk_group_norm(gk_ctx *ctx, gk_tensor out, gk_tensor x, int num_groups, gk_tensor weight, gk_tensor bias, double eps) {
    return gk__norm(ctx, GK__NK_GROUP, out, gk__nn_none, x, gk__nn_none, weight, bias, num_groups, eps, "gk_group_norm");
}
GKDEF gk_status gk_instance_norm(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor weight, gk_tensor bias, double eps) {
    return gk__norm(ctx, GK__NK_INSTANCE, out, gk__nn_none, x, gk__nn_none, weight, bias, 0, eps, "gk_instance_norm");
}
GKDEF gk_status gk_adain(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor scale, gk_tensor shift, double eps) {
    return gk__norm(ctx, GK__NK_ADAIN, out, gk__nn_none, x, gk__nn_none, scale, shift, 0, eps, "gk_adain");
}
static gk_status gk__norm_new(gk_ctx *ctx, int kind, gk_tensor x, gk_tensor res, gk_tensor w, gk_tensor b, int groups, double eps,
                              gk_tensor *out, gk_tensor *hout, const char *where) {
    gk_tensor t, h = gk__nn_none;
    gk_status st;
    if (out) out->id = 0;
    if (hout) hout->id = 0;
    if (!out || (kind == GK__NK_ADDRMS && !hout)) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", where);
    {
        gk_tensor_info info;
        GK__TRY(gk_tensor_info_get(ctx, x, &info));
        GK__TRY(gk__nn_empty(ctx, info.dtype, info.ndim, info.shape, &t, where));
        if (kind == GK__NK_ADDRMS) {
            st = gk__nn_empty(ctx, info.dtype, info.ndim, info.shape, &h, where);
            if (st != GK_OK) { gk_tensor_free(ctx, t); return st; }
        }
    }
    st = gk__norm(ctx, kind, t, h, x, res, w, b, groups, eps, where);
    if (kind == GK__NK_ADDRMS) {
        if (st != GK_OK) { gk_tensor_free(ctx, h); h = gk__nn_none; }
        *hout = h;
    }
    return gk__finish_new(ctx, st, t, out);
}
GKDEF gk_status gk_layer_norm_new(gk_ctx *ctx, gk_tensor x, gk_tensor weight, gk_tensor bias, double eps, gk_tensor *out) {
    return gk__norm_new(ctx, GK__NK_LAYER, x, gk__nn_none, weight, bias, 0, eps, out, NULL, "gk_layer_norm_new");
}
GKDEF gk_status gk_rms_norm_new(gk_ctx *ctx, gk_tensor x, gk_tensor weight, double eps, gk_tensor *out) {
    return gk__norm_new(ctx, GK__NK_RMS, x, gk__nn_none, weight, gk__nn_none, 0, eps, out, NULL, "gk_rms_norm_new");
}
GKDEF gk_status gk_add_rms_norm_new(gk_ctx *ctx, gk_tensor x, gk_tensor residual, gk_tensor weight, double eps, gk_tensor *out, gk_tensor *h) {
    return gk__norm_new(ctx, GK__NK_ADDRMS, x, residual, weight, gk__nn_none, 0, eps, out, h, "gk_add_rms_norm_new");
}
GKDEF gk_status gk_group_norm_new(gk_ctx *ctx, gk_tensor x, int num_groups, gk_tensor weight, gk_tensor bias, double eps, gk_tensor *out) {
    return gk__norm_new(ctx, GK__NK_GROUP, x, gk__nn_none, weight, bias, num_groups, eps, out, NULL, "gk_group_norm_new");
}
GKDEF gk_status gk_instance_norm_new(gk_ctx *ctx, gk_tensor x, gk_tensor weight, gk_tensor bias, double eps, gk_tensor *out) {
    return gk__norm_new(ctx, GK__NK_INSTANCE, x, gk__nn_none, weight, bias, 0, eps, out, NULL, "gk_instance_norm_new");
}
GKDEF gk_status gk_adain_new(gk_ctx *ctx, gk_tensor x, gk_tensor scale, gk_tensor shift, double eps, gk_tensor *out) {
    return gk__norm_new(ctx, GK__NK_ADAIN, x, gk__nn_none, scale, shift, 0, eps, out, NULL, "gk_adain_new");
}

/* >>nn_rope: rotary position tables and rotation, sinusoidal positions */
/* ======================== rotary positions ======================== */
/* f32 arithmetic exactly as torch does it on f32 tensors with Python scalars
   (each op rounded to f32; pow / exp / cos computed in double and rounded,
   within an ulp of torch's own). */
static float gk__f32(double v) { return (float)v; }
static gk_status gk__rope_check(const gk_rope_config *cfg, const char *where) {
    if (!cfg) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: cfg is NULL", where);
    if (cfg->rotary_dim <= 0 || cfg->rotary_dim % 2)
        return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: rotary_dim %d must be even and > 0", where, cfg->rotary_dim);
    if ((int)cfg->type < 0 || cfg->type > GK_ROPE_LLAMA3) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: unknown rope type %d", where, (int)cfg->type);
    if (cfg->theta < 0) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: theta %g < 0", where, cfg->theta);
    if ((cfg->type == GK_ROPE_LINEAR || cfg->type == GK_ROPE_DYNAMIC || cfg->type == GK_ROPE_LLAMA3) && !(cfg->factor > 0))
        return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: factor %g must be > 0", where, cfg->factor);
    if ((cfg->type == GK_ROPE_DYNAMIC || cfg->type == GK_ROPE_YARN) && cfg->max_position_embeddings <= 0)
        return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: max_position_embeddings %lld must be > 0", where, (long long)cfg->max_position_embeddings);
    if (cfg->type == GK_ROPE_DYNAMIC && cfg->rotary_dim <= 2)
        return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: dynamic scaling needs rotary_dim > 2 (got %d)", where, cfg->rotary_dim);
    if (cfg->type == GK_ROPE_LLAMA3 && (cfg->original_max_position_embeddings <= 0 || !(cfg->high_freq_factor > cfg->low_freq_factor) || !(cfg->low_freq_factor > 0)))
        return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: llama3 needs original_max_position_embeddings > 0 and 0 < low_freq_factor < high_freq_factor", where);
    return GK_OK;
}
/* 1 / base^(2i / dim) in f32: exponent (float)(2i) / dim, pow rounded to f32, reciprocal in f32 */
static void gk__rope_default(double base, int dim, float *inv) {
    int i;
    float fb = gk__f32(base);
    for (i = 0; i < dim / 2; i++) {
        float e = (float)(2 * i) / (float)dim;
        float pw = gk__f32(pow((double)fb, (double)e));
        inv[i] = 1.0f / pw;
    }
}
static double gk__yarn_mscale(double scale, double m) { return scale <= 1 ? 1.0 : 0.1 * m * log(scale) + 1.0; }

GKDEF gk_status gk_rope_inv_freq(const gk_rope_config *cfg, float *inv, double *attention_scaling) {
    const char *W = "gk_rope_inv_freq";
    double base, att = 1.0;
    int dim, half, i;
    GK__TRY(gk__rope_check(cfg, W));
    if (!inv) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: inv_freq is NULL", W);
    dim = cfg->rotary_dim;
    half = dim / 2;
    base = cfg->theta > 0 ? cfg->theta : 10000.0;
    switch (cfg->type) {
    case GK_ROPE_DEFAULT: gk__rope_default(base, dim, inv); break;
    case GK_ROPE_LINEAR:
        gk__rope_default(base, dim, inv);
        for (i = 0; i < half; i++) inv[i] = inv[i] / gk__f32(cfg->factor);
        break;
    case GK_ROPE_DYNAMIC: {
        double mp = (double)cfg->max_position_embeddings, seq = (double)cfg->seq_len;
        if (seq < mp) seq = mp;
        base = base * pow((cfg->factor * seq / mp) - (cfg->factor - 1), (double)dim / (double)(dim - 2));
        gk__rope_default(base, dim, inv);
        break;
    }
    case GK_ROPE_YARN: {
        double factor = cfg->factor, orig = cfg->original_max_position_embeddings > 0 ? (double)cfg->original_max_position_embeddings
                                                                                      : (double)cfg->max_position_embeddings;
        double bf = cfg->beta_fast != 0 ? cfg->beta_fast : 32, bs = cfg->beta_slow != 0 ? cfg->beta_slow : 1, lo, hi;
        float fb = gk__f32(base);
        if (!(factor > 0)) factor = (double)cfg->max_position_embeddings / orig;
        if (cfg->attention_factor != 0) att = cfg->attention_factor;
        else if (cfg->mscale != 0 && cfg->mscale_all_dim != 0) att = gk__yarn_mscale(factor, cfg->mscale) / gk__yarn_mscale(factor, cfg->mscale_all_dim);
        else att = gk__yarn_mscale(factor, 1);
        lo = (dim * log(orig / (bf * 2 * 3.141592653589793))) / (2 * log(base));
        hi = (dim * log(orig / (bs * 2 * 3.141592653589793))) / (2 * log(base));
        if (!cfg->no_truncate) { lo = floor(lo); hi = ceil(hi); }
        if (lo < 0) lo = 0;
        if (hi > dim - 1) hi = dim - 1;
        if (lo == hi) hi += 0.001;
        for (i = 0; i < half; i++) {
            float e = (float)(2 * i) / (float)dim;
            float pf = gk__f32(pow((double)fb, (double)e));
            float extra = 1.0f / pf, inter = 1.0f / (gk__f32(factor) * pf);
            float ramp = ((float)i - gk__f32(lo)) / gk__f32(hi - lo), ef;
            ramp = ramp < 0 ? 0.0f : ramp > 1 ? 1.0f : ramp;
            ef = 1.0f - ramp;
            inv[i] = inter * (1.0f - ef) + extra * ef;
        }
        break;
    }
    case GK_ROPE_LLAMA3: {
        float f = gk__f32(cfg->factor), lf = gk__f32(cfg->low_freq_factor);
        double old = (double)cfg->original_max_position_embeddings;
        float lw = gk__f32(old / cfg->low_freq_factor), hw = gk__f32(old / cfg->high_freq_factor);
        float twopi = gk__f32(2 * 3.141592653589793), fold = gk__f32(old), span = gk__f32(cfg->high_freq_factor - cfg->low_freq_factor);
        gk__rope_default(base, dim, inv);
        for (i = 0; i < half; i++) {
            float wl = twopi / inv[i];
            float il = wl > lw ? inv[i] / f : inv[i];
            float sf = (fold / wl - lf) / span;
            float sm = (1.0f - sf) * il / f + sf * il;
            if (!(wl < hw) && !(wl > lw)) il = sm;
            inv[i] = il;
        }
        break;
    }
    }
    if (attention_scaling) *attention_scaling = att;
    return GK_OK;
}

GKDEF gk_status gk_rope_table(const gk_rope_config *cfg, int64_t max_pos, float *cos_tab, float *sin_tab, double *attention_scaling) {
    const char *W = "gk_rope_table";
    float inv[4096];
    double att = 1;
    float fatt;
    int64_t p;
    int i, half;
    GK__TRY(gk__rope_check(cfg, W));
    if (max_pos <= 0) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: max_pos %lld must be > 0", W, (long long)max_pos);
    if (cfg->rotary_dim > 8192) return gk__err(NULL, GK_ERR_LIMIT, "%s: rotary_dim %d > 8192", W, cfg->rotary_dim);
    if (!cos_tab || !sin_tab) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: cos_tab or sin_tab is NULL", W);
    GK__TRY(gk_rope_inv_freq(cfg, inv, &att));
    half = cfg->rotary_dim / 2;
    fatt = (float)att;
    for (p = 0; p < max_pos; p++)
        for (i = 0; i < half; i++) {
            float a = (float)p * inv[i]; /* HF: f32 inv_freq @ f32 positions */
            cos_tab[p * half + i] = (float)cos((double)a) * fatt;
            sin_tab[p * half + i] = (float)sin((double)a) * fatt;
        }
    if (attention_scaling) *attention_scaling = att;
    return GK_OK;
}

GKDEF gk_status gk_rope_table_new(gk_ctx *ctx, const gk_rope_config *cfg, int64_t max_pos, gk_dtype dtype, gk_tensor *cos_t, gk_tensor *sin_t) {
    const char *W = "gk_rope_table_new";
    float *c, *s;
    void *bc = NULL, *bs = NULL;
    int64_t shape[2], n;
    gk_status st;
    gk_tensor tc = gk__nn_none, tsn = gk__nn_none;
    if (cos_t) cos_t->id = 0;
    if (sin_t) sin_t->id = 0;
    if (!ctx) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "%s: ctx is NULL", W);
    if (!cos_t || !sin_t) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: cos_tab or sin_tab is NULL", W);
    if (!gk__nn_isfloat3(dtype)) return gk__err(ctx, GK_ERR_DTYPE, "%s: dtype %s (f32, f16 or bf16)", W, gk_dtype_name(dtype));
    if (!cfg) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: cfg is NULL", W);
    if ((st = gk__rope_check(cfg, W)) != GK_OK) return gk__err(ctx, st, "%s", gk_last_error(NULL));
    if (max_pos <= 0 || max_pos > ((int64_t)1 << 40) / cfg->rotary_dim)
        return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: max_pos %lld must be > 0 (and the table below 2^40 values)", W, (long long)max_pos);
    shape[0] = max_pos;
    shape[1] = cfg->rotary_dim / 2;
    n = shape[0] * shape[1];
    c = (float *)GPUKIT_MALLOC((size_t)n * 4 * 3 + 16); /* cos, sin, and room for both narrowed */
    if (!c) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
    s = c + n;
    st = gk_rope_table(cfg, max_pos, c, s, NULL);
    if (st != GK_OK) { GPUKIT_FREE(c); return gk__err(ctx, st, "%s", gk_last_error(NULL)); }
    bc = c; bs = s;
    if (dtype != GK_F32) {
        bc = c + 2 * n;
        bs = (char *)bc + (size_t)n * 2;
        gk_convert(dtype, bc, GK_F32, c, (size_t)n);
        gk_convert(dtype, bs, GK_F32, s, (size_t)n);
    }
    st = gk_tensor_from_host(ctx, dtype, 2, shape, bc, &tc);
    if (st == GK_OK) st = gk_tensor_from_host(ctx, dtype, 2, shape, bs, &tsn);
    GPUKIT_FREE(c);
    if (st != GK_OK) { if (tc.id) gk_tensor_free(ctx, tc); return st; }
    *cos_t = tc;
    *sin_t = tsn;
    return GK_OK;
}

GKDEF gk_status gk_sinusoids(int64_t length, int64_t channels, double max_timescale, float *out) {
    const char *W = "gk_sinusoids";
    int64_t half, t, i;
    float inc;
    if (length < 0 || channels < 4 || channels % 2)
        return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: length %lld >= 0 and even channels >= 4 needed (got %lld)", W, (long long)length, (long long)channels);
    if (!out && length > 0) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (max_timescale == 0) max_timescale = 10000;
    if (!(max_timescale > 0)) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: max_timescale %g must be > 0", W, max_timescale);
    half = channels / 2;
    /* torch: exp(-log_inc * arange(half)) in f32, arange(length)[:, None] * inv[None, :] in f32 */
    inc = (float)(-(log(max_timescale) / (double)(half - 1)));
    for (i = 0; i < half; i++) {
        float inv = (float)exp((double)(inc * (float)i));
        for (t = 0; t < length; t++) {
            float a = (float)t * inv;
            out[t * channels + i] = (float)sin((double)a);
            out[t * channels + half + i] = (float)cos((double)a);
        }
    }
    return GK_OK;
}

typedef struct gk__ropep {
    int64_t T, H, D, P;
    int rd, gptj, pos64, pass;
    gk_dtype dt, ct;
    int64_t xst, xsh, ost, osh;
    const char *x, *pos, *cs, *sn;
    char *out;
} gk__ropep;
static int gk__rope_cpu(const void *vp) {
    const gk__ropep *p = (const gk__ropep *)vp;
    size_t es = gk__dtype_sizes[p->dt], cs = gk__dtype_sizes[p->ct];
    int64_t t, h, j, half = p->rd / 2;
    for (t = 0; t < p->T; t++) {
        int64_t pos;
        int ok;
        if (p->pos64) memcpy(&pos, p->pos + t * 8, 8);
        else { int32_t v; memcpy(&v, p->pos + t * 4, 4); pos = v; }
        ok = pos >= 0 && pos < p->P;
        for (h = 0; h < p->H; h++) {
            const char *xr = p->x + (t * p->xst + h * p->xsh) * (int64_t)es;
            char *orow = p->out + (t * p->ost + h * p->osh) * (int64_t)es;
            float tmp[2];
            for (j = 0; j < half; j++) {
                float c = ok ? gk__ldf(p->ct, p->cs + (pos * half + j) * (int64_t)cs) : 0.0f;
                float s = ok ? gk__ldf(p->ct, p->sn + (pos * half + j) * (int64_t)cs) : 0.0f;
                int64_t ia = p->gptj ? 2 * j : j, ib = p->gptj ? 2 * j + 1 : j + half;
                float u = gk__ldf(p->dt, xr + ia * (int64_t)es), v = gk__ldf(p->dt, xr + ib * (int64_t)es);
                tmp[0] = u * c - v * s;
                tmp[1] = v * c + u * s;
                gk__stf(p->dt, orow + ia * (int64_t)es, tmp[0]);
                gk__stf(p->dt, orow + ib * (int64_t)es, tmp[1]);
            }
            if (p->pass) memmove(orow + p->rd * (int64_t)es, xr + p->rd * (int64_t)es, (size_t)(p->D - p->rd) * es);
        }
    }
    return 0;
}
#define GK__ROPE_NAMES(D, C) { "gk_rope_" D "_" C "_p1", "gk_rope_" D "_" C "_p4", "gk_rope_" D "_" C "_p8" }
static const char *const gk__k_rope[5][3] = { GK__ROPE_NAMES("f32", "f32"), GK__ROPE_NAMES("f16", "f16"), GK__ROPE_NAMES("f16", "f32"),
                                               GK__ROPE_NAMES("bf16", "bf16"), GK__ROPE_NAMES("bf16", "f32") };

GKDEF gk_status gk_rope(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor positions, gk_tensor cos_tab, gk_tensor sin_tab, int rotary_dim,
                        gk_rope_layout layout) {
    static const char *const names[5] = { "out", "x", "positions", "cos_tab", "sin_tab" };
    const char *W = "gk_rope";
    gk_tensor ts[5];
    gk__opnds ops;
    gk__ropep p;
    gk_status st;
    gk__slot *os, *xs, *ps, *cs, *ss;
    int combo, i;
    ops.used = 0;
    memset(&p, 0, sizeof p);
    ts[0] = out; ts[1] = x; ts[2] = positions; ts[3] = cos_tab; ts[4] = sin_tab;
    GK__ENTER(ctx, W);
    st = gk__operands(ctx, &ops, ts, names, 5, W);
    if (st != GK_OK) goto done;
    os = ops.s[0]; xs = ops.s[1]; ps = ops.s[2]; cs = ops.s[3]; ss = ops.s[4];
    p.dt = xs->dtype;
    p.ct = cs->dtype;
    if (!gk__nn_isfloat3(p.dt)) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: x is %s (f32, f16 or bf16 only)", W, gk_dtype_name(p.dt)); goto done; }
    if (os->dtype != p.dt) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: out is %s but x is %s", W, gk_dtype_name(os->dtype), gk_dtype_name(p.dt)); goto done; }
    if (ps->dtype != GK_I32 && ps->dtype != GK_I64) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: positions are %s (i32 or i64)", W, gk_dtype_name(ps->dtype)); goto done; }
    combo = gk__nn_combo(p.dt, p.ct);
    if (combo < 0 || ss->dtype != p.ct) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: cos_tab %s / sin_tab %s must both be f32 or x's dtype %s", W, gk_dtype_name(p.ct), gk_dtype_name(ss->dtype), gk_dtype_name(p.dt)); goto done; }
    if (xs->ndim != 3) { st = gk__nn_shape_err(ctx, W, "x", xs, "[tokens, heads, head_dim]"); goto done; }
    if (!gk__nn_same_shape(os, xs)) { char a[160]; gk__shape_str(xs, a, sizeof a); st = gk__nn_shape_err(ctx, W, "out", os, a); goto done; }
    p.T = xs->shape[0]; p.H = xs->shape[1]; p.D = xs->shape[2];
    if (rotary_dim <= 0 || rotary_dim % 2) { st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: rotary_dim %d must be even and > 0", W, rotary_dim); goto done; }
    if (rotary_dim > p.D) { st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: rotary_dim %d > head_dim %lld", W, rotary_dim, (long long)p.D); goto done; }
    if (layout != GK_ROPE_NEOX && layout != GK_ROPE_GPTJ) { st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: unknown layout %d", W, (int)layout); goto done; }
    if (ps->ndim != 1 || ps->shape[0] != p.T || !gk__is_contig(ps)) {
        char want[64];
        snprintf(want, sizeof want, "[%lld] (contiguous)", (long long)p.T);
        st = gk__nn_shape_err(ctx, W, "positions", ps, want);
        goto done;
    }
    for (i = 3; i < 5; i++)
        if (ops.s[i]->ndim != 2 || ops.s[i]->shape[1] != rotary_dim / 2 || ops.s[i]->shape[0] != cs->shape[0] || !gk__is_contig(ops.s[i])) {
            char want[64];
            snprintf(want, sizeof want, "[max_pos, %d] (contiguous, both alike)", rotary_dim / 2);
            st = gk__nn_shape_err(ctx, W, names[i], ops.s[i], want);
            goto done;
        }
    if ((xs->strides[2] != 1 && p.D > 1) || (os->strides[2] != 1 && p.D > 1)) { st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: the last dim of x and out must be contiguous", W); goto done; }
    if (p.T == 0 || p.H == 0) goto done;
    p.P = cs->shape[0];
    p.rd = rotary_dim;
    p.gptj = layout == GK_ROPE_GPTJ;
    p.pos64 = ps->dtype == GK_I64;
    p.xst = xs->strides[0]; p.xsh = xs->strides[1]; p.ost = os->strides[0]; p.osh = os->strides[1];
    st = gk__operands_use(ctx, &ops, W);
    if (st != GK_OK) goto done;
    p.pass = p.D > p.rd && (gk__slot_addr(os) != gk__slot_addr(xs) || p.xst != p.ost || p.xsh != p.osh);
    p.x = (const char *)(uintptr_t)gk__slot_addr(xs);
    p.out = (char *)(uintptr_t)gk__slot_addr(os);
    p.pos = (const char *)(uintptr_t)gk__slot_addr(ps);
    p.cs = (const char *)(uintptr_t)gk__slot_addr(cs);
    p.sn = (const char *)(uintptr_t)gk__slot_addr(ss);
    if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__rope_cpu, &p, sizeof p, W);
    else {
        gk__cu_ptr px = gk__slot_addr(xs), po = gk__slot_addr(os), pp = gk__slot_addr(ps), pc = gk__slot_addr(cs), psn = gk__slot_addr(ss);
        size_t es = gk__dtype_sizes[p.dt];
        int half = p.rd / 2, Di = (int)p.D;
        int vp4 = half % 4 == 0 && ((px | po | pc | psn) & 15) == 0 && ((p.xst | p.xsh | p.ost | p.osh) * (int64_t)es) % 16 == 0;
        void *args[16];
        args[0] = &p.T; args[1] = &p.H; args[2] = &Di; args[3] = &p.rd; args[4] = &p.gptj; args[5] = &pp; args[6] = &p.pos64;
        args[7] = &p.P; args[8] = &px; args[9] = &p.xst; args[10] = &p.xsh; args[11] = &po; args[12] = &p.ost; args[13] = &p.osh;
        args[14] = &pc; args[15] = &psn;
        if (p.pass) { /* pass-through first: it reads x before an overlapping out changes */
            void *a2[10];
            a2[0] = &p.T; a2[1] = &p.H; a2[2] = &Di; a2[3] = &p.rd; a2[4] = &px; a2[5] = &p.xst; a2[6] = &p.xsh; a2[7] = &po; a2[8] = &p.ost; a2[9] = &p.osh;
            st = gk__launch(ctx, GK__MOD_ROPE, es == 2 ? "gk_rope_pass_b2" : "gk_rope_pass_b4", p.T * p.H * (p.D - p.rd), a2, W);
        }
        if (st == GK_OK) { /* 8 pairs a thread (16-byte loads) for the 16-bit dtypes when rd/2 allows */
            int vk = vp4 ? (es == 2 && half % 8 == 0 ? 2 : 1) : 0;
            st = gk__launch(ctx, GK__MOD_ROPE, gk__k_rope[combo][vk], p.T * p.H * (half / (vk == 2 ? 8 : vk ? 4 : 1)), args, W);
        }
    }
done:
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_rope_new(gk_ctx *ctx, gk_tensor x, gk_tensor positions, gk_tensor cos_tab, gk_tensor sin_tab, int rotary_dim,
                            gk_rope_layout layout, gk_tensor *out) {
    gk_tensor_info info;
    gk_tensor t;
    GK__TRY(gk__nn_info(ctx, x, &info, out, "gk_rope_new"));
    GK__TRY(gk__nn_empty(ctx, info.dtype, info.ndim, info.shape, &t, "gk_rope_new"));
    return gk__finish_new(ctx, gk_rope(ctx, t, x, positions, cos_tab, sin_tab, rotary_dim, layout), t, out);
}

/* >>nn_layout: permute, concat, split, repeat, gather / embedding, pad, interpolate */
/* ======================== layout ======================== */
/* The geometry of a strided copy: out and in element strides over a shape
   of up to 16 dims (repeat), size-1 dims dropped, contiguous dims merged;
   0 when more than GK_MAX_DIMS remain. */
static int gk__nn_nd(gk__nd *nd, int ndim, const int64_t *shape, const int64_t *ost, const int64_t *ist) {
    int d, j = 0;
    memset(nd, 0, sizeof *nd);
    nd->n = 1;
    for (d = 0; d < ndim; d++) nd->n *= shape[d];
    for (d = 0; d < ndim; d++) {
        if (shape[d] == 1) continue;
        if (j > 0 && nd->st[0][j - 1] == ost[d] * shape[d] && nd->st[1][j - 1] == ist[d] * shape[d]) {
            nd->shape[j - 1] *= shape[d];
            nd->st[0][j - 1] = ost[d];
            nd->st[1][j - 1] = ist[d];
            continue;
        }
        if (j == GK_MAX_DIMS) return 0;
        nd->shape[j] = shape[d];
        nd->st[0][j] = ost[d];
        nd->st[1][j] = ist[d];
        j++;
    }
    nd->ndim = j;
    if (j == 0) { nd->ndim = 1; nd->shape[0] = 1; nd->st[0][0] = 1; nd->st[1][0] = 1; }
    return 1;
}

typedef struct gk__rows { /* gk_rows in src/ops/nn/layout.cu */
    int ndim, pad;
    int64_t nrows, cpr;
    int64_t shape[GK_MAX_DIMS], ost[GK_MAX_DIMS], ist[GK_MAX_DIMS];
} gk__rows;
typedef struct gk__tr { /* gk_tr in src/ops/nn/layout.cu */
    int nb, pad;
    int64_t R, C, nbatch, ist_c, ost_r;
    int64_t bshape[6], bost[6], bist[6];
} gk__tr;
static const char *const gk__k_rowcopy[17] = { NULL, "gk_rowcopy_w1", "gk_rowcopy_w2", NULL, "gk_rowcopy_w4", NULL, NULL, NULL, "gk_rowcopy_w8",
                                               NULL, NULL, NULL, NULL, NULL, NULL, NULL, "gk_rowcopy_w16" };
static const char *const gk__k_transpose[9] = { NULL, "gk_transpose_b1", "gk_transpose_b2", NULL, "gk_transpose_b4", NULL, NULL, NULL, "gk_transpose_b8" };
static const char *const gk__k_gather[17] = { NULL, "gk_gather_w1", "gk_gather_w2", NULL, "gk_gather_w4", NULL, NULL, NULL, "gk_gather_w8",
                                              NULL, NULL, NULL, NULL, NULL, NULL, NULL, "gk_gather_w16" };

/* Issues the strided copy of nd (operands used and pinned by the caller). */
static gk_status gk__nn_copy(gk_ctx *ctx, const gk__nd *nd, gk_dtype dt, gk__cu_ptr po, gk__cu_ptr pa, const char *where) {
    int64_t es = (int64_t)gk__dtype_sizes[dt];
    int last = nd->ndim - 1, d, p = -1;
    if (nd->n == 0) return GK_OK;
    if (ctx->backend == GK_BACKEND_CPU) {
        gk__ew e;
        memset(&e, 0, sizeof e);
        e.nd = *nd;
        e.o = (char *)(uintptr_t)po;
        e.a = (const char *)(uintptr_t)pa;
        e.dt = e.sdt = dt;
        e.op = GK__OP_COPY;
        return gk__cpu_run(ctx, gk__ew_cpu, &e, sizeof e, where);
    }
    if (nd->ndim == 1 && nd->st[0][0] == 1 && nd->st[1][0] == 1) {
        gk__cu_result r = ctx->cu.MemcpyDtoDAsync(po, pa, (size_t)(nd->n * es), ctx->cur_stream->cu);
        return r != 0 ? gk__cu_fail(ctx, r, where, "cuMemcpyDtoDAsync_v2") : GK_OK;
    }
    if (nd->st[0][last] == 1 && nd->st[1][last] == 1) { /* contiguous rows */
        gk__rows g;
        int64_t rowb = nd->shape[last] * es, w;
        uint64_t al = (uint64_t)rowb | po | pa;
        void *args[3];
        memset(&g, 0, sizeof g);
        for (d = 0; d < last; d++) {
            g.shape[d] = nd->shape[d];
            g.ost[d] = nd->st[0][d] * es;
            g.ist[d] = nd->st[1][d] * es;
            al |= (uint64_t)g.ost[d] | (uint64_t)g.ist[d];
        }
        for (w = 16; w > 1 && (al & (uint64_t)(w - 1)); w >>= 1) {}
        g.ndim = last;
        g.nrows = nd->n / nd->shape[last];
        g.cpr = rowb / w;
        args[0] = &g; args[1] = &po; args[2] = &pa;
        return gk__launch(ctx, GK__MOD_LAYOUT, gk__k_rowcopy[w], g.nrows * g.cpr, args, where);
    }
    if (nd->st[0][last] == 1 && es <= 8 && (es & (es - 1)) == 0 && nd->ndim <= 8) {
        for (d = 0; d < last; d++) if (nd->st[1][d] == 1) p = d;
    }
    if (p >= 0) { /* the input's contiguous dim moves: tiled transpose */
        gk__tr g;
        int k = 0;
        unsigned grid[3], block[3] = { 32, 8, 1 };
        void *args[3];
        memset(&g, 0, sizeof g);
        g.R = nd->shape[p]; g.C = nd->shape[last]; g.ist_c = nd->st[1][last]; g.ost_r = nd->st[0][p];
        g.nbatch = 1;
        for (d = 0; d < last; d++) {
            if (d == p) continue;
            g.bshape[k] = nd->shape[d]; g.bost[k] = nd->st[0][d]; g.bist[k] = nd->st[1][d];
            g.nbatch *= nd->shape[d];
            k++;
        }
        g.nb = k;
        {   /* 64x64 tiles for 4- and 8-byte elements when both dims exceed 32, else 32x32 */
            int t64 = (es == 4 || es == 8) && g.R > 32 && g.C > 32;
            int64_t tl = t64 ? 64 : 32;
            grid[0] = (unsigned)((g.C + tl - 1) / tl);
            grid[1] = (unsigned)((g.R + tl - 1) / tl);
            grid[2] = (unsigned)(g.nbatch < 65535 ? g.nbatch : 65535);
            if (grid[1] <= 65535) {
                args[0] = &g; args[1] = &po; args[2] = &pa;
                return gk__launch_cfg(ctx, GK__MOD_LAYOUT, t64 ? (es == 4 ? "gk_transpose64_b4" : "gk_transpose64_b8") : gk__k_transpose[es], grid,
                                      block, 0, args, where);
            }
        }
    }
    {
        gk__nd g = *nd;
        gk__cu_ptr pb = 0;
        void *args[4];
        args[0] = &g; args[1] = &po; args[2] = &pa; args[3] = &pb;
        if (es > 8 || (es & (es - 1))) return gk__err(ctx, GK_ERR_INTERNAL, "%s: element size %lld", where, (long long)es);
        return gk__launch(ctx, GK__MOD_ELEMENTWISE, gk__k_copy[es], nd->n, args, where);
    }
}

/* out (operand 0) <- in (operand 1) through the geometry shape / ost / ist. */
static gk_status gk__nn_copy_ops(gk_ctx *ctx, gk__opnds *ops, int ndim, const int64_t *shape, const int64_t *ost, const int64_t *ist,
                                 int64_t in_off, const char *where) {
    gk__nd nd;
    gk_status st;
    if (!gk__nn_nd(&nd, ndim, shape, ost, ist))
        return gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: the copy needs more than %d dims after merging", where, GK_MAX_DIMS);
    if (nd.n == 0) return GK_OK;
    GK__TRY(gk__operands_use(ctx, ops, where));
    st = gk__nn_copy(ctx, &nd, ops->s[0]->dtype, gk__slot_addr(ops->s[0]),
                     gk__slot_addr(ops->s[1]) + (gk__cu_ptr)(in_off * (int64_t)gk__dtype_sizes[ops->s[1]->dtype]), where);
    return st;
}
static gk_status gk__nn_two(gk_ctx *ctx, gk__opnds *ops, gk_tensor out, gk_tensor x, const char *where) {
    static const char *const names[2] = { "out", "x" };
    gk_tensor ts[2];
    ts[0] = out; ts[1] = x;
    ops->used = 0;
    GK__TRY(gk__operands(ctx, ops, ts, names, 2, where));
    if (ops->s[0]->dtype != ops->s[1]->dtype)
        return gk__err(ctx, GK_ERR_DTYPE, "%s: out is %s but x is %s", where, gk_dtype_name(ops->s[0]->dtype), gk_dtype_name(ops->s[1]->dtype));
    return GK_OK;
}
static gk_status gk__nn_want_shape(gk_ctx *ctx, const gk__slot *o, int ndim, const int64_t *shape, const char *where) {
    if (o->ndim != ndim || (ndim && memcmp(o->shape, shape, sizeof(int64_t) * (size_t)ndim) != 0)) {
        char want[200];
        gk__slot tmp;
        memset(&tmp, 0, sizeof tmp);
        tmp.ndim = ndim;
        if (ndim) memcpy(tmp.shape, shape, sizeof(int64_t) * (size_t)ndim);
        gk__shape_str(&tmp, want, sizeof want);
        return gk__nn_shape_err(ctx, where, "out", o, want);
    }
    return GK_OK;
}

static gk_status gk__perm_shape(gk_ctx *ctx, const gk__slot *x, const int *perm, int64_t *shape, int64_t *ist, const char *where) {
    int seen[GK_MAX_DIMS] = { 0 }, d;
    if (!perm && x->ndim > 0) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: perm is NULL", where);
    for (d = 0; d < x->ndim; d++) {
        int a = perm[d] < 0 ? perm[d] + x->ndim : perm[d];
        if (a < 0 || a >= x->ndim) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: perm[%d] = %d out of range for %d dims", where, d, perm[d], x->ndim);
        if (seen[a]) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: perm repeats axis %d", where, a);
        seen[a] = 1;
        shape[d] = x->shape[a];
        if (ist) ist[d] = x->strides[a];
    }
    return GK_OK;
}
GKDEF gk_status gk_permute(gk_ctx *ctx, gk_tensor out, gk_tensor x, const int *perm) {
    const char *W = "gk_permute";
    gk__opnds ops;
    int64_t shape[GK_MAX_DIMS], ist[GK_MAX_DIMS];
    gk_status st;
    GK__ENTER(ctx, W);
    st = gk__nn_two(ctx, &ops, out, x, W);
    if (st == GK_OK) st = gk__perm_shape(ctx, ops.s[1], perm, shape, ist, W);
    if (st == GK_OK) st = gk__nn_want_shape(ctx, ops.s[0], ops.s[1]->ndim, shape, W);
    if (st == GK_OK) st = gk__nn_copy_ops(ctx, &ops, ops.s[1]->ndim, shape, ops.s[0]->strides, ist, 0, W);
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_permute_new(gk_ctx *ctx, gk_tensor x, const int *perm, gk_tensor *out) {
    const char *W = "gk_permute_new";
    gk_tensor_info info;
    gk_tensor t;
    int64_t shape[GK_MAX_DIMS];
    int d;
    GK__TRY(gk__nn_info(ctx, x, &info, out, W));
    if (!perm && info.ndim) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: perm is NULL", W);
    for (d = 0; d < info.ndim; d++) {
        int a = perm[d] < 0 ? perm[d] + info.ndim : perm[d];
        if (a < 0 || a >= info.ndim) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: perm[%d] = %d out of range for %d dims", W, d, perm[d], info.ndim);
        shape[d] = info.shape[a];
    }
    GK__TRY(gk__nn_empty(ctx, info.dtype, info.ndim, shape, &t, W));
    return gk__finish_new(ctx, gk_permute(ctx, t, x, perm), t, out);
}

static gk_status gk__concat_shape(gk_ctx *ctx, const gk_tensor *xs, int n, int axis, gk_dtype *dt, int *ndim, int64_t *shape, int *ax,
                                  const char *where) {
    int i, d;
    gk__slot *s0, *s;
    if (!xs || n < 1) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: needs n >= 1 inputs (got %d)", where, n);
    GK__TRY(gk__lookup(ctx, xs[0], &s0, where, "xs[0]"));
    if (s0->ndim == 0) return gk__err(ctx, GK_ERR_SHAPE, "%s: inputs must have at least 1 dim", where);
    GK__TRY(gk__nn_axis(ctx, axis, s0->ndim, ax, where));
    *dt = s0->dtype;
    *ndim = s0->ndim;
    memcpy(shape, s0->shape, sizeof(int64_t) * (size_t)s0->ndim);
    for (i = 1; i < n; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "xs[%d]", i);
        GK__TRY(gk__lookup(ctx, xs[i], &s, where, nm));
        if (s->dtype != *dt) return gk__err(ctx, GK_ERR_DTYPE, "%s: %s is %s but xs[0] is %s", where, nm, gk_dtype_name(s->dtype), gk_dtype_name(*dt));
        if (s->ndim != *ndim) return gk__err(ctx, GK_ERR_SHAPE, "%s: %s has %d dims but xs[0] has %d", where, nm, s->ndim, *ndim);
        for (d = 0; d < *ndim; d++)
            if (d != *ax && s->shape[d] != shape[d])
                return gk__err(ctx, GK_ERR_SHAPE, "%s: %s has size %lld in dim %d, xs[0] %lld", where, nm, (long long)s->shape[d], d, (long long)shape[d]);
        shape[*ax] += s->shape[*ax];
    }
    return GK_OK;
}
GKDEF gk_status gk_concat(gk_ctx *ctx, gk_tensor out, const gk_tensor *xs, int n, int axis) {
    const char *W = "gk_concat";
    int64_t shape[GK_MAX_DIMS], off = 0;
    int ndim = 0, ax = 0, i;
    gk_dtype dt = GK_F32;
    gk_status st;
    GK__ENTER(ctx, W);
    st = gk__concat_shape(ctx, xs, n, axis, &dt, &ndim, shape, &ax, W);
    for (i = 0; st == GK_OK && i < n; i++) {
        gk__opnds ops;
        st = gk__nn_two(ctx, &ops, out, xs[i], W);
        if (st == GK_OK && i == 0) st = gk__nn_want_shape(ctx, ops.s[0], ndim, shape, W);
        if (st == GK_OK) {
            gk__slot *o = ops.s[0], *x = ops.s[1];
            gk_status s2;
            /* out viewed at offset `off` along ax; copy through a temporary slot of out */
            gk__slot save = *o;
            o->offset += off * o->strides[ax];
            s2 = gk__nn_copy_ops(ctx, &ops, ndim, x->shape, o->strides, x->strides, 0, W);
            *o = save;
            off += x->shape[ax];
            st = s2;
        }
        gk__operands_done(ctx, &ops, st);
    }
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_concat_new(gk_ctx *ctx, const gk_tensor *xs, int n, int axis, gk_tensor *out) {
    const char *W = "gk_concat_new";
    int64_t shape[GK_MAX_DIMS];
    int ndim = 0, ax = 0;
    gk_dtype dt = GK_F32;
    gk_status st;
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    GK__ENTER(ctx, W);
    st = gk__concat_shape(ctx, xs, n, axis, &dt, &ndim, shape, &ax, W);
    gk__unlock(&ctx->mu);
    if (st != GK_OK) return st;
    GK__TRY(gk__nn_empty(ctx, dt, ndim, shape, &t, W));
    return gk__finish_new(ctx, gk_concat(ctx, t, xs, n, axis), t, out);
}

GKDEF gk_status gk_split(gk_ctx *ctx, gk_tensor x, int axis, const int64_t *sizes, int n, gk_tensor *outs) {
    const char *W = "gk_split";
    gk_tensor_info info;
    int ax = 0, i;
    int64_t sum = 0, off = 0;
    if (!outs || !sizes || n < 1) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: sizes and outs must be non-NULL and n >= 1", W);
    for (i = 0; i < n; i++) outs[i].id = 0;
    GK__TRY(gk_tensor_info_get(ctx, x, &info));
    if (info.ndim == 0) return gk__err(ctx, GK_ERR_SHAPE, "%s: x must have at least 1 dim", W);
    GK__TRY(gk__nn_axis(ctx, axis, info.ndim, &ax, W));
    for (i = 0; i < n; i++) {
        if (sizes[i] < 0) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: sizes[%d] = %lld < 0", W, i, (long long)sizes[i]);
        sum += sizes[i];
    }
    if (sum != info.shape[ax]) return gk__err(ctx, GK_ERR_SHAPE, "%s: sizes sum to %lld but dim %d has %lld", W, (long long)sum, ax, (long long)info.shape[ax]);
    for (i = 0; i < n; i++) {
        gk_status st = gk_view_slice(ctx, x, ax, off, off + sizes[i], 1, &outs[i]);
        if (st != GK_OK) {
            int k;
            for (k = 0; k < i; k++) { gk_tensor_free(ctx, outs[k]); outs[k].id = 0; }
            return st;
        }
        off += sizes[i];
    }
    return GK_OK;
}

static int64_t gk__nn_slice_len(int64_t n, int64_t *start, int64_t stop, int64_t step) {
    int64_t s = *start, e = stop;
    if (s < 0) s += n;
    if (e < 0) e += n;
    s = s < 0 ? 0 : s > n ? n : s;
    e = e < 0 ? 0 : e > n ? n : e;
    *start = s;
    return e > s ? (e - s + step - 1) / step : 0;
}
GKDEF gk_status gk_slice_copy(gk_ctx *ctx, gk_tensor out, gk_tensor x, int axis, int64_t start, int64_t stop, int64_t step) {
    const char *W = "gk_slice_copy";
    gk__opnds ops;
    int64_t shape[GK_MAX_DIMS], ist[GK_MAX_DIMS], len;
    int ax = 0;
    gk_status st;
    GK__ENTER(ctx, W);
    st = gk__nn_two(ctx, &ops, out, x, W);
    if (st == GK_OK && ops.s[1]->ndim == 0) st = gk__err(ctx, GK_ERR_SHAPE, "%s: x must have at least 1 dim", W);
    if (st == GK_OK) st = gk__nn_axis(ctx, axis, ops.s[1]->ndim, &ax, W);
    if (st == GK_OK && step < 1) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: step %lld must be >= 1", W, (long long)step);
    if (st == GK_OK) {
        gk__slot *xs = ops.s[1];
        memcpy(shape, xs->shape, sizeof shape);
        memcpy(ist, xs->strides, sizeof ist);
        len = gk__nn_slice_len(xs->shape[ax], &start, stop, step);
        shape[ax] = len;
        ist[ax] = xs->strides[ax] * step;
        st = gk__nn_want_shape(ctx, ops.s[0], xs->ndim, shape, W);
        if (st == GK_OK) st = gk__nn_copy_ops(ctx, &ops, xs->ndim, shape, ops.s[0]->strides, ist, len ? start * xs->strides[ax] : 0, W);
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}

/* repeat / repeat_interleave: out [shape] from x through stride-0 dims */
GKDEF gk_status gk_repeat(gk_ctx *ctx, gk_tensor out, gk_tensor x, const int64_t *repeats, int nrep) {
    const char *W = "gk_repeat";
    gk__opnds ops;
    int64_t shape[2 * GK_MAX_DIMS], ost[2 * GK_MAX_DIMS], ist[2 * GK_MAX_DIMS], oshape[GK_MAX_DIMS];
    gk_status st;
    int i, k = 0;
    GK__ENTER(ctx, W);
    st = gk__nn_two(ctx, &ops, out, x, W);
    if (st == GK_OK && (!repeats || nrep < ops.s[1]->ndim || nrep > GK_MAX_DIMS))
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: %d repeats for %d dims (need x's ndim..%d)", W, nrep, ops.s[1]->ndim, GK_MAX_DIMS);
    for (i = 0; st == GK_OK && i < nrep; i++) {
        gk__slot *xs = ops.s[1];
        int xi = i - (nrep - xs->ndim);
        int64_t sz = xi >= 0 ? xs->shape[xi] : 1;
        if (repeats[i] < 0) { st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: repeats[%d] = %lld < 0", W, i, (long long)repeats[i]); break; }
        oshape[i] = repeats[i] * sz;
    }
    if (st == GK_OK) st = gk__nn_want_shape(ctx, ops.s[0], nrep, oshape, W);
    if (st == GK_OK) {
        gk__slot *xs = ops.s[1], *os = ops.s[0];
        for (i = 0; i < nrep; i++) {
            int xi = i - (nrep - xs->ndim);
            int64_t sz = xi >= 0 ? xs->shape[xi] : 1;
            shape[k] = repeats[i]; ost[k] = os->strides[i] * sz; ist[k] = 0; k++;
            shape[k] = sz; ost[k] = os->strides[i]; ist[k] = xi >= 0 ? xs->strides[xi] : 0; k++;
        }
        st = gk__nn_copy_ops(ctx, &ops, k, shape, ost, ist, 0, W);
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_repeat_new(gk_ctx *ctx, gk_tensor x, const int64_t *repeats, int nrep, gk_tensor *out) {
    const char *W = "gk_repeat_new";
    gk_tensor_info info;
    gk_tensor t;
    int64_t shape[GK_MAX_DIMS];
    int i;
    GK__TRY(gk__nn_info(ctx, x, &info, out, W));
    if (!repeats || nrep < info.ndim || nrep > GK_MAX_DIMS)
        return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: %d repeats for %d dims (need x's ndim..%d)", W, nrep, info.ndim, GK_MAX_DIMS);
    for (i = 0; i < nrep; i++) {
        int xi = i - (nrep - info.ndim);
        if (repeats[i] < 0) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: repeats[%d] = %lld < 0", W, i, (long long)repeats[i]);
        shape[i] = repeats[i] * (xi >= 0 ? info.shape[xi] : 1);
    }
    GK__TRY(gk__nn_empty(ctx, info.dtype, nrep, shape, &t, W));
    return gk__finish_new(ctx, gk_repeat(ctx, t, x, repeats, nrep), t, out);
}
GKDEF gk_status gk_repeat_interleave(gk_ctx *ctx, gk_tensor out, gk_tensor x, int64_t repeats, int axis) {
    const char *W = "gk_repeat_interleave";
    gk__opnds ops;
    int64_t shape[GK_MAX_DIMS + 1], ost[GK_MAX_DIMS + 1], ist[GK_MAX_DIMS + 1], oshape[GK_MAX_DIMS];
    gk_status st;
    int ax = 0, d, k = 0;
    GK__ENTER(ctx, W);
    st = gk__nn_two(ctx, &ops, out, x, W);
    if (st == GK_OK && ops.s[1]->ndim == 0) st = gk__err(ctx, GK_ERR_SHAPE, "%s: x must have at least 1 dim", W);
    if (st == GK_OK) st = gk__nn_axis(ctx, axis, ops.s[1]->ndim, &ax, W);
    if (st == GK_OK && repeats < 0) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: repeats %lld < 0", W, (long long)repeats);
    if (st == GK_OK) {
        gk__slot *xs = ops.s[1], *os = ops.s[0];
        memcpy(oshape, xs->shape, sizeof oshape);
        oshape[ax] *= repeats;
        st = gk__nn_want_shape(ctx, os, xs->ndim, oshape, W);
        if (st == GK_OK) {
            for (d = 0; d < xs->ndim; d++) {
                if (d == ax) {
                    shape[k] = xs->shape[d]; ost[k] = os->strides[d] * repeats; ist[k] = xs->strides[d]; k++;
                    shape[k] = repeats; ost[k] = os->strides[d]; ist[k] = 0; k++;
                } else { shape[k] = xs->shape[d]; ost[k] = os->strides[d]; ist[k] = xs->strides[d]; k++; }
            }
            st = gk__nn_copy_ops(ctx, &ops, k, shape, ost, ist, 0, W);
        }
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_repeat_interleave_new(gk_ctx *ctx, gk_tensor x, int64_t repeats, int axis, gk_tensor *out) {
    const char *W = "gk_repeat_interleave_new";
    gk_tensor_info info;
    gk_tensor t;
    int ax = 0;
    GK__TRY(gk__nn_info(ctx, x, &info, out, W));
    if (info.ndim == 0) return gk__err(ctx, GK_ERR_SHAPE, "%s: x must have at least 1 dim", W);
    GK__TRY(gk__nn_axis(ctx, axis, info.ndim, &ax, W));
    if (repeats < 0) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: repeats %lld < 0", W, (long long)repeats);
    info.shape[ax] *= repeats;
    GK__TRY(gk__nn_empty(ctx, info.dtype, info.ndim, info.shape, &t, W));
    return gk__finish_new(ctx, gk_repeat_interleave(ctx, t, x, repeats, axis), t, out);
}

/* gather: out [outer, n, inner] = x [outer, V, inner] rows at idx[n] */
typedef struct gk__gatherp {
    int64_t outer, n, nv, rowb;
    int idx64;
    const char *x, *idx;
    char *out;
} gk__gatherp;
static int gk__gather_cpu(const void *vp) {
    const gk__gatherp *p = (const gk__gatherp *)vp;
    int64_t o, j;
    for (o = 0; o < p->outer; o++)
        for (j = 0; j < p->n; j++) {
            int64_t id;
            char *dst = p->out + (o * p->n + j) * p->rowb;
            if (p->idx64) memcpy(&id, p->idx + j * 8, 8);
            else { int32_t v; memcpy(&v, p->idx + j * 4, 4); id = v; }
            if (id >= 0 && id < p->nv) memcpy(dst, p->x + (o * p->nv + id) * p->rowb, (size_t)p->rowb);
            else memset(dst, 0, (size_t)p->rowb);
        }
    return 0;
}
/* embedding = 1: out [idx.shape..., D] from x [V, D]; else index_select along axis with a 1-D index */
static gk_status gk__gather(gk_ctx *ctx, gk_tensor out, gk_tensor x, int axis, gk_tensor index, int embedding, const char *W) {
    static const char *const names_e[3] = { "out", "table", "ids" };
    static const char *const names_i[3] = { "out", "x", "index" };
    const char *const *names = embedding ? names_e : names_i;
    gk_tensor ts[3];
    gk__opnds ops;
    gk__gatherp p;
    gk_status st;
    int64_t shape[GK_MAX_DIMS];
    int ax = 0, d, ndim = 0;
    gk__slot *os, *xs, *is;
    ops.used = 0;
    memset(&p, 0, sizeof p);
    ts[0] = out; ts[1] = x; ts[2] = index;
    GK__ENTER(ctx, W);
    st = gk__operands(ctx, &ops, ts, names, 3, W);
    if (st != GK_OK) goto done;
    os = ops.s[0]; xs = ops.s[1]; is = ops.s[2];
    if (os->dtype != xs->dtype) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: out is %s but %s is %s", W, gk_dtype_name(os->dtype), names[1], gk_dtype_name(xs->dtype)); goto done; }
    if (is->dtype != GK_I32 && is->dtype != GK_I64) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: %s are %s (i32 or i64)", W, names[2], gk_dtype_name(is->dtype)); goto done; }
    if (embedding) {
        if (xs->ndim != 2) { st = gk__nn_shape_err(ctx, W, "table", xs, "[vocab, dim]"); goto done; }
        if (is->ndim + 1 > GK_MAX_DIMS) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: ids have %d dims (at most %d)", W, is->ndim, GK_MAX_DIMS - 1); goto done; }
        ndim = is->ndim + 1;
        if (is->ndim) memcpy(shape, is->shape, sizeof(int64_t) * (size_t)is->ndim);
        shape[is->ndim] = xs->shape[1];
        p.outer = 1; p.n = gk__numel(is); p.nv = xs->shape[0]; p.rowb = xs->shape[1] * (int64_t)gk__dtype_sizes[xs->dtype];
    } else {
        if (xs->ndim == 0) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: x must have at least 1 dim", W); goto done; }
        if ((st = gk__nn_axis(ctx, axis, xs->ndim, &ax, W)) != GK_OK) goto done;
        if (is->ndim > 1) { st = gk__nn_shape_err(ctx, W, "index", is, "[n]"); goto done; }
        ndim = xs->ndim;
        memcpy(shape, xs->shape, sizeof shape);
        shape[ax] = gk__numel(is);
        p.outer = 1; p.rowb = (int64_t)gk__dtype_sizes[xs->dtype];
        for (d = 0; d < ax; d++) p.outer *= xs->shape[d];
        for (d = ax + 1; d < xs->ndim; d++) p.rowb *= xs->shape[d];
        p.n = shape[ax]; p.nv = xs->shape[ax];
    }
    if ((st = gk__nn_want_shape(ctx, os, ndim, shape, W)) != GK_OK) goto done;
    for (d = 0; d < 3; d++)
        if (!gk__is_contig(ops.s[d])) { st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: %s is not contiguous (use gk_contiguous)", W, names[d]); goto done; }
    if (p.outer * p.n == 0 || p.rowb == 0) goto done;
    p.idx64 = is->dtype == GK_I64;
    if ((st = gk__operands_use(ctx, &ops, W)) != GK_OK) goto done;
    p.out = (char *)(uintptr_t)gk__slot_addr(os);
    p.x = (const char *)(uintptr_t)gk__slot_addr(xs);
    p.idx = (const char *)(uintptr_t)gk__slot_addr(is);
    if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__gather_cpu, &p, sizeof p, W);
    else {
        gk__cu_ptr po = gk__slot_addr(os), px = gk__slot_addr(xs), pi = gk__slot_addr(is);
        uint64_t al = (uint64_t)p.rowb | po | px;
        int64_t w, cpr;
        void *args[8];
        for (w = 16; w > 1 && (al & (uint64_t)(w - 1)); w >>= 1) {}
        cpr = p.rowb / w;
        args[0] = &p.outer; args[1] = &p.n; args[2] = &p.nv; args[3] = &cpr; args[4] = &pi; args[5] = &p.idx64; args[6] = &po; args[7] = &px;
        st = gk__launch(ctx, GK__MOD_LAYOUT, gk__k_gather[w], p.outer * p.n * cpr, args, W);
    }
done:
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_index_select(gk_ctx *ctx, gk_tensor out, gk_tensor x, int axis, gk_tensor index) {
    return gk__gather(ctx, out, x, axis, index, 0, "gk_index_select");
}
GKDEF gk_status gk_embedding(gk_ctx *ctx, gk_tensor out, gk_tensor table, gk_tensor ids) {
    return gk__gather(ctx, out, table, 0, ids, 1, "gk_embedding");
}
GKDEF gk_status gk_index_select_new(gk_ctx *ctx, gk_tensor x, int axis, gk_tensor index, gk_tensor *out) {
    const char *W = "gk_index_select_new";
    gk_tensor_info info, ii;
    gk_tensor t;
    int ax = 0;
    GK__TRY(gk__nn_info(ctx, x, &info, out, W));
    GK__TRY(gk_tensor_info_get(ctx, index, &ii));
    if (info.ndim == 0) return gk__err(ctx, GK_ERR_SHAPE, "%s: x must have at least 1 dim", W);
    GK__TRY(gk__nn_axis(ctx, axis, info.ndim, &ax, W));
    info.shape[ax] = ii.numel;
    GK__TRY(gk__nn_empty(ctx, info.dtype, info.ndim, info.shape, &t, W));
    return gk__finish_new(ctx, gk_index_select(ctx, t, x, axis, index), t, out);
}
GKDEF gk_status gk_embedding_new(gk_ctx *ctx, gk_tensor table, gk_tensor ids, gk_tensor *out) {
    const char *W = "gk_embedding_new";
    gk_tensor_info info, ii;
    gk_tensor t;
    GK__TRY(gk__nn_info(ctx, table, &info, out, W));
    GK__TRY(gk_tensor_info_get(ctx, ids, &ii));
    if (info.ndim != 2) return gk__err(ctx, GK_ERR_SHAPE, "%s: table has %d dims, expected [vocab, dim]", W, info.ndim);
    if (ii.ndim + 1 > GK_MAX_DIMS) return gk__err(ctx, GK_ERR_SHAPE, "%s: ids have %d dims (at most %d)", W, ii.ndim, GK_MAX_DIMS - 1);
    ii.shape[ii.ndim] = info.shape[1];
    GK__TRY(gk__nn_empty(ctx, info.dtype, ii.ndim + 1, ii.shape, &t, W));
    return gk__finish_new(ctx, gk_embedding(ctx, t, table, ids), t, out);
}

/* pad: x [rows, H, W] -> out [rows, OH, OW] */
typedef struct gk__padp {
    int64_t rows, H, W, pt, pl, OH, OW;
    int mode;
    int64_t es;
    uint64_t val;
    const char *x;
    char *out;
} gk__padp;
static int64_t gk__pad_src(int64_t o, int64_t n, int mode) {
    if (mode == GK_PAD_REFLECT) {
        if (o < 0) o = -o;
        if (o >= n) o = 2 * (n - 1) - o;
        return o;
    }
    return o < 0 ? 0 : o >= n ? n - 1 : o;
}
static int gk__pad_cpu(const void *vp) {
    const gk__padp *p = (const gk__padp *)vp;
    int64_t r, oh, ow;
    for (r = 0; r < p->rows; r++)
        for (oh = 0; oh < p->OH; oh++)
            for (ow = 0; ow < p->OW; ow++) {
                int64_t ih = oh - p->pt, iw = ow - p->pl;
                char *dst = p->out + ((r * p->OH + oh) * p->OW + ow) * p->es;
                if (p->mode == GK_PAD_CONSTANT) {
                    if (ih >= 0 && ih < p->H && iw >= 0 && iw < p->W) memcpy(dst, p->x + ((r * p->H + ih) * p->W + iw) * p->es, (size_t)p->es);
                    else memcpy(dst, &p->val, (size_t)p->es);
                } else
                    memcpy(dst, p->x + ((r * p->H + gk__pad_src(ih, p->H, p->mode)) * p->W + gk__pad_src(iw, p->W, p->mode)) * p->es, (size_t)p->es);
            }
    return 0;
}
static gk_status gk__pad_shape(gk_ctx *ctx, int ndim, const int64_t *xshape, const int64_t *pads, int npads, gk_pad_mode mode,
                               int64_t *oshape, const char *W) {
    int i, k = npads / 2;
    if (!pads || (npads != 2 && npads != 4)) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: npads %d (2: last dim, 4: last two dims)", W, npads);
    if ((int)mode < 0 || mode > GK_PAD_REPLICATE) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: unknown pad mode %d", W, (int)mode);
    if (ndim < k) return gk__err(ctx, GK_ERR_SHAPE, "%s: x has %d dims, %d padded", W, ndim, k);
    memcpy(oshape, xshape, sizeof(int64_t) * (size_t)ndim);
    for (i = 0; i < k; i++) {
        int d = ndim - 1 - i;
        int64_t a = pads[2 * i], b = pads[2 * i + 1], n = xshape[d];
        if (a < 0 || b < 0) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: negative padding (%lld, %lld) is not supported", W, (long long)a, (long long)b);
        if (mode == GK_PAD_REFLECT && (a >= n || b >= n) && (a || b))
            return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: reflect padding (%lld, %lld) must be < the dim size %lld", W, (long long)a, (long long)b, (long long)n);
        if (mode == GK_PAD_REPLICATE && n == 0 && (a || b))
            return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: replicate padding of an empty dim %d", W, d);
        oshape[d] = n + a + b;
    }
    return GK_OK;
}
GKDEF gk_status gk_pad(gk_ctx *ctx, gk_tensor out, gk_tensor x, const int64_t *pads, int npads, gk_pad_mode mode, double value) {
    const char *W = "gk_pad";
    gk__opnds ops;
    gk__padp p;
    int64_t oshape[GK_MAX_DIMS];
    gk_status st;
    memset(&p, 0, sizeof p);
    GK__ENTER(ctx, W);
    st = gk__nn_two(ctx, &ops, out, x, W);
    if (st == GK_OK) st = gk__pad_shape(ctx, ops.s[1]->ndim, ops.s[1]->shape, pads, npads, mode, oshape, W);
    if (st == GK_OK) st = gk__nn_want_shape(ctx, ops.s[0], ops.s[1]->ndim, oshape, W);
    if (st == GK_OK && (!gk__is_contig(ops.s[0]) || !gk__is_contig(ops.s[1])))
        st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: x and out must be contiguous (use gk_contiguous)", W);
    if (st == GK_OK) {
        gk__slot *xs = ops.s[1];
        gk__scalar sc;
        int nd = xs->ndim;
        p.W = xs->shape[nd - 1];
        p.H = npads == 4 ? xs->shape[nd - 2] : 1;
        p.pl = pads[0];
        p.pt = npads == 4 ? pads[2] : 0;
        p.OW = oshape[nd - 1];
        p.OH = npads == 4 ? oshape[nd - 2] : 1;
        p.rows = gk__numel(ops.s[0]) / (p.OH * p.OW > 0 ? p.OH * p.OW : 1);
        p.mode = (int)mode;
        p.es = (int64_t)gk__dtype_sizes[xs->dtype];
        sc.is_int = 0; sc.i = 0; sc.f = value;
        if (!gk_dtype_is_float(xs->dtype) && value == floor(value) && fabs(value) < 9.2e18) { sc.is_int = 1; sc.i = (int64_t)value; }
        gk__store(xs->dtype, &p.val, sc);
        if (gk__numel(ops.s[0]) > 0) {
            st = gk__operands_use(ctx, &ops, W);
            if (st == GK_OK) {
                p.out = (char *)(uintptr_t)gk__slot_addr(ops.s[0]);
                p.x = (const char *)(uintptr_t)gk__slot_addr(xs);
                if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__pad_cpu, &p, sizeof p, W);
                else {
                    static const char *const kn[9] = { NULL, "gk_pad_b1", "gk_pad_b2", NULL, "gk_pad_b4", NULL, NULL, NULL, "gk_pad_b8" };
                    gk__cu_ptr po = gk__slot_addr(ops.s[0]), px = gk__slot_addr(xs);
                    uint64_t val = p.val;
                    void *args[11];
                    args[0] = &p.rows; args[1] = &p.H; args[2] = &p.W; args[3] = &p.pt; args[4] = &p.pl; args[5] = &p.OH; args[6] = &p.OW;
                    args[7] = &p.mode; args[8] = &val; args[9] = &po; args[10] = &px;
                    st = gk__launch(ctx, GK__MOD_LAYOUT, kn[p.es], p.rows * p.OH * p.OW, args, W);
                }
            }
        }
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_pad_new(gk_ctx *ctx, gk_tensor x, const int64_t *pads, int npads, gk_pad_mode mode, double value, gk_tensor *out) {
    const char *W = "gk_pad_new";
    gk_tensor_info info;
    gk_tensor t;
    int64_t oshape[GK_MAX_DIMS];
    GK__TRY(gk__nn_info(ctx, x, &info, out, W));
    GK__TRY(gk__pad_shape(ctx, info.ndim, info.shape, pads, npads, mode, oshape, W));
    GK__TRY(gk__nn_empty(ctx, info.dtype, info.ndim, oshape, &t, W));
    return gk__finish_new(ctx, gk_pad(ctx, t, x, pads, npads, mode, value), t, out);
}

/* interpolate: x [rows, H, W] -> out [rows, OH, OW] */
typedef struct gk__interpp {
    int64_t rows, H, W, OH, OW;
    float sh, sw;
    int mode;
    gk_dtype dt;
    const char *x;
    char *out;
} gk__interpp;
static void gk__lin_idx(int64_t o, float s, int64_t n, int64_t *i0, int64_t *i1, float *l1) {
    float src = s * ((float)o + 0.5f) - 0.5f;
    if (src < 0.0f) src = 0.0f;
    *i0 = (int64_t)src;
    if (*i0 > n - 1) *i0 = n - 1;
    *i1 = *i0 + (*i0 < n - 1 ? 1 : 0);
    *l1 = src - (float)*i0;
    *l1 = *l1 < 0.0f ? 0.0f : *l1 > 1.0f ? 1.0f : *l1;
}
static int64_t gk__near_idx(int64_t o, float s, int64_t n) {
    int64_t i = (int64_t)floorf((float)o * s);
    return i < n - 1 ? i : n - 1;
}
static int gk__interp_cpu(const void *vp) {
    const gk__interpp *p = (const gk__interpp *)vp;
    int64_t r, oh, ow, es = (int64_t)gk__dtype_sizes[p->dt];
    for (r = 0; r < p->rows; r++) {
        const char *xr = p->x + r * p->H * p->W * es;
        for (oh = 0; oh < p->OH; oh++)
            for (ow = 0; ow < p->OW; ow++) {
                float y;
                if (p->mode == GK_INTERP_NEAREST) y = gk__ldf(p->dt, xr + (gk__near_idx(oh, p->sh, p->H) * p->W + gk__near_idx(ow, p->sw, p->W)) * es);
                else {
                    int64_t h0, h1, w0, w1;
                    float lh, lw, a, b;
                    gk__lin_idx(oh, p->sh, p->H, &h0, &h1, &lh);
                    gk__lin_idx(ow, p->sw, p->W, &w0, &w1, &lw);
                    a = (1.0f - lw) * gk__ldf(p->dt, xr + (h0 * p->W + w0) * es) + lw * gk__ldf(p->dt, xr + (h0 * p->W + w1) * es);
                    b = (1.0f - lw) * gk__ldf(p->dt, xr + (h1 * p->W + w0) * es) + lw * gk__ldf(p->dt, xr + (h1 * p->W + w1) * es);
                    y = (1.0f - lh) * a + lh * b;
                }
                gk__stf(p->dt, p->out + ((r * p->OH + oh) * p->OW + ow) * es, y);
            }
    }
    return 0;
}
GKDEF gk_status gk_interpolate(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_interp_mode mode, const double *scales) {
    const char *W = "gk_interpolate";
    gk__opnds ops;
    gk__interpp p;
    gk_status st;
    memset(&p, 0, sizeof p);
    GK__ENTER(ctx, W);
    st = gk__nn_two(ctx, &ops, out, x, W);
    if (st == GK_OK) {
        gk__slot *xs = ops.s[1], *os = ops.s[0];
        int nd = xs->ndim, k;
        if (!gk__nn_isfloat3(xs->dtype)) st = gk__err(ctx, GK_ERR_DTYPE, "%s: x is %s (f32, f16 or bf16 only)", W, gk_dtype_name(xs->dtype));
        else if ((int)mode < 0 || mode > GK_INTERP_LINEAR) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: unknown mode %d", W, (int)mode);
        else if (nd != 3 && nd != 4) st = gk__nn_shape_err(ctx, W, "x", xs, "[N, C, W] or [N, C, H, W]");
        else if (os->ndim != nd || os->shape[0] != xs->shape[0] || os->shape[1] != xs->shape[1]) st = gk__nn_shape_err(ctx, W, "out", os, "x's N, C and new spatial sizes");
        else if (!gk__is_contig(os) || !gk__is_contig(xs)) st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: x and out must be contiguous (use gk_contiguous)", W);
        for (k = 2; st == GK_OK && k < nd; k++)
            if (xs->shape[k] == 0 && os->shape[k] > 0) st = gk__err(ctx, GK_ERR_SHAPE, "%s: empty input dim %d but output size %lld", W, k, (long long)os->shape[k]);
            else if (scales && scales[k - 2] < 0) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: scale %g < 0", W, scales[k - 2]);
        if (st == GK_OK) {
            p.W = xs->shape[nd - 1]; p.OW = os->shape[nd - 1];
            p.H = nd == 4 ? xs->shape[2] : 1; p.OH = nd == 4 ? os->shape[2] : 1;
            p.rows = xs->shape[0] * xs->shape[1];
            p.mode = (int)mode;
            p.dt = xs->dtype;
            p.sw = scales && scales[nd - 3] > 0 ? (float)(1.0 / scales[nd - 3]) : p.OW > 0 ? (float)p.W / (float)p.OW : 0.0f;
            p.sh = nd == 4 ? (scales && scales[0] > 0 ? (float)(1.0 / scales[0]) : p.OH > 0 ? (float)p.H / (float)p.OH : 0.0f) : 1.0f;
            if (p.rows * p.OH * p.OW > 0) {
                st = gk__operands_use(ctx, &ops, W);
                if (st == GK_OK) {
                    p.out = (char *)(uintptr_t)gk__slot_addr(os);
                    p.x = (const char *)(uintptr_t)gk__slot_addr(xs);
                    if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__interp_cpu, &p, sizeof p, W);
                    else {
                        static const char *const kn[4] = { "gk_interp_f32", NULL, "gk_interp_f16", "gk_interp_bf16" };
                        gk__cu_ptr po = gk__slot_addr(os), px = gk__slot_addr(xs);
                        void *args[10];
                        args[0] = &p.rows; args[1] = &p.H; args[2] = &p.W; args[3] = &p.OH; args[4] = &p.OW; args[5] = &p.sh; args[6] = &p.sw;
                        args[7] = &p.mode; args[8] = &po; args[9] = &px;
                        st = gk__launch(ctx, GK__MOD_LAYOUT, kn[p.dt], p.rows * p.OH * p.OW, args, W);
                    }
                }
            }
        }
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_interpolate_new(gk_ctx *ctx, gk_tensor x, gk_interp_mode mode, const int64_t *size, const double *scales, gk_tensor *out) {
    const char *W = "gk_interpolate_new";
    gk_tensor_info info;
    gk_tensor t;
    int k;
    GK__TRY(gk__nn_info(ctx, x, &info, out, W));
    if (info.ndim != 3 && info.ndim != 4) return gk__err(ctx, GK_ERR_SHAPE, "%s: x has %d dims, expected [N, C, W] or [N, C, H, W]", W, info.ndim);
    if (!size && !scales) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: give size or scales", W);
    for (k = 2; k < info.ndim; k++) {
        if (size) {
            if (size[k - 2] < 0) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: size %lld < 0", W, (long long)size[k - 2]);
            info.shape[k] = size[k - 2];
        } else {
            if (!(scales[k - 2] > 0)) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: scale %g must be > 0", W, scales[k - 2]);
            info.shape[k] = (int64_t)floor((double)info.shape[k] * scales[k - 2]);
        }
    }
    GK__TRY(gk__nn_empty(ctx, info.dtype, info.ndim, info.shape, &t, W));
    return gk__finish_new(ctx, gk_interpolate(ctx, t, x, mode, scales), t, out);
}

/* end of >>ops_nn */

/* ------------------------------------------------------------------------ */
/* >>ops_signal: implementation of the >>api_ops_signal group (below this line) */
/* Shared by the signal ops: operands where a zero handle means "none",
   contiguity and dtype checks, the _new helper. */
static const gk_tensor gk__sg_none = { 0, 0 };
static gk_status gk__sg_operands(gk_ctx *ctx, gk__opnds *ops, const gk_tensor *ts, const char *const *names, int n, unsigned optional,
                                 const char *where) {
    int i;
    ops->n = n;
    ops->used = 0;
    for (i = 0; i < n; i++) {
        ops->s[i] = NULL;
        if (ts[i].id == 0 && (optional >> i & 1u)) continue;
        GK__TRY(gk__lookup(ctx, ts[i], &ops->s[i], where, names[i]));
    }
    return GK_OK;
}
static gk_status gk__sg_use(gk_ctx *ctx, gk__opnds *ops, const char *where) {
    int i;
    GK__TRY(gk__bind(ctx));
    for (i = 0; i < ops->n; i++) {
        if (ops->s[i]) GK__TRY(gk__use(ctx, ops->s[i]->blk, ctx->cur_stream, where));
        ops->used = i + 1;
    }
    return GK_OK;
}
static void gk__sg_done(gk_ctx *ctx, gk__opnds *ops, gk_status st) {
    int i;
    for (i = 0; i < ops->used; i++)
        if (ops->s[i]) gk__unuse(ctx, ops->s[i]->blk);
    if (st != GK_OK && ctx->cur_stream->capture && ctx->cur_stream->capture->failed == GK_OK) ctx->cur_stream->capture->failed = st;
}
/* every present operand contiguous and of operand 0's dtype: f32, or also f16 / bf16 when `halves` */
static gk_status gk__sg_check(gk_ctx *ctx, gk__opnds *ops, const char *const *names, int halves, const char *where) {
    int i;
    gk_dtype dt = ops->s[0]->dtype;
    if (!(dt == GK_F32 || (halves && (dt == GK_F16 || dt == GK_BF16))))
        return gk__err(ctx, GK_ERR_DTYPE, "%s: %s is %s (supported: %s)", where, names[0], gk_dtype_name(dt), halves ? "f32, f16, bf16" : "f32");
    for (i = 0; i < ops->n; i++) {
        if (!ops->s[i]) continue;
        if (ops->s[i]->dtype != dt)
            return gk__err(ctx, GK_ERR_DTYPE, "%s: %s is %s but %s is %s", where, names[i], gk_dtype_name(ops->s[i]->dtype), names[0],
                           gk_dtype_name(dt));
        if (!gk__is_contig(ops->s[i])) return gk__err(ctx, GK_ERR_SHAPE, "%s: %s is not contiguous (use gk_contiguous)", where, names[i]);
    }
    return GK_OK;
}
static gk_status gk__sg_shape_err(gk_ctx *ctx, const gk__slot *s, const char *name, const char *want, const char *where) {
    char a[160];
    gk__shape_str(s, a, sizeof a);
    return gk__err(ctx, GK_ERR_SHAPE, "%s: %s has shape %s, expected %s", where, name, a, want);
}
/* a new tensor for a _new variant */
static gk_status gk__sg_alloc(gk_ctx *ctx, gk_tensor like, int dt_or_neg, int nd, const int64_t *shape, gk_tensor *out, const char *where) {
    gk__slot *s = NULL;
    uint32_t idx;
    gk_status st = GK_OK;
    gk_dtype dt = GK_F32;
    GK__ENTER(ctx, where);
    if (dt_or_neg < 0) st = gk__lookup(ctx, like, &s, where, "the input");
    else dt = (gk_dtype)dt_or_neg;
    if (st == GK_OK && s) dt = s->dtype;
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK) st = gk__tensor_new(ctx, dt, nd, shape, &idx, where);
    if (st == GK_OK) *out = gk__handle(ctx, idx);
    gk__unlock(&ctx->mu);
    return st;
}
/* shape of a tensor (for the _new variants, before the op validates it) */
static gk_status gk__sg_shape(gk_ctx *ctx, gk_tensor t, int *nd, int64_t *shape, gk_dtype *dt, const char *name, const char *where) {
    gk__slot *s;
    gk_status st;
    GK__ENTER(ctx, where);
    st = gk__lookup(ctx, t, &s, where, name);
    if (st == GK_OK) {
        *nd = s->ndim;
        memcpy(shape, s->shape, sizeof(int64_t) * GK_MAX_DIMS);
        if (dt) *dt = s->dtype;
    }
    gk__unlock(&ctx->mu);
    return st;
}
static gk_status gk__sg_launch_err(gk_ctx *ctx, gk__cu_result r, const char *where, const char *what) {
    return r == 0 ? GK_OK : gk__cu_fail(ctx, r, where, what);
}

/* >>signal_conv_cpu: the CPU convolution (conv1d, transposed conv1d, conv2d) */
/* ======================= convolution: the CPU backend ======================= */
typedef struct gk__convp { /* the layout of gk_convp in src/ops/signal/conv.cu */
    int64_t B, Cin, H, W, Cout, KH, KW, Ho, Wo, sh, sw, ph, pw, dh, dw, groups;
    int transposed, has_bias;
    int ksplit, pad_; /* gk_convt1 f32: reduction split over ksplit blocks (atomics into a zeroed out) */
} gk__convp;
typedef struct gk__conv_cpu_p {
    gk__convp p;
    gk_dtype dt;
    char *out;
    const char *x, *w, *bias;
} gk__conv_cpu_p;

/* What it computes. Every output element is
       out = acc + bias            (one f32 add, then one rounding to the dtype)
   where acc starts at 0 and adds, in f32, the product w * x of each of the
   output's taps in this order: kh ascending, kw ascending, and within a tap
   the group's input channels ci ascending. An input outside x counts as 0
   (its term w * 0 is added, or the tap is left out: the same for finite
   weights). f16 / bf16 operands are converted to f32 once, on the way in.
   A transposed convolution takes, for each output position, only the taps
   that reach it: (ow + padding - kw * dilation) a multiple of the stride.

   How. Output positions are split by phase: a plain convolution has one
   (position j is ow = j, input iw = j * stride + kw * dilation - padding), a
   transposed one has `stride` of them (phase r: ow = j * stride + r and, for
   its taps, iw = j + c with c = (r + padding - kw * dilation) / stride).
   For each (batch, group, output row, phase) a chunk of positions gets its
   input rows copied to f32 (zero outside x) and split into the `stride`
   residues of iw (1 for a transposed convolution), so that every tap reads
   consecutive floats for consecutive positions. The weights are repacked
   once per call to [group][block of 4 output channels][kh][kw][ci][4]. The
   inner kernel (gk__conv_mk) keeps a block of 4 output channels x 8 positions
   in registers over one tap's input channels; the chunk (about 256 KB of
   input) stays in cache while every block of output channels passes over it.
   Blocks past the last output channel or position are computed from zero
   weights or padding and not stored. The scratch (repacked weights, one
   chunk, the tap tables) is allocated per call; running out returns 1. */
#define GK__CONV_CHUNK_FLOATS 65536

#if defined(__GNUC__) || defined(__clang__)
/* GCC / clang vector extensions: 4 floats, SSE / NEON registers, at any -O level */
typedef float gk__cv4 __attribute__((vector_size(16)));
/* acc[r * 8 + i] += w[ci * 4 + r] * x[ci * xcs + i] for r < 4, i < 8, ci = 0 .. n-1 in order */
static void gk__conv_mk(float *acc, const float *x, int64_t xcs, const float *w, int64_t n) {
    gk__cv4 a0, a1, a2, a3, a4, a5, a6, a7;
    int64_t ci;
    memcpy(&a0, acc, 16); memcpy(&a1, acc + 4, 16); memcpy(&a2, acc + 8, 16); memcpy(&a3, acc + 12, 16);
    memcpy(&a4, acc + 16, 16); memcpy(&a5, acc + 20, 16); memcpy(&a6, acc + 24, 16); memcpy(&a7, acc + 28, 16);
    for (ci = 0; ci < n; ci++, x += xcs, w += 4) {
        gk__cv4 x0, x1;
        gk__cv4 w0 = { w[0], w[0], w[0], w[0] }, w1 = { w[1], w[1], w[1], w[1] };
        gk__cv4 w2 = { w[2], w[2], w[2], w[2] }, w3 = { w[3], w[3], w[3], w[3] };
        memcpy(&x0, x, 16);
        memcpy(&x1, x + 4, 16);
        a0 += w0 * x0; a1 += w0 * x1;
        a2 += w1 * x0; a3 += w1 * x1;
        a4 += w2 * x0; a5 += w2 * x1;
        a6 += w3 * x0; a7 += w3 * x1;
    }
    memcpy(acc, &a0, 16); memcpy(acc + 4, &a1, 16); memcpy(acc + 8, &a2, 16); memcpy(acc + 12, &a3, 16);
    memcpy(acc + 16, &a4, 16); memcpy(acc + 20, &a5, 16); memcpy(acc + 24, &a6, 16); memcpy(acc + 28, &a7, 16);
}
#else
static void gk__conv_mk(float *acc, const float *x, int64_t xcs, const float *w, int64_t n) {
    int64_t ci;
    int r, i;
    for (ci = 0; ci < n; ci++, x += xcs, w += 4)
        for (r = 0; r < 4; r++)
            for (i = 0; i < 8; i++) acc[r * 8 + i] += w[r] * x[i];
}
#endif

/* element i of a dtype-dt array as f32 */
static float gk__conv_ld(gk_dtype dt, const char *base, int64_t i) {
    float v;
    if (dt != GK_F32) return gk__ldf(dt, base + i * (int64_t)gk__dtype_sizes[dt]);
    memcpy(&v, base + i * 4, 4);
    return v;
}

static int gk__conv_cpu(const void *vp) {
    const gk__conv_cpu_p *q = (const gk__conv_cpu_p *)vp;
    const gk__convp *p = &q->p;
    const gk_dtype dt = q->dt;
    const int64_t es = (int64_t)gk__dtype_sizes[dt], G = p->groups, Cig = p->Cin / G, Cog = p->Cout / G, ncb = (Cog + 3) / 4;
    const int64_t KK = p->KH * p->KW, tr = p->transposed;
    const int64_t a = tr ? 1 : p->sw;    /* input step from one position of a phase to the next */
    const int64_t nph = tr ? p->sw : 1;  /* phases */
    const int64_t span = (p->KW - 1) * p->dw / p->sw + 1; /* >= the spread of a phase's taps in its residue rows */
    int64_t TW, Lmax, nwp, nxb, b, g, oh, r, i, k, m, j, j0, cb;
    int64_t *rkh, *rih, *tkw, *tc, *txo, *two;
    float *wp, *xb, acc[32];
    void *mem;
    /* chunk: about GK__CONV_CHUNK_FLOATS input floats, 8 .. 1024 positions (a multiple of 8) */
    TW = GK__CONV_CHUNK_FLOATS / ((Cig > 0 ? Cig : 1) * p->KH * a);
    TW = TW < 8 ? 8 : TW > 1024 ? 1024 : TW / 8 * 8;
    m = ((p->Wo + nph - 1) / nph + 7) / 8 * 8; /* the most positions of a phase, rounded up to 8 */
    if (TW > m) TW = m;
    Lmax = TW + span;
    nwp = G * ncb * KK * Cig * 4;
    nxb = p->KH * a * Cig * Lmax;
    mem = GPUKIT_MALLOC(sizeof(int64_t) * (size_t)(2 * p->KH + 2 * p->KW + 2 * KK) + sizeof(float) * (size_t)(nwp + nxb) + 16);
    if (!mem) return 1;
    rkh = (int64_t *)mem;  /* per input row of an output row: its kh, its ih */
    rih = rkh + p->KH;
    tkw = rih + p->KH;     /* per tap along W of a phase: its kw, its input offset c */
    tc = tkw + p->KW;
    txo = tc + p->KW;      /* per tap (kh, kw): its offset in the chunk and in a weight block */
    two = txo + KK;
    wp = (float *)(two + KK);
    xb = wp + nwp;

    /* weights -> wp[g][cb][kh][kw][ci][4], zero past the group's last output channel */
    memset(wp, 0, sizeof(float) * (size_t)nwp);
    for (g = 0; g < G; g++)
        for (m = 0; m < Cog; m++)
            for (i = 0; i < Cig; i++)
                for (k = 0; k < KK; k++) {
                    int64_t src = tr ? ((g * Cig + i) * Cog + m) * KK + k : ((g * Cog + m) * Cig + i) * KK + k;
                    wp[(((g * ncb + m / 4) * KK + k) * Cig + i) * 4 + m % 4] = gk__conv_ld(dt, q->w, src);
                }

    for (b = 0; b < p->B; b++)
        for (g = 0; g < G; g++)
            for (oh = 0; oh < p->Ho; oh++) {
                int64_t nr = 0, kh;
                for (kh = 0; kh < p->KH; kh++) { /* the input rows of output row oh */
                    int64_t ih;
                    if (!tr) ih = oh * p->sh - p->ph + kh * p->dh;
                    else {
                        int64_t t = oh + p->ph - kh * p->dh;
                        if (t < 0 || t % p->sh) continue;
                        ih = t / p->sh;
                    }
                    if (ih < 0 || ih >= p->H) continue;
                    rkh[nr] = kh;
                    rih[nr] = ih;
                    nr++;
                }
                for (r = 0; r < nph; r++) {
                    int64_t npos = tr ? (p->Wo - r + p->sw - 1) / p->sw : p->Wo, nkw = 0, nt = 0, cmin = 0, cmax = 0, kw, L;
                    for (kw = 0; kw < p->KW; kw++) { /* the taps along W of phase r */
                        int64_t c;
                        if (!tr) c = kw * p->dw - p->pw;
                        else {
                            int64_t t = r + p->pw - kw * p->dw;
                            if (t % p->sw) continue;
                            c = t / p->sw; /* exact */
                        }
                        if (nkw == 0 || c < cmin) cmin = c;
                        if (nkw == 0 || c > cmax) cmax = c;
                        tkw[nkw] = kw;
                        tc[nkw] = c;
                        nkw++;
                    }
                    L = TW + (cmax - cmin) / a + 1; /* residue row length (<= Lmax) */
                    for (i = 0; i < nr; i++)        /* taps in (kh, kw) order */
                        for (k = 0; k < nkw; k++) {
                            int64_t u = tc[k] - cmin;
                            txo[nt] = ((i * a + u % a) * Cig) * L + u / a;
                            two[nt] = (rkh[i] * p->KW + tkw[k]) * Cig * 4;
                            nt++;
                        }
                    for (j0 = 0; j0 < npos; j0 += TW) {
                        int64_t jn = npos - j0 < TW ? npos - j0 : TW, Lf = (jn + 7) / 8 * 8 + (cmax - cmin) / a + 1, ci, res;
                        /* the chunk: xb[i][res][ci][m] = x at iw = (j0 + m) * a + res + cmin of row rih[i], 0 outside */
                        for (i = 0; i < nr && nt > 0; i++)
                            for (res = 0; res < a; res++)
                                for (ci = 0; ci < Cig; ci++) {
                                    float *d = xb + ((i * a + res) * Cig + ci) * L;
                                    int64_t base = ((b * p->Cin + g * Cig + ci) * p->H + rih[i]) * p->W, iw0 = j0 * a + res + cmin;
                                    if (a == 1 && dt == GK_F32) { /* a contiguous run: zeros, a copy, zeros */
                                        int64_t lo = iw0 < 0 ? -iw0 : 0, hi = p->W - iw0 < Lf ? p->W - iw0 : Lf;
                                        if (lo > Lf) lo = Lf;
                                        if (hi < lo) hi = lo;
                                        memset(d, 0, sizeof(float) * (size_t)lo);
                                        if (hi > lo) memcpy(d + lo, q->x + (base + iw0 + lo) * 4, sizeof(float) * (size_t)(hi - lo));
                                        memset(d + hi, 0, sizeof(float) * (size_t)(Lf - hi));
                                    } else
                                        for (m = 0; m < Lf; m++) {
                                            int64_t iw = iw0 + m * a;
                                            d[m] = iw >= 0 && iw < p->W ? gk__conv_ld(dt, q->x, base + iw) : 0.0f;
                                        }
                                }
                        for (cb = 0; cb < ncb; cb++) {
                            const float *wb = wp + (g * ncb + cb) * KK * Cig * 4;
                            int64_t nrow = Cog - cb * 4 < 4 ? Cog - cb * 4 : 4, t, rr;
                            for (j = 0; j < jn; j += 8) {
                                int64_t nj = jn - j < 8 ? jn - j : 8;
                                memset(acc, 0, sizeof acc);
                                for (t = 0; t < nt; t++) gk__conv_mk(acc, xb + txo[t] + j, L, wb + two[t], Cig);
                                for (rr = 0; rr < nrow; rr++) {
                                    int64_t co = g * Cog + cb * 4 + rr, o = ((b * p->Cout + co) * p->Ho + oh) * p->Wo;
                                    float bias = p->has_bias ? gk__conv_ld(dt, q->bias, co) : 0.0f;
                                    for (i = 0; i < nj; i++) {
                                        int64_t ow = (j0 + j + i) * nph + r;
                                        float v = acc[rr * 8 + i] + bias;
                                        if (dt == GK_F32) memcpy(q->out + (o + ow) * 4, &v, 4);
                                        else gk__stf(dt, q->out + (o + ow) * es, v);
                                    }
                                }
                            }
                        }
                    }
                }
            }
    GPUKIT_FREE(mem);
    return 0;
}
/* >>signal_conv: conv1d, transposed conv1d, conv2d, weight norm */
/* ======================= convolution ======================= */
/* Output size of one spatial dim, or -1 when invalid. */
static int64_t gk__conv_len(int64_t L, int64_t K, int64_t s, int64_t pd, int64_t d, int64_t op, int transposed) {
    if (!transposed) {
        int64_t span = d * (K - 1) + 1;
        if (L + 2 * pd < span) return -1;
        return (L + 2 * pd - span) / s + 1;
    }
    return (L - 1) * s - 2 * pd + d * (K - 1) + op + 1;
}

/* ---- 1-d convolution on TF32 tensor cores (conv_tc.cu) ---- */
typedef struct gk__convtcp { /* the layout of gk_convtcp in src/ops/signal/conv_tc.cu */
    int64_t B, Cin, L, Cout, Lo;
    int KW, pad, dil, RS, XS, ST, has_bias;
    int wal, xal; /* 16-byte weight rows / input rows (else 4-byte copies) */
    int ksplit;   /* the channel chunks split over blocks, partial sums in the workspace (gk_convtc_sum) */
} gk__convtcp;
#define GK__CTC_CK 8   /* input channels per reduction chunk (one m16n8k8 step per tap) */
#define GK__CTC_BN 128 /* output positions per block */

/* Shared-memory row strides (floats): Ws rows of 8 * KW weights padded to
   4 (mod 32), Xs rows of 128 + (KW - 1) * dil + 3 values padded to 8 (mod 32). */
static void gk__convtc_strides(const gk__convp *p, int *rs, int *xs) {
    int64_t r = GK__CTC_CK * p->KW, x = GK__CTC_BN + (p->KW - 1) * p->dw + 3;
    r += ((4 - r % 32) + 32) % 32;
    x += ((8 - x % 32) + 32) % 32;
    *rs = (int)r;
    *xs = (int)x;
}
static size_t gk__convtc_smem(const gk__convp *p, int bm, int st) {
    int rs, xs;
    gk__convtc_strides(p, &rs, &xs);
    return (size_t)st * ((size_t)bm * (size_t)rs + GK__CTC_CK * (size_t)xs) * 4;
}
/* What the kernel takes: f32, 1-d, stride 1, one group, at least 64 output
   channels, taps and dilation small enough for shared memory. Anything else
   runs on the f32 kernel (TF32 is a permission, not a requirement). */
static int gk__convtc_fits(gk_ctx *ctx, const gk__convp *p, gk_dtype dt) {
    if (dt != GK_F32 || p->H != 1 || p->KH != 1 || p->transposed || p->groups != 1 || p->sw != 1 || ctx->info.cc_major < 8) return 0;
    if (p->Cout < 64 || p->KW > 64 || p->dw > 64 || p->pw > INT32_MAX / 2) return 0;
    return gk__convtc_smem(p, 64, 2) <= (size_t)ctx->info.max_smem_per_block_optin;
}
static gk_status gk__convtc_launch(gk_ctx *ctx, const gk__convp *p, const gk__slot *so, const gk__slot *sx, const gk__slot *sw,
                                   const gk__slot *sb, const char *where) {
    gk__convtcp c;
    gk__cu_ptr po = gk__slot_addr(so), px = gk__slot_addr(sx), pw = gk__slot_addr(sw), pb = sb ? gk__slot_addr(sb) : 0, pws = 0;
    unsigned grid[3], block[3] = { 256, 1, 1 };
    void *args[5];
    int64_t nblk, chunks = (p->Cin + GK__CTC_CK - 1) / GK__CTC_CK, ks = 1;
    gk_status st;
    /* the first (rows, stages) that fits: 128-row tiles for >= 128 outputs, 3 stages where shared memory allows */
    static const int cand[4][2] = { { 128, 3 }, { 128, 2 }, { 64, 3 }, { 64, 2 } };
    int bm = 64, stg = 2, i;
    size_t smem = gk__convtc_smem(p, 64, 2), optin = (size_t)ctx->info.max_smem_per_block_optin;
    memset(&c, 0, sizeof c);
    for (i = p->Cout >= 128 ? 0 : 2; i < 4; i++)
        if (gk__convtc_smem(p, cand[i][0], cand[i][1]) <= optin) {
            bm = cand[i][0];
            stg = cand[i][1];
            smem = gk__convtc_smem(p, bm, stg);
            break;
        }
    c.B = p->B; c.Cin = p->Cin; c.L = p->W; c.Cout = p->Cout; c.Lo = p->Wo;
    c.KW = (int)p->KW; c.pad = (int)p->pw; c.dil = (int)p->dw; c.ST = stg; c.has_bias = p->has_bias;
    c.wal = (p->Cin * p->KW) % 4 == 0 && (pw & 15) == 0;
    c.xal = p->W % 4 == 0 && (px & 15) == 0;
    gk__convtc_strides(p, &c.RS, &c.XS);
    grid[0] = (unsigned)((p->Wo + GK__CTC_BN - 1) / GK__CTC_BN);
    grid[1] = (unsigned)((p->Cout + bm - 1) / bm);
    /* fewer tiles than 2 blocks an SM (short inputs: a sentence's decoder, the text encoder): the channel
       chunks split over up to 16 blocks of at least 4 chunks each, partial sums added in order by gk_convtc_sum */
    nblk = (int64_t)grid[0] * grid[1] * p->B;
    if (nblk < 2 * (int64_t)ctx->info.sm_count) {
        ks = (2 * (int64_t)ctx->info.sm_count + nblk - 1) / nblk;
        ks = GK__MIN(GK__MIN(ks, chunks / 4), (int64_t)16);
        if (ks < 1 || p->B * ks > 65535) ks = 1;
    }
    c.ksplit = (int)ks;
    grid[2] = (unsigned)(p->B * ks);
    args[0] = &c; args[1] = &po; args[2] = &px; args[3] = &pw; args[4] = &pb;
    if (ks > 1) {
        st = gk__workspace(ctx, (size_t)ks * (size_t)(p->B * p->Cout * p->Wo) * 4, &pws, where);
        if (st != GK_OK) return st;
        args[1] = &pws;
    }
    st = gk__launch_cfg(ctx, GK__MOD_CONV_TC, bm == 128 ? "gk_convtc_128" : "gk_convtc_64", grid, block, (unsigned)smem, args, where);
    if (st == GK_OK && ks > 1) {
        unsigned g2[3] = { 1, 1, 1 };
        int64_t nb = (p->B * p->Cout * p->Wo + 255) / 256;
        void *a2[4];
        g2[0] = (unsigned)(nb < 4096 ? nb : 4096);
        a2[0] = &c; a2[1] = &po; a2[2] = &pws; a2[3] = &pb;
        st = gk__launch_cfg(ctx, GK__MOD_CONV_TC, "gk_convtc_sum", g2, block, 0, a2, where);
    }
    if (ks > 1) gk__unuse(ctx, ctx->ws);
    return st;
}

/* The one entry of the convolutions: nsp = 1 (1-d: H = 1) or 2. tf32: f32
   1-d convolutions may run on TF32 tensor cores (gk__convtc_fits). */
static gk_status gk__conv(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor bias, int nsp, int transposed,
                          const int64_t *stride, const int64_t *padding, const int64_t *dilation, const int64_t *outpad, int64_t groups,
                          int tf32, const char *where) {
    static const char *const names[4] = { "out", "x", "w", "bias" };
    gk_tensor ts[4];
    gk__opnds ops;
    gk__conv_cpu_p q;
    gk__convp *p = &q.p;
    gk_status st;
    int i, nd = nsp + 2;
    ts[0] = out; ts[1] = x; ts[2] = w; ts[3] = bias;
    GK__ENTER(ctx, where);
    memset(&q, 0, sizeof q);
    st = gk__sg_operands(ctx, &ops, ts, names, 4, 8u, where);
    if (st == GK_OK) st = gk__sg_check(ctx, &ops, names, 1, where);
    for (i = 0; st == GK_OK && i < nsp; i++) {
        if (stride[i] < 1 || dilation[i] < 1 || padding[i] < 0 || (transposed && (outpad[i] < 0 || (outpad[i] >= stride[i] && outpad[i] >= dilation[i]))))
            st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: stride %lld, padding %lld, dilation %lld%s%lld: need stride >= 1, dilation >= 1, padding >= 0%s",
                         where, (long long)stride[i], (long long)padding[i], (long long)dilation[i], transposed ? ", output_padding " : "",
                         transposed ? (long long)outpad[i] : 0LL, transposed ? ", 0 <= output_padding < stride or dilation" : "");
    }
    if (st == GK_OK && groups < 1) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: groups %lld < 1", where, (long long)groups);
    if (st == GK_OK && ops.s[1]->ndim != nd) st = gk__sg_shape_err(ctx, ops.s[1], "x", nsp == 1 ? "[B, Cin, L]" : "[B, Cin, H, W]", where);
    if (st == GK_OK && ops.s[2]->ndim != nd)
        st = gk__sg_shape_err(ctx, ops.s[2], "w", transposed ? "[Cin, Cout/groups, K]" : nsp == 1 ? "[Cout, Cin/groups, K]" : "[Cout, Cin/groups, KH, KW]", where);
    if (st == GK_OK) {
        const gk__slot *sx = ops.s[1], *sw = ops.s[2];
        p->B = sx->shape[0];
        p->Cin = sx->shape[1];
        p->H = nsp == 2 ? sx->shape[2] : 1;
        p->W = sx->shape[nd - 1];
        p->KH = nsp == 2 ? sw->shape[2] : 1;
        p->KW = sw->shape[nd - 1];
        p->sh = nsp == 2 ? stride[0] : 1; p->sw = stride[nsp - 1];
        p->ph = nsp == 2 ? padding[0] : 0; p->pw = padding[nsp - 1];
        p->dh = nsp == 2 ? dilation[0] : 1; p->dw = dilation[nsp - 1];
        p->groups = groups;
        p->transposed = transposed;
        if (p->Cin % groups)
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: groups %lld does not divide the %lld input channels", where, (long long)groups, (long long)p->Cin);
        else if (!transposed && (sw->shape[0] % groups || sw->shape[1] * groups != p->Cin))
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: w has %lld output channels and %lld input channels per group; x has %lld channels in %lld groups",
                         where, (long long)sw->shape[0], (long long)sw->shape[1], (long long)p->Cin, (long long)groups);
        else if (transposed && sw->shape[0] != p->Cin)
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: w has %lld input channels but x has %lld", where, (long long)sw->shape[0], (long long)p->Cin);
        else if (p->KW < 1 || p->KH < 1)
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: empty kernel", where);
        else {
            p->Cout = transposed ? sw->shape[1] * groups : sw->shape[0];
            p->Ho = nsp == 2 ? gk__conv_len(p->H, p->KH, p->sh, p->ph, p->dh, transposed ? outpad[0] : 0, transposed) : 1;
            p->Wo = gk__conv_len(p->W, p->KW, p->sw, p->pw, p->dw, transposed ? outpad[nsp - 1] : 0, transposed);
            if (p->Ho < 1 || p->Wo < 1)
                st = gk__err(ctx, GK_ERR_SHAPE, "%s: the input (%lld x %lld) is smaller than the dilated kernel with padding", where,
                             (long long)p->H, (long long)p->W);
        }
    }
    if (st == GK_OK) {
        const gk__slot *so = ops.s[0];
        int64_t want[4];
        char wb[160];
        want[0] = p->B; want[1] = p->Cout;
        if (nsp == 2) { want[2] = p->Ho; want[3] = p->Wo; } else want[2] = p->Wo;
        if (so->ndim != nd || memcmp(so->shape, want, sizeof(int64_t) * (size_t)nd) != 0) {
            if (nsp == 2) snprintf(wb, sizeof wb, "[%lld,%lld,%lld,%lld]", (long long)want[0], (long long)want[1], (long long)want[2], (long long)want[3]);
            else snprintf(wb, sizeof wb, "[%lld,%lld,%lld]", (long long)want[0], (long long)want[1], (long long)want[2]);
            st = gk__sg_shape_err(ctx, so, "out", wb, where);
        }
    }
    if (st == GK_OK && ops.s[3]) {
        if (gk__numel(ops.s[3]) != p->Cout) st = gk__err(ctx, GK_ERR_SHAPE, "%s: bias has %lld elements, expected %lld", where,
                                                          (long long)gk__numel(ops.s[3]), (long long)p->Cout);
        p->has_bias = 1;
    }
    if (st == GK_OK && (p->Cin / groups * p->KH * p->KW > INT32_MAX || p->B * p->Ho * p->Wo > INT32_MAX || groups > 65535 || p->Cout / groups > (int64_t)65535 * 64 ||
                         (nsp == 1 && transposed && (groups * p->sw > 65535 || p->W > INT32_MAX || p->sw * p->dw > INT32_MAX))))
        st = gk__err(ctx, GK_ERR_LIMIT, "%s: sizes beyond the kernel's 32-bit tiles (or more than 65535 groups)", where);
    if (st == GK_OK && gk__numel(ops.s[0]) == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__sg_use(ctx, &ops, where);
    if (st == GK_OK) {
        q.dt = ops.s[0]->dtype;
        if (ctx->backend == GK_BACKEND_CPU) {
            q.out = (char *)(uintptr_t)gk__slot_addr(ops.s[0]);
            q.x = (const char *)(uintptr_t)gk__slot_addr(ops.s[1]);
            q.w = (const char *)(uintptr_t)gk__slot_addr(ops.s[2]);
            q.bias = ops.s[3] ? (const char *)(uintptr_t)gk__slot_addr(ops.s[3]) : NULL;
            st = gk__cpu_run(ctx, gk__conv_cpu, &q, sizeof q, where);
        } else if (tf32 && gk__convtc_fits(ctx, p, q.dt)) {
            st = gk__convtc_launch(ctx, p, ops.s[0], ops.s[1], ops.s[2], ops.s[3], where);
        } else {
            static const char *const kn[2][GK_DTYPE_COUNT] = { { "gk_conv_f32", NULL, "gk_conv_f16", "gk_conv_bf16" },
                                                              { "gk_conv128_f32", NULL, "gk_conv128_f16", "gk_conv128_bf16" } };
            gk__cu_ptr po = gk__slot_addr(ops.s[0]), px = gk__slot_addr(ops.s[1]), pw = gk__slot_addr(ops.s[2]),
                       pb = ops.s[3] ? gk__slot_addr(ops.s[3]) : 0, pws = 0;
            int64_t N = p->B * p->Ho * p->Wo, Mg = p->Cout / groups;
            int used_ws = 0;
            unsigned grid[3], block[3] = { 256, 1, 1 };
            void *args[5];
            args[0] = p; args[1] = &po; args[2] = &px; args[3] = &pw; args[4] = &pb;
            static const char *const knt[2][GK_DTYPE_COUNT] = { { "gk_convt1_f32", NULL, "gk_convt1_f16", "gk_convt1_bf16" },
                                                               { "gk_convt1_128_f32", NULL, "gk_convt1_128_f16", "gk_convt1_128_bf16" } };
            /* 1-d transposed: one GEMM per (group, output phase t mod stride), no zero taps */
            int poly = nsp == 1 && transposed;
            int big = Mg >= 128; /* 128 x 64 tiles for wide groups */
            int64_t target = 2 * (int64_t)ctx->info.sm_count, nblk;
            grid[0] = (unsigned)(poly ? (p->B * ((p->Wo + p->sw - 1) / p->sw) + 63) / 64 : (N + 63) / 64);
            grid[2] = (unsigned)(poly ? groups * p->sw : groups);
            /* polyphase with few tiles: 64-row tiles, then the reduction split (f32, partial sums in the workspace added
               in order by gk_convt1_sum) up to ~2 blocks per SM */
            if (poly && big && (int64_t)grid[0] * ((Mg + 127) / 128) * grid[2] < target / 2) big = 0;
            grid[1] = (unsigned)(big ? (Mg + 127) / 128 : (Mg + 63) / 64);
            nblk = (int64_t)grid[0] * grid[1] * grid[2];
            p->ksplit = 1;
            if (poly && q.dt == GK_F32 && nblk < target / 2) {
                int64_t gd = p->sw, dd = p->dw, red, ks;
                while (dd) { int64_t t = gd % dd; gd = dd; dd = t; }
                red = p->Cin / groups * ((p->KW + p->sw / gd - 1) / (p->sw / gd)); /* reduction length of the longest phase */
                ks = (target + nblk - 1) / nblk;
                if (ks > red / 64) ks = red / 64; /* at least 4 k-steps of 16 per block */
                if (ks > 16) ks = 16;
                if (ks > 1 && (int64_t)grid[2] * ks <= 65535) {
                    p->ksplit = (int)ks;
                    grid[2] = (unsigned)(grid[2] * ks);
                    st = gk__workspace(ctx, (size_t)ks * (size_t)gk__numel(ops.s[0]) * 4, &pws, where);
                    if (st == GK_OK) { args[1] = &pws; used_ws = 1; }
                }
            }
            if (st == GK_OK) st = gk__launch_cfg(ctx, GK__MOD_CONV, (poly ? knt : kn)[big][q.dt], grid, block, 0, args, where);
            if (st == GK_OK && p->ksplit > 1) {
                unsigned g2[3] = { 1, 1, 1 };
                void *a2[3];
                int64_t nb = (gk__numel(ops.s[0]) + 255) / 256;
                g2[0] = (unsigned)(nb < 4096 ? nb : 4096);
                a2[0] = p; a2[1] = &po; a2[2] = &pws;
                st = gk__launch_cfg(ctx, GK__MOD_CONV, "gk_convt1_sum", g2, block, 0, a2, where);
            }
            if (used_ws) gk__unuse(ctx, ctx->ws);
        }
    }
    gk__sg_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_conv1d(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor bias, int64_t stride, int64_t padding,
                          int64_t dilation, int64_t groups) {
    return gk__conv(ctx, out, x, w, bias, 1, 0, &stride, &padding, &dilation, NULL, groups, 0, "gk_conv1d");
}
GKDEF gk_status gk_conv1d_ex(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor bias, const gk_conv1d_desc *desc) {
    gk_conv1d_desc d;
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    if (d.stride == 0) d.stride = 1;
    if (d.dilation == 0) d.dilation = 1;
    if (d.groups == 0) d.groups = 1;
    return gk__conv(ctx, out, x, w, bias, 1, 0, &d.stride, &d.padding, &d.dilation, NULL, d.groups, d.allow_tf32 != 0, "gk_conv1d_ex");
}
GKDEF gk_status gk_conv_transpose1d(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor bias, int64_t stride,
                                    int64_t padding, int64_t output_padding, int64_t groups, int64_t dilation) {
    return gk__conv(ctx, out, x, w, bias, 1, 1, &stride, &padding, &dilation, &output_padding, groups, 0, "gk_conv_transpose1d");
}
GKDEF gk_status gk_conv2d(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor bias, const int64_t stride[2],
                          const int64_t padding[2], const int64_t dilation[2], int64_t groups) {
    if (!stride || !padding || !dilation) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_conv2d: stride, padding or dilation is NULL");
    return gk__conv(ctx, out, x, w, bias, 2, 0, stride, padding, dilation, NULL, groups, 0, "gk_conv2d");
}
/* _new: computes the output shape from x and w (the op validates the rest) */
static gk_status gk__conv_new(gk_ctx *ctx, gk_tensor x, gk_tensor w, gk_tensor bias, int nsp, int transposed, const int64_t *stride,
                              const int64_t *padding, const int64_t *dilation, const int64_t *outpad, int64_t groups, gk_tensor *out,
                              const char *where) {
    int64_t sx[GK_MAX_DIMS], sw[GK_MAX_DIMS], so[4];
    int ndx = 0, ndw = 0, i;
    gk_tensor t;
    gk_status st;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", where);
    GK__TRY(gk__sg_shape(ctx, x, &ndx, sx, NULL, "x", where));
    GK__TRY(gk__sg_shape(ctx, w, &ndw, sw, NULL, "w", where));
    if (ndx != nsp + 2 || ndw != nsp + 2) {
        gk__enter(ctx);
        st = gk__err(ctx, GK_ERR_SHAPE, "%s: x and w must have %d dims (got %d and %d)", where, nsp + 2, ndx, ndw);
        gk__unlock(&ctx->mu);
        return st;
    }
    so[0] = sx[0];
    so[1] = transposed ? sw[1] * (groups > 0 ? groups : 1) : sw[0];
    for (i = 0; i < nsp; i++) {
        int64_t s = stride[i] > 0 ? stride[i] : 1, d = dilation[i] > 0 ? dilation[i] : 1;
        so[2 + i] = gk__conv_len(sx[2 + i], sw[2 + i], s, padding[i], d, transposed ? outpad[i] : 0, transposed);
        if (so[2 + i] < 0) so[2 + i] = 0;
    }
    GK__TRY(gk__sg_alloc(ctx, x, -1, nsp + 2, so, &t, where));
    st = gk__conv(ctx, t, x, w, bias, nsp, transposed, stride, padding, dilation, outpad, groups, 0, where);
    return gk__finish_new(ctx, st, t, out);
}
GKDEF gk_status gk_conv1d_new(gk_ctx *ctx, gk_tensor x, gk_tensor w, gk_tensor bias, int64_t stride, int64_t padding, int64_t dilation,
                              int64_t groups, gk_tensor *out) {
    return gk__conv_new(ctx, x, w, bias, 1, 0, &stride, &padding, &dilation, NULL, groups, out, "gk_conv1d_new");
}
GKDEF gk_status gk_conv_transpose1d_new(gk_ctx *ctx, gk_tensor x, gk_tensor w, gk_tensor bias, int64_t stride, int64_t padding,
                                        int64_t output_padding, int64_t groups, int64_t dilation, gk_tensor *out) {
    return gk__conv_new(ctx, x, w, bias, 1, 1, &stride, &padding, &dilation, &output_padding, groups, out, "gk_conv_transpose1d_new");
}
GKDEF gk_status gk_conv2d_new(gk_ctx *ctx, gk_tensor x, gk_tensor w, gk_tensor bias, const int64_t stride[2], const int64_t padding[2],
                              const int64_t dilation[2], int64_t groups, gk_tensor *out) {
    if (out) out->id = 0;
    if (!stride || !padding || !dilation) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_conv2d_new: stride, padding or dilation is NULL");
    return gk__conv_new(ctx, x, w, bias, 2, 0, stride, padding, dilation, NULL, groups, out, "gk_conv2d_new");
}

/* ---- weight norm ---- */
typedef struct gk__wnorm_p { gk_dtype dt; int64_t C, inner; char *out; const char *v, *g; } gk__wnorm_p;
static int gk__wnorm_cpu(const void *vp) {
    const gk__wnorm_p *p = (const gk__wnorm_p *)vp;
    size_t es = gk__dtype_sizes[p->dt];
    int64_t o, i;
    for (o = 0; o < p->C; o++) {
        double s = 0, sc;
        for (i = 0; i < p->inner; i++) { double a = gk__ldf(p->dt, p->v + (o * p->inner + i) * (int64_t)es); s += a * a; }
        sc = (double)gk__ldf(p->dt, p->g + o * (int64_t)es) / sqrt(s);
        for (i = 0; i < p->inner; i++)
            gk__stf(p->dt, p->out + (o * p->inner + i) * (int64_t)es, (float)(gk__ldf(p->dt, p->v + (o * p->inner + i) * (int64_t)es) * sc));
    }
    return 0;
}
GKDEF gk_status gk_weight_norm(gk_ctx *ctx, gk_tensor out, gk_tensor v, gk_tensor g) {
    static const char *const names[3] = { "out", "v", "g" };
    const char *where = "gk_weight_norm";
    gk_tensor ts[3];
    gk__opnds ops;
    gk__wnorm_p p;
    gk_status st;
    int i;
    ts[0] = out; ts[1] = v; ts[2] = g;
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__sg_operands(ctx, &ops, ts, names, 3, 0, where);
    if (st == GK_OK) st = gk__sg_check(ctx, &ops, names, 1, where);
    if (st == GK_OK && ops.s[1]->ndim < 1) st = gk__sg_shape_err(ctx, ops.s[1], "v", "at least 1 dim", where);
    if (st == GK_OK) {
        const gk__slot *so = ops.s[0], *sv = ops.s[1];
        if (so->ndim != sv->ndim || memcmp(so->shape, sv->shape, sizeof(int64_t) * (size_t)sv->ndim) != 0)
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: out and v differ in shape", where);
        else {
            p.C = sv->shape[0];
            p.inner = p.C ? gk__numel(sv) / p.C : 0;
            if (gk__numel(ops.s[2]) != p.C)
                st = gk__err(ctx, GK_ERR_SHAPE, "%s: g has %lld elements, expected %lld (one per slice of dim 0)", where,
                             (long long)gk__numel(ops.s[2]), (long long)p.C);
            for (i = 1; st == GK_OK && i < ops.s[2]->ndim; i++)
                if (ops.s[2]->shape[i] != 1 && ops.s[2]->shape[0] != p.C) st = gk__err(ctx, GK_ERR_SHAPE, "%s: g must be [C] or [C, 1, ...]", where);
        }
    }
    if (st == GK_OK && (p.C == 0 || p.inner == 0)) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK && p.C > INT32_MAX) st = gk__err(ctx, GK_ERR_LIMIT, "%s: too many channels", where);
    if (st == GK_OK) st = gk__sg_use(ctx, &ops, where);
    if (st == GK_OK) {
        p.dt = ops.s[0]->dtype;
        if (ctx->backend == GK_BACKEND_CPU) {
            p.out = (char *)(uintptr_t)gk__slot_addr(ops.s[0]);
            p.v = (const char *)(uintptr_t)gk__slot_addr(ops.s[1]);
            p.g = (const char *)(uintptr_t)gk__slot_addr(ops.s[2]);
            st = gk__cpu_run(ctx, gk__wnorm_cpu, &p, sizeof p, where);
        } else {
            static const char *const kn[GK_DTYPE_COUNT] = { "gk_wnorm_f32", NULL, "gk_wnorm_f16", "gk_wnorm_bf16" };
            gk__cu_ptr po = gk__slot_addr(ops.s[0]), pv = gk__slot_addr(ops.s[1]), pg = gk__slot_addr(ops.s[2]);
            unsigned grid[3] = { 0, 1, 1 }, block[3] = { 256, 1, 1 };
            void *args[4];
            grid[0] = (unsigned)p.C;
            args[0] = &p.inner; args[1] = &po; args[2] = &pv; args[3] = &pg;
            st = gk__launch_cfg(ctx, GK__MOD_CONV, kn[p.dt], grid, block, 0, args, where);
        }
    }
    gk__sg_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_weight_norm_new(gk_ctx *ctx, gk_tensor v, gk_tensor g, gk_tensor *out) {
    int64_t shape[GK_MAX_DIMS];
    int nd = 0;
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_weight_norm_new: out is NULL");
    GK__TRY(gk__sg_shape(ctx, v, &nd, shape, NULL, "v", "gk_weight_norm_new"));
    GK__TRY(gk__sg_alloc(ctx, v, -1, nd, shape, &t, "gk_weight_norm_new"));
    return gk__finish_new(ctx, gk_weight_norm(ctx, t, v, g), t, out);
}

/* >>signal_lstm: LSTM */
/* ======================= LSTM ======================= */
typedef struct gk__lstm_p {
    int64_t T, I, H, D;
    float *out, *hn, *cn;
    const float *x, *wih, *whh, *bih, *bhh, *h0, *c0;
    double *ws; /* 7H doubles */
} gk__lstm_p;
static double gk__sigm(double x) { return 1.0 / (1.0 + exp(-x)); }
/* the step loop, in double */
static int gk__lstm_cpu(const void *vp) {
    const gk__lstm_p *p = (const gk__lstm_p *)vp;
    int64_t H = p->H, I = p->I, d, s, r, k, j;
    double *h = p->ws, *hn = h + H, *c = hn + H, *g = c + H;
    for (d = 0; d < p->D; d++) {
        const float *wih = p->wih + d * 4 * H * I, *whh = p->whh + d * 4 * H * H;
        for (j = 0; j < H; j++) { h[j] = p->h0 ? p->h0[d * H + j] : 0.0; c[j] = p->c0 ? p->c0[d * H + j] : 0.0; }
        for (s = 0; s < p->T; s++) {
            int64_t t = d == 0 ? s : p->T - 1 - s;
            const float *xt = p->x + t * I;
            for (r = 0; r < 4 * H; r++) {
                double acc = (p->bih ? p->bih[d * 4 * H + r] : 0.0) + (p->bhh ? p->bhh[d * 4 * H + r] : 0.0);
                for (k = 0; k < I; k++) acc += (double)wih[r * I + k] * xt[k];
                for (k = 0; k < H; k++) acc += (double)whh[r * H + k] * h[k];
                g[r] = acc;
            }
            for (j = 0; j < H; j++) {
                double ig = gk__sigm(g[j]), fg = gk__sigm(g[H + j]), gg = tanh(g[2 * H + j]), og = gk__sigm(g[3 * H + j]);
                c[j] = fg * c[j] + ig * gg;
                hn[j] = og * tanh(c[j]);
            }
            for (j = 0; j < H; j++) { h[j] = hn[j]; p->out[t * p->D * H + d * H + j] = (float)h[j]; }
        }
        for (j = 0; j < H; j++) {
            if (p->hn) p->hn[d * H + j] = (float)h[j];
            if (p->cn) p->cn[d * H + j] = (float)c[j];
        }
    }
    return 0;
}

GKDEF gk_status gk_lstm(gk_ctx *ctx, gk_tensor out, gk_tensor h_n, gk_tensor c_n, gk_tensor x, gk_tensor w_ih, gk_tensor w_hh,
                        gk_tensor b_ih, gk_tensor b_hh, gk_tensor h0, gk_tensor c0) {
    static const char *const names[10] = { "out", "h_n", "c_n", "x", "w_ih", "w_hh", "b_ih", "b_hh", "h0", "c0" };
    const char *where = "gk_lstm";
    gk_tensor ts[10];
    gk__opnds ops;
    gk__lstm_p p;
    gk_status st;
    int i, ws_used = 0;
    ts[0] = out; ts[1] = h_n; ts[2] = c_n; ts[3] = x; ts[4] = w_ih; ts[5] = w_hh; ts[6] = b_ih; ts[7] = b_hh; ts[8] = h0; ts[9] = c0;
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__sg_operands(ctx, &ops, ts, names, 10, 0x3C6u, where);
    if (st == GK_OK) st = gk__sg_check(ctx, &ops, names, 0, where);
    if (st == GK_OK && (ops.s[4]->ndim != 3 || (ops.s[4]->shape[0] != 1 && ops.s[4]->shape[0] != 2) || ops.s[4]->shape[1] % 4 != 0 ||
                        ops.s[4]->shape[1] == 0))
        st = gk__sg_shape_err(ctx, ops.s[4], "w_ih", "[D, 4H, I] with D = 1 or 2, H >= 1", where);
    if (st == GK_OK) {
        p.D = ops.s[4]->shape[0];
        p.H = ops.s[4]->shape[1] / 4;
        p.I = ops.s[4]->shape[2];
        if (ops.s[5]->ndim != 3 || ops.s[5]->shape[0] != p.D || ops.s[5]->shape[1] != 4 * p.H || ops.s[5]->shape[2] != p.H)
            st = gk__sg_shape_err(ctx, ops.s[5], "w_hh", "[D, 4H, H] matching w_ih", where);
    }
    if (st == GK_OK) {
        const gk__slot *sx = ops.s[3];
        if (!((sx->ndim == 2 && sx->shape[1] == p.I) || (sx->ndim == 3 && sx->shape[1] == 1 && sx->shape[2] == p.I)))
            st = gk__sg_shape_err(ctx, sx, "x", "[T, I] or [T, 1, I] (batch 1), I from w_ih", where);
        else p.T = sx->shape[0];
    }
    if (st == GK_OK) {
        const gk__slot *so = ops.s[0];
        if (!((so->ndim == 2 && so->shape[0] == p.T && so->shape[1] == p.D * p.H) ||
              (so->ndim == 3 && so->shape[0] == p.T && so->shape[1] == 1 && so->shape[2] == p.D * p.H)))
            st = gk__sg_shape_err(ctx, so, "out", "[T, D*H] or [T, 1, D*H]", where);
    }
    for (i = 1; st == GK_OK && i < 10; i++) {
        int64_t want = (i == 6 || i == 7) ? p.D * 4 * p.H : p.D * p.H;
        if (i >= 3 && i <= 5) continue;
        if (ops.s[i] && gk__numel(ops.s[i]) != want)
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: %s has %lld elements, expected %lld", where, names[i], (long long)gk__numel(ops.s[i]), (long long)want);
    }
    if (st == GK_OK && p.H > 65536) st = gk__err(ctx, GK_ERR_LIMIT, "%s: hidden size %lld too large", where, (long long)p.H);
    if (st == GK_OK && p.T == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK && p.T > (int64_t)65535 * 64) st = gk__err(ctx, GK_ERR_LIMIT, "%s: %lld steps (at most %lld)", where, (long long)p.T, (long long)65535 * 64);
    if (st == GK_OK) st = gk__sg_use(ctx, &ops, where);
    if (st == GK_OK) {
        gk__cu_ptr a[10];
        for (i = 0; i < 10; i++) a[i] = ops.s[i] ? gk__slot_addr(ops.s[i]) : 0;
        if (ctx->backend == GK_BACKEND_CPU) {
            gk__cu_ptr ws = 0;
            st = gk__workspace(ctx, sizeof(double) * 7 * (size_t)p.H, &ws, where);
            if (st == GK_OK) {
                ws_used = 1;
                p.out = (float *)(uintptr_t)a[0]; p.hn = (float *)(uintptr_t)a[1]; p.cn = (float *)(uintptr_t)a[2];
                p.x = (const float *)(uintptr_t)a[3]; p.wih = (const float *)(uintptr_t)a[4]; p.whh = (const float *)(uintptr_t)a[5];
                p.bih = (const float *)(uintptr_t)a[6]; p.bhh = (const float *)(uintptr_t)a[7];
                p.h0 = (const float *)(uintptr_t)a[8]; p.c0 = (const float *)(uintptr_t)a[9];
                p.ws = (double *)(uintptr_t)ws;
                st = gk__cpu_run(ctx, gk__lstm_cpu, &p, sizeof p, where);
            }
        } else {
            int D = (int)p.D, H = (int)p.H, T = (int)p.T, I = (int)p.I, R = 4 * H, per_dir, U, NB, use_smem = 1;
            size_t oG = 0, oH = gk__al256(sizeof(float) * (size_t)p.D * (size_t)p.T * (size_t)R), oF = oH + gk__al256(sizeof(float) * 2 * (size_t)D * (size_t)H);
            size_t smem;
            gk__cu_ptr ws = 0, pG, pH, pF;
            per_dir = ctx->info.sm_count / D;
            if (per_dir > 256) per_dir = 256;
            if (per_dir < 1) per_dir = 1;
            U = (H + per_dir - 1) / per_dir;
            NB = (H + U - 1) / U;
            smem = sizeof(float) * ((size_t)4 * U * H + H + 8 * U);
            if ((long long)smem > (long long)ctx->info.max_smem_per_block_optin) { use_smem = 0; smem = sizeof(float) * ((size_t)H + 8 * U); }
            GK__UNUSED(oG);
            st = gk__workspace(ctx, oF + sizeof(unsigned) * (size_t)(D * NB), &ws, where);
            if (st == GK_OK) {
                unsigned grid[3], block[3] = { 256, 1, 1 };
                void *args[15];
                ws_used = 1;
                pG = ws; pH = ws + oH; pF = ws + oF;
                grid[0] = (unsigned)((R + 63) / 64); grid[1] = (unsigned)((T + 63) / 64); grid[2] = (unsigned)D;
                args[0] = &pG; args[1] = &a[3]; args[2] = &a[4]; args[3] = &a[6]; args[4] = &a[7]; args[5] = &T; args[6] = &R; args[7] = &I;
                st = gk__launch_cfg(ctx, GK__MOD_LSTM, "gk_lstm_proj", grid, block, 0, args, where);
                if (st == GK_OK) st = gk__sg_launch_err(ctx, ctx->cu.MemsetD8Async(pF, 0, sizeof(unsigned) * (size_t)(D * NB), ctx->cur_stream->cu), where, "cuMemsetD8Async");
                if (st == GK_OK) {
                    args[0] = &pG; args[1] = &a[5]; args[2] = &a[8]; args[3] = &a[9]; args[4] = &a[0]; args[5] = &a[1]; args[6] = &a[2];
                    args[7] = &pH; args[8] = &pF; args[9] = &T; args[10] = &H; args[11] = &D; args[12] = &NB; args[13] = &U; args[14] = &use_smem;
                    st = gk__launch_coop(ctx, GK__MOD_LSTM, "gk_lstm_rec", (unsigned)(D * NB), 256, (unsigned)smem, args, where);
                }
            }
        }
    }
    if (ws_used) gk__unuse(ctx, ctx->ws);
    gk__sg_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_lstm_new(gk_ctx *ctx, gk_tensor x, gk_tensor w_ih, gk_tensor w_hh, gk_tensor b_ih, gk_tensor b_hh, gk_tensor h0,
                            gk_tensor c0, gk_tensor *out) {
    int64_t sx[GK_MAX_DIMS], sw[GK_MAX_DIMS], so[2];
    int ndx = 0, ndw = 0;
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_lstm_new: out is NULL");
    GK__TRY(gk__sg_shape(ctx, x, &ndx, sx, NULL, "x", "gk_lstm_new"));
    GK__TRY(gk__sg_shape(ctx, w_ih, &ndw, sw, NULL, "w_ih", "gk_lstm_new"));
    so[0] = ndx > 0 ? sx[0] : 0;
    so[1] = ndw == 3 ? sw[0] * (sw[1] / 4) : 0;
    GK__TRY(gk__sg_alloc(ctx, x, GK_F32, 2, so, &t, "gk_lstm_new"));
    return gk__finish_new(ctx, gk_lstm(ctx, t, gk__sg_none, gk__sg_none, x, w_ih, w_hh, b_ih, b_hh, h0, c0), t, out);
}

/* >>signal_fft: FFT, real FFT and its inverse */
/* ======================= FFT / STFT / mel ======================= */
enum { GK__FI_COMPLEX = 0, GK__FI_REAL, GK__FI_HALF, GK__FI_FRAMES, GK__FI_SPEC };
enum { GK__FO_COMPLEX = 0, GK__FO_HALF, GK__FO_REAL, GK__FO_SPEC, GK__FO_POWER, GK__FO_WREAL };
typedef struct gk__fftp { /* the layout of gk_fftp in src/ops/signal/fft.cu */
    int n, m, nf, blue, inverse, in_mode, out_mode, center;
    int f[16];
    int64_t batch, nframes, hop, sig_len, sig_avail, sig_stride;
    float scale;
    int has_window;
    int tw_table, pad_;
} gk__fftp;
#define GK__FFT_MAXN ((int64_t)1 << 22)

/* factors of m into 4, 2, 3, 5 (DIT order); 0 when m has another prime factor */
static int gk__fft_factor(int64_t m, int *f, int *nf) {
    int k = 0;
    while (m % 4 == 0 && k < 16) { f[k++] = 4; m /= 4; }
    while (m % 2 == 0 && k < 16) { f[k++] = 2; m /= 2; }
    while (m % 3 == 0 && k < 16) { f[k++] = 3; m /= 3; }
    while (m % 5 == 0 && k < 16) { f[k++] = 5; m /= 5; }
    *nf = k;
    return m == 1;
}
static gk_status gk__fft_plan(gk_ctx *ctx, gk__fftp *P, int64_t n, int inverse, const char *where) {
    int64_t m = n;
    if (n < 2) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: FFT length %lld (needs at least 2)", where, (long long)n);
    if (n > GK__FFT_MAXN) return gk__err(ctx, GK_ERR_LIMIT, "%s: FFT length %lld (at most %lld)", where, (long long)n, (long long)GK__FFT_MAXN);
    P->n = (int)n;
    P->inverse = inverse;
    P->blue = 0;
    if (!gk__fft_factor(n, P->f, &P->nf)) {
        int tmp[16], nt;
        P->blue = 1;
        for (m = 2 * n - 1; !gk__fft_factor(m, tmp, &nt); m++) { }
        gk__fft_factor(m, P->f, &P->nf);
    }
    P->m = (int)m;
    return GK_OK;
}

/* ---- CPU reference: the same algorithm in double ---- */
typedef struct gk__cd { double re, im; } gk__cd;
static int gk__fft_rev(int p, const gk__fftp *P) {
    int L = P->m, r = 0, mult = 1, k;
    for (k = P->nf - 1; k >= 0; k--) {
        int d;
        L /= P->f[k];
        d = p / L;
        p -= d * L;
        r += d * mult;
        mult *= P->f[k];
    }
    return r;
}
static gk__cd gk__cmul(gk__cd a, gk__cd b) { gk__cd r; r.re = a.re * b.re - a.im * b.im; r.im = a.re * b.im + a.im * b.re; return r; }
static gk__cd gk__expi(double ang) { gk__cd r; r.re = cos(ang); r.im = sin(ang); return r; }
static void gk__fft_stages_cpu(gk__cd *buf, const gk__fftp *P, double sgn, int dif) {
    const double pi = 3.14159265358979323846;
    int Ls[16], L = 1, k, kk;
    for (k = 0; k < P->nf; k++) { Ls[k] = L; L *= P->f[k]; }
    for (kk = 0; kk < P->nf; kk++) {
        int R, N, i, j, mm;
        double cs[5], sn[5];
        k = dif ? P->nf - 1 - kk : kk;
        R = P->f[k];
        L = Ls[k];
        N = L * R;
        for (j = 0; j < R; j++) { cs[j] = cos(2 * pi * j / R); sn[j] = sgn * sin(2 * pi * j / R); }
        for (i = 0; i < P->m / R; i++) {
            int b = i / L, q = i - b * L;
            gk__cd *base = buf + b * N + q, a[5], y[5];
            for (j = 0; j < R; j++) a[j] = base[j * L];
            if (!dif)
                for (j = 1; j < R; j++) a[j] = gk__cmul(a[j], gk__expi(sgn * 2 * pi * (double)(j * q) / N));
            for (mm = 0; mm < R; mm++) {
                gk__cd acc = a[0];
                for (j = 1; j < R; j++) {
                    int e = (j * mm) % R;
                    acc.re += a[j].re * cs[e] - a[j].im * sn[e];
                    acc.im += a[j].re * sn[e] + a[j].im * cs[e];
                }
                y[mm] = acc;
            }
            if (dif)
                for (j = 1; j < R; j++) y[j] = gk__cmul(y[j], gk__expi(sgn * 2 * pi * (double)(j * q) / N));
            for (j = 0; j < R; j++) base[j * L] = y[j];
        }
    }
}
static double gk__fft_win_cpu(const gk__fftp *P, const float *win, int k) {
    if (P->has_window) return win[k];
    return 0.5 - 0.5 * cos(2 * 3.14159265358979323846 * k / P->n);
}
static gk__cd gk__fft_load_cpu(const gk__fftp *P, const float *in, const float *win, int64_t row, int idx) {
    gk__cd v;
    int n = P->n;
    v.re = 0; v.im = 0;
    switch (P->in_mode) {
    case GK__FI_COMPLEX: v.re = in[(row * n + idx) * 2]; v.im = in[(row * n + idx) * 2 + 1]; break;
    case GK__FI_REAL: v.re = in[row * n + idx]; break;
    case GK__FI_HALF:
    case GK__FI_SPEC: {
        int h = n / 2 + 1, k = idx <= n / 2 ? idx : n - idx;
        const float *p;
        if (P->in_mode == GK__FI_HALF) p = in + (row * h + k) * 2;
        else {
            int64_t b = row / P->nframes, t = row - b * P->nframes;
            p = in + ((b * h + k) * P->nframes + t) * 2;
        }
        v.re = p[0];
        v.im = (k == 0 || 2 * k == n) ? 0.0 : idx <= n / 2 ? p[1] : -p[1];
        break;
    }
    default: {
        int64_t b = row / P->nframes, t = row - b * P->nframes;
        int64_t pos = t * P->hop + idx - (P->center ? n / 2 : 0);
        if (pos < 0) pos = -pos;
        if (pos >= P->sig_len) pos = 2 * (P->sig_len - 1) - pos;
        v.re = (pos < P->sig_avail ? in[b * P->sig_stride + pos] : 0.0f) * gk__fft_win_cpu(P, win, idx);
        break;
    }
    }
    return v;
}
static void gk__fft_store_cpu(const gk__fftp *P, float *out, const float *win, int64_t row, int k, gk__cd v) {
    int n = P->n, h = n / 2 + 1;
    v.re *= P->scale;
    v.im *= P->scale;
    switch (P->out_mode) {
    case GK__FO_COMPLEX: out[(row * n + k) * 2] = (float)v.re; out[(row * n + k) * 2 + 1] = (float)v.im; break;
    case GK__FO_HALF: if (k < h) { out[(row * h + k) * 2] = (float)v.re; out[(row * h + k) * 2 + 1] = (float)v.im; } break;
    case GK__FO_REAL: out[row * n + k] = (float)v.re; break;
    case GK__FO_SPEC:
        if (k < h) {
            int64_t b = row / P->nframes, t = row - b * P->nframes;
            out[((b * h + k) * P->nframes + t) * 2] = (float)v.re;
            out[((b * h + k) * P->nframes + t) * 2 + 1] = (float)v.im;
        }
        break;
    case GK__FO_POWER: if (k < h) out[row * h + k] = (float)(v.re * v.re + v.im * v.im); break;
    default: out[row * n + k] = (float)(v.re * gk__fft_win_cpu(P, win, k)); break;
    }
}
/* scratch: 2 m complex doubles */
static void gk__fft_run_cpu(const gk__fftp *P, float *out, const float *in, const float *win, gk__cd *ws) {
    const double pi = 3.14159265358979323846;
    gk__cd *buf = ws, *bhat = ws + P->m;
    double sgn = P->inverse ? 1.0 : -1.0;
    int64_t row;
    int p, n = P->n, m = P->m;
    if (P->blue) {
        for (p = 0; p < m; p++) {
            int j = gk__fft_rev(p, P), jj = j < n ? j : (j > m - n ? m - j : -1);
            buf[p].re = 0; buf[p].im = 0;
            if (jj >= 0) buf[p] = gk__expi(-sgn * pi * (double)(((int64_t)jj * jj) % (2 * n)) / n);
        }
        gk__fft_stages_cpu(buf, P, -1.0, 0);
        for (p = 0; p < m; p++) { bhat[p].re = buf[p].re / m; bhat[p].im = buf[p].im / m; }
    }
    for (row = 0; row < P->batch; row++) {
        if (!P->blue) {
            for (p = 0; p < m; p++) buf[p] = gk__fft_load_cpu(P, in, win, row, gk__fft_rev(p, P));
            gk__fft_stages_cpu(buf, P, sgn, 0);
            for (p = 0; p < n; p++) gk__fft_store_cpu(P, out, win, row, p, buf[p]);
        } else {
            for (p = 0; p < m; p++) {
                buf[p].re = 0; buf[p].im = 0;
                if (p < n) buf[p] = gk__cmul(gk__fft_load_cpu(P, in, win, row, p), gk__expi(sgn * pi * (double)(((int64_t)p * p) % (2 * n)) / n));
            }
            gk__fft_stages_cpu(buf, P, -1.0, 1);
            for (p = 0; p < m; p++) buf[p] = gk__cmul(buf[p], bhat[gk__fft_rev(p, P)]);
            gk__fft_stages_cpu(buf, P, 1.0, 0);
            for (p = 0; p < n; p++)
                gk__fft_store_cpu(P, out, win, row, p, gk__cmul(buf[p], gk__expi(sgn * pi * (double)(((int64_t)p * p) % (2 * n)) / n)));
        }
    }
}

/* One thunk for every FFT-based op on the CPU: the transform, then (op)
   iSTFT overlap-add or the Whisper mel/log/clamp stages. */
enum { GK__SG_FFT = 0, GK__SG_ISTFT, GK__SG_WMEL };
typedef struct gk__fft_cpu_p {
    gk__fftp P;
    int op;
    float *out, *tmp;       /* tmp: frames (iSTFT) or power (Whisper) */
    const float *in, *win, *filt;
    gk__cd *ws;
    int64_t B, len;         /* iSTFT: signals, output length */
    int M;                  /* Whisper: mel bins */
} gk__fft_cpu_p;
static void gk__istft_ola_cpu(const gk__fftp *P, float *out, const float *frames, const float *win, int64_t B, int64_t len) {
    int n = P->n;
    int64_t pad = P->center ? n / 2 : 0, T = P->nframes, hop = P->hop, i;
    for (i = 0; i < B * len; i++) {
        int64_t b = i / len, j = i - b * len, jp = j + pad, t1 = jp / hop, t0 = jp - n + 1 <= 0 ? 0 : (jp - n + 1 + hop - 1) / hop, t;
        double s = 0, env = 0;
        if (t1 > T - 1) t1 = T - 1;
        for (t = t0; t <= t1; t++) {
            int k = (int)(jp - t * hop);
            double w = gk__fft_win_cpu(P, win, k);
            s += frames[(b * T + t) * n + k];
            env += w * w;
        }
        out[i] = env > 1e-11 ? (float)(s / env) : 0.0f;
    }
}
static int gk__fft_cpu(const void *vp) {
    const gk__fft_cpu_p *q = (const gk__fft_cpu_p *)vp;
    if (q->op == GK__SG_FFT) { gk__fft_run_cpu(&q->P, q->out, q->in, q->win, q->ws); return 0; }
    gk__fft_run_cpu(&q->P, q->tmp, q->in, q->win, q->ws);
    if (q->op == GK__SG_ISTFT) { gk__istft_ola_cpu(&q->P, q->out, q->tmp, q->win, q->B, q->len); return 0; }
    {
        int64_t T = q->P.nframes, b, t, F = q->P.n / 2 + 1, k;
        int mm;
        for (b = 0; b < q->B; b++) {
            double mx = -1e300;
            float *o = q->out + b * q->M * T;
            for (mm = 0; mm < q->M; mm++)
                for (t = 0; t < T; t++) {
                    double acc = 0;
                    for (k = 0; k < F; k++) acc += (double)q->filt[mm * F + k] * q->tmp[(b * T + t) * F + k];
                    o[mm * T + t] = (float)log10(acc > 1e-10 ? acc : 1e-10);
                    if (o[mm * T + t] > mx) mx = o[mm * T + t];
                }
            for (t = 0; t < q->M * T; t++) o[t] = (float)(((o[t] > mx - 8.0 ? o[t] : (float)(mx - 8.0)) + 4.0) / 4.0);
        }
    }
    return 0;
}

/* CUDA, transforms larger than shared memory: every stage is a launch over
   the global buffer buf [rows][m] (see gk_fft_g_* in src/ops/signal/fft.cu). */
static gk_status gk__fft_gstages(gk_ctx *ctx, gk__cu_ptr buf, int64_t rows, const gk__fftp *P, float sgn, int dif, const char *where) {
    int Ls[16], L = 1, k, kk, m = P->m;
    for (k = 0; k < P->nf; k++) { Ls[k] = L; L *= P->f[k]; }
    for (kk = 0; kk < P->nf; kk++) {
        int R;
        void *args[7];
        k = dif ? P->nf - 1 - kk : kk;
        R = P->f[k];
        L = Ls[k];
        args[0] = &buf; args[1] = &rows; args[2] = &m; args[3] = &L; args[4] = &R; args[5] = &sgn; args[6] = &dif;
        GK__TRY(gk__launch(ctx, GK__MOD_FFT, "gk_fft_g_stage", rows * (m / R), args, where));
    }
    return GK_OK;
}
static gk_status gk__fft_global(gk_ctx *ctx, gk__fftp *P, gk__cu_ptr dst, gk__cu_ptr in, gk__cu_ptr win, gk__cu_ptr bhat, gk__cu_ptr buf,
                                const char *where) {
    void *args[5];
    int what;
    float sgn = P->inverse ? 1.0f : -1.0f, sc = 1.0f / (float)P->m;
    args[0] = P; args[2] = &in; args[3] = &win; args[4] = &what;
    if (P->blue) {
        what = 2;
        args[1] = &bhat;
        GK__TRY(gk__launch(ctx, GK__MOD_FFT, "gk_fft_g_load", P->m, args, where));
        GK__TRY(gk__fft_gstages(ctx, bhat, 1, P, -1.0f, 0, where));
        what = 1;
        args[1] = &buf;
        GK__TRY(gk__launch(ctx, GK__MOD_FFT, "gk_fft_g_load", P->batch * P->m, args, where));
        GK__TRY(gk__fft_gstages(ctx, buf, P->batch, P, -1.0f, 1, where));
        args[1] = &buf; args[2] = &bhat; args[3] = &sc;
        GK__TRY(gk__launch(ctx, GK__MOD_FFT, "gk_fft_g_mul", P->batch * P->m, args, where));
        GK__TRY(gk__fft_gstages(ctx, buf, P->batch, P, 1.0f, 0, where));
    } else {
        what = 0;
        args[1] = &buf;
        GK__TRY(gk__launch(ctx, GK__MOD_FFT, "gk_fft_g_load", P->batch * P->m, args, where));
        GK__TRY(gk__fft_gstages(ctx, buf, P->batch, P, sgn, 0, where));
    }
    args[0] = P; args[1] = &dst; args[2] = &buf; args[3] = &win;
    return gk__launch(ctx, GK__MOD_FFT, "gk_fft_g_store", P->batch * P->n, args, where);
}

/* Issues a transform (P complete) plus its follow-up stage. addresses:
   out, in, win (0: Hann), filt; tmp_bytes: frames / power scratch. */
/* shared memory of gk_stft_pairs with np frame pairs per block (its layout) */
static size_t gk__stft_pairs_smem(const gk__fftp *P, int np) {
    return (size_t)np * (size_t)(P->m + 1) * 8 + (size_t)P->m * 12 + (size_t)P->n * 4 + 8 + (size_t)np * 48;
}
static gk_status gk__fft_issue(gk_ctx *ctx, gk__fftp *P, int op, gk__cu_ptr out, gk__cu_ptr in, gk__cu_ptr win, gk__cu_ptr filt,
                               int64_t B, int64_t len, int M, const char *where) {
    gk__cu_ptr ws = 0;
    size_t tmp_bytes = 0, o_fft;
    gk_status st;
    if (op == GK__SG_ISTFT) tmp_bytes = sizeof(float) * (size_t)P->batch * (size_t)P->n;
    if (op == GK__SG_WMEL) tmp_bytes = sizeof(float) * (size_t)P->batch * (size_t)(P->n / 2 + 1) + 256 + sizeof(unsigned) * (size_t)B;
    o_fft = gk__al256(tmp_bytes);
    P->has_window = win != 0;
    if (ctx->backend == GK_BACKEND_CPU) {
        gk__fft_cpu_p q;
        GK__TRY(gk__workspace(ctx, o_fft + sizeof(gk__cd) * 2 * (size_t)P->m, &ws, where));
        memset(&q, 0, sizeof q);
        q.P = *P; q.op = op;
        q.out = (float *)(uintptr_t)out; q.tmp = (float *)(uintptr_t)ws;
        q.in = (const float *)(uintptr_t)in; q.win = (const float *)(uintptr_t)win; q.filt = (const float *)(uintptr_t)filt;
        q.ws = (gk__cd *)(uintptr_t)(ws + o_fft);
        q.B = B; q.len = len; q.M = M;
        st = gk__cpu_run(ctx, gk__fft_cpu, &q, sizeof q, where);
    } else {
        unsigned grid[3] = { 1, 1, 1 }, block[3] = { 64, 1, 1 }, smem = (unsigned)P->m * 8;
        int np;
        /* twiddle + window tables next to the data when they fit too */
        long long smem_t = (long long)P->m * 16 + (long long)P->n * 4;
        gk__cu_ptr bhat, dst;
        int64_t g;
        void *args[6];
        /* one block per transform in shared memory when it fits, else the global-memory stages */
        int global = (long long)P->m * 8 > (long long)ctx->info.max_smem_per_block_optin;
        size_t o_buf = o_fft + (P->blue ? gk__al256((size_t)P->m * 8) : 0);
        gk__cu_ptr gbuf;
        GK__TRY(gk__workspace(ctx, o_buf + (global ? (size_t)P->batch * (size_t)P->m * 8 : 0), &ws, where));
        bhat = ws + o_fft;
        gbuf = ws + o_buf;
        dst = op == GK__SG_FFT ? out : ws;
        while (block[0] < 256 && (int)block[0] * 4 < P->m) block[0] *= 2;
        st = GK_OK;
        /* STFT frames into the torch layout or the power spectrum: two real frames per complex FFT,
           several pairs per block (gk_stft_pairs), when the length is 2/3/5-smooth and it fits in 48 KiB */
        np = P->m <= 512 ? 8 : P->m <= 1024 ? 2 : 1;
        while (np > 0 && gk__stft_pairs_smem(P, np) > 48 * 1024) np--;
        if (!P->blue && P->in_mode == GK__FI_FRAMES && (P->out_mode == GK__FO_SPEC || P->out_mode == GK__FO_POWER) && np > 0) {
            int64_t tiles = (P->batch + 2 * np - 1) / (2 * np), gmax = (int64_t)ctx->info.sm_count * 16;
            unsigned sblock[3] = { 128, 1, 1 };
            gk__cu_function f;
            int per_sm = 0;
            if (P->m * np > 2048) sblock[0] = 256;
            /* as many blocks as are resident at once, each over several tiles: the tables are built once a block */
            if (gk__lib_function(ctx, GK__MOD_FFT, "gk_stft_pairs", &f, where) == GK_OK &&
                ctx->cu.OccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, (int)sblock[0], gk__stft_pairs_smem(P, np)) == 0 && per_sm > 0)
                gmax = (int64_t)per_sm * ctx->info.sm_count;
            grid[0] = (unsigned)(tiles < gmax ? tiles : gmax);
            args[0] = P; args[1] = &dst; args[2] = &in; args[3] = &win; args[4] = &np;
            st = gk__launch_cfg(ctx, GK__MOD_FFT, "gk_stft_pairs", grid, sblock, (unsigned)gk__stft_pairs_smem(P, np), args, where);
        } else if (global) st = gk__fft_global(ctx, P, dst, in, win, bhat, gbuf, where);
        else {
            if (P->blue) {
                args[0] = P; args[1] = &bhat;
                st = gk__launch_cfg(ctx, GK__MOD_FFT, "gk_fft_chirp", grid, block, smem, args, where);
            }
            g = P->batch < (int64_t)ctx->info.sm_count * 32 ? P->batch : (int64_t)ctx->info.sm_count * 32;
            grid[0] = (unsigned)(g > 0 ? g : 1);
            P->tw_table = smem_t <= (long long)ctx->info.max_smem_per_block_optin;
            args[0] = P; args[1] = &dst; args[2] = &in; args[3] = &win; args[4] = &bhat;
            if (st == GK_OK) st = gk__launch_cfg(ctx, GK__MOD_FFT, "gk_fft_run", grid, block, P->tw_table ? (unsigned)smem_t : smem, args, where);
            P->tw_table = 0;
        }
        if (st == GK_OK && op == GK__SG_ISTFT) {
            args[0] = P; args[1] = &out; args[2] = &ws; args[3] = &win; args[4] = &B; args[5] = &len;
            st = gk__launch(ctx, GK__MOD_FFT, "gk_istft_ola", B * len, args, where);
        }
        if (st == GK_OK && op == GK__SG_WMEL) {
            int F = P->n / 2 + 1;
            int64_t T = P->nframes, per = (int64_t)M * T, nn = B * per;
            gk__cu_ptr mx = ws + gk__al256(sizeof(float) * (size_t)P->batch * (size_t)F);
            unsigned mblock[3] = { 256, 1, 1 }, mgrid[3] = { 1, 1, 1 };
            st = gk__sg_launch_err(ctx, ctx->cu.MemsetD8Async(mx, 0, sizeof(unsigned) * (size_t)B, ctx->cur_stream->cu), where, "cuMemsetD8Async");
            mgrid[0] = (unsigned)((T + 31) / 32);
            mgrid[1] = (unsigned)B;
            args[0] = &out; args[1] = &ws; args[2] = &filt; args[3] = &mx; args[4] = &F; args[5] = &M;
            {
                void *a7[7];
                a7[0] = &out; a7[1] = &ws; a7[2] = &filt; a7[3] = &mx; a7[4] = &F; a7[5] = &M; a7[6] = &T;
                if (st == GK_OK) st = gk__launch_cfg(ctx, GK__MOD_FFT, "gk_wmel_log", mgrid, mblock, (unsigned)(sizeof(float) * 32 * (size_t)F), a7, where);
            }
            args[0] = &out; args[1] = &mx; args[2] = &per; args[3] = &nn;
            if (st == GK_OK) st = gk__launch(ctx, GK__MOD_FFT, "gk_wmel_norm", nn, args, where);
        }
    }
    gk__unuse(ctx, ctx->ws);
    return st;
}

/* checks shared by the FFT entries: f32, contiguous operands */
static gk_status gk__fft_enter(gk_ctx *ctx, gk__opnds *ops, const gk_tensor *ts, const char *const *names, int n, unsigned optional,
                               const char *where) {
    GK__TRY(gk__sg_operands(ctx, ops, ts, names, n, optional, where));
    return gk__sg_check(ctx, ops, names, 0, where);
}
static int gk__same_dims(const gk__slot *a, int na, const gk__slot *b, int nb, int count) {
    return memcmp(a->shape + na, b->shape + nb, sizeof(int64_t) * (size_t)count) == 0;
}

/* kind: 0 fft, 1 rfft, 2 irfft */
static gk_status gk__fft_op(gk_ctx *ctx, gk_tensor out, gk_tensor x, int kind, int inverse, const char *where) {
    static const char *const names[2] = { "out", "x" };
    gk_tensor ts[2];
    gk__opnds ops;
    gk__fftp P;
    gk_status st;
    int64_t n = 0;
    ts[0] = out; ts[1] = x;
    GK__ENTER(ctx, where);
    memset(&P, 0, sizeof P);
    st = gk__fft_enter(ctx, &ops, ts, names, 2, 0, where);
    if (st == GK_OK) {
        const gk__slot *so = ops.s[0], *sx = ops.s[1];
        if (kind == 0) {
            if (sx->ndim < 2 || sx->shape[sx->ndim - 1] != 2) st = gk__sg_shape_err(ctx, sx, "x", "[..., n, 2] (complex)", where);
            else if (so->ndim != sx->ndim || !gk__same_dims(so, 0, sx, 0, sx->ndim)) st = gk__err(ctx, GK_ERR_SHAPE, "%s: out and x differ in shape", where);
            else n = sx->shape[sx->ndim - 2];
        } else if (kind == 1) {
            if (sx->ndim < 1) st = gk__sg_shape_err(ctx, sx, "x", "[..., n]", where);
            else {
                n = sx->shape[sx->ndim - 1];
                if (so->ndim != sx->ndim + 1 || !gk__same_dims(so, 0, sx, 0, sx->ndim - 1) || so->shape[so->ndim - 2] != n / 2 + 1 ||
                    so->shape[so->ndim - 1] != 2)
                    st = gk__sg_shape_err(ctx, so, "out", "[..., n/2+1, 2] for x [..., n]", where);
            }
        } else {
            if (so->ndim < 1) st = gk__sg_shape_err(ctx, so, "out", "[..., n]", where);
            else {
                n = so->shape[so->ndim - 1];
                if (sx->ndim != so->ndim + 1 || !gk__same_dims(sx, 0, so, 0, so->ndim - 1) || sx->shape[sx->ndim - 2] != n / 2 + 1 ||
                    sx->shape[sx->ndim - 1] != 2)
                    st = gk__sg_shape_err(ctx, sx, "x", "[..., n/2+1, 2] for out [..., n]", where);
            }
        }
    }
    if (st == GK_OK) st = gk__fft_plan(ctx, &P, n, inverse, where);
    if (st == GK_OK) {
        P.batch = kind == 2 ? gk__numel(ops.s[0]) / n : kind == 1 ? gk__numel(ops.s[1]) / n : gk__numel(ops.s[1]) / (2 * n);
        P.in_mode = kind == 0 ? GK__FI_COMPLEX : kind == 1 ? GK__FI_REAL : GK__FI_HALF;
        P.out_mode = kind == 0 ? GK__FO_COMPLEX : kind == 1 ? GK__FO_HALF : GK__FO_REAL;
        P.scale = inverse ? 1.0f / (float)n : 1.0f;
    }
    if (st == GK_OK && P.batch == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__sg_use(ctx, &ops, where);
    if (st == GK_OK) st = gk__fft_issue(ctx, &P, GK__SG_FFT, gk__slot_addr(ops.s[0]), gk__slot_addr(ops.s[1]), 0, 0, 0, 0, 0, where);
    gk__sg_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_fft(gk_ctx *ctx, gk_tensor out, gk_tensor x, int inverse) { return gk__fft_op(ctx, out, x, 0, inverse != 0, "gk_fft"); }
GKDEF gk_status gk_rfft(gk_ctx *ctx, gk_tensor out, gk_tensor x) { return gk__fft_op(ctx, out, x, 1, 0, "gk_rfft"); }
GKDEF gk_status gk_irfft(gk_ctx *ctx, gk_tensor out, gk_tensor x) { return gk__fft_op(ctx, out, x, 2, 1, "gk_irfft"); }

/* _new of the FFT family: out shape from x's with the last dims replaced */
static gk_status gk__sg_new_from(gk_ctx *ctx, gk_tensor x, int drop, int nadd, const int64_t *add, int dt, gk_tensor *out, int64_t *xs,
                                 int *xnd, const char *where) {
    int64_t shape[GK_MAX_DIMS + 4];
    int nd = 0, i;
    gk_status st;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", where);
    GK__TRY(gk__sg_shape(ctx, x, &nd, shape, NULL, "x", where));
    if (xs) memcpy(xs, shape, sizeof(int64_t) * GK_MAX_DIMS);
    if (xnd) *xnd = nd;
    if (nd < drop || nd - drop + nadd > GK_MAX_DIMS) {
        gk__enter(ctx);
        st = gk__err(ctx, GK_ERR_SHAPE, "%s: x has %d dims", where, nd);
        gk__unlock(&ctx->mu);
        return st;
    }
    nd -= drop;
    for (i = 0; i < nadd; i++) shape[nd++] = add[i];
    return gk__sg_alloc(ctx, x, dt, nd, shape, out, where);
}
GKDEF gk_status gk_fft_new(gk_ctx *ctx, gk_tensor x, int inverse, gk_tensor *out) {
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", "gk_fft_new");
    GK__TRY(gk__sg_new_from(ctx, x, 0, 0, NULL, GK_F32, &t, NULL, NULL, "gk_fft_new"));
    return gk__finish_new(ctx, gk_fft(ctx, t, x, inverse), t, out);
}
GKDEF gk_status gk_rfft_new(gk_ctx *ctx, gk_tensor x, gk_tensor *out) {
    int64_t s[GK_MAX_DIMS], add[2];
    int nd = 0;
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_rfft_new: out is NULL");
    GK__TRY(gk__sg_shape(ctx, x, &nd, s, NULL, "x", "gk_rfft_new"));
    add[0] = nd > 0 ? s[nd - 1] / 2 + 1 : 0;
    add[1] = 2;
    GK__TRY(gk__sg_new_from(ctx, x, nd > 0 ? 1 : 0, 2, add, GK_F32, &t, NULL, NULL, "gk_rfft_new"));
    return gk__finish_new(ctx, gk_rfft(ctx, t, x), t, out);
}
GKDEF gk_status gk_irfft_new(gk_ctx *ctx, gk_tensor x, int64_t n, gk_tensor *out) {
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", "gk_irfft_new");
    if (n < 0) n = 0;
    GK__TRY(gk__sg_new_from(ctx, x, 2, 1, &n, GK_F32, &t, NULL, NULL, "gk_irfft_new"));
    return gk__finish_new(ctx, gk_irfft(ctx, t, x), t, out);
}

/* >>signal_stft: STFT / iSTFT, Whisper log-mel, complex magnitude and phase */
/* ---- STFT / iSTFT / Whisper ---- */
static gk_status gk__stft_params(gk_ctx *ctx, int64_t n_fft, int64_t hop, const char *where) {
    if (n_fft < 2) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: n_fft %lld (needs at least 2)", where, (long long)n_fft);
    if (hop < 1) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: hop %lld (needs at least 1)", where, (long long)hop);
    return GK_OK;
}
/* frames of a signal of length L, or -1 (with the error set) */
static int64_t gk__stft_frames(gk_ctx *ctx, int64_t L, int64_t n_fft, int64_t hop, int center, const char *where) {
    int64_t pad = center ? n_fft / 2 : 0;
    if (center && L <= pad) {
        gk__err(ctx, GK_ERR_SHAPE, "%s: signal of %lld samples is too short for reflect padding of %lld (n_fft %lld)", where, (long long)L,
                (long long)pad, (long long)n_fft);
        return -1;
    }
    if (L + 2 * pad < n_fft) {
        gk__err(ctx, GK_ERR_SHAPE, "%s: n_fft %lld is larger than the padded signal (%lld samples)", where, (long long)n_fft, (long long)(L + 2 * pad));
        return -1;
    }
    return 1 + (L + 2 * pad - n_fft) / hop;
}
static gk_status gk__window_check(gk_ctx *ctx, const gk__slot *w, int64_t n_fft, const char *where) {
    if (w && (w->ndim != 1 || w->shape[0] != n_fft))
        return gk__err(ctx, GK_ERR_SHAPE, "%s: window has %lld elements in %d dims, expected [n_fft = %lld]", where, (long long)gk__numel(w), w->ndim,
                       (long long)n_fft);
    return GK_OK;
}
GKDEF gk_status gk_stft(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor window, int64_t n_fft, int64_t hop, int center) {
    static const char *const names[3] = { "out", "x", "window" };
    const char *where = "gk_stft";
    gk_tensor ts[3];
    gk__opnds ops;
    gk__fftp P;
    gk_status st;
    int64_t B = 1, L = 0, T = 0;
    ts[0] = out; ts[1] = x; ts[2] = window;
    GK__ENTER(ctx, where);
    memset(&P, 0, sizeof P);
    st = gk__fft_enter(ctx, &ops, ts, names, 3, 4u, where);
    if (st == GK_OK) st = gk__stft_params(ctx, n_fft, hop, where);
    if (st == GK_OK) st = gk__window_check(ctx, ops.s[2], n_fft, where);
    if (st == GK_OK) {
        const gk__slot *sx = ops.s[1], *so = ops.s[0];
        if (sx->ndim != 1 && sx->ndim != 2) st = gk__sg_shape_err(ctx, sx, "x", "[L] or [B, L]", where);
        else {
            B = sx->ndim == 2 ? sx->shape[0] : 1;
            L = sx->shape[sx->ndim - 1];
            T = gk__stft_frames(ctx, L, n_fft, hop, center, where);
            if (T < 0) st = GK_ERR_SHAPE;
            else {
                int64_t want[4];
                char wb[128];
                int nd = 0;
                if (sx->ndim == 2) want[nd++] = B;
                want[nd++] = n_fft / 2 + 1; want[nd++] = T; want[nd++] = 2;
                if (so->ndim != nd || memcmp(so->shape, want, sizeof(int64_t) * (size_t)nd) != 0) {
                    snprintf(wb, sizeof wb, "[%s%lld, %lld, 2]", sx->ndim == 2 ? "B, " : "", (long long)(n_fft / 2 + 1), (long long)T);
                    st = gk__sg_shape_err(ctx, so, "out", wb, where);
                }
            }
        }
    }
    if (st == GK_OK) st = gk__fft_plan(ctx, &P, n_fft, 0, where);
    if (st == GK_OK && B == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) {
        P.in_mode = GK__FI_FRAMES; P.out_mode = GK__FO_SPEC; P.scale = 1.0f; P.center = center != 0;
        P.batch = B * T; P.nframes = T; P.hop = hop; P.sig_len = L; P.sig_avail = L; P.sig_stride = L;
        st = gk__sg_use(ctx, &ops, where);
    }
    if (st == GK_OK)
        st = gk__fft_issue(ctx, &P, GK__SG_FFT, gk__slot_addr(ops.s[0]), gk__slot_addr(ops.s[1]), ops.s[2] ? gk__slot_addr(ops.s[2]) : 0, 0, 0, 0,
                           0, where);
    gk__sg_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_stft_new(gk_ctx *ctx, gk_tensor x, gk_tensor window, int64_t n_fft, int64_t hop, int center, gk_tensor *out) {
    int64_t s[GK_MAX_DIMS], add[3], T;
    int nd = 0;
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_stft_new: out is NULL");
    GK__TRY(gk__sg_shape(ctx, x, &nd, s, NULL, "x", "gk_stft_new"));
    gk__enter(ctx);
    if (gk__stft_params(ctx, n_fft, hop, "gk_stft_new") != GK_OK) T = -2;
    else if (nd < 1) { gk__err(ctx, GK_ERR_SHAPE, "gk_stft_new: x has no dims"); T = -1; }
    else T = gk__stft_frames(ctx, s[nd - 1], n_fft, hop, center, "gk_stft_new");
    gk__unlock(&ctx->mu);
    if (T == -2) return GK_ERR_INVALID_ARGUMENT;
    if (T < 0) return GK_ERR_SHAPE;
    add[0] = n_fft / 2 + 1; add[1] = T; add[2] = 2;
    GK__TRY(gk__sg_new_from(ctx, x, 1, 3, add, GK_F32, &t, NULL, NULL, "gk_stft_new"));
    return gk__finish_new(ctx, gk_stft(ctx, t, x, window, n_fft, hop, center), t, out);
}
GKDEF gk_status gk_istft(gk_ctx *ctx, gk_tensor out, gk_tensor spec, gk_tensor window, int64_t n_fft, int64_t hop, int center) {
    static const char *const names[3] = { "out", "spec", "window" };
    const char *where = "gk_istft";
    gk_tensor ts[3];
    gk__opnds ops;
    gk__fftp P;
    gk_status st;
    int64_t B = 1, T = 0, len = 0;
    ts[0] = out; ts[1] = spec; ts[2] = window;
    GK__ENTER(ctx, where);
    memset(&P, 0, sizeof P);
    st = gk__fft_enter(ctx, &ops, ts, names, 3, 4u, where);
    if (st == GK_OK) st = gk__stft_params(ctx, n_fft, hop, where);
    if (st == GK_OK) st = gk__window_check(ctx, ops.s[2], n_fft, where);
    if (st == GK_OK) {
        const gk__slot *sx = ops.s[1], *so = ops.s[0];
        int bat = sx->ndim == 4;
        if ((sx->ndim != 3 && sx->ndim != 4) || sx->shape[sx->ndim - 1] != 2 || sx->shape[sx->ndim - 3] != n_fft / 2 + 1)
            st = gk__sg_shape_err(ctx, sx, "spec", "[(B,) n_fft/2+1, frames, 2]", where);
        else if (so->ndim != 1 + bat || (bat && so->shape[0] != sx->shape[0]))
            st = gk__sg_shape_err(ctx, so, "out", bat ? "[B, length]" : "[length]", where);
        else {
            B = bat ? sx->shape[0] : 1;
            T = sx->shape[sx->ndim - 2];
            len = so->shape[so->ndim - 1];
            if (T < 1) st = gk__err(ctx, GK_ERR_SHAPE, "%s: spec has no frames", where);
            else if (hop > n_fft) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: hop %lld > n_fft %lld leaves gaps", where, (long long)hop, (long long)n_fft);
        }
    }
    if (st == GK_OK) st = gk__fft_plan(ctx, &P, n_fft, 1, where);
    if (st == GK_OK && (B == 0 || len == 0)) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) {
        P.in_mode = GK__FI_SPEC; P.out_mode = GK__FO_WREAL; P.scale = 1.0f / (float)n_fft; P.center = center != 0;
        P.batch = B * T; P.nframes = T; P.hop = hop;
        st = gk__sg_use(ctx, &ops, where);
    }
    if (st == GK_OK)
        st = gk__fft_issue(ctx, &P, GK__SG_ISTFT, gk__slot_addr(ops.s[0]), gk__slot_addr(ops.s[1]), ops.s[2] ? gk__slot_addr(ops.s[2]) : 0, 0, B,
                           len, 0, where);
    gk__sg_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_istft_new(gk_ctx *ctx, gk_tensor spec, gk_tensor window, int64_t n_fft, int64_t hop, int center, int64_t length,
                             gk_tensor *out) {
    int64_t s[GK_MAX_DIMS];
    int nd = 0;
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_istft_new: out is NULL");
    GK__TRY(gk__sg_shape(ctx, spec, &nd, s, NULL, "spec", "gk_istft_new"));
    if (length < 0) {
        int64_t T = nd >= 2 ? s[nd - 2] : 1;
        length = n_fft + hop * (T - 1) - 2 * (center ? n_fft / 2 : 0);
        if (length < 0) length = 0;
    }
    GK__TRY(gk__sg_new_from(ctx, spec, nd >= 3 ? 3 : nd, 1, &length, GK_F32, &t, NULL, NULL, "gk_istft_new"));
    return gk__finish_new(ctx, gk_istft(ctx, t, spec, window, n_fft, hop, center), t, out);
}

GKDEF gk_status gk_whisper_log_mel(gk_ctx *ctx, gk_tensor out, gk_tensor audio, gk_tensor filters, int64_t n_samples) {
    static const char *const names[3] = { "out", "audio", "filters" };
    const char *where = "gk_whisper_log_mel";
    gk_tensor ts[3];
    gk__opnds ops;
    gk__fftp P;
    gk_status st;
    int64_t B = 1, L = 0, T = 0, M = 0;
    ts[0] = out; ts[1] = audio; ts[2] = filters;
    GK__ENTER(ctx, where);
    memset(&P, 0, sizeof P);
    st = gk__fft_enter(ctx, &ops, ts, names, 3, 0, where);
    if (st == GK_OK) {
        const gk__slot *sx = ops.s[1], *so = ops.s[0], *sf = ops.s[2];
        if (sx->ndim != 1 && sx->ndim != 2) st = gk__sg_shape_err(ctx, sx, "audio", "[L] or [B, L]", where);
        else if (sf->ndim != 2 || sf->shape[1] != 201 || sf->shape[0] < 1 || sf->shape[0] > 4096)
            st = gk__sg_shape_err(ctx, sf, "filters", "[n_mels, 201]", where);
        else {
            B = sx->ndim == 2 ? sx->shape[0] : 1;
            L = sx->shape[sx->ndim - 1];
            M = sf->shape[0];
            if (n_samples <= 0) n_samples = L;
            if (n_samples <= 200)
                st = gk__err(ctx, GK_ERR_SHAPE, "%s: %lld samples are too few (at least 201 for the reflect padding of n_fft 400)", where, (long long)n_samples);
            else {
                int64_t want[3];
                char wb[128];
                int nd = 0;
                T = n_samples / 160;
                if (sx->ndim == 2) want[nd++] = B;
                want[nd++] = M; want[nd++] = T;
                if (so->ndim != nd || memcmp(so->shape, want, sizeof(int64_t) * (size_t)nd) != 0) {
                    snprintf(wb, sizeof wb, "[%s%lld, %lld]", sx->ndim == 2 ? "B, " : "", (long long)M, (long long)T);
                    st = gk__sg_shape_err(ctx, so, "out", wb, where);
                }
            }
        }
    }
    if (st == GK_OK) st = gk__fft_plan(ctx, &P, 400, 0, where);
    if (st == GK_OK && B == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) {
        P.in_mode = GK__FI_FRAMES; P.out_mode = GK__FO_POWER; P.scale = 1.0f; P.center = 1;
        P.batch = B * T; P.nframes = T; P.hop = 160; P.sig_len = n_samples; P.sig_avail = L < n_samples ? L : n_samples; P.sig_stride = L;
        st = gk__sg_use(ctx, &ops, where);
    }
    if (st == GK_OK)
        st = gk__fft_issue(ctx, &P, GK__SG_WMEL, gk__slot_addr(ops.s[0]), gk__slot_addr(ops.s[1]), 0, gk__slot_addr(ops.s[2]), B, 0, (int)M, where);
    gk__sg_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_whisper_log_mel_new(gk_ctx *ctx, gk_tensor audio, gk_tensor filters, int64_t n_samples, gk_tensor *out) {
    int64_t s[GK_MAX_DIMS], sf[GK_MAX_DIMS], add[2];
    int nd = 0, ndf = 0;
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_log_mel_new: out is NULL");
    GK__TRY(gk__sg_shape(ctx, audio, &nd, s, NULL, "audio", "gk_whisper_log_mel_new"));
    GK__TRY(gk__sg_shape(ctx, filters, &ndf, sf, NULL, "filters", "gk_whisper_log_mel_new"));
    if (n_samples <= 0) n_samples = nd > 0 ? s[nd - 1] : 0;
    add[0] = ndf > 0 ? sf[0] : 0;
    add[1] = n_samples / 160;
    GK__TRY(gk__sg_new_from(ctx, audio, nd > 0 ? 1 : 0, 2, add, GK_F32, &t, NULL, NULL, "gk_whisper_log_mel_new"));
    return gk__finish_new(ctx, gk_whisper_log_mel(ctx, t, audio, filters, n_samples), t, out);
}

/* ---- magnitude and phase ---- */
typedef struct gk__cabs_p { int64_t n; float *out; const float *z, *ph; int angle; } gk__cabs_p;
static int gk__cabs_cpu(const void *vp) {
    const gk__cabs_p *p = (const gk__cabs_p *)vp;
    int64_t i;
    if (p->angle == 2) { /* polar: out complex, z = magnitudes */
        for (i = 0; i < p->n; i++) {
            double ph = p->ph[i];
            p->out[2 * i] = (float)(p->z[i] * cos(ph));
            p->out[2 * i + 1] = (float)(p->z[i] * sin(ph));
        }
        return 0;
    }
    for (i = 0; i < p->n; i++) p->out[i] = p->angle ? atan2f(p->z[2 * i + 1], p->z[2 * i]) : hypotf(p->z[2 * i], p->z[2 * i + 1]);
    return 0;
}
static gk_status gk__cabs(gk_ctx *ctx, gk_tensor out, gk_tensor z, int angle, const char *where) {
    static const char *const names[2] = { "out", "z" };
    gk_tensor ts[2];
    gk__opnds ops;
    gk__cabs_p p;
    gk_status st;
    ts[0] = out; ts[1] = z;
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__fft_enter(ctx, &ops, ts, names, 2, 0, where);
    if (st == GK_OK) {
        const gk__slot *so = ops.s[0], *sz = ops.s[1];
        if (sz->ndim < 1 || sz->shape[sz->ndim - 1] != 2) st = gk__sg_shape_err(ctx, sz, "z", "[..., 2] (complex)", where);
        else if (so->ndim != sz->ndim - 1 || !gk__same_dims(so, 0, sz, 0, so->ndim)) st = gk__sg_shape_err(ctx, so, "out", "z's shape without its last dim", where);
    }
    if (st == GK_OK) p.n = gk__numel(ops.s[0]);
    if (st == GK_OK && p.n == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__sg_use(ctx, &ops, where);
    if (st == GK_OK) {
        if (ctx->backend == GK_BACKEND_CPU) {
            p.out = (float *)(uintptr_t)gk__slot_addr(ops.s[0]);
            p.z = (const float *)(uintptr_t)gk__slot_addr(ops.s[1]);
            p.angle = angle;
            st = gk__cpu_run(ctx, gk__cabs_cpu, &p, sizeof p, where);
        } else {
            gk__cu_ptr po = gk__slot_addr(ops.s[0]), pz = gk__slot_addr(ops.s[1]);
            void *args[3];
            args[0] = &p.n; args[1] = &po; args[2] = &pz;
            st = gk__launch(ctx, GK__MOD_FFT, angle ? "gk_complex_angle_f32" : "gk_complex_abs_f32", p.n, args, where);
        }
    }
    gk__sg_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_complex_polar(gk_ctx *ctx, gk_tensor out, gk_tensor mag, gk_tensor phase) {
    static const char *const names[3] = { "out", "mag", "phase" };
    const char *where = "gk_complex_polar";
    gk_tensor ts[3];
    gk__opnds ops;
    gk__cabs_p p;
    gk_status st;
    ts[0] = out; ts[1] = mag; ts[2] = phase;
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__fft_enter(ctx, &ops, ts, names, 3, 0, where);
    if (st == GK_OK) {
        const gk__slot *so = ops.s[0], *sm = ops.s[1], *sp = ops.s[2];
        if (sm->ndim != sp->ndim || !gk__same_dims(sm, 0, sp, 0, sm->ndim)) st = gk__err(ctx, GK_ERR_SHAPE, "%s: mag and phase differ in shape", where);
        else if (sm->ndim >= GK_MAX_DIMS || so->ndim != sm->ndim + 1 || !gk__same_dims(so, 0, sm, 0, sm->ndim) || so->shape[so->ndim - 1] != 2)
            st = gk__sg_shape_err(ctx, so, "out", "mag's shape + [2]", where);
    }
    if (st == GK_OK) p.n = gk__numel(ops.s[1]);
    if (st == GK_OK && p.n == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__sg_use(ctx, &ops, where);
    if (st == GK_OK) {
        if (ctx->backend == GK_BACKEND_CPU) {
            p.out = (float *)(uintptr_t)gk__slot_addr(ops.s[0]);
            p.z = (const float *)(uintptr_t)gk__slot_addr(ops.s[1]);
            p.ph = (const float *)(uintptr_t)gk__slot_addr(ops.s[2]);
            p.angle = 2;
            st = gk__cpu_run(ctx, gk__cabs_cpu, &p, sizeof p, where);
        } else {
            gk__cu_ptr po = gk__slot_addr(ops.s[0]), pm = gk__slot_addr(ops.s[1]), pp = gk__slot_addr(ops.s[2]);
            void *args[4];
            args[0] = &p.n; args[1] = &po; args[2] = &pm; args[3] = &pp;
            st = gk__launch(ctx, GK__MOD_FFT, "gk_complex_polar_f32", p.n, args, where);
        }
    }
    gk__sg_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_complex_polar_new(gk_ctx *ctx, gk_tensor mag, gk_tensor phase, gk_tensor *out) {
    int64_t two = 2;
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", "gk_complex_polar_new");
    GK__TRY(gk__sg_new_from(ctx, mag, 0, 1, &two, GK_F32, &t, NULL, NULL, "gk_complex_polar_new"));
    return gk__finish_new(ctx, gk_complex_polar(ctx, t, mag, phase), t, out);
}
GKDEF gk_status gk_complex_abs(gk_ctx *ctx, gk_tensor out, gk_tensor z) { return gk__cabs(ctx, out, z, 0, "gk_complex_abs"); }
GKDEF gk_status gk_complex_angle(gk_ctx *ctx, gk_tensor out, gk_tensor z) { return gk__cabs(ctx, out, z, 1, "gk_complex_angle"); }
GKDEF gk_status gk_complex_abs_new(gk_ctx *ctx, gk_tensor z, gk_tensor *out) {
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", "gk_complex_abs_new");
    GK__TRY(gk__sg_new_from(ctx, z, 1, 0, NULL, GK_F32, &t, NULL, NULL, "gk_complex_abs_new"));
    return gk__finish_new(ctx, gk_complex_abs(ctx, t, z), t, out);
}
GKDEF gk_status gk_complex_angle_new(gk_ctx *ctx, gk_tensor z, gk_tensor *out) {
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", "gk_complex_angle_new");
    GK__TRY(gk__sg_new_from(ctx, z, 1, 0, NULL, GK_F32, &t, NULL, NULL, "gk_complex_angle_new"));
    return gk__finish_new(ctx, gk_complex_angle(ctx, t, z), t, out);
}

/* >>signal_mel: mel filter banks */
/* ---- mel filter bank (host, double) ---- */
static double gk__hz_to_mel(double f, int htk) {
    if (htk) return 2595.0 * log10(1.0 + f / 700.0);
    if (f < 1000.0) return 3.0 * f / 200.0;
    return 15.0 + log(f / 1000.0) * 27.0 / log(6.4);
}
static double gk__mel_to_hz(double m, int htk) {
    if (htk) return 700.0 * (pow(10.0, m / 2595.0) - 1.0);
    if (m < 15.0) return 200.0 * m / 3.0;
    return 1000.0 * exp(log(6.4) * (m - 15.0) / 27.0);
}
GKDEF gk_status gk_mel_filters(gk_ctx *ctx, gk_tensor out, double sample_rate, double fmin, double fmax, int flags) {
    const char *where = "gk_mel_filters";
    gk__slot *s;
    gk_status st;
    int64_t M = 0, F = 0, mm, k;
    float *buf;
    double *pts, mlo, mhi;
    int htk = (flags & GK_MEL_HTK) != 0;
    GK__ENTER(ctx, where);
    st = gk__lookup(ctx, out, &s, where, "out");
    if (st == GK_OK && s->dtype != GK_F32) st = gk__err(ctx, GK_ERR_DTYPE, "%s: out is %s (supported: f32)", where, gk_dtype_name(s->dtype));
    if (st == GK_OK && (s->ndim != 2 || s->shape[0] < 1 || s->shape[1] < 2)) st = gk__sg_shape_err(ctx, s, "out", "[n_mels >= 1, n_freqs >= 2]", where);
    if (st == GK_OK && !gk__is_contig(s)) st = gk__err(ctx, GK_ERR_SHAPE, "%s: out is not contiguous", where);
    if (st == GK_OK && !(sample_rate > 0 && fmin >= 0 && fmax > fmin))
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: sample_rate %g, fmin %g, fmax %g (need sample_rate > 0, 0 <= fmin < fmax)", where, sample_rate, fmin, fmax);
    if (st == GK_OK) { M = s->shape[0]; F = s->shape[1]; }
    if (st == GK_OK && M * F > ((int64_t)1 << 26)) st = gk__err(ctx, GK_ERR_LIMIT, "%s: %lld x %lld filters", where, (long long)M, (long long)F);
    gk__unlock(&ctx->mu);
    if (st != GK_OK) return st;
    buf = GK__CAST(float *, GPUKIT_MALLOC(sizeof(float) * (size_t)(M * F) + sizeof(double) * (size_t)(M + 2)));
    if (!buf) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", where);
    pts = (double *)(void *)(buf + ((M * F + 1) & ~(int64_t)1));
    mlo = gk__hz_to_mel(fmin, htk);
    mhi = gk__hz_to_mel(fmax, htk);
    for (mm = 0; mm < M + 2; mm++) pts[mm] = gk__mel_to_hz(mlo + (mhi - mlo) * (double)mm / (double)(M + 1), htk);
    for (mm = 0; mm < M; mm++) {
        double enorm = (flags & GK_MEL_NORM_SLANEY) ? 2.0 / (pts[mm + 2] - pts[mm]) : 1.0;
        for (k = 0; k < F; k++) {
            double f = floor(sample_rate / 2) * (double)k / (double)(F - 1);
            double down = (f - pts[mm]) / (pts[mm + 1] - pts[mm]), up = (pts[mm + 2] - f) / (pts[mm + 2] - pts[mm + 1]);
            double v = down < up ? down : up;
            buf[mm * F + k] = (float)((v > 0 ? v : 0) * enorm);
        }
    }
    st = gk_copy_from_host(ctx, out, buf, sizeof(float) * (size_t)(M * F));
    GPUKIT_FREE(buf);
    return st;
}
GKDEF gk_status gk_mel_filters_new(gk_ctx *ctx, int64_t n_mels, int64_t n_fft, double sample_rate, double fmin, double fmax, int flags,
                                   gk_tensor *out) {
    int64_t shape[2];
    gk_tensor t;
    gk_status st;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_mel_filters_new: out is NULL");
    if (n_mels < 1 || n_fft < 2) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_mel_filters_new: n_mels %lld, n_fft %lld", (long long)n_mels, (long long)n_fft);
    shape[0] = n_mels;
    shape[1] = n_fft / 2 + 1;
    st = gk_tensor_empty(ctx, GK_F32, 2, shape, &t);
    if (st != GK_OK) return st;
    return gk__finish_new(ctx, gk_mel_filters(ctx, t, sample_rate, fmin, fmax, flags), t, out);
}

/* end of >>ops_signal */

/* >>ops_llm: KV-cache writes (plain and with RoPE), decode RMS norm */
typedef struct gk__kvw {        /* layout of gk_kvw_p in src/ops/llm/llm.cu */
    int64_t B, T, H, D, S, es;
    int64_t c_bs, c_ss, c_hs, c_ds, x_bs, x_ts, x_hs, x_ds;
    uint64_t c, x, start;
} gk__kvw;

static int gk__kvw_cpu(const void *vp) {
    const gk__kvw *p = (const gk__kvw *)vp;
    const int32_t *st = (const int32_t *)(uintptr_t)p->start;
    char *c = (char *)(uintptr_t)p->c;
    const char *x = (const char *)(uintptr_t)p->x;
    int64_t b, t, h, d;
    for (b = 0; b < p->B; b++)
        for (t = 0; t < p->T; t++) {
            int64_t row = (int64_t)st[b] + t;
            if (row < 0 || row >= p->S) continue;
            for (h = 0; h < p->H; h++)
                for (d = 0; d < p->D; d++)
                    memcpy(c + (b * p->c_bs + row * p->c_ss + h * p->c_hs + d * p->c_ds) * p->es,
                           x + (b * p->x_bs + t * p->x_ts + h * p->x_hs + d * p->x_ds) * p->es, (size_t)p->es);
        }
    return 0;
}

GKDEF gk_status gk_kv_write(gk_ctx *ctx, gk_tensor cache, gk_tensor x, gk_tensor start) {
    const char *W = "gk_kv_write";
    static const char *const names[3] = { "cache", "x", "start" };
    static const char *const kn[9] = { NULL, "gk_kv_write_1", "gk_kv_write_2", NULL, "gk_kv_write_4", NULL, NULL, NULL, "gk_kv_write_8" };
    gk_tensor ts[3];
    gk__opnds ops;
    gk__kvw p;
    gk_status st;
    gk__slot *cs, *xs, *ss;
    ops.used = 0;
    memset(&p, 0, sizeof p);
    ts[0] = cache; ts[1] = x; ts[2] = start;
    GK__ENTER(ctx, W);
    st = gk__operands(ctx, &ops, ts, names, 3, W);
    if (st != GK_OK) goto done;
    cs = ops.s[0]; xs = ops.s[1]; ss = ops.s[2];
    if (cs->dtype != xs->dtype) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: cache is %s but x is %s", W, gk_dtype_name(cs->dtype), gk_dtype_name(xs->dtype)); goto done; }
    if (ss->dtype != GK_I32) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: start is %s (i32 expected)", W, gk_dtype_name(ss->dtype)); goto done; }
    if (cs->ndim != 4) { st = gk__nn_shape_err(ctx, W, "cache", cs, "[B, S, H, D]"); goto done; }
    if (xs->ndim != 4 || xs->shape[0] != cs->shape[0] || xs->shape[2] != cs->shape[2] || xs->shape[3] != cs->shape[3]) {
        char a[160], b[160];
        gk__shape_str(xs, a, sizeof a);
        gk__shape_str(cs, b, sizeof b);
        st = gk__err(ctx, GK_ERR_SHAPE, "%s: x is %s; expected [B, T, H, D] matching cache %s", W, a, b);
        goto done;
    }
    if (ss->ndim != 1 || ss->shape[0] != cs->shape[0] || !gk__is_contig(ss)) {
        st = gk__err(ctx, GK_ERR_SHAPE, "%s: start must be a contiguous i32 vector of %lld", W, (long long)cs->shape[0]);
        goto done;
    }
    p.B = cs->shape[0]; p.S = cs->shape[1]; p.H = cs->shape[2]; p.D = cs->shape[3]; p.T = xs->shape[1];
    p.es = (int64_t)gk__dtype_sizes[cs->dtype];
    p.c_bs = cs->strides[0]; p.c_ss = cs->strides[1]; p.c_hs = cs->strides[2]; p.c_ds = cs->strides[3];
    p.x_bs = xs->strides[0]; p.x_ts = xs->strides[1]; p.x_hs = xs->strides[2]; p.x_ds = xs->strides[3];
    if (p.B * p.T * p.H * p.D == 0 || p.S == 0) goto done;
    if ((st = gk__operands_use(ctx, &ops, W)) != GK_OK) goto done;
    p.c = gk__slot_addr(cs); p.x = gk__slot_addr(xs); p.start = gk__slot_addr(ss);
    if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__kvw_cpu, &p, sizeof p, W);
    else if (p.es > 8 || !kn[p.es]) st = gk__err(ctx, GK_ERR_DTYPE, "%s: no kernel for %s", W, gk_dtype_name(cs->dtype));
    else {
        /* grid-stride like gk__launch; programmatic dependent launch (the kernel waits first) */
        void *args[1];
        int64_t work = p.B * p.T * p.H * p.D, blocks = (work + 255) / 256, maxb = (int64_t)ctx->info.sm_count * 32;
        unsigned g[3], bl[3];
        g[0] = (unsigned)GK__MAX(GK__MIN(blocks, maxb), (int64_t)1); g[1] = 1; g[2] = 1;
        bl[0] = 256; bl[1] = 1; bl[2] = 1;
        args[0] = &p;
        st = gk__launch_ex(ctx, GK__MOD_LLM, kn[p.es], g, bl, 0, args, GK__LAUNCH_PDL, W);
    }
done:
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
typedef struct gk__ropekv {     /* layout of gk_ropekv_p in src/ops/llm/llm.cu */
    int64_t B, H, Hkv, D, S, max_pos, x_bs, c_bs, c_ss, c_hs;
    uint64_t x, c, pos, cs, sn;
    int rd;
} gk__ropekv;

GKDEF gk_status gk_rope_kv_write(gk_ctx *ctx, gk_tensor x, gk_tensor cache, gk_tensor pos, gk_tensor cos_tab, gk_tensor sin_tab, int rotary_dim,
                                 int64_t q_heads) {
    const char *W = "gk_rope_kv_write";
    static const char *const names[5] = { "x", "cache", "pos", "cos_tab", "sin_tab" };
    gk_tensor_info xi, ci, pi, ti, si;
    gk_tensor ts[5];
    gk_status st;
    int64_t Hkv;
    int fused;
    if (!ctx) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "%s: ctx is NULL", W);
    if ((st = gk_tensor_info_get(ctx, x, &xi)) != GK_OK || (st = gk_tensor_info_get(ctx, cache, &ci)) != GK_OK ||
        (st = gk_tensor_info_get(ctx, pos, &pi)) != GK_OK || (st = gk_tensor_info_get(ctx, cos_tab, &ti)) != GK_OK ||
        (st = gk_tensor_info_get(ctx, sin_tab, &si)) != GK_OK)
        return st;
    if (xi.ndim != 3 || ci.ndim != 4 || ci.shape[2] % 2 || ci.shape[0] != xi.shape[0] || ci.shape[3] != xi.shape[2] || q_heads < 0 ||
        xi.shape[1] != q_heads + ci.shape[2])
        return gk__err(ctx, GK_ERR_SHAPE, "%s: x must be [B, q_heads + 2 Hkv, D] (q_heads %lld) and cache [B, S, 2 Hkv, D] (x is %dD, cache %dD)", W,
                       (long long)q_heads, xi.ndim, ci.ndim);
    Hkv = ci.shape[2] / 2;
    fused = gk_ctx_backend(ctx) == GK_BACKEND_CUDA && (xi.dtype == GK_F32 || xi.dtype == GK_F16 || xi.dtype == GK_BF16) &&
            ci.dtype == xi.dtype && ti.dtype == xi.dtype && si.dtype == xi.dtype && pi.dtype == GK_I32 && pi.ndim == 1 && pi.shape[0] == xi.shape[0] &&
            pi.contiguous && ti.ndim == 2 && si.ndim == 2 && ti.contiguous && si.contiguous && ti.shape[0] == si.shape[0] &&
            ti.shape[1] == rotary_dim / 2 && si.shape[1] == rotary_dim / 2 && rotary_dim > 0 && rotary_dim % 2 == 0 && rotary_dim <= xi.shape[2] &&
            xi.strides[2] == 1 && xi.strides[1] == xi.shape[2] && ci.strides[3] == 1 && xi.shape[0] <= 65535 && xi.shape[1] <= 2147483647;
    if (!fused) { /* the two ops (they check the rest) */
        gk_tensor qk = { 0, 0 }, kvx = { 0, 0 }, kvx4 = { 0, 0 };
        st = gk_view_slice(ctx, x, 1, 0, q_heads + Hkv, 1, &qk);
        if (st == GK_OK) st = gk_rope(ctx, qk, qk, pos, cos_tab, sin_tab, rotary_dim, GK_ROPE_NEOX);
        if (st == GK_OK) st = gk_view_slice(ctx, x, 1, q_heads, q_heads + 2 * Hkv, 1, &kvx);
        if (st == GK_OK) st = gk_view_unsqueeze(ctx, kvx, 1, &kvx4);
        if (st == GK_OK) st = gk_kv_write(ctx, cache, kvx4, pos);
        if (qk.id) gk_tensor_free(ctx, qk);
        if (kvx.id) gk_tensor_free(ctx, kvx);
        if (kvx4.id) gk_tensor_free(ctx, kvx4);
        return st;
    }
    {
        static const char *const kn[4] = { "gk_rope_kv_dec_f32", NULL, "gk_rope_kv_dec_f16", "gk_rope_kv_dec_bf16" };
        gk__opnds ops;
        gk__ropekv p;
        void *args[1];
        unsigned g[3], bl[3];
        ops.used = 0;
        memset(&p, 0, sizeof p);
        ts[0] = x; ts[1] = cache; ts[2] = pos; ts[3] = cos_tab; ts[4] = sin_tab;
        GK__ENTER(ctx, W);
        st = gk__operands(ctx, &ops, ts, names, 5, W);
        if (st != GK_OK) goto done;
        p.B = xi.shape[0]; p.H = q_heads; p.Hkv = Hkv; p.D = xi.shape[2]; p.S = ci.shape[1]; p.max_pos = ti.shape[0];
        p.x_bs = xi.strides[0]; p.c_bs = ci.strides[0]; p.c_ss = ci.strides[1]; p.c_hs = ci.strides[2];
        p.rd = rotary_dim;
        if (p.B == 0 || p.H + 2 * p.Hkv == 0 || p.D == 0) goto done;
        if ((st = gk__operands_use(ctx, &ops, W)) != GK_OK) goto done;
        p.x = gk__slot_addr(ops.s[0]); p.c = gk__slot_addr(ops.s[1]); p.pos = gk__slot_addr(ops.s[2]);
        p.cs = gk__slot_addr(ops.s[3]); p.sn = gk__slot_addr(ops.s[4]);
        g[0] = (unsigned)(p.H + 2 * p.Hkv); g[1] = (unsigned)p.B; g[2] = 1;
        bl[0] = p.D >= 256 ? 128u : 64u; bl[1] = 1; bl[2] = 1;
        args[0] = &p;
        st = gk__launch_ex(ctx, GK__MOD_LLM, kn[xi.dtype], g, bl, 0, args, GK__LAUNCH_PDL, W);
    done:
        gk__operands_done(ctx, &ops, st);
        gk__unlock(&ctx->mu);
        return st;
    }
}
GKDEF gk_status gk_decode_rms_norm(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor weight, double eps) {
    const char *W = "gk_decode_rms_norm";
    static const char *const names[3] = { "out", "x", "weight" };
    static const char *const kn[4] = { "gk_rms_norm_dec_f32", NULL, "gk_rms_norm_dec_f16", "gk_rms_norm_dec_bf16" };
    gk_tensor_info oi, xi, wi;
    gk_tensor ts[3];
    gk__opnds ops;
    gk_status st;
    int64_t R, D, E, nvec;
    uint64_t xa, wa, oa;
    if (!ctx) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "%s: ctx is NULL", W);
    if ((st = gk_tensor_info_get(ctx, out, &oi)) != GK_OK || (st = gk_tensor_info_get(ctx, x, &xi)) != GK_OK ||
        (st = gk_tensor_info_get(ctx, weight, &wi)) != GK_OK)
        return st;
    E = xi.dtype == GK_F32 ? 4 : 8;
    if (gk_ctx_backend(ctx) != GK_BACKEND_CUDA || (xi.dtype != GK_F32 && xi.dtype != GK_F16 && xi.dtype != GK_BF16) || oi.dtype != xi.dtype ||
        wi.dtype != xi.dtype || xi.ndim != 2 || oi.ndim != 2 || wi.ndim != 1 || !xi.contiguous || !oi.contiguous || !wi.contiguous ||
        oi.shape[0] != xi.shape[0] || oi.shape[1] != xi.shape[1] || wi.shape[0] != xi.shape[1] || xi.shape[1] % E || xi.shape[1] / E > 1024 ||
        xi.shape[1] == 0)
        return gk_rms_norm(ctx, out, x, weight, eps);
    R = xi.shape[0]; D = xi.shape[1]; nvec = D / E;
    ops.used = 0;
    ts[0] = out; ts[1] = x; ts[2] = weight;
    GK__ENTER(ctx, W);
    st = gk__operands(ctx, &ops, ts, names, 3, W);
    if (st == GK_OK && R > 0) st = gk__operands_use(ctx, &ops, W);
    if (st == GK_OK && R > 0) {
        oa = gk__slot_addr(ops.s[0]); xa = gk__slot_addr(ops.s[1]); wa = gk__slot_addr(ops.s[2]);
        if (((oa | xa | wa) & 15) != 0) {
            st = GK_ERR_UNSUPPORTED; /* not 16-byte aligned: gk_rms_norm below, after the lock is released */
        } else {
            float e = (float)eps;
            int dd = (int)D;
            void *args[6];
            unsigned g[3], bl[3];
            int64_t nt = (nvec + 31) / 32 * 32; /* a vector a thread where 256 threads cover the row, else up to 4 */
            if (nt > 256) nt = 256;
            args[0] = &R; args[1] = &dd; args[2] = &e; args[3] = &xa; args[4] = &wa; args[5] = &oa;
            g[0] = (unsigned)(R < 65535 ? R : 65535); g[1] = 1; g[2] = 1;
            bl[0] = (unsigned)nt; bl[1] = 1; bl[2] = 1;
            st = gk__launch_ex(ctx, GK__MOD_LLM, kn[xi.dtype], g, bl, 0, args, GK__LAUNCH_PDL, W);
        }
    }
    gk__operands_done(ctx, &ops, st == GK_ERR_UNSUPPORTED ? GK_OK : st);
    gk__unlock(&ctx->mu);
    if (st == GK_ERR_UNSUPPORTED) return gk_rms_norm(ctx, out, x, weight, eps);
    return st;
}
/* end of >>ops_llm */

/* >>sched: the scheduler: admission, QoS classes, workers, pacing */
/* ------------------------------------------------------------------------ */
/* Locks: ctx->mu before s->mu, never the other way. The workers run tasks
   holding neither; every change of the Guaranteed count is followed by
   gk__sched_pace, which takes both in that order and applies the latest
   pacing to the streams. */
#define GK__LAT_RING 1024
#define GK__BURST_RING 256
#define GK__QOS_N 3
#define GK__SCHED_TICK_MS 5.0 /* waiters look at deadlines this often */

typedef struct gk__task {
    gk_task_id id;
    char name[64];
    gk_task_desc d;             /* d.deps points at deps below */
    gk_task_id *deps;
    int ndeps, capdeps;
    gk_task_state state;
    gk_status result;
    gk_reason why;              /* while PENDING: what it waits for */
    char reason[256];
    double t_submit, t_start, t_end, gpu_ms;
    int admitted;               /* its reservation and share are held */
    int held;                   /* submitted with hold, not yet released */
    int cancel_req, deadline_missed;
    gk__tenant tenant;
    struct gk__task *prev, *next; /* the live list (PENDING, QUEUED), in submission order */
} gk__task;

typedef struct gk__worker {
    gk_sched *s;
    int idx;
    gk_stream *st[GK__QOS_N];   /* one stream a class, of the class's priority */
    gk_event *e0, *e1;
    gk__thread th;
    int started;
} gk__worker;

typedef struct gk__burst { double t_end, gpu_ms; char name[64]; } gk__burst;

struct gk_sched {
    gk_ctx *ctx;
    gk_sched_desc d;
    gk__mutex mu;
    gk__cond work_cv;           /* workers wait for tasks */
    gk__cond done_cv;           /* waiters wait for tasks to finish */
    gk__worker *w;
    int nw;
    gk__task **tasks;           /* by id - 1; NULL once finished and forgotten */
    unsigned char *fstate;      /* every task's state, kept after it is forgotten */
    uint64_t ntasks, captasks;
    gk_task_id *finished;       /* ring of finished ids, oldest first, for keep_finished */
    uint64_t fin_head, fin_n;
    gk__task *live_head, *live_tail;
    int nlive;
    int shutdown, stopping;
    size_t reserved;
    double share_held;
    int g_active;               /* Guaranteed tasks QUEUED or RUNNING */
    int pace_on;                /* the pacing last applied (gk__sched_pace) */
    double linger_until;        /* the Guaranteed class counts as active until then (gk__now_ms) */
    int running[GK__QOS_N], ready[GK__QOS_N], pending[GK__QOS_N];
    gk_sched_stats st;
    double lat[GK__QOS_N][GK__LAT_RING];
    uint64_t nlat[GK__QOS_N];
    gk__burst burst[GK__BURST_RING];
    uint64_t nburst;
    gk_sched *next;             /* ctx->scheds */
};

static GK__TLS gk__task *gk__tls_task;
static GK__TLS gk_sched *gk__tls_sched;

GKDEF const char *gk_qos_name(gk_qos q) {
    return q == GK_QOS_GUARANTEED ? "Guaranteed" : q == GK_QOS_BURSTABLE ? "Burstable" : q == GK_QOS_BESTEFFORT ? "BestEffort" : "(invalid QoS)";
}
GKDEF const char *gk_task_state_name(gk_task_state s) {
    static const char *const n[] = { "pending", "queued", "running", "completed", "failed", "cancelled" };
    return (int)s >= 0 && (int)s < 6 ? n[s] : "(invalid state)";
}
GKDEF const char *gk_reason_name(gk_reason r) {
    static const char *const n[] = { "fits", "waiting for dependencies", "waiting for memory", "waiting for share", "held",
                                     "insufficient memory", "share exceeded", "queue full", "shut down", "invalid" };
    return (int)r >= 0 && (int)r <= (int)GK_REASON_INVALID ? n[r] : "(invalid reason)";
}

static gk__task *gk__sched_get(gk_sched *s, gk_task_id id) {
    return id >= 1 && id <= s->ntasks ? s->tasks[id - 1] : NULL;
}
static int gk__task_final(gk_task_state st) { return st == GK_TASK_COMPLETED || st == GK_TASK_FAILED || st == GK_TASK_CANCELLED; }

static void gk__live_remove(gk_sched *s, gk__task *t) {
    if (t->prev) t->prev->next = t->next;
    else s->live_head = t->next;
    if (t->next) t->next->prev = t->prev;
    else s->live_tail = t->prev;
    t->prev = t->next = NULL;
    s->nlive--;
}

/* Gives back what admission took (s->mu held). */
static void gk__sched_unadmit(gk_sched *s, gk__task *t) {
    if (!t->admitted) return;
    t->admitted = 0;
    s->reserved -= t->d.memory;
    s->share_held -= t->d.share;
    if (s->share_held < 1e-12) s->share_held = 0;
    if (t->d.qos == GK_QOS_GUARANTEED) {
        s->g_active--;
        if (s->d.guaranteed_linger_ms > 0) s->linger_until = gk__now_ms() + s->d.guaranteed_linger_ms;
    }
}
/* Whether the lower classes are to be paced now (s->mu held). */
static int gk__sched_want_pace(gk_sched *s) { return s->g_active > 0 || (s->linger_until > 0 && gk__now_ms() < s->linger_until); }

/* A task reaches a final state (s->mu held): counts, latency, retention. */
static void gk__sched_finish(gk_sched *s, gk__task *t, gk_task_state st, gk_status result) {
    gk_sched_class_stats *c = &s->st.cls[t->d.qos];
    if (t->state == GK_TASK_PENDING) s->pending[t->d.qos]--;
    else if (t->state == GK_TASK_QUEUED) s->ready[t->d.qos]--;
    else if (t->state == GK_TASK_RUNNING) s->running[t->d.qos]--;
    if (t->state == GK_TASK_PENDING || t->state == GK_TASK_QUEUED) gk__live_remove(s, t);
    gk__sched_unadmit(s, t);
    t->state = st;
    t->result = result;
    t->t_end = gk__now_ms();
    s->fstate[t->id - 1] = (unsigned char)st;
    if (st == GK_TASK_COMPLETED) {
        c->completed++;
        s->lat[t->d.qos][s->nlat[t->d.qos]++ % GK__LAT_RING] = t->t_end - t->t_submit;
        c->gpu_ms += t->gpu_ms;
    } else if (st == GK_TASK_FAILED) c->failed++;
    else c->cancelled++;
    if (t->d.deadline_ms > 0 && t->t_end - t->t_submit > t->d.deadline_ms && !t->deadline_missed) {
        t->deadline_missed = 1;
        c->deadline_missed++;
    }
    if (t->d.qos == GK_QOS_BURSTABLE && t->t_start > 0) {
        gk__burst *b = &s->burst[s->nburst++ % GK__BURST_RING];
        b->t_end = t->t_end;
        b->gpu_ms = t->gpu_ms;
        memcpy(b->name, t->name, sizeof b->name);
    }
    /* keep the newest keep_finished tasks whole; older ones leave their state only */
    if (s->fin_n < (uint64_t)s->d.keep_finished) s->finished[(s->fin_head + s->fin_n++) % (uint64_t)s->d.keep_finished] = t->id;
    else {
        gk_task_id old = s->finished[s->fin_head];
        gk__task *o = gk__sched_get(s, old);
        s->finished[s->fin_head] = t->id;
        s->fin_head = (s->fin_head + 1) % (uint64_t)s->d.keep_finished;
        if (o) {
            s->tasks[old - 1] = NULL;
            GPUKIT_FREE(o->deps);
            GPUKIT_FREE(o);
        }
    }
    gk__cond_broadcast(&s->done_cv);
}

/* Whether a PENDING task can be admitted now; admits it, fails it (a
   dependency failed) or records what it waits for (s->mu held). */
static void gk__sched_try_admit(gk_sched *s, gk__task *t, gk_admission *why) {
    int i;
    gk_reason r = GK_REASON_FITS;
    for (i = 0; i < t->ndeps; i++) {
        gk_task_id dep = t->deps[i];
        gk_task_state ds = (gk_task_state)s->fstate[dep - 1];
        if (ds == GK_TASK_FAILED || ds == GK_TASK_CANCELLED) {
            gk__task *o = gk__sched_get(s, dep);
            snprintf(t->reason, sizeof t->reason, "dependency %llu%s%s%s %s", (unsigned long long)dep, o ? " '" : "", o ? o->name : "",
                     o ? "'" : "", ds == GK_TASK_FAILED ? "failed" : "was cancelled");
            gk__sched_finish(s, t, GK_TASK_FAILED, GK_ERR_CANCELLED);
            if (why) { why->decision = GK_QUEUE; why->reason = GK_REASON_DEPENDENCIES; snprintf(why->message, sizeof why->message, "%s", t->reason); }
            return;
        }
        if (ds != GK_TASK_COMPLETED) {
            r = GK_REASON_DEPENDENCIES;
            snprintf(t->reason, sizeof t->reason, "waiting for dependency %llu (%s)", (unsigned long long)dep, gk_task_state_name(ds));
            break;
        }
    }
    if (r == GK_REASON_FITS && t->held) {
        r = GK_REASON_HELD;
        snprintf(t->reason, sizeof t->reason, "held until gk_sched_release");
    }
    if (r == GK_REASON_FITS && t->d.memory > 0 && s->reserved + t->d.memory > s->d.memory) {
        r = GK_REASON_MEMORY;
        snprintf(t->reason, sizeof t->reason, "waiting for memory: reserves %zu bytes, %zu of %zu are reserved", t->d.memory, s->reserved,
                 s->d.memory);
    }
    if (r == GK_REASON_FITS && t->d.share > 0 && s->share_held + t->d.share > s->d.reserved_share + 1e-9) {
        r = GK_REASON_SHARE;
        snprintf(t->reason, sizeof t->reason, "waiting for share: holds %.4g, %.4g of %.4g are held", t->d.share, s->share_held,
                 s->d.reserved_share);
    }
    t->why = r;
    if (r == GK_REASON_FITS) {
        t->admitted = 1;
        s->reserved += t->d.memory;
        s->share_held += t->d.share;
        if (t->d.qos == GK_QOS_GUARANTEED) s->g_active++;
        s->pending[t->d.qos]--;
        s->ready[t->d.qos]++;
        t->state = GK_TASK_QUEUED;
        s->fstate[t->id - 1] = (unsigned char)GK_TASK_QUEUED;
        s->st.cls[t->d.qos].admitted++;
        snprintf(t->reason, sizeof t->reason, "admitted: reserves %zu bytes (%zu of %zu reserved), share %.4g (%.4g of %.4g held)",
                 t->d.memory, s->reserved, s->d.memory, t->d.share, s->share_held, s->d.reserved_share);
        gk__cond_broadcast(&s->work_cv); /* worker 0 may be the one it is for */
    }
    if (why) {
        why->decision = r == GK_REASON_FITS ? GK_ADMIT : GK_QUEUE;
        why->reason = r;
        snprintf(why->message, sizeof why->message, "%s", t->reason);
    }
}

/* Re-examines every PENDING task, Guaranteed first (s->mu held); fails
   tasks whose deadline passed before they started. */
static void gk__sched_evaluate(gk_sched *s) {
    int q;
    double now = gk__now_ms();
    gk__task *t, *nx;
    for (t = s->live_head; t; t = nx) {
        nx = t->next;
        if (t->d.deadline_ms > 0 && now - t->t_submit > t->d.deadline_ms) {
            snprintf(t->reason, sizeof t->reason, "did not start within its deadline of %.4g ms (it was %s)", t->d.deadline_ms, gk_task_state_name(t->state));
            t->deadline_missed = 1;
            s->st.cls[t->d.qos].deadline_missed++;
            gk__sched_finish(s, t, GK_TASK_FAILED, GK_ERR_TIMEOUT);
        }
    }
    for (q = GK_QOS_GUARANTEED; q >= GK_QOS_BESTEFFORT; q--)
        for (t = s->live_head; t; t = nx) {
            nx = t->next;
            if ((int)t->d.qos == q && t->state == GK_TASK_PENDING) gk__sched_try_admit(s, t, NULL);
        }
}

/* Burstable share accounting: the GPU time of the name's tasks that ended
   within the window, as a fraction of it (s->mu held). */
static double gk__burst_usage(gk_sched *s, const char *name, double now) {
    uint64_t i, n = s->nburst < GK__BURST_RING ? s->nburst : GK__BURST_RING;
    double sum = 0;
    for (i = 0; i < n; i++) {
        const gk__burst *b = &s->burst[i];
        if (b->t_end >= now - s->d.share_window_ms && strcmp(b->name, name) == 0) sum += b->gpu_ms;
    }
    return sum / s->d.share_window_ms;
}

/* The next task to run, or NULL (s->mu held): Guaranteed first, then
   Burstable (unless over its share limit while others want the GPU), then
   BestEffort (unless held while a Guaranteed task is active); FIFO within a
   class. With two workers or more, the lower classes run on all but one at
   most, so a Guaranteed task never waits for a worker behind them. *recheck_ms: when to look again for a reason time alone changes. */
static gk__task *gk__sched_pick(gk_sched *s, double *recheck_ms) {
    gk__task *t, *best[GK__QOS_N] = { NULL, NULL, NULL };
    double now = gk__now_ms();
    *recheck_ms = 1000;
    if (s->pace_on && s->g_active == 0 && s->linger_until > now && s->linger_until - now < *recheck_ms) *recheck_ms = s->linger_until - now + 0.05;
    for (t = s->live_head; t; t = t->next) {
        if (t->d.deadline_ms > 0 && t->state != GK_TASK_RUNNING) {
            double left = t->d.deadline_ms - (now - t->t_submit);
            if (left < *recheck_ms) *recheck_ms = left > 0.5 ? left : 0.5;
        }
        if (t->state != GK_TASK_QUEUED) continue;
        /* the lower classes never take the last worker: a Guaranteed task always finds one */
        if (t->d.qos != GK_QOS_GUARANTEED && s->nw > 1 && s->running[GK_QOS_BESTEFFORT] + s->running[GK_QOS_BURSTABLE] >= s->nw - 1) continue;
        if (t->d.qos == GK_QOS_BURSTABLE && !best[GK_QOS_BURSTABLE]) {
            double lim = t->d.share_limit > 0 ? t->d.share_limit : t->d.share;
            double use = gk__burst_usage(s, t->name, now);
            int others = s->ready[GK_QOS_GUARANTEED] + s->running[GK_QOS_GUARANTEED] + s->ready[GK_QOS_BESTEFFORT];
            if (use > lim && others > 0) {
                s->st.throttled++;
                snprintf(t->reason, sizeof t->reason, "throttled: '%s' used %.4g%% of the GPU over the last %.4g ms, its limit is %.4g%%",
                         t->name, use * 100, s->d.share_window_ms, lim * 100);
                if (*recheck_ms > 2) *recheck_ms = 2;
                continue;
            }
        }
        if (t->d.qos == GK_QOS_BESTEFFORT && s->d.besteffort_hold && s->g_active > 0) {
            if (!best[GK_QOS_BESTEFFORT]) {
                s->st.throttled++;
                snprintf(t->reason, sizeof t->reason, "held: %d Guaranteed task%s active", s->g_active, s->g_active == 1 ? "" : "s");
            }
            continue;
        }
        if (!best[t->d.qos]) best[t->d.qos] = t;
    }
    return best[GK_QOS_GUARANTEED] ? best[GK_QOS_GUARANTEED] : best[GK_QOS_BURSTABLE] ? best[GK_QOS_BURSTABLE] : best[GK_QOS_BESTEFFORT];
}

/* Applies the pacing the Guaranteed count asks for to every worker's
   Burstable and BestEffort streams (takes ctx->mu, then s->mu). */
static void gk__sched_pace(gk_sched *s) {
    gk_ctx *ctx = s->ctx;
    int i, on;
    double until;
    gk__lock(&ctx->mu);
    gk__lock(&s->mu);
    on = s->pace_on = gk__sched_want_pace(s) && !s->stopping;
    until = s->g_active > 0 ? 0 : s->linger_until; /* Guaranteed tasks active: held until released */
    gk__unlock(&s->mu);
    for (i = 0; i < s->nw; i++) {
        gk_stream *be = s->w[i].st[GK_QOS_BESTEFFORT], *bu = s->w[i].st[GK_QOS_BURSTABLE];
        if (be) {
            be->held = on && s->d.besteffort_inflight == 0 && s->nw > 1;
            be->hold_until = until;
            be->max_inflight = on ? (s->d.besteffort_inflight ? s->d.besteffort_inflight : s->nw > 1 ? 0 : 1) : 0;
        }
        if (bu) bu->max_inflight = on ? s->d.burstable_inflight : 0;
    }
    gk__cond_broadcast(&ctx->pace_cv); /* held calls look again */
    gk__unlock(&ctx->mu);
}

/* Runs one task on worker w (no lock held). */
static void gk__sched_run(gk__worker *w, gk__task *t) {
    gk_sched *s = w->s;
    gk_ctx *ctx = s->ctx;
    gk_stream *cs = w->st[t->d.qos];
    gk_status st = GK_OK, st2;
    gk__thread_rec *rec;
    char err[256];
    float ms = 0;
    err[0] = 0;
    /* its start on its stream (before the thread takes that stream: a held stream would hold this too) */
    st = gk_event_record(ctx, w->e0, cs);
    /* the thread's stream and tenant for the task's calls */
    gk__lock(&ctx->mu);
    rec = st == GK_OK ? gk__thread_get(ctx) : NULL;
    if (st == GK_OK && !rec) st = gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "scheduler: out of host memory starting task '%s'", t->name);
    else if (st == GK_OK) {
        rec->stream = cs;
        rec->tenant = &t->tenant;
        if (t->tenant.reserve > 0 && !t->tenant.linked) {
            t->tenant.next = ctx->tenants;
            ctx->tenants = &t->tenant;
            t->tenant.linked = 1;
        }
    }
    gk__unlock(&ctx->mu);
    if (st == GK_OK) {
        gk__tls_task = t;
        gk__tls_sched = s;
        st = t->d.fn ? t->d.fn(ctx, cs, t->d.user) : gk_graph_launch(ctx, t->d.graph, cs);
        gk__tls_task = NULL;
        gk__tls_sched = NULL;
        if (st != GK_OK) snprintf(err, sizeof err, "%s %s: %.180s", t->d.fn ? "its callback returned" : "its graph failed:", gk_status_name(st),
                                  gk_last_error(ctx));
    }
    /* the thread back on the default stream (so the end's record is not held), then done when its GPU work is */
    gk__lock(&ctx->mu);
    rec = gk__thread_find(ctx);
    if (rec) {
        rec->stream = NULL;
        rec->tenant = NULL;
        gk__thread_tidy(ctx, rec);
    }
    gk__unlock(&ctx->mu);
    st2 = gk_event_record(ctx, w->e1, cs);
    if (st2 == GK_OK) st2 = gk_event_sync(ctx, w->e1);
    if (st2 == GK_OK) st2 = gk_event_elapsed_ms(ctx, w->e0, w->e1, &ms);
    if (st == GK_OK && st2 != GK_OK) {
        st = st2;
        snprintf(err, sizeof err, "its GPU work failed: %s: %.180s", gk_status_name(st2), gk_last_error(ctx));
    }
    gk__lock(&ctx->mu);
    { /* the memory it leaves behind (its outputs) is its own no more, and its reservation ends */
        gk__tenant **pp;
        gk__block *b;
        if (t->tenant.linked)
            for (pp = &ctx->tenants; *pp; pp = &(*pp)->next)
                if (*pp == &t->tenant) { *pp = t->tenant.next; break; }
        t->tenant.linked = 0;
        if (t->tenant.used) { /* blocks still charged to it (used counts them all): the pool's lists are walked only then */
            for (b = ctx->pool.live_head; b; b = b->next) if (b->tenant == &t->tenant) b->tenant = NULL;
            for (b = ctx->pool.evict_head; b; b = b->next) if (b->tenant == &t->tenant) b->tenant = NULL;
        }
    }
    t->tenant.used = 0;
    gk__unlock(&ctx->mu);
    gk__lock(&s->mu);
    t->gpu_ms = ms;
    if (t->cancel_req) {
        snprintf(t->reason, sizeof t->reason, "cancelled while running: its callback returned %s", gk_status_name(st));
        gk__sched_finish(s, t, GK_TASK_CANCELLED, GK_ERR_CANCELLED);
    } else if (st != GK_OK) {
        snprintf(t->reason, sizeof t->reason, "%s", err);
        gk__sched_finish(s, t, GK_TASK_FAILED, st);
    } else {
        snprintf(t->reason, sizeof t->reason, "completed in %.4g ms (GPU %.4g ms) after %.4g ms queued", gk__now_ms() - t->t_start,
                 (double)ms, t->t_start - t->t_submit);
        gk__sched_finish(s, t, GK_TASK_COMPLETED, GK_OK);
    }
    gk__sched_evaluate(s);
    gk__unlock(&s->mu);
}

static void gk__sched_worker(void *arg) {
    gk__worker *w = GK__CAST(gk__worker *, arg);
    gk_sched *s = w->s;
    gk__lock(&s->mu);
    while (!s->stopping) {
        double recheck;
        gk__task *t;
        gk__sched_evaluate(s);
        if (gk__sched_want_pace(s) != s->pace_on) { /* the Guaranteed class became active or idle */
            gk__unlock(&s->mu);
            gk__sched_pace(s);
            gk__lock(&s->mu);
            continue;
        }
        t = gk__sched_pick(s, &recheck);
        if (!t) {
            gk__cond_timedwait(&s->work_cv, &s->mu, recheck);
            continue;
        }
        gk__live_remove(s, t);
        s->ready[t->d.qos]--;
        s->running[t->d.qos]++;
        t->state = GK_TASK_RUNNING;
        s->fstate[t->id - 1] = (unsigned char)GK_TASK_RUNNING;
        t->t_start = gk__now_ms();
        snprintf(t->reason, sizeof t->reason, "running on worker %d after %.4g ms queued", w->idx, t->t_start - t->t_submit);
        gk__unlock(&s->mu);
        gk__sched_run(w, t);
        gk__sched_pace(s);
        gk__lock(&s->mu);
        gk__cond_broadcast(&s->work_cv); /* a worker is free: a task the rule above held back may go */
    }
    gk__unlock(&s->mu);
}

GKDEF void gk_sched_destroy(gk_sched *s) {
    gk_ctx *ctx;
    gk_sched **pp;
    int i;
    uint64_t k;
    if (!s) return;
    ctx = s->ctx;
    gk_sched_shutdown(s, 1);
    gk__lock(&s->mu);
    s->stopping = 1;
    gk__cond_broadcast(&s->work_cv);
    gk__unlock(&s->mu);
    gk__sched_pace(s); /* no holds while it stops */
    for (i = 0; i < s->nw; i++)
        if (s->w[i].started) gk__thread_join(s->w[i].th);
    for (i = 0; i < s->nw; i++) {
        int q;
        for (q = 0; q < GK__QOS_N; q++)
            if (s->w[i].st[q]) gk_stream_destroy(ctx, s->w[i].st[q]);
        if (s->w[i].e0) gk_event_destroy(ctx, s->w[i].e0);
        if (s->w[i].e1) gk_event_destroy(ctx, s->w[i].e1);
    }
    gk__lock(&ctx->mu);
    for (pp = &ctx->scheds; *pp; pp = &(*pp)->next)
        if (*pp == s) { *pp = s->next; break; }
    gk__unlock(&ctx->mu);
    for (k = 0; k < s->ntasks; k++)
        if (s->tasks[k]) { GPUKIT_FREE(s->tasks[k]->deps); GPUKIT_FREE(s->tasks[k]); }
    GPUKIT_FREE(s->tasks);
    GPUKIT_FREE(s->fstate);
    GPUKIT_FREE(s->finished);
    GPUKIT_FREE(s->w);
    gk__cond_destroy(&s->work_cv);
    gk__cond_destroy(&s->done_cv);
    gk__mutex_destroy(&s->mu);
    GPUKIT_FREE(s);
}

static void gk__sched_destroy_all(gk_ctx *ctx) {
    for (;;) {
        gk_sched *s;
        gk__lock(&ctx->mu);
        s = ctx->scheds;
        gk__unlock(&ctx->mu);
        if (!s) break;
        gk_sched_destroy(s);
    }
}

GKDEF gk_status gk_sched_create(gk_ctx *ctx, const gk_sched_desc *desc, gk_sched **out) {
    gk_sched *s;
    gk_sched_desc d;
    gk_status st = GK_OK;
    int i, q;
    static const gk_stream_priority prio[GK__QOS_N] = { GK_PRIORITY_LOW, GK_PRIORITY_NORMAL, GK_PRIORITY_HIGH };
    if (out) *out = NULL;
    if (!ctx) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "gk_sched_create: ctx is NULL");
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_sched_create: out is NULL");
    memset(&d, 0, sizeof d);
    if (desc) d = *desc;
    if (d.workers == 0) d.workers = 2;
    if (d.max_queued == 0) d.max_queued = 1024;
    if (d.reserved_share == 0) d.reserved_share = 1;
    if (d.guaranteed_linger_ms == 0) d.guaranteed_linger_ms = 1.0;
    if (d.burstable_inflight == 0) d.burstable_inflight = 4;
    if (d.share_window_ms == 0) d.share_window_ms = 1000;
    if (d.keep_finished == 0) d.keep_finished = 4096;
    if (d.workers < 1 || d.workers > 64) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_sched_create: workers is %d; it must be 1 to 64", d.workers);
    if (d.max_queued < 1) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_sched_create: max_queued is %d; it must be positive", d.max_queued);
    if (!(d.reserved_share > 0 && d.reserved_share <= 1))
        return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_sched_create: reserved_share is %g; it must be in (0, 1]", d.reserved_share);
    if (d.besteffort_inflight < 0 || d.besteffort_inflight >= GK__PACE_RING || d.burstable_inflight < 1 || d.burstable_inflight >= GK__PACE_RING)
        return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_sched_create: besteffort_inflight %d (0 to %d) / burstable_inflight %d (1 to %d) out of range",
                       d.besteffort_inflight, GK__PACE_RING - 1, d.burstable_inflight, GK__PACE_RING - 1);
    if (d.guaranteed_linger_ms != d.guaranteed_linger_ms)
        return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_sched_create: guaranteed_linger_ms is NaN");
    if (!(d.share_window_ms > 0)) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_sched_create: share_window_ms is %g; it must be positive", d.share_window_ms);
    if (d.keep_finished < 1) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_sched_create: keep_finished is %d; it must be positive", d.keep_finished);
    if (d.memory == 0) {
        gk__lock(&ctx->mu);
        d.memory = ctx->pool.quota;
        gk__unlock(&ctx->mu);
    }
    s = GK__CALLOC(gk_sched, 1);
    if (!s) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "gk_sched_create: out of host memory");
    s->ctx = ctx;
    s->d = d;
    gk__mutex_init(&s->mu);
    gk__cond_init(&s->work_cv);
    gk__cond_init(&s->done_cv);
    s->w = GK__CALLOC(gk__worker, d.workers);
    s->finished = GK__ALLOC(gk_task_id, d.keep_finished);
    s->nw = d.workers;
    if (!s->w || !s->finished) st = gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "gk_sched_create: out of host memory");
    for (i = 0; st == GK_OK && i < d.workers; i++) {
        s->w[i].s = s;
        s->w[i].idx = i;
        for (q = 0; st == GK_OK && q < GK__QOS_N; q++) st = gk_stream_create(ctx, prio[q], &s->w[i].st[q]);
        /* the event rings the pacing needs, made now */
        if (st == GK_OK) st = gk_stream_set_max_inflight(ctx, s->w[i].st[GK_QOS_BESTEFFORT], d.besteffort_inflight ? d.besteffort_inflight : 1);
        if (st == GK_OK) st = gk_stream_set_max_inflight(ctx, s->w[i].st[GK_QOS_BESTEFFORT], 0);
        if (st == GK_OK) st = gk_stream_set_max_inflight(ctx, s->w[i].st[GK_QOS_BURSTABLE], d.burstable_inflight);
        if (st == GK_OK) st = gk_stream_set_max_inflight(ctx, s->w[i].st[GK_QOS_BURSTABLE], 0);
        if (st == GK_OK) st = gk_event_create(ctx, &s->w[i].e0);
        if (st == GK_OK) st = gk_event_create(ctx, &s->w[i].e1);
    }
    {
        int has_green = 0;
        gk__lock(&ctx->mu);
        if (ctx->backend == GK_BACKEND_CUDA) has_green = gk__dlsym(ctx->cu_lib, "cuGreenCtxCreate") != NULL;
        s->next = ctx->scheds;
        ctx->scheds = s;
        gk__unlock(&ctx->mu);
        snprintf(s->st.partitioning_note, sizeof s->st.partitioning_note, "%s",
                 ctx->backend != GK_BACKEND_CUDA ? "CPU backend: no SM partitioning or stream priorities; the workers order the classes"
                 : has_green ? "the driver offers green contexts, but gpukit's modules are loaded per context; "
                               "stream priorities and pacing stand in for SM partitioning"
                             : "the driver has no green contexts (CUDA 12.4+); stream priorities and pacing stand in for SM partitioning");
    }
    for (i = 0; st == GK_OK && i < d.workers; i++) {
        if (gk__thread_create(&s->w[i].th, gk__sched_worker, &s->w[i]) != 0)
            st = gk__err(ctx, GK_ERR_INTERNAL, "gk_sched_create: cannot start worker thread %d", i);
        else s->w[i].started = 1;
    }
    if (st != GK_OK) {
        char save[GK__ERRBUF];
        gk__err_save(ctx, save);
        gk_sched_destroy(s);
        gk__err_restore(ctx, save);
        return st;
    }
    *out = s;
    return GK_OK;
}

GKDEF gk_status gk_sched_shutdown(gk_sched *s, int cancel_pending) {
    gk__task *t, *nx;
    if (!s) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "gk_sched_shutdown: the scheduler is NULL");
    gk__lock(&s->mu);
    s->shutdown = 1;
    if (cancel_pending)
        for (t = s->live_head; t; t = nx) {
            nx = t->next;
            snprintf(t->reason, sizeof t->reason, "cancelled: the scheduler shut down before it started");
            gk__sched_finish(s, t, GK_TASK_CANCELLED, GK_ERR_CANCELLED);
        }
    gk__sched_evaluate(s);
    gk__cond_broadcast(&s->work_cv);
    gk__unlock(&s->mu);
    gk__sched_pace(s);
    return GK_OK;
}

static gk_status gk__reject(gk_sched *s, gk_admission *why, gk_reason r, gk_status st, const char *msg) {
    if (why) {
        why->decision = GK_REJECT;
        why->reason = r;
        snprintf(why->message, sizeof why->message, "%s", msg);
    }
    return gk__err(s->ctx, st, "gk_sched_submit: %s", msg);
}

GKDEF gk_status gk_sched_submit(gk_sched *s, const gk_task_desc *d, gk_task_id *id, gk_admission *why) {
    gk__task *t;
    char msg[256];
    int i;
    gk_qos q;
    if (id) *id = 0;
    if (why) memset(why, 0, sizeof *why);
    if (!s) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "gk_sched_submit: the scheduler is NULL");
    msg[0] = 0;
    q = d ? d->qos : GK_QOS_BESTEFFORT;
    if (!d || !id) snprintf(msg, sizeof msg, "the description or id is NULL");
    else if ((int)q < 0 || (int)q > 2) snprintf(msg, sizeof msg, "qos %d is not a QoS class", (int)q);
    else if (!d->fn == !d->graph) snprintf(msg, sizeof msg, "task '%s': give either fn or graph", d->name ? d->name : "");
    else if (d->ndeps < 0 || (d->ndeps > 0 && !d->deps)) snprintf(msg, sizeof msg, "ndeps is %d with deps %s", d->ndeps, d->deps ? "set" : "NULL");
    else if (!(d->deadline_ms >= 0)) snprintf(msg, sizeof msg, "deadline_ms is %g; it must be 0 (none) or positive", d->deadline_ms);
    else if (q == GK_QOS_BESTEFFORT && (d->share != 0 || d->share_limit != 0 || d->memory != 0 || d->memory_limit != 0))
        snprintf(msg, sizeof msg, "a BestEffort task reserves nothing: memory, memory_limit, share and share_limit must be 0");
    else if (q != GK_QOS_BESTEFFORT && !(d->share > 0 && d->share <= 1))
        snprintf(msg, sizeof msg, "share is %g; a %s task needs a share in (0, 1]", d->share, gk_qos_name(q));
    else if (q == GK_QOS_GUARANTEED && (d->share_limit != 0 || d->memory_limit != 0))
        snprintf(msg, sizeof msg, "a Guaranteed task's limits are its requests: memory_limit and share_limit must be 0");
    else if (q == GK_QOS_BURSTABLE && d->memory_limit != 0 && d->memory_limit < d->memory)
        snprintf(msg, sizeof msg, "memory_limit %zu is below the request %zu", d->memory_limit, d->memory);
    else if (q == GK_QOS_BURSTABLE && d->share_limit != 0 && !(d->share_limit >= d->share && d->share_limit <= 1))
        snprintf(msg, sizeof msg, "share_limit %g must be in [share %g, 1]", d->share_limit, d->share);
    if (msg[0]) {
        gk__lock(&s->mu);
        s->st.rejected_by_reason[GK_REASON_INVALID]++;
        gk__unlock(&s->mu);
        return gk__reject(s, why, GK_REASON_INVALID, GK_ERR_INVALID_ARGUMENT, msg);
    }
    if (d->memory > s->d.memory) {
        snprintf(msg, sizeof msg, "task '%s' reserves %zu bytes, more than the %zu the scheduler can reserve", d->name ? d->name : "",
                 d->memory, s->d.memory);
        gk__lock(&s->mu);
        s->st.rejected_by_reason[GK_REASON_INSUFFICIENT_MEMORY]++;
        s->st.cls[q].rejected++;
        gk__unlock(&s->mu);
        return gk__reject(s, why, GK_REASON_INSUFFICIENT_MEMORY, GK_ERR_REJECTED, msg);
    }
    if (d->share > s->d.reserved_share + 1e-9) {
        snprintf(msg, sizeof msg, "task '%s' asks for a share of %g, more than the %g reservations may hold", d->name ? d->name : "", d->share,
                 s->d.reserved_share);
        gk__lock(&s->mu);
        s->st.rejected_by_reason[GK_REASON_SHARE_EXCEEDED]++;
        s->st.cls[q].rejected++;
        gk__unlock(&s->mu);
        return gk__reject(s, why, GK_REASON_SHARE_EXCEEDED, GK_ERR_REJECTED, msg);
    }
    gk__lock(&s->mu);
    if (s->shutdown || s->nlive >= s->d.max_queued) {
        gk_reason r = s->shutdown ? GK_REASON_SHUTDOWN : GK_REASON_QUEUE_FULL;
        if (s->shutdown) snprintf(msg, sizeof msg, "task '%s': the scheduler is shut down", d->name ? d->name : "");
        else snprintf(msg, sizeof msg, "task '%s': the queue is full (%d tasks pending or queued, max_queued %d)", d->name ? d->name : "",
                      s->nlive, s->d.max_queued);
        s->st.rejected_by_reason[r]++;
        s->st.cls[q].rejected++;
        gk__unlock(&s->mu);
        return gk__reject(s, why, r, s->shutdown ? GK_ERR_STATE : GK_ERR_REJECTED, msg);
    }
    for (i = 0; i < d->ndeps; i++)
        if (d->deps[i] < 1 || d->deps[i] > s->ntasks) {
            snprintf(msg, sizeof msg, "task '%s': dependency %llu does not exist (tasks so far: 1 to %llu)", d->name ? d->name : "",
                     (unsigned long long)d->deps[i], (unsigned long long)s->ntasks);
            s->st.rejected_by_reason[GK_REASON_INVALID]++;
            s->st.cls[q].rejected++;
            gk__unlock(&s->mu);
            return gk__reject(s, why, GK_REASON_INVALID, GK_ERR_INVALID_ARGUMENT, msg);
        }
    if (s->ntasks == s->captasks) {
        uint64_t nc = s->captasks ? s->captasks * 2 : 256;
        gk__task **nt = GK__CAST(gk__task **, GPUKIT_REALLOC(s->tasks, sizeof(gk__task *) * nc));
        unsigned char *nf = nt ? GK__CAST(unsigned char *, GPUKIT_REALLOC(s->fstate, nc)) : NULL;
        if (nt) s->tasks = nt;
        if (nf) { s->fstate = nf; s->captasks = nc; }
        if (!nt || !nf) { gk__unlock(&s->mu); return gk__err(s->ctx, GK_ERR_OUT_OF_MEMORY, "gk_sched_submit: out of host memory"); }
    }
    t = GK__CALLOC(gk__task, 1);
    if (t && d->ndeps > 0 && !(t->deps = GK__ALLOC(gk_task_id, d->ndeps))) { GPUKIT_FREE(t); t = NULL; }
    if (!t) { gk__unlock(&s->mu); return gk__err(s->ctx, GK_ERR_OUT_OF_MEMORY, "gk_sched_submit: out of host memory"); }
    t->id = ++s->ntasks;
    s->tasks[t->id - 1] = t;
    s->fstate[t->id - 1] = (unsigned char)GK_TASK_PENDING;
    t->d = *d;
    t->ndeps = t->capdeps = d->ndeps;
    if (d->ndeps > 0) memcpy(t->deps, d->deps, sizeof(gk_task_id) * (size_t)d->ndeps);
    t->d.deps = NULL;
    t->d.name = NULL;
    if (d->name) snprintf(t->name, sizeof t->name, "%s", d->name);
    else snprintf(t->name, sizeof t->name, "task %llu", (unsigned long long)t->id);
    t->held = d->hold != 0;
    t->state = GK_TASK_PENDING;
    t->t_submit = gk__now_ms();
    memcpy(t->tenant.name, t->name, sizeof t->tenant.name);
    t->tenant.qos = (int)q;
    t->tenant.reserve = q == GK_QOS_BESTEFFORT ? 0 : d->memory;
    t->tenant.limit = q == GK_QOS_GUARANTEED ? d->memory : q == GK_QOS_BURSTABLE ? (d->memory_limit ? d->memory_limit : d->memory) : 0;
    t->prev = s->live_tail;
    if (s->live_tail) s->live_tail->next = t;
    else s->live_head = t;
    s->live_tail = t;
    s->nlive++;
    s->pending[q]++;
    s->st.cls[q].submitted++;
    gk__sched_try_admit(s, t, why);
    if (t->state == GK_TASK_PENDING) s->st.cls[q].queued++;
    *id = t->id;
    gk__unlock(&s->mu);
    if (q == GK_QOS_GUARANTEED) gk__sched_pace(s);
    return GK_OK;
}

/* Whether `from` depends on `target`, directly or not (s->mu held). */
static int gk__sched_reaches(gk_sched *s, gk_task_id from, gk_task_id target, int depth) {
    gk__task *t = gk__sched_get(s, from);
    int i;
    if (from == target) return 1;
    if (!t || depth > 10000 || gk__task_final(t->state)) return 0;
    for (i = 0; i < t->ndeps; i++)
        if (gk__sched_reaches(s, t->deps[i], target, depth + 1)) return 1;
    return 0;
}

GKDEF gk_status gk_sched_add_dependency(gk_sched *s, gk_task_id task, gk_task_id on) {
    gk__task *t;
    gk_status st = GK_OK;
    if (!s) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "gk_sched_add_dependency: the scheduler is NULL");
    gk__lock(&s->mu);
    t = gk__sched_get(s, task);
    if (!t || on < 1 || on > s->ntasks)
        st = gk__err(s->ctx, GK_ERR_INVALID_ARGUMENT, "gk_sched_add_dependency: task %llu or %llu does not exist", (unsigned long long)task,
                     (unsigned long long)on);
    else if (t->state != GK_TASK_PENDING)
        st = gk__err(s->ctx, GK_ERR_STATE, "gk_sched_add_dependency: task %llu '%s' is %s; dependencies are added before it is admitted",
                     (unsigned long long)task, t->name, gk_task_state_name(t->state));
    else if (gk__sched_reaches(s, on, task, 0))
        st = gk__err(s->ctx, GK_ERR_INVALID_ARGUMENT, "gk_sched_add_dependency: a cycle: task %llu '%s' would wait for task %llu, which waits for it",
                     (unsigned long long)task, t->name, (unsigned long long)on);
    else {
        if (t->ndeps == t->capdeps) {
            int nc = t->capdeps ? t->capdeps * 2 : 4;
            gk_task_id *nd = GK__CAST(gk_task_id *, GPUKIT_REALLOC(t->deps, sizeof(gk_task_id) * (size_t)nc));
            if (!nd) st = gk__err(s->ctx, GK_ERR_OUT_OF_MEMORY, "gk_sched_add_dependency: out of host memory");
            else { t->deps = nd; t->capdeps = nc; }
        }
        if (st == GK_OK) {
            t->deps[t->ndeps++] = on;
            gk__sched_try_admit(s, t, NULL);
        }
    }
    gk__unlock(&s->mu);
    return st;
}

GKDEF gk_status gk_sched_release(gk_sched *s, gk_task_id task) {
    gk__task *t;
    gk_status st = GK_OK;
    int g = 0;
    if (!s) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "gk_sched_release: the scheduler is NULL");
    gk__lock(&s->mu);
    t = gk__sched_get(s, task);
    if (!t) st = gk__err(s->ctx, GK_ERR_INVALID_ARGUMENT, "gk_sched_release: task %llu does not exist", (unsigned long long)task);
    else if (!t->held) st = gk__err(s->ctx, GK_ERR_STATE, "gk_sched_release: task %llu '%s' is not held", (unsigned long long)task, t->name);
    else {
        t->held = 0;
        g = t->d.qos == GK_QOS_GUARANTEED;
        if (t->state == GK_TASK_PENDING) gk__sched_try_admit(s, t, NULL);
    }
    gk__unlock(&s->mu);
    if (g) gk__sched_pace(s);
    return st;
}

GKDEF gk_status gk_sched_cancel(gk_sched *s, gk_task_id task) {
    gk__task *t;
    gk_status st = GK_OK;
    if (!s) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "gk_sched_cancel: the scheduler is NULL");
    gk__lock(&s->mu);
    t = gk__sched_get(s, task);
    if (!t) {
        if (task >= 1 && task <= s->ntasks)
            st = gk__err(s->ctx, GK_ERR_STATE, "gk_sched_cancel: task %llu has already %s", (unsigned long long)task,
                         gk_task_state_name((gk_task_state)s->fstate[task - 1]));
        else st = gk__err(s->ctx, GK_ERR_INVALID_ARGUMENT, "gk_sched_cancel: task %llu does not exist", (unsigned long long)task);
    } else if (gk__task_final(t->state))
        st = gk__err(s->ctx, GK_ERR_STATE, "gk_sched_cancel: task %llu '%s' has already %s", (unsigned long long)task, t->name,
                     t->state == GK_TASK_COMPLETED ? "completed" : t->state == GK_TASK_FAILED ? "failed" : "been cancelled");
    else if (t->state == GK_TASK_RUNNING) {
        t->cancel_req = 1;
        st = gk__err(s->ctx, GK_ERR_STATE,
                     "gk_sched_cancel: task %llu '%s' is running and cannot be stopped; it ends cancelled when its callback returns",
                     (unsigned long long)task, t->name);
    } else {
        snprintf(t->reason, sizeof t->reason, "cancelled while %s", gk_task_state_name(t->state));
        gk__sched_finish(s, t, GK_TASK_CANCELLED, GK_ERR_CANCELLED);
        gk__sched_evaluate(s);
    }
    gk__unlock(&s->mu);
    gk__sched_pace(s);
    return st;
}

GKDEF int gk_sched_cancel_requested(gk_sched *s) {
    int r;
    if (!s || gk__tls_sched != s || !gk__tls_task) return 0;
    gk__lock(&s->mu);
    r = gk__tls_task->cancel_req;
    gk__unlock(&s->mu);
    return r;
}

/* s->mu held */
static void gk__sched_info(gk_sched *s, gk_task_id id, gk_task_info *out) {
    gk__task *t = gk__sched_get(s, id);
    double now = gk__now_ms();
    memset(out, 0, sizeof *out);
    out->id = id;
    if (!t) { /* finished and forgotten: its state only */
        out->state = (gk_task_state)s->fstate[id - 1];
        out->result = out->state == GK_TASK_COMPLETED ? GK_OK : out->state == GK_TASK_CANCELLED ? GK_ERR_CANCELLED : GK_ERR_INTERNAL;
        snprintf(out->reason, sizeof out->reason, "finished and forgotten (keep_finished is %d)", s->d.keep_finished);
        return;
    }
    memcpy(out->name, t->name, sizeof out->name);
    out->qos = t->d.qos;
    out->state = t->state;
    out->result = t->result;
    memcpy(out->reason, t->reason, sizeof out->reason);
    out->queued_ms = (t->t_start > 0 ? t->t_start : gk__task_final(t->state) ? t->t_end : now) - t->t_submit;
    out->run_ms = t->t_start > 0 ? (gk__task_final(t->state) ? t->t_end : now) - t->t_start : 0;
    out->gpu_ms = t->gpu_ms;
    out->memory_peak = t->tenant.peak;
    out->cancel_requested = t->cancel_req;
    out->deadline_missed = t->deadline_missed;
}

GKDEF gk_status gk_sched_task_info(gk_sched *s, gk_task_id task, gk_task_info *out) {
    gk_status st = GK_OK;
    if (!s) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "gk_sched_task_info: the scheduler is NULL");
    gk__lock(&s->mu);
    if (!out || task < 1 || task > s->ntasks)
        st = gk__err(s->ctx, GK_ERR_INVALID_ARGUMENT, "gk_sched_task_info: %s", out ? "no such task" : "out is NULL");
    else gk__sched_info(s, task, out);
    gk__unlock(&s->mu);
    return st;
}

GKDEF gk_status gk_sched_wait(gk_sched *s, gk_task_id task, double timeout_ms, gk_task_info *info) {
    gk_status st = GK_OK;
    double end = timeout_ms >= 0 ? gk__now_ms() + timeout_ms : 0;
    if (!s) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "gk_sched_wait: the scheduler is NULL");
    if (gk__tls_sched == s && gk__tls_task && gk__tls_task->id == task)
        return gk__err(s->ctx, GK_ERR_STATE, "gk_sched_wait: task %llu waits for itself", (unsigned long long)task);
    gk__lock(&s->mu);
    if (task < 1 || task > s->ntasks) st = gk__err(s->ctx, GK_ERR_INVALID_ARGUMENT, "gk_sched_wait: task %llu does not exist", (unsigned long long)task);
    while (st == GK_OK && !gk__task_final((gk_task_state)s->fstate[task - 1])) {
        double left = timeout_ms >= 0 ? end - gk__now_ms() : 1e30;
        if (left <= 0) {
            st = gk__err(s->ctx, GK_ERR_TIMEOUT, "gk_sched_wait: task %llu is still %s after %.4g ms", (unsigned long long)task,
                         gk_task_state_name((gk_task_state)s->fstate[task - 1]), timeout_ms);
            break;
        }
        /* deadlines pass while every worker is busy: the waiters check them too */
        gk__cond_timedwait(&s->done_cv, &s->mu, left < GK__SCHED_TICK_MS ? left : GK__SCHED_TICK_MS);
        gk__sched_evaluate(s);
    }
    if (info && task >= 1 && task <= s->ntasks) gk__sched_info(s, task, info);
    gk__unlock(&s->mu);
    return st;
}

GKDEF gk_status gk_sched_wait_all(gk_sched *s, double timeout_ms) {
    gk_status st = GK_OK;
    double end = gk__now_ms() + timeout_ms;
    if (!s) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "gk_sched_wait_all: the scheduler is NULL");
    gk__lock(&s->mu);
    while (s->nlive > 0 || s->running[0] + s->running[1] + s->running[2] > 0) {
        double left = timeout_ms >= 0 ? end - gk__now_ms() : 1e30;
        if (left <= 0) {
            st = gk__err(s->ctx, GK_ERR_TIMEOUT, "gk_sched_wait_all: %d tasks pending or queued and %d running after %.4g ms", s->nlive,
                         s->running[0] + s->running[1] + s->running[2], timeout_ms);
            break;
        }
        gk__cond_timedwait(&s->done_cv, &s->mu, left < GK__SCHED_TICK_MS ? left : GK__SCHED_TICK_MS);
        gk__sched_evaluate(s);
    }
    gk__unlock(&s->mu);
    return st;
}

static int gk__dbl_cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

GKDEF gk_status gk_sched_stats_get(gk_sched *s, gk_sched_stats *out) {
    int q;
    double tmp[GK__LAT_RING];
    if (!s) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "gk_sched_stats_get: the scheduler is NULL");
    if (!out) return gk__err(s->ctx, GK_ERR_INVALID_ARGUMENT, "gk_sched_stats_get: out is NULL");
    gk__lock(&s->mu);
    *out = s->st;
    for (q = 0; q < GK__QOS_N; q++) {
        gk_sched_class_stats *c = &out->cls[q];
        uint64_t n = s->nlat[q] < GK__LAT_RING ? s->nlat[q] : GK__LAT_RING;
        c->pending = s->pending[q];
        c->ready = s->ready[q];
        c->running = s->running[q];
        if (n > 0) {
            memcpy(tmp, s->lat[q], sizeof(double) * (size_t)n);
            qsort(tmp, (size_t)n, sizeof(double), gk__dbl_cmp);
            c->latency_p50_ms = tmp[(n - 1) / 2];
            c->latency_p99_ms = tmp[(size_t)((double)(n - 1) * 0.99)];
            c->latency_max_ms = tmp[n - 1];
        }
    }
    out->memory = s->d.memory;
    out->memory_reserved = s->reserved;
    out->share_reserved = s->share_held;
    out->guaranteed_active = s->g_active;
    out->partitioning = 0;
    gk__unlock(&s->mu);
    return GK_OK;
}
/* >>teardown: context teardown */
/* ------------------------------------------------------------------------ */
/* context teardown */
GKDEF void gk_ctx_destroy(gk_ctx *ctx) {
    uint32_t i;
    gk__block *b, *nb;
    if (!ctx) return;
    /* the services' threads call into the context: stopped first, unlocked */
    gk__sched_destroy_all(ctx);
    gk__xfer_destroy_all(ctx);
    gk__lock(&ctx->mu);
    gk__prof_free(ctx);
    if (ctx->backend == GK_BACKEND_CUDA && gk__bind(ctx) == GK_OK) {
        gk_stream *s;
        if (ctx->default_stream.capture) { gk__cu_graph g = NULL; ctx->cu.StreamEndCapture(ctx->default_stream.cu, &g); if (g) ctx->cu.GraphDestroy(g); }
        for (s = ctx->streams; s; s = s->next)
            if (s->capture) { gk__cu_graph g = NULL; ctx->cu.StreamEndCapture(s->cu, &g); if (g) ctx->cu.GraphDestroy(g); }
        gk__sync_locked(ctx, "gk_ctx_destroy");
    }
    /* the work is done: foreign blocks released from here on wait for no stream (the streams go below) */
    for (b = ctx->pool.wrap_head; b; b = b->next) b->stream = NULL;
    gk__capture_free(ctx, ctx->default_stream.capture);
    ctx->default_stream.capture = NULL;
    if (ctx->backend == GK_BACKEND_CUDA) gk__lt_free(ctx);
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
        gk__stream_free_struct(ctx, s);
    }
    /* every block, whatever its state */
    for (b = ctx->pool.live_head; b; b = nb) { nb = b->next; gk__dev_free(ctx, b->ptr); GPUKIT_FREE(b); }
    for (b = ctx->pool.cache_head; b; b = nb) { nb = b->next; gk__dev_free(ctx, b->ptr); GPUKIT_FREE(b); }
    for (b = ctx->pool.evict_head; b; b = nb) { nb = b->next; GPUKIT_FREE(b->host); GPUKIT_FREE(b); }
    for (b = ctx->pool.wrap_head; b; b = nb) { nb = b->next; gk__wrap_release(ctx, b); } /* foreign memory goes back to its owner */
    if (ctx->ctr) gk__dev_free(ctx, ctx->ctr);
    if (ctx->dslot) gk__dev_free(ctx, ctx->dslot);
    for (i = 0; i < ctx->npages; i++) GPUKIT_FREE(ctx->pages[i]);
    GPUKIT_FREE(ctx->pages);
    if (ctx->backend == GK_BACKEND_CUDA && ctx->default_stream.cu) ctx->cu.StreamDestroy(ctx->default_stream.cu);
    GPUKIT_FREE(ctx->cache_dir);
    for (i = 0; i < (uint32_t)ctx->nthreads; i++) GPUKIT_FREE(ctx->threads[i].jit_log);
    GPUKIT_FREE(ctx->threads);
    if (ctx->lib_headers)
        for (i = 0; i < (uint32_t)GK__HEADER_COUNT; i++) GPUKIT_FREE(ctx->lib_headers[i]);
    GPUKIT_FREE(ctx->lib_headers);
    gk__unload_libs(ctx);
    gk__unlock(&ctx->mu);
    gk__mutex_destroy(&ctx->mu);
    gk__cond_destroy(&ctx->pace_cv);
    gk__err_forget(ctx);
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
