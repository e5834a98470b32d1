/* >>signal_lstm: LSTM */
/* ======================= LSTM ======================= */
typedef struct gk__lstm_p {
    int64_t T, I, H, D;
    float *out, *hn, *cn;
    const float *x, *wih, *whh, *bih, *bhh, *h0, *c0;
    double *ws; /* 7H doubles */
} gk__lstm_p;
static double gk__sigm(double x) { return 1.0 / (1.0 + exp(-x)); }
/* the step loop, in double */
static int gk__lstm_cpu(const void *vp) {
    const gk__lstm_p *p = (const gk__lstm_p *)vp;
    int64_t H = p->H, I = p->I, d, s, r, k, j;
    double *h = p->ws, *hn = h + H, *c = hn + H, *g = c + H;
    for (d = 0; d < p->D; d++) {
        const float *wih = p->wih + d * 4 * H * I, *whh = p->whh + d * 4 * H * H;
        for (j = 0; j < H; j++) { h[j] = p->h0 ? p->h0[d * H + j] : 0.0; c[j] = p->c0 ? p->c0[d * H + j] : 0.0; }
        for (s = 0; s < p->T; s++) {
            int64_t t = d == 0 ? s : p->T - 1 - s;
            const float *xt = p->x + t * I;
            for (r = 0; r < 4 * H; r++) {
                double acc = (p->bih ? p->bih[d * 4 * H + r] : 0.0) + (p->bhh ? p->bhh[d * 4 * H + r] : 0.0);
                for (k = 0; k < I; k++) acc += (double)wih[r * I + k] * xt[k];
                for (k = 0; k < H; k++) acc += (double)whh[r * H + k] * h[k];
                g[r] = acc;
            }
            for (j = 0; j < H; j++) {
                double ig = gk__sigm(g[j]), fg = gk__sigm(g[H + j]), gg = tanh(g[2 * H + j]), og = gk__sigm(g[3 * H + j]);
                c[j] = fg * c[j] + ig * gg;
                hn[j] = og * tanh(c[j]);
            }
            for (j = 0; j < H; j++) { h[j] = hn[j]; p->out[t * p->D * H + d * H + j] = (float)h[j]; }
        }
        for (j = 0; j < H; j++) {
            if (p->hn) p->hn[d * H + j] = (float)h[j];
            if (p->cn) p->cn[d * H + j] = (float)c[j];
        }
    }
    return 0;
}

GKDEF gk_status gk_lstm(gk_ctx *ctx, gk_tensor out, gk_tensor h_n, gk_tensor c_n, gk_tensor x, gk_tensor w_ih, gk_tensor w_hh,
                        gk_tensor b_ih, gk_tensor b_hh, gk_tensor h0, gk_tensor c0) {
    static const char *const names[10] = { "out", "h_n", "c_n", "x", "w_ih", "w_hh", "b_ih", "b_hh", "h0", "c0" };
    const char *where = "gk_lstm";
    gk_tensor ts[10];
    gk__opnds ops;
    gk__lstm_p p;
    gk_status st;
    int i, ws_used = 0;
    ts[0] = out; ts[1] = h_n; ts[2] = c_n; ts[3] = x; ts[4] = w_ih; ts[5] = w_hh; ts[6] = b_ih; ts[7] = b_hh; ts[8] = h0; ts[9] = c0;
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__sg_operands(ctx, &ops, ts, names, 10, 0x3C6u, where);
    if (st == GK_OK) st = gk__sg_check(ctx, &ops, names, 0, where);
    if (st == GK_OK && (ops.s[4]->ndim != 3 || (ops.s[4]->shape[0] != 1 && ops.s[4]->shape[0] != 2) || ops.s[4]->shape[1] % 4 != 0 ||
                        ops.s[4]->shape[1] == 0))
        st = gk__sg_shape_err(ctx, ops.s[4], "w_ih", "[D, 4H, I] with D = 1 or 2, H >= 1", where);
    if (st == GK_OK) {
        p.D = ops.s[4]->shape[0];
        p.H = ops.s[4]->shape[1] / 4;
        p.I = ops.s[4]->shape[2];
        if (ops.s[5]->ndim != 3 || ops.s[5]->shape[0] != p.D || ops.s[5]->shape[1] != 4 * p.H || ops.s[5]->shape[2] != p.H)
            st = gk__sg_shape_err(ctx, ops.s[5], "w_hh", "[D, 4H, H] matching w_ih", where);
    }
    if (st == GK_OK) {
        const gk__slot *sx = ops.s[3];
        if (!((sx->ndim == 2 && sx->shape[1] == p.I) || (sx->ndim == 3 && sx->shape[1] == 1 && sx->shape[2] == p.I)))
            st = gk__sg_shape_err(ctx, sx, "x", "[T, I] or [T, 1, I] (batch 1), I from w_ih", where);
        else p.T = sx->shape[0];
    }
    if (st == GK_OK) {
        const gk__slot *so = ops.s[0];
        if (!((so->ndim == 2 && so->shape[0] == p.T && so->shape[1] == p.D * p.H) ||
              (so->ndim == 3 && so->shape[0] == p.T && so->shape[1] == 1 && so->shape[2] == p.D * p.H)))
            st = gk__sg_shape_err(ctx, so, "out", "[T, D*H] or [T, 1, D*H]", where);
    }
    for (i = 1; st == GK_OK && i < 10; i++) {
        int64_t want = (i == 6 || i == 7) ? p.D * 4 * p.H : p.D * p.H;
        if (i >= 3 && i <= 5) continue;
        if (ops.s[i] && gk__numel(ops.s[i]) != want)
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: %s has %lld elements, expected %lld", where, names[i], (long long)gk__numel(ops.s[i]), (long long)want);
    }
    if (st == GK_OK && p.H > 65536) st = gk__err(ctx, GK_ERR_LIMIT, "%s: hidden size %lld too large", where, (long long)p.H);
    if (st == GK_OK && p.T == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK && p.T > (int64_t)65535 * 64) st = gk__err(ctx, GK_ERR_LIMIT, "%s: %lld steps (at most %lld)", where, (long long)p.T, (long long)65535 * 64);
    if (st == GK_OK) st = gk__sg_use(ctx, &ops, where);
    if (st == GK_OK) {
        gk__cu_ptr a[10];
        for (i = 0; i < 10; i++) a[i] = ops.s[i] ? gk__slot_addr(ops.s[i]) : 0;
        if (ctx->backend == GK_BACKEND_CPU) {
            gk__cu_ptr ws = 0;
            st = gk__workspace(ctx, sizeof(double) * 7 * (size_t)p.H, &ws, where);
            if (st == GK_OK) {
                ws_used = 1;
                p.out = (float *)(uintptr_t)a[0]; p.hn = (float *)(uintptr_t)a[1]; p.cn = (float *)(uintptr_t)a[2];
                p.x = (const float *)(uintptr_t)a[3]; p.wih = (const float *)(uintptr_t)a[4]; p.whh = (const float *)(uintptr_t)a[5];
                p.bih = (const float *)(uintptr_t)a[6]; p.bhh = (const float *)(uintptr_t)a[7];
                p.h0 = (const float *)(uintptr_t)a[8]; p.c0 = (const float *)(uintptr_t)a[9];
                p.ws = (double *)(uintptr_t)ws;
                st = gk__cpu_run(ctx, gk__lstm_cpu, &p, sizeof p, where);
            }
        } else {
            int D = (int)p.D, H = (int)p.H, T = (int)p.T, I = (int)p.I, R = 4 * H, per_dir, U, NB, use_smem = 1;
            size_t oG = 0, oH = gk__al256(sizeof(float) * (size_t)p.D * (size_t)p.T * (size_t)R), oF = oH + gk__al256(sizeof(float) * 2 * (size_t)D * (size_t)H);
            size_t smem;
            gk__cu_ptr ws = 0, pG, pH, pF;
            per_dir = ctx->info.sm_count / D;
            if (per_dir > 256) per_dir = 256;
            if (per_dir < 1) per_dir = 1;
            U = (H + per_dir - 1) / per_dir;
            NB = (H + U - 1) / U;
            smem = sizeof(float) * ((size_t)4 * U * H + H + 8 * U);
            if ((long long)smem > (long long)ctx->info.max_smem_per_block_optin) { use_smem = 0; smem = sizeof(float) * ((size_t)H + 8 * U); }
            GK__UNUSED(oG);
            st = gk__workspace(ctx, oF + sizeof(unsigned) * (size_t)(D * NB), &ws, where);
            if (st == GK_OK) {
                unsigned grid[3], block[3] = { 256, 1, 1 };
                void *args[15];
                ws_used = 1;
                pG = ws; pH = ws + oH; pF = ws + oF;
                grid[0] = (unsigned)((R + 63) / 64); grid[1] = (unsigned)((T + 63) / 64); grid[2] = (unsigned)D;
                args[0] = &pG; args[1] = &a[3]; args[2] = &a[4]; args[3] = &a[6]; args[4] = &a[7]; args[5] = &T; args[6] = &R; args[7] = &I;
                st = gk__launch_cfg(ctx, GK__MOD_LSTM, "gk_lstm_proj", grid, block, 0, args, where);
                if (st == GK_OK) st = gk__sg_launch_err(ctx, ctx->cu.MemsetD8Async(pF, 0, sizeof(unsigned) * (size_t)(D * NB), ctx->cur_stream->cu), where, "cuMemsetD8Async");
                if (st == GK_OK) {
                    args[0] = &pG; args[1] = &a[5]; args[2] = &a[8]; args[3] = &a[9]; args[4] = &a[0]; args[5] = &a[1]; args[6] = &a[2];
                    args[7] = &pH; args[8] = &pF; args[9] = &T; args[10] = &H; args[11] = &D; args[12] = &NB; args[13] = &U; args[14] = &use_smem;
                    st = gk__launch_coop(ctx, GK__MOD_LSTM, "gk_lstm_rec", (unsigned)(D * NB), 256, (unsigned)smem, args, where);
                }
            }
        }
    }
    if (ws_used) gk__unuse(ctx, ctx->ws);
    gk__sg_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_lstm_new(gk_ctx *ctx, gk_tensor x, gk_tensor w_ih, gk_tensor w_hh, gk_tensor b_ih, gk_tensor b_hh, gk_tensor h0,
                            gk_tensor c0, gk_tensor *out) {
    int64_t sx[GK_MAX_DIMS], sw[GK_MAX_DIMS], so[2];
    int ndx = 0, ndw = 0;
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_lstm_new: out is NULL");
    GK__TRY(gk__sg_shape(ctx, x, &ndx, sx, NULL, "x", "gk_lstm_new"));
    GK__TRY(gk__sg_shape(ctx, w_ih, &ndw, sw, NULL, "w_ih", "gk_lstm_new"));
    so[0] = ndx > 0 ? sx[0] : 0;
    so[1] = ndw == 3 ? sw[0] * (sw[1] / 4) : 0;
    GK__TRY(gk__sg_alloc(ctx, x, GK_F32, 2, so, &t, "gk_lstm_new"));
    return gk__finish_new(ctx, gk_lstm(ctx, t, gk__sg_none, gk__sg_none, x, w_ih, w_hh, b_ih, b_hh, h0, c0), t, out);
}

