/* >>nn_layout: permute, concat, split, repeat, gather / embedding, pad, interpolate */
/* ======================== layout ======================== */
/* The geometry of a strided copy: out and in element strides over a shape
   of up to 16 dims (repeat), size-1 dims dropped, contiguous dims merged;
   0 when more than GK_MAX_DIMS remain. */
static int gk__nn_nd(gk__nd *nd, int ndim, const int64_t *shape, const int64_t *ost, const int64_t *ist) {
    int d, j = 0;
    memset(nd, 0, sizeof *nd);
    nd->n = 1;
    for (d = 0; d < ndim; d++) nd->n *= shape[d];
    for (d = 0; d < ndim; d++) {
        if (shape[d] == 1) continue;
        if (j > 0 && nd->st[0][j - 1] == ost[d] * shape[d] && nd->st[1][j - 1] == ist[d] * shape[d]) {
            nd->shape[j - 1] *= shape[d];
            nd->st[0][j - 1] = ost[d];
            nd->st[1][j - 1] = ist[d];
            continue;
        }
        if (j == GK_MAX_DIMS) return 0;
        nd->shape[j] = shape[d];
        nd->st[0][j] = ost[d];
        nd->st[1][j] = ist[d];
        j++;
    }
    nd->ndim = j;
    if (j == 0) { nd->ndim = 1; nd->shape[0] = 1; nd->st[0][0] = 1; nd->st[1][0] = 1; }
    return 1;
}

typedef struct gk__rows { /* gk_rows in src/ops/nn/layout.cu */
    int ndim, pad;
    int64_t nrows, cpr;
    int64_t shape[GK_MAX_DIMS], ost[GK_MAX_DIMS], ist[GK_MAX_DIMS];
} gk__rows;
typedef struct gk__tr { /* gk_tr in src/ops/nn/layout.cu */
    int nb, pad;
    int64_t R, C, nbatch, ist_c, ost_r;
    int64_t bshape[6], bost[6], bist[6];
} gk__tr;
static const char *const gk__k_rowcopy[17] = { NULL, "gk_rowcopy_w1", "gk_rowcopy_w2", NULL, "gk_rowcopy_w4", NULL, NULL, NULL, "gk_rowcopy_w8",
                                               NULL, NULL, NULL, NULL, NULL, NULL, NULL, "gk_rowcopy_w16" };
static const char *const gk__k_transpose[9] = { NULL, "gk_transpose_b1", "gk_transpose_b2", NULL, "gk_transpose_b4", NULL, NULL, NULL, "gk_transpose_b8" };
static const char *const gk__k_gather[17] = { NULL, "gk_gather_w1", "gk_gather_w2", NULL, "gk_gather_w4", NULL, NULL, NULL, "gk_gather_w8",
                                              NULL, NULL, NULL, NULL, NULL, NULL, NULL, "gk_gather_w16" };

/* Issues the strided copy of nd (operands used and pinned by the caller). */
static gk_status gk__nn_copy(gk_ctx *ctx, const gk__nd *nd, gk_dtype dt, gk__cu_ptr po, gk__cu_ptr pa, const char *where) {
    int64_t es = (int64_t)gk__dtype_sizes[dt];
    int last = nd->ndim - 1, d, p = -1;
    if (nd->n == 0) return GK_OK;
    if (ctx->backend == GK_BACKEND_CPU) {
        gk__ew e;
        memset(&e, 0, sizeof e);
        e.nd = *nd;
        e.o = (char *)(uintptr_t)po;
        e.a = (const char *)(uintptr_t)pa;
        e.dt = e.sdt = dt;
        e.op = GK__OP_COPY;
        return gk__cpu_run(ctx, gk__ew_cpu, &e, sizeof e, where);
    }
    if (nd->ndim == 1 && nd->st[0][0] == 1 && nd->st[1][0] == 1) {
        gk__cu_result r = ctx->cu.MemcpyDtoDAsync(po, pa, (size_t)(nd->n * es), ctx->cur_stream->cu);
        return r != 0 ? gk__cu_fail(ctx, r, where, "cuMemcpyDtoDAsync_v2") : GK_OK;
    }
    if (nd->st[0][last] == 1 && nd->st[1][last] == 1) { /* contiguous rows */
        gk__rows g;
        int64_t rowb = nd->shape[last] * es, w;
        uint64_t al = (uint64_t)rowb | po | pa;
        void *args[3];
        memset(&g, 0, sizeof g);
        for (d = 0; d < last; d++) {
            g.shape[d] = nd->shape[d];
            g.ost[d] = nd->st[0][d] * es;
            g.ist[d] = nd->st[1][d] * es;
            al |= (uint64_t)g.ost[d] | (uint64_t)g.ist[d];
        }
        for (w = 16; w > 1 && (al & (uint64_t)(w - 1)); w >>= 1) {}
        g.ndim = last;
        g.nrows = nd->n / nd->shape[last];
        g.cpr = rowb / w;
        args[0] = &g; args[1] = &po; args[2] = &pa;
        return gk__launch(ctx, GK__MOD_LAYOUT, gk__k_rowcopy[w], g.nrows * g.cpr, args, where);
    }
    if (nd->st[0][last] == 1 && es <= 8 && (es & (es - 1)) == 0 && nd->ndim <= 8) {
        for (d = 0; d < last; d++) if (nd->st[1][d] == 1) p = d;
    }
    if (p >= 0) { /* the input's contiguous dim moves: tiled transpose */
        gk__tr g;
        int k = 0;
        unsigned grid[3], block[3] = { 32, 8, 1 };
        void *args[3];
        memset(&g, 0, sizeof g);
        g.R = nd->shape[p]; g.C = nd->shape[last]; g.ist_c = nd->st[1][last]; g.ost_r = nd->st[0][p];
        g.nbatch = 1;
        for (d = 0; d < last; d++) {
            if (d == p) continue;
            g.bshape[k] = nd->shape[d]; g.bost[k] = nd->st[0][d]; g.bist[k] = nd->st[1][d];
            g.nbatch *= nd->shape[d];
            k++;
        }
        g.nb = k;
        {   /* 64x64 tiles for 4- and 8-byte elements when both dims exceed 32, else 32x32 */
            int t64 = (es == 4 || es == 8) && g.R > 32 && g.C > 32;
            int64_t tl = t64 ? 64 : 32;
            grid[0] = (unsigned)((g.C + tl - 1) / tl);
            grid[1] = (unsigned)((g.R + tl - 1) / tl);
            grid[2] = (unsigned)(g.nbatch < 65535 ? g.nbatch : 65535);
            if (grid[1] <= 65535) {
                args[0] = &g; args[1] = &po; args[2] = &pa;
                return gk__launch_cfg(ctx, GK__MOD_LAYOUT, t64 ? (es == 4 ? "gk_transpose64_b4" : "gk_transpose64_b8") : gk__k_transpose[es], grid,
                                      block, 0, args, where);
            }
        }
    }
    {
        gk__nd g = *nd;
        gk__cu_ptr pb = 0;
        void *args[4];
        args[0] = &g; args[1] = &po; args[2] = &pa; args[3] = &pb;
        if (es > 8 || (es & (es - 1))) return gk__err(ctx, GK_ERR_INTERNAL, "%s: element size %lld", where, (long long)es);
        return gk__launch(ctx, GK__MOD_ELEMENTWISE, gk__k_copy[es], nd->n, args, where);
    }
}

/* out (operand 0) <- in (operand 1) through the geometry shape / ost / ist. */
static gk_status gk__nn_copy_ops(gk_ctx *ctx, gk__opnds *ops, int ndim, const int64_t *shape, const int64_t *ost, const int64_t *ist,
                                 int64_t in_off, const char *where) {
    gk__nd nd;
    gk_status st;
    if (!gk__nn_nd(&nd, ndim, shape, ost, ist))
        return gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: the copy needs more than %d dims after merging", where, GK_MAX_DIMS);
    if (nd.n == 0) return GK_OK;
    GK__TRY(gk__operands_use(ctx, ops, where));
    st = gk__nn_copy(ctx, &nd, ops->s[0]->dtype, gk__slot_addr(ops->s[0]),
                     gk__slot_addr(ops->s[1]) + (gk__cu_ptr)(in_off * (int64_t)gk__dtype_sizes[ops->s[1]->dtype]), where);
    return st;
}
static gk_status gk__nn_two(gk_ctx *ctx, gk__opnds *ops, gk_tensor out, gk_tensor x, const char *where) {
    static const char *const names[2] = { "out", "x" };
    gk_tensor ts[2];
    ts[0] = out; ts[1] = x;
    ops->used = 0;
    GK__TRY(gk__operands(ctx, ops, ts, names, 2, where));
    if (ops->s[0]->dtype != ops->s[1]->dtype)
        return gk__err(ctx, GK_ERR_DTYPE, "%s: out is %s but x is %s", where, gk_dtype_name(ops->s[0]->dtype), gk_dtype_name(ops->s[1]->dtype));
    return GK_OK;
}
static gk_status gk__nn_want_shape(gk_ctx *ctx, const gk__slot *o, int ndim, const int64_t *shape, const char *where) {
    if (o->ndim != ndim || (ndim && memcmp(o->shape, shape, sizeof(int64_t) * (size_t)ndim) != 0)) {
        char want[200];
        gk__slot tmp;
        memset(&tmp, 0, sizeof tmp);
        tmp.ndim = ndim;
        if (ndim) memcpy(tmp.shape, shape, sizeof(int64_t) * (size_t)ndim);
        gk__shape_str(&tmp, want, sizeof want);
        return gk__nn_shape_err(ctx, where, "out", o, want);
    }
    return GK_OK;
}

static gk_status gk__perm_shape(gk_ctx *ctx, const gk__slot *x, const int *perm, int64_t *shape, int64_t *ist, const char *where) {
    int seen[GK_MAX_DIMS] = { 0 }, d;
    if (!perm && x->ndim > 0) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: perm is NULL", where);
    for (d = 0; d < x->ndim; d++) {
        int a = perm[d] < 0 ? perm[d] + x->ndim : perm[d];
        if (a < 0 || a >= x->ndim) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: perm[%d] = %d out of range for %d dims", where, d, perm[d], x->ndim);
        if (seen[a]) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: perm repeats axis %d", where, a);
        seen[a] = 1;
        shape[d] = x->shape[a];
        if (ist) ist[d] = x->strides[a];
    }
    return GK_OK;
}
GKDEF gk_status gk_permute(gk_ctx *ctx, gk_tensor out, gk_tensor x, const int *perm) {
    const char *W = "gk_permute";
    gk__opnds ops;
    int64_t shape[GK_MAX_DIMS], ist[GK_MAX_DIMS];
    gk_status st;
    GK__ENTER(ctx, W);
    st = gk__nn_two(ctx, &ops, out, x, W);
    if (st == GK_OK) st = gk__perm_shape(ctx, ops.s[1], perm, shape, ist, W);
    if (st == GK_OK) st = gk__nn_want_shape(ctx, ops.s[0], ops.s[1]->ndim, shape, W);
    if (st == GK_OK) st = gk__nn_copy_ops(ctx, &ops, ops.s[1]->ndim, shape, ops.s[0]->strides, ist, 0, W);
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_permute_new(gk_ctx *ctx, gk_tensor x, const int *perm, gk_tensor *out) {
    const char *W = "gk_permute_new";
    gk_tensor_info info;
    gk_tensor t;
    int64_t shape[GK_MAX_DIMS];
    int d;
    GK__TRY(gk__nn_info(ctx, x, &info, out, W));
    if (!perm && info.ndim) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: perm is NULL", W);
    for (d = 0; d < info.ndim; d++) {
        int a = perm[d] < 0 ? perm[d] + info.ndim : perm[d];
        if (a < 0 || a >= info.ndim) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: perm[%d] = %d out of range for %d dims", W, d, perm[d], info.ndim);
        shape[d] = info.shape[a];
    }
    GK__TRY(gk__nn_empty(ctx, info.dtype, info.ndim, shape, &t, W));
    return gk__finish_new(ctx, gk_permute(ctx, t, x, perm), t, out);
}

static gk_status gk__concat_shape(gk_ctx *ctx, const gk_tensor *xs, int n, int axis, gk_dtype *dt, int *ndim, int64_t *shape, int *ax,
                                  const char *where) {
    int i, d;
    gk__slot *s0, *s;
    if (!xs || n < 1) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: needs n >= 1 inputs (got %d)", where, n);
    GK__TRY(gk__lookup(ctx, xs[0], &s0, where, "xs[0]"));
    if (s0->ndim == 0) return gk__err(ctx, GK_ERR_SHAPE, "%s: inputs must have at least 1 dim", where);
    GK__TRY(gk__nn_axis(ctx, axis, s0->ndim, ax, where));
    *dt = s0->dtype;
    *ndim = s0->ndim;
    memcpy(shape, s0->shape, sizeof(int64_t) * (size_t)s0->ndim);
    for (i = 1; i < n; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "xs[%d]", i);
        GK__TRY(gk__lookup(ctx, xs[i], &s, where, nm));
        if (s->dtype != *dt) return gk__err(ctx, GK_ERR_DTYPE, "%s: %s is %s but xs[0] is %s", where, nm, gk_dtype_name(s->dtype), gk_dtype_name(*dt));
        if (s->ndim != *ndim) return gk__err(ctx, GK_ERR_SHAPE, "%s: %s has %d dims but xs[0] has %d", where, nm, s->ndim, *ndim);
        for (d = 0; d < *ndim; d++)
            if (d != *ax && s->shape[d] != shape[d])
                return gk__err(ctx, GK_ERR_SHAPE, "%s: %s has size %lld in dim %d, xs[0] %lld", where, nm, (long long)s->shape[d], d, (long long)shape[d]);
        shape[*ax] += s->shape[*ax];
    }
    return GK_OK;
}
GKDEF gk_status gk_concat(gk_ctx *ctx, gk_tensor out, const gk_tensor *xs, int n, int axis) {
    const char *W = "gk_concat";
    int64_t shape[GK_MAX_DIMS], off = 0;
    int ndim = 0, ax = 0, i;
    gk_dtype dt = GK_F32;
    gk_status st;
    GK__ENTER(ctx, W);
    st = gk__concat_shape(ctx, xs, n, axis, &dt, &ndim, shape, &ax, W);
    for (i = 0; st == GK_OK && i < n; i++) {
        gk__opnds ops;
        st = gk__nn_two(ctx, &ops, out, xs[i], W);
        if (st == GK_OK && i == 0) st = gk__nn_want_shape(ctx, ops.s[0], ndim, shape, W);
        if (st == GK_OK) {
            gk__slot *o = ops.s[0], *x = ops.s[1];
            gk_status s2;
            /* out viewed at offset `off` along ax; copy through a temporary slot of out */
            gk__slot save = *o;
            o->offset += off * o->strides[ax];
            s2 = gk__nn_copy_ops(ctx, &ops, ndim, x->shape, o->strides, x->strides, 0, W);
            *o = save;
            off += x->shape[ax];
            st = s2;
        }
        gk__operands_done(ctx, &ops, st);
    }
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_concat_new(gk_ctx *ctx, const gk_tensor *xs, int n, int axis, gk_tensor *out) {
    const char *W = "gk_concat_new";
    int64_t shape[GK_MAX_DIMS];
    int ndim = 0, ax = 0;
    gk_dtype dt = GK_F32;
    gk_status st;
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    GK__ENTER(ctx, W);
    st = gk__concat_shape(ctx, xs, n, axis, &dt, &ndim, shape, &ax, W);
    gk__unlock(&ctx->mu);
    if (st != GK_OK) return st;
    GK__TRY(gk__nn_empty(ctx, dt, ndim, shape, &t, W));
    return gk__finish_new(ctx, gk_concat(ctx, t, xs, n, axis), t, out);
}

GKDEF gk_status gk_split(gk_ctx *ctx, gk_tensor x, int axis, const int64_t *sizes, int n, gk_tensor *outs) {
    const char *W = "gk_split";
    gk_tensor_info info;
    int ax = 0, i;
    int64_t sum = 0, off = 0;
    if (!outs || !sizes || n < 1) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: sizes and outs must be non-NULL and n >= 1", W);
    for (i = 0; i < n; i++) outs[i].id = 0;
    GK__TRY(gk_tensor_info_get(ctx, x, &info));
    if (info.ndim == 0) return gk__err(ctx, GK_ERR_SHAPE, "%s: x must have at least 1 dim", W);
    GK__TRY(gk__nn_axis(ctx, axis, info.ndim, &ax, W));
    for (i = 0; i < n; i++) {
        if (sizes[i] < 0) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: sizes[%d] = %lld < 0", W, i, (long long)sizes[i]);
        sum += sizes[i];
    }
    if (sum != info.shape[ax]) return gk__err(ctx, GK_ERR_SHAPE, "%s: sizes sum to %lld but dim %d has %lld", W, (long long)sum, ax, (long long)info.shape[ax]);
    for (i = 0; i < n; i++) {
        gk_status st = gk_view_slice(ctx, x, ax, off, off + sizes[i], 1, &outs[i]);
        if (st != GK_OK) {
            int k;
            for (k = 0; k < i; k++) { gk_tensor_free(ctx, outs[k]); outs[k].id = 0; }
            return st;
        }
        off += sizes[i];
    }
    return GK_OK;
}

static int64_t gk__nn_slice_len(int64_t n, int64_t *start, int64_t stop, int64_t step) {
    int64_t s = *start, e = stop;
    if (s < 0) s += n;
    if (e < 0) e += n;
    s = s < 0 ? 0 : s > n ? n : s;
    e = e < 0 ? 0 : e > n ? n : e;
    *start = s;
    return e > s ? (e - s + step - 1) / step : 0;
}
GKDEF gk_status gk_slice_copy(gk_ctx *ctx, gk_tensor out, gk_tensor x, int axis, int64_t start, int64_t stop, int64_t step) {
    const char *W = "gk_slice_copy";
    gk__opnds ops;
    int64_t shape[GK_MAX_DIMS], ist[GK_MAX_DIMS], len;
    int ax = 0;
    gk_status st;
    GK__ENTER(ctx, W);
    st = gk__nn_two(ctx, &ops, out, x, W);
    if (st == GK_OK && ops.s[1]->ndim == 0) st = gk__err(ctx, GK_ERR_SHAPE, "%s: x must have at least 1 dim", W);
    if (st == GK_OK) st = gk__nn_axis(ctx, axis, ops.s[1]->ndim, &ax, W);
    if (st == GK_OK && step < 1) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: step %lld must be >= 1", W, (long long)step);
    if (st == GK_OK) {
        gk__slot *xs = ops.s[1];
        memcpy(shape, xs->shape, sizeof shape);
        memcpy(ist, xs->strides, sizeof ist);
        len = gk__nn_slice_len(xs->shape[ax], &start, stop, step);
        shape[ax] = len;
        ist[ax] = xs->strides[ax] * step;
        st = gk__nn_want_shape(ctx, ops.s[0], xs->ndim, shape, W);
        if (st == GK_OK) st = gk__nn_copy_ops(ctx, &ops, xs->ndim, shape, ops.s[0]->strides, ist, len ? start * xs->strides[ax] : 0, W);
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}

/* repeat / repeat_interleave: out [shape] from x through stride-0 dims */
GKDEF gk_status gk_repeat(gk_ctx *ctx, gk_tensor out, gk_tensor x, const int64_t *repeats, int nrep) {
    const char *W = "gk_repeat";
    gk__opnds ops;
    int64_t shape[2 * GK_MAX_DIMS], ost[2 * GK_MAX_DIMS], ist[2 * GK_MAX_DIMS], oshape[GK_MAX_DIMS];
    gk_status st;
    int i, k = 0;
    GK__ENTER(ctx, W);
    st = gk__nn_two(ctx, &ops, out, x, W);
    if (st == GK_OK && (!repeats || nrep < ops.s[1]->ndim || nrep > GK_MAX_DIMS))
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: %d repeats for %d dims (need x's ndim..%d)", W, nrep, ops.s[1]->ndim, GK_MAX_DIMS);
    for (i = 0; st == GK_OK && i < nrep; i++) {
        gk__slot *xs = ops.s[1];
        int xi = i - (nrep - xs->ndim);
        int64_t sz = xi >= 0 ? xs->shape[xi] : 1;
        if (repeats[i] < 0) { st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: repeats[%d] = %lld < 0", W, i, (long long)repeats[i]); break; }
        oshape[i] = repeats[i] * sz;
    }
    if (st == GK_OK) st = gk__nn_want_shape(ctx, ops.s[0], nrep, oshape, W);
    if (st == GK_OK) {
        gk__slot *xs = ops.s[1], *os = ops.s[0];
        for (i = 0; i < nrep; i++) {
            int xi = i - (nrep - xs->ndim);
            int64_t sz = xi >= 0 ? xs->shape[xi] : 1;
            shape[k] = repeats[i]; ost[k] = os->strides[i] * sz; ist[k] = 0; k++;
            shape[k] = sz; ost[k] = os->strides[i]; ist[k] = xi >= 0 ? xs->strides[xi] : 0; k++;
        }
        st = gk__nn_copy_ops(ctx, &ops, k, shape, ost, ist, 0, W);
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_repeat_new(gk_ctx *ctx, gk_tensor x, const int64_t *repeats, int nrep, gk_tensor *out) {
    const char *W = "gk_repeat_new";
    gk_tensor_info info;
    gk_tensor t;
    int64_t shape[GK_MAX_DIMS];
    int i;
    GK__TRY(gk__nn_info(ctx, x, &info, out, W));
    if (!repeats || nrep < info.ndim || nrep > GK_MAX_DIMS)
        return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: %d repeats for %d dims (need x's ndim..%d)", W, nrep, info.ndim, GK_MAX_DIMS);
    for (i = 0; i < nrep; i++) {
        int xi = i - (nrep - info.ndim);
        if (repeats[i] < 0) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: repeats[%d] = %lld < 0", W, i, (long long)repeats[i]);
        shape[i] = repeats[i] * (xi >= 0 ? info.shape[xi] : 1);
    }
    GK__TRY(gk__nn_empty(ctx, info.dtype, nrep, shape, &t, W));
    return gk__finish_new(ctx, gk_repeat(ctx, t, x, repeats, nrep), t, out);
}
GKDEF gk_status gk_repeat_interleave(gk_ctx *ctx, gk_tensor out, gk_tensor x, int64_t repeats, int axis) {
    const char *W = "gk_repeat_interleave";
    gk__opnds ops;
    int64_t shape[GK_MAX_DIMS + 1], ost[GK_MAX_DIMS + 1], ist[GK_MAX_DIMS + 1], oshape[GK_MAX_DIMS];
    gk_status st;
    int ax = 0, d, k = 0;
    GK__ENTER(ctx, W);
    st = gk__nn_two(ctx, &ops, out, x, W);
    if (st == GK_OK && ops.s[1]->ndim == 0) st = gk__err(ctx, GK_ERR_SHAPE, "%s: x must have at least 1 dim", W);
    if (st == GK_OK) st = gk__nn_axis(ctx, axis, ops.s[1]->ndim, &ax, W);
    if (st == GK_OK && repeats < 0) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: repeats %lld < 0", W, (long long)repeats);
    if (st == GK_OK) {
        gk__slot *xs = ops.s[1], *os = ops.s[0];
        memcpy(oshape, xs->shape, sizeof oshape);
        oshape[ax] *= repeats;
        st = gk__nn_want_shape(ctx, os, xs->ndim, oshape, W);
        if (st == GK_OK) {
            for (d = 0; d < xs->ndim; d++) {
                if (d == ax) {
                    shape[k] = xs->shape[d]; ost[k] = os->strides[d] * repeats; ist[k] = xs->strides[d]; k++;
                    shape[k] = repeats; ost[k] = os->strides[d]; ist[k] = 0; k++;
                } else { shape[k] = xs->shape[d]; ost[k] = os->strides[d]; ist[k] = xs->strides[d]; k++; }
            }
            st = gk__nn_copy_ops(ctx, &ops, k, shape, ost, ist, 0, W);
        }
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_repeat_interleave_new(gk_ctx *ctx, gk_tensor x, int64_t repeats, int axis, gk_tensor *out) {
    const char *W = "gk_repeat_interleave_new";
    gk_tensor_info info;
    gk_tensor t;
    int ax = 0;
    GK__TRY(gk__nn_info(ctx, x, &info, out, W));
    if (info.ndim == 0) return gk__err(ctx, GK_ERR_SHAPE, "%s: x must have at least 1 dim", W);
    GK__TRY(gk__nn_axis(ctx, axis, info.ndim, &ax, W));
    if (repeats < 0) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: repeats %lld < 0", W, (long long)repeats);
    info.shape[ax] *= repeats;
    GK__TRY(gk__nn_empty(ctx, info.dtype, info.ndim, info.shape, &t, W));
    return gk__finish_new(ctx, gk_repeat_interleave(ctx, t, x, repeats, axis), t, out);
}

/* gather: out [outer, n, inner] = x [outer, V, inner] rows at idx[n] */
typedef struct gk__gatherp {
    int64_t outer, n, nv, rowb;
    int idx64;
    const char *x, *idx;
    char *out;
} gk__gatherp;
static int gk__gather_cpu(const void *vp) {
    const gk__gatherp *p = (const gk__gatherp *)vp;
    int64_t o, j;
    for (o = 0; o < p->outer; o++)
        for (j = 0; j < p->n; j++) {
            int64_t id;
            char *dst = p->out + (o * p->n + j) * p->rowb;
            if (p->idx64) memcpy(&id, p->idx + j * 8, 8);
            else { int32_t v; memcpy(&v, p->idx + j * 4, 4); id = v; }
            if (id >= 0 && id < p->nv) memcpy(dst, p->x + (o * p->nv + id) * p->rowb, (size_t)p->rowb);
            else memset(dst, 0, (size_t)p->rowb);
        }
    return 0;
}
/* embedding = 1: out [idx.shape..., D] from x [V, D]; else index_select along axis with a 1-D index */
static gk_status gk__gather(gk_ctx *ctx, gk_tensor out, gk_tensor x, int axis, gk_tensor index, int embedding, const char *W) {
    static const char *const names_e[3] = { "out", "table", "ids" };
    static const char *const names_i[3] = { "out", "x", "index" };
    const char *const *names = embedding ? names_e : names_i;
    gk_tensor ts[3];
    gk__opnds ops;
    gk__gatherp p;
    gk_status st;
    int64_t shape[GK_MAX_DIMS];
    int ax = 0, d, ndim = 0;
    gk__slot *os, *xs, *is;
    ops.used = 0;
    memset(&p, 0, sizeof p);
    ts[0] = out; ts[1] = x; ts[2] = index;
    GK__ENTER(ctx, W);
    st = gk__operands(ctx, &ops, ts, names, 3, W);
    if (st != GK_OK) goto done;
    os = ops.s[0]; xs = ops.s[1]; is = ops.s[2];
    if (os->dtype != xs->dtype) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: out is %s but %s is %s", W, gk_dtype_name(os->dtype), names[1], gk_dtype_name(xs->dtype)); goto done; }
    if (is->dtype != GK_I32 && is->dtype != GK_I64) { st = gk__err(ctx, GK_ERR_DTYPE, "%s: %s are %s (i32 or i64)", W, names[2], gk_dtype_name(is->dtype)); goto done; }
    if (embedding) {
        if (xs->ndim != 2) { st = gk__nn_shape_err(ctx, W, "table", xs, "[vocab, dim]"); goto done; }
        if (is->ndim + 1 > GK_MAX_DIMS) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: ids have %d dims (at most %d)", W, is->ndim, GK_MAX_DIMS - 1); goto done; }
        ndim = is->ndim + 1;
        if (is->ndim) memcpy(shape, is->shape, sizeof(int64_t) * (size_t)is->ndim);
        shape[is->ndim] = xs->shape[1];
        p.outer = 1; p.n = gk__numel(is); p.nv = xs->shape[0]; p.rowb = xs->shape[1] * (int64_t)gk__dtype_sizes[xs->dtype];
    } else {
        if (xs->ndim == 0) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: x must have at least 1 dim", W); goto done; }
        if ((st = gk__nn_axis(ctx, axis, xs->ndim, &ax, W)) != GK_OK) goto done;
        if (is->ndim > 1) { st = gk__nn_shape_err(ctx, W, "index", is, "[n]"); goto done; }
        ndim = xs->ndim;
        memcpy(shape, xs->shape, sizeof shape);
        shape[ax] = gk__numel(is);
        p.outer = 1; p.rowb = (int64_t)gk__dtype_sizes[xs->dtype];
        for (d = 0; d < ax; d++) p.outer *= xs->shape[d];
        for (d = ax + 1; d < xs->ndim; d++) p.rowb *= xs->shape[d];
        p.n = shape[ax]; p.nv = xs->shape[ax];
    }
    if ((st = gk__nn_want_shape(ctx, os, ndim, shape, W)) != GK_OK) goto done;
    for (d = 0; d < 3; d++)
        if (!gk__is_contig(ops.s[d])) { st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: %s is not contiguous (use gk_contiguous)", W, names[d]); goto done; }
    if (p.outer * p.n == 0 || p.rowb == 0) goto done;
    p.idx64 = is->dtype == GK_I64;
    if ((st = gk__operands_use(ctx, &ops, W)) != GK_OK) goto done;
    p.out = (char *)(uintptr_t)gk__slot_addr(os);
    p.x = (const char *)(uintptr_t)gk__slot_addr(xs);
    p.idx = (const char *)(uintptr_t)gk__slot_addr(is);
    if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__gather_cpu, &p, sizeof p, W);
    else {
        gk__cu_ptr po = gk__slot_addr(os), px = gk__slot_addr(xs), pi = gk__slot_addr(is);
        uint64_t al = (uint64_t)p.rowb | po | px;
        int64_t w, cpr;
        void *args[8];
        for (w = 16; w > 1 && (al & (uint64_t)(w - 1)); w >>= 1) {}
        cpr = p.rowb / w;
        args[0] = &p.outer; args[1] = &p.n; args[2] = &p.nv; args[3] = &cpr; args[4] = &pi; args[5] = &p.idx64; args[6] = &po; args[7] = &px;
        st = gk__launch(ctx, GK__MOD_LAYOUT, gk__k_gather[w], p.outer * p.n * cpr, args, W);
    }
done:
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_index_select(gk_ctx *ctx, gk_tensor out, gk_tensor x, int axis, gk_tensor index) {
    return gk__gather(ctx, out, x, axis, index, 0, "gk_index_select");
}
GKDEF gk_status gk_embedding(gk_ctx *ctx, gk_tensor out, gk_tensor table, gk_tensor ids) {
    return gk__gather(ctx, out, table, 0, ids, 1, "gk_embedding");
}
GKDEF gk_status gk_index_select_new(gk_ctx *ctx, gk_tensor x, int axis, gk_tensor index, gk_tensor *out) {
    const char *W = "gk_index_select_new";
    gk_tensor_info info, ii;
    gk_tensor t;
    int ax = 0;
    GK__TRY(gk__nn_info(ctx, x, &info, out, W));
    GK__TRY(gk_tensor_info_get(ctx, index, &ii));
    if (info.ndim == 0) return gk__err(ctx, GK_ERR_SHAPE, "%s: x must have at least 1 dim", W);
    GK__TRY(gk__nn_axis(ctx, axis, info.ndim, &ax, W));
    info.shape[ax] = ii.numel;
    GK__TRY(gk__nn_empty(ctx, info.dtype, info.ndim, info.shape, &t, W));
    return gk__finish_new(ctx, gk_index_select(ctx, t, x, axis, index), t, out);
}
GKDEF gk_status gk_embedding_new(gk_ctx *ctx, gk_tensor table, gk_tensor ids, gk_tensor *out) {
    const char *W = "gk_embedding_new";
    gk_tensor_info info, ii;
    gk_tensor t;
    GK__TRY(gk__nn_info(ctx, table, &info, out, W));
    GK__TRY(gk_tensor_info_get(ctx, ids, &ii));
    if (info.ndim != 2) return gk__err(ctx, GK_ERR_SHAPE, "%s: table has %d dims, expected [vocab, dim]", W, info.ndim);
    if (ii.ndim + 1 > GK_MAX_DIMS) return gk__err(ctx, GK_ERR_SHAPE, "%s: ids have %d dims (at most %d)", W, ii.ndim, GK_MAX_DIMS - 1);
    ii.shape[ii.ndim] = info.shape[1];
    GK__TRY(gk__nn_empty(ctx, info.dtype, ii.ndim + 1, ii.shape, &t, W));
    return gk__finish_new(ctx, gk_embedding(ctx, t, table, ids), t, out);
}

/* pad: x [rows, H, W] -> out [rows, OH, OW] */
typedef struct gk__padp {
    int64_t rows, H, W, pt, pl, OH, OW;
    int mode;
    int64_t es;
    uint64_t val;
    const char *x;
    char *out;
} gk__padp;
static int64_t gk__pad_src(int64_t o, int64_t n, int mode) {
    if (mode == GK_PAD_REFLECT) {
        if (o < 0) o = -o;
        if (o >= n) o = 2 * (n - 1) - o;
        return o;
    }
    return o < 0 ? 0 : o >= n ? n - 1 : o;
}
static int gk__pad_cpu(const void *vp) {
    const gk__padp *p = (const gk__padp *)vp;
    int64_t r, oh, ow;
    for (r = 0; r < p->rows; r++)
        for (oh = 0; oh < p->OH; oh++)
            for (ow = 0; ow < p->OW; ow++) {
                int64_t ih = oh - p->pt, iw = ow - p->pl;
                char *dst = p->out + ((r * p->OH + oh) * p->OW + ow) * p->es;
                if (p->mode == GK_PAD_CONSTANT) {
                    if (ih >= 0 && ih < p->H && iw >= 0 && iw < p->W) memcpy(dst, p->x + ((r * p->H + ih) * p->W + iw) * p->es, (size_t)p->es);
                    else memcpy(dst, &p->val, (size_t)p->es);
                } else
                    memcpy(dst, p->x + ((r * p->H + gk__pad_src(ih, p->H, p->mode)) * p->W + gk__pad_src(iw, p->W, p->mode)) * p->es, (size_t)p->es);
            }
    return 0;
}
static gk_status gk__pad_shape(gk_ctx *ctx, int ndim, const int64_t *xshape, const int64_t *pads, int npads, gk_pad_mode mode,
                               int64_t *oshape, const char *W) {
    int i, k = npads / 2;
    if (!pads || (npads != 2 && npads != 4)) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: npads %d (2: last dim, 4: last two dims)", W, npads);
    if ((int)mode < 0 || mode > GK_PAD_REPLICATE) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: unknown pad mode %d", W, (int)mode);
    if (ndim < k) return gk__err(ctx, GK_ERR_SHAPE, "%s: x has %d dims, %d padded", W, ndim, k);
    memcpy(oshape, xshape, sizeof(int64_t) * (size_t)ndim);
    for (i = 0; i < k; i++) {
        int d = ndim - 1 - i;
        int64_t a = pads[2 * i], b = pads[2 * i + 1], n = xshape[d];
        if (a < 0 || b < 0) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: negative padding (%lld, %lld) is not supported", W, (long long)a, (long long)b);
        if (mode == GK_PAD_REFLECT && (a >= n || b >= n) && (a || b))
            return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: reflect padding (%lld, %lld) must be < the dim size %lld", W, (long long)a, (long long)b, (long long)n);
        if (mode == GK_PAD_REPLICATE && n == 0 && (a || b))
            return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: replicate padding of an empty dim %d", W, d);
        oshape[d] = n + a + b;
    }
    return GK_OK;
}
GKDEF gk_status gk_pad(gk_ctx *ctx, gk_tensor out, gk_tensor x, const int64_t *pads, int npads, gk_pad_mode mode, double value) {
    const char *W = "gk_pad";
    gk__opnds ops;
    gk__padp p;
    int64_t oshape[GK_MAX_DIMS];
    gk_status st;
    memset(&p, 0, sizeof p);
    GK__ENTER(ctx, W);
    st = gk__nn_two(ctx, &ops, out, x, W);
    if (st == GK_OK) st = gk__pad_shape(ctx, ops.s[1]->ndim, ops.s[1]->shape, pads, npads, mode, oshape, W);
    if (st == GK_OK) st = gk__nn_want_shape(ctx, ops.s[0], ops.s[1]->ndim, oshape, W);
    if (st == GK_OK && (!gk__is_contig(ops.s[0]) || !gk__is_contig(ops.s[1])))
        st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: x and out must be contiguous (use gk_contiguous)", W);
    if (st == GK_OK) {
        gk__slot *xs = ops.s[1];
        gk__scalar sc;
        int nd = xs->ndim;
        p.W = xs->shape[nd - 1];
        p.H = npads == 4 ? xs->shape[nd - 2] : 1;
        p.pl = pads[0];
        p.pt = npads == 4 ? pads[2] : 0;
        p.OW = oshape[nd - 1];
        p.OH = npads == 4 ? oshape[nd - 2] : 1;
        p.rows = gk__numel(ops.s[0]) / (p.OH * p.OW > 0 ? p.OH * p.OW : 1);
        p.mode = (int)mode;
        p.es = (int64_t)gk__dtype_sizes[xs->dtype];
        sc.is_int = 0; sc.i = 0; sc.f = value;
        if (!gk_dtype_is_float(xs->dtype) && value == floor(value) && fabs(value) < 9.2e18) { sc.is_int = 1; sc.i = (int64_t)value; }
        gk__store(xs->dtype, &p.val, sc);
        if (gk__numel(ops.s[0]) > 0) {
            st = gk__operands_use(ctx, &ops, W);
            if (st == GK_OK) {
                p.out = (char *)(uintptr_t)gk__slot_addr(ops.s[0]);
                p.x = (const char *)(uintptr_t)gk__slot_addr(xs);
                if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__pad_cpu, &p, sizeof p, W);
                else {
                    static const char *const kn[9] = { NULL, "gk_pad_b1", "gk_pad_b2", NULL, "gk_pad_b4", NULL, NULL, NULL, "gk_pad_b8" };
                    gk__cu_ptr po = gk__slot_addr(ops.s[0]), px = gk__slot_addr(xs);
                    uint64_t val = p.val;
                    void *args[11];
                    args[0] = &p.rows; args[1] = &p.H; args[2] = &p.W; args[3] = &p.pt; args[4] = &p.pl; args[5] = &p.OH; args[6] = &p.OW;
                    args[7] = &p.mode; args[8] = &val; args[9] = &po; args[10] = &px;
                    st = gk__launch(ctx, GK__MOD_LAYOUT, kn[p.es], p.rows * p.OH * p.OW, args, W);
                }
            }
        }
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_pad_new(gk_ctx *ctx, gk_tensor x, const int64_t *pads, int npads, gk_pad_mode mode, double value, gk_tensor *out) {
    const char *W = "gk_pad_new";
    gk_tensor_info info;
    gk_tensor t;
    int64_t oshape[GK_MAX_DIMS];
    GK__TRY(gk__nn_info(ctx, x, &info, out, W));
    GK__TRY(gk__pad_shape(ctx, info.ndim, info.shape, pads, npads, mode, oshape, W));
    GK__TRY(gk__nn_empty(ctx, info.dtype, info.ndim, oshape, &t, W));
    return gk__finish_new(ctx, gk_pad(ctx, t, x, pads, npads, mode, value), t, out);
}

/* interpolate: x [rows, H, W] -> out [rows, OH, OW] */
typedef struct gk__interpp {
    int64_t rows, H, W, OH, OW;
    float sh, sw;
    int mode;
    gk_dtype dt;
    const char *x;
    char *out;
} gk__interpp;
static void gk__lin_idx(int64_t o, float s, int64_t n, int64_t *i0, int64_t *i1, float *l1) {
    float src = s * ((float)o + 0.5f) - 0.5f;
    if (src < 0.0f) src = 0.0f;
    *i0 = (int64_t)src;
    if (*i0 > n - 1) *i0 = n - 1;
    *i1 = *i0 + (*i0 < n - 1 ? 1 : 0);
    *l1 = src - (float)*i0;
    *l1 = *l1 < 0.0f ? 0.0f : *l1 > 1.0f ? 1.0f : *l1;
}
static int64_t gk__near_idx(int64_t o, float s, int64_t n) {
    int64_t i = (int64_t)floorf((float)o * s);
    return i < n - 1 ? i : n - 1;
}
static int gk__interp_cpu(const void *vp) {
    const gk__interpp *p = (const gk__interpp *)vp;
    int64_t r, oh, ow, es = (int64_t)gk__dtype_sizes[p->dt];
    for (r = 0; r < p->rows; r++) {
        const char *xr = p->x + r * p->H * p->W * es;
        for (oh = 0; oh < p->OH; oh++)
            for (ow = 0; ow < p->OW; ow++) {
                float y;
                if (p->mode == GK_INTERP_NEAREST) y = gk__ldf(p->dt, xr + (gk__near_idx(oh, p->sh, p->H) * p->W + gk__near_idx(ow, p->sw, p->W)) * es);
                else {
                    int64_t h0, h1, w0, w1;
                    float lh, lw, a, b;
                    gk__lin_idx(oh, p->sh, p->H, &h0, &h1, &lh);
                    gk__lin_idx(ow, p->sw, p->W, &w0, &w1, &lw);
                    a = (1.0f - lw) * gk__ldf(p->dt, xr + (h0 * p->W + w0) * es) + lw * gk__ldf(p->dt, xr + (h0 * p->W + w1) * es);
                    b = (1.0f - lw) * gk__ldf(p->dt, xr + (h1 * p->W + w0) * es) + lw * gk__ldf(p->dt, xr + (h1 * p->W + w1) * es);
                    y = (1.0f - lh) * a + lh * b;
                }
                gk__stf(p->dt, p->out + ((r * p->OH + oh) * p->OW + ow) * es, y);
            }
    }
    return 0;
}
GKDEF gk_status gk_interpolate(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_interp_mode mode, const double *scales) {
    const char *W = "gk_interpolate";
    gk__opnds ops;
    gk__interpp p;
    gk_status st;
    memset(&p, 0, sizeof p);
    GK__ENTER(ctx, W);
    st = gk__nn_two(ctx, &ops, out, x, W);
    if (st == GK_OK) {
        gk__slot *xs = ops.s[1], *os = ops.s[0];
        int nd = xs->ndim, k;
        if (!gk__nn_isfloat3(xs->dtype)) st = gk__err(ctx, GK_ERR_DTYPE, "%s: x is %s (f32, f16 or bf16 only)", W, gk_dtype_name(xs->dtype));
        else if ((int)mode < 0 || mode > GK_INTERP_LINEAR) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: unknown mode %d", W, (int)mode);
        else if (nd != 3 && nd != 4) st = gk__nn_shape_err(ctx, W, "x", xs, "[N, C, W] or [N, C, H, W]");
        else if (os->ndim != nd || os->shape[0] != xs->shape[0] || os->shape[1] != xs->shape[1]) st = gk__nn_shape_err(ctx, W, "out", os, "x's N, C and new spatial sizes");
        else if (!gk__is_contig(os) || !gk__is_contig(xs)) st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: x and out must be contiguous (use gk_contiguous)", W);
        for (k = 2; st == GK_OK && k < nd; k++)
            if (xs->shape[k] == 0 && os->shape[k] > 0) st = gk__err(ctx, GK_ERR_SHAPE, "%s: empty input dim %d but output size %lld", W, k, (long long)os->shape[k]);
            else if (scales && scales[k - 2] < 0) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: scale %g < 0", W, scales[k - 2]);
        if (st == GK_OK) {
            p.W = xs->shape[nd - 1]; p.OW = os->shape[nd - 1];
            p.H = nd == 4 ? xs->shape[2] : 1; p.OH = nd == 4 ? os->shape[2] : 1;
            p.rows = xs->shape[0] * xs->shape[1];
            p.mode = (int)mode;
            p.dt = xs->dtype;
            p.sw = scales && scales[nd - 3] > 0 ? (float)(1.0 / scales[nd - 3]) : p.OW > 0 ? (float)p.W / (float)p.OW : 0.0f;
            p.sh = nd == 4 ? (scales && scales[0] > 0 ? (float)(1.0 / scales[0]) : p.OH > 0 ? (float)p.H / (float)p.OH : 0.0f) : 1.0f;
            if (p.rows * p.OH * p.OW > 0) {
                st = gk__operands_use(ctx, &ops, W);
                if (st == GK_OK) {
                    p.out = (char *)(uintptr_t)gk__slot_addr(os);
                    p.x = (const char *)(uintptr_t)gk__slot_addr(xs);
                    if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__interp_cpu, &p, sizeof p, W);
                    else {
                        static const char *const kn[4] = { "gk_interp_f32", NULL, "gk_interp_f16", "gk_interp_bf16" };
                        gk__cu_ptr po = gk__slot_addr(os), px = gk__slot_addr(xs);
                        void *args[10];
                        args[0] = &p.rows; args[1] = &p.H; args[2] = &p.W; args[3] = &p.OH; args[4] = &p.OW; args[5] = &p.sh; args[6] = &p.sw;
                        args[7] = &p.mode; args[8] = &po; args[9] = &px;
                        st = gk__launch(ctx, GK__MOD_LAYOUT, kn[p.dt], p.rows * p.OH * p.OW, args, W);
                    }
                }
            }
        }
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_interpolate_new(gk_ctx *ctx, gk_tensor x, gk_interp_mode mode, const int64_t *size, const double *scales, gk_tensor *out) {
    const char *W = "gk_interpolate_new";
    gk_tensor_info info;
    gk_tensor t;
    int k;
    GK__TRY(gk__nn_info(ctx, x, &info, out, W));
    if (info.ndim != 3 && info.ndim != 4) return gk__err(ctx, GK_ERR_SHAPE, "%s: x has %d dims, expected [N, C, W] or [N, C, H, W]", W, info.ndim);
    if (!size && !scales) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: give size or scales", W);
    for (k = 2; k < info.ndim; k++) {
        if (size) {
            if (size[k - 2] < 0) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: size %lld < 0", W, (long long)size[k - 2]);
            info.shape[k] = size[k - 2];
        } else {
            if (!(scales[k - 2] > 0)) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: scale %g must be > 0", W, scales[k - 2]);
            info.shape[k] = (int64_t)floor((double)info.shape[k] * scales[k - 2]);
        }
    }
    GK__TRY(gk__nn_empty(ctx, info.dtype, info.ndim, info.shape, &t, W));
    return gk__finish_new(ctx, gk_interpolate(ctx, t, x, mode, scales), t, out);
}

/* end of >>ops_nn */

