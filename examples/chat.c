/* chat: a command-line chat / completion tool over a Hugging Face model folder
   (gpukit_llm.h's transformer runtime).

     build/chat MODEL_DIR                      interactive chat (a line per turn; empty line or EOF ends)
     build/chat MODEL_DIR "prompt ..."         one chat turn
     build/chat --raw MODEL_DIR "text"         raw completion (no chat template)

   options:
     --backend cpu|cuda|auto   (default auto)       --dtype bf16|f16|f32 (default bf16)
     --max-tokens N            (default: generation_config.json, else 256)
     --ctx N                   context length (default min(max_position_embeddings, 4096))
     --greedy | --temperature T --top-k K --top-p P --min-p P --repeat-penalty R --seed S
                               (default: generation_config.json's settings)
     --system TEXT             a system message          --no-thinking   Qwen3 enable_thinking=false
     --ignore-eos              generate max-tokens tokens
     --json K                  print one JSON object: prompt ids, generated ids, text and the
                               first step's K largest logits (to check against another implementation)
   Loading shows a progress bar; the speed (prefill and decode tok/s) is printed at the end (stderr). */
#define GPUKIT_IMPLEMENTATION
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void progress(uint64_t done, uint64_t total, void *user) {
    static int last = -1;
    int w = 40, k, f = total ? (int)((double)done / (double)total * w) : w, pm = total ? (int)(1000.0 * (double)done / (double)total) : 1000;
    (void)user;
    if (pm == last) return;
    last = pm;
    fprintf(stderr, "\rloading [");
    for (k = 0; k < w; k++) fputc(k < f ? '#' : '.', stderr);
    fprintf(stderr, "] %5.1f%% of %.0f MiB", total ? 100.0 * (double)done / (double)total : 100.0, (double)total / 1048576.0);
    if (done >= total) fputc('\n', stderr);
    fflush(stderr);
}

static int on_token(int seq, int32_t id, const char *text, size_t len, void *user) {
    (void)seq; (void)id; (void)user;
    fwrite(text, 1, len, stdout);
    fflush(stdout);
    return 0;
}

static void json_str(const char *s, size_t n) {
    size_t i;
    putchar('"');
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c == '\n') printf("\\n");
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}
static void json_ids(const int32_t *ids, size_t n) {
    size_t i;
    putchar('[');
    for (i = 0; i < n; i++) printf("%s%d", i ? "," : "", (int)ids[i]);
    putchar(']');
}

static int usage(void) {
    fprintf(stderr, "usage: chat [--backend cpu|cuda] [--dtype bf16|f16|f32] [--max-tokens N] [--ctx N] [--greedy] [--temperature T]\n"
                    "            [--top-k K] [--top-p P] [--min-p P] [--repeat-penalty R] [--seed S] [--system TEXT] [--raw]\n"
                    "            [--no-thinking] [--ignore-eos] [--json K] MODEL_DIR [PROMPT...]\n");
    return 2;
}

int main(int argc, char **argv) {
    gk_ctx_desc cd;
    gk_llm_desc ld;
    gk_llm_gen_desc gd;
    gk_ctx *ctx = NULL;
    gk_llm *m = NULL;
    const char *dir = NULL, *system_msg = NULL;
    char prompt[65536];
    int raw = 0, json_k = -1, custom = 0, i, rc = 0;
    size_t plen = 0;
    gk_status st;
    memset(&cd, 0, sizeof cd);
    memset(&ld, 0, sizeof ld);
    memset(&gd, 0, sizeof gd);
    prompt[0] = 0;
    gd.sample.temperature = 1.0f;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT(name) (strcmp(a, name) == 0 && v && (++i, 1))
        if (OPT("--backend")) cd.backend = strcmp(v, "cpu") == 0 ? GK_BACKEND_CPU : strcmp(v, "cuda") == 0 ? GK_BACKEND_CUDA : GK_BACKEND_AUTO;
        else if (OPT("--dtype")) ld.dtype = strcmp(v, "f32") == 0 ? GK_LLM_DTYPE_F32 : strcmp(v, "f16") == 0 ? GK_LLM_DTYPE_F16 : GK_LLM_DTYPE_BF16;
        else if (OPT("--max-tokens")) gd.max_new_tokens = atoll(v);
        else if (OPT("--ctx")) ld.max_ctx = atoll(v);
        else if (OPT("--temperature")) { gd.sample.temperature = (float)atof(v); custom = 1; }
        else if (OPT("--top-k")) { gd.sample.top_k = atoi(v); custom = 1; }
        else if (OPT("--top-p")) { gd.sample.top_p = (float)atof(v); custom = 1; }
        else if (OPT("--min-p")) { gd.sample.min_p = (float)atof(v); custom = 1; }
        else if (OPT("--repeat-penalty")) { gd.sample.repetition_penalty = (float)atof(v); custom = 1; }
        else if (OPT("--seed")) { gd.seed = gd.sample.seed = strtoull(v, NULL, 10); }
        else if (OPT("--system")) system_msg = v;
        else if (OPT("--json")) json_k = atoi(v);
        else if (strcmp(a, "--greedy") == 0) gd.sampling = GK_LLM_SAMPLE_GREEDY;
        else if (strcmp(a, "--raw") == 0) raw = 1;
        else if (strcmp(a, "--no-thinking") == 0) gd.flags |= GK_LLM_GEN_NO_THINKING;
        else if (strcmp(a, "--ignore-eos") == 0) gd.flags |= GK_LLM_GEN_IGNORE_EOS;
        else if (a[0] == '-' && a[1] == '-') return usage();
        else if (!dir) dir = a;
        else {
            size_t n = strlen(a);
            if (plen + n + 2 >= sizeof prompt) { fprintf(stderr, "prompt too long\n"); return 2; }
            if (plen) prompt[plen++] = ' ';
            memcpy(prompt + plen, a, n + 1);
            plen += n;
        }
#undef OPT
    }
    if (!dir) return usage();
    if (custom && gd.sampling != GK_LLM_SAMPLE_GREEDY) gd.sampling = GK_LLM_SAMPLE_CUSTOM;
    cd.log_level = GK_LOG_ERROR;
    if (gk_ctx_create(&cd, &ctx) != GK_OK) { fprintf(stderr, "chat: %s\n", gk_last_error(NULL)); return 1; }
    ld.progress = json_k >= 0 ? NULL : progress;
    if (gk_llm_load(ctx, dir, &ld, &m) != GK_OK) { fprintf(stderr, "chat: %s\n", gk_last_error(ctx)); gk_ctx_destroy(ctx); return 1; }
    {
        const gk_llm_config *c = gk_llm_get_config(m);
        gk_device_info info;
        gk_device_info_get(ctx, &info);
        fprintf(stderr, "%s: %lld layers, hidden %lld, %lld heads (%lld kv), vocab %lld; %s compute on %s; context %lld\n", c->arch_name,
                (long long)c->layers, (long long)c->hidden, (long long)c->heads, (long long)c->kv_heads, (long long)c->vocab,
                gk_dtype_name(gk_llm_compute_dtype(m)), info.backend == GK_BACKEND_CUDA ? info.name : "the CPU", (long long)gk_llm_max_ctx(m));
    }
    /* the conversation so far (interactive chat keeps it; each turn re-runs the whole template) */
    gk_chat_message hist[64];
    char *owned[64];
    size_t nh = 0, no = 0;
    if (system_msg) { hist[nh].role = "system"; hist[nh].content = system_msg; nh++; }
    for (;;) {
        gk_chat_message *msgs = hist;
        size_t nm;
        gk_ids pids = { 0, 0, 0 }, out = { 0, 0, 0 };
        gk_buf text = { 0, 0, 0 };
        gk_llm_stats stats;
        float *first = NULL;
        const int32_t *pp;
        int interactive = plen == 0;
        if (interactive) {
            fprintf(stderr, "> ");
            if (!fgets(prompt, sizeof prompt, stdin) || prompt[0] == '\n') break;
            prompt[strcspn(prompt, "\n")] = 0;
        }
        if (nh + 2 > 64) { /* keep the system message, drop the oldest turn */
            size_t first = system_msg ? 1 : 0;
            memmove(hist + first, hist + first + 2, (nh - first - 2) * sizeof hist[0]);
            nh -= 2;
        }
        if (no == 64) { free(owned[0]); memmove(owned, owned + 1, 63 * sizeof owned[0]); no--; }
        owned[no] = (char *)malloc(strlen(prompt) + 1);
        if (!owned[no]) { rc = 1; break; }
        strcpy(owned[no], prompt);
        hist[nh].role = "user"; hist[nh].content = owned[no++]; nh++;
        nm = nh;
        if (raw) {
            st = gk_tokenizer_encode(gk_llm_tokenizer(m), prompt, strlen(prompt), GK_TOK_ADD_SPECIAL, &pids);
            if (st != GK_OK) { fprintf(stderr, "chat: %s\n", gk_last_error(NULL)); rc = 1; break; }
        } else if ((st = gk_llm_chat_ids(m, msgs, nm, gd.flags, &pids)) != GK_OK) {
            fprintf(stderr, "chat: %s\n", gk_last_error(ctx)); rc = 1; break;
        }
        if (json_k >= 0) first = (float *)malloc(sizeof(float) * (size_t)gk_llm_get_config(m)->vocab);
        gd.first_logits = first;
        gd.on_token = json_k >= 0 ? NULL : on_token;
        pp = pids.data;
        st = gk_llm_generate_batch(m, &pp, &pids.len, 1, &gd, &out, &text, &stats);
        if (st != GK_OK) fprintf(stderr, "\nchat: %s\n", gk_last_error(ctx));
        else if (json_k >= 0) {
            int64_t V = gk_llm_get_config(m)->vocab, k, j;
            printf("{\"prompt_ids\":");
            json_ids(pids.data, pids.len);
            printf(",\"ids\":");
            json_ids(out.data, out.len);
            printf(",\"text\":");
            json_str(text.data ? text.data : "", text.len);
            printf(",\"top_logits\":[");
            for (k = 0; k < json_k && k < V; k++) { /* selection of the k largest, ties by lower id */
                int64_t best = -1;
                for (j = 0; j < V; j++)
                    if (first[j] == first[j] && (best < 0 || first[j] > first[best])) best = j;
                if (best < 0) break;
                printf("%s[%lld,%.9g]", k ? "," : "", (long long)best, first[best]);
                first[best] = (float)NAN; /* taken */
            }
            printf("],\"prefill_tok_s\":%.1f,\"decode_tok_s\":%.1f}\n", stats.prefill_tok_s, stats.decode_tok_s);
        } else {
            printf("\n");
        }
        if (st == GK_OK)
            fprintf(stderr, "[%lld prompt tokens: %.1f tok/s; %lld new tokens: %.1f tok/s]\n", (long long)stats.prompt_tokens, stats.prefill_tok_s,
                    (long long)stats.new_tokens, stats.decode_tok_s);
        free(first);
        if (st == GK_OK && !raw && no < 64) { /* the reply joins the conversation */
            owned[no] = (char *)malloc(text.len + 1);
            if (owned[no]) {
                memcpy(owned[no], text.data ? text.data : "", text.len);
                owned[no][text.len] = 0;
                hist[nh].role = "assistant"; hist[nh].content = owned[no++]; nh++;
            }
        } else nh--; /* raw completion: no history */
        gk_ids_free(&pids); gk_ids_free(&out); gk_buf_free(&text);
        if (st != GK_OK) { rc = 1; break; }
        if (!interactive) break;
    }
    while (no) free(owned[--no]);
    gk_llm_free(m);
    gk_ctx_destroy(ctx);
    return rc;
}
