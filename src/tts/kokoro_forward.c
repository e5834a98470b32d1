/* ======================================================================== */
/* >>impl_kokoro_forward                                                    */
/* ======================================================================== */
/* The Kokoro forward pass in stages on gpukit's ops (layouts: time-major
   [T, C] around the LSTMs and layer norms, channel-first [1, C, time]
   around the convolutions). Each stage reads and writes the device tensors
   of a gk__kok_run, so a test can run one stage on the reference's inputs:
     gk__kok_begin     ids, ref_s -> the style vectors of every AdaIN
     gk__kok_bert      -> bert [T, bert_hidden]
     gk__kok_prosody   -> d_en [T, hidden], d [T, hidden + style], dsum [T]
     gk__kok_align     durations (the one host sync) -> dur, L, idx [L]
     gk__kok_f0n       -> F0, N [1, 1, 2L]
     gk__kok_text      -> t_en [T, hidden]
     gk__kok_decode    t_en, F0, N -> gen_in [1, 512, 2L]
     gk__kok_generate  gen_in, F0, noise -> audio [1, samples] (har, post kept with keep) */

typedef struct gk__kok_run {
    int64_t T, L, S;           /* tokens (pads included), frames, samples */
    gk_tensor ids, ref;        /* i32 [T]; f32 [1, 2 * style_dim] */
    gk_tensor sty[2];          /* [1, sty_n[h]]: every AdaIN's scale and shift of style half h */
    gk_tensor bert, d_en, d;   /* [T, bert_hidden], [T, hidden], [T, hidden + style] */
    gk_tensor dsum;            /* [T]: sigmoid(duration_proj) summed (before / speed) */
    int32_t *dur;              /* host [T]: the durations used */
    gk_tensor idx;             /* i32 [L]: the token of each frame */
    gk_tensor F0, N;           /* [1, 1, 2L] */
    gk_tensor t_en;            /* [T, hidden] */
    gk_tensor gen_in;          /* [1, 512, 2L] */
    gk_tensor noise;           /* [1, 9, S] or none (zero noise) */
    gk_tensor har, post;       /* [1, S], [1, n_fft + 2, S / hop + 1]: kept when keep; a har set before
                                  gk__kok_generate is used instead of SineGen's (tests) */
    gk_tensor audio;           /* [1, S] */
    int keep;
} gk__kok_run;

static void gk__kok_run_free(gk_kokoro_model *m, gk__kok_run *r) {
    gk_tensor *ts[17];
    int i;
    ts[0] = &r->ids; ts[1] = &r->ref; ts[2] = &r->sty[0]; ts[3] = &r->sty[1]; ts[4] = &r->bert; ts[5] = &r->d_en; ts[6] = &r->d; ts[7] = &r->dsum;
    ts[8] = &r->idx; ts[9] = &r->F0; ts[10] = &r->N; ts[11] = &r->t_en; ts[12] = &r->gen_in; ts[13] = &r->noise; ts[14] = &r->har; ts[15] = &r->post;
    ts[16] = &r->audio;
    for (i = 0; i < 17; i++) gk__llm_free_t(m->ctx, ts[i]);
    gk__u_free(r->dur);
    r->dur = NULL;
}

/* scratch of V (freed with it): a new tensor of dtype dt */
static gk_tensor gk__kok_newt(gk__lv *V, gk_dtype dt, int nd, int64_t d0, int64_t d1, int64_t d2, int64_t d3) {
    gk_tensor t = gk__u_tnull();
    int64_t sh[4];
    gk_status s;
    if (V->st != GK_OK) return t;
    sh[0] = d0; sh[1] = d1; sh[2] = d2; sh[3] = d3;
    s = gk_tensor_empty(V->ctx, dt, nd, sh, &t);
    return gk__lv_keep(V, s, t);
}
static gk_tensor gk__kok_new(gk__lv *V, int nd, int64_t d0, int64_t d1, int64_t d2) { return gk__kok_newt(V, GK_F32, nd, d0, d1, d2, 0); }
/* a result that outlives V: *dst (freed by the caller) */
static void gk__kok_alloc(gk__lv *V, gk_tensor *dst, int nd, int64_t d0, int64_t d1, int64_t d2) {
    int64_t sh[3];
    gk_status s;
    if (V->st != GK_OK) return;
    sh[0] = d0; sh[1] = d1; sh[2] = d2;
    gk__llm_free_t(V->ctx, dst);
    s = gk_tensor_empty(V->ctx, GK_F32, nd, sh, dst);
    if (s != GK_OK) { V->st = s; *dst = gk__u_tnull(); }
}
/* an AdaIN's scale and shift: [1, C] views of the style vectors */
static void gk__kok_ss(gk__lv *V, const gk__kok_run *r, const gk__kok_ada *a, gk_tensor *scale, gk_tensor *shift) {
    *scale = gk__lv_slice(V, r->sty[a->half], 1, a->off, a->off + a->C);
    *shift = gk__lv_slice(V, r->sty[a->half], 1, a->off + a->C, a->off + 2 * a->C);
}
static gk_tensor gk__kok_none(void) { return gk__u_tnull(); }
/* a stride-1, one-group conv1d; on TF32 tensor cores when the model allows them */
static gk_status gk__kok_conv(gk_kokoro_model *m, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor b, int64_t pad, int64_t dil) {
    gk_conv1d_desc d;
    memset(&d, 0, sizeof d);
    d.padding = pad;
    d.dilation = dil;
    d.allow_tf32 = m->tf32;
    return gk_conv1d_ex(m->ctx, out, x, w, b, &d);
}

/* ---- blocks ---- */
/* out [1, cout, L'] = AdainResBlk1d(x [1, cin, L]), L' = 2L when it upsamples */
static gk_status gk__kok_arb_run(gk_kokoro_model *m, const gk__kok_run *r, const gk__kok_arb *b, gk_tensor out, gk_tensor x, int64_t L) {
    gk_ctx *ctx = m->ctx;
    gk__lv V;
    int64_t L2 = b->up ? 2 * L : L;
    gk_tensor sc1, sh1, sc2, sh2, h1, h2, xs;
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    gk__kok_ss(&V, r, &b->n1, &sc1, &sh1);
    gk__kok_ss(&V, r, &b->n2, &sc2, &sh2);
    /* residual: AdaIN, LeakyReLU 0.2, [pool: depthwise transposed conv x2], conv1, AdaIN, LeakyReLU, conv2 */
    h1 = gk__kok_new(&V, 3, 1, b->cin, L);
    GK__LV_DO(&V, gk_adain(ctx, h1, x, sc1, sh1, 1e-5));
    GK__LV_DO(&V, gk_unary(ctx, h1, h1, GK_UNARY_LEAKY_RELU, 0.2));
    if (b->up) {
        gk_tensor hp = gk__kok_new(&V, 3, 1, b->cin, L2);
        GK__LV_DO(&V, gk_conv_transpose1d(ctx, hp, h1, b->poolw, b->poolb, 2, 1, 1, b->cin, 1));
        h1 = hp;
    }
    h2 = gk__kok_new(&V, 3, 1, b->cout, L2);
    GK__LV_DO(&V, gk__kok_conv(m, h2, h1, b->c1w, b->c1b, 1, 1));
    GK__LV_DO(&V, gk_adain(ctx, h2, h2, sc2, sh2, 1e-5));
    GK__LV_DO(&V, gk_unary(ctx, h2, h2, GK_UNARY_LEAKY_RELU, 0.2));
    GK__LV_DO(&V, gk__kok_conv(m, out, h2, b->c2w, b->c2b, 1, 1));
    /* shortcut: [nearest x2], [1x1 conv without bias]; then (residual + shortcut) * rsqrt(2) (a float32 constant, as torch.rsqrt(tensor(2))) */
    xs = x;
    if (b->up) {
        gk_tensor u = gk__kok_new(&V, 3, 1, b->cin, L2);
        GK__LV_DO(&V, gk_repeat_interleave(ctx, u, x, 2, 2));
        xs = u;
    }
    if (b->learned) {
        gk_tensor sc = gk__kok_new(&V, 3, 1, b->cout, L2);
        GK__LV_DO(&V, gk__kok_conv(m, sc, xs, b->scw, gk__kok_none(), 0, 1));
        xs = sc;
    }
    GK__LV_DO(&V, gk_add(ctx, out, out, xs));
    GK__LV_DO(&V, gk_scale(ctx, out, out, (double)(1.0f / sqrtf(2.0f))));
    gk__lv_free(&V);
    return V.st;
}

/* y [1, C, T] = AdaINResBlock1(x [1, C, T]): three times x += conv2(snake(AdaIN(conv1(snake(AdaIN(x)))))) */
static gk_status gk__kok_rb1_run(gk_kokoro_model *m, const gk__kok_run *r, const gk__kok_rb1 *b, gk_tensor y, gk_tensor x, int64_t T) {
    gk_ctx *ctx = m->ctx;
    gk__lv V;
    gk_tensor t1, t2, sc, sh;
    int k;
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    t1 = gk__kok_new(&V, 3, 1, b->C, T);
    t2 = gk__kok_new(&V, 3, 1, b->C, T);
    GK__LV_DO(&V, gk_copy(ctx, y, x));
    for (k = 0; k < 3; k++) {
        gk__kok_ss(&V, r, &b->a1[k], &sc, &sh);
        GK__LV_DO(&V, gk_adain(ctx, t1, y, sc, sh, 1e-5));
        GK__LV_DO(&V, gk_snake(ctx, t1, t1, b->al1[k]));
        GK__LV_DO(&V, gk__kok_conv(m, t2, t1, b->c1w[k], b->c1b[k], b->dil[k] * (b->K - 1) / 2, b->dil[k]));
        gk__kok_ss(&V, r, &b->a2[k], &sc, &sh);
        GK__LV_DO(&V, gk_adain(ctx, t2, t2, sc, sh, 1e-5));
        GK__LV_DO(&V, gk_snake(ctx, t2, t2, b->al2[k]));
        GK__LV_DO(&V, gk__kok_conv(m, t1, t2, b->c2w[k], b->c2b[k], (b->K - 1) / 2, 1));
        GK__LV_DO(&V, gk_add(ctx, y, t1, y));
    }
    gk__lv_free(&V);
    return V.st;
}

static gk_status gk__kok_lstm_run(gk_kokoro_model *m, const gk__kok_lstm *y, gk_tensor out, gk_tensor x) {
    gk_tensor z = gk__u_tnull();
    return gk_lstm(m->ctx, out, z, z, x, y->wih, y->whh, y->bih, y->bhh, z, z);
}

/* ---- stages ---- */
/* ids (host, without the pads) and ref_s (host) -> r->ids, r->ref, the style vectors */
static gk_status gk__kok_begin(gk_kokoro_model *m, gk__kok_run *r, const int32_t *ids, size_t n, const float *ref_s) {
    gk_ctx *ctx = m->ctx;
    int64_t T = (int64_t)n + 2, S = m->cfg.style_dim, sh[2];
    int32_t *tok = (int32_t *)gk__u_malloc(sizeof(int32_t) * (size_t)T);
    gk__lv V;
    int h;
    if (!tok) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_kokoro_synthesize: out of host memory");
    tok[0] = tok[T - 1] = 0;
    if (n) memcpy(tok + 1, ids, sizeof(int32_t) * n);
    r->T = T;
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    sh[0] = T;
    V.st = gk_tensor_from_host(ctx, GK_I32, 1, sh, tok, &r->ids);
    gk__u_free(tok);
    sh[0] = 1; sh[1] = 2 * S;
    if (V.st == GK_OK) V.st = gk_tensor_from_host(ctx, GK_F32, 2, sh, ref_s, &r->ref);
    for (h = 0; h < 2; h++) {
        gk_matmul_desc md;
        gk_tensor half = gk__lv_slice(&V, r->ref, 1, h * S, (h + 1) * S), x = gk__kok_new(&V, 2, 1, S, 0);
        gk__kok_alloc(&V, &r->sty[h], 2, 1, m->sty_n[h], 0);
        GK__LV_DO(&V, gk_copy(ctx, x, half));
        memset(&md, 0, sizeof md);
        md.bias = m->sty_b[h];
        GK__LV_DO(&V, gk_linear(ctx, r->sty[h], x, m->sty_w[h], &md));
    }
    gk__lv_free(&V);
    return V.st;
}

/* ALBERT: r->bert [T, hidden_size] */
static gk_status gk__kok_bert(gk_kokoro_model *m, gk__kok_run *r) {
    const gk_kokoro_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t T = r->T, E = c->bert_embed, D = c->bert_hidden, H = c->bert_heads, Dh = D / H, l;
    gk_tensor e, qkv, att, a, f, qkvh, sc, ch;
    gk__lv V;
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    e = gk__kok_new(&V, 2, T, E, 0);
    qkv = gk__kok_new(&V, 2, T, 3 * D, 0);
    att = gk__kok_new(&V, 2, T, D, 0);
    a = gk__kok_new(&V, 2, T, D, 0);
    f = gk__kok_new(&V, 2, T, c->bert_ffn, 0);
    qkvh = gk__kok_new(&V, 3, 3 * H, T, Dh);
    sc = gk__kok_new(&V, 3, H, T, T);
    ch = gk__kok_new(&V, 3, H, T, Dh);
    gk__kok_alloc(&V, &r->bert, 2, T, D, 0);
    /* embeddings: (word + token_type[0]) + position, LayerNorm; the mapping to the hidden size */
    GK__LV_DO(&V, gk_embedding(ctx, e, m->b_word, r->ids));
    GK__LV_DO(&V, gk_add(ctx, e, e, gk__lv_slice(&V, m->b_type, 0, 0, 1)));
    GK__LV_DO(&V, gk_add(ctx, e, e, gk__lv_slice(&V, m->b_pos, 0, 0, T)));
    GK__LV_DO(&V, gk_layer_norm(ctx, e, e, m->b_eln_w, m->b_eln_b, c->bert_ln_eps));
    {
        gk_matmul_desc md;
        memset(&md, 0, sizeof md);
        md.bias = m->b_map_b;
        GK__LV_DO(&V, gk_linear(ctx, r->bert, e, m->b_map_w, &md));
    }
    for (l = 0; l < c->bert_layers && V.st == GK_OK; l++) {
        gk_matmul_desc md;
        gk__lv W;
        gk_tensor q4;
        memset(&W, 0, sizeof W);
        W.ctx = ctx;
        memset(&md, 0, sizeof md);
        md.bias = m->b_qkv_b;
        GK__LV_DO(&W, gk_linear(ctx, qkv, r->bert, m->b_qkv_w, &md));
        /* attention as two batched GEMMs and a softmax: heads first ([3H, T, Dh]), scores
           [H, T, T] = q k^T / sqrt(Dh), softmax, @ v, back to [T, H, Dh]. One sequence, no
           mask: all of it is a handful of launches (the fused f32 attention kernel walks the
           keys a warp at a time and is an order of magnitude slower at T in the hundreds). */
        {
            static const int perm[3] = { 1, 0, 2 };
            gk_tensor kt = gk__u_tnull();
            q4 = gk__lv_reshape(&W, qkv, 3, T, 3 * H, Dh, 0);
            GK__LV_DO(&W, gk_permute(ctx, qkvh, q4, perm));
            if (W.st == GK_OK) {
                gk_tensor ks = gk__lv_slice(&W, qkvh, 0, H, 2 * H);
                if (W.st == GK_OK) gk__lv_keep(&W, gk_view_transpose(ctx, ks, 1, 2, &kt), kt);
            }
            memset(&md, 0, sizeof md);
            md.alpha = 1.0 / sqrt((double)Dh);
            GK__LV_DO(&W, gk_matmul(ctx, sc, gk__lv_slice(&W, qkvh, 0, 0, H), kt, &md));
            GK__LV_DO(&W, gk_softmax(ctx, sc, sc));
            memset(&md, 0, sizeof md);
            GK__LV_DO(&W, gk_matmul(ctx, ch, sc, gk__lv_slice(&W, qkvh, 0, 2 * H, 3 * H), &md));
            GK__LV_DO(&W, gk_permute(ctx, gk__lv_reshape(&W, att, 3, T, H, Dh, 0), ch, perm));
        }
        memset(&md, 0, sizeof md);
        md.bias = m->b_o_b;
        md.residual = r->bert;
        GK__LV_DO(&W, gk_linear(ctx, a, att, m->b_o_w, &md));
        GK__LV_DO(&W, gk_layer_norm(ctx, a, a, m->b_aln_w, m->b_aln_b, c->bert_ln_eps));
        memset(&md, 0, sizeof md);
        md.bias = m->b_ffn_b;
        md.act = c->bert_gelu_tanh ? GK_ACT_GELU_TANH : GK_ACT_GELU;
        GK__LV_DO(&W, gk_linear(ctx, f, a, m->b_ffn_w, &md));
        memset(&md, 0, sizeof md);
        md.bias = m->b_ffo_b;
        md.residual = a;
        GK__LV_DO(&W, gk_linear(ctx, r->bert, f, m->b_ffo_w, &md));
        GK__LV_DO(&W, gk_layer_norm(ctx, r->bert, r->bert, m->b_fln_w, m->b_fln_b, c->bert_ln_eps));
        gk__lv_free(&W);
        if (V.st == GK_OK) V.st = W.st;
    }
    gk__lv_free(&V);
    return V.st;
}

/* bert_encoder, the duration encoder, the duration head: r->d_en, r->d, r->dsum */
static gk_status gk__kok_prosody(gk_kokoro_model *m, gk__kok_run *r) {
    const gk_kokoro_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t T = r->T, Hd = c->hidden_dim, S = c->style_dim, l;
    gk_tensor h, z, xf, dp;
    gk_matmul_desc md;
    gk__lv V;
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    gk__kok_alloc(&V, &r->d_en, 2, T, Hd, 0);
    gk__kok_alloc(&V, &r->d, 2, T, Hd + S, 0);
    gk__kok_alloc(&V, &r->dsum, 1, T, 0, 0);
    h = gk__kok_new(&V, 2, T, Hd, 0);
    z = gk__kok_new(&V, 2, T, Hd, 0);
    dp = gk__kok_new(&V, 2, T, c->max_dur, 0);
    memset(&md, 0, sizeof md);
    md.bias = m->benc_b;
    GK__LV_DO(&V, gk_linear(ctx, r->d_en, r->bert, m->benc_w, &md));
    /* d = [features | prosody style]: n_layer x (BiLSTM, AdaLayerNorm) over the features */
    xf = gk__lv_slice(&V, r->d, 1, 0, Hd);
    GK__LV_DO(&V, gk_copy(ctx, xf, r->d_en));
    GK__LV_DO(&V, gk_copy(ctx, gk__lv_slice(&V, r->d, 1, Hd, Hd + S), gk__lv_slice(&V, r->ref, 1, S, 2 * S)));
    for (l = 0; l < c->n_layer && V.st == GK_OK; l++) {
        gk_tensor sc, sh;
        GK__LV_DO(&V, gk__kok_lstm_run(m, &m->dur_lstm[l], h, r->d));
        gk__kok_ss(&V, r, &m->dur_aln[l], &sc, &sh);
        GK__LV_DO(&V, gk_layer_norm(ctx, z, h, gk__lv_reshape(&V, sc, 1, Hd, 0, 0, 0), gk__lv_reshape(&V, sh, 1, Hd, 0, 0, 0), 1e-5));
        GK__LV_DO(&V, gk_copy(ctx, xf, z));
    }
    /* durations: BiLSTM, Linear, sigmoid summed over max_dur */
    GK__LV_DO(&V, gk__kok_lstm_run(m, &m->p_lstm, h, r->d));
    memset(&md, 0, sizeof md);
    md.bias = m->dproj_b;
    GK__LV_DO(&V, gk_linear(ctx, dp, h, m->dproj_w, &md));
    GK__LV_DO(&V, gk_unary(ctx, dp, dp, GK_UNARY_SIGMOID, 0));
    GK__LV_DO(&V, gk_reduce(ctx, r->dsum, dp, GK_REDUCE_SUM, 1, 0));
    gk__lv_free(&V);
    return V.st;
}

/* The durations: forced (host [T]) or round_half_even(dsum / speed) >= 1,
   read back (the host sync); r->dur, r->L, r->S, r->idx. */
static gk_status gk__kok_align(gk_kokoro_model *m, gk__kok_run *r, const int32_t *forced, float speed, int64_t max_frames) {
    const char *W = "gk_kokoro_synthesize";
    gk_ctx *ctx = m->ctx;
    int64_t T = r->T, L = 0, i, j, k;
    int32_t *idx;
    gk_status s = GK_OK;
    if (!(r->dur = (int32_t *)gk__u_malloc(sizeof(int32_t) * (size_t)T))) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
    if (forced) {
        for (i = 0; i < T; i++) {
            if (forced[i] < 0)
                return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_kokoro_synth_desc.durations[%lld] = %d is negative", W, (long long)i, (int)forced[i]);
            r->dur[i] = forced[i];
            L += forced[i];
        }
        if (L < 1) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_kokoro_synth_desc.durations sum to 0 frames", W);
    } else {
        float *ds = (float *)gk__u_malloc(sizeof(float) * (size_t)T);
        if (!ds) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
        s = gk_copy_to_host(ctx, r->dsum, ds, sizeof(float) * (size_t)T);
        for (i = 0; i < T && s == GK_OK; i++) {
            float v = ds[i] / speed;
            if (!(v - v == 0)) {
                s = gk_error_set(ctx, GK_ERR_FORMAT, "%s: the duration of token %lld is not finite (the weights hold NaN or infinite values)", W, (long long)i);
                break;
            }
            v = rintf(v); /* round half to even, as torch.round */
            if (v < 1.0f) v = 1.0f;
            if (v > (float)max_frames) v = (float)max_frames + 1.0f;
            r->dur[i] = (int32_t)v;
            L += r->dur[i];
        }
        gk__u_free(ds);
        if (s != GK_OK) return s;
    }
    if (L > max_frames)
        return gk_error_set(ctx, GK_ERR_LIMIT, "%s: the durations add up to %lld frames, above gk_kokoro_synth_desc.max_frames = %lld (%.1f s; a higher speed shortens them)", W,
                            (long long)L, (long long)max_frames, (double)max_frames * (double)m->cfg.samples_per_frame / GK_KOKORO_SAMPLE_RATE);
    r->L = L;
    r->S = L * m->cfg.samples_per_frame;
    if (!(idx = (int32_t *)gk__u_malloc(sizeof(int32_t) * (size_t)L))) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
    for (i = 0, k = 0; i < T; i++)
        for (j = 0; j < r->dur[i]; j++) idx[k++] = (int32_t)i;
    s = gk_tensor_from_host(ctx, GK_I32, 1, &L, idx, &r->idx);
    gk__u_free(idx);
    return s;
}

/* F0 and N: the shared BiLSTM over the frames, 3 AdainResBlk1d, a 1x1 conv each: r->F0, r->N [1, 1, 2L] */
static gk_status gk__kok_f0n(gk_kokoro_model *m, gk__kok_run *r) {
    const gk_kokoro_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t L = r->L, Hd = c->hidden_dim, S = c->style_dim, i;
    gk_tensor en, sh, xs, a, b1, b2;
    gk__lv V;
    int perm[2];
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    en = gk__kok_new(&V, 2, L, Hd + S, 0);
    sh = gk__kok_new(&V, 2, L, Hd, 0);
    xs = gk__kok_new(&V, 3, 1, Hd, L);
    a = gk__kok_new(&V, 3, 1, Hd, L);
    b1 = gk__kok_new(&V, 3, 1, Hd / 2, 2 * L);
    b2 = gk__kok_new(&V, 3, 1, Hd / 2, 2 * L);
    gk__kok_alloc(&V, &r->F0, 3, 1, 1, 2 * L);
    gk__kok_alloc(&V, &r->N, 3, 1, 1, 2 * L);
    GK__LV_DO(&V, gk_index_select(ctx, en, r->d, 0, r->idx));
    GK__LV_DO(&V, gk__kok_lstm_run(m, &m->p_shared, sh, en));
    perm[0] = 1; perm[1] = 0;
    GK__LV_DO(&V, gk_permute(ctx, gk__lv_reshape(&V, xs, 2, Hd, L, 0, 0), sh, perm));
    for (i = 0; i < 2; i++) {
        const gk__kok_arb *bl = i ? m->nb : m->f0b;
        GK__LV_DO(&V, gk__kok_arb_run(m, r, &bl[0], a, xs, L));
        GK__LV_DO(&V, gk__kok_arb_run(m, r, &bl[1], b1, a, L));
        GK__LV_DO(&V, gk__kok_arb_run(m, r, &bl[2], b2, b1, 2 * L));
        GK__LV_DO(&V, gk_conv1d(ctx, i ? r->N : r->F0, b2, i ? m->np_w : m->f0p_w, i ? m->np_b : m->f0p_b, 1, 0, 1, 1));
    }
    gk__lv_free(&V);
    return V.st;
}

/* the text encoder: r->t_en [T, hidden] */
static gk_status gk__kok_text(gk_kokoro_model *m, gk__kok_run *r) {
    const gk_kokoro_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t T = r->T, Hd = c->hidden_dim, l;
    gk_tensor e, xc, cv, cf, cf2;
    gk__lv V;
    int perm[2];
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    e = gk__kok_new(&V, 2, T, Hd, 0);
    xc = gk__kok_new(&V, 3, 1, Hd, T);
    cv = gk__kok_new(&V, 3, 1, Hd, T);
    gk__kok_alloc(&V, &r->t_en, 2, T, Hd, 0);
    perm[0] = 1; perm[1] = 0;
    cf = gk__lv_reshape(&V, xc, 2, Hd, T, 0, 0);
    cf2 = gk__lv_reshape(&V, cv, 2, Hd, T, 0, 0);
    GK__LV_DO(&V, gk_embedding(ctx, e, m->te_emb, r->ids));
    GK__LV_DO(&V, gk_permute(ctx, cf, e, perm));
    for (l = 0; l < c->n_layer && V.st == GK_OK; l++) {
        /* Conv1d, LayerNorm over the channels (time-major), LeakyReLU 0.2 */
        GK__LV_DO(&V, gk__kok_conv(m, cv, xc, m->te_cw[l], m->te_cb[l], (c->text_kernel - 1) / 2, 1));
        GK__LV_DO(&V, gk_permute(ctx, e, cf2, perm));
        GK__LV_DO(&V, gk_layer_norm(ctx, e, e, m->te_g[l], m->te_b[l], 1e-5));
        GK__LV_DO(&V, gk_unary(ctx, e, e, GK_UNARY_LEAKY_RELU, 0.2));
        if (l + 1 < c->n_layer) GK__LV_DO(&V, gk_permute(ctx, cf, e, perm));
    }
    GK__LV_DO(&V, gk__kok_lstm_run(m, &m->te_lstm, r->t_en, e));
    gk__lv_free(&V);
    return V.st;
}

/* the decoder up to the generator: r->gen_in [1, 512, 2L] from t_en (aligned), F0, N */
static gk_status gk__kok_decode(gk_kokoro_model *m, gk__kok_run *r) {
    const gk_kokoro_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t L = r->L, Hd = c->hidden_dim, CW = 1024 + 2 + 64;
    gk_tensor at, asr, f0c, nc, x0, bufA, bufB, parts[3];
    gk__lv V;
    int perm[2];
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    at = gk__kok_new(&V, 2, L, Hd, 0);
    asr = gk__kok_new(&V, 3, 1, Hd, L);
    f0c = gk__kok_new(&V, 3, 1, 1, L);
    nc = gk__kok_new(&V, 3, 1, 1, L);
    x0 = gk__kok_new(&V, 3, 1, Hd + 2, L);
    bufA = gk__kok_new(&V, 3, 1, CW, L);
    bufB = gk__kok_new(&V, 3, 1, CW, L);
    gk__kok_alloc(&V, &r->gen_in, 3, 1, c->ups_channels, 2 * L);
    /* asr = t_en aligned to the frames, channel-first */
    GK__LV_DO(&V, gk_index_select(ctx, at, r->t_en, 0, r->idx));
    perm[0] = 1; perm[1] = 0;
    GK__LV_DO(&V, gk_permute(ctx, gk__lv_reshape(&V, asr, 2, Hd, L, 0, 0), at, perm));
    /* F0 and N at the frame rate (stride 2) */
    GK__LV_DO(&V, gk_conv1d(ctx, f0c, r->F0, m->f0c_w, m->f0c_b, 2, 1, 1, 1));
    GK__LV_DO(&V, gk_conv1d(ctx, nc, r->N, m->nc_w, m->nc_b, 2, 1, 1, 1));
    parts[0] = asr; parts[1] = f0c; parts[2] = nc;
    GK__LV_DO(&V, gk_concat(ctx, x0, parts, 3, 1));
    /* the decode blocks read [x | asr_res | F0 | N]: the last 66 channels of both buffers are set once */
    GK__LV_DO(&V, gk__kok_conv(m, gk__lv_slice(&V, bufA, 1, 1024, 1088), asr, m->asr_w, m->asr_b, 0, 1));
    GK__LV_DO(&V, gk_copy(ctx, gk__lv_slice(&V, bufA, 1, 1088, 1089), f0c));
    GK__LV_DO(&V, gk_copy(ctx, gk__lv_slice(&V, bufA, 1, 1089, 1090), nc));
    GK__LV_DO(&V, gk_copy(ctx, gk__lv_slice(&V, bufB, 1, 1024, CW), gk__lv_slice(&V, bufA, 1, 1024, CW)));
    GK__LV_DO(&V, gk__kok_arb_run(m, r, &m->enc, gk__lv_slice(&V, bufA, 1, 0, 1024), x0, L));
    GK__LV_DO(&V, gk__kok_arb_run(m, r, &m->dec[0], gk__lv_slice(&V, bufB, 1, 0, 1024), bufA, L));
    GK__LV_DO(&V, gk__kok_arb_run(m, r, &m->dec[1], gk__lv_slice(&V, bufA, 1, 0, 1024), bufB, L));
    GK__LV_DO(&V, gk__kok_arb_run(m, r, &m->dec[2], gk__lv_slice(&V, bufB, 1, 0, 1024), bufA, L));
    GK__LV_DO(&V, gk__kok_arb_run(m, r, &m->dec[3], r->gen_in, bufB, L));
    gk__lv_free(&V);
    return V.st;
}

/* SineGen, l_linear, tanh: har [1, S] from F0 [1, 1, 2L] (and r->noise [1, 9, S] when set).
   The reference upsamples F0 x U (U = S / 2L, nearest) and computes per
   sample rad = (F0 h / sr) mod 1; its downsampling interpolation (scale
   1 / U) reads samples k U + U/2 - 1 and k U + U/2 of a constant run with
   weights 1/2, 1/2, which is exactly rad at F0[k]: rad is computed at the
   2L points here. The phase sum is in float64 (torch's CPU cumsum of float32
   accumulates in double), then * 2 pi * U in float32 as torch multiplies. */
static gk_status gk__kok_source(gk_kokoro_model *m, gk__kok_run *r, gk_tensor har) {
    gk_ctx *ctx = m->ctx;
    int64_t L2 = 2 * r->L, S = r->S, U = S / L2, H = GK_KOKORO_HARMONICS;
    gk_tensor fn, ti, tf, neg, fr1, r64, c64, ph, pu, uv, uvf, uvu;
    gk__lv V;
    double sc = (double)U;
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    fn = gk__kok_new(&V, 3, 1, H, L2);
    tf = gk__kok_new(&V, 3, 1, H, L2);
    fr1 = gk__kok_new(&V, 3, 1, H, L2);
    ph = gk__kok_new(&V, 3, 1, H, L2);
    pu = gk__kok_new(&V, 3, 1, H, S);
    uvf = gk__kok_new(&V, 3, 1, 1, L2);
    uvu = gk__kok_new(&V, 3, 1, 1, S);
    ti = gk__kok_newt(&V, GK_I32, 3, 1, H, L2, 0);
    neg = gk__kok_newt(&V, GK_U8, 3, 1, H, L2, 0);
    r64 = gk__kok_newt(&V, GK_F64, 3, 1, H, L2, 0);
    c64 = gk__kok_newt(&V, GK_F64, 3, 1, H, L2, 0);
    uv = gk__kok_newt(&V, GK_U8, 3, 1, 1, L2, 0);
    /* rad = (F0 h / sr) mod 1 (torch's remainder: x - floor(x)) */
    GK__LV_DO(&V, gk_mul(ctx, fn, r->F0, m->harm));
    GK__LV_DO(&V, gk_div(ctx, fn, fn, m->k_sr));
    GK__LV_DO(&V, gk_cast(ctx, ti, fn));
    GK__LV_DO(&V, gk_cast(ctx, tf, ti));
    GK__LV_DO(&V, gk_sub(ctx, fn, fn, tf));
    GK__LV_DO(&V, gk_compare(ctx, neg, fn, m->k_zero, GK_CMP_LT));
    GK__LV_DO(&V, gk_add(ctx, fr1, fn, m->k_one));
    GK__LV_DO(&V, gk_where(ctx, fn, neg, fr1, fn));
    /* phase = cumsum(rad) 2 pi U, upsampled linearly x U; sines = 0.1 sin(phase), voiced only */
    GK__LV_DO(&V, gk_cast(ctx, r64, fn));
    GK__LV_DO(&V, gk_cumsum(ctx, c64, r64, 2));
    GK__LV_DO(&V, gk_cast(ctx, ph, c64));
    GK__LV_DO(&V, gk_scale(ctx, ph, ph, 2.0 * (double)(float)3.14159265358979323846));
    GK__LV_DO(&V, gk_scale(ctx, ph, ph, (double)(float)U));
    GK__LV_DO(&V, gk_interpolate(ctx, pu, ph, GK_INTERP_LINEAR, &sc));
    GK__LV_DO(&V, gk_unary(ctx, pu, pu, GK_UNARY_SIN, 0));
    GK__LV_DO(&V, gk_scale(ctx, pu, pu, 0.1));
    GK__LV_DO(&V, gk_compare(ctx, uv, r->F0, m->k_vthr, GK_CMP_GT));
    GK__LV_DO(&V, gk_cast(ctx, uvf, uv));
    GK__LV_DO(&V, gk_repeat_interleave(ctx, uvu, uvf, U, 2));
    GK__LV_DO(&V, gk_mul(ctx, pu, pu, uvu));
    if (r->noise.id) {
        /* + (uv 0.003 + (1 - uv) 0.1 / 3) noise */
        gk_tensor amp = gk__kok_new(&V, 3, 1, 1, L2), ampu = gk__kok_new(&V, 3, 1, 1, S), nz = gk__kok_new(&V, 3, 1, H, S);
        GK__LV_DO(&V, gk_where(ctx, amp, uv, m->k_amp_v, m->k_amp_u));
        GK__LV_DO(&V, gk_repeat_interleave(ctx, ampu, amp, U, 2));
        GK__LV_DO(&V, gk_mul(ctx, nz, r->noise, ampu));
        GK__LV_DO(&V, gk_add(ctx, pu, pu, nz));
    }
    /* l_linear over the harmonics, tanh */
    GK__LV_DO(&V, gk_matmul(ctx, har, m->src_w, gk__lv_reshape(&V, pu, 2, H, S, 0, 0), NULL));
    GK__LV_DO(&V, gk_add(ctx, har, har, m->src_b));
    GK__LV_DO(&V, gk_unary(ctx, har, har, GK_UNARY_TANH, 0));
    gk__lv_free(&V);
    return V.st;
}

/* the generator: r->audio [1, S] from r->gen_in and r->F0 */
static gk_status gk__kok_generate(gk_kokoro_model *m, gk__kok_run *r) {
    const gk_kokoro_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t K = c->n_fft / 2 + 1, Fr = r->S / c->hop + 1, len = 2 * r->L, i, j;
    gk_tensor hfeat = gk__u_tnull(), x = gk__u_tnull(), acc = gk__u_tnull(), har = gk__u_tnull(), post = gk__u_tnull(), none = gk__u_tnull();
    gk__lv V;
    int nk = c->n_resblocks;
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    /* the source and its STFT: [|X|, angle X] [1, 2K, Fr]; the bins that are real in exact arithmetic get a zero imaginary part */
    gk__kok_alloc(&V, &hfeat, 3, 1, 2 * K, Fr);
    if (r->har.id) {
        har = r->har;
        r->har = gk__u_tnull();
    } else {
        gk__kok_alloc(&V, &har, 2, 1, r->S, 0);
        GK__LV_DO(&V, gk__kok_source(m, r, har));
    }
    {
        gk_tensor spec = gk__kok_newt(&V, GK_F32, 4, 1, K, Fr, 2), im;
        GK__LV_DO(&V, gk_stft(ctx, spec, har, none, c->n_fft, c->hop, 1));
        im = gk__lv_slice(&V, spec, 3, 1, 2);
        GK__LV_DO(&V, gk_fill(ctx, gk__lv_slice(&V, im, 2, 0, 1), 0.0));
        GK__LV_DO(&V, gk_fill(ctx, gk__lv_slice(&V, im, 1, 0, 1), 0.0));
        GK__LV_DO(&V, gk_fill(ctx, gk__lv_slice(&V, im, 1, K - 1, K), 0.0));
        GK__LV_DO(&V, gk_complex_abs(ctx, gk__lv_slice(&V, hfeat, 1, 0, K), spec));
        GK__LV_DO(&V, gk_complex_angle(ctx, gk__lv_slice(&V, hfeat, 1, K, 2 * K), spec));
        gk__lv_free(&V);
    }
    x = r->gen_in;
    for (i = 0; i < c->n_ups && V.st == GK_OK; i++) {
        int64_t cin = c->ups_channels >> i, cout = c->ups_channels >> (i + 1), u = c->ups_rate[i], k = c->ups_kernel[i], sf = 1, last = i + 1 == c->n_ups;
        int64_t nlen = len * u + (last ? 1 : 0);
        gk_tensor xl, xc, xs, xu, tmp, nacc = gk__u_tnull();
        for (j = i + 1; j < c->n_ups; j++) sf *= c->ups_rate[j];
        xl = gk__kok_new(&V, 3, 1, cin, len);
        xc = gk__kok_new(&V, 3, 1, cout, nlen);
        xs = gk__kok_new(&V, 3, 1, cout, nlen);
        xu = gk__kok_new(&V, 3, 1, cout, len * u);
        tmp = gk__kok_new(&V, 3, 1, cout, nlen);
        gk__kok_alloc(&V, &nacc, 3, 1, cout, nlen);
        GK__LV_DO(&V, gk_unary(ctx, xl, x, GK_UNARY_LEAKY_RELU, 0.1));
        /* the source branch: its convolution to this stage's rate and channels, an AdaINResBlock1 */
        if (last) GK__LV_DO(&V, gk__kok_conv(m, xc, hfeat, m->ncv_w[i], m->ncv_b[i], 0, 1));
        else GK__LV_DO(&V, gk_conv1d(ctx, xc, hfeat, m->ncv_w[i], m->ncv_b[i], sf, (sf + 1) / 2, 1, 1));
        GK__LV_DO(&V, gk__kok_rb1_run(m, r, &m->nres[i], xs, xc, nlen));
        /* upsampling, [ReflectionPad1d((1, 0)) last], the source added */
        GK__LV_DO(&V, gk_conv_transpose1d(ctx, xu, xl, m->ups_w[i], m->ups_b[i], u, (k - u) / 2, 0, 1, 1));
        if (last) {
            int64_t pads[2];
            gk_tensor xp = gk__kok_new(&V, 3, 1, cout, nlen);
            pads[0] = 1; pads[1] = 0;
            GK__LV_DO(&V, gk_pad(ctx, xp, xu, pads, 2, GK_PAD_REFLECT, 0));
            xu = xp;
        }
        GK__LV_DO(&V, gk_add(ctx, xu, xu, xs));
        /* the mean of the resblocks */
        for (j = 0; j < nk && V.st == GK_OK; j++) {
            GK__LV_DO(&V, gk__kok_rb1_run(m, r, &m->rbs[i * nk + j], j ? tmp : nacc, xu, nlen));
            if (j) GK__LV_DO(&V, gk_add(ctx, nacc, nacc, tmp));
        }
        GK__LV_DO(&V, gk_div(ctx, nacc, nacc, m->k_nk));
        gk__lv_free(&V);
        gk__llm_free_t(ctx, &acc);
        acc = nacc;
        x = acc;
        len = nlen;
    }
    /* LeakyReLU 0.01, conv_post, exp / sin, iSTFT */
    gk__kok_alloc(&V, &post, 3, 1, c->n_fft + 2, Fr);
    gk__kok_alloc(&V, &r->audio, 2, 1, r->S, 0);
    if (V.st == GK_OK) {
        gk_tensor mag = gk__kok_new(&V, 3, 1, K, Fr), phs = gk__kok_new(&V, 3, 1, K, Fr), z = gk__kok_newt(&V, GK_F32, 4, 1, K, Fr, 2);
        GK__LV_DO(&V, gk_unary(ctx, acc, acc, GK_UNARY_LEAKY_RELU, 0.01));
        GK__LV_DO(&V, gk__kok_conv(m, post, acc, m->post_w, m->post_b, 3, 1));
        GK__LV_DO(&V, gk_unary(ctx, mag, gk__lv_slice(&V, post, 1, 0, K), GK_UNARY_EXP, 0));
        GK__LV_DO(&V, gk_unary(ctx, phs, gk__lv_slice(&V, post, 1, K, 2 * K), GK_UNARY_SIN, 0));
        GK__LV_DO(&V, gk_complex_polar(ctx, z, mag, phs));
        GK__LV_DO(&V, gk_istft(ctx, r->audio, z, none, c->n_fft, c->hop, 1));
    }
    gk__lv_free(&V);
    gk__llm_free_t(ctx, &acc);
    gk__llm_free_t(ctx, &hfeat);
    if (r->keep && V.st == GK_OK) {
        gk__llm_free_t(ctx, &r->har);
        gk__llm_free_t(ctx, &r->post);
        r->har = har;
        r->post = post;
    } else {
        gk__llm_free_t(ctx, &har);
        gk__llm_free_t(ctx, &post);
    }
    return V.st;
}

/* SineGen's noise of the seed: element (t, h) of torch's [S, 9] layout is gk_randn's number t * 9 + h
   of the seed (on the device); r->noise [1, 9, S] */
static gk_status gk__kok_noise(gk_kokoro_model *m, gk__kok_run *r, uint64_t seed) {
    int64_t S = r->S, H = GK_KOKORO_HARMONICS;
    gk_tensor z;
    gk__lv V;
    int perm[2];
    memset(&V, 0, sizeof V);
    V.ctx = m->ctx;
    z = gk__kok_new(&V, 2, S, H, 0);
    gk__kok_alloc(&V, &r->noise, 3, 1, H, S);
    GK__LV_DO(&V, gk_randn(m->ctx, z, seed, 0));
    perm[0] = 1; perm[1] = 0;
    GK__LV_DO(&V, gk_permute(m->ctx, gk__lv_reshape(&V, r->noise, 2, H, S, 0, 0), z, perm));
    gk__lv_free(&V);
    return V.st;
}

/* the first non-finite value of a host array, or -1 */
static int64_t gk__kok_nonfinite(const float *x, int64_t n) {
    int64_t i;
    for (i = 0; i < n; i++)
        if (!(x[i] - x[i] == 0)) return i;
    return -1;
}

GKLLMDEF gk_status gk_kokoro_synthesize(gk_kokoro_model *m, const int32_t *ids, size_t n, const float *ref_s, const gk_kokoro_synth_desc *desc, gk_audio *out) {
    const char *W = "gk_kokoro_synthesize";
    gk_kokoro_synth_desc d;
    gk__kok_run r;
    gk_stream *old;
    gk_status s;
    float speed;
    float *pcm = NULL;
    int64_t max_frames, bad, i;
    if (out) memset(out, 0, sizeof *out);
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!out) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (!ids && n) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: ids is NULL but n is %llu", W, (unsigned long long)n);
    if (!ref_s) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: ref_s is NULL (a voice's style row of %lld values)", W, (long long)(2 * m->cfg.style_dim));
    if (n == 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: n is 0 (no phoneme ids)", W);
    if ((int64_t)n > m->cfg.bert_max_pos - 2)
        return gk_error_set(m->ctx, GK_ERR_LIMIT, "%s: %llu phoneme ids; at most %lld fit (plbert.max_position_embeddings %lld less the two pads): split the text", W,
                            (unsigned long long)n, (long long)(m->cfg.bert_max_pos - 2), (long long)m->cfg.bert_max_pos);
    for (i = 0; i < (int64_t)n; i++)
        if (ids[i] < 0 || ids[i] >= m->cfg.n_token)
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: ids[%lld] = %d is outside the vocabulary 0..%lld", W, (long long)i, (int)ids[i], (long long)(m->cfg.n_token - 1));
    for (i = 0; i < 2 * m->cfg.style_dim; i++)
        if (!(ref_s[i] - ref_s[i] == 0)) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: ref_s[%lld] is not finite", W, (long long)i);
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    speed = d.speed == 0 ? 1.0f : d.speed;
    if (!(speed > 0) || !(speed - speed == 0))
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_kokoro_synth_desc.speed = %g must be > 0 and finite (0: 1)", W, (double)d.speed);
    if (d.noise != GK_KOKORO_NOISE_SEEDED && d.noise != GK_KOKORO_NOISE_ZERO)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_kokoro_synth_desc.noise = %d is not a gk_kokoro_noise", W, (int)d.noise);
    if (d.max_frames < 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_kokoro_synth_desc.max_frames = %lld is negative", W, (long long)d.max_frames);
    max_frames = d.max_frames ? d.max_frames : GK_KOKORO_MAX_FRAMES;
    memset(&r, 0, sizeof r);
    old = gk_get_stream(m->ctx);
    gk_set_stream(m->ctx, gk__kok_stream(m));
    s = gk__kok_begin(m, &r, ids, n, ref_s);
    if (s == GK_OK) s = gk__kok_bert(m, &r);
    if (s == GK_OK) s = gk__kok_prosody(m, &r);
    if (s == GK_OK) s = gk__kok_align(m, &r, d.durations, speed, max_frames);
    if (s == GK_OK && d.noise == GK_KOKORO_NOISE_SEEDED) s = gk__kok_noise(m, &r, d.seed);
    if (s == GK_OK) s = gk__kok_f0n(m, &r);
    if (s == GK_OK) s = gk__kok_text(m, &r);
    if (s == GK_OK) s = gk__kok_decode(m, &r);
    if (s == GK_OK) s = gk__kok_generate(m, &r);
    if (s == GK_OK && !(pcm = (float *)gk__u_malloc(sizeof(float) * (size_t)r.S)))
        s = gk_error_set(m->ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory for %lld samples", W, (long long)r.S);
    if (s == GK_OK) s = gk_copy_to_host(m->ctx, r.audio, pcm, sizeof(float) * (size_t)r.S);
    if (s == GK_OK) s = gk_stream_sync(m->ctx, gk__kok_stream(m));
    gk_set_stream(m->ctx, old);
    if (s == GK_OK && (bad = gk__kok_nonfinite(pcm, r.S)) >= 0)
        s = gk_error_set(m->ctx, GK_ERR_FORMAT, "%s: sample %lld (frame %lld) is not finite: the weights hold NaN or infinite values, or the spectrum overflowed exp()", W,
                         (long long)bad, (long long)(bad / m->cfg.samples_per_frame));
    if (s == GK_OK) {
        if (d.durations_out) memcpy(d.durations_out, r.dur, sizeof(int32_t) * (size_t)r.T);
        if (d.frames_out) *d.frames_out = r.L;
        out->samples = pcm;
        out->n = (size_t)r.S;
        out->rate = GK_KOKORO_SAMPLE_RATE;
        out->rate_in = GK_KOKORO_SAMPLE_RATE;
        out->channels_in = 1;
        out->bits_in = 32;
        out->frames_in = (uint64_t)r.S;
        pcm = NULL;
    }
    gk__u_free(pcm);
    gk__kok_run_free(m, &r);
    return s;
}
