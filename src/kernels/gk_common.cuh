// gk_common.cuh - shared by every gpukit kernel module (passed to NVRTC as an
// in-memory header). Includes no toolkit header: half, bfloat16 and fp8 are
// stored as plain integers and converted here with the exact rules of the
// CPU reference in gpukit.h (round to nearest even, canonical NaNs).
#pragma once

typedef unsigned char gk_u8;
typedef unsigned short gk_u16;
typedef unsigned int gk_u32;
typedef long long gk_i64;
typedef unsigned long long gk_u64;

#define GK_MAX_DIMS 8
// dtype codes: the gk_dtype enum of gpukit.h
#define GK_DT_f32 0
#define GK_DT_f64 1
#define GK_DT_f16 2
#define GK_DT_bf16 3
#define GK_DT_f8e4m3 4
#define GK_DT_f8e5m2 5
#define GK_DT_i8 6
#define GK_DT_u8 7
#define GK_DT_i32 8
#define GK_DT_i64 9

// Iteration geometry of an elementwise op: operand 0 is the output, 1..3
// the inputs (strides in elements, 0 for broadcast dims). Same layout as
// gk__nd in gpukit.h; passed by value.
#define GK_ND_OPS 4
struct gk_nd {
    int ndim;
    int pad;
    gk_i64 n;
    gk_i64 shape[GK_MAX_DIMS];
    gk_i64 st[GK_ND_OPS][GK_MAX_DIMS];
};

// Offsets of element i of the iteration for each operand. Below 2^31
// elements (nearly always) the index is split with 32-bit divisions, several
// times cheaper than 64-bit ones; the branch is the same for every thread.
__device__ __forceinline__ void gk_nd_offsets4(const gk_nd &nd, gk_i64 i, gk_i64 &o0, gk_i64 &o1, gk_i64 &o2, gk_i64 &o3) {
    o0 = 0; o1 = 0; o2 = 0; o3 = 0;
    if (nd.n <= 0x7fffffffll) {
        unsigned ii = (unsigned)i;
        for (int d = nd.ndim - 1; d >= 0; d--) {
            unsigned s = (unsigned)nd.shape[d], q = ii / s, r = ii - q * s;
            o0 += (gk_i64)r * nd.st[0][d];
            o1 += (gk_i64)r * nd.st[1][d];
            o2 += (gk_i64)r * nd.st[2][d];
            o3 += (gk_i64)r * nd.st[3][d];
            ii = q;
        }
        return;
    }
    for (int d = nd.ndim - 1; d >= 0; d--) {
        gk_i64 s = nd.shape[d];
        gk_i64 q = i / s, r = i - q * s;
        o0 += r * nd.st[0][d];
        o1 += r * nd.st[1][d];
        o2 += r * nd.st[2][d];
        o3 += r * nd.st[3][d];
        i = q;
    }
}

// three operands: the fourth offset is dead code the compiler removes
__device__ __forceinline__ void gk_nd_offsets(const gk_nd &nd, gk_i64 i, gk_i64 &o0, gk_i64 &o1, gk_i64 &o2) {
    gk_i64 o3;
    gk_nd_offsets4(nd, i, o0, o1, o2, o3);
}

// ---- float formats ------------------------------------------------------
// Rounds sign * m * 2^(e-63) (top bit of m set) to a format with ebits/mbits,
// round to nearest even; has_inf = 0 means saturate to the largest finite.
__device__ __forceinline__ gk_u32 gk_round_fmt(int sign, int e, gk_u64 m, int ebits, int mbits, int has_inf) {
    int bias = (1 << (ebits - 1)) - 1, emin = 1 - bias;
    gk_u32 sbit = (gk_u32)sign << (ebits + mbits);
    gk_u32 maxfin = has_inf ? ((((1u << ebits) - 2u) << mbits) | ((1u << mbits) - 1u))
                            : ((((1u << ebits) - 1u) << mbits) | ((1u << mbits) - 2u));
    gk_u32 inf = ((1u << ebits) - 1u) << mbits;
    int shift = 63 - mbits + (e < emin ? emin - e : 0);
    gk_u64 kept, rem, half;
    gk_u32 bits;
    if (e > bias + 1) return sbit | (has_inf ? inf : maxfin);
    if (shift > 64) return sbit;
    if (shift == 64) { kept = 0; rem = m; half = 1ull << 63; }
    else { kept = m >> shift; rem = m & ((1ull << shift) - 1); half = 1ull << (shift - 1); }
    if (rem > half || (rem == half && (kept & 1))) kept++;
    if (e < emin) bits = (gk_u32)kept;
    else bits = ((gk_u32)(e + bias - 1) << mbits) + (gk_u32)kept;
    if (bits > maxfin) bits = has_inf ? inf : maxfin;
    return sbit | bits;
}
__device__ __forceinline__ gk_u32 gk_fmt_nan(int ebits, int mbits, int has_inf) {
    return has_inf ? ((((1u << ebits) - 1u) << mbits) | (1u << (mbits - 1))) : ((1u << (ebits + mbits)) - 1u);
}
__device__ __forceinline__ gk_u32 gk_f64_to_fmt(double x, int ebits, int mbits, int has_inf) {
    gk_u64 u = (gk_u64)__double_as_longlong(x), m;
    int sign = (int)(u >> 63), ex = (int)((u >> 52) & 0x7FF);
    m = u & 0xFFFFFFFFFFFFFull;
    if (ex == 0x7FF) {
        if (m) return gk_fmt_nan(ebits, mbits, has_inf);
        return ((gk_u32)sign << (ebits + mbits)) |
               (has_inf ? ((1u << ebits) - 1u) << mbits : ((((1u << ebits) - 1u) << mbits) | ((1u << mbits) - 2u)));
    }
    if (ex == 0) {
        if (m == 0) return (gk_u32)sign << (ebits + mbits);
        int lz = __clzll(m) - 11; // m < 2^52
        m <<= lz;
        ex = 1 - 1023 - lz;
    } else {
        ex -= 1023;
        m |= 1ull << 52;
    }
    return gk_round_fmt(sign, ex, m << 11, ebits, mbits, has_inf);
}
__device__ __forceinline__ gk_u32 gk_i64_to_fmt(gk_i64 v, int ebits, int mbits, int has_inf) {
    int sign = v < 0;
    gk_u64 mag = sign ? 0ull - (gk_u64)v : (gk_u64)v;
    if (mag == 0) return 0;
    int lz = __clzll(mag);
    return gk_round_fmt(sign, 63 - lz, mag << lz, ebits, mbits, has_inf);
}
// exact decode of a narrow format (NaN -> canonical f32 quiet NaN)
__device__ __forceinline__ float gk_fmt_to_f32(gk_u32 b, int ebits, int mbits, int has_inf) {
    int bias = (1 << (ebits - 1)) - 1;
    int sign = (b >> (ebits + mbits)) & 1;
    int ex = (b >> mbits) & ((1u << ebits) - 1);
    gk_u32 man = b & ((1u << mbits) - 1);
    float v;
    if (ex == (1 << ebits) - 1 && (has_inf || man == (1u << mbits) - 1)) {
        if (has_inf && man == 0) v = __int_as_float(0x7F800000);
        else return __int_as_float(0x7FC00000);
    } else if (ex == 0) v = ldexpf((float)man, 1 - bias - mbits);
    else v = ldexpf((float)(man | (1u << mbits)), ex - bias - mbits);
    return sign ? -v : v;
}

__device__ __forceinline__ float gk_h2f(gk_u16 h) {
    float f;
    asm("{ cvt.f32.f16 %0, %1; }" : "=f"(f) : "h"(h));
    if (f != f) f = __int_as_float(0x7FC00000);
    return f;
}
__device__ __forceinline__ gk_u16 gk_f2h(float f) {
    gk_u16 h;
    if (f != f) return 0x7E00;
    asm("{ cvt.rn.f16.f32 %0, %1; }" : "=h"(h) : "f"(f));
    return h;
}
__device__ __forceinline__ float gk_bf2f(gk_u16 h) {
    float f = __int_as_float((int)((gk_u32)h << 16));
    return f != f ? __int_as_float(0x7FC00000) : f;
}
__device__ __forceinline__ gk_u16 gk_f2bf(float f) {
    gk_u32 u = (gk_u32)__float_as_int(f);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0;
    return (gk_u16)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
// Pairs of f16 / bf16 (DT) packed in 32 bits, element 0 in the low half, for
// vector kernels: the unpack skips the NaN canonicalization of T::ld (a NaN
// input gives a NaN result, which the pack canonicalizes), the pack
// rounds two values with one cvt (round to nearest even, as T::st) and
// rewrites NaN halves to the canonical NaN of the CPU reference.
template <int DT> __device__ __forceinline__ float gk_p16_lo(gk_u32 v) {
    if (DT == GK_DT_bf16) return __uint_as_float(v << 16);
    float f;
    asm("{ cvt.f32.f16 %0, %1; }" : "=f"(f) : "h"((gk_u16)v));
    return f;
}
template <int DT> __device__ __forceinline__ float gk_p16_hi(gk_u32 v) {
    if (DT == GK_DT_bf16) return __uint_as_float(v & 0xFFFF0000u);
    float f;
    asm("{ cvt.f32.f16 %0, %1; }" : "=f"(f) : "h"((gk_u16)(v >> 16)));
    return f;
}
// the pack without the NaN rewrite: for callers that check NaNs another way
template <int DT> __device__ __forceinline__ gk_u32 gk_p16_cvt(float lo, float hi) {
    gk_u32 r;
    if (DT == GK_DT_bf16) asm("{ cvt.rn.bf16x2.f32 %0, %1, %2; }" : "=r"(r) : "f"(hi), "f"(lo));
    else asm("{ cvt.rn.f16x2.f32 %0, %1, %2; }" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}
template <int DT> __device__ __forceinline__ gk_u32 gk_p16_pack(float lo, float hi) {
    gk_u32 r = gk_p16_cvt<DT>(lo, hi);
    if (DT == GK_DT_bf16) {
        // bit 15 of a half is set after the add iff its magnitude bits exceed the infinity's: NaN
        if (((r & 0x7FFF7FFFu) + 0x007F007Fu) & 0x80008000u) {
            if ((r & 0x7FFFu) > 0x7F80u) r = (r & 0xFFFF0000u) | 0x7FC0u;
            if ((r & 0x7FFF0000u) > 0x7F800000u) r = (r & 0xFFFFu) | 0x7FC00000u;
        }
    } else {
        if (((r & 0x7FFF7FFFu) + 0x03FF03FFu) & 0x80008000u) {
            if ((r & 0x7FFFu) > 0x7C00u) r = (r & 0xFFFF0000u) | 0x7E00u;
            if ((r & 0x7FFF0000u) > 0x7C000000u) r = (r & 0xFFFFu) | 0x7E000000u;
        }
    }
    return r;
}
__device__ __forceinline__ float gk_e4m3_to_f(gk_u8 v) { return gk_fmt_to_f32(v, 4, 3, 0); }
__device__ __forceinline__ float gk_e5m2_to_f(gk_u8 v) { return gk_fmt_to_f32(v, 5, 2, 1); }
__device__ __forceinline__ gk_u8 gk_f_to_e4m3(float f) { return (gk_u8)gk_f64_to_fmt((double)f, 4, 3, 0); }
__device__ __forceinline__ gk_u8 gk_f_to_e5m2(float f) { return (gk_u8)gk_f64_to_fmt((double)f, 5, 2, 1); }

// float -> integer: truncate toward zero, saturate, NaN -> 0
__device__ __forceinline__ gk_i64 gk_f64_to_i64_sat(double x, gk_i64 lo, gk_i64 hi) {
    if (x != x) return 0;
    if (x <= (double)lo) return lo;
    if (x >= (double)hi) return hi;
    return (gk_i64)x;
}

// ---- per-dtype traits ----------------------------------------------------
// S: storage type; C: compute type of arithmetic (f32 for 16/8-bit floats,
// int64 for integers, which wrap on store); K: 0 float, 1 double, 2 integer.
template <int DT> struct gk_ty;
template <> struct gk_ty<GK_DT_f32> {
    typedef float S; typedef float C; enum { K = 0 };
    static __device__ __forceinline__ float ld(float v) { return v; }
    static __device__ __forceinline__ float st(float v) { return v; }
    static __device__ __forceinline__ float sat(double x) { return (float)x; } // unused: integers only
};
template <> struct gk_ty<GK_DT_f64> {
    typedef double S; typedef double C; enum { K = 1 };
    static __device__ __forceinline__ double ld(double v) { return v; }
    static __device__ __forceinline__ double st(double v) { return v; }
    static __device__ __forceinline__ double sat(double x) { return x; } // unused: integers only
};
template <> struct gk_ty<GK_DT_f16> {
    typedef gk_u16 S; typedef float C; enum { K = 0 };
    static __device__ __forceinline__ float ld(gk_u16 v) { return gk_h2f(v); }
    static __device__ __forceinline__ gk_u16 st(float v) { return gk_f2h(v); }
    static __device__ __forceinline__ gk_u16 sat(double x) { return gk_f2h((float)x); } // unused: integers only
};
template <> struct gk_ty<GK_DT_bf16> {
    typedef gk_u16 S; typedef float C; enum { K = 0 };
    static __device__ __forceinline__ float ld(gk_u16 v) { return gk_bf2f(v); }
    static __device__ __forceinline__ gk_u16 st(float v) { return gk_f2bf(v); }
    static __device__ __forceinline__ gk_u16 sat(double x) { return gk_f2bf((float)x); } // unused: integers only
};
template <> struct gk_ty<GK_DT_f8e4m3> {
    typedef gk_u8 S; typedef float C; enum { K = 0 };
    static __device__ __forceinline__ float ld(gk_u8 v) { return gk_e4m3_to_f(v); }
    static __device__ __forceinline__ gk_u8 st(float v) { return gk_f_to_e4m3(v); }
    static __device__ __forceinline__ gk_u8 sat(double x) { return gk_f_to_e4m3((float)x); } // unused: integers only
};
template <> struct gk_ty<GK_DT_f8e5m2> {
    typedef gk_u8 S; typedef float C; enum { K = 0 };
    static __device__ __forceinline__ float ld(gk_u8 v) { return gk_e5m2_to_f(v); }
    static __device__ __forceinline__ gk_u8 st(float v) { return gk_f_to_e5m2(v); }
    static __device__ __forceinline__ gk_u8 sat(double x) { return gk_f_to_e5m2((float)x); } // unused: integers only
};
template <> struct gk_ty<GK_DT_i8> {
    typedef signed char S; typedef gk_i64 C; enum { K = 2 };
    static __device__ __forceinline__ gk_i64 ld(signed char v) { return v; }
    static __device__ __forceinline__ signed char st(gk_i64 v) { return (signed char)(gk_u8)(gk_u64)v; }
    static __device__ __forceinline__ signed char sat(double x) { return (signed char)gk_f64_to_i64_sat(x, -128, 127); }
};
template <> struct gk_ty<GK_DT_u8> {
    typedef gk_u8 S; typedef gk_i64 C; enum { K = 2 };
    static __device__ __forceinline__ gk_i64 ld(gk_u8 v) { return v; }
    static __device__ __forceinline__ gk_u8 st(gk_i64 v) { return (gk_u8)(gk_u64)v; }
    static __device__ __forceinline__ gk_u8 sat(double x) { return (gk_u8)gk_f64_to_i64_sat(x, 0, 255); }
};
template <> struct gk_ty<GK_DT_i32> {
    typedef int S; typedef gk_i64 C; enum { K = 2 };
    static __device__ __forceinline__ gk_i64 ld(int v) { return v; }
    static __device__ __forceinline__ int st(gk_i64 v) { return (int)(gk_u32)(gk_u64)v; }
    static __device__ __forceinline__ int sat(double x) { return (int)gk_f64_to_i64_sat(x, -2147483647ll - 1, 2147483647ll); }
};
template <> struct gk_ty<GK_DT_i64> {
    typedef gk_i64 S; typedef gk_i64 C; enum { K = 2 };
    static __device__ __forceinline__ gk_i64 ld(gk_i64 v) { return v; }
    static __device__ __forceinline__ gk_i64 st(gk_i64 v) { return v; }
    static __device__ __forceinline__ gk_i64 sat(double x) {
        return gk_f64_to_i64_sat(x, -9223372036854775807ll - 1, 9223372036854775807ll);
    }
};

// ldmatrix .x4 (sm_75+): four 8 x 8 matrices of 16-bit elements from shared memory
// (shared-space address addr; lane l gives the row address of matrix l / 8) into r[0..3];
// _t transposed. The mma.sync fragments of flash.cu, gk_gemm_tc.cuh and attention.cu.
__device__ __forceinline__ void gk_ldsm(unsigned *r, unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}
__device__ __forceinline__ void gk_ldsm_t(unsigned *r, unsigned addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n" : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(addr));
}

// grid-stride helpers
#define GK_TID ((gk_i64)blockIdx.x * blockDim.x + threadIdx.x)
#define GK_NTHREADS ((gk_i64)gridDim.x * blockDim.x)

// Programmatic dependent launch (sm_90+; gpukit.h gk__launch_ex with
// GK__LAUNCH_PDL). A kernel launched that way may start while the previous
// kernel of the stream drains: it must call gk_pdl_wait() before it reads or
// writes anything an earlier kernel touches (work on data nobody writes,
// e.g. weights, may come before). gk_pdl_launch() lets the next kernel of
// the stream start early. Without the launch attribute both return at once.
__device__ __forceinline__ void gk_pdl_wait(void) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
__device__ __forceinline__ void gk_pdl_launch(void) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}
