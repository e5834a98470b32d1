/* ======================================================================== */
/* >>impl_whisper_long                                                      */
/* ======================================================================== */
/* The transcribe loop as a batch: each input is a job that walks its audio
   window by window; the jobs' current windows sit in the model's windows
   seq..seq+k-1 and their decoding rows step together (gk_whisper_decode_step).
   A job's window goes: new (features, encoder, language) -> attempt
   (prompt, search at one temperature) -> decoding (steps) -> accepted
   (segments, words, seek) or the next attempt. */

enum { GK__WL_NEW = 0, GK__WL_ATTEMPT, GK__WL_DECODING, GK__WL_DONE };

typedef struct gk__wl_job {
    const float *samples;
    size_t n;
    int64_t frames, seek, size;        /* mel frames; the window's first frame and its frames */
    int window;                        /* model window (rows window * B ..) */
    int state, attempt;
    gk_ids all;                        /* previous text: tokens of the accepted segments */
    size_t reset_since;
    int32_t lang;                      /* the language token (-1: English-only) */
    double last_speech;                /* word timestamps: the end of the last speech */
    gk_whisper_search *search;
    double temperature, nsp;
    size_t sot_index, sample_begin, prompt_len;
    gk_whisper_segments *segs;
    size_t seg0;
    gk_whisper_long_result r;
} gk__wl_job;

typedef struct gk__wl {
    gk_whisper_model *m;
    const gk_whisper_long_desc *d;
    const gk_whisper_config *cfg;
    const gk_whisper_tokens *T;
    const gk_tokenizer *tok;
    gk_whisper_filter_desc fd;
    gk_ids sup, prompt, tmp;
    gk_buf txt;
    int64_t V, max_ctx, steps;
    int B, k;                          /* rows per window; windows in use */
    float *mel, *lg, *lp;              /* features; a window's prompt logits [B][V]; filtered rows [B][V] */
    int32_t *ids;
    int *owner;                        /* per window in use: the job in it, -1 none */
    double done_s, total_s;
} gk__wl;

static gk_status gk__wl_fail(gk__wl *w, const gk__wl_job *j, int idx, gk_status s) {
    const char *msg = gk_last_error(w->m->ctx);
    char *cp = gk__u_strndup(msg ? msg : "", msg ? strlen(msg) : 0);
    s = gk_error_set(w->m->ctx, s, "gk_whisper_transcribe_batch: input %d, window at %lld.%02lld s: %s", idx, (long long)(j->seek / 100), (long long)(j->seek % 100),
                     cp ? cp : "");
    gk__u_free(cp);
    return s;
}
/* a context-free rule's error (thread-local) onto the context, naming the input and window */
static gk_status gk__wl_move(gk__wl *w, const gk__wl_job *j, int idx, gk__u_tl *sv, gk_status s) {
    char pre[160];
    snprintf(pre, sizeof pre, "gk_whisper_transcribe_batch: input %d, window at %lld.%02lld s: ", idx, (long long)(j->seek / 100), (long long)(j->seek % 100));
    return gk__u_tl_move(w->m->ctx, sv, s, pre);
}

/* features and encoder of job j's next window; the language on its first */
static gk_status gk__wl_new_window(gk__wl *w, gk__wl_job *j, int idx) {
    gk_whisper_model *m = w->m;
    size_t off = (size_t)j->seek * 160, len;
    gk_status s;
    j->size = j->frames - j->seek < GK_WHISPER_N_FRAMES ? j->frames - j->seek : GK_WHISPER_N_FRAMES;
    len = (size_t)j->size * 160;
    if (off + len > j->n) len = j->n - off;
    if ((s = gk_whisper_mel(m, j->samples + off, len, w->mel)) != GK_OK) return gk__wl_fail(w, j, idx, s);
    if ((s = gk_whisper_encode(m, w->mel, 1, j->window, NULL)) != GK_OK) return gk__wl_fail(w, j, idx, s);
    if (j->lang == -2) { /* detect: the logits after <|startoftranscript|> over the language tokens (decoding.py's detect_language) */
        int row = j->window * w->B, best = 0;
        gk__u_tl sv;
        if ((s = gk_whisper_decode(m, row, &w->T->sot, 1, 0, w->lg)) != GK_OK) return gk__wl_fail(w, j, idx, s);
        gk_whisper_reset(m, row);
        gk__u_tl_save(&sv);
        if ((s = gk_whisper_detect_language(w->T, w->lg, NULL, &best)) != GK_OK) return gk__wl_move(w, j, idx, &sv, s);
        j->lang = w->T->lang[best];
    }
    j->r.language = j->lang >= 0 ? gk_whisper_lang_of(w->T, j->lang) : NULL;
    j->attempt = 0;
    j->state = GK__WL_ATTEMPT;
    return GK_OK;
}

/* the filters and one search step on the rows' raw logits (lg: [rows][V]) and their log-sum-exp (lse NULL: computed
   here); reorders the rows */
static gk_status gk__wl_search_step(gk__wl *w, gk__wl_job *j, int idx, const float *lg, const float *lse, int first, int *done) {
    gk_whisper_model *m = w->m;
    int r, rows = gk_whisper_search_rows(j->search), ident = 1;
    gk__u_tl sv;
    gk_status s = GK_OK;
    int32_t tk[16], par[16];
    double lf[16] = {0};
    gk__u_tl_save(&sv);
    for (r = 0; r < rows && s == GK_OK; r++) {
        const float *raw = lg + (size_t)r * (size_t)w->V;
        float *row = w->lp + (size_t)r * (size_t)w->V;
        const int32_t *toks;
        size_t nt;
        memcpy(row, raw, sizeof(float) * (size_t)w->V);
        toks = gk_whisper_search_tokens(j->search, r, &nt);
        if (first && w->cfg->begin_suppress_tokens) s = gk_whisper_suppress(row, w->V, w->cfg->begin_suppress_tokens, w->cfg->n_begin_suppress_tokens);
        if (s == GK_OK) s = gk_whisper_filter(w->T, &w->fd, toks, nt, row);
        if (s == GK_OK) s = gk_whisper_filtered_lse(raw, row, w->V, lse ? (double)lse[r] : gk__wh_lse(raw, 0, w->V), &lf[r]);
    }
    if (s == GK_OK) s = gk_whisper_search_step_lse(j->search, w->lp, lf, tk, par, done);
    if (s != GK_OK) return gk__wl_move(w, j, idx, &sv, s);
    for (r = 0; r < rows; r++) {
        w->ids[(j->window - w->d->seq) * w->B + r] = tk[r];
        ident &= par[r] == r;
    }
    if (!ident) {
        int32_t src[16];
        for (r = 0; r < w->B; r++) src[r] = r < rows ? par[r] : r;
        if ((s = gk_whisper_reorder(m, j->window, src)) != GK_OK) return gk__wl_fail(w, j, idx, s);
    }
    return GK_OK;
}

/* a new attempt: the prompt on the window's first row, copied to the search's rows, and the first step */
static gk_status gk__wl_attempt(gk__wl *w, gk__wl_job *j, int idx) {
    gk_whisper_model *m = w->m;
    const gk_whisper_long_desc *d = w->d;
    gk_whisper_prompt_desc pd;
    gk_whisper_search_desc sd;
    int row = j->window * w->B, done = 0, r;
    gk__u_tl sv;
    gk_status s;
    j->temperature = gk_whisper_temperature(&d->thresholds, j->attempt);
    memset(&pd, 0, sizeof pd);
    pd.language = j->r.language;
    pd.translate = d->translate;
    pd.without_timestamps = d->without_timestamps;
    pd.prompt = j->all.data + j->reset_since;
    pd.n_prompt = j->all.len - j->reset_since;
    pd.n_text_ctx = w->max_ctx;
    pd.sample_len = d->max_tokens;
    memset(&sd, 0, sizeof sd);
    sd.vocab = w->V;
    sd.eot = w->T->eot;
    sd.temperature = (float)j->temperature;
    sd.beam_size = d->beam_size;
    sd.best_of = d->best_of;
    sd.patience = d->patience;
    sd.has_length_penalty = d->has_length_penalty;
    sd.length_penalty = d->length_penalty;
    sd.max_tokens = (int)w->steps;
    sd.seed = d->seed + (uint64_t)idx * 1000003u + (uint64_t)j->seek * 7919u + (uint64_t)j->attempt;
    gk_whisper_search_free(j->search);
    j->search = NULL;
    gk__u_tl_save(&sv);
    s = gk_whisper_prompt(w->T, &pd, &w->prompt, &j->sot_index, &j->sample_begin);
    if (s == GK_OK) s = gk_whisper_search_create(&sd, &j->search);
    if (s != GK_OK) return gk__wl_move(w, j, idx, &sv, s);
    if ((int64_t)w->prompt.len >= w->max_ctx)
        return gk_error_set(m->ctx, GK_ERR_LIMIT, "gk_whisper_transcribe_batch: input %d: the prompt of %llu tokens leaves no room in the context of %lld tokens", idx,
                            (unsigned long long)w->prompt.len, (long long)w->max_ctx);
    j->prompt_len = w->prompt.len;
    /* through the SOT row (the no-speech probability), then the rest */
    gk_whisper_reset(m, row);
    if ((s = gk_whisper_decode(m, row, w->prompt.data, j->sot_index + 1, 0, w->lg)) != GK_OK) return gk__wl_fail(w, j, idx, s);
    gk__u_tl_save(&sv);
    if (w->T->no_speech < 0 || gk_whisper_no_speech_prob(w->T, w->lg, &j->nsp) != GK_OK) j->nsp = NAN;
    gk__u_tl_restore(&sv);
    if (w->prompt.len > j->sot_index + 1 &&
        (s = gk_whisper_decode(m, row, w->prompt.data + j->sot_index + 1, w->prompt.len - j->sot_index - 1, 0, w->lg)) != GK_OK)
        return gk__wl_fail(w, j, idx, s);
    /* every row of the search starts from the prompt */
    if (gk_whisper_search_rows(j->search) > 1) {
        int32_t src[16];
        for (r = 0; r < w->B; r++) src[r] = 0;
        if ((s = gk_whisper_reorder(m, j->window, src)) != GK_OK) return gk__wl_fail(w, j, idx, s);
        for (r = 1; r < gk_whisper_search_rows(j->search); r++) memcpy(w->lg + (size_t)r * (size_t)w->V, w->lg, sizeof(float) * (size_t)w->V);
    }
    if ((s = gk__wl_search_step(w, j, idx, w->lg, NULL, 1, &done)) != GK_OK) return s;
    j->state = done ? GK__WL_DONE : GK__WL_DECODING;
    return GK_OK;
}

/* word timestamps of the window's segments from segs->data[first..] */
static gk_status gk__wl_words(gk__wl *w, gk__wl_job *j, int idx, gk_whisper_window *win) {
    gk_whisper_model *m = w->m;
    const gk_whisper_long_desc *d = w->d;
    gk_whisper_words_desc wd;
    size_t i, t, text_row, nh, rows, n_text = 0;
    (void)gk_whisper_alignment_heads(m, &nh);
    double *probs = NULL;
    float *fp = NULL, *lg = NULL, *ww = NULL;
    gk__u_tl sv;
    gk_status s = GK_OK;
    /* [sot (+ language + task)] + <|notimestamps|> + the segments' text tokens + eot */
    w->tmp.len = 0;
    s = gk_ids_push(&w->tmp, w->T->sot);
    if (s == GK_OK && w->T->multilingual) s = gk_ids_push(&w->tmp, j->lang);
    if (s == GK_OK && w->T->multilingual) s = gk_ids_push(&w->tmp, d->translate ? w->T->translate : w->T->transcribe);
    text_row = w->tmp.len;
    if (s == GK_OK) s = gk_ids_push(&w->tmp, w->T->no_timestamps);
    for (i = win->first; i < j->segs->len && s == GK_OK; i++)
        for (t = 0; t < j->segs->data[i].n_tokens && s == GK_OK; t++)
            if (j->segs->data[i].tokens[t] < w->T->eot) { s = gk_ids_push(&w->tmp, j->segs->data[i].tokens[t]); n_text++; }
    if (s == GK_OK) s = gk_ids_push(&w->tmp, w->T->eot);
    if (s != GK_OK) return gk_error_set(m->ctx, s, "gk_whisper_transcribe_batch: out of host memory");
    rows = w->tmp.len;
    if (n_text == 0 || (int64_t)rows > w->max_ctx) return GK_OK; /* no words (or too many tokens to align: none either) */
    if (!(fp = (float *)gk__u_malloc(sizeof(float) * (n_text + 1))) || !(probs = (double *)gk__u_malloc(sizeof(double) * (n_text + 1))) ||
        !(lg = (float *)gk__u_malloc(sizeof(float) * rows * (size_t)w->V)) ||
        !(ww = (float *)gk__u_malloc(sizeof(float) * nh * rows * (size_t)w->cfg->n_audio_ctx))) {
        s = gk_error_set(m->ctx, GK_ERR_OUT_OF_MEMORY, "gk_whisper_transcribe_batch: out of host memory for the word timestamps");
        goto done;
    }
    if ((s = gk_whisper_cross_weights(m, j->window * w->B, w->tmp.data, rows, ww, lg)) != GK_OK) { s = gk__wl_fail(w, j, idx, s); goto done; }
    gk__u_tl_save(&sv);
    for (i = 0; i < n_text && s == GK_OK; i++) {
        s = gk_whisper_text_prob(w->T, lg + (text_row + i) * (size_t)w->V, w->tmp.data[text_row + 1 + i], &probs[i]);
        fp[i] = (float)probs[i];
    }
    if (s == GK_OK) {
        wd = d->words;
        if (!wd.language) wd.language = j->r.language;
        s = gk_whisper_add_words(w->T, w->tok, &wd, ww, (int)nh, (int64_t)rows, w->cfg->n_audio_ctx, text_row, fp, win, j->segs, &j->last_speech);
    }
    if (s != GK_OK) s = gk__wl_move(w, j, idx, &sv, s);
done:
    gk__u_free(fp);
    gk__u_free(probs);
    gk__u_free(lg);
    gk__u_free(ww);
    return s;
}

/* the search ended: fall back to the next temperature, or accept the window */
static gk_status gk__wl_finish(gk__wl *w, gk__wl_job *j, int idx) {
    gk_whisper_model *m = w->m;
    const gk_whisper_long_desc *d = w->d;
    gk_whisper_window win;
    double sum = 0, avg = 0, cr = NAN;
    size_t i, first;
    gk__u_tl sv;
    gk_status s;
    gk__u_tl_save(&sv);
    if ((s = gk_whisper_search_result(j->search, &w->tmp, &sum, &avg)) != GK_OK) return gk__wl_move(w, j, idx, &sv, s);
    if (w->tok) { /* decoding.py's compression ratio of the text (zlib missing: NaN) */
        gk_ids tx = {0, 0, 0};
        for (i = 0, s = GK_OK; i < w->tmp.len && s == GK_OK; i++)
            if (w->tmp.data[i] < w->T->eot) s = gk_ids_push(&tx, w->tmp.data[i]);
        w->txt.len = 0;
        if (s == GK_OK) s = gk_tokenizer_decode(w->tok, tx.data, tx.len, 0, &w->txt);
        if (s == GK_OK && gk_whisper_compression_ratio(w->txt.data ? w->txt.data : "", w->txt.len, &cr) != GK_OK) cr = NAN;
        gk_ids_free(&tx);
        if (s != GK_OK) return gk__wl_move(w, j, idx, &sv, s);
    }
    gk__u_tl_restore(&sv);
    if (gk_whisper_needs_fallback(&d->thresholds, cr, avg, j->nsp) && gk_whisper_temperature(&d->thresholds, j->attempt + 1) >= 0) {
        j->attempt++;
        j->r.fallbacks++;
        j->state = GK__WL_ATTEMPT;
        return GK_OK;
    }
    j->r.windows++;
    j->r.sampled += (int64_t)w->tmp.len;
    memset(&win, 0, sizeof win);
    win.seek = j->seek;
    win.segment_size = j->size;
    win.temperature = j->temperature;
    win.avg_logprob = avg;
    win.compression_ratio = cr;
    win.no_speech_prob = j->nsp;
    win.words = d->word_timestamps;
    if (gk_whisper_is_no_speech(&d->thresholds, j->nsp, avg)) { /* silence: skip the window */
        j->r.skipped++;
        w->done_s += (double)j->size / 100.0;
        j->seek += j->size;
    } else {
        gk__u_tl_save(&sv);
        if ((s = gk_whisper_segments_add(w->T, w->tok, &win, w->tmp.data, w->tmp.len, j->segs)) != GK_OK) return gk__wl_move(w, j, idx, &sv, s);
        if (win.words && (s = gk__wl_words(w, j, idx, &win)) != GK_OK) return s;
        if (win.next_seek <= j->seek) win.next_seek = j->seek + j->size; /* a window that does not advance moves by its length */
        w->done_s += (double)(win.next_seek - j->seek) / 100.0;
        j->seek = win.next_seek;
        for (first = win.first; first < j->segs->len && s == GK_OK; first++)
            for (i = 0; i < j->segs->data[first].n_tokens && s == GK_OK; i++) s = gk_ids_push(&j->all, j->segs->data[first].tokens[i]);
        if (s != GK_OK) return gk_error_set(m->ctx, s, "gk_whisper_transcribe_batch: out of host memory");
        if (d->no_condition || j->temperature > 0.5) j->reset_since = j->all.len;
    }
    if (d->progress) d->progress(w->done_s, w->total_s, d->user);
    j->state = j->seek < j->frames ? GK__WL_NEW : GK__WL_DONE + 1; /* DONE + 1: the job is over */
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_transcribe_batch(gk_whisper_model *m, const float *const *samples, const size_t *n, int count, const gk_whisper_long_desc *desc,
                                               gk_whisper_segments *segs, gk_whisper_long_result *res) {
    const char *W = "gk_whisper_transcribe_batch";
    gk_whisper_long_desc d;
    gk__wl w;
    gk__wl_job *jobs = NULL;
    gk__u_tl sv;
    gk_status s = GK_OK;
    int i, next = 0, need_rows;
    size_t t;
    if (res && count > 0) memset(res, 0, sizeof *res * (size_t)count);
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (count < 1) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: count is %d (at least one input)", W, count);
    if (!samples || !n || !segs) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", W, !samples ? "samples" : !n ? "n" : "segs");
    for (i = 0; i < count; i++)
        if (!samples[i] && n[i]) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: samples[%d] is NULL but n[%d] is %llu", W, i, i, (unsigned long long)n[i]);
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    memset(&w, 0, sizeof w);
    w.m = m;
    w.d = &d;
    w.T = gk_whisper_model_tokens(m);
    w.cfg = gk_whisper_get_config(m);
    w.tok = gk_whisper_model_tokenizer(m);
    w.max_ctx = gk_whisper_max_ctx(m);
    w.V = w.cfg->vocab;
    w.B = gk_whisper_max_beams(m);
    if (!w.T)
        return gk_error_set(m->ctx, GK_ERR_NOT_FOUND, "%s: the model folder names no special tokens (no tokenizer.json, no no_timestamps_token_id in generation_config.json, "
                            "vocab_size %lld is none of OpenAI's)", W, (long long)w.V);
    if (d.seq < 0 || d.seq >= gk_whisper_max_windows(m))
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_long_desc.seq = %d outside 0..%d", W, d.seq, gk_whisper_max_windows(m) - 1);
    if (d.max_tokens < 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_long_desc.max_tokens = %lld is negative", W, (long long)d.max_tokens);
    if (d.beam_size < 0 || d.best_of < 0)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_long_desc.%s = %d is negative", W, d.beam_size < 0 ? "beam_size" : "best_of",
                            d.beam_size < 0 ? d.beam_size : d.best_of);
    need_rows = d.beam_size > d.best_of ? d.beam_size : d.best_of;
    if (need_rows > w.B)
        return gk_error_set(m->ctx, GK_ERR_LIMIT, "%s: %s = %d needs %d decoder rows per window; the model was loaded with max_beams %d (gk_whisper_desc.max_beams)", W,
                            d.beam_size >= d.best_of ? "beam_size" : "best_of", need_rows, need_rows, w.B);
    if (d.custom_suppress && !d.suppress && d.n_suppress)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_long_desc.suppress is NULL but n_suppress is %llu", W, (unsigned long long)d.n_suppress);
    if (d.word_timestamps && !w.tok)
        return gk_error_set(m->ctx, GK_ERR_NOT_FOUND, "%s: word_timestamps needs the model folder's tokenizer.json (the words are split from the decoded text)", W);
    if (!d.initial_prompt && d.n_initial_prompt)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_long_desc.initial_prompt is NULL but n_initial_prompt is %llu", W,
                            (unsigned long long)d.n_initial_prompt);
    for (t = 0; t < d.n_initial_prompt; t++)
        if (d.initial_prompt[t] < 0 || d.initial_prompt[t] >= w.V)
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_long_desc.initial_prompt[%llu] = %d is outside the vocabulary of %lld", W,
                                (unsigned long long)t, (int)d.initial_prompt[t], (long long)w.V);
    w.k = gk_whisper_max_windows(m) - d.seq < count ? gk_whisper_max_windows(m) - d.seq : count;
    w.steps = d.max_tokens > 0 ? d.max_tokens : w.cfg->n_text_ctx / 2;
    if (!(jobs = (gk__wl_job *)gk__u_calloc((size_t)count, sizeof *jobs))) return gk_error_set(m->ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
    for (i = 0; i < count; i++) jobs[i].seg0 = segs[i].len;
    /* the language and the suppress list before any work */
    {
        int32_t lang = -1;
        gk__u_tl_save(&sv);
        if (w.T->multilingual) {
            if (d.language) s = gk_whisper_lang_id(w.T, d.language, &lang);
            else lang = -2; /* detected on each input's first window */
        } else if (d.language && strcmp(d.language, "en") != 0 && strcmp(d.language, "english") != 0 && strcmp(d.language, "English") != 0) {
            s = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "language '%s': the model is English-only", d.language);
        }
        if (s == GK_OK) {
            static const int32_t non_speech = -1;
            const int32_t *ids = d.custom_suppress ? d.suppress : w.cfg->suppress_tokens;
            size_t ns = d.custom_suppress ? d.n_suppress : w.cfg->n_suppress_tokens;
            if (!d.custom_suppress && !w.cfg->suppress_tokens && w.tok) { ids = &non_speech; ns = 1; } /* whisper's default: "-1" */
            s = gk_whisper_suppress_list(w.T, ids, ns, w.tok, &w.sup);
        }
        if (s != GK_OK) {
            char pre[64];
            snprintf(pre, sizeof pre, "%s: ", W);
            s = gk__u_tl_move(m->ctx, &sv, s, pre);
            goto done;
        }
        for (i = 0; i < count; i++) {
            gk__wl_job *j = &jobs[i];
            j->samples = samples[i];
            j->n = n[i];
            j->frames = (int64_t)(n[i] / 160); /* transcribe.py's content_frames */
            j->r.duration = (double)j->frames / 100.0;
            j->lang = lang;
            j->window = -1;
            j->segs = &segs[i];
            j->state = j->frames > 0 ? GK__WL_NEW : GK__WL_DONE + 1;
            w.total_s += j->r.duration;
            for (t = 0; t < d.n_initial_prompt && s == GK_OK; t++) s = gk_ids_push(&j->all, d.initial_prompt[t]);
        }
        if (s != GK_OK) { s = gk_error_set(m->ctx, s, "%s: out of host memory", W); goto done; }
    }
    memset(&w.fd, 0, sizeof w.fd);
    w.fd.without_timestamps = d.without_timestamps;
    w.fd.suppress = w.sup.data;
    w.fd.n_suppress = w.sup.len;
    w.fd.no_suppress_blank = w.cfg->begin_suppress_tokens != NULL; /* as gk_whisper_transcribe: HF's begin_suppress_tokens replace SuppressBlank */
    w.fd.max_initial_timestamp = w.cfg->max_initial_timestamp_index < 0 ? -1.0 : (double)w.cfg->max_initial_timestamp_index * 0.02;
    if (w.cfg->max_initial_timestamp_index == 0) w.fd.max_initial_timestamp = 1e-9;
    if (!(w.mel = (float *)gk__u_malloc(sizeof(float) * (size_t)(w.cfg->n_mels * GK_WHISPER_N_FRAMES))) ||
        !(w.lg = (float *)gk__u_malloc(sizeof(float) * (size_t)w.B * (size_t)w.V)) || !(w.lp = (float *)gk__u_malloc(sizeof(float) * (size_t)w.B * (size_t)w.V)) ||
        !(w.ids = (int32_t *)gk__u_malloc(sizeof(int32_t) * (size_t)(w.k * w.B))) || !(w.owner = (int *)gk__u_malloc(sizeof(int) * (size_t)w.k))) {
        s = gk_error_set(m->ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
        goto done;
    }
    /* the windows d.seq.. go to the first inputs; a window whose job ends takes the next input */
    {
        int *owner = w.owner, slot;
        for (slot = 0; slot < w.k; slot++) owner[slot] = -1;
        for (;;) {
            int any = 0, first_dec = -1, last_dec = -1;
            if (d.cancel && d.cancel(d.user)) {
                s = gk_error_set(m->ctx, GK_ERR_CANCELLED, "%s: cancelled by gk_whisper_long_desc.cancel after %.2f of %.2f s of audio", W, w.done_s, w.total_s);
                break;
            }
            for (slot = 0; slot < w.k && s == GK_OK; slot++) {
                gk__wl_job *j;
                while (owner[slot] < 0 || jobs[owner[slot]].state > GK__WL_DONE) { /* a free window: the next input that has audio */
                    while (next < count && jobs[next].state > GK__WL_DONE) next++;
                    if (next >= count) { owner[slot] = -1; break; }
                    owner[slot] = next;
                    jobs[next].window = d.seq + slot;
                    next++;
                }
                if (owner[slot] < 0) continue;
                any = 1;
                j = &jobs[owner[slot]];
                if (j->state == GK__WL_NEW) s = gk__wl_new_window(&w, j, owner[slot]);
                if (s == GK_OK && j->state == GK__WL_ATTEMPT) s = gk__wl_attempt(&w, j, owner[slot]);
                if (s == GK_OK && j->state == GK__WL_DONE) s = gk__wl_finish(&w, j, owner[slot]);
                if (s == GK_OK && j->state == GK__WL_DECODING) {
                    if (first_dec < 0) first_dec = slot;
                    last_dec = slot;
                }
            }
            if (s != GK_OK || !any) break;
            if (first_dec < 0) continue;
            /* one step of every decoding window's rows (the others' rows are skipped) */
            {
                int r0 = (d.seq + first_dec) * w.B, nr = (last_dec - first_dec + 1) * w.B;
                const float *slg = NULL, *slse = NULL;
                int32_t *ids = w.ids + first_dec * w.B;
                for (slot = first_dec; slot <= last_dec; slot++) {
                    int r, rows = 0;
                    if (owner[slot] >= 0 && jobs[owner[slot]].state == GK__WL_DECODING) {
                        gk__wl_job *j = &jobs[owner[slot]];
                        rows = gk_whisper_search_rows(j->search);
                        if (gk_whisper_seq_len(m, j->window * w.B) >= w.max_ctx) { j->state = GK__WL_DONE; rows = 0; } /* the context is full: take the result */
                    }
                    for (r = rows; r < w.B; r++) w.ids[slot * w.B + r] = -1;
                }
                if ((s = gk_whisper_decode_step(m, r0, nr, ids, NULL, NULL)) != GK_OK) { s = gk__wl_fail(&w, &jobs[owner[first_dec]], owner[first_dec], s); break; }
                gk_whisper_step_logits(m, &slg, &slse);
                for (slot = first_dec; slot <= last_dec && s == GK_OK; slot++) {
                    gk__wl_job *j;
                    int dn = 0;
                    if (owner[slot] < 0) continue;
                    j = &jobs[owner[slot]];
                    if (j->state != GK__WL_DECODING) continue;
                    s = gk__wl_search_step(&w, j, owner[slot], slg + (size_t)(slot - first_dec) * (size_t)w.B * (size_t)w.V, slse + (slot - first_dec) * w.B, 0, &dn);
                    if (s == GK_OK && dn) j->state = GK__WL_DONE;
                }
            }
        }
    }
    if (s == GK_OK && res)
        for (i = 0; i < count; i++) res[i] = jobs[i].r;
done:
    for (i = 0; i < count; i++) {
        if (s != GK_OK) gk__wh_segs_truncate(&segs[i], jobs[i].seg0);
        gk_ids_free(&jobs[i].all);
        gk_whisper_search_free(jobs[i].search);
    }
    gk__u_free(jobs);
    gk_ids_free(&w.sup);
    gk_ids_free(&w.prompt);
    gk_ids_free(&w.tmp);
    gk_buf_free(&w.txt);
    gk__u_free(w.mel); gk__u_free(w.lg); gk__u_free(w.lp); gk__u_free(w.ids); gk__u_free(w.owner);
    return s;
}

GKLLMDEF gk_status gk_whisper_transcribe_long(gk_whisper_model *m, const float *samples, size_t n, const gk_whisper_long_desc *desc, gk_whisper_segments *segs,
                                              gk_whisper_long_result *res) {
    if (res) memset(res, 0, sizeof *res);
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "gk_whisper_transcribe_long: m is NULL");
    if (!segs) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_transcribe_long: segs is NULL");
    if (!samples && n) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_transcribe_long: samples is NULL but n is %llu", (unsigned long long)n);
    {
        static const float none = 0;
        const float *p = samples ? samples : &none;
        return gk_whisper_transcribe_batch(m, &p, &n, 1, desc, segs, res);
    }
}

GKLLMDEF gk_status gk_whisper_transcribe_long_audio(gk_whisper_model *m, const gk_audio *a, const gk_whisper_long_desc *desc, gk_whisper_segments *segs,
                                                    gk_whisper_long_result *res) {
    if (res) memset(res, 0, sizeof *res);
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "gk_whisper_transcribe_long_audio: m is NULL");
    if (!a) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_transcribe_long_audio: a is NULL");
    if (a->rate != 16000)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT,
                            "gk_whisper_transcribe_long_audio: the audio is at %d Hz; Whisper takes 16000 Hz (gk_audio_from_wav resamples to it)", a->rate);
    return gk_whisper_transcribe_long(m, a->samples, a->n, desc, segs, res);
}
