/* transcribe - speech to text with a Whisper model (long-form: OpenAI
   whisper's transcribe loop with temperature fallback).

     transcribe MODEL_DIR [options] FILE.wav...
       --language CODE|auto   --task transcribe|translate   --max-tokens N (per window)
       --beam N (beam search, 1..16; 1: greedy)   --best-of N (fallback samples, 1..16)
       --no-fallback (temperature 0 only)   --word-timestamps   --batch N (files at once, 1..64)
       --output-format txt|srt|vtt|json|tsv (default txt, to stdout)   --output-dir DIR (writes DIR/FILE.ext)
       --timestamps | --no-timestamps   --backend auto|cuda|cpu   --progress

   MODEL_DIR: a Hugging Face Whisper folder (config.json, safetensors, and
   tokenizer.json for text; without it the segments show token ids, and
   stderr says so). --language auto (or none) detects the language of each
   file on its first 30 s with a multilingual model. --batch N decodes N
   files together (one window each, their decoding steps batched). A
   progress bar over the audio goes to stderr when stderr is a terminal (or
   with --progress), and a speed summary (audio seconds, wall seconds, x real
   time) at the end. Exit status: 0, 1 on an error (a missing or non-WAV file
   is named), 2 on bad arguments. */
#define GPUKIT_IMPLEMENTATION
#define GPUKIT_LLM_IMPLEMENTATION
#include "../gpukit_llm.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static const char USAGE[] =
    "usage: transcribe MODEL_DIR [options] FILE.wav...\n"
    "  --language CODE|auto  --task transcribe|translate  --output-format txt|srt|vtt|json|tsv  --output-dir DIR\n"
    "  --beam N (1..16)  --best-of N (1..16)  --no-fallback  --word-timestamps  --batch N (1..64)\n"
    "  --timestamps | --no-timestamps  --backend auto|cuda|cpu  --max-tokens N (1..2147483647)  --progress\n";
static int usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "transcribe: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n%s", USAGE);
    va_end(ap);
    return 2;
}
static int parse_int(const char *s, long long lo, long long hi, long long *out) {
    char *end;
    long long v;
    if (!(s[0] >= '0' && s[0] <= '9')) return 0;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (*end || errno == ERANGE || v < lo || v > hi) return 0;
    *out = v;
    return 1;
}
static double now_s(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}

typedef struct bar { const char *name; int on, drawn; } bar;
static void on_progress(double done, double total, void *user) {
    bar *b = (bar *)user;
    int i, w = 30, k = total > 0 ? (int)(done / total * w) : w;
    if (!b->on) return;
    fprintf(stderr, "\r%s [", b->name);
    for (i = 0; i < w; i++) fputc(i < k ? '#' : ' ', stderr);
    fprintf(stderr, "] %5.1f%% %.1f / %.1f s", total > 0 ? 100.0 * done / total : 100.0, done, total);
    b->drawn = 1;
    fflush(stderr);
}

/* without a tokenizer: each segment's text becomes its token ids */
static int ids_as_text(gk_whisper_segments *s) {
    size_t i, j;
    for (i = 0; i < s->len; i++) {
        gk_whisper_segment *g = &s->data[i];
        size_t cap = 12 * g->n_tokens + 1, len = 0;
        char *t = (char *)GPUKIT_MALLOC(cap);
        if (!t) return 0;
        t[0] = 0;
        for (j = 0; j < g->n_tokens; j++) len += (size_t)snprintf(t + len, cap - len, "%s%d", j ? " " : "", (int)g->tokens[j]);
        GPUKIT_FREE(g->text);
        g->text = t;
    }
    return 1;
}

int main(int argc, char **argv) {
    const char *dir = NULL, *outdir = NULL, *fmt_name = "txt";
    const char **files;
    int nfiles = 0, i, progress = isatty(2), rc = 0, batch = 1;
    gk_whisper_format fmt = GK_WHISPER_TXT;
    gk_whisper_long_desc ld;
    gk_ctx_desc cd;
    gk_ctx *ctx = NULL;
    gk_whisper_model *m = NULL;
    double audio_s = 0, t0;
    long long v;
    memset(&ld, 0, sizeof ld);
    memset(&cd, 0, sizeof cd);
    cd.backend = GK_BACKEND_AUTO;
    cd.log_level = GK_LOG_ERROR;
    files = (const char **)calloc((size_t)argc + 1, sizeof *files);
    if (!files) { fprintf(stderr, "transcribe: out of memory\n"); return 1; }
#define NEED()                                                                          \
    if (i + 1 >= argc) { free(files); return usage_error("%s needs a value", a); }     \
    val = argv[++i]
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *val;
        if (a[0] != '-' || !a[1]) {
            if (!dir) dir = a;
            else files[nfiles++] = a;
            continue;
        }
        if (strcmp(a, "--language") == 0) { NEED(); ld.language = strcmp(val, "auto") == 0 ? NULL : val; }
        else if (strcmp(a, "--task") == 0) {
            NEED();
            if (strcmp(val, "transcribe") == 0) ld.translate = 0;
            else if (strcmp(val, "translate") == 0) ld.translate = 1;
            else { free(files); return usage_error("--task %s: expected transcribe or translate", val); }
        } else if (strcmp(a, "--output-format") == 0) {
            NEED();
            fmt_name = val;
            if (strcmp(val, "txt") == 0) fmt = GK_WHISPER_TXT;
            else if (strcmp(val, "srt") == 0) fmt = GK_WHISPER_SRT;
            else if (strcmp(val, "vtt") == 0) fmt = GK_WHISPER_VTT;
            else if (strcmp(val, "json") == 0) fmt = GK_WHISPER_JSON;
            else if (strcmp(val, "tsv") == 0) fmt = GK_WHISPER_TSV;
            else { free(files); return usage_error("--output-format %s: expected txt, srt, vtt, json or tsv", val); }
        } else if (strcmp(a, "--output-dir") == 0) { NEED(); outdir = val; }
        else if (strcmp(a, "--timestamps") == 0) ld.without_timestamps = 0;
        else if (strcmp(a, "--no-timestamps") == 0) ld.without_timestamps = 1;
        else if (strcmp(a, "--progress") == 0) progress = 1;
        else if (strcmp(a, "--backend") == 0) {
            NEED();
            if (strcmp(val, "cpu") == 0) cd.backend = GK_BACKEND_CPU;
            else if (strcmp(val, "cuda") == 0) cd.backend = GK_BACKEND_CUDA;
            else if (strcmp(val, "auto") == 0) cd.backend = GK_BACKEND_AUTO;
            else { free(files); return usage_error("--backend %s: expected auto, cuda or cpu", val); }
        } else if (strcmp(a, "--max-tokens") == 0) {
            NEED();
            if (!parse_int(val, 1, 2147483647, &v)) { free(files); return usage_error("--max-tokens %s: expected an integer in 1..2147483647", val); }
            ld.max_tokens = v;
        } else if (strcmp(a, "--beam") == 0 || strcmp(a, "--best-of") == 0) {
            NEED();
            if (!parse_int(val, 1, 16, &v)) { free(files); return usage_error("%s %s: expected an integer in 1..16", a, val); }
            if (a[2] == 'b' && a[3] == 'e' && a[4] == 'a') ld.beam_size = v > 1 ? (int)v : 0;
            else ld.best_of = (int)v;
        } else if (strcmp(a, "--batch") == 0) {
            NEED();
            if (!parse_int(val, 1, 64, &v)) { free(files); return usage_error("--batch %s: expected an integer in 1..64", val); }
            batch = (int)v;
        } else if (strcmp(a, "--word-timestamps") == 0) ld.word_timestamps = 1;
        else if (strcmp(a, "--no-fallback") == 0) ld.thresholds.temperature_increment = NAN;
        else { free(files); return usage_error("unknown option %s", a); }
    }
    if (!dir) { free(files); return usage_error("no MODEL_DIR given"); }
    if (!nfiles) { free(files); return usage_error("no FILE.wav given"); }
    if (gk_ctx_create(&cd, &ctx) != GK_OK) { fprintf(stderr, "transcribe: %s\n", gk_last_error(NULL)); free(files); return 1; }
    {
        gk_whisper_desc wd;
        memset(&wd, 0, sizeof wd);
        wd.max_windows = batch < nfiles ? batch : nfiles;
        wd.max_beams = ld.beam_size > ld.best_of ? ld.beam_size : ld.best_of;
        if (gk_whisper_load(ctx, dir, &wd, &m) != GK_OK) {
            fprintf(stderr, "transcribe: %s\n", gk_last_error(ctx));
            gk_ctx_destroy(ctx);
            free(files);
            return 1;
        }
    }
    if (!gk_whisper_model_tokenizer(m)) {
        fprintf(stderr, "transcribe: %s has no tokenizer.json: the segments show token ids%s\n", dir, ld.word_timestamps ? " (and no words)" : "");
    }
    t0 = now_s();
    for (i = 0; i < nfiles && rc == 0; i += batch) {
        int k = nfiles - i < batch ? nfiles - i : batch, f, got = 0;
        gk_audio a[64];
        gk_whisper_segments segs[64];
        gk_whisper_long_result res[64];
        const float *xs[64];
        size_t ns[64];
        bar b;
        char name[64];
        memset(a, 0, sizeof a);
        memset(segs, 0, sizeof segs);
        memset(res, 0, sizeof res);
        for (f = 0; f < k; f++, got++) {
            if (gk_audio_from_wav(files[i + f], NULL, &a[f]) != GK_OK) { fprintf(stderr, "transcribe: %s\n", gk_last_error(NULL)); rc = 1; break; }
            xs[f] = a[f].samples;
            ns[f] = a[f].n;
        }
        if (k > 1) snprintf(name, sizeof name, "%d files", k);
        b.name = k > 1 ? name : files[i]; b.on = progress; b.drawn = 0;
        ld.progress = on_progress;
        ld.user = &b;
        if (rc == 0 && gk_whisper_transcribe_batch(m, xs, ns, k, &ld, segs, res) != GK_OK) {
            if (b.drawn) fputc('\n', stderr);
            b.drawn = 0;
            fprintf(stderr, "transcribe: %s%s: %s\n", files[i], k > 1 ? " (and the files batched with it)" : "", gk_last_error(ctx));
            rc = 1;
        }
        if (b.drawn) fputc('\n', stderr);
        for (f = 0; f < k && rc == 0; f++) {
            FILE *fp = stdout;
            char path[4096];
            audio_s += res[f].duration;
            if (!gk_whisper_model_tokenizer(m) && !ids_as_text(&segs[f])) { fprintf(stderr, "transcribe: out of memory\n"); rc = 1; break; }
            if (outdir) {
                const char *base = strrchr(files[i + f], '/'), *dot;
                size_t bl;
                base = base ? base + 1 : files[i + f];
                dot = strrchr(base, '.');
                bl = dot && dot != base ? (size_t)(dot - base) : strlen(base);
                if (bl > 255) bl = 255;
                snprintf(path, sizeof path, "%.3800s/%.*s.%.8s", outdir, (int)bl, base, fmt_name);
                if (!(fp = fopen(path, "wb"))) { fprintf(stderr, "transcribe: cannot write %s: %s\n", path, strerror(errno)); rc = 1; break; }
            }
            if (gk_whisper_write_file(&segs[f], fmt, NULL, res[f].language, fp) != GK_OK) {
                fprintf(stderr, "transcribe: writing %s: %s\n", outdir ? path : "stdout", gk_last_error(NULL));
                rc = 1;
            }
            if (fp != stdout && fclose(fp) != 0 && rc == 0) { fprintf(stderr, "transcribe: cannot write %s\n", path); rc = 1; }
        }
        for (f = 0; f < k; f++) gk_whisper_segments_free(&segs[f]);
        for (f = 0; f < got; f++) gk_audio_free(&a[f]);
    }
    if (rc == 0) {
        double wall = now_s() - t0;
        fprintf(stderr, "transcribe: %.1f s of audio in %.2f s (%.1fx real time)\n", audio_s, wall, wall > 0 ? audio_s / wall : 0.0);
    }
    gk_whisper_free(m);
    gk_ctx_destroy(ctx);
    free(files);
    return rc;
}
