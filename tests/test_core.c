/* test_core.c - status codes, dtype conversions, context creation and the
   loading errors (missing driver, the toolkit's stub libcuda, missing NVRTC). */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkt.h"

static uint16_t f2h(double x) { uint16_t h; float f = (float)x; gk_convert(GK_F16, &h, GK_F32, &f, 1); return h; }
static uint16_t d2bf(double x) { uint16_t h; gk_convert(GK_BF16, &h, GK_F64, &x, 1); return h; }
static uint8_t d2e4(double x) { uint8_t v; gk_convert(GK_F8E4M3, &v, GK_F64, &x, 1); return v; }
static uint8_t d2e5(double x) { uint8_t v; gk_convert(GK_F8E5M2, &v, GK_F64, &x, 1); return v; }

/* Independent reference: the nearest of all finite values of a format (ties
   to the even bit pattern), found by search over decoded values. */
static double dec_table[65536];
static uint32_t nearest(double x, int nbits, double maxfin, int has_inf, uint32_t inf_bits) {
    uint32_t best = 0, i, n = 1u << (nbits - 1); /* positive patterns */
    double bd = INFINITY, ax = fabs(x);
    int neg = x < 0 || (x == 0 && signbit(x));
    for (i = 0; i < n; i++) {
        double v = dec_table[i], d;
        if (isnan(v) || isinf(v)) continue;
        d = fabs(v - ax);
        if (d < bd || (d == bd && !(i & 1))) { bd = d; best = i; }
    }
    if (has_inf && ax >= maxfin + (maxfin - dec_table[best > 0 ? best - 1 : 0]) / 2 &&
        !(ax == maxfin + (maxfin - dec_table[best - 1]) / 2 && !(best & 1)))
        best = inf_bits;
    if (!has_inf && ax > maxfin) best = (uint32_t)(n - 2); /* e4m3 saturates */
    return best | (neg ? n : 0);
}

static void test_status(void) {
    GKT_CHECK(strcmp(gk_status_name(GK_ERR_SHAPE), "GK_ERR_SHAPE") == 0, "%s", gk_status_name(GK_ERR_SHAPE));
    GKT_CHECK(strcmp(gk_status_name(GK_OK), "GK_OK") == 0, "ok");
    GKT_CHECK(strcmp(gk_status_name((gk_status)999), "GK_STATUS_INVALID") == 0, "invalid");
    GKT_CHECK(strlen(gk_status_message(GK_ERR_OUT_OF_MEMORY)) > 3, "message");
    GKT_CHECK(gk_error_set(NULL, GK_ERR_IO, "reading %s failed", "x.bin") == GK_ERR_IO, "error_set returns status");
    GKT_CHECK(strcmp(gk_last_error(NULL), "reading x.bin failed") == 0, "%s", gk_last_error(NULL));
    gk_error_clear(NULL);
    GKT_CHECK(gk_last_error(NULL)[0] == 0, "cleared");
}

static void test_dtypes(void) {
    gk_dtype d;
    int i;
    GKT_CHECK(gk_dtype_size(GK_BF16) == 2 && gk_dtype_size(GK_I64) == 8 && gk_dtype_size(GK_F8E4M3) == 1, "sizes");
    GKT_CHECK(gk_dtype_size((gk_dtype)42) == 0, "invalid size");
    GKT_CHECK(gk_dtype_from_name("bf16", &d) == GK_OK && d == GK_BF16, "from name");
    GKT_FAILS(NULL, gk_dtype_from_name("float17", &d), GK_ERR_DTYPE, "float17");
    GKT_FAILS(NULL, gk_convert((gk_dtype)77, &d, GK_F32, &d, 1), GK_ERR_DTYPE, "invalid dtype");
    /* f16: hand-computed rounding cases */
    GKT_CHECK(f2h(1.0) == 0x3C00, "1.0 -> %04x", f2h(1.0));
    GKT_CHECK(f2h(65504.0) == 0x7BFF, "max");
    GKT_CHECK(f2h(65520.0) == 0x7C00, "tie above max -> inf: %04x", f2h(65520.0));
    GKT_CHECK(f2h(65519.0) == 0x7BFF, "below tie stays max");
    GKT_CHECK(f2h(ldexp(1, -24)) == 0x0001, "min subnormal");
    GKT_CHECK(f2h(ldexp(1, -25)) == 0x0000, "half min subnormal ties to even 0: %04x", f2h(ldexp(1, -25)));
    GKT_CHECK(f2h(3 * ldexp(1, -25)) == 0x0002, "1.5 ulp ties to even 2");
    GKT_CHECK(f2h(1.0 + ldexp(1, -11)) == 0x3C00, "tie to even down");
    GKT_CHECK(f2h(1.0 + 3 * ldexp(1, -11)) == 0x3C02, "tie to even up");
    GKT_CHECK(f2h(-0.0) == 0x8000, "-0");
    GKT_CHECK(f2h(-INFINITY) == 0xFC00, "-inf");
    GKT_CHECK(f2h(NAN) == 0x7E00, "NaN canonical: %04x", f2h(NAN));
    GKT_CHECK(gk_f32_to_f16(1.0f) == 0x3C00 && gk_f16_to_f32(0x3C00) == 1.0f, "scalar f16");
    /* bf16 */
    GKT_CHECK(d2bf(1.0) == 0x3F80, "bf16 1");
    GKT_CHECK(d2bf(1.0 + ldexp(1, -8)) == 0x3F80, "bf16 tie down");
    GKT_CHECK(d2bf(1.0 + 3 * ldexp(1, -8)) == 0x3F82, "bf16 tie up");
    GKT_CHECK(gk_f32_to_bf16(1.0f + 0.00390625f) == 0x3F80, "bf16 scalar tie");
    GKT_CHECK(gk_f32_to_bf16(NAN) == 0x7FC0 && d2bf(NAN) == 0x7FC0, "bf16 NaN");
    /* fp8 e4m3 (saturating) and e5m2 (inf) */
    GKT_CHECK(d2e4(448) == 0x7E && d2e4(464) == 0x7E && d2e4(470) == 0x7E && d2e4(1e9) == 0x7E, "e4m3 saturates");
    GKT_CHECK(d2e4(INFINITY) == 0x7E && d2e4(-INFINITY) == 0xFE, "e4m3 inf saturates");
    GKT_CHECK(d2e4(NAN) == 0x7F, "e4m3 NaN");
    GKT_CHECK(d2e4(ldexp(1, -9)) == 0x01 && d2e4(ldexp(1, -10)) == 0x00, "e4m3 subnormal");
    GKT_CHECK(d2e4(1.0) == 0x38 && gk_f8e4m3_to_f32(0x38) == 1.0f, "e4m3 one");
    GKT_CHECK(d2e5(57344) == 0x7B && d2e5(61440) == 0x7C && d2e5(NAN) == 0x7E, "e5m2 max/tie-overflow/NaN: %02x %02x", d2e5(57344), d2e5(61440));
    GKT_CHECK(gk_f8e5m2_to_f32(0x7C) == INFINITY, "e5m2 inf");
    /* exhaustive round trips through f32 */
    for (i = 0; i < 65536; i++) {
        uint16_t h = (uint16_t)i, back;
        float f = gk_f16_to_f32(h);
        back = gk_f32_to_f16(f);
        if (isnan(f)) { if (back != 0x7E00) break; }
        else if (back != h) break;
    }
    GKT_CHECK(i == 65536, "f16 round trip fails at %04x", i);
    for (i = 0; i < 65536; i++) { /* every f16 decoded against the format's formula (gk_f16_to_f32 works on bits) */
        int ex = (i >> 10) & 31, man = i & 1023;
        double want = ex == 0 ? ldexp(man, -24) : ex == 31 ? (man ? NAN : INFINITY) : ldexp(1024 + man, ex - 25);
        float f = gk_f16_to_f32((uint16_t)i);
        if (i & 0x8000) want = -want;
        if (isnan(want) ? !isnan(f) : (double)f != want || !signbit(f) != !signbit(want)) break;
    }
    GKT_CHECK(i == 65536, "f16 decode differs from the formula at %04x: %.9g", i, i < 65536 ? (double)gk_f16_to_f32((uint16_t)i) : 0.0);
    for (i = 0; i < 65536; i++) {
        uint16_t h = (uint16_t)i;
        float f = gk_bf16_to_f32(h);
        if (!isnan(f) && gk_f32_to_bf16(f) != h) break;
    }
    GKT_CHECK(i == 65536, "bf16 round trip fails at %04x", i);
    for (i = 0; i < 256; i++) {
        float f = gk_f8e4m3_to_f32((uint8_t)i), g = gk_f8e5m2_to_f32((uint8_t)i);
        if (!isnan(f) && gk_f32_to_f8e4m3(f) != i) break;
        if (!isnan(g) && gk_f32_to_f8e5m2(g) != i) break;
    }
    GKT_CHECK(i == 256, "fp8 round trip fails at %02x", i);
    /* random values against the independent nearest-value search (f16, e4m3, e5m2) */
    {
        int bad = 0, k;
        for (k = 0; k < 32768; k++) dec_table[k] = gk_f16_to_f32((uint16_t)k);
        for (k = 0; k < 4000 && bad < 5; k++) {
            double x = ldexp(gkt_uniform(-1, 1), (int)gkt_uniform(-27, 17));
            uint32_t want = nearest(x, 16, 65504.0, 1, 0x7C00), got = f2h(x);
            if ((float)x != x) continue; /* f2h takes floats */
            if (want != got) { bad++; printf("  f16(%.17g): %04x, reference %04x\n", x, got, want); }
        }
        GKT_CHECK(bad == 0, "f16 rounding differs from the reference");
        for (k = 0; k < 128; k++) dec_table[k] = gk_f8e4m3_to_f32((uint8_t)k);
        for (k = 0; k < 4000 && bad < 5; k++) {
            double x = ldexp(gkt_uniform(-1, 1), (int)gkt_uniform(-11, 10));
            uint32_t want = nearest(x, 8, 448.0, 0, 0), got = d2e4(x);
            if (want != got) { bad++; printf("  e4m3(%.17g): %02x, reference %02x\n", x, got, want); }
        }
        GKT_CHECK(bad == 0, "e4m3 rounding differs from the reference");
        for (k = 0; k < 128; k++) dec_table[k] = gk_f8e5m2_to_f32((uint8_t)k);
        for (k = 0; k < 4000 && bad < 5; k++) {
            double x = ldexp(gkt_uniform(-1, 1), (int)gkt_uniform(-17, 17));
            uint32_t want = nearest(x, 8, 57344.0, 1, 0x7C), got = d2e5(x);
            if (want != got) { bad++; printf("  e5m2(%.17g): %02x, reference %02x\n", x, got, want); }
        }
        GKT_CHECK(bad == 0, "e5m2 rounding differs from the reference");
    }
    /* integers */
    {
        float f[6] = { 300.7f, -300.0f, NAN, -1.9f, 1.9f, 1e30f };
        int8_t i8[6];
        int32_t i32[6];
        int64_t big[3] = { ((int64_t)1 << 62) + ((int64_t)1 << 54) + 1, -5, ((int64_t)1 << 53) + 1 };
        uint16_t bf[3];
        double dd[3];
        int32_t w[3] = { 300, -1, 128 };
        uint8_t u8[3];
        gk_convert(GK_I8, i8, GK_F32, f, 6);
        GKT_CHECK(i8[0] == 127 && i8[1] == -128 && i8[2] == 0 && i8[3] == -1 && i8[4] == 1 && i8[5] == 127, "f32->i8 trunc/sat/NaN");
        gk_convert(GK_I32, i32, GK_F32, f, 6);
        GKT_CHECK(i32[0] == 300 && i32[5] == INT32_MAX && i32[2] == 0, "f32->i32");
        gk_convert(GK_U8, u8, GK_I32, w, 3);
        GKT_CHECK(u8[0] == 44 && u8[1] == 255 && u8[2] == 128, "i32->u8 wraps");
        gk_convert(GK_I8, i8, GK_I32, w, 3);
        GKT_CHECK(i8[0] == 44 && i8[1] == -1 && i8[2] == -128, "i32->i8 wraps");
        gk_convert(GK_BF16, bf, GK_I64, big, 3);
        GKT_CHECK(bf[0] == 0x5E81, "i64->bf16 rounds once (not through f64): %04x", bf[0]);
        GKT_CHECK(bf[1] == 0xC0A0, "-5 -> bf16 %04x", bf[1]);
        gk_convert(GK_F64, dd, GK_I64, big, 3);
        GKT_CHECK(dd[2] == 9007199254740992.0, "i64->f64 nearest even");
    }
}

static char log_seen[4096];
static void log_cb(gk_log_level lvl, const char *msg, void *user) {
    (void)lvl;
    (void)user;
    strncat(log_seen, msg, sizeof log_seen - strlen(log_seen) - 2);
    strcat(log_seen, "\n");
}

static void test_context(void) {
    gk_ctx *c = NULL;
    gk_ctx_desc d;
    gk_device_info info;
    FILE *f;
    GKT_FAILS(NULL, gk_ctx_create(NULL, NULL), GK_ERR_INVALID_ARGUMENT, "out is NULL");
    memset(&d, 0, sizeof d);
    d.backend = (gk_backend)9;
    GKT_FAILS(NULL, gk_ctx_create(&d, &c), GK_ERR_INVALID_ARGUMENT, "invalid backend");
    GKT_CHECK(c == NULL, "no context on failure");
    /* CPU */
    memset(&d, 0, sizeof d);
    d.backend = GK_BACKEND_CPU;
    GKT_OK(NULL, gk_ctx_create(&d, &c));
    GKT_OK(c, gk_device_info_get(c, &info));
    GKT_CHECK(info.backend == GK_BACKEND_CPU && strstr(info.name, "CPU") != NULL, "%s", info.name);
    GKT_CHECK(gk_ctx_backend(c) == GK_BACKEND_CPU, "backend");
    GKT_OK(c, gk_sync(c));
    gk_ctx_destroy(c);
    gk_ctx_destroy(NULL);
    /* CUDA requested, driver missing: an error naming it */
    memset(&d, 0, sizeof d);
    d.backend = GK_BACKEND_CUDA;
    d.cuda_lib = "/nonexistent/libcuda.so.1";
    GKT_FAILS(NULL, gk_ctx_create(&d, &c), GK_ERR_NO_DRIVER, "CUDA driver not found");
    /* AUTO, driver missing: CPU with a log line */
    memset(&d, 0, sizeof d);
    d.cuda_lib = "/nonexistent/libcuda.so.1";
    d.log = log_cb;
    log_seen[0] = 0;
    GKT_OK(NULL, gk_ctx_create(&d, &c));
    GKT_CHECK(gk_ctx_backend(c) == GK_BACKEND_CPU, "fell back");
    GKT_CHECK(strstr(log_seen, "CUDA driver not found") && strstr(log_seen, "using the CPU backend"), "log: %s", log_seen);
    gk_ctx_destroy(c);
    /* the toolkit's stub libcuda is recognised and named */
    f = fopen("/usr/local/cuda/lib64/stubs/libcuda.so", "rb");
    if (f) {
        fclose(f);
        memset(&d, 0, sizeof d);
        d.backend = GK_BACKEND_CUDA;
        d.cuda_lib = "/usr/local/cuda/lib64/stubs/libcuda.so";
        GKT_FAILS(NULL, gk_ctx_create(&d, &c), GK_ERR_NO_DRIVER, "stub");
    } else printf("skip: no toolkit stub libcuda to test against\n");
    /* missing NVRTC: reported by name, the context still works */
    memset(&d, 0, sizeof d);
    d.backend = GK_BACKEND_CPU;
    d.nvrtc_lib = "/nonexistent/libnvrtc.so.13";
    d.log = log_cb;
    d.log_level = GK_LOG_INFO;
    log_seen[0] = 0;
    GKT_OK(NULL, gk_ctx_create(&d, &c));
    gk_device_info_get(c, &info);
    GKT_CHECK(info.has_nvrtc == 0 && info.nvrtc_version == 0, "no nvrtc");
    GKT_CHECK(strstr(log_seen, "NVRTC not found") != NULL, "log: %s", log_seen);
    gk_ctx_destroy(c);
    /* on a GPU: no NVRTC and no cached kernels -> ops say so, the rest works */
    c = gkt_dut();
    if (gk_ctx_backend(c) == GK_BACKEND_CUDA) {
        gk_ctx *n = NULL;
        gk_tensor t;
        int64_t len = 16;
        memset(&d, 0, sizeof d);
        d.backend = GK_BACKEND_CUDA;
        d.nvrtc_lib = "/nonexistent/libnvrtc.so.13";
        d.disable_disk_cache = 1;
        d.log_level = GK_LOG_OFF;
        GKT_OK(NULL, gk_ctx_create(&d, &n));
        GKT_OK(n, gk_tensor_empty(n, GK_F32, 1, &len, &t));
        GKT_FAILS(n, gk_fill(n, t, 1.0), GK_ERR_NO_NVRTC, "NVRTC not found");
        GKT_OK(n, gk_copy(n, t, t)); /* a plain device copy needs no kernel */
        gk_ctx_destroy(n);
    }
    gk_ctx_destroy(c);
    /* the device under test */
    c = gkt_dut();
    gk_device_info_get(c, &info);
    printf("device under test: %s (%s), arch %s, %d SMs, NVRTC %d, cuBLASLt %zu\n", info.name,
           info.backend == GK_BACKEND_CUDA ? "CUDA" : "CPU", info.arch, info.sm_count, info.nvrtc_version, info.cublaslt_version);
    if (info.backend == GK_BACKEND_CUDA) {
        GKT_CHECK(info.cc_major >= 8 && info.sm_count > 0 && info.total_memory > 0 && info.l2_bytes > 0, "device info");
        GKT_CHECK(info.driver_version >= 11000, "driver %d", info.driver_version);
    }
    gk_ctx_destroy(c);
}

#if !defined(_WIN32)
/* GPUKIT_BACKEND is checked: an unknown value fails gk_ctx_create naming the
   variable and the accepted values (it used to be ignored). */
static void test_env_backend(void) {
    gk_ctx *c = NULL;
    gk_ctx_desc d;
    memset(&d, 0, sizeof d);
    d.log_level = GK_LOG_OFF;
    setenv("GPUKIT_BACKEND", "bogus", 1);
    GKT_FAILS(NULL, gk_ctx_create(&d, &c), GK_ERR_INVALID_ARGUMENT, "environment variable GPUKIT_BACKEND is \"bogus\"");
    GKT_CHECK(c == NULL && strstr(gk_last_error(NULL), "accepted values: cpu, cuda, auto"), "%s", gk_last_error(NULL));
    d.backend = GK_BACKEND_CPU; /* even when the desc decides */
    GKT_FAILS(NULL, gk_ctx_create(&d, &c), GK_ERR_INVALID_ARGUMENT, "GPUKIT_BACKEND");
    setenv("GPUKIT_BACKEND", "CPU", 1);
    d.backend = GK_BACKEND_AUTO;
    GKT_OK(NULL, gk_ctx_create(&d, &c));
    GKT_CHECK(gk_ctx_backend(c) == GK_BACKEND_CPU, "GPUKIT_BACKEND=CPU");
    gk_ctx_destroy(c);
    unsetenv("GPUKIT_BACKEND");
}

/* A library path that does not load says which path, from where, and the
   loader's reason, at the default log level (NVRTC's was an info line) and in
   the error of what needed it. */
static void test_lib_errors(void) {
    gk_ctx *c = NULL;
    gk_ctx_desc d;
    int n = -1;
    memset(&d, 0, sizeof d);
    d.backend = GK_BACKEND_CPU;
    d.log = log_cb;
    d.cache_dir = "/nonexistent/gpukit-cache"; /* never written: nothing compiles */
    setenv("GPUKIT_NVRTC_LIB", "/nonexistent/libnvrtc-missing.so.13", 1);
    log_seen[0] = 0;
    GKT_OK(NULL, gk_ctx_create(&d, &c));
    GKT_CHECK(strstr(log_seen, "GPUKIT_NVRTC_LIB=/nonexistent/libnvrtc-missing.so.13 cannot be loaded") != NULL, "log: %s", log_seen);
    GKT_CHECK(strstr(log_seen, "No such file") != NULL, "the loader's reason: %s", log_seen);
    GKT_FAILS(c, gk_jit_precompile(c, "sm_80", &n), GK_ERR_NO_NVRTC, "GPUKIT_NVRTC_LIB=/nonexistent/libnvrtc-missing.so.13 cannot be loaded");
    gk_ctx_destroy(c);
    unsetenv("GPUKIT_NVRTC_LIB");
    /* the driver: asked for by the environment, so a warning with the reason */
    setenv("GPUKIT_CUDA_LIB", "/nonexistent/libcuda-missing.so.1", 1);
    d.backend = GK_BACKEND_AUTO;
    log_seen[0] = 0;
    GKT_OK(NULL, gk_ctx_create(&d, &c));
    GKT_CHECK(gk_ctx_backend(c) == GK_BACKEND_CPU, "CPU");
    GKT_CHECK(strstr(log_seen, "GPUKIT_CUDA_LIB=/nonexistent/libcuda-missing.so.1 cannot be loaded") && strstr(log_seen, "No such file") &&
              strstr(log_seen, "using the CPU backend"), "log: %s", log_seen);
    gk_ctx_destroy(c);
    d.backend = GK_BACKEND_CUDA;
    GKT_FAILS(NULL, gk_ctx_create(&d, &c), GK_ERR_NO_DRIVER, "GPUKIT_CUDA_LIB=/nonexistent/libcuda-missing.so.1 cannot be loaded");
    unsetenv("GPUKIT_CUDA_LIB");
}

/* No GPU is a normal machine: nothing at the default log level, one info
   line saying the CPU backend runs and why, the loader's details at debug. */
static void test_no_gpu_log(void) {
    gk_ctx *c = NULL;
    gk_ctx_desc d;
    memset(&d, 0, sizeof d);
    d.log = log_cb;
    d.log_level = GK_LOG_DEBUG;
    log_seen[0] = 0;
    GKT_OK(NULL, gk_ctx_create(&d, &c));
    if (!c) return;
    if (gk_ctx_backend(c) == GK_BACKEND_CUDA || !strstr(log_seen, "CUDA driver not found")) {
        printf("skip: a CUDA driver loads here\n");
        gk_ctx_destroy(c);
        return;
    }
    GKT_CHECK(strstr(log_seen, "cannot open shared object") || strstr(log_seen, "LoadLibrary") || strstr(log_seen, "error 126"),
              "debug: the loader's details: %s", log_seen);
    gk_ctx_destroy(c);
    d.log_level = GK_LOG_DEFAULT;
    log_seen[0] = 0;
    GKT_OK(NULL, gk_ctx_create(&d, &c));
    GKT_CHECK(log_seen[0] == 0, "nothing at the default level: %s", log_seen);
    gk_ctx_destroy(c);
    d.log_level = GK_LOG_INFO;
    log_seen[0] = 0;
    GKT_OK(NULL, gk_ctx_create(&d, &c));
    GKT_CHECK(strstr(log_seen, "no NVIDIA driver found: using the CPU backend\n") != NULL, "info: %s", log_seen);
    GKT_CHECK(strstr(log_seen, "cannot open") == NULL && strstr(log_seen, "CUDA driver not found") == NULL, "details only at debug: %s",
              log_seen);
    gk_ctx_destroy(c);
}

/* The environment switches are read when a context is created, into it (they
   were function-local statics shared by every context). */
static void test_env_switches(void) {
    gk_ctx *a, *b;
    setenv("GPUKIT_PDL", "0", 1);
    setenv("GPUKIT_GEMM_WGMMA", "0", 1);
    setenv("GPUKIT_ATTN_WGMMA", "0", 1);
    a = gkt_ref();
    unsetenv("GPUKIT_PDL");
    unsetenv("GPUKIT_GEMM_WGMMA");
    unsetenv("GPUKIT_ATTN_WGMMA");
    b = gkt_ref();
    GKT_CHECK(gk__tune(a)->pdl == 0 && gk__tune(a)->wg_mode == 0 && gk__tune(a)->fwg_mode == 0, "switches off: pdl %d wg %d fwg %d",
              gk__tune(a)->pdl, gk__tune(a)->wg_mode, gk__tune(a)->fwg_mode);
    GKT_CHECK(gk__tune(b)->pdl == 1 && gk__tune(b)->wg_mode == -1 && gk__tune(b)->fwg_mode == -1, "defaults: pdl %d wg %d fwg %d",
              gk__tune(b)->pdl, gk__tune(b)->wg_mode, gk__tune(b)->fwg_mode);
    gk_ctx_destroy(a);
    gk_ctx_destroy(b);
}
#endif

int main(void) {
    gkt_seed();
    test_status();
    test_dtypes();
    test_context();
#if !defined(_WIN32)
    test_env_backend();
    test_lib_errors();
    test_no_gpu_log();
    test_env_switches();
#endif
    return gkt_done("test_core");
}
