// gemm_wg.cu - gpukit's Hopper GEMM for f16 / bf16 (sm_90a): wgmma.mma_async
// from shared-memory descriptors, fed by the tensor memory accelerator (TMA:
// cp.async.bulk.tensor with a CUtensorMap built on the host), an mbarrier
// pipeline of ST stages, one producer warpgroup and two consumer warpgroups.
//   gk_wg_<dt>_<BM>x<BN>_<ab>   <dt> f16 / bf16, fp32 accumulation; f32 (tf32
// wgmma, k8, K tiles of 32 elements = 128 bytes) for <ab> "kk" only
// <ab> as gk_gemm_tc.cuh: A "k" = op(A)[m, k] k-contiguous, "m" m-contiguous;
// B "k" = k-contiguous ([N, K] weight), "n" n-contiguous. wgmma reads either
// major-ness of 16-bit operands from shared memory (its transpose bits), so
// the four layouts need no transpose pass.
// Block: 384 threads. Warpgroup 0 is the producer (one thread issues the TMA
// copies; setmaxnreg gives its registers away); warpgroups 1 and 2 each own
// 64 rows of the 128-row tile and all BN columns (m64nBNk16, BN / 2 fp32
// accumulators a thread). K tiles of 64 (128 bytes of 16-bit elements: one
// 128-byte swizzle row), TMA 128-byte swizzle, tiles 1024-byte aligned.
// Tensor maps (built by gpukit.h, gk__wg_launch): 3-d {inner, outer, batch};
// A k-major: {K, M, b} box {64, 128}; A m-major: {M, K, b} box {64, 64} twice;
// B k-major: {K, N, b} box {64, BN}; B n-major: {N, K, b} box {64, 64} BN/64
// times. Out-of-range rows / columns / k are zero-filled by the TMA, so any
// M, N, K works; the epilogue masks the edges. Parameters: the two tensor maps
// (const __grid_constant__, 128 bytes, 64-byte aligned) and gk_gemm_p with
// `pad` = output dtype | batch count << 8. Epilogue as gemm_tc: act(alpha acc
// + beta out + bias) + residual, from the accumulator registers. Persistent:
// a grid of at most one block per SM walks the tiles of every batch.
// Compiled for sm_90a only (gpukit.h builds this module for sm_90a on 9.0
// devices); for any other target the kernels are empty stubs that are never
// launched.
#include "gk_common.cuh"
#include "gk_sm90.cuh"
#include "gk_gemm.cuh"

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GK_WG_ON 1

// 3-d tiled TMA load of one box into shared memory, completing on barrier b
__device__ __forceinline__ void gk_wg_tma(unsigned dst, const gk_tmap *m, int c0, int c1, int c2, unsigned b) {
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n"
                 ::"r"(dst), "l"((gk_u64)m), "r"(c0), "r"(c1), "r"(c2), "r"(b) : "memory");
}
// shared-memory matrix descriptor, 128-byte swizzle; lbo / sbo in bytes
__device__ __forceinline__ gk_u64 gk_wg_desc(unsigned addr, unsigned lbo, unsigned sbo) {
    return (gk_u64)((addr & 0x3FFFF) >> 4) | ((gk_u64)(lbo >> 4) << 16) | ((gk_u64)(sbo >> 4) << 32) | ((gk_u64)1 << 62);
}
__device__ __forceinline__ void gk_wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void gk_wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void gk_wg_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory"); }
template <int R> __device__ __forceinline__ void gk_wg_acc_fence(float (&d)[R]) {
#pragma unroll
    for (int i = 0; i < R; i++) asm volatile("" : "+f"(d[i])::"memory");
}

// The wgmma instructions below differ only in shape, types and operand
// count: one macro writes the asm. GK_WG_R64 / GK_WG_R128 name the
// accumulator operands %0.. in the instruction text, GK_WG_D64 / GK_WG_D128
// bind them to d[0..].
#define GK_WG_R64 \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define GK_WG_R128 GK_WG_R64 ", " \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
    "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
    "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define GK_WG_D8(d, i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
#define GK_WG_D64(d, i) GK_WG_D8(d, i), GK_WG_D8(d, i + 8), GK_WG_D8(d, i + 16), GK_WG_D8(d, i + 24), \
                        GK_WG_D8(d, i + 32), GK_WG_D8(d, i + 40), GK_WG_D8(d, i + 48), GK_WG_D8(d, i + 56)
#define GK_WG_D128(d) GK_WG_D64(d, 0), GK_WG_D64(d, 64)
// INSTR: the instruction; REGS: its accumulator list; TAIL: what follows the
// list (descriptors, scale-d predicate, scales, transposes); then the
// accumulator bindings and the inputs
#define GK_WG_ASM(INSTR, REGS, TAIL, ACC, ...)                                          \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n" INSTR " {" REGS "}, " TAIL ";\n}\n" \
                 : ACC                                                                  \
                 : __VA_ARGS__)

// wgmma m64nNk16, fp32 accumulators d (the m64nN fragment: register i of
// thread t holds row 16 (t / 32) + (t % 32) / 4 + 8 ((i / 2) % 2), column
// 8 (i / 4) + 2 (t % 4) + i % 2). TA / TB: 1 = operand is MN-major.
template <int DT, int TA, int TB> __device__ __forceinline__ void gk_wg_mma128(float (&d)[64], gk_u64 da, gk_u64 db) {
    if (DT == GK_DT_bf16)
        GK_WG_ASM("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16", GK_WG_R64, "%64, %65, p, 1, 1, %66, %67",
                  GK_WG_D64(d, 0), "l"(da), "l"(db), "n"(TA), "n"(TB));
    else
        GK_WG_ASM("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16", GK_WG_R64, "%64, %65, p, 1, 1, %66, %67",
                  GK_WG_D64(d, 0), "l"(da), "l"(db), "n"(TA), "n"(TB));
}
template <int DT, int TA, int TB> __device__ __forceinline__ void gk_wg_mma256(float (&d)[128], gk_u64 da, gk_u64 db) {
    if (DT == GK_DT_bf16)
        GK_WG_ASM("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", GK_WG_R128, "%128, %129, p, 1, 1, %130, %131",
                  GK_WG_D128(d), "l"(da), "l"(db), "n"(TA), "n"(TB));
    else
        GK_WG_ASM("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", GK_WG_R128, "%128, %129, p, 1, 1, %130, %131",
                  GK_WG_D128(d), "l"(da), "l"(db), "n"(TA), "n"(TB));
}
// wgmma m64nNk8 tf32 (f32 data read as tf32; both operands K-major: tf32 has no transpose bits)
__device__ __forceinline__ void gk_wg_mma128_tf32(float (&d)[64], gk_u64 da, gk_u64 db) {
    GK_WG_ASM("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32", GK_WG_R64, "%64, %65, p, 1, 1", GK_WG_D64(d, 0), "l"(da), "l"(db));
}
__device__ __forceinline__ void gk_wg_mma256_tf32(float (&d)[128], gk_u64 da, gk_u64 db) {
    GK_WG_ASM("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32", GK_WG_R128, "%128, %129, p, 1, 1", GK_WG_D128(d), "l"(da), "l"(db));
}

// One element pair (columns n, n + 1 of row m) through the epilogue.
template <int DO> __device__ __noinline__ void gk_wg_store(const gk_gemm_p &p, gk_i64 bz, gk_i64 m, gk_i64 n, float a0, float a1, bool pair) {
    typedef gk_ty<DO> TO;
    typename TO::S *o = (typename TO::S *)p.o + bz * p.o_bs + m * p.o_rs + n;
    const int cnt = n + 1 < p.N ? 2 : 1;
    float v[2] = { a0, a1 };
#pragma unroll
    for (int e = 0; e < 2; e++)
        if (e < cnt) {
            float x = (float)p.alpha * v[e];
            if (p.beta != 0.0) x += (float)p.beta * (float)TO::ld(o[e]);
            if (p.bias) x += gk_ld_any<float>(p.bias, n + e, p.bias_dt);
            x = gk_act<float>(x, p.act);
            if (p.res) x += gk_ld_any<float>(p.res, bz * p.r_bs + m * p.r_rs + n + e, p.res_dt);
            v[e] = x;
        }
    if (cnt == 2 && pair) {
        if (DO == GK_DT_f32) *(float2 *)(void *)o = make_float2(v[0], v[1]);
        else *(unsigned *)(void *)o = (unsigned)TO::st(v[0]) | ((unsigned)TO::st(v[1]) << 16);
    } else {
        o[0] = TO::st(v[0]);
        if (cnt == 2) o[1] = TO::st(v[1]);
    }
}
template <int DO, int R> __device__ __forceinline__ void gk_wg_epilogue(const gk_gemm_p &p, gk_i64 bz, gk_i64 mb, gk_i64 n0, const float (&d)[R]) {
    const int t = threadIdx.x % 128, w = t / 32, l = t % 32;
    const int es = DO == GK_DT_f32 ? 4 : 2;
    const bool pair = ((unsigned long long)p.o % (2 * es)) == 0 && p.o_rs % 2 == 0 && p.o_bs % 2 == 0;
    // the plain product (alpha 1, nothing else) stores pairs inline; the
    // fused epilogue goes through gk_wg_store (out of line: keeps the kernel
    // small and its compile short)
    const bool plain = p.alpha == 1.0 && p.beta == 0.0 && !p.bias && !p.res && p.act == GK_ACT_NONE && pair;
#pragma unroll
    for (int i = 0; i < R; i += 2) {
        gk_i64 m = mb + w * 16 + l / 4 + 8 * ((i / 2) % 2), n = n0 + 8 * (i / 4) + 2 * (l % 4);
        if (m < p.M && n < p.N) {
            if (plain && n + 1 < p.N) {
                typename gk_ty<DO>::S *o = (typename gk_ty<DO>::S *)p.o + bz * p.o_bs + m * p.o_rs + n;
                if (DO == GK_DT_f32) *(float2 *)(void *)o = make_float2(d[i], d[i + 1]);
                else *(unsigned *)(void *)o = (unsigned)gk_ty<DO>::st(d[i]) | ((unsigned)gk_ty<DO>::st(d[i + 1]) << 16);
            } else gk_wg_store<DO>(p, bz, m, n, d[i], d[i + 1], pair);
        }
    }
}

template <int DT, int BN, int TA, int TB> __device__ __forceinline__ void gk_wg_mma(float (&d)[BN / 2], gk_u64 da, gk_u64 db);
template <int DT, int BN, int TA, int TB> struct gk_wg_mma_s;
template <int DT, int TA, int TB> struct gk_wg_mma_s<DT, 256, TA, TB> {
    static __device__ __forceinline__ void run(float (&d)[128], gk_u64 da, gk_u64 db) {
        if (DT == GK_DT_f32) gk_wg_mma256_tf32(d, da, db);
        else gk_wg_mma256<DT, TA, TB>(d, da, db);
    }
};
template <int DT, int TA, int TB> struct gk_wg_mma_s<DT, 128, TA, TB> {
    static __device__ __forceinline__ void run(float (&d)[64], gk_u64 da, gk_u64 db) {
        if (DT == GK_DT_f32) gk_wg_mma128_tf32(d, da, db);
        else gk_wg_mma128<DT, TA, TB>(d, da, db);
    }
};
template <int DT, int BN, int TA, int TB> __device__ __forceinline__ void gk_wg_mma(float (&d)[BN / 2], gk_u64 da, gk_u64 db) {
    gk_wg_mma_s<DT, BN, TA, TB>::run(d, da, db);
}

// BK: the k tile in elements (128 bytes: 64 16-bit or 32 f32 elements), so a
// stage has the same bytes for every dtype
template <int DT, int BN> struct gk_wg_cfg {
    enum { BM = 128, BK = DT == GK_DT_f32 ? 32 : 64, ST = BN == 256 ? 4 : 6, A_BYTES = BM * 128, B_BYTES = BN * 128, STAGE = A_BYTES + B_BYTES };
};

// Tile t of a launch (t < batch * tiles): batch t / tiles; within it, groups
// of 8 tile rows sweep the columns (L2 reuse).
__device__ __forceinline__ void gk_wg_tile(gk_i64 t, gk_i64 tiles_m, gk_i64 tiles_n, int bm, int bn, int &m0, int &n0, int &bz) {
    gk_i64 tiles = tiles_m * tiles_n, u = t % tiles, per_group = 8 * tiles_n, first = u / per_group * 8;
    gk_i64 gsz = tiles_m - first < 8 ? tiles_m - first : 8;
    bz = (int)(t / tiles);
    m0 = (int)((first + (u % per_group) % gsz) * bm);
    n0 = (int)((u % per_group) / gsz * bn);
}

// Persistent: block b takes tiles b, b + gridDim.x, ... The producer runs
// ahead into the next tile while the consumers finish the epilogue of this
// one. The k-tile counter `it` runs on across tiles (stage it % ST, phase
// (it / ST) & 1). p.pad: output dtype | batch count << 8.
template <int DT, int BN, bool AK, bool BKC>
__device__ __forceinline__ void gk_wg_gemm(const gk_tmap &ta, const gk_tmap &tb, const gk_gemm_p &p) {
    typedef gk_wg_cfg<DT, BN> C;
    const int ST = C::ST, R = BN / 2;
    extern __shared__ __align__(1024) unsigned char gk_wg_sm[];
    const unsigned base = (gk_smem(gk_wg_sm) + 1023u) & ~1023u;
    const unsigned bars = base + ST * C::STAGE; // full[ST], then empty[ST]
    const int wg = threadIdx.x / 128, odt = p.pad & 255;
    const gk_i64 tiles_m = (p.M + C::BM - 1) / C::BM, tiles_n = (p.N + BN - 1) / BN, total = tiles_m * tiles_n * (gk_i64)(p.pad >> 8);
    const int KT = (int)((p.K + C::BK - 1) / C::BK);

    if (threadIdx.x == 0) {
        for (int s = 0; s < ST; s++) {
            gk_bar_init(bars + 8 * s, 1);
            gk_bar_init(bars + 8 * (ST + s), 256);
        }
        gk_bar_init_fence();
    }
    __syncthreads();

    if (wg == 0) { // producer
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (threadIdx.x == 0) {
            unsigned it = 0;
            asm volatile("prefetch.tensormap [%0];\n" ::"l"((gk_u64)&ta) : "memory");
            asm volatile("prefetch.tensormap [%0];\n" ::"l"((gk_u64)&tb) : "memory");
            for (gk_i64 t = blockIdx.x; t < total; t += gridDim.x) {
                int m0, n0, bz;
                gk_wg_tile(t, tiles_m, tiles_n, C::BM, BN, m0, n0, bz);
                const int za = p.a_bs ? bz : 0, zb = p.b_bs ? bz : 0;
                for (int kt = 0; kt < KT; kt++, it++) {
                    const unsigned s = it % ST, r = it / ST;
                    const int k0 = kt * C::BK;
                    const unsigned full = bars + 8 * s, sA = base + s * C::STAGE, sB = sA + C::A_BYTES;
                    if (r > 0) gk_bar_wait(bars + 8 * (ST + s), (r - 1) & 1);
                    gk_bar_expect(full, C::STAGE);
                    if (AK) gk_wg_tma(sA, &ta, k0, m0, za, full);
                    else {
                        gk_wg_tma(sA, &ta, m0, k0, za, full);
                        gk_wg_tma(sA + 8192, &ta, m0 + 64, k0, za, full);
                    }
                    if (BKC) gk_wg_tma(sB, &tb, k0, n0, zb, full);
                    else {
#pragma unroll
                        for (int i = 0; i < BN / 64; i++) gk_wg_tma(sB + 8192 * i, &tb, n0 + 64 * i, k0, zb, full);
                    }
                }
            }
        }
    } else { // consumers: warpgroup c owns rows c * 64 .. + 63 of each tile
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        const int c = wg - 1;
        unsigned it = 0;
        float d[R];
        for (gk_i64 t = blockIdx.x; t < total; t += gridDim.x) {
            int m0, n0, bz;
            gk_wg_tile(t, tiles_m, tiles_n, C::BM, BN, m0, n0, bz);
#pragma unroll
            for (int i = 0; i < R; i++) d[i] = 0.0f;
            for (int kt = 0; kt < KT; kt++, it++) {
                const unsigned s = it % ST;
                const unsigned sA = base + s * C::STAGE + c * 8192, sB = base + s * C::STAGE + C::A_BYTES;
                gk_bar_wait(bars + 8 * s, (it / ST) & 1);
                gk_wg_acc_fence(d);
                gk_wg_fence();
#pragma unroll
                for (int kk = 0; kk < 4; kk++) {
                    // K-major: rows of 128 bytes, 8-row atoms 1024 bytes apart, k step 32 bytes
                    // (k16 of 16-bit elements, k8 of tf32).
                    // MN-major: k rows of 128 bytes (64 elements), 8-k atoms 1024 bytes apart
                    // (SBO), 64-element MN blocks 8192 bytes apart (LBO), k step 16 rows.
                    gk_u64 da = AK ? gk_wg_desc(sA + kk * 32, 16, 1024) : gk_wg_desc(sA + kk * 2048, 8192, 1024);
                    gk_u64 db = BKC ? gk_wg_desc(sB + kk * 32, 16, 1024) : gk_wg_desc(sB + kk * 2048, 8192, 1024);
                    gk_wg_mma<DT, BN, AK ? 0 : 1, BKC ? 0 : 1>(d, da, db);
                }
                gk_wg_commit();
                gk_wg_acc_fence(d);
                gk_wg_wait<1>();
                if (kt > 0) gk_bar_arrive(bars + 8 * (ST + (it - 1) % ST)); // the previous k tile is read
            }
            gk_wg_wait<0>();
            gk_wg_acc_fence(d);
            gk_bar_arrive(bars + 8 * (ST + (it - 1) % ST)); // the tile's last k tile is read
            const gk_i64 mb = m0 + c * 64;
            if (odt == GK_DT_f32) gk_wg_epilogue<GK_DT_f32, R>(p, bz, mb, n0, d);
            else if (odt == GK_DT_f16) gk_wg_epilogue<GK_DT_f16, R>(p, bz, mb, n0, d);
            else gk_wg_epilogue<GK_DT_bf16, R>(p, bz, mb, n0, d);
        }
    }
}
#endif

// Shared memory: ST * (128 + BN) * 64 * 2 bytes, + 1024 (alignment) + 256 (barriers);
// gpukit.h's gk__wg_tile has the same numbers.
#ifdef GK_WG_ON
#define GK_WG_BODY(DT, BN, AK, BKC) { gk_wg_gemm<DT, BN, AK, BKC>(ta, tb, p); }
#else
#define GK_WG_BODY(DT, BN, AK, BKC) { asm volatile("trap;"); } // never launched off sm_90a
#endif
#define GK_WG_K(NAME, DT, BN, AK, BKC)                                                                                        \
    extern "C" __global__ void __launch_bounds__(384, 1) NAME(const __grid_constant__ gk_tmap ta, const __grid_constant__ gk_tmap tb, \
                                                               const __grid_constant__ gk_gemm_p p) GK_WG_BODY(DT, BN, AK, BKC)
#define GK_WG_LAYOUTS(DTN, DT, BN)                               \
    GK_WG_K(gk_wg_##DTN##_128x##BN##_kk, DT, BN, true, true)     \
    GK_WG_K(gk_wg_##DTN##_128x##BN##_kn, DT, BN, true, false)    \
    GK_WG_K(gk_wg_##DTN##_128x##BN##_mk, DT, BN, false, true)    \
    GK_WG_K(gk_wg_##DTN##_128x##BN##_mn, DT, BN, false, false)
GK_WG_LAYOUTS(bf16, GK_DT_bf16, 256)
GK_WG_LAYOUTS(bf16, GK_DT_bf16, 128)
GK_WG_LAYOUTS(f16, GK_DT_f16, 256)
GK_WG_LAYOUTS(f16, GK_DT_f16, 128)
// tf32 (f32 data): both operands K-major only (gpukit.h transposes an
// M-major A / N-major B into scratch first, with gk_wg_tr32)
GK_WG_K(gk_wg_f32_128x256_kk, GK_DT_f32, 256, true, true)
GK_WG_K(gk_wg_f32_128x128_kk, GK_DT_f32, 128, true, true)

// out[b][c * ldo + r] = in[b][r * ld + c] (r < R, c < C): an f32 matrix
// transposed into K-major scratch for the tf32 kernels. 64x64 tiles through
// shared memory (16 loads in flight a thread), block 32x8; grid {C / 64,
// min(R / 64, 65535), batch}, the y blocks stride over R. Plain code: built
// for every target.
struct gk_wg_tr_p {
    const float *in;
    float *out;
    gk_i64 R, C, ld, bs, ldo, obs;
};
extern "C" __global__ void __launch_bounds__(256) gk_wg_tr32(const gk_wg_tr_p p) {
    __shared__ float t[64][65];
    const gk_i64 c0 = (gk_i64)blockIdx.x * 64, bz = blockIdx.z;
    const float *in = p.in + bz * p.bs;
    float *out = p.out + bz * p.obs;
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (gk_i64 r0 = (gk_i64)blockIdx.y * 64; r0 < p.R; r0 += (gk_i64)gridDim.y * 64) {
#pragma unroll
        for (int i = ty; i < 64; i += 8)
#pragma unroll
            for (int j = 0; j < 64; j += 32) {
                gk_i64 r = r0 + i, c = c0 + tx + j;
                t[i][tx + j] = r < p.R && c < p.C ? in[r * p.ld + c] : 0.0f;
            }
        __syncthreads();
#pragma unroll
        for (int i = ty; i < 64; i += 8)
#pragma unroll
            for (int j = 0; j < 64; j += 32) {
                gk_i64 c = c0 + i, r = r0 + tx + j;
                if (c < p.C && r < p.R) out[c * p.ldo + r] = t[tx + j][i];
            }
        __syncthreads();
    }
}
