/* ======================================================================== */
/* >>impl_whisper                                                           */
/* ======================================================================== */
/* The Whisper model: config, weights, encoder, decoder, greedy decoding.
   It uses the text runtime's helpers from model_config.c / model_weights.c
   (gk__lv scratch views, gk__llm_free_t, progress). */

typedef struct gk__wsp_layer {
    gk_tensor ln1_w, ln1_b, wqkv, bqkv, wo, bo;         /* self-attention: fused [3d, d], bias [bq; 0; bv] */
    gk_tensor lnx_w, lnx_b, xq, xbq, xkv, xbkv, xo, xbo; /* decoder cross-attention: q, fused k / v [2d, d], bias [0; bv] */
    gk_tensor ln2_w, ln2_b, fc1, fc1_b, fc2, fc2_b;     /* MLP */
    gk_tensor kv;                                       /* decoder: [slots, max_ctx, 2 H, D] (K heads, then V heads) */
    gk_tensor xcache;                                   /* decoder: [slots, n_audio_ctx, 2 H, D], per window */
    /* load-time parts (fused, then freed) */
    gk_tensor tq, tk, tv, tbq, tbv, txk, txv, txbv;
} gk__wsp_layer;
#define GK__WSP_LAYER_TENSORS 30

/* a decode step's graph: rows row0..row0+n-1 over kv_rows cache rows;
   captured on the second use of a key (the first runs op by op) */
#define GK__WSP_GRAPHS 48
typedef struct gk__wsp_graph {
    int row0, n;
    int64_t kv_rows;
    int warm;
    gk_graph *g;
} gk__wsp_graph;

/* a page-locked host buffer uploaded asynchronously on the model's stream:
   it is rewritten only once its last upload has left it (busy: the upload on
   stream st may still be in flight; ev is recorded after it) */
typedef struct gk__wsp_up {
    int32_t *h;
    gk_event *ev;
    gk_stream *st;
    int busy;
} gk__wsp_up;

struct gk_whisper_model {
    gk_ctx *ctx;
    gk_whisper_config cfg;
    gk_dtype dt;
    int slots;
    int64_t max_ctx;
    gk_stream *stream, *stream_use;
    gk_tokenizer *tok;
    gk_whisper_tokens tokens;
    int has_tokens;
    int32_t *gen_ids;                  /* generation_config.json's lists (suppress, begin suppress, alignment heads) */
    gk_tensor conv1_w, conv1_b, conv2_w, conv2_b, enc_pos, enc_ln_w, enc_ln_b;
    gk_tensor embed, dec_pos, dec_ln_w, dec_ln_b, proj;
    gk_tensor mel_filters;             /* f32 [n_mels, 201] */
    gk__wsp_layer *enc, *dec;
    int beams, rows;                   /* decoder rows per window; rows = slots * beams */
    int64_t *len;                      /* decoded tokens per row */
    int *encoded;                      /* per window: the slot holds a window's K / V */
    /* the decode step (gk_whisper_decode_step): buffers for every row, made at load */
    gk_tensor d_buf;                   /* i32 [3, rows]: token, position, kv length of step row i */
    gk_tensor d_src;                   /* i32 [beams * max_ctx]: gk_whisper_reorder's gather index (beams > 1) */
    gk_tensor a_h, a_h2, a_x, a_qkv, a_q, a_att, a_ff, a_lg, a_lg32, a_tmp;
    gk_tensor a_ex, a_mx, a_lse;       /* the logits' log-sum-exp per row: exp scratch [rows, vocab], max, lse [rows] */
    gk__wsp_up up_buf;                 /* d_buf's host side [3, rows] */
    gk__wsp_up up_src;                 /* d_src's host side [beams * max_ctx] (beams > 1) */
    float *h_lg, *h_lse;               /* the step's logits [rows, vocab] and lse [rows] on the host (page-locked on CUDA) */
    int step_n;                        /* rows in them (0: none) */
    int32_t *align;                    /* the alignment heads, (layer, head) pairs */
    size_t n_align;
    gk__wsp_graph graphs[GK__WSP_GRAPHS];
    int ngraphs;
};

/* ---- config ---- */
typedef struct gk__wsp_cf { gk_ctx *ctx; const char *path; const gk_json_value *obj; } gk__wsp_cf;
static gk_status gk__wsp_cf_err(const gk__wsp_cf *cf, gk_status st, const char *fmt, ...) GK__PRINTF(3, 4);
static gk_status gk__wsp_cf_err(const gk__wsp_cf *cf, gk_status st, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gk_error_set(cf->ctx, st, "gk_whisper_load: %s: %s", cf->path, msg);
}
/* an integer in lo..hi; missing or null: def, or an error when required */
static gk_status gk__wsp_cf_int(const gk__wsp_cf *cf, const char *key, int required, int64_t def, int64_t lo, int64_t hi, int64_t *out) {
    const gk_json_value *v = gk_json_get(cf->obj, key);
    char vb[64];
    if (gk_json_is_null(v)) {
        if (required) return gk__wsp_cf_err(cf, GK_ERR_FORMAT, "%s is %s; the model needs it", key, v ? "null" : "missing");
        *out = def;
        return GK_OK;
    }
    if (gk_json_typeof(v) != GK_JSON_INT) return gk__wsp_cf_err(cf, GK_ERR_FORMAT, "%s = %s is not an integer", key, gk__json_show(v, vb, sizeof vb));
    *out = gk_json_int(v, 0);
    if (*out < lo || *out > hi) return gk__wsp_cf_err(cf, GK_ERR_FORMAT, "%s = %lld must be in %lld..%lld", key, (long long)*out, (long long)lo, (long long)hi);
    return GK_OK;
}
/* a token id inside the vocabulary (an int, or the first of a list: eos_token_id may be one); -1 when missing / null */
static gk_status gk__wsp_cf_id(const gk__wsp_cf *cf, const char *key, int64_t vocab, int32_t *out) {
    const gk_json_value *v = gk_json_get(cf->obj, key);
    char vb[64];
    *out = -1;
    if (gk_json_is_null(v)) return GK_OK;
    if (gk_json_typeof(v) == GK_JSON_ARRAY && gk_json_len(v) >= 1) v = gk_json_at(v, 0);
    if (gk_json_typeof(v) != GK_JSON_INT) return gk__wsp_cf_err(cf, GK_ERR_FORMAT, "%s = %s is not a token id", key, gk__json_show(v, vb, sizeof vb));
    if (gk_json_int(v, -1) < 0 || gk_json_int(v, -1) >= vocab)
        return gk__wsp_cf_err(cf, GK_ERR_FORMAT, "%s = %lld is outside the vocabulary (vocab_size %lld)", key, (long long)gk_json_int(v, -1), (long long)vocab);
    *out = (int32_t)gk_json_int(v, -1);
    return GK_OK;
}
/* a list of token ids inside the vocabulary (minus_one: -1 allowed, suppress_tokens' non-speech marker); *n = count, ids appended to buf at *at */
static gk_status gk__wsp_cf_list(const gk__wsp_cf *cf, const char *key, int64_t vocab, int minus_one, int pairs, int32_t *buf, size_t *at, size_t *n, int *given) {
    const gk_json_value *v = gk_json_get(cf->obj, key);
    char vb[64];
    size_t i, k, w = pairs ? 2 : 1;
    *n = 0; *given = 0;
    if (gk_json_is_null(v)) return GK_OK;
    if (gk_json_typeof(v) != GK_JSON_ARRAY) return gk__wsp_cf_err(cf, GK_ERR_FORMAT, "%s = %s is not a list", key, gk__json_show(v, vb, sizeof vb));
    for (i = 0; i < gk_json_len(v); i++) {
        const gk_json_value *e = gk_json_at(v, i);
        if (pairs && (gk_json_typeof(e) != GK_JSON_ARRAY || gk_json_len(e) != 2))
            return gk__wsp_cf_err(cf, GK_ERR_FORMAT, "%s[%llu] = %s is not a [layer, head] pair", key, (unsigned long long)i, gk__json_show(e, vb, sizeof vb));
        for (k = 0; k < w; k++) {
            const gk_json_value *x = pairs ? gk_json_at(e, k) : e;
            int64_t id = gk_json_int(x, -2);
            if (gk_json_typeof(x) != GK_JSON_INT || id < (minus_one ? -1 : 0) || id >= vocab)
                return gk__wsp_cf_err(cf, GK_ERR_FORMAT, "%s[%llu] = %s is not %s", key, (unsigned long long)i, gk__json_show(x, vb, sizeof vb),
                                      pairs ? "a pair of layer and head indices" : "a token id of the vocabulary");
            buf[(*at)++] = (int32_t)id;
        }
    }
    *n = gk_json_len(v);
    *given = 1;
    return GK_OK;
}

static gk_status gk__wsp_read_json(gk_ctx *ctx, const char *path, int optional, gk_json **out) {
    gk_status s;
    gk__u_tl sv;
    *out = NULL;
    if (optional && !gk__u_file_exists(path)) return GK_OK;
    gk__u_tl_save(&sv);
    s = gk_json_parse_file(path, NULL, out);
    if (s != GK_OK) return gk__u_tl_move(ctx, &sv, s, "gk_whisper_load: ");
    return GK_OK;
}

static gk_status gk__wsp_config(gk_whisper_model *m, const char *cpath, const gk_json_value *root, const char *gpath, const gk_json_value *gen) {
    gk_whisper_config *c = &m->cfg;
    gk__wsp_cf cf;
    const gk_json_value *a = gk_json_get(root, "architectures");
    const char *act;
    char vb[64];
    gk_status s;
    int64_t v;
    cf.ctx = m->ctx; cf.path = cpath; cf.obj = root;
    if (gk_json_typeof(root) != GK_JSON_OBJECT) return gk__wsp_cf_err(&cf, GK_ERR_FORMAT, "the top level is not an object");
    if (gk__json_dup_key(root)) return gk__wsp_cf_err(&cf, GK_ERR_FORMAT, "key \"%.60s\" appears twice", gk__json_dup_key(root));
    if (!gk_json_is_null(a)) {
        const char *an = gk_json_str(gk_json_at(a, 0), NULL);
        if (gk_json_typeof(a) != GK_JSON_ARRAY || !an) return gk__wsp_cf_err(&cf, GK_ERR_FORMAT, "architectures = %s is not a list of class names", gk__json_show(a, vb, sizeof vb));
        if (strcmp(an, "WhisperForConditionalGeneration") != 0 && strcmp(an, "WhisperModel") != 0)
            return gk__wsp_cf_err(&cf, GK_ERR_UNSUPPORTED, "architecture %.64s is not a Whisper model (WhisperForConditionalGeneration)", an);
    }
    if (!gk_json_is_null(gk_json_get(root, "model_type")) && strcmp(gk_json_get_string(root, "model_type", ""), "whisper") != 0)
        return gk__wsp_cf_err(&cf, GK_ERR_UNSUPPORTED, "model_type = %s is not \"whisper\"", gk__json_show(gk_json_get(root, "model_type"), vb, sizeof vb));
#define GK__WCF(key, req, def, lo, hi, dst) do { if ((s = gk__wsp_cf_int(&cf, key, req, def, lo, hi, &v)) != GK_OK) return s; dst = v; } while (0)
    GK__WCF("d_model", 1, 0, 1, 65536, c->d_model);
    GK__WCF("encoder_layers", 1, 0, 1, 1024, c->encoder_layers);
    GK__WCF("decoder_layers", 1, 0, 1, 1024, c->decoder_layers);
    GK__WCF("encoder_attention_heads", 1, 0, 1, 1024, c->encoder_heads);
    GK__WCF("decoder_attention_heads", 1, 0, 1, 1024, c->decoder_heads);
    GK__WCF("encoder_ffn_dim", 1, 0, 1, INT32_MAX, c->encoder_ffn);
    GK__WCF("decoder_ffn_dim", 1, 0, 1, INT32_MAX, c->decoder_ffn);
    GK__WCF("num_mel_bins", 1, 0, 1, 1024, c->n_mels);
    GK__WCF("max_source_positions", 0, 1500, 1, 1500, c->n_audio_ctx);
    GK__WCF("max_target_positions", 0, 448, 1, 65536, c->n_text_ctx);
    GK__WCF("vocab_size", 1, 0, 1, INT32_MAX, c->vocab);
#undef GK__WCF
    if (c->n_audio_ctx != 1500)
        return gk__wsp_cf_err(&cf, GK_ERR_UNSUPPORTED, "max_source_positions = %lld: only 1500 (30 s windows of 3000 mel frames) is supported", (long long)c->n_audio_ctx);
    if (c->d_model % c->encoder_heads || c->d_model % c->decoder_heads)
        return gk__wsp_cf_err(&cf, GK_ERR_FORMAT, "d_model = %lld is not a multiple of encoder_attention_heads = %lld and decoder_attention_heads = %lld", (long long)c->d_model,
                              (long long)c->encoder_heads, (long long)c->decoder_heads);
    if (c->d_model / c->encoder_heads > 256 || c->d_model / c->decoder_heads > 256)
        return gk__wsp_cf_err(&cf, GK_ERR_UNSUPPORTED, "a head dim of d_model / heads above 256 is not supported");
    if (gk_json_typeof(gk_json_get(root, "activation_function")) != GK_JSON_NULL && gk_json_typeof(gk_json_get(root, "activation_function")) != GK_JSON_STRING)
        return gk__wsp_cf_err(&cf, GK_ERR_FORMAT, "activation_function = %s is not a string", gk__json_show(gk_json_get(root, "activation_function"), vb, sizeof vb));
    act = gk_json_get_string(root, "activation_function", "gelu");
    if (strcmp(act, "gelu") != 0) return gk__wsp_cf_err(&cf, GK_ERR_UNSUPPORTED, "activation_function \"%.40s\" is not supported (gelu)", act);
    if (!gk_json_is_null(gk_json_get(root, "tie_word_embeddings")) && gk_json_typeof(gk_json_get(root, "tie_word_embeddings")) != GK_JSON_BOOL)
        return gk__wsp_cf_err(&cf, GK_ERR_FORMAT, "tie_word_embeddings = %s is not true or false", gk__json_show(gk_json_get(root, "tie_word_embeddings"), vb, sizeof vb));
    c->tie_embeddings = gk_json_get_bool(root, "tie_word_embeddings", 1);
    if ((s = gk__wsp_cf_id(&cf, "decoder_start_token_id", c->vocab, &c->decoder_start_id)) != GK_OK) return s;
    if ((s = gk__wsp_cf_id(&cf, "eos_token_id", c->vocab, &c->eos_id)) != GK_OK) return s;
    c->max_initial_timestamp_index = 50;
    if (gen) {
        gk__wsp_cf gf;
        const gk_json_value *mi;
        size_t at = 0, cap, n;
        int given;
        int32_t id;
        gf.ctx = m->ctx; gf.path = gpath; gf.obj = gen;
        if (gk_json_typeof(gen) != GK_JSON_OBJECT) return gk__wsp_cf_err(&gf, GK_ERR_FORMAT, "the top level is not an object");
        if (gk__json_dup_key(gen)) return gk__wsp_cf_err(&gf, GK_ERR_FORMAT, "key \"%.60s\" appears twice", gk__json_dup_key(gen));
        c->has_generation_config = 1;
        if ((s = gk__wsp_cf_id(&gf, "decoder_start_token_id", c->vocab, &id)) != GK_OK) return s;
        if (id >= 0) c->decoder_start_id = id;
        if ((s = gk__wsp_cf_id(&gf, "eos_token_id", c->vocab, &id)) != GK_OK) return s;
        if (id >= 0) c->eos_id = id;
        if (!gk_json_is_null(gk_json_get(gen, "is_multilingual"))) {
            if (gk_json_typeof(gk_json_get(gen, "is_multilingual")) != GK_JSON_BOOL)
                return gk__wsp_cf_err(&gf, GK_ERR_FORMAT, "is_multilingual = %s is not true or false", gk__json_show(gk_json_get(gen, "is_multilingual"), vb, sizeof vb));
            c->is_multilingual = gk_json_get_bool(gen, "is_multilingual", 0) ? 1 : -1;
        }
        mi = gk_json_get(gen, "max_initial_timestamp_index");
        if (mi && gk_json_is_null(mi)) c->max_initial_timestamp_index = -1;
        else if ((s = gk__wsp_cf_int(&gf, "max_initial_timestamp_index", 0, 50, 0, INT32_MAX, &c->max_initial_timestamp_index)) != GK_OK) return s;
        cap = gk_json_len(gk_json_get(gen, "suppress_tokens")) + gk_json_len(gk_json_get(gen, "begin_suppress_tokens")) + 2 * gk_json_len(gk_json_get(gen, "alignment_heads"));
        if (!(m->gen_ids = (int32_t *)gk__u_calloc(cap + 1, sizeof(int32_t)))) return gk_error_set(m->ctx, GK_ERR_OUT_OF_MEMORY, "gk_whisper_load: out of host memory");
        if ((s = gk__wsp_cf_list(&gf, "suppress_tokens", c->vocab, 1, 0, m->gen_ids, &at, &n, &given)) != GK_OK) return s;
        if (given) { c->suppress_tokens = m->gen_ids + at - n; c->n_suppress_tokens = n; }
        if ((s = gk__wsp_cf_list(&gf, "begin_suppress_tokens", c->vocab, 0, 0, m->gen_ids, &at, &n, &given)) != GK_OK) return s;
        if (given) { c->begin_suppress_tokens = m->gen_ids + at - n; c->n_begin_suppress_tokens = n; }
        if ((s = gk__wsp_cf_list(&gf, "alignment_heads", INT32_MAX, 0, 1, m->gen_ids, &at, &n, &given)) != GK_OK) return s;
        if (given) {
            size_t k;
            c->alignment_heads = m->gen_ids + at - 2 * n;
            c->n_alignment_heads = n;
            for (k = 0; k < n; k++)
                if (c->alignment_heads[2 * k] >= c->decoder_layers || c->alignment_heads[2 * k + 1] >= c->decoder_heads)
                    return gk__wsp_cf_err(&gf, GK_ERR_FORMAT, "alignment_heads[%llu] = [%d, %d] is outside decoder_layers = %lld, decoder_attention_heads = %lld",
                                          (unsigned long long)k, (int)c->alignment_heads[2 * k], (int)c->alignment_heads[2 * k + 1], (long long)c->decoder_layers,
                                          (long long)c->decoder_heads);
        }
    }
    if (c->decoder_start_id < 0) return gk__wsp_cf_err(&cf, GK_ERR_FORMAT, "decoder_start_token_id is missing (here and in generation_config.json)");
    return GK_OK;
}

/* ---- special tokens from generation_config.json ---- */
typedef struct gk__wsp_lk { const gk_json_value *gen; int32_t eot, sot; } gk__wsp_lk;
static int32_t gk__wsp_lookup(const char *name, void *user) {
    const gk__wsp_lk *k = (const gk__wsp_lk *)user;
    const gk_json_value *g = k->gen;
    int64_t tr = gk_json_get_int(g, "task_to_id.transcribe", -1), nt = gk_json_get_int(g, "no_timestamps_token_id", -1);
    const gk_json_value *v;
    if (strcmp(name, "<|endoftext|>") == 0) return k->eot;
    if (strcmp(name, "<|startoftranscript|>") == 0) return k->sot;
    if (strcmp(name, "<|transcribe|>") == 0) return (int32_t)tr;
    if (strcmp(name, "<|translate|>") == 0) return (int32_t)gk_json_get_int(g, "task_to_id.translate", -1);
    if (strcmp(name, "<|notimestamps|>") == 0) return (int32_t)nt;
    if (strcmp(name, "<|startofprev|>") == 0) {
        int64_t p = gk_json_get_int(g, "prev_sot_token_id", -1);
        return (int32_t)(p >= 0 ? p : tr >= 0 && nt == tr + 4 ? tr + 2 : -1);
    }
    /* OpenAI's order after <|transcribe|>: startoflm, startofprev, nospeech (nocaptions), notimestamps */
    if (strcmp(name, "<|startoflm|>") == 0) return (int32_t)(tr >= 0 && nt == tr + 4 ? tr + 1 : -1);
    if (strcmp(name, "<|nospeech|>") == 0) return (int32_t)(tr >= 0 && nt == tr + 4 ? tr + 3 : -1);
    v = gk_json_get(gk_json_get(g, "lang_to_id"), name);
    if (gk_json_typeof(v) == GK_JSON_INT) return (int32_t)gk_json_int(v, -1);
    return -1;
}

/* ---- the tokenizer of a model folder ---- */
/* s[0..n) as a JSON string's contents */
static gk_status gk__wsp_json_str(gk_buf *b, const char *s, size_t n) {
    gk_status st = GK_OK;
    size_t i, a = 0;
    for (i = 0; i < n && st == GK_OK; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\' || c < 0x20) {
            char e[8];
            if (i > a) st = gk_buf_append(b, s + a, i - a);
            if (c == '"' || c == '\\') { e[0] = '\\'; e[1] = (char)c; e[2] = 0; }
            else snprintf(e, sizeof e, "\\u%04x", c);
            if (st == GK_OK) st = gk__u_buf_puts(b, e);
            a = i + 1;
        }
    }
    if (st == GK_OK && n > a) st = gk_buf_append(b, s + a, n - a);
    return st;
}

GKLLMDEF gk_status gk_whisper_tokenizer_load(const char *dir, gk_tokenizer **out) {
    const char *W = "gk_whisper_tokenizer_load";
    char pv[4200], pm[4200], pa[4200];
    char *voc = NULL, *mer = NULL;
    size_t nv = 0, nm = 0, i, a, line = 0;
    gk_json *vj = NULL, *aj = NULL;
    gk_buf js = {NULL, 0, 0};
    gk_status s;
    int first = 1;
    if (out) *out = NULL;
    if (!dir || !out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", W, !dir ? "dir" : "out");
    if (strlen(dir) > 4000) return GK__U_ERR(GK_ERR_LIMIT, "%s: dir is %llu bytes long (at most 4000)", W, (unsigned long long)strlen(dir));
    snprintf(pv, sizeof pv, "%s/tokenizer.json", dir);
    if (gk__u_file_exists(pv)) return gk_tokenizer_load(pv, out);
    snprintf(pv, sizeof pv, "%s/vocab.json", dir);
    snprintf(pm, sizeof pm, "%s/merges.txt", dir);
    snprintf(pa, sizeof pa, "%s/added_tokens.json", dir);
    if (!gk__u_file_exists(pv) || !gk__u_file_exists(pm))
        return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: %s has no tokenizer.json, nor vocab.json and merges.txt (%s is missing)", W, dir, gk__u_file_exists(pv) ? pm : pv);
    /* vocab.json must be an object of ids; merges.txt lines "a b" after an optional "#version" line */
    if ((s = gk_read_file(pv, 0, &voc, &nv)) != GK_OK) goto done;
    if ((s = gk_json_parse(voc, nv, NULL, &vj)) != GK_OK) goto done;
    if (gk_json_typeof(gk_json_root(vj)) != GK_JSON_OBJECT) { s = GK__U_ERR(GK_ERR_FORMAT, "%s: %s is not a JSON object of token ids", W, pv); goto done; }
    if ((s = gk_read_file(pm, 0, &mer, &nm)) != GK_OK) goto done;
    if (gk__u_file_exists(pa) && (s = gk_json_parse_file(pa, NULL, &aj)) != GK_OK) goto done;
    if (aj && gk_json_typeof(gk_json_root(aj)) != GK_JSON_OBJECT) { s = GK__U_ERR(GK_ERR_FORMAT, "%s: %s is not a JSON object of token ids", W, pa); goto done; }
    /* GPT-2's byte-level BPE (Whisper's), as HF's converter makes tokenizer.json of these files */
    s = gk__u_buf_puts(&js, "{\"model\":{\"type\":\"BPE\",\"vocab\":");
    if (s == GK_OK) s = gk_buf_append(&js, voc, nv);
    if (s == GK_OK) s = gk__u_buf_puts(&js, ",\"merges\":[");
    for (i = 0, a = 0; i <= nm && s == GK_OK; i++) {
        if (i < nm && mer[i] != '\n') continue;
        {
            size_t e = i;
            line++;
            if (e > a && mer[e - 1] == '\r') e--;
            if (e > a && !(line == 1 && mer[a] == '#')) {
                const char *sp = (const char *)memchr(mer + a, ' ', e - a);
                if (!sp || sp == mer + a || sp + 1 == mer + e) {
                    s = GK__U_ERR(GK_ERR_FORMAT, "%s: %s line %llu is not two symbols separated by a space", W, pm, (unsigned long long)line);
                    break;
                }
                s = gk__u_buf_puts(&js, first ? "\"" : ",\"");
                if (s == GK_OK) s = gk__wsp_json_str(&js, mer + a, e - a);
                if (s == GK_OK) s = gk__u_buf_puts(&js, "\"");
                first = 0;
            }
        }
        a = i + 1;
    }
    if (s == GK_OK) s = gk__u_buf_puts(&js, "]},\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"use_regex\":true},"
                                           "\"decoder\":{\"type\":\"ByteLevel\"},\"added_tokens\":[");
    /* added_tokens.json's entries, and vocab.json's "<|...|>" entries (<|endoftext|>: HF's bos / eos / unk), are special */
    first = 1;
    for (i = 0; s == GK_OK && i < gk_json_len(gk_json_root(vj)) + (aj ? gk_json_len(gk_json_root(aj)) : 0); i++) {
        int in_vocab = i < gk_json_len(gk_json_root(vj));
        const gk_json_value *obj = in_vocab ? gk_json_root(vj) : gk_json_root(aj);
        size_t j = in_vocab ? i : i - gk_json_len(gk_json_root(vj)), kl = 0;
        const char *k = gk_json_key_at(obj, j, &kl);
        const gk_json_value *v = gk_json_at(obj, j);
        char num[48];
        if (in_vocab && !(kl >= 4 && k[0] == '<' && k[1] == '|' && k[kl - 2] == '|' && k[kl - 1] == '>')) continue;
        if (gk_json_typeof(v) != GK_JSON_INT || gk_json_int(v, -1) < 0) {
            s = GK__U_ERR(GK_ERR_FORMAT, "%s: %s: \"%.*s\" is not a token id", W, in_vocab ? pv : pa, (int)(kl < 60 ? kl : 60), k);
            break;
        }
        snprintf(num, sizeof num, "%s{\"id\":%lld,\"content\":\"", first ? "" : ",", (long long)gk_json_int(v, 0));
        first = 0;
        s = gk__u_buf_puts(&js, num);
        if (s == GK_OK) s = gk__wsp_json_str(&js, k, kl);
        if (s == GK_OK) s = gk__u_buf_puts(&js, "\",\"special\":true}");
    }
    if (s == GK_OK) s = gk__u_buf_puts(&js, "]}");
    if (s == GK_OK) {
        gk__u_tl sv;
        gk__u_tl_save(&sv);
        s = gk_tokenizer_load_mem(js.data, js.len, out);
        if (s != GK_OK) {
            char pre[4300];
            snprintf(pre, sizeof pre, "%s: %.3000s + merges.txt: ", W, pv);
            s = gk__u_tl_move(NULL, &sv, s, pre);
        }
    }
done:
    gk_read_file_free(voc);
    gk_read_file_free(mer);
    gk_json_free(vj);
    gk_json_free(aj);
    gk_buf_free(&js);
    return s;
}

static gk_status gk__wsp_tokens(gk_whisper_model *m, const char *dir, const gk_json_value *gen) {
    char path[4200];
    gk_whisper_tokens_desc td;
    gk__u_tl sv;
    gk_status s = GK_OK;
    memset(&td, 0, sizeof td);
    td.vocab = m->cfg.vocab;
    td.multilingual = m->cfg.is_multilingual;
    snprintf(path, sizeof path, "%.4000s/tokenizer.json", dir);
    if (!gk__u_file_exists(path)) snprintf(path, sizeof path, "%.4000s/vocab.json", dir); /* with merges.txt and added_tokens.json */
    gk__u_tl_save(&sv);
    if (gk__u_file_exists(path)) {
        if ((s = gk_whisper_tokenizer_load(dir, &m->tok)) != GK_OK) return gk__u_tl_move(m->ctx, &sv, s, "gk_whisper_load: ");
        if ((int64_t)gk_tokenizer_vocab_size(m->tok) > m->cfg.vocab) {
            gk__u_tl_restore(&sv);
            return gk_error_set(m->ctx, GK_ERR_SHAPE, "gk_whisper_load: %s has ids up to %llu but vocab_size is %lld", path,
                                (unsigned long long)gk_tokenizer_vocab_size(m->tok) - 1, (long long)m->cfg.vocab);
        }
        s = gk_whisper_tokens_from_tokenizer(m->tok, &td, &m->tokens);
        if (s != GK_OK) {
            char pre[4400];
            snprintf(pre, sizeof pre, "gk_whisper_load: %.4000s: ", path);
            return gk__u_tl_move(m->ctx, &sv, s, pre);
        }
        m->has_tokens = 1;
    } else if (gen && gk_json_typeof(gk_json_get(gen, "no_timestamps_token_id")) == GK_JSON_INT && m->cfg.eos_id >= 0) {
        gk__wsp_lk k;
        k.gen = gen; k.eot = m->cfg.eos_id; k.sot = m->cfg.decoder_start_id;
        s = gk_whisper_tokens_from_lookup(&td, gk__wsp_lookup, &k, &m->tokens);
        if (s != GK_OK) {
            char pre[4400];
            snprintf(pre, sizeof pre, "gk_whisper_load: %.4000s/generation_config.json: ", dir);
            return gk__u_tl_move(m->ctx, &sv, s, pre);
        }
        m->has_tokens = 1;
    } else if (gk_whisper_tokens_from_vocab(m->cfg.vocab, &m->tokens) == GK_OK) {
        m->has_tokens = 1;
    }
    gk__u_tl_restore(&sv);
    if (m->has_tokens && m->tokens.sot != m->cfg.decoder_start_id)
        return gk_error_set(m->ctx, GK_ERR_FORMAT, "gk_whisper_load: %s: decoder_start_token_id = %d is not <|startoftranscript|> (%d)", dir, (int)m->cfg.decoder_start_id,
                            (int)m->tokens.sot);
    return GK_OK;
}

/* ---- weights ---- */
typedef struct gk__wsp_want { char name[112]; int nd; int64_t sh[3]; gk_tensor *dst; } gk__wsp_want;
static void gk__wsp_want_add(gk__wsp_want *w, int *n, gk_tensor *dst, int nd, int64_t d0, int64_t d1, int64_t d2, const char *fmt, long long l) {
    snprintf(w[*n].name, sizeof w[*n].name, fmt, l);
    w[*n].nd = nd; w[*n].sh[0] = d0; w[*n].sh[1] = d1; w[*n].sh[2] = d2; w[*n].dst = dst;
    (*n)++;
}

static gk_tensor *gk__wsp_layer_t(gk__wsp_layer *y, int i) {
    gk_tensor *ts[GK__WSP_LAYER_TENSORS] = { &y->ln1_w, &y->ln1_b, &y->wqkv, &y->bqkv, &y->wo, &y->bo, &y->lnx_w, &y->lnx_b, &y->xq, &y->xbq, &y->xkv, &y->xbkv,
                                             &y->xo, &y->xbo, &y->ln2_w, &y->ln2_b, &y->fc1, &y->fc1_b, &y->fc2, &y->fc2_b, &y->kv, &y->xcache, &y->tq, &y->tk,
                                             &y->tv, &y->tbq, &y->tbv, &y->txk, &y->txv, &y->txbv };
    return ts[i];
}

GKLLMDEF void gk_whisper_free(gk_whisper_model *m) {
    int64_t l;
    int i;
    gk_ctx *ctx;
    if (!m) return;
    ctx = m->ctx;
    if (m->stream) gk_stream_sync(ctx, m->stream);
    for (l = 0; m->enc && l < m->cfg.encoder_layers; l++)
        for (i = 0; i < GK__WSP_LAYER_TENSORS; i++) gk__llm_free_t(ctx, gk__wsp_layer_t(&m->enc[l], i));
    for (l = 0; m->dec && l < m->cfg.decoder_layers; l++)
        for (i = 0; i < GK__WSP_LAYER_TENSORS; i++) gk__llm_free_t(ctx, gk__wsp_layer_t(&m->dec[l], i));
    if (m->proj.id == m->embed.id) m->proj = gk__u_tnull();
    {
        gk_tensor *ts[13] = { &m->conv1_w, &m->conv1_b, &m->conv2_w, &m->conv2_b, &m->enc_pos, &m->enc_ln_w, &m->enc_ln_b,
                              &m->embed, &m->dec_pos, &m->dec_ln_w, &m->dec_ln_b, &m->proj, &m->mel_filters };
        for (i = 0; i < 13; i++) gk__llm_free_t(ctx, ts[i]);
    }
    {
        gk_tensor *ts[15] = { &m->d_buf, &m->d_src, &m->a_h, &m->a_h2, &m->a_x, &m->a_qkv, &m->a_q, &m->a_att, &m->a_ff, &m->a_lg, &m->a_lg32, &m->a_tmp,
                              &m->a_ex, &m->a_mx, &m->a_lse };
        for (i = 0; i < 15; i++) gk__llm_free_t(ctx, ts[i]);
    }
    if (m->h_lg) gk_host_free(ctx, m->h_lg);
    if (m->h_lse) gk_host_free(ctx, m->h_lse);
    {
        gk__wsp_up *ups[2] = { &m->up_buf, &m->up_src };
        for (i = 0; i < 2; i++) {
            if (ups[i]->busy) gk_event_sync(ctx, ups[i]->ev); /* its upload leaves the buffer first */
            if (ups[i]->h) gk_host_free(ctx, ups[i]->h);
            if (ups[i]->ev) gk_event_destroy(ctx, ups[i]->ev);
        }
    }
    for (i = 0; i < m->ngraphs; i++)
        if (m->graphs[i].g) gk_graph_destroy(ctx, m->graphs[i].g);
    if (m->stream) gk_stream_destroy(ctx, m->stream);
    if (m->tok) gk_tokenizer_free(m->tok);
    gk__u_free(m->enc); gk__u_free(m->dec); gk__u_free(m->len); gk__u_free(m->encoded); gk__u_free(m->gen_ids); gk__u_free(m->align);
    gk__u_free(m);
}

/* the attention / MLP tensors of one layer; pre: "model.encoder.layers.%lld." */
static void gk__wsp_want_layer(gk__wsp_want *w, int *n, gk__wsp_layer *y, int dec, int64_t l, int64_t d, int64_t ffn) {
    const char *p = dec ? "model.decoder.layers.%lld." : "model.encoder.layers.%lld.";
    char f[160];
#define GK__WW(dst, nd, d0, d1, suffix) do { snprintf(f, sizeof f, "%s%s", p, suffix); gk__wsp_want_add(w, n, dst, nd, d0, d1, 0, f, (long long)l); } while (0)
    GK__WW(&y->tq, 2, d, d, "self_attn.q_proj.weight");
    GK__WW(&y->tbq, 1, d, 0, "self_attn.q_proj.bias");
    GK__WW(&y->tk, 2, d, d, "self_attn.k_proj.weight");
    GK__WW(&y->tv, 2, d, d, "self_attn.v_proj.weight");
    GK__WW(&y->tbv, 1, d, 0, "self_attn.v_proj.bias");
    GK__WW(&y->wo, 2, d, d, "self_attn.out_proj.weight");
    GK__WW(&y->bo, 1, d, 0, "self_attn.out_proj.bias");
    GK__WW(&y->ln1_w, 1, d, 0, "self_attn_layer_norm.weight");
    GK__WW(&y->ln1_b, 1, d, 0, "self_attn_layer_norm.bias");
    if (dec) {
        GK__WW(&y->xq, 2, d, d, "encoder_attn.q_proj.weight");
        GK__WW(&y->xbq, 1, d, 0, "encoder_attn.q_proj.bias");
        GK__WW(&y->txk, 2, d, d, "encoder_attn.k_proj.weight");
        GK__WW(&y->txv, 2, d, d, "encoder_attn.v_proj.weight");
        GK__WW(&y->txbv, 1, d, 0, "encoder_attn.v_proj.bias");
        GK__WW(&y->xo, 2, d, d, "encoder_attn.out_proj.weight");
        GK__WW(&y->xbo, 1, d, 0, "encoder_attn.out_proj.bias");
        GK__WW(&y->lnx_w, 1, d, 0, "encoder_attn_layer_norm.weight");
        GK__WW(&y->lnx_b, 1, d, 0, "encoder_attn_layer_norm.bias");
    }
    GK__WW(&y->fc1, 2, ffn, d, "fc1.weight");
    GK__WW(&y->fc1_b, 1, ffn, 0, "fc1.bias");
    GK__WW(&y->fc2, 2, d, ffn, "fc2.weight");
    GK__WW(&y->fc2_b, 1, d, 0, "fc2.bias");
    GK__WW(&y->ln2_w, 1, d, 0, "final_layer_norm.weight");
    GK__WW(&y->ln2_b, 1, d, 0, "final_layer_norm.bias");
#undef GK__WW
}

/* [a; b; c] along dim 0 into *out (a part may be a zero tensor of n elements: zero_n > 0 at that index) */
static gk_status gk__wsp_cat(gk_whisper_model *m, gk_tensor *parts, int np, int zero_at, int64_t zero_n, gk_tensor *out) {
    gk_tensor xs[3], z = gk__u_tnull();
    gk_status s = GK_OK;
    int i, k = 0;
    for (i = 0; i < np + (zero_at >= 0) && s == GK_OK; i++) {
        if (i == zero_at) {
            s = gk_tensor_empty(m->ctx, m->dt, 1, &zero_n, &z);
            if (s == GK_OK) s = gk_fill(m->ctx, z, 0);
            xs[i] = z;
        } else xs[i] = parts[k++];
    }
    if (s == GK_OK) s = gk_concat_new(m->ctx, xs, np + (zero_at >= 0), 0, out);
    if (z.id) gk_tensor_free(m->ctx, z);
    return s;
}

static gk_status gk__wsp_fuse(gk_whisper_model *m, gk__wsp_layer *y, int dec) {
    gk_tensor p[3];
    gk_status s;
    int64_t d = m->cfg.d_model;
    p[0] = y->tq; p[1] = y->tk; p[2] = y->tv;
    if ((s = gk__wsp_cat(m, p, 3, -1, 0, &y->wqkv)) != GK_OK) return s;
    p[0] = y->tbq; p[1] = y->tbv;
    if ((s = gk__wsp_cat(m, p, 2, 1, d, &y->bqkv)) != GK_OK) return s;
    if (dec) {
        p[0] = y->txk; p[1] = y->txv;
        if ((s = gk__wsp_cat(m, p, 2, -1, 0, &y->xkv)) != GK_OK) return s;
        p[0] = y->txbv;
        if ((s = gk__wsp_cat(m, p, 1, 0, d, &y->xbkv)) != GK_OK) return s;
    }
    gk__llm_free_t(m->ctx, &y->tq); gk__llm_free_t(m->ctx, &y->tk); gk__llm_free_t(m->ctx, &y->tv);
    gk__llm_free_t(m->ctx, &y->tbq); gk__llm_free_t(m->ctx, &y->tbv);
    gk__llm_free_t(m->ctx, &y->txk); gk__llm_free_t(m->ctx, &y->txv); gk__llm_free_t(m->ctx, &y->txbv);
    return GK_OK;
}

static gk_status gk__wsp_empty(gk_whisper_model *m, gk_dtype dt, int nd, int64_t d0, int64_t d1, int64_t d2, int64_t d3, gk_tensor *out) {
    int64_t sh[4];
    sh[0] = d0; sh[1] = d1; sh[2] = d2; sh[3] = d3;
    return gk_tensor_empty(m->ctx, dt, nd, sh, out);
}

static gk_status gk__wsp_up_new(gk_whisper_model *m, gk__wsp_up *u, size_t n) {
    gk_status s = gk_host_alloc(m->ctx, n * sizeof(int32_t), (void **)&u->h);
    if (s == GK_OK) memset(u->h, 0, n * sizeof(int32_t));
    if (s == GK_OK) s = gk_event_create(m->ctx, &u->ev);
    return s;
}

GKLLMDEF gk_status gk_whisper_load(gk_ctx *ctx, const char *dir, const gk_whisper_desc *desc, gk_whisper_model **out) {
    gk_whisper_desc d;
    gk_whisper_model *m = NULL;
    gk_json *cj = NULL, *gj = NULL;
    gk_safetensors *st = NULL;
    gk__wsp_want *want = NULL;
    gk__llm_prog prog;
    gk_stream *old = NULL;
    int nw = 0, i, streamed = 0;
    int64_t l, dm, V;
    gk_status s;
    const gk_whisper_config *c;
    char cpath[4200], gpath[4200], wpath[4200];
    if (out) *out = NULL;
    if (!ctx) return gk_error_set(NULL, GK_ERR_INVALID_HANDLE, "gk_whisper_load: ctx is NULL");
    if (!dir) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_load: dir is NULL");
    if (!out) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_load: out is NULL");
    if (!dir[0]) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_load: dir is \"\" (a model folder is needed)");
    if (strlen(dir) > 4000) return gk_error_set(ctx, GK_ERR_LIMIT, "gk_whisper_load: dir is %llu bytes long (at most 4000)", (unsigned long long)strlen(dir));
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    if ((unsigned)d.dtype > (unsigned)GK_LLM_DTYPE_F32)
        return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_load: gk_whisper_desc.dtype = %d is not a gk_llm_dtype (GK_LLM_DTYPE_DEFAULT, _BF16, _F16, _F32)", (int)d.dtype);
    if (d.max_windows < 0 || d.max_windows > 64)
        return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_load: gk_whisper_desc.max_windows = %d must be in 1..64 (0: 1)", d.max_windows);
    if (d.max_beams < 0 || d.max_beams > 16)
        return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_load: gk_whisper_desc.max_beams = %d must be in 1..16 (0: 1)", d.max_beams);
    if (d.max_ctx < 0) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_load: gk_whisper_desc.max_ctx = %lld must be >= 1 (0: max_target_positions)", (long long)d.max_ctx);
    snprintf(cpath, sizeof cpath, "%s/config.json", dir);
    snprintf(gpath, sizeof gpath, "%s/generation_config.json", dir);
    if (!gk__u_file_exists(cpath)) return gk_error_set(ctx, GK_ERR_IO, "gk_whisper_load: %s is missing (not a Hugging Face model folder?)", cpath);
    if (!(m = (gk_whisper_model *)gk__u_calloc(1, sizeof *m))) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_whisper_load: out of host memory");
    m->ctx = ctx;
    switch (d.dtype) {
    case GK_LLM_DTYPE_F16: m->dt = GK_F16; break;
    case GK_LLM_DTYPE_F32: m->dt = GK_F32; break;
    case GK_LLM_DTYPE_BF16: m->dt = GK_BF16; break;
    default: m->dt = gk_ctx_backend(ctx) == GK_BACKEND_CPU ? GK_F32 : GK_BF16; break;
    }
    if ((s = gk__wsp_read_json(ctx, cpath, 0, &cj)) != GK_OK) goto fail;
    if ((s = gk__wsp_read_json(ctx, gpath, 1, &gj)) != GK_OK) goto fail;
    if ((s = gk__wsp_config(m, cpath, gk_json_root(cj), gpath, gj ? gk_json_root(gj) : NULL)) != GK_OK) goto fail;
    c = &m->cfg;
    dm = c->d_model; V = c->vocab;
    m->slots = d.max_windows > 0 ? d.max_windows : 1;
    m->beams = d.max_beams > 0 ? d.max_beams : 1;
    m->rows = m->slots * m->beams;
    m->max_ctx = d.max_ctx > 0 ? d.max_ctx : c->n_text_ctx;
    if (m->max_ctx > c->n_text_ctx) {
        s = gk_error_set(ctx, GK_ERR_LIMIT, "gk_whisper_load: gk_whisper_desc.max_ctx = %lld is above the model's max_target_positions = %lld (%s)", (long long)m->max_ctx,
                         (long long)c->n_text_ctx, cpath);
        goto fail;
    }
    if ((s = gk__wsp_tokens(m, dir, gj ? gk_json_root(gj) : NULL)) != GK_OK) goto fail;
    /* the alignment heads (checked against the config): generation_config.json's, else every head of the last half of the decoder layers (OpenAI's default) */
    {
        size_t k, na = c->alignment_heads ? c->n_alignment_heads : (size_t)((c->decoder_layers - c->decoder_layers / 2) * c->decoder_heads);
        if (!(m->align = (int32_t *)gk__u_malloc(sizeof(int32_t) * 2 * (na ? na : 1)))) {
            s = gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_whisper_load: out of host memory");
            goto fail;
        }
        for (k = 0; k < na; k++) {
            if (c->alignment_heads) {
                m->align[2 * k] = c->alignment_heads[2 * k];
                m->align[2 * k + 1] = c->alignment_heads[2 * k + 1];
            } else {
                m->align[2 * k] = (int32_t)(c->decoder_layers / 2 + (int64_t)k / c->decoder_heads);
                m->align[2 * k + 1] = (int32_t)((int64_t)k % c->decoder_heads);
            }
        }
        m->n_align = na;
    }
    /* the weights: every tensor present, of a float dtype and the config's shape, before any device allocation */
    {
        char p1[4200], p2[4200];
        gk__u_tl sv;
        snprintf(p1, sizeof p1, "%s/model.safetensors", dir);
        snprintf(p2, sizeof p2, "%s/model.safetensors.index.json", dir);
        if (!gk__u_file_exists(p1) && !gk__u_file_exists(p2)) {
            s = gk_error_set(ctx, GK_ERR_IO, "gk_whisper_load: %s has no model.safetensors (nor model.safetensors.index.json)", dir);
            goto fail;
        }
        memcpy(wpath, gk__u_file_exists(p2) ? p2 : p1, sizeof wpath); /* p1, p2 and wpath are of one size */
        gk__u_tl_save(&sv);
        if ((s = gk_st_open(dir, &st)) != GK_OK) { s = gk__u_tl_move(ctx, &sv, s, "gk_whisper_load: "); goto fail; }
    }
    if (!(m->enc = (gk__wsp_layer *)gk__u_calloc((size_t)c->encoder_layers, sizeof *m->enc)) ||
        !(m->dec = (gk__wsp_layer *)gk__u_calloc((size_t)c->decoder_layers, sizeof *m->dec)) ||
        !(want = (gk__wsp_want *)gk__u_calloc((size_t)(c->encoder_layers * 16 + c->decoder_layers * 26 + 16), sizeof *want)) ||
        !(m->len = (int64_t *)gk__u_calloc((size_t)m->rows, sizeof(int64_t))) || !(m->encoded = (int *)gk__u_calloc((size_t)m->slots, sizeof(int)))) {
        s = gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_whisper_load: out of host memory");
        goto fail;
    }
    gk__wsp_want_add(want, &nw, &m->conv1_w, 3, dm, c->n_mels, 3, "model.encoder.conv1.weight", 0);
    gk__wsp_want_add(want, &nw, &m->conv1_b, 1, dm, 0, 0, "model.encoder.conv1.bias", 0);
    gk__wsp_want_add(want, &nw, &m->conv2_w, 3, dm, dm, 3, "model.encoder.conv2.weight", 0);
    gk__wsp_want_add(want, &nw, &m->conv2_b, 1, dm, 0, 0, "model.encoder.conv2.bias", 0);
    gk__wsp_want_add(want, &nw, &m->enc_pos, 2, c->n_audio_ctx, dm, 0, "model.encoder.embed_positions.weight", 0);
    gk__wsp_want_add(want, &nw, &m->enc_ln_w, 1, dm, 0, 0, "model.encoder.layer_norm.weight", 0);
    gk__wsp_want_add(want, &nw, &m->enc_ln_b, 1, dm, 0, 0, "model.encoder.layer_norm.bias", 0);
    for (l = 0; l < c->encoder_layers; l++) gk__wsp_want_layer(want, &nw, &m->enc[l], 0, l, dm, c->encoder_ffn);
    gk__wsp_want_add(want, &nw, &m->embed, 2, V, dm, 0, "model.decoder.embed_tokens.weight", 0);
    gk__wsp_want_add(want, &nw, &m->dec_pos, 2, c->n_text_ctx, dm, 0, "model.decoder.embed_positions.weight", 0);
    gk__wsp_want_add(want, &nw, &m->dec_ln_w, 1, dm, 0, 0, "model.decoder.layer_norm.weight", 0);
    gk__wsp_want_add(want, &nw, &m->dec_ln_b, 1, dm, 0, 0, "model.decoder.layer_norm.bias", 0);
    for (l = 0; l < c->decoder_layers; l++) gk__wsp_want_layer(want, &nw, &m->dec[l], 1, l, dm, c->decoder_ffn);
    if (!c->tie_embeddings) gk__wsp_want_add(want, &nw, &m->proj, 2, V, dm, 0, "proj_out.weight", 0);
    memset(&prog, 0, sizeof prog);
    prog.fn = d.progress; prog.user = d.user;
    for (i = 0; i < nw; i++) {
        const gk_st_tensor_info *ti = gk_st_find(st, want[i].name);
        gk_dtype wd;
        int k, bad = 0;
        if (!ti) {
            s = gk_error_set(ctx, GK_ERR_NOT_FOUND, "gk_whisper_load: tensor %s is missing from %s%s", want[i].name, wpath,
                             strcmp(want[i].name, "proj_out.weight") == 0 ? " (config.json's tie_word_embeddings is false)" : "");
            goto fail;
        }
        if (!gk_st_gk_dtype(ti->dtype, &wd) || (wd != GK_F32 && wd != GK_F16 && wd != GK_BF16)) {
            s = gk_error_set(ctx, GK_ERR_DTYPE, "gk_whisper_load: tensor %s is %s (f32, f16 or bf16 expected)", want[i].name, gk_st_dtype_name(ti->dtype));
            goto fail;
        }
        if (i == 0) m->cfg.weights_dtype = wd;
        if (ti->ndim != want[i].nd) bad = 1;
        for (k = 0; k < want[i].nd && !bad; k++) bad = ti->shape[k] != want[i].sh[k];
        if (bad) {
            char got[160], exp[96];
            size_t o = 0, e = 0;
            got[0] = exp[0] = 0;
            for (k = 0; k < ti->ndim && o < sizeof got - 24; k++) o += (size_t)snprintf(got + o, sizeof got - o, "%s%lld", k ? ", " : "", (long long)ti->shape[k]);
            for (k = 0; k < want[i].nd; k++) e += (size_t)snprintf(exp + e, sizeof exp - e, "%s%lld", k ? ", " : "", (long long)want[i].sh[k]);
            s = gk_error_set(ctx, GK_ERR_SHAPE, "gk_whisper_load: tensor %s has shape [%s]; %s says [%s]", want[i].name, got, cpath, exp);
            goto fail;
        }
        prog.total += ti->numel * gk_dtype_size(m->dt);
    }
    /* upload in the compute dtype, fuse q/k/v, then the caches */
    if ((s = gk_stream_create(ctx, GK_PRIORITY_NORMAL, &m->stream)) != GK_OK) goto fail;
    old = gk_get_stream(ctx);
    gk_set_stream(ctx, m->stream);
    streamed = 1;
    for (i = 0; i < nw && s == GK_OK; i++) {
        const gk_st_tensor_info *ti = gk_st_find(st, want[i].name);
        prog.cur = ti->numel * gk_dtype_size(m->dt);
        s = gk_st_upload(ctx, st, want[i].name, m->dt, want[i].dst, gk__llm_prog_cb, &prog);
        prog.base += prog.cur;
    }
    for (l = 0; l < c->encoder_layers && s == GK_OK; l++) s = gk__wsp_fuse(m, &m->enc[l], 0);
    for (l = 0; l < c->decoder_layers && s == GK_OK; l++) s = gk__wsp_fuse(m, &m->dec[l], 1);
    if (s == GK_OK && !m->proj.id) m->proj = m->embed;
    if (s == GK_OK) s = gk_mel_filters_new(ctx, c->n_mels, 400, 16000.0, 0.0, 8000.0, GK_MEL_NORM_SLANEY, &m->mel_filters);
    for (l = 0; l < c->decoder_layers && s == GK_OK; l++) {
        int64_t H = c->decoder_heads, D = dm / H;
        s = gk__wsp_empty(m, m->dt, 4, m->rows, m->max_ctx, 2 * H, D, &m->dec[l].kv);
        if (s == GK_OK) s = gk_fill(ctx, m->dec[l].kv, 0);
        if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 4, m->slots, c->n_audio_ctx, 2 * H, D, &m->dec[l].xcache);
        if (s == GK_OK) s = gk_fill(ctx, m->dec[l].xcache, 0);
        if (s == GK_ERR_OUT_OF_MEMORY)
            s = gk_error_set(ctx, s, "gk_whisper_load: out of memory for the decoder caches of %d windows and %d rows (%.1f MiB per layer): %s", m->slots, m->rows,
                             (double)(2 * (m->rows * m->max_ctx + m->slots * c->n_audio_ctx) * dm) * (double)gk_dtype_size(m->dt) / 1048576.0, gk_last_error(ctx));
    }
    /* the decode step's buffers */
    if (s == GK_OK) s = gk__wsp_empty(m, GK_I32, 1, 3 * m->rows, 0, 0, 0, &m->d_buf);
    if (s == GK_OK) s = gk_fill(ctx, m->d_buf, 0);
    if (s == GK_OK && m->beams > 1) s = gk__wsp_empty(m, GK_I32, 1, m->beams * m->max_ctx, 0, 0, 0, &m->d_src);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, m->rows, dm, 0, 0, &m->a_h);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, m->rows, dm, 0, 0, &m->a_h2);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, m->rows, dm, 0, 0, &m->a_x);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, m->rows, 3 * dm, 0, 0, &m->a_qkv);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, m->rows, dm, 0, 0, &m->a_q);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, m->rows, dm, 0, 0, &m->a_att);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, m->rows, c->decoder_ffn, 0, 0, &m->a_ff);
    if (s == GK_OK && m->dt != GK_F32) s = gk__wsp_empty(m, m->dt, 2, m->rows, V, 0, 0, &m->a_lg);
    if (s == GK_OK) s = gk__wsp_empty(m, GK_F32, 2, m->rows, V, 0, 0, &m->a_lg32);
    if (s == GK_OK && m->beams > 1) s = gk__wsp_empty(m, m->dt, 4, m->beams, m->max_ctx, 2 * c->decoder_heads, dm / c->decoder_heads, &m->a_tmp);
    if (s == GK_OK) s = gk__wsp_empty(m, GK_F32, 2, m->rows, V, 0, 0, &m->a_ex);
    if (s == GK_OK) s = gk__wsp_empty(m, GK_F32, 2, m->rows, 1, 0, 0, &m->a_mx);
    if (s == GK_OK) s = gk__wsp_empty(m, GK_F32, 2, m->rows, 1, 0, 0, &m->a_lse);
    if (s == GK_OK) s = gk_host_alloc(ctx, sizeof(float) * (size_t)(m->rows * V), (void **)&m->h_lg);
    if (s == GK_OK) s = gk_host_alloc(ctx, sizeof(float) * (size_t)m->rows, (void **)&m->h_lse);
    if (s == GK_OK) s = gk__wsp_up_new(m, &m->up_buf, 3 * (size_t)m->rows);
    if (s == GK_OK && m->beams > 1) s = gk__wsp_up_new(m, &m->up_src, (size_t)(m->beams * m->max_ctx));
    if (s == GK_OK) s = gk_stream_sync(ctx, m->stream);
    if (s != GK_OK) goto fail;
    gk_set_stream(ctx, old);
    gk_st_close(st);
    gk_json_free(cj);
    gk_json_free(gj);
    gk__u_free(want);
    *out = m;
    return GK_OK;
fail:
    if (streamed) gk_set_stream(ctx, old);
    gk_st_close(st);
    gk_json_free(cj);
    gk_json_free(gj);
    gk__u_free(want);
    gk_whisper_free(m);
    return s;
}

GKLLMDEF const gk_whisper_config *gk_whisper_get_config(const gk_whisper_model *m) { return m ? &m->cfg : NULL; }
GKLLMDEF const gk_whisper_tokens *gk_whisper_model_tokens(const gk_whisper_model *m) { return m && m->has_tokens ? &m->tokens : NULL; }
GKLLMDEF const gk_tokenizer *gk_whisper_model_tokenizer(const gk_whisper_model *m) { return m ? m->tok : NULL; }
GKLLMDEF gk_dtype gk_whisper_compute_dtype(const gk_whisper_model *m) { return m ? m->dt : GK_F32; }
GKLLMDEF int gk_whisper_max_windows(const gk_whisper_model *m) { return m ? m->slots : 0; }
GKLLMDEF int64_t gk_whisper_max_ctx(const gk_whisper_model *m) { return m ? m->max_ctx : 0; }
GKLLMDEF int gk_whisper_max_beams(const gk_whisper_model *m) { return m ? m->beams : 0; }
GKLLMDEF int64_t gk_whisper_seq_len(const gk_whisper_model *m, int row) { return m && row >= 0 && row < m->rows ? m->len[row] : -1; }
GKLLMDEF gk_status gk_whisper_set_stream(gk_whisper_model *m, gk_stream *s) {
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "gk_whisper_set_stream: m is NULL");
    m->stream_use = s;
    return GK_OK;
}
static gk_stream *gk__wsp_stream(const gk_whisper_model *m) { return m->stream_use ? m->stream_use : m->stream; }

/* Queues the f32 copy of logits lg (any float dtype; cast on the device when
   it is not f32) into dst on the host, on the model's stream (the current
   one): the caller syncs the stream before reading dst. */
static gk_status gk__wsp_logits_host(gk_whisper_model *m, gk_tensor lg, float *dst) {
    gk_tensor_info info;
    gk_tensor t = gk__u_tnull();
    gk_status s = gk_tensor_info_get(m->ctx, lg, &info);
    if (s == GK_OK && info.dtype != GK_F32) s = gk_cast_new(m->ctx, lg, GK_F32, &t);
    if (s == GK_OK) s = gk_copy_to_host_async(m->ctx, t.id ? t : lg, dst, sizeof(float) * (size_t)info.numel, gk__wsp_stream(m));
    if (t.id) gk_tensor_free(m->ctx, t); /* the pool keeps its storage until the copy is done */
    return s;
}

/* Before u->h is rewritten: waits for its last upload only when no sync of
   that upload's stream has passed it since (gk__wsp_up_synced). */
static gk_status gk__wsp_up_wait(gk_whisper_model *m, gk__wsp_up *u) {
    gk_status s;
    if (!u->busy) return GK_OK;
    if ((s = gk_event_sync(m->ctx, u->ev)) == GK_OK) u->busy = 0;
    return s;
}
/* u->h[0..n) into dst (i32, n elements) on the model's stream, without a
   host sync; u->h stays untouched until gk__wsp_up_wait */
static gk_status gk__wsp_up_send(gk_whisper_model *m, gk__wsp_up *u, gk_tensor dst, size_t n) {
    gk_stream *st = gk__wsp_stream(m);
    gk_status s = gk_copy_from_host_async(m->ctx, dst, u->h, n * sizeof(int32_t), st);
    if (s != GK_OK) return s;
    u->busy = 1;
    u->st = st;
    s = gk_event_record(m->ctx, u->ev, st);
    if (s != GK_OK && gk_stream_sync(m->ctx, st) == GK_OK) u->busy = 0; /* no event marks the copy: the stream's end does */
    return s;
}
/* a sync of stream st has passed every upload queued on it */
static void gk__wsp_up_synced(gk_whisper_model *m, gk_stream *st) {
    if (m->up_buf.busy && m->up_buf.st == st) m->up_buf.busy = 0;
    if (m->up_src.busy && m->up_src.st == st) m->up_src.busy = 0;
}

/* ---- encoder ---- */
/* One attention + MLP block of the encoder or decoder's self part, pre-LN:
   h2 = h + out_proj(attention(LN1(h))), h = h2 + fc2(gelu(fc1(LN2(h2)))).
   The attention between is the caller's (att holds its output). */
static void gk__wsp_mlp(gk_whisper_model *m, gk__lv *V, const gk__wsp_layer *y, gk_tensor h, gk_tensor h2, gk_tensor x, gk_tensor ff) {
    gk_matmul_desc md;
    gk_ctx *ctx = m->ctx;
    GK__LV_DO(V, gk_layer_norm(ctx, x, h2, y->ln2_w, y->ln2_b, 1e-5));
    memset(&md, 0, sizeof md);
    md.bias = y->fc1_b;
    md.act = GK_ACT_GELU;
    GK__LV_DO(V, gk_linear(ctx, ff, x, y->fc1, &md));
    memset(&md, 0, sizeof md);
    md.bias = y->fc2_b;
    md.residual = h2;
    GK__LV_DO(V, gk_linear(ctx, h, ff, y->fc2, &md));
}

/* mel: f32 [B, n_mels, 3000] on the device; windows into slots seq0..seq0+B-1 */
static gk_status gk__wsp_encode(gk_whisper_model *m, gk_tensor mel, int64_t B, int seq0, float *enc_out) {
    const gk_whisper_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t dm = c->d_model, S = c->n_audio_ctx, N = B * S, H = c->encoder_heads, D = dm / H, HD = c->decoder_heads, DD = dm / HD, l, nf = 2 * S;
    gk_tensor xin = gk__u_tnull(), c1 = gk__u_tnull(), c2 = gk__u_tnull(), h = gk__u_tnull(), h2 = gk__u_tnull(), x = gk__u_tnull(), qkv = gk__u_tnull(),
              att = gk__u_tnull(), ff = gk__u_tnull(), none = gk__u_tnull();
    gk__lv V;
    gk_status s = GK_OK;
    int perm[3];
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    if (m->dt != GK_F32) {
        s = gk__wsp_empty(m, m->dt, 3, B, c->n_mels, nf, 0, &xin);
        if (s == GK_OK) s = gk_cast(ctx, xin, mel);
    }
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 3, B, dm, nf, 0, &c1);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 3, B, dm, S, 0, &c2);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, N, dm, 0, 0, &h);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, N, dm, 0, 0, &h2);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, N, dm, 0, 0, &x);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, N, 3 * dm, 0, 0, &qkv);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, N, dm, 0, 0, &att);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, N, c->encoder_ffn, 0, 0, &ff);
    V.st = s;
    /* the convolutions, positions: h [B * 1500, d] */
    GK__LV_DO(&V, gk_conv1d(ctx, c1, m->dt == GK_F32 ? mel : xin, m->conv1_w, m->conv1_b, 1, 1, 1, 1));
    GK__LV_DO(&V, gk_unary(ctx, c1, c1, GK_UNARY_GELU, 0));
    GK__LV_DO(&V, gk_conv1d(ctx, c2, c1, m->conv2_w, m->conv2_b, 2, 1, 1, 1));
    GK__LV_DO(&V, gk_unary(ctx, c2, c2, GK_UNARY_GELU, 0));
    perm[0] = 0; perm[1] = 2; perm[2] = 1;
    {
        gk_tensor h3 = gk__lv_reshape(&V, h, 3, B, S, dm, 0);
        GK__LV_DO(&V, gk_permute(ctx, h3, c2, perm));
        GK__LV_DO(&V, gk_add(ctx, h3, h3, m->enc_pos));
    }
    gk__lv_free(&V);
    for (l = 0; l < c->encoder_layers && V.st == GK_OK; l++) {
        const gk__wsp_layer *y = &m->enc[l];
        gk_matmul_desc md;
        gk_attention_desc ad;
        gk_tensor q5, q, k, v;
        GK__LV_DO(&V, gk_layer_norm(ctx, x, h, y->ln1_w, y->ln1_b, 1e-5));
        memset(&md, 0, sizeof md);
        md.bias = y->bqkv;
        GK__LV_DO(&V, gk_linear(ctx, qkv, x, y->wqkv, &md));
        q5 = gk__lv_reshape(&V, qkv, 4, B, S, 3 * H, D);
        q = gk__lv_slice(&V, q5, 2, 0, H);
        k = gk__lv_slice(&V, q5, 2, H, 2 * H);
        v = gk__lv_slice(&V, q5, 2, 2 * H, 3 * H);
        memset(&ad, 0, sizeof ad);
        GK__LV_DO(&V, gk_attention(ctx, gk__lv_reshape(&V, att, 4, B, S, H, D), q, k, v, &ad));
        memset(&md, 0, sizeof md);
        md.bias = y->bo;
        md.residual = h;
        GK__LV_DO(&V, gk_linear(ctx, h2, att, y->wo, &md));
        gk__wsp_mlp(m, &V, y, h, h2, x, ff);
        gk__lv_free(&V);
    }
    GK__LV_DO(&V, gk_layer_norm(ctx, x, h, m->enc_ln_w, m->enc_ln_b, 1e-5));
    /* each decoder layer's cross-attention K / V of these windows: [B, 1500, 2 H, D] rows of the slots */
    for (l = 0; l < c->decoder_layers && V.st == GK_OK; l++) {
        const gk__wsp_layer *y = &m->dec[l];
        gk_matmul_desc md;
        gk_tensor dst = gk__lv_reshape(&V, gk__lv_slice(&V, y->xcache, 0, seq0, seq0 + B), 2, N, 2 * HD * DD, 0, 0);
        memset(&md, 0, sizeof md);
        md.bias = y->xbkv;
        GK__LV_DO(&V, gk_linear(ctx, dst, x, y->xkv, &md));
        gk__lv_free(&V);
    }
    if (V.st == GK_OK && enc_out) {
        if (m->dt == GK_F32) V.st = gk_copy_to_host(ctx, x, enc_out, (size_t)(N * dm) * sizeof(float));
        else {
            gk_tensor t;
            V.st = gk_cast_new(ctx, x, GK_F32, &t);
            if (V.st == GK_OK) { V.st = gk_copy_to_host(ctx, t, enc_out, (size_t)(N * dm) * sizeof(float)); gk_tensor_free(ctx, t); }
        }
    }
    if (V.st == GK_OK) V.st = gk_stream_sync(ctx, gk__wsp_stream(m));
    gk__lv_free(&V);
    {
        gk_tensor *ts[9] = { &xin, &c1, &c2, &h, &h2, &x, &qkv, &att, &ff };
        int i;
        for (i = 0; i < 9; i++) gk__llm_free_t(ctx, ts[i]);
    }
    (void)none;
    if (V.st == GK_OK) {
        int64_t b;
        for (b = 0; b < B; b++) m->encoded[seq0 + b] = 1;
        for (b = 0; b < B * m->beams; b++) m->len[seq0 * m->beams + b] = 0;
    } else {
        int64_t b;
        for (b = 0; b < B; b++) m->encoded[seq0 + b] = 0; /* K / V may be half written */
        for (b = 0; b < B * m->beams; b++) m->len[seq0 * m->beams + b] = 0;
    }
    return V.st;
}

/* the non-finite values of a host array: the first index, or -1 */
static int64_t gk__wsp_nonfinite(const float *x, int64_t n) {
    int64_t i;
    for (i = 0; i < n; i++)
        if (!(x[i] - x[i] == 0)) return i;
    return -1;
}

GKLLMDEF gk_status gk_whisper_encode_tensor(gk_whisper_model *m, gk_tensor mel, int seq0, float *enc_out) {
    const char *W = "gk_whisper_encode";
    gk_tensor_info ti;
    gk_stream *old;
    gk_tensor mv = gk__u_tnull();
    gk_status s;
    int64_t B;
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if ((s = gk_tensor_info_get(m->ctx, mel, &ti)) != GK_OK) return s;
    if (ti.dtype != GK_F32) return gk_error_set(m->ctx, GK_ERR_DTYPE, "%s: mel is %s (f32 expected)", W, gk_dtype_name(ti.dtype));
    if (!((ti.ndim == 3 && ti.shape[1] == m->cfg.n_mels && ti.shape[2] == 2 * m->cfg.n_audio_ctx) ||
          (ti.ndim == 2 && ti.shape[0] == m->cfg.n_mels && ti.shape[1] == 2 * m->cfg.n_audio_ctx)))
        return gk_error_set(m->ctx, GK_ERR_SHAPE, "%s: mel must be [windows, %lld, %lld] or [%lld, %lld] (num_mel_bins, 3000 frames)", W, (long long)m->cfg.n_mels,
                            (long long)(2 * m->cfg.n_audio_ctx), (long long)m->cfg.n_mels, (long long)(2 * m->cfg.n_audio_ctx));
    B = ti.ndim == 3 ? ti.shape[0] : 1;
    if (B < 1 || seq0 < 0 || seq0 + B > m->slots)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %lld windows from slot %d do not fit the %d slots of the model (gk_whisper_desc.max_windows)", W, (long long)B, seq0,
                            m->slots);
    if (ti.ndim == 2) {
        int64_t sh[3];
        sh[0] = 1; sh[1] = ti.shape[0]; sh[2] = ti.shape[1];
        if ((s = gk_view_reshape(m->ctx, mel, 3, sh, &mv)) != GK_OK) return s;
    }
    old = gk_get_stream(m->ctx);
    gk_set_stream(m->ctx, gk__wsp_stream(m));
    s = gk__wsp_encode(m, mv.id ? mv : mel, B, seq0, enc_out);
    gk_set_stream(m->ctx, old);
    if (mv.id) gk_tensor_free(m->ctx, mv);
    if (s == GK_OK && enc_out) {
        int64_t bad = gk__wsp_nonfinite(enc_out, B * m->cfg.n_audio_ctx * m->cfg.d_model);
        if (bad >= 0)
            return gk_error_set(m->ctx, GK_ERR_FORMAT, "%s: the encoder output is not finite at window %lld, frame %lld: the weights or features hold NaN or infinite values, or "
                                "the activations overflowed the compute dtype", W, (long long)(bad / (m->cfg.n_audio_ctx * m->cfg.d_model)),
                                (long long)(bad / m->cfg.d_model % m->cfg.n_audio_ctx));
    }
    return s;
}

GKLLMDEF gk_status gk_whisper_encode(gk_whisper_model *m, const float *mel, int n, int seq0, float *enc_out) {
    const char *W = "gk_whisper_encode";
    gk_tensor t = gk__u_tnull();
    gk_status s;
    int64_t sh[3];
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!mel) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: mel is NULL", W);
    if (n < 1 || seq0 < 0 || (int64_t)seq0 + n > m->slots)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %d windows from slot %d do not fit the %d slots of the model (gk_whisper_desc.max_windows)", W, n, seq0, m->slots);
    sh[0] = n; sh[1] = m->cfg.n_mels; sh[2] = 2 * m->cfg.n_audio_ctx;
    if ((s = gk_tensor_from_host(m->ctx, GK_F32, 3, sh, mel, &t)) != GK_OK) return s;
    s = gk_whisper_encode_tensor(m, t, seq0, enc_out);
    gk_tensor_free(m->ctx, t);
    return s;
}

/* ---- decoder ---- */
/* The cross-attention probabilities softmax(q k^T / sqrt(D)) over the
   window's frames of the alignment heads, per decoder position: out
   [n_heads][n][n_audio_ctx] on the host, head k of heads[2 k] (layer),
   heads[2 k + 1] (head). */
typedef struct gk__wsp_cap {
    const int32_t *heads;
    size_t n_heads;
    float *out;
} gk__wsp_cap;

static gk_tensor gk__wsp_lv_permute(gk__lv *v, gk_tensor x, int a, int b, int c) {
    gk_tensor t = gk__u_tnull();
    int perm[3];
    if (v->st != GK_OK) return t;
    perm[0] = a; perm[1] = b; perm[2] = c;
    return gk__lv_keep(v, gk_view_permute(v->ctx, x, perm, &t), t);
}
static gk_tensor gk__wsp_lv_contig(gk__lv *v, gk_tensor x) {
    gk_tensor t = gk__u_tnull();
    if (v->st != GK_OK) return t;
    return gk__lv_keep(v, gk_contiguous(v->ctx, x, &t), t);
}

/* layer l's alignment heads: q [n, d] (the cross-attention queries), xc the window's [1, n_audio_ctx, 2 H, D] */
static void gk__wsp_capture(gk_whisper_model *m, gk__lv *V, const gk__wsp_cap *cap, int64_t l, gk_tensor q, gk_tensor xc, int64_t n) {
    const gk_whisper_config *c = &m->cfg;
    int64_t H = c->decoder_heads, D = c->d_model / H, F = c->n_audio_ctx, h;
    size_t k, any = 0;
    gk_tensor qh, kh, sc = gk__u_tnull();
    gk_matmul_desc md;
    float *host = NULL;
    for (k = 0; k < cap->n_heads; k++) any += cap->heads[2 * k] == l;
    if (!any || V->st != GK_OK) return;
    /* [H, n, D] @ [H, D, F] -> [H, n, F] in f32 */
    qh = gk__wsp_lv_contig(V, gk__wsp_lv_permute(V, gk__lv_reshape(V, q, 3, n, H, D, 0), 1, 0, 2));
    kh = gk__wsp_lv_contig(V, gk__wsp_lv_permute(V, gk__lv_reshape(V, gk__lv_slice(V, xc, 2, 0, H), 3, F, H, D, 0), 1, 2, 0));
    if (V->st == GK_OK) {
        int64_t sh[3];
        sh[0] = H; sh[1] = n; sh[2] = F;
        V->st = gk_tensor_empty(m->ctx, GK_F32, 3, sh, &sc);
        if (V->st == GK_OK) gk__lv_keep(V, GK_OK, sc);
    }
    memset(&md, 0, sizeof md);
    md.alpha = 1.0 / sqrt((double)D);
    GK__LV_DO(V, gk_matmul(m->ctx, sc, qh, kh, &md));
    GK__LV_DO(V, gk_softmax(m->ctx, sc, sc));
    if (V->st != GK_OK) return;
    if (!(host = (float *)gk__u_malloc(sizeof(float) * (size_t)(H * n * F)))) {
        V->st = gk_error_set(m->ctx, GK_ERR_OUT_OF_MEMORY, "gk_whisper_cross_weights: out of host memory");
        return;
    }
    V->st = gk_copy_to_host(m->ctx, sc, host, sizeof(float) * (size_t)(H * n * F));
    for (k = 0; k < cap->n_heads && V->st == GK_OK; k++) {
        if (cap->heads[2 * k] != l) continue;
        h = cap->heads[2 * k + 1];
        memcpy(cap->out + k * (size_t)(n * F), host + (size_t)(h * n * F), sizeof(float) * (size_t)(n * F));
    }
    gk__u_free(host);
}

/* ids (host) of decoder row seq at positions len..len+n-1; f32-convertible
   logits [all ? n : 1, vocab] of the compute dtype in *logits; cap (may be
   NULL) gets the alignment heads' cross-attention probabilities */
static gk_status gk__wsp_prefill(gk_whisper_model *m, int seq, const int32_t *ids, int64_t n, int all, gk_tensor *logits, const gk__wsp_cap *cap) {
    const gk_whisper_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t p0 = m->len[seq], i, dm = c->d_model, H = c->decoder_heads, D = dm / H, l;
    int32_t *pos = (int32_t *)gk__u_malloc(sizeof(int32_t) * (size_t)n), p0i = (int32_t)p0;
    gk_tensor ids_d = gk__u_tnull(), pos_d = gk__u_tnull(), start_d = gk__u_tnull(), h = gk__u_tnull(), h2 = gk__u_tnull(), x = gk__u_tnull(), qkv = gk__u_tnull(),
              q = gk__u_tnull(), att = gk__u_tnull(), ff = gk__u_tnull();
    gk__lv V;
    gk_status s;
    int64_t sh1[1];
    *logits = gk__u_tnull();
    if (!pos) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_whisper_decode: out of host memory");
    for (i = 0; i < n; i++) pos[i] = (int32_t)(p0 + i);
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    sh1[0] = n;
    s = gk_tensor_from_host(ctx, GK_I32, 1, sh1, ids, &ids_d);
    if (s == GK_OK) s = gk_tensor_from_host(ctx, GK_I32, 1, sh1, pos, &pos_d);
    sh1[0] = 1;
    if (s == GK_OK) s = gk_tensor_from_host(ctx, GK_I32, 1, sh1, &p0i, &start_d);
    gk__u_free(pos);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, n, dm, 0, 0, &h);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, n, dm, 0, 0, &h2);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, n, dm, 0, 0, &x);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, n, 3 * dm, 0, 0, &qkv);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, n, dm, 0, 0, &q);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, n, dm, 0, 0, &att);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, n, c->decoder_ffn, 0, 0, &ff);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, all ? n : 1, c->vocab, 0, 0, logits);
    V.st = s;
    /* token + position embeddings (h2 holds the positions' rows) */
    GK__LV_DO(&V, gk_embedding(ctx, h, m->embed, ids_d));
    GK__LV_DO(&V, gk_embedding(ctx, h2, m->dec_pos, pos_d));
    GK__LV_DO(&V, gk_add(ctx, h, h, h2));
    for (l = 0; l < c->decoder_layers && V.st == GK_OK; l++) {
        const gk__wsp_layer *y = &m->dec[l];
        gk_matmul_desc md;
        gk_attention_desc ad;
        gk_tensor q4, kv, kc, vc, xc, att4;
        /* self-attention: q/k/v, k and v into the cache at p0, causal over rows 0..p0+n */
        GK__LV_DO(&V, gk_layer_norm(ctx, x, h, y->ln1_w, y->ln1_b, 1e-5));
        memset(&md, 0, sizeof md);
        md.bias = y->bqkv;
        GK__LV_DO(&V, gk_linear(ctx, qkv, x, y->wqkv, &md));
        q4 = gk__lv_reshape(&V, qkv, 4, 1, n, 3 * H, D);
        kv = gk__lv_slice(&V, y->kv, 0, seq, seq + 1);
        GK__LV_DO(&V, gk_kv_write(ctx, kv, gk__lv_slice(&V, q4, 2, H, 3 * H), start_d));
        kv = gk__lv_slice(&V, kv, 1, 0, p0 + n);
        kc = gk__lv_slice(&V, kv, 2, 0, H);
        vc = gk__lv_slice(&V, kv, 2, H, 2 * H);
        att4 = gk__lv_reshape(&V, att, 4, 1, n, H, D);
        memset(&ad, 0, sizeof ad);
        ad.causal = 1;
        GK__LV_DO(&V, gk_attention(ctx, att4, gk__lv_slice(&V, q4, 2, 0, H), kc, vc, &ad));
        memset(&md, 0, sizeof md);
        md.bias = y->bo;
        md.residual = h;
        GK__LV_DO(&V, gk_linear(ctx, h2, att, y->wo, &md));
        /* cross-attention to the window's K / V (h2 -> h) */
        GK__LV_DO(&V, gk_layer_norm(ctx, x, h2, y->lnx_w, y->lnx_b, 1e-5));
        memset(&md, 0, sizeof md);
        md.bias = y->xbq;
        GK__LV_DO(&V, gk_linear(ctx, q, x, y->xq, &md));
        xc = gk__lv_slice(&V, y->xcache, 0, seq / m->beams, seq / m->beams + 1);
        if (cap) gk__wsp_capture(m, &V, cap, l, q, xc, n);
        memset(&ad, 0, sizeof ad);
        GK__LV_DO(&V, gk_attention(ctx, att4, gk__lv_reshape(&V, q, 4, 1, n, H, D), gk__lv_slice(&V, xc, 2, 0, H), gk__lv_slice(&V, xc, 2, H, 2 * H), &ad));
        memset(&md, 0, sizeof md);
        md.bias = y->xbo;
        md.residual = h2;
        GK__LV_DO(&V, gk_linear(ctx, h, att, y->xo, &md));
        /* MLP (h -> h2); the next layer starts from h2 */
        gk__wsp_mlp(m, &V, y, h2, h, x, ff);
        gk__lv_free(&V);
        { gk_tensor t = h; h = h2; h2 = t; }
    }
    {
        gk_tensor xl = all ? x : gk__lv_slice(&V, x, 0, n - 1, n);
        GK__LV_DO(&V, gk_layer_norm(ctx, x, h, m->dec_ln_w, m->dec_ln_b, 1e-5));
        GK__LV_DO(&V, gk_linear(ctx, *logits, xl, m->proj, NULL));
    }
    gk__lv_free(&V);
    {
        gk_tensor *ts[10] = { &ids_d, &pos_d, &start_d, &h, &h2, &x, &qkv, &q, &att, &ff };
        for (i = 0; i < 10; i++) gk__llm_free_t(ctx, ts[i]);
    }
    if (V.st != GK_OK) gk__llm_free_t(ctx, logits);
    else m->len[seq] = p0 + n;
    return V.st;
}

GKLLMDEF gk_status gk_whisper_reset(gk_whisper_model *m, int seq) {
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "gk_whisper_reset: m is NULL");
    if (seq < 0 || seq >= m->rows)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_reset: row %d outside 0..%d (max_windows %d x max_beams %d)", seq, m->rows - 1, m->slots, m->beams);
    m->len[seq] = 0;
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_decode(gk_whisper_model *m, int seq, const int32_t *ids, size_t n, int all, float *logits) {
    const char *W = "gk_whisper_decode";
    gk_stream *old;
    gk_tensor lg;
    gk_status s;
    int64_t p0, V;
    size_t i;
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!ids && n) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: ids is NULL but n is %llu", W, (unsigned long long)n);
    if (n == 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: n is 0 (no tokens to run)", W);
    if (seq < 0 || seq >= m->rows)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: row %d outside 0..%d (max_windows %d x max_beams %d)", W, seq, m->rows - 1, m->slots, m->beams);
    if (!m->encoded[seq / m->beams])
        return gk_error_set(m->ctx, GK_ERR_STATE, "%s: row %d's window %d holds no encoded window (gk_whisper_encode first)", W, seq, seq / m->beams);
    if ((int64_t)n > m->max_ctx - m->len[seq])
        return gk_error_set(m->ctx, GK_ERR_LIMIT, "%s: %llu tokens after %lld in row %d exceed the context of %lld tokens", W, (unsigned long long)n, (long long)m->len[seq], seq,
                            (long long)m->max_ctx);
    V = m->cfg.vocab;
    for (i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= V)
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: token id %d at ids[%llu] is outside the vocab [0, %lld)", W, (int)ids[i], (unsigned long long)i, (long long)V);
    old = gk_get_stream(m->ctx);
    gk_set_stream(m->ctx, gk__wsp_stream(m));
    p0 = m->len[seq];
    s = gk__wsp_prefill(m, seq, ids, (int64_t)n, all, &lg, NULL);
    if (s == GK_OK && logits) s = gk__wsp_logits_host(m, lg, logits);
    if (s == GK_OK) s = gk_stream_sync(m->ctx, gk__wsp_stream(m));
    if (s == GK_OK) gk__wsp_up_synced(m, gk__wsp_stream(m));
    gk__llm_free_t(m->ctx, &lg);
    gk_set_stream(m->ctx, old);
    if (s == GK_OK && logits) {
        size_t r, rows = all ? n : 1;
        for (r = 0; r < rows && s == GK_OK; r++) {
            int64_t bad = gk__wsp_nonfinite(logits + r * (size_t)V, V);
            if (bad >= 0)
                s = gk_error_set(m->ctx, GK_ERR_FORMAT, "%s: the logits of position %lld of row %d are not finite (logit %lld): the weights hold NaN or infinite values, or the "
                                 "activations overflowed the compute dtype", W, (long long)(p0 + (int64_t)(all ? r : n - 1)), seq, (long long)bad);
        }
        if (s != GK_OK) m->len[seq] = p0;
    }
    return s;
}

/* ---- the decode step of several rows ---- */
/* One token for rows row0..row0+n-1 from entries 0..n-1 of d_buf's three
   parts (token, position, kv length), logits f32 into a_lg32[0..n);
   attention over the cache rows 0..kv_rows. The rows cover whole windows
   (row0 and n multiples of beams): the cross-attention runs per window with
   its beams as the queries. */
static gk_status gk__wsp_step_ops(gk_whisper_model *m, int row0, int n, int64_t kv_rows) {
    const gk_whisper_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t dm = c->d_model, H = c->decoder_heads, D = dm / H, l, R = m->rows, nb = m->beams, nw = n / m->beams, w0 = row0 / m->beams;
    gk_tensor ids, pos, kvl, h, h2, x, qkv, q, att, ff, lg;
    gk__lv V;
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    ids = gk__lv_slice(&V, m->d_buf, 0, 0, n);
    pos = gk__lv_slice(&V, m->d_buf, 0, R, R + n);
    kvl = gk__lv_slice(&V, m->d_buf, 0, 2 * R, 2 * R + n);
    h = gk__lv_slice(&V, m->a_h, 0, 0, n);
    h2 = gk__lv_slice(&V, m->a_h2, 0, 0, n);
    x = gk__lv_slice(&V, m->a_x, 0, 0, n);
    qkv = gk__lv_slice(&V, m->a_qkv, 0, 0, n);
    q = gk__lv_slice(&V, m->a_q, 0, 0, n);
    att = gk__lv_slice(&V, m->a_att, 0, 0, n);
    ff = gk__lv_slice(&V, m->a_ff, 0, 0, n);
    GK__LV_DO(&V, gk_embedding(ctx, h, m->embed, ids));
    GK__LV_DO(&V, gk_embedding(ctx, h2, m->dec_pos, pos));
    GK__LV_DO(&V, gk_add(ctx, h, h, h2));
    for (l = 0; l < c->decoder_layers && V.st == GK_OK; l++) {
        const gk__wsp_layer *y = &m->dec[l];
        gk_matmul_desc md;
        gk_attention_desc ad;
        gk_tensor q4, kv, xc, att4;
        gk__lv L;
        memset(&L, 0, sizeof L);
        L.ctx = ctx;
        GK__LV_DO(&L, gk_layer_norm(ctx, x, h, y->ln1_w, y->ln1_b, 1e-5));
        memset(&md, 0, sizeof md);
        md.bias = y->bqkv;
        GK__LV_DO(&L, gk_linear(ctx, qkv, x, y->wqkv, &md));
        q4 = gk__lv_reshape(&L, qkv, 4, n, 1, 3 * H, D);
        kv = gk__lv_slice(&L, y->kv, 0, row0, row0 + n);
        GK__LV_DO(&L, gk_kv_write(ctx, kv, gk__lv_slice(&L, q4, 2, H, 3 * H), pos));
        kv = gk__lv_slice(&L, kv, 1, 0, kv_rows);
        att4 = gk__lv_reshape(&L, att, 4, n, 1, H, D);
        memset(&ad, 0, sizeof ad);
        ad.causal = 1;
        ad.kv_lens = kvl;
        GK__LV_DO(&L, gk_attention(ctx, att4, gk__lv_slice(&L, q4, 2, 0, H), gk__lv_slice(&L, kv, 2, 0, H), gk__lv_slice(&L, kv, 2, H, 2 * H), &ad));
        memset(&md, 0, sizeof md);
        md.bias = y->bo;
        md.residual = h;
        GK__LV_DO(&L, gk_linear(ctx, h2, att, y->wo, &md));
        /* cross-attention: each window's beams are its queries */
        GK__LV_DO(&L, gk_layer_norm(ctx, x, h2, y->lnx_w, y->lnx_b, 1e-5));
        memset(&md, 0, sizeof md);
        md.bias = y->xbq;
        GK__LV_DO(&L, gk_linear(ctx, q, x, y->xq, &md));
        xc = gk__lv_slice(&L, y->xcache, 0, w0, w0 + nw);
        memset(&ad, 0, sizeof ad);
        GK__LV_DO(&L, gk_attention(ctx, gk__lv_reshape(&L, att, 4, nw, nb, H, D), gk__lv_reshape(&L, q, 4, nw, nb, H, D), gk__lv_slice(&L, xc, 2, 0, H),
                                   gk__lv_slice(&L, xc, 2, H, 2 * H), &ad));
        memset(&md, 0, sizeof md);
        md.bias = y->xbo;
        md.residual = h2;
        GK__LV_DO(&L, gk_linear(ctx, h, att, y->xo, &md));
        gk__wsp_mlp(m, &L, y, h2, h, x, ff);
        gk__lv_free(&L);
        if (L.st != GK_OK) V.st = L.st;
        { gk_tensor t = h; h = h2; h2 = t; }
    }
    GK__LV_DO(&V, gk_layer_norm(ctx, x, h, m->dec_ln_w, m->dec_ln_b, 1e-5));
    lg = gk__lv_slice(&V, m->dt == GK_F32 ? m->a_lg32 : m->a_lg, 0, 0, n);
    GK__LV_DO(&V, gk_linear(ctx, lg, x, m->proj, NULL));
    if (m->dt != GK_F32) GK__LV_DO(&V, gk_cast(ctx, gk__lv_slice(&V, m->a_lg32, 0, 0, n), lg));
    /* each row's log-sum-exp (non-finite when the row holds NaN or +inf, or only -inf) */
    {
        gk_tensor l32 = gk__lv_slice(&V, m->a_lg32, 0, 0, n), ex = gk__lv_slice(&V, m->a_ex, 0, 0, n), mx = gk__lv_slice(&V, m->a_mx, 0, 0, n),
                  lse = gk__lv_slice(&V, m->a_lse, 0, 0, n);
        GK__LV_DO(&V, gk_reduce(ctx, mx, l32, GK_REDUCE_MAX, 1, 1));
        GK__LV_DO(&V, gk_sub(ctx, ex, l32, mx));
        GK__LV_DO(&V, gk_unary(ctx, ex, ex, GK_UNARY_EXP, 0));
        GK__LV_DO(&V, gk_reduce(ctx, lse, ex, GK_REDUCE_SUM, 1, 1));
        GK__LV_DO(&V, gk_unary(ctx, lse, lse, GK_UNARY_LOG, 0));
        GK__LV_DO(&V, gk_add(ctx, lse, lse, mx));
    }
    gk__lv_free(&V);
    return V.st;
}

/* the step as a graph replay (captured on a key's second use) */
static gk_status gk__wsp_step(gk_whisper_model *m, int row0, int n, int64_t kv_rows) {
    gk_stream *st = gk__wsp_stream(m);
    gk__wsp_graph *e = NULL;
    gk_graph *g = NULL;
    gk_status s, s2;
    int i;
    for (i = 0; i < m->ngraphs; i++)
        if (m->graphs[i].row0 == row0 && m->graphs[i].n == n && m->graphs[i].kv_rows == kv_rows) { e = &m->graphs[i]; break; }
    if (!e) {
        if (m->ngraphs == GK__WSP_GRAPHS) return gk__wsp_step_ops(m, row0, n, kv_rows); /* every key held: op by op */
        e = &m->graphs[m->ngraphs++];
        e->row0 = row0; e->n = n; e->kv_rows = kv_rows; e->warm = 1; e->g = NULL;
        return gk__wsp_step_ops(m, row0, n, kv_rows);
    }
    if (e->g) return gk_graph_launch(m->ctx, e->g, st);
    if ((s = gk_graph_begin(m->ctx, st)) != GK_OK) return s;
    s = gk__wsp_step_ops(m, row0, n, kv_rows);
    s2 = gk_graph_end(m->ctx, st, &g);
    if (s == GK_OK) s = s2;
    if (s != GK_OK) { if (g) gk_graph_destroy(m->ctx, g); return s; }
    e->g = g;
    return gk_graph_launch(m->ctx, g, st);
}

GKLLMDEF gk_status gk_whisper_decode_step(gk_whisper_model *m, int row0, int n, const int32_t *ids, float *logits, float *lse) {
    const char *W = "gk_whisper_decode_step";
    gk_stream *old;
    gk_status s;
    int64_t V, need = 1, kv_rows = 128;
    int i, R;
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    m->step_n = 0;
    if (!ids) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: ids is NULL", W);
    R = m->rows;
    if (n < 1 || row0 < 0 || row0 > R - n)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: rows %d..%d are outside the model's %d rows (max_windows %d x max_beams %d)", W, row0, row0 + n - 1, R,
                            m->slots, m->beams);
    if (row0 % m->beams || n % m->beams)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: rows %d..%d do not cover whole windows (%d rows each: row0 and n must be multiples of max_beams)", W, row0,
                            row0 + n - 1, m->beams);
    V = m->cfg.vocab;
    for (i = 0; i < n; i++) {
        int r = row0 + i;
        if (!m->encoded[r / m->beams]) return gk_error_set(m->ctx, GK_ERR_STATE, "%s: row %d's window %d holds no encoded window (gk_whisper_encode first)", W, r, r / m->beams);
        if (ids[i] >= V) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: token id %d at ids[%d] is outside the vocab [0, %lld)", W, (int)ids[i], i, (long long)V);
        if (ids[i] < 0) continue;
        if (m->len[r] == 0) return gk_error_set(m->ctx, GK_ERR_STATE, "%s: row %d is empty (gk_whisper_decode runs its prompt first)", W, r);
        if (m->len[r] >= m->max_ctx)
            return gk_error_set(m->ctx, GK_ERR_LIMIT, "%s: row %d holds %lld tokens: its context of %lld tokens is full", W, r, (long long)m->len[r], (long long)m->max_ctx);
        if (m->len[r] + 1 > need) need = m->len[r] + 1;
    }
    /* token, position and kv length of each row, uploaded without a host
       sync from the model's page-locked buffer (the last step's sync has
       passed its upload); a skipped row (id < 0) runs token 0 at its length
       without keeping it */
    if ((s = gk__wsp_up_wait(m, &m->up_buf)) != GK_OK) return s;
    for (i = 0; i < n; i++) {
        int64_t L = m->len[row0 + i];
        m->up_buf.h[i] = ids[i] < 0 ? 0 : ids[i];
        m->up_buf.h[R + i] = (int32_t)(L < m->max_ctx ? L : m->max_ctx - 1);
        m->up_buf.h[2 * R + i] = (int32_t)(L < m->max_ctx ? L + 1 : m->max_ctx);
    }
    while (kv_rows < need) kv_rows <<= 1;
    if (kv_rows > m->max_ctx) kv_rows = m->max_ctx;
    old = gk_get_stream(m->ctx);
    gk_set_stream(m->ctx, gk__wsp_stream(m));
    s = gk__wsp_up_send(m, &m->up_buf, m->d_buf, 3 * (size_t)R);
    if (s == GK_OK) s = gk__wsp_step(m, row0, n, kv_rows);
    if (s == GK_OK) {
        gk_tensor t = gk__u_tnull(), u = gk__u_tnull();
        s = gk_view_slice(m->ctx, m->a_lg32, 0, 0, n, 1, &t);
        if (s == GK_OK) s = gk_view_slice(m->ctx, m->a_lse, 0, 0, n, 1, &u);
        if (s == GK_OK) s = gk__wsp_logits_host(m, t, m->h_lg);
        if (s == GK_OK) s = gk_copy_to_host_async(m->ctx, u, m->h_lse, sizeof(float) * (size_t)n, gk__wsp_stream(m));
        if (s == GK_OK) s = gk_stream_sync(m->ctx, gk__wsp_stream(m));
        if (s == GK_OK) gk__wsp_up_synced(m, gk__wsp_stream(m));
        if (t.id) gk_tensor_free(m->ctx, t);
        if (u.id) gk_tensor_free(m->ctx, u);
    }
    gk_set_stream(m->ctx, old);
    if (s != GK_OK) return s;
    m->step_n = n;
    /* a row's log-sum-exp is finite unless it holds NaN or +inf (or only -inf): then find the entry */
    for (i = 0; i < n; i++) {
        int64_t bad;
        if (ids[i] < 0 || m->h_lse[i] - m->h_lse[i] == 0) continue;
        bad = gk__wsp_nonfinite(m->h_lg + (size_t)i * (size_t)V, V);
        m->step_n = 0;
        return gk_error_set(m->ctx, GK_ERR_FORMAT, "%s: the logits of position %lld of row %d are not finite (logit %lld%s): the weights hold NaN or infinite values, or the "
                            "activations overflowed the compute dtype", W, (long long)m->len[row0 + i], row0 + i, (long long)bad, bad < 0 ? ": all -inf" : "");
    }
    if (logits) memcpy(logits, m->h_lg, sizeof(float) * (size_t)(n * V));
    if (lse) memcpy(lse, m->h_lse, sizeof(float) * (size_t)n);
    for (i = 0; i < n; i++)
        if (ids[i] >= 0) m->len[row0 + i]++;
    return GK_OK;
}

GKLLMDEF int gk_whisper_step_logits(const gk_whisper_model *m, const float **logits, const float **lse) {
    if (logits) *logits = m && m->step_n ? m->h_lg : NULL;
    if (lse) *lse = m && m->step_n ? m->h_lse : NULL;
    return m ? m->step_n : 0;
}

GKLLMDEF gk_status gk_whisper_reorder(gk_whisper_model *m, int window, const int32_t *src) {
    const char *W = "gk_whisper_reorder";
    int64_t lens[16], l, L = 0, p, C, H2, D;
    int i, ident = 1, B;
    gk_stream *old;
    gk_status s = GK_OK;
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!src) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: src is NULL", W);
    if (window < 0 || window >= m->slots)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: window %d outside 0..%d (gk_whisper_desc.max_windows)", W, window, m->slots - 1);
    B = m->beams;
    for (i = 0; i < B; i++) {
        if (src[i] < 0 || src[i] >= B) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: src[%d] = %d is outside the window's rows 0..%d", W, i, (int)src[i], B - 1);
        ident &= src[i] == i;
    }
    if (ident) return GK_OK;
    /* Only the filled positions move: the first L of each row, L the longest
       of the new lengths (a shorter row's positions past its length are
       never read). Each layer gathers rows src[i]'s positions into a_tmp
       (one index_select over the window's cache as [B * max_ctx, 2 H D]
       rows) and copies them back (one strided copy). */
    for (i = 0; i < B; i++) {
        lens[i] = m->len[window * B + src[i]];
        if (lens[i] > L) L = lens[i];
    }
    C = m->max_ctx;
    H2 = 2 * m->cfg.decoder_heads;
    D = m->cfg.d_model / m->cfg.decoder_heads;
    if (L > 0) {
        if ((s = gk__wsp_up_wait(m, &m->up_src)) != GK_OK) return s;
        for (i = 0; i < B; i++)
            for (p = 0; p < L; p++) m->up_src.h[(int64_t)i * L + p] = (int32_t)(src[i] * C + p);
        old = gk_get_stream(m->ctx);
        gk_set_stream(m->ctx, gk__wsp_stream(m));
        {
            gk__lv V;
            gk_tensor idx, tmp;
            memset(&V, 0, sizeof V);
            V.ctx = m->ctx;
            idx = gk__lv_slice(&V, m->d_src, 0, 0, B * L);
            tmp = gk__lv_slice(&V, gk__lv_reshape(&V, m->a_tmp, 2, B * C, H2 * D, 0, 0), 0, 0, B * L);
            if (V.st == GK_OK) V.st = gk__wsp_up_send(m, &m->up_src, idx, (size_t)(B * L));
            for (l = 0; l < m->cfg.decoder_layers && V.st == GK_OK; l++) {
                gk__lv Y;
                gk_tensor win;
                memset(&Y, 0, sizeof Y);
                Y.ctx = m->ctx;
                win = gk__lv_slice(&Y, m->dec[l].kv, 0, (int64_t)window * B, (int64_t)(window + 1) * B);
                GK__LV_DO(&Y, gk_index_select(m->ctx, tmp, gk__lv_reshape(&Y, win, 2, B * C, H2 * D, 0, 0), 0, idx));
                GK__LV_DO(&Y, gk_copy(m->ctx, gk__lv_slice(&Y, win, 1, 0, L), gk__lv_reshape(&Y, tmp, 4, B, L, H2, D)));
                gk__lv_free(&Y);
                V.st = Y.st;
            }
            gk__lv_free(&V);
            s = V.st;
        }
        gk_set_stream(m->ctx, old);
        if (s != GK_OK) return s;
    }
    for (i = 0; i < B; i++) m->len[window * B + i] = lens[i];
    return GK_OK;
}

GKLLMDEF const int32_t *gk_whisper_alignment_heads(const gk_whisper_model *m, size_t *n) {
    if (n) *n = 0;
    if (!m) return NULL;
    if (n) *n = m->n_align;
    return m->align;
}

GKLLMDEF gk_status gk_whisper_cross_weights(gk_whisper_model *m, int row, const int32_t *ids, size_t n, float *weights, float *logits) {
    const char *W = "gk_whisper_cross_weights";
    gk__wsp_cap cap;
    gk_stream *old;
    gk_tensor lg = gk__u_tnull();
    gk_status s;
    int64_t V;
    size_t i;
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!ids || !weights) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", W, !ids ? "ids" : "weights");
    if (n == 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: n is 0 (no tokens to run)", W);
    if (row < 0 || row >= m->rows)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: row %d outside 0..%d (max_windows %d x max_beams %d)", W, row, m->rows - 1, m->slots, m->beams);
    if (!m->encoded[row / m->beams]) return gk_error_set(m->ctx, GK_ERR_STATE, "%s: row %d's window %d holds no encoded window (gk_whisper_encode first)", W, row, row / m->beams);
    if ((int64_t)n > m->max_ctx) return gk_error_set(m->ctx, GK_ERR_LIMIT, "%s: %llu tokens exceed the context of %lld tokens", W, (unsigned long long)n, (long long)m->max_ctx);
    V = m->cfg.vocab;
    for (i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= V)
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: token id %d at ids[%llu] is outside the vocab [0, %lld)", W, (int)ids[i], (unsigned long long)i, (long long)V);
    cap.heads = m->align;
    cap.n_heads = m->n_align;
    cap.out = weights;
    old = gk_get_stream(m->ctx);
    gk_set_stream(m->ctx, gk__wsp_stream(m));
    m->len[row] = 0;
    s = gk__wsp_prefill(m, row, ids, (int64_t)n, 1, &lg, &cap);
    if (s == GK_OK && logits) s = gk__wsp_logits_host(m, lg, logits);
    if (s == GK_OK) s = gk_stream_sync(m->ctx, gk__wsp_stream(m));
    if (s == GK_OK) gk__wsp_up_synced(m, gk__wsp_stream(m));
    gk__llm_free_t(m->ctx, &lg);
    gk_set_stream(m->ctx, old);
    m->len[row] = 0;
    return s;
}

/* ---- log-mel and transcription ---- */
static gk_status gk__wsp_mel(gk_whisper_model *m, const float *samples, size_t n, gk_tensor *mel) {
    gk_ctx *ctx = m->ctx;
    gk_tensor a = gk__u_tnull();
    gk_status s;
    int64_t sh[2], L = (int64_t)(n < 480000 ? n : 480000);
    *mel = gk__u_tnull();
    sh[0] = L;
    if ((s = gk_tensor_from_host(ctx, GK_F32, 1, sh, samples, &a)) != GK_OK) return s;
    sh[0] = m->cfg.n_mels; sh[1] = 2 * m->cfg.n_audio_ctx;
    s = gk_tensor_empty(ctx, GK_F32, 2, sh, mel);
    if (s == GK_OK) s = gk_whisper_log_mel(ctx, *mel, a, m->mel_filters, 480000);
    gk_tensor_free(ctx, a);
    if (s != GK_OK) gk__llm_free_t(ctx, mel);
    return s;
}

GKLLMDEF gk_status gk_whisper_mel(gk_whisper_model *m, const float *samples, size_t n, float *mel) {
    const char *W = "gk_whisper_mel";
    gk_stream *old;
    gk_tensor t;
    gk_status s;
    int64_t cnt, bad;
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!samples || !mel) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", W, !samples ? "samples" : "mel");
    if (n == 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: n is 0 (no audio)", W);
    cnt = m->cfg.n_mels * 2 * m->cfg.n_audio_ctx;
    old = gk_get_stream(m->ctx);
    gk_set_stream(m->ctx, gk__wsp_stream(m));
    s = gk__wsp_mel(m, samples, n, &t);
    if (s == GK_OK) { s = gk_copy_to_host(m->ctx, t, mel, (size_t)cnt * sizeof(float)); gk_tensor_free(m->ctx, t); }
    gk_set_stream(m->ctx, old);
    if (s == GK_OK && (bad = gk__wsp_nonfinite(mel, cnt)) >= 0)
        return gk_error_set(m->ctx, GK_ERR_FORMAT, "%s: the log-mel features are not finite at mel %lld, frame %lld (NaN or infinite samples?)", W,
                            (long long)(bad / (2 * m->cfg.n_audio_ctx)), (long long)(bad % (2 * m->cfg.n_audio_ctx)));
    return s;
}

/* the first largest entry */
static int32_t gk__wsp_argmax(const float *x, int64_t n) {
    int64_t i, b = 0;
    for (i = 1; i < n; i++)
        if (x[i] > x[b]) b = i;
    return (int32_t)b;
}

GKLLMDEF gk_status gk_whisper_transcribe(gk_whisper_model *m, const float *samples, size_t n, const gk_whisper_transcribe_desc *desc, gk_ids *out, gk_whisper_result *res) {
    const char *W = "gk_whisper_transcribe";
    gk_whisper_transcribe_desc d;
    gk_whisper_prompt_desc pd;
    gk_whisper_filter_desc fd;
    gk_whisper_result r;
    gk_ids prompt = { 0, 0, 0 }, sup = { 0, 0, 0 }, got = { 0, 0, 0 };
    gk_tensor mel = gk__u_tnull();
    gk_stream *old;
    float *lg = NULL, *row = NULL;
    const float *raw, *slse;
    double raw_lse, lse_f = 0;
    int32_t sids[16];
    int b, row0;
    gk_status s;
    gk__u_tl sv;
    int64_t V, steps, k, cnt;
    int32_t tok = 0;
    size_t i;
    if (res) memset(res, 0, sizeof *res);
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!out) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (!samples && n) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: samples is NULL but n is %llu", W, (unsigned long long)n);
    if (n == 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: n is 0 (no audio)", W);
    if (!m->has_tokens)
        return gk_error_set(m->ctx, GK_ERR_NOT_FOUND, "%s: the model folder names no special tokens (no tokenizer.json, no no_timestamps_token_id in generation_config.json, "
                            "vocab_size %lld is none of OpenAI's)", W, (long long)m->cfg.vocab);
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    if (d.seq < 0 || d.seq >= m->slots)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_transcribe_desc.seq = %d outside 0..%d", W, d.seq, m->slots - 1);
    if (d.max_tokens < 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_transcribe_desc.max_tokens = %lld is negative", W, (long long)d.max_tokens);
    if (d.custom_suppress && !d.suppress && d.n_suppress)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_transcribe_desc.suppress is NULL but n_suppress is %llu", W, (unsigned long long)d.n_suppress);
    V = m->cfg.vocab;
    memset(&r, 0, sizeof r);
    /* the prompt and the suppress list (context-free parts: their messages move to the context) */
    memset(&pd, 0, sizeof pd);
    pd.language = d.language;
    pd.translate = d.translate;
    pd.without_timestamps = !d.timestamps;
    pd.n_text_ctx = m->cfg.n_text_ctx;
    pd.sample_len = d.max_tokens;
    gk__u_tl_save(&sv);
    s = gk_whisper_prompt(&m->tokens, &pd, &prompt, &r.sot_index, &r.sample_begin);
    if (s == GK_OK) {
        static const int32_t non_speech = -1;
        const int32_t *ids = d.custom_suppress ? d.suppress : m->cfg.suppress_tokens;
        size_t ns = d.custom_suppress ? d.n_suppress : m->cfg.n_suppress_tokens;
        if (!d.custom_suppress && !m->cfg.suppress_tokens && m->tok) { ids = &non_speech; ns = 1; } /* whisper's default: "-1" */
        s = gk_whisper_suppress_list(&m->tokens, ids, ns, m->tok, &sup);
    }
    if (s != GK_OK) {
        char pre[64];
        snprintf(pre, sizeof pre, "%s: ", W);
        s = gk__u_tl_move(m->ctx, &sv, s, pre);
        goto done;
    }
    steps = d.max_tokens > 0 ? d.max_tokens : m->cfg.n_text_ctx / 2;
    if ((int64_t)prompt.len >= m->max_ctx) {
        s = gk_error_set(m->ctx, GK_ERR_LIMIT, "%s: the prompt of %llu tokens leaves no room in the context of %lld tokens", W, (unsigned long long)prompt.len, (long long)m->max_ctx);
        goto done;
    }
    if (!(lg = (float *)gk__u_malloc(sizeof(float) * (size_t)V * prompt.len)) || !(row = (float *)gk__u_malloc(sizeof(float) * (size_t)V))) {
        s = gk_error_set(m->ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
        goto done;
    }
    /* features and encoder */
    old = gk_get_stream(m->ctx);
    gk_set_stream(m->ctx, gk__wsp_stream(m));
    s = gk__wsp_mel(m, samples, n, &mel);
    if (s == GK_OK && d.mel) { /* on the model's stream, which computes the features */
        cnt = m->cfg.n_mels * 2 * m->cfg.n_audio_ctx;
        s = gk_copy_to_host(m->ctx, mel, d.mel, (size_t)cnt * sizeof(float));
    }
    gk_set_stream(m->ctx, old);
    if (s == GK_OK) s = gk_whisper_encode_tensor(m, mel, d.seq, NULL);
    gk__llm_free_t(m->ctx, &mel);
    if (s != GK_OK) goto done;
    /* the prompt (every row: the SOT row gives the no-speech probability) */
    row0 = d.seq * m->beams;
    for (b = 0; b < m->beams; b++) sids[b] = -1;
    if ((s = gk_whisper_decode(m, row0, prompt.data, prompt.len, 1, lg)) != GK_OK) goto done;
    gk__u_tl_save(&sv);
    if (m->tokens.no_speech < 0 || gk_whisper_no_speech_prob(&m->tokens, lg + r.sot_index * (size_t)V, &r.no_speech_prob) != GK_OK) r.no_speech_prob = NAN;
    gk__u_tl_restore(&sv);
    raw = lg + (prompt.len - 1) * (size_t)V;
    raw_lse = gk__wh_lse(raw, 0, V);
    memset(&fd, 0, sizeof fd);
    fd.suppress = sup.data;
    fd.n_suppress = sup.len;
    fd.without_timestamps = !d.timestamps;
    /* generation_config.json's begin_suppress_tokens replace SuppressBlank (HF suppresses that list; whisper's is " " and eot) */
    fd.no_suppress_blank = m->cfg.begin_suppress_tokens != NULL;
    fd.max_initial_timestamp = m->cfg.max_initial_timestamp_index < 0 ? -1.0 : (double)m->cfg.max_initial_timestamp_index * 0.02;
    if (m->cfg.max_initial_timestamp_index == 0) fd.max_initial_timestamp = 1e-9; /* index 0: <|0.00|> only (0 would mean the default) */
    for (k = 0; k < steps; k++) {
        /* HF's order: begin suppression, suppress_tokens, timestamp rules; then the first largest logit */
        gk__u_tl_save(&sv);
        s = GK_OK;
        memcpy(row, raw, sizeof(float) * (size_t)V);
        if (k == 0 && m->cfg.begin_suppress_tokens) s = gk_whisper_suppress(row, V, m->cfg.begin_suppress_tokens, m->cfg.n_begin_suppress_tokens);
        if (s == GK_OK) s = gk_whisper_filter(&m->tokens, &fd, got.data, got.len, row);
        if (s == GK_OK) tok = gk__wsp_argmax(row, V);
        if (s == GK_OK) s = gk_whisper_filtered_lse(raw, row, V, raw_lse, &lse_f);
        if (s != GK_OK) {
            char pre[96];
            snprintf(pre, sizeof pre, "%s: step %lld: ", W, (long long)k);
            s = gk__u_tl_move(m->ctx, &sv, s, pre);
            goto done;
        }
        if (tok == m->tokens.eot) { r.ended = 1; break; }
        r.sum_logprob += (double)row[tok] - lse_f;
        if ((s = gk_ids_push(&got, tok)) != GK_OK) { gk__u_tl_restore(&sv); s = gk_error_set(m->ctx, s, "%s: out of host memory", W); goto done; }
        if (k + 1 == steps || m->len[row0] >= m->max_ctx) break;
        sids[0] = tok;
        if ((s = gk_whisper_decode_step(m, row0, m->beams, sids, NULL, NULL)) != GK_OK) goto done;
        gk_whisper_step_logits(m, &raw, &slse);
        raw_lse = slse[0];
    }
    r.avg_logprob = gk_whisper_avg_logprob(r.sum_logprob, got.len);
    for (i = 0; i < got.len && s == GK_OK; i++) s = gk_ids_push(out, got.data[i]);
    if (s != GK_OK) { out->len -= i; s = gk_error_set(m->ctx, s, "%s: out of host memory", W); }
    if (s == GK_OK && res) *res = r;
done:
    gk_ids_free(&prompt);
    gk_ids_free(&sup);
    gk_ids_free(&got);
    gk__u_free(lg); gk__u_free(row);
    return s;
}

GKLLMDEF gk_status gk_whisper_transcribe_audio(gk_whisper_model *m, const gk_audio *a, const gk_whisper_transcribe_desc *desc, gk_ids *out, gk_whisper_result *res) {
    if (res) memset(res, 0, sizeof *res);
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "gk_whisper_transcribe_audio: m is NULL");
    if (!a) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_transcribe_audio: a is NULL");
    if (a->rate != 16000)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_transcribe_audio: the audio is at %d Hz; Whisper takes 16000 Hz (gk_audio_from_wav resamples to it)", a->rate);
    return gk_whisper_transcribe(m, a->samples, a->n, desc, out, res);
}
