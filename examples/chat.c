/* chat: a command-line chat / completion tool over a Hugging Face model folder
   (gpukit_llm.h's transformer runtime).

     build/chat MODEL_DIR                      interactive chat (a line per turn; empty line or EOF ends)
     build/chat MODEL_DIR "prompt ..."         one chat turn (the arguments after MODEL_DIR, joined by spaces)
     build/chat --raw MODEL_DIR "text"         raw completion (no chat template)

   options:
     --backend cpu|cuda|auto   (default auto)       --dtype bf16|f16|f32 (default bf16)
     --max-tokens N            1.. (default: generation_config.json, else 256)
     --ctx N                   context length, 1..max_position_embeddings (default min(that, 4096))
     --greedy | --temperature T --top-k K --top-p P --min-p P --repeat-penalty R --seed S
                               (default: generation_config.json's settings)
     --system TEXT             a system message          --no-thinking   Qwen3 enable_thinking=false
     --ignore-eos              generate max-tokens tokens
     --json K                  print one JSON object: prompt ids, generated ids, text and the
                               first step's K largest logits (to check against another implementation)
     --                        the arguments after it are the prompt, even those starting with '-'
   A long interactive chat keeps the system message and drops its oldest turns so that the
   conversation and the reply (max-tokens, at most half the context) fit the context.
   Options are checked strictly: a value that is not a whole number in range, an unknown option
   or a missing value is a usage error (exit 2). Other errors exit 1.
   Loading shows a progress bar; the speed (prefill and decode tok/s) is printed at the end (stderr). */
#define GPUKIT_IMPLEMENTATION
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"
#include <errno.h>
#include <float.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the loading bar: one line, redrawn only when the shown tenth of a percent grows, ended once */
typedef struct bar { int shown, ended; } bar; /* shown: per mille drawn (-1: nothing yet) */
static void bar_draw(bar *b, uint64_t done, uint64_t total) {
    static const char *unit[] = { "B", "KB", "MB", "GB" };
    double div = 1;
    int u = 0, pm, k;
    if (b->ended) return;
    if (done > total) done = total;
    pm = total ? (int)((double)done / (double)total * 1000.0) : 1000;
    if (pm > 1000) pm = 1000;
    if (pm <= b->shown) return; /* monotone: never redraw the same or a smaller value */
    b->shown = pm;
    while (u < 3 && (double)total >= div * 1000.0) { div *= 1000.0; u++; }
    fprintf(stderr, "\rloading [");
    for (k = 0; k < 40; k++) fputc(k < pm * 40 / 1000 ? '#' : '.', stderr);
    if (u == 0) fprintf(stderr, "] %5.1f%%  %llu / %llu B", pm / 10.0, (unsigned long long)done, (unsigned long long)total);
    else fprintf(stderr, "] %5.1f%%  %.1f / %.1f %s", pm / 10.0, (double)done / div, (double)total / div, unit[u]);
    if (pm == 1000) { fputc('\n', stderr); b->ended = 1; }
    fflush(stderr);
}
/* a bar left unfinished (an error while loading) gets its line ended before the message */
static void bar_break(bar *b) {
    if (b->shown >= 0 && !b->ended) { fputc('\n', stderr); b->ended = 1; }
}
static void progress(uint64_t done, uint64_t total, void *user) { bar_draw((bar *)user, done, total); }

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

static const char USAGE[] =
    "usage: chat [options] MODEL_DIR [PROMPT...]      (no PROMPT: interactive chat, a line per turn)\n"
    "  --backend cpu|cuda|auto  --dtype bf16|f16|f32  --max-tokens N (1..2147483647)  --ctx N (1..max_position_embeddings)\n"
    "  --greedy | --temperature T (>= 0) --top-k K (>= 0) --top-p P (0..1) --min-p P (0..1) --repeat-penalty R (> 0)\n"
    "  --seed S (0..18446744073709551615)  --system TEXT  --raw  --no-thinking  --ignore-eos  --json K (0..2147483647)\n"
    "  --  (the rest is the prompt)\n";
static int usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "chat: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n%s", USAGE);
    va_end(ap);
    return 2;
}

/* strict number parsing: the whole string, no spaces, in range */
static int parse_int(const char *s, long long lo, long long hi, long long *out) {
    char *end;
    long long v;
    if (!((s[0] >= '0' && s[0] <= '9') || (s[0] == '-' && s[1] >= '0' && s[1] <= '9'))) return 0;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (*end || errno == ERANGE || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}
static int parse_u64(const char *s, uint64_t *out) {
    char *end;
    unsigned long long v;
    if (!(s[0] >= '0' && s[0] <= '9')) return 0;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (*end || errno == ERANGE) return 0;
    *out = (uint64_t)v;
    return 1;
}
/* a finite number in [lo, hi] (lo excluded when open_lo) */
static int parse_float(const char *s, double lo, double hi, int open_lo, float *out) {
    char *end;
    double v;
    const char *d = s + (s[0] == '-' || s[0] == '+');
    if (!((d[0] >= '0' && d[0] <= '9') || (d[0] == '.' && d[1] >= '0' && d[1] <= '9'))) return 0; /* no inf, nan, spaces */
    v = strtod(s, &end);
    if (*end || !(v >= lo && v <= hi) || (open_lo && v == lo)) return 0;
    *out = (float)v;
    return 1;
}

/* reads one line (any length) without its "\n" / "\r\n"; 0 at EOF with nothing read */
static int read_line(FILE *f, char **buf, size_t *cap) {
    size_t n = 0;
    int c, got = 0;
    while ((c = fgetc(f)) != EOF) {
        got = 1;
        if (c == '\n') break;
        if (n + 2 > *cap) {
            size_t nc = *cap ? *cap * 2 : 256;
            char *nb = (char *)realloc(*buf, nc);
            if (!nb) return -1;
            *buf = nb;
            *cap = nc;
        }
        (*buf)[n++] = (char)c;
    }
    if (!got) return 0;
    if (n && (*buf)[n - 1] == '\r') n--;
    if (!*buf) { *buf = (char *)malloc(1); if (!*buf) return -1; *cap = 1; }
    (*buf)[n] = 0;
    return 1;
}

static char *dup_str(const char *s, size_t n) {
    char *d = (char *)malloc(n + 1);
    if (d) { memcpy(d, s, n); d[n] = 0; }
    return d;
}

/* the conversation: the system message (not owned) and the turns, user / assistant alternating
   (each string owned here; the oldest are dropped in pairs to fit the context) */
typedef struct convo { const char *system; char **turn; size_t n, cap; gk_chat_message *msgs; } convo;
static int convo_push(convo *c, char *s) {
    if (!s) return 0;
    if (c->n == c->cap) {
        size_t nc = c->cap ? c->cap * 2 : 16;
        char **nt = (char **)realloc(c->turn, nc * sizeof *nt);
        gk_chat_message *nm = (gk_chat_message *)realloc(c->msgs, (nc + 1) * sizeof *nm);
        if (nt) c->turn = nt;
        if (nm) c->msgs = nm;
        if (!nt || !nm) { free(s); return 0; }
        c->cap = nc;
    }
    c->turn[c->n++] = s;
    return 1;
}
static void convo_drop_oldest(convo *c, size_t k) { /* k turns from the front */
    size_t i;
    if (!k) return;
    for (i = 0; i < k; i++) free(c->turn[i]);
    memmove(c->turn, c->turn + k, (c->n - k) * sizeof *c->turn);
    c->n -= k;
}
static size_t convo_msgs(convo *c) { /* fills c->msgs, returns their count */
    size_t i, m = 0;
    if (c->system) { c->msgs[m].role = "system"; c->msgs[m].content = c->system; m++; }
    for (i = 0; i < c->n; i++, m++) { c->msgs[m].role = i % 2 ? "assistant" : "user"; c->msgs[m].content = c->turn[i]; }
    return m;
}

/* looks the value of option name in argv[*i + 1] up; NULL (with the message) when missing */
static const char *need(int argc, char **argv, int *i, const char *what) {
    if (*i + 1 >= argc) { usage_error("%s needs a value: %s", argv[*i], what); return NULL; }
    return argv[++*i];
}

int main(int argc, char **argv) {
    gk_ctx_desc cd;
    gk_llm_desc ld;
    gk_llm_gen_desc gd;
    gk_ctx *ctx = NULL;
    gk_llm *m = NULL;
    const char *dir = NULL, *system_msg = NULL, *sampling_opt = NULL, *ctx_arg = NULL;
    char *prompt = NULL, *line = NULL;
    size_t plen = 0, pcap = 0, linecap = 0;
    int raw = 0, json_k = -1, custom = 0, greedy = 0, have_prompt = 0, opts_done = 0, i, rc = 0;
    int64_t max_ctx, reserve;
    bar pbar = { -1, 0 };
    convo cv;
    gk_status st;
    memset(&cd, 0, sizeof cd);
    memset(&ld, 0, sizeof ld);
    memset(&gd, 0, sizeof gd);
    memset(&cv, 0, sizeof cv);
    gd.sample.temperature = 1.0f;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        long long n;
        if (opts_done || a[0] != '-' || a[1] == 0) { /* MODEL_DIR, then the prompt's words */
            if (!dir) { dir = a; continue; }
            {
                size_t len = strlen(a);
                if (plen + len + 2 > pcap) {
                    size_t nc = (plen + len + 2) * 2;
                    char *np = (char *)realloc(prompt, nc);
                    if (!np) { fprintf(stderr, "chat: out of memory\n"); free(prompt); return 1; }
                    prompt = np;
                    pcap = nc;
                }
                if (plen && len) prompt[plen++] = ' ';
                memcpy(prompt + plen, a, len + 1);
                plen += len;
                have_prompt = 1;
            }
            continue;
        }
#define VALUE(what) if (!(v = need(argc, argv, &i, what))) { free(prompt); return 2; }
#define BAD(what) { free(prompt); return usage_error("%s %s: expected " what, a, v); }
        if (strcmp(a, "--") == 0) opts_done = 1;
        else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) { fputs(USAGE, stdout); free(prompt); return 0; }
        else if (strcmp(a, "--backend") == 0) {
            VALUE("cpu, cuda or auto");
            if (strcmp(v, "cpu") == 0) cd.backend = GK_BACKEND_CPU;
            else if (strcmp(v, "cuda") == 0) cd.backend = GK_BACKEND_CUDA;
            else if (strcmp(v, "auto") == 0) cd.backend = GK_BACKEND_AUTO;
            else BAD("cpu, cuda or auto")
        } else if (strcmp(a, "--dtype") == 0) {
            VALUE("bf16, f16 or f32");
            if (strcmp(v, "bf16") == 0) ld.dtype = GK_LLM_DTYPE_BF16;
            else if (strcmp(v, "f16") == 0) ld.dtype = GK_LLM_DTYPE_F16;
            else if (strcmp(v, "f32") == 0) ld.dtype = GK_LLM_DTYPE_F32;
            else BAD("bf16, f16 or f32")
        } else if (strcmp(a, "--max-tokens") == 0) {
            VALUE("an integer in 1..2147483647");
            if (!parse_int(v, 1, 2147483647, &n)) BAD("an integer in 1..2147483647")
            gd.max_new_tokens = n;
        } else if (strcmp(a, "--ctx") == 0) {
            VALUE("an integer in 1..max_position_embeddings");
            ctx_arg = v; /* checked below, against the model's config.json */
        } else if (strcmp(a, "--temperature") == 0) {
            VALUE("a number >= 0");
            if (!parse_float(v, 0, FLT_MAX, 0, &gd.sample.temperature)) BAD("a finite number >= 0")
            custom = 1; sampling_opt = a;
        } else if (strcmp(a, "--top-k") == 0) {
            VALUE("an integer in 0..2147483647");
            if (!parse_int(v, 0, 2147483647, &n)) BAD("an integer in 0..2147483647 (0: off)")
            gd.sample.top_k = (int)n; custom = 1; sampling_opt = a;
        } else if (strcmp(a, "--top-p") == 0) {
            VALUE("a number in 0..1");
            if (!parse_float(v, 0, 1, 0, &gd.sample.top_p)) BAD("a number in 0..1 (0 or 1: off)")
            custom = 1; sampling_opt = a;
        } else if (strcmp(a, "--min-p") == 0) {
            VALUE("a number in 0..1");
            if (!parse_float(v, 0, 1, 0, &gd.sample.min_p)) BAD("a number in 0..1 (0: off)")
            custom = 1; sampling_opt = a;
        } else if (strcmp(a, "--repeat-penalty") == 0) {
            VALUE("a number > 0");
            if (!parse_float(v, 0, FLT_MAX, 1, &gd.sample.repetition_penalty)) BAD("a finite number > 0 (1: off)")
            custom = 1; sampling_opt = a;
        } else if (strcmp(a, "--seed") == 0) {
            uint64_t s;
            VALUE("an integer in 0..18446744073709551615");
            if (!parse_u64(v, &s)) BAD("an integer in 0..18446744073709551615")
            gd.seed = gd.sample.seed = s;
        } else if (strcmp(a, "--system") == 0) {
            VALUE("the system message");
            system_msg = v;
        } else if (strcmp(a, "--json") == 0) {
            VALUE("an integer in 0..2147483647");
            if (!parse_int(v, 0, 2147483647, &n)) BAD("an integer in 0..2147483647 (the number of logits shown)")
            json_k = (int)n;
        } else if (strcmp(a, "--greedy") == 0) greedy = 1;
        else if (strcmp(a, "--raw") == 0) raw = 1;
        else if (strcmp(a, "--no-thinking") == 0) gd.flags |= GK_LLM_GEN_NO_THINKING;
        else if (strcmp(a, "--ignore-eos") == 0) gd.flags |= GK_LLM_GEN_IGNORE_EOS;
        else { free(prompt); return usage_error("unknown option %s", a); }
#undef VALUE
#undef BAD
    }
    if (!dir) { free(prompt); return usage_error("no MODEL_DIR given"); }
    if (have_prompt && plen == 0) {
        free(prompt);
        return usage_error("the prompt is empty (give a non-empty PROMPT, or none for an interactive chat)");
    }
    if (greedy && custom) { free(prompt); return usage_error("--greedy and %s exclude each other", sampling_opt); }
    if (raw && system_msg) { free(prompt); return usage_error("--system has no effect with --raw (no chat template)"); }
    gd.sampling = greedy ? GK_LLM_SAMPLE_GREEDY : custom ? GK_LLM_SAMPLE_CUSTOM : GK_LLM_SAMPLE_DEFAULT;
    if (ctx_arg) { /* --ctx against config.json's max_position_embeddings, before anything is loaded */
        size_t dl = strlen(dir);
        char *path = (char *)malloc(dl + 16);
        gk_json *doc = NULL;
        long long mp = -1, n = 0; /* -1: no readable config.json (gk_llm_load reports it) */
        if (!path) { fprintf(stderr, "chat: out of memory\n"); free(prompt); return 1; }
        memcpy(path, dir, dl);
        strcpy(path + dl, "/config.json");
        if (gk_json_parse_file(path, NULL, &doc) == GK_OK) {
            mp = (long long)gk_json_get_int(gk_json_root(doc), "max_position_embeddings", 4096);
            if (mp > 1073741823) mp = 1073741823; /* gk_llm_load's limit */
            gk_json_free(doc);
        }
        if (!parse_int(ctx_arg, 1, mp > 0 ? mp : 1073741823, &n)) {
            if (mp > 0) usage_error("--ctx %s: expected an integer in 1..%lld (max_position_embeddings of %s)", ctx_arg, mp, path);
            else usage_error("--ctx %s: expected an integer in 1..max_position_embeddings of the model", ctx_arg);
            free(path); free(prompt);
            return 2;
        }
        ld.max_ctx = n;
        free(path);
    }
    cd.log_level = GK_LOG_ERROR;
    if (gk_ctx_create(&cd, &ctx) != GK_OK) { fprintf(stderr, "chat: %s\n", gk_last_error(NULL)); free(prompt); return 1; }
    ld.progress = json_k >= 0 ? NULL : progress;
    ld.user = &pbar;
    if (gk_llm_load(ctx, dir, &ld, &m) != GK_OK) {
        bar_break(&pbar);
        fprintf(stderr, "chat: %s\n", gk_last_error(ctx));
        gk_ctx_destroy(ctx);
        free(prompt);
        return 1;
    }
    bar_break(&pbar);
    {
        const gk_llm_config *c = gk_llm_get_config(m);
        gk_device_info info;
        if (ld.max_ctx > c->max_pos) { /* the model's own reading of config.json decides */
            char v[24];
            snprintf(v, sizeof v, "%lld", (long long)ld.max_ctx);
            usage_error("--ctx %s: expected an integer in 1..%lld (the model's max_position_embeddings)", v, (long long)c->max_pos);
            gk_llm_free(m); gk_ctx_destroy(ctx); free(prompt);
            return 2;
        }
        gk_device_info_get(ctx, &info);
        fprintf(stderr, "%s: %lld layers, hidden %lld, %lld heads (%lld kv), vocab %lld; %s compute on %s; context %lld\n", c->arch_name,
                (long long)c->layers, (long long)c->hidden, (long long)c->heads, (long long)c->kv_heads, (long long)c->vocab,
                gk_dtype_name(gk_llm_compute_dtype(m)), info.backend == GK_BACKEND_CUDA ? info.name : "the CPU", (long long)gk_llm_max_ctx(m));
        /* the room kept for the reply when old turns are dropped */
        max_ctx = gk_llm_max_ctx(m);
        reserve = gd.max_new_tokens ? gd.max_new_tokens : c->max_new_tokens ? c->max_new_tokens : 256;
        if (reserve > max_ctx / 2) reserve = max_ctx / 2;
    }
    cv.system = system_msg;
    for (;;) {
        gk_ids pids = { 0, 0, 0 }, out = { 0, 0, 0 };
        gk_buf text = { 0, 0, 0 };
        gk_llm_stats stats;
        float *first = NULL;
        const int32_t *pp;
        const char *turn_text;
        int interactive = !have_prompt;
        if (interactive) {
            int r;
            fprintf(stderr, "> ");
            r = read_line(stdin, &line, &linecap);
            if (r < 0) { fprintf(stderr, "chat: out of memory\n"); rc = 1; break; }
            if (r == 0 || line[0] == 0) break;
            turn_text = line;
        } else turn_text = prompt;
        if (raw) {
            st = gk_tokenizer_encode(gk_llm_tokenizer(m), turn_text, strlen(turn_text), GK_TOK_ADD_SPECIAL, &pids);
            if (st != GK_OK) { fprintf(stderr, "chat: %s\n", gk_last_error(NULL)); rc = 1; break; }
        } else {
            if (!convo_push(&cv, dup_str(turn_text, strlen(turn_text)))) { fprintf(stderr, "chat: out of memory\n"); rc = 1; break; }
            /* the rendered conversation in tokens; drop the oldest user / assistant pair until it and the reply fit */
            for (;;) {
                gk_ids_free(&pids);
                if ((st = gk_llm_chat_ids(m, cv.msgs, convo_msgs(&cv), gd.flags, &pids)) != GK_OK) break;
                if ((int64_t)pids.len + reserve <= max_ctx || cv.n < 3) break;
                convo_drop_oldest(&cv, 2);
            }
            if (st != GK_OK) { fprintf(stderr, "chat: %s\n", gk_last_error(ctx)); rc = 1; break; }
            if ((int64_t)pids.len >= max_ctx) {
                fprintf(stderr, "chat: the message takes %zu tokens with the template; the context holds %lld (--ctx)\n", pids.len, (long long)max_ctx);
                gk_ids_free(&pids);
                free(cv.turn[--cv.n]); /* not part of the conversation */
                if (interactive) continue; /* the chat goes on */
                rc = 1;
                break;
            }
        }
        if (json_k >= 0) {
            first = (float *)malloc(sizeof(float) * (size_t)gk_llm_get_config(m)->vocab);
            if (!first) { fprintf(stderr, "chat: out of memory\n"); gk_ids_free(&pids); rc = 1; break; }
        }
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
        fflush(stdout);
        if (st == GK_OK)
            fprintf(stderr, "[%lld prompt tokens: %.1f tok/s; %lld new tokens: %.1f tok/s]\n", (long long)stats.prompt_tokens, stats.prefill_tok_s,
                    (long long)stats.new_tokens, stats.decode_tok_s);
        free(first);
        if (st == GK_OK && !raw && !convo_push(&cv, dup_str(text.data ? text.data : "", text.len))) { /* the reply joins the conversation */
            fprintf(stderr, "chat: out of memory\n");
            st = GK_ERR_OUT_OF_MEMORY;
        }
        gk_ids_free(&pids); gk_ids_free(&out); gk_buf_free(&text);
        if (st != GK_OK) { rc = 1; break; }
        if (!interactive) break;
    }
    convo_drop_oldest(&cv, cv.n);
    free(cv.turn);
    free(cv.msgs);
    free(line);
    free(prompt);
    gk_llm_free(m);
    gk_ctx_destroy(ctx);
    return rc;
}
