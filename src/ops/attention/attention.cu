// attention.cu - softmax(q k^T * scale + mask) v, per head, GQA-aware
//   gk_attn_<dt>          one warp per (query, q head): lanes score 32 keys at a
//                         time, online softmax in f32; split over the key
//                         sequence (gridDim.y) writes partial results
//   gk_attn_combine_<dt>  merges the splits (flash-decoding)
//   gk_attn_dec_<dt>      decode (one query): K / V tiles in shared memory
//   gk_attn_dec3_<dt>_<D> decode on tensor cores (mma.sync), D 64 / 128, up to
//                         8 q heads a kv head, K / V streamed into registers
//   gk_attn_dec4t_<dt>_<D> the same math with K / V streamed through a shared-
//                         memory ring by the copy engine in tensor-map tiles
//                         (sm_90+)
// Layout: q [B, Sq, Hq, D], k / v [B, Skv, Hkv, D], out [B, Sq, Hq, D]
// (strides in elements; the last dim contiguous). q head h reads kv head
// h / (Hq / Hkv). Causal: query i sees key j <= i + (kv_len - q_len).
#include "gk_common.cuh"
#include "gk_sm90.cuh"
#include "gk_attn.cuh" // gk_attn_p

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
// the splits that hold keys of batch b: decode (p.tile > 0) writes only splits
// 0..ceil(kv_len / chunk) - 1 (at least split 0), so short caches combine few
__device__ __forceinline__ gk_i64 gk_attn_kvlen(const gk_attn_p &p, gk_i64 b) {
    gk_i64 kvlen = p.kv_lens ? p.kv_lens[b] : p.Skv;
    return kvlen > p.Skv ? p.Skv : kvlen < 0 ? 0 : kvlen;
}
__device__ __forceinline__ int gk_attn_nsplit(const gk_attn_p &p, gk_i64 b) {
    if (p.tile == 0 || !p.kv_lens) return p.splits;
    // (32-bit arithmetic: kv_len is an i32 and chunk an int; the decode kernels' fold runs this on few warps,
    // where every instruction of a 64-bit division shows)
    const int kvlen = p.kv_lens[b] < p.Skv ? p.kv_lens[b] : (int)p.Skv, n = kvlen <= 0 ? 1 : (kvlen - 1) / p.chunk + 1;
    return n > p.splits ? p.splits : n;
}
// decode: the keys [j0, j1) of split `split` of sequence b (its kv_len read on the device);
// false when the split starts past the sequence's end (not split 0): such a block writes
// nothing, and gk_attn_combine reads splits 0..gk_attn_nsplit() only
__device__ __forceinline__ bool gk_dec_keys(const gk_attn_p &p, gk_i64 b, gk_i64 split, gk_i64 &j0, gk_i64 &j1) {
    const gk_i64 kvlen = gk_attn_kvlen(p, b);
    j0 = split * (gk_i64)p.chunk;
    j1 = j0 + p.chunk < kvlen ? j0 + p.chunk : kvlen;
    return split == 0 || j0 < kvlen;
}
// Before the PDL wait nothing an earlier kernel writes may be read, but L2 may be warmed:
// the first p.pf 64-key tiles of the split's keys [j0, j1) as prefetch hints, so that the
// DRAM reads start while the previous kernels drain. A hint only fills L2, which is
// coherent (a row an earlier kernel is still writing is just fetched again when written);
// kv_len is read without waiting (__ldcg: no L1 line to go stale) only to bound the range.
__device__ __forceinline__ void gk_dec_hint_range(const gk_attn_p &p, gk_i64 b, gk_i64 split, gk_i64 &j0, gk_i64 &j1) {
    gk_i64 kvlen = p.kv_lens ? (gk_i64)__ldcg(p.kv_lens + b) : p.Skv;
    kvlen = kvlen > p.Skv ? p.Skv : kvlen < 0 ? 0 : kvlen;
    j0 = split * (gk_i64)p.chunk;
    gk_i64 e = j0 + 64 * (gk_i64)(p.pf < p.chunk ? p.pf : p.chunk);
    if (e > j0 + p.chunk) e = j0 + p.chunk;
    j1 = e < kvlen ? e : kvlen;
}
// the hints of gk_attn_dec3 (sm_90+, where the PDL wait lets the kernel start early): one
// prefetch.global.L2 a 128-byte line of each K / V row, a key's K and V lines together,
// spread over the block's nt threads
__device__ __forceinline__ void gk_dec_l2_rows(const gk_attn_p &p, gk_i64 b, gk_i64 hk, gk_i64 split, int tid, int nt) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (p.pf <= 0) return;
    gk_i64 j0, j1;
    gk_dec_hint_range(p, b, split, j0, j1);
    const int lines = (int)((2 * p.D + 127) / 128);
    const gk_u16 *kb = (const gk_u16 *)p.k + b * p.k_bs + hk * p.k_hs, *vb = (const gk_u16 *)p.v + b * p.v_bs + hk * p.v_hs;
    for (gk_i64 e = tid; e < (j1 - j0) * 2 * lines; e += nt) {
        const gk_i64 key = j0 + e / (2 * lines);
        const int r = (int)(e % (2 * lines));
        const char *a = r < lines ? (const char *)(kb + key * p.k_ss) + 128 * r : (const char *)(vb + key * p.v_ss) + 128 * (r - lines);
        asm volatile("prefetch.global.L2 [%0];\n" ::"l"(a));
    }
#else
    (void)p; (void)b; (void)hk; (void)split; (void)tid; (void)nt;
#endif
}
// the start of gk_attn_dec3 / gk_attn_dec4t after their setup: the next kernel may launch,
// this one waits for the earlier kernels (q, the cache and kv_lens come from them); then
// the split's keys (gk_dec_keys) and kv head hk's K / V rows of sequence b
__device__ __forceinline__ bool gk_dec_begin(const gk_attn_p &p, gk_i64 b, gk_i64 hk, gk_i64 split, gk_i64 &j0, gk_i64 &j1, const gk_u16 *&kb,
                                             const gk_u16 *&vb) {
    gk_pdl_launch();
    gk_pdl_wait();
    kb = (const gk_u16 *)p.k + b * p.k_bs + hk * p.k_hs;
    vb = (const gk_u16 *)p.v + b * p.v_bs + hk * p.v_hs;
    return gk_dec_keys(p, b, split, j0, j1);
}
// A block per output row: the largest m over the splits, then the weights and
// their sum, then each element's weighted sum over the splits: three rounds of
// loads (the warps taking splits, two dependent rounds, are slower; docs/perf-log.md).
// At most 32 splits and D at most the block's threads (every decode split count the
// host picks for D 64 / 128 with a few heads), where p.comb allows it
// (tune.combine_one_round): one round of loads instead of three. A
// thread loads its element d of every split's o and lane s of each warp split s's (m, l),
// all before anything is known (splits past a short sequence's kv_len hold stale values and
// are masked once its split count is known); each warp then takes the max and the weights
// with shuffles (no shared memory, no barrier). It matches the three-round form within
// run-to-run noise, and is ahead of it after gk_attn_dec4t (docs/perf-log.md).
template <int DT> __device__ __forceinline__ void gk_attn_combine32(const gk_attn_p &p, gk_i64 b, gk_i64 i, gk_i64 h) {
    typedef gk_ty<DT> T;
    typedef typename T::S S;
    const float NEG = -__int_as_float(0x7f800000);
    const int tid = threadIdx.x, lane = tid % 32, d = tid;
    const float *part = p.part + ((b * p.Hq + h) * p.Sq + i) * p.splits * (p.D + 2);
    float ov[32], ms = NEG, ls = 0.0f;
#pragma unroll
    for (int s = 0; s < 32; s++) ov[s] = s < p.splits && d < p.D ? __ldcg(part + s * (p.D + 2) + 2 + d) : 0.0f;
    if (lane < p.splits) { ms = __ldcg(part + lane * (p.D + 2)); ls = __ldcg(part + lane * (p.D + 2) + 1); }
    const int ns = gk_attn_nsplit(p, b);
    // every load above is in flight before the first is waited on (else the compiler sinks
    // them to their uses after the shuffles: three rounds again)
#pragma unroll
    for (int s = 0; s < 32; s++) asm volatile("" ::"f"(ov[s]));
    if (lane >= ns) { ms = NEG; ls = 0.0f; }
    float mx = ms;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, off));
    const float ws = ms == NEG ? 0.0f : __expf(ms - mx);
    float lsum = ws * ls;
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) lsum += __shfl_xor_sync(0xffffffffu, lsum, off);
    float acc = 0.0f;
#pragma unroll
    for (int s = 0; s < 32; s++) { // (stale values past ns may be anything: masked, not weighted by 0)
        const float wt = __shfl_sync(0xffffffffu, ws, s);
        acc += s < ns ? ov[s] * wt : 0.0f;
    }
    if (d < p.D) {
        S *out = (S *)p.o + b * p.o_bs + i * p.o_ss + h * p.o_hs;
        out[d] = T::st((typename T::C)(lsum > 0.0f ? acc / lsum : 0.0f));
    }
}
template <int DT> __device__ __forceinline__ void gk_attn_combine(const gk_attn_p &p) {
    typedef gk_ty<DT> T;
    typedef typename T::S S;
    __shared__ float w[256];
    __shared__ float red[32];
    gk_i64 row = blockIdx.x, b = blockIdx.z;
    gk_i64 i = row / p.Hq, h = row % p.Hq;
    gk_pdl_launch();
    gk_pdl_wait(); // the partial results and kv_lens come from earlier kernels
    if (p.comb && p.splits <= 32 && p.D <= (gk_i64)blockDim.x) { gk_attn_combine32<DT>(p, b, i, h); return; }
    const int ns = gk_attn_nsplit(p, b), tid = threadIdx.x, lane = tid % 32, nw = (blockDim.x + 31) / 32;
    const float *part = p.part + ((b * p.Hq + h) * p.Sq + i) * p.splits * (p.D + 2);
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

// ---- decode (Sq == 1, no mask, 16-bit, D % 8 == 0, G = Hq / Hkv <= 32): one block
// per (b, kv head, split); a split is p.chunk keys, taken p.tile keys at a time. A
// tile of K and of V goes to padded shared memory by cp.async (16 bytes a thread,
// coalesced, the whole tile in flight at once); every q head of the group scores from
// that copy, so K / V are read from DRAM once; two stages, so the next tile loads
// while this one is computed. Softmax online over the tiles (exact within one); the
// split's (m, l, o) per q head go to p.part for gk_attn_combine.
// Shared memory: K, V [2][tile][D + 8], q [G][D] f32, scores [G][tile], o [G][D] f32,
// m / l / rescale [G] each.
__device__ __forceinline__ void gk_dec_cp16(void *smem, const void *gmem) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"((unsigned)__cvta_generic_to_shared(smem)), "l"(gmem));
}
// two 16-bit values of a 32-bit word to f32 (no NaN canonicalisation: inner loops)
template <int DT> __device__ __forceinline__ void gk_dec_2f(unsigned u, float &lo, float &hi) {
    if (DT == GK_DT_bf16) { lo = __uint_as_float(u << 16); hi = __uint_as_float(u & 0xffff0000u); }
    else {
        asm("{ .reg .b16 a, b; mov.b32 {a, b}, %2; cvt.f32.f16 %0, a; cvt.f32.f16 %1, b; }" : "=f"(lo), "=f"(hi) : "r"(u));
    }
}
template <int DT> __device__ __forceinline__ void gk_attn_dec(const gk_attn_p &p) {
    typedef gk_ty<DT> T;
    typedef typename T::S S;
    extern __shared__ uint4 gk_dec_smem[];
    const int D = (int)p.D, G = (int)(p.Hq / p.Hkv), C = p.tile, VPR = D / 8, RW = VPR + 1; // row stride in uint4 (padded by 16 bytes)
    uint4 *Ks = gk_dec_smem, *Vs = gk_dec_smem + C * RW; // stage s: K at Ks + 2 s C RW, V at Vs + 2 s C RW
    float *qs = (float *)(gk_dec_smem + 4 * C * RW), *sc = qs + G * D, *os = sc + G * C, *ms = os + G * D, *ls = ms + G, *cs = ls + G;
    const int tid = threadIdx.x, nt = blockDim.x, warp = tid / 32, lane = tid % 32, nw = nt / 32, D2 = D / 2;
    const gk_i64 b = blockIdx.z, hk = blockIdx.x, split = blockIdx.y;
    gk_pdl_launch();
    gk_pdl_wait(); // q, the cache and kv_lens come from earlier kernels
    gk_i64 j0, j1;
    if (!gk_dec_keys(p, b, split, j0, j1)) return;
    const S *kb = (const S *)p.k + b * p.k_bs + hk * p.k_hs, *vb = (const S *)p.v + b * p.v_bs + hk * p.v_hs;
    const float NEG = -__int_as_float(0x7f800000);
    // two stages: the tile after this one loads while this one is computed
    auto load = [&](gk_i64 jt, int st) {
        const int nk = (int)(j1 - jt < C ? j1 - jt : C);
        uint4 *Kd = Ks + st * 2 * C * RW, *Vd = Vs + st * 2 * C * RW;
        for (int e = tid; e < nk * VPR; e += nt) {
            int r = e / VPR, c = e - r * VPR;
            gk_dec_cp16(Kd + r * RW + c, (const uint4 *)(kb + (jt + r) * p.k_ss) + c);
            gk_dec_cp16(Vd + r * RW + c, (const uint4 *)(vb + (jt + r) * p.v_ss) + c);
        }
        asm volatile("cp.async.commit_group;\n" ::);
    };
    if (j0 < j1) load(j0, 0); // in flight while q is read
    for (int e = tid; e < G * D; e += nt) {
        int g = e / D, d = e - g * D;
        qs[e] = (float)T::ld(((const S *)p.q)[b * p.q_bs + (hk * G + g) * p.q_hs + d]) * p.scale;
        os[e] = 0.0f;
    }
    for (int g = tid; g < G; g += nt) { ms[g] = NEG; ls[g] = 0.0f; }
    int stage = 0;
    for (gk_i64 jt = j0; jt < j1; jt += C, stage ^= 1) {
        const int nk = (int)(j1 - jt < C ? j1 - jt : C);
        const uint4 *Kt = Ks + stage * 2 * C * RW, *Vt = Vs + stage * 2 * C * RW;
        if (jt + C < j1) {
            load(jt + C, stage ^ 1);
            asm volatile("cp.async.wait_group 1;\n" ::);
        } else asm volatile("cp.async.wait_group 0;\n" ::);
        __syncthreads(); // K tile, q, o / m / l init
        // scores: a thread per (q head, key)
        for (int e = tid; e < G * nk; e += nt) {
            int g = e / nk, j = e - g * nk;
            const uint4 *kr = Kt + j * RW;
            const float4 *q4 = (const float4 *)(qs + g * D);
            float a0 = 0.0f, a1 = 0.0f;
#pragma unroll 4
            for (int c = 0; c < VPR; c++) {
                uint4 u = kr[c];
                float4 x = q4[2 * c], y = q4[2 * c + 1];
                float k0, k1, k2, k3, k4, k5, k6, k7;
                gk_dec_2f<DT>(u.x, k0, k1); gk_dec_2f<DT>(u.y, k2, k3); gk_dec_2f<DT>(u.z, k4, k5); gk_dec_2f<DT>(u.w, k6, k7);
                a0 = fmaf(x.x, k0, a0); a1 = fmaf(x.y, k1, a1); a0 = fmaf(x.z, k2, a0); a1 = fmaf(x.w, k3, a1);
                a0 = fmaf(y.x, k4, a0); a1 = fmaf(y.y, k5, a1); a0 = fmaf(y.z, k6, a0); a1 = fmaf(y.w, k7, a1);
            }
            sc[g * C + j] = a0 + a1;
        }
        __syncthreads();
        // online softmax over the tile: a warp per q head
        for (int g = warp; g < G; g += nw) {
            float mt = NEG;
            for (int j = lane; j < nk; j += 32) mt = fmaxf(mt, sc[g * C + j]);
#pragma unroll
            for (int off = 16; off > 0; off >>= 1) mt = fmaxf(mt, __shfl_xor_sync(0xffffffffu, mt, off));
            float mo = ms[g], mn = fmaxf(mo, mt), ps = 0.0f; // mn finite: nk >= 1 and scores finite
            for (int j = lane; j < nk; j += 32) {
                float e = __expf(sc[g * C + j] - mn);
                sc[g * C + j] = e;
                ps += e;
            }
#pragma unroll
            for (int off = 16; off > 0; off >>= 1) ps += __shfl_xor_sync(0xffffffffu, ps, off);
            if (lane == 0) {
                float corr = mo == NEG ? 0.0f : __expf(mo - mn);
                cs[g] = corr;
                ls[g] = ls[g] * corr + ps;
                ms[g] = mn;
            }
        }
        __syncthreads(); // probabilities, rescales
        // o = o * corr + P V: a thread per (q head, pair of dims)
        for (int e = tid; e < G * D2; e += nt) {
            int g = e / D2, d2 = e - g * D2;
            const unsigned *vc = (const unsigned *)Vt + d2;
            const float *pr = sc + g * C;
            float a0 = 0.0f, a1 = 0.0f, b0 = 0.0f, b1 = 0.0f;
            int j = 0;
            for (; j + 2 <= nk; j += 2) {
                float v0, v1, w0, w1;
                gk_dec_2f<DT>(vc[j * RW * 4], v0, v1);
                gk_dec_2f<DT>(vc[(j + 1) * RW * 4], w0, w1);
                float p0 = pr[j], p1 = pr[j + 1];
                a0 = fmaf(p0, v0, a0); a1 = fmaf(p0, v1, a1);
                b0 = fmaf(p1, w0, b0); b1 = fmaf(p1, w1, b1);
            }
            if (j < nk) {
                float v0, v1;
                gk_dec_2f<DT>(vc[j * RW * 4], v0, v1);
                a0 = fmaf(pr[j], v0, a0); a1 = fmaf(pr[j], v1, a1);
            }
            float corr = cs[g];
            os[g * D + 2 * d2] = os[g * D + 2 * d2] * corr + a0 + b0;
            os[g * D + 2 * d2 + 1] = os[g * D + 2 * d2 + 1] * corr + a1 + b1;
        }
        __syncthreads(); // the tile buffers and scores are consumed
    }
    __syncthreads();
    // partial results: part[b, h, 0, split, :] = (m, l, o[D])
    for (int e = tid; e < G * (D + 2); e += nt) {
        int g = e / (D + 2), d = e - g * (D + 2);
        float *part = p.part + ((b * p.Hq + hk * G + g) * p.splits + split) * (p.D + 2);
        part[d] = d == 0 ? ms[g] : d == 1 ? ls[g] : os[g * D + d - 2];
    }
}
extern "C" __global__ void __launch_bounds__(128) gk_attn_dec_f16(gk_attn_p p) { gk_attn_dec<GK_DT_f16>(p); }
extern "C" __global__ void __launch_bounds__(128) gk_attn_dec_bf16(gk_attn_p p) { gk_attn_dec<GK_DT_bf16>(p); }

// ---- decode on tensor cores (Sq == 1, 16-bit, D 64 or 128, G = Hq / Hkv <= 8):
// gk_attn_dec3_<dt>_<D>. A block of 4 warps per (b, kv head, split); each warp
// streams its own 16-key blocks of the split (blocks w, w + 4, ...) straight from
// global memory into registers (no shared memory, no barrier in the loop), so a
// warp's next loads wait only on its own math; two blocks are held in registers,
// so the next one loads while this one is computed. Per 16-key block, with lane =
// 4 * gid + tig (the mma.m16n8k16 fragment coordinates):
//  scores S = Q K^T: A = the G q heads as rows 0..G-1 of 16 (rows >= G zero),
//    B = K^T for keys 0..7 (n-tile 0) and 8..15 (n-tile 1). The head dim is
//    permuted inside each lane's quarter (the dot product does not care, as long
//    as Q and K use one order): a lane takes the 16-byte chunks tig, tig + 4, ...
//    of the q row and of key rows gid and 8 + gid (a quad's load reads 64
//    contiguous bytes), and its fragments for k-step s are words 2 s and 2 s + 1
//    of that data (gk_dec3_kd).
//  softmax online in f32, base 2 (scores times scale * log2 e); a lane holds
//    head gid's scores of keys 2 tig, 2 tig + 1, 8 + 2 tig, 9 + 2 tig, exactly the
//    A fragment of P for P V (the flash-attention re-pack); max over the quad.
//  O += P V: B = V for d-tile j, whose column n is d = gk_dec3_vd(j, n), so a lane
//    needs the 16-byte chunks gid (and gid + 8 at D 128) of key rows 2 tig, 2 tig + 1,
//    8 + 2 tig, 9 + 2 tig (8 lanes read 128 contiguous bytes a row); two byte_perms
//    make each B register from two rows.
// Rows 8..15 of A are zero registers and the C rows they give are dropped at once
// (temporaries), so O takes D/4 registers a lane. Keys at or past the split's end
// are neither loaded nor scored (-inf). At the end the 4 warps merge through
// shared memory and the block writes its split's (m, l, o) as gk_attn_dec does
// (m in natural-log units), for gk_attn_combine; with one split (p.part null) it
// writes the output itself, and no combine runs.
template <int DT> __device__ __forceinline__ void gk_dec3_mma(float &c0, float &c1, unsigned a0, unsigned a2, unsigned b0, unsigned b1) {
    float d2, d3;
    const float z = 0.0f;
    if (DT == GK_DT_bf16)
        asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%5}, {%7,%8}, {%9,%10,%11,%11};\n"
            : "=f"(c0), "=f"(c1), "=f"(d2), "=f"(d3)
            : "r"(a0), "r"(0u), "r"(a2), "r"(b0), "r"(b1), "f"(c0), "f"(c1), "f"(z));
    else
        asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%5}, {%7,%8}, {%9,%10,%11,%11};\n"
            : "=f"(c0), "=f"(c1), "=f"(d2), "=f"(d3)
            : "r"(a0), "r"(0u), "r"(a2), "r"(b0), "r"(b1), "f"(c0), "f"(c1), "f"(z));
    (void)d2; (void)d3;
}
// the head-dim orders (both bijections of 0..D-1): word w of a lane's K data (its 16-byte
// chunks tig, tig + 4, ...: a quad reads 64 contiguous bytes of a row per load) holds
// elements gk_dec3_kd(tig, w) and + 1, and Q is packed the same way; column n of the
// P V d-tile j is element gk_dec3_vd(j, n) (a lane's V data: chunks gid, gid + 8)
__device__ __forceinline__ int gk_dec3_kd(int tig, int w) { return 8 * (4 * (w >> 2) + tig) + 2 * (w & 3); }
__device__ __forceinline__ int gk_dec3_vd(int j, int n) { return 64 * (j >> 3) + 8 * n + (j & 7); }
template <int DT> __device__ __forceinline__ unsigned gk_dec3_pack(float lo, float hi) {
    unsigned r;
    if (DT == GK_DT_bf16) asm("cvt.rn.bf16x2.f32 %0, %2, %1;\n" : "=r"(r) : "f"(lo), "f"(hi));
    else asm("cvt.rn.f16x2.f32 %0, %2, %1;\n" : "=r"(r) : "f"(lo), "f"(hi));
    return r;
}
// online softmax step of a warp's 16-key block (gk_attn_dec3 / gk_attn_dec4t): sc the
// lane's 4 scores (keys 2 tig, 2 tig + 1, 8 + 2 tig, 9 + 2 tig of head gid; base 2, -inf
// where masked); m the running max of head gid, l this lane's part of its sum. Gives
// the factor o is rescaled by and the A fragment of P (pa0: keys 0..7, pa2: keys 8..15).
template <int DT> __device__ __forceinline__ float gk_dec_softmax(const float (&sc)[2][2], float &m, float &l, unsigned &pa0, unsigned &pa2) {
    const float NEG = -__int_as_float(0x7f800000);
    float mx = fmaxf(fmaxf(sc[0][0], sc[0][1]), fmaxf(sc[1][0], sc[1][1]));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 1));
    mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, 2));
    const float mn = fmaxf(m, mx);
    float corr = 1.0f, pe[2][2] = { { 0.0f, 0.0f }, { 0.0f, 0.0f } };
    if (mn != NEG) { // some key of this warp scored: m stays -inf (and o, l zero) until then
        corr = exp2f(m - mn);
#pragma unroll
        for (int r = 0; r < 2; r++) { pe[r][0] = exp2f(sc[r][0] - mn); pe[r][1] = exp2f(sc[r][1] - mn); }
    }
    m = mn;
    l = l * corr + ((pe[0][0] + pe[0][1]) + (pe[1][0] + pe[1][1]));
    pa0 = gk_dec3_pack<DT>(pe[0][0], pe[0][1]);
    pa2 = gk_dec3_pack<DT>(pe[1][0], pe[1][1]);
    return corr;
}
// The splits of a (b, kv head) combined by the decode blocks themselves (p.slot set: no
// gk_attn_combine launch, no partial results in p.part). The host asks for this only where
// every block of the grid is resident at once (one wave), so a block may wait for others.
// Each split publishes a word a (q head g, dim d), {o / l, m + log2 l} as the two f32 halves
// of one 64-bit word (its normalised output and log-sum-exp, base 2; gk_dec_publish), split
// s's at slot[((bk * G + g) * splits + s) * D + d], bk = b * Hkv + hk. (A word a consumer
// warp of gk_attn_dec4t, with no merge in the block, would give 4 times the words to poll
// and merge, and is slower: docs/perf-log.md.) Between
// kernels every word holds GK_DEC_EMPTY, which no split writes (both halves a NaN payload
// that f32 arithmetic never gives: the GPU's NaNs are canonical). Block `split` of the ns
// splits that hold keys then takes the outputs
// [split * E / ns, (split + 1) * E / ns) of the E = G * D (gk_dec_fold): it polls their ns
// words with relaxed 64-bit loads (one access carries the value and the fact that it was
// written: no fence, counter or second round of loads), writes GK_DEC_EMPTY back over each
// word it took, merges them (log-sum-exp) and writes the output. So the splits' last step
// costs a round trip through L2 instead of a kernel boundary and a second kernel. These
// epilogues run on 4 warps a SM, one a scheduler, where every instruction's latency shows:
// hence 32-bit index arithmetic, no division in the loops, and the largest log-sum-exp
// taken before the weights. A word that has not come after a second (only if the words
// were shared with other work, e.g. two streams at once, which they must not be) gives NaN
// outputs rather than a hang.
#define GK_DEC_EMPTY 0x7fbadbad7fbadbadull
__device__ __forceinline__ unsigned long long gk_gtime(void) {
    unsigned long long t;
    asm volatile("mov.u64 %0, %globaltimer;\n" : "=l"(t));
    return t;
}
__device__ __forceinline__ unsigned long long gk_dec_pack(float o, float lse) {
    return ((unsigned long long)__float_as_uint(lse) << 32) | __float_as_uint(o);
}
__device__ __forceinline__ unsigned long long gk_ld_relaxed64(const unsigned long long *a) {
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];\n" : "=l"(v) : "l"(a) : "memory");
    return v;
}
__device__ __forceinline__ void gk_st_relaxed64(unsigned long long *a, unsigned long long v) {
    asm volatile("st.relaxed.gpu.global.b64 [%0], %1;\n" ::"l"(a), "l"(v) : "memory");
}
template <int BAR> __device__ __forceinline__ void gk_dec_bar(int nt) {
    if (BAR == 0) __syncthreads();
    else asm volatile("bar.sync 1, %0;\n" ::"r"(nt) : "memory");
}
template <int DT, int D, int NT>
__device__ __forceinline__ void gk_dec_fold(const gk_attn_p &p, int G, gk_i64 b, gk_i64 hk, gk_i64 split, int tid) {
    typedef gk_ty<DT> T;
    enum { PRE = 8, LD = D == 64 ? 6 : 7 };
    const float NEG = -__int_as_float(0x7f800000);
    const int ns = gk_attn_nsplit(p, b), E = G * D, sp = (int)split, spl = p.splits;
    const int e0 = sp * E / ns, ne = (sp + 1) * E / ns - e0;
    // ngrp = 2^lg adjacent threads an output (up to 32), each taking every ngrp-th split, NT / ngrp
    // outputs a pass (more than one pass only where a split has more than NT outputs)
    int lg = 0;
    while (lg < 5 && (ne << (lg + 1)) <= NT) lg++;
    const int ngrp = 1 << lg, sg = tid & (ngrp - 1);
    const unsigned long long *sb = p.slot + (b * p.Hkv + hk) * (gk_i64)(G * spl * D);
    for (int i0 = 0; i0 < ne; i0 += NT >> lg) {
        const int ii = i0 + (tid >> lg), e = e0 + ii, g = e >> LD;
        const unsigned long long *wb = sb + ((g * spl) << LD) + (e & (D - 1)); // split s's word at wb + (s << LD)
        float M = NEG, A = 0.0f, S = 0.0f;
        bool lost = false;
        // PRE of this thread's splits at a time: polled until written (relaxed loads, all in flight, then
        // looked at), each emptied again, then merged into (M, A, S) with one rescale a batch
        for (int s0 = sg; ii < ne && s0 < ns; s0 += PRE * ngrp) {
            unsigned long long v[PRE];
            unsigned todo = 0, seen = 0;
#pragma unroll
            for (int j = 0; j < PRE; j++)
                if (s0 + j * ngrp < ns) todo |= 1u << j;
            const unsigned long long t0 = gk_gtime();
            while (todo) {
                if (gk_gtime() - t0 > 1000000000ull) { lost = true; break; } // (a second: see above)
#pragma unroll
                for (int j = 0; j < PRE; j++)
                    if (todo & (1u << j)) v[j] = gk_ld_relaxed64(wb + ((s0 + j * ngrp) << LD));
#pragma unroll
                for (int j = 0; j < PRE; j++)
                    if ((todo & (1u << j)) && v[j] != GK_DEC_EMPTY) {
                        gk_st_relaxed64((unsigned long long *)wb + ((s0 + j * ngrp) << LD), GK_DEC_EMPTY); // empty again for the next kernel
                        todo &= ~(1u << j);
                        seen |= 1u << j;
                    }
            }
            float mb = NEG;
#pragma unroll
            for (int j = 0; j < PRE; j++)
                if (seen & (1u << j)) mb = fmaxf(mb, __uint_as_float((unsigned)(v[j] >> 32)));
            if (mb == NEG) continue; // (no visible key in these splits)
            const float mn = fmaxf(M, mb), c = exp2f(M - mn); // (M -inf: c 0)
            A *= c;
            S *= c;
#pragma unroll
            for (int j = 0; j < PRE; j++)
                if (seen & (1u << j)) {
                    const float wt = exp2f(__uint_as_float((unsigned)(v[j] >> 32)) - mn);
                    A = fmaf(wt, __uint_as_float((unsigned)v[j]), A);
                    S += wt;
                }
            M = mn;
        }
        // across the group: the largest M, each lane's sums rescaled to it, then summed
        float mg = M;
        for (int off = 1; off < ngrp; off <<= 1) mg = fmaxf(mg, __shfl_xor_sync(0xffffffffu, mg, off));
        const float c = M == NEG ? 0.0f : exp2f(M - mg);
        A *= c;
        S *= c;
        for (int off = 1; off < ngrp; off <<= 1) {
            A += __shfl_xor_sync(0xffffffffu, A, off);
            S += __shfl_xor_sync(0xffffffffu, S, off);
        }
        for (int off = 1; off < ngrp; off <<= 1) lost |= __shfl_xor_sync(0xffffffffu, (int)lost, off) != 0;
        if (sg == 0 && ii < ne) {
            typename T::S *out = (typename T::S *)p.o + b * p.o_bs + (hk * G + g) * p.o_hs;
            out[e & (D - 1)] = T::st((typename T::C)(lost ? __int_as_float(0x7fffffff) : S > 0.0f ? __fdividef(A, S) : 0.0f));
        }
    }
}
// gk_dec_merge's work where the splits combine themselves (p.slot): the warps' (m, l) of
// each head turned into weights first (thread g < G for head g, in place: sm_m[u][g] becomes
// warp u's weight over the head's sum, sm_l[g] the head's log-sum-exp, base 2), then each
// output's weighted sum goes out as gk_dec_fold's word {o / l, lse}. Then gk_dec_fold.
template <int DT, int D, int NW, int BAR, int OS = D>
__device__ __forceinline__ void gk_dec_publish(const gk_attn_p &p, float *sm_m, float *sm_l, float *sm_o, int G, gk_i64 b, gk_i64 hk, gk_i64 split,
                                               int tid) {
    enum { NT = 32 * NW, LD = D == 64 ? 6 : 7 };
    const float NEG = -__int_as_float(0x7f800000);
    if (tid < G) {
        float M = NEG, L = 0.0f, wt[NW];
#pragma unroll
        for (int u = 0; u < NW; u++) M = fmaxf(M, sm_m[u * 8 + tid]);
#pragma unroll
        for (int u = 0; u < NW; u++) {
            wt[u] = M == NEG ? 0.0f : exp2f(sm_m[u * 8 + tid] - M); // (0 for a warp of no visible key)
            L = fmaf(wt[u], sm_l[u * 8 + tid], L);
        }
        const float inv = L > 0.0f ? __fdividef(1.0f, L) : 0.0f;
#pragma unroll
        for (int u = 0; u < NW; u++) sm_m[u * 8 + tid] = wt[u] * inv;
        sm_l[tid] = L > 0.0f ? M + __log2f(L) : NEG;
    }
    gk_dec_bar<BAR>(NT);
    unsigned long long *sb = p.slot + (((b * p.Hkv + hk) * G * p.splits + split) << LD);
#pragma unroll
    for (int k = 0; k < 8 * D / NT; k++) { // (unrolled: every output's loads in flight together)
        const int e = tid + NT * k, g = e >> LD, d = e & (D - 1);
        if (g >= G) break;
        float acc = 0.0f;
#pragma unroll
        for (int u = 0; u < NW; u++) acc = fmaf(sm_m[u * 8 + g], sm_o[(u * 8 + g) * OS + d], acc);
        gk_st_relaxed64(sb + ((g * p.splits) << LD) + d, gk_dec_pack(acc, sm_l[g]));
    }
    gk_dec_fold<DT, D, NT>(p, G, b, hk, split, tid);
}
// the NW warps of a decode block merged (after a barrier): sm_m / sm_l [NW][8] and sm_o
// [NW][8][OS >= D] hold each warp's max (base 2), sum and o of its heads, in natural d order.
// Per head the largest max, the others' (l, o) rescaled to it; the split's (m, l, o)
// go to p.part for gk_attn_combine (m in natural-log units), or with one split (p.part
// null) the output itself, as gk_attn_combine writes it. Threads tid of nt take the
// G * D outputs.
template <int DT, int D, int NW, int OS = D>
__device__ __forceinline__ void gk_dec_merge(const gk_attn_p &p, const float *sm_m, const float *sm_l, const float *sm_o, int G, gk_i64 b, gk_i64 hk,
                                             gk_i64 split, int tid, int nt) {
    const float NEG = -__int_as_float(0x7f800000);
    for (int e = tid; e < G * D; e += nt) {
        const int g = e / D, d = e - g * D;
        float M = NEG, acc = 0.0f, L = 0.0f;
#pragma unroll
        for (int u = 0; u < NW; u++) M = fmaxf(M, sm_m[u * 8 + g]);
#pragma unroll
        for (int u = 0; u < NW; u++) {
            const float wt = sm_m[u * 8 + g] == NEG ? 0.0f : exp2f(sm_m[u * 8 + g] - M);
            acc += wt * sm_o[(u * 8 + g) * OS + d];
            L += wt * sm_l[u * 8 + g];
        }
        if (!p.part) {
            typedef gk_ty<DT> T;
            typename T::S *out = (typename T::S *)p.o + b * p.o_bs + (hk * G + g) * p.o_hs;
            out[d] = T::st((typename T::C)(L > 0.0f ? acc / L : 0.0f));
            continue;
        }
        float *part = p.part + ((b * p.Hq + hk * G + g) * p.splits + split) * (p.D + 2);
        if (d == 0) { part[0] = M == NEG ? NEG : M * 0.69314718055994531f; part[1] = L; }
        part[2 + d] = acc;
    }
}
// q head gid of kv head hk's group (rows >= G zero) as the A fragments of KS k-steps: raw
// 16-bit pairs of d 2 tig (+1) and 8 + 2 tig (+1) of each step, in the natural d order
// (PERM 0, gk_attn_dec4t) or gk_attn_dec3's (PERM 1, words 2 s and 2 s + 1 of gk_dec3_kd)
template <int KS, int PERM>
__device__ __forceinline__ void gk_dec_qfrag(const gk_attn_p &p, gk_i64 b, gk_i64 hk, int G, int gid, int tig, unsigned (&qa)[KS][2]) {
    const gk_u16 *qr = (const gk_u16 *)p.q + b * p.q_bs + (hk * G + (gid < G ? gid : 0)) * p.q_hs;
#pragma unroll
    for (int s = 0; s < KS; s++) {
        const int e0 = PERM ? gk_dec3_kd(tig, 2 * s) : 16 * s + 2 * tig, e1 = PERM ? gk_dec3_kd(tig, 2 * s + 1) : e0 + 8;
        qa[s][0] = gid < G ? (unsigned)qr[e0] | ((unsigned)qr[e0 + 1] << 16) : 0u;
        qa[s][1] = gid < G ? (unsigned)qr[e1] | ((unsigned)qr[e1 + 1] << 16) : 0u;
    }
}
template <int DT, int D> __device__ __forceinline__ void gk_attn_dec3(const gk_attn_p &p) {
    enum { KC = D / 4, ND = D / 8, KS = D / 16, KV4 = KC / 8, VV4 = (ND + 7) / 8, NW = 4 };
    __shared__ float sm_m[NW][8], sm_l[NW][8], sm_o[NW][8][D];
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, gid = lane >> 2, tig = lane & 3, G = (int)(p.Hq / p.Hkv);
    const gk_i64 b = blockIdx.z, hk = blockIdx.x, split = blockIdx.y;
    const float NEG = -__int_as_float(0x7f800000), sl2 = p.scale * 1.4426950408889634f;
    gk_i64 j0, j1;
    const gk_u16 *kb, *vb;
    gk_dec_l2_rows(p, b, hk, split, threadIdx.x, blockDim.x);
    if (!gk_dec_begin(p, b, hk, split, j0, j1, kb, vb)) return;
    // this lane's quarter of q head gid as A fragments (raw 16-bit pairs; rows >= G zero)
    unsigned qa[KS][2];
    gk_dec_qfrag<KS, 1>(p, b, hk, G, gid, tig, qa);
    float o[ND][2], m = NEG, l = 0.0f;
#pragma unroll
    for (int j = 0; j < ND; j++) o[j][0] = o[j][1] = 0.0f;
    // K rows gid, 8 + gid and V rows 2 tig, 2 tig + 1, 8 + 2 tig, 9 + 2 tig of the block at jb
    // (rows at or past j1 zero, not read)
    auto load = [&](gk_i64 jb, uint4 (&kx)[2][KV4], uint4 (&vx)[4][VV4]) {
#pragma unroll
        for (int r = 0; r < 2; r++) {
            const gk_i64 key = jb + 8 * r + gid;
            const uint4 *src = (const uint4 *)(kb + key * p.k_ss);
#pragma unroll
            for (int i = 0; i < KV4; i++) kx[r][i] = key < j1 ? __ldg(src + 4 * i + tig) : make_uint4(0u, 0u, 0u, 0u);
        }
#pragma unroll
        for (int r = 0; r < 4; r++) {
            const gk_i64 key = jb + 2 * tig + (r & 1) + 8 * (r >> 1);
            const uint4 *src = (const uint4 *)(vb + key * p.v_ss);
#pragma unroll
            for (int i = 0; i < VV4; i++) vx[r][i] = key < j1 ? __ldg(src + 8 * i + gid) : make_uint4(0u, 0u, 0u, 0u);
        }
    };
    // two blocks in registers: the next block's loads are in flight while this one is computed
    uint4 kx[2][KV4], vx[4][VV4], kn[2][KV4], vn[4][VV4];
    load(j0 + 16 * w, kx, vx);
    for (gk_i64 jb = j0 + 16 * w; jb < j1; jb += 16 * NW) {
        load(jb + 16 * NW, kn, vn);
        // scores of keys jb + 8 r + 2 tig + e, head gid
        float sc[2][2];
#pragma unroll
        for (int r = 0; r < 2; r++) {
            const unsigned *kw = (const unsigned *)&kx[r][0];
            float c0 = 0.0f, c1 = 0.0f;
#pragma unroll
            for (int s = 0; s < KS; s++) gk_dec3_mma<DT>(c0, c1, qa[s][0], qa[s][1], kw[2 * s], kw[2 * s + 1]);
            const gk_i64 key = jb + 8 * r + 2 * tig;
            sc[r][0] = key < j1 ? c0 * sl2 : NEG;
            sc[r][1] = key + 1 < j1 ? c1 * sl2 : NEG;
        }
        unsigned pa0, pa2;
        const float corr = gk_dec_softmax<DT>(sc, m, l, pa0, pa2);
        const unsigned *v0 = (const unsigned *)&vx[0][0], *v1 = (const unsigned *)&vx[1][0], *v2 = (const unsigned *)&vx[2][0],
                       *v3 = (const unsigned *)&vx[3][0];
#pragma unroll
        for (int j = 0; j < ND; j++) {
            const unsigned sel = (j & 1) ? 0x7632u : 0x5410u;
            const unsigned b0 = __byte_perm(v0[j >> 1], v1[j >> 1], sel), b1 = __byte_perm(v2[j >> 1], v3[j >> 1], sel);
            o[j][0] *= corr;
            o[j][1] *= corr;
            gk_dec3_mma<DT>(o[j][0], o[j][1], pa0, pa2, b0, b1);
        }
#pragma unroll
        for (int r = 0; r < 2; r++)
#pragma unroll
            for (int i = 0; i < KV4; i++) kx[r][i] = kn[r][i];
#pragma unroll
        for (int r = 0; r < 4; r++)
#pragma unroll
            for (int i = 0; i < VV4; i++) vx[r][i] = vn[r][i];
    }
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);
    // the block's 4 warps merge: per head the largest m, the others' (l, o) rescaled to it
    if (gid < G) {
        if (tig == 0) { sm_m[w][gid] = m; sm_l[w][gid] = l; }
#pragma unroll
        for (int j = 0; j < ND; j++) {
            sm_o[w][gid][gk_dec3_vd(j, 2 * tig)] = o[j][0];
            sm_o[w][gid][gk_dec3_vd(j, 2 * tig + 1)] = o[j][1];
        }
    }
    __syncthreads();
    if (p.slot) gk_dec_publish<DT, D, NW, 0>(p, &sm_m[0][0], &sm_l[0][0], &sm_o[0][0][0], G, b, hk, split, threadIdx.x);
    else gk_dec_merge<DT, D, NW>(p, &sm_m[0][0], &sm_l[0][0], &sm_o[0][0][0], G, b, hk, split, threadIdx.x, blockDim.x);
}
#define GK_DEC3_K(DTN, D) \
    extern "C" __global__ void __launch_bounds__(128, 2) gk_attn_dec3_##DTN##_##D(gk_attn_p p) { gk_attn_dec3<GK_DT_##DTN, D>(p); }
GK_DEC3_K(f16, 64)
GK_DEC3_K(f16, 128)
GK_DEC3_K(bf16, 64)
GK_DEC3_K(bf16, 128)

// ---- decode on Hopper (sm_90+; Sq == 1, 16-bit, D 64 or 128, G <= 8): gk_attn_dec4t_<dt>_<D>.
// gk_attn_dec3's math fed by the copy engine instead of the warps' own loads: a block
// per (b, kv head, split) of NC consumer warps and one producer warp. The producer
// streams the split through a ring of p.tile stages in shared memory, a stage being
// KB = 16 NC keys of K and of V as tiles of 64 keys x 64 dims through the tensor maps
// tk / tv (cp.async.bulk.tensor; 4-d {D, S, Hkv, B}, box {64, 64, 1, 1}, 128-byte
// swizzle), 2 D / 64 copies a stage, all completing on the stage's full barrier;
// consumer warp w takes keys 16 w .. 16 w + 15 of every stage and frees the stage on
// its empty barrier. So the bytes in flight are
// the ring's (stages x KB x 4 D bytes a block) and not what the warps' registers hold,
// which bounds gk_attn_dec3 (two 16-key blocks a warp, 254 registers, 8 warps a SM).
// Per 16-key block, with lane = 4 gid + tig (mma.m16n8k16 fragments), d in natural order:
//  S = Q K^T: A = q head gid (rows >= G zero); B = K^T from ldmatrix.x4 of key rows
//    0..7 / 8..15 (the two n-tiles) at d 16 s .. 16 s + 15 (k-step s).
//  online softmax as gk_attn_dec3 (gk_dec_softmax); keys at or past the split's end
//    score -inf and their V rows (stale ring contents) are masked to zero.
//  O += P V: B = V from ldmatrix.x4.trans, d-tiles j and j + 1 (keys 0..7 / 8..15).
// At the end the consumers merge through shared memory (the ring, reused) and write
// the split's (m, l, o) or, with one split, the output (gk_dec_merge).
// The tiles are read by ldmatrix with the swizzle applied (conflict-free: the 8 rows of a
// matrix hold one logical chunk in 8 physical ones).
// Shared memory (dynamic): the ring [stages][K, V][D / 64][KB][128 bytes], 1024-byte aligned,
// then the full and empty barriers [stages] each; the host sizes it and the split count
// (gk__occupancy).
// one warp's 16 keys of a stage of gk_attn_dec4t's ring in shared memory, this lane's
// ldmatrix rows at ka (K) and va (V); nv of the 16 keys are inside the split (> 0): scores
// S = Q K^T from ldmatrix.x4 of key rows 0..7 / 8..15 (the two n-tiles) at d 16 s ..
// 16 s + 15 (k-step s), online softmax (gk_dec_softmax; keys past the split -inf, their
// V rows, stale or zero, masked to zero), O += P V with B from ldmatrix.x4.trans, d-tiles
// j and j + 1. The stage is in 128-byte column blocks of CB bytes, 16-byte chunk c of a
// row at c ^ (row & 7) (sw: this lane's row & 7).
template <int DT, int D, int CB>
__device__ __forceinline__ void gk_dec_sblock(unsigned ka, unsigned va, unsigned kc, unsigned vc, unsigned sw, int nv, int tig, float sl2,
                                              const unsigned (&qa)[D / 16][2], float (&o)[D / 8][2], float &m, float &l) {
    enum { KS = D / 16, ND = D / 8 };
    const float NEG = -__int_as_float(0x7f800000);
    float c[2][2] = { { 0.0f, 0.0f }, { 0.0f, 0.0f } }, sc[2][2];
#pragma unroll
    for (int s = 0; s < KS; s++) {
        unsigned r[4];
        gk_ldsm(r, ka + ((unsigned)((s >> 2) * CB) + (((2u * (s & 3) + kc) ^ sw) << 4)));
        gk_dec3_mma<DT>(c[0][0], c[0][1], qa[s][0], qa[s][1], r[0], r[1]);
        gk_dec3_mma<DT>(c[1][0], c[1][1], qa[s][0], qa[s][1], r[2], r[3]);
    }
#pragma unroll
    for (int r = 0; r < 2; r++) {
        sc[r][0] = 8 * r + 2 * tig < nv ? c[r][0] * sl2 : NEG;
        sc[r][1] = 8 * r + 2 * tig + 1 < nv ? c[r][1] * sl2 : NEG;
    }
    unsigned pa0, pa2, mk0 = 0xffffffffu, mk1 = 0xffffffffu;
    const float corr = gk_dec_softmax<DT>(sc, m, l, pa0, pa2);
    if (nv < 16) { // V rows past the split's end hold stale data (maybe NaN): zero them
        mk0 = (2 * tig < nv ? 0x0000ffffu : 0u) | (2 * tig + 1 < nv ? 0xffff0000u : 0u);
        mk1 = (8 + 2 * tig < nv ? 0x0000ffffu : 0u) | (9 + 2 * tig < nv ? 0xffff0000u : 0u);
    }
#pragma unroll
    for (int j = 0; j < ND; j += 2) {
        unsigned r[4];
        gk_ldsm_t(r, va + ((unsigned)((j >> 3) * CB) + ((((unsigned)(j & 7) + vc) ^ sw) << 4)));
        o[j][0] *= corr; o[j][1] *= corr; o[j + 1][0] *= corr; o[j + 1][1] *= corr;
        gk_dec3_mma<DT>(o[j][0], o[j][1], pa0, pa2, r[0] & mk0, r[1] & mk1);
        gk_dec3_mma<DT>(o[j + 1][0], o[j + 1][1], pa0, pa2, r[2] & mk0, r[3] & mk1);
    }
}
#define GK_DEC4_NC 4
template <int DT, int D>
__device__ __forceinline__ void gk_attn_dec4t(const gk_attn_p &p, const gk_tmap *tk, const gk_tmap *tv) {
#if defined(GK_SM90)
    // TILE: one operand's bytes a stage: D / 64 column blocks of KB rows x 128 bytes,
    // 128-byte swizzle (16-byte chunk c of row r at chunk c ^ (r & 7); the ring starts
    // 1024-byte aligned)
    enum { NC = GK_DEC4_NC, KB = 16 * NC, RS = 128, CB = KB * 128, TILE = (D / 64) * CB, KS = D / 16, ND = D / 8 };
    extern __shared__ __align__(128) unsigned char gk_dec4_sm[];
    const int S = p.tile, lane = threadIdx.x & 31, w = threadIdx.x >> 5, gid = lane >> 2, tig = lane & 3, G = (int)(p.Hq / p.Hkv);
    const unsigned raw = gk_smem(gk_dec4_sm), ring = (raw + 1023u) & ~1023u;
    const unsigned full = ring + (unsigned)(S * 2 * TILE), empty = full + 8u * (unsigned)S;
    const gk_i64 b = blockIdx.z, hk = blockIdx.x, split = blockIdx.y;
    const float NEG = -__int_as_float(0x7f800000), sl2 = p.scale * 1.4426950408889634f;
    if (threadIdx.x == 32 * NC) { // the tensor maps' descriptors fetched while the block starts
        asm volatile("prefetch.tensormap [%0];\n" ::"l"((gk_u64)tk) : "memory");
        asm volatile("prefetch.tensormap [%0];\n" ::"l"((gk_u64)tv) : "memory");
        if (p.pf > 0) { // the split's first tiles into L2 before the PDL wait (gk_dec_hint_range)
            gk_i64 h0, h1;
            gk_dec_hint_range(p, b, split, h0, h1);
            for (gk_i64 jt = h0; jt < h1; jt += KB)
#pragma unroll
                for (int cb = 0; cb < D / 64; cb++) {
                    gk_tma_prefetch4(tk, 64 * cb, (int)jt, (int)hk, (int)b);
                    gk_tma_prefetch4(tv, 64 * cb, (int)jt, (int)hk, (int)b);
                }
        }
    }
    if (threadIdx.x == 0) {
        for (int s = 0; s < S; s++) {
            gk_bar_init(full + 8u * s, 1);
            gk_bar_init(empty + 8u * s, NC * 32);
        }
        gk_bar_init_fence();
    }
    __syncthreads();
    gk_i64 j0, j1;
    const gk_u16 *kb, *vb;
    if (!gk_dec_begin(p, b, hk, split, j0, j1, kb, vb)) return;
    if (w == NC) { // producer: stage after stage, each slot once its consumers freed it
        int slot = 0;
        unsigned ph = 0;
        for (gk_i64 jt = j0; jt < j1; jt += KB) {
            const unsigned kd = ring + (unsigned)(slot * 2 * TILE), fb = full + 8u * slot;
            gk_bar_wait(empty + 8u * slot, ph ^ 1u);
            if (lane == 0) { // whole boxes (keys past the split are read, or zero past the cache, and masked)
                gk_bar_expect(fb, (unsigned)(2 * TILE));
#pragma unroll
                for (int cb = 0; cb < D / 64; cb++) {
                    gk_tma_load4(kd + (unsigned)(cb * CB), tk, 64 * cb, (int)jt, (int)hk, (int)b, fb);
                    gk_tma_load4(kd + (unsigned)(TILE + cb * CB), tv, 64 * cb, (int)jt, (int)hk, (int)b, fb);
                }
            }
            if (++slot == S) { slot = 0; ph ^= 1u; }
        }
        return;
    }
    // consumers: q head gid as A fragments (k-step s: d 16 s + 2 tig (+1) and 16 s + 8 + 2 tig (+1))
    unsigned qa[KS][2];
    gk_dec_qfrag<KS, 0>(p, b, hk, G, gid, tig, qa);
    float o[ND][2], m = NEG, l = 0.0f;
#pragma unroll
    for (int j = 0; j < ND; j++) o[j][0] = o[j][1] = 0.0f;
    // this lane's ldmatrix row within the warp's 16 keys: K, matrices (keys 0..7 | 8..15) x (d +0 | +8);
    // V (.trans), matrices (keys 0..7 | 8..15) x (d-tile j | j + 1)
    // (tensor tiles: the chunk swizzled by the row's low bits, which are lane & 7)
    const unsigned koff = (unsigned)((16 * w + (lane & 7) + 8 * (lane >> 4)) * RS), kc = (lane >> 3) & 1;
    const unsigned voff = (unsigned)(TILE + (16 * w + (lane & 7) + 8 * ((lane >> 3) & 1)) * RS), vc = lane >> 4, sw = lane & 7;
    int slot = 0;
    unsigned ph = 0;
    for (gk_i64 jt = j0; jt < j1; jt += KB) {
        const unsigned st = ring + (unsigned)(slot * 2 * TILE);
        const gk_i64 left = j1 - jt - 16 * w;
        const int nv = left < 16 ? (int)left : 16; // keys of this warp's 16 inside the split (<= 0: none)
        gk_bar_wait(full + 8u * slot, ph);
        if (nv > 0) gk_dec_sblock<DT, D, CB>(st + koff, st + voff, kc, vc, sw, nv, tig, sl2, qa, o, m, l);
        gk_bar_arrive(empty + 8u * slot); // every consumer thread: this warp is done with the stage
        if (++slot == S) { slot = 0; ph ^= 1u; }
    }
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);
    // merge the consumer warps through shared memory: the ring is free once all of them are past it (rows of
    // sm_o padded by 8 floats, so that the G heads' float2 stores fall in distinct banks)
    float *sm_m = (float *)gk_dec4_sm, *sm_l = sm_m + NC * 8, *sm_o = sm_l + NC * 8;
    asm volatile("bar.sync 1, %0;\n" ::"n"(NC * 32) : "memory");
    if (gid < G) {
        if (tig == 0) { sm_m[w * 8 + gid] = m; sm_l[w * 8 + gid] = l; }
#pragma unroll
        for (int j = 0; j < ND; j++) *(float2 *)&sm_o[(w * 8 + gid) * (D + 8) + 8 * j + 2 * tig] = make_float2(o[j][0], o[j][1]);
    }
    asm volatile("bar.sync 1, %0;\n" ::"n"(NC * 32) : "memory");
    if (p.slot) gk_dec_publish<DT, D, NC, 1, D + 8>(p, sm_m, sm_l, sm_o, G, b, hk, split, threadIdx.x);
    else gk_dec_merge<DT, D, NC, D + 8>(p, sm_m, sm_l, sm_o, G, b, hk, split, threadIdx.x, NC * 32);
#else
    (void)p; (void)tk; (void)tv; // launched only on sm_90+ (gpukit.h)
#endif
}
#define GK_DEC4T_K(DTN, D) \
    extern "C" __global__ void __launch_bounds__(32 * (GK_DEC4_NC + 1)) \
        gk_attn_dec4t_##DTN##_##D(const __grid_constant__ gk_tmap tk, const __grid_constant__ gk_tmap tv, const __grid_constant__ gk_attn_p p) { \
        gk_attn_dec4t<GK_DT_##DTN, D>(p, &tk, &tv); \
    }
GK_DEC4T_K(f16, 64)
GK_DEC4T_K(f16, 128)
GK_DEC4T_K(bf16, 64)
GK_DEC4T_K(bf16, 128)
