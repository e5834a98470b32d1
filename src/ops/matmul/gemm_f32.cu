// gemm_f32.cu - exact fp32 GEMM on CUDA cores (no TF32), the fast path of
// gemm.cu's gk_gemm_f32_<out> for operands with 16-byte rows:
//   gk_sg_<A k/m>_<B k/n>_<out>  out[b] = act(alpha * op(A)[b] op(B)[b] + beta * out[b] + bias) + residual[b]
// op(A)[m, k] at m * a_rs + k * a_cs (A "k": a_cs == 1, "m": a_rs == 1),
// op(B)[k, n] at k * b_rs + n * b_cs (B "n": b_cs == 1, "k": b_rs == 1); the
// four names cover NN (k n), NT (k k), TN (m n) and TT (m k).
// Block tile 128 x 128, k tile 8, 256 threads; warps 2 (M) x 4 (N), each a
// 64 x 32 warp tile, each thread an 8 x 8 register tile of rows
// wm + 4 * ly + {0..3, 32..35} and columns wn + 4 * lx + {0..3, 16..19}.
// Shared memory holds both operands k-major (As[k][m], Bs[k][n]; rows padded
// to 132 floats so the transposing stores of a k-contiguous operand are free
// of bank conflicts), double-buffered: the next k tile is read from global
// memory into registers (one float4 of A and one of B per thread) before the
// current one is multiplied, and stored after it, so one barrier per k tile.
// The inner step is 4 LDS.128 + 64 FFMA. Blocks walk the tiles in groups of 8
// tile rows (L2 reuse). Ragged M, N, K are predicated (zeros past the edge).
// Needs (the host checks, gpukit.h gk__sg_ok): A and B 16-byte aligned, their
// leading and batch strides multiples of 4 elements; out, bias and residual
// any alignment (the store is a float4 only where it is aligned and whole).
// Grid: x = tiles (M / 128 * N / 128, grouped), y = batch.
#include "gk_gemm.cuh"

#define GK_SG_GROUP 8

// 4 floats at p[0..3], whole when c + 3 < lim (16-byte aligned then), else
// element by element up to lim; zeros where !ok
__device__ __forceinline__ float4 gk_sg_ld4(const float *p, gk_i64 c, gk_i64 lim, bool ok) {
    float4 v = make_float4(0.f, 0.f, 0.f, 0.f);
    if (ok) {
        if (c + 3 < lim) v = __ldg((const float4 *)p);
        else {
            if (c < lim) v.x = __ldg(p);
            if (c + 1 < lim) v.y = __ldg(p + 1);
            if (c + 2 < lim) v.z = __ldg(p + 2);
        }
    }
    return v;
}

template <int DO> __device__ __forceinline__ void gk_sg_store(const gk_gemm_p &p, gk_i64 bz, gk_i64 m, gk_i64 n, const float *acc, bool vec) {
    typedef gk_ty<DO> TO;
    typename TO::S *o = (typename TO::S *)p.o + bz * p.o_bs + m * p.o_rs + n;
    float v[4];
    float alpha = (float)p.alpha, beta = (float)p.beta;
#pragma unroll
    for (int j = 0; j < 4; j++) v[j] = alpha * acc[j];
    if (DO == GK_DT_f32 && vec) {
        if (beta != 0.0f) {
            float4 ov = *(const float4 *)o;
            v[0] += beta * ov.x; v[1] += beta * ov.y; v[2] += beta * ov.z; v[3] += beta * ov.w;
        }
    } else if (beta != 0.0f) {
#pragma unroll
        for (int j = 0; j < 4; j++)
            if (n + j < p.N) v[j] += beta * (float)TO::ld(o[j]);
    }
    if (p.bias) {
#pragma unroll
        for (int j = 0; j < 4; j++)
            if (n + j < p.N) v[j] += gk_ld_any<float>(p.bias, n + j, p.bias_dt);
    }
    if (p.act != GK_ACT_NONE) {
#pragma unroll
        for (int j = 0; j < 4; j++) v[j] = gk_act<float>(v[j], p.act);
    }
    if (p.res) {
#pragma unroll
        for (int j = 0; j < 4; j++)
            if (n + j < p.N) v[j] += gk_ld_any<float>(p.res, bz * p.r_bs + m * p.r_rs + n + j, p.res_dt);
    }
    if (DO == GK_DT_f32 && vec) *(float4 *)o = make_float4(v[0], v[1], v[2], v[3]);
    else {
#pragma unroll
        for (int j = 0; j < 4; j++)
            if (n + j < p.N) o[j] = TO::st((typename TO::C)v[j]);
    }
}

// BM x BN block tile, k tile BKT, 256 threads of TM x TN (multiples of 4):
// warps WM x WN with WM = BM / (8 TM), each lane 8 (M) x 4 (N) of float4
// groups TM / 4 apart by 32 rows and TN / 4 apart by 16 columns.
template <int BM, int BN, int BKT, int TM, int TN, int AK, int BK, int DO> __device__ __forceinline__ void gk_sg(const gk_gemm_p &p) {
    const int LDA = BM + 4, LDB = BN + 4, WN = BN / (4 * TN), GA = TM / 4, GB = TN / 4;
    const int NLA = BM * BKT / 1024, NLB = BN * BKT / 1024; // float4 loads per thread per k tile
    __shared__ __align__(16) float As[2][BKT][BM + 4];
    __shared__ __align__(16) float Bs[2][BKT][BN + 4];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    // tile of this block: groups of GK_SG_GROUP tile rows, column-major inside a group
    const gk_i64 tm_n = (p.M + BM - 1) / BM, tn_n = (p.N + BN - 1) / BN;
    gk_i64 bid = blockIdx.x, per = (gk_i64)GK_SG_GROUP * tn_n, grp = bid / per, first = grp * GK_SG_GROUP;
    gk_i64 gsz = tm_n - first < GK_SG_GROUP ? tm_n - first : GK_SG_GROUP, in = bid - grp * per;
    const gk_i64 m0 = (first + in % gsz) * BM, n0 = (in / gsz) * BN;
    const gk_i64 bz = blockIdx.y;
    const float *A = (const float *)p.a + bz * p.a_bs;
    const float *B = (const float *)p.b + bz * p.b_bs;
    const gk_i64 K = p.K;

    // global -> register loads, load r of a thread is float4 e = tid + 256 r:
    // k-contiguous operand: row e / (BKT / 4) (m or n), k 4 * (e % (BKT / 4));
    // m / n-contiguous: k row e / (BM / 4), column 4 * (e % (BM / 4)).
    int ar[NLA], ac[NLA], br[NLB], bc[NLB];
    const float *pa[NLA], *pb[NLB];
    bool aok[NLA], bok[NLB];
#pragma unroll
    for (int r = 0; r < NLA; r++) {
        int e = tid + 256 * r;
        ar[r] = AK ? e / (BKT / 4) : e / (BM / 4);
        ac[r] = AK ? (e % (BKT / 4)) * 4 : (e % (BM / 4)) * 4;
        pa[r] = AK ? A + (m0 + ar[r]) * p.a_rs + ac[r] : A + (gk_i64)ar[r] * p.a_cs + m0 + ac[r];
        aok[r] = AK ? m0 + ar[r] < p.M : true;
    }
#pragma unroll
    for (int r = 0; r < NLB; r++) {
        int e = tid + 256 * r;
        br[r] = BK ? e / (BKT / 4) : e / (BN / 4);
        bc[r] = BK ? (e % (BKT / 4)) * 4 : (e % (BN / 4)) * 4;
        pb[r] = BK ? B + (n0 + br[r]) * p.b_cs + bc[r] : B + (gk_i64)br[r] * p.b_rs + n0 + bc[r];
        bok[r] = BK ? n0 + br[r] < p.N : true;
    }
    const gk_i64 a_step = AK ? BKT : BKT * p.a_cs, b_step = BK ? BKT : BKT * p.b_rs;

    float4 ra[NLA], rb[NLB];
    gk_i64 k0 = 0;
#define GK_SG_LOAD()                                                                                              \
    {                                                                                                             \
        _Pragma("unroll") for (int r = 0; r < NLA; r++) {                                                         \
            if (AK) ra[r] = gk_sg_ld4(pa[r], k0 + ac[r], K, aok[r]);                                              \
            else ra[r] = gk_sg_ld4(pa[r], m0 + ac[r], p.M, k0 + ar[r] < K);                                       \
        }                                                                                                         \
        _Pragma("unroll") for (int r = 0; r < NLB; r++) {                                                         \
            if (BK) rb[r] = gk_sg_ld4(pb[r], k0 + bc[r], K, bok[r]);                                              \
            else rb[r] = gk_sg_ld4(pb[r], n0 + bc[r], p.N, k0 + br[r] < K);                                       \
        }                                                                                                         \
    }
#define GK_SG_STORE(buf)                                                                                          \
    {                                                                                                             \
        _Pragma("unroll") for (int r = 0; r < NLA; r++) {                                                         \
            if (AK) { As[buf][ac[r]][ar[r]] = ra[r].x; As[buf][ac[r] + 1][ar[r]] = ra[r].y; As[buf][ac[r] + 2][ar[r]] = ra[r].z; As[buf][ac[r] + 3][ar[r]] = ra[r].w; } \
            else *(float4 *)&As[buf][ar[r]][ac[r]] = ra[r];                                                       \
        }                                                                                                         \
        _Pragma("unroll") for (int r = 0; r < NLB; r++) {                                                         \
            if (BK) { Bs[buf][bc[r]][br[r]] = rb[r].x; Bs[buf][bc[r] + 1][br[r]] = rb[r].y; Bs[buf][bc[r] + 2][br[r]] = rb[r].z; Bs[buf][bc[r] + 3][br[r]] = rb[r].w; } \
            else *(float4 *)&Bs[buf][br[r]][bc[r]] = rb[r];                                                       \
        }                                                                                                         \
    }

    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; i++)
#pragma unroll
        for (int j = 0; j < TN; j++) acc[i][j] = 0.0f;

    const int wm = (warp / WN) * (GA * 32) + (lane >> 2) * 4, wn = (warp % WN) * (GB * 16) + (lane & 3) * 4;
    const gk_i64 nk = (K + BKT - 1) / BKT;
    GK_SG_LOAD();
    GK_SG_STORE(0);
    __syncthreads();
    for (gk_i64 kt = 0; kt < nk; kt++) {
        const int buf = (int)(kt & 1);
        if (kt + 1 < nk) {
#pragma unroll
            for (int r = 0; r < NLA; r++) pa[r] += a_step;
#pragma unroll
            for (int r = 0; r < NLB; r++) pb[r] += b_step;
            k0 += BKT;
            GK_SG_LOAD();
        }
#pragma unroll
        for (int kk = 0; kk < BKT; kk++) {
            float a[TM], b[TN];
#pragma unroll
            for (int g = 0; g < GA; g++) {
                float4 v = *(const float4 *)&As[buf][kk][wm + 32 * g];
                a[4 * g] = v.x; a[4 * g + 1] = v.y; a[4 * g + 2] = v.z; a[4 * g + 3] = v.w;
            }
#pragma unroll
            for (int g = 0; g < GB; g++) {
                float4 v = *(const float4 *)&Bs[buf][kk][wn + 16 * g];
                b[4 * g] = v.x; b[4 * g + 1] = v.y; b[4 * g + 2] = v.z; b[4 * g + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < TM; i++)
#pragma unroll
                for (int j = 0; j < TN; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
        if (kt + 1 < nk) GK_SG_STORE(buf ^ 1);
        __syncthreads();
    }
#undef GK_SG_LOAD
#undef GK_SG_STORE
    (void)LDA; (void)LDB;

    // epilogue: rows of 4 consecutive columns; float4 stores where out allows
    const bool ovec = DO == GK_DT_f32 && ((((unsigned long long)p.o) & 15) == 0) && (p.o_rs & 3) == 0 && (p.o_bs & 3) == 0;
#pragma unroll
    for (int i = 0; i < TM; i++) {
        gk_i64 m = m0 + wm + 32 * (i / 4) + (i % 4);
        if (m >= p.M) continue;
#pragma unroll
        for (int h = 0; h < GB; h++) {
            gk_i64 n = n0 + wn + 16 * h;
            if (n >= p.N) continue;
            gk_sg_store<DO>(p, bz, m, n, &acc[i][4 * h], ovec && n + 3 < p.N);
        }
    }
}

// gk_sg_<A>_<B>_<out>: 128 x 128, k tile 8, 8 x 8 a thread (2 blocks an SM);
// gk_sg1_<A>_<B>_f32: 128 x 128, k tile 16 (the host's choice for f32 out of NT, TN and TT)
#define GK_SG_K(AN, AK, BN, BK, OUT)                                                                                      \
    extern "C" __global__ void __launch_bounds__(256, 2) gk_sg_##AN##_##BN##_##OUT(gk_gemm_p p) { gk_sg<128, 128, 8, 8, 8, AK, BK, GK_DT_##OUT>(p); }
#define GK_SG_V1(AN, AK, BN, BK)                                                                                          \
    extern "C" __global__ void __launch_bounds__(256, 2) gk_sg1_##AN##_##BN##_f32(gk_gemm_p p) { gk_sg<128, 128, 16, 8, 8, AK, BK, GK_DT_f32>(p); }
#define GK_SG_ALL(AN, AK, BN, BK)                                                                                         \
    GK_SG_K(AN, AK, BN, BK, f32) GK_SG_K(AN, AK, BN, BK, f16) GK_SG_K(AN, AK, BN, BK, bf16) GK_SG_V1(AN, AK, BN, BK)
GK_SG_ALL(k, 1, n, 0)
GK_SG_ALL(k, 1, k, 1)
GK_SG_ALL(m, 0, n, 0)
GK_SG_ALL(m, 0, k, 1)
