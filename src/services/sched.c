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
