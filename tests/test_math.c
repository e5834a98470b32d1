/* test_math.c - the math group: elementwise math (unary, clamp, pow / maximum /
   minimum, comparisons, where, GLU, snake), reductions, softmax, cumsum,
   top-k, sampling, Philox and Gaussian noise. Each case runs on the device under test (CUDA
   when present) and on the CPU reference with fresh random inputs and
   poisoned outputs; the reference is also checked here against expectations
   computed independently in double (libm), identities and hand-computed cases. */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkt.h"

static gk_ctx *D, *R;
static const int64_t SIZES[] = { 1, 31, 33, 1000, 4097 };
static const gk_dtype FDT[4] = { GK_F32, GK_F64, GK_F16, GK_BF16 };

typedef struct { gk_tensor d, r; gk_dtype dt; int64_t n; int nd; int64_t shape[GK_MAX_DIMS]; } pair;
static pair mk(gk_dtype dt, int nd, const int64_t *shape, const double *vals) {
    pair p;
    gk_tensor_info info;
    void *bytes;
    int i;
    p.dt = dt;
    p.nd = nd;
    for (i = 0; i < nd; i++) p.shape[i] = shape[i];
    GKT_OK(D, gk_tensor_empty(D, dt, nd, shape, &p.d));
    GKT_OK(R, gk_tensor_empty(R, dt, nd, shape, &p.r));
    gk_tensor_info_get(R, p.r, &info);
    p.n = info.numel;
    bytes = malloc(info.nbytes + 8);
    if (vals) gk_convert(dt, bytes, GK_F64, vals, (size_t)p.n);
    else memset(bytes, 0xA5, info.nbytes); /* poison */
    GKT_OK(D, gk_copy_from_host(D, p.d, bytes, info.nbytes));
    GKT_OK(R, gk_copy_from_host(R, p.r, bytes, info.nbytes));
    free(bytes);
    return p;
}
static pair mk_rand(gk_dtype dt, int nd, const int64_t *shape, double lo, double hi) {
    int64_t n = 1, i;
    double *v;
    pair p;
    int k;
    for (k = 0; k < nd; k++) n *= shape[k];
    v = (double *)malloc(sizeof(double) * (size_t)(n + 1));
    for (i = 0; i < n; i++) v[i] = gk_dtype_is_float(dt) ? gkt_uniform(lo, hi) : floor(gkt_uniform(lo, hi));
    p = mk(dt, nd, shape, v);
    free(v);
    return p;
}
static void fr(pair p) { gk_tensor_free(D, p.d); gk_tensor_free(R, p.r); }
/* a transposed view (dims 0 and 1) of p on both sides */
static pair tview(pair p) {
    pair t = p;
    GKT_OK(D, gk_view_transpose(D, p.d, 0, 1, &t.d));
    GKT_OK(R, gk_view_transpose(R, p.r, 0, 1, &t.r));
    t.shape[0] = p.shape[1];
    t.shape[1] = p.shape[0];
    return t;
}
/* a slice [start, stop) of the last dim of p on both sides (odd offsets: unaligned rows) */
static pair sview(pair p, int64_t start, int64_t stop) {
    pair t = p;
    GKT_OK(D, gk_view_slice(D, p.d, p.nd - 1, start, stop, 1, &t.d));
    GKT_OK(R, gk_view_slice(R, p.r, p.nd - 1, start, stop, 1, &t.r));
    t.shape[p.nd - 1] = stop - start;
    t.n = p.n / p.shape[p.nd - 1] * (stop - start);
    return t;
}
/* both sides as doubles (row-major, contiguous copies) */
static void getd(pair p, double *dv, double *rv) {
    gk_tensor cd, cr;
    gk_tensor_info info;
    void *b;
    GKT_OK(D, gk_contiguous(D, p.d, &cd));
    GKT_OK(R, gk_contiguous(R, p.r, &cr));
    gk_tensor_info_get(R, cr, &info);
    b = malloc(info.nbytes + 8);
    GKT_OK(D, gk_copy_to_host(D, cd, b, info.nbytes));
    gk_convert(GK_F64, dv, p.dt, b, (size_t)info.numel);
    GKT_OK(R, gk_copy_to_host(R, cr, b, info.nbytes));
    gk_convert(GK_F64, rv, p.dt, b, (size_t)info.numel);
    free(b);
    gk_tensor_free(D, cd);
    gk_tensor_free(R, cr);
}
static double tol_of(gk_dtype dt) { return dt == GK_F64 ? 1e-12 : dt == GK_F32 ? 2e-5 : dt == GK_F16 ? 3e-3 : 1.6e-2; }
/* max |a-b| / max(max |b|, floor): floor 1 gives an absolute bound below 1, for
   functions with cancellation near 0 (gelu(-6) = -6 * (1 + erf(-4.2)) / 2) */
static double g_floor;
static double relerr_floor(const double *a, const double *b, size_t n) {
    double num = 0, den = g_floor;
    size_t i;
    for (i = 0; i < n; i++) {
        if (isnan(a[i]) != isnan(b[i])) return INFINITY;
        if (isnan(a[i])) continue;
        if (isinf(a[i]) || isinf(b[i])) { if (a[i] != b[i]) return INFINITY; continue; }
        if (fabs(a[i] - b[i]) > num) num = fabs(a[i] - b[i]);
        if (fabs(b[i]) > den) den = fabs(b[i]);
    }
    return den > 0 ? num / den : num;
}
/* device vs reference and reference vs expectation (want may be NULL) */
static void compare(const char *what, pair o, const double *want, double tol) {
    double *dv = (double *)malloc(sizeof(double) * (size_t)(o.n + 1)), *rv = (double *)malloc(sizeof(double) * (size_t)(o.n + 1));
    double e;
    getd(o, dv, rv);
    e = relerr_floor(dv, rv, (size_t)o.n);
    GKT_CHECK(e <= tol, "%s (%s, n=%lld): device vs reference rel err %g > %g", what, gk_dtype_name(o.dt), (long long)o.n, e, tol);
    if (want) {
        e = relerr_floor(rv, want, (size_t)o.n);
        GKT_CHECK(e <= tol, "%s (%s, n=%lld): reference vs expectation rel err %g > %g", what, gk_dtype_name(o.dt), (long long)o.n, e, tol);
    }
    free(dv);
    free(rv);
}
/* the input values as the tensor holds them (rounded to its dtype), row-major over its shape */
static double *vals_of(pair p) {
    double *dv = (double *)malloc(sizeof(double) * (size_t)(p.n + 1)), *rv = (double *)malloc(sizeof(double) * (size_t)(p.n + 1));
    getd(p, dv, rv);
    free(dv);
    return rv;
}

/* ---- unary ---- */
static double un_expect(int op, double x, double p) {
    double r;
    switch (op) {
    case GK_UNARY_EXP: return exp(x);
    case GK_UNARY_LOG: return log(x);
    case GK_UNARY_SQRT: return sqrt(x);
    case GK_UNARY_RSQRT: return 1 / sqrt(x);
    case GK_UNARY_ABS: return fabs(x);
    case GK_UNARY_NEG: return -x;
    case GK_UNARY_SIN: return sin(x);
    case GK_UNARY_COS: return cos(x);
    case GK_UNARY_TANH: return tanh(x);
    case GK_UNARY_SIGMOID: return 1 / (1 + exp(-x));
    case GK_UNARY_RELU: return x < 0 ? 0 : x;
    case GK_UNARY_LEAKY_RELU: return x < 0 ? p * x : x;
    case GK_UNARY_GELU: return 0.5 * x * (1 + erf(x / sqrt(2.0)));
    case GK_UNARY_GELU_TANH: return 0.5 * x * (1 + tanh(sqrt(2 / 3.14159265358979323846) * (x + 0.044715 * x * x * x)));
    case GK_UNARY_SILU: return x / (1 + exp(-x));
    case GK_UNARY_RELU2: r = x < 0 ? 0 : x; return r * r;
    default: return x * p > 20 ? x : log1p(exp(p * x)) / p;
    }
}
static const char *const UN_NAMES[GK_UNARY_COUNT] = { "exp", "log", "sqrt", "rsqrt", "abs", "neg", "sin", "cos", "tanh", "sigmoid",
                                                       "relu", "leaky_relu", "gelu", "gelu_tanh", "silu", "relu2", "softplus" };
static void test_unary(void) {
    int di, op, si;
    g_floor = 1;
    for (di = 0; di < 4; di++)
        for (op = 0; op < GK_UNARY_COUNT; op++)
            for (si = 0; si < 5; si++) {
                gk_dtype dt = FDT[di];
                int64_t n = SIZES[si];
                int pos = op == GK_UNARY_LOG || op == GK_UNARY_SQRT || op == GK_UNARY_RSQRT;
                double prm = op == GK_UNARY_LEAKY_RELU ? 0.01 : op == GK_UNARY_SOFTPLUS ? (si % 2 ? 1.0 : 2.0) : 0;
                pair x = mk_rand(dt, 1, &n, pos ? 0.05 : -6, pos ? 30 : 6), o = mk(dt, 1, &n, NULL);
                double *xv = vals_of(x), *want = (double *)malloc(sizeof(double) * (size_t)n);
                int64_t i;
                char what[64];
                for (i = 0; i < n; i++) want[i] = un_expect(op, xv[i], prm);
                GKT_OK(D, gk_unary(D, o.d, x.d, (gk_unary_op)op, prm));
                GKT_OK(R, gk_unary(R, o.r, x.r, (gk_unary_op)op, prm));
                snprintf(what, sizeof what, "unary %s", UN_NAMES[op]);
                compare(what, o, want, tol_of(dt) * (dt == GK_F32 ? 2 : 1));
                free(xv); free(want); fr(x); fr(o);
            }
    /* a transposed (strided) input, and broadcasting [33] -> [31, 33]; unaligned view for the vector path */
    for (di = 0; di < 4; di++) {
        gk_dtype dt = FDT[di];
        int64_t s2[2] = { 33, 31 }, s1 = 33, so[2] = { 31, 33 }, i, j;
        pair x = mk_rand(dt, 2, s2, -3, 3), t = tview(x), o = mk(dt, 2, so, NULL), b = mk_rand(dt, 1, &s1, -3, 3), o2 = mk(dt, 2, so, NULL);
        double *xv = vals_of(t), *bv = vals_of(b), *w1 = (double *)malloc(sizeof(double) * 31 * 33), *w2 = (double *)malloc(sizeof(double) * 31 * 33);
        for (i = 0; i < 31 * 33; i++) w1[i] = un_expect(GK_UNARY_SILU, xv[i], 0);
        for (i = 0; i < 31; i++) for (j = 0; j < 33; j++) w2[i * 33 + j] = un_expect(GK_UNARY_GELU, bv[j], 0);
        GKT_OK(D, gk_unary(D, o.d, t.d, GK_UNARY_SILU, 0));
        GKT_OK(R, gk_unary(R, o.r, t.r, GK_UNARY_SILU, 0));
        compare("silu transposed", o, w1, tol_of(dt) * 2);
        GKT_OK(D, gk_unary(D, o2.d, b.d, GK_UNARY_GELU, 0));
        GKT_OK(R, gk_unary(R, o2.r, b.r, GK_UNARY_GELU, 0));
        compare("gelu broadcast", o2, w2, tol_of(dt) * 2);
        free(xv); free(bv); free(w1); free(w2);
        gk_tensor_free(D, t.d); gk_tensor_free(R, t.r);
        fr(x); fr(o); fr(b); fr(o2);
    }
    {   /* misaligned contiguous views (offset 1 element) and the _new variant */
        int64_t n = 4098, i;
        pair x = mk_rand(GK_BF16, 1, &n, -4, 4), v = x;
        gk_tensor od, orr;
        pair o;
        double *xv;
        GKT_OK(D, gk_view_slice(D, x.d, 0, 1, n, 1, &v.d));
        GKT_OK(R, gk_view_slice(R, x.r, 0, 1, n, 1, &v.r));
        v.n = n - 1; v.shape[0] = n - 1;
        GKT_OK(D, gk_unary_new(D, v.d, GK_UNARY_SILU, 0, &od));
        GKT_OK(R, gk_unary_new(R, v.r, GK_UNARY_SILU, 0, &orr));
        o = v; o.d = od; o.r = orr;
        xv = vals_of(v);
        for (i = 0; i < n - 1; i++) xv[i] = un_expect(GK_UNARY_SILU, xv[i], 0);
        compare("silu misaligned _new", o, xv, 1.6e-2);
        free(xv); fr(o);
        gk_tensor_free(D, v.d); gk_tensor_free(R, v.r); fr(x);
    }
    /* GELU (erf and tanh forms) of the 16-bit floats element by element over
       [-10, 10] (the contiguous kernels use their own erfc / sigmoid forms):
       each value within half an ulp of the dtype (plus 5%) of the exact one,
       the negative tail included (the CPU reference, 1 + erff in f32, loses
       the tail to cancellation, so this runs only on the GPU) */
    for (di = 2; di < 4 && gk_ctx_backend(D) == GK_BACKEND_CUDA; di++) {
        int64_t n = 4097, i;
        gk_dtype dt = FDT[di];
        double hulp = dt == GK_BF16 ? 1.0 / 256 : 1.0 / 2048, sub = dt == GK_BF16 ? 1e-36 : 3e-8;
        int k;
        for (k = 0; k < 2; k++) {
            int op = k ? GK_UNARY_GELU_TANH : GK_UNARY_GELU;
            pair x = mk_rand(dt, 1, &n, -10, 10), o = mk(dt, 1, &n, NULL);
            double *xv = vals_of(x), *dv = (double *)malloc(sizeof(double) * (size_t)n), *rv = (double *)malloc(sizeof(double) * (size_t)n);
            int badd = 0;
            GKT_OK(D, gk_unary(D, o.d, x.d, (gk_unary_op)op, 0));
            GKT_OK(R, gk_unary(R, o.r, x.r, (gk_unary_op)op, 0));
            getd(o, dv, rv);
            for (i = 0; i < n; i++) {
                /* exact in double without the cancellation of 1 + erf / 1 + tanh: x Phi(x) = x erfc(-x / sqrt2) / 2,
                   x (1 + tanh u) / 2 = x / (1 + exp(-2u)) */
                double xx = xv[i], u = sqrt(2 / 3.14159265358979323846) * (xx + 0.044715 * xx * xx * xx);
                double w = k ? xx / (1 + exp(-2 * u)) : 0.5 * xx * erfc(-xx / sqrt(2.0)), lim = 1.05 * hulp * fabs(w) + sub;
                if (!(fabs(dv[i] - w) <= lim) && badd++ < 3) printf("  %s %s(%.9g): device %.9g exact %.9g\n", gk_dtype_name(dt), UN_NAMES[op], xv[i], dv[i], w);
            }
            GKT_CHECK(badd == 0, "%s %s elementwise: %d device values beyond half an ulp", gk_dtype_name(dt), UN_NAMES[op], badd);
            free(xv); free(dv); free(rv); fr(x); fr(o);
        }
    }
    for (di = 2; di < 4; di++) { /* special values through the packed 16-bit vector path: bit-exact with the reference,
                                   NaNs (any sign or payload) canonical */
        static const uint16_t bfv[10] = { 0x7FC1, 0xFFC1, 0x7F80, 0xFF80, 0x0000, 0x8000, 0x3FC0, 0xC010, 0x0001, 0x8001 };
        static const uint16_t hv[10] = { 0x7E01, 0xFE01, 0x7C00, 0xFC00, 0x0000, 0x8000, 0x3E00, 0xC080, 0x0001, 0x8001 };
        static const int ops[6] = { GK_UNARY_NEG, GK_UNARY_ABS, GK_UNARY_RELU, GK_UNARY_GELU, GK_UNARY_SILU, GK_UNARY_GELU_TANH };
        gk_dtype dt = FDT[di];
        int64_t n = 1030, i;
        uint16_t *in = (uint16_t *)malloc(2 * (size_t)n), *bd = (uint16_t *)malloc(2 * (size_t)n), *br = (uint16_t *)malloc(2 * (size_t)n);
        pair x = mk(dt, 1, &n, NULL), o = mk(dt, 1, &n, NULL);
        int k, bad = 0;
        for (i = 0; i < n; i++) in[i] = (dt == GK_BF16 ? bfv : hv)[i % 10];
        GKT_OK(D, gk_copy_from_host(D, x.d, in, 2 * (size_t)n));
        GKT_OK(R, gk_copy_from_host(R, x.r, in, 2 * (size_t)n));
        for (k = 0; k < 6; k++) {
            GKT_OK(D, gk_unary(D, o.d, x.d, (gk_unary_op)ops[k], 0));
            GKT_OK(R, gk_unary(R, o.r, x.r, (gk_unary_op)ops[k], 0));
            GKT_OK(D, gk_copy_to_host(D, o.d, bd, 2 * (size_t)n));
            GKT_OK(R, gk_copy_to_host(R, o.r, br, 2 * (size_t)n));
            for (i = 0; i < n; i++) {
                int exact = k < 3 || i % 10 < 4; /* NaN / inf in: the same bits out; gelu / silu of finite values: within rounding */
                double a, b, sub = dt == GK_BF16 ? 9.2e-41 : 6.0e-8; /* half the least subnormal may round either way */
                gk_convert(GK_F64, &a, dt, &bd[i], 1);
                gk_convert(GK_F64, &b, dt, &br[i], 1);
                if (exact ? bd[i] != br[i] : !(fabs(a - b) <= 1e-2 * fabs(b) + sub)) {
                    if (bad++ < 3) printf("  %s %s(0x%04x): device 0x%04x reference 0x%04x\n", gk_dtype_name(dt), UN_NAMES[ops[k]], in[i], bd[i], br[i]);
                }
            }
        }
        GKT_CHECK(bad == 0, "%s unary of special values: %d device values differ from the reference bits", gk_dtype_name(dt), bad);
        free(in); free(bd); free(br); fr(x); fr(o);
    }
    {   /* hand-computed values (f32) */
        int64_t n = 4;
        double xv[4] = { -2, -0.5, 0, 3 }, got[4], got2[4];
        pair x = mk(GK_F32, 1, &n, xv), o = mk(GK_F32, 1, &n, NULL);
        GKT_OK(R, gk_unary(R, o.r, x.r, GK_UNARY_RELU2, 0));
        getd(o, got2, got);
        GKT_CHECK(got[0] == 0 && got[1] == 0 && got[2] == 0 && got[3] == 9, "relu2 [-2,-0.5,0,3] -> %g %g %g %g", got[0], got[1], got[2], got[3]);
        GKT_OK(R, gk_unary(R, o.r, x.r, GK_UNARY_LEAKY_RELU, 0.1));
        getd(o, got2, got);
        GKT_CHECK(fabs(got[0] + 0.2) < 1e-7 && got[3] == 3, "leaky_relu(0.1) -2 -> %g", got[0]);
        GKT_OK(R, gk_unary(R, o.r, x.r, GK_UNARY_GELU, 0));
        getd(o, got2, got);
        GKT_CHECK(fabs(got[3] - 2.9959502) < 1e-6 && fabs(got[0] + 0.04550026) < 1e-7, "gelu(3) = %.7f, gelu(-2) = %.8f", got[3], got[0]);
        GKT_OK(R, gk_unary(R, o.r, x.r, GK_UNARY_GELU_TANH, 0));
        getd(o, got2, got);
        GKT_CHECK(fabs(got[3] - 2.9963627) < 1e-6, "gelu_tanh(3) = %.7f", got[3]);
        GKT_OK(R, gk_clamp(R, o.r, x.r, -1, 0.25));
        getd(o, got2, got);
        GKT_CHECK(got[0] == -1 && got[1] == -0.5 && got[2] == 0 && got[3] == 0.25, "clamp -> %g %g %g %g", got[0], got[1], got[2], got[3]);
        fr(x); fr(o);
    }
    for (di = 0; di < 4; di++) { /* clamp, device vs reference, one-sided, every float dtype (each its own contiguous kernel) */
        int64_t s[2] = { 31, 1000 }, i;
        pair x = mk_rand(FDT[di], 2, s, -5, 5), o = mk(FDT[di], 2, s, NULL);
        double *xv = vals_of(x);
        GKT_OK(D, gk_clamp(D, o.d, x.d, -INFINITY, 1.5));
        GKT_OK(R, gk_clamp(R, o.r, x.r, -INFINITY, 1.5));
        for (i = 0; i < 31000; i++) xv[i] = xv[i] > 1.5 ? 1.5 : xv[i];
        compare("clamp", o, xv, 0);
        free(xv); fr(x); fr(o);
    }
}

/* ---- binary, compare, where ---- */
static void test_binary(void) {
    static const gk_dtype bdt[6] = { GK_F32, GK_F64, GK_F16, GK_BF16, GK_I32, GK_I64 };
    int di, op;
    g_floor = 0;
    for (di = 0; di < 6; di++)
        for (op = 0; op < GK_BINARY_COUNT; op++) {
            gk_dtype dt = bdt[di];
            int64_t sa[2] = { 31, 1 }, sb = 33, so[2] = { 31, 33 }, i, j;
            int fl = gk_dtype_is_float(dt);
            pair a, b, o;
            double *av, *bv, *w;
            if (op == GK_BINARY_POW && !fl) continue;
            a = mk_rand(dt, 2, sa, op == GK_BINARY_POW ? 0.1 : -100, op == GK_BINARY_POW ? 4 : 100);
            b = mk_rand(dt, 1, &sb, op == GK_BINARY_POW ? -3 : -100, op == GK_BINARY_POW ? 3 : 100);
            o = mk(dt, 2, so, NULL);
            av = vals_of(a); bv = vals_of(b);
            w = (double *)malloc(sizeof(double) * 31 * 33);
            for (i = 0; i < 31; i++)
                for (j = 0; j < 33; j++)
                    w[i * 33 + j] = op == GK_BINARY_POW ? pow(av[i], bv[j]) : op == GK_BINARY_MAXIMUM ? fmax(av[i], bv[j]) : fmin(av[i], bv[j]);
            GKT_OK(D, gk_binary(D, o.d, a.d, b.d, (gk_binary_op)op));
            GKT_OK(R, gk_binary(R, o.r, a.r, b.r, (gk_binary_op)op));
            compare(op == 0 ? "pow" : op == 1 ? "maximum" : "minimum", o, w, op == GK_BINARY_POW ? tol_of(dt) * 2 : 0);
            free(av); free(bv); free(w); fr(a); fr(b); fr(o);
        }
    for (di = 0; di < 4; di++) /* contiguous equal shapes: the vector kernels */
        for (op = 0; op < GK_BINARY_COUNT; op++) {
            gk_dtype dt = FDT[di];
            int64_t n = 4097, i;
            pair a = mk_rand(dt, 1, &n, 0.1, 4), b = mk_rand(dt, 1, &n, -3, 3), o = mk(dt, 1, &n, NULL);
            double *av = vals_of(a), *bv = vals_of(b);
            for (i = 0; i < n; i++) av[i] = op == GK_BINARY_POW ? pow(av[i], bv[i]) : op == GK_BINARY_MAXIMUM ? fmax(av[i], bv[i]) : fmin(av[i], bv[i]);
            GKT_OK(D, gk_binary(D, o.d, a.d, b.d, (gk_binary_op)op));
            GKT_OK(R, gk_binary(R, o.r, a.r, b.r, (gk_binary_op)op));
            compare("binary contiguous", o, av, op == GK_BINARY_POW ? tol_of(dt) * 2 : 0);
            free(av); free(bv); fr(a); fr(b); fr(o);
        }
    {   /* NaN propagates through maximum / minimum; _new broadcasts */
        int64_t n = 3, one = 1;
        double av[3] = { NAN, 1, -2 }, bv[1] = { 0 }, got[3], g2[3];
        pair a = mk(GK_F32, 1, &n, av), b = mk(GK_F32, 1, &one, bv), o;
        GKT_OK(D, gk_binary_new(D, a.d, b.d, GK_BINARY_MAXIMUM, &o.d));
        GKT_OK(R, gk_binary_new(R, a.r, b.r, GK_BINARY_MAXIMUM, &o.r));
        o.dt = GK_F32; o.n = 3;
        getd(o, g2, got);
        GKT_CHECK(isnan(got[0]) && got[1] == 1 && got[2] == 0 && isnan(g2[0]) && g2[1] == 1 && g2[2] == 0, "maximum with NaN: %g %g %g / %g %g %g",
                  got[0], got[1], got[2], g2[0], g2[1], g2[2]);
        fr(a); fr(b); fr(o);
    }
    {
        static const gk_dtype cdt[6] = { GK_F32, GK_BF16, GK_I32, GK_U8, GK_I64, GK_F8E4M3 };
        for (di = 0; di < 6; di++)
            for (op = 0; op < GK_CMP_COUNT; op++) {
                gk_dtype dt = cdt[di];
                int64_t sa[2] = { 31, 1 }, sb = 33, so[2] = { 31, 33 }, i, j;
                pair a = mk_rand(dt, 2, sa, 0, 6), b = mk_rand(dt, 1, &sb, 0, 6), o = mk(GK_U8, 2, so, NULL);
                double *av = vals_of(a), *bv = vals_of(b), *w = (double *)malloc(sizeof(double) * 31 * 33);
                for (i = 0; i < 31; i++)
                    for (j = 0; j < 33; j++) {
                        double x = av[i], y = bv[j];
                        w[i * 33 + j] = op == 0 ? x == y : op == 1 ? x != y : op == 2 ? x < y : op == 3 ? x <= y : op == 4 ? x > y : x >= y;
                    }
                GKT_OK(D, gk_compare(D, o.d, a.d, b.d, (gk_compare_op)op));
                GKT_OK(R, gk_compare(R, o.r, a.r, b.r, (gk_compare_op)op));
                compare("compare", o, w, 0);
                free(av); free(bv); free(w); fr(a); fr(b); fr(o);
            }
    }
    {   /* mixed strides: a transposed view against a contiguous tensor */
        int64_t st[2] = { 33, 31 }, so[2] = { 31, 33 }, i;
        pair a = mk_rand(GK_F16, 2, st, -4, 4), at = tview(a), b = mk_rand(GK_F16, 2, so, -4, 4), o = mk(GK_U8, 2, so, NULL);
        pair c = mk(GK_F16, 2, so, NULL);
        double *av = vals_of(at), *bv = vals_of(b), *w = (double *)malloc(sizeof(double) * 31 * 33), *w2 = (double *)malloc(sizeof(double) * 31 * 33);
        for (i = 0; i < 31 * 33; i++) { w[i] = av[i] >= bv[i]; w2[i] = fmin(av[i], bv[i]); }
        GKT_OK(D, gk_compare(D, o.d, at.d, b.d, GK_CMP_GE));
        GKT_OK(R, gk_compare(R, o.r, at.r, b.r, GK_CMP_GE));
        compare("compare transposed", o, w, 0);
        GKT_OK(D, gk_binary(D, c.d, at.d, b.d, GK_BINARY_MINIMUM));
        GKT_OK(R, gk_binary(R, c.r, at.r, b.r, GK_BINARY_MINIMUM));
        compare("minimum transposed", c, w2, 0);
        free(av); free(bv); free(w); free(w2);
        gk_tensor_free(D, at.d); gk_tensor_free(R, at.r);
        fr(a); fr(b); fr(o); fr(c);
    }
    {
        static const gk_dtype wdt[3] = { GK_F32, GK_BF16, GK_I64 };
        for (di = 0; di < 3; di++) {
            gk_dtype dt = wdt[di];
            int64_t sc[2] = { 31, 1 }, sa = 33, sb[2] = { 31, 33 }, i, j;
            pair c = mk_rand(GK_U8, 2, sc, 0, 2), a = mk_rand(dt, 1, &sa, -50, 50), b = mk_rand(dt, 2, sb, -50, 50), o = mk(dt, 2, sb, NULL), o2;
            double *cv = vals_of(c), *av = vals_of(a), *bv = vals_of(b), *w = (double *)malloc(sizeof(double) * 31 * 33);
            for (i = 0; i < 31; i++)
                for (j = 0; j < 33; j++) w[i * 33 + j] = cv[i] != 0 ? av[j] : bv[i * 33 + j];
            GKT_OK(D, gk_where(D, o.d, c.d, a.d, b.d));
            GKT_OK(R, gk_where(R, o.r, c.r, a.r, b.r));
            compare("where", o, w, 0);
            GKT_OK(D, gk_where_new(D, c.d, a.d, b.d, &o2.d));
            GKT_OK(R, gk_where_new(R, c.r, a.r, b.r, &o2.r));
            o2.dt = dt; o2.n = 31 * 33;
            compare("where_new", o2, w, 0);
            free(cv); free(av); free(bv); free(w); fr(c); fr(a); fr(b); fr(o); fr(o2);
        }
    }
}

/* ---- GLU and snake ---- */
static double act_of(int op, double g) { return un_expect(op == GK_GLU_SILU ? GK_UNARY_SILU : op == GK_GLU_GELU ? GK_UNARY_GELU : GK_UNARY_GELU_TANH, g, 0); }
static void test_glu_snake(void) {
    int di, op;
    g_floor = 1;
    for (di = 0; di < 4; di++)
        for (op = 0; op < GK_GLU_COUNT; op++) {
            gk_dtype dt = FDT[di];
            int64_t s[2] = { 31, 33 }, sx[2] = { 7, 2002 }, so[2] = { 7, 1001 }, i, j;
            pair g = mk_rand(dt, 2, s, -5, 5), u = mk_rand(dt, 2, s, -2, 2), o = mk(dt, 2, s, NULL);
            pair x = mk_rand(dt, 2, sx, -5, 5), o2 = mk(dt, 2, so, NULL);
            double *gv = vals_of(g), *uv = vals_of(u), *xv = vals_of(x), *w = (double *)malloc(sizeof(double) * 7 * 2002);
            for (i = 0; i < 31 * 33; i++) w[i] = act_of(op, gv[i]) * uv[i];
            GKT_OK(D, gk_glu(D, o.d, g.d, u.d, (gk_glu_op)op));
            GKT_OK(R, gk_glu(R, o.r, g.r, u.r, (gk_glu_op)op));
            compare("glu", o, w, tol_of(dt) * 2);
            for (i = 0; i < 7; i++)
                for (j = 0; j < 1001; j++) w[i * 1001 + j] = act_of(op, xv[i * 2002 + j]) * xv[i * 2002 + 1001 + j];
            GKT_OK(D, gk_glu_split(D, o2.d, x.d, (gk_glu_op)op));
            GKT_OK(R, gk_glu_split(R, o2.r, x.r, (gk_glu_op)op));
            compare("glu_split", o2, w, tol_of(dt) * 2);
            free(gv); free(uv); free(xv); free(w); fr(g); fr(u); fr(o); fr(x); fr(o2);
        }
    {   /* contiguous, aligned: the vector path, and _new */
        int64_t n = 4096 * 4 + 3, i;
        pair g = mk_rand(GK_BF16, 1, &n, -5, 5), u = mk_rand(GK_BF16, 1, &n, -5, 5), o;
        double *gv = vals_of(g), *uv = vals_of(u);
        GKT_OK(D, gk_glu_new(D, g.d, u.d, GK_GLU_SILU, &o.d));
        GKT_OK(R, gk_glu_new(R, g.r, u.r, GK_GLU_SILU, &o.r));
        o.dt = GK_BF16; o.n = n;
        for (i = 0; i < n; i++) gv[i] = act_of(GK_GLU_SILU, gv[i]) * uv[i];
        compare("swiglu _new", o, gv, 1.6e-2);
        free(gv); free(uv); fr(g); fr(u); fr(o);
    }
    for (di = 0; di < 4; di++) { /* split, contiguous rows with 16-byte halves: the row kernel; _new */
        int64_t sx[3] = { 3, 5, 4096 }, i, j;
        pair x = mk_rand(FDT[di], 3, sx, -5, 5), o;
        double *xv = vals_of(x), *w = (double *)malloc(sizeof(double) * 15 * 2048);
        for (i = 0; i < 15; i++)
            for (j = 0; j < 2048; j++) w[i * 2048 + j] = act_of(GK_GLU_GELU_TANH, xv[i * 4096 + j]) * xv[i * 4096 + 2048 + j];
        GKT_OK(D, gk_glu_split_new(D, x.d, GK_GLU_GELU_TANH, &o.d));
        GKT_OK(R, gk_glu_split_new(R, x.r, GK_GLU_GELU_TANH, &o.r));
        o.dt = FDT[di]; o.n = 15 * 2048;
        compare("geglu split rows _new", o, w, tol_of(FDT[di]) * 2);
        free(xv); free(w); fr(x); fr(o);
    }
    for (di = 0; di < 4; di++) {
        gk_dtype dt = FDT[di];
        int64_t s3[3] = { 2, 5, 33 }, s2[2] = { 5, 1000 }, c = 5, i, k;
        pair x = mk_rand(dt, 3, s3, -4, 4), a = mk_rand(dt, 1, &c, 0.2, 3), o = mk(dt, 3, s3, NULL);
        pair x2 = mk_rand(dt, 2, s2, -4, 4), o2 = mk(dt, 2, s2, NULL);
        double *xv = vals_of(x), *av = vals_of(a), *x2v = vals_of(x2);
        for (i = 0; i < 2 * 5 * 33; i++) {
            double al = av[(i / 33) % 5], sn = sin(al * xv[i]);
            xv[i] = xv[i] + sn * sn / (al + 1e-9);
        }
        for (i = 0; i < 5; i++)
            for (k = 0; k < 1000; k++) {
                double v = x2v[i * 1000 + k], sn = sin(av[i] * v);
                x2v[i * 1000 + k] = v + sn * sn / (av[i] + 1e-9);
            }
        GKT_OK(D, gk_snake(D, o.d, x.d, a.d));
        GKT_OK(R, gk_snake(R, o.r, x.r, a.r));
        compare("snake [B,C,T]", o, xv, tol_of(dt) * 2);
        GKT_OK(D, gk_snake(D, o2.d, x2.d, a.d));
        GKT_OK(R, gk_snake(R, o2.r, x2.r, a.r));
        compare("snake [C,T]", o2, x2v, tol_of(dt) * 2);
        {   /* a strided x (transposed view): the general kernel */
            int64_t stc[2] = { 1000, 5 };
            pair xt = mk_rand(dt, 2, stc, -4, 4), xv2 = tview(xt), o3 = mk(dt, 2, s2, NULL);
            double *tv = vals_of(xv2);
            for (i = 0; i < 5; i++)
                for (k = 0; k < 1000; k++) {
                    double v = tv[i * 1000 + k], sn = sin(av[i] * v);
                    tv[i * 1000 + k] = v + sn * sn / (av[i] + 1e-9);
                }
            GKT_OK(D, gk_snake(D, o3.d, xv2.d, a.d));
            GKT_OK(R, gk_snake(R, o3.r, xv2.r, a.r));
            compare("snake strided", o3, tv, tol_of(dt) * 2);
            free(tv);
            gk_tensor_free(D, xv2.d); gk_tensor_free(R, xv2.r);
            fr(xt); fr(o3);
        }
        free(xv); free(av); free(x2v); fr(x); fr(a); fr(o); fr(x2); fr(o2);
    }
    for (di = 0; di < 4; di++) { /* rows of 16-byte vectors, two per thread (4104 elements a row), |alpha x| up to 120 */
        gk_dtype dt = FDT[di];
        int64_t s3[3] = { 3, 5, 4104 }, c = 5, i;
        pair x = mk_rand(dt, 3, s3, -40, 40), a = mk_rand(dt, 1, &c, 0.2, 3), o = mk(dt, 3, s3, NULL);
        double *xv = vals_of(x), *av = vals_of(a);
        for (i = 0; i < 15 * 4104; i++) {
            double al = av[(i / 4104) % 5], sn = sin(al * xv[i]);
            xv[i] = xv[i] + sn * sn / (al + 1e-9);
        }
        GKT_OK(D, gk_snake(D, o.d, x.d, a.d));
        GKT_OK(R, gk_snake(R, o.r, x.r, a.r));
        compare("snake rows of vectors", o, xv, tol_of(dt) * 2);
        free(xv); free(av); fr(x); fr(a); fr(o);
    }
}

/* ---- reductions ---- */
static const char *const RED_NAMES[GK_REDUCE_COUNT] = { "sum", "mean", "max", "min", "argmax", "argmin", "var", "var_unbiased" };
/* expectation over x values (row-major over shape), reducing dim ax (-1: all) */
static void red_expect(int op, const double *xv, int nd, const int64_t *shape, int ax, double *out) {
    int64_t outer = 1, inner = 1, R = 1, o, i, r;
    int d;
    if (ax < 0) { for (d = 0; d < nd; d++) R *= shape[d]; }
    else {
        for (d = 0; d < ax; d++) outer *= shape[d];
        for (d = ax + 1; d < nd; d++) inner *= shape[d];
        R = shape[ax];
    }
    for (o = 0; o < outer; o++)
        for (i = 0; i < inner; i++) {
            double s = 0, s2 = 0, best = op == GK_REDUCE_MAX || op == GK_REDUCE_ARGMAX ? -INFINITY : INFINITY, mean;
            int64_t bi = 0;
            for (r = 0; r < R; r++) {
                double x = xv[(o * R + r) * inner + i];
                s += x;
                if ((op == GK_REDUCE_MAX || op == GK_REDUCE_ARGMAX) ? x > best : x < best) { best = x; bi = r; }
            }
            mean = s / (double)R;
            for (r = 0; r < R; r++) { double dx = xv[(o * R + r) * inner + i] - mean; s2 += dx * dx; }
            out[o * inner + i] = op == GK_REDUCE_SUM ? s : op == GK_REDUCE_MEAN ? mean : op <= GK_REDUCE_MIN ? best
                               : op <= GK_REDUCE_ARGMIN ? (double)bi : op == GK_REDUCE_VAR ? s2 / (double)R : s2 / (double)(R - 1);
        }
}
static void red_case(gk_dtype dt, int op, int nd, const int64_t *shape, int axis, int keepdim, int transposed) {
    pair x = mk_rand(dt, nd, shape, -1, 3), xin = transposed ? tview(x) : x, o;
    int64_t oshape[GK_MAX_DIMS];
    int ond = 0, d, ax = axis == GK_AXIS_ALL ? -1 : axis < 0 ? axis + nd : axis;
    double *xv = vals_of(xin), *want;
    char what[96];
    int arg = op == GK_REDUCE_ARGMAX || op == GK_REDUCE_ARGMIN;
    for (d = 0; d < nd; d++) {
        if (ax < 0 || d == ax) { if (keepdim) oshape[ond++] = 1; }
        else oshape[ond++] = xin.shape[d];
    }
    o = mk(arg ? GK_I64 : dt, ond, oshape, NULL);
    want = (double *)malloc(sizeof(double) * (size_t)(o.n + 1));
    red_expect(op, xv, nd, xin.shape, ax, want);
    GKT_OK(D, gk_reduce(D, o.d, xin.d, (gk_reduce_op)op, axis, keepdim));
    GKT_OK(R, gk_reduce(R, o.r, xin.r, (gk_reduce_op)op, axis, keepdim));
    snprintf(what, sizeof what, "reduce %s axis %d%s%s", RED_NAMES[op], axis, keepdim ? " keepdim" : "", transposed ? " transposed" : "");
    compare(what, o, want, arg || op == GK_REDUCE_MAX || op == GK_REDUCE_MIN ? 0 : tol_of(dt) * (op >= GK_REDUCE_VAR ? 5 : 2));
    free(xv); free(want);
    if (transposed) { gk_tensor_free(D, xin.d); gk_tensor_free(R, xin.r); }
    fr(x); fr(o);
}
static void test_reduce(void) {
    int di, op, si;
    g_floor = 0;
    for (di = 0; di < 4; di++)
        for (op = 0; op < GK_REDUCE_COUNT; op++) {
            gk_dtype dt = FDT[di];
            int64_t s2[2] = { 31, 33 }, s3[3] = { 3, 1000, 5 }, s2b[2] = { 4097, 2 }, big = 100003, s2c[2] = { 2, 40000 };
            for (si = 0; si < 5; si++) red_case(dt, op, 1, &SIZES[si], 0, si & 1, 0);
            red_case(dt, op, 2, s2, 0, 0, 0);
            red_case(dt, op, 2, s2, 1, 1, 0);
            red_case(dt, op, 2, s2, -1, 0, 1);
            red_case(dt, op, 2, s2, GK_AXIS_ALL, 0, 0);
            red_case(dt, op, 3, s3, 1, 1, 0);
            red_case(dt, op, 3, s3, 2, 0, 0);
            red_case(dt, op, 2, s2b, 0, 0, 0);
            red_case(dt, op, 2, s2b, GK_AXIS_ALL, 1, 1);
            {   /* many outputs: the 32 x 8 column kernel (strided dim; short contiguous rows) */
                int64_t sc1[2] = { 67, 4097 }, sc2[2] = { 4097, 3 };
                red_case(dt, op, 2, sc1, 0, 0, 0);
                red_case(dt, op, 2, sc2, 1, 1, 0);
                red_case(dt, op, 2, sc2, 0, 0, 1);
            }
            if (dt == GK_F32 || dt == GK_BF16) {
                int64_t big2 = 300007, s2d[2] = { 3, 300007 };
                int pass, gpu = gk_ctx_backend(D) == GK_BACKEND_CUDA;
                /* rows split into parts on the GPU, merged by the last block of each output
                   (arrival counters), then (tune.ctr_off) by gk_red_fin / gk_red_finb */
                for (pass = 0; pass < 1 + gpu; pass++) {
                    long f0 = gk__tune(D)->red_fused;
                    gk__tune(D)->ctr_off = pass;
                    red_case(dt, op, 1, &big, 0, 0, 0);          /* 25 parts */
                    red_case(dt, op, 1, &big2, 0, 0, 0);         /* 64+ parts */
                    red_case(dt, op, 2, s2d, 1, 0, 0);
                    red_case(dt, op, 2, s2c, 1, 0, 0);
                    gk__tune(D)->ctr_off = 0;
                    if (gpu) GKT_CHECK(gk__tune(D)->red_fused == f0 + (pass ? 0 : 4), "%s %s: %ld split reductions merged by their last block (want %d)",
                                       gk_dtype_name(dt), RED_NAMES[op], gk__tune(D)->red_fused - f0, pass ? 0 : 4);
                }
                red_case(dt, op, 3, s3, GK_AXIS_ALL, 0, 1);
            }
        }
    {   /* split reductions in a CUDA graph: the last block of each output merges its parts
           (arrival counters) and resets its counter, so every replay must give the direct
           call's result exactly (the merge order is fixed) and the CPU reference's */
        int64_t s2[2] = { 3, 300007 }, three = 3;
        pair x = mk_rand(GK_F32, 2, s2, -1, 3), o = mk(GK_F32, 1, &three, NULL);
        double d1[3], r1[3], d2[3], r2[3];
        long f0 = gk__tune(D)->red_fused;
        gk_graph *g = NULL;
        int rep;
        GKT_OK(D, gk_reduce(D, o.d, x.d, GK_REDUCE_MEAN, 1, 0));
        GKT_OK(R, gk_reduce(R, o.r, x.r, GK_REDUCE_MEAN, 1, 0));
        getd(o, d1, r1);
        GKT_OK(D, gk_fill(D, o.d, 0));
        GKT_OK(D, gk_graph_begin(D, NULL));
        GKT_OK(D, gk_reduce(D, o.d, x.d, GK_REDUCE_MEAN, 1, 0));
        GKT_OK(D, gk_graph_end(D, NULL, &g));
        for (rep = 0; rep < 3; rep++) {
            GKT_OK(D, gk_fill(D, o.d, 777));
            GKT_OK(D, gk_graph_launch(D, g, NULL));
            getd(o, d2, r2);
            GKT_CHECK(d2[0] == d1[0] && d2[1] == d1[1] && d2[2] == d1[2], "split mean, graph replay %d: %g %g %g, direct %g %g %g", rep, d2[0], d2[1],
                      d2[2], d1[0], d1[1], d1[2]);
        }
        compare("split mean in a graph", o, NULL, tol_of(GK_F32));
        if (gk_ctx_backend(D) == GK_BACKEND_CUDA) GKT_CHECK(gk__tune(D)->red_fused == f0 + 2, "split mean: %ld of 2 launches merged by their last block", gk__tune(D)->red_fused - f0);
        gk_graph_destroy(D, g);
        fr(x); fr(o);
    }
    {   /* hand cases: ties give the first index, NaN wins, var of [1,2,3,4] */
        int64_t n = 5, one = 1;
        double v[5] = { 1, 4, 2, 4, -1 }, vn[5] = { 1, NAN, 2, NAN, 9 }, got[1], g2[1];
        pair x = mk(GK_F32, 1, &n, v), xn = mk(GK_F32, 1, &n, vn), o = mk(GK_I64, 0, &one, NULL), f = mk(GK_F32, 0, &one, NULL);
        GKT_OK(R, gk_reduce(R, o.r, x.r, GK_REDUCE_ARGMAX, 0, 0));
        getd(o, g2, got);
        GKT_CHECK(got[0] == 1, "argmax [1,4,2,4,-1] = %g (want 1: first of ties)", got[0]);
        GKT_OK(D, gk_reduce(D, o.d, xn.d, GK_REDUCE_ARGMAX, 0, 0));
        GKT_OK(R, gk_reduce(R, o.r, xn.r, GK_REDUCE_ARGMAX, 0, 0));
        getd(o, g2, got);
        GKT_CHECK(got[0] == 1 && g2[0] == 1, "argmax with NaN = %g / %g (want 1, like torch)", g2[0], got[0]);
        GKT_OK(R, gk_reduce(R, f.r, x.r, GK_REDUCE_VAR_UNBIASED, GK_AXIS_ALL, 0));
        getd(f, g2, got);
        GKT_CHECK(fabs(got[0] - 4.5) < 1e-6, "var_unbiased [1,4,2,4,-1] = %g (want 4.5)", got[0]);
        GKT_OK(D, gk_reduce(D, f.d, xn.d, GK_REDUCE_MAX, 0, 0));
        GKT_OK(R, gk_reduce(R, f.r, xn.r, GK_REDUCE_MAX, 0, 0));
        getd(f, g2, got);
        GKT_CHECK(isnan(got[0]) && isnan(g2[0]), "max with NaN = %g / %g (want NaN)", g2[0], got[0]);
        fr(x); fr(xn); fr(o); fr(f);
    }
    {   /* empty reductions: sum 0, mean NaN; _new */
        int64_t s[2] = { 3, 0 };
        pair x = mk(GK_F32, 2, s, NULL), o;
        double g2[3], got[3];
        GKT_OK(D, gk_reduce_new(D, x.d, GK_REDUCE_SUM, 1, 0, &o.d));
        GKT_OK(R, gk_reduce_new(R, x.r, GK_REDUCE_SUM, 1, 0, &o.r));
        o.dt = GK_F32; o.n = 3;
        getd(o, g2, got);
        GKT_CHECK(got[0] == 0 && g2[2] == 0, "sum of nothing = %g / %g", g2[0], got[0]);
        GKT_OK(D, gk_reduce(D, o.d, x.d, GK_REDUCE_MEAN, 1, 0));
        GKT_OK(R, gk_reduce(R, o.r, x.r, GK_REDUCE_MEAN, 1, 0));
        getd(o, g2, got);
        GKT_CHECK(isnan(got[1]) && isnan(g2[1]), "mean of nothing = %g / %g (want NaN)", g2[1], got[1]);
        fr(x); fr(o);
    }
}

/* ---- softmax, log_softmax, cumsum ---- */
/* transposed: 1 a transposed view, 2 the last dim sliced from 1 (unaligned rows, row stride n + 1),
   3 sliced to n - 1 (rows at odd offsets after the first) */
static void sm_case(gk_dtype dt, int nd, const int64_t *shape, int transposed) {
    pair x = mk_rand(dt, nd, shape, -8, 8);
    pair xin = transposed == 1 ? tview(x) : transposed == 2 ? sview(x, 1, shape[nd - 1]) : transposed == 3 ? sview(x, 0, shape[nd - 1] - 1) : x;
    pair o = mk(dt, nd, xin.shape, NULL), lo = mk(dt, nd, xin.shape, NULL);
    int64_t n = xin.shape[nd - 1], rows = xin.n / n, r, j;
    double *xv = vals_of(xin), *w = (double *)malloc(sizeof(double) * (size_t)xin.n), *lw = (double *)malloc(sizeof(double) * (size_t)xin.n);
    double *dv = (double *)malloc(sizeof(double) * (size_t)xin.n), *rv = (double *)malloc(sizeof(double) * (size_t)xin.n);
    int bad = 0;
    for (r = 0; r < rows; r++) {
        double m = -INFINITY, s = 0;
        for (j = 0; j < n; j++) m = fmax(m, xv[r * n + j]);
        for (j = 0; j < n; j++) s += exp(xv[r * n + j] - m);
        for (j = 0; j < n; j++) { w[r * n + j] = exp(xv[r * n + j] - m) / s; lw[r * n + j] = xv[r * n + j] - m - log(s); }
    }
    GKT_OK(D, gk_softmax(D, o.d, xin.d));
    GKT_OK(R, gk_softmax(R, o.r, xin.r));
    compare("softmax", o, w, tol_of(dt) * 2);
    GKT_OK(D, gk_log_softmax(D, lo.d, xin.d));
    GKT_OK(R, gk_log_softmax(R, lo.r, xin.r));
    compare("log_softmax", lo, lw, tol_of(dt) * 2);
    /* identities on the reference (f32 / f64): rows sum to 1, log_softmax = log(softmax) */
    if (dt == GK_F32 || dt == GK_F64) {
        double *ls = (double *)malloc(sizeof(double) * (size_t)xin.n), *l2 = (double *)malloc(sizeof(double) * (size_t)xin.n);
        getd(o, dv, rv);
        getd(lo, ls, l2);
        for (r = 0; r < rows; r++) {
            double s = 0, sd = 0;
            for (j = 0; j < n; j++) {
                s += rv[r * n + j]; sd += dv[r * n + j];
                if (rv[r * n + j] > 1e-30 && fabs(log(rv[r * n + j]) - l2[r * n + j]) > 1e-4 * (1 + fabs(l2[r * n + j]))) bad++;
            }
            if (fabs(s - 1) > 1e-5 || fabs(sd - 1) > 1e-5) bad++;
        }
        GKT_CHECK(bad == 0, "softmax identities: %d bad rows/entries (n=%lld)", bad, (long long)n);
        free(ls); free(l2);
    }
    free(xv); free(w); free(lw); free(dv); free(rv);
    if (transposed) { gk_tensor_free(D, xin.d); gk_tensor_free(R, xin.r); }
    fr(x); fr(o); fr(lo);
}
static void cs_case(gk_dtype dt, int nd, const int64_t *shape, int axis) {
    int ints = !gk_dtype_is_float(dt);
    pair x = mk_rand(dt, nd, shape, ints ? -1000 : -1, ints ? 1000 : 3), o = mk(dt, nd, shape, NULL);
    int64_t outer = 1, inner = 1, n, a, i, j;
    int d, ax = axis < 0 ? axis + nd : axis;
    double *xv = vals_of(x), *w = (double *)malloc(sizeof(double) * (size_t)x.n);
    for (d = 0; d < ax; d++) outer *= shape[d];
    for (d = ax + 1; d < nd; d++) inner *= shape[d];
    n = shape[ax];
    for (a = 0; a < outer; a++)
        for (i = 0; i < inner; i++) {
            double s = 0;
            for (j = 0; j < n; j++) { s += xv[(a * n + j) * inner + i]; w[(a * n + j) * inner + i] = s; }
        }
    GKT_OK(D, gk_cumsum(D, o.d, x.d, axis));
    GKT_OK(R, gk_cumsum(R, o.r, x.r, axis));
    compare("cumsum", o, w, ints ? 0 : tol_of(dt) * 3);
    free(xv); free(w); fr(x); fr(o);
}
static void test_softmax_cumsum(void) {
    int di, si;
    for (di = 0; di < 4; di++) {
        gk_dtype dt = FDT[di];
        int64_t s2[2] = { 4, 1000 }, s3[2] = { 3, 4097 }, st[2] = { 33, 31 }, sv[2] = { 2, 20000 };
        for (si = 0; si < 5; si++) sm_case(dt, 1, &SIZES[si], 0);
        sm_case(dt, 2, s2, 0);
        sm_case(dt, 2, s3, 0);
        sm_case(dt, 2, st, 1);
        sm_case(dt, 2, sv, 0);
        {   /* the one-pass register kernel (rows up to 8192 vectors), its tails, unaligned rows,
               and the split path of few long rows */
            int64_t a1[2] = { 32, 31 }, a2[2] = { 4096, 33 }, a3[2] = { 3, 32000 }, a4[2] = { 3, 4098 }, a5[1] = { 151936 };
            int64_t a6[2] = { 5, 8195 }, a7[2] = { 32, 1000 }, a8[2] = { 2, 32001 };
            sm_case(dt, 2, a1, 0);
            sm_case(dt, 2, a2, 0);
            sm_case(dt, 2, a3, 0);
            sm_case(dt, 2, a4, 2);
            sm_case(dt, 2, a4, 3);
            sm_case(dt, 2, a7, 2);
            sm_case(dt, 2, a6, 0);
            sm_case(dt, 2, a8, 3);
            if (dt == GK_F32 || dt == GK_BF16) {
                /* >= 132 rows (one H200 SM each) of more than 4096 vectors: the 8-vector register kernel */
                int64_t a9[2] = { 140, dt == GK_F32 ? 20001 : 40000 };
                sm_case(dt, 1, a5, 0);
                sm_case(dt, 2, a9, 0);
                sm_case(dt, 2, a9, 3);
            }
        }
    }
    {   /* edge rows on the register path and on the split path: a long row of -inf,
           one with a NaN, one with +inf entries */
        int64_t lens[2] = { 4097, 40000 };
        int li;
        for (li = 0; li < 2; li++) {
            int64_t n = lens[li], s[2] = { 3, n }, j;
            double *v = (double *)malloc(sizeof(double) * (size_t)(3 * n)), *d1 = (double *)malloc(sizeof(double) * (size_t)(3 * n));
            double *r1 = (double *)malloc(sizeof(double) * (size_t)(3 * n)), *d2 = (double *)malloc(sizeof(double) * (size_t)(3 * n));
            double *r2 = (double *)malloc(sizeof(double) * (size_t)(3 * n));
            pair x, o, lo;
            int bad = 0, k;
            for (j = 0; j < n; j++) { v[j] = -INFINITY; v[n + j] = gkt_uniform(-4, 4); v[2 * n + j] = gkt_uniform(-4, 4); }
            v[n + n / 2] = NAN;
            v[2 * n + 7] = INFINITY; v[2 * n + n - 1] = INFINITY;
            x = mk(GK_F32, 2, s, v); o = mk(GK_F32, 2, s, NULL); lo = mk(GK_F32, 2, s, NULL);
            GKT_OK(D, gk_softmax(D, o.d, x.d));
            GKT_OK(R, gk_softmax(R, o.r, x.r));
            GKT_OK(D, gk_log_softmax(D, lo.d, x.d));
            GKT_OK(R, gk_log_softmax(R, lo.r, x.r));
            getd(o, d1, r1);
            getd(lo, d2, r2);
            for (k = 0; k < 2; k++) {
                const double *a = k ? d1 : r1, *b = k ? d2 : r2;
                for (j = 0; j < n; j++) {
                    int inf = j == 7 || j == n - 1;
                    bad += a[j] != 0 || b[j] != -INFINITY;
                    bad += !isnan(a[n + j]) || !isnan(b[n + j]);
                    bad += a[2 * n + j] != (inf ? 0.5 : 0) || (inf ? fabs(b[2 * n + j] - log(0.5)) > 1e-6 : b[2 * n + j] != -INFINITY);
                }
            }
            GKT_CHECK(bad == 0, "softmax edge rows of %lld: %d wrong entries (-inf row, NaN row, +inf entries)", (long long)n, bad);
            free(v); free(d1); free(r1); free(d2); free(r2);
            fr(x); fr(o); fr(lo);
        }
    }
    {   /* defined edge cases: a row of -inf, a NaN, +inf entries; hand-computed [1,2,3] */
        int64_t s[2] = { 4, 3 };
        double v[12] = { -INFINITY, -INFINITY, -INFINITY, 1, NAN, 2, INFINITY, 0, INFINITY, 1, 2, 3 }, d1[12], r1[12], d2[12], r2[12];
        pair x = mk(GK_F32, 2, s, v), o = mk(GK_F32, 2, s, NULL), lo = mk(GK_F32, 2, s, NULL);
        int k, ok = 1;
        GKT_OK(D, gk_softmax(D, o.d, x.d));
        GKT_OK(R, gk_softmax(R, o.r, x.r));
        GKT_OK(D, gk_log_softmax(D, lo.d, x.d));
        GKT_OK(R, gk_log_softmax(R, lo.r, x.r));
        getd(o, d1, r1);
        getd(lo, d2, r2);
        for (k = 0; k < 2; k++) {
            const double *a = k ? d1 : r1, *b = k ? d2 : r2;
            ok &= a[0] == 0 && a[1] == 0 && a[2] == 0 && b[0] == -INFINITY && b[2] == -INFINITY;
            ok &= isnan(a[3]) && isnan(a[4]) && isnan(a[5]) && isnan(b[4]);
            ok &= a[6] == 0.5 && a[7] == 0 && a[8] == 0.5 && fabs(b[6] - log(0.5)) < 1e-6 && b[7] == -INFINITY;
            ok &= fabs(a[9] - 0.09003057) < 1e-7 && fabs(a[10] - 0.24472847) < 1e-7 && fabs(a[11] - 0.66524096) < 1e-7;
            ok &= fabs(b[11] + 0.40760596) < 1e-6;
        }
        GKT_CHECK(ok, "softmax edge cases (-inf row, NaN, +inf, [1,2,3]): ref %g %g %g | %g %g %g | %g %g %g | %g %g %g", r1[0], r1[1], r1[2], r1[3],
                  r1[4], r1[5], r1[6], r1[7], r1[8], r1[9], r1[10], r1[11]);
        fr(x); fr(o); fr(lo);
    }
    {
        static const gk_dtype cdt[6] = { GK_F32, GK_F64, GK_F16, GK_BF16, GK_I32, GK_I64 };
        for (di = 0; di < 6; di++) {
            int64_t s2[2] = { 31, 1000 }, s3[3] = { 3, 300, 7 };
            for (si = 0; si < 5; si++) cs_case(cdt[di], 1, &SIZES[si], 0);
            cs_case(cdt[di], 2, s2, 0);
            cs_case(cdt[di], 2, s2, 1);
            cs_case(cdt[di], 3, s3, 1);
            cs_case(cdt[di], 3, s3, -1);
        }
    }
}

/* ---- top-k ---- */
/* transposed: 1 a transposed view (strided rows), 2 many ties (values 0..3) */
static void tk_case(gk_dtype dt, int64_t rows, int64_t n, int64_t k, int transposed) {
    int64_t s[2] = { rows, n }, so[2] = { rows, k }, st[2] = { n, rows }, r, j;
    pair x = transposed == 1 ? mk_rand(dt, 2, st, -100, 100) : transposed == 2 ? mk_rand(GK_I32, 2, s, 0, 4) : mk_rand(dt, 2, s, -100, 100);
    pair xin;
    if (transposed == 2) { /* integer values 0..3 in dt: every value shared by a quarter of the row */
        pair c = mk(dt, 2, s, NULL);
        GKT_OK(D, gk_cast(D, c.d, x.d));
        GKT_OK(R, gk_cast(R, c.r, x.r));
        fr(x);
        x = c;
    }
    xin = transposed == 1 ? tview(x) : x;
    pair v = mk(dt, 2, so, NULL), ix = mk(GK_I64, 2, so, NULL);
    double *xv = vals_of(xin), *vd = (double *)malloc(sizeof(double) * (size_t)(rows * k + 1)), *vr = (double *)malloc(sizeof(double) * (size_t)(rows * k + 1));
    double *id = (double *)malloc(sizeof(double) * (size_t)(rows * k + 1)), *ir = (double *)malloc(sizeof(double) * (size_t)(rows * k + 1));
    int bad = 0;
    GKT_OK(D, gk_topk(D, v.d, ix.d, xin.d, k));
    GKT_OK(R, gk_topk(R, v.r, ix.r, xin.r, k));
    getd(v, vd, vr);
    getd(ix, id, ir);
    for (r = 0; r < rows; r++)
        for (j = 0; j < k; j++) {
            int64_t q = r * k + j, i = (int64_t)ir[q], cnt = 0, t;
            if (vd[q] != vr[q] || id[q] != ir[q]) bad++;                          /* device == reference exactly */
            if (i < 0 || i >= n || xv[r * n + i] != vr[q]) { bad++; continue; }   /* value at the index */
            if (j > 0 && (vr[q] > vr[q - 1] || (vr[q] == vr[q - 1] && ir[q] < ir[q - 1]))) bad++; /* sorted, ties by index */
            for (t = 0; t < n; t++) cnt += xv[r * n + t] > vr[q] || (xv[r * n + t] == vr[q] && t < i);
            if (cnt != j) bad++;                                                  /* exactly j entries rank above it */
        }
    GKT_CHECK(bad == 0, "topk %s rows %lld n %lld k %lld%s: %d mismatches", gk_dtype_name(dt), (long long)rows, (long long)n, (long long)k,
              transposed == 1 ? " transposed" : transposed == 2 ? " ties" : "", bad);
    free(xv); free(vd); free(vr); free(id); free(ir);
    if (transposed == 1) { gk_tensor_free(D, xin.d); gk_tensor_free(R, xin.r); }
    fr(x); fr(v); fr(ix);
}
static void test_topk(void) {
    static const gk_dtype tdt[3] = { GK_F32, GK_F16, GK_BF16 };
    int di, si;
    for (di = 0; di < 3; di++) {
        gk_dtype dt = tdt[di];
        for (si = 0; si < 5; si++) { tk_case(dt, 2, SIZES[si], 1, 0); tk_case(dt, 1, SIZES[si], SIZES[si], 0); }
        tk_case(dt, 4, 1000, 5, 0);
        tk_case(dt, 3, 4097, 100, 0);
        tk_case(dt, 5, 33, 7, 1);
        tk_case(dt, 2, 5000, 4097, 0); /* sorted in the workspace on the GPU */
        tk_case(dt, 1, 151936, 50, 0);
        /* the two-kernel path (rows >= 16384, k <= 256): parts, a short last part, strides, ties */
        tk_case(dt, 3, 32000, 100, 0);
        tk_case(dt, 2, 16385, 256, 0);
        tk_case(dt, 3, 16384, 1, 0);
        tk_case(dt, 2, 20000, 7, 1);
        tk_case(dt, 2, 40000, 200, 2);
        tk_case(dt, 2, 1000, 50, 2);
    }
    {   /* ties by lower index; NaN ranks first; _new */
        int64_t n = 6;
        double v[6] = { 1, 3, NAN, 3, 2, 3 }, vd[3], vr[3], id[3], ir[3];
        pair x = mk(GK_F32, 1, &n, v), vv, ii;
        GKT_OK(D, gk_topk_new(D, x.d, 3, &vv.d, &ii.d));
        GKT_OK(R, gk_topk_new(R, x.r, 3, &vv.r, &ii.r));
        vv.dt = GK_F32; vv.n = 3; ii.dt = GK_I64; ii.n = 3;
        getd(vv, vd, vr);
        getd(ii, id, ir);
        GKT_CHECK(isnan(vr[0]) && ir[0] == 2 && vr[1] == 3 && ir[1] == 1 && ir[2] == 3 && id[0] == 2 && id[1] == 1 && id[2] == 3,
                  "topk ties: idx %g %g %g (device %g %g %g), want 2 1 3", ir[0], ir[1], ir[2], id[0], id[1], id[2]);
        fr(x); fr(vv); fr(ii);
    }
}

/* ---- Philox and sampling ---- */
static void test_philox(void) {
    /* known-answer vectors of Random123 (kat_vectors: philox4x32 10 rounds) */
    uint32_t c0[4] = { 0, 0, 0, 0 }, k0[2] = { 0, 0 }, c1[4] = { 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu }, k1[2] = { 0xffffffffu, 0xffffffffu };
    uint32_t c2[4] = { 0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u }, k2[2] = { 0xa4093822u, 0x299f31d0u }, o[4];
    gk_philox4x32_10(c0, k0, o);
    GKT_CHECK(o[0] == 0x6627e8d5u && o[1] == 0xe169c58du && o[2] == 0xbc57ac4cu && o[3] == 0x9b00dbd8u, "philox(0,0) = %08x %08x %08x %08x", o[0], o[1], o[2], o[3]);
    gk_philox4x32_10(c1, k1, o);
    GKT_CHECK(o[0] == 0x408f276du && o[1] == 0x41c83b0eu && o[2] == 0xa20bc7c6u && o[3] == 0x6d5451fdu, "philox(ff,ff) = %08x %08x %08x %08x", o[0], o[1], o[2], o[3]);
    gk_philox4x32_10(c2, k2, o);
    GKT_CHECK(o[0] == 0xd16cfe09u && o[1] == 0x94fdccebu && o[2] == 0x5001e420u && o[3] == 0x24126ea1u, "philox(pi) = %08x %08x %08x %08x", o[0], o[1], o[2], o[3]);
}
/* gk_randn: the device against the CPU reference; the reference against Box-Muller in double over
   gk_philox4x32_10; offsets continue the stream; the statistics of N(0, 1); errors */
/* *radius: the exact sqrt(-2 log u1). The f32 method rounds u1 = (k + 0.5) / 2^24 to f32 where it
   needs 25 bits (u1 >= 0.5): -2 log u1 moves by up to 2^-23, the radius by up to min(2^-23 / (2 r),
   sqrt(2^-23)), which is large only where r is small (u1 near 1) */
static double randn_ref(uint64_t j, uint64_t seed, double *radius) {
    uint32_t c[4], k[2], o[4];
    uint64_t b = j / 4;
    int w = (int)(j % 4) & 2;
    double u1, u2;
    c[0] = (uint32_t)b; c[1] = (uint32_t)(b >> 32); c[2] = c[3] = 0;
    k[0] = (uint32_t)seed; k[1] = (uint32_t)(seed >> 32);
    gk_philox4x32_10(c, k, o);
    u1 = ((double)(o[w] >> 8) + 0.5) / 16777216.0;
    u2 = ((double)(o[w + 1] >> 8) + 0.5) / 16777216.0;
    *radius = sqrt(-2 * log(u1));
    return *radius * (j % 2 ? sin(6.283185307179586 * u2) : cos(6.283185307179586 * u2));
}
static void test_randn(void) {
    static const int64_t ns[5] = { 1, 3, 33, 4097, 100000 };
    uint64_t seed = gkt_u64(), off;
    int i;
    for (i = 0; i < 5; i++)
        for (off = 0; off < 8; off += 5) {
            int64_t n = ns[i], j;
            pair p = mk(GK_F32, 1, &n, NULL);
            double *d = (double *)malloc(sizeof(double) * (size_t)n), *r = (double *)malloc(sizeof(double) * (size_t)n), wd = 0, wr = 0, mean = 0, var = 0, amax = 0;
            GKT_OK(D, gk_randn(D, p.d, seed, off));
            GKT_OK(R, gk_randn(R, p.r, seed, off));
            getd(p, d, r);
            for (j = 0; j < n; j++) {
                double rad, e = randn_ref(off + (uint64_t)j, seed, &rad), du = ldexp(1.0, -23);
                double slack = rad > 0 ? fmin(du / (2 * rad), sqrt(du)) : sqrt(du); /* u1's rounding (randn_ref) */
                if (fabs(d[j] - r[j]) > wd) wd = fabs(d[j] - r[j]);
                if (fabs(r[j] - e) - slack > wr) wr = fabs(r[j] - e) - slack;
                mean += r[j];
                if (fabs(r[j]) > amax) amax = fabs(r[j]);
            }
            mean /= (double)n;
            for (j = 0; j < n; j++) var += (r[j] - mean) * (r[j] - mean);
            var /= (double)n;
            GKT_CHECK(wd <= 2e-6 * 6 && wr <= 2e-6 * 6, "randn n %lld offset %llu: device off by %.3g, reference off by %.3g (beyond u1's rounding) from double Box-Muller", (long long)n,
                      (unsigned long long)off, wd, wr);
            GKT_CHECK(amax < 5.9, "randn: |x| up to %g", amax);
            if (n == 100000) GKT_CHECK(fabs(mean) < 0.015 && fabs(var - 1) < 0.02, "randn: mean %.4g, variance %.4g over %lld", mean, var, (long long)n);
            free(d);
            free(r);
            fr(p);
        }
    {   /* an offset continues the stream: [7, 107) = 100 numbers from offset 7; another seed differs */
        int64_t n1 = 107, n2 = 100, j;
        pair a = mk(GK_F32, 1, &n1, NULL), b = mk(GK_F32, 1, &n2, NULL), c = mk(GK_F32, 1, &n2, NULL);
        double ad[107], ar[107], bd[100], br[100], cd[100], cr[100];
        int same = 1, diff = 0;
        GKT_OK(D, gk_randn(D, a.d, seed, 0)); GKT_OK(R, gk_randn(R, a.r, seed, 0));
        GKT_OK(D, gk_randn(D, b.d, seed, 7)); GKT_OK(R, gk_randn(R, b.r, seed, 7));
        GKT_OK(D, gk_randn(D, c.d, seed + 1, 7)); GKT_OK(R, gk_randn(R, c.r, seed + 1, 7));
        getd(a, ad, ar); getd(b, bd, br); getd(c, cd, cr);
        for (j = 0; j < n2; j++) {
            same &= ad[j + 7] == bd[j] && ar[j + 7] == br[j];
            diff += cr[j] != br[j];
        }
        GKT_CHECK(same, "randn: offset 7 continues the stream of offset 0");
        GKT_CHECK(diff > 90, "randn: another seed gives other numbers (%d of 100 differ)", diff);
        fr(a); fr(b); fr(c);
    }
    {   /* errors: f16 out, a non-contiguous out */
        int64_t sh[2] = { 4, 6 };
        pair h = mk(GK_F16, 2, sh, NULL), f = mk(GK_F32, 2, sh, NULL), t = tview(f);
        GKT_FAILS(D, gk_randn(D, h.d, 1, 0), GK_ERR_DTYPE, "gk_randn: out is f16");
        GKT_FAILS(D, gk_randn(D, t.d, 1, 0), GK_ERR_UNSUPPORTED, "out must be contiguous");
        gk_tensor_free(D, t.d); gk_tensor_free(R, t.r);
        fr(h); fr(f);
    }
}

/* tokens of one sampling call on both sides */
static void sample2(pair tok, pair lg, pair prev, int hasprev, const gk_sample_desc *d, double *td, double *tr) {
    gk_tensor nul;
    nul.id = 0;
    GKT_OK(D, gk_sample(D, tok.d, lg.d, hasprev ? prev.d : nul, d));
    GKT_OK(R, gk_sample(R, tok.r, lg.r, hasprev ? prev.r : nul, d));
    getd(tok, td, tr);
}
static void test_sample(void) {
    static const gk_dtype sdt[3] = { GK_F32, GK_F16, GK_BF16 };
    int di, c, b;
    for (di = 0; di < 3; di++)
        for (c = 0; c < 7; c++) {
            int64_t B = 8, V = c == 6 ? 151936 : c == 5 ? 5000 : 1000, s[2], sp[2] = { 8, 40 }, i;
            pair lg, tok, prev;
            double *lv, td[8], tr[8], t2[8], t3[8], pv[8 * 40];
            gk_sample_desc d;
            int bad = 0, same = 0;
            s[0] = B; s[1] = V;
            lg = mk_rand(sdt[di], 2, s, -4, 4);
            tok = mk(GK_I32, 1, &B, NULL);
            for (i = 0; i < 8 * 40; i++) pv[i] = i % 7 == 6 ? -1 : floor(gkt_uniform(0, 50));
            prev = mk(GK_I32, 2, sp, pv);
            lv = vals_of(lg);
            memset(&d, 0, sizeof d);
            d.seed = gkt_u64();
            d.step = 17;
            switch (c) {
            case 0: break;                                                            /* greedy */
            case 1: d.temperature = 1.0f; break;                                      /* full vocabulary */
            case 2: d.temperature = 0.8f; d.top_k = 40; d.top_p = 0.9f; d.min_p = 0.05f; break;
            case 3: d.temperature = 1.2f; d.top_p = 0.5f; d.repetition_penalty = 1.3f; d.presence_penalty = 0.4f; d.frequency_penalty = 0.2f; break;
            case 4: d.temperature = 0.7f; d.top_k = 1000; d.min_p = 0.1f; break;    /* top_k == vocab: off */
            case 5: d.temperature = 1.0f; d.top_k = 4500; break;                      /* sorted in the workspace */
            default: d.temperature = 0.9f; d.top_k = 50; d.top_p = 0.95f; d.repetition_penalty = 1.1f; break;
            }
            sample2(tok, lg, prev, c >= 3, &d, td, tr);
            for (b = 0; b < 8; b++) {
                if (td[b] != tr[b]) bad++;
                if (tr[b] < 0 || tr[b] >= V) bad++;
                if (c == 0) { /* greedy == argmax (first occurrence) */
                    int64_t am = 0;
                    for (i = 1; i < V; i++) if (lv[b * V + i] > lv[b * V + am]) am = i;
                    if (tr[b] != am) bad++;
                }
                if (c == 2 || c == 6) { /* within the top_k */
                    int64_t above = 0;
                    for (i = 0; i < V; i++) above += lv[b * V + i] > lv[b * V + (int64_t)tr[b]];
                    if (above >= d.top_k) bad++;
                }
            }
            GKT_CHECK(bad == 0, "sample case %d %s V=%lld: %d bad (device %g %g %g, ref %g %g %g)", c, gk_dtype_name(sdt[di]), (long long)V, bad,
                      td[0], td[1], td[2], tr[0], tr[1], tr[2]);
            sample2(tok, lg, prev, c >= 3, &d, t2, t3);
            for (b = 0; b < 8; b++) same += t2[b] == td[b] && t3[b] == tr[b];
            GKT_CHECK(same == 8, "sample case %d: the same seed gave different tokens", c);
            free(lv); fr(lg); fr(tok); fr(prev);
        }
    for (di = 0; di < 3; di++) { /* greedy over many blocks per row (V >= 8192, no penalties): ties, NaN, -inf, +inf, strided rows */
        int64_t B = 4, V = 40000, s[2], st[2], i;
        double *lv = (double *)malloc(sizeof(double) * (size_t)(B * V)), *lt = (double *)malloc(sizeof(double) * (size_t)(B * V));
        double td[4], tr[4], want[4] = { 30000, -1, 39999, 4 };
        gk_sample_desc d;
        pair lg, lg2, lgt, tok;
        int tr_i, bad = 0;
        s[0] = B; s[1] = V; st[0] = V; st[1] = B;
        for (i = 0; i < B * V; i++) lv[i] = gkt_uniform(-4, 4);
        lv[30000] = 10; lv[35000] = 10; lv[100] = NAN;                    /* row 0: first of two maxima */
        for (i = 0; i < V; i++) lv[V + i] = i % 3 ? -INFINITY : NAN;      /* row 1: nothing finite: -1 */
        lv[2 * V + 5] = NAN; lv[2 * V + 39999] = INFINITY;                /* row 2: +inf wins */
        lv[3 * V + 4] = 9; lv[3 * V + 8191] = 9; lv[3 * V + 8192] = 9;    /* row 3: ties across parts */
        for (i = 0; i < B * V; i++) lt[(i % V) * B + i / V] = lv[i];
        memset(&d, 0, sizeof d);
        lg = mk(sdt[di], 2, s, lv);
        tok = mk(GK_I32, 1, &B, NULL);
        for (tr_i = 0; tr_i < 2; tr_i++) {
            gk_tensor nul;
            nul.id = 0;
            lg2 = tr_i ? mk(sdt[di], 2, st, lt) : lg;
            lgt = tr_i ? tview(lg2) : lg;
            GKT_OK(D, gk_sample(D, tok.d, lgt.d, nul, &d));
            GKT_OK(R, gk_sample(R, tok.r, lgt.r, nul, NULL));
            getd(tok, td, tr);
            for (i = 0; i < B; i++) bad += td[i] != want[i] || tr[i] != want[i];
            if (tr_i) { gk_tensor_free(D, lgt.d); gk_tensor_free(R, lgt.r); fr(lg2); }
        }
        GKT_CHECK(bad == 0, "greedy split %s: %d bad (device %g %g %g %g, ref %g %g %g %g)", gk_dtype_name(sdt[di]), bad, td[0], td[1], td[2], td[3],
                  tr[0], tr[1], tr[2], tr[3]);
        free(lv); free(lt); fr(lg); fr(tok);
    }
    {   /* frequencies over many rows (each row its own counter) match the probabilities */
        int64_t B = 20000, V = 5, s[2], i;
        double *lv = (double *)malloc(sizeof(double) * (size_t)(B * V)), *td = (double *)malloc(sizeof(double) * (size_t)B), *tr = (double *)malloc(sizeof(double) * (size_t)B);
        double base[5] = { 0.5, 1.5, -1, 1.0, 0.2 }, p[5], z = 0, cnt[5], cntd[5];
        gk_sample_desc d;
        pair lg, tok, prev;
        int k, ok = 1, cfg;
        s[0] = B; s[1] = V;
        for (i = 0; i < B * V; i++) lv[i] = base[i % V];
        lg = mk(GK_F32, 2, s, lv);
        tok = mk(GK_I32, 1, &B, NULL);
        prev = lg;
        for (cfg = 0; cfg < 3; cfg++) {
            memset(&d, 0, sizeof d);
            d.temperature = cfg == 1 ? 0.5f : 1.0f;
            d.seed = gkt_u64();
            if (cfg == 2) d.top_k = 3; /* tokens 1, 3, 0 */
            z = 0;
            for (k = 0; k < 5; k++) { p[k] = (cfg == 2 && (k == 2 || k == 4)) ? 0 : exp(base[k] / d.temperature); z += p[k]; }
            for (k = 0; k < 5; k++) { p[k] /= z; cnt[k] = 0; cntd[k] = 0; }
            sample2(tok, lg, prev, 0, &d, td, tr);
            for (i = 0; i < B; i++) {
                if (tr[i] >= 0 && tr[i] < 5) cnt[(int)tr[i]]++;
                if (td[i] >= 0 && td[i] < 5) cntd[(int)td[i]]++;
            }
            for (k = 0; k < 5; k++) {
                double sd = sqrt(p[k] * (1 - p[k]) / (double)B);
                if (fabs(cnt[k] / (double)B - p[k]) > 5 * sd + 1e-9 || cnt[k] != cntd[k]) ok = 0;
            }
            GKT_CHECK(ok, "sampling frequencies (config %d): %g %g %g %g %g vs p %g %g %g %g %g", cfg, cnt[0] / B, cnt[1] / B, cnt[2] / B, cnt[3] / B,
                      cnt[4] / B, p[0], p[1], p[2], p[3], p[4]);
        }
        free(lv); free(td); free(tr); fr(lg); fr(tok);
    }
    {   /* penalties, hand-computed: logits [2, -2, 1], prev [0, 1, 0, -1] */
        int64_t s[2] = { 1, 3 }, sp[2] = { 1, 4 }, one = 1;
        double lv[3] = { 2, -2, 1 }, pv[4] = { 0, 1, 0, -1 }, td[1], tr[1];
        pair lg = mk(GK_F32, 2, s, lv), prev = mk(GK_I32, 2, sp, pv), tok = mk(GK_I32, 1, &one, NULL);
        gk_sample_desc d;
        memset(&d, 0, sizeof d);
        d.repetition_penalty = 2; /* [1, -4, 1]: greedy ties -> 0 */
        sample2(tok, lg, prev, 1, &d, td, tr);
        GKT_CHECK(tr[0] == 0 && td[0] == 0, "repetition penalty: token %g / %g (want 0)", tr[0], td[0]);
        d.presence_penalty = 0.5f; d.frequency_penalty = 0.25f; /* [1 - 1, -4.75, 1] -> 2 */
        sample2(tok, lg, prev, 1, &d, td, tr);
        GKT_CHECK(tr[0] == 2 && td[0] == 2, "presence + frequency penalties: token %g / %g (want 2)", tr[0], td[0]);
        d.repetition_penalty = 0; d.presence_penalty = 0; d.frequency_penalty = 0; d.temperature = 1; d.top_p = 0.5f; /* only token 0 (p 0.67) */
        sample2(tok, lg, prev, 0, &d, td, tr);
        GKT_CHECK(tr[0] == 0 && td[0] == 0, "top_p 0.5 keeps only the top token: %g / %g", tr[0], td[0]);
        d.top_p = 0; d.min_p = 0.5f; /* p1/p0 = e^-1 < 0.5: only token 0 */
        sample2(tok, lg, prev, 0, &d, td, tr);
        GKT_CHECK(tr[0] == 0 && td[0] == 0, "min_p 0.5 keeps only the top token: %g / %g", tr[0], td[0]);
        fr(lg); fr(prev); fr(tok);
    }
    {   /* +inf logits share the draw; tokens of weight 0 (pruned before the sort on the GPU) never drawn */
        int64_t s[2] = { 64, 1000 }, B = 64, i;
        double *lv = (double *)malloc(sizeof(double) * 64 * 1000), td[64], tr[64];
        pair lg, tok;
        gk_sample_desc d;
        int bad = 0, k;
        for (i = 0; i < 64 * 1000; i++) lv[i] = i % 2 ? -100 + gkt_uniform(-1, 1) : gkt_uniform(-3, 3);
        for (i = 0; i < 8; i++) { lv[i * 1000 + 5] = INFINITY; lv[i * 1000 + 700] = INFINITY; }
        lg = mk(GK_F32, 2, s, lv);
        tok = mk(GK_I32, 1, &B, NULL);
        for (k = 0; k < 3; k++) {
            memset(&d, 0, sizeof d);
            d.temperature = 1; d.seed = gkt_u64(); d.step = (uint64_t)k;
            d.top_p = k == 0 ? 0.95f : 0; d.top_k = k == 1 ? 600 : 0; d.min_p = k == 2 ? 0.01f : 0;
            sample2(tok, lg, lg, 0, &d, td, tr);
            for (i = 0; i < 64; i++) {
                if (td[i] != tr[i] || tr[i] < 0 || tr[i] >= 1000) { bad++; continue; }
                if (i < 8) { bad += tr[i] != 5 && tr[i] != 700; continue; }
                if ((int64_t)tr[i] % 2) bad++;
            }
        }
        GKT_CHECK(bad == 0, "sampling with +inf and weight-0 logits: %d bad", bad);
        free(lv); fr(lg); fr(tok);
    }
    {   /* the device's many-blocks paths (each row split into parts; temperature, 0 < top_k <= 1024, greedy
           with penalties) and the one-block path beside them, against the reference: vocab of 1, smaller than
           a part, not a multiple of the part; batch 1 and > 8; top_k above a part's candidate count, 1024,
           1025 (one block per row), == vocab (off); rows with one finite logit, none, +inf, NaN, half -inf,
           all but one of weight 0 */
        static const int64_t shapes[7][2] = { { 1, 1 }, { 3, 37 }, { 1, 1025 }, { 13, 4097 }, { 1, 8193 }, { 9, 40000 }, { 1, 151936 } };
        static const struct { float T; int k; float p, mp, rep, pres; } cf[11] = {
            { 1, 0, 0, 0, 0, 0 }, { 0.8f, 0, 0, 0.05f, 0, 0 }, { 1.2f, 0, 0, 0, 1.3f, 0.4f }, { 0, 0, 0, 0, 1.3f, 0.4f },
            { 1, 1, 0, 0, 0, 0 }, { 0.9f, 50, 0.95f, 0, 1.1f, 0 }, { 0.8f, 40, 0.9f, 0.05f, 0, 0 }, { 1, 600, 0, 0, 0, 0 },
            { 1, 1024, 0.99f, 0, 0, 0.5f }, { 1, 1025, 0, 0, 0, 0 }, { 1, -1 /* top_k = vocab */, 0, 0.1f, 0, 0 } };
        int si, ci, var, bad = 0, nrun = 0;
        for (di = 0; di < 3; di++)
            for (si = 0; si < 7; si++)
                for (var = 0; var < 2; var++) {
                    int64_t B = shapes[si][0], V = shapes[si][1], s[2], sp[2], i, nb = B * V;
                    double *lv = (double *)malloc(sizeof(double) * (size_t)nb), *td = (double *)malloc(sizeof(double) * (size_t)B);
                    double *tr = (double *)malloc(sizeof(double) * (size_t)B), *pv = (double *)malloc(sizeof(double) * (size_t)B * 40);
                    int *type = (int *)malloc(sizeof(int) * (size_t)B);
                    pair lg, tok, prev;
                    if (var && si == 6 && di != 2) { free(lv); free(td); free(tr); free(pv); free(type); continue; } /* time */
                    s[0] = B; s[1] = V; sp[0] = B; sp[1] = 40;
                    for (i = 0; i < nb; i++) lv[i] = gkt_uniform(-4, 4);
                    for (b = 0; b < B; b++) {
                        double *r = lv + b * V;
                        int64_t f = V - 1 - (b * 31) % V;
                        type[b] = var ? (int)((b + si) % 6) : -1;
                        if (type[b] == 0) { for (i = 0; i < V; i++) r[i] = -INFINITY; r[f] = 1.5; }         /* one finite: f */
                        else if (type[b] == 1) { for (i = 0; i < V; i++) r[i] = i % 3 ? -INFINITY : NAN; } /* none: -1 */
                        else if (type[b] == 2) { r[(b * 7919) % V] = INFINITY; r[V - 1] = INFINITY; r[0] = NAN; }
                        else if (type[b] == 3) { for (i = 0; i < V; i += 5) r[i] = NAN; }
                        else if (type[b] == 4) { for (i = 1; i < V; i += 2) r[i] = -INFINITY; r[V / 2 - V / 2 % 2] = 30; }
                        else if (type[b] == 5) { for (i = 0; i < V; i++) r[i] = -100 + gkt_uniform(-1, 1); r[V - 1] = 3; }
                    }
                    for (i = 0; i < B * 40; i++) pv[i] = i % 7 == 6 ? -1 : i % 11 == 3 ? (double)(V + 5) : floor(gkt_uniform(0, V < 50 ? (double)V : 50));
                    lg = mk(sdt[di], 2, s, lv);
                    free(lv);
                    lv = vals_of(lg); /* as the dtype holds them */
                    tok = mk(GK_I32, 1, &B, NULL);
                    prev = mk(GK_I32, 2, sp, pv);
                    for (ci = 0; ci < 11; ci++) {
                        gk_sample_desc d;
                        int pen = cf[ci].rep != 0 || cf[ci].pres != 0, rowbad = 0;
                        if (si == 6 && ci != 0 && ci != 2 && ci != 5 && ci != 8) continue; /* time */
                        memset(&d, 0, sizeof d);
                        d.temperature = cf[ci].T; d.top_k = cf[ci].k < 0 ? (int)V : cf[ci].k; d.top_p = cf[ci].p; d.min_p = cf[ci].mp;
                        d.repetition_penalty = cf[ci].rep; d.presence_penalty = cf[ci].pres;
                        d.seed = gkt_u64(); d.step = (uint64_t)ci;
                        sample2(tok, lg, prev, pen, &d, td, tr);
                        nrun++;
                        for (b = 0; b < B; b++) {
                            const double *r = lv + b * V;
                            int64_t t = (int64_t)tr[b];
                            int ok = td[b] == tr[b] && (t == -1 ? type[b] == 1 : t >= 0 && t < V && type[b] != 1 && !(r[t] == -INFINITY) && !isnan(r[t]));
                            if (ok && type[b] == 0) ok = t == V - 1 - (b * 31) % V;
                            if (ok && type[b] == 2) ok = isinf(r[t]) && r[t] > 0;
                            if (ok && type[b] == 5) ok = t == V - 1;
                            if (ok && t >= 0 && d.top_k > 0 && d.top_k < V && !pen) { /* within the top_k (NaN as -inf) */
                                int64_t above = 0;
                                for (i = 0; i < V; i++) above += !isnan(r[i]) && r[i] > r[t];
                                ok = above < d.top_k;
                            }
                            if (!ok) {
                                if (rowbad++ == 0)
                                    printf("  many-blocks sample: %s B=%lld V=%lld config %d var %d row %d (type %d): device %g ref %g\n", gk_dtype_name(sdt[di]),
                                           (long long)B, (long long)V, ci, var, b, type[b], td[b], tr[b]);
                                bad++;
                            }
                        }
                        if (ci == 5 || ci == 2) { /* the same tokens again */
                            double t2[13], t3[13];
                            sample2(tok, lg, prev, pen, &d, t2, t3);
                            for (b = 0; b < B; b++) bad += t2[b] != td[b] || t3[b] != tr[b];
                        }
                    }
                    free(lv); free(td); free(tr); free(pv); free(type); fr(lg); fr(tok); fr(prev);
                }
        GKT_CHECK(bad == 0 && nrun > 0, "many-blocks sampling paths: %d bad tokens over %d calls", bad, nrun);
    }
    {   /* a row with no finite logit gives -1 */
        int64_t s[2] = { 1, 3 }, one = 1;
        double lv[3] = { -INFINITY, NAN, -INFINITY }, td[1], tr[1];
        pair lg = mk(GK_F32, 2, s, lv), tok = mk(GK_I32, 1, &one, NULL);
        gk_sample_desc d;
        memset(&d, 0, sizeof d);
        d.temperature = 1;
        sample2(tok, lg, lg, 0, &d, td, tr);
        GKT_CHECK(tr[0] == -1 && td[0] == -1, "no finite logit: %g / %g (want -1)", tr[0], td[0]);
        fr(lg); fr(tok);
    }
}

/* ---- bad input ---- */
static void test_errors(void) {
    gk_ctx *c = D;
    int64_t s3 = 3, s4 = 4, s23[2] = { 2, 3 }, s22[2] = { 2, 2 }, s25[2] = { 2, 5 }, one = 1;
    gk_tensor f3, f4, i3, u3, f23, f22, i64_2, f25, i2, t2, o, p23, nul, e0;
    gk_sample_desc d;
    int64_t zero = 0;
    nul.id = 0;
    gk_tensor_empty(c, GK_F32, 1, &s3, &f3);
    gk_tensor_empty(c, GK_F32, 1, &s4, &f4);
    gk_tensor_empty(c, GK_I32, 1, &s3, &i3);
    gk_tensor_empty(c, GK_U8, 1, &s3, &u3);
    gk_tensor_empty(c, GK_F32, 2, s23, &f23);
    gk_tensor_empty(c, GK_F32, 2, s22, &f22);
    gk_tensor_empty(c, GK_I64, 2, s22, &i64_2);
    gk_tensor_empty(c, GK_F32, 2, s25, &f25);
    gk_tensor_empty(c, GK_I32, 1, &s4, &i2);
    gk_tensor_empty(c, GK_I32, 1, &one, &t2);
    gk_tensor_empty(c, GK_I32, 2, s23, &p23);
    gk_tensor_empty(c, GK_F32, 1, &zero, &e0);
    gk_fill(c, f3, 1); gk_fill(c, f4, 1); gk_fill(c, f23, 1); gk_fill(c, f25, 1);
    /* elementwise */
    GKT_FAILS(c, gk_unary(c, f3, f4, GK_UNARY_EXP, 0), GK_ERR_SHAPE, "does not broadcast");
    GKT_FAILS(c, gk_unary(c, i3, i3, GK_UNARY_EXP, 0), GK_ERR_DTYPE, "takes f32, f64, f16 or bf16");
    GKT_FAILS(c, gk_unary(c, f3, i3, GK_UNARY_EXP, 0), GK_ERR_DTYPE, "x is i32 but out is f32");
    GKT_FAILS(c, gk_unary(c, f3, f3, (gk_unary_op)99, 0), GK_ERR_INVALID_ARGUMENT, "unknown op 99");
    GKT_FAILS(c, gk_clamp(c, f3, f3, 2, 1), GK_ERR_INVALID_ARGUMENT, "lo (2) must be <= hi (1)");
    GKT_FAILS(c, gk_clamp(c, f3, f3, NAN, 1), GK_ERR_INVALID_ARGUMENT, "neither NaN");
    GKT_FAILS(c, gk_binary(c, f23, f23, f4, GK_BINARY_POW), GK_ERR_SHAPE, "does not broadcast");
    GKT_FAILS(c, gk_binary(c, i3, i3, i3, GK_BINARY_POW), GK_ERR_DTYPE, "takes f32");
    GKT_FAILS(c, gk_binary_new(c, f23, f4, GK_BINARY_MAXIMUM, &o), GK_ERR_SHAPE, "do not broadcast");
    GKT_FAILS(c, gk_compare(c, f3, f3, f3, GK_CMP_EQ), GK_ERR_DTYPE, "must be u8");
    GKT_FAILS(c, gk_compare(c, u3, f3, i3, GK_CMP_EQ), GK_ERR_DTYPE, "a is f32 but b is i32");
    GKT_FAILS(c, gk_where(c, f3, f3, f3, f3), GK_ERR_DTYPE, "cond is f32 but must be u8");
    GKT_FAILS(c, gk_where(c, f3, u3, i3, f3), GK_ERR_DTYPE, "a is i32 but out is f32");
    GKT_FAILS(c, gk_glu_split(c, f22, f25, GK_GLU_SILU), GK_ERR_SHAPE, "last dim must be even");
    GKT_FAILS(c, gk_glu_split(c, f3, f22, GK_GLU_SILU), GK_ERR_SHAPE, "does not broadcast");
    GKT_FAILS(c, gk_glu(c, f3, f3, f3, (gk_glu_op)7), GK_ERR_INVALID_ARGUMENT, "unknown op 7");
    GKT_FAILS(c, gk_snake(c, f23, f23, f4), GK_ERR_SHAPE, "alpha must be [C] with C = 2");
    GKT_FAILS(c, gk_snake(c, f3, f3, f3), GK_ERR_SHAPE, "it must be [B, C, T] or [C, T]");
    GKT_OK(c, gk_unary(c, e0, e0, GK_UNARY_EXP, 0)); /* empty: no-op */
    /* reductions */
    GKT_FAILS(c, gk_reduce(c, f3, f23, GK_REDUCE_SUM, 2, 0), GK_ERR_INVALID_ARGUMENT, "axis 2 out of range for 2 dims");
    GKT_FAILS(c, gk_reduce(c, f3, f23, GK_REDUCE_SUM, -3, 0), GK_ERR_INVALID_ARGUMENT, "axis -3 out of range");
    GKT_FAILS(c, gk_reduce(c, f4, f23, GK_REDUCE_SUM, 0, 0), GK_ERR_SHAPE, "out has shape [4] but must have shape [3]");
    GKT_FAILS(c, gk_reduce(c, f3, f23, GK_REDUCE_ARGMAX, 0, 0), GK_ERR_DTYPE, "out is f32 but must be i64");
    GKT_FAILS(c, gk_reduce(c, i3, i3, GK_REDUCE_SUM, 0, 0), GK_ERR_DTYPE, "x is i32");
    GKT_FAILS(c, gk_reduce(c, f3, f23, (gk_reduce_op)42, 0, 0), GK_ERR_INVALID_ARGUMENT, "unknown op 42");
    {
        gk_tensor ee, oo;
        int64_t se[2] = { 3, 0 };
        gk_tensor_empty(c, GK_F32, 2, se, &ee);
        gk_tensor_empty(c, GK_F32, 1, &s3, &oo);
        GKT_FAILS(c, gk_reduce(c, oo, ee, GK_REDUCE_MAX, 1, 0), GK_ERR_INVALID_ARGUMENT, "of 0 elements is undefined");
        gk_tensor_free(c, ee); gk_tensor_free(c, oo);
    }
    /* softmax, cumsum */
    GKT_FAILS(c, gk_softmax(c, f22, f23), GK_ERR_SHAPE, "out has shape [2,2] but must have shape [2,3]");
    GKT_FAILS(c, gk_softmax(c, i3, i3), GK_ERR_DTYPE, "x is i32");
    GKT_FAILS(c, gk_cumsum(c, f23, f23, 2), GK_ERR_INVALID_ARGUMENT, "axis 2 out of range");
    GKT_FAILS(c, gk_cumsum(c, f3, i3, 0), GK_ERR_DTYPE, "out is f32 but x is i32");
    GKT_OK(c, gk_softmax(c, e0, e0));
    /* top-k */
    GKT_FAILS(c, gk_topk(c, f22, i64_2, f23, 4), GK_ERR_INVALID_ARGUMENT, "k = 4 outside 0..3");
    GKT_FAILS(c, gk_topk(c, f22, i64_2, f23, -1), GK_ERR_INVALID_ARGUMENT, "k = -1 outside");
    GKT_FAILS(c, gk_topk(c, f22, f22, f23, 2), GK_ERR_DTYPE, "indices is f32 but must be i64");
    GKT_FAILS(c, gk_topk(c, f23, i64_2, f23, 2), GK_ERR_SHAPE, "values has shape [2,3] but must have shape [2,2]");
    GKT_FAILS(c, gk_topk(c, f22, i64_2, i64_2, 2), GK_ERR_DTYPE, "top-k takes f32, f16 or bf16");
    GKT_FAILS(c, gk_topk_new(c, f23, 9, &o, &o), GK_ERR_INVALID_ARGUMENT, "k = 9 outside 0..3");
    /* sampling */
    memset(&d, 0, sizeof d);
    d.temperature = 1;
    {
        gk_tensor t2b;
        int64_t two = 2;
        gk_tensor_empty(c, GK_I32, 1, &two, &t2b);
        GKT_FAILS(c, gk_sample(c, t2b, f3, nul, &d), GK_ERR_SHAPE, "logits must be [batch, vocab]");
        GKT_FAILS(c, gk_sample(c, t2, f23, nul, &d), GK_ERR_SHAPE, "tokens must be [2]");
        GKT_FAILS(c, gk_sample(c, f3, f23, nul, &d), GK_ERR_DTYPE, "tokens is f32 but must be i32");
        GKT_FAILS(c, gk_sample(c, t2b, p23, nul, &d), GK_ERR_DTYPE, "logits are i32");
        GKT_FAILS(c, gk_sample(c, t2b, f23, f23, &d), GK_ERR_DTYPE, "prev is f32 but must be i32");
        GKT_FAILS(c, gk_sample(c, t2b, f23, i3, &d), GK_ERR_SHAPE, "prev must be [2, n_prev]");
        d.top_p = 1.5f;
        GKT_FAILS(c, gk_sample(c, t2b, f23, nul, &d), GK_ERR_INVALID_ARGUMENT, "top_p = 1.5 outside (0, 1]");
        d.top_p = -0.1f;
        GKT_FAILS(c, gk_sample(c, t2b, f23, nul, &d), GK_ERR_INVALID_ARGUMENT, "top_p = -0.1 outside");
        d.top_p = 0; d.top_k = -2;
        GKT_FAILS(c, gk_sample(c, t2b, f23, nul, &d), GK_ERR_INVALID_ARGUMENT, "top_k = -2 is negative");
        d.top_k = 0; d.min_p = 2;
        GKT_FAILS(c, gk_sample(c, t2b, f23, nul, &d), GK_ERR_INVALID_ARGUMENT, "min_p = 2 outside [0, 1]");
        d.min_p = 0; d.temperature = NAN;
        GKT_FAILS(c, gk_sample(c, t2b, f23, nul, &d), GK_ERR_INVALID_ARGUMENT, "temperature is NaN");
        d.temperature = 1; d.repetition_penalty = -1;
        GKT_FAILS(c, gk_sample(c, t2b, f23, nul, &d), GK_ERR_INVALID_ARGUMENT, "repetition_penalty = -1");
        d.repetition_penalty = 0; d.frequency_penalty = INFINITY;
        GKT_FAILS(c, gk_sample(c, t2b, f23, nul, &d), GK_ERR_INVALID_ARGUMENT, "must be finite");
        gk_tensor_free(c, t2b);
    }
    gk_tensor_free(c, f3); gk_tensor_free(c, f4); gk_tensor_free(c, i3); gk_tensor_free(c, u3); gk_tensor_free(c, f23);
    gk_tensor_free(c, f22); gk_tensor_free(c, i64_2); gk_tensor_free(c, f25); gk_tensor_free(c, i2); gk_tensor_free(c, t2);
    gk_tensor_free(c, p23); gk_tensor_free(c, e0);
}

int main(void) {
    gkt_seed();
    D = gkt_dut();
    R = gkt_ref();
    {
        gk_device_info info;
        gk_device_info_get(D, &info);
        printf("device under test: %s\n", info.name);
    }
    test_unary();
    test_binary();
    test_glu_snake();
    test_reduce();
    test_softmax_cumsum();
    test_topk();
    test_philox();
    test_randn();
    test_sample();
    test_errors();
    gk_ctx_destroy(D);
    gk_ctx_destroy(R);
    return gkt_done("test_math");
}
