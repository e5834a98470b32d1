/* test_threads.c - the thread-safety contract (gpukit.h THREADS), run under
   ThreadSanitizer on CI (make test-tsan; src/groups.txt kind tsan; also
   plain and under ASan/UBSan as a cputest):
   - contexts created on many threads at once get distinct serials: no
     handle of one passes as another's;
   - 8 threads on one shared CPU-backend context with a small pool quota
     (so blocks are evicted and restored under them): tensors made, used and
     freed, ops (add, scale, matmul, softmax, sum) checked against host
     arithmetic, each thread on its own stream (gk_set_stream is per thread)
     with graph captures that record only its own ops, errors with each
     thread's own marker (gk_last_error(ctx) is per thread), user kernels
     through the JIT and its disk cache (the same source on every thread and
     one of each thread's own, NVRTC logs per thread), and tensors handed to
     another thread to check and free;
   - 8 contexts compiling at once, the process's first compiles (the kernel
     headers and the cache files of each context);
   - one tokenizer shared by every thread (encode / decode against a
     single-threaded result);
   - one gk_llm per thread on its own context, greedy generation equal to a
     single-threaded run.
   POSIX threads; not built for Windows. */
#define GPUKIT_IMPLEMENTATION
#define GPUKIT_LLM_IMPLEMENTATION
#include "../gpukit_llm.h"
#include "gkt.h"
#include <pthread.h>
#include <dirent.h>
#include <unistd.h>

#define NT 8                 /* threads */
#define ITERS 250            /* shared-context iterations a thread */
#define HANDOFF 6            /* tensors each thread leaves for the next one */
#define NCTX 24              /* contexts each thread creates at once */
#define GEN_TOKENS 6
#define MODEL_DIR "tests/fixtures/llm/qwen3"

/* checks from many threads: counted atomically, the first failures printed whole */
static int t_pass, t_fail;
static pthread_mutex_t print_mu = PTHREAD_MUTEX_INITIALIZER;
#define TCHECK(cond, ...)                                                                    \
    do {                                                                                     \
        if (cond) __atomic_add_fetch(&t_pass, 1, __ATOMIC_RELAXED);                          \
        else if (__atomic_add_fetch(&t_fail, 1, __ATOMIC_RELAXED) <= 40) {                   \
            pthread_mutex_lock(&print_mu);                                                   \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                           \
            printf(__VA_ARGS__);                                                             \
            printf("\n");                                                                    \
            pthread_mutex_unlock(&print_mu);                                                 \
        }                                                                                    \
    } while (0)
#define TOK(ctx, call)                                                                       \
    do {                                                                                     \
        gk_status s_ = (call);                                                               \
        TCHECK(s_ == GK_OK, "%s -> %s: %s", #call, gk_status_name(s_), gk_last_error(ctx));  \
    } while (0)

static uint64_t rng_next(uint64_t *s) {
    uint64_t x = *s;
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
    return *s = x;
}
static float rng_f(uint64_t *s) { return (float)((double)(rng_next(s) >> 11) / 9007199254740992.0 * 2.0 - 1.0); }

static void run_threads(void *(*fn)(void *), void *args, size_t argsize) {
    pthread_t th[NT];
    int i;
    for (i = 0; i < NT; i++) pthread_create(&th[i], NULL, fn, (char *)args + argsize * (size_t)i);
    for (i = 0; i < NT; i++) pthread_join(th[i], NULL);
}

/* ---- contexts created at once on every thread ---- */
typedef struct { int id; gk_ctx *ctx[NCTX]; gk_tensor t[NCTX]; } create_arg;
static void *create_worker(void *p) {
    create_arg *a = (create_arg *)p;
    int64_t n = 4;
    int i;
    gk_ctx_desc d;
    memset(&d, 0, sizeof d);
    d.backend = GK_BACKEND_CPU;
    d.log_level = GK_LOG_ERROR;
    d.disable_disk_cache = 1;
    for (i = 0; i < NCTX; i++) {
        a->ctx[i] = NULL;
        TOK(NULL, gk_ctx_create(&d, &a->ctx[i]));
        if (a->ctx[i]) TOK(a->ctx[i], gk_tensor_empty(a->ctx[i], GK_F32, 1, &n, &a->t[i]));
    }
    return NULL;
}
static void test_concurrent_create(void) {
    static create_arg a[NT];
    int i, j, k, l, bad = 0;
    for (i = 0; i < NT; i++) a[i].id = i;
    run_threads(create_worker, a, sizeof a[0]);
    /* every context's tensor is foreign to every other context (equal serials would make them pass) */
    for (i = 0; i < NT; i++)
        for (j = 0; j < NCTX; j++)
            for (k = 0; k < NT; k++)
                for (l = 0; l < NCTX; l++)
                    if ((i != k || j != l) && a[i].ctx[j] && a[k].ctx[l] && gk_tensor_valid(a[k].ctx[l], a[i].t[j])) bad++;
    GKT_CHECK(bad == 0, "%d handles passed as another context's (contexts created at once share a serial)", bad);
    for (i = 0; i < NT; i++)
        for (j = 0; j < NCTX; j++) gk_ctx_destroy(a[i].ctx[j]);
}

/* ---- one shared context ---- */
static gk_ctx *shared;
static gk_tokenizer *tok;
static const char *const texts[] = {
    "Hello, world! How are you today?",
    "The quick brown fox jumps over the lazy dog. 1234567890",
    "  spaces,\ttabs\nand newlines\n\n",
    "caf\xc3\xa9 na\xc3\xafve \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e \xf0\x9f\x98\x80 emoji",
    "<|im_start|>user\nHi there<|im_end|>",
};
#define NTEXTS ((int)(sizeof texts / sizeof texts[0]))
static gk_ids ref_ids[NTEXTS];
static gk_buf ref_text[NTEXTS];
static char cache_dir[256];
static int have_nvrtc;

static const char *COMMON_SRC =
    "extern \"C\" __global__ void addk(float *y, const float *x, float k, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = x[i] + k;\n"
    "}\n";
static void addk_cpu(const gk_cpu_launch *l) {
    float *y = (float *)l->ptrs[0];
    const float *x = (const float *)l->ptrs[1];
    float k = l->args[2].v.f32;
    int n = l->args[3].v.i32, i;
    for (i = 0; i < n; i++) y[i] = x[i] + k;
}

typedef struct {
    int id;
    uint64_t rng;
    gk_tensor handoff[HANDOFF];
    float handoff_val[HANDOFF];
    int nhandoff;
} worker_arg;

static int close_to(float a, double b, double tol) { return fabs((double)a - b) <= tol * (1.0 + fabs(b)); }

/* gk_add, gk_scale and a host round trip on a tensor of n floats */
static void ops_elementwise(worker_arg *w, gk_ctx *c, int it) {
    int64_t n = 1 + (int64_t)(rng_next(&w->rng) % 40000); /* up to 160 KB: the quota evicts */
    float *ha = (float *)malloc(sizeof(float) * (size_t)n), *hb = (float *)malloc(sizeof(float) * (size_t)n),
          *ho = (float *)malloc(sizeof(float) * (size_t)n);
    gk_tensor a, b, o;
    int64_t i;
    int ok = 1;
    for (i = 0; i < n; i++) { ha[i] = rng_f(&w->rng); hb[i] = (float)(w->id * 1000 + it); }
    TOK(c, gk_tensor_from_host(c, GK_F32, 1, &n, ha, &a));
    TOK(c, gk_tensor_from_host(c, GK_F32, 1, &n, hb, &b));
    TOK(c, gk_tensor_empty(c, GK_F32, 1, &n, &o));
    TOK(c, gk_add(c, o, a, b));
    TOK(c, gk_scale(c, o, o, 0.5));
    TOK(c, gk_copy_to_host(c, o, ho, sizeof(float) * (size_t)n));
    for (i = 0; i < n; i++) ok &= ho[i] == (ha[i] + hb[i]) * 0.5f;
    TCHECK(ok, "thread %d iteration %d: add / scale of %lld floats wrong", w->id, it, (long long)n);
    TOK(c, gk_tensor_free(c, a));
    TOK(c, gk_tensor_free(c, b));
    TOK(c, gk_tensor_free(c, o));
    free(ha); free(hb); free(ho);
}

/* gk_matmul [M,K] x [K,N] and gk_softmax over its rows, against host loops */
static void ops_matmul_softmax(worker_arg *w, gk_ctx *c, int it) {
    int64_t M = 1 + (int64_t)(rng_next(&w->rng) % 24), K = 1 + (int64_t)(rng_next(&w->rng) % 24), N = 1 + (int64_t)(rng_next(&w->rng) % 24);
    int64_t sa[2], sb[2], so[2], i, j, k;
    float *ha = (float *)malloc(sizeof(float) * (size_t)(M * K)), *hb = (float *)malloc(sizeof(float) * (size_t)(K * N));
    float *ho = (float *)malloc(sizeof(float) * (size_t)(M * N)), *hs = (float *)malloc(sizeof(float) * (size_t)(M * N));
    double *ref = (double *)malloc(sizeof(double) * (size_t)(M * N));
    gk_tensor a, b, o, s;
    int ok = 1, oks = 1;
    sa[0] = M; sa[1] = K; sb[0] = K; sb[1] = N; so[0] = M; so[1] = N;
    for (i = 0; i < M * K; i++) ha[i] = rng_f(&w->rng);
    for (i = 0; i < K * N; i++) hb[i] = rng_f(&w->rng);
    TOK(c, gk_tensor_from_host(c, GK_F32, 2, sa, ha, &a));
    TOK(c, gk_tensor_from_host(c, GK_F32, 2, sb, hb, &b));
    TOK(c, gk_tensor_empty(c, GK_F32, 2, so, &o));
    TOK(c, gk_tensor_empty(c, GK_F32, 2, so, &s));
    TOK(c, gk_matmul(c, o, a, b, NULL));
    TOK(c, gk_softmax(c, s, o));
    TOK(c, gk_copy_to_host(c, o, ho, sizeof(float) * (size_t)(M * N)));
    TOK(c, gk_copy_to_host(c, s, hs, sizeof(float) * (size_t)(M * N)));
    for (i = 0; i < M; i++) {
        double mx = -1e300, sum = 0;
        for (j = 0; j < N; j++) {
            double acc = 0;
            for (k = 0; k < K; k++) acc += (double)ha[i * K + k] * hb[k * N + j];
            ref[i * N + j] = acc;
            ok &= close_to(ho[i * N + j], acc, 1e-4);
            if (acc > mx) mx = acc;
        }
        for (j = 0; j < N; j++) sum += exp(ref[i * N + j] - mx);
        for (j = 0; j < N; j++) oks &= close_to(hs[i * N + j], exp(ref[i * N + j] - mx) / sum, 1e-4);
    }
    TCHECK(ok, "thread %d iteration %d: matmul %lldx%lldx%lld wrong", w->id, it, (long long)M, (long long)K, (long long)N);
    TCHECK(oks, "thread %d iteration %d: softmax wrong", w->id, it);
    TOK(c, gk_tensor_free(c, a));
    TOK(c, gk_tensor_free(c, b));
    TOK(c, gk_tensor_free(c, o));
    TOK(c, gk_tensor_free(c, s));
    free(ha); free(hb); free(ho); free(hs); free(ref);
}

/* errors carry this thread's marker, whatever the other threads fail with */
static void errors(worker_arg *w, gk_ctx *c, int it) {
    char want[64];
    int64_t bad = -(1000000 + (int64_t)it * NT + w->id), one = 1;
    gk_tensor t, u;
    snprintf(want, sizeof want, "thread %d iteration %d", w->id, it);
    gk_error_set(c, GK_ERR_IO, "%s marker", want);
    TOK(c, gk_tensor_empty(c, GK_F32, 1, &one, &t)); /* successful calls leave the text alone */
    TOK(c, gk_fill(c, t, 1.0));
    TCHECK(strstr(gk_last_error(c), want) != NULL, "thread %d: gk_last_error(ctx) is \"%s\", want \"%s\"", w->id, gk_last_error(c), want);
    TCHECK(gk_tensor_empty(c, GK_F32, 1, &bad, &u) == GK_ERR_SHAPE, "negative size accepted");
    snprintf(want, sizeof want, "negative size %lld", (long long)bad);
    TOK(c, gk_fill(c, t, 2.0));
    TCHECK(strstr(gk_last_error(c), want) != NULL, "thread %d: gk_last_error(ctx) is \"%s\", want \"%s\"", w->id, gk_last_error(c), want);
    TCHECK(gk_fill(c, u, 1.0) == GK_ERR_INVALID_HANDLE && strstr(gk_last_error(c), "null tensor handle"), "thread %d: %s", w->id,
           gk_last_error(c));
    TOK(c, gk_tensor_free(c, t));
    TCHECK(gk_tensor_free(c, t) == GK_ERR_INVALID_HANDLE && strstr(gk_last_error(c), "use after free"), "thread %d: %s", w->id,
           gk_last_error(c));
    TCHECK(strstr(gk_last_error(NULL), "marker") == NULL, "a context's error leaked into the thread's own: %s", gk_last_error(NULL));
}

/* a graph captured on this thread's stream records this thread's ops only */
static void capture(worker_arg *w, gk_ctx *c, gk_stream *mine, int it) {
    int64_t n = 64, i;
    float h[64], o[64];
    gk_tensor x, y;
    gk_graph *g = NULL;
    int ok = 1;
    for (i = 0; i < n; i++) h[i] = (float)(w->id + it + i);
    TOK(c, gk_tensor_from_host(c, GK_F32, 1, &n, h, &x));
    TOK(c, gk_tensor_empty(c, GK_F32, 1, &n, &y));
    TOK(c, gk_fill(c, y, 0.0));
    TOK(c, gk_graph_begin(c, NULL));
    TOK(c, gk_add(c, y, y, x)); /* recorded, not run */
    TOK(c, gk_graph_end(c, NULL, &g));
    TCHECK(gk_get_stream(c) == mine, "thread %d: current stream changed", w->id);
    TOK(c, gk_graph_launch(c, g, NULL));
    TOK(c, gk_graph_launch(c, g, NULL));
    TOK(c, gk_copy_to_host(c, y, o, sizeof o));
    for (i = 0; i < n; i++) ok &= o[i] == 2 * h[i];
    TCHECK(ok, "thread %d iteration %d: graph replays wrong (foreign ops captured, or ours lost)", w->id, it);
    TOK(c, gk_graph_destroy(c, g));
    TOK(c, gk_tensor_free(c, x));
    TOK(c, gk_tensor_free(c, y));
}

/* user kernels: the same source on every thread (the disk cache) and one of this thread's own */
static void jit(worker_arg *w, gk_ctx *c, int it) {
    gk_module_desc md;
    gk_module *m = NULL;
    gk_kernel *k = NULL;
    gk_launch_desc ld;
    gk_arg args[4];
    int64_t n = 256, i;
    float hx[256], hy[256];
    gk_tensor x, y;
    char src[512], name[64];
    int ok = 1;
    memset(&md, 0, sizeof md);
    if (it % 3 == 0) {
        md.source = COMMON_SRC;
        md.name = "common.cu";
    } else { /* a source of this thread's (a new cache entry once, then hits) */
        snprintf(src, sizeof src, "%s// thread %d variant %d\n", COMMON_SRC, w->id, it < 100 ? it % 2 : 100);
        snprintf(name, sizeof name, "thread%d.cu", w->id);
        md.source = src;
        md.name = name;
    }
    TOK(c, gk_module_create(c, &md, &m));
    if (!m) return;
    TOK(c, gk_module_kernel(c, m, "addk", &k));
    if (k) TOK(c, gk_kernel_set_cpu(c, k, addk_cpu, NULL));
    for (i = 0; i < n; i++) hx[i] = (float)(i + w->id);
    TOK(c, gk_tensor_from_host(c, GK_F32, 1, &n, hx, &x));
    TOK(c, gk_tensor_empty(c, GK_F32, 1, &n, &y));
    args[0] = gk_arg_tensor(y);
    args[1] = gk_arg_tensor(x);
    args[2] = gk_arg_f32((float)it);
    args[3] = gk_arg_i32((int32_t)n);
    memset(&ld, 0, sizeof ld);
    ld.grid[0] = 1;
    ld.block[0] = 256;
    ld.args = args;
    ld.num_args = 4;
    if (k) TOK(c, gk_kernel_launch(c, k, &ld));
    TOK(c, gk_copy_to_host(c, y, hy, sizeof hy));
    for (i = 0; i < n; i++) ok &= hy[i] == hx[i] + (float)it;
    TCHECK(ok, "thread %d iteration %d: user kernel result wrong", w->id, it);
    TOK(c, gk_tensor_free(c, x));
    TOK(c, gk_tensor_free(c, y));
    TOK(c, gk_module_destroy(c, m));
}

/* a compile error: the NVRTC log (gk_jit_log) and the error are this thread's */
static void jit_error(worker_arg *w, gk_ctx *c) {
    gk_module_desc md;
    gk_module *m = NULL;
    char src[128], want[64];
    gk_status st;
    snprintf(want, sizeof want, "broken_in_thread_%d", w->id);
    snprintf(src, sizeof src, "extern \"C\" __global__ void f(float *p) { %s(); }\n", want);
    memset(&md, 0, sizeof md);
    md.source = src;
    md.name = "broken.cu";
    st = gk_module_create(c, &md, &m);
    TCHECK(st == GK_ERR_COMPILE && strstr(gk_last_error(c), want), "thread %d: %s: %s", w->id, gk_status_name(st), gk_last_error(c));
    TCHECK(strstr(gk_jit_log(c), want) != NULL, "thread %d: gk_jit_log is \"%.200s\"", w->id, gk_jit_log(c));
}

static void tokenizer_round(worker_arg *w, int it) {
    int t = (int)((unsigned)(w->id + it) % (unsigned)NTEXTS);
    gk_ids ids = { 0, 0, 0 };
    gk_buf text = { 0, 0, 0 };
    TOK(NULL, gk_tokenizer_encode(tok, texts[t], strlen(texts[t]), 0, &ids));
    TCHECK(ids.len == ref_ids[t].len && (ids.len == 0 || memcmp(ids.data, ref_ids[t].data, ids.len * sizeof(int32_t)) == 0),
           "thread %d: text %d encodes differently (%zu ids, want %zu)", w->id, t, ids.len, ref_ids[t].len);
    TOK(NULL, gk_tokenizer_decode(tok, ids.data, ids.len, 0, &text));
    TCHECK(text.len == ref_text[t].len && memcmp(text.data, ref_text[t].data, text.len) == 0, "thread %d: text %d decodes differently",
           w->id, t);
    gk_ids_free(&ids);
    gk_buf_free(&text);
}

/* a tensor this thread keeps all along: evicted by the others' allocations, restored on use */
#define KEEP 131072
static void check_keep(worker_arg *w, gk_ctx *c, gk_tensor keep, float *h, int it) {
    int64_t i;
    int ok = 1;
    TOK(c, gk_copy_to_host(c, keep, h, sizeof(float) * KEEP));
    for (i = 0; i < KEEP; i++) ok &= h[i] == (float)(w->id * KEEP + i);
    TCHECK(ok, "thread %d iteration %d: the kept tensor lost its values", w->id, it);
}

static void *shared_worker(void *p) {
    worker_arg *w = (worker_arg *)p;
    gk_ctx *c = shared;
    gk_stream *mine = NULL;
    gk_tensor keep;
    int64_t nk = KEEP, i;
    float *hk = (float *)malloc(sizeof(float) * KEEP);
    int it;
    TCHECK(gk_last_error(c)[0] == 0, "thread %d: a new thread has another thread's error: \"%s\"", w->id, gk_last_error(c));
    TCHECK(gk_get_stream(c) == gk_default_stream(c), "thread %d: a new thread does not start on the default stream", w->id);
    TOK(c, gk_stream_create(c, GK_PRIORITY_NORMAL, &mine));
    TOK(c, gk_set_stream(c, mine));
    if (have_nvrtc && w->id < 4) jit_error(w, c);
    for (i = 0; i < KEEP; i++) hk[i] = (float)(w->id * KEEP + i);
    TOK(c, gk_tensor_from_host(c, GK_F32, 1, &nk, hk, &keep));
    for (it = 0; it < ITERS; it++) {
        if (it % 4 == 0) check_keep(w, c, keep, hk, it);
        TCHECK(gk_get_stream(c) == mine, "thread %d iteration %d: the current stream is not this thread's", w->id, it);
        ops_elementwise(w, c, it);
        if (it % 2 == 0) ops_matmul_softmax(w, c, it);
        errors(w, c, it);
        if (it % 8 == 0) capture(w, c, mine, it);
        if (it % 20 == 0) jit(w, c, it / 20);
        tokenizer_round(w, it);
    }
    /* tensors for the next thread to check and free */
    for (it = 0; it < HANDOFF; it++) {
        int64_t n = 1000;
        w->handoff_val[it] = (float)(w->id * 100 + it);
        w->handoff[it].id = 0;
        TOK(c, gk_tensor_empty(c, GK_F32, 1, &n, &w->handoff[it]));
        TOK(c, gk_fill(c, w->handoff[it], (double)w->handoff_val[it]));
    }
    check_keep(w, c, keep, hk, it);
    TOK(c, gk_tensor_free(c, keep));
    free(hk);
    TOK(c, gk_set_stream(c, NULL));
    TOK(c, gk_stream_destroy(c, mine));
    return NULL;
}
static worker_arg wargs[NT];
static void *handoff_worker(void *p) {
    worker_arg *w = (worker_arg *)p, *from = &wargs[(w->id + 1) % NT];
    float h[1000];
    int i, k, ok;
    for (i = 0; i < HANDOFF; i++) {
        TOK(shared, gk_copy_to_host(shared, from->handoff[i], h, sizeof h));
        for (k = 0, ok = 1; k < 1000; k++) ok &= h[k] == from->handoff_val[i];
        TCHECK(ok, "thread %d: a tensor of thread %d lost its values", w->id, from->id);
        TOK(shared, gk_tensor_free(shared, from->handoff[i]));
    }
    return NULL;
}

static void rm_cache_dir(void) {
    DIR *d = opendir(cache_dir);
    struct dirent *e;
    char p[600];
    if (!d) return;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        snprintf(p, sizeof p, "%s/%s", cache_dir, e->d_name);
        remove(p);
    }
    closedir(d);
    rmdir(cache_dir);
}

static void test_shared_context(void) {
    gk_ctx_desc d;
    gk_pool_stats ps;
    memset(&d, 0, sizeof d);
    d.backend = GK_BACKEND_CPU;
    d.log_level = GK_LOG_ERROR;
    d.cache_dir = cache_dir;
    d.memory_quota = (size_t)3 << 20; /* below what 8 threads hold at once: idle blocks are evicted and restored */
    GKT_OK(NULL, gk_ctx_create(&d, &shared));
    if (!shared) return;
    gk_error_set(shared, GK_ERR_IO, "the main thread's error");
    run_threads(shared_worker, wargs, sizeof wargs[0]);
    GKT_CHECK(strcmp(gk_last_error(shared), "the main thread's error") == 0, "the main thread's error became \"%s\"", gk_last_error(shared));
    run_threads(handoff_worker, wargs, sizeof wargs[0]);
    GKT_OK(shared, gk_pool_stats_get(shared, &ps));
    GKT_CHECK(ps.used == 0 && ps.evicted == 0, "every tensor freed: used %zu, evicted %zu bytes", ps.used, ps.evicted);
    GKT_CHECK(ps.peak <= d.memory_quota, "peak %zu above the quota %zu", ps.peak, d.memory_quota);
    GKT_CHECK(ps.evictions > 0 && ps.restores > 0, "the quota evicted (%llu) and restored (%llu) blocks under the threads",
              (unsigned long long)ps.evictions, (unsigned long long)ps.restores);
    printf("shared context: %d threads x %d iterations; pool: %llu allocations, %llu evictions, %llu restores\n", NT, ITERS,
           (unsigned long long)ps.allocations, (unsigned long long)ps.evictions, (unsigned long long)ps.restores);
    gk_ctx_destroy(shared);
}

/* ---- a context per thread, each compiling for the first time at once
   (the kernel headers joined and cache files written by every context) ---- */
static void *jit_worker(void *p) {
    worker_arg *w = (worker_arg *)p;
    gk_ctx *c = NULL;
    gk_ctx_desc d;
    int r;
    memset(&d, 0, sizeof d);
    d.backend = GK_BACKEND_CPU;
    d.log_level = GK_LOG_ERROR;
    d.cache_dir = cache_dir;
    TOK(NULL, gk_ctx_create(&d, &c));
    if (!c) return NULL;
    for (r = 0; r < 2; r++) jit(w, c, 100 + r); /* a source of this thread's, twice: compiled, then from the cache */
    gk_ctx_destroy(c);
    return NULL;
}
static void test_jit_contexts(void) {
    if (!have_nvrtc) return;
    run_threads(jit_worker, wargs, sizeof wargs[0]);
}

/* ---- one model per thread, each on its own context ---- */
typedef struct { int id; gk_ids out; gk_status st; } gen_arg;
static gk_status generate(gk_ids *out, gk_ctx **ctx_out) {
    gk_ctx *c = NULL;
    gk_ctx_desc d;
    gk_llm *m = NULL;
    gk_llm_gen_desc gd;
    gk_status st;
    memset(&d, 0, sizeof d);
    d.backend = GK_BACKEND_CPU;
    d.log_level = GK_LOG_ERROR;
    d.disable_disk_cache = 1;
    if ((st = gk_ctx_create(&d, &c)) != GK_OK) return st;
    st = gk_llm_load(c, MODEL_DIR, NULL, &m);
    memset(&gd, 0, sizeof gd);
    gd.max_new_tokens = GEN_TOKENS;
    gd.sampling = GK_LLM_SAMPLE_GREEDY;
    gd.flags = GK_LLM_GEN_IGNORE_EOS;
    if (st == GK_OK) st = gk_llm_generate(m, "Once upon a time", &gd, out, NULL, NULL);
    if (st != GK_OK) printf("generate: %s\n", gk_last_error(c));
    gk_llm_free(m);
    if (ctx_out) *ctx_out = c;
    else gk_ctx_destroy(c);
    return st;
}
static void *gen_worker(void *p) {
    gen_arg *a = (gen_arg *)p;
    a->st = generate(&a->out, NULL);
    return NULL;
}
static void test_generate(void) {
    static gen_arg a[NT];
    gk_ids ref = { 0, 0, 0 };
    int i;
    GKT_CHECK(generate(&ref, NULL) == GK_OK && ref.len == GEN_TOKENS, "single-threaded generation: %zu tokens", ref.len);
    for (i = 0; i < NT; i++) { a[i].id = i; memset(&a[i].out, 0, sizeof a[i].out); }
    run_threads(gen_worker, a, sizeof a[0]);
    for (i = 0; i < NT; i++) {
        GKT_CHECK(a[i].st == GK_OK && a[i].out.len == ref.len && memcmp(a[i].out.data, ref.data, ref.len * sizeof(int32_t)) == 0,
                  "thread %d generated %zu tokens, not the single-threaded ones", i, a[i].out.len);
        gk_ids_free(&a[i].out);
    }
    gk_ids_free(&ref);
}

int main(void) {
    int i;
    gkt_seed();
    /* the first context loads NVRTC here, on one thread: the library's constructors
       run under the dynamic loader's lock, which ThreadSanitizer does not see (it
       reports the first NVRTC calls of other threads as races inside libnvrtc) */
    {
        gk_ctx *c0 = gkt_ref();
        gk_device_info info;
        gk_device_info_get(c0, &info);
        have_nvrtc = info.has_nvrtc;
        if (!have_nvrtc) printf("NVRTC not found: the JIT parts compile nothing\n");
        gk_ctx_destroy(c0);
    }
    test_concurrent_create();
    if (gk_tokenizer_load(MODEL_DIR "/tokenizer.json", &tok) != GK_OK) {
        printf("tokenizer: %s\n", gk_last_error(NULL));
        return 2;
    }
    for (i = 0; i < NTEXTS; i++) {
        GKT_CHECK(gk_tokenizer_encode(tok, texts[i], strlen(texts[i]), 0, &ref_ids[i]) == GK_OK, "%s", gk_last_error(NULL));
        GKT_CHECK(gk_tokenizer_decode(tok, ref_ids[i].data, ref_ids[i].len, 0, &ref_text[i]) == GK_OK, "%s", gk_last_error(NULL));
    }
    snprintf(cache_dir, sizeof cache_dir, "/tmp/gk_threads_XXXXXX");
    if (!mkdtemp(cache_dir)) { printf("mkdtemp: cannot make %s\n", cache_dir); return 2; }
    for (i = 0; i < NT; i++) { wargs[i].id = i; wargs[i].rng = 0x9E3779B97F4A7C15ull * (uint64_t)(i + 1) + gkt_u64(); }
    test_jit_contexts(); /* the process's first compiles, on 8 contexts at once */
    test_shared_context();
    rm_cache_dir();
    test_generate();
    for (i = 0; i < NTEXTS; i++) { gk_ids_free(&ref_ids[i]); gk_buf_free(&ref_text[i]); }
    gk_tokenizer_free(tok);
    gkt_pass += t_pass;
    gkt_fail += t_fail;
    return gkt_done("test_threads");
}
