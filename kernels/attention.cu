// attention.cu - softmax(q k^T * scale + mask) v, per head, GQA-aware
//   gk_attn_<dt>          one warp per (query, q head): lanes score 32 keys at a
//                         time, online softmax in f32; split over the key
//                         sequence (gridDim.y) writes partial results
//   gk_attn_combine_<dt>  merges the splits (flash-decoding)
// Layout: q [B, Sq, Hq, D], k / v [B, Skv, Hkv, D], out [B, Sq, Hq, D]
// (strides in elements; the last dim contiguous). q head h reads kv head
// h / (Hq / Hkv). Causal: query i sees key j <= i + (kv_len - q_len).
#include "gk_common.cuh"

struct gk_attn_p {
    gk_i64 B, Sq, Skv, Hq, Hkv, D;
    gk_i64 q_bs, q_ss, q_hs, k_bs, k_ss, k_hs, v_bs, v_ss, v_hs, o_bs, o_ss, o_hs;
    gk_i64 m_bs, m_qs;            // mask[b * m_bs + i * m_qs + j] (f32, additive)
    const void *q, *k, *v, *mask;
    void *o;
    const int *q_lens, *kv_lens;  // per batch, optional
    float *part;                  // splits > 1: [B, Hq, Sq, splits, D + 2]
    float scale;
    int causal, splits, pad;
};

#define GK_ATTN_WARPS 4
template <int DT> __device__ __forceinline__ void gk_attn(const gk_attn_p &p) {
    typedef gk_ty<DT> T;
    typedef typename T::S S;
    __shared__ float qs[GK_ATTN_WARPS][256];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    gk_i64 row = (gk_i64)blockIdx.x * GK_ATTN_WARPS + warp; // over Sq * Hq
    gk_i64 b = blockIdx.z, split = blockIdx.y;
    if (row >= p.Sq * p.Hq) return;
    gk_i64 i = row / p.Hq, h = row % p.Hq, hk = h / (p.Hq / p.Hkv);
    gk_i64 qlen = p.q_lens ? p.q_lens[b] : p.Sq, kvlen = p.kv_lens ? p.kv_lens[b] : p.Skv;
    if (kvlen > p.Skv) kvlen = p.Skv;
    if (qlen > p.Sq) qlen = p.Sq;
    const int D = (int)p.D, NT = (D + 31) / 32;
    float *part = p.part ? p.part + (((b * p.Hq + h) * p.Sq + i) * p.splits + split) * (p.D + 2) : 0;
    if (i >= qlen) { // padding rows of a shorter sequence: zeros
        if (!part) {
            S *o = (S *)p.o + b * p.o_bs + i * p.o_ss + h * p.o_hs;
            for (int d = lane; d < D; d += 32) o[d] = T::st((typename T::C)0);
        } else if (lane == 0) { part[0] = -__int_as_float(0x7f800000); part[1] = 0; for (int d = 0; d < D; d++) part[2 + d] = 0; }
        return;
    }
    gk_i64 jend = kvlen;
    if (p.causal) { gk_i64 lim = i + (kvlen - qlen) + 1; if (lim < jend) jend = lim < 0 ? 0 : lim; }
    gk_i64 chunk = (jend + p.splits - 1) / p.splits, j0 = split * chunk, j1 = j0 + chunk < jend ? j0 + chunk : jend;
    const S *q = (const S *)p.q + b * p.q_bs + i * p.q_ss + h * p.q_hs;
    for (int d = lane; d < D; d += 32) qs[warp][d] = (float)T::ld(q[d]) * p.scale;
    __syncwarp();
    const S *kb = (const S *)p.k + b * p.k_bs + hk * p.k_hs;
    const S *vb = (const S *)p.v + b * p.v_bs + hk * p.v_hs;
    const float *mrow = p.mask ? (const float *)p.mask + b * p.m_bs + i * p.m_qs : 0;
    const float NEG = -__int_as_float(0x7f800000);
    float m = NEG, l = 0.0f, o[8];
#pragma unroll
    for (int t = 0; t < 8; t++) o[t] = 0.0f;
    for (gk_i64 jt = j0; jt < j1; jt += 32) {
        gk_i64 j = jt + lane;
        float s = NEG;
        if (j < j1) {
            const S *kr = kb + j * p.k_ss;
            float acc = 0.0f;
            for (int d = 0; d < D; d++) acc = fmaf(qs[warp][d], (float)T::ld(kr[d]), acc);
            s = acc + (mrow ? mrow[j] : 0.0f);
        }
        float mt = s;
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) mt = fmaxf(mt, __shfl_xor_sync(0xffffffffu, mt, off));
        float mn = fmaxf(m, mt);
        if (mn == NEG) continue; // every score so far is -inf: nothing to add
        float pj = s == NEG ? 0.0f : __expf(s - mn), corr = m == NEG ? 0.0f : __expf(m - mn), ps = pj;
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) ps += __shfl_xor_sync(0xffffffffu, ps, off);
        l = l * corr + ps;
#pragma unroll
        for (int t = 0; t < 8; t++) o[t] *= corr;
        int nk = (int)(j1 - jt < 32 ? j1 - jt : 32);
        for (int jj = 0; jj < nk; jj++) {
            float pw = __shfl_sync(0xffffffffu, pj, jj);
            const S *vr = vb + (jt + jj) * p.v_ss;
#pragma unroll
            for (int t = 0; t < 8; t++)
                if (t < NT && lane + 32 * t < D) o[t] = fmaf(pw, (float)T::ld(vr[lane + 32 * t]), o[t]);
        }
        m = mn;
    }
    if (!part) {
        S *out = (S *)p.o + b * p.o_bs + i * p.o_ss + h * p.o_hs;
        float inv = l > 0.0f ? 1.0f / l : 0.0f; // no visible key (all masked): zeros
#pragma unroll
        for (int t = 0; t < 8; t++)
            if (t < NT && lane + 32 * t < D) out[lane + 32 * t] = T::st((typename T::C)(o[t] * inv));
    } else {
        if (lane == 0) { part[0] = m; part[1] = l; }
#pragma unroll
        for (int t = 0; t < 8; t++)
            if (t < NT && lane + 32 * t < D) part[2 + lane + 32 * t] = o[t];
    }
}

// one block per (i, h, b) (blockIdx.x = i * Hq + h), a thread per output dim:
// out = sum_s o_s e^(m_s - M) / sum_s l_s e^(m_s - M); the split weights are
// computed once into shared memory, the loop over splits keeps loads in flight
template <int DT> __device__ __forceinline__ void gk_attn_combine(const gk_attn_p &p) {
    typedef gk_ty<DT> T;
    typedef typename T::S S;
    __shared__ float w[256];
    __shared__ float red[32];
    gk_i64 row = blockIdx.x, b = blockIdx.z;
    gk_i64 i = row / p.Hq, h = row % p.Hq;
    const int ns = p.splits, tid = threadIdx.x, lane = tid % 32, nw = (blockDim.x + 31) / 32;
    const float *part = p.part + ((b * p.Hq + h) * p.Sq + i) * ns * (p.D + 2);
    const float NEG = -__int_as_float(0x7f800000);
    float mx = NEG;
    for (int s = tid; s < ns; s += blockDim.x) mx = fmaxf(mx, part[s * (p.D + 2)]);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
    if (lane == 0) red[tid / 32] = mx;
    __syncthreads();
    mx = NEG;
    for (int k = 0; k < nw; k++) mx = fmaxf(mx, red[k]);
    __syncthreads();
    float lsum = 0.0f;
    for (int s = tid; s < ns; s += blockDim.x) {
        float ms = part[s * (p.D + 2)], ws = ms == NEG ? 0.0f : __expf(ms - mx);
        w[s] = ws;
        lsum += ws * part[s * (p.D + 2) + 1];
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) lsum += __shfl_xor_sync(0xffffffffu, lsum, off);
    if (lane == 0) red[tid / 32] = lsum;
    __syncthreads();
    lsum = 0.0f;
    for (int k = 0; k < nw; k++) lsum += red[k];
    S *out = (S *)p.o + b * p.o_bs + i * p.o_ss + h * p.o_hs;
    for (int d = tid; d < p.D; d += blockDim.x) {
        float acc = 0.0f;
#pragma unroll 8
        for (int s = 0; s < ns; s++) acc += part[s * (p.D + 2) + 2 + d] * w[s];
        out[d] = T::st((typename T::C)(lsum > 0.0f ? acc / lsum : 0.0f));
    }
}

#define GK_ATTN_K(DTN) \
    extern "C" __global__ void __launch_bounds__(128) gk_attn_##DTN(gk_attn_p p) { gk_attn<GK_DT_##DTN>(p); } \
    extern "C" __global__ void __launch_bounds__(128) gk_attn_combine_##DTN(gk_attn_p p) { gk_attn_combine<GK_DT_##DTN>(p); }
GK_ATTN_K(f32)
GK_ATTN_K(f16)
GK_ATTN_K(bf16)

// ---- decode (Sq == 1, no mask, 16-bit, D % 8 == 0): one block per (b, kv head, split),
// one warp per q head of the group; K / V tiles of 32 keys staged once per kv head in
// padded shared memory with coalesced 16-byte loads (K/V are read from DRAM once).
#define GK_DEC_TILE 32
template <int DT> __device__ __forceinline__ void gk_attn_dec(const gk_attn_p &p) {
    typedef gk_ty<DT> T;
    typedef typename T::S S;
    extern __shared__ uint4 gk_dec_smem[];
    const int D = (int)p.D, G = (int)(p.Hq / p.Hkv), RW = D / 8 + 1; // row stride in uint4 (padded by 16 bytes)
    uint4 *Ks = gk_dec_smem, *Vs = gk_dec_smem + GK_DEC_TILE * RW;
    float *qs = (float *)(Vs + GK_DEC_TILE * RW); // [G][D]
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nthr = blockDim.x;
    gk_i64 b = blockIdx.z, hk = blockIdx.x, split = blockIdx.y, h = hk * G + warp;
    gk_i64 kvlen = p.kv_lens ? p.kv_lens[b] : p.Skv;
    if (kvlen > p.Skv) kvlen = p.Skv;
    gk_i64 chunk = (kvlen + p.splits - 1) / p.splits, j0 = split * chunk, j1 = j0 + chunk < kvlen ? j0 + chunk : kvlen;
    const S *q = (const S *)p.q + b * p.q_bs + h * p.q_hs;
    for (int d = lane; d < D; d += 32) qs[warp * D + d] = (float)T::ld(q[d]) * p.scale;
    const S *kb = (const S *)p.k + b * p.k_bs + hk * p.k_hs, *vb = (const S *)p.v + b * p.v_bs + hk * p.v_hs;
    const float NEG = -__int_as_float(0x7f800000);
    const int NT = (D + 31) / 32, VPR = D / 8;
    float m = NEG, l = 0.0f, o[8];
#pragma unroll
    for (int t = 0; t < 8; t++) o[t] = 0.0f;
    for (gk_i64 jt = j0; jt < j1; jt += GK_DEC_TILE) {
        int nk = (int)(j1 - jt < GK_DEC_TILE ? j1 - jt : GK_DEC_TILE);
        __syncthreads(); // the previous tile is consumed
        for (int e = threadIdx.x; e < nk * VPR; e += nthr) {
            int r = e / VPR, c = e % VPR;
            Ks[r * RW + c] = __ldg((const uint4 *)(kb + (jt + r) * p.k_ss) + c);
            Vs[r * RW + c] = __ldg((const uint4 *)(vb + (jt + r) * p.v_ss) + c);
        }
        __syncthreads();
        float s = NEG;
        if (lane < nk) {
            const uint4 *kr = Ks + lane * RW;
            const float *qw = qs + warp * D;
            float acc = 0.0f;
            for (int c = 0; c < VPR; c++) {
                union { uint4 v; S s[8]; } u;
                u.v = kr[c];
#pragma unroll
                for (int e = 0; e < 8; e++) acc = fmaf(qw[c * 8 + e], (float)T::ld(u.s[e]), acc);
            }
            s = acc;
        }
        float mt = s;
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) mt = fmaxf(mt, __shfl_xor_sync(0xffffffffu, mt, off));
        float mn = fmaxf(m, mt);
        float pj = s == NEG ? 0.0f : __expf(s - mn), corr = m == NEG ? 0.0f : __expf(m - mn), ps = pj;
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) ps += __shfl_xor_sync(0xffffffffu, ps, off);
        l = l * corr + ps;
#pragma unroll
        for (int t = 0; t < 8; t++) o[t] *= corr;
        const S *vsm = (const S *)Vs;
        for (int jj = 0; jj < nk; jj++) {
            float pw = __shfl_sync(0xffffffffu, pj, jj);
#pragma unroll
            for (int t = 0; t < 8; t++)
                if (t < NT && lane + 32 * t < D) o[t] = fmaf(pw, (float)T::ld(vsm[jj * RW * 8 + lane + 32 * t]), o[t]);
        }
        m = mn;
    }
    float *part = p.part + ((b * p.Hq + h) * p.Sq + 0) * p.splits * (p.D + 2) + split * (p.D + 2);
    if (lane == 0) { part[0] = m; part[1] = l; }
#pragma unroll
    for (int t = 0; t < 8; t++)
        if (t < NT && lane + 32 * t < D) part[2 + lane + 32 * t] = o[t];
}
extern "C" __global__ void gk_attn_dec_f16(gk_attn_p p) { gk_attn_dec<GK_DT_f16>(p); }
extern "C" __global__ void gk_attn_dec_bf16(gk_attn_p p) { gk_attn_dec<GK_DT_bf16>(p); }
