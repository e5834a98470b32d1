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
