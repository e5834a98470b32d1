/* bench_conv_cpu - the CPU backend's convolution (gk_conv1d, gk_conv_transpose1d,
   gk_conv2d on a context made with GK_BACKEND_CPU) at Kokoro- and Whisper-like
   sizes, in GMAC/s (multiply-adds of the taps that reach an output, over wall
   time). An op on the CPU backend runs on the calling thread and is done when it
   returns, so the host clock times it. Each case: one call, then more until
   0.5 s has passed (at most 5 after the first, none when the first took over
   2 s); the median of the calls after the first (the first when it is alone).
   Usage: bench_conv_cpu [--json PATH] [--quick] (--quick: the first case only). */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkb.h"

static gk_ctx *ctx;
#define CK(x) GKB_CHECK(ctx, x)

typedef struct cfg_t {
    const char *name;
    gk_dtype dt;
    int nsp, tr;
    int64_t Cin, Cout, H, W, KH, KW, s, p, d, op, groups;
} cfg_t;

static gk_tensor rnd(gk_dtype dt, int nd, const int64_t *shape, float scale) {
    gk_tensor t;
    gk_tensor_info i;
    float *v;
    void *b;
    int64_t k;
    CK(gk_tensor_empty(ctx, dt, nd, shape, &t));
    gk_tensor_info_get(ctx, t, &i);
    v = (float *)malloc(sizeof(float) * (size_t)(i.numel + 1));
    b = malloc(i.nbytes + 8);
    for (k = 0; k < i.numel; k++) v[k] = scale * (float)((double)rand() / RAND_MAX * 2 - 1);
    gk_convert(dt, b, GK_F32, v, (size_t)i.numel);
    CK(gk_copy_from_host(ctx, t, b, i.nbytes));
    free(v);
    free(b);
    return t;
}

/* the multiply-adds: every (output, tap) pair whose input lies inside x */
static double macs(const cfg_t *c, int64_t Ho, int64_t Wo) {
    int64_t cig = c->Cin / c->groups, cog = c->Cout / c->groups, n = 0, oh, ow, kh, kw;
    int64_t sh = c->nsp == 2 ? c->s : 1, ph = c->nsp == 2 ? c->p : 0, dh = c->nsp == 2 ? c->d : 1;
    for (oh = 0; oh < Ho; oh++)
        for (kh = 0; kh < c->KH; kh++) {
            int64_t ih = oh * sh - ph + kh * dh;
            if (ih < 0 || ih >= c->H) continue;
            for (kw = 0; kw < c->KW; kw++)
                for (ow = 0; ow < Wo; ow++) {
                    int64_t iw;
                    if (c->tr) {
                        int64_t t = ow + c->p - kw * c->d;
                        if (t < 0 || t % c->s) continue;
                        iw = t / c->s;
                    } else iw = ow * c->s - c->p + kw * c->d;
                    n += iw >= 0 && iw < c->W;
                }
        }
    return (double)n * (double)cig * (double)cog * (double)c->groups;
}

int main(int argc, char **argv) {
    static const cfg_t cases[] = {
        /* name                             dtype    nsp tr  Cin   Cout  H   W      KH KW  s   p   d  op groups */
        { "conv1d_256x256_k7_L24120",      GK_F32,  1, 0, 256,  256,  1, 24120, 1, 7,  1,  3,  1, 0, 1 },
        { "conv1d_256x256_k7_L24120_bf16", GK_BF16, 1, 0, 256,  256,  1, 24120, 1, 7,  1,  3,  1, 0, 1 },
        { "conv1d_128x128_k7_d5_L36000",   GK_F32,  1, 0, 128,  128,  1, 36000, 1, 7,  1,  15, 5, 0, 1 },
        { "conv1d_512x512_k3_L2000",       GK_F32,  1, 0, 512,  512,  1, 2000,  1, 3,  1,  1,  1, 0, 1 },
        { "conv1d_1090x1024_k3_L600",      GK_F32,  1, 0, 1090, 1024, 1, 600,   1, 3,  1,  1,  1, 0, 1 },
        { "conv1d_80x384_k3_L3000",        GK_F32,  1, 0, 80,   384,  1, 3000,  1, 3,  1,  1,  1, 0, 1 },
        { "conv1d_384x384_k3_s2_L3000",    GK_F32,  1, 0, 384,  384,  1, 3000,  1, 3,  2,  1,  1, 0, 1 },
        { "conv1d_22x256_k12_s6_L36000",   GK_F32,  1, 0, 22,   256,  1, 36000, 1, 12, 6,  3,  1, 0, 1 },
        { "convt1d_512x256_k20_s10_L600",  GK_F32,  1, 1, 512,  256,  1, 600,   1, 20, 10, 5,  1, 0, 1 },
        { "convt1d_256x128_k12_s6_L6000",  GK_F32,  1, 1, 256,  128,  1, 6000,  1, 12, 6,  3,  1, 0, 1 },
        { "convt1d_dw512_k3_s2_L600",      GK_F32,  1, 1, 512,  512,  1, 600,   1, 3,  2,  1,  1, 1, 512 },
        { "conv2d_64x64_k3_96x96",         GK_F32,  2, 0, 64,   64,   96, 96,   3, 3,  1,  1,  1, 0, 1 },
    };
    const char *json = gkb_json_arg(argc, argv);
    int quick = 0, n = (int)(sizeof cases / sizeof cases[0]), i, c;
    double gmacs[sizeof cases / sizeof cases[0]];
    gk_ctx_desc desc;
    for (i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--quick")) quick = 1;
    if (quick) n = 1;
    memset(&desc, 0, sizeof desc);
    desc.backend = GK_BACKEND_CPU;
    if (gk_ctx_create(&desc, &ctx) != GK_OK) { printf("gk_ctx_create: %s\n", gk_last_error(NULL)); return 1; }
    srand(1);
    printf("CPU backend convolutions (GMAC/s: multiply-adds of the taps inside x, over wall time)\n");
    for (c = 0; c < n; c++) {
        const cfg_t *q = &cases[c];
        int64_t sx[4], sw[4], sb[1], so[4], Ho, Wo, st[2], pd[2], dl[2];
        double t[6], t0, m;
        int k = 0, nd = q->nsp + 2;
        gk_tensor x, w, b, o;
        Ho = q->nsp == 2 ? (q->H + 2 * q->p - q->d * (q->KH - 1) - 1) / q->s + 1 : 1;
        Wo = q->tr ? (q->W - 1) * q->s - 2 * q->p + q->d * (q->KW - 1) + q->op + 1 : (q->W + 2 * q->p - q->d * (q->KW - 1) - 1) / q->s + 1;
        sx[0] = 1; sx[1] = q->Cin;
        sw[0] = q->tr ? q->Cin : q->Cout; sw[1] = q->tr ? q->Cout / q->groups : q->Cin / q->groups;
        so[0] = 1; so[1] = q->Cout;
        if (q->nsp == 2) { sx[2] = q->H; sx[3] = q->W; sw[2] = q->KH; sw[3] = q->KW; so[2] = Ho; so[3] = Wo; }
        else { sx[2] = q->W; sw[2] = q->KW; so[2] = Wo; }
        sb[0] = q->Cout;
        st[0] = st[1] = q->s; pd[0] = pd[1] = q->p; dl[0] = dl[1] = q->d;
        x = rnd(q->dt, nd, sx, 1.0f);
        w = rnd(q->dt, nd, sw, 0.05f);
        b = rnd(q->dt, 1, sb, 0.1f);
        CK(gk_tensor_empty(ctx, q->dt, nd, so, &o));
        t0 = gkb_now_ms();
        for (;;) {
            double s = gkb_now_ms();
            if (q->nsp == 2) CK(gk_conv2d(ctx, o, x, w, b, st, pd, dl, q->groups));
            else if (q->tr) CK(gk_conv_transpose1d(ctx, o, x, w, b, q->s, q->p, q->op, q->groups, q->d));
            else CK(gk_conv1d(ctx, o, x, w, b, q->s, q->p, q->d, q->groups));
            t[k++] = gkb_now_ms() - s;
            if (k == 6 || (k == 1 && t[0] > 2000) || gkb_now_ms() - t0 > 500) break;
        }
        m = macs(q, Ho, Wo);
        gmacs[c] = m / (k > 1 ? gkb_median(t + 1, k - 1) : t[0]) * 1e-6;
        printf("  %-32s %8.3f GMAC  %9.2f ms  %7.2f GMAC/s\n", q->name, m * 1e-9, m / gmacs[c] * 1e-6, gmacs[c]);
        fflush(stdout);
        gk_tensor_free(ctx, x); gk_tensor_free(ctx, w); gk_tensor_free(ctx, b); gk_tensor_free(ctx, o);
    }
    if (json) {
        gkb_json j;
        if (gkb_json_open(&j, json) != 0) return 1;
        gkb_json_header(&j, "conv_cpu", "cpu", time(NULL));
        gkb_json_obj(&j, "gmac_per_s");
        for (c = 0; c < n; c++) gkb_json_num(&j, cases[c].name, gmacs[c], 4);
        gkb_json_close(&j);
    }
    gk_ctx_destroy(ctx);
    return 0;
}
