/* test_llm_ops: the >>api_ops_llm group (gk_kv_write, gk_rope_kv_write,
   gk_decode_rms_norm) on the
   device under test against a host expectation computed here, and the CPU
   reference. */
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

/* gk_rope_kv_write on the device under test against the same op on the CPU
   reference (gk_rope + gk_kv_write): x [B, Hq + 2 Hkv, D] (a view with padded
   heads when xpad: not the fused kernel's layout), a cache slot view of
   [B + 1, S, 2 Hkv, D], positions in range, past the cache, past the tables
   and negative; poisoned (random) cache and x outside what is written. */
static gk_tensor up_d(gk_ctx *c, gk_dtype dt, int nd, const int64_t *sh, const double *v, int64_t n) {
    gk_tensor t;
    void *b = malloc((size_t)n * 8 + 8);
    gk_convert(dt, b, GK_F64, v, (size_t)n);
    GKT_OK(c, gk_tensor_from_host(c, dt, nd, sh, b, &t));
    free(b);
    return t;
}
static void ropekv_case(gk_ctx *ref, gk_dtype dt, int64_t B, int64_t Hq, int64_t Hkv, int64_t D, int rd, int64_t S, int64_t maxpos, int xpad) {
    int64_t nh = Hq + 2 * Hkv, xb[3] = { B, nh, D + xpad }, cb[4] = { B + 1, S, 2 * Hkv, D }, tb[2] = { maxpos, rd / 2 }, s1[1] = { B };
    int64_t nx = B * nh * (D + xpad), nc = (B + 1) * S * 2 * Hkv * D, nt = maxpos * (rd / 2), i, b;
    double *xv = (double *)malloc((size_t)nx * 8), *cv = (double *)malloc((size_t)nc * 8), *ct = (double *)malloc((size_t)nt * 8);
    double *st = (double *)malloc((size_t)nt * 8), *g1 = (double *)malloc((size_t)(nx + nc) * 8), *g2 = (double *)malloc((size_t)(nx + nc) * 8);
    void *hb = malloc((size_t)(nx + nc) * 8);
    int32_t *pos = (int32_t *)malloc(sizeof(int32_t) * (size_t)B);
    gk_ctx *cs[2];
    double *gs[2];
    int k;
    double e;
    for (i = 0; i < nx; i++) xv[i] = gkt_uniform(-2, 2);
    for (i = 0; i < nc; i++) cv[i] = gkt_uniform(-2, 2);
    for (i = 0; i < nt; i++) { double a = gkt_uniform(0, 6.283); ct[i] = cos(a); st[i] = sin(a); }
    for (b = 0; b < B; b++) { /* in range (mostly), the last row, past the cache, past the tables, negative */
        int64_t kk = b % 6;
        pos[b] = (int32_t)(kk <= 1 ? (int64_t)(gkt_u64() % (uint64_t)(S < maxpos ? S : maxpos)) : kk == 2 ? S - 1 : kk == 3 ? S : kk == 4 ? maxpos : -1);
    }
    cs[0] = dut; cs[1] = ref; gs[0] = g1; gs[1] = g2;
    for (k = 0; k < 2; k++) {
        gk_ctx *c = cs[k];
        gk_tensor x = up_d(c, dt, 3, xb, xv, nx), cache = up_d(c, dt, 4, cb, cv, nc), ctt = up_d(c, dt, 2, tb, ct, nt), stt = up_d(c, dt, 2, tb, st, nt);
        gk_tensor p, xvw, cvw;
        GKT_OK(c, gk_tensor_from_host(c, GK_I32, 1, s1, pos, &p));
        GKT_OK(c, gk_view_slice(c, x, 2, 0, D, 1, &xvw));
        GKT_OK(c, gk_view_slice(c, cache, 0, 1, B + 1, 1, &cvw));
        GKT_OK(c, gk_rope_kv_write(c, xvw, cvw, p, ctt, stt, rd, Hq));
        GKT_OK(c, gk_copy_to_host(c, x, hb, (size_t)nx * gk_dtype_size(dt)));
        gk_convert(GK_F64, gs[k], dt, hb, (size_t)nx);
        GKT_OK(c, gk_copy_to_host(c, cache, hb, (size_t)nc * gk_dtype_size(dt)));
        gk_convert(GK_F64, gs[k] + nx, dt, hb, (size_t)nc);
        gk_tensor_free(c, x); gk_tensor_free(c, cache); gk_tensor_free(c, ctt); gk_tensor_free(c, stt);
        gk_tensor_free(c, p); gk_tensor_free(c, xvw); gk_tensor_free(c, cvw);
    }
    e = gkt_relerr(g1, g2, (size_t)(nx + nc));
    GKT_CHECK(e <= (dt == GK_F32 ? 1e-6 : 1e-2), "rope_kv_write %s B %lld Hq %lld Hkv %lld D %lld rd %d S %lld xpad %d: relative error %.3g",
              gk_dtype_name(dt), (long long)B, (long long)Hq, (long long)Hkv, (long long)D, rd, (long long)S, xpad, e);
    /* something was rotated and written: x differs from its input, the cache from its start */
    {
        double dx = 0, dc = 0;
        for (i = 0; i < nx; i++) dx += fabs(g1[i] - xv[i]);
        for (i = 0; i < nc; i++) dc += fabs(g1[nx + i] - cv[i]);
        GKT_CHECK(dx > 0 && dc > 0, "rope_kv_write %s: x or cache unchanged", gk_dtype_name(dt));
    }
    free(xv); free(cv); free(ct); free(st); free(g1); free(g2); free(hb); free(pos);
}

/* gk_decode_rms_norm on the device under test against gk_rms_norm on the CPU reference */
static void dnorm_case(gk_ctx *ref, gk_dtype dt, int64_t R, int64_t D) {
    int64_t xs[2] = { R, D }, ws[1] = { D }, n = R * D, i;
    double *xv = (double *)malloc((size_t)n * 8), *wv = (double *)malloc((size_t)D * 8), *g1 = (double *)malloc((size_t)n * 8);
    double *g2 = (double *)malloc((size_t)n * 8), e;
    void *hb = malloc((size_t)n * 8);
    gk_ctx *cs[2];
    double *gs[2];
    int k;
    for (i = 0; i < n; i++) xv[i] = gkt_uniform(-3, 3);
    for (i = 0; i < D; i++) wv[i] = gkt_uniform(0.5, 1.5);
    cs[0] = dut; cs[1] = ref; gs[0] = g1; gs[1] = g2;
    for (k = 0; k < 2; k++) {
        gk_ctx *c = cs[k];
        gk_tensor x = up_d(c, dt, 2, xs, xv, n), w = up_d(c, dt, 1, ws, wv, D), o = up_d(c, dt, 2, xs, xv, n); /* out poisoned with x */
        GKT_OK(c, k == 0 ? gk_decode_rms_norm(c, o, x, w, 1e-6) : gk_rms_norm(c, o, x, w, 1e-6));
        GKT_OK(c, gk_copy_to_host(c, o, hb, (size_t)n * gk_dtype_size(dt)));
        gk_convert(GK_F64, gs[k], dt, hb, (size_t)n);
        gk_tensor_free(c, x); gk_tensor_free(c, w); gk_tensor_free(c, o);
    }
    e = gkt_relerr(g1, g2, (size_t)n);
    GKT_CHECK(e <= (dt == GK_F32 ? 1e-5 : 1e-2), "decode_rms_norm %s R %lld D %lld: relative error %.3g", gk_dtype_name(dt), (long long)R, (long long)D, e);
    free(xv); free(wv); free(g1); free(g2); free(hb);
}

static void ropekv_errors(void) {
    int64_t xs[3] = { 2, 6, 8 }, cs[4] = { 2, 4, 4, 8 }, ts[2] = { 4, 4 }, s1[1] = { 2 };
    gk_tensor x, c, t, p;
    GKT_OK(dut, gk_tensor_empty(dut, GK_BF16, 3, xs, &x));
    GKT_OK(dut, gk_tensor_empty(dut, GK_BF16, 4, cs, &c));
    GKT_OK(dut, gk_tensor_empty(dut, GK_BF16, 2, ts, &t));
    GKT_OK(dut, gk_tensor_empty(dut, GK_I32, 1, s1, &p));
    GKT_FAILS(dut, gk_rope_kv_write(dut, x, c, p, t, t, 8, 3), GK_ERR_SHAPE, "q_heads + 2 Hkv");
    GKT_FAILS(dut, gk_rope_kv_write(dut, c, c, p, t, t, 8, 2), GK_ERR_SHAPE, "x must be");
    gk_tensor_free(dut, x); gk_tensor_free(dut, c); gk_tensor_free(dut, t); gk_tensor_free(dut, p);
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
    {
        static const gk_dtype rdt[3] = { GK_BF16, GK_F16, GK_F32 };
        gk_ctx *ref = gkt_ref();
        for (i = 0; i < 3; i++) {
            ropekv_case(ref, rdt[i], 1, 14, 2, 64, 64, 40, 48, 0);   /* Qwen2.5-0.5B heads */
            ropekv_case(ref, rdt[i], 8, 32, 8, 128, 128, 20, 16, 0); /* Llama GQA, batch 8, positions past the tables */
            ropekv_case(ref, rdt[i], 6, 4, 4, 80, 32, 9, 12, 0);     /* partial rotary dims (pass-through) */
            ropekv_case(ref, rdt[i], 6, 8, 2, 256, 256, 7, 7, 0);    /* head dim 256 */
            ropekv_case(ref, rdt[i], 3, 2, 1, 64, 64, 5, 8, 8);      /* padded heads: the two-op path */
        }
        gk_ctx_destroy(ref);
    }
    {
        static const gk_dtype ndt[3] = { GK_BF16, GK_F16, GK_F32 };
        static const int64_t nd[6][2] = { { 1, 896 }, { 8, 2048 }, { 3, 4096 }, { 2, 64 }, { 5, 100 }, { 1, 8200 } }; /* the last two: gk_rms_norm */
        gk_ctx *ref = gkt_ref();
        int j;
        for (i = 0; i < 3; i++)
            for (j = 0; j < 6; j++) dnorm_case(ref, ndt[i], nd[j][0], nd[j][1]);
        gk_ctx_destroy(ref);
    }
    ropekv_errors();
    gk_ctx_destroy(dut);
    return gkt_done("test_llm_ops");
}
