// conv_tc.cu - 1-d convolution (stride 1, one group) of f32 data on TF32
// tensor cores, used only when the caller allows TF32 (gk_conv1d_ex).
// out[b][co][t] = bias[co] + sum_{ci, k} w[co][ci][k] * x[b][ci][t + k*dil - pad]
// as an implicit GEMM: M = output channels, N = output positions, and the
// reduction walks channel chunks of 8 (one m16n8k8 step) with every tap of the
// kernel inside the chunk. Per chunk, shared memory holds
//   Ws  BM rows (output channels) of the chunk's 8 * KW weights, contiguous in
//       the weight's [Cout][Cin][KW] layout (16-byte cp.async rows), row stride
//       RS = 4 (mod 32) floats: a fragment's 32 reads (row g, column tg * KW)
//       hit 32 banks for odd KW;
//   Xs  8 rows (input channels) of the input from the 16-byte aligned position
//       at or before t0 - pad, BN + (KW - 1) * dil + 3 values, row stride
//       XS = 8 (mod 32): reads (row tg, column g + c) hit 32 banks.
// The input is read once per chunk and reused by every tap (no im2col).
// Positions outside [0, L) are zero-filled by cp.async (src-size 0): 16-byte
// copies when the rows allow them (L % 4 == 0 and an aligned address: every
// chunk is wholly inside or outside; Cin * KW % 4 == 0 for the weights), else
// 4-byte copies from t0 - pad itself. The f32 values
// go to the tensor cores unrounded (the hardware reads their TF32 bits).
// ST-stage cp.async pipeline; 256 threads = 8 warps as 2 (m) x 4 (n).
// gk_convtcp matches gk__convtcp in gpukit.h (src/ops/signal/conv.c).
#include "gk_common.cuh"

struct gk_convtcp {
    gk_i64 B, Cin, L, Cout, Lo;
    int KW, pad, dil, RS, XS, ST, has_bias;
    int wal, xal; // 16-byte weight rows / input rows (else 4-byte copies)
    int ksplit;   // > 1: the channel chunks split over ksplit blocks (blockIdx.z = b * ksplit + split), each writing
                  // its partial sums without the bias to slice `split` of the workspace (out); gk_convtc_sum adds them
};

__device__ __forceinline__ unsigned gk_ctc_smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void gk_ctc_cp16(unsigned dst, const void *src, int bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(bytes));
}
__device__ __forceinline__ void gk_ctc_cp4(unsigned dst, const void *src, int bytes) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(bytes));
}
__device__ __forceinline__ void gk_ctc_commit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ void gk_ctc_wait(int n) {
    // wait_group takes an immediate: the pipeline depth is 2..4
    if (n <= 0) asm volatile("cp.async.wait_group 0;\n" ::);
    else if (n == 1) asm volatile("cp.async.wait_group 1;\n" ::);
    else if (n == 2) asm volatile("cp.async.wait_group 2;\n" ::);
    else asm volatile("cp.async.wait_group 3;\n" ::);
}
__device__ __forceinline__ void gk_ctc_mma(float *c, const unsigned *a, unsigned b0, unsigned b1) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

#define GK_CTC_CK 8
#define GK_CTC_BN 128

template <int BM>
__device__ __forceinline__ void gk_convtc_impl(const gk_convtcp &p, float *out, const float *x, const float *w, const float *bias) {
    const int WM = 2, WN = 4, WTM = BM / WM, WTN = GK_CTC_BN / WN, MT = WTM / 16, NT = WTN / 8;
    extern __shared__ __align__(16) float gk_ctc_sm[];
    const int KW = p.KW, RS = p.RS, XS = p.XS, CKW = GK_CTC_CK * KW;
    const int stage = BM * RS + GK_CTC_CK * XS; // floats
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, wm = warp / WN, wn = warp % WN, g = lane >> 2, tg = lane & 3;
    const int split = (int)(blockIdx.z % p.ksplit);
    const gk_i64 b = blockIdx.z / p.ksplit, co0 = (gk_i64)blockIdx.y * BM, t0 = (gk_i64)blockIdx.x * GK_CTC_BN;
    const gk_i64 start = t0 - p.pad, a0 = !p.xal ? start : start >= 0 ? start & ~3ll : -((-start + 3) & ~3ll);
    const int s0 = (int)(start - a0), xw = GK_CTC_BN + (KW - 1) * p.dil; // values a row of Xs holds (4-byte path)
    const float *xb = x + b * p.Cin * p.L;
    const gk_i64 wrow = p.Cin * KW; // floats per output channel
    const int nchunk_all = (int)((p.Cin + GK_CTC_CK - 1) / GK_CTC_CK), per = (nchunk_all + p.ksplit - 1) / p.ksplit;
    const int cfirst = split * per, nchunk = nchunk_all - cfirst < per ? nchunk_all - cfirst : per; // this block's chunks
    const int wch = CKW / 4, xch = XS / 4; // 16-byte chunks per Ws / Xs row
    const unsigned sbase = gk_ctc_smem(gk_ctc_sm);

    float acc[MT][NT][4];
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) acc[i][j][e] = 0.f;

    auto load = [&](int c, int s) {
        const unsigned sw = sbase + (unsigned)(s * stage) * 4u, sx = sw + (unsigned)(BM * RS) * 4u;
        const gk_i64 k0 = (gk_i64)c * CKW; // first weight of the chunk in a row
        if (p.wal) {
            for (int idx = tid; idx < BM * wch; idx += 256) {
                int r = idx / wch, q = idx - r * wch;
                gk_i64 co = co0 + r, k = k0 + q * 4, left = wrow - k;
                int bytes = co < p.Cout && left > 0 ? (int)(left < 4 ? left : 4) * 4 : 0;
                gk_ctc_cp16(sw + (unsigned)(r * RS + q * 4) * 4u, bytes ? w + co * wrow + k : w, bytes);
            }
        } else {
            for (int idx = tid; idx < BM * CKW; idx += 256) {
                int r = idx / CKW, q = idx - r * CKW;
                gk_i64 co = co0 + r, k = k0 + q;
                int bytes = co < p.Cout && k < wrow ? 4 : 0;
                gk_ctc_cp4(sw + (unsigned)(r * RS + q) * 4u, bytes ? w + co * wrow + k : w, bytes);
            }
        }
        if (p.xal) {
            for (int idx = tid; idx < GK_CTC_CK * xch; idx += 256) {
                int r = idx / xch, q = idx - r * xch;
                gk_i64 ci = (gk_i64)c * GK_CTC_CK + r, pos = a0 + q * 4;
                int bytes = ci < p.Cin && pos >= 0 && pos < p.L ? 16 : 0;
                gk_ctc_cp16(sx + (unsigned)(r * XS + q * 4) * 4u, bytes ? xb + ci * p.L + pos : x, bytes);
            }
        } else {
            for (int idx = tid; idx < GK_CTC_CK * xw; idx += 256) {
                int r = idx / xw, q = idx - r * xw;
                gk_i64 ci = (gk_i64)c * GK_CTC_CK + r, pos = a0 + q;
                int bytes = ci < p.Cin && pos >= 0 && pos < p.L ? 4 : 0;
                gk_ctc_cp4(sx + (unsigned)(r * XS + q) * 4u, bytes ? xb + ci * p.L + pos : x, bytes);
            }
        }
    };

    for (int s = 0; s < p.ST - 1; s++) {
        if (s < nchunk) load(cfirst + s, s);
        gk_ctc_commit();
    }
    for (int c = 0; c < nchunk; c++) {
        gk_ctc_wait(p.ST - 2);
        __syncthreads();
        {
            int nc = c + p.ST - 1;
            if (nc < nchunk) load(cfirst + nc, nc % p.ST);
            gk_ctc_commit();
        }
        const float *Ws = gk_ctc_sm + (c % p.ST) * stage, *Xs = Ws + BM * RS;
        const float *wa = Ws + (wm * WTM + g) * RS + tg * KW;
        const float *xa = Xs + tg * XS + s0 + wn * WTN + g;
        for (int kw = 0; kw < KW; kw++) {
            unsigned af[MT][4], bf[NT][2];
#pragma unroll
            for (int i = 0; i < MT; i++) {
                const float *q = wa + i * 16 * RS + kw;
                af[i][0] = __float_as_uint(q[0]);
                af[i][1] = __float_as_uint(q[8 * RS]);
                af[i][2] = __float_as_uint(q[4 * KW]);
                af[i][3] = __float_as_uint(q[8 * RS + 4 * KW]);
            }
            const float *xq = xa + kw * p.dil;
#pragma unroll
            for (int j = 0; j < NT; j++) {
                bf[j][0] = __float_as_uint(xq[j * 8]);
                bf[j][1] = __float_as_uint(xq[4 * XS + j * 8]);
            }
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NT; j++) gk_ctc_mma(acc[i][j], af[i], bf[j][0], bf[j][1]);
        }
    }
    gk_ctc_wait(0);
    // c0, c1: row g, columns 2 tg, 2 tg + 1; c2, c3: row g + 8
    const bool pair = (p.Lo & 1) == 0 && ((unsigned long long)out & 7) == 0;
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            gk_i64 co = co0 + wm * WTM + i * 16 + g + h * 8;
            if (co >= p.Cout) continue;
            float bv = p.has_bias && p.ksplit == 1 ? bias[co] : 0.f;
            float *orow = out + ((gk_i64)split * p.B * p.Cout + b * p.Cout + co) * p.Lo;
#pragma unroll
            for (int j = 0; j < NT; j++) {
                gk_i64 t = t0 + wn * WTN + j * 8 + tg * 2;
                float v0 = acc[i][j][h * 2] + bv, v1 = acc[i][j][h * 2 + 1] + bv;
                if (pair && t + 1 < p.Lo) *(float2 *)(orow + t) = make_float2(v0, v1);
                else {
                    if (t < p.Lo) orow[t] = v0;
                    if (t + 1 < p.Lo) orow[t + 1] = v1;
                }
            }
        }
}

extern "C" __global__ void __launch_bounds__(256) gk_convtc_128(gk_convtcp p, float *out, const float *x, const float *w, const float *bias) {
    gk_convtc_impl<128>(p, out, x, w, bias);
}
extern "C" __global__ void __launch_bounds__(256) gk_convtc_64(gk_convtcp p, float *out, const float *x, const float *w, const float *bias) {
    gk_convtc_impl<64>(p, out, x, w, bias);
}

// out[i] = bias[channel of i] + ws[0][i] + ... + ws[ksplit - 1][i], in that order
extern "C" __global__ void __launch_bounds__(256) gk_convtc_sum(gk_convtcp p, float *out, const float *ws, const float *bias) {
    const gk_i64 n = p.B * p.Cout * p.Lo;
    for (gk_i64 i = (gk_i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (gk_i64)gridDim.x * blockDim.x) {
        float v = p.has_bias ? bias[(i / p.Lo) % p.Cout] : 0.f;
        for (int k = 0; k < p.ksplit; k++) v += ws[(gk_i64)k * n + i];
        out[i] = v;
    }
}
