/* speak - text to speech with a Kokoro-82M model.

     speak MODEL_DIR [options] [TEXT]
       TEXT, or -f FILE, or stdin when neither is given; --phonemes STRING (Kokoro's alphabet, no espeak-ng)
       --voice NAME | NAME:W,NAME:W (a blend; default af_heart)   --voices PATH (a voices folder or file;
       default MODEL_DIR/voices, then MODEL_DIR/voices-v1.0.bin)   --lang en-us|en-gb|es|fr-fr|hi|it|pt-br
       (default: from the voice's first letter)   --speed X (default 1)   --seed N   --no-noise
       -o out.wav (default speak.wav; "-" writes raw float32 samples to stdout)   --backend auto|cuda|cpu
       --tf32 (the convolutions on TF32 tensor cores: about twice as fast on a GPU; gk_kokoro_desc.allow_tf32)
       --progress   --list-voices   --espeak-lib PATH (the espeak-ng library; default: libespeak-ng.so.1 through
       the dynamic loader)

   A progress bar over the chunks goes to stderr when stderr is a terminal
   (or with --progress), and a summary at the end: seconds of audio, wall
   time, x real time and the time to the first chunk's audio. Exit status:
   0, 1 on an error (named), 2 on bad arguments. */
#define GPUKIT_IMPLEMENTATION
#define GPUKIT_LLM_IMPLEMENTATION
#include "../gpukit_llm.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static const char USAGE[] =
    "usage: speak MODEL_DIR [options] [TEXT]\n"
    "  -f FILE | --phonemes STRING  --voice NAME[:W,NAME:W]  --voices PATH  --lang CODE  --speed X  --seed N  --no-noise\n"
    "  -o out.wav|-  --backend auto|cuda|cpu  --tf32  --progress  --list-voices  --espeak-lib PATH\n";
static int usage_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "speak: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n%s", USAGE);
    va_end(ap);
    return 2;
}
static double now_s(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
}
static int file_exists(const char *p) {
    FILE *f = fopen(p, "rb");
    if (f) fclose(f);
    return f != NULL;
}
/* the whole of a stream (stdin or a file) */
static char *read_all(FILE *f, size_t *n) {
    size_t cap = 1 << 16, len = 0, k;
    char *b = (char *)malloc(cap + 1), *p;
    while (b && (k = fread(b + len, 1, cap - len, f)) > 0) {
        len += k;
        if (len == cap) {
            if (!(p = (char *)realloc(b, 2 * cap + 1))) { free(b); return NULL; }
            b = p;
            cap *= 2;
        }
    }
    if (b) b[len] = 0;
    *n = len;
    return b;
}

typedef struct run {
    int progress, raw;
    double t0, first;
    FILE *raw_out;
} run;
static int on_audio(const float *x, size_t n, const gk_kokoro_chunk_info *info, void *user) {
    run *r = (run *)user;
    int i, w = 30, k = (int)((info->index + 1) * (size_t)w / info->count);
    if (r->first < 0) r->first = now_s() - r->t0;
    if (r->raw && n && fwrite(x, sizeof(float), n, r->raw_out) != n) return 1;
    if (r->raw) fflush(r->raw_out);
    if (r->progress) {
        fprintf(stderr, "\rspeak [");
        for (i = 0; i < w; i++) fputc(i < k ? '#' : ' ', stderr);
        fprintf(stderr, "] chunk %zu / %zu", info->index + 1, info->count);
        fflush(stderr);
    }
    return 0;
}

int main(int argc, char **argv) {
    const char *dir = NULL, *text_arg = NULL, *file = NULL, *phon = NULL, *voice = "af_heart", *voices = NULL, *lang = NULL, *outp = "speak.wav";
    const char *eslib = NULL;
    int i, rc = 0, list = 0;
    run r;
    gk_ctx_desc cd;
    gk_ctx *ctx = NULL;
    gk_kokoro_model *m = NULL;
    gk_kokoro_vocab *vocab = NULL;
    gk_kokoro_voice v;
    gk_espeak *es = NULL;
    gk_espeak_desc ed;
    gk_kokoro_speak_desc sd;
    gk_kokoro_desc kd;
    gk_kokoro_speak_result res;
    gk_audio a;
    char vpath[4200], *text = NULL;
    size_t tlen = 0;
    double wall;
    memset(&r, 0, sizeof r);
    memset(&cd, 0, sizeof cd);
    memset(&kd, 0, sizeof kd);
    memset(&sd, 0, sizeof sd);
    memset(&v, 0, sizeof v);
    memset(&a, 0, sizeof a);
    memset(&ed, 0, sizeof ed);
    r.progress = isatty(2);
    r.first = -1;
    cd.backend = GK_BACKEND_AUTO;
    cd.log_level = GK_LOG_ERROR;
#define NEED() \
    if (i + 1 >= argc) return usage_error("%s needs a value", a_); \
    val = argv[++i]
    for (i = 1; i < argc; i++) {
        const char *a_ = argv[i], *val;
        char *end;
        if (a_[0] != '-' || !a_[1]) {
            if (!dir) dir = a_;
            else if (!text_arg) text_arg = a_;
            else return usage_error("more than one TEXT given (quote it)");
            continue;
        }
        if (strcmp(a_, "-f") == 0) { NEED(); file = val; }
        else if (strcmp(a_, "--phonemes") == 0) { NEED(); phon = val; }
        else if (strcmp(a_, "--voice") == 0) { NEED(); voice = val; }
        else if (strcmp(a_, "--voices") == 0) { NEED(); voices = val; }
        else if (strcmp(a_, "--lang") == 0) { NEED(); lang = val; }
        else if (strcmp(a_, "-o") == 0) { NEED(); outp = val; }
        else if (strcmp(a_, "--espeak-lib") == 0) { NEED(); eslib = val; }
        else if (strcmp(a_, "--speed") == 0) {
            NEED();
            errno = 0;
            sd.speed = strtof(val, &end);
            if (*end || errno || !(sd.speed > 0) || sd.speed > 100) return usage_error("--speed %s: expected a number above 0 (at most 100)", val);
        } else if (strcmp(a_, "--seed") == 0) {
            NEED();
            errno = 0;
            sd.seed = strtoull(val, &end, 10);
            if (*end || errno || val[0] == '-') return usage_error("--seed %s: expected a non-negative integer", val);
        } else if (strcmp(a_, "--no-noise") == 0) sd.noise = GK_KOKORO_NOISE_ZERO;
        else if (strcmp(a_, "--progress") == 0) r.progress = 1;
        else if (strcmp(a_, "--tf32") == 0) kd.allow_tf32 = 1;
        else if (strcmp(a_, "--list-voices") == 0) list = 1;
        else if (strcmp(a_, "--backend") == 0) {
            NEED();
            if (strcmp(val, "cpu") == 0) cd.backend = GK_BACKEND_CPU;
            else if (strcmp(val, "cuda") == 0) cd.backend = GK_BACKEND_CUDA;
            else if (strcmp(val, "auto") == 0) cd.backend = GK_BACKEND_AUTO;
            else return usage_error("--backend %s: expected auto, cuda or cpu", val);
        } else return usage_error("unknown option %s", a_);
    }
    if (!dir) return usage_error("no MODEL_DIR given");
    if ((phon != NULL) + (text_arg != NULL) + (file != NULL) > 1) return usage_error("give one of TEXT, -f FILE and --phonemes");
    if (strlen(dir) > 4000) return usage_error("MODEL_DIR is too long");
    if (!voices) {
        snprintf(vpath, sizeof vpath, "%s/voices", dir);
        if (!file_exists(vpath)) snprintf(vpath, sizeof vpath, "%s/voices-v1.0.bin", dir);
        voices = vpath;
    }
    if (list) {
        gk_buf b = {NULL, 0, 0};
        if (gk_kokoro_voice_list(voices, &b) != GK_OK) { fprintf(stderr, "speak: %s\n", gk_last_error(NULL)); return 1; }
        if (b.len) fwrite(b.data, 1, b.len, stdout);
        gk_buf_free(&b);
        return 0;
    }
    /* the input */
    if (phon) { text = (char *)malloc(strlen(phon) + 1); if (text) { strcpy(text, phon); tlen = strlen(phon); } }
    else if (text_arg) { text = (char *)malloc(strlen(text_arg) + 1); if (text) { strcpy(text, text_arg); tlen = strlen(text_arg); } }
    else {
        FILE *f = file ? fopen(file, "rb") : stdin;
        if (!f) { fprintf(stderr, "speak: cannot read %s: %s\n", file, strerror(errno)); return 1; }
        text = read_all(f, &tlen);
        if (file) fclose(f);
    }
    if (!text) { fprintf(stderr, "speak: out of memory\n"); return 1; }
    if (gk_kokoro_voice_load(voices, voice, &v) != GK_OK) { fprintf(stderr, "speak: %s\n", gk_last_error(NULL)); free(text); return 1; }
    if (!phon) {
        if (!lang) lang = gk_kokoro_voice_language(voice);
        if (!lang) {
            fprintf(stderr, "speak: voice %s: no espeak-ng language for it (give --lang, or --phonemes)\n", voice);
            rc = 1;
            goto done;
        }
        ed.library = eslib;
        if (gk_espeak_create(&ed, &es) != GK_OK) { fprintf(stderr, "speak: %s\n", gk_last_error(NULL)); rc = 1; goto done; }
    }
    if (gk_kokoro_vocab_load(dir, &vocab) != GK_OK) { fprintf(stderr, "speak: %s\n", gk_last_error(NULL)); rc = 1; goto done; }
    if (gk_ctx_create(&cd, &ctx) != GK_OK) { fprintf(stderr, "speak: %s\n", gk_last_error(NULL)); rc = 1; goto done; }
    if (gk_kokoro_load(ctx, dir, &kd, &m) != GK_OK) { fprintf(stderr, "speak: %s\n", gk_last_error(ctx)); rc = 1; goto done; }
    r.raw = strcmp(outp, "-") == 0;
    r.raw_out = stdout;
    sd.voice = &v;
    sd.phonemes = phon != NULL;
    sd.espeak = es;
    sd.language = lang;
    sd.on_audio = on_audio;
    sd.user = &r;
    r.t0 = now_s();
    if (gk_kokoro_speak(m, vocab, text, tlen, &sd, r.raw ? NULL : &a, &res) != GK_OK) {
        if (r.progress) fputc('\n', stderr);
        fprintf(stderr, "speak: %s\n", gk_last_error(ctx));
        rc = 1;
        goto done;
    }
    wall = now_s() - r.t0;
    if (r.progress) fputc('\n', stderr);
    if (!r.raw && gk_audio_write_wav(outp, a.samples, a.n, a.rate, GK_WAV_PCM16) != GK_OK) {
        fprintf(stderr, "speak: %s\n", gk_last_error(NULL));
        rc = 1;
        goto done;
    }
    fprintf(stderr, "speak: %.2f s of audio (%zu chunks) in %.3f s (%.1fx real time), first audio after %.3f s%s%s\n", res.seconds, res.chunks, wall,
            wall > 0 ? res.seconds / wall : 0.0, r.first, r.raw ? "" : " -> ", r.raw ? "" : outp);
done:
    gk_audio_free(&a);
    gk_kokoro_free(m);
    if (ctx) gk_ctx_destroy(ctx);
    gk_kokoro_vocab_free(vocab);
    gk_espeak_destroy(es);
    gk_kokoro_voice_free(&v);
    free(text);
    return rc;
}
