/* ======================================================================== */
/* >>impl_kokoro                                                            */
/* ======================================================================== */
/* The Kokoro model: config.json, the weights (folded and stacked at load),
   the model's lifetime. The forward pass is >>impl_kokoro_forward. It uses
   the text runtime's helpers (gk__lv scratch views, gk__llm_free_t,
   gk__llm_prog). */

#if defined(__GNUC__) || defined(__clang__)
#define GK__KOK_TEST_ONLY __attribute__((unused)) /* called by tests/test_kokoro_model.c only */
#else
#define GK__KOK_TEST_ONLY
#endif

/* An AdaIN / AdaLayerNorm's place in the style vectors: its scale
   (1 + gamma, the affine folded in) is rows off..off+C-1 of style half
   `half` (0: the decoder's, ref_s[0:128]; 1: the prosody predictor's,
   ref_s[128:256]), its shift the next C rows. */
typedef struct gk__kok_ada { int half; int64_t off, C; } gk__kok_ada;
/* a bidirectional LSTM: [2, 4H, I], [2, 4H, H], [2, 4H], [2, 4H] (forward, reverse) */
typedef struct gk__kok_lstm { gk_tensor wih, whh, bih, bhh; int64_t I, H; } gk__kok_lstm;
/* AdainResBlk1d(cin, cout, upsample) */
typedef struct gk__kok_arb {
    int64_t cin, cout;
    int up, learned;
    gk__kok_ada n1, n2;
    gk_tensor c1w, c1b, c2w, c2b, scw, poolw, poolb;
} gk__kok_arb;
/* AdaINResBlock1(C, K, dilations) */
typedef struct gk__kok_rb1 {
    int64_t C, K, dil[3];
    gk__kok_ada a1[3], a2[3];
    gk_tensor c1w[3], c1b[3], c2w[3], c2b[3], al1[3], al2[3];
} gk__kok_rb1;

#define GK__KOK_MAX_LAYER 64   /* n_layer at most */

struct gk_kokoro_model {
    gk_ctx *ctx;
    gk_kokoro_config cfg;
    gk_dtype dt;
    int tf32;                  /* gk_kokoro_desc.allow_tf32: the stride-1 convolutions on TF32 tensor cores */
    gk_stream *stream, *stream_use;
    gk_tensor *owned;          /* every tensor the model allocated (freed by gk_kokoro_free) */
    size_t n_owned, cap_owned;
    /* ALBERT: embeddings, mapping, the shared layer (q / k / v fused) */
    gk_tensor b_word, b_pos, b_type, b_eln_w, b_eln_b, b_map_w, b_map_b;
    gk_tensor b_qkv_w, b_qkv_b, b_o_w, b_o_b, b_aln_w, b_aln_b, b_ffn_w, b_ffn_b, b_ffo_w, b_ffo_b, b_fln_w, b_fln_b;
    gk_tensor benc_w, benc_b;
    /* prosody predictor */
    gk__kok_lstm dur_lstm[GK__KOK_MAX_LAYER];
    gk__kok_ada dur_aln[GK__KOK_MAX_LAYER];
    gk__kok_lstm p_lstm, p_shared;
    gk_tensor dproj_w, dproj_b;
    gk__kok_arb f0b[3], nb[3];
    gk_tensor f0p_w, f0p_b, np_w, np_b;
    /* text encoder */
    gk_tensor te_emb, te_cw[GK__KOK_MAX_LAYER], te_cb[GK__KOK_MAX_LAYER], te_g[GK__KOK_MAX_LAYER], te_b[GK__KOK_MAX_LAYER];
    gk__kok_lstm te_lstm;
    /* decoder */
    gk_tensor f0c_w, f0c_b, nc_w, nc_b, asr_w, asr_b;
    gk__kok_arb enc, dec[4];
    /* generator */
    gk_tensor src_w, src_b;                                  /* m_source.l_linear: [1, 9], [1] */
    gk_tensor ups_w[GK_KOKORO_MAX_UPS], ups_b[GK_KOKORO_MAX_UPS];
    gk_tensor ncv_w[GK_KOKORO_MAX_UPS], ncv_b[GK_KOKORO_MAX_UPS];
    gk__kok_rb1 nres[GK_KOKORO_MAX_UPS];
    gk__kok_rb1 *rbs;                                        /* [n_ups * n_resblocks] */
    gk_tensor post_w, post_b;
    /* every AdaIN / AdaLayerNorm fc of a style half, stacked (see gk__kok_ada) */
    gk_tensor sty_w[2], sty_b[2];
    int64_t sty_n[2];
    /* constants: the harmonic numbers [1, 9, 1], and scalars [1] */
    gk_tensor harm, k_sr, k_zero, k_one, k_vthr, k_amp_v, k_amp_u, k_nk;
};

/* ---- config ---- */
typedef struct gk__kok_cf { gk_ctx *ctx; const char *path; } gk__kok_cf;
static gk_status gk__kok_cf_err(const gk__kok_cf *cf, gk_status st, const char *fmt, ...) GK__PRINTF(3, 4);
static gk_status gk__kok_cf_err(const gk__kok_cf *cf, gk_status st, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gk_error_set(cf->ctx, st, "gk_kokoro_load: %s: %s", cf->path, msg);
}
/* an integer in lo..hi at obj[key] (shown as pre + key); missing or null: def, or an error when required */
static gk_status gk__kok_cf_int(const gk__kok_cf *cf, const gk_json_value *obj, const char *pre, const char *key, int required, int64_t def, int64_t lo,
                                int64_t hi, int64_t *out) {
    const gk_json_value *v = gk_json_get(obj, key);
    char vb[64];
    if (gk_json_is_null(v)) {
        if (required) return gk__kok_cf_err(cf, GK_ERR_FORMAT, "%s%s is %s; the model needs it", pre, key, v ? "null" : "missing");
        *out = def;
        return GK_OK;
    }
    if (gk_json_typeof(v) != GK_JSON_INT) return gk__kok_cf_err(cf, GK_ERR_FORMAT, "%s%s = %s is not an integer", pre, key, gk__json_show(v, vb, sizeof vb));
    *out = gk_json_int(v, 0);
    if (*out < lo || *out > hi)
        return gk__kok_cf_err(cf, GK_ERR_FORMAT, "%s%s = %lld must be in %lld..%lld", pre, key, (long long)*out, (long long)lo, (long long)hi);
    return GK_OK;
}
/* a list of 1..max integers in lo..hi */
static gk_status gk__kok_cf_list(const gk__kok_cf *cf, const gk_json_value *obj, const char *pre, const char *key, int max, int64_t lo, int64_t hi,
                                 int64_t *out, int *n) {
    const gk_json_value *v = gk_json_get(obj, key);
    char vb[64];
    size_t i;
    if (gk_json_is_null(v)) return gk__kok_cf_err(cf, GK_ERR_FORMAT, "%s%s is %s; the model needs it", pre, key, v ? "null" : "missing");
    if (gk_json_typeof(v) != GK_JSON_ARRAY || gk_json_len(v) < 1)
        return gk__kok_cf_err(cf, GK_ERR_FORMAT, "%s%s = %s is not a list of integers", pre, key, gk__json_show(v, vb, sizeof vb));
    if (gk_json_len(v) > (size_t)max)
        return gk__kok_cf_err(cf, GK_ERR_UNSUPPORTED, "%s%s has %llu entries; at most %d are supported", pre, key, (unsigned long long)gk_json_len(v), max);
    for (i = 0; i < gk_json_len(v); i++) {
        const gk_json_value *e = gk_json_at(v, i);
        if (gk_json_typeof(e) != GK_JSON_INT)
            return gk__kok_cf_err(cf, GK_ERR_FORMAT, "%s%s[%llu] = %s is not an integer", pre, key, (unsigned long long)i, gk__json_show(e, vb, sizeof vb));
        out[i] = gk_json_int(e, 0);
        if (out[i] < lo || out[i] > hi)
            return gk__kok_cf_err(cf, GK_ERR_FORMAT, "%s%s[%llu] = %lld must be in %lld..%lld", pre, key, (unsigned long long)i, (long long)out[i], (long long)lo,
                                  (long long)hi);
    }
    *n = (int)gk_json_len(v);
    return GK_OK;
}
static gk_status gk__kok_cf_obj(const gk__kok_cf *cf, const gk_json_value *root, const char *key, const gk_json_value **out) {
    const gk_json_value *v = gk_json_get(root, key);
    char vb[64];
    if (gk_json_is_null(v)) return gk__kok_cf_err(cf, GK_ERR_FORMAT, "%s is %s; the model needs it", key, v ? "null" : "missing");
    if (gk_json_typeof(v) != GK_JSON_OBJECT) return gk__kok_cf_err(cf, GK_ERR_FORMAT, "%s = %s is not an object", key, gk__json_show(v, vb, sizeof vb));
    if (gk__json_dup_key(v)) return gk__kok_cf_err(cf, GK_ERR_FORMAT, "%s: key \"%.60s\" appears twice", key, gk__json_dup_key(v));
    *out = v;
    return GK_OK;
}

/* The lengths through the generator for L frames: every stage's upsampled
   length must equal its source convolution's, the last one's plus the
   reflection pad the STFT frame count. */
static int gk__kok_gen_lengths_ok(const gk_kokoro_config *c, int64_t L) {
    int64_t len = 2 * L, frames, prod = 1, i;
    for (i = 0; i < c->n_ups; i++) prod *= c->ups_rate[i];
    frames = 2 * L * prod + 1; /* STFT frames of 2L * prod * hop samples */
    for (i = 0; i < c->n_ups; i++) {
        int64_t u = c->ups_rate[i], k = c->ups_kernel[i], p = (k - u) / 2, out = (len - 1) * u - 2 * p + k, src;
        if (i + 1 < c->n_ups) {
            int64_t sf = 1, j, pad;
            for (j = i + 1; j < c->n_ups; j++) sf *= c->ups_rate[j];
            pad = (sf + 1) / 2;
            if (frames + 2 * pad < 2 * sf) return 0;
            src = (frames + 2 * pad - 2 * sf) / sf + 1;
        } else {
            src = frames;
            out += 1; /* ReflectionPad1d((1, 0)) */
        }
        if (out != src) return 0;
        len = out;
    }
    return 1;
}

static gk_status gk__kok_config(gk_kokoro_model *m, const char *cpath, const gk_json_value *root) {
    gk_kokoro_config *c = &m->cfg;
    const gk_json_value *pb, *ist, *v, *dl;
    gk__kok_cf cf;
    gk_status s;
    char vb[64];
    int n2 = 0, i;
    int64_t prod = 1, dummy;
    cf.ctx = m->ctx; cf.path = cpath;
    if (gk_json_typeof(root) != GK_JSON_OBJECT) return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "the top level is not an object");
    if (gk__json_dup_key(root)) return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "key \"%.60s\" appears twice", gk__json_dup_key(root));
#define GK__KCF(obj, pre, key, req, def, lo, hi, dst) do { if ((s = gk__kok_cf_int(&cf, obj, pre, key, req, def, lo, hi, &dst)) != GK_OK) return s; } while (0)
    GK__KCF(root, "", "n_token", 1, 0, 2, 1 << 20, c->n_token);
    GK__KCF(root, "", "hidden_dim", 1, 0, 1, 65536, c->hidden_dim);
    GK__KCF(root, "", "style_dim", 1, 0, 1, 65536, c->style_dim);
    GK__KCF(root, "", "max_dur", 1, 0, 1, 65536, c->max_dur);
    GK__KCF(root, "", "n_layer", 1, 0, 1, GK__KOK_MAX_LAYER, c->n_layer);
    GK__KCF(root, "", "text_encoder_kernel_size", 1, 0, 1, 255, c->text_kernel);
    GK__KCF(root, "", "n_mels", 1, 0, 1, 65536, c->n_mels);
    GK__KCF(root, "", "dim_in", 0, 0, 1, 65536, dummy);
    if (c->text_kernel % 2 == 0)
        return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "text_encoder_kernel_size = %lld: only odd sizes keep the sequence length", (long long)c->text_kernel);
    if (c->hidden_dim != 512)
        return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "hidden_dim = %lld: the decoder's asr_res convolution is fixed at 512 input channels", (long long)c->hidden_dim);
    if (c->style_dim != 128)
        return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "style_dim = %lld: the model splits ref_s at 128 (decoder | prosody)", (long long)c->style_dim);
    v = gk_json_get(root, "dropout");
    if (!gk_json_is_null(v) && gk_json_typeof(v) != GK_JSON_INT && gk_json_typeof(v) != GK_JSON_DOUBLE)
        return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "dropout = %s is not a number", gk__json_show(v, vb, sizeof vb));
    /* plbert: AlbertConfig(vocab_size=n_token, **plbert) */
    if ((s = gk__kok_cf_obj(&cf, root, "plbert", &pb)) != GK_OK) return s;
    GK__KCF(pb, "plbert.", "hidden_size", 1, 0, 1, 65536, c->bert_hidden);
    GK__KCF(pb, "plbert.", "num_attention_heads", 1, 0, 1, 1024, c->bert_heads);
    GK__KCF(pb, "plbert.", "intermediate_size", 1, 0, 1, 1 << 20, c->bert_ffn);
    GK__KCF(pb, "plbert.", "max_position_embeddings", 1, 0, 3, 1 << 20, c->bert_max_pos);
    GK__KCF(pb, "plbert.", "num_hidden_layers", 1, 0, 1, 1024, c->bert_layers);
    GK__KCF(pb, "plbert.", "embedding_size", 0, 128, 1, 65536, c->bert_embed);
    GK__KCF(pb, "plbert.", "type_vocab_size", 0, 2, 1, 65536, c->bert_type_vocab);
    GK__KCF(pb, "plbert.", "num_hidden_groups", 0, 1, 1, 1, dummy);
    GK__KCF(pb, "plbert.", "inner_group_num", 0, 1, 1, 1, dummy);
    if (!gk_json_is_null(gk_json_get(pb, "vocab_size")))
        return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "plbert.vocab_size is given; KModel passes vocab_size = n_token itself");
    if (c->bert_hidden % c->bert_heads)
        return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "plbert.hidden_size = %lld is not a multiple of plbert.num_attention_heads = %lld", (long long)c->bert_hidden,
                              (long long)c->bert_heads);
    if (c->bert_hidden / c->bert_heads > 256) return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "plbert: a head dim above 256 is not supported");
    v = gk_json_get(pb, "layer_norm_eps");
    c->bert_ln_eps = 1e-12;
    if (!gk_json_is_null(v)) {
        if (gk_json_typeof(v) != GK_JSON_INT && gk_json_typeof(v) != GK_JSON_DOUBLE)
            return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "plbert.layer_norm_eps = %s is not a number", gk__json_show(v, vb, sizeof vb));
        c->bert_ln_eps = gk_json_double(v, 0);
        if (!(c->bert_ln_eps >= 0 && c->bert_ln_eps < 1))
            return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "plbert.layer_norm_eps = %s must be in [0, 1)", gk__json_show(v, vb, sizeof vb));
    }
    v = gk_json_get(pb, "hidden_act");
    c->bert_gelu_tanh = 1;
    if (!gk_json_is_null(v)) {
        const char *a = gk_json_str(v, NULL);
        if (!a) return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "plbert.hidden_act = %s is not a string", gk__json_show(v, vb, sizeof vb));
        if (strcmp(a, "gelu") == 0) c->bert_gelu_tanh = 0;
        else if (strcmp(a, "gelu_new") != 0 && strcmp(a, "gelu_pytorch_tanh") != 0)
            return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "plbert.hidden_act = \"%.40s\" is not supported (gelu_new, gelu)", a);
    }
    /* istftnet */
    if ((s = gk__kok_cf_obj(&cf, root, "istftnet", &ist)) != GK_OK) return s;
    if ((s = gk__kok_cf_list(&cf, ist, "istftnet.", "upsample_rates", GK_KOKORO_MAX_UPS, 1, 64, c->ups_rate, &c->n_ups)) != GK_OK) return s;
    if ((s = gk__kok_cf_list(&cf, ist, "istftnet.", "upsample_kernel_sizes", GK_KOKORO_MAX_UPS, 1, 256, c->ups_kernel, &n2)) != GK_OK) return s;
    if (n2 != c->n_ups)
        return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "istftnet.upsample_kernel_sizes has %d entries but istftnet.upsample_rates %d", n2, c->n_ups);
    for (i = 0; i < c->n_ups; i++) {
        if (c->ups_kernel[i] < c->ups_rate[i] || (c->ups_kernel[i] - c->ups_rate[i]) % 2)
            return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "istftnet.upsample_kernel_sizes[%d] = %lld: the kernel minus the rate (%lld) must be even and >= 0", i,
                                  (long long)c->ups_kernel[i], (long long)c->ups_rate[i]);
        prod *= c->ups_rate[i];
    }
    GK__KCF(ist, "istftnet.", "upsample_initial_channel", 1, 0, 1, 65536, c->ups_channels);
    if (c->ups_channels != 512)
        return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "istftnet.upsample_initial_channel = %lld: the decoder's last block gives 512 channels", (long long)c->ups_channels);
    if (c->ups_channels % ((int64_t)1 << c->n_ups))
        return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "istftnet: %d upsampling stages halve 512 channels too often", c->n_ups);
    if ((s = gk__kok_cf_list(&cf, ist, "istftnet.", "resblock_kernel_sizes", GK_KOKORO_MAX_RESBLOCKS, 1, 255, c->res_kernel, &c->n_resblocks)) != GK_OK) return s;
    for (i = 0; i < c->n_resblocks; i++)
        if (c->res_kernel[i] % 2 == 0)
            return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "istftnet.resblock_kernel_sizes[%d] = %lld: only odd kernels keep the length", i, (long long)c->res_kernel[i]);
    dl = gk_json_get(ist, "resblock_dilation_sizes");
    if (gk_json_typeof(dl) != GK_JSON_ARRAY)
        return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "istftnet.resblock_dilation_sizes = %s is not a list of lists", gk__json_show(dl, vb, sizeof vb));
    if ((int)gk_json_len(dl) != c->n_resblocks)
        return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "istftnet.resblock_dilation_sizes has %llu entries but istftnet.resblock_kernel_sizes %d",
                              (unsigned long long)gk_json_len(dl), c->n_resblocks);
    for (i = 0; i < c->n_resblocks; i++) {
        const gk_json_value *e = gk_json_at(dl, (size_t)i);
        size_t k;
        if (gk_json_typeof(e) != GK_JSON_ARRAY || gk_json_len(e) != 3)
            return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "istftnet.resblock_dilation_sizes[%d] = %s is not a list of 3 dilations", i, gk__json_show(e, vb, sizeof vb));
        for (k = 0; k < 3; k++) {
            const gk_json_value *x = gk_json_at(e, k);
            if (gk_json_typeof(x) != GK_JSON_INT || gk_json_int(x, 0) < 1 || gk_json_int(x, 0) > 255)
                return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "istftnet.resblock_dilation_sizes[%d][%llu] = %s must be an integer in 1..255", i, (unsigned long long)k,
                                      gk__json_show(x, vb, sizeof vb));
            c->res_dilation[i][k] = gk_json_int(x, 0);
        }
    }
    GK__KCF(ist, "istftnet.", "gen_istft_n_fft", 1, 0, 2, 4096, c->n_fft);
    GK__KCF(ist, "istftnet.", "gen_istft_hop_size", 1, 0, 1, 4096, c->hop);
    if (c->n_fft % 2) return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "istftnet.gen_istft_n_fft = %lld must be even", (long long)c->n_fft);
    if (c->hop > c->n_fft)
        return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "istftnet.gen_istft_hop_size = %lld is above gen_istft_n_fft = %lld (the iSTFT needs overlap)", (long long)c->hop,
                              (long long)c->n_fft);
#undef GK__KCF
    c->samples_per_frame = 2 * prod * c->hop;
    if (!gk__kok_gen_lengths_ok(c, 1) || !gk__kok_gen_lengths_ok(c, 2) || !gk__kok_gen_lengths_ok(c, 7))
        return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "istftnet: the upsampled lengths of upsample_rates / upsample_kernel_sizes do not line up with the source's STFT frames");
    return GK_OK;
}

/* ---- weights ----
   The model is walked twice by gk__kok_walk: a check pass (every tensor
   present, of a float dtype and the config's shape; the style rows
   counted) before anything is allocated, then the load pass (read as f32,
   folded, stacked, uploaded). */
typedef void (*gk__kok_list_fn)(void *user, const char *name, int nd, const int64_t *shape, int optional);
typedef struct gk__kok_ld {
    gk_kokoro_model *m;
    gk__kok_list_fn list;      /* list mode (no file): every tensor of the published layout to list */
    void *list_user;
    gk_st_tensor_info listed;  /* list mode's stand-in for a found tensor (zero) */
    const gk_safetensors *st;
    const char *wpath;
    int load;                  /* 0: check, 1: load */
    gk_status s;               /* the first failure; later calls do nothing */
    int first;
    gk__llm_prog prog;
    float *sty_w[2], *sty_b[2];/* load pass: the stacked style fc weights [rows, style_dim] and biases */
    int64_t sty_at[2];
} gk__kok_ld;

static void gk__kok_shape_str(char *b, size_t cap, int nd, const int64_t *sh) {
    size_t o = 0;
    int k;
    b[0] = 0;
    for (k = 0; k < nd && o + 24 < cap; k++) o += (size_t)snprintf(b + o, cap - o, "%s%lld", k ? ", " : "", (long long)sh[k]);
}

/* the tensor `name` with shape sh[0..nd) (numel-only when loose: g of weight norm), or NULL with ld->s set (optional: NULL, no error) */
static const gk_st_tensor_info *gk__kok_find(gk__kok_ld *ld, const char *name, int nd, const int64_t *sh, int loose, int optional) {
    const gk_st_tensor_info *ti;
    gk_dtype wd;
    int k, bad = 0;
    if (ld->s != GK_OK) return NULL;
    if (ld->list) {
        int64_t one[3];
        one[0] = sh[0]; one[1] = one[2] = 1;
        ld->list(ld->list_user, name, loose ? 3 : nd, loose ? one : sh, optional);
        return optional ? NULL : &ld->listed;
    }
    ti = gk_st_find(ld->st, name);
    if (!ti) {
        if (!optional) ld->s = gk_error_set(ld->m->ctx, GK_ERR_NOT_FOUND, "gk_kokoro_load: tensor %s is missing from %s", name, ld->wpath);
        return NULL;
    }
    if (!gk_st_gk_dtype(ti->dtype, &wd) || (wd != GK_F32 && wd != GK_F16 && wd != GK_BF16 && wd != GK_F64)) {
        ld->s = gk_error_set(ld->m->ctx, GK_ERR_DTYPE, "gk_kokoro_load: tensor %s is %s (f32, f16, bf16 or f64 expected)", name, gk_st_dtype_name(ti->dtype));
        return NULL;
    }
    if (loose) {
        int64_t n = 1;
        for (k = 0; k < nd; k++) n *= sh[k];
        bad = (int64_t)ti->numel != n;
        for (k = 1; k < ti->ndim && !bad; k++) bad = ti->shape[k] != 1;
    } else {
        bad = ti->ndim != nd;
        for (k = 0; k < nd && !bad; k++) bad = ti->shape[k] != sh[k];
    }
    if (bad) {
        char got[160], exp[96];
        gk__kok_shape_str(got, sizeof got, ti->ndim, ti->shape);
        gk__kok_shape_str(exp, sizeof exp, nd, sh);
        ld->s = gk_error_set(ld->m->ctx, GK_ERR_SHAPE, "gk_kokoro_load: tensor %s has shape [%s]; config.json says [%s]%s", name, got, exp,
                             loose ? " (that many values, as [C] or [C, 1, ...])" : "");
        return NULL;
    }
    if (ld->first) { ld->m->cfg.weights_dtype = wd; ld->first = 0; }
    return ti;
}

static float *gk__kok_read(gk__kok_ld *ld, const char *name, size_t n) {
    float *x;
    gk__u_tl sv;
    gk_status s;
    if (ld->s != GK_OK) return NULL;
    if (!(x = (float *)gk__u_malloc(sizeof(float) * (n ? n : 1)))) {
        ld->s = gk_error_set(ld->m->ctx, GK_ERR_OUT_OF_MEMORY, "gk_kokoro_load: out of host memory for tensor %s", name);
        return NULL;
    }
    gk__u_tl_save(&sv);
    s = gk_st_read(ld->st, name, GK_F32, x, sizeof(float) * n);
    if (s != GK_OK) {
        ld->s = gk__u_tl_move(ld->m->ctx, &sv, s, "gk_kokoro_load: ");
        gk__u_free(x);
        return NULL;
    }
    return x;
}

static void gk__kok_own(gk__kok_ld *ld, gk_tensor t) {
    gk_kokoro_model *m = ld->m;
    if (!gk__u_grow((void **)&m->owned, &m->cap_owned, m->n_owned + 1, sizeof(gk_tensor))) {
        gk_tensor_free(m->ctx, t);
        ld->s = gk_error_set(m->ctx, GK_ERR_OUT_OF_MEMORY, "gk_kokoro_load: out of host memory");
        return;
    }
    m->owned[m->n_owned++] = t;
}

/* host f32 values [nd dims] -> a model tensor of the compute dtype */
static void gk__kok_upload(gk__kok_ld *ld, gk_tensor *dst, const float *x, int nd, const int64_t *sh, const char *name) {
    gk_kokoro_model *m = ld->m;
    gk_tensor t = gk__u_tnull();
    gk_status s;
    int64_t n = 1;
    int k;
    if (ld->s != GK_OK) return;
    for (k = 0; k < nd; k++) n *= sh[k];
    s = gk_tensor_from_host(m->ctx, GK_F32, nd, sh, x, &t);
    if (s != GK_OK) { ld->s = gk_error_set(m->ctx, s, "gk_kokoro_load: tensor %s: %s", name, gk_last_error(m->ctx)); return; }
    gk__kok_own(ld, t);
    if (ld->s != GK_OK) return;
    *dst = t;
    ld->prog.cur = (uint64_t)n * gk_dtype_size(m->dt);
    gk__llm_prog_cb(1, 1, &ld->prog);
    ld->prog.base += ld->prog.cur;
}

/* a plain tensor, uploaded with the given shape (which may flatten the file's, e.g. alpha [1, C, 1] -> [C]) */
static void gk__kok_t(gk__kok_ld *ld, gk_tensor *dst, const char *name, int nd, int64_t d0, int64_t d1, int64_t d2) {
    int64_t sh[3];
    const gk_st_tensor_info *ti;
    sh[0] = d0; sh[1] = d1; sh[2] = d2;
    if (!(ti = gk__kok_find(ld, name, nd, sh, 0, 0))) return;
    if (!ld->load) { ld->prog.total += ti->numel * gk_dtype_size(ld->m->dt); return; }
    {
        float *x = gk__kok_read(ld, name, (size_t)ti->numel);
        if (x) gk__kok_upload(ld, dst, x, nd, sh, name);
        gk__u_free(x);
    }
}
/* alpha [1, C, 1] stored, [C] uploaded */
static void gk__kok_alpha(gk__kok_ld *ld, gk_tensor *dst, const char *name, int64_t C) {
    int64_t sh[3];
    const gk_st_tensor_info *ti;
    sh[0] = 1; sh[1] = C; sh[2] = 1;
    if (!(ti = gk__kok_find(ld, name, 3, sh, 0, 0))) return;
    if (!ld->load) { ld->prog.total += ti->numel * gk_dtype_size(ld->m->dt); return; }
    {
        float *x = gk__kok_read(ld, name, (size_t)C);
        if (x) gk__kok_upload(ld, dst, x, 1, &C, name);
        gk__u_free(x);
    }
}

/* A weight-normed weight [d0, d1, d2] (v's shape), its first dim the norm's:
   <p>.weight_g / <p>.weight_v, or <p>.parametrizations.weight.original0 /
   original1, or <p>.weight folded; and <p>.bias [nbias] unless nbias is 0. */
static void gk__kok_wn(gk__kok_ld *ld, gk_tensor *w, gk_tensor *b, const char *p, int64_t nbias, int64_t d0, int64_t d1, int64_t d2) {
    static const char *const gn[2] = { "weight_g", "parametrizations.weight.original0" }, *const vn[2] = { "weight_v", "parametrizations.weight.original1" };
    char gname[200], vname[200], wname[200];
    int64_t sh[3];
    int form = -1, k;
    const gk_st_tensor_info *tv = NULL;
    if (ld->s != GK_OK) return;
    sh[0] = d0; sh[1] = d1; sh[2] = d2;
    for (k = 0; k < 2 && form < 0; k++) {
        snprintf(vname, sizeof vname, "%s.%s", p, vn[k]);
        if (ld->list || gk_st_find(ld->st, vname)) form = k;
    }
    snprintf(wname, sizeof wname, "%s.weight", p);
    if (form < 0) {
        if (!gk_st_find(ld->st, wname)) {
            ld->s = gk_error_set(ld->m->ctx, GK_ERR_NOT_FOUND, "gk_kokoro_load: tensor %s.weight_v (or %s.parametrizations.weight.original1, or %s folded) is missing from %s", p,
                                 p, wname, ld->wpath);
            return;
        }
        gk__kok_t(ld, w, wname, 3, d0, d1, d2);
    } else {
        snprintf(gname, sizeof gname, "%s.%s", p, gn[form]);
        snprintf(vname, sizeof vname, "%s.%s", p, vn[form]);
        if (!(tv = gk__kok_find(ld, vname, 3, sh, 0, 0))) return;
        if (!gk__kok_find(ld, gname, 1, sh, 1, 0)) return;
        if (!ld->load) ld->prog.total += tv->numel * gk_dtype_size(ld->m->dt);
        else {
            float *v = gk__kok_read(ld, vname, (size_t)tv->numel), *g = gk__kok_read(ld, gname, (size_t)d0);
            if (v && g) {
                int64_t r, j, row = d1 * d2;
                for (r = 0; r < d0; r++) {
                    double ss = 0, f;
                    for (j = 0; j < row; j++) ss += (double)v[r * row + j] * (double)v[r * row + j];
                    f = ss > 0 ? (double)g[r] / sqrt(ss) : 0.0;
                    for (j = 0; j < row; j++) v[r * row + j] = (float)((double)v[r * row + j] * f);
                }
                gk__kok_upload(ld, w, v, 3, sh, vname);
            }
            gk__u_free(v); gk__u_free(g);
        }
    }
    if (nbias) {
        char bname[200];
        snprintf(bname, sizeof bname, "%s.bias", p);
        gk__kok_t(ld, b, bname, 1, nbias, 0, 0);
    }
}

/* a bidirectional LSTM <p> of input size I, hidden size H */
static void gk__kok_lstm_w(gk__kok_ld *ld, gk__kok_lstm *y, const char *p, int64_t I, int64_t H) {
    static const char *const part[4] = { "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0" };
    gk_tensor *dst[4];
    int64_t cols[4];
    int k, dir;
    dst[0] = &y->wih; dst[1] = &y->whh; dst[2] = &y->bih; dst[3] = &y->bhh;
    cols[0] = I; cols[1] = H; cols[2] = 1; cols[3] = 1;
    y->I = I; y->H = H;
    for (k = 0; k < 4 && ld->s == GK_OK; k++) {
        char name[2][200];
        int64_t sh[2], per = 4 * H * cols[k];
        sh[0] = 4 * H; sh[1] = cols[k];
        for (dir = 0; dir < 2; dir++) {
            snprintf(name[dir], sizeof name[dir], "%s.%s%s", p, part[k], dir ? "_reverse" : "");
            gk__kok_find(ld, name[dir], k < 2 ? 2 : 1, sh, 0, 0);
        }
        if (ld->s != GK_OK) return;
        if (!ld->load) { ld->prog.total += 2 * (uint64_t)per * gk_dtype_size(ld->m->dt); continue; }
        {
            float *both = (float *)gk__u_malloc(sizeof(float) * (size_t)(2 * per));
            int64_t ush[3];
            if (!both) { ld->s = gk_error_set(ld->m->ctx, GK_ERR_OUT_OF_MEMORY, "gk_kokoro_load: out of host memory"); return; }
            for (dir = 0; dir < 2 && ld->s == GK_OK; dir++) {
                gk__u_tl sv;
                gk_status s;
                gk__u_tl_save(&sv);
                s = gk_st_read(ld->st, name[dir], GK_F32, both + dir * per, sizeof(float) * (size_t)per);
                if (s != GK_OK) ld->s = gk__u_tl_move(ld->m->ctx, &sv, s, "gk_kokoro_load: ");
            }
            ush[0] = 2; ush[1] = 4 * H; ush[2] = cols[k];
            if (ld->s == GK_OK) gk__kok_upload(ld, dst[k], both, k < 2 ? 3 : 2, ush, name[0]);
            gk__u_free(both);
        }
    }
}

/* An AdaIN1d / AdaLayerNorm <p> of C channels styled by half `half`:
   <p>.fc.weight [2C, style_dim], <p>.fc.bias [2C], and when affine is
   allowed the optional InstanceNorm <p>.norm.weight / .bias [C]. Stacked
   into the half's style rows as scale (1 + gamma) then shift, the affine
   folded in: (1 + gamma) (w x + b) + beta = [w (1 + gamma)] x + [b (1 + gamma) + beta]. */
static void gk__kok_ada_w(gk__kok_ld *ld, gk__kok_ada *a, const char *p, int64_t C, int half, int affine) {
    gk_kokoro_model *m = ld->m;
    int64_t S = m->cfg.style_dim, sh[2], r, j;
    char fw[200], fb[200], nw[200], nb[200];
    const gk_st_tensor_info *tnw = NULL, *tnb = NULL;
    if (ld->s != GK_OK) return;
    snprintf(fw, sizeof fw, "%s.fc.weight", p);
    snprintf(fb, sizeof fb, "%s.fc.bias", p);
    snprintf(nw, sizeof nw, "%s.norm.weight", p);
    snprintf(nb, sizeof nb, "%s.norm.bias", p);
    sh[0] = 2 * C; sh[1] = S;
    gk__kok_find(ld, fw, 2, sh, 0, 0);
    gk__kok_find(ld, fb, 1, sh, 0, 0);
    sh[0] = C;
    if (affine) {
        tnw = gk__kok_find(ld, nw, 1, sh, 0, 1);
        tnb = gk__kok_find(ld, nb, 1, sh, 0, 1);
    }
    if (ld->s != GK_OK) return;
    a->half = half; a->C = C;
    if (!ld->load) {
        a->off = m->sty_n[half];
        m->sty_n[half] += 2 * C;
        ld->prog.total += (uint64_t)(2 * C * (S + 1)) * gk_dtype_size(m->dt);
        return;
    }
    {
        float *w = ld->sty_w[half] + a->off * S, *b = ld->sty_b[half] + a->off, *aw = NULL, *ab = NULL;
        gk__u_tl sv;
        gk_status s;
        gk__u_tl_save(&sv);
        s = gk_st_read(ld->st, fw, GK_F32, w, sizeof(float) * (size_t)(2 * C * S));
        if (s == GK_OK) s = gk_st_read(ld->st, fb, GK_F32, b, sizeof(float) * (size_t)(2 * C));
        if (s != GK_OK) { ld->s = gk__u_tl_move(m->ctx, &sv, s, "gk_kokoro_load: "); return; }
        if (tnw) aw = gk__kok_read(ld, nw, (size_t)C);
        if (tnb) ab = gk__kok_read(ld, nb, (size_t)C);
        if (ld->s == GK_OK)
            for (r = 0; r < C; r++) {
                double wa = aw ? (double)aw[r] : 1.0, ba = ab ? (double)ab[r] : 0.0, bg = (double)b[r];
                float *wg = w + r * S, *wb = w + (C + r) * S;
                for (j = 0; j < S; j++) {
                    double g = (double)wg[j];
                    wb[j] = (float)((double)wb[j] + ba * g);
                    wg[j] = (float)(wa * g);
                }
                b[C + r] = (float)((double)b[C + r] + ba * (1.0 + bg));
                b[r] = (float)(wa * (1.0 + bg));
            }
        gk__u_free(aw); gk__u_free(ab);
    }
}

static void gk__kok_arb_w(gk__kok_ld *ld, gk__kok_arb *b, const char *p, int64_t cin, int64_t cout, int up, int half) {
    char n[200];
    b->cin = cin; b->cout = cout; b->up = up; b->learned = cin != cout;
    snprintf(n, sizeof n, "%s.conv1", p); gk__kok_wn(ld, &b->c1w, &b->c1b, n, cout, cout, cin, 3);
    snprintf(n, sizeof n, "%s.conv2", p); gk__kok_wn(ld, &b->c2w, &b->c2b, n, cout, cout, cout, 3);
    snprintf(n, sizeof n, "%s.norm1", p); gk__kok_ada_w(ld, &b->n1, n, cin, half, 1);
    snprintf(n, sizeof n, "%s.norm2", p); gk__kok_ada_w(ld, &b->n2, n, cout, half, 1);
    if (b->learned) { snprintf(n, sizeof n, "%s.conv1x1", p); gk__kok_wn(ld, &b->scw, NULL, n, 0, cout, cin, 1); }
    if (up) { snprintf(n, sizeof n, "%s.pool", p); gk__kok_wn(ld, &b->poolw, &b->poolb, n, cin, cin, 1, 3); }
}

static void gk__kok_rb1_w(gk__kok_ld *ld, gk__kok_rb1 *b, const char *p, int64_t C, int64_t K, const int64_t *dil) {
    char n[200];
    int k;
    b->C = C; b->K = K;
    for (k = 0; k < 3; k++) {
        b->dil[k] = dil[k];
        snprintf(n, sizeof n, "%s.convs1.%d", p, k); gk__kok_wn(ld, &b->c1w[k], &b->c1b[k], n, C, C, C, K);
        snprintf(n, sizeof n, "%s.convs2.%d", p, k); gk__kok_wn(ld, &b->c2w[k], &b->c2b[k], n, C, C, C, K);
        snprintf(n, sizeof n, "%s.adain1.%d", p, k); gk__kok_ada_w(ld, &b->a1[k], n, C, 0, 1);
        snprintf(n, sizeof n, "%s.adain2.%d", p, k); gk__kok_ada_w(ld, &b->a2[k], n, C, 0, 1);
        snprintf(n, sizeof n, "%s.alpha1.%d", p, k); gk__kok_alpha(ld, &b->al1[k], n, C);
        snprintf(n, sizeof n, "%s.alpha2.%d", p, k); gk__kok_alpha(ld, &b->al2[k], n, C);
    }
}

/* ALBERT's q / k / v weights and biases fused into [3 hidden, hidden] and [3 hidden] */
static void gk__kok_qkv_w(gk__kok_ld *ld, const char *p, int64_t D) {
    static const char *const qkv[3] = { "query", "key", "value" };
    char wn[3][200], bn[3][200];
    int64_t sh[2];
    int k;
    sh[0] = D; sh[1] = D;
    for (k = 0; k < 3; k++) {
        snprintf(wn[k], sizeof wn[k], "%s.%s.weight", p, qkv[k]);
        snprintf(bn[k], sizeof bn[k], "%s.%s.bias", p, qkv[k]);
        gk__kok_find(ld, wn[k], 2, sh, 0, 0);
        gk__kok_find(ld, bn[k], 1, sh, 0, 0);
    }
    if (ld->s != GK_OK) return;
    if (!ld->load) { ld->prog.total += (uint64_t)(3 * D * (D + 1)) * gk_dtype_size(ld->m->dt); return; }
    {
        float *w = (float *)gk__u_malloc(sizeof(float) * (size_t)(3 * D * D)), *b = (float *)gk__u_malloc(sizeof(float) * (size_t)(3 * D));
        int64_t ws[2], bs[1];
        for (k = 0; k < 3 && w && b && ld->s == GK_OK; k++) {
            gk__u_tl sv;
            gk_status s;
            gk__u_tl_save(&sv);
            s = gk_st_read(ld->st, wn[k], GK_F32, w + k * D * D, sizeof(float) * (size_t)(D * D));
            if (s == GK_OK) s = gk_st_read(ld->st, bn[k], GK_F32, b + k * D, sizeof(float) * (size_t)D);
            if (s != GK_OK) ld->s = gk__u_tl_move(ld->m->ctx, &sv, s, "gk_kokoro_load: ");
        }
        if (!w || !b) ld->s = gk_error_set(ld->m->ctx, GK_ERR_OUT_OF_MEMORY, "gk_kokoro_load: out of host memory");
        ws[0] = 3 * D; ws[1] = D; bs[0] = 3 * D;
        gk__kok_upload(ld, &ld->m->b_qkv_w, w, 2, ws, wn[0]);
        gk__kok_upload(ld, &ld->m->b_qkv_b, b, 1, bs, bn[0]);
        gk__u_free(w); gk__u_free(b);
    }
}

/* every tensor of the model, in the order of the published state dicts */
static void gk__kok_walk(gk__kok_ld *ld) {
    gk_kokoro_model *m = ld->m;
    const gk_kokoro_config *c = &m->cfg;
    int64_t E = c->bert_embed, D = c->bert_hidden, F = c->bert_ffn, Hd = c->hidden_dim, S = c->style_dim, l;
    char n[200];
    int i, j;
    const char *al = "bert.encoder.albert_layer_groups.0.albert_layers.0";
    /* bert */
    gk__kok_t(ld, &m->b_word, "bert.embeddings.word_embeddings.weight", 2, c->n_token, E, 0);
    gk__kok_t(ld, &m->b_pos, "bert.embeddings.position_embeddings.weight", 2, c->bert_max_pos, E, 0);
    gk__kok_t(ld, &m->b_type, "bert.embeddings.token_type_embeddings.weight", 2, c->bert_type_vocab, E, 0);
    gk__kok_t(ld, &m->b_eln_w, "bert.embeddings.LayerNorm.weight", 1, E, 0, 0);
    gk__kok_t(ld, &m->b_eln_b, "bert.embeddings.LayerNorm.bias", 1, E, 0, 0);
    gk__kok_t(ld, &m->b_map_w, "bert.encoder.embedding_hidden_mapping_in.weight", 2, D, E, 0);
    gk__kok_t(ld, &m->b_map_b, "bert.encoder.embedding_hidden_mapping_in.bias", 1, D, 0, 0);
    snprintf(n, sizeof n, "%s.attention", al); gk__kok_qkv_w(ld, n, D);
#define GK__KT1(dst, suffix, nd, d0, d1) do { snprintf(n, sizeof n, "%s.%s", al, suffix); gk__kok_t(ld, dst, n, nd, d0, d1, 0); } while (0)
    GK__KT1(&m->b_o_w, "attention.dense.weight", 2, D, D);
    GK__KT1(&m->b_o_b, "attention.dense.bias", 1, D, 0);
    GK__KT1(&m->b_aln_w, "attention.LayerNorm.weight", 1, D, 0);
    GK__KT1(&m->b_aln_b, "attention.LayerNorm.bias", 1, D, 0);
    GK__KT1(&m->b_ffn_w, "ffn.weight", 2, F, D);
    GK__KT1(&m->b_ffn_b, "ffn.bias", 1, F, 0);
    GK__KT1(&m->b_ffo_w, "ffn_output.weight", 2, D, F);
    GK__KT1(&m->b_ffo_b, "ffn_output.bias", 1, D, 0);
    GK__KT1(&m->b_fln_w, "full_layer_layer_norm.weight", 1, D, 0);
    GK__KT1(&m->b_fln_b, "full_layer_layer_norm.bias", 1, D, 0);
#undef GK__KT1
    gk__kok_t(ld, &m->benc_w, "bert_encoder.weight", 2, Hd, D, 0);
    gk__kok_t(ld, &m->benc_b, "bert_encoder.bias", 1, Hd, 0, 0);
    /* predictor */
    for (l = 0; l < c->n_layer; l++) {
        snprintf(n, sizeof n, "predictor.text_encoder.lstms.%lld", (long long)(2 * l));
        gk__kok_lstm_w(ld, &m->dur_lstm[l], n, Hd + S, Hd / 2);
        snprintf(n, sizeof n, "predictor.text_encoder.lstms.%lld", (long long)(2 * l + 1));
        gk__kok_ada_w(ld, &m->dur_aln[l], n, Hd, 1, 0);
    }
    gk__kok_lstm_w(ld, &m->p_lstm, "predictor.lstm", Hd + S, Hd / 2);
    gk__kok_t(ld, &m->dproj_w, "predictor.duration_proj.linear_layer.weight", 2, c->max_dur, Hd, 0);
    gk__kok_t(ld, &m->dproj_b, "predictor.duration_proj.linear_layer.bias", 1, c->max_dur, 0, 0);
    gk__kok_lstm_w(ld, &m->p_shared, "predictor.shared", Hd + S, Hd / 2);
    for (i = 0; i < 2; i++) {
        gk__kok_arb *b = i ? m->nb : m->f0b;
        const char *br = i ? "N" : "F0";
        snprintf(n, sizeof n, "predictor.%s.0", br); gk__kok_arb_w(ld, &b[0], n, Hd, Hd, 0, 1);
        snprintf(n, sizeof n, "predictor.%s.1", br); gk__kok_arb_w(ld, &b[1], n, Hd, Hd / 2, 1, 1);
        snprintf(n, sizeof n, "predictor.%s.2", br); gk__kok_arb_w(ld, &b[2], n, Hd / 2, Hd / 2, 0, 1);
    }
    gk__kok_t(ld, &m->f0p_w, "predictor.F0_proj.weight", 3, 1, Hd / 2, 1);
    gk__kok_t(ld, &m->f0p_b, "predictor.F0_proj.bias", 1, 1, 0, 0);
    gk__kok_t(ld, &m->np_w, "predictor.N_proj.weight", 3, 1, Hd / 2, 1);
    gk__kok_t(ld, &m->np_b, "predictor.N_proj.bias", 1, 1, 0, 0);
    /* text encoder */
    gk__kok_t(ld, &m->te_emb, "text_encoder.embedding.weight", 2, c->n_token, Hd, 0);
    for (l = 0; l < c->n_layer; l++) {
        snprintf(n, sizeof n, "text_encoder.cnn.%lld.0", (long long)l);
        gk__kok_wn(ld, &m->te_cw[l], &m->te_cb[l], n, Hd, Hd, Hd, c->text_kernel);
        snprintf(n, sizeof n, "text_encoder.cnn.%lld.1.gamma", (long long)l); gk__kok_t(ld, &m->te_g[l], n, 1, Hd, 0, 0);
        snprintf(n, sizeof n, "text_encoder.cnn.%lld.1.beta", (long long)l); gk__kok_t(ld, &m->te_b[l], n, 1, Hd, 0, 0);
    }
    gk__kok_lstm_w(ld, &m->te_lstm, "text_encoder.lstm", Hd, Hd / 2);
    /* decoder */
    gk__kok_arb_w(ld, &m->enc, "decoder.encode", Hd + 2, 1024, 0, 0);
    for (i = 0; i < 4; i++) {
        snprintf(n, sizeof n, "decoder.decode.%d", i);
        gk__kok_arb_w(ld, &m->dec[i], n, 1024 + 2 + 64, i < 3 ? 1024 : 512, i == 3, 0);
    }
    gk__kok_wn(ld, &m->f0c_w, &m->f0c_b, "decoder.F0_conv", 1, 1, 1, 3);
    gk__kok_wn(ld, &m->nc_w, &m->nc_b, "decoder.N_conv", 1, 1, 1, 3);
    gk__kok_wn(ld, &m->asr_w, &m->asr_b, "decoder.asr_res.0", 64, 64, Hd, 1);
    /* generator */
    gk__kok_t(ld, &m->src_w, "decoder.generator.m_source.l_linear.weight", 2, 1, GK_KOKORO_HARMONICS, 0);
    gk__kok_t(ld, &m->src_b, "decoder.generator.m_source.l_linear.bias", 1, 1, 0, 0);
    for (i = 0; i < c->n_ups; i++) {
        int64_t cin = c->ups_channels >> i, cout = c->ups_channels >> (i + 1), sf = 1;
        for (j = i + 1; j < c->n_ups; j++) sf *= c->ups_rate[j];
        snprintf(n, sizeof n, "decoder.generator.noise_convs.%d.weight", i);
        gk__kok_t(ld, &m->ncv_w[i], n, 3, cout, c->n_fft + 2, i + 1 < c->n_ups ? 2 * sf : 1);
        snprintf(n, sizeof n, "decoder.generator.noise_convs.%d.bias", i);
        gk__kok_t(ld, &m->ncv_b[i], n, 1, cout, 0, 0);
        {
            static const int64_t d135[3] = { 1, 3, 5 };
            snprintf(n, sizeof n, "decoder.generator.noise_res.%d", i);
            gk__kok_rb1_w(ld, &m->nres[i], n, cout, i + 1 < c->n_ups ? 7 : 11, d135);
        }
        snprintf(n, sizeof n, "decoder.generator.ups.%d", i);
        /* ConvTranspose1d weight [cin, cout, k]: weight norm per input channel */
        gk__kok_wn(ld, &m->ups_w[i], &m->ups_b[i], n, cout, cin, cout, c->ups_kernel[i]);
        for (j = 0; j < c->n_resblocks; j++) {
            snprintf(n, sizeof n, "decoder.generator.resblocks.%d", i * c->n_resblocks + j);
            gk__kok_rb1_w(ld, &m->rbs[i * c->n_resblocks + j], n, cout, c->res_kernel[j], c->res_dilation[j]);
        }
    }
    gk__kok_wn(ld, &m->post_w, &m->post_b, "decoder.generator.conv_post", c->n_fft + 2, c->n_fft + 2, c->ups_channels >> c->n_ups, 7);
}

GKLLMDEF void gk_kokoro_free(gk_kokoro_model *m) {
    size_t i;
    if (!m) return;
    if (m->stream) gk_stream_sync(m->ctx, m->stream);
    for (i = 0; i < m->n_owned; i++) gk_tensor_free(m->ctx, m->owned[i]);
    if (m->stream) gk_stream_destroy(m->ctx, m->stream);
    gk__u_free(m->owned);
    gk__u_free(m->rbs);
    gk__u_free(m);
}

/* a model-owned f32 tensor of the given values */
static void gk__kok_const(gk__kok_ld *ld, gk_tensor *dst, const float *x, int nd, int64_t d0, int64_t d1, int64_t d2) {
    int64_t sh[3];
    gk_tensor t = gk__u_tnull();
    gk_status s;
    if (ld->s != GK_OK) return;
    sh[0] = d0; sh[1] = d1; sh[2] = d2;
    s = gk_tensor_from_host(ld->m->ctx, GK_F32, nd, sh, x, &t);
    if (s != GK_OK) { ld->s = s; return; }
    gk__kok_own(ld, t);
    if (ld->s == GK_OK) *dst = t;
}

static gk_status gk__kok_read_config(gk_kokoro_model *m, const char *cpath) {
    gk_json *cj = NULL;
    gk__u_tl sv;
    gk_status s;
    gk__u_tl_save(&sv);
    s = gk_json_parse_file(cpath, NULL, &cj);
    if (s != GK_OK) return gk__u_tl_move(m->ctx, &sv, s, "gk_kokoro_load: ");
    s = gk__kok_config(m, cpath, gk_json_root(cj));
    gk_json_free(cj);
    return s;
}

/* The tensors a config.json asks for, in the published layout (weight norm
   as weight_g [C, 1, 1] / weight_v; optional: the InstanceNorm affine
   parameters), one call of fn each: for tests that write model folders. */
GK__KOK_TEST_ONLY static gk_status gk__kok_list(gk_ctx *ctx, const char *config_path, gk__kok_list_fn fn, void *user) {
    gk_kokoro_model *m = (gk_kokoro_model *)gk__u_calloc(1, sizeof *m);
    gk__kok_ld ld;
    gk_status s;
    if (!m) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_kokoro_load: out of host memory");
    m->ctx = ctx;
    s = gk__kok_read_config(m, config_path);
    if (s == GK_OK && !(m->rbs = (gk__kok_rb1 *)gk__u_calloc((size_t)(m->cfg.n_ups * m->cfg.n_resblocks), sizeof *m->rbs)))
        s = gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_kokoro_load: out of host memory");
    if (s == GK_OK) {
        memset(&ld, 0, sizeof ld);
        ld.m = m; ld.list = fn; ld.list_user = user; ld.wpath = "(list)";
        gk__kok_walk(&ld);
        s = ld.s;
    }
    gk_kokoro_free(m);
    return s;
}

GKLLMDEF gk_status gk_kokoro_load(gk_ctx *ctx, const char *dir, const gk_kokoro_desc *desc, gk_kokoro_model **out) {
    gk_kokoro_desc d;
    gk_kokoro_model *m = NULL;
    gk_safetensors *st = NULL;
    gk__kok_ld ld;
    gk_stream *old = NULL;
    gk_status s;
    int streamed = 0, h;
    char cpath[4200], wpath[4200];
    if (out) *out = NULL;
    memset(&ld, 0, sizeof ld);
    if (!ctx) return gk_error_set(NULL, GK_ERR_INVALID_HANDLE, "gk_kokoro_load: ctx is NULL");
    if (!dir) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_kokoro_load: dir is NULL");
    if (!out) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_kokoro_load: out is NULL");
    if (!dir[0]) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_kokoro_load: dir is \"\" (a model folder is needed)");
    if (strlen(dir) > 4000) return gk_error_set(ctx, GK_ERR_LIMIT, "gk_kokoro_load: dir is %llu bytes long (at most 4000)", (unsigned long long)strlen(dir));
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    if ((unsigned)d.dtype > (unsigned)GK_LLM_DTYPE_F32)
        return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_kokoro_load: gk_kokoro_desc.dtype = %d is not a gk_llm_dtype (GK_LLM_DTYPE_DEFAULT, _BF16, _F16, _F32)", (int)d.dtype);
    if (d.dtype == GK_LLM_DTYPE_BF16 || d.dtype == GK_LLM_DTYPE_F16)
        return gk_error_set(ctx, GK_ERR_UNSUPPORTED, "gk_kokoro_load: gk_kokoro_desc.dtype %s: the Kokoro model computes in f32 only (GK_LLM_DTYPE_DEFAULT or _F32)",
                            d.dtype == GK_LLM_DTYPE_BF16 ? "BF16" : "F16");
    snprintf(cpath, sizeof cpath, "%s/config.json", dir);
    if (!gk__u_file_exists(cpath)) return gk_error_set(ctx, GK_ERR_IO, "gk_kokoro_load: %s is missing (not a Kokoro model folder?)", cpath);
    snprintf(wpath, sizeof wpath, "%s/kokoro-v1_0.safetensors", dir);
    if (!gk__u_file_exists(wpath)) snprintf(wpath, sizeof wpath, "%s/model.safetensors", dir);
    if (!gk__u_file_exists(wpath))
        return gk_error_set(ctx, GK_ERR_IO, "gk_kokoro_load: %s has no kokoro-v1_0.safetensors (nor model.safetensors); tools/kokoro_convert.py makes one from the .pth", dir);
    if (!(m = (gk_kokoro_model *)gk__u_calloc(1, sizeof *m))) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_kokoro_load: out of host memory");
    m->ctx = ctx;
    m->dt = GK_F32;
    m->tf32 = d.allow_tf32 != 0;
    if ((s = gk__kok_read_config(m, cpath)) != GK_OK) goto fail;
    {
        gk__u_tl sv;
        gk__u_tl_save(&sv);
        if ((s = gk_st_open(wpath, &st)) != GK_OK) { s = gk__u_tl_move(ctx, &sv, s, "gk_kokoro_load: "); goto fail; }
    }
    if (!(m->rbs = (gk__kok_rb1 *)gk__u_calloc((size_t)(m->cfg.n_ups * m->cfg.n_resblocks), sizeof *m->rbs))) {
        s = gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_kokoro_load: out of host memory");
        goto fail;
    }
    /* check pass */
    ld.m = m; ld.st = st; ld.wpath = wpath; ld.first = 1;
    ld.prog.fn = d.progress; ld.prog.user = d.user;
    gk__kok_walk(&ld);
    if ((s = ld.s) != GK_OK) goto fail;
    /* load pass */
    for (h = 0; h < 2; h++) {
        ld.sty_w[h] = (float *)gk__u_malloc(sizeof(float) * (size_t)(m->sty_n[h] * m->cfg.style_dim));
        ld.sty_b[h] = (float *)gk__u_malloc(sizeof(float) * (size_t)m->sty_n[h]);
        if (!ld.sty_w[h] || !ld.sty_b[h]) { s = gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_kokoro_load: out of host memory"); goto fail; }
    }
    if ((s = gk_stream_create(ctx, GK_PRIORITY_NORMAL, &m->stream)) != GK_OK) goto fail;
    old = gk_get_stream(ctx);
    gk_set_stream(ctx, m->stream);
    streamed = 1;
    ld.load = 1;
    if (d.progress) d.progress(0, ld.prog.total, d.user);
    gk__kok_walk(&ld);
    for (h = 0; h < 2; h++) {
        int64_t sh[2];
        sh[0] = m->sty_n[h]; sh[1] = m->cfg.style_dim;
        gk__kok_upload(&ld, &m->sty_w[h], ld.sty_w[h], 2, sh, "the style fc weights");
        gk__kok_upload(&ld, &m->sty_b[h], ld.sty_b[h], 1, sh, "the style fc biases");
    }
    {
        float hv[GK_KOKORO_HARMONICS], k;
        int i;
        for (i = 0; i < GK_KOKORO_HARMONICS; i++) hv[i] = (float)(i + 1);
        gk__kok_const(&ld, &m->harm, hv, 3, 1, GK_KOKORO_HARMONICS, 1);
        k = (float)GK_KOKORO_SAMPLE_RATE; gk__kok_const(&ld, &m->k_sr, &k, 1, 1, 0, 0);
        k = 0.0f; gk__kok_const(&ld, &m->k_zero, &k, 1, 1, 0, 0);
        k = 1.0f; gk__kok_const(&ld, &m->k_one, &k, 1, 1, 0, 0);
        k = 10.0f; gk__kok_const(&ld, &m->k_vthr, &k, 1, 1, 0, 0);            /* SineGen's voiced threshold */
        k = 0.003f; gk__kok_const(&ld, &m->k_amp_v, &k, 1, 1, 0, 0);         /* noise_std */
        k = (float)(0.1 / 3.0); gk__kok_const(&ld, &m->k_amp_u, &k, 1, 1, 0, 0); /* sine_amp / 3 */
        k = (float)m->cfg.n_resblocks; gk__kok_const(&ld, &m->k_nk, &k, 1, 1, 0, 0);
    }
    if ((s = ld.s) == GK_OK) s = gk_stream_sync(ctx, m->stream);
    if (s != GK_OK) goto fail;
    gk_set_stream(ctx, old);
    for (h = 0; h < 2; h++) { gk__u_free(ld.sty_w[h]); gk__u_free(ld.sty_b[h]); }
    gk_st_close(st);
    *out = m;
    return GK_OK;
fail:
    if (streamed) gk_set_stream(ctx, old);
    for (h = 0; h < 2; h++) { gk__u_free(ld.sty_w[h]); gk__u_free(ld.sty_b[h]); }
    gk_st_close(st);
    gk_kokoro_free(m);
    return s;
}

GKLLMDEF const gk_kokoro_config *gk_kokoro_get_config(const gk_kokoro_model *m) { return m ? &m->cfg : NULL; }
GKLLMDEF gk_status gk_kokoro_set_stream(gk_kokoro_model *m, gk_stream *s) {
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "gk_kokoro_set_stream: m is NULL");
    m->stream_use = s;
    return GK_OK;
}
static gk_stream *gk__kok_stream(const gk_kokoro_model *m) { return m->stream_use ? m->stream_use : m->stream; }
