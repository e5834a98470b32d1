/* ------------------------------------------------------------------------ */
/* >>ops_signal: implementation of the >>api_ops_signal group (below this line) */
/* Shared by the signal ops: operands where a zero handle means "none",
   contiguity and dtype checks, the _new helper. */
static const gk_tensor gk__sg_none = { 0, 0 };
static gk_status gk__sg_operands(gk_ctx *ctx, gk__opnds *ops, const gk_tensor *ts, const char *const *names, int n, unsigned optional,
                                 const char *where) {
    int i;
    ops->n = n;
    ops->used = 0;
    for (i = 0; i < n; i++) {
        ops->s[i] = NULL;
        if (ts[i].id == 0 && (optional >> i & 1u)) continue;
        GK__TRY(gk__lookup(ctx, ts[i], &ops->s[i], where, names[i]));
    }
    return GK_OK;
}
static gk_status gk__sg_use(gk_ctx *ctx, gk__opnds *ops, const char *where) {
    int i;
    GK__TRY(gk__bind(ctx));
    for (i = 0; i < ops->n; i++) {
        if (ops->s[i]) GK__TRY(gk__use(ctx, ops->s[i]->blk, ctx->cur_stream, where));
        ops->used = i + 1;
    }
    return GK_OK;
}
static void gk__sg_done(gk_ctx *ctx, gk__opnds *ops, gk_status st) {
    int i;
    for (i = 0; i < ops->used; i++)
        if (ops->s[i]) gk__unuse(ctx, ops->s[i]->blk);
    if (st != GK_OK && ctx->cur_stream->capture && ctx->cur_stream->capture->failed == GK_OK) ctx->cur_stream->capture->failed = st;
}
/* every present operand contiguous and of operand 0's dtype: f32, or also f16 / bf16 when `halves` */
static gk_status gk__sg_check(gk_ctx *ctx, gk__opnds *ops, const char *const *names, int halves, const char *where) {
    int i;
    gk_dtype dt = ops->s[0]->dtype;
    if (!(dt == GK_F32 || (halves && (dt == GK_F16 || dt == GK_BF16))))
        return gk__err(ctx, GK_ERR_DTYPE, "%s: %s is %s (supported: %s)", where, names[0], gk_dtype_name(dt), halves ? "f32, f16, bf16" : "f32");
    for (i = 0; i < ops->n; i++) {
        if (!ops->s[i]) continue;
        if (ops->s[i]->dtype != dt)
            return gk__err(ctx, GK_ERR_DTYPE, "%s: %s is %s but %s is %s", where, names[i], gk_dtype_name(ops->s[i]->dtype), names[0],
                           gk_dtype_name(dt));
        if (!gk__is_contig(ops->s[i])) return gk__err(ctx, GK_ERR_SHAPE, "%s: %s is not contiguous (use gk_contiguous)", where, names[i]);
    }
    return GK_OK;
}
static gk_status gk__sg_shape_err(gk_ctx *ctx, const gk__slot *s, const char *name, const char *want, const char *where) {
    char a[160];
    gk__shape_str(s, a, sizeof a);
    return gk__err(ctx, GK_ERR_SHAPE, "%s: %s has shape %s, expected %s", where, name, a, want);
}
/* a new tensor for a _new variant */
static gk_status gk__sg_alloc(gk_ctx *ctx, gk_tensor like, int dt_or_neg, int nd, const int64_t *shape, gk_tensor *out, const char *where) {
    gk__slot *s = NULL;
    uint32_t idx;
    gk_status st = GK_OK;
    gk_dtype dt = GK_F32;
    GK__ENTER(ctx, where);
    if (dt_or_neg < 0) st = gk__lookup(ctx, like, &s, where, "the input");
    else dt = (gk_dtype)dt_or_neg;
    if (st == GK_OK && s) dt = s->dtype;
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK) st = gk__tensor_new(ctx, dt, nd, shape, &idx, where);
    if (st == GK_OK) *out = gk__handle(ctx, idx);
    gk__unlock(&ctx->mu);
    return st;
}
/* shape of a tensor (for the _new variants, before the op validates it) */
static gk_status gk__sg_shape(gk_ctx *ctx, gk_tensor t, int *nd, int64_t *shape, gk_dtype *dt, const char *name, const char *where) {
    gk__slot *s;
    gk_status st;
    GK__ENTER(ctx, where);
    st = gk__lookup(ctx, t, &s, where, name);
    if (st == GK_OK) {
        *nd = s->ndim;
        memcpy(shape, s->shape, sizeof(int64_t) * GK_MAX_DIMS);
        if (dt) *dt = s->dtype;
    }
    gk__unlock(&ctx->mu);
    return st;
}
static gk_status gk__sg_launch_err(gk_ctx *ctx, gk__cu_result r, const char *where, const char *what) {
    return r == 0 ? GK_OK : gk__cu_fail(ctx, r, where, what);
}

