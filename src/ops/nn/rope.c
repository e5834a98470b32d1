/* >>nn_rope: rotary position tables and rotation, sinusoidal positions */
/* ======================== rotary positions ======================== */
/* f32 arithmetic exactly as torch does it on f32 tensors with Python scalars
   (each op rounded to f32; pow / exp / cos computed in double and rounded,
   within an ulp of torch's own). */
static float gk__f32(double v) { return (float)v; }
static gk_status gk__rope_check(const gk_rope_config *cfg, const char *where) {
    if (!cfg) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: cfg is NULL", where);
    if (cfg->rotary_dim <= 0 || cfg->rotary_dim % 2)
        return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: rotary_dim %d must be even and > 0", where, cfg->rotary_dim);
    if ((int)cfg->type < 0 || cfg->type > GK_ROPE_LLAMA3) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: unknown rope type %d", where, (int)cfg->type);
    if (cfg->theta < 0) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: theta %g < 0", where, cfg->theta);
    if ((cfg->type == GK_ROPE_LINEAR || cfg->type == GK_ROPE_DYNAMIC || cfg->type == GK_ROPE_LLAMA3) && !(cfg->factor > 0))
        return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: factor %g must be > 0", where, cfg->factor);
    if ((cfg->type == GK_ROPE_DYNAMIC || cfg->type == GK_ROPE_YARN) && cfg->max_position_embeddings <= 0)
        return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: max_position_embeddings %lld must be > 0", where, (long long)cfg->max_position_embeddings);
    if (cfg->type == GK_ROPE_DYNAMIC && cfg->rotary_dim <= 2)
        return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: dynamic scaling needs rotary_dim > 2 (got %d)", where, cfg->rotary_dim);
    if (cfg->type == GK_ROPE_LLAMA3 && (cfg->original_max_position_embeddings <= 0 || !(cfg->high_freq_factor > cfg->low_freq_factor) || !(cfg->low_freq_factor > 0)))
        return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: llama3 needs original_max_position_embeddings > 0 and 0 < low_freq_factor < high_freq_factor", where);
    return GK_OK;
}
/* 1 / base^(2i / dim) in f32: exponent (float)(2i) / dim, pow rounded to f32, reciprocal in f32 */
static void gk__rope_default(double base, int dim, float *inv) {
    int i;
    float fb = gk__f32(base);
    for (i = 0; i < dim / 2; i++) {
        float e = (float)(2 * i) / (float)dim;
        float pw = gk__f32(pow((double)fb, (double)e));
        inv[i] = 1.0f / pw;
    }
}
static double gk__yarn_mscale(double scale, double m) { return scale <= 1 ? 1.0 : 0.1 * m * log(scale) + 1.0; }

GKDEF gk_status gk_rope_inv_freq(const gk_rope_config *cfg, float *inv, double *attention_scaling) {
    const char *W = "gk_rope_inv_freq";
    double base, att = 1.0;
    int dim, half, i;
    GK__TRY(gk__rope_check(cfg, W));
    if (!inv) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: inv_freq is NULL", W);
    dim = cfg->rotary_dim;
    half = dim / 2;
    base = cfg->theta > 0 ? cfg->theta : 10000.0;
    switch (cfg->type) {
    case GK_ROPE_DEFAULT: gk__rope_default(base, dim, inv); break;
    case GK_ROPE_LINEAR:
        gk__rope_default(base, dim, inv);
        for (i = 0; i < half; i++) inv[i] = inv[i] / gk__f32(cfg->factor);
        break;
    case GK_ROPE_DYNAMIC: {
        double mp = (double)cfg->max_position_embeddings, seq = (double)cfg->seq_len;
        if (seq < mp) seq = mp;
        base = base * pow((cfg->factor * seq / mp) - (cfg->factor - 1), (double)dim / (double)(dim - 2));
        gk__rope_default(base, dim, inv);
        break;
    }
    case GK_ROPE_YARN: {
        double factor = cfg->factor, orig = cfg->original_max_position_embeddings > 0 ? (double)cfg->original_max_position_embeddings
                                                                                      : (double)cfg->max_position_embeddings;
        double bf = cfg->beta_fast != 0 ? cfg->beta_fast : 32, bs = cfg->beta_slow != 0 ? cfg->beta_slow : 1, lo, hi;
        float fb = gk__f32(base);
        if (!(factor > 0)) factor = (double)cfg->max_position_embeddings / orig;
        if (cfg->attention_factor != 0) att = cfg->attention_factor;
        else if (cfg->mscale != 0 && cfg->mscale_all_dim != 0) att = gk__yarn_mscale(factor, cfg->mscale) / gk__yarn_mscale(factor, cfg->mscale_all_dim);
        else att = gk__yarn_mscale(factor, 1);
        lo = (dim * log(orig / (bf * 2 * 3.141592653589793))) / (2 * log(base));
        hi = (dim * log(orig / (bs * 2 * 3.141592653589793))) / (2 * log(base));
        if (!cfg->no_truncate) { lo = floor(lo); hi = ceil(hi); }
        if (lo < 0) lo = 0;
        if (hi > dim - 1) hi = dim - 1;
        if (lo == hi) hi += 0.001;
        for (i = 0; i < half; i++) {
            float e = (float)(2 * i) / (float)dim;
            float pf = gk__f32(pow((double)fb, (double)e));
            float extra = 1.0f / pf, inter = 1.0f / (gk__f32(factor) * pf);
            float ramp = ((float)i - gk__f32(lo)) / gk__f32(hi - lo), ef;
            ramp = ramp < 0 ? 0.0f : ramp > 1 ? 1.0f : ramp;
            ef = 1.0f - ramp;
            inv[i] = inter * (1.0f - ef) + extra * ef;
        }
        break;
    }
    case GK_ROPE_LLAMA3: {
        float f = gk__f32(cfg->factor), lf = gk__f32(cfg->low_freq_factor);
        double old = (double)cfg->original_max_position_embeddings;
        float lw = gk__f32(old / cfg->low_freq_factor), hw = gk__f32(old / cfg->high_freq_factor);
        float twopi = gk__f32(2 * 3.141592653589793), fold = gk__f32(old), span = gk__f32(cfg->high_freq_factor - cfg->low_freq_factor);
        gk__rope_default(base, dim, inv);
        for (i = 0; i < half; i++) {
            float wl = twopi / inv[i];
            float il = wl > lw ? inv[i] / f : inv[i];
            float sf = (fold / wl - lf) / span;
            float sm = (1.0f - sf) * il / f + sf * il;
            if (!(wl < hw) && !(wl > lw)) il = sm;
            inv[i] = il;
        }
        break;
    }
    }
    if (attention_scaling) *attention_scaling = att;
    return GK_OK;
}

GKDEF gk_status gk_rope_table(const gk_rope_config *cfg, int64_t max_pos, float *cos_tab, float *sin_tab, double *attention_scaling) {
    const char *W = "gk_rope_table";
    float inv[4096];
    double att = 1;
    float fatt;
    int64_t p;
    int i, half;
    GK__TRY(gk__rope_check(cfg, W));
    if (max_pos <= 0) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: max_pos %lld must be > 0", W, (long long)max_pos);
    if (cfg->rotary_dim > 8192) return gk__err(NULL, GK_ERR_LIMIT, "%s: rotary_dim %d > 8192", W, cfg->rotary_dim);
    if (!cos_tab || !sin_tab) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: cos_tab or sin_tab is NULL", W);
    GK__TRY(gk_rope_inv_freq(cfg, inv, &att));
    half = cfg->rotary_dim / 2;
    fatt = (float)att;
    for (p = 0; p < max_pos; p++)
        for (i = 0; i < half; i++) {
            float a = (float)p * inv[i]; /* HF: f32 inv_freq @ f32 positions */
            cos_tab[p * half + i] = (float)cos((double)a) * fatt;
            sin_tab[p * half + i] = (float)sin((double)a) * fatt;
        }
    if (attention_scaling) *attention_scaling = att;
    return GK_OK;
}

GKDEF gk_status gk_rope_table_new(gk_ctx *ctx, const gk_rope_config *cfg, int64_t max_pos, gk_dtype dtype, gk_tensor *cos_t, gk_tensor *sin_t) {
    const char *W = "gk_rope_table_new";
    float *c, *s;
    void *bc = NULL, *bs = NULL;
    int64_t shape[2], n;
    gk_status st;
    gk_tensor tc = gk__nn_none, tsn = gk__nn_none;
    if (cos_t) cos_t->id = 0;
    if (sin_t) sin_t->id = 0;
    if (!ctx) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "%s: ctx is NULL", W);
    if (!cos_t || !sin_t) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: cos_tab or sin_tab is NULL", W);
    if (!gk__nn_isfloat3(dtype)) return gk__err(ctx, GK_ERR_DTYPE, "%s: dtype %s (f32, f16 or bf16)", W, gk_dtype_name(dtype));
    if (!cfg) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: cfg is NULL", W);
    if ((st = gk__rope_check(cfg, W)) != GK_OK) return gk__err(ctx, st, "%s", gk_last_error(NULL));
    if (max_pos <= 0 || max_pos > ((int64_t)1 << 40) / cfg->rotary_dim)
        return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: max_pos %lld must be > 0 (and the table below 2^40 values)", W, (long long)max_pos);
    shape[0] = max_pos;
    shape[1] = cfg->rotary_dim / 2;
    n = shape[0] * shape[1];
    c = (float *)GPUKIT_MALLOC((size_t)n * 4 * 3 + 16); /* cos, sin, and room for both narrowed */
    if (!c) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
    s = c + n;
    st = gk_rope_table(cfg, max_pos, c, s, NULL);
    if (st != GK_OK) { GPUKIT_FREE(c); return gk__err(ctx, st, "%s", gk_last_error(NULL)); }
    bc = c; bs = s;
    if (dtype != GK_F32) {
        bc = c + 2 * n;
        bs = (char *)bc + (size_t)n * 2;
        gk_convert(dtype, bc, GK_F32, c, (size_t)n);
        gk_convert(dtype, bs, GK_F32, s, (size_t)n);
    }
    st = gk_tensor_from_host(ctx, dtype, 2, shape, bc, &tc);
    if (st == GK_OK) st = gk_tensor_from_host(ctx, dtype, 2, shape, bs, &tsn);
    GPUKIT_FREE(c);
    if (st != GK_OK) { if (tc.id) gk_tensor_free(ctx, tc); return st; }
    *cos_t = tc;
    *sin_t = tsn;
    return GK_OK;
}

GKDEF gk_status gk_sinusoids(int64_t length, int64_t channels, double max_timescale, float *out) {
    const char *W = "gk_sinusoids";
    int64_t half, t, i;
    float inc;
    if (length < 0 || channels < 4 || channels % 2)
        return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: length %lld >= 0 and even channels >= 4 needed (got %lld)", W, (long long)length, (long long)channels);
    if (!out && length > 0) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (max_timescale == 0) max_timescale = 10000;
    if (!(max_timescale > 0)) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "%s: max_timescale %g must be > 0", W, max_timescale);
    half = channels / 2;
    /* torch: exp(-log_inc * arange(half)) in f32, arange(length)[:, None] * inv[None, :] in f32 */
    inc = (float)(-(log(max_timescale) / (double)(half - 1)));
    for (i = 0; i < half; i++) {
        float inv = (float)exp((double)(inc * (float)i));
        for (t = 0; t < length; t++) {
            float a = (float)t * inv;
            out[t * channels + i] = (float)sin((double)a);
            out[t * channels + half + i] = (float)cos((double)a);
        }
    }
    return GK_OK;
}

typedef struct gk__ropep {
    int64_t T, H, D, P;
    int rd, gptj, pos64, pass;
    gk_dtype dt, ct;
    int64_t xst, xsh, ost, osh;
    const char *x, *pos, *cs, *sn;
    char *out;
} gk__ropep;
static int gk__rope_cpu(const void *vp) {
    const gk__ropep *p = (const gk__ropep *)vp;
    size_t es = gk__dtype_sizes[p->dt], cs = gk__dtype_sizes[p->ct];
    int64_t t, h, j, half = p->rd / 2;
    for (t = 0; t < p->T; t++) {
        int64_t pos;
        int ok;
        if (p->pos64) memcpy(&pos, p->pos + t * 8, 8);
        else { int32_t v; memcpy(&v, p->pos + t * 4, 4); pos = v; }
        ok = pos >= 0 && pos < p->P;
        for (h = 0; h < p->H; h++) {
            const char *xr = p->x + (t * p->xst + h * p->xsh) * (int64_t)es;
            char *orow = p->out + (t * p->ost + h * p->osh) * (int64_t)es;
            float tmp[2];
            for (j = 0; j < half; j++) {
                float c = ok ? gk__ldf(p->ct, p->cs + (pos * half + j) * (int64_t)cs) : 0.0f;
                float s = ok ? gk__ldf(p->ct, p->sn + (pos * half + j) * (int64_t)cs) : 0.0f;
                int64_t ia = p->gptj ? 2 * j : j, ib = p->gptj ? 2 * j + 1 : j + half;
                float u = gk__ldf(p->dt, xr + ia * (int64_t)es), v = gk__ldf(p->dt, xr + ib * (int64_t)es);
                tmp[0] = u * c - v * s;
                tmp[1] = v * c + u * s;
                gk__stf(p->dt, orow + ia * (int64_t)es, tmp[0]);
                gk__stf(p->dt, orow + ib * (int64_t)es, tmp[1]);
            }
            if (p->pass) memmove(orow + p->rd * (int64_t)es, xr + p->rd * (int64_t)es, (size_t)(p->D - p->rd) * es);
        }
    }
    return 0;
}
#define GK__ROPE_NAMES(D, C) { "gk_rope_" D "_" C "_p1", "gk_rope_" D "_" C "_p4", "gk_rope_" D "_" C "_p8" }
static const char *const gk__k_rope[5][3] = { GK__ROPE_NAMES("f32", "f32"), GK__ROPE_NAMES("f16", "f16"), GK__ROPE_NAMES("f16", "f32"),
                                               GK__ROPE_NAMES("bf16", "bf16"), GK__ROPE_NAMES("bf16", "f32") };

GKDEF gk_status gk_rope(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor positions, gk_tensor cos_tab, gk_tensor sin_tab, int rotary_dim,
                        gk_rope_layout layout) {
    static const char *const names[5] = { "out", "x", "positions", "cos_tab", "sin_tab" };
    const char *W = "gk_rope";
    gk_tensor ts[5];
    gk__opnds ops;
    gk__ropep p;
    gk_status st;
    gk__slot *os, *xs, *ps, *cs, *ss;
    int combo, i;
    ops.used = 0;
    memset(&p, 0, sizeof p);
    ts[0] = out; ts[1] = x; ts[2] = positions; ts[3] = cos_tab; ts[4] = sin_tab;
    GK__ENTER(ctx, W);
    st = gk__operands(ctx, &ops, ts, names, 5, W);
    if (st != GK_OK) goto done;
    os = ops.s[0]; xs = ops.s[1]; ps = ops.s[2]; cs = ops.s[3]; ss = ops.s[4];
    p.dt = xs->dtype;
    p.ct = cs->dtype;
    if (!gk__nn_isfloat3(p.dt)) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: x is %s (f32, f16 or bf16 only)", W, gk_dtype_name(p.dt)); goto done; }
    if (os->dtype != p.dt) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: out is %s but x is %s", W, gk_dtype_name(os->dtype), gk_dtype_name(p.dt)); goto done; }
    if (ps->dtype != GK_I32 && ps->dtype != GK_I64) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: positions are %s (i32 or i64)", W, gk_dtype_name(ps->dtype)); goto done; }
    combo = gk__nn_combo(p.dt, p.ct);
    if (combo < 0 || ss->dtype != p.ct) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: cos_tab %s / sin_tab %s must both be f32 or x's dtype %s", W, gk_dtype_name(p.ct), gk_dtype_name(ss->dtype), gk_dtype_name(p.dt)); goto done; }
    if (xs->ndim != 3) { st = gk__nn_shape_err(ctx, W, "x", xs, "[tokens, heads, head_dim]"); goto done; }
    if (!gk__nn_same_shape(os, xs)) { char a[160]; gk__shape_str(xs, a, sizeof a); st = gk__nn_shape_err(ctx, W, "out", os, a); goto done; }
    p.T = xs->shape[0]; p.H = xs->shape[1]; p.D = xs->shape[2];
    if (rotary_dim <= 0 || rotary_dim % 2) { st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: rotary_dim %d must be even and > 0", W, rotary_dim); goto done; }
    if (rotary_dim > p.D) { st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: rotary_dim %d > head_dim %lld", W, rotary_dim, (long long)p.D); goto done; }
    if (layout != GK_ROPE_NEOX && layout != GK_ROPE_GPTJ) { st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: unknown layout %d", W, (int)layout); goto done; }
    if (ps->ndim != 1 || ps->shape[0] != p.T || !gk__is_contig(ps)) {
        char want[64];
        snprintf(want, sizeof want, "[%lld] (contiguous)", (long long)p.T);
        st = gk__nn_shape_err(ctx, W, "positions", ps, want);
        goto done;
    }
    for (i = 3; i < 5; i++)
        if (ops.s[i]->ndim != 2 || ops.s[i]->shape[1] != rotary_dim / 2 || ops.s[i]->shape[0] != cs->shape[0] || !gk__is_contig(ops.s[i])) {
            char want[64];
            snprintf(want, sizeof want, "[max_pos, %d] (contiguous, both alike)", rotary_dim / 2);
            st = gk__nn_shape_err(ctx, W, names[i], ops.s[i], want);
            goto done;
        }
    if ((xs->strides[2] != 1 && p.D > 1) || (os->strides[2] != 1 && p.D > 1)) { st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: the last dim of x and out must be contiguous", W); goto done; }
    if (p.T == 0 || p.H == 0) goto done;
    p.P = cs->shape[0];
    p.rd = rotary_dim;
    p.gptj = layout == GK_ROPE_GPTJ;
    p.pos64 = ps->dtype == GK_I64;
    p.xst = xs->strides[0]; p.xsh = xs->strides[1]; p.ost = os->strides[0]; p.osh = os->strides[1];
    st = gk__operands_use(ctx, &ops, W);
    if (st != GK_OK) goto done;
    p.pass = p.D > p.rd && (gk__slot_addr(os) != gk__slot_addr(xs) || p.xst != p.ost || p.xsh != p.osh);
    p.x = (const char *)(uintptr_t)gk__slot_addr(xs);
    p.out = (char *)(uintptr_t)gk__slot_addr(os);
    p.pos = (const char *)(uintptr_t)gk__slot_addr(ps);
    p.cs = (const char *)(uintptr_t)gk__slot_addr(cs);
    p.sn = (const char *)(uintptr_t)gk__slot_addr(ss);
    if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__rope_cpu, &p, sizeof p, W);
    else {
        gk__cu_ptr px = gk__slot_addr(xs), po = gk__slot_addr(os), pp = gk__slot_addr(ps), pc = gk__slot_addr(cs), psn = gk__slot_addr(ss);
        size_t es = gk__dtype_sizes[p.dt];
        int half = p.rd / 2, Di = (int)p.D;
        int vp4 = half % 4 == 0 && ((px | po | pc | psn) & 15) == 0 && ((p.xst | p.xsh | p.ost | p.osh) * (int64_t)es) % 16 == 0;
        void *args[16];
        args[0] = &p.T; args[1] = &p.H; args[2] = &Di; args[3] = &p.rd; args[4] = &p.gptj; args[5] = &pp; args[6] = &p.pos64;
        args[7] = &p.P; args[8] = &px; args[9] = &p.xst; args[10] = &p.xsh; args[11] = &po; args[12] = &p.ost; args[13] = &p.osh;
        args[14] = &pc; args[15] = &psn;
        if (p.pass) { /* pass-through first: it reads x before an overlapping out changes */
            void *a2[10];
            a2[0] = &p.T; a2[1] = &p.H; a2[2] = &Di; a2[3] = &p.rd; a2[4] = &px; a2[5] = &p.xst; a2[6] = &p.xsh; a2[7] = &po; a2[8] = &p.ost; a2[9] = &p.osh;
            st = gk__launch(ctx, GK__MOD_ROPE, es == 2 ? "gk_rope_pass_b2" : "gk_rope_pass_b4", p.T * p.H * (p.D - p.rd), a2, W);
        }
        if (st == GK_OK) { /* 8 pairs a thread (16-byte loads) for the 16-bit dtypes when rd/2 allows */
            int vk = vp4 ? (es == 2 && half % 8 == 0 ? 2 : 1) : 0;
            st = gk__launch(ctx, GK__MOD_ROPE, gk__k_rope[combo][vk], p.T * p.H * (half / (vk == 2 ? 8 : vk ? 4 : 1)), args, W);
        }
    }
done:
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_rope_new(gk_ctx *ctx, gk_tensor x, gk_tensor positions, gk_tensor cos_tab, gk_tensor sin_tab, int rotary_dim,
                            gk_rope_layout layout, gk_tensor *out) {
    gk_tensor_info info;
    gk_tensor t;
    GK__TRY(gk__nn_info(ctx, x, &info, out, "gk_rope_new"));
    GK__TRY(gk__nn_empty(ctx, info.dtype, info.ndim, info.shape, &t, "gk_rope_new"));
    return gk__finish_new(ctx, gk_rope(ctx, t, x, positions, cos_tab, sin_tab, rotary_dim, layout), t, out);
}

