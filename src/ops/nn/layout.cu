// layout.cu - strided copies behind permute / concat / slice / repeat, a
// tiled shared-memory transpose, gather (embedding, index_select), pad and
// interpolation (nearest, linear, bilinear; align_corners = False).
#include "gk_common.cuh"

// Row copy: rows of `cpr` chunks of W bytes, contiguous in both operands;
// the row start of each operand from the outer dims (byte strides).
struct gk_rows {
    int ndim; // outer dims
    int pad;
    gk_i64 nrows, cpr;
    gk_i64 shape[GK_MAX_DIMS];
    gk_i64 ost[GK_MAX_DIMS], ist[GK_MAX_DIMS]; // bytes
};
template <typename V, typename I>
__device__ __forceinline__ void gk_rowcopy_body(const gk_rows &g, char *out, const char *in) {
    I total = (I)(g.nrows * g.cpr), cpr = (I)g.cpr;
    for (I i = (I)GK_TID; i < total; i += (I)GK_NTHREADS) {
        I r = i / cpr, c = i - r * cpr;
        gk_i64 oo = 0, io = 0;
        for (int d = g.ndim - 1; d >= 0; d--) {
            I s = (I)g.shape[d];
            I q = r / s, m = r - q * s;
            oo += (gk_i64)m * g.ost[d];
            io += (gk_i64)m * g.ist[d];
            r = q;
        }
        ((V *)(out + oo))[c] = ((const V *)(in + io))[c];
    }
}
#define GK_ROWCOPY(W, V)                                                                          \
    extern "C" __global__ void gk_rowcopy_w##W(gk_rows g, char *out, const char *in) {         \
        if (g.nrows * g.cpr < 2147483647ll) gk_rowcopy_body<V, unsigned>(g, out, in);            \
        else gk_rowcopy_body<V, gk_i64>(g, out, in);                                               \
    }
GK_ROWCOPY(1, gk_u8)
GK_ROWCOPY(2, gk_u16)
GK_ROWCOPY(4, gk_u32)
GK_ROWCOPY(8, uint2)
GK_ROWCOPY(16, uint4)

// Batched transpose through a 32x32 shared tile: the output is contiguous
// along C (its last dim) and the input along R. Element strides; the batch
// dims (up to 6) index both operands. Block 32 x 8, grid (C/32, R/32, batch).
struct gk_tr {
    int nb;
    int pad;
    gk_i64 R, C, nbatch;
    gk_i64 ist_c, ost_r;
    gk_i64 bshape[6], bost[6], bist[6];
};
template <typename T> __device__ __forceinline__ void gk_transpose_body(const gk_tr &g, T *out, const T *in) {
    __shared__ T tile[32][33];
    gk_i64 c0 = (gk_i64)blockIdx.x * 32, r0 = (gk_i64)blockIdx.y * 32;
    for (gk_i64 bz = blockIdx.z; bz < g.nbatch; bz += gridDim.z) {
        gk_i64 oo = 0, io = 0, r = bz;
        for (int d = g.nb - 1; d >= 0; d--) {
            gk_i64 q = r / g.bshape[d], m = r - q * g.bshape[d];
            oo += m * g.bost[d];
            io += m * g.bist[d];
            r = q;
        }
        __syncthreads();
        gk_i64 rr = r0 + threadIdx.x;
#pragma unroll
        for (int k = 0; k < 32; k += 8) {
            gk_i64 cc = c0 + threadIdx.y + k;
            if (rr < g.R && cc < g.C) tile[threadIdx.y + k][threadIdx.x] = in[io + rr + cc * g.ist_c];
        }
        __syncthreads();
        gk_i64 cc = c0 + threadIdx.x;
#pragma unroll
        for (int k = 0; k < 32; k += 8) {
            gk_i64 r2 = r0 + threadIdx.y + k;
            if (r2 < g.R && cc < g.C) out[oo + r2 * g.ost_r + cc] = tile[threadIdx.x][threadIdx.y + k];
        }
    }
}
#define GK_TRANSPOSE(B, T)                                                                     \
    extern "C" __global__ void gk_transpose_b##B(gk_tr g, T *out, const T *in) {             \
        gk_transpose_body<T>(g, out, in);                                                      \
    }
GK_TRANSPOSE(1, gk_u8)
GK_TRANSPOSE(2, gk_u16)
GK_TRANSPOSE(4, gk_u32)
GK_TRANSPOSE(8, gk_u64)

// The same through a 64x64 tile (4- and 8-byte elements, both dims above
// 32): block 32 x 8, grid (C/64, R/64, batch); each thread has its 16 loads
// in flight before it writes them to shared memory (64 KiB and more in
// flight per SM), then stores 16. Pitch 65: conflict-free both ways.
template <typename T> __device__ __forceinline__ void gk_transpose64_body(const gk_tr &g, T *out, const T *in) {
    __shared__ T tile[64][65];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const gk_i64 c0 = (gk_i64)blockIdx.x * 64, r0 = (gk_i64)blockIdx.y * 64;
    const bool full = r0 + 64 <= g.R && c0 + 64 <= g.C;
    for (gk_i64 bz = blockIdx.z; bz < g.nbatch; bz += gridDim.z) {
        gk_i64 oo = 0, io = 0, r = bz;
        for (int d = g.nb - 1; d >= 0; d--) {
            gk_i64 q = r / g.bshape[d], m = r - q * g.bshape[d];
            oo += m * g.bost[d];
            io += m * g.bist[d];
            r = q;
        }
        T v[16];
        const T *src = in + io + r0 + tx + (c0 + ty) * g.ist_c;
        const gk_i64 s8 = 8 * g.ist_c;
        if (full) {
#pragma unroll
            for (int k = 0; k < 8; k++) {
                v[2 * k] = src[k * s8];
                v[2 * k + 1] = src[k * s8 + 32];
            }
        } else {
#pragma unroll
            for (int k = 0; k < 8; k++) {
                gk_i64 cc = c0 + ty + 8 * k, rr = r0 + tx;
                v[2 * k] = cc < g.C && rr < g.R ? src[k * s8] : T();
                v[2 * k + 1] = cc < g.C && rr + 32 < g.R ? src[k * s8 + 32] : T();
            }
        }
        __syncthreads(); // the previous batch's reads of the tile are done
#pragma unroll
        for (int k = 0; k < 8; k++) {
            tile[ty + 8 * k][tx] = v[2 * k];
            tile[ty + 8 * k][tx + 32] = v[2 * k + 1];
        }
        __syncthreads();
        T *dst = out + oo + (r0 + ty) * g.ost_r + c0 + tx;
        const gk_i64 o8 = 8 * g.ost_r;
        if (full) {
#pragma unroll
            for (int k = 0; k < 8; k++) {
                dst[k * o8] = tile[tx][ty + 8 * k];
                dst[k * o8 + 32] = tile[tx + 32][ty + 8 * k];
            }
        } else {
#pragma unroll
            for (int k = 0; k < 8; k++) {
                gk_i64 r2 = r0 + ty + 8 * k, cc = c0 + tx;
                if (r2 < g.R && cc < g.C) dst[k * o8] = tile[tx][ty + 8 * k];
                if (r2 < g.R && cc + 32 < g.C) dst[k * o8 + 32] = tile[tx + 32][ty + 8 * k];
            }
        }
    }
}
#define GK_TRANSPOSE64(B, T, MINB)                                                             \
    extern "C" __global__ void __launch_bounds__(256, MINB) gk_transpose64_b##B(gk_tr g, T *out, const T *in) { \
        gk_transpose64_body<T>(g, out, in);                                                    \
    }
GK_TRANSPOSE64(4, gk_u32, 4)
GK_TRANSPOSE64(8, gk_u64, 3)

// Gather: x [outer, V, inner] and out [outer, n, inner] contiguous, rows of
// cpr chunks of W bytes; out row (o, j) = x row (o, idx[j]); an index
// outside [0, V) gives a row of zeros.
template <typename V, typename I>
__device__ __forceinline__ void gk_gather_body(gk_i64 outer, gk_i64 n, gk_i64 nv, gk_i64 cpr, const void *idx, int idx64, char *out,
                                               const char *x) {
    I total = (I)(outer * n * cpr), cp = (I)cpr, nn = (I)n;
    for (I i = (I)GK_TID; i < total; i += (I)GK_NTHREADS) {
        I r = i / cp, c = i - r * cp;
        I o = r / nn, j = r - o * nn;
        gk_i64 id = idx64 ? ((const gk_i64 *)idx)[j] : (gk_i64)((const int *)idx)[j];
        V v;
        if (id >= 0 && id < nv) v = ((const V *)x)[((gk_i64)o * nv + id) * cpr + c];
        else v = V();
        ((V *)out)[(gk_i64)r * cpr + c] = v;
    }
}
#define GK_GATHER(W, V)                                                                                             \
    extern "C" __global__ void gk_gather_w##W(gk_i64 outer, gk_i64 n, gk_i64 nv, gk_i64 cpr, const void *idx,     \
                                              int idx64, char *out, const char *x) {                              \
        if (outer * n * cpr < 2147483647ll) gk_gather_body<V, unsigned>(outer, n, nv, cpr, idx, idx64, out, x);     \
        else gk_gather_body<V, gk_i64>(outer, n, nv, cpr, idx, idx64, out, x);                                      \
    }
GK_GATHER(1, gk_u8)
GK_GATHER(2, gk_u16)
GK_GATHER(4, gk_u32)
GK_GATHER(8, uint2)
GK_GATHER(16, uint4)

// Pad the last two dims: x [rows, H, W] -> out [rows, H + pt + pb, W + pl + pr]
// (contiguous). mode 0 constant (bit pattern `val`), 1 reflect, 2 replicate.
__device__ __forceinline__ gk_i64 gk_pad_src(gk_i64 o, gk_i64 n, int mode) {
    if (mode == 1) {
        if (o < 0) o = -o;
        if (o >= n) o = 2 * (n - 1) - o;
        return o;
    }
    return o < 0 ? 0 : o >= n ? n - 1 : o;
}
template <typename T>
__device__ __forceinline__ void gk_pad_body(gk_i64 rows, gk_i64 H, gk_i64 W, gk_i64 pt, gk_i64 pl, gk_i64 OH, gk_i64 OW, int mode,
                                            gk_u64 val, T *out, const T *x) {
    gk_i64 total = rows * OH * OW;
    for (gk_i64 i = GK_TID; i < total; i += GK_NTHREADS) {
        gk_i64 ow = i % OW, r = i / OW, oh = r % OH, row = r / OH;
        gk_i64 ih = oh - pt, iw = ow - pl;
        T v;
        if (mode == 0) {
            if (ih >= 0 && ih < H && iw >= 0 && iw < W) v = x[(row * H + ih) * W + iw];
            else v = (T)val;
        } else v = x[(row * H + gk_pad_src(ih, H, mode)) * W + gk_pad_src(iw, W, mode)];
        out[i] = v;
    }
}
#define GK_PAD(B, T)                                                                                               \
    extern "C" __global__ void gk_pad_b##B(gk_i64 rows, gk_i64 H, gk_i64 W, gk_i64 pt, gk_i64 pl, gk_i64 OH,     \
                                           gk_i64 OW, int mode, gk_u64 val, T *out, const T *x) {               \
        gk_pad_body<T>(rows, H, W, pt, pl, OH, OW, mode, val, out, x);                                             \
    }
GK_PAD(1, gk_u8)
GK_PAD(2, gk_u16)
GK_PAD(4, gk_u32)
GK_PAD(8, gk_u64)

// Interpolation of x [rows, H, W] to out [rows, OH, OW] (H = OH = 1 for 1-D),
// PyTorch's align_corners=False rules in f32: sh, sw are the source steps
// (1/scale_factor when given, else in/out). mode 0 nearest, 1 (bi)linear.
__device__ __forceinline__ void gk_lin_idx(gk_i64 o, float s, gk_i64 n, gk_i64 &i0, gk_i64 &i1, float &l1) {
    // rounded step by step (no fused multiply-add), as the CPU reference does
    float src = __fsub_rn(__fmul_rn(s, __fadd_rn((float)o, 0.5f)), 0.5f);
    if (src < 0.f) src = 0.f;
    i0 = (gk_i64)src;
    if (i0 > n - 1) i0 = n - 1;
    i1 = i0 + (i0 < n - 1 ? 1 : 0);
    l1 = src - (float)i0;
    l1 = l1 < 0.f ? 0.f : l1 > 1.f ? 1.f : l1;
}
__device__ __forceinline__ gk_i64 gk_near_idx(gk_i64 o, float s, gk_i64 n) {
    gk_i64 i = (gk_i64)floorf((float)o * s);
    return i < n - 1 ? i : n - 1;
}
template <int DT>
__device__ __forceinline__ void gk_interp_body(gk_i64 rows, gk_i64 H, gk_i64 W, gk_i64 OH, gk_i64 OW, float sh, float sw, int mode,
                                               typename gk_ty<DT>::S *out, const typename gk_ty<DT>::S *x) {
    typedef gk_ty<DT> T;
    gk_i64 total = rows * OH * OW;
    for (gk_i64 i = GK_TID; i < total; i += GK_NTHREADS) {
        gk_i64 ow = i % OW, r = i / OW, oh = r % OH, row = r / OH;
        const typename gk_ty<DT>::S *xr = x + row * H * W;
        float y;
        if (mode == 0) {
            y = T::ld(xr[gk_near_idx(oh, sh, H) * W + gk_near_idx(ow, sw, W)]);
        } else {
            gk_i64 h0, h1, w0, w1;
            float lh, lw;
            gk_lin_idx(oh, sh, H, h0, h1, lh);
            gk_lin_idx(ow, sw, W, w0, w1, lw);
            float a = __fadd_rn(__fmul_rn(1.f - lw, T::ld(xr[h0 * W + w0])), __fmul_rn(lw, T::ld(xr[h0 * W + w1])));
            float b = __fadd_rn(__fmul_rn(1.f - lw, T::ld(xr[h1 * W + w0])), __fmul_rn(lw, T::ld(xr[h1 * W + w1])));
            y = __fadd_rn(__fmul_rn(1.f - lh, a), __fmul_rn(lh, b));
        }
        out[i] = T::st(y);
    }
}
#define GK_INTERP(DTN)                                                                                           \
    extern "C" __global__ void gk_interp_##DTN(gk_i64 rows, gk_i64 H, gk_i64 W, gk_i64 OH, gk_i64 OW, float sh, \
                                               float sw, int mode, gk_ty<GK_DT_##DTN>::S *out,                  \
                                               const gk_ty<GK_DT_##DTN>::S *x) {                                 \
        gk_interp_body<GK_DT_##DTN>(rows, H, W, OH, OW, sh, sw, mode, out, x);                                   \
    }
GK_INTERP(f32)
GK_INTERP(f16)
GK_INTERP(bf16)
