// cast.cu - conversion between every pair of dtypes, bit-exact with the CPU
// reference (gk_convert in gpukit.h): float narrowing rounds to nearest
// even, NaN becomes the destination's canonical NaN, float -> int truncates
// and saturates (NaN -> 0), int -> int wraps, int -> float rounds to nearest.
#include "gk_common.cuh"

// a loaded value: integers exact in i, floats exact in f
struct gk_val { int is_int; gk_i64 i; double f; };

template <int DT> __device__ __forceinline__ gk_val gk_load(const void *p) {
    gk_val v; v.is_int = 0; v.i = 0; v.f = 0;
    if (DT == GK_DT_f32) v.f = *(const float *)p;
    if (DT == GK_DT_f64) v.f = *(const double *)p;
    if (DT == GK_DT_f16) v.f = gk_h2f(*(const gk_u16 *)p);
    if (DT == GK_DT_bf16) v.f = gk_bf2f(*(const gk_u16 *)p);
    if (DT == GK_DT_f8e4m3) v.f = gk_e4m3_to_f(*(const gk_u8 *)p);
    if (DT == GK_DT_f8e5m2) v.f = gk_e5m2_to_f(*(const gk_u8 *)p);
    if (DT == GK_DT_i8) { v.is_int = 1; v.i = *(const signed char *)p; }
    if (DT == GK_DT_u8) { v.is_int = 1; v.i = *(const gk_u8 *)p; }
    if (DT == GK_DT_i32) { v.is_int = 1; v.i = *(const int *)p; }
    if (DT == GK_DT_i64) { v.is_int = 1; v.i = *(const gk_i64 *)p; }
    return v;
}
template <int DT> __device__ __forceinline__ void gk_store(void *p, gk_val v) {
    if (DT == GK_DT_f32) {
        float x = v.is_int ? __ll2float_rn(v.i) : __double2float_rn(v.f);
        *(float *)p = x == x ? x : __int_as_float(0x7FC00000);
    }
    if (DT == GK_DT_f64) {
        double x = v.is_int ? __ll2double_rn(v.i) : v.f;
        *(double *)p = x == x ? x : __longlong_as_double(0x7FF8000000000000ll);
    }
    if (DT == GK_DT_f16) *(gk_u16 *)p = (gk_u16)(v.is_int ? gk_i64_to_fmt(v.i, 5, 10, 1) : gk_f64_to_fmt(v.f, 5, 10, 1));
    if (DT == GK_DT_bf16) *(gk_u16 *)p = (gk_u16)(v.is_int ? gk_i64_to_fmt(v.i, 8, 7, 1) : gk_f64_to_fmt(v.f, 8, 7, 1));
    if (DT == GK_DT_f8e4m3) *(gk_u8 *)p = (gk_u8)(v.is_int ? gk_i64_to_fmt(v.i, 4, 3, 0) : gk_f64_to_fmt(v.f, 4, 3, 0));
    if (DT == GK_DT_f8e5m2) *(gk_u8 *)p = (gk_u8)(v.is_int ? gk_i64_to_fmt(v.i, 5, 2, 1) : gk_f64_to_fmt(v.f, 5, 2, 1));
    if (DT == GK_DT_i8) *(signed char *)p = v.is_int ? gk_ty<GK_DT_i8>::st(v.i) : gk_ty<GK_DT_i8>::sat(v.f);
    if (DT == GK_DT_u8) *(gk_u8 *)p = v.is_int ? gk_ty<GK_DT_u8>::st(v.i) : gk_ty<GK_DT_u8>::sat(v.f);
    if (DT == GK_DT_i32) *(int *)p = v.is_int ? gk_ty<GK_DT_i32>::st(v.i) : gk_ty<GK_DT_i32>::sat(v.f);
    if (DT == GK_DT_i64) *(gk_i64 *)p = v.is_int ? v.i : gk_ty<GK_DT_i64>::sat(v.f);
}

template <int S, int D> __device__ __forceinline__ void gk_cast_body(const gk_nd &nd, char *out, const char *in) {
    const int ss = sizeof(typename gk_ty<S>::S), ds = sizeof(typename gk_ty<D>::S);
    if (nd.ndim == 1 && nd.st[0][0] == 1 && nd.st[1][0] == 1) {
        for (gk_i64 i = GK_TID; i < nd.n; i += GK_NTHREADS) gk_store<D>(out + i * ds, gk_load<S>(in + i * ss));
    } else {
        for (gk_i64 i = GK_TID; i < nd.n; i += GK_NTHREADS) {
            gk_i64 o0, o1, o2;
            gk_nd_offsets(nd, i, o0, o1, o2);
            gk_store<D>(out + o0 * ds, gk_load<S>(in + o1 * ss));
        }
    }
}
#define GK_CAST(SN, DN)                                                                  \
    extern "C" __global__ void gk_cast_##SN##_##DN(gk_nd nd, char *out, const char *in) { \
        gk_cast_body<GK_DT_##SN, GK_DT_##DN>(nd, out, in);                               \
    }
#define GK_CAST_FROM(SN)                                                                 \
    GK_CAST(SN, f32) GK_CAST(SN, f64) GK_CAST(SN, f16) GK_CAST(SN, bf16) GK_CAST(SN, f8e4m3) \
    GK_CAST(SN, f8e5m2) GK_CAST(SN, i8) GK_CAST(SN, u8) GK_CAST(SN, i32) GK_CAST(SN, i64)
GK_CAST_FROM(f32)
GK_CAST_FROM(f64)
GK_CAST_FROM(f16)
GK_CAST_FROM(bf16)
GK_CAST_FROM(f8e4m3)
GK_CAST_FROM(f8e5m2)
GK_CAST_FROM(i8)
GK_CAST_FROM(u8)
GK_CAST_FROM(i32)
GK_CAST_FROM(i64)
