/* bench_gemv.c - the decode GEMV (gk_linear with 1..8 rows against a bf16
   [N, K] weight) as a model's decode step sees it: back-to-back launches,
   each over a different weight (copies cycled through, 512 MiB in all, so
   nothing is served from the 50-60 MB L2), timed with events around the
   whole run; GB/s of weight bytes against the device-to-device copy
   bandwidth measured the same way. Also every kernel configuration (the
   dispatcher's table comes from this sweep), M = 1, 4, 8, and the fused
   gate/up GLU (gk_linear_glu) against two GEMVs + gk_glu.
   bench/gemv_torch.py times PyTorch (cuBLAS) with the same method.
   Also decode attention over an 8k-token cache (B 1, 32 q / 8 kv heads, D 128,
   bf16), the same cache every call and 16 rotated copies.
   gemv_graph_cfg rows: a decode step's projections of Qwen2.5-0.5B in each GEMV configuration, timed as CUDA
   graph replay (the host's per-call launch work left out, as in a captured decode step).
   Usage: bench_gemv [--json FILE] [--quick: M = 1] [--attn: decode attention only] [--attn-pf: only its first rows, the
   L2 prefetch sweep] [--attn-diag V: the 8k cache from DRAM, for a
   profiler: gk_attn_dec4t (5), the default (-1) or both (1)] [--attn-ab: the default, gk_attn_dec3 and
   gk_attn_dec4t over the 8k cache and the LLM shapes, from DRAM, one row each: the quick
   comparison of two builds in one device call; the whole --attn run takes minutes] [--attn-fold: those shapes with the
   splits combined by the decode kernel itself (tune.dec_fold 1, the default) and by gk_attn_combine (0), twice in turn] */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkb.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static gk_ctx *ctx;
static gk__tuning *tu; /* ctx's tuning knobs and launch counters (gpukit.h gk__tune) */
static gkb_timer tm;
static gkb_json js; /* --json: the results, a row each */

static void fill_rand(gk_tensor t, int64_t n) {
    float *h = (float *)malloc((size_t)n * 4);
    gk_tensor f, v;
    int64_t i;
    unsigned s = 12345;
    for (i = 0; i < n; i++) { s = s * 1664525u + 1013904223u; h[i] = (float)((double)(s >> 8) / 16777216.0 - 0.5) * 0.1f; }
    gk_tensor_from_host(ctx, GK_F32, 1, &n, h, &f);
    gk_view_reshape(ctx, t, 1, &n, &v);
    gk_cast(ctx, v, f);
    gk_tensor_free(ctx, v);
    gk_tensor_free(ctx, f);
    free(h);
}

/* median over 5 runs of (time of `iters` back-to-back calls) / iters, in ms */
static double time_calls(gkb_op_fn fn, void *u, int iters) {
    double t[5];
    if (gkb_time_op(&tm, fn, u, iters, 0, 5, iters, t) != GK_OK) { printf("  %s\n", gk_last_error(ctx)); return -1; }
    return gkb_median(t, 5);
}

/* the same, the `iters` calls captured once as a CUDA graph on a stream of their own and
   replayed (median of 5 replays after one): a decode step's view, no host time between kernels */
static double time_graph(gkb_op_fn fn, void *u, int iters) {
    gk_stream *gs = NULL, *old = gk_get_stream(ctx);
    gk_graph *gr = NULL;
    double t[6];
    int r, i, ok = gk_stream_create(ctx, GK_PRIORITY_NORMAL, &gs) == GK_OK;
    if (ok) gk_set_stream(ctx, gs);
    for (i = 0; ok && i < iters; i++) ok = fn(u, i) == GK_OK; /* warm-up (and the kernels loaded) */
    ok = ok && gk_stream_sync(ctx, gs) == GK_OK && gk_graph_begin(ctx, gs) == GK_OK;
    for (i = 0; ok && i < iters; i++) ok = fn(u, i) == GK_OK;
    if (gs && gk_graph_end(ctx, gs, &gr) != GK_OK) ok = 0;
    tm.stream = gs;
    for (r = 0; ok && r < 6; r++) {
        gkb_timer_start(&tm);
        ok = gk_graph_launch(ctx, gr, gs) == GK_OK;
        gkb_timer_stop(&tm, &t[r]);
        t[r] /= iters;
    }
    tm.stream = NULL;
    if (!ok) printf("  graph: %s\n", gk_last_error(ctx));
    if (gr) gk_graph_destroy(ctx, gr);
    gk_set_stream(ctx, old);
    if (gs) gk_stream_destroy(ctx, gs);
    if (!ok) return -1;
    return gkb_median(t + 1, 5); /* the first replay left out */
}

typedef struct { gk_tensor *w, x, o, o2, g, u, scratch; int nw, glu; gk_matmul_desc d; } gemv_u;
static gk_status call_gemv(void *vu, int i) {
    gemv_u *u = (gemv_u *)vu;
    return u->glu ? gk_linear_glu(ctx, u->o, u->x, u->w[i % u->nw], u->scratch, &u->d) : gk_linear(ctx, u->o, u->x, u->w[i % u->nw], &u->d);
}
static gk_status call_copy(void *vu, int i) {
    gemv_u *u = (gemv_u *)vu;
    (void)i;
    return gk_copy(ctx, u->o, u->x);
}
/* gate and up as two GEMVs over the halves of the [2N, K] weight, then gk_glu */
static gk_status call_unfused(void *vu, int i) {
    gemv_u *u = (gemv_u *)vu;
    gk_tensor w = u->w[i % u->nw], wg, wu;
    gk_tensor_info wi;
    gk_status st;
    gk_tensor_info_get(ctx, w, &wi);
    gk_view_slice(ctx, w, 0, 0, wi.shape[0] / 2, 1, &wg);
    gk_view_slice(ctx, w, 0, wi.shape[0] / 2, wi.shape[0], 1, &wu);
    st = gk_linear(ctx, u->g, u->x, wg, NULL);
    if (st == GK_OK) st = gk_linear(ctx, u->u, u->x, wu, NULL);
    if (st == GK_OK) st = gk_glu(ctx, u->o, u->g, u->u, GK_GLU_SILU);
    gk_tensor_free(ctx, wg);
    gk_tensor_free(ctx, wu);
    return st;
}

/* decode attention over a cache of Skv tokens (issue 4: 8k tokens, q [1, 1, 32, 128], K / V [1, 8192, 8, 128]
   bf16); `nc` cache copies cycled through (1: the same cache every call, as bench_gemm times it; it fits in L2).
   one: tune.dec3_one_split for this row (-1: the default) */
typedef struct { gk_tensor q, o, *k, *v, *base, s; int nc, floor; gk_attention_desc d; } attn_u;
/* the cache's layout: 0 K and V apart, [B, S, Hk, D] each; 1 head-major [B, Hk, S, D] each; 2 one
   [B, S, 2 Hk, D] tensor (gpukit_llm's) */
static int attn_layout = 0;
static gk_status call_attn(void *vu, int i) {
    attn_u *u = (attn_u *)vu;
    gk_status st;
    if (!u->floor) return gk_attention(ctx, u->o, u->q, u->k[i % u->nc], u->v[i % u->nc], &u->d);
    /* the same bytes summed by two reductions (two kernels, as dec3 + gk_attn_combine). Meant as a read floor, it
       is not one: gk_reduce over 16.7M elements is slower than the attention (H100: 23.3 against 19.6 us) */
    st = gk_reduce(ctx, u->s, u->k[i % u->nc], GK_REDUCE_SUM, GK_AXIS_ALL, 0);
    return st == GK_OK ? gk_reduce(ctx, u->s, u->v[i % u->nc], GK_REDUCE_SUM, GK_AXIS_ALL, 0) : st;
}
/* variant: tune.dec_variant for this row (-1 the dispatcher, 0 gk_attn_dec, 3 gk_attn_dec3, 5 gk_attn_dec4t; -2 no
   attention: K and V each summed by gk_reduce, two_reduces); B sequences */
static void run_attn_b(int nc, int variant, double copy_gbs, int64_t B, int64_t Skv, int64_t H, int64_t Hk, int64_t Dh, int64_t one) {
    const char *kn;
    attn_u u;
    int64_t qs[4] = { B, 1, H, Dh }, ks[4] = { B, Skv, Hk, Dh }, keep = tu->dec3_one_split;
    double bytes = 2.0 * (double)B * Skv * Hk * Dh * 2, ms, gbs;
    long d0 = tu->dec3_direct, l3 = tu->dec3_launches, l4t = tu->dec4t_launches;
    long f0 = tu->dec_fold_launches;
    int stages = tu->dec4t_stages > 0 ? tu->dec4t_stages : GK__DEC4T_STAGES;
    char what[128]; /* the snprintf below: at most 21 characters + 5 x 20 digits */
    int i, direct, pf, fold;
    memset(&u, 0, sizeof u);
    u.nc = nc;
    u.k = (gk_tensor *)calloc((size_t)nc, sizeof(gk_tensor));
    u.v = (gk_tensor *)calloc((size_t)nc, sizeof(gk_tensor));
    u.base = (gk_tensor *)calloc((size_t)nc * 2, sizeof(gk_tensor));
    for (i = 0; i < nc; i++) {
        if (attn_layout == 1) { /* head-major storage [B, Hk, S, D] (HF's cache layout), seen as [B, S, Hk, D] */
            int64_t hs[4] = { B, Hk, Skv, Dh };
            gk_tensor_empty(ctx, GK_BF16, 4, hs, &u.base[2 * i]);
            gk_tensor_empty(ctx, GK_BF16, 4, hs, &u.base[2 * i + 1]);
            fill_rand(u.base[2 * i], B * Skv * Hk * Dh);
            fill_rand(u.base[2 * i + 1], B * Skv * Hk * Dh);
            gk_view_transpose(ctx, u.base[2 * i], 1, 2, &u.k[i]);
            gk_view_transpose(ctx, u.base[2 * i + 1], 1, 2, &u.v[i]);
        } else if (attn_layout == 2) { /* gpukit_llm's cache: [B, S, 2 Hk, D], K heads then V heads */
            int64_t ls[4] = { B, Skv, 2 * Hk, Dh };
            gk_tensor_empty(ctx, GK_BF16, 4, ls, &u.base[2 * i]);
            fill_rand(u.base[2 * i], 2 * B * Skv * Hk * Dh);
            gk_view_slice(ctx, u.base[2 * i], 2, 0, Hk, 1, &u.k[i]);
            gk_view_slice(ctx, u.base[2 * i], 2, Hk, 2 * Hk, 1, &u.v[i]);
        } else {
            gk_tensor_empty(ctx, GK_BF16, 4, ks, &u.k[i]);
            gk_tensor_empty(ctx, GK_BF16, 4, ks, &u.v[i]);
            fill_rand(u.k[i], B * Skv * Hk * Dh);
            fill_rand(u.v[i], B * Skv * Hk * Dh);
        }
    }
    gk_tensor_empty(ctx, GK_BF16, 4, qs, &u.q);
    gk_tensor_empty(ctx, GK_BF16, 4, qs, &u.o);
    fill_rand(u.q, B * H * Dh);
    u.d.causal = 1;
    u.floor = variant == -2;
    if (u.floor) gk_tensor_empty(ctx, GK_BF16, 0, qs, &u.s); /* (a scalar: the shape is not read) */
    tu->dec_variant = variant == -2 ? -1 : variant;
    if (one >= 0) tu->dec3_one_split = one;
    ms = time_calls(call_attn, &u, 64);
    direct = tu->dec3_direct > d0; /* the calls took the one-split path */
    fold = tu->dec_fold_launches > f0; /* the splits combined themselves (no gk_attn_combine) */
    kn = u.floor                        ? "two_reduces"
         : tu->dec4t_launches > l4t     ? "gk_attn_dec4t"
         : tu->dec3_launches > l3       ? "gk_attn_dec3"
                                        : "gk_attn_dec";
    if (tu->dec4t_launches == l4t) stages = 0; /* (kn: the kernel that ran) */
    gbs = ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0;
    /* the tiles it prefetched: none below 9.0 (no PDL, the kernels skip it), else gk_attention's rule */
    pf = ctx->info.cc_major < 9 ? 0 : tu->dec_prefetch >= 0 ? tu->dec_prefetch : strcmp(kn, "gk_attn_dec3") == 0 ? GK__DEC3_PREFETCH
                                                                        : strcmp(kn, "gk_attn_dec4t") == 0 ? GK__DEC4T_PREFETCH : 0;
    snprintf(what, sizeof what, "bf16 B%lld kv %lld H%lld/%lld D%lld", (long long)B, (long long)Skv, (long long)H, (long long)Hk, (long long)Dh);
    printf("attn_decode    %-30s %-8s %-12s st%d mk%-4lld bs%d pf%-2d %-6s %-4s %8.2f us %7.0f GB/s (%.0f%% of copy)\n", what, nc > 1 ? "rotated" : "same", kn,
           stages, (long long)tu->dec4t_min_keys, tu->dec4t_blocks_sm, pf, direct ? "1split" : "splits", fold ? "fold" : "comb", ms * 1e3, gbs, 100 * gbs / copy_gbs);
    gkb_json_rowf(&js, "{\"op\": \"attn_decode\", \"dtype\": \"bf16\", \"B\": %lld, \"kv\": %lld, \"Hq\": %lld, \"Hkv\": %lld, \"D\": %lld, \"caches\": \"%s\", \"layout\": %d, \"kernel\": \"%s\", \"stages\": %d, \"min_keys\": %lld, \"blocks_sm\": %d, \"combine_one_round\": %d, \"prefetch_tiles\": %d, \"pad_one_block\": %d, \"one_split\": %d, \"fold\": %d, \"per_sm\": %d, \"us\": %.3f, \"GBs\": %.1f, \"of_copy\": %.4f}",
                    (long long)B, (long long)Skv, (long long)H, (long long)Hk, (long long)Dh, nc > 1 ? "rotated" : "same", attn_layout, kn,
                    stages, (long long)tu->dec4t_min_keys, tu->dec4t_blocks_sm, tu->combine_one_round, pf, tu->dec4t_pad, direct, fold, tu->dec3_per_sm, ms * 1e3, gbs, gbs / copy_gbs);
    /* the same calls captured once as a CUDA graph and replayed, as a decode step runs them: no host
       time between kernels (back-to-back calls above include the host's launch work per call) */
    ms = time_graph(call_attn, &u, 64);
    if (ms > 0) {
        gbs = bytes / (ms * 1e-3) / 1e9;
        printf("attn_decode    %-30s %-8s %-12s st%d mk%-4lld bs%d pf%-2d %-6s %-4s %8.2f us %7.0f GB/s (%.0f%% of copy) graph\n", what, nc > 1 ? "rotated" : "same",
               kn, stages, (long long)tu->dec4t_min_keys, tu->dec4t_blocks_sm, pf, direct ? "1split" : "splits", fold ? "fold" : "comb", ms * 1e3, gbs, 100 * gbs / copy_gbs);
        gkb_json_rowf(&js, "{\"op\": \"attn_decode_graph\", \"dtype\": \"bf16\", \"B\": %lld, \"kv\": %lld, \"Hq\": %lld, \"Hkv\": %lld, \"D\": %lld, \"caches\": \"%s\", \"layout\": %d, \"kernel\": \"%s\", \"stages\": %d, \"min_keys\": %lld, \"blocks_sm\": %d, \"combine_one_round\": %d, \"prefetch_tiles\": %d, \"pad_one_block\": %d, \"one_split\": %d, \"fold\": %d, \"per_sm\": %d, \"us\": %.3f, \"GBs\": %.1f, \"of_copy\": %.4f}",
                        (long long)B, (long long)Skv, (long long)H, (long long)Hk, (long long)Dh, nc > 1 ? "rotated" : "same", attn_layout, kn, stages,
                        (long long)tu->dec4t_min_keys, tu->dec4t_blocks_sm, tu->combine_one_round, pf, tu->dec4t_pad, direct, fold, tu->dec3_per_sm, ms * 1e3, gbs, gbs / copy_gbs);
    }
    tu->dec_variant = -1;
    tu->dec3_one_split = keep;
    for (i = 0; i < nc; i++) { gk_tensor_free(ctx, u.k[i]); gk_tensor_free(ctx, u.v[i]); }
    for (i = 0; i < 2 * nc; i++)
        if (u.base[i].id) gk_tensor_free(ctx, u.base[i]);
    free(u.k); free(u.v); free(u.base);
    gk_tensor_free(ctx, u.q); gk_tensor_free(ctx, u.o);
    if (u.floor) gk_tensor_free(ctx, u.s);
}
static void run_attn(int nc, int variant, double copy_gbs) { run_attn_b(nc, variant, copy_gbs, 1, 8192, 32, 8, 128, -1); }
/* --attn-pad and --attn-ab: the 8k cache and the LLM shapes ({ B, keys, q heads, kv heads, D }) */
static const int64_t attn_shapes[7][5] = { { 1, 8192, 32, 8, 128 }, { 1, 512, 32, 8, 128 }, { 1, 4096, 14, 2, 64 }, { 1, 32768, 14, 2, 64 },
                                           { 1, 8192, 32, 8, 64 }, { 1, 4096, 32, 32, 128 }, { 8, 1024, 32, 32, 128 } };

static double run_shape(int64_t N, int64_t K, int64_t M, int glu, int cfg, int unfused, double copy_gbs, const char *label) {
    gemv_u u;
    int64_t wrows = glu ? 2 * N : N, ws[2] = { wrows, K }, xs[2] = { M, K }, os[2] = { M, N };
    double bytes = (double)wrows * K * 2, ms, gbs;
    int i, iters;
    memset(&u, 0, sizeof u);
    u.nw = (int)((((int64_t)512 << 20) + (int64_t)bytes - 1) / (int64_t)bytes);
    if (u.nw < 2) u.nw = 2;
    u.w = (gk_tensor *)calloc((size_t)u.nw, sizeof(gk_tensor));
    for (i = 0; i < u.nw; i++) {
        if (gk_tensor_empty(ctx, GK_BF16, 2, ws, &u.w[i]) != GK_OK) { printf("  %s\n", gk_last_error(ctx)); return -1; }
        fill_rand(u.w[i], wrows * K);
    }
    gk_tensor_empty(ctx, GK_BF16, 2, xs, &u.x);
    fill_rand(u.x, M * K);
    gk_tensor_empty(ctx, GK_BF16, 2, os, &u.o);
    gk_tensor_empty(ctx, GK_BF16, 2, os, &u.g);
    gk_tensor_empty(ctx, GK_BF16, 2, os, &u.u);
    u.glu = glu;
    u.d.act = glu ? GK_ACT_SILU : GK_ACT_NONE;
    iters = u.nw * 4 < 64 ? 64 : u.nw * 4;
    tu->gemv_force_cfg = cfg;
    if (strstr(label, "graph")) ms = time_graph(unfused ? call_unfused : call_gemv, &u, iters < 96 ? iters : 96);
    else ms = time_calls(unfused ? call_unfused : call_gemv, &u, iters);
    tu->gemv_force_cfg = -1;
    gbs = ms > 0 ? bytes / (ms * 1e-3) / 1e9 : 0;
    printf("%-14s bf16 M%lld %6lldx%-5lld cfg %2d %8.2f us %7.0f GB/s (%.0f%% of copy)\n", label, (long long)M, (long long)wrows, (long long)K, cfg,
           ms * 1e3, gbs, 100 * gbs / copy_gbs);
    gkb_json_rowf(&js, "{\"op\": \"%s\", \"dtype\": \"bf16\", \"M\": %lld, \"N\": %lld, \"K\": %lld, \"cfg\": %d, \"us\": %.3f, \"GBs\": %.1f, \"of_copy\": %.4f}",
                    label, (long long)M, (long long)wrows, (long long)K, cfg, ms * 1e3, gbs, gbs / copy_gbs);
    for (i = 0; i < u.nw; i++) gk_tensor_free(ctx, u.w[i]);
    free(u.w);
    gk_tensor_free(ctx, u.x); gk_tensor_free(ctx, u.o); gk_tensor_free(ctx, u.g); gk_tensor_free(ctx, u.u);
    return gbs;
}

int main(int argc, char **argv) {
    static const int64_t shapes[3][2] = { { 4096, 4096 }, { 14336, 4096 }, { 151936, 896 } };
    static const int64_t glus[3][2] = { { 4864, 896 }, { 8192, 2048 }, { 11008, 4096 } }; /* Qwen2.5-0.5B, Llama-3.2-1B, Llama-2-7B MLPs */
    gk_ctx_desc d;
    gk_device_info info;
    const char *json = NULL;
    time_t now = time(NULL);
    double copy_gbs;
    int i, s, c, quick = 0, attn_only = 0, pf_only = 0, diag = 0;
    for (i = 1; i < argc; i++) {
        if (gkb_arg(argc, argv, &i, "--json", &json)) continue;
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
        else if (strcmp(argv[i], "--attn") == 0) attn_only = 1;
        else if (strcmp(argv[i], "--attn-pf") == 0) attn_only = pf_only = 1;
        else if (strcmp(argv[i], "--attn-diag") == 0 && i + 1 < argc) diag = atoi(argv[++i]); /* 5: dec4t, -1: the default, 1: both */
        else if (strcmp(argv[i], "--attn-layout") == 0) diag = 100;
        else if (strcmp(argv[i], "--attn-pad") == 0) diag = 101;
        else if (strcmp(argv[i], "--attn-ab") == 0) diag = 104;
        else if (strcmp(argv[i], "--attn-fold") == 0) diag = 105;
    }
    memset(&d, 0, sizeof d);
    d.backend = GK_BACKEND_CUDA;
    if (gk_ctx_create(&d, &ctx) != GK_OK) { printf("bench_gemv: needs a GPU (%s)\n", gk_last_error(NULL)); return 0; }
    tu = gk__tune(ctx);
    gk_device_info_get(ctx, &info);
    gkb_timer_init(&tm, ctx);
    { /* copy bandwidth: 1 GiB, read + write counted */
        gemv_u u;
        int64_t n = (int64_t)1 << 29;
        double ms;
        memset(&u, 0, sizeof u);
        gk_tensor_empty(ctx, GK_BF16, 1, &n, &u.x);
        gk_tensor_empty(ctx, GK_BF16, 1, &n, &u.o);
        gk_fill(ctx, u.x, 1.0);
        ms = time_calls(call_copy, &u, 4);
        copy_gbs = 2.0 * (double)n * 2 / (ms * 1e-3) / 1e9;
        printf("copy bandwidth %.0f GB/s\n", copy_gbs);
        gk_tensor_free(ctx, u.x); gk_tensor_free(ctx, u.o);
    }
    gkb_json_open(&js, json);
    gkb_json_header(&js, "gemv", info.name, now);
    gkb_json_num(&js, "copy_GBs", copy_gbs, 1);
    gkb_json_str(&js, "method", "back-to-back launches over rotating weight copies (512 MiB), median of 5");
    gkb_json_arr(&js, "results");
    if (diag == 104) { /* --attn-ab: the default, gk_attn_dec3 and gk_attn_dec4t, each shape once */
        int ci;
        for (ci = 0; ci < 7; ci++) {
            const int64_t *c = attn_shapes[ci];
            run_attn_b(c[0] > 1 ? 4 : 16, -1, copy_gbs, c[0], c[1], c[2], c[3], c[4], -1);
            run_attn_b(c[0] > 1 ? 4 : 16, 3, copy_gbs, c[0], c[1], c[2], c[3], c[4], -1);
            if (info.cc_major >= 9) run_attn_b(c[0] > 1 ? 4 : 16, 5, copy_gbs, c[0], c[1], c[2], c[3], c[4], -1);
        }
        goto done;
    }
    if (diag == 105) { /* --attn-fold: the splits combined by the decode kernel itself (tune.dec_fold 1, the default) or by
                          gk_attn_combine (0), the default (gk_attn_dec3) and gk_attn_dec4t, each shape, twice in turn */
        int r, ci, fo;
        for (r = 0; r < 2; r++)
            for (ci = 0; ci < 7; ci++)
                for (fo = 1; fo >= 0; fo--) {
                    const int64_t *c = attn_shapes[ci];
                    tu->dec_fold = fo;
                    run_attn_b(c[0] > 1 ? 4 : 16, -1, copy_gbs, c[0], c[1], c[2], c[3], c[4], -1);
                    if (info.cc_major >= 9)
                        for (tu->dec_prefetch = -1; tu->dec_prefetch < 1; tu->dec_prefetch++) /* gk_attn_dec4t: its default L2 prefetch, none */
                            run_attn_b(c[0] > 1 ? 4 : 16, 5, copy_gbs, c[0], c[1], c[2], c[3], c[4], -1);
                    tu->dec_prefetch = -1;
                }
        tu->dec_fold = 1;
        goto done;
    }
    if (diag == 101) { /* --attn-pad: gk_attn_dec4t with its shared memory padded to one block a SM (tune.dec4t_pad 1, the
                          default) or not (0), in turn, twice: the 8k cache and the LLM shapes, from DRAM */
        int r, ci, pad;
        if (info.cc_major < 9) goto done;
        for (r = 0; r < 2; r++)
            for (ci = 0; ci < 7; ci++)
                for (pad = 0; pad < 2; pad++) {
                    const int64_t *c = attn_shapes[ci];
                    tu->dec4t_pad = pad;
                    printf("pad %d: ", pad);
                    run_attn_b(16, 5, copy_gbs, c[0], c[1], c[2], c[3], c[4], -1);
                }
        tu->dec4t_pad = 1;
        goto done;
    }
    if (diag == 100) { /* --attn-layout: the 8k cache from DRAM in each layout, dec4t and the default */
        for (attn_layout = 0; attn_layout < 3; attn_layout++) {
            printf("cache layout %d\n", attn_layout);
            if (info.cc_major >= 9) run_attn(16, 5, copy_gbs);
            run_attn(16, -1, copy_gbs);
        }
        attn_layout = 0;
        goto done;
    }
    if (diag) { /* for a profiler: the 8k cache from DRAM, gk_attn_dec4t then the default (gk_attn_dec3) */
        if (info.cc_major >= 9 && diag != -1) run_attn(16, 5, copy_gbs);
        if (diag != 5) run_attn(16, -1, copy_gbs);
        goto done;
    }
    /* decode attention: the same cache every call, then 16 rotated copies (from DRAM); the dispatcher's kernel
       (gk_attn_dec3), then gk_attn_dec4t (9.0+ devices) and gk_attn_dec forced */
    { /* the L2 prefetch before the PDL wait (tune.dec_prefetch, 64-key tiles a split; -1 each kernel's default): the 8k
         cache (the same / from DRAM), then the LLM shapes */
        static const int cfg[5][2] = { /* variant, prefetch */ { -1, 0 }, { -1, -1 }, { -1, 4 }, { 5, -1 }, { 5, 1 } };
        static const int64_t cs[6][5] = { { 1, 512, 32, 8, 128 }, { 1, 4096, 14, 2, 64 }, { 1, 32768, 14, 2, 64 }, { 1, 8192, 32, 8, 64 },
                                          { 1, 4096, 32, 32, 128 }, { 8, 1024, 32, 32, 128 } };
        int k, ci;
        for (k = 0; k < 5; k++) {
            if (cfg[k][0] == 5 && info.cc_major < 9) continue;
            tu->dec_prefetch = cfg[k][1];
            run_attn(1, cfg[k][0], copy_gbs);
            run_attn(16, cfg[k][0], copy_gbs);
        }
        for (ci = 0; ci < 6; ci++)
            for (k = 0; k < 5; k++) {
                if ((cfg[k][0] == 5 && info.cc_major < 9) || k == 2 || k == 4) continue;
                tu->dec_prefetch = cfg[k][1];
                run_attn_b(cs[ci][0] > 1 ? 4 : 16, cfg[k][0], copy_gbs, cs[ci][0], cs[ci][1], cs[ci][2], cs[ci][3], cs[ci][4], ci == 0 ? 0 : -1);
            }
        tu->dec_prefetch = -1;
        if (pf_only) goto done;
    }
    run_attn(1, -1, copy_gbs);
    run_attn(16, -1, copy_gbs);
    run_attn(1, -2, copy_gbs); /* the same bytes through two gk_reduce calls (not a floor: see call_attn) */
    run_attn(16, -2, copy_gbs);
    { /* gk_attn_combine's three-round form against the one-round form (the default), the dispatcher's kernel */
        static const int64_t cs[4][5] = { { 1, 8192, 32, 8, 128 }, { 1, 512, 32, 8, 128 }, { 1, 4096, 14, 2, 64 }, { 8, 2048, 32, 8, 64 } };
        int ci, c1;
        for (ci = 0; ci < 4; ci++)
            for (c1 = 0; c1 < 2; c1++) {
                tu->combine_one_round = c1;
                printf("combine: %s\n", c1 ? "one round" : "three rounds");
                run_attn_b(cs[ci][0] > 1 ? 4 : 16, -1, copy_gbs, cs[ci][0], cs[ci][1], cs[ci][2], cs[ci][3], cs[ci][4], -1);
            }
        tu->combine_one_round = 1;
    }
    /* the fixed cost of a split decode: 512 keys (2 MiB), splits merged by gk_attn_combine */
    run_attn_b(16, -1, copy_gbs, 1, 512, 32, 8, 128, 0);
    if (info.cc_major >= 9) run_attn_b(16, 5, copy_gbs, 1, 512, 32, 8, 128, 0);
    if (info.cc_major >= 9) { /* gk_attn_dec4t */
        run_attn(1, 5, copy_gbs);
        run_attn(16, 5, copy_gbs);
    }
    run_attn(1, 0, copy_gbs);
    run_attn(16, 0, copy_gbs);
    if (info.cc_major >= 9) { /* gk_attn_dec4t's ring depth (its blocks a SM follow from the shared memory it takes) */
        static const int sts[5] = { 1, 2, 4, 5, 6 }; /* (3 is GK__DEC4T_STAGES, above) */
        int si;
        for (si = 0; si < 5; si++) {
            tu->dec4t_stages = sts[si];
            run_attn(16, 5, copy_gbs);
        }
        tu->dec4t_stages = 0;
    }
    if (info.cc_major >= 9) { /* the LLM shapes with longer caches, the dispatcher (gk_attn_dec3) against gk_attn_dec4t:
         Qwen2.5-0.5B (14 / 2, D 64), Llama-3.2-1B (32 / 8, D 64) at batch 1 and 8, Llama-2-7B (32 / 32, D 128) */
        static const int64_t cs[6][5] = { { 1, 4096, 14, 2, 64 }, { 1, 32768, 14, 2, 64 }, { 1, 8192, 32, 8, 64 },
                                          { 8, 2048, 32, 8, 64 }, { 1, 4096, 32, 32, 128 }, { 8, 1024, 32, 32, 128 } };
        int ci;
        for (ci = 0; ci < 6; ci++) {
            run_attn_b(cs[ci][0] > 1 ? 4 : 16, -1, copy_gbs, cs[ci][0], cs[ci][1], cs[ci][2], cs[ci][3], cs[ci][4], -1);
            run_attn_b(cs[ci][0] > 1 ? 4 : 16, 5, copy_gbs, cs[ci][0], cs[ci][1], cs[ci][2], cs[ci][3], cs[ci][4], -1);
        }
    }
    if (info.cc_major >= 9) { /* gk_attn_dec4t's split sizing: ring depth x the fewest keys a split, and blocks a SM */
        static const int64_t cs[5][5] = { { 1, 8192, 32, 8, 128 }, { 1, 4096, 32, 32, 128 }, { 1, 32768, 14, 2, 64 }, { 1, 8192, 32, 8, 64 },
                                          { 1, 4096, 14, 2, 64 } };
        static const int sts[3] = { 3, 4, 6 };
        static const int64_t mks[4] = { 0, 256, 512, 1024 };
        int ci, si, mi;
        for (ci = 0; ci < 5; ci++)
            for (si = 0; si < 3; si++)
                for (mi = 0; mi < 4; mi++) {
                    if (ci > 0 && si == 2) continue;
                    tu->dec4t_stages = sts[si];
                    tu->dec4t_min_keys = mks[mi];
                    run_attn_b(16, 5, copy_gbs, cs[ci][0], cs[ci][1], cs[ci][2], cs[ci][3], cs[ci][4], -1);
                }
        tu->dec4t_stages = 3;
        tu->dec4t_min_keys = 0;
        for (si = 1; si <= 2; si++) {
            tu->dec4t_blocks_sm = si;
            run_attn(16, 5, copy_gbs);
        }
        tu->dec4t_stages = 0;
        tu->dec4t_blocks_sm = 0;
    }
    if (attn_only) goto done;
    { /* gk_attn_dec3's split count: blocks a SM it is sized for */
        static const int per[4] = { 1, 4, 8, 16 };
        int pi;
        for (pi = 0; pi < 4; pi++) {
            tu->dec3_per_sm = per[pi];
            printf("tune.dec3_per_sm %d\n", per[pi]);
            run_attn(16, -1, copy_gbs);
        }
        tu->dec3_per_sm = 2;
    }
    { /* short caches (a decode step early in a sequence), the heads of Qwen2.5-0.5B, Llama-3.2-1B and
         Llama-2-7B: gk_attn_dec3 in one split (no gk_attn_combine) against splits merged by it */
        static const int64_t lens[5] = { 64, 128, 256, 512, 1024 }, hs[3][3] = { { 14, 2, 64 }, { 32, 8, 64 }, { 32, 32, 128 } };
        int li, hi;
        for (hi = 0; hi < 3; hi++)
            for (li = 0; li < 5; li++) {
                run_attn_b(16, -1, copy_gbs, 1, lens[li], hs[hi][0], hs[hi][1], hs[hi][2], 0);
                run_attn_b(16, -1, copy_gbs, 1, lens[li], hs[hi][0], hs[hi][1], hs[hi][2], lens[li]);
            }
    }
    { /* a decode step of Qwen2.5-0.5B (M = 1): q/k/v, o, gate/up, down, each configuration and the dispatcher's
         choice, as graph replay over rotated weights (512 MiB of copies: from DRAM) */
        static const int64_t ds[4][3] = { { 1152, 896, 0 }, { 896, 896, 0 }, { 4864, 896, 1 }, { 896, 4864, 0 } };
        for (s = 0; s < 4; s++)
            for (c = -1; c < GK__GEMV_NALL; c++) run_shape(ds[s][0], ds[s][1], 1, (int)ds[s][2], c, 0, copy_gbs, "gemv_graph_cfg");
    }
    /* the shapes: the dispatcher's choice at M = 1, 4, 8, then the configuration sweep at M = 1 (--quick: M = 1 only) */
    for (s = 0; s < 3; s++) {
        run_shape(shapes[s][0], shapes[s][1], 1, 0, -1, 0, copy_gbs, "gemv");
        if (quick) continue;
        run_shape(shapes[s][0], shapes[s][1], 4, 0, -1, 0, copy_gbs, "gemv");
        run_shape(shapes[s][0], shapes[s][1], 8, 0, -1, 0, copy_gbs, "gemv");
        for (c = 0; c < GK__GEMV_NALL; c++) run_shape(shapes[s][0], shapes[s][1], 1, 0, c, 0, copy_gbs, "gemv_cfg");
        for (c = GK__GEMV_NCFG; c < GK__GEMV_NALL; c++) run_shape(shapes[s][0], shapes[s][1], 8, 0, c, 0, copy_gbs, "gemv_cfg");
    }
    /* fused gate/up (SwiGLU) against two GEMVs and gk_glu, M = 1 */
    for (s = 0; s < 3 && !quick; s++) {
        run_shape(glus[s][0], glus[s][1], 1, 1, -1, 0, copy_gbs, "glu_fused");
        run_shape(glus[s][0], glus[s][1], 1, 1, -1, 1, copy_gbs, "glu_unfused");
    }
done:
    gkb_json_close(&js);
    gk_ctx_destroy(ctx);
    return 0;
}
