/* >>math_elementwise: unary, clamp, binary, compare, where, snake, GLU */
/* ---- elementwise math: one path for every class ---- */
enum { GK__MC_UNARY = 0, GK__MC_BIN, GK__MC_CMP, GK__MC_WHERE, GK__MC_GLU, GK__MC_GLU_SPLIT, GK__MC_SNAKE };
#define GK__UNARY_CLAMP GK_UNARY_COUNT
typedef struct gk__mw {
    gk__nd nd;
    char *o;
    const char *a, *b, *c;
    gk_dtype dt;               /* the inputs' dtype (a for compare, out for where) */
    int cls, op;
    double p0, p1;
} gk__mw;

#define GK__UN_DEF(NAME, T, EXP, LOG, LOG1P, SQRT, SIN, COS, TANH, ERF, FABS)                              \
    static T NAME(int op, T x, T p0, T p1) {                                                             \
        T r;                                                                                             \
        switch (op) {                                                                                    \
        case GK_UNARY_EXP: return EXP(x);                                                                \
        case GK_UNARY_LOG: return LOG(x);                                                                \
        case GK_UNARY_SQRT: return SQRT(x);                                                              \
        case GK_UNARY_RSQRT: return (T)1 / SQRT(x);                                                      \
        case GK_UNARY_ABS: return FABS(x);                                                               \
        case GK_UNARY_NEG: return -x;                                                                    \
        case GK_UNARY_SIN: return SIN(x);                                                                \
        case GK_UNARY_COS: return COS(x);                                                                \
        case GK_UNARY_TANH: return TANH(x);                                                              \
        case GK_UNARY_SIGMOID: return (T)1 / ((T)1 + EXP(-x));                                           \
        case GK_UNARY_RELU: return x < (T)0 ? (T)0 : x;                                                  \
        case GK_UNARY_LEAKY_RELU: return x < (T)0 ? x * p0 : x;                                          \
        case GK_UNARY_GELU: return (T)0.5 * x * ((T)1 + ERF(x * (T)0.70710678118654752440));             \
        case GK_UNARY_GELU_TANH:                                                                         \
            return (T)0.5 * x * ((T)1 + TANH((T)0.79788456080286535588 * (x + (T)0.044715 * x * x * x)));  \
        case GK_UNARY_SILU: return x / ((T)1 + EXP(-x));                                                 \
        case GK_UNARY_RELU2: r = x < (T)0 ? (T)0 : x; return r * r;                                      \
        case GK_UNARY_SOFTPLUS: r = p0 * x; return r > (T)20 ? x : LOG1P(EXP(r)) / p0;                   \
        default: return x < p0 ? p0 : x > p1 ? p1 : x;                                                   \
        }                                                                                                \
    }
GK__UN_DEF(gk__unf, float, expf, logf, log1pf, sqrtf, sinf, cosf, tanhf, erff, fabsf)
GK__UN_DEF(gk__und, double, exp, log, log1p, sqrt, sin, cos, tanh, erf, fabs)

static int gk__mw_cpu(const void *vp) {
    const gk__mw *p = (const gk__mw *)vp;
    const gk__nd *nd = &p->nd;
    gk_dtype dt = p->dt;
    int64_t es = (int64_t)gk__dtype_sizes[dt];
    int op = p->op, f64 = dt == GK_F64;
    float f0 = (float)p->p0, f1 = (float)p->p1;
    switch (p->cls) {
    case GK__MC_UNARY:
        if (f64) GK__ND_FOR(nd, { double x, r; memcpy(&x, p->a + o1 * 8, 8); r = gk__und(op, x, p->p0, p->p1); memcpy(p->o + o0 * 8, &r, 8); });
        else GK__ND_FOR(nd, gk__stf(dt, p->o + o0 * es, gk__unf(op, gk__ldf(dt, p->a + o1 * es), f0, f1)));
        break;
    case GK__MC_GLU: case GK__MC_GLU_SPLIT: {
        int uop = op == GK_GLU_SILU ? GK_UNARY_SILU : op == GK_GLU_GELU ? GK_UNARY_GELU : GK_UNARY_GELU_TANH;
        if (f64) GK__ND_FOR(nd, {
            double g, u, r;
            memcpy(&g, p->a + o1 * 8, 8); memcpy(&u, p->b + o2 * 8, 8);
            r = gk__und(uop, g, 0, 0) * u;
            memcpy(p->o + o0 * 8, &r, 8);
        });
        else GK__ND_FOR(nd, gk__stf(dt, p->o + o0 * es, gk__unf(uop, gk__ldf(dt, p->a + o1 * es), 0, 0) * gk__ldf(dt, p->b + o2 * es)));
        break;
    }
    case GK__MC_SNAKE:
        if (f64) GK__ND_FOR(nd, {
            double x, a, s, r;
            memcpy(&x, p->a + o1 * 8, 8); memcpy(&a, p->b + o2 * 8, 8);
            s = sin(a * x); r = x + s * s / (a + 1e-9);
            memcpy(p->o + o0 * 8, &r, 8);
        });
        else GK__ND_FOR(nd, {
            float x = gk__ldf(dt, p->a + o1 * es), a = gk__ldf(dt, p->b + o2 * es), s = sinf(a * x);
            gk__stf(dt, p->o + o0 * es, x + s * s / (a + 1e-9f));
        });
        break;
    case GK__MC_BIN:
        if (!gk_dtype_is_float(dt)) GK__ND_FOR(nd, {
            int64_t x = gk__ldi(dt, p->a + o1 * es), y = gk__ldi(dt, p->b + o2 * es);
            gk__sti(dt, p->o + o0 * es, op == GK_BINARY_MAXIMUM ? (x > y ? x : y) : (x < y ? x : y));
        });
        else if (f64) GK__ND_FOR(nd, {
            double x, y, r;
            memcpy(&x, p->a + o1 * 8, 8); memcpy(&y, p->b + o2 * 8, 8);
            r = op == GK_BINARY_POW ? pow(x, y) : (x != x || y != y) ? x + y : op == GK_BINARY_MAXIMUM ? (x > y ? x : y) : (x < y ? x : y);
            memcpy(p->o + o0 * 8, &r, 8);
        });
        else GK__ND_FOR(nd, {
            float x = gk__ldf(dt, p->a + o1 * es), y = gk__ldf(dt, p->b + o2 * es), r;
            r = op == GK_BINARY_POW ? powf(x, y) : (x != x || y != y) ? x + y : op == GK_BINARY_MAXIMUM ? (x > y ? x : y) : (x < y ? x : y);
            gk__stf(dt, p->o + o0 * es, r);
        });
        break;
    case GK__MC_CMP:
        if (gk_dtype_is_float(dt)) GK__ND_FOR(nd, {
            double x = gk__ldd(dt, p->a + o1 * es), y = gk__ldd(dt, p->b + o2 * es);
            int r = op == GK_CMP_EQ ? x == y : op == GK_CMP_NE ? x != y : op == GK_CMP_LT ? x < y : op == GK_CMP_LE ? x <= y : op == GK_CMP_GT ? x > y : x >= y;
            ((uint8_t *)p->o)[o0] = (uint8_t)r;
        });
        else GK__ND_FOR(nd, {
            int64_t x = gk__ldi(dt, p->a + o1 * es), y = gk__ldi(dt, p->b + o2 * es);
            int r = op == GK_CMP_EQ ? x == y : op == GK_CMP_NE ? x != y : op == GK_CMP_LT ? x < y : op == GK_CMP_LE ? x <= y : op == GK_CMP_GT ? x > y : x >= y;
            ((uint8_t *)p->o)[o0] = (uint8_t)r;
        });
        break;
    default: /* where: operands out, cond, a, b */
        GK__ND_FOR(nd, memcpy(p->o + o0 * es, ((const uint8_t *)p->a)[o1] ? p->b + o2 * es : p->c + o3 * es, (size_t)es));
        break;
    }
    return 0;
}

/* The contiguous unary / binary kernels of math.cu (16-byte vectors, `per` a
   thread a step: gk_unary_c GK_UN_STEP = 1 in 512-thread blocks, gk_bin2_c 4 in
   256): one step's worth of blocks, so every thread runs once and the block
   scheduler balances the SMs (no tail of grid-stride blocks). */
static gk_status gk__launch_c4(gk_ctx *ctx, const char *fname, int64_t nbytes, int per, unsigned threads, void **args, const char *where) {
    int64_t nvec = (nbytes + 15) / 16, step = (int64_t)per * threads, blocks = (nvec + step - 1) / step;
    unsigned grid[3] = { 1, 1, 1 }, block[3] = { 1, 1, 1 };
    if (nbytes <= 0) return GK_OK;
    block[0] = threads;
    grid[0] = (unsigned)(blocks < ((int64_t)1 << 30) ? blocks : ((int64_t)1 << 30));
    return gk__launch_cfg(ctx, GK__MOD_MATH, fname, grid, block, 0, args, where);
}
static const char *const gk__k_unary[GK_DTYPE_COUNT] = GK__DTNAMES("gk_unary_", "");
/* the contiguous unary kernels, one a (dtype, op) for f32 / f64 / f16 / bf16 (math.cu: one
   kernel a dtype with a switch over the op is slower) */
#define GK__UNC(D)                                                                                                     \
    { "gk_unary_" D "_c0", "gk_unary_" D "_c1", "gk_unary_" D "_c2", "gk_unary_" D "_c3", "gk_unary_" D "_c4",          \
      "gk_unary_" D "_c5", "gk_unary_" D "_c6", "gk_unary_" D "_c7", "gk_unary_" D "_c8", "gk_unary_" D "_c9",          \
      "gk_unary_" D "_c10", "gk_unary_" D "_c11", "gk_unary_" D "_c12", "gk_unary_" D "_c13", "gk_unary_" D "_c14",     \
      "gk_unary_" D "_c15", "gk_unary_" D "_c16", "gk_unary_" D "_c17" }
static const char *const gk__k_unary_c[4][GK_UNARY_COUNT + 1] = { GK__UNC("f32"), GK__UNC("f64"), GK__UNC("f16"), GK__UNC("bf16") };
static const char *const gk__k_glu[2][GK_DTYPE_COUNT] = { GK__DTNAMES("gk_glu_", ""), GK__DTNAMES("gk_glu_", "_c") };
static const char *const gk__k_glu_split[GK_DTYPE_COUNT] = GK__DTNAMES("gk_glu_split_", "_c");
static const char *const gk__k_snake[GK_DTYPE_COUNT] = GK__DTNAMES("gk_snake_", "");
static const char *const gk__k_snake_rows[GK_DTYPE_COUNT] = GK__DTNAMES("gk_snake_rows_", "");
static const char *const gk__k_snake_rv[GK_DTYPE_COUNT] = GK__DTNAMES("gk_snake_rv_", "");
static const char *const gk__k_bin2[GK_DTYPE_COUNT] = GK__DTNAMES("gk_bin2_", "");
static const char *const gk__k_bin2c[GK_DTYPE_COUNT] = GK__DTNAMES("gk_bin2_", "_c");
static const char *const gk__k_cmp[GK_DTYPE_COUNT] = GK__DTNAMES("gk_cmp_", "");
static const char *const gk__k_where[9] = { NULL, "gk_where_b1", "gk_where_b2", NULL, "gk_where_b4", NULL, NULL, NULL, "gk_where_b8" };

static gk_status gk__mew(gk_ctx *ctx, int cls, int op, const gk_tensor *ts, int n, double p0, double p1, const char *where) {
    static const char *const nm_un[2] = { "out", "x" };
    static const char *const nm_bin[3] = { "out", "a", "b" };
    static const char *const nm_where[4] = { "out", "cond", "a", "b" };
    static const char *const nm_glu[3] = { "out", "gate", "up" };
    static const char *const nm_split[3] = { "out", "x (gate half)", "x (up half)" };
    static const char *const nm_snake[3] = { "out", "x", "alpha" };
    const char *const *names = cls == GK__MC_UNARY ? nm_un : cls == GK__MC_WHERE ? nm_where : cls == GK__MC_GLU ? nm_glu
                             : cls == GK__MC_GLU_SPLIT ? nm_split : cls == GK__MC_SNAKE ? nm_snake : nm_bin;
    gk__opnds ops;
    gk__mw p;
    gk__slot fs[4];
    gk__slot *fp[4];
    gk_status st;
    int i, nn = n;
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__operands(ctx, &ops, ts, cls == GK__MC_GLU_SPLIT ? nm_un : names, n, where);
    if (st == GK_OK) {
        gk_dtype dt = ops.s[0]->dtype;
        for (i = 0; i < n; i++) { fs[i] = *ops.s[i]; fp[i] = &fs[i]; }
        p.cls = cls; p.op = op; p.p0 = p0; p.p1 = p1;
        if (cls == GK__MC_CMP) {
            dt = ops.s[1]->dtype;
            if (ops.s[0]->dtype != GK_U8) st = gk__err(ctx, GK_ERR_DTYPE, "%s: out is %s but must be u8", where, gk_dtype_name(ops.s[0]->dtype));
            else if (ops.s[2]->dtype != dt)
                st = gk__err(ctx, GK_ERR_DTYPE, "%s: a is %s but b is %s (use gk_cast)", where, gk_dtype_name(dt), gk_dtype_name(ops.s[2]->dtype));
        } else if (cls == GK__MC_WHERE) {
            if (ops.s[1]->dtype != GK_U8) st = gk__err(ctx, GK_ERR_DTYPE, "%s: cond is %s but must be u8", where, gk_dtype_name(ops.s[1]->dtype));
            for (i = 2; i < 4 && st == GK_OK; i++)
                if (ops.s[i]->dtype != dt)
                    st = gk__err(ctx, GK_ERR_DTYPE, "%s: %s is %s but out is %s (use gk_cast)", where, names[i], gk_dtype_name(ops.s[i]->dtype), gk_dtype_name(dt));
        } else {
            for (i = 1; i < n && st == GK_OK; i++)
                if (ops.s[i]->dtype != dt)
                    st = gk__err(ctx, GK_ERR_DTYPE, "%s: %s is %s but out is %s (use gk_cast)", where, cls == GK__MC_GLU_SPLIT ? "x" : names[i],
                                 gk_dtype_name(ops.s[i]->dtype), gk_dtype_name(dt));
            if (st == GK_OK && !(cls == GK__MC_BIN && op != GK_BINARY_POW)) st = gk__need_fdt(ctx, ops.s[0], "out", where);
        }
        p.dt = dt;
    }
    if (st == GK_OK && cls == GK__MC_UNARY && op == GK__UNARY_CLAMP && !(p0 <= p1))
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_clamp: lo (%g) must be <= hi (%g), neither NaN", p0, p1);
    if (st == GK_OK && cls == GK__MC_SNAKE) {
        const gk__slot *x = ops.s[1], *al = ops.s[2];
        if (x->ndim != 2 && x->ndim != 3) st = gk__err(ctx, GK_ERR_SHAPE, "%s: x has %d dims; it must be [B, C, T] or [C, T]", where, x->ndim);
        else if (al->ndim != 1 || al->shape[0] != x->shape[x->ndim - 2])
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: alpha must be [C] with C = %lld (x's channel dim), got %d dims of first size %lld", where,
                         (long long)x->shape[x->ndim - 2], al->ndim, (long long)(al->ndim ? al->shape[0] : 0));
        else {
            fs[2].ndim = x->ndim;
            for (i = 0; i < x->ndim; i++) { fs[2].shape[i] = 1; fs[2].strides[i] = 0; }
            fs[2].shape[x->ndim - 2] = al->shape[0];
            fs[2].strides[x->ndim - 2] = al->strides[0];
        }
    }
    if (st == GK_OK && cls == GK__MC_GLU_SPLIT) {
        const gk__slot *x = ops.s[1];
        int64_t h;
        if (x->ndim < 1 || x->shape[x->ndim - 1] % 2 != 0)
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: x's last dim must be even (gate and up halves), got %lld", where,
                         (long long)(x->ndim ? x->shape[x->ndim - 1] : 0));
        else {
            h = x->shape[x->ndim - 1] / 2;
            fs[1].shape[x->ndim - 1] = h;
            fs[2] = fs[1];
            fs[2].offset += h * x->strides[x->ndim - 1];
            fp[2] = &fs[2];
            nn = 3;
        }
    }
    if (st == GK_OK) st = gk__nd_build(ctx, &p.nd, fp, nn, names, where);
    if (st == GK_OK && p.nd.n == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__operands_use(ctx, &ops, where);
    if (st == GK_OK) {
        gk__cu_ptr pp[4] = { 0, 0, 0, 0 };
        for (i = 0; i < nn; i++) pp[i] = gk__slot_addr(&fs[i]);
        p.o = (char *)(uintptr_t)pp[0];
        p.a = (const char *)(uintptr_t)pp[1];
        p.b = (const char *)(uintptr_t)pp[2];
        p.c = (const char *)(uintptr_t)pp[3];
        if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__mw_cpu, &p, sizeof p, where);
        else {
            void *args[6];
            int contig = gk__nd_contig(&p.nd, nn) && ((pp[0] | pp[1] | pp[2]) & 15) == 0;
            int64_t nel = p.nd.n, es = (int64_t)gk__dtype_sizes[p.dt];
            int iop = op;
            args[0] = &p.nd; args[1] = &pp[0]; args[2] = &pp[1]; args[3] = &pp[2]; args[4] = &pp[3];
            switch (cls) {
            case GK__MC_UNARY:
                args[3] = &iop; args[4] = &p.p0; args[5] = &p.p1;
                if (contig && p.dt <= GK_BF16 && op >= 0 && op <= GK_UNARY_COUNT) {
                    void *cargs[5];
                    cargs[0] = &nel; cargs[1] = &pp[0]; cargs[2] = &pp[1]; cargs[3] = &p.p0; cargs[4] = &p.p1;
                    st = gk__launch_c4(ctx, gk__k_unary_c[p.dt][op], nel * es, 1, 512, cargs, where);
                } else st = gk__launch(ctx, GK__MOD_MATH, gk__k_unary[p.dt], nel, args, where);
                break;
            case GK__MC_GLU: case GK__MC_GLU_SPLIT:
                args[4] = &iop;
                if (cls == GK__MC_GLU_SPLIT && !contig && gk__is_contig(ops.s[0]) && gk__is_contig(ops.s[1]) && gk__same_shape(ops.s[0], &fs[1]) &&
                    ((pp[0] | pp[1]) & 15) == 0 && (fs[1].shape[fs[1].ndim - 1] * es) % 16 == 0) {
                    /* contiguous rows [rows, 2n] -> [rows, n], 16 bytes per thread */
                    int64_t half = fs[1].shape[fs[1].ndim - 1], rows = nel / half;
                    void *sargs[5];
                    sargs[0] = &rows; sargs[1] = &half; sargs[2] = &pp[0]; sargs[3] = &pp[1]; sargs[4] = &iop;
                    st = gk__launch(ctx, GK__MOD_MATH, gk__k_glu_split[p.dt], (nel * es + 15) / 16, sargs, where);
                    break;
                }
                if (contig) { args[0] = &nel; st = gk__launch(ctx, GK__MOD_MATH, gk__k_glu[1][p.dt], (nel * es + 15) / 16, args, where); }
                else st = gk__launch(ctx, GK__MOD_MATH, gk__k_glu[0][p.dt], nel, args, where);
                break;
            case GK__MC_SNAKE:
                if (gk__is_contig(ops.s[0]) && gk__is_contig(ops.s[1]) && gk__same_shape(ops.s[0], ops.s[1])) {
                    /* rows of T with one alpha each: no index arithmetic per element */
                    const gk__slot *x = ops.s[1];
                    int64_t T = x->shape[x->ndim - 1], C = x->shape[x->ndim - 2], rows = nel / T, ast = ops.s[2]->strides[0];
                    unsigned grid[3] = { 1, 1, 1 }, block[3] = { 256, 1, 1 };
                    void *sargs[7];
                    sargs[0] = &rows; sargs[1] = &T; sargs[2] = &C; sargs[3] = &ast; sargs[4] = &pp[0]; sargs[5] = &pp[1]; sargs[6] = &pp[2];
                    grid[1] = (unsigned)(rows < 65535 ? rows : 65535);
                    if ((T * es) % 16 == 0 && ((pp[0] | pp[1]) & 15) == 0) {
                        /* 16-byte vectors, two per thread: T / V vectors a row */
                        int64_t tv = T * es / 16;
                        sargs[1] = &tv;
                        grid[0] = (unsigned)((tv + 511) / 512 < 64 ? (tv + 511) / 512 : 64);
                        st = gk__launch_cfg(ctx, GK__MOD_MATH, gk__k_snake_rv[p.dt], grid, block, 0, sargs, where);
                    } else {
                        grid[0] = (unsigned)((T + 255) / 256 < 64 ? (T + 255) / 256 : 64);
                        st = gk__launch_cfg(ctx, GK__MOD_MATH, gk__k_snake_rows[p.dt], grid, block, 0, sargs, where);
                    }
                } else st = gk__launch(ctx, GK__MOD_MATH, gk__k_snake[p.dt], nel, args, where);
                break;
            case GK__MC_BIN:
                args[4] = &iop;
                if (contig && gk__fdt(p.dt)) { args[0] = &nel; st = gk__launch_c4(ctx, gk__k_bin2c[p.dt], nel * es, 4, 256, args, where); }
                else st = gk__launch(ctx, GK__MOD_MATH, gk__k_bin2[p.dt], nel, args, where);
                break;
            case GK__MC_CMP: args[4] = &iop; st = gk__launch(ctx, GK__MOD_MATH, gk__k_cmp[p.dt], nel, args, where); break;
            default: st = gk__launch(ctx, GK__MOD_MATH, gk__k_where[es], nel, args, where); break;
            }
        }
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}

/* result shape and dtype of an elementwise math op, for the _new variants */
static gk_status gk__mew_new(gk_ctx *ctx, int cls, int op, const gk_tensor *ins, int nin, double p0, double p1, gk_tensor *out,
                             const char *where) {
    gk__slot *s[3];
    int64_t shape[GK_MAX_DIMS];
    int nd = 0, i, d;
    uint32_t idx;
    gk_dtype dt = GK_F32;
    gk_tensor ts[4];
    gk_status st = GK_OK;
    if (out) out->id = 0;
    GK__ENTER(ctx, where);
    if (!out) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", where);
    for (i = 0; i < nin && st == GK_OK; i++) st = gk__lookup(ctx, ins[i], &s[i], where, i == 0 ? "the first input" : "an input");
    if (st == GK_OK) {
        if (cls == GK__MC_SNAKE || cls == GK__MC_GLU_SPLIT) { /* x's shape (last dim halved for split) */
            nd = s[0]->ndim;
            for (d = 0; d < nd; d++) shape[d] = s[0]->shape[d];
            if (cls == GK__MC_GLU_SPLIT && nd > 0) shape[nd - 1] /= 2;
        } else {
            for (i = 0; i < nin; i++) if (s[i]->ndim > nd) nd = s[i]->ndim;
            for (d = 0; d < nd && st == GK_OK; d++) {
                int64_t v = 1;
                for (i = 0; i < nin; i++) {
                    int id = d - (nd - s[i]->ndim);
                    int64_t x = id >= 0 ? s[i]->shape[id] : 1;
                    if (x != 1 && v != 1 && x != v) {
                        char a[160], b[160];
                        gk__shape_str(s[0], a, sizeof a);
                        gk__shape_str(s[i], b, sizeof b);
                        st = gk__err(ctx, GK_ERR_SHAPE, "%s: shapes %s and %s do not broadcast", where, a, b);
                        break;
                    }
                    if (x != 1) v = x;
                }
                shape[d] = v;
            }
        }
        dt = cls == GK__MC_CMP ? GK_U8 : cls == GK__MC_WHERE ? s[1]->dtype : s[0]->dtype;
    }
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK) st = gk__tensor_new(ctx, dt, nd, shape, &idx, where);
    if (st == GK_OK) ts[0] = gk__handle(ctx, idx);
    gk__unlock(&ctx->mu);
    if (st != GK_OK) return st;
    for (i = 0; i < nin; i++) ts[i + 1] = ins[i];
    return gk__finish_new(ctx, gk__mew(ctx, cls, op, ts, nin + 1, p0, p1, where), ts[0], out);
}

GKDEF gk_status gk_unary(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_unary_op op, double param) {
    gk_tensor ts[2];
    ts[0] = out; ts[1] = x;
    if ((int)op < 0 || op >= GK_UNARY_COUNT) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_unary: unknown op %d", (int)op);
    if (op == GK_UNARY_SOFTPLUS && param == 0) param = 1;
    return gk__mew(ctx, GK__MC_UNARY, (int)op, ts, 2, param, 0, "gk_unary");
}
GKDEF gk_status gk_unary_new(gk_ctx *ctx, gk_tensor x, gk_unary_op op, double param, gk_tensor *out) {
    if ((int)op < 0 || op >= GK_UNARY_COUNT) { if (out) out->id = 0; return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_unary_new: unknown op %d", (int)op); }
    if (op == GK_UNARY_SOFTPLUS && param == 0) param = 1;
    return gk__mew_new(ctx, GK__MC_UNARY, (int)op, &x, 1, param, 0, out, "gk_unary_new");
}
GKDEF gk_status gk_clamp(gk_ctx *ctx, gk_tensor out, gk_tensor x, double lo, double hi) {
    gk_tensor ts[2];
    ts[0] = out; ts[1] = x;
    return gk__mew(ctx, GK__MC_UNARY, GK__UNARY_CLAMP, ts, 2, lo, hi, "gk_clamp");
}
GKDEF gk_status gk_clamp_new(gk_ctx *ctx, gk_tensor x, double lo, double hi, gk_tensor *out) {
    return gk__mew_new(ctx, GK__MC_UNARY, GK__UNARY_CLAMP, &x, 1, lo, hi, out, "gk_clamp_new");
}
GKDEF gk_status gk_binary(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b, gk_binary_op op) {
    gk_tensor ts[3];
    ts[0] = out; ts[1] = a; ts[2] = b;
    if ((int)op < 0 || op >= GK_BINARY_COUNT) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_binary: unknown op %d", (int)op);
    return gk__mew(ctx, GK__MC_BIN, (int)op, ts, 3, 0, 0, "gk_binary");
}
GKDEF gk_status gk_binary_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_binary_op op, gk_tensor *out) {
    gk_tensor ins[2];
    ins[0] = a; ins[1] = b;
    if ((int)op < 0 || op >= GK_BINARY_COUNT) { if (out) out->id = 0; return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_binary_new: unknown op %d", (int)op); }
    return gk__mew_new(ctx, GK__MC_BIN, (int)op, ins, 2, 0, 0, out, "gk_binary_new");
}
GKDEF gk_status gk_compare(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b, gk_compare_op op) {
    gk_tensor ts[3];
    ts[0] = out; ts[1] = a; ts[2] = b;
    if ((int)op < 0 || op >= GK_CMP_COUNT) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_compare: unknown op %d", (int)op);
    return gk__mew(ctx, GK__MC_CMP, (int)op, ts, 3, 0, 0, "gk_compare");
}
GKDEF gk_status gk_compare_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_compare_op op, gk_tensor *out) {
    gk_tensor ins[2];
    ins[0] = a; ins[1] = b;
    if ((int)op < 0 || op >= GK_CMP_COUNT) { if (out) out->id = 0; return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_compare_new: unknown op %d", (int)op); }
    return gk__mew_new(ctx, GK__MC_CMP, (int)op, ins, 2, 0, 0, out, "gk_compare_new");
}
GKDEF gk_status gk_where(gk_ctx *ctx, gk_tensor out, gk_tensor cond, gk_tensor a, gk_tensor b) {
    gk_tensor ts[4];
    ts[0] = out; ts[1] = cond; ts[2] = a; ts[3] = b;
    return gk__mew(ctx, GK__MC_WHERE, 0, ts, 4, 0, 0, "gk_where");
}
GKDEF gk_status gk_where_new(gk_ctx *ctx, gk_tensor cond, gk_tensor a, gk_tensor b, gk_tensor *out) {
    gk_tensor ins[3];
    ins[0] = cond; ins[1] = a; ins[2] = b;
    return gk__mew_new(ctx, GK__MC_WHERE, 0, ins, 3, 0, 0, out, "gk_where_new");
}
GKDEF gk_status gk_snake(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor alpha) {
    gk_tensor ts[3];
    ts[0] = out; ts[1] = x; ts[2] = alpha;
    return gk__mew(ctx, GK__MC_SNAKE, 0, ts, 3, 0, 0, "gk_snake");
}
GKDEF gk_status gk_snake_new(gk_ctx *ctx, gk_tensor x, gk_tensor alpha, gk_tensor *out) {
    gk_tensor ins[2];
    ins[0] = x; ins[1] = alpha;
    return gk__mew_new(ctx, GK__MC_SNAKE, 0, ins, 2, 0, 0, out, "gk_snake_new");
}
GKDEF gk_status gk_glu(gk_ctx *ctx, gk_tensor out, gk_tensor gate, gk_tensor up, gk_glu_op op) {
    gk_tensor ts[3];
    ts[0] = out; ts[1] = gate; ts[2] = up;
    if ((int)op < 0 || op >= GK_GLU_COUNT) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_glu: unknown op %d", (int)op);
    return gk__mew(ctx, GK__MC_GLU, (int)op, ts, 3, 0, 0, "gk_glu");
}
GKDEF gk_status gk_glu_new(gk_ctx *ctx, gk_tensor gate, gk_tensor up, gk_glu_op op, gk_tensor *out) {
    gk_tensor ins[2];
    ins[0] = gate; ins[1] = up;
    if ((int)op < 0 || op >= GK_GLU_COUNT) { if (out) out->id = 0; return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_glu_new: unknown op %d", (int)op); }
    return gk__mew_new(ctx, GK__MC_GLU, (int)op, ins, 2, 0, 0, out, "gk_glu_new");
}
GKDEF gk_status gk_glu_split(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_glu_op op) {
    gk_tensor ts[2];
    ts[0] = out; ts[1] = x;
    if ((int)op < 0 || op >= GK_GLU_COUNT) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_glu_split: unknown op %d", (int)op);
    return gk__mew(ctx, GK__MC_GLU_SPLIT, (int)op, ts, 2, 0, 0, "gk_glu_split");
}
GKDEF gk_status gk_glu_split_new(gk_ctx *ctx, gk_tensor x, gk_glu_op op, gk_tensor *out) {
    if ((int)op < 0 || op >= GK_GLU_COUNT) { if (out) out->id = 0; return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_glu_split_new: unknown op %d", (int)op); }
    return gk__mew_new(ctx, GK__MC_GLU_SPLIT, (int)op, &x, 1, 0, 0, out, "gk_glu_split_new");
}

