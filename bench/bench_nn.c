/* bench_nn - the bandwidth-bound nn ops in GB/s (bytes read + written,
   median of timed repetitions with events), next to the device-to-device
   copy bandwidth measured in the same run. bench/nn_torch.py measures the
   PyTorch side with the same names; tools/gpu_check.d/nn.sh runs both.
   Writes JSON (commit, device, date) to the file given with --json.
   Then the layer norm once per kernel variant (gpukit.h tune.ln_variant: auto, 0 the
   block-per-row kernel, 1 the warp-per-row one, 3 the block-per-row one on a
   persistent grid) on a few shapes, each row with the variant that ran (shapes the
   warp kernel does not take run the block-per-row one whatever is asked),
   into the JSON's "layernorm_variants". */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkb.h"
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static gk_ctx *ctx;
static gkb_timer tm;
#define CK(x) GKB_CHECK(ctx, x)

enum { OP_COPY, OP_RMSH, OP_RMS, OP_LAYER, OP_ADDRMS, OP_RMS4K, OP_LAYER4K, OP_BADD2, OP_BADD3, OP_ROPE, OP_PERMUTE, OP_TRANSPOSE, OP_EMBED, OP_LNV };
typedef struct { const char *name; int op; gk_dtype dt; double bytes; double ms, gbs; } bcase;
/* OP_LNV: layer norm of [lv_rows, lv_cols] (weights and bias of the case's dtype) with
   tune.ln_variant = lv_variant; lv_ran: tune.ln_last after the warm-up calls */
static int64_t lv_rows, lv_cols;
static int lv_variant = -1, lv_ran = -1;
static gk_tensor A, B, C, Dd, W, Bi, POS, COS, SIN, IDS;

static gk_status run(const bcase *c) {
    static const int perm[4] = { 0, 2, 1, 3 }, tr[3] = { 0, 2, 1 };
    switch (c->op) {
    case OP_COPY: return gk_copy(ctx, B, A);
    case OP_RMSH:
    case OP_RMS4K:
    case OP_RMS: return gk_rms_norm(ctx, B, A, W, 1e-6);
    case OP_LAYER4K:
    case OP_LAYER:
    case OP_LNV: return gk_layer_norm(ctx, B, A, W, Bi, 1e-5);
    case OP_BADD2:
    case OP_BADD3: return gk_add(ctx, B, A, C);
    case OP_ADDRMS: return gk_add_rms_norm(ctx, Dd, C, A, B, W, 1e-6);
    case OP_ROPE: return gk_rope(ctx, A, A, POS, COS, SIN, 128, GK_ROPE_NEOX);
    case OP_PERMUTE: return gk_permute(ctx, B, A, perm);
    case OP_TRANSPOSE: return gk_permute(ctx, B, A, tr);
    default: return gk_embedding(ctx, B, A, IDS);
    }
}
static gk_status run_op(void *c, int i) { (void)i; return run((const bcase *)c); }
static void setup(const bcase *c) {
    int64_t s2[2] = { 8192, 4096 }, w1[1] = { 4096 };
    gk_dtype dt = c->dt;
    A = B = C = Dd = W = Bi = POS = COS = SIN = IDS = (gk_tensor){ 0 };
    if (c->op == OP_COPY) {
        int64_t n = (int64_t)64 << 20; /* 256 MiB of f32 */
        CK(gk_tensor_empty(ctx, GK_F32, 1, &n, &A));
        CK(gk_tensor_empty(ctx, GK_F32, 1, &n, &B));
        CK(gk_fill(ctx, A, 1));
    } else if (c->op == OP_RMSH) { /* per-head q/k norm (Qwen3): [4096 * 32, 128] */
        int64_t sh[2] = { 4096 * 32, 128 }, wh[1] = { 128 };
        CK(gk_tensor_empty(ctx, dt, 2, sh, &A));
        CK(gk_tensor_empty(ctx, dt, 2, sh, &B));
        CK(gk_tensor_empty(ctx, dt, 1, wh, &W));
        CK(gk_fill(ctx, A, 0.5)); CK(gk_fill(ctx, W, 1));
    } else if (c->op == OP_RMS4K || c->op == OP_LAYER4K) { /* [4096, 4096] */
        int64_t s4[2] = { 4096, 4096 };
        CK(gk_tensor_empty(ctx, dt, 2, s4, &A));
        CK(gk_tensor_empty(ctx, dt, 2, s4, &B));
        CK(gk_tensor_empty(ctx, dt, 1, w1, &W));
        CK(gk_tensor_empty(ctx, dt, 1, w1, &Bi));
        CK(gk_fill(ctx, A, 0.5)); CK(gk_fill(ctx, W, 1)); CK(gk_fill(ctx, Bi, 0));
    } else if (c->op == OP_LNV) {
        int64_t sv[2] = { lv_rows, lv_cols }, wv[1] = { lv_cols };
        CK(gk_tensor_empty(ctx, dt, 2, sv, &A));
        CK(gk_tensor_empty(ctx, dt, 2, sv, &B));
        CK(gk_tensor_empty(ctx, dt, 1, wv, &W));
        CK(gk_tensor_empty(ctx, dt, 1, wv, &Bi));
        CK(gk_fill(ctx, A, 0.5)); CK(gk_fill(ctx, W, 1)); CK(gk_fill(ctx, Bi, 0));
    } else if (c->op == OP_BADD2) { /* [8192, 4096] + [4096] */
        CK(gk_tensor_empty(ctx, dt, 2, s2, &A));
        CK(gk_tensor_empty(ctx, dt, 2, s2, &B));
        CK(gk_tensor_empty(ctx, dt, 1, w1, &C));
        CK(gk_fill(ctx, A, 0.5)); CK(gk_fill(ctx, C, 0.25));
    } else if (c->op == OP_BADD3) { /* [16, 1024, 1024] + [16, 1, 1024] */
        int64_t s3[3] = { 16, 1024, 1024 }, b3[3] = { 16, 1, 1024 };
        CK(gk_tensor_empty(ctx, dt, 3, s3, &A));
        CK(gk_tensor_empty(ctx, dt, 3, s3, &B));
        CK(gk_tensor_empty(ctx, dt, 3, b3, &C));
        CK(gk_fill(ctx, A, 0.5)); CK(gk_fill(ctx, C, 0.25));
    } else if (c->op <= OP_ADDRMS) {
        CK(gk_tensor_empty(ctx, dt, 2, s2, &A));
        CK(gk_tensor_empty(ctx, dt, 2, s2, &B));
        CK(gk_tensor_empty(ctx, dt, 2, s2, &C));
        CK(gk_tensor_empty(ctx, dt, 2, s2, &Dd));
        CK(gk_tensor_empty(ctx, dt, 1, w1, &W));
        CK(gk_tensor_empty(ctx, dt, 1, w1, &Bi));
        CK(gk_fill(ctx, A, 0.5)); CK(gk_fill(ctx, B, 0.25)); CK(gk_fill(ctx, W, 1)); CK(gk_fill(ctx, Bi, 0));
    } else if (c->op == OP_ROPE) {
        int64_t s3[3] = { 4096, 32, 128 }, np = 4096, i;
        gk_rope_config rc;
        int32_t *pv = (int32_t *)malloc(sizeof(int32_t) * 4096);
        memset(&rc, 0, sizeof rc);
        rc.rotary_dim = 128;
        for (i = 0; i < np; i++) pv[i] = (int32_t)i;
        CK(gk_tensor_empty(ctx, dt, 3, s3, &A));
        CK(gk_fill(ctx, A, 0.5));
        CK(gk_tensor_from_host(ctx, GK_I32, 1, &np, pv, &POS));
        CK(gk_rope_table_new(ctx, &rc, 8192, GK_F32, &COS, &SIN));
        free(pv);
    } else if (c->op == OP_PERMUTE) {
        int64_t s4[4] = { 16, 2048, 32, 128 }, o4[4] = { 16, 32, 2048, 128 };
        CK(gk_tensor_empty(ctx, dt, 4, s4, &A));
        CK(gk_tensor_empty(ctx, dt, 4, o4, &B));
        CK(gk_fill(ctx, A, 1));
    } else if (c->op == OP_TRANSPOSE) {
        int64_t s3[3] = { 16, 2048, 2048 };
        CK(gk_tensor_empty(ctx, dt, 3, s3, &A));
        CK(gk_tensor_empty(ctx, dt, 3, s3, &B));
        CK(gk_fill(ctx, A, 1));
    } else {
        int64_t t2[2] = { 151936, 896 }, ni = 8192, o2[2] = { 8192, 896 }, i;
        int32_t *iv = (int32_t *)malloc(sizeof(int32_t) * 8192);
        for (i = 0; i < ni; i++) iv[i] = (int32_t)((i * 2654435761u) % 151936u);
        CK(gk_tensor_empty(ctx, dt, 2, t2, &A));
        CK(gk_tensor_empty(ctx, dt, 2, o2, &B));
        CK(gk_fill(ctx, A, 1));
        CK(gk_tensor_from_host(ctx, GK_I32, 1, &ni, iv, &IDS));
        free(iv);
    }
}
static void teardown(void) {
    gk_tensor *ts[10] = { &A, &B, &C, &Dd, &W, &Bi, &POS, &COS, &SIN, &IDS };
    int i;
    for (i = 0; i < 10; i++) if (ts[i]->id) gk_tensor_free(ctx, *ts[i]);
}
static void measure(bcase *c) {
    double t[30];
    int k;
    setup(c);
    if (c->op == OP_LNV) gk__tune(ctx)->ln_variant = lv_variant;
    for (k = 0; k < 3; k++) CK(run(c)); /* JIT + warm-up */
    lv_ran = gk__tune(ctx)->ln_last;
    CK(gk_sync(ctx));
    CK(gkb_time_op(&tm, run_op, c, 0, 0, 30, 10, t)); /* 30 runs of 10 calls back to back */
    c->ms = gkb_median(t, 30);
    c->gbs = c->bytes / (c->ms * 1e-3) / 1e9;
    gk__tune(ctx)->ln_variant = -1;
    teardown();
}

int main(int argc, char **argv) {
    gk_ctx_desc d;
    gk_device_info info;
    const char *json = gkb_json_arg(argc, argv);
    time_t now = time(NULL);
    double M = 8192.0 * 4096.0, Rn = 4096.0 * 32 * 128, P = 16.0 * 2048 * 32 * 128, T = 16.0 * 2048 * 2048, E = 8192.0 * 896;
    bcase cs[] = {
        { "copy_f32_256MiB", OP_COPY, GK_F32, 2.0 * 256 * 1048576, 0, 0 },
        { "rmsnorm_bf16_8192x4096", OP_RMS, GK_BF16, 2 * M * 2, 0, 0 },
        { "rmsnorm_f32_8192x4096", OP_RMS, GK_F32, 2 * M * 4, 0, 0 },
        { "rmsnorm_bf16_heads_131072x128", OP_RMSH, GK_BF16, 2 * 4096.0 * 32 * 128 * 2, 0, 0 },
        { "layernorm_bf16_8192x4096", OP_LAYER, GK_BF16, 2 * M * 2, 0, 0 },
        { "layernorm_f32_8192x4096", OP_LAYER, GK_F32, 2 * M * 4, 0, 0 },
        { "add_rmsnorm_bf16_8192x4096", OP_ADDRMS, GK_BF16, 4 * M * 2, 0, 0 },
        { "add_rmsnorm_f32_8192x4096", OP_ADDRMS, GK_F32, 4 * M * 4, 0, 0 },
        { "rmsnorm_bf16_4096x4096", OP_RMS4K, GK_BF16, 2 * 4096.0 * 4096 * 2, 0, 0 },
        { "layernorm_bf16_4096x4096", OP_LAYER4K, GK_BF16, 2 * 4096.0 * 4096 * 2, 0, 0 },
        { "add_bcast_bf16_8192x4096+4096", OP_BADD2, GK_BF16, 2 * M * 2 + 4096 * 2, 0, 0 },
        { "add_bcast_f32_8192x4096+4096", OP_BADD2, GK_F32, 2 * M * 4 + 4096 * 4, 0, 0 },
        { "add_bcast_bf16_16x1024x1024+16x1x1024", OP_BADD3, GK_BF16, 2 * 16.0 * 1024 * 1024 * 2 + 16 * 1024 * 2, 0, 0 },
        { "add_bcast_f32_16x1024x1024+16x1x1024", OP_BADD3, GK_F32, 2 * 16.0 * 1024 * 1024 * 4 + 16 * 1024 * 4, 0, 0 },
        { "rope_bf16_4096x32x128", OP_ROPE, GK_BF16, 2 * Rn * 2, 0, 0 },
        { "permute_bf16_BSHD_to_BHSD_256MiB", OP_PERMUTE, GK_BF16, 2 * P * 2, 0, 0 },
        { "transpose_f32_16x2048x2048", OP_TRANSPOSE, GK_F32, 2 * T * 4, 0, 0 },
        { "embedding_bf16_151936x896_8192ids", OP_EMBED, GK_BF16, 2 * E * 2, 0, 0 },
    };
    /* layer norm shapes timed once per variant (lvv: -1 auto, 0, 1, 3) */
    static const int lvv[4] = { -1, 0, 1, 3 };
    static const struct { const char *name; gk_dtype dt; int64_t rows, cols; } lvs[] = {
        { "layernorm_bf16_4096x4096", GK_BF16, 4096, 4096 }, { "layernorm_bf16_8192x4096", GK_BF16, 8192, 4096 },
        { "layernorm_f32_8192x4096", GK_F32, 8192, 4096 },   { "layernorm_f16_4096x4096", GK_F16, 4096, 4096 },
        { "layernorm_bf16_512x4096", GK_BF16, 512, 4096 },   { "layernorm_bf16_4096x1024", GK_BF16, 4096, 1024 },
        { "layernorm_f32_8192x2048", GK_F32, 8192, 2048 },
    };
    enum { NLV = (int)(sizeof lvs / sizeof lvs[0]), NVAR = 4 };
    bcase lc[NLV * NVAR];
    int lran[NLV * NVAR];
    int n = (int)(sizeof cs / sizeof cs[0]), i;
    memset(&d, 0, sizeof d);
    d.backend = GK_BACKEND_CUDA;
    if (gk_ctx_create(&d, &ctx) != GK_OK) { printf("bench_nn: needs a GPU (%s)\n", gk_last_error(NULL)); return 0; }
    gk_device_info_get(ctx, &info);
    printf("bench_nn on %s (%s)\n", info.name, info.arch);
    CK(gkb_timer_init(&tm, ctx));
    for (i = 0; i < n; i++) {
        measure(&cs[i]);
        printf("%-36s %9.4f ms %8.0f GB/s  %5.1f%% of copy\n", cs[i].name, cs[i].ms, cs[i].gbs, 100 * cs[i].gbs / cs[0].gbs);
    }
    printf("layer norm kernel variants (tune.ln_variant; ran: the variant that ran, -1 another kernel)\n");
    for (i = 0; i < NLV * NVAR; i++) {
        bcase *c = &lc[i];
        int v = lvv[i % NVAR];
        memset(c, 0, sizeof *c);
        c->name = lvs[i / NVAR].name; c->op = OP_LNV; c->dt = lvs[i / NVAR].dt;
        lv_rows = lvs[i / NVAR].rows; lv_cols = lvs[i / NVAR].cols; lv_variant = v;
        c->bytes = 2.0 * (double)lv_rows * (double)lv_cols * (double)gk_dtype_size(c->dt);
        measure(c);
        lran[i] = lv_ran;
        if (v < 0) printf("%-28s auto ran %2d", c->name, lran[i]);
        else printf("%-28s v%d   ran %2d", c->name, v, lran[i]);
        printf(" %9.4f ms %8.0f GB/s  %5.1f%% of copy\n", c->ms, c->gbs, 100 * c->gbs / cs[0].gbs);
    }
    if (json) {
        gkb_json j;
        if (gkb_json_open(&j, json) != 0) return 1;
        gkb_json_header(&j, "bench_nn", info.name, now);
        gkb_json_num(&j, "copy_gbs", cs[0].gbs, 1);
        gkb_json_obj(&j, "ops");
        for (i = 0; i < n; i++) {
            gkb_json_row(&j, cs[i].name);
            gkb_json_num(&j, "ms", cs[i].ms, 5);
            gkb_json_num(&j, "gbs", cs[i].gbs, 1);
            gkb_json_num(&j, "frac_copy", cs[i].gbs / cs[0].gbs, 3);
            gkb_json_end(&j);
        }
        gkb_json_end(&j);
        /* "layernorm_variants": {shape: {"auto" | "v0" | "v1" | "v3": {ms, gbs, frac_copy, ran}}} */
        gkb_json_obj(&j, "layernorm_variants");
        for (i = 0; i < NLV * NVAR; i++) {
            const bcase *c = &lc[i];
            int v = lvv[i % NVAR];
            char key[16];
            if (v < 0) snprintf(key, sizeof key, "auto");
            else snprintf(key, sizeof key, "v%d", v);
            if (v < 0) gkb_json_obj(&j, c->name);
            gkb_json_row(&j, key);
            gkb_json_num(&j, "ms", c->ms, 5);
            gkb_json_num(&j, "gbs", c->gbs, 1);
            gkb_json_num(&j, "frac_copy", c->gbs / cs[0].gbs, 3);
            gkb_json_int(&j, "ran", lran[i]);
            gkb_json_end(&j);
            if (i % NVAR == NVAR - 1) gkb_json_end(&j);
        }
        gkb_json_close(&j);
    }
    gk_ctx_destroy(ctx);
    return 0;
}
