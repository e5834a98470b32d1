// gemm.cu - matrix products. out[b] = act(alpha * op(A)[b] @ op(B)[b] + beta * out[b] + bias) + residual[b]
//   gk_gemm_<in>_<out>   tiled SIMT GEMM, any strides (row- or column-major operands), batched
//                        (blockIdx.z), fp32 accumulation (fp64 for f64), fused epilogue
//   gk_gemv[_glu]_<dt>_m<MR>_c<cfg>  x[m, K] @ W[N, K]^T for m = 1..8 rows (decode): a block per
//                        few rows, K split over its threads, 16-byte streaming loads of W, fused
//                        epilogue; _glu: act(x W_gate^T) * (x W_up^T) from one [2N, K] weight
//   gk_epilogue_<dt>     out = act(out) + residual, after an external GEMM (cuBLASLt)
#include "gk_gemm.cuh"

template <int DO, typename C> __device__ __forceinline__ void gk_epilogue1(const gk_gemm_p &p, gk_i64 bz, gk_i64 m, gk_i64 n, C acc) {
    typedef gk_ty<DO> TO;
    typename TO::S *o = (typename TO::S *)p.o + bz * p.o_bs + m * p.o_rs + n;
    C v = (C)p.alpha * acc;
    if (p.beta != 0.0) v += (C)p.beta * (C)TO::ld(*o);
    if (p.bias) v += gk_ld_any<C>(p.bias, n, p.bias_dt);
    v = gk_act<C>(v, p.act);
    if (p.res) v += gk_ld_any<C>(p.res, bz * p.r_bs + m * p.r_rs + n, p.res_dt);
    *o = TO::st((typename TO::C)v);
}

// ---- tiled SIMT GEMM: 64x64 tile per block, K in steps of 16, 256 threads x (4x4) ----
#define GK_BM 64
#define GK_BN 64
#define GK_BK 16
template <int DI, int DO, typename C> __device__ __forceinline__ void gk_gemm_simt(const gk_gemm_p &p) {
    typedef gk_ty<DI> TI;
    typedef typename TI::S S;
    __shared__ C As[GK_BK][GK_BM + 1];
    __shared__ C Bs[GK_BK][GK_BN + 1];
    const S *A = (const S *)p.a + (gk_i64)blockIdx.z * p.a_bs;
    const S *B = (const S *)p.b + (gk_i64)blockIdx.z * p.b_bs;
    gk_i64 m0 = (gk_i64)blockIdx.y * GK_BM, n0 = (gk_i64)blockIdx.x * GK_BN;
    int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    C acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) acc[i][j] = (C)0;
    // loads: A tile [BM x BK] and B tile [BK x BN], 1024 elements each, 4 per thread;
    // the fast-moving index follows whichever dim is contiguous in memory
    const bool a_kfast = p.a_cs == 1, b_nfast = p.b_cs == 1;
    for (gk_i64 k0 = 0; k0 < p.K; k0 += GK_BK) {
#pragma unroll
        for (int r = 0; r < 4; r++) {
            int e = tid + r * 256, mm, kk;
            if (a_kfast) { mm = e / GK_BK; kk = e % GK_BK; }
            else { kk = e / GK_BM; mm = e % GK_BM; }
            gk_i64 gm = m0 + mm, gk = k0 + kk;
            As[kk][mm] = (gm < p.M && gk < p.K) ? (C)TI::ld(A[gm * p.a_rs + gk * p.a_cs]) : (C)0;
            int nn;
            if (b_nfast) { kk = e / GK_BN; nn = e % GK_BN; }
            else { nn = e / GK_BK; kk = e % GK_BK; }
            gk_i64 gn = n0 + nn;
            gk = k0 + kk;
            Bs[kk][nn] = (gn < p.N && gk < p.K) ? (C)TI::ld(B[gk * p.b_rs + gn * p.b_cs]) : (C)0;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < GK_BK; kk++) {
            C a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; i++) a[i] = As[kk][ty + 16 * i];
#pragma unroll
            for (int j = 0; j < 4; j++) b[j] = Bs[kk][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] += a[i] * b[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
            gk_i64 m = m0 + ty + 16 * i, n = n0 + tx + 16 * j;
            if (m < p.M && n < p.N) gk_epilogue1<DO, C>(p, blockIdx.z, m, n, acc[i][j]);
        }
}

#define GK_GEMM_K(IN, OUT, C) \
    extern "C" __global__ void __launch_bounds__(256) gk_gemm_##IN##_##OUT(gk_gemm_p p) { gk_gemm_simt<GK_DT_##IN, GK_DT_##OUT, C>(p); }
#define GK_GEMM_OUTS(IN) \
    GK_GEMM_K(IN, f32, float) GK_GEMM_K(IN, f16, float) GK_GEMM_K(IN, bf16, float)
GK_GEMM_OUTS(f32)
GK_GEMM_OUTS(f16)
GK_GEMM_OUTS(bf16)
GK_GEMM_K(f64, f64, double)

// ---- GEMV: out[m, n] = epilogue(sum_k x[m, k] * W[n, k]) for M <= MR <= 8 rows ----
// A block of NT threads owns RW weight rows and splits K over all its
// threads (split-K inside the block): thread t reads 16-byte vectors t,
// t + NT, ... of every row, U vectors per row in flight per step, with
// streaming loads (L1::no_allocate: the weights are read once, x stays in
// L1), then the block reduces. One pass over the weights when NT * U * V >= K.
// GLU: the weight is [2N, K] = [gate; up]; the block's rows are RW/2 gate
// rows n and the matching up rows N + n, and out[m, n] = act(g) * u
// (alpha and bias applied to each half first). M <= MR is a run-time count.
// Needs K % V == 0 and 16-byte aligned rows (the host checks).
__device__ __forceinline__ uint4 gk_ld_stream16(const void *p) {
    uint4 v;
    asm("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
        : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    return v;
}
template <int DO> __device__ __forceinline__ void gk_gemv_store(const gk_gemm_p &p, gk_i64 m, gk_i64 n, float acc, float up, int glu) {
    typedef gk_ty<DO> TO;
    typename TO::S *o = (typename TO::S *)p.o + m * p.o_rs + n;
    float v = (float)p.alpha * acc;
    if (glu) {
        float u = (float)p.alpha * up;
        if (p.bias) { v += gk_ld_any<float>(p.bias, n, p.bias_dt); u += gk_ld_any<float>(p.bias, p.N + n, p.bias_dt); }
        v = gk_act<float>(v, p.act) * u;
    } else {
        if (p.beta != 0.0) v += (float)p.beta * (float)TO::ld(*o);
        if (p.bias) v += gk_ld_any<float>(p.bias, n, p.bias_dt);
        v = gk_act<float>(v, p.act);
    }
    if (p.res) v += gk_ld_any<float>(p.res, m * p.r_rs + n, p.res_dt);
    *o = TO::st(v);
}
template <int DT, int MR, int RW, int NT, int U, int GLU> __device__ __forceinline__ void gk_gemv(const gk_gemm_p &p) {
    typedef gk_ty<DT> T;
    typedef typename T::S S;
    const int V = 16 / sizeof(S), NW = NT / 32, H = GLU ? RW / 2 : RW; // H: output columns per block
    __shared__ float red[NW][MR * RW];
    int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    int M = (int)p.M;
    gk_i64 n0 = (gk_i64)blockIdx.x * H;
    const S *x = (const S *)p.a;
    const S *w[RW];
#pragma unroll
    for (int r = 0; r < RW; r++) {
        gk_i64 n = n0 + (r % H) < p.N ? n0 + (r % H) : n0; // rows past N re-read row n0 (never stored)
        w[r] = (const S *)p.b + (GLU && r >= H ? p.N + n : n) * p.b_cs;
    }
    float acc[MR][RW];
#pragma unroll
    for (int m = 0; m < MR; m++)
#pragma unroll
        for (int r = 0; r < RW; r++) acc[m][r] = 0.0f;
    gk_i64 nv = p.K / V;
    gk_pdl_launch();
    for (gk_i64 c = tid; c < nv; c += NT * U) {
        uint4 wv[RW][U];
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int r = 0; r < RW; r++)
                wv[r][u] = c + NT * u < nv ? gk_ld_stream16(w[r] + (c + NT * u) * V) : make_uint4(0, 0, 0, 0);
        if (c == tid) gk_pdl_wait(); // x (and later the output) may come from the previous kernel; W never does
#pragma unroll
        for (int u = 0; u < U; u++) {
            if (c + NT * u >= nv) break;
#pragma unroll
            for (int m = 0; m < MR; m++) {
                if (m >= M) break;
                union { uint4 v; S s[16 / sizeof(S)]; } xu;
                float xf[16 / sizeof(S)];
                xu.v = __ldg((const uint4 *)(x + m * p.a_rs) + c + NT * u);
#pragma unroll
                for (int e = 0; e < V; e++) xf[e] = (float)T::ld(xu.s[e]);
#pragma unroll
                for (int r = 0; r < RW; r++) {
                    union { uint4 v; S s[16 / sizeof(S)]; } wu;
                    wu.v = wv[r][u];
#pragma unroll
                    for (int e = 0; e < V; e++) acc[m][r] = fmaf((float)T::ld(wu.s[e]), xf[e], acc[m][r]);
                }
            }
        }
    }
    gk_pdl_wait(); // threads without a vector of K still store
    // warp sums, then across warps through shared memory
#pragma unroll
    for (int m = 0; m < MR; m++) {
        if (m >= M) break;
#pragma unroll
        for (int r = 0; r < RW; r++) {
            float v = acc[m][r];
#pragma unroll
            for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffffu, v, off);
            if (NW > 1 && lane == 0) red[warp][m * RW + r] = v;
            acc[m][r] = v;
        }
    }
    if (NW > 1) __syncthreads();
    // thread j = m * H + h stores out[m, n0 + h]
    for (int j = tid; j < M * H; j += NT) {
        int m = j / H, h = j - m * H;
        float g = 0.0f, u = 0.0f;
        if (NW > 1) {
            for (int q = 0; q < NW; q++) { g += red[q][m * RW + h]; if (GLU) u += red[q][m * RW + H + h]; }
        } else {
#pragma unroll
            for (int mm = 0; mm < MR; mm++)
#pragma unroll
                for (int r = 0; r < RW; r++) {
                    if (mm == m && r == h) g = acc[mm][r];
                    if (GLU && mm == m && r == H + h) u = acc[mm][r];
                }
        }
        if (n0 + h < p.N) gk_gemv_store<DT>(p, m, n0 + h, g, u, GLU);
    }
}
// configurations (NT threads, U vectors per row in flight, RW rows), chosen by
// the host from K (gk__gemv_cfg in gpukit.h); MR = 1, 2, 4, 8 (M <= MR).
#define GK_GEMV_K(DTN, MR, CFG, NT, U, RW, GLU, SFX) \
    extern "C" __global__ void __launch_bounds__(NT) gk_gemv##SFX##_##DTN##_m##MR##_c##CFG(gk_gemm_p p) { gk_gemv<GK_DT_##DTN, MR, RW, NT, U, GLU>(p); }
#define GK_GEMV_MR(DTN, CFG, NT, U, RW) \
    GK_GEMV_K(DTN, 1, CFG, NT, U, RW, 0, ) GK_GEMV_K(DTN, 2, CFG, NT, U, RW, 0, ) GK_GEMV_K(DTN, 4, CFG, NT, U, RW, 0, ) GK_GEMV_K(DTN, 8, CFG, NT, U, RW, 0, ) \
    GK_GEMV_K(DTN, 1, CFG, NT, U, RW, 1, _glu) GK_GEMV_K(DTN, 2, CFG, NT, U, RW, 1, _glu) GK_GEMV_K(DTN, 4, CFG, NT, U, RW, 1, _glu) GK_GEMV_K(DTN, 8, CFG, NT, U, RW, 1, _glu)
#define GK_GEMV_CFGS(DTN) \
    GK_GEMV_MR(DTN, 0, 32, 4, 4) GK_GEMV_MR(DTN, 1, 64, 4, 4) GK_GEMV_MR(DTN, 2, 128, 4, 2) GK_GEMV_MR(DTN, 3, 256, 4, 2) GK_GEMV_MR(DTN, 4, 128, 2, 4) GK_GEMV_MR(DTN, 5, 256, 2, 2)
GK_GEMV_CFGS(f32)
GK_GEMV_CFGS(f16)
GK_GEMV_CFGS(bf16)

// ---- tensor-core GEMV for 16-bit weights, M <= 8 rows: out^T = W x^T as mma.m16n8k16 ----
// A warp multiplies 16 weight rows (the mma's M) by the <= 8 rows of x (its
// N; rows past M are zeros). Because the sum over k does not care about the
// order of k, each thread loads 8 consecutive k (16 bytes) of weight rows g
// and g + 8 and of x row g (g = lane / 4, k0 = 8 * (lane % 4) + 32 * step)
// and feeds them to two mmas as their fragment elements: no shuffles,
// ldmatrix or shared memory. The block's NW warps split K (U steps of 32 k
// in flight each) and reduce through shared memory. GLU: each warp also
// multiplies the matching 16 up rows (N + n) and the store applies act(g)*u.
__device__ __forceinline__ void gk_mma16816(float *c, const unsigned *a, unsigned b0, unsigned b1, int bf) {
    if (bf)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <int DT, int NW, int U, int GLU> __device__ __forceinline__ void gk_gemv_tc(const gk_gemm_p &p) {
    const int NH = GLU ? 2 : 1;
    __shared__ float red[NW][NH][16][8];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, g = lane >> 2, t = lane & 3;
    int M = (int)p.M;
    gk_i64 n0 = (gk_i64)blockIdx.x * 16;
    const gk_u16 *w[NH][2];
#pragma unroll
    for (int h = 0; h < NH; h++)
#pragma unroll
        for (int r = 0; r < 2; r++) {
            gk_i64 n = n0 + g + 8 * r < p.N ? n0 + g + 8 * r : p.N - 1; // rows past N re-read the last row (never stored)
            w[h][r] = (const gk_u16 *)p.b + (n + h * p.N) * p.b_cs;
        }
    const gk_u16 *x = (const gk_u16 *)p.a + (gk_i64)(g < M ? g : 0) * p.a_rs;
    float c[NH][4];
#pragma unroll
    for (int h = 0; h < NH; h++) c[h][0] = c[h][1] = c[h][2] = c[h][3] = 0.0f;
    gk_i64 nsteps = (p.K + 31) / 32;
    gk_pdl_launch();
    for (gk_i64 s0 = (gk_i64)warp * U; s0 < nsteps; s0 += (gk_i64)NW * U) {
        uint4 wv[NH][2][U], xv[U];
#pragma unroll
        for (int u = 0; u < U; u++) {
            gk_i64 k0 = (s0 + u) * 32 + t * 8;
            bool ok = s0 + u < nsteps && k0 < p.K;
#pragma unroll
            for (int h = 0; h < NH; h++)
#pragma unroll
                for (int r = 0; r < 2; r++) wv[h][r][u] = ok ? gk_ld_stream16(w[h][r] + k0) : make_uint4(0, 0, 0, 0);
        }
        if (s0 == (gk_i64)warp * U) gk_pdl_wait(); // x may come from the previous kernel; W never does
#pragma unroll
        for (int u = 0; u < U; u++) {
            gk_i64 k0 = (s0 + u) * 32 + t * 8;
            bool ok = s0 + u < nsteps && k0 < p.K;
            xv[u] = ok && g < M ? __ldg((const uint4 *)(x + k0)) : make_uint4(0, 0, 0, 0);
        }
#pragma unroll
        for (int u = 0; u < U; u++)
#pragma unroll
            for (int h = 0; h < NH; h++) {
                unsigned a0[4] = { wv[h][0][u].x, wv[h][1][u].x, wv[h][0][u].y, wv[h][1][u].y };
                unsigned a1[4] = { wv[h][0][u].z, wv[h][1][u].z, wv[h][0][u].w, wv[h][1][u].w };
                gk_mma16816(c[h], a0, xv[u].x, xv[u].y, DT == GK_DT_bf16);
                gk_mma16816(c[h], a1, xv[u].z, xv[u].w, DT == GK_DT_bf16);
            }
    }
    gk_pdl_wait(); // warps without a step of K still store
    // c[h][0..1]: weight row g, x rows 2t, 2t+1; c[h][2..3]: weight row g + 8
#pragma unroll
    for (int h = 0; h < NH; h++) {
        red[warp][h][g][2 * t] = c[h][0]; red[warp][h][g][2 * t + 1] = c[h][1];
        red[warp][h][g + 8][2 * t] = c[h][2]; red[warp][h][g + 8][2 * t + 1] = c[h][3];
    }
    __syncthreads();
    for (int j = threadIdx.x; j < 128; j += NW * 32) {
        int row = j >> 3, m = j & 7;
        if (m >= M || n0 + row >= p.N) continue;
        float a = 0.0f, b = 0.0f;
#pragma unroll
        for (int q = 0; q < NW; q++) { a += red[q][0][row][m]; if (GLU) b += red[q][NH - 1][row][m]; }
        gk_gemv_store<DT>(p, m, n0 + row, a, b, GLU);
    }
}
#define GK_GEMVTC_K(DTN, CFG, NW, U, GLU, SFX) \
    extern "C" __global__ void __launch_bounds__(NW * 32) gk_gemvtc##SFX##_##DTN##_c##CFG(gk_gemm_p p) { gk_gemv_tc<GK_DT_##DTN, NW, U, GLU>(p); }
// configurations (the host's 6 and 7, gk__gemv_cfg): c0 4 warps of 4 steps in flight, c1 8 warps of 2
#define GK_GEMVTC_CFGS(DTN) \
    GK_GEMVTC_K(DTN, 0, 4, 4, 0, ) GK_GEMVTC_K(DTN, 1, 8, 2, 0, ) GK_GEMVTC_K(DTN, 0, 4, 4, 1, _glu) GK_GEMVTC_K(DTN, 1, 8, 2, 1, _glu)
GK_GEMVTC_CFGS(f16)
GK_GEMVTC_CFGS(bf16)

// ---- epilogue after an external GEMM: out = act(out) + residual ----
template <int DO> __device__ __forceinline__ void gk_epi(const gk_gemm_p &p) {
    typedef gk_ty<DO> TO;
    gk_i64 total = p.M * p.N * (gk_i64)gridDim.y;
    (void)total;
    gk_i64 bz = blockIdx.y;
    for (gk_i64 i = GK_TID; i < p.M * p.N; i += GK_NTHREADS) {
        gk_i64 m = i / p.N, n = i - m * p.N;
        typename TO::S *o = (typename TO::S *)p.o + bz * p.o_bs + m * p.o_rs + n;
        float v = (float)TO::ld(*o);
        if (p.pad && p.bias) v += gk_ld_any<float>(p.bias, n, p.bias_dt); // pad: bias not added by the GEMM
        v = gk_act<float>(v, p.act);
        if (p.res) v += gk_ld_any<float>(p.res, bz * p.r_bs + m * p.r_rs + n, p.res_dt);
        *o = TO::st((typename TO::C)v);
    }
}
extern "C" __global__ void gk_epilogue_f32(gk_gemm_p p) { gk_epi<GK_DT_f32>(p); }
extern "C" __global__ void gk_epilogue_f16(gk_gemm_p p) { gk_epi<GK_DT_f16>(p); }
extern "C" __global__ void gk_epilogue_bf16(gk_gemm_p p) { gk_epi<GK_DT_bf16>(p); }
