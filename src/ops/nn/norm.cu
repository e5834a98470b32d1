// norm.cu - layer norm, RMS norm (HF LlamaRMSNorm rounding), fused
// residual-add + RMS norm, group / instance norm and AdaIN.
// Statistics in f32, biased variance. The kernels:
//  gk_warpnorm_*: rows of at most 32 16-byte vectors, a group of lanes per
//    row (several rows per warp), weights loaded once per thread;
//  gk_rownorm_*: one block per row, the row held in registers (16-byte
//    loads, V vectors per thread), warp-shuffle reductions; layer / rms /
//    add+rms over a contiguous last dim with 16-byte aligned rows;
//  gk_rmsnorm_p_*, gk_lnorm_p_*: RMS / layer norm on a persistent grid, the
//    next row prefetched during the current one (for a few waves' worth of
//    rows); the layer norm's statistics merged Welford-style (gk_block_welford);
//  gk_lnwarp_*: the layer norm (mode 0, no residual) with one warp per row,
//    the row in registers (V = 4, 8, 16 16-byte vectors a lane: rows of 33
//    to 512 vectors), shuffle-only reductions; the host launches one row a
//    warp and takes it for rows of at most 128 vectors, gk_rownorm above
//    (gk__norm);
//  gk_gnorm_*: one block per row of any length, three passes (mean,
//    centred variance, output); the affine index of column c of row r is
//    (r % R) * cpg + c / S (layer: R=1,cpg=L,S=1; group: R=G, cpg=C/G,
//    S=spatial; instance: R=C, cpg=1, S=T; AdaIN: R=rows, cpg=1, S=T).
// mode: 0 layer (mean/var), 1 rms, 2 h = x + res (rounded, written), then rms.
#include "gk_common.cuh"
#include "gk_vec.cuh"

__device__ __forceinline__ float gk_warp_sum(float v) {
#pragma unroll
    for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
// two block totals at once (one pair of barriers); every thread gets both
__device__ __forceinline__ void gk_block_sum2(float &a, float &b, float *sh) {
    a = gk_warp_sum(a);
    b = gk_warp_sum(b);
    int w = threadIdx.x >> 5, l = threadIdx.x & 31, nw = blockDim.x >> 5;
    __syncthreads();
    if (l == 0) { sh[w] = a; sh[32 + w] = b; }
    __syncthreads();
    a = gk_warp_sum(l < nw ? sh[l] : 0.f);
    b = gk_warp_sum(l < nw ? sh[32 + l] : 0.f);
}
// every thread gets the block total; blockDim.x a multiple of 32
__device__ __forceinline__ float gk_block_sum(float v, float *sh) {
    v = gk_warp_sum(v);
    int w = threadIdx.x >> 5, l = threadIdx.x & 31, nw = blockDim.x >> 5;
    __syncthreads();
    if (l == 0) sh[w] = v;
    __syncthreads();
    v = l < nw ? sh[l] : 0.f;
    return gk_warp_sum(v);
}

template <int DT> __device__ __forceinline__ float gk_rnd(float v) { return gk_ty<DT>::ld(gk_ty<DT>::st(v)); }

// fn(f) on each of a thread's V vectors (vector threadIdx.x + k * blockDim.x)
// that lies inside the row (below nvec), as E floats; FULL: the caller knows
// every thread's V vectors lie inside (nvec == V * blockDim.x), no test
template <int DT, int V, bool FULL = false, typename F>
__device__ __forceinline__ void gk_each_vec(const uint4 (&raw)[V], int nvec, F fn) {
    typedef gk_nv<DT> N;
#pragma unroll
    for (int k = 0; k < V; k++)
        if (FULL || threadIdx.x + k * blockDim.x < nvec) {
            float f[N::E];
            N::ld(raw[k], f);
            fn(f);
        }
}
// sum of squares of a thread's V vectors as loaded (zero vectors add nothing)
template <int DT, int V> __device__ __forceinline__ float gk_sumsq(const uint4 (&raw)[V]) {
    typedef gk_nv<DT> N;
    float q = 0.f;
#pragma unroll
    for (int k = 0; k < V; k++) {
        float f[N::E];
        N::ld(raw[k], f);
#pragma unroll
        for (int e = 0; e < N::E; e++) q += f[e] * f[e];
    }
    return q;
}

// gk_ldw where w is known to be 16-byte aligned (no test)
template <int WT, int E> __device__ __forceinline__ void gk_ldw_v(const typename gk_ty<WT>::S *w, int c0, float *o) {
    typedef typename gk_ty<WT>::S WS;
    enum { PV = 16 / sizeof(WS), NV = (E * sizeof(WS) + 15) / 16 };
#pragma unroll
    for (int j = 0; j < NV; j++) gk_nv<WT>::ld(__ldg((const uint4 *)(w + c0) + j), o + j * PV);
}
// E weights (or biases) of columns c0 .. c0+E-1 as f32: 16-byte loads when
// the address is 16-byte aligned (c0 is a multiple of E, E * size a multiple
// of 16), else one element at a time.
template <int WT, int E> __device__ __forceinline__ void gk_ldw(const typename gk_ty<WT>::S *w, int c0, float *o) {
    typedef typename gk_ty<WT>::S WS;
    const WS *p = w + c0;
    if ((E * sizeof(WS)) % 16 == 0 && ((unsigned long long)p & 15) == 0) gk_ldw_v<WT, E>(w, c0, o);
    else {
#pragma unroll
        for (int e = 0; e < E; e++) o[e] = gk_ty<WT>::ld(p[e]);
    }
}

// The layer norm's shifted statistics: from the sums s of (x - c) and q of
// (x - c)^2 over the D elements of a row, m1 = E[x - c] and rstd (the mean is
// c + m1; c + m1 itself is never formed, it would round)
__device__ __forceinline__ void gk_ln_stats(float s, float q, int D, float eps, float &m1, float &rstd) {
    m1 = s / (float)D;
    float var = q / (float)D - m1 * m1;
    if (var < 0.f) var = 0.f; /* rounding only; a NaN stays NaN */
    rstd = rsqrtf(var + eps);
}
// the layer norm of E elements of columns col .. col + E - 1: ((y - c) - m1) * rstd,
// times the weights and plus the biases where given
template <int WT, int E>
__device__ __forceinline__ void gk_ln_out(float *y, float c, float m1, float rstd, const typename gk_ty<WT>::S *w,
                                          const typename gk_ty<WT>::S *b, int col) {
    float t[E];
#pragma unroll
    for (int e = 0; e < E; e++) y[e] = ((y[e] - c) - m1) * rstd;
    if (w) {
        gk_ldw<WT, E>(w, col, t);
#pragma unroll
        for (int e = 0; e < E; e++) y[e] = y[e] * t[e];
    }
    if (b) {
        gk_ldw<WT, E>(b, col, t);
#pragma unroll
        for (int e = 0; e < E; e++) y[e] = y[e] + t[e];
    }
}
// the RMS norm of E elements of columns col .. col + E - 1: x * rstd rounded
// to the storage type and back (HF's LlamaRMSNorm), times the weights where
// given
template <int DT, int WT, int E>
__device__ __forceinline__ void gk_rms_out(float *y, float rstd, const typename gk_ty<WT>::S *w, int col) {
#pragma unroll
    for (int e = 0; e < E; e++) y[e] = y[e] * rstd;
    gk_nv<DT>::rnd(y);
    if (w) {
        float t[E];
        gk_ldw<WT, E>(w, col, t);
#pragma unroll
        for (int e = 0; e < E; e++) y[e] = t[e] * y[e];
    }
}

// One block per row, V 16-byte vectors a thread (vector vi = tid + k * T),
// the row kept in registers as loaded (raw) between the statistics and the
// output; weights and biases as 16-byte loads at the output.
template <int DT, int WT, int V, bool ADD>
__device__ __forceinline__ void gk_rownorm(gk_i64 rows, int D, int mode, float eps, const typename gk_ty<DT>::S *x,
                                           const typename gk_ty<DT>::S *res, typename gk_ty<DT>::S *h,
                                           typename gk_ty<DT>::S *out, const typename gk_ty<WT>::S *w,
                                           const typename gk_ty<WT>::S *b) {
    typedef gk_nv<DT> N;
    enum { E = N::E };
    __shared__ float sh[32], sh2[64];
    const int nvec = D / E;
    for (gk_i64 row = blockIdx.x; row < rows; row += gridDim.x) {
        uint4 raw[V], rv[ADD ? V : 1];
        const uint4 *xr = (const uint4 *)(x + row * D), *rr = (const uint4 *)(res + row * D);
        // every load of the row (x and residual) before the first store of h
#pragma unroll
        for (int k = 0; k < V; k++) {
            int vi = threadIdx.x + k * blockDim.x;
            raw[k] = make_uint4(0u, 0u, 0u, 0u);
            if (vi < nvec) {
                raw[k] = xr[vi];
                if (ADD) rv[k] = rr[vi];
            }
        }
        if (ADD) {
            uint4 *hr = (uint4 *)(h + row * D);
#pragma unroll
            for (int k = 0; k < V; k++) {
                int vi = threadIdx.x + k * blockDim.x;
                if (vi < nvec) {
                    float a[E], c[E];
                    N::ld(raw[k], a);
                    N::ld(rv[ADD ? k : 0], c);
#pragma unroll
                    for (int e = 0; e < E; e++) a[e] += c[e];
                    raw[k] = N::st(a);
                    hr[vi] = raw[k];
                }
            }
        }
        float mean = 0.f, m1 = 0.f, q = 0.f, rstd;
        if (mode == 0) {
            // mean and variance in one block reduction: sums of x - c and
            // (x - c)^2 about a shift c taken from the row itself (its first
            // element), so E[(x-c)^2] - E[x-c]^2 does not cancel the way
            // E[x^2] - E[x]^2 does when |mean| >> std
            float c0 = gk_ty<DT>::ld(x[row * D]), s = 0.f;
            if (ADD) c0 += gk_ty<DT>::ld(res[row * D]);
            if (!(c0 - c0 == 0.f)) c0 = 0.f; /* an inf / NaN shift would poison finite rows */
#pragma unroll
            for (int k = 0; k < V; k++) {
                int vi = threadIdx.x + k * blockDim.x;
                if (vi < nvec) {
                    float f[E];
                    N::ld(raw[k], f);
#pragma unroll
                    for (int e = 0; e < E; e++) { float d = f[e] - c0; s += d; q += d * d; }
                }
            }
            gk_block_sum2(s, q, sh2);
            mean = c0;
            gk_ln_stats(s, q, D, eps, m1, rstd);
        } else rstd = rsqrtf(gk_block_sum(gk_sumsq<DT, V>(raw), sh) / (float)D + eps);
        uint4 *orow = (uint4 *)(out + row * D);
#pragma unroll
        for (int k = 0; k < V; k++) {
            int vi = threadIdx.x + k * blockDim.x;
            if (vi < nvec) {
                float y[E];
                N::ld(raw[k], y);
                if (mode == 0) gk_ln_out<WT, E>(y, mean, m1, rstd, w, b, vi * E);
                else gk_rms_out<DT, WT, E>(y, rstd, w, vi * E);
                orow[vi] = N::st(y);
            }
        }
    }
}


// 16-byte load that leaves L1 alone (the rows stream through once; the
// weights and biases stay in L1 for every row of the block)
__device__ __forceinline__ uint4 gk_ld_stream(const uint4 *p) {
    uint4 v;
    asm volatile("ld.global.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    return v;
}

// The statistics of a layer norm row from each thread's own (count, mean,
// M2): merged down the warp (shuffles), then every thread merges the warps'
// totals in order from shared memory, so every thread gets the same values
// (Chan et al.'s pairwise update: exact up to rounding, no cancellation and
// no shift element to load). The count ratio is a fast division (__fdividef,
// 2 ulp): IEEE division's subroutine would sit on every row's critical path
// (docs/perf-log.md). sh: 3 * 32 floats.
__device__ __forceinline__ void gk_welford_merge(float &n, float &mu, float &m2, float nb, float mb, float m2b) {
    const float nt = n + nb;
    if (nt > 0.f) {
        const float d = mb - mu, fb = __fdividef(nb, nt);
        mu += d * fb;
        m2 += m2b + d * d * n * fb;
        n = nt;
    }
}
__device__ __forceinline__ void gk_block_welford(float &n, float &mu, float &m2, float *sh) {
    const int w = threadIdx.x >> 5, l = threadIdx.x & 31, nw = blockDim.x >> 5;
#pragma unroll
    for (int o = 16; o; o >>= 1) {
        const float nb = __shfl_down_sync(0xffffffffu, n, o), mb = __shfl_down_sync(0xffffffffu, mu, o),
                    m2b = __shfl_down_sync(0xffffffffu, m2, o);
        gk_welford_merge(n, mu, m2, nb, mb, m2b);
    }
    __syncthreads();
    if (l == 0) { sh[w] = n; sh[32 + w] = mu; sh[64 + w] = m2; }
    __syncthreads();
    n = sh[0]; mu = sh[32]; m2 = sh[64];
    for (int k = 1; k < nw; k++) gk_welford_merge(n, mu, m2, sh[k], sh[32 + k], sh[64 + k]);
}

// a row's statistics (mean and 1 / std; the RMS norm's mean is 0) from the V
// vectors a thread holds (vectors past the row, nvec, are skipped); every
// thread gets both. Two block barriers.
template <int DT, int V, bool LN, bool FULL = false>
__device__ __forceinline__ void gk_norm_stats(const uint4 (&cur)[V], int nvec, int D, float eps, float *sh, float &mean, float &rstd) {
    enum { E = gk_nv<DT>::E };
    mean = 0.f;
    if (LN) {
        // one pass over the registers: the sums of d = x - K and d^2 about the
        // thread's own first element K (no load, no barrier; |d| is of the
        // row's spread, so q - s^2 / n does not cancel), turned into the
        // thread's count, mean and M2, then merged across the block
        float n = 0.f, s = 0.f, q = 0.f, m2 = 0.f, K;
        {
            float f0[E];
            gk_nv<DT>::ld(cur[0], f0);
            K = f0[0];
        }
        gk_each_vec<DT, V, FULL>(cur, nvec, [&](const float *f) {
#pragma unroll
            for (int e = 0; e < E; e++) { float d = f[e] - K; s += d; q = fmaf(d, d, q); }
            n += (float)E;
        });
        if (n > 0.f) {
            const float a = __fdividef(s, n);
            mean = K + a;
            m2 = q - s * a;
            if (m2 < 0.f) m2 = 0.f; // rounding only; a NaN stays NaN
        }
        gk_block_welford(n, mean, m2, sh);
        rstd = rsqrtf(m2 / (float)D + eps);
    } else rstd = rsqrtf(gk_block_sum(gk_sumsq<DT, V>(cur), sh) / (float)D + eps);
}
// the row's output from the vectors a thread holds: the layer norm's
// (x - mean) * rstd * weight + bias rounded once, or the RMS norm's
// HF-rounded x * rstd, times the weight
// (FULL: every vector inside the row; WB: the layer norm's weights and biases
// both given and 16-byte aligned, so (x - mean) * rstd * w + b is one fma
// after the subtraction and scaling, with no test a vector)
template <int DT, int WT, int V, bool LN, bool FULL = false, bool WB = false>
__device__ __forceinline__ void gk_norm_out(const uint4 (&cur)[V], int nvec, float mean, float rstd, typename gk_ty<DT>::S *orow_,
                                            const typename gk_ty<WT>::S *w, const typename gk_ty<WT>::S *b) {
    typedef gk_nv<DT> N;
    enum { E = N::E };
    uint4 *orow = (uint4 *)orow_;
#pragma unroll
    for (int k = 0; k < V; k++) {
        int vi = threadIdx.x + k * blockDim.x;
        if (FULL || vi < nvec) {
            float y[E];
            N::ld(cur[k], y);
            if (LN && WB) {
                float wv[E], bv[E];
                gk_ldw_v<WT, E>(w, vi * E, wv);
                gk_ldw_v<WT, E>(b, vi * E, bv);
#pragma unroll
                for (int e = 0; e < E; e++) y[e] = fmaf((y[e] - mean) * rstd, wv[e], bv[e]);
            } else if (LN) gk_ln_out<WT, E>(y, mean, 0.f, rstd, w, b, vi * E);
            else gk_rms_out<DT, WT, E>(y, rstd, w, vi * E);
            __stcs(orow + vi, N::st(y));
        }
    }
}
// RMS norm (LN false) and layer norm (LN true, no residual) with a
// persistent grid (the host launches about as many blocks as fit at once):
// a block walks rows blockIdx.x, + gridDim.x, ... and issues the next row's
// loads before the current row's reduction, so every block keeps a row of
// loads in flight through its reduction and stores, and there is no tail
// wave. Thread mapping as gk_rownorm; RMS statistics and rounding as its
// mode 1. The layer norm's statistics: gk_norm_stats (one pass over the
// registers, merged by gk_block_welford), so nothing but the row itself is
// read before the reduction; then (x - mean) * rstd * weight + bias, rounded
// once.
// The host takes it only for a few waves' worth of rows: there it is ahead
// of gk_rownorm, with many waves behind it. The layer norm is bound by its
// instructions, not by the bytes in flight, so its statistics take one pass
// over the registers (not the mean, then the squares about it), and rows
// that fill the block (FULL) with aligned weights and biases (WB) take a
// form without the per-vector tests (inside the row, weights / biases given
// and aligned, each a branch with its convergence barrier), the weight and
// bias one fma (docs/perf-log.md has the measurements and the forms not
// kept).
template <int DT, int WT, int V, bool LN, bool FULL, bool WB>
__device__ __forceinline__ void gk_norm_p_rows(gk_i64 rows, int D, float eps, const typename gk_ty<DT>::S *x,
                                               typename gk_ty<DT>::S *out, const typename gk_ty<WT>::S *w,
                                               const typename gk_ty<WT>::S *b, float *sh) {
    typedef gk_nv<DT> N;
    const int nvec = D / N::E;
    uint4 cur[V], nxt[V];
    gk_i64 row = blockIdx.x;
#pragma unroll
    for (int k = 0; k < V; k++) {
        int vi = threadIdx.x + k * blockDim.x;
        cur[k] = make_uint4(0u, 0u, 0u, 0u);
        if (row < rows && (FULL || vi < nvec)) cur[k] = gk_ld_stream((const uint4 *)(x + row * D) + vi);
    }
    for (; row < rows; row += gridDim.x) {
        const gk_i64 nrow = row + gridDim.x;
        // the next row's loads first: in flight during this row's work
#pragma unroll
        for (int k = 0; k < V; k++) {
            int vi = threadIdx.x + k * blockDim.x;
            nxt[k] = make_uint4(0u, 0u, 0u, 0u);
            if (nrow < rows && (FULL || vi < nvec)) nxt[k] = gk_ld_stream((const uint4 *)(x + nrow * D) + vi);
        }
        float mean, rstd;
        gk_norm_stats<DT, V, LN, FULL>(cur, nvec, D, eps, sh, mean, rstd);
        gk_norm_out<DT, WT, V, LN, FULL, WB>(cur, nvec, mean, rstd, out + row * D, w, b);
#pragma unroll
        for (int k = 0; k < V; k++) cur[k] = nxt[k];
    }
}
// rows whose vectors fill the block (nvec == V * blockDim.x, e.g. 4096 16-bit
// elements on 128 threads) with the layer norm's weights and biases aligned
// take gk_norm_p_rows without a test a vector (FULL, WB); the rest the
// general form
template <int DT, int WT, int V, bool LN>
__device__ __forceinline__ void gk_norm_p(gk_i64 rows, int D, float eps, const typename gk_ty<DT>::S *x,
                                          typename gk_ty<DT>::S *out, const typename gk_ty<WT>::S *w,
                                          const typename gk_ty<WT>::S *b) {
    __shared__ float sh[LN ? 96 : 32];
    const bool full = D / gk_nv<DT>::E == V * (int)blockDim.x;
    const bool wb = LN && w && b && ((((unsigned long long)w) | ((unsigned long long)b)) & 15) == 0;
    // launched with programmatic stream serialization on sm_90 (the host's
    // choice): the next kernel may be scheduled now; nothing is touched
    // before the previous kernel has finished
    gk_pdl_launch();
    gk_pdl_wait();
    if (full && (wb || !LN)) gk_norm_p_rows<DT, WT, V, LN, true, LN>(rows, D, eps, x, out, w, b, sh);
    else gk_norm_p_rows<DT, WT, V, LN, false, false>(rows, D, eps, x, out, w, b, sh);
}

// Layer norm (mode 0 of gk_rownorm, no residual), one warp per row: lane l
// holds 16-byte vectors l, l + 32, ..., l + 32 (V - 1) of the row in
// registers (bf16 / f16 D <= 256 V, f32 D <= 128 V), the statistics in two
// warp-shuffle sums, no shared memory and no __syncthreads, the warps of a
// block independent; warp w of the grid takes rows w, w + W, ... (W warps in
// the grid). Statistics and rounding as gk_rownorm mode 0: sums of x - c0 and
// (x - c0)^2 about the row's first element c0 (lane 0's, shuffled; 0 when it
// is not finite), biased variance clamped at 0, y = ((x - c0) - m1) * rstd,
// then * weight, + bias, stored rounded once. The host launches one row a
// warp. Rows are 16-byte aligned with D a multiple of the vector (the
// host's condition); the rows stream (L1 bypassed on loads, evict-first
// stores), weights and bias through gk_ldw (they stay in L1). Launched with
// programmatic stream serialization: nothing touched before gk_pdl_wait.
template <int DT, int WT, int V>
__device__ __forceinline__ void gk_lnwarp(gk_i64 rows, int D, float eps, const typename gk_ty<DT>::S *x,
                                          typename gk_ty<DT>::S *out, const typename gk_ty<WT>::S *w,
                                          const typename gk_ty<WT>::S *b) {
    typedef gk_nv<DT> N;
    enum { E = N::E };
    const int nvec = D / E, lane = threadIdx.x & 31;
    const gk_i64 nw = (gk_i64)gridDim.x * (blockDim.x >> 5);
    gk_i64 row = (gk_i64)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    uint4 cur[V];
    gk_pdl_launch();
    gk_pdl_wait();
    for (; row < rows; row += nw) {
#pragma unroll
        for (int k = 0; k < V; k++) {
            int vi = lane + 32 * k;
            cur[k] = make_uint4(0u, 0u, 0u, 0u);
            if (vi < nvec) cur[k] = gk_ld_stream((const uint4 *)(x + row * D) + vi);
        }
        float c0, s = 0.f, q = 0.f;
        {
            float f[E];
            N::ld(cur[0], f);
            c0 = __shfl_sync(0xffffffffu, f[0], 0); /* element 0 of the row: lane 0's vector 0 */
        }
        if (!(c0 - c0 == 0.f)) c0 = 0.f; /* an inf / NaN shift would poison finite rows */
#pragma unroll
        for (int k = 0; k < V; k++) {
            if (lane + 32 * k < nvec) {
                float f[E];
                N::ld(cur[k], f);
#pragma unroll
                for (int e = 0; e < E; e++) { float d = f[e] - c0; s += d; q += d * d; }
            }
        }
        float m1, rstd;
        gk_ln_stats(gk_warp_sum(s), gk_warp_sum(q), D, eps, m1, rstd);
        uint4 *orow = (uint4 *)(out + row * D);
#pragma unroll
        for (int k = 0; k < V; k++) {
            int vi = lane + 32 * k;
            if (vi < nvec) {
                float y[E];
                N::ld(cur[k], y);
                gk_ln_out<WT, E>(y, c0, m1, rstd, w, b, vi * E);
                __stcs(orow + vi, N::st(y));
            }
        }
    }
}

// Short rows (at most 32 vectors of 16 bytes, e.g. per-head q/k norms of
// 64 or 128 elements): a group of G lanes (G a power of two >= the row's
// vector count) per row, 32 / G rows per warp, U rows per group in flight,
// shuffle-only reductions inside the group. A lane always holds the same
// columns; its weights and biases are read at each output (L1 hits: the
// rows themselves bypass L1), which keeps the kernel within 64 registers
// (8 blocks of 128 threads an SM; the host launches as many as are resident).
template <int DT, int WT, int U, bool ADD>
__device__ __forceinline__ void gk_warpnorm(gk_i64 rows, int D, int G, int mode, float eps, const typename gk_ty<DT>::S *x,
                                            const typename gk_ty<DT>::S *res, typename gk_ty<DT>::S *h,
                                            typename gk_ty<DT>::S *out, const typename gk_ty<WT>::S *w,
                                            const typename gk_ty<WT>::S *b) {
    typedef gk_nv<DT> N;
    enum { E = N::E };
    const int nvec = D / E, lane = threadIdx.x & 31, cl = lane & (G - 1), sub = lane / G, rpw = 32 / G;
    const bool on = cl < nvec;
    const gk_i64 gw = (gk_i64)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5), nw = (gk_i64)gridDim.x * (blockDim.x >> 5);
    // rows handled by this warp in one step: rpw * U, as U slices of rpw rows
    for (gk_i64 base = gw * rpw * U; base < rows; base += nw * rpw * U) {
        uint4 raw[U], rv[ADD ? U : 1];
        bool ok[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            gk_i64 row = base + u * rpw + sub;
            ok[u] = on && row < rows;
            raw[u] = make_uint4(0u, 0u, 0u, 0u);
            if (ok[u]) {
                raw[u] = gk_ld_stream((const uint4 *)(x + row * D) + cl);
                if (ADD) rv[u] = gk_ld_stream((const uint4 *)(res + row * D) + cl);
            }
        }
        if (ADD) {
#pragma unroll
            for (int u = 0; u < U; u++) {
                gk_i64 row = base + u * rpw + sub;
                if (ok[u]) {
                    float a[E], c[E];
                    N::ld(raw[u], a);
                    N::ld(rv[ADD ? u : 0], c);
#pragma unroll
                    for (int e = 0; e < E; e++) a[e] += c[e];
                    raw[u] = N::st(a);
                    ((uint4 *)(h + row * D))[cl] = raw[u];
                }
            }
        }
        float mean[U], q[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            float f[E];
            N::ld(raw[u], f);
            mean[u] = 0.f;
            q[u] = 0.f;
            if (mode == 0) {
                float sm = 0.f;
#pragma unroll
                for (int e = 0; e < E; e++) sm += f[e];
                for (int o = G >> 1; o; o >>= 1) sm += __shfl_xor_sync(0xffffffffu, sm, o);
                mean[u] = sm / (float)D;
                if (ok[u])
#pragma unroll
                    for (int e = 0; e < E; e++) { float d = f[e] - mean[u]; q[u] += d * d; }
            } else {
#pragma unroll
                for (int e = 0; e < E; e++) q[u] += f[e] * f[e];
            }
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            for (int o = G >> 1; o; o >>= 1) q[u] += __shfl_xor_sync(0xffffffffu, q[u], o);
            float rstd = rsqrtf(q[u] / (float)D + eps);
            gk_i64 row = base + u * rpw + sub;
            if (ok[u]) {
                float y[E];
                N::ld(raw[u], y);
                if (mode == 0) gk_ln_out<WT, E>(y, mean[u], 0.f, rstd, w, b, cl * E);
                else gk_rms_out<DT, WT, E>(y, rstd, w, cl * E);
                __stcs((uint4 *)(out + row * D) + cl, N::st(y));
            }
        }
    }
}

template <int DT, int WT>
__device__ __forceinline__ void gk_gnorm(gk_i64 rows, gk_i64 L, gk_i64 R, gk_i64 cpg, gk_i64 S_, int mode, float eps,
                                         const typename gk_ty<DT>::S *x, const typename gk_ty<DT>::S *res,
                                         typename gk_ty<DT>::S *h, typename gk_ty<DT>::S *out,
                                         const typename gk_ty<WT>::S *w, const typename gk_ty<WT>::S *b) {
    typedef gk_ty<DT> T;
    typedef gk_ty<WT> TW;
    typedef typename gk_ty<DT>::S S;
    __shared__ float sh[32];
    for (gk_i64 row = blockIdx.x; row < rows; row += gridDim.x) {
        const S *xr = x + row * L;
        if (mode == 2) {
            const S *rr = res + row * L;
            S *hr = h + row * L;
            for (gk_i64 c = threadIdx.x; c < L; c += blockDim.x) hr[c] = T::st(T::ld(xr[c]) + T::ld(rr[c]));
            __syncthreads();
            xr = hr;
        }
        float mean = 0.f, q = 0.f;
        if (mode == 0) {
            float s = 0.f;
            for (gk_i64 c = threadIdx.x; c < L; c += blockDim.x) s += T::ld(xr[c]);
            mean = gk_block_sum(s, sh) / (float)L;
            for (gk_i64 c = threadIdx.x; c < L; c += blockDim.x) { float d = T::ld(xr[c]) - mean; q += d * d; }
        } else {
            for (gk_i64 c = threadIdx.x; c < L; c += blockDim.x) { float d = T::ld(xr[c]); q += d * d; }
        }
        float rstd = rsqrtf(gk_block_sum(q, sh) / (float)L + eps);
        gk_i64 cbase = (row % R) * cpg;
        S *orow = out + row * L;
        for (gk_i64 c = threadIdx.x; c < L; c += blockDim.x) {
            gk_i64 ch = cbase + c / S_;
            float v = T::ld(xr[c]), y;
            if (mode == 0) {
                y = (v - mean) * rstd;
                if (w) y = y * TW::ld(w[ch]);
                if (b) y = y + TW::ld(b[ch]);
            } else {
                y = gk_rnd<DT>(v * rstd);
                if (w) y = TW::ld(w[ch]) * y;
            }
            orow[c] = T::st(y);
        }
        __syncthreads(); // h of this row fully read before the next row (in-place callers)
    }
}

// Long rows, few of them (an instance norm / AdaIN over [C, T] with T in the
// hundred thousands): each row split into `splits` chunks of `chunk` columns,
// one block a chunk. gk_gnorm_part: the chunk's mean and centred sum of
// squares (mode 0; mode 1: 0 and the plain sum of squares) into ws[row][split];
// gk_gnorm_apply: every block merges its row's partials (Chan et al.'s
// pairwise update, in split order, so every block of the row gets the same
// statistics) and writes its chunk as gk_gnorm does.
template <int DT>
__device__ __forceinline__ void gk_gnorm_part(gk_i64 L, int splits, gk_i64 chunk, int mode, const typename gk_ty<DT>::S *x, float *ws) {
    typedef gk_ty<DT> T;
    __shared__ float sh[32];
    const gk_i64 row = blockIdx.y, c0 = (gk_i64)blockIdx.x * chunk, c1 = c0 + chunk < L ? c0 + chunk : L;
    const typename T::S *xr = x + row * L;
    float mean = 0.f, q = 0.f;
    if (mode == 0) {
        float s = 0.f;
        for (gk_i64 c = c0 + threadIdx.x; c < c1; c += blockDim.x) s += T::ld(xr[c]);
        mean = gk_block_sum(s, sh) / (float)(c1 - c0);
        for (gk_i64 c = c0 + threadIdx.x; c < c1; c += blockDim.x) { float d = T::ld(xr[c]) - mean; q += d * d; }
    } else {
        for (gk_i64 c = c0 + threadIdx.x; c < c1; c += blockDim.x) { float d = T::ld(xr[c]); q += d * d; }
    }
    q = gk_block_sum(q, sh);
    if (threadIdx.x == 0) {
        ws[(row * splits + blockIdx.x) * 2] = mean;
        ws[(row * splits + blockIdx.x) * 2 + 1] = q;
    }
}
template <int DT, int WT>
__device__ __forceinline__ void gk_gnorm_apply(gk_i64 L, gk_i64 R, gk_i64 cpg, gk_i64 S_, int splits, gk_i64 chunk, int mode, float eps,
                                               const typename gk_ty<DT>::S *x, typename gk_ty<DT>::S *out,
                                               const typename gk_ty<WT>::S *w, const typename gk_ty<WT>::S *b, const float *ws) {
    typedef gk_ty<DT> T;
    typedef gk_ty<WT> TW;
    const gk_i64 row = blockIdx.y, c0 = (gk_i64)blockIdx.x * chunk, c1 = c0 + chunk < L ? c0 + chunk : L;
    float n = 0.f, mean = 0.f, m2 = 0.f;
    for (int k = 0; k < splits; k++) {
        gk_i64 a0 = (gk_i64)k * chunk, a1 = a0 + chunk < L ? a0 + chunk : L;
        float nb = (float)(a1 - a0), mb = ws[(row * splits + k) * 2], qb = ws[(row * splits + k) * 2 + 1];
        if (mode == 0) {
            float nn = n + nb, d = mb - mean;
            mean += d * (nb / nn);
            m2 += qb + d * d * (n * nb / nn);
            n = nn;
        } else m2 += qb;
    }
    const float rstd = rsqrtf(m2 / (float)L + eps);
    const gk_i64 cbase = (row % R) * cpg;
    const typename T::S *xr = x + row * L;
    typename T::S *orow = out + row * L;
    for (gk_i64 c = c0 + threadIdx.x; c < c1; c += blockDim.x) {
        gk_i64 ch = cbase + c / S_;
        float v = T::ld(xr[c]), y;
        if (mode == 0) {
            y = (v - mean) * rstd;
            if (w) y = y * TW::ld(w[ch]);
            if (b) y = y + TW::ld(b[ch]);
        } else {
            y = gk_rnd<DT>(v * rstd);
            if (w) y = TW::ld(w[ch]) * y;
        }
        orow[c] = T::st(y);
    }
}

// gk_rownorm_* (mode 0 / 1) and gk_addrownorm_* (mode 2: x + residual, h written).
// At most 64 registers (2 blocks of 512 threads an SM; 128 threads: 8 rows in
// flight an SM): unbounded, the compiler hoisted the weight loads and took
// 105 (f32 v8) to 124 (bf16 v8). The add kernel with 8 vectors holds x and
// the residual (64 registers of data): 128.
#define GK_ROWNORM(DTN, WTN, V)                                                                                          \
    extern "C" __global__ void __launch_bounds__(512, 2) gk_rownorm_##DTN##_##WTN##_v##V(                                  \
        gk_i64 rows, int D, int mode, float eps, const gk_ty<GK_DT_##DTN>::S *x, const gk_ty<GK_DT_##DTN>::S *res,     \
        gk_ty<GK_DT_##DTN>::S *h, gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##WTN>::S *w,                          \
        const gk_ty<GK_DT_##WTN>::S *b) {                                                                               \
        gk_rownorm<GK_DT_##DTN, GK_DT_##WTN, V, false>(rows, D, mode, eps, x, res, h, out, w, b);                       \
    }                                                                                                                    \
    extern "C" __global__ void __launch_bounds__(512, V == 8 ? 1 : 2) gk_addrownorm_##DTN##_##WTN##_v##V(                               \
        gk_i64 rows, int D, int mode, float eps, const gk_ty<GK_DT_##DTN>::S *x, const gk_ty<GK_DT_##DTN>::S *res,     \
        gk_ty<GK_DT_##DTN>::S *h, gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##WTN>::S *w,                          \
        const gk_ty<GK_DT_##WTN>::S *b) {                                                                               \
        gk_rownorm<GK_DT_##DTN, GK_DT_##WTN, V, true>(rows, D, 2, eps, x, res, h, out, w, b);                           \
    }
// the persistent RMS and layer norm forms, V = 1, 2, 4: two rows of vectors
// in registers; blocks of at most 128 threads (the host picks V so), at most
// 64 registers (8 blocks an SM)
#define GK_ROWNORM_P(DTN, WTN, V)                                                                                        \
    extern "C" __global__ void __launch_bounds__(128, 8) gk_rmsnorm_p_##DTN##_##WTN##_v##V(                               \
        gk_i64 rows, int D, float eps, const gk_ty<GK_DT_##DTN>::S *x, gk_ty<GK_DT_##DTN>::S *out,                      \
        const gk_ty<GK_DT_##WTN>::S *w) {                                                                               \
        gk_norm_p<GK_DT_##DTN, GK_DT_##WTN, V, false>(rows, D, eps, x, out, w, 0);                                       \
    }                                                                                                                    \
    extern "C" __global__ void __launch_bounds__(128, 8) gk_lnorm_p_##DTN##_##WTN##_v##V(                                 \
        gk_i64 rows, int D, float eps, const gk_ty<GK_DT_##DTN>::S *x, gk_ty<GK_DT_##DTN>::S *out,                      \
        const gk_ty<GK_DT_##WTN>::S *w, const gk_ty<GK_DT_##WTN>::S *b) {                                               \
        gk_norm_p<GK_DT_##DTN, GK_DT_##WTN, V, true>(rows, D, eps, x, out, w, b);                                        \
    }
// the warp-per-row layer norm, V = 4, 8, 16 vectors a lane. Blocks of 128
// threads (4 rows at a time); the bounds keep V = 16 within 128 registers
// (4 blocks an SM), V = 8 within 80 (6), V = 4 within 64 (8).
#define GK_LNWARP_K(DTN, WTN, V, MINB)                                                                                   \
    extern "C" __global__ void __launch_bounds__(128, MINB) gk_lnwarp_##DTN##_##WTN##_v##V(                              \
        gk_i64 rows, int D, float eps, const gk_ty<GK_DT_##DTN>::S *x, gk_ty<GK_DT_##DTN>::S *out,                      \
        const gk_ty<GK_DT_##WTN>::S *w, const gk_ty<GK_DT_##WTN>::S *b) {                                               \
        gk_lnwarp<GK_DT_##DTN, GK_DT_##WTN, V>(rows, D, eps, x, out, w, b);                                              \
    }
#define GK_LNWARP(DTN, WTN)                                                                                              \
    GK_LNWARP_K(DTN, WTN, 4, 8)                                                                                          \
    GK_LNWARP_K(DTN, WTN, 8, 6)                                                                                          \
    GK_LNWARP_K(DTN, WTN, 16, 4)
#define GK_NORMS(DTN, WTN)                                                                                               \
    extern "C" __global__ void __launch_bounds__(128, 8) gk_warpnorm_##DTN##_##WTN(                                                                \
        gk_i64 rows, int D, int G, int mode, float eps, const gk_ty<GK_DT_##DTN>::S *x, const gk_ty<GK_DT_##DTN>::S *res, \
        gk_ty<GK_DT_##DTN>::S *h, gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##WTN>::S *w,                          \
        const gk_ty<GK_DT_##WTN>::S *b) {                                                                               \
        gk_warpnorm<GK_DT_##DTN, GK_DT_##WTN, 4, false>(rows, D, G, mode, eps, x, res, h, out, w, b);                   \
    }                                                                                                                    \
    extern "C" __global__ void __launch_bounds__(128, 6) gk_addwarpnorm_##DTN##_##WTN(                                                             \
        gk_i64 rows, int D, int G, int mode, float eps, const gk_ty<GK_DT_##DTN>::S *x, const gk_ty<GK_DT_##DTN>::S *res, \
        gk_ty<GK_DT_##DTN>::S *h, gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##WTN>::S *w,                          \
        const gk_ty<GK_DT_##WTN>::S *b) {                                                                               \
        gk_warpnorm<GK_DT_##DTN, GK_DT_##WTN, 4, true>(rows, D, G, 2, eps, x, res, h, out, w, b);                       \
    }                                                                                                                    \
    GK_ROWNORM(DTN, WTN, 1)                                                                                              \
    GK_ROWNORM(DTN, WTN, 2)                                                                                              \
    GK_ROWNORM(DTN, WTN, 4)                                                                                              \
    GK_ROWNORM(DTN, WTN, 8)                                                                                              \
    GK_ROWNORM_P(DTN, WTN, 1)                                                                                            \
    GK_ROWNORM_P(DTN, WTN, 2)                                                                                            \
    GK_ROWNORM_P(DTN, WTN, 4)                                                                                            \
    GK_LNWARP(DTN, WTN)                                                                                                  \
    extern "C" __global__ void gk_gnorm_##DTN##_##WTN(gk_i64 rows, gk_i64 L, gk_i64 R, gk_i64 cpg, gk_i64 S_, int mode, \
                                                      float eps, const gk_ty<GK_DT_##DTN>::S *x,                         \
                                                      const gk_ty<GK_DT_##DTN>::S *res, gk_ty<GK_DT_##DTN>::S *h,        \
                                                      gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##WTN>::S *w,        \
                                                      const gk_ty<GK_DT_##WTN>::S *b) {                                  \
        gk_gnorm<GK_DT_##DTN, GK_DT_##WTN>(rows, L, R, cpg, S_, mode, eps, x, res, h, out, w, b);                        \
    }                                                                                                                    \
    extern "C" __global__ void __launch_bounds__(256) gk_gnorm_part_##DTN##_##WTN(gk_i64 L, int splits, gk_i64 chunk, int mode, \
                                                                const gk_ty<GK_DT_##DTN>::S *x, float *ws) {            \
        gk_gnorm_part<GK_DT_##DTN>(L, splits, chunk, mode, x, ws);                                                       \
    }                                                                                                                    \
    extern "C" __global__ void __launch_bounds__(256) gk_gnorm_apply_##DTN##_##WTN(                                      \
        gk_i64 L, gk_i64 R, gk_i64 cpg, gk_i64 S_, int splits, gk_i64 chunk, int mode, float eps,                        \
        const gk_ty<GK_DT_##DTN>::S *x, gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##WTN>::S *w,                      \
        const gk_ty<GK_DT_##WTN>::S *b, const float *ws) {                                                               \
        gk_gnorm_apply<GK_DT_##DTN, GK_DT_##WTN>(L, R, cpg, S_, splits, chunk, mode, eps, x, out, w, b, ws);             \
    }
GK_NORMS(f32, f32)
GK_NORMS(f16, f16)
GK_NORMS(f16, f32)
GK_NORMS(bf16, bf16)
GK_NORMS(bf16, f32)
