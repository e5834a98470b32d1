/* libFuzzer harness: JSON parser + DOM accessors, and on the same bytes the
   tokenizer.json loader, the model config.json parser and the chat template
   of tokenizer_config.json (hostile model files). */
#define GPUKIT_IMPLEMENTATION
#include "gpukit.h"
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"

static size_t walk(const gk_json_value *v, int depth) {
    size_t i, n = 0;
    if (!v || depth > 200) return 0;
    switch (gk_json_typeof(v)) {
    case GK_JSON_STRING: n += gk_json_len(v) + (size_t)(gk_json_str(v, "")[0] != 0); break;
    case GK_JSON_INT: n += (size_t)(gk_json_int(v, 0) & 1); break;
    case GK_JSON_DOUBLE: n += gk_json_double(v, 0) > 0; n += (size_t)(gk_json_int(v, 0) & 1); break;
    case GK_JSON_BOOL: n += (size_t)gk_json_bool(v, 0); break;
    case GK_JSON_ARRAY:
        for (i = 0; i < gk_json_len(v); i++) n += walk(gk_json_at(v, i), depth + 1);
        break;
    case GK_JSON_OBJECT:
        for (i = 0; i < gk_json_len(v); i++) {
            size_t kl;
            const char *k = gk_json_key_at(v, i, &kl);
            n += kl + (gk_json_getn(v, k, kl) != NULL);
            n += walk(gk_json_at(v, i), depth + 1);
        }
        break;
    default: break;
    }
    return n;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    gk_json *d;
    gk_tokenizer *tok;
    if (gk_json_parse((const char *)data, size, NULL, &d) == GK_OK) {
        const gk_json_value *r = gk_json_root(d);
        volatile size_t n = walk(r, 0);
        (void)n;
        (void)gk_json_path(r, "model.vocab.a");
        (void)gk_json_get_string(r, "0.1.x", NULL);
        {   /* the same bytes as a model's config.json (+ "gen" as generation_config.json)
               and as tokenizer_config.json: its chat template rendered */
            gk_llm_config cfg;
            gk_chat_template ct;
            (void)gk__llm_parse_config(NULL, r, gk_json_get(r, "gen"), &cfg);
            if (gk_chat_template_from_config(r, &ct) == GK_OK) {
                static const gk_chat_message msgs[3] = { { "system", "be brief" }, { "user", "hi <s>" }, { "assistant", "ok" } };
                gk_buf out = {NULL, 0, 0};
                (void)gk_chat_apply(&ct, msgs, 3, GK_CHAT_ADD_GENERATION_PROMPT, &out);
                gk_buf_free(&out);
            }
        }
        gk_json_free(d);
    }
    if (gk_tokenizer_load_mem((const char *)data, size, &tok) == GK_OK) {
        gk_ids ids = {NULL, 0, 0};
        gk_buf out = {NULL, 0, 0};
        static const char text[] = "Hello  wörld 123 <s>\xff it's\n\n";
        if (gk_tokenizer_encode(tok, text, sizeof text - 1, GK_TOK_ADD_SPECIAL, &ids) == GK_OK)
            gk_tokenizer_decode(tok, ids.data, ids.len, 0, &out);
        gk_ids_free(&ids);
        gk_buf_free(&out);
        gk_tokenizer_free(tok);
    }
    return 0;
}
