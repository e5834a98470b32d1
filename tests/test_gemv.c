/* test_gemv.c - the decode path of gk_linear (GEMV: up to 8 rows against a
   [N, K] weight) in every kernel configuration, and gk_linear_glu (gate and
   up projections from one [2N, K] weight: the one-pass GEMV kernel for <= 8
   rows, the scratch path above), on the device under test and on the CPU
   reference, against an f64 product computed here. Bounds as test_matmul.c:
   ||out - ref|| / ||error scale|| below 1e-5 for f32, 1e-2 for 16-bit out,
   the scale holding |x||w| per product and the epilogue terms. */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkt.h"
#include "gkt_mat.h"

static gk_ctx *D, *R;

static double *down(gk_ctx *c, gk_tensor t, gk_dtype dt, int64_t n) {
    double *v = (double *)malloc((size_t)n * 8 + 8);
    void *b = malloc((size_t)n * 8 + 8);
    if (gk_copy_to_host(c, t, b, (size_t)n * gk_dtype_size(dt)) != GK_OK) printf("download: %s\n", gk_last_error(c));
    gk_convert(GK_F64, v, dt, b, (size_t)n);
    free(b);
    return v;
}

typedef struct {
    gk_dtype dt;
    int64_t M, N, K;              /* out [M, N]; w [N, K] or [2N, K] (glu) */
    int glu, bias, res, scratch, xoff; /* xoff: x starts one element into its storage (unaligned) */
    gk_act act;
    double alpha;
    int cfg;                      /* forced GEMV configuration, -1: the dispatcher's */
} gcase;

static double run(gk_ctx *c, const gcase *k, const double *X, const double *Wt, const double *bias, const double *res, const double *want,
                  const double *mag, gk_status *stout) {
    int64_t wr = k->glu ? 2 * k->N : k->N, xs[2] = { k->M, k->K + k->xoff }, ws[2] = { wr, k->K }, os[2] = { k->M, k->N }, n = k->M * k->N, i;
    double *xbuf = (double *)calloc((size_t)(k->M * (k->K + k->xoff)) + 1, 8), *poison = (double *)malloc((size_t)n * 8 + 8), *got;
    gk_tensor tx, tw, to, vx, tb = { 0 }, tr = { 0 }, ts = { 0 };
    gk_matmul_desc d;
    gk_status st;
    double e;
    for (i = 0; i < k->M * k->K; i++) xbuf[(i / k->K) * (k->K + k->xoff) + k->xoff + i % k->K] = X[i];
    for (i = 0; i < n; i++) poison[i] = NAN;
    tx = up(c, k->dt, 2, xs, xbuf);
    vx = tx;
    if (k->xoff) gk_view_slice(c, tx, 1, k->xoff, k->K + k->xoff, 1, &vx);
    tw = up(c, k->dt, 2, ws, Wt);
    to = up(c, k->dt, 2, os, poison);
    memset(&d, 0, sizeof d);
    d.alpha = k->alpha; d.act = k->act;
    if (k->bias) { tb = up(c, GK_F32, 1, &wr, bias); d.bias = tb; }
    if (k->res) { tr = up(c, k->dt, 2, os, res); d.residual = tr; }
    if (k->scratch) { int64_t ss[2] = { k->M, 2 * k->N }; gk_tensor_empty(c, k->dt, 2, ss, &ts); }
    gk__tune(D)->gemv_force_cfg = k->cfg;
    st = k->glu ? gk_linear_glu(c, to, vx, tw, ts, &d) : gk_linear(c, to, vx, tw, &d);
    gk__tune(D)->gemv_force_cfg = -1;
    *stout = st;
    if (st != GK_OK) { printf("  %s\n", gk_last_error(c)); e = INFINITY; }
    else { got = down(c, to, k->dt, n); e = nrel(got, want, mag, n); free(got); }
    if (vx.id != tx.id) gk_tensor_free(c, vx);
    gk_tensor_free(c, tx); gk_tensor_free(c, tw); gk_tensor_free(c, to);
    if (tb.id) gk_tensor_free(c, tb);
    if (tr.id) gk_tensor_free(c, tr);
    if (ts.id) gk_tensor_free(c, ts);
    free(xbuf); free(poison);
    return e;
}

static void check(const gcase *k) {
    int64_t wr = k->glu ? 2 * k->N : k->N, m, n, j, h;
    double *X = (double *)malloc((size_t)(k->M * k->K) * 8 + 8), *Wt = (double *)malloc((size_t)(wr * k->K) * 8 + 8);
    double *bias = (double *)malloc((size_t)wr * 8 + 8), *res = (double *)malloc((size_t)(k->M * k->N) * 8 + 8);
    double *want = (double *)malloc((size_t)(k->M * k->N) * 8 + 8), *mag = (double *)malloc((size_t)(k->M * k->N) * 8 + 8);
    double tol = k->dt == GK_F32 ? 1e-5 : 1e-2, al = k->alpha == 0 ? 1 : k->alpha, ed, er;
    gk_status sd, sr;
    char desc[200];
    rnd(k->dt, X, k->M * k->K);
    rnd(k->dt, Wt, wr * k->K);
    rnd(GK_F32, bias, wr);
    rnd(k->dt, res, k->M * k->N);
    for (m = 0; m < k->M; m++)
        for (n = 0; n < k->N; n++) {
            double acc[2] = { 0, 0 }, am[2] = { 0, 0 }, g, u = 1, v;
            for (h = 0; h <= k->glu; h++)
                for (j = 0; j < k->K; j++) {
                    acc[h] += X[m * k->K + j] * Wt[(n + h * k->N) * k->K + j];
                    am[h] += fabs(X[m * k->K + j] * Wt[(n + h * k->N) * k->K + j]);
                }
            g = al * acc[0] + (k->bias ? bias[n] : 0);
            if (k->glu) u = al * acc[1] + (k->bias ? bias[k->N + n] : 0);
            v = act_ref(g, k->act) * u + (k->res ? res[m * k->N + n] : 0);
            want[m * k->N + n] = v;
            mag[m * k->N + n] = fabs(u) * (fabs(al) * am[0] + (k->bias ? fabs(bias[n]) : 0)) +
                                (k->glu ? fabs(act_ref(g, k->act)) * (fabs(al) * am[1] + (k->bias ? fabs(bias[k->N + n]) : 0)) : 0) +
                                (k->res ? fabs(res[m * k->N + n]) : 0) + fabs(v);
        }
    snprintf(desc, sizeof desc, "%s M%lld N%lld K%lld %s bias%d res%d act%d alpha%g xoff%d cfg%d", gk_dtype_name(k->dt), (long long)k->M,
             (long long)k->N, (long long)k->K, k->glu ? "glu" : "linear", k->bias, k->res, (int)k->act, k->alpha, k->xoff, k->cfg);
    ed = run(D, k, X, Wt, bias, res, want, mag, &sd);
    GKT_CHECK(sd == GK_OK && ed <= tol, "device: %s: rel err %.3g (bound %.0e)", desc, ed, tol);
    if (gk_ctx_backend(D) == GK_BACKEND_CUDA && k->cfg <= 0) {
        er = run(R, k, X, Wt, bias, res, want, mag, &sr);
        GKT_CHECK(sr == GK_OK && er <= tol, "CPU reference: %s: rel err %.3g", desc, er);
    }
    free(X); free(Wt); free(bias); free(res); free(want); free(mag);
}

int main(void) {
    static const gk_dtype dts[3] = { GK_F32, GK_BF16, GK_F16 };
    static const int64_t Ks[] = { 8, 64, 896, 1000, 2048, 4096, 4104, 9000 };
    static const int64_t Ns[] = { 1, 3, 17, 129, 1000 };
    static const int Ms[] = { 1, 2, 3, 4, 5, 8 };
    gcase k;
    int i, j, t, c, ncfg;
    gkt_seed();
    D = gkt_dut();
    R = gkt_ref();
    ncfg = gk_ctx_backend(D) == GK_BACKEND_CUDA ? GK__GEMV_NALL : 0; /* f32 runs the dispatcher's choice for the tensor-core ones */
    /* the dispatcher's choice over K classes, rows, N and dtypes */
    for (i = 0; i < 8; i++)
        for (j = 0; j < 5; j++) {
            memset(&k, 0, sizeof k);
            k.dt = dts[(i + j) % 3]; k.K = Ks[i]; k.N = Ns[j]; k.M = Ms[(i * 5 + j) % 6]; k.cfg = -1;
            k.bias = (i + j) % 2; k.res = (i + j) % 3 == 1; k.act = (gk_act)((i + 2 * j) % 5); k.alpha = j == 2 ? 0.5 : 0;
            check(&k);
        }
    /* every configuration, forced (the bench times them), at each M class and an unaligned x (falls back) */
    for (c = 0; c < ncfg; c++)
        for (t = 0; t < 3; t++)
            for (i = 0; i < 4; i++) {
                static const int mm[4] = { 1, 2, 4, 8 };
                memset(&k, 0, sizeof k);
                k.dt = dts[t]; k.M = mm[i]; k.N = 100 + c; k.K = i % 2 ? 4104 : 896; k.cfg = c; k.bias = i == 1; k.res = i == 2;
                check(&k);
                k.glu = 1; k.act = GK_ACT_SILU;
                check(&k);
            }
    for (t = 0; t < 3; t++) {
        memset(&k, 0, sizeof k);
        k.dt = dts[t]; k.M = 2; k.N = 33; k.K = 512; k.xoff = 1; k.cfg = -1;
        check(&k);
    }
    /* the dispatcher's rule itself (gk__gemv_cfg with the default knobs, a pure function; 132 SMs as on an H100): Qwen2.5-0.5B's
       gate / up at M = 1 takes the 8-warp tensor-core GEMV (16-bit) or 4 rows over 128 threads (not a GLU),
       its down projection one pass of 256 threads x 4 vectors, the lm_head shape one warp a block */
    GKT_CHECK(gk__gemv_cfg(gk__tune(D), 112, 1, GK_BF16, (4864 + 1) / 2, 132, 1) == 7, "gate / up bf16: cfg %d", gk__gemv_cfg(gk__tune(D), 112, 1, GK_BF16, 2432, 132, 1));
    GKT_CHECK(gk__gemv_cfg(gk__tune(D), 112, 1, GK_F16, (4864 + 1) / 2, 132, 1) == 7, "gate / up f16: cfg %d", gk__gemv_cfg(gk__tune(D), 112, 1, GK_F16, 2432, 132, 1));
    GKT_CHECK(gk__gemv_cfg(gk__tune(D), 112, 1, GK_BF16, (4864 + 3) / 4, 132, 0) == 4, "4864 x 896 bf16: cfg %d", gk__gemv_cfg(gk__tune(D), 112, 1, GK_BF16, 1216, 132, 0));
    GKT_CHECK(gk__gemv_cfg(gk__tune(D), 608, 1, GK_BF16, (896 + 3) / 4, 132, 0) == 3, "down 896 x 4864: cfg %d", gk__gemv_cfg(gk__tune(D), 608, 1, GK_BF16, 224, 132, 0));
    GKT_CHECK(gk__gemv_cfg(gk__tune(D), 112, 1, GK_BF16, (151936 + 3) / 4, 132, 0) == 0, "lm_head 151936 x 896: cfg %d",
              gk__gemv_cfg(gk__tune(D), 112, 1, GK_BF16, 37984, 132, 0));
    /* the dispatcher's choice for a decode step's gate / up of Qwen2.5-0.5B's shape (2 x 4864 x 896: the
       tensor-core GEMV for 16-bit, 4 rows a block over 128 threads for f32), the same rows as a plain
       GEMV, and its down projection (896 x 4864: one pass of 256 threads) */
    for (t = 0; t < 3; t++) {
        memset(&k, 0, sizeof k);
        k.dt = dts[t]; k.M = 1; k.N = 4864; k.K = 896; k.cfg = -1; k.glu = 1; k.act = GK_ACT_SILU; k.bias = t == 1;
        check(&k);
        k.glu = 0; k.act = GK_ACT_NONE; k.res = 1;
        check(&k);
        k.N = 896; k.K = 4864;
        check(&k);
    }
    /* gk_linear_glu: one pass up to 8 rows, scratch above; every gate; bias (2N), residual, alpha */
    for (i = 0; i < 12; i++) {
        static const int64_t gm[6] = { 1, 3, 8, 9, 17, 100 };
        memset(&k, 0, sizeof k);
        k.glu = 1; k.dt = dts[i % 3]; k.M = gm[i % 6]; k.N = i < 6 ? 129 : 64; k.K = i % 4 == 3 ? 1000 : 896; k.cfg = -1;
        k.act = (gk_act)(i % 4 == 0 ? GK_ACT_SILU : i % 4 == 1 ? GK_ACT_GELU : i % 4 == 2 ? GK_ACT_GELU_TANH : GK_ACT_NONE);
        k.bias = i % 2; k.res = i % 3 == 2; k.alpha = i == 5 ? 2.0 : 0;
        k.scratch = k.M > 8 || k.K % 8 != 0 || gk_ctx_backend(D) == GK_BACKEND_CPU ? 1 : 0;
        if (gk_ctx_backend(D) == GK_BACKEND_CPU && k.M <= 8) k.scratch = i % 2; /* the CPU reference needs none */
        check(&k);
    }
    /* bad input */
    {
        int64_t xs[2] = { 16, 64 }, w2[2] = { 64, 64 }, w3[2] = { 63, 64 }, os[2] = { 16, 32 }, o1[2] = { 1, 32 }, x1[2] = { 1, 64 }, bs = 32;
        gk_tensor x, w, wodd, o, x1t, o1t, b, nul;
        gk_matmul_desc d;
        nul.id = 0;
        GKT_OK(D, gk_tensor_empty(D, GK_F32, 2, xs, &x));
        GKT_OK(D, gk_tensor_empty(D, GK_F32, 2, w2, &w));
        GKT_OK(D, gk_tensor_empty(D, GK_F32, 2, w3, &wodd));
        GKT_OK(D, gk_tensor_empty(D, GK_F32, 2, os, &o));
        GKT_OK(D, gk_tensor_empty(D, GK_F32, 2, x1, &x1t));
        GKT_OK(D, gk_tensor_empty(D, GK_F32, 2, o1, &o1t));
        GKT_OK(D, gk_tensor_empty(D, GK_F32, 1, &bs, &b));
        gk_fill(D, x, 0.5); gk_fill(D, w, 0.25); gk_fill(D, x1t, 1.0);
        memset(&d, 0, sizeof d);
        d.act = GK_ACT_SILU;
        GKT_FAILS(D, gk_linear_glu(D, o, x, w, nul, &d), GK_ERR_INVALID_ARGUMENT, "need a scratch tensor of [16, 64]");
        GKT_FAILS(D, gk_linear_glu(D, o1t, x1t, wodd, nul, &d), GK_ERR_SHAPE, "even number of rows");
        d.beta = 1;
        GKT_FAILS(D, gk_linear_glu(D, o1t, x1t, w, nul, &d), GK_ERR_INVALID_ARGUMENT, "beta must be 0");
        d.beta = 0; d.act = GK_ACT_RELU;
        GKT_FAILS(D, gk_linear_glu(D, o1t, x1t, w, nul, &d), GK_ERR_INVALID_ARGUMENT, "not a GLU gate");
        d.act = GK_ACT_SILU; d.bias = b;
        GKT_FAILS(D, gk_linear_glu(D, o1t, x1t, w, nul, &d), GK_ERR_SHAPE, "vector of 64 elements");
        d.bias.id = 0;
        GKT_OK(D, gk_linear_glu(D, o1t, x1t, w, nul, &d)); /* one row: no scratch needed */
        gk_tensor_free(D, x); gk_tensor_free(D, w); gk_tensor_free(D, wodd); gk_tensor_free(D, o);
        gk_tensor_free(D, x1t); gk_tensor_free(D, o1t); gk_tensor_free(D, b);
    }
    gk_ctx_destroy(D);
    gk_ctx_destroy(R);
    return gkt_done("test_gemv");
}
