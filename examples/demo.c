/* demo.c - what gpukit does, in one run: finds the device (or falls back to
   the CPU backend), JITs a user kernel with NVRTC and launches it, runs a few
   ops, and prints the memory pool's statistics.
       cc -std=c99 -I. examples/demo.c -o demo -ldl -lm -lpthread
       ./demo [--backend auto|cuda|cpu]      (default auto: CUDA when a GPU is usable)
   An unknown argument or value is a usage error (exit 2). */
#define GPUKIT_IMPLEMENTATION
#include "gpukit.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                  \
    do {                                                                             \
        gk_status s_ = (call);                                                       \
        if (s_ != GK_OK) {                                                           \
            fprintf(stderr, "%s failed: %s\n", #call, gk_last_error(ctx));          \
            gk_ctx_destroy(ctx);                                                     \
            return 1;                                                                \
        }                                                                            \
    } while (0)

static const char *KERNEL =
    "extern \"C\" __global__ void sin_sq(const float *x, float *y, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) { float s = sinf(x[i]); y[i] = s * s; }\n"
    "}\n";

/* the same kernel for the CPU backend */
static void sin_sq_cpu(const gk_cpu_launch *l) {
    const float *x = (const float *)l->ptrs[0];
    float *y = (float *)l->ptrs[1];
    int i, n = l->args[2].v.i32;
    for (i = 0; i < n; i++) { float s = sinf(x[i]); y[i] = s * s; }
}

static int usage(FILE *f, int rc) {
    fprintf(f, "usage: demo [--backend auto|cuda|cpu]\n");
    return rc;
}

int main(int argc, char **argv) {
    gk_ctx *ctx = NULL;
    gk_ctx_desc cd;
    gk_device_info info;
    gk_pool_stats ps;
    gk_module_desc md;
    gk_module *mod;
    gk_kernel *k;
    gk_arg args[3];
    gk_launch_desc ld;
    gk_tensor x, y, z, h;
    int64_t n = 1 << 20;
    float *host = (float *)malloc(sizeof(float) * (size_t)n), maxerr = 0;
    uint16_t first[4];
    int i;

    memset(&cd, 0, sizeof cd);
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) { free(host); return usage(stdout, 0); }
        if (strcmp(argv[i], "--backend") == 0) {
            const char *v = i + 1 < argc ? argv[++i] : NULL;
            if (v && strcmp(v, "auto") == 0) cd.backend = GK_BACKEND_AUTO;
            else if (v && strcmp(v, "cuda") == 0) cd.backend = GK_BACKEND_CUDA;
            else if (v && strcmp(v, "cpu") == 0) cd.backend = GK_BACKEND_CPU;
            else {
                if (v) fprintf(stderr, "demo: --backend %s: expected auto, cuda or cpu\n", v);
                else fprintf(stderr, "demo: --backend needs a value: auto, cuda or cpu\n");
                free(host);
                return usage(stderr, 2);
            }
        } else {
            fprintf(stderr, "demo: unknown %s %s\n", argv[i][0] == '-' ? "option" : "argument", argv[i]);
            free(host);
            return usage(stderr, 2);
        }
    }
    if (!host) { fprintf(stderr, "demo: out of memory\n"); return 1; }
    if (gk_ctx_create(&cd, &ctx) != GK_OK) {
        fprintf(stderr, "demo: %s\n", gk_last_error(NULL));
        free(host);
        return 1;
    }
    gk_device_info_get(ctx, &info);
    printf("device   : %s (%s backend)\n", info.name, info.backend == GK_BACKEND_CUDA ? "CUDA" : "CPU");
    if (info.backend == GK_BACKEND_CUDA)
        printf("           %s, %d SMs, %.1f GiB, L2 %.0f MiB, driver %d\n", info.arch, info.sm_count,
               (double)info.total_memory / (1 << 30), (double)info.l2_bytes / (1 << 20), info.driver_version);
    printf("NVRTC    : %s", info.has_nvrtc ? "" : "not found\n");
    if (info.has_nvrtc) printf("%d.%d\n", info.nvrtc_version / 1000, info.nvrtc_version % 1000 / 10);
    printf("cuBLASLt : %s\n", info.has_cublaslt ? "loaded" : "not loaded");

    /* a user kernel, compiled once (cached on disk for the next run) */
    memset(&md, 0, sizeof md);
    md.source = KERNEL;
    md.name = "sin_sq.cu";
    CHECK(gk_module_create(ctx, &md, &mod));
    CHECK(gk_module_kernel(ctx, mod, "sin_sq", &k));
    CHECK(gk_kernel_set_cpu(ctx, k, sin_sq_cpu, NULL));

    for (i = 0; i < n; i++) host[i] = (float)i * 1e-3f;
    CHECK(gk_tensor_from_host(ctx, GK_F32, 1, &n, host, &x));
    CHECK(gk_tensor_empty(ctx, GK_F32, 1, &n, &y));
    args[0] = gk_arg_tensor(x);
    args[1] = gk_arg_tensor(y);
    args[2] = gk_arg_i32((int32_t)n);
    memset(&ld, 0, sizeof ld);
    ld.grid[0] = (unsigned)((n + 255) / 256);
    ld.block[0] = 256;
    ld.args = args;
    ld.num_args = 3;
    CHECK(gk_kernel_launch(ctx, k, &ld));

    /* ops on the current stream: z = 1 - y (= cos^2 x), then a bf16 copy */
    CHECK(gk_tensor_empty(ctx, GK_F32, 1, &n, &z));
    CHECK(gk_fill(ctx, z, 1.0));
    CHECK(gk_sub(ctx, z, z, y));
    CHECK(gk_cast_new(ctx, z, GK_BF16, &h));
    CHECK(gk_copy_to_host(ctx, z, host, sizeof(float) * (size_t)n)); /* waits for the stream */
    for (i = 0; i < n; i++) {
        float c = cosf((float)i * 1e-3f), e = fabsf(host[i] - c * c);
        if (e > maxerr) maxerr = e;
    }
    {
        gk_tensor hs;
        CHECK(gk_view_slice(ctx, h, 0, 0, 4, 1, &hs));
        CHECK(gk_copy_to_host(ctx, hs, first, sizeof first));
        gk_tensor_free(ctx, hs);
    }
    printf("kernel   : sin_sq on %lld floats, then 1 - y: matches the host's cos^2 within %.2g; first bf16 value 0x%04x\n",
           (long long)n, (double)maxerr, first[0]);

    gk_tensor_free(ctx, x);
    gk_tensor_free(ctx, y);
    gk_tensor_free(ctx, h);
    CHECK(gk_pool_stats_get(ctx, &ps));
    printf("pool     : used %zu B, cached %zu B, peak %zu B, quota %.1f GiB\n", ps.used, ps.cached, ps.peak,
           (double)ps.quota / (1 << 30));
    printf("           %llu allocations (%llu reused), %llu driver allocations, %llu evictions\n",
           (unsigned long long)ps.allocations, (unsigned long long)ps.reuses, (unsigned long long)ps.driver_allocs,
           (unsigned long long)ps.evictions);
    gk_tensor_free(ctx, z);
    gk_ctx_destroy(ctx);
    free(host);
    return maxerr < 1e-5f ? 0 : 1;
}
