// rope.cu - rotary position embedding on x [T, H, D] (last dim contiguous,
// token and head strides given) at positions pos[T] (i32 or i64), reading
// cos / sin tables [max_pos, rd/2]. NeoX layout (gptj = 0) rotates the
// pairs (j, j + rd/2), GPT-J layout (gptj = 1) the pairs (2j, 2j+1). Each
// thread rotates VP consecutive pairs (VP > 1: x, out, the tables and their
// rows 16-byte aligned, rd/2 a multiple of VP; VP 8 for the 16-bit dtypes:
// 16-byte loads of x). Positions outside [0, max_pos) give
// zeros in the rotary part. Dims rd..D-1 are copied when out != x.
#include "gk_common.cuh"

// N elements at p (N * sizeof(S) bytes, aligned to that when N > 1)
template <typename S, int N> __device__ __forceinline__ void gk_ldv(const S *p, S *r) {
    if (N * sizeof(S) == 8) {
        union { uint2 v; S s[N]; } u;
        u.v = *(const uint2 *)p;
#pragma unroll
        for (int k = 0; k < N; k++) r[k] = u.s[k];
    } else if (N * sizeof(S) % 16 == 0) {
        union { uint4 v[(N * sizeof(S) + 15) / 16]; S s[N]; } u;
#pragma unroll
        for (int k = 0; k < (int)(N * sizeof(S) / 16); k++) u.v[k] = ((const uint4 *)p)[k];
#pragma unroll
        for (int k = 0; k < N; k++) r[k] = u.s[k];
    } else {
#pragma unroll
        for (int k = 0; k < N; k++) r[k] = p[k];
    }
}
template <typename S, int N> __device__ __forceinline__ void gk_stv(S *p, const S *r) {
    if (N * sizeof(S) == 8) {
        union { uint2 v; S s[N]; } u;
#pragma unroll
        for (int k = 0; k < N; k++) u.s[k] = r[k];
        *(uint2 *)p = u.v;
    } else if (N * sizeof(S) % 16 == 0) {
        union { uint4 v[(N * sizeof(S) + 15) / 16]; S s[N]; } u;
#pragma unroll
        for (int k = 0; k < N; k++) u.s[k] = r[k];
#pragma unroll
        for (int k = 0; k < (int)(N * sizeof(S) / 16); k++) ((uint4 *)p)[k] = u.v[k];
    } else {
#pragma unroll
        for (int k = 0; k < N; k++) p[k] = r[k];
    }
}

// loads without the NaN canonicalization of T::ld (NaN in, NaN out, and the
// store canonicalizes); stores of two neighbours, 16-bit floats packed with
// one conversion
template <int DT> struct gk_rp;
template <> struct gk_rp<GK_DT_f32> {
    static __device__ __forceinline__ float ld(float v) { return v; }
    static __device__ __forceinline__ void st2(float &d0, float &d1, float x0, float x1) { d0 = x0; d1 = x1; }
};
template <int DT> struct gk_rp16 {
    static __device__ __forceinline__ float ld(gk_u16 v) { return gk_p16_lo<DT>(v); }
    static __device__ __forceinline__ void st2(gk_u16 &d0, gk_u16 &d1, float x0, float x1) {
        gk_u32 r = gk_p16_pack<DT>(x0, x1);
        d0 = (gk_u16)r;
        d1 = (gk_u16)(r >> 16);
    }
};
template <> struct gk_rp<GK_DT_f16> : gk_rp16<GK_DT_f16> {};
template <> struct gk_rp<GK_DT_bf16> : gk_rp16<GK_DT_bf16> {};

template <int DT, int CT, int VP, typename I>
__device__ __forceinline__ void gk_rope_body(I total, I npv, I H, int rd, int gptj, const void *pos, int pos64, gk_i64 max_pos,
                                             const typename gk_ty<DT>::S *x, gk_i64 xst, gk_i64 xsh,
                                             typename gk_ty<DT>::S *out, gk_i64 ost, gk_i64 osh,
                                             const typename gk_ty<CT>::S *cs, const typename gk_ty<CT>::S *sn) {
    typedef gk_ty<DT> T;
    typedef gk_ty<CT> TC;
    typedef typename gk_ty<DT>::S S;
    typedef typename gk_ty<CT>::S CS;
    const int half = rd >> 1;
    for (I i = (I)GK_TID; i < total; i += (I)GK_NTHREADS) {
        I row = i / npv, q = i - row * npv;
        I t = row / H, hh = row - t * H;
        gk_i64 p = pos64 ? ((const gk_i64 *)pos)[t] : (gk_i64)((const int *)pos)[t];
        const S *xr = x + (gk_i64)t * xst + (gk_i64)hh * xsh;
        S *orow = out + (gk_i64)t * ost + (gk_i64)hh * osh;
        int j0 = (int)q * VP;
        bool ok = p >= 0 && p < max_pos;
        const typename gk_ty<CT>::S *cr = cs + (ok ? p : 0) * half, *sr = sn + (ok ? p : 0) * half;
        if (!gptj) {
            S a[VP], b[VP];
            CS cv[VP], sv[VP];
            gk_ldv<S, VP>(xr + j0, a);
            gk_ldv<S, VP>(xr + j0 + half, b);
            gk_ldv<CS, VP>(cr + j0, cv);
            gk_ldv<CS, VP>(sr + j0, sv);
            if (VP == 1) {
                float c = ok ? TC::ld(cv[0]) : 0.f, s = ok ? TC::ld(sv[0]) : 0.f;
                float u = T::ld(a[0]), v = T::ld(b[0]);
                a[0] = T::st(u * c - v * s);
                b[0] = T::st(v * c + u * s);
            } else {
#pragma unroll
                for (int k = 0; k < VP; k += 2) {
                    float c0 = ok ? gk_rp<CT>::ld(cv[k]) : 0.f, s0 = ok ? gk_rp<CT>::ld(sv[k]) : 0.f;
                    float c1 = ok ? gk_rp<CT>::ld(cv[k + 1]) : 0.f, s1 = ok ? gk_rp<CT>::ld(sv[k + 1]) : 0.f;
                    float u0 = gk_rp<DT>::ld(a[k]), v0 = gk_rp<DT>::ld(b[k]), u1 = gk_rp<DT>::ld(a[k + 1]), v1 = gk_rp<DT>::ld(b[k + 1]);
                    gk_rp<DT>::st2(a[k], a[k + 1], u0 * c0 - v0 * s0, u1 * c1 - v1 * s1);
                    gk_rp<DT>::st2(b[k], b[k + 1], v0 * c0 + u0 * s0, v1 * c1 + u1 * s1);
                }
            }
            gk_stv<S, VP>(orow + j0, a);
            gk_stv<S, VP>(orow + j0 + half, b);
        } else {
            S a[2 * VP];
            CS cv[VP], sv[VP];
            gk_ldv<S, 2 * VP>(xr + 2 * j0, a);
            gk_ldv<CS, VP>(cr + j0, cv);
            gk_ldv<CS, VP>(sr + j0, sv);
#pragma unroll
            for (int k = 0; k < VP; k++) {
                float c = ok ? gk_rp<CT>::ld(cv[k]) : 0.f, s = ok ? gk_rp<CT>::ld(sv[k]) : 0.f;
                float u = gk_rp<DT>::ld(a[2 * k]), v = gk_rp<DT>::ld(a[2 * k + 1]);
                gk_rp<DT>::st2(a[2 * k], a[2 * k + 1], u * c - v * s, v * c + u * s);
            }
            gk_stv<S, 2 * VP>(orow + 2 * j0, a);
        }
    }
}

// pass-through of dims rd..D-1 (out != x)
template <typename S, typename I>
__device__ __forceinline__ void gk_rope_pass(I total, I np, I H, int rd, const S *x, gk_i64 xst, gk_i64 xsh, S *out, gk_i64 ost, gk_i64 osh) {
    for (I i = (I)GK_TID; i < total; i += (I)GK_NTHREADS) {
        I row = i / np, q = i - row * np;
        I t = row / H, hh = row - t * H;
        out[(gk_i64)t * ost + (gk_i64)hh * osh + rd + q] = x[(gk_i64)t * xst + (gk_i64)hh * xsh + rd + q];
    }
}

#define GK_ROPE(DTN, CTN, VP)                                                                                            \
    extern "C" __global__ void gk_rope_##DTN##_##CTN##_p##VP(                                                          \
        gk_i64 T_, gk_i64 H, int D, int rd, int gptj, const void *pos, int pos64, gk_i64 max_pos,                        \
        const gk_ty<GK_DT_##DTN>::S *x, gk_i64 xst, gk_i64 xsh, gk_ty<GK_DT_##DTN>::S *out, gk_i64 ost, gk_i64 osh,      \
        const gk_ty<GK_DT_##CTN>::S *cs, const gk_ty<GK_DT_##CTN>::S *sn) {                                             \
        gk_i64 npv = (rd / 2) / VP, total = T_ * H * npv;                                                                \
        if (total < 2147483647ll)                                                                                        \
            gk_rope_body<GK_DT_##DTN, GK_DT_##CTN, VP, unsigned>((unsigned)total, (unsigned)npv, (unsigned)H, rd, gptj,   \
                                                                pos, pos64, max_pos, x, xst, xsh, out, ost, osh, cs, sn); \
        else                                                                                                             \
            gk_rope_body<GK_DT_##DTN, GK_DT_##CTN, VP, gk_i64>(total, npv, H, rd, gptj, pos, pos64, max_pos, x, xst, xsh, \
                                                              out, ost, osh, cs, sn);                                   \
    }
#define GK_ROPE_ALL(DTN, CTN)                                                                                            \
    GK_ROPE(DTN, CTN, 1)                                                                                                 \
    GK_ROPE(DTN, CTN, 4)                                                                                                 \
    GK_ROPE(DTN, CTN, 8)
GK_ROPE_ALL(f32, f32)
GK_ROPE_ALL(f16, f16)
GK_ROPE_ALL(f16, f32)
GK_ROPE_ALL(bf16, bf16)
GK_ROPE_ALL(bf16, f32)

#define GK_ROPE_PASS(B, TY)                                                                                              \
    extern "C" __global__ void gk_rope_pass_b##B(gk_i64 T_, gk_i64 H, int D, int rd, const TY *x, gk_i64 xst,          \
                                                 gk_i64 xsh, TY *out, gk_i64 ost, gk_i64 osh) {                          \
        gk_i64 np = D - rd, total = T_ * H * np;                                                                         \
        if (total < 2147483647ll)                                                                                        \
            gk_rope_pass<TY, unsigned>((unsigned)total, (unsigned)np, (unsigned)H, rd, x, xst, xsh, out, ost, osh);      \
        else                                                                                                             \
            gk_rope_pass<TY, gk_i64>(total, np, H, rd, x, xst, xsh, out, ost, osh);                                      \
    }
GK_ROPE_PASS(2, gk_u16)
GK_ROPE_PASS(4, gk_u32)
