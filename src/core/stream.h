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

