/* ======================================================================== */
/* >>impl_kokoro_speak                                                      */
/* ======================================================================== */

/* the model's error on the context, with the chunk named in front */
static gk_status gk__ks_fail(gk_ctx *ctx, gk_status s, const gk_kokoro_chunks *c, size_t i) {
    const char *msg = gk_last_error(ctx);
    char *cp = gk__u_strndup(msg ? msg : "", msg ? strlen(msg) : 0);
    s = gk_error_set(ctx, s, "gk_kokoro_speak: chunk %llu of %llu (bytes %llu..%llu): %s", (unsigned long long)(i + 1), (unsigned long long)c->n,
                     (unsigned long long)c->chunk[i].text_begin, (unsigned long long)c->chunk[i].text_end, cp ? cp : "");
    gk__u_free(cp);
    return s;
}

GKLLMDEF gk_status gk_kokoro_speak(gk_kokoro_model *m, const gk_kokoro_vocab *vocab, const char *text, size_t len, const gk_kokoro_speak_desc *desc,
                                   gk_audio *out, gk_kokoro_speak_result *res) {
    const char *W = "gk_kokoro_speak";
    gk_kokoro_chunk_desc cd;
    gk_kokoro_chunks ch;
    gk_kokoro_speak_result r;
    gk_ids ids = {0, 0, 0};
    float *all = NULL;
    size_t n_all = 0, cap = 0, i;
    gk_status s;
    gk_ctx *ctx;
    gk__u_tl sv;
    memset(&ch, 0, sizeof ch);
    memset(&r, 0, sizeof r);
    if (out) memset(out, 0, sizeof *out);
    if (res) memset(res, 0, sizeof *res);
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    ctx = m->ctx;
    if (!vocab) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "%s: vocab is NULL (gk_kokoro_vocab_load of the model folder)", W);
    if (!desc || !desc->voice) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_kokoro_speak_desc.voice is NULL (gk_kokoro_voice_load)", W);
    if (!text && len) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "%s: text is NULL but len is %llu", W, (unsigned long long)len);
    if (!desc->phonemes && !desc->espeak)
        return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_kokoro_speak_desc.espeak is NULL: text needs espeak-ng (gk_espeak_create), or give phonemes "
                            "(gk_kokoro_speak_desc.phonemes = 1)", W);
    memset(&cd, 0, sizeof cd);
    cd.language = desc->language;
    cd.flags = desc->chunk_flags;
    gk__u_tl_save(&sv);
    s = desc->phonemes ? gk_kokoro_phoneme_chunks(&cd, text ? text : "", len, &ch) : gk_kokoro_text_chunks(desc->espeak, &cd, text ? text : "", len, &ch);
    if (s != GK_OK) return gk__u_tl_move(ctx, &sv, s, "gk_kokoro_speak: ");
    for (i = 0; i < ch.n && s == GK_OK; i++) {
        const gk_kokoro_chunk *c = &ch.chunk[i];
        const float *style = NULL;
        gk_kokoro_synth_desc sd;
        gk_audio a;
        size_t nph = 0;
        int64_t frames = 0;
        memset(&a, 0, sizeof a);
        ids.len = 0;
        gk__u_tl_save(&sv);
        s = gk_kokoro_phonemes_to_ids(vocab, c->phonemes, c->phonemes_len, desc->id_flags, &ids, &nph);
        if (s == GK_OK && ids.len == 0) s = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "no phoneme of \"%.60s\" is in the vocabulary", c->phonemes);
        if (s == GK_OK) s = gk_kokoro_voice_style(desc->voice, nph ? nph : ids.len, &style);
        if (s != GK_OK) {
            char pre[128];
            snprintf(pre, sizeof pre, "%s: chunk %llu of %llu (bytes %llu..%llu): ", W, (unsigned long long)(i + 1), (unsigned long long)ch.n,
                     (unsigned long long)c->text_begin, (unsigned long long)c->text_end);
            s = gk__u_tl_move(ctx, &sv, s, pre);
            break;
        }
        memset(&sd, 0, sizeof sd);
        sd.speed = desc->speed;
        sd.noise = desc->noise;
        sd.seed = desc->seed + (uint64_t)i;
        sd.frames_out = &frames;
        if ((s = gk_kokoro_synthesize(m, ids.data, ids.len, style, &sd, &a)) != GK_OK) { s = gk__ks_fail(ctx, s, &ch, i); break; }
        r.chunks++;
        r.frames += frames;
        if (out && a.n) {
            if (n_all + a.n > cap) {
                size_t nc = cap ? cap : 1 << 16;
                float *p;
                while (nc < n_all + a.n) nc *= 2;
                if (nc > ((size_t)-1) / sizeof(float) || !(p = (float *)GPUKIT_REALLOC(all, nc * sizeof(float)))) {
                    gk_audio_free(&a);
                    s = gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory for %llu samples", W, (unsigned long long)(n_all + a.n));
                    break;
                }
                all = p;
                cap = nc;
            }
            memcpy(all + n_all, a.samples, sizeof(float) * a.n);
            n_all += a.n;
        }
        if (desc->on_audio) {
            gk_kokoro_chunk_info info;
            info.index = i;
            info.count = ch.n;
            info.text_begin = c->text_begin;
            info.text_end = c->text_end;
            info.phonemes = c->phonemes;
            info.frames = frames;
            if (desc->on_audio(a.samples, a.n, &info, desc->user) != 0)
                s = gk_error_set(ctx, GK_ERR_CANCELLED, "%s: the callback stopped the synthesis after chunk %llu of %llu", W, (unsigned long long)(i + 1),
                                 (unsigned long long)ch.n);
        }
        gk_audio_free(&a);
    }
    gk_ids_free(&ids);
    gk_kokoro_chunks_free(&ch);
    if (s != GK_OK) { gk__u_free(all); return s; }
    r.seconds = (double)r.frames * (double)gk_kokoro_get_config(m)->samples_per_frame / (double)GK_KOKORO_SAMPLE_RATE;
    if (out) {
        out->samples = all;
        out->n = n_all;
        out->rate = GK_KOKORO_SAMPLE_RATE;
    } else gk__u_free(all);
    if (res) *res = r;
    return GK_OK;
}
