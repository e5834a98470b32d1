/* check_kernels - compiles every kernel module embedded in gpukit_kernels.h
   with NVRTC, with no include path (as a driver-only user would), for each
   arch given, and reports per kernel the registers, stack and spills that
   ptxas reports. No GPU needed.

     check_kernels sm_80 sm_90 ...        compile and report (build/kernel_report_sm_80_sm_90.json;
                                          with --only, the modules in the name too)
     check_kernels --fill DIR sm_90 ...   also fill the disk kernel cache DIR
     check_kernels --only norm.cu,llm.cu sm_90   only these modules */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include <stdio.h>

typedef struct { char name[128]; int regs, stack, spill_st, spill_ld; } kinfo;

static int parse_log(const char *log, kinfo *k, int max) {
    int n = -1;
    const char *p = log;
    while (p && *p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char line[512];
        const char *q;
        if (len >= sizeof line) len = sizeof line - 1;
        memcpy(line, p, len);
        line[len] = 0;
        if ((q = strstr(line, "Compiling entry function '")) != NULL && n + 1 < max) {
            const char *s = q + strlen("Compiling entry function '");
            size_t m = strcspn(s, "'");
            n++;
            memset(&k[n], 0, sizeof k[n]);
            snprintf(k[n].name, sizeof k[n].name, "%.*s", (int)(m < 127 ? m : 127), s);
        } else if (n >= 0 && strstr(line, "bytes stack frame")) {
            sscanf(line, " %d bytes stack frame, %d bytes spill stores, %d bytes spill loads", &k[n].stack, &k[n].spill_st, &k[n].spill_ld);
        } else if (n >= 0 && (q = strstr(line, "Used ")) != NULL) {
            sscanf(q, "Used %d registers", &k[n].regs);
        }
        p = e ? e + 1 : NULL;
    }
    return n + 1;
}

/* is name one of the comma-separated names in list? */
static int in_list(const char *list, const char *name) {
    size_t n = strlen(name);
    while (*list) {
        const char *e = strchr(list, ',');
        size_t len = e ? (size_t)(e - list) : strlen(list);
        if (len == n && strncmp(list, name, n) == 0) return 1;
        if (!e) break;
        list = e + 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    gk_ctx *ctx;
    gk_ctx_desc d;
    const char *fill = NULL, *only = NULL;
    int i, m, pass = 0, fail = 0, first = 1;
    static kinfo ks[1024];
    FILE *js;
    memset(&d, 0, sizeof d);
    d.backend = GK_BACKEND_CPU;
    d.log_level = GK_LOG_ERROR;
    for (i = 1; i < argc; i++)
        if (strcmp(argv[i], "--fill") == 0 && i + 1 < argc) fill = argv[++i];
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) only = argv[++i];
    if (fill) d.cache_dir = fill;
    else d.disable_disk_cache = 1;
    if (gk_ctx_create(&d, &ctx) != GK_OK) { printf("check_kernels: %s\n", gk_last_error(NULL)); return 2; }
    if (!ctx->info.has_nvrtc) { printf("check_kernels: NVRTC not found: cannot compile kernels\ncheck_kernels: 0 passed, 1 failed\n"); return 1; }
    {
        char path[256];
        int a, len = snprintf(path, sizeof path, "build/kernel_report");
        if (only && len < 200) path[len++] = '_';
        if (only) /* (one report a module list: make runs a job a module) */
            for (a = 0; only[a] && len < 120; a++) path[len++] = (char)(only[a] == ',' || only[a] == '.' ? '_' : only[a]);
        path[len] = 0;
        for (a = 1; a < argc && len < 200; a++)
            if (strncmp(argv[a], "sm_", 3) == 0) len += snprintf(path + len, sizeof path - (size_t)len, "_%s", argv[a]);
        snprintf(path + len, sizeof path - (size_t)len, ".json");
        js = fill ? NULL : fopen(path, "w");
    }
    if (js) fprintf(js, "{\"nvrtc\": %d, \"modules\": [\n", ctx->info.nvrtc_version);
    printf("%-18s %-7s %7s %8s %8s %10s  %s\n", "module", "arch", "kernels", "max_regs", "stack_B", "spill_B", "max_regs_kernel");
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--fill") == 0 || strcmp(argv[i], "--only") == 0) { i++; continue; }
        for (m = 0; m < GK__MOD_COUNT; m++) {
            if (only && !in_list(only, gk__module_names[m])) continue;
            char target[64], *src = gk__join_chunks(gk__module_chunks[m]), *bin = NULL;
            const char *opts[2];
            size_t binn = 0;
            int ptx = 0, nk, k, maxr = 0, maxk = 0, stack = 0, spills = 0;
            gk_status st;
            const char *arch = gk__mod_arch(m, argv[i]); /* gemm_wg.cu: sm_90a for sm_90 */
            gk__target(ctx, arch, target, sizeof target, &ptx);
            opts[0] = target;
            opts[1] = "--ptxas-options=-v";
            if (fill) { /* the same build as the library's lazy one, into the cache */
                st = src ? gk__jit_build(ctx, src, gk__module_names[m], NULL, 0, arch, 1, NULL, NULL, "check_kernels") : GK_ERR_OUT_OF_MEMORY;
                printf("%-18s %-7s %s\n", gk__module_names[m], arch, st == GK_OK ? "in the cache" : gk_last_error(ctx));
                if (st == GK_OK) pass++;
                else fail++;
                GPUKIT_FREE(src);
                continue;
            }
            st = src ? gk__nvrtc_compile(ctx, src, gk__module_names[m], opts, ptx ? 1 : 2, ptx, &bin, &binn, "check_kernels") : GK_ERR_OUT_OF_MEMORY;
            if (st != GK_OK) {
                printf("%-18s %-7s FAILED: %s\n", gk__module_names[m], arch, gk_last_error(ctx));
                fail++;
            } else {
                nk = parse_log(gk_jit_log(ctx), ks, 1024);
                for (k = 0; k < nk; k++) {
                    if (ks[k].regs > maxr) { maxr = ks[k].regs; maxk = k; }
                    if (ks[k].stack > stack) stack = ks[k].stack;
                    spills += ks[k].spill_st + ks[k].spill_ld;
                }
                printf("%-18s %-7s %7d %8d %8d %10d  %s%s\n", gk__module_names[m], arch, nk, maxr, stack, spills,
                       nk ? ks[maxk].name : "-", ptx ? " (PTX: NVRTC lacks this arch)" : "");
                if (js) {
                    fprintf(js, "%s  {\"module\": \"%s\", \"arch\": \"%s\", \"kernels\": [", first ? "" : ",\n", gk__module_names[m], arch);
                    for (k = 0; k < nk; k++)
                        fprintf(js, "%s{\"name\": \"%s\", \"regs\": %d, \"stack\": %d, \"spill_stores\": %d, \"spill_loads\": %d}",
                                k ? ", " : "", ks[k].name, ks[k].regs, ks[k].stack, ks[k].spill_st, ks[k].spill_ld);
                    fprintf(js, "]}");
                    first = 0;
                }
                pass++;
            }
            GPUKIT_FREE(bin);
            GPUKIT_FREE(src);
        }
    }
    if (js) { fprintf(js, "\n]}\n"); fclose(js); }
    gk_ctx_destroy(ctx);
    printf("check_kernels: %d passed, %d failed\n", pass, fail);
    return fail != 0;
}
