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
    gk_tensor z = gk__u_tnull();
    if (s != GK_OK) { if (v->st == GK_OK) v->st = s; return z; }
    if (v->n >= GK__LLM_MAX_VIEWS) {
        gk_tensor_free(v->ctx, t);
        v->st = gk_error_set(v->ctx, GK_ERR_INTERNAL, "internal error: more than %d views in one step of the forward pass", GK__LLM_MAX_VIEWS);
        return z;
    }
    v->t[v->n++] = t;
    return t;
}
static gk_tensor gk__lv_slice(gk__lv *v, gk_tensor x, int dim, int64_t a, int64_t b) {
    gk_tensor t = gk__u_tnull();
    if (v->st != GK_OK) return t;
    return gk__lv_keep(v, gk_view_slice(v->ctx, x, dim, a, b, 1, &t), t);
}
static gk_tensor gk__lv_reshape(gk__lv *v, gk_tensor x, int nd, int64_t d0, int64_t d1, int64_t d2, int64_t d3) {
    gk_tensor t = gk__u_tnull();
    int64_t sh[4];
    sh[0] = d0; sh[1] = d1; sh[2] = d2; sh[3] = d3;
    if (v->st != GK_OK) return t;
    return gk__lv_keep(v, gk_view_reshape(v->ctx, x, nd, sh, &t), t);
}
static gk_tensor gk__lv_unsq(gk__lv *v, gk_tensor x, int dim) {
    gk_tensor t = gk__u_tnull();
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
    gk_stream *stream_use;              /* gk_llm_set_stream's stream; NULL: stream (the model's own) */
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

/* ---- config ----
   Every field of config.json and generation_config.json the runtime reads is
   checked here, before any weight is read: its type, its range and its
   relations to the others. A message names the file and the field:
   "gk_llm_load: <dir>/config.json: rms_norm_eps = -1 must be > 0". Missing
   or null fields take HF's defaults. */
typedef struct gk__llm_cf { gk_ctx *ctx; const char *path; const gk_json_value *obj; const char *pre; } gk__llm_cf;

#define GK__CF_ERR(cf, st, ...) gk__llm_cf_err((cf), (st), __VA_ARGS__)
static gk_status gk__llm_cf_err(const gk__llm_cf *cf, gk_status st, const char *fmt, ...) GK__PRINTF(3, 4);
static gk_status gk__llm_cf_err(const gk__llm_cf *cf, gk_status st, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gk_error_set(cf->ctx, st, "gk_llm_load: %s: %s", cf->path, msg);
}
/* an integer field in lo..hi; *present: given (not missing or null) */
static gk_status gk__llm_cf_int(const gk__llm_cf *cf, const char *key, int required, int64_t def, int64_t lo, int64_t hi, int64_t *out, int *present) {
    const gk_json_value *v = gk_json_get(cf->obj, key);
    char vb[64];
    int64_t x;
    if (present) *present = 0;
    if (gk_json_is_null(v)) {
        if (required) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s is %s; the model needs it", cf->pre, key, v ? "null" : "missing");
        *out = def;
        return GK_OK;
    }
    x = gk_json_int(v, 0);
    if ((gk_json_typeof(v) != GK_JSON_INT && gk_json_typeof(v) != GK_JSON_DOUBLE) || (gk_json_typeof(v) == GK_JSON_DOUBLE && gk_json_int(v, -1) != gk_json_int(v, 0)))
        return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s is not an integer", cf->pre, key, gk__json_show(v, vb, sizeof vb));
    if (x < lo || x > hi) { /* a bound of int32 or int64 is the type's: one-sided messages */
        if (hi < INT32_MAX) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s must be in %lld..%lld", cf->pre, key, gk__json_show(v, vb, sizeof vb), (long long)lo, (long long)hi);
        if (x < lo) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s must be >= %lld", cf->pre, key, gk__json_show(v, vb, sizeof vb), (long long)lo);
        return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s must be <= %lld", cf->pre, key, gk__json_show(v, vb, sizeof vb), (long long)hi);
    }
    *out = x;
    if (present) *present = 1;
    return GK_OK;
}
/* a finite number; gt0: must be > 0 (else >= 0 when nonneg); max: upper bound (inclusive) or 0 for none */
enum { GK__CF_ANY = 0, GK__CF_NONNEG, GK__CF_POS };
static gk_status gk__llm_cf_num(const gk__llm_cf *cf, const char *key, int required, double def, int sign, double max, double *out, int *present) {
    const gk_json_value *v = gk_json_get(cf->obj, key);
    char vb[64];
    double x;
    if (present) *present = 0;
    if (gk_json_is_null(v)) {
        if (required) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s is %s; it is needed here", cf->pre, key, v ? "null" : "missing");
        *out = def;
        return GK_OK;
    }
    if (gk_json_typeof(v) != GK_JSON_INT && gk_json_typeof(v) != GK_JSON_DOUBLE)
        return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s is not a number", cf->pre, key, gk__json_show(v, vb, sizeof vb));
    x = gk_json_double(v, 0);
    if (!(x - x == 0)) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s is not finite", cf->pre, key, gk__json_show(v, vb, sizeof vb));
    if (sign == GK__CF_POS && !(x > 0)) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s must be > 0", cf->pre, key, gk__json_show(v, vb, sizeof vb));
    if (sign == GK__CF_NONNEG && !(x >= 0)) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s must be >= 0", cf->pre, key, gk__json_show(v, vb, sizeof vb));
    if (max > 0 && x > max) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s must be <= %g", cf->pre, key, gk__json_show(v, vb, sizeof vb), max);
    *out = x;
    if (present) *present = 1;
    return GK_OK;
}
static gk_status gk__llm_cf_bool(const gk__llm_cf *cf, const char *key, int def, int *out) {
    const gk_json_value *v = gk_json_get(cf->obj, key);
    char vb[64];
    if (gk_json_is_null(v)) { *out = def; return GK_OK; }
    if (gk_json_typeof(v) != GK_JSON_BOOL) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s is not true or false", cf->pre, key, gk__json_show(v, vb, sizeof vb));
    *out = gk_json_bool(v, def);
    return GK_OK;
}
static gk_status gk__llm_cf_str(const gk__llm_cf *cf, const char *key, const char *def, const char **out) {
    const gk_json_value *v = gk_json_get(cf->obj, key);
    char vb[64];
    if (gk_json_is_null(v)) { *out = def; return GK_OK; }
    if (gk_json_typeof(v) != GK_JSON_STRING) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s is not a string", cf->pre, key, gk__json_show(v, vb, sizeof vb));
    *out = gk_json_str(v, def);
    return GK_OK;
}
/* a token id or a list of them (eos_token_id), each in the vocabulary; *given: the field is not missing or null */
static gk_status gk__llm_cf_ids(const gk__llm_cf *cf, const char *key, int64_t vocab, int32_t *ids, int *n, int max, int *given) {
    const gk_json_value *v = gk_json_get(cf->obj, key);
    char vb[64];
    size_t i, cnt;
    *given = 0;
    if (gk_json_is_null(v)) return GK_OK;
    if (gk_json_typeof(v) != GK_JSON_INT && gk_json_typeof(v) != GK_JSON_ARRAY)
        return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s = %s is not a token id or a list of them", key, gk__json_show(v, vb, sizeof vb));
    cnt = gk_json_typeof(v) == GK_JSON_INT ? 1 : gk_json_len(v);
    if (cnt > (size_t)max) return GK__CF_ERR(cf, GK_ERR_LIMIT, "%s lists %llu ids; at most %d are supported", key, (unsigned long long)cnt, max);
    for (i = 0; i < cnt; i++) {
        const gk_json_value *e = gk_json_typeof(v) == GK_JSON_INT ? v : gk_json_at(v, i);
        int64_t id = gk_json_int(e, -1);
        if (gk_json_typeof(e) != GK_JSON_INT)
            return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s[%llu] = %s is not a token id", key, (unsigned long long)i, gk__json_show(e, vb, sizeof vb));
        if (id < 0 || id >= vocab) {
            if (gk_json_typeof(v) == GK_JSON_INT)
                return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s = %lld is outside the vocabulary (vocab_size %lld: ids 0..%lld)", key, (long long)id, (long long)vocab, (long long)(vocab - 1));
            return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s[%llu] = %lld is outside the vocabulary (vocab_size %lld: ids 0..%lld)", key, (unsigned long long)i, (long long)id,
                              (long long)vocab, (long long)(vocab - 1));
        }
        ids[i] = (int32_t)id;
    }
    *n = (int)cnt;
    *given = 1;
    return GK_OK;
}

/* an object read member by member must not hold a key twice (Python's json keeps the last, this reader the first) */
static gk_status gk__llm_cf_nodup(const gk__llm_cf *cf, const gk_json_value *obj, const char *what) {
    const char *k = gk__json_dup_key(obj);
    if (k) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%skey \"%.60s\" appears twice", what, k);
    return GK_OK;
}

static gk_status gk__llm_rope_cfg(const gk__llm_cf *top, gk_llm_config *c) {
    const gk_json_value *root = top->obj, *rp = gk_json_get(root, "rope_parameters"), *rs;
    const char *type = "default";
    double partial = 1.0;
    gk_rope_config *r = &c->rope;
    gk__llm_cf cf = *top, rf = *top;
    char vb[64];
    int has_factor, has_omp;
    gk_status s;
    int64_t omp;
    memset(r, 0, sizeof *r);
    if ((s = gk__llm_cf_num(&cf, "partial_rotary_factor", 0, 1.0, GK__CF_POS, 1.0, &partial, NULL)) != GK_OK) return s;
    if ((s = gk__llm_cf_num(&cf, "rope_theta", 0, 10000.0, GK__CF_POS, 0, &r->theta, NULL)) != GK_OK) return s;
    if (gk_json_typeof(rp) == GK_JSON_OBJECT) {
        c->new_rope_form = 1;
        rs = rp;
        rf.obj = rp; rf.pre = "rope_parameters.";
        if ((s = gk__llm_cf_nodup(&cf, rp, "rope_parameters: ")) != GK_OK) return s;
        if ((s = gk__llm_cf_num(&rf, "rope_theta", 0, r->theta, GK__CF_POS, 0, &r->theta, NULL)) != GK_OK) return s;
        if ((s = gk__llm_cf_num(&rf, "partial_rotary_factor", 0, partial, GK__CF_POS, 1.0, &partial, NULL)) != GK_OK) return s;
    } else if (!gk_json_is_null(rp)) {
        return GK__CF_ERR(&cf, GK_ERR_FORMAT, "rope_parameters = %s is not an object", gk__json_show(rp, vb, sizeof vb));
    } else {
        rs = gk_json_get(root, "rope_scaling");
        if (!gk_json_is_null(rs) && gk_json_typeof(rs) != GK_JSON_OBJECT)
            return GK__CF_ERR(&cf, GK_ERR_FORMAT, "rope_scaling = %s is not an object", gk__json_show(rs, vb, sizeof vb));
        rf.obj = rs; rf.pre = "rope_scaling.";
        if ((s = gk__llm_cf_nodup(&cf, rs, "rope_scaling: ")) != GK_OK) return s;
    }
    if (!gk_json_is_null(gk_json_get(rs, "rope_type")) || gk_json_is_null(gk_json_get(rs, "type"))) {
        if ((s = gk__llm_cf_str(&rf, "rope_type", "default", &type)) != GK_OK) return s;
    } else if ((s = gk__llm_cf_str(&rf, "type", "default", &type)) != GK_OK) return s;
    if (strcmp(type, "default") == 0) r->type = GK_ROPE_DEFAULT;
    else if (strcmp(type, "linear") == 0) r->type = GK_ROPE_LINEAR;
    else if (strcmp(type, "dynamic") == 0) r->type = GK_ROPE_DYNAMIC;
    else if (strcmp(type, "yarn") == 0) r->type = GK_ROPE_YARN;
    else if (strcmp(type, "llama3") == 0) r->type = GK_ROPE_LLAMA3;
    else return gk_error_set(cf.ctx, GK_ERR_UNSUPPORTED, "gk_llm_load: %s: RoPE type \"%.40s\" is not supported (default, linear, dynamic, yarn, llama3)", cf.path, type);
    /* the scaling fields: finite numbers where given; required and in range where the type uses them */
    if (r->type != GK_ROPE_DEFAULT) {
        int need_factor = r->type != GK_ROPE_YARN, llama3 = r->type == GK_ROPE_LLAMA3, yarn = r->type == GK_ROPE_YARN, t1;
        if ((s = gk__llm_cf_num(&rf, "factor", need_factor, 0, GK__CF_POS, 0, &r->factor, &has_factor)) != GK_OK) return s;
        if ((s = gk__llm_cf_int(&rf, "original_max_position_embeddings", llama3, 0, 1, INT32_MAX, &omp, &has_omp)) != GK_OK) return s;
        r->original_max_position_embeddings = omp;
        if (llama3) {
            if ((s = gk__llm_cf_num(&rf, "low_freq_factor", 1, 0, GK__CF_POS, 0, &r->low_freq_factor, NULL)) != GK_OK) return s;
            if ((s = gk__llm_cf_num(&rf, "high_freq_factor", 1, 0, GK__CF_POS, 0, &r->high_freq_factor, NULL)) != GK_OK) return s;
            if (!(r->high_freq_factor > r->low_freq_factor))
                return GK__CF_ERR(&cf, GK_ERR_FORMAT, "%slow_freq_factor = %g must be < high_freq_factor = %g", rf.pre, r->low_freq_factor, r->high_freq_factor);
        }
        if (yarn) {
            if ((s = gk__llm_cf_num(&rf, "attention_factor", 0, 0, GK__CF_POS, 0, &r->attention_factor, NULL)) != GK_OK) return s;
            if ((s = gk__llm_cf_num(&rf, "beta_fast", 0, 0, GK__CF_POS, 0, &r->beta_fast, NULL)) != GK_OK) return s;
            if ((s = gk__llm_cf_num(&rf, "beta_slow", 0, 0, GK__CF_POS, 0, &r->beta_slow, NULL)) != GK_OK) return s;
            if ((s = gk__llm_cf_num(&rf, "mscale", 0, 0, GK__CF_ANY, 0, &r->mscale, NULL)) != GK_OK) return s;
            if ((s = gk__llm_cf_num(&rf, "mscale_all_dim", 0, 0, GK__CF_ANY, 0, &r->mscale_all_dim, NULL)) != GK_OK) return s;
            if ((s = gk__llm_cf_bool(&rf, "truncate", 1, &t1)) != GK_OK) return s;
            r->no_truncate = !t1;
        }
    }
    r->max_position_embeddings = c->max_pos;
    r->rotary_dim = (int)((double)c->head_dim * partial);
    if (r->rotary_dim <= 0 || r->rotary_dim % 2 || r->rotary_dim > c->head_dim)
        return GK__CF_ERR(&cf, GK_ERR_UNSUPPORTED, "partial_rotary_factor = %g gives a rotary dim of %d of head_dim %lld; it must be even and > 0", partial,
                          r->rotary_dim, (long long)c->head_dim);
    (void)has_factor; (void)has_omp;
    return GK_OK;
}

static gk_status gk__llm_parse_config_at(gk_ctx *ctx, const char *cpath, const gk_json_value *root, const char *gpath, const gk_json_value *gen, gk_llm_config *c) {
    static const struct { const char *name; gk_llm_arch arch; } archs[4] = {
        { "LlamaForCausalLM", GK_LLM_LLAMA }, { "MistralForCausalLM", GK_LLM_MISTRAL },
        { "Qwen2ForCausalLM", GK_LLM_QWEN2 }, { "Qwen3ForCausalLM", GK_LLM_QWEN3 } };
    const gk_json_value *a = gk_json_get(root, "architectures");
    const char *an = gk_json_str(gk_json_at(a, 0), NULL), *act;
    gk__llm_cf cf;
    char vb[64];
    int64_t v;
    int i, hd_given, kv_given, b, given, n;
    gk_status s;
    memset(c, 0, sizeof *c);
    cf.ctx = ctx; cf.path = cpath; cf.obj = root; cf.pre = "";
    if (gk_json_typeof(root) != GK_JSON_OBJECT) return GK__CF_ERR(&cf, GK_ERR_FORMAT, "the top level is not an object");
    if ((s = gk__llm_cf_nodup(&cf, root, "")) != GK_OK) return s;
    if (gk_json_typeof(a) != GK_JSON_ARRAY || !an)
        return GK__CF_ERR(&cf, GK_ERR_FORMAT, "architectures = %s is not a list of model class names (\"LlamaForCausalLM\", ...)", gk__json_show(a, vb, sizeof vb));
    for (i = 0; i < 4; i++)
        if (strcmp(an, archs[i].name) == 0) c->arch = archs[i].arch;
    if (!c->arch)
        return gk_error_set(ctx, GK_ERR_UNSUPPORTED,
                            "gk_llm_load: %s: architecture %.64s is not supported (LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM)", cpath, an);
    snprintf(c->arch_name, sizeof c->arch_name, "%s", an);
    if (!gk_json_is_null(gk_json_get(root, "quantization_config"))) /* packed integer weights under other names */
        return gk_error_set(ctx, GK_ERR_UNSUPPORTED, "gk_llm_load: %s: quantization_config (quant_method %.40s) is not supported: f32, f16 or bf16 weights only", cpath,
                            gk_json_get_string(root, "quantization_config.quant_method", "?"));
    /* sizes: positive, int32 (the ops' limit), and their relations */
#define GK__CFG(key, req, def, lo, hi, dst, pres) do { if ((s = gk__llm_cf_int(&cf, key, req, def, lo, hi, &v, pres)) != GK_OK) return s; dst = v; } while (0)
    GK__CFG("hidden_size", 1, 0, 1, INT32_MAX, c->hidden, NULL);
    GK__CFG("num_hidden_layers", 1, 0, 1, 65536, c->layers, NULL);
    GK__CFG("num_attention_heads", 1, 0, 1, 65536, c->heads, NULL);
    GK__CFG("intermediate_size", 1, 0, 1, INT32_MAX, c->inter, NULL);
    GK__CFG("vocab_size", 1, 0, 1, INT32_MAX, c->vocab, NULL);
    GK__CFG("num_key_value_heads", 0, c->heads, 1, 65536, c->kv_heads, &kv_given);
    GK__CFG("max_position_embeddings", 0, 4096, 1, INT32_MAX, c->max_pos, NULL);
    GK__CFG("head_dim", 0, 0, 1, INT32_MAX, c->head_dim, &hd_given);
#undef GK__CFG
    if (c->kv_heads > c->heads)
        return GK__CF_ERR(&cf, GK_ERR_FORMAT, "num_key_value_heads = %lld is more than num_attention_heads = %lld", (long long)c->kv_heads, (long long)c->heads);
    if (c->heads % c->kv_heads)
        return GK__CF_ERR(&cf, GK_ERR_FORMAT, "num_attention_heads = %lld is not a multiple of num_key_value_heads = %lld (each key/value head serves a whole group of query heads)",
                          (long long)c->heads, (long long)c->kv_heads);
    if (!hd_given) { /* HF: head_dim = hidden_size // num_attention_heads */
        if (c->hidden % c->heads)
            return GK__CF_ERR(&cf, GK_ERR_FORMAT, "hidden_size = %lld is not divisible by num_attention_heads = %lld (and there is no head_dim)", (long long)c->hidden,
                              (long long)c->heads);
        c->head_dim = c->hidden / c->heads;
    }
    if (c->head_dim > 256)
        return gk_error_set(ctx, GK_ERR_UNSUPPORTED, "gk_llm_load: %s: head_dim %lld above 256 is not supported", cpath, (long long)c->head_dim);
    if ((s = gk__llm_cf_num(&cf, "rms_norm_eps", 0, 1e-6, GK__CF_POS, 0, &c->rms_eps, NULL)) != GK_OK) return s;
    if ((s = gk__llm_cf_str(&cf, "hidden_act", "silu", &act)) != GK_OK) return s;
    if (strcmp(act, "silu") != 0 && strcmp(act, "swish") != 0)
        return gk_error_set(ctx, GK_ERR_UNSUPPORTED, "gk_llm_load: %s: hidden_act \"%.40s\" is not supported (silu)", cpath, act);
    if ((s = gk__llm_cf_bool(&cf, "mlp_bias", 0, &b)) != GK_OK) return s;
    if (b) return gk_error_set(ctx, GK_ERR_UNSUPPORTED, "gk_llm_load: %s: mlp_bias is not supported", cpath);
    if ((s = gk__llm_cf_bool(&cf, "tie_word_embeddings", 0, &c->tie_embeddings)) != GK_OK) return s;
    if (c->arch == GK_LLM_QWEN2) { c->qkv_bias = 1; c->o_bias = 0; } /* HF's Qwen2 has these biases whatever attention_bias says */
    else {
        if ((s = gk__llm_cf_bool(&cf, "attention_bias", 0, &b)) != GK_OK) return s;
        c->qkv_bias = c->o_bias = b;
    }
    c->qk_norm = c->arch == GK_LLM_QWEN3;
    b = c->arch == GK_LLM_MISTRAL;
    if (c->arch == GK_LLM_QWEN2 || c->arch == GK_LLM_QWEN3) {
        /* sliding layers: use_sliding_window, or (newer files) a "sliding_attention" entry of layer_types */
        const gk_json_value *lt = gk_json_get(root, "layer_types");
        size_t k;
        if ((s = gk__llm_cf_bool(&cf, "use_sliding_window", 0, &b)) != GK_OK) return s;
        if (!gk_json_is_null(lt)) {
            if (gk_json_typeof(lt) != GK_JSON_ARRAY || (int64_t)gk_json_len(lt) != c->layers)
                return GK__CF_ERR(&cf, GK_ERR_FORMAT, "layer_types = %s is not a list of num_hidden_layers = %lld entries", gk__json_show(lt, vb, sizeof vb),
                                  (long long)c->layers);
            for (k = 0; k < gk_json_len(lt); k++) {
                const char *e = gk_json_str(gk_json_at(lt, k), "");
                if (strcmp(e, "sliding_attention") == 0) b = 1;
                else if (strcmp(e, "full_attention") != 0)
                    return GK__CF_ERR(&cf, GK_ERR_FORMAT, "layer_types[%llu] = %s is not \"full_attention\" or \"sliding_attention\"", (unsigned long long)k,
                                      gk__json_show(gk_json_at(lt, k), vb, sizeof vb));
            }
        }
    }
    if (b && (s = gk__llm_cf_int(&cf, "sliding_window", 0, 0, 1, INT64_MAX, &c->sliding_window, NULL)) != GK_OK) return s;
    if ((s = gk__llm_rope_cfg(&cf, c)) != GK_OK) return s;
    {   /* the tables must be computable (a backstop: the checks above cover gk_rope_inv_freq's) */
        float f[1];
        double sc;
        gk_rope_config r = c->rope;
        gk__u_tl sv; /* gk_rope_inv_freq has no context: its message goes to ctx */
        char pre[4300];
        r.rotary_dim = 2;
        gk__u_tl_save(&sv);
        snprintf(pre, sizeof pre, "gk_llm_load: %.4000s: RoPE parameters: ", cpath);
        if (gk_rope_inv_freq(&r, f, &sc) != GK_OK) return gk__u_tl_move(ctx, &sv, GK_ERR_FORMAT, pre);
    }
    c->bos_id = -1;
    if ((s = gk__llm_cf_ids(&cf, "bos_token_id", c->vocab, &c->bos_id, &n, 1, &given)) != GK_OK) return s;
    if ((s = gk__llm_cf_ids(&cf, "eos_token_id", c->vocab, c->eos_ids, &c->n_eos, 8, &given)) != GK_OK) return s;
    if (gen) {
        gk__llm_cf gf;
        int32_t ids[8];
        int64_t tk;
        double x;
        gf.ctx = ctx; gf.path = gpath; gf.obj = gen; gf.pre = "";
        if (gk_json_typeof(gen) != GK_JSON_OBJECT) return GK__CF_ERR(&gf, GK_ERR_FORMAT, "the top level is not an object");
        if ((s = gk__llm_cf_nodup(&gf, gen, "")) != GK_OK) return s;
        if ((s = gk__llm_cf_ids(&gf, "eos_token_id", c->vocab, ids, &n, 8, &given)) != GK_OK) return s;
        if (given) { memcpy(c->eos_ids, ids, sizeof ids); c->n_eos = n; }
        if ((s = gk__llm_cf_ids(&gf, "bos_token_id", c->vocab, ids, &n, 1, &given)) != GK_OK) return s;
        if (given) c->bos_id = ids[0];
        if ((s = gk__llm_cf_bool(&gf, "do_sample", 0, &c->do_sample)) != GK_OK) return s;
        if ((s = gk__llm_cf_num(&gf, "temperature", 0, 1.0, GK__CF_NONNEG, 0, &x, &given)) != GK_OK) return s;
        if (c->do_sample && given && !(x > 0))
            return GK__CF_ERR(&gf, GK_ERR_FORMAT, "temperature = 0 must be > 0 when do_sample is true (as in HF; do_sample false decodes greedily)");
        c->sample.temperature = (float)x;
        if ((s = gk__llm_cf_int(&gf, "top_k", 0, 50, 0, INT32_MAX, &tk, NULL)) != GK_OK) return s;
        c->sample.top_k = (int)tk;
        if ((s = gk__llm_cf_num(&gf, "top_p", 0, 1.0, GK__CF_NONNEG, 1.0, &x, NULL)) != GK_OK) return s;
        c->sample.top_p = (float)x;
        if ((s = gk__llm_cf_num(&gf, "min_p", 0, 0, GK__CF_NONNEG, 1.0, &x, NULL)) != GK_OK) return s;
        c->sample.min_p = (float)x;
        if ((s = gk__llm_cf_num(&gf, "repetition_penalty", 0, 1.0, GK__CF_POS, 0, &x, NULL)) != GK_OK) return s;
        c->sample.repetition_penalty = (float)x;
        if ((s = gk__llm_cf_int(&gf, "max_new_tokens", 0, 0, 1, INT64_MAX, &c->max_new_tokens, NULL)) != GK_OK) return s;
        if (c->sample.temperature != c->sample.temperature || (double)c->sample.temperature > 3.0e38)
            return GK__CF_ERR(&gf, GK_ERR_FORMAT, "temperature is too large for a float");
        if ((double)c->sample.repetition_penalty > 3.0e38 || !(c->sample.repetition_penalty > 0))
            return GK__CF_ERR(&gf, GK_ERR_FORMAT, "repetition_penalty must be a float > 0");
    }
    if (!c->do_sample) memset(&c->sample, 0, sizeof c->sample);
    return GK_OK;
}
/* the same, with the files named by their base names (tests/fuzz/fuzz_json.c) */
#define gk__llm_parse_config(ctx, root, gen, c) gk__llm_parse_config_at((ctx), "config.json", (root), "generation_config.json", (gen), (c))
