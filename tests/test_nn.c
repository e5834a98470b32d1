/* test_nn.c - norms, RoPE, layout ops. Every case runs on the device under
   test (CUDA when present) and on the CPU reference with fresh random inputs
   and poisoned outputs; independent expectations (hand-computed values,
   identities) check the CPU reference itself; PyTorch / HF fixtures in
   tests/fixtures/nn (tests/gen_nn_fixtures.py, made on the GPU machine) are
   compared when present. */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkt.h"

static gk_ctx *D, *R;
static const gk_tensor NONE = { 0 };
static const gk_dtype FDT[3] = { GK_F32, GK_F16, GK_BF16 };

typedef struct { gk_tensor d, r; gk_dtype dt; int64_t n; int nd; int64_t shape[GK_MAX_DIMS]; } pair;
static double tol_of(gk_dtype dt) { return dt == GK_F32 ? 2e-5 : dt == GK_F16 ? 4e-3 : dt == GK_BF16 ? 2e-2 : 0; }

static pair mk(gk_dtype dt, int nd, const int64_t *shape, const double *vals) {
    pair p;
    gk_tensor_info info;
    void *bytes;
    memset(&p, 0, sizeof p);
    p.dt = dt; p.nd = nd;
    if (nd) memcpy(p.shape, shape, sizeof(int64_t) * (size_t)nd);
    GKT_OK(D, gk_tensor_empty(D, dt, nd, shape, &p.d));
    GKT_OK(R, gk_tensor_empty(R, dt, nd, shape, &p.r));
    gk_tensor_info_get(R, p.r, &info);
    p.n = info.numel;
    bytes = malloc(info.nbytes + 8);
    if (vals) gk_convert(dt, bytes, GK_F64, vals, (size_t)p.n);
    else memset(bytes, 0xA5, info.nbytes); /* poison */
    if (info.nbytes) {
        GKT_OK(D, gk_copy_from_host(D, p.d, bytes, info.nbytes));
        GKT_OK(R, gk_copy_from_host(R, p.r, bytes, info.nbytes));
    }
    free(bytes);
    return p;
}
static double *rnd(int64_t n, double lo, double hi) {
    double *v = (double *)malloc(sizeof(double) * (size_t)(n + 1));
    int64_t i;
    for (i = 0; i < n; i++) v[i] = gkt_uniform(lo, hi);
    return v;
}
static pair mkr(gk_dtype dt, int nd, const int64_t *shape, double lo, double hi) {
    int64_t n = 1;
    int i;
    double *v;
    pair p;
    for (i = 0; i < nd; i++) n *= shape[i];
    v = rnd(n, lo, hi);
    if (!gk_dtype_is_float(dt)) for (i = 0; i < n; i++) v[i] = floor(v[i]);
    p = mk(dt, nd, shape, v);
    free(v);
    return p;
}
static pair mkpoison(gk_dtype dt, int nd, const int64_t *shape) { return mk(dt, nd, shape, NULL); }
static void fr(pair p) { gk_tensor_free(D, p.d); gk_tensor_free(R, p.r); }
/* both sides as doubles (contiguous copies); caller frees */
static void get(pair p, double **dv, double **rv) {
    gk_tensor cd, cr;
    gk_tensor_info info;
    void *b;
    GKT_OK(D, gk_contiguous(D, p.d, &cd));
    GKT_OK(R, gk_contiguous(R, p.r, &cr));
    gk_tensor_info_get(R, cr, &info);
    b = malloc(info.nbytes + 8);
    *dv = (double *)malloc(sizeof(double) * (size_t)(info.numel + 1));
    *rv = (double *)malloc(sizeof(double) * (size_t)(info.numel + 1));
    if (info.nbytes) GKT_OK(D, gk_copy_to_host(D, cd, b, info.nbytes));
    gk_convert(GK_F64, *dv, info.dtype, b, (size_t)info.numel);
    if (info.nbytes) GKT_OK(R, gk_copy_to_host(R, cr, b, info.nbytes));
    gk_convert(GK_F64, *rv, info.dtype, b, (size_t)info.numel);
    free(b);
    gk_tensor_free(D, cd);
    gk_tensor_free(R, cr);
}
/* device vs reference within tol; returns the reference values (caller frees) */
static double *cmp(const char *what, pair p, double tol) {
    double *dv, *rv, e;
    get(p, &dv, &rv);
    e = gkt_relerr(dv, rv, (size_t)p.n);
    GKT_CHECK(e <= tol, "%s (%s, n=%lld): device vs reference rel err %g > %g", what, gk_dtype_name(p.dt), (long long)p.n, e, tol);
    free(dv);
    return rv;
}
static double maxdiff(const double *a, const double *b, int64_t n) {
    double m = 0;
    int64_t i;
    for (i = 0; i < n; i++) {
        double d = fabs(a[i] - b[i]);
        if (d != d) return INFINITY;
        if (d > m) m = d;
    }
    return m;
}

/* ------------------------------------------------------------------ norms */
/* gk_layer_norm(out, x, w, b, eps) on the device under test against the
   reference's output already in o.r: on CUDA once per kernel variant
   (gpukit.h tune.ln_variant: -1 the rule, 0 the block-per-row kernel, 1 the
   warp-per-row one, 3 the persistent block-per-row one; shapes a kernel does
   not take run the others whatever is asked), the output refilled before
   each run: with 777, or in place (x is o.d) with x0's values. ln_ran counts
   the runs of variants 1 and 3 by vectors a lane or thread (4, 8, 16 / 1, 2,
   4), ln_auto_warp the rule's warp-per-row runs, ln_auto_p its persistent
   ones. */
static int ln_ran[4][3], ln_auto_warp, ln_auto_p;
static void ln_dev(const char *what, pair o, gk_tensor x, gk_tensor w, gk_tensor b, double eps, double tol, gk_tensor x0) {
    int v, nv = gk_ctx_backend(D) == GK_BACKEND_CUDA ? 3 : -1;
    int64_t nvec = o.nd ? o.shape[o.nd - 1] * (int64_t)gk_dtype_size(o.dt) / 16 : 0;
    int kv = nvec <= 128 ? 0 : nvec <= 256 ? 1 : 2;
    char wv[192];
    for (v = -1; v <= nv; v++) {
        int ran;
        if (v == 2) continue; /* (no variant 2) */
        if (x0.id) GKT_OK(D, gk_copy(D, o.d, x0));
        else GKT_OK(D, gk_fill(D, o.d, 777));
        gk__tune(D)->ln_variant = v;
        gk__tune(D)->ln_last = -1;
        GKT_OK(D, gk_layer_norm(D, o.d, x, w, b, eps));
        gk__tune(D)->ln_variant = -1;
        ran = gk__tune(D)->ln_last;
        if (ran > 0) {
            ln_ran[ran][kv]++;
            if (v < 0 && ran == 1) ln_auto_warp++;
            if (v < 0 && ran == 3) ln_auto_p++;
            GKT_CHECK(v < 0 || ran == v, "%s: variant %d asked, %d ran", what, v, ran);
        }
        snprintf(wv, sizeof wv, "%s variant %d (ran %d)", what, v, ran);
        free(cmp(wv, o, tol));
    }
}
static void test_norms(void) {
    static const int64_t DS[] = { 1, 31, 33, 64, 128, 1000, 4096, 4097, 8192 + 8 }; /* warp, block, generic paths */
    int di, ti, wi;
    for (ti = 0; ti < 3; ti++)
        for (di = 0; di < (int)(sizeof DS / sizeof DS[0]); di++)
            for (wi = 0; wi < 3; wi++) {
                gk_dtype dt = FDT[ti], wt = wi == 2 ? GK_F32 : dt;
                int64_t shape[2] = { 3, DS[di] }, ws[1] = { DS[di] };
                pair x = mkr(dt, 2, shape, -3, 3), res = mkr(dt, 2, shape, -2, 2);
                pair w = mkr(wt, 1, ws, 0.5, 1.5), b = mkr(wt, 1, ws, -1, 1);
                pair o = mkpoison(dt, 2, shape), h = mkpoison(dt, 2, shape);
                double tol = tol_of(dt), *r;
                char what[96];
                if (dt == GK_F32 && wi == 2) { fr(x); fr(res); fr(w); fr(b); fr(o); fr(h); continue; }
                snprintf(what, sizeof what, "layer_norm D=%lld w%d", (long long)DS[di], wi);
                GKT_OK(R, gk_layer_norm(R, o.r, x.r, wi ? w.r : NONE, wi ? b.r : NONE, 1e-5));
                ln_dev(what, o, x.d, wi ? w.d : NONE, wi ? b.d : NONE, 1e-5, tol * 4, NONE);
                r = cmp(what, o, tol * 4);
                if (wi == 0 && dt == GK_F32 && DS[di] >= 31) { /* mean 0, variance 1 */
                    double m = 0, v = 0;
                    int64_t i;
                    for (i = 0; i < DS[di]; i++) m += r[i];
                    m /= (double)DS[di];
                    for (i = 0; i < DS[di]; i++) v += (r[i] - m) * (r[i] - m);
                    v /= (double)DS[di];
                    GKT_CHECK(fabs(m) < 1e-5 && fabs(v - 1) < 1e-3, "layer_norm D=%lld: mean %g var %g", (long long)DS[di], m, v);
                }
                free(r);
                snprintf(what, sizeof what, "rms_norm D=%lld w%d", (long long)DS[di], wi);
                GKT_OK(D, gk_rms_norm(D, o.d, x.d, wi ? w.d : NONE, 1e-6));
                GKT_OK(R, gk_rms_norm(R, o.r, x.r, wi ? w.r : NONE, 1e-6));
                free(cmp(what, o, tol * 2));
                snprintf(what, sizeof what, "add_rms_norm D=%lld w%d", (long long)DS[di], wi);
                GKT_OK(D, gk_add_rms_norm(D, o.d, h.d, x.d, res.d, wi ? w.d : NONE, 1e-6));
                GKT_OK(R, gk_add_rms_norm(R, o.r, h.r, x.r, res.r, wi ? w.r : NONE, 1e-6));
                free(cmp(what, o, tol * 2));
                free(cmp("add_rms_norm h", h, 0));
                fr(x); fr(res); fr(w); fr(b); fr(o); fr(h);
            }
    /* many rows of short and long rows (the lane-group and block-per-row
       paths with their row tails), aligned and one-element-in views of x and
       of the weights (vector and element-wise weight loads, generic path) */
    for (ti = 0; ti < 3; ti++) {
        /* 2048: f32 v4, f16 / bf16 v2; 520, 1032: ragged rows of the warp-per-row layer norm (16-bit: 65 and 129 vectors) */
        static const int64_t DS2[] = { 8, 16, 32, 64, 128, 256, 512, 520, 1032, 2048, 4096 };
        static const int64_t RS[] = { 37, 1000 };
        int ri, mis;
        for (di = 0; di < (int)(sizeof DS2 / sizeof DS2[0]); di++)
            for (ri = 0; ri < 2; ri++)
                for (mis = 0; mis < 5; mis++) { /* 3, 4: x aligned, weights one element in (dt / f32 weights) */
                    gk_dtype dt = FDT[ti], wt = (mis == 1 || mis == 4) && dt != GK_F32 ? GK_F32 : dt;
                    int64_t Dn = DS2[di], rows = RS[ri];
                    int64_t shape[2] = { rows, Dn }, ws1[1] = { Dn + 1 }, xs1[1] = { rows * Dn + 1 };
                    pair xb, wb, bb, o, h, res;
                    gk_tensor xd, xr, wd, wr, bd, br;
                    double tol = tol_of(dt);
                    char what[96];
                    if (Dn * rows > 200000) continue;
                    xb = mkr(dt, 1, xs1, -3, 3); wb = mkr(wt, 1, ws1, 0.5, 1.5); bb = mkr(wt, 1, ws1, -1, 1);
                    res = mkr(dt, 2, shape, -2, 2);
                    o = mkpoison(dt, 2, shape); h = mkpoison(dt, 2, shape);
                    { /* mis 2: x and weights start one element in */
                        int64_t off = mis == 2 ? 1 : 0, woff = mis >= 2 ? 1 : 0;
                        gk_tensor t1, t2;
                        GKT_OK(D, gk_view_slice(D, xb.d, 0, off, off + rows * Dn, 1, &t1));
                        GKT_OK(R, gk_view_slice(R, xb.r, 0, off, off + rows * Dn, 1, &t2));
                        GKT_OK(D, gk_view_reshape(D, t1, 2, shape, &xd));
                        GKT_OK(R, gk_view_reshape(R, t2, 2, shape, &xr));
                        gk_tensor_free(D, t1); gk_tensor_free(R, t2);
                        GKT_OK(D, gk_view_slice(D, wb.d, 0, woff, woff + Dn, 1, &wd));
                        GKT_OK(R, gk_view_slice(R, wb.r, 0, woff, woff + Dn, 1, &wr));
                        GKT_OK(D, gk_view_slice(D, bb.d, 0, woff, woff + Dn, 1, &bd));
                        GKT_OK(R, gk_view_slice(R, bb.r, 0, woff, woff + Dn, 1, &br));
                    }
                    snprintf(what, sizeof what, "layer_norm [%lld,%lld] %s/%s mis%d", (long long)rows, (long long)Dn, gk_dtype_name(dt), gk_dtype_name(wt), mis);
                    GKT_OK(R, gk_layer_norm(R, o.r, xr, wr, br, 1e-5));
                    ln_dev(what, o, xd, wd, bd, 1e-5, tol * 4, NONE);
                    snprintf(what, sizeof what, "rms_norm [%lld,%lld] %s/%s mis%d", (long long)rows, (long long)Dn, gk_dtype_name(dt), gk_dtype_name(wt), mis);
                    GKT_OK(D, gk_rms_norm(D, o.d, xd, wd, 1e-6));
                    GKT_OK(R, gk_rms_norm(R, o.r, xr, wr, 1e-6));
                    free(cmp(what, o, tol * 2));
                    snprintf(what, sizeof what, "rms_norm no weight [%lld,%lld] %s mis%d", (long long)rows, (long long)Dn, gk_dtype_name(dt), mis);
                    GKT_OK(D, gk_rms_norm(D, o.d, xd, NONE, 1e-6));
                    GKT_OK(R, gk_rms_norm(R, o.r, xr, NONE, 1e-6));
                    free(cmp(what, o, tol * 2));
                    snprintf(what, sizeof what, "add_rms_norm [%lld,%lld] %s/%s mis%d", (long long)rows, (long long)Dn, gk_dtype_name(dt), gk_dtype_name(wt), mis);
                    GKT_OK(D, gk_add_rms_norm(D, o.d, h.d, xd, res.d, wd, 1e-6));
                    GKT_OK(R, gk_add_rms_norm(R, o.r, h.r, xr, res.r, wr, 1e-6));
                    free(cmp(what, o, tol * 2));
                    free(cmp("add_rms_norm h", h, 0));
                    gk_tensor_free(D, xd); gk_tensor_free(R, xr); gk_tensor_free(D, wd); gk_tensor_free(R, wr);
                    gk_tensor_free(D, bd); gk_tensor_free(R, br);
                    fr(xb); fr(wb); fr(bb); fr(res); fr(o); fr(h);
                }
    }
    for (ti = 0; ti < 3; ti++) { /* NaN / inf rows and weights: same NaN positions and canonical NaN bits as the reference */
        /* lane groups; block per row (the layer norm: warp per row, but for f32 4096); 1000: 16-byte rows of 125 / 250 vectors */
        static const int64_t DN[] = { 128, 4096, 1000 };
        int dn, kind, v;
        for (dn = 0; dn < 3; dn++)
            for (kind = 0; kind < 3; kind++)
                for (v = -1; v <= (kind == 0 && gk_ctx_backend(D) == GK_BACKEND_CUDA ? 1 : -1); v++) { /* layer norm: variants 0 and 1 */
                    gk_dtype dt = FDT[ti];
                    int64_t Dn = DN[dn], shape[2] = { 5, Dn }, ws1[1] = { Dn }, i;
                    size_t es = gk_dtype_size(dt), nb = (size_t)(5 * Dn) * es;
                    double *xv = rnd(5 * Dn, -2, 2), *wv = rnd(Dn, 0.5, 1.5);
                    unsigned char *bd = (unsigned char *)malloc(nb), *br = (unsigned char *)malloc(nb);
                    pair x, w, o, h, res;
                    char what[96];
                    int bad = 0;
                    xv[0 * Dn + 5] = NAN;            /* row 0: a NaN: all NaN */
                    xv[1 * Dn + 7] = INFINITY;       /* row 1: +inf: rstd 0, inf * 0 = NaN there */
                    for (i = 0; i < Dn; i++) xv[2 * Dn + i] = 0; /* row 2: zeros (eps 0 below: 0 * inf) */
                    wv[9 % Dn] = NAN;                /* a NaN weight: that column NaN */
                    x = mk(dt, 2, shape, xv); w = mk(dt, 1, ws1, wv); res = mkr(dt, 2, shape, -1, 1);
                    o = mkpoison(dt, 2, shape); h = mkpoison(dt, 2, shape);
                    snprintf(what, sizeof what, "%s NaN/inf rows D=%lld variant %d", kind == 0 ? "layer_norm" : kind == 1 ? "rms_norm" : "add_rms_norm",
                             (long long)Dn, v);
                    gk__tune(D)->ln_variant = v;
                    if (kind == 0) { GKT_OK(D, gk_layer_norm(D, o.d, x.d, w.d, NONE, 0)); GKT_OK(R, gk_layer_norm(R, o.r, x.r, w.r, NONE, 0)); }
                    else if (kind == 1) { GKT_OK(D, gk_rms_norm(D, o.d, x.d, w.d, 0)); GKT_OK(R, gk_rms_norm(R, o.r, x.r, w.r, 0)); }
                    else { GKT_OK(D, gk_add_rms_norm(D, o.d, h.d, x.d, res.d, w.d, 0)); GKT_OK(R, gk_add_rms_norm(R, o.r, h.r, x.r, res.r, w.r, 0)); }
                    gk__tune(D)->ln_variant = -1;
                    free(cmp(what, o, tol_of(dt) * 4));
                    GKT_OK(D, gk_copy_to_host(D, o.d, bd, nb));
                    GKT_OK(R, gk_copy_to_host(R, o.r, br, nb));
                    for (i = 0; dt != GK_F32 && i < 5 * Dn; i++) { /* f16 / bf16 NaN entries bit for bit (the canonical NaN) */
                        double a, b;
                        gk_convert(GK_F64, &a, dt, bd + (size_t)i * es, 1);
                        gk_convert(GK_F64, &b, dt, br + (size_t)i * es, 1);
                        if ((a != a || b != b) && memcmp(bd + (size_t)i * es, br + (size_t)i * es, es) != 0) bad++;
                    }
                    GKT_CHECK(bad == 0, "%s (%s): %d NaN entries with other bits than the reference's", what, gk_dtype_name(dt), bad);
                    free(xv); free(wv); free(bd); free(br);
                    fr(x); fr(w); fr(o); fr(h); fr(res);
                }
    }
    for (ti = 0; ti < 3; ti++) { /* more rows than fit on the device at once, a few waves (3000 rows:
                                    4 to 40 an SM on GPUs of 75 to 750 SMs): the persistent RMS kernel
                                    (a block prefetches its next row), V = 1, 2, 4, a ragged last vector
                                    column (D 1000 / 2000), weights one element in, in place; the layer
                                    norm of the same rows, of mean far from 0 (block per row; warp per row,
                                    V = 4, 8, 16, every variant, the persistent one with rows left over
                                    for some warps at V = 16) */
        static const int64_t DP[2][3] = { { 256, 1000, 2048 }, { 512, 2000, 4096 } };
        int pi;
        for (pi = 0; pi < 3; pi++) {
            gk_dtype dt = FDT[ti], wt = pi == 1 && dt != GK_F32 ? GK_F32 : dt;
            int64_t Dn = DP[dt == GK_F32 ? 0 : 1][pi], rows = 3000, shape[2] = { rows, Dn }, ws1[1] = { Dn + 1 };
            pair x = mkr(dt, 2, shape, pi == 2 ? 999 : -3, pi == 2 ? 1001 : 3), wb = mkr(wt, 1, ws1, 0.5, 1.5), bb = mkr(wt, 1, ws1, -1, 1);
            pair o = mkpoison(dt, 2, shape);
            gk_tensor wd, wr, bd, br;
            double tol = tol_of(dt);
            int64_t woff = pi == 0 ? 1 : 0;
            char what[96];
            GKT_OK(D, gk_view_slice(D, wb.d, 0, woff, woff + Dn, 1, &wd));
            GKT_OK(R, gk_view_slice(R, wb.r, 0, woff, woff + Dn, 1, &wr));
            GKT_OK(D, gk_view_slice(D, bb.d, 0, woff, woff + Dn, 1, &bd));
            GKT_OK(R, gk_view_slice(R, bb.r, 0, woff, woff + Dn, 1, &br));
            snprintf(what, sizeof what, "layer_norm [%lld,%lld] %s/%s", (long long)rows, (long long)Dn, gk_dtype_name(dt), gk_dtype_name(wt));
            GKT_OK(R, gk_layer_norm(R, o.r, x.r, wr, br, 1e-5));
            ln_dev(what, o, x.d, wd, bd, 1e-5, tol * 4, NONE);
            snprintf(what, sizeof what, "rms_norm [%lld,%lld] %s/%s (persistent)", (long long)rows, (long long)Dn, gk_dtype_name(dt), gk_dtype_name(wt));
            GKT_OK(D, gk_rms_norm(D, o.d, x.d, wd, 1e-6));
            GKT_OK(R, gk_rms_norm(R, o.r, x.r, wr, 1e-6));
            free(cmp(what, o, tol * 2));
            snprintf(what, sizeof what, "rms_norm no weight [%lld,%lld] %s (persistent)", (long long)rows, (long long)Dn, gk_dtype_name(dt));
            GKT_OK(D, gk_rms_norm(D, o.d, x.d, NONE, 1e-6));
            GKT_OK(R, gk_rms_norm(R, o.r, x.r, NONE, 1e-6));
            free(cmp(what, o, tol * 2));
            /* in place (out = x): the next row's loads must not see this row's stores */
            snprintf(what, sizeof what, "rms_norm in place [%lld,%lld] %s (persistent)", (long long)rows, (long long)Dn, gk_dtype_name(dt));
            GKT_OK(D, gk_rms_norm(D, x.d, x.d, wd, 1e-6));
            GKT_OK(R, gk_rms_norm(R, x.r, x.r, wr, 1e-6));
            free(cmp(what, x, tol * 2));
            snprintf(what, sizeof what, "layer_norm in place [%lld,%lld] %s", (long long)rows, (long long)Dn, gk_dtype_name(dt));
            { /* each variant starts from a copy of x */
                gk_tensor x0;
                GKT_OK(D, gk_tensor_empty(D, dt, 2, shape, &x0));
                GKT_OK(D, gk_copy(D, x0, x.d));
                GKT_OK(R, gk_layer_norm(R, x.r, x.r, wr, br, 1e-5));
                ln_dev(what, x, x.d, wd, bd, 1e-5, tol * 4, x0);
                gk_tensor_free(D, x0);
            }
            gk_tensor_free(D, wd); gk_tensor_free(R, wr); gk_tensor_free(D, bd); gk_tensor_free(R, br);
            fr(x); fr(wb); fr(bb); fr(o);
        }
    }
    for (ti = 0; ti < 3; ti++) { /* short rows, more steps than resident blocks: the lane-group
                                    kernel's blocks walk several steps of rows (per-head q/k norm) */
        gk_dtype dt = FDT[ti];
        int64_t Dn = dt == GK_F32 ? 64 : 128, rows = 40000 + 7, shape[2] = { rows, Dn }, ws1[1] = { Dn };
        pair x = mkr(dt, 2, shape, -3, 3), res = mkr(dt, 2, shape, -2, 2), w = mkr(dt, 1, ws1, 0.5, 1.5), b = mkr(dt, 1, ws1, -1, 1);
        pair o = mkpoison(dt, 2, shape), h = mkpoison(dt, 2, shape);
        double tol = tol_of(dt);
        char what[96];
        snprintf(what, sizeof what, "rms_norm heads [%lld,%lld] %s", (long long)rows, (long long)Dn, gk_dtype_name(dt));
        GKT_OK(D, gk_rms_norm(D, o.d, x.d, w.d, 1e-6));
        GKT_OK(R, gk_rms_norm(R, o.r, x.r, w.r, 1e-6));
        free(cmp(what, o, tol * 2));
        snprintf(what, sizeof what, "layer_norm heads [%lld,%lld] %s", (long long)rows, (long long)Dn, gk_dtype_name(dt));
        GKT_OK(D, gk_layer_norm(D, o.d, x.d, w.d, b.d, 1e-5));
        GKT_OK(R, gk_layer_norm(R, o.r, x.r, w.r, b.r, 1e-5));
        free(cmp(what, o, tol * 4));
        snprintf(what, sizeof what, "add_rms_norm heads [%lld,%lld] %s", (long long)rows, (long long)Dn, gk_dtype_name(dt));
        GKT_OK(D, gk_add_rms_norm(D, o.d, h.d, x.d, res.d, w.d, 1e-6));
        GKT_OK(R, gk_add_rms_norm(R, o.r, h.r, x.r, res.r, w.r, 1e-6));
        free(cmp(what, o, tol * 2));
        free(cmp("add_rms_norm heads h", h, 0));
        fr(x); fr(res); fr(w); fr(b); fr(o); fr(h);
    }
    { /* layer norm of rows whose mean is far from 0 (1000 +- 1, and -5000 +- 0.5):
         the one-reduction mean / variance about a shift must not cancel
         (D 4096: block per row; 2048, 1000: warp per row, every variant) */
        static const int64_t DF[3] = { 4096, 2048, 1000 };
        int fi;
        for (fi = 0; fi < 3; fi++) {
            int64_t shp[2] = { 6, DF[fi] };
            pair xa = mkr(GK_F32, 2, shp, 999, 1001), xb = mkr(GK_F32, 2, shp, -5000.5, -4999.5);
            pair o = mkpoison(GK_F32, 2, shp);
            char what[96];
            snprintf(what, sizeof what, "layer_norm rows of mean 1000 D=%lld", (long long)DF[fi]);
            GKT_OK(R, gk_layer_norm(R, o.r, xa.r, NONE, NONE, 1e-5));
            ln_dev(what, o, xa.d, NONE, NONE, 1e-5, tol_of(GK_F32) * 4, NONE);
            snprintf(what, sizeof what, "layer_norm rows of mean -5000 D=%lld", (long long)DF[fi]);
            GKT_OK(R, gk_layer_norm(R, o.r, xb.r, NONE, NONE, 1e-5));
            ln_dev(what, o, xb.d, NONE, NONE, 1e-5, tol_of(GK_F32) * 4, NONE);
            fr(xa); fr(xb); fr(o);
        }
    }
    for (ti = 0; ti < 3; ti++) { /* the warp-per-row layer norm's persistent variant with every warp
                                    walking rows: 64 * SMs + 5 rows (at most 64 warps an SM are
                                    resident; the kernels take 16 to 32), no multiple of the 4 warps
                                    of a block; V = 4, 8, 16 with ragged last vectors (65, 129, 257
                                    vectors); weights of the row's dtype / f32 / none; then in place */
        static const int64_t DW[2][3] = { { 260, 516, 1028 }, { 520, 1032, 2056 } };
        gk_device_info info;
        int pi;
        memset(&info, 0, sizeof info);
        gk_device_info_get(D, &info);
        for (pi = 0; pi < 3; pi++) {
            gk_dtype dt = FDT[ti], wt = pi == 1 && dt != GK_F32 ? GK_F32 : dt;
            int64_t Dn = DW[dt == GK_F32 ? 0 : 1][pi], rows = 64 * (int64_t)(info.sm_count > 0 ? info.sm_count : 1) + 5;
            int64_t shape[2] = { rows, Dn }, ws1[1] = { Dn };
            pair x = mkr(dt, 2, shape, -3, 3), w = mkr(wt, 1, ws1, 0.5, 1.5), b = mkr(wt, 1, ws1, -1, 1), o = mkpoison(dt, 2, shape);
            gk_tensor wd = pi == 2 ? NONE : w.d, bd = pi == 2 ? NONE : b.d, wr = pi == 2 ? NONE : w.r, br = pi == 2 ? NONE : b.r, x0;
            double tol = tol_of(dt);
            char what[96];
            snprintf(what, sizeof what, "layer_norm walking rows [%lld,%lld] %s/%s", (long long)rows, (long long)Dn, gk_dtype_name(dt),
                     pi == 2 ? "none" : gk_dtype_name(wt));
            GKT_OK(R, gk_layer_norm(R, o.r, x.r, wr, br, 1e-5));
            ln_dev(what, o, x.d, wd, bd, 1e-5, tol * 4, NONE);
            snprintf(what, sizeof what, "layer_norm walking rows in place [%lld,%lld] %s", (long long)rows, (long long)Dn, gk_dtype_name(dt));
            GKT_OK(D, gk_tensor_empty(D, dt, 2, shape, &x0));
            GKT_OK(D, gk_copy(D, x0, x.d));
            GKT_OK(R, gk_layer_norm(R, x.r, x.r, wr, br, 1e-5));
            ln_dev(what, x, x.d, wd, bd, 1e-5, tol * 4, x0);
            gk_tensor_free(D, x0);
            fr(x); fr(w); fr(b); fr(o);
        }
    }
    for (ti = 0; ti < 3; ti++) { /* 12 rows an SM: the persistent block-per-row layer norm (variant 3, the rule's choice above
                                    128 vectors a row) at 1, 2 and 4 vectors a thread, bias and weights of x's dtype or f32 */
        static const int64_t DS3[2][3] = { { 260, 520, 2048 }, { 520, 1032, 4096 } };
        gk_dtype dt = FDT[ti];
        int64_t rows = 12 * (int64_t)D->info.sm_count;
        for (di = 0; di < 3; di++)
            for (wi = 0; wi < 2; wi++) {
                gk_dtype wt = wi && dt != GK_F32 ? GK_F32 : dt;
                int64_t Dn = DS3[dt != GK_F32][di], shape[2] = { rows, Dn }, ws1[1] = { Dn };
                pair x = mkr(dt, 2, shape, -3, 3), w = mkr(wt, 1, ws1, 0.5, 1.5), b = mkr(wt, 1, ws1, -1, 1), o = mkpoison(dt, 2, shape);
                char what[96];
                snprintf(what, sizeof what, "layer_norm %lld x %lld (%s weights)", (long long)rows, (long long)Dn, gk_dtype_name(wt));
                GKT_OK(R, gk_layer_norm(R, o.r, x.r, w.r, b.r, 1e-5));
                ln_dev(what, o, x.d, w.d, b.d, 1e-5, tol_of(dt) * 4, NONE);
                fr(x); fr(w); fr(b); fr(o);
            }
    }
    if (gk_ctx_backend(D) == GK_BACKEND_CUDA) { /* variants 1 and 3 ran at every V */
        int v, k;
        for (v = 1; v <= 3; v += 2)
            for (k = 0; k < 3; k++) GKT_CHECK(ln_ran[v][k] > 0, "layer norm: variant %d never ran at V = %d", v, v < 3 ? 4 << k : 1 << k);
        GKT_CHECK(ln_auto_warp > 0, "layer norm: the rule never took the warp-per-row kernel");
        GKT_CHECK(ln_auto_p > 0, "layer norm: the rule never took the persistent block-per-row kernel");
    }
    { /* hand-computed: rms of [3, 4] is sqrt(12.5); layer norm of [1, 3] is [-1, 1] */
        int64_t s2[1] = { 2 };
        double xv[2] = { 3, 4 }, lv[2] = { 1, 3 }, *dv, *rv;
        pair x = mk(GK_F32, 1, s2, xv), o = mkpoison(GK_F32, 1, s2), y = mk(GK_F32, 1, s2, lv);
        GKT_OK(D, gk_rms_norm(D, o.d, x.d, NONE, 0));
        GKT_OK(R, gk_rms_norm(R, o.r, x.r, NONE, 0));
        get(o, &dv, &rv);
        GKT_CHECK(fabs(rv[0] - 3 / sqrt(12.5)) < 1e-6 && fabs(rv[1] - 4 / sqrt(12.5)) < 1e-6, "rms [3,4] -> %g %g", rv[0], rv[1]);
        free(dv); free(rv);
        GKT_OK(R, gk_layer_norm(R, o.r, y.r, NONE, NONE, 0));
        GKT_OK(D, gk_layer_norm(D, o.d, y.d, NONE, NONE, 0));
        get(o, &dv, &rv);
        GKT_CHECK(fabs(rv[0] + 1) < 1e-6 && fabs(rv[1] - 1) < 1e-6 && fabs(dv[0] + 1) < 1e-5, "layer [1,3] -> %g %g (dut %g)", rv[0], rv[1], dv[0]);
        free(dv); free(rv);
        /* in place */
        GKT_OK(D, gk_layer_norm(D, y.d, y.d, NONE, NONE, 0));
        GKT_OK(R, gk_layer_norm(R, y.r, y.r, NONE, NONE, 0));
        get(y, &dv, &rv);
        GKT_CHECK(fabs(rv[0] + 1) < 1e-6 && fabs(dv[1] - 1) < 1e-5, "layer norm in place -> %g %g", rv[0], dv[1]);
        free(dv); free(rv);
        fr(x); fr(o); fr(y);
    }
    for (ti = 0; ti < 3; ti++) { /* group / instance / AdaIN */
        gk_dtype dt = FDT[ti];
        int64_t s[3] = { 2, 6, 37 }, cs[1] = { 6 }, bc[2] = { 2, 6 }, big[3] = { 1, 4, 5000 };
        pair x = mkr(dt, 3, s, -2, 3), w = mkr(dt, 1, cs, 0.5, 1.5), b = mkr(dt, 1, cs, -1, 1), o = mkpoison(dt, 3, s), o2 = mkpoison(dt, 3, s);
        pair sc = mkr(GK_F32, 2, bc, 0.5, 2), sh = mkr(GK_F32, 2, bc, -1, 1), one = mkr(dt, 2, bc, 1, 1), zero = mkr(dt, 2, bc, 0, 0);
        pair xb = mkr(dt, 3, big, -1, 1), ob = mkpoison(dt, 3, big);
        double tol = tol_of(dt) * 4, *a, *c;
        int g;
        for (g = 1; g <= 6; g++) {
            if (6 % g) continue;
            GKT_OK(D, gk_group_norm(D, o.d, x.d, g, w.d, b.d, 1e-5));
            GKT_OK(R, gk_group_norm(R, o.r, x.r, g, w.r, b.r, 1e-5));
            free(cmp("group_norm", o, tol));
        }
        GKT_OK(D, gk_instance_norm(D, o.d, x.d, NONE, NONE, 1e-5));
        GKT_OK(R, gk_instance_norm(R, o.r, x.r, NONE, NONE, 1e-5));
        a = cmp("instance_norm", o, tol);
        GKT_OK(R, gk_group_norm(R, o2.r, x.r, 6, NONE, NONE, 1e-5));
        GKT_OK(D, gk_group_norm(D, o2.d, x.d, 6, NONE, NONE, 1e-5));
        c = cmp("group_norm C groups", o2, tol);
        GKT_CHECK(maxdiff(a, c, o.n) == 0, "instance norm == group norm with C groups (%g)", maxdiff(a, c, o.n));
        free(c);
        GKT_OK(D, gk_adain(D, o2.d, x.d, one.d, zero.d, 1e-5));
        GKT_OK(R, gk_adain(R, o2.r, x.r, one.r, zero.r, 1e-5));
        c = cmp("adain identity", o2, tol);
        GKT_CHECK(maxdiff(a, c, o.n) == 0, "AdaIN(scale 1, shift 0) == instance norm (%g)", maxdiff(a, c, o.n));
        free(a); free(c);
        GKT_OK(D, gk_instance_norm(D, o.d, x.d, w.d, b.d, 1e-5));
        GKT_OK(R, gk_instance_norm(R, o.r, x.r, w.r, b.r, 1e-5));
        free(cmp("instance_norm affine", o, tol));
        if (dt != GK_F32) {
            GKT_OK(D, gk_adain(D, o.d, x.d, sc.d, sh.d, 1e-5));
            GKT_OK(R, gk_adain(R, o.r, x.r, sc.r, sh.r, 1e-5));
            free(cmp("adain f32 scale", o, tol));
        }
        GKT_OK(D, gk_instance_norm(D, ob.d, xb.d, NONE, NONE, 1e-5));
        GKT_OK(R, gk_instance_norm(R, ob.r, xb.r, NONE, NONE, 1e-5));
        free(cmp("instance_norm T=5000", ob, tol));
        fr(x); fr(w); fr(b); fr(o); fr(o2); fr(sc); fr(sh); fr(one); fr(zero); fr(xb); fr(ob);
        { /* few long rows (CUDA: split into chunks, partial statistics merged): instance norm / AdaIN over [1, C, T]
             with T up to 70001 (values offset from 0, so a naive one-pass variance would lose digits), group norm
             with one group, layer and RMS norms of odd row lengths (not 16-byte rows: the block-per-row path) */
            int64_t sl[3] = { 1, 3, 70001 }, cl[2] = { 1, 3 }, sg[3] = { 2, 4, 9001 }, cg[1] = { 4 }, sr[2] = { 2, 20001 }, cr[1] = { 20001 };
            pair xl = mkr(dt, 3, sl, 4, 6), ol = mkpoison(dt, 3, sl), scl = mkr(dt, 2, cl, 0.5, 2), shl = mkr(dt, 2, cl, -1, 1);
            pair xg = mkr(dt, 3, sg, -3, 1), og = mkpoison(dt, 3, sg), wg = mkr(dt, 1, cg, 0.5, 1.5), bg = mkr(dt, 1, cg, -1, 1);
            pair xr = mkr(dt, 2, sr, 1, 2), orr = mkpoison(dt, 2, sr), wr = mkr(dt, 1, cr, 0.5, 1.5);
            GKT_OK(D, gk_instance_norm(D, ol.d, xl.d, NONE, NONE, 1e-5));
            GKT_OK(R, gk_instance_norm(R, ol.r, xl.r, NONE, NONE, 1e-5));
            free(cmp("instance_norm T=70001", ol, tol));
            GKT_OK(D, gk_adain(D, ol.d, xl.d, scl.d, shl.d, 1e-5));
            GKT_OK(R, gk_adain(R, ol.r, xl.r, scl.r, shl.r, 1e-5));
            free(cmp("adain T=70001", ol, tol));
            GKT_OK(D, gk_adain(D, xl.d, xl.d, scl.d, shl.d, 1e-5));
            GKT_OK(R, gk_adain(R, xl.r, xl.r, scl.r, shl.r, 1e-5));
            free(cmp("adain T=70001 in place", xl, tol));
            GKT_OK(D, gk_group_norm(D, og.d, xg.d, 1, wg.d, bg.d, 1e-5));
            GKT_OK(R, gk_group_norm(R, og.r, xg.r, 1, wg.r, bg.r, 1e-5));
            free(cmp("group_norm 1 group of 36004", og, tol));
            GKT_OK(D, gk_rms_norm(D, orr.d, xr.d, wr.d, 1e-6));
            GKT_OK(R, gk_rms_norm(R, orr.r, xr.r, wr.r, 1e-6));
            free(cmp("rms_norm rows of 20001", orr, tol));
            GKT_OK(D, gk_layer_norm(D, orr.d, xr.d, wr.d, NONE, 1e-5));
            GKT_OK(R, gk_layer_norm(R, orr.r, xr.r, wr.r, NONE, 1e-5));
            free(cmp("layer_norm rows of 20001", orr, tol));
            fr(xl); fr(ol); fr(scl); fr(shl); fr(xg); fr(og); fr(wg); fr(bg); fr(xr); fr(orr); fr(wr);
        }
    }
    { /* _new variants and empty tensors */
        int64_t s[2] = { 4, 64 }, e[2] = { 0, 64 };
        pair x = mkr(GK_BF16, 2, s, -1, 1), r = mkr(GK_BF16, 2, s, -1, 1), ex = mkpoison(GK_F32, 2, e);
        gk_tensor t, h;
        GKT_OK(D, gk_rms_norm_new(D, x.d, NONE, 1e-6, &t)); gk_tensor_free(D, t);
        GKT_OK(D, gk_layer_norm_new(D, x.d, NONE, NONE, 1e-5, &t)); gk_tensor_free(D, t);
        GKT_OK(D, gk_add_rms_norm_new(D, x.d, r.d, NONE, 1e-6, &t, &h)); gk_tensor_free(D, t); gk_tensor_free(D, h);
        GKT_OK(D, gk_layer_norm(D, ex.d, ex.d, NONE, NONE, 1e-5));
        GKT_OK(R, gk_rms_norm(R, ex.r, ex.r, NONE, 1e-5));
        fr(x); fr(r); fr(ex);
    }
}

/* ------------------------------------------------------------------ RoPE */
static void rope_case(gk_dtype dt, gk_dtype ct, int64_t T, int64_t H, int64_t Dh, int rd, gk_rope_layout lay, int pos64) {
    gk_rope_config cfg;
    int64_t s[3] = { T, H, Dh }, ps[1] = { T }, P = 300, i;
    double *pv = (double *)malloc(sizeof(double) * (size_t)(T + 1)), *a, *dv, *rv;
    pair x, o, pos, o2;
    gk_tensor cd, sd, cr, sr;
    char what[96];
    memset(&cfg, 0, sizeof cfg);
    cfg.rotary_dim = rd;
    GKT_OK(D, gk_rope_table_new(D, &cfg, P, ct, &cd, &sd));
    GKT_OK(R, gk_rope_table_new(R, &cfg, P, ct, &cr, &sr));
    for (i = 0; i < T; i++) pv[i] = floor(gkt_uniform(0, (double)P));
    x = mkr(dt, 3, s, -2, 2);
    o = mkpoison(dt, 3, s);
    pos = mk(pos64 ? GK_I64 : GK_I32, 1, ps, pv);
    snprintf(what, sizeof what, "rope %s T=%lld H=%lld D=%lld rd=%d", lay ? "gptj" : "neox", (long long)T, (long long)H, (long long)Dh, rd);
    GKT_OK(D, gk_rope(D, o.d, x.d, pos.d, cd, sd, rd, lay));
    GKT_OK(R, gk_rope(R, o.r, x.r, pos.r, cr, sr, rd, lay));
    a = cmp(what, o, tol_of(dt) * 2);
    /* in place gives the same */
    o2 = mk(dt, 3, s, NULL);
    GKT_OK(D, gk_copy(D, o2.d, x.d));
    GKT_OK(R, gk_copy(R, o2.r, x.r));
    GKT_OK(D, gk_rope(D, o2.d, o2.d, pos.d, cd, sd, rd, lay));
    GKT_OK(R, gk_rope(R, o2.r, o2.r, pos.r, cr, sr, rd, lay));
    get(o2, &dv, &rv);
    GKT_CHECK(maxdiff(rv, a, o.n) == 0, "%s: in place differs (%g)", what, maxdiff(rv, a, o.n));
    free(dv); free(rv);
    if (dt == GK_F32 && ct == GK_F32) { /* norms of pairs kept; passthrough exact; rotate back by -p */
        double *xv, *xr2, worst = 0;
        int64_t t, h, j;
        get(x, &xv, &xr2);
        for (t = 0; t < T; t++)
            for (h = 0; h < H; h++) {
                const double *u = xr2 + (t * H + h) * Dh, *v = a + (t * H + h) * Dh;
                for (j = 0; j < rd / 2; j++) {
                    int64_t i0 = lay ? 2 * j : j, i1 = lay ? 2 * j + 1 : j + rd / 2;
                    double n0 = u[i0] * u[i0] + u[i1] * u[i1], n1 = v[i0] * v[i0] + v[i1] * v[i1];
                    if (fabs(n0 - n1) > worst) worst = fabs(n0 - n1);
                }
                for (j = rd; j < Dh; j++) GKT_CHECK(u[j] == v[j], "%s: pass-through dim %lld changed", what, (long long)j);
            }
        GKT_CHECK(worst < 1e-4, "%s: pair norms change by %g", what, worst);
        /* sin -> -sin rotates by -p */
        GKT_OK(D, gk_scale(D, sd, sd, -1));
        GKT_OK(R, gk_scale(R, sr, sr, -1));
        GKT_OK(D, gk_rope(D, o2.d, o2.d, pos.d, cd, sd, rd, lay));
        GKT_OK(R, gk_rope(R, o2.r, o2.r, pos.r, cr, sr, rd, lay));
        get(o2, &dv, &rv);
        GKT_CHECK(maxdiff(rv, xr2, o.n) < 1e-5 && maxdiff(dv, xr2, o.n) < 1e-5, "%s: rotation by p then -p is not identity (%g, dut %g)", what,
                  maxdiff(rv, xr2, o.n), maxdiff(dv, xr2, o.n));
        free(dv); free(rv); free(xv); free(xr2);
    }
    free(a);
    free(pv);
    fr(x); fr(o); fr(o2); fr(pos);
    gk_tensor_free(D, cd); gk_tensor_free(D, sd); gk_tensor_free(R, cr); gk_tensor_free(R, sr);
}
static void test_rope(void) {
    int ti;
    gk_rope_config c;
    float inv[64], inv2[64], cs[8], sn[8], *tab;
    double att;
    for (ti = 0; ti < 3; ti++) {
        gk_dtype dt = FDT[ti];
        int lay;
        for (lay = 0; lay < 2; lay++) {
            rope_case(dt, dt, 33, 4, 64, 64, (gk_rope_layout)lay, 0);
            rope_case(dt, GK_F32, 31, 3, 128, 128, (gk_rope_layout)lay, 1);
            rope_case(dt, dt, 7, 5, 10, 6, (gk_rope_layout)lay, 0);    /* odd-ish head dim, partial */
            rope_case(dt, dt, 5, 3, 24, 24, (gk_rope_layout)lay, 0);   /* rd/2 = 12: 4 pairs a thread (8 for 64, 128) */
            rope_case(dt, GK_F32, 1, 1, 80, 20, (gk_rope_layout)lay, 1); /* partial rotary 0.25 */
        }
    }
    rope_case(GK_BF16, GK_F32, 1000, 2, 64, 32, GK_ROPE_NEOX, 0);
    { /* positions outside the table: zeros in the rotary part, the rest passes through */
        int64_t s3[3] = { 3, 1, 8 }, p1[1] = { 3 };
        double pv[3] = { -1, 4, 1 }, xv[24], *dv, *rv;
        gk_tensor cd, sd, cr, sr;
        pair x, o, pos;
        int k;
        memset(&c, 0, sizeof c);
        c.rotary_dim = 4;
        for (k = 0; k < 24; k++) xv[k] = k + 1;
        x = mk(GK_F32, 3, s3, xv);
        o = mkpoison(GK_F32, 3, s3);
        pos = mk(GK_I32, 1, p1, pv);
        GKT_OK(D, gk_rope_table_new(D, &c, 4, GK_F32, &cd, &sd));
        GKT_OK(R, gk_rope_table_new(R, &c, 4, GK_F32, &cr, &sr));
        GKT_OK(D, gk_rope(D, o.d, x.d, pos.d, cd, sd, 4, GK_ROPE_NEOX));
        GKT_OK(R, gk_rope(R, o.r, x.r, pos.r, cr, sr, 4, GK_ROPE_NEOX));
        get(o, &dv, &rv);
        GKT_CHECK(maxdiff(dv, rv, 24) < 1e-6 && rv[0] == 0 && rv[3] == 0 && rv[4] == 5 && rv[7] == 8 && rv[8] == 0 && rv[11] == 0 && rv[12] == 13 &&
                  rv[16] != 0, "rope: out-of-table positions give zeros (%g %g %g %g)", rv[0], rv[4], rv[8], rv[12]);
        free(dv); free(rv);
        fr(x); fr(o); fr(pos);
        gk_tensor_free(D, cd); gk_tensor_free(D, sd); gk_tensor_free(R, cr); gk_tensor_free(R, sr);
    }
    /* host tables: hand-computed */
    memset(&c, 0, sizeof c);
    c.rotary_dim = 4;
    GKT_OK(NULL, gk_rope_inv_freq(&c, inv, &att));
    GKT_CHECK(inv[0] == 1.0f && fabs(inv[1] - 0.01) < 1e-9 && att == 1, "default inv_freq dim 4: %g %g", inv[0], inv[1]);
    GKT_OK(NULL, gk_rope_table(&c, 2, cs, sn, NULL));
    GKT_CHECK(cs[0] == 1 && sn[0] == 0 && fabs(cs[2] - cos(1.0)) < 1e-7 && fabs(sn[3] - sin(0.01)) < 1e-7, "table rows: %g %g %g %g", cs[0], sn[0], cs[2], sn[3]);
    c.rotary_dim = 64; c.theta = 500000;
    GKT_OK(NULL, gk_rope_inv_freq(&c, inv, NULL));
    c.type = GK_ROPE_LINEAR; c.factor = 4;
    GKT_OK(NULL, gk_rope_inv_freq(&c, inv2, NULL));
    GKT_CHECK(inv2[5] == inv[5] / 4.0f && inv2[31] == inv[31] / 4.0f, "linear = default / factor");
    c.type = GK_ROPE_LLAMA3; c.factor = 8; c.low_freq_factor = 1; c.high_freq_factor = 4; c.original_max_position_embeddings = 8192;
    GKT_OK(NULL, gk_rope_inv_freq(&c, inv2, NULL));
    GKT_CHECK(inv2[0] == inv[0] && inv2[31] == inv[31] / 8.0f && inv2[20] <= inv[20] && inv2[20] >= inv[20] / 8, "llama3 bands: %g %g / %g %g", inv2[0], inv[0], inv2[31], inv[31]);
    c.type = GK_ROPE_YARN; c.factor = 4; c.max_position_embeddings = 4096; c.original_max_position_embeddings = 0;
    GKT_OK(NULL, gk_rope_inv_freq(&c, inv2, &att));
    GKT_CHECK(fabs(att - (0.1 * log(4.0) + 1)) < 1e-12 && inv2[0] == inv[0] && fabs(inv2[31] - inv[31] / 4) < 1e-6 * inv[31], "yarn: att %g, ends %g %g", att, inv2[0], inv2[31]);
    c.type = GK_ROPE_DYNAMIC; c.factor = 2; c.seq_len = 100;
    GKT_OK(NULL, gk_rope_inv_freq(&c, inv2, NULL));
    GKT_CHECK(inv2[7] == inv[7], "dynamic below max_pos = default");
    /* sinusoids: channels 4: inv = [1, 1e-4] */
    tab = (float *)malloc(sizeof(float) * 3 * 4);
    GKT_OK(NULL, gk_sinusoids(3, 4, 10000, tab));
    GKT_CHECK(tab[0] == 0 && tab[2] == 1 && fabs(tab[4] - sin(1.0)) < 1e-7 && fabs(tab[5] - sin(1e-4)) < 1e-9 && fabs(tab[6] - cos(1.0)) < 1e-7,
              "sinusoids: %g %g %g %g", tab[0], tab[2], tab[4], tab[5]);
    free(tab);
}

/* ------------------------------------------------------------------ layout */
static void test_permute(void) {
    static const gk_dtype dts[4] = { GK_F32, GK_BF16, GK_U8, GK_I64 };
    static const int64_t shapes[4][4] = { { 3, 4, 5, 6 }, { 2, 33, 31, 1 }, { 1, 7, 64, 40 }, { 2, 5, 3, 16 } };
    static const int perms[6][4] = { { 0, 2, 1, 3 }, { 3, 2, 1, 0 }, { 0, 1, 3, 2 }, { 1, 0, 2, 3 }, { 2, 3, 0, 1 }, { 0, 3, 1, 2 } };
    int di, si, pi;
    for (di = 0; di < 4; di++)
        for (si = 0; si < 4; si++)
            for (pi = 0; pi < 6; pi++) {
                const int *pm = perms[pi];
                int inv[4], k;
                int64_t ps[4];
                pair x = mkr(dts[di], 4, shapes[si], -100, 100), o, back;
                double *dv, *rv;
                for (k = 0; k < 4; k++) { ps[k] = shapes[si][pm[k]]; inv[pm[k]] = k; }
                o = mkpoison(dts[di], 4, ps);
                back = mkpoison(dts[di], 4, shapes[si]);
                GKT_OK(D, gk_permute(D, o.d, x.d, pm));
                GKT_OK(R, gk_permute(R, o.r, x.r, pm));
                free(cmp("permute", o, 0));
                GKT_OK(D, gk_permute(D, back.d, o.d, inv));
                GKT_OK(R, gk_permute(R, back.r, o.r, inv));
                get(back, &dv, &rv);
                {
                    double *xd, *xr;
                    get(x, &xd, &xr);
                    GKT_CHECK(maxdiff(dv, xr, x.n) == 0 && maxdiff(rv, xr, x.n) == 0, "permute then inverse permute is identity (%s)", gk_dtype_name(dts[di]));
                    free(xd); free(xr);
                }
                free(dv); free(rv);
                fr(x); fr(o); fr(back);
            }
    { /* a big transpose of the last two dims, and [B,S,H,D] -> [B,H,S,D] */
        int64_t s[3] = { 2, 300, 129 }, t[3] = { 2, 129, 300 };
        int pm[3] = { 0, 2, 1 };
        pair x = mkr(GK_F16, 3, s, -1, 1), o = mkpoison(GK_F16, 3, t);
        GKT_OK(D, gk_permute(D, o.d, x.d, pm));
        GKT_OK(R, gk_permute(R, o.r, x.r, pm));
        free(cmp("transpose 300x129", o, 0));
        fr(x); fr(o);
    }
    {   /* the 64x64 tiles (4- and 8-byte elements): partial tiles at both edges, a batch dim, and full tiles only */
        static const gk_dtype dt2[2] = { GK_F32, GK_I64 };
        int64_t s[3] = { 3, 300, 129 }, t[3] = { 3, 129, 300 }, s2[2] = { 128, 192 }, t2[2] = { 192, 128 };
        int pm[3] = { 0, 2, 1 }, pm2[2] = { 1, 0 }, k;
        for (k = 0; k < 2; k++) {
            pair x = mkr(dt2[k], 3, s, -100, 100), o = mkpoison(dt2[k], 3, t);
            pair x2 = mkr(dt2[k], 2, s2, -100, 100), o2 = mkpoison(dt2[k], 2, t2);
            GKT_OK(D, gk_permute(D, o.d, x.d, pm));
            GKT_OK(R, gk_permute(R, o.r, x.r, pm));
            free(cmp("transpose 64-tiles 300x129", o, 0));
            GKT_OK(D, gk_permute(D, o2.d, x2.d, pm2));
            GKT_OK(R, gk_permute(R, o2.r, x2.r, pm2));
            free(cmp("transpose 64-tiles 128x192", o2, 0));
            fr(x); fr(o); fr(x2); fr(o2);
        }
    }
}
static void test_concat_slice(void) {
    int64_t a[3] = { 2, 3, 5 }, b[3] = { 2, 1, 5 }, c[3] = { 2, 4, 5 }, o[3] = { 2, 8, 5 };
    pair xa = mkr(GK_F32, 3, a, -5, 5), xb = mkr(GK_F32, 3, b, -5, 5), xc = mkr(GK_F32, 3, c, -5, 5), out = mkpoison(GK_F32, 3, o);
    gk_tensor ds[3], rs[3], views[3];
    int64_t sizes[3] = { 3, 1, 4 }, off = 0;
    pair parts[3];
    int i;
    ds[0] = xa.d; ds[1] = xb.d; ds[2] = xc.d;
    rs[0] = xa.r; rs[1] = xb.r; rs[2] = xc.r;
    parts[0] = xa; parts[1] = xb; parts[2] = xc;
    GKT_OK(D, gk_concat(D, out.d, ds, 3, 1));
    GKT_OK(R, gk_concat(R, out.r, rs, 3, -2));
    free(cmp("concat", out, 0));
    for (i = 0; i < 3; i++) { /* slice copy back: identity */
        pair s = mkpoison(GK_F32, 3, parts[i].shape);
        double *dv, *rv, *xd, *xr;
        GKT_OK(D, gk_slice_copy(D, s.d, out.d, 1, off, off + sizes[i], 1));
        GKT_OK(R, gk_slice_copy(R, s.r, out.r, 1, off, off + sizes[i], 1));
        get(s, &dv, &rv);
        get(parts[i], &xd, &xr);
        GKT_CHECK(maxdiff(dv, xr, s.n) == 0 && maxdiff(rv, xr, s.n) == 0, "concat then slice %d is identity", i);
        free(dv); free(rv); free(xd); free(xr);
        fr(s);
        off += sizes[i];
    }
    GKT_OK(R, gk_split(R, out.r, 1, sizes, 3, views));
    for (i = 0; i < 3; i++) {
        gk_tensor_info inf;
        gk_tensor_info_get(R, views[i], &inf);
        GKT_CHECK(inf.is_view && inf.shape[1] == sizes[i], "split view %d", i);
        gk_tensor_free(R, views[i]);
    }
    { /* strided slice: step 2, negative start */
        int64_t s1[1] = { 33 }, s2[1] = { 8 };
        double v[33], *dv, *rv;
        pair x, y;
        for (i = 0; i < 33; i++) v[i] = i;
        x = mk(GK_I32, 1, s1, v);
        y = mkpoison(GK_I32, 1, s2);
        GKT_OK(D, gk_slice_copy(D, y.d, x.d, 0, -16, 100, 2));
        GKT_OK(R, gk_slice_copy(R, y.r, x.r, 0, -16, 100, 2));
        get(y, &dv, &rv);
        GKT_CHECK(rv[0] == 17 && rv[7] == 31 && dv[7] == 31, "slice -16::2 -> %g..%g", rv[0], rv[7]);
        free(dv); free(rv);
        fr(x); fr(y);
    }
    { /* 2-D concat of 16-byte-unaligned rows along the last dim, bf16 */
        int64_t p[2] = { 33, 7 }, q[2] = { 33, 9 }, r2[2] = { 33, 16 };
        pair x = mkr(GK_BF16, 2, p, -1, 1), y = mkr(GK_BF16, 2, q, -1, 1), z = mkpoison(GK_BF16, 2, r2);
        gk_tensor d2[2], rr2[2];
        d2[0] = x.d; d2[1] = y.d; rr2[0] = x.r; rr2[1] = y.r;
        GKT_OK(D, gk_concat(D, z.d, d2, 2, 1));
        GKT_OK(R, gk_concat(R, z.r, rr2, 2, 1));
        free(cmp("concat last dim", z, 0));
        fr(x); fr(y); fr(z);
    }
    fr(xa); fr(xb); fr(xc); fr(out);
}
static void test_gather(void) {
    int64_t ts[2] = { 50, 33 }, is[2] = { 4, 7 }, os[3] = { 4, 7, 33 }, i;
    double ids[28];
    pair tab = mkr(GK_BF16, 2, ts, -3, 3), id, out;
    double *tv, *tr, *rv;
    int k;
    for (k = 0; k < 2; k++) {
        for (i = 0; i < 28; i++) ids[i] = floor(gkt_uniform(0, 50));
        ids[3] = -1; ids[11] = 50; ids[12] = 49; ids[13] = 0;
        id = mk(k ? GK_I64 : GK_I32, 2, is, ids);
        out = mkpoison(GK_BF16, 3, os);
        GKT_OK(D, gk_embedding(D, out.d, tab.d, id.d));
        GKT_OK(R, gk_embedding(R, out.r, tab.r, id.r));
        rv = cmp("embedding", out, 0);
        get(tab, &tv, &tr);
        for (i = 0; i < 28; i++) {
            int64_t j, row = (int64_t)ids[i];
            int ok = 1;
            for (j = 0; j < 33; j++) ok &= rv[i * 33 + j] == (row >= 0 && row < 50 ? tr[row * 33 + j] : 0);
            GKT_CHECK(ok, "embedding row %lld (id %lld)", (long long)i, (long long)row);
        }
        free(tv); free(tr); free(rv);
        fr(id); fr(out);
    }
    { /* index_select along axis 1 of [3, 10, 4] f32, and an unaligned row size */
        int64_t xs[3] = { 3, 10, 4 }, n1[1] = { 5 }, o1[3] = { 3, 5, 4 }, x2[2] = { 9, 3 }, o2[2] = { 5, 3 };
        double iv[5] = { 9, 0, 3, 3, 11 };
        pair x = mkr(GK_F32, 3, xs, -1, 1), ix = mk(GK_I32, 1, n1, iv), o = mkpoison(GK_F32, 3, o1);
        pair y = mkr(GK_U8, 2, x2, 0, 200), oy = mkpoison(GK_U8, 2, o2);
        GKT_OK(D, gk_index_select(D, o.d, x.d, 1, ix.d));
        GKT_OK(R, gk_index_select(R, o.r, x.r, 1, ix.r));
        rv = cmp("index_select", o, 0);
        get(x, &tv, &tr);
        GKT_CHECK(rv[0] == tr[9 * 4] && rv[4 * 4] == 0 && rv[(5 + 2) * 4 + 1] == tr[(10 + 3) * 4 + 1], "index_select values");
        free(tv); free(tr); free(rv);
        GKT_OK(D, gk_index_select(D, oy.d, y.d, 0, ix.d));
        GKT_OK(R, gk_index_select(R, oy.r, y.r, 0, ix.r));
        free(cmp("index_select u8 rows", oy, 0));
        fr(x); fr(ix); fr(o); fr(y); fr(oy);
    }
    fr(tab);
}
static void test_repeat(void) {
    int64_t s[2] = { 2, 3 }, o[3] = { 2, 2, 9 }, oi[2] = { 2, 12 }, rep[3] = { 2, 1, 3 };
    double v[6] = { 1, 2, 3, 4, 5, 6 }, *dv, *rv;
    pair x = mk(GK_I32, 2, s, v), y = mkpoison(GK_I32, 3, o), z = mkpoison(GK_I32, 2, oi);
    GKT_OK(D, gk_repeat(D, y.d, x.d, rep, 3));
    GKT_OK(R, gk_repeat(R, y.r, x.r, rep, 3));
    rv = cmp("repeat", y, 0);
    GKT_CHECK(rv[0] == 1 && rv[3] == 1 && rv[9] == 4 && rv[17] == 6 && rv[18] == 1 && rv[35] == 6, "repeat values %g %g %g", rv[3], rv[9], rv[18]);
    free(rv);
    GKT_OK(D, gk_repeat_interleave(D, z.d, x.d, 4, 1));
    GKT_OK(R, gk_repeat_interleave(R, z.r, x.r, 4, -1));
    get(z, &dv, &rv);
    GKT_CHECK(maxdiff(dv, rv, z.n) == 0 && rv[0] == 1 && rv[3] == 1 && rv[4] == 2 && rv[12] == 4 && rv[23] == 6, "repeat_interleave values");
    free(dv); free(rv);
    fr(x); fr(y); fr(z);
    { /* bigger random repeat on bf16 */
        int64_t a[3] = { 3, 1, 33 }, b[3] = { 6, 4, 33 }, r3[3] = { 2, 4, 1 };
        pair p = mkr(GK_BF16, 3, a, -1, 1), q = mkpoison(GK_BF16, 3, b);
        GKT_OK(D, gk_repeat(D, q.d, p.d, r3, 3));
        GKT_OK(R, gk_repeat(R, q.r, p.r, r3, 3));
        free(cmp("repeat bf16", q, 0));
        fr(p); fr(q);
    }
}
static void test_pad(void) {
    int64_t s[1] = { 3 }, o[1] = { 6 }, pads[2] = { 2, 1 };
    double v[3] = { 1, 2, 3 }, *dv, *rv;
    static const double want[3][6] = { { 9, 9, 1, 2, 3, 9 }, { 3, 2, 1, 2, 3, 2 }, { 1, 1, 1, 2, 3, 3 } };
    pair x = mk(GK_F32, 1, s, v), y = mkpoison(GK_F32, 1, o);
    int m, ti;
    for (m = 0; m < 3; m++) {
        GKT_OK(D, gk_pad(D, y.d, x.d, pads, 2, (gk_pad_mode)m, 9));
        GKT_OK(R, gk_pad(R, y.r, x.r, pads, 2, (gk_pad_mode)m, 9));
        get(y, &dv, &rv);
        GKT_CHECK(maxdiff(rv, want[m], 6) == 0 && maxdiff(dv, want[m], 6) == 0, "pad mode %d: %g %g %g %g %g %g", m, rv[0], rv[1], rv[2], rv[3], rv[4], rv[5]);
        free(dv); free(rv);
    }
    fr(x); fr(y);
    for (ti = 0; ti < 3; ti++)
        for (m = 0; m < 3; m++) { /* 2-D pads, then slice back: identity */
            gk_dtype dt = ti == 0 ? GK_F32 : ti == 1 ? GK_BF16 : GK_I64;
            int64_t xs[4] = { 2, 3, 17, 33 }, p4[4] = { 3, 5, 2, 16 }, os[4] = { 2, 3, 17 + 2 + 16, 33 + 8 };
            pair a = mkr(dt, 4, xs, -10, 10), b = mkpoison(dt, 4, os), c = mkpoison(dt, 4, xs), t1 = mkpoison(dt, 4, xs);
            int64_t ts[4] = { 2, 3, 17, 41 };
            pair t0 = mkpoison(dt, 4, ts);
            double *xd, *xr;
            GKT_OK(D, gk_pad(D, b.d, a.d, p4, 4, (gk_pad_mode)m, -7.5));
            GKT_OK(R, gk_pad(R, b.r, a.r, p4, 4, (gk_pad_mode)m, -7.5));
            free(cmp("pad 2-D", b, 0));
            GKT_OK(D, gk_slice_copy(D, t0.d, b.d, 2, 2, 19, 1));
            GKT_OK(R, gk_slice_copy(R, t0.r, b.r, 2, 2, 19, 1));
            GKT_OK(D, gk_slice_copy(D, c.d, t0.d, 3, 3, 36, 1));
            GKT_OK(R, gk_slice_copy(R, c.r, t0.r, 3, 3, 36, 1));
            get(c, &dv, &rv);
            get(a, &xd, &xr);
            GKT_CHECK(maxdiff(dv, xr, a.n) == 0 && maxdiff(rv, xr, a.n) == 0, "pad then slice is identity (mode %d, %s)", m, gk_dtype_name(dt));
            free(dv); free(rv); free(xd); free(xr);
            fr(a); fr(b); fr(c); fr(t0); fr(t1);
        }
}
static void test_interp(void) {
    int64_t s[3] = { 1, 1, 2 }, o[3] = { 1, 1, 4 }, s4[3] = { 1, 1, 4 }, o8[3] = { 1, 1, 8 };
    double v[2] = { 0, 1 }, v4[4] = { 1, 2, 3, 4 }, *dv, *rv;
    pair x = mk(GK_F32, 3, s, v), y = mkpoison(GK_F32, 3, o), x4 = mk(GK_F32, 3, s4, v4), y8 = mkpoison(GK_F32, 3, o8);
    int ti, m;
    GKT_OK(D, gk_interpolate(D, y.d, x.d, GK_INTERP_LINEAR, NULL));
    GKT_OK(R, gk_interpolate(R, y.r, x.r, GK_INTERP_LINEAR, NULL));
    get(y, &dv, &rv);
    GKT_CHECK(rv[0] == 0 && rv[1] == 0.25 && rv[2] == 0.75 && rv[3] == 1 && maxdiff(dv, rv, 4) < 1e-6, "linear [0,1] x2: %g %g %g %g", rv[0], rv[1], rv[2], rv[3]);
    free(dv); free(rv);
    GKT_OK(D, gk_interpolate(D, y8.d, x4.d, GK_INTERP_NEAREST, NULL));
    GKT_OK(R, gk_interpolate(R, y8.r, x4.r, GK_INTERP_NEAREST, NULL));
    get(y8, &dv, &rv);
    GKT_CHECK(rv[0] == 1 && rv[1] == 1 && rv[2] == 2 && rv[7] == 4 && maxdiff(dv, rv, 8) == 0, "nearest x2");
    free(dv); free(rv);
    fr(x); fr(y); fr(x4); fr(y8);
    for (ti = 0; ti < 3; ti++)
        for (m = 0; m < 2; m++) {
            int64_t xs[4] = { 2, 3, 13, 31 }, os[4] = { 2, 3, 33, 17 }, x1[3] = { 2, 5, 1000 }, o1[3] = { 2, 5, 4097 };
            double sc[2] = { 2.5, 0.55 };
            pair a = mkr(FDT[ti], 4, xs, -2, 2), b = mkpoison(FDT[ti], 4, os), c = mkr(FDT[ti], 3, x1, -2, 2), d = mkpoison(FDT[ti], 3, o1);
            gk_tensor t;
            GKT_OK(D, gk_interpolate(D, b.d, a.d, (gk_interp_mode)m, NULL));
            GKT_OK(R, gk_interpolate(R, b.r, a.r, (gk_interp_mode)m, NULL));
            free(cmp("interpolate 2-D", b, tol_of(FDT[ti])));
            GKT_OK(D, gk_interpolate(D, b.d, a.d, (gk_interp_mode)m, sc));
            GKT_OK(R, gk_interpolate(R, b.r, a.r, (gk_interp_mode)m, sc));
            free(cmp("interpolate 2-D scales", b, tol_of(FDT[ti])));
            GKT_OK(D, gk_interpolate(D, d.d, c.d, (gk_interp_mode)m, NULL));
            GKT_OK(R, gk_interpolate(R, d.r, c.r, (gk_interp_mode)m, NULL));
            free(cmp("interpolate 1-D", d, tol_of(FDT[ti])));
            GKT_OK(D, gk_interpolate_new(D, a.d, (gk_interp_mode)m, NULL, sc, &t));
            {
                gk_tensor_info inf;
                gk_tensor_info_get(D, t, &inf);
                GKT_CHECK(inf.shape[2] == 32 && inf.shape[3] == 17, "interpolate_new size %lld x %lld", (long long)inf.shape[2], (long long)inf.shape[3]);
            }
            gk_tensor_free(D, t);
            fr(a); fr(b); fr(c); fr(d);
        }
}

/* ------------------------------------------------------------------ errors */
static void test_errors(void) {
    int64_t s[2] = { 4, 8 }, w7[1] = { 7 }, g[3] = { 2, 6, 5 }, r3[3] = { 3, 2, 8 }, p3[1] = { 3 }, tb[2] = { 10, 4 }, e0[2] = { 0, 8 };
    gk_tensor xi, xf, w, o, gx, go, q, pos, posf, ct, st, e, out;
    int perm_bad[2] = { 0, 0 }, perm_rng[2] = { 0, 2 };
    int64_t pads[2] = { 8, 1 };
    gk_rope_config c;
    float buf[16];
    gk_tensor_empty(R, GK_I32, 2, s, &xi);
    gk_tensor_empty(R, GK_F32, 2, s, &xf);
    gk_tensor_empty(R, GK_F32, 2, s, &o);
    gk_tensor_empty(R, GK_F32, 1, w7, &w);
    gk_tensor_empty(R, GK_F32, 3, g, &gx);
    gk_tensor_empty(R, GK_F32, 3, g, &go);
    gk_tensor_empty(R, GK_F32, 3, r3, &q);
    gk_tensor_empty(R, GK_I32, 1, p3, &pos);
    gk_tensor_empty(R, GK_F32, 1, p3, &posf);
    gk_tensor_empty(R, GK_F32, 2, tb, &ct);
    gk_tensor_empty(R, GK_F32, 2, tb, &st);
    gk_tensor_empty(R, GK_F32, 2, e0, &e);
    GKT_FAILS(R, gk_layer_norm(R, o, xi, NONE, NONE, 1e-5), GK_ERR_DTYPE, "f32, f16 or bf16");
    GKT_FAILS(R, gk_layer_norm(R, o, xf, w, NONE, 1e-5), GK_ERR_SHAPE, "weight has shape [7]");
    GKT_FAILS(R, gk_rms_norm(R, go, xf, NONE, 1e-5), GK_ERR_SHAPE, "out has shape");
    GKT_FAILS(R, gk_rms_norm(R, o, xf, NONE, -1), GK_ERR_INVALID_ARGUMENT, "eps");
    GKT_FAILS(R, gk_group_norm(R, go, gx, 4, NONE, NONE, 1e-5), GK_ERR_INVALID_ARGUMENT, "num_groups 4");
    GKT_FAILS(R, gk_instance_norm(R, o, xf, NONE, NONE, 1e-5), GK_ERR_SHAPE, "expected [B, C");
    GKT_FAILS(R, gk_adain(R, go, gx, NONE, NONE, 1e-5), GK_ERR_INVALID_HANDLE, "scale");
    GKT_FAILS(R, gk_rope(R, q, q, pos, ct, st, 3, GK_ROPE_NEOX), GK_ERR_INVALID_ARGUMENT, "rotary_dim 3");
    GKT_FAILS(R, gk_rope(R, q, q, pos, ct, st, 10, GK_ROPE_NEOX), GK_ERR_INVALID_ARGUMENT, "> head_dim 8");
    GKT_FAILS(R, gk_rope(R, q, q, posf, ct, st, 8, GK_ROPE_NEOX), GK_ERR_DTYPE, "positions");
    GKT_FAILS(R, gk_rope(R, q, q, pos, ct, st, 6, GK_ROPE_NEOX), GK_ERR_SHAPE, "cos_tab");
    GKT_FAILS(R, gk_rope(R, q, xf, pos, ct, st, 8, GK_ROPE_NEOX), GK_ERR_SHAPE, "x has shape");
    memset(&c, 0, sizeof c);
    c.rotary_dim = 8;
    GKT_FAILS(NULL, gk_rope_table(&c, 0, buf, buf, NULL), GK_ERR_INVALID_ARGUMENT, "max_pos 0");
    c.rotary_dim = 7;
    GKT_FAILS(NULL, gk_rope_inv_freq(&c, buf, NULL), GK_ERR_INVALID_ARGUMENT, "rotary_dim 7");
    c.rotary_dim = 8; c.type = GK_ROPE_LINEAR;
    GKT_FAILS(NULL, gk_rope_inv_freq(&c, buf, NULL), GK_ERR_INVALID_ARGUMENT, "factor");
    c.type = GK_ROPE_LLAMA3; c.factor = 8;
    GKT_FAILS(NULL, gk_rope_inv_freq(&c, buf, NULL), GK_ERR_INVALID_ARGUMENT, "llama3");
    GKT_FAILS(NULL, gk_sinusoids(4, 5, 0, buf), GK_ERR_INVALID_ARGUMENT, "channels");
    GKT_FAILS(R, gk_rope_table_new(R, &c, -1, GK_F32, &out, &out), GK_ERR_INVALID_ARGUMENT, "llama3");
    GKT_FAILS(R, gk_permute(R, o, xf, perm_bad), GK_ERR_INVALID_ARGUMENT, "repeats axis 0");
    GKT_FAILS(R, gk_permute(R, o, xf, perm_rng), GK_ERR_INVALID_ARGUMENT, "perm[1] = 2 out of range");
    {
        gk_tensor two[2];
        two[0] = xf; two[1] = gx;
        GKT_FAILS(R, gk_concat_new(R, two, 2, 0, &out), GK_ERR_SHAPE, "xs[1] has 3 dims");
        two[1] = xi;
        GKT_FAILS(R, gk_concat_new(R, two, 2, 0, &out), GK_ERR_DTYPE, "xs[1] is i32");
        GKT_FAILS(R, gk_concat_new(R, two, 2, 5, &out), GK_ERR_INVALID_ARGUMENT, "axis 5 out of range");
    }
    GKT_FAILS(R, gk_pad_new(R, xf, pads, 2, GK_PAD_REFLECT, 0, &out), GK_ERR_INVALID_ARGUMENT, "reflect padding (8, 1) must be < the dim size 8");
    GKT_FAILS(R, gk_pad_new(R, xf, pads, 3, GK_PAD_CONSTANT, 0, &out), GK_ERR_INVALID_ARGUMENT, "npads 3");
    GKT_FAILS(R, gk_interpolate_new(R, gx, GK_INTERP_LINEAR, NULL, NULL, &out), GK_ERR_INVALID_ARGUMENT, "size or scales");
    GKT_FAILS(R, gk_interpolate(R, o, xi, GK_INTERP_LINEAR, NULL), GK_ERR_DTYPE, "");
    GKT_FAILS(R, gk_embedding_new(R, xf, posf, &out), GK_ERR_DTYPE, "ids are f32");
    GKT_FAILS(R, gk_embedding_new(R, gx, pos, &out), GK_ERR_SHAPE, "table has 3 dims");
    GKT_FAILS(R, gk_index_select_new(R, xf, 3, pos, &out), GK_ERR_INVALID_ARGUMENT, "axis 3");
    GKT_FAILS(R, gk_repeat_new(R, xf, pads, 1, &out), GK_ERR_INVALID_ARGUMENT, "1 repeats for 2 dims");
    GKT_FAILS(R, gk_slice_copy(R, o, xf, 0, 0, 4, 0), GK_ERR_INVALID_ARGUMENT, "step 0");
    {
        int64_t sz[2] = { 3, 3 };
        gk_tensor vs[2];
        GKT_FAILS(R, gk_split(R, xf, 0, sz, 2, vs), GK_ERR_SHAPE, "sizes sum to 6 but dim 0 has 4");
    }
    /* empty tensors succeed and touch nothing */
    GKT_OK(R, gk_layer_norm(R, e, e, NONE, NONE, 1e-5));
    GKT_OK(R, gk_pad_new(R, e, pads, 2, GK_PAD_CONSTANT, 1, &out));
    gk_tensor_free(R, out);
    gk_tensor_free(R, xi); gk_tensor_free(R, xf); gk_tensor_free(R, o); gk_tensor_free(R, w); gk_tensor_free(R, gx); gk_tensor_free(R, go);
    gk_tensor_free(R, q); gk_tensor_free(R, pos); gk_tensor_free(R, posf); gk_tensor_free(R, ct); gk_tensor_free(R, st); gk_tensor_free(R, e);
}


/* ------------------------------------------------------------------ graphs */
/* ops recorded in a graph (CPU: thunks with copied parameters) replay to the
   same results as direct calls */
static void test_graph(void) {
    int64_t s[2] = { 6, 64 }, t3[3] = { 6, 2, 32 }, ps[1] = { 6 };
    double pv[6] = { 0, 5, 2, 9, 1, 3 };
    int perm[2] = { 1, 0 };
    int64_t st[2] = { 64, 6 };
    gk_rope_config c;
    gk_tensor cs, sn, v3, w3;
    gk_graph *g = NULL;
    pair x = mkr(GK_F32, 2, s, -1, 1), a = mkpoison(GK_F32, 2, s), b = mkpoison(GK_F32, 2, st), pos = mk(GK_I32, 1, ps, pv);
    double *d1, *r1, *d2, *r2;
    int k;
    memset(&c, 0, sizeof c);
    c.rotary_dim = 32;
    GKT_OK(D, gk_rope_table_new(D, &c, 16, GK_F32, &cs, &sn));
    GKT_OK(D, gk_view_reshape(D, a.d, 3, t3, &v3));
    GKT_OK(D, gk_view_reshape(D, x.d, 3, t3, &w3));
    GKT_OK(D, gk_rms_norm(D, a.d, x.d, NONE, 1e-6));
    GKT_OK(D, gk_rope(D, v3, v3, pos.d, cs, sn, 32, GK_ROPE_GPTJ));
    GKT_OK(D, gk_permute(D, b.d, a.d, perm));
    get(b, &d1, &r1);
    GKT_OK(D, gk_fill(D, a.d, 0));
    GKT_OK(D, gk_fill(D, b.d, 0));
    GKT_OK(D, gk_graph_begin(D, NULL));
    GKT_OK(D, gk_rms_norm(D, a.d, x.d, NONE, 1e-6));
    GKT_OK(D, gk_rope(D, v3, v3, pos.d, cs, sn, 32, GK_ROPE_GPTJ));
    GKT_OK(D, gk_permute(D, b.d, a.d, perm));
    GKT_OK(D, gk_graph_end(D, NULL, &g));
    for (k = 0; k < 2; k++) {
        GKT_OK(D, gk_graph_launch(D, g, NULL));
        get(b, &d2, &r2);
        GKT_CHECK(maxdiff(d1, d2, b.n) == 0, "graph replay %d differs from direct calls (%g)", k, maxdiff(d1, d2, b.n));
        free(d2); free(r2);
    }
    gk_graph_destroy(D, g);
    free(d1); free(r1);
    gk_tensor_free(D, v3); gk_tensor_free(D, w3); gk_tensor_free(D, cs); gk_tensor_free(D, sn);
    fr(x); fr(a); fr(b); fr(pos);
}

#include "test_nn_fixtures.h"

int main(void) {
    gkt_seed();
    D = gkt_dut();
    R = gkt_ref();
    printf("device under test: %s\n", gk_ctx_backend(D) == GK_BACKEND_CUDA ? "CUDA" : "CPU");
    test_norms();
    test_rope();
    test_permute();
    test_concat_slice();
    test_gather();
    test_repeat();
    test_pad();
    test_interp();
    test_errors();
    test_graph();
    test_fixtures();
    gk_ctx_destroy(D);
    gk_ctx_destroy(R);
    return gkt_done("test_nn");
}
