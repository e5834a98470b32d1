/* >>signal_conv: conv1d, transposed conv1d, conv2d, weight norm */
/* ======================= convolution ======================= */
/* Output size of one spatial dim, or -1 when invalid. */
static int64_t gk__conv_len(int64_t L, int64_t K, int64_t s, int64_t pd, int64_t d, int64_t op, int transposed) {
    if (!transposed) {
        int64_t span = d * (K - 1) + 1;
        if (L + 2 * pd < span) return -1;
        return (L + 2 * pd - span) / s + 1;
    }
    return (L - 1) * s - 2 * pd + d * (K - 1) + op + 1;
}

/* ---- 1-d convolution on TF32 tensor cores (conv_tc.cu) ---- */
typedef struct gk__convtcp { /* the layout of gk_convtcp in src/ops/signal/conv_tc.cu */
    int64_t B, Cin, L, Cout, Lo;
    int KW, pad, dil, RS, XS, ST, has_bias;
    int wal, xal; /* 16-byte weight rows / input rows (else 4-byte copies) */
    int ksplit;   /* the channel chunks split over blocks, partial sums in the workspace (gk_convtc_sum) */
} gk__convtcp;
#define GK__CTC_CK 8   /* input channels per reduction chunk (one m16n8k8 step per tap) */
#define GK__CTC_BN 128 /* output positions per block */

/* Shared-memory row strides (floats): Ws rows of 8 * KW weights padded to
   4 (mod 32), Xs rows of 128 + (KW - 1) * dil + 3 values padded to 8 (mod 32). */
static void gk__convtc_strides(const gk__convp *p, int *rs, int *xs) {
    int64_t r = GK__CTC_CK * p->KW, x = GK__CTC_BN + (p->KW - 1) * p->dw + 3;
    r += ((4 - r % 32) + 32) % 32;
    x += ((8 - x % 32) + 32) % 32;
    *rs = (int)r;
    *xs = (int)x;
}
static size_t gk__convtc_smem(const gk__convp *p, int bm, int st) {
    int rs, xs;
    gk__convtc_strides(p, &rs, &xs);
    return (size_t)st * ((size_t)bm * (size_t)rs + GK__CTC_CK * (size_t)xs) * 4;
}
/* What the kernel takes: f32, 1-d, stride 1, one group, at least 64 output
   channels, taps and dilation small enough for shared memory. Anything else
   runs on the f32 kernel (TF32 is a permission, not a requirement). */
static int gk__convtc_fits(gk_ctx *ctx, const gk__convp *p, gk_dtype dt) {
    if (dt != GK_F32 || p->H != 1 || p->KH != 1 || p->transposed || p->groups != 1 || p->sw != 1 || ctx->info.cc_major < 8) return 0;
    if (p->Cout < 64 || p->KW > 64 || p->dw > 64 || p->pw > INT32_MAX / 2) return 0;
    return gk__convtc_smem(p, 64, 2) <= (size_t)ctx->info.max_smem_per_block_optin;
}
static gk_status gk__convtc_launch(gk_ctx *ctx, const gk__convp *p, const gk__slot *so, const gk__slot *sx, const gk__slot *sw,
                                   const gk__slot *sb, const char *where) {
    gk__convtcp c;
    gk__cu_ptr po = gk__slot_addr(so), px = gk__slot_addr(sx), pw = gk__slot_addr(sw), pb = sb ? gk__slot_addr(sb) : 0, pws = 0;
    unsigned grid[3], block[3] = { 256, 1, 1 };
    void *args[5];
    int64_t nblk, chunks = (p->Cin + GK__CTC_CK - 1) / GK__CTC_CK, ks = 1;
    gk_status st;
    /* the first (rows, stages) that fits: 128-row tiles for >= 128 outputs, 3 stages where shared memory allows */
    static const int cand[4][2] = { { 128, 3 }, { 128, 2 }, { 64, 3 }, { 64, 2 } };
    int bm = 64, stg = 2, i;
    size_t smem = gk__convtc_smem(p, 64, 2), optin = (size_t)ctx->info.max_smem_per_block_optin;
    memset(&c, 0, sizeof c);
    for (i = p->Cout >= 128 ? 0 : 2; i < 4; i++)
        if (gk__convtc_smem(p, cand[i][0], cand[i][1]) <= optin) {
            bm = cand[i][0];
            stg = cand[i][1];
            smem = gk__convtc_smem(p, bm, stg);
            break;
        }
    c.B = p->B; c.Cin = p->Cin; c.L = p->W; c.Cout = p->Cout; c.Lo = p->Wo;
    c.KW = (int)p->KW; c.pad = (int)p->pw; c.dil = (int)p->dw; c.ST = stg; c.has_bias = p->has_bias;
    c.wal = (p->Cin * p->KW) % 4 == 0 && (pw & 15) == 0;
    c.xal = p->W % 4 == 0 && (px & 15) == 0;
    gk__convtc_strides(p, &c.RS, &c.XS);
    grid[0] = (unsigned)((p->Wo + GK__CTC_BN - 1) / GK__CTC_BN);
    grid[1] = (unsigned)((p->Cout + bm - 1) / bm);
    /* fewer tiles than 2 blocks an SM (short inputs: a sentence's decoder, the text encoder): the channel
       chunks split over up to 16 blocks of at least 4 chunks each, partial sums added in order by gk_convtc_sum */
    nblk = (int64_t)grid[0] * grid[1] * p->B;
    if (nblk < 2 * (int64_t)ctx->info.sm_count) {
        ks = (2 * (int64_t)ctx->info.sm_count + nblk - 1) / nblk;
        ks = GK__MIN(GK__MIN(ks, chunks / 4), (int64_t)16);
        if (ks < 1 || p->B * ks > 65535) ks = 1;
    }
    c.ksplit = (int)ks;
    grid[2] = (unsigned)(p->B * ks);
    args[0] = &c; args[1] = &po; args[2] = &px; args[3] = &pw; args[4] = &pb;
    if (ks > 1) {
        st = gk__workspace(ctx, (size_t)ks * (size_t)(p->B * p->Cout * p->Wo) * 4, &pws, where);
        if (st != GK_OK) return st;
        args[1] = &pws;
    }
    st = gk__launch_cfg(ctx, GK__MOD_CONV_TC, bm == 128 ? "gk_convtc_128" : "gk_convtc_64", grid, block, (unsigned)smem, args, where);
    if (st == GK_OK && ks > 1) {
        unsigned g2[3] = { 1, 1, 1 };
        int64_t nb = (p->B * p->Cout * p->Wo + 255) / 256;
        void *a2[4];
        g2[0] = (unsigned)(nb < 4096 ? nb : 4096);
        a2[0] = &c; a2[1] = &po; a2[2] = &pws; a2[3] = &pb;
        st = gk__launch_cfg(ctx, GK__MOD_CONV_TC, "gk_convtc_sum", g2, block, 0, a2, where);
    }
    if (ks > 1) gk__unuse(ctx, ctx->ws);
    return st;
}

/* The one entry of the convolutions: nsp = 1 (1-d: H = 1) or 2. tf32: f32
   1-d convolutions may run on TF32 tensor cores (gk__convtc_fits). */
static gk_status gk__conv(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor bias, int nsp, int transposed,
                          const int64_t *stride, const int64_t *padding, const int64_t *dilation, const int64_t *outpad, int64_t groups,
                          int tf32, const char *where) {
    static const char *const names[4] = { "out", "x", "w", "bias" };
    gk_tensor ts[4];
    gk__opnds ops;
    gk__conv_cpu_p q;
    gk__convp *p = &q.p;
    gk_status st;
    int i, nd = nsp + 2;
    ts[0] = out; ts[1] = x; ts[2] = w; ts[3] = bias;
    GK__ENTER(ctx, where);
    memset(&q, 0, sizeof q);
    st = gk__sg_operands(ctx, &ops, ts, names, 4, 8u, where);
    if (st == GK_OK) st = gk__sg_check(ctx, &ops, names, 1, where);
    for (i = 0; st == GK_OK && i < nsp; i++) {
        if (stride[i] < 1 || dilation[i] < 1 || padding[i] < 0 || (transposed && (outpad[i] < 0 || (outpad[i] >= stride[i] && outpad[i] >= dilation[i]))))
            st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: stride %lld, padding %lld, dilation %lld%s%lld: need stride >= 1, dilation >= 1, padding >= 0%s",
                         where, (long long)stride[i], (long long)padding[i], (long long)dilation[i], transposed ? ", output_padding " : "",
                         transposed ? (long long)outpad[i] : 0LL, transposed ? ", 0 <= output_padding < stride or dilation" : "");
    }
    if (st == GK_OK && groups < 1) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: groups %lld < 1", where, (long long)groups);
    if (st == GK_OK && ops.s[1]->ndim != nd) st = gk__sg_shape_err(ctx, ops.s[1], "x", nsp == 1 ? "[B, Cin, L]" : "[B, Cin, H, W]", where);
    if (st == GK_OK && ops.s[2]->ndim != nd)
        st = gk__sg_shape_err(ctx, ops.s[2], "w", transposed ? "[Cin, Cout/groups, K]" : nsp == 1 ? "[Cout, Cin/groups, K]" : "[Cout, Cin/groups, KH, KW]", where);
    if (st == GK_OK) {
        const gk__slot *sx = ops.s[1], *sw = ops.s[2];
        p->B = sx->shape[0];
        p->Cin = sx->shape[1];
        p->H = nsp == 2 ? sx->shape[2] : 1;
        p->W = sx->shape[nd - 1];
        p->KH = nsp == 2 ? sw->shape[2] : 1;
        p->KW = sw->shape[nd - 1];
        p->sh = nsp == 2 ? stride[0] : 1; p->sw = stride[nsp - 1];
        p->ph = nsp == 2 ? padding[0] : 0; p->pw = padding[nsp - 1];
        p->dh = nsp == 2 ? dilation[0] : 1; p->dw = dilation[nsp - 1];
        p->groups = groups;
        p->transposed = transposed;
        if (p->Cin % groups)
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: groups %lld does not divide the %lld input channels", where, (long long)groups, (long long)p->Cin);
        else if (!transposed && (sw->shape[0] % groups || sw->shape[1] * groups != p->Cin))
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: w has %lld output channels and %lld input channels per group; x has %lld channels in %lld groups",
                         where, (long long)sw->shape[0], (long long)sw->shape[1], (long long)p->Cin, (long long)groups);
        else if (transposed && sw->shape[0] != p->Cin)
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: w has %lld input channels but x has %lld", where, (long long)sw->shape[0], (long long)p->Cin);
        else if (p->KW < 1 || p->KH < 1)
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: empty kernel", where);
        else {
            p->Cout = transposed ? sw->shape[1] * groups : sw->shape[0];
            p->Ho = nsp == 2 ? gk__conv_len(p->H, p->KH, p->sh, p->ph, p->dh, transposed ? outpad[0] : 0, transposed) : 1;
            p->Wo = gk__conv_len(p->W, p->KW, p->sw, p->pw, p->dw, transposed ? outpad[nsp - 1] : 0, transposed);
            if (p->Ho < 1 || p->Wo < 1)
                st = gk__err(ctx, GK_ERR_SHAPE, "%s: the input (%lld x %lld) is smaller than the dilated kernel with padding", where,
                             (long long)p->H, (long long)p->W);
        }
    }
    if (st == GK_OK) {
        const gk__slot *so = ops.s[0];
        int64_t want[4];
        char wb[160];
        want[0] = p->B; want[1] = p->Cout;
        if (nsp == 2) { want[2] = p->Ho; want[3] = p->Wo; } else want[2] = p->Wo;
        if (so->ndim != nd || memcmp(so->shape, want, sizeof(int64_t) * (size_t)nd) != 0) {
            if (nsp == 2) snprintf(wb, sizeof wb, "[%lld,%lld,%lld,%lld]", (long long)want[0], (long long)want[1], (long long)want[2], (long long)want[3]);
            else snprintf(wb, sizeof wb, "[%lld,%lld,%lld]", (long long)want[0], (long long)want[1], (long long)want[2]);
            st = gk__sg_shape_err(ctx, so, "out", wb, where);
        }
    }
    if (st == GK_OK && ops.s[3]) {
        if (gk__numel(ops.s[3]) != p->Cout) st = gk__err(ctx, GK_ERR_SHAPE, "%s: bias has %lld elements, expected %lld", where,
                                                          (long long)gk__numel(ops.s[3]), (long long)p->Cout);
        p->has_bias = 1;
    }
    if (st == GK_OK && (p->Cin / groups * p->KH * p->KW > INT32_MAX || p->B * p->Ho * p->Wo > INT32_MAX || groups > 65535 || p->Cout / groups > (int64_t)65535 * 64 ||
                         (nsp == 1 && transposed && (groups * p->sw > 65535 || p->W > INT32_MAX || p->sw * p->dw > INT32_MAX))))
        st = gk__err(ctx, GK_ERR_LIMIT, "%s: sizes beyond the kernel's 32-bit tiles (or more than 65535 groups)", where);
    if (st == GK_OK && gk__numel(ops.s[0]) == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__sg_use(ctx, &ops, where);
    if (st == GK_OK) {
        q.dt = ops.s[0]->dtype;
        if (ctx->backend == GK_BACKEND_CPU) {
            q.out = (char *)(uintptr_t)gk__slot_addr(ops.s[0]);
            q.x = (const char *)(uintptr_t)gk__slot_addr(ops.s[1]);
            q.w = (const char *)(uintptr_t)gk__slot_addr(ops.s[2]);
            q.bias = ops.s[3] ? (const char *)(uintptr_t)gk__slot_addr(ops.s[3]) : NULL;
            st = gk__cpu_run(ctx, gk__conv_cpu, &q, sizeof q, where);
        } else if (tf32 && gk__convtc_fits(ctx, p, q.dt)) {
            st = gk__convtc_launch(ctx, p, ops.s[0], ops.s[1], ops.s[2], ops.s[3], where);
        } else {
            static const char *const kn[2][GK_DTYPE_COUNT] = { { "gk_conv_f32", NULL, "gk_conv_f16", "gk_conv_bf16" },
                                                              { "gk_conv128_f32", NULL, "gk_conv128_f16", "gk_conv128_bf16" } };
            gk__cu_ptr po = gk__slot_addr(ops.s[0]), px = gk__slot_addr(ops.s[1]), pw = gk__slot_addr(ops.s[2]),
                       pb = ops.s[3] ? gk__slot_addr(ops.s[3]) : 0, pws = 0;
            int64_t N = p->B * p->Ho * p->Wo, Mg = p->Cout / groups;
            int used_ws = 0;
            unsigned grid[3], block[3] = { 256, 1, 1 };
            void *args[5];
            args[0] = p; args[1] = &po; args[2] = &px; args[3] = &pw; args[4] = &pb;
            static const char *const knt[2][GK_DTYPE_COUNT] = { { "gk_convt1_f32", NULL, "gk_convt1_f16", "gk_convt1_bf16" },
                                                               { "gk_convt1_128_f32", NULL, "gk_convt1_128_f16", "gk_convt1_128_bf16" } };
            /* 1-d transposed: one GEMM per (group, output phase t mod stride), no zero taps */
            int poly = nsp == 1 && transposed;
            int big = Mg >= 128; /* 128 x 64 tiles for wide groups */
            int64_t target = 2 * (int64_t)ctx->info.sm_count, nblk;
            grid[0] = (unsigned)(poly ? (p->B * ((p->Wo + p->sw - 1) / p->sw) + 63) / 64 : (N + 63) / 64);
            grid[2] = (unsigned)(poly ? groups * p->sw : groups);
            /* polyphase with few tiles: 64-row tiles, then the reduction split (f32, partial sums in the workspace added
               in order by gk_convt1_sum) up to ~2 blocks per SM */
            if (poly && big && (int64_t)grid[0] * ((Mg + 127) / 128) * grid[2] < target / 2) big = 0;
            grid[1] = (unsigned)(big ? (Mg + 127) / 128 : (Mg + 63) / 64);
            nblk = (int64_t)grid[0] * grid[1] * grid[2];
            p->ksplit = 1;
            if (poly && q.dt == GK_F32 && nblk < target / 2) {
                int64_t gd = p->sw, dd = p->dw, red, ks;
                while (dd) { int64_t t = gd % dd; gd = dd; dd = t; }
                red = p->Cin / groups * ((p->KW + p->sw / gd - 1) / (p->sw / gd)); /* reduction length of the longest phase */
                ks = (target + nblk - 1) / nblk;
                if (ks > red / 64) ks = red / 64; /* at least 4 k-steps of 16 per block */
                if (ks > 16) ks = 16;
                if (ks > 1 && (int64_t)grid[2] * ks <= 65535) {
                    p->ksplit = (int)ks;
                    grid[2] = (unsigned)(grid[2] * ks);
                    st = gk__workspace(ctx, (size_t)ks * (size_t)gk__numel(ops.s[0]) * 4, &pws, where);
                    if (st == GK_OK) { args[1] = &pws; used_ws = 1; }
                }
            }
            if (st == GK_OK) st = gk__launch_cfg(ctx, GK__MOD_CONV, (poly ? knt : kn)[big][q.dt], grid, block, 0, args, where);
            if (st == GK_OK && p->ksplit > 1) {
                unsigned g2[3] = { 1, 1, 1 };
                void *a2[3];
                int64_t nb = (gk__numel(ops.s[0]) + 255) / 256;
                g2[0] = (unsigned)(nb < 4096 ? nb : 4096);
                a2[0] = p; a2[1] = &po; a2[2] = &pws;
                st = gk__launch_cfg(ctx, GK__MOD_CONV, "gk_convt1_sum", g2, block, 0, a2, where);
            }
            if (used_ws) gk__unuse(ctx, ctx->ws);
        }
    }
    gk__sg_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_conv1d(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor bias, int64_t stride, int64_t padding,
                          int64_t dilation, int64_t groups) {
    return gk__conv(ctx, out, x, w, bias, 1, 0, &stride, &padding, &dilation, NULL, groups, 0, "gk_conv1d");
}
GKDEF gk_status gk_conv1d_ex(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor bias, const gk_conv1d_desc *desc) {
    gk_conv1d_desc d;
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    if (d.stride == 0) d.stride = 1;
    if (d.dilation == 0) d.dilation = 1;
    if (d.groups == 0) d.groups = 1;
    return gk__conv(ctx, out, x, w, bias, 1, 0, &d.stride, &d.padding, &d.dilation, NULL, d.groups, d.allow_tf32 != 0, "gk_conv1d_ex");
}
GKDEF gk_status gk_conv_transpose1d(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor bias, int64_t stride,
                                    int64_t padding, int64_t output_padding, int64_t groups, int64_t dilation) {
    return gk__conv(ctx, out, x, w, bias, 1, 1, &stride, &padding, &dilation, &output_padding, groups, 0, "gk_conv_transpose1d");
}
GKDEF gk_status gk_conv2d(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor bias, const int64_t stride[2],
                          const int64_t padding[2], const int64_t dilation[2], int64_t groups) {
    if (!stride || !padding || !dilation) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_conv2d: stride, padding or dilation is NULL");
    return gk__conv(ctx, out, x, w, bias, 2, 0, stride, padding, dilation, NULL, groups, 0, "gk_conv2d");
}
/* _new: computes the output shape from x and w (the op validates the rest) */
static gk_status gk__conv_new(gk_ctx *ctx, gk_tensor x, gk_tensor w, gk_tensor bias, int nsp, int transposed, const int64_t *stride,
                              const int64_t *padding, const int64_t *dilation, const int64_t *outpad, int64_t groups, gk_tensor *out,
                              const char *where) {
    int64_t sx[GK_MAX_DIMS], sw[GK_MAX_DIMS], so[4];
    int ndx = 0, ndw = 0, i;
    gk_tensor t;
    gk_status st;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", where);
    GK__TRY(gk__sg_shape(ctx, x, &ndx, sx, NULL, "x", where));
    GK__TRY(gk__sg_shape(ctx, w, &ndw, sw, NULL, "w", where));
    if (ndx != nsp + 2 || ndw != nsp + 2) {
        gk__enter(ctx);
        st = gk__err(ctx, GK_ERR_SHAPE, "%s: x and w must have %d dims (got %d and %d)", where, nsp + 2, ndx, ndw);
        gk__unlock(&ctx->mu);
        return st;
    }
    so[0] = sx[0];
    so[1] = transposed ? sw[1] * (groups > 0 ? groups : 1) : sw[0];
    for (i = 0; i < nsp; i++) {
        int64_t s = stride[i] > 0 ? stride[i] : 1, d = dilation[i] > 0 ? dilation[i] : 1;
        so[2 + i] = gk__conv_len(sx[2 + i], sw[2 + i], s, padding[i], d, transposed ? outpad[i] : 0, transposed);
        if (so[2 + i] < 0) so[2 + i] = 0;
    }
    GK__TRY(gk__sg_alloc(ctx, x, -1, nsp + 2, so, &t, where));
    st = gk__conv(ctx, t, x, w, bias, nsp, transposed, stride, padding, dilation, outpad, groups, 0, where);
    return gk__finish_new(ctx, st, t, out);
}
GKDEF gk_status gk_conv1d_new(gk_ctx *ctx, gk_tensor x, gk_tensor w, gk_tensor bias, int64_t stride, int64_t padding, int64_t dilation,
                              int64_t groups, gk_tensor *out) {
    return gk__conv_new(ctx, x, w, bias, 1, 0, &stride, &padding, &dilation, NULL, groups, out, "gk_conv1d_new");
}
GKDEF gk_status gk_conv_transpose1d_new(gk_ctx *ctx, gk_tensor x, gk_tensor w, gk_tensor bias, int64_t stride, int64_t padding,
                                        int64_t output_padding, int64_t groups, int64_t dilation, gk_tensor *out) {
    return gk__conv_new(ctx, x, w, bias, 1, 1, &stride, &padding, &dilation, &output_padding, groups, out, "gk_conv_transpose1d_new");
}
GKDEF gk_status gk_conv2d_new(gk_ctx *ctx, gk_tensor x, gk_tensor w, gk_tensor bias, const int64_t stride[2], const int64_t padding[2],
                              const int64_t dilation[2], int64_t groups, gk_tensor *out) {
    if (out) out->id = 0;
    if (!stride || !padding || !dilation) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_conv2d_new: stride, padding or dilation is NULL");
    return gk__conv_new(ctx, x, w, bias, 2, 0, stride, padding, dilation, NULL, groups, out, "gk_conv2d_new");
}

/* ---- weight norm ---- */
typedef struct gk__wnorm_p { gk_dtype dt; int64_t C, inner; char *out; const char *v, *g; } gk__wnorm_p;
static int gk__wnorm_cpu(const void *vp) {
    const gk__wnorm_p *p = (const gk__wnorm_p *)vp;
    size_t es = gk__dtype_sizes[p->dt];
    int64_t o, i;
    for (o = 0; o < p->C; o++) {
        double s = 0, sc;
        for (i = 0; i < p->inner; i++) { double a = gk__ldf(p->dt, p->v + (o * p->inner + i) * (int64_t)es); s += a * a; }
        sc = (double)gk__ldf(p->dt, p->g + o * (int64_t)es) / sqrt(s);
        for (i = 0; i < p->inner; i++)
            gk__stf(p->dt, p->out + (o * p->inner + i) * (int64_t)es, (float)(gk__ldf(p->dt, p->v + (o * p->inner + i) * (int64_t)es) * sc));
    }
    return 0;
}
GKDEF gk_status gk_weight_norm(gk_ctx *ctx, gk_tensor out, gk_tensor v, gk_tensor g) {
    static const char *const names[3] = { "out", "v", "g" };
    const char *where = "gk_weight_norm";
    gk_tensor ts[3];
    gk__opnds ops;
    gk__wnorm_p p;
    gk_status st;
    int i;
    ts[0] = out; ts[1] = v; ts[2] = g;
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__sg_operands(ctx, &ops, ts, names, 3, 0, where);
    if (st == GK_OK) st = gk__sg_check(ctx, &ops, names, 1, where);
    if (st == GK_OK && ops.s[1]->ndim < 1) st = gk__sg_shape_err(ctx, ops.s[1], "v", "at least 1 dim", where);
    if (st == GK_OK) {
        const gk__slot *so = ops.s[0], *sv = ops.s[1];
        if (so->ndim != sv->ndim || memcmp(so->shape, sv->shape, sizeof(int64_t) * (size_t)sv->ndim) != 0)
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: out and v differ in shape", where);
        else {
            p.C = sv->shape[0];
            p.inner = p.C ? gk__numel(sv) / p.C : 0;
            if (gk__numel(ops.s[2]) != p.C)
                st = gk__err(ctx, GK_ERR_SHAPE, "%s: g has %lld elements, expected %lld (one per slice of dim 0)", where,
                             (long long)gk__numel(ops.s[2]), (long long)p.C);
            for (i = 1; st == GK_OK && i < ops.s[2]->ndim; i++)
                if (ops.s[2]->shape[i] != 1 && ops.s[2]->shape[0] != p.C) st = gk__err(ctx, GK_ERR_SHAPE, "%s: g must be [C] or [C, 1, ...]", where);
        }
    }
    if (st == GK_OK && (p.C == 0 || p.inner == 0)) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK && p.C > INT32_MAX) st = gk__err(ctx, GK_ERR_LIMIT, "%s: too many channels", where);
    if (st == GK_OK) st = gk__sg_use(ctx, &ops, where);
    if (st == GK_OK) {
        p.dt = ops.s[0]->dtype;
        if (ctx->backend == GK_BACKEND_CPU) {
            p.out = (char *)(uintptr_t)gk__slot_addr(ops.s[0]);
            p.v = (const char *)(uintptr_t)gk__slot_addr(ops.s[1]);
            p.g = (const char *)(uintptr_t)gk__slot_addr(ops.s[2]);
            st = gk__cpu_run(ctx, gk__wnorm_cpu, &p, sizeof p, where);
        } else {
            static const char *const kn[GK_DTYPE_COUNT] = { "gk_wnorm_f32", NULL, "gk_wnorm_f16", "gk_wnorm_bf16" };
            gk__cu_ptr po = gk__slot_addr(ops.s[0]), pv = gk__slot_addr(ops.s[1]), pg = gk__slot_addr(ops.s[2]);
            unsigned grid[3] = { 0, 1, 1 }, block[3] = { 256, 1, 1 };
            void *args[4];
            grid[0] = (unsigned)p.C;
            args[0] = &p.inner; args[1] = &po; args[2] = &pv; args[3] = &pg;
            st = gk__launch_cfg(ctx, GK__MOD_CONV, kn[p.dt], grid, block, 0, args, where);
        }
    }
    gk__sg_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_weight_norm_new(gk_ctx *ctx, gk_tensor v, gk_tensor g, gk_tensor *out) {
    int64_t shape[GK_MAX_DIMS];
    int nd = 0;
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_weight_norm_new: out is NULL");
    GK__TRY(gk__sg_shape(ctx, v, &nd, shape, NULL, "v", "gk_weight_norm_new"));
    GK__TRY(gk__sg_alloc(ctx, v, -1, nd, shape, &t, "gk_weight_norm_new"));
    return gk__finish_new(ctx, gk_weight_norm(ctx, t, v, g), t, out);
}

