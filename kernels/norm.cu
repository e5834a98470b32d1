// norm.cu - layer norm, RMS norm (HF LlamaRMSNorm rounding), fused
// residual-add + RMS norm, group / instance norm and AdaIN.
// Statistics in f32, biased variance. Three kernels:
//  gk_warpnorm_*: rows of at most 32 16-byte vectors, a group of lanes per
//    row (several rows per warp), weights loaded once per thread;
//  gk_rownorm_*: one block per row, the row held in registers (16-byte
//    loads, V vectors per thread), warp-shuffle reductions; layer / rms /
//    add+rms over a contiguous last dim with 16-byte aligned rows.
//  gk_gnorm_*: one block per row of any length, three passes (mean,
//    centred variance, output); the affine index of column c of row r is
//    (r % R) * cpg + c / S (layer: R=1,cpg=L,S=1; group: R=G, cpg=C/G,
//    S=spatial; instance: R=C, cpg=1, S=T; AdaIN: R=rows, cpg=1, S=T).
// mode: 0 layer (mean/var), 1 rms, 2 h = x + res (rounded, written), then rms.
#include "gk_common.cuh"

__device__ __forceinline__ float gk_warp_sum(float v) {
#pragma unroll
    for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
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

// E weights (or biases) of columns c0 .. c0+E-1 as f32: 16-byte loads when
// the address is 16-byte aligned (c0 is a multiple of E, E * size a multiple
// of 16), else one element at a time.
template <int WT, int E> __device__ __forceinline__ void gk_ldw(const typename gk_ty<WT>::S *w, int c0, float *o) {
    typedef typename gk_ty<WT>::S WS;
    enum { PV = 16 / sizeof(WS), NV = (E * sizeof(WS) + 15) / 16 };
    const WS *p = w + c0;
    if ((E * sizeof(WS)) % 16 == 0 && ((unsigned long long)p & 15) == 0) {
#pragma unroll
        for (int j = 0; j < NV; j++) {
            union { uint4 v; WS s[PV]; } u;
            u.v = __ldg((const uint4 *)p + j);
#pragma unroll
            for (int e = 0; e < PV; e++)
                if (j * PV + e < E) o[j * PV + e] = gk_ty<WT>::ld(u.s[e]);
        }
    } else {
#pragma unroll
        for (int e = 0; e < E; e++) o[e] = gk_ty<WT>::ld(p[e]);
    }
}

template <int DT, int WT, int V>
__device__ __forceinline__ void gk_rownorm(gk_i64 rows, int D, int mode, float eps, const typename gk_ty<DT>::S *x,
                                           const typename gk_ty<DT>::S *res, typename gk_ty<DT>::S *h,
                                           typename gk_ty<DT>::S *out, const typename gk_ty<WT>::S *w,
                                           const typename gk_ty<WT>::S *b) {
    typedef typename gk_ty<DT>::S S;
    typedef gk_ty<DT> T;
    typedef gk_ty<WT> TW;
    enum { E = 16 / sizeof(S) };
    __shared__ float sh[32];
    const int nvec = D / E;
    for (gk_i64 row = blockIdx.x; row < rows; row += gridDim.x) {
        float v[V][E];
        const uint4 *xr = (const uint4 *)(x + row * D);
#pragma unroll
        for (int k = 0; k < V; k++) {
            int vi = threadIdx.x + k * blockDim.x;
            if (vi < nvec) {
                uint4 raw = xr[vi];
                const S *s = (const S *)&raw;
#pragma unroll
                for (int e = 0; e < E; e++) v[k][e] = T::ld(s[e]);
                if (mode == 2) {
                    uint4 rr = ((const uint4 *)(res + row * D))[vi], hh;
                    const S *r = (const S *)&rr;
                    S *hs = (S *)&hh;
#pragma unroll
                    for (int e = 0; e < E; e++) {
                        hs[e] = T::st(v[k][e] + T::ld(r[e]));
                        v[k][e] = T::ld(hs[e]);
                    }
                    ((uint4 *)(h + row * D))[vi] = hh;
                }
            } else {
#pragma unroll
                for (int e = 0; e < E; e++) v[k][e] = 0.f;
            }
        }
        float mean = 0.f, rstd;
        if (mode == 0) {
            float s = 0.f;
#pragma unroll
            for (int k = 0; k < V; k++)
#pragma unroll
                for (int e = 0; e < E; e++) s += v[k][e];
            mean = gk_block_sum(s, sh) / (float)D;
            float q = 0.f;
#pragma unroll
            for (int k = 0; k < V; k++) {
                int vi = threadIdx.x + k * blockDim.x;
                if (vi < nvec)
#pragma unroll
                    for (int e = 0; e < E; e++) { float d = v[k][e] - mean; q += d * d; }
            }
            rstd = rsqrtf(gk_block_sum(q, sh) / (float)D + eps);
        } else {
            float q = 0.f;
#pragma unroll
            for (int k = 0; k < V; k++)
#pragma unroll
                for (int e = 0; e < E; e++) q += v[k][e] * v[k][e];
            rstd = rsqrtf(gk_block_sum(q, sh) / (float)D + eps);
        }
        uint4 *orow = (uint4 *)(out + row * D);
#pragma unroll
        for (int k = 0; k < V; k++) {
            int vi = threadIdx.x + k * blockDim.x;
            if (vi < nvec) {
                uint4 o;
                S *os = (S *)&o;
#pragma unroll
                for (int e = 0; e < E; e++) {
                    int c = vi * E + e;
                    float y;
                    if (mode == 0) {
                        y = (v[k][e] - mean) * rstd;
                        if (w) y = y * TW::ld(w[c]);
                        if (b) y = y + TW::ld(b[c]);
                    } else {
                        y = gk_rnd<DT>(v[k][e] * rstd);
                        if (w) y = TW::ld(w[c]) * y;
                    }
                    os[e] = T::st(y);
                }
                orow[vi] = o;
            }
        }
    }
}


// Short rows (at most 32 vectors of 16 bytes, e.g. per-head q/k norms of
// 64 or 128 elements): a group of G lanes (G a power of two >= the row's
// vector count) per row, 32 / G rows per warp, U rows per group in flight,
// shuffle-only reductions inside the group. A lane always holds the same
// columns, so its weights and biases are loaded once, before the row loop.
template <int DT, int WT, int U>
__device__ __forceinline__ void gk_warpnorm(gk_i64 rows, int D, int G, int mode, float eps, const typename gk_ty<DT>::S *x,
                                            const typename gk_ty<DT>::S *res, typename gk_ty<DT>::S *h,
                                            typename gk_ty<DT>::S *out, const typename gk_ty<WT>::S *w,
                                            const typename gk_ty<WT>::S *b) {
    typedef typename gk_ty<DT>::S S;
    typedef gk_ty<DT> T;
    enum { E = 16 / sizeof(S) };
    const int nvec = D / E, lane = threadIdx.x & 31, cl = lane & (G - 1), sub = lane / G, rpw = 32 / G;
    const bool on = cl < nvec;
    float wv[E], bv[E];
#pragma unroll
    for (int e = 0; e < E; e++) { wv[e] = 1.f; bv[e] = 0.f; }
    if (on && w) gk_ldw<WT, E>(w, cl * E, wv);
    if (on && b) gk_ldw<WT, E>(b, cl * E, bv);
    const gk_i64 gw = (gk_i64)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5), nw = (gk_i64)gridDim.x * (blockDim.x >> 5);
    // rows handled by this warp in one step: rpw * U, as U slices of rpw rows
    for (gk_i64 base = gw * rpw * U; base < rows; base += nw * rpw * U) {
        float v[U][E];
        bool ok[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            gk_i64 row = base + u * rpw + sub;
            ok[u] = on && row < rows;
            if (ok[u]) {
                uint4 raw = ((const uint4 *)(x + row * D))[cl];
                const S *s = (const S *)&raw;
#pragma unroll
                for (int e = 0; e < E; e++) v[u][e] = T::ld(s[e]);
            } else {
#pragma unroll
                for (int e = 0; e < E; e++) v[u][e] = 0.f;
            }
        }
        if (mode == 2) {
#pragma unroll
            for (int u = 0; u < U; u++) {
                gk_i64 row = base + u * rpw + sub;
                if (ok[u]) {
                    uint4 rr = ((const uint4 *)(res + row * D))[cl], hh;
                    const S *r = (const S *)&rr;
                    S *hs = (S *)&hh;
#pragma unroll
                    for (int e = 0; e < E; e++) {
                        hs[e] = T::st(v[u][e] + T::ld(r[e]));
                        v[u][e] = T::ld(hs[e]);
                    }
                    ((uint4 *)(h + row * D))[cl] = hh;
                }
            }
        }
        float mean[U], q[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            mean[u] = 0.f;
            q[u] = 0.f;
        }
        if (mode == 0) {
#pragma unroll
            for (int u = 0; u < U; u++) {
                float sm = 0.f;
#pragma unroll
                for (int e = 0; e < E; e++) sm += v[u][e];
                for (int o = G >> 1; o; o >>= 1) sm += __shfl_xor_sync(0xffffffffu, sm, o);
                mean[u] = sm / (float)D;
                if (ok[u])
#pragma unroll
                    for (int e = 0; e < E; e++) { float d = v[u][e] - mean[u]; q[u] += d * d; }
            }
        } else {
#pragma unroll
            for (int u = 0; u < U; u++)
#pragma unroll
                for (int e = 0; e < E; e++) q[u] += v[u][e] * v[u][e];
        }
#pragma unroll
        for (int u = 0; u < U; u++) {
            for (int o = G >> 1; o; o >>= 1) q[u] += __shfl_xor_sync(0xffffffffu, q[u], o);
            float rstd = rsqrtf(q[u] / (float)D + eps);
            gk_i64 row = base + u * rpw + sub;
            if (ok[u]) {
                uint4 o;
                S *os = (S *)&o;
#pragma unroll
                for (int e = 0; e < E; e++) {
                    float y;
                    if (mode == 0) {
                        y = (v[u][e] - mean[u]) * rstd;
                        if (w) y = y * wv[e];
                        if (b) y = y + bv[e];
                    } else {
                        y = gk_rnd<DT>(v[u][e] * rstd);
                        if (w) y = wv[e] * y;
                    }
                    os[e] = T::st(y);
                }
                ((uint4 *)(out + row * D))[cl] = o;
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

#define GK_ROWNORM(DTN, WTN, V)                                                                                          \
    extern "C" __global__ void __launch_bounds__(512) gk_rownorm_##DTN##_##WTN##_v##V(                                                      \
        gk_i64 rows, int D, int mode, float eps, const gk_ty<GK_DT_##DTN>::S *x, const gk_ty<GK_DT_##DTN>::S *res,     \
        gk_ty<GK_DT_##DTN>::S *h, gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##WTN>::S *w,                          \
        const gk_ty<GK_DT_##WTN>::S *b) {                                                                               \
        gk_rownorm<GK_DT_##DTN, GK_DT_##WTN, V>(rows, D, mode, eps, x, res, h, out, w, b);                              \
    }
#define GK_NORMS(DTN, WTN)                                                                                               \
    extern "C" __global__ void gk_warpnorm_##DTN##_##WTN(                                                                \
        gk_i64 rows, int D, int G, int mode, float eps, const gk_ty<GK_DT_##DTN>::S *x, const gk_ty<GK_DT_##DTN>::S *res, \
        gk_ty<GK_DT_##DTN>::S *h, gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##WTN>::S *w,                          \
        const gk_ty<GK_DT_##WTN>::S *b) {                                                                               \
        gk_warpnorm<GK_DT_##DTN, GK_DT_##WTN, 4>(rows, D, G, mode, eps, x, res, h, out, w, b);                          \
    }                                                                                                                    \
    GK_ROWNORM(DTN, WTN, 1)                                                                                              \
    GK_ROWNORM(DTN, WTN, 2)                                                                                              \
    GK_ROWNORM(DTN, WTN, 4)                                                                                              \
    GK_ROWNORM(DTN, WTN, 8)                                                                                              \
    extern "C" __global__ void gk_gnorm_##DTN##_##WTN(gk_i64 rows, gk_i64 L, gk_i64 R, gk_i64 cpg, gk_i64 S_, int mode, \
                                                      float eps, const gk_ty<GK_DT_##DTN>::S *x,                         \
                                                      const gk_ty<GK_DT_##DTN>::S *res, gk_ty<GK_DT_##DTN>::S *h,        \
                                                      gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##WTN>::S *w,        \
                                                      const gk_ty<GK_DT_##WTN>::S *b) {                                  \
        gk_gnorm<GK_DT_##DTN, GK_DT_##WTN>(rows, L, R, cpg, S_, mode, eps, x, res, h, out, w, b);                        \
    }
GK_NORMS(f32, f32)
GK_NORMS(f16, f16)
GK_NORMS(f16, f32)
GK_NORMS(bf16, bf16)
GK_NORMS(bf16, f32)
