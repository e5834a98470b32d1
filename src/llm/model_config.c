/* ======================================================================== */
/* >>impl_model                                                             */
/* ======================================================================== */
#include <time.h>

#define GK__LLM_MAX_VIEWS 96

/* A scratch list of views made while issuing one block of ops; errors stick
   (later calls are skipped) and every view is freed at the end. */
typedef struct gk__lv {
    gk_ctx *ctx;
    gk_status st;
    int n;
    gk_tensor t[GK__LLM_MAX_VIEWS];
} gk__lv;

static gk_tensor gk__lv_keep(gk__lv *v, gk_status s, gk_tensor t) {
    gk_tensor z;
    z.id = 0;
    if (s != GK_OK) { if (v->st == GK_OK) v->st = s; return z; }
    if (v->n >= GK__LLM_MAX_VIEWS) {
        gk_tensor_free(v->ctx, t);
        v->st = gk_error_set(v->ctx, GK_ERR_INTERNAL, "gk_llm: too many views in one step");
        return z;
    }
    v->t[v->n++] = t;
    return t;
}
static gk_tensor gk__lv_slice(gk__lv *v, gk_tensor x, int dim, int64_t a, int64_t b) {
    gk_tensor t;
    t.id = 0;
    if (v->st != GK_OK) return t;
    return gk__lv_keep(v, gk_view_slice(v->ctx, x, dim, a, b, 1, &t), t);
}
static gk_tensor gk__lv_reshape(gk__lv *v, gk_tensor x, int nd, int64_t d0, int64_t d1, int64_t d2, int64_t d3) {
    gk_tensor t;
    int64_t sh[4];
    t.id = 0;
    sh[0] = d0; sh[1] = d1; sh[2] = d2; sh[3] = d3;
    if (v->st != GK_OK) return t;
    return gk__lv_keep(v, gk_view_reshape(v->ctx, x, nd, sh, &t), t);
}
static gk_tensor gk__lv_unsq(gk__lv *v, gk_tensor x, int dim) {
    gk_tensor t;
    t.id = 0;
    if (v->st != GK_OK) return t;
    return gk__lv_keep(v, gk_view_unsqueeze(v->ctx, x, dim, &t), t);
}
static void gk__lv_do(gk__lv *v, gk_status s) { if (v->st == GK_OK && s != GK_OK) v->st = s; }
/* issues call only while no earlier step of v failed, so the context keeps
   the first failure's message (a later op would fail on its null handles) */
#define GK__LV_DO(v, call) do { if ((v)->st == GK_OK) gk__lv_do((v), (call)); } while (0)
static void gk__lv_free(gk__lv *v) {
    int i;
    for (i = 0; i < v->n; i++) gk_tensor_free(v->ctx, v->t[i]);
    v->n = 0;
}

typedef struct gk__llm_layer {
    gk_tensor ln1, ln2, wqkv, bqkv, wq, wk, wv, bq, bk, bv, wo, bo, qn, kn, wgu, wdown;
    gk_tensor kv;                   /* [max_seqs, max_ctx, 2 * kv_heads, head_dim]: K heads, then V heads */
} gk__llm_layer;

struct gk_llm {
    gk_ctx *ctx;
    gk_llm_config cfg;
    gk_dtype dt;
    int64_t max_ctx;
    int max_seqs;
    int fused;                      /* q/k/v fused (no qk norm) */
    int no_graphs;
    unsigned dbg_skip;              /* GPUKIT_LLM_DEBUG_SKIP (measurement only, wrong results): decode-step ops left out, gk__llm_layers */
    gk_stream *stream;
    gk_tokenizer *tok;
    gk_chat_template tmpl;
    int has_tmpl;
    gk_tensor embed, lm_head, norm, cos_tab, sin_tab;
    gk__llm_layer *L;
    int64_t *len;                   /* host copy of each sequence's length */
    /* decode state (device), rows = max_seqs */
    gk_tensor d_tok, d_pos, d_kvl, d_one, d_hist;
    gk_tensor a_h, a_h2, a_x, a_qkv, a_q, a_k, a_v, a_att, a_gu, a_act, a_logits;
    int nbucket;                    /* decode graphs by cache length: keys 0..256 << k (the last: max_ctx), k < nbucket */
    gk_graph **graphs;              /* [max_seqs + 1][2][nbucket]: by batch size, greedy-in-graph and cache length */
    int *gwarm;                     /* the same index: a direct (warm-up) step ran */
    int32_t *h_tok, *h_pos;         /* host staging */
    uint64_t weight_bytes;
};

static double gk__llm_now(void) {
#if defined(_WIN32)
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart / (double)f.QuadPart;
#elif defined(CLOCK_MONOTONIC)
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#else
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

/* ---- config ---- */
static gk_status gk__llm_cfg_int(gk_ctx *ctx, const gk_json_value *root, const char *key, int64_t def, int required, int64_t *out) {
    const gk_json_value *v = gk_json_get(root, key);
    if (gk_json_is_null(v)) {
        if (required) return gk_error_set(ctx, GK_ERR_FORMAT, "gk_llm_load: config.json has no %s", key);
        *out = def;
        return GK_OK;
    }
    if (gk_json_typeof(v) != GK_JSON_INT && gk_json_typeof(v) != GK_JSON_DOUBLE)
        return gk_error_set(ctx, GK_ERR_FORMAT, "gk_llm_load: config.json's %s is not a number", key);
    *out = gk_json_int(v, -1);
    if (*out < 0) return gk_error_set(ctx, GK_ERR_FORMAT, "gk_llm_load: config.json's %s is not a non-negative integer", key);
    return GK_OK;
}

/* an int or a list of ints (eos_token_id) */
static void gk__llm_id_list(const gk_json_value *v, int32_t *ids, int *n, int max) {
    size_t i;
    if (gk_json_typeof(v) == GK_JSON_INT) { *n = 0; ids[(*n)++] = (int32_t)gk_json_int(v, -1); return; }
    if (gk_json_typeof(v) != GK_JSON_ARRAY) return;
    *n = 0;
    for (i = 0; i < gk_json_len(v) && *n < max; i++)
        if (gk_json_typeof(gk_json_at(v, i)) == GK_JSON_INT) ids[(*n)++] = (int32_t)gk_json_int(gk_json_at(v, i), -1);
}

static gk_status gk__llm_rope_cfg(gk_ctx *ctx, const gk_json_value *root, gk_llm_config *c) {
    const gk_json_value *rp = gk_json_get(root, "rope_parameters"), *rs;
    const char *type;
    double partial = gk_json_get_double(root, "partial_rotary_factor", 1.0);
    gk_rope_config *r = &c->rope;
    memset(r, 0, sizeof *r);
    if (gk_json_typeof(rp) == GK_JSON_OBJECT) {
        c->new_rope_form = 1;
        rs = rp;
        r->theta = gk_json_get_double(rp, "rope_theta", gk_json_get_double(root, "rope_theta", 10000.0));
        partial = gk_json_get_double(rp, "partial_rotary_factor", partial);
    } else if (!gk_json_is_null(rp)) {
        return gk_error_set(ctx, GK_ERR_FORMAT, "gk_llm_load: config.json's rope_parameters is not an object");
    } else {
        rs = gk_json_get(root, "rope_scaling");
        if (!gk_json_is_null(rs) && gk_json_typeof(rs) != GK_JSON_OBJECT)
            return gk_error_set(ctx, GK_ERR_FORMAT, "gk_llm_load: config.json's rope_scaling is not an object");
        r->theta = gk_json_get_double(root, "rope_theta", 10000.0);
    }
    type = gk_json_get_string(rs, "rope_type", gk_json_get_string(rs, "type", "default"));
    if (strcmp(type, "default") == 0) r->type = GK_ROPE_DEFAULT;
    else if (strcmp(type, "linear") == 0) r->type = GK_ROPE_LINEAR;
    else if (strcmp(type, "dynamic") == 0) r->type = GK_ROPE_DYNAMIC;
    else if (strcmp(type, "yarn") == 0) r->type = GK_ROPE_YARN;
    else if (strcmp(type, "llama3") == 0) r->type = GK_ROPE_LLAMA3;
    else return gk_error_set(ctx, GK_ERR_UNSUPPORTED, "gk_llm_load: RoPE type \"%s\" is not supported (default, linear, dynamic, yarn, llama3)", type);
    r->factor = gk_json_get_double(rs, "factor", 0);
    r->low_freq_factor = gk_json_get_double(rs, "low_freq_factor", 0);
    r->high_freq_factor = gk_json_get_double(rs, "high_freq_factor", 0);
    r->original_max_position_embeddings = gk_json_get_int(rs, "original_max_position_embeddings", 0);
    r->attention_factor = gk_json_get_double(rs, "attention_factor", 0);
    r->beta_fast = gk_json_get_double(rs, "beta_fast", 0);
    r->beta_slow = gk_json_get_double(rs, "beta_slow", 0);
    r->mscale = gk_json_get_double(rs, "mscale", 0);
    r->mscale_all_dim = gk_json_get_double(rs, "mscale_all_dim", 0);
    r->no_truncate = !gk_json_get_bool(rs, "truncate", 1);
    r->max_position_embeddings = c->max_pos;
    r->rotary_dim = (int)((double)c->head_dim * partial);
    if (r->rotary_dim <= 0 || r->rotary_dim % 2 || r->rotary_dim > c->head_dim)
        return gk_error_set(ctx, GK_ERR_UNSUPPORTED, "gk_llm_load: partial_rotary_factor %g gives rotary dim %d of head_dim %lld", partial,
                            r->rotary_dim, (long long)c->head_dim);
    return GK_OK;
}

static gk_status gk__llm_parse_config(gk_ctx *ctx, const gk_json_value *root, const gk_json_value *gen, gk_llm_config *c) {
    static const struct { const char *name; gk_llm_arch arch; } archs[4] = {
        { "LlamaForCausalLM", GK_LLM_LLAMA }, { "MistralForCausalLM", GK_LLM_MISTRAL },
        { "Qwen2ForCausalLM", GK_LLM_QWEN2 }, { "Qwen3ForCausalLM", GK_LLM_QWEN3 } };
    const gk_json_value *a = gk_json_get(root, "architectures");
    const char *an = gk_json_str(gk_json_at(a, 0), NULL), *act;
    int64_t v;
    int i;
    gk_status s;
    memset(c, 0, sizeof *c);
    if (gk_json_typeof(root) != GK_JSON_OBJECT) return gk_error_set(ctx, GK_ERR_FORMAT, "gk_llm_load: config.json is not an object");
    if (!an) return gk_error_set(ctx, GK_ERR_FORMAT, "gk_llm_load: config.json has no architectures list");
    for (i = 0; i < 4; i++)
        if (strcmp(an, archs[i].name) == 0) c->arch = archs[i].arch;
    if (!c->arch)
        return gk_error_set(ctx, GK_ERR_UNSUPPORTED,
                            "gk_llm_load: architecture %.64s is not supported (LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM)", an);
    snprintf(c->arch_name, sizeof c->arch_name, "%s", an);
#define GK__CFG(key, def, req, dst) do { if ((s = gk__llm_cfg_int(ctx, root, key, def, req, &v)) != GK_OK) return s; dst = v; } while (0)
    GK__CFG("hidden_size", 0, 1, c->hidden);
    GK__CFG("num_hidden_layers", 0, 1, c->layers);
    GK__CFG("num_attention_heads", 0, 1, c->heads);
    GK__CFG("intermediate_size", 0, 1, c->inter);
    GK__CFG("vocab_size", 0, 1, c->vocab);
    GK__CFG("num_key_value_heads", c->heads, 0, c->kv_heads);
    GK__CFG("max_position_embeddings", 4096, 0, c->max_pos);
    GK__CFG("head_dim", c->heads ? c->hidden / c->heads : 0, 0, c->head_dim);
#undef GK__CFG
    if (!c->hidden || !c->layers || !c->heads || !c->kv_heads || !c->head_dim || !c->inter || !c->vocab || c->heads % c->kv_heads)
        return gk_error_set(ctx, GK_ERR_FORMAT, "gk_llm_load: config.json: inconsistent sizes (hidden %lld, layers %lld, heads %lld, kv heads %lld, head_dim %lld)",
                            (long long)c->hidden, (long long)c->layers, (long long)c->heads, (long long)c->kv_heads, (long long)c->head_dim);
    if (c->head_dim > 256) return gk_error_set(ctx, GK_ERR_UNSUPPORTED, "gk_llm_load: head_dim %lld above 256 is not supported", (long long)c->head_dim);
    c->rms_eps = gk_json_get_double(root, "rms_norm_eps", 1e-6);
    act = gk_json_get_string(root, "hidden_act", "silu");
    if (strcmp(act, "silu") != 0) return gk_error_set(ctx, GK_ERR_UNSUPPORTED, "gk_llm_load: hidden_act \"%.40s\" is not supported (silu)", act);
    if (gk_json_get_bool(root, "mlp_bias", 0)) return gk_error_set(ctx, GK_ERR_UNSUPPORTED, "gk_llm_load: mlp_bias is not supported");
    c->tie_embeddings = gk_json_get_bool(root, "tie_word_embeddings", 0);
    if (c->arch == GK_LLM_QWEN2) { c->qkv_bias = 1; c->o_bias = 0; }
    else c->qkv_bias = c->o_bias = gk_json_get_bool(root, "attention_bias", 0);
    c->qk_norm = c->arch == GK_LLM_QWEN3;
    if (c->arch == GK_LLM_MISTRAL) c->sliding_window = gk_json_get_int(root, "sliding_window", 0);
    else if ((c->arch == GK_LLM_QWEN2 || c->arch == GK_LLM_QWEN3) && gk_json_get_bool(root, "use_sliding_window", 0))
        c->sliding_window = gk_json_get_int(root, "sliding_window", 0);
    if ((s = gk__llm_rope_cfg(ctx, root, c)) != GK_OK) return s;
    {   /* the tables must be computable (llama3 needs its factors, ...) */
        float f[1];
        double sc;
        gk_rope_config r = c->rope;
        gk__u_tl sv; /* gk_rope_inv_freq has no context: its message goes to ctx */
        r.rotary_dim = 2;
        gk__u_tl_save(&sv);
        if (gk_rope_inv_freq(&r, f, &sc) != GK_OK) return gk__u_tl_move(ctx, &sv, GK_ERR_FORMAT, "gk_llm_load: RoPE parameters: ");
    }
    c->bos_id = (int32_t)gk_json_get_int(root, "bos_token_id", -1);
    gk__llm_id_list(gk_json_get(root, "eos_token_id"), c->eos_ids, &c->n_eos, 8);
    if (gen) {
        gk__llm_id_list(gk_json_get(gen, "eos_token_id"), c->eos_ids, &c->n_eos, 8);
        if (gk_json_typeof(gk_json_get(gen, "bos_token_id")) == GK_JSON_INT) c->bos_id = (int32_t)gk_json_get_int(gen, "bos_token_id", -1);
        c->do_sample = gk_json_get_bool(gen, "do_sample", 0);
        c->sample.temperature = (float)gk_json_get_double(gen, "temperature", 1.0);
        c->sample.top_k = (int)gk_json_get_int(gen, "top_k", 50);
        c->sample.top_p = (float)gk_json_get_double(gen, "top_p", 1.0);
        c->sample.min_p = (float)gk_json_get_double(gen, "min_p", 0);
        c->sample.repetition_penalty = (float)gk_json_get_double(gen, "repetition_penalty", 1.0);
        c->max_new_tokens = gk_json_get_int(gen, "max_new_tokens", 0);
    }
    if (!c->do_sample) memset(&c->sample, 0, sizeof c->sample);
    return GK_OK;
}

