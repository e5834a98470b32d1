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
