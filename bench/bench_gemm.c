/* bench_gemm - matrix products on the GPU: gpukit's own kernels and its
   cuBLASLt path, GEMM TFLOP/s (bf16, f16, tf32, f32 at 4096^3 and 8192^3) and
   GEMV GB/s of weights (bf16, the decode shapes) against the
   device-to-device copy bandwidth measured in the same run. PyTorch's cuBLAS
   figures come from bench/gemm_torch.py in the same device call.
   On a compute capability 9.0 device the 16-bit and tf32 GEMMs are timed on
   both of gpukit's tensor-core kernels: "gpukit" (as dispatched: the wgmma
   kernel, kernels/gemm_wg.cu) and "gpukit_mma" (the mma.sync kernel,
   gemm_tc). All rows are NN (row-major A [M, K], B [K, N]); for tf32, whose
   wgmma needs K-major B, "gpukit" includes the transpose of B into scratch,
   and "gpukit_nt" times B given as [N, K] (a transposed view: no transpose).
   Causal attention (bf16, B8 H32 D128) is timed as dispatched ("gpukit": on a
   9.0 device the wgmma kernel, kernels/flash_wg.cu) and, on a 9.0 device,
   with that kernel off ("gpukit_mma": kernels/flash.cu); decode attention
   over an 8k cache ("gpukit": gk_attn_dec).
   Exact f32 (no TF32) is timed for the NN, NT (B a transposed view of
   [N, K]) and TN (A a transposed view of [K, M]) layouts: "gpukit" (the
   CUDA-core kernel of kernels/gemm_f32.cu), "gpukit_simt" (gemm.cu's SIMT
   kernel, NN 4096^3 only) and "cublaslt" of the same layout; with --f32
   also "gpukit_v0" / "gpukit_v1" (every layout), the k tiles 8 / 16 of gpukit.h
   tune.sg_variant forced ("gpukit" is the dispatcher's choice).
     bench_gemm [--json FILE] [--gemm-only] [--16] [--tf32] [--f32] [--attn]
   --gemm-only: no GEMV / attention; --16: the 16-bit GEMM rows only;
   --tf32: the tf32 GEMM rows only; --f32: the exact f32 GEMM rows only
   (with the registers and spills of their kernels); --attn: the attention
   rows only. */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkb.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static gk_ctx *ctx;
static gkb_timer tm;

typedef struct { gk_tensor o, a, b; const gk_matmul_desc *d; int linear; } mm_args;
static gk_status run_mm(void *u, int i) {
    mm_args *m = (mm_args *)u;
    (void)i;
    return m->linear ? gk_linear(ctx, m->o, m->a, m->b, m->d) : gk_matmul(ctx, m->o, m->a, m->b, m->d);
}
/* median ms of `reps` timed runs after 3 warm-ups; -1 on failure */
static double time_mm(gk_tensor o, gk_tensor a, gk_tensor b, const gk_matmul_desc *d, int linear, int reps) {
    double t[64];
    mm_args m;
    m.o = o; m.a = a; m.b = b; m.d = d; m.linear = linear;
    if (gkb_time_op(&tm, run_mm, &m, 3, 0, reps, 1, t) != GK_OK) { printf("  %s\n", gk_last_error(ctx)); return -1; }
    return gkb_kth(t, reps, reps / 2);
}
static void randn(gk_tensor t, int64_t n, gk_dtype dt) {
    float *h = (float *)malloc((size_t)n * 4);
    gk_tensor f;
    int64_t i;
    unsigned s = 12345;
    for (i = 0; i < n; i++) { s = s * 1664525u + 1013904223u; h[i] = (float)((double)(s >> 8) / 16777216.0 - 0.5); }
    gk_tensor_from_host(ctx, GK_F32, 1, &n, h, &f);
    {
        gk_tensor v;
        gk_tensor_info info;
        gk_tensor_info_get(ctx, t, &info);
        gk_view_reshape(ctx, t, 1, &n, &v);
        gk_cast(ctx, v, f);
        gk_tensor_free(ctx, v);
        (void)dt;
    }
    gk_tensor_free(ctx, f);
    free(h);
}

int main(int argc, char **argv) {
    gk_ctx_desc d;
    gk_device_info info;
    const char *json = NULL;
    gkb_json j;
    time_t now = time(NULL);
    int i, gemm_only = 0, only16 = 0, onlytf32 = 0, onlyf32 = 0, attn_only = 0;
    double copy_gbs;
    for (i = 1; i < argc; i++) {
        if (gkb_arg(argc, argv, &i, "--json", &json)) continue;
        if (strcmp(argv[i], "--gemm-only") == 0) gemm_only = 1;
        else if (strcmp(argv[i], "--16") == 0) only16 = 1;
        else if (strcmp(argv[i], "--tf32") == 0) onlytf32 = 1;
        else if (strcmp(argv[i], "--attn") == 0) attn_only = 1;
        else if (strcmp(argv[i], "--f32") == 0) onlyf32 = gemm_only = 1;
    }
    memset(&d, 0, sizeof d);
    d.backend = GK_BACKEND_CUDA;
    if (gk_ctx_create(&d, &ctx) != GK_OK) { printf("bench_gemm: needs a GPU (%s)\n", gk_last_error(NULL)); return 0; }
    gk_device_info_get(ctx, &info);
    gkb_timer_init(&tm, ctx);
    gkb_json_open(&j, json);
    gkb_json_header(&j, "gemm", info.name, now);
    gkb_json_int(&j, "cublaslt", (long long)info.cublaslt_version);
    gkb_json_arr(&j, "results");
    { /* copy bandwidth, 1 GiB */
        int64_t n = (int64_t)1 << 28;
        gk_tensor a, b;
        double t[20];
        int r;
        gk_tensor_empty(ctx, GK_F32, 1, &n, &a);
        gk_tensor_empty(ctx, GK_F32, 1, &n, &b);
        gk_fill(ctx, a, 1.0);
        for (r = 0; r < 20; r++) {
            gkb_timer_start(&tm);
            gk_copy(ctx, b, a);
            gkb_timer_stop(&tm, &t[r]);
        }
        copy_gbs = 2.0 * (double)n * 4 / (gkb_kth(t, 20, 10) * 1e-3) / 1e9;
        printf("copy bandwidth %.0f GB/s\n", copy_gbs);
        gk_tensor_free(ctx, a);
        gk_tensor_free(ctx, b);
    }
    if (attn_only) goto attn;
    { /* GEMM */
        static const int64_t sizes[2] = { 4096, 8192 };
        static const gk_dtype dts[4] = { GK_BF16, GK_F16, GK_F32, GK_F32 };
        static const char *const names[4] = { "bf16", "f16", "tf32", "f32" };
        int si, di, be;
        /* be 0: gpukit's own kernel with the wgmma path off (tune.wg_mode = 0:
           the mma.sync kernel), 16-bit and tf32 on a 9.0 device only; 1:
           gpukit's own path as dispatched (wgmma on 9.0); 2: cuBLASLt; 3
           (tf32 only): as 1 with B a transposed view of [N, K] storage */
        int hop = info.cc_major == 9 && info.cc_minor == 0;
        static const char *const bnames[4] = { "gpukit_mma", "gpukit", "cublaslt", "gpukit_nt" };
        for (si = 0; si < 2; si++)
            for (di = 0; di < 4; di++)
                for (be = 0; be <= 3; be++) {
                    int64_t s = sizes[si], sh[2];
                    gk_tensor a, b, o, bv;
                    gk_matmul_desc md;
                    double ms, tf;
                    long wg0 = gk__tune(ctx)->wg_launches;
                    if ((be == 0 && (!hop || di == 3)) || (be == 3 && di != 2) || (only16 && di >= 2) || (onlytf32 && di != 2) || di == 3 || onlyf32)
                        continue; /* exact f32: the block below */
                    sh[0] = s; sh[1] = s;
                    gk_tensor_empty(ctx, dts[di], 2, sh, &a);
                    gk_tensor_empty(ctx, dts[di], 2, sh, &b);
                    gk_tensor_empty(ctx, dts[di], 2, sh, &o);
                    randn(a, s * s, dts[di]);
                    randn(b, s * s, dts[di]);
                    memset(&md, 0, sizeof md);
                    md.backend = be == 2 ? GK_MATMUL_CUBLASLT : GK_MATMUL_GPUKIT;
                    md.allow_tf32 = di == 2;
                    gk__tune(ctx)->wg_mode = be == 0 ? 0 : -1;
                    bv = b;
                    if (be == 3) gk_view_transpose(ctx, b, 0, 1, &bv);
                    ms = time_mm(o, a, bv, &md, 0, be != 2 && s == 8192 && (di >= 2 || be == 0) && !(di == 2 && be != 0) ? 5 : 15);
                    gk__tune(ctx)->wg_mode = -1;
                    if (bv.id != b.id) gk_tensor_free(ctx, bv);
                    tf = ms > 0 ? 2.0 * (double)s * s * s / (ms * 1e-3) / 1e12 : 0;
                    /* gpukit: the wgmma kernel (gemm_wg) for bf16 / f16 on sm_90, else the
                       mma.sync kernel (gemm_tc) for bf16 / f16 / tf32 on sm_80+, the SIMT kernel for f32 */
                    printf("gemm %-5s %5lld^3 %-10s %8.3f ms %7.1f TFLOP/s%s\n", names[di], (long long)s, bnames[be], ms, tf,
                           be != 2 && gk__tune(ctx)->wg_launches > wg0 ? " (wgmma)" : "");
                    gkb_json_rowf(&j, "{\"op\": \"gemm\", \"dtype\": \"%s\", \"size\": %lld, \"backend\": \"%s\", \"kernel\": \"%s\", \"ms\": %.4f, \"tflops\": %.2f}",
                                   names[di], (long long)s, bnames[be],
                                   be == 2 ? "cublaslt" : gk__tune(ctx)->wg_launches > wg0 ? "gemm_wg" : di == 3 ? "simt" : "gemm_tc", ms, tf);
                    gk_tensor_free(ctx, a); gk_tensor_free(ctx, b); gk_tensor_free(ctx, o);
                }
    }
    if (!only16 && !onlytf32) { /* exact f32: layouts NN / NT / TN x gpukit (gemm_f32.cu), its SIMT kernel (NN 4096 only), cuBLASLt */
        static const char *const lnames[3] = { "nn", "nt", "tn" };
        static const char *const bnames[5] = { "gpukit_simt", "gpukit", "cublaslt", "gpukit_v1", "gpukit_v0" };
        int si, lay, be;
        for (si = 0; si < 2; si++)
            for (lay = 0; lay < 3; lay++)
                for (be = 0; be < 5; be++) {
                    int64_t s = si ? 8192 : 4096, sh[2] = { s, s };
                    gk_tensor a, b, o, av, bv;
                    gk_matmul_desc md;
                    double ms, tf;
                    long sg0 = gk__tune(ctx)->sg_launches;
                    if (be == 0 && (si || lay)) continue;
                    if (be >= 3 && !onlyf32) continue; /* tile variants (tune.sg_variant): --f32 only */
                    gk_tensor_empty(ctx, GK_F32, 2, sh, &a);
                    gk_tensor_empty(ctx, GK_F32, 2, sh, &b);
                    gk_tensor_empty(ctx, GK_F32, 2, sh, &o);
                    randn(a, s * s, GK_F32);
                    randn(b, s * s, GK_F32);
                    av = a; bv = b;
                    if (lay == 1) gk_view_transpose(ctx, b, 0, 1, &bv);
                    if (lay == 2) gk_view_transpose(ctx, a, 0, 1, &av);
                    memset(&md, 0, sizeof md);
                    md.backend = be == 2 ? GK_MATMUL_CUBLASLT : GK_MATMUL_GPUKIT;
                    gk__tune(ctx)->sg_mode = be == 0 ? 0 : -1;
                    gk__tune(ctx)->sg_variant = be == 4 ? 0 : be == 3 ? 1 : -1; /* gpukit: the rule; _v0 / _v1 forced */
                    ms = time_mm(o, av, bv, &md, 0, s == 8192 ? 7 : be == 0 ? 5 : 15);
                    gk__tune(ctx)->sg_mode = -1;
                    gk__tune(ctx)->sg_variant = -1;
                    tf = ms > 0 ? 2.0 * (double)s * s * s / (ms * 1e-3) / 1e12 : 0;
                    printf("gemm f32   %5lld^3 %s %-11s %8.3f ms %7.1f TFLOP/s%s\n", (long long)s, lnames[lay], bnames[be], ms, tf,
                           gk__tune(ctx)->sg_launches > sg0 ? " (gemm_f32)" : "");
                    gkb_json_rowf(&j, "{\"op\": \"gemm\", \"dtype\": \"f32\", \"layout\": \"%s\", \"size\": %lld, \"backend\": \"%s\", \"kernel\": \"%s\", \"ms\": %.4f, \"tflops\": %.2f}",
                                   lnames[lay], (long long)s, bnames[be], be == 2 ? "cublaslt" : gk__tune(ctx)->sg_launches > sg0 ? "gemm_f32" : "simt", ms,
                                   tf);
                    if (av.id != a.id) gk_tensor_free(ctx, av);
                    if (bv.id != b.id) gk_tensor_free(ctx, bv);
                    gk_tensor_free(ctx, a); gk_tensor_free(ctx, b); gk_tensor_free(ctx, o);
                }
        { /* registers and local memory (spills) of the f32 kernels */
            int la, lb, od;
            for (la = 0; la < 2; la++)
                for (lb = 0; lb < 2; lb++)
                    for (od = 0; od < 5; od++) {
                        const char *kn = od < 4 ? gk__k_sg[la][lb][od] : gk__k_sg1[la][lb];
                        int regs = -1, local = -1;
                        gk__cu_function fn;
                        if (!kn) continue;
                        if (gk__lib_function(ctx, GK__MOD_GEMM_F32, kn, &fn, "bench_gemm") != GK_OK) { printf("  %s\n", gk_last_error(ctx)); continue; }
                        ctx->cu.FuncGetAttribute(&regs, GK__CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
                        ctx->cu.FuncGetAttribute(&local, GK__CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn);
                        printf("kernel %-24s %3d registers, %d bytes local (spills)\n", kn, regs, local);
                        gkb_json_rowf(&j, "{\"op\": \"kernel\", \"name\": \"%s\", \"regs\": %d, \"local_bytes\": %d, \"smem\": %d}", kn,
                                       regs, local, od == 4 ? 2 * 2 * 16 * 132 * 4 : 2 * 2 * 8 * 132 * 4);
                    }
        }
    }
    if (onlyf32) goto end;
    { /* registers and local memory (spills) of gpukit's tensor-core kernels,
         read through the library's own function cache (this file includes
         the implementation) */
        int di, ti, la, lb;
        for (di = only16 ? 1 : 0; di < (onlytf32 ? 1 : 3); di++)
            for (ti = 0; ti < (di == 0 ? 1 : 2); ti++)
                for (la = 0; la < 2; la++)
                    for (lb = 0; lb < 2; lb++) {
                        const char *kn = gk__k_tc[di][ti][la][lb];
                        int mod = di == 0 ? GK__MOD_GEMM_TC_TF32 : di == 1 ? GK__MOD_GEMM_TC_F16 : GK__MOD_GEMM_TC, regs = -1, local = -1;
                        gk__cu_function fn;
                        if (gk__lib_function(ctx, mod, kn, &fn, "bench_gemm") != GK_OK) { printf("  %s\n", gk_last_error(ctx)); continue; }
                        ctx->cu.FuncGetAttribute(&regs, GK__CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
                        ctx->cu.FuncGetAttribute(&local, GK__CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn);
                        printf("kernel %-24s %3d registers, %d bytes local (spills)\n", kn, regs, local);
                        gkb_json_rowf(&j, "{\"op\": \"kernel\", \"name\": \"%s\", \"regs\": %d, \"local_bytes\": %d, \"smem\": %d}", kn, regs, local,
                                       gk__tc_tile[di][ti][2]);
                    }
        /* the wgmma kernels (sm_90a module; 9.0 devices only): registers at entry
           (setmaxnreg then moves them from the producer to the consumers) */
        for (di = 0; di < 3 && info.cc_major == 9 && info.cc_minor == 0; di++)
            for (ti = 0; ti < 2; ti++)
                for (la = 0; la < 2; la++)
                    for (lb = 0; lb < 2; lb++) {
                        const char *kn = di == 2 ? gk__k_wg_f32[ti] : gk__k_wg[di][ti][la][lb];
                        if ((di == 2 && (la || lb || only16)) || (di < 2 && onlytf32)) continue; /* tf32: kk only */
                        int regs = -1, local = -1;
                        gk__cu_function fn;
                        if (gk__lib_function(ctx, GK__MOD_GEMM_WG, kn, &fn, "bench_gemm") != GK_OK) { printf("  %s\n", gk_last_error(ctx)); continue; }
                        ctx->cu.FuncGetAttribute(&regs, GK__CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
                        ctx->cu.FuncGetAttribute(&local, GK__CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn);
                        printf("kernel %-24s %3d registers, %d bytes local (spills)\n", kn, regs, local);
                        gkb_json_rowf(&j, "{\"op\": \"kernel\", \"name\": \"%s\", \"regs\": %d, \"local_bytes\": %d, \"smem\": %d}", kn, regs, local,
                                       gk__wg_tile[ti][1]);
                    }
    }
    if (gemm_only) goto end;
    { /* GEMV: x[1, K] @ W[N, K]^T, bf16 */
        static const int64_t shapes[3][2] = { { 4096, 4096 }, { 14336, 4096 }, { 151936, 896 } };
        int si, be;
        for (si = 0; si < 3; si++)
            for (be = 1; be <= 2; be++) {
                int64_t N = shapes[si][0], K = shapes[si][1], ws[2] = { N, K }, xs[2] = { 1, K }, os[2] = { 1, N };
                gk_tensor w, x, o;
                gk_matmul_desc md;
                double ms, gbs;
                gk_tensor_empty(ctx, GK_BF16, 2, ws, &w);
                gk_tensor_empty(ctx, GK_BF16, 2, xs, &x);
                gk_tensor_empty(ctx, GK_BF16, 2, os, &o);
                randn(w, N * K, GK_BF16);
                randn(x, K, GK_BF16);
                memset(&md, 0, sizeof md);
                md.backend = (gk_matmul_backend)be;
                ms = time_mm(o, x, w, &md, 1, 41);
                gbs = ms > 0 ? (double)N * K * 2 / (ms * 1e-3) / 1e9 : 0;
                printf("gemv bf16 %6lldx%-5lld %-8s %8.4f ms %7.0f GB/s (%.0f%% of copy)\n", (long long)N, (long long)K, be == 1 ? "gpukit" : "cublasLt", ms,
                       gbs, 100 * gbs / copy_gbs);
                gkb_json_rowf(&j, "{\"op\": \"gemv\", \"dtype\": \"bf16\", \"N\": %lld, \"K\": %lld, \"backend\": \"%s\", \"ms\": %.5f, \"GBs\": %.1f, \"of_copy\": %.3f}",
                               (long long)N, (long long)K, be == 1 ? "gpukit" : "cublaslt", ms, gbs, gbs / copy_gbs);
                gk_tensor_free(ctx, w); gk_tensor_free(ctx, x); gk_tensor_free(ctx, o);
            }
    }
attn:
    { /* attention: causal prefill B=8 H=32 D=128 bf16; decode over an 8k cache (GQA 32/8) */
        static const int64_t seqs[2] = { 1024, 4096 };
        int si, r, mode, hop = info.cc_major == 9 && info.cc_minor == 0;
        double t[16], ms;
        /* mode 0 / 1: prefill as dispatched; 2: decode; 3 / 4: prefill with flash_wg off;
           5..12: flash_wg with tile groups of gs[(mode - 5) / 2] heads (9.0 only;
           256 = H B: every head at one q tile, the first order) */
        static const int64_t gs[4] = { 256, 2, 4, 16 };
        for (mode = 0; mode < 13; mode++) {
            long fw0 = gk__tune(ctx)->fwg_launches;
            char bname[32];
            si = mode == 3 ? 0 : mode == 4 ? 1 : mode >= 5 ? (mode - 5) % 2 : mode;
            if (mode >= 3 && !hop) continue;
            gk__tune(ctx)->fwg_mode = mode == 3 || mode == 4 ? 0 : -1;
            gk__tune(ctx)->fwg_group = mode >= 5 ? gs[(mode - 5) / 2] : 0;
            if (mode >= 5) snprintf(bname, sizeof bname, "gpukit_g%d", (int)gs[(mode - 5) / 2]);
            else snprintf(bname, sizeof bname, "%s", mode >= 3 ? "gpukit_mma" : "gpukit");
            int64_t B = si < 2 ? 8 : 1, S = si < 2 ? seqs[si] : 1, Skv = si < 2 ? seqs[si] : 8192, H = 32, Hk = si < 2 ? 32 : 8, Dh = 128;
            int64_t qs[4] = { B, S, H, Dh }, ks[4] = { B, Skv, Hk, Dh };
            gk_tensor q, k, v, o;
            gk_attention_desc ad;
            double med, val;
            gk_tensor_empty(ctx, GK_BF16, 4, qs, &q);
            gk_tensor_empty(ctx, GK_BF16, 4, ks, &k);
            gk_tensor_empty(ctx, GK_BF16, 4, ks, &v);
            gk_tensor_empty(ctx, GK_BF16, 4, qs, &o);
            randn(q, B * S * H * Dh, GK_BF16);
            randn(k, B * Skv * Hk * Dh, GK_BF16);
            randn(v, B * Skv * Hk * Dh, GK_BF16);
            memset(&ad, 0, sizeof ad);
            ad.causal = 1;
            if (gk_attention(ctx, o, q, k, v, &ad) != GK_OK) { printf("  %s\n", gk_last_error(ctx)); break; }
            for (r = 0; r < 7; r++) {
                gkb_timer_start(&tm);
                gk_attention(ctx, o, q, k, v, &ad);
                gkb_timer_stop(&tm, &t[r]);
            }
            med = gkb_median(t, 7);
            if (si == 2) { /* decode: also 20 calls back to back (a decode loop's steady state: no idle gap before each call) */
                gkb_timer_start(&tm);
                for (r = 0; r < 20; r++) gk_attention(ctx, o, q, k, v, &ad);
                gkb_timer_stop(&tm, &ms);
                val = 2.0 * (double)Skv * Hk * Dh * 2 / (ms / 20 * 1e-3) / 1e9;
                printf("decode attention bf16 cache 8192 H32/8 D128 %s back-to-back %8.4f ms %7.0f GB/s (%.0f%% of copy)\n", bname, ms / 20, val, 100 * val / copy_gbs);
                gkb_json_rowf(&j, "{\"op\": \"attention_decode_b2b\", \"dtype\": \"bf16\", \"kv\": 8192, \"backend\": \"%s\", \"ms\": %.5f, \"GBs\": %.1f, \"of_copy\": %.3f}", bname, ms / 20, val, val / copy_gbs);
            }
            gk__tune(ctx)->fwg_mode = -1;
            gk__tune(ctx)->fwg_group = 0;
            if (si < 2) {
                const char *kn = gk__tune(ctx)->fwg_launches > fw0 ? "flash_wg" : "flash";
                val = 4.0 * B * H * (double)S * S * Dh / 2 / (med * 1e-3) / 1e12;
                printf("attention causal bf16 B8 H32 D128 S%-5lld %-10s %8.3f ms %7.1f TFLOP/s (%s)\n", (long long)S, bname, med, val, kn);
                gkb_json_rowf(&j, "{\"op\": \"attention_causal\", \"dtype\": \"bf16\", \"S\": %lld, \"backend\": \"%s\", \"kernel\": \"%s\", \"ms\": %.4f, \"tflops\": %.2f}",
                               (long long)S, bname, kn, med, val);
            } else {
                val = 2.0 * (double)Skv * Hk * Dh * 2 / (med * 1e-3) / 1e9;
                printf("decode attention bf16 cache 8192 H32/8 D128 %s %8.4f ms %7.0f GB/s (%.0f%% of copy)\n", bname, med, val, 100 * val / copy_gbs);
                gkb_json_rowf(&j, "{\"op\": \"attention_decode\", \"dtype\": \"bf16\", \"kv\": 8192, \"backend\": \"%s\", \"ms\": %.5f, \"GBs\": %.1f, \"of_copy\": %.3f}", bname, med, val, val / copy_gbs);
            }
            gk_tensor_free(ctx, q); gk_tensor_free(ctx, k); gk_tensor_free(ctx, v); gk_tensor_free(ctx, o);
        }
        /* registers / local memory of the prefill kernels (wgmma ones: at entry; setmaxnreg moves them) */
        for (mode = 0; mode < 3; mode++) {
            static const char *const kns[3] = { "gk_fwg_bf16_128", "gk_flash8_bf16_128", "gk_flash_bf16_128" };
            int regs = -1, local = -1, mod = mode < 1 ? GK__MOD_FLASH_WG : GK__MOD_FLASH;
            gk__cu_function fn;
            if (mode < 1 && !hop) continue;
            if (gk__lib_function(ctx, mod, kns[mode], &fn, "bench_gemm") != GK_OK) { printf("  %s\n", gk_last_error(ctx)); continue; }
            ctx->cu.FuncGetAttribute(&regs, GK__CU_FUNC_ATTRIBUTE_NUM_REGS, fn);
            ctx->cu.FuncGetAttribute(&local, GK__CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn);
            printf("kernel %-24s %3d registers, %d bytes local (spills)\n", kns[mode], regs, local);
            gkb_json_rowf(&j, "{\"op\": \"kernel\", \"name\": \"%s\", \"regs\": %d, \"local_bytes\": %d}", kns[mode], regs, local);
        }
    }
end:
    gkb_json_end(&j); /* results */
    gkb_json_num(&j, "copy_GBs", copy_gbs, 1);
    gkb_json_close(&j);
    gk_ctx_destroy(ctx);
    return 0;
}
