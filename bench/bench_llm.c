/* bench_llm - gpukit_llm.h's transformer runtime on a model folder:
     decode_b1   batch-1 decode: a 32-token prompt, 128 new tokens (greedy, EOS ignored), tok/s
     prefill     one 512-token prompt, tok/s (median of 5)
     decode_b8   batched decode of 8 sequences (prompts of 32..39 tokens), 128 new each, tok/s over all
   and the roofline of batch-1 decode: the copy bandwidth measured here over the
   bytes each token reads (all weights + the KV cache at the mean context).
   bench/llm_torch.py makes random-weight models of real shapes, times HF
   transformers on the same folders and runs this next to it.

     build/bench_llm MODEL_DIR [--json out.json] [--dtype bf16|f16|f32] [--prompt 32] [--new 128]
                     [--prefill 512] [--batch 8] [--backend cpu|cuda] [--b1-only] [--gemv-smalln 0|1] [--dec-variant N]
   --b1-only: batch-1 decode only; with GPUKIT_LLM_DEBUG_SKIP=<bits> (gpukit_llm.h gk__llm_layers; the
   results are then wrong) the decode step leaves those ops out, so the tok/s difference is their cost.
   The tuning options set the context's knobs (gpukit.h gk__tuning, through gk__tune):
   --dec-variant N: gk_attention's decode kernel (tune.dec_variant: -1 the default, 3 gk_attn_dec3, 5 gk_attn_dec4t, ...),
   for long-prompt decode compared kernel against kernel; --dec-min-keys / --dec-blocks-sm: gk_attn_dec4t's split sizing
   (tune.dec4t_min_keys / tune.dec4t_blocks_sm); --dec-prefetch N: 64-key tiles a split prefetched into L2 before the PDL wait
   (tune.dec_prefetch, -1 the kernel's default); --dec-fold 0: decode attention's splits merged by gk_attn_combine rather
   than by the decode kernel itself (tune.dec_fold); --gemv-smalln 0: the GEMV's few-rows rule off (tune.gemv_smalln). */
#define GPUKIT_IMPLEMENTATION
#define GPUKIT_LLM_IMPLEMENTATION
#include "../gpukit_llm.h"
#include "gkb.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static gk_ctx *ctx;
#define CK(x) GKB_CHECK(ctx, x)

/* device-to-device copy bandwidth (read + write bytes), GB/s, the upper median of 10 */
static double copy_gbs(void) {
    int64_t n = (int64_t)128 << 20; /* 512 MiB of f32 */
    gk_tensor a, b;
    gkb_timer tm;
    double t[10];
    int i;
    CK(gk_tensor_empty(ctx, GK_F32, 1, &n, &a));
    CK(gk_tensor_empty(ctx, GK_F32, 1, &n, &b));
    CK(gk_fill(ctx, a, 1));
    CK(gkb_timer_init(&tm, ctx));
    CK(gk_copy(ctx, b, a));
    for (i = 0; i < 10; i++) {
        double ms;
        CK(gkb_timer_start(&tm));
        CK(gk_copy(ctx, b, a));
        CK(gkb_timer_stop(&tm, &ms));
        t[i] = ms > 0 ? 2.0 * (double)n * 4 / (ms * 1e-3) / 1e9 : 0;
    }
    gkb_timer_free(&tm);
    gk_tensor_free(ctx, a); gk_tensor_free(ctx, b);
    return gkb_kth(t, 10, 5);
}

int main(int argc, char **argv) {
    const char *dir = NULL, *json = NULL;
    gk_ctx_desc cd;
    gk_llm_desc ld;
    gk_llm_gen_desc gd;
    gk_llm_stats st1, st8;
    gk_llm *m = NULL;
    gk_device_info info;
    int64_t P = 32, NEW = 128, PRE = 512, B = 8, V, i, k;
    int b1_only = 0;
    int32_t *ids;
    const int32_t *ps[64];
    size_t ls[64];
    double pre[5], gbs, bytes_tok, roof, pre_med, t0;
    time_t tt = time(NULL);
    memset(&cd, 0, sizeof cd);
    memset(&ld, 0, sizeof ld);
    cd.backend = GK_BACKEND_AUTO;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--json") == 0 && v) { json = v; i++; }
        else if (strcmp(a, "--dtype") == 0 && v) { ld.dtype = strcmp(v, "f32") == 0 ? GK_LLM_DTYPE_F32 : strcmp(v, "f16") == 0 ? GK_LLM_DTYPE_F16 : GK_LLM_DTYPE_BF16; i++; }
        else if (strcmp(a, "--prompt") == 0 && v) { P = atoll(v); i++; }
        else if (strcmp(a, "--new") == 0 && v) { NEW = atoll(v); i++; }
        else if (strcmp(a, "--prefill") == 0 && v) { PRE = atoll(v); i++; }
        else if (strcmp(a, "--batch") == 0 && v) { B = atoll(v); i++; }
        else if (strcmp(a, "--b1-only") == 0) b1_only = 1;
        else if ((strcmp(a, "--gemv-smalln") == 0 || strcmp(a, "--dec-variant") == 0 || strcmp(a, "--dec-min-keys") == 0 ||
                  strcmp(a, "--dec-blocks-sm") == 0 || strcmp(a, "--dec-prefetch") == 0 || strcmp(a, "--dec-fold") == 0) && v)
            i++; /* the context's tuning knobs: set below, once it exists */
        else if (strcmp(a, "--backend") == 0 && v) { cd.backend = strcmp(v, "cpu") == 0 ? GK_BACKEND_CPU : GK_BACKEND_CUDA; i++; }
        else if (a[0] != '-') dir = a;
        else { printf("unknown option %s\n", a); return 2; }
    }
    if (!dir || B < 1 || B > 64 || P < 1 || NEW < 1 || PRE < 1) {
        printf("usage: bench_llm MODEL_DIR [--json out.json] [--dtype bf16|f16|f32] [--prompt 32] [--new 128] [--prefill 512] [--batch 8] [--b1-only] [--dec-variant N] [--dec-prefetch N] [--dec-fold 0|1]\n");
        return 2;
    }
    cd.log_level = GK_LOG_ERROR;
    if (gk_ctx_create(&cd, &ctx) != GK_OK) { printf("%s\n", gk_last_error(NULL)); return 1; }
    gk_device_info_get(ctx, &info);
    for (i = 1; i + 1 < argc; i++) { /* the tuning knobs on the context (gpukit.h gk__tuning) */
        const char *a = argv[i], *v = argv[i + 1];
        gk__tuning *tu = gk__tune(ctx);
        if (strcmp(a, "--gemv-smalln") == 0) tu->gemv_smalln = atoi(v);
        else if (strcmp(a, "--dec-variant") == 0) tu->dec_variant = atoi(v); /* decode attention kernel */
        else if (strcmp(a, "--dec-min-keys") == 0) tu->dec4t_min_keys = atoll(v); /* its split sizing */
        else if (strcmp(a, "--dec-blocks-sm") == 0) tu->dec4t_blocks_sm = atoi(v);
        else if (strcmp(a, "--dec-prefetch") == 0) tu->dec_prefetch = atoi(v);
        else if (strcmp(a, "--dec-fold") == 0) tu->dec_fold = atoi(v);
        else continue;
        i++;
    }
    ld.max_seqs = (int)B;
    ld.max_ctx = (PRE > P + B + NEW ? PRE : P + B + NEW) + 8;
    t0 = gkb_now_ms();
    CK(gk_llm_load(ctx, dir, &ld, &m));
    printf("%s: %s, %.2f GB of weights in %s, loaded in %.1f s on %s\n", dir, gk_llm_get_config(m)->arch_name, (double)gk_llm_weight_bytes(m) / 1e9,
           gk_dtype_name(gk_llm_compute_dtype(m)), (gkb_now_ms() - t0) / 1e3, info.name);
    V = gk_llm_get_config(m)->vocab;
    ids = (int32_t *)malloc(sizeof(int32_t) * (size_t)(PRE + B * (P + B)));
    srand(1);
    for (i = 0; i < PRE + B * (P + B); i++) ids[i] = (int32_t)(rand() % (V < 30000 ? V : 30000));
    memset(&gd, 0, sizeof gd);
    gd.max_new_tokens = NEW; gd.sampling = GK_LLM_SAMPLE_GREEDY; gd.flags = GK_LLM_GEN_IGNORE_EOS;
    /* batch-1 decode: a warm-up run (JIT, graph capture), then the timed one */
    ps[0] = ids; ls[0] = (size_t)P;
    CK(gk_llm_generate_batch(m, ps, ls, 1, &gd, NULL, NULL, &st1));
    CK(gk_llm_generate_batch(m, ps, ls, 1, &gd, NULL, NULL, &st1));
    if (b1_only) { /* --b1-only: batch-1 decode alone (with GPUKIT_LLM_DEBUG_SKIP: where a step's time goes) */
        const gk__tuning *tu = gk__tune(ctx);
        printf("decode b1   %8.1f tok/s  (%.1f us a token; prompt %lld, %lld new, dec_variant %d, min keys %lld, blocks a SM %d, prefetch %d, fold %d)\n",
               st1.decode_tok_s, st1.decode_tok_s > 0 ? 1e6 / st1.decode_tok_s : 0, (long long)P, (long long)NEW, tu->dec_variant,
               (long long)tu->dec4t_min_keys, tu->dec4t_blocks_sm, tu->dec_prefetch, tu->dec_fold);
        if (json) {
            gkb_json j;
            if (gkb_json_open(&j, json) != 0) return 1;
            gkb_json_header(&j, "llm_b1", info.backend == GK_BACKEND_CUDA ? info.name : "cpu", tt);
            gkb_json_str(&j, "model", dir);
            gkb_json_int(&j, "dec_variant", tu->dec_variant);
            gkb_json_int(&j, "dec_min_keys", (long long)tu->dec4t_min_keys);
            gkb_json_int(&j, "dec_blocks_sm", tu->dec4t_blocks_sm);
            gkb_json_int(&j, "dec_prefetch", tu->dec_prefetch);
            gkb_json_int(&j, "dec_fold", tu->dec_fold);
            gkb_json_int(&j, "prompt", (long long)P);
            gkb_json_int(&j, "new", (long long)NEW);
            gkb_json_num(&j, "decode_b1_tok_s", st1.decode_tok_s, 1);
            gkb_json_close(&j);
        }
        free(ids);
        gk_llm_free(m);
        gk_ctx_destroy(ctx);
        return 0;
    }
    /* prefill */
    CK(gk_llm_reset(m, 0));
    CK(gk_llm_forward(m, 0, ids, (size_t)PRE, 0, NULL));
    for (k = 0; k < 5; k++) {
        double t;
        CK(gk_llm_reset(m, 0));
        t = gkb_now_ms();
        CK(gk_llm_forward(m, 0, ids, (size_t)PRE, 0, NULL));
        pre[k] = (double)PRE / ((gkb_now_ms() - t) / 1e3);
    }
    pre_med = gkb_median(pre, 5);
    /* batched decode */
    for (k = 0; k < B; k++) { ps[k] = ids + PRE + k * (P + B); ls[k] = (size_t)(P + k); }
    CK(gk_llm_generate_batch(m, ps, ls, (int)B, &gd, NULL, NULL, &st8));
    CK(gk_llm_generate_batch(m, ps, ls, (int)B, &gd, NULL, NULL, &st8));
    gbs = info.backend == GK_BACKEND_CUDA ? copy_gbs() : 0;
    bytes_tok = (double)gk_llm_weight_bytes(m) + (double)gk_llm_kv_bytes_per_token(m) * ((double)P + (double)NEW / 2);
    roof = gbs > 0 ? gbs * 1e9 / bytes_tok : 0;
    printf("decode b1   %8.1f tok/s  (roofline %.0f tok/s: %.1f MB per token at %.0f GB/s; %.0f%% of it)\n", st1.decode_tok_s, roof, bytes_tok / 1e6, gbs,
           roof > 0 ? 100 * st1.decode_tok_s / roof : 0);
    printf("prefill %-4lld %8.1f tok/s\n", (long long)PRE, pre_med);
    printf("decode b%-3lld %8.1f tok/s  (%.2fx batch 1)\n", (long long)B, st8.decode_tok_s, st8.decode_tok_s / (st1.decode_tok_s > 0 ? st1.decode_tok_s : 1));
    if (json) {
        gkb_json j;
        if (gkb_json_open(&j, json) != 0) return 1;
        gkb_json_header(&j, "llm", info.backend == GK_BACKEND_CUDA ? info.name : "cpu", tt);
        gkb_json_str(&j, "model", dir);
        gkb_json_str(&j, "arch", gk_llm_get_config(m)->arch_name);
        gkb_json_str(&j, "dtype", gk_dtype_name(gk_llm_compute_dtype(m)));
        gkb_json_int(&j, "weight_bytes", (long long)gk_llm_weight_bytes(m));
        gkb_json_int(&j, "kv_bytes_per_token", (long long)gk_llm_kv_bytes_per_token(m));
        gkb_json_num(&j, "copy_gbs", gbs, 1);
        gkb_json_num(&j, "bytes_per_token_b1", bytes_tok, 0);
        gkb_json_num(&j, "roofline_b1_tok_s", roof, 1);
        gkb_json_int(&j, "prompt", (long long)P);
        gkb_json_int(&j, "new", (long long)NEW);
        gkb_json_num(&j, "decode_b1_tok_s", st1.decode_tok_s, 1);
        gkb_json_int(&j, "prefill_len", (long long)PRE);
        gkb_json_num(&j, "prefill_tok_s", pre_med, 1);
        gkb_json_int(&j, "batch", (long long)B);
        gkb_json_num(&j, "decode_batch_tok_s", st8.decode_tok_s, 1);
        gkb_json_num(&j, "batch_over_b1", st8.decode_tok_s / (st1.decode_tok_s > 0 ? st1.decode_tok_s : 1), 2);
        gkb_json_close(&j);
    }
    free(ids);
    gk_llm_free(m);
    gk_ctx_destroy(ctx);
    return 0;
}
