/* test_jit.c - user kernels through NVRTC: compile, cache (memory and disk,
   corrupt files recompiled), launch with checked arguments, CPU fallback. */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkt.h"
#if !defined(_WIN32)
#include <dirent.h>
#endif

static const char *SRC =
    "extern \"C\" __global__ void saxpy(float a, const float *__restrict__ x, float *y, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = a * x[i] + y[i];\n"
    "}\n"
    "extern \"C\" __global__ void scale_ll(double s, long long n, double *v) {\n"
    "    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;\n"
    "    if (i < n) v[i] *= s;\n"
    "}\n";

/* the CPU fallback of saxpy: the same arithmetic over the whole grid */
static void saxpy_cpu(const gk_cpu_launch *l) {
    float a = l->args[0].v.f32;
    const float *x = (const float *)l->ptrs[1];
    float *y = (float *)l->ptrs[2];
    int n = l->args[3].v.i32, i;
    for (i = 0; i < n && (unsigned)i < l->grid[0] * l->block[0]; i++) y[i] = a * x[i] + y[i];
}

static char cache_dir[256];

static gk_ctx *make(void) {
    gk_ctx *c = NULL;
    gk_ctx_desc d;
    memset(&d, 0, sizeof d);
    d.cache_dir = cache_dir;
    d.log_level = GK_LOG_ERROR;
    if (gk_ctx_create(&d, &c) != GK_OK) { printf("ctx: %s\n", gk_last_error(NULL)); exit(2); }
    return c;
}

static void test_launch(gk_ctx *c) {
    gk_module *m;
    gk_kernel *k, *k2;
    gk_module_desc md;
    gk_launch_desc ld;
    gk_arg args[4];
    gk_tensor x, y;
    int64_t n = 1000;
    float hx[1000], hy[1000], out[1000];
    int i, ok = 1;
    gk_kernel_attrs at;
    gk_device_info info;
    memset(&md, 0, sizeof md);
    md.source = SRC;
    md.name = "saxpy.cu";
    GKT_OK(c, gk_module_create(c, &md, &m));
    GKT_OK(c, gk_module_kernel(c, m, "saxpy", &k));
    GKT_OK(c, gk_module_kernel(c, m, "saxpy", &k2));
    GKT_CHECK(k == k2, "kernel handles are cached");
    GKT_FAILS(c, gk_module_kernel(c, m, "nope", &k2), GK_ERR_NOT_FOUND, "nope");
    GKT_OK(c, gk_kernel_attrs_get(c, k, &at));
    GKT_CHECK(at.num_params == 4, "4 params, got %d", at.num_params);
    { /* each parameter's size and kind, as the launch checks them */
        static const int want_size[4] = { 4, 8, 8, 4 };
        static const char want_kind[4] = { 'f', 'p', 'p', 'i' };
        int sz;
        char kd;
        for (i = 0; i < 4; i++) {
            GKT_OK(c, gk_kernel_param(c, k, i, &sz, &kd));
            GKT_CHECK(sz == want_size[i] && kd == want_kind[i], "param %d: %d bytes '%c', want %d '%c'", i, sz, kd, want_size[i], want_kind[i]);
        }
        GKT_FAILS(c, gk_kernel_param(c, k, 4, &sz, &kd), GK_ERR_INVALID_ARGUMENT, "parameter 4 outside 0..3");
        GKT_FAILS(c, gk_kernel_param(c, NULL, 0, &sz, &kd), GK_ERR_INVALID_HANDLE, "kernel");
    }
    GKT_OK(c, gk_kernel_set_cpu(c, k, saxpy_cpu, NULL));
    for (i = 0; i < 1000; i++) { hx[i] = (float)gkt_uniform(-1, 1); hy[i] = (float)gkt_uniform(-1, 1); }
    GKT_OK(c, gk_tensor_from_host(c, GK_F32, 1, &n, hx, &x));
    GKT_OK(c, gk_tensor_from_host(c, GK_F32, 1, &n, hy, &y));
    args[0] = gk_arg_f32(2.5f);
    args[1] = gk_arg_tensor(x);
    args[2] = gk_arg_tensor(y);
    args[3] = gk_arg_i32(1000);
    memset(&ld, 0, sizeof ld);
    ld.grid[0] = 4;
    ld.block[0] = 256;
    ld.args = args;
    ld.num_args = 4;
    GKT_OK(c, gk_kernel_launch(c, k, &ld));
    GKT_OK(c, gk_copy_to_host(c, y, out, sizeof out));
    /* NVRTC contracts a * x + y into one fma; the CPU fallback rounds twice */
    for (i = 0; i < 1000; i++) ok &= out[i] == fmaf(2.5f, hx[i], hy[i]) || out[i] == 2.5f * hx[i] + hy[i];
    GKT_CHECK(ok, "saxpy results");
    /* checked arguments */
    ld.num_args = 3;
    GKT_FAILS(c, gk_kernel_launch(c, k, &ld), GK_ERR_INVALID_ARGUMENT, "takes 4 arguments, the launch passes 3");
    ld.num_args = 4;
    args[3] = gk_arg_i64(1000);
    GKT_FAILS(c, gk_kernel_launch(c, k, &ld), GK_ERR_INVALID_ARGUMENT, "argument 3");
    args[3] = gk_arg_i32(1000);
    args[0] = gk_arg_i32(2);
    gk_device_info_get(c, &info);
    if (info.backend == GK_BACKEND_CPU) /* the driver reports sizes only; the parse knows int from float */
        GKT_FAILS(c, gk_kernel_launch(c, k, &ld), GK_ERR_INVALID_ARGUMENT, "float");
    args[0] = gk_arg_f32(2.5f);
    args[1] = gk_arg_f64(1.0);
    GKT_FAILS(c, gk_kernel_launch(c, k, &ld), GK_ERR_INVALID_ARGUMENT, "argument 1");
    args[1] = gk_arg_tensor(x);
    ld.block[0] = 2048;
    GKT_FAILS(c, gk_kernel_launch(c, k, &ld), GK_ERR_INVALID_ARGUMENT, "1024 threads");
    ld.block[0] = 256;
    gk_tensor_free(c, y);
    GKT_FAILS(c, gk_kernel_launch(c, k, &ld), GK_ERR_INVALID_HANDLE, "argument 2");
    GKT_FAILS(c, gk_kernel_launch(c, NULL, &ld), GK_ERR_INVALID_HANDLE, "kernel");
    /* a kernel without a CPU fallback */
    GKT_OK(c, gk_module_kernel(c, m, "scale_ll", &k2));
    if (info.backend == GK_BACKEND_CPU) {
        gk_arg a2[3];
        a2[0] = gk_arg_f64(2); a2[1] = gk_arg_i64(1); a2[2] = gk_arg_tensor(x);
        ld.args = a2; ld.num_args = 3;
        GKT_FAILS(c, gk_kernel_launch(c, k2, &ld), GK_ERR_UNSUPPORTED, "no CPU fallback");
    }
    gk_tensor_free(c, x);
    GKT_OK(c, gk_module_destroy(c, m));
    GKT_FAILS(c, gk_module_destroy(c, m), GK_ERR_INVALID_HANDLE, "module");
}

static int count_cache_files(void) {
    int n = 0;
#if !defined(_WIN32)
    DIR *d = opendir(cache_dir);
    struct dirent *e;
    if (!d) return 0;
    while ((e = readdir(d)) != NULL) if (strstr(e->d_name, ".gkc")) n++;
    closedir(d);
#endif
    return n;
}

static void test_cache(void) {
    gk_ctx *a, *b;
    gk_module *m1, *m2, *m3;
    gk_module_desc md;
    gk_jit_stats s;
    char src[512];
    int files;
    gk_device_info info;
    /* a source unique to this run: the first compile is cold */
    snprintf(src, sizeof src, "extern \"C\" __global__ void k%llu(float *p) { p[threadIdx.x] += 1.0f; }\n", gkt_u64() % 1000000007ull);
    memset(&md, 0, sizeof md);
    md.source = src;
    a = make();
    gk_device_info_get(a, &info);
    if (!info.has_nvrtc) { printf("skip: no NVRTC, no compile cache to test\n"); gk_ctx_destroy(a); return; }
    files = count_cache_files();
    GKT_OK(a, gk_module_create(a, &md, &m1));
    GKT_OK(a, gk_jit_stats_get(a, &s));
    GKT_CHECK(s.compiles == 1 && s.disk_writes == 1, "cold: compiles %llu writes %llu", (unsigned long long)s.compiles, (unsigned long long)s.disk_writes);
    GKT_CHECK(count_cache_files() == files + 1, "one cache file written");
    if (info.backend == GK_BACKEND_CUDA) {
        GKT_OK(a, gk_module_create(a, &md, &m2));
        GKT_OK(a, gk_jit_stats_get(a, &s));
        GKT_CHECK(s.memory_hits == 1 && s.compiles == 1, "memory hit");
        GKT_OK(a, gk_module_destroy(a, m2));
    }
    /* a second context finds it on disk */
    b = make();
    GKT_OK(b, gk_module_create(b, &md, &m3));
    GKT_OK(b, gk_jit_stats_get(b, &s));
    GKT_CHECK(s.disk_hits == 1 && s.compiles == 0, "disk hit: hits %llu compiles %llu", (unsigned long long)s.disk_hits, (unsigned long long)s.compiles);
    gk_ctx_destroy(b);
    /* corrupt every cache file: the next context recompiles and rewrites */
    {
#if !defined(_WIN32)
        DIR *d = opendir(cache_dir);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            char p[600];
            FILE *f;
            if (!strstr(e->d_name, ".gkc")) continue;
            snprintf(p, sizeof p, "%s/%s", cache_dir, e->d_name);
            f = fopen(p, "r+b");
            if (f) { fseek(f, 100, SEEK_SET); fputc(0x5A ^ fgetc(f), f); fclose(f); }
        }
        if (d) closedir(d);
#endif
    }
    b = make();
    GKT_OK(b, gk_module_create(b, &md, &m3));
    GKT_OK(b, gk_jit_stats_get(b, &s));
    GKT_CHECK(s.disk_rejects == 1 && s.compiles == 1 && s.disk_writes == 1, "corrupt file recompiled: rejects %llu compiles %llu",
              (unsigned long long)s.disk_rejects, (unsigned long long)s.compiles);
    gk_ctx_destroy(b);
    b = make();
    GKT_OK(b, gk_module_create(b, &md, &m3));
    GKT_OK(b, gk_jit_stats_get(b, &s));
    GKT_CHECK(s.disk_hits == 1 && s.compiles == 0, "rewritten file is good");
    gk_ctx_destroy(b);
    /* a truncated file is rejected too */
    {
#if !defined(_WIN32)
        DIR *d = opendir(cache_dir);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            char p[600];
            FILE *f;
            if (!strstr(e->d_name, ".gkc")) continue;
            snprintf(p, sizeof p, "%s/%s", cache_dir, e->d_name);
            f = fopen(p, "wb");
            if (f) { fputs("GKCACHE1", f); fclose(f); }
        }
        if (d) closedir(d);
#endif
    }
    b = make();
    GKT_OK(b, gk_module_create(b, &md, &m3));
    GKT_OK(b, gk_jit_stats_get(b, &s));
    GKT_CHECK(s.disk_rejects == 1 && s.compiles == 1, "truncated file recompiled");
    gk_ctx_destroy(b);
    gk_ctx_destroy(a);
    (void)m1;
}

static void test_compile_error(gk_ctx *c) {
    gk_module *m;
    gk_module_desc md;
    gk_device_info info;
    const char *opts[1] = { "-DBROKEN=1" };
    gk_device_info_get(c, &info);
    if (!info.has_nvrtc) return;
    memset(&md, 0, sizeof md);
    md.source = "extern \"C\" __global__ void bad(float *p) {\n#if BROKEN\n p[0] = undefined_name;\n#endif\n}\n";
    md.name = "bad.cu";
    md.options = opts;
    md.num_options = 1;
    GKT_FAILS(c, gk_module_create(c, &md, &m), GK_ERR_COMPILE, "undefined_name");
    GKT_CHECK(strstr(gk_jit_log(c), "bad.cu") != NULL, "log names the file: %s", gk_jit_log(c));
    md.num_options = 0; /* without the define it compiles */
    GKT_OK(c, gk_module_create(c, &md, &m));
    GKT_OK(c, gk_module_destroy(c, m));
    GKT_FAILS(c, gk_module_create(c, NULL, &m), GK_ERR_INVALID_ARGUMENT, "desc");
}

int main(void) {
    gk_ctx *c;
    gkt_seed();
    snprintf(cache_dir, sizeof cache_dir, "/tmp/gpukit-test-cache-%llu", gkt_u64() % 100000000ull);
    c = make();
    test_launch(c);
    test_compile_error(c);
    gk_ctx_destroy(c);
    test_cache();
    return gkt_done("test_jit");
}
