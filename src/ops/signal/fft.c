/* >>signal_fft: FFT, real FFT and its inverse */
/* ======================= FFT / STFT / mel ======================= */
enum { GK__FI_COMPLEX = 0, GK__FI_REAL, GK__FI_HALF, GK__FI_FRAMES, GK__FI_SPEC };
enum { GK__FO_COMPLEX = 0, GK__FO_HALF, GK__FO_REAL, GK__FO_SPEC, GK__FO_POWER, GK__FO_WREAL };
typedef struct gk__fftp { /* the layout of gk_fftp in src/ops/signal/fft.cu */
    int n, m, nf, blue, inverse, in_mode, out_mode, center;
    int f[16];
    int64_t batch, nframes, hop, sig_len, sig_avail, sig_stride;
    float scale;
    int has_window;
    int tw_table, pad_;
} gk__fftp;
#define GK__FFT_MAXN ((int64_t)1 << 22)

/* factors of m into 4, 2, 3, 5 (DIT order); 0 when m has another prime factor */
static int gk__fft_factor(int64_t m, int *f, int *nf) {
    int k = 0;
    while (m % 4 == 0 && k < 16) { f[k++] = 4; m /= 4; }
    while (m % 2 == 0 && k < 16) { f[k++] = 2; m /= 2; }
    while (m % 3 == 0 && k < 16) { f[k++] = 3; m /= 3; }
    while (m % 5 == 0 && k < 16) { f[k++] = 5; m /= 5; }
    *nf = k;
    return m == 1;
}
static gk_status gk__fft_plan(gk_ctx *ctx, gk__fftp *P, int64_t n, int inverse, const char *where) {
    int64_t m = n;
    if (n < 2) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: FFT length %lld (needs at least 2)", where, (long long)n);
    if (n > GK__FFT_MAXN) return gk__err(ctx, GK_ERR_LIMIT, "%s: FFT length %lld (at most %lld)", where, (long long)n, (long long)GK__FFT_MAXN);
    P->n = (int)n;
    P->inverse = inverse;
    P->blue = 0;
    if (!gk__fft_factor(n, P->f, &P->nf)) {
        int tmp[16], nt;
        P->blue = 1;
        for (m = 2 * n - 1; !gk__fft_factor(m, tmp, &nt); m++) { }
        gk__fft_factor(m, P->f, &P->nf);
    }
    P->m = (int)m;
    return GK_OK;
}

/* ---- CPU reference: the same algorithm in double ---- */
typedef struct gk__cd { double re, im; } gk__cd;
static int gk__fft_rev(int p, const gk__fftp *P) {
    int L = P->m, r = 0, mult = 1, k;
    for (k = P->nf - 1; k >= 0; k--) {
        int d;
        L /= P->f[k];
        d = p / L;
        p -= d * L;
        r += d * mult;
        mult *= P->f[k];
    }
    return r;
}
static gk__cd gk__cmul(gk__cd a, gk__cd b) { gk__cd r; r.re = a.re * b.re - a.im * b.im; r.im = a.re * b.im + a.im * b.re; return r; }
static gk__cd gk__expi(double ang) { gk__cd r; r.re = cos(ang); r.im = sin(ang); return r; }
static void gk__fft_stages_cpu(gk__cd *buf, const gk__fftp *P, double sgn, int dif) {
    const double pi = 3.14159265358979323846;
    int Ls[16], L = 1, k, kk;
    for (k = 0; k < P->nf; k++) { Ls[k] = L; L *= P->f[k]; }
    for (kk = 0; kk < P->nf; kk++) {
        int R, N, i, j, mm;
        double cs[5], sn[5];
        k = dif ? P->nf - 1 - kk : kk;
        R = P->f[k];
        L = Ls[k];
        N = L * R;
        for (j = 0; j < R; j++) { cs[j] = cos(2 * pi * j / R); sn[j] = sgn * sin(2 * pi * j / R); }
        for (i = 0; i < P->m / R; i++) {
            int b = i / L, q = i - b * L;
            gk__cd *base = buf + b * N + q, a[5], y[5];
            for (j = 0; j < R; j++) a[j] = base[j * L];
            if (!dif)
                for (j = 1; j < R; j++) a[j] = gk__cmul(a[j], gk__expi(sgn * 2 * pi * (double)(j * q) / N));
            for (mm = 0; mm < R; mm++) {
                gk__cd acc = a[0];
                for (j = 1; j < R; j++) {
                    int e = (j * mm) % R;
                    acc.re += a[j].re * cs[e] - a[j].im * sn[e];
                    acc.im += a[j].re * sn[e] + a[j].im * cs[e];
                }
                y[mm] = acc;
            }
            if (dif)
                for (j = 1; j < R; j++) y[j] = gk__cmul(y[j], gk__expi(sgn * 2 * pi * (double)(j * q) / N));
            for (j = 0; j < R; j++) base[j * L] = y[j];
        }
    }
}
static double gk__fft_win_cpu(const gk__fftp *P, const float *win, int k) {
    if (P->has_window) return win[k];
    return 0.5 - 0.5 * cos(2 * 3.14159265358979323846 * k / P->n);
}
static gk__cd gk__fft_load_cpu(const gk__fftp *P, const float *in, const float *win, int64_t row, int idx) {
    gk__cd v;
    int n = P->n;
    v.re = 0; v.im = 0;
    switch (P->in_mode) {
    case GK__FI_COMPLEX: v.re = in[(row * n + idx) * 2]; v.im = in[(row * n + idx) * 2 + 1]; break;
    case GK__FI_REAL: v.re = in[row * n + idx]; break;
    case GK__FI_HALF:
    case GK__FI_SPEC: {
        int h = n / 2 + 1, k = idx <= n / 2 ? idx : n - idx;
        const float *p;
        if (P->in_mode == GK__FI_HALF) p = in + (row * h + k) * 2;
        else {
            int64_t b = row / P->nframes, t = row - b * P->nframes;
            p = in + ((b * h + k) * P->nframes + t) * 2;
        }
        v.re = p[0];
        v.im = (k == 0 || 2 * k == n) ? 0.0 : idx <= n / 2 ? p[1] : -p[1];
        break;
    }
    default: {
        int64_t b = row / P->nframes, t = row - b * P->nframes;
        int64_t pos = t * P->hop + idx - (P->center ? n / 2 : 0);
        if (pos < 0) pos = -pos;
        if (pos >= P->sig_len) pos = 2 * (P->sig_len - 1) - pos;
        v.re = (pos < P->sig_avail ? in[b * P->sig_stride + pos] : 0.0f) * gk__fft_win_cpu(P, win, idx);
        break;
    }
    }
    return v;
}
static void gk__fft_store_cpu(const gk__fftp *P, float *out, const float *win, int64_t row, int k, gk__cd v) {
    int n = P->n, h = n / 2 + 1;
    v.re *= P->scale;
    v.im *= P->scale;
    switch (P->out_mode) {
    case GK__FO_COMPLEX: out[(row * n + k) * 2] = (float)v.re; out[(row * n + k) * 2 + 1] = (float)v.im; break;
    case GK__FO_HALF: if (k < h) { out[(row * h + k) * 2] = (float)v.re; out[(row * h + k) * 2 + 1] = (float)v.im; } break;
    case GK__FO_REAL: out[row * n + k] = (float)v.re; break;
    case GK__FO_SPEC:
        if (k < h) {
            int64_t b = row / P->nframes, t = row - b * P->nframes;
            out[((b * h + k) * P->nframes + t) * 2] = (float)v.re;
            out[((b * h + k) * P->nframes + t) * 2 + 1] = (float)v.im;
        }
        break;
    case GK__FO_POWER: if (k < h) out[row * h + k] = (float)(v.re * v.re + v.im * v.im); break;
    default: out[row * n + k] = (float)(v.re * gk__fft_win_cpu(P, win, k)); break;
    }
}
/* scratch: 2 m complex doubles */
static void gk__fft_run_cpu(const gk__fftp *P, float *out, const float *in, const float *win, gk__cd *ws) {
    const double pi = 3.14159265358979323846;
    gk__cd *buf = ws, *bhat = ws + P->m;
    double sgn = P->inverse ? 1.0 : -1.0;
    int64_t row;
    int p, n = P->n, m = P->m;
    if (P->blue) {
        for (p = 0; p < m; p++) {
            int j = gk__fft_rev(p, P), jj = j < n ? j : (j > m - n ? m - j : -1);
            buf[p].re = 0; buf[p].im = 0;
            if (jj >= 0) buf[p] = gk__expi(-sgn * pi * (double)(((int64_t)jj * jj) % (2 * n)) / n);
        }
        gk__fft_stages_cpu(buf, P, -1.0, 0);
        for (p = 0; p < m; p++) { bhat[p].re = buf[p].re / m; bhat[p].im = buf[p].im / m; }
    }
    for (row = 0; row < P->batch; row++) {
        if (!P->blue) {
            for (p = 0; p < m; p++) buf[p] = gk__fft_load_cpu(P, in, win, row, gk__fft_rev(p, P));
            gk__fft_stages_cpu(buf, P, sgn, 0);
            for (p = 0; p < n; p++) gk__fft_store_cpu(P, out, win, row, p, buf[p]);
        } else {
            for (p = 0; p < m; p++) {
                buf[p].re = 0; buf[p].im = 0;
                if (p < n) buf[p] = gk__cmul(gk__fft_load_cpu(P, in, win, row, p), gk__expi(sgn * pi * (double)(((int64_t)p * p) % (2 * n)) / n));
            }
            gk__fft_stages_cpu(buf, P, -1.0, 1);
            for (p = 0; p < m; p++) buf[p] = gk__cmul(buf[p], bhat[gk__fft_rev(p, P)]);
            gk__fft_stages_cpu(buf, P, 1.0, 0);
            for (p = 0; p < n; p++)
                gk__fft_store_cpu(P, out, win, row, p, gk__cmul(buf[p], gk__expi(sgn * pi * (double)(((int64_t)p * p) % (2 * n)) / n)));
        }
    }
}

/* One thunk for every FFT-based op on the CPU: the transform, then (op)
   iSTFT overlap-add or the Whisper mel/log/clamp stages. */
enum { GK__SG_FFT = 0, GK__SG_ISTFT, GK__SG_WMEL };
typedef struct gk__fft_cpu_p {
    gk__fftp P;
    int op;
    float *out, *tmp;       /* tmp: frames (iSTFT) or power (Whisper) */
    const float *in, *win, *filt;
    gk__cd *ws;
    int64_t B, len;         /* iSTFT: signals, output length */
    int M;                  /* Whisper: mel bins */
} gk__fft_cpu_p;
static void gk__istft_ola_cpu(const gk__fftp *P, float *out, const float *frames, const float *win, int64_t B, int64_t len) {
    int n = P->n;
    int64_t pad = P->center ? n / 2 : 0, T = P->nframes, hop = P->hop, i;
    for (i = 0; i < B * len; i++) {
        int64_t b = i / len, j = i - b * len, jp = j + pad, t1 = jp / hop, t0 = jp - n + 1 <= 0 ? 0 : (jp - n + 1 + hop - 1) / hop, t;
        double s = 0, env = 0;
        if (t1 > T - 1) t1 = T - 1;
        for (t = t0; t <= t1; t++) {
            int k = (int)(jp - t * hop);
            double w = gk__fft_win_cpu(P, win, k);
            s += frames[(b * T + t) * n + k];
            env += w * w;
        }
        out[i] = env > 1e-11 ? (float)(s / env) : 0.0f;
    }
}
static int gk__fft_cpu(const void *vp) {
    const gk__fft_cpu_p *q = (const gk__fft_cpu_p *)vp;
    if (q->op == GK__SG_FFT) { gk__fft_run_cpu(&q->P, q->out, q->in, q->win, q->ws); return 0; }
    gk__fft_run_cpu(&q->P, q->tmp, q->in, q->win, q->ws);
    if (q->op == GK__SG_ISTFT) { gk__istft_ola_cpu(&q->P, q->out, q->tmp, q->win, q->B, q->len); return 0; }
    {
        int64_t T = q->P.nframes, b, t, F = q->P.n / 2 + 1, k;
        int mm;
        for (b = 0; b < q->B; b++) {
            double mx = -1e300;
            float *o = q->out + b * q->M * T;
            for (mm = 0; mm < q->M; mm++)
                for (t = 0; t < T; t++) {
                    double acc = 0;
                    for (k = 0; k < F; k++) acc += (double)q->filt[mm * F + k] * q->tmp[(b * T + t) * F + k];
                    o[mm * T + t] = (float)log10(acc > 1e-10 ? acc : 1e-10);
                    if (o[mm * T + t] > mx) mx = o[mm * T + t];
                }
            for (t = 0; t < q->M * T; t++) o[t] = (float)(((o[t] > mx - 8.0 ? o[t] : (float)(mx - 8.0)) + 4.0) / 4.0);
        }
    }
    return 0;
}

/* CUDA, transforms larger than shared memory: every stage is a launch over
   the global buffer buf [rows][m] (see gk_fft_g_* in src/ops/signal/fft.cu). */
static gk_status gk__fft_gstages(gk_ctx *ctx, gk__cu_ptr buf, int64_t rows, const gk__fftp *P, float sgn, int dif, const char *where) {
    int Ls[16], L = 1, k, kk, m = P->m;
    for (k = 0; k < P->nf; k++) { Ls[k] = L; L *= P->f[k]; }
    for (kk = 0; kk < P->nf; kk++) {
        int R;
        void *args[7];
        k = dif ? P->nf - 1 - kk : kk;
        R = P->f[k];
        L = Ls[k];
        args[0] = &buf; args[1] = &rows; args[2] = &m; args[3] = &L; args[4] = &R; args[5] = &sgn; args[6] = &dif;
        GK__TRY(gk__launch(ctx, GK__MOD_FFT, "gk_fft_g_stage", rows * (m / R), args, where));
    }
    return GK_OK;
}
static gk_status gk__fft_global(gk_ctx *ctx, gk__fftp *P, gk__cu_ptr dst, gk__cu_ptr in, gk__cu_ptr win, gk__cu_ptr bhat, gk__cu_ptr buf,
                                const char *where) {
    void *args[5];
    int what;
    float sgn = P->inverse ? 1.0f : -1.0f, sc = 1.0f / (float)P->m;
    args[0] = P; args[2] = &in; args[3] = &win; args[4] = &what;
    if (P->blue) {
        what = 2;
        args[1] = &bhat;
        GK__TRY(gk__launch(ctx, GK__MOD_FFT, "gk_fft_g_load", P->m, args, where));
        GK__TRY(gk__fft_gstages(ctx, bhat, 1, P, -1.0f, 0, where));
        what = 1;
        args[1] = &buf;
        GK__TRY(gk__launch(ctx, GK__MOD_FFT, "gk_fft_g_load", P->batch * P->m, args, where));
        GK__TRY(gk__fft_gstages(ctx, buf, P->batch, P, -1.0f, 1, where));
        args[1] = &buf; args[2] = &bhat; args[3] = &sc;
        GK__TRY(gk__launch(ctx, GK__MOD_FFT, "gk_fft_g_mul", P->batch * P->m, args, where));
        GK__TRY(gk__fft_gstages(ctx, buf, P->batch, P, 1.0f, 0, where));
    } else {
        what = 0;
        args[1] = &buf;
        GK__TRY(gk__launch(ctx, GK__MOD_FFT, "gk_fft_g_load", P->batch * P->m, args, where));
        GK__TRY(gk__fft_gstages(ctx, buf, P->batch, P, sgn, 0, where));
    }
    args[0] = P; args[1] = &dst; args[2] = &buf; args[3] = &win;
    return gk__launch(ctx, GK__MOD_FFT, "gk_fft_g_store", P->batch * P->n, args, where);
}

/* Issues a transform (P complete) plus its follow-up stage. addresses:
   out, in, win (0: Hann), filt; tmp_bytes: frames / power scratch. */
/* shared memory of gk_stft_pairs with np frame pairs per block (its layout) */
static size_t gk__stft_pairs_smem(const gk__fftp *P, int np) {
    return (size_t)np * (size_t)(P->m + 1) * 8 + (size_t)P->m * 12 + (size_t)P->n * 4 + 8 + (size_t)np * 48;
}
static gk_status gk__fft_issue(gk_ctx *ctx, gk__fftp *P, int op, gk__cu_ptr out, gk__cu_ptr in, gk__cu_ptr win, gk__cu_ptr filt,
                               int64_t B, int64_t len, int M, const char *where) {
    gk__cu_ptr ws = 0;
    size_t tmp_bytes = 0, o_fft;
    gk_status st;
    if (op == GK__SG_ISTFT) tmp_bytes = sizeof(float) * (size_t)P->batch * (size_t)P->n;
    if (op == GK__SG_WMEL) tmp_bytes = sizeof(float) * (size_t)P->batch * (size_t)(P->n / 2 + 1) + 256 + sizeof(unsigned) * (size_t)B;
    o_fft = gk__al256(tmp_bytes);
    P->has_window = win != 0;
    if (ctx->backend == GK_BACKEND_CPU) {
        gk__fft_cpu_p q;
        GK__TRY(gk__workspace(ctx, o_fft + sizeof(gk__cd) * 2 * (size_t)P->m, &ws, where));
        memset(&q, 0, sizeof q);
        q.P = *P; q.op = op;
        q.out = (float *)(uintptr_t)out; q.tmp = (float *)(uintptr_t)ws;
        q.in = (const float *)(uintptr_t)in; q.win = (const float *)(uintptr_t)win; q.filt = (const float *)(uintptr_t)filt;
        q.ws = (gk__cd *)(uintptr_t)(ws + o_fft);
        q.B = B; q.len = len; q.M = M;
        st = gk__cpu_run(ctx, gk__fft_cpu, &q, sizeof q, where);
    } else {
        unsigned grid[3] = { 1, 1, 1 }, block[3] = { 64, 1, 1 }, smem = (unsigned)P->m * 8;
        int np;
        /* twiddle + window tables next to the data when they fit too */
        long long smem_t = (long long)P->m * 16 + (long long)P->n * 4;
        gk__cu_ptr bhat, dst;
        int64_t g;
        void *args[6];
        /* one block per transform in shared memory when it fits, else the global-memory stages */
        int global = (long long)P->m * 8 > (long long)ctx->info.max_smem_per_block_optin;
        size_t o_buf = o_fft + (P->blue ? gk__al256((size_t)P->m * 8) : 0);
        gk__cu_ptr gbuf;
        GK__TRY(gk__workspace(ctx, o_buf + (global ? (size_t)P->batch * (size_t)P->m * 8 : 0), &ws, where));
        bhat = ws + o_fft;
        gbuf = ws + o_buf;
        dst = op == GK__SG_FFT ? out : ws;
        while (block[0] < 256 && (int)block[0] * 4 < P->m) block[0] *= 2;
        st = GK_OK;
        /* STFT frames into the torch layout or the power spectrum: two real frames per complex FFT,
           several pairs per block (gk_stft_pairs), when the length is 2/3/5-smooth and it fits in 48 KiB */
        np = P->m <= 512 ? 8 : P->m <= 1024 ? 2 : 1;
        while (np > 0 && gk__stft_pairs_smem(P, np) > 48 * 1024) np--;
        if (!P->blue && P->in_mode == GK__FI_FRAMES && (P->out_mode == GK__FO_SPEC || P->out_mode == GK__FO_POWER) && np > 0) {
            int64_t tiles = (P->batch + 2 * np - 1) / (2 * np), gmax = (int64_t)ctx->info.sm_count * 16;
            unsigned sblock[3] = { 128, 1, 1 };
            gk__cu_function f;
            int per_sm = 0;
            if (P->m * np > 2048) sblock[0] = 256;
            /* as many blocks as are resident at once, each over several tiles: the tables are built once a block */
            if (gk__lib_function(ctx, GK__MOD_FFT, "gk_stft_pairs", &f, where) == GK_OK &&
                ctx->cu.OccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, (int)sblock[0], gk__stft_pairs_smem(P, np)) == 0 && per_sm > 0)
                gmax = (int64_t)per_sm * ctx->info.sm_count;
            grid[0] = (unsigned)(tiles < gmax ? tiles : gmax);
            args[0] = P; args[1] = &dst; args[2] = &in; args[3] = &win; args[4] = &np;
            st = gk__launch_cfg(ctx, GK__MOD_FFT, "gk_stft_pairs", grid, sblock, (unsigned)gk__stft_pairs_smem(P, np), args, where);
        } else if (global) st = gk__fft_global(ctx, P, dst, in, win, bhat, gbuf, where);
        else {
            if (P->blue) {
                args[0] = P; args[1] = &bhat;
                st = gk__launch_cfg(ctx, GK__MOD_FFT, "gk_fft_chirp", grid, block, smem, args, where);
            }
            g = P->batch < (int64_t)ctx->info.sm_count * 32 ? P->batch : (int64_t)ctx->info.sm_count * 32;
            grid[0] = (unsigned)(g > 0 ? g : 1);
            P->tw_table = smem_t <= (long long)ctx->info.max_smem_per_block_optin;
            args[0] = P; args[1] = &dst; args[2] = &in; args[3] = &win; args[4] = &bhat;
            if (st == GK_OK) st = gk__launch_cfg(ctx, GK__MOD_FFT, "gk_fft_run", grid, block, P->tw_table ? (unsigned)smem_t : smem, args, where);
            P->tw_table = 0;
        }
        if (st == GK_OK && op == GK__SG_ISTFT) {
            args[0] = P; args[1] = &out; args[2] = &ws; args[3] = &win; args[4] = &B; args[5] = &len;
            st = gk__launch(ctx, GK__MOD_FFT, "gk_istft_ola", B * len, args, where);
        }
        if (st == GK_OK && op == GK__SG_WMEL) {
            int F = P->n / 2 + 1;
            int64_t T = P->nframes, per = (int64_t)M * T, nn = B * per;
            gk__cu_ptr mx = ws + gk__al256(sizeof(float) * (size_t)P->batch * (size_t)F);
            unsigned mblock[3] = { 256, 1, 1 }, mgrid[3] = { 1, 1, 1 };
            st = gk__sg_launch_err(ctx, ctx->cu.MemsetD8Async(mx, 0, sizeof(unsigned) * (size_t)B, ctx->cur_stream->cu), where, "cuMemsetD8Async");
            mgrid[0] = (unsigned)((T + 31) / 32);
            mgrid[1] = (unsigned)B;
            args[0] = &out; args[1] = &ws; args[2] = &filt; args[3] = &mx; args[4] = &F; args[5] = &M;
            {
                void *a7[7];
                a7[0] = &out; a7[1] = &ws; a7[2] = &filt; a7[3] = &mx; a7[4] = &F; a7[5] = &M; a7[6] = &T;
                if (st == GK_OK) st = gk__launch_cfg(ctx, GK__MOD_FFT, "gk_wmel_log", mgrid, mblock, (unsigned)(sizeof(float) * 32 * (size_t)F), a7, where);
            }
            args[0] = &out; args[1] = &mx; args[2] = &per; args[3] = &nn;
            if (st == GK_OK) st = gk__launch(ctx, GK__MOD_FFT, "gk_wmel_norm", nn, args, where);
        }
    }
    gk__unuse(ctx, ctx->ws);
    return st;
}

/* checks shared by the FFT entries: f32, contiguous operands */
static gk_status gk__fft_enter(gk_ctx *ctx, gk__opnds *ops, const gk_tensor *ts, const char *const *names, int n, unsigned optional,
                               const char *where) {
    GK__TRY(gk__sg_operands(ctx, ops, ts, names, n, optional, where));
    return gk__sg_check(ctx, ops, names, 0, where);
}
static int gk__same_dims(const gk__slot *a, int na, const gk__slot *b, int nb, int count) {
    return memcmp(a->shape + na, b->shape + nb, sizeof(int64_t) * (size_t)count) == 0;
}

/* kind: 0 fft, 1 rfft, 2 irfft */
static gk_status gk__fft_op(gk_ctx *ctx, gk_tensor out, gk_tensor x, int kind, int inverse, const char *where) {
    static const char *const names[2] = { "out", "x" };
    gk_tensor ts[2];
    gk__opnds ops;
    gk__fftp P;
    gk_status st;
    int64_t n = 0;
    ts[0] = out; ts[1] = x;
    GK__ENTER(ctx, where);
    memset(&P, 0, sizeof P);
    st = gk__fft_enter(ctx, &ops, ts, names, 2, 0, where);
    if (st == GK_OK) {
        const gk__slot *so = ops.s[0], *sx = ops.s[1];
        if (kind == 0) {
            if (sx->ndim < 2 || sx->shape[sx->ndim - 1] != 2) st = gk__sg_shape_err(ctx, sx, "x", "[..., n, 2] (complex)", where);
            else if (so->ndim != sx->ndim || !gk__same_dims(so, 0, sx, 0, sx->ndim)) st = gk__err(ctx, GK_ERR_SHAPE, "%s: out and x differ in shape", where);
            else n = sx->shape[sx->ndim - 2];
        } else if (kind == 1) {
            if (sx->ndim < 1) st = gk__sg_shape_err(ctx, sx, "x", "[..., n]", where);
            else {
                n = sx->shape[sx->ndim - 1];
                if (so->ndim != sx->ndim + 1 || !gk__same_dims(so, 0, sx, 0, sx->ndim - 1) || so->shape[so->ndim - 2] != n / 2 + 1 ||
                    so->shape[so->ndim - 1] != 2)
                    st = gk__sg_shape_err(ctx, so, "out", "[..., n/2+1, 2] for x [..., n]", where);
            }
        } else {
            if (so->ndim < 1) st = gk__sg_shape_err(ctx, so, "out", "[..., n]", where);
            else {
                n = so->shape[so->ndim - 1];
                if (sx->ndim != so->ndim + 1 || !gk__same_dims(sx, 0, so, 0, so->ndim - 1) || sx->shape[sx->ndim - 2] != n / 2 + 1 ||
                    sx->shape[sx->ndim - 1] != 2)
                    st = gk__sg_shape_err(ctx, sx, "x", "[..., n/2+1, 2] for out [..., n]", where);
            }
        }
    }
    if (st == GK_OK) st = gk__fft_plan(ctx, &P, n, inverse, where);
    if (st == GK_OK) {
        P.batch = kind == 2 ? gk__numel(ops.s[0]) / n : kind == 1 ? gk__numel(ops.s[1]) / n : gk__numel(ops.s[1]) / (2 * n);
        P.in_mode = kind == 0 ? GK__FI_COMPLEX : kind == 1 ? GK__FI_REAL : GK__FI_HALF;
        P.out_mode = kind == 0 ? GK__FO_COMPLEX : kind == 1 ? GK__FO_HALF : GK__FO_REAL;
        P.scale = inverse ? 1.0f / (float)n : 1.0f;
    }
    if (st == GK_OK && P.batch == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__sg_use(ctx, &ops, where);
    if (st == GK_OK) st = gk__fft_issue(ctx, &P, GK__SG_FFT, gk__slot_addr(ops.s[0]), gk__slot_addr(ops.s[1]), 0, 0, 0, 0, 0, where);
    gk__sg_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_fft(gk_ctx *ctx, gk_tensor out, gk_tensor x, int inverse) { return gk__fft_op(ctx, out, x, 0, inverse != 0, "gk_fft"); }
GKDEF gk_status gk_rfft(gk_ctx *ctx, gk_tensor out, gk_tensor x) { return gk__fft_op(ctx, out, x, 1, 0, "gk_rfft"); }
GKDEF gk_status gk_irfft(gk_ctx *ctx, gk_tensor out, gk_tensor x) { return gk__fft_op(ctx, out, x, 2, 1, "gk_irfft"); }

/* _new of the FFT family: out shape from x's with the last dims replaced */
static gk_status gk__sg_new_from(gk_ctx *ctx, gk_tensor x, int drop, int nadd, const int64_t *add, int dt, gk_tensor *out, int64_t *xs,
                                 int *xnd, const char *where) {
    int64_t shape[GK_MAX_DIMS + 4];
    int nd = 0, i;
    gk_status st;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", where);
    GK__TRY(gk__sg_shape(ctx, x, &nd, shape, NULL, "x", where));
    if (xs) memcpy(xs, shape, sizeof(int64_t) * GK_MAX_DIMS);
    if (xnd) *xnd = nd;
    if (nd < drop || nd - drop + nadd > GK_MAX_DIMS) {
        gk__enter(ctx);
        st = gk__err(ctx, GK_ERR_SHAPE, "%s: x has %d dims", where, nd);
        gk__unlock(&ctx->mu);
        return st;
    }
    nd -= drop;
    for (i = 0; i < nadd; i++) shape[nd++] = add[i];
    return gk__sg_alloc(ctx, x, dt, nd, shape, out, where);
}
GKDEF gk_status gk_fft_new(gk_ctx *ctx, gk_tensor x, int inverse, gk_tensor *out) {
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", "gk_fft_new");
    GK__TRY(gk__sg_new_from(ctx, x, 0, 0, NULL, GK_F32, &t, NULL, NULL, "gk_fft_new"));
    return gk__finish_new(ctx, gk_fft(ctx, t, x, inverse), t, out);
}
GKDEF gk_status gk_rfft_new(gk_ctx *ctx, gk_tensor x, gk_tensor *out) {
    int64_t s[GK_MAX_DIMS], add[2];
    int nd = 0;
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_rfft_new: out is NULL");
    GK__TRY(gk__sg_shape(ctx, x, &nd, s, NULL, "x", "gk_rfft_new"));
    add[0] = nd > 0 ? s[nd - 1] / 2 + 1 : 0;
    add[1] = 2;
    GK__TRY(gk__sg_new_from(ctx, x, nd > 0 ? 1 : 0, 2, add, GK_F32, &t, NULL, NULL, "gk_rfft_new"));
    return gk__finish_new(ctx, gk_rfft(ctx, t, x), t, out);
}
GKDEF gk_status gk_irfft_new(gk_ctx *ctx, gk_tensor x, int64_t n, gk_tensor *out) {
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", "gk_irfft_new");
    if (n < 0) n = 0;
    GK__TRY(gk__sg_new_from(ctx, x, 2, 1, &n, GK_F32, &t, NULL, NULL, "gk_irfft_new"));
    return gk__finish_new(ctx, gk_irfft(ctx, t, x), t, out);
}

