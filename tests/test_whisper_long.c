/* test_whisper_long: long-form transcription of gpukit_llm.h (>>api_whisper_long)
   on the fixture models of tests/fixtures/whisper (random weights: their
   text is noise, so the structure is checked): 95 s of synthetic audio gives
   windows that cover all of it (the progress reaches the duration, the seek
   advances), segments in order inside their windows with absolute times,
   the same result twice (outside ASan, which leaves out such repeats);
   without timestamps, one segment per 30 s window;
   the first window's segments are a prefix of gk_whisper_transcribe's
   tokens; zero-length, shorter-than-a-frame, short and silent inputs; bad
   arguments named, and segs untouched by a failure; the cancel hook, asked
   before every window and decoding step, stops with GK_ERR_CANCELLED. With a tokenizer made
   here for tiny-ml's layout: batches equal their inputs alone (greedy and
   beams, with inputs waiting for windows), beam search is deterministic,
   the fallback runs every temperature when nothing passes, the detected
   language is the most probable language token, and word timestamps are
   ordered inside their segments and spell the segments' text. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#define GPUKIT_IMPLEMENTATION
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"
#include "tests/gkt.h"
#include "tests/gkt_util.h"
#include "tests/gkt_whisper_tok.h"

static gk_ctx *dut;
static const char *fixdir = "tests/fixtures/whisper";
/* Under ASan the runs that repeat a path already taken (the same call again for determinism, or
   alone after the same batch) are left out: the plain run makes those checks. */
#if defined(__SANITIZE_ADDRESS__)
#define REPEATS 0
#else
#define REPEATS 1
#endif

typedef struct prog { double last, total; int calls, monotone; } prog;
static void on_progress(double done, double total, void *user) {
    prog *p = (prog *)user;
    if (done < p->last || done > total) p->monotone = 0;
    p->last = done;
    p->total = total;
    p->calls++;
}

/* stops after `after` questions, counting them */
typedef struct stopper { int asked, after; } stopper;
static int on_cancel(void *user) {
    stopper *c = (stopper *)user;
    return ++c->asked > c->after;
}

static float *synth(size_t n) {
    float *x = (float *)malloc(sizeof(float) * (n ? n : 1));
    size_t i;
    for (i = 0; i < n; i++) x[i] = (float)(0.3 * sin(2 * 3.14159265 * (220.0 + 30.0 * sin((double)i / 16000.0)) * (double)i / 16000.0) + gkt_uniform(-0.05, 0.05));
    return x;
}

static int same_segments(const gk_whisper_segments *a, const gk_whisper_segments *b) {
    size_t i;
    if (a->len != b->len) return 0;
    for (i = 0; i < a->len; i++) {
        const gk_whisper_segment *x = &a->data[i], *y = &b->data[i];
        if (x->seek != y->seek || x->start != y->start || x->end != y->end || x->n_tokens != y->n_tokens) return 0;
        if (x->n_tokens && memcmp(x->tokens, y->tokens, x->n_tokens * sizeof(int32_t)) != 0) return 0;
    }
    return 1;
}

/* segments ordered, inside their windows, ids counting from 0 */
static void check_structure(const char *what, const gk_whisper_segments *s, double duration) {
    size_t i;
    for (i = 0; i < s->len; i++) {
        const gk_whisper_segment *g = &s->data[i];
        double t0 = (double)g->seek / 100.0;
        GKT_CHECK(g->id == (int64_t)i, "%s: segment %zu has id %lld", what, i, (long long)g->id);
        GKT_CHECK(g->start >= t0 - 1e-9 && g->end <= t0 + 30.0 + 1e-9 && g->start <= g->end, "%s: segment %zu [%g, %g] outside its window at %g s", what, i, g->start,
                  g->end, t0);
        GKT_CHECK(g->seek >= 0 && t0 < duration, "%s: segment %zu seek %lld outside the audio of %g s", what, i, (long long)g->seek, duration);
        if (i) GKT_CHECK(g->seek >= s->data[i - 1].seek && g->start >= s->data[i - 1].start - 1e-9, "%s: segment %zu starts before segment %zu", what, i, i - 1);
        GKT_CHECK(g->text != NULL, "%s: segment %zu has no text string", what, i);
    }
}

static void run_case(const char *name, int full) {
    char dir[320];
    gk_whisper_model *m = NULL;
    gk_whisper_desc md;
    gk_whisper_long_desc d;
    gk_whisper_long_result r, r2;
    gk_whisper_segments s1, s2;
    size_t n = 95 * 16000, i;
    float *x = synth(n), *z;
    prog p;
    snprintf(dir, sizeof dir, "%s/%s", fixdir, name);
    memset(&md, 0, sizeof md);
    md.dtype = GK_LLM_DTYPE_F32;
    if (gk_whisper_load(dut, dir, &md, &m) != GK_OK) {
        GKT_CHECK(0, "%s: load: %s", name, gk_last_error(dut));
        free(x);
        return;
    }
    memset(&s1, 0, sizeof s1);
    memset(&s2, 0, sizeof s2);
    /* 95 s with timestamps and previous-text prompts */
    memset(&d, 0, sizeof d);
    memset(&p, 0, sizeof p);
    p.monotone = 1;
    d.max_tokens = 24;
    d.language = "en";
    d.thresholds.no_speech = NAN; /* random weights: no silence skip */
    d.thresholds.temperature_increment = NAN; /* temperature 0 only (the fallback is checked below) */
    d.progress = on_progress;
    d.user = &p;
    GKT_OK(dut, gk_whisper_transcribe_long(m, x, n, &d, &s1, &r));
    GKT_CHECK(r.duration == 95.0, "%s: duration %g", name, r.duration);
    GKT_CHECK(r.windows >= 4 && r.windows == p.calls, "%s: %lld windows, %d progress calls", name, (long long)r.windows, p.calls);
    GKT_CHECK(p.monotone && p.last == 95.0 && p.total == 95.0, "%s: progress ends at %g of %g (monotone %d)", name, p.last, p.total, p.monotone);
    GKT_CHECK(r.skipped == 0 && s1.len >= 1 && r.language && strcmp(r.language, "en") == 0, "%s: skipped %lld, %zu segments, language %s", name,
              (long long)r.skipped, s1.len, r.language ? r.language : "(null)");
    check_structure(name, &s1, 95.0);
    printf("%s: 95 s -> %lld windows, %zu segments, %lld tokens\n", name, (long long)r.windows, s1.len, (long long)r.sampled);
    /* the cancel hook: asked before every window and decoding step (never
       stopping: the same result; stopping at its 30th question: GK_ERR_CANCELLED, segs as they were) */
    {
        stopper c;
        gk_whisper_long_desc cd = d;
        size_t before = s1.len;
        memset(&c, 0, sizeof c);
        c.after = 1 << 30;
        cd.progress = NULL;
        cd.cancel = on_cancel;
        cd.user = &c;
        GKT_OK(dut, gk_whisper_transcribe_long(m, x, n, &cd, &s2, &r2));
        GKT_CHECK(same_segments(&s1, &s2) && c.asked > r.sampled, "%s: a cancel hook that never stops: same result (asked %d times, %lld tokens)", name, c.asked,
                  (long long)r.sampled);
        gk_whisper_segments_free(&s2);
        c.asked = 0;
        c.after = 30;
        GKT_FAILS(dut, gk_whisper_transcribe_long(m, x, n, &cd, &s1, &r2), GK_ERR_CANCELLED, "cancelled by gk_whisper_long_desc.cancel after");
        GKT_CHECK(c.asked == 31 && s1.len == before, "%s: cancelled: asked %d times, segs %zu -> %zu", name, c.asked, before, s1.len);
        cd.cancel = NULL; /* no hook: user alone is harmless */
        GKT_OK(dut, gk_whisper_transcribe_long(m, x, 1600, &cd, &s2, &r2));
        gk_whisper_segments_free(&s2);
    }
    /* deterministic */
    d.progress = NULL;
    if (REPEATS) {
        GKT_OK(dut, gk_whisper_transcribe_long(m, x, n, &d, &s2, &r2));
        GKT_CHECK(same_segments(&s1, &s2) && r2.windows == r.windows, "%s: a second run differs", name);
    }
    if (!full) { /* the first case checks the rest */
        gk_whisper_segments_free(&s1);
        gk_whisper_segments_free(&s2);
        gk_whisper_free(m);
        free(x);
        return;
    }
    /* without timestamps: one segment per 30 s window, 4 windows, covering 0..95 s */
    gk_whisper_segments_free(&s2);
    d.without_timestamps = 1;
    GKT_OK(dut, gk_whisper_transcribe_long(m, x, n, &d, &s2, &r2));
    GKT_CHECK(r2.windows == 4 && s2.len == 4, "%s: without timestamps: %lld windows, %zu segments", name, (long long)r2.windows, s2.len);
    for (i = 0; i < s2.len; i++) {
        GKT_CHECK(s2.data[i].seek == (int64_t)i * 3000 && s2.data[i].start == (double)i * 30.0, "%s: no-timestamp segment %zu at seek %lld, %g s", name, i,
                  (long long)s2.data[i].seek, s2.data[i].start);
        if (i == 3) GKT_CHECK(fabs(s2.data[i].end - 95.0) < 1e-9, "%s: the last window ends at %g", name, s2.data[i].end);
    }
    check_structure(name, &s2, 95.0);
    /* no conditioning also runs; the first window does not depend on it */
    gk_whisper_segments_free(&s2);
    d.without_timestamps = 0;
    d.no_condition = 1;
    GKT_OK(dut, gk_whisper_transcribe_long(m, x, n, &d, &s2, &r2));
    check_structure(name, &s2, 95.0);
    GKT_CHECK(s2.len >= 1 && s2.data[0].n_tokens == s1.data[0].n_tokens && !memcmp(s2.data[0].tokens, s1.data[0].tokens, s1.data[0].n_tokens * sizeof(int32_t)),
              "%s: the first segment changes without conditioning", name);
    gk_whisper_segments_free(&s2);
    d.no_condition = 0;
    /* the first window's segments are a prefix of the single-window transcription */
    {
        gk_whisper_transcribe_desc td;
        gk_ids ids = {0, 0, 0};
        size_t k = 0, j;
        int ok = 1;
        memset(&td, 0, sizeof td);
        td.timestamps = 1;
        td.max_tokens = 24;
        GKT_OK(dut, gk_whisper_transcribe(m, x, 480000, &td, &ids, NULL));
        for (i = 0; i < s1.len && s1.data[i].seek == 0; i++)
            for (j = 0; j < s1.data[i].n_tokens; j++, k++) ok &= k < ids.len && ids.data[k] == s1.data[i].tokens[j];
        GKT_CHECK(ok, "%s: the first window's segments (%zu tokens) are not a prefix of gk_whisper_transcribe's %zu tokens", name, k, ids.len);
        gk_ids_free(&ids);
    }
    /* zero-length, shorter than a frame, short, silent */
    GKT_OK(dut, gk_whisper_transcribe_long(m, NULL, 0, &d, &s2, &r2));
    GKT_CHECK(s2.len == 0 && r2.windows == 0 && r2.duration == 0, "%s: no audio: %zu segments, %lld windows", name, s2.len, (long long)r2.windows);
    GKT_OK(dut, gk_whisper_transcribe_long(m, x, 100, NULL, &s2, &r2));
    GKT_CHECK(s2.len == 0 && r2.windows == 0, "%s: 100 samples: %zu segments", name, s2.len);
    GKT_OK(dut, gk_whisper_transcribe_long(m, x, 1600, &d, &s2, &r2));
    GKT_CHECK(r2.windows >= 1 && r2.duration == 0.1, "%s: 0.1 s: %lld windows, %g s", name, (long long)r2.windows, r2.duration);
    check_structure(name, &s2, 0.1);
    gk_whisper_segments_free(&s2);
    z = (float *)calloc(5 * 16000, sizeof(float));
    GKT_OK(dut, gk_whisper_transcribe_long(m, z, 5 * 16000, NULL, &s2, &r2));
    check_structure(name, &s2, 5.0);
    GKT_CHECK(r2.windows >= 1 && r2.skipped <= r2.windows, "%s: silence: %lld windows, %lld skipped", name, (long long)r2.windows, (long long)r2.skipped);
    free(z);
    gk_whisper_segments_free(&s2);
    /* bad arguments: named, segs untouched */
    {
        size_t before = s1.len;
        gk_whisper_long_desc b = d;
        int32_t bad = 1 << 30;
        gk_audio a;
        GKT_FAILS(NULL, gk_whisper_transcribe_long(NULL, x, n, &d, &s1, &r2), GK_ERR_INVALID_ARGUMENT, "m is NULL");
        GKT_FAILS(dut, gk_whisper_transcribe_long(m, x, n, &d, NULL, &r2), GK_ERR_INVALID_ARGUMENT, "segs is NULL");
        GKT_FAILS(dut, gk_whisper_transcribe_long(m, NULL, 5, &d, &s1, &r2), GK_ERR_INVALID_ARGUMENT, "samples is NULL");
        b.seq = 7;
        GKT_FAILS(dut, gk_whisper_transcribe_long(m, x, n, &b, &s1, &r2), GK_ERR_INVALID_ARGUMENT, "seq = 7");
        b = d; b.max_tokens = -1;
        GKT_FAILS(dut, gk_whisper_transcribe_long(m, x, n, &b, &s1, &r2), GK_ERR_INVALID_ARGUMENT, "max_tokens = -1");
        b = d; b.language = "klingon";
        GKT_FAILS(dut, gk_whisper_transcribe_long(m, x, n, &b, &s1, &r2), GK_ERR_NOT_FOUND, "klingon");
        b = d; b.initial_prompt = &bad; b.n_initial_prompt = 1;
        GKT_FAILS(dut, gk_whisper_transcribe_long(m, x, n, &b, &s1, &r2), GK_ERR_INVALID_ARGUMENT, "initial_prompt[0]");
        b = d; b.word_timestamps = 1; /* the fixture folders have no tokenizer.json */
        GKT_FAILS(dut, gk_whisper_transcribe_long(m, x, n, &b, &s1, &r2), GK_ERR_NOT_FOUND, "word_timestamps needs the model folder's tokenizer.json");
        b = d; b.suppress = NULL; b.n_suppress = 3; b.custom_suppress = 1;
        GKT_FAILS(dut, gk_whisper_transcribe_long(m, x, n, &b, &s1, &r2), GK_ERR_INVALID_ARGUMENT, "suppress is NULL");
        GKT_CHECK(s1.len == before, "%s: a failed call changed segs: %zu -> %zu", name, before, s1.len);
        memset(&a, 0, sizeof a);
        a.samples = x; a.n = 8000; a.rate = 8000;
        GKT_FAILS(dut, gk_whisper_transcribe_long_audio(m, &a, &d, &s2, &r2), GK_ERR_INVALID_ARGUMENT, "8000 Hz");
        /* an initial prompt is accepted */
        b = d; bad = 300; b.initial_prompt = &bad; b.n_initial_prompt = 1;
        GKT_OK(dut, gk_whisper_transcribe_long(m, x, 16000 * 3, &b, &s2, &r2));
        gk_whisper_segments_free(&s2);
    }
    gk_whisper_segments_free(&s1);
    gk_whisper_free(m);
    free(x);
}

/* ---- beams, batches, fallback, language detection, words (tiny-ml with a tokenizer) ---- */
/* tiny-ml's layout: bytes 0..255, words " xy" 256..449, eot 450, sot 451,
   99 languages, translate .. no-timestamps 551..556, timestamps 557..639 */
static int write_tokenizer(const char *path) {
    gk_buf js = {NULL, 0, 0};
    char s[96];
    int i;
    FILE *f;
    gkt_wtok_begin(&js);
    for (i = 256; i < 450; i++) {
        snprintf(s, sizeof s, ",\"\xC4\xA0%c%c\":%d", 'a' + (i - 256) % 26, 'a' + (i - 256) / 26, i);
        gk__u_buf_puts(&js, s);
    }
    gkt_wtok_end(&js, "", 450, "<|nospeech|>", 83);
    f = fopen(path, "wb");
    i = f && fwrite(js.data, 1, js.len, f) == js.len;
    if (f) fclose(f);
    gk_buf_free(&js);
    return i;
}

static void run_features(void) {
    static const char *files[] = { "config.json", "generation_config.json", "model.safetensors", "preprocessor_config.json" };
    char dir[] = "/tmp/gkt_whisperXXXXXX", p1[400], p2[400];
    gk_whisper_model *m1 = NULL, *mb = NULL;
    gk_whisper_desc md;
    gk_whisper_long_desc d, b;
    gk_whisper_long_result r, rb[3];
    gk_whisper_segments s1, s2, sb[3];
    size_t n1 = 45 * 16000, n2 = 20 * 16000, i, k;
    float *x1 = synth(n1), *x2 = synth(n2);
    const float *xs[3];
    size_t ns[3];
    int ok = 1, c;
    memset(&s1, 0, sizeof s1);
    memset(&s2, 0, sizeof s2);
    memset(sb, 0, sizeof sb);
    if (!mkdtemp(dir)) { GKT_CHECK(0, "mkdtemp failed"); free(x1); free(x2); return; }
    for (i = 0; i < 4; i++) {
        snprintf(p1, sizeof p1, "%s/tiny-ml/%s", fixdir, files[i]);
        snprintf(p2, sizeof p2, "%s/%s", dir, files[i]);
        ok &= gkt_copy_file(p1, p2);
    }
    snprintf(p2, sizeof p2, "%s/tokenizer.json", dir);
    ok &= write_tokenizer(p2);
    GKT_CHECK(ok, "copying tiny-ml to %s", dir);
    memset(&md, 0, sizeof md);
    md.dtype = GK_LLM_DTYPE_F32;
    GKT_OK(dut, gk_whisper_load(dut, dir, &md, &m1));
    md.max_windows = 3;
    md.max_beams = 4;
    GKT_OK(dut, gk_whisper_load(dut, dir, &md, &mb));
    if (!m1 || !mb) goto out;
    memset(&d, 0, sizeof d);
    d.language = "en";
    d.max_tokens = 12;
    d.thresholds.no_speech = NAN;
    d.thresholds.temperature_increment = NAN;
    xs[0] = x1; xs[1] = x2; xs[2] = x1;
    ns[0] = n1; ns[1] = n2; ns[2] = n1;
    /* a batch of three inputs in three windows (and in two) equals each input alone */
    for (c = 0; c < 2; c++) {
        b = d;
        b.beam_size = c; /* greedy; then one beam */
        GKT_OK(dut, gk_whisper_transcribe_batch(mb, xs, ns, 3, &b, sb, rb));
        for (i = 0; i < 2 && (c == 0 || REPEATS); i++) { /* the third input is the first's audio */
            GKT_OK(dut, gk_whisper_transcribe_long(m1, xs[i], ns[i], &b, &s1, &r));
            GKT_CHECK(same_segments(&s1, &sb[i]) && rb[i].windows == r.windows, "beam %d: input %zu of a batch differs from it alone (%zu / %zu segments)", c, i, sb[i].len,
                      s1.len);
            check_structure("batch", &sb[i], (double)ns[i] / 16000.0);
            gk_whisper_segments_free(&s1);
        }
        GKT_CHECK(same_segments(&sb[0], &sb[2]), "beam %d: one audio twice in a batch gives two results", c);
        for (k = 0; k < 3; k++) gk_whisper_segments_free(&sb[k]);
        b.seq = 1; /* windows 1 and 2 only: inputs wait for a free window */
        if (c == 0) {
            GKT_OK(dut, gk_whisper_transcribe_batch(mb, xs, ns, 3, &b, sb, rb));
            GKT_OK(dut, gk_whisper_transcribe_long(m1, xs[2], ns[2], &d, &s1, &r));
            GKT_CHECK(same_segments(&s1, &sb[2]), "seq 1: the third input (waiting for a window) differs from it alone");
            gk_whisper_segments_free(&s1);
            for (k = 0; k < 3; k++) gk_whisper_segments_free(&sb[k]);
        }
    }
    /* beam search with 4 beams: deterministic, the same alone and in a batch, and on a model with more rows */
    b = d;
    b.beam_size = 4;
    GKT_OK(dut, gk_whisper_transcribe_long(mb, x1, n1, &b, &s1, &r));
    check_structure("beams", &s1, 45.0);
    GKT_OK(dut, gk_whisper_transcribe_batch(mb, xs, ns, 2, &b, sb, rb));
    GKT_CHECK(same_segments(&s1, &sb[0]), "beams: the first input of a batch differs from it alone");
    printf("tiny-ml beams 4: %zu segments, %lld tokens\n", s1.len, (long long)r.sampled);
    gk_whisper_segments_free(&s1);
    for (k = 0; k < 3; k++) gk_whisper_segments_free(&sb[k]);
    b.beam_size = 5;
    GKT_FAILS(dut, gk_whisper_transcribe_long(mb, x1, n1, &b, &s1, &r), GK_ERR_LIMIT, "max_beams 4");
    GKT_FAILS(dut, gk_whisper_transcribe_long(m1, x1, n1, &b, &s1, &r), GK_ERR_LIMIT, "beam_size = 5 needs 5 decoder rows");
    /* fallback: a log-probability threshold nothing meets runs every temperature, sampling 3 candidates, and keeps the last */
    b = d;
    b.thresholds.temperature_increment = 0;
    b.thresholds.logprob = 1e9;
    b.best_of = 3;
    b.seed = 7;
    GKT_OK(dut, gk_whisper_transcribe_long(mb, x2, n2, &b, &s1, &r));
    GKT_CHECK(r.windows >= 1 && r.fallbacks == 5 * r.windows, "fallback: %lld windows, %lld fallbacks (5 each expected)", (long long)r.windows, (long long)r.fallbacks);
    for (i = 0; i < s1.len; i++) GKT_CHECK(s1.data[i].temperature == 1.0, "fallback: segment %zu at temperature %g", i, s1.data[i].temperature);
    check_structure("fallback", &s1, 20.0);
    if (REPEATS) {
        GKT_OK(dut, gk_whisper_transcribe_long(mb, x2, n2, &b, &s2, &r));
        GKT_CHECK(same_segments(&s1, &s2), "fallback: sampling with one seed differs between runs");
    }
    gk_whisper_segments_free(&s1);
    gk_whisper_segments_free(&s2);
    /* language detection: the code whose token is most probable after <|startoftranscript|> on the first window */
    {
        float *mel = (float *)malloc(sizeof(float) * 80 * 3000), *lg = (float *)malloc(sizeof(float) * 640);
        int best = -1;
        b = d;
        b.language = NULL;
        GKT_OK(dut, gk_whisper_mel(m1, x1, 480000, mel));
        GKT_OK(dut, gk_whisper_encode(m1, mel, 1, 0, NULL));
        GKT_OK(dut, gk_whisper_decode(m1, 0, &gk_whisper_model_tokens(m1)->sot, 1, 0, lg));
        GKT_OK(NULL, gk_whisper_detect_language(gk_whisper_model_tokens(m1), lg, NULL, &best));
        GKT_OK(dut, gk_whisper_transcribe_long(m1, x1, n1, &b, &s1, &r));
        GKT_CHECK(best >= 0 && r.language && strcmp(r.language, gk_whisper_lang_code(best)) == 0, "detected language %s, expected %s", r.language ? r.language : "(null)",
                  best >= 0 ? gk_whisper_lang_code(best) : "?");
        printf("tiny-ml: detected language %s\n", r.language ? r.language : "(null)");
        gk_whisper_segments_free(&s1);
        free(mel);
        free(lg);
    }
    /* word timestamps: words inside their segments, in order, their text the segment's */
    b = d;
    b.word_timestamps = 1;
    GKT_OK(dut, gk_whisper_transcribe_long(m1, x1, n1, &b, &s1, &r));
    GKT_CHECK(s1.has_words, "words: has_words is not set");
    {
        size_t nw = 0;
        double last = 0;
        for (i = 0; i < s1.len; i++) {
            const gk_whisper_segment *g = &s1.data[i];
            gk_buf cat = {NULL, 0, 0};
            for (k = 0; k < g->n_words; k++) {
                const gk_whisper_word *wd = &g->words[k];
                GKT_CHECK(wd->start <= wd->end && wd->start >= last - 1e-9 && wd->probability >= 0 && wd->probability <= 1, "word %zu.%zu '%s' [%g, %g] p %g after %g", i, k,
                          wd->word, wd->start, wd->end, wd->probability, last);
                last = wd->start;
                gk__u_buf_puts(&cat, wd->word);
                nw++;
            }
            if (g->n_words)
                GKT_CHECK(cat.len == strlen(g->text) && memcmp(cat.data, g->text, cat.len) == 0, "segment %zu: words '%.*s' vs text '%s'", i, (int)cat.len, cat.data,
                          g->text);
            gk_buf_free(&cat);
        }
        GKT_CHECK(nw > 0, "words: none in %zu segments", s1.len);
        printf("tiny-ml words: %zu words in %zu segments\n", nw, s1.len);
    }
    gk_whisper_segments_free(&s1);
out:
    gk_whisper_free(m1);
    gk_whisper_free(mb);
    for (i = 0; i < 4; i++) { snprintf(p2, sizeof p2, "%s/%s", dir, files[i]); remove(p2); }
    snprintf(p2, sizeof p2, "%s/tokenizer.json", dir);
    remove(p2);
    rmdir(dir);
    free(x1);
    free(x2);
}

int main(void) {
    char p[320];
    FILE *f;
    gkt_seed();
    dut = gkt_dut();
    if (getenv("GKT_WHISPER_FIXTURES")) fixdir = getenv("GKT_WHISPER_FIXTURES");
    snprintf(p, sizeof p, "%s/tiny-ml/config.json", fixdir);
    if (!(f = fopen(p, "rb"))) {
        printf("SKIP: %s is missing (python3 tests/gen_whisper_fixtures.py makes the fixture models)\n", p);
    } else {
        fclose(f);
        run_case("tiny-ml", 1);
#if !defined(__SANITIZE_ADDRESS__)
        run_case("turbo-128", 0); /* the same loop on the other fixture: left out under ASan, whose stage it would double */
#endif
        run_features();
    }
    gk_ctx_destroy(dut);
    return gkt_done("test_whisper_long");
}
