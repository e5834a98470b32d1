/* Whisper decoding rules on the host (src/asr/whisper_rules.*): the special
   token layouts, the prompt, the logit filters, greedy / sampling / beam
   search, the fallback checks, segments, median filter, DTW, word times and
   the writers; hand-computed cases from whisper's rules, invariants on fresh
   random inputs, and bad arguments named in the errors. The tokenizer is a
   small byte-level BPE built here with Whisper's special tokens. */
#define GPUKIT_IMPLEMENTATION
#include "gpukit.h"
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"
#include "gkt.h"
#include "gkt_whisper_tok.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- a byte-level tokenizer: id b is byte b, four merges, then Whisper's specials ---- */
#define T_EOT 300
#define T_SOT 301
#define T_TRANSLATE 401
#define T_TRANSCRIBE 402
#define T_SOT_LM 403
#define T_SOT_PREV 404
#define T_NOSPEECH 405
#define T_NOTS 406
#define T_TB 407
#define T_VOCAB (T_TB + 1501)

static gk_tokenizer *make_tok(void) {
    gk_buf js = {NULL, 0, 0};
    gk_tokenizer *tok = NULL;
    gkt_wtok_begin(&js);
    gk__u_buf_puts(&js, ",\"\xC4\xA0-\":256,\"\xC4\xA0'\":257,\"\xC4\xA0\xC3\xA2\":258,\"((\":259");
    gkt_wtok_end(&js, "\"\xC4\xA0 -\",\"\xC4\xA0 '\",\"\xC4\xA0 \xC3\xA2\",\"( (\"", T_EOT, "<|nocaptions|>", 1501);
    if (gk_tokenizer_load_mem(js.data, js.len, &tok) != GK_OK) printf("tokenizer: %s\n", gk_last_error(NULL));
    gk_buf_free(&js);
    return tok;
}

static int ids_eq(const gk_ids *v, const int32_t *want, size_t n) {
    size_t i;
    if (v->len != n) return 0;
    for (i = 0; i < n; i++)
        if (v->data[i] != want[i]) return 0;
    return 1;
}
static float *row_new(int64_t V, float v) {
    float *r = (float *)malloc((size_t)V * sizeof(float));
    int64_t i;
    for (i = 0; i < V; i++) r[i] = v;
    return r;
}

/* ---- 1. languages and layouts ---- */
static int32_t v3_lookup(const char *name, void *user) { /* large-v3's layout, by name */
    static const char *const sp[] = {"<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>", "<|nospeech|>", "<|notimestamps|>", "<|0.00|>"};
    int i;
    char nm[16];
    (void)user;
    if (!strcmp(name, "<|endoftext|>")) return 50257;
    if (!strcmp(name, "<|startoftranscript|>")) return 50258;
    if (!strcmp(name, "\xC4\xA0")) return 220;
    for (i = 0; i < 7; i++)
        if (!strcmp(name, sp[i])) return 50359 + i;
    for (i = 0; i < 100; i++) {
        snprintf(nm, sizeof nm, "<|%s|>", gk_whisper_lang_code(i));
        if (!strcmp(name, nm)) return 50259 + i;
    }
    return -1;
}
static int32_t old_lookup(const char *name, void *user) { /* no <|startofprev|> when user is set; no timestamps listed */
    if (user && !strcmp(name, "<|startofprev|>")) return -1;
    if (!strcmp(name, "<|0.00|>") || !strcmp(name, "<|nospeech|>")) return -1;
    if (!strcmp(name, "<|nocaptions|>")) return 50362;
    return v3_lookup(name, NULL) >= 50359 ? v3_lookup(name, NULL) - 1 : v3_lookup(name, NULL) == 50358 ? -1 : v3_lookup(name, NULL);
}

static void test_layout(gk_tokenizer *tok) {
    gk_whisper_tokens t, u;
    gk_whisper_tokens_desc d;
    int32_t id;
    int i;
    GKT_CHECK(gk_whisper_lang_index("en") == 0 && gk_whisper_lang_index("zh") == 1 && gk_whisper_lang_index("de") == 2, "first codes");
    GKT_CHECK(gk_whisper_lang_index("German") == 2 && gk_whisper_lang_index("CASTILIAN") == 3 && gk_whisper_lang_index("mandarin") == 1, "names and aliases");
    GKT_CHECK(gk_whisper_lang_index("su") == 98 && gk_whisper_lang_index("yue") == 99 && gk_whisper_lang_index("haitian creole") == 80, "last codes");
    GKT_CHECK(gk_whisper_lang_index("klingon") == -1 && gk_whisper_lang_index(NULL) == -1 && gk_whisper_lang_code(100) == NULL, "unknown");
    GKT_CHECK(!strcmp(gk_whisper_lang_name(7), "japanese") && !strcmp(gk_whisper_lang_code(29), "no"), "table");
    /* from the size */
    GKT_OK(NULL, gk_whisper_tokens_from_vocab(51864, &t));
    GKT_CHECK(!t.multilingual && t.eot == 50256 && t.sot == 50257 && t.translate == 50357 && t.transcribe == 50358 && t.sot_lm == 50359 &&
              t.sot_prev == 50360 && t.no_speech == 50361 && t.no_timestamps == 50362 && t.timestamp_begin == 50363 && t.lang[0] == 50258,
              ".en layout: eot %d tb %d", t.eot, t.timestamp_begin);
    GKT_OK(NULL, gk_whisper_tokens_from_vocab(51865, &t));
    GKT_CHECK(t.multilingual && t.n_langs == 99 && t.eot == 50257 && t.sot == 50258 && t.lang[0] == 50259 && t.lang[98] == 50357 && t.lang[99] == -1 &&
              t.translate == 50358 && t.transcribe == 50359 && t.sot_lm == 50360 && t.sot_prev == 50361 && t.no_speech == 50362 &&
              t.no_timestamps == 50363 && t.timestamp_begin == 50364 && t.space == 220, "multilingual layout");
    GKT_OK(NULL, gk_whisper_tokens_from_vocab(51866, &t));
    GKT_CHECK(t.n_langs == 100 && t.lang[99] == 50358 && t.translate == 50359 && t.no_timestamps == 50364 && t.timestamp_begin == 50365, "v3 layout");
    GKT_FAILS(NULL, gk_whisper_tokens_from_vocab(50000, &t), GK_ERR_UNSUPPORTED, "vocab = 50000");
    /* by name: the same as by size */
    memset(&d, 0, sizeof d);
    d.vocab = 51866;
    GKT_OK(NULL, gk_whisper_tokens_from_lookup(&d, v3_lookup, NULL, &u));
    gk_whisper_tokens_from_vocab(51866, &t);
    GKT_CHECK(!memcmp(&t, &u, sizeof t), "lookup == size layout for large-v3");
    GKT_CHECK(!strcmp(gk_whisper_lang_of(&u, 50358), "yue") && gk_whisper_lang_of(&u, 50257) == NULL, "lang_of");
    /* an older tokenizer: <|nocaptions|>, no timestamp tokens listed */
    d.vocab = 51865;
    GKT_OK(NULL, gk_whisper_tokens_from_lookup(&d, old_lookup, NULL, &u));
    gk_whisper_tokens_from_vocab(51865, &t);
    GKT_CHECK(u.no_speech == 50362 && u.timestamp_begin == 50364 && u.n_langs == 99 && !memcmp(&t, &u, sizeof t), "old names: no_speech %d tb %d", u.no_speech,
              u.timestamp_begin);
    GKT_FAILS(NULL, gk_whisper_tokens_from_lookup(&d, old_lookup, (void *)1, &u), GK_ERR_NOT_FOUND, "<|startofprev|>");
    d.vocab = 50000;
    GKT_FAILS(NULL, gk_whisper_tokens_from_lookup(&d, v3_lookup, NULL, &u), GK_ERR_FORMAT, "outside the vocabulary of 50000");
    d.vocab = 51866;
    d.multilingual = 2;
    GKT_FAILS(NULL, gk_whisper_tokens_from_lookup(&d, v3_lookup, NULL, &u), GK_ERR_INVALID_ARGUMENT, "multilingual = 2");
    GKT_FAILS(NULL, gk_whisper_tokens_from_lookup(NULL, v3_lookup, NULL, &u), GK_ERR_INVALID_ARGUMENT, "vocab");
    GKT_FAILS(NULL, gk_whisper_tokens_from_lookup(&d, NULL, NULL, &u), GK_ERR_INVALID_ARGUMENT, "lookup is NULL");
    /* from the tokenizer built here */
    memset(&d, 0, sizeof d);
    d.multilingual = 1;
    GKT_OK(NULL, gk_whisper_tokens_from_tokenizer(tok, &d, &t));
    GKT_CHECK(t.vocab == T_VOCAB && t.multilingual && t.eot == T_EOT && t.sot == T_SOT && t.lang[0] == T_SOT + 1 && t.n_langs == 99 && t.translate == T_TRANSLATE &&
              t.transcribe == T_TRANSCRIBE && t.sot_lm == T_SOT_LM && t.sot_prev == T_SOT_PREV && t.no_speech == T_NOSPEECH && t.no_timestamps == T_NOTS &&
              t.timestamp_begin == T_TB && t.space == 32, "synthetic layout: vocab %lld space %d", (long long)t.vocab, t.space);
    d.multilingual = 0;
    GKT_OK(NULL, gk_whisper_tokens_from_tokenizer(tok, &d, &u));
    GKT_CHECK(!u.multilingual, "small vocab: English-only by whisper's rule");
    GKT_FAILS(NULL, gk_whisper_tokens_from_tokenizer(NULL, &d, &u), GK_ERR_INVALID_ARGUMENT, "tok is NULL");
    /* language ids */
    GKT_OK(NULL, gk_whisper_lang_id(&t, "de", &id));
    GKT_CHECK(id == T_SOT + 3, "de id %d", id);
    GKT_OK(NULL, gk_whisper_lang_id(&t, "French", &id));
    GKT_CHECK(id == T_SOT + 7, "french id %d", id);
    GKT_FAILS(NULL, gk_whisper_lang_id(&t, "klingon", &id), GK_ERR_NOT_FOUND, "unknown language 'klingon'");
    GKT_CHECK(id == -1, "id cleared");
    GKT_FAILS(NULL, gk_whisper_lang_id(&t, "cantonese", &id), GK_ERR_NOT_FOUND, "'cantonese' (yue) has no token");
    GKT_FAILS(NULL, gk_whisper_lang_id(&t, NULL, &id), GK_ERR_INVALID_ARGUMENT, "language is NULL");
    GKT_FAILS(NULL, gk_whisper_lang_id(NULL, "en", &id), GK_ERR_INVALID_ARGUMENT, "t is NULL");
    for (i = 0; i < 99; i++) GKT_CHECK(!strcmp(gk_whisper_lang_of(&t, T_SOT + 1 + i), gk_whisper_lang_code(i)), "lang_of %d", i);
}

/* ---- 2. the prompt ---- */
static void test_prompt(const gk_whisper_tokens *t) {
    gk_whisper_prompt_desc d;
    gk_whisper_tokens en;
    gk_ids out = {NULL, 0, 0};
    int32_t prev[300], pre[10];
    size_t si, sb, i;
    int ok;
    for (i = 0; i < 300; i++) prev[i] = (int32_t)(i % 250);
    for (i = 0; i < 10; i++) pre[i] = (int32_t)(100 + i);
    memset(&d, 0, sizeof d);
    GKT_OK(NULL, gk_whisper_prompt(t, &d, &out, &si, &sb));
    { int32_t w[] = {T_SOT, T_SOT + 1, T_TRANSCRIBE}; GKT_CHECK(ids_eq(&out, w, 3) && si == 0 && sb == 3, "default: sot en transcribe"); }
    d.language = "german";
    d.translate = 1;
    d.without_timestamps = 1;
    GKT_OK(NULL, gk_whisper_prompt(t, &d, &out, &si, &sb));
    { int32_t w[] = {T_SOT, T_SOT + 3, T_TRANSLATE, T_NOTS}; GKT_CHECK(ids_eq(&out, w, 4) && sb == 4, "de translate notimestamps"); }
    /* previous text: sot_prev + the last 223 tokens */
    d.prompt = prev;
    d.n_prompt = 300;
    d.without_timestamps = 0;
    GKT_OK(NULL, gk_whisper_prompt(t, &d, &out, &si, &sb));
    ok = out.len == 1 + 223 + 3 && out.data[0] == T_SOT_PREV && out.data[1] == prev[77] && out.data[223] == prev[299] && out.data[224] == T_SOT;
    GKT_CHECK(ok && si == 224 && sb == 227, "prompt cut to 223: len %zu si %zu", out.len, si);
    d.n_text_ctx = 20; /* n_text_ctx / 2 - 1 = 9 */
    GKT_OK(NULL, gk_whisper_prompt(t, &d, &out, &si, &sb));
    GKT_CHECK(out.len == 13 && out.data[1] == prev[291] && si == 10, "small context: the last 9");
    /* prefix: Python's [-0:] keeps everything at the default sample_len */
    d.n_prompt = 0;
    d.n_text_ctx = 0;
    d.prefix = pre;
    d.n_prefix = 10;
    GKT_OK(NULL, gk_whisper_prompt(t, &d, &out, &si, &sb));
    GKT_CHECK(out.len == 13 && out.data[3] == 100 && sb == 13, "prefix kept whole");
    d.sample_len = 220; /* 224 - 220 = 4 */
    GKT_OK(NULL, gk_whisper_prompt(t, &d, &out, &si, &sb));
    GKT_CHECK(out.len == 7 && out.data[3] == 106 && out.data[6] == 109, "prefix: the last 4");
    d.sample_len = 227; /* 224 - 227 = -3: Python drops the first 3 */
    GKT_OK(NULL, gk_whisper_prompt(t, &d, &out, &si, &sb));
    GKT_CHECK(out.len == 10 && out.data[3] == 103, "prefix: [3:]");
    /* English-only: just SOT */
    en = *t;
    en.multilingual = 0;
    memset(&d, 0, sizeof d);
    d.without_timestamps = 1;
    GKT_OK(NULL, gk_whisper_prompt(&en, &d, &out, NULL, &sb));
    { int32_t w[] = {T_SOT, T_NOTS}; GKT_CHECK(ids_eq(&out, w, 2) && sb == 2, ".en: sot notimestamps"); }
    d.language = "English";
    GKT_OK(NULL, gk_whisper_prompt(&en, &d, &out, NULL, NULL));
    d.language = "de";
    GKT_FAILS(NULL, gk_whisper_prompt(&en, &d, &out, NULL, NULL), GK_ERR_UNSUPPORTED, "language = 'de' but the vocabulary is English-only");
    d.language = NULL;
    d.translate = 1;
    GKT_FAILS(NULL, gk_whisper_prompt(&en, &d, &out, NULL, NULL), GK_ERR_UNSUPPORTED, "translate needs a multilingual model");
    memset(&d, 0, sizeof d);
    d.language = "xx";
    GKT_FAILS(NULL, gk_whisper_prompt(t, &d, &out, NULL, NULL), GK_ERR_NOT_FOUND, "gk_whisper_prompt_desc.language: unknown language 'xx'");
    d.language = NULL;
    d.n_prompt = 2;
    GKT_FAILS(NULL, gk_whisper_prompt(t, &d, &out, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_whisper_prompt_desc.prompt is NULL but its count is 2");
    d.prompt = prev;
    prev[1] = 99999;
    GKT_FAILS(NULL, gk_whisper_prompt(t, &d, &out, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_whisper_prompt_desc.prompt[1] = 99999");
    GKT_FAILS(NULL, gk_whisper_prompt(t, NULL, NULL, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "out is NULL");
    gk_ids_free(&out);
}

/* ---- 3. logit filters ---- */
static int is_ninf(float v) { return v < 0 && isinf(v); }
/* the timestamp rules on one row, restated: the structural rules first,
   then text closes when the open timestamps outweigh the best open text */
static void check_ts_rules(const gk_whisper_tokens *t, const int32_t *s, size_t n, int64_t maxi, const float *in, const float *x, int k) {
    int64_t V = t->vocab, tb = t->timestamp_begin, i, lastv = -1;
    int last = n >= 1 && s[n - 1] >= tb, pen = n < 2 || s[n - 2] >= tb, bad = 0, pr;
    double lse = -INFINITY, mx = -INFINITY, sum = 0;
    unsigned char *must = (unsigned char *)calloc((size_t)V, 1);
    for (i = (int64_t)n - 1; i >= 0; i--)
        if (s[i] >= tb) { lastv = s[i]; break; }
    for (i = 0; i < V; i++) {
        must[i] = i == t->no_timestamps || (i >= tb && last && pen) || (i < t->eot && last && !pen) ||
                  (i >= tb && lastv >= 0 && i < ((last && !pen) ? lastv : lastv + 1)) || (n == 0 && (i < tb || (maxi >= 0 && i > tb + maxi)));
        if (i >= tb && !must[i] && in[i] > lse) lse = in[i];
        if (i < tb && !must[i] && in[i] > mx) mx = in[i];
    }
    for (i = tb; i < V && lse > -INFINITY; i++)
        if (!must[i]) sum += exp(in[i] - lse);
    if (lse > -INFINITY) lse += log(sum);
    pr = lse > mx;
    for (i = 0; i < V; i++) {
        int closed = must[i] || (i < tb && pr);
        bad += closed ? !is_ninf(x[i]) : x[i] != in[i];
    }
    GKT_CHECK(bad == 0, "case %d: %d logits differ from the restated rules (n %zu, max_initial %lld)", k, bad, n, (long long)maxi);
    free(must);
}

static void test_filters(const gk_whisper_tokens *t, gk_tokenizer *tok) {
    int64_t V = t->vocab, tb = t->timestamp_begin, i;
    float *x = row_new(V, 0), *in = row_new(V, 0);
    gk_ids sl = {NULL, 0, 0};
    gk_whisper_filter_desc fd;
    int k;
    /* first position: timestamps up to max_initial_index only */
    GKT_OK(NULL, gk_whisper_timestamp_rules(t, NULL, 0, 50, x));
    {
        int ok = 1;
        for (i = 0; i < V; i++) ok &= (i >= tb && i <= tb + 50) ? x[i] == 0 : is_ninf(x[i]);
        GKT_CHECK(ok, "first token: <|0.00|>..<|1.00|> only");
    }
    /* after a lone timestamp: its partner (>= it) or eot */
    for (i = 0; i < V; i++) x[i] = 0;
    x[T_EOT] = 10; /* above the timestamps' mass */
    { int32_t s[] = {tb + 0, 65, 66, tb + 40}; GKT_OK(NULL, gk_whisper_timestamp_rules(t, s, 4, 50, x)); }
    GKT_CHECK(!is_ninf(x[T_EOT]) && is_ninf(x[65]) && is_ninf(x[tb + 39]) && !is_ninf(x[tb + 40]) && !is_ninf(x[tb + 1500]) && is_ninf(x[T_SOT]) == 0,
              "lone timestamp: text closed, eot and >= <|0.80|> open");
    /* after a pair: text (timestamps closed; the next must pass the last) */
    for (i = 0; i < V; i++) x[i] = 0;
    x[65] = 10; /* text dominates */
    { int32_t s[] = {tb + 0, 65, tb + 40, tb + 40}; GKT_OK(NULL, gk_whisper_timestamp_rules(t, s, 4, 50, x)); }
    GKT_CHECK(x[65] == 10 && is_ninf(x[tb + 41]) && is_ninf(x[tb + 1500]), "after a pair: timestamps closed");
    /* text after text: timestamps from last + 1 open */
    for (i = 0; i < V; i++) x[i] = 0;
    x[65] = 10;
    { int32_t s[] = {tb + 10, 65, 66}; GKT_OK(NULL, gk_whisper_timestamp_rules(t, s, 3, 50, x)); }
    GKT_CHECK(is_ninf(x[tb + 10]) && !is_ninf(x[tb + 11]) && x[65] == 10, "no going back, no empty segment");
    /* the probability rule: 1501 timestamps at 0 sum to log(1501) = 7.31 */
    for (i = 0; i < V; i++) x[i] = i < tb ? -INFINITY : 0;
    x[65] = 7.3f;
    { int32_t s[] = {65}; GKT_OK(NULL, gk_whisper_timestamp_rules(t, s, 1, 50, x)); }
    GKT_CHECK(is_ninf(x[65]) && x[tb] == 0, "timestamps 7.314 > text 7.3: text closed");
    for (i = 0; i < V; i++) x[i] = i < tb ? -INFINITY : 0;
    x[65] = 7.32f;
    { int32_t s[] = {65}; GKT_OK(NULL, gk_whisper_timestamp_rules(t, s, 1, 50, x)); }
    GKT_CHECK(x[65] == 7.32f, "text 7.32 > timestamps 7.314: text open");
    /* random sequences: the rules' invariants */
    for (k = 0; k < 200; k++) {
        int32_t s[12];
        size_t n = (size_t)(gkt_u64() % 12), j;
        int64_t maxi = (int64_t)(gkt_u64() % 3) == 0 ? -1 : (int64_t)(gkt_u64() % 100);
        for (j = 0; j < n; j++) s[j] = gkt_u64() % 2 ? (int32_t)(tb + (int64_t)(gkt_u64() % 1501)) : (int32_t)(gkt_u64() % 300);
        for (i = 0; i < V; i++) in[i] = x[i] = (float)gkt_uniform(-5, 5);
        if (k % 2 == 0) for (i = tb; i < V; i++) in[i] = x[i] = (float)gkt_uniform(-8, -2); /* sometimes text wins */
        GKT_OK(NULL, gk_whisper_timestamp_rules(t, s, n, maxi, x));
        check_ts_rules(t, s, n, maxi, in, x, k);
    }
    /* suppress_blank: the first position only */
    for (i = 0; i < V; i++) x[i] = 0;
    GKT_OK(NULL, gk_whisper_suppress_blank(t, 1, x));
    GKT_CHECK(x[32] == 0 && x[T_EOT] == 0, "blank: not after the first");
    GKT_OK(NULL, gk_whisper_suppress_blank(t, 0, x));
    GKT_CHECK(is_ninf(x[32]) && is_ninf(x[T_EOT]) && x[33] == 0, "blank: space and eot");
    /* suppress_tokens: -1 is the non-speech symbols, by encoding them */
    {
        int32_t m1 = -1, some[] = {5, 3, 5, T_EOT};
        int32_t want[] = {'"', '#', '(', ')', '*', '+', '/', ':', ';', '<', '=', '>', '@', '[', '\\', ']', '^', '_', '`', '{', '|', '}', '~',
                          226 /* the first byte of U+2669.. */, 256 /* " -" */, 257 /* " '" */, 258 /* " \xE2" */, 259 /* "((" */,
                          T_SOT, T_TRANSLATE, T_TRANSCRIBE, T_SOT_LM, T_SOT_PREV, T_NOSPEECH};
        qsort(want, sizeof want / sizeof want[0], sizeof(int32_t), gk__wh_cmp_i32);
        GKT_OK(NULL, gk_whisper_suppress_list(t, &m1, 1, tok, &sl));
        GKT_CHECK(ids_eq(&sl, want, sizeof want / sizeof want[0]), "non-speech tokens: %zu ids", sl.len);
        GKT_OK(NULL, gk_whisper_suppress_list(t, some, 4, NULL, &sl));
        { int32_t w2[] = {3, 5, T_EOT, T_SOT, T_TRANSLATE, T_TRANSCRIBE, T_SOT_LM, T_SOT_PREV, T_NOSPEECH}; GKT_CHECK(ids_eq(&sl, w2, 9), "explicit list + specials, sorted, unique"); }
        GKT_FAILS(NULL, gk_whisper_suppress_list(t, &m1, 1, NULL, &sl), GK_ERR_INVALID_ARGUMENT, "hold -1 (the non-speech symbols) but tok is NULL");
        some[1] = -7;
        GKT_FAILS(NULL, gk_whisper_suppress_list(t, some, 4, NULL, &sl), GK_ERR_INVALID_ARGUMENT, "ids[1] = -7");
    }
    /* gk_whisper_filter: blank, the list, the rules, in whisper's order */
    for (i = 0; i < V; i++) x[i] = 0;
    memset(&fd, 0, sizeof fd);
    fd.suppress = sl.data;
    fd.n_suppress = sl.len;
    fd.max_initial_timestamp = 0.5; /* index 25 */
    GKT_OK(NULL, gk_whisper_filter(t, &fd, NULL, 0, x));
    GKT_CHECK(!is_ninf(x[tb + 25]) && is_ninf(x[tb + 26]) && is_ninf(x[65]), "filter: first position, max initial 0.5 s");
    fd.without_timestamps = 1;
    for (i = 0; i < V; i++) x[i] = 0;
    GKT_OK(NULL, gk_whisper_filter(t, &fd, NULL, 0, x));
    GKT_CHECK(is_ninf(x[32]) && is_ninf(x[T_EOT]) && is_ninf(x[5]) && x[65] == 0 && x[tb + 100] == 0, "filter without timestamps: blank and list only");
    fd.time_precision = -1;
    GKT_FAILS(NULL, gk_whisper_filter(t, &fd, NULL, 0, x), GK_ERR_INVALID_ARGUMENT, "time_precision = -1");
    GKT_FAILS(NULL, gk_whisper_filter(t, NULL, NULL, 3, x), GK_ERR_INVALID_ARGUMENT, "sampled is NULL but n_sampled is 3");
    GKT_FAILS(NULL, gk_whisper_suppress(x, V, NULL, 2), GK_ERR_INVALID_ARGUMENT, "ids is NULL");
    { int32_t b = (int32_t)V; GKT_FAILS(NULL, gk_whisper_suppress(x, V, &b, 1), GK_ERR_INVALID_ARGUMENT, "ids[0] = 1908"); }
    /* log_softmax; language, no-speech and text probabilities */
    {
        float l[4] = {1, 2, 3, -INFINITY}, o[4];
        double sum = 0, p;
        int best;
        GKT_OK(NULL, gk_whisper_log_softmax(l, 4, o));
        for (k = 0; k < 4; k++) sum += exp(o[k]);
        GKT_CHECK(fabs(sum - 1) < 1e-6 && fabs(o[2] - (3 - log(exp(1) + exp(2) + exp(3)))) < 1e-6 && is_ninf(o[3]), "log_softmax");
        l[1] = NAN;
        GKT_FAILS(NULL, gk_whisper_log_softmax(l, 4, o), GK_ERR_FORMAT, "logits[1] is NaN");
        l[0] = l[1] = l[2] = -INFINITY;
        GKT_FAILS(NULL, gk_whisper_log_softmax(l, 4, o), GK_ERR_FORMAT, "every value of logits is -inf");
        for (i = 0; i < V; i++) x[i] = 0;
        x[T_SOT + 3] = 2; /* de */
        x[T_SOT + 5] = 2; /* ko: a tie, the lower index wins */
        x[65] = 100;      /* not a language: masked */
        {
            float probs[GK_WHISPER_MAX_LANGS];
            GKT_OK(NULL, gk_whisper_detect_language(t, x, probs, &best));
            p = 2 * exp(2) + 97;
            GKT_CHECK(best == 2 && fabs(probs[2] - exp(2) / p) < 1e-6 && fabs(probs[0] - 1 / p) < 1e-6 && probs[99] == 0, "language: de, p %g", (double)probs[2]);
        }
        x[T_NOSPEECH] = 3;
        GKT_OK(NULL, gk_whisper_no_speech_prob(t, x, &p));
        {
            double z = 0;
            for (i = 0; i < V; i++) z += exp(x[i] - 100.0);
            GKT_CHECK(fabs(p - exp(3 - 100.0) / z) < 1e-9 * (exp(3 - 100.0) / z), "no-speech prob %g", p);
        }
        GKT_OK(NULL, gk_whisper_text_prob(t, x, 65, &p));
        GKT_CHECK(p > 0.99 && p <= 1, "text prob over ids < eot: %g", p);
        GKT_FAILS(NULL, gk_whisper_text_prob(t, x, T_EOT, &p), GK_ERR_INVALID_ARGUMENT, "id = 300 is not a text token");
    }
    free(x);
    free(in);
    gk_ids_free(&sl);
}

/* ---- 4. search ---- */
static void test_greedy_hand(void) {
    gk_whisper_search_desc d;
    gk_whisper_search *s = NULL;
    gk_ids out = {NULL, 0, 0};
    float lp[2][4] = {{-0.1f, -2.0f, -3.0f, -4.0f}, {-1.0f, -1.0f, -3.0f, -0.5f}};
    int32_t tk[2], pa[2];
    double sum, avg;
    int done;
    memset(&d, 0, sizeof d);
    d.vocab = 4;
    d.eot = 3;
    d.best_of = 2; /* ignored at temperature 0 */
    GKT_OK(NULL, gk_whisper_search_create(&d, &s));
    GKT_CHECK(gk_whisper_search_rows(s) == 1, "greedy: one row");
    GKT_OK(NULL, gk_whisper_search_step(s, lp[0], tk, pa, &done));
    GKT_CHECK(tk[0] == 0 && pa[0] == 0 && !done, "greedy step 1");
    GKT_OK(NULL, gk_whisper_search_step(s, lp[1], tk, pa, &done));
    GKT_CHECK(tk[0] == 3 && done, "greedy step 2: eot");
    GKT_FAILS(NULL, gk_whisper_search_step(s, lp[1], tk, pa, &done), GK_ERR_STATE, "has ended");
    GKT_OK(NULL, gk_whisper_search_result(s, &out, &sum, &avg));
    GKT_CHECK(out.len == 1 && out.data[0] == 0 && fabs(sum - (-0.6)) < 1e-6 && fabs(avg - (-0.3)) < 1e-6, "greedy result: sum %g avg %g", sum, avg);
    gk_whisper_search_free(s);
    /* a tie: the lower id */
    d.best_of = 0;
    d.max_tokens = 1;
    GKT_OK(NULL, gk_whisper_search_create(&d, &s));
    {
        float l[4] = {-1, -0.5f, -0.5f, -2};
        GKT_OK(NULL, gk_whisper_search_step(s, l, tk, pa, &done));
        GKT_CHECK(tk[0] == 1 && done, "tie -> lower id; max_tokens ends it");
    }
    GKT_OK(NULL, gk_whisper_search_result(s, &out, &sum, &avg));
    GKT_CHECK(out.len == 1 && out.data[0] == 1 && sum == -0.5 && avg == -0.25, "unfinished row: all its tokens");
    gk_whisper_search_free(s);
    gk_ids_free(&out);
}

static void test_beam_hand(void) {
    gk_whisper_search_desc d;
    gk_whisper_search *s = NULL;
    gk_ids out = {NULL, 0, 0};
    float step0[2][4] = {{-0.5f, -1.0f, -2.0f, -1.5f}, {-0.5f, -1.0f, -2.0f, -1.5f}};
    float step1[2][4] = {{-2.0f, -0.1f, -3.0f, -0.3f}, {-0.2f, -2.0f, -2.0f, -0.05f}};
    int32_t tk[2], pa[2];
    const int32_t *h;
    size_t n;
    double sum, avg;
    int done;
    memset(&d, 0, sizeof d);
    d.vocab = 4;
    d.eot = 3;
    d.beam_size = 2;
    GKT_OK(NULL, gk_whisper_search_create(&d, &s));
    GKT_CHECK(gk_whisper_search_rows(s) == 2, "two beams");
    /* copies of one prompt: candidates 0, 1, eot once each, the last copy's parent */
    GKT_OK(NULL, gk_whisper_search_step(s, &step0[0][0], tk, pa, &done));
    GKT_CHECK(tk[0] == 0 && tk[1] == 1 && pa[0] == 1 && pa[1] == 1 && !done, "beam step 1: tokens %d %d parents %d %d", tk[0], tk[1], pa[0], pa[1]);
    /* A(0,1,-0.6) B(0,eot,-0.8) D(1,eot,-1.05) E(1,0,-1.2): A, E continue; B, D finish */
    GKT_OK(NULL, gk_whisper_search_step(s, &step1[0][0], tk, pa, &done));
    GKT_CHECK(tk[0] == 1 && pa[0] == 0 && tk[1] == 0 && pa[1] == 1 && done, "beam step 2: tokens %d %d parents %d %d done %d", tk[0], tk[1], pa[0], pa[1], done);
    h = gk_whisper_search_tokens(s, 1, &n);
    GKT_CHECK(n == 2 && h[0] == 1 && h[1] == 0, "row 1 history: 1 0");
    GKT_OK(NULL, gk_whisper_search_result(s, &out, &sum, &avg));
    GKT_CHECK(out.len == 1 && out.data[0] == 0 && fabs(sum + 0.8) < 1e-6 && fabs(avg + 0.4) < 1e-6, "beam result [0]: sum %g", sum);
    gk_whisper_search_free(s);
    /* patience 2: four finished wanted, not done yet */
    d.patience = 2;
    GKT_OK(NULL, gk_whisper_search_create(&d, &s));
    GKT_OK(NULL, gk_whisper_search_step(s, &step0[0][0], tk, pa, &done));
    GKT_OK(NULL, gk_whisper_search_step(s, &step1[0][0], tk, pa, &done));
    GKT_CHECK(!done, "patience 2: two finished of four");
    gk_whisper_search_free(s);
    /* stopped early: the rows by sum; length penalty ((5 + 1) / 6) ^ a = 1 */
    d.patience = 0;
    d.max_tokens = 1;
    d.has_length_penalty = 1;
    d.length_penalty = 0.5;
    GKT_OK(NULL, gk_whisper_search_create(&d, &s));
    GKT_OK(NULL, gk_whisper_search_step(s, &step0[0][0], tk, pa, &done));
    GKT_CHECK(done, "max_tokens 1");
    GKT_OK(NULL, gk_whisper_search_result(s, &out, &sum, &avg));
    GKT_CHECK(out.len == 1 && out.data[0] == 0 && sum == -0.5 && avg == -0.25, "unfinished beams ranked");
    gk_whisper_search_free(s);
    /* equal sums: the higher row is first, and first wins */
    d.has_length_penalty = 0;
    GKT_OK(NULL, gk_whisper_search_create(&d, &s));
    {
        float l[2][4] = {{-1, -1, -5, -5}, {-1, -1, -5, -5}};
        GKT_OK(NULL, gk_whisper_search_step(s, &l[0][0], tk, pa, &done));
        GKT_CHECK(tk[0] == 0 && tk[1] == 1, "tied candidates keep id order");
    }
    GKT_OK(NULL, gk_whisper_search_result(s, &out, &sum, &avg));
    GKT_CHECK(out.len == 1 && out.data[0] == 1, "tied rows: the higher row (%d)", out.len ? out.data[0] : -1);
    gk_whisper_search_free(s);
    /* ranking scores */
    GKT_CHECK(gk_whisper_rank_score(-6, 3, 0, 0) == -2 && fabs(gk_whisper_rank_score(-6, 7, 1, 1) - (-3)) < 1e-12 &&
              gk_whisper_rank_score(-6, 7, 1, 0) == -6 && isinf(gk_whisper_rank_score(-1, 0, 0, 0)), "rank scores");
    GKT_CHECK(gk_whisper_avg_logprob(-3, 2) == -1, "avg logprob");
    /* bad descs */
    memset(&d, 0, sizeof d);
    d.vocab = 4;
    d.eot = 3;
    d.beam_size = 4;
    GKT_FAILS(NULL, gk_whisper_search_create(&d, &s), GK_ERR_INVALID_ARGUMENT, "vocab = 4 must exceed beam_size 4");
    d.beam_size = 2;
    d.patience = 0.2; /* round(0.4) = 0 */
    GKT_FAILS(NULL, gk_whisper_search_create(&d, &s), GK_ERR_INVALID_ARGUMENT, "round(beam_size 2 * patience 0.2) = 0");
    d.patience = 0;
    d.has_length_penalty = 1;
    d.length_penalty = 1.5;
    GKT_FAILS(NULL, gk_whisper_search_create(&d, &s), GK_ERR_INVALID_ARGUMENT, "length_penalty = 1.5");
    d.has_length_penalty = 0;
    d.eot = 9;
    GKT_FAILS(NULL, gk_whisper_search_create(&d, &s), GK_ERR_INVALID_ARGUMENT, "eot = 9");
    d.eot = 3;
    d.temperature = -1;
    GKT_FAILS(NULL, gk_whisper_search_create(&d, &s), GK_ERR_INVALID_ARGUMENT, "temperature = -1");
    GKT_CHECK(s == NULL, "out NULL after failures");
    d.temperature = 0;
    GKT_OK(NULL, gk_whisper_search_create(&d, &s));
    {
        float l[2][4] = {{-1, NAN, -5, -5}, {-1, -1, -5, -5}};
        GKT_FAILS(NULL, gk_whisper_search_step(s, &l[0][0], tk, pa, &done), GK_ERR_FORMAT, "logprobs[0][1] is NaN");
        GKT_FAILS(NULL, gk_whisper_search_step(s, &l[0][0], NULL, pa, &done), GK_ERR_INVALID_ARGUMENT, "tokens is NULL");
    }
    gk_whisper_search_free(s);
    gk_ids_free(&out);
}

/* random beams: every new row extends a parent by one of its B+1 best tokens,
   sums add up, no row takes eot, and nothing left out beats what was kept */
static void test_beam_random(void) {
    int it;
    for (it = 0; it < 40; it++) {
        gk_whisper_search_desc d;
        gk_whisper_search *s = NULL;
        int B = 2 + (int)(gkt_u64() % 4), V = 12 + (int)(gkt_u64() % 30), step, r, q, bad = 0;
        float *lp = (float *)malloc((size_t)(B * V) * sizeof(float));
        int32_t *prev = (int32_t *)calloc((size_t)B * 64, sizeof(int32_t)), tk[8], pa[8];
        double sums[8] = {0}, nsum[8];
        size_t plen = 0;
        int done = 0;
        memset(&d, 0, sizeof d);
        d.vocab = V;
        d.eot = (int32_t)(gkt_u64() % (uint64_t)V);
        d.beam_size = B;
        d.patience = it % 3 ? 1.0 : 1.5;
        d.max_tokens = 30;
        GKT_OK(NULL, gk_whisper_search_create(&d, &s));
        for (step = 0; step < 30 && !done && s; step++) {
            for (r = 0; r < B * V; r++) lp[r] = (float)gkt_uniform(-6, 0);
            if (step == 0) for (r = 1; r < B; r++) memcpy(lp + r * V, lp, (size_t)V * sizeof(float)); /* copies of one prompt */
            GKT_OK(NULL, gk_whisper_search_step(s, lp, tk, pa, &done));
            for (r = 0; r < B; r++) {
                const float *row = lp + pa[r] * V;
                int better = 0;
                size_t n;
                const int32_t *h = gk_whisper_search_tokens(s, r, &n);
                for (q = 0; q < V; q++) better += row[q] > row[tk[r]] || (row[q] == row[tk[r]] && q < tk[r]);
                if (pa[r] < 0 || pa[r] >= B || tk[r] == d.eot || better > B) bad++;
                nsum[r] = sums[pa[r]] + row[tk[r]];
                if (n != plen + 1 || h[plen] != tk[r] || (plen && memcmp(h, prev + pa[r] * 64, plen * sizeof(int32_t)))) bad++;
            }
            /* the weakest kept score beats every candidate not kept (its row's B+1 best, not eot) */
            {
                double weakest = 1e300;
                for (r = 0; r < B; r++) weakest = fmin(weakest, nsum[r]);
                for (r = 0; r < (step == 0 ? 1 : B); r++)
                    for (q = 0; q < V; q++) {
                        int rank = 0, kept = 0, z;
                        for (z = 0; z < V; z++) rank += lp[r * V + z] > lp[r * V + q] || (lp[r * V + z] == lp[r * V + q] && z < q);
                        for (z = 0; z < B; z++) kept |= (tk[z] == q && (pa[z] == r || step == 0));
                        if (rank <= B && q != d.eot && !kept && sums[r] + lp[r * V + q] > weakest + 1e-9) bad++;
                    }
            }
            for (r = 0; r < B; r++) {
                size_t n;
                const int32_t *h = gk_whisper_search_tokens(s, r, &n);
                memcpy(prev + r * 64, h, n * sizeof(int32_t));
                sums[r] = nsum[r];
            }
            plen++;
        }
        GKT_CHECK(bad == 0, "random beams (B %d, V %d): %d violations", B, V, bad);
        {
            gk_ids out = {NULL, 0, 0};
            double sum, avg;
            size_t i;
            GKT_OK(NULL, gk_whisper_search_result(s, &out, &sum, &avg));
            for (i = 0; i < out.len; i++) bad += out.data[i] == d.eot;
            GKT_CHECK(bad == 0 && out.len <= 30 && avg == sum / (out.len + 1), "random beam result");
            gk_ids_free(&out);
        }
        gk_whisper_search_free(s);
        free(lp);
        free(prev);
    }
}

static void test_sampling(void) {
    gk_whisper_search_desc d;
    gk_whisper_search *s = NULL;
    float lp[3][4];
    int32_t tk[3], pa[3];
    int counts[4] = {0, 0, 0, 0}, i, r, done;
    double p[4] = {0.1, 0.2, 0.3, 0.4};
    memset(&d, 0, sizeof d);
    d.vocab = 4;
    d.eot = 3;
    d.temperature = 0.5f;
    d.best_of = 3;
    d.beam_size = 5; /* ignored at temperature > 0 */
    d.max_tokens = 65536;
    d.seed = gkt_u64();
    GKT_OK(NULL, gk_whisper_search_create(&d, &s));
    GKT_CHECK(gk_whisper_search_rows(s) == 3, "best_of rows");
    /* eot impossible; softmax(lp / 0.5) = p^2 normalised */
    for (r = 0; r < 3; r++) { lp[r][0] = (float)log(p[0]); lp[r][1] = (float)log(p[1]); lp[r][2] = (float)log(p[2]); lp[r][3] = -INFINITY; }
    for (i = 0; i < 10000; i++) {
        GKT_OK(NULL, gk_whisper_search_step(s, &lp[0][0], tk, pa, &done));
        for (r = 0; r < 3; r++) counts[tk[r]]++;
        if (i == 0) GKT_CHECK(pa[0] == 0 && pa[1] == 1 && pa[2] == 2, "sampling parents");
    }
    {
        double z = p[0] * p[0] + p[1] * p[1] + p[2] * p[2], e;
        int bad = 0;
        for (r = 0; r < 3; r++) {
            e = 30000 * p[r] * p[r] / z;
            bad += fabs(counts[r] - e) > 5 * sqrt(e) + 5;
        }
        GKT_CHECK(bad == 0 && counts[3] == 0, "sampling frequencies %d %d %d %d", counts[0], counts[1], counts[2], counts[3]);
    }
    gk_whisper_search_free(s);
    /* rows end at eot independently and repeat it */
    d.max_tokens = 10;
    GKT_OK(NULL, gk_whisper_search_create(&d, &s));
    {
        float a[3][4] = {{-INFINITY, -INFINITY, -INFINITY, 0}, {0, -INFINITY, -INFINITY, -INFINITY}, {0, -INFINITY, -INFINITY, -INFINITY}};
        float b[3][4] = {{0, -INFINITY, -INFINITY, -INFINITY}, {-INFINITY, -INFINITY, -INFINITY, 0}, {-INFINITY, -INFINITY, -INFINITY, -1}};
        gk_ids out = {NULL, 0, 0};
        double sum, avg;
        GKT_OK(NULL, gk_whisper_search_step(s, &a[0][0], tk, pa, &done));
        GKT_OK(NULL, gk_whisper_search_step(s, &b[0][0], tk, pa, &done));
        GKT_CHECK(tk[0] == 3 && tk[1] == 3 && tk[2] == 3 && done, "ended rows repeat eot; all ended");
        GKT_OK(NULL, gk_whisper_search_result(s, &out, &sum, &avg));
        /* row 0: [] sum 0 -> -inf; row 1: [0] sum 0 -> 0; row 2: [0] sum -1 -> -1 */
        GKT_CHECK(out.len == 1 && out.data[0] == 0 && sum == 0, "best of the rows: row 1");
        gk_ids_free(&out);
    }
    gk_whisper_search_free(s);
}

/* ---- 5. quality checks ---- */
static void test_quality(void) {
    gk_whisper_thresholds th;
    double r;
    gk_status st = gk_whisper_compression_ratio("hello hello hello hello", 23, &r);
    if (st == GK_ERR_NOT_FOUND) printf("note: zlib is not installed here; compression ratio unchecked (%s)\n", gk_last_error(NULL));
    else {
        /* Python: len(b) / len(zlib.compress(b)) */
        GKT_CHECK(st == GK_OK && r == 23.0 / 16, "ratio 'hello' x4: %g", r);
        GKT_OK(NULL, gk_whisper_compression_ratio("", 0, &r));
        GKT_CHECK(r == 0, "empty text: 0 / 8");
        GKT_OK(NULL, gk_whisper_compression_ratio("The quick brown fox jumps over the lazy dog.", 44, &r));
        GKT_CHECK(r == 44.0 / 51, "pangram: %g", r);
        {
            char rep[401];
            int i;
            for (i = 0; i < 400; i++) rep[i] = "la "[i % 3];
            rep[400] = 0;
            GKT_OK(NULL, gk_whisper_compression_ratio(rep, 400, &r));
            GKT_CHECK(r > 2.4, "repetition compresses: %g", r);
        }
        GKT_FAILS(NULL, gk_whisper_compression_ratio(NULL, 3, &r), GK_ERR_INVALID_ARGUMENT, "text is NULL but len is 3");
    }
    GKT_FAILS(NULL, gk_whisper_compression_ratio("a", 1, NULL), GK_ERR_INVALID_ARGUMENT, "ratio is NULL");
    /* fallback and silence (defaults: 2.4, -1.0, 0.6) */
    GKT_CHECK(gk_whisper_needs_fallback(NULL, 2.5, -0.5, 0.1) == 1, "repetitive");
    GKT_CHECK(gk_whisper_needs_fallback(NULL, 2.0, -1.5, 0.1) == 1, "improbable");
    GKT_CHECK(gk_whisper_needs_fallback(NULL, 2.6, -1.5, 0.7) == 0, "silence: no fallback");
    GKT_CHECK(gk_whisper_needs_fallback(NULL, 2.4, -1.0, 0.9) == 0, "at the thresholds: fine");
    memset(&th, 0, sizeof th);
    th.compression_ratio = NAN;
    GKT_CHECK(gk_whisper_needs_fallback(&th, 9, -0.5, 0) == 0, "ratio check off");
    th.logprob = NAN;
    GKT_CHECK(gk_whisper_needs_fallback(&th, 9, -9, 0.9) == 0, "both off");
    GKT_CHECK(gk_whisper_is_no_speech(NULL, 0.7, -1.5) == 1 && gk_whisper_is_no_speech(NULL, 0.7, -1.0) == 1, "no speech, low logprob");
    GKT_CHECK(gk_whisper_is_no_speech(NULL, 0.7, -0.5) == 0 && gk_whisper_is_no_speech(NULL, 0.6, -2) == 0, "speech");
    GKT_CHECK(gk_whisper_is_no_speech(&th, 0.7, -0.5) == 1, "no logprob check: the no-speech probability alone");
    th.no_speech = NAN;
    GKT_CHECK(gk_whisper_is_no_speech(&th, 0.99, -9) == 0, "no-speech check off");
    GKT_CHECK(gk_whisper_temperature(NULL, 0) == 0.0 && gk_whisper_temperature(NULL, 1) == 0.2 && gk_whisper_temperature(NULL, 3) == 0.6000000000000001 &&
              gk_whisper_temperature(NULL, 5) == 1.0 && gk_whisper_temperature(NULL, 6) == -1, "temperatures 0 .. 1 by 0.2");
    th.temperature_increment = NAN;
    GKT_CHECK(gk_whisper_temperature(&th, 0) == 0 && gk_whisper_temperature(&th, 1) == -1, "one temperature");
}

/* ---- 6. segments ---- */
static void test_segments(const gk_whisper_tokens *t, gk_tokenizer *tok) {
    gk_whisper_segments segs;
    gk_whisper_window w;
    const int32_t tb = t->timestamp_begin;
    memset(&segs, 0, sizeof segs);
    memset(&w, 0, sizeof w);
    w.seek = 0;
    w.segment_size = 3000;
    w.avg_logprob = -0.25;
    w.no_speech_prob = NAN;
    {   /* two pairs... a single timestamp at the end */
        int32_t tk[] = {tb + 0, 32, 104, 105, tb + 50, tb + 50, 32, 121, 111, tb + 100};
        GKT_OK(NULL, gk_whisper_segments_add(t, tok, &w, tk, 10, &segs));
        GKT_CHECK(segs.len == 2 && w.first == 0 && w.single_timestamp_ending && w.next_seek == 3000, "two segments, single ending: len %zu next %lld", segs.len,
                  (long long)w.next_seek);
        if (segs.len == 2) {
            GKT_CHECK(segs.data[0].start == 0 && segs.data[0].end == 1.0 && !strcmp(segs.data[0].text, " hi") && segs.data[0].n_tokens == 5, "segment 0");
            GKT_CHECK(segs.data[1].start == 1.0 && segs.data[1].end == 2.0 && !strcmp(segs.data[1].text, " yo") && segs.data[1].id == 1 &&
                      segs.data[1].avg_logprob == -0.25, "segment 1");
        }
    }
    {   /* unfinished text after the last pair: left out, seek to the last timestamp */
        int32_t tk[] = {tb + 0, 32, 104, 105, tb + 50, tb + 50, 32, 121, 111, tb + 100, tb + 100, 32, 117, 110};
        w.seek = 1000;
        GKT_OK(NULL, gk_whisper_segments_add(t, tok, &w, tk, 14, &segs));
        GKT_CHECK(segs.len == 4 && w.first == 2 && !w.single_timestamp_ending && w.next_seek == 1200, "pairs: next seek %lld", (long long)w.next_seek);
        if (segs.len == 4)
            GKT_CHECK(segs.data[2].start == 10.0 && segs.data[3].start == 11.0 && segs.data[3].end == 12.0 && segs.data[3].seek == 1000 && segs.data[3].id == 3,
                      "offset 10 s: %g %g", segs.data[3].start, segs.data[3].end);
    }
    gk_whisper_segments_free(&segs);
    {   /* no pair, one timestamp at the end: up to it */
        int32_t tk[] = {32, 104, 105, tb + 75};
        w.seek = 0;
        GKT_OK(NULL, gk_whisper_segments_add(t, tok, &w, tk, 4, &segs));
        GKT_CHECK(segs.len == 1 && segs.data[0].end == 1.5 && w.single_timestamp_ending && w.next_seek == 3000, "lone final timestamp");
    }
    {   /* no timestamps: the whole window (its audio) */
        int32_t tk[] = {32, 104, 105};
        w.segment_size = 1234;
        GKT_OK(NULL, gk_whisper_segments_add(t, tok, &w, tk, 3, &segs));
        GKT_CHECK(segs.len == 2 && segs.data[1].end == 12.34 && w.next_seek == 1234, "without timestamps: end %g", segs.data[1].end);
    }
    {   /* only <|0.00|>: the window's length */
        int32_t tk[] = {tb, 32, 104, 105};
        GKT_OK(NULL, gk_whisper_segments_add(t, tok, &w, tk, 4, &segs));
        GKT_CHECK(segs.len == 3 && segs.data[2].end == 12.34, "<|0.00|> only");
    }
    {   /* instantaneous and blank segments are cleared */
        int32_t tk[] = {tb + 20, tb + 20, 32, 104, 105, tb + 40, tb + 40, 32, tb + 60};
        w.segment_size = 3000;
        GKT_OK(NULL, gk_whisper_segments_add(t, tok, &w, tk, 9, &segs));
        GKT_CHECK(segs.len == 6 && segs.data[3].n_tokens == 0 && !strcmp(segs.data[3].text, "") && segs.data[3].start == 0.4 && segs.data[3].end == 0.4,
                  "instantaneous cleared");
        GKT_CHECK(segs.data[4].n_tokens == 5 && !strcmp(segs.data[4].text, " hi"), "kept");
        GKT_CHECK(segs.data[5].n_tokens == 0 && segs.data[5].text[0] == 0, "blank cleared");
    }
    /* random tokens: segments are consecutive slices, each cut after a pair */
    {
        int it, bad = 0;
        for (it = 0; it < 300; it++) {
            gk_whisper_segments sg;
            int32_t tk[40];
            size_t n = (size_t)(gkt_u64() % 40), i, pos = 0, j;
            memset(&sg, 0, sizeof sg);
            for (i = 0; i < n; i++) tk[i] = gkt_u64() % 3 ? (int32_t)(97 + gkt_u64() % 26) : (int32_t)(tb + (int32_t)(gkt_u64() % 1501));
            w.words = 1; /* keep every segment's tokens */
            w.seek = (int64_t)(gkt_u64() % 100000);
            if (gk_whisper_segments_add(t, tok, &w, tk, n, &sg) != GK_OK) { bad++; continue; }
            for (i = 0; i < sg.len; i++) {
                const gk_whisper_segment *g = &sg.data[i];
                if (g->n_tokens && memcmp(g->tokens, tk + pos, g->n_tokens * sizeof(int32_t))) bad++;
                pos += g->n_tokens;
                if (i + 1 < sg.len && !(g->tokens[g->n_tokens - 1] >= tb && tk[pos] >= tb)) bad++;
                for (j = 0; j < g->n_tokens; j++) bad += !(g->tokens[j] >= 0);
            }
            bad += pos > n || (w.single_timestamp_ending && pos != n) || w.next_seek < w.seek;
            gk_whisper_segments_free(&sg);
        }
        w.words = 0;
        GKT_CHECK(bad == 0, "random segments: %d violations", bad);
    }
    {
        int32_t bad[] = {32, 99999};
        w.segment_size = 0;
        GKT_FAILS(NULL, gk_whisper_segments_add(t, tok, &w, bad, 1, &segs), GK_ERR_INVALID_ARGUMENT, "segment_size = 0");
        w.segment_size = 100;
        GKT_FAILS(NULL, gk_whisper_segments_add(t, tok, &w, bad, 2, &segs), GK_ERR_INVALID_ARGUMENT, "tokens[1] = 99999");
        GKT_CHECK(segs.len == 6, "failures add nothing");
        /* no tokenizer: the same segments and times, the text empty, the tokens kept */
        {
            gk_whisper_segments a, b;
            int32_t one[] = { 32 };
            memset(&a, 0, sizeof a);
            memset(&b, 0, sizeof b);
            GKT_OK(NULL, gk_whisper_segments_add(t, tok, &w, one, 1, &a));
            GKT_OK(NULL, gk_whisper_segments_add(t, NULL, &w, one, 1, &b));
            GKT_CHECK(a.len == 1 && b.len == 1 && a.data[0].start == b.data[0].start && a.data[0].end == b.data[0].end &&
                          b.data[0].text && b.data[0].text[0] == 0 && b.data[0].n_tokens == 1 && b.data[0].tokens[0] == 32,
                      "tok NULL: %zu segments, text '%s'", b.len, b.len ? b.data[0].text : "");
            gk_whisper_segments_free(&a);
            gk_whisper_segments_free(&b);
        }
    }
    gk_whisper_segments_free(&segs);
}

/* ---- 7. median filter, DTW, attention matrix, words ---- */
static void test_dtw(void) {
    int32_t r[8], c[8];
    size_t n;
    {
        float x[] = {1, 5, 2, 8, 3};
        GKT_OK(NULL, gk_whisper_median_filter(x, 1, 5, 3));
        GKT_CHECK(x[0] == 5 && x[1] == 2 && x[2] == 5 && x[3] == 3 && x[4] == 8, "median 3 (reflect): %g %g %g %g %g", x[0], x[1], x[2], x[3], x[4]);
    }
    {
        float x[] = {1, 2, 3, 4, 5, 9, 9, 9, 9, 1};
        GKT_OK(NULL, gk_whisper_median_filter(x, 2, 5, 5));
        GKT_CHECK(x[0] == 2 && x[1] == 2 && x[2] == 3 && x[3] == 4 && x[4] == 4 && x[5] == 9 && x[9] == 9, "median 5, two rows");
    }
    {
        float x[] = {3, 1, 2};
        GKT_OK(NULL, gk_whisper_median_filter(x, 1, 3, 7));
        GKT_CHECK(x[0] == 3 && x[1] == 1 && x[2] == 2, "row not wider than width / 2: unchanged");
        GKT_FAILS(NULL, gk_whisper_median_filter(x, 1, 3, 4), GK_ERR_INVALID_ARGUMENT, "width = 4 must be odd");
    }
    {   /* costs 1 | 3 6 / 5 | 2 3: diagonal, then left */
        float x[] = {1, 2, 3, 4, 1, 1};
        GKT_OK(NULL, gk_whisper_dtw(x, 2, 3, r, c, &n));
        GKT_CHECK(n == 3 && r[0] == 0 && c[0] == 0 && r[1] == 1 && c[1] == 1 && r[2] == 1 && c[2] == 2, "dtw 2x3");
    }
    {   /* all ties: left wins in the trace, so the path goes down first */
        float x[] = {0, 0, 0, 0};
        GKT_OK(NULL, gk_whisper_dtw(x, 2, 2, r, c, &n));
        GKT_CHECK(n == 3 && r[1] == 1 && c[1] == 0, "dtw ties: (0,0) (1,0) (1,1)");
    }
    {
        float x[] = {0, INFINITY};
        GKT_FAILS(NULL, gk_whisper_dtw(x, 1, 2, r, c, &n), GK_ERR_FORMAT, "x[0][1]");
        GKT_FAILS(NULL, gk_whisper_dtw(x, 0, 2, r, c, &n), GK_ERR_INVALID_ARGUMENT, "n = 0");
    }
    {   /* random: a monotone path from corner to corner of minimum cost */
        int it, bad = 0;
        for (it = 0; it < 100; it++) {
            int64_t N = 1 + (int64_t)(gkt_u64() % 20), M = 1 + (int64_t)(gkt_u64() % 60), i, j;
            float *x = (float *)malloc((size_t)(N * M) * sizeof(float));
            double *D = (double *)malloc((size_t)(N * M) * sizeof(double)), pc = 0;
            int32_t *pr = (int32_t *)malloc((size_t)(N + M) * sizeof(int32_t)), *pcl = (int32_t *)malloc((size_t)(N + M) * sizeof(int32_t));
            size_t k;
            for (i = 0; i < N * M; i++) x[i] = (float)gkt_uniform(-2, 2);
            GKT_OK(NULL, gk_whisper_dtw(x, N, M, pr, pcl, &n));
            bad += n < (size_t)(N > M ? N : M) || n > (size_t)(N + M - 1) || pr[0] != 0 || pcl[0] != 0 || pr[n - 1] != N - 1 || pcl[n - 1] != M - 1;
            for (k = 1; k < n; k++) {
                int dr = pr[k] - pr[k - 1], dc = pcl[k] - pcl[k - 1];
                bad += !((dr == 0 || dr == 1) && (dc == 0 || dc == 1) && dr + dc > 0);
            }
            for (k = 0; k < n; k++) pc += x[pr[k] * M + pcl[k]];
            for (i = 0; i < N; i++)
                for (j = 0; j < M; j++) {
                    double b = i == 0 && j == 0 ? 0 : INFINITY;
                    if (i > 0) b = fmin(b, D[(i - 1) * M + j]);
                    if (j > 0) b = fmin(b, D[i * M + j - 1]);
                    if (i > 0 && j > 0) b = fmin(b, D[(i - 1) * M + j - 1]);
                    D[i * M + j] = b + x[i * M + j];
                }
            bad += fabs(pc - D[N * M - 1]) > 1e-4 * (1 + fabs(pc));
            free(x); free(D); free(pr); free(pcl);
        }
        GKT_CHECK(bad == 0, "random dtw: %d violations", bad);
    }
    {   /* attention matrix: standardised columns, heads averaged */
        float w[8] = {0.5f, 0.5f, 0.9f, 0.1f, 0.5f, 0.5f, 0.1f, 0.9f}, o[4];
        gk_whisper_align_desc ad;
        GKT_OK(NULL, gk_whisper_attention_matrix(w, 1, 2, 2, NULL, o));
        GKT_CHECK(fabs(o[0] + 1) < 1e-6 && fabs(o[1] - 1) < 1e-6 && fabs(o[2] - 1) < 1e-6 && fabs(o[3] + 1) < 1e-6, "one head: %g %g %g %g", o[0], o[1], o[2], o[3]);
        GKT_OK(NULL, gk_whisper_attention_matrix(w, 2, 2, 2, NULL, o));
        GKT_CHECK(fabs(o[0]) < 1e-6 && fabs(o[1]) < 1e-6, "opposite heads cancel");
        memset(&ad, 0, sizeof ad);
        ad.n_cols = 1; /* rescaled to 1 in both rows: a constant column */
        GKT_OK(NULL, gk_whisper_attention_matrix(w, 1, 2, 2, &ad, o));
        GKT_CHECK(o[0] == 0 && o[1] == 0, "constant column -> 0");
        ad.n_cols = 3;
        GKT_FAILS(NULL, gk_whisper_attention_matrix(w, 1, 2, 2, &ad, o), GK_ERR_INVALID_ARGUMENT, "n_cols = 3");
        w[3] = NAN;
        GKT_FAILS(NULL, gk_whisper_attention_matrix(w, 1, 2, 2, NULL, o), GK_ERR_FORMAT, "weights[0][1][1]");
    }
}

/* weights [1][rows][cols]: row text_row + k attends to frames [f[k], f[k+1]) */
static float *block_weights(int64_t rows, int64_t cols, size_t text_row, const int *f, int nf) {
    float *w = (float *)malloc((size_t)(rows * cols) * sizeof(float));
    int64_t r, c;
    for (r = 0; r < rows; r++)
        for (c = 0; c < cols; c++) {
            int k = (int)(r - (int64_t)text_row), in = k >= 0 && k < nf && c >= f[k] && (k + 1 >= nf || c < f[k + 1]);
            w[r * cols + c] = in ? 1.0f : 0.01f;
        }
    return w;
}

static void test_words(const gk_whisper_tokens *t, gk_tokenizer *tok) {
    gk_whisper_segments segs;
    gk_whisper_window w;
    gk_whisper_words_desc wd;
    const int32_t tb = t->timestamp_begin;
    double ls = 0;
    memset(&segs, 0, sizeof segs);
    memset(&w, 0, sizeof w);
    memset(&wd, 0, sizeof wd);
    w.segment_size = 3000;
    w.words = 1;
    {   /* " hi yo." : words at frames 0, 50, 100 -> 0 s, 1 s, 2 s; "." joins " yo" */
        int32_t tk[] = {tb, 32, 104, 105, 32, 121, 111, 46, tb + 100};
        float probs[7] = {0.9f, 0.8f, 0.7f, 0.6f, 0.5f, 0.4f, 0.3f};
        int f[8] = {0, 10, 20, 50, 60, 70, 100, 105};
        size_t S = 3; /* sot, language, task */
        int64_t rows = (int64_t)S + 7 + 2;
        float *wt = block_weights(rows, 1500, S, f, 8);
        GKT_OK(NULL, gk_whisper_segments_add(t, tok, &w, tk, 9, &segs));
        GKT_OK(NULL, gk_whisper_add_words(t, tok, &wd, wt, 1, rows, 1500, S, probs, &w, &segs, &ls));
        GKT_CHECK(segs.has_words && segs.len == 1 && segs.data[0].n_words == 2, "two words: %zu", segs.len ? segs.data[0].n_words : 0);
        if (segs.len == 1 && segs.data[0].n_words == 2) {
            const gk_whisper_word *x = segs.data[0].words;
            GKT_CHECK(!strcmp(x[0].word, " hi") && x[0].start == 0 && x[0].end == 1.0 && fabs(x[0].probability - 0.8) < 1e-6, "' hi' %g-%g p %g", x[0].start,
                      x[0].end, x[0].probability);
            GKT_CHECK(!strcmp(x[1].word, " yo.") && x[1].start == 1.0 && x[1].end == 2.0 && fabs(x[1].probability - 0.5) < 1e-6, "'%s' %g-%g p %g", x[1].word,
                      x[1].start, x[1].end, x[1].probability);
            GKT_CHECK(segs.data[0].start == 0 && segs.data[0].end == 2.0 && ls == 2.0 && w.next_seek == 3000, "segment times and last speech");
        }
        GKT_FAILS(NULL, gk_whisper_add_words(t, tok, &wd, wt, 1, rows - 1, 1500, S, probs, &w, &segs, &ls), GK_ERR_SHAPE, "rows = 11 but the sequence has");
        free(wt);
    }
    gk_whisper_segments_free(&segs);
    {   /* Chinese: words at characters; the last word's long end moves the segment's */
        int32_t tk[] = {tb, 0xE4, 0xBD, 0xA0, 0xE5, 0xA5, 0xBD, tb + 50};
        float probs[6] = {0.5f, 0.5f, 0.5f, 0.2f, 0.2f, 0.2f};
        int f[7] = {0, 10, 20, 30, 40, 50, 60};
        int64_t rows = 3 + 6 + 2;
        float *wt = block_weights(rows, 1500, 3, f, 7);
        wd.language = "zh";
        ls = 0;
        GKT_OK(NULL, gk_whisper_segments_add(t, tok, &w, tk, 8, &segs));
        GKT_OK(NULL, gk_whisper_add_words(t, tok, &wd, wt, 1, rows, 1500, 3, probs, &w, &segs, &ls));
        if (segs.len == 1 && segs.data[0].n_words == 2) {
            const gk_whisper_word *x = segs.data[0].words;
            GKT_CHECK(!strcmp(x[0].word, "\xE4\xBD\xA0") && x[0].start == 0 && x[0].end == 0.6 && !strcmp(x[1].word, "\xE5\xA5\xBD") && x[1].start == 0.6 &&
                      x[1].end == 1.2, "zh words %g-%g %g-%g", x[0].start, x[0].end, x[1].start, x[1].end);
            GKT_CHECK(segs.data[0].start == 0 && segs.data[0].end == 1.2 && fabs(x[1].probability - 0.2) < 1e-6, "segment end follows the word: %g",
                      segs.data[0].end);
        } else GKT_CHECK(0, "zh: %zu segments, %zu words", segs.len, segs.len ? segs.data[0].n_words : 0);
        /* the same tokens split at spaces: one word */
        gk_whisper_segments_free(&segs);
        wd.language = NULL;
        GKT_OK(NULL, gk_whisper_segments_add(t, tok, &w, tk, 8, &segs));
        GKT_OK(NULL, gk_whisper_add_words(t, tok, &wd, wt, 1, rows, 1500, 3, probs, &w, &segs, &ls));
        GKT_CHECK(segs.len == 1 && segs.data[0].n_words == 1, "no spaces: one word");
        free(wt);
    }
    gk_whisper_segments_free(&segs);
}

/* ---- 8. writers ---- */
static void seg_set(gk_whisper_segment *g, int64_t id, double a, double b, const char *text) {
    memset(g, 0, sizeof *g);
    g->id = id;
    g->start = a;
    g->end = b;
    g->text = (char *)malloc(strlen(text) + 1);
    strcpy(g->text, text);
    g->tokens = (int32_t *)malloc(2 * sizeof(int32_t));
    g->tokens[0] = 7;
    g->tokens[1] = 8;
    g->n_tokens = 2;
    g->avg_logprob = -0.25;
    g->compression_ratio = 1.5;
    g->no_speech_prob = NAN;
}
static void word_set(gk_whisper_word *x, const char *s, double a, double b, double p) {
    x->word = (char *)malloc(strlen(s) + 1);
    strcpy(x->word, s);
    x->start = a;
    x->end = b;
    x->probability = p;
}
static void expect(const gk_whisper_segments *s, gk_whisper_format f, const char *text, const char *lang, const char *want, const char *what) {
    gk_buf b = {NULL, 0, 0};
    GKT_OK(NULL, gk_whisper_write(s, f, text, lang, &b));
    GKT_CHECK(b.data && !strcmp(b.data, want), "%s:\n%s\nwant\n%s", what, b.data ? b.data : "(null)", want);
    gk_buf_free(&b);
}
static void num_is(double v, const char *want) {
    gk_buf b = {NULL, 0, 0};
    gk__wh_num(&b, v);
    GKT_CHECK(b.data && !strcmp(b.data, want), "repr(%.17g) = %s, want %s", v, b.data ? b.data : "", want);
    gk_buf_free(&b);
}
static void test_writers(void) {
    gk_whisper_segments s;
    memset(&s, 0, sizeof s);
    s.data = (gk_whisper_segment *)calloc(2, sizeof(gk_whisper_segment));
    s.cap = 2;
    s.len = 2;
    seg_set(&s.data[0], 0, 0, 1.0, " hi --> there");
    seg_set(&s.data[1], 1, 3725.5, 3727.0015, " \"yo\"\\\n\x01 \xC3\xA9\xFF ");
    expect(&s, GK_WHISPER_SRT, NULL, NULL,
           "1\n00:00:00,000 --> 00:00:01,000\nhi -> there\n\n2\n01:02:05,500 --> 01:02:07,002\n\"yo\"\\\n\x01 \xC3\xA9\xFF\n\n", "srt");
    expect(&s, GK_WHISPER_VTT, NULL, NULL, "WEBVTT\n\n00:00.000 --> 00:01.000\nhi -> there\n\n01:02:05.500 --> 01:02:07.002\n\"yo\"\\\n\x01 \xC3\xA9\xFF\n\n", "vtt");
    expect(&s, GK_WHISPER_TXT, NULL, NULL, "hi --> there\n\"yo\"\\\n\x01 \xC3\xA9\xFF\n", "txt");
    expect(&s, GK_WHISPER_TSV, NULL, NULL, "start\tend\ttext\n0\t1000\thi --> there\n3725500\t3727002\t\"yo\"\\\n\x01 \xC3\xA9\xFF\n", "tsv");
    expect(&s, GK_WHISPER_JSON, NULL, "en",
           "{\"text\": \" hi --> there \\\"yo\\\"\\\\\\n\\u0001 \xC3\xA9\xEF\xBF\xBD \", \"segments\": ["
           "{\"id\": 0, \"seek\": 0, \"start\": 0.0, \"end\": 1.0, \"text\": \" hi --> there\", \"tokens\": [7, 8], \"temperature\": 0.0, "
           "\"avg_logprob\": -0.25, \"compression_ratio\": 1.5, \"no_speech_prob\": null}, "
           "{\"id\": 1, \"seek\": 0, \"start\": 3725.5, \"end\": 3727.0015, \"text\": \" \\\"yo\\\"\\\\\\n\\u0001 \xC3\xA9\xEF\xBF\xBD \", \"tokens\": [7, 8], "
           "\"temperature\": 0.0, \"avg_logprob\": -0.25, \"compression_ratio\": 1.5, \"no_speech_prob\": null}], \"language\": \"en\"}",
           "json");
    /* with words: a cue per segment from its words */
    s.has_words = 1;
    s.data[0].words = (gk_whisper_word *)calloc(2, sizeof(gk_whisper_word));
    word_set(&s.data[0].words[0], " hi", 0.1, 0.5, 0.9);
    word_set(&s.data[0].words[1], " there.", 0.5, 0.92, 0.75);
    s.data[0].n_words = 2;
    expect(&s, GK_WHISPER_SRT, NULL, NULL, "1\n00:00:00,100 --> 00:00:00,920\nhi there.\n\n", "srt words (a segment without words has no cue)");
    expect(&s, GK_WHISPER_JSON, "x", NULL,
           "{\"text\": \"x\", \"segments\": [{\"id\": 0, \"seek\": 0, \"start\": 0.0, \"end\": 1.0, \"text\": \" hi --> there\", \"tokens\": [7, 8], "
           "\"temperature\": 0.0, \"avg_logprob\": -0.25, \"compression_ratio\": 1.5, \"no_speech_prob\": null, \"words\": [{\"word\": \" hi\", \"start\": 0.1, "
           "\"end\": 0.5, \"probability\": 0.9}, {\"word\": \" there.\", \"start\": 0.5, \"end\": 0.92, \"probability\": 0.75}]}, "
           "{\"id\": 1, \"seek\": 0, \"start\": 3725.5, \"end\": 3727.0015, \"text\": \" \\\"yo\\\"\\\\\\n\\u0001 \xC3\xA9\xEF\xBF\xBD \", \"tokens\": [7, 8], "
           "\"temperature\": 0.0, \"avg_logprob\": -0.25, \"compression_ratio\": 1.5, \"no_speech_prob\": null, \"words\": []}]}",
           "json words");
    {   /* to a FILE */
        FILE *fp = tmpfile();
        char buf[256];
        size_t n;
        if (fp) {
            GKT_OK(NULL, gk_whisper_write_file(&s, GK_WHISPER_VTT, NULL, NULL, fp));
            rewind(fp);
            n = fread(buf, 1, sizeof buf - 1, fp);
            buf[n] = 0;
            GKT_CHECK(!strcmp(buf, "WEBVTT\n\n00:00.100 --> 00:00.920\nhi there.\n\n"), "file: %s", buf);
            fclose(fp);
        }
        GKT_FAILS(NULL, gk_whisper_write_file(&s, GK_WHISPER_VTT, NULL, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "fp is NULL");
    }
    s.data[1].start = -0.5;
    {
        gk_buf b = {NULL, 0, 0};
        GKT_FAILS(NULL, gk_whisper_write(&s, GK_WHISPER_SRT, NULL, NULL, &b), GK_ERR_INVALID_ARGUMENT, "segment 1: start -0.5");
        GKT_FAILS(NULL, gk_whisper_write(&s, (gk_whisper_format)9, NULL, NULL, &b), GK_ERR_INVALID_ARGUMENT, "f = 9");
        GKT_CHECK(b.len == 0, "nothing written on failure");
        gk_buf_free(&b);
    }
    gk_whisper_segments_free(&s);
    /* Python's float repr */
    num_is(0.0, "0.0");
    num_is(-0.0, "-0.0");
    num_is(0.1, "0.1");
    num_is(100, "100.0");
    num_is(1e-05, "1e-05");
    num_is(0.0001, "0.0001");
    num_is(2.5e-07, "2.5e-07");
    num_is(1e16, "1e+16");
    num_is(1234567890123456.0, "1234567890123456.0");
    num_is(0.6000000000000001, "0.6000000000000001");
    num_is(-1.0 / 3, "-0.3333333333333333");
    num_is(1e22, "1e+22");
    num_is(INFINITY, "null");
}

/* ---- gk_whisper_filtered_lse and gk_whisper_search_step_lse against the plain path ---- */
static double lse_direct(const float *x, int64_t n) {
    double m = -INFINITY, s = 0;
    int64_t i;
    for (i = 0; i < n; i++)
        if (x[i] > m) m = x[i];
    for (i = 0; i < n; i++)
        if (x[i] != -INFINITY) s += exp((double)x[i] - m);
    return m + log(s);
}
static void test_lse_path(void) {
    enum { V = 3000 };
    float *raw = (float *)malloc(sizeof(float) * V * 3), *f = (float *)malloc(sizeof(float) * V * 3), *lp = (float *)malloc(sizeof(float) * V * 3);
    double out, want, l3[3];
    int k, i, mode;
    for (k = 0; k < 60; k++) {
        mode = k % 4;
        for (i = 0; i < V; i++) raw[i] = (float)gkt_uniform(-8, 8);
        if (mode == 3) raw[17] = 30.0f; /* one entry holds nearly all the mass */
        memcpy(f, raw, sizeof(float) * V);
        for (i = 0; i < V; i++) {
            int drop = mode == 0 ? gkt_uniform(0, 1) < 0.03 : mode == 1 ? gkt_uniform(0, 1) < 0.9 : mode == 2 ? i < V / 2 : i == 17;
            if (drop) f[i] = -INFINITY;
        }
        GKT_OK(NULL, gk_whisper_filtered_lse(raw, f, V, lse_direct(raw, V), &out));
        want = lse_direct(f, V);
        GKT_CHECK(fabs(out - want) <= 1e-9 * (1 + fabs(want)), "filtered_lse mode %d: %.12g, direct %.12g", mode, out, want);
    }
    /* errors */
    for (i = 0; i < V; i++) f[i] = -INFINITY;
    GKT_FAILS(NULL, gk_whisper_filtered_lse(raw, f, V, 1.0, &out), GK_ERR_FORMAT, "every value of filtered is -inf");
    f[5] = NAN;
    GKT_FAILS(NULL, gk_whisper_filtered_lse(raw, f, V, 1.0, &out), GK_ERR_FORMAT, "filtered[5] is NaN");
    GKT_FAILS(NULL, gk_whisper_filtered_lse(raw, raw, V, NAN, &out), GK_ERR_FORMAT, "raw_lse is nan");
    GKT_FAILS(NULL, gk_whisper_filtered_lse(NULL, raw, V, 1.0, &out), GK_ERR_INVALID_ARGUMENT, "raw is NULL");
    /* search steps: logits with lse give what log_softmax rows give (greedy, 3 beams, sampling) */
    for (mode = 0; mode < 3; mode++) {
        gk_whisper_search *a = NULL, *b = NULL;
        gk_whisper_search_desc d;
        int step, done_a = 0, done_b = 0, rows;
        memset(&d, 0, sizeof d);
        d.vocab = V;
        d.eot = 7;
        d.max_tokens = 12;
        d.temperature = mode == 2 ? 0.7f : 0.0f;
        d.beam_size = mode == 1 ? 3 : 0;
        d.best_of = mode == 2 ? 3 : 0;
        d.seed = 99;
        GKT_OK(NULL, gk_whisper_search_create(&d, &a));
        GKT_OK(NULL, gk_whisper_search_create(&d, &b));
        rows = gk_whisper_search_rows(a);
        for (step = 0; step < 12 && !done_a && !done_b; step++) {
            int32_t ta[3], pa[3], tb[3], pb[3];
            int r;
            for (r = 0; r < rows; r++) {
                for (i = 0; i < V; i++) raw[r * V + i] = (float)gkt_uniform(-6, 6) + (i == 7 ? (float)step * 0.4f - 3.0f : 0.0f);
                l3[r] = lse_direct(raw + r * V, V);
                GKT_OK(NULL, gk_whisper_log_softmax(raw + r * V, V, lp + r * V));
            }
            GKT_OK(NULL, gk_whisper_search_step(a, lp, ta, pa, &done_a));
            GKT_OK(NULL, gk_whisper_search_step_lse(b, raw, l3, tb, pb, &done_b));
            GKT_CHECK(!memcmp(ta, tb, sizeof(int32_t) * (size_t)rows) && !memcmp(pa, pb, sizeof(int32_t) * (size_t)rows) && done_a == done_b,
                      "search_step_lse mode %d step %d differs from search_step", mode, step);
        }
        {
            gk_ids x = {0, 0, 0}, y = {0, 0, 0};
            double sa, sb;
            GKT_OK(NULL, gk_whisper_search_result(a, &x, &sa, NULL));
            GKT_OK(NULL, gk_whisper_search_result(b, &y, &sb, NULL));
            GKT_CHECK(x.len == y.len && (!x.len || !memcmp(x.data, y.data, x.len * sizeof(int32_t))) && fabs(sa - sb) <= 1e-5 * (1 + fabs(sa)),
                      "search_step_lse mode %d: result differs (%zu / %zu tokens, sums %g / %g)", mode, x.len, y.len, sa, sb);
            gk_ids_free(&x);
            gk_ids_free(&y);
        }
        l3[0] = NAN;
        if (!done_b) GKT_FAILS(NULL, gk_whisper_search_step_lse(b, raw, l3, NULL, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "tokens is NULL");
        gk_whisper_search_free(a);
        gk_whisper_search_free(b);
    }
    free(raw);
    free(f);
    free(lp);
}

int main(void) {
    gk_tokenizer *tok;
    gk_whisper_tokens t;
    gk_whisper_tokens_desc d;
    gkt_seed();
    tok = make_tok();
    GKT_CHECK(tok != NULL, "test tokenizer");
    if (!tok) return gkt_done("test_whisper_rules");
    memset(&d, 0, sizeof d);
    d.multilingual = 1;
    gk_whisper_tokens_from_tokenizer(tok, &d, &t);
    test_layout(tok);
    test_prompt(&t);
    test_filters(&t, tok);
    test_greedy_hand();
    test_beam_hand();
    test_beam_random();
    test_sampling();
    test_lse_path();
    test_quality();
    test_segments(&t, tok);
    test_dtw();
    test_words(&t, tok);
    test_writers();
    gk_tokenizer_free(tok);
    return gkt_done("test_whisper_rules");
}
