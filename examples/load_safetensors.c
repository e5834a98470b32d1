/* load_safetensors.c - opens a .safetensors file, a sharded set (its
   model.safetensors.index.json) or a model folder, lists the tensors and
   uploads every one to the device through the memory pool, with a progress
   bar fed by gk_st_upload's progress callback.

     load_safetensors PATH [--dtype f32|bf16|...] [--list] [--cpu]

   --dtype converts every tensor to that gpukit dtype (default: each keeps its
   own; BOOL, U16 ... are widened to i64). An unknown option, a missing or
   unknown value is a usage error (exit 2); a file that cannot be read exits 1. */
#define GPUKIT_IMPLEMENTATION
#include "gpukit.h"
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the unit that fits a byte count (B, KB, MB, GB): its size in bytes, and its name */
static double unit_of(uint64_t n, const char **unit) {
    static const char *const names[] = { "B", "KB", "MB", "GB" };
    double div = 1.0;
    int u = 0;
    while (u < 3 && (double)n >= div * 1000.0) { div *= 1000.0; u++; }
    *unit = names[u];
    return div;
}
/* "12 B", "1.5 MB" */
static void print_size(FILE *f, uint64_t n) {
    const char *unit;
    double div = unit_of(n, &unit);
    if (div == 1.0) fprintf(f, "%llu B", (unsigned long long)n);
    else fprintf(f, "%.1f %s", (double)n / div, unit);
}

/* the bar: one line, redrawn only when the shown tenth of a percent grows, ended once */
typedef struct progress { uint64_t before, all, tensor; int shown, ended; } progress;

static void bar_draw(progress *p, uint64_t now) {
    const char *unit;
    double div = unit_of(p->all, &unit);
    int pm, i;
    if (p->ended) return;
    if (now > p->all) now = p->all;
    pm = p->all ? (int)((double)now / (double)p->all * 1000.0) : 1000;
    if (pm > 1000) pm = 1000;
    if (pm <= p->shown) return; /* monotone */
    p->shown = pm;
    fprintf(stderr, "\r[");
    for (i = 0; i < 40; i++) fputc(i < pm * 40 / 1000 ? '#' : '.', stderr);
    if (div == 1.0) fprintf(stderr, "] %5.1f%%  %llu / %llu B", pm / 10.0, (unsigned long long)now, (unsigned long long)p->all);
    else fprintf(stderr, "] %5.1f%%  %.1f / %.1f %s", pm / 10.0, (double)now / div, (double)p->all / div, unit);
    if (pm == 1000) { fputc('\n', stderr); p->ended = 1; }
    fflush(stderr);
}

/* called with (bytes copied of this tensor, its upload size) after every piece */
static void on_progress(uint64_t done, uint64_t total, void *user) {
    progress *p = (progress *)user;
    /* the upload size may differ from the stored size (BOOL, U16 ... widened): count a share of the stored */
    bar_draw(p, p->before + (total ? (uint64_t)((double)(done < total ? done : total) / (double)total * (double)p->tensor) : 0));
}

static int usage(FILE *f, int rc) {
    int k;
    fprintf(f, "usage: load_safetensors PATH [--dtype DTYPE] [--list] [--cpu]\n"
               "  PATH: a .safetensors file, a model.safetensors.index.json or a folder holding them\n"
               "  DTYPE: one of");
    for (k = 0; k < (int)GK_DTYPE_COUNT; k++) fprintf(f, " %s", gk_dtype_name((gk_dtype)k));
    fprintf(f, "\n");
    return rc;
}

int main(int argc, char **argv) {
    const char *path = NULL;
    gk_dtype want = GK_DTYPE_COUNT; /* keep each tensor's own dtype */
    int list = 0, i, cpu = 0, opts_done = 0;
    gk_safetensors *st;
    gk_ctx *ctx;
    gk_ctx_desc desc;
    size_t n, k;
    progress pr;
    gk_tensor *ts;
    gk_pool_stats ps;
    double t0;
    memset(&pr, 0, sizeof pr);
    pr.shown = -1;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        int bad = 0;
        if (opts_done || a[0] != '-' || a[1] == 0) {
            if (path) { fprintf(stderr, "load_safetensors: one PATH only: '%s' is extra\n", a); bad = 1; }
            path = a;
        } else if (strcmp(a, "--") == 0) opts_done = 1;
        else if (strcmp(a, "--list") == 0) list = 1;
        else if (strcmp(a, "--cpu") == 0) cpu = 1;
        else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) return usage(stdout, 0);
        else if (strcmp(a, "--dtype") == 0) {
            if (i + 1 >= argc) { fprintf(stderr, "load_safetensors: --dtype needs a value\n"); bad = 1; }
            else if (gk_dtype_from_name(argv[++i], &want) != GK_OK) { fprintf(stderr, "load_safetensors: --dtype %s: not a gpukit dtype\n", argv[i]); bad = 1; }
        } else { fprintf(stderr, "load_safetensors: unknown option %s\n", a); bad = 1; }
        if (bad) return usage(stderr, 2);
    }
    if (!path) {
        fprintf(stderr, "load_safetensors: no PATH given\n");
        return usage(stderr, 2);
    }
    if (gk_st_open(path, &st) != GK_OK) { fprintf(stderr, "load_safetensors: %s\n", gk_last_error(NULL)); return 1; }
    n = gk_st_count(st);
    for (k = 0; k < n; k++) pr.all += gk_st_tensor(st, k)->nbytes;
    printf("%s: %zu tensors in %zu file%s, ", path, n, gk_st_file_count(st), gk_st_file_count(st) == 1 ? "" : "s");
    print_size(stdout, pr.all);
    printf("\n");
    if (list)
        for (k = 0; k < n; k++) {
            const gk_st_tensor_info *t = gk_st_tensor(st, k);
            int d;
            printf("  %-50s %-8s [", t->name, gk_st_dtype_name(t->dtype));
            for (d = 0; d < t->ndim; d++) printf(d ? ", %lld" : "%lld", (long long)t->shape[d]);
            printf("]\n");
        }
    fflush(stdout);
    memset(&desc, 0, sizeof desc);
    if (cpu) desc.backend = GK_BACKEND_CPU;
    if (gk_ctx_create(&desc, &ctx) != GK_OK) { fprintf(stderr, "load_safetensors: %s\n", gk_last_error(NULL)); gk_st_close(st); return 1; }
    ts = (gk_tensor *)calloc(n ? n : 1, sizeof *ts);
    if (!ts) { fprintf(stderr, "load_safetensors: out of memory\n"); gk_ctx_destroy(ctx); gk_st_close(st); return 1; }
    t0 = (double)clock() / CLOCKS_PER_SEC;
    for (k = 0; k < n; k++) {
        const gk_st_tensor_info *t = gk_st_tensor(st, k);
        gk_dtype dt = want;
        if (dt == GK_DTYPE_COUNT && !gk_st_gk_dtype(t->dtype, &dt)) dt = GK_I64; /* BOOL, U16 ...: widened */
        pr.tensor = t->nbytes;
        if (gk_st_upload(ctx, st, t->name, dt, &ts[k], on_progress, &pr) != GK_OK) {
            if (pr.shown >= 0 && !pr.ended) fputc('\n', stderr); /* the message on its own line */
            fprintf(stderr, "load_safetensors: %s: %s\n", t->name, gk_last_error(ctx));
            gk_ctx_destroy(ctx);
            gk_st_close(st);
            free(ts);
            return 1;
        }
        pr.before += t->nbytes;
    }
    bar_draw(&pr, pr.all); /* ends the bar once: nothing to upload still shows 100% */
    gk_sync(ctx);
    gk_pool_stats_get(ctx, &ps);
    printf("uploaded %zu tensors (", n);
    print_size(stdout, pr.all);
    printf(") in %.2f s of CPU time; pool holds ", (double)clock() / CLOCKS_PER_SEC - t0);
    print_size(stdout, (uint64_t)ps.used);
    printf("\n");
    gk_ctx_destroy(ctx);
    gk_st_close(st);
    free(ts);
    return 0;
}
