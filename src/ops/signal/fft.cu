// fft.cu - FFT of any length without cuFFT: mixed radix 2/3/4/5 in shared
// memory (one block per transform), Bluestein (chirp-z) for lengths with
// other prime factors; rfft / irfft / STFT / iSTFT framing are load and store
// modes of the same kernel; Whisper log-mel (power -> mel -> log10 -> clamp).
//
// The plan (gk_fftp) matches gk__fftp in gpukit.h. Length m = f[0]*...*f[nf-1].
// DIT stage k combines f[k] sub-transforms of length L = f[0]..f[k-1]; its
// input is in digit-reversed order (gk_fft_rev), its output natural. The DIF
// stages are the transposed stages: natural input, digit-reversed output.
// Twiddles are computed with sincospif (accurate), so no tables are needed.
#include "gk_common.cuh"

struct gk_fftp {
    int n, m, nf, blue, inverse, in_mode, out_mode, center;
    int f[16];
    gk_i64 batch;      // number of transforms
    gk_i64 nframes;    // STFT / iSTFT frames per signal
    gk_i64 hop;
    gk_i64 sig_len;    // STFT: logical signal length (reflect padding uses it)
    gk_i64 sig_avail;  // STFT: samples present in memory (beyond: zeros)
    gk_i64 sig_stride; // STFT: elements between signals
    float scale;
    int has_window;
    int tw_table;      // gk_fft_run: twiddle and window tables in shared memory
    int pad_;
};

// in_mode
#define GK_FI_COMPLEX 0   // [batch][n][2]
#define GK_FI_REAL 1      // [batch][n]
#define GK_FI_HALF 2      // [batch][n/2+1][2], Hermitian (irfft)
#define GK_FI_FRAMES 3    // STFT frames of a signal [B][sig_stride]
#define GK_FI_SPEC 4      // iSTFT input [B][n/2+1][nframes][2], Hermitian
// out_mode
#define GK_FO_COMPLEX 0   // [batch][n][2]
#define GK_FO_HALF 1      // [batch][n/2+1][2]
#define GK_FO_REAL 2      // [batch][n] real part
#define GK_FO_SPEC 3      // [B][n/2+1][nframes][2] (torch.stft layout)
#define GK_FO_POWER 4     // [batch][n/2+1] |X|^2
#define GK_FO_WREAL 5     // [batch][n] real part times window

__device__ __forceinline__ float2 gk_cmul(float2 a, float2 b) { return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
// exp(i * pi * num / den)
__device__ __forceinline__ float2 gk_expi_pi(float num, float den) {
    float s, c;
    sincospif(num / den, &s, &c);
    return make_float2(c, s);
}

__device__ __forceinline__ int gk_fft_rev(int p, const gk_fftp &P) {
    int L = P.m, r = 0, mult = 1;
    for (int k = P.nf - 1; k >= 0; k--) {
        L /= P.f[k];
        int d = p / L;
        p -= d * L;
        r += d * mult;
        mult *= P.f[k];
    }
    return r;
}

template <int R> __device__ __forceinline__ void gk_small_dft(float2 *a, float sgn) {
    float2 y[R];
#pragma unroll
    for (int mm = 0; mm < R; mm++) {
        float2 acc = a[0];
#pragma unroll
        for (int j = 1; j < R; j++) {
            int e = (j * mm) % R;
            float c = 1.f, s = 0.f;
            if (R == 2) { c = -1.f; }
            else if (R == 4) { c = e == 2 ? -1.f : 0.f; s = e == 1 ? 1.f : e == 3 ? -1.f : 0.f; }
            else if (R == 3) { c = -0.5f; s = e == 1 ? 0.86602540378443865f : -0.86602540378443865f; }
            else if (R == 5) {
                c = (e == 1 || e == 4) ? 0.30901699437494742f : -0.80901699437494742f;
                s = e == 1 ? 0.95105651629515357f : e == 2 ? 0.58778525229247313f : e == 3 ? -0.58778525229247313f : -0.95105651629515357f;
            }
            if (e == 0) { c = 1.f; s = 0.f; }
            s *= sgn;
            acc.x += a[j].x * c - a[j].y * s;
            acc.y += a[j].x * s + a[j].y * c;
        }
        y[mm] = acc;
    }
#pragma unroll
    for (int mm = 0; mm < R; mm++) a[mm] = y[mm];
}

// butterfly i of a stage (radix R, sub-transform length L) over buf
// twiddle exp(sgn 2 pi i e / N): from the table tw[k] = exp(-2 pi i k / m) when given
__device__ __forceinline__ float2 gk_fft_tw(const float2 *tw, int m, int e, int N, float sgn) {
    if (!tw) return gk_expi_pi(sgn * 2.f * (float)e, (float)N);
    float2 w = tw[e * (m / N)];
    return make_float2(w.x, sgn > 0.f ? -w.y : w.y);
}
template <int R> __device__ __forceinline__ void gk_fft_bfly(float2 *buf, int L, int i, float sgn, int dif, const float2 *tw = 0, int m = 0) {
    int N = L * R, b = i / L, q = i - b * L;
    float2 *base = buf + (gk_i64)b * N + q;
    float2 a[R];
#pragma unroll
    for (int j = 0; j < R; j++) a[j] = base[(gk_i64)j * L];
    if (!dif) {
#pragma unroll
        for (int j = 1; j < R; j++) a[j] = gk_cmul(a[j], gk_fft_tw(tw, m, j * q, N, sgn));
    }
    gk_small_dft<R>(a, sgn);
    if (dif) {
#pragma unroll
        for (int j = 1; j < R; j++) a[j] = gk_cmul(a[j], gk_fft_tw(tw, m, j * q, N, sgn));
    }
#pragma unroll
    for (int j = 0; j < R; j++) base[(gk_i64)j * L] = a[j];
}
// one stage over buf (shared memory), all threads of the block
template <int R> __device__ void gk_fft_stage(float2 *buf, int L, int m, float sgn, int dif, const float2 *tw) {
    int nb = m / R;
    for (int i = threadIdx.x; i < nb; i += blockDim.x) gk_fft_bfly<R>(buf, L, i, sgn, dif, tw, m);
}
__device__ void gk_fft_stages(float2 *buf, const gk_fftp &P, float sgn, int dif, const float2 *tw = 0) {
    int Ls[16];
    int L = 1;
    for (int k = 0; k < P.nf; k++) { Ls[k] = L; L *= P.f[k]; }
    for (int kk = 0; kk < P.nf; kk++) {
        int k = dif ? P.nf - 1 - kk : kk;
        __syncthreads();
        switch (P.f[k]) {
        case 2: gk_fft_stage<2>(buf, Ls[k], P.m, sgn, dif, tw); break;
        case 3: gk_fft_stage<3>(buf, Ls[k], P.m, sgn, dif, tw); break;
        case 4: gk_fft_stage<4>(buf, Ls[k], P.m, sgn, dif, tw); break;
        default: gk_fft_stage<5>(buf, Ls[k], P.m, sgn, dif, tw); break;
        }
    }
    __syncthreads();
}

__device__ __forceinline__ float gk_fft_win(const gk_fftp &P, const float *win, int k) {
    if (P.has_window) return win[k];
    return 0.5f - 0.5f * cospif(2.f * (float)k / (float)P.n); // periodic Hann
}

// logical input element idx (0..n-1) of transform `row`
__device__ __forceinline__ float2 gk_fft_load(const gk_fftp &P, const float *in, const float *win, gk_i64 row, int idx) {
    int n = P.n;
    switch (P.in_mode) {
    case GK_FI_COMPLEX: { const float *p = in + (row * n + idx) * 2; return make_float2(p[0], p[1]); }
    case GK_FI_REAL: return make_float2(in[row * n + idx], 0.f);
    case GK_FI_HALF:
    case GK_FI_SPEC: {
        int h = n / 2 + 1, k = idx <= n / 2 ? idx : n - idx;
        const float *p;
        if (P.in_mode == GK_FI_HALF) p = in + (row * h + k) * 2;
        else {
            gk_i64 b = row / P.nframes, t = row - b * P.nframes;
            p = in + ((b * h + k) * P.nframes + t) * 2;
        }
        float re = p[0], im = p[1];
        if (k == 0 || 2 * k == n) im = 0.f;
        return make_float2(re, idx <= n / 2 ? im : -im);
    }
    default: { // GK_FI_FRAMES
        gk_i64 b = row / P.nframes, t = row - b * P.nframes;
        gk_i64 pos = t * P.hop + idx - (P.center ? n / 2 : 0);
        if (pos < 0) pos = -pos;
        if (pos >= P.sig_len) pos = 2 * (P.sig_len - 1) - pos;
        float v = pos < P.sig_avail ? in[b * P.sig_stride + pos] : 0.f;
        return make_float2(v * gk_fft_win(P, win, idx), 0.f);
    }
    }
}
__device__ __forceinline__ void gk_fft_store(const gk_fftp &P, float *out, const float *win, gk_i64 row, int k, float2 v) {
    int n = P.n, h = n / 2 + 1;
    v.x *= P.scale;
    v.y *= P.scale;
    switch (P.out_mode) {
    case GK_FO_COMPLEX: out[(row * n + k) * 2] = v.x; out[(row * n + k) * 2 + 1] = v.y; break;
    case GK_FO_HALF: if (k < h) { out[(row * h + k) * 2] = v.x; out[(row * h + k) * 2 + 1] = v.y; } break;
    case GK_FO_REAL: out[row * n + k] = v.x; break;
    case GK_FO_SPEC:
        if (k < h) {
            gk_i64 b = row / P.nframes, t = row - b * P.nframes;
            float *p = out + ((b * h + k) * P.nframes + t) * 2;
            p[0] = v.x;
            p[1] = v.y;
        }
        break;
    case GK_FO_POWER: if (k < h) out[row * h + k] = v.x * v.x + v.y * v.y; break;
    default: out[row * n + k] = v.x * gk_fft_win(P, win, k); break;
    }
}

// The transforms: one block per row (grid-stride over rows); dynamic shared
// memory holds m complex values. bhat: FFT_m(conj chirp) / m for Bluestein.
// With P.tw_table, shared memory also holds tw[m] = exp(-2 pi i k / m) and
// the window (n floats), built once per block and reused for all its rows.
extern "C" __global__ void gk_fft_run(gk_fftp P, float *out, const float *in, const float *win, const float2 *bhat) {
    extern __shared__ float2 gk_fft_buf[];
    float2 *buf = gk_fft_buf, *tw = 0;
    float sgn = P.inverse ? 1.f : -1.f;
    if (P.tw_table) {
        float *wt;
        tw = buf + P.m;
        wt = (float *)(tw + P.m);
        for (int k = threadIdx.x; k < P.m; k += blockDim.x) tw[k] = gk_expi_pi(-2.f * (float)k, (float)P.m);
        for (int k = threadIdx.x; k < P.n; k += blockDim.x) wt[k] = gk_fft_win(P, win, k);
        win = wt;
        P.has_window = 1;
        __syncthreads();
    }
    for (gk_i64 row = blockIdx.x; row < P.batch; row += gridDim.x) {
        if (!P.blue) {
            for (int p = threadIdx.x; p < P.m; p += blockDim.x) buf[p] = gk_fft_load(P, in, win, row, gk_fft_rev(p, P));
            gk_fft_stages(buf, P, sgn, 0, tw);
            for (int k = threadIdx.x; k < P.n; k += blockDim.x) gk_fft_store(P, out, win, row, k, buf[k]);
        } else {
            int n2 = 2 * P.n;
            for (int p = threadIdx.x; p < P.m; p += blockDim.x) {
                float2 v = make_float2(0.f, 0.f);
                if (p < P.n) {
                    int e = (int)(((gk_i64)p * p) % n2);
                    v = gk_cmul(gk_fft_load(P, in, win, row, p), gk_expi_pi(sgn * (float)e, (float)P.n));
                }
                buf[p] = v;
            }
            gk_fft_stages(buf, P, -1.f, 1, tw);
            for (int p = threadIdx.x; p < P.m; p += blockDim.x) buf[p] = gk_cmul(buf[p], bhat[gk_fft_rev(p, P)]);
            gk_fft_stages(buf, P, 1.f, 0, tw);
            for (int k = threadIdx.x; k < P.n; k += blockDim.x) {
                int e = (int)(((gk_i64)k * k) % n2);
                gk_fft_store(P, out, win, row, k, gk_cmul(buf[k], gk_expi_pi(sgn * (float)e, (float)P.n)));
            }
        }
        __syncthreads();
    }
}

// STFT frames (in_mode FRAMES; out_mode SPEC or POWER; m == n, no Bluestein):
// two real frames per complex FFT (z = a + i b; A[k] = (Z[k] + conj Z[n-k]) / 2,
// B[k] = (Z[k] - conj Z[n-k]) / 2i), np pairs (2*np consecutive rows) per
// tile, tiles grid-stride. Shared memory: buf [np][m + 1] float2, tw [m] float2,
// window [n] float, digit reversal [m] int, per-row start / input base / output base [2*np] i64
// (built once per block). Reflect padding and the window are applied in the
// load; only the n/2+1 onesided bins are written (SPEC: consecutive threads
// write consecutive frames of one bin).
// i / d for 0 <= i < 2^22, d >= 1, from inv = 1.0f / d (correctly rounded):
// (i + 0.5) / d is at least 0.5 / d away from an integer, and the two
// roundings move it by less than that; four instructions, not an integer
// division's twenty.
__device__ __forceinline__ int gk_fdiv(int i, float inv) { return (int)__fmul_rn(__fadd_rn((float)i, 0.5f), inv); }
// one stage over np transforms: butterfly (q, b, qq) of transform q
template <int R> __device__ __forceinline__ void gk_stft_stage(float2 *buf, int np, int L, int m, const float2 *tw) {
    const int nb = m / R, N = L * R, step = m / N, tot = np * nb;
    const float inb = 1.f / (float)nb, iL = 1.f / (float)L;
    for (int i = threadIdx.x; i < tot; i += blockDim.x) {
        int q = gk_fdiv(i, inb), ii = i - q * nb;
        int b = gk_fdiv(ii, iL), qq = ii - b * L;
        float2 *base = buf + q * (m + 1) + b * N + qq;
        float2 a[R];
#pragma unroll
        for (int j = 0; j < R; j++) a[j] = base[j * L];
#pragma unroll
        for (int j = 1; j < R; j++) a[j] = gk_cmul(a[j], tw[j * qq * step]);
        gk_small_dft<R>(a, -1.f);
#pragma unroll
        for (int j = 0; j < R; j++) base[j * L] = a[j];
    }
}
// the frame load and the first stage: butterfly (q, b) reads elements b R + j
// (j < R) of transform q, i.e. frame samples rev[b R + j] of frames 2q, 2q+1
template <int R> __device__ __forceinline__ void gk_stft_first(const gk_fftp &P, float2 *buf, const float *in, const float *wt, const int *rev,
                                                               const gk_i64 *fst, const gk_i64 *fbase, int np) {
    const int m = P.m, nb = m / R, tot = np * nb;
    const float inb = 1.f / (float)nb;
    for (int i = threadIdx.x; i < tot; i += blockDim.x) {
        int q = gk_fdiv(i, inb), b = i - q * nb;
        const gk_i64 p0 = fst[2 * q], p1 = fst[2 * q + 1], b0 = fbase[2 * q], b1 = fbase[2 * q + 1];
        float2 a[R];
#pragma unroll
        for (int j = 0; j < R; j++) {
            int idx = rev[b * R + j];
            float w = wt[idx], x0 = 0.f, x1 = 0.f;
            if (p0 != (gk_i64)1 << 62) { // beyond the batch: zeros
                gk_i64 pos = p0 + idx;
                if (pos < 0) pos = -pos;
                if (pos >= P.sig_len) pos = 2 * (P.sig_len - 1) - pos;
                if (pos < P.sig_avail) x0 = __ldg(in + b0 + pos);
            }
            if (p1 != (gk_i64)1 << 62) {
                gk_i64 pos = p1 + idx;
                if (pos < 0) pos = -pos;
                if (pos >= P.sig_len) pos = 2 * (P.sig_len - 1) - pos;
                if (pos < P.sig_avail) x1 = __ldg(in + b1 + pos);
            }
            a[j] = make_float2(x0 * w, x1 * w);
        }
        gk_small_dft<R>(a, -1.f);
        float2 *base = buf + q * (m + 1) + b * R;
#pragma unroll
        for (int j = 0; j < R; j++) base[j] = a[j];
    }
}
extern "C" __global__ void __launch_bounds__(256, 6) gk_stft_pairs(gk_fftp P, float *out, const float *in, const float *win, int np) {
    extern __shared__ float2 gk_fft_buf[];
    const int m = P.m, n = P.n, h = n / 2 + 1, nf2 = 2 * np, bd = blockDim.x;
    float2 *buf = gk_fft_buf, *tw = buf + np * (m + 1); // transform q at buf + q (m + 1): the padding spreads the bin reads of 8 transforms over the banks
    float *wt = (float *)(tw + m);
    int *rev = (int *)(wt + n);
    gk_i64 *fst = (gk_i64 *)(((size_t)(rev + m) + 7) & ~(size_t)7), *fbase = fst + nf2, *fout = fbase + nf2;
    for (int k = threadIdx.x; k < m; k += bd) {
        tw[k] = gk_expi_pi(-2.f * (float)k, (float)m);
        rev[k] = gk_fft_rev(k, P);
    }
    for (int k = threadIdx.x; k < n; k += bd) wt[k] = gk_fft_win(P, win, k);
    const gk_i64 ntiles = (P.batch + nf2 - 1) / nf2;
    const gk_i64 pad = P.center ? n / 2 : 0;
    const float inf2 = 1.f / (float)nf2, ih = 1.f / (float)h;
    const bool al8 = ((size_t)out & 7) == 0; // SPEC: one 8-byte store a bin (offsets are even)
    for (gk_i64 tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
        const gk_i64 r0 = tile * nf2;
        __syncthreads(); // tables ready; the previous tile's stores done
        if (threadIdx.x < nf2) {
            gk_i64 row = r0 + threadIdx.x, b = row / P.nframes, t = row - b * P.nframes;
            fst[threadIdx.x] = row < P.batch ? t * P.hop - pad : (gk_i64)1 << 62; // beyond the batch: zeros
            fbase[threadIdx.x] = b * P.sig_stride;
            fout[threadIdx.x] = P.out_mode == GK_FO_SPEC ? (b * h * P.nframes + t) * 2 : row * h; // element offset of bin 0
        }
        __syncthreads();
        // frames into buf (digit-reversed, windowed) fused with the first stage (L = 1, no twiddles):
        // each thread loads the R0 inputs of a butterfly (2 R0 loads in flight), transforms, stores
        switch (P.f[0]) {
        case 2: gk_stft_first<2>(P, buf, in, wt, rev, fst, fbase, np); break;
        case 3: gk_stft_first<3>(P, buf, in, wt, rev, fst, fbase, np); break;
        case 4: gk_stft_first<4>(P, buf, in, wt, rev, fst, fbase, np); break;
        default: gk_stft_first<5>(P, buf, in, wt, rev, fst, fbase, np); break;
        }
        {
            int L = P.f[0];
            for (int k = 1; k < P.nf; k++) {
                __syncthreads();
                switch (P.f[k]) {
                case 2: gk_stft_stage<2>(buf, np, L, m, tw); break;
                case 3: gk_stft_stage<3>(buf, np, L, m, tw); break;
                case 4: gk_stft_stage<4>(buf, np, L, m, tw); break;
                default: gk_stft_stage<5>(buf, np, L, m, tw); break;
                }
                L *= P.f[k];
            }
        }
        __syncthreads();
        const float hs = 0.5f * P.scale;
        for (int i = threadIdx.x; i < h * nf2; i += bd) {
            int k, f;
            if (P.out_mode == GK_FO_SPEC) { k = gk_fdiv(i, inf2); f = i - k * nf2; }
            else { f = gk_fdiv(i, ih); k = i - f * h; }
            gk_i64 row = r0 + f;
            if (row >= P.batch) continue;
            const float2 *z = buf + (f >> 1) * (m + 1);
            float2 a = z[k], c = z[k == 0 ? 0 : m - k], v;
            if (f & 1) v = make_float2((a.y + c.y) * hs, (c.x - a.x) * hs);
            else v = make_float2((a.x + c.x) * hs, (a.y - c.y) * hs);
            if (P.out_mode == GK_FO_SPEC) {
                float *o = out + fout[f] + (gk_i64)k * P.nframes * 2;
                if (al8) *(float2 *)o = v;
                else {
                    o[0] = v.x;
                    o[1] = v.y;
                }
            } else out[fout[f] + k] = v.x * v.x + v.y * v.y;
        }
    }
}

// Bluestein filter: bhat = FFT_m(b) / m, b_j = conj(c_j) for |j| < n (mod m),
// c_j = exp(sgn i pi j^2 / n). One block.
extern "C" __global__ void gk_fft_chirp(gk_fftp P, float2 *bhat) {
    extern __shared__ float2 gk_fft_buf[];
    float2 *buf = gk_fft_buf;
    float sgn = P.inverse ? 1.f : -1.f;
    int n2 = 2 * P.n;
    for (int p = threadIdx.x; p < P.m; p += blockDim.x) {
        int j = gk_fft_rev(p, P);
        int jj = j < P.n ? j : (j > P.m - P.n ? P.m - j : -1);
        float2 v = make_float2(0.f, 0.f);
        if (jj >= 0) {
            int e = (int)(((gk_i64)jj * jj) % n2);
            v = gk_expi_pi(-sgn * (float)e, (float)P.n);
        }
        buf[p] = v;
    }
    gk_fft_stages(buf, P, -1.f, 0);
    float inv = 1.f / (float)P.m;
    for (int p = threadIdx.x; p < P.m; p += blockDim.x) bhat[p] = make_float2(buf[p].x * inv, buf[p].y * inv);
}

// ---- transforms too large for shared memory: the same algorithm over a
// global buffer buf [batch][m], one launch per stage (grid-stride).
// gk_fft_g_load: buf = digit-reversed input (plain) or natural input times
// the chirp, zero-padded (Bluestein). what = 0 plain, 1 Bluestein, 2 the
// Bluestein filter itself (batch 1, into buf = bhat).
extern "C" __global__ void gk_fft_g_load(gk_fftp P, float2 *buf, const float *in, const float *win, int what) {
    float sgn = P.inverse ? 1.f : -1.f;
    gk_i64 total = (what == 2 ? 1 : P.batch) * (gk_i64)P.m;
    int n2 = 2 * P.n;
    for (gk_i64 i = GK_TID; i < total; i += GK_NTHREADS) {
        gk_i64 row = i / P.m;
        int p = (int)(i - row * P.m);
        float2 v = make_float2(0.f, 0.f);
        if (what == 0) v = gk_fft_load(P, in, win, row, gk_fft_rev(p, P));
        else if (what == 1) {
            if (p < P.n) {
                int e = (int)(((gk_i64)p * p) % n2);
                v = gk_cmul(gk_fft_load(P, in, win, row, p), gk_expi_pi(sgn * (float)e, (float)P.n));
            }
        } else {
            int j = gk_fft_rev(p, P);
            int jj = j < P.n ? j : (j > P.m - P.n ? P.m - j : -1);
            if (jj >= 0) {
                int e = (int)(((gk_i64)jj * jj) % n2);
                v = gk_expi_pi(-sgn * (float)e, (float)P.n);
            }
        }
        buf[i] = v;
    }
}
extern "C" __global__ void gk_fft_g_stage(float2 *buf, gk_i64 rows, int m, int L, int R, float sgn, int dif) {
    gk_i64 nb = m / R, total = rows * nb;
    for (gk_i64 i = GK_TID; i < total; i += GK_NTHREADS) {
        gk_i64 row = i / nb;
        int ii = (int)(i - row * nb);
        float2 *b = buf + row * m;
        switch (R) {
        case 2: gk_fft_bfly<2>(b, L, ii, sgn, dif); break;
        case 3: gk_fft_bfly<3>(b, L, ii, sgn, dif); break;
        case 4: gk_fft_bfly<4>(b, L, ii, sgn, dif); break;
        default: gk_fft_bfly<5>(b, L, ii, sgn, dif); break;
        }
    }
}
// Bluestein: buf (digit-reversed spectrum) *= bhat[rev(p)] * scale
extern "C" __global__ void gk_fft_g_mul(gk_fftp P, float2 *buf, const float2 *bhat, float scale) {
    gk_i64 total = P.batch * (gk_i64)P.m;
    for (gk_i64 i = GK_TID; i < total; i += GK_NTHREADS) {
        gk_i64 row = i / P.m;
        int p = (int)(i - row * P.m);
        float2 b = bhat[gk_fft_rev(p, P)];
        buf[i] = gk_cmul(buf[i], make_float2(b.x * scale, b.y * scale));
    }
}
extern "C" __global__ void gk_fft_g_store(gk_fftp P, float *out, const float2 *buf, const float *win) {
    float sgn = P.inverse ? 1.f : -1.f;
    gk_i64 total = P.batch * (gk_i64)P.n;
    int n2 = 2 * P.n;
    for (gk_i64 i = GK_TID; i < total; i += GK_NTHREADS) {
        gk_i64 row = i / P.n;
        int k = (int)(i - row * P.n);
        float2 v = buf[row * P.m + k];
        if (P.blue) {
            int e = (int)(((gk_i64)k * k) % n2);
            v = gk_cmul(v, gk_expi_pi(sgn * (float)e, (float)P.n));
        }
        gk_fft_store(P, out, win, row, k, v);
    }
}

// iSTFT overlap-add: out[b][j] = sum_t frames[b*T+t][j+pad-t*hop] / sum_t win^2
extern "C" __global__ void gk_istft_ola(gk_fftp P, float *out, const float *frames, const float *win, gk_i64 B, gk_i64 len) {
    int n = P.n;
    gk_i64 pad = P.center ? n / 2 : 0, T = P.nframes, hop = P.hop;
    for (gk_i64 i = GK_TID; i < B * len; i += GK_NTHREADS) {
        gk_i64 b = i / len, j = i - b * len, jp = j + pad;
        gk_i64 t1 = jp / hop, t0 = jp - n + 1 <= 0 ? 0 : (jp - n + 1 + hop - 1) / hop;
        if (t1 > T - 1) t1 = T - 1;
        float s = 0.f, env = 0.f;
        for (gk_i64 t = t0; t <= t1; t++) {
            int k = (int)(jp - t * hop);
            float w = gk_fft_win(P, win, k);
            s += frames[(b * T + t) * n + k];
            env += w * w;
        }
        out[i] = env > 1e-11f ? s / env : 0.f;
    }
}

// |z| and atan2(im, re) of interleaved complex values
extern "C" __global__ void gk_complex_abs_f32(gk_i64 n, float *out, const float *z) {
    for (gk_i64 i = GK_TID; i < n; i += GK_NTHREADS) out[i] = hypotf(z[2 * i], z[2 * i + 1]);
}
extern "C" __global__ void gk_complex_angle_f32(gk_i64 n, float *out, const float *z) {
    for (gk_i64 i = GK_TID; i < n; i += GK_NTHREADS) out[i] = atan2f(z[2 * i + 1], z[2 * i]);
}
// torch.polar: z = mag * (cos ph, sin ph)
extern "C" __global__ void gk_complex_polar_f32(gk_i64 n, float *z, const float *mag, const float *ph) {
    for (gk_i64 i = GK_TID; i < n; i += GK_NTHREADS) {
        float s, c;
        sincosf(ph[i], &s, &c);
        z[2 * i] = mag[i] * c;
        z[2 * i + 1] = mag[i] * s;
    }
}

// ---- Whisper log-mel: power [B*T][F] -> out [B][M][T] = log10(max(1e-10, filt . power)),
// and the per-signal maximum (ordered-uint atomicMax into mx[B], zeroed first).
__device__ __forceinline__ unsigned gk_f2ord(float f) {
    unsigned u = (unsigned)__float_as_int(f);
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
__device__ __forceinline__ float gk_ord2f(unsigned u) {
    return __int_as_float((int)((u & 0x80000000u) ? (u & 0x7FFFFFFFu) : ~u));
}
#define GK_MEL_TT 32
extern "C" __global__ void gk_wmel_log(float *out, const float *power, const float *filt, unsigned *mx, int F, int M, gk_i64 T) {
    extern __shared__ float gk_mel_s[];
    float *ps = gk_mel_s;            // [GK_MEL_TT][F]
    __shared__ float red[32];
    gk_i64 b = blockIdx.y, t0 = (gk_i64)blockIdx.x * GK_MEL_TT;
    int nt = (int)(T - t0 < GK_MEL_TT ? T - t0 : GK_MEL_TT);
    for (int i = threadIdx.x; i < GK_MEL_TT * F; i += blockDim.x) {
        int tt = i / F, k = i - tt * F;
        ps[i] = tt < nt ? power[(b * T + t0 + tt) * F + k] : 0.f;
    }
    __syncthreads();
    float lmax = -3.0e38f;
    for (int o = threadIdx.x; o < M * GK_MEL_TT; o += blockDim.x) {
        int mm = o / GK_MEL_TT, tt = o - mm * GK_MEL_TT;
        if (tt >= nt) continue;
        const float *fr = filt + (gk_i64)mm * F, *pr = ps + tt * F;
        float acc = 0.f;
        for (int k = 0; k < F; k++) acc = fmaf(__ldg(fr + k), pr[k], acc);
        float v = log10f(fmaxf(acc, 1e-10f));
        out[(b * M + mm) * T + t0 + tt] = v;
        lmax = fmaxf(lmax, v);
    }
    for (int o = 16; o > 0; o >>= 1) lmax = fmaxf(lmax, __shfl_xor_sync(0xffffffffu, lmax, o));
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = lmax;
    __syncthreads();
    if (threadIdx.x == 0) {
        float v = red[0];
        for (int w = 1; w < (int)(blockDim.x >> 5); w++) v = fmaxf(v, red[w]);
        atomicMax(mx + b, gk_f2ord(v));
    }
}
extern "C" __global__ void gk_wmel_norm(float *out, const unsigned *mx, gk_i64 per, gk_i64 n) {
    for (gk_i64 i = GK_TID; i < n; i += GK_NTHREADS) {
        float lo = gk_ord2f(mx[i / per]) - 8.f;
        out[i] = (fmaxf(out[i], lo) + 4.f) * 0.25f;
    }
}
