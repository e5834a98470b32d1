/* >>ops_elementwise_cpu: CPU reference of the elementwise ops, kernel name tables */
typedef struct gk__ew {          /* CPU thunk parameters of an elementwise op */
    gk__nd nd;
    char *o;
    const char *a, *b;
    gk_dtype dt, sdt;
    int op;
    double alpha;
    uint64_t pattern;
} gk__ew;

/* f32 view of the float formats (CPU), same rounding as the kernels */
static float gk__ldf(gk_dtype dt, const char *p) {
    float v;
    uint16_t h;
    switch (dt) {
    case GK_F32: memcpy(&v, p, 4); return v;
    case GK_F16: memcpy(&h, p, 2); return gk_f16_to_f32(h);
    case GK_BF16: memcpy(&h, p, 2); return gk_bf16_to_f32(h);
    case GK_F8E4M3: return (float)gk__fmt_to_f64(*(const uint8_t *)p, gk__fmt_e4m3);
    default: return (float)gk__fmt_to_f64(*(const uint8_t *)p, gk__fmt_e5m2);
    }
}
static void gk__stf(gk_dtype dt, char *p, float v) {
    uint16_t h;
    switch (dt) {
    case GK_F32: memcpy(p, &v, 4); break;
    case GK_F16: h = (uint16_t)gk__f64_to_fmt(v, gk__fmt_f16); memcpy(p, &h, 2); break;
    case GK_BF16: h = gk_f32_to_bf16(v); memcpy(p, &h, 2); break;
    case GK_F8E4M3: *(uint8_t *)p = (uint8_t)gk__f64_to_fmt(v, gk__fmt_e4m3); break;
    default: *(uint8_t *)p = (uint8_t)gk__f64_to_fmt(v, gk__fmt_e5m2); break;
    }
}
static int64_t gk__ldi(gk_dtype dt, const char *p) { return gk__load(dt, p).i; }
static void gk__sti(gk_dtype dt, char *p, int64_t v) {
    gk__scalar s;
    s.is_int = 1; s.i = v; s.f = 0;
    gk__store(dt, p, s);
}
static void gk__std_sat(gk_dtype dt, char *p, double v) { /* integer dtypes: truncate and saturate */
    gk__scalar s;
    s.is_int = 0; s.i = 0; s.f = v;
    gk__store(dt, p, s);
}
static int64_t gk__int_binop(int op, int64_t a, int64_t b) {
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    switch (op) {
    case GK__OP_ADD: return (int64_t)(ua + ub);
    case GK__OP_SUB: return (int64_t)(ua - ub);
    case GK__OP_MUL: return (int64_t)(ua * ub);
    default: return b == 0 ? 0 : b == -1 ? (int64_t)(0 - ua) : a / b;
    }
}

static int gk__ew_cpu(const void *vp) {
    const gk__ew *p = (const gk__ew *)vp;
    const gk__nd *nd = &p->nd;
    size_t es = gk__dtype_sizes[p->dt], ss = gk__dtype_sizes[p->sdt];
    gk_dtype dt = p->dt;
    int op = p->op;
    float fa = (float)p->alpha;
    switch (op) {
    case GK__OP_FILL: GK__ND_FOR(nd, memcpy(p->o + o0 * (int64_t)es, &p->pattern, es)); return 0;
    case GK__OP_COPY: GK__ND_FOR(nd, memcpy(p->o + o0 * (int64_t)es, p->a + o1 * (int64_t)es, es)); return 0;
    case GK__OP_CAST: GK__ND_FOR(nd, gk__store(dt, p->o + o0 * (int64_t)es, gk__load(p->sdt, p->a + o1 * (int64_t)ss))); return 0;
    default: break;
    }
    if (dt == GK_F32 && op <= GK__OP_DIV && gk__nd_contig(nd, 3)) { /* the common case, kept tight */
        float *o = (float *)(void *)p->o;
        const float *a = (const float *)(const void *)p->a, *b = (const float *)(const void *)p->b;
        int64_t i;
        for (i = 0; i < nd->n; i++)
            o[i] = op == GK__OP_ADD ? a[i] + b[i] : op == GK__OP_SUB ? a[i] - b[i] : op == GK__OP_MUL ? a[i] * b[i] : a[i] / b[i];
        return 0;
    }
    if (dt == GK_F64) {
        GK__ND_FOR(nd, {
            double x, y, r;
            memcpy(&x, p->a + o1 * 8, 8);
            if (op == GK__OP_AXPY) memcpy(&y, p->o + o0 * 8, 8);
            else if (op != GK__OP_SCALE) memcpy(&y, p->b + o2 * 8, 8);
            else y = 0;
            r = op == GK__OP_ADD ? x + y : op == GK__OP_SUB ? x - y : op == GK__OP_MUL ? x * y : op == GK__OP_DIV ? x / y
              : op == GK__OP_SCALE ? p->alpha * x : fma(p->alpha, x, y);
            memcpy(p->o + o0 * 8, &r, 8);
        });
    } else if (gk_dtype_is_float(dt)) {
        GK__ND_FOR(nd, {
            float x = gk__ldf(dt, p->a + o1 * (int64_t)es), y, r;
            y = op == GK__OP_AXPY ? gk__ldf(dt, p->o + o0 * (int64_t)es) : op == GK__OP_SCALE ? 0.0f : gk__ldf(dt, p->b + o2 * (int64_t)es);
            r = op == GK__OP_ADD ? x + y : op == GK__OP_SUB ? x - y : op == GK__OP_MUL ? x * y : op == GK__OP_DIV ? x / y
              : op == GK__OP_SCALE ? fa * x : fmaf(fa, x, y);
            gk__stf(dt, p->o + o0 * (int64_t)es, r);
        });
    } else {
        GK__ND_FOR(nd, {
            int64_t x = gk__ldi(dt, p->a + o1 * (int64_t)es);
            if (op == GK__OP_SCALE) gk__std_sat(dt, p->o + o0 * (int64_t)es, p->alpha * (double)x);
            else if (op == GK__OP_AXPY) gk__std_sat(dt, p->o + o0 * (int64_t)es, fma(p->alpha, (double)x, (double)gk__ldi(dt, p->o + o0 * (int64_t)es)));
            else gk__sti(dt, p->o + o0 * (int64_t)es, gk__int_binop(op, x, gk__ldi(dt, p->b + o2 * (int64_t)es)));
        });
    }
    return 0;
}

/* kernel names (static strings: the function cache compares pointers) */
#define GK__DTNAMES(P, S) { P "f32" S, P "f64" S, P "f16" S, P "bf16" S, P "f8e4m3" S, P "f8e5m2" S, P "i8" S, P "u8" S, P "i32" S, P "i64" S }
static const char *const gk__k_bin[4][3][GK_DTYPE_COUNT] = {
    { GK__DTNAMES("gk_add_", ""), GK__DTNAMES("gk_add_", "_c"), GK__DTNAMES("gk_add_", "_v") },
    { GK__DTNAMES("gk_sub_", ""), GK__DTNAMES("gk_sub_", "_c"), GK__DTNAMES("gk_sub_", "_v") },
    { GK__DTNAMES("gk_mul_", ""), GK__DTNAMES("gk_mul_", "_c"), GK__DTNAMES("gk_mul_", "_v") },
    { GK__DTNAMES("gk_div_", ""), GK__DTNAMES("gk_div_", "_c"), GK__DTNAMES("gk_div_", "_v") } };
static const char *const gk__k_scale[2][GK_DTYPE_COUNT] = { GK__DTNAMES("gk_scale_", ""), GK__DTNAMES("gk_axpy_", "") };
static const char *const gk__k_cast[GK_DTYPE_COUNT][GK_DTYPE_COUNT] = {
    GK__DTNAMES("gk_cast_f32_", ""), GK__DTNAMES("gk_cast_f64_", ""), GK__DTNAMES("gk_cast_f16_", ""),
    GK__DTNAMES("gk_cast_bf16_", ""), GK__DTNAMES("gk_cast_f8e4m3_", ""), GK__DTNAMES("gk_cast_f8e5m2_", ""),
    GK__DTNAMES("gk_cast_i8_", ""), GK__DTNAMES("gk_cast_u8_", ""), GK__DTNAMES("gk_cast_i32_", ""), GK__DTNAMES("gk_cast_i64_", "") };
static const char *const gk__k_fill[9] = { NULL, "gk_fill_b1", "gk_fill_b2", NULL, "gk_fill_b4", NULL, NULL, NULL, "gk_fill_b8" };
static const char *const gk__k_copy[9] = { NULL, "gk_copy_b1", "gk_copy_b2", NULL, "gk_copy_b4", NULL, NULL, NULL, "gk_copy_b8" };

