// gk_vec.cuh - 16-byte vectors of f32 / bf16 / f16 <-> floats in few
// instructions, for the bandwidth-bound row kernels (norm.cu, reduce.cu).
#pragma once
#include "gk_common.cuh"

// Loads skip the NaN canonicalisation of gk_ty::ld (a NaN input only ever
// makes NaN outputs, which the stores canonicalise). Stores convert pairs
// with one cvt.rn.{bf16,f16}x2.f32 (round to nearest even, as gk_f2bf /
// gk_f2h) and redo a vector holding a NaN element by element, so NaNs are
// the canonical ones of gk_ty::st. rnd rounds to the storage type and back
// (the HF RMS norm rounding); a NaN stays a NaN.
__device__ __forceinline__ bool gk_nan8(float a, float b, float c, float d, float e, float f, float g, float h) {
    unsigned r;
    asm("{\n .reg .pred p;\n setp.nan.f32 p, %1, %2;\n setp.nan.or.f32 p, %3, %4, p;\n setp.nan.or.f32 p, %5, %6, p;\n"
        " setp.nan.or.f32 p, %7, %8, p;\n selp.u32 %0, 1, 0, p;\n}"
        : "=r"(r) : "f"(a), "f"(b), "f"(c), "f"(d), "f"(e), "f"(f), "f"(g), "f"(h));
    return r != 0;
}
template <int DT> struct gk_nv;
template <> struct gk_nv<GK_DT_f32> {
    enum { E = 4 };
    static __device__ __forceinline__ void ld(const uint4 &u, float *f) {
        f[0] = __uint_as_float(u.x); f[1] = __uint_as_float(u.y); f[2] = __uint_as_float(u.z); f[3] = __uint_as_float(u.w);
    }
    static __device__ __forceinline__ uint4 st(const float *f) {
        uint4 u;
        u.x = __float_as_uint(f[0]); u.y = __float_as_uint(f[1]); u.z = __float_as_uint(f[2]); u.w = __float_as_uint(f[3]);
        return u;
    }
    static __device__ __forceinline__ void rnd(float *) {}
};
template <int DT> struct gk_nv16 { // bf16 / f16: 8 elements, pairs in 32-bit words
    enum { E = 8 };
    // the pair helpers of gk_common.cuh; st2 leaves NaNs to st's vector check
    static __device__ __forceinline__ void ld2(gk_u32 w, float &lo, float &hi) { lo = gk_p16_lo<DT>(w); hi = gk_p16_hi<DT>(w); }
    static __device__ __forceinline__ gk_u32 st2(float lo, float hi) { return gk_p16_cvt<DT>(lo, hi); }
    static __device__ __forceinline__ void ld(const uint4 &u, float *f) {
        ld2(u.x, f[0], f[1]); ld2(u.y, f[2], f[3]); ld2(u.z, f[4], f[5]); ld2(u.w, f[6], f[7]);
    }
    static __device__ __forceinline__ uint4 st(const float *f) {
        uint4 u;
        if (gk_nan8(f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7])) {
            gk_u16 h[8];
#pragma unroll
            for (int e = 0; e < 8; e++) h[e] = gk_ty<DT>::st(f[e]);
            u.x = h[0] | ((gk_u32)h[1] << 16); u.y = h[2] | ((gk_u32)h[3] << 16);
            u.z = h[4] | ((gk_u32)h[5] << 16); u.w = h[6] | ((gk_u32)h[7] << 16);
            return u;
        }
        u.x = st2(f[0], f[1]); u.y = st2(f[2], f[3]); u.z = st2(f[4], f[5]); u.w = st2(f[6], f[7]);
        return u;
    }
    static __device__ __forceinline__ void rnd(float *f) {
#pragma unroll
        for (int e = 0; e < 8; e += 2) ld2(st2(f[e], f[e + 1]), f[e], f[e + 1]);
    }
};
template <> struct gk_nv<GK_DT_bf16> : gk_nv16<GK_DT_bf16> {};
template <> struct gk_nv<GK_DT_f16> : gk_nv16<GK_DT_f16> {};

