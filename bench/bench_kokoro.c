/* bench_kokoro - Kokoro-82M end to end on the device: gk_kokoro_synthesize of
   a 400-phoneme paragraph and a 50-phoneme sentence (the figures),
   with the published architecture and random weights (tests/kokoro_folder.h)
   whose duration head gives every phoneme 3.2 frames before rounding (its
   weights zero, its bias logit(3.2 / 50): a realistic speech rate; random
   weights give some 25 frames), so 3 frames a phoneme: the paragraph is
   about 30 s of audio, the sentence about 3.8 s. Seeded noise (the default).
   Reported: the median wall time over 5 calls after a warm-up (host clock,
   the call returns the samples on the host), x real time (audio seconds
   over wall seconds), and one more call split into its stages (each
   synchronised: the sum is a little above the end-to-end time).
   Each case runs twice: the model loaded for f32 throughout, and with
   allow_tf32 (the stride-1 convolutions on TF32 tensor cores, what PyTorch
   does by default for cuDNN convolutions); bench/kokoro_torch.py times the
   reference the same way.
   Usage: bench_kokoro [--json PATH] [--small] [--profile] (--profile: each
   case once more under gpukit's profiler, its report printed; --small: 1 phoneme, one timed
   call, f32 only: a smoke run for the CPU backend). The model folder goes to
   /tmp and is removed at the end. */
#define GPUKIT_IMPLEMENTATION
#define GPUKIT_LLM_IMPLEMENTATION
#include "../gpukit_llm.h"
#include "gkb.h"
#include "../tests/kokoro_folder.h"
#include <sys/stat.h>
#include <unistd.h>

static gk_ctx *ctx;
#define CK(x) GKB_CHECK(ctx, x)

typedef struct stage_t { const char *name; double ms; } stage_t;

static double sync_ms(gk_kokoro_model *m) {
    CK(gk_stream_sync(ctx, gk__kok_stream(m)));
    return gkb_now_ms();
}

/* one call split into its stages (each synchronised) */
static int stages(gk_kokoro_model *m, const int32_t *ids, size_t n, const float *ref, stage_t *st) {
    gk__kok_run r;
    gk_stream *old = gk_get_stream(ctx);
    double t;
    int k = 0;
    memset(&r, 0, sizeof r);
    gk_set_stream(ctx, gk__kok_stream(m));
    t = sync_ms(m);
#define STAGE(nm, call) do { CK(call); st[k].name = nm; st[k].ms = sync_ms(m) - t; t += st[k++].ms; } while (0)
    STAGE("begin (ids, styles)", gk__kok_begin(m, &r, ids, n, ref));
    STAGE("ALBERT", gk__kok_bert(m, &r));
    STAGE("prosody (durations)", gk__kok_prosody(m, &r));
    STAGE("align (host sync)", gk__kok_align(m, &r, NULL, 1.0f, GK_KOKORO_MAX_FRAMES));
    STAGE("noise", gk__kok_noise(m, &r, 1));
    STAGE("F0 / N", gk__kok_f0n(m, &r));
    STAGE("text encoder", gk__kok_text(m, &r));
    STAGE("decoder", gk__kok_decode(m, &r));
    STAGE("generator", gk__kok_generate(m, &r));
#undef STAGE
    gk_set_stream(ctx, old);
    gk__kok_run_free(m, &r);
    return k;
}

int main(int argc, char **argv) {
    const char *json = gkb_json_arg(argc, argv);
    char dir[256], cpath[300];
    wlist l;
    wopts o;
    gk_kokoro_model *m = NULL, *models[2] = { NULL, NULL };
    static const char *const prec[2] = { "f32", "tf32" };
    int nprec = 2, pi;
    gk_device_info info;
    float ref[256];
    int32_t *ids = (int32_t *)malloc(sizeof(int32_t) * 400);
    struct { const char *name; size_t n; double ms, audio_s; stage_t st[16]; int nst; int64_t frames; } cs[2][2];
    int i, c, k, ncase = 2, runs = 5, profile = 0;
    time_t now = time(NULL);
    memset(&l, 0, sizeof l);
    memset(&o, 0, sizeof o);
    memset(cs, 0, sizeof cs);
    {
        gk_ctx_desc d;
        memset(&d, 0, sizeof d);
        d.log_level = GK_LOG_ERROR;
        if (gk_ctx_create(&d, &ctx) != GK_OK) { printf("no context: %s\n", gk_last_error(NULL)); return 1; }
    }
    gk_device_info_get(ctx, &info);
    printf("bench_kokoro on %s (%s)\n", info.name, gk_ctx_backend(ctx) == GK_BACKEND_CPU ? "CPU backend" : info.arch);
    snprintf(dir, sizeof dir, "/tmp/gk_bench_kokoro_%d", (int)getpid());
    mkdir(dir, 0755);
    gkt_put_file(dir, "config.json", CONFIG);
    snprintf(cpath, sizeof cpath, "%s/config.json", dir);
    CK(gk__kok_list(ctx, cpath, list_cb, &l));
    for (i = 0; i < l.n; i++) {
        if (strcmp(l.w[i].name, "predictor.duration_proj.linear_layer.weight") == 0) { l.w[i].base = 0; l.w[i].scale = 0; }
        if (strcmp(l.w[i].name, "predictor.duration_proj.linear_layer.bias") == 0) {
            l.w[i].base = (float)log(3.2 / 46.8); /* 50 sigmoid(b) = 3.2 */
            l.w[i].scale = 0;
        }
    }
    {
        double t = gkb_now_ms();
        write_weights(dir, &l, &o);
        printf("model folder written in %.0f ms\n", gkb_now_ms() - t);
        for (pi = 0; pi < 2; pi++) {
            gk_kokoro_desc kd;
            memset(&kd, 0, sizeof kd);
            kd.allow_tf32 = pi;
            t = gkb_now_ms();
            CK(gk_kokoro_load(ctx, dir, &kd, &models[pi]));
            printf("loaded (%s) in %.0f ms\n", prec[pi], gkb_now_ms() - t);
        }
    }
    for (i = 0; i < 256; i++) ref[i] = 0.4f * hash_u(fnv1a("bench/ref_s"), (uint64_t)i);
    for (i = 0; i < 400; i++) ids[i] = 1 + (int32_t)((hash_u(fnv1a("bench/ids"), (uint64_t)i) + 1.0f) * 88.0f) % 177;
    for (pi = 0; pi < 2; pi++) {
        cs[pi][0].name = "paragraph_400"; cs[pi][0].n = 400;
        cs[pi][1].name = "sentence_50"; cs[pi][1].n = 50;
    }
    for (i = 1; i < argc; i++)
        if (strcmp(argv[i], "--small") == 0) { cs[0][0].name = "smoke_1"; cs[0][0].n = 1; ncase = 1; runs = 1; nprec = 1; }
        else if (strcmp(argv[i], "--profile") == 0) profile = 1;
    for (pi = 0; pi < nprec; pi++)
    for (c = 0; c < ncase; c++) {
        double v[5];
        gk_kokoro_synth_desc sd;
        gk_audio a;
        m = models[pi];
        memset(&sd, 0, sizeof sd);
        sd.frames_out = &cs[pi][c].frames;
        CK(gk_kokoro_synthesize(m, ids, cs[pi][c].n, ref, &sd, &a)); /* warm-up */
        cs[pi][c].audio_s = (double)a.n / GK_KOKORO_SAMPLE_RATE;
        gk_audio_free(&a);
        for (k = 0; k < runs; k++) {
            double t = gkb_now_ms();
            CK(gk_kokoro_synthesize(m, ids, cs[pi][c].n, ref, &sd, &a));
            v[k] = gkb_now_ms() - t;
            gk_audio_free(&a);
        }
        cs[pi][c].ms = gkb_median(v, runs);
        cs[pi][c].nst = stages(m, ids, cs[pi][c].n, ref, cs[pi][c].st);
        if (profile) { /* one more call under the profiler: the kernels by total time */
            char *rep = (char *)malloc(1 << 16);
            size_t need = 0;
            CK(gk_profiler_start(ctx, NULL));
            CK(gk_kokoro_synthesize(m, ids, cs[pi][c].n, ref, &sd, &a));
            gk_audio_free(&a);
            CK(gk_profiler_stop(ctx));
            if (rep && gk_profiler_report(ctx, rep, 1 << 16, &need) == GK_OK) printf("%s\n", rep);
            CK(gk_profiler_reset(ctx));
            free(rep);
        }
        printf("%-5s %-14s %3zu phonemes, %4lld frames, %6.2f s of audio: %9.2f ms, %8.1fx real time\n", prec[pi], cs[pi][c].name,
               cs[pi][c].n, (long long)cs[pi][c].frames, cs[pi][c].audio_s, cs[pi][c].ms, cs[pi][c].audio_s * 1000.0 / cs[pi][c].ms);
        for (k = 0; k < cs[pi][c].nst; k++) printf("    %-22s %9.2f ms\n", cs[pi][c].st[k].name, cs[pi][c].st[k].ms);
    }
    if (json) {
        gkb_json j;
        if (gkb_json_open(&j, json) != 0) return 1;
        gkb_json_header(&j, "bench_kokoro", info.name, now);
        gkb_json_obj(&j, "cases");
        for (pi = 0; pi < nprec; pi++)
        for (c = 0; c < ncase; c++) {
            char key[64];
            snprintf(key, sizeof key, "%s_%s", cs[pi][c].name, prec[pi]);
            gkb_json_obj(&j, key);
            gkb_json_int(&j, "phonemes", (long long)cs[pi][c].n);
            gkb_json_int(&j, "frames", (long long)cs[pi][c].frames);
            gkb_json_num(&j, "audio_s", cs[pi][c].audio_s, 3);
            gkb_json_num(&j, "ms", cs[pi][c].ms, 3);
            gkb_json_num(&j, "x_real_time", cs[pi][c].audio_s * 1000.0 / cs[pi][c].ms, 1);
            gkb_json_obj(&j, "stages_ms");
            for (k = 0; k < cs[pi][c].nst; k++) gkb_json_num(&j, cs[pi][c].st[k].name, cs[pi][c].st[k].ms, 3);
            gkb_json_end(&j);
            gkb_json_end(&j);
        }
        gkb_json_end(&j);
        if (gkb_json_close(&j) != 0) return 1;
    }
    gk_kokoro_free(models[0]);
    gk_kokoro_free(models[1]);
    rm_weights(dir);
    remove(cpath);
    rmdir(dir);
    free(l.w);
    free(ids);
    gk_ctx_destroy(ctx);
    return 0;
}
