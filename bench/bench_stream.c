/* bench_stream.c - a probe of streaming-kernel shapes for the bandwidth-bound ops
   whose gpukit kernels sit within 1% of PyTorch (issue 3): gelu (tanh form) over
   256 MiB of bf16, and sum / max over the last dim of [4096, 32000] f32. Each
   shape is a small kernel of its own, compiled through gk_module_create (NVRTC,
   no toolkit), checked against gpukit's own op (gelu: bit-exact; sums: relative
   1e-5), then timed next to gpukit's op and gk_copy in interleaved rounds: every
   round times each entry once (10 back-to-back launches between two events), and
   an entry's figure is its median over the rounds, so slow drift of clocks or
   temperature touches every entry alike (gpukit's ops also replayed from a CUDA
   graph of the 10 calls, which leaves the host's work between calls out). PyTorch's figures for the same ops come
   from bench/math_torch.py in the same device call.
     build/bench_stream [--json FILE] [--rounds N] */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkb.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Gelu (tanh form) on bf16, as math.cu's gk_gelu_tanh_f16 computes it, 8 elements a
   16-byte vector. gu<U, ST, LD>: one step of U vectors a thread (a block's step is U *
   blockDim consecutive vectors, thread t taking t, t + nt, ...), every load issued before
   the math; ST 1 stores with st.global.cs (evict first), LD 1 loads with
   ld.global.nc.L1::no_allocate.L2::256B, LD 2 the same without the L2 hint, LD 3 plain
   ld.global (not the read-only path). gp<U>: the same with a grid of resident blocks
   striding over the steps. Sums: rs<OP, U, LD>, a block per row (rows strided by the
   grid), U vectors a thread in flight in every step, the last partial step predicated
   (no one-vector tail loop), then a warp-shuffle and shared-memory merge. */
static const char *SRC[3] = {
    "typedef unsigned int u32;\n"
    "typedef long long i64;\n"
    "__device__ __forceinline__ float gelt(float x) {\n"
    "    float u = 0.79788456080286535588f * fmaf(0.044715f * x, x * x, x);\n"
    "    float e = __expf(-2.f * fabsf(u));\n"
    "    float r = __fdividef(1.f, 1.f + e);\n"
    "    return x * (u < 0.f ? e * r : r);\n"
    "}\n"
    "__device__ __forceinline__ u32 pk(float lo, float hi) {\n"
    "    u32 r; asm(\"cvt.rn.bf16x2.f32 %0, %1, %2;\" : \"=r\"(r) : \"f\"(hi), \"f\"(lo));\n"
    "    if (((r & 0x7FFF7FFFu) + 0x007F007Fu) & 0x80008000u) {\n"
    "        if ((r & 0x7FFFu) > 0x7F80u) r = (r & 0xFFFF0000u) | 0x7FC0u;\n"
    "        if ((r & 0x7FFF0000u) > 0x7F800000u) r = (r & 0xFFFFu) | 0x7FC00000u;\n"
    "    }\n"
    "    return r;\n"
    "}\n"
    "__device__ __forceinline__ u32 g2(u32 w) { return pk(gelt(__uint_as_float(w << 16)), gelt(__uint_as_float(w & 0xFFFF0000u))); }\n"
    "__device__ __forceinline__ uint4 gv(uint4 a) { return make_uint4(g2(a.x), g2(a.y), g2(a.z), g2(a.w)); }\n"
    "template <int LD> __device__ __forceinline__ uint4 ldv(const uint4 *p) {\n"
    "    if (LD == 0) return __ldg(p);\n"
    "    uint4 v;\n"
    "    if (LD == 1) asm volatile(\"ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];\" : \"=r\"(v.x), \"=r\"(v.y), \"=r\"(v.z), \"=r\"(v.w) : \"l\"(p));\n"
    "    else if (LD == 2) asm volatile(\"ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];\" : \"=r\"(v.x), \"=r\"(v.y), \"=r\"(v.z), \"=r\"(v.w) : \"l\"(p));\n"
    "    else asm volatile(\"ld.global.v4.u32 {%0, %1, %2, %3}, [%4];\" : \"=r\"(v.x), \"=r\"(v.y), \"=r\"(v.z), \"=r\"(v.w) : \"l\"(p));\n"
    "    return v;\n"
    "}\n"
    "template <int ST> __device__ __forceinline__ void stv(uint4 *p, uint4 v) {\n"
    "    if (ST == 0) { *p = v; return; }\n"
    "    asm volatile(\"st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};\" :: \"l\"(p), \"r\"(v.x), \"r\"(v.y), \"r\"(v.z), \"r\"(v.w) : \"memory\");\n"
    "}\n"
    "template <int U, int ST, int LD> __device__ __forceinline__ void gstep(i64 i, i64 nt, i64 nvec, uint4 *out, const uint4 *x) {\n"
    "    uint4 a[U];\n"
    "#pragma unroll\n"
    "    for (int k = 0; k < U; k++) { a[k] = make_uint4(0u, 0u, 0u, 0u); if (i + k * nt < nvec) a[k] = ldv<LD>(x + i + k * nt); }\n"
    "#pragma unroll\n"
    "    for (int k = 0; k < U; k++) if (i + k * nt < nvec) stv<ST>(out + i + k * nt, gv(a[k]));\n"
    "}\n"
    "template <int U, int ST, int LD> __device__ __forceinline__ void gu(i64 nvec, uint4 *out, const uint4 *x) {\n"
    "    const i64 nt = blockDim.x;\n"
    "    gstep<U, ST, LD>((i64)blockIdx.x * U * nt + threadIdx.x, nt, nvec, out, x);\n"
    "}\n"
    "template <int U> __device__ __forceinline__ void gp(i64 nvec, uint4 *out, const uint4 *x) {\n"
    "    const i64 nt = blockDim.x;\n"
    "    for (i64 i = (i64)blockIdx.x * U * nt + threadIdx.x; i < nvec; i += (i64)gridDim.x * U * nt) gstep<U, 0, 0>(i, nt, nvec, out, x);\n"
    "}\n"
    "#define GU(U, ST, LD) extern \"C\" __global__ void gu_##U##_##ST##_##LD(i64 nvec, uint4 *out, const uint4 *x) { gu<U, ST, LD>(nvec, out, x); }\n"
    "GU(1, 0, 0) GU(2, 0, 0) GU(4, 0, 0) GU(8, 0, 0)\n"
    "GU(1, 1, 0) GU(2, 1, 0) GU(4, 1, 0) GU(8, 1, 0)\n"
    "GU(1, 0, 1) GU(2, 0, 1) GU(4, 0, 1) GU(4, 1, 1)\n"
    "extern \"C\" __global__ void gp_2(i64 nvec, uint4 *out, const uint4 *x) { gp<2>(nvec, out, x); }\n"
    "extern \"C\" __global__ void gp_4(i64 nvec, uint4 *out, const uint4 *x) { gp<4>(nvec, out, x); }\n"
    "GU(1, 0, 2) GU(1, 0, 3) GU(2, 0, 3) GU(4, 0, 3)\n",
    "template <int U> __device__ __forceinline__ void gh(i64 n2, uint2 *out, const uint2 *x) {\n"
    "    const i64 nt = blockDim.x, i = (i64)blockIdx.x * U * nt + threadIdx.x;\n"
    "    uint2 a[U];\n"
    "#pragma unroll\n"
    "    for (int k = 0; k < U; k++) a[k] = i + k * nt < n2 ? __ldg(x + i + k * nt) : make_uint2(0u, 0u);\n"
    "#pragma unroll\n"
    "    for (int k = 0; k < U; k++) if (i + k * nt < n2) out[i + k * nt] = make_uint2(g2(a[k].x), g2(a[k].y));\n"
    "}\n"
    "#define GH(U) extern \"C\" __global__ void gh_##U(i64 nvec, uint4 *out, const uint4 *x) { gh<U>(2 * nvec, (uint2 *)out, (const uint2 *)x); }\n"
    "GH(1) GH(2) GH(4)\n"
    "template <int OP, int LOOP> __device__ __forceinline__ void gm_t(i64 n, uint4 *out, const uint4 *x, float p0) {\n"
    "    const i64 nvec = n / 8, nt = blockDim.x;\n"
    "    for (i64 i = (i64)blockIdx.x * nt + threadIdx.x; i < nvec; i += LOOP ? (i64)gridDim.x * nt : nvec) {\n"
    "        uint4 a = __ldg(x + i);\n"
    "        if (OP == 1) { a.x ^= __float_as_uint(p0); a.y ^= __float_as_uint(p0); }\n"
    "        if (OP == 2) { a.z += 1u; }\n"
    "        out[i] = OP == 0 ? gv(a) : a;\n"
    "    }\n"
    "    const i64 t = nvec * 8 + (i64)blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (t < n) ((unsigned short *)out)[t] = (unsigned short)(pk(gelt(__uint_as_float((unsigned)((const unsigned short *)x)[t] << 16)), 0.f) & 0xFFFFu);\n"
    "}\n"
    "#define GM(NAME, SW, LOOP) extern \"C\" __global__ void __launch_bounds__(512) NAME(i64 n, uint4 *out, const uint4 *x, int op, double p0, double p1) {\\\n"
    "    (void)p1;\\\n"
    "    if (!SW) { gm_t<0, LOOP>(n, out, x, (float)p0); return; }\\\n"
    "    switch (op) { case 1: gm_t<1, LOOP>(n, out, x, (float)p0); break; case 2: gm_t<2, LOOP>(n, out, x, (float)p0); break;\\\n"
    "    case 13: gm_t<0, LOOP>(n, out, x, (float)p0); break; default: break; }\\\n"
    "}\n"
    "GM(gm_sw_loop, 1, 1) GM(gm_sw_once, 1, 0) GM(gm_loop, 0, 1) GM(gm_once, 0, 0)\n",
    "template <int OP, int U, int LD> __device__ __forceinline__ void rs(i64 M, i64 R, float *out, const float *x) {\n"
    "    __shared__ float red[32];\n"
    "    const i64 nv = R / 4, nt = blockDim.x;\n"
    "    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = (int)(nt >> 5);\n"
    "    for (i64 m = blockIdx.x; m < M; m += gridDim.x) {\n"
    "        const uint4 *b = (const uint4 *)(x + m * R);\n"
    "        float s0 = OP ? -__int_as_float(0x7f800000) : 0.f, s1 = s0, s2 = s0, s3 = s0;\n"
    "        for (i64 j = threadIdx.x; j < nv; j += U * nt) {\n"
    "            uint4 u[U];\n"
    "#pragma unroll\n"
    "            for (int t = 0; t < U; t++) { u[t] = make_uint4(0u, 0u, 0u, 0u); if (j + t * nt < nv) u[t] = ldv<LD>(b + j + t * nt); else if (OP) u[t] = make_uint4(0xff800000u, 0xff800000u, 0xff800000u, 0xff800000u); }\n"
    "#pragma unroll\n"
    "            for (int t = 0; t < U; t++) {\n"
    "                if (OP) { s0 = fmaxf(s0, __uint_as_float(u[t].x)); s1 = fmaxf(s1, __uint_as_float(u[t].y)); s2 = fmaxf(s2, __uint_as_float(u[t].z)); s3 = fmaxf(s3, __uint_as_float(u[t].w)); }\n"
    "                else { s0 += __uint_as_float(u[t].x); s1 += __uint_as_float(u[t].y); s2 += __uint_as_float(u[t].z); s3 += __uint_as_float(u[t].w); }\n"
    "            }\n"
    "        }\n"
    "        float s = OP ? fmaxf(fmaxf(s0, s1), fmaxf(s2, s3)) : (s0 + s1) + (s2 + s3);\n"
    "        for (i64 r = nv * 4 + threadIdx.x; r < R; r += nt) s = OP ? fmaxf(s, x[m * R + r]) : s + x[m * R + r];\n"
    "#pragma unroll\n"
    "        for (int o = 16; o > 0; o >>= 1) { float v = __shfl_xor_sync(0xffffffffu, s, o); s = OP ? fmaxf(s, v) : s + v; }\n"
    "        if (lane == 0) red[w] = s;\n"
    "        __syncthreads();\n"
    "        if (threadIdx.x == 0) { float t = red[0]; for (int k = 1; k < nw; k++) t = OP ? fmaxf(t, red[k]) : t + red[k]; out[m] = t; }\n"
    "        __syncthreads();\n"
    "    }\n"
    "}\n"
    "#define RS(OP, U, LD) extern \"C\" __global__ void rs_##OP##_##U##_##LD(i64 M, i64 R, float *out, const float *x) { rs<OP, U, LD>(M, R, out, x); }\n"
    "RS(0, 4, 0) RS(0, 8, 0) RS(0, 4, 1) RS(0, 8, 1) RS(0, 16, 0)\n"
    "RS(1, 4, 0) RS(1, 8, 0) RS(1, 4, 1) RS(1, 8, 1) RS(1, 16, 0)\n" };

static gk_ctx *ctx;
static gkb_timer tm;
static int sms;

#define CK(x) GKB_CHECK(ctx, x)

/* an entry: a probe kernel (k) with its block size and grid rule, or a gpukit op (op) */
enum { OP_COPY, OP_GELU, OP_SUM, OP_MAX };
typedef struct {
    char name[48];
    int kind;          /* OP_*: what it computes */
    gk_kernel *k;      /* NULL: gpukit's own op */
    unsigned block, grid;
    int graph;         /* 1: the 10 calls of a timing replayed from a CUDA graph (no host work between them) */
    int mimic;         /* gelu with gk_unary_c's arguments and structure (op switch, grid-stride loop, tail) */
    int wrong;         /* its output differed from gpukit's op (check): its time is not a result */
    gk_graph *g;
    double bytes;
    double t[64], host[64]; /* GPU us a call (events); host us to issue a call (wall clock, direct calls) */
    int nt;
} entry;
#define MAX_ENT 160
static entry ent[MAX_ENT];
static int nent;
static gk_tensor xb, ob, ob2, xf, rf, rf2; /* gelu in / out / check; sums in / out / check */
static int64_t nvec, M = 4096, R = 32000;

static gk_status run(entry *e) {
    gk_launch_desc d;
    gk_arg a[4];
    memset(&d, 0, sizeof d);
    if (!e->k) {
        switch (e->kind) {
        case OP_COPY: return gk_copy(ctx, ob, xb);
        case OP_GELU: return gk_unary(ctx, ob, xb, GK_UNARY_GELU_TANH, 0);
        case OP_SUM: return gk_reduce(ctx, rf, xf, GK_REDUCE_SUM, 1, 0);
        default: return gk_reduce(ctx, rf, xf, GK_REDUCE_MAX, 1, 0);
        }
    }
    d.grid[0] = e->grid;
    d.block[0] = e->block;
    d.args = a;
    d.num_args = 4;
    if (e->kind == OP_GELU && e->mimic) { /* gk_unary_c's arguments: n elements, out, x, op, p0, p1 */
        gk_arg m6[6];
        m6[0] = gk_arg_i64(nvec * 8); m6[1] = gk_arg_tensor(ob); m6[2] = gk_arg_tensor(xb); m6[3] = gk_arg_i32(13);
        m6[4] = gk_arg_f64(0.0); m6[5] = gk_arg_f64(0.0);
        d.args = m6;
        d.num_args = 6;
        return gk_kernel_launch(ctx, e->k, &d);
    }
    if (e->kind == OP_GELU) {
        a[0] = gk_arg_i64(nvec); a[1] = gk_arg_tensor(ob); a[2] = gk_arg_tensor(xb);
        d.num_args = 3;
    } else {
        a[0] = gk_arg_i64(M); a[1] = gk_arg_i64(R); a[2] = gk_arg_tensor(rf); a[3] = gk_arg_tensor(xf);
    }
    return gk_kernel_launch(ctx, e->k, &d);
}

static entry *add(const char *name, int kind, gk_module *m, const char *kname, unsigned block, unsigned grid, double bytes) {
    entry *e;
    if (nent == MAX_ENT) { printf("bench_stream: more than %d entries (raise MAX_ENT)\n", MAX_ENT); exit(1); }
    e = &ent[nent++];
    memset(e, 0, sizeof *e);
    snprintf(e->name, sizeof e->name, "%s", name);
    e->kind = kind;
    e->block = block;
    e->grid = grid;
    e->bytes = bytes;
    if (kname) CK(gk_module_kernel(ctx, m, kname, &e->k));
    return e;
}

/* the entry's output against gpukit's: gelu bit-exact, sums within 1e-5 of the largest |value| */
static int check(entry *e) {
    static uint16_t *h1, *h2;
    static float *f1, *f2;
    int64_t i, n = nvec * 8, bad = 0;
    if (e->kind == OP_COPY || !e->k) return 1;
    if (e->kind == OP_GELU) {
        if (!h1) { h1 = (uint16_t *)malloc((size_t)n * 2); h2 = (uint16_t *)malloc((size_t)n * 2); }
        CK(gk_fill(ctx, ob, NAN));
        CK(run(e));
        CK(gk_unary(ctx, ob2, xb, GK_UNARY_GELU_TANH, 0));
        CK(gk_copy_to_host(ctx, ob, h1, (size_t)n * 2));
        CK(gk_copy_to_host(ctx, ob2, h2, (size_t)n * 2));
        for (i = 0; i < n; i++) bad += h1[i] != h2[i];
    } else {
        double big = 0;
        if (!f1) { f1 = (float *)malloc((size_t)M * 4); f2 = (float *)malloc((size_t)M * 4); }
        CK(gk_fill(ctx, rf, NAN));
        CK(run(e));
        CK(gk_reduce(ctx, rf2, xf, e->kind == OP_SUM ? GK_REDUCE_SUM : GK_REDUCE_MAX, 1, 0));
        CK(gk_copy_to_host(ctx, rf, f1, (size_t)M * 4));
        CK(gk_copy_to_host(ctx, rf2, f2, (size_t)M * 4));
        for (i = 0; i < M; i++) big = fabs(f2[i]) > big ? fabs(f2[i]) : big;
        for (i = 0; i < M; i++) bad += !(fabs((double)f1[i] - f2[i]) <= 1e-5 * big);
    }
    if (bad) printf("%-28s WRONG: %lld of its outputs differ from gpukit's\n", e->name, (long long)bad);
    return bad == 0;
}

int main(int argc, char **argv) {
    gk_ctx_desc cd;
    gk_device_info info;
    gk_module_desc md;
    gk_module *m;
    const char *json = NULL;
    int rounds = 21, r, i, k;
    int64_t nb = (int64_t)128 << 20, ms2[2];
    double gbytes = 4.0 * (double)nb, rbytes = 4.0 * (double)M * R;
    char nm[48], *src;
    int nwrong = 0;
    entry *e2;
    const char *v;
    time_t now = time(NULL);
    gkb_json j;
    for (i = 1; i < argc; i++) {
        if (gkb_arg(argc, argv, &i, "--json", &json)) continue;
        if (gkb_arg(argc, argv, &i, "--rounds", &v)) rounds = atoi(v);
    }
    if (rounds < 3) rounds = 3;
    if (rounds > 64) rounds = 64;
    memset(&cd, 0, sizeof cd);
    cd.backend = GK_BACKEND_CUDA;
    if (gk_ctx_create(&cd, &ctx) != GK_OK) { printf("bench_stream: needs a GPU (%s)\n", gk_last_error(NULL)); return 0; }
    gk_device_info_get(ctx, &info);
    sms = info.sm_count;
    CK(gkb_timer_init(&tm, ctx));
    memset(&md, 0, sizeof md);
    {
        size_t l0 = strlen(SRC[0]), l1 = strlen(SRC[1]), l2 = strlen(SRC[2]);
        src = (char *)malloc(l0 + l1 + l2 + 1);
        memcpy(src, SRC[0], l0);
        memcpy(src + l0, SRC[1], l1);
        memcpy(src + l0 + l1, SRC[2], l2 + 1);
    }
    md.source = src;
    md.name = "bench_stream.cu";
    CK(gk_module_create(ctx, &md, &m));
    nvec = nb / 8;
    CK(gk_tensor_empty(ctx, GK_BF16, 1, &nb, &xb));
    CK(gk_tensor_empty(ctx, GK_BF16, 1, &nb, &ob));
    CK(gk_tensor_empty(ctx, GK_BF16, 1, &nb, &ob2));
    { /* gelu's input: uniform in [-6, 6] (bf16), from a host LCG */
        uint16_t *h = (uint16_t *)malloc((size_t)nb * 2);
        uint32_t s = 12345u;
        int64_t j;
        for (j = 0; j < nb; j++) {
            float f;
            uint32_t u;
            s = s * 1664525u + 1013904223u;
            f = (float)((double)(s >> 8) / 16777216.0 * 12.0 - 6.0);
            memcpy(&u, &f, 4);
            h[j] = (uint16_t)(u >> 16);
        }
        CK(gk_copy_from_host(ctx, xb, h, (size_t)nb * 2));
        free(h);
    }
    ms2[0] = M; ms2[1] = R;
    CK(gk_tensor_empty(ctx, GK_F32, 2, ms2, &xf));
    CK(gk_tensor_empty(ctx, GK_F32, 1, &M, &rf));
    CK(gk_tensor_empty(ctx, GK_F32, 1, &M, &rf2));
    { /* the sums' input: uniform in [-1, 1] */
        float *h = (float *)malloc((size_t)(M * R) * 4);
        uint32_t s = 777u;
        int64_t j;
        for (j = 0; j < M * R; j++) { s = s * 1664525u + 1013904223u; h[j] = (float)((double)(s >> 8) / 16777216.0 * 2.0 - 1.0); }
        CK(gk_copy_from_host(ctx, xf, h, (size_t)(M * R) * 4));
        free(h);
    }

    add("copy (gk_copy)", OP_COPY, m, NULL, 0, 0, gbytes);
    add("gelu_tanh (gk_unary)", OP_GELU, m, NULL, 0, 0, gbytes);
    add("copy (gk_copy) graph", OP_COPY, m, NULL, 0, 0, gbytes)->graph = 1;
    add("gelu_tanh (gk_unary) graph", OP_GELU, m, NULL, 0, 0, gbytes)->graph = 1;
    {
        static const char *gk_[12] = { "gu_1_0_0", "gu_2_0_0", "gu_4_0_0", "gu_8_0_0", "gu_1_1_0", "gu_2_1_0",
                                       "gu_4_1_0", "gu_8_1_0", "gu_1_0_1", "gu_2_0_1", "gu_4_0_1", "gu_4_1_1" };
        static const int us[12] = { 1, 2, 4, 8, 1, 2, 4, 8, 1, 2, 4, 4 };
        static const unsigned bs[3] = { 128, 256, 512 };
        int b;
        for (k = 0; k < 12; k++)
            for (b = 0; b < 3; b++) {
                unsigned grid = (unsigned)((nvec + (int64_t)us[k] * bs[b] - 1) / ((int64_t)us[k] * bs[b]));
                snprintf(nm, sizeof nm, "gelu %s b%u", gk_[k], bs[b]);
                add(nm, OP_GELU, m, gk_[k], bs[b], grid, gbytes);
            }
        for (k = 1; k <= 4; k *= 2) /* 8-byte vectors: 4 elements a load */
            for (b = 0; b < 3; b++) {
                char kn[24]; /* "gh_%d", "gu_%d_0_3": at most 18 characters */
                unsigned grid = (unsigned)((2 * nvec + (int64_t)k * bs[b] - 1) / ((int64_t)k * bs[b]));
                snprintf(kn, sizeof kn, "gh_%d", k);
                snprintf(nm, sizeof nm, "gelu %s b%u", kn, bs[b]);
                add(nm, OP_GELU, m, kn, bs[b], grid, gbytes);
            }
        for (b = 1; b < 3; b++) {
            unsigned grid = (unsigned)((nvec + bs[b] - 1) / bs[b]);
            snprintf(nm, sizeof nm, "gelu gu_1_0_2 b%u", bs[b]); /* no L2 prefetch hint */
            add(nm, OP_GELU, m, "gu_1_0_2", bs[b], grid, gbytes);
        }
        for (k = 1; k <= 4; k *= 2) /* plain ld.global (not the read-only path) */
            for (b = 0; b < 3; b++) {
                char kn[24]; /* "gh_%d", "gu_%d_0_3": at most 18 characters */
                unsigned grid = (unsigned)((nvec + (int64_t)k * bs[b] - 1) / ((int64_t)k * bs[b]));
                snprintf(kn, sizeof kn, "gu_%d_0_3", k);
                snprintf(nm, sizeof nm, "gelu %s b%u", kn, bs[b]);
                add(nm, OP_GELU, m, kn, bs[b], grid, gbytes);
            }
        { /* gk_unary_c's structure: with / without the op switch and the grid-stride loop */
            static const char *mk[4] = { "gm_sw_loop", "gm_sw_once", "gm_loop", "gm_once" };
            for (k = 0; k < 4; k++) {
                snprintf(nm, sizeof nm, "gelu %s b512", mk[k]);
                add(nm, OP_GELU, m, mk[k], 512, (unsigned)((nvec + 511) / 512), gbytes)->mimic = 1;
            }
            /* two probe kernels replayed from graphs too, next to gk_unary's graph */
            e2 = add("gelu gm_sw_loop b512 graph", OP_GELU, m, "gm_sw_loop", 512, (unsigned)((nvec + 511) / 512), gbytes);
            e2->mimic = e2->graph = 1;
            add("gelu gu_1_0_0 b512 graph", OP_GELU, m, "gu_1_0_0", 512, (unsigned)((nvec + 511) / 512), gbytes)->graph = 1;
        }
        for (b = 1; b < 3; b++) {
            snprintf(nm, sizeof nm, "gelu gp_2 b%u", bs[b]);
            add(nm, OP_GELU, m, "gp_2", bs[b], (unsigned)(sms * (2048 / bs[b])), gbytes);
            snprintf(nm, sizeof nm, "gelu gp_4 b%u", bs[b]);
            add(nm, OP_GELU, m, "gp_4", bs[b], (unsigned)(sms * (2048 / bs[b])), gbytes);
        }
    }
    add("sum lastdim (gk_reduce)", OP_SUM, m, NULL, 0, 0, rbytes);
    add("max lastdim (gk_reduce)", OP_MAX, m, NULL, 0, 0, rbytes);
    add("sum lastdim (gk_reduce) graph", OP_SUM, m, NULL, 0, 0, rbytes)->graph = 1;
    add("max lastdim (gk_reduce) graph", OP_MAX, m, NULL, 0, 0, rbytes)->graph = 1;
    {
        static const char *rk[5] = { "4_0", "8_0", "4_1", "8_1", "16_0" };
        static const unsigned bs[3] = { 256, 512, 1024 };
        int b, op;
        char kn[32];
        for (op = 0; op < 2; op++)
            for (k = 0; k < 5; k++)
                for (b = 0; b < 3; b++) {
                    unsigned grid = (unsigned)(sms * (2048 / bs[b]));
                    if (grid > (unsigned)M) grid = (unsigned)M;
                    snprintf(kn, sizeof kn, "rs_%d_%s", op, rk[k]);
                    snprintf(nm, sizeof nm, "%s %s b%u", op ? "max" : "sum", kn, bs[b]);
                    add(nm, op ? OP_MAX : OP_SUM, m, kn, bs[b], grid, rbytes);
                }
    }
    for (i = 0; i < nent; i++) {
        ent[i].wrong = !check(&ent[i]);
        nwrong += ent[i].wrong;
    }
    for (i = 0; i < nent; i++) { CK(run(&ent[i])); CK(run(&ent[i])); } /* warm-up */
    CK(gk_sync(ctx));
    for (i = 0; i < nent; i++) /* the graphs: 10 calls captured on the current stream */
        if (ent[i].graph) {
            CK(gk_graph_begin(ctx, NULL));
            for (k = 0; k < 10; k++) CK(run(&ent[i]));
            CK(gk_graph_end(ctx, NULL, &ent[i].g));
        }
    for (r = 0; r < rounds; r++)
        for (i = 0; i < nent; i++) {
            double ms, h0;
            CK(gkb_timer_start(&tm));
            h0 = gkb_now_ms();
            if (ent[i].g) CK(gk_graph_launch(ctx, ent[i].g, NULL));
            else
                for (k = 0; k < 10; k++) CK(run(&ent[i]));
            ent[i].host[ent[i].nt] = (gkb_now_ms() - h0) * 1e3 / 10;
            CK(gkb_timer_stop(&tm, &ms));
            ent[i].t[ent[i].nt++] = ms / 10 * 1000.0;
        }
    gkb_json_open(&j, json);
    gkb_json_header(&j, "stream", info.name, now);
    gkb_json_int(&j, "rounds", rounds);
    gkb_json_str(&j, "method", "each round times every entry once (10 back-to-back launches between events); median over rounds");
    gkb_json_arr(&j, "results");
    for (i = 0; i < nent; i++) {
        entry *e = &ent[i];
        double med = gkb_kth(e->t, e->nt, e->nt / 2), lo = gkb_kth(e->t, e->nt, e->nt / 4), hi = gkb_kth(e->t, e->nt, (3 * e->nt) / 4);
        double host = gkb_kth(e->host, e->nt, e->nt / 2);
        printf("%-30s %9.2f us  (quartiles %.2f .. %.2f)  %7.1f GB/s  host %.2f us a call%s\n", e->name, med, lo, hi, e->bytes / (med * 1e-6) / 1e9,
               host, e->wrong ? "  WRONG" : "");
        gkb_json_row(&j, NULL);
        gkb_json_str(&j, "name", e->name);
        gkb_json_num(&j, "us", med, 3);
        gkb_json_num(&j, "q1", lo, 3);
        gkb_json_num(&j, "q3", hi, 3);
        gkb_json_num(&j, "GBs", e->bytes / (med * 1e-6) / 1e9, 1);
        gkb_json_num(&j, "host_us", host, 3);
        gkb_json_bool(&j, "correct", !e->wrong);
        gkb_json_end(&j);
    }
    gkb_json_close(&j);
    gk_ctx_destroy(ctx);
    if (nwrong) printf("bench_stream: %d entries computed a result other than gpukit's op (WRONG above)\n", nwrong);
    return nwrong ? 1 : 0;
}
