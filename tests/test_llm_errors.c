/* test_llm_errors: gpukit_llm.h refuses bad input when it reads it, with a
   message that names the input (issue 23, the library's part).
   1. pairs: a NULL pointer with a nonzero count (gk_llm_gen_desc.stop and
      n_stop, ids / n, msgs / n, text / len, ...) is GK_ERR_INVALID_ARGUMENT
      naming the field, never a crash.
   2. nonfinite: NaN or infinite weights make generation fail with a message
      that says at which new token (and which sequence of a batch), greedy,
      sampled, op by op and through decode graphs; gk_llm_forward's logits too.
   3. config: every field of config.json / generation_config.json the runtime
      reads is checked at load, before any weight is read (the progress
      callback never runs), naming "<dir>/config.json" and the field; the
      gk_llm_desc fields too.
   4. names: NULL arguments are named ("gk_tokenizer_load: path is NULL"),
      bad desc fields and flags too; no message names a private gk__ function
      or says "NULL argument".
   5. tokenizer: a BPE tokenizer.json without merges is refused (HF tokenizers:
      "Missing vocab/merges"; [] is fine), and the other fields of the wrong
      type or value.
   6. inputs: tokenizer_config.json / chat templates, safetensors indexes.
   Model folders are copies of tests/fixtures/llm/<case> with one edit each.
   `test_llm_errors <section>` runs one section (pairs, nonfinite, config,
   names, tokenizer, inputs). */
#define GPUKIT_IMPLEMENTATION
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"
#include "tests/gkt.h"
#include <sys/stat.h>

static gk_ctx *dut;
static char tmpdir[256];
static const char *FIX = "tests/fixtures/llm";

/* a failing call: status, a substring of the message, and no private name or "NULL argument" in it */
#define FAILS(ctx, call, want, text)                                                                                    \
    do {                                                                                                                \
        gk_status s_ = (call);                                                                                          \
        const char *m_ = gk_last_error(ctx);                                                                            \
        GKT_CHECK(s_ == (want) && strstr(m_, text) != NULL && !strstr(m_, "gk__") && !strstr(m_, "NULL argument"),      \
                  "%s -> %s (want %s) msg \"%s\" (want \"%s\")", #call, gk_status_name(s_), gk_status_name(want), m_, text); \
    } while (0)

/* ---- files ---- */
static void read_text(const char *path, char **out) {
    size_t n;
    if (gk_read_file(path, 0, out, &n) != GK_OK) { printf("cannot read %s\n", path); exit(2); }
}
static void write_bytes(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n) { printf("cannot write %s\n", path); exit(2); }
    fclose(f);
}
static void write_text(const char *dir, const char *name, const char *text) {
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    write_bytes(p, text, strlen(text));
}
/* a fresh copy of fixture `fix` in tmpdir/name; its path in dir */
static void copy_fixture(const char *fix, const char *name, char *dir, size_t cap) {
    static const char *files[6] = { "config.json", "generation_config.json", "model.safetensors", "tokenizer.json", "tokenizer_config.json",
                                    "chat_template.jinja" };
    int i;
    snprintf(dir, cap, "%s/%s", tmpdir, name);
    mkdir(dir, 0755);
    for (i = 0; i < 6; i++) {
        char src[600], dst[600], *d = NULL;
        size_t n;
        snprintf(src, sizeof src, "%s/%s/%s", FIX, fix, files[i]);
        snprintf(dst, sizeof dst, "%s/%s", dir, files[i]);
        if (gk_read_file(src, 0, &d, &n) != GK_OK) { remove(dst); continue; }
        write_bytes(dst, d, n);
        gk_read_file_free(d);
    }
}

/* the end of the JSON value at p (a string, a list or object, or a scalar) */
static const char *json_end(const char *p) {
    int depth = 0, instr = 0;
    if (*p != '"' && *p != '[' && *p != '{') {
        while (*p && *p != ',' && *p != '}' && *p != ']' && *p != '\n') p++;
        while (p[-1] == ' ') p--;
        return p;
    }
    for (; *p; p++) {
        if (instr) {
            if (*p == '\\') p++;
            else if (*p == '"') { instr = 0; if (!depth) return p + 1; }
            continue;
        }
        if (*p == '"') instr = 1;
        else if (*p == '[' || *p == '{') depth++;
        else if (*p == ']' || *p == '}') { if (--depth == 0) return p + 1; }
    }
    return p;
}
/* file dir/name with the first "key": value replaced by value (JSON text); NULL
   removes the member; a missing key is added at the top */
static void set_field(const char *dir, const char *name, const char *key, const char *value) {
    char path[600], pat[128], *t, *out;
    const char *k, *v, *e;
    size_t n;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    read_text(path, &t);
    n = strlen(t);
    out = (char *)malloc(n + strlen(key) + (value ? strlen(value) : 0) + 16);
    snprintf(pat, sizeof pat, "\"%s\":", key[0] == '+' ? key + 1 : key);
    k = key[0] == '+' ? NULL : strstr(t, pat); /* "+key": add it again */
    if (key[0] == '+') key++;
    if (!k) {
        const char *b = strchr(t, '{');
        if (!value) { free(out); gk_read_file_free(t); return; }
        sprintf(out, "%.*s\"%s\": %s,%s", (int)(b - t + 1), t, key, value, b + 1);
    } else {
        v = k + strlen(pat);
        while (*v == ' ') v++;
        e = json_end(v);
        if (value) sprintf(out, "%.*s%s%s", (int)(v - t), t, value, e);
        else { /* the member and its comma; the last member takes the comma before it */
            const char *q = e, *c = k;
            while (*q == ' ' || *q == '\n' || *q == '\r' || *q == '\t') q++;
            if (*q == ',') e = q + 1;
            else {
                while (c > t && (c[-1] == ' ' || c[-1] == '\n' || c[-1] == '\r' || c[-1] == '\t')) c--;
                if (c > t && c[-1] == ',') k = c - 1;
            }
            sprintf(out, "%.*s%s", (int)(k - t), t, e);
        }
    }
    write_bytes(path, out, strlen(out));
    free(out);
    gk_read_file_free(t);
}

/* bytes [at, at + n) of tensor `name` in dir/model.safetensors become the value v (f32, written in the stored dtype) */
static void poison(const char *dir, const char *name, uint64_t first, uint64_t count, float v) {
    char path[600];
    gk_safetensors *st = NULL;
    const gk_st_tensor_info *ti;
    gk_dtype dt;
    unsigned char one[8];
    uint64_t i, off, es;
    FILE *f;
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    if (gk_st_open(path, &st) != GK_OK || !(ti = gk_st_find(st, name)) || !gk_st_gk_dtype(ti->dtype, &dt)) {
        printf("cannot find %s in %s: %s\n", name, path, gk_last_error(NULL));
        exit(2);
    }
    es = gk_dtype_size(dt);
    off = ti->file_offset + first * es;
    if (count == 0) count = ti->numel - first;
    gk_convert(dt, one, GK_F32, &v, 1);
    gk_st_close(st);
    f = fopen(path, "r+b");
    if (!f || fseek(f, (long)off, SEEK_SET) != 0) { printf("cannot open %s\n", path); exit(2); }
    for (i = 0; i < count; i++) fwrite(one, es, 1, f);
    fclose(f);
}

static gk_llm *load(const char *dir, int max_seqs, int64_t max_ctx, int no_graphs) {
    gk_llm *m = NULL;
    gk_llm_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = GK_LLM_DTYPE_F32; d.max_seqs = max_seqs; d.max_ctx = max_ctx; d.no_graphs = no_graphs;
    GKT_OK(dut, gk_llm_load(dut, dir, &d, &m));
    return m;
}
static void encode(const gk_llm *m, const char *text, gk_ids *ids) {
    ids->len = 0;
    GKT_OK(NULL, gk_tokenizer_encode(gk_llm_tokenizer(m), text, strlen(text), 0, ids));
}

/* ---- 1. (pointer, count) pairs ---- */
static void pairs(void) {
    char dir[400];
    gk_llm *m;
    gk_llm_gen_desc gd;
    gk_ids out = { 0, 0, 0 }, ids = { 0, 0, 0 };
    gk_buf b = { 0, 0, 0 };
    gk_json *doc = NULL;
    gk_tokenizer *tok = NULL;
    gk_safetensors *st = NULL;
    gk_chat_template t;
    gk_tok_stream ts;
    const char *stops[2] = { "x", NULL };
    const int32_t *ps[1] = { NULL };
    size_t ls[1] = { 3 };
    copy_fixture("qwen3", "pairs", dir, sizeof dir);
    m = load(dir, 1, 64, 0);
    if (!m) return;
    memset(&gd, 0, sizeof gd);
    gd.max_new_tokens = 4; gd.sampling = GK_LLM_SAMPLE_GREEDY;
    gd.n_stop = 2; /* stop NULL: was a NULL dereference */
    FAILS(dut, gk_llm_generate(m, "Once upon a time", &gd, &out, &b, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_gen_desc.stop is NULL but n_stop is 2");
    FAILS(dut, gk_llm_generate_batch(m, ps, ls, 1, &gd, &out, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_generate_batch: gk_llm_gen_desc.stop is NULL but n_stop is 2");
    gd.stop = stops; /* stop[1] NULL */
    FAILS(dut, gk_llm_generate(m, "Once upon a time", &gd, &out, &b, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_gen_desc.stop[1] is NULL");
    gd.n_stop = -1;
    FAILS(dut, gk_llm_generate(m, "Once upon a time", &gd, &out, &b, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_gen_desc.n_stop = -1 is negative");
    gd.n_stop = 0; gd.stop = NULL;
    FAILS(dut, gk_llm_generate_batch(m, ps, ls, 1, &gd, &out, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "prompts[0] is NULL but lens[0] is 3");
    FAILS(dut, gk_llm_forward(m, 0, NULL, 3, 0, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_forward: ids is NULL but n is 3");
    FAILS(dut, gk_llm_chat_ids(m, NULL, 2, 0, &ids), GK_ERR_INVALID_ARGUMENT, "gk_llm_chat_ids: msgs is NULL but n is 2");
    FAILS(dut, gk_llm_chat(m, NULL, 2, &gd, &ids, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_chat: msgs is NULL but n is 2");
    GKT_CHECK(out.len == 0 && b.len == 0, "nothing generated by refused calls: %zu ids", out.len);
    FAILS(NULL, gk_tokenizer_encode(gk_llm_tokenizer(m), NULL, 4, 0, &ids), GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_encode: text is NULL but len is 4");
    FAILS(NULL, gk_tokenizer_decode(gk_llm_tokenizer(m), NULL, 3, 0, &b), GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_decode: ids is NULL but n is 3");
    GKT_OK(NULL, gk_chat_template_builtin("chatml", NULL, NULL, &t));
    FAILS(NULL, gk_chat_apply(&t, NULL, 2, 0, &b), GK_ERR_INVALID_ARGUMENT, "gk_chat_apply: msgs is NULL but n is 2");
    FAILS(NULL, gk_json_parse(NULL, 5, NULL, &doc), GK_ERR_INVALID_ARGUMENT, "gk_json_parse: text is NULL but len is 5");
    FAILS(NULL, gk_tokenizer_load_mem(NULL, 5, &tok), GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_load_mem: json is NULL but len is 5");
    FAILS(NULL, gk_st_open_memory(NULL, 5, &st), GK_ERR_INVALID_ARGUMENT, "gk_st_open_memory: data is NULL but size is 5");
    FAILS(NULL, gk_buf_append(&b, NULL, 5), GK_ERR_INVALID_ARGUMENT, "gk_buf_append: data is NULL but n is 5"); /* was a memcpy from NULL */
    GKT_OK(NULL, gk_buf_append(&b, NULL, 0));
    gk_tok_stream_init(NULL, gk_llm_tokenizer(m), 0); /* was a memset of NULL; nothing to report to */
    gk_tok_stream_init(&ts, NULL, 0);
    FAILS(NULL, gk_tok_stream_push(&ts, 5, &b), GK_ERR_INVALID_ARGUMENT, "gk_tok_stream_push: s->tok is NULL");
    gk_ids_free(&out); gk_ids_free(&ids); gk_buf_free(&b);
    gk_llm_free(m);
}

/* ---- 2. non-finite logits ---- */
static void nonfinite(void) {
    char dir[400], clean[400];
    gk_llm *m;
    gk_llm_gen_desc gd;
    gk_ids p = { 0, 0, 0 }, p2 = { 0, 0, 0 }, g = { 0, 0, 0 }, out = { 0, 0, 0 };
    gk_buf text = { 0, 0, 0 };
    int64_t V, hid, k, kk = -1;
    float *lg;
    int ng;
    const char *prompt = "Once upon a time, the quick brown fox";
    memset(&gd, 0, sizeof gd);
    gd.max_new_tokens = 8; gd.sampling = GK_LLM_SAMPLE_GREEDY; gd.flags = GK_LLM_GEN_IGNORE_EOS;
    /* the clean model's greedy continuation: a token the prompt does not hold */
    copy_fixture("qwen3", "clean", clean, sizeof clean);
    m = load(clean, 2, 128, 0);
    if (!m) return;
    V = gk_llm_get_config(m)->vocab;
    hid = gk_llm_get_config(m)->hidden;
    encode(m, prompt, &p);
    GKT_OK(dut, gk_llm_generate(m, prompt, &gd, &g, NULL, NULL));
    for (k = 0; k + 1 < (int64_t)g.len && kk < 0; k++) {
        size_t j;
        int seen = 0;
        for (j = 0; j < p.len; j++) seen |= p.data[j] == g.data[k];
        for (j = 0; j < (size_t)k; j++) seen |= g.data[j] == g.data[k];
        if (!seen && k >= 1) kk = k;
    }
    gk_llm_free(m);
    lg = (float *)malloc(sizeof(float) * (size_t)(V * 64));
    for (ng = 0; ng < 2; ng++) { /* decode graphs, then op by op */
        char want[160];
        /* NaN in the final norm: every logit NaN; the first new token already */
        copy_fixture("qwen3", "nan", dir, sizeof dir);
        poison(dir, "model.norm.weight", 0, 0, NAN);
        m = load(dir, 2, 128, ng);
        if (!m) continue;
        snprintf(want, sizeof want, "gk_llm_generate: no token can be sampled for new token 0 (position %zu): its logits are NaN or -inf", p.len);
        out.len = 0; text.len = 0;
        FAILS(dut, gk_llm_generate(m, prompt, &gd, &out, &text, NULL), GK_ERR_FORMAT, want);
        GKT_CHECK(out.len == 0 && text.len == 0, "ids after a failed generation: %zu", out.len);
        gd.sampling = GK_LLM_SAMPLE_CUSTOM; gd.sample.temperature = 0.8f; gd.sample.top_k = 20; gd.sample.top_p = 0.9f;
        FAILS(dut, gk_llm_generate(m, prompt, &gd, &out, &text, NULL), GK_ERR_FORMAT, "no token can be sampled for new token 0");
        gd.sample.top_k = 0; gd.sample.top_p = 0;
        FAILS(dut, gk_llm_generate(m, prompt, &gd, &out, &text, NULL), GK_ERR_FORMAT, "no token can be sampled for new token 0");
        gd.sampling = GK_LLM_SAMPLE_GREEDY;
        memset(&gd.sample, 0, sizeof gd.sample);
        /* the logits on the host already: gk_llm_forward's, the step logits */
        GKT_OK(dut, gk_llm_reset(m, 0));
        FAILS(dut, gk_llm_forward(m, 0, p.data, p.len, 1, lg), GK_ERR_FORMAT, "gk_llm_forward: the logits of position 0 of sequence 0 are not finite (logit 0 is NaN)");
        GKT_CHECK(gk_llm_seq_len(m, 0) == 0, "a failed forward keeps the sequence's length: %lld", (long long)gk_llm_seq_len(m, 0));
        GKT_OK(dut, gk_llm_forward(m, 0, p.data, p.len, 0, NULL)); /* no logits asked for: nothing to check */
        gd.step_logits = lg;
        FAILS(dut, gk_llm_generate(m, prompt, &gd, &out, &text, NULL), GK_ERR_FORMAT, "the logits of new token 0 (position");
        gd.step_logits = NULL;
        gk_llm_free(m);
        /* +inf in a layer's weights */
        copy_fixture("qwen3", "inf", dir, sizeof dir);
        poison(dir, "model.layers.0.mlp.down_proj.weight", 0, 0, INFINITY);
        m = load(dir, 1, 128, ng);
        if (m) {
            FAILS(dut, gk_llm_generate(m, prompt, &gd, &out, &text, NULL), GK_ERR_FORMAT, "no token can be sampled for new token 0");
            gk_llm_free(m);
        }
        /* a NaN embedding row for the last token of the second prompt, a token the first lacks:
           sequence 1 of a batch fails, sequence 0 alone is fine (the CPU attention does not carry
           a NaN key of an earlier position forward, so the token is the last one) */
        copy_fixture("qwen3", "nan_row", dir, sizeof dir);
        {
            int32_t tokrow = -1, x;
            size_t j;
            for (x = 3; x < (int32_t)V && tokrow < 0; x++) {
                int in1 = 0;
                for (j = 0; j < p.len; j++) in1 |= p.data[j] == x;
                if (!in1) tokrow = x;
            }
            GKT_CHECK(tokrow >= 0, "a token that prompt 1 lacks");
            if (tokrow >= 0) {
                const int32_t *ps[2];
                size_t ls[2];
                gk_ids o2[2];
                poison(dir, "model.embed_tokens.weight", (uint64_t)tokrow * (uint64_t)hid, (uint64_t)hid, NAN);
                m = load(dir, 2, 128, ng);
                if (m) {
                    p2.len = 0;
                    encode(m, "Hello world! The model answers questions about numbers like 42 and keys.", &p2);
                    gk_ids_push(&p2, tokrow);
                    ps[0] = p.data; ps[1] = p2.data; ls[0] = p.len; ls[1] = p2.len;
                    memset(o2, 0, sizeof o2);
                    snprintf(want, sizeof want, "gk_llm_generate_batch: no token can be sampled for new token 0 of sequence 1 (position %zu)", p2.len);
                    FAILS(dut, gk_llm_generate_batch(m, ps, ls, 2, &gd, o2, NULL, NULL), GK_ERR_FORMAT, want);
                    GKT_CHECK(o2[0].len == 0 && o2[1].len == 0, "ids after a failed batch: %zu, %zu", o2[0].len, o2[1].len);
                    GKT_OK(dut, gk_llm_generate_batch(m, ps, ls, 1, &gd, o2, NULL, NULL)); /* prompt 1 alone is fine */
                    GKT_CHECK(o2[0].len == 8, "prompt 1 alone: %zu ids", o2[0].len);
                    gk_ids_free(&o2[0]); gk_ids_free(&o2[1]);
                    gk_llm_free(m);
                }
            }
        }
        /* NaN later: the row of the greedy token kk; the token after it cannot be sampled */
        GKT_CHECK(kk >= 1, "a new token that is in neither the prompt nor the tokens before it");
        if (kk >= 1) {
            copy_fixture("qwen3", "nan_later", dir, sizeof dir);
            poison(dir, "model.embed_tokens.weight", (uint64_t)g.data[kk] * (uint64_t)hid, (uint64_t)hid, NAN);
            m = load(dir, 1, 128, ng);
            if (m) {
                snprintf(want, sizeof want, "no token can be sampled for new token %lld (position %lld)", (long long)(kk + 1), (long long)(p.len + (size_t)kk + 1));
                out.len = 0;
                FAILS(dut, gk_llm_generate(m, prompt, &gd, &out, &text, NULL), GK_ERR_FORMAT, want);
                GKT_CHECK(out.len == 0, "no ids after the failure: %zu", out.len);
                gd.step_logits = lg;
                snprintf(want, sizeof want, "the logits of new token %lld (position %lld) are not finite", (long long)(kk + 1), (long long)(p.len + (size_t)kk + 1));
                FAILS(dut, gk_llm_generate(m, prompt, &gd, &out, &text, NULL), GK_ERR_FORMAT, want);
                gd.step_logits = NULL;
                gk_llm_free(m);
            }
        }
    }
    free(lg);
    gk_ids_free(&p); gk_ids_free(&p2); gk_ids_free(&g); gk_ids_free(&out); gk_buf_free(&text);
}

/* ---- 3. config.json / generation_config.json / gk_llm_desc ---- */
static int progress_calls;
static void on_progress(uint64_t done, uint64_t total, void *user) { (void)done; (void)total; (void)user; progress_calls++; }

typedef struct cfg_case { const char *fix, *file, *key, *value, *key2, *value2; gk_status st; const char *msg; } cfg_case;

static void config(void) {
    static const cfg_case cases[] = {
        /* the cases */
        { "qwen3", "config.json", "max_position_embeddings", "0", 0, 0, GK_ERR_FORMAT, "config.json: max_position_embeddings = 0 must be >= 1" },
        { "qwen3", "config.json", "rms_norm_eps", "-1", 0, 0, GK_ERR_FORMAT, "config.json: rms_norm_eps = -1 must be > 0" },
        { "qwen3", "config.json", "rope_theta", "0", 0, 0, GK_ERR_FORMAT, "config.json: rope_theta = 0 must be > 0" },
        { "qwen3", "generation_config.json", "do_sample", "true", "top_k", "-5", GK_ERR_FORMAT, "generation_config.json: top_k = -5 must be >= 0" },
        /* sizes and their relations (was "inconsistent sizes (...)") */
        { "qwen3", "config.json", "hidden_size", "0", 0, 0, GK_ERR_FORMAT, "config.json: hidden_size = 0 must be >= 1" },
        { "qwen3", "config.json", "hidden_size", "128.5", 0, 0, GK_ERR_FORMAT, "config.json: hidden_size = 128.5 is not an integer" },
        { "qwen3", "config.json", "intermediate_size", "\"256\"", 0, 0, GK_ERR_FORMAT, "config.json: intermediate_size = \"256\" is not an integer" },
        { "qwen3", "config.json", "num_hidden_layers", "-2", 0, 0, GK_ERR_FORMAT, "config.json: num_hidden_layers = -2 must be in 1..65536" },
        { "qwen3", "config.json", "vocab_size", NULL, 0, 0, GK_ERR_FORMAT, "config.json: vocab_size is missing" },
        { "qwen3", "config.json", "num_key_value_heads", "3", 0, 0, GK_ERR_FORMAT, "config.json: num_attention_heads = 4 is not a multiple of num_key_value_heads = 3" },
        { "qwen3", "config.json", "num_key_value_heads", "8", 0, 0, GK_ERR_FORMAT, "config.json: num_key_value_heads = 8 is more than num_attention_heads = 4" },
        { "qwen3", "config.json", "head_dim", NULL, "num_attention_heads", "3", GK_ERR_FORMAT, "config.json: num_attention_heads = 3 is not a multiple of num_key_value_heads = 2" },
        { "llama2", "config.json", "head_dim", NULL, "num_attention_heads", "3", GK_ERR_FORMAT, "config.json: num_key_value_heads = 4 is more than num_attention_heads = 3" },
        { "mistral", "config.json", "head_dim", NULL, "hidden_size", "250", GK_ERR_FORMAT, "config.json: hidden_size = 250 is not divisible by num_attention_heads = 4 (and there is no head_dim)" },
        { "qwen3", "config.json", "head_dim", "0", 0, 0, GK_ERR_FORMAT, "config.json: head_dim = 0 must be >= 1" },
        /* other fields */
        { "qwen3", "config.json", "rms_norm_eps", "\"1e-6\"", 0, 0, GK_ERR_FORMAT, "config.json: rms_norm_eps = \"1e-6\" is not a number" },
        { "qwen3", "config.json", "rms_norm_eps", "1e400", 0, 0, GK_ERR_FORMAT, "config.json: rms_norm_eps = inf is not finite" },
        { "qwen3", "config.json", "architectures", "\"Qwen3ForCausalLM\"", 0, 0, GK_ERR_FORMAT, "config.json: architectures = \"Qwen3ForCausalLM\" is not a list" },
        { "qwen3", "config.json", "hidden_act", "5", 0, 0, GK_ERR_FORMAT, "config.json: hidden_act = 5 is not a string" },
        { "qwen3", "config.json", "tie_word_embeddings", "\"yes\"", 0, 0, GK_ERR_FORMAT, "config.json: tie_word_embeddings = \"yes\" is not true or false" },
        { "qwen3", "config.json", "attention_bias", "1", 0, 0, GK_ERR_FORMAT, "config.json: attention_bias = 1 is not true or false" },
        { "qwen3", "config.json", "mlp_bias", "0", 0, 0, GK_ERR_FORMAT, "config.json: mlp_bias = 0 is not true or false" },
        { "qwen3", "config.json", "eos_token_id", "600", 0, 0, GK_ERR_FORMAT, "config.json: eos_token_id = 600 is outside the vocabulary (vocab_size 512: ids 0..511)" },
        { "qwen3", "config.json", "eos_token_id", "[2, \"x\"]", 0, 0, GK_ERR_FORMAT, "config.json: eos_token_id[1] = \"x\" is not a token id" },
        { "qwen3", "config.json", "eos_token_id", "[1,2,3,4,5,6,7,8,9]", 0, 0, GK_ERR_LIMIT, "config.json: eos_token_id lists 9 ids; at most 8" },
        { "qwen3", "config.json", "bos_token_id", "-1", 0, 0, GK_ERR_FORMAT, "config.json: bos_token_id = -1 is outside the vocabulary" },
        { "qwen3", "config.json", "use_sliding_window", "true", "sliding_window", "-5", GK_ERR_FORMAT, "config.json: sliding_window = -5 must be >= 1" },
        { "mistral", "config.json", "sliding_window", "\"4096\"", 0, 0, GK_ERR_FORMAT, "config.json: sliding_window = \"4096\" is not an integer" },
        { "qwen3", "config.json", "partial_rotary_factor", "0", 0, 0, GK_ERR_FORMAT, "config.json: partial_rotary_factor = 0 must be > 0" },
        { "qwen3", "config.json", "partial_rotary_factor", "1.5", 0, 0, GK_ERR_FORMAT, "config.json: partial_rotary_factor = 1.5 must be <= 1" },
        { "qwen3", "config.json", "+hidden_size", "64", 0, 0, GK_ERR_FORMAT, "config.json: key \"hidden_size\" appears twice" },
        { "qwen3", "config.json", "quantization_config", "{\"quant_method\": \"gptq\", \"bits\": 4}", 0, 0, GK_ERR_UNSUPPORTED,
          "config.json: quantization_config (quant_method gptq) is not supported" },
        { "qwen3", "config.json", "layer_types", "[\"full_attention\", \"sliding\"]", 0, 0, GK_ERR_FORMAT,
          "config.json: layer_types[1] = \"sliding\" is not \"full_attention\" or \"sliding_attention\"" },
        { "qwen3", "config.json", "layer_types", "[\"full_attention\"]", 0, 0, GK_ERR_FORMAT, "config.json: layer_types = a list of 1 is not a list of num_hidden_layers = 2 entries" },
        { "qwen3", "config.json", "layer_types", "[\"full_attention\", \"sliding_attention\"]", "sliding_window", "16", GK_ERR_UNSUPPORTED,
          "config.json: sliding_window = 16 is shorter than the context of 64 tokens" },
        { "mistral", "config.json", "sliding_window", "32", 0, 0, GK_ERR_UNSUPPORTED, "config.json: sliding_window = 32 is shorter than the context of 64 tokens" },
        /* RoPE scaling, old and new form */
        { "qwen3", "config.json", "rope_scaling", "{\"rope_type\": \"linear\"}", 0, 0, GK_ERR_FORMAT, "config.json: rope_scaling.factor is missing" },
        { "qwen3", "config.json", "rope_scaling", "{\"rope_type\": \"linear\", \"factor\": -2}", 0, 0, GK_ERR_FORMAT, "config.json: rope_scaling.factor = -2 must be > 0" },
        { "qwen3", "config.json", "rope_scaling", "{\"type\": 3}", 0, 0, GK_ERR_FORMAT, "config.json: rope_scaling.type = 3 is not a string" },
        { "qwen3", "config.json", "rope_scaling", "[1]", 0, 0, GK_ERR_FORMAT, "config.json: rope_scaling = a list of 1 is not an object" },
        { "qwen3", "config.json", "rope_scaling", "{\"rope_type\": \"yarn\", \"factor\": 4, \"beta_fast\": \"x\"}", 0, 0, GK_ERR_FORMAT,
          "config.json: rope_scaling.beta_fast = \"x\" is not a number" },
        { "llama3", "config.json", "high_freq_factor", "1.0", 0, 0, GK_ERR_FORMAT, "config.json: rope_parameters.low_freq_factor = 1 must be < high_freq_factor = 1" },
        { "llama3", "config.json", "original_max_position_embeddings", NULL, 0, 0, GK_ERR_FORMAT,
          "config.json: rope_parameters.original_max_position_embeddings is missing" },
        { "llama3", "config.json", "rope_theta", "-500000.0", 0, 0, GK_ERR_FORMAT, "config.json: rope_parameters.rope_theta = -500000 must be > 0" },
        { "qwen2", "config.json", "rope_parameters", "\"default\"", 0, 0, GK_ERR_FORMAT, "config.json: rope_parameters = \"default\" is not an object" },
        /* a tied lm_head that the config says is not tied (was: the embeddings, silently) */
        { "llama3", "config.json", "tie_word_embeddings", "false", 0, 0, GK_ERR_NOT_FOUND, "tensor lm_head.weight is missing from" },
        /* generation_config.json */
        { "qwen3", "generation_config.json", "do_sample", "true", "temperature", "0", GK_ERR_FORMAT, "generation_config.json: temperature = 0 must be > 0 when do_sample is true" },
        { "qwen3", "generation_config.json", "temperature", "-1", 0, 0, GK_ERR_FORMAT, "generation_config.json: temperature = -1 must be >= 0" },
        { "qwen3", "generation_config.json", "top_p", "1.5", 0, 0, GK_ERR_FORMAT, "generation_config.json: top_p = 1.5 must be <= 1" },
        { "qwen3", "generation_config.json", "min_p", "-0.1", 0, 0, GK_ERR_FORMAT, "generation_config.json: min_p = -0.1 must be >= 0" },
        { "qwen3", "generation_config.json", "repetition_penalty", "0", 0, 0, GK_ERR_FORMAT, "generation_config.json: repetition_penalty = 0 must be > 0" },
        { "qwen3", "generation_config.json", "max_new_tokens", "0", 0, 0, GK_ERR_FORMAT, "generation_config.json: max_new_tokens = 0 must be >= 1" },
        { "qwen3", "generation_config.json", "top_k", "2.5", 0, 0, GK_ERR_FORMAT, "generation_config.json: top_k = 2.5 is not an integer" },
        { "qwen3", "generation_config.json", "do_sample", "\"true\"", 0, 0, GK_ERR_FORMAT, "generation_config.json: do_sample = \"true\" is not true or false" },
        { "qwen3", "generation_config.json", "eos_token_id", "[2, 9999]", 0, 0, GK_ERR_FORMAT, "generation_config.json: eos_token_id[1] = 9999 is outside the vocabulary" },
        { "qwen3", "generation_config.json", "bos_token_id", "512", 0, 0, GK_ERR_FORMAT, "generation_config.json: bos_token_id = 512 is outside the vocabulary" },
        { "qwen3", "generation_config.json", "+do_sample", "true", 0, 0, GK_ERR_FORMAT, "generation_config.json: key \"do_sample\" appears twice" },
        { "qwen3", "tokenizer_config.json", "+eos_token", "\"<|im_end|>\"", 0, 0, GK_ERR_FORMAT, "tokenizer_config.json: key \"eos_token\" appears twice" },
        { "qwen3", "tokenizer.json", "dropout", "2", 0, 0, GK_ERR_FORMAT, "tokenizer.json: model.dropout = 2 is not null or a number in [0, 1]" },
        { "qwen3", "tokenizer.json", "+normalizer", "null", 0, 0, GK_ERR_FORMAT, "tokenizer.json: key \"normalizer\" appears twice" },
    };
    char dir[400];
    size_t i;
    gk_llm *m = NULL;
    gk_llm_desc d;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const cfg_case *c = &cases[i];
        char want[600];
        gk_status st;
        copy_fixture(c->fix, "cfg", dir, sizeof dir);
        set_field(dir, c->file, c->key, c->value);
        if (c->key2) set_field(dir, c->file, c->key2, c->value2);
        memset(&d, 0, sizeof d);
        d.dtype = GK_LLM_DTYPE_F32; d.max_ctx = 64; d.progress = on_progress;
        progress_calls = 0;
        m = NULL;
        st = gk_llm_load(dut, dir, &d, &m);
        snprintf(want, sizeof want, "gk_llm_load: %s/%s", dir, c->msg);
        if (c->msg[0] == 0 || c->st == GK_ERR_NOT_FOUND) snprintf(want, sizeof want, "%s", c->msg);
        GKT_CHECK(st == c->st && strstr(gk_last_error(dut), want) && !strstr(gk_last_error(dut), "gk__"), "case %zu (%s: %s = %s): %s \"%s\" (want %s \"%s\")", i, c->fix,
                  c->key, c->value ? c->value : "removed", gk_status_name(st), gk_last_error(dut), gk_status_name(c->st), want);
        GKT_CHECK(progress_calls == 0, "case %zu (%s = %s): %d weight uploads before the error", i, c->key, c->value ? c->value : "removed", progress_calls);
        GKT_CHECK(m == NULL, "case %zu: a model after a failed load", i);
        gk_llm_free(m);
    }
    /* good edits load: a null head_dim (hidden / heads), swish, eos lists, an empty eos list */
    {
        static const char *const kv[][2] = { { "hidden_act", "\"swish\"" }, { "eos_token_id", "[2, 0]" }, { "eos_token_id", "[]" }, { "sliding_window", "null" } };
        for (i = 0; i < 4; i++) {
            copy_fixture("qwen3", "cfg", dir, sizeof dir);
            set_field(dir, "config.json", kv[i][0], kv[i][1]);
            m = load(dir, 1, 64, 0);
            gk_llm_free(m);
        }
    }
    /* gk_llm_desc */
    copy_fixture("qwen3", "cfg", dir, sizeof dir);
    set_field(dir, "config.json", "max_position_embeddings", "64");
    memset(&d, 0, sizeof d);
    d.max_ctx = 128;
    FAILS(dut, gk_llm_load(dut, dir, &d, &m), GK_ERR_LIMIT, "gk_llm_load: gk_llm_desc.max_ctx = 128 is above the model's max_position_embeddings = 64");
    d.max_ctx = -1;
    FAILS(dut, gk_llm_load(dut, dir, &d, &m), GK_ERR_INVALID_ARGUMENT, "gk_llm_load: gk_llm_desc.max_ctx = -1 must be >= 1");
    d.max_ctx = 0; d.max_seqs = -1;
    FAILS(dut, gk_llm_load(dut, dir, &d, &m), GK_ERR_INVALID_ARGUMENT, "gk_llm_load: gk_llm_desc.max_seqs = -1 must be in 1..256");
    d.max_seqs = 300;
    FAILS(dut, gk_llm_load(dut, dir, &d, &m), GK_ERR_INVALID_ARGUMENT, "gk_llm_load: gk_llm_desc.max_seqs = 300 must be in 1..256");
    d.max_seqs = 0; d.dtype = (gk_llm_dtype)9;
    FAILS(dut, gk_llm_load(dut, dir, &d, &m), GK_ERR_INVALID_ARGUMENT, "gk_llm_load: gk_llm_desc.dtype = 9 is not a gk_llm_dtype");
    d.dtype = GK_LLM_DTYPE_F32;
    GKT_OK(dut, gk_llm_load(dut, dir, &d, &m)); /* 0: min(64, 4096) */
    GKT_CHECK(m && gk_llm_max_ctx(m) == 64, "default max_ctx %lld", m ? (long long)gk_llm_max_ctx(m) : -1LL);
    gk_llm_free(m);
}

/* ---- 4. names ---- */
static void names(void) {
    char dir[400], p[600];
    gk_llm *m = NULL;
    gk_tokenizer *tok = NULL;
    gk_safetensors *st = NULL;
    gk_json *doc = NULL;
    gk_chat_template t;
    gk_tensor out;
    gk_ids ids = { 0, 0, 0 };
    gk_buf b = { 0, 0, 0 };
    gk_llm_gen_desc gd;
    char *data = NULL;
    size_t n = 0;
    float f[4];
    const char *stops[1] = { "" };
    copy_fixture("qwen3", "names", dir, sizeof dir);
    FAILS(NULL, gk_llm_load(NULL, dir, NULL, &m), GK_ERR_INVALID_HANDLE, "gk_llm_load: ctx is NULL");
    FAILS(dut, gk_llm_load(dut, NULL, NULL, &m), GK_ERR_INVALID_ARGUMENT, "gk_llm_load: dir is NULL");
    FAILS(dut, gk_llm_load(dut, dir, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_load: out is NULL");
    FAILS(dut, gk_llm_load(dut, "", NULL, &m), GK_ERR_INVALID_ARGUMENT, "gk_llm_load: dir is \"\"");
    {   /* a folder where config.json should be */
        char want[700];
        snprintf(p, sizeof p, "%s/config.json", dir);
        remove(p);
        mkdir(p, 0755);
        snprintf(want, sizeof want, "gk_llm_load: read error on '%s': Is a directory", p);
        FAILS(dut, gk_llm_load(dut, dir, NULL, &m), GK_ERR_IO, want);
        snprintf(want, sizeof want, "read error on '%s': Is a directory", p);
        FAILS(NULL, gk_json_parse_file(p, NULL, &doc), GK_ERR_IO, want);
        rmdir(p);
        copy_fixture("qwen3", "names", dir, sizeof dir);
    }
    FAILS(NULL, gk_tokenizer_load(NULL, &tok), GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_load: path is NULL");
    snprintf(p, sizeof p, "%s/tokenizer.json", dir);
    FAILS(NULL, gk_tokenizer_load(p, NULL), GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_load: out is NULL");
    FAILS(NULL, gk_tokenizer_from_json(NULL, &tok), GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_from_json: root is NULL");
    FAILS(NULL, gk_json_parse_file(NULL, NULL, &doc), GK_ERR_INVALID_ARGUMENT, "gk_json_parse_file: path is NULL");
    FAILS(NULL, gk_json_parse_file(p, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_json_parse_file: out is NULL");
    FAILS(NULL, gk_read_file(NULL, 0, &data, &n), GK_ERR_INVALID_ARGUMENT, "gk_read_file: path is NULL");
    FAILS(NULL, gk_read_file(p, 0, NULL, &n), GK_ERR_INVALID_ARGUMENT, "gk_read_file: data is NULL");
    FAILS(NULL, gk_chat_template_load(NULL, &t), GK_ERR_INVALID_ARGUMENT, "gk_chat_template_load: tokenizer_config_path is NULL");
    FAILS(NULL, gk_chat_template_detect(NULL, NULL, NULL, &t), GK_ERR_INVALID_ARGUMENT, "gk_chat_template_detect: jinja is NULL");
    FAILS(NULL, gk_chat_template_from_config(NULL, &t), GK_ERR_INVALID_ARGUMENT, "gk_chat_template_from_config: config is NULL");
    FAILS(NULL, gk_chat_template_builtin(NULL, NULL, NULL, &t), GK_ERR_INVALID_ARGUMENT, "gk_chat_template_builtin: name is NULL");
    FAILS(NULL, gk_tokenizer_encode(NULL, "a", 1, 0, &ids), GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_encode: tok is NULL");
    FAILS(NULL, gk_st_open(NULL, &st), GK_ERR_INVALID_ARGUMENT, "gk_st_open: path is NULL");
    snprintf(p, sizeof p, "%s/model.safetensors", dir);
    GKT_OK(NULL, gk_st_open(p, &st));
    FAILS(NULL, gk_st_upload(NULL, st, "model.norm.weight", GK_F32, &out, NULL, NULL), GK_ERR_INVALID_HANDLE, "gk_st_upload: ctx is NULL");
    FAILS(dut, gk_st_upload(dut, NULL, "model.norm.weight", GK_F32, &out, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_st_upload: st is NULL");
    FAILS(NULL, gk_st_read(st, NULL, GK_F32, f, sizeof f), GK_ERR_INVALID_ARGUMENT, "gk_st_read: name is NULL");
    FAILS(NULL, gk_st_read_raw(NULL, "x", f, sizeof f), GK_ERR_INVALID_ARGUMENT, "gk_st_read_raw: st is NULL");
    FAILS(NULL, gk_st_read(st, "model.norm.weight", GK_F32, NULL, 1 << 20), GK_ERR_INVALID_ARGUMENT, "gk_st_read: dst is NULL");
    gk_st_close(st);
    m = load(dir, 1, 64, 0);
    if (!m) return;
    FAILS(NULL, gk_tokenizer_encode(gk_llm_tokenizer(m), "a", 1, 8, &ids), GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_encode: flags 0x8 has bits that are not encode flags");
    FAILS(NULL, gk_tokenizer_decode(gk_llm_tokenizer(m), NULL, 0, GK_TOK_ADD_SPECIAL, &b), GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_decode: flags 0x1 has bits");
    {
        int32_t bad = 600;
        FAILS(NULL, gk_tokenizer_decode(gk_llm_tokenizer(m), &bad, 1, 0, &b), GK_ERR_NOT_FOUND, "decode: token id 600 is not in the vocabulary (ids 0..");
    }
    FAILS(dut, gk_llm_reset(m, 5), GK_ERR_INVALID_ARGUMENT, "gk_llm_reset: sequence 5 outside 0..0");
    FAILS(NULL, gk_llm_reset(NULL, 0), GK_ERR_INVALID_ARGUMENT, "gk_llm_reset: m is NULL");
    FAILS(dut, gk_llm_forward(m, 0, (const int32_t *)f, 0, 0, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_forward: n is 0");
    FAILS(NULL, gk_llm_generate(NULL, "x", NULL, &ids, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_generate: m is NULL");
    FAILS(dut, gk_llm_generate(m, NULL, NULL, &ids, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_generate: prompt is NULL");
    FAILS(dut, gk_llm_generate(m, "", NULL, &ids, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_generate: the prompt \"\" gives no tokens");
    FAILS(dut, gk_llm_chat_ids(m, NULL, 0, 0, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_chat_ids: out is NULL");
    FAILS(dut, gk_llm_chat_ids(m, NULL, 0, 64, &ids), GK_ERR_INVALID_ARGUMENT, "gk_llm_chat_ids: flags = 0x40 has bits that are not GK_LLM_GEN_* flags");
    memset(&gd, 0, sizeof gd);
    gd.max_new_tokens = -5; /* was: silently 256 */
    FAILS(dut, gk_llm_generate(m, "Once", &gd, &ids, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_generate: gk_llm_gen_desc.max_new_tokens = -5 must be >= 1");
    gd.max_new_tokens = 2; gd.sampling = 7;
    FAILS(dut, gk_llm_generate(m, "Once", &gd, &ids, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_gen_desc.sampling = 7 is not a GK_LLM_SAMPLE_* mode");
    gd.sampling = GK_LLM_SAMPLE_CUSTOM; gd.sample.temperature = 1; gd.sample.top_k = -5; /* was "gk_sample: top_k = -5 is negative" */
    FAILS(dut, gk_llm_generate(m, "Once", &gd, &ids, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_generate: gk_llm_gen_desc.sample.top_k = -5 is negative");
    gd.sample.top_k = 0; gd.sample.top_p = 2;
    FAILS(dut, gk_llm_generate(m, "Once", &gd, &ids, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_gen_desc.sample.top_p = 2 must be in (0, 1]");
    gd.sample.top_p = 0; gd.sample.temperature = NAN;
    FAILS(dut, gk_llm_generate(m, "Once", &gd, &ids, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_gen_desc.sample.temperature = nan is not finite");
    gd.sample.temperature = 0; gd.sample.repetition_penalty = -1;
    FAILS(dut, gk_llm_generate(m, "Once", &gd, &ids, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_gen_desc.sample.repetition_penalty = -1 must be finite and > 0");
    memset(&gd.sample, 0, sizeof gd.sample);
    gd.flags = 16;
    FAILS(dut, gk_llm_generate(m, "Once", &gd, &ids, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_gen_desc.flags = 0x10 has bits that are not GK_LLM_GEN_* flags");
    gd.flags = 0; gd.stop = stops; gd.n_stop = 1;
    FAILS(dut, gk_llm_generate(m, "Once", &gd, &ids, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_gen_desc.stop[0] is empty");
    GKT_CHECK(ids.len == 0, "no ids from refused calls: %zu", ids.len);
    gk_ids_free(&ids); gk_buf_free(&b);
    gk_llm_free(m);
}

/* ---- 5. tokenizer.json ---- */
static void tokenizer(void) {
    static const struct { const char *json; gk_status st; const char *msg; } cases[] = {
        { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1}}}", GK_ERR_FORMAT, "tokenizer.json: model.merges is missing" },
        { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1},\"merges\":null}}", GK_ERR_FORMAT, "tokenizer.json: model.merges = null is not a list" },
        { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1},\"merges\":{}}}", GK_ERR_FORMAT, "tokenizer.json: model.merges = an object is not a list" },
        { "{\"model\":{\"type\":\"BPE\",\"merges\":[]}}", GK_ERR_FORMAT, "tokenizer.json: model.vocab is missing, not an object" },
        { "{\"model\":{\"type\":5,\"vocab\":{},\"merges\":[]}}", GK_ERR_FORMAT, "tokenizer.json: model.type = 5 is not a string" },
        { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[],\"byte_fallback\":\"yes\"}}", GK_ERR_FORMAT,
          "tokenizer.json: model.byte_fallback = \"yes\" is not true or false" },
        { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[],\"unk_token\":\"<unk>\"}}", GK_ERR_FORMAT,
          "tokenizer.json: model.unk_token \"<unk>\" is not in the vocab" },
        { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[],\"unk_token\":0}}", GK_ERR_FORMAT, "model.unk_token = 0 is not a string or null" },
        { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]},\"added_tokens\":[{\"id\":1,\"content\":\"<s>\",\"special\":\"yes\"}]}", GK_ERR_FORMAT,
          "tokenizer.json: added_tokens[0].special = \"yes\" is not true or false" },
        { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]},\"added_tokens\":{}}", GK_ERR_FORMAT, "tokenizer.json: added_tokens = an object is not a list" },
        { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]},\"normalizer\":{\"type\":\"Sequence\"}}", GK_ERR_FORMAT,
          "tokenizer.json: normalizer Sequence: normalizers = missing is not a list" },
        { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]},\"pre_tokenizer\":{\"type\":\"Sequence\",\"pretokenizers\":{}}}", GK_ERR_FORMAT,
          "tokenizer.json: pre_tokenizer Sequence: pretokenizers = an object is not a list" },
        { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]},\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":1}}", GK_ERR_FORMAT,
          "tokenizer.json: ByteLevel pre_tokenizer: add_prefix_space = 1 is not true or false" },
        { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]},\"pre_tokenizer\":{\"type\":\"Metaspace\",\"replacement\":\"_\",\"prepend_scheme\":\"sometimes\"}}",
          GK_ERR_FORMAT, "tokenizer.json: Metaspace pre_tokenizer: prepend_scheme = \"sometimes\" is not \"always\", \"first\" or \"never\"" },
        { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]},\"pre_tokenizer\":{\"type\":\"Metaspace\",\"replacement\":\"ab\"}}", GK_ERR_FORMAT,
          "Metaspace pre-tokenizer needs a one-character replacement" },
        { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]},\"decoder\":{\"type\":\"Metaspace\",\"replacement\":\"_\",\"prepend_scheme\":7}}", GK_ERR_FORMAT,
          "tokenizer.json: Metaspace decoder: prepend_scheme = 7 is not" },
        { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]},\"decoder\":{\"type\":\"Strip\",\"content\":\" \",\"start\":-1,\"stop\":0}}", GK_ERR_FORMAT,
          "tokenizer.json: Strip decoder: start = -1 is not a count" },
        { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]},\"decoder\":{\"type\":\"Sequence\",\"decoders\":\"x\"}}", GK_ERR_FORMAT,
          "tokenizer.json: decoder Sequence: decoders = \"x\" is not a list" },
        { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]},\"post_processor\":{\"type\":\"TemplateProcessing\"}}", GK_ERR_FORMAT,
          "tokenizer.json: TemplateProcessing post_processor: single = missing is not a list" },
        { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]},\"post_processor\":{\"type\":\"Sequence\",\"processors\":null}}", GK_ERR_FORMAT,
          "tokenizer.json: post_processor Sequence: processors = null is not a list" },
        { "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0},\"merges\":[]},\"pre_tokenizer\":{\"type\":\"Split\",\"pattern\":{\"Regex\":\"x\"},\"behavior\":\"Isolated\",\"invert\":\"no\"}}",
          GK_ERR_FORMAT, "tokenizer.json: Split pre_tokenizer: invert = \"no\" is not true or false" },
    };
    char dir[400], path[600];
    size_t i;
    gk_tokenizer *t = NULL;
    gk_ids ids = { 0, 0, 0 };
    gk_llm *m = NULL;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gk_status st = gk_tokenizer_load_mem(cases[i].json, strlen(cases[i].json), &t);
        GKT_CHECK(st == cases[i].st && strstr(gk_last_error(NULL), cases[i].msg), "case %zu: %s \"%s\" (want %s \"%s\")", i, gk_status_name(st), gk_last_error(NULL),
                  gk_status_name(cases[i].st), cases[i].msg);
        GKT_CHECK(t == NULL, "case %zu: a tokenizer after a failed load", i);
        gk_tokenizer_free(t);
        t = NULL;
    }
    /* an empty merges list is a BPE without merges (every character its own token) */
    {
        const char *js = "{\"model\":{\"type\":\"BPE\",\"vocab\":{\"a\":0,\"b\":1},\"merges\":[]}}";
        GKT_OK(NULL, gk_tokenizer_load_mem(js, strlen(js), &t));
    }
    if (t) {
        GKT_OK(NULL, gk_tokenizer_encode(t, "ab", 2, 0, &ids));
        GKT_CHECK(ids.len == 2, "ab: %zu ids", ids.len);
        gk_tokenizer_free(t);
    }
    /* a model folder whose tokenizer.json lost its merges: named by path, at load */
    copy_fixture("qwen3", "nomerges", dir, sizeof dir);
    set_field(dir, "tokenizer.json", "merges", NULL);
    snprintf(path, sizeof path, "%s/tokenizer.json", dir);
    {
        char want[700];
        snprintf(want, sizeof want, "%s: model.merges is missing: a BPE model needs its merges list", path);
        FAILS(NULL, gk_tokenizer_load(path, &t), GK_ERR_FORMAT, want);
        snprintf(want, sizeof want, "gk_llm_load: %s: model.merges is missing", path);
        FAILS(dut, gk_llm_load(dut, dir, NULL, &m), GK_ERR_FORMAT, want);
    }
    gk_ids_free(&ids);
}

/* ---- 6. other inputs: tokenizer_config.json, chat templates, safetensors indexes ---- */
static void inputs(void) {
    char dir[400], path[600], want[800], big[200];
    gk_llm *m = NULL;
    gk_chat_template t;
    gk_buf b = { 0, 0, 0 };
    gk_chat_message msg = { "user", "hi" };
    gk_safetensors *st = NULL;
    /* chat_template of the wrong type (was: "has no chat_template", GK_ERR_NOT_FOUND) */
    copy_fixture("qwen3", "tc", dir, sizeof dir);
    set_field(dir, "tokenizer_config.json", "chat_template", "5");
    snprintf(path, sizeof path, "%s/tokenizer_config.json", dir);
    snprintf(want, sizeof want, "gk_llm_load: %s: chat_template = 5 is not a string or a list of {name, template}", path);
    FAILS(dut, gk_llm_load(dut, dir, NULL, &m), GK_ERR_FORMAT, want);
    snprintf(want, sizeof want, "%s: chat_template = 5 is not a string", path);
    FAILS(NULL, gk_chat_template_load(path, &t), GK_ERR_FORMAT, want);
    set_field(dir, "tokenizer_config.json", "chat_template", "[{\"name\": \"tool_use\", \"template\": \"x\"}]");
    snprintf(want, sizeof want, "%s: chat_template lists 1 templates but none named \"default\"", path);
    FAILS(NULL, gk_chat_template_load(path, &t), GK_ERR_NOT_FOUND, want);
    set_field(dir, "tokenizer_config.json", "chat_template", "[{\"name\": \"default\"}]");
    FAILS(NULL, gk_chat_template_load(path, &t), GK_ERR_FORMAT, "chat_template[0] is not {\"name\": \"...\", \"template\": \"...\"}");
    /* bos / eos tokens: of the wrong type (was: ignored), too long for the template (was: cut) */
    copy_fixture("qwen3", "tc", dir, sizeof dir);
    set_field(dir, "tokenizer_config.json", "eos_token", "5");
    snprintf(want, sizeof want, "gk_llm_load: %s: eos_token = 5 is not a string, null or {\"content\": \"...\"}", path);
    FAILS(dut, gk_llm_load(dut, dir, NULL, &m), GK_ERR_FORMAT, want);
    memset(big, 'x', 100);
    big[0] = '"'; big[99] = '"'; big[100] = 0;
    set_field(dir, "tokenizer_config.json", "eos_token", big);
    FAILS(dut, gk_llm_load(dut, dir, NULL, &m), GK_ERR_LIMIT, "tokenizer_config.json: eos_token \"xxxxxxxxxxxxxxxxxxxx...\" is 98 bytes; gk_chat_template holds at most 63");
    FAILS(NULL, gk_chat_template_detect("<|im_start|>", big, NULL, &t), GK_ERR_LIMIT, "gk_chat_template_detect: bos");
    /* no chat_template in tokenizer_config.json: the .jinja file, with tokenizer_config.json's tokens checked */
    copy_fixture("qwen3", "tc", dir, sizeof dir);
    set_field(dir, "tokenizer_config.json", "chat_template", NULL);
    set_field(dir, "tokenizer_config.json", "bos_token", "[1]");
    snprintf(want, sizeof want, "gk_llm_load: %s: bos_token = a list of 1 is not a string, null or {\"content\": \"...\"}", path);
    FAILS(dut, gk_llm_load(dut, dir, NULL, &m), GK_ERR_FORMAT, want);
    set_field(dir, "tokenizer_config.json", "bos_token", "{\"content\": \"<s>\"}");
    write_text(dir, "chat_template.jinja", "{{ messages }}");
    snprintf(path, sizeof path, "%s/chat_template.jinja", dir);
    snprintf(want, sizeof want, "gk_llm_load: %s: unknown chat template: \"{{ messages }}\"", path);
    FAILS(dut, gk_llm_load(dut, dir, NULL, &m), GK_ERR_UNSUPPORTED, want);
    /* chat flags */
    GKT_OK(NULL, gk_chat_template_builtin("chatml", NULL, NULL, &t));
    FAILS(NULL, gk_chat_apply(&t, &msg, 1, 16, &b), GK_ERR_INVALID_ARGUMENT, "gk_chat_apply: flags 0x10 has bits that are not chat flags");
    msg.content = NULL;
    FAILS(NULL, gk_chat_apply(&t, &msg, 1, 0, &b), GK_ERR_INVALID_ARGUMENT, "gk_chat_apply: msgs[0].content is NULL");
    /* a safetensors index that lists no tensor (was: an empty set of tensors) */
    write_text(dir, "empty.safetensors.index.json", "{\"metadata\": {}, \"weight_map\": {}}");
    snprintf(path, sizeof path, "%s/empty.safetensors.index.json", dir);
    snprintf(want, sizeof want, "%s: weight_map is empty", path);
    FAILS(NULL, gk_st_open(path, &st), GK_ERR_FORMAT, want);
    gk_buf_free(&b);
}

int main(int argc, char **argv) {
    static const struct { const char *name; void (*fn)(void); } sections[] = {
        { "config", config }, { "names", names }, { "tokenizer", tokenizer }, { "inputs", inputs }, { "nonfinite", nonfinite }, { "pairs", pairs } };
    size_t i;
    int ran = 0;
    gkt_seed();
    dut = gkt_dut();
    snprintf(tmpdir, sizeof tmpdir, "build/test_llm_errors.%ld", (long)time(NULL) ^ (long)clock());
    mkdir("build", 0755);
    mkdir(tmpdir, 0755);
    for (i = 0; i < sizeof sections / sizeof sections[0]; i++)
        if (argc < 2 || strcmp(argv[1], sections[i].name) == 0) {
            printf("-- %s\n", sections[i].name);
            fflush(stdout);
            sections[i].fn();
            ran++;
        }
    GKT_CHECK(ran > 0, "no section named %s", argc > 1 ? argv[1] : "");
    gk_ctx_destroy(dut);
    {
        char cmd[320];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (getenv("GKT_LLM_KEEP")) printf("model folders kept in %s\n", tmpdir);
        else if (system(cmd) != 0) printf("could not remove %s\n", tmpdir);
    }
    return gkt_done("test_llm_errors");
}
