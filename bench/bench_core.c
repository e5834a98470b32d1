/* bench_core - runtime-core benchmarks, each side by side with its peer in
   the same run (medians of repeated timings):
     pool      cached alloc+free of a 1 MiB tensor   vs cuMemAlloc+cuMemFree
     jit       module from the memory cache, from the disk cache, cold NVRTC compile
     stream    f32 add of 256 MiB tensors            vs device-to-device copy bandwidth
   Writes JSON (commit, device, date) to the file given with --json. */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static const int64_t sizes[4] = { 1 << 10, 1 << 18, (int64_t)1 << 24, (int64_t)1 << 26 }; /* f32: 4 KiB .. 256 MiB */
static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
#define CK(x)                                                                             \
    do {                                                                                  \
        gk_status s_ = (x);                                                               \
        if (s_ != GK_OK) { printf("%s: %s\n", #x, gk_last_error(ctx)); return 1; }        \
    } while (0)

int main(int argc, char **argv) {
    gk_ctx *ctx;
    gk_ctx_desc d;
    gk_device_info info;
    const char *json = NULL, *commit = getenv("GK_COMMIT");
    static double t[200000];
    double pool_sz_us[4], drv_sz_us[4], pool_us, drv_us, mem_us, disk_ms, cold_ms, lib_disk_ms, copy_gbs, add_gbs, cast_gbs, fill_gbs, launch_us;
    int i, r;
    char cache[256], date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    for (i = 1; i < argc; i++)
        if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) json = argv[++i];
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
                double t0 = gk__now_ms();
                for (k = 0; k < per; k++) {
                    gk_tensor_empty(ctx, GK_F32, 1, &n, &x);
                    gk_tensor_free(ctx, x);
                }
                t[r] = (gk__now_ms() - t0) * 1000.0 / per;
            }
            pool_sz_us[si] = median(t, nb);
            for (r = 0; r < dnb; r++) {
                double t0 = gk__now_ms();
                for (k = 0; k < dper; k++) {
                    if (ctx->cu.MemAlloc(&p, (size_t)n * 4) != 0) { printf("cuMemAlloc failed\n"); return 1; }
                    ctx->cu.MemFree(p);
                }
                t[r] = (gk__now_ms() - t0) * 1000.0 / dper;
            }
            drv_sz_us[si] = median(t, dnb);
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
            t0 = gk__now_ms();
            if (gk_module_create(c2, &md, &m) != GK_OK) { printf("cold: %s\n", gk_last_error(c2)); return 1; }
            t[k] = gk__now_ms() - t0;
            gk_ctx_destroy(c2);
        }
        cold_ms = median(t, 3);
        for (k = 0; k < 7; k++) { /* from disk: a fresh context each time */
            gk_ctx_desc d2 = d;
            double t0;
            d2.cache_dir = cache;
            CK(gk_ctx_create(&d2, &c2));
            t0 = gk__now_ms();
            if (gk_module_create(c2, &md, &m) != GK_OK) { printf("disk: %s\n", gk_last_error(c2)); return 1; }
            t[k] = gk__now_ms() - t0;
            for (r = 0; r < 20000; r++) { /* from memory: the same context again */
                double t1 = gk__now_ms();
                gk_module *m2;
                gk_module_create(c2, &md, &m2);
                t[7 + r] = (gk__now_ms() - t1) * 1000.0;
                gk_module_destroy(c2, m2);
            }
            gk_ctx_destroy(c2);
        }
        mem_us = median(t + 7, 20000);
        disk_ms = median(t, 7);
        /* a library module (cast.cu, ~1.5 MB cubin) from the carried cache */
        for (k = 0; k < 5; k++) {
            gk_tensor a, b;
            int64_t n = 256;
            double t0;
            CK(gk_ctx_create(&d, &c2));
            gk_tensor_empty(c2, GK_F32, 1, &n, &a);
            gk_tensor_empty(c2, GK_BF16, 1, &n, &b);
            t0 = gk__now_ms();
            if (gk__lib_function(c2, GK__MOD_CAST, "gk_cast_f32_bf16", &(gk__cu_function){ 0 }, "bench") != GK_OK) {
                printf("library module: %s\n", gk_last_error(c2));
                return 1;
            }
            t[k] = gk__now_ms() - t0;
            gk_ctx_destroy(c2);
        }
        lib_disk_ms = median(t, 5);
        printf("JIT module: memory hit %.2f us   disk hit %.3f ms (library cast.cu %.2f ms)   cold compile %.1f ms\n", mem_us, disk_ms,
               lib_disk_ms, cold_ms);
    }

    /* ---- bandwidth: f32 add vs device-to-device copy, 256 MiB tensors ---- */
    {
        int64_t n = (int64_t)64 << 20; /* 256 MiB of f32 */
        gk_tensor a, b, c, h;
        gk_event *e0, *e1;
        float ms;
        size_t bytes = (size_t)n * 4;
        uint64_t pa, pc;
        CK(gk_tensor_empty(ctx, GK_F32, 1, &n, &a));
        CK(gk_tensor_empty(ctx, GK_F32, 1, &n, &b));
        CK(gk_tensor_empty(ctx, GK_F32, 1, &n, &c));
        CK(gk_tensor_empty(ctx, GK_BF16, 1, &n, &h));
        CK(gk_fill(ctx, a, 1.25));
        CK(gk_fill(ctx, b, -0.5));
        CK(gk_event_create(ctx, &e0));
        CK(gk_event_create(ctx, &e1));
        CK(gk_tensor_ptr(ctx, a, &pa));
        CK(gk_tensor_ptr(ctx, c, &pc));
#define TIME(label, expr, out_gbs, moved)                                                   \
        for (r = 0; r < 25; r++) {                                                          \
            CK(gk_event_record(ctx, e0, NULL));                                             \
            expr;                                                                           \
            CK(gk_event_record(ctx, e1, NULL));                                             \
            CK(gk_event_sync(ctx, e1));                                                     \
            CK(gk_event_elapsed_ms(ctx, e0, e1, &ms));                                      \
            t[r] = ms;                                                                      \
        }                                                                                   \
        out_gbs = (double)(moved) / (median(t + 3, 22) * 1e-3) / 1e9;                       \
        printf("%-34s %8.1f GB/s\n", label, out_gbs)
        TIME("device-to-device copy (read+write)", ctx->cu.MemcpyDtoDAsync(pc, pa, bytes, ctx->cur_stream->cu), copy_gbs, 2 * bytes);
        TIME("gk_add f32 (2 reads + 1 write)", CK(gk_add(ctx, c, a, b)), add_gbs, 3 * bytes);
        TIME("gk_cast f32->bf16", CK(gk_cast(ctx, h, a)), cast_gbs, bytes + bytes / 2);
        TIME("gk_fill f32", CK(gk_fill(ctx, c, 3.0)), fill_gbs, bytes);
        printf("gk_add / copy bandwidth: %.1f%%\n", 100.0 * add_gbs / copy_gbs);
        gk_tensor_free(ctx, a); gk_tensor_free(ctx, b); gk_tensor_free(ctx, c); gk_tensor_free(ctx, h);
    }
    /* ---- host cost of issuing one op ---- */
    {
        int64_t n = 1024;
        gk_tensor a, b;
        CK(gk_tensor_empty(ctx, GK_F32, 1, &n, &a));
        CK(gk_tensor_empty(ctx, GK_F32, 1, &n, &b));
        for (r = 0; r < 20000; r++) {
            double t0 = gk__now_ms();
            gk_add(ctx, b, a, a);
            t[r] = (gk__now_ms() - t0) * 1000.0;
            if (r % 1000 == 999) gk_sync(ctx);
        }
        launch_us = median(t, 20000);
        printf("host time to issue gk_add (1024 floats): %.2f us\n", launch_us);
        gk_tensor_free(ctx, a); gk_tensor_free(ctx, b);
    }
    if (json) {
        FILE *f = fopen(json, "w");
        if (f) {
            fprintf(f, "{\n  \"bench\": \"core\",\n  \"commit\": \"%s\",\n  \"device\": \"%s\",\n  \"arch\": \"%s\",\n  \"driver\": %d,\n  \"nvrtc\": %d,\n  \"date\": \"%s\",\n",
                    commit ? commit : "unknown", info.name, info.arch, info.driver_version, info.nvrtc_version, date);
            fprintf(f, "  \"pool_alloc_free_1MiB_us\": %.4f,\n  \"driver_alloc_free_1MiB_us\": %.3f,\n  \"pool_speedup\": %.1f,\n", pool_us, drv_us, drv_us / pool_us);
            fprintf(f, "  \"alloc_free_sweep\": [");
            for (i = 0; i < 4; i++)
                fprintf(f, "%s{\"bytes\": %lld, \"pool_us\": %.4f, \"driver_us\": %.3f}", i ? ", " : "", (long long)sizes[i] * 4, pool_sz_us[i], drv_sz_us[i]);
            fprintf(f, "],\n");
            fprintf(f, "  \"jit_memory_hit_us\": %.3f,\n  \"jit_disk_hit_ms\": %.4f,\n  \"jit_library_module_disk_ms\": %.3f,\n  \"jit_cold_compile_ms\": %.2f,\n", mem_us, disk_ms, lib_disk_ms, cold_ms);
            fprintf(f, "  \"copy_GBs\": %.1f,\n  \"add_f32_GBs\": %.1f,\n  \"add_over_copy\": %.4f,\n  \"cast_f32_bf16_GBs\": %.1f,\n  \"fill_f32_GBs\": %.1f,\n  \"issue_add_us\": %.3f\n}\n",
                    copy_gbs, add_gbs, add_gbs / copy_gbs, cast_gbs, fill_gbs, launch_us);
            fclose(f);
        }
    }
    gk_ctx_destroy(ctx);
    return 0;
}
