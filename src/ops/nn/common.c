/* ------------------------------------------------------------------------ */
/* >>ops_nn: implementation of the >>api_ops_nn group (below this line) */
/* Shared helpers of the nn group. */
static int gk__nn_has(gk_tensor t) { return t.id != 0; }
static gk_status gk__nn_axis(gk_ctx *ctx, int axis, int ndim, int *out, const char *where) {
    int a = axis < 0 ? axis + ndim : axis;
    if (a < 0 || a >= ndim) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: axis %d out of range for %d dims", where, axis, ndim);
    *out = a;
    return GK_OK;
}
static int gk__nn_isfloat3(gk_dtype dt) { return dt == GK_F32 || dt == GK_F16 || dt == GK_BF16; }
/* (x dtype, weight dtype) -> kernel variant: f32/f32, f16/f16, f16/f32, bf16/bf16, bf16/f32; -1 if none */
static int gk__nn_combo(gk_dtype dt, gk_dtype wt) {
    if (dt == GK_F32) return wt == GK_F32 ? 0 : -1;
    if (dt == GK_F16) return wt == GK_F16 ? 1 : wt == GK_F32 ? 2 : -1;
    if (dt == GK_BF16) return wt == GK_BF16 ? 3 : wt == GK_F32 ? 4 : -1;
    return -1;
}
static float gk__nn_rnd(gk_dtype dt, float v) {
    char b[8];
    if (dt == GK_F32) return v;
    gk__stf(dt, b, v);
    return gk__ldf(dt, b);
}
static int gk__nn_same_shape(const gk__slot *a, const gk__slot *b) {
    return a->ndim == b->ndim && (a->ndim == 0 || memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)a->ndim) == 0);
}
static gk_status gk__nn_shape_err(gk_ctx *ctx, const char *where, const char *what, const gk__slot *s, const char *want) {
    char a[160];
    gk__shape_str(s, a, sizeof a);
    return gk__err(ctx, GK_ERR_SHAPE, "%s: %s has shape %s, expected %s", where, what, a, want);
}
/* A new tensor of the given shape (for the _new variants). */
static gk_status gk__nn_empty(gk_ctx *ctx, gk_dtype dt, int ndim, const int64_t *shape, gk_tensor *out, const char *where) {
    uint32_t idx;
    gk_status st;
    GK__ENTER(ctx, where);
    st = gk__bind(ctx);
    if (st == GK_OK) st = gk__tensor_new(ctx, dt, ndim, shape, &idx, where);
    if (st == GK_OK) *out = gk__handle(ctx, idx);
    gk__unlock(&ctx->mu);
    return st;
}
static gk_status gk__nn_info(gk_ctx *ctx, gk_tensor t, gk_tensor_info *info, gk_tensor *out, const char *where) {
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", where);
    return gk_tensor_info_get(ctx, t, info);
}

