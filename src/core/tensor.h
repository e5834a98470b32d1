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

