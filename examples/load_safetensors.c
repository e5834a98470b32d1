/* load_safetensors.c - opens a .safetensors file, a sharded set (its
   model.safetensors.index.json) or a model folder, lists the tensors and
   uploads every one to the device through the memory pool, with a progress
   bar fed by gk_st_upload's progress callback.

     load_safetensors PATH [--dtype f32|bf16|...] [--list] [--cpu] */
#define GPUKIT_IMPLEMENTATION
#include "gpukit.h"
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct { uint64_t before, all; int shown; } progress;

/* called with (bytes copied of this tensor, its size) after every piece */
static void on_progress(uint64_t done, uint64_t total, void *user) {
    progress *p = (progress *)user;
    uint64_t now = p->before + done;
    int width = 40, filled = p->all ? (int)((double)now / (double)p->all * width) : width, i;
    (void)total;
    if (filled == p->shown && now != p->all) return;
    p->shown = filled;
    fprintf(stderr, "\r[");
    for (i = 0; i < width; i++) fputc(i < filled ? '#' : '.', stderr);
    fprintf(stderr, "] %5.1f%%  %.1f / %.1f MB", p->all ? 100.0 * (double)now / (double)p->all : 100.0, (double)now / 1e6, (double)p->all / 1e6);
    fflush(stderr);
}

int main(int argc, char **argv) {
    const char *path = NULL;
    gk_dtype want = GK_DTYPE_COUNT; /* keep each tensor's own dtype */
    int list = 0, i, cpu = 0;
    gk_safetensors *st;
    gk_ctx *ctx;
    gk_ctx_desc desc;
    size_t n, k;
    progress pr = { 0, 0, -1 };
    gk_tensor *ts;
    gk_pool_stats ps;
    double t0;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--list") == 0) list = 1;
        else if (strcmp(argv[i], "--cpu") == 0) cpu = 1;
        else if (strcmp(argv[i], "--dtype") == 0 && i + 1 < argc) {
            if (gk_dtype_from_name(argv[++i], &want) != GK_OK) { fprintf(stderr, "%s\n", gk_last_error(NULL)); return 2; }
        } else path = argv[i];
    }
    if (!path) {
        fprintf(stderr, "usage: load_safetensors PATH [--dtype f32|bf16|f16|...] [--list] [--cpu]\n");
        return 2;
    }
    if (gk_st_open(path, &st) != GK_OK) { fprintf(stderr, "%s\n", gk_last_error(NULL)); return 1; }
    n = gk_st_count(st);
    for (k = 0; k < n; k++) pr.all += gk_st_tensor(st, k)->nbytes;
    printf("%s: %zu tensors in %zu file%s, %.1f MB\n", path, n, gk_st_file_count(st), gk_st_file_count(st) == 1 ? "" : "s", (double)pr.all / 1e6);
    if (list)
        for (k = 0; k < n; k++) {
            const gk_st_tensor_info *t = gk_st_tensor(st, k);
            int d;
            printf("  %-50s %-8s [", t->name, gk_st_dtype_name(t->dtype));
            for (d = 0; d < t->ndim; d++) printf(d ? ", %lld" : "%lld", (long long)t->shape[d]);
            printf("]\n");
        }
    memset(&desc, 0, sizeof desc);
    if (cpu) desc.backend = GK_BACKEND_CPU;
    if (gk_ctx_create(&desc, &ctx) != GK_OK) { fprintf(stderr, "%s\n", gk_last_error(NULL)); gk_st_close(st); return 1; }
    ts = (gk_tensor *)calloc(n ? n : 1, sizeof *ts);
    t0 = (double)clock() / CLOCKS_PER_SEC;
    for (k = 0; k < n; k++) {
        const gk_st_tensor_info *t = gk_st_tensor(st, k);
        gk_dtype dt = want;
        if (dt == GK_DTYPE_COUNT && !gk_st_gk_dtype(t->dtype, &dt)) dt = GK_I64; /* BOOL, U16 ...: widened */
        if (gk_st_upload(ctx, st, t->name, dt, &ts[k], on_progress, &pr) != GK_OK) {
            fprintf(stderr, "\n%s: %s\n", t->name, gk_last_error(ctx));
            gk_ctx_destroy(ctx);
            gk_st_close(st);
            free(ts);
            return 1;
        }
        pr.before += t->nbytes;
    }
    on_progress(0, 0, &pr);
    gk_sync(ctx);
    fprintf(stderr, "\n");
    gk_pool_stats_get(ctx, &ps);
    printf("uploaded %zu tensors (%.1f MB) in %.2f s of CPU time; pool holds %.1f MB\n", n, (double)pr.all / 1e6,
           (double)clock() / CLOCKS_PER_SEC - t0, (double)ps.used / 1e6);
    gk_ctx_destroy(ctx);
    gk_st_close(st);
    free(ts);
    return 0;
}
