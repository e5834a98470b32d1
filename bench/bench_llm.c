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
   --dec-variant N: gk_attention's decode kernel (gk__dec_variant in gpukit.h: -1 the default, 3 gk_attn_dec3, ...),
   for long-prompt decode compared kernel against kernel; --dec-min-keys / --dec-blocks-sm: its split sizing
   (gk__dec4_min_keys / gk__dec4_blocks_sm); --dec-prefetch N: 64-key tiles a split prefetched into L2 before the PDL wait
   (gk__dec_prefetch, -1 the kernel's default); --dec-late 1: gk_attn_dec4t's late PDL trigger (gk__dec4_late); --dec-fold 0:
   decode attention's splits merged by gk_attn_combine rather than by the decode kernel itself (gk__dec_fold). */
#define GPUKIT_IMPLEMENTATION
#define GPUKIT_LLM_IMPLEMENTATION
#include "../gpukit_llm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static gk_ctx *ctx;
#define CK(x)                                                                             \
    do {                                                                                  \
        gk_status s_ = (x);                                                               \
        if (s_ != GK_OK) { printf("%s: %s\n", #x, gk_last_error(ctx)); exit(1); }         \
    } while (0)
static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* device-to-device copy bandwidth (read + write bytes), GB/s, median of 10 */
static double copy_gbs(void) {
    int64_t n = (int64_t)128 << 20; /* 512 MiB of f32 */
    gk_tensor a, b;
    gk_event *e0, *e1;
    double t[10];
    int i;
    CK(gk_tensor_empty(ctx, GK_F32, 1, &n, &a));
    CK(gk_tensor_empty(ctx, GK_F32, 1, &n, &b));
    CK(gk_fill(ctx, a, 1));
    CK(gk_event_create(ctx, &e0));
    CK(gk_event_create(ctx, &e1));
    CK(gk_copy(ctx, b, a));
    for (i = 0; i < 10; i++) {
        float ms;
        CK(gk_event_record(ctx, e0, NULL));
        CK(gk_copy(ctx, b, a));
        CK(gk_event_record(ctx, e1, NULL));
        CK(gk_event_sync(ctx, e1));
        CK(gk_event_elapsed_ms(ctx, e0, e1, &ms));
        t[i] = ms > 0 ? 2.0 * (double)n * 4 / (ms * 1e-3) / 1e9 : 0;
    }
    qsort(t, 10, sizeof t[0], cmp_d);
    gk_event_destroy(ctx, e0); gk_event_destroy(ctx, e1);
    gk_tensor_free(ctx, a); gk_tensor_free(ctx, b);
    return t[5];
}

int main(int argc, char **argv) {
    const char *dir = NULL, *json = NULL, *commit = getenv("GK_COMMIT");
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
    char date[32];
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
        else if (strcmp(a, "--gemv-smalln") == 0 && v) { gk__gemv_smalln = atoi(v); i++; }
        else if (strcmp(a, "--dec-variant") == 0 && v) { gk__dec_variant = atoi(v); i++; } /* decode attention kernel (gpukit.h) */
        else if (strcmp(a, "--dec-min-keys") == 0 && v) { gk__dec4_min_keys = atoll(v); i++; } /* its split sizing (gpukit.h) */
        else if (strcmp(a, "--dec-blocks-sm") == 0 && v) { gk__dec4_blocks_sm = atoi(v); i++; }
        else if (strcmp(a, "--dec-prefetch") == 0 && v) { gk__dec_prefetch = atoi(v); i++; } /* gk__dec_prefetch (gpukit.h) */
        else if (strcmp(a, "--dec-late") == 0 && v) { gk__dec4_late = atoi(v); i++; } /* gk__dec4_late (gpukit.h) */
        else if (strcmp(a, "--dec-fold") == 0 && v) { gk__dec_fold = atoi(v); i++; } /* gk__dec_fold (gpukit.h) */
        else if (strcmp(a, "--backend") == 0 && v) { cd.backend = strcmp(v, "cpu") == 0 ? GK_BACKEND_CPU : GK_BACKEND_CUDA; i++; }
        else if (a[0] != '-') dir = a;
        else { printf("unknown option %s\n", a); return 2; }
    }
    if (!dir || B < 1 || B > 64 || P < 1 || NEW < 1 || PRE < 1) {
        printf("usage: bench_llm MODEL_DIR [--json out.json] [--dtype bf16|f16|f32] [--prompt 32] [--new 128] [--prefill 512] [--batch 8] [--b1-only] [--dec-variant N] [--dec-prefetch N] [--dec-late 0|1] [--dec-fold 0|1]\n");
        return 2;
    }
    cd.log_level = GK_LOG_ERROR;
    if (gk_ctx_create(&cd, &ctx) != GK_OK) { printf("%s\n", gk_last_error(NULL)); return 1; }
    gk_device_info_get(ctx, &info);
    ld.max_seqs = (int)B;
    ld.max_ctx = (PRE > P + B + NEW ? PRE : P + B + NEW) + 8;
    t0 = now_s();
    CK(gk_llm_load(ctx, dir, &ld, &m));
    printf("%s: %s, %.2f GB of weights in %s, loaded in %.1f s on %s\n", dir, gk_llm_get_config(m)->arch_name, (double)gk_llm_weight_bytes(m) / 1e9,
           gk_dtype_name(gk_llm_compute_dtype(m)), now_s() - t0, info.name);
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
        printf("decode b1   %8.1f tok/s  (%.1f us a token; prompt %lld, %lld new, gk__dec_variant %d, min keys %lld, blocks a SM %d, prefetch %d, late %d, fold %d)\n",
               st1.decode_tok_s, st1.decode_tok_s > 0 ? 1e6 / st1.decode_tok_s : 0, (long long)P, (long long)NEW, gk__dec_variant,
               (long long)gk__dec4_min_keys, gk__dec4_blocks_sm, gk__dec_prefetch, gk__dec4_late, gk__dec_fold);
        if (json) {
            FILE *f = fopen(json, "w");
            if (!f) { printf("cannot write %s\n", json); return 1; }
            strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
            fprintf(f, "{\"bench\":\"llm_b1\",\"commit\":\"%s\",\"device\":\"%s\",\"date\":\"%s\",\"model\":\"%s\",\"dec_variant\":%d,"
                       "\"dec_min_keys\":%lld,\"dec_blocks_sm\":%d,\"dec_prefetch\":%d,\"dec_late\":%d,\"dec_fold\":%d,\"prompt\":%lld,\"new\":%lld,\"decode_b1_tok_s\":%.1f}\n",
                    commit ? commit : "unknown", info.backend == GK_BACKEND_CUDA ? info.name : "cpu", date, dir, gk__dec_variant,
                    (long long)gk__dec4_min_keys, gk__dec4_blocks_sm, gk__dec_prefetch, gk__dec4_late, gk__dec_fold, (long long)P, (long long)NEW, st1.decode_tok_s);
            fclose(f);
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
        t = now_s();
        CK(gk_llm_forward(m, 0, ids, (size_t)PRE, 0, NULL));
        pre[k] = (double)PRE / (now_s() - t);
    }
    qsort(pre, 5, sizeof pre[0], cmp_d);
    pre_med = pre[2];
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
        FILE *f = fopen(json, "w");
        if (!f) { printf("cannot write %s\n", json); return 1; }
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
        fprintf(f, "{\"bench\":\"llm\",\"commit\":\"%s\",\"device\":\"%s\",\"date\":\"%s\",\"model\":\"%s\",\"arch\":\"%s\",\"dtype\":\"%s\",\n",
                commit ? commit : "unknown", info.backend == GK_BACKEND_CUDA ? info.name : "cpu", date, dir, gk_llm_get_config(m)->arch_name,
                gk_dtype_name(gk_llm_compute_dtype(m)));
        fprintf(f, " \"weight_bytes\":%llu,\"kv_bytes_per_token\":%llu,\"copy_gbs\":%.1f,\"bytes_per_token_b1\":%.0f,\"roofline_b1_tok_s\":%.1f,\n",
                (unsigned long long)gk_llm_weight_bytes(m), (unsigned long long)gk_llm_kv_bytes_per_token(m), gbs, bytes_tok, roof);
        fprintf(f, " \"prompt\":%lld,\"new\":%lld,\"decode_b1_tok_s\":%.1f,\"prefill_len\":%lld,\"prefill_tok_s\":%.1f,\"batch\":%lld,\"decode_batch_tok_s\":%.1f,"
                   "\"batch_over_b1\":%.2f}\n",
                (long long)P, (long long)NEW, st1.decode_tok_s, (long long)PRE, pre_med, (long long)B, st8.decode_tok_s,
                st8.decode_tok_s / (st1.decode_tok_s > 0 ? st1.decode_tok_s : 1));
        fclose(f);
    }
    free(ids);
    gk_llm_free(m);
    gk_ctx_destroy(ctx);
    return 0;
}
