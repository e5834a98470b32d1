// math.cu - elementwise math of the >>ops_math group: unary functions and
// activations (+ clamp), pow / maximum / minimum, comparisons, where, fused
// GLU (SwiGLU / GeGLU) and snake. 16/8-bit floats compute in f32, f64 in
// double. The *_c kernels take contiguous, 16-byte aligned operands of equal
// shape (checked by the host) and move 16 bytes per thread; the others index
// any strides and broadcasts through gk_nd.
#include "gk_common.cuh"

// gk_unary_op of gpukit.h (GK_UNARY_COUNT is clamp, internal)
#define U_EXP 0
#define U_LOG 1
#define U_SQRT 2
#define U_RSQRT 3
#define U_ABS 4
#define U_NEG 5
#define U_SIN 6
#define U_COS 7
#define U_TANH 8
#define U_SIGMOID 9
#define U_RELU 10
#define U_LEAKY 11
#define U_GELU 12
#define U_GELU_TANH 13
#define U_SILU 14
#define U_RELU2 15
#define U_SOFTPLUS 16
#define U_CLAMP 17

__device__ __forceinline__ float m_exp(float x) { return expf(x); }
__device__ __forceinline__ double m_exp(double x) { return exp(x); }
__device__ __forceinline__ float m_log(float x) { return logf(x); }
__device__ __forceinline__ double m_log(double x) { return log(x); }
__device__ __forceinline__ float m_log1p(float x) { return log1pf(x); }
__device__ __forceinline__ double m_log1p(double x) { return log1p(x); }
__device__ __forceinline__ float m_sqrt(float x) { return sqrtf(x); }
__device__ __forceinline__ double m_sqrt(double x) { return sqrt(x); }
__device__ __forceinline__ float m_sin(float x) { return sinf(x); }
__device__ __forceinline__ double m_sin(double x) { return sin(x); }
__device__ __forceinline__ float m_cos(float x) { return cosf(x); }
__device__ __forceinline__ double m_cos(double x) { return cos(x); }
__device__ __forceinline__ float m_tanh(float x) { return tanhf(x); }
__device__ __forceinline__ double m_tanh(double x) { return tanh(x); }
__device__ __forceinline__ float m_erf(float x) { return erff(x); }
__device__ __forceinline__ double m_erf(double x) { return erf(x); }
__device__ __forceinline__ float m_pow(float x, float y) { return powf(x, y); }
__device__ __forceinline__ double m_pow(double x, double y) { return pow(x, y); }
__device__ __forceinline__ float m_abs(float x) { return fabsf(x); }
__device__ __forceinline__ double m_abs(double x) { return fabs(x); }

template <typename C> __device__ __forceinline__ C gk_gelu(C x) { return (C)0.5 * x * ((C)1 + m_erf(x * (C)0.70710678118654752440)); }
template <typename C> __device__ __forceinline__ C gk_gelu_tanh(C x) {
    return (C)0.5 * x * ((C)1 + m_tanh((C)0.79788456080286535588 * (x + (C)0.044715 * x * x * x)));
}
template <typename C> __device__ __forceinline__ C gk_silu(C x) { return x / ((C)1 + m_exp(-x)); }

template <typename C> __device__ __forceinline__ C gk_un(int op, C x, C p0, C p1) {
    switch (op) {
    case U_EXP: return m_exp(x);
    case U_LOG: return m_log(x);
    case U_SQRT: return m_sqrt(x);
    case U_RSQRT: return (C)1 / m_sqrt(x);
    case U_ABS: return m_abs(x);
    case U_NEG: return -x;
    case U_SIN: return m_sin(x);
    case U_COS: return m_cos(x);
    case U_TANH: return m_tanh(x);
    case U_SIGMOID: return (C)1 / ((C)1 + m_exp(-x));
    case U_RELU: return x < (C)0 ? (C)0 : x;
    case U_LEAKY: return x < (C)0 ? x * p0 : x;
    case U_GELU: return gk_gelu(x);
    case U_GELU_TANH: return gk_gelu_tanh(x);
    case U_SILU: return gk_silu(x);
    case U_RELU2: { C r = x < (C)0 ? (C)0 : x; return r * r; }
    case U_SOFTPLUS: { C bx = p0 * x; return bx > (C)20 ? x : m_log1p(m_exp(bx)) / p0; }
    default: return x < p0 ? p0 : x > p1 ? p1 : x; // clamp; NaN stays NaN
    }
}
template <int OP, typename C> __device__ __forceinline__ C gk_un_t(C x, C p0, C p1) { return gk_un<C>(OP, x, p0, p1); }

// GELU for the 16/8-bit float dtypes (results rounded to at most 11
// significant bits): fewer instructions than erff / tanhf, relative error
// below 1e-5 over the whole range, including the negative tail.
//  erf form: Phi(x) = erfc(-x / sqrt2) / 2 with erfc(a) = t exp(-a^2 + P(t)),
//    t = 1 / (1 + a / 2) for a >= 0 (a Chebyshev fit, relative error below
//    1.2e-7), erfc(-a) = 2 - erfc(a); evaluated in base 2 with
//    b = a sqrt(log2 e): erfc(a) / 2 = t 2^(-b^2 + P2(t)), P2 = P log2 e - 1
//    (the halving folded in), one rcp and one ex2 (approximate, ftz:
//    Phi(-|x|) below 2^-126, |x| > 13, flushes to 0);
//  tanh form: (1 + tanh(u)) / 2 = sigmoid(2u), from e = exp(-2|u|) (no overflow).
__device__ __forceinline__ float gk_rcp_apx(float y) {
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(y));
    return r;
}
__device__ __forceinline__ float gk_ex2_apx(float y) {
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(y));
    return r;
}
__device__ __forceinline__ float gk_gelu_f16(float x) {
    float b = fabsf(x) * 0.849321782588958740f;                // |x| sqrt(log2(e) / 2)
    float t = gk_rcp_apx(fmaf(b, 0.416277319192886353f, 1.f)); // 1 / (1 + |x| / (2 sqrt2))
    float p = fmaf(t, 2.465172979e-01f, -1.186114945e+00f);
    p = fmaf(t, p, 2.147474464e+00f);
    p = fmaf(t, p, -1.637753152e+00f);
    p = fmaf(t, p, 4.023215817e-01f);
    p = fmaf(t, p, -2.687568603e-01f);
    p = fmaf(t, p, 1.396300565e-01f);
    p = fmaf(t, p, 5.397006155e-01f);
    p = fmaf(t, p, 1.442729204e+00f);
    p = fmaf(t, p, -2.825748218e+00f);
    float h = t * gk_ex2_apx(fmaf(-b, b, p)); // erfc(|x| / sqrt2) / 2 = Phi(-|x|)
    return x * (x < 0.f ? h : 1.f - h);
}
__device__ __forceinline__ float gk_gelu_tanh_f16(float x) {
    float u = 0.79788456080286535588f * fmaf(0.044715f * x, x * x, x);
    float e = __expf(-2.f * fabsf(u));
    float r = __fdividef(1.f, 1.f + e);
    return x * (u < 0.f ? e * r : r);
}
template <int OP, int DT> __device__ __forceinline__ float gk_un_f16(float x, float p0, float p1) {
    if (OP == U_GELU) return gk_gelu_f16(x);
    if (OP == U_GELU_TANH) return gk_gelu_tanh_f16(x);
    return gk_un<float>(OP, x, p0, p1);
}
// the compute of the contiguous unary kernels: the fast GELU forms for the
// 16/8-bit floats, gk_un otherwise
template <int OP, int DT, typename C> __device__ __forceinline__ C gk_un_c(C x, C p0, C p1) {
    if (DT == GK_DT_f16 || DT == GK_DT_bf16 || DT == GK_DT_f8e4m3 || DT == GK_DT_f8e5m2)
        return (C)gk_un_f16<OP, DT>((float)x, (float)p0, (float)p1);
    return gk_un_t<OP, C>(x, p0, p1);
}

// the compute type of the float dtypes: double for f64, else float
template <int DT> struct gk_fc { typedef float C; };
template <> struct gk_fc<GK_DT_f64> { typedef double C; };

template <int DT> __device__ __forceinline__ void gk_unary_nd(const gk_nd &nd, typename gk_ty<DT>::S *out, const typename gk_ty<DT>::S *x,
                                                              int op, double p0, double p1) {
    typedef gk_ty<DT> T;
    typedef typename gk_fc<DT>::C C;
    for (gk_i64 i = GK_TID; i < nd.n; i += GK_NTHREADS) {
        gk_i64 o0, o1, o2;
        gk_nd_offsets(nd, i, o0, o1, o2);
        out[o0] = T::st(gk_un<C>(op, (C)T::ld(x[o1]), (C)p0, (C)p1));
    }
}
// one 16-byte vector of a contiguous unary kernel
template <int OP, int DT, typename C> __device__ __forceinline__ uint4 gk_un_vec(uint4 a, C p0, C p1) {
    typedef gk_ty<DT> T;
    typedef typename T::S S;
    if (DT == GK_DT_f16 || DT == GK_DT_bf16) {
        gk_u32 w[4] = { a.x, a.y, a.z, a.w };
#pragma unroll
        for (int k = 0; k < 4; k++)
            w[k] = gk_p16_pack<DT>((float)gk_un_c<OP, DT, C>((C)gk_p16_lo<DT>(w[k]), p0, p1), (float)gk_un_c<OP, DT, C>((C)gk_p16_hi<DT>(w[k]), p0, p1));
        return make_uint4(w[0], w[1], w[2], w[3]);
    }
    union { uint4 v; S s[16 / sizeof(S)]; } x, z;
    x.v = a;
#pragma unroll
    for (int k = 0; k < (int)(16 / sizeof(S)); k++) z.s[k] = T::st(gk_un_c<OP, DT, C>((C)T::ld(x.s[k]), p0, p1));
    return z.v;
}
// Vectors a thread of gk_unary_c takes per step; the host's gk__launch_c4 sizes the
// grid to match (one step of 512-thread blocks). One vector a thread is the fastest of
// 1, 2, 4 and 8, as fast as gk_copy (docs/perf-log.md).
#define GK_UN_STEP 1
template <int OP, int DT> __device__ __forceinline__ void gk_unary_c(gk_i64 n, typename gk_ty<DT>::S *out, const typename gk_ty<DT>::S *x,
                                                                     double dp0, double dp1) {
    typedef gk_ty<DT> T;
    typedef typename T::S S;
    typedef typename gk_fc<DT>::C C;
    const int V = 16 / sizeof(S);
    C p0 = (C)dp0, p1 = (C)dp1;
    gk_i64 nvec = n / V, nt = blockDim.x;
    // GK_UN_STEP vectors a thread per step, every load in flight before the math;
    // a block's step covers GK_UN_STEP * blockDim.x consecutive vectors (vectors
    // i, i + nt, ... of the thread: each load of a warp 512 contiguous bytes). The
    // host launches one step's worth of blocks (gk__launch_c4): each thread runs once.
    for (gk_i64 i = (gk_i64)blockIdx.x * GK_UN_STEP * nt + threadIdx.x; i < nvec; i += (gk_i64)gridDim.x * GK_UN_STEP * nt) {
        uint4 a[GK_UN_STEP];
#pragma unroll
        for (int k = 0; k < GK_UN_STEP; k++) {
            a[k] = make_uint4(0u, 0u, 0u, 0u);
            if (i + k * nt < nvec) a[k] = __ldg((const uint4 *)x + i + k * nt);
        }
#pragma unroll
        for (int k = 0; k < GK_UN_STEP; k++)
            if (i + k * nt < nvec) ((uint4 *)out)[i + k * nt] = gk_un_vec<OP, DT, C>(a[k], p0, p1);
    }
    gk_i64 t = nvec * V + GK_TID;
    if (t < n) out[t] = T::st(gk_un_c<OP, DT, C>((C)T::ld(x[t]), p0, p1));
}

// ---- GLU: out = act(gate) * up; act: 0 silu, 1 gelu (erf), 2 gelu (tanh) ----
template <typename C> __device__ __forceinline__ C gk_glu1(int op, C g, C u) {
    C a = op == 0 ? gk_silu(g) : op == 1 ? gk_gelu(g) : gk_gelu_tanh(g);
    return a * u;
}
template <int OP, typename C> __device__ __forceinline__ C gk_glu_t(C g, C u) { return gk_glu1<C>(OP, g, u); }
template <int DT> __device__ __forceinline__ void gk_glu_nd(const gk_nd &nd, typename gk_ty<DT>::S *out, const typename gk_ty<DT>::S *g,
                                                            const typename gk_ty<DT>::S *u, int op) {
    typedef gk_ty<DT> T;
    typedef typename gk_fc<DT>::C C;
    for (gk_i64 i = GK_TID; i < nd.n; i += GK_NTHREADS) {
        gk_i64 o0, o1, o2;
        gk_nd_offsets(nd, i, o0, o1, o2);
        out[o0] = T::st(gk_glu1<C>(op, (C)T::ld(g[o1]), (C)T::ld(u[o2])));
    }
}
template <int OP, int DT> __device__ __forceinline__ void gk_glu_c(gk_i64 n, typename gk_ty<DT>::S *out, const typename gk_ty<DT>::S *g,
                                                                   const typename gk_ty<DT>::S *u) {
    typedef gk_ty<DT> T;
    typedef typename T::S S;
    typedef typename gk_fc<DT>::C C;
    const int V = 16 / sizeof(S);
    gk_i64 nvec = n / V;
    for (gk_i64 i = GK_TID; i < nvec; i += GK_NTHREADS) {
        union { uint4 v; S s[16 / sizeof(S)]; } a, b, z;
        a.v = __ldg((const uint4 *)g + i);
        b.v = __ldg((const uint4 *)u + i);
#pragma unroll
        for (int k = 0; k < V; k++) z.s[k] = T::st(gk_glu_t<OP, C>((C)T::ld(a.s[k]), (C)T::ld(b.s[k])));
        ((uint4 *)out)[i] = z.v;
    }
    gk_i64 t = nvec * V + GK_TID;
    if (t < n) out[t] = T::st(gk_glu_t<OP, C>((C)T::ld(g[t]), (C)T::ld(u[t])));
}

// rows of x [rows, 2n] -> out [rows, n], contiguous, n a multiple of the vector width, aligned
template <int OP, int DT> __device__ __forceinline__ void gk_glu_split_c(gk_i64 rows, gk_i64 n, typename gk_ty<DT>::S *out,
                                                                         const typename gk_ty<DT>::S *x) {
    typedef gk_ty<DT> T;
    typedef typename T::S S;
    typedef typename gk_fc<DT>::C C;
    const int V = 16 / sizeof(S);
    gk_i64 nv = n / V, total = rows * nv;
    for (gk_i64 i = GK_TID; i < total; i += GK_NTHREADS) {
        gk_i64 r = i / nv, c = i - r * nv;
        union { uint4 v; S s[16 / sizeof(S)]; } a, b, z;
        a.v = __ldg((const uint4 *)(x + r * 2 * n) + c);
        b.v = __ldg((const uint4 *)(x + r * 2 * n + n) + c);
#pragma unroll
        for (int k = 0; k < V; k++) z.s[k] = T::st(gk_glu_t<OP, C>((C)T::ld(a.s[k]), (C)T::ld(b.s[k])));
        ((uint4 *)out)[i] = z.v;
    }
}

// ---- binary: 0 pow (floats), 1 maximum, 2 minimum (NaN propagates) ----
template <int K, typename C> __device__ __forceinline__ C gk_bin2(int op, C a, C b) {
    if (op == 0) return m_pow(a, b);
    if (a != a || b != b) return a + b;
    return op == 1 ? (a > b ? a : b) : (a < b ? a : b);
}
template <int DT> __device__ __forceinline__ void gk_bin2_nd(const gk_nd &nd, typename gk_ty<DT>::S *out, const typename gk_ty<DT>::S *a,
                                                             const typename gk_ty<DT>::S *b, int op) {
    typedef gk_ty<DT> T;
    typedef typename T::C C;
    for (gk_i64 i = GK_TID; i < nd.n; i += GK_NTHREADS) {
        gk_i64 o0, o1, o2;
        gk_nd_offsets(nd, i, o0, o1, o2);
        out[o0] = T::st((C)gk_bin2<T::K, typename gk_fc<DT>::C>(op, (typename gk_fc<DT>::C)T::ld(a[o1]), (typename gk_fc<DT>::C)T::ld(b[o2])));
    }
}
template <int DT> __device__ __forceinline__ void gk_bin2i_nd(const gk_nd &nd, typename gk_ty<DT>::S *out, const typename gk_ty<DT>::S *a,
                                                              const typename gk_ty<DT>::S *b, int op) {
    typedef gk_ty<DT> T;
    for (gk_i64 i = GK_TID; i < nd.n; i += GK_NTHREADS) {
        gk_i64 o0, o1, o2;
        gk_nd_offsets(nd, i, o0, o1, o2);
        gk_i64 x = T::ld(a[o1]), y = T::ld(b[o2]);
        out[o0] = T::st(op == 1 ? (x > y ? x : y) : (x < y ? x : y));
    }
}

// contiguous, aligned, equal shapes: 16 bytes per thread (op uniform, branch hoisted by the compiler or cheap)
template <int DT> __device__ __forceinline__ void gk_bin2_c(gk_i64 n, typename gk_ty<DT>::S *out, const typename gk_ty<DT>::S *a,
                                                            const typename gk_ty<DT>::S *b, int op) {
    typedef gk_ty<DT> T;
    typedef typename T::S S;
    typedef typename gk_fc<DT>::C C;
    const int V = 16 / sizeof(S);
    gk_i64 nvec = n / V, nt = blockDim.x;
    // four vectors of each operand a thread per step, loads first, a block's
    // step over 4 * blockDim.x consecutive vectors (as gk_unary_c; the host
    // launches one step's worth of blocks)
    for (gk_i64 i = (gk_i64)blockIdx.x * 4 * nt + threadIdx.x; i < nvec; i += (gk_i64)gridDim.x * 4 * nt) {
        union { uint4 v; S s[16 / sizeof(S)]; } x[4], y[4], z;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            x[j].v = make_uint4(0u, 0u, 0u, 0u);
            y[j].v = x[j].v;
            if (i + j * nt < nvec) {
                x[j].v = __ldg((const uint4 *)a + i + j * nt);
                y[j].v = __ldg((const uint4 *)b + i + j * nt);
            }
        }
#pragma unroll
        for (int j = 0; j < 4; j++) {
#pragma unroll
            for (int k = 0; k < V; k++) z.s[k] = T::st((typename T::C)gk_bin2<T::K, C>(op, (C)T::ld(x[j].s[k]), (C)T::ld(y[j].s[k])));
            if (i + j * nt < nvec) ((uint4 *)out)[i + j * nt] = z.v;
        }
    }
    gk_i64 t = nvec * V + GK_TID;
    if (t < n) out[t] = T::st((typename T::C)gk_bin2<T::K, C>(op, (C)T::ld(a[t]), (C)T::ld(b[t])));
}

// ---- comparisons: out u8 = a OP b; 0 eq, 1 ne, 2 lt, 3 le, 4 gt, 5 ge ----
template <typename C> __device__ __forceinline__ gk_u8 gk_cmp1(int op, C a, C b) {
    switch (op) {
    case 0: return a == b;
    case 1: return a != b;
    case 2: return a < b;
    case 3: return a <= b;
    case 4: return a > b;
    default: return a >= b;
    }
}
template <int DT> __device__ __forceinline__ void gk_cmp_nd(const gk_nd &nd, gk_u8 *out, const typename gk_ty<DT>::S *a,
                                                            const typename gk_ty<DT>::S *b, int op) {
    typedef gk_ty<DT> T;
    for (gk_i64 i = GK_TID; i < nd.n; i += GK_NTHREADS) {
        gk_i64 o0, o1, o2;
        gk_nd_offsets(nd, i, o0, o1, o2);
        out[o0] = gk_cmp1<typename T::C>(op, T::ld(a[o1]), T::ld(b[o2]));
    }
}

// ---- where: out = cond ? a : b (operands: 0 out, 1 cond, 2 a, 3 b), raw elements ----
template <typename S> __device__ __forceinline__ void gk_where_nd(const gk_nd &nd, S *out, const gk_u8 *c, const S *a, const S *b) {
    for (gk_i64 i = GK_TID; i < nd.n; i += GK_NTHREADS) {
        gk_i64 o0, o1, o2, o3;
        gk_nd_offsets4(nd, i, o0, o1, o2, o3);
        out[o0] = c[o1] ? a[o2] : b[o3];
    }
}

// ---- snake: out = x + sin(alpha x)^2 / (alpha + 1e-9), alpha broadcast per channel ----
// sin(y)^2 in f32 without sinf's slow path: y = k pi + r with |r| <= pi/2
// (pi in two parts: k hi is exact in the fma, so r is exact up to the
// rounding of k lo), sin(r) by its odd Taylor polynomial to r^11 (truncation
// below 6e-8 on [-pi/2, pi/2]); the sign of sin is lost in the square.
// Beyond |y| = 2^21 (and for inf / NaN) it takes sinf.
__device__ __noinline__ float gk_sin2f_slow(float y) { // out of line: keeps the vector loops small
    float s = sinf(y);
    return s * s;
}
__device__ __forceinline__ float gk_sin2f(float y) {
    if (!(fabsf(y) <= 2097152.f)) return gk_sin2f_slow(y);
    // k = round(y / pi) by the 1.5 * 2^23 shifter (full-rate fma / add, not a conversion), |y / pi| < 2^22
    float k = fmaf(y, 0.318309886183790672f, 12582912.f) - 12582912.f;
    float r = fmaf(-k, 3.14159274101257324f, y);
    r = fmaf(-k, -8.74227800037248300e-8f, r);
    float r2 = r * r;
    float p = fmaf(r2, -2.50521083854417188e-8f, 2.75573192239858907e-6f);
    p = fmaf(r2, p, -1.98412698412698413e-4f);
    p = fmaf(r2, p, 8.33333333333333333e-3f);
    p = fmaf(r2, p, -1.66666666666666667e-1f);
    float sn = fmaf(r * r2, p, r);
    return sn * sn;
}
// one element: v + sin(a v)^2 * ia with ia = 1 / (a + 1e-9)
__device__ __forceinline__ float gk_snake1(float v, float a, float ia) { return fmaf(gk_sin2f(a * v), ia, v); }
__device__ __forceinline__ double gk_snake1(double v, double a, double ia) {
    double s = sin(a * v);
    return v + s * s * ia;
}

template <int DT> __device__ __forceinline__ void gk_snake_nd(const gk_nd &nd, typename gk_ty<DT>::S *out, const typename gk_ty<DT>::S *x,
                                                              const typename gk_ty<DT>::S *al) {
    typedef gk_ty<DT> T;
    typedef typename gk_fc<DT>::C C;
    for (gk_i64 i = GK_TID; i < nd.n; i += GK_NTHREADS) {
        gk_i64 o0, o1, o2;
        gk_nd_offsets(nd, i, o0, o1, o2);
        C v = (C)T::ld(x[o1]), a = (C)T::ld(al[o2]);
        out[o0] = T::st(gk_snake1(v, a, (C)1 / (a + (C)1e-9)));
    }
}

// contiguous x / out [rows = B*C, T], alpha[(row % C) * ast]: no index division per element
template <int DT> __device__ __forceinline__ void gk_snake_rows(gk_i64 rows, gk_i64 T, gk_i64 C, gk_i64 ast, typename gk_ty<DT>::S *out,
                                                                const typename gk_ty<DT>::S *x, const typename gk_ty<DT>::S *al) {
    typedef gk_ty<DT> Ty;
    typedef typename gk_fc<DT>::C Cc;
    for (gk_i64 row = blockIdx.y; row < rows; row += gridDim.y) {
        Cc a = (Cc)Ty::ld(al[(row % C) * ast]), ia = (Cc)1 / (a + (Cc)1e-9);
        const typename Ty::S *xr = x + row * T;
        typename Ty::S *yr = out + row * T;
        for (gk_i64 t = (gk_i64)blockIdx.x * blockDim.x + threadIdx.x; t < T; t += (gk_i64)gridDim.x * blockDim.x)
            yr[t] = Ty::st(gk_snake1((Cc)Ty::ld(xr[t]), a, ia));
    }
}
// the same with 16-byte vectors: T a multiple of 16 bytes, x / out 16-byte
// aligned (checked by the host); tv = vectors per row; each thread two
// vectors (blockDim.x apart) per step, both loads before the math
template <int DT, typename Cc> __device__ __forceinline__ uint4 gk_snake_vec(uint4 u, Cc a, Cc ia) {
    typedef gk_ty<DT> Ty;
    typedef typename Ty::S S;
    if (DT == GK_DT_f16 || DT == GK_DT_bf16) {
        gk_u32 w[4] = { u.x, u.y, u.z, u.w };
#pragma unroll
        for (int k = 0; k < 4; k++)
            w[k] = gk_p16_pack<DT>((float)gk_snake1((Cc)gk_p16_lo<DT>(w[k]), a, ia), (float)gk_snake1((Cc)gk_p16_hi<DT>(w[k]), a, ia));
        return make_uint4(w[0], w[1], w[2], w[3]);
    }
    union { uint4 v; S s[16 / sizeof(S)]; } z;
    z.v = u;
#pragma unroll
    for (int k = 0; k < (int)(16 / sizeof(S)); k++) z.s[k] = Ty::st(gk_snake1((Cc)Ty::ld(z.s[k]), a, ia));
    return z.v;
}
template <int DT> __device__ __forceinline__ void gk_snake_rv(gk_i64 rows, gk_i64 tv, gk_i64 C, gk_i64 ast, typename gk_ty<DT>::S *out,
                                                              const typename gk_ty<DT>::S *x, const typename gk_ty<DT>::S *al) {
    typedef gk_ty<DT> Ty;
    typedef typename gk_fc<DT>::C Cc;
    const gk_i64 bd = blockDim.x;
    for (gk_i64 row = blockIdx.y; row < rows; row += gridDim.y) {
        Cc a = (Cc)Ty::ld(al[(row % C) * ast]), ia = (Cc)1 / (a + (Cc)1e-9);
        const uint4 *xr = (const uint4 *)x + row * tv;
        uint4 *yr = (uint4 *)out + row * tv;
        for (gk_i64 t = (gk_i64)blockIdx.x * 2 * bd + threadIdx.x; t < tv; t += (gk_i64)gridDim.x * 2 * bd) {
            bool two = t + bd < tv;
            uint4 u = __ldg(xr + t), w = make_uint4(0u, 0u, 0u, 0u);
            if (two) w = __ldg(xr + t + bd);
            yr[t] = gk_snake_vec<DT, Cc>(u, a, ia);
            if (two) yr[t + bd] = gk_snake_vec<DT, Cc>(w, a, ia);
        }
    }
}

#define GK_MATH_F(DTN)                                                                                              \
    extern "C" __global__ void gk_unary_##DTN(gk_nd nd, gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##DTN>::S *x, \
                                              int op, double p0, double p1) {                                       \
        gk_unary_nd<GK_DT_##DTN>(nd, out, x, op, p0, p1);                                                           \
    }                                                                                                               \
    extern "C" __global__ void gk_glu_##DTN(gk_nd nd, gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##DTN>::S *g,   \
                                            const gk_ty<GK_DT_##DTN>::S *u, int op) {                               \
        gk_glu_nd<GK_DT_##DTN>(nd, out, g, u, op);                                                                  \
    }                                                                                                               \
    extern "C" __global__ void gk_glu_##DTN##_c(gk_i64 n, gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##DTN>::S *g, \
                                                const gk_ty<GK_DT_##DTN>::S *u, int op) {                           \
        if (op == 0) gk_glu_c<0, GK_DT_##DTN>(n, out, g, u);                                                        \
        else if (op == 1) gk_glu_c<1, GK_DT_##DTN>(n, out, g, u);                                                   \
        else gk_glu_c<2, GK_DT_##DTN>(n, out, g, u);                                                                \
    }                                                                                                               \
    extern "C" __global__ void gk_glu_split_##DTN##_c(gk_i64 rows, gk_i64 n, gk_ty<GK_DT_##DTN>::S *out,              \
                                                      const gk_ty<GK_DT_##DTN>::S *x, int op) {                     \
        if (op == 0) gk_glu_split_c<0, GK_DT_##DTN>(rows, n, out, x);                                               \
        else if (op == 1) gk_glu_split_c<1, GK_DT_##DTN>(rows, n, out, x);                                          \
        else gk_glu_split_c<2, GK_DT_##DTN>(rows, n, out, x);                                                       \
    }                                                                                                               \
    extern "C" __global__ void gk_snake_##DTN(gk_nd nd, gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##DTN>::S *x, \
                                              const gk_ty<GK_DT_##DTN>::S *al) {                                    \
        gk_snake_nd<GK_DT_##DTN>(nd, out, x, al);                                                                   \
    }                                                                                                               \
    extern "C" __global__ void gk_snake_rows_##DTN(gk_i64 rows, gk_i64 T, gk_i64 C, gk_i64 ast,                     \
                                                   gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##DTN>::S *x,      \
                                                   const gk_ty<GK_DT_##DTN>::S *al) {                               \
        gk_snake_rows<GK_DT_##DTN>(rows, T, C, ast, out, x, al);                                                    \
    }                                                                                                               \
    extern "C" __global__ void gk_snake_rv_##DTN(gk_i64 rows, gk_i64 tv, gk_i64 C, gk_i64 ast,                      \
                                                 gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##DTN>::S *x,        \
                                                 const gk_ty<GK_DT_##DTN>::S *al) {                                 \
        gk_snake_rv<GK_DT_##DTN>(rows, tv, C, ast, out, x, al);                                                     \
    }                                                                                                               \
    extern "C" __global__ void gk_bin2_##DTN(gk_nd nd, gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##DTN>::S *a,  \
                                             const gk_ty<GK_DT_##DTN>::S *b, int op) {                              \
        gk_bin2_nd<GK_DT_##DTN>(nd, out, a, b, op);                                                                 \
    }                                                                                                               \
    extern "C" __global__ void gk_bin2_##DTN##_c(gk_i64 n, gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##DTN>::S *a, \
                                                 const gk_ty<GK_DT_##DTN>::S *b, int op) {                          \
        gk_bin2_c<GK_DT_##DTN>(n, out, a, b, op);                                                                   \
    }
// the contiguous unary kernels, one a (dtype, op): gk_unary_<dt>_c<op> (one kernel a
// dtype with a switch over the op is slower; docs/perf-log.md).
#define GK_UNC(DTN, OP)                                                                                             \
    extern "C" __global__ void __launch_bounds__(512) gk_unary_##DTN##_c##OP(gk_i64 n, gk_ty<GK_DT_##DTN>::S *out,  \
                                                                              const gk_ty<GK_DT_##DTN>::S *x,       \
                                                                              double p0, double p1) {               \
        gk_unary_c<OP, GK_DT_##DTN>(n, out, x, p0, p1);                                                             \
    }
#define GK_UNC_ALL(DTN)                                                                                             \
    GK_UNC(DTN, 0) GK_UNC(DTN, 1) GK_UNC(DTN, 2) GK_UNC(DTN, 3) GK_UNC(DTN, 4) GK_UNC(DTN, 5) GK_UNC(DTN, 6)        \
    GK_UNC(DTN, 7) GK_UNC(DTN, 8) GK_UNC(DTN, 9) GK_UNC(DTN, 10) GK_UNC(DTN, 11) GK_UNC(DTN, 12) GK_UNC(DTN, 13)   \
    GK_UNC(DTN, 14) GK_UNC(DTN, 15) GK_UNC(DTN, 16) GK_UNC(DTN, 17)
GK_UNC_ALL(f32) GK_UNC_ALL(f64) GK_UNC_ALL(f16) GK_UNC_ALL(bf16)
GK_MATH_F(f32) GK_MATH_F(f64) GK_MATH_F(f16) GK_MATH_F(bf16)

#define GK_MATH_I(DTN)                                                                                              \
    extern "C" __global__ void gk_bin2_##DTN(gk_nd nd, gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##DTN>::S *a,  \
                                             const gk_ty<GK_DT_##DTN>::S *b, int op) {                              \
        gk_bin2i_nd<GK_DT_##DTN>(nd, out, a, b, op);                                                                \
    }
GK_MATH_I(i8) GK_MATH_I(u8) GK_MATH_I(i32) GK_MATH_I(i64)
// fp8 maximum / minimum compute in f32
extern "C" __global__ void gk_bin2_f8e4m3(gk_nd nd, gk_u8 *out, const gk_u8 *a, const gk_u8 *b, int op) { gk_bin2_nd<GK_DT_f8e4m3>(nd, out, a, b, op); }
extern "C" __global__ void gk_bin2_f8e5m2(gk_nd nd, gk_u8 *out, const gk_u8 *a, const gk_u8 *b, int op) { gk_bin2_nd<GK_DT_f8e5m2>(nd, out, a, b, op); }

#define GK_CMP(DTN)                                                                                                 \
    extern "C" __global__ void gk_cmp_##DTN(gk_nd nd, gk_u8 *out, const gk_ty<GK_DT_##DTN>::S *a,                   \
                                            const gk_ty<GK_DT_##DTN>::S *b, int op) {                               \
        gk_cmp_nd<GK_DT_##DTN>(nd, out, a, b, op);                                                                  \
    }
GK_CMP(f32) GK_CMP(f64) GK_CMP(f16) GK_CMP(bf16) GK_CMP(f8e4m3) GK_CMP(f8e5m2) GK_CMP(i8) GK_CMP(u8) GK_CMP(i32) GK_CMP(i64)

#define GK_WHERE(B, T)                                                                                              \
    extern "C" __global__ void gk_where_b##B(gk_nd nd, T *out, const gk_u8 *c, const T *a, const T *b) {            \
        gk_where_nd<T>(nd, out, c, a, b);                                                                           \
    }
GK_WHERE(1, gk_u8) GK_WHERE(2, gk_u16) GK_WHERE(4, gk_u32) GK_WHERE(8, gk_u64)
