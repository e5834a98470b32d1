/* >>math_softmax: softmax, log_softmax, cumsum */
/* ---- softmax / log_softmax over the last dim, cumsum along a dim ---- */
typedef struct gk__rowop {
    gk__nd on;                   /* the rows (lines): 0 out, 1 x */
    int64_t n, xs, os;           /* elements per row, their strides */
    gk_dtype dt;
    int kind;                    /* 0 softmax, 1 log_softmax, 2 cumsum */
    char *o;
    const char *x;
} gk__rowop;
static int gk__rowop_cpu(const void *vp) {
    const gk__rowop *p = (const gk__rowop *)vp;
    int64_t es = (int64_t)gk__dtype_sizes[p->dt], n = p->n, j;
    int f64 = p->dt == GK_F64, fl = gk_dtype_is_float(p->dt);
    const gk__nd *on = &p->on;
    GK__ND_FOR(on, {
        const char *xr = p->x + o1 * es;
        char *yr = p->o + o0 * es;
        if (p->kind == 2) {
            double acc = 0;
            int64_t iacc = 0;
            for (j = 0; j < n; j++) {
                const char *e = xr + j * p->xs * es;
                char *y = yr + j * p->os * es;
                if (!fl) { iacc = (int64_t)((uint64_t)iacc + (uint64_t)gk__ldi(p->dt, e)); gk__sti(p->dt, y, iacc); }
                else if (f64) { acc += gk__ldd(p->dt, e); memcpy(y, &acc, 8); }
                else { acc += gk__ldf(p->dt, e); gk__stf(p->dt, y, (float)acc); }
            }
        } else {
            /* the kernel's semantics: m = max over non-NaN, exp(0) = 1 for entries equal to m */
            double m = -INFINITY, s = 0, ls, v;
            int nan = 0;
            for (j = 0; j < n; j++) {
                double x = gk__ldd(p->dt, xr + j * p->xs * es);
                if (x != x) nan = 1;
                else if (x > m) m = x;
            }
            for (j = 0; j < n && !nan; j++) {
                double x = gk__ldd(p->dt, xr + j * p->xs * es);
                if (x == m) s += 1;
                else if (x != -INFINITY) s += f64 ? exp(x - m) : (double)expf((float)(x - m));
            }
            ls = log(s);
            for (j = 0; j < n; j++) {
                double x = gk__ldd(p->dt, xr + j * p->xs * es);
                char *y = yr + j * p->os * es;
                if (nan) v = NAN;
                else if (m == -INFINITY) v = p->kind ? -INFINITY : 0;
                else if (p->kind) v = (x == m ? 0 : x - m) - ls;
                else v = (x == m ? 1 : f64 ? exp(x - m) : (double)expf((float)(x - m))) / s;
                if (f64) memcpy(y, &v, 8);
                else gk__stf(p->dt, y, (float)v);
            }
        }
    });
    return 0;
}
static const char *const gk__k_softmax[2][GK_DTYPE_COUNT] = { GK__DTNAMES("gk_softmax_", ""), GK__DTNAMES("gk_log_softmax_", "") };
static const char *const gk__k_softmax_reg[2][2][GK_DTYPE_COUNT] = {
    { GK__DTNAMES("gk_softmax_r4_", ""), GK__DTNAMES("gk_softmax_r8_", "") },
    { GK__DTNAMES("gk_log_softmax_r4_", ""), GK__DTNAMES("gk_log_softmax_r8_", "") } };
static const char *const gk__k_cumsum[2][GK_DTYPE_COUNT] = { GK__DTNAMES("gk_cumsum_", ""), GK__DTNAMES("gk_cumsum_", "_b") };

static gk_status gk__rowop_run(gk_ctx *ctx, gk_tensor out, gk_tensor x, int kind, int axis, const char *where) {
    static const char *const names[2] = { "out", "x" };
    gk_tensor ts[2];
    gk__opnds ops;
    gk__rowop p;
    gk__slot so, sx;
    gk__slot *pp[2];
    gk_status st;
    int ax = -1;
    ts[0] = out; ts[1] = x;
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__operands(ctx, &ops, ts, names, 2, where);
    if (st == GK_OK) {
        gk_dtype dt = ops.s[1]->dtype;
        if (kind == 2 && (dt == GK_I32 || dt == GK_I64)) st = GK_OK;
        else st = gk__need_fdt(ctx, ops.s[1], "x", where);
        if (st == GK_OK && ops.s[0]->dtype != dt)
            st = gk__err(ctx, GK_ERR_DTYPE, "%s: out is %s but x is %s", where, gk_dtype_name(ops.s[0]->dtype), gk_dtype_name(dt));
    }
    if (st == GK_OK) st = gk__shape_eq(ctx, ops.s[0], ops.s[1]->ndim, ops.s[1]->shape, "out", where);
    if (st == GK_OK) {
        const gk__slot *xs = ops.s[1];
        if (kind == 2) {
            if (!gk__norm_axis(axis, xs->ndim, &ax)) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: axis %d out of range for %d dims", where, axis, xs->ndim);
        } else ax = xs->ndim - 1;
    }
    if (st == GK_OK) {
        if (ax < 0) { /* 0-d: one row of one element */
            so = *ops.s[0]; sx = *ops.s[1];
            p.n = 1; p.xs = 1; p.os = 1;
        } else {
            so = gk__slot_drop(ops.s[0], ax);
            sx = gk__slot_drop(ops.s[1], ax);
            p.n = ops.s[1]->shape[ax]; p.xs = ops.s[1]->strides[ax]; p.os = ops.s[0]->strides[ax];
        }
        pp[0] = &so; pp[1] = &sx;
        st = gk__nd_build(ctx, &p.on, pp, 2, names, where);
        p.dt = ops.s[1]->dtype;
        p.kind = kind;
    }
    if (st == GK_OK && (p.on.n == 0 || p.n == 0)) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__operands_use(ctx, &ops, where);
    if (st == GK_OK) {
        gk__cu_ptr po = gk__slot_addr(ops.s[0]), px = gk__slot_addr(ops.s[1]);
        void *args[6];
        p.o = (char *)(uintptr_t)po;
        p.x = (const char *)(uintptr_t)px;
        args[0] = &p.on; args[1] = &p.n; args[2] = &p.xs; args[3] = &p.os; args[4] = &po; args[5] = &px;
        if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__rowop_cpu, &p, sizeof p, where);
        else if (kind == 2 && p.n < 256) st = gk__launch(ctx, GK__MOD_REDUCE, gk__k_cumsum[0][p.dt], p.on.n, args, where);
        else if (kind == 2) {
            unsigned grid[3] = { 1, 1, 1 }, block[3] = { 256, 1, 1 };
            grid[0] = (unsigned)gk__grid_cap(ctx, p.on.n, 32);
            st = gk__launch_cfg(ctx, GK__MOD_REDUCE, gk__k_cumsum[1][p.dt], grid, block, 0, args, where);
        } else {
            /* one block per row; few long rows are split into parts (stats per part in the
               workspace, then each part merges its row's stats in order and writes) */
            unsigned grid[3] = { 1, 1, 1 }, block[3] = { 256, 1, 1 };
            int64_t M = p.on.n, S = 1, chunk = p.n, sms = ctx->info.sm_count > 0 ? ctx->info.sm_count : 1;
            int phase = 0;
            gk__cu_ptr ws = 0;
            void *sargs[10];
            int64_t nvec = p.n / (int64_t)(16 / gk__dtype_sizes[p.dt]);
            if (p.xs == 1 && p.os == 1 && nvec <= 8192 && (M >= sms || p.n < 16384)) {
                /* the row fits in the registers of one block: read once, write once */
                int nv = nvec <= 4096 ? 4 : 8;
                int64_t T = ((nvec + nv - 1) / nv + 31) / 32 * 32;
                if (T < 128) T = 128;
                block[0] = (unsigned)T;
                grid[0] = (unsigned)gk__grid_cap(ctx, M, (int)(2048 / T));
                st = gk__launch_cfg(ctx, GK__MOD_REDUCE, gk__k_softmax_reg[kind][nv == 8][p.dt], grid, block, 0, args, where);
                goto launched;
            }
            if (M < sms && p.n >= 16384) {
                /* at most two blocks an SM in all, so both phases run in one
                   wave (rounding up gave 288 blocks of 1024 threads for 32
                   rows on 132 SMs: two waves each) */
                S = 2 * sms / M;
                if (S > (p.n + 8191) / 8192) S = (p.n + 8191) / 8192;
                chunk = ((p.n + S - 1) / S + 15) / 16 * 16;
                S = (p.n + chunk - 1) / chunk;
            }
            block[0] = chunk >= 16384 ? 1024 : chunk >= 2048 ? 512 : chunk >= 512 ? 256 : 128;
            grid[0] = (unsigned)gk__grid_cap(ctx, M * S, 32);
            if (S > 1) st = gk__workspace(ctx, (size_t)(M * S) * 16, &ws, where);
            memcpy(sargs, args, sizeof args);
            sargs[6] = &S; sargs[7] = &chunk; sargs[8] = &phase; sargs[9] = &ws;
            if (st == GK_OK) st = gk__launch_cfg(ctx, GK__MOD_REDUCE, gk__k_softmax[kind][p.dt], grid, block, 0, sargs, where);
            if (st == GK_OK && S > 1) {
                phase = 1; /* read at launch: the argument buffer is copied then */
                st = gk__launch_cfg(ctx, GK__MOD_REDUCE, gk__k_softmax[kind][p.dt], grid, block, 0, sargs, where);
            }
            if (ws) gk__unuse(ctx, ctx->ws);
        }
    }
launched:
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
static gk_status gk__rowop_new(gk_ctx *ctx, gk_tensor x, int kind, int axis, gk_tensor *out, const char *where) {
    gk_tensor t;
    gk__slot *s;
    gk_status st;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", where);
    GK__ENTER(ctx, where);
    st = gk__lookup(ctx, x, &s, where, "x");
    gk__unlock(&ctx->mu);
    if (st != GK_OK) return st;
    GK__TRY(gk__new_like(ctx, x, s->dtype, &t, where));
    return gk__finish_new(ctx, gk__rowop_run(ctx, t, x, kind, axis, where), t, out);
}
GKDEF gk_status gk_softmax(gk_ctx *ctx, gk_tensor out, gk_tensor x) { return gk__rowop_run(ctx, out, x, 0, -1, "gk_softmax"); }
GKDEF gk_status gk_log_softmax(gk_ctx *ctx, gk_tensor out, gk_tensor x) { return gk__rowop_run(ctx, out, x, 1, -1, "gk_log_softmax"); }
GKDEF gk_status gk_cumsum(gk_ctx *ctx, gk_tensor out, gk_tensor x, int axis) { return gk__rowop_run(ctx, out, x, 2, axis, "gk_cumsum"); }
GKDEF gk_status gk_softmax_new(gk_ctx *ctx, gk_tensor x, gk_tensor *out) { return gk__rowop_new(ctx, x, 0, -1, out, "gk_softmax_new"); }
GKDEF gk_status gk_log_softmax_new(gk_ctx *ctx, gk_tensor x, gk_tensor *out) { return gk__rowop_new(ctx, x, 1, -1, out, "gk_log_softmax_new"); }
GKDEF gk_status gk_cumsum_new(gk_ctx *ctx, gk_tensor x, int axis, gk_tensor *out) { return gk__rowop_new(ctx, x, 2, axis, out, "gk_cumsum_new"); }

