/* test_matmul.c - gk_matmul / gk_linear: every layout (row- and column-major
   operands), batches, epilogues (alpha, beta, bias, activations, residual),
   output dtypes, the GEMV path and forced backends, on the device under test
   and on the CPU reference, against an independent f64 product computed here.
   Bounds: ||out - ref|| / || |A||B| + |epilogue terms| || below 1e-5 (f32),
   2e-3 (tf32), 1e-2 (16-bit out). */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkt.h"
#include "gkt_mat.h"

static gk_ctx *D, *R;

/* up() into storage whose rows are `ld` mode apart: 0 packed; 1 padded to a
   multiple of 8 elements plus 8 (16-byte rows: the tensor-core path); 2 an odd
   row stride (misaligned rows); 3 padded as 1 but the view starts one element
   in (misaligned base). Padding holds 1000, so reading it shows in the result.
   Returns the view; *base the storage (freed by the caller). */
static gk_tensor up_ld(gk_ctx *c, gk_dtype dt, int nd, const int64_t *shape, const double *v, int mode, gk_tensor *base) {
    int64_t sh[3], rows = 1, cols = shape[nd - 1], ld, r, j, off = mode == 3 ? 1 : 0;
    double *p;
    gk_tensor view;
    int i;
    if (mode == 0) { *base = up(c, dt, nd, shape, v); return *base; }
    ld = mode == 2 ? (cols % 2 ? cols + 2 : cols + 1) : cols + (8 - cols % 8) % 8 + 8;
    for (i = 0; i < nd; i++) sh[i] = shape[i];
    sh[nd - 1] = ld;
    for (i = 0; i < nd - 1; i++) rows *= shape[i];
    p = (double *)malloc((size_t)(rows * ld) * 8 + 8);
    for (r = 0; r < rows * ld; r++) p[r] = 1000;
    for (r = 0; r < rows; r++)
        for (j = 0; j < cols; j++) p[r * ld + j + off] = v[r * cols + j];
    *base = up(c, dt, nd, sh, p);
    free(p);
    if (gk_view_slice(c, *base, nd - 1, off, off + cols, 1, &view) != GK_OK) { printf("slice: %s\n", gk_last_error(c)); exit(2); }
    return view;
}
static double *down(gk_ctx *c, gk_tensor t, gk_dtype dt, int64_t n) {
    double *v = (double *)malloc((size_t)n * 8 + 8);
    void *b = malloc((size_t)n * 8 + 8);
    gk_tensor ct;
    gk_contiguous(c, t, &ct);
    if (gk_copy_to_host(c, ct, b, (size_t)n * gk_dtype_size(dt)) != GK_OK) printf("download: %s\n", gk_last_error(c));
    gk_convert(GK_F64, v, dt, b, (size_t)n);
    gk_tensor_free(c, ct);
    free(b);
    return v;
}

typedef struct {
    gk_dtype dt, odt;
    int64_t batch, M, N, K;
    int ta, tb, a3, b3;           /* transposed storage; 3-d operands */
    int bias, res, tf32;
    gk_act act;
    double alpha, beta;
    gk_matmul_backend be;
    int linear;                   /* gk_linear(x [M,K], w [N,K]) */
    int lda, ldb;                 /* storage of A / B: up_ld's mode */
} mcase;

/* one case on one context: returns the relative error against the f64 product */
static double run(gk_ctx *c, const mcase *k, const double *A, const double *B, const double *bias, const double *res,
                  const double *O0, const double *want, const double *mag, gk_status *stout) {
    int64_t Ash[3], Bsh[3], Osh[3], n = k->batch * k->M * k->N;
    gk_tensor ta, tb, to, tbias = { 0 }, tres = { 0 }, va, vb, sa, sb;
    gk_matmul_desc d;
    double e, *got;
    int ad = k->a3 ? 3 : 2, bd = k->b3 ? 3 : 2, od = (k->a3 || k->b3) ? 3 : 2;
    gk_status st;
    /* storage: transposed operands are stored [.., K, M] / [.., N, K] and viewed */
    Ash[0] = k->batch; Bsh[0] = k->batch; Osh[0] = k->batch;
    if (k->linear) {
        int64_t xs[2] = { k->M, k->K }, ws[2] = { k->N, k->K }, os[2] = { k->M, k->N };
        ta = up_ld(c, k->dt, 2, xs, A, k->lda, &sa);
        tb = up_ld(c, k->dt, 2, ws, B, k->ldb, &sb);
        to = up(c, k->odt, 2, os, O0);
        va = ta; vb = tb;
        od = 2;
    } else {
        {
            int64_t r_a = k->ta ? k->K : k->M, c_a = k->ta ? k->M : k->K, r_b = k->tb ? k->N : k->K, c_b = k->tb ? k->K : k->N;
            if (ad == 3) { Ash[1] = r_a; Ash[2] = c_a; } else { Ash[0] = r_a; Ash[1] = c_a; }
            if (bd == 3) { Bsh[1] = r_b; Bsh[2] = c_b; } else { Bsh[0] = r_b; Bsh[1] = c_b; }
            if (od == 3) { Osh[1] = k->M; Osh[2] = k->N; } else { Osh[0] = k->M; Osh[1] = k->N; }
        }
        ta = up_ld(c, k->dt, ad, Ash, A, k->lda, &sa);
        tb = up_ld(c, k->dt, bd, Bsh, B, k->ldb, &sb);
        to = up(c, k->odt, od, Osh, O0);
        va = ta; vb = tb;
        if (k->ta) gk_view_transpose(c, ta, -1, -2, &va);
        if (k->tb) gk_view_transpose(c, tb, -1, -2, &vb);
    }
    memset(&d, 0, sizeof d);
    d.alpha = k->alpha; d.beta = k->beta; d.act = k->act; d.allow_tf32 = k->tf32; d.backend = k->be;
    if (k->bias) { int64_t bs = k->N; tbias = up(c, GK_F32, 1, &bs, bias); d.bias = tbias; }
    if (k->res) { int64_t rs[3] = { k->batch, k->M, k->N }; tres = up(c, k->odt, od, od == 3 ? rs : rs + 1, res); d.residual = tres; }
    (void)Osh;
    st = k->linear ? gk_linear(c, to, va, vb, &d) : gk_matmul(c, to, va, vb, &d);
    *stout = st;
    if (st != GK_OK) { printf("  %s\n", gk_last_error(c)); e = INFINITY; }
    else { got = down(c, to, k->odt, n); e = nrel(got, want, mag, n); free(got); }
    if (va.id != ta.id) gk_tensor_free(c, va);
    if (vb.id != tb.id) gk_tensor_free(c, vb);
    gk_tensor_free(c, ta); gk_tensor_free(c, tb); gk_tensor_free(c, to);
    if (sa.id != ta.id) gk_tensor_free(c, sa);
    if (sb.id != tb.id) gk_tensor_free(c, sb);
    if (tbias.id) gk_tensor_free(c, tbias);
    if (tres.id) gk_tensor_free(c, tres);
    return e;
}

static void check_case(const mcase *k) {
    int64_t b, m, n, kk, na = k->batch * k->M * k->K, nb = k->batch * k->N * k->K, no = k->batch * k->M * k->N;
    double *A = (double *)malloc((size_t)na * 8 + 8), *B = (double *)malloc((size_t)nb * 8 + 8), *O0 = (double *)malloc((size_t)no * 8 + 8);
    double *want = (double *)malloc((size_t)no * 8 + 8), *bias = (double *)malloc((size_t)k->N * 8 + 8), *res = (double *)malloc((size_t)no * 8 + 8);
    double *mag = (double *)malloc((size_t)no * 8 + 8);
    double tol, ed, er;
    gk_status sd, sr;
    char desc[200];
    int abat = k->a3 || k->linear ? 1 : 0, bbat = k->b3 ? 1 : 0;
    rnd(k->dt, A, na);
    rnd(k->dt, B, nb);
    rnd(k->odt, O0, no);
    rnd(GK_F32, bias, k->N);
    rnd(k->odt, res, no);
    /* the f64 product, with the storage layouts used by run(); op(A) rows and
       op(B) columns are first copied out contiguous (ar, bc: fast for the big
       cases) */
    double *ar = (double *)malloc((size_t)k->K * 8 + 8), *bc = (double *)malloc((size_t)(k->N * k->K) * 8 + 8);
    for (b = 0; b < k->batch; b++) {
        int64_t ba = (k->a3 ? b : 0) * k->M * k->K, bb = (k->b3 ? b : 0) * k->K * k->N;
        for (n = 0; n < k->N; n++)
            for (kk = 0; kk < k->K; kk++)
                bc[n * k->K + kk] = k->linear ? B[n * k->K + kk] : k->tb ? B[bb + n * k->K + kk] : B[bb + kk * k->N + n];
        for (m = 0; m < k->M; m++) {
            for (kk = 0; kk < k->K; kk++) ar[kk] = k->linear ? A[m * k->K + kk] : k->ta ? A[ba + kk * k->M + m] : A[ba + m * k->K + kk];
            for (n = 0; n < k->N; n++) {
                double acc = 0, v, am = 0;
                for (kk = 0; kk < k->K; kk++) {
                    double a = ar[kk], w = bc[n * k->K + kk];
                    acc += a * w;
                    am += fabs(a * w);
                }
                v = (k->alpha == 0 ? 1 : k->alpha) * acc + k->beta * O0[(b * k->M + m) * k->N + n];
                if (k->bias) v += bias[n];
                v = act_ref(v, k->act);
                if (k->res) v += res[(b * k->M + m) * k->N + n];
                want[(b * k->M + m) * k->N + n] = v;
                /* the scale rounding errors are relative to: |alpha| |A| |B| and the epilogue terms */
                mag[(b * k->M + m) * k->N + n] = fabs(k->alpha == 0 ? 1 : k->alpha) * am + fabs(k->beta * O0[(b * k->M + m) * k->N + n]) +
                                                 (k->bias ? fabs(bias[n]) : 0) + (k->res ? fabs(res[(b * k->M + m) * k->N + n]) : 0) + fabs(v);
            }
        }
    }
    free(ar); free(bc);
    (void)abat; (void)bbat;
    tol = (k->odt == GK_F16 || k->odt == GK_BF16) ? 1e-2 : k->tf32 ? 2e-3 : (k->dt == GK_F16 || k->dt == GK_BF16) ? 1e-5 : k->dt == GK_F64 ? 1e-12 : 1e-5;
    snprintf(desc, sizeof desc, "%s->%s b%lld M%lld N%lld K%lld %s%s%s%s bias%d res%d act%d a%g b%g tf32 %d be%d ld%d%d", gk_dtype_name(k->dt),
             gk_dtype_name(k->odt), (long long)k->batch, (long long)k->M, (long long)k->N, (long long)k->K, k->linear ? "linear" : k->ta ? "T" : "N",
             k->linear ? "" : k->tb ? "T" : "N", k->a3 ? " a3" : "", k->b3 ? " b3" : "", k->bias, k->res, (int)k->act, k->alpha, k->beta, k->tf32, (int)k->be, k->lda, k->ldb);
    ed = run(D, k, A, B, bias, res, O0, want, mag, &sd);
    GKT_CHECK(sd == GK_OK && ed <= tol, "device: %s: rel err %.3g (bound %.0e)", desc, ed, tol);
    if (gk_ctx_backend(D) == GK_BACKEND_CUDA && (k->M * k->N * k->K * k->batch) <= (int64_t)40000000) {
        mcase kr = *k;
        kr.be = GK_MATMUL_AUTO;
        er = run(R, &kr, A, B, bias, res, O0, want, mag, &sr);
        GKT_CHECK(sr == GK_OK && er <= tol, "CPU reference: %s: rel err %.3g", desc, er);
    }
    free(A); free(B); free(O0); free(want); free(bias); free(res); free(mag);
}

int main(void) {
    static const int64_t dims[] = { 1, 17, 100, 129 };
    static const gk_dtype dts[] = { GK_F32, GK_BF16, GK_F16, GK_F64 };
    mcase k;
    int i, j, l, t, bk, pass, hop;
    gk_device_info info;
    int64_t s22[2] = { 2, 2 }, s23[2] = { 2, 3 }, s34[2] = { 3, 4 };
    gk_tensor a, b, o, x;
    gkt_seed();
    D = gkt_dut();
    R = gkt_ref();
    gk_device_info_get(D, &info);
    /* layouts x awkward sizes x dtypes, both forced backends on a GPU */
    for (bk = 0; bk < (info.backend == GK_BACKEND_CUDA ? 3 : 1); bk++)
        for (t = 0; t < 4; t++)
            for (i = 0; i < 4; i++)
                for (j = 0; j < 4; j++)
                    for (l = 0; l < 4; l++) {
                        memset(&k, 0, sizeof k);
                        k.dt = dts[t]; k.odt = dts[t]; k.batch = 1;
                        k.M = dims[i]; k.N = dims[j]; k.K = dims[l];
                        k.ta = (i + j + l) % 2; k.tb = (i + l) / 2 % 2;
                        k.be = (gk_matmul_backend)bk;
                        if (k.be == GK_MATMUL_CUBLASLT && (!info.has_cublaslt)) continue;
                        if ((i * 16 + j * 4 + l) % 3 != t % 3 && k.be == GK_MATMUL_AUTO) continue; /* a third per dtype */
                        check_case(&k);
                    }
    /* large and awkward */
    {
        static const int64_t big[][3] = { { 1000, 129, 4097 }, { 4097, 17, 100 }, { 129, 1000, 1000 } };
        for (i = 0; i < 3; i++)
            for (t = 0; t < 2; t++) {
                memset(&k, 0, sizeof k);
                k.dt = t ? GK_BF16 : GK_F32; k.odt = k.dt; k.batch = 1;
                k.M = big[i][0]; k.N = big[i][1]; k.K = big[i][2]; k.tb = i % 2;
                check_case(&k);
                if (info.backend == GK_BACKEND_CUDA) { k.be = GK_MATMUL_GPUKIT; check_case(&k); }
            }
    }
    /* epilogues, batches, output dtypes, tf32 */
    for (i = 0; i < 16; i++) {
        memset(&k, 0, sizeof k);
        k.dt = i % 4 == 3 ? GK_F16 : i % 2 ? GK_BF16 : GK_F32;
        k.odt = i % 5 == 0 && k.dt != GK_F32 ? GK_F32 : k.dt;
        k.batch = 1 + i % 3; k.M = 33; k.N = 31; k.K = 65;
        k.a3 = k.batch > 1 || i % 4 == 1; k.b3 = k.batch > 1 && i % 2 == 0;
        k.ta = i % 3 == 0; k.tb = i % 4 == 2;
        k.bias = i % 2; k.res = i % 3 == 1; k.act = (gk_act)(i % 5);
        k.alpha = i % 4 == 0 ? 0.5 : 0; k.beta = i % 6 == 0 ? 0.25 : 0;
        k.be = info.backend == GK_BACKEND_CUDA ? (gk_matmul_backend)(i % 3) : GK_MATMUL_AUTO;
        if (k.be == GK_MATMUL_CUBLASLT && !info.has_cublaslt) k.be = GK_MATMUL_AUTO;
        check_case(&k);
    }
    for (i = 0; i < 2; i++) { /* tf32 only when asked */
        memset(&k, 0, sizeof k);
        k.dt = GK_F32; k.odt = GK_F32; k.batch = 1; k.M = 129; k.N = 100; k.K = 1000; k.tf32 = 1;
        k.be = i ? GK_MATMUL_AUTO : GK_MATMUL_GPUKIT;
        check_case(&k);
    }
    /* gpukit's tensor-core kernels (backend GPUKIT; kernels/gemm_tc.cu on
       sm_80+): 16-byte rows (padded storage), every layout, awkward M, N, K
       (K not a multiple of the 32-wide k tile), batches, epilogues, output
       dtypes; then misaligned rows and bases, which fall back to the SIMT
       kernel and must still be right. On a compute capability 9.0 device
       the 16-bit and tf32 cases run on the wgmma kernel (kernels/gemm_wg.cu)
       in the first pass and on the mma.sync kernel (tune.wg_mode = 0) in the second. */
    hop = info.backend == GK_BACKEND_CUDA && info.cc_major == 9 && info.cc_minor == 0;
    for (pass = 0; pass < (hop ? 2 : 1); pass++) {
        gk__tune(D)->wg_mode = pass ? 0 : -1;
        static const int64_t tcd[] = { 1, 17, 100, 129, 1000 };
        static const int64_t tcbig[][3] = { { 4097, 136, 264 }, { 100, 4097, 520 }, { 136, 264, 4097 } };
        for (i = 0; i < 5; i++)
            for (j = 0; j < 5; j++)
                for (l = 0; l < 5; l++) {
                    int c3 = i * 25 + j * 5 + l;
                    if (c3 % 4 != 0 && !(i == 4 && j == 3)) continue; /* a quarter, plus all K at 1000 x 129 */
                    memset(&k, 0, sizeof k);
                    k.dt = c3 % 3 == 0 ? GK_F16 : GK_BF16;
                    k.odt = c3 % 5 == 0 ? GK_F32 : c3 % 5 == 1 ? (k.dt == GK_F16 ? GK_BF16 : GK_F16) : k.dt;
                    k.batch = 1; k.M = tcd[i]; k.N = tcd[j]; k.K = tcd[l];
                    k.ta = c3 % 2; k.tb = c3 / 2 % 2; k.lda = 1; k.ldb = 1;
                    k.be = GK_MATMUL_GPUKIT;
                    check_case(&k);
                }
        for (i = 0; i < 3; i++)
            for (t = 0; t < 2; t++) {
                memset(&k, 0, sizeof k);
                k.dt = t ? GK_F16 : GK_BF16; k.odt = t ? GK_F32 : GK_BF16; k.batch = 1;
                k.M = tcbig[i][0]; k.N = tcbig[i][1]; k.K = tcbig[i][2];
                k.ta = i == 1; k.tb = (i + t) % 2; k.lda = 1; k.ldb = 1; k.be = GK_MATMUL_GPUKIT;
                check_case(&k);
            }
        for (i = 0; i < 24; i++) { /* layouts x epilogues x batches x storage modes */
            memset(&k, 0, sizeof k);
            k.dt = i % 2 ? GK_BF16 : GK_F16;
            k.odt = i % 3 == 0 ? GK_F32 : k.dt;
            k.batch = 1 + i % 3; k.M = 130; k.N = 72; k.K = 88;
            k.a3 = k.batch > 1 || i % 4 == 1; k.b3 = k.batch > 1 && i % 4 != 3;
            k.ta = i / 2 % 2; k.tb = i / 4 % 2;
            k.bias = i % 2 == 0; k.res = i % 3 == 1; k.act = (gk_act)(i % 5);
            k.alpha = i % 4 == 0 ? 0.5 : 0; k.beta = i % 6 == 0 ? 0.25 : 0;
            k.lda = i < 16 ? 1 : 1 + i % 3; k.ldb = i < 16 ? 1 : 1 + (i + 1) % 3; /* 2, 3: misaligned: the SIMT fallback */
            k.be = GK_MATMUL_GPUKIT;
            check_case(&k);
        }
        for (i = 0; i < 8; i++) { /* gk_linear (x @ w^T) on tensor cores; w rows 16-byte aligned */
            memset(&k, 0, sizeof k);
            k.dt = i % 2 ? GK_BF16 : GK_F16; k.odt = k.dt; k.batch = 1;
            k.M = i < 4 ? 100 : 1000; k.N = i % 3 ? 264 : 100; k.K = i % 4 == 3 ? 100 : 1000;
            k.linear = 1; k.bias = 1; k.act = (gk_act)(i % 5); k.res = i % 2; k.be = GK_MATMUL_GPUKIT;
            check_case(&k);
        }
        for (i = 0; i < 8; i++) { /* tf32 on tensor cores (only when asked): its own bound */
            memset(&k, 0, sizeof k);
            k.dt = GK_F32; k.odt = i == 7 ? GK_BF16 : GK_F32; k.batch = 1 + (i == 5); k.M = i < 4 ? 129 : 300; k.N = i % 2 ? 100 : 264; k.K = i == 6 ? 4097 : 1000;
            k.ta = i % 2; k.tb = i / 2 % 2; k.a3 = k.b3 = k.batch > 1; k.lda = i == 4 ? 2 : 1; k.ldb = 1; k.tf32 = 1;
            k.bias = i % 3 == 0; k.act = (gk_act)(i % 5); k.be = GK_MATMUL_GPUKIT;
            check_case(&k);
        }
    }
    gk__tune(D)->wg_mode = -1;
    /* the Hopper kernel (kernels/gemm_wg.cu: wgmma fed by TMA, 128x256 and
       128x128 tiles, k tiles of 64): tile-sized and ragged M / N / K, all four
       layouts, batches (shared and per-batch operands), every epilogue and
       output dtype; on a 9.0 device each must have launched it. Misaligned
       rows or bases must not (gemm_tc's rules; they take the SIMT kernel). */
    {
        static const int64_t wgs[][4] = { { 1, 256, 512, 320 }, { 1, 1000, 1024, 4096 }, { 3, 130, 264, 200 }, { 1, 129, 136, 72 },
                                          { 2, 300, 520, 1000 }, { 1, 4097, 256, 64 }, { 1, 128, 8, 8 }, { 1, 2000, 2000, 136 } };
        for (i = 0; i < 8; i++)
            for (l = 0; l < 4; l++) {
                long before = gk__tune(D)->wg_launches;
                if ((i == 1 || i == 7) && (l % 2 == 1 || info.backend != GK_BACKEND_CUDA)) continue; /* the big ones: NN and TN, on a GPU */
                memset(&k, 0, sizeof k);
                k.dt = (i + l) % 2 ? GK_BF16 : GK_F16;
                k.odt = (i + l) % 3 == 0 ? GK_F32 : (i + l) % 5 == 1 ? (k.dt == GK_F16 ? GK_BF16 : GK_F16) : k.dt;
                k.batch = wgs[i][0]; k.M = wgs[i][1]; k.N = wgs[i][2]; k.K = wgs[i][3];
                k.ta = l / 2; k.tb = l % 2;
                k.a3 = k.batch > 1; k.b3 = k.batch > 1 && (i + l) % 2 == 0;
                k.bias = (i + l) % 2 == 0; k.res = (i + l) % 3 == 1; k.act = (gk_act)((i + l) % 5);
                k.alpha = (i + l) % 4 == 0 ? 0.5 : 0; k.beta = (i + l) % 6 == 0 ? 0.25 : 0;
                if (i == 0 || i == 1) { k.bias = k.res = 0; k.act = GK_ACT_NONE; k.alpha = k.beta = 0; } /* the plain product's store */
                k.lda = (i + l) % 3 == 0 ? 0 : 1; k.ldb = (i + l) % 4 == 0 ? 0 : 1; /* packed when K, M, N keep rows 16-byte aligned */
                if ((k.lda == 0 && (k.ta ? k.M : k.K) % 8 != 0) || (k.ldb == 0 && (k.tb ? k.K : k.N) % 8 != 0)) k.lda = k.ldb = 1;
                k.be = GK_MATMUL_GPUKIT;
                check_case(&k);
                if (hop) GKT_CHECK(gk__tune(D)->wg_launches > before, "wgmma path not taken: case %d layout %d", i, l);
            }
        for (i = 0; i < 4; i++) { /* gk_linear on it, and misaligned storage that must fall back */
            long before = gk__tune(D)->wg_launches;
            memset(&k, 0, sizeof k);
            k.dt = i % 2 ? GK_BF16 : GK_F16; k.odt = k.dt; k.batch = 1; k.M = 520; k.N = 264; k.K = 1000;
            if (i < 2) { k.linear = 1; k.bias = 1; k.act = GK_ACT_SILU; k.res = 1; }
            else { k.lda = i == 2 ? 2 : 1; k.ldb = i == 3 ? 3 : 1; k.tb = 1; }
            k.be = GK_MATMUL_GPUKIT;
            check_case(&k);
            if (hop) GKT_CHECK(i < 2 ? gk__tune(D)->wg_launches > before : gk__tune(D)->wg_launches == before, "case %d: wgmma launches %ld -> %ld", i, before,
                               gk__tune(D)->wg_launches);
        }
        /* tf32 (f32 with allow_tf32) on it: wgmma reads tf32 operands K-major
           only, so the M-major A / N-major B layouts go through the transpose
           into scratch first (gk_wg_tr32); ragged K (not a multiple of the
           32-element k tile, nor of 4: padded scratch rows), shared and
           per-batch operands, every epilogue and output dtype; the tf32 bound */
        {
            static const int64_t wgt[][4] = { { 1, 256, 512, 320 }, { 1, 1000, 1024, 4096 }, { 3, 130, 264, 200 }, { 1, 129, 136, 37 },
                                              { 2, 300, 520, 1000 }, { 1, 4097, 256, 36 }, { 1, 128, 8, 8 }, { 1, 33, 2000, 101 } };
            for (i = 0; i < 8; i++)
                for (l = 0; l < 4; l++) {
                    long before = gk__tune(D)->wg_launches;
                    if (i == 1 && (l % 2 == 1 || info.backend != GK_BACKEND_CUDA)) continue; /* the big one: NN and TN, on a GPU */
                    memset(&k, 0, sizeof k);
                    k.dt = GK_F32; k.tf32 = 1;
                    k.odt = (i + l) % 5 == 1 ? GK_BF16 : (i + l) % 7 == 2 ? GK_F16 : GK_F32;
                    k.batch = wgt[i][0]; k.M = wgt[i][1]; k.N = wgt[i][2]; k.K = wgt[i][3];
                    k.ta = l / 2; k.tb = l % 2;
                    k.a3 = k.batch > 1; k.b3 = k.batch > 1 && (i + l) % 2 == 0;
                    k.bias = (i + l) % 2 == 0; k.res = (i + l) % 3 == 1; k.act = (gk_act)((i + l) % 5);
                    k.alpha = (i + l) % 4 == 0 ? 0.5 : 0; k.beta = (i + l) % 6 == 0 ? 0.25 : 0;
                    if (i == 0 || i == 1) { k.bias = k.res = 0; k.act = GK_ACT_NONE; k.alpha = k.beta = 0; }
                    k.lda = (i + l) % 3 == 0 ? 0 : 1; k.ldb = (i + l) % 4 == 0 ? 0 : 1; /* packed when rows stay 16-byte aligned */
                    if ((k.lda == 0 && (k.ta ? k.M : k.K) % 4 != 0) || (k.ldb == 0 && (k.tb ? k.K : k.N) % 4 != 0)) k.lda = k.ldb = 1;
                    k.be = GK_MATMUL_GPUKIT;
                    check_case(&k);
                    if (hop) GKT_CHECK(gk__tune(D)->wg_launches > before, "tf32 wgmma path not taken: case %d layout %d", i, l);
                }
            for (i = 0; i < 4; i++) { /* gk_linear in tf32 (K-major: no transpose); misaligned rows; tf32 not asked */
                long before = gk__tune(D)->wg_launches;
                memset(&k, 0, sizeof k);
                k.dt = GK_F32; k.odt = GK_F32; k.batch = 1; k.M = 520; k.N = 264; k.K = 1000; k.tf32 = i != 3;
                if (i == 0) { k.linear = 1; k.bias = 1; k.act = GK_ACT_SILU; k.res = 1; }
                else if (i == 1) { k.lda = 2; k.ldb = 1; k.tb = 1; k.ta = 1; }
                else if (i == 2) { k.lda = 1; k.ldb = 3; }
                else { k.lda = 1; k.ldb = 1; }
                k.be = GK_MATMUL_GPUKIT;
                check_case(&k);
                if (hop) GKT_CHECK(i == 0 ? gk__tune(D)->wg_launches > before : gk__tune(D)->wg_launches == before, "tf32 case %d: wgmma launches %ld -> %ld", i,
                                   before, gk__tune(D)->wg_launches);
            }
        }
    }
    /* the exact f32 kernel (kernels/gemm_f32.cu; backend GPUKIT, no tf32):
       16-byte rows (padded storage), every layout, ragged M, N, K (1, 17,
       100, 129, 1000, 4097: edges of the 128x128 tile and the 8-deep k tile),
       batches (shared and per-batch operands), every epilogue and output
       dtype, gk_linear; on a GPU each must have launched it (tune.sg_launches)
       when M, N, K > 1 (a dimension of 1 may give a unit leading stride,
       which takes the SIMT kernel). Misaligned rows or bases must not launch
       it, and the SIMT kernel (tune.sg_mode = 0) must agree on aligned ones. */
    {
        static const int64_t sgd[] = { 1, 17, 100, 129, 1000 };
        static const int64_t sgbig[][4] = { { 1, 4097, 136, 72 }, { 1, 100, 4097, 136 }, { 1, 64, 136, 4097 }, { 2, 257, 129, 300 },
                                            { 3, 130, 200, 72 }, { 1, 128, 128, 8 }, { 2, 1000, 64, 33 }, { 1, 520, 264, 136 } };
        int cuda = info.backend == GK_BACKEND_CUDA;
        for (i = 0; i < 5; i++)
            for (j = 0; j < 5; j++)
                for (l = 0; l < 5; l++) {
                    int c3 = i * 25 + j * 5 + l;
                    long before = gk__tune(D)->sg_launches;
                    if (c3 % 3 != 0 && !(i == 3 && j == 4)) continue; /* a third, plus all K at 129 x 1000 */
                    memset(&k, 0, sizeof k);
                    k.dt = GK_F32; k.odt = c3 % 7 == 1 ? GK_BF16 : c3 % 7 == 2 ? GK_F16 : GK_F32;
                    k.batch = 1; k.M = sgd[i]; k.N = sgd[j]; k.K = sgd[l];
                    k.ta = c3 % 2; k.tb = c3 / 2 % 2; k.lda = 1; k.ldb = 1;
                    k.be = GK_MATMUL_GPUKIT;
                    check_case(&k);
                    if (cuda && k.M > 1 && k.N > 1 && k.K > 1) GKT_CHECK(gk__tune(D)->sg_launches > before, "f32 kernel not taken: M%lld N%lld K%lld layout %d%d",
                                                                      (long long)k.M, (long long)k.N, (long long)k.K, k.ta, k.tb);
                    if (cuda && k.M > 1 && k.N > 1 && k.K > 1) /* the rule: f32 out of NN on the k 8 kernel, the other layouts on variant 1 (k 16) */
                        GKT_CHECK(gk__tune(D)->sg_last == (k.odt == GK_F32 && (k.ta || k.tb) ? 1 : 0), "f32 M%lld N%lld K%lld layout %d%d out %s: variant %d",
                                  (long long)k.M, (long long)k.N, (long long)k.K, k.ta, k.tb, gk_dtype_name(k.odt), gk__tune(D)->sg_last);
                }
        for (i = 0; i < 8; i++)
            for (l = 0; l < 4; l++) {
                long before = gk__tune(D)->sg_launches;
                if ((i == 1 || i == 2) && l % 2 == 1) continue; /* the 4097s: two layouts each */
                memset(&k, 0, sizeof k);
                k.dt = GK_F32; k.odt = (i + l) % 5 == 1 ? GK_BF16 : (i + l) % 7 == 2 ? GK_F16 : GK_F32;
                k.batch = sgbig[i][0]; k.M = sgbig[i][1]; k.N = sgbig[i][2]; k.K = sgbig[i][3];
                k.ta = l / 2; k.tb = l % 2;
                k.a3 = k.batch > 1; k.b3 = k.batch > 1 && (i + l) % 2 == 0;
                k.bias = (i + l) % 2 == 0; k.res = (i + l) % 3 == 1; k.act = (gk_act)((i + l) % 5);
                k.alpha = (i + l) % 4 == 0 ? 0.5 : 0; k.beta = (i + l) % 6 == 0 ? 0.25 : 0;
                k.lda = (i + l) % 3 == 0 ? 0 : 1; k.ldb = (i + l) % 4 == 0 ? 0 : 1; /* packed when that keeps rows 16-byte aligned */
                if ((k.lda == 0 && (k.ta ? k.M : k.K) % 4 != 0) || (k.ldb == 0 && (k.tb ? k.K : k.N) % 4 != 0)) k.lda = k.ldb = 1;
                k.be = GK_MATMUL_GPUKIT;
                check_case(&k);
                if (cuda) GKT_CHECK(gk__tune(D)->sg_launches > before, "f32 kernel not taken: case %d layout %d", i, l);
            }
        for (i = 0; i < 8; i++) { /* gk_linear (x @ w^T: NT); misaligned rows and bases; the SIMT kernel forced */
            long before = gk__tune(D)->sg_launches;
            int want = i < 2;
            memset(&k, 0, sizeof k);
            k.dt = GK_F32; k.odt = GK_F32; k.batch = 1; k.M = 300; k.N = 264; k.K = 1000;
            if (i < 2) { k.linear = 1; k.bias = 1; k.act = i ? GK_ACT_SILU : GK_ACT_GELU_TANH; k.res = 1; k.lda = 1; k.ldb = i; }
            else if (i < 6) { k.ta = i % 2; k.tb = i / 2 % 2; k.lda = i % 2 ? 2 : 3; k.ldb = i % 3 == 0 ? 3 : 1; k.bias = 1; k.beta = 0.5; }
            else { gk__tune(D)->sg_mode = 0; k.ta = i == 7; k.tb = 1; k.lda = k.ldb = 1; k.bias = 1; k.act = GK_ACT_RELU; k.res = 1; }
            k.be = GK_MATMUL_GPUKIT;
            check_case(&k);
            gk__tune(D)->sg_mode = -1;
            if (cuda) GKT_CHECK(want ? gk__tune(D)->sg_launches > before : gk__tune(D)->sg_launches == before, "f32 case %d: launches %ld -> %ld", i, before, gk__tune(D)->sg_launches);
        }
        for (i = 0; i < 16; i++) { /* both tile variants forced whatever the layout (tune.sg_variant 0 / 1: k 8, k 16), f32 out */
            long before = gk__tune(D)->sg_launches;
            memset(&k, 0, sizeof k);
            k.dt = GK_F32; k.odt = GK_F32; k.batch = 1 + (i % 5 == 4); k.M = i % 3 ? 300 : 257; k.N = i % 2 ? 264 : 129; k.K = i % 4 == 3 ? 1000 : 33 + 8 * i;
            k.ta = i / 3 % 2; k.tb = i / 6 % 2; k.a3 = k.b3 = k.batch > 1; k.lda = k.ldb = 1;
            k.bias = i % 2; k.res = i % 3 == 0; k.act = (gk_act)(i % 5); k.beta = i % 4 == 1 ? 0.5 : 0;
            k.be = GK_MATMUL_GPUKIT;
            gk__tune(D)->sg_variant = i % 2;
            check_case(&k);
            gk__tune(D)->sg_variant = -1;
            if (cuda) GKT_CHECK(gk__tune(D)->sg_launches > before && gk__tune(D)->sg_last == i % 2, "f32 variant case %d: variant %d asked, launches %ld -> %ld, variant %d ran",
                                i, i % 2, before, gk__tune(D)->sg_launches, gk__tune(D)->sg_last);
        }
    }
    /* linear / GEMV: M = 1..8 rows against a [N, K] weight */
    for (i = 1; i <= 8; i++)
        for (t = 0; t < 3; t++) {
            memset(&k, 0, sizeof k);
            k.dt = t == 0 ? GK_F32 : t == 1 ? GK_BF16 : GK_F16; k.odt = k.dt; k.batch = 1;
            k.M = i; k.N = i % 2 ? 4097 : 17; k.K = i % 3 ? 1024 : 136;
            k.linear = 1; k.bias = i % 2; k.act = (gk_act)(i % 5); k.res = i % 3 == 0;
            check_case(&k);
        }
    memset(&k, 0, sizeof k); /* odd K: not the vector path */
    k.dt = GK_BF16; k.odt = GK_BF16; k.batch = 1; k.M = 3; k.N = 100; k.K = 33; k.linear = 1;
    check_case(&k);
    /* bad input */
    GKT_OK(D, gk_tensor_empty(D, GK_F32, 2, s23, &a));
    GKT_OK(D, gk_tensor_empty(D, GK_F32, 2, s22, &b));
    GKT_OK(D, gk_tensor_empty(D, GK_F32, 2, s22, &o));
    GKT_FAILS(D, gk_matmul(D, o, a, b, NULL), GK_ERR_SHAPE, "inner dimensions differ");
    gk_tensor_free(D, b);
    GKT_OK(D, gk_tensor_empty(D, GK_F32, 2, s34, &b));
    GKT_FAILS(D, gk_matmul(D, o, a, b, NULL), GK_ERR_SHAPE, "out is [2,2] but the product is [2, 4]");
    GKT_OK(D, gk_tensor_empty(D, GK_I32, 2, s34, &x));
    GKT_FAILS(D, gk_matmul(D, o, a, x, NULL), GK_ERR_DTYPE, "must be one of");
    gk_tensor_free(D, x);
    {
        gk_matmul_desc d;
        gk_tensor bf, ob, bi;
        int64_t s4[1] = { 5 };
        memset(&d, 0, sizeof d);
        GKT_OK(D, gk_tensor_empty(D, GK_F32, 2, (int64_t[]){ 2, 4 }, &ob));
        GKT_OK(D, gk_tensor_empty(D, GK_F32, 1, s4, &bi));
        d.bias = bi;
        GKT_FAILS(D, gk_matmul(D, ob, a, b, &d), GK_ERR_SHAPE, "bias must be a contiguous float vector of 4");
        d.bias.id = 0;
        d.act = (gk_act)9;
        GKT_FAILS(D, gk_matmul(D, ob, a, b, &d), GK_ERR_INVALID_ARGUMENT, "invalid act");
        GKT_OK(D, gk_cast_new(D, a, GK_BF16, &bf));
        d.act = GK_ACT_NONE;
        d.allow_tf32 = 1;
        GKT_FAILS(D, gk_matmul(D, ob, bf, bf, &d), GK_ERR_DTYPE, "allow_tf32");
        gk_tensor_free(D, bf); gk_tensor_free(D, ob); gk_tensor_free(D, bi);
    }
    {   /* a view that is contiguous in neither of its last two dims */
        gk_tensor big, v;
        GKT_OK(D, gk_tensor_empty(D, GK_F32, 2, (int64_t[]){ 4, 8 }, &big));
        gk_tensor o44;
        GKT_OK(D, gk_view_slice(D, big, 1, 0, 8, 2, &v)); /* [4, 4] with strides [8, 2] */
        GKT_OK(D, gk_tensor_empty(D, GK_F32, 2, (int64_t[]){ 4, 4 }, &o44));
        GKT_FAILS(D, gk_matmul(D, o44, v, v, NULL), GK_ERR_SHAPE, "row-major or column-major");
        gk_tensor_free(D, v); gk_tensor_free(D, big); gk_tensor_free(D, o44);
    }
    gk_tensor_free(D, a); gk_tensor_free(D, b); gk_tensor_free(D, o);
    gk_ctx_destroy(D);
    gk_ctx_destroy(R);
    return gkt_done("test_matmul");
}
