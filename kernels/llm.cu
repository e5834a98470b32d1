// llm.cu - ops of the transformer runtime (gpukit_llm.h).
// gk_kv_write_<bytes>: cache[b, start[b] + t, h, d] = x[b, t, h, d] for every
// element of x [B, T, H, D] (any strides, in elements), rows whose target
// falls outside [0, S) skipped; elements are copied as raw words of 1, 2, 4
// or 8 bytes. Grid-stride, one element per thread step. Waits for the
// previous kernel first (gk_pdl_wait), so the host launches it with PDL.
#include "gk_common.cuh"

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
// pos[b]: q heads rotated in place; k heads rotated into cache[b, pos[b], h];
// v heads copied to cache[b, pos[b], Hkv + h]. Rotary dims [0, rd): pairs
// (j, j + rd/2) with cos / sin [max_pos, rd/2] of the position (0 for a
// position outside [0, max_pos), as gk_rope); dims [rd, D) pass through.
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
    S *o = hd < p.H ? x : (S *)p.c + b * p.c_bs + ps * p.c_ss + (hd - p.H) * p.c_hs;
    if (hd >= p.H && !row) return;
    for (int j = threadIdx.x; j < half; j += blockDim.x) {
        float c = ok ? (float)T::ld(cs[j]) : 0.f, s = ok ? (float)T::ld(sn[j]) : 0.f;
        float u = (float)T::ld(x[j]), v = (float)T::ld(x[j + half]);
        S a = T::st(u * c - v * s), e = T::st(v * c + u * s);
        o[j] = a;
        o[j + half] = e;
    }
    if (hd >= p.H)
        for (int d = p.rd + threadIdx.x; d < D; d += blockDim.x) o[d] = x[d];
}
extern "C" __global__ void gk_rope_kv_dec_f32(gk_ropekv_p p) { gk_rope_kv_dec<GK_DT_f32>(p); }
extern "C" __global__ void gk_rope_kv_dec_f16(gk_ropekv_p p) { gk_rope_kv_dec<GK_DT_f16>(p); }
extern "C" __global__ void gk_rope_kv_dec_bf16(gk_ropekv_p p) { gk_rope_kv_dec<GK_DT_bf16>(p); }
