// gk_gemm_tc.cuh - gpukit's own tensor-core GEMM (sm_80+): mma.sync, ldmatrix,
// cp.async multi-stage pipeline, XOR-swizzled shared memory.
// Instantiated by gemm_tc.cu (bf16), gemm_tc_f16.cu and gemm_tc_tf32.cu: one
// module each, so a first use compiles only its dtype.
//   gk_tc_<dt>_<tile>_<ab>     f16 / bf16 inputs, m16n8k16, fp32 accumulation
//   gk_tc_tf32_<tile>_<ab>     f32 inputs on TF32 tensor cores (m16n8k8), only when asked
// <tile>: BMxBN (BK 32 for 16-bit, 16 for tf32), 256 threads = 8 warps (2 x 4).
// <ab>: operand layouts in memory: A "k" = op(A)[m, k] k-contiguous (row-major
// A), "m" = m-contiguous (a transposed view); B "k" = k-contiguous (a [N, K]
// weight, as in gk_linear), "n" = n-contiguous (row-major B). Shared memory
// keeps each tile in its memory layout (16-byte cp.async rows) and ldmatrix
// (.trans where needed) builds the mma fragments, so NN / NT / TN / TT need no
// transpose pass.
// Parameters: gk_gemm_p (gemm.cu's layout); here `pad` is the output dtype
// code. Host requirements (gpukit.h, gk__matmul): 16-byte aligned A and B,
// their leading and batch strides multiples of 16 bytes; any M, N, K (edge
// chunks are zero-filled by cp.async's src-size). Epilogue as gemm.cu's:
// out = act(alpha * acc + beta * out + bias) + residual.
#pragma once
#include "gk_gemm.cuh"

__device__ __forceinline__ unsigned gk_tc_smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
// 16-byte async copy; bytes < 16 zero-fills the rest (0: all zeros, src unread)
__device__ __forceinline__ void gk_tc_cp16(unsigned dst, const void *src, int bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(bytes));
}
__device__ __forceinline__ void gk_tc_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void gk_tc_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N)); }
template <int DT> __device__ __forceinline__ void gk_tc_mma(float *c, const unsigned *a, unsigned b0, unsigned b1) {
    if (DT == GK_DT_bf16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    else if (DT == GK_DT_f16)
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    else // f32 data as TF32, m16n8k8
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                     : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
__device__ __forceinline__ unsigned gk_tc_tf32(unsigned f) {
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(__uint_as_float(f)));
    return r;
}

// Shared-memory tiles: R rows of CH 16-byte chunks, chunk c of row r stored at
// chunk c ^ s(r). Any 8 rows read at one logical chunk (ldmatrix: 8 rows x 16
// bytes) hit 8 different 16-byte bank groups: rows of >= 128 bytes use
// s(r) = r & 7; rows of 64 bytes (two rows per 128 bytes) use (r >> 1) & 3.
template <int CH> __device__ __forceinline__ int gk_tc_swz(int r, int c) {
    return r * CH + (CH >= 8 ? (c ^ (r & 7)) : (c ^ ((r >> 1) & 3)));
}

// Starts the copy of one tile: row r is global row o0 + r (< O) at stride ld
// (elements), chunk c holds elements i0 + c * V .. + V - 1 of it (< I).
template <int R, int CH, int ES> __device__ __forceinline__ void gk_tc_load(unsigned sb, const char *g, gk_i64 ld, gk_i64 o0, gk_i64 O,
                                                                            gk_i64 i0, gk_i64 I, int tid) {
    const int V = 16 / ES;
#pragma unroll
    for (int it = 0; it < (R * CH + 255) / 256; it++) {
        int idx = tid + it * 256;
        if ((R * CH) % 256 == 0 || idx < R * CH) {
            int r = idx / CH, c = idx % CH;
            gk_i64 go = o0 + r, gi = i0 + c * V, left = I - gi;
            int bytes = (go < O && left > 0) ? (int)(left < V ? left : V) * ES : 0;
            const char *src = bytes ? g + (go * ld + gi) * ES : g;
            gk_tc_cp16(sb + gk_tc_swz<CH>(r, c) * 16, src, bytes);
        }
    }
}

template <int DO> __device__ __forceinline__ void gk_tc_store1(const gk_gemm_p &p, gk_i64 bz, gk_i64 m, gk_i64 n, float acc) {
    typedef gk_ty<DO> TO;
    typename TO::S *o = (typename TO::S *)p.o + bz * p.o_bs + m * p.o_rs + n;
    float v = (float)p.alpha * acc;
    if (p.beta != 0.0) v += (float)p.beta * (float)TO::ld(*o);
    if (p.bias) v += gk_ld_any<float>(p.bias, n, p.bias_dt);
    v = gk_act<float>(v, p.act);
    if (p.res) v += gk_ld_any<float>(p.res, bz * p.r_bs + m * p.r_rs + n, p.res_dt);
    *o = TO::st(v);
}
template <int DO, int MT, int NT> __device__ __forceinline__ void gk_tc_epilogue(const gk_gemm_p &p, gk_i64 bz, gk_i64 mb, gk_i64 nb,
                                                                                 float (&acc)[MT][NT][4]) {
    int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                gk_i64 m = mb + i * 16 + g + (e >= 2 ? 8 : 0), n = nb + j * 8 + t * 2 + (e & 1);
                if (m < p.M && n < p.N) gk_tc_store1<DO>(p, bz, m, n, acc[i][j][e]);
            }
}

// The kernel body. DT: GK_DT_bf16 / f16 (k16 steps, ldmatrix) or f32 (TF32:
// k8 steps; 32-bit elements, so ldmatrix only for k-contiguous tiles, where a
// b16 8x8 matrix is exactly a tf32 8x4 fragment; scalar loads otherwise).
// AK: A k-contiguous; BKC: B k-contiguous. 8 warps as 2 (m) x 4 (n).
template <int DT, int BM, int BN, int BK, int ST, bool AK, bool BKC> __device__ __forceinline__ void gk_tc_gemm(const gk_gemm_p &p) {
    const int ES = DT == GK_DT_f32 ? 4 : 2, V = 16 / ES;
    const int WM = 2, WN = 4, WTM = BM / WM, WTN = BN / WN, MT = WTM / 16, NT = WTN / 8;
    const int KS = DT == GK_DT_f32 ? 8 : 16; // k per mma
    // tile shapes in shared memory (rows x 16-byte chunks)
    const int A_R = AK ? BM : BK, A_CH = (AK ? BK : BM) / V;
    const int B_R = BKC ? BN : BK, B_CH = (BKC ? BK : BN) / V;
    const int A_BYTES = BM * BK * ES, B_BYTES = BN * BK * ES;
    extern __shared__ __align__(128) unsigned char gk_tc_sm[];
    const unsigned sA = gk_tc_smem(gk_tc_sm), sB = sA + ST * A_BYTES;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, wm = warp / WN, wn = warp % WN;

    // tile order: groups of 8 tile rows sweep the columns (L2 reuse)
    gk_i64 tiles_m = (p.M + BM - 1) / BM, tiles_n = (p.N + BN - 1) / BN;
    gk_i64 t = blockIdx.x, per_group = 8 * tiles_n, first = t / per_group * 8;
    gk_i64 gsz = tiles_m - first < 8 ? tiles_m - first : 8;
    gk_i64 tm = first + (t % per_group) % gsz, tn = (t % per_group) / gsz;
    gk_i64 m0 = tm * BM, n0 = tn * BN, bz = blockIdx.z;
    const char *A = (const char *)p.a + bz * p.a_bs * ES;
    const char *B = (const char *)p.b + bz * p.b_bs * ES;
    const gk_i64 lda = AK ? p.a_rs : p.a_cs, ldb = BKC ? p.b_cs : p.b_rs;

    float acc[MT][NT][4];
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) acc[i][j][e] = 0.0f;

    const int KT = (int)((p.K + BK - 1) / BK);
#define GK_TC_LOAD(kt, s)                                                                                                     \
    do {                                                                                                                      \
        gk_i64 k0_ = (gk_i64)(kt) * BK;                                                                                       \
        if (AK) gk_tc_load<A_R, A_CH, ES>(sA + (s) * A_BYTES, A, lda, m0, p.M, k0_, p.K, tid);                                \
        else gk_tc_load<A_R, A_CH, ES>(sA + (s) * A_BYTES, A, lda, k0_, p.K, m0, p.M, tid);                                   \
        if (BKC) gk_tc_load<B_R, B_CH, ES>(sB + (s) * B_BYTES, B, ldb, n0, p.N, k0_, p.K, tid);                               \
        else gk_tc_load<B_R, B_CH, ES>(sB + (s) * B_BYTES, B, ldb, k0_, p.K, n0, p.N, tid);                                   \
    } while (0)
#pragma unroll
    for (int s = 0; s < ST - 1; s++) {
        if (s < KT) GK_TC_LOAD(s, s);
        gk_tc_commit();
    }
    const int g = lane / 4, tg = lane % 4;
    for (int kt = 0; kt < KT; kt++) {
        gk_tc_wait<ST - 2>();
        __syncthreads();
        {
            int nk = kt + ST - 1;
            if (nk < KT) GK_TC_LOAD(nk, nk % ST);
            gk_tc_commit();
        }
        const int s = kt % ST;
        const unsigned a_s = sA + s * A_BYTES, b_s = sB + s * B_BYTES;
#pragma unroll
        for (int kk = 0; kk < BK; kk += KS) {
            unsigned af[MT][4], bf[NT][2];
            if (DT != GK_DT_f32) {
#pragma unroll
                for (int i = 0; i < MT; i++) {
                    int mr = wm * WTM + i * 16;
                    if (AK) gk_ldsm(af[i], a_s + gk_tc_swz<A_CH>(mr + (lane & 15), (kk >> 3) + (lane >> 4)) * 16);
                    else gk_ldsm_t(af[i], a_s + gk_tc_swz<A_CH>(kk + (lane & 7) + ((lane >> 4) << 3), ((mr >> 3) + ((lane >> 3) & 1))) * 16);
                }
#pragma unroll
                for (int j = 0; j < NT; j += 2) {
                    int nc = wn * WTN + j * 8;
                    unsigned r[4];
                    if (BKC) gk_ldsm(r, b_s + gk_tc_swz<B_CH>(nc + (lane & 7) + ((lane >> 4) << 3), (kk >> 3) + ((lane >> 3) & 1)) * 16);
                    else gk_ldsm_t(r, b_s + gk_tc_swz<B_CH>(kk + (lane & 7) + (((lane >> 3) & 1) << 3), (nc >> 3) + (lane >> 4)) * 16);
                    bf[j][0] = r[0]; bf[j][1] = r[1]; bf[j + 1][0] = r[2]; bf[j + 1][1] = r[3];
                }
            } else {
                // tf32: A frag a0 (m g, k tg), a1 (m g+8, k tg), a2 (m g, k tg+4), a3 (m g+8, k tg+4);
                // B frag b0 (k tg, n g), b1 (k tg+4, n g). 4 floats per chunk.
#pragma unroll
                for (int i = 0; i < MT; i++) {
                    int mr = wm * WTM + i * 16;
                    if (AK) gk_ldsm(af[i], a_s + gk_tc_swz<A_CH>(mr + (lane & 15), (kk >> 2) + (lane >> 4)) * 16);
                    else {
#pragma unroll
                        for (int e = 0; e < 4; e++) {
                            int k = kk + tg + (e >= 2 ? 4 : 0), m = mr + g + (e & 1) * 8;
                            af[i][e] = *(const unsigned *)(gk_tc_sm + (a_s - sA) + gk_tc_swz<A_CH>(k, m >> 2) * 16 + (m & 3) * 4);
                        }
                    }
#pragma unroll
                    for (int e = 0; e < 4; e++) af[i][e] = gk_tc_tf32(af[i][e]);
                }
#pragma unroll
                for (int j = 0; j < NT; j += 2) {
                    int nc = wn * WTN + j * 8;
                    if (BKC) {
                        unsigned r[4];
                        gk_ldsm(r, b_s + gk_tc_swz<B_CH>(nc + (lane & 7) + ((lane >> 4) << 3), (kk >> 2) + ((lane >> 3) & 1)) * 16);
                        bf[j][0] = r[0]; bf[j][1] = r[1]; bf[j + 1][0] = r[2]; bf[j + 1][1] = r[3];
                    } else {
#pragma unroll
                        for (int h = 0; h < 2; h++)
#pragma unroll
                            for (int e = 0; e < 2; e++) {
                                int k = kk + tg + e * 4, n = nc + h * 8 + g;
                                bf[j + h][e] = *(const unsigned *)(gk_tc_sm + (b_s - sA) + gk_tc_swz<B_CH>(k, n >> 2) * 16 + (n & 3) * 4);
                            }
                    }
#pragma unroll
                    for (int h = 0; h < 2; h++) { bf[j + h][0] = gk_tc_tf32(bf[j + h][0]); bf[j + h][1] = gk_tc_tf32(bf[j + h][1]); }
                }
            }
#pragma unroll
            for (int i = 0; i < MT; i++)
#pragma unroll
                for (int j = 0; j < NT; j++) gk_tc_mma<DT>(acc[i][j], af[i], bf[j][0], bf[j][1]);
        }
    }
#undef GK_TC_LOAD
    gk_tc_wait<0>();
    gk_i64 mb = m0 + wm * WTM, nb = n0 + wn * WTN;
    if (p.pad == GK_DT_f32) gk_tc_epilogue<GK_DT_f32, MT, NT>(p, bz, mb, nb, acc);
    else if (p.pad == GK_DT_f16) gk_tc_epilogue<GK_DT_f16, MT, NT>(p, bz, mb, nb, acc);
    else gk_tc_epilogue<GK_DT_bf16, MT, NT>(p, bz, mb, nb, acc);
}

// Shared memory per tile config: ST * (BM + BN) * BK * element size (the host
// computes the same: gk__tc_tiles in gpukit.h).
#define GK_TC_K(NAME, DT, BM, BN, BK, ST, MINB, AK, BKC) \
    extern "C" __global__ void __launch_bounds__(256, MINB) NAME(gk_gemm_p p) { gk_tc_gemm<DT, BM, BN, BK, ST, AK, BKC>(p); }
#define GK_TC_LAYOUTS(DTN, DT, BM, BN, BK, ST, MINB)                                         \
    GK_TC_K(gk_tc_##DTN##_##BM##x##BN##_kk, DT, BM, BN, BK, ST, MINB, true, true)       \
    GK_TC_K(gk_tc_##DTN##_##BM##x##BN##_kn, DT, BM, BN, BK, ST, MINB, true, false)      \
    GK_TC_K(gk_tc_##DTN##_##BM##x##BN##_mk, DT, BM, BN, BK, ST, MINB, false, true)      \
    GK_TC_K(gk_tc_##DTN##_##BM##x##BN##_mn, DT, BM, BN, BK, ST, MINB, false, false)
