/* bench_signal - signal op timings on the GPU (events on the current stream,
   median of 7 runs, each the mean over several calls after a warm-up):
     stft        8 x 480000 samples, n_fft 400, hop 160 (torch.stft layout)
     logmel80/128  Whisper log-mel of 8 x 30 s (gk_whisper_log_mel)
     lstm        1000 steps, hidden 256 / 512 (input = hidden), uni and bi
     conv1d      Kokoro-like sizes; conv_transpose1d vocoder upsampling (k20 s10, k16 s8, k12 s6, k4 s2)
     fft         batched complex FFTs (1024 x 4096, 1024 x 997 Bluestein)
   bench/signal_torch.py times the PyTorch / HF peers; tools/gpu_check.d/signal.sh
   runs both. Writes JSON (commit, device, date) to the file given with --json. */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkb.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static gk_ctx *ctx;
static gkb_timer tm;
#define CK(x) GKB_CHECK(ctx, x)

typedef struct { const char *name; double ms; } res;
static res results[64];
static int nres;

/* runs fn(arg) `per` times between two events (after 3 warm-up calls); median over 7 runs, in ms per call */
static double timeit(const char *name, gkb_op_fn fn, void *arg, int per) {
    double v[7];
    CK(gkb_time_op(&tm, fn, arg, 3, 1, 7, per, v));
    v[0] = gkb_median(v, 7);
    printf("  %-28s %10.4f ms\n", name, v[0]);
    results[nres].name = name;
    results[nres].ms = v[0];
    nres++;
    return v[0];
}

static gk_tensor rnd(int nd, const int64_t *shape, float scale) {
    gk_tensor t;
    gk_tensor_info i;
    float *v;
    int64_t k;
    CK(gk_tensor_empty(ctx, GK_F32, nd, shape, &t));
    gk_tensor_info_get(ctx, t, &i);
    v = (float *)malloc(i.nbytes + 4);
    for (k = 0; k < i.numel; k++) v[k] = scale * (float)((double)rand() / RAND_MAX * 2 - 1);
    CK(gk_copy_from_host(ctx, t, v, i.nbytes));
    free(v);
    return t;
}
static const gk_tensor NONE = { 0 };

typedef struct { gk_tensor out, x, w, b, f; int64_t a0, a1, a2, a3; gk_tensor wi, wh, bi, bh; } args_t;
static gk_status run_stft(void *p, int i) { args_t *a = (args_t *)p; (void)i; return gk_stft(ctx, a->out, a->x, NONE, 400, 160, 1); }
static gk_status run_logmel(void *p, int i) { args_t *a = (args_t *)p; (void)i; return gk_whisper_log_mel(ctx, a->out, a->x, a->f, 480000); }
static gk_status run_lstm(void *p, int i) { args_t *a = (args_t *)p; (void)i; return gk_lstm(ctx, a->out, NONE, NONE, a->x, a->wi, a->wh, a->bi, a->bh, NONE, NONE); }
static gk_status run_conv(void *p, int i) { args_t *a = (args_t *)p; (void)i; return gk_conv1d(ctx, a->out, a->x, a->w, a->b, a->a0, a->a1, a->a2, 1); }
static gk_status run_convt(void *p, int i) { args_t *a = (args_t *)p; (void)i; return gk_conv_transpose1d(ctx, a->out, a->x, a->w, a->b, a->a0, a->a1, a->a3, 1, 1); }
static gk_status run_fft(void *p, int i) { args_t *a = (args_t *)p; (void)i; return gk_fft(ctx, a->out, a->x, 0); }

int main(int argc, char **argv) {
    gk_ctx_desc d;
    gk_device_info info;
    const char *json = gkb_json_arg(argc, argv);
    time_t now = time(NULL);
    int i;
    args_t A;
    memset(&d, 0, sizeof d);
    d.backend = GK_BACKEND_CUDA;
    if (gk_ctx_create(&d, &ctx) != GK_OK) { printf("bench_signal: needs a GPU (%s)\n", gk_last_error(NULL)); return 0; }
    gk_device_info_get(ctx, &info);
    printf("bench_signal on %s (%s)\n", info.name, info.arch);
    CK(gkb_timer_init(&tm, ctx));
    srand(1);
    { /* STFT and Whisper log-mel of 8 x 30 s */
        int64_t sx[2] = { 8, 480000 }, so[4] = { 8, 201, 3001, 2 }, sm[3] = { 8, 80, 3000 }, sm2[3] = { 8, 128, 3000 };
        memset(&A, 0, sizeof A);
        A.x = rnd(2, sx, 0.5f);
        CK(gk_tensor_empty(ctx, GK_F32, 4, so, &A.out));
        timeit("stft_8x480000_n400_h160", run_stft, &A, 10);
        gk_tensor_free(ctx, A.out);
        CK(gk_mel_filters_new(ctx, 80, 400, 16000, 0, 8000, GK_MEL_NORM_SLANEY, &A.f));
        CK(gk_tensor_empty(ctx, GK_F32, 3, sm, &A.out));
        timeit("logmel80_8x30s", run_logmel, &A, 10);
        gk_tensor_free(ctx, A.out);
        gk_tensor_free(ctx, A.f);
        CK(gk_mel_filters_new(ctx, 128, 400, 16000, 0, 8000, GK_MEL_NORM_SLANEY, &A.f));
        CK(gk_tensor_empty(ctx, GK_F32, 3, sm2, &A.out));
        timeit("logmel128_8x30s", run_logmel, &A, 10);
        gk_tensor_free(ctx, A.out);
        gk_tensor_free(ctx, A.f);
        gk_tensor_free(ctx, A.x);
    }
    { /* LSTM, 1000 steps */
        static const char *const names[4] = { "lstm_T1000_H256_uni", "lstm_T1000_H256_bi", "lstm_T1000_H512_uni", "lstm_T1000_H512_bi" };
        int c;
        for (c = 0; c < 4; c++) {
            int64_t H = c < 2 ? 256 : 512, Dn = c % 2 ? 2 : 1, sx[2], swi[3], swh[3], sb[2], so[2];
            float sc = 1.0f / 16;
            sx[0] = 1000; sx[1] = H; swi[0] = Dn; swi[1] = 4 * H; swi[2] = H; swh[0] = Dn; swh[1] = 4 * H; swh[2] = H;
            sb[0] = Dn; sb[1] = 4 * H; so[0] = 1000; so[1] = Dn * H;
            memset(&A, 0, sizeof A);
            A.x = rnd(2, sx, 1); A.wi = rnd(3, swi, sc); A.wh = rnd(3, swh, sc); A.bi = rnd(2, sb, sc); A.bh = rnd(2, sb, sc);
            CK(gk_tensor_empty(ctx, GK_F32, 2, so, &A.out));
            timeit(names[c], run_lstm, &A, 3);
            gk_tensor_free(ctx, A.x); gk_tensor_free(ctx, A.wi); gk_tensor_free(ctx, A.wh); gk_tensor_free(ctx, A.bi);
            gk_tensor_free(ctx, A.bh); gk_tensor_free(ctx, A.out);
        }
    }
    { /* Kokoro-like convolutions */
        static const char *const names[9] = { "conv1d_512x512_k3_L2000", "conv1d_1090x1024_k3_L600", "conv1d_128x128_k7_d5_L36000",
                                              "convt1d_512x256_k20_s10_L600", "convt1d_512x256_k20_s10_L100", "convt1d_512x256_k16_s8_L200",
                                              "convt1d_512x256_k16_s8_L1000", "convt1d_256x128_k12_s6_L6000", "convt1d_128x64_k4_s2_L1000" };
        static const int64_t cfg[9][8] = { /* Cin Cout K L stride pad dil transposed */
                                           { 512, 512, 3, 2000, 1, 1, 1, 0 }, { 1090, 1024, 3, 600, 1, 1, 1, 0 },
                                           { 128, 128, 7, 36000, 1, 15, 5, 0 }, { 512, 256, 20, 600, 10, 5, 1, 1 },
                                           { 512, 256, 20, 100, 10, 5, 1, 1 }, { 512, 256, 16, 200, 8, 4, 1, 1 },
                                           { 512, 256, 16, 1000, 8, 4, 1, 1 }, { 256, 128, 12, 6000, 6, 3, 1, 1 },
                                           { 128, 64, 4, 1000, 2, 1, 1, 1 } };
        int c;
        for (c = 0; c < 9; c++) {
            const int64_t *q = cfg[c];
            int64_t sx[3], sw[3], sb[1], so[3], Lo;
            sx[0] = 1; sx[1] = q[0]; sx[2] = q[3];
            sw[0] = q[7] ? q[0] : q[1]; sw[1] = q[7] ? q[1] : q[0]; sw[2] = q[2];
            sb[0] = q[1];
            Lo = q[7] ? (q[3] - 1) * q[4] - 2 * q[5] + q[6] * (q[2] - 1) + 1 : (q[3] + 2 * q[5] - q[6] * (q[2] - 1) - 1) / q[4] + 1;
            so[0] = 1; so[1] = q[1]; so[2] = Lo;
            memset(&A, 0, sizeof A);
            A.x = rnd(3, sx, 1); A.w = rnd(3, sw, 0.05f); A.b = rnd(1, sb, 0.1f);
            A.a0 = q[4]; A.a1 = q[5]; A.a2 = q[6]; A.a3 = 0;
            CK(gk_tensor_empty(ctx, GK_F32, 3, so, &A.out));
            timeit(names[c], q[7] ? run_convt : run_conv, &A, 20);
            gk_tensor_free(ctx, A.x); gk_tensor_free(ctx, A.w); gk_tensor_free(ctx, A.b); gk_tensor_free(ctx, A.out);
        }
    }
    { /* FFT */
        int64_t s1[3] = { 1024, 4096, 2 }, s2[3] = { 1024, 997, 2 };
        memset(&A, 0, sizeof A);
        A.x = rnd(3, s1, 1);
        CK(gk_tensor_empty(ctx, GK_F32, 3, s1, &A.out));
        timeit("fft_1024x4096", run_fft, &A, 20);
        gk_tensor_free(ctx, A.x); gk_tensor_free(ctx, A.out);
        A.x = rnd(3, s2, 1);
        CK(gk_tensor_empty(ctx, GK_F32, 3, s2, &A.out));
        timeit("fft_1024x997_bluestein", run_fft, &A, 20);
        gk_tensor_free(ctx, A.x); gk_tensor_free(ctx, A.out);
    }
    if (json) {
        gkb_json j;
        if (gkb_json_open(&j, json) != 0) return 1;
        gkb_json_header(&j, "signal", info.name, now);
        gkb_json_str(&j, "arch", info.arch);
        gkb_json_obj(&j, "gpukit_ms");
        for (i = 0; i < nres; i++) gkb_json_num(&j, results[i].name, results[i].ms, 5);
        gkb_json_close(&j);
    }
    gk_ctx_destroy(ctx);
    return 0;
}
