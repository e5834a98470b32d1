/* test_xfer: the async transfer engine (>>api_xfer).
   1. Round trips, byte-exact, of fresh random data: pageable and pinned host
      memory (direct copies), many chunks, a tensor filled and read in parts
      at byte offsets, files (path and fd) against reading the file.
   2. Ordering with compute: a download after an op sees its result without a
      host sync; gk_xfer_stream_wait orders an op after an upload.
   3. Priorities, on a CPU context where the order is deterministic: the
      engine's completion thread is held by a request whose callback waits on
      a gate, so its one worker can take a few chunks at most; a large
      low-priority upload, then smaller higher-priority ones, are submitted;
      once the gate opens the higher priorities complete first.
   4. Callbacks run exactly once; a callback may call gpukit (and submit), but
      waiting on its own engine from it fails instead of deadlocking.
   5. Several threads submitting and waiting on two thousand requests: none
      lost or run twice (also under ThreadSanitizer).
   6. Bad input and faults: NULL arguments, ranges past the tensor, a
      non-contiguous or freed tensor, zero bytes, a missing or short file, a
      file that shrinks while it is read, unknown ids, a timeout, a tensor
      freed while its transfer is in flight, destroy with requests in flight
      (cancelled) and submits while it runs, the pool's eviction and restore.
   gkt_dut() runs CUDA where a GPU is, else the CPU backend. */
#define GPUKIT_IMPLEMENTATION
#include "gpukit.h"
#include "tests/gkt.h"

static gk_ctx *dut;

static void fill_random(unsigned char *p, size_t n) {
    size_t i;
    for (i = 0; i + 8 <= n; i += 8) {
        unsigned long long v = gkt_u64();
        memcpy(p + i, &v, 8);
    }
    for (; i < n; i++) p[i] = (unsigned char)gkt_u64();
}
static gk_tensor make_u8(gk_ctx *ctx, int64_t n) {
    gk_tensor t;
    memset(&t, 0, sizeof t);
    GKT_OK(ctx, gk_tensor_empty(ctx, GK_U8, 1, &n, &t));
    return t;
}
static gk_xfer *make_engine(gk_ctx *ctx, size_t chunk, int buffers, int workers) {
    gk_xfer_desc d;
    gk_xfer *x = NULL;
    memset(&d, 0, sizeof d);
    d.chunk_bytes = chunk;
    d.staging_bytes = chunk * (size_t)buffers;
    d.workers = workers;
    GKT_OK(ctx, gk_xfer_create(ctx, &d, &x));
    return x;
}
static size_t first_diff(const unsigned char *a, const unsigned char *b, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        if (a[i] != b[i]) return i;
    return n;
}

/* ---- a gate: a request whose callback holds the engine's completion thread ---- */
typedef struct gate {
    gk__mutex mu;
    gk__cond cv;
    int entered, open;
} gate;
static void gate_init(gate *g) {
    memset(g, 0, sizeof *g);
    gk__mutex_init(&g->mu);
    gk__cond_init(&g->cv);
}
static void gate_free(gate *g) {
    gk__cond_destroy(&g->cv);
    gk__mutex_destroy(&g->mu);
}
static void gate_cb(gk_xfer *x, gk_xfer_id id, gk_status st, const char *msg, void *user) {
    gate *g = (gate *)user;
    (void)x; (void)id; (void)st; (void)msg;
    gk__lock(&g->mu);
    g->entered = 1;
    gk__cond_broadcast(&g->cv);
    while (!g->open) gk__cond_wait(&g->cv, &g->mu);
    gk__unlock(&g->mu);
}
/* submits the gate (a zero-byte upload: it goes to the host-to-device lane) and waits until it holds the lane */
static gk_xfer_id gate_close(gk_xfer *x, gk_tensor t, gate *g) {
    gk_xfer_opts o;
    gk_xfer_id id = 0;
    memset(&o, 0, sizeof o);
    o.done = gate_cb;
    o.user = g;
    GKT_OK(dut, gk_xfer_upload(x, t, 0, NULL, 0, &o, &id));
    gk__lock(&g->mu);
    while (!g->entered) gk__cond_wait(&g->cv, &g->mu);
    gk__unlock(&g->mu);
    return id;
}
static void gate_open(gate *g) {
    gk__lock(&g->mu);
    g->open = 1;
    gk__cond_broadcast(&g->cv);
    gk__unlock(&g->mu);
}

/* ---- completion records ---- */
#define MAXREC 4096
typedef struct recs {
    gk__mutex mu;
    int n;
    gk_xfer_id order[MAXREC];
    gk_status status[MAXREC];
    int calls[MAXREC];              /* by id */
} recs;
static recs R;
static void rec_cb(gk_xfer *x, gk_xfer_id id, gk_status st, const char *msg, void *user) {
    (void)x; (void)msg; (void)user;
    gk__lock(&R.mu);
    if (R.n < MAXREC) R.order[R.n++] = id;
    if (id < MAXREC) { R.calls[id]++; R.status[id] = st; }
    gk__unlock(&R.mu);
}
static void rec_reset(void) {
    gk__lock(&R.mu);
    R.n = 0;
    memset(R.calls, 0, sizeof R.calls);
    memset(R.status, 0, sizeof R.status);
    gk__unlock(&R.mu);
}
static int rec_pos(gk_xfer_id id) {
    int i;
    for (i = 0; i < R.n; i++)
        if (R.order[i] == id) return i;
    return -1;
}

/* ---- 1. round trips ---- */
static void round_trips(void) {
    const size_t N = (3u << 20) + 12345; /* many 64 KiB chunks and a ragged end */
    gk_xfer *x = make_engine(dut, (size_t)64 << 10, 4, 3);
    gk_tensor t = make_u8(dut, (int64_t)N);
    unsigned char *src = (unsigned char *)malloc(N), *back = (unsigned char *)malloc(N), *pin = NULL, *pin2 = NULL;
    gk_xfer_id a = 0, b = 0;
    gk_xfer_stats st;
    gk_xfer_opts o;
    size_t d;
    if (!x) return;
    fill_random(src, N);
    memset(back, 0, N);
    GKT_OK(dut, gk_xfer_upload(x, t, 0, src, N, NULL, &a));
    GKT_OK(dut, gk_xfer_wait(x, a, -1));
    GKT_OK(dut, gk_xfer_download(x, t, 0, back, N, NULL, &b));
    GKT_CHECK(b == a + 1, "ids increase: %llu then %llu", (unsigned long long)a, (unsigned long long)b);
    GKT_OK(dut, gk_xfer_wait(x, b, -1));
    d = first_diff(src, back, N);
    GKT_CHECK(d == N, "pageable round trip of %zu bytes differs at byte %zu", N, d);
    /* the same through gk_copy_to_host: the engine wrote the tensor itself */
    memset(back, 0, N);
    GKT_OK(dut, gk_copy_to_host(dut, t, back, N));
    GKT_CHECK(first_diff(src, back, N) == N, "gk_copy_to_host after an engine upload");
    /* pinned host memory: copied directly (detected on CUDA; said so on CPU) */
    GKT_OK(dut, gk_host_alloc(dut, N, (void **)&pin));
    GKT_OK(dut, gk_host_alloc(dut, N, (void **)&pin2));
    if (pin && pin2) {
        gk_xfer_stats s0;
        memset(&o, 0, sizeof o);
        o.host = gk_ctx_backend(dut) == GK_BACKEND_CUDA ? GK_XFER_HOST_DETECT : GK_XFER_HOST_PINNED;
        fill_random(pin, N);
        memset(pin2, 0, N);
        GKT_OK(dut, gk_xfer_stats_get(x, &s0));
        GKT_OK(dut, gk_xfer_upload(x, t, 0, pin, N, &o, &a));
        GKT_OK(dut, gk_xfer_wait(x, a, -1)); /* (requests are not ordered with each other) */
        GKT_OK(dut, gk_xfer_download(x, t, 0, pin2, N, &o, &b));
        GKT_OK(dut, gk_xfer_flush(x));
        GKT_CHECK(first_diff(pin, pin2, N) == N, "pinned round trip differs");
        GKT_OK(dut, gk_xfer_stats_get(x, &st));
        GKT_CHECK(st.bytes_direct - s0.bytes_direct == 2 * N && st.bytes_staged == s0.bytes_staged, "pinned memory went direct: %llu direct, %llu staged bytes",
                  (unsigned long long)(st.bytes_direct - s0.bytes_direct), (unsigned long long)(st.bytes_staged - s0.bytes_staged));
        /* forced through the staging ring */
        o.host = GK_XFER_HOST_PAGEABLE;
        memset(pin2, 0, N);
        GKT_OK(dut, gk_xfer_download(x, t, 0, pin2, N, &o, &b));
        GKT_OK(dut, gk_xfer_wait(x, b, -1));
        GKT_CHECK(first_diff(pin, pin2, N) == N, "pinned memory staged on request differs");
    }
    GKT_OK(dut, gk_host_free(dut, pin));
    GKT_OK(dut, gk_host_free(dut, pin2));
    GKT_OK(dut, gk_xfer_stats_get(x, &st));
    GKT_CHECK(st.requests_h2d == 2 && st.requests_d2h == 3 && st.bytes_h2d == 2 * N && st.bytes_d2h == 3 * N && st.pending == 0 && st.failed == 0,
              "stats: %llu/%llu requests, %llu/%llu bytes, %llu pending", (unsigned long long)st.requests_h2d, (unsigned long long)st.requests_d2h,
              (unsigned long long)st.bytes_h2d, (unsigned long long)st.bytes_d2h, (unsigned long long)st.pending);
    GKT_CHECK(st.chunks >= 5 * (N / (64u << 10)) && st.busy_ms > 0 && st.gbps > 0 && st.workers == 3 && st.buffers == 4 && st.chunk_bytes == (64u << 10),
              "stats: %llu chunks, %.3f ms busy, %.3f GB/s, %d workers, %d buffers", (unsigned long long)st.chunks, st.busy_ms, st.gbps, st.workers, st.buffers);
    printf("round trips: %zu bytes x 5 in %llu chunks, %.2f GB/s while busy\n", N, (unsigned long long)st.chunks, st.gbps);
    gk_tensor_free(dut, t);
    GKT_OK(dut, gk_xfer_destroy(x));
    free(src);
    free(back);
}

/* a tensor filled in parts at byte offsets (with assorted priorities) and read back in other parts */
static void parts(void) {
    const size_t N = (1u << 20) + 777;
    gk_xfer *x = make_engine(dut, (size_t)64 << 10, 3, 2);
    gk_tensor t = make_u8(dut, (int64_t)N);
    unsigned char *src = (unsigned char *)malloc(N), *back = (unsigned char *)malloc(N);
    size_t at = 0, d;
    int k = 0;
    gk_xfer_opts o;
    if (!x) return;
    fill_random(src, N);
    memset(back, 0xEE, N);
    memset(&o, 0, sizeof o);
    while (at < N) {
        size_t n = 1 + (size_t)(gkt_u64() % (200u << 10));
        if (n > N - at) n = N - at;
        o.priority = (int)(gkt_u64() % 5) - 2;
        GKT_OK(dut, gk_xfer_upload(x, t, at, src + at, n, &o, NULL));
        at += n;
        k++;
    }
    GKT_OK(dut, gk_xfer_flush(x));
    for (at = 0; at < N;) {
        size_t n = 1 + (size_t)(gkt_u64() % (300u << 10));
        if (n > N - at) n = N - at;
        GKT_OK(dut, gk_xfer_download(x, t, at, back + at, n, NULL, NULL));
        at += n;
    }
    GKT_OK(dut, gk_xfer_flush(x));
    d = first_diff(src, back, N);
    GKT_CHECK(d == N, "filled in %d parts, read in others: differs at byte %zu", k, d);
    /* a typed tensor: offsets are bytes into its data, also of a view */
    {
        int64_t sh[2] = { 64, 48 };
        gk_tensor f, row;
        float h[64 * 48], r[48], v[48];
        int i;
        for (i = 0; i < 64 * 48; i++) h[i] = (float)gkt_uniform(-1, 1);
        for (i = 0; i < 48; i++) v[i] = (float)i;
        GKT_OK(dut, gk_tensor_empty(dut, GK_F32, 2, sh, &f));
        GKT_OK(dut, gk_xfer_upload(x, f, 0, h, sizeof h, NULL, NULL));
        GKT_OK(dut, gk_xfer_flush(x));
        GKT_OK(dut, gk_view_slice(dut, f, 0, 10, 11, 1, &row)); /* row 10: a view at an element offset */
        GKT_OK(dut, gk_xfer_download(x, row, 0, r, sizeof r, NULL, NULL));
        GKT_OK(dut, gk_xfer_flush(x)); /* (requests are not ordered with each other) */
        GKT_OK(dut, gk_xfer_upload(x, row, 8 * sizeof(float), v, 4 * sizeof(float), NULL, NULL));
        GKT_OK(dut, gk_xfer_flush(x));
        GKT_CHECK(memcmp(r, h + 10 * 48, sizeof r) == 0, "a row view downloaded");
        memcpy(h + 10 * 48 + 8, v, 4 * sizeof(float));
        {
            float all[64 * 48];
            GKT_OK(dut, gk_copy_to_host(dut, f, all, sizeof all));
            GKT_CHECK(memcmp(all, h, sizeof all) == 0, "4 floats written into a row view at byte 32");
        }
        gk_tensor_free(dut, row);
        gk_tensor_free(dut, f);
    }
    gk_tensor_free(dut, t);
    GKT_OK(dut, gk_xfer_destroy(x));
    free(src);
    free(back);
}

/* ---- 2. ordering with compute ---- */
static void with_compute(void) {
    const int64_t n = (int64_t)1 << 20;
    gk_xfer *x = make_engine(dut, (size_t)256 << 10, 4, 2);
    gk_stream *s = NULL;
    gk_tensor t, u;
    float *h = (float *)malloc(sizeof(float) * (size_t)n), *g = (float *)malloc(sizeof(float) * (size_t)n);
    gk_xfer_id id = 0;
    int64_t i, bad = 0;
    if (!x) return;
    GKT_OK(dut, gk_stream_create(dut, GK_PRIORITY_NORMAL, &s));
    GKT_OK(dut, gk_tensor_empty(dut, GK_F32, 1, &n, &t));
    GKT_OK(dut, gk_tensor_empty(dut, GK_F32, 1, &n, &u));
    /* an op on s, then a download with no host sync: the copy waits for the op */
    GKT_OK(dut, gk_set_stream(dut, s));
    GKT_OK(dut, gk_fill(dut, t, 3.5));
    GKT_OK(dut, gk_xfer_download(x, t, 0, g, sizeof(float) * (size_t)n, NULL, &id));
    GKT_OK(dut, gk_xfer_wait(x, id, -1));
    for (i = 0; i < n; i++) bad += g[i] != 3.5f;
    GKT_CHECK(bad == 0, "a download after gk_fill on a stream: %lld elements not 3.5", (long long)bad);
    /* an upload, the stream made to wait for it, then an op on it */
    for (i = 0; i < n; i++) h[i] = (float)gkt_uniform(-4, 4);
    GKT_OK(dut, gk_xfer_upload(x, t, 0, h, sizeof(float) * (size_t)n, NULL, &id));
    GKT_OK(dut, gk_xfer_stream_wait(x, id, s));
    GKT_OK(dut, gk_scale(dut, u, t, 2.0));
    GKT_OK(dut, gk_copy_to_host(dut, u, g, sizeof(float) * (size_t)n));
    for (bad = 0, i = 0; i < n; i++) bad += g[i] != 2.0f * h[i];
    GKT_CHECK(bad == 0, "gk_scale after gk_xfer_stream_wait: %lld elements wrong", (long long)bad);
    GKT_OK(dut, gk_xfer_wait(x, id, -1));
    GKT_OK(dut, gk_set_stream(dut, NULL));
    gk_tensor_free(dut, t);
    gk_tensor_free(dut, u);
    GKT_OK(dut, gk_stream_destroy(dut, s));
    GKT_OK(dut, gk_xfer_destroy(x));
    free(h);
    free(g);
}

/* ---- 3. priorities (a CPU context: deterministic) ---- */
static void priorities(void) {
    gk_ctx *ref = gkt_ref(), *save = dut;
    gk_xfer *x;
    gk_tensor t;
    gate g;
    gk_xfer_opts o;
    gk_xfer_id big = 0, hi = 0, mid = 0, g_id;
    const size_t C = (size_t)64 << 10, BIG = 40 * C;
    unsigned char *buf = (unsigned char *)malloc(BIG), *back = (unsigned char *)malloc(BIG + 2 * C);
    dut = ref;
    x = make_engine(ref, C, 4, 1); /* one worker, four buffers: at most 5 chunks taken while the gate holds */
    t = make_u8(ref, (int64_t)BIG + 2 * (int64_t)C);
    fill_random(buf, BIG);
    gate_init(&g);
    rec_reset();
    if (x) {
        g_id = gate_close(x, t, &g);
        memset(&o, 0, sizeof o);
        o.done = rec_cb;
        o.priority = 0;
        GKT_OK(ref, gk_xfer_upload(x, t, 0, buf, BIG, &o, &big));
        o.priority = 5;
        GKT_OK(ref, gk_xfer_upload(x, t, BIG, buf, C / 2, &o, &hi));
        o.priority = 2;
        GKT_OK(ref, gk_xfer_upload(x, t, BIG + C, buf, C - 100, &o, &mid));
        gate_open(&g);
        GKT_OK(ref, gk_xfer_wait(x, g_id, -1));
        GKT_OK(ref, gk_xfer_flush(x));
        GKT_CHECK(R.n == 3 && rec_pos(hi) == 0 && rec_pos(mid) == 1 && rec_pos(big) == 2,
                  "completion order: priority 5 (id %llu), 2 (id %llu), then the large priority-0 upload (id %llu) submitted first; got %d records: %llu %llu %llu",
                  (unsigned long long)hi, (unsigned long long)mid, (unsigned long long)big, R.n, (unsigned long long)R.order[0], (unsigned long long)R.order[1],
                  (unsigned long long)R.order[2]);
        GKT_OK(ref, gk_copy_to_host(ref, t, back, BIG + 2 * C));
        GKT_CHECK(first_diff(buf, back, BIG) == BIG, "the large upload's data");
        GKT_OK(ref, gk_xfer_destroy(x));
    }
    gate_free(&g);
    gk_tensor_free(ref, t);
    gk_ctx_destroy(ref);
    dut = save;
    free(buf);
    free(back);
}

/* ---- 4. callbacks ---- */
typedef struct cbx {
    gk_xfer *x;
    gk_tensor t;
    gk_status wait_self, flush_self, destroy_self, info, submit;
    gk_xfer_id sub_id;
    unsigned char byte;
} cbx;
static void calling_cb(gk_xfer *x, gk_xfer_id id, gk_status st, const char *msg, void *user) {
    cbx *c = (cbx *)user;
    gk_tensor_info info;
    (void)st; (void)msg;
    rec_cb(x, id, st, msg, NULL);
    c->wait_self = gk_xfer_wait(x, id, -1);
    c->flush_self = gk_xfer_flush(x);
    c->destroy_self = gk_xfer_destroy(x);
    c->info = gk_tensor_info_get(dut, c->t, &info);
    c->submit = gk_xfer_upload(x, c->t, 1, &c->byte, 1, NULL, &c->sub_id);
}
static void callbacks(void) {
    gk_xfer *x = make_engine(dut, (size_t)64 << 10, 4, 2);
    gk_tensor t = make_u8(dut, 1 << 20);
    static unsigned char src[1 << 20], dl[1 << 20];
    gk_xfer_opts o;
    gk_xfer_id ids[64];
    cbx c;
    int i, once = 1;
    if (!x) return;
    fill_random(src, sizeof src);
    rec_reset();
    memset(&o, 0, sizeof o);
    o.done = rec_cb;
    for (i = 0; i < 64; i++) {
        /* uploads into the first half, downloads from the second into buffers of their own */
        size_t n = (size_t)(i * 7919) % (sizeof src / 4), off = (size_t)(i * 104729) % (sizeof src / 4);
        if (i % 3 == 0) GKT_OK(dut, gk_xfer_upload(x, t, off, src + off, n, &o, &ids[i]));
        else GKT_OK(dut, gk_xfer_download(x, t, sizeof src / 2 + off, dl + (size_t)i * (sizeof dl / 64), n % (sizeof dl / 64), &o, &ids[i]));
    }
    GKT_OK(dut, gk_xfer_flush(x));
    for (i = 0; i < 64; i++) once &= ids[i] < MAXREC && R.calls[ids[i]] == 1 && R.status[ids[i]] == GK_OK;
    GKT_CHECK(once && R.n == 64, "64 callbacks, each once with GK_OK (%d calls)", R.n);
    /* a callback that calls gpukit, and its own engine */
    memset(&c, 0, sizeof c);
    c.x = x;
    c.t = t;
    c.byte = 0xA5;
    o.done = calling_cb;
    o.user = &c;
    GKT_OK(dut, gk_xfer_upload(x, t, 0, src, 1000, &o, &ids[0]));
    GKT_OK(dut, gk_xfer_wait(x, ids[0], -1));
    GKT_CHECK(c.wait_self == GK_ERR_STATE && c.flush_self == GK_ERR_STATE && c.destroy_self == GK_ERR_STATE,
              "waits on the engine from its callback: wait %s, flush %s, destroy %s", gk_status_name(c.wait_self), gk_status_name(c.flush_self),
              gk_status_name(c.destroy_self));
    GKT_CHECK(c.info == GK_OK && c.submit == GK_OK && c.sub_id > ids[0], "gpukit calls from a callback: info %s, submit %s", gk_status_name(c.info),
              gk_status_name(c.submit));
    GKT_OK(dut, gk_xfer_wait(x, c.sub_id, -1));
    {
        unsigned char all[1000];
        GKT_OK(dut, gk_xfer_download(x, t, 0, all, sizeof all, NULL, &ids[1]));
        GKT_OK(dut, gk_xfer_wait(x, ids[1], -1));
        GKT_CHECK(all[0] == src[0] && all[1] == 0xA5 && memcmp(all + 2, src + 2, 998) == 0, "the callback's own upload landed");
    }
    gk_tensor_free(dut, t);
    GKT_OK(dut, gk_xfer_destroy(x));
}

/* ---- 5. many threads ---- */
#define NT 4
#define PER 250
typedef struct worker_arg {
    gk_xfer *x;
    gk_tensor t;
    int k;
    size_t base, span;
    unsigned char *src, *back;
    gk_xfer_id up[PER], down[PER];
    size_t off[PER], len[PER];
    int failures;
    unsigned long long seed;
} worker_arg;
static int calls_by_thread[NT][2 * PER + 1];
static void thread_cb(gk_xfer *x, gk_xfer_id id, gk_status st, const char *msg, void *user) {
    int *slot = (int *)user;
    (void)x; (void)id; (void)msg;
    if (st == GK_OK) (*slot)++;
    else *slot += 1000;
}
static void worker_main(void *p) {
    worker_arg *a = (worker_arg *)p;
    gk_xfer_opts o;
    size_t at = 0;
    int i, j;
    unsigned long long s = a->seed;
    memset(&o, 0, sizeof o);
    o.done = thread_cb;
    /* PER uploads to disjoint ranges of the thread's span, waited in a shuffled order */
    for (i = 0; i < PER; i++) {
        size_t n;
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        n = 1 + (size_t)(s % (a->span / PER * 2 - 1));
        if (at + n > a->span || i == PER - 1) n = a->span - at < n ? a->span - at : n;
        a->off[i] = at;
        a->len[i] = n;
        at += n;
        o.priority = (int)(s % 3);
        o.user = &calls_by_thread[a->k][i];
        if (gk_xfer_upload(a->x, a->t, a->base + a->off[i], a->src + a->off[i], n, &o, &a->up[i]) != GK_OK) a->failures++;
    }
    for (i = 0; i < PER; i++) {
        j = (i * 37) % PER;
        if (gk_xfer_wait(a->x, a->up[j], -1) != GK_OK) a->failures++;
    }
    for (i = 0; i < PER; i++) {
        o.user = &calls_by_thread[a->k][PER + i];
        if (gk_xfer_download(a->x, a->t, a->base + a->off[i], a->back + a->off[i], a->len[i], &o, &a->down[i]) != GK_OK) a->failures++;
    }
    for (i = PER - 1; i >= 0; i--)
        if (gk_xfer_wait(a->x, a->down[i], -1) != GK_OK) a->failures++;
}
static void many_threads(void) {
    const size_t SPAN = (size_t)PER * 3000;
    gk_xfer *x = make_engine(dut, (size_t)64 << 10, 6, 3);
    gk_tensor t = make_u8(dut, (int64_t)(SPAN * NT));
    worker_arg *args = (worker_arg *)calloc(NT, sizeof(worker_arg));
    gk__thread th[NT];
    gk_xfer_stats st;
    int k, i, bad_calls = 0, failures = 0, ok_data = 1;
    if (!x) return;
    memset(calls_by_thread, 0, sizeof calls_by_thread);
    for (k = 0; k < NT; k++) {
        args[k].x = x;
        args[k].t = t;
        args[k].k = k;
        args[k].base = SPAN * (size_t)k;
        args[k].span = SPAN;
        args[k].src = (unsigned char *)malloc(SPAN);
        args[k].back = (unsigned char *)malloc(SPAN);
        args[k].seed = gkt_u64() | 1;
        fill_random(args[k].src, SPAN);
        memset(args[k].back, 0, SPAN);
    }
    for (k = 0; k < NT; k++) GKT_CHECK(gk__thread_create(&th[k], worker_main, &args[k]) == 0, "thread %d", k);
    for (k = 0; k < NT; k++) gk__thread_join(th[k]);
    for (k = 0; k < NT; k++) {
        size_t used = args[k].off[PER - 1] + args[k].len[PER - 1];
        failures += args[k].failures;
        for (i = 0; i < 2 * PER; i++) bad_calls += calls_by_thread[k][i] != 1;
        ok_data &= first_diff(args[k].src, args[k].back, used) == used;
    }
    GKT_CHECK(failures == 0, "%d submits or waits failed", failures);
    GKT_CHECK(bad_calls == 0, "%d of %d callbacks did not run exactly once", bad_calls, NT * 2 * PER);
    GKT_CHECK(ok_data, "every thread's ranges came back as uploaded");
    GKT_OK(dut, gk_xfer_stats_get(x, &st));
    GKT_CHECK(st.requests_h2d + st.requests_d2h == (uint64_t)(2 * NT * PER) && st.pending == 0, "%llu requests completed, %llu pending (want %d, 0)",
              (unsigned long long)(st.requests_h2d + st.requests_d2h), (unsigned long long)st.pending, 2 * NT * PER);
    printf("threads: %d x %d requests, %llu chunks\n", NT, 2 * PER, (unsigned long long)st.chunks);
    for (k = 0; k < NT; k++) { free(args[k].src); free(args[k].back); }
    free(args);
    gk_tensor_free(dut, t);
    GKT_OK(dut, gk_xfer_destroy(x));
}

/* ---- files ---- */
static char fpath[256];
static void write_file(const unsigned char *p, size_t n) {
    FILE *f = fopen(fpath, "wb");
    if (!f) { printf("cannot write %s\n", fpath); exit(2); }
    if (n) fwrite(p, 1, n, f);
    fclose(f);
}
static void files(void) {
    const size_t N = (2u << 20) + 4321;
    gk_xfer *x = make_engine(dut, (size_t)64 << 10, 4, 4);
    gk_tensor t = make_u8(dut, (int64_t)N);
    unsigned char *data = (unsigned char *)malloc(N), *back = (unsigned char *)malloc(N), *ref = (unsigned char *)malloc(N);
    gk_xfer_id id = 0;
    gk_xfer_stats st;
    FILE *f;
    int fd;
    char missing[300];
    if (!x) return;
    snprintf(fpath, sizeof fpath, "/tmp/gk_test_xfer_%lu.bin", gk__pid());
    fill_random(data, N);
    write_file(data, N);
    /* the whole file by path, then parts at offsets by fd, checked against reading the file */
    GKT_OK(dut, gk_xfer_upload_file(x, t, 0, fpath, -1, 0, N, NULL, &id));
    GKT_OK(dut, gk_xfer_wait(x, id, -1));
    GKT_OK(dut, gk_copy_to_host(dut, t, back, N));
    f = fopen(fpath, "rb");
    GKT_CHECK(f && fread(ref, 1, N, f) == N, "reading the file back");
    if (f) fclose(f);
    GKT_CHECK(first_diff(ref, back, N) == N, "a file uploaded by path differs from the file at byte %zu", first_diff(ref, back, N));
    fd = gk__xfer_open(fpath);
    GKT_CHECK(fd >= 0, "open %s", fpath);
    if (fd >= 0) {
        size_t a = 1000, b = 700000, c = (1u << 20) + 3; /* file [a, a + c) -> tensor [b, b + c) */
        memset(back, 0, N);
        GKT_OK(dut, gk_xfer_upload(x, t, 0, back, N, NULL, NULL)); /* zeros */
        GKT_OK(dut, gk_xfer_flush(x));
        GKT_OK(dut, gk_xfer_upload_file(x, t, b, "named fd", fd, a, c, NULL, &id));
        GKT_OK(dut, gk_xfer_upload_file(x, t, 0, NULL, fd, N - 10, 10, NULL, NULL));
        GKT_OK(dut, gk_xfer_flush(x));
        GKT_OK(dut, gk_copy_to_host(dut, t, back, N));
        GKT_CHECK(memcmp(back + b, ref + a, c) == 0 && memcmp(back, ref + N - 10, 10) == 0, "file parts by fd at offsets");
        GKT_CHECK(back[10] == 0 && back[b - 1] == 0 && (b + c >= N || back[b + c] == 0), "nothing written outside the parts");
        /* too short, by fd: names it */
        GKT_FAILS(dut, gk_xfer_upload_file(x, t, 0, "the-fd-name", fd, N - 5, 10, NULL, &id), GK_ERR_IO, "'the-fd-name' is too short");
        GKT_FAILS(dut, gk_xfer_upload_file(x, t, 0, NULL, fd, N + 1, 1, NULL, &id), GK_ERR_IO, "fd ");
        gk__xfer_close(fd);
    }
    /* missing, too short (by path) */
    snprintf(missing, sizeof missing, "%s.missing", fpath);
    GKT_FAILS(dut, gk_xfer_upload_file(x, t, 0, missing, -1, 0, 10, NULL, &id), GK_ERR_IO, missing);
    GKT_CHECK(id == 0, "no id for a failed submit");
    GKT_FAILS(dut, gk_xfer_upload_file(x, t, 0, fpath, -1, 1, N, NULL, &id), GK_ERR_IO, "is too short");
    GKT_FAILS(dut, gk_xfer_upload_file(x, t, 0, fpath, -1, 1, N, NULL, &id), GK_ERR_IO, fpath);
    GKT_FAILS(dut, gk_xfer_upload_file(x, t, 0, NULL, -1, 0, 10, NULL, &id), GK_ERR_INVALID_ARGUMENT, "path is NULL");
    GKT_OK(dut, gk_xfer_stats_get(x, &st));
    GKT_CHECK(st.bytes_file == N + 1048579 + 10, "bytes read from files: %llu", (unsigned long long)st.bytes_file);
    gk_tensor_free(dut, t);
    GKT_OK(dut, gk_xfer_destroy(x));
    free(data);
    free(back);
    free(ref);
}

/* a file that shrinks while it is read (a CPU context holds the engine: deterministic) */
static void file_shrinks(void) {
    gk_ctx *ref = gkt_ref(), *save = dut;
    const size_t C = (size_t)64 << 10, N = 30 * C;
    gk_xfer *x;
    gk_tensor t;
    gate g;
    gk_xfer_id id = 0, gid;
    gk_pool_stats ps;
    unsigned char *data = (unsigned char *)malloc(N);
    dut = ref;
    x = make_engine(ref, C, 4, 1);
    t = make_u8(ref, (int64_t)N);
    fill_random(data, N);
    write_file(data, N);
    gate_init(&g);
    if (x) {
        gid = gate_close(x, t, &g);
        GKT_OK(ref, gk_xfer_upload_file(x, t, 0, fpath, -1, 0, N, NULL, &id));
        GKT_FAILS(ref, gk_xfer_wait(x, id, 20), GK_ERR_TIMEOUT, "still in flight after 20.0 ms");
        write_file(data, 3 * C); /* the engine has read 5 chunks at most */
        gate_open(&g);
        GKT_OK(ref, gk_xfer_wait(x, gid, -1));
        GKT_FAILS(ref, gk_xfer_flush(x), GK_ERR_IO, fpath);
        GKT_CHECK(strstr(gk_last_error(ref), "has 196608 bytes now, too short for bytes 0..1966080 (it shrank") != NULL, "the message: %s", gk_last_error(ref));
        GKT_OK(ref, gk_xfer_wait(x, id, 0)); /* reported by the flush: forgotten */
        GKT_OK(ref, gk_pool_stats_get(ref, &ps));
        GKT_CHECK(ps.pinned == 0, "the failed request released its pin (%zu bytes pinned)", ps.pinned);
        GKT_OK(ref, gk_xfer_destroy(x));
    }
    gate_free(&g);
    gk_tensor_free(ref, t);
    gk_ctx_destroy(ref);
    dut = save;
    free(data);
    remove(fpath);
}

/* ---- 6. bad input and faults ---- */
static void bad_input(void) {
    gk_xfer *x = make_engine(dut, (size_t)64 << 10, 2, 1), *own = NULL, *own2 = NULL;
    gk_tensor t = make_u8(dut, 1000), freed = make_u8(dut, 16), tt;
    unsigned char buf[2000];
    gk_xfer_id id = 7;
    gk_xfer_desc d;
    gk_xfer_opts o;
    int64_t sh[2] = { 8, 4 };
    gk_tensor m;
    int done = 5;
    gk_xfer *nx = NULL;
    if (!x) return;
    memset(buf, 1, sizeof buf);
    GKT_FAILS(NULL, gk_xfer_upload(NULL, t, 0, buf, 10, NULL, &id), GK_ERR_INVALID_HANDLE, "gk_xfer_upload: x is NULL");
    GKT_CHECK(id == 0, "id cleared on failure");
    GKT_FAILS(dut, gk_xfer_upload(x, t, 0, NULL, 10, NULL, &id), GK_ERR_INVALID_ARGUMENT, "src is NULL but nbytes is 10");
    GKT_FAILS(dut, gk_xfer_download(x, t, 0, NULL, 10, NULL, &id), GK_ERR_INVALID_ARGUMENT, "dst is NULL but nbytes is 10");
    GKT_FAILS(dut, gk_xfer_upload(x, t, 990, buf, 11, NULL, &id), GK_ERR_INVALID_ARGUMENT, "bytes 990..1001 are outside the tensor, which holds 1000 bytes");
    GKT_FAILS(dut, gk_xfer_download(x, t, 1001, buf, 0, NULL, &id), GK_ERR_INVALID_ARGUMENT, "outside the tensor");
    GKT_FAILS(dut, gk_xfer_upload(x, t, (size_t)-1, buf, 2, NULL, &id), GK_ERR_INVALID_ARGUMENT, "outside the tensor");
    GKT_OK(dut, gk_tensor_empty(dut, GK_F32, 2, sh, &m));
    GKT_OK(dut, gk_view_transpose(dut, m, 0, 1, &tt));
    GKT_FAILS(dut, gk_xfer_upload(x, tt, 0, buf, 16, NULL, &id), GK_ERR_SHAPE, "not contiguous");
    gk_tensor_free(dut, tt);
    gk_tensor_free(dut, m);
    gk_tensor_free(dut, freed);
    GKT_FAILS(dut, gk_xfer_upload(x, freed, 0, buf, 16, NULL, &id), GK_ERR_INVALID_HANDLE, "dst was freed");
    GKT_FAILS(dut, gk_xfer_download(x, freed, 0, buf, 16, NULL, &id), GK_ERR_INVALID_HANDLE, "src was freed");
    memset(&o, 0, sizeof o);
    o.host = 7;
    GKT_FAILS(dut, gk_xfer_upload(x, t, 0, buf, 16, &o, &id), GK_ERR_INVALID_ARGUMENT, "opts->host = 7");
    /* zero bytes: a request that completes at once, its callback once */
    rec_reset();
    memset(&o, 0, sizeof o);
    o.done = rec_cb;
    GKT_OK(dut, gk_xfer_upload(x, t, 1000, NULL, 0, &o, &id));
    GKT_CHECK(id > 0, "a zero-byte request has an id");
    GKT_OK(dut, gk_xfer_wait(x, id, -1));
    GKT_CHECK(R.n == 1 && R.calls[id] == 1, "its callback ran once");
    /* ids */
    GKT_FAILS(dut, gk_xfer_wait(x, 0, -1), GK_ERR_INVALID_ARGUMENT, "id 0 is no request");
    GKT_FAILS(dut, gk_xfer_wait(x, id + 1, -1), GK_ERR_INVALID_ARGUMENT, "is not a request of this engine");
    GKT_FAILS(dut, gk_xfer_query(x, id + 100, &done), GK_ERR_INVALID_ARGUMENT, "is not a request of this engine");
    GKT_FAILS(dut, gk_xfer_stream_wait(x, id + 1, NULL), GK_ERR_INVALID_ARGUMENT, "is not a request of this engine");
    GKT_OK(dut, gk_xfer_wait(x, id, -1)); /* reported already: done */
    GKT_OK(dut, gk_xfer_query(x, id, &done));
    GKT_CHECK(done == 1, "a reported id is done");
    GKT_FAILS(dut, gk_xfer_query(x, id, NULL), GK_ERR_INVALID_ARGUMENT, "done is NULL");
    GKT_FAILS(NULL, gk_xfer_wait(NULL, 1, -1), GK_ERR_INVALID_HANDLE, "x is NULL");
    GKT_FAILS(NULL, gk_xfer_flush(NULL), GK_ERR_INVALID_HANDLE, "x is NULL");
    GKT_FAILS(dut, gk_xfer_stats_get(x, NULL), GK_ERR_INVALID_ARGUMENT, "out is NULL");
    /* descs */
    memset(&d, 0, sizeof d);
    d.workers = -1;
    GKT_FAILS(dut, gk_xfer_create(dut, &d, &nx), GK_ERR_INVALID_ARGUMENT, "desc->workers = -1");
    d.workers = 0;
    d.chunk_bytes = 100;
    GKT_FAILS(dut, gk_xfer_create(dut, &d, &nx), GK_ERR_INVALID_ARGUMENT, "desc->chunk_bytes = 100");
    d.chunk_bytes = 1 << 20;
    d.staging_bytes = 1000;
    GKT_FAILS(dut, gk_xfer_create(dut, &d, &nx), GK_ERR_INVALID_ARGUMENT, "less than one chunk");
    d.staging_bytes = 0;
    d.h2d_priority = (gk_stream_priority)9;
    GKT_FAILS(dut, gk_xfer_create(dut, &d, &nx), GK_ERR_INVALID_ARGUMENT, "not a gk_stream_priority");
    GKT_FAILS(dut, gk_xfer_create(dut, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "out is NULL");
    GKT_FAILS(NULL, gk_xfer_create(NULL, NULL, &nx), GK_ERR_INVALID_HANDLE, "ctx is NULL");
    GKT_CHECK(nx == NULL, "no engine");
    GKT_FAILS(NULL, gk_xfer_destroy(NULL), GK_ERR_INVALID_HANDLE, "x is NULL");
    /* the context's engine: one, not destroyed by hand, configured only when made */
    GKT_OK(dut, gk_xfer_default(dut, NULL, &own));
    GKT_OK(dut, gk_xfer_default(dut, NULL, &own2));
    GKT_CHECK(own && own == own2, "gk_xfer_default gives one engine");
    memset(&d, 0, sizeof d);
    GKT_FAILS(dut, gk_xfer_default(dut, &d, &own2), GK_ERR_STATE, "runs already");
    GKT_FAILS(dut, gk_xfer_destroy(own), GK_ERR_STATE, "destroyed with the context");
    if (own) {
        GKT_OK(dut, gk_xfer_upload(own, t, 0, buf, 1000, NULL, &id));
        GKT_OK(dut, gk_xfer_wait(own, id, -1));
    }
    gk_tensor_free(dut, t);
    GKT_OK(dut, gk_xfer_destroy(x));
}

/* a tensor freed while its transfer is in flight keeps its storage until it completes */
static void freed_in_flight(void) {
    gk_ctx *ref = gkt_ref(), *save = dut;
    const size_t C = (size_t)64 << 10, N = 20 * C;
    gk_xfer *x;
    gk_tensor t;
    gate g;
    gk_xfer_id id = 0, gid;
    gk_pool_stats ps;
    unsigned char *src = (unsigned char *)malloc(N);
    dut = ref;
    x = make_engine(ref, C, 4, 1);
    t = make_u8(ref, (int64_t)N);
    fill_random(src, N);
    gate_init(&g);
    if (x) {
        gid = gate_close(x, t, &g);
        GKT_OK(ref, gk_xfer_upload(x, t, 0, src, N, NULL, &id));
        GKT_OK(ref, gk_tensor_free(ref, t)); /* in flight (the gate holds it) */
        GKT_OK(ref, gk_pool_stats_get(ref, &ps));
        GKT_CHECK(ps.used >= N && ps.pinned >= N, "the storage stays while the transfer is in flight: %zu used, %zu pinned", ps.used, ps.pinned);
        GKT_FAILS(ref, gk_xfer_upload(x, t, 0, src, 10, NULL, NULL), GK_ERR_INVALID_HANDLE, "dst was freed");
        gate_open(&g);
        GKT_OK(ref, gk_xfer_wait(x, gid, -1));
        GKT_OK(ref, gk_xfer_wait(x, id, -1));
        GKT_OK(ref, gk_pool_stats_get(ref, &ps));
        GKT_CHECK(ps.pinned == 0 && ps.used < N, "... and goes back to the pool after: %zu used, %zu pinned", ps.used, ps.pinned);
        GKT_OK(ref, gk_xfer_destroy(x));
    }
    gate_free(&g);
    gk_ctx_destroy(ref);
    dut = save;
    free(src);
}

/* destroy with requests in flight: the unissued ones are cancelled; submits while it runs fail */
typedef struct destroy_arg { gk_xfer *x; gk_status st; } destroy_arg;
static void destroy_main(void *p) {
    destroy_arg *a = (destroy_arg *)p;
    a->st = gk_xfer_destroy(a->x);
}
static gk_status cb_submit_status;
static int cb_submit_calls;
static void cancel_cb(gk_xfer *x, gk_xfer_id id, gk_status st, const char *msg, void *user) {
    unsigned char b = 1;
    rec_cb(x, id, st, msg, NULL);
    cb_submit_status = gk_xfer_upload(x, *(gk_tensor *)user, 0, &b, 1, NULL, NULL);
    cb_submit_calls++;
}
static void destroy_in_flight(void) {
    gk_ctx *ref = gkt_ref(), *save = dut;
    const size_t C = (size_t)64 << 10, N = 40 * C;
    gk_xfer *x;
    gk_tensor t;
    gate g;
    gk_xfer_id id = 0;
    gk_xfer_opts o;
    gk__thread th;
    destroy_arg a;
    gk_status s = GK_OK;
    unsigned char *src = (unsigned char *)malloc(N);
    int spins = 0;
    dut = ref;
    x = make_engine(ref, C, 4, 1);
    t = make_u8(ref, (int64_t)N);
    fill_random(src, N);
    gate_init(&g);
    rec_reset();
    if (x) {
        gate_close(x, t, &g);
        memset(&o, 0, sizeof o);
        o.done = cancel_cb;
        o.user = &t;
        GKT_OK(ref, gk_xfer_upload(x, t, 0, src, N, &o, &id)); /* 40 chunks; 5 at most taken while the gate holds */
        a.x = x;
        a.st = GK_ERR_INTERNAL;
        GKT_CHECK(gk__thread_create(&th, destroy_main, &a) == 0, "destroy thread");
        /* submits succeed until destroy has begun, then fail; the gate holds destroy from finishing meanwhile */
        while ((s = gk_xfer_upload(x, t, 0, NULL, 0, NULL, NULL)) == GK_OK && spins++ < 20000) gk__sleep_ms(0.2);
        GKT_CHECK(s == GK_ERR_STATE && strstr(gk_last_error(ref), "being destroyed"), "a submit while destroy runs: %s: %s", gk_status_name(s),
                  gk_last_error(ref));
        gate_open(&g);
        gk__thread_join(th);
        GKT_CHECK(a.st == GK_OK, "destroy: %s", gk_status_name(a.st));
        GKT_CHECK(R.n == 1 && R.calls[id] == 1 && R.status[id] == GK_ERR_CANCELLED, "the large upload was cancelled, its callback ran once (%d, %s)",
                  R.n, gk_status_name(R.status[id]));
        GKT_CHECK(cb_submit_calls == 1 && cb_submit_status == GK_ERR_STATE, "a submit from a callback during destroy: %s", gk_status_name(cb_submit_status));
    }
    /* and on the device under test, with no gate: every callback once, OK or cancelled */
    {
        gk_ctx *c = save;
        int i, n_ok = 0, n_cancel = 0, other = 0;
        static unsigned char big[8 << 20];
        gk_tensor u = make_u8(c, sizeof big);
        gk_xfer_id ids[40];
        dut = c;
        x = make_engine(c, (size_t)256 << 10, 4, 2);
        rec_reset();
        memset(&o, 0, sizeof o);
        o.done = rec_cb;
        if (x) {
            for (i = 0; i < 40; i++) GKT_OK(c, gk_xfer_upload(x, u, 0, big, sizeof big, &o, &ids[i]));
            GKT_OK(c, gk_xfer_destroy(x));
            for (i = 0; i < 40; i++) {
                if (R.calls[ids[i]] != 1) other++;
                else if (R.status[ids[i]] == GK_OK) n_ok++;
                else if (R.status[ids[i]] == GK_ERR_CANCELLED) n_cancel++;
                else other++;
            }
            GKT_CHECK(other == 0 && n_ok + n_cancel == 40, "destroy with 40 uploads in flight: %d completed, %d cancelled, %d otherwise", n_ok, n_cancel, other);
            printf("destroy in flight: %d completed, %d cancelled\n", n_ok, n_cancel);
        }
        gk_tensor_free(c, u);
    }
    gate_free(&g);
    gk_tensor_free(ref, t);
    gk_ctx_destroy(ref);
    dut = save;
    free(src);
}

/* the pool's eviction and restore go through the engine's copy streams on CUDA */
static void evict_restore(void) {
    const size_t N = (21u << 20) + 99; /* several of the bounce buffers' pieces */
    gk_tensor t = make_u8(dut, (int64_t)N);
    gk_xfer *x = make_engine(dut, (size_t)1 << 20, 4, 2);
    unsigned char *src = (unsigned char *)malloc(N), *back = (unsigned char *)malloc(N);
    gk_tensor_info info;
    gk_pool_stats ps;
    gk_xfer_id id = 0;
    if (!x) return;
    fill_random(src, N);
    GKT_OK(dut, gk_copy_from_host(dut, t, src, N));
    GKT_OK(dut, gk_tensor_evict(dut, t));
    GKT_OK(dut, gk_tensor_info_get(dut, t, &info));
    GKT_CHECK(!info.resident, "evicted");
    /* an engine download restores it at submit */
    GKT_OK(dut, gk_xfer_download(x, t, 0, back, N, NULL, &id));
    GKT_OK(dut, gk_xfer_wait(x, id, -1));
    GKT_CHECK(first_diff(src, back, N) == N, "evicted, restored by a download: differs at %zu", first_diff(src, back, N));
    /* evicted again after an engine upload, restored by an op's use */
    fill_random(src, N);
    GKT_OK(dut, gk_xfer_upload(x, t, 0, src, N, NULL, &id));
    GKT_OK(dut, gk_xfer_wait(x, id, -1));
    GKT_OK(dut, gk_tensor_evict(dut, t));
    memset(back, 0, N);
    GKT_OK(dut, gk_copy_to_host(dut, t, back, N));
    GKT_CHECK(first_diff(src, back, N) == N, "evicted after an engine upload, restored by gk_copy_to_host");
    GKT_OK(dut, gk_pool_stats_get(dut, &ps));
    GKT_CHECK(ps.evictions >= 2 && ps.restores >= 2, "%llu evictions, %llu restores", (unsigned long long)ps.evictions, (unsigned long long)ps.restores);
    gk_tensor_free(dut, t);
    GKT_OK(dut, gk_xfer_destroy(x));
    free(src);
    free(back);
}

/* an engine left at gk_ctx_destroy is destroyed with it, its requests done or cancelled */
static void left_to_ctx_destroy(void) {
    gk_ctx *c = gkt_dut();
    gk_xfer *x = NULL;
    gk_tensor t = make_u8(c, 1 << 20);
    static unsigned char buf[1 << 20];
    int i;
    rec_reset();
    x = make_engine(c, (size_t)64 << 10, 2, 1);
    if (x) {
        gk_xfer_opts o;
        memset(&o, 0, sizeof o);
        o.done = rec_cb;
        for (i = 0; i < 10; i++) GKT_OK(c, gk_xfer_upload(x, t, 0, buf, sizeof buf, &o, NULL));
    }
    gk_ctx_destroy(c);
    GKT_CHECK(R.n == 10, "gk_ctx_destroy ran the callbacks of the 10 requests left: %d", R.n);
}

int main(void) {
    gkt_seed();
    gk__mutex_init(&R.mu);
    dut = gkt_dut();
    printf("backend: %s\n", gk_ctx_backend(dut) == GK_BACKEND_CUDA ? "CUDA" : "CPU");
    round_trips();
    parts();
    with_compute();
    priorities();
    callbacks();
    many_threads();
    files();
    file_shrinks();
    bad_input();
    freed_in_flight();
    destroy_in_flight();
    evict_restore();
    left_to_ctx_destroy();
    gk_ctx_destroy(dut);
    gk__mutex_destroy(&R.mu);
    return gkt_done("test_xfer");
}
