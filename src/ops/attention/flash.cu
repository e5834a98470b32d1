// flash.cu - attention forward on tensor cores (FlashAttention-2 style), for
// f16 / bf16 and head dims 64, 80, 96, 128, without an additive mask.
// A block takes 64 queries of one (batch, q head): 4 warps of 16 rows. Q
// fragments stay in registers; K / V tiles of 64 keys come in by cp.async to
// padded shared memory (conflict-free ldmatrix); S = Q K^T and O += P V run on
// mma.sync m16n8k16 with an online softmax in f32; P is re-packed from the S
// accumulators into A fragments without a trip through shared memory.
// Parameters: gk_attn_p (gk_attn.cuh).
#include "gk_common.cuh"
#include "gk_attn.cuh" // gk_attn_p

__device__ __forceinline__ unsigned gk_smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void gk_cp_async16(void *smem, const void *gmem, bool full) {
    // zero-fills when !full (src-size 0)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(gk_smem_u32(smem)), "l"(gmem), "r"(full ? 16 : 0));
}
__device__ __forceinline__ void gk_cp_commit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void gk_cp_wait_all() { asm volatile("cp.async.wait_group 0;\n" ::); }
template <int DT> __device__ __forceinline__ void gk_mma(float *c, const unsigned *a, unsigned b0, unsigned b1) {
    if (DT == GK_DT_bf16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <int DT> __device__ __forceinline__ unsigned gk_pack2(float lo, float hi) {
    unsigned r;
    if (DT == GK_DT_bf16) asm("cvt.rn.bf16x2.f32 %0, %2, %1;\n" : "=r"(r) : "f"(lo), "f"(hi));
    else asm("cvt.rn.f16x2.f32 %0, %2, %1;\n" : "=r"(r) : "f"(lo), "f"(hi));
    return r;
}

#define GK_FA_BK 64
template <int DT, int D, int NW> __device__ __forceinline__ void gk_flash(const gk_attn_p &p) {
    typedef typename gk_ty<DT>::S S;
    enum { RS = D + 8, KT = D / 16, NT = D / 8, BQ = 16 * NW, NTH = 32 * NW }; // padded row (elements), k-steps over D, n-tiles of O
    extern __shared__ uint4 gk_fa_smem[];
    S *const Kb = (S *)gk_fa_smem, *const Vb = Kb + 2 * GK_FA_BK * RS; // two stages each: [2][BK][RS]
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, tid = threadIdx.x;
    // grid (q tiles, Hq, B): a head's q tiles launch together, so the blocks
    // resident at once share a few heads' K / V in L2; causal: the last q
    // tiles (the most keys) start first
    const gk_i64 h = blockIdx.y, b = blockIdx.z, qt = p.causal ? gridDim.x - 1 - blockIdx.x : blockIdx.x, q0 = qt * BQ;
    const gk_i64 hk = h / (p.Hq / p.Hkv);
    gk_i64 qlen = p.q_lens ? p.q_lens[b] : p.Sq, kvlen = p.kv_lens ? p.kv_lens[b] : p.Skv;
    if (qlen > p.Sq) qlen = p.Sq;
    if (kvlen > p.Skv) kvlen = p.Skv;
    const S *qg = (const S *)p.q + b * p.q_bs + h * p.q_hs;
    const S *kg = (const S *)p.k + b * p.k_bs + hk * p.k_hs;
    const S *vg = (const S *)p.v + b * p.v_bs + hk * p.v_hs;
    const int VR = D / 8; // 16-byte vectors a row
    // Q tile -> shared (the K buffer), then fragments to registers
    for (int e = tid; e < BQ * VR; e += NTH) {
        int r = e / VR, c = e % VR;
        gk_i64 qi = q0 + r;
        gk_cp_async16(Kb + r * RS + c * 8, qg + (qi < qlen ? qi : 0) * p.q_ss + c * 8, qi < qlen);
    }
    gk_cp_commit();
    gk_cp_wait_all();
    __syncthreads();
    unsigned qf[KT][4];
#pragma unroll
    for (int kk = 0; kk < KT; kk++)
        gk_ldsm(qf[kk], gk_smem_u32(Kb + (warp * 16 + (lane & 15)) * RS + kk * 16 + (lane >> 4) * 8));
    __syncthreads();
    const float sl2 = p.scale * 1.4426950408889634f; // scores in log2 units
    const float NEG = -__int_as_float(0x7f800000);
    float o[NT][4], m0 = NEG, m1 = NEG, l0 = 0.f, l1 = 0.f;
#pragma unroll
    for (int n = 0; n < NT; n++) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.f;
    const gk_i64 r0 = q0 + warp * 16 + lane / 4, r1 = r0 + 8; // this thread's two query rows
    const gk_i64 shift = kvlen - qlen;                          // causal: key j visible to query i if j <= i + shift
    gk_i64 kend = kvlen;
    if (p.causal) { gk_i64 lim = q0 + BQ - 1 + shift + 1; if (lim < kend) kend = lim < 0 ? 0 : lim; }
    if (q0 >= qlen) kend = 0;
    // K / V tiles: two stages; tile t + 1 loads (cp.async) while tile t is computed
    auto load_kv = [&](gk_i64 k0, int stage) {
        S *Kd = Kb + stage * GK_FA_BK * RS, *Vd = Vb + stage * GK_FA_BK * RS;
        for (int e = tid; e < GK_FA_BK * VR; e += NTH) {
            int r = e / VR, c = e % VR;
            gk_i64 kj = k0 + r;
            bool ok = kj < kvlen;
            gk_cp_async16(Kd + r * RS + c * 8, kg + (ok ? kj : 0) * p.k_ss + c * 8, ok);
            gk_cp_async16(Vd + r * RS + c * 8, vg + (ok ? kj : 0) * p.v_ss + c * 8, ok);
        }
        gk_cp_commit();
    };
    if (kend > 0) load_kv(0, 0);
    int stage = 0;
    for (gk_i64 k0 = 0; k0 < kend; k0 += GK_FA_BK, stage ^= 1) {
        const S *Ks = Kb + stage * GK_FA_BK * RS, *Vs = Vb + stage * GK_FA_BK * RS;
        if (k0 + GK_FA_BK < kend) { // the other stage was consumed (barrier at the end of the last tile)
            load_kv(k0 + GK_FA_BK, stage ^ 1);
            asm volatile("cp.async.wait_group 1;\n" ::);
        } else gk_cp_wait_all();
        __syncthreads();
        // S = Q K^T: 16 x 64 per warp, 8 n-tiles of 8 keys
        float s[8][4];
#pragma unroll
        for (int j = 0; j < 8; j++) s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.f;
#pragma unroll
        for (int kk = 0; kk < KT; kk++)
#pragma unroll
            for (int j = 0; j < 8; j += 2) {
                unsigned bf[4];
                int mm = lane >> 3;
                gk_ldsm(bf, gk_smem_u32(Ks + (j * 8 + (lane & 7) + (mm >> 1) * 8) * RS + kk * 16 + (mm & 1) * 8));
                gk_mma<DT>(s[j], qf[kk], bf[0], bf[1]);
                gk_mma<DT>(s[j + 1], qf[kk], bf[2], bf[3]);
            }
        // scale, mask (key bounds, causal), row maxima
        bool edge = k0 + GK_FA_BK > kvlen || (p.causal && k0 + GK_FA_BK - 1 > q0 + warp * 16 + shift);
        float mx0 = NEG, mx1 = NEG;
#pragma unroll
        for (int j = 0; j < 8; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                float v = s[j][e] * sl2;
                if (edge) {
                    gk_i64 key = k0 + j * 8 + 2 * (lane % 4) + (e & 1), qi = e < 2 ? r0 : r1;
                    if (key >= kvlen || (p.causal && key > qi + shift)) v = NEG;
                }
                s[j][e] = v;
                if (e < 2) mx0 = fmaxf(mx0, v);
                else mx1 = fmaxf(mx1, v);
            }
        mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, 1));
        mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, 2));
        mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, 1));
        mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, 2));
        float n0 = fmaxf(m0, mx0), n1 = fmaxf(m1, mx1);
        float b0s = n0 == NEG ? 0.f : n0, b1s = n1 == NEG ? 0.f : n1; // all masked so far: no NaN
        float c0 = exp2f(m0 - b0s), c1 = exp2f(m1 - b1s);
        m0 = n0; m1 = n1;
        l0 *= c0; l1 *= c1;
#pragma unroll
        for (int n = 0; n < NT; n++) { o[n][0] *= c0; o[n][1] *= c0; o[n][2] *= c1; o[n][3] *= c1; }
        unsigned pf[4][4];
#pragma unroll
        for (int j = 0; j < 8; j++) {
            float e0 = exp2f(s[j][0] - b0s), e1 = exp2f(s[j][1] - b0s), e2 = exp2f(s[j][2] - b1s), e3 = exp2f(s[j][3] - b1s);
            l0 += e0 + e1;
            l1 += e2 + e3;
            pf[j / 2][(j & 1) * 2 + 0] = gk_pack2<DT>(e0, e1);
            pf[j / 2][(j & 1) * 2 + 1] = gk_pack2<DT>(e2, e3);
        }
        // O += P V: 4 k-steps of 16 keys, NT n-tiles of 8 dims (V via ldmatrix.trans)
#pragma unroll
        for (int kk = 0; kk < 4; kk++)
#pragma unroll
            for (int n = 0; n < NT; n += 2) {
                unsigned vf[4];
                int mm = lane >> 3;
                if (n + 1 < NT) {
                    gk_ldsm_t(vf, gk_smem_u32(Vs + (kk * 16 + (lane & 7) + (mm & 1) * 8) * RS + n * 8 + (mm >> 1) * 8));
                    gk_mma<DT>(o[n], pf[kk], vf[0], vf[1]);
                    gk_mma<DT>(o[n + 1], pf[kk], vf[2], vf[3]);
                } else {
                    gk_ldsm_t(vf, gk_smem_u32(Vs + (kk * 16 + (lane & 7) + (mm & 1) * 8) * RS + n * 8));
                    gk_mma<DT>(o[n], pf[kk], vf[0], vf[1]);
                }
            }
        __syncthreads();
    }
    l0 += __shfl_xor_sync(0xffffffffu, l0, 1);
    l0 += __shfl_xor_sync(0xffffffffu, l0, 2);
    l1 += __shfl_xor_sync(0xffffffffu, l1, 1);
    l1 += __shfl_xor_sync(0xffffffffu, l1, 2);
    // rows past q_len, and rows that saw no key, are zeros
    float i0 = l0 > 0.f && r0 < qlen ? 1.f / l0 : 0.f, i1 = l1 > 0.f && r1 < qlen ? 1.f / l1 : 0.f;
    S *og = (S *)p.o + b * p.o_bs + h * p.o_hs;
#pragma unroll
    for (int n = 0; n < NT; n++) {
        int col = n * 8 + 2 * (lane % 4);
        if (r0 < p.Sq) *(unsigned *)(og + r0 * p.o_ss + col) = gk_pack2<DT>(o[n][0] * i0, o[n][1] * i0);
        if (r1 < p.Sq) *(unsigned *)(og + r1 * p.o_ss + col) = gk_pack2<DT>(o[n][2] * i1, o[n][3] * i1);
    }
}
#define GK_FA_K(DTN, D) \
    extern "C" __global__ void __launch_bounds__(128) gk_flash_##DTN##_##D(gk_attn_p p) { gk_flash<GK_DT_##DTN, D, 4>(p); } \
    extern "C" __global__ void __launch_bounds__(256) gk_flash8_##DTN##_##D(gk_attn_p p) { gk_flash<GK_DT_##DTN, D, 8>(p); }
GK_FA_K(bf16, 64) GK_FA_K(bf16, 80) GK_FA_K(bf16, 96) GK_FA_K(bf16, 128)
GK_FA_K(f16, 64) GK_FA_K(f16, 80) GK_FA_K(f16, 96) GK_FA_K(f16, 128)
