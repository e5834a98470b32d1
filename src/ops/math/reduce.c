/* >>math_reduce: reductions */
/* ---- reductions ---- */
typedef struct gk__rpart { double v; double m2; int64_t n; } gk__rpart; /* gk_rpart in src/ops/math/reduce.cu */
typedef struct gk__red {
    gk__nd on, rn;               /* outputs (0 out, 1 x), reduced elements (0 x) */
    int64_t R;
    int op;
    gk_dtype dt;
    char *o;
    const char *x;
} gk__red;
typedef struct { double v, m2; int64_t n; } gk__rs;
static void gk__rs_init(int op, gk__rs *s) {
    s->m2 = 0;
    s->n = (op == GK_REDUCE_ARGMAX || op == GK_REDUCE_ARGMIN) ? INT64_MAX : 0;
    s->v = (op == GK_REDUCE_MAX || op == GK_REDUCE_ARGMAX) ? -INFINITY : (op == GK_REDUCE_MIN || op == GK_REDUCE_ARGMIN) ? INFINITY : 0;
}
static int gk__rs_better(int mx, double xv, int64_t xi, double sv, int64_t si) {
    int xn = xv != xv, sn = sv != sv;
    if (xn || sn) return xn && (!sn || xi < si);
    if (xv == sv) return xi < si;
    return mx ? xv > sv : xv < sv;
}
/* one element; the reference accumulates sums and moments in double (f64 = 1) */
static void gk__rs_push(int op, int f64, gk__rs *s, double x, int64_t i) {
    switch (op) {
    case GK_REDUCE_SUM: case GK_REDUCE_MEAN: s->v = f64 ? s->v + x : (double)((float)s->v + (float)x); break;
    case GK_REDUCE_MAX: if (s->v == s->v && (x != x || x > s->v)) s->v = x; break;
    case GK_REDUCE_MIN: if (s->v == s->v && (x != x || x < s->v)) s->v = x; break;
    case GK_REDUCE_ARGMAX: case GK_REDUCE_ARGMIN:
        if (gk__rs_better(op == GK_REDUCE_ARGMAX, x, i, s->v, s->n)) { s->v = x; s->n = i; }
        break;
    default:
        s->n++;
        if (f64) {
            double d = x - s->v;
            s->v += d / (double)s->n;
            s->m2 += d * (x - s->v);
        } else {
            float d = (float)x - (float)s->v, v = (float)s->v + d / (float)s->n;
            s->m2 = (double)((float)s->m2 + d * ((float)x - v));
            s->v = v;
        }
    }
}
static int gk__red_cpu(const void *vp) {
    const gk__red *p = (const gk__red *)vp;
    int64_t es = (int64_t)gk__dtype_sizes[p->dt];
    int f64 = p->dt == GK_F64, op = p->op;
    const gk__nd *on = &p->on;
    GK__ND_FOR(on, {
        gk__rs s;
        int64_t r;
        double res;
        gk__rs_init(op, &s);
        for (r = 0; r < p->R; r++) gk__rs_push(op, 1, &s, gk__ldd(p->dt, p->x + (o1 + gk__nd_off(&p->rn, 0, r)) * es), r);
        if (op == GK_REDUCE_ARGMAX || op == GK_REDUCE_ARGMIN) { memcpy(p->o + o0 * 8, &s.n, 8); }
        else {
            res = op == GK_REDUCE_MEAN ? s.v / (double)p->R : op == GK_REDUCE_VAR ? s.m2 / (double)p->R
                : op == GK_REDUCE_VAR_UNBIASED ? s.m2 / (double)(p->R > 1 ? p->R - 1 : 0) : s.v;
            if (f64) memcpy(p->o + o0 * 8, &res, 8);
            else gk__stf(p->dt, p->o + o0 * es, (float)res);
        }
    });
    return 0;
}
static const char *const gk__k_red_rows[GK_DTYPE_COUNT] = GK__DTNAMES("gk_red_rows_", "");
static const char *const gk__k_red_rowsf[GK_DTYPE_COUNT] = GK__DTNAMES("gk_red_rowsf_", "");
static const char *const gk__k_red_fin[GK_DTYPE_COUNT] = GK__DTNAMES("gk_red_fin_", "");
static const char *const gk__k_red_finb[GK_DTYPE_COUNT] = GK__DTNAMES("gk_red_finb_", "");
static const char *const gk__k_red_cols[GK_DTYPE_COUNT] = GK__DTNAMES("gk_red_cols_", "");

static int gk__norm_axis(int axis, int ndim, int *out) {
    int a = axis < 0 ? axis + ndim : axis;
    if (ndim == 0 && (axis == 0 || axis == -1)) { *out = -1; return 1; }
    if (a < 0 || a >= ndim) return 0;
    *out = a;
    return 1;
}
/* shape of a reduction's result */
static gk_status gk__red_shape(gk_ctx *ctx, const gk__slot *x, int axis, int keepdim, int *all, int *ax, int *nd, int64_t *shape, const char *where) {
    int d, k = 0;
    *all = axis == GK_AXIS_ALL;
    *ax = -1;
    if (!*all) {
        if (!gk__norm_axis(axis, x->ndim, ax)) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: axis %d out of range for %d dims", where, axis, x->ndim);
        if (*ax < 0) *all = 1;
    }
    for (d = 0; d < x->ndim; d++) {
        int red = *all || d == *ax;
        if (!red) shape[k++] = x->shape[d];
        else if (keepdim) shape[k++] = 1;
    }
    *nd = k;
    return GK_OK;
}
static gk_status gk__reduce(gk_ctx *ctx, gk_tensor out, gk_tensor x, int op, int axis, int keepdim, const char *where) {
    static const char *const names[2] = { "out", "x" };
    gk_tensor ts[2];
    gk__opnds ops;
    gk__red p;
    gk__slot so, sx, sr;
    gk__slot *pp[2];
    int64_t shape[GK_MAX_DIMS];
    int all = 0, ax = -1, nd = 0, d, k = 0, j = 0;
    gk_status st;
    ts[0] = out; ts[1] = x;
    if (op < 0 || op >= GK_REDUCE_COUNT) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: unknown op %d", where, op);
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__operands(ctx, &ops, ts, names, 2, where);
    if (st == GK_OK) st = gk__need_fdt(ctx, ops.s[1], "x", where);
    if (st == GK_OK) {
        gk_dtype want = (op == GK_REDUCE_ARGMAX || op == GK_REDUCE_ARGMIN) ? GK_I64 : ops.s[1]->dtype;
        if (ops.s[0]->dtype != want) st = gk__err(ctx, GK_ERR_DTYPE, "%s: out is %s but must be %s", where, gk_dtype_name(ops.s[0]->dtype), gk_dtype_name(want));
    }
    if (st == GK_OK) st = gk__red_shape(ctx, ops.s[1], axis, keepdim, &all, &ax, &nd, shape, where);
    if (st == GK_OK) st = gk__shape_eq(ctx, ops.s[0], nd, shape, "out", where);
    if (st == GK_OK) {
        const gk__slot *xs = ops.s[1], *os = ops.s[0];
        memset(&so, 0, sizeof so); memset(&sx, 0, sizeof sx); memset(&sr, 0, sizeof sr);
        so = *os; sx = *xs; sr = *xs;
        so.ndim = sx.ndim = sr.ndim = 0;
        for (d = 0; d < xs->ndim; d++) {
            int red = all || d == ax;
            if (red) { sr.shape[j] = xs->shape[d]; sr.strides[j] = xs->strides[d]; j++; if (keepdim) k++; }
            else {
                sx.shape[sx.ndim] = xs->shape[d]; sx.strides[sx.ndim] = xs->strides[d]; sx.ndim++;
                so.shape[so.ndim] = os->shape[k]; so.strides[so.ndim] = os->strides[k]; so.ndim++;
                k++;
            }
        }
        sr.ndim = j;
        p.R = 1;
        for (d = 0; d < j; d++) p.R *= sr.shape[d];
        pp[0] = &so; pp[1] = &sx;
        st = gk__nd_build(ctx, &p.on, pp, 2, names, where);
        pp[0] = &sr;
        if (st == GK_OK) st = gk__nd_build(ctx, &p.rn, pp, 1, names + 1, where);
        if (st == GK_OK && p.R == 0 && gk__numel(os) > 0 && op >= GK_REDUCE_MAX && op <= GK_REDUCE_ARGMIN)
            st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: max / min / argmax / argmin of 0 elements is undefined", where);
        p.op = op;
        p.dt = xs->dtype;
    }
    if (st == GK_OK && gk__numel(ops.s[0]) == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__operands_use(ctx, &ops, where);
    if (st == GK_OK) {
        gk__cu_ptr po = gk__slot_addr(ops.s[0]), px = gk__slot_addr(ops.s[1]);
        p.o = (char *)(uintptr_t)po;
        p.x = (const char *)(uintptr_t)px;
        if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__red_cpu, &p, sizeof p, where);
        else {
            int64_t M = p.on.n, R = p.R, S = 1, chunk = R;
            int contig = p.rn.ndim == 1 && p.rn.st[0][0] == 1, sms = ctx->info.sm_count > 0 ? ctx->info.sm_count : 1;
            if (M >= 2048 && (!contig || R < 64)) {
                void *args[6] = { &p.on, &p.rn, &p.R, &p.op, &po, &px };
                unsigned grid[3] = { 1, 1, 1 }, block[3] = { 32, 8, 1 };
                grid[0] = (unsigned)gk__grid_cap(ctx, (M + 31) / 32, 64);
                st = gk__launch_cfg(ctx, GK__MOD_REDUCE, gk__k_red_cols[p.dt], grid, block, 0, args, where);
            } else {
                unsigned grid[3] = { 1, 1, 1 }, block[3] = { 256, 1, 1 };
                gk__cu_ptr ws = 0;
                const char *kn = (p.op <= GK_REDUCE_MIN ? gk__k_red_rowsf : gk__k_red_rows)[p.dt];
                if (M < 2 * sms && R >= 32768) {
                    /* one wave of 256-thread blocks: as many as are resident, asked of the driver (the
                       row kernels' registers set it: 4 blocks an SM of the sum / mean / max / min kernel
                       at sm_90, 2 of the other; a fixed 4 made two waves of a form with 112 registers) */
                    int per_sm = 4;
                    gk__cu_function f;
                    st = gk__occupancy(ctx, GK__MOD_REDUCE, kn, 256, 0, &per_sm, &f, where);
                    S = (int64_t)GK__MAX(per_sm, 1) * sms / M;
                    if (S < 1) S = 1;
                    if (S > (R + 4095) / 4096) S = (R + 4095) / 4096;
                    chunk = ((R + S - 1) / S + 15) / 16 * 16;
                    S = (R + chunk - 1) / chunk;
                }
                /* whole long rows: 512 threads (reduce.cu has the sweep); split rows stay at 256 */
                if (R >= 4096 && S == 1) block[0] = 512;
                gk__cu_ptr ctr = 0;
                if (st == GK_OK && S > 1) st = gk__workspace(ctx, (size_t)(M * S) * sizeof(gk__rpart), &ws, where);
                /* split rows: the last block of an output merges its parts (arrival
                   counters), no second kernel; without counters gk_red_fin(b) does */
                if (st == GK_OK && S > 1) st = gk__counters(ctx, M, &ctr, where);
                if (st == GK_OK) {
                    void *args[10] = { &p.on, &p.rn, &p.R, &p.op, &S, &chunk, &po, &px, &ws, &ctr };
                    grid[0] = (unsigned)gk__grid_cap(ctx, M * S, 16);
                    /* sum / mean / max / min: the kernel without the others' states (fewer registers) */
                    st = gk__launch_cfg(ctx, GK__MOD_REDUCE, kn, grid, block, 0, args, where);
                    if (st == GK_OK && S > 1 && ctr) ctx->tune.red_fused++; /* the last block merged the parts (tests check both paths) */
                    if (st == GK_OK && S > 1 && !ctr) {
                        void *fargs[6] = { &p.on, &p.R, &p.op, &S, &po, &ws };
                        if (S >= 64) { /* many parts: a block an output merges them (a thread an output is slow at that many) */
                            unsigned fgrid[3] = { 1, 1, 1 }, fblock[3] = { 256, 1, 1 };
                            fgrid[0] = (unsigned)gk__grid_cap(ctx, M, 16);
                            st = gk__launch_cfg(ctx, GK__MOD_REDUCE, gk__k_red_finb[p.dt], fgrid, fblock, 0, fargs, where);
                        } else st = gk__launch(ctx, GK__MOD_REDUCE, gk__k_red_fin[p.dt], M, fargs, where);
                    }
                }
                if (S > 1 && ws) gk__unuse(ctx, ctx->ws);
            }
        }
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_reduce(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_reduce_op op, int axis, int keepdim) {
    return gk__reduce(ctx, out, x, (int)op, axis, keepdim, "gk_reduce");
}
GKDEF gk_status gk_reduce_new(gk_ctx *ctx, gk_tensor x, gk_reduce_op op, int axis, int keepdim, gk_tensor *out) {
    gk__slot *s;
    int64_t shape[GK_MAX_DIMS];
    int all, ax, nd = 0;
    uint32_t idx;
    gk_tensor t;
    gk_status st;
    if (out) out->id = 0;
    if ((int)op < 0 || op >= GK_REDUCE_COUNT) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_reduce_new: unknown op %d", (int)op);
    GK__ENTER(ctx, "gk_reduce_new");
    st = out ? gk__lookup(ctx, x, &s, "gk_reduce_new", "x") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_reduce_new: out is NULL");
    if (st == GK_OK) st = gk__red_shape(ctx, s, axis, keepdim, &all, &ax, &nd, shape, "gk_reduce_new");
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK)
        st = gk__tensor_new(ctx, (op == GK_REDUCE_ARGMAX || op == GK_REDUCE_ARGMIN) ? GK_I64 : s->dtype, nd, shape, &idx, "gk_reduce_new");
    if (st == GK_OK) t = gk__handle(ctx, idx);
    gk__unlock(&ctx->mu);
    if (st != GK_OK) return st;
    return gk__finish_new(ctx, gk__reduce(ctx, t, x, (int)op, axis, keepdim, "gk_reduce_new"), t, out);
}

