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
