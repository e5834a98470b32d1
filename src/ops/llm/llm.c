/* >>ops_llm: KV-cache writes (plain and with RoPE), decode RMS norm */
typedef struct gk__kvw {        /* layout of gk_kvw_p in src/ops/llm/llm.cu */
    int64_t B, T, H, D, S, es;
    int64_t c_bs, c_ss, c_hs, c_ds, x_bs, x_ts, x_hs, x_ds;
    uint64_t c, x, start;
} gk__kvw;

static int gk__kvw_cpu(const void *vp) {
    const gk__kvw *p = (const gk__kvw *)vp;
    const int32_t *st = (const int32_t *)(uintptr_t)p->start;
    char *c = (char *)(uintptr_t)p->c;
    const char *x = (const char *)(uintptr_t)p->x;
    int64_t b, t, h, d;
    for (b = 0; b < p->B; b++)
        for (t = 0; t < p->T; t++) {
            int64_t row = (int64_t)st[b] + t;
            if (row < 0 || row >= p->S) continue;
            for (h = 0; h < p->H; h++)
                for (d = 0; d < p->D; d++)
                    memcpy(c + (b * p->c_bs + row * p->c_ss + h * p->c_hs + d * p->c_ds) * p->es,
                           x + (b * p->x_bs + t * p->x_ts + h * p->x_hs + d * p->x_ds) * p->es, (size_t)p->es);
        }
    return 0;
}

GKDEF gk_status gk_kv_write(gk_ctx *ctx, gk_tensor cache, gk_tensor x, gk_tensor start) {
    const char *W = "gk_kv_write";
    static const char *const names[3] = { "cache", "x", "start" };
    static const char *const kn[9] = { NULL, "gk_kv_write_1", "gk_kv_write_2", NULL, "gk_kv_write_4", NULL, NULL, NULL, "gk_kv_write_8" };
    gk_tensor ts[3];
    gk__opnds ops;
    gk__kvw p;
    gk_status st;
    gk__slot *cs, *xs, *ss;
    ops.used = 0;
    memset(&p, 0, sizeof p);
    ts[0] = cache; ts[1] = x; ts[2] = start;
    GK__ENTER(ctx, W);
    st = gk__operands(ctx, &ops, ts, names, 3, W);
    if (st != GK_OK) goto done;
    cs = ops.s[0]; xs = ops.s[1]; ss = ops.s[2];
    if (cs->dtype != xs->dtype) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: cache is %s but x is %s", W, gk_dtype_name(cs->dtype), gk_dtype_name(xs->dtype)); goto done; }
    if (ss->dtype != GK_I32) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: start is %s (i32 expected)", W, gk_dtype_name(ss->dtype)); goto done; }
    if (cs->ndim != 4) { st = gk__nn_shape_err(ctx, W, "cache", cs, "[B, S, H, D]"); goto done; }
    if (xs->ndim != 4 || xs->shape[0] != cs->shape[0] || xs->shape[2] != cs->shape[2] || xs->shape[3] != cs->shape[3]) {
        char a[160], b[160];
        gk__shape_str(xs, a, sizeof a);
        gk__shape_str(cs, b, sizeof b);
        st = gk__err(ctx, GK_ERR_SHAPE, "%s: x is %s; expected [B, T, H, D] matching cache %s", W, a, b);
        goto done;
    }
    if (ss->ndim != 1 || ss->shape[0] != cs->shape[0] || !gk__is_contig(ss)) {
        st = gk__err(ctx, GK_ERR_SHAPE, "%s: start must be a contiguous i32 vector of %lld", W, (long long)cs->shape[0]);
        goto done;
    }
    p.B = cs->shape[0]; p.S = cs->shape[1]; p.H = cs->shape[2]; p.D = cs->shape[3]; p.T = xs->shape[1];
    p.es = (int64_t)gk__dtype_sizes[cs->dtype];
    p.c_bs = cs->strides[0]; p.c_ss = cs->strides[1]; p.c_hs = cs->strides[2]; p.c_ds = cs->strides[3];
    p.x_bs = xs->strides[0]; p.x_ts = xs->strides[1]; p.x_hs = xs->strides[2]; p.x_ds = xs->strides[3];
    if (p.B * p.T * p.H * p.D == 0 || p.S == 0) goto done;
    if ((st = gk__operands_use(ctx, &ops, W)) != GK_OK) goto done;
    p.c = gk__slot_addr(cs); p.x = gk__slot_addr(xs); p.start = gk__slot_addr(ss);
    if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__kvw_cpu, &p, sizeof p, W);
    else if (p.es > 8 || !kn[p.es]) st = gk__err(ctx, GK_ERR_DTYPE, "%s: no kernel for %s", W, gk_dtype_name(cs->dtype));
    else {
        /* grid-stride like gk__launch; programmatic dependent launch (the kernel waits first) */
        void *args[1];
        int64_t work = p.B * p.T * p.H * p.D, blocks = (work + 255) / 256, maxb = (int64_t)ctx->info.sm_count * 32;
        unsigned g[3], bl[3];
        g[0] = (unsigned)GK__MAX(GK__MIN(blocks, maxb), (int64_t)1); g[1] = 1; g[2] = 1;
        bl[0] = 256; bl[1] = 1; bl[2] = 1;
        args[0] = &p;
        st = gk__launch_ex(ctx, GK__MOD_LLM, kn[p.es], g, bl, 0, args, GK__LAUNCH_PDL, W);
    }
done:
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
typedef struct gk__ropekv {     /* layout of gk_ropekv_p in src/ops/llm/llm.cu */
    int64_t B, H, Hkv, D, S, max_pos, x_bs, c_bs, c_ss, c_hs;
    uint64_t x, c, pos, cs, sn;
    int rd;
} gk__ropekv;

GKDEF gk_status gk_rope_kv_write(gk_ctx *ctx, gk_tensor x, gk_tensor cache, gk_tensor pos, gk_tensor cos_tab, gk_tensor sin_tab, int rotary_dim,
                                 int64_t q_heads) {
    const char *W = "gk_rope_kv_write";
    static const char *const names[5] = { "x", "cache", "pos", "cos_tab", "sin_tab" };
    gk_tensor_info xi, ci, pi, ti, si;
    gk_tensor ts[5];
    gk_status st;
    int64_t Hkv;
    int fused;
    if (!ctx) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "%s: ctx is NULL", W);
    if ((st = gk_tensor_info_get(ctx, x, &xi)) != GK_OK || (st = gk_tensor_info_get(ctx, cache, &ci)) != GK_OK ||
        (st = gk_tensor_info_get(ctx, pos, &pi)) != GK_OK || (st = gk_tensor_info_get(ctx, cos_tab, &ti)) != GK_OK ||
        (st = gk_tensor_info_get(ctx, sin_tab, &si)) != GK_OK)
        return st;
    if (xi.ndim != 3 || ci.ndim != 4 || ci.shape[2] % 2 || ci.shape[0] != xi.shape[0] || ci.shape[3] != xi.shape[2] || q_heads < 0 ||
        xi.shape[1] != q_heads + ci.shape[2])
        return gk__err(ctx, GK_ERR_SHAPE, "%s: x must be [B, q_heads + 2 Hkv, D] (q_heads %lld) and cache [B, S, 2 Hkv, D] (x is %dD, cache %dD)", W,
                       (long long)q_heads, xi.ndim, ci.ndim);
    Hkv = ci.shape[2] / 2;
    fused = gk_ctx_backend(ctx) == GK_BACKEND_CUDA && (xi.dtype == GK_F32 || xi.dtype == GK_F16 || xi.dtype == GK_BF16) &&
            ci.dtype == xi.dtype && ti.dtype == xi.dtype && si.dtype == xi.dtype && pi.dtype == GK_I32 && pi.ndim == 1 && pi.shape[0] == xi.shape[0] &&
            pi.contiguous && ti.ndim == 2 && si.ndim == 2 && ti.contiguous && si.contiguous && ti.shape[0] == si.shape[0] &&
            ti.shape[1] == rotary_dim / 2 && si.shape[1] == rotary_dim / 2 && rotary_dim > 0 && rotary_dim % 2 == 0 && rotary_dim <= xi.shape[2] &&
            xi.strides[2] == 1 && xi.strides[1] == xi.shape[2] && ci.strides[3] == 1 && xi.shape[0] <= 65535 && xi.shape[1] <= 2147483647;
    if (!fused) { /* the two ops (they check the rest) */
        gk_tensor qk = { 0, 0 }, kvx = { 0, 0 }, kvx4 = { 0, 0 };
        st = gk_view_slice(ctx, x, 1, 0, q_heads + Hkv, 1, &qk);
        if (st == GK_OK) st = gk_rope(ctx, qk, qk, pos, cos_tab, sin_tab, rotary_dim, GK_ROPE_NEOX);
        if (st == GK_OK) st = gk_view_slice(ctx, x, 1, q_heads, q_heads + 2 * Hkv, 1, &kvx);
        if (st == GK_OK) st = gk_view_unsqueeze(ctx, kvx, 1, &kvx4);
        if (st == GK_OK) st = gk_kv_write(ctx, cache, kvx4, pos);
        if (qk.id) gk_tensor_free(ctx, qk);
        if (kvx.id) gk_tensor_free(ctx, kvx);
        if (kvx4.id) gk_tensor_free(ctx, kvx4);
        return st;
    }
    {
        static const char *const kn[4] = { "gk_rope_kv_dec_f32", NULL, "gk_rope_kv_dec_f16", "gk_rope_kv_dec_bf16" };
        gk__opnds ops;
        gk__ropekv p;
        void *args[1];
        unsigned g[3], bl[3];
        ops.used = 0;
        memset(&p, 0, sizeof p);
        ts[0] = x; ts[1] = cache; ts[2] = pos; ts[3] = cos_tab; ts[4] = sin_tab;
        GK__ENTER(ctx, W);
        st = gk__operands(ctx, &ops, ts, names, 5, W);
        if (st != GK_OK) goto done;
        p.B = xi.shape[0]; p.H = q_heads; p.Hkv = Hkv; p.D = xi.shape[2]; p.S = ci.shape[1]; p.max_pos = ti.shape[0];
        p.x_bs = xi.strides[0]; p.c_bs = ci.strides[0]; p.c_ss = ci.strides[1]; p.c_hs = ci.strides[2];
        p.rd = rotary_dim;
        if (p.B == 0 || p.H + 2 * p.Hkv == 0 || p.D == 0) goto done;
        if ((st = gk__operands_use(ctx, &ops, W)) != GK_OK) goto done;
        p.x = gk__slot_addr(ops.s[0]); p.c = gk__slot_addr(ops.s[1]); p.pos = gk__slot_addr(ops.s[2]);
        p.cs = gk__slot_addr(ops.s[3]); p.sn = gk__slot_addr(ops.s[4]);
        g[0] = (unsigned)(p.H + 2 * p.Hkv); g[1] = (unsigned)p.B; g[2] = 1;
        bl[0] = p.D >= 256 ? 128u : 64u; bl[1] = 1; bl[2] = 1;
        args[0] = &p;
        st = gk__launch_ex(ctx, GK__MOD_LLM, kn[xi.dtype], g, bl, 0, args, GK__LAUNCH_PDL, W);
    done:
        gk__operands_done(ctx, &ops, st);
        gk__unlock(&ctx->mu);
        return st;
    }
}
GKDEF gk_status gk_decode_rms_norm(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor weight, double eps) {
    const char *W = "gk_decode_rms_norm";
    static const char *const names[3] = { "out", "x", "weight" };
    static const char *const kn[4] = { "gk_rms_norm_dec_f32", NULL, "gk_rms_norm_dec_f16", "gk_rms_norm_dec_bf16" };
    gk_tensor_info oi, xi, wi;
    gk_tensor ts[3];
    gk__opnds ops;
    gk_status st;
    int64_t R, D, E, nvec;
    uint64_t xa, wa, oa;
    if (!ctx) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "%s: ctx is NULL", W);
    if ((st = gk_tensor_info_get(ctx, out, &oi)) != GK_OK || (st = gk_tensor_info_get(ctx, x, &xi)) != GK_OK ||
        (st = gk_tensor_info_get(ctx, weight, &wi)) != GK_OK)
        return st;
    E = xi.dtype == GK_F32 ? 4 : 8;
    if (gk_ctx_backend(ctx) != GK_BACKEND_CUDA || (xi.dtype != GK_F32 && xi.dtype != GK_F16 && xi.dtype != GK_BF16) || oi.dtype != xi.dtype ||
        wi.dtype != xi.dtype || xi.ndim != 2 || oi.ndim != 2 || wi.ndim != 1 || !xi.contiguous || !oi.contiguous || !wi.contiguous ||
        oi.shape[0] != xi.shape[0] || oi.shape[1] != xi.shape[1] || wi.shape[0] != xi.shape[1] || xi.shape[1] % E || xi.shape[1] / E > 1024 ||
        xi.shape[1] == 0)
        return gk_rms_norm(ctx, out, x, weight, eps);
    R = xi.shape[0]; D = xi.shape[1]; nvec = D / E;
    ops.used = 0;
    ts[0] = out; ts[1] = x; ts[2] = weight;
    GK__ENTER(ctx, W);
    st = gk__operands(ctx, &ops, ts, names, 3, W);
    if (st == GK_OK && R > 0) st = gk__operands_use(ctx, &ops, W);
    if (st == GK_OK && R > 0) {
        oa = gk__slot_addr(ops.s[0]); xa = gk__slot_addr(ops.s[1]); wa = gk__slot_addr(ops.s[2]);
        if (((oa | xa | wa) & 15) != 0) {
            st = GK_ERR_UNSUPPORTED; /* not 16-byte aligned: gk_rms_norm below, after the lock is released */
        } else {
            float e = (float)eps;
            int dd = (int)D;
            void *args[6];
            unsigned g[3], bl[3];
            int64_t nt = (nvec + 31) / 32 * 32; /* a vector a thread where 256 threads cover the row, else up to 4 */
            if (nt > 256) nt = 256;
            args[0] = &R; args[1] = &dd; args[2] = &e; args[3] = &xa; args[4] = &wa; args[5] = &oa;
            g[0] = (unsigned)(R < 65535 ? R : 65535); g[1] = 1; g[2] = 1;
            bl[0] = (unsigned)nt; bl[1] = 1; bl[2] = 1;
            st = gk__launch_ex(ctx, GK__MOD_LLM, kn[xi.dtype], g, bl, 0, args, GK__LAUNCH_PDL, W);
        }
    }
    gk__operands_done(ctx, &ops, st == GK_ERR_UNSUPPORTED ? GK_OK : st);
    gk__unlock(&ctx->mu);
    if (st == GK_ERR_UNSUPPORTED) return gk_rms_norm(ctx, out, x, weight, eps);
    return st;
}
/* end of >>ops_llm */

