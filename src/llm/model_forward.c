/* >>model_forward: the forward pass, KV cache, decode graphs */
/* ---- forward ---- */
/* One block of tokens through every layer: N = Bq * Sq rows; Bq sequences
   (cache slots slot0..slot0+Bq-1) of Sq new tokens each; attention over the
   cache rows 0..kv_static. Decode: Bq = B, Sq = 1, kv lengths on the device
   (kvl, at most kv_static), start = pos. Prefill: Bq = 1, Sq = T. */
typedef struct gk__llm_run {
    int64_t N, Bq, Sq, slot0, kv_static;
    gk_tensor kvl, pos, start;
    gk_tensor h, h2, x, qkv, q, k, v, att, gu, act;
} gk__llm_run;

static void gk__llm_layers(gk_llm *m, gk__lv *V, const gk__llm_run *r) {
    const gk_llm_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t H = c->heads, Hkv = c->kv_heads, D = c->head_dim, l;
    int rd = c->rope.rotary_dim, dec = r->Sq == 1 && r->kvl.id, ax = dec ? 1 : 0;
    /* measurement only (GPUKIT_LLM_DEBUG_SKIP): decode steps leave out the ops of these bits:
       1 norms, 2 q/k/v GEMV, 4 RoPE (+ the cache write when fused), 8 cache write, 16 attention, 32 o GEMV, 64 gate/up GEMV, 128 down GEMV */
    unsigned sk = dec ? m->dbg_skip : 0u;
#define GK__LLM_DO(bit, call) do { if (!(sk & (bit))) GK__LV_DO(V, call); } while (0)
    for (l = 0; l < c->layers && V->st == GK_OK; l++) {
        const gk__llm_layer *y = &m->L[l];
        gk_matmul_desc md;
        gk_attention_desc ad;
        gk_tensor q3, q4, kv, kc, vc, att4;
        GK__LLM_DO(1, dec ? gk_decode_rms_norm(ctx, r->x, r->h, y->ln1, c->rms_eps) : gk_rms_norm(ctx, r->x, r->h, y->ln1, c->rms_eps));
        memset(&md, 0, sizeof md);
        /* the cache slots of this block: [Bq, max_ctx, 2 Hkv, D] */
        kv = gk__lv_slice(V, y->kv, 0, r->slot0, r->slot0 + r->Bq);
        if (m->fused) {
            /* one GEMV / GEMM for q, k, v; one RoPE over the q and k heads; one cache write for k and v */
            gk_tensor qkv3;
            md.bias = y->bqkv;
            GK__LLM_DO(2, gk_linear(ctx, r->qkv, r->x, y->wqkv, &md));
            qkv3 = gk__lv_reshape(V, r->qkv, 3, r->N, H + 2 * Hkv, D, 0);
            q3 = gk__lv_slice(V, qkv3, 1, 0, H);
            if (dec) { /* one token a sequence at r->pos: RoPE of q and k and the cache write in one op */
                GK__LLM_DO(4, gk_rope_kv_write(ctx, qkv3, kv, r->pos, m->cos_tab, m->sin_tab, rd, H));
            } else {
                if (V->st == GK_OK) {
                    gk_tensor qk = gk__lv_slice(V, qkv3, 1, 0, H + Hkv);
                    GK__LLM_DO(4, gk_rope(ctx, qk, qk, r->pos, m->cos_tab, m->sin_tab, rd, GK_ROPE_NEOX));
                }
                GK__LLM_DO(8, gk_kv_write(ctx, kv, gk__lv_unsq(V, gk__lv_slice(V, qkv3, 1, H, H + 2 * Hkv), ax), r->start));
            }
        } else {
            gk_tensor k3, v3;
            md.bias = y->bq; GK__LV_DO(V, gk_linear(ctx, r->q, r->x, y->wq, &md));
            md.bias = y->bk; GK__LV_DO(V, gk_linear(ctx, r->k, r->x, y->wk, &md));
            md.bias = y->bv; GK__LV_DO(V, gk_linear(ctx, r->v, r->x, y->wv, &md));
            q3 = gk__lv_reshape(V, r->q, 3, r->N, H, D, 0);
            k3 = gk__lv_reshape(V, r->k, 3, r->N, Hkv, D, 0);
            v3 = gk__lv_reshape(V, r->v, 3, r->N, Hkv, D, 0);
            if (c->qk_norm) {
                gk_tensor qf = gk__lv_reshape(V, r->q, 2, r->N * H, D, 0, 0), kf = gk__lv_reshape(V, r->k, 2, r->N * Hkv, D, 0, 0);
                GK__LV_DO(V, gk_rms_norm(ctx, qf, qf, y->qn, c->rms_eps));
                GK__LV_DO(V, gk_rms_norm(ctx, kf, kf, y->kn, c->rms_eps));
            }
            GK__LV_DO(V, gk_rope(ctx, q3, q3, r->pos, m->cos_tab, m->sin_tab, rd, GK_ROPE_NEOX));
            GK__LV_DO(V, gk_rope(ctx, k3, k3, r->pos, m->cos_tab, m->sin_tab, rd, GK_ROPE_NEOX));
            GK__LV_DO(V, gk_kv_write(ctx, gk__lv_slice(V, kv, 2, 0, Hkv), gk__lv_unsq(V, k3, ax), r->start));
            GK__LV_DO(V, gk_kv_write(ctx, gk__lv_slice(V, kv, 2, Hkv, 2 * Hkv), gk__lv_unsq(V, v3, ax), r->start));
        }
        if (V->st != GK_OK) break;
        /* [N, H, D] -> [Bq, Sq, H, D]; keys: every cached row (decode: kv_lens on the device) or 0..kv_static */
        q4 = gk__lv_unsq(V, q3, ax);
        if (r->kv_static < m->max_ctx) kv = gk__lv_slice(V, kv, 1, 0, r->kv_static);
        kc = gk__lv_slice(V, kv, 2, 0, Hkv);
        vc = gk__lv_slice(V, kv, 2, Hkv, 2 * Hkv);
        att4 = gk__lv_reshape(V, r->att, 4, r->Bq, r->Sq, H, D);
        memset(&ad, 0, sizeof ad);
        ad.causal = 1;
        if (dec) ad.kv_lens = r->kvl;
        if (V->st != GK_OK) break;
        GK__LLM_DO(16, gk_attention(ctx, att4, q4, kc, vc, &ad));
        memset(&md, 0, sizeof md);
        md.bias = y->bo;
        md.residual = r->h;
        GK__LLM_DO(32, gk_linear(ctx, r->h2, r->att, y->wo, &md));
        GK__LLM_DO(1, dec ? gk_decode_rms_norm(ctx, r->x, r->h2, y->ln2, c->rms_eps) : gk_rms_norm(ctx, r->x, r->h2, y->ln2, c->rms_eps));
        /* SwiGLU from the fused [gate; up] weight: one pass for <= 8 rows (decode), else through gu */
        memset(&md, 0, sizeof md);
        md.act = GK_ACT_SILU;
        GK__LLM_DO(64, gk_linear_glu(ctx, r->act, r->x, y->wgu, r->gu, &md));
        memset(&md, 0, sizeof md);
        md.residual = r->h2;
        GK__LLM_DO(128, gk_linear(ctx, r->h, r->act, y->wdown, &md));
        gk__lv_free(V);
    }
#undef GK__LLM_DO
}

/* The decode step of sequences 0..B-1: token d_tok[b] at position d_pos[b];
   logits into a_logits[0..B); pos += 1; greedy: the argmax into d_tok.
   Attention sees cache rows 0..kv_rows (every pos[b] < kv_rows). */
static gk_status gk__llm_step_ops(gk_llm *m, int64_t B, int greedy, int64_t kv_rows) {
    gk__lv V;
    gk__llm_run r;
    gk_ctx *ctx = m->ctx;
    gk_tensor tok, tok4, hist4, logits;
    memset(&V, 0, sizeof V);
    memset(&r, 0, sizeof r);
    V.ctx = ctx;
    r.N = B; r.Bq = B; r.Sq = 1; r.slot0 = 0; r.kv_static = kv_rows;
    tok = gk__lv_slice(&V, m->d_tok, 0, 0, B);
    r.pos = gk__lv_slice(&V, m->d_pos, 0, 0, B);
    r.start = r.pos;
    r.kvl = gk__lv_slice(&V, m->d_kvl, 0, 0, B);
    tok4 = gk__lv_reshape(&V, tok, 4, B, 1, 1, 1);
    hist4 = gk__lv_reshape(&V, gk__lv_slice(&V, m->d_hist, 0, 0, B), 4, B, m->max_ctx, 1, 1);
    r.h = gk__lv_slice(&V, m->a_h, 0, 0, B);
    r.h2 = gk__lv_slice(&V, m->a_h2, 0, 0, B);
    r.x = gk__lv_slice(&V, m->a_x, 0, 0, B);
    if (m->fused) r.qkv = gk__lv_slice(&V, m->a_qkv, 0, 0, B);
    else {
        r.q = gk__lv_slice(&V, m->a_q, 0, 0, B);
        r.k = gk__lv_slice(&V, m->a_k, 0, 0, B);
        r.v = gk__lv_slice(&V, m->a_v, 0, 0, B);
    }
    r.att = gk__lv_slice(&V, m->a_att, 0, 0, B);
    r.gu = gk__lv_slice(&V, m->a_gu, 0, 0, B);
    r.act = gk__lv_slice(&V, m->a_act, 0, 0, B);
    logits = gk__lv_slice(&V, m->a_logits, 0, 0, B);
    if (V.st == GK_OK) {
        /* the step's views (V) stay alive; the layers make and free their own (inner) */
        gk__lv inner;
        gk_tensor none = gk__u_tnull();
        memset(&inner, 0, sizeof inner);
        inner.ctx = ctx;
        GK__LV_DO(&inner, gk_kv_write(ctx, hist4, tok4, r.pos));
        GK__LV_DO(&inner, gk_add(ctx, r.kvl, r.pos, m->d_one));
        GK__LV_DO(&inner, gk_embedding(ctx, r.h, m->embed, tok));
        if (inner.st == GK_OK) gk__llm_layers(m, &inner, &r);
        GK__LV_DO(&inner, gk_decode_rms_norm(ctx, r.x, r.h, m->norm, m->cfg.rms_eps));
        GK__LV_DO(&inner, gk_linear(ctx, logits, r.x, m->lm_head, NULL));
        GK__LV_DO(&inner, gk_add(ctx, r.pos, r.pos, m->d_one));
        if (greedy) GK__LV_DO(&inner, gk_sample(ctx, tok, logits, none, NULL));
        gk__lv_free(&inner);
        V.st = inner.st;
    }
    gk__lv_free(&V);
    return V.st;
}

/* The stream the model's work goes to: gk_llm_set_stream's, else its own. */
static gk_stream *gk__llm_stream(const gk_llm *m) { return m->stream_use ? m->stream_use : m->stream; }
GKLLMDEF gk_status gk_llm_set_stream(gk_llm *m, gk_stream *s) {
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "gk_llm_set_stream: m is NULL");
    m->stream_use = s;
    return GK_OK;
}
static void gk__llm_set_stream(gk_llm *m, gk_stream **old) {
    *old = gk_get_stream(m->ctx);
    gk_set_stream(m->ctx, gk__llm_stream(m));
}

/* Prefill of sequence seq (ids on the host) at positions len..len+n-1; the
   f32 logits [all ? n : 1, vocab] stay on the device in *logits (the caller
   frees it). */
static gk_status gk__llm_prefill(gk_llm *m, int seq, const int32_t *ids, int64_t n, int all, gk_tensor *logits) {
    const gk_llm_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t p0 = m->len[seq], i, H = c->heads, Hkv = c->kv_heads, D = c->head_dim, hid = c->hidden, I = c->inter;
    int32_t *pos = (int32_t *)gk__u_malloc(sizeof(int32_t) * (size_t)n), p0i = (int32_t)p0;
    gk_tensor ids_d = gk__u_tnull(), pos_d = gk__u_tnull(), start_d = gk__u_tnull(), none = gk__u_tnull();
    gk__llm_run r;
    gk__lv V, inner;
    gk_status s = GK_OK;
    int64_t sh1[1];
    *logits = gk__u_tnull();
    if (!pos) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "out of host memory for the positions of a prefill");
    for (i = 0; i < n; i++) pos[i] = (int32_t)(p0 + i);
    memset(&r, 0, sizeof r);
    memset(&V, 0, sizeof V);
    memset(&inner, 0, sizeof inner);
    V.ctx = inner.ctx = ctx;
    sh1[0] = n;
    s = gk_tensor_from_host(ctx, GK_I32, 1, sh1, ids, &ids_d);
    if (s == GK_OK) s = gk_tensor_from_host(ctx, GK_I32, 1, sh1, pos, &pos_d);
    sh1[0] = 1;
    if (s == GK_OK) s = gk_tensor_from_host(ctx, GK_I32, 1, sh1, &p0i, &start_d);
    gk__u_free(pos);
    r.N = n; r.Bq = 1; r.Sq = n; r.slot0 = seq; r.kv_static = p0 + n;
    r.pos = pos_d; r.start = start_d; r.kvl = none;
    if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, n, hid, &r.h);
    if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, n, hid, &r.h2);
    if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, n, hid, &r.x);
    if (s == GK_OK && m->fused) s = gk__llm_empty(m, m->dt, 2, n, (H + 2 * Hkv) * D, &r.qkv);
    if (s == GK_OK && !m->fused) s = gk__llm_empty(m, m->dt, 2, n, H * D, &r.q);
    if (s == GK_OK && !m->fused) s = gk__llm_empty(m, m->dt, 2, n, Hkv * D, &r.k);
    if (s == GK_OK && !m->fused) s = gk__llm_empty(m, m->dt, 2, n, Hkv * D, &r.v);
    if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, n, H * D, &r.att);
    if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, n, 2 * I, &r.gu);
    if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, n, I, &r.act);
    if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, all ? n : 1, c->vocab, logits);
    if (s == GK_OK) {
        gk_tensor hist4 = gk__lv_reshape(&V, gk__lv_slice(&V, m->d_hist, 0, seq, seq + 1), 4, 1, m->max_ctx, 1, 1);
        gk_tensor ids4 = gk__lv_reshape(&V, ids_d, 4, 1, n, 1, 1), xl;
        GK__LV_DO(&V, gk_kv_write(ctx, hist4, ids4, start_d));
        GK__LV_DO(&V, gk_embedding(ctx, r.h, m->embed, ids_d));
        if (V.st == GK_OK) gk__llm_layers(m, &inner, &r);
        if (V.st == GK_OK) V.st = inner.st;
        GK__LV_DO(&V, gk_rms_norm(ctx, r.x, r.h, m->norm, c->rms_eps));
        xl = all ? r.x : gk__lv_slice(&V, r.x, 0, n - 1, n);
        GK__LV_DO(&V, gk_linear(ctx, *logits, xl, m->lm_head, NULL));
        gk__lv_free(&inner);
        gk__lv_free(&V);
        s = V.st;
    }
    {
        gk_tensor *ts[13] = { &ids_d, &pos_d, &start_d, &r.h, &r.h2, &r.x, &r.qkv, &r.q, &r.k, &r.v, &r.att, &r.gu, &r.act };
        for (i = 0; i < 13; i++) gk__llm_free_t(ctx, ts[i]);
    }
    if (s != GK_OK) gk__llm_free_t(ctx, logits);
    else m->len[seq] = p0 + n;
    return s;
}

/* logits [rows, vocab] of the compute dtype (as HF computes them) to f32 on the host */
static gk_status gk__llm_logits_host(gk_llm *m, gk_tensor lg, float *dst, size_t rows) {
    gk_tensor t;
    gk_status s;
    size_t nb = rows * (size_t)m->cfg.vocab * sizeof(float);
    if (m->dt == GK_F32) return gk_copy_to_host(m->ctx, lg, dst, nb);
    if ((s = gk_cast_new(m->ctx, lg, GK_F32, &t)) != GK_OK) return s;
    s = gk_copy_to_host(m->ctx, t, dst, nb);
    gk_tensor_free(m->ctx, t);
    return s;
}

/* Logits copied to the host (gk_llm_forward's, the first / step logits of a
   generation) must be finite: NaN or infinite weights, or activations past
   the compute dtype's range, are an error that says where. what: "position 6
   of sequence 0", "new token 3 (position 12)". */
static gk_status gk__llm_check_finite(gk_llm *m, const char *W, const float *x, const char *what) {
    int64_t j, V = m->cfg.vocab;
    for (j = 0; j < V; j++)
        if (!(x[j] - x[j] == 0))
            return gk_error_set(m->ctx, GK_ERR_FORMAT, "%s: the logits of %s are not finite (logit %lld is %s): the weights hold NaN or infinite values, or the "
                                "activations overflowed the compute dtype", W, what, (long long)j, x[j] != x[j] ? "NaN" : x[j] > 0 ? "+inf" : "-inf");
    return GK_OK;
}

/* what: "ids", "prompts[1]" */
static gk_status gk__llm_check_ids(gk_llm *m, const char *W, const char *what, const int32_t *ids, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= m->cfg.vocab)
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: token id %d at %s[%llu] is outside the vocab [0, %lld)", W, (int)ids[i], what,
                                (unsigned long long)i, (long long)m->cfg.vocab);
    return GK_OK;
}

GKLLMDEF gk_status gk_llm_reset(gk_llm *m, int seq) {
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "gk_llm_reset: m is NULL");
    if (seq < 0 || seq >= m->max_seqs)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "gk_llm_reset: sequence %d outside 0..%d (the model was loaded with max_seqs %d)", seq, m->max_seqs - 1, m->max_seqs);
    m->len[seq] = 0;
    return GK_OK;
}

GKLLMDEF gk_status gk_llm_forward(gk_llm *m, int seq, const int32_t *ids, size_t n, int all, float *logits) {
    const char *W = "gk_llm_forward";
    gk_stream *old;
    gk_tensor lg;
    gk_status s;
    int64_t p0;
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!ids && n) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: ids is NULL but n is %llu", W, (unsigned long long)n);
    if (n == 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: n is 0 (no tokens to run)", W);
    if (seq < 0 || seq >= m->max_seqs)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: sequence %d outside 0..%d (the model was loaded with max_seqs %d)", W, seq, m->max_seqs - 1, m->max_seqs);
    if ((int64_t)n > m->max_ctx - m->len[seq])
        return gk_error_set(m->ctx, GK_ERR_LIMIT, "%s: %llu tokens after %lld in sequence %d exceed the context of %lld tokens", W, (unsigned long long)n,
                            (long long)m->len[seq], seq, (long long)m->max_ctx);
    if ((s = gk__llm_check_ids(m, W, "ids", ids, n)) != GK_OK) return s;
    gk__llm_set_stream(m, &old);
    p0 = m->len[seq];
    s = gk__llm_prefill(m, seq, ids, (int64_t)n, all, &lg);
    if (s == GK_OK && logits) s = gk__llm_logits_host(m, lg, logits, all ? n : 1);
    if (s == GK_OK) s = gk_stream_sync(m->ctx, gk__llm_stream(m));
    gk__llm_free_t(m->ctx, &lg);
    gk_set_stream(m->ctx, old);
    if (s == GK_OK && logits) { /* the rows are on the host already: non-finite logits are an error (the sequence keeps its length) */
        size_t r, rows = all ? n : 1;
        for (r = 0; r < rows && s == GK_OK; r++) {
            char what[96];
            snprintf(what, sizeof what, "position %lld of sequence %d", (long long)(p0 + (int64_t)(all ? r : n - 1)), seq);
            s = gk__llm_check_finite(m, W, logits + r * (size_t)m->cfg.vocab, what);
        }
        if (s != GK_OK) m->len[seq] = p0;
    }
    return s;
}

/* one decode step of sequences 0..B-1: a graph launch (captured on the
   second use of a batch size and cache bucket, after a direct warm-up step).
   Attention runs over the smallest bucket of 256 << k cache rows (or max_ctx)
   that holds every sequence's new token, so its split over the keys (the
   launch is fixed inside a graph; the lengths are read on the device) fits
   the cache as it grows: a short cache takes gk_attn_dec3's one-split path
   with no combine kernel (tune.dec3_one_split). */
static gk_status gk__llm_decode(gk_llm *m, int B, int greedy) {
    int64_t need = 1, rows = 256;
    int gi, k = 0, i;
    gk_graph *g = NULL;
    gk_status s, s2;
    for (i = 0; i < B; i++) need = m->len[i] + 1 > need ? m->len[i] + 1 : need;
    while (rows < need && k + 1 < m->nbucket) { rows <<= 1; k++; }
    if (rows > m->max_ctx) rows = m->max_ctx;
    gi = (2 * B + (greedy ? 1 : 0)) * m->nbucket + k;
    if (m->no_graphs) return gk__llm_step_ops(m, B, greedy, rows);
    if (m->graphs[gi]) return gk_graph_launch(m->ctx, m->graphs[gi], gk__llm_stream(m));
    if (!m->gwarm[gi]) { m->gwarm[gi] = 1; return gk__llm_step_ops(m, B, greedy, rows); }
    s = gk_graph_begin(m->ctx, gk__llm_stream(m));
    if (s != GK_OK) return s;
    s = gk__llm_step_ops(m, B, greedy, rows);
    s2 = gk_graph_end(m->ctx, m->stream, &g);
    if (s == GK_OK) s = s2;
    if (s != GK_OK) { if (g) gk_graph_destroy(m->ctx, g); return s; }
    m->graphs[gi] = g;
    return gk_graph_launch(m->ctx, g, gk__llm_stream(m));
}

