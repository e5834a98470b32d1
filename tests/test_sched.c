/* test_sched.c - the scheduler (gpukit.h >>api_sched) and the dispatch
   controller's in-flight bound: admission and its reasons, QoS order,
   BestEffort held and paced while a Guaranteed task is active, memory
   reservations enforced by the pool, dependencies and cycles, deadlines,
   cancellation, failing callbacks, shutdown, graphs as tasks, and many
   threads submitting thousands of tasks with none lost or run twice (also
   built with ThreadSanitizer: src/groups.txt kind tsan). Runs on the
   context under test (CUDA on the GPU machine, else CPU). POSIX threads. */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkt.h"
#include <pthread.h>

static gk_ctx *ctx;

/* a gate a callback waits on */
typedef struct gate { pthread_mutex_t mu; pthread_cond_t cv; int open, entered; } gate;
static void gate_init(gate *g) { pthread_mutex_init(&g->mu, NULL); pthread_cond_init(&g->cv, NULL); g->open = g->entered = 0; }
static void gate_open(gate *g) { pthread_mutex_lock(&g->mu); g->open = 1; pthread_cond_broadcast(&g->cv); pthread_mutex_unlock(&g->mu); }
static void gate_wait_entered(gate *g) {
    pthread_mutex_lock(&g->mu);
    while (!g->entered) pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
}
static gk_status cb_gate(gk_ctx *c, gk_stream *s, void *u) {
    gate *g = (gate *)u;
    (void)c; (void)s;
    pthread_mutex_lock(&g->mu);
    g->entered = 1;
    pthread_cond_broadcast(&g->cv);
    while (!g->open) pthread_cond_wait(&g->cv, &g->mu);
    pthread_mutex_unlock(&g->mu);
    return GK_OK;
}

/* records the order tasks ran in */
static pthread_mutex_t order_mu = PTHREAD_MUTEX_INITIALIZER;
static char order[64];
static int norder;
static gk_status cb_mark(gk_ctx *c, gk_stream *s, void *u) {
    (void)c; (void)s;
    pthread_mutex_lock(&order_mu);
    if (norder < 63) order[norder++] = *(const char *)u;
    order[norder] = 0;
    pthread_mutex_unlock(&order_mu);
    return GK_OK;
}

/* real work: out = a + b on the task's stream, checked by the test */
typedef struct addjob { gk_tensor a, b, out; } addjob;
static gk_status cb_add(gk_ctx *c, gk_stream *s, void *u) {
    addjob *j = (addjob *)u;
    if (gk_get_stream(c) != s) return GK_ERR_INTERNAL; /* the task's stream is the thread's current one */
    return gk_add(c, j->out, j->a, j->b);
}
static gk_status cb_fail(gk_ctx *c, gk_stream *s, void *u) {
    gk_tensor bad = { 0, 0 };
    (void)s; (void)u;
    return gk_fill(c, bad, 1.0); /* fails naming the NULL handle */
}
/* allocates u bytes and frees them */
static gk_status cb_alloc(gk_ctx *c, gk_stream *s, void *u) {
    int64_t n = (int64_t)(*(size_t *)u / 4);
    gk_tensor t;
    gk_status st;
    (void)s;
    st = gk_tensor_empty(c, GK_F32, 1, &n, &t);
    if (st == GK_OK) { st = gk_fill(c, t, 2.0); gk_tensor_free(c, t); }
    return st;
}
typedef struct streamprobe { int max_inflight; gk_sched *s; int cancel_seen; gate *g; } streamprobe;
static gk_status cb_probe(gk_ctx *c, gk_stream *s, void *u) {
    streamprobe *p = (streamprobe *)u;
    gk_stream_stats ss;
    gk_status st = gk_stream_stats_get(c, s, &ss);
    p->max_inflight = st == GK_OK ? ss.max_inflight : -1;
    return st;
}
static gk_status cb_cancel_probe(gk_ctx *c, gk_stream *s, void *u) {
    streamprobe *p = (streamprobe *)u;
    cb_gate(c, s, p->g);
    p->cancel_seen = gk_sched_cancel_requested(p->s);
    return GK_OK;
}

static gk_tensor randvec(int64_t n, float *host) {
    gk_tensor t = { 0, 0 };
    int64_t i;
    for (i = 0; i < n; i++) host[i] = gkt_uniform(-1, 1);
    GKT_OK(ctx, gk_tensor_from_host(ctx, GK_F32, 1, &n, host, &t));
    return t;
}

static void test_basic(void) {
    gk_sched *s = NULL;
    gk_task_desc d;
    gk_task_id id[3];
    gk_admission why;
    gk_task_info info;
    addjob j[3];
    float ha[1000], hb[1000], ho[1000];
    int64_t n = 1000, i;
    int k, bad = 0;
    GKT_OK(ctx, gk_sched_create(ctx, NULL, &s));
    j[0].a = randvec(n, ha);
    j[0].b = randvec(n, hb);
    for (k = 0; k < 3; k++) {
        j[k].a = j[0].a;
        j[k].b = j[0].b;
        GKT_OK(ctx, gk_tensor_empty(ctx, GK_F32, 1, &n, &j[k].out));
        GKT_OK(ctx, gk_fill(ctx, j[k].out, 1e30)); /* poisoned (on this thread's stream: done before the task runs on its own) */
        GKT_OK(ctx, gk_sync(ctx));
        memset(&d, 0, sizeof d);
        d.fn = cb_add;
        d.user = &j[k];
        d.qos = (gk_qos)k;
        d.name = k == 0 ? "be" : k == 1 ? "burst" : "guar";
        if (k > 0) { d.share = 0.25; d.memory = 1 << 20; }
        GKT_OK(ctx, gk_sched_submit(s, &d, &id[k], &why));
        GKT_CHECK(why.decision == GK_ADMIT && why.reason == GK_REASON_FITS && strstr(why.message, "admitted"), "decision %d reason %d '%s'",
                  why.decision, why.reason, why.message);
    }
    for (k = 0; k < 3; k++) {
        GKT_OK(ctx, gk_sched_wait(s, id[k], 60000, &info));
        GKT_CHECK(info.state == GK_TASK_COMPLETED && info.result == GK_OK && info.qos == (gk_qos)k, "task %d: %s %s '%s'", k,
                  gk_task_state_name(info.state), gk_status_name(info.result), info.reason);
        GKT_CHECK(info.run_ms >= 0 && info.queued_ms >= 0 && info.gpu_ms >= 0, "times %g %g %g", info.queued_ms, info.run_ms, info.gpu_ms);
        GKT_OK(ctx, gk_copy_to_host(ctx, j[k].out, ho, sizeof ho));
        for (i = 0; i < n; i++) bad += fabsf(ho[i] - (ha[i] + hb[i])) > 1e-6f;
        gk_tensor_free(ctx, j[k].out);
    }
    GKT_CHECK(bad == 0, "%d wrong sums", bad);
    {
        gk_sched_stats st;
        GKT_OK(ctx, gk_sched_stats_get(s, &st));
        GKT_CHECK(st.cls[0].completed == 1 && st.cls[1].completed == 1 && st.cls[2].completed == 1, "completed %llu %llu %llu",
                  (unsigned long long)st.cls[0].completed, (unsigned long long)st.cls[1].completed, (unsigned long long)st.cls[2].completed);
        GKT_CHECK(st.memory_reserved == 0 && st.share_reserved == 0 && st.guaranteed_active == 0, "released: %zu %g %d", st.memory_reserved,
                  st.share_reserved, st.guaranteed_active);
        GKT_CHECK(st.partitioning == 0 && strstr(st.partitioning_note, "priorit") != NULL, "partitioning note '%s'", st.partitioning_note);
    }
    GKT_CHECK(strcmp(gk_qos_name(GK_QOS_GUARANTEED), "Guaranteed") == 0 && strcmp(gk_task_state_name(GK_TASK_RUNNING), "running") == 0 &&
                  strcmp(gk_reason_name(GK_REASON_QUEUE_FULL), "queue full") == 0, "names");
    gk_tensor_free(ctx, j[0].a);
    gk_tensor_free(ctx, j[0].b);
    gk_sched_destroy(s);
}

static void test_admission(void) {
    gk_sched *s = NULL;
    gk_sched_desc sd;
    gk_task_desc d;
    gk_task_id id = 0, a = 0, b = 0, held[4];
    gk_admission why;
    gk_task_info info;
    gate g;
    int k;
    memset(&sd, 0, sizeof sd);
    sd.workers = 1;
    sd.memory = 10 << 20;
    sd.max_queued = 4;
    sd.reserved_share = 0.8;
    GKT_OK(ctx, gk_sched_create(ctx, &sd, &s));
    memset(&d, 0, sizeof d);
    d.fn = cb_mark;
    d.user = (void *)"x";
    d.name = "big";
    d.qos = GK_QOS_GUARANTEED;
    d.share = 0.5;
    d.memory = (size_t)11 << 20;
    GKT_FAILS(ctx, gk_sched_submit(s, &d, &id, &why), GK_ERR_REJECTED, "more than the 10485760 the scheduler can reserve");
    GKT_CHECK(id == 0 && why.decision == GK_REJECT && why.reason == GK_REASON_INSUFFICIENT_MEMORY, "id %llu decision %d reason %d",
              (unsigned long long)id, why.decision, why.reason);
    d.memory = 1 << 20;
    d.share = 0.9;
    GKT_FAILS(ctx, gk_sched_submit(s, &d, &id, &why), GK_ERR_REJECTED, "share of 0.9");
    GKT_CHECK(why.reason == GK_REASON_SHARE_EXCEEDED, "reason %s", gk_reason_name(why.reason));
    {
        double bad[4] = { 0, -0.5, 1.5, 0 };
        bad[3] = sqrt(-1.0);
        for (k = 0; k < 4; k++) {
            d.share = bad[k];
            GKT_FAILS(ctx, gk_sched_submit(s, &d, &id, &why), GK_ERR_INVALID_ARGUMENT, "needs a share in (0, 1]");
            GKT_CHECK(why.reason == GK_REASON_INVALID, "share %g: reason %s", bad[k], gk_reason_name(why.reason));
        }
    }
    d.share = 0.3;
    d.qos = GK_QOS_BESTEFFORT;
    GKT_FAILS(ctx, gk_sched_submit(s, &d, &id, &why), GK_ERR_INVALID_ARGUMENT, "BestEffort task reserves nothing");
    d.qos = (gk_qos)7;
    GKT_FAILS(ctx, gk_sched_submit(s, &d, &id, &why), GK_ERR_INVALID_ARGUMENT, "qos 7");
    d.qos = GK_QOS_BURSTABLE;
    d.memory_limit = 1000;
    GKT_FAILS(ctx, gk_sched_submit(s, &d, &id, &why), GK_ERR_INVALID_ARGUMENT, "below the request");
    d.memory_limit = 0;
    d.graph = (gk_graph *)&d;
    GKT_FAILS(ctx, gk_sched_submit(s, &d, &id, &why), GK_ERR_INVALID_ARGUMENT, "either fn or graph");
    d.graph = NULL;
    GKT_FAILS(ctx, gk_sched_submit(s, NULL, &id, &why), GK_ERR_INVALID_ARGUMENT, "NULL");

    /* memory and share that do not fit now: queued, admitted when the first ends */
    gate_init(&g);
    memset(&d, 0, sizeof d);
    d.fn = cb_gate;
    d.user = &g;
    d.name = "first";
    d.qos = GK_QOS_GUARANTEED;
    d.share = 0.5;
    d.memory = 6 << 20;
    GKT_OK(ctx, gk_sched_submit(s, &d, &a, &why));
    GKT_CHECK(why.decision == GK_ADMIT, "first admitted: %s", why.message);
    gate_wait_entered(&g);
    d.fn = cb_mark;
    d.user = (void *)"m";
    d.name = "second";
    GKT_OK(ctx, gk_sched_submit(s, &d, &b, &why));
    GKT_CHECK(why.decision == GK_QUEUE && why.reason == GK_REASON_MEMORY && strstr(why.message, "waiting for memory"), "second: %d %s", why.decision,
              why.message);
    GKT_OK(ctx, gk_sched_task_info(s, b, &info));
    GKT_CHECK(info.state == GK_TASK_PENDING, "second is %s", gk_task_state_name(info.state));
    d.memory = 1 << 20;
    d.name = "third";
    GKT_OK(ctx, gk_sched_submit(s, &d, &id, &why));
    GKT_CHECK(why.decision == GK_QUEUE && why.reason == GK_REASON_SHARE, "third: %d %s", why.decision, why.message);
    /* the queue holds 4: two more fill it, the next is rejected */
    memset(&d, 0, sizeof d);
    d.fn = cb_mark;
    d.user = (void *)"q";
    d.hold = 1;
    for (k = 0; k < 2; k++) {
        GKT_OK(ctx, gk_sched_submit(s, &d, &held[k], &why));
        GKT_CHECK(why.reason == GK_REASON_HELD, "held: %s", why.message);
    }
    GKT_FAILS(ctx, gk_sched_submit(s, &d, &held[2], &why), GK_ERR_REJECTED, "queue is full");
    GKT_CHECK(why.reason == GK_REASON_QUEUE_FULL && held[2] == 0, "queue full: %s", gk_reason_name(why.reason));
    gate_open(&g);
    GKT_OK(ctx, gk_sched_wait(s, b, 60000, &info));
    GKT_CHECK(info.state == GK_TASK_COMPLETED, "second %s: %s", gk_task_state_name(info.state), info.reason);
    GKT_OK(ctx, gk_sched_wait(s, id, 60000, &info));
    GKT_CHECK(info.state == GK_TASK_COMPLETED, "third %s: %s", gk_task_state_name(info.state), info.reason);
    GKT_OK(ctx, gk_sched_release(s, held[0]));
    GKT_FAILS(ctx, gk_sched_release(s, held[0]), GK_ERR_STATE, "is not held");
    GKT_OK(ctx, gk_sched_wait(s, held[0], 60000, &info));
    GKT_CHECK(info.state == GK_TASK_COMPLETED, "released %s", gk_task_state_name(info.state));
    GKT_OK(ctx, gk_sched_cancel(s, held[1]));
    GKT_OK(ctx, gk_sched_task_info(s, held[1], &info));
    GKT_CHECK(info.state == GK_TASK_CANCELLED && info.result == GK_ERR_CANCELLED, "cancelled held: %s", gk_task_state_name(info.state));
    GKT_FAILS(ctx, gk_sched_cancel(s, held[1]), GK_ERR_STATE, "already been cancelled");
    GKT_FAILS(ctx, gk_sched_cancel(s, b), GK_ERR_STATE, "already completed");
    GKT_FAILS(ctx, gk_sched_cancel(s, 999), GK_ERR_INVALID_ARGUMENT, "does not exist");
    GKT_FAILS(ctx, gk_sched_wait(s, 999, 10, &info), GK_ERR_INVALID_ARGUMENT, "does not exist");
    {
        gk_sched_stats st;
        GKT_OK(ctx, gk_sched_stats_get(s, &st));
        GKT_CHECK(st.rejected_by_reason[GK_REASON_INSUFFICIENT_MEMORY] == 1 && st.rejected_by_reason[GK_REASON_SHARE_EXCEEDED] == 1 &&
                      st.rejected_by_reason[GK_REASON_QUEUE_FULL] == 1 && st.rejected_by_reason[GK_REASON_INVALID] == 9,
                  "rejections %llu %llu %llu %llu", (unsigned long long)st.rejected_by_reason[GK_REASON_INSUFFICIENT_MEMORY],
                  (unsigned long long)st.rejected_by_reason[GK_REASON_SHARE_EXCEEDED],
                  (unsigned long long)st.rejected_by_reason[GK_REASON_QUEUE_FULL], (unsigned long long)st.rejected_by_reason[GK_REASON_INVALID]);
        GKT_CHECK(st.memory_reserved == 0 && st.share_reserved == 0, "all released: %zu %g", st.memory_reserved, st.share_reserved);
    }
    gk_sched_destroy(s);
}

/* one worker held by a gate; the classes then run Guaranteed first */
static void test_order(void) {
    gk_sched *s = NULL;
    gk_sched_desc sd;
    gk_task_desc d;
    gk_task_id id;
    gate g;
    static const char *marks[] = { "b", "B", "b", "G", "B", "G" };
    static const gk_qos q[] = { GK_QOS_BESTEFFORT, GK_QOS_BURSTABLE, GK_QOS_BESTEFFORT, GK_QOS_GUARANTEED, GK_QOS_BURSTABLE, GK_QOS_GUARANTEED };
    int k;
    memset(&sd, 0, sizeof sd);
    sd.workers = 1;
    GKT_OK(ctx, gk_sched_create(ctx, &sd, &s));
    gate_init(&g);
    memset(&d, 0, sizeof d);
    d.fn = cb_gate;
    d.user = &g;
    GKT_OK(ctx, gk_sched_submit(s, &d, &id, NULL));
    gate_wait_entered(&g);
    norder = 0;
    order[0] = 0;
    for (k = 0; k < 6; k++) {
        memset(&d, 0, sizeof d);
        d.fn = cb_mark;
        d.user = (void *)marks[k];
        d.qos = q[k];
        if (q[k] != GK_QOS_BESTEFFORT) d.share = 0.1;
        GKT_OK(ctx, gk_sched_submit(s, &d, &id, NULL));
    }
    gate_open(&g);
    GKT_OK(ctx, gk_sched_wait_all(s, 60000));
    GKT_CHECK(strcmp(order, "GGBBbb") == 0, "order '%s'", order);
    gk_sched_destroy(s);
}

/* while a Guaranteed task is active: BestEffort streams held (the default),
   paced to one launch in flight (besteffort_inflight 1), or BestEffort tasks
   not started (besteffort_hold) */
typedef struct heldprobe { gk_tensor t; int held_seen; } heldprobe;
static gk_status cb_held(gk_ctx *c, gk_stream *s, void *u) {
    heldprobe *h = (heldprobe *)u;
    gk_stream_stats ss;
    gk_status st = gk_stream_stats_get(c, s, &ss); /* waits here while held */
    h->held_seen = ss.paced_waits > 0;
    if (st == GK_OK) st = gk_fill(c, h->t, 7.0);
    return st;
}
static void test_pacing(void) {
    gk_sched *s = NULL;
    gk_sched_desc sd;
    gk_task_desc d;
    gk_task_id gid, bid;
    gk_task_info info;
    streamprobe p;
    heldprobe hp;
    gate g;
    int mode;
    int64_t n = 16;
    GKT_OK(ctx, gk_tensor_empty(ctx, GK_F32, 1, &n, &hp.t));
    for (mode = 0; mode < 3; mode++) {
        memset(&sd, 0, sizeof sd);
        sd.workers = 2;
        sd.besteffort_inflight = mode == 1 ? 1 : 0;
        sd.besteffort_hold = mode == 2;
        sd.guaranteed_linger_ms = -1;
        GKT_OK(ctx, gk_sched_create(ctx, &sd, &s));
        gate_init(&g);
        memset(&d, 0, sizeof d);
        d.fn = cb_gate;
        d.user = &g;
        d.qos = GK_QOS_GUARANTEED;
        d.share = 0.5;
        GKT_OK(ctx, gk_sched_submit(s, &d, &gid, NULL));
        gate_wait_entered(&g);
        memset(&d, 0, sizeof d);
        memset(&p, 0, sizeof p);
        d.fn = mode == 0 ? cb_held : cb_probe;
        d.user = mode == 0 ? (void *)&hp : (void *)&p;
        GKT_OK(ctx, gk_fill(ctx, hp.t, 0.0));
        GKT_OK(ctx, gk_sync(ctx));
        GKT_OK(ctx, gk_sched_submit(s, &d, &bid, NULL));
        if (mode == 1) {
            GKT_OK(ctx, gk_sched_wait(s, bid, 60000, &info));
            GKT_CHECK(info.state == GK_TASK_COMPLETED && p.max_inflight == 1, "BestEffort ran paced: %s, bound %d", gk_task_state_name(info.state),
                      p.max_inflight);
        } else {
            GKT_FAILS(ctx, gk_sched_wait(s, bid, 60, &info), GK_ERR_TIMEOUT, "still");
            if (mode == 2)
                GKT_CHECK(info.state == GK_TASK_QUEUED && strstr(info.reason, "held: 1 Guaranteed task active"), "task held: %s '%s'",
                          gk_task_state_name(info.state), info.reason);
            else {
                float h[16];
                GKT_CHECK(info.state == GK_TASK_RUNNING, "stream held: the task runs but cannot launch: %s", gk_task_state_name(info.state));
                GKT_OK(ctx, gk_copy_to_host(ctx, hp.t, h, sizeof h));
                GKT_CHECK(h[0] == 0.0f, "nothing issued while held: %g", h[0]);
            }
        }
        gate_open(&g);
        GKT_OK(ctx, gk_sched_wait(s, gid, 60000, NULL));
        GKT_OK(ctx, gk_sched_wait(s, bid, 60000, &info));
        GKT_CHECK(info.state == GK_TASK_COMPLETED, "BestEffort done: %s '%s'", gk_task_state_name(info.state), info.reason);
        if (mode == 0) {
            float h[16];
            GKT_OK(ctx, gk_copy_to_host(ctx, hp.t, h, sizeof h));
            GKT_CHECK(h[0] == 7.0f && hp.held_seen, "released: %g, waited %d", h[0], hp.held_seen);
        }
        if (mode == 2) GKT_CHECK(p.max_inflight == 0, "no bound once the Guaranteed task ended: %d", p.max_inflight);
        /* no Guaranteed task: unbounded */
        memset(&d, 0, sizeof d);
        d.fn = cb_probe;
        d.user = &p;
        GKT_OK(ctx, gk_sched_submit(s, &d, &bid, NULL));
        GKT_OK(ctx, gk_sched_wait(s, bid, 60000, NULL));
        GKT_CHECK(p.max_inflight == 0, "BestEffort alone unbounded: %d", p.max_inflight);
        gk_sched_destroy(s);
    }
    gk_tensor_free(ctx, hp.t);
    {
        gk_sched_desc bad;
        memset(&bad, 0, sizeof bad);
        bad.besteffort_inflight = 64;
        GKT_FAILS(ctx, gk_sched_create(ctx, &bad, &s), GK_ERR_INVALID_ARGUMENT, "besteffort_inflight 64");
        memset(&bad, 0, sizeof bad);
        bad.workers = 65;
        GKT_FAILS(ctx, gk_sched_create(ctx, &bad, &s), GK_ERR_INVALID_ARGUMENT, "workers is 65");
    }
    {
        gk_stream *st;
        gk_stream_stats ss;
        int64_t n = 64;
        gk_tensor t;
        GKT_OK(ctx, gk_stream_create(ctx, GK_PRIORITY_LOW, &st));
        GKT_FAILS(ctx, gk_stream_set_max_inflight(ctx, st, 64), GK_ERR_INVALID_ARGUMENT, "n is 64");
        GKT_FAILS(ctx, gk_stream_set_max_inflight(ctx, st, -1), GK_ERR_INVALID_ARGUMENT, "n is -1");
        GKT_OK(ctx, gk_stream_set_max_inflight(ctx, st, 2));
        GKT_OK(ctx, gk_set_stream(ctx, st));
        GKT_OK(ctx, gk_tensor_empty(ctx, GK_F32, 1, &n, &t));
        GKT_OK(ctx, gk_fill(ctx, t, 1.0));
        GKT_OK(ctx, gk_scale(ctx, t, t, 2.0));
        GKT_OK(ctx, gk_stream_sync(ctx, st));
        GKT_OK(ctx, gk_stream_stats_get(ctx, st, &ss));
        GKT_CHECK(ss.launches >= 2 && ss.max_inflight == 2 && ss.inflight == 0 && ss.priority == GK_PRIORITY_LOW, "stats: launches %llu bound %d in flight %d",
                  (unsigned long long)ss.launches, ss.max_inflight, ss.inflight);
        GKT_OK(ctx, gk_set_stream(ctx, NULL));
        gk_tensor_free(ctx, t);
        GKT_OK(ctx, gk_stream_destroy(ctx, st));
    }
}

static void test_deps_and_faults(void) {
    gk_sched *s = NULL;
    gk_sched_desc sd;
    gk_task_desc d;
    gk_task_id a, b, c, x, y, f, dep[2];
    gk_task_info info;
    gk_admission why;
    gate g;
    memset(&sd, 0, sizeof sd);
    sd.workers = 2;
    GKT_OK(ctx, gk_sched_create(ctx, &sd, &s));
    norder = 0;
    order[0] = 0;
    /* a chain submitted held, dependencies added afterwards, then a cycle refused */
    memset(&d, 0, sizeof d);
    d.fn = cb_mark;
    d.hold = 1;
    d.user = (void *)"1";
    GKT_OK(ctx, gk_sched_submit(s, &d, &a, NULL));
    d.user = (void *)"2";
    GKT_OK(ctx, gk_sched_submit(s, &d, &b, NULL));
    d.user = (void *)"3";
    GKT_OK(ctx, gk_sched_submit(s, &d, &c, NULL));
    GKT_OK(ctx, gk_sched_add_dependency(s, c, b));
    GKT_OK(ctx, gk_sched_add_dependency(s, b, a));
    GKT_FAILS(ctx, gk_sched_add_dependency(s, a, c), GK_ERR_INVALID_ARGUMENT, "a cycle");
    GKT_FAILS(ctx, gk_sched_add_dependency(s, a, a), GK_ERR_INVALID_ARGUMENT, "a cycle");
    GKT_FAILS(ctx, gk_sched_add_dependency(s, a, 12345), GK_ERR_INVALID_ARGUMENT, "does not exist");
    GKT_OK(ctx, gk_sched_release(s, c));
    GKT_OK(ctx, gk_sched_release(s, b));
    GKT_OK(ctx, gk_sched_task_info(s, c, &info));
    GKT_CHECK(info.state == GK_TASK_PENDING && strstr(info.reason, "waiting for dependency"), "c waits: %s", info.reason);
    GKT_OK(ctx, gk_sched_release(s, a));
    GKT_OK(ctx, gk_sched_wait(s, c, 60000, &info));
    GKT_CHECK(info.state == GK_TASK_COMPLETED && strcmp(order, "123") == 0, "chain order '%s'", order);
    GKT_FAILS(ctx, gk_sched_add_dependency(s, c, a), GK_ERR_STATE, "is completed");
    /* a dependency on a task not yet made */
    memset(&d, 0, sizeof d);
    d.fn = cb_mark;
    d.user = (void *)"z";
    dep[0] = 1000;
    d.deps = dep;
    d.ndeps = 1;
    GKT_FAILS(ctx, gk_sched_submit(s, &d, &x, &why), GK_ERR_INVALID_ARGUMENT, "dependency 1000 does not exist");
    /* a failing callback: its error text, and its dependents fail naming it */
    memset(&d, 0, sizeof d);
    d.fn = cb_fail;
    d.name = "failer";
    GKT_OK(ctx, gk_sched_submit(s, &d, &f, NULL));
    d.fn = cb_mark;
    d.user = (void *)"n";
    d.name = "after";
    dep[0] = f;
    d.deps = dep;
    d.ndeps = 1;
    GKT_OK(ctx, gk_sched_submit(s, &d, &y, NULL));
    GKT_OK(ctx, gk_sched_wait(s, f, 60000, &info));
    GKT_CHECK(info.state == GK_TASK_FAILED && info.result == GK_ERR_INVALID_HANDLE && strstr(info.reason, "its callback returned GK_ERR_INVALID_HANDLE") &&
                  strstr(info.reason, "gk_fill"), "failer: %s %s '%s'", gk_task_state_name(info.state), gk_status_name(info.result), info.reason);
    GKT_OK(ctx, gk_sched_wait(s, y, 60000, &info));
    GKT_CHECK(info.state == GK_TASK_FAILED && strstr(info.reason, "dependency") && strstr(info.reason, "'failer' failed"), "dependent: %s '%s'",
              gk_task_state_name(info.state), info.reason);
    /* a deadline passes while the only worker... both workers are held */
    gate_init(&g);
    memset(&d, 0, sizeof d);
    d.fn = cb_gate;
    d.user = &g;
    GKT_OK(ctx, gk_sched_submit(s, &d, &a, NULL));
    GKT_OK(ctx, gk_sched_submit(s, &d, &b, NULL));
    memset(&d, 0, sizeof d);
    d.fn = cb_mark;
    d.user = (void *)"d";
    d.deadline_ms = 30;
    d.name = "late";
    GKT_OK(ctx, gk_sched_submit(s, &d, &c, NULL));
    GKT_OK(ctx, gk_sched_wait(s, c, 60000, &info));
    GKT_CHECK(info.state == GK_TASK_FAILED && info.result == GK_ERR_TIMEOUT && strstr(info.reason, "deadline of 30 ms") && info.deadline_missed,
              "deadline: %s %s '%s'", gk_task_state_name(info.state), gk_status_name(info.result), info.reason);
    gate_open(&g);
    GKT_OK(ctx, gk_sched_wait_all(s, 60000));
    /* cancelling a running task: refused with a message; it ends cancelled and its callback saw the request */
    {
        streamprobe p;
        gate g2;
        gate_init(&g2);
        memset(&p, 0, sizeof p);
        p.s = s;
        p.g = &g2;
        memset(&d, 0, sizeof d);
        d.fn = cb_cancel_probe;
        d.user = &p;
        d.name = "runner";
        GKT_OK(ctx, gk_sched_submit(s, &d, &x, NULL));
        gate_wait_entered(&g2);
        GKT_FAILS(ctx, gk_sched_cancel(s, x), GK_ERR_STATE, "is running and cannot be stopped");
        GKT_CHECK(gk_sched_cancel_requested(s) == 0, "not inside a task");
        gate_open(&g2);
        GKT_OK(ctx, gk_sched_wait(s, x, 60000, &info));
        GKT_CHECK(info.state == GK_TASK_CANCELLED && info.cancel_requested && p.cancel_seen == 1, "running cancel: %s seen %d",
                  gk_task_state_name(info.state), p.cancel_seen);
    }
    /* waiting with a timeout */
    gate_init(&g);
    memset(&d, 0, sizeof d);
    d.fn = cb_gate;
    d.user = &g;
    GKT_OK(ctx, gk_sched_submit(s, &d, &a, NULL));
    GKT_FAILS(ctx, gk_sched_wait(s, a, 20, NULL), GK_ERR_TIMEOUT, "after 20 ms");
    GKT_FAILS(ctx, gk_sched_wait_all(s, 20), GK_ERR_TIMEOUT, "running after 20 ms");
    gate_open(&g);
    GKT_OK(ctx, gk_sched_wait_all(s, 60000));
    /* shutdown: later submissions rejected */
    GKT_OK(ctx, gk_sched_shutdown(s, 0));
    memset(&d, 0, sizeof d);
    d.fn = cb_mark;
    d.user = (void *)"s";
    GKT_FAILS(ctx, gk_sched_submit(s, &d, &x, &why), GK_ERR_STATE, "shut down");
    GKT_CHECK(why.decision == GK_REJECT && why.reason == GK_REASON_SHUTDOWN && x == 0, "shutdown reason %s", gk_reason_name(why.reason));
    gk_sched_destroy(s);
    /* destroy with work queued behind a held worker: cancelled, nothing hangs */
    memset(&sd, 0, sizeof sd);
    sd.workers = 1;
    GKT_OK(ctx, gk_sched_create(ctx, &sd, &s));
    gate_init(&g);
    memset(&d, 0, sizeof d);
    d.fn = cb_gate;
    d.user = &g;
    GKT_OK(ctx, gk_sched_submit(s, &d, &a, NULL));
    gate_wait_entered(&g);
    d.fn = cb_mark;
    d.user = (void *)"c";
    GKT_OK(ctx, gk_sched_submit(s, &d, &b, NULL));
    GKT_OK(ctx, gk_sched_shutdown(s, 1));
    GKT_OK(ctx, gk_sched_task_info(s, b, &info));
    GKT_CHECK(info.state == GK_TASK_CANCELLED && strstr(info.reason, "shut down"), "cancelled by shutdown: %s '%s'", gk_task_state_name(info.state),
              info.reason);
    gate_open(&g);
    gk_sched_destroy(s);
    GKT_FAILS(NULL, gk_sched_submit(NULL, &d, &x, &why), GK_ERR_INVALID_HANDLE, "scheduler is NULL");
}

/* memory: a task over its reservation, BestEffort kept out of reserved memory */
static void test_memory(void) {
    gk_sched *s = NULL;
    gk_sched_desc sd;
    gk_task_desc d;
    gk_task_id a, b;
    gk_task_info info;
    gate g;
    size_t two = (size_t)2 << 20, one = (size_t)1 << 20, six = (size_t)6 << 20;
    gk_ctx *small = NULL;
    gk_ctx_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.backend = gk_ctx_backend(ctx);
    cd.memory_quota = (size_t)16 << 20;
    cd.disable_eviction = 1;
    GKT_OK(NULL, gk_ctx_create(&cd, &small));
    if (!small) return;
    memset(&sd, 0, sizeof sd);
    sd.workers = 2;
    sd.memory = (size_t)12 << 20;
    sd.besteffort_inflight = 1; /* BestEffort runs (paced) beside the Guaranteed task */
    GKT_OK(small, gk_sched_create(small, &sd, &s));
    memset(&d, 0, sizeof d);
    d.fn = cb_alloc;
    d.user = &two;
    d.name = "greedy";
    d.qos = GK_QOS_GUARANTEED;
    d.share = 0.2;
    d.memory = one;
    GKT_OK(small, gk_sched_submit(s, &d, &a, NULL));
    GKT_OK(small, gk_sched_wait(s, a, 60000, &info));
    GKT_CHECK(info.state == GK_TASK_FAILED && info.result == GK_ERR_OUT_OF_MEMORY && strstr(info.reason, "task 'greedy'") &&
                  strstr(info.reason, "over its memory reservation of 1048576"), "over reservation: %s '%s'", gk_task_state_name(info.state),
              info.reason);
    d.user = &one;
    d.memory = two;
    GKT_OK(small, gk_sched_submit(s, &d, &a, NULL));
    GKT_OK(small, gk_sched_wait(s, a, 60000, &info));
    GKT_CHECK(info.state == GK_TASK_COMPLETED && info.memory_peak >= one, "within: %s peak %zu", info.reason, info.memory_peak);
    /* a Guaranteed task holds 12 MiB reserved (held by a gate); BestEffort may not take it */
    gate_init(&g);
    memset(&d, 0, sizeof d);
    d.fn = cb_gate;
    d.user = &g;
    d.name = "reserver";
    d.qos = GK_QOS_GUARANTEED;
    d.share = 0.2;
    d.memory = (size_t)12 << 20;
    GKT_OK(small, gk_sched_submit(s, &d, &a, NULL));
    gate_wait_entered(&g);
    memset(&d, 0, sizeof d);
    d.fn = cb_alloc;
    d.user = &six;
    d.name = "scavenger";
    GKT_OK(small, gk_sched_submit(s, &d, &b, NULL));
    GKT_OK(small, gk_sched_wait(s, b, 60000, &info));
    GKT_CHECK(info.state == GK_TASK_FAILED && info.result == GK_ERR_OUT_OF_MEMORY && strstr(info.reason, "reserved for other tasks"),
              "BestEffort kept out: %s '%s'", gk_task_state_name(info.state), info.reason);
    d.user = &two; /* 16 - 12 reserved leaves room for this */
    GKT_OK(small, gk_sched_submit(s, &d, &b, NULL));
    GKT_OK(small, gk_sched_wait(s, b, 60000, &info));
    GKT_CHECK(info.state == GK_TASK_COMPLETED, "BestEffort in what is left: %s '%s'", gk_task_state_name(info.state), info.reason);
    gate_open(&g);
    GKT_OK(small, gk_sched_wait_all(s, 60000));
    d.user = &six; /* nothing reserved now */
    GKT_OK(small, gk_sched_submit(s, &d, &b, NULL));
    GKT_OK(small, gk_sched_wait(s, b, 60000, &info));
    GKT_CHECK(info.state == GK_TASK_COMPLETED, "BestEffort after the reservation ended: %s '%s'", gk_task_state_name(info.state), info.reason);
    /* a context destroyed with its scheduler alive: the scheduler goes first (ASan: no leak) */
    gk_ctx_destroy(small);
}

/* eviction takes BestEffort tasks' memory first, least recently used or not */
typedef struct keepjob { gk_tensor t; } keepjob;
static gk_status cb_keep(gk_ctx *c, gk_stream *s, void *u) {
    keepjob *k = (keepjob *)u;
    int64_t n = (int64_t)(2 << 20) / 4;
    gk_status st = gk_tensor_empty(c, GK_F32, 1, &n, &k->t);
    (void)s;
    if (st == GK_OK) st = gk_fill(c, k->t, 5.0);
    return st;
}
static void test_evict_order(void) {
    gk_ctx *small = NULL;
    gk_ctx_desc cd;
    gk_sched *s = NULL;
    gk_task_desc d;
    gk_task_id id;
    gk_task_info info;
    keepjob k;
    gk_tensor a, c, big;
    gk_tensor_info ia, ib;
    int64_t n2 = (int64_t)(2 << 20) / 4, n4 = (int64_t)(4 << 20) / 4;
    memset(&cd, 0, sizeof cd);
    cd.backend = gk_ctx_backend(ctx);
    cd.memory_quota = (size_t)8 << 20;
    GKT_OK(NULL, gk_ctx_create(&cd, &small));
    if (!small) return;
    GKT_OK(small, gk_tensor_empty(small, GK_F32, 1, &n2, &a)); /* oldest, outside the scheduler */
    GKT_OK(small, gk_fill(small, a, 1.0));
    GKT_OK(small, gk_sched_create(small, NULL, &s));
    memset(&d, 0, sizeof d);
    d.fn = cb_keep;
    d.user = &k;
    GKT_OK(small, gk_sched_submit(s, &d, &id, NULL));
    GKT_OK(small, gk_sched_wait(s, id, 60000, &info));
    GKT_CHECK(info.state == GK_TASK_COMPLETED, "keeper: %s", info.reason);
    GKT_OK(small, gk_tensor_empty(small, GK_F32, 1, &n2, &c));
    GKT_OK(small, gk_fill(small, c, 1.0));
    GKT_OK(small, gk_tensor_empty(small, GK_F32, 1, &n4, &big)); /* 2 MiB must go */
    GKT_OK(small, gk_tensor_info_get(small, a, &ia));
    GKT_OK(small, gk_tensor_info_get(small, k.t, &ib));
    GKT_CHECK(ia.resident && !ib.resident, "the BestEffort task's tensor is evicted first (oldest resident %d, BestEffort's resident %d)", ia.resident,
              ib.resident);
    {
        float h[4];
        gk_tensor v;
        GKT_OK(small, gk_view_slice(small, k.t, 0, 0, 4, 1, &v));
        GKT_OK(small, gk_contiguous(small, v, &c)); /* restored on use */
        GKT_OK(small, gk_copy_to_host(small, c, h, sizeof h));
        GKT_CHECK(h[0] == 5.0f && h[3] == 5.0f, "restored: %g %g", h[0], h[3]);
    }
    gk_ctx_destroy(small); /* the scheduler too */
}

/* a graph as a task */
static void test_graph(void) {
    gk_sched *s = NULL;
    gk_stream *cap;
    gk_graph *gr = NULL;
    gk_task_desc d;
    gk_task_id id;
    gk_task_info info;
    gk_tensor t;
    int64_t n = 256, i;
    float h[256];
    int bad = 0;
    GKT_OK(ctx, gk_stream_create(ctx, GK_PRIORITY_NORMAL, &cap));
    GKT_OK(ctx, gk_tensor_empty(ctx, GK_F32, 1, &n, &t));
    GKT_OK(ctx, gk_fill(ctx, t, 1.0));
    GKT_OK(ctx, gk_sync(ctx));
    GKT_OK(ctx, gk_set_stream(ctx, cap));
    GKT_OK(ctx, gk_graph_begin(ctx, cap));
    GKT_OK(ctx, gk_scale(ctx, t, t, 3.0));
    GKT_OK(ctx, gk_graph_end(ctx, cap, &gr));
    GKT_OK(ctx, gk_set_stream(ctx, NULL));
    GKT_OK(ctx, gk_sched_create(ctx, NULL, &s));
    memset(&d, 0, sizeof d);
    d.graph = gr;
    d.qos = GK_QOS_GUARANTEED;
    d.share = 1;
    GKT_OK(ctx, gk_sched_submit(s, &d, &id, NULL));
    GKT_OK(ctx, gk_sched_wait(s, id, 60000, &info));
    GKT_OK(ctx, gk_sched_submit(s, &d, &id, NULL));
    GKT_OK(ctx, gk_sched_wait(s, id, 60000, &info));
    GKT_CHECK(info.state == GK_TASK_COMPLETED, "graph task %s '%s'", gk_task_state_name(info.state), info.reason);
    GKT_OK(ctx, gk_copy_to_host(ctx, t, h, sizeof h));
    for (i = 0; i < n; i++) bad += h[i] != 9.0f;
    GKT_CHECK(bad == 0, "graph ran twice: %d wrong (h[0] %g)", bad, h[0]);
    gk_sched_destroy(s);
    gk_graph_destroy(ctx, gr);
    gk_tensor_free(ctx, t);
    gk_stream_destroy(ctx, cap);
}

/* many threads submitting thousands of tasks: each runs exactly once */
#define NSUB 8
#define PER 400
static gk_sched *many_s;
static volatile int runs[NSUB * PER];
static gk_status cb_count(gk_ctx *c, gk_stream *s, void *u) {
    (void)c; (void)s;
    __atomic_add_fetch(&runs[(int)(intptr_t)u], 1, __ATOMIC_RELAXED);
    return GK_OK;
}
static int sub_fail;
static void *submitter(void *arg) {
    int k, me = (int)(intptr_t)arg;
    gk_task_id prev = 0;
    for (k = 0; k < PER; k++) {
        gk_task_desc d;
        gk_task_id id;
        memset(&d, 0, sizeof d);
        d.fn = cb_count;
        d.user = (void *)(intptr_t)(me * PER + k);
        d.qos = (gk_qos)(k % 3);
        if (d.qos != GK_QOS_BESTEFFORT) d.share = 0.01;
        if (prev && k % 5 == 0) { d.deps = &prev; d.ndeps = 1; }
        if (gk_sched_submit(many_s, &d, &id, NULL) != GK_OK) __atomic_add_fetch(&sub_fail, 1, __ATOMIC_RELAXED);
        prev = id;
    }
    return NULL;
}
static void test_many(void) {
    gk_sched_desc sd;
    pthread_t th[NSUB];
    gk_sched_stats st;
    int k, wrong = 0;
    uint64_t done = 0;
    memset(&sd, 0, sizeof sd);
    sd.workers = 4;
    sd.max_queued = NSUB * PER;
    sd.keep_finished = 100;
    GKT_OK(ctx, gk_sched_create(ctx, &sd, &many_s));
    for (k = 0; k < NSUB; k++) pthread_create(&th[k], NULL, submitter, (void *)(intptr_t)k);
    for (k = 0; k < NSUB; k++) pthread_join(th[k], NULL);
    GKT_OK(ctx, gk_sched_wait_all(many_s, 120000));
    for (k = 0; k < NSUB * PER; k++) wrong += runs[k] != 1;
    GKT_CHECK(sub_fail == 0 && wrong == 0, "%d submissions failed, %d tasks not run exactly once", sub_fail, wrong);
    GKT_OK(ctx, gk_sched_stats_get(many_s, &st));
    for (k = 0; k < 3; k++) done += st.cls[k].completed;
    GKT_CHECK(done == NSUB * PER, "completed %llu of %d", (unsigned long long)done, NSUB * PER);
    {
        gk_task_info info;
        GKT_OK(ctx, gk_sched_task_info(many_s, 1, &info));
        GKT_CHECK(info.state == GK_TASK_COMPLETED && strstr(info.reason, "forgotten"), "old task kept as a state: %s", info.reason);
    }
    gk_sched_destroy(many_s);
}

int main(void) {
    gkt_seed();
    ctx = gkt_dut();
    if (!ctx) return 1;
    printf("test_sched on %s\n", gk_ctx_backend(ctx) == GK_BACKEND_CUDA ? "CUDA" : "CPU");
    test_basic();
    test_admission();
    test_order();
    test_pacing();
    test_deps_and_faults();
    test_memory();
    test_evict_order();
    test_graph();
    test_many();
    gk_ctx_destroy(ctx);
    return gkt_done("test_sched");
}
