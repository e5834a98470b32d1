// elementwise.cu - fill, strided copy, binary arithmetic with broadcasting,
// scale and axpy, for every dtype. The *_c kernels take contiguous operands
// of equal shape whose addresses are 16-byte aligned (checked by the host)
// and move 16-byte vectors; the *_v kernels do the same for broadcasts
// whose innermost dim is contiguous (gk_binary_v); the others index any
// strides through gk_nd.
#include "gk_common.cuh"

// ---- fill and copy: element size only ----------------------------------
#define GK_FILL(B, T)                                                                   \
    extern "C" __global__ void gk_fill_b##B(gk_nd nd, T *out, gk_u64 pattern) {        \
        T v = (T)pattern;                                                               \
        for (gk_i64 i = GK_TID; i < nd.n; i += GK_NTHREADS) {                           \
            gk_i64 o0, o1, o2;                                                          \
            gk_nd_offsets(nd, i, o0, o1, o2);                                           \
            out[o0] = v;                                                                \
        }                                                                               \
    }                                                                                   \
    extern "C" __global__ void gk_copy_b##B(gk_nd nd, T *out, const T *in) {           \
        for (gk_i64 i = GK_TID; i < nd.n; i += GK_NTHREADS) {                           \
            gk_i64 o0, o1, o2;                                                          \
            gk_nd_offsets(nd, i, o0, o1, o2);                                           \
            out[o0] = in[o1];                                                           \
        }                                                                               \
    }
GK_FILL(1, gk_u8)
GK_FILL(2, gk_u16)
GK_FILL(4, gk_u32)
GK_FILL(8, gk_u64)

// contiguous fill, 16 bytes per thread (pattern pre-replicated to 16 bytes)
extern "C" __global__ void gk_fill_c(gk_i64 nbytes, gk_u8 *out, gk_u64 lo, gk_u64 hi) {
    gk_i64 nvec = nbytes >> 4;
    uint4 v = make_uint4((unsigned)lo, (unsigned)(lo >> 32), (unsigned)hi, (unsigned)(hi >> 32));
    for (gk_i64 i = GK_TID; i < nvec; i += GK_NTHREADS) ((uint4 *)out)[i] = v;
    gk_i64 t = GK_TID;
    if (t < (nbytes & 15)) {
        gk_i64 j = (nvec << 4) + t;
        out[j] = (gk_u8)((j & 8 ? hi : lo) >> (8 * (j & 7)));
    }
}

// ---- binary arithmetic ----------------------------------------------------
#define GK_OP_ADD 0
#define GK_OP_SUB 1
#define GK_OP_MUL 2
#define GK_OP_DIV 3

template <int OP, int K, typename C> __device__ __forceinline__ C gk_binop(C a, C b) {
    if (K == 2) { // integers: wrap; division truncates, x/0 = 0, MIN/-1 wraps
        gk_u64 ua = (gk_u64)a, ub = (gk_u64)b;
        if (OP == GK_OP_ADD) return (C)(ua + ub);
        if (OP == GK_OP_SUB) return (C)(ua - ub);
        if (OP == GK_OP_MUL) return (C)(ua * ub);
        if (b == 0) return 0;
        if (b == (C)-1) return (C)(0ull - ua);
        return a / b;
    } else {
        if (OP == GK_OP_ADD) return a + b;
        if (OP == GK_OP_SUB) return a - b;
        if (OP == GK_OP_MUL) return a * b;
        return a / b;
    }
}

template <int OP, int DT> __device__ __forceinline__ void gk_binary_nd(const gk_nd &nd, typename gk_ty<DT>::S *out,
                                                                       const typename gk_ty<DT>::S *a,
                                                                       const typename gk_ty<DT>::S *b) {
    typedef gk_ty<DT> T;
    for (gk_i64 i = GK_TID; i < nd.n; i += GK_NTHREADS) {
        gk_i64 o0, o1, o2;
        gk_nd_offsets(nd, i, o0, o1, o2);
        out[o0] = T::st(gk_binop<OP, T::K, typename T::C>(T::ld(a[o1]), T::ld(b[o2])));
    }
}

// one 16-byte vector of each operand: 16-bit floats as packed pairs
template <int OP, int DT> __device__ __forceinline__ uint4 gk_binvec(uint4 x, uint4 y) {
    typedef gk_ty<DT> T;
    typedef typename T::S S;
    if (DT == GK_DT_f16 || DT == GK_DT_bf16) {
        gk_u32 a[4] = { x.x, x.y, x.z, x.w }, b[4] = { y.x, y.y, y.z, y.w };
#pragma unroll
        for (int k = 0; k < 4; k++)
            a[k] = gk_p16_pack<DT>(gk_binop<OP, 0, float>(gk_p16_lo<DT>(a[k]), gk_p16_lo<DT>(b[k])),
                                   gk_binop<OP, 0, float>(gk_p16_hi<DT>(a[k]), gk_p16_hi<DT>(b[k])));
        return make_uint4(a[0], a[1], a[2], a[3]);
    }
    union { uint4 v; S s[16 / sizeof(S)]; } u, w, z;
    u.v = x;
    w.v = y;
#pragma unroll
    for (int k = 0; k < (int)(16 / sizeof(S)); k++) z.s[k] = T::st(gk_binop<OP, T::K, typename T::C>(T::ld(u.s[k]), T::ld(w.s[k])));
    return z.v;
}

// 16 bytes of operands per thread, two vectors per step (loads before the math)
template <int OP, int DT> __device__ __forceinline__ void gk_binary_c(gk_i64 n, typename gk_ty<DT>::S *out,
                                                                      const typename gk_ty<DT>::S *a,
                                                                      const typename gk_ty<DT>::S *b) {
    typedef gk_ty<DT> T;
    typedef typename T::S S;
    const int V = 16 / sizeof(S);
    gk_i64 nvec = n / V, nt = GK_NTHREADS;
    for (gk_i64 i = GK_TID; i < nvec; i += 2 * nt) {
        bool two = i + nt < nvec;
        uint4 x0 = __ldg((const uint4 *)a + i), y0 = __ldg((const uint4 *)b + i), x1 = make_uint4(0u, 0u, 0u, 0u), y1 = x1;
        if (two) {
            x1 = __ldg((const uint4 *)a + i + nt);
            y1 = __ldg((const uint4 *)b + i + nt);
        }
        ((uint4 *)out)[i] = gk_binvec<OP, DT>(x0, y0);
        if (two) ((uint4 *)out)[i + nt] = gk_binvec<OP, DT>(x1, y1);
    }
    gk_i64 t = nvec * V + GK_TID;
    if (t < n) out[t] = T::st(gk_binop<OP, T::K, typename T::C>(T::ld(a[t]), T::ld(b[t])));
}

// Broadcast fast path: the innermost dim W (a multiple of V = 16 / size)
// has stride 1 in the output and stride 1 or 0 in each input; every row
// start is 16-byte aligned (checked by the host). Rows of 32 vectors or more
// go a warp a row (offsets once a row, 4 vectors a lane in flight, well
// ahead of a vector a thread); shorter rows: each thread moves one 16-byte
// vector a step (two a step take 32 registers and are slower;
// docs/perf-log.md). An input
// with inner stride 0 gives one value per row, replicated. The row offsets
// come from the outer dims (one division per outer dim and per vector, not
// per element).
template <typename S> __device__ __forceinline__ uint4 gk_splat16(S v) {
    union { uint4 v; S s[16 / sizeof(S)]; } x;
#pragma unroll
    for (int k = 0; k < (int)(16 / sizeof(S)); k++) x.s[k] = v;
    return x.v;
}
__device__ __forceinline__ void gk_bv_offsets(const gk_nd &nd, gk_i64 i, gk_i64 wv, bool small, gk_i64 &cv, gk_i64 &o0, gk_i64 &o1, gk_i64 &o2) {
    const int in = nd.ndim - 1;
    o0 = 0; o1 = 0; o2 = 0;
    if (small) {
        unsigned r = (unsigned)i / (unsigned)wv;
        cv = (gk_i64)((unsigned)i - r * (unsigned)wv);
        unsigned rr = r;
        for (int d = in - 1; d >= 1; d--) {
            unsigned s = (unsigned)nd.shape[d], q = rr / s, m = rr - q * s;
            o0 += (gk_i64)m * nd.st[0][d];
            o1 += (gk_i64)m * nd.st[1][d];
            o2 += (gk_i64)m * nd.st[2][d];
            rr = q;
        }
        if (in >= 1) { // the outermost dim: rr is already below its size
            o0 += (gk_i64)rr * nd.st[0][0];
            o1 += (gk_i64)rr * nd.st[1][0];
            o2 += (gk_i64)rr * nd.st[2][0];
        }
    } else {
        gk_i64 row = i / wv;
        cv = i - row * wv;
        for (int d = in - 1; d >= 0; d--) {
            gk_i64 s = nd.shape[d], q = row / s, m = row - q * s;
            o0 += m * nd.st[0][d];
            o1 += m * nd.st[1][d];
            o2 += m * nd.st[2][d];
            row = q;
        }
    }
}
template <int OP, int DT> __device__ __forceinline__ void gk_binary_v(const gk_nd &nd, typename gk_ty<DT>::S *out,
                                                                      const typename gk_ty<DT>::S *a,
                                                                      const typename gk_ty<DT>::S *b) {
    typedef gk_ty<DT> T;
    typedef typename T::S S;
    const int V = 16 / sizeof(S);
    const int in = nd.ndim - 1;
    const gk_i64 wv = nd.shape[in] / V, nvec = nd.n / V;
    const bool va = nd.st[1][in] != 0, vb = nd.st[2][in] != 0;
    const bool small = nvec <= 0x7fffffffll;
    if (wv >= 32) {
        // rows of at least 32 vectors: a warp a segment of a row (row
        // offsets once a segment, not once a vector), up to 4 vectors a lane
        // in flight; segments of at most 1024 vectors, so a few long rows
        // (a scalar broadcast collapses to one) still spread over every warp.
        // The host launches about as many warps as are resident.
        const int lane = threadIdx.x & 31;
        const gk_i64 rows = nvec / wv, nw = GK_NTHREADS >> 5, segs = (wv + 1023) >> 10;
        for (gk_i64 t = GK_TID >> 5; t < rows * segs; t += nw) {
            gk_i64 r = t / segs, c0 = (t - r * segs) << 10, c1 = c0 + 1024 < wv ? c0 + 1024 : wv;
            gk_i64 cv, o0, o1, o2;
            gk_bv_offsets(nd, r * wv, wv, small, cv, o0, o1, o2);
            const uint4 *ar = (const uint4 *)(a + o1), *br = (const uint4 *)(b + o2);
            uint4 *orow = (uint4 *)(out + o0);
            const uint4 sa = va ? make_uint4(0u, 0u, 0u, 0u) : gk_splat16<S>(a[o1]);
            const uint4 sb = vb ? make_uint4(0u, 0u, 0u, 0u) : gk_splat16<S>(b[o2]);
            for (gk_i64 c = c0 + lane; c < c1; c += 128) {
                uint4 x[4], y[4];
#pragma unroll
                for (int j = 0; j < 4; j++) {
                    gk_i64 cj = c + 32 * j;
                    x[j] = sa;
                    y[j] = sb;
                    if (cj < c1) {
                        if (va) x[j] = __ldg(ar + cj);
                        if (vb) y[j] = __ldg(br + cj);
                    }
                }
#pragma unroll
                for (int j = 0; j < 4; j++)
                    if (c + 32 * j < c1) orow[c + 32 * j] = gk_binvec<OP, DT>(x[j], y[j]);
            }
        }
        return;
    }
    for (gk_i64 i = GK_TID; i < nvec; i += GK_NTHREADS) {
        gk_i64 cv, o0, o1, o2;
        gk_bv_offsets(nd, i, wv, small, cv, o0, o1, o2);
        uint4 x = va ? __ldg((const uint4 *)(a + o1) + cv) : gk_splat16<S>(a[o1]);
        uint4 y = vb ? __ldg((const uint4 *)(b + o2) + cv) : gk_splat16<S>(b[o2]);
        ((uint4 *)(out + o0))[cv] = gk_binvec<OP, DT>(x, y);
    }
}

#define GK_BIN_DT(OPN, OP, DTN)                                                                              \
    extern "C" __global__ void gk_##OPN##_##DTN(gk_nd nd, gk_ty<GK_DT_##DTN>::S *out,                       \
                                                const gk_ty<GK_DT_##DTN>::S *a, const gk_ty<GK_DT_##DTN>::S *b) { \
        gk_binary_nd<OP, GK_DT_##DTN>(nd, out, a, b);                                                        \
    }                                                                                                        \
    extern "C" __global__ void gk_##OPN##_##DTN##_c(gk_i64 n, gk_ty<GK_DT_##DTN>::S *out,                   \
                                                    const gk_ty<GK_DT_##DTN>::S *a, const gk_ty<GK_DT_##DTN>::S *b) { \
        gk_binary_c<OP, GK_DT_##DTN>(n, out, a, b);                                                          \
    }                                                                                                        \
    extern "C" __global__ void __launch_bounds__(256, 4) gk_##OPN##_##DTN##_v(gk_nd nd, gk_ty<GK_DT_##DTN>::S *out,                   \
                                                    const gk_ty<GK_DT_##DTN>::S *a, const gk_ty<GK_DT_##DTN>::S *b) { \
        gk_binary_v<OP, GK_DT_##DTN>(nd, out, a, b);                                                         \
    }
#define GK_BIN_ALL(OPN, OP)                                                                                  \
    GK_BIN_DT(OPN, OP, f32) GK_BIN_DT(OPN, OP, f64) GK_BIN_DT(OPN, OP, f16) GK_BIN_DT(OPN, OP, bf16)         \
    GK_BIN_DT(OPN, OP, f8e4m3) GK_BIN_DT(OPN, OP, f8e5m2) GK_BIN_DT(OPN, OP, i8) GK_BIN_DT(OPN, OP, u8)      \
    GK_BIN_DT(OPN, OP, i32) GK_BIN_DT(OPN, OP, i64)
GK_BIN_ALL(add, GK_OP_ADD)
GK_BIN_ALL(sub, GK_OP_SUB)
GK_BIN_ALL(mul, GK_OP_MUL)
GK_BIN_ALL(div, GK_OP_DIV)

// ---- scale (out = alpha * x) and axpy (y = fma(alpha, x, y)) -------------
// float formats compute in f32 with alpha rounded to f32, f64 in double;
// integers compute in double and convert back truncating and saturating.
template <int DT> __device__ __forceinline__ typename gk_ty<DT>::S gk_scale1(double alpha, typename gk_ty<DT>::S x) {
    typedef gk_ty<DT> T;
    if (T::K == 0) return T::st((typename T::C)((float)alpha * (float)T::ld(x)));
    if (T::K == 1) return T::st((typename T::C)(alpha * (double)T::ld(x)));
    return gk_ty<DT>::sat(alpha * (double)T::ld(x));
}
template <int DT> __device__ __forceinline__ typename gk_ty<DT>::S gk_axpy1(double alpha, typename gk_ty<DT>::S x,
                                                                         typename gk_ty<DT>::S y) {
    typedef gk_ty<DT> T;
    if (T::K == 0) return T::st((typename T::C)fmaf((float)alpha, (float)T::ld(x), (float)T::ld(y)));
    if (T::K == 1) return T::st((typename T::C)fma(alpha, (double)T::ld(x), (double)T::ld(y)));
    return gk_ty<DT>::sat(fma(alpha, (double)T::ld(x), (double)T::ld(y)));
}
// operand 0: out / y, operand 1: x
#define GK_SCALE_DT(DTN)                                                                                     \
    extern "C" __global__ void gk_scale_##DTN(gk_nd nd, gk_ty<GK_DT_##DTN>::S *out,                         \
                                              const gk_ty<GK_DT_##DTN>::S *x, double alpha) {                \
        for (gk_i64 i = GK_TID; i < nd.n; i += GK_NTHREADS) {                                                \
            gk_i64 o0, o1, o2;                                                                               \
            gk_nd_offsets(nd, i, o0, o1, o2);                                                                \
            out[o0] = gk_scale1<GK_DT_##DTN>(alpha, x[o1]);                                                  \
        }                                                                                                    \
    }                                                                                                        \
    extern "C" __global__ void gk_axpy_##DTN(gk_nd nd, gk_ty<GK_DT_##DTN>::S *y,                            \
                                             const gk_ty<GK_DT_##DTN>::S *x, double alpha) {                 \
        for (gk_i64 i = GK_TID; i < nd.n; i += GK_NTHREADS) {                                                \
            gk_i64 o0, o1, o2;                                                                               \
            gk_nd_offsets(nd, i, o0, o1, o2);                                                                \
            y[o0] = gk_axpy1<GK_DT_##DTN>(alpha, x[o1], y[o0]);                                              \
        }                                                                                                    \
    }
GK_SCALE_DT(f32) GK_SCALE_DT(f64) GK_SCALE_DT(f16) GK_SCALE_DT(bf16) GK_SCALE_DT(f8e4m3)
GK_SCALE_DT(f8e5m2) GK_SCALE_DT(i8) GK_SCALE_DT(u8) GK_SCALE_DT(i32) GK_SCALE_DT(i64)
