/* >>nn_norm: layer, RMS, add+RMS, group, instance norm, AdaIN */
/* ======================== norms ======================== */
typedef struct gk__normp {
    int64_t rows, L, R, cpg, S;
    int mode;          /* 0 mean/var, 1 rms, 2 add + rms */
    float eps;
    gk_dtype dt, wt;
    char *out, *h;
    const char *x, *res, *w, *b;
} gk__normp;

static int gk__norm_cpu(const void *vp) {
    const gk__normp *p = (const gk__normp *)vp;
    size_t es = gk__dtype_sizes[p->dt], ws = gk__dtype_sizes[p->wt];
    int64_t row, c;
    for (row = 0; row < p->rows; row++) {
        const char *xr = p->x + row * p->L * (int64_t)es;
        char *orow = p->out + row * p->L * (int64_t)es;
        double s = 0, q = 0, mean = 0;
        float rstd;
        int64_t cbase = (row % p->R) * p->cpg;
        if (p->mode == 2) {
            const char *rr = p->res + row * p->L * (int64_t)es;
            char *hr = p->h + row * p->L * (int64_t)es;
            for (c = 0; c < p->L; c++)
                gk__stf(p->dt, hr + c * (int64_t)es, gk__ldf(p->dt, xr + c * (int64_t)es) + gk__ldf(p->dt, rr + c * (int64_t)es));
            xr = hr;
        }
        if (p->mode == 0) {
            for (c = 0; c < p->L; c++) s += gk__ldf(p->dt, xr + c * (int64_t)es);
            mean = s / (double)p->L;
            for (c = 0; c < p->L; c++) { double d = gk__ldf(p->dt, xr + c * (int64_t)es) - mean; q += d * d; }
        } else {
            for (c = 0; c < p->L; c++) { double d = gk__ldf(p->dt, xr + c * (int64_t)es); q += d * d; }
        }
        rstd = (float)(1.0 / sqrt(q / (double)p->L + (double)p->eps));
        for (c = 0; c < p->L; c++) {
            int64_t ch = cbase + c / p->S;
            float v = gk__ldf(p->dt, xr + c * (int64_t)es), y;
            if (p->mode == 0) {
                y = (float)(((double)v - mean) * (double)rstd); /* mean unrounded: rows far from 0 keep their digits */
                if (p->w) y = y * gk__ldf(p->wt, p->w + ch * (int64_t)ws);
                if (p->b) y = y + gk__ldf(p->wt, p->b + ch * (int64_t)ws);
            } else {
                y = gk__nn_rnd(p->dt, v * rstd);
                if (p->w) y = gk__ldf(p->wt, p->w + ch * (int64_t)ws) * y;
            }
            gk__stf(p->dt, orow + c * (int64_t)es, y);
        }
    }
    return 0;
}

#define GK__NORM_NAMES(P, D, W) { P D "_" W "_v1", P D "_" W "_v2", P D "_" W "_v4", P D "_" W "_v8" }
#define GK__NORM_NAMES5(P) { GK__NORM_NAMES(P, "f32", "f32"), GK__NORM_NAMES(P, "f16", "f16"), GK__NORM_NAMES(P, "f16", "f32"), \
                             GK__NORM_NAMES(P, "bf16", "bf16"), GK__NORM_NAMES(P, "bf16", "f32") }
/* [0]: layer / rms, [1]: add + rms (residual loaded with x, before h is written) */
static const char *const gk__k_rownorm[2][5][4] = { GK__NORM_NAMES5("gk_rownorm_"), GK__NORM_NAMES5("gk_addrownorm_") };
/* persistent RMS norm, V = 1, 2, 4 */
#define GK__NORM_NAMESP(D, W) { "gk_rmsnorm_p_" D "_" W "_v1", "gk_rmsnorm_p_" D "_" W "_v2", "gk_rmsnorm_p_" D "_" W "_v4" }
static const char *const gk__k_rownorm_p[5][3] = { GK__NORM_NAMESP("f32", "f32"), GK__NORM_NAMESP("f16", "f16"), GK__NORM_NAMESP("f16", "f32"),
                                                    GK__NORM_NAMESP("bf16", "bf16"), GK__NORM_NAMESP("bf16", "f32") };
#define GK__NORM_NAMESL(D, W) { "gk_lnorm_p_" D "_" W "_v1", "gk_lnorm_p_" D "_" W "_v2", "gk_lnorm_p_" D "_" W "_v4" }
static const char *const gk__k_lnorm_p[5][3] = { GK__NORM_NAMESL("f32", "f32"), GK__NORM_NAMESL("f16", "f16"), GK__NORM_NAMESL("f16", "f32"),
                                                 GK__NORM_NAMESL("bf16", "bf16"), GK__NORM_NAMESL("bf16", "f32") };
#undef GK__NORM_NAMESL
static const char *const gk__k_warpnorm[2][5] = {
    { "gk_warpnorm_f32_f32", "gk_warpnorm_f16_f16", "gk_warpnorm_f16_f32", "gk_warpnorm_bf16_bf16", "gk_warpnorm_bf16_f32" },
    { "gk_addwarpnorm_f32_f32", "gk_addwarpnorm_f16_f16", "gk_addwarpnorm_f16_f32", "gk_addwarpnorm_bf16_bf16", "gk_addwarpnorm_bf16_f32" } };
/* the warp-per-row layer norm (src/ops/nn/norm.cu gk_lnwarp): [combo][V 4, 8, 16 vectors a lane] */
#define GK__LNW_NAMES(D, W) { "gk_lnwarp_" D "_" W "_v4", "gk_lnwarp_" D "_" W "_v8", "gk_lnwarp_" D "_" W "_v16" }
static const char *const gk__k_lnwarp[5][3] = { GK__LNW_NAMES("f32", "f32"), GK__LNW_NAMES("f16", "f16"), GK__LNW_NAMES("f16", "f32"),
                                                GK__LNW_NAMES("bf16", "bf16"), GK__LNW_NAMES("bf16", "f32") };
#undef GK__LNW_NAMES
/* The layer norm's kernel where the warp-per-row kernel can take the rows
   (no residual, rows of 33 to 512 16-byte vectors, x and out 16-byte
   aligned; the lane groups take shorter rows, the others gk_rownorm or
   gk_gnorm whatever this says). ctx->tune.ln_variant -1: the rule in gk__norm;
   0: gk_rownorm (one block a row); 1: gk_lnwarp, one row a warp (a block
   of 4 warps per 4 rows); 3: gk_lnorm_p, one block a row on a persistent
   grid, the next row's loads in flight during this one (only where
   gk__ln_persist holds; else 0); other values: the rule. Set by
   tests/test_nn.c and bench/bench_nn.c (they include the implementation) to
   check and time each. tune.ln_last: the variant the last CUDA
   gk_layer_norm launched (0, 1 or 3 as above; -1 another kernel). */
/* the persistent block-per-row kernels (gk_rmsnorm_p, gk_lnorm_p) take rows
   of 1 to 4 vectors a thread (vi 0..2) when there are more rows than fit at
   once but only a few waves of blocks (about 9 rows an SM at a time) */
static int gk__ln_persist(gk_ctx *ctx, int64_t rows, int vi) {
    return vi >= 0 && vi <= 2 && rows > (int64_t)ctx->info.sm_count * 4 && rows <= (int64_t)ctx->info.sm_count * 40;
}

static const char *const gk__k_gnorm[5] = { "gk_gnorm_f32_f32", "gk_gnorm_f16_f16", "gk_gnorm_f16_f32", "gk_gnorm_bf16_bf16", "gk_gnorm_bf16_f32" };
static const char *const gk__k_gnorm_part[5] = { "gk_gnorm_part_f32_f32", "gk_gnorm_part_f16_f16", "gk_gnorm_part_f16_f32", "gk_gnorm_part_bf16_bf16",
                                                 "gk_gnorm_part_bf16_f32" };
static const char *const gk__k_gnorm_apply[5] = { "gk_gnorm_apply_f32_f32", "gk_gnorm_apply_f16_f16", "gk_gnorm_apply_f16_f32", "gk_gnorm_apply_bf16_bf16",
                                                  "gk_gnorm_apply_bf16_f32" };

enum { GK__NK_LAYER = 0, GK__NK_RMS, GK__NK_ADDRMS, GK__NK_GROUP, GK__NK_INSTANCE, GK__NK_ADAIN };

/* One entry for every norm: kind, out, h (add+rms), x, residual, weight (or
   scale), bias (or shift), groups, eps. */
static gk_status gk__norm(gk_ctx *ctx, int kind, gk_tensor out, gk_tensor h, gk_tensor x, gk_tensor res, gk_tensor w, gk_tensor b,
                          int groups, double eps, const char *where) {
    const char *wn = kind == GK__NK_ADAIN ? "scale" : "weight", *bn = kind == GK__NK_ADAIN ? "shift" : "bias";
    gk_tensor ts[6];
    const char *names[6];
    int n = 0, iw = -1, ib = -1, ih = -1, ir = -1, i, combo;
    gk__opnds ops;
    gk__normp p;
    gk_status st;
    gk__slot *xs, *os;
    memset(&p, 0, sizeof p);
    ops.used = 0;
    GK__ENTER(ctx, where);
    ts[n] = out; names[n++] = "out";
    ts[n] = x; names[n++] = "x";
    if (kind == GK__NK_ADDRMS) { ih = n; ts[n] = h; names[n++] = "h"; ir = n; ts[n] = res; names[n++] = "residual"; }
    if (gk__nn_has(w) || kind == GK__NK_ADAIN) { iw = n; ts[n] = w; names[n++] = wn; }
    if (gk__nn_has(b) || kind == GK__NK_ADAIN) { ib = n; ts[n] = b; names[n++] = bn; }
    st = gk__operands(ctx, &ops, ts, names, n, where);
    if (st != GK_OK) goto done;
    os = ops.s[0];
    xs = ops.s[1];
    p.dt = xs->dtype;
    p.wt = iw >= 0 ? ops.s[iw]->dtype : p.dt;
    if (!gk__nn_isfloat3(p.dt)) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: x is %s (f32, f16 or bf16 only)", where, gk_dtype_name(p.dt)); goto done; }
    for (i = 0; i < n; i++) {
        int is_w = i == iw || i == ib;
        if (is_w && ops.s[i]->dtype != p.wt) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: %s is %s but %s is %s", where, names[i], gk_dtype_name(ops.s[i]->dtype), iw >= 0 ? names[iw] : "x", gk_dtype_name(p.wt)); goto done; }
        if (!is_w && ops.s[i]->dtype != p.dt) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: %s is %s but x is %s", where, names[i], gk_dtype_name(ops.s[i]->dtype), gk_dtype_name(p.dt)); goto done; }
        if (!gk__is_contig(ops.s[i])) { st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: %s is not contiguous (use gk_contiguous)", where, names[i]); goto done; }
        if (!is_w && i > 0 && !gk__nn_same_shape(ops.s[i], xs)) {
            char a[160];
            gk__shape_str(xs, a, sizeof a);
            st = gk__nn_shape_err(ctx, where, names[i], ops.s[i], a);
            goto done;
        }
    }
    if (!gk__nn_same_shape(os, xs)) {
        char a[160];
        gk__shape_str(xs, a, sizeof a);
        st = gk__nn_shape_err(ctx, where, "out", os, a);
        goto done;
    }
    combo = gk__nn_combo(p.dt, p.wt);
    if (combo < 0) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: %s is %s (f32 or x's dtype %s)", where, names[iw], gk_dtype_name(p.wt), gk_dtype_name(p.dt)); goto done; }
    if (!(eps >= 0) || eps > 1e30) { st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: eps %g must be >= 0", where, eps); goto done; }
    p.eps = (float)eps;
    if (kind <= GK__NK_ADDRMS) {
        int64_t D;
        if (xs->ndim < 1) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: x must have at least 1 dim", where); goto done; }
        D = xs->shape[xs->ndim - 1];
        p.L = D; p.R = 1; p.cpg = D; p.S = 1;
        p.rows = D ? gk__numel(xs) / D : 0;
        p.mode = kind == GK__NK_LAYER ? 0 : kind == GK__NK_RMS ? 1 : 2;
        for (i = 0; i < n; i++)
            if ((i == iw || i == ib) && (ops.s[i]->ndim != 1 || ops.s[i]->shape[0] != D)) {
                char want[64];
                snprintf(want, sizeof want, "[%lld]", (long long)D);
                st = gk__nn_shape_err(ctx, where, names[i], ops.s[i], want);
                goto done;
            }
    } else {
        int64_t B, C, S = 1;
        int d;
        if (xs->ndim < (kind == GK__NK_GROUP ? 2 : 3)) {
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: x has %d dims, expected [B, C, %s]", where, xs->ndim, kind == GK__NK_GROUP ? "*" : "T, ...");
            goto done;
        }
        B = xs->shape[0]; C = xs->shape[1];
        for (d = 2; d < xs->ndim; d++) S *= xs->shape[d];
        p.mode = 0;
        if (kind == GK__NK_GROUP) {
            if (groups <= 0 || C % groups != 0) { st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: num_groups %d must be > 0 and divide the %lld channels", where, groups, (long long)C); goto done; }
            p.rows = B * groups; p.L = (C / groups) * S; p.R = groups; p.cpg = C / groups; p.S = S;
        } else if (kind == GK__NK_INSTANCE) {
            p.rows = B * C; p.L = S; p.R = C > 0 ? C : 1; p.cpg = 1; p.S = S > 0 ? S : 1;
        } else {
            p.rows = B * C; p.L = S; p.R = B * C > 0 ? B * C : 1; p.cpg = 1; p.S = S > 0 ? S : 1;
        }
        if (p.S == 0) p.S = 1;
        for (i = 0; i < n; i++) {
            if (i != iw && i != ib) continue;
            if (kind == GK__NK_ADAIN) {
                if (ops.s[i]->ndim != 2 || ops.s[i]->shape[0] != B || ops.s[i]->shape[1] != C) {
                    char want[64];
                    snprintf(want, sizeof want, "[%lld,%lld]", (long long)B, (long long)C);
                    st = gk__nn_shape_err(ctx, where, names[i], ops.s[i], want);
                    goto done;
                }
            } else if (ops.s[i]->ndim != 1 || ops.s[i]->shape[0] != C) {
                char want[64];
                snprintf(want, sizeof want, "[%lld]", (long long)C);
                st = gk__nn_shape_err(ctx, where, names[i], ops.s[i], want);
                goto done;
            }
        }
    }
    if (p.rows == 0 || p.L == 0) goto done; /* empty: nothing to do */
    st = gk__operands_use(ctx, &ops, where);
    if (st != GK_OK) goto done;
    p.out = (char *)(uintptr_t)gk__slot_addr(os);
    p.x = (const char *)(uintptr_t)gk__slot_addr(xs);
    p.h = ih >= 0 ? (char *)(uintptr_t)gk__slot_addr(ops.s[ih]) : NULL;
    p.res = ir >= 0 ? (const char *)(uintptr_t)gk__slot_addr(ops.s[ir]) : NULL;
    p.w = iw >= 0 ? (const char *)(uintptr_t)gk__slot_addr(ops.s[iw]) : NULL;
    p.b = ib >= 0 ? (const char *)(uintptr_t)gk__slot_addr(ops.s[ib]) : NULL;
    if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__norm_cpu, &p, sizeof p, where);
    else {
        gk__cu_ptr px = gk__slot_addr(xs), po = gk__slot_addr(os), ph = ih >= 0 ? gk__slot_addr(ops.s[ih]) : 0,
                   pr = ir >= 0 ? gk__slot_addr(ops.s[ir]) : 0, pw = iw >= 0 ? gk__slot_addr(ops.s[iw]) : 0,
                   pb = ib >= 0 ? gk__slot_addr(ops.s[ib]) : 0;
        size_t es = gk__dtype_sizes[p.dt];
        int64_t rowb = p.L * (int64_t)es, nvec = rowb / 16;
        unsigned grid[3] = { 1, 1, 1 }, block[3] = { 1, 1, 1 };
        int vi = -1, lnv = 0;
        grid[0] = (unsigned)(p.rows < (1 << 30) ? p.rows : (1 << 30));
        if (kind <= GK__NK_ADDRMS && rowb % 16 == 0 && ((px | po | ph | pr) & 15) == 0) {
            int64_t t;
            /* vectors a thread by row length, 1 to 8 for blocks of about 128
               threads: one vector a thread on more threads is slower, and 8 on
               64 threads take 126 registers, too few rows in flight
               (docs/perf-log.md) */
            if (nvec <= 128) vi = 0;
            else if (nvec <= 256) vi = 1;
            else if (nvec <= 512) vi = 2;
            else if (nvec <= 4096) vi = 3;
            if (vi >= 0) {
                t = (nvec + (1 << vi) - 1) >> vi;
                block[0] = (unsigned)((t + 31) / 32 * 32);
            }
        }
        if (kind == GK__NK_LAYER) {
            ctx->tune.ln_last = -1;
            if (vi >= 0 && nvec > 32 && nvec <= 512) {
                /* the warp-per-row kernel (1) for rows of at most 128 vectors,
                   where it is ahead (bench_nn's layernorm_variants;
                   docs/perf-log.md), else the block-per-row kernel (0), on a
                   persistent grid (3) where gk__ln_persist holds */
                const int v = ctx->tune.ln_variant;
                if (v == 0 || v == 1 || v == 3) lnv = v;
                else lnv = nvec <= 128 ? 1 : gk__ln_persist(ctx, p.rows, vi) ? 3 : 0;
                if (lnv == 3 && !gk__ln_persist(ctx, p.rows, vi)) lnv = 0;
            }
            if (lnv == 0 && vi >= 0 && !(vi == 0 && nvec <= 32)) ctx->tune.ln_last = 0;
        }
        if (lnv == 1) {
            /* blocks of 4 warps, one row a warp (grid-stride beyond 2^30 blocks) */
            int Di = (int)p.L, kv = nvec <= 128 ? 0 : nvec <= 256 ? 1 : 2;
            const char *fn = gk__k_lnwarp[combo][kv];
            int64_t nb = (p.rows + 3) / 4;
            void *args[7];
            block[0] = 128;
            grid[0] = (unsigned)(nb < (1 << 30) ? nb : (1 << 30));
            args[0] = &p.rows; args[1] = &Di; args[2] = &p.eps; args[3] = &px; args[4] = &po; args[5] = &pw; args[6] = &pb;
            /* programmatic dependent launch (sm_90+): nothing touched before gk_pdl_wait */
            st = gk__launch_ex(ctx, GK__MOD_NORM, fn, grid, block, 0, args, GK__LAUNCH_PDL, where);
            if (st == GK_OK) ctx->tune.ln_last = lnv;
        } else if (vi == 0 && nvec <= 32) { /* short rows: G lanes a row (G a power of two >= nvec), 4 rows per lane a step */
            int Di = (int)p.L, G = 1, per_sm = 0;
            int64_t rpb, nb, maxb;
            void *args[11];
            gk__cu_function f;
            while (G < nvec) G *= 2;
            /* 128 threads, at most 64 registers (85 with the residual): as
               many blocks as are resident at once (8 an SM; 6), each walking
               steps of rpb rows, so there is no tail wave */
            rpb = 4 * (32 / G) * 4;
            nb = (p.rows + rpb - 1) / rpb;
            st = gk__lib_function(ctx, GK__MOD_NORM, gk__k_warpnorm[p.mode == 2][combo], &f, where);
            if (st != GK_OK) goto done;
            if (ctx->cu.OccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, 128, 0) != 0 || per_sm < 1) per_sm = 4;
            maxb = (int64_t)per_sm * ctx->info.sm_count;
            if (nb > maxb) nb = maxb;
            grid[0] = (unsigned)(nb < 1 ? 1 : nb);
            block[0] = 128;
            args[0] = &p.rows; args[1] = &Di; args[2] = &G; args[3] = &p.mode; args[4] = &p.eps; args[5] = &px; args[6] = &pr;
            args[7] = &ph; args[8] = &po; args[9] = &pw; args[10] = &pb;
            st = gk__launch_cfg(ctx, GK__MOD_NORM, gk__k_warpnorm[p.mode == 2][combo], grid, block, 0, args, where);
        } else if ((p.mode == 1 && gk__ln_persist(ctx, p.rows, vi)) || lnv == 3) {
            /* RMS norm over more rows than fit at once but only a few waves
               of blocks (about 9 rows an SM at a time): the persistent kernel
               (a block prefetches its next row during the current one), as
               many blocks as are resident, no tail wave: ahead of the
               block-per-row kernel at a few waves, behind it at many
               (docs/perf-log.md). */
            int Di = (int)p.L, per_sm = 0;
            int64_t nb;
            void *args[7];
            gk__cu_function f;
            const char *fn = (lnv == 3 ? gk__k_lnorm_p : gk__k_rownorm_p)[combo][vi];
            st = gk__lib_function(ctx, GK__MOD_NORM, fn, &f, where);
            if (st == GK_OK) {
                if (ctx->cu.OccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, (int)block[0], 0) != 0 || per_sm < 1) per_sm = 8;
                nb = (int64_t)per_sm * ctx->info.sm_count;
                grid[0] = (unsigned)(p.rows < nb ? p.rows : nb);
                args[0] = &p.rows; args[1] = &Di; args[2] = &p.eps; args[3] = &px; args[4] = &po; args[5] = &pw; args[6] = &pb;
                /* programmatic dependent launch (sm_90+): the kernel waits for
                   the previous one before touching memory, but its launch and
                   block setup overlap that kernel's tail */
                st = gk__launch_ex(ctx, GK__MOD_NORM, fn, grid, block, 0, args, GK__LAUNCH_PDL, where);
                if (st == GK_OK && lnv == 3) ctx->tune.ln_last = 3;
            }
        } else if (vi >= 0) {
            int Di = (int)p.L;
            void *args[10];
            args[0] = &p.rows; args[1] = &Di; args[2] = &p.mode; args[3] = &p.eps; args[4] = &px; args[5] = &pr;
            args[6] = &ph; args[7] = &po; args[8] = &pw; args[9] = &pb;
            st = gk__launch_cfg(ctx, GK__MOD_NORM, gk__k_rownorm[p.mode == 2][combo][vi], grid, block, 0, args, where);
        } else if (p.mode != 2 && p.L >= 16384 && p.rows < 2 * (int64_t)ctx->info.sm_count && p.rows <= 65535) {
            /* few long rows: split into chunks of >= 4096 columns, about 4 blocks an SM in all
               (gk_gnorm_part, then gk_gnorm_apply); the partial statistics in the workspace */
            int64_t want = (4 * (int64_t)ctx->info.sm_count + p.rows - 1) / p.rows, chunk;
            int splits = (int)GK__MIN(GK__MIN(want, p.L / 4096), (int64_t)1024);
            gk__cu_ptr pws = 0;
            void *args[15];
            unsigned g2[3], b2[3] = { 256, 1, 1 };
            if (splits < 1) splits = 1;
            chunk = (p.L + splits - 1) / splits;
            g2[0] = (unsigned)splits; g2[1] = (unsigned)p.rows; g2[2] = 1;
            st = gk__workspace(ctx, (size_t)p.rows * (size_t)splits * 8, &pws, where);
            if (st == GK_OK) {
                args[0] = &p.L; args[1] = &splits; args[2] = &chunk; args[3] = &p.mode; args[4] = &px; args[5] = &pws;
                st = gk__launch_cfg(ctx, GK__MOD_NORM, gk__k_gnorm_part[combo], g2, b2, 0, args, where);
                if (st == GK_OK) {
                    args[0] = &p.L; args[1] = &p.R; args[2] = &p.cpg; args[3] = &p.S; args[4] = &splits; args[5] = &chunk; args[6] = &p.mode;
                    args[7] = &p.eps; args[8] = &px; args[9] = &po; args[10] = &pw; args[11] = &pb; args[12] = &pws;
                    st = gk__launch_cfg(ctx, GK__MOD_NORM, gk__k_gnorm_apply[combo], g2, b2, 0, args, where);
                }
                gk__unuse(ctx, ctx->ws);
            }
        } else {
            void *args[13];
            block[0] = p.L >= 256 ? 256 : (unsigned)((p.L + 31) / 32 * 32);
            args[0] = &p.rows; args[1] = &p.L; args[2] = &p.R; args[3] = &p.cpg; args[4] = &p.S; args[5] = &p.mode; args[6] = &p.eps;
            args[7] = &px; args[8] = &pr; args[9] = &ph; args[10] = &po; args[11] = &pw; args[12] = &pb;
            st = gk__launch_cfg(ctx, GK__MOD_NORM, gk__k_gnorm[combo], grid, block, 0, args, where);
        }
    }
done:
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}

static const gk_tensor gk__nn_none = { 0, 0 };
GKDEF gk_status gk_layer_norm(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor weight, gk_tensor bias, double eps) {
    return gk__norm(ctx, GK__NK_LAYER, out, gk__nn_none, x, gk__nn_none, weight, bias, 0, eps, "gk_layer_norm");
}
GKDEF gk_status gk_rms_norm(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor weight, double eps) {
    return gk__norm(ctx, GK__NK_RMS, out, gk__nn_none, x, gk__nn_none, weight, gk__nn_none, 0, eps, "gk_rms_norm");
}
GKDEF gk_status gk_add_rms_norm(gk_ctx *ctx, gk_tensor out, gk_tensor h, gk_tensor x, gk_tensor residual, gk_tensor weight, double eps) {
    return gk__norm(ctx, GK__NK_ADDRMS, out, h, x, residual, weight, gk__nn_none, 0, eps, "gk_add_rms_norm");
}
GKDEF gk_status gk_group_norm(gk_ctx *ctx, gk_tensor out, gk_tensor x, int num_groups, gk_tensor weight, gk_tensor bias, double eps) {
    return gk__norm(ctx, GK__NK_GROUP, out, gk__nn_none, x, gk__nn_none, weight, bias, num_groups, eps, "gk_group_norm");
}
GKDEF gk_status gk_instance_norm(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor weight, gk_tensor bias, double eps) {
    return gk__norm(ctx, GK__NK_INSTANCE, out, gk__nn_none, x, gk__nn_none, weight, bias, 0, eps, "gk_instance_norm");
}
GKDEF gk_status gk_adain(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor scale, gk_tensor shift, double eps) {
    return gk__norm(ctx, GK__NK_ADAIN, out, gk__nn_none, x, gk__nn_none, scale, shift, 0, eps, "gk_adain");
}
static gk_status gk__norm_new(gk_ctx *ctx, int kind, gk_tensor x, gk_tensor res, gk_tensor w, gk_tensor b, int groups, double eps,
                              gk_tensor *out, gk_tensor *hout, const char *where) {
    gk_tensor t, h = gk__nn_none;
    gk_status st;
    if (out) out->id = 0;
    if (hout) hout->id = 0;
    if (!out || (kind == GK__NK_ADDRMS && !hout)) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", where);
    {
        gk_tensor_info info;
        GK__TRY(gk_tensor_info_get(ctx, x, &info));
        GK__TRY(gk__nn_empty(ctx, info.dtype, info.ndim, info.shape, &t, where));
        if (kind == GK__NK_ADDRMS) {
            st = gk__nn_empty(ctx, info.dtype, info.ndim, info.shape, &h, where);
            if (st != GK_OK) { gk_tensor_free(ctx, t); return st; }
        }
    }
    st = gk__norm(ctx, kind, t, h, x, res, w, b, groups, eps, where);
    if (kind == GK__NK_ADDRMS) {
        if (st != GK_OK) { gk_tensor_free(ctx, h); h = gk__nn_none; }
        *hout = h;
    }
    return gk__finish_new(ctx, st, t, out);
}
GKDEF gk_status gk_layer_norm_new(gk_ctx *ctx, gk_tensor x, gk_tensor weight, gk_tensor bias, double eps, gk_tensor *out) {
    return gk__norm_new(ctx, GK__NK_LAYER, x, gk__nn_none, weight, bias, 0, eps, out, NULL, "gk_layer_norm_new");
}
GKDEF gk_status gk_rms_norm_new(gk_ctx *ctx, gk_tensor x, gk_tensor weight, double eps, gk_tensor *out) {
    return gk__norm_new(ctx, GK__NK_RMS, x, gk__nn_none, weight, gk__nn_none, 0, eps, out, NULL, "gk_rms_norm_new");
}
GKDEF gk_status gk_add_rms_norm_new(gk_ctx *ctx, gk_tensor x, gk_tensor residual, gk_tensor weight, double eps, gk_tensor *out, gk_tensor *h) {
    return gk__norm_new(ctx, GK__NK_ADDRMS, x, residual, weight, gk__nn_none, 0, eps, out, h, "gk_add_rms_norm_new");
}
GKDEF gk_status gk_group_norm_new(gk_ctx *ctx, gk_tensor x, int num_groups, gk_tensor weight, gk_tensor bias, double eps, gk_tensor *out) {
    return gk__norm_new(ctx, GK__NK_GROUP, x, gk__nn_none, weight, bias, num_groups, eps, out, NULL, "gk_group_norm_new");
}
GKDEF gk_status gk_instance_norm_new(gk_ctx *ctx, gk_tensor x, gk_tensor weight, gk_tensor bias, double eps, gk_tensor *out) {
    return gk__norm_new(ctx, GK__NK_INSTANCE, x, gk__nn_none, weight, bias, 0, eps, out, NULL, "gk_instance_norm_new");
}
GKDEF gk_status gk_adain_new(gk_ctx *ctx, gk_tensor x, gk_tensor scale, gk_tensor shift, double eps, gk_tensor *out) {
    return gk__norm_new(ctx, GK__NK_ADAIN, x, gk__nn_none, scale, shift, 0, eps, out, NULL, "gk_adain_new");
}

