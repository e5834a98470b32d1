/* >>ops_elementwise: operands, elementwise dispatch, fill/copy/cast/add/... */
/* Operands of one op: looked up, dtype-checked, resident and pinned. */
#define GK__MAX_OPNDS 16
typedef struct gk__opnds { gk__slot *s[GK__MAX_OPNDS]; int n; int used; } gk__opnds;
static gk_status gk__operands(gk_ctx *ctx, gk__opnds *ops, const gk_tensor *ts, const char *const *names, int n, const char *where) {
    int i;
    if (n > GK__MAX_OPNDS) return gk__err(ctx, GK_ERR_INTERNAL, "%s: %d operands (at most %d)", where, n, GK__MAX_OPNDS);
    ops->n = n;
    ops->used = 0;
    for (i = 0; i < n; i++) GK__TRY(gk__lookup(ctx, ts[i], &ops->s[i], where, names[i]));
    return GK_OK;
}
static gk_status gk__operands_use(gk_ctx *ctx, gk__opnds *ops, const char *where) {
    int i;
    GK__TRY(gk__bind(ctx));
    for (i = 0; i < ops->n; i++) {
        GK__TRY(gk__use(ctx, ops->s[i]->blk, ctx->cur_stream, where));
        ops->used = i + 1;
    }
    return GK_OK;
}
static void gk__operands_done(gk_ctx *ctx, gk__opnds *ops, gk_status st) {
    int i;
    for (i = 0; i < ops->used; i++) gk__unuse(ctx, ops->s[i]->blk);
    if (st != GK_OK && ctx->cur_stream->capture && ctx->cur_stream->capture->failed == GK_OK) ctx->cur_stream->capture->failed = st;
}

/* The one entry of the elementwise ops: op, out (operand 0), inputs. */
static gk_status gk__elementwise(gk_ctx *ctx, int op, const gk_tensor *ts, int n, double alpha, double fillv, const char *where) {
    static const char *const names3[3] = { "out", "a", "b" };
    static const char *const names_copy[2] = { "dst", "src" };
    static const char *const names_scale[2] = { "out", "x" };
    static const char *const names_axpy[2] = { "y", "x" };
    static const char *const names_fill[1] = { "the tensor" };
    const char *const *names = op <= GK__OP_DIV ? names3 : op == GK__OP_FILL ? names_fill
                             : (op == GK__OP_COPY || op == GK__OP_CAST) ? names_copy : op == GK__OP_SCALE ? names_scale : names_axpy;
    gk__opnds ops;
    gk__ew p;
    gk_status st;
    int i;
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__operands(ctx, &ops, ts, names, n, where);
    if (st == GK_OK) {
        p.dt = ops.s[0]->dtype;
        p.sdt = n > 1 ? ops.s[1]->dtype : p.dt;
        p.op = op;
        p.alpha = alpha;
        for (i = 1; i < n && op != GK__OP_CAST; i++)
            if (ops.s[i]->dtype != p.dt) {
                st = gk__err(ctx, GK_ERR_DTYPE, "%s: %s is %s but %s is %s (use gk_cast)", where, names[i], gk_dtype_name(ops.s[i]->dtype),
                             names[0], gk_dtype_name(p.dt));
                break;
            }
    }
    if (st == GK_OK) st = gk__nd_build(ctx, &p.nd, ops.s, n, names, where);
    if (st == GK_OK && p.nd.n == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK && op == GK__OP_FILL) {
        gk__scalar sc;
        sc.is_int = 0; sc.i = 0; sc.f = fillv;
        if (!gk_dtype_is_float(p.dt) && fillv == floor(fillv) && fabs(fillv) < 9.2e18) { sc.is_int = 1; sc.i = (int64_t)fillv; }
        gk__store(p.dt, &p.pattern, sc);
    }
    if (st == GK_OK) st = gk__operands_use(ctx, &ops, where);
    if (st == GK_OK) {
        p.o = (char *)(uintptr_t)gk__slot_addr(ops.s[0]);
        p.a = n > 1 ? (const char *)(uintptr_t)gk__slot_addr(ops.s[1]) : NULL;
        p.b = n > 2 ? (const char *)(uintptr_t)gk__slot_addr(ops.s[2]) : NULL;
        if (ctx->prof) {
            /* the profiler's hint: the bytes read and written (y of axpy both), a FLOP an
               element (axpy two) */
            double bytes = 0, e = (double)p.nd.n;
            for (i = 0; i < n; i++) bytes += (double)gk__numel(ops.s[i]) * (double)gk__dtype_sizes[ops.s[i]->dtype];
            if (op == GK__OP_AXPY) bytes += (double)gk__numel(ops.s[0]) * (double)gk__dtype_sizes[p.dt];
            gk__prof_note(ctx, bytes, op <= GK__OP_DIV || op == GK__OP_SCALE ? e : op == GK__OP_AXPY ? 2 * e : 0);
        }
        if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__ew_cpu, &p, sizeof p, where);
        else {
            gk__cu_ptr po = gk__slot_addr(ops.s[0]), pa = n > 1 ? gk__slot_addr(ops.s[1]) : 0, pb = n > 2 ? gk__slot_addr(ops.s[2]) : 0;
            size_t es = gk__dtype_sizes[p.dt];
            int contig = gk__nd_contig(&p.nd, n);
            void *args[4];
            args[0] = &p.nd;
            args[1] = &po;
            args[2] = &pa;
            args[3] = &pb;
            if (op <= GK__OP_DIV) {
                if (contig && ((po | pa | pb) & 15) == 0) {
                    int64_t nn = p.nd.n;
                    args[0] = &nn;
                    /* two 16-byte vectors a thread */
                    st = gk__launch(ctx, GK__MOD_ELEMENTWISE, gk__k_bin[op][1][p.dt], ((nn * (int64_t)es + 15) / 16 + 1) / 2, args, where);
                } else {
                    gk__cu_ptr bases[3];
                    int64_t vec = 16 / (int64_t)es;
                    bases[0] = po; bases[1] = pa; bases[2] = pb;
                    if (gk__nd_vec_ok(&p.nd, 3, bases, vec)) {
                        /* rows of 32+ vectors go a warp a segment of at most 1024 vectors (the kernel's):
                           about as many warps as are resident (4 blocks of 256 an SM) */
                        int64_t nv = p.nd.n / vec, wv = p.nd.shape[p.nd.ndim - 1] / vec, work = nv;
                        if (wv >= 32) work = 256 * GK__MIN((nv / wv * ((wv + 1023) / 1024) + 7) / 8, (int64_t)ctx->info.sm_count * 4);
                        st = gk__launch(ctx, GK__MOD_ELEMENTWISE, gk__k_bin[op][2][p.dt], work, args, where);
                    }
                    else st = gk__launch(ctx, GK__MOD_ELEMENTWISE, gk__k_bin[op][0][p.dt], p.nd.n, args, where);
                }
            } else if (op == GK__OP_FILL) {
                if (contig && (po & 15) == 0) {
                    int64_t nbytes = p.nd.n * (int64_t)es;
                    uint64_t pat = p.pattern, rep = 0;
                    size_t k;
                    for (k = 0; k < 8; k += es) rep |= (pat & (es == 8 ? ~0ull : ((1ull << (8 * es)) - 1))) << (8 * k);
                    args[0] = &nbytes;
                    args[2] = &rep;
                    args[3] = &rep;
                    st = gk__launch(ctx, GK__MOD_ELEMENTWISE, "gk_fill_c", (nbytes + 15) / 16, args, where);
                } else {
                    args[2] = &p.pattern;
                    st = gk__launch(ctx, GK__MOD_ELEMENTWISE, gk__k_fill[es], p.nd.n, args, where);
                }
            } else if (op == GK__OP_COPY) {
                if (contig) {
                    int rec = ctx->prof ? gk__prof_begin(ctx, ctx->cur_stream, "memcpy DtoD", GK__PROF_D2D) : -1;
                    gk__cu_result r = ctx->cu.MemcpyDtoDAsync(po, pa, (size_t)p.nd.n * es, ctx->cur_stream->cu);
                    if (rec >= 0) gk__prof_end(ctx, ctx->cur_stream, rec);
                    if (r != 0) st = gk__cu_fail(ctx, r, where, "cuMemcpyDtoDAsync_v2");
                } else st = gk__launch(ctx, GK__MOD_ELEMENTWISE, gk__k_copy[es], p.nd.n, args, where);
            } else if (op == GK__OP_CAST) {
                st = gk__launch(ctx, GK__MOD_CAST, gk__k_cast[p.sdt][p.dt], p.nd.n, args, where);
            } else {
                args[3] = &p.alpha;
                st = gk__launch(ctx, GK__MOD_ELEMENTWISE, gk__k_scale[op == GK__OP_AXPY][p.dt], p.nd.n, args, where);
            }
        }
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_fill(gk_ctx *ctx, gk_tensor t, double value) { return gk__elementwise(ctx, GK__OP_FILL, &t, 1, 0, value, "gk_fill"); }
GKDEF gk_status gk_copy(gk_ctx *ctx, gk_tensor dst, gk_tensor src) {
    gk_tensor ts[2];
    ts[0] = dst; ts[1] = src;
    return gk__elementwise(ctx, GK__OP_COPY, ts, 2, 0, 0, "gk_copy");
}
GKDEF gk_status gk_cast(gk_ctx *ctx, gk_tensor dst, gk_tensor src) {
    gk_tensor ts[2];
    ts[0] = dst; ts[1] = src;
    return gk__elementwise(ctx, GK__OP_CAST, ts, 2, 0, 0, "gk_cast");
}
static gk_status gk__binary(gk_ctx *ctx, int op, gk_tensor out, gk_tensor a, gk_tensor b, const char *where) {
    gk_tensor ts[3];
    ts[0] = out; ts[1] = a; ts[2] = b;
    return gk__elementwise(ctx, op, ts, 3, 0, 0, where);
}
GKDEF gk_status gk_add(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b) { return gk__binary(ctx, GK__OP_ADD, out, a, b, "gk_add"); }
GKDEF gk_status gk_sub(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b) { return gk__binary(ctx, GK__OP_SUB, out, a, b, "gk_sub"); }
GKDEF gk_status gk_mul(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b) { return gk__binary(ctx, GK__OP_MUL, out, a, b, "gk_mul"); }
GKDEF gk_status gk_div(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b) { return gk__binary(ctx, GK__OP_DIV, out, a, b, "gk_div"); }
GKDEF gk_status gk_scale(gk_ctx *ctx, gk_tensor out, gk_tensor x, double alpha) {
    gk_tensor ts[2];
    ts[0] = out; ts[1] = x;
    return gk__elementwise(ctx, GK__OP_SCALE, ts, 2, alpha, 0, "gk_scale");
}
GKDEF gk_status gk_axpy(gk_ctx *ctx, gk_tensor y, double alpha, gk_tensor x) {
    gk_tensor ts[2];
    ts[0] = y; ts[1] = x;
    return gk__elementwise(ctx, GK__OP_AXPY, ts, 2, alpha, 0, "gk_axpy");
}

/* Broadcast shape of a and b (NumPy rules) for the _new variants. */
static gk_status gk__broadcast_shape(gk_ctx *ctx, const gk__slot *a, const gk__slot *b, int *nd, int64_t *shape, const char *where) {
    int n = a->ndim > b->ndim ? a->ndim : b->ndim, i;
    for (i = 0; i < n; i++) {
        int ia = i - (n - a->ndim), ib = i - (n - b->ndim);
        int64_t x = ia >= 0 ? a->shape[ia] : 1, y = ib >= 0 ? b->shape[ib] : 1;
        if (x != y && x != 1 && y != 1) {
            char sa[160], sb[160];
            gk__shape_str(a, sa, sizeof sa);
            gk__shape_str(b, sb, sizeof sb);
            return gk__err(ctx, GK_ERR_SHAPE, "%s: shapes %s and %s do not broadcast", where, sa, sb);
        }
        shape[i] = x == 1 ? y : x;
    }
    *nd = n;
    return GK_OK;
}
static gk_status gk__binary_new(gk_ctx *ctx, int op, gk_tensor a, gk_tensor b, gk_tensor *out, const char *where) {
    gk__slot *sa, *sb;
    int64_t shape[GK_MAX_DIMS];
    int nd = 0;
    uint32_t idx;
    gk_tensor t;
    gk_status st;
    if (out) out->id = 0;
    GK__ENTER(ctx, where);
    st = out ? gk__lookup(ctx, a, &sa, where, "a") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", where);
    if (st == GK_OK) st = gk__lookup(ctx, b, &sb, where, "b");
    if (st == GK_OK && sa->dtype != sb->dtype)
        st = gk__err(ctx, GK_ERR_DTYPE, "%s: a is %s but b is %s (use gk_cast)", where, gk_dtype_name(sa->dtype), gk_dtype_name(sb->dtype));
    if (st == GK_OK) st = gk__broadcast_shape(ctx, sa, sb, &nd, shape, where);
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK) st = gk__tensor_new(ctx, sa->dtype, nd, shape, &idx, where);
    if (st == GK_OK) t = gk__handle(ctx, idx);
    gk__unlock(&ctx->mu);
    if (st != GK_OK) return st;
    st = gk__binary(ctx, op, t, a, b, where);
    if (st != GK_OK) {
        char save[GK__ERRBUF];
        gk__err_save(ctx, save);
        gk_tensor_free(ctx, t);
        gk__err_restore(ctx, save);
        return st;
    }
    *out = t;
    return GK_OK;
}
GKDEF gk_status gk_add_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_tensor *out) { return gk__binary_new(ctx, GK__OP_ADD, a, b, out, "gk_add_new"); }
GKDEF gk_status gk_sub_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_tensor *out) { return gk__binary_new(ctx, GK__OP_SUB, a, b, out, "gk_sub_new"); }
GKDEF gk_status gk_mul_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_tensor *out) { return gk__binary_new(ctx, GK__OP_MUL, a, b, out, "gk_mul_new"); }
GKDEF gk_status gk_div_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_tensor *out) { return gk__binary_new(ctx, GK__OP_DIV, a, b, out, "gk_div_new"); }

/* A new tensor shaped like src (dtype given), freed again if fill fails. */
static gk_status gk__new_like(gk_ctx *ctx, gk_tensor src, gk_dtype dt, gk_tensor *out, const char *where) {
    gk__slot *s;
    uint32_t idx;
    gk_status st;
    GK__ENTER(ctx, where);
    st = gk__lookup(ctx, src, &s, where, "src");
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK) st = gk__tensor_new(ctx, dt, s->ndim, s->shape, &idx, where);
    if (st == GK_OK) *out = gk__handle(ctx, idx);
    gk__unlock(&ctx->mu);
    return st;
}
static gk_status gk__finish_new(gk_ctx *ctx, gk_status st, gk_tensor t, gk_tensor *out) {
    if (st != GK_OK) {
        char save[GK__ERRBUF];
        gk__err_save(ctx, save);
        gk_tensor_free(ctx, t);
        gk__err_restore(ctx, save);
        return st;
    }
    *out = t;
    return GK_OK;
}
GKDEF gk_status gk_cast_new(gk_ctx *ctx, gk_tensor src, gk_dtype dtype, gk_tensor *out) {
    gk_tensor t;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_cast_new: out is NULL");
    GK__TRY(gk__new_like(ctx, src, dtype, &t, "gk_cast_new"));
    return gk__finish_new(ctx, gk_cast(ctx, t, src), t, out);
}
GKDEF gk_status gk_contiguous(gk_ctx *ctx, gk_tensor t, gk_tensor *out) {
    gk__slot *s;
    gk_status st;
    int contig = 0;
    gk_tensor n;
    if (out) out->id = 0;
    GK__ENTER(ctx, "gk_contiguous");
    st = out ? gk__lookup(ctx, t, &s, "gk_contiguous", "the tensor") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_contiguous: out is NULL");
    if (st == GK_OK && (contig = gk__is_contig(s)) != 0) st = gk__view_new(ctx, s, s->ndim, s->shape, s->strides, s->offset, out, "gk_contiguous");
    gk__unlock(&ctx->mu);
    if (st != GK_OK || contig) return st;
    GK__TRY(gk__new_like(ctx, t, s->dtype, &n, "gk_contiguous"));
    return gk__finish_new(ctx, gk_copy(ctx, n, t), n, out);
}

