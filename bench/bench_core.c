/* bench_core - runtime-core benchmarks, each side by side with its peer in
   the same run (medians of repeated timings):
     pool      cached alloc+free of a 1 MiB tensor   vs cuMemAlloc+cuMemFree
     jit       module from the memory cache, from the disk cache, cold NVRTC compile
     stream    f32 add of 256 MiB tensors            vs device-to-device copy bandwidth
   Writes JSON (commit, device, date) to the file given with --json. */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkb.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const int64_t sizes[4] = { 1 << 10, 1 << 18, (int64_t)1 << 24, (int64_t)1 << 26 }; /* f32: 4 KiB .. 256 MiB */
#define CK(x) GKB_CHECK(ctx, x)

int main(int argc, char **argv) {
    gk_ctx *ctx;
    gk_ctx_desc d;
    gk_device_info info;
    const char *json = gkb_json_arg(argc, argv);
    static double t[200000];
    double pool_sz_us[4], drv_sz_us[4], pool_us, drv_us, mem_us, disk_ms, cold_ms, lib_disk_ms, copy_gbs, add_gbs, cast_gbs, fill_gbs, launch_us;
    int i, r;
    char cache[256];
    time_t now = time(NULL);
    memset(&d, 0, sizeof d);
    d.backend = GK_BACKEND_CUDA;
    if (gk_ctx_create(&d, &ctx) != GK_OK) { printf("bench_core: needs a GPU (%s)\n", gk_last_error(NULL)); return 0; }
    gk_device_info_get(ctx, &info);
    printf("bench_core on %s (%s), driver %d, NVRTC %d\n", info.name, info.arch, info.driver_version, info.nvrtc_version);

    /* ---- pool vs driver: batches of calls, median over batches ---- */
    {
        int si;
        gk_tensor x;
        gk__cu_ptr p;
        for (si = 0; si < 4; si++) {
            int64_t n = sizes[si];
            int nb = 200, per = 500, dnb = 20, dper = si < 2 ? 50 : 5, k;
            CK(gk_tensor_empty(ctx, GK_F32, 1, &n, &x)); /* warm the class */
            CK(gk_tensor_free(ctx, x));
            for (r = 0; r < nb; r++) {
                double t0 = gkb_now_ms();
                for (k = 0; k < per; k++) {
                    gk_tensor_empty(ctx, GK_F32, 1, &n, &x);
                    gk_tensor_free(ctx, x);
                }
                t[r] = (gkb_now_ms() - t0) * 1000.0 / per;
            }
            pool_sz_us[si] = gkb_median(t, nb);
            for (r = 0; r < dnb; r++) {
                double t0 = gkb_now_ms();
                for (k = 0; k < dper; k++) {
                    if (ctx->cu.MemAlloc(&p, (size_t)n * 4) != 0) { printf("cuMemAlloc failed\n"); return 1; }
                    ctx->cu.MemFree(p);
                }
                t[r] = (gkb_now_ms() - t0) * 1000.0 / dper;
            }
            drv_sz_us[si] = gkb_median(t, dnb);
            printf("alloc+free %9lld B: pool %.3f us   cuMemAlloc+cuMemFree %.2f us   (%.0fx)\n", (long long)n * 4, pool_sz_us[si],
                   drv_sz_us[si], drv_sz_us[si] / pool_sz_us[si]);
        }
        pool_us = pool_sz_us[1];
        drv_us = drv_sz_us[1];
    }

    /* ---- JIT caches ---- */
    {
        gk_ctx *c2;
        gk_module *m;
        gk_module_desc md;
        char src[256];
        int k;
        snprintf(cache, sizeof cache, "/tmp/gpukit-bench-cache-%ld", (long)now);
        memset(&md, 0, sizeof md);
        md.source = src;
        for (k = 0; k < 3; k++) { /* cold: a new source each time */
            gk_ctx_desc d2 = d;
            double t0;
            d2.cache_dir = cache;
            snprintf(src, sizeof src, "extern \"C\" __global__ void k(float *p, int n) { int i = threadIdx.x; if (i < n) p[i] = p[i] * %d.0f + 1.0f; }\n", k + (int)(now % 1000) * 10);
            CK(gk_ctx_create(&d2, &c2));
            t0 = gkb_now_ms();
            if (gk_module_create(c2, &md, &m) != GK_OK) { printf("cold: %s\n", gk_last_error(c2)); return 1; }
            t[k] = gkb_now_ms() - t0;
            gk_ctx_destroy(c2);
        }
        cold_ms = gkb_median(t, 3);
        for (k = 0; k < 7; k++) { /* from disk: a fresh context each time */
            gk_ctx_desc d2 = d;
            double t0;
            d2.cache_dir = cache;
            CK(gk_ctx_create(&d2, &c2));
            t0 = gkb_now_ms();
            if (gk_module_create(c2, &md, &m) != GK_OK) { printf("disk: %s\n", gk_last_error(c2)); return 1; }
            t[k] = gkb_now_ms() - t0;
            for (r = 0; r < 20000; r++) { /* from memory: the same context again */
                double t1 = gkb_now_ms();
                gk_module *m2;
                gk_module_create(c2, &md, &m2);
                t[7 + r] = (gkb_now_ms() - t1) * 1000.0;
                gk_module_destroy(c2, m2);
            }
            gk_ctx_destroy(c2);
        }
        mem_us = gkb_median(t + 7, 20000);
        disk_ms = gkb_median(t, 7);
        /* a library module (cast.cu, ~1.5 MB cubin) from the carried cache */
        for (k = 0; k < 5; k++) {
            gk_tensor a, b;
            gk__cu_function fn = NULL;
            int64_t n = 256;
            double t0;
            CK(gk_ctx_create(&d, &c2));
            gk_tensor_empty(c2, GK_F32, 1, &n, &a);
            gk_tensor_empty(c2, GK_BF16, 1, &n, &b);
            t0 = gkb_now_ms();
            if (gk__lib_function(c2, GK__MOD_CAST, "gk_cast_f32_bf16", &fn, "bench") != GK_OK) {
                printf("library module: %s\n", gk_last_error(c2));
                return 1;
            }
            t[k] = gkb_now_ms() - t0;
            gk_ctx_destroy(c2);
        }
        lib_disk_ms = gkb_median(t, 5);
        printf("JIT module: memory hit %.2f us   disk hit %.3f ms (library cast.cu %.2f ms)   cold compile %.1f ms\n", mem_us, disk_ms,
               lib_disk_ms, cold_ms);
    }

    /* ---- bandwidth: f32 add vs device-to-device copy, 256 MiB tensors ---- */
    {
        int64_t n = (int64_t)64 << 20; /* 256 MiB of f32 */
        gk_tensor a, b, c, h;
        gkb_timer tm;
        size_t bytes = (size_t)n * 4;
        uint64_t pa, pc;
        CK(gk_tensor_empty(ctx, GK_F32, 1, &n, &a));
        CK(gk_tensor_empty(ctx, GK_F32, 1, &n, &b));
        CK(gk_tensor_empty(ctx, GK_F32, 1, &n, &c));
        CK(gk_tensor_empty(ctx, GK_BF16, 1, &n, &h));
        CK(gk_fill(ctx, a, 1.25));
        CK(gk_fill(ctx, b, -0.5));
        CK(gkb_timer_init(&tm, ctx));
        CK(gk_tensor_ptr(ctx, a, &pa));
        CK(gk_tensor_ptr(ctx, c, &pc));
#define TIME(label, expr, out_gbs, moved)                                                   \
        for (r = 0; r < 25; r++) {                                                          \
            CK(gkb_timer_start(&tm));                                                       \
            expr;                                                                           \
            CK(gkb_timer_stop(&tm, &t[r]));                                                 \
        }                                                                                   \
        out_gbs = (double)(moved) / (gkb_median(t + 3, 22) * 1e-3) / 1e9;                       \
        printf("%-34s %8.1f GB/s\n", label, out_gbs)
        TIME("device-to-device copy (read+write)", ctx->cu.MemcpyDtoDAsync(pc, pa, bytes, ctx->cur_stream->cu), copy_gbs, 2 * bytes);
        TIME("gk_add f32 (2 reads + 1 write)", CK(gk_add(ctx, c, a, b)), add_gbs, 3 * bytes);
        TIME("gk_cast f32->bf16", CK(gk_cast(ctx, h, a)), cast_gbs, bytes + bytes / 2);
        TIME("gk_fill f32", CK(gk_fill(ctx, c, 3.0)), fill_gbs, bytes);
        printf("gk_add / copy bandwidth: %.1f%%\n", 100.0 * add_gbs / copy_gbs);
        gk_tensor_free(ctx, a); gk_tensor_free(ctx, b); gk_tensor_free(ctx, c); gk_tensor_free(ctx, h);
        gkb_timer_free(&tm);
    }
    /* ---- host cost of issuing one op ---- */
    {
        int64_t n = 1024;
        gk_tensor a, b;
        CK(gk_tensor_empty(ctx, GK_F32, 1, &n, &a));
        CK(gk_tensor_empty(ctx, GK_F32, 1, &n, &b));
        for (r = 0; r < 20000; r++) {
            double t0 = gkb_now_ms();
            gk_add(ctx, b, a, a);
            t[r] = (gkb_now_ms() - t0) * 1000.0;
            if (r % 1000 == 999) gk_sync(ctx);
        }
        launch_us = gkb_median(t, 20000);
        printf("host time to issue gk_add (1024 floats): %.2f us\n", launch_us);
        gk_tensor_free(ctx, a); gk_tensor_free(ctx, b);
    }
    if (json) {
        gkb_json j;
        if (gkb_json_open(&j, json) == 0) {
            gkb_json_header(&j, "core", info.name, now);
            gkb_json_str(&j, "arch", info.arch);
            gkb_json_int(&j, "driver", info.driver_version);
            gkb_json_int(&j, "nvrtc", info.nvrtc_version);
            gkb_json_num(&j, "pool_alloc_free_1MiB_us", pool_us, 4);
            gkb_json_num(&j, "driver_alloc_free_1MiB_us", drv_us, 3);
            gkb_json_num(&j, "pool_speedup", drv_us / pool_us, 1);
            gkb_json_arr(&j, "alloc_free_sweep");
            for (i = 0; i < 4; i++) {
                gkb_json_row(&j, NULL);
                gkb_json_int(&j, "bytes", (long long)sizes[i] * 4);
                gkb_json_num(&j, "pool_us", pool_sz_us[i], 4);
                gkb_json_num(&j, "driver_us", drv_sz_us[i], 3);
                gkb_json_end(&j);
            }
            gkb_json_end(&j);
            gkb_json_num(&j, "jit_memory_hit_us", mem_us, 3);
            gkb_json_num(&j, "jit_disk_hit_ms", disk_ms, 4);
            gkb_json_num(&j, "jit_library_module_disk_ms", lib_disk_ms, 3);
            gkb_json_num(&j, "jit_cold_compile_ms", cold_ms, 2);
            gkb_json_num(&j, "copy_GBs", copy_gbs, 1);
            gkb_json_num(&j, "add_f32_GBs", add_gbs, 1);
            gkb_json_num(&j, "add_over_copy", add_gbs / copy_gbs, 4);
            gkb_json_num(&j, "cast_f32_bf16_GBs", cast_gbs, 1);
            gkb_json_num(&j, "fill_f32_GBs", fill_gbs, 1);
            gkb_json_num(&j, "issue_add_us", launch_us, 3);
            gkb_json_close(&j);
        }
    }
    gk_ctx_destroy(ctx);
    return 0;
}
