// sample.cu - top-k over the last dim and token sampling from logits.
// Both order elements by a 64-bit composite key: the order-preserving bits of
// the f32 value (NaN above +inf) in the high word, the complement of the
// index in the low word, so "larger key" means larger value, ties by lower
// index, and every key is distinct. One block per row: a radix select (8-bit
// digits, shared histograms) finds the k-th largest key, the selected keys
// are gathered and bitonic-sorted (shared memory up to 4096, else the
// workspace). Sampling follows exactly the algorithm of gk__sample_cpu in
// gpukit.h (integer weights, so any summation order gives the same result):
// gk_sample_rows with one block per row, or, for long rows, the kernels of
// "sampling over many blocks per row" at the end (parts of a row in separate
// blocks, then one small block per row).
#include "gk_common.cuh"

#define GK_SMEM_SORT 4096

__device__ __forceinline__ gk_u32 gk_fkey(float f) {
    gk_u32 u = (gk_u32)__float_as_int(f);
    if (f != f) return 0xFFFFFFFFu;
    return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}
__device__ __forceinline__ gk_u64 gk_comp(float f, int i) { return ((gk_u64)gk_fkey(f) << 32) | (gk_u64)(~(gk_u32)i); }

// the k-th largest (1-based) of n distinct keys get(i); every key >= the
// result is selected (exactly k of them). skip: first find the bits where all
// keys agree (a reduction over the keys) and skip the digits made of them
// (16-bit floats: the low half of the value word; the high index bits of a
// part), which would leave every live key in one bin.
template <class F> __device__ __forceinline__ gk_u64 gk_radix_select(F get, int n, int k, bool skip = false) {
    __shared__ unsigned hist[256];
    __shared__ gk_u64 sh[3], sor[32], sand[32];
    gk_u64 prefix = 0, mask = 0, vary = ~0ull, all = 0;
    if (skip) {
        gk_u64 o = 0, a = ~0ull;
        int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            gk_u64 c = get(i);
            o |= c;
            a &= c;
        }
        for (int off = 16; off > 0; off >>= 1) {
            o |= __shfl_xor_sync(0xFFFFFFFFu, o, off);
            a &= __shfl_xor_sync(0xFFFFFFFFu, a, off);
        }
        __syncthreads();
        if (lane == 0) { sor[w] = o; sand[w] = a; }
        __syncthreads();
        o = 0;
        a = ~0ull;
        for (int q = 0; q < nw; q++) { o |= sor[q]; a &= sand[q]; }
        vary = o ^ a; // bits that differ somewhere
        all = a;      // elsewhere: the bits every key has
    }
    for (int shift = 56; shift >= 0; shift -= 8) {
        if (((vary >> shift) & 255) == 0) { // one digit for every key: nothing to count
            prefix |= all & ((gk_u64)255 << shift);
            mask |= (gk_u64)255 << shift;
            continue;
        }
        for (int i = threadIdx.x; i < 256; i += blockDim.x) hist[i] = 0;
        __syncthreads();
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            // warp-aggregated: lanes with the same digit add once (logits share few exponents)
            gk_u64 c = get(i);
            int bin = (c & mask) == prefix ? (int)((c >> shift) & 255) : -1;
            unsigned live = __ballot_sync(__activemask(), bin >= 0); // later passes: few lanes match
            if (bin >= 0) {
                unsigned peers = __match_any_sync(live, bin);
                if ((int)(threadIdx.x & 31) == __ffs(peers) - 1) atomicAdd(&hist[bin], (unsigned)__popc(peers));
            }
        }
        __syncthreads();
        if (threadIdx.x < 32) {
            // the digit where the count from the top reaches k: lane l sums digits 255 - 8l ... 248 - 8l,
            // a warp scan finds the lane, that lane its digit (as a serial scan from 255 down would)
            int lane = (int)threadIdx.x;
            unsigned h[8], s = 0;
#pragma unroll
            for (int q = 0; q < 8; q++) { h[q] = hist[255 - 8 * lane - q]; s += h[q]; }
            unsigned inc = s;
            for (int off = 1; off < 32; off <<= 1) {
                unsigned t = __shfl_up_sync(0xFFFFFFFFu, inc, off);
                if (lane >= off) inc += t;
            }
            unsigned ball = __ballot_sync(0xFFFFFFFFu, inc >= (unsigned)k); // lane 31 holds every live key (>= k)
            if (lane == __ffs(ball) - 1) {
                unsigned cum = inc - s;
#pragma unroll
                for (int q = 0; q < 8; q++) {
                    if (cum + h[q] >= (unsigned)k) {
                        sh[0] = prefix | ((gk_u64)(255 - 8 * lane - q) << shift);
                        sh[1] = (gk_u64)(k - (int)cum);
                        sh[2] = h[q];
                        break;
                    }
                    cum += h[q];
                }
            }
        }
        __syncthreads();
        prefix = sh[0];
        k = (int)sh[1];
        gk_u64 cnt = sh[2];
        mask |= (gk_u64)255 << shift;
        __syncthreads();
        if (cnt == (gk_u64)k) break; // every key with this prefix is selected
    }
    return prefix;
}
// counts (buf NULL) or gathers into buf the keys >= t whose index passes keep(i); returns the count
template <class F, class P> __device__ __forceinline__ int gk_gather(F get, P keep, int n, gk_u64 t, gk_u64 *buf) {
    __shared__ int cnt;
    __syncthreads();
    if (threadIdx.x == 0) cnt = 0;
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        gk_u64 c = get(i);
        if (c >= t && keep(i)) {
            int pos = atomicAdd(&cnt, 1);
            if (buf) buf[pos] = c;
        }
    }
    __syncthreads();
    int r = cnt;
    __syncthreads();
    return r;
}
// pads buf[cnt..p) with 0 and sorts buf[0..p) descending (p a power of 2)
__device__ __forceinline__ void gk_bitonic_desc(gk_u64 *buf, int cnt, int p) {
    for (int i = cnt + threadIdx.x; i < p; i += blockDim.x) buf[i] = 0;
    __syncthreads();
    for (int k = 2; k <= p; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int i = threadIdx.x; i < p; i += blockDim.x) {
                int l = i ^ j;
                if (l > i) {
                    gk_u64 a = buf[i], b = buf[l];
                    bool desc = (i & k) == 0;
                    if (desc ? a < b : a > b) { buf[i] = b; buf[l] = a; }
                }
            }
            __syncthreads();
        }
}
__device__ __forceinline__ int gk_pow2(int k) {
    int p = 1;
    while (p < k) p <<= 1;
    return p;
}
struct gk_all { __device__ bool operator()(int) const { return true; } };

// ---- top-k: operands of `on`: 0 values row, 1 indices row, 2 input row ----
template <int DT> __device__ __forceinline__ void gk_topk_rows(const gk_nd &on, int n, gk_i64 xs, gk_i64 vs, gk_i64 is, int k, int p,
                                                               typename gk_ty<DT>::S *vals, gk_i64 *idx, const typename gk_ty<DT>::S *x,
                                                               gk_u64 *gbuf) {
    typedef gk_ty<DT> T;
    extern __shared__ gk_u64 gk_dyn[];
    gk_u64 *buf = p <= GK_SMEM_SORT ? gk_dyn : gbuf + (gk_i64)blockIdx.x * p;
    for (gk_i64 row = blockIdx.x; row < on.n; row += gridDim.x) {
        gk_i64 ov, oi, ox;
        gk_nd_offsets(on, row, ov, oi, ox);
        const typename T::S *xr = x + ox;
        auto get = [&](int i) -> gk_u64 { return gk_comp((float)T::ld(xr[i * xs]), i); };
        gk_u64 t = k < n ? gk_radix_select(get, n, k) : 0;
        int cnt = gk_gather(get, gk_all(), n, t, buf);
        gk_bitonic_desc(buf, cnt, p);
        for (int j = threadIdx.x; j < k; j += blockDim.x) {
            int i = (int)~(gk_u32)buf[j];
            vals[ov + j * vs] = xr[i * xs];
            idx[oi + j * is] = i;
        }
        __syncthreads();
    }
}
#define GK_TOPK(DTN)                                                                                                \
    extern "C" __global__ void __launch_bounds__(1024) gk_topk_##DTN(gk_nd on, int n, gk_i64 xs, gk_i64 vs, gk_i64 is, int k, int p,        \
                                             gk_ty<GK_DT_##DTN>::S *vals, gk_i64 *idx, const gk_ty<GK_DT_##DTN>::S *x, \
                                             gk_u64 *gbuf) {                                                        \
        gk_topk_rows<GK_DT_##DTN>(on, n, xs, vs, is, k, p, vals, idx, x, gbuf);                                     \
    }
GK_TOPK(f32) GK_TOPK(f16) GK_TOPK(bf16)

// ---- top-k of long rows in two kernels: parts of GK_TK_PART elements, then a merge ----
// Part p of a row: its keys go to shared memory, a radix select finds its
// min(k, part size) largest (the row's top k are among the union of the
// parts' top k, since keys are distinct) and writes them, unsorted, to
// cand[(row * S + p) * k ...]; unused slots get key 0 (no element has key 0:
// its value word would be a NaN pattern, and NaN maps to 0xFFFFFFFF).
#define GK_TK_PART 4096
template <int DT> __device__ __forceinline__ void gk_topk_part(const gk_nd &on, int n, gk_i64 xs, int k, int S,
                                                               const typename gk_ty<DT>::S *x, gk_u64 *cand) {
    typedef gk_ty<DT> T;
    __shared__ gk_u64 sk[GK_TK_PART];
    __shared__ int pos;
    for (gk_i64 blk = blockIdx.x; blk < on.n * S; blk += gridDim.x) {
        gk_i64 row = blk / S, ov, oi, ox;
        int p = (int)(blk - row * S), i0 = p * GK_TK_PART, cn = n - i0 < GK_TK_PART ? n - i0 : GK_TK_PART;
        gk_nd_offsets(on, row, ov, oi, ox);
        const typename T::S *xr = x + ox;
        gk_u64 *dst = cand + blk * k;
        for (int i = threadIdx.x; i < cn; i += blockDim.x) sk[i] = gk_comp((float)T::ld(xr[(gk_i64)(i0 + i) * xs]), i0 + i);
        if (threadIdx.x == 0) pos = 0;
        __syncthreads();
        auto get = [&](int i) -> gk_u64 { return sk[i]; };
        gk_u64 t = k < cn ? gk_radix_select(get, cn, k) : 0;
        for (int i = threadIdx.x; i < cn; i += blockDim.x) {
            gk_u64 c = sk[i];
            if (c >= t) dst[atomicAdd(&pos, 1)] = c;
        }
        for (int i = cn + threadIdx.x; i < k; i += blockDim.x) dst[i] = 0; // a short part: pad
        __syncthreads();
    }
}
// one block per row: the k largest of the S * k candidates, sorted, to the outputs
template <int DT> __device__ __forceinline__ void gk_topk_merge(const gk_nd &on, gk_i64 xs, gk_i64 vs, gk_i64 is, int k, int S, int p,
                                                                typename gk_ty<DT>::S *vals, gk_i64 *idx, const typename gk_ty<DT>::S *x,
                                                                const gk_u64 *cand) {
    typedef gk_ty<DT> T;
    extern __shared__ gk_u64 gk_dyn[];
    gk_u64 *buf = gk_dyn;
    int nc = S * k;
    for (gk_i64 row = blockIdx.x; row < on.n; row += gridDim.x) {
        gk_i64 ov, oi, ox;
        gk_nd_offsets(on, row, ov, oi, ox);
        const typename T::S *xr = x + ox;
        const gk_u64 *cr = cand + row * nc;
        auto get = [&](int i) -> gk_u64 { return cr[i]; };
        // at least k candidates are real (n >= k) and every pad (0) is below them, so exactly
        // k keys are >= the k-th largest
        gk_u64 t = gk_radix_select(get, nc, k);
        int cnt = gk_gather(get, gk_all(), nc, t, buf);
        gk_bitonic_desc(buf, cnt, p);
        for (int j = threadIdx.x; j < k; j += blockDim.x) {
            int i = (int)~(gk_u32)buf[j];
            vals[ov + j * vs] = xr[i * xs];
            idx[oi + j * is] = i;
        }
        __syncthreads();
    }
}
#define GK_TOPK2(DTN)                                                                                               \
    extern "C" __global__ void __launch_bounds__(256) gk_topk_part_##DTN(gk_nd on, int n, gk_i64 xs, int k, int S, \
                                                  const gk_ty<GK_DT_##DTN>::S *x, gk_u64 *cand) {                   \
        gk_topk_part<GK_DT_##DTN>(on, n, xs, k, S, x, cand);                                                        \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(1024) gk_topk_merge_##DTN(gk_nd on, gk_i64 xs, gk_i64 vs, gk_i64 is, int k, int S, int p, \
                                                   gk_ty<GK_DT_##DTN>::S *vals, gk_i64 *idx, const gk_ty<GK_DT_##DTN>::S *x, \
                                                   const gk_u64 *cand) {                                            \
        gk_topk_merge<GK_DT_##DTN>(on, xs, vs, is, k, S, p, vals, idx, x, cand);                                    \
    }
GK_TOPK2(f32) GK_TOPK2(f16) GK_TOPK2(bf16)

// ---- Philox4x32-10 (Salmon et al. 2011), as gk_philox4x32_10 in gpukit.h ----
__device__ __forceinline__ void gk_philox(gk_u32 c[4], gk_u32 k0, gk_u32 k1) {
    for (int r = 0; r < 10; r++) {
        if (r) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
        gk_u32 lo0 = 0xD2511F53u * c[0], hi0 = __umulhi(0xD2511F53u, c[0]);
        gk_u32 lo1 = 0xCD9E8D57u * c[2], hi1 = __umulhi(0xCD9E8D57u, c[2]);
        gk_u32 n0 = hi1 ^ c[1] ^ k0, n2 = hi0 ^ c[3] ^ k1;
        c[0] = n0; c[1] = lo1; c[2] = n2; c[3] = lo0;
    }
}

// Gaussian noise (gk_randn): element i = number off + i of the stream of key (k0, k1), as gk__randn_one
extern "C" __global__ void gk_randn_f32(float *out, gk_i64 n, gk_u64 off, gk_u32 k0, gk_u32 k1) {
    for (gk_i64 i = GK_TID; i < n; i += GK_NTHREADS) {
        gk_u64 j = off + (gk_u64)i, b = j >> 2;
        int q = (int)(j & 3), w = q & 2;
        gk_u32 c[4];
        c[0] = (gk_u32)b; c[1] = (gk_u32)(b >> 32); c[2] = 0u; c[3] = 0u;
        gk_philox(c, k0, k1);
        // rounded step by step, as the CPU reference
        float u1 = __fmul_rn(__fadd_rn((float)(c[w] >> 8), 0.5f), 5.9604644775390625e-8f);
        float u2 = __fmul_rn(__fadd_rn((float)(c[w + 1] >> 8), 0.5f), 5.9604644775390625e-8f);
        float r = sqrtf(__fmul_rn(-2.0f, logf(u1))), t = __fmul_rn(6.28318548f, u2);
        out[i] = (q & 1) ? __fmul_rn(r, sinf(t)) : __fmul_rn(r, cosf(t));
    }
}

// the layout of gk__sp in gpukit.h
struct gk_sp {
    double log_min_p, top_p;
    gk_i64 lrs, lcs, prs, pcs, tst;
    float temperature, rep, presence, freq;
    int top_k, n_prev, V, B;
    gk_u32 key0, key1, step0, step1;
    int P, pad;
};

// exclusive prefix of v over the block (thread order); *total gets the sum
__device__ __forceinline__ gk_u64 gk_block_exscan(gk_u64 v, gk_u64 *total) {
    __shared__ gk_u64 ws[33];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    gk_u64 inc = v;
    for (int off = 1; off < 32; off <<= 1) {
        gk_u64 t = __shfl_up_sync(0xFFFFFFFFu, inc, off);
        if (lane >= off) inc += t;
    }
    __syncthreads();
    if (lane == 31) ws[w] = inc;
    __syncthreads();
    if (w == 0) {
        gk_u64 t = lane < nw ? ws[lane] : 0, s = t;
        for (int off = 1; off < 32; off <<= 1) {
            gk_u64 u = __shfl_up_sync(0xFFFFFFFFu, s, off);
            if (lane >= off) s += u;
        }
        if (lane < nw) ws[lane] = s - t; // exclusive warp prefix
        if (lane == nw - 1) ws[32] = s;
    }
    __syncthreads();
    gk_u64 r = ws[w] + inc - v;
    *total = ws[32];
    return r;
}

// log-weight and integer weight of a candidate: w = floor(exp(s) * 2^40), s = (x - max) / T
__device__ __forceinline__ double gk_sw(float x, float m, float temp, gk_u64 *w) {
    if (x == -__int_as_float(0x7F800000)) { *w = 0; return -__longlong_as_double(0x7FF0000000000000ll); }
    double s = x == m ? 0.0 : __ddiv_rn(__dsub_rn((double)x, (double)m), (double)temp);
    *w = (gk_u64)__dmul_rn(exp(s), 1099511627776.0);
    return s;
}

// the f32 value of a key (inverse of gk_fkey; no key of the sampling paths is a NaN)
__device__ __forceinline__ float gk_fval(gk_u64 key) {
    gk_u32 h = (gk_u32)(key >> 32);
    return __int_as_float((int)((h & 0x80000000u) ? (h & 0x7FFFFFFFu) : ~h));
}
// the 64 random bits of row b: Philox4x32-10 of counter {b, step lo, step hi, 0}, key {seed lo, seed hi}
__device__ __forceinline__ gk_u64 gk_rand64(const gk_sp &sp, int b) {
    gk_u32 c[4] = { (gk_u32)b, sp.step0, sp.step1, 0u };
    gk_philox(c, sp.key0, sp.key1);
    return ((gk_u64)c[0] << 32) | c[1];
}
// The draw of gk__sample_cpu over n candidates in their order (val(j): the logit of candidate
// j, tok(j): its token; m: the row's largest logit), by the whole block. Candidate j is kept
// when (top-p off, or the weight of the candidates before it is < top_p of all of theirs)
// and (x_j - m) / T >= log(min_p); r = floor(u * Z2) (Z2: the kept weight) unless fixed, then
// r = u (< the kept weight); the thread whose kept candidate brings the running kept weight
// above r writes its token to *out. Each thread takes a contiguous run of candidates and block
// scans place the runs: the sums are integers, so this equals the serial loop exactly.
template <class FV, class FT>
__device__ __forceinline__ void gk_draw(const gk_sp &sp, int n, float m, bool topp, bool fixed, gk_u64 u, FV val, FT tok, int *out) {
    int L = (n + (int)blockDim.x - 1) / (int)blockDim.x, j0 = (int)threadIdx.x * L, j1 = j0 + L < n ? j0 + L : n;
    gk_u64 preA = 0, Z = 0, wj;
    double target = 0;
    if (topp) {
        gk_u64 sa = 0;
        for (int j = j0; j < j1; j++) { gk_sw(val(j), m, sp.temperature, &wj); sa += wj; }
        preA = gk_block_exscan(sa, &Z);
        target = __dmul_rn(sp.top_p, (double)Z);
    }
    gk_u64 cum = preA, sb = 0, Z2;
    for (int j = j0; j < j1; j++) {
        double s = gk_sw(val(j), m, sp.temperature, &wj);
        if ((!topp || (double)cum < target) && s >= sp.log_min_p) sb += wj;
        cum += wj;
    }
    gk_u64 preB = gk_block_exscan(sb, &Z2);
    gk_u64 r = fixed ? u : __umul64hi(u, Z2);
    if (sb > 0 && r >= preB && r < preB + sb) {
        gk_u64 run = preB;
        cum = preA;
        for (int j = j0; j < j1; j++) {
            double s = gk_sw(val(j), m, sp.temperature, &wj);
            if ((!topp || (double)cum < target) && s >= sp.log_min_p) {
                run += wj;
                if (run > r) { *out = tok(j); break; }
            }
            cum += wj;
        }
    }
}

template <int DT> __device__ __forceinline__ void gk_sample_rows(const gk_sp &sp, int *tokens, const typename gk_ty<DT>::S *logits,
                                                                 const int *prev, float *xws, gk_u64 *gbuf) {
    typedef gk_ty<DT> T;
    extern __shared__ gk_u64 gk_dyn[];
    __shared__ float shv[32];
    __shared__ int shi[32];
    const float NEG_INF = -__int_as_float(0x7F800000);
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    int V = sp.V;
    float *xr = xws + (gk_i64)blockIdx.x * V;
    for (int b = blockIdx.x; b < sp.B; b += gridDim.x) {
        const typename T::S *lr = logits + (gk_i64)b * sp.lrs;
        bool pen = sp.n_prev > 0 && ((sp.rep > 0.0f && sp.rep != 1.0f) || sp.presence != 0.0f || sp.freq != 0.0f);
        bool keep = pen || sp.temperature > 0.0f; // greedy without penalties: no copy of the row
        // argmax (first occurrence, ignoring -inf) while loading, unless penalties change the row
        float bv = NEG_INF;
        int bi = 0x7FFFFFFF;
        for (int i = threadIdx.x; i < V; i += blockDim.x) {
            float v = (float)T::ld(lr[i * sp.lcs]);
            v = v != v ? NEG_INF : v;
            if (keep) xr[i] = v;
            if (v > bv) { bv = v; bi = i; }
        }
        __syncthreads();
        if (pen) {
            const int *pr = prev + (gk_i64)b * sp.prs;
            for (int j = threadIdx.x; j < sp.n_prev; j += blockDim.x) {
                int t = pr[j * sp.pcs], c = 0, first = 1;
                if (t < 0 || t >= V) continue;
                for (int q = 0; q < sp.n_prev; q++)
                    if (pr[q * sp.pcs] == t) {
                        if (q < j) { first = 0; break; }
                        c++;
                    }
                if (!first) continue;
                float x = xr[t];
                if (sp.rep > 0.0f && sp.rep != 1.0f) x = x > 0.0f ? __fdiv_rn(x, sp.rep) : __fmul_rn(x, sp.rep);
                if (sp.presence != 0.0f || sp.freq != 0.0f) x = __fsub_rn(x, __fadd_rn(__fmul_rn((float)c, sp.freq), sp.presence));
                xr[t] = x != x ? NEG_INF : x;
            }
            __syncthreads();
            bv = NEG_INF;
            bi = 0x7FFFFFFF;
            for (int i = threadIdx.x; i < V; i += blockDim.x) {
                float x = xr[i];
                if (x > bv) { bv = x; bi = i; }
            }
        }
        for (int off = 16; off > 0; off >>= 1) {
            float ov = __shfl_down_sync(0xFFFFFFFFu, bv, off);
            int oi = __shfl_down_sync(0xFFFFFFFFu, bi, off);
            if (ov > bv || (ov == bv && oi < bi)) { bv = ov; bi = oi; }
        }
        if (lane == 0) { shv[w] = bv; shi[w] = bi; }
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int q = 1; q < nw; q++)
                if (shv[q] > bv || (shv[q] == bv && shi[q] < bi)) { bv = shv[q]; bi = shi[q]; }
            shv[0] = bv; shi[0] = bi;
        }
        __syncthreads();
        bv = shv[0];
        bi = shi[0];
        __syncthreads();
        if (bi == 0x7FFFFFFF || !(sp.temperature > 0.0f)) {
            if (threadIdx.x == 0) tokens[(gk_i64)b * sp.tst] = bi == 0x7FFFFFFF ? -1 : bi;
            continue;
        }
        float m = bv;
        bool topk = sp.top_k > 0 && sp.top_k < V, topp = sp.top_p < 1.0;
        bool sorted = topk || topp;
        int n = topk ? sp.top_k : V;
        gk_u64 *buf = gk_dyn;
        if (sorted) {
            // the top-k keys (all when top-k is off), less those of weight 0 (s < ln 2^-40 > -28):
            // they come last in the order and are never drawn, so results do not change
            auto get = [&](int i) -> gk_u64 { return gk_comp(xr[i], i); };
            auto live = [&](int i) -> bool {
                return xr[i] == m || __ddiv_rn(__dsub_rn((double)xr[i], (double)m), (double)sp.temperature) >= -28.0;
            };
            gk_u64 t = n < V ? gk_radix_select(get, V, n) : 0;
            n = gk_gather(get, live, V, t, (gk_u64 *)0);
            int p = gk_pow2(n);
            if (p > GK_SMEM_SORT) buf = gbuf + (gk_i64)blockIdx.x * sp.P;
            gk_gather(get, live, V, t, buf);
            gk_bitonic_desc(buf, n, p);
        }
        auto val = [&](int j) -> float { return xr[sorted ? (int)~(gk_u32)buf[j] : j]; };
        auto tok = [&](int j) -> int { return sorted ? (int)~(gk_u32)buf[j] : j; };
        gk_draw(sp, n, m, topp, false, gk_rand64(sp, b), val, tok, tokens + (gk_i64)b * sp.tst);
        __syncthreads();
    }
}
// ---- greedy sampling without penalties over many blocks per row ----
// Part p of row b (elements [p * chunk, ...)) writes the key of its first
// largest finite-or-+inf logit (NaN and -inf ignored: NaN counts as -inf), 0
// when it has none, to part[b * S + p]; gk_greedy_fin takes the largest key of
// each row (larger value, then lower index: the first occurrence), -1 for none.
template <int DT> __device__ __forceinline__ void gk_greedy_part(const gk_sp &sp, const typename gk_ty<DT>::S *logits, int S, int chunk,
                                                                 gk_u64 *part) {
    typedef gk_ty<DT> T;
    __shared__ gk_u64 shk[32];
    const float NEG_INF = -__int_as_float(0x7F800000);
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    for (gk_i64 blk = blockIdx.x; blk < (gk_i64)sp.B * S; blk += gridDim.x) {
        int b = (int)(blk / S), p = (int)(blk - (gk_i64)b * S);
        int i0 = p * chunk, i1 = sp.V - i0 < chunk ? sp.V : i0 + chunk;
        const typename T::S *lr = logits + (gk_i64)b * sp.lrs;
        float bv = NEG_INF;
        int bi = -1;
        for (int i = i0 + (int)threadIdx.x; i < i1; i += blockDim.x) {
            float v = (float)T::ld(lr[(gk_i64)i * sp.lcs]);
            if (v > bv) { bv = v; bi = i; } // NaN and -inf never pass
        }
        gk_u64 key = bi < 0 ? 0 : gk_comp(bv, bi);
        for (int off = 16; off > 0; off >>= 1) {
            gk_u64 o = __shfl_down_sync(0xFFFFFFFFu, key, off);
            key = o > key ? o : key;
        }
        __syncthreads();
        if (lane == 0) shk[w] = key;
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int q = 1; q < nw; q++) key = shk[q] > key ? shk[q] : key;
            part[blk] = key;
        }
    }
}
__device__ __forceinline__ void gk_greedy_fin(const gk_sp &sp, int S, const gk_u64 *part, int *tokens) {
    for (gk_i64 b = GK_TID; b < sp.B; b += GK_NTHREADS) {
        gk_u64 key = 0;
        for (int p = 0; p < S; p++) key = part[b * S + p] > key ? part[b * S + p] : key;
        tokens[b * sp.tst] = key == 0 ? -1 : (int)~(gk_u32)key;
    }
}
#define GK_GREEDY(DTN)                                                                                              \
    extern "C" __global__ void __launch_bounds__(256) gk_greedy_part_##DTN(gk_sp sp, const gk_ty<GK_DT_##DTN>::S *logits, int S, int chunk, \
                                                   gk_u64 *part) {                                                  \
        gk_greedy_part<GK_DT_##DTN>(sp, logits, S, chunk, part);                                                    \
    }
GK_GREEDY(f32) GK_GREEDY(f16) GK_GREEDY(bf16)
extern "C" __global__ void gk_greedy_fin_k(gk_sp sp, int S, const gk_u64 *part, int *tokens) { gk_greedy_fin(sp, S, part, tokens); }

#define GK_SAMPLE(DTN)                                                                                              \
    extern "C" __global__ void __launch_bounds__(1024) gk_sample_##DTN(gk_sp sp, int *tokens, const gk_ty<GK_DT_##DTN>::S *logits,          \
                                               const int *prev, float *xws, gk_u64 *gbuf) {                         \
        gk_sample_rows<GK_DT_##DTN>(sp, tokens, logits, prev, xws, gbuf);                                           \
    }
GK_SAMPLE(f32) GK_SAMPLE(f16) GK_SAMPLE(bf16)

// ---- sampling over many blocks per row ----
// The row is cut into parts of C elements (the last one shorter); a block per
// part, then a small block per row. Same results as gk_sample_rows (and
// gk__sample_cpu): every sum is of integer weights, so parts may be summed in
// any order, and each part's top-k candidates contain the row's (keys are
// distinct). Every kernel here may be launched with programmatic dependent
// launch: it waits for the previous kernels before it touches memory.
#define GK_SCHUNK 8192  // the largest part of the temperature path (floats in shared memory)
#define GK_SKPART 4096  // the largest part of the top-k path (keys in shared memory)
#define GK_SFINKEYS 8192 // the top-k finish copies up to this many candidates to shared memory

// a penalized logit: token t (-1: none, a repeat or out of range) gets value x
struct gk_ovr {
    int t;
    float x;
};
// Penalties: for entry j of prev[b], ovr[b * n_prev + j] = {t, penalized x_t} when j is the
// first occurrence of a token t in 0..V-1, else {-1, 0} (as gk_sample_rows applies them).
template <int DT> __device__ __forceinline__ void gk_spen(const gk_sp &sp, const typename gk_ty<DT>::S *logits, const int *prev, gk_ovr *ovr) {
    typedef gk_ty<DT> T;
    const float NEG_INF = -__int_as_float(0x7F800000);
    int per = (sp.n_prev + (int)blockDim.x - 1) / (int)blockDim.x;
    gk_pdl_launch();
    gk_pdl_wait();
    for (gk_i64 blk = blockIdx.x; blk < (gk_i64)sp.B * per; blk += gridDim.x) {
        int b = (int)(blk / per), j = (int)(blk - (gk_i64)b * per) * (int)blockDim.x + (int)threadIdx.x;
        if (j >= sp.n_prev) continue;
        const int *pr = prev + (gk_i64)b * sp.prs;
        int t = pr[(gk_i64)j * sp.pcs], c = 0, first = t >= 0 && t < sp.V;
        for (int q = 0; first && q < sp.n_prev; q++)
            if (pr[(gk_i64)q * sp.pcs] == t) {
                if (q < j) { first = 0; break; }
                c++;
            }
        gk_ovr o;
        o.t = -1;
        o.x = 0.0f;
        if (first) {
            float x = (float)T::ld(logits[(gk_i64)b * sp.lrs + (gk_i64)t * sp.lcs]);
            x = x != x ? NEG_INF : x;
            if (sp.rep > 0.0f && sp.rep != 1.0f) x = x > 0.0f ? __fdiv_rn(x, sp.rep) : __fmul_rn(x, sp.rep);
            if (sp.presence != 0.0f || sp.freq != 0.0f) x = __fsub_rn(x, __fadd_rn(__fmul_rn((float)c, sp.freq), sp.presence));
            o.t = t;
            o.x = x != x ? NEG_INF : x;
        }
        ovr[(gk_i64)b * sp.n_prev + j] = o;
    }
}
// elements i0 .. i0 + cn - 1 of row lr (NaN as -inf, then the penalized values of ov, the
// row's n_prev entries, when not NULL) to sx[0 .. cn); ends with a block barrier
template <int DT> __device__ __forceinline__ void gk_sload(const gk_sp &sp, const typename gk_ty<DT>::S *lr, const gk_ovr *ov, int i0, int cn,
                                                           float *sx) {
    typedef gk_ty<DT> T;
    const float NEG_INF = -__int_as_float(0x7F800000);
    for (int base = 0; base < cn; base += 8 * (int)blockDim.x) {
        float v[8];
#pragma unroll
        for (int u = 0; u < 8; u++) { // eight loads in flight per thread
            int i = base + u * (int)blockDim.x + (int)threadIdx.x;
            v[u] = i < cn ? (float)T::ld(__ldg(lr + (gk_i64)(i0 + i) * sp.lcs)) : 0.0f;
        }
#pragma unroll
        for (int u = 0; u < 8; u++) {
            int i = base + u * (int)blockDim.x + (int)threadIdx.x;
            if (i < cn) sx[i] = v[u] != v[u] ? NEG_INF : v[u];
        }
    }
    if (ov) {
        __syncthreads();
        for (int j = threadIdx.x; j < sp.n_prev; j += blockDim.x) {
            gk_ovr o = ov[j];
            if (o.t >= i0 && o.t - i0 < cn) sx[o.t - i0] = o.x; // tokens of ov are distinct
        }
    }
    __syncthreads();
}
// the largest v over the block, to every thread
__device__ __forceinline__ gk_u64 gk_block_max(gk_u64 v) {
    __shared__ gk_u64 wm[32];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    for (int off = 16; off > 0; off >>= 1) {
        gk_u64 o = __shfl_xor_sync(0xFFFFFFFFu, v, off);
        v = o > v ? o : v;
    }
    __syncthreads();
    if (lane == 0) wm[w] = v;
    __syncthreads();
    v = wm[0];
    for (int q = 1; q < nw; q++) v = wm[q] > v ? wm[q] : v;
    return v;
}
// the row's largest key (0 when no logit is above -inf) from its S part maxima
__device__ __forceinline__ gk_u64 gk_srowmax(const gk_u64 *pm, int S) {
    gk_u64 key = 0;
    for (int q = threadIdx.x; q < S; q += blockDim.x) key = pm[q] > key ? pm[q] : key;
    return gk_block_max(key);
}

// ---- temperature path (no top-k / top-p; also greedy with penalties) ----
// gk_smax: part blk = b * S + p writes the largest key of its elements above -inf (0: none) to pmax[blk].
template <int DT> __device__ __forceinline__ void gk_smax(const gk_sp &sp, const typename gk_ty<DT>::S *logits, const gk_ovr *ovr, int C, int S,
                                                          gk_u64 *pmax) {
    __shared__ float sx[GK_SCHUNK];
    const float NEG_INF = -__int_as_float(0x7F800000);
    gk_pdl_launch();
    gk_pdl_wait();
    for (gk_i64 blk = blockIdx.x; blk < (gk_i64)sp.B * S; blk += gridDim.x) {
        int b = (int)(blk / S), p = (int)(blk - (gk_i64)b * S), i0 = p * C, cn = sp.V - i0 < C ? sp.V - i0 : C;
        gk_sload<DT>(sp, logits + (gk_i64)b * sp.lrs, ovr ? ovr + (gk_i64)b * sp.n_prev : 0, i0, cn, sx);
        gk_u64 key = 0;
        for (int i = threadIdx.x; i < cn; i += blockDim.x) {
            float v = sx[i];
            gk_u64 c = gk_comp(v, i0 + i);
            if (v > NEG_INF && c > key) key = c;
        }
        key = gk_block_max(key);
        if (threadIdx.x == 0) pmax[blk] = key;
        __syncthreads();
    }
}
// gk_ssum: with m the row's largest logit, part blk writes the sum of the integer weights of
// its elements with (x - m) / T >= log(min_p) to psum[blk].
template <int DT> __device__ __forceinline__ void gk_ssum(const gk_sp &sp, const typename gk_ty<DT>::S *logits, const gk_ovr *ovr, int C, int S,
                                                          const gk_u64 *pmax, gk_u64 *psum) {
    __shared__ float sx[GK_SCHUNK];
    gk_pdl_launch();
    gk_pdl_wait();
    for (gk_i64 blk = blockIdx.x; blk < (gk_i64)sp.B * S; blk += gridDim.x) {
        int b = (int)(blk / S), p = (int)(blk - (gk_i64)b * S), i0 = p * C, cn = sp.V - i0 < C ? sp.V - i0 : C;
        gk_u64 key = gk_srowmax(pmax + (gk_i64)b * S, S), sum = 0, w, tot;
        if (key != 0) { // the same for the whole block
            float m = gk_fval(key);
            gk_sload<DT>(sp, logits + (gk_i64)b * sp.lrs, ovr ? ovr + (gk_i64)b * sp.n_prev : 0, i0, cn, sx);
            for (int i = threadIdx.x; i < cn; i += blockDim.x)
                if (gk_sw(sx[i], m, sp.temperature, &w) >= sp.log_min_p) sum += w;
        }
        gk_block_exscan(sum, &tot);
        if (threadIdx.x == 0) psum[blk] = tot;
        __syncthreads();
    }
}
// gk_sfin: a block per row: the row's max (none: -1; greedy: its index), r = floor(u * Z2)
// (Z2: the sum of the parts' sums, at most 1 part per thread), the part where the running sum
// passes r, and the draw within that part (in index order).
template <int DT> __device__ __forceinline__ void gk_sfin(const gk_sp &sp, int *tokens, const typename gk_ty<DT>::S *logits, const gk_ovr *ovr,
                                                          int C, int S, const gk_u64 *pmax, const gk_u64 *psum) {
    __shared__ float sx[GK_SCHUNK];
    __shared__ int shp;
    __shared__ gk_u64 shr;
    gk_pdl_launch();
    gk_pdl_wait();
    for (int b = blockIdx.x; b < sp.B; b += gridDim.x) {
        gk_u64 key = gk_srowmax(pmax + (gk_i64)b * S, S);
        int *out = tokens + (gk_i64)b * sp.tst;
        if (key == 0 || !(sp.temperature > 0.0f)) { // the same for the whole block
            if (threadIdx.x == 0) *out = key == 0 ? -1 : (int)~(gk_u32)key;
            continue;
        }
        gk_u64 v = (int)threadIdx.x < S ? psum[(gk_i64)b * S + threadIdx.x] : 0, Z2;
        if (threadIdx.x == 0) { shp = 0; shr = 0; } // (always overwritten below)
        gk_u64 pre = gk_block_exscan(v, &Z2);
        gk_u64 r = __umul64hi(gk_rand64(sp, b), Z2); // < Z2: one part holds it
        if (v > 0 && r >= pre && r < pre + v) { shp = (int)threadIdx.x; shr = r - pre; }
        __syncthreads();
        int p = shp, i0 = p * C, cn = sp.V - i0 < C ? sp.V - i0 : C;
        gk_u64 rp = shr;
        gk_sload<DT>(sp, logits + (gk_i64)b * sp.lrs, ovr ? ovr + (gk_i64)b * sp.n_prev : 0, i0, cn, sx);
        auto val = [&](int j) -> float { return sx[j]; };
        auto tok = [&](int j) -> int { return i0 + j; };
        gk_draw(sp, cn, gk_fval(key), false, true, rp, val, tok, out);
        __syncthreads();
    }
}

// ---- top-k path (0 < top_k < V, top_k small; with or without top-p) ----
// gk_stkpart: part blk writes its min(k, size) largest keys (logits with NaN as -inf, then
// penalties), unsorted, to cand[blk * k ...], padded with key 0 (below every real key).
template <int DT> __device__ __forceinline__ void gk_stkpart(const gk_sp &sp, const typename gk_ty<DT>::S *logits, const gk_ovr *ovr, int C, int S,
                                                             int k, gk_u64 *cand) {
    typedef gk_ty<DT> T;
    __shared__ gk_u64 sk[GK_SKPART];
    __shared__ int pos;
    const float NEG_INF = -__int_as_float(0x7F800000);
    gk_pdl_launch();
    gk_pdl_wait();
    for (gk_i64 blk = blockIdx.x; blk < (gk_i64)sp.B * S; blk += gridDim.x) {
        int b = (int)(blk / S), p = (int)(blk - (gk_i64)b * S), i0 = p * C, cn = sp.V - i0 < C ? sp.V - i0 : C;
        const typename T::S *lr = logits + (gk_i64)b * sp.lrs;
        for (int base = 0; base < cn; base += 8 * (int)blockDim.x) {
            float v[8];
#pragma unroll
            for (int u = 0; u < 8; u++) {
                int i = base + u * (int)blockDim.x + (int)threadIdx.x;
                v[u] = i < cn ? (float)T::ld(__ldg(lr + (gk_i64)(i0 + i) * sp.lcs)) : 0.0f;
            }
#pragma unroll
            for (int u = 0; u < 8; u++) {
                int i = base + u * (int)blockDim.x + (int)threadIdx.x;
                if (i < cn) sk[i] = gk_comp(v[u] != v[u] ? NEG_INF : v[u], i0 + i);
            }
        }
        if (ovr) {
            const gk_ovr *ov = ovr + (gk_i64)b * sp.n_prev;
            __syncthreads();
            for (int j = threadIdx.x; j < sp.n_prev; j += blockDim.x) {
                gk_ovr o = ov[j];
                if (o.t >= i0 && o.t - i0 < cn) sk[o.t - i0] = gk_comp(o.x, o.t);
            }
        }
        if (threadIdx.x == 0) pos = 0;
        __syncthreads();
        auto get = [&](int i) -> gk_u64 { return sk[i]; };
        int kk = k < cn ? k : cn;
        gk_u64 t = kk < cn ? gk_radix_select(get, cn, kk, true) : 0, *dst = cand + blk * k;
        for (int i = threadIdx.x; i < cn; i += blockDim.x) {
            gk_u64 c = sk[i];
            if (c >= t) dst[atomicAdd(&pos, 1)] = c;
        }
        for (int i = cn + threadIdx.x; i < k; i += blockDim.x) dst[i] = 0;
        __syncthreads();
    }
}
// gk_stkfin: a block per row: the k largest of the S * k candidates, sorted (shared memory:
// P = pow2(k) keys, then the candidates when at most GK_SFINKEYS), and the draw in that order.
__device__ __forceinline__ void gk_stkfin(const gk_sp &sp, int *tokens, int S, int k, int P, const gk_u64 *cand) {
    extern __shared__ gk_u64 gk_dyn[];
    gk_u64 *buf = gk_dyn, *sc = gk_dyn + P;
    const float NEG_INF = -__int_as_float(0x7F800000);
    int nc = S * k;
    gk_pdl_launch();
    gk_pdl_wait();
    for (int b = blockIdx.x; b < sp.B; b += gridDim.x) {
        const gk_u64 *cr = cand + (gk_i64)b * nc;
        if (nc <= GK_SFINKEYS) {
            for (int i = threadIdx.x; i < nc; i += blockDim.x) sc[i] = cr[i];
            __syncthreads();
            cr = sc;
        }
        auto get = [&](int i) -> gk_u64 { return cr[i]; };
        // at least k candidates are real (V > k) and every pad (0) is below them
        gk_u64 t = gk_radix_select(get, nc, k, true);
        int cnt = gk_gather(get, gk_all(), nc, t, buf);
        gk_bitonic_desc(buf, cnt, P);
        float m = gk_fval(buf[0]);
        int *out = tokens + (gk_i64)b * sp.tst;
        if (m == NEG_INF) { // nothing above -inf
            if (threadIdx.x == 0) *out = -1;
        } else {
            auto val = [&](int j) -> float { return gk_fval(buf[j]); };
            auto tok = [&](int j) -> int { return (int)~(gk_u32)buf[j]; };
            gk_draw(sp, k, m, sp.top_p < 1.0, false, gk_rand64(sp, b), val, tok, out);
        }
        __syncthreads();
    }
}

#define GK_SPATH(DTN)                                                                                               \
    extern "C" __global__ void __launch_bounds__(256) gk_spen_##DTN(gk_sp sp, const gk_ty<GK_DT_##DTN>::S *logits, const int *prev, \
                                                                     gk_ovr *ovr) {                                 \
        gk_spen<GK_DT_##DTN>(sp, logits, prev, ovr);                                                                \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(256) gk_smax_##DTN(gk_sp sp, const gk_ty<GK_DT_##DTN>::S *logits, const gk_ovr *ovr, \
                                                                     int C, int S, gk_u64 *pmax) {                  \
        gk_smax<GK_DT_##DTN>(sp, logits, ovr, C, S, pmax);                                                          \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(256) gk_ssum_##DTN(gk_sp sp, const gk_ty<GK_DT_##DTN>::S *logits, const gk_ovr *ovr, \
                                                                     int C, int S, const gk_u64 *pmax, gk_u64 *psum) { \
        gk_ssum<GK_DT_##DTN>(sp, logits, ovr, C, S, pmax, psum);                                                    \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(512) gk_sfin_##DTN(gk_sp sp, int *tokens, const gk_ty<GK_DT_##DTN>::S *logits, \
                                                                     const gk_ovr *ovr, int C, int S, const gk_u64 *pmax, \
                                                                     const gk_u64 *psum) {                          \
        gk_sfin<GK_DT_##DTN>(sp, tokens, logits, ovr, C, S, pmax, psum);                                            \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(256) gk_stkpart_##DTN(gk_sp sp, const gk_ty<GK_DT_##DTN>::S *logits, const gk_ovr *ovr, \
                                                                        int C, int S, int k, gk_u64 *cand) {        \
        gk_stkpart<GK_DT_##DTN>(sp, logits, ovr, C, S, k, cand);                                                    \
    }
GK_SPATH(f32) GK_SPATH(f16) GK_SPATH(bf16)
extern "C" __global__ void __launch_bounds__(512) gk_stkfin_k(gk_sp sp, int *tokens, int S, int k, int P, const gk_u64 *cand) {
    gk_stkfin(sp, tokens, S, k, P, cand);
}
