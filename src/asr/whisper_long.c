/* ======================================================================== */
/* >>impl_whisper_long                                                      */
/* ======================================================================== */

/* the first largest entry */
static int32_t gk__wl_argmax(const float *x, int64_t n) {
    int64_t i, b = 0;
    for (i = 1; i < n; i++)
        if (x[i] > x[b]) b = i;
    return (int32_t)b;
}

GKLLMDEF gk_status gk_whisper_transcribe_long(gk_whisper_model *m, const float *samples, size_t n, const gk_whisper_long_desc *desc, gk_whisper_segments *segs,
                                              gk_whisper_long_result *res) {
    const char *W = "gk_whisper_transcribe_long";
    gk_whisper_long_desc d;
    gk_whisper_long_result r;
    gk_whisper_prompt_desc pd;
    gk_whisper_filter_desc fd;
    const gk_whisper_config *cfg;
    const gk_whisper_tokens *T;
    const gk_tokenizer *tok;
    gk_ids all = {0, 0, 0}, prompt = {0, 0, 0}, sup = {0, 0, 0}, got = {0, 0, 0};
    gk_buf txt = {NULL, 0, 0};
    float *mel = NULL, *row = NULL, *lp = NULL;
    size_t seg0, reset_since = 0, sot_index = 0, sample_begin = 0, i;
    int64_t V, frames, seek = 0, max_ctx, steps, k, cnt;
    double total;
    gk_status s = GK_OK;
    gk__u_tl sv;
    char pre[160];
    if (res) memset(res, 0, sizeof *res);
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!segs) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: segs is NULL", W);
    if (!samples && n) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: samples is NULL but n is %llu", W, (unsigned long long)n);
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    T = gk_whisper_model_tokens(m);
    cfg = gk_whisper_get_config(m);
    tok = gk_whisper_model_tokenizer(m);
    max_ctx = gk_whisper_max_ctx(m);
    if (!T)
        return gk_error_set(m->ctx, GK_ERR_NOT_FOUND, "%s: the model folder names no special tokens (no tokenizer.json, no no_timestamps_token_id in generation_config.json, "
                            "vocab_size %lld is none of OpenAI's)", W, (long long)cfg->vocab);
    if (d.seq < 0 || d.seq >= gk_whisper_max_windows(m))
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_long_desc.seq = %d outside 0..%d", W, d.seq, gk_whisper_max_windows(m) - 1);
    if (d.max_tokens < 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_long_desc.max_tokens = %lld is negative", W, (long long)d.max_tokens);
    if (d.custom_suppress && !d.suppress && d.n_suppress)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_long_desc.suppress is NULL but n_suppress is %llu", W, (unsigned long long)d.n_suppress);
    if (!d.initial_prompt && d.n_initial_prompt)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_long_desc.initial_prompt is NULL but n_initial_prompt is %llu", W,
                            (unsigned long long)d.n_initial_prompt);
    for (i = 0; i < d.n_initial_prompt; i++)
        if (d.initial_prompt[i] < 0 || d.initial_prompt[i] >= cfg->vocab)
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_long_desc.initial_prompt[%llu] = %d is outside the vocabulary of %lld", W,
                                (unsigned long long)i, (int)d.initial_prompt[i], (long long)cfg->vocab);
    V = cfg->vocab;
    memset(&r, 0, sizeof r);
    frames = (int64_t)(n / 160); /* transcribe.py's content_frames */
    total = (double)frames / 100.0;
    r.duration = total;
    seg0 = segs->len;
    /* the language, the suppress list and a prompt check before any work */
    gk__u_tl_save(&sv);
    if (T->multilingual) {
        int32_t lid;
        s = gk_whisper_lang_id(T, d.language ? d.language : "en", &lid);
        if (s == GK_OK) r.language = gk_whisper_lang_of(T, lid);
    } else if (d.language && strcmp(d.language, "en") != 0 && strcmp(d.language, "english") != 0 && strcmp(d.language, "English") != 0) {
        s = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "language '%s': the model is English-only", d.language);
    }
    if (s == GK_OK) {
        static const int32_t non_speech = -1;
        const int32_t *ids = d.custom_suppress ? d.suppress : cfg->suppress_tokens;
        size_t ns = d.custom_suppress ? d.n_suppress : cfg->n_suppress_tokens;
        if (!d.custom_suppress && !cfg->suppress_tokens && tok) { ids = &non_speech; ns = 1; } /* whisper's default: "-1" */
        s = gk_whisper_suppress_list(T, ids, ns, tok, &sup);
    }
    if (s != GK_OK) {
        snprintf(pre, sizeof pre, "%s: ", W);
        s = gk__u_tl_move(m->ctx, &sv, s, pre);
        goto done;
    }
    if (frames == 0) goto finish;
    cnt = cfg->n_mels * GK_WHISPER_N_FRAMES;
    if (!(mel = (float *)gk__u_malloc(sizeof(float) * (size_t)cnt)) || !(row = (float *)gk__u_malloc(sizeof(float) * (size_t)V)) ||
        !(lp = (float *)gk__u_malloc(sizeof(float) * (size_t)V))) {
        s = gk_error_set(m->ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
        goto done;
    }
    for (i = 0; i < d.n_initial_prompt && s == GK_OK; i++) s = gk_ids_push(&all, d.initial_prompt[i]);
    if (s != GK_OK) { s = gk_error_set(m->ctx, s, "%s: out of host memory", W); goto done; }
    memset(&fd, 0, sizeof fd);
    fd.without_timestamps = d.without_timestamps;
    fd.suppress = sup.data;
    fd.n_suppress = sup.len;
    fd.no_suppress_blank = cfg->begin_suppress_tokens != NULL; /* as gk_whisper_transcribe: HF's begin_suppress_tokens replace SuppressBlank */
    fd.max_initial_timestamp = cfg->max_initial_timestamp_index < 0 ? -1.0 : (double)cfg->max_initial_timestamp_index * 0.02;
    if (cfg->max_initial_timestamp_index == 0) fd.max_initial_timestamp = 1e-9;
    steps = d.max_tokens > 0 ? d.max_tokens : cfg->n_text_ctx / 2;
    while (seek < frames) {
        gk_whisper_window w;
        int64_t size = frames - seek < GK_WHISPER_N_FRAMES ? frames - seek : GK_WHISPER_N_FRAMES;
        size_t off = (size_t)seek * 160, len = (size_t)size * 160, first;
        double sum = 0, nsp;
        int32_t tk = 0;
        int is_eot = 0;
        if (off + len > n) len = n - off;
        snprintf(pre, sizeof pre, "%s: window at %lld.%02lld s: ", W, (long long)(seek / 100), (long long)(seek % 100));
        /* features, encoder */
        if ((s = gk_whisper_mel(m, samples + off, len, mel)) != GK_OK) goto window_err;
        if ((s = gk_whisper_encode(m, mel, 1, d.seq, NULL)) != GK_OK) goto window_err;
        /* the prompt: the previous text since the last reset */
        memset(&pd, 0, sizeof pd);
        pd.language = r.language;
        pd.translate = d.translate;
        pd.without_timestamps = d.without_timestamps;
        pd.prompt = all.data + reset_since;
        pd.n_prompt = all.len - reset_since;
        pd.n_text_ctx = max_ctx;
        pd.sample_len = d.max_tokens;
        gk__u_tl_save(&sv);
        if ((s = gk_whisper_prompt(T, &pd, &prompt, &sot_index, &sample_begin)) != GK_OK) { s = gk__u_tl_move(m->ctx, &sv, s, pre); goto done; }
        if ((int64_t)prompt.len >= max_ctx) {
            s = gk_error_set(m->ctx, GK_ERR_LIMIT, "%sthe prompt of %llu tokens leaves no room in the context of %lld tokens", pre, (unsigned long long)prompt.len,
                             (long long)max_ctx);
            goto done;
        }
        /* through the SOT row (its logits give the no-speech probability), then the rest */
        if ((s = gk_whisper_decode(m, d.seq, prompt.data, sot_index + 1, 0, row)) != GK_OK) goto window_err;
        nsp = NAN;
        gk__u_tl_save(&sv);
        if (T->no_speech < 0 || gk_whisper_no_speech_prob(T, row, &nsp) != GK_OK) nsp = NAN;
        gk__u_tl_restore(&sv);
        if (prompt.len > sot_index + 1 && (s = gk_whisper_decode(m, d.seq, prompt.data + sot_index + 1, prompt.len - sot_index - 1, 0, row)) != GK_OK) goto window_err;
        got.len = 0;
        for (k = 0; k < steps; k++) {
            gk__u_tl_save(&sv);
            s = GK_OK;
            if (k == 0 && cfg->begin_suppress_tokens) s = gk_whisper_suppress(row, V, cfg->begin_suppress_tokens, cfg->n_begin_suppress_tokens);
            if (s == GK_OK) s = gk_whisper_filter(T, &fd, got.data, got.len, row);
            if (s == GK_OK) tk = gk__wl_argmax(row, V);
            if (s == GK_OK) s = gk_whisper_log_softmax(row, V, lp);
            if (s != GK_OK) {
                char p2[200];
                snprintf(p2, sizeof p2, "%sstep %lld: ", pre, (long long)k);
                s = gk__u_tl_move(m->ctx, &sv, s, p2);
                goto done;
            }
            if (tk == T->eot) { is_eot = 1; break; }
            sum += (double)lp[tk];
            if ((s = gk_ids_push(&got, tk)) != GK_OK) { gk__u_tl_restore(&sv); s = gk_error_set(m->ctx, s, "%sout of host memory", pre); goto done; }
            if (k + 1 == steps || gk_whisper_seq_len(m, d.seq) >= max_ctx) break;
            if ((s = gk_whisper_decode(m, d.seq, &tk, 1, 0, row)) != GK_OK) goto window_err;
        }
        (void)is_eot;
        r.windows++;
        r.sampled += (int64_t)got.len;
        memset(&w, 0, sizeof w);
        w.no_speech_prob = nsp;
        w.seek = seek;
        w.segment_size = size;
        w.temperature = 0.0;
        w.avg_logprob = gk_whisper_avg_logprob(sum, got.len);
        w.compression_ratio = NAN;
        if (tok) { /* decoding.py's compression ratio of the text (zlib missing: NaN) */
            gk_ids tx = {0, 0, 0};
            gk__u_tl_save(&sv);
            for (i = 0, s = GK_OK; i < got.len && s == GK_OK; i++)
                if (got.data[i] < T->eot) s = gk_ids_push(&tx, got.data[i]);
            txt.len = 0;
            if (s == GK_OK) s = gk_tokenizer_decode(tok, tx.data, tx.len, 0, &txt);
            if (s == GK_OK && gk_whisper_compression_ratio(txt.data ? txt.data : "", txt.len, &w.compression_ratio) != GK_OK) w.compression_ratio = NAN;
            gk_ids_free(&tx);
            if (s != GK_OK) { s = gk__u_tl_move(m->ctx, &sv, s, pre); goto done; }
            gk__u_tl_restore(&sv);
        }
        if (gk_whisper_is_no_speech(&d.thresholds, w.no_speech_prob, w.avg_logprob)) { /* silence: skip the window */
            r.skipped++;
            seek += size;
        } else {
            gk__u_tl_save(&sv);
            s = gk_whisper_segments_add(T, tok, &w, got.data, got.len, segs);
            if (s != GK_OK) { s = gk__u_tl_move(m->ctx, &sv, s, pre); goto done; }
            first = w.first;
            if (w.next_seek <= seek) w.next_seek = seek + size; /* a window that does not advance moves by its length */
            seek = w.next_seek;
            /* the previous text: the tokens of this window's segments */
            for (; first < segs->len && s == GK_OK; first++)
                for (i = 0; i < segs->data[first].n_tokens && s == GK_OK; i++) s = gk_ids_push(&all, segs->data[first].tokens[i]);
            if (s != GK_OK) { s = gk_error_set(m->ctx, s, "%sout of host memory", pre); goto done; }
            if (d.no_condition) reset_since = all.len; /* temperature is always 0 here: no reset for > 0.5 */
        }
        if (d.progress) d.progress((double)(seek < frames ? seek : frames) / 100.0, total, d.user);
        continue;
    window_err:
        /* the model's calls set the context's error: name the window in front of it */
        {
            const char *msg = gk_last_error(m->ctx);
            char *cp = gk__u_strndup(msg ? msg : "", msg ? strlen(msg) : 0);
            s = gk_error_set(m->ctx, s, "%s%s", pre, cp ? cp : "");
            gk__u_free(cp);
        }
        goto done;
    }
finish:
    if (res) *res = r;
done:
    if (s != GK_OK) gk__wh_segs_truncate(segs, seg0);
    gk_ids_free(&all);
    gk_ids_free(&prompt);
    gk_ids_free(&sup);
    gk_ids_free(&got);
    gk_buf_free(&txt);
    gk__u_free(mel);
    gk__u_free(row);
    gk__u_free(lp);
    return s;
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
