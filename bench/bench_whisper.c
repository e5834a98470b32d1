/* bench_whisper - gpukit_llm.h's Whisper runtime on a model folder (issue 25), per compute dtype:
     mel          gk_whisper_mel of one 30 s window (samples on the host, features back to the host)
     encode       gk_whisper_encode of one window (log-mel on the host: its upload is included)
     encode_dev   gk_whisper_encode_tensor of one window, log-mel already on the device (what HF's
                  encoder time measures)
     e2e          one 30 s window + 100 generated tokens: gk_whisper_transcribe (log-mel, encoder,
                  the prompt SOT + language + task + <|notimestamps|>, 100 greedy steps); the suppress
                  list is generation_config.json's plus eot, so that exactly --tokens tokens come out
                  (HF's min_new_tokens = max_new_tokens)
     batch        --windows inputs (16) of 30 s in one gk_whisper_transcribe_batch call
   Each figure is the median of --runs timed runs after --warmup untimed ones, wall time with gk_sync
   before and after each run. bench/whisper_hf.py times HF transformers on the same folders;
   tools/make_whisper_random.py makes random-weight folders of the large-v3 / turbo shapes;
   tools/gpu_check.d/whisper.sh runs the three side by side.

     build/bench_whisper MODEL_DIR [--json out.json] [--dtype bf16|f16|f32|both] [--runs 10] [--warmup 3]
                         [--tokens 100] [--windows 16] [--language en] [--backend cpu|cuda]
   --dtype both (the default) runs bf16, then f16. */
#define GPUKIT_IMPLEMENTATION
#define GPUKIT_LLM_IMPLEMENTATION
#include "../gpukit_llm.h"
#include "gkb.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RATE 16000
#define WINDOW_SAMPLES (30 * RATE)
#define MAX_RUNS 64
#define MAX_WINDOWS 64
#define PI 3.14159265358979323846

static gk_ctx *ctx;
#define CK(x) GKB_CHECK(ctx, x)

typedef struct figures {
    const char *dtype;
    double load_s, mel_ms, encode_ms, encode_dev_ms, e2e_ms, batch_enc_ms, batch_ms, batch_rtfx, step_ms, step_batch_ms;
    size_t tokens;
    int windows;
} figures;

/* 30 s of a deterministic test signal: a slow chirp with a harmonic and noise (the weights are random:
   what the audio says does not matter, only that every window is a full one) */
static void make_audio(float *x, size_t n, unsigned seed) {
    size_t i;
    unsigned s = seed * 2654435761u + 1;
    for (i = 0; i < n; i++) {
        double t = (double)i / RATE, f = 150 + 20 * t;
        s = s * 1664525u + 1013904223u;
        x[i] = (float)(0.3 * sin(2 * PI * f * t) + 0.1 * sin(6 * PI * f * t) + 0.02 * ((double)(s >> 8) / 16777216.0 - 0.5));
    }
}

/* the median of runs timed calls of what (after warmup untimed ones), wall ms with gk_sync at both ends */
typedef gk_status (*run_fn)(void *user);
static double time_ms(run_fn fn, void *user, int warmup, int runs) {
    double t[MAX_RUNS];
    int i;
    for (i = 0; i < warmup; i++) CK(fn(user));
    for (i = 0; i < runs; i++) {
        double t0;
        CK(gk_sync(ctx));
        t0 = gkb_now_ms();
        CK(fn(user));
        CK(gk_sync(ctx));
        t[i] = gkb_now_ms() - t0;
    }
    return gkb_median(t, runs);
}

typedef struct job {
    gk_whisper_model *m;
    const float *audio;                 /* windows * WINDOW_SAMPLES */
    float *mel;                         /* windows * n_mels * 3000, host */
    gk_tensor mel_dev;                  /* one window on the device */
    gk_whisper_transcribe_desc td;
    gk_ids out;
    int windows;
    size_t last_tokens;
} job;

static gk_status run_mel(void *u) { job *j = (job *)u; return gk_whisper_mel(j->m, j->audio, WINDOW_SAMPLES, j->mel); }
static gk_status run_encode(void *u) { job *j = (job *)u; return gk_whisper_encode(j->m, j->mel, 1, 0, NULL); }
static gk_status run_encode_dev(void *u) { job *j = (job *)u; return gk_whisper_encode_tensor(j->m, j->mel_dev, 0, NULL); }
static gk_status run_e2e(void *u) {
    job *j = (job *)u;
    gk_status s;
    j->out.len = 0;
    j->td.seq = 0;
    s = gk_whisper_transcribe(j->m, j->audio, WINDOW_SAMPLES, &j->td, &j->out, NULL);
    j->last_tokens = j->out.len;
    return s;
}

/* Batched throughput, --windows inputs of 30 s (x real time = windows * 30 s / wall time): one
   gk_whisper_transcribe_batch call, every window's decoding steps together, with the settings of
   the single-window run (greedy, the same suppress list, exactly `tokens` tokens a window, no
   fallback, no silence skip). `batch_enc` is the batched encoder alone (all the windows in one
   gk_whisper_encode, log-mel on the host), for reference. */
#define BATCH_MODE "batched"
static gk_status run_batch(void *u) {
    job *j = (job *)u;
    gk_whisper_long_desc ld;
    gk_whisper_segments segs[MAX_WINDOWS];
    const float *xs[MAX_WINDOWS];
    size_t ns[MAX_WINDOWS], k;
    gk_status s;
    int w;
    memset(&ld, 0, sizeof ld);
    memset(segs, 0, sizeof segs);
    ld.language = j->td.language;
    ld.without_timestamps = !j->td.timestamps;
    ld.max_tokens = j->td.max_tokens;
    ld.custom_suppress = j->td.custom_suppress;
    ld.suppress = j->td.suppress;
    ld.n_suppress = j->td.n_suppress;
    ld.thresholds.compression_ratio = ld.thresholds.logprob = ld.thresholds.no_speech = ld.thresholds.temperature_increment = NAN;
    for (w = 0; w < j->windows; w++) { xs[w] = j->audio + (size_t)w * WINDOW_SAMPLES; ns[w] = WINDOW_SAMPLES; }
    s = gk_whisper_transcribe_batch(j->m, xs, ns, j->windows, &ld, segs, NULL);
    j->last_tokens = 0;
    for (w = 0; w < j->windows; w++) {
        for (k = 0; k < segs[w].len; k++) j->last_tokens += segs[w].data[k].n_tokens;
        gk_whisper_segments_free(&segs[w]);
    }
    return s;
}
/* the decode step alone: rows 0..n-1 (their windows encoded) after a 4-token prompt each, 50 steps of token 220; the
   host does nothing between steps but read the logits (what e2e adds per token is its host work: filters, search) */
static int step_rows = 1;
static gk_status run_steps(void *u) {
    job *j = (job *)u;
    const gk_whisper_tokens *tk = gk_whisper_model_tokens(j->m);
    int32_t p[4], ids[MAX_WINDOWS];
    gk_status s = GK_OK;
    int r, k;
    p[0] = tk->sot; p[1] = tk->multilingual ? tk->lang[0] : tk->transcribe; p[2] = tk->transcribe; p[3] = tk->no_timestamps;
    for (r = 0; r < step_rows && s == GK_OK; r++) {
        ids[r] = 220;
        s = gk_whisper_reset(j->m, r);
        if (s == GK_OK) s = gk_whisper_decode(j->m, r, p, 4, 0, NULL);
    }
    for (k = 0; k < 50 && s == GK_OK; k++) s = gk_whisper_decode_step(j->m, 0, step_rows, ids, NULL, NULL);
    return s;
}
static gk_status run_batch_enc(void *u) { job *j = (job *)u; return gk_whisper_encode(j->m, j->mel, j->windows, 0, NULL); }
/* ====================================================================================== */

static void bench_dtype(const char *dir, gk_llm_dtype dt, const char *dname, int runs, int warmup, int64_t tokens, int windows, const char *language,
                        const float *audio, figures *f) {
    gk_whisper_desc wd;
    const gk_whisper_config *cfg;
    const gk_whisper_tokens *tk;
    job j;
    int32_t *sup;
    size_t i, nmel;
    int64_t shape[2];
    double t0;
    int w;
    memset(f, 0, sizeof *f);
    memset(&j, 0, sizeof j);
    memset(&wd, 0, sizeof wd);
    f->dtype = dname;
    f->windows = windows;
    wd.dtype = dt;
    wd.max_windows = windows;
    t0 = gkb_now_ms();
    CK(gk_whisper_load(ctx, dir, &wd, &j.m));
    f->load_s = (gkb_now_ms() - t0) / 1e3;
    cfg = gk_whisper_get_config(j.m);
    tk = gk_whisper_model_tokens(j.m);
    if (!tk) { printf("%s: the folder names no special tokens: cannot transcribe\n", dir); exit(1); }
    nmel = (size_t)cfg->n_mels * 3000;
    j.audio = audio;
    j.windows = windows;
    j.mel = (float *)malloc(sizeof(float) * nmel * (size_t)windows);
    sup = (int32_t *)malloc(sizeof(int32_t) * (cfg->n_suppress_tokens + 1 + (size_t)(cfg->vocab - tk->timestamp_begin)));
    if (!j.mel || !sup) { printf("out of host memory\n"); exit(1); }
    /* generation_config.json's suppress_tokens plus eot: no window ends before `tokens` tokens; and the timestamp tokens,
       which would move the batch's seek inside a window (random weights sample them) and add windows */
    for (i = 0; i < cfg->n_suppress_tokens; i++) sup[i] = cfg->suppress_tokens[i];
    sup[cfg->n_suppress_tokens] = tk->eot;
    for (i = 0; i < (size_t)(cfg->vocab - tk->timestamp_begin); i++) sup[cfg->n_suppress_tokens + 1 + i] = tk->timestamp_begin + (int32_t)i;
    j.td.language = tk->multilingual ? language : NULL;
    j.td.timestamps = 0;
    j.td.max_tokens = tokens;
    j.td.custom_suppress = 1;
    j.td.suppress = sup;
    j.td.n_suppress = cfg->n_suppress_tokens + 1 + (size_t)(cfg->vocab - tk->timestamp_begin);
    for (w = 0; w < windows; w++) CK(gk_whisper_mel(j.m, audio + (size_t)w * WINDOW_SAMPLES, WINDOW_SAMPLES, j.mel + (size_t)w * nmel));
    shape[0] = cfg->n_mels;
    shape[1] = 3000;
    CK(gk_tensor_from_host(ctx, GK_F32, 2, shape, j.mel, &j.mel_dev));

    f->mel_ms = time_ms(run_mel, &j, warmup, runs);
    f->encode_ms = time_ms(run_encode, &j, warmup, runs);
    f->encode_dev_ms = time_ms(run_encode_dev, &j, warmup, runs);
    f->e2e_ms = time_ms(run_e2e, &j, warmup, runs);
    f->tokens = j.last_tokens;
    if ((int64_t)f->tokens != tokens) printf("warning: %s: %zu tokens generated, not %lld\n", dname, f->tokens, (long long)tokens);
    /* the mel buffer holds every window's features again (run_mel overwrote the first) */
    CK(gk_whisper_mel(j.m, audio, WINDOW_SAMPLES, j.mel));
    f->batch_enc_ms = time_ms(run_batch_enc, &j, warmup > 1 ? 1 : warmup, runs < 5 ? runs : 5);
    f->batch_ms = time_ms(run_batch, &j, warmup > 1 ? 1 : warmup, runs < 3 ? runs : 3);
    f->batch_rtfx = f->batch_ms > 0 ? windows * 30.0 / (f->batch_ms / 1e3) : 0;
    step_rows = 1;
    f->step_ms = time_ms(run_steps, &j, 1, runs < 5 ? runs : 5) / 50.0;
    step_rows = windows;
    f->step_batch_ms = time_ms(run_steps, &j, 1, runs < 5 ? runs : 5) / 50.0;
    if ((int64_t)j.last_tokens != tokens * windows)
        printf("warning: %s: the %d windows generated %zu tokens, not %lld\n", dname, windows, j.last_tokens, (long long)(tokens * windows));

    printf("%-5s load %.1f s | mel %.2f ms | encode %.2f ms (log-mel on the device: %.2f ms) | 30 s + %zu tokens %.1f ms\n",
           dname, f->load_s, f->mel_ms, f->encode_ms, f->encode_dev_ms, f->tokens, f->e2e_ms);
    printf("%-5s %d windows (%s): %.1f ms, %.1fx real time | batched encoder %.2f ms (%.2f ms a window)\n", dname, windows, BATCH_MODE, f->batch_ms,
           f->batch_rtfx, f->batch_enc_ms, f->batch_enc_ms / windows);
    printf("%-5s decode step alone: %.3f ms (1 row), %.3f ms (%d rows); host work per token in e2e: %.3f ms\n", dname, f->step_ms, f->step_batch_ms, windows,
           (f->e2e_ms - f->mel_ms - f->encode_dev_ms) / (double)(f->tokens ? f->tokens : 1) - f->step_ms);
    gk_ids_free(&j.out);
    gk_tensor_free(ctx, j.mel_dev);
    free(j.mel);
    free(sup);
    gk_whisper_free(j.m);
}

int main(int argc, char **argv) {
    const char *dir = NULL, *json = NULL, *dtypes = "both", *language = "en";
    gk_ctx_desc cd;
    gk_device_info info;
    figures f[3];
    int nf = 0, runs = 10, warmup = 3, windows = 16, i, k;
    int64_t tokens = 100;
    float *audio;
    time_t tt = time(NULL);
    memset(&cd, 0, sizeof cd);
    cd.backend = GK_BACKEND_AUTO;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--json") == 0 && v) { json = v; i++; }
        else if (strcmp(a, "--dtype") == 0 && v) { dtypes = v; i++; }
        else if (strcmp(a, "--runs") == 0 && v) { runs = atoi(v); i++; }
        else if (strcmp(a, "--warmup") == 0 && v) { warmup = atoi(v); i++; }
        else if (strcmp(a, "--tokens") == 0 && v) { tokens = atoll(v); i++; }
        else if (strcmp(a, "--windows") == 0 && v) { windows = atoi(v); i++; }
        else if (strcmp(a, "--language") == 0 && v) { language = v; i++; }
        else if (strcmp(a, "--backend") == 0 && v) { cd.backend = strcmp(v, "cpu") == 0 ? GK_BACKEND_CPU : GK_BACKEND_CUDA; i++; }
        else if (a[0] != '-' && !dir) dir = a;
        else { printf("unknown option %s\n", a); return 2; }
    }
    if (!dir || runs < 1 || runs > MAX_RUNS || warmup < 0 || tokens < 1 || tokens > 440 || windows < 1 || windows > MAX_WINDOWS ||
        (strcmp(dtypes, "both") != 0 && strcmp(dtypes, "bf16") != 0 && strcmp(dtypes, "f16") != 0 && strcmp(dtypes, "f32") != 0)) {
        printf("usage: bench_whisper MODEL_DIR [--json out.json] [--dtype bf16|f16|f32|both] [--runs 1..%d] [--warmup N] [--tokens 1..440] "
               "[--windows 1..64] [--language en] [--backend cpu|cuda]\n", MAX_RUNS);
        return 2;
    }
    cd.log_level = GK_LOG_ERROR;
    if (gk_ctx_create(&cd, &ctx) != GK_OK) { printf("%s\n", gk_last_error(NULL)); return 1; }
    gk_device_info_get(ctx, &info);
    audio = (float *)malloc(sizeof(float) * (size_t)WINDOW_SAMPLES * (size_t)windows);
    if (!audio) { printf("out of host memory\n"); return 1; }
    for (k = 0; k < windows; k++) make_audio(audio + (size_t)k * WINDOW_SAMPLES, WINDOW_SAMPLES, (unsigned)k + 1);
    printf("%s on %s: %d runs after %d warm-up, %lld tokens, %d windows\n", dir, info.name, runs, warmup, (long long)tokens, windows);
    if (strcmp(dtypes, "both") == 0 || strcmp(dtypes, "bf16") == 0) bench_dtype(dir, GK_LLM_DTYPE_BF16, "bf16", runs, warmup, tokens, windows, language, audio, &f[nf++]);
    if (strcmp(dtypes, "both") == 0 || strcmp(dtypes, "f16") == 0) bench_dtype(dir, GK_LLM_DTYPE_F16, "f16", runs, warmup, tokens, windows, language, audio, &f[nf++]);
    if (strcmp(dtypes, "f32") == 0) bench_dtype(dir, GK_LLM_DTYPE_F32, "f32", runs, warmup, tokens, windows, language, audio, &f[nf++]);
    if (json) {
        gkb_json j;
        if (gkb_json_open(&j, json) != 0) return 1;
        gkb_json_header(&j, "whisper", info.backend == GK_BACKEND_CUDA ? info.name : "cpu", tt);
        gkb_json_str(&j, "model", dir);
        gkb_json_int(&j, "runs", runs);
        gkb_json_int(&j, "warmup", warmup);
        gkb_json_int(&j, "tokens", (long long)tokens);
        gkb_json_str(&j, "batch_mode", BATCH_MODE);
        gkb_json_arr(&j, "results");
        for (k = 0; k < nf; k++) {
            gkb_json_row(&j, NULL);
            gkb_json_str(&j, "dtype", f[k].dtype);
            gkb_json_num(&j, "load_s", f[k].load_s, 2);
            gkb_json_num(&j, "mel_ms", f[k].mel_ms, 3);
            gkb_json_num(&j, "encode_ms", f[k].encode_ms, 3);
            gkb_json_num(&j, "encode_dev_ms", f[k].encode_dev_ms, 3);
            gkb_json_num(&j, "e2e_ms", f[k].e2e_ms, 2);
            gkb_json_int(&j, "e2e_tokens", (long long)f[k].tokens);
            gkb_json_int(&j, "windows", f[k].windows);
            gkb_json_num(&j, "batch_enc_ms", f[k].batch_enc_ms, 3);
            gkb_json_num(&j, "batch_ms", f[k].batch_ms, 2);
            gkb_json_num(&j, "batch_rtfx", f[k].batch_rtfx, 1);
            gkb_json_num(&j, "step_ms", f[k].step_ms, 4);
            gkb_json_num(&j, "step_batch_ms", f[k].step_batch_ms, 4);
            gkb_json_end(&j);
        }
        gkb_json_end(&j);
        if (gkb_json_close(&j) != 0) { printf("cannot write %s\n", json); return 1; }
    }
    free(audio);
    gk_ctx_destroy(ctx);
    return 0;
}
