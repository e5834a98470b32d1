/* >>signal_stft: STFT / iSTFT, Whisper log-mel, complex magnitude and phase */
/* ---- STFT / iSTFT / Whisper ---- */
static gk_status gk__stft_params(gk_ctx *ctx, int64_t n_fft, int64_t hop, const char *where) {
    if (n_fft < 2) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: n_fft %lld (needs at least 2)", where, (long long)n_fft);
    if (hop < 1) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: hop %lld (needs at least 1)", where, (long long)hop);
    return GK_OK;
}
/* frames of a signal of length L, or -1 (with the error set) */
static int64_t gk__stft_frames(gk_ctx *ctx, int64_t L, int64_t n_fft, int64_t hop, int center, const char *where) {
    int64_t pad = center ? n_fft / 2 : 0;
    if (center && L <= pad) {
        gk__err(ctx, GK_ERR_SHAPE, "%s: signal of %lld samples is too short for reflect padding of %lld (n_fft %lld)", where, (long long)L,
                (long long)pad, (long long)n_fft);
        return -1;
    }
    if (L + 2 * pad < n_fft) {
        gk__err(ctx, GK_ERR_SHAPE, "%s: n_fft %lld is larger than the padded signal (%lld samples)", where, (long long)n_fft, (long long)(L + 2 * pad));
        return -1;
    }
    return 1 + (L + 2 * pad - n_fft) / hop;
}
static gk_status gk__window_check(gk_ctx *ctx, const gk__slot *w, int64_t n_fft, const char *where) {
    if (w && (w->ndim != 1 || w->shape[0] != n_fft))
        return gk__err(ctx, GK_ERR_SHAPE, "%s: window has %lld elements in %d dims, expected [n_fft = %lld]", where, (long long)gk__numel(w), w->ndim,
                       (long long)n_fft);
    return GK_OK;
}
GKDEF gk_status gk_stft(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor window, int64_t n_fft, int64_t hop, int center) {
    static const char *const names[3] = { "out", "x", "window" };
    const char *where = "gk_stft";
    gk_tensor ts[3];
    gk__opnds ops;
    gk__fftp P;
    gk_status st;
    int64_t B = 1, L = 0, T = 0;
    ts[0] = out; ts[1] = x; ts[2] = window;
    GK__ENTER(ctx, where);
    memset(&P, 0, sizeof P);
    st = gk__fft_enter(ctx, &ops, ts, names, 3, 4u, where);
    if (st == GK_OK) st = gk__stft_params(ctx, n_fft, hop, where);
    if (st == GK_OK) st = gk__window_check(ctx, ops.s[2], n_fft, where);
    if (st == GK_OK) {
        const gk__slot *sx = ops.s[1], *so = ops.s[0];
        if (sx->ndim != 1 && sx->ndim != 2) st = gk__sg_shape_err(ctx, sx, "x", "[L] or [B, L]", where);
        else {
            B = sx->ndim == 2 ? sx->shape[0] : 1;
            L = sx->shape[sx->ndim - 1];
            T = gk__stft_frames(ctx, L, n_fft, hop, center, where);
            if (T < 0) st = GK_ERR_SHAPE;
            else {
                int64_t want[4];
                char wb[128];
                int nd = 0;
                if (sx->ndim == 2) want[nd++] = B;
                want[nd++] = n_fft / 2 + 1; want[nd++] = T; want[nd++] = 2;
                if (so->ndim != nd || memcmp(so->shape, want, sizeof(int64_t) * (size_t)nd) != 0) {
                    snprintf(wb, sizeof wb, "[%s%lld, %lld, 2]", sx->ndim == 2 ? "B, " : "", (long long)(n_fft / 2 + 1), (long long)T);
                    st = gk__sg_shape_err(ctx, so, "out", wb, where);
                }
            }
        }
    }
    if (st == GK_OK) st = gk__fft_plan(ctx, &P, n_fft, 0, where);
    if (st == GK_OK && B == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) {
        P.in_mode = GK__FI_FRAMES; P.out_mode = GK__FO_SPEC; P.scale = 1.0f; P.center = center != 0;
        P.batch = B * T; P.nframes = T; P.hop = hop; P.sig_len = L; P.sig_avail = L; P.sig_stride = L;
        st = gk__sg_use(ctx, &ops, where);
    }
    if (st == GK_OK)
        st = gk__fft_issue(ctx, &P, GK__SG_FFT, gk__slot_addr(ops.s[0]), gk__slot_addr(ops.s[1]), ops.s[2] ? gk__slot_addr(ops.s[2]) : 0, 0, 0, 0,
                           0, where);
    gk__sg_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_stft_new(gk_ctx *ctx, gk_tensor x, gk_tensor window, int64_t n_fft, int64_t hop, int center, gk_tensor *out) {
    int64_t s[GK_MAX_DIMS], add[3], T;
    int nd = 0;
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_stft_new: out is NULL");
    GK__TRY(gk__sg_shape(ctx, x, &nd, s, NULL, "x", "gk_stft_new"));
    gk__enter(ctx);
    if (gk__stft_params(ctx, n_fft, hop, "gk_stft_new") != GK_OK) T = -2;
    else if (nd < 1) { gk__err(ctx, GK_ERR_SHAPE, "gk_stft_new: x has no dims"); T = -1; }
    else T = gk__stft_frames(ctx, s[nd - 1], n_fft, hop, center, "gk_stft_new");
    gk__unlock(&ctx->mu);
    if (T == -2) return GK_ERR_INVALID_ARGUMENT;
    if (T < 0) return GK_ERR_SHAPE;
    add[0] = n_fft / 2 + 1; add[1] = T; add[2] = 2;
    GK__TRY(gk__sg_new_from(ctx, x, 1, 3, add, GK_F32, &t, NULL, NULL, "gk_stft_new"));
    return gk__finish_new(ctx, gk_stft(ctx, t, x, window, n_fft, hop, center), t, out);
}
GKDEF gk_status gk_istft(gk_ctx *ctx, gk_tensor out, gk_tensor spec, gk_tensor window, int64_t n_fft, int64_t hop, int center) {
    static const char *const names[3] = { "out", "spec", "window" };
    const char *where = "gk_istft";
    gk_tensor ts[3];
    gk__opnds ops;
    gk__fftp P;
    gk_status st;
    int64_t B = 1, T = 0, len = 0;
    ts[0] = out; ts[1] = spec; ts[2] = window;
    GK__ENTER(ctx, where);
    memset(&P, 0, sizeof P);
    st = gk__fft_enter(ctx, &ops, ts, names, 3, 4u, where);
    if (st == GK_OK) st = gk__stft_params(ctx, n_fft, hop, where);
    if (st == GK_OK) st = gk__window_check(ctx, ops.s[2], n_fft, where);
    if (st == GK_OK) {
        const gk__slot *sx = ops.s[1], *so = ops.s[0];
        int bat = sx->ndim == 4;
        if ((sx->ndim != 3 && sx->ndim != 4) || sx->shape[sx->ndim - 1] != 2 || sx->shape[sx->ndim - 3] != n_fft / 2 + 1)
            st = gk__sg_shape_err(ctx, sx, "spec", "[(B,) n_fft/2+1, frames, 2]", where);
        else if (so->ndim != 1 + bat || (bat && so->shape[0] != sx->shape[0]))
            st = gk__sg_shape_err(ctx, so, "out", bat ? "[B, length]" : "[length]", where);
        else {
            B = bat ? sx->shape[0] : 1;
            T = sx->shape[sx->ndim - 2];
            len = so->shape[so->ndim - 1];
            if (T < 1) st = gk__err(ctx, GK_ERR_SHAPE, "%s: spec has no frames", where);
            else if (hop > n_fft) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: hop %lld > n_fft %lld leaves gaps", where, (long long)hop, (long long)n_fft);
        }
    }
    if (st == GK_OK) st = gk__fft_plan(ctx, &P, n_fft, 1, where);
    if (st == GK_OK && (B == 0 || len == 0)) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) {
        P.in_mode = GK__FI_SPEC; P.out_mode = GK__FO_WREAL; P.scale = 1.0f / (float)n_fft; P.center = center != 0;
        P.batch = B * T; P.nframes = T; P.hop = hop;
        st = gk__sg_use(ctx, &ops, where);
    }
    if (st == GK_OK)
        st = gk__fft_issue(ctx, &P, GK__SG_ISTFT, gk__slot_addr(ops.s[0]), gk__slot_addr(ops.s[1]), ops.s[2] ? gk__slot_addr(ops.s[2]) : 0, 0, B,
                           len, 0, where);
    gk__sg_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_istft_new(gk_ctx *ctx, gk_tensor spec, gk_tensor window, int64_t n_fft, int64_t hop, int center, int64_t length,
                             gk_tensor *out) {
    int64_t s[GK_MAX_DIMS];
    int nd = 0;
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_istft_new: out is NULL");
    GK__TRY(gk__sg_shape(ctx, spec, &nd, s, NULL, "spec", "gk_istft_new"));
    if (length < 0) {
        int64_t T = nd >= 2 ? s[nd - 2] : 1;
        length = n_fft + hop * (T - 1) - 2 * (center ? n_fft / 2 : 0);
        if (length < 0) length = 0;
    }
    GK__TRY(gk__sg_new_from(ctx, spec, nd >= 3 ? 3 : nd, 1, &length, GK_F32, &t, NULL, NULL, "gk_istft_new"));
    return gk__finish_new(ctx, gk_istft(ctx, t, spec, window, n_fft, hop, center), t, out);
}

GKDEF gk_status gk_whisper_log_mel(gk_ctx *ctx, gk_tensor out, gk_tensor audio, gk_tensor filters, int64_t n_samples) {
    static const char *const names[3] = { "out", "audio", "filters" };
    const char *where = "gk_whisper_log_mel";
    gk_tensor ts[3];
    gk__opnds ops;
    gk__fftp P;
    gk_status st;
    int64_t B = 1, L = 0, T = 0, M = 0;
    ts[0] = out; ts[1] = audio; ts[2] = filters;
    GK__ENTER(ctx, where);
    memset(&P, 0, sizeof P);
    st = gk__fft_enter(ctx, &ops, ts, names, 3, 0, where);
    if (st == GK_OK) {
        const gk__slot *sx = ops.s[1], *so = ops.s[0], *sf = ops.s[2];
        if (sx->ndim != 1 && sx->ndim != 2) st = gk__sg_shape_err(ctx, sx, "audio", "[L] or [B, L]", where);
        else if (sf->ndim != 2 || sf->shape[1] != 201 || sf->shape[0] < 1 || sf->shape[0] > 4096)
            st = gk__sg_shape_err(ctx, sf, "filters", "[n_mels, 201]", where);
        else {
            B = sx->ndim == 2 ? sx->shape[0] : 1;
            L = sx->shape[sx->ndim - 1];
            M = sf->shape[0];
            if (n_samples <= 0) n_samples = L;
            if (n_samples <= 200)
                st = gk__err(ctx, GK_ERR_SHAPE, "%s: %lld samples are too few (at least 201 for the reflect padding of n_fft 400)", where, (long long)n_samples);
            else {
                int64_t want[3];
                char wb[128];
                int nd = 0;
                T = n_samples / 160;
                if (sx->ndim == 2) want[nd++] = B;
                want[nd++] = M; want[nd++] = T;
                if (so->ndim != nd || memcmp(so->shape, want, sizeof(int64_t) * (size_t)nd) != 0) {
                    snprintf(wb, sizeof wb, "[%s%lld, %lld]", sx->ndim == 2 ? "B, " : "", (long long)M, (long long)T);
                    st = gk__sg_shape_err(ctx, so, "out", wb, where);
                }
            }
        }
    }
    if (st == GK_OK) st = gk__fft_plan(ctx, &P, 400, 0, where);
    if (st == GK_OK && B == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) {
        P.in_mode = GK__FI_FRAMES; P.out_mode = GK__FO_POWER; P.scale = 1.0f; P.center = 1;
        P.batch = B * T; P.nframes = T; P.hop = 160; P.sig_len = n_samples; P.sig_avail = L < n_samples ? L : n_samples; P.sig_stride = L;
        st = gk__sg_use(ctx, &ops, where);
    }
    if (st == GK_OK)
        st = gk__fft_issue(ctx, &P, GK__SG_WMEL, gk__slot_addr(ops.s[0]), gk__slot_addr(ops.s[1]), 0, gk__slot_addr(ops.s[2]), B, 0, (int)M, where);
    gk__sg_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_whisper_log_mel_new(gk_ctx *ctx, gk_tensor audio, gk_tensor filters, int64_t n_samples, gk_tensor *out) {
    int64_t s[GK_MAX_DIMS], sf[GK_MAX_DIMS], add[2];
    int nd = 0, ndf = 0;
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_log_mel_new: out is NULL");
    GK__TRY(gk__sg_shape(ctx, audio, &nd, s, NULL, "audio", "gk_whisper_log_mel_new"));
    GK__TRY(gk__sg_shape(ctx, filters, &ndf, sf, NULL, "filters", "gk_whisper_log_mel_new"));
    if (n_samples <= 0) n_samples = nd > 0 ? s[nd - 1] : 0;
    add[0] = ndf > 0 ? sf[0] : 0;
    add[1] = n_samples / 160;
    GK__TRY(gk__sg_new_from(ctx, audio, nd > 0 ? 1 : 0, 2, add, GK_F32, &t, NULL, NULL, "gk_whisper_log_mel_new"));
    return gk__finish_new(ctx, gk_whisper_log_mel(ctx, t, audio, filters, n_samples), t, out);
}

/* ---- magnitude and phase ---- */
typedef struct gk__cabs_p { int64_t n; float *out; const float *z, *ph; int angle; } gk__cabs_p;
static int gk__cabs_cpu(const void *vp) {
    const gk__cabs_p *p = (const gk__cabs_p *)vp;
    int64_t i;
    if (p->angle == 2) { /* polar: out complex, z = magnitudes */
        for (i = 0; i < p->n; i++) {
            double ph = p->ph[i];
            p->out[2 * i] = (float)(p->z[i] * cos(ph));
            p->out[2 * i + 1] = (float)(p->z[i] * sin(ph));
        }
        return 0;
    }
    for (i = 0; i < p->n; i++) p->out[i] = p->angle ? atan2f(p->z[2 * i + 1], p->z[2 * i]) : hypotf(p->z[2 * i], p->z[2 * i + 1]);
    return 0;
}
static gk_status gk__cabs(gk_ctx *ctx, gk_tensor out, gk_tensor z, int angle, const char *where) {
    static const char *const names[2] = { "out", "z" };
    gk_tensor ts[2];
    gk__opnds ops;
    gk__cabs_p p;
    gk_status st;
    ts[0] = out; ts[1] = z;
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__fft_enter(ctx, &ops, ts, names, 2, 0, where);
    if (st == GK_OK) {
        const gk__slot *so = ops.s[0], *sz = ops.s[1];
        if (sz->ndim < 1 || sz->shape[sz->ndim - 1] != 2) st = gk__sg_shape_err(ctx, sz, "z", "[..., 2] (complex)", where);
        else if (so->ndim != sz->ndim - 1 || !gk__same_dims(so, 0, sz, 0, so->ndim)) st = gk__sg_shape_err(ctx, so, "out", "z's shape without its last dim", where);
    }
    if (st == GK_OK) p.n = gk__numel(ops.s[0]);
    if (st == GK_OK && p.n == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__sg_use(ctx, &ops, where);
    if (st == GK_OK) {
        if (ctx->backend == GK_BACKEND_CPU) {
            p.out = (float *)(uintptr_t)gk__slot_addr(ops.s[0]);
            p.z = (const float *)(uintptr_t)gk__slot_addr(ops.s[1]);
            p.angle = angle;
            st = gk__cpu_run(ctx, gk__cabs_cpu, &p, sizeof p, where);
        } else {
            gk__cu_ptr po = gk__slot_addr(ops.s[0]), pz = gk__slot_addr(ops.s[1]);
            void *args[3];
            args[0] = &p.n; args[1] = &po; args[2] = &pz;
            st = gk__launch(ctx, GK__MOD_FFT, angle ? "gk_complex_angle_f32" : "gk_complex_abs_f32", p.n, args, where);
        }
    }
    gk__sg_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_complex_polar(gk_ctx *ctx, gk_tensor out, gk_tensor mag, gk_tensor phase) {
    static const char *const names[3] = { "out", "mag", "phase" };
    const char *where = "gk_complex_polar";
    gk_tensor ts[3];
    gk__opnds ops;
    gk__cabs_p p;
    gk_status st;
    ts[0] = out; ts[1] = mag; ts[2] = phase;
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__fft_enter(ctx, &ops, ts, names, 3, 0, where);
    if (st == GK_OK) {
        const gk__slot *so = ops.s[0], *sm = ops.s[1], *sp = ops.s[2];
        if (sm->ndim != sp->ndim || !gk__same_dims(sm, 0, sp, 0, sm->ndim)) st = gk__err(ctx, GK_ERR_SHAPE, "%s: mag and phase differ in shape", where);
        else if (sm->ndim >= GK_MAX_DIMS || so->ndim != sm->ndim + 1 || !gk__same_dims(so, 0, sm, 0, sm->ndim) || so->shape[so->ndim - 1] != 2)
            st = gk__sg_shape_err(ctx, so, "out", "mag's shape + [2]", where);
    }
    if (st == GK_OK) p.n = gk__numel(ops.s[1]);
    if (st == GK_OK && p.n == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__sg_use(ctx, &ops, where);
    if (st == GK_OK) {
        if (ctx->backend == GK_BACKEND_CPU) {
            p.out = (float *)(uintptr_t)gk__slot_addr(ops.s[0]);
            p.z = (const float *)(uintptr_t)gk__slot_addr(ops.s[1]);
            p.ph = (const float *)(uintptr_t)gk__slot_addr(ops.s[2]);
            p.angle = 2;
            st = gk__cpu_run(ctx, gk__cabs_cpu, &p, sizeof p, where);
        } else {
            gk__cu_ptr po = gk__slot_addr(ops.s[0]), pm = gk__slot_addr(ops.s[1]), pp = gk__slot_addr(ops.s[2]);
            void *args[4];
            args[0] = &p.n; args[1] = &po; args[2] = &pm; args[3] = &pp;
            st = gk__launch(ctx, GK__MOD_FFT, "gk_complex_polar_f32", p.n, args, where);
        }
    }
    gk__sg_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_complex_polar_new(gk_ctx *ctx, gk_tensor mag, gk_tensor phase, gk_tensor *out) {
    int64_t two = 2;
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", "gk_complex_polar_new");
    GK__TRY(gk__sg_new_from(ctx, mag, 0, 1, &two, GK_F32, &t, NULL, NULL, "gk_complex_polar_new"));
    return gk__finish_new(ctx, gk_complex_polar(ctx, t, mag, phase), t, out);
}
GKDEF gk_status gk_complex_abs(gk_ctx *ctx, gk_tensor out, gk_tensor z) { return gk__cabs(ctx, out, z, 0, "gk_complex_abs"); }
GKDEF gk_status gk_complex_angle(gk_ctx *ctx, gk_tensor out, gk_tensor z) { return gk__cabs(ctx, out, z, 1, "gk_complex_angle"); }
GKDEF gk_status gk_complex_abs_new(gk_ctx *ctx, gk_tensor z, gk_tensor *out) {
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", "gk_complex_abs_new");
    GK__TRY(gk__sg_new_from(ctx, z, 1, 0, NULL, GK_F32, &t, NULL, NULL, "gk_complex_abs_new"));
    return gk__finish_new(ctx, gk_complex_abs(ctx, t, z), t, out);
}
GKDEF gk_status gk_complex_angle_new(gk_ctx *ctx, gk_tensor z, gk_tensor *out) {
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", "gk_complex_angle_new");
    GK__TRY(gk__sg_new_from(ctx, z, 1, 0, NULL, GK_F32, &t, NULL, NULL, "gk_complex_angle_new"));
    return gk__finish_new(ctx, gk_complex_angle(ctx, t, z), t, out);
}

