// lstm.cu - single-layer LSTM, batch 1, uni- or bidirectional (PyTorch gate
// order i, f, g, o; bias_ih + bias_hh).
//  1. gk_lstm_proj: the input projection of every step and direction in one
//     tiled GEMM: G[d][t][r] = x[t] . w_ih[d][r] + b_ih[d][r] + b_hh[d][r].
//  2. gk_lstm_rec: one persistent (cooperative) kernel runs the recurrence.
//     Each block owns U hidden units of one direction (their 4U rows of w_hh
//     stay in shared memory for all steps), computes their gates and cell
//     update, publishes h_t to a double-buffered global vector, then the
//     blocks of that direction meet at a barrier made of per-block flags
//     (release store of the step number; the waiting threads poll with
//     acquire loads, one flag each). Flags start at zero (memset by the host).
#include "gk_common.cuh"

// C[d][t][r] for t < T, r < R: 64x64 tiles, 4x4 per thread
extern "C" __global__ void __launch_bounds__(256) gk_lstm_proj(float *G, const float *x, const float *wih, const float *bih,
                                                               const float *bhh, int T, int R, int I) {
    __shared__ __align__(16) float As[16][64 + 4];
    __shared__ __align__(16) float Bs[16][64 + 4];
    const int d = blockIdx.z, t0 = blockIdx.y * 64, r0 = blockIdx.x * 64;
    const int tid = threadIdx.x, tx = tid & 15, ty = tid >> 4;
    const float *w = wih + (gk_i64)d * R * I;
    float acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) acc[i][j] = 0.f;
    const int lr = tid >> 2, lk = (tid & 3) * 4;
    for (int k0 = 0; k0 < I; k0 += 16) {
#pragma unroll
        for (int j = 0; j < 4; j++) {
            int k = k0 + lk + j;
            As[lk + j][lr] = (t0 + lr < T && k < I) ? x[(gk_i64)(t0 + lr) * I + k] : 0.f;
            Bs[lk + j][lr] = (r0 + lr < R && k < I) ? w[(gk_i64)(r0 + lr) * I + k] : 0.f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < 16; kk++) {
            float4 a4 = *(const float4 *)&As[kk][ty * 4], b4 = *(const float4 *)&Bs[kk][tx * 4];
            float a[4] = { a4.x, a4.y, a4.z, a4.w }, b[4] = { b4.x, b4.y, b4.z, b4.w };
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; i++) {
        int t = t0 + ty * 4 + i;
        if (t >= T) continue;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            int r = r0 + tx * 4 + j;
            if (r >= R) continue;
            float v = acc[i][j];
            if (bih) v += bih[(gk_i64)d * R + r];
            if (bhh) v += bhh[(gk_i64)d * R + r];
            G[((gk_i64)d * T + t) * R + r] = v;
        }
    }
}

__device__ __forceinline__ void gk_flag_release(unsigned *p, unsigned v) {
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned gk_flag_acquire(const unsigned *p) {
    unsigned v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ float gk_sigmoid(float x) { return 1.f / (1.f + expf(-x)); }

// grid = D * NB blocks; block b of direction d owns units [bi*U, min(H, bi*U+U)).
// smem: [4U][H] weights (when use_smem) + [H] h + [4U] gates + [4U] input projection.
extern "C" __global__ void __launch_bounds__(256) gk_lstm_rec(const float *G, const float *whh, const float *h0, const float *c0,
                                                              float *out, float *hn, float *cn, float *hbuf, unsigned *flags,
                                                              int T, int H, int D, int NB, int U, int use_smem) {
    extern __shared__ float gk_lstm_s[];
    const int d = blockIdx.x / NB, bi = blockIdx.x - d * NB;
    const int j0 = bi * U, Uc = (H - j0) < U ? (H - j0) : U, R = 4 * H;
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, nwarps = blockDim.x >> 5;
    float *ws = gk_lstm_s;
    float *hs = ws + (use_smem ? 4 * U * H : 0);
    float *gs = hs + H;      // [4U] gate pre-activations
    float *gin = gs + 4 * U; // [4U] this step's input projection (prefetched a step ahead)
    const float *wd = whh + (gk_i64)d * R * H;
    const bool pre = 4 * U <= (int)blockDim.x;
    float gnext = 0.f;
    // thread lr < 4U loads G of its row for step s into a register
    auto gload = [&](int s) {
        int q = tid / U, u = tid - q * U;
        if (pre && tid < 4 * U && u < Uc) gnext = G[((gk_i64)d * T + (d == 0 ? s : T - 1 - s)) * R + q * H + j0 + u];
    };
    gload(0);
    // the block's rows: local row lr = q*U + u  <->  global row q*H + j0 + u
    if (use_smem)
        for (int i = tid; i < 4 * U * H; i += blockDim.x) {
            int lr = i / H, k = i - lr * H, q = lr / U, u = lr - q * U;
            ws[i] = u < Uc ? wd[(gk_i64)(q * H + j0 + u) * H + k] : 0.f;
        }
    float c = 0.f;
    if (tid < Uc && c0) c = c0[d * H + j0 + tid];
    unsigned *myflags = flags + d * NB;
    float *hb = hbuf + (gk_i64)d * 2 * H;
    for (int s = 0; s < T; s++) {
        const int t = d == 0 ? s : T - 1 - s;
        // h_{s-1}
        if (s == 0) {
            for (int k = tid; k < H; k += blockDim.x) hs[k] = h0 ? h0[d * H + k] : 0.f;
        } else {
            const float *src = hb + ((s - 1) & 1) * H;
            for (int k = tid; k < H; k += blockDim.x) hs[k] = __ldcg(src + k);
        }
        if (pre && tid < 4 * U) gin[tid] = gnext;
        __syncthreads();
        if (s + 1 < T) gload(s + 1); // in flight during the step and the barrier
        const float *Gt = G + ((gk_i64)d * T + t) * R;
        for (int lr = warp; lr < 4 * U; lr += nwarps) {
            int q = lr / U, u = lr - q * U;
            if (u >= Uc) continue;
            const float *wr = use_smem ? ws + (gk_i64)lr * H : wd + (gk_i64)(q * H + j0 + u) * H;
            float acc = 0.f;
            for (int k = lane; k < H; k += 32) acc = fmaf(wr[k], hs[k], acc);
            for (int o = 16; o > 0; o >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, o);
            if (lane == 0) gs[lr] = acc + (pre ? gin[lr] : Gt[q * H + j0 + u]);
        }
        __syncthreads();
        if (tid < Uc) {
            float ig = gk_sigmoid(gs[tid]), fg = gk_sigmoid(gs[U + tid]);
            float gg = tanhf(gs[2 * U + tid]), og = gk_sigmoid(gs[3 * U + tid]);
            c = fg * c + ig * gg;
            float h = og * tanhf(c);
            hb[(s & 1) * H + j0 + tid] = h;
            out[(gk_i64)t * D * H + d * H + j0 + tid] = h;
            if (s == T - 1) {
                if (hn) hn[d * H + j0 + tid] = h;
                if (cn) cn[d * H + j0 + tid] = c;
            }
        }
        if (s == T - 1) break;
        // barrier of this direction's blocks
        __syncthreads();
        if (tid == 0) {
            __threadfence();
            gk_flag_release(myflags + bi, (unsigned)(s + 1));
        }
        if (tid < NB)
            while (gk_flag_acquire(myflags + tid) < (unsigned)(s + 1)) { }
        __syncthreads();
    }
}
