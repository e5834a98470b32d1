/* bench_math - the math group on the GPU (medians of CUDA-event timings after
   warm-up), bandwidth-bound ops as GB/s of bytes read + written, next to the
   device-to-device copy bandwidth measured in the same run. PyTorch's side is
   bench/math_torch.py (tools/gpu_check.d/math.sh runs both and prints ratios).
     build/bench_math [--json FILE] */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkb.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CK(x) GKB_CHECK(ctx, x)

static gk_ctx *ctx;
static gkb_timer tm;
typedef struct { const char *name; double us, gbs; } result;
static result res[64];
static int nres;

/* times `body`: after 3 warm-ups, 25 timings of INNER back-to-back runs
   between two events (so the host's time to issue a call is hidden, as in
   bench_nn.c), the median per run; bench/math_torch.py times PyTorch the
   same way. bytes moved per run for GB/s (0: time only) */
#define INNER 10
#define TIME(label, bytes, body)                                                          \
    do {                                                                                  \
        double t_[25];                                                                    \
        int r_, k_;                                                                       \
        for (r_ = 0; r_ < 3; r_++) CK(body);                                              \
        CK(gk_sync(ctx));                                                                 \
        for (r_ = 0; r_ < 25; r_++) {                                                     \
            CK(gkb_timer_start(&tm));                                                     \
            for (k_ = 0; k_ < INNER; k_++) CK(body);                                      \
            CK(gkb_timer_stop(&tm, &t_[r_]));                                             \
            t_[r_] /= INNER;                                                              \
        }                                                                                 \
        res[nres].name = label;                                                           \
        res[nres].us = gkb_median(t_, 25) * 1000.0;                                       \
        res[nres].gbs = (bytes) > 0 ? (double)(bytes) / (res[nres].us * 1e-6) / 1e9 : 0;  \
        printf("%-36s %10.1f us %9.1f GB/s\n", label, res[nres].us, res[nres].gbs);       \
        nres++;                                                                           \
    } while (0)

static gk_status rnd(gk_tensor t, double scale) { /* deterministic pseudo-random fill: sin of a ramp */
    gk_tensor_info info;
    gk_tensor f;
    gk_status st;
    gk_tensor_info_get(ctx, t, &info);
    st = gk_tensor_empty(ctx, GK_F32, info.ndim, info.shape, &f);
    if (st != GK_OK) return st;
    {
        int64_t n = info.numel, i, chunk = (int64_t)1 << 22;
        float *h = (float *)malloc((size_t)chunk * 4);
        gk_tensor flat, part;
        gk_view_reshape(ctx, f, 1, &n, &flat);
        for (i = 0; i < n && st == GK_OK; i += chunk) {
            int64_t m = n - i < chunk ? n - i : chunk, j;
            for (j = 0; j < m; j++) h[j] = (float)(scale * sin(0.37 * (double)(i + j) + 1.3 * (double)((i + j) % 977)));
            gk_view_slice(ctx, flat, 0, i, i + m, 1, &part);
            st = gk_copy_from_host(ctx, part, h, (size_t)m * 4);
            gk_tensor_free(ctx, part);
        }
        free(h);
        gk_tensor_free(ctx, flat);
    }
    if (st == GK_OK) st = gk_cast(ctx, t, f);
    gk_sync(ctx);
    gk_tensor_free(ctx, f);
    return st;
}

int main(int argc, char **argv) {
    gk_ctx_desc d;
    gk_device_info info;
    const char *json = gkb_json_arg(argc, argv);
    time_t now = time(NULL);
    int i;
    memset(&d, 0, sizeof d);
    d.backend = GK_BACKEND_CUDA;
    if (gk_ctx_create(&d, &ctx) != GK_OK) { printf("bench_math: needs a GPU (%s)\n", gk_last_error(NULL)); return 0; }
    gk_device_info_get(ctx, &info);
    printf("bench_math on %s (%s), driver %d, NVRTC %d\n", info.name, info.arch, info.driver_version, info.nvrtc_version);
    CK(gkb_timer_init(&tm, ctx));
    {   /* 256 MiB elementwise */
        int64_t n = (int64_t)64 << 20, nh = (int64_t)128 << 20, s2[2] = { 8192, 8192 }, row = 8192;
        size_t B = (size_t)256 << 20;
        gk_tensor a, b, c, ha, hb, hc, m2, r1, o2;
        uint64_t pa, pc;
        CK(gk_tensor_empty(ctx, GK_F32, 1, &n, &a));
        CK(gk_tensor_empty(ctx, GK_F32, 1, &n, &b));
        CK(gk_tensor_empty(ctx, GK_F32, 1, &n, &c));
        CK(gk_tensor_empty(ctx, GK_BF16, 1, &nh, &ha));
        CK(gk_tensor_empty(ctx, GK_BF16, 1, &nh, &hb));
        CK(gk_tensor_empty(ctx, GK_BF16, 1, &nh, &hc));
        CK(rnd(a, 3)); CK(rnd(b, 3)); CK(rnd(ha, 3)); CK(rnd(hb, 3));
        CK(gk_tensor_ptr(ctx, a, &pa));
        CK(gk_tensor_ptr(ctx, c, &pc));
        TIME("copy_d2d_256MiB", 2 * B, ctx->cu.MemcpyDtoDAsync(pc, pa, B, ctx->cur_stream->cu) == 0 ? GK_OK : GK_ERR_CUDA);
        TIME("silu_f32_256MiB", 2 * B, gk_unary(ctx, c, a, GK_UNARY_SILU, 0));
        TIME("gelu_bf16_256MiB", 2 * B, gk_unary(ctx, hc, ha, GK_UNARY_GELU, 0));
        TIME("gelu_tanh_bf16_256MiB", 2 * B, gk_unary(ctx, hc, ha, GK_UNARY_GELU_TANH, 0));
        {   /* gelu bf16 on 64M elements (128 MiB each way) */
            gk_tensor hv, ov;
            CK(gk_view_slice(ctx, ha, 0, 0, (int64_t)64 << 20, 1, &hv));
            CK(gk_view_slice(ctx, hc, 0, 0, (int64_t)64 << 20, 1, &ov));
            TIME("gelu_bf16_64M", B, gk_unary(ctx, ov, hv, GK_UNARY_GELU, 0));
            gk_tensor_free(ctx, hv); gk_tensor_free(ctx, ov);
        }
        TIME("swiglu_bf16_256MiB", 3 * B, gk_glu(ctx, hc, ha, hb, GK_GLU_SILU));
        TIME("maximum_f32_256MiB", 3 * B, gk_binary(ctx, c, a, b, GK_BINARY_MAXIMUM));
        {
            int64_t s3[3] = { 16, 512, 16384 }, ch = 512;
            gk_tensor x3, y3, al;
            CK(gk_view_reshape(ctx, ha, 3, s3, &x3));
            CK(gk_view_reshape(ctx, hc, 3, s3, &y3));
            CK(gk_tensor_empty(ctx, GK_BF16, 1, &ch, &al));
            CK(gk_fill(ctx, al, 0.75));
            TIME("snake_bf16_16x512x16384", 2 * B, gk_snake(ctx, y3, x3, al));
            gk_tensor_free(ctx, x3); gk_tensor_free(ctx, y3); gk_tensor_free(ctx, al);
        }
        CK(gk_view_reshape(ctx, a, 2, s2, &m2));
        CK(gk_view_reshape(ctx, c, 2, s2, &o2));
        CK(gk_view_slice(ctx, b, 0, 0, row, 1, &r1));
        TIME("add_bcast_f32_8192x8192+8192", 2 * B, gk_add(ctx, o2, m2, r1));
        gk_tensor_free(ctx, m2); gk_tensor_free(ctx, o2); gk_tensor_free(ctx, r1);
        {
            int64_t one = 1;
            gk_tensor s;
            CK(gk_tensor_empty(ctx, GK_F32, 0, &one, &s));
            TIME("sum_all_f32_256MiB", B, gk_reduce(ctx, s, a, GK_REDUCE_SUM, GK_AXIS_ALL, 0));
            gk__tune(ctx)->ctr_off = 1; /* the parts merged by a second kernel (gk_red_finb), not by arrival counters */
            TIME("sum_all_f32_256MiB_finb", B, gk_reduce(ctx, s, a, GK_REDUCE_SUM, GK_AXIS_ALL, 0));
            gk__tune(ctx)->ctr_off = 0;
            gk_tensor_free(ctx, s);
        }
        gk_tensor_free(ctx, a); gk_tensor_free(ctx, b); gk_tensor_free(ctx, c);
        gk_tensor_free(ctx, ha); gk_tensor_free(ctx, hb); gk_tensor_free(ctx, hc);
    }
    {   /* rows: softmax, sum over the last axis */
        int64_t s1[2] = { 4096, 32000 }, s2[2] = { 32, 151936 }, s3 = 4096;
        size_t b1 = (size_t)4096 * 32000 * 4, b2 = (size_t)32 * 151936 * 2;
        gk_tensor x, y, xh, yh, r;
        CK(gk_tensor_empty(ctx, GK_F32, 2, s1, &x));
        CK(gk_tensor_empty(ctx, GK_F32, 2, s1, &y));
        CK(gk_tensor_empty(ctx, GK_BF16, 2, s2, &xh));
        CK(gk_tensor_empty(ctx, GK_BF16, 2, s2, &yh));
        CK(gk_tensor_empty(ctx, GK_F32, 1, &s3, &r));
        CK(rnd(x, 8)); CK(rnd(xh, 8));
        TIME("softmax_f32_4096x32000", 2 * b1, gk_softmax(ctx, y, x));
        TIME("log_softmax_f32_4096x32000", 2 * b1, gk_log_softmax(ctx, y, x));
        TIME("softmax_bf16_32x151936", 2 * b2, gk_softmax(ctx, yh, xh));
        TIME("sum_lastdim_f32_4096x32000", b1, gk_reduce(ctx, r, x, GK_REDUCE_SUM, -1, 0));
        TIME("max_lastdim_f32_4096x32000", b1, gk_reduce(ctx, r, x, GK_REDUCE_MAX, -1, 0));
        gk_tensor_free(ctx, x); gk_tensor_free(ctx, y); gk_tensor_free(ctx, xh); gk_tensor_free(ctx, yh); gk_tensor_free(ctx, r);
    }
    {   /* top-k and sampling over a Qwen-sized vocabulary */
        int64_t s1[2] = { 64, 151936 }, sk[2] = { 64, 50 }, s8[2] = { 8, 151936 }, b8 = 8, sp[2] = { 8, 64 };
        gk_tensor x, v, ix, l8, tok, prev;
        gk_sample_desc sd;
        CK(gk_tensor_empty(ctx, GK_F32, 2, s1, &x));
        CK(gk_tensor_empty(ctx, GK_F32, 2, sk, &v));
        CK(gk_tensor_empty(ctx, GK_I64, 2, sk, &ix));
        CK(gk_tensor_empty(ctx, GK_BF16, 2, s8, &l8));
        CK(gk_tensor_empty(ctx, GK_I32, 1, &b8, &tok));
        CK(gk_tensor_empty(ctx, GK_I32, 2, sp, &prev));
        CK(rnd(x, 8)); CK(rnd(l8, 8));
        CK(gk_fill(ctx, prev, 7));
        TIME("topk50_f32_64x151936", (size_t)64 * 151936 * 4, gk_topk(ctx, v, ix, x, 50));
        memset(&sd, 0, sizeof sd);
        TIME("sample_greedy_bf16_8x151936", (size_t)8 * 151936 * 2, gk_sample(ctx, tok, l8, prev, &sd));
        {   /* batch 1 (decode): the first row of the same inputs */
            gk_tensor x1, l1, v1, ix1, tok1, nul;
            nul.id = 0;
            CK(gk_view_slice(ctx, x, 0, 0, 1, 1, &x1));
            CK(gk_view_slice(ctx, l8, 0, 0, 1, 1, &l1));
            CK(gk_view_slice(ctx, v, 0, 0, 1, 1, &v1));
            CK(gk_view_slice(ctx, ix, 0, 0, 1, 1, &ix1));
            CK(gk_view_slice(ctx, tok, 0, 0, 1, 1, &tok1));
            TIME("topk50_f32_1x151936", (size_t)151936 * 4, gk_topk(ctx, v1, ix1, x1, 50));
            TIME("sample_greedy_bf16_1x151936", (size_t)151936 * 2, gk_sample(ctx, tok1, l1, nul, &sd));
            gk_tensor_free(ctx, x1); gk_tensor_free(ctx, l1); gk_tensor_free(ctx, v1); gk_tensor_free(ctx, ix1); gk_tensor_free(ctx, tok1);
        }
        sd.temperature = 0.8f; sd.seed = 1234;
        TIME("sample_temp_bf16_8x151936", (size_t)8 * 151936 * 2, gk_sample(ctx, tok, l8, prev, &sd));
        sd.top_k = 50; sd.top_p = 0.9f; sd.repetition_penalty = 1.1f;
        TIME("sample_topk50_topp_bf16_8x151936", (size_t)8 * 151936 * 2, gk_sample(ctx, tok, l8, prev, &sd));
        {   /* batch 1 (decode): the first rows of the same inputs and settings */
            gk_tensor l1, tok1, prev1;
            CK(gk_view_slice(ctx, l8, 0, 0, 1, 1, &l1));
            CK(gk_view_slice(ctx, tok, 0, 0, 1, 1, &tok1));
            CK(gk_view_slice(ctx, prev, 0, 0, 1, 1, &prev1));
            sd.top_k = 0; sd.top_p = 0; sd.repetition_penalty = 0;
            TIME("sample_temp_bf16_1x151936", (size_t)151936 * 2, gk_sample(ctx, tok1, l1, prev1, &sd));
            sd.top_k = 50; sd.top_p = 0.9f; sd.repetition_penalty = 1.1f;
            TIME("sample_topk50_topp_bf16_1x151936", (size_t)151936 * 2, gk_sample(ctx, tok1, l1, prev1, &sd));
            gk_tensor_free(ctx, l1); gk_tensor_free(ctx, tok1); gk_tensor_free(ctx, prev1);
        }
        gk_tensor_free(ctx, x); gk_tensor_free(ctx, v); gk_tensor_free(ctx, ix); gk_tensor_free(ctx, l8); gk_tensor_free(ctx, tok);
        gk_tensor_free(ctx, prev);
    }
    if (json) {
        gkb_json j;
        if (gkb_json_open(&j, json) == 0) {
            gkb_json_header(&j, "math", info.name, now);
            gkb_json_str(&j, "side", "gpukit");
            gkb_json_str(&j, "arch", info.arch);
            gkb_json_obj(&j, "results");
            for (i = 0; i < nres; i++) {
                gkb_json_row(&j, res[i].name);
                gkb_json_num(&j, "us", res[i].us, 3);
                gkb_json_num(&j, "gbs", res[i].gbs, 1);
                gkb_json_end(&j);
            }
            gkb_json_close(&j);
        }
    }
    gk_ctx_destroy(ctx);
    return 0;
}
