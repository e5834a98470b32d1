// conv.cu - convolutions as implicit GEMM (no im2col buffer) and weight-norm
// folding. Per group g: out[m][n] = sum_k A[m][k] B[k][n] (+ bias), with
// m an output channel of the group, n = (batch, oh, ow), k = (ci, kh, kw).
// A comes from the weight ([Cout][Cin/g][KH][KW], or [Cin][Cout/g][KH][KW]
// when transposed), B is gathered from the input on the fly. 64x64 tiles,
// k-steps of 16 through shared memory (the next tile prefetched into
// registers), 4x4 outputs per thread in registers,
// f32 accumulation for every storage type (128 x 64 tiles, 8x4 per thread,
// when a group has at least 128 output channels). gk_convp matches gk__convp.
#include "gk_common.cuh"

struct gk_convp {
    gk_i64 B, Cin, H, W, Cout, KH, KW, Ho, Wo, sh, sw, ph, pw, dh, dw, groups;
    int transposed, has_bias;
    int ksplit, pad_; // gk_convt1 (f32): the reduction split over ksplit blocks, each writing its own slice of a workspace
};

#define GK_CBN 64
#define GK_CBK 16

// MT = 1: 64 x 64 tiles, 4x4 outputs per thread; MT = 2: 128 x 64 tiles
// (rows ty*4 + {0..3} and 64 + ty*4 + {0..3}), for groups with >= 128 outputs.
template <int DT, int MT>
__device__ __forceinline__ void gk_conv_impl(const gk_convp &p, typename gk_ty<DT>::S *out, const typename gk_ty<DT>::S *x,
                                             const typename gk_ty<DT>::S *w, const typename gk_ty<DT>::S *bias) {
    typedef gk_ty<DT> Ty;
    __shared__ __align__(16) float As[GK_CBK][64 * MT + 4];
    __shared__ __align__(16) float Bs[GK_CBK][GK_CBN + 4];
    const int Cin_g = (int)(p.Cin / p.groups), Cout_g = (int)(p.Cout / p.groups);
    const int KW = (int)p.KW, KK = (int)(p.KH * p.KW), K = Cin_g * KK;
    const gk_i64 HWo = p.Ho * p.Wo, N = p.B * HWo;
    const gk_i64 g = blockIdx.z;
    const int m0 = blockIdx.y * 64 * MT;
    const gk_i64 n0 = (gk_i64)blockIdx.x * GK_CBN;
    const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
    float acc[4 * MT][4];
#pragma unroll
    for (int i = 0; i < 4 * MT; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) acc[i][j] = 0.f;
    // B loader: one column n, 4 consecutive k
    const int bn = tid & 63, bk = (tid >> 6) * 4;
    const gk_i64 n = n0 + bn;
    const bool nval = n < N;
    gk_i64 bb = 0, oh = 0, ow = 0;
    if (nval) { bb = n / HWo; gk_i64 r = n - bb * HWo; oh = r / p.Wo; ow = r - oh * p.Wo; }
    const gk_i64 ih0 = p.transposed ? oh + p.ph : oh * p.sh - p.ph, iw0 = p.transposed ? ow + p.pw : ow * p.sw - p.pw;
    const typename Ty::S *xb = x + (bb * p.Cin + g * Cin_g) * p.H * p.W;
    // A loader: rows (tid >> 2) + 64 * r, 4 consecutive k
    const int ak = (tid & 3) * 4;
    const int KH = (int)p.KH;
    // global -> registers for the k-tile at k0 (k decomposed once, then stepped)
    auto load = [&](int k0, float *ra, float *rb) {
#pragma unroll
        for (int rr = 0; rr < MT; rr++) {
            const int am = m0 + (tid >> 2) + 64 * rr;
            const bool mval = am < Cout_g;
            int k = k0 + ak, ci = k / KK, r = k - ci * KK;
#pragma unroll
            for (int j = 0; j < 4; j++) {
                float va = 0.f;
                if (mval && k + j < K) {
                    if (!p.transposed) va = Ty::ld(w[((gk_i64)g * Cout_g + am) * K + k + j]);
                    else va = Ty::ld(w[(((gk_i64)g * Cin_g + ci) * Cout_g + am) * KK + r]);
                }
                ra[rr * 4 + j] = va;
                if (++r == KK) { r = 0; ci++; }
            }
        }
        {
            int k = k0 + bk, ci = k / KK, r = k - ci * KK, kh = r / KW, kw = r - kh * KW;
#pragma unroll
            for (int j = 0; j < 4; j++) {
                float vb = 0.f;
                if (nval && k + j < K) {
                    gk_i64 ih, iw;
                    bool ok = true;
                    if (!p.transposed) {
                        ih = ih0 + (gk_i64)kh * p.dh;
                        iw = iw0 + (gk_i64)kw * p.dw;
                    } else {
                        gk_i64 th = ih0 - (gk_i64)kh * p.dh, tw = iw0 - (gk_i64)kw * p.dw;
                        ok = th >= 0 && tw >= 0 && th % p.sh == 0 && tw % p.sw == 0;
                        ih = th / p.sh;
                        iw = tw / p.sw;
                    }
                    if (ok && ih >= 0 && ih < p.H && iw >= 0 && iw < p.W) vb = Ty::ld(xb[((gk_i64)ci * p.H + ih) * p.W + iw]);
                }
                rb[j] = vb;
                if (++kw == KW) { kw = 0; if (++kh == KH) { kh = 0; ci++; } }
            }
        }
    };
    float ra[4 * MT], rb[4];
    load(0, ra, rb);
    for (int k0 = 0; k0 < K; k0 += GK_CBK) {
#pragma unroll
        for (int rr = 0; rr < MT; rr++)
#pragma unroll
            for (int j = 0; j < 4; j++) As[ak + j][(tid >> 2) + 64 * rr] = ra[rr * 4 + j];
#pragma unroll
        for (int j = 0; j < 4; j++) Bs[bk + j][bn] = rb[j];
        __syncthreads();
        if (k0 + GK_CBK < K) load(k0 + GK_CBK, ra, rb); // in flight during the math below
#pragma unroll
        for (int kk = 0; kk < GK_CBK; kk++) {
            float a[4 * MT];
            float4 b4 = *(const float4 *)&Bs[kk][tx * 4];
            float b[4] = { b4.x, b4.y, b4.z, b4.w };
#pragma unroll
            for (int rr = 0; rr < MT; rr++) {
                float4 a4 = *(const float4 *)&As[kk][ty * 4 + 64 * rr];
                a[rr * 4] = a4.x; a[rr * 4 + 1] = a4.y; a[rr * 4 + 2] = a4.z; a[rr * 4 + 3] = a4.w;
            }
#pragma unroll
            for (int i = 0; i < 4 * MT; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int j = 0; j < 4; j++) {
        gk_i64 nn = n0 + tx * 4 + j;
        if (nn >= N) continue;
        gk_i64 ob = nn / HWo, r = nn - ob * HWo;
#pragma unroll
        for (int i = 0; i < 4 * MT; i++) {
            int m = m0 + ty * 4 + (i & 3) + 64 * (i >> 2);
            if (m >= Cout_g) continue;
            gk_i64 co = g * Cout_g + m;
            float v = acc[i][j];
            if (p.has_bias) v += Ty::ld(bias[co]);
            out[(ob * p.Cout + co) * HWo + r] = Ty::st(v);
        }
    }
}

#define GK_CONV(NAME, DT)                                                                                                  \
    extern "C" __global__ void __launch_bounds__(256) gk_conv_##NAME(gk_convp p, gk_ty<DT>::S *out, const gk_ty<DT>::S *x,     \
                                                                      const gk_ty<DT>::S *w, const gk_ty<DT>::S *bias) {   \
        gk_conv_impl<DT, 1>(p, out, x, w, bias);                                                                           \
    }                                                                                                                      \
    extern "C" __global__ void __launch_bounds__(256) gk_conv128_##NAME(gk_convp p, gk_ty<DT>::S *out, const gk_ty<DT>::S *x,  \
                                                                         const gk_ty<DT>::S *w, const gk_ty<DT>::S *bias) { \
        gk_conv_impl<DT, 2>(p, out, x, w, bias);                                                                           \
    }
GK_CONV(f32, GK_DT_f32)
GK_CONV(f16, GK_DT_f16)
GK_CONV(bf16, GK_DT_bf16)

// split reduction: f32 only (the host never splits f16 / bf16): split kz stores its partial sums in slice kz of
// the workspace (out points there), and gk_convt1_sum adds the slices in order, so results do not depend on timing
__device__ __forceinline__ void gk_conv_part(float *p, float v) { *p = v; }
template <class S> __device__ __forceinline__ void gk_conv_part(S *, float) {}
// conv_transpose1d by phases (polyphase): output t with t mod s = phi only
// sees the taps k with (phi + pad - k*d) = 0 mod s, i.e. k = k0 + j*P
// (P = s / gcd(s, d)), each reading input u + off0 - j*D (t = phi + u*s,
// D = d / gcd). So every (group, phase) is a plain GEMM: rows = output
// channels, columns n = (batch, u), reduction kk = (ci, j) over Cin/g x
// ntaps(phi) -- no zero taps are multiplied. blockIdx.z = g * s + phi.
// Same tiles and pipeline as gk_conv_impl; needs H = KH = 1.
template <int DT, int MT>
__device__ __forceinline__ void gk_convt1_impl(const gk_convp &p, typename gk_ty<DT>::S *out, const typename gk_ty<DT>::S *x,
                                               const typename gk_ty<DT>::S *w, const typename gk_ty<DT>::S *bias) {
    typedef gk_ty<DT> Ty;
    __shared__ __align__(16) float As[GK_CBK][64 * MT + 4];
    __shared__ __align__(16) float Bs[GK_CBK][GK_CBN + 4];
    const int Cin_g = (int)(p.Cin / p.groups), Cout_g = (int)(p.Cout / p.groups);
    const int s = (int)p.sw, d = (int)p.dw, KW = (int)p.KW, W = (int)p.W, Wo = (int)p.Wo;
    const int ks = p.ksplit > 1 ? p.ksplit : 1, kz = (int)(blockIdx.z % (unsigned)ks), gp = (int)(blockIdx.z / (unsigned)ks);
    const int g = gp / s, phi = gp - g * s;
    const int U = phi < Wo ? (Wo - 1 - phi) / s + 1 : 0; // outputs of this phase per batch
    const int N = (int)p.B * U;
    const int m0 = blockIdx.y * 64 * MT, n0 = blockIdx.x * GK_CBN;
    if (n0 >= N) return; // the whole block: this phase has fewer columns
    // taps of this phase: k0, k0 + P, ... (k0 = -1: none)
    int gg = s, dd = d;
    while (dd) { int t = gg % dd; gg = dd; dd = t; } // gcd(s, d)
    const int P = s / gg, D = d / gg;
    int k0 = -1;
    for (int k = 0; k < P && k < KW; k++)
        if ((((phi + (int)p.pw - k * d) % s) + s) % s == 0) { k0 = k; break; }
    const int nt = k0 < 0 ? 0 : (KW - 1 - k0) / P + 1;
    const int off0 = k0 < 0 ? 0 : (phi + (int)p.pw - k0 * d) / s; // exact division
    const int Kall = Cin_g * nt, kchunk = ((Kall + ks - 1) / ks + GK_CBK - 1) / GK_CBK * GK_CBK;
    const int kbeg = kz * kchunk, K = kbeg + kchunk < Kall ? kbeg + kchunk : Kall; // this block: [kbeg, K)
    const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
    float acc[4 * MT][4];
#pragma unroll
    for (int i = 0; i < 4 * MT; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) acc[i][j] = 0.f;
    // B loader: one column n, 4 consecutive kk
    const int bn = tid & 63, bk = (tid >> 6) * 4;
    const int n = n0 + bn;
    const bool nval = n < N;
    int bb = 0, u = 0;
    if (nval) { bb = n / U; u = n - bb * U; }
    const typename Ty::S *xb = x + ((gk_i64)bb * p.Cin + (gk_i64)g * Cin_g) * W;
    const typename Ty::S *wg = w + (gk_i64)g * Cin_g * Cout_g * KW + (k0 < 0 ? 0 : k0);
    const int ak = (tid & 3) * 4;
    auto load = [&](int kb, float *ra, float *rb) {
#pragma unroll
        for (int rr = 0; rr < MT; rr++) {
            const int am = m0 + (tid >> 2) + 64 * rr;
            const bool mval = am < Cout_g;
            int k = kb + ak, ci = nt ? k / nt : 0, j = k - ci * nt;
#pragma unroll
            for (int e = 0; e < 4; e++) {
                float va = 0.f;
                if (mval && k + e < K) va = Ty::ld(wg[((gk_i64)ci * Cout_g + am) * KW + j * P]);
                ra[rr * 4 + e] = va;
                if (++j == nt) { j = 0; ci++; }
            }
        }
        {
            int k = kb + bk, ci = nt ? k / nt : 0, j = k - ci * nt;
#pragma unroll
            for (int e = 0; e < 4; e++) {
                float vb = 0.f;
                if (nval && k + e < K) {
                    int iw = u + off0 - j * D;
                    if (iw >= 0 && iw < W) vb = Ty::ld(xb[(gk_i64)ci * W + iw]);
                }
                rb[e] = vb;
                if (++j == nt) { j = 0; ci++; }
            }
        }
    };
    float ra[4 * MT], rb[4];
    load(kbeg, ra, rb);
    for (int kb = kbeg; kb < K; kb += GK_CBK) {
#pragma unroll
        for (int rr = 0; rr < MT; rr++)
#pragma unroll
            for (int j = 0; j < 4; j++) As[ak + j][(tid >> 2) + 64 * rr] = ra[rr * 4 + j];
#pragma unroll
        for (int j = 0; j < 4; j++) Bs[bk + j][bn] = rb[j];
        __syncthreads();
        if (kb + GK_CBK < K) load(kb + GK_CBK, ra, rb);
#pragma unroll
        for (int kk = 0; kk < GK_CBK; kk++) {
            float a[4 * MT];
            float4 b4 = *(const float4 *)&Bs[kk][tx * 4];
            float b[4] = { b4.x, b4.y, b4.z, b4.w };
#pragma unroll
            for (int rr = 0; rr < MT; rr++) {
                float4 a4 = *(const float4 *)&As[kk][ty * 4 + 64 * rr];
                a[rr * 4] = a4.x; a[rr * 4 + 1] = a4.y; a[rr * 4 + 2] = a4.z; a[rr * 4 + 3] = a4.w;
            }
#pragma unroll
            for (int i = 0; i < 4 * MT; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int j = 0; j < 4; j++) {
        int nn = n0 + tx * 4 + j;
        if (nn >= N) continue;
        int ob = nn / U, t = phi + (nn - ob * U) * s;
#pragma unroll
        for (int i = 0; i < 4 * MT; i++) {
            int m = m0 + ty * 4 + (i & 3) + 64 * (i >> 2);
            if (m >= Cout_g) continue;
            gk_i64 co = (gk_i64)g * Cout_g + m;
            float v = acc[i][j];
            if (p.has_bias && kz == 0) v += Ty::ld(bias[co]);
            if (ks > 1) gk_conv_part(out + (gk_i64)kz * p.B * p.Cout * Wo + ((gk_i64)ob * p.Cout + co) * Wo + t, v);
            else out[((gk_i64)ob * p.Cout + co) * Wo + t] = Ty::st(v);
        }
    }
}
// out[i] = the sum over the ksplit slices of ws, in slice order
extern "C" __global__ void __launch_bounds__(256) gk_convt1_sum(gk_convp p, float *out, const float *ws) {
    const gk_i64 n = p.B * p.Cout * p.Wo;
    for (gk_i64 i = (gk_i64)blockIdx.x * 256 + threadIdx.x; i < n; i += (gk_i64)gridDim.x * 256) {
        float v = 0.f;
        for (int z = 0; z < p.ksplit; z++) v += ws[(gk_i64)z * n + i];
        out[i] = v;
    }
}
#define GK_CONVT1(NAME, DT)                                                                                                   \
    extern "C" __global__ void __launch_bounds__(256) gk_convt1_##NAME(gk_convp p, gk_ty<DT>::S *out, const gk_ty<DT>::S *x,     \
                                                                        const gk_ty<DT>::S *w, const gk_ty<DT>::S *bias) {   \
        gk_convt1_impl<DT, 1>(p, out, x, w, bias);                                                                            \
    }                                                                                                                         \
    extern "C" __global__ void __launch_bounds__(256) gk_convt1_128_##NAME(gk_convp p, gk_ty<DT>::S *out, const gk_ty<DT>::S *x, \
                                                                            const gk_ty<DT>::S *w, const gk_ty<DT>::S *bias) { \
        gk_convt1_impl<DT, 2>(p, out, x, w, bias);                                                                            \
    }
GK_CONVT1(f32, GK_DT_f32)
GK_CONVT1(f16, GK_DT_f16)
GK_CONVT1(bf16, GK_DT_bf16)

// Weight norm: out[o,...] = g[o] * v[o,...] / ||v[o,...]||, one block per o.
template <int DT>
__device__ __forceinline__ void gk_wnorm_impl(gk_i64 inner, typename gk_ty<DT>::S *out, const typename gk_ty<DT>::S *v,
                                              const typename gk_ty<DT>::S *g) {
    typedef gk_ty<DT> Ty;
    __shared__ float red[32];
    gk_i64 o = blockIdx.x;
    const typename Ty::S *vr = v + o * inner;
    float s = 0.f;
    for (gk_i64 i = threadIdx.x; i < inner; i += blockDim.x) { float a = Ty::ld(vr[i]); s = fmaf(a, a, s); }
    for (int k = 16; k > 0; k >>= 1) s += __shfl_xor_sync(0xffffffffu, s, k);
    if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x == 0) {
        float t = 0.f;
        for (int wi = 0; wi < (int)(blockDim.x >> 5); wi++) t += red[wi];
        red[0] = t;
    }
    __syncthreads();
    float sc = Ty::ld(g[o]) / sqrtf(red[0]);
    for (gk_i64 i = threadIdx.x; i < inner; i += blockDim.x) out[o * inner + i] = Ty::st(Ty::ld(vr[i]) * sc);
}
#define GK_WNORM(NAME, DT)                                                                                           \
    extern "C" __global__ void gk_wnorm_##NAME(gk_i64 inner, gk_ty<DT>::S *out, const gk_ty<DT>::S *v, const gk_ty<DT>::S *g) { \
        gk_wnorm_impl<DT>(inner, out, v, g);                                                                         \
    }
GK_WNORM(f32, GK_DT_f32)
GK_WNORM(f16, GK_DT_f16)
GK_WNORM(bf16, GK_DT_bf16)
