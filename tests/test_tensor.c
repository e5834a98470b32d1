/* test_tensor.c - tensor handles, shapes, views, host transfers and wrapped
   foreign memory, on the device under test (CUDA when present, else CPU;
   the host-memory wraps always on a CPU-backend context). */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkt.h"

static gk_ctx *C;

static void fill_iota(gk_tensor t, int64_t n) {
    float *h = (float *)malloc((size_t)n * 4);
    int64_t i;
    for (i = 0; i < n; i++) h[i] = (float)i;
    GKT_OK(C, gk_copy_from_host(C, t, h, (size_t)n * 4));
    free(h);
}
/* reads any f32 tensor through gk_contiguous into a host array */
static float *read_f32(gk_tensor t, int64_t *n) {
    gk_tensor c;
    gk_tensor_info info;
    float *h;
    GKT_OK(C, gk_contiguous(C, t, &c));
    GKT_OK(C, gk_tensor_info_get(C, c, &info));
    h = (float *)malloc(info.nbytes + 4);
    GKT_OK(C, gk_copy_to_host(C, c, h, info.nbytes));
    gk_tensor_free(C, c);
    *n = info.numel;
    return h;
}

static void test_handles(void) {
    gk_tensor t, bad, v;
    gk_ctx *other = gkt_ref();
    gk_tensor_info info;
    int64_t shape[2] = { 3, 4 };
    bad.id = 0;
    GKT_FAILS(C, gk_tensor_info_get(C, bad, &info), GK_ERR_INVALID_HANDLE, "null tensor handle");
    GKT_FAILS(NULL, gk_tensor_empty(NULL, GK_F32, 2, shape, &t), GK_ERR_INVALID_HANDLE, "ctx is NULL");
    GKT_OK(C, gk_tensor_empty(C, GK_F32, 2, shape, &t));
    GKT_CHECK(gk_tensor_valid(C, t), "valid");
    GKT_OK(C, gk_tensor_info_get(C, t, &info));
    GKT_CHECK(info.numel == 12 && info.nbytes == 48 && info.contiguous && info.strides[0] == 4 && info.strides[1] == 1, "info");
    /* a handle of another context */
    GKT_FAILS(other, gk_fill(other, t, 1.0), GK_ERR_INVALID_HANDLE, "not a tensor of this context");
    GKT_OK(C, gk_view_transpose(C, t, 0, 1, &v));
    GKT_OK(C, gk_tensor_free(C, t));
    GKT_CHECK(!gk_tensor_valid(C, t), "freed");
    GKT_FAILS(C, gk_fill(C, t, 1.0), GK_ERR_INVALID_HANDLE, "use after free");
    GKT_FAILS(C, gk_tensor_free(C, t), GK_ERR_INVALID_HANDLE, "use after free");
    /* the view keeps the storage alive */
    GKT_OK(C, gk_fill(C, v, 2.5));
    {
        int64_t n;
        float *h = read_f32(v, &n);
        GKT_CHECK(n == 12 && h[0] == 2.5f && h[11] == 2.5f, "view alive");
        free(h);
    }
    /* a recycled slot does not revive an old handle */
    GKT_OK(C, gk_tensor_empty(C, GK_F32, 2, shape, &bad));
    GKT_FAILS(C, gk_fill(C, t, 1.0), GK_ERR_INVALID_HANDLE, "use after free");
    gk_tensor_free(C, bad);
    gk_tensor_free(C, v);
    gk_ctx_destroy(other);
}

static void test_shapes(void) {
    gk_tensor t;
    int64_t s[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 }, neg[2] = { 3, -1 }, huge[3] = { 1ll << 40, 1ll << 40, 1ll << 40 };
    int64_t big[1] = { (int64_t)1 << 58 }, zero[2] = { 0, 5 };
    gk_tensor_info info;
    GKT_FAILS(C, gk_tensor_empty(C, GK_F32, 9, s, &t), GK_ERR_SHAPE, "ndim 9");
    GKT_CHECK(t.id == 0, "out cleared on failure");
    GKT_FAILS(C, gk_tensor_empty(C, GK_F32, 2, neg, &t), GK_ERR_SHAPE, "negative");
    GKT_FAILS(C, gk_tensor_empty(C, (gk_dtype)99, 1, s, &t), GK_ERR_DTYPE, "invalid dtype");
    GKT_FAILS(C, gk_tensor_empty(C, GK_F32, 3, huge, &t), GK_ERR_OVERFLOW, "overflow");
    GKT_FAILS(C, gk_tensor_empty(C, GK_F32, 2, NULL, &t), GK_ERR_INVALID_ARGUMENT, "shape is NULL");
    /* fits size_t but not the pool: a clear out-of-memory, nothing allocated */
    GKT_FAILS(C, gk_tensor_empty(C, GK_F64, 1, big, &t), GK_ERR_OUT_OF_MEMORY, "bytes");
    /* zero-size and scalar tensors work everywhere */
    GKT_OK(C, gk_tensor_empty(C, GK_F32, 2, zero, &t));
    GKT_OK(C, gk_fill(C, t, 1.0));
    GKT_OK(C, gk_copy_to_host(C, t, NULL, 0));
    GKT_OK(C, gk_tensor_info_get(C, t, &info));
    GKT_CHECK(info.numel == 0 && info.nbytes == 0, "zero size");
    gk_tensor_free(C, t);
    GKT_OK(C, gk_tensor_empty(C, GK_I64, 0, NULL, &t));
    GKT_OK(C, gk_fill(C, t, -7));
    {
        int64_t v = 0;
        GKT_OK(C, gk_copy_to_host(C, t, &v, 8));
        GKT_CHECK(v == -7, "scalar %lld", (long long)v);
        GKT_FAILS(C, gk_copy_to_host(C, t, &v, 4), GK_ERR_INVALID_ARGUMENT, "nbytes");
        GKT_FAILS(C, gk_copy_to_host(C, t, NULL, 8), GK_ERR_INVALID_ARGUMENT, "NULL");
    }
    gk_tensor_free(C, t);
}

static void test_views(void) {
    gk_tensor t, v, w, x;
    int64_t shape[3] = { 2, 3, 4 }, n, r1[2] = { 6, 4 }, r2[2] = { -1, 2 }, r3[2] = { 5, 5 }, r4[1] = { 24 };
    int perm[3] = { 2, 0, 1 }, badperm[3] = { 0, 0, 1 };
    float *h;
    gk_tensor_info info;
    GKT_OK(C, gk_tensor_empty(C, GK_F32, 3, shape, &t));
    fill_iota(t, 24);
    /* reshape of a contiguous tensor, with an inferred dim */
    GKT_OK(C, gk_view_reshape(C, t, 2, r1, &v));
    GKT_OK(C, gk_view_reshape(C, t, 2, r2, &w));
    GKT_OK(C, gk_tensor_info_get(C, w, &info));
    GKT_CHECK(info.shape[0] == 12 && info.shape[1] == 2 && info.is_view, "inferred");
    GKT_FAILS(C, gk_view_reshape(C, t, 2, r3, &x), GK_ERR_SHAPE, "cannot be viewed");
    gk_tensor_free(C, v);
    gk_tensor_free(C, w);
    /* permute: element [i,j,k] of t is at [k,i,j] */
    GKT_OK(C, gk_view_permute(C, t, perm, &v));
    GKT_FAILS(C, gk_view_permute(C, t, badperm, &w), GK_ERR_INVALID_ARGUMENT, "permutation");
    h = read_f32(v, &n);
    GKT_CHECK(n == 24 && h[0] == 0 && h[1] == 4 && h[6] == 1 && h[23] == 23, "permute values %g %g %g %g", h[0], h[1], h[6], h[23]);
    free(h);
    /* reshape of the permuted view needs a copy: refused, gk_contiguous works */
    GKT_FAILS(C, gk_view_reshape(C, v, 1, r4, &w), GK_ERR_SHAPE, "gk_contiguous");
    GKT_OK(C, gk_contiguous(C, v, &w));
    GKT_OK(C, gk_tensor_info_get(C, w, &info));
    GKT_CHECK(info.contiguous && !info.is_view, "contiguous copy");
    gk_tensor_free(C, w);
    gk_tensor_free(C, v);
    /* slices: t[:, 1:3, ::2], negative indices, empty */
    GKT_OK(C, gk_view_slice(C, t, 1, 1, 3, 1, &v));
    GKT_OK(C, gk_view_slice(C, v, -1, 0, 100, 2, &w));
    h = read_f32(w, &n);
    GKT_CHECK(n == 8 && h[0] == 4 && h[1] == 6 && h[2] == 8 && h[4] == 16 && h[7] == 22, "slice values %g %g %g %g", h[0], h[1], h[2], h[7]);
    free(h);
    gk_tensor_free(C, w);
    GKT_OK(C, gk_view_slice(C, v, 2, -1, 4, 1, &w));
    GKT_OK(C, gk_tensor_info_get(C, w, &info));
    GKT_CHECK(info.shape[2] == 1 && info.offset == 4 + 3, "negative start: shape %lld offset %lld", (long long)info.shape[2], (long long)info.offset);
    gk_tensor_free(C, w);
    GKT_OK(C, gk_view_slice(C, t, 0, 2, 1, 1, &w));
    GKT_OK(C, gk_tensor_info_get(C, w, &info));
    GKT_CHECK(info.numel == 0, "empty slice");
    gk_tensor_free(C, w);
    GKT_FAILS(C, gk_view_slice(C, t, 3, 0, 1, 1, &w), GK_ERR_INVALID_ARGUMENT, "dim out of range");
    GKT_FAILS(C, gk_view_slice(C, t, 0, 0, 1, 0, &w), GK_ERR_INVALID_ARGUMENT, "step");
    /* v = t[:, 1:3, :] is [2,2,4] with strides [12,4,1]: [2,8] is a view, [4,4] needs a copy */
    {
        int64_t r28[2] = { 2, 8 }, r44[2] = { 4, 4 };
        GKT_OK(C, gk_view_reshape(C, v, 2, r28, &w));
        GKT_OK(C, gk_tensor_info_get(C, w, &info));
        GKT_CHECK(info.strides[0] == 12 && info.strides[1] == 1 && info.offset == 4, "strides %lld %lld", (long long)info.strides[0], (long long)info.strides[1]);
        h = read_f32(w, &n);
        GKT_CHECK(n == 16 && h[0] == 4 && h[7] == 11 && h[8] == 16 && h[15] == 23, "reshaped slice %g %g %g", h[7], h[8], h[15]);
        free(h);
        gk_tensor_free(C, w);
        GKT_FAILS(C, gk_view_reshape(C, v, 2, r44, &w), GK_ERR_SHAPE, "without a copy");
    }
    gk_tensor_free(C, v);
    /* squeeze / unsqueeze / transpose */
    GKT_OK(C, gk_view_unsqueeze(C, t, 1, &v));
    GKT_OK(C, gk_tensor_info_get(C, v, &info));
    GKT_CHECK(info.ndim == 4 && info.shape[1] == 1 && info.shape[2] == 3, "unsqueeze");
    GKT_OK(C, gk_view_squeeze(C, v, 1, &w));
    GKT_OK(C, gk_tensor_info_get(C, w, &info));
    GKT_CHECK(info.ndim == 3 && info.shape[1] == 3 && info.contiguous, "squeeze");
    GKT_FAILS(C, gk_view_squeeze(C, t, 0, &x), GK_ERR_SHAPE, "not 1");
    gk_tensor_free(C, v);
    gk_tensor_free(C, w);
    GKT_OK(C, gk_view_transpose(C, t, -1, 0, &v));
    h = read_f32(v, &n);
    GKT_CHECK(h[1] == 12 && h[2] == 4, "transpose values %g %g", h[1], h[2]);
    free(h);
    gk_tensor_free(C, v);
    gk_tensor_free(C, t);
}

static void test_transfers(void) {
    gk_tensor t, v;
    int64_t shape[1] = { 1000 }, n;
    float *h = (float *)malloc(4000), *back = (float *)malloc(4000), *pinned = NULL;
    int i, ok = 1;
    for (i = 0; i < 1000; i++) h[i] = (float)gkt_uniform(-1, 1);
    GKT_OK(C, gk_tensor_from_host(C, GK_F32, 1, shape, h, &t));
    for (i = 0; i < 1000; i++) back[i] = -999.0f; /* poisoned */
    GKT_OK(C, gk_copy_to_host(C, t, back, 4000));
    for (i = 0; i < 1000; i++) ok &= back[i] == h[i];
    GKT_CHECK(ok, "round trip");
    GKT_OK(C, gk_view_slice(C, t, 0, 0, 1000, 2, &v));
    GKT_FAILS(C, gk_copy_to_host(C, v, back, 2000), GK_ERR_SHAPE, "not contiguous");
    gk_tensor_free(C, v);
    /* async through page-locked memory, ordered on a stream */
    GKT_OK(C, gk_host_alloc(C, 4000, (void **)&pinned));
    if (pinned) {
        gk_stream *s;
        for (i = 0; i < 1000; i++) pinned[i] = -1.0f;
        GKT_OK(C, gk_stream_create(C, GK_PRIORITY_HIGH, &s));
        GKT_OK(C, gk_copy_to_host_async(C, t, pinned, 4000, s));
        GKT_OK(C, gk_stream_sync(C, s));
        ok = 1;
        for (i = 0; i < 1000; i++) ok &= pinned[i] == h[i];
        GKT_CHECK(ok, "async round trip");
        GKT_OK(C, gk_stream_destroy(C, s));
        GKT_OK(C, gk_host_free(C, pinned));
    }
    {
        float *r = read_f32(t, &n);
        GKT_CHECK(n == 1000 && r[999] == h[999], "read");
        free(r);
    }
    gk_tensor_free(C, t);
    free(h);
    free(back);
}

/* any f32 tensor of context c as a host array (through gk_contiguous) */
static float *read_on(gk_ctx *c, gk_tensor t, int64_t *n) {
    gk_tensor k;
    gk_tensor_info info;
    float *h;
    *n = 0;
    if (gk_contiguous(c, t, &k) != GK_OK) { GKT_CHECK(0, "gk_contiguous: %s", gk_last_error(c)); return (float *)calloc(1, 4); }
    GKT_OK(c, gk_tensor_info_get(c, k, &info));
    h = (float *)calloc((size_t)info.numel + 1, 4);
    GKT_OK(c, gk_copy_to_host(c, k, h, info.nbytes));
    gk_tensor_free(c, k);
    *n = info.numel;
    return h;
}

/* a gk_release_fn that counts its calls and checks its user pointer */
typedef struct released { int calls; const float *mem; float first; } released;
static void on_release(void *user) {
    released *r = (released *)user;
    r->calls++;
    if (r->mem) r->first = r->mem[0]; /* the memory is still valid while release runs */
}

/* gk_tensor_wrap over host memory, on a CPU-backend context: no copy either
   way, strided layouts, the pool leaves the memory alone, the lifetime rule
   (handles go, the memory stays the caller's; ASan sees a double free or a
   leak), and the layout checks. */
static void test_wrap_host(gk_ctx *c) {
    float *buf = (float *)malloc(sizeof(float) * 15), orig[15], *h;
    int64_t sh[2] = { 3, 5 }, tsh[2] = { 5, 3 }, tst[2] = { 1, 5 }, csh[2] = { 3, 2 }, cst[2] = { 5, 2 }, n, i, j;
    int64_t bad_neg[2] = { 5, -1 }, bad_zero[2] = { 0, 1 }, ov_sh[2] = { 3, 3 }, ov_st[2] = { 1, 1 }, one_sh[2] = { 1, 4 }, one_st[2] = { -7, 1 };
    int64_t big_st[2] = { (int64_t)1 << 62, 1 }, zero_sh[2] = { 0, 4 };
    gk_tensor w, wt, wc, v, e, out;
    gk_tensor_info info;
    gk_pool_stats before, after;
    gk_ctx *c2;
    released rel, rel2;
    int ok;
    memset(&rel, 0, sizeof rel);
    memset(&rel2, 0, sizeof rel2);
    for (i = 0; i < 15; i++) buf[i] = orig[i] = (float)gkt_uniform(-2, 2);
    rel.mem = buf;
    GKT_OK(c, gk_pool_stats_get(c, &before));
    GKT_OK(c, gk_tensor_wrap(c, GK_F32, 2, sh, NULL, (uint64_t)(uintptr_t)buf, on_release, &rel, &w));
    GKT_OK(c, gk_pool_stats_get(c, &after));
    GKT_CHECK(after.used == before.used && after.allocations == before.allocations, "wrapping allocates nothing (used %zu -> %zu)", before.used, after.used);
    GKT_OK(c, gk_tensor_info_get(c, w, &info));
    GKT_CHECK(info.wrapped && info.pinned && info.resident && info.contiguous && !info.is_view && info.numel == 15 && info.strides[0] == 5,
              "info: wrapped %d pinned %d resident %d contiguous %d", info.wrapped, info.pinned, info.resident, info.contiguous);
    {
        uint64_t p = 0;
        GKT_OK(c, gk_tensor_ptr(c, w, &p));
        GKT_CHECK(p == (uint64_t)(uintptr_t)buf, "gk_tensor_ptr gives the wrapped address back");
    }
    h = read_on(c, w, &n);
    GKT_CHECK(n == 15 && memcmp(h, orig, sizeof orig) == 0, "the wrapped values read back");
    free(h);
    /* an op writes through the wrap into the caller's memory */
    GKT_OK(c, gk_add(c, w, w, w));
    ok = 1;
    for (i = 0; i < 15; i++) ok &= buf[i] == 2 * orig[i];
    GKT_CHECK(ok, "gk_add into the wrapped tensor writes the caller's buffer");
    for (i = 0; i < 15; i++) buf[i] = orig[i];
    /* strides: the transpose, and every other column */
    GKT_OK(c, gk_tensor_wrap(c, GK_F32, 2, tsh, tst, (uint64_t)(uintptr_t)buf, NULL, NULL, &wt));
    h = read_on(c, wt, &n);
    ok = n == 15;
    for (i = 0; i < 5 && ok; i++)
        for (j = 0; j < 3; j++) ok &= h[i * 3 + j] == orig[j * 5 + i];
    GKT_CHECK(ok, "a transposed wrap reads the transpose");
    free(h);
    GKT_OK(c, gk_tensor_info_get(c, wt, &info));
    GKT_CHECK(!info.contiguous && info.strides[0] == 1 && info.strides[1] == 5, "transposed wrap: strides %lld %lld", (long long)info.strides[0],
              (long long)info.strides[1]);
    GKT_OK(c, gk_tensor_wrap(c, GK_F32, 2, csh, cst, (uint64_t)(uintptr_t)buf, NULL, NULL, &wc));
    GKT_OK(c, gk_tensor_empty(c, GK_F32, 2, csh, &out));
    GKT_OK(c, gk_mul(c, out, wc, wc));
    h = read_on(c, out, &n);
    ok = n == 6;
    for (i = 0; i < 3 && ok; i++)
        for (j = 0; j < 2; j++) ok &= h[i * 2 + j] == orig[i * 5 + 2 * j] * orig[i * 5 + 2 * j];
    GKT_CHECK(ok, "a strided wrap as an op's input");
    free(h);
    gk_tensor_free(c, out);
    /* the pool: no eviction, pins are counted and harmless */
    GKT_FAILS(c, gk_tensor_evict(c, w), GK_ERR_UNSUPPORTED, "never evicted");
    GKT_OK(c, gk_tensor_pin(c, w));
    GKT_OK(c, gk_tensor_unpin(c, w));
    GKT_FAILS(c, gk_tensor_unpin(c, w), GK_ERR_STATE, "not pinned");
    {   /* a quota below what is in use evicts the idle pool tensors, never the wrapped memory */
        gk_tensor t;
        int64_t tn = 4096;
        GKT_OK(c, gk_tensor_empty(c, GK_F32, 1, &tn, &t));
        GKT_OK(c, gk_pool_stats_get(c, &before));
        GKT_OK(c, gk_pool_set_quota(c, 0));
        GKT_OK(c, gk_pool_stats_get(c, &after));
        GKT_CHECK(after.evictions > before.evictions, "the quota of 0 evicted the pool's tensor");
        GKT_OK(c, gk_tensor_info_get(c, w, &info));
        GKT_CHECK(info.resident && info.wrapped, "the wrapped tensor stays resident");
        h = read_on(c, w, &n); /* contiguous: read through a view, nothing allocated */
        GKT_CHECK(n == 15 && memcmp(h, orig, sizeof orig) == 0, "the wrapped values are where they were");
        free(h);
        GKT_OK(c, gk_pool_set_quota(c, before.quota));
        gk_tensor_free(c, t);
    }
    /* a view outlives the wrap's handle; freeing every handle leaves the memory to its owner */
    GKT_OK(c, gk_view_slice(c, w, 1, 1, 3, 1, &v));
    GKT_OK(c, gk_tensor_free(c, w));
    GKT_OK(c, gk_tensor_free(c, wt));
    GKT_OK(c, gk_tensor_free(c, wc));
    h = read_on(c, v, &n);
    GKT_CHECK(n == 6 && h[0] == orig[1] && h[5] == orig[12], "a view of a freed wrap still reads the memory");
    free(h);
    GKT_CHECK(rel.calls == 0, "release ran while a view holds the memory (%d calls)", rel.calls);
    {   /* a graph that captured the view holds the memory after its last handle goes */
        gk_stream *s = NULL;
        gk_graph *g = NULL;
        GKT_OK(c, gk_stream_create(c, GK_PRIORITY_NORMAL, &s));
        GKT_OK(c, gk_set_stream(c, s));
        GKT_OK(c, gk_graph_begin(c, NULL));
        GKT_OK(c, gk_add(c, v, v, v));
        GKT_OK(c, gk_graph_end(c, NULL, &g));
        GKT_OK(c, gk_set_stream(c, NULL));
        GKT_OK(c, gk_tensor_free(c, v));
        GKT_CHECK(rel.calls == 0, "release ran while a graph holds the memory");
        GKT_OK(c, gk_graph_launch(c, g, s));
        GKT_OK(c, gk_stream_sync(c, s));
        GKT_CHECK(buf[1] == 2 * orig[1] && buf[12] == 2 * orig[12] && buf[0] == orig[0], "the graph's replay wrote the wrapped memory");
        GKT_OK(c, gk_graph_destroy(c, g));
        GKT_CHECK(rel.calls == 1 && rel.first == orig[0], "release runs once when the graph goes (%d calls)", rel.calls);
        GKT_OK(c, gk_stream_destroy(c, s));
        for (i = 0; i < 15; i++) buf[i] = orig[i];
    }
    buf[3] = 42.0f; /* still the caller's (ASan: not freed by gpukit) */
    GKT_CHECK(buf[0] == orig[0] && buf[3] == 42.0f, "the memory is untouched");
    /* layouts that are refused, and those that are not */
    GKT_FAILS(c, gk_tensor_wrap(c, GK_F32, 2, tsh, bad_neg, (uint64_t)(uintptr_t)buf, on_release, &rel2, &e), GK_ERR_INVALID_ARGUMENT,
              "strides[1] = -1 is negative");
    GKT_CHECK(e.id == 0, "out cleared on failure");
    GKT_FAILS(c, gk_tensor_wrap(c, GK_F32, 2, tsh, bad_zero, (uint64_t)(uintptr_t)buf, NULL, NULL, &e), GK_ERR_INVALID_ARGUMENT, "strides[0] = 0 makes elements overlap");
    GKT_FAILS(c, gk_tensor_wrap(c, GK_F32, 2, ov_sh, ov_st, (uint64_t)(uintptr_t)buf, NULL, NULL, &e), GK_ERR_INVALID_ARGUMENT, "overlap");
    GKT_FAILS(c, gk_tensor_wrap(c, GK_F32, 2, tsh, big_st, (uint64_t)(uintptr_t)buf, NULL, NULL, &e), GK_ERR_OVERFLOW, "2^56");
    GKT_FAILS(c, gk_tensor_wrap(c, GK_F32, 2, sh, NULL, (uint64_t)(uintptr_t)buf + 2, NULL, NULL, &e), GK_ERR_INVALID_ARGUMENT, "not aligned to the f32 element size");
    GKT_FAILS(c, gk_tensor_wrap(c, GK_F32, 2, sh, NULL, 0, on_release, &rel2, &e), GK_ERR_INVALID_ARGUMENT, "address is 0");
    GKT_CHECK(rel2.calls == 0, "a failed wrap called release");
    GKT_FAILS(c, gk_tensor_wrap(c, GK_F32, 2, sh, NULL, (uint64_t)(uintptr_t)buf, NULL, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "out is NULL");
    GKT_FAILS(c, gk_tensor_wrap(c, (gk_dtype)99, 2, sh, NULL, (uint64_t)(uintptr_t)buf, NULL, NULL, &e), GK_ERR_DTYPE, "invalid dtype");
    GKT_FAILS(c, gk_tensor_wrap(c, GK_F32, 9, sh, NULL, (uint64_t)(uintptr_t)buf, NULL, NULL, &e), GK_ERR_SHAPE, "ndim 9");
    GKT_FAILS(NULL, gk_tensor_wrap(NULL, GK_F32, 2, sh, NULL, (uint64_t)(uintptr_t)buf, NULL, NULL, &e), GK_ERR_INVALID_HANDLE, "ctx is NULL");
    GKT_OK(c, gk_tensor_wrap(c, GK_F32, 2, one_sh, one_st, (uint64_t)(uintptr_t)(buf + 4), NULL, NULL, &e)); /* a dim of size 1 takes any stride */
    h = read_on(c, e, &n);
    GKT_CHECK(n == 4 && h[0] == orig[4] && h[1] == orig[5] && h[3] == orig[7], "a [1, 4] wrap with a negative stride on its size-1 dim");
    free(h);
    gk_tensor_free(c, e);
    GKT_OK(c, gk_tensor_wrap(c, GK_F32, 2, zero_sh, NULL, 0, on_release, &rel2, &e)); /* no elements: no memory kept */
    GKT_OK(c, gk_tensor_info_get(c, e, &info));
    GKT_CHECK(info.numel == 0 && rel2.calls == 1, "an empty wrap: released at once (%d calls)", rel2.calls);
    gk_tensor_free(c, e);
    /* a context destroyed with a wrap still live frees its handle, never the memory */
    c2 = gkt_ref();
    memset(&rel2, 0, sizeof rel2);
    GKT_OK(c2, gk_tensor_wrap(c2, GK_F32, 2, sh, NULL, (uint64_t)(uintptr_t)buf, on_release, &rel2, &e));
    GKT_OK(c2, gk_view_transpose(c2, e, 0, 1, &v));
    gk_ctx_destroy(c2);
    GKT_CHECK(buf[14] == orig[14] && rel2.calls == 1, "the memory outlives the context, which releases it (%d calls)", rel2.calls);
    free(buf);
}

/* gk_tensor_wrap on CUDA: device memory (another tensor's, found through
   gk_tensor_ptr) and page-locked host memory wrap without a copy; pageable
   host memory is refused. */
static void test_wrap_cuda(void) {
    int64_t n64 = 64, sh[2] = { 8, 8 }, n, i;
    float x[64], y[64], *h, *pinned = NULL, *pageable;
    gk_tensor t, w, e;
    uint64_t p = 0;
    released rel;
    int ok;
    for (i = 0; i < 64; i++) x[i] = (float)gkt_uniform(-1, 1);
    GKT_OK(C, gk_tensor_from_host(C, GK_F32, 1, &n64, x, &t));
    GKT_OK(C, gk_tensor_pin(C, t)); /* its address stays put */
    GKT_OK(C, gk_tensor_ptr(C, t, &p));
    memset(&rel, 0, sizeof rel);
    GKT_OK(C, gk_tensor_wrap(C, GK_F32, 2, sh, NULL, p, on_release, &rel, &w));
    h = read_on(C, w, &n);
    GKT_CHECK(n == 64 && memcmp(h, x, sizeof x) == 0, "cuda: a wrap of device memory reads it");
    free(h);
    GKT_OK(C, gk_add(C, w, w, w));
    GKT_OK(C, gk_copy_to_host(C, t, y, sizeof y));
    ok = 1;
    for (i = 0; i < 64; i++) ok &= y[i] == 2 * x[i];
    GKT_CHECK(ok, "cuda: an op on the wrap writes the device memory");
    GKT_FAILS(C, gk_tensor_evict(C, w), GK_ERR_UNSUPPORTED, "never evicted");
    GKT_OK(C, gk_add(C, w, w, w)); /* queued: release waits for it */
    GKT_OK(C, gk_tensor_free(C, w));
    GKT_CHECK(rel.calls == 1, "cuda: release ran %d times", rel.calls);
    GKT_OK(C, gk_copy_to_host(C, t, y, sizeof y));
    GKT_CHECK(y[0] == 4 * x[0] && y[63] == 4 * x[63], "cuda: freeing the wrap leaves the memory");
    GKT_OK(C, gk_tensor_unpin(C, t));
    gk_tensor_free(C, t);
    GKT_OK(C, gk_host_alloc(C, sizeof x, (void **)&pinned));
    if (pinned) {
        memcpy(pinned, x, sizeof x);
        GKT_OK(C, gk_tensor_wrap(C, GK_F32, 2, sh, NULL, (uint64_t)(uintptr_t)pinned, NULL, NULL, &w));
        h = read_on(C, w, &n);
        GKT_CHECK(n == 64 && memcmp(h, x, sizeof x) == 0, "cuda: a wrap of page-locked host memory reads it");
        free(h);
        GKT_OK(C, gk_tensor_free(C, w));
        GKT_OK(C, gk_host_free(C, pinned));
    }
    pageable = (float *)malloc(sizeof x);
    GKT_FAILS(C, gk_tensor_wrap(C, GK_F32, 2, sh, NULL, (uint64_t)(uintptr_t)pageable, NULL, NULL, &e), GK_ERR_INVALID_ARGUMENT, "not memory the CUDA driver knows");
    free(pageable);
}

/* Handles are never confused between contexts, live or destroyed: two
   contexts stay alive while 5,000 others are made and destroyed, each with a
   tensor in the slot every first tensor takes (the handle's context tag was 12
   bits: the 4,095th context after one made the same handles). */
static void test_many_contexts(void) {
    gk_ctx *a = gkt_ref(), *b = NULL, *c;
    gk_tensor ta, tb, tc, dead;
    int64_t n = 4;
    int i, foreign = 0, stale = 0;
    float h[4];
    dead.id = 0;
    GKT_OK(a, gk_tensor_empty(a, GK_F32, 1, &n, &ta));
    GKT_OK(a, gk_fill(a, ta, 7.0));
    for (i = 0; i < 5000; i++) {
        c = gkt_ref();
        if (gk_tensor_empty(c, GK_F32, 1, &n, &tc) != GK_OK) { GKT_CHECK(0, "%s", gk_last_error(c)); gk_ctx_destroy(c); break; }
        foreign += gk_tensor_valid(c, ta) + gk_tensor_valid(a, tc);
        if (dead.id) stale += gk_tensor_valid(c, dead);
        if (i == 4094) { b = c; tb = tc; continue; } /* a's tag under the 12-bit scheme */
        if (i == 0) dead = tc;                          /* a handle of a destroyed context */
        gk_ctx_destroy(c);
    }
    GKT_CHECK(foreign == 0, "%d handles passed as another live context's", foreign);
    GKT_CHECK(stale == 0, "a destroyed context's handle passed as a later context's %d times", stale);
    if (b) {
        GKT_FAILS(b, gk_fill(b, ta, 1.0), GK_ERR_INVALID_HANDLE, "not a tensor of this context");
        GKT_FAILS(a, gk_fill(a, tb, 1.0), GK_ERR_INVALID_HANDLE, "not a tensor of this context");
        GKT_FAILS(b, gk_tensor_free(b, dead), GK_ERR_INVALID_HANDLE, "not a tensor of this context (it belongs to context #");
        GKT_OK(b, gk_tensor_free(b, tb));
    }
    GKT_OK(a, gk_copy_to_host(a, ta, h, sizeof h));
    GKT_CHECK(h[0] == 7.0f && h[3] == 7.0f, "a's tensor untouched");
    gk_ctx_destroy(b);
    gk_ctx_destroy(a);
}

int main(void) {
    gkt_seed();
    C = gkt_dut();
    test_handles();
    test_many_contexts();
    test_shapes();
    test_views();
    test_transfers();
    if (gk_ctx_backend(C) == GK_BACKEND_CPU) test_wrap_host(C);
    else {
        gk_ctx *cpu = gkt_ref();
        test_wrap_host(cpu);
        gk_ctx_destroy(cpu);
        test_wrap_cuda();
    }
    gk_ctx_destroy(C);
    return gkt_done("test_tensor");
}
