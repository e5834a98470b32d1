// llm.cu - ops of the transformer runtime (gpukit_llm.h).
// gk_kv_write_<bytes>: cache[b, start[b] + t, h, d] = x[b, t, h, d] for every
// element of x [B, T, H, D] (any strides, in elements), rows whose target
// falls outside [0, S) skipped; elements are copied as raw words of 1, 2, 4
// or 8 bytes. Grid-stride, one element per thread step.
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
