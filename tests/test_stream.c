/* test_stream.c - streams, the current stream, events, graph capture and
   replay (CUDA graphs; recorded host thunks on the CPU backend). */
#include <stdlib.h>
/* host allocator hook: while gkt_fail_min is set, requests of that many bytes
   or more fail (the CPU backend's op scratch; tensors are allocated before) */
static size_t gkt_fail_min;
static void *gkt_malloc(size_t n) { return gkt_fail_min && n >= gkt_fail_min ? NULL : malloc(n); }
static void *gkt_realloc(void *p, size_t n) { return gkt_fail_min && n >= gkt_fail_min ? NULL : realloc(p, n); }
#define GPUKIT_MALLOC(n) gkt_malloc(n)
#define GPUKIT_REALLOC(p, n) gkt_realloc(p, n)
#define GPUKIT_FREE(p) free(p)
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkt.h"

static gk_ctx *C;

static void test_streams_events(void) {
    gk_stream *hi, *lo, *junk = NULL;
    gk_event *e0, *e1;
    gk_tensor a, b;
    int64_t n = 1 << 20;
    float ms = -1, v[4];
    int done = -1;
    GKT_OK(C, gk_stream_create(C, GK_PRIORITY_HIGH, &hi));
    GKT_OK(C, gk_stream_create(C, GK_PRIORITY_LOW, &lo));
    GKT_FAILS(C, gk_stream_create(C, (gk_stream_priority)7, &junk), GK_ERR_INVALID_ARGUMENT, "priority");
    GKT_CHECK(junk == NULL, "out cleared");
    GKT_CHECK(gk_get_stream(C) == gk_default_stream(C), "default is current");
    GKT_OK(C, gk_event_create(C, &e0));
    GKT_OK(C, gk_event_create(C, &e1));
    GKT_FAILS(C, gk_event_elapsed_ms(C, e0, e1, &ms), GK_ERR_STATE, "never recorded");
    GKT_OK(C, gk_tensor_empty(C, GK_F32, 1, &n, &a));
    GKT_OK(C, gk_tensor_empty(C, GK_F32, 1, &n, &b));
    /* work on the high-priority stream, then a dependent op on the low one */
    GKT_OK(C, gk_set_stream(C, hi));
    GKT_CHECK(gk_get_stream(C) == hi, "current");
    GKT_OK(C, gk_event_record(C, e0, NULL));
    GKT_OK(C, gk_fill(C, a, 3.0));
    GKT_OK(C, gk_event_record(C, e1, NULL));
    GKT_OK(C, gk_stream_wait_event(C, lo, e1));
    GKT_OK(C, gk_set_stream(C, lo));
    GKT_OK(C, gk_scale(C, b, a, 2.0));
    GKT_OK(C, gk_stream_sync(C, lo));
    GKT_OK(C, gk_event_sync(C, e1));
    GKT_OK(C, gk_event_query(C, e1, &done));
    GKT_CHECK(done == 1, "event done");
    GKT_OK(C, gk_event_elapsed_ms(C, e0, e1, &ms));
    GKT_CHECK(ms >= 0 && ms < 10000, "elapsed %g ms", ms);
    {
        gk_tensor s;
        GKT_OK(C, gk_view_slice(C, b, 0, n - 4, n, 1, &s));
        GKT_OK(C, gk_copy_to_host(C, s, v, sizeof v));
        GKT_CHECK(v[0] == 6.0f && v[3] == 6.0f, "ordered across streams: %g", v[3]);
        gk_tensor_free(C, s);
    }
    GKT_OK(C, gk_set_stream(C, NULL));
    GKT_FAILS(C, gk_stream_destroy(C, gk_default_stream(C)), GK_ERR_INVALID_HANDLE, "default stream");
    GKT_OK(C, gk_stream_destroy(C, hi));
    GKT_FAILS(C, gk_set_stream(C, hi), GK_ERR_INVALID_HANDLE, "not a live stream");
    GKT_OK(C, gk_stream_destroy(C, lo));
    GKT_OK(C, gk_event_destroy(C, e0));
    GKT_OK(C, gk_event_destroy(C, e1));
    GKT_FAILS(C, gk_event_record(C, e1, NULL), GK_ERR_INVALID_HANDLE, "event");
    gk_tensor_free(C, a);
    gk_tensor_free(C, b);
}

static void test_graph(void) {
    gk_stream *s;
    gk_graph *g, *g2;
    gk_tensor x, y, z;
    int64_t n = 4097;
    float *hx = (float *)malloc(n * 4), *out = (float *)malloc(n * 4);
    int i, ok, rep;
    gk_pool_stats st;
    gk_tensor_info info;
    GKT_OK(C, gk_stream_create(C, GK_PRIORITY_NORMAL, &s));
    GKT_OK(C, gk_tensor_empty(C, GK_F32, 1, &n, &x));
    GKT_OK(C, gk_tensor_empty(C, GK_F32, 1, &n, &y));
    GKT_OK(C, gk_tensor_empty(C, GK_F32, 1, &n, &z));
    GKT_FAILS(C, gk_graph_end(C, s, &g), GK_ERR_STATE, "not capturing");
    GKT_OK(C, gk_set_stream(C, s));
    GKT_OK(C, gk_graph_begin(C, NULL));
    GKT_FAILS(C, gk_graph_begin(C, NULL), GK_ERR_STATE, "already capturing");
    /* y = 2x ; z = y + x ; z += 0.5 y   ->  z = 4x */
    GKT_OK(C, gk_scale(C, y, x, 2.0));
    GKT_OK(C, gk_add(C, z, y, x));
    GKT_OK(C, gk_axpy(C, z, 0.5, y));
    GKT_OK(C, gk_graph_end(C, NULL, &g));
    GKT_OK(C, gk_tensor_info_get(C, x, &info));
    GKT_CHECK(info.pinned, "storage used by the graph is pinned");
    for (rep = 0; rep < 3; rep++) { /* each replay reads the current contents of x */
        for (i = 0; i < n; i++) hx[i] = (float)gkt_uniform(-10, 10);
        GKT_OK(C, gk_copy_from_host(C, x, hx, (size_t)n * 4));
        for (i = 0; i < n; i++) out[i] = NAN;
        GKT_OK(C, gk_copy_from_host(C, z, out, (size_t)n * 4)); /* poison */
        GKT_OK(C, gk_graph_launch(C, g, NULL));
        GKT_OK(C, gk_copy_to_host(C, z, out, (size_t)n * 4));
        ok = 1;
        for (i = 0; i < n; i++) ok &= out[i] == 4.0f * hx[i];
        GKT_CHECK(ok, "replay %d computes z = 4x", rep);
    }
    /* pinned by the graph: lowering the quota cannot evict these blocks */
    GKT_OK(C, gk_pool_stats_get(C, &st));
    GKT_CHECK(st.pinned >= 3 * (size_t)n * 4, "pinned %zu", st.pinned);
    /* freeing a tensor the graph uses keeps its storage until the graph goes */
    GKT_OK(C, gk_tensor_free(C, y));
    GKT_OK(C, gk_graph_launch(C, g, NULL));
    GKT_OK(C, gk_copy_to_host(C, z, out, (size_t)n * 4));
    GKT_CHECK(out[7] == 4.0f * hx[7], "graph still works after its tensor handle is freed");
    GKT_OK(C, gk_graph_destroy(C, g));
    GKT_FAILS(C, gk_graph_launch(C, g, NULL), GK_ERR_INVALID_HANDLE, "graph");
    GKT_OK(C, gk_tensor_info_get(C, x, &info));
    GKT_CHECK(!info.pinned, "unpinned after destroy");
    /* a failed op inside a capture fails the capture */
    GKT_OK(C, gk_graph_begin(C, NULL));
    {
        gk_tensor bad;
        int64_t m = 3;
        GKT_OK(C, gk_tensor_empty(C, GK_F32, 1, &m, &bad));
        GKT_FAILS(C, gk_add(C, bad, x, x), GK_ERR_SHAPE, "broadcast");
        GKT_CHECK(gk_graph_end(C, NULL, &g2) != GK_OK, "capture with a failed op does not give a graph");
        gk_tensor_free(C, bad);
    }
    GKT_OK(C, gk_set_stream(C, NULL));
    GKT_OK(C, gk_stream_destroy(C, s));
    gk_tensor_free(C, x);
    gk_tensor_free(C, z);
    free(hx);
    free(out);
}

/* CPU backend: an op whose host scratch cannot be had says so (it used to
   return GK_OK with the output unwritten), run directly and replayed from a
   graph; the output keeps its poison. */
static void test_cpu_scratch_oom(void) {
    gk_tensor a, b, o, x, v, ix;
    int64_t sa[2] = {2, 4096}, sb[2] = {4096, 64}, so[2] = {2, 64}, nx = 200000, nk = 5;
    float poison[128], back[128];
    gk_graph *g;
    int i, ok;
    if (gk_ctx_backend(C) != GK_BACKEND_CPU) return;
    GKT_OK(C, gk_tensor_empty(C, GK_F32, 2, sa, &a));
    GKT_OK(C, gk_tensor_empty(C, GK_F32, 2, sb, &b));
    GKT_OK(C, gk_tensor_empty(C, GK_F32, 2, so, &o));
    GKT_OK(C, gk_tensor_empty(C, GK_F32, 1, &nx, &x));
    GKT_OK(C, gk_tensor_empty(C, GK_F32, 1, &nk, &v));
    GKT_OK(C, gk_tensor_empty(C, GK_I64, 1, &nk, &ix));
    GKT_OK(C, gk_fill(C, a, 1.0));
    GKT_OK(C, gk_fill(C, b, 0.5));
    GKT_OK(C, gk_fill(C, x, 2.0));
    for (i = 0; i < 128; i++) poison[i] = NAN;
    GKT_OK(C, gk_copy_from_host(C, o, poison, sizeof poison));
    gkt_fail_min = (size_t)1 << 20; /* the matmul's B block is 2 MiB, topk's keys 1.6 MB */
    GKT_FAILS(C, gk_matmul(C, o, a, b, NULL), GK_ERR_OUT_OF_MEMORY, "gk_matmul: out of host memory for the CPU backend's scratch");
    GKT_FAILS(C, gk_topk(C, v, ix, x, nk), GK_ERR_OUT_OF_MEMORY, "scratch");
    gkt_fail_min = 0;
    GKT_OK(C, gk_copy_to_host(C, o, back, sizeof back));
    ok = 1;
    for (i = 0; i < 128; i++) ok &= back[i] != back[i];
    GKT_CHECK(ok, "a failed matmul leaves out unwritten");
    /* captured while memory is there, replayed while it is not */
    GKT_OK(C, gk_graph_begin(C, NULL));
    GKT_OK(C, gk_matmul(C, o, a, b, NULL));
    GKT_OK(C, gk_graph_end(C, NULL, &g));
    gkt_fail_min = (size_t)1 << 20;
    GKT_FAILS(C, gk_graph_launch(C, g, NULL), GK_ERR_OUT_OF_MEMORY, "op 1 of 1");
    gkt_fail_min = 0;
    GKT_OK(C, gk_graph_launch(C, g, NULL));
    GKT_OK(C, gk_copy_to_host(C, o, back, sizeof back));
    ok = 1;
    for (i = 0; i < 128; i++) ok &= back[i] == 2048.0f;
    GKT_CHECK(ok, "the replay with memory back computes 4096 * 1 * 0.5");
    GKT_OK(C, gk_graph_destroy(C, g));
    GKT_OK(C, gk_topk(C, v, ix, x, nk));
    gk_tensor_free(C, a);
    gk_tensor_free(C, b);
    gk_tensor_free(C, o);
    gk_tensor_free(C, x);
    gk_tensor_free(C, v);
    gk_tensor_free(C, ix);
}

int main(void) {
    gkt_seed();
    C = gkt_dut();
    test_streams_events();
    test_graph();
    test_cpu_scratch_oom();
    gk_ctx_destroy(C);
    return gkt_done("test_stream");
}
