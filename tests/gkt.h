/* gkt.h - the tiny harness of gpukit's tests.
   Each test program includes gpukit.h (the implementation in the same file),
   checks with GKT_CHECK / GKT_OK, and ends with gkt_done(), which prints
   "N passed, M failed" and returns the exit status.
   Random inputs are fresh each run (seed printed; GKT_SEED=n replays one).
   gkt_dut() is the context under test: CUDA when a GPU is usable (GKT_BACKEND=cuda
   demands it), else CPU; gkt_ref() is always the CPU reference. */
#ifndef GKT_H
#define GKT_H
#if defined(__GNUC__) || defined(__clang__)
#define GKT_MAYBE_UNUSED __attribute__((unused))
#else
#define GKT_MAYBE_UNUSED
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int gkt_pass, gkt_fail;
static unsigned long long gkt_rng_state;

#define GKT_CHECK(cond, ...)                                                  \
    do {                                                                      \
        if (cond) gkt_pass++;                                                 \
        else {                                                                \
            gkt_fail++;                                                       \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);            \
            printf(__VA_ARGS__);                                              \
            printf("\n");                                                     \
        }                                                                     \
    } while (0)
/* a call that must succeed; prints the context's error text if not */
#define GKT_OK(ctx, call)                                                                           \
    do {                                                                                            \
        gk_status s_ = (call);                                                                      \
        GKT_CHECK(s_ == GK_OK, "%s -> %s: %s", #call, gk_status_name(s_), gk_last_error(ctx));      \
    } while (0)
/* a call that must fail with status `want` and say something containing `text` */
#define GKT_FAILS(ctx, call, want, text)                                                             \
    do {                                                                                             \
        gk_status s_ = (call);                                                                       \
        const char *m_ = gk_last_error(ctx);                                                         \
        GKT_CHECK(s_ == (want) && strstr(m_, text) != NULL, "%s -> %s (want %s) msg \"%s\" (want \"%s\")", \
                  #call, gk_status_name(s_), gk_status_name(want), m_, text);                        \
    } while (0)

static void gkt_seed(void) {
    const char *e = getenv("GKT_SEED");
    gkt_rng_state = e ? strtoull(e, NULL, 10) : (unsigned long long)time(NULL) * 2654435761ull + (unsigned long long)clock();
    if (!gkt_rng_state) gkt_rng_state = 1;
    printf("seed %llu (GKT_SEED=%llu replays it)\n", gkt_rng_state, gkt_rng_state);
}
static unsigned long long gkt_u64(void) {
    unsigned long long x = gkt_rng_state;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    return gkt_rng_state = x;
}
GKT_MAYBE_UNUSED static double gkt_uniform(double lo, double hi) { return lo + (hi - lo) * (double)(gkt_u64() >> 11) / 9007199254740992.0; }

static int gkt_done(const char *name) {
    printf("%s: %d passed, %d failed\n", name, gkt_pass, gkt_fail);
    fflush(stdout);
    return gkt_fail != 0;
}

static gk_ctx *gkt_make(gk_backend b) {
    gk_ctx *c = NULL;
    gk_ctx_desc d;
    memset(&d, 0, sizeof d);
    d.backend = b;
    d.log_level = GK_LOG_ERROR;
    if (getenv("GKT_CACHE_DIR")) d.cache_dir = getenv("GKT_CACHE_DIR");
    if (gk_ctx_create(&d, &c) != GK_OK) {
        printf("cannot create a context: %s\n", gk_last_error(NULL));
        exit(2);
    }
    return c;
}
GKT_MAYBE_UNUSED static gk_ctx *gkt_dut(void) {
    /* GKT_BACKEND=cuda makes a missing GPU an error instead of a CPU run */
    const char *e = getenv("GKT_BACKEND");
    return gkt_make(e && strcmp(e, "cuda") == 0 ? GK_BACKEND_CUDA : e && strcmp(e, "cpu") == 0 ? GK_BACKEND_CPU : GK_BACKEND_AUTO);
}
GKT_MAYBE_UNUSED static gk_ctx *gkt_ref(void) { return gkt_make(GK_BACKEND_CPU); }

/* max |a-b| / max(|b|) over n doubles (NaN mismatch -> inf) */
GKT_MAYBE_UNUSED static double gkt_relerr(const double *a, const double *b, size_t n) {
    double num = 0, den = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        if (isnan(a[i]) != isnan(b[i])) return INFINITY;
        if (isnan(a[i])) continue;
        if (isinf(a[i]) || isinf(b[i])) { if (a[i] != b[i]) return INFINITY; continue; }
        if (fabs(a[i] - b[i]) > num) num = fabs(a[i] - b[i]);
        if (fabs(b[i]) > den) den = fabs(b[i]);
    }
    return den > 0 ? num / den : num;
}
#endif
