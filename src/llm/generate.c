/* >>model_generate: sampling loop, stop strings, batches, chat */
static int gk__llm_is_eos(const gk_llm *m, int32_t id) {
    int i;
    for (i = 0; i < m->cfg.n_eos; i++)
        if (m->cfg.eos_ids[i] == id) return 1;
    return 0;
}

typedef struct gk__llm_seq { gk_tok_stream ts; gk_buf text; gk_ids ids; int done; int64_t nnew; int oom; } gk__llm_seq;

/* a new token of sequence b: EOS, text, callback, stop strings, limits; an
   out-of-memory stops the sequence (q->oom: the call fails); the tokenizer's
   messages do not stay in the thread's error text (sv: as it was) */
static void gk__llm_take(gk_llm *m, const gk_llm_gen_desc *d, gk__llm_seq *q, int b, int32_t id, int64_t max_new, const gk__u_tl *sv) {
    int eos = !(d->flags & GK_LLM_GEN_IGNORE_EOS) && gk__llm_is_eos(m, id);
    size_t before = q->text.len;
    int i;
    gk_status st;
    if (gk_ids_push(&q->ids, id) != GK_OK) { gk__u_tl_restore(sv); q->done = q->oom = 1; return; }
    q->nnew++;
    if (!eos && (st = gk_tok_stream_push(&q->ts, id, &q->text)) != GK_OK) {
        gk__u_tl_restore(sv);
        q->text.len = before; /* an id without text */
        if (st == GK_ERR_OUT_OF_MEMORY) { q->done = q->oom = 1; return; }
    }
    if (q->text.data) q->text.data[q->text.len] = 0;
    if (d->on_token && d->on_token(b, id, q->text.data ? q->text.data + before : "", q->text.len - before, d->user)) q->done = 1;
    for (i = 0; i < d->n_stop && q->text.data; i++) {
        size_t sl = d->stop[i] ? strlen(d->stop[i]) : 0, from = before >= sl ? before - sl + 1 : 0;
        const char *hit = sl ? strstr(q->text.data + from, d->stop[i]) : NULL;
        if (hit) { q->text.len = (size_t)(hit - q->text.data); q->text.data[q->text.len] = 0; q->done = 2; }
    }
    if (eos || q->nnew >= max_new || m->len[b] + 1 >= m->max_ctx) q->done = q->done ? q->done : 1;
}

/* the gk_llm_gen_desc of a call: every field it reads, named */
static gk_status gk__llm_gen_check(gk_llm *m, const char *W, const gk_llm_gen_desc *d) {
    const gk_sample_desc *sd = &d->sample;
    int i;
    if (d->max_new_tokens < 0)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_llm_gen_desc.max_new_tokens = %lld must be >= 1 (0: generation_config.json's, else 256)", W,
                            (long long)d->max_new_tokens);
    if (d->sampling != GK_LLM_SAMPLE_DEFAULT && d->sampling != GK_LLM_SAMPLE_GREEDY && d->sampling != GK_LLM_SAMPLE_CUSTOM)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_llm_gen_desc.sampling = %d is not a GK_LLM_SAMPLE_* mode (DEFAULT 0, GREEDY 1, CUSTOM 2)", W, d->sampling);
    if (d->flags & ~(unsigned)(GK_LLM_GEN_IGNORE_EOS | GK_LLM_GEN_NO_THINKING))
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_llm_gen_desc.flags = 0x%x has bits that are not GK_LLM_GEN_* flags", W, d->flags);
    if (d->n_stop < 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_llm_gen_desc.n_stop = %d is negative", W, d->n_stop);
    if (d->n_stop > 0 && !d->stop)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_llm_gen_desc.stop is NULL but n_stop is %d", W, d->n_stop);
    for (i = 0; i < d->n_stop; i++) {
        if (!d->stop[i]) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_llm_gen_desc.stop[%d] is NULL (n_stop is %d)", W, i, d->n_stop);
        if (!d->stop[i][0]) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_llm_gen_desc.stop[%d] is empty (a stop string needs a character)", W, i);
    }
    if (d->sampling == GK_LLM_SAMPLE_CUSTOM) { /* gk_sample's rules, named by the desc's fields */
        const char *F = "gk_llm_gen_desc.sample";
        if (!(fabs((double)sd->temperature) <= 3.5e38))
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %s.temperature = %g is not finite (<= 0: greedy)", W, F, (double)sd->temperature);
        if (sd->top_k < 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %s.top_k = %d is negative (0: off)", W, F, sd->top_k);
        if (!(sd->top_p >= 0.0f && sd->top_p <= 1.0f))
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %s.top_p = %g must be in (0, 1] (0: off)", W, F, (double)sd->top_p);
        if (!(sd->min_p >= 0.0f && sd->min_p <= 1.0f))
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %s.min_p = %g must be in [0, 1] (0: off)", W, F, (double)sd->min_p);
        if (!(sd->repetition_penalty >= 0.0f && (double)sd->repetition_penalty <= 3.5e38))
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %s.repetition_penalty = %g must be finite and > 0 (0 or 1: off)", W, F, (double)sd->repetition_penalty);
        if (!(fabs((double)sd->presence_penalty) <= 3.5e38))
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %s.presence_penalty = %g is not finite", W, F, (double)sd->presence_penalty);
        if (!(fabs((double)sd->frequency_penalty) <= 3.5e38))
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %s.frequency_penalty = %g is not finite", W, F, (double)sd->frequency_penalty);
    }
    return GK_OK;
}

/* the token sampled for sequence i is not an id: its logits were all NaN or
   -inf (gk_sample gives -1 for such a row, on the CPU and the GPU alike).
   pos: where the token would go; k: which new token it is */
static gk_status gk__llm_no_token(gk_llm *m, const char *W, int n, int i, int64_t k, int64_t pos, int32_t id) {
    char seq[32];
    seq[0] = 0;
    if (n > 1) snprintf(seq, sizeof seq, " of sequence %d", i);
    return gk_error_set(m->ctx, GK_ERR_FORMAT,
                        "%s: no token can be sampled for new token %lld%s (position %lld): its logits are NaN or -inf (sampled id %d); the weights hold NaN "
                        "or infinite values, or the activations overflowed the compute dtype",
                        W, (long long)k, seq, (long long)pos, (int)id);
}

static gk_status gk__llm_gen(gk_llm *m, const char *W, const int32_t *const *prompts, const size_t *lens, int n, const gk_llm_gen_desc *desc,
                             gk_ids *outs, gk_buf *texts, gk_llm_stats *stats) {
    gk_llm_gen_desc d;
    gk_sample_desc sd;
    gk__llm_seq *q = NULL;
    gk_stream *old;
    gk_status s = GK_OK, hs;
    gk__u_tl sv; /* the tokenizer's and buffers' errors go to m->ctx (doc.txt, ERRORS) */
    gk_tensor none = gk__u_tnull(), tokv = gk__u_tnull(), posv = gk__u_tnull(), lgv = gk__u_tnull(), histv = gk__u_tnull();
    int i, greedy, pen, active;
    int64_t max_new, total_prompt = 0, steps = 0;
    double t0, t1, t2;
    if (stats) memset(stats, 0, sizeof *stats);
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!prompts) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: prompts is NULL", W);
    if (!lens) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: lens is NULL", W);
    if (n < 1) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: n = %d prompts; at least 1 is needed", W, n);
    if (n > m->max_seqs) return gk_error_set(m->ctx, GK_ERR_LIMIT, "%s: %d prompts but the model was loaded with max_seqs %d", W, n, m->max_seqs);
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    if ((s = gk__llm_gen_check(m, W, &d)) != GK_OK) return s;
    for (i = 0; i < n; i++) {
        char what[32];
        if (!prompts[i] && lens[i]) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: prompts[%d] is NULL but lens[%d] is %llu", W, i, i, (unsigned long long)lens[i]);
        if (lens[i] == 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: prompt %d is empty (lens[%d] is 0)", W, i, i);
        if ((int64_t)lens[i] >= m->max_ctx)
            return gk_error_set(m->ctx, GK_ERR_LIMIT, "%s: prompt %d of %llu tokens leaves no room in the context of %lld tokens", W, i,
                                (unsigned long long)lens[i], (long long)m->max_ctx);
        snprintf(what, sizeof what, "prompts[%d]", i);
        if ((s = gk__llm_check_ids(m, W, what, prompts[i], lens[i])) != GK_OK) return s;
        total_prompt += (int64_t)lens[i];
    }
    memset(&sd, 0, sizeof sd);
    if (d.sampling == GK_LLM_SAMPLE_CUSTOM) sd = d.sample;
    else if (d.sampling == GK_LLM_SAMPLE_DEFAULT && m->cfg.do_sample) { sd = m->cfg.sample; sd.seed = d.seed; }
    pen = (sd.repetition_penalty != 0 && sd.repetition_penalty != 1) || sd.presence_penalty != 0 || sd.frequency_penalty != 0;
    greedy = sd.temperature <= 0 && !pen;
    max_new = d.max_new_tokens > 0 ? d.max_new_tokens : m->cfg.max_new_tokens > 0 ? m->cfg.max_new_tokens : 256;
    if (!(q = (gk__llm_seq *)gk__u_calloc((size_t)n, sizeof *q))) return gk_error_set(m->ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
    gk__u_tl_save(&sv);
    for (i = 0; i < n; i++) gk_tok_stream_init(&q[i].ts, m->tok, GK_TOK_SKIP_SPECIAL);
    gk__llm_set_stream(m, &old);
    t0 = gk__llm_now();
    s = gk_fill(m->ctx, m->d_hist, -1);
    for (i = 0; i < n && s == GK_OK; i++) {
        gk_tensor lg = gk__u_tnull(), tk = gk__u_tnull(), pv = gk__u_tnull();
        m->len[i] = 0;
        s = gk__llm_prefill(m, i, prompts[i], (int64_t)lens[i], 0, &lg);
        if (s == GK_OK && i == 0 && d.first_logits) s = gk__llm_logits_host(m, lg, d.first_logits, 1);
        if (s == GK_OK && i == 0 && d.step_logits) s = gk__llm_logits_host(m, lg, d.step_logits, 1);
        if (s == GK_OK && i == 0 && (d.first_logits || d.step_logits)) { /* on the host already: check them */
            char what[96];
            snprintf(what, sizeof what, "new token 0%s (position %lld)", n > 1 ? " of sequence 0" : "", (long long)lens[0]);
            s = gk__llm_check_finite(m, W, d.first_logits ? d.first_logits : d.step_logits, what);
        }
        if (s == GK_OK) s = gk_view_slice(m->ctx, m->d_tok, 0, i, i + 1, 1, &tk);
        if (s == GK_OK && pen) s = gk_view_slice(m->ctx, m->d_hist, 0, i, i + 1, 1, &pv);
        sd.step = (uint64_t)lens[i];
        if (s == GK_OK) s = gk_sample(m->ctx, tk, lg, pen ? pv : none, greedy ? NULL : &sd);
        gk__llm_free_t(m->ctx, &lg); gk__llm_free_t(m->ctx, &tk); gk__llm_free_t(m->ctx, &pv);
    }
    if (s == GK_OK) s = gk_view_slice(m->ctx, m->d_tok, 0, 0, n, 1, &tokv);
    if (s == GK_OK) s = gk_view_slice(m->ctx, m->d_pos, 0, 0, n, 1, &posv);
    if (s == GK_OK) s = gk_view_slice(m->ctx, m->a_logits, 0, 0, n, 1, &lgv);
    if (s == GK_OK) s = gk_view_slice(m->ctx, m->d_hist, 0, 0, n, 1, &histv);
    if (s == GK_OK) s = gk_copy_to_host(m->ctx, tokv, m->h_tok, sizeof(int32_t) * (size_t)n);
    t1 = gk__llm_now();
    if (s == GK_OK) {
        for (i = 0; i < n && s == GK_OK; i++)
            if (m->h_tok[i] < 0 || m->h_tok[i] >= m->cfg.vocab) s = gk__llm_no_token(m, W, n, i, 0, m->len[i], m->h_tok[i]);
        for (i = 0; i < n && s == GK_OK; i++) {
            m->h_pos[i] = (int32_t)m->len[i];
            gk__llm_take(m, &d, &q[i], i, m->h_tok[i], max_new, &sv);
        }
        if (s == GK_OK) s = gk_copy_from_host(m->ctx, posv, m->h_pos, sizeof(int32_t) * (size_t)n);
    }
    for (;;) {
        for (active = 0, i = 0; i < n; i++) active += !q[i].done;
        if (!active || s != GK_OK) break;
        s = gk__llm_decode(m, n, greedy);
        if (s == GK_OK && d.step_logits && !q[0].done) {
            gk_tensor row;
            s = gk_view_slice(m->ctx, m->a_logits, 0, 0, 1, 1, &row);
            if (s == GK_OK) {
                s = gk__llm_logits_host(m, row, d.step_logits + (size_t)q[0].nnew * (size_t)m->cfg.vocab, 1);
                gk_tensor_free(m->ctx, row);
            }
            if (s == GK_OK) {
                char what[96];
                snprintf(what, sizeof what, "new token %lld%s (position %lld)", (long long)q[0].nnew, n > 1 ? " of sequence 0" : "", (long long)(m->len[0] + 1));
                s = gk__llm_check_finite(m, W, d.step_logits + (size_t)q[0].nnew * (size_t)m->cfg.vocab, what);
            }
        }
        if (s == GK_OK && !greedy) {
            sd.step = (uint64_t)(m->len[0] + 1);
            s = gk_sample(m->ctx, tokv, lgv, pen ? histv : none, &sd);
        }
        if (s == GK_OK) s = gk_copy_to_host(m->ctx, tokv, m->h_tok, sizeof(int32_t) * (size_t)n);
        steps++;
        for (i = 0; i < n && s == GK_OK; i++) {
            m->len[i]++;
            /* the sampled ids come to the host every step: an invalid one (all-NaN logits) costs no extra sync to see */
            if (!q[i].done && (m->h_tok[i] < 0 || m->h_tok[i] >= m->cfg.vocab)) {
                s = gk__llm_no_token(m, W, n, i, q[i].nnew, m->len[i], m->h_tok[i]);
                break;
            }
            if (!q[i].done) gk__llm_take(m, &d, &q[i], i, m->h_tok[i], max_new, &sv);
            if (q[i].done && m->len[i] >= m->max_ctx - 1 && active > 1) {
                /* a finished sequence that keeps riding along: back to position 0 */
                int32_t zero = 0;
                gk_tensor pv;
                m->len[i] = 0;
                s = gk_view_slice(m->ctx, m->d_pos, 0, i, i + 1, 1, &pv);
                if (s == GK_OK) { s = gk_copy_from_host(m->ctx, pv, &zero, sizeof zero); gk_tensor_free(m->ctx, pv); }
            }
        }
    }
    t2 = gk__llm_now();
    gk__llm_free_t(m->ctx, &tokv); gk__llm_free_t(m->ctx, &posv); gk__llm_free_t(m->ctx, &lgv); gk__llm_free_t(m->ctx, &histv);
    if (s == GK_OK) s = gk_stream_sync(m->ctx, gk__llm_stream(m));
    gk_set_stream(m->ctx, old);
    for (i = 0; i < n && s == GK_OK; i++) /* before any output is appended */
        if (q[i].oom) s = gk_error_set(m->ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory for the tokens of sequence %d", W, i);
    for (i = 0; i < n; i++) {
        hs = GK_OK;
        if (s == GK_OK && q[i].done != 2 && gk_tok_stream_flush(&q[i].ts, &q[i].text) == GK_ERR_OUT_OF_MEMORY) hs = GK_ERR_OUT_OF_MEMORY;
        if (s == GK_OK && hs == GK_OK && outs) {
            size_t k;
            for (k = 0; k < q[i].ids.len && hs == GK_OK; k++) hs = gk_ids_push(&outs[i], q[i].ids.data[k]);
        }
        if (s == GK_OK && hs == GK_OK && texts && q[i].text.len) hs = gk_buf_append(&texts[i], q[i].text.data, q[i].text.len);
        if (s == GK_OK && hs != GK_OK) {
            char pre[64];
            snprintf(pre, sizeof pre, "%s: ", W);
            s = gk__u_tl_move(m->ctx, &sv, hs, pre);
        }
        if (stats) stats->new_tokens += q[i].nnew;
        gk_buf_free(&q[i].text);
        gk_ids_free(&q[i].ids);
    }
    gk__u_free(q);
    if (stats) {
        stats->prompt_tokens = total_prompt;
        stats->decode_steps = steps;
        stats->prefill_s = t1 - t0;
        stats->decode_s = t2 - t1;
        stats->prefill_tok_s = t1 > t0 ? (double)total_prompt / (t1 - t0) : 0;
        stats->decode_tok_s = t2 > t1 ? (double)(stats->new_tokens - n) / (t2 - t1) : 0;
    }
    return s;
}

GKLLMDEF gk_status gk_llm_generate_batch(gk_llm *m, const int32_t *const *prompts, const size_t *lens, int n, const gk_llm_gen_desc *desc,
                                         gk_ids *outs, gk_buf *texts, gk_llm_stats *stats) {
    return gk__llm_gen(m, "gk_llm_generate_batch", prompts, lens, n, desc, outs, texts, stats);
}

GKLLMDEF gk_status gk_llm_generate(gk_llm *m, const char *prompt, const gk_llm_gen_desc *desc, gk_ids *out, gk_buf *text, gk_llm_stats *stats) {
    const char *W = "gk_llm_generate";
    gk_ids ids = { 0, 0, 0 };
    const int32_t *p;
    size_t n;
    gk_status s;
    gk__u_tl sv;
    if (stats) memset(stats, 0, sizeof *stats);
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!prompt) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: prompt is NULL", W);
    gk__u_tl_save(&sv);
    s = gk_tokenizer_encode(m->tok, prompt, strlen(prompt), GK_TOK_ADD_SPECIAL, &ids);
    if (s != GK_OK) { gk_ids_free(&ids); return gk__u_tl_move(m->ctx, &sv, s, "gk_llm_generate: "); }
    if (ids.len == 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: the prompt \"%.40s\" gives no tokens", W, prompt);
    p = ids.data; n = ids.len;
    s = gk__llm_gen(m, W, &p, &n, 1, desc, out, text, stats);
    gk_ids_free(&ids);
    return s;
}

static gk_status gk__llm_chat_ids(gk_llm *m, const char *W, const gk_chat_message *msgs, size_t n, unsigned flags, gk_ids *out) {
    gk_buf b = { 0, 0, 0 };
    gk_status s;
    gk__u_tl sv;
    char pre[64];
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!out) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (!msgs && n) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: msgs is NULL but n is %llu", W, (unsigned long long)n);
    if (flags & ~(unsigned)(GK_LLM_GEN_IGNORE_EOS | GK_LLM_GEN_NO_THINKING))
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: flags = 0x%x has bits that are not GK_LLM_GEN_* flags", W, flags);
    if (!m->has_tmpl) return gk_error_set(m->ctx, GK_ERR_NOT_FOUND, "%s: the model folder has no chat template (no chat_template in tokenizer_config.json, no chat_template.jinja)", W);
    gk__u_tl_save(&sv);
    s = gk_chat_apply(&m->tmpl, msgs, n, GK_CHAT_ADD_GENERATION_PROMPT | ((flags & GK_LLM_GEN_NO_THINKING) ? GK_CHAT_NO_THINKING : 0), &b);
    if (s == GK_OK) s = gk_tokenizer_encode(m->tok, b.data ? b.data : "", b.len, 0, out);
    gk_buf_free(&b);
    snprintf(pre, sizeof pre, "%s: ", W);
    if (s != GK_OK) return gk__u_tl_move(m->ctx, &sv, s, pre);
    return GK_OK;
}

GKLLMDEF gk_status gk_llm_chat_ids(gk_llm *m, const gk_chat_message *msgs, size_t n, unsigned flags, gk_ids *out) {
    return gk__llm_chat_ids(m, "gk_llm_chat_ids", msgs, n, flags, out);
}

GKLLMDEF gk_status gk_llm_chat(gk_llm *m, const gk_chat_message *msgs, size_t n, const gk_llm_gen_desc *desc, gk_ids *out, gk_buf *text,
                               gk_llm_stats *stats) {
    gk_ids ids = { 0, 0, 0 };
    const int32_t *p;
    size_t len;
    gk_status s;
    if (stats) memset(stats, 0, sizeof *stats);
    s = gk__llm_chat_ids(m, "gk_llm_chat", msgs, n, desc ? desc->flags : 0, &ids);
    if (s != GK_OK) { gk_ids_free(&ids); return s; }
    p = ids.data; len = ids.len;
    s = gk__llm_gen(m, "gk_llm_chat", &p, &len, 1, desc, out, text, stats);
    gk_ids_free(&ids);
    return s;
}

