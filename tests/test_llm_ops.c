/* test_llm_ops: the >>api_ops_llm group (gk_kv_write) on the device under
   test against a host expectation computed here, and the CPU reference. */
#define GPUKIT_IMPLEMENTATION
#include "gpukit.h"
#include "tests/gkt.h"

static gk_ctx *dut;

/* one case: cache [B, S, H, D] (a slice of a bigger buffer when sliced),
   x a view [B, T, H, D] of a wider [B, T, H + extra, D] buffer */
static void kv_case(gk_dtype dt, int64_t B, int64_t S, int64_t H, int64_t D, int64_t T, int sliced, int extra) {
    size_t es = gk_dtype_size(dt);
    int64_t cb_shape[4] = { B + sliced, S, H, D }, xb_shape[4] = { B, T, H + extra, D };
    int64_t ncb = cb_shape[0] * S * H * D, nxb = B * T * (H + extra) * D, b, t, h, d;
    unsigned char *cinit = (unsigned char *)malloc((size_t)ncb * es), *xin = (unsigned char *)malloc((size_t)nxb * es);
    unsigned char *want = (unsigned char *)malloc((size_t)ncb * es), *got = (unsigned char *)malloc((size_t)ncb * es);
    int32_t *start = (int32_t *)malloc(sizeof(int32_t) * (size_t)B);
    gk_tensor cbuf = { 0 }, xbuf = { 0 }, cv = { 0 }, xv = { 0 }, stt = { 0 };
    int64_t sh1[1];
    size_t i;
    for (i = 0; i < (size_t)ncb * es; i++) cinit[i] = (unsigned char)gkt_u64();
    for (i = 0; i < (size_t)nxb * es; i++) xin[i] = (unsigned char)gkt_u64();
    for (b = 0; b < B; b++) {
        /* in range, at the end, partly past the end, negative */
        int64_t k = b % 4;
        start[b] = (int32_t)(k == 0 ? (int64_t)(gkt_u64() % (uint64_t)(S > T ? S - T + 1 : 1)) : k == 1 ? S - T : k == 2 ? S - 1 : -1);
    }
    memcpy(want, cinit, (size_t)ncb * es);
    for (b = 0; b < B; b++)
        for (t = 0; t < T; t++) {
            int64_t row = start[b] + t;
            if (row < 0 || row >= S) continue;
            for (h = 0; h < H; h++)
                for (d = 0; d < D; d++)
                    memcpy(want + ((((b + sliced) * S + row) * H + h) * D + d) * (int64_t)es,
                           xin + (((b * T + t) * (H + extra) + h + extra) * D + d) * (int64_t)es, es);
        }
    GKT_OK(dut, gk_tensor_from_host(dut, dt, 4, cb_shape, cinit, &cbuf));
    GKT_OK(dut, gk_tensor_from_host(dut, dt, 4, xb_shape, xin, &xbuf));
    sh1[0] = B;
    GKT_OK(dut, gk_tensor_from_host(dut, GK_I32, 1, sh1, start, &stt));
    GKT_OK(dut, gk_view_slice(dut, cbuf, 0, sliced, sliced + B, 1, &cv));
    GKT_OK(dut, gk_view_slice(dut, xbuf, 2, extra, extra + H, 1, &xv));
    GKT_OK(dut, gk_kv_write(dut, cv, xv, stt));
    GKT_OK(dut, gk_copy_to_host(dut, cbuf, got, (size_t)ncb * es));
    GKT_CHECK(memcmp(got, want, (size_t)ncb * es) == 0, "%s B %lld S %lld H %lld D %lld T %lld sliced %d extra %d: cache differs",
              gk_dtype_name(dt), (long long)B, (long long)S, (long long)H, (long long)D, (long long)T, sliced, extra);
    gk_tensor_free(dut, cv); gk_tensor_free(dut, xv); gk_tensor_free(dut, cbuf); gk_tensor_free(dut, xbuf); gk_tensor_free(dut, stt);
    free(cinit); free(xin); free(want); free(got); free(start);
}

/* the decode pattern: recorded into a graph, replayed with new start values */
static void kv_graph(void) {
    int64_t cs[4] = { 2, 8, 1, 4 }, xs[4] = { 2, 1, 1, 4 }, s1[1] = { 2 };
    float xin[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, got[64];
    int32_t st0[2] = { 0, 3 }, st1[2] = { 5, 7 };
    gk_tensor c, x, s;
    gk_graph *g = NULL;
    int i;
    GKT_OK(dut, gk_tensor_empty(dut, GK_F32, 4, cs, &c));
    GKT_OK(dut, gk_fill(dut, c, 0));
    GKT_OK(dut, gk_tensor_from_host(dut, GK_F32, 4, xs, xin, &x));
    GKT_OK(dut, gk_tensor_from_host(dut, GK_I32, 1, s1, st0, &s));
    GKT_OK(dut, gk_graph_begin(dut, NULL));
    GKT_OK(dut, gk_kv_write(dut, c, x, s));
    GKT_OK(dut, gk_graph_end(dut, NULL, &g));
    GKT_OK(dut, gk_graph_launch(dut, g, NULL));
    GKT_OK(dut, gk_copy_from_host(dut, s, st1, sizeof st1));
    GKT_OK(dut, gk_graph_launch(dut, g, NULL));
    GKT_OK(dut, gk_copy_to_host(dut, c, got, sizeof got));
    for (i = 0; i < 4; i++) {
        GKT_CHECK(got[0 * 4 + i] == xin[i] && got[5 * 4 + i] == xin[i], "seq 0 rows 0 and 5, d %d: %g %g", i, got[i], got[20 + i]);
        GKT_CHECK(got[32 + 3 * 4 + i] == xin[4 + i] && got[32 + 7 * 4 + i] == xin[4 + i], "seq 1 rows 3 and 7, d %d", i);
        GKT_CHECK(got[1 * 4 + i] == 0 && got[32 + 4 * 4 + i] == 0, "untouched rows stay 0");
    }
    gk_graph_destroy(dut, g);
    gk_tensor_free(dut, c); gk_tensor_free(dut, x); gk_tensor_free(dut, s);
}

static void kv_errors(void) {
    int64_t cs[4] = { 2, 8, 2, 4 }, xs[4] = { 2, 1, 3, 4 }, s1[1] = { 2 }, s3[1] = { 3 };
    gk_tensor c, xbad, xh, s, s64, sbad;
    GKT_OK(dut, gk_tensor_empty(dut, GK_F32, 4, cs, &c));
    GKT_OK(dut, gk_tensor_empty(dut, GK_F32, 4, xs, &xbad));
    xs[2] = 2;
    GKT_OK(dut, gk_tensor_empty(dut, GK_F16, 4, xs, &xh));
    GKT_OK(dut, gk_tensor_empty(dut, GK_I32, 1, s1, &s));
    GKT_OK(dut, gk_tensor_empty(dut, GK_I64, 1, s1, &s64));
    GKT_OK(dut, gk_tensor_empty(dut, GK_I32, 1, s3, &sbad));
    GKT_FAILS(dut, gk_kv_write(dut, c, xbad, s), GK_ERR_SHAPE, "x is [2,1,3,4]");
    GKT_FAILS(dut, gk_kv_write(dut, c, xh, s), GK_ERR_DTYPE, "cache is f32 but x is f16");
    GKT_FAILS(dut, gk_kv_write(dut, c, c, s64), GK_ERR_DTYPE, "start is i64");
    GKT_FAILS(dut, gk_kv_write(dut, c, c, sbad), GK_ERR_SHAPE, "start must be a contiguous i32 vector of 2");
    GKT_FAILS(dut, gk_kv_write(dut, s, s, s), GK_ERR_SHAPE, "cache has shape [2]");
    gk_tensor_free(dut, c); gk_tensor_free(dut, xbad); gk_tensor_free(dut, xh);
    gk_tensor_free(dut, s); gk_tensor_free(dut, s64); gk_tensor_free(dut, sbad);
}

int main(void) {
    static const gk_dtype dts[6] = { GK_F32, GK_BF16, GK_F16, GK_F64, GK_I32, GK_U8 };
    int i;
    gkt_seed();
    dut = gkt_dut();
    for (i = 0; i < 6; i++) {
        kv_case(dts[i], 1, 16, 2, 64, 1, 0, 0);
        kv_case(dts[i], 5, 33, 3, 8, 1, 1, 4);   /* decode: T = 1, a cache slot view, x a view into qkv */
        kv_case(dts[i], 3, 31, 1, 1, 7, 1, 2);   /* prefill-like, odd sizes */
        kv_case(dts[i], 4, 40, 4, 128, 17, 0, 8);
    }
    kv_graph();
    kv_errors();
    gk_ctx_destroy(dut);
    return gkt_done("test_llm_ops");
}
