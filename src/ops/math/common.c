/* ------------------------------------------------------------------------ */
/* >>ops_math: implementation of the >>api_ops_math group (below this line) */
static int gk__fdt(gk_dtype dt) { return dt == GK_F32 || dt == GK_F64 || dt == GK_F16 || dt == GK_BF16; }
static gk_status gk__need_fdt(gk_ctx *ctx, const gk__slot *s, const char *what, const char *where) {
    if (gk__fdt(s->dtype)) return GK_OK;
    return gk__err(ctx, GK_ERR_DTYPE, "%s: %s is %s; this op takes f32, f64, f16 or bf16", where, what, gk_dtype_name(s->dtype));
}
static double gk__ldd(gk_dtype dt, const char *p) {
    double d;
    if (dt == GK_F64) { memcpy(&d, p, 8); return d; }
    if (gk_dtype_is_float(dt)) return gk__ldf(dt, p);
    return (double)gk__ldi(dt, p);
}
/* element offset of item i of a one-operand (operand k) iteration, by division */
static int64_t gk__nd_off(const gk__nd *nd, int k, int64_t i) {
    int64_t o = 0;
    int d;
    for (d = nd->ndim - 1; d >= 0; d--) {
        int64_t q = i / nd->shape[d];
        o += (i - q * nd->shape[d]) * nd->st[k][d];
        i = q;
    }
    return o;
}
/* a slot with dim `d` removed (views of the op's operands for its iterations) */
static gk__slot gk__slot_drop(const gk__slot *s, int d) {
    gk__slot r = *s;
    int i;
    for (i = d; i < s->ndim - 1; i++) { r.shape[i] = s->shape[i + 1]; r.strides[i] = s->strides[i + 1]; }
    r.ndim = s->ndim - 1;
    return r;
}
static gk_status gk__shape_eq(gk_ctx *ctx, const gk__slot *s, int nd, const int64_t *shape, const char *what, const char *where) {
    int i, same = s->ndim == nd;
    for (i = 0; same && i < nd; i++) same = s->shape[i] == shape[i];
    if (!same) {
        char a[160], b[160];
        gk__slot t;
        memset(&t, 0, sizeof t);
        t.ndim = nd;
        for (i = 0; i < nd; i++) t.shape[i] = shape[i];
        gk__shape_str(s, a, sizeof a);
        gk__shape_str(&t, b, sizeof b);
        return gk__err(ctx, GK_ERR_SHAPE, "%s: %s has shape %s but must have shape %s", where, what, a, b);
    }
    return GK_OK;
}
static int gk__same_shape(const gk__slot *a, const gk__slot *b) {
    int i;
    if (a->ndim != b->ndim) return 0;
    for (i = 0; i < a->ndim; i++) if (a->shape[i] != b->shape[i]) return 0;
    return 1;
}
static int gk__grid_cap(gk_ctx *ctx, int64_t want, int per_sm) {
    int64_t cap = (int64_t)(ctx->info.sm_count > 0 ? ctx->info.sm_count : 1) * per_sm;
    return (int)(want < 1 ? 1 : want < cap ? want : cap);
}

