/* test_profile.c - the profiler (>>api_profile) on the context under test
   (CUDA when a GPU is present, else the CPU backend, where records are host
   times around each op):
   - off by default: no records, results and stop refuse with a clear error;
   - a known op sequence (3 gk_add, 2 gk_matmul): counts, names, totals
     (busy = the sum of the entries, mean = total / count, min <= mean <=
     max), matmul FLOPs 2*M*N*K and bytes of A, B, C, add bytes and FLOPs;
   - the readable report (cut to the buffer, the size it needs);
   - start twice, stop twice, bad descs, reset, restart with more records;
   - max_records small: the rest counted as dropped;
   - copy kinds and bytes through the hooks as the transfer engine calls them;
   - the Chrome trace parsed back (gpukit_llm.h's JSON parser): every event
     has name, ph, ts >= 0, pid, tid; X events dur >= 0, one a record;
     stream names; pool counter events (none with GK_PROFILE_NO_POOL);
     a path that cannot be written is an error naming it;
   - two threads on one context, each on its own stream: records land under
     their streams; a destroyed stream and a new one are separate tracks;
   - graph capture records nothing (counted as skipped on CUDA), replay
     neither;
   - a context destroyed with the profiler on leaks nothing (ASan). */
#define GPUKIT_IMPLEMENTATION
#define GPUKIT_LLM_IMPLEMENTATION
#include "../gpukit_llm.h"
#include "gkt.h"
#include <pthread.h>

static gk_ctx *C;
static int cuda;
static volatile double sink;

static gk_tensor vec(int64_t n, float v) {
    gk_tensor t;
    float *h = (float *)malloc((size_t)n * sizeof(float));
    int64_t i;
    for (i = 0; i < n; i++) h[i] = v + (float)(i % 7);
    GKT_OK(C, gk_tensor_from_host(C, GK_F32, 1, &n, h, &t));
    free(h);
    return t;
}
static gk_tensor mat(int64_t r, int64_t c) {
    gk_tensor t;
    int64_t sh[2];
    float *h = (float *)malloc((size_t)(r * c) * sizeof(float));
    int64_t i;
    sh[0] = r; sh[1] = c;
    for (i = 0; i < r * c; i++) h[i] = (float)gkt_uniform(-1, 1);
    GKT_OK(C, gk_tensor_from_host(C, GK_F32, 2, sh, h, &t));
    free(h);
    return t;
}
static gk_profile_stats stats(void) {
    gk_profile_stats s;
    memset(&s, 0, sizeof s);
    GKT_OK(C, gk_profiler_stats(C, &s));
    return s;
}
/* the entry named exactly `name` (CPU) or, on CUDA, the entries whose name starts with it summed */
static gk_profile_entry find(const gk_profile_entry *e, int n, const char *name) {
    gk_profile_entry r;
    int i;
    memset(&r, 0, sizeof r);
    for (i = 0; i < n; i++)
        if (cuda ? strncmp(e[i].name, name, strlen(name)) == 0 : strcmp(e[i].name, name) == 0) {
            r.count += e[i].count;
            r.total_ms += e[i].total_ms;
            r.bytes += e[i].bytes;
            r.flops += e[i].flops;
            r.kind = e[i].kind;
        }
    return r;
}

static void test_off(void) {
    gk_profile_stats s;
    gk_profile_entry e[4];
    char buf[64];
    size_t need = 7;
    int n = 5;
    gk_tensor a = vec(64, 1), b = vec(64, 2);
    GKT_CHECK(C->prof == NULL, "off by default");
    GKT_OK(C, gk_add(C, a, a, b));
    GKT_CHECK(C->prof == NULL, "still off after an op");
    GKT_FAILS(C, gk_profiler_stats(C, &s), GK_ERR_STATE, "never started");
    GKT_FAILS(C, gk_profiler_summary(C, e, 4, &n), GK_ERR_STATE, "never started");
    GKT_CHECK(n == 0, "n cleared: %d", n);
    GKT_FAILS(C, gk_profiler_report(C, buf, sizeof buf, &need), GK_ERR_STATE, "never started");
    GKT_CHECK(need == 0 && buf[0] == 0, "report cleared");
    GKT_FAILS(C, gk_profiler_write_trace(C, "build/never.json"), GK_ERR_STATE, "never started");
    GKT_FAILS(C, gk_profiler_stop(C), GK_ERR_STATE, "not running");
    GKT_OK(C, gk_profiler_reset(C)); /* nothing to reset: fine */
    GKT_FAILS(NULL, gk_profiler_start(NULL, NULL), GK_ERR_INVALID_HANDLE, "ctx is NULL");
    gk_tensor_free(C, a);
    gk_tensor_free(C, b);
}

static void test_counts(void) {
    const int64_t M = 4, N = 24, K = 32, n = 4096;
    gk_tensor a = vec(n, 1), b = vec(n, 2), o = vec(n, 0);
    gk_tensor A = mat(M, K), B = mat(K, N), O = mat(M, N);
    gk_profile_entry e[64], ad, mm;
    gk_profile_stats s;
    gk_profiler_desc d;
    double sum = 0;
    int cnt = 0, i, m = 0;
    int64_t recs = 0;
    GKT_OK(C, gk_sync(C));
    GKT_OK(C, gk_profiler_start(C, NULL));
    GKT_FAILS(C, gk_profiler_start(C, NULL), GK_ERR_STATE, "already running");
    for (i = 0; i < 3; i++) GKT_OK(C, gk_add(C, o, a, b));
    for (i = 0; i < 2; i++) GKT_OK(C, gk_matmul(C, O, A, B, NULL));
    /* results while running */
    s = stats();
    GKT_CHECK(s.running == 1 && s.records == 5 && s.dropped == 0 && s.pending == 0, "running: %d records %lld dropped %lld pending %lld",
              s.running, (long long)s.records, (long long)s.dropped, (long long)s.pending);
    GKT_OK(C, gk_profiler_stop(C));
    GKT_FAILS(C, gk_profiler_stop(C), GK_ERR_STATE, "not running");
    GKT_OK(C, gk_add(C, o, a, b)); /* stopped: not recorded */
    s = stats();
    GKT_CHECK(s.running == 0 && s.records == 5, "stopped: %lld records", (long long)s.records);
    GKT_CHECK(s.streams == 1, "one stream: %d", s.streams);
    GKT_OK(C, gk_profiler_summary(C, NULL, 0, &m));
    GKT_CHECK(m == s.entries && m >= 2, "entries %d (stats %d)", m, s.entries);
    GKT_OK(C, gk_profiler_summary(C, e, 64, &m));
    for (i = 0; i < m; i++) {
        GKT_CHECK(e[i].count > 0 && fabs(e[i].mean_ms - e[i].total_ms / (double)e[i].count) <= 1e-9 * (1 + e[i].total_ms),
                  "%s: mean %g total %g count %lld", e[i].name, e[i].mean_ms, e[i].total_ms, (long long)e[i].count);
        GKT_CHECK(e[i].min_ms >= 0 && e[i].min_ms <= e[i].mean_ms + 1e-12 && e[i].mean_ms <= e[i].max_ms + 1e-12, "%s: min %g mean %g max %g",
                  e[i].name, e[i].min_ms, e[i].mean_ms, e[i].max_ms);
        if (i) GKT_CHECK(e[i - 1].total_ms >= e[i].total_ms, "sorted by total: %s %g before %s %g", e[i - 1].name, e[i - 1].total_ms, e[i].name,
                         e[i].total_ms);
        GKT_CHECK(e[i].kind == (cuda ? GK_PROFILE_KERNEL : GK_PROFILE_CPU), "%s: kind %s", e[i].name, gk_profile_kind_name(e[i].kind));
        sum += e[i].total_ms;
        recs += e[i].count;
    }
    GKT_CHECK(fabs(sum - s.busy_ms) <= 1e-9 * (1 + sum) && recs == s.records, "busy %g = sum %g, records %lld = %lld", s.busy_ms, sum,
              (long long)s.records, (long long)recs);
    GKT_CHECK(s.span_ms >= 0 && fabs(s.kernel_ms + s.copy_ms - s.busy_ms) <= 1e-9 * (1 + sum), "span %g kernel %g copy %g", s.span_ms, s.kernel_ms,
              s.copy_ms);
    ad = find(e, m, "gk_add");
    GKT_CHECK(ad.count == 3, "gk_add count %lld", (long long)ad.count);
    GKT_CHECK(ad.bytes == 3.0 * 3 * n * 4 && ad.flops == 3.0 * n, "gk_add bytes %g flops %g", ad.bytes, ad.flops);
    if (cuda) { /* kernel names: the product's kernel is the entry with FLOPs */
        memset(&mm, 0, sizeof mm);
        for (i = 0; i < m; i++)
            if (e[i].flops > 0 && strncmp(e[i].name, "gk_add", 6) != 0) { mm.count += e[i].count; mm.flops += e[i].flops; mm.bytes += e[i].bytes; }
    } else mm = find(e, m, "gk_matmul");
    GKT_CHECK(mm.count == 2, "matmul count %lld", (long long)mm.count);
    GKT_CHECK(mm.flops == 2.0 * 2 * M * N * K, "matmul flops %g, want %g", mm.flops, 2.0 * 2 * M * N * K);
    GKT_CHECK(mm.bytes == 2.0 * 4 * (M * K + K * N + M * N), "matmul bytes %g", mm.bytes);
    for (i = 0; i < m; i++)
        if (e[i].total_ms > 0 && e[i].bytes > 0) GKT_CHECK(e[i].gbps > 0, "%s: GB/s %g", e[i].name, e[i].gbps);
    for (i = 0; i < m; i++) cnt += e[i].flops > 0 && e[i].total_ms > 0 && e[i].tflops <= 0;
    GKT_CHECK(cnt == 0, "TFLOP/s where FLOPs and time are known");
    /* cap smaller than the entries: the largest, and the full count */
    GKT_OK(C, gk_profiler_summary(C, e, 1, &m));
    GKT_CHECK(m == s.entries, "n is the full count with cap 1: %d", m);
    GKT_FAILS(C, gk_profiler_summary(C, NULL, 3, &m), GK_ERR_INVALID_ARGUMENT, "out NULL");
    /* the report */
    {
        char small[40], *big;
        size_t need = 0;
        GKT_FAILS(C, gk_profiler_report(C, small, sizeof small, &need), GK_ERR_LIMIT, "bytes");
        GKT_CHECK(need > sizeof small && strlen(small) == sizeof small - 1, "cut report %zu of %zu", strlen(small), need);
        big = (char *)malloc(need);
        GKT_OK(C, gk_profiler_report(C, big, need, NULL));
        GKT_CHECK(strlen(big) + 1 == need, "report %zu bytes, need %zu", strlen(big) + 1, need);
        GKT_CHECK(strstr(big, "TFLOP/s") && strstr(big, "gk_add") && strstr(big, "5 records"), "report:\n%s", big);
        if (!cuda) GKT_CHECK(strstr(big, "gk_matmul") != NULL, "report names gk_matmul");
        printf("%s", big);
        free(big);
    }
    /* bad descs; a restart with more records */
    memset(&d, 0, sizeof d);
    d.max_records = -1;
    GKT_FAILS(C, gk_profiler_start(C, &d), GK_ERR_INVALID_ARGUMENT, "max_records");
    d.max_records = 0;
    d.flags = 0x80;
    GKT_FAILS(C, gk_profiler_start(C, &d), GK_ERR_INVALID_ARGUMENT, "flags");
    d.flags = 0;
    d.max_records = GK_PROFILE_DEFAULT_RECORDS * 2;
    GKT_OK(C, gk_profiler_start(C, &d));
    s = stats();
    GKT_CHECK(s.records == 0 && s.entries == 0 && s.running, "a fresh recording: %lld", (long long)s.records);
    GKT_OK(C, gk_add(C, o, a, b));
    GKT_CHECK(stats().records == 1, "one record");
    GKT_OK(C, gk_profiler_reset(C));
    GKT_CHECK(C->prof == NULL, "reset: off");
    GKT_FAILS(C, gk_profiler_stats(C, &s), GK_ERR_STATE, "never started");
    gk_tensor_free(C, a); gk_tensor_free(C, b); gk_tensor_free(C, o);
    gk_tensor_free(C, A); gk_tensor_free(C, B); gk_tensor_free(C, O);
}

static void test_dropped(void) {
    gk_profiler_desc d;
    gk_profile_stats s;
    gk_tensor a = vec(256, 1);
    int i;
    memset(&d, 0, sizeof d);
    d.max_records = 4;
    GKT_OK(C, gk_profiler_start(C, &d));
    for (i = 0; i < 10; i++) GKT_OK(C, gk_scale(C, a, a, 1.0));
    s = stats();
    GKT_CHECK(s.records == 4 && s.dropped == 6, "records %lld dropped %lld", (long long)s.records, (long long)s.dropped);
    GKT_OK(C, gk_profiler_stop(C));
    gk_tensor_free(C, a);
}

/* copies as the transfer engine reports them: a note with the bytes, then the hooks */
static void test_copy_kinds(void) {
    gk_profile_entry e[8];
    gk_profile_stats s;
    int m = 0, i, r;
    GKT_OK(C, gk_profiler_start(C, NULL));
    gk__lock(&C->mu);
    for (i = 0; i < 3; i++) {
        gk__prof_note(C, 1 << 20, 0);
        r = gk__prof_begin(C, &C->default_stream, i < 2 ? "xfer HtoD" : "xfer DtoH", i < 2 ? GK__PROF_H2D : GK__PROF_D2H);
        GKT_CHECK(r == i, "record %d", r);
        if (C->backend != GK_BACKEND_CUDA) { int k; for (k = 0; k < 1000; k++) sink += k; } /* some host time */
        gk__prof_end(C, &C->default_stream, r);
    }
    gk__unlock(&C->mu);
    GKT_OK(C, gk_profiler_summary(C, e, 8, &m));
    GKT_CHECK(m == 2, "two entries: %d", m);
    for (i = 0; i < m; i++) {
        int h = strcmp(e[i].name, "xfer HtoD") == 0;
        GKT_CHECK(e[i].kind == (h ? GK_PROFILE_H2D : GK_PROFILE_D2H) && e[i].count == (h ? 2 : 1) && e[i].bytes == (h ? 2 : 1) * 1048576.0,
                  "%s: kind %s count %lld bytes %g", e[i].name, gk_profile_kind_name(e[i].kind), (long long)e[i].count, e[i].bytes);
    }
    s = stats();
    GKT_CHECK(s.kernel_ms == 0 && s.copy_ms == s.busy_ms, "copies: copy %g busy %g kernel %g", s.copy_ms, s.busy_ms, s.kernel_ms);
    GKT_CHECK(strcmp(gk_profile_kind_name(GK_PROFILE_D2D), "DtoD") == 0 && strcmp(gk_profile_kind_name((gk_profile_kind)9), "unknown") == 0,
              "kind names");
    GKT_OK(C, gk_profiler_reset(C));
}

/* ---- the trace ---- */
typedef struct trace_info {
    int events, x, c, m, bad, named_streams, x_add;
    int tid_x[16];
    char tname[16][64];
} trace_info;
static int read_trace(const char *path, trace_info *ti) {
    gk_json *doc = NULL;
    const gk_json_value *ev;
    size_t i;
    memset(ti, 0, sizeof *ti);
    if (gk_json_parse_file(path, NULL, &doc) != GK_OK) { printf("cannot parse %s: %s\n", path, gk_last_error(NULL)); return -1; }
    ev = gk_json_get(gk_json_root(doc), "traceEvents");
    GKT_CHECK(gk_json_typeof(ev) == GK_JSON_ARRAY, "traceEvents is an array");
    for (i = 0; i < gk_json_len(ev); i++) {
        const gk_json_value *e = gk_json_at(ev, i);
        const char *name = gk_json_get_string(e, "name", NULL), *ph = gk_json_get_string(e, "ph", NULL);
        const gk_json_value *ts = gk_json_get(e, "ts"), *pid = gk_json_get(e, "pid"), *tid = gk_json_get(e, "tid");
        int64_t t = gk_json_int(tid, -1);
        ti->events++;
        if (!name || !ph || (gk_json_typeof(ts) != GK_JSON_INT && gk_json_typeof(ts) != GK_JSON_DOUBLE) || gk_json_double(ts, -1) < 0 ||
            gk_json_typeof(pid) != GK_JSON_INT || gk_json_typeof(tid) != GK_JSON_INT) {
            if (ti->bad++ < 3) printf("bad event %zu: name %s ph %s\n", i, name ? name : "-", ph ? ph : "-");
            continue;
        }
        if (strcmp(ph, "X") == 0) {
            double dur = gk_json_get_double(e, "dur", -1);
            if (dur < 0) ti->bad++;
            ti->x++;
            if (t >= 0 && t < 16) ti->tid_x[t]++;
            if (strncmp(name, "gk_add", 6) == 0) ti->x_add++;
        } else if (strcmp(ph, "C") == 0) {
            ti->c++;
            if (gk_json_get_double(e, "args.used", -1) < 0) ti->bad++;
        } else if (strcmp(ph, "M") == 0) {
            ti->m++;
            if (strcmp(name, "thread_name") == 0 && t >= 0 && t < 16) {
                snprintf(ti->tname[t], sizeof ti->tname[t], "%s", gk_json_get_string(e, "args.name", ""));
                ti->named_streams++;
            }
        } else ti->bad++;
    }
    gk_json_free(doc);
    return 0;
}

static void test_trace(void) {
    const char *path = "build/test_profile_trace.json";
    gk_tensor a = vec(1024, 1), b = vec(1024, 2), A = mat(8, 64), B = mat(64, 32), O = mat(8, 32), big;
    gk_profile_stats s;
    gk_profiler_desc d;
    trace_info ti;
    int64_t n2 = 1 << 16;
    int i;
    GKT_OK(C, gk_profiler_start(C, NULL));
    for (i = 0; i < 3; i++) GKT_OK(C, gk_add(C, a, a, b));
    GKT_OK(C, gk_tensor_empty(C, GK_F32, 1, &n2, &big)); /* the pool grows: a new counter value */
    GKT_OK(C, gk_fill(C, big, 1));
    GKT_OK(C, gk_matmul(C, O, A, B, NULL));
    GKT_OK(C, gk_copy(C, b, a));
    GKT_OK(C, gk_profiler_write_trace(C, path));
    s = stats();
    if (read_trace(path, &ti) == 0) {
        GKT_CHECK(ti.bad == 0, "%d bad events", ti.bad);
        GKT_CHECK(ti.x == (int)s.records && ti.x >= 6, "X events %d, records %lld", ti.x, (long long)s.records);
        GKT_CHECK(ti.x_add == 3, "gk_add events %d", ti.x_add);
        GKT_CHECK(ti.c >= 2, "pool counter events %d", ti.c);
        GKT_CHECK(ti.named_streams == 1 && strcmp(ti.tname[1], "default stream") == 0, "stream names %d '%s'", ti.named_streams, ti.tname[1]);
        GKT_CHECK(ti.tid_x[1] == ti.x, "every record on the default stream's track");
    }
    /* a path that cannot be written */
    GKT_FAILS(C, gk_profiler_write_trace(C, "build/no-such-dir/x/trace.json"), GK_ERR_IO, "build/no-such-dir/x/trace.json");
    GKT_FAILS(C, gk_profiler_write_trace(C, NULL), GK_ERR_INVALID_ARGUMENT, "path");
    GKT_OK(C, gk_profiler_stop(C));
    /* without pool samples */
    memset(&d, 0, sizeof d);
    d.flags = GK_PROFILE_NO_POOL;
    GKT_OK(C, gk_profiler_start(C, &d));
    GKT_OK(C, gk_add(C, a, a, b));
    GKT_OK(C, gk_profiler_write_trace(C, path));
    s = stats();
    GKT_CHECK(s.pool_peak == 0, "no pool samples: peak %zu", s.pool_peak);
    if (read_trace(path, &ti) == 0) GKT_CHECK(ti.bad == 0 && ti.x == 1 && ti.c == 0, "NO_POOL: %d X, %d C, %d bad", ti.x, ti.c, ti.bad);
    GKT_OK(C, gk_profiler_reset(C));
    remove(path);
    gk_tensor_free(C, a); gk_tensor_free(C, b); gk_tensor_free(C, big);
    gk_tensor_free(C, A); gk_tensor_free(C, B); gk_tensor_free(C, O);
}

/* ---- threads: each on its own stream ---- */
#define TOPS 20
typedef struct targ { gk_stream *s; gk_tensor a, b; int fails; } targ;
static void *worker(void *vp) {
    targ *t = (targ *)vp;
    int i;
    if (gk_set_stream(C, t->s) != GK_OK) t->fails++;
    for (i = 0; i < TOPS; i++)
        if (gk_add(C, t->a, t->a, t->b) != GK_OK) t->fails++;
    if (gk_stream_sync(C, NULL) != GK_OK) t->fails++;
    if (gk_set_stream(C, NULL) != GK_OK) t->fails++;
    return NULL;
}
static void test_threads(void) {
    const char *path = "build/test_profile_threads.json";
    pthread_t th[2];
    targ ta[2];
    gk_profile_stats s;
    trace_info ti;
    int i;
    memset(ta, 0, sizeof ta);
    GKT_OK(C, gk_stream_create(C, GK_PRIORITY_HIGH, &ta[0].s));
    GKT_OK(C, gk_stream_create(C, GK_PRIORITY_LOW, &ta[1].s));
    for (i = 0; i < 2; i++) { ta[i].a = vec(4096, 1); ta[i].b = vec(4096, 2); }
    GKT_OK(C, gk_sync(C));
    GKT_OK(C, gk_profiler_start(C, NULL));
    for (i = 0; i < 2; i++) pthread_create(&th[i], NULL, worker, &ta[i]);
    for (i = 0; i < 2; i++) pthread_join(th[i], NULL);
    GKT_CHECK(ta[0].fails == 0 && ta[1].fails == 0, "thread failures %d %d", ta[0].fails, ta[1].fails);
    s = stats();
    GKT_CHECK(s.records == 2 * TOPS && s.streams == 2, "records %lld streams %d", (long long)s.records, s.streams);
    GKT_OK(C, gk_profiler_write_trace(C, path));
    if (read_trace(path, &ti) == 0) {
        /* streams numbered in order of first record: 1 and 2, tids 2 and 3 */
        int hi = strcmp(ti.tname[2], "stream 1 (high priority)") == 0 ? 2 : 3, lo = 5 - hi;
        GKT_CHECK(ti.bad == 0 && ti.tid_x[hi] == TOPS && ti.tid_x[lo] == TOPS && ti.tid_x[1] == 0, "per stream: %d %d (default %d)", ti.tid_x[hi],
                  ti.tid_x[lo], ti.tid_x[1]);
        GKT_CHECK(strcmp(ti.tname[hi], hi == 2 ? "stream 1 (high priority)" : "stream 2 (high priority)") == 0 &&
                  strcmp(ti.tname[lo], lo == 2 ? "stream 1 (low priority)" : "stream 2 (low priority)") == 0, "names '%s' '%s'", ti.tname[2],
                  ti.tname[3]);
    }
    /* a destroyed stream and a new one (maybe at its address) are separate tracks */
    GKT_OK(C, gk_profiler_stop(C));
    GKT_OK(C, gk_profiler_start(C, NULL));
    for (i = 0; i < 2; i++) {
        gk_stream *x;
        GKT_OK(C, gk_stream_create(C, GK_PRIORITY_HIGH, &x));
        GKT_OK(C, gk_set_stream(C, x));
        GKT_OK(C, gk_add(C, ta[0].a, ta[0].a, ta[0].b));
        GKT_OK(C, gk_set_stream(C, NULL));
        GKT_OK(C, gk_stream_destroy(C, x));
    }
    s = stats();
    GKT_CHECK(s.records == 2 && s.streams == 2, "two streams one after the other: records %lld streams %d", (long long)s.records, s.streams);
    GKT_OK(C, gk_profiler_reset(C));
    remove(path);
    for (i = 0; i < 2; i++) {
        gk_tensor_free(C, ta[i].a);
        gk_tensor_free(C, ta[i].b);
        GKT_OK(C, gk_stream_destroy(C, ta[i].s));
    }
}

static void test_capture(void) {
    gk_stream *s;
    gk_graph *g = NULL;
    gk_profile_stats st;
    gk_tensor a = vec(1024, 1), b = vec(1024, 2);
    int i;
    GKT_OK(C, gk_stream_create(C, GK_PRIORITY_NORMAL, &s));
    GKT_OK(C, gk_sync(C));
    GKT_OK(C, gk_profiler_start(C, NULL));
    GKT_OK(C, gk_set_stream(C, s));
    GKT_OK(C, gk_graph_begin(C, s));
    for (i = 0; i < 3; i++) GKT_OK(C, gk_add(C, a, a, b));
    GKT_OK(C, gk_graph_end(C, s, &g));
    st = stats();
    GKT_CHECK(st.records == 0, "nothing recorded while capturing: %lld", (long long)st.records);
    GKT_CHECK(st.skipped == (cuda ? 3 : 0), "skipped %lld", (long long)st.skipped);
    GKT_OK(C, gk_graph_launch(C, g, s));
    GKT_OK(C, gk_stream_sync(C, s));
    GKT_CHECK(stats().records == 1, "a replay is one record, not broken down: %lld", (long long)stats().records);
    {
        gk_profile_entry e[8];
        int n = 0, k, found = 0;
        GKT_OK(C, gk_profiler_summary(C, e, 8, &n));
        for (k = 0; k < n; k++) found += strcmp(e[k].name, "gk_graph_launch") == 0 && e[k].count == 1;
        GKT_CHECK(found == 1, "the replay's record is named gk_graph_launch");
    }
    GKT_OK(C, gk_add(C, a, a, b));
    GKT_CHECK(stats().records == 2, "recording after the capture");
    GKT_OK(C, gk_set_stream(C, NULL));
    GKT_OK(C, gk_graph_destroy(C, g));
    GKT_OK(C, gk_stream_destroy(C, s));
    GKT_OK(C, gk_profiler_reset(C));
    gk_tensor_free(C, a);
    gk_tensor_free(C, b);
}

/* a context destroyed while the profiler runs, with records: everything freed (ASan) */
static void test_teardown(void) {
    gk_ctx *c2 = gkt_dut();
    gk_tensor a;
    int64_t n = 512;
    int i;
    GKT_OK(c2, gk_tensor_empty(c2, GK_F32, 1, &n, &a));
    GKT_OK(c2, gk_profiler_start(c2, NULL));
    for (i = 0; i < 5; i++) GKT_OK(c2, gk_fill(c2, a, i));
    GKT_CHECK(c2->prof != NULL, "on");
    gk_ctx_destroy(c2);
    /* and one stopped with results kept */
    c2 = gkt_dut();
    GKT_OK(c2, gk_tensor_empty(c2, GK_F32, 1, &n, &a));
    GKT_OK(c2, gk_profiler_start(c2, NULL));
    GKT_OK(c2, gk_fill(c2, a, 1));
    GKT_OK(c2, gk_profiler_stop(c2));
    gk_ctx_destroy(c2);
}

int main(void) {
    gkt_seed();
    C = gkt_dut();
    cuda = gk_ctx_backend(C) == GK_BACKEND_CUDA;
    printf("backend: %s\n", cuda ? "CUDA" : "CPU");
    test_off();
    test_counts();
    test_dropped();
    test_copy_kinds();
    test_trace();
    test_threads();
    test_capture();
    test_teardown();
    gk_ctx_destroy(C);
    return gkt_done("test_profile");
}
