/* test_ops.c - fill, copy, cast, add/sub/mul/div, scale, axpy on every dtype.
   Each case runs on the device under test (CUDA when present) and on the CPU
   reference with fresh random inputs and a poisoned output, and is also
   checked against expectations computed here independently (exact for f32,
   f64 and integers, within one unit in the last place for 16/8-bit floats). */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkt.h"

static gk_ctx *D, *R; /* device under test, CPU reference */
static const int64_t SIZES[] = { 1, 31, 33, 1000, 4097 };

/* random values suited to a dtype, as doubles exactly representable in it */
static void rand_vals(gk_dtype dt, double *v, size_t n, int allow_zero) {
    size_t i;
    for (i = 0; i < n; i++) {
        double x;
        switch (dt) {
        case GK_I8: x = floor(gkt_uniform(-128, 128)); break;
        case GK_U8: x = floor(gkt_uniform(0, 256)); break;
        case GK_I32: x = floor(gkt_uniform(-2147483648.0, 2147483648.0)); break;
        case GK_I64: x = (double)(int64_t)(gkt_u64() >> (gkt_u64() % 40)); break;
        case GK_F8E4M3: case GK_F8E5M2: x = gkt_uniform(-8, 8); break;
        default: x = gkt_uniform(-4, 4) * pow(10.0, floor(gkt_uniform(-3, 3))); break;
        }
        if (!allow_zero && x == 0) x = 1;
        v[i] = x;
    }
    if (!allow_zero) return;
    if (n > 3) v[n / 3] = 0; /* division by zero and signed zeros */
}

typedef struct { gk_tensor d, r; gk_dtype dt; int64_t n; } pair;
/* the same tensor in both contexts; values converted from doubles */
static pair mk(gk_dtype dt, int nd, const int64_t *shape, const double *vals) {
    pair p;
    gk_tensor_info info;
    void *bytes;
    p.dt = dt;
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
static void fr(pair p) { gk_tensor_free(D, p.d); gk_tensor_free(R, p.r); }
/* downloads both sides (contiguous copies) as raw bytes */
static void get(pair p, void *dbytes, void *rbytes) {
    gk_tensor cd, cr;
    gk_tensor_info info;
    GKT_OK(D, gk_contiguous(D, p.d, &cd));
    GKT_OK(R, gk_contiguous(R, p.r, &cr));
    gk_tensor_info_get(R, cr, &info);
    GKT_OK(D, gk_copy_to_host(D, cd, dbytes, info.nbytes));
    GKT_OK(R, gk_copy_to_host(R, cr, rbytes, info.nbytes));
    gk_tensor_free(D, cd);
    gk_tensor_free(R, cr);
}

static double ulp_of(gk_dtype dt) {
    switch (dt) {
    case GK_F16: return ldexp(1, -10);
    case GK_BF16: return ldexp(1, -7);
    case GK_F8E4M3: return ldexp(1, -3);
    case GK_F8E5M2: return ldexp(1, -2);
    default: return 0;
    }
}
static int64_t wrap(gk_dtype dt, int64_t v) {
    switch (dt) {
    case GK_I8: return (int8_t)(uint8_t)(uint64_t)v;
    case GK_U8: return (uint8_t)(uint64_t)v;
    case GK_I32: return (int32_t)(uint32_t)(uint64_t)v;
    default: return v;
    }
}
/* rounds a double result to dt as a value */
static double to_dt(gk_dtype dt, double x) {
    char b[8];
    double y;
    gk_convert(dt, b, GK_F64, &x, 1);
    gk_convert(GK_F64, &y, dt, b, 1);
    return y;
}
/* is `got` an acceptable result for the exact value `want` in dt? Exact
   after rounding for f32/f64/integers; for 16/8-bit floats (computed in f32,
   then rounded) within one unit in the last place, overflow included. */
static int close_enough(gk_dtype dt, double got, double want) {
    double u = ulp_of(dt), r = to_dt(dt, want), sub, maxfin;
    if (isnan(want) || isnan(r)) return isnan(got);
    if (got == r) return 1;
    if (u == 0) return 0;
    maxfin = dt == GK_F16 ? 65504.0 : dt == GK_BF16 ? 3.3895313892515355e38 : dt == GK_F8E4M3 ? 448.0 : 57344.0;
    if (isinf(got) || isinf(r)) return (isinf(got) && fabs(want) >= maxfin) || (isinf(r) && fabs(got) == maxfin);
    sub = dt == GK_F16 ? ldexp(1, -24) : dt == GK_BF16 ? ldexp(1, -133) : dt == GK_F8E4M3 ? ldexp(1, -9) : ldexp(1, -16);
    return fabs(got - want) <= u * fabs(want) + sub;
}

static const char *const OPN[4] = { "add", "sub", "mul", "div" };
static gk_status (*const OPF[4])(gk_ctx *, gk_tensor, gk_tensor, gk_tensor) = { gk_add, gk_sub, gk_mul, gk_div };

static double expect_bin(int op, gk_dtype dt, double a, double b) {
    if (!gk_dtype_is_float(dt)) {
        int64_t x = (int64_t)a, y = (int64_t)b, r;
        uint64_t ux = (uint64_t)x, uy = (uint64_t)y;
        r = op == 0 ? (int64_t)(ux + uy) : op == 1 ? (int64_t)(ux - uy) : op == 2 ? (int64_t)(ux * uy)
          : y == 0 ? 0 : y == -1 ? (int64_t)(0 - ux) : x / y;
        return (double)wrap(dt, r);
    }
    return op == 0 ? a + b : op == 1 ? a - b : op == 2 ? a * b : a / b;
}

/* one binary case: out [shape], a and b broadcast from their shapes */
static void bin_case(int op, gk_dtype dt, int nd, const int64_t *so, int nda, const int64_t *sa, int ndb, const int64_t *sb,
                     int misalign) {
    int64_t na = 1, nb = 1, no = 1, i;
    double *va, *vb, *ra, *rb;
    pair a, b, o;
    char *db, *rbuf;
    int bad = 0, mism = 0, k;
    int64_t sa1[GK_MAX_DIMS];
    for (k = 0; k < nda; k++) na *= sa[k];
    for (k = 0; k < ndb; k++) nb *= sb[k];
    for (k = 0; k < nd; k++) no *= so[k];
    va = (double *)malloc(sizeof(double) * (size_t)(na + 1));
    vb = (double *)malloc(sizeof(double) * (size_t)nb);
    rand_vals(dt, va, (size_t)na + 1, 0);
    rand_vals(dt, vb, (size_t)nb, op == 3);
    memcpy(sa1, sa, sizeof(int64_t) * (size_t)nda);
    if (misalign) { /* a is a view starting one element in: unaligned for the vector path */
        pair big;
        sa1[nda - 1] += 1;
        big = mk(dt, nda, sa1, NULL);
        {
            int64_t tot = na + na / sa[nda - 1];
            double *vv = (double *)malloc(sizeof(double) * (size_t)tot);
            void *bytes = malloc((size_t)tot * 8);
            int64_t r, c, rows = na / sa[nda - 1], cols = sa[nda - 1];
            for (r = 0; r < rows; r++)
                for (c = 0; c <= cols; c++) vv[r * (cols + 1) + c] = c == 0 ? 1.0 : va[r * cols + c - 1];
            gk_convert(dt, bytes, GK_F64, vv, (size_t)tot);
            gk_copy_from_host(D, big.d, bytes, (size_t)tot * gk_dtype_size(dt));
            gk_copy_from_host(R, big.r, bytes, (size_t)tot * gk_dtype_size(dt));
            free(vv);
            free(bytes);
        }
        GKT_OK(D, gk_view_slice(D, big.d, -1, 1, sa1[nda - 1], 1, &a.d));
        GKT_OK(R, gk_view_slice(R, big.r, -1, 1, sa1[nda - 1], 1, &a.r));
        a.dt = dt;
        fr(big);
    } else a = mk(dt, nda, sa, va);
    b = mk(dt, ndb, sb, vb);
    o = mk(dt, nd, so, NULL);
    GKT_OK(D, OPF[op](D, o.d, a.d, b.d));
    GKT_OK(R, OPF[op](R, o.r, a.r, b.r));
    db = (char *)malloc((size_t)no * 8);
    rbuf = (char *)malloc((size_t)no * 8);
    get(o, db, rbuf);
    /* the stored inputs, as doubles */
    ra = (double *)malloc(sizeof(double) * (size_t)na);
    rb = (double *)malloc(sizeof(double) * (size_t)nb);
    {
        char *tmp = (char *)malloc((size_t)(na > nb ? na : nb) * 8);
        gk_convert(dt, tmp, GK_F64, va, (size_t)na); gk_convert(GK_F64, ra, dt, tmp, (size_t)na);
        gk_convert(dt, tmp, GK_F64, vb, (size_t)nb); gk_convert(GK_F64, rb, dt, tmp, (size_t)nb);
        free(tmp);
    }
    for (i = 0; i < no; i++) {
        /* multi-index of i in so, mapped to a and b (broadcast) */
        int64_t rem = i, ia = 0, ib = 0, mula = 1, mulb = 1, got_d[1];
        double gd, gr, want;
        for (k = nd - 1; k >= 0; k--) {
            int64_t idx = rem % so[k];
            int ka = k - (nd - nda), kb = k - (nd - ndb);
            rem /= so[k];
            if (ka >= 0) { if (sa[ka] != 1) ia += idx * mula; mula *= sa[ka]; }
            if (kb >= 0) { if (sb[kb] != 1) ib += idx * mulb; mulb *= sb[kb]; }
        }
        (void)got_d;
        gk_convert(GK_F64, &gd, dt, db + i * (int64_t)gk_dtype_size(dt), 1);
        gk_convert(GK_F64, &gr, dt, rbuf + i * (int64_t)gk_dtype_size(dt), 1);
        want = expect_bin(op, dt, ra[ia], rb[ib]);
        if (!gk_dtype_is_float(dt) && dt == GK_I64) {
            int64_t x, y, w;
            memcpy(&x, db + i * 8, 8);
            memcpy(&y, rbuf + i * 8, 8);
            {
                int64_t ea = (int64_t)ra[ia], eb = (int64_t)rb[ib];
                uint64_t ux = (uint64_t)ea, uy = (uint64_t)eb;
                w = op == 0 ? (int64_t)(ux + uy) : op == 1 ? (int64_t)(ux - uy) : op == 2 ? (int64_t)(ux * uy)
                  : eb == 0 ? 0 : eb == -1 ? (int64_t)(0 - ux) : ea / eb;
            }
            if (x != w || y != w) bad++;
            continue;
        }
        if (!close_enough(dt, gr, want)) { if (bad++ < 3) printf("  %s %s [%lld]: ref %.9g want %.9g (%.9g %s %.9g)\n", OPN[op], gk_dtype_name(dt), (long long)i, gr, want, ra[ia], OPN[op], rb[ib]); }
        if (!(gd == gr || (isnan(gd) && isnan(gr)))) { if (mism++ < 3) printf("  %s %s [%lld]: device %.9g ref %.9g\n", OPN[op], gk_dtype_name(dt), (long long)i, gd, gr); }
    }
    GKT_CHECK(bad == 0, "%s %s: %d values off the expectation (n=%lld%s)", OPN[op], gk_dtype_name(dt), bad, (long long)no, misalign ? ", misaligned" : "");
    GKT_CHECK(mism == 0, "%s %s: %d device values differ from the CPU reference (n=%lld)", OPN[op], gk_dtype_name(dt), mism, (long long)no);
    free(va); free(vb); free(ra); free(rb); free(db); free(rbuf);
    fr(a); fr(b); fr(o);
}

static void test_binary(void) {
    int op, dt, s;
    for (op = 0; op < 4; op++)
        for (dt = 0; dt < GK_DTYPE_COUNT; dt++) {
            for (s = 0; s < 5; s++) {
                int64_t n[1];
                n[0] = SIZES[s];
                bin_case(op, (gk_dtype)dt, 1, n, 1, n, 1, n, 0);
            }
            {   /* broadcasting: [7,33,5] = [7,1,5] op [5]; and [3,4097] = [3,4097] op [3,1] */
                int64_t so[3] = { 7, 33, 5 }, sa[3] = { 7, 1, 5 }, sb[1] = { 5 };
                int64_t so2[2] = { 3, 4097 }, sb2[2] = { 3, 1 };
                bin_case(op, (gk_dtype)dt, 3, so, 3, sa, 1, sb, 0);
                bin_case(op, (gk_dtype)dt, 2, so2, 2, so2, 2, sb2, 0);
                bin_case(op, (gk_dtype)dt, 2, so2, 2, so2, 2, so2, 1); /* misaligned a */
            }
            for (s = 0; s < 6; s++) { /* the 16-byte broadcast path (inner dim a multiple of 16 bytes) and its fallbacks;
                                         1024: rows of many vectors */
                static const int64_t WS[6] = { 1, 31, 33, 128, 4097, 1024 };
                int64_t W = WS[s];
                int64_t o2[2] = { 3, W }, r1[1] = { W }, c1[2] = { 3, 1 }, w1[2] = { 1, W };
                int64_t o3[3] = { 2, 3, W }, m3[3] = { 2, 1, W }, l3[3] = { 1, 3, W }, f3[3] = { 2, 3, 1 };
                bin_case(op, (gk_dtype)dt, 2, o2, 2, o2, 1, r1, 0); /* [3,W] op [W]: b along the outer dim */
                bin_case(op, (gk_dtype)dt, 2, o2, 2, w1, 2, o2, 0); /* [1,W] op [3,W]: a along the outer dim */
                bin_case(op, (gk_dtype)dt, 2, o2, 2, o2, 2, c1, 0); /* [3,W] op [3,1]: b along the inner dim */
                bin_case(op, (gk_dtype)dt, 2, o2, 2, c1, 2, w1, 0); /* [3,1] op [1,W]: both */
                bin_case(op, (gk_dtype)dt, 3, o3, 3, o3, 3, m3, 0); /* [2,3,W] op [2,1,W]: the middle dim */
                bin_case(op, (gk_dtype)dt, 3, o3, 3, l3, 3, o3, 0); /* [1,3,W] op [2,3,W]: the first dim */
                bin_case(op, (gk_dtype)dt, 3, o3, 3, o3, 3, f3, 0); /* [2,3,W] op [2,3,1]: the last dim */
                bin_case(op, (gk_dtype)dt, 2, o2, 2, o2, 1, r1, 1); /* misaligned a (rows of W+1): fallback */
                bin_case(op, (gk_dtype)dt, 2, o2, 1, r1, 2, o2, 1); /* a [W] one element in: unaligned base, fallback */
            }
            if ((op == 0 || op == 3) && (dt == GK_F32 || dt == GK_BF16 || dt == GK_F64 || dt == GK_I8)) {
                /* more rows than resident warps (5000; 4224 on an H200): the warp-a-row broadcast path
                   walks several rows a warp; W = 1000 (f32: 250 vectors, not a multiple of 128), 2048 */
                int64_t o3[3] = { 2, 2500, 1000 }, m3[3] = { 2, 1, 1000 }, f3[3] = { 2, 2500, 1 };
                int64_t p3[3] = { 2, 2500, 2048 }, q3[3] = { 2, 1, 2048 };
                bin_case(op, (gk_dtype)dt, 3, o3, 3, o3, 3, m3, 0); /* [2,2500,W] op [2,1,W] */
                bin_case(op, (gk_dtype)dt, 3, o3, 3, f3, 3, m3, 0); /* [2,2500,1] op [2,1,W]: a splat a row */
                if (op == 0) bin_case(op, (gk_dtype)dt, 3, p3, 3, q3, 3, p3, 0); /* [2,1,W] op [2,2500,W] */
            }
            if ((op == 0 || op == 3) && (dt == GK_F32 || dt == GK_BF16)) {
                /* few rows much longer than a warp's segment (1024 vectors): a scalar broadcast over
                   300,004 values (one row), [9,S] op [1,S] (a vocoder's source times its voicing mask),
                   and rows of 5,000 vectors and a part (segments split mid-row) */
                int64_t n1[1] = { 300004 }, s1[1] = { 1 }, o2[2] = { 9, 40000 }, m2[2] = { 1, 40000 }, o3[2] = { 3, 20008 }, c3[2] = { 3, 1 };
                bin_case(op, (gk_dtype)dt, 1, n1, 1, n1, 1, s1, 0);
                bin_case(op, (gk_dtype)dt, 2, o2, 2, o2, 2, m2, 0);
                bin_case(op, (gk_dtype)dt, 2, o3, 2, o3, 2, c3, 0);
            }
        }
}

static void test_cast_fill_copy(void) {
    int s, d, k, bad = 0;
    int64_t n[1] = { 4097 };
    double *v = (double *)malloc(sizeof(double) * 4097);
    for (k = 0; k < 4097; k++) {
        double x = ldexp(gkt_uniform(-1, 1), (int)gkt_uniform(-30, 70));
        if (k % 7 == 0) x = floor(gkt_uniform(-300, 300));
        v[k] = x;
    }
    v[0] = NAN; v[1] = INFINITY; v[2] = -INFINITY; v[3] = -0.0; v[4] = 65520; v[5] = 1e-45; v[6] = 448.5; v[7] = -2147483649.0;
    for (s = 0; s < GK_DTYPE_COUNT; s++)
        for (d = 0; d < GK_DTYPE_COUNT; d++) {
            pair a = mk((gk_dtype)s, 1, n, v), o = mk((gk_dtype)d, 1, n, NULL);
            char *db = (char *)malloc(4097 * 8), *rb = (char *)malloc(4097 * 8), *sb = (char *)malloc(4097 * 8), *hb = (char *)malloc(4097 * 8);
            size_t ds = gk_dtype_size((gk_dtype)d);
            GKT_OK(D, gk_cast(D, o.d, a.d));
            GKT_OK(R, gk_cast(R, o.r, a.r));
            get(o, db, rb);
            /* the host conversion of the same stored source values */
            gk_convert((gk_dtype)s, sb, GK_F64, v, 4097);
            gk_convert((gk_dtype)d, hb, (gk_dtype)s, sb, 4097);
            if (memcmp(db, rb, 4097 * ds) != 0 || memcmp(rb, hb, 4097 * ds) != 0) {
                size_t i;
                for (i = 0; i < 4097 * ds; i++) if (db[i] != rb[i] || rb[i] != hb[i]) break;
                if (bad++ < 5) printf("  cast %s -> %s differs at byte %zu (element %zu)\n", gk_dtype_name((gk_dtype)s), gk_dtype_name((gk_dtype)d), i, i / ds);
            }
            free(db); free(rb); free(sb); free(hb);
            fr(a); fr(o);
        }
    GKT_CHECK(bad == 0, "%d of 100 dtype pairs not bit-exact (device, CPU reference, gk_convert)", bad);
    /* cast of a strided view */
    {
        int64_t sh[2] = { 33, 31 };
        pair a = mk(GK_F32, 2, sh, v), o;
        gk_tensor td, tr;
        int64_t osh[2] = { 31, 33 };
        char db[33 * 31 * 2], rb[33 * 31 * 2];
        o = mk(GK_BF16, 2, osh, NULL);
        GKT_OK(D, gk_view_transpose(D, a.d, 0, 1, &td));
        GKT_OK(R, gk_view_transpose(R, a.r, 0, 1, &tr));
        GKT_OK(D, gk_cast(D, o.d, td));
        GKT_OK(R, gk_cast(R, o.r, tr));
        get(o, db, rb);
        GKT_CHECK(memcmp(db, rb, sizeof db) == 0, "strided cast");
        {
            uint16_t want;
            float x = (float)v[1 * 31 + 2]; /* element [2][1] of the transpose = a[1][2] */
            gk_convert(GK_BF16, &want, GK_F32, &x, 1);
            GKT_CHECK(memcmp(rb + (2 * 33 + 1) * 2, &want, 2) == 0, "strided cast value");
        }
        gk_tensor_free(D, td); gk_tensor_free(R, tr);
        fr(a); fr(o);
    }
    /* fill every dtype, contiguous and strided */
    for (d = 0; d < GK_DTYPE_COUNT; d++) {
        double vals[4] = { 3.75, -2, 1e10, 200.5 };
        for (k = 0; k < 4; k++) {
            int64_t sh[2] = { 33, 31 };
            pair o = mk((gk_dtype)d, 2, sh, NULL);
            char db[33 * 31 * 8], rb[33 * 31 * 8], want[8];
            gk_tensor vd;
            size_t ds = gk_dtype_size((gk_dtype)d), i;
            int ok = 1;
            gk__scalar sc;
            sc.is_int = !gk_dtype_is_float((gk_dtype)d) && vals[k] == floor(vals[k]);
            sc.i = (int64_t)vals[k];
            sc.f = vals[k];
            gk__store((gk_dtype)d, want, sc);
            GKT_OK(D, gk_fill(D, o.d, vals[k]));
            GKT_OK(R, gk_fill(R, o.r, vals[k]));
            get(o, db, rb);
            for (i = 0; i < 33 * 31; i++) ok &= memcmp(db + i * ds, want, ds) == 0 && memcmp(rb + i * ds, want, ds) == 0;
            GKT_CHECK(ok, "fill %s %g", gk_dtype_name((gk_dtype)d), vals[k]);
            /* fill a column view: only that column changes */
            GKT_OK(D, gk_view_slice(D, o.d, 1, 5, 6, 1, &vd));
            GKT_OK(D, gk_fill(D, vd, 0));
            gk_tensor_free(D, vd);
            GKT_OK(R, gk_view_slice(R, o.r, 1, 5, 6, 1, &vd));
            GKT_OK(R, gk_fill(R, vd, 0));
            gk_tensor_free(R, vd);
            get(o, db, rb);
            ok = 1;
            for (i = 0; i < 33 * 31; i++) {
                int zero_col = i % 31 == 5;
                char z[8] = { 0 };
                ok &= memcmp(db + i * ds, zero_col ? z : want, ds) == 0 && memcmp(rb + i * ds, zero_col ? z : want, ds) == 0;
            }
            GKT_CHECK(ok, "strided fill %s", gk_dtype_name((gk_dtype)d));
            fr(o);
        }
    }
    /* copy with broadcast: [33,1000] <- [1000] row, and a transposed source */
    {
        int64_t so[2] = { 33, 1000 }, sr[1] = { 1000 };
        pair row = mk(GK_F32, 1, sr, v), o = mk(GK_F32, 2, so, NULL);
        float *db = (float *)malloc(33000 * 4), *rb = (float *)malloc(33000 * 4);
        int ok = 1;
        GKT_OK(D, gk_copy(D, o.d, row.d));
        GKT_OK(R, gk_copy(R, o.r, row.r));
        get(o, db, rb);
        for (k = 0; k < 33000; k++) ok &= (db[k] == (float)v[k % 1000] || (isnan(db[k]) && isnan(v[k % 1000]))) && memcmp(&db[k], &rb[k], 4) == 0;
        GKT_CHECK(ok, "broadcast copy");
        free(db); free(rb);
        fr(row); fr(o);
    }
    free(v);
}

static void test_scale_axpy(void) {
    int dt, s, bad = 0, mism = 0;
    for (dt = 0; dt < GK_DTYPE_COUNT; dt++)
        for (s = 0; s < 5; s++) {
            int64_t n[1];
            double *vx, *vy, alpha = gkt_uniform(-3, 3), *rx, *ry;
            pair x, y, o;
            char *db, *rb, *tmp;
            int64_t i;
            n[0] = SIZES[s];
            vx = (double *)malloc(sizeof(double) * (size_t)n[0]);
            vy = (double *)malloc(sizeof(double) * (size_t)n[0]);
            rx = (double *)malloc(sizeof(double) * (size_t)n[0]);
            ry = (double *)malloc(sizeof(double) * (size_t)n[0]);
            rand_vals((gk_dtype)dt, vx, (size_t)n[0], 1);
            rand_vals((gk_dtype)dt, vy, (size_t)n[0], 1);
            tmp = (char *)malloc((size_t)n[0] * 8);
            gk_convert((gk_dtype)dt, tmp, GK_F64, vx, (size_t)n[0]); gk_convert(GK_F64, rx, (gk_dtype)dt, tmp, (size_t)n[0]);
            gk_convert((gk_dtype)dt, tmp, GK_F64, vy, (size_t)n[0]); gk_convert(GK_F64, ry, (gk_dtype)dt, tmp, (size_t)n[0]);
            free(tmp);
            x = mk((gk_dtype)dt, 1, n, vx);
            y = mk((gk_dtype)dt, 1, n, vy);
            o = mk((gk_dtype)dt, 1, n, NULL);
            db = (char *)malloc((size_t)n[0] * 8);
            rb = (char *)malloc((size_t)n[0] * 8);
            GKT_OK(D, gk_scale(D, o.d, x.d, alpha));
            GKT_OK(R, gk_scale(R, o.r, x.r, alpha));
            GKT_OK(D, gk_axpy(D, y.d, alpha, x.d));
            GKT_OK(R, gk_axpy(R, y.r, alpha, x.r));
            {
                int pass;
                for (pass = 0; pass < 2; pass++) {
                    get(pass ? y : o, db, rb);
                    for (i = 0; i < n[0]; i++) {
                        double gd, gr, want;
                        gk_convert(GK_F64, &gd, (gk_dtype)dt, db + i * (int64_t)gk_dtype_size((gk_dtype)dt), 1);
                        gk_convert(GK_F64, &gr, (gk_dtype)dt, rb + i * (int64_t)gk_dtype_size((gk_dtype)dt), 1);
                        if (dt == GK_F64) want = pass ? fma(alpha, rx[i], ry[i]) : alpha * rx[i];
                        else if (gk_dtype_is_float((gk_dtype)dt)) want = pass ? (double)fmaf((float)alpha, (float)rx[i], (float)ry[i]) : (double)((float)alpha * (float)rx[i]);
                        else { /* integers: computed in double, truncated and saturated on store */
                            double e = pass ? fma(alpha, rx[i], ry[i]) : alpha * rx[i];
                            want = to_dt((gk_dtype)dt, e);
                        }
                        if (dt == GK_I64 && fabs(want) > 9e15) continue; /* beyond double's exact integers */
                        if (!close_enough((gk_dtype)dt, gr, want)) { if (bad++ < 3) printf("  %s %s [%lld]: %.9g want %.9g\n", pass ? "axpy" : "scale", gk_dtype_name((gk_dtype)dt), (long long)i, gr, want); }
                        if (!(gd == gr || (isnan(gd) && isnan(gr)))) mism++;
                    }
                }
            }
            free(vx); free(vy); free(rx); free(ry); free(db); free(rb);
            fr(x); fr(y); fr(o);
        }
    GKT_CHECK(bad == 0, "%d scale/axpy values off the expectation", bad);
    GKT_CHECK(mism == 0, "%d scale/axpy device values differ from the CPU reference", mism);
}

static void test_bad_input(void) {
    int64_t s34[2] = { 3, 4 }, s5[1] = { 5 }, s4[1] = { 4 }, s14[2] = { 1, 4 };
    gk_tensor a, b, o, t;
    gk_tensor_info info;
    GKT_OK(D, gk_tensor_empty(D, GK_F32, 2, s34, &a));
    GKT_OK(D, gk_tensor_empty(D, GK_F32, 1, s5, &b));
    GKT_OK(D, gk_tensor_empty(D, GK_F32, 2, s34, &o));
    GKT_FAILS(D, gk_add(D, o, a, b), GK_ERR_SHAPE, "b of shape [5] does not broadcast to out of shape [3,4]");
    GKT_FAILS(D, gk_add_new(D, a, b, &t), GK_ERR_SHAPE, "do not broadcast");
    GKT_CHECK(t.id == 0, "no tensor on failure");
    gk_tensor_free(D, b);
    GKT_OK(D, gk_tensor_empty(D, GK_I32, 1, s4, &b));
    GKT_FAILS(D, gk_mul(D, o, a, b), GK_ERR_DTYPE, "use gk_cast");
    gk_tensor_free(D, b);
    /* the output never broadcasts */
    GKT_OK(D, gk_tensor_empty(D, GK_F32, 2, s14, &b));
    GKT_FAILS(D, gk_sub(D, b, a, a), GK_ERR_SHAPE, "does not broadcast to out");
    /* _new allocates the broadcast shape */
    GKT_OK(D, gk_add_new(D, a, b, &t));
    GKT_OK(D, gk_tensor_info_get(D, t, &info));
    GKT_CHECK(info.ndim == 2 && info.shape[0] == 3 && info.shape[1] == 4, "broadcast shape");
    gk_tensor_free(D, t);
    GKT_OK(D, gk_cast_new(D, a, GK_BF16, &t));
    GKT_OK(D, gk_tensor_info_get(D, t, &info));
    GKT_CHECK(info.dtype == GK_BF16 && info.numel == 12, "cast_new");
    gk_tensor_free(D, t);
    GKT_FAILS(D, gk_cast_new(D, a, (gk_dtype)55, &t), GK_ERR_DTYPE, "invalid dtype");
    gk_tensor_free(D, a);
    GKT_FAILS(D, gk_fill(D, a, 0), GK_ERR_INVALID_HANDLE, "use after free");
    gk_tensor_free(D, b);
    gk_tensor_free(D, o);
}

int main(void) {
    gkt_seed();
    D = gkt_dut();
    R = gkt_ref();
    test_binary();
    test_cast_fill_copy();
    test_scale_axpy();
    test_bad_input();
    gk_ctx_destroy(D);
    gk_ctx_destroy(R);
    return gkt_done("test_ops");
}
