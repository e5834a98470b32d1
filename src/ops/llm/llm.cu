// llm.cu - ops of the transformer runtime (gpukit_llm.h).
// gk_kv_write_<bytes>: cache[b, start[b] + t, h, d] = x[b, t, h, d] for every
// element of x [B, T, H, D] (any strides, in elements), rows whose target
// falls outside [0, S) skipped; elements are copied as raw words of 1, 2, 4
// or 8 bytes. Grid-stride, one element per thread step. Waits for the
// previous kernel first (gk_pdl_wait), so the host launches it with PDL.
#include "gk_common.cuh"
#include "gk_vec.cuh"

struct gk_kvw_p {               // gk__kvw in gpukit.h
    gk_i64 B, T, H, D, S, es;
    gk_i64 c_bs, c_ss, c_hs, c_ds, x_bs, x_ts, x_hs, x_ds;
    gk_u64 c, x, start;
};

template <typename W> __device__ __forceinline__ void gk_kv_write_body(const gk_kvw_p &p) {
    const int *st = (const int *)p.start;
    W *c = (W *)p.c;
    const W *x = (const W *)p.x;
    gk_i64 n = p.B * p.T * p.H * p.D;
    gk_pdl_launch();
    gk_pdl_wait(); // x, start and the cache may be touched by earlier kernels
    for (gk_i64 i = (gk_i64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (gk_i64)gridDim.x * blockDim.x) {
        gk_i64 d = i % p.D, r = i / p.D;
        gk_i64 h = r % p.H;
        r /= p.H;
        gk_i64 t = r % p.T, b = r / p.T;
        gk_i64 row = (gk_i64)st[b] + t;
        if (row < 0 || row >= p.S) continue;
        c[b * p.c_bs + row * p.c_ss + h * p.c_hs + d * p.c_ds] = x[b * p.x_bs + t * p.x_ts + h * p.x_hs + d * p.x_ds];
    }
}

extern "C" __global__ void gk_kv_write_1(gk_kvw_p p) { gk_kv_write_body<gk_u8>(p); }
extern "C" __global__ void gk_kv_write_2(gk_kvw_p p) { gk_kv_write_body<gk_u16>(p); }
extern "C" __global__ void gk_kv_write_4(gk_kvw_p p) { gk_kv_write_body<gk_u32>(p); }
extern "C" __global__ void gk_kv_write_8(gk_kvw_p p) { gk_kv_write_body<gk_u64>(p); }

// gk_rope_kv_dec_<dt>: one decode token per sequence b < B (RoPE NEOX style, as
// gk_rope, then the cache write of gk_kv_write, in one launch): x [B, H + 2 Hkv, D]
// (q heads, k heads, v heads; row stride x_bs, heads contiguous) at position
// pos[b]: q and k heads rotated in place; k heads also into cache[b, pos[b], h];
// v heads copied to cache[b, pos[b], Hkv + h]. Rotary dims [0, rd): pairs
// (j, j + rd/2) with cos / sin [max_pos, rd/2] of the position (0 for a
// position outside [0, max_pos), as gk_rope); dims [rd, D) pass through. k heads
// are rotated in x too (the result of gk_rope over the q and k heads).
// A cache row outside [0, S) is not written. Grid (H + 2 Hkv, B), a thread
// per pair / element. Waits for the previous kernel first (PDL launch).
struct gk_ropekv_p {            // gk__ropekv in gpukit.h
    gk_i64 B, H, Hkv, D, S, max_pos, x_bs, c_bs, c_ss, c_hs;
    gk_u64 x, c, pos, cs, sn;
    int rd;
};
template <int DT> __device__ __forceinline__ void gk_rope_kv_dec(const gk_ropekv_p &p) {
    typedef gk_ty<DT> T;
    typedef typename T::S S;
    const gk_i64 hd = blockIdx.x, b = blockIdx.y;
    const int half = p.rd >> 1, D = (int)p.D;
    gk_pdl_launch();
    gk_pdl_wait(); // x, pos and the cache come from / are read by earlier kernels
    gk_i64 ps = ((const int *)p.pos)[b];
    S *x = (S *)p.x + b * p.x_bs + hd * p.D;
    bool ok = ps >= 0 && ps < p.max_pos, row = ps >= 0 && ps < p.S;
    if (hd >= p.H + p.Hkv) { // v: copy
        if (!row) return;
        S *c = (S *)p.c + b * p.c_bs + ps * p.c_ss + (hd - p.H) * p.c_hs;
        for (int d = threadIdx.x; d < D; d += blockDim.x) c[d] = x[d];
        return;
    }
    const S *cs = (const S *)p.cs + (ok ? ps : 0) * half, *sn = (const S *)p.sn + (ok ? ps : 0) * half;
    S *o = hd < p.H || !row ? x : (S *)p.c + b * p.c_bs + ps * p.c_ss + (hd - p.H) * p.c_hs;
    for (int j = threadIdx.x; j < half; j += blockDim.x) {
        float c = ok ? (float)T::ld(cs[j]) : 0.f, s = ok ? (float)T::ld(sn[j]) : 0.f;
        float u = (float)T::ld(x[j]), v = (float)T::ld(x[j + half]);
        S a = T::st(u * c - v * s), e = T::st(v * c + u * s);
        if (hd >= p.H) { // k: rotated into x as well (gk_rope's result), then into the cache row
            x[j] = a;
            x[j + half] = e;
            if (!row) continue;
        }
        o[j] = a;
        o[j + half] = e;
    }
    if (hd >= p.H && row)
        for (int d = p.rd + threadIdx.x; d < D; d += blockDim.x) o[d] = x[d];
}
extern "C" __global__ void gk_rope_kv_dec_f32(gk_ropekv_p p) { gk_rope_kv_dec<GK_DT_f32>(p); }
extern "C" __global__ void gk_rope_kv_dec_f16(gk_ropekv_p p) { gk_rope_kv_dec<GK_DT_f16>(p); }
extern "C" __global__ void gk_rope_kv_dec_bf16(gk_ropekv_p p) { gk_rope_kv_dec<GK_DT_bf16>(p); }

// gk_rms_norm_dec_<dt>: out[r] = w * rnd(x[r] * rstd(x[r])) for the few rows of a
// decode step, rounded as gk_rms_norm (norm.cu) rounds it; x, w, out of one dtype,
// rows contiguous and 16-byte aligned, D / E <= 4 * blockDim.x vectors (E elements
// of 16 bytes). One block a row. The weights are loaded before gk_pdl_wait (nothing
// writes them), so under programmatic dependent launch their load overlaps the
// previous kernel's tail.
template <int DT> __device__ __forceinline__ void gk_rms_norm_dec(gk_i64 rows, int D, float eps, const void *xp, const void *wp, void *op) {
    typedef gk_nv<DT> N;
    enum { E = N::E, V = 4 };
    __shared__ float red[32];
    const int nvec = D / E, tid = threadIdx.x, nt = blockDim.x;
    const uint4 *w = (const uint4 *)wp;
    uint4 wv[V], raw[V];
#pragma unroll
    for (int k = 0; k < V; k++) { int vi = tid + k * nt; wv[k] = vi < nvec ? w[vi] : make_uint4(0u, 0u, 0u, 0u); }
    gk_pdl_launch();
    gk_pdl_wait(); // x comes from the previous kernel, out may be read by it
    for (gk_i64 row = blockIdx.x; row < rows; row += gridDim.x) {
        const uint4 *xr = (const uint4 *)xp + row * nvec;
        float q = 0.f;
#pragma unroll
        for (int k = 0; k < V; k++) {
            int vi = tid + k * nt;
            raw[k] = vi < nvec ? xr[vi] : make_uint4(0u, 0u, 0u, 0u);
            float f[E];
            N::ld(raw[k], f);
#pragma unroll
            for (int e = 0; e < E; e++) q += f[e] * f[e];
        }
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) q += __shfl_xor_sync(0xffffffffu, q, off);
        if ((tid & 31) == 0) red[tid >> 5] = q;
        __syncthreads();
        q = 0.f;
        for (int i = 0; i < (nt + 31) / 32; i++) q += red[i];
        __syncthreads(); // red is reused by the next row
        float rstd = rsqrtf(q / (float)D + eps);
        uint4 *orow = (uint4 *)op + row * nvec;
#pragma unroll
        for (int k = 0; k < V; k++) {
            int vi = tid + k * nt;
            if (vi < nvec) {
                float y[E], g[E];
                N::ld(raw[k], y);
#pragma unroll
                for (int e = 0; e < E; e++) y[e] = y[e] * rstd;
                N::rnd(y);
                N::ld(wv[k], g);
#pragma unroll
                for (int e = 0; e < E; e++) y[e] = g[e] * y[e];
                orow[vi] = N::st(y);
            }
        }
    }
}
extern "C" __global__ void __launch_bounds__(256) gk_rms_norm_dec_f32(gk_i64 rows, int D, float eps, gk_u64 x, gk_u64 w, gk_u64 o) {
    gk_rms_norm_dec<GK_DT_f32>(rows, D, eps, (const void *)x, (const void *)w, (void *)o);
}
extern "C" __global__ void __launch_bounds__(256) gk_rms_norm_dec_f16(gk_i64 rows, int D, float eps, gk_u64 x, gk_u64 w, gk_u64 o) {
    gk_rms_norm_dec<GK_DT_f16>(rows, D, eps, (const void *)x, (const void *)w, (void *)o);
}
extern "C" __global__ void __launch_bounds__(256) gk_rms_norm_dec_bf16(gk_i64 rows, int D, float eps, gk_u64 x, gk_u64 w, gk_u64 o) {
    gk_rms_norm_dec<GK_DT_bf16>(rows, D, eps, (const void *)x, (const void *)w, (void *)o);
}
