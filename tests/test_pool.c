/* test_pool.c - the memory pool: size classes, reuse, quota, LRU eviction to
   host memory and restore on use, pins, statistics, threads. Runs on the
   device under test; the CPU backend runs the same pool logic over malloc. */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkt.h"
#include <pthread.h>

static gk_ctx *make(size_t quota, int no_evict) {
    gk_ctx *c = NULL;
    gk_ctx_desc d;
    memset(&d, 0, sizeof d);
    d.memory_quota = quota;
    d.disable_eviction = no_evict;
    d.log_level = GK_LOG_ERROR;
    if (gk_ctx_create(&d, &c) != GK_OK) { printf("ctx: %s\n", gk_last_error(NULL)); exit(2); }
    return c;
}

static void test_classes(void) {
    size_t cs;
    int k;
    GKT_CHECK(gk__size_class(1, &cs) == 0 && cs == 512, "1 -> %zu", cs);
    GKT_CHECK(gk__size_class(512, &cs) == 0 && cs == 512, "512");
    GKT_CHECK(gk__size_class(513, &cs) == 1 && cs == 640, "513 -> %zu", cs);
    GKT_CHECK(gk__size_class(1024, &cs) == 4 && cs == 1024, "1024 -> class %d", gk__size_class(1024, &cs));
    GKT_CHECK(gk__size_class((size_t)64 << 20, &cs) == 68 && cs == (size_t)64 << 20, "64 MiB");
    GKT_CHECK(gk__size_class(((size_t)64 << 20) + 1, &cs) == GK__LARGE_CLASS && cs == (size_t)66 << 20, "large");
    for (k = 0; k < 20000; k++) {
        size_t n = (size_t)gkt_uniform(1, 200e6);
        int c1 = gk__size_class(n, &cs), c2;
        size_t cs2;
        if (cs < n || cs > n + n / 4 + 512 || c1 < 0 || c1 > GK__LARGE_CLASS) break;
        /* every size of a class maps to the same class size */
        if (c1 != GK__LARGE_CLASS && ((c2 = gk__size_class(cs, &cs2)) != c1 || cs2 != cs)) break;
    }
    GKT_CHECK(k == 20000, "class of %d-th size wrong", k);
}

static void put(gk_ctx *c, gk_tensor t, size_t n, float base) {
    float *h = (float *)malloc(n * 4);
    size_t i;
    for (i = 0; i < n; i++) h[i] = base + (float)i;
    GKT_OK(c, gk_copy_from_host(c, t, h, n * 4));
    free(h);
}
static int check(gk_ctx *c, gk_tensor t, size_t n, float base) {
    float *h = (float *)malloc(n * 4);
    size_t i;
    int ok = gk_copy_to_host(c, t, h, n * 4) == GK_OK;
    for (i = 0; ok && i < n; i++) ok = h[i] == base + (float)i;
    free(h);
    return ok;
}

static void test_reuse_and_quota(void) {
    gk_ctx *c = make((size_t)1 << 20, 0);
    gk_tensor a, b, x;
    gk_pool_stats s0, s1;
    gk_tensor_info ia;
    int64_t n600k[1] = { 150000 }, n1000[1] = { 250 }, n500k[1] = { 125000 };
    /* reuse */
    GKT_OK(c, gk_tensor_empty(c, GK_F32, 1, n1000, &x));
    GKT_OK(c, gk_tensor_free(c, x));
    GKT_OK(c, gk_pool_stats_get(c, &s0));
    GKT_CHECK(s0.cached == 1024 && s0.used == 0, "cached %zu used %zu", s0.cached, s0.used);
    GKT_OK(c, gk_tensor_empty(c, GK_F32, 1, n1000, &x));
    GKT_OK(c, gk_pool_stats_get(c, &s1));
    GKT_CHECK(s1.reuses == s0.reuses + 1 && s1.driver_allocs == s0.driver_allocs, "reused: reuses %llu driver %llu",
              (unsigned long long)s1.reuses, (unsigned long long)s1.driver_allocs);
    GKT_OK(c, gk_tensor_free(c, x));
    /* two 600 KB tensors under a 1 MiB quota: the idle one goes to host memory */
    GKT_OK(c, gk_tensor_empty(c, GK_F32, 1, n600k, &a));
    put(c, a, 150000, 1.0f);
    GKT_OK(c, gk_pool_stats_get(c, &s0));
    GKT_CHECK(s0.cached == 1024 && s0.releases == 0, "no pressure yet: the cached block stays");
    GKT_OK(c, gk_tensor_empty(c, GK_F32, 1, n600k, &b));
    put(c, b, 150000, 7.0f);
    GKT_OK(c, gk_pool_stats_get(c, &s1));
    GKT_OK(c, gk_tensor_info_get(c, a, &ia));
    GKT_CHECK(s1.evictions == s0.evictions + 1 && !ia.resident && s1.evicted > 0, "a evicted (evictions %llu, resident %d)",
              (unsigned long long)s1.evictions, ia.resident);
    GKT_CHECK(s1.used + s1.cached <= s1.quota, "within quota: %zu + %zu > %zu", s1.used, s1.cached, s1.quota);
    GKT_CHECK(s1.releases == 1 && s1.cached == 0, "cached blocks go before live ones: releases %llu", (unsigned long long)s1.releases);
    /* using a restores it (evicting b, now least recently used) with its data */
    GKT_CHECK(check(c, a, 150000, 1.0f), "a's data survived eviction");
    GKT_OK(c, gk_pool_stats_get(c, &s0));
    GKT_CHECK(s0.restores == s1.restores + 1 && s0.evictions == s1.evictions + 1, "restore %llu evictions %llu",
              (unsigned long long)s0.restores, (unsigned long long)s0.evictions);
    GKT_CHECK(check(c, b, 150000, 7.0f), "b's data survived");
    /* pinned storage is never evicted: with a pinned, b cannot come back */
    GKT_OK(c, gk_tensor_pin(c, b));
    GKT_OK(c, gk_tensor_info_get(c, a, &ia));
    GKT_CHECK(!ia.resident, "a was evicted for b");
    {
        float tmp[4];
        gk_tensor va;
        GKT_OK(c, gk_view_slice(c, a, 0, 0, 4, 1, &va));
        GKT_FAILS(c, gk_copy_to_host(c, va, tmp, 16), GK_ERR_OUT_OF_MEMORY, "pinned");
        gk_tensor_free(c, va);
    }
    GKT_OK(c, gk_pool_stats_get(c, &s0));
    GKT_CHECK(s0.pinned >= 600000, "pinned bytes %zu", s0.pinned);
    GKT_FAILS(c, gk_tensor_evict(c, b), GK_ERR_STATE, "pinned");
    GKT_OK(c, gk_tensor_unpin(c, b));
    GKT_FAILS(c, gk_tensor_unpin(c, b), GK_ERR_STATE, "not pinned");
    GKT_CHECK(check(c, a, 150000, 1.0f), "a back after unpin");
    /* explicit eviction, then a freed evicted tensor gives its host copy back */
    GKT_OK(c, gk_tensor_evict(c, a));
    GKT_OK(c, gk_pool_stats_get(c, &s1));
    GKT_OK(c, gk_tensor_free(c, a));
    GKT_OK(c, gk_pool_stats_get(c, &s0));
    GKT_CHECK(s1.evicted - s0.evicted == 655360, "freeing an evicted tensor drops its host copy: %zu -> %zu", s1.evicted, s0.evicted);
    /* a lowered quota releases cached blocks and evicts idle ones */
    GKT_OK(c, gk_tensor_empty(c, GK_F32, 1, n500k, &x));
    GKT_OK(c, gk_tensor_free(c, x));
    GKT_OK(c, gk_pool_set_quota(c, 700000));
    GKT_OK(c, gk_pool_stats_get(c, &s0));
    GKT_CHECK(s0.used + s0.cached <= 700000 && s0.quota == 700000, "used %zu cached %zu", s0.used, s0.cached);
    GKT_CHECK(check(c, b, 150000, 7.0f), "b intact");
    GKT_OK(c, gk_pool_trim(c));
    GKT_OK(c, gk_pool_stats_get(c, &s0));
    GKT_CHECK(s0.cached == 0 && s0.peak >= 655360 + 1024 && s0.peak <= ((size_t)1 << 20), "trim: cached %zu peak %zu", s0.cached, s0.peak);
    gk_tensor_free(c, b);
    gk_ctx_destroy(c);
    /* eviction disabled: a clear out-of-memory instead */
    c = make((size_t)1 << 20, 1);
    GKT_OK(c, gk_tensor_empty(c, GK_F32, 1, n600k, &a));
    GKT_FAILS(c, gk_tensor_empty(c, GK_F32, 1, n600k, &b), GK_ERR_OUT_OF_MEMORY, "eviction disabled");
    gk_tensor_free(c, a);
    gk_ctx_destroy(c);
}

typedef struct { gk_ctx *c; unsigned seed; int fails; } worker_arg;
static void *worker(void *p) {
    worker_arg *w = (worker_arg *)p;
    gk_tensor live[8];
    int nlive = 0, i;
    unsigned s = w->seed;
    for (i = 0; i < 3000; i++) {
        s = s * 1664525u + 1013904223u;
        if (nlive < 8 && (s >> 16) % 3 != 0) {
            int64_t n = 1 + (int64_t)((s >> 8) % 20000);
            if (gk_tensor_empty(w->c, GK_F32, 1, &n, &live[nlive]) == GK_OK) {
                if (gk_fill(w->c, live[nlive], (double)(s % 100)) != GK_OK) w->fails++;
                nlive++;
            } else w->fails++;
        } else if (nlive > 0) {
            if (gk_tensor_free(w->c, live[--nlive]) != GK_OK) w->fails++;
        }
    }
    while (nlive > 0) if (gk_tensor_free(w->c, live[--nlive]) != GK_OK) w->fails++;
    return NULL;
}
static void test_threads(void) {
    gk_ctx *c = make((size_t)4 << 20, 0);
    pthread_t th[4];
    worker_arg wa[4];
    gk_pool_stats s;
    int i, fails = 0;
    for (i = 0; i < 4; i++) {
        wa[i].c = c; wa[i].seed = (unsigned)gkt_u64(); wa[i].fails = 0;
        pthread_create(&th[i], NULL, worker, &wa[i]);
    }
    for (i = 0; i < 4; i++) { pthread_join(th[i], NULL); fails += wa[i].fails; }
    GKT_CHECK(fails == 0, "%d failed calls in threads: %s", fails, gk_last_error(c));
    GKT_OK(c, gk_pool_stats_get(c, &s));
    GKT_CHECK(s.used == 0 && s.evicted == 0 && s.cached <= s.quota, "after threads: used %zu evicted %zu", s.used, s.evicted);
    GKT_CHECK(s.allocations > 1000 && s.reuses > 0, "allocations %llu reuses %llu", (unsigned long long)s.allocations, (unsigned long long)s.reuses);
    gk_ctx_destroy(c);
}

int main(void) {
    gkt_seed();
    test_classes();
    test_reuse_and_quota();
    test_threads();
    return gkt_done("test_pool");
}
