/* tenants - two tenants share one GPU through gpukit's scheduler: an LLM
   chat session decoding token by token as a Guaranteed task, and a stream
   of large GEMMs as BestEffort. Prints both tenants' latency and
   throughput, alone and together, and the same mix without the scheduler.

     tenants MODEL_DIR [--steps N] [--gemm N] [--gemms-per-task N] [--seconds S]
                       [--no-compare] [--paced N] [--hold] [--backend auto|cuda|cpu] [--json PATH] [--commit HASH]

   MODEL_DIR: a model folder gpukit_llm.h loads (config.json, safetensors,
   tokenizer.json). --steps: decode steps timed in each phase (1000);
   --gemm: the BestEffort GEMMs' size N (N x N times N x N, bf16; 4096);
   --gemms-per-task: GEMMs a BestEffort task issues (4); --seconds: how long
   the BestEffort tenant runs alone (2). While the chat is active the
   scheduler holds the GEMMs' stream by default (only the GEMM already
   running shares the GPU with a decode step); --paced N lets N GEMMs be in
   flight instead (gk_sched_desc.besteffort_inflight), --hold keeps new
   BestEffort tasks from starting (besteffort_hold); --no-compare: skip the run without the scheduler;
   --json: the results as JSON. Exit status 0 on success, 1 on an error, 2
   on bad arguments. */
#define GPUKIT_IMPLEMENTATION
#define GPUKIT_LLM_IMPLEMENTATION
#include "../gpukit_llm.h"
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

typedef struct app {
    gk_ctx *ctx;
    gk_llm *m;
    gk_sched *s;
    float *logits;
    int32_t tok;
    int vocab;
    /* BestEffort */
    int64_t n;
    int per_task;
    gk_tensor a, b, c;
    volatile int be_stop;
    long be_gemms;
    pthread_mutex_t mu;
    int use_sched;
    gk_stream *be_stream; /* without the scheduler */
} app;

static double now_ms(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec * 1e3 + (double)tv.tv_usec / 1e3;
}
static int fail(gk_ctx *ctx, const char *what, gk_status st) {
    fprintf(stderr, "tenants: %s: %s: %s\n", what, gk_status_name(st), gk_last_error(ctx));
    return 1;
}

/* one decode step of the chat session: the next token from the last */
static gk_status decode_step(gk_ctx *ctx, gk_stream *stream, void *user) {
    app *A = (app *)user;
    gk_status st;
    int i, best = 0;
    (void)ctx;
    if (gk_llm_seq_len(A->m, 0) + 2 >= gk_llm_max_ctx(A->m) || gk_llm_seq_len(A->m, 0) >= 512) gk_llm_reset(A->m, 0);
    gk_llm_set_stream(A->m, stream);
    st = gk_llm_forward(A->m, 0, &A->tok, 1, 0, A->logits);
    gk_llm_set_stream(A->m, NULL);
    if (st != GK_OK) return st;
    for (i = 1; i < A->vocab; i++)
        if (A->logits[i] > A->logits[best]) best = i;
    A->tok = best;
    return GK_OK;
}

static gk_status gemms(gk_ctx *ctx, gk_stream *stream, void *user) {
    app *A = (app *)user;
    int i;
    gk_status st = GK_OK;
    (void)stream;
    for (i = 0; i < A->per_task && st == GK_OK; i++) st = gk_matmul(ctx, A->c, A->a, A->b, NULL);
    if (st == GK_OK) {
        pthread_mutex_lock(&A->mu);
        A->be_gemms += A->per_task;
        pthread_mutex_unlock(&A->mu);
    }
    return st;
}

/* the BestEffort tenant: keeps two tasks outstanding until told to stop */
static void *be_tenant(void *arg) {
    app *A = (app *)arg;
    gk_task_id q[2] = { 0, 0 };
    int k = 0;
    if (!A->use_sched) gk_set_stream(A->ctx, A->be_stream);
    while (!A->be_stop) {
        if (A->use_sched) {
            gk_task_desc d;
            memset(&d, 0, sizeof d);
            d.name = "gemms";
            d.qos = GK_QOS_BESTEFFORT;
            d.fn = gemms;
            d.user = A;
            if (q[k]) gk_sched_wait(A->s, q[k], -1, NULL);
            if (gk_sched_submit(A->s, &d, &q[k], NULL) != GK_OK) break;
            k ^= 1;
        } else {
            if (gemms(A->ctx, A->be_stream, A) != GK_OK) break;
            gk_stream_sync(A->ctx, A->be_stream);
        }
    }
    if (A->use_sched) {
        if (q[0]) gk_sched_wait(A->s, q[0], -1, NULL);
        if (q[1]) gk_sched_wait(A->s, q[1], -1, NULL);
    }
    return NULL;
}

static int cmpd(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}
typedef struct lat { double p50, p99, mean; } lat;
static lat summarize(double *v, int n) {
    lat L;
    int i;
    L.mean = 0;
    for (i = 0; i < n; i++) L.mean += v[i] / n;
    qsort(v, (size_t)n, sizeof *v, cmpd);
    L.p50 = v[(n - 1) / 2];
    L.p99 = v[(int)((n - 1) * 0.99 + 0.5)];
    return L;
}

/* steps decode steps as Guaranteed tasks (or, without the scheduler,
   straight on this thread); per-step latency from submission to the end */
static int run_guaranteed(app *A, int steps, double *out) {
    int i;
    for (i = 0; i < steps; i++) {
        double t0 = now_ms();
        if (A->use_sched) {
            gk_task_desc d;
            gk_task_id id;
            gk_task_info info;
            memset(&d, 0, sizeof d);
            d.name = "chat";
            d.qos = GK_QOS_GUARANTEED;
            d.share = 0.5;
            d.fn = decode_step;
            d.user = A;
            if (gk_sched_submit(A->s, &d, &id, NULL) != GK_OK) return fail(A->ctx, "submit", GK_ERR_REJECTED);
            gk_sched_wait(A->s, id, -1, &info);
            if (info.state != GK_TASK_COMPLETED) {
                fprintf(stderr, "tenants: decode step %s: %s\n", gk_task_state_name(info.state), info.reason);
                return 1;
            }
        } else {
            gk_status st = decode_step(A->ctx, NULL, A);
            if (st != GK_OK) return fail(A->ctx, "decode step", st);
        }
        out[i] = now_ms() - t0;
    }
    return 0;
}

static double be_tflops(app *A, long gemms, double ms) {
    return ms > 0 ? 2.0 * (double)A->n * (double)A->n * (double)A->n * (double)gemms / (ms * 1e-3) / 1e12 : 0;
}
static long be_count(app *A) {
    long n;
    pthread_mutex_lock(&A->mu);
    n = A->be_gemms;
    pthread_mutex_unlock(&A->mu);
    return n;
}

int main(int argc, char **argv) {
    const char *dir = NULL, *json = NULL, *commit = "";
    gk_ctx_desc cd;
    int steps = 1000, compare = 1, hold = 0, paced = 0, i, rc = 0;
    double seconds = 2;
    app A;
    gk_status st;
    gk_sched_desc sd;
    gk_device_info dev;
    double *l_solo = NULL, *l_mix = NULL, *l_plain = NULL;
    lat L0 = { 0, 0, 0 }, Ls = { 0, 0, 0 }, Lm = { 0, 0, 0 }, Lp = { 0, 0, 0 };
    double be_solo = 0, be_mix = 0, be_after = 0, be_plain = 0;
    pthread_t th;
    memset(&A, 0, sizeof A);
    memset(&cd, 0, sizeof cd);
    A.n = 4096;
    A.per_task = 4;
    for (i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        char *end = NULL;
        if (strcmp(argv[i], "--no-compare") == 0) compare = 0;
        else if (strcmp(argv[i], "--hold") == 0) hold = 1;
        else if (!v && (!strcmp(argv[i], "--steps") || !strcmp(argv[i], "--gemm") || !strcmp(argv[i], "--gemms-per-task") ||
                         !strcmp(argv[i], "--seconds") || !strcmp(argv[i], "--paced") || !strcmp(argv[i], "--json") || !strcmp(argv[i], "--commit") || !strcmp(argv[i], "--backend"))) {
            fprintf(stderr, "tenants: %s needs a value\n", argv[i]);
            return 2;
        }
        else if (strcmp(argv[i], "--steps") == 0) { steps = (int)strtol(v, &end, 10); i++; if (*end || steps < 1) { fprintf(stderr, "tenants: --steps '%s' must be a positive integer\n", v); return 2; } }
        else if (strcmp(argv[i], "--gemm") == 0) { A.n = strtol(v, &end, 10); i++; if (*end || A.n < 16) { fprintf(stderr, "tenants: --gemm '%s' must be an integer >= 16\n", v); return 2; } }
        else if (strcmp(argv[i], "--paced") == 0) { paced = (int)strtol(v, &end, 10); i++; if (*end || paced < 1 || paced > 63) { fprintf(stderr, "tenants: --paced '%s' must be 1 to 63\n", v); return 2; } }
        else if (strcmp(argv[i], "--gemms-per-task") == 0) { A.per_task = (int)strtol(v, &end, 10); i++; if (*end || A.per_task < 1) { fprintf(stderr, "tenants: --gemms-per-task '%s' must be a positive integer\n", v); return 2; } }
        else if (strcmp(argv[i], "--seconds") == 0) { seconds = strtod(v, &end); i++; if (*end || !(seconds > 0)) { fprintf(stderr, "tenants: --seconds '%s' must be a positive number\n", v); return 2; } }
        else if (strcmp(argv[i], "--json") == 0) { json = v; i++; }
        else if (strcmp(argv[i], "--backend") == 0) {
            i++;
            if (strcmp(v, "auto") == 0) cd.backend = GK_BACKEND_AUTO;
            else if (strcmp(v, "cuda") == 0) cd.backend = GK_BACKEND_CUDA;
            else if (strcmp(v, "cpu") == 0) cd.backend = GK_BACKEND_CPU;
            else { fprintf(stderr, "tenants: --backend %s: auto, cuda or cpu\n", v); return 2; }
        }
        else if (strcmp(argv[i], "--commit") == 0) { commit = v; i++; }
        else if (argv[i][0] == '-') { fprintf(stderr, "tenants: unknown option '%s'\n", argv[i]); return 2; }
        else if (!dir) dir = argv[i];
        else { fprintf(stderr, "tenants: one model folder only ('%s' is extra)\n", argv[i]); return 2; }
    }
    if (!dir) {
        fprintf(stderr, "usage: tenants MODEL_DIR [--steps N] [--gemm N] [--gemms-per-task N] [--seconds S] [--hold] [--no-compare]\n"
                        "               [--backend auto|cuda|cpu] [--json PATH] [--commit HASH]\n");
        return 2;
    }
    pthread_mutex_init(&A.mu, NULL);
    if ((st = gk_ctx_create(&cd, &A.ctx)) != GK_OK) return fail(NULL, "context", st);
    gk_device_info_get(A.ctx, &dev);
    if ((st = gk_llm_load(A.ctx, dir, NULL, &A.m)) != GK_OK) { rc = fail(A.ctx, dir, st); goto done; }
    A.vocab = (int)gk_llm_get_config(A.m)->vocab;
    A.logits = (float *)malloc(sizeof(float) * (size_t)A.vocab);
    l_solo = (double *)malloc(sizeof(double) * (size_t)steps);
    l_mix = (double *)malloc(sizeof(double) * (size_t)steps);
    l_plain = (double *)malloc(sizeof(double) * (size_t)steps);
    {
        int64_t shp[2];
        shp[0] = shp[1] = A.n;
        if ((st = gk_tensor_empty(A.ctx, GK_BF16, 2, shp, &A.a)) != GK_OK || (st = gk_tensor_empty(A.ctx, GK_BF16, 2, shp, &A.b)) != GK_OK ||
            (st = gk_tensor_empty(A.ctx, GK_BF16, 2, shp, &A.c)) != GK_OK || (st = gk_fill(A.ctx, A.a, 0.01)) != GK_OK ||
            (st = gk_fill(A.ctx, A.b, 0.01)) != GK_OK || (st = gk_sync(A.ctx)) != GK_OK) { rc = fail(A.ctx, "GEMM operands", st); goto done; }
    }
    memset(&sd, 0, sizeof sd);
    sd.workers = 3;
    sd.besteffort_hold = hold;
    sd.besteffort_inflight = paced;
    if ((st = gk_sched_create(A.ctx, &sd, &A.s)) != GK_OK) { rc = fail(A.ctx, "scheduler", st); goto done; }
    A.use_sched = 1;
    printf("tenants on %s: chat decode (Guaranteed) and %lldx%lld bf16 GEMMs (BestEffort); while the chat is active, BestEffort %s\n",
           dev.name, (long long)A.n, (long long)A.n, hold ? "tasks wait" : paced ? "is paced" : "streams are held");
    /* warm-up: kernels compiled and graphs captured before anything is timed */
    if ((rc = run_guaranteed(&A, 3, l_solo)) != 0) goto done;
    if (gemms(A.ctx, NULL, &A) != GK_OK || gk_sync(A.ctx) != GK_OK) { rc = fail(A.ctx, "GEMM", GK_ERR_INTERNAL); goto done; }
    A.be_gemms = 0;
    /* 0. the chat alone, straight on this thread: the scheduler's own cost */
    A.use_sched = 0;
    if ((rc = run_guaranteed(&A, steps, l_solo)) != 0) goto done;
    L0 = summarize(l_solo, steps);
    A.use_sched = 1;
    /* 1. the chat alone, as Guaranteed tasks */
    if ((rc = run_guaranteed(&A, steps, l_solo)) != 0) goto done;
    Ls = summarize(l_solo, steps);
    /* 2. the GEMMs alone */
    {
        double t0 = now_ms();
        long g0;
        A.be_stop = 0;
        pthread_create(&th, NULL, be_tenant, &A);
        while (now_ms() - t0 < 200) {}
        g0 = be_count(&A);
        t0 = now_ms();
        while (now_ms() - t0 < seconds * 1e3) {}
        be_solo = be_tflops(&A, be_count(&A) - g0, now_ms() - t0);
        /* 3. the chat while the GEMMs run */
        g0 = be_count(&A);
        t0 = now_ms();
        if ((rc = run_guaranteed(&A, steps, l_mix)) != 0) { A.be_stop = 1; pthread_join(th, NULL); goto done; }
        be_mix = be_tflops(&A, be_count(&A) - g0, now_ms() - t0);
        Lm = summarize(l_mix, steps);
        /* 4. the GEMMs again once the chat is idle */
        g0 = be_count(&A);
        t0 = now_ms();
        while (now_ms() - t0 < seconds * 1e3) {}
        be_after = be_tflops(&A, be_count(&A) - g0, now_ms() - t0);
        A.be_stop = 1;
        pthread_join(th, NULL);
    }
    /* 5. the same mix without the scheduler: two threads on two normal-priority streams */
    if (compare) {
        double t0;
        long g0;
        A.use_sched = 0;
        if ((st = gk_stream_create(A.ctx, GK_PRIORITY_NORMAL, &A.be_stream)) != GK_OK) { rc = fail(A.ctx, "stream", st); goto done; }
        A.be_stop = 0;
        pthread_create(&th, NULL, be_tenant, &A);
        t0 = now_ms();
        while (now_ms() - t0 < 200) {}
        g0 = be_count(&A);
        t0 = now_ms();
        rc = run_guaranteed(&A, steps, l_plain);
        be_plain = be_tflops(&A, be_count(&A) - g0, now_ms() - t0);
        A.be_stop = 1;
        pthread_join(th, NULL);
        if (rc) goto done;
        Lp = summarize(l_plain, steps);
    }
    printf("\n%-44s %10s %10s %10s\n", "chat decode step (Guaranteed)", "p50 ms", "p99 ms", "p99/solo");
    printf("%-44s %10.3f %10.3f %10.2f\n", "alone, no scheduler", L0.p50, L0.p99, L0.p99 / Ls.p99);
    printf("%-44s %10.3f %10.3f %10.2f\n", "alone", Ls.p50, Ls.p99, 1.0);
    printf("%-44s %10.3f %10.3f %10.2f\n", "with BestEffort GEMMs, scheduler", Lm.p50, Lm.p99, Lm.p99 / Ls.p99);
    if (compare) printf("%-44s %10.3f %10.3f %10.2f\n", "with the GEMMs, no scheduler", Lp.p50, Lp.p99, Lp.p99 / Ls.p99);
    printf("\n%-44s %10s %10s\n", "GEMMs (BestEffort)", "TFLOP/s", "of alone");
    printf("%-44s %10.1f %10.2f\n", "alone", be_solo, 1.0);
    printf("%-44s %10.1f %10.2f\n", "while the chat decodes, scheduler", be_mix, be_solo > 0 ? be_mix / be_solo : 0);
    printf("%-44s %10.1f %10.2f\n", "after the chat goes idle", be_after, be_solo > 0 ? be_after / be_solo : 0);
    if (compare) printf("%-44s %10.1f %10.2f\n", "while the chat decodes, no scheduler", be_plain, be_solo > 0 ? be_plain / be_solo : 0);
    {
        gk_sched_stats ss;
        gk_sched_stats_get(A.s, &ss);
        printf("\nscheduler: %llu Guaranteed and %llu BestEffort tasks completed, %llu holds; %s\n",
               (unsigned long long)ss.cls[GK_QOS_GUARANTEED].completed, (unsigned long long)ss.cls[GK_QOS_BESTEFFORT].completed,
               (unsigned long long)ss.throttled, ss.partitioning_note);
    }
    if (json) {
        FILE *f = fopen(json, "w");
        char date[32];
        time_t t = time(NULL);
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
        if (!f) { fprintf(stderr, "tenants: cannot write '%s'\n", json); rc = 1; goto done; }
        fprintf(f, "{\n  \"bench\": \"tenants\", \"commit\": \"%s\", \"device\": \"%s\", \"date\": \"%s\",\n", commit, dev.name, date);
        fprintf(f, "  \"model\": \"%s\", \"gemm_n\": %lld, \"gemms_per_task\": %d, \"steps\": %d, \"besteffort_hold\": %d, \"besteffort_inflight\": %d,\n",
                dir, (long long)A.n, A.per_task, steps, hold, paced);
        fprintf(f, "  \"guaranteed_ms_no_scheduler_alone\": {\"p50\": %.4f, \"p99\": %.4f},\n", L0.p50, L0.p99);
        fprintf(f, "  \"guaranteed_ms\": {\"solo_p50\": %.4f, \"solo_p99\": %.4f, \"sched_p50\": %.4f, \"sched_p99\": %.4f, \"plain_p50\": %.4f, \"plain_p99\": %.4f},\n",
                Ls.p50, Ls.p99, Lm.p50, Lm.p99, Lp.p50, Lp.p99);
        fprintf(f, "  \"p99_ratio_sched\": %.4f, \"p99_ratio_plain\": %.4f,\n", Lm.p99 / Ls.p99, compare ? Lp.p99 / Ls.p99 : 0.0);
        fprintf(f, "  \"besteffort_tflops\": {\"solo\": %.2f, \"during_sched\": %.2f, \"after\": %.2f, \"during_plain\": %.2f},\n", be_solo, be_mix,
                be_after, be_plain);
        fprintf(f, "  \"besteffort_recovery\": %.4f\n}\n", be_solo > 0 ? be_after / be_solo : 0.0);
        fclose(f);
    }
done:
    gk_sched_destroy(A.s);
    gk_tensor_free(A.ctx, A.a);
    gk_tensor_free(A.ctx, A.b);
    gk_tensor_free(A.ctx, A.c);
    if (A.be_stream) gk_stream_destroy(A.ctx, A.be_stream);
    gk_llm_free(A.m);
    free(A.logits);
    free(l_solo);
    free(l_mix);
    free(l_plain);
    gk_ctx_destroy(A.ctx);
    return rc;
}
