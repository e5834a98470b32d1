// gk_gemm.cuh - what the GEMM modules share (gemm.cu, gemm_tc*.cu): the
// parameter block gk_gemm_p (gpukit.h's gk__mm has the same layout), the
// activation codes of the fused epilogue, and loads of a runtime dtype.
#pragma once
#include "gk_common.cuh"

#define GK_ACT_NONE 0
#define GK_ACT_GELU 1
#define GK_ACT_GELU_TANH 2
#define GK_ACT_SILU 3
#define GK_ACT_RELU 4

struct gk_gemm_p {
    gk_i64 M, N, K;
    gk_i64 a_rs, a_cs, a_bs;   // op(A)[m, k] at m * a_rs + k * a_cs (+ batch * a_bs)
    gk_i64 b_rs, b_cs, b_bs;   // op(B)[k, n] at k * b_rs + n * b_cs
    gk_i64 o_rs, o_bs;         // out[m, n] at m * o_rs + n
    gk_i64 r_rs, r_bs;         // residual[m, n]
    const void *a, *b, *bias, *res;
    void *o;
    double alpha, beta;
    int act, bias_dt, res_dt, pad; // pad: gk_epilogue_* adds the bias (the GEMM did not); gk_tc_*: the output dtype (GK_DT_*)
};

template <typename C> __device__ __forceinline__ C gk_act(C v, int act) {
    if (act == GK_ACT_GELU) return (C)0.5 * v * ((C)1 + erf(v * (C)0.70710678118654752440));
    if (act == GK_ACT_GELU_TANH) {
        C u = (C)0.79788456080286535588 * (v + (C)0.044715 * v * v * v);
        return (C)0.5 * v * ((C)1 + tanh(u));
    }
    if (act == GK_ACT_SILU) return v / ((C)1 + exp(-v));
    if (act == GK_ACT_RELU) return v > (C)0 ? v : (C)0;
    return v;
}
template <> __device__ __forceinline__ float gk_act<float>(float v, int act) {
    if (act == GK_ACT_GELU) return 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f));
    if (act == GK_ACT_GELU_TANH) {
        float u = 0.79788456080286535588f * (v + 0.044715f * v * v * v);
        return 0.5f * v * (1.0f + tanhf(u));
    }
    if (act == GK_ACT_SILU) return v / (1.0f + expf(-v));
    if (act == GK_ACT_RELU) return v > 0.0f ? v : 0.0f;
    return v;
}

// loads element i of a tensor of runtime dtype dt as C
template <typename C> __device__ __forceinline__ C gk_ld_any(const void *p, gk_i64 i, int dt) {
    switch (dt) {
    case GK_DT_f32: return (C)((const float *)p)[i];
    case GK_DT_f64: return (C)((const double *)p)[i];
    case GK_DT_f16: return (C)gk_h2f(((const gk_u16 *)p)[i]);
    case GK_DT_bf16: return (C)gk_bf2f(((const gk_u16 *)p)[i]);
    default: return (C)0;
    }
}

