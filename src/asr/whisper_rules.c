/* >>impl_whisper_rules: Whisper's decoding rules on the host */
#if !defined(_WIN32)
#ifdef __cplusplus
}
#endif
#include <dlfcn.h> /* zlib is opened at run time (gk_whisper_compression_ratio) */
#ifdef __cplusplus
extern "C" {
#endif
#endif

/* ---- languages: whisper/tokenizer.py's LANGUAGES, in its order ---- */
static const char *const gk__wh_langs[GK_WHISPER_MAX_LANGS][2] = {
    {"en", "english"}, {"zh", "chinese"}, {"de", "german"}, {"es", "spanish"}, {"ru", "russian"}, {"ko", "korean"}, {"fr", "french"},
    {"ja", "japanese"}, {"pt", "portuguese"}, {"tr", "turkish"}, {"pl", "polish"}, {"ca", "catalan"}, {"nl", "dutch"}, {"ar", "arabic"},
    {"sv", "swedish"}, {"it", "italian"}, {"id", "indonesian"}, {"hi", "hindi"}, {"fi", "finnish"}, {"vi", "vietnamese"}, {"he", "hebrew"},
    {"uk", "ukrainian"}, {"el", "greek"}, {"ms", "malay"}, {"cs", "czech"}, {"ro", "romanian"}, {"da", "danish"}, {"hu", "hungarian"},
    {"ta", "tamil"}, {"no", "norwegian"}, {"th", "thai"}, {"ur", "urdu"}, {"hr", "croatian"}, {"bg", "bulgarian"}, {"lt", "lithuanian"},
    {"la", "latin"}, {"mi", "maori"}, {"ml", "malayalam"}, {"cy", "welsh"}, {"sk", "slovak"}, {"te", "telugu"}, {"fa", "persian"},
    {"lv", "latvian"}, {"bn", "bengali"}, {"sr", "serbian"}, {"az", "azerbaijani"}, {"sl", "slovenian"}, {"kn", "kannada"}, {"et", "estonian"},
    {"mk", "macedonian"}, {"br", "breton"}, {"eu", "basque"}, {"is", "icelandic"}, {"hy", "armenian"}, {"ne", "nepali"}, {"mn", "mongolian"},
    {"bs", "bosnian"}, {"kk", "kazakh"}, {"sq", "albanian"}, {"sw", "swahili"}, {"gl", "galician"}, {"mr", "marathi"}, {"pa", "punjabi"},
    {"si", "sinhala"}, {"km", "khmer"}, {"sn", "shona"}, {"yo", "yoruba"}, {"so", "somali"}, {"af", "afrikaans"}, {"oc", "occitan"},
    {"ka", "georgian"}, {"be", "belarusian"}, {"tg", "tajik"}, {"sd", "sindhi"}, {"gu", "gujarati"}, {"am", "amharic"}, {"yi", "yiddish"},
    {"lo", "lao"}, {"uz", "uzbek"}, {"fo", "faroese"}, {"ht", "haitian creole"}, {"ps", "pashto"}, {"tk", "turkmen"}, {"nn", "nynorsk"},
    {"mt", "maltese"}, {"sa", "sanskrit"}, {"lb", "luxembourgish"}, {"my", "myanmar"}, {"bo", "tibetan"}, {"tl", "tagalog"}, {"mg", "malagasy"},
    {"as", "assamese"}, {"tt", "tatar"}, {"haw", "hawaiian"}, {"ln", "lingala"}, {"ha", "hausa"}, {"ba", "bashkir"}, {"jw", "javanese"},
    {"su", "sundanese"}, {"yue", "cantonese"}};
/* TO_LANGUAGE_CODE's aliases */
static const char *const gk__wh_alias[][2] = {{"burmese", "my"},     {"valencian", "ca"}, {"flemish", "nl"},   {"haitian", "ht"},
                                              {"letzeburgesch", "lb"}, {"pushto", "ps"},    {"panjabi", "pa"},   {"moldavian", "ro"},
                                              {"moldovan", "ro"},     {"sinhalese", "si"}, {"castilian", "es"}, {"mandarin", "zh"}};

static int gk__wh_ieq(const char *a, const char *b) {
    for (; *a && *b; a++, b++) {
        int x = (unsigned char)*a, y = (unsigned char)*b;
        if (x >= 'A' && x <= 'Z') x += 32;
        if (y >= 'A' && y <= 'Z') y += 32;
        if (x != y) return 0;
    }
    return *a == *b;
}
GKLLMDEF const char *gk_whisper_lang_code(int i) { return i >= 0 && i < GK_WHISPER_MAX_LANGS ? gk__wh_langs[i][0] : NULL; }
GKLLMDEF const char *gk_whisper_lang_name(int i) { return i >= 0 && i < GK_WHISPER_MAX_LANGS ? gk__wh_langs[i][1] : NULL; }
GKLLMDEF int gk_whisper_lang_index(const char *language) {
    int i, k;
    if (!language) return -1;
    for (k = 0; k < 2; k++)
        for (i = 0; i < GK_WHISPER_MAX_LANGS; i++)
            if (gk__wh_ieq(language, gk__wh_langs[i][k])) return i;
    for (i = 0; i < (int)(sizeof gk__wh_alias / sizeof gk__wh_alias[0]); i++)
        if (gk__wh_ieq(language, gk__wh_alias[i][0])) return gk_whisper_lang_index(gk__wh_alias[i][1]);
    return -1;
}

/* ---- special tokens ---- */
static void gk__wh_tokens_clear(gk_whisper_tokens *t) {
    int i;
    memset(t, 0, sizeof *t);
    t->eot = t->sot = t->translate = t->transcribe = t->sot_lm = t->sot_prev = t->no_speech = t->no_timestamps = t->timestamp_begin = t->space = -1;
    for (i = 0; i < GK_WHISPER_MAX_LANGS; i++) t->lang[i] = -1;
}

GKLLMDEF gk_status gk_whisper_tokens_from_vocab(int64_t vocab, gk_whisper_tokens *out) {
    int ml, nl, i;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_whisper_tokens_from_vocab: out is NULL");
    gk__wh_tokens_clear(out);
    if (vocab != 51864 && vocab != 51865 && vocab != 51866)
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "gk_whisper_tokens_from_vocab: vocab = %lld is not one of OpenAI's Whisper vocabularies (51864 .en, 51865, 51866 "
                         "large-v3); read the layout from the tokenizer (gk_whisper_tokens_from_tokenizer)", (long long)vocab);
    ml = vocab >= 51865;
    nl = (int)(vocab - 51765 - ml);
    out->vocab = vocab;
    out->multilingual = ml;
    out->n_langs = nl;
    out->eot = ml ? 50257 : 50256;
    out->sot = out->eot + 1;
    for (i = 0; i < nl; i++) out->lang[i] = out->sot + 1 + i;
    out->translate = out->sot + 1 + nl;
    out->transcribe = out->translate + 1;
    out->sot_lm = out->translate + 2;
    out->sot_prev = out->translate + 3;
    out->no_speech = out->translate + 4;
    out->no_timestamps = out->translate + 5;
    out->timestamp_begin = out->translate + 6;
    out->space = 220;
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_tokens_from_lookup(const gk_whisper_tokens_desc *d, gk_whisper_lookup_fn lookup, void *user, gk_whisper_tokens *out) {
    static const char *const req[7] = {"<|endoftext|>", "<|startoftranscript|>", "<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>", "<|notimestamps|>"};
    const char *W = "gk_whisper_tokens_from_lookup";
    int32_t *slot[7];
    int32_t id;
    int i;
    char name[16];
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    gk__wh_tokens_clear(out);
    if (!lookup) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: lookup is NULL", W);
    if (!d || d->vocab <= 0) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_tokens_desc.vocab = %lld must be > 0 (the model's vocab_size)", W, d ? (long long)d->vocab : 0LL);
    if (d->multilingual < -1 || d->multilingual > 1)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_tokens_desc.multilingual = %d must be -1, 0 or 1", W, d->multilingual);
    out->vocab = d->vocab;
    out->multilingual = d->multilingual ? d->multilingual > 0 : d->vocab >= 51865;
    slot[0] = &out->eot; slot[1] = &out->sot; slot[2] = &out->translate; slot[3] = &out->transcribe;
    slot[4] = &out->sot_lm; slot[5] = &out->sot_prev; slot[6] = &out->no_timestamps;
#define GK__WH_ID(nm, dst)                                                                                                                      \
    do {                                                                                                                                        \
        id = lookup((nm), user);                                                                                                                \
        if (id >= d->vocab || id < -1) {                                                                                                        \
            int32_t bad_ = id;                                                                                                                  \
            gk__wh_tokens_clear(out);                                                                                                           \
            return GK__U_ERR(GK_ERR_FORMAT, "%s: token %s has id %d, outside the vocabulary of %lld", W, (nm), (int)bad_, (long long)d->vocab); \
        }                                                                                                                                       \
        (dst) = id;                                                                                                                             \
    } while (0)
    for (i = 0; i < 7; i++) {
        GK__WH_ID(req[i], *slot[i]);
        if (*slot[i] < 0) {
            gk__wh_tokens_clear(out);
            return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: the vocabulary has no %s token: not a Whisper tokenizer", W, req[i]);
        }
    }
    GK__WH_ID("<|nospeech|>", out->no_speech);
    if (out->no_speech < 0) GK__WH_ID("<|nocaptions|>", out->no_speech);
    GK__WH_ID("<|0.00|>", out->timestamp_begin);
    if (out->timestamp_begin < 0) out->timestamp_begin = out->no_timestamps + 1;
    GK__WH_ID("\xC4\xA0", out->space);
    if (out->space < 0) out->space = 220 < d->vocab ? 220 : -1;
    for (i = 0; i < GK_WHISPER_MAX_LANGS; i++) {
        snprintf(name, sizeof name, "<|%s|>", gk__wh_langs[i][0]);
        GK__WH_ID(name, out->lang[i]);
        if (out->lang[i] >= 0) out->n_langs++;
    }
#undef GK__WH_ID
    if (out->timestamp_begin >= d->vocab) {
        int32_t tb = out->timestamp_begin;
        gk__wh_tokens_clear(out);
        return GK__U_ERR(GK_ERR_FORMAT, "%s: the timestamps start at id %d, beyond the vocabulary of %lld", W, (int)tb, (long long)d->vocab);
    }
    if (out->multilingual && out->n_langs == 0) {
        gk__wh_tokens_clear(out);
        return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: a multilingual vocabulary without language tokens (<|en|> ...)", W);
    }
    return GK_OK;
}

static int32_t gk__wh_tok_lookup(const char *name, void *user) { return gk_tokenizer_token_to_id((const gk_tokenizer *)user, name, strlen(name)); }
GKLLMDEF gk_status gk_whisper_tokens_from_tokenizer(const gk_tokenizer *tok, const gk_whisper_tokens_desc *d, gk_whisper_tokens *out) {
    gk_whisper_tokens_desc dd;
    if (out) gk__wh_tokens_clear(out);
    if (!tok) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_whisper_tokens_from_tokenizer: tok is NULL");
    if (d) dd = *d;
    else memset(&dd, 0, sizeof dd);
    if (dd.vocab == 0) dd.vocab = (int64_t)gk_tokenizer_vocab_size(tok);
    return gk_whisper_tokens_from_lookup(&dd, gk__wh_tok_lookup, (void *)(uintptr_t)tok, out);
}

static gk_status gk__wh_check_t(const char *W, const gk_whisper_tokens *t) {
    if (!t) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: t is NULL", W);
    if (t->vocab <= 0 || t->eot < 0 || t->timestamp_begin <= t->eot || t->timestamp_begin > t->vocab)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: t is not a filled gk_whisper_tokens (vocab %lld, eot %d, timestamp_begin %d)", W, (long long)t->vocab,
                         (int)t->eot, (int)t->timestamp_begin);
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_lang_id(const gk_whisper_tokens *t, const char *language, int32_t *id) {
    const char *W = "gk_whisper_lang_id";
    gk_status s;
    int i;
    if (id) *id = -1;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!id) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: id is NULL", W);
    if (!language) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: language is NULL", W);
    i = gk_whisper_lang_index(language);
    if (i < 0) return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: unknown language '%s' (a code such as \"de\" or a name such as \"german\")", W, language);
    if (t->lang[i] < 0) return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: language '%s' (%s) has no token in this vocabulary of %d languages", W, language, gk__wh_langs[i][0], t->n_langs);
    *id = t->lang[i];
    return GK_OK;
}
GKLLMDEF const char *gk_whisper_lang_of(const gk_whisper_tokens *t, int32_t id) {
    int i;
    if (!t || id < 0) return NULL;
    for (i = 0; i < GK_WHISPER_MAX_LANGS; i++)
        if (t->lang[i] == id) return gk__wh_langs[i][0];
    return NULL;
}

static gk_status gk__wh_check_ids(const char *W, const char *what, const int32_t *ids, size_t n, int64_t vocab) {
    size_t i;
    if (!ids && n) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL but its count is %llu", W, what, (unsigned long long)n);
    for (i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= vocab)
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s[%llu] = %d is not a token id (vocabulary of %lld)", W, what, (unsigned long long)i, (int)ids[i], (long long)vocab);
    return GK_OK;
}

/* Python's l[-k:]: the last k items; k == 0 keeps all, k < 0 drops the first -k */
static size_t gk__wh_py_tail_start(size_t n, int64_t k) {
    if (k == 0) return 0;
    if (k > 0) return (size_t)k >= n ? 0 : n - (size_t)k;
    return (size_t)(-k) >= n ? n : (size_t)(-k);
}

GKLLMDEF gk_status gk_whisper_prompt(const gk_whisper_tokens *t, const gk_whisper_prompt_desc *d, gk_ids *out, size_t *sot_index, size_t *sample_begin) {
    const char *W = "gk_whisper_prompt";
    gk_whisper_prompt_desc z;
    gk_status s = GK_OK;
    int64_t ctx, slen;
    size_t i, p0 = 0, f0 = 0;
    int32_t lang = -1;
    if (sot_index) *sot_index = 0;
    if (sample_begin) *sample_begin = 0;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (!d) { memset(&z, 0, sizeof z); d = &z; }
    ctx = d->n_text_ctx ? d->n_text_ctx : 448;
    slen = d->sample_len ? d->sample_len : ctx / 2;
    if (ctx < 4) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_prompt_desc.n_text_ctx = %lld must be >= 4 (0: 448)", W, (long long)d->n_text_ctx);
    if (slen < 1) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_prompt_desc.sample_len = %lld must be > 0 (0: n_text_ctx / 2)", W, (long long)d->sample_len);
    if (d->translate != 0 && d->translate != 1) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_prompt_desc.translate = %d must be 0 or 1", W, d->translate);
    if ((s = gk__wh_check_ids(W, "gk_whisper_prompt_desc.prompt", d->prompt, d->n_prompt, t->vocab)) != GK_OK) return s;
    if ((s = gk__wh_check_ids(W, "gk_whisper_prompt_desc.prefix", d->prefix, d->n_prefix, t->vocab)) != GK_OK) return s;
    if (t->multilingual) {
        if ((s = gk_whisper_lang_id(t, d->language ? d->language : "en", &lang)) != GK_OK) {
            char msg[512];
            gk__u_errcopy(msg, sizeof msg);
            return GK__U_ERR(s, "%s: gk_whisper_prompt_desc.language: %s", W, msg + strlen("gk_whisper_lang_id: "));
        }
    } else {
        if (d->language && gk_whisper_lang_index(d->language) != 0)
            return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: gk_whisper_prompt_desc.language = '%s' but the vocabulary is English-only (.en)", W, d->language);
        if (d->translate) return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: gk_whisper_prompt_desc.translate needs a multilingual model; this vocabulary is English-only (.en)", W);
    }
    out->len = 0;
    if (d->n_prompt) {
        p0 = gk__wh_py_tail_start(d->n_prompt, ctx / 2 - 1);
        s = gk_ids_push(out, t->sot_prev);
        for (i = p0; i < d->n_prompt && s == GK_OK; i++) s = gk_ids_push(out, d->prompt[i]);
    }
    if (sot_index) *sot_index = out->len;
    if (s == GK_OK) s = gk_ids_push(out, t->sot);
    if (t->multilingual && s == GK_OK) s = gk_ids_push(out, lang);
    if (t->multilingual && s == GK_OK) s = gk_ids_push(out, d->translate ? t->translate : t->transcribe);
    if (d->without_timestamps && s == GK_OK) s = gk_ids_push(out, t->no_timestamps);
    if (d->n_prefix) f0 = gk__wh_py_tail_start(d->n_prefix, ctx / 2 - slen);
    for (i = f0; i < d->n_prefix && s == GK_OK; i++) s = gk_ids_push(out, d->prefix[i]);
    if (s != GK_OK) { out->len = 0; return s; }
    if (sample_begin) *sample_begin = out->len;
    return GK_OK;
}

/* ---- numbers on a row ---- */
static int gk__wh_fin(float v) { return v - v == 0; } /* not NaN, not +-inf */
/* NaN or +inf anywhere, or no finite value: GK_ERR_FORMAT */
static gk_status gk__wh_row_check(const char *W, const char *what, const float *x, int64_t n) {
    int64_t i, fin = 0;
    for (i = 0; i < n; i++) {
        if (x[i] != x[i] || (x[i] > 0 && !gk__wh_fin(x[i]))) return GK__U_ERR(GK_ERR_FORMAT, "%s: %s[%lld] is %s", W, what, (long long)i, x[i] != x[i] ? "NaN" : "+inf");
        fin += gk__wh_fin(x[i]);
    }
    if (!fin) return GK__U_ERR(GK_ERR_FORMAT, "%s: every value of %s is -inf", W, what);
    return GK_OK;
}
static double gk__wh_max(const float *x, int64_t a, int64_t b) {
    double m = -INFINITY;
    for (; a < b; a++)
        if (x[a] > m) m = x[a];
    return m;
}
static double gk__wh_lse(const float *x, int64_t a, int64_t b) {
    double m = gk__wh_max(x, a, b), s = 0;
    if (m == -INFINITY) return m;
    for (; a < b; a++) s += exp((double)x[a] - m);
    return m + log(s);
}

GKLLMDEF gk_status gk_whisper_log_softmax(const float *logits, int64_t vocab, float *out) {
    const char *W = "gk_whisper_log_softmax";
    gk_status s;
    double l;
    int64_t i;
    if (!logits) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: logits is NULL", W);
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (vocab < 1) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: vocab = %lld must be > 0", W, (long long)vocab);
    if ((s = gk__wh_row_check(W, "logits", logits, vocab)) != GK_OK) return s;
    l = gk__wh_lse(logits, 0, vocab);
    for (i = 0; i < vocab; i++) out[i] = (float)((double)logits[i] - l);
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_detect_language(const gk_whisper_tokens *t, const float *logits, float *probs, int *best) {
    const char *W = "gk_whisper_detect_language";
    gk_status s;
    double m = -INFINITY, sum = 0;
    int i, b = -1;
    if (best) *best = -1;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!logits) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: logits is NULL", W);
    if (!t->n_langs) return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: the vocabulary has no language tokens", W);
    for (i = 0; i < GK_WHISPER_MAX_LANGS; i++) {
        float v;
        if (t->lang[i] < 0) continue;
        v = logits[t->lang[i]];
        if (v != v || (v > 0 && !gk__wh_fin(v))) return GK__U_ERR(GK_ERR_FORMAT, "%s: logits[%d] (<|%s|>) is %s", W, (int)t->lang[i], gk__wh_langs[i][0], v != v ? "NaN" : "+inf");
        if (b < 0 || v > m) { m = v; b = i; }
    }
    if (m == -INFINITY) return GK__U_ERR(GK_ERR_FORMAT, "%s: every language token's logit is -inf", W);
    for (i = 0; i < GK_WHISPER_MAX_LANGS; i++)
        if (t->lang[i] >= 0) sum += exp((double)logits[t->lang[i]] - m);
    if (probs)
        for (i = 0; i < GK_WHISPER_MAX_LANGS; i++) probs[i] = t->lang[i] >= 0 ? (float)(exp((double)logits[t->lang[i]] - m) / sum) : 0.0f;
    if (best) *best = b;
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_no_speech_prob(const gk_whisper_tokens *t, const float *logits, double *prob) {
    const char *W = "gk_whisper_no_speech_prob";
    gk_status s;
    if (prob) *prob = NAN;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!logits) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: logits is NULL", W);
    if (!prob) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: prob is NULL", W);
    if (t->no_speech < 0) return GK_OK;
    if ((s = gk__wh_row_check(W, "logits", logits, t->vocab)) != GK_OK) return s;
    *prob = exp((double)logits[t->no_speech] - gk__wh_lse(logits, 0, t->vocab));
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_text_prob(const gk_whisper_tokens *t, const float *logits, int32_t id, double *prob) {
    const char *W = "gk_whisper_text_prob";
    gk_status s;
    if (prob) *prob = 0;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!logits) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: logits is NULL", W);
    if (!prob) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: prob is NULL", W);
    if (id < 0 || id >= t->eot) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: id = %d is not a text token (0..%d)", W, (int)id, (int)t->eot - 1);
    if ((s = gk__wh_row_check(W, "logits (text tokens)", logits, t->eot)) != GK_OK) return s;
    *prob = exp((double)logits[id] - gk__wh_lse(logits, 0, t->eot));
    return GK_OK;
}

/* ---- logit filters ---- */
static void gk__wh_mask(float *x, int64_t a, int64_t b) {
    for (; a < b; a++) x[a] = -INFINITY;
}
GKLLMDEF gk_status gk_whisper_suppress(float *logits, int64_t vocab, const int32_t *ids, size_t n) {
    const char *W = "gk_whisper_suppress";
    gk_status s;
    size_t i;
    if (!logits) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: logits is NULL", W);
    if ((s = gk__wh_check_ids(W, "ids", ids, n, vocab)) != GK_OK) return s;
    for (i = 0; i < n; i++) logits[ids[i]] = -INFINITY;
    return GK_OK;
}

static int gk__wh_cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}
/* tokenizer.py's non_speech_tokens, by encoding the symbols with tok */
static gk_status gk__wh_non_speech(const char *W, const gk_tokenizer *tok, gk_ids *out) {
    static const char *const sym[] = {"\"", "#", "(", ")", "*", "+", "/", ":", ";", "<", "=", ">", "@", "[", "\\", "]", "^", "_", "`", "{", "|", "}", "~",
                                      "\xE3\x80\x8C", "\xE3\x80\x8D", "\xE3\x80\x8E", "\xE3\x80\x8F", "<<", ">>", "<<<", ">>>", "--", "---", "-(", "-[", "('",
                                      "(\"", "((", "))", "(((", ")))", "[[", "]]", "{{", "}}", "\xE2\x99\xAA\xE2\x99\xAA", "\xE2\x99\xAA\xE2\x99\xAA\xE2\x99\xAA",
                                      /* U+2669..U+266F (miscellaneous symbols): their first token even when split */
                                      "\xE2\x99\xA9", "\xE2\x99\xAA", "\xE2\x99\xAB", "\xE2\x99\xAC", "\xE2\x99\xAD", "\xE2\x99\xAE", "\xE2\x99\xAF"};
    const size_t nsym = sizeof sym / sizeof sym[0], nmisc = 7;
    gk_ids e = {NULL, 0, 0};
    gk_status s = GK_OK;
    char text[16];
    size_t i;
    int k;
    for (i = 0; i < 2 && s == GK_OK; i++) {
        e.len = 0;
        s = gk_tokenizer_encode(tok, i ? " '" : " -", 2, 0, &e);
        if (s == GK_OK && e.len) s = gk_ids_push(out, e.data[0]);
    }
    for (i = 0; i < nsym && s == GK_OK; i++)
        for (k = 0; k < 2 && s == GK_OK; k++) {
            snprintf(text, sizeof text, "%s%s", k ? " " : "", sym[i]);
            e.len = 0;
            s = gk_tokenizer_encode(tok, text, strlen(text), 0, &e);
            if (s == GK_OK && (e.len == 1 || (e.len > 1 && i >= nsym - nmisc))) s = gk_ids_push(out, e.data[0]);
        }
    gk_ids_free(&e);
    if (s != GK_OK && s != GK_ERR_OUT_OF_MEMORY) {
        gk__u_tl sv;
        gk__u_tl_save(&sv);
        return gk__u_tl_move(NULL, &sv, s, "gk_whisper_suppress_list: encoding the non-speech symbols: ");
    }
    (void)W;
    return s;
}

GKLLMDEF gk_status gk_whisper_suppress_list(const gk_whisper_tokens *t, const int32_t *ids, size_t n, const gk_tokenizer *tok, gk_ids *out) {
    const char *W = "gk_whisper_suppress_list";
    gk_status s;
    size_t i, k;
    int minus1 = 0;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (!ids && n) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: ids is NULL but n is %llu", W, (unsigned long long)n);
    for (i = 0; i < n; i++) {
        if (ids[i] == -1) minus1 = 1;
        else if (ids[i] < 0 || ids[i] >= t->vocab)
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: ids[%llu] = %d is neither a token id (vocabulary of %lld) nor -1 (the non-speech symbols)", W,
                             (unsigned long long)i, (int)ids[i], (long long)t->vocab);
    }
    if (minus1 && !tok) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: ids hold -1 (the non-speech symbols) but tok is NULL: the symbols are found by encoding them", W);
    out->len = 0;
    for (i = 0; i < n && s == GK_OK; i++)
        if (ids[i] >= 0) s = gk_ids_push(out, ids[i]);
    if (minus1 && s == GK_OK) s = gk__wh_non_speech(W, tok, out);
    if (s == GK_OK) s = gk_ids_push(out, t->transcribe);
    if (s == GK_OK) s = gk_ids_push(out, t->translate);
    if (s == GK_OK) s = gk_ids_push(out, t->sot);
    if (s == GK_OK) s = gk_ids_push(out, t->sot_prev);
    if (s == GK_OK) s = gk_ids_push(out, t->sot_lm);
    if (s == GK_OK && t->no_speech >= 0) s = gk_ids_push(out, t->no_speech);
    if (s != GK_OK) { out->len = 0; return s; }
    for (i = k = 0; i < out->len; i++) /* drop negatives (absent tokens) and ids the tokenizer gave beyond vocab */
        if (out->data[i] >= 0 && out->data[i] < t->vocab) out->data[k++] = out->data[i];
    out->len = k;
    qsort(out->data, out->len, sizeof(int32_t), gk__wh_cmp_i32);
    for (i = k = 0; i < out->len; i++)
        if (!k || out->data[i] != out->data[k - 1]) out->data[k++] = out->data[i];
    out->len = k;
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_suppress_blank(const gk_whisper_tokens *t, size_t n_sampled, float *logits) {
    const char *W = "gk_whisper_suppress_blank";
    gk_status s;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!logits) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: logits is NULL", W);
    if (n_sampled == 0) {
        if (t->space >= 0 && t->space < t->vocab) logits[t->space] = -INFINITY;
        logits[t->eot] = -INFINITY;
    }
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_timestamp_rules(const gk_whisper_tokens *t, const int32_t *sampled, size_t n, int64_t max_initial_index, float *logits) {
    const char *W = "gk_whisper_timestamp_rules";
    gk_status s;
    int64_t tb, V = 0, lastv = -1;
    int last_ts, pen_ts;
    size_t i;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!logits) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: logits is NULL", W);
    if (!sampled && n) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: sampled is NULL but n_sampled is %llu", W, (unsigned long long)n);
    tb = t->timestamp_begin;
    V = t->vocab;
    if (t->no_timestamps >= 0) logits[t->no_timestamps] = -INFINITY;
    last_ts = n >= 1 && sampled[n - 1] >= tb;
    pen_ts = n < 2 || sampled[n - 2] >= tb;
    if (last_ts) {
        if (pen_ts) gk__wh_mask(logits, tb, V); /* after a pair (or a first timestamp): text */
        else gk__wh_mask(logits, 0, t->eot);    /* after a lone one: its partner or eot */
    }
    for (i = n; i-- > 0;)
        if (sampled[i] >= tb) { lastv = sampled[i]; break; }
    if (lastv >= 0) { /* no going back; after a pair, no empty segment */
        int64_t lim = (last_ts && !pen_ts) ? lastv : lastv + 1;
        gk__wh_mask(logits, tb, lim < V ? lim : V);
    }
    if (n == 0) { /* the first token is a timestamp, at most max_initial_index */
        gk__wh_mask(logits, 0, tb);
        if (max_initial_index >= 0 && tb + max_initial_index + 1 < V) gk__wh_mask(logits, tb + max_initial_index + 1, V);
    }
    if (gk__wh_lse(logits, tb, V) > gk__wh_max(logits, 0, tb)) gk__wh_mask(logits, 0, tb);
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_filter(const gk_whisper_tokens *t, const gk_whisper_filter_desc *d, const int32_t *sampled, size_t n, float *logits) {
    const char *W = "gk_whisper_filter";
    gk_whisper_filter_desc z;
    gk_status s;
    double mit, prec;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!logits) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: logits is NULL", W);
    if (!sampled && n) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: sampled is NULL but n_sampled is %llu", W, (unsigned long long)n);
    if (!d) { memset(&z, 0, sizeof z); d = &z; }
    mit = d->max_initial_timestamp == 0 ? 1.0 : d->max_initial_timestamp;
    prec = d->time_precision == 0 ? 0.02 : d->time_precision;
    if (!(prec > 0 && prec < 1e9)) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_filter_desc.time_precision = %g must be > 0 (0: 0.02)", W, prec);
    if (mit != mit || mit > 1e9) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_filter_desc.max_initial_timestamp = %g is not finite", W, mit);
    if (!d->no_suppress_blank && n == 0) {
        if (t->space >= 0 && t->space < t->vocab) logits[t->space] = -INFINITY;
        logits[t->eot] = -INFINITY;
    }
    if ((s = gk__wh_check_ids(W, "gk_whisper_filter_desc.suppress", d->suppress, d->n_suppress, t->vocab)) != GK_OK) return s;
    gk_whisper_suppress(logits, t->vocab, d->suppress, d->n_suppress);
    if (!d->without_timestamps) return gk_whisper_timestamp_rules(t, sampled, n, mit < 0 ? -1 : (int64_t)nearbyint(mit / prec), logits);
    return GK_OK;
}

/* ---- greedy, sampling and beam search ---- */
typedef struct gk__wh_cand { double score; int32_t tok; int src, rep; } gk__wh_cand;
struct gk_whisper_search {
    int64_t vocab;
    int32_t eot;
    float temp;
    int beam;                      /* 0: greedy or sampling */
    int rows, max_cand, max_tokens, has_lp, n_fin, done;
    double lp;
    uint64_t rng;
    size_t len;                    /* steps taken: every row has len tokens */
    int32_t *hist, *hist2;         /* [rows][max_tokens] */
    double *sum, *sum2;
    unsigned char *ended;
    int32_t *fin;                  /* finished candidates [max_cand][max_tokens + 1], with eot */
    size_t *fin_len;
    double *fin_sum;
    gk__wh_cand *cand;             /* [rows * (beam + 1)] */
    int *rep, *topk_id;
    float *topk_v;
};

GKLLMDEF void gk_whisper_search_free(gk_whisper_search *s) {
    if (!s) return;
    gk__u_free(s->hist); gk__u_free(s->hist2); gk__u_free(s->sum); gk__u_free(s->sum2); gk__u_free(s->ended);
    gk__u_free(s->fin); gk__u_free(s->fin_len); gk__u_free(s->fin_sum); gk__u_free(s->cand); gk__u_free(s->rep);
    gk__u_free(s->topk_id); gk__u_free(s->topk_v);
    gk__u_free(s);
}

GKLLMDEF gk_status gk_whisper_search_create(const gk_whisper_search_desc *d, gk_whisper_search **out) {
    const char *W = "gk_whisper_search_create", *F = "gk_whisper_search_desc";
    gk_whisper_search *s;
    double pat;
    size_t R, T, C;
    if (out) *out = NULL;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (!d) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: d is NULL (vocab and eot are needed)", W);
    if (!(d->temperature >= 0 && d->temperature < 1e30f)) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s.temperature = %g must be >= 0 and finite", W, F, (double)d->temperature);
    if (d->beam_size < 0 || d->beam_size > 256) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s.beam_size = %d must be 0..256 (0: greedy)", W, F, d->beam_size);
    if (d->best_of < 0 || d->best_of > 256) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s.best_of = %d must be 0..256 (0: 1)", W, F, d->best_of);
    if (d->max_tokens < 0 || d->max_tokens > 65536) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s.max_tokens = %d must be 1..65536 (0: 224)", W, F, d->max_tokens);
    if (d->vocab < 2 || d->vocab > INT32_MAX) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s.vocab = %lld must be 2..2^31-1", W, F, (long long)d->vocab);
    if (d->eot < 0 || d->eot >= d->vocab) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s.eot = %d is not a token id (vocab %lld)", W, F, (int)d->eot, (long long)d->vocab);
    if (d->temperature == 0 && d->beam_size > 0 && d->vocab <= d->beam_size)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s.vocab = %lld must exceed beam_size %d", W, F, (long long)d->vocab, d->beam_size);
    pat = d->patience == 0 ? 1.0 : d->patience;
    if (!(pat > 0 && pat < 1e6)) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s.patience = %g must be > 0 (0: 1.0)", W, F, d->patience);
    if (d->has_length_penalty != 0 && d->has_length_penalty != 1) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s.has_length_penalty = %d must be 0 or 1", W, F, d->has_length_penalty);
    if (d->has_length_penalty && !(d->length_penalty >= 0 && d->length_penalty <= 1))
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s.length_penalty = %g must be in [0, 1] (alpha)", W, F, d->length_penalty);
    s = (gk_whisper_search *)gk__u_calloc(1, sizeof *s);
    if (!s) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", W);
    s->vocab = d->vocab;
    s->eot = d->eot;
    s->temp = d->temperature;
    s->beam = d->temperature == 0 ? d->beam_size : 0;
    s->rows = s->beam ? s->beam : d->temperature > 0 && d->best_of ? d->best_of : 1;
    s->max_tokens = d->max_tokens ? d->max_tokens : 224;
    s->has_lp = d->has_length_penalty;
    s->lp = d->length_penalty;
    s->rng = d->seed ^ 0x9E3779B97F4A7C15ull;
    if (s->beam) {
        s->max_cand = (int)nearbyint((double)s->beam * pat);
        if (s->max_cand < 1 || s->max_cand > 65536) {
            gk_whisper_search_free(s);
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: round(beam_size %d * patience %g) = %d finished candidates; it must be 1..65536", W, d->beam_size, pat,
                             (int)nearbyint((double)d->beam_size * pat));
        }
    }
    R = (size_t)s->rows;
    T = (size_t)s->max_tokens;
    C = (size_t)s->max_cand;
    s->hist = (int32_t *)gk__u_calloc(R * T, sizeof(int32_t));
    s->hist2 = (int32_t *)gk__u_calloc(R * T, sizeof(int32_t));
    s->sum = (double *)gk__u_calloc(R, sizeof(double));
    s->sum2 = (double *)gk__u_calloc(R, sizeof(double));
    s->ended = (unsigned char *)gk__u_calloc(R, 1);
    s->fin = (int32_t *)gk__u_calloc(C * (T + 1), sizeof(int32_t));
    s->fin_len = (size_t *)gk__u_calloc(C, sizeof(size_t));
    s->fin_sum = (double *)gk__u_calloc(C, sizeof(double));
    s->cand = (gk__wh_cand *)gk__u_calloc(R * (R + 1), sizeof(gk__wh_cand));
    s->rep = (int *)gk__u_calloc(R, sizeof(int));
    s->topk_id = (int *)gk__u_calloc(R + 1, sizeof(int));
    s->topk_v = (float *)gk__u_calloc(R + 1, sizeof(float));
    if (!s->hist || !s->hist2 || !s->sum || !s->sum2 || !s->ended || !s->fin || !s->fin_len || !s->fin_sum || !s->cand || !s->rep || !s->topk_id || !s->topk_v) {
        gk_whisper_search_free(s);
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory for %d rows of %d tokens", W, (int)R, (int)T);
    }
    *out = s;
    return GK_OK;
}

GKLLMDEF int gk_whisper_search_rows(const gk_whisper_search *s) { return s ? s->rows : 0; }
GKLLMDEF const int32_t *gk_whisper_search_tokens(const gk_whisper_search *s, int row, size_t *n) {
    if (n) *n = 0;
    if (!s || row < 0 || row >= s->rows) return NULL;
    if (n) *n = s->len;
    return s->hist + (size_t)row * (size_t)s->max_tokens;
}

static double gk__wh_uniform(gk_whisper_search *s) { /* xorshift64*, 53 bits */
    uint64_t x = s->rng;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    s->rng = x;
    return (double)((x * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

/* the k best of row x (descending; ties: the lower id first) */
static void gk__wh_topk(const float *x, int64_t n, int k, int *id, float *v) {
    int c = 0, j;
    int64_t i;
    for (i = 0; i < n; i++) {
        float y = x[i];
        if (c == k && !(y > v[k - 1])) continue;
        j = c < k ? c++ : k - 1;
        while (j > 0 && y > v[j - 1]) { v[j] = v[j - 1]; id[j] = id[j - 1]; j--; }
        v[j] = y;
        id[j] = (int)i;
    }
}

/* a step on log-probabilities logprobs[r][i] - off[r] (off NULL: 0, and each row checked) */
static gk_status gk__wh_search_step(const char *W, gk_whisper_search *s, const float *logprobs, const double *off, int32_t *tokens, int32_t *parents, int *done) {
    size_t T, r, R;
    int64_t V;
    gk_status st;
    char what[48];
    if (done) *done = 0;
    if (!s) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: s is NULL", W);
    if (!logprobs) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: logprobs is NULL", W);
    if (!tokens) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: tokens is NULL", W);
    if (!parents) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: parents is NULL", W);
    if (s->done) return GK__U_ERR(GK_ERR_STATE, "%s: the search has ended (after %llu tokens); take gk_whisper_search_result", W, (unsigned long long)s->len);
    T = (size_t)s->max_tokens;
    R = (size_t)s->rows;
    V = s->vocab;
    for (r = 0; r < R && !off; r++) {
        snprintf(what, sizeof what, "logprobs[%d]", (int)r);
        if (s->ended[r]) continue;
        if ((st = gk__wh_row_check(W, what, logprobs + r * (size_t)V, V)) != GK_OK) return st;
    }
    for (r = 0; r < R && off; r++)
        if (!s->ended[r] && !(off[r] - off[r] == 0)) return GK__U_ERR(GK_ERR_FORMAT, "%s: lse[%d] is %g (not finite)", W, (int)r, off[r]);
    if (!s->beam) {
        int all = 1;
        for (r = 0; r < R; r++) {
            const float *lp = logprobs + r * (size_t)V;
            int64_t i, tok = 0;
            if (s->ended[r]) tok = s->eot;
            else if (s->temp == 0) {
                for (i = 1; i < V; i++)
                    if (lp[i] > lp[tok]) tok = i;
            } else {
                double m = gk__wh_max(lp, 0, V), tot = 0, u, c = 0;
                for (i = 0; i < V; i++) tot += exp(((double)lp[i] - m) / s->temp);
                u = gk__wh_uniform(s) * tot;
                tok = -1;
                for (i = 0; i < V; i++) {
                    double w = exp(((double)lp[i] - m) / s->temp);
                    if (w > 0) tok = i; /* the last possible token, should rounding leave c <= u */
                    c += w;
                    if (w > 0 && c > u) break;
                }
            }
            if (!s->ended[r]) {
                s->sum[r] += (double)lp[tok] - (off ? off[r] : 0.0);
                if (tok == s->eot) s->ended[r] = 1;
            }
            all &= s->ended[r];
            s->hist[r * T + s->len] = (int32_t)tok;
            tokens[r] = (int32_t)tok;
            parents[r] = (int32_t)r;
        }
        s->len++;
        s->done = all || s->len >= T;
    } else {
        int B = s->beam, K = s->beam + 1, nc = 0, j, k, c, saved = 0;
        for (j = 0; j < B; j++) { /* rows that are copies of an earlier row propose under its name */
            s->rep[j] = j;
            for (k = 0; k < j; k++)
                if (s->rep[k] == k && !memcmp(s->hist + (size_t)k * T, s->hist + (size_t)j * T, s->len * sizeof(int32_t))) { s->rep[j] = k; break; }
        }
        for (j = 0; j < B; j++) {
            gk__wh_topk(logprobs + (size_t)j * (size_t)V, V, K, s->topk_id, s->topk_v);
            for (k = 0; k < K; k++) {
                double sc = s->sum[j] + ((double)s->topk_v[k] - (off ? off[j] : 0.0));
                for (c = 0; c < nc; c++)
                    if (s->cand[c].rep == s->rep[j] && s->cand[c].tok == s->topk_id[k]) break;
                if (c == nc) { s->cand[nc].rep = s->rep[j]; s->cand[nc].tok = s->topk_id[k]; nc++; }
                s->cand[c].score = sc;
                s->cand[c].src = j;
            }
        }
        for (c = 1; c < nc; c++) { /* stable: equal scores keep their order */
            gk__wh_cand x = s->cand[c];
            for (j = c; j > 0 && s->cand[j - 1].score < x.score; j--) s->cand[j] = s->cand[j - 1];
            s->cand[j] = x;
        }
        for (c = 0; c < nc && saved < B; c++) {
            const gk__wh_cand *x = &s->cand[c];
            const int32_t *h = s->hist + (size_t)x->src * T;
            if (x->tok == s->eot) {
                if (s->n_fin < s->max_cand) {
                    int32_t *f = s->fin + (size_t)s->n_fin * (T + 1);
                    if (s->len) memcpy(f, h, s->len * sizeof(int32_t));
                    f[s->len] = s->eot;
                    s->fin_len[s->n_fin] = s->len + 1;
                    s->fin_sum[s->n_fin++] = x->score;
                }
            } else {
                int32_t *h2 = s->hist2 + (size_t)saved * T;
                if (s->len) memcpy(h2, h, s->len * sizeof(int32_t));
                h2[s->len] = x->tok;
                s->sum2[saved] = x->score;
                tokens[saved] = x->tok;
                parents[saved] = x->src;
                saved++;
            }
        }
        if (saved < B) return GK__U_ERR(GK_ERR_INTERNAL, "%s: only %d of %d beams could continue", W, saved, B);
        { int32_t *th = s->hist; s->hist = s->hist2; s->hist2 = th; }
        { double *ts = s->sum; s->sum = s->sum2; s->sum2 = ts; }
        s->len++;
        s->done = s->n_fin >= s->max_cand || s->len >= T;
    }
    if (done) *done = s->done;
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_search_step(gk_whisper_search *s, const float *logprobs, int32_t *tokens, int32_t *parents, int *done) {
    return gk__wh_search_step("gk_whisper_search_step", s, logprobs, NULL, tokens, parents, done);
}
GKLLMDEF gk_status gk_whisper_search_step_lse(gk_whisper_search *s, const float *logits, const double *lse, int32_t *tokens, int32_t *parents, int *done) {
    if (!lse) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_whisper_search_step_lse: lse is NULL");
    return gk__wh_search_step("gk_whisper_search_step_lse", s, logits, lse, tokens, parents, done);
}

GKLLMDEF gk_status gk_whisper_filtered_lse(const float *raw, const float *filtered, int64_t vocab, double raw_lse, double *out) {
    const char *W = "gk_whisper_filtered_lse";
    int64_t i, n_sup = 0, n_ok = 0;
    double mass = 0, m = -INFINITY, sum = 0;
    if (!raw || !filtered || !out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", W, !raw ? "raw" : !filtered ? "filtered" : "out");
    if (vocab < 1) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: vocab = %lld must be > 0", W, (long long)vocab);
    if (!(raw_lse - raw_lse == 0)) return GK__U_ERR(GK_ERR_FORMAT, "%s: raw_lse is %g (the logits hold NaN or +inf, or are all -inf)", W, raw_lse);
    /* one pass: the removed entries' share of the mass (they are few, and together, as the filters remove them) */
    for (i = 0; i < vocab; i++) {
        float f = filtered[i];
        if (f == -INFINITY) {
            if (raw[i] != -INFINITY) { mass += exp((double)raw[i] - raw_lse); n_sup++; }
        } else if (f - f == 0) n_ok++;
        else return GK__U_ERR(GK_ERR_FORMAT, "%s: filtered[%lld] is %s", W, (long long)i, f != f ? "NaN" : "+inf");
    }
    if (!n_ok) return GK__U_ERR(GK_ERR_FORMAT, "%s: every value of filtered is -inf", W);
    if (mass < 0.5) { *out = raw_lse + log1p(-mass); return GK_OK; }
    /* most of the mass removed: over the entries left */
    for (i = 0; i < vocab; i++)
        if (filtered[i] > m) m = filtered[i];
    for (i = 0; i < vocab; i++)
        if (filtered[i] != -INFINITY) sum += exp((double)filtered[i] - m);
    (void)n_sup;
    *out = m + log(sum);
    return GK_OK;
}

GKLLMDEF double gk_whisper_rank_score(double sum_logprob, size_t length, int has_penalty, double penalty) {
    if (has_penalty) return sum_logprob / pow((5.0 + (double)length) / 6.0, penalty);
    return length ? sum_logprob / (double)length : -INFINITY;
}
GKLLMDEF double gk_whisper_avg_logprob(double sum_logprob, size_t n_tokens) { return sum_logprob / ((double)n_tokens + 1.0); }

GKLLMDEF gk_status gk_whisper_search_result(const gk_whisper_search *s, gk_ids *tokens, double *sum_logprob, double *avg_logprob) {
    const int32_t *best = NULL;
    size_t T, bl = 0, i, n;
    double bs = 0, bscore = 0;
    int r, first = 1;
    if (sum_logprob) *sum_logprob = 0;
    if (avg_logprob) *avg_logprob = 0;
    if (!s) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_whisper_search_result: s is NULL");
    T = (size_t)s->max_tokens;
#define GK__WH_CONSIDER(seq, len_, sum_)                                              \
    do {                                                                              \
        double sc_ = gk_whisper_rank_score((sum_), (len_), s->has_lp, s->lp);         \
        if (first || sc_ > bscore) { first = 0; bscore = sc_; best = (seq); bl = (len_); bs = (sum_); } \
    } while (0)
    if (!s->beam) {
        for (r = 0; r < s->rows; r++) {
            const int32_t *h = s->hist + (size_t)r * T;
            for (n = 0; n < s->len && h[n] != s->eot; n++) {}
            GK__WH_CONSIDER(h, n, s->sum[r]);
        }
    } else {
        int order[256], k, j, cnt = s->n_fin;
        for (k = 0; k < s->n_fin; k++) GK__WH_CONSIDER(s->fin + (size_t)k * (T + 1), s->fin_len[k] - 1, s->fin_sum[k]);
        for (k = 0; k < s->rows; k++) { /* by sum descending; ties: the higher row first */
            int x = k;
            for (j = k; j > 0 && (s->sum[order[j - 1]] < s->sum[x] || (s->sum[order[j - 1]] == s->sum[x] && order[j - 1] < x)); j--) order[j] = order[j - 1];
            order[j] = x;
        }
        for (k = 0; k < s->rows && cnt < s->beam; k++, cnt++) GK__WH_CONSIDER(s->hist + (size_t)order[k] * T, s->len, s->sum[order[k]]);
    }
#undef GK__WH_CONSIDER
    if (tokens) {
        tokens->len = 0;
        for (i = 0; i < bl; i++)
            if (gk_ids_push(tokens, best[i]) != GK_OK) { tokens->len = 0; return GK_ERR_OUT_OF_MEMORY; }
    }
    if (sum_logprob) *sum_logprob = bs;
    if (avg_logprob) *avg_logprob = gk_whisper_avg_logprob(bs, bl);
    return GK_OK;
}

/* ---- quality checks ---- */
typedef int (*gk__wh_compress2_fn)(unsigned char *, unsigned long *, const unsigned char *, unsigned long, int);
typedef unsigned long (*gk__wh_bound_fn)(unsigned long);
GKLLMDEF gk_status gk_whisper_compression_ratio(const char *text, size_t len, double *ratio) {
    static const char *const names[4] = {"libz.so.1", "libz.so", "libz.dylib", "zlib1.dll"};
    const char *W = "gk_whisper_compression_ratio";
    gk__wh_compress2_fn compress2_ = NULL;
    gk__wh_bound_fn bound_ = NULL;
    void *p1 = NULL, *p2 = NULL;
    unsigned long dlen;
    unsigned char *buf;
    gk_status st = GK_OK;
    int i, rc;
#if defined(_WIN32)
    HMODULE lib = NULL;
#else
    void *lib = NULL;
#endif
    if (ratio) *ratio = 0;
    if (!ratio) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: ratio is NULL", W);
    if (!text && len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: text is NULL but len is %llu", W, (unsigned long long)len);
    if ((unsigned long long)len > (unsigned long long)(ULONG_MAX / 2)) return GK__U_ERR(GK_ERR_LIMIT, "%s: len = %llu is beyond zlib's one-call limit", W, (unsigned long long)len);
    for (i = 0; i < 4 && !lib; i++) {
#if defined(_WIN32)
        lib = LoadLibraryA(names[i]);
        if (lib) {
            FARPROC a = GetProcAddress(lib, "compress2"), b = GetProcAddress(lib, "compressBound");
            memcpy(&p1, &a, sizeof p1);
            memcpy(&p2, &b, sizeof p2);
        }
#else
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (lib) { p1 = dlsym(lib, "compress2"); p2 = dlsym(lib, "compressBound"); }
#endif
    }
    if (!lib)
        return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: zlib is not installed (tried libz.so.1, libz.so, libz.dylib, zlib1.dll; it is loaded at run time, not linked): "
                         "install it (Debian / Ubuntu: apt-get install zlib1g)", W);
    memcpy(&compress2_, &p1, sizeof p1);
    memcpy(&bound_, &p2, sizeof p2);
    if (!compress2_ || !bound_) st = GK__U_ERR(GK_ERR_NOT_FOUND, "%s: the zlib library that loaded lacks compress2 or compressBound", W);
    else {
        dlen = bound_((unsigned long)len);
        buf = (unsigned char *)gk__u_malloc((size_t)dlen);
        if (!buf) st = GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", W);
        else {
            rc = compress2_(buf, &dlen, (const unsigned char *)(len ? text : ""), (unsigned long)len, 6);
            if (rc != 0 || dlen == 0) st = GK__U_ERR(GK_ERR_INTERNAL, "%s: zlib's compress2 failed (%d)", W, rc);
            else *ratio = (double)len / (double)dlen;
            gk__u_free(buf);
        }
    }
#if defined(_WIN32)
    FreeLibrary(lib);
#else
    dlclose(lib);
#endif
    return st;
}

static void gk__wh_th(const gk_whisper_thresholds *th, double *cr, double *lp, double *ns, double *inc, double *t0) {
    *cr = 2.4; *lp = -1.0; *ns = 0.6; *inc = 0.2; *t0 = 0;
    if (!th) return;
    if (th->compression_ratio != 0) *cr = th->compression_ratio;
    if (th->logprob != 0) *lp = th->logprob;
    if (th->no_speech != 0) *ns = th->no_speech;
    if (th->temperature_increment != 0) *inc = th->temperature_increment;
    *t0 = th->temperature_start;
}
GKLLMDEF int gk_whisper_needs_fallback(const gk_whisper_thresholds *th, double compression_ratio, double avg_logprob, double no_speech_prob) {
    double cr, lp, ns, inc, t0;
    int fb = 0;
    gk__wh_th(th, &cr, &lp, &ns, &inc, &t0);
    if (cr == cr && compression_ratio > cr) fb = 1;               /* too repetitive */
    if (lp == lp && avg_logprob < lp) fb = 1;                     /* too improbable */
    if (ns == ns && no_speech_prob > ns && lp == lp && avg_logprob < lp) fb = 0; /* silence */
    (void)inc; (void)t0;
    return fb;
}
GKLLMDEF int gk_whisper_is_no_speech(const gk_whisper_thresholds *th, double no_speech_prob, double avg_logprob) {
    double cr, lp, ns, inc, t0;
    gk__wh_th(th, &cr, &lp, &ns, &inc, &t0);
    (void)cr; (void)inc; (void)t0;
    if (ns != ns || !(no_speech_prob > ns)) return 0;
    return !(lp == lp && avg_logprob > lp);
}
GKLLMDEF double gk_whisper_temperature(const gk_whisper_thresholds *th, int attempt) {
    double cr, lp, ns, inc, t0, t;
    gk__wh_th(th, &cr, &lp, &ns, &inc, &t0);
    (void)cr; (void)lp; (void)ns;
    if (attempt < 0) return -1;
    if (inc != inc) return attempt == 0 ? t0 : -1;
    if (!(inc > 0)) return -1;
    t = t0 + (double)attempt * inc;
    return t < 1.0 + 1e-6 ? t : -1;
}

/* ---- text helpers ---- */
/* Python's str.isspace for one code point */
static int gk__wh_space(uint32_t c) {
    return (c >= 9 && c <= 13) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
           c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}
/* [*b, *e) of s[0..n) without the whitespace str.strip() removes */
static void gk__wh_strip(const char *s, size_t n, size_t *b, size_t *e) {
    size_t i = 0, j = n, last;
    uint32_t cp;
    int k;
    while (i < n && (k = gk__u_utf8_dec((const unsigned char *)s + i, n - i, &cp)) > 0 && gk__wh_space(cp)) i += (size_t)k;
    j = i;
    last = i;
    while (j < n) {
        k = gk__u_utf8_dec((const unsigned char *)s + j, n - j, &cp);
        if (k <= 0) { j++; last = j; continue; }
        j += (size_t)k;
        if (!gk__wh_space(cp)) last = j;
    }
    *b = i;
    *e = last;
}
/* Python's `needle in hay` for strings (the empty string is in every string) */
static int gk__wh_in(const char *hay, const char *needle, size_t n) {
    size_t h = strlen(hay), i;
    if (!n) return 1;
    for (i = 0; i + n <= h; i++)
        if (!memcmp(hay + i, needle, n)) return 1;
    return 0;
}
static size_t gk__wh_ncp(const char *s, size_t n) { /* code points */
    size_t i, c = 0;
    for (i = 0; i < n; i++) c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}
/* tok's text of ids (specials included) into b (replaced) */
static gk_status gk__wh_decode(const gk_tokenizer *tok, const int32_t *ids, size_t n, gk_buf *b) {
    b->len = 0;
    if (b->data) b->data[0] = 0;
    if (!n) return gk_buf_append(b, "", 0);
    return gk_tokenizer_decode(tok, ids, n, 0, b);
}
/* the tokenizer's own message, after the caller's name */
static gk_status gk__wh_tok_err(const char *W, gk_status s) {
    gk__u_tl sv;
    char pre[96];
    if (s == GK_ERR_OUT_OF_MEMORY) return s;
    gk__u_tl_save(&sv);
    snprintf(pre, sizeof pre, "%s: decoding tokens: ", W);
    return gk__u_tl_move(NULL, &sv, s, pre);
}

/* ---- segments ---- */
static void gk__wh_seg_clear(gk_whisper_segment *g) {
    size_t i;
    for (i = 0; i < g->n_words; i++) gk__u_free(g->words[i].word);
    gk__u_free(g->words);
    gk__u_free(g->tokens);
    gk__u_free(g->text);
    memset(g, 0, sizeof *g);
}
GKLLMDEF void gk_whisper_segments_free(gk_whisper_segments *s) {
    size_t i;
    if (!s) return;
    for (i = 0; i < s->len; i++) gk__wh_seg_clear(&s->data[i]);
    gk__u_free(s->data);
    memset(s, 0, sizeof *s);
}
static void gk__wh_segs_truncate(gk_whisper_segments *s, size_t n) {
    while (s->len > n) gk__wh_seg_clear(&s->data[--s->len]);
}
/* transcribe.py: an instantaneous segment or one without text keeps no text, tokens or words */
static gk_status gk__wh_clean(gk_whisper_segments *s, size_t first) {
    size_t i, b, e;
    for (i = first; i < s->len; i++) {
        gk_whisper_segment *g = &s->data[i];
        size_t k;
        gk__wh_strip(g->text ? g->text : "", g->text ? strlen(g->text) : 0, &b, &e);
        if (g->start != g->end && b < e) continue;
        if (g->text) g->text[0] = 0;
        g->n_tokens = 0;
        for (k = 0; k < g->n_words; k++) gk__u_free(g->words[k].word);
        g->n_words = 0;
    }
    return GK_OK;
}

static gk_status gk__wh_seg_new(const char *W, const gk_whisper_tokens *t, const gk_tokenizer *tok, const gk_whisper_window *w, const int32_t *tk, size_t n,
                                double start, double end, gk_whisper_segments *out, gk_buf *tmp, gk_ids *txt) {
    gk_whisper_segment *g;
    gk_status s;
    size_t i;
    if (out->len == out->cap && !gk__u_grow((void **)&out->data, &out->cap, out->len + 1, sizeof *out->data))
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", W);
    txt->len = 0;
    for (i = 0; i < n; i++)
        if (tk[i] < t->eot && (s = gk_ids_push(txt, tk[i])) != GK_OK) return s;
    if (!tok) tmp->len = 0; /* no tokenizer: the text stays empty, the tokens are kept */
    else if ((s = gk__wh_decode(tok, txt->data, txt->len, tmp)) != GK_OK) return gk__wh_tok_err(W, s);
    g = &out->data[out->len];
    memset(g, 0, sizeof *g);
    g->text = gk__u_strndup(tmp->len ? tmp->data : "", tmp->len);
    g->tokens = (int32_t *)gk__u_calloc(n, sizeof(int32_t));
    if (!g->text || !g->tokens) {
        gk__wh_seg_clear(g);
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", W);
    }
    if (n) memcpy(g->tokens, tk, n * sizeof(int32_t));
    g->n_tokens = n;
    g->id = (int64_t)out->len;
    g->seek = w->seek;
    g->start = start;
    g->end = end;
    g->temperature = w->temperature;
    g->avg_logprob = w->avg_logprob;
    g->compression_ratio = w->compression_ratio;
    g->no_speech_prob = w->no_speech_prob;
    out->len++;
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_segments_add(const gk_whisper_tokens *t, const gk_tokenizer *tok, gk_whisper_window *w, const int32_t *tokens, size_t n,
                                           gk_whisper_segments *out) {
    const char *W = "gk_whisper_segments_add";
    const double offset = w ? (double)(w->seek * 160) / 16000.0 : 0, prec = (double)(2 * 160) / 16000.0;
    gk_buf tmp = {NULL, 0, 0};
    gk_ids txt = {NULL, 0, 0};
    gk_status s;
    size_t i, last = 0, n0, npairs = 0;
    int64_t tb;
    int single;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!w) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: w is NULL", W);
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (w->seek < 0 || w->seek > ((int64_t)1 << 40)) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_window.seek = %lld must be >= 0", W, (long long)w->seek);
    if (w->segment_size < 1 || w->segment_size > GK_WHISPER_N_FRAMES)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_window.segment_size = %lld must be 1..3000 mel frames", W, (long long)w->segment_size);
    if ((s = gk__wh_check_ids(W, "tokens", tokens, n, t->vocab)) != GK_OK) return s;
    tb = t->timestamp_begin;
    n0 = out->len;
    w->first = n0;
    single = n >= 2 && tokens[n - 2] < tb && tokens[n - 1] >= tb;
    w->single_timestamp_ending = single;
    for (i = 1; i < n; i++) npairs += tokens[i - 1] >= tb && tokens[i] >= tb;
    if (npairs) { /* a segment ends at each pair of timestamps */
        for (i = 1; i <= n; i++) {
            int cut = i < n ? tokens[i - 1] >= tb && tokens[i] >= tb : single;
            if (!cut) continue;
            s = gk__wh_seg_new(W, t, tok, w, tokens + last, i - last, offset + (double)(tokens[last] - tb) * prec, offset + (double)(tokens[i - 1] - tb) * prec, out,
                               &tmp, &txt);
            if (s != GK_OK) goto fail;
            last = i;
        }
        w->next_seek = single ? w->seek + w->segment_size : w->seek + (int64_t)(tokens[last - 1] - tb) * 2;
    } else {
        double dur = (double)(w->segment_size * 160) / 16000.0;
        for (i = n; i-- > 0;)
            if (tokens[i] >= tb) {
                if (tokens[i] != tb) dur = (double)(tokens[i] - tb) * prec;
                break;
            }
        if ((s = gk__wh_seg_new(W, t, tok, w, tokens, n, offset, offset + dur, out, &tmp, &txt)) != GK_OK) goto fail;
        w->next_seek = w->seek + w->segment_size;
    }
    gk_buf_free(&tmp);
    gk_ids_free(&txt);
    if (!w->words && tok) gk__wh_clean(out, n0);
    return GK_OK;
fail:
    gk_buf_free(&tmp);
    gk_ids_free(&txt);
    gk__wh_segs_truncate(out, n0);
    return s;
}

/* ---- word timestamps ---- */
GKLLMDEF gk_status gk_whisper_median_filter(float *x, int64_t rows, int64_t cols, int width) {
    const char *W = "gk_whisper_median_filter";
    float win[101], *row = NULL;
    int64_t r, c, p;
    int k, j;
    if (!x && rows && cols) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: x is NULL", W);
    if (rows < 0 || cols < 0) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: rows = %lld, cols = %lld must be >= 0", W, (long long)rows, (long long)cols);
    if (width < 1 || width > 101 || width % 2 == 0) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: width = %d must be odd, 1..101", W, width);
    p = width / 2;
    if (cols <= p || width == 1) return GK_OK;
    row = (float *)gk__u_calloc((size_t)cols, sizeof(float));
    if (!row) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", W);
    for (r = 0; r < rows; r++) {
        float *y = x + r * cols;
        memcpy(row, y, (size_t)cols * sizeof(float));
        for (c = 0; c < cols; c++) {
            for (k = 0; k < width; k++) { /* reflect: -1 -> 1, cols -> cols - 2 */
                int64_t q = c - p + k;
                float v;
                if (q < 0) q = -q;
                if (q >= cols) q = 2 * (cols - 1) - q;
                v = row[q];
                for (j = k; j > 0 && win[j - 1] > v; j--) win[j] = win[j - 1];
                win[j] = v;
            }
            y[c] = win[p];
        }
    }
    gk__u_free(row);
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_dtw(const float *x, int64_t n, int64_t m, int32_t *rows, int32_t *cols, size_t *len) {
    const char *W = "gk_whisper_dtw";
    float *cost;
    unsigned char *tr;
    int64_t i, j, M1;
    size_t k = 0, a, b;
    if (len) *len = 0;
    if (!x) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: x is NULL", W);
    if (!rows || !cols) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", W, !rows ? "rows" : "cols");
    if (!len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: len is NULL", W);
    if (n < 1 || m < 1 || n > INT32_MAX || m > INT32_MAX || (double)(n + 1) * (double)(m + 1) > 4e9)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: n = %lld, m = %lld: each must be >= 1 (and the matrix under 4e9 cells)", W, (long long)n, (long long)m);
    for (i = 0; i < n * m; i++)
        if (!gk__wh_fin(x[i])) return GK__U_ERR(GK_ERR_FORMAT, "%s: x[%lld][%lld] = %g is not finite", W, (long long)(i / m), (long long)(i % m), (double)x[i]);
    M1 = m + 1;
    cost = (float *)gk__u_calloc((size_t)((n + 1) * M1), sizeof(float));
    tr = (unsigned char *)gk__u_calloc((size_t)((n + 1) * M1), 1);
    if (!cost || !tr) {
        gk__u_free(cost);
        gk__u_free(tr);
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory for a %lld x %lld matrix", W, (long long)n, (long long)m);
    }
    for (i = 0; i < (n + 1) * M1; i++) cost[i] = INFINITY;
    cost[0] = 0;
    for (j = 1; j <= m; j++)
        for (i = 1; i <= n; i++) {
            float c0 = cost[(i - 1) * M1 + j - 1], c1 = cost[(i - 1) * M1 + j], c2 = cost[i * M1 + j - 1], c;
            unsigned char t;
            if (c0 < c1 && c0 < c2) { c = c0; t = 0; }
            else if (c1 < c0 && c1 < c2) { c = c1; t = 1; }
            else { c = c2; t = 2; }
            cost[i * M1 + j] = (float)((double)x[(i - 1) * m + j - 1] + (double)c);
            tr[i * M1 + j] = t;
        }
    for (j = 0; j <= m; j++) tr[j] = 2;
    for (i = 0; i <= n; i++) tr[i * M1] = 1;
    i = n;
    j = m;
    while (i > 0 || j > 0) {
        unsigned char t = tr[i * M1 + j];
        rows[k] = (int32_t)(i - 1);
        cols[k++] = (int32_t)(j - 1);
        if (t == 0) { i--; j--; }
        else if (t == 1) i--;
        else j--;
    }
    for (a = 0, b = k - 1; a < b; a++, b--) {
        int32_t r0 = rows[a], c0 = cols[a];
        rows[a] = rows[b]; cols[a] = cols[b];
        rows[b] = r0; cols[b] = c0;
    }
    *len = k;
    gk__u_free(cost);
    gk__u_free(tr);
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_attention_matrix(const float *weights, int heads, int64_t rows, int64_t cols, const gk_whisper_align_desc *d, float *out) {
    const char *W = "gk_whisper_attention_matrix";
    gk_whisper_align_desc z;
    int64_t F, h, r, c, i;
    int mw;
    float *tmp;
    gk_status s;
    if (!weights) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: weights is NULL", W);
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (heads < 1 || rows < 1 || cols < 1)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: heads = %d, rows = %lld, cols = %lld must each be >= 1", W, heads, (long long)rows, (long long)cols);
    if (!d) { memset(&z, 0, sizeof z); d = &z; }
    F = d->n_cols ? d->n_cols : cols;
    mw = d->medfilt_width ? d->medfilt_width : 7;
    if (F < 1 || F > cols) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_align_desc.n_cols = %lld must be 1..cols (%lld)", W, (long long)d->n_cols, (long long)cols);
    if (mw < 1 || mw > 101 || mw % 2 == 0) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_align_desc.medfilt_width = %d must be odd, 1..101 (0: 7)", W, mw);
    for (i = 0; i < (int64_t)heads * rows; i++)
        for (c = 0; c < F; c++) {
            float v = weights[i * cols + c];
            if (!gk__wh_fin(v))
                return GK__U_ERR(GK_ERR_FORMAT, "%s: weights[%lld][%lld][%lld] = %g is not finite", W, (long long)(i / rows), (long long)(i % rows), (long long)c, (double)v);
        }
    tmp = (float *)gk__u_calloc((size_t)(heads * rows * F), sizeof(float));
    if (!tmp) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", W);
    for (i = 0; i < (int64_t)heads * rows; i++) { /* softmax over the kept columns = the given probabilities rescaled */
        const float *x = weights + i * cols;
        double sum = 0;
        for (c = 0; c < F; c++) sum += x[c];
        for (c = 0; c < F; c++) tmp[i * F + c] = d->keep_weights ? x[c] : sum > 0 ? (float)(x[c] / sum) : 0.0f;
    }
    for (h = 0; h < heads; h++) /* standardise each column over the rows */
        for (c = 0; c < F; c++) {
            double mean = 0, var = 0, sd;
            float *col = tmp + h * rows * F + c;
            for (r = 0; r < rows; r++) mean += col[r * F];
            mean /= (double)rows;
            for (r = 0; r < rows; r++) var += ((double)col[r * F] - mean) * ((double)col[r * F] - mean);
            sd = sqrt(var / (double)rows);
            for (r = 0; r < rows; r++) col[r * F] = sd > 0 ? (float)(((double)col[r * F] - mean) / sd) : 0.0f;
        }
    if ((s = gk_whisper_median_filter(tmp, heads * rows, F, mw)) != GK_OK) {
        gk__u_free(tmp);
        return s;
    }
    for (r = 0; r < rows; r++)
        for (c = 0; c < F; c++) {
            double a = 0;
            for (h = 0; h < heads; h++) a += tmp[(h * rows + r) * F + c];
            out[r * F + c] = (float)(a / heads);
        }
    gk__u_free(tmp);
    return GK_OK;
}

/* a word of the alignment: its text, its tokens (a run of the text tokens), its times */
typedef struct gk__wh_word { char *s; size_t n, t0, nt; double start, end, prob; } gk__wh_word;
typedef struct gk__wh_words { gk__wh_word *w; size_t len, cap; } gk__wh_words;
static void gk__wh_words_free(gk__wh_words *a) {
    size_t i;
    for (i = 0; i < a->len; i++) gk__u_free(a->w[i].s);
    gk__u_free(a->w);
    memset(a, 0, sizeof *a);
}
static gk_status gk__wh_words_push(gk__wh_words *a, const char *s, size_t n, size_t t0, size_t nt) {
    gk__wh_word *x;
    if (a->len == a->cap && !gk__u_grow((void **)&a->w, &a->cap, a->len + 1, sizeof *a->w)) return GK_ERR_OUT_OF_MEMORY;
    x = &a->w[a->len];
    memset(x, 0, sizeof *x);
    if (!(x->s = gk__u_strndup(s, n))) return GK_ERR_OUT_OF_MEMORY;
    x->n = n;
    x->t0 = t0;
    x->nt = nt;
    a->len++;
    return GK_OK;
}
/* dst->s += src->s */
static gk_status gk__wh_cat(gk__wh_word *dst, const char *s, size_t n, int front) {
    char *p = (char *)gk__u_malloc(dst->n + n + 1);
    if (!p) return GK_ERR_OUT_OF_MEMORY;
    if (front) { memcpy(p, s, n); memcpy(p + n, dst->s, dst->n); }
    else { memcpy(p, dst->s, dst->n); memcpy(p + dst->n, s, n); }
    p[dst->n + n] = 0;
    gk__u_free(dst->s);
    dst->s = p;
    dst->n += n;
    return GK_OK;
}
static void gk__wh_empty(gk__wh_word *x) {
    x->s[0] = 0;
    x->n = 0;
    x->nt = 0;
}

/* tokenizer.py's split_tokens_on_unicode: a word ends where the decoded text
   has no U+FFFD of its own (one the whole text does not also have there) */
static gk_status gk__wh_split_unicode(const gk_tokenizer *tok, const int32_t *ids, size_t n, gk__wh_words *out) {
    gk_buf full = {NULL, 0, 0}, cur = {NULL, 0, 0};
    uint32_t *fc = NULL;
    size_t nf = 0, i, q, start = 0, off = 0;
    gk_status s;
    if ((s = gk__wh_decode(tok, ids, n, &full)) != GK_OK) goto done;
    fc = (uint32_t *)gk__u_calloc(full.len + 1, sizeof(uint32_t));
    if (!fc) { s = GK_ERR_OUT_OF_MEMORY; goto done; }
    for (q = 0; q < full.len;) {
        int k = gk__u_utf8_dec((const unsigned char *)full.data + q, full.len - q, &fc[nf]);
        q += k > 0 ? (size_t)k : 1;
        nf++;
    }
    for (i = 0; i < n; i++) {
        size_t pos = 0, fffd = (size_t)-1;
        if ((s = gk__wh_decode(tok, ids + start, i + 1 - start, &cur)) != GK_OK) goto done;
        for (q = 0; q < cur.len; pos++) {
            uint32_t cp;
            int k = gk__u_utf8_dec((const unsigned char *)cur.data + q, cur.len - q, &cp);
            if (cp == 0xFFFD && fffd == (size_t)-1) fffd = pos;
            q += k > 0 ? (size_t)k : 1;
        }
        if (fffd == (size_t)-1 || (off + fffd < nf && fc[off + fffd] == 0xFFFD)) {
            if ((s = gk__wh_words_push(out, cur.data, cur.len, start, i + 1 - start)) != GK_OK) goto done;
            off += pos;
            start = i + 1;
        }
    }
done:
    gk_buf_free(&full);
    gk_buf_free(&cur);
    gk__u_free(fc);
    return s;
}
/* split_tokens_on_spaces: subwords join the previous word unless special,
   starting with a space, or punctuation */
static gk_status gk__wh_split_spaces(const gk_tokenizer *tok, const int32_t *ids, size_t n, int32_t eot, gk__wh_words *out) {
    static const char punct[] = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
    gk__wh_words sub = {NULL, 0, 0};
    gk_status s = gk__wh_split_unicode(tok, ids, n, &sub);
    size_t i, b, e;
    for (i = 0; i < sub.len && s == GK_OK; i++) {
        gk__wh_word *x = &sub.w[i];
        gk__wh_strip(x->s, x->n, &b, &e);
        if (ids[x->t0] >= eot || (x->n && x->s[0] == ' ') || gk__wh_in(punct, x->s + b, e - b) || out->len == 0)
            s = gk__wh_words_push(out, x->s, x->n, x->t0, x->nt);
        else {
            s = gk__wh_cat(&out->w[out->len - 1], x->s, x->n, 0);
            out->w[out->len - 1].nt += x->nt;
        }
    }
    gk__wh_words_free(&sub);
    return s;
}

/* timing.py's merge_punctuations (times stay with the word that keeps them) */
static gk_status gk__wh_merge_punct(gk__wh_words *a, const char *pre, const char *app) {
    gk_status s;
    size_t b, e;
    int64_t i, j;
    if (a->len < 2) return GK_OK;
    for (i = (int64_t)a->len - 2, j = (int64_t)a->len - 1; i >= 0; i--) {
        gk__wh_word *p = &a->w[i], *f = &a->w[j];
        gk__wh_strip(p->s, p->n, &b, &e);
        if (p->n && p->s[0] == ' ' && gk__wh_in(pre, p->s + b, e - b)) {
            if ((s = gk__wh_cat(f, p->s, p->n, 1)) != GK_OK) return s;
            f->t0 = p->t0;
            f->nt += p->nt;
            gk__wh_empty(p);
        } else j = i;
    }
    for (i = 0, j = 1; j < (int64_t)a->len; j++) {
        gk__wh_word *p = &a->w[i], *f = &a->w[j];
        if (!(p->n && p->s[p->n - 1] == ' ') && gk__wh_in(app, f->s, f->n)) {
            if ((s = gk__wh_cat(p, f->s, f->n, 0)) != GK_OK) return s;
            p->nt += f->nt;
            gk__wh_empty(f);
        } else i = j;
    }
    return GK_OK;
}

static int gk__wh_cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
/* Python's round(x, 2): the correctly rounded decimal, ties to even */
static double gk__wh_round2(double x) {
    char b[400];
    snprintf(b, sizeof b, "%.2f", x);
    return strtod(b, NULL);
}
/* utils.py's get_end over segments [first, len) */
static int gk__wh_get_end(const gk_whisper_segments *s, size_t first, double *end) {
    size_t i;
    for (i = s->len; i-- > first;)
        if (s->data[i].n_words) { *end = s->data[i].words[s->data[i].n_words - 1].end; return 1; }
    if (s->len > first) { *end = s->data[s->len - 1].end; return 1; }
    return 0;
}

GKLLMDEF gk_status gk_whisper_add_words(const gk_whisper_tokens *t, const gk_tokenizer *tok, const gk_whisper_words_desc *d, const float *weights, int heads,
                                        int64_t rows, int64_t cols, size_t text_row, const float *token_probs, gk_whisper_window *w, gk_whisper_segments *segs,
                                        double *last_speech) {
    static const char *const by_char[6] = {"zh", "ja", "th", "lo", "my", "yue"};
    const char *W = "gk_whisper_add_words", *pre, *app;
    gk_whisper_words_desc z;
    gk_whisper_align_desc ad;
    gk_ids text = {NULL, 0, 0};
    gk__wh_words a = {NULL, 0, 0};
    float *mat = NULL;
    int32_t *pr = NULL, *pc = NULL;
    double *jt = NULL, *dur = NULL, med = 0, maxd, offset, ls, end;
    size_t i, k, T, plen = 0, nw = 0, nd = 0, wi = 0;
    int unicode = 0;
    gk_status s;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!tok) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: tok is NULL (words are split on the decoded text)", W);
    if (!w) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: w is NULL", W);
    if (!segs) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: segs is NULL", W);
    if (!last_speech) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: last_speech is NULL", W);
    if (w->first > segs->len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_window.first = %llu is past the %llu segments", W, (unsigned long long)w->first, (unsigned long long)segs->len);
    if (!d) { memset(&z, 0, sizeof z); d = &z; }
    pre = d->prepend_punctuations ? d->prepend_punctuations : "\"'\xE2\x80\x9C\xC2\xBF([{-";
    app = d->append_punctuations ? d->append_punctuations : "\"'.\xE3\x80\x82,\xEF\xBC\x8C!\xEF\xBC\x81?\xEF\xBC\x9F:\xEF\xBC\x9A\xE2\x80\x9D)]}\xE3\x80\x81";
    for (i = 0; d->language && i < 6; i++) unicode |= gk__wh_ieq(d->language, by_char[i]);
    segs->has_words = 1;
    if (w->first == segs->len) return GK_OK; /* no segments: nothing to time */
    for (i = w->first; i < segs->len; i++)
        for (k = 0; k < segs->data[i].n_tokens; k++)
            if (segs->data[i].tokens[k] < t->eot && (s = gk_ids_push(&text, segs->data[i].tokens[k])) != GK_OK) goto done;
    T = text.len;
    if (T) {
        int64_t F = d->align.n_cols ? d->align.n_cols : w->segment_size / 2;
        if (!weights) { s = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: weights is NULL", W); goto done; }
        if (!token_probs) { s = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: token_probs is NULL", W); goto done; }
        if (rows != (int64_t)(text_row + T + 2)) {
            s = GK__U_ERR(GK_ERR_SHAPE, "%s: rows = %lld but the sequence has text_row %llu + <|notimestamps|> + %llu text tokens + eot = %llu rows", W, (long long)rows,
                          (unsigned long long)text_row, (unsigned long long)T, (unsigned long long)(text_row + T + 2));
            goto done;
        }
        if (F < 1 || F > cols) {
            s = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %lld columns wanted (n_cols, else segment_size / 2) but the weights have %lld", W, (long long)F, (long long)cols);
            goto done;
        }
        ad = d->align;
        ad.n_cols = F;
        mat = (float *)gk__u_calloc((size_t)(rows * F), sizeof(float));
        pr = (int32_t *)gk__u_calloc((size_t)(T + 1 + F), sizeof(int32_t));
        pc = (int32_t *)gk__u_calloc((size_t)(T + 1 + F), sizeof(int32_t));
        jt = (double *)gk__u_calloc(T + 1, sizeof(double));
        if (!mat || !pr || !pc || !jt) { s = GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", W); goto done; }
        if ((s = gk_whisper_attention_matrix(weights, heads, rows, cols, &ad, mat)) != GK_OK) goto done;
        for (i = 0; i < (T + 1) * (size_t)F; i++) mat[text_row * (size_t)F + i] = -mat[text_row * (size_t)F + i];
        if ((s = gk_whisper_dtw(mat + text_row * (size_t)F, (int64_t)T + 1, F, pr, pc, &plen)) != GK_OK) goto done;
        for (i = 0, k = 0; i < plen; i++) /* the frame where each token's row is entered */
            if (i == 0 || pr[i] != pr[i - 1]) jt[k++] = (double)pc[i] / 50.0;
        if ((s = gk_ids_push(&text, t->eot)) != GK_OK) goto done;
        s = unicode ? gk__wh_split_unicode(tok, text.data, T + 1, &a) : gk__wh_split_spaces(tok, text.data, T + 1, t->eot, &a);
        if (s != GK_OK) { s = s == GK_ERR_OUT_OF_MEMORY ? GK__U_ERR(s, "%s: out of memory", W) : gk__wh_tok_err(W, s); goto done; }
        nw = a.len > 1 ? a.len - 1 : 0; /* the last word (eot) has no end */
        for (i = 0; i < nw; i++) {
            gk__wh_word *x = &a.w[i];
            double p = 0;
            x->start = jt[x->t0];
            x->end = jt[x->t0 + x->nt];
            for (k = x->t0; k < x->t0 + x->nt; k++) p += token_probs[k];
            x->prob = p / (double)x->nt;
        }
        for (i = nw; i < a.len; i++) gk__u_free(a.w[i].s);
        a.len = nw;
    }
    dur = (double *)gk__u_calloc(nw + 1, sizeof(double));
    if (!dur) { s = GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", W); goto done; }
    for (i = 0; i < nw; i++)
        if (a.w[i].end - a.w[i].start != 0) dur[nd++] = a.w[i].end - a.w[i].start;
    if (nd) {
        qsort(dur, nd, sizeof(double), gk__wh_cmp_d);
        med = nd % 2 ? dur[nd / 2] : (dur[nd / 2 - 1] + dur[nd / 2]) / 2;
    }
    med = med < 0.7 ? med : 0.7;
    maxd = med * 2;
    if (nd) /* words at sentence ends are at most twice the median */
        for (i = 1; i < nw; i++) {
            gk__wh_word *x = &a.w[i];
            static const char marks[] = ".\xE3\x80\x82!\xEF\xBC\x81?\xEF\xBC\x9F";
            if (x->end - x->start <= maxd) continue;
            if (gk__wh_in(marks, x->s, x->n)) x->end = x->start + maxd;
            else if (gk__wh_in(marks, a.w[i - 1].s, a.w[i - 1].n)) x->start = x->end - maxd;
        }
    if ((s = gk__wh_merge_punct(&a, pre, app)) != GK_OK) { s = GK__U_ERR(s, "%s: out of memory", W); goto done; }
    offset = (double)(segs->data[w->first].seek * 160) / 16000.0;
    ls = *last_speech;
    for (i = w->first; i < segs->len; i++) {
        gk_whisper_segment *g = &segs->data[i];
        gk_whisper_word *ws;
        size_t ntext = 0, saved = 0, n = 0;
        for (k = 0; k < g->n_tokens; k++) ntext += g->tokens[k] < t->eot;
        for (k = 0; k < g->n_words; k++) gk__u_free(g->words[k].word);
        g->n_words = 0;
        ws = (gk_whisper_word *)gk__u_calloc(a.len - wi + 1, sizeof *ws);
        if (!ws) { s = GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", W); goto done; }
        gk__u_free(g->words);
        g->words = ws;
        for (; wi < a.len && saved < ntext; wi++) {
            gk__wh_word *x = &a.w[wi];
            if (x->n) {
                if (!(ws[n].word = gk__u_strndup(x->s, x->n))) { s = GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", W); goto done; }
                ws[n].start = gk__wh_round2(offset + x->start);
                ws[n].end = gk__wh_round2(offset + x->end);
                ws[n].probability = x->prob;
                g->n_words = ++n;
            }
            saved += x->nt;
        }
        if (!n) continue;
        /* the first words after a pause are at most twice the median */
        if (ws[0].end - ls > med * 4 && (ws[0].end - ws[0].start > maxd || (n > 1 && ws[1].end - ws[0].start > maxd * 2))) {
            if (n > 1 && ws[1].end - ws[1].start > maxd) {
                double bnd = ws[1].end / 2 > ws[1].end - maxd ? ws[1].end / 2 : ws[1].end - maxd;
                ws[0].end = ws[1].start = bnd;
            }
            ws[0].start = ws[0].end - maxd > 0 ? ws[0].end - maxd : 0;
        }
        /* the segment's own start / end win over a first / last word that is too long */
        if (g->start < ws[0].end && g->start - 0.5 > ws[0].start) {
            double v = ws[0].end - med < g->start ? ws[0].end - med : g->start;
            ws[0].start = v > 0 ? v : 0;
        } else g->start = ws[0].start;
        if (g->end > ws[n - 1].start && g->end + 0.5 < ws[n - 1].end) ws[n - 1].end = ws[n - 1].start + med > g->end ? ws[n - 1].start + med : g->end;
        else g->end = ws[n - 1].end;
        ls = g->end;
    }
    if (gk__wh_get_end(segs, w->first, &end)) {
        if (!w->single_timestamp_ending && end > (double)(w->seek * 160) / 16000.0) w->next_seek = (int64_t)nearbyint(end * GK_WHISPER_FRAMES_PER_SECOND);
        *last_speech = end;
    }
    gk__wh_clean(segs, w->first);
    s = GK_OK;
done:
    if (s != GK_OK)
        for (i = w->first; i < segs->len; i++) {
            for (k = 0; k < segs->data[i].n_words; k++) gk__u_free(segs->data[i].words[k].word);
            segs->data[i].n_words = 0;
        }
    gk_ids_free(&text);
    gk__wh_words_free(&a);
    gk__u_free(mat);
    gk__u_free(pr);
    gk__u_free(pc);
    gk__u_free(jt);
    gk__u_free(dur);
    return s;
}

/* ---- writers ---- */
static gk_status gk__wh_ts(gk_buf *b, double sec, int hours, char mark) {
    char s[96];
    long long ms = (long long)nearbyint(sec * 1000.0), h, m, x;
    h = ms / 3600000; ms -= h * 3600000;
    m = ms / 60000; ms -= m * 60000;
    x = ms / 1000; ms -= x * 1000;
    if (hours || h > 0) snprintf(s, sizeof s, "%02lld:%02lld:%02lld%c%03lld", h, m, x, mark, ms);
    else snprintf(s, sizeof s, "%02lld:%02lld%c%03lld", m, x, mark, ms);
    return gk__u_buf_puts(b, s);
}
/* s[0..n) stripped, "-->" as "->" when arrow */
static gk_status gk__wh_put_text(gk_buf *o, const char *s, size_t n, int strip, int arrow) {
    size_t b = 0, e = n, i;
    gk_status st = GK_OK;
    if (strip) gk__wh_strip(s, n, &b, &e);
    for (i = b; i < e && st == GK_OK; i++) {
        if (arrow && i + 3 <= e && !memcmp(s + i, "-->", 3)) { st = gk_buf_append(o, "->", 2); i += 2; }
        else st = gk_buf_append(o, s + i, 1);
    }
    return st;
}
/* Python's repr of a float (NaN / inf: null) */
static gk_status gk__wh_num(gk_buf *o, double v) {
    char s[400]; /* %f of any double fits */
    int p, e, q;
    if (v != v || v - v != 0) return gk__u_buf_puts(o, "null");
    for (p = 1; p < 17; p++) {
        snprintf(s, sizeof s, "%.*e", p - 1, v);
        if (strtod(s, NULL) == v) break;
    }
    snprintf(s, sizeof s, "%.*e", p - 1, v);
    e = atoi(strchr(s, 'e') + 1);
    if (e >= -4 && e < 16) {
        q = p - 1 - e;
        snprintf(s, sizeof s, "%.*f", q < 0 ? 0 : q > 24 ? 24 : q, v);
        if (!strchr(s, '.')) strcat(s, ".0");
    }
    return gk__u_buf_puts(o, s);
}
static gk_status gk__wh_jstr(gk_buf *o, const char *s) {
    size_t i = 0, run = 0, n = s ? strlen(s) : 0;
    gk_status st = gk_buf_append(o, "\"", 1);
    while (i < n && st == GK_OK) {
        unsigned char c = (unsigned char)s[i];
        uint32_t cp;
        int k;
        const char *esc = NULL;
        char u[8];
        if (c >= 0x80) {
            k = gk__u_utf8_dec((const unsigned char *)s + i, n - i, &cp);
            if (k > 0) { i += (size_t)k; continue; }
            if ((st = gk_buf_append(o, s + run, i - run)) != GK_OK) return st;
            st = gk_buf_append(o, "\xEF\xBF\xBD", 3);
            i += (size_t)(-k);
            run = i;
            continue;
        }
        if (c == '"') esc = "\\\"";
        else if (c == '\\') esc = "\\\\";
        else if (c == '\n') esc = "\\n";
        else if (c == '\r') esc = "\\r";
        else if (c == '\t') esc = "\\t";
        else if (c == '\b') esc = "\\b";
        else if (c == '\f') esc = "\\f";
        else if (c < 0x20) { snprintf(u, sizeof u, "\\u%04x", c); esc = u; }
        if (esc) {
            if ((st = gk_buf_append(o, s + run, i - run)) != GK_OK) return st;
            st = gk__u_buf_puts(o, esc);
            run = i + 1;
        }
        i++;
    }
    if (st == GK_OK) st = gk_buf_append(o, s + run, i - run);
    return st == GK_OK ? gk_buf_append(o, "\"", 1) : st;
}

/* one SRT / VTT cue */
static gk_status gk__wh_cue(gk_buf *o, gk_whisper_format f, size_t *idx, double a, double b, const char *text, size_t n, int strip) {
    gk_status st = GK_OK;
    char num[32];
    if (f == GK_WHISPER_SRT) {
        snprintf(num, sizeof num, "%llu\n", (unsigned long long)++*idx);
        st = gk__u_buf_puts(o, num);
    }
    if (st == GK_OK) st = gk__wh_ts(o, a, f == GK_WHISPER_SRT, f == GK_WHISPER_SRT ? ',' : '.');
    if (st == GK_OK) st = gk__u_buf_puts(o, " --> ");
    if (st == GK_OK) st = gk__wh_ts(o, b, f == GK_WHISPER_SRT, f == GK_WHISPER_SRT ? ',' : '.');
    if (st == GK_OK) st = gk_buf_append(o, "\n", 1);
    if (st == GK_OK) st = gk__wh_put_text(o, text, n, strip, strip);
    return st == GK_OK ? gk_buf_append(o, "\n\n", 2) : st;
}

/* SubtitlesWriter.iterate_result with words, its default options: one cue a
   segment (its words; a new line past 1000 characters) */
static gk_status gk__wh_word_cues(const gk_whisper_segments *s, gk_whisper_format f, gk_buf *o) {
    gk_buf line = {NULL, 0, 0};
    gk_status st = GK_OK;
    size_t i, k, idx = 0, line_len = 0, ci;
    double a = 0, b = 0;
    int have = 0;
    for (i = 0; i < s->len && st == GK_OK; i++) {
        const gk_whisper_segment *g = &s->data[i];
        for (ci = 0; ci < g->n_words && st == GK_OK; ci += 1000)
            for (k = ci; k < g->n_words && k < ci + 1000 && st == GK_OK; k++) {
                const char *wd = g->words[k].word ? g->words[k].word : "";
                size_t wl = strlen(wd), len = gk__wh_ncp(wd, wl), sb, se;
                int seg_break = k == ci && have;
                if (line_len > 0 && line_len + len <= 1000 && !seg_break) {
                    line_len += len;
                    st = gk_buf_append(&line, wd, wl);
                } else {
                    gk__wh_strip(wd, wl, &sb, &se);
                    if (seg_break) {
                        st = gk__wh_cue(o, f, &idx, a, b, line.data, line.len, 0);
                        line.len = 0;
                        have = 0;
                    } else if (line_len > 0) st = gk_buf_append(&line, "\n", 1);
                    if (st == GK_OK) st = gk_buf_append(&line, wd + sb, se - sb);
                    line_len = gk__wh_ncp(wd + sb, se - sb);
                }
                if (!have) a = g->words[k].start;
                b = g->words[k].end;
                have = 1;
            }
    }
    if (st == GK_OK && have) st = gk__wh_cue(o, f, &idx, a, b, line.data, line.len, 0);
    gk_buf_free(&line);
    return st;
}

static gk_status gk__wh_write(const gk_whisper_segments *s, gk_whisper_format f, const char *text, const char *language, gk_buf *o) {
    gk_status st = GK_OK;
    size_t i, k, idx = 0;
    char num[128];
    if (f == GK_WHISPER_VTT) st = gk__u_buf_puts(o, "WEBVTT\n\n");
    if ((f == GK_WHISPER_SRT || f == GK_WHISPER_VTT) && s->has_words && s->len) return st == GK_OK ? gk__wh_word_cues(s, f, o) : st;
    if (f == GK_WHISPER_TSV) st = gk__u_buf_puts(o, "start\tend\ttext\n");
    if (f == GK_WHISPER_JSON) {
        st = gk__u_buf_puts(o, "{\"text\": ");
        if (st == GK_OK && text) st = gk__wh_jstr(o, text);
        else if (st == GK_OK) { /* the segments' texts joined */
            gk_buf all = {NULL, 0, 0};
            for (i = 0; i < s->len && st == GK_OK; i++) st = gk__u_buf_puts(&all, s->data[i].text ? s->data[i].text : "");
            if (st == GK_OK) st = gk__wh_jstr(o, all.data ? all.data : "");
            gk_buf_free(&all);
        }
        if (st == GK_OK) st = gk__u_buf_puts(o, ", \"segments\": [");
    }
    for (i = 0; i < s->len && st == GK_OK; i++) {
        const gk_whisper_segment *g = &s->data[i];
        const char *tx = g->text ? g->text : "";
        if (f == GK_WHISPER_TXT) {
            st = gk__wh_put_text(o, tx, strlen(tx), 1, 0);
            if (st == GK_OK) st = gk_buf_append(o, "\n", 1);
        } else if (f == GK_WHISPER_SRT || f == GK_WHISPER_VTT) {
            st = gk__wh_cue(o, f, &idx, g->start, g->end, tx, strlen(tx), 1);
        } else if (f == GK_WHISPER_TSV) {
            size_t b, e, q;
            snprintf(num, sizeof num, "%lld\t%lld\t", (long long)nearbyint(1000 * g->start), (long long)nearbyint(1000 * g->end));
            st = gk__u_buf_puts(o, num);
            gk__wh_strip(tx, strlen(tx), &b, &e);
            for (q = b; q < e && st == GK_OK; q++) st = gk_buf_append(o, tx[q] == '\t' ? " " : tx + q, 1);
            if (st == GK_OK) st = gk_buf_append(o, "\n", 1);
        } else {
            snprintf(num, sizeof num, "%s{\"id\": %lld, \"seek\": %lld, \"start\": ", i ? ", " : "", (long long)g->id, (long long)g->seek);
            st = gk__u_buf_puts(o, num);
            if (st == GK_OK) st = gk__wh_num(o, g->start);
            if (st == GK_OK) st = gk__u_buf_puts(o, ", \"end\": ");
            if (st == GK_OK) st = gk__wh_num(o, g->end);
            if (st == GK_OK) st = gk__u_buf_puts(o, ", \"text\": ");
            if (st == GK_OK) st = gk__wh_jstr(o, tx);
            if (st == GK_OK) st = gk__u_buf_puts(o, ", \"tokens\": [");
            for (k = 0; k < g->n_tokens && st == GK_OK; k++) {
                snprintf(num, sizeof num, "%s%d", k ? ", " : "", (int)g->tokens[k]);
                st = gk__u_buf_puts(o, num);
            }
            if (st == GK_OK) st = gk__u_buf_puts(o, "], \"temperature\": ");
            if (st == GK_OK) st = gk__wh_num(o, g->temperature);
            if (st == GK_OK) st = gk__u_buf_puts(o, ", \"avg_logprob\": ");
            if (st == GK_OK) st = gk__wh_num(o, g->avg_logprob);
            if (st == GK_OK) st = gk__u_buf_puts(o, ", \"compression_ratio\": ");
            if (st == GK_OK) st = gk__wh_num(o, g->compression_ratio);
            if (st == GK_OK) st = gk__u_buf_puts(o, ", \"no_speech_prob\": ");
            if (st == GK_OK) st = gk__wh_num(o, g->no_speech_prob);
            if (st == GK_OK && s->has_words) {
                st = gk__u_buf_puts(o, ", \"words\": [");
                for (k = 0; k < g->n_words && st == GK_OK; k++) {
                    st = gk__u_buf_puts(o, k ? ", {\"word\": " : "{\"word\": ");
                    if (st == GK_OK) st = gk__wh_jstr(o, g->words[k].word ? g->words[k].word : "");
                    if (st == GK_OK) st = gk__u_buf_puts(o, ", \"start\": ");
                    if (st == GK_OK) st = gk__wh_num(o, g->words[k].start);
                    if (st == GK_OK) st = gk__u_buf_puts(o, ", \"end\": ");
                    if (st == GK_OK) st = gk__wh_num(o, g->words[k].end);
                    if (st == GK_OK) st = gk__u_buf_puts(o, ", \"probability\": ");
                    if (st == GK_OK) st = gk__wh_num(o, g->words[k].probability);
                    if (st == GK_OK) st = gk__u_buf_puts(o, "}");
                }
                if (st == GK_OK) st = gk__u_buf_puts(o, "]");
            }
            if (st == GK_OK) st = gk__u_buf_puts(o, "}");
        }
    }
    if (f == GK_WHISPER_JSON && st == GK_OK) {
        st = gk__u_buf_puts(o, "]");
        if (st == GK_OK && language) {
            st = gk__u_buf_puts(o, ", \"language\": ");
            if (st == GK_OK) st = gk__wh_jstr(o, language);
        }
        if (st == GK_OK) st = gk__u_buf_puts(o, "}");
    }
    return st;
}

static gk_status gk__wh_write_check(const char *W, const gk_whisper_segments *s, gk_whisper_format f) {
    size_t i, k;
    if (!s) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: s is NULL", W);
    if (f < GK_WHISPER_TXT || f > GK_WHISPER_JSON) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: f = %d is not a gk_whisper_format (TXT 1 .. JSON 5)", W, (int)f);
    if (!s->data && s->len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: s->data is NULL but s->len is %llu", W, (unsigned long long)s->len);
    if (f != GK_WHISPER_SRT && f != GK_WHISPER_VTT && f != GK_WHISPER_TSV) return GK_OK;
    for (i = 0; i < s->len; i++) {
        const gk_whisper_segment *g = &s->data[i];
        if (!(g->start >= 0 && g->end >= 0 && g->start < 1e12 && g->end < 1e12))
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: segment %llu: start %g / end %g s must be >= 0 and finite", W, (unsigned long long)i, g->start, g->end);
        for (k = 0; k < g->n_words; k++)
            if (!(g->words[k].start >= 0 && g->words[k].end >= 0 && g->words[k].start < 1e12 && g->words[k].end < 1e12))
                return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: segment %llu, word %llu: start %g / end %g s must be >= 0 and finite", W, (unsigned long long)i,
                                 (unsigned long long)k, g->words[k].start, g->words[k].end);
    }
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_write(const gk_whisper_segments *s, gk_whisper_format f, const char *text, const char *language, gk_buf *out) {
    gk_status st;
    size_t n0;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_whisper_write: out is NULL");
    if ((st = gk__wh_write_check("gk_whisper_write", s, f)) != GK_OK) return st;
    n0 = out->len;
    if ((st = gk__wh_write(s, f, text, language, out)) != GK_OK) {
        out->len = n0;
        if (out->data) out->data[n0] = 0;
    }
    return st;
}
GKLLMDEF gk_status gk_whisper_write_file(const gk_whisper_segments *s, gk_whisper_format f, const char *text, const char *language, FILE *fp) {
    gk_buf b = {NULL, 0, 0};
    gk_status st;
    if (!fp) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_whisper_write_file: fp is NULL");
    if ((st = gk__wh_write_check("gk_whisper_write_file", s, f)) != GK_OK) return st;
    st = gk__wh_write(s, f, text, language, &b);
    if (st == GK_OK && b.len && fwrite(b.data, 1, b.len, fp) != b.len) st = GK__U_ERR(GK_ERR_IO, "gk_whisper_write_file: writing %llu bytes failed: %s", (unsigned long long)b.len, strerror(errno));
    if (st == GK_OK && fflush(fp) != 0) st = GK__U_ERR(GK_ERR_IO, "gk_whisper_write_file: flushing the file failed: %s", strerror(errno));
    gk_buf_free(&b);
    return st;
}
