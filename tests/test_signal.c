/* test_signal.c - convolutions, weight norm, LSTM, FFT / rfft / irfft,
   STFT / iSTFT, magnitude / phase, mel filters, Whisper log-mel.
   Each op runs on the device under test (CUDA when present) against the CPU
   reference with fresh random inputs and poisoned outputs; the CPU reference
   itself is checked against independent computations here (a naive DFT in
   double, direct convolution loops, a naive LSTM step loop, identities such
   as irfft(rfft(x)) == x, iSTFT(STFT(x)) == x, Parseval, mel filter areas)
   and, when tests/fixtures/signal/index.txt exists (tests/gen_signal_fixtures.py
   on a machine with PyTorch), against PyTorch / HF outputs. */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkt.h"

static gk_ctx *D, *R;
static const gk_tensor NONE = { 0 };
static const double PI = 3.14159265358979323846;

typedef struct { gk_tensor d, r; } pair;
static pair up(gk_dtype dt, int nd, const int64_t *shape, const float *v) {
    pair p;
    gk_tensor_info info;
    void *b;
    GKT_OK(D, gk_tensor_empty(D, dt, nd, shape, &p.d));
    GKT_OK(R, gk_tensor_empty(R, dt, nd, shape, &p.r));
    gk_tensor_info_get(R, p.r, &info);
    b = malloc(info.nbytes + 16);
    if (v) gk_convert(dt, b, GK_F32, v, (size_t)info.numel);
    else memset(b, 0xFF, info.nbytes); /* poison: NaN in f32 / f16 / bf16 */
    if (info.nbytes) {
        GKT_OK(D, gk_copy_from_host(D, p.d, b, info.nbytes));
        GKT_OK(R, gk_copy_from_host(R, p.r, b, info.nbytes));
    }
    free(b);
    return p;
}
static pair none2(void) { pair p; p.d = NONE; p.r = NONE; return p; }
static void fr(pair p) { if (p.d.id) gk_tensor_free(D, p.d); if (p.r.id) gk_tensor_free(R, p.r); }
static int64_t numel(gk_ctx *c, gk_tensor t) { gk_tensor_info i; gk_tensor_info_get(c, t, &i); return i.numel; }
/* both results as doubles */
static void down(pair p, double *dv, double *rv) {
    gk_tensor_info info;
    void *b;
    gk_tensor_info_get(R, p.r, &info);
    b = malloc(info.nbytes + 16);
    GKT_OK(D, gk_copy_to_host(D, p.d, b, info.nbytes));
    if (dv) gk_convert(GK_F64, dv, info.dtype, b, (size_t)info.numel);
    GKT_OK(R, gk_copy_to_host(R, p.r, b, info.nbytes));
    if (rv) gk_convert(GK_F64, rv, info.dtype, b, (size_t)info.numel);
    free(b);
}
static float *randf(size_t n, double lo, double hi) {
    float *v = (float *)malloc(sizeof(float) * (n + 1));
    size_t i;
    for (i = 0; i < n; i++) v[i] = (float)gkt_uniform(lo, hi);
    return v;
}
static double *dalloc(size_t n) { return (double *)calloc(n + 1, sizeof(double)); }
/* rounds host values to dt (so the independent reference sees what the op sees) */
static void round_to(gk_dtype dt, float *v, size_t n) {
    void *b = malloc(n * 4 + 8);
    gk_convert(dt, b, GK_F32, v, n);
    gk_convert(GK_F32, v, dt, b, n);
    free(b);
}

/* ---------------- FFT ---------------- */
/* naive DFT in double: x [batch][n] complex (interleaved), sign -1 forward */
static void dft(const double *x, double *y, int64_t batch, int64_t n, int inverse) {
    double *c = dalloc((size_t)n), *s = dalloc((size_t)n);
    int64_t b, k, j;
    for (k = 0; k < n; k++) { c[k] = cos(2 * PI * (double)k / (double)n); s[k] = (inverse ? 1 : -1) * sin(2 * PI * (double)k / (double)n); }
    for (b = 0; b < batch; b++)
        for (k = 0; k < n; k++) {
            double re = 0, im = 0;
            for (j = 0; j < n; j++) {
                int64_t e = (j * k) % n;
                double xr = x[(b * n + j) * 2], xi = x[(b * n + j) * 2 + 1];
                re += xr * c[e] - xi * s[e];
                im += xr * s[e] + xi * c[e];
            }
            y[(b * n + k) * 2] = inverse ? re / (double)n : re;
            y[(b * n + k) * 2 + 1] = inverse ? im / (double)n : im;
        }
    free(c);
    free(s);
}

static void test_fft_n(int64_t n, int64_t batch) {
    int64_t sh[3], i, N = batch * n * 2;
    float *xv = randf((size_t)N, -1, 1);
    double *xd = dalloc((size_t)N), *want = dalloc((size_t)N), *gd = dalloc((size_t)N), *gr = dalloc((size_t)N), *back = dalloc((size_t)N);
    pair x, y, z;
    double e1, e2, e3, ex = 0, ey = 0;
    sh[0] = batch; sh[1] = n; sh[2] = 2;
    for (i = 0; i < N; i++) xd[i] = xv[i];
    x = up(GK_F32, 3, sh, xv);
    y = up(GK_F32, 3, sh, NULL);
    z = up(GK_F32, 3, sh, NULL);
    GKT_OK(D, gk_fft(D, y.d, x.d, 0));
    GKT_OK(R, gk_fft(R, y.r, x.r, 0));
    down(y, gd, gr);
    if (n <= 5000) dft(xd, want, batch, n, 0);
    e1 = n <= 5000 ? gkt_relerr(gr, want, (size_t)N) : 0; /* larger: checked through the identities below */
    e2 = gkt_relerr(gd, gr, (size_t)N);
    GKT_CHECK(e1 < 1e-6, "fft n=%lld: CPU vs naive DFT relerr %g", (long long)n, e1);
    GKT_CHECK(e2 < 2e-5 * (1 + log((double)n)), "fft n=%lld: device vs CPU relerr %g", (long long)n, e2);
    /* Parseval: sum |x|^2 = sum |X|^2 / n */
    for (i = 0; i < N; i++) { ex += xd[i] * xd[i]; ey += gr[i] * gr[i]; }
    GKT_CHECK(fabs(ex - ey / (double)n) <= 1e-5 * ex, "Parseval n=%lld: %g vs %g", (long long)n, ex, ey / (double)n);
    /* inverse: ifft(fft(x)) == x, and ifft against the naive inverse DFT */
    GKT_OK(D, gk_fft(D, z.d, y.d, 1));
    GKT_OK(R, gk_fft(R, z.r, y.r, 1));
    down(z, gd, gr);
    e3 = gkt_relerr(gr, xd, (size_t)N);
    GKT_CHECK(e3 < 1e-5, "ifft(fft(x)) n=%lld: CPU relerr %g", (long long)n, e3);
    e3 = gkt_relerr(gd, xd, (size_t)N);
    GKT_CHECK(e3 < 5e-5 * (1 + log((double)n)), "ifft(fft(x)) n=%lld: device relerr %g", (long long)n, e3);
    if (n <= 64) {
        dft(want, back, batch, n, 1);
        GKT_CHECK(gkt_relerr(back, xd, (size_t)N) < 1e-9, "naive inverse DFT n=%lld", (long long)n);
    }
    fr(x); fr(y); fr(z);
    free(xv); free(xd); free(want); free(gd); free(gr); free(back);
}

static void test_rfft_n(int64_t n, int64_t batch) {
    int64_t h = n / 2 + 1, sx[2], sy[3], i, k;
    float *xv = randf((size_t)(batch * n), -1, 1);
    double *xc = dalloc((size_t)(batch * n * 2)), *want = dalloc((size_t)(batch * n * 2)), *wh = dalloc((size_t)(batch * h * 2));
    double *gd = dalloc((size_t)(batch * h * 2)), *gr = dalloc((size_t)(batch * h * 2)), *bd = dalloc((size_t)(batch * n)), *br = dalloc((size_t)(batch * n));
    double *xr = dalloc((size_t)(batch * n));
    pair x, y, z;
    double e;
    sx[0] = batch; sx[1] = n; sy[0] = batch; sy[1] = h; sy[2] = 2;
    for (i = 0; i < batch * n; i++) { xc[2 * i] = xv[i]; xr[i] = xv[i]; }
    dft(xc, want, batch, n, 0);
    for (i = 0; i < batch; i++)
        for (k = 0; k < h; k++) { wh[(i * h + k) * 2] = want[(i * n + k) * 2]; wh[(i * h + k) * 2 + 1] = want[(i * n + k) * 2 + 1]; }
    x = up(GK_F32, 2, sx, xv);
    y = up(GK_F32, 3, sy, NULL);
    z = up(GK_F32, 2, sx, NULL);
    GKT_OK(D, gk_rfft(D, y.d, x.d));
    GKT_OK(R, gk_rfft(R, y.r, x.r));
    down(y, gd, gr);
    e = gkt_relerr(gr, wh, (size_t)(batch * h * 2));
    GKT_CHECK(e < 1e-6, "rfft n=%lld: CPU vs DFT %g", (long long)n, e);
    e = gkt_relerr(gd, gr, (size_t)(batch * h * 2));
    GKT_CHECK(e < 1e-4, "rfft n=%lld: device vs CPU %g", (long long)n, e);
    GKT_OK(D, gk_irfft(D, z.d, y.d));
    GKT_OK(R, gk_irfft(R, z.r, y.r));
    down(z, bd, br);
    e = gkt_relerr(br, xr, (size_t)(batch * n));
    GKT_CHECK(e < 1e-5, "irfft(rfft(x)) n=%lld: CPU %g", (long long)n, e);
    e = gkt_relerr(bd, xr, (size_t)(batch * n));
    GKT_CHECK(e < 1e-4, "irfft(rfft(x)) n=%lld: device %g", (long long)n, e);
    fr(x); fr(y); fr(z);
    free(xv); free(xc); free(want); free(wh); free(gd); free(gr); free(bd); free(br); free(xr);
}

static void test_fft_all(void) {
    int64_t n;
    for (n = 2; n <= 64; n++) test_fft_n(n, 3);
    test_fft_n(400, 2);
    test_fft_n(1000, 1);
    test_fft_n(1024, 2);
    test_fft_n(997, 1);
    test_fft_n(4097, 1);
    test_fft_n(40000, 2);  /* CUDA: too large for shared memory, the global-memory stages */
    test_fft_n(20011, 1);  /* prime: Bluestein over m = 40500, global */
    test_fft_n(65536, 1);
    for (n = 2; n <= 40; n++) test_rfft_n(n, 2);
    test_rfft_n(400, 3);
    test_rfft_n(997, 1);
    test_rfft_n(1024, 1);
    { /* _new variants */
        int64_t sh[2] = { 2, 30 };
        float *v = randf(60, -1, 1);
        gk_tensor x, y, z;
        gk_tensor_info i;
        GKT_OK(D, gk_tensor_from_host(D, GK_F32, 2, sh, v, &x));
        GKT_OK(D, gk_rfft_new(D, x, &y));
        gk_tensor_info_get(D, y, &i);
        GKT_CHECK(i.ndim == 3 && i.shape[1] == 16 && i.shape[2] == 2, "rfft_new shape");
        GKT_OK(D, gk_irfft_new(D, y, 30, &z));
        gk_tensor_info_get(D, z, &i);
        GKT_CHECK(i.ndim == 2 && i.shape[1] == 30, "irfft_new shape");
        gk_tensor_free(D, x); gk_tensor_free(D, y); gk_tensor_free(D, z);
        free(v);
    }
}

/* ---------------- STFT / iSTFT ---------------- */
static double hann(int64_t k, int64_t n) { return 0.5 - 0.5 * cos(2 * PI * (double)k / (double)n); }
/* torch.stft semantics in double: x [B][L] -> [B][F][T][2] */
static void stft_naive(const float *x, int64_t B, int64_t L, int64_t n, int64_t hop, int center, const float *win, double *y, int64_t T) {
    int64_t F = n / 2 + 1, pad = center ? n / 2 : 0, b, t, k, j;
    for (b = 0; b < B; b++)
        for (t = 0; t < T; t++)
            for (k = 0; k < F; k++) {
                double re = 0, im = 0;
                for (j = 0; j < n; j++) {
                    int64_t pos = t * hop + j - pad;
                    double v, w = win ? win[j] : hann(j, n);
                    if (pos < 0) pos = -pos;
                    if (pos >= L) pos = 2 * (L - 1) - pos;
                    v = x[b * L + pos] * w;
                    re += v * cos(2 * PI * (double)((j * k) % n) / (double)n);
                    im -= v * sin(2 * PI * (double)((j * k) % n) / (double)n);
                }
                y[((b * F + k) * T + t) * 2] = re;
                y[((b * F + k) * T + t) * 2 + 1] = im;
            }
}
static void test_stft_case(int64_t B, int64_t L, int64_t n, int64_t hop, int center, int with_window) {
    int64_t F = n / 2 + 1, T = 1 + (L + 2 * (center ? n / 2 : 0) - n) / hop, sx[2], sy[4], sw[1], N;
    float *xv = randf((size_t)(B * L), -1, 1), *wv = NULL;
    double *want, *gd, *gr, *xd, *bd, *br;
    pair x, y, z, w = none2();
    double e;
    int64_t i;
    sx[0] = B; sx[1] = L; sy[0] = B; sy[1] = F; sy[2] = T; sy[3] = 2; sw[0] = n;
    N = B * F * T * 2;
    want = dalloc((size_t)N); gd = dalloc((size_t)N); gr = dalloc((size_t)N);
    xd = dalloc((size_t)(B * L)); bd = dalloc((size_t)(B * L)); br = dalloc((size_t)(B * L));
    if (with_window) { wv = randf((size_t)n, 0.5, 1.0); w = up(GK_F32, 1, sw, wv); }
    x = up(GK_F32, 2, sx, xv);
    y = up(GK_F32, 4, sy, NULL);
    z = up(GK_F32, 2, sx, NULL);
    GKT_OK(D, gk_stft(D, y.d, x.d, w.d, n, hop, center));
    GKT_OK(R, gk_stft(R, y.r, x.r, w.r, n, hop, center));
    down(y, gd, gr);
    stft_naive(xv, B, L, n, hop, center, wv, want, T);
    e = gkt_relerr(gr, want, (size_t)N);
    GKT_CHECK(e < 1e-5, "stft n_fft=%lld hop=%lld L=%lld: CPU vs naive %g", (long long)n, (long long)hop, (long long)L, e);
    e = gkt_relerr(gd, gr, (size_t)N);
    GKT_CHECK(e < 1e-4, "stft n_fft=%lld hop=%lld L=%lld: device vs CPU %g", (long long)n, (long long)hop, (long long)L, e);
    if (center && hop <= n / 2) { /* iSTFT(STFT(x)) == x */
        GKT_OK(D, gk_istft(D, z.d, y.d, w.d, n, hop, center));
        GKT_OK(R, gk_istft(R, z.r, y.r, w.r, n, hop, center));
        down(z, bd, br);
        for (i = 0; i < B * L; i++) xd[i] = xv[i];
        e = gkt_relerr(br, xd, (size_t)(B * L));
        GKT_CHECK(e < 1e-5, "istft(stft(x)) n_fft=%lld hop=%lld L=%lld: CPU %g", (long long)n, (long long)hop, (long long)L, e);
        e = gkt_relerr(bd, xd, (size_t)(B * L));
        GKT_CHECK(e < 1e-4, "istft(stft(x)) n_fft=%lld hop=%lld: device %g", (long long)n, (long long)hop, e);
    }
    fr(x); fr(y); fr(z); fr(w);
    free(xv); free(wv); free(want); free(gd); free(gr); free(xd); free(bd); free(br);
}
static void test_stft(void) {
    test_stft_case(2, 2000, 400, 160, 1, 0);
    test_stft_case(1, 237, 20, 5, 1, 0);
    test_stft_case(3, 101, 20, 5, 1, 1);
    test_stft_case(1, 300, 64, 16, 1, 0);
    test_stft_case(2, 500, 31, 7, 1, 0); /* odd n_fft, Bluestein-free 31? no: prime, Bluestein */
    test_stft_case(1, 333, 50, 10, 0, 0);
    /* the paired-frame kernel on CUDA: n_fft 400 / 512 / 1024 / odd 45, frame counts not a multiple of the tile, short signals */
    test_stft_case(3, 3001, 400, 160, 1, 1);
    test_stft_case(1, 401, 400, 160, 0, 0);  /* one frame */
    test_stft_case(2, 4001, 512, 128, 1, 0);
    test_stft_case(1, 5003, 1024, 256, 1, 1);
    test_stft_case(2, 301, 45, 7, 1, 1);
    test_stft_case(2, 700, 25, 10, 1, 1);    /* first radix 5 (the load fuses the first stage: radix 4 for 400, 3 for 45, 2 for 50) */
    test_stft_case(1, 11, 20, 5, 1, 0);      /* 3 frames, reflect on both sides */
    { /* magnitude and phase */
        int64_t sh[2] = { 37, 2 }, so[1] = { 37 }, i;
        float *zv = randf(74, -2, 2);
        double gd[37], gr[37], ok1 = 1, ok2 = 1;
        pair z = up(GK_F32, 2, sh, zv), a = up(GK_F32, 1, so, NULL), p = up(GK_F32, 1, so, NULL);
        GKT_OK(D, gk_complex_abs(D, a.d, z.d));
        GKT_OK(R, gk_complex_abs(R, a.r, z.r));
        down(a, gd, gr);
        for (i = 0; i < 37; i++) if (fabs(gr[i] - hypot(zv[2 * i], zv[2 * i + 1])) > 1e-6 || fabs(gd[i] - gr[i]) > 1e-6) ok1 = 0;
        GKT_OK(D, gk_complex_angle(D, p.d, z.d));
        GKT_OK(R, gk_complex_angle(R, p.r, z.r));
        down(p, gd, gr);
        for (i = 0; i < 37; i++) if (fabs(gr[i] - atan2(zv[2 * i + 1], zv[2 * i])) > 1e-6 || fabs(gd[i] - gr[i]) > 1e-6) ok2 = 0;
        GKT_CHECK(ok1 && ok2, "complex abs %g / angle %g", ok1, ok2);
        { /* polar(abs(z), angle(z)) == z */
            pair zz = up(GK_F32, 2, sh, NULL);
            double zd[74], zr[74], zw[74];
            for (i = 0; i < 74; i++) zw[i] = zv[i];
            GKT_OK(D, gk_complex_polar(D, zz.d, a.d, p.d));
            GKT_OK(R, gk_complex_polar(R, zz.r, a.r, p.r));
            down(zz, zd, zr);
            GKT_CHECK(gkt_relerr(zr, zw, 74) < 1e-6 && gkt_relerr(zd, zw, 74) < 1e-5, "polar(abs, angle) %g %g", gkt_relerr(zr, zw, 74),
                      gkt_relerr(zd, zw, 74));
            GKT_FAILS(D, gk_complex_polar(D, zz.d, a.d, z.d), GK_ERR_SHAPE, "mag and phase differ");
            fr(zz);
        }
        fr(z); fr(a); fr(p);
        free(zv);
    }
}

/* ---------------- mel filters and Whisper log-mel ---------------- */
static void test_mel(void) {
    int64_t sh[2] = { 40, 1025 }, k, m;
    float *f = (float *)malloc(sizeof(float) * 40 * 1025);
    gk_tensor t;
    int ok = 1;
    double df = 8000.0 / 1024.0;
    GKT_OK(R, gk_tensor_empty(R, GK_F32, 2, sh, &t));
    /* Slaney scale + Slaney norm: every triangle has unit area in Hz */
    GKT_OK(R, gk_mel_filters(R, t, 16000, 0, 8000, GK_MEL_NORM_SLANEY));
    GKT_OK(R, gk_copy_to_host(R, t, f, sizeof(float) * 40 * 1025));
    for (m = 0; m < 40; m++) {
        double s = 0;
        for (k = 0; k < 1025; k++) s += f[m * 1025 + k] * df;
        if (fabs(s - 1) > 0.03) { ok = 0; printf("  filter %lld area %g\n", (long long)m, s); }
    }
    GKT_CHECK(ok, "slaney-normalised mel filters have unit area");
    /* HTK scale, no norm: peaks near 1, zero outside [fmin, fmax] */
    GKT_OK(R, gk_mel_filters(R, t, 16000, 300, 7000, GK_MEL_HTK));
    GKT_OK(R, gk_copy_to_host(R, t, f, sizeof(float) * 40 * 1025));
    ok = 1;
    for (m = 0; m < 40; m++) {
        double mx = 0;
        for (k = 0; k < 1025; k++) {
            double hz = k * df;
            if (f[m * 1025 + k] > mx) mx = f[m * 1025 + k];
            if ((hz < 300 || hz > 7000) && f[m * 1025 + k] != 0) ok = 0;
        }
        if (mx > 1.0 + 1e-6 || mx < 0.8) ok = 0;
    }
    GKT_CHECK(ok, "HTK mel filters: peaks in (0.8, 1], zero outside the band");
    /* the HTK and Slaney scales at known points: 1000 Hz = 15 (Slaney), 999.99 mel (HTK) */
    GKT_CHECK(fabs(gk__hz_to_mel(1000, 0) - 15) < 1e-12 && fabs(gk__hz_to_mel(1000, 1) - 999.9855) < 1e-3 &&
              fabs(gk__mel_to_hz(gk__hz_to_mel(4321, 0), 0) - 4321) < 1e-9, "mel scales");
    gk_tensor_free(R, t);
    free(f);
}
/* Whisper features: device vs CPU, CPU vs an independent naive pipeline */
static void test_whisper(int64_t B, int64_t L, int64_t nsamp, int64_t M) {
    int64_t T = (nsamp > 0 ? nsamp : L) / 160, Ls = nsamp > 0 ? nsamp : L, sa[2], sf[2], so[3], b, t, k, mm, N = B * M * T;
    float *av = randf((size_t)(B * L), -0.5, 0.5), *fv = (float *)malloc(sizeof(float) * (size_t)(M * 201)), *pad;
    double *gd = dalloc((size_t)N), *gr = dalloc((size_t)N), *want = dalloc((size_t)N), *spec;
    gk_tensor ft;
    pair a, f, o;
    double e;
    sa[0] = B; sa[1] = L; sf[0] = M; sf[1] = 201; so[0] = B; so[1] = M; so[2] = T;
    GKT_OK(R, gk_mel_filters_new(R, M, 400, 16000, 0, 8000, GK_MEL_NORM_SLANEY, &ft));
    GKT_OK(R, gk_copy_to_host(R, ft, fv, sizeof(float) * (size_t)(M * 201)));
    gk_tensor_free(R, ft);
    a = up(GK_F32, 2, sa, av);
    f = up(GK_F32, 2, sf, fv);
    o = up(GK_F32, 3, so, NULL);
    GKT_OK(D, gk_whisper_log_mel(D, o.d, a.d, f.d, nsamp));
    GKT_OK(R, gk_whisper_log_mel(R, o.r, a.r, f.r, nsamp));
    down(o, gd, gr);
    /* naive: zero-pad / truncate to Ls, STFT (T+1 frames, last dropped), power, mel, log10, clamp */
    pad = (float *)calloc((size_t)Ls, sizeof(float));
    spec = dalloc((size_t)(201 * (T + 1) * 2));
    for (b = 0; b < B; b++) {
        double mx = -1e300;
        for (k = 0; k < Ls && k < L; k++) pad[k] = av[b * L + k];
        for (; k < Ls; k++) pad[k] = 0;
        stft_naive(pad, 1, Ls, 400, 160, 1, NULL, spec, T + 1);
        for (mm = 0; mm < M; mm++)
            for (t = 0; t < T; t++) {
                double acc = 0, v;
                for (k = 0; k < 201; k++) {
                    double re = spec[(k * (T + 1) + t) * 2], im = spec[(k * (T + 1) + t) * 2 + 1];
                    acc += fv[mm * 201 + k] * (re * re + im * im);
                }
                v = log10(acc > 1e-10 ? acc : 1e-10);
                want[(b * M + mm) * T + t] = v;
                if (v > mx) mx = v;
            }
        for (k = 0; k < M * T; k++) {
            double v = want[b * M * T + k];
            want[b * M * T + k] = ((v > mx - 8 ? v : mx - 8) + 4) / 4;
        }
    }
    e = gkt_relerr(gr, want, (size_t)N);
    GKT_CHECK(e < 1e-5, "whisper log-mel B=%lld L=%lld n=%lld M=%lld: CPU vs naive %g", (long long)B, (long long)L, (long long)nsamp, (long long)M, e);
    e = gkt_relerr(gd, gr, (size_t)N);
    GKT_CHECK(e < 1e-4, "whisper log-mel B=%lld L=%lld M=%lld: device vs CPU %g", (long long)B, (long long)L, (long long)M, e);
    fr(a); fr(f); fr(o);
    free(av); free(fv); free(pad); free(gd); free(gr); free(want); free(spec);
}

/* ---------------- convolutions ---------------- */
/* direct loops in double; nsp 1 or 2 */
static void conv_naive(const float *x, const float *w, const float *bias, double *y, int64_t B, int64_t Cin, int64_t H, int64_t W, int64_t Cout,
                       int64_t KH, int64_t KW, int64_t Ho, int64_t Wo, const int64_t *s, const int64_t *p, const int64_t *d, int64_t G, int tr) {
    int64_t b, co, oh, ow, ci, kh, kw, ih, iw, Cig = Cin / G, Cog = Cout / G;
    for (b = 0; b < B * Cout * Ho * Wo; b++) y[b] = 0;
    if (!tr) {
        for (b = 0; b < B; b++)
            for (co = 0; co < Cout; co++)
                for (oh = 0; oh < Ho; oh++)
                    for (ow = 0; ow < Wo; ow++) {
                        double acc = bias ? bias[co] : 0;
                        for (ci = 0; ci < Cig; ci++)
                            for (kh = 0; kh < KH; kh++)
                                for (kw = 0; kw < KW; kw++) {
                                    ih = oh * s[0] - p[0] + kh * d[0];
                                    iw = ow * s[1] - p[1] + kw * d[1];
                                    if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                    acc += (double)x[((b * Cin + co / Cog * Cig + ci) * H + ih) * W + iw] * w[((co * Cig + ci) * KH + kh) * KW + kw];
                                }
                        y[((b * Cout + co) * Ho + oh) * Wo + ow] = acc;
                    }
    } else { /* scatter form, as the definition of the transposed convolution */
        for (b = 0; b < B; b++)
            for (co = 0; co < Cout; co++)
                for (oh = 0; oh < Ho * Wo; oh++) y[(b * Cout + co) * Ho * Wo + oh] = bias ? bias[co] : 0;
        for (b = 0; b < B; b++)
            for (ci = 0; ci < Cin; ci++)
                for (ih = 0; ih < H; ih++)
                    for (iw = 0; iw < W; iw++)
                        for (co = 0; co < Cog; co++)
                            for (kh = 0; kh < KH; kh++)
                                for (kw = 0; kw < KW; kw++) {
                                    int64_t g = ci / Cig, o = g * Cog + co;
                                    oh = ih * s[0] - p[0] + kh * d[0];
                                    ow = iw * s[1] - p[1] + kw * d[1];
                                    if (oh < 0 || oh >= Ho || ow < 0 || ow >= Wo) continue;
                                    y[((b * Cout + o) * Ho + oh) * Wo + ow] +=
                                        (double)x[((b * Cin + ci) * H + ih) * W + iw] * w[((ci * Cog + co) * KH + kh) * KW + kw];
                                }
    }
}
/* nsp: 1 or 2; tr: transposed (1-d only) */
static void conv_case(gk_dtype dt, int nsp, int tr, int64_t B, int64_t Cin, int64_t H, int64_t W, int64_t Cout, int64_t KH, int64_t KW,
                      int64_t s0, int64_t s1, int64_t p0, int64_t p1, int64_t d0, int64_t d1, int64_t op, int64_t G, int has_bias) {
    int64_t s[2], p[2], d[2], Ho, Wo, sx[4], sw[4], so[4], sb[1], nx, nw, no, i;
    float *xv, *wv, *bv;
    double *want, *gd, *gr, e, tol;
    pair x, w, bb, o;
    s[0] = s0; s[1] = s1; p[0] = p0; p[1] = p1; d[0] = d0; d[1] = d1;
    if (nsp == 1) { H = 1; KH = 1; s[0] = 1; p[0] = 0; d[0] = 1; }
    Ho = nsp == 2 ? (H + 2 * p[0] - d[0] * (KH - 1) - 1) / s[0] + 1 : 1;
    Wo = tr ? (W - 1) * s[1] - 2 * p[1] + d[1] * (KW - 1) + op + 1 : (W + 2 * p[1] - d[1] * (KW - 1) - 1) / s[1] + 1;
    nx = B * Cin * H * W;
    nw = tr ? Cin * (Cout / G) * KH * KW : Cout * (Cin / G) * KH * KW;
    no = B * Cout * Ho * Wo;
    xv = randf((size_t)nx, -1, 1); wv = randf((size_t)nw, -1, 1); bv = randf((size_t)Cout, -1, 1);
    round_to(dt, xv, (size_t)nx); round_to(dt, wv, (size_t)nw); round_to(dt, bv, (size_t)Cout);
    want = dalloc((size_t)no); gd = dalloc((size_t)no); gr = dalloc((size_t)no);
    sx[0] = B; sx[1] = Cin; sw[0] = tr ? Cin : Cout; sw[1] = tr ? Cout / G : Cin / G; so[0] = B; so[1] = Cout; sb[0] = Cout;
    if (nsp == 2) { sx[2] = H; sx[3] = W; sw[2] = KH; sw[3] = KW; so[2] = Ho; so[3] = Wo; }
    else { sx[2] = W; sw[2] = KW; so[2] = Wo; }
    x = up(dt, nsp + 2, sx, xv); w = up(dt, nsp + 2, sw, wv); bb = has_bias ? up(dt, 1, sb, bv) : none2(); o = up(dt, nsp + 2, so, NULL);
    if (nsp == 2) {
        GKT_OK(D, gk_conv2d(D, o.d, x.d, w.d, bb.d, s, p, d, G));
        GKT_OK(R, gk_conv2d(R, o.r, x.r, w.r, bb.r, s, p, d, G));
    } else if (tr) {
        GKT_OK(D, gk_conv_transpose1d(D, o.d, x.d, w.d, bb.d, s[1], p[1], op, G, d[1]));
        GKT_OK(R, gk_conv_transpose1d(R, o.r, x.r, w.r, bb.r, s[1], p[1], op, G, d[1]));
    } else {
        GKT_OK(D, gk_conv1d(D, o.d, x.d, w.d, bb.d, s[1], p[1], d[1], G));
        GKT_OK(R, gk_conv1d(R, o.r, x.r, w.r, bb.r, s[1], p[1], d[1], G));
    }
    down(o, gd, gr);
    conv_naive(xv, wv, has_bias ? bv : NULL, want, B, Cin, H, W, Cout, KH, KW, Ho, Wo, s, p, d, G, tr);
    tol = dt == GK_F32 ? 1e-5 : dt == GK_F16 ? 2e-3 : 1e-2;
    e = gkt_relerr(gr, want, (size_t)no);
    GKT_CHECK(e < tol, "conv%s%dd %s B%lld Cin%lld %lldx%lld Cout%lld k%lldx%lld s%lld,%lld p%lld,%lld d%lld,%lld op%lld g%lld: CPU vs naive %g",
              tr ? "_t" : "", nsp, gk_dtype_name(dt), (long long)B, (long long)Cin, (long long)H, (long long)W, (long long)Cout, (long long)KH,
              (long long)KW, (long long)s[0], (long long)s[1], (long long)p[0], (long long)p[1], (long long)d[0], (long long)d[1], (long long)op,
              (long long)G, e);
    e = gkt_relerr(gd, gr, (size_t)no);
    GKT_CHECK(e < tol * 2, "conv%s%dd %s Cin%lld W%lld Cout%lld g%lld: device vs CPU %g", tr ? "_t" : "", nsp, gk_dtype_name(dt), (long long)Cin,
              (long long)W, (long long)Cout, (long long)G, e);
    for (i = 0; i < no; i++) if (isnan(gd[i])) break;
    GKT_CHECK(i == no, "conv output fully written");
    fr(x); fr(w); fr(bb); fr(o);
    free(xv); free(wv); free(bv); free(want); free(gd); free(gr);
}
static void test_conv(void) {
    static const gk_dtype dts[3] = { GK_F32, GK_F16, GK_BF16 };
    int i;
    for (i = 0; i < 3; i++) {
        gk_dtype dt = dts[i];
        conv_case(dt, 1, 0, 2, 5, 1, 31, 7, 1, 3, 1, 1, 0, 1, 1, 1, 0, 1, 1);      /* k3 p1 */
        conv_case(dt, 1, 0, 1, 12, 1, 100, 8, 1, 5, 1, 2, 0, 2, 1, 3, 0, 4, 1);    /* stride 2, dilation 3, groups 4 */
        conv_case(dt, 1, 0, 1, 22, 1, 97, 16, 1, 12, 1, 6, 0, 3, 1, 1, 0, 1, 0);   /* Kokoro noise conv k12 s6 p3, no bias */
        conv_case(dt, 1, 0, 1, 70, 1, 65, 70, 1, 3, 1, 1, 0, 1, 1, 1, 0, 70, 1);   /* depthwise */
        conv_case(dt, 1, 0, 1, 130, 1, 33, 67, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1);   /* 1x1, awkward channel counts */
        conv_case(dt, 1, 1, 1, 16, 1, 20, 8, 1, 20, 1, 10, 0, 5, 1, 1, 0, 1, 1);   /* Kokoro ups[0] k20 s10 p5 */
        conv_case(dt, 1, 1, 2, 12, 1, 17, 12, 1, 3, 1, 2, 0, 1, 1, 1, 1, 12, 1);   /* depthwise upsample k3 s2 p1 op1 */
        conv_case(dt, 1, 1, 1, 6, 1, 9, 4, 1, 3, 1, 3, 0, 2, 1, 2, 1, 2, 1);       /* dilation 2, groups 2, output_padding 1 */
        conv_case(dt, 2, 0, 2, 6, 9, 11, 8, 3, 3, 1, 2, 1, 0, 1, 2, 0, 2, 1);      /* conv2d */
        conv_case(dt, 2, 0, 1, 3, 16, 15, 5, 2, 4, 2, 1, 1, 2, 2, 1, 0, 1, 0);
    }
    conv_case(GK_F32, 1, 0, 1, 64, 1, 1000, 96, 1, 7, 1, 1, 0, 3, 1, 1, 0, 1, 1);  /* a bigger tile count */
    for (i = 0; i < 3; i++) { /* groups of >= 128 outputs: the 128-row tiles */
        conv_case(dts[i], 1, 0, 1, 40, 1, 150, 200, 1, 3, 1, 1, 0, 1, 1, 1, 0, 1, 1);
        conv_case(dts[i], 1, 1, 1, 260, 1, 9, 260, 1, 4, 1, 2, 0, 1, 1, 1, 0, 2, 1);
        conv_case(dts[i], 2, 0, 1, 16, 5, 7, 256, 3, 3, 1, 1, 1, 1, 1, 1, 0, 1, 0);
    }
    { /* conv_transpose1d (the polyphase kernel on CUDA): stride 1..10, kernels 1..20, lengths 1 / 31 / 1000,
         output_padding, groups, dilation */
        static const int64_t ks[6] = { 1, 3, 7, 16, 20, 0 };
        static const int64_t Ls[3] = { 1, 31, 1000 };
        int64_t st, c = 0;
        for (st = 1; st <= 10; st++) {
            int j;
            for (j = 0; j < 6; j++, c++) {
                int64_t K = ks[j] ? ks[j] : 2 * st, L = Ls[c % 3], pd = K > st ? (K - st) / 2 : 0, op = (st + K + c) % st;
                int64_t G = c % 4 == 1 ? 2 : 1, dil = c % 5 == 3 ? 2 : 1;
                conv_case(c % 7 == 2 ? GK_BF16 : GK_F32, 1, 1, 1 + (c % 6 == 0), 6, 1, L, G == 2 ? 4 : 5, 1, K, 1, st, 0, pd, 1, dil, op, G, c % 3 != 1);
            }
        }
        conv_case(GK_F32, 1, 1, 1, 24, 1, 40, 130, 1, 16, 1, 8, 0, 4, 1, 1, 0, 1, 1);  /* vocoder-like k16 s8, 128-row tiles */
        conv_case(GK_F16, 1, 1, 2, 10, 1, 33, 6, 1, 11, 1, 5, 0, 3, 1, 1, 4, 2, 1);   /* f16, op 4 */
        conv_case(GK_F32, 1, 1, 1, 4, 1, 5000, 8, 1, 8, 1, 4, 0, 2, 1, 1, 1, 1, 1);   /* enough tiles: f32 without the split reduction */
    }
    { /* random shapes: strides, dilations, paddings, groups (depthwise too), output channels a group that are not a
         multiple of the CPU's blocks of 4, output_padding, 2-d, odd lengths, and inputs long or wide enough that the
         CPU convolution works in several chunks (a chunk: about 64K input floats, at most 1024 positions) */
        int c = 0;
        while (c < 80) {
            int nsp = gkt_u64() % 4 == 0 ? 2 : 1, tr = nsp == 1 && gkt_u64() % 5 < 2, big = gkt_u64() % 6 == 0;
            int64_t Cig = 1 + (int64_t)(gkt_u64() % (big ? 300 : 9)), Cog = 1 + (int64_t)(gkt_u64() % 9), G = 1 + (int64_t)(gkt_u64() % 3);
            int64_t KH = nsp == 2 ? 1 + (int64_t)(gkt_u64() % 4) : 1, KW = 1 + (int64_t)(gkt_u64() % (nsp == 2 ? 4 : 9));
            int64_t s0 = 1 + (int64_t)(gkt_u64() % 3), s1 = 1 + (int64_t)(gkt_u64() % 6), d0 = 1 + (int64_t)(gkt_u64() % 3),
                    d1 = 1 + (int64_t)(gkt_u64() % 4);
            int64_t p0 = (int64_t)(gkt_u64() % (uint64_t)(d0 * (KH - 1) + 1)), p1 = (int64_t)(gkt_u64() % (uint64_t)(d1 * (KW - 1) + 2));
            int64_t H = nsp == 2 ? 1 + (int64_t)(gkt_u64() % 12) : 1, W = 1 + (int64_t)(gkt_u64() % (big ? 2500 : 40)), B = 1 + (int64_t)(gkt_u64() % 2);
            int64_t op = tr ? (int64_t)(gkt_u64() % (uint64_t)(s1 > d1 ? s1 : d1)) : 0, Wo, Ho, macs;
            gk_dtype dt = gkt_u64() % 5 == 0 ? (gkt_u64() % 2 ? GK_F16 : GK_BF16) : GK_F32;
            if (gkt_u64() % 8 == 0) { /* many small groups (depthwise when Cig is 1) */
                G = 8 + (int64_t)(gkt_u64() % 40);
                Cog = 1 + (int64_t)(gkt_u64() % 2);
                if (!big) Cig = 1 + (int64_t)(gkt_u64() % 2);
            }
            if (nsp == 1) { s0 = 1; p0 = 0; d0 = 1; }
            Ho = nsp == 2 ? (H + 2 * p0 - d0 * (KH - 1) - 1) / s0 + 1 : 1;
            Wo = tr ? (W - 1) * s1 - 2 * p1 + d1 * (KW - 1) + op + 1 : (W + 2 * p1 - d1 * (KW - 1) - 1) / s1 + 1;
            if (Ho < 1 || Wo < 1 || (nsp == 2 && H + 2 * p0 < d0 * (KH - 1) + 1) || (!tr && W + 2 * p1 < d1 * (KW - 1) + 1)) continue;
            macs = B * G * Cog * Cig * KH * KW * Ho * (tr ? W : Wo);
            if (macs > 3000000) continue;
            conv_case(dt, nsp, tr, B, Cig * G, H, W, Cog * G, KH, KW, s0, s1, p0, p1, d0, d1, op, G, (int)(gkt_u64() % 2));
            c++;
        }
        conv_case(GK_F32, 1, 0, 1, 2100, 1, 50, 5, 1, 3, 1, 4, 0, 1, 1, 1, 0, 1, 1);  /* 2100 channels x stride 4: chunks of 8 positions */
        conv_case(GK_BF16, 1, 1, 1, 3000, 1, 20, 3, 1, 5, 1, 3, 0, 2, 1, 2, 1, 1, 1); /* the same for a transposed one */
    }
    for (i = 0; i < 3; i++) { /* weight norm: per dim-0 slice, every dtype */
        gk_dtype dt = dts[i];
        int64_t sv[3] = { 6, 4, 3 }, sg[3] = { 6, 1, 1 }, o, j;
        float *vv = randf(72, -1, 1), *gv = randf(6, 0.5, 2);
        double gd[72], gr[72], want[72], tol = dt == GK_F32 ? 1e-6 : dt == GK_F16 ? 2e-3 : 1e-2;
        pair v, g, w;
        round_to(dt, vv, 72);
        round_to(dt, gv, 6);
        v = up(dt, 3, sv, vv); g = up(dt, 3, sg, gv); w = up(dt, 3, sv, NULL);
        for (o = 0; o < 6; o++) {
            double s = 0;
            for (j = 0; j < 12; j++) s += (double)vv[o * 12 + j] * vv[o * 12 + j];
            for (j = 0; j < 12; j++) want[o * 12 + j] = gv[o] * vv[o * 12 + j] / sqrt(s);
        }
        GKT_OK(D, gk_weight_norm(D, w.d, v.d, g.d));
        GKT_OK(R, gk_weight_norm(R, w.r, v.r, g.r));
        down(w, gd, gr);
        GKT_CHECK(gkt_relerr(gr, want, 72) < tol && gkt_relerr(gd, gr, 72) < tol * 10, "weight norm %s: %g %g", gk_dtype_name(dt), gkt_relerr(gr, want, 72),
                  gkt_relerr(gd, gr, 72));
        fr(v); fr(g); fr(w);
        free(vv); free(gv);
    }
}

/* ---------------- LSTM ---------------- */
/* gk_conv1d_ex with allow_tf32: the device (TF32 tensor cores where the shape
   allows) against the CPU's f32 conv; shapes the tensor-core kernel refuses
   fall back to the exact kernel (f32 tolerance). tf32_taken: the shape is one
   the tensor-core kernel takes. */
static void conv_tf32_case(int64_t B, int64_t Cin, int64_t L, int64_t Cout, int64_t K, int64_t pd, int64_t dil, int has_bias, int tf32_taken) {
    int64_t Lo = L + 2 * pd - dil * (K - 1), sx[3], sw[3], so[3], sb[1], no = B * Cout * Lo;
    float *xv = randf((size_t)(B * Cin * L), -1, 1), *wv = randf((size_t)(Cout * Cin * K), -1, 1), *bv = randf((size_t)Cout, -1, 1);
    double *gd = dalloc((size_t)no), *gr = dalloc((size_t)no), e, tol = tf32_taken ? 2e-3 : 1e-5;
    gk_conv1d_desc cd;
    pair x, w, bb, o;
    int64_t i;
    sx[0] = B; sx[1] = Cin; sx[2] = L; sw[0] = Cout; sw[1] = Cin; sw[2] = K; so[0] = B; so[1] = Cout; so[2] = Lo; sb[0] = Cout;
    x = up(GK_F32, 3, sx, xv); w = up(GK_F32, 3, sw, wv); bb = has_bias ? up(GK_F32, 1, sb, bv) : none2(); o = up(GK_F32, 3, so, NULL);
    memset(&cd, 0, sizeof cd);
    cd.padding = pd;
    cd.dilation = dil;
    cd.allow_tf32 = 1;
    GKT_OK(D, gk_conv1d_ex(D, o.d, x.d, w.d, bb.d, &cd));
    GKT_OK(R, gk_conv1d(R, o.r, x.r, w.r, bb.r, 1, pd, dil, 1));
    down(o, gd, gr);
    e = gkt_relerr(gd, gr, (size_t)no);
    GKT_CHECK(e < tol, "conv1d_ex tf32 B%lld Cin%lld L%lld Cout%lld k%lld p%lld d%lld: device vs CPU %g (tolerance %g)", (long long)B, (long long)Cin,
              (long long)L, (long long)Cout, (long long)K, (long long)pd, (long long)dil, e, tol);
    if (tf32_taken && gk_ctx_backend(D) == GK_BACKEND_CUDA && Cin * K >= 256)
        GKT_CHECK(e > 1e-7, "conv1d_ex tf32 Cin%lld k%lld: the result differs from f32 (%g): the tensor cores ran", (long long)Cin, (long long)K, e);
    for (i = 0; i < no; i++) if (isnan(gd[i])) break;
    GKT_CHECK(i == no, "conv1d_ex tf32 output fully written");
    fr(x); fr(w); fr(bb); fr(o);
    free(xv); free(wv); free(bv); free(gd); free(gr);
}
/* CUDA: the vocoder's and decoder's shapes (too big for the CPU reference in
   a test), the tensor-core result against the exact f32 kernel on the device */
static void conv_tf32_big(int64_t Cin, int64_t L, int64_t Cout, int64_t K, int64_t pd, int64_t dil) {
    int64_t Lo = L + 2 * pd - dil * (K - 1), sx[3], sw[3], so[3], sb[1], no = Cout * Lo, nx = Cin * L, nw = Cout * Cin * K, i;
    gk_tensor x, w, b, o1, o2;
    gk_conv1d_desc cd;
    float *hv = (float *)malloc(sizeof(float) * (size_t)(nx > nw ? nx : nw));
    float *r1 = (float *)malloc(sizeof(float) * (size_t)no), *r2 = (float *)malloc(sizeof(float) * (size_t)no);
    double num = 0, den = 0, e;
    sx[0] = 1; sx[1] = Cin; sx[2] = L; sw[0] = Cout; sw[1] = Cin; sw[2] = K; so[0] = 1; so[1] = Cout; so[2] = Lo; sb[0] = Cout;
    GKT_OK(D, gk_tensor_empty(D, GK_F32, 3, sx, &x));
    GKT_OK(D, gk_tensor_empty(D, GK_F32, 3, sw, &w));
    GKT_OK(D, gk_tensor_empty(D, GK_F32, 1, sb, &b));
    GKT_OK(D, gk_tensor_empty(D, GK_F32, 3, so, &o1));
    GKT_OK(D, gk_tensor_empty(D, GK_F32, 3, so, &o2));
    for (i = 0; i < nx; i++) hv[i] = (float)gkt_uniform(-1, 1);
    GKT_OK(D, gk_copy_from_host(D, x, hv, sizeof(float) * (size_t)nx));
    for (i = 0; i < nw; i++) hv[i] = (float)gkt_uniform(-1, 1);
    GKT_OK(D, gk_copy_from_host(D, w, hv, sizeof(float) * (size_t)nw));
    for (i = 0; i < Cout; i++) hv[i] = (float)gkt_uniform(-1, 1);
    GKT_OK(D, gk_copy_from_host(D, b, hv, sizeof(float) * (size_t)Cout));
    GKT_OK(D, gk_fill(D, o1, NAN));
    memset(&cd, 0, sizeof cd);
    cd.padding = pd;
    cd.dilation = dil;
    cd.allow_tf32 = 1;
    GKT_OK(D, gk_conv1d_ex(D, o1, x, w, b, &cd));
    GKT_OK(D, gk_conv1d(D, o2, x, w, b, 1, pd, dil, 1));
    GKT_OK(D, gk_copy_to_host(D, o1, r1, sizeof(float) * (size_t)no));
    GKT_OK(D, gk_copy_to_host(D, o2, r2, sizeof(float) * (size_t)no));
    for (i = 0; i < no; i++) {
        num += ((double)r1[i] - r2[i]) * ((double)r1[i] - r2[i]);
        den += (double)r2[i] * r2[i];
    }
    e = sqrt(num / (den > 0 ? den : 1));
    printf("conv1d_ex tf32 Cin %lld L %lld Cout %lld k %lld d %lld: relative error %.3g against the f32 kernel\n", (long long)Cin, (long long)L,
           (long long)Cout, (long long)K, (long long)dil, e);
    GKT_CHECK(e < 2e-3, "conv1d_ex tf32 Cin%lld L%lld Cout%lld k%lld d%lld: device tf32 vs device f32 %g", (long long)Cin, (long long)L, (long long)Cout,
              (long long)K, (long long)dil, e);
    gk_tensor_free(D, x); gk_tensor_free(D, w); gk_tensor_free(D, b); gk_tensor_free(D, o1); gk_tensor_free(D, o2);
    free(hv); free(r1); free(r2);
}
static void test_conv_tf32(void) {
    gk_conv1d_desc cd;
    pair x, w, o, o2;
    int64_t sx[3] = { 1, 8, 40 }, sw[3] = { 64, 8, 3 }, so[3] = { 1, 64, 40 };
    double *a, *b;
    conv_tf32_case(1, 64, 500, 128, 11, 25, 5, 1, 1);   /* Kokoro resblock k11 d5 (128-row tiles) */
    conv_tf32_case(2, 32, 260, 256, 7, 9, 3, 1, 1);     /* k7 d3, batch 2, two row tiles */
    conv_tf32_case(1, 256, 132, 128, 3, 1, 1, 0, 1);    /* k3, no bias, a long reduction */
    conv_tf32_case(1, 12, 200, 200, 3, 1, 1, 1, 1);     /* Cin not a multiple of 8, a partial row tile */
    conv_tf32_case(1, 20, 136, 96, 1, 0, 1, 1, 1);      /* 1x1 (Kokoro's asr_res), 64-row tiles */
    conv_tf32_case(1, 16, 96, 64, 4, 2, 2, 1, 1);       /* even kernel, output longer than the input */
    conv_tf32_case(1, 16, 13, 64, 3, 40, 1, 1, 1);      /* padding beyond the input on both sides */
    conv_tf32_case(1, 16, 30, 64, 3, 1, 1, 1, 1);       /* L % 4 != 0: 4-byte input copies */
    conv_tf32_case(1, 130, 301, 128, 3, 1, 1, 1, 1);    /* Cin * K % 4 != 0 and L odd: 4-byte copies of both */
    conv_tf32_case(1, 33, 257, 70, 11, 5, 1, 1, 1);     /* Cin * K % 4 != 0, 70 outputs */
    conv_tf32_case(1, 16, 64, 32, 3, 1, 1, 1, 0);       /* 32 outputs: the exact kernel */
    if (gk_ctx_backend(D) == GK_BACKEND_CUDA) { /* Kokoro's decoder, text encoder and vocoder */
        conv_tf32_big(1090, 1206, 1024, 3, 1, 1);
        conv_tf32_big(514, 1206, 1024, 3, 1, 1);
        conv_tf32_big(1090, 1206, 1024, 1, 0, 1);
        conv_tf32_big(512, 1206, 64, 1, 0, 1);
        conv_tf32_big(512, 42, 512, 5, 2, 1);
        conv_tf32_big(128, 144721, 128, 11, 25, 5);
        conv_tf32_big(128, 144721, 128, 3, 1, 1);
        conv_tf32_big(256, 24120, 256, 7, 9, 3);
    }
    /* the desc's zeros are the defaults: equal to gk_conv1d(stride 1, padding 0, dilation 1, groups 1) */
    {
        float *xv = randf(320, -1, 1), *wv = randf(64 * 24, -1, 1);
        x = up(GK_F32, 3, sx, xv); w = up(GK_F32, 3, sw, wv);
        so[2] = 38;
        o = up(GK_F32, 3, so, NULL); o2 = up(GK_F32, 3, so, NULL);
        a = dalloc(64 * 38); b = dalloc(64 * 38);
        GKT_OK(R, gk_conv1d_ex(R, o.r, x.r, w.r, NONE, NULL));
        GKT_OK(R, gk_conv1d(R, o2.r, x.r, w.r, NONE, 1, 0, 1, 1));
        down(o, NULL, a);
        down(o2, NULL, b);
        GKT_CHECK(gkt_relerr(a, b, 64 * 38) == 0, "gk_conv1d_ex(NULL desc) equals gk_conv1d with the defaults");
        memset(&cd, 0, sizeof cd);
        cd.stride = -1;
        GKT_FAILS(R, gk_conv1d_ex(R, o.r, x.r, w.r, NONE, &cd), GK_ERR_INVALID_ARGUMENT, "gk_conv1d_ex: stride -1");
        fr(x); fr(w); fr(o); fr(o2);
        free(xv); free(wv); free(a); free(b);
    }
}

static double sigm(double x) { return 1 / (1 + exp(-x)); }
static void lstm_naive(const float *x, const float *wih, const float *whh, const float *bih, const float *bhh, const float *h0, const float *c0,
                       int64_t T, int64_t I, int64_t H, int64_t Dn, double *out, double *hn, double *cn) {
    int64_t d, s, j, k;
    double *h = dalloc((size_t)H), *c = dalloc((size_t)H), *g = dalloc((size_t)(4 * H)), *h2 = dalloc((size_t)H);
    for (d = 0; d < Dn; d++) {
        for (j = 0; j < H; j++) { h[j] = h0 ? h0[d * H + j] : 0; c[j] = c0 ? c0[d * H + j] : 0; }
        for (s = 0; s < T; s++) {
            int64_t t = d ? T - 1 - s : s;
            for (j = 0; j < 4 * H; j++) {
                double a = (bih ? bih[d * 4 * H + j] : 0) + (bhh ? bhh[d * 4 * H + j] : 0);
                for (k = 0; k < I; k++) a += (double)wih[(d * 4 * H + j) * I + k] * x[t * I + k];
                for (k = 0; k < H; k++) a += (double)whh[(d * 4 * H + j) * H + k] * h[k];
                g[j] = a;
            }
            for (j = 0; j < H; j++) {
                c[j] = sigm(g[H + j]) * c[j] + sigm(g[j]) * tanh(g[2 * H + j]);
                h2[j] = sigm(g[3 * H + j]) * tanh(c[j]);
            }
            for (j = 0; j < H; j++) { h[j] = h2[j]; out[t * Dn * H + d * H + j] = h[j]; }
        }
        for (j = 0; j < H; j++) { hn[d * H + j] = h[j]; cn[d * H + j] = c[j]; }
    }
    free(h); free(c); free(g); free(h2);
}
static void lstm_case(int64_t T, int64_t I, int64_t H, int64_t Dn, int with_state, int with_bias) {
    int64_t sx[2], swi[3], swh[3], sb[2], ss[2], so[2];
    float sc = (float)(1 / sqrt((double)H));
    float *xv = randf((size_t)(T * I), -1, 1), *wi = randf((size_t)(Dn * 4 * H * I), -sc, sc), *wh = randf((size_t)(Dn * 4 * H * H), -sc, sc);
    float *bi = randf((size_t)(Dn * 4 * H), -sc, sc), *bh = randf((size_t)(Dn * 4 * H), -sc, sc), *h0 = randf((size_t)(Dn * H), -1, 1),
          *c0 = randf((size_t)(Dn * H), -1, 1);
    double *want = dalloc((size_t)(T * Dn * H)), *gd = dalloc((size_t)(T * Dn * H)), *gr = dalloc((size_t)(T * Dn * H));
    double *whn = dalloc((size_t)(Dn * H)), *wcn = dalloc((size_t)(Dn * H)), *hd = dalloc((size_t)(Dn * H)), *hr = dalloc((size_t)(Dn * H));
    pair x, Wi, Wh, Bi, Bh, H0, C0, O, HN, CN;
    double e;
    sx[0] = T; sx[1] = I; swi[0] = Dn; swi[1] = 4 * H; swi[2] = I; swh[0] = Dn; swh[1] = 4 * H; swh[2] = H;
    sb[0] = Dn; sb[1] = 4 * H; ss[0] = Dn; ss[1] = H; so[0] = T; so[1] = Dn * H;
    x = up(GK_F32, 2, sx, xv); Wi = up(GK_F32, 3, swi, wi); Wh = up(GK_F32, 3, swh, wh);
    Bi = with_bias ? up(GK_F32, 2, sb, bi) : none2(); Bh = with_bias ? up(GK_F32, 2, sb, bh) : none2();
    H0 = with_state ? up(GK_F32, 2, ss, h0) : none2(); C0 = with_state ? up(GK_F32, 2, ss, c0) : none2();
    O = up(GK_F32, 2, so, NULL); HN = up(GK_F32, 2, ss, NULL); CN = up(GK_F32, 2, ss, NULL);
    GKT_OK(D, gk_lstm(D, O.d, HN.d, CN.d, x.d, Wi.d, Wh.d, Bi.d, Bh.d, H0.d, C0.d));
    GKT_OK(R, gk_lstm(R, O.r, HN.r, CN.r, x.r, Wi.r, Wh.r, Bi.r, Bh.r, H0.r, C0.r));
    lstm_naive(xv, wi, wh, with_bias ? bi : NULL, with_bias ? bh : NULL, with_state ? h0 : NULL, with_state ? c0 : NULL, T, I, H, Dn, want, whn, wcn);
    down(O, gd, gr);
    /* f32 arithmetic against an f64 loop: the fp32 bound (1e-6 failed on a
       random T=1, H=1 case at 1.06e-6). Device vs CPU is looser: the f32 dot
       products sum in another order and the recurrence compounds it. */
    e = gkt_relerr(gr, want, (size_t)(T * Dn * H));
    GKT_CHECK(e < 1e-5, "lstm T%lld I%lld H%lld D%lld: CPU vs naive %g", (long long)T, (long long)I, (long long)H, (long long)Dn, e);
    e = gkt_relerr(gd, gr, (size_t)(T * Dn * H));
    GKT_CHECK(e < 2e-4, "lstm T%lld I%lld H%lld D%lld: device vs CPU %g", (long long)T, (long long)I, (long long)H, (long long)Dn, e);
    down(HN, hd, hr);
    GKT_CHECK(gkt_relerr(hr, whn, (size_t)(Dn * H)) < 1e-5 && gkt_relerr(hd, hr, (size_t)(Dn * H)) < 2e-4, "lstm h_n");
    down(CN, hd, hr);
    GKT_CHECK(gkt_relerr(hr, wcn, (size_t)(Dn * H)) < 1e-5 && gkt_relerr(hd, hr, (size_t)(Dn * H)) < 5e-4, "lstm c_n");
    fr(x); fr(Wi); fr(Wh); fr(Bi); fr(Bh); fr(H0); fr(C0); fr(O); fr(HN); fr(CN);
    free(xv); free(wi); free(wh); free(bi); free(bh); free(h0); free(c0);
    free(want); free(gd); free(gr); free(whn); free(wcn); free(hd); free(hr);
}
static void test_lstm(void) {
    lstm_case(1, 3, 1, 1, 0, 1);
    lstm_case(300, 16, 32, 1, 1, 1);
    lstm_case(300, 24, 33, 2, 0, 1);
    lstm_case(1000, 8, 8, 2, 1, 0);
    lstm_case(50, 64, 256, 2, 0, 1);
}

/* ---------------- bad input ---------------- */
static void test_bad(void) {
    gk_ctx *c = D;
    gk_tensor x, y, w, a, i32, e0, e1, o;
    int64_t s3[3] = { 1, 4, 10 }, sw[3] = { 6, 2, 3 }, so[3] = { 1, 6, 8 }, sc[3] = { 2, 0, 2 }, sc1[3] = { 2, 1, 2 }, s1[1] = { 100 };
    int64_t st2[2] = { 1, 1 }, pd2[2] = { 0, 0 }, dl2[2] = { 1, 1 };
    GKT_OK(c, gk_tensor_empty(c, GK_F32, 3, s3, &x));
    GKT_OK(c, gk_tensor_empty(c, GK_F32, 3, sw, &w));
    GKT_OK(c, gk_tensor_empty(c, GK_F32, 3, so, &y));
    GKT_OK(c, gk_tensor_empty(c, GK_I32, 3, s3, &i32));
    GKT_OK(c, gk_tensor_empty(c, GK_F32, 3, sc, &e0));
    GKT_OK(c, gk_tensor_empty(c, GK_F32, 3, sc1, &e1));
    GKT_OK(c, gk_tensor_empty(c, GK_F32, 1, s1, &a));
    gk_fill(c, x, 1); gk_fill(c, w, 1); gk_fill(c, a, 1);
    /* conv */
    GKT_OK(c, gk_conv1d(c, y, x, w, NONE, 1, 0, 1, 2));
    GKT_FAILS(c, gk_conv1d(c, y, x, w, NONE, 1, 0, 1, 3), GK_ERR_SHAPE, "groups 3 does not divide");
    GKT_FAILS(c, gk_conv1d(c, y, x, w, NONE, 1, 0, 1, 1), GK_ERR_SHAPE, "input channels per group");
    GKT_FAILS(c, gk_conv1d(c, y, x, w, NONE, 0, 0, 1, 2), GK_ERR_INVALID_ARGUMENT, "stride");
    GKT_FAILS(c, gk_conv1d(c, y, x, w, NONE, 1, 1, 1, 2), GK_ERR_SHAPE, "out has shape");
    GKT_FAILS(c, gk_conv1d(c, y, x, w, NONE, 1, 0, 9, 2), GK_ERR_SHAPE, "smaller than the dilated kernel");
    GKT_FAILS(c, gk_conv1d(c, y, i32, w, NONE, 1, 0, 1, 2), GK_ERR_DTYPE, "x is i32");
    GKT_FAILS(c, gk_conv1d(c, y, x, w, a, 1, 0, 1, 2), GK_ERR_SHAPE, "bias has 100 elements");
    GKT_FAILS(c, gk_conv1d(c, y, a, w, NONE, 1, 0, 1, 2), GK_ERR_SHAPE, "[B, Cin, L]");
    GKT_FAILS(c, gk_conv2d(c, y, x, w, NONE, st2, pd2, dl2, 1), GK_ERR_SHAPE, "[B, Cin, H, W]");
    GKT_FAILS(c, gk_conv_transpose1d(c, y, x, w, NONE, 2, 0, 2, 1, 1), GK_ERR_INVALID_ARGUMENT, "output_padding");
    GKT_FAILS(c, gk_conv_transpose1d(c, y, x, w, NONE, 1, 0, 0, 1, 1), GK_ERR_SHAPE, "input channels but x has");
    GKT_FAILS(c, gk_weight_norm(c, w, w, a), GK_ERR_SHAPE, "g has 100 elements");
    /* FFT lengths 0 and 1, shapes, dtypes */
    GKT_FAILS(c, gk_fft(c, e0, e0, 0), GK_ERR_INVALID_ARGUMENT, "FFT length 0");
    GKT_FAILS(c, gk_fft(c, e1, e1, 0), GK_ERR_INVALID_ARGUMENT, "FFT length 1");
    GKT_FAILS(c, gk_fft(c, x, x, 0), GK_ERR_SHAPE, "[..., n, 2]");
    GKT_FAILS(c, gk_fft(c, i32, i32, 0), GK_ERR_DTYPE, "is i32");
    GKT_FAILS(c, gk_rfft(c, y, x), GK_ERR_SHAPE, "[..., n/2+1, 2]");
    GKT_FAILS(c, gk_irfft(c, x, y), GK_ERR_SHAPE, "[..., n/2+1, 2]");
    /* STFT: hop 0, n_fft 1, n_fft larger than the padded signal, window size */
    GKT_OK(c, gk_stft_new(c, a, NONE, 16, 4, 1, &o));
    gk_tensor_free(c, o);
    GKT_FAILS(c, gk_stft_new(c, a, NONE, 16, 0, 1, &o), GK_ERR_INVALID_ARGUMENT, "hop 0");
    GKT_FAILS(c, gk_stft_new(c, a, NONE, 1, 4, 1, &o), GK_ERR_INVALID_ARGUMENT, "n_fft 1");
    GKT_FAILS(c, gk_stft_new(c, a, NONE, 400, 4, 0, &o), GK_ERR_SHAPE, "larger than the padded signal");
    GKT_FAILS(c, gk_stft_new(c, a, NONE, 400, 4, 1, &o), GK_ERR_SHAPE, "too short for reflect padding");
    GKT_FAILS(c, gk_stft_new(c, a, a, 16, 4, 1, &o), GK_ERR_SHAPE, "window has 100 elements");
    GKT_FAILS(c, gk_stft(c, y, a, NONE, 16, 4, 1), GK_ERR_SHAPE, "out has shape");
    GKT_FAILS(c, gk_istft(c, a, x, NONE, 16, 4, 1), GK_ERR_SHAPE, "spec has shape");
    GKT_FAILS(c, gk_whisper_log_mel(c, y, a, w, 0), GK_ERR_SHAPE, "filters has shape");
    GKT_FAILS(c, gk_complex_abs(c, a, x), GK_ERR_SHAPE, "[..., 2]");
    GKT_FAILS(c, gk_mel_filters(c, y, 16000, 0, 8000, 0), GK_ERR_SHAPE, "[n_mels >= 1");
    GKT_FAILS(c, gk_mel_filters_new(c, 10, 400, 16000, 9000, 8000, 0, &o), GK_ERR_INVALID_ARGUMENT, "fmax");
    /* _new with a NULL result pointer */
    GKT_FAILS(c, gk_fft_new(c, e1, 0, NULL), GK_ERR_INVALID_ARGUMENT, "out is NULL");
    GKT_FAILS(c, gk_irfft_new(c, e1, 4, NULL), GK_ERR_INVALID_ARGUMENT, "out is NULL");
    GKT_FAILS(c, gk_complex_abs_new(c, e1, NULL), GK_ERR_INVALID_ARGUMENT, "out is NULL");
    GKT_FAILS(c, gk_complex_polar_new(c, a, a, NULL), GK_ERR_INVALID_ARGUMENT, "out is NULL");
    GKT_FAILS(c, gk_stft_new(c, a, NONE, 16, 4, 1, NULL), GK_ERR_INVALID_ARGUMENT, "out is NULL");
    GKT_FAILS(c, gk_conv1d_new(c, x, w, NONE, 1, 0, 1, 2, NULL), GK_ERR_INVALID_ARGUMENT, "out is NULL");
    GKT_FAILS(c, gk_lstm_new(c, x, x, w, NONE, NONE, NONE, NONE, NULL), GK_ERR_INVALID_ARGUMENT, "out is NULL");
    /* LSTM shapes */
    GKT_FAILS(c, gk_lstm(c, y, NONE, NONE, x, a, w, NONE, NONE, NONE, NONE), GK_ERR_SHAPE, "w_ih has shape");
    GKT_FAILS(c, gk_lstm(c, y, NONE, NONE, x, NONE, w, NONE, NONE, NONE, NONE), GK_ERR_INVALID_HANDLE, "w_ih is a null tensor handle");
    {
        int64_t swi[3] = { 1, 8, 10 }, swh[3] = { 1, 8, 2 }, sxx[2] = { 5, 10 }, soo[2] = { 5, 2 }, sh[2] = { 1, 3 };
        gk_tensor wi, wh, xx, oo, hh;
        gk_tensor_empty(c, GK_F32, 3, swi, &wi); gk_tensor_empty(c, GK_F32, 3, swh, &wh); gk_tensor_empty(c, GK_F32, 2, sxx, &xx);
        gk_tensor_empty(c, GK_F32, 2, soo, &oo); gk_tensor_empty(c, GK_F32, 2, sh, &hh);
        gk_fill(c, wi, 0.1); gk_fill(c, wh, 0.1); gk_fill(c, xx, 1);
        GKT_OK(c, gk_lstm(c, oo, NONE, NONE, xx, wi, wh, NONE, NONE, NONE, NONE));
        GKT_FAILS(c, gk_lstm(c, oo, NONE, NONE, xx, wi, wh, NONE, NONE, hh, NONE), GK_ERR_SHAPE, "h0 has 3 elements");
        GKT_FAILS(c, gk_lstm(c, oo, NONE, NONE, x, wi, wh, NONE, NONE, NONE, NONE), GK_ERR_SHAPE, "x has shape");
        GKT_FAILS(c, gk_lstm(c, xx, NONE, NONE, xx, wi, wh, NONE, NONE, NONE, NONE), GK_ERR_SHAPE, "out has shape");
        gk_tensor_free(c, wi); gk_tensor_free(c, wh); gk_tensor_free(c, xx); gk_tensor_free(c, oo); gk_tensor_free(c, hh);
    }
    /* empty tensors: a no-op */
    {
        int64_t se[2] = { 0, 64 }, sf[3] = { 0, 33, 2 };
        gk_tensor ex, ey;
        gk_tensor_empty(c, GK_F32, 2, se, &ex);
        gk_tensor_empty(c, GK_F32, 3, sf, &ey);
        GKT_OK(c, gk_rfft(c, ey, ex));
        gk_tensor_free(c, ex); gk_tensor_free(c, ey);
    }
    gk_tensor_free(c, x); gk_tensor_free(c, w); gk_tensor_free(c, y); gk_tensor_free(c, i32);
    gk_tensor_free(c, e0); gk_tensor_free(c, e1); gk_tensor_free(c, a);
}

/* ---------------- PyTorch / HF fixtures ---------------- */
static const char *FIX = "tests/fixtures/signal";
static float *load_bin(const char *name, const char *suffix, int64_t n) {
    char path[512];
    FILE *f;
    float *v;
    long sz;
    snprintf(path, sizeof path, "%s/%s_%s.bin", FIX, name, suffix);
    f = fopen(path, "rb");
    if (!f) { printf("  missing %s\n", path); return NULL; }
    fseek(f, 0, SEEK_END);
    sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    if (sz != (long)(n * 4)) { printf("  %s: %ld bytes, expected %lld\n", path, sz, (long long)(n * 4)); fclose(f); return NULL; }
    v = (float *)malloc((size_t)n * 4 + 4);
    if (fread(v, 4, (size_t)n, f) != (size_t)n) { free(v); v = NULL; }
    fclose(f);
    return v;
}
/* the device result of a computed pair against a fixture */
static void fix_cmp(const char *what, pair o, const float *want, int64_t n, int64_t stride_from, int64_t cols, int64_t cols_all, double tol) {
    double *gd = dalloc((size_t)n), *gr = dalloc((size_t)n), *w = dalloc((size_t)n);
    int64_t i, m;
    down(o, gd, gr);
    /* optional column slicing: rows of cols_all in the result, cols in the fixture */
    if (cols > 0) {
        int64_t rows = stride_from / cols;
        double *a = dalloc((size_t)(rows * cols)), *b = dalloc((size_t)(rows * cols));
        for (i = 0; i < rows; i++)
            for (m = 0; m < cols; m++) { a[i * cols + m] = gd[i * cols_all + m]; b[i * cols + m] = gr[i * cols_all + m]; w[i * cols + m] = want[i * cols + m]; }
        GKT_CHECK(gkt_relerr(b, w, (size_t)(rows * cols)) < tol && gkt_relerr(a, w, (size_t)(rows * cols)) < tol, "fixture %s: CPU %g, device %g", what,
                  gkt_relerr(b, w, (size_t)(rows * cols)), gkt_relerr(a, w, (size_t)(rows * cols)));
        free(a); free(b);
    } else {
        for (i = 0; i < n; i++) w[i] = want[i];
        GKT_CHECK(gkt_relerr(gr, w, (size_t)n) < tol && gkt_relerr(gd, w, (size_t)n) < tol, "fixture %s: CPU %g, device %g", what,
                  gkt_relerr(gr, w, (size_t)n), gkt_relerr(gd, w, (size_t)n));
    }
    free(gd); free(gr); free(w);
}
static void test_fixtures(void) {
    char path[512], line[1024];
    FILE *f;
    int count = 0;
    snprintf(path, sizeof path, "%s/index.txt", FIX);
    f = fopen(path, "r");
    if (!f) { printf("skip: no fixtures (%s; run tests/gen_signal_fixtures.py)\n", path); return; }
    while (fgets(line, sizeof line, f)) {
        char kind[64], name[128];
        long long a[16];
        int k = sscanf(line, "%63s %127s %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld %lld", kind, name, &a[0], &a[1], &a[2],
                       &a[3], &a[4], &a[5], &a[6], &a[7], &a[8], &a[9], &a[10], &a[11], &a[12], &a[13], &a[14], &a[15]);
        if (k < 2 || kind[0] == '#') continue;
        count++;
        if (!strcmp(kind, "stft") || !strcmp(kind, "istft")) { /* n_fft hop L */
            int64_t n = a[0], hop = a[1], L = a[2], F = n / 2 + 1, T = 1 + L / hop, sx[1], sy[3];
            float *xv = load_bin(name, "x", L), *yv = load_bin(name, "y", F * T * 2);
            sx[0] = L; sy[0] = F; sy[1] = T; sy[2] = 2;
            if (xv && yv) {
                if (!strcmp(kind, "stft")) {
                    pair x = up(GK_F32, 1, sx, xv), y = up(GK_F32, 3, sy, NULL);
                    GKT_OK(D, gk_stft(D, y.d, x.d, NONE, n, hop, 1));
                    GKT_OK(R, gk_stft(R, y.r, x.r, NONE, n, hop, 1));
                    fix_cmp(name, y, yv, F * T * 2, 0, 0, 0, 1e-4);
                    fr(x); fr(y);
                } else {
                    pair y = up(GK_F32, 3, sy, yv), x = up(GK_F32, 1, sx, NULL);
                    GKT_OK(D, gk_istft(D, x.d, y.d, NONE, n, hop, 1));
                    GKT_OK(R, gk_istft(R, x.r, y.r, NONE, n, hop, 1));
                    fix_cmp(name, x, xv, L, 0, 0, 0, 1e-4);
                    fr(x); fr(y);
                }
            } else GKT_CHECK(0, "fixture %s unreadable", name);
            free(xv); free(yv);
        } else if (!strcmp(kind, "logmel")) { /* n_mels L n_samples frames_kept */
            int64_t M = a[0], L = a[1], ns = a[2], keep = a[3], T = ns / 160, sx[1], sf[2], so[2];
            float *xv = load_bin(name, "x", L), *yv = load_bin(name, "y", M * keep), *fv = load_bin(name, "f", 201 * M);
            sx[0] = L; sf[0] = M; sf[1] = 201; so[0] = M; so[1] = T;
            if (xv && yv && fv) {
                pair x = up(GK_F32, 1, sx, xv), fl = up(GK_F32, 2, sf, NULL), o = up(GK_F32, 2, so, NULL);
                double *mine = dalloc((size_t)(M * 201)), *hf = dalloc((size_t)(M * 201));
                float *mf = (float *)malloc(sizeof(float) * (size_t)(M * 201));
                int64_t i, j;
                GKT_OK(D, gk_mel_filters(D, fl.d, 16000, 0, 8000, GK_MEL_NORM_SLANEY));
                GKT_OK(R, gk_mel_filters(R, fl.r, 16000, 0, 8000, GK_MEL_NORM_SLANEY));
                GKT_OK(R, gk_copy_to_host(R, fl.r, mf, sizeof(float) * (size_t)(M * 201)));
                for (i = 0; i < M; i++)
                    for (j = 0; j < 201; j++) { mine[i * 201 + j] = mf[i * 201 + j]; hf[i * 201 + j] = fv[j * M + i]; }
                GKT_CHECK(gkt_relerr(mine, hf, (size_t)(M * 201)) < 1e-5, "fixture %s: mel filters vs HF %g", name, gkt_relerr(mine, hf, (size_t)(M * 201)));
                GKT_OK(D, gk_whisper_log_mel(D, o.d, x.d, fl.d, ns));
                GKT_OK(R, gk_whisper_log_mel(R, o.r, x.r, fl.r, ns));
                fix_cmp(name, o, yv, M * T, M * keep, keep, T, 2e-4);
                fr(x); fr(fl); fr(o);
                free(mine); free(hf); free(mf);
            } else GKT_CHECK(0, "fixture %s unreadable", name);
            free(xv); free(yv); free(fv);
        } else if (!strcmp(kind, "lstm")) { /* T I H D */
            int64_t T = a[0], I = a[1], H = a[2], Dn = a[3], sx[2], swi[3], swh[3], sb[2], ss[2], so[2];
            float *xv = load_bin(name, "x", T * I), *wi = load_bin(name, "wih", Dn * 4 * H * I), *wh = load_bin(name, "whh", Dn * 4 * H * H);
            float *bi = load_bin(name, "bih", Dn * 4 * H), *bh = load_bin(name, "bhh", Dn * 4 * H), *yv = load_bin(name, "y", T * Dn * H);
            float *hn = load_bin(name, "hn", Dn * H), *cn = load_bin(name, "cn", Dn * H);
            sx[0] = T; sx[1] = I; swi[0] = Dn; swi[1] = 4 * H; swi[2] = I; swh[0] = Dn; swh[1] = 4 * H; swh[2] = H;
            sb[0] = Dn; sb[1] = 4 * H; ss[0] = Dn; ss[1] = H; so[0] = T; so[1] = Dn * H;
            if (xv && wi && wh && bi && bh && yv && hn && cn) {
                pair x = up(GK_F32, 2, sx, xv), Wi = up(GK_F32, 3, swi, wi), Wh = up(GK_F32, 3, swh, wh), Bi = up(GK_F32, 2, sb, bi),
                     Bh = up(GK_F32, 2, sb, bh), O = up(GK_F32, 2, so, NULL), HN = up(GK_F32, 2, ss, NULL), CN = up(GK_F32, 2, ss, NULL);
                GKT_OK(D, gk_lstm(D, O.d, HN.d, CN.d, x.d, Wi.d, Wh.d, Bi.d, Bh.d, NONE, NONE));
                GKT_OK(R, gk_lstm(R, O.r, HN.r, CN.r, x.r, Wi.r, Wh.r, Bi.r, Bh.r, NONE, NONE));
                fix_cmp(name, O, yv, T * Dn * H, 0, 0, 0, 1e-4);
                fix_cmp(name, HN, hn, Dn * H, 0, 0, 0, 1e-4);
                fix_cmp(name, CN, cn, Dn * H, 0, 0, 0, 1e-4);
                fr(x); fr(Wi); fr(Wh); fr(Bi); fr(Bh); fr(O); fr(HN); fr(CN);
            } else GKT_CHECK(0, "fixture %s unreadable", name);
            free(xv); free(wi); free(wh); free(bi); free(bh); free(yv); free(hn); free(cn);
        } else if (!strcmp(kind, "conv1d") || !strcmp(kind, "convt1d") || !strcmp(kind, "conv2d")) {
            /* B Cin H W Cout KH KW sh sw ph pw dh dw groups outpad Lo_or_Ho Wo */
            int tr = kind[4] == 't', two = kind[4] == '2';
            int64_t B = a[0], Cin = a[1], H = a[2], W = a[3], Cout = a[4], KH = a[5], KW = a[6], G = a[13], op = a[14], Ho = a[15], Wo = 0;
            int64_t st[2], pd[2], dl[2], sx[4], sw[4], so[4], sb[1], nw;
            float *xv, *wv, *bv, *yv;
            st[0] = a[7]; st[1] = a[8]; pd[0] = a[9]; pd[1] = a[10]; dl[0] = a[11]; dl[1] = a[12];
            if (k < 18) { GKT_CHECK(0, "fixture %s: short line", name); continue; }
            /* conv2d lines end with Ho Wo (Wo the 19th field) */
            nw = tr ? Cin * (Cout / G) * KH * KW : Cout * (Cin / G) * KH * KW;
            sx[0] = B; sx[1] = Cin; sw[0] = tr ? Cin : Cout; sw[1] = tr ? Cout / G : Cin / G; so[0] = B; so[1] = Cout; sb[0] = Cout;
            if (two) {
                long long wo = 0;
                const char *p = line;
                int fields = 0;
                while (*p && fields < 18) { while (*p == ' ') p++; while (*p && *p != ' ') p++; fields++; }
                if (sscanf(p, "%lld", &wo) == 1) Wo = wo;
                sx[2] = H; sx[3] = W; sw[2] = KH; sw[3] = KW; so[2] = Ho; so[3] = Wo;
            } else { sx[2] = W; sw[2] = KW; so[2] = Ho; Wo = 1; }
            xv = load_bin(name, "x", B * Cin * H * W); wv = load_bin(name, "w", nw); bv = load_bin(name, "b", Cout);
            yv = load_bin(name, "y", B * Cout * Ho * (two ? Wo : 1));
            if (xv && wv && bv && yv) {
                int nd = two ? 4 : 3;
                pair x = up(GK_F32, nd, sx, xv), w = up(GK_F32, nd, sw, wv), b = up(GK_F32, 1, sb, bv), o = up(GK_F32, nd, so, NULL);
                if (two) {
                    GKT_OK(D, gk_conv2d(D, o.d, x.d, w.d, b.d, st, pd, dl, G));
                    GKT_OK(R, gk_conv2d(R, o.r, x.r, w.r, b.r, st, pd, dl, G));
                } else if (tr) {
                    GKT_OK(D, gk_conv_transpose1d(D, o.d, x.d, w.d, b.d, st[1], pd[1], op, G, dl[1]));
                    GKT_OK(R, gk_conv_transpose1d(R, o.r, x.r, w.r, b.r, st[1], pd[1], op, G, dl[1]));
                } else {
                    GKT_OK(D, gk_conv1d(D, o.d, x.d, w.d, b.d, st[1], pd[1], dl[1], G));
                    GKT_OK(R, gk_conv1d(R, o.r, x.r, w.r, b.r, st[1], pd[1], dl[1], G));
                }
                fix_cmp(name, o, yv, B * Cout * Ho * (two ? Wo : 1), 0, 0, 0, 1e-5);
                fr(x); fr(w); fr(b); fr(o);
            } else GKT_CHECK(0, "fixture %s unreadable", name);
            free(xv); free(wv); free(bv); free(yv);
        } else if (!strcmp(kind, "wnorm")) { /* C inner */
            int64_t C = a[0], inner = a[1], sv[2], sg[1];
            float *vv = load_bin(name, "v", C * inner), *gv = load_bin(name, "g", C), *wv = load_bin(name, "w", C * inner);
            sv[0] = C; sv[1] = inner; sg[0] = C;
            if (vv && gv && wv) {
                pair v = up(GK_F32, 2, sv, vv), g = up(GK_F32, 1, sg, gv), o = up(GK_F32, 2, sv, NULL);
                GKT_OK(D, gk_weight_norm(D, o.d, v.d, g.d));
                GKT_OK(R, gk_weight_norm(R, o.r, v.r, g.r));
                fix_cmp(name, o, wv, C * inner, 0, 0, 0, 1e-5);
                fr(v); fr(g); fr(o);
            } else GKT_CHECK(0, "fixture %s unreadable", name);
            free(vv); free(gv); free(wv);
        } else {
            printf("  unknown fixture kind %s\n", kind);
        }
    }
    fclose(f);
    printf("fixtures: %d cases\n", count);
}

/* ---------------- graph capture: ops recorded once, replayed with new inputs ---------------- */
static void test_graph(void) {
    int64_t sx[2] = { 2, 500 }, sy[4] = { 2, 11, 101, 2 }, sl[2] = { 40, 8 }, swi[3] = { 2, 64, 8 }, swh[3] = { 2, 64, 16 }, so[2] = { 40, 32 };
    gk_ctx *cs[2];
    int c, k;
    cs[0] = D; cs[1] = R;
    for (c = 0; c < 2; c++) {
        gk_ctx *ctx = cs[c];
        gk_tensor x, y, y2, xl, wi, wh, o, o2;
        gk_graph *g = NULL;
        float *xv = randf(1000, -1, 1), *yv = (float *)malloc(sizeof(float) * 2 * 11 * 101 * 2), *y2v = (float *)malloc(sizeof(float) * 2 * 11 * 101 * 2);
        float *lv = randf(320, -1, 1), *wiv = randf(1024, -0.3, 0.3), *whv = randf(2048, -0.3, 0.3), *ov = (float *)malloc(sizeof(float) * 1280),
              *o2v = (float *)malloc(sizeof(float) * 1280);
        gk_tensor_empty(ctx, GK_F32, 2, sx, &x); gk_tensor_empty(ctx, GK_F32, 4, sy, &y); gk_tensor_empty(ctx, GK_F32, 4, sy, &y2);
        gk_tensor_empty(ctx, GK_F32, 2, sl, &xl); gk_tensor_empty(ctx, GK_F32, 3, swi, &wi); gk_tensor_empty(ctx, GK_F32, 3, swh, &wh);
        gk_tensor_empty(ctx, GK_F32, 2, so, &o); gk_tensor_empty(ctx, GK_F32, 2, so, &o2);
        gk_copy_from_host(ctx, wi, wiv, 1024 * 4); gk_copy_from_host(ctx, wh, whv, 2048 * 4);
        GKT_OK(ctx, gk_graph_begin(ctx, NULL));
        GKT_OK(ctx, gk_stft(ctx, y, x, NONE, 20, 5, 1));
        GKT_OK(ctx, gk_graph_end(ctx, NULL, &g));
        for (k = 0; k < 2; k++) { /* new input each replay; the eager op gives the expected result */
            int i, same = 1;
            for (i = 0; i < 1000; i++) xv[i] = (float)gkt_uniform(-1, 1);
            GKT_OK(ctx, gk_copy_from_host(ctx, x, xv, 4000));
            GKT_OK(ctx, gk_graph_launch(ctx, g, NULL));
            GKT_OK(ctx, gk_stft(ctx, y2, x, NONE, 20, 5, 1));
            GKT_OK(ctx, gk_copy_to_host(ctx, y, yv, sizeof(float) * 4444));
            GKT_OK(ctx, gk_copy_to_host(ctx, y2, y2v, sizeof(float) * 4444));
            for (i = 0; i < 4444; i++) if (yv[i] != y2v[i]) same = 0;
            GKT_CHECK(same, "stft replayed from a graph (%s) equals the eager op", c ? "cpu" : "dut");
        }
        gk_graph_destroy(ctx, g);
        g = NULL;
        /* the persistent LSTM kernel (a cooperative launch) inside a graph */
        GKT_OK(ctx, gk_graph_begin(ctx, NULL));
        GKT_OK(ctx, gk_lstm(ctx, o, NONE, NONE, xl, wi, wh, NONE, NONE, NONE, NONE));
        GKT_OK(ctx, gk_graph_end(ctx, NULL, &g));
        if (g) {
            int i, same = 1;
            GKT_OK(ctx, gk_copy_from_host(ctx, xl, lv, 320 * 4));
            GKT_OK(ctx, gk_graph_launch(ctx, g, NULL));
            GKT_OK(ctx, gk_lstm(ctx, o2, NONE, NONE, xl, wi, wh, NONE, NONE, NONE, NONE));
            GKT_OK(ctx, gk_copy_to_host(ctx, o, ov, 1280 * 4));
            GKT_OK(ctx, gk_copy_to_host(ctx, o2, o2v, 1280 * 4));
            for (i = 0; i < 1280; i++) if (ov[i] != o2v[i]) same = 0;
            GKT_CHECK(same, "lstm replayed from a graph (%s) equals the eager op", c ? "cpu" : "dut");
            gk_graph_destroy(ctx, g);
        }
        gk_tensor_free(ctx, x); gk_tensor_free(ctx, y); gk_tensor_free(ctx, y2); gk_tensor_free(ctx, xl); gk_tensor_free(ctx, wi);
        gk_tensor_free(ctx, wh); gk_tensor_free(ctx, o); gk_tensor_free(ctx, o2);
        free(xv); free(yv); free(y2v); free(lv); free(wiv); free(whv); free(ov); free(o2v);
    }
}

int main(void) {
    gkt_seed();
    D = gkt_dut();
    R = gkt_ref();
    printf("device under test: %s\n", gk_ctx_backend(D) == GK_BACKEND_CUDA ? "cuda" : "cpu");
    test_bad();
    test_fft_all();
    test_stft();
    test_mel();
    test_whisper(2, 3000, 0, 80);
    test_whisper(1, 5000, 8000, 128); /* zero-padded as HF pads to 30 s */
    test_whisper(1, 9000, 4000, 80);  /* truncated */
    test_conv();
    test_conv_tf32();
    test_lstm();
    test_graph();
    test_fixtures();
    (void)numel;
    gk_ctx_destroy(D);
    gk_ctx_destroy(R);
    return gkt_done("test_signal");
}
