/* >>signal_mel: mel filter banks */
/* ---- mel filter bank (host, double) ---- */
static double gk__hz_to_mel(double f, int htk) {
    if (htk) return 2595.0 * log10(1.0 + f / 700.0);
    if (f < 1000.0) return 3.0 * f / 200.0;
    return 15.0 + log(f / 1000.0) * 27.0 / log(6.4);
}
static double gk__mel_to_hz(double m, int htk) {
    if (htk) return 700.0 * (pow(10.0, m / 2595.0) - 1.0);
    if (m < 15.0) return 200.0 * m / 3.0;
    return 1000.0 * exp(log(6.4) * (m - 15.0) / 27.0);
}
GKDEF gk_status gk_mel_filters(gk_ctx *ctx, gk_tensor out, double sample_rate, double fmin, double fmax, int flags) {
    const char *where = "gk_mel_filters";
    gk__slot *s;
    gk_status st;
    int64_t M = 0, F = 0, mm, k;
    float *buf;
    double *pts, mlo, mhi;
    int htk = (flags & GK_MEL_HTK) != 0;
    GK__ENTER(ctx, where);
    st = gk__lookup(ctx, out, &s, where, "out");
    if (st == GK_OK && s->dtype != GK_F32) st = gk__err(ctx, GK_ERR_DTYPE, "%s: out is %s (supported: f32)", where, gk_dtype_name(s->dtype));
    if (st == GK_OK && (s->ndim != 2 || s->shape[0] < 1 || s->shape[1] < 2)) st = gk__sg_shape_err(ctx, s, "out", "[n_mels >= 1, n_freqs >= 2]", where);
    if (st == GK_OK && !gk__is_contig(s)) st = gk__err(ctx, GK_ERR_SHAPE, "%s: out is not contiguous", where);
    if (st == GK_OK && !(sample_rate > 0 && fmin >= 0 && fmax > fmin))
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: sample_rate %g, fmin %g, fmax %g (need sample_rate > 0, 0 <= fmin < fmax)", where, sample_rate, fmin, fmax);
    if (st == GK_OK) { M = s->shape[0]; F = s->shape[1]; }
    if (st == GK_OK && M * F > ((int64_t)1 << 26)) st = gk__err(ctx, GK_ERR_LIMIT, "%s: %lld x %lld filters", where, (long long)M, (long long)F);
    gk__unlock(&ctx->mu);
    if (st != GK_OK) return st;
    buf = GK__CAST(float *, GPUKIT_MALLOC(sizeof(float) * (size_t)(M * F) + sizeof(double) * (size_t)(M + 2)));
    if (!buf) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", where);
    pts = (double *)(void *)(buf + ((M * F + 1) & ~(int64_t)1));
    mlo = gk__hz_to_mel(fmin, htk);
    mhi = gk__hz_to_mel(fmax, htk);
    for (mm = 0; mm < M + 2; mm++) pts[mm] = gk__mel_to_hz(mlo + (mhi - mlo) * (double)mm / (double)(M + 1), htk);
    for (mm = 0; mm < M; mm++) {
        double enorm = (flags & GK_MEL_NORM_SLANEY) ? 2.0 / (pts[mm + 2] - pts[mm]) : 1.0;
        for (k = 0; k < F; k++) {
            double f = floor(sample_rate / 2) * (double)k / (double)(F - 1);
            double down = (f - pts[mm]) / (pts[mm + 1] - pts[mm]), up = (pts[mm + 2] - f) / (pts[mm + 2] - pts[mm + 1]);
            double v = down < up ? down : up;
            buf[mm * F + k] = (float)((v > 0 ? v : 0) * enorm);
        }
    }
    st = gk_copy_from_host(ctx, out, buf, sizeof(float) * (size_t)(M * F));
    GPUKIT_FREE(buf);
    return st;
}
GKDEF gk_status gk_mel_filters_new(gk_ctx *ctx, int64_t n_mels, int64_t n_fft, double sample_rate, double fmin, double fmax, int flags,
                                   gk_tensor *out) {
    int64_t shape[2];
    gk_tensor t;
    gk_status st;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_mel_filters_new: out is NULL");
    if (n_mels < 1 || n_fft < 2) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_mel_filters_new: n_mels %lld, n_fft %lld", (long long)n_mels, (long long)n_fft);
    shape[0] = n_mels;
    shape[1] = n_fft / 2 + 1;
    st = gk_tensor_empty(ctx, GK_F32, 2, shape, &t);
    if (st != GK_OK) return st;
    return gk__finish_new(ctx, gk_mel_filters(ctx, t, sample_rate, fmin, fmax, flags), t, out);
}

/* end of >>ops_signal */

