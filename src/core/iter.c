/* ------------------------------------------------------------------------ */
/* >>ops
   One path for every op: validate the operands, build the iteration (the
   output's shape, inputs broadcast to it, dims of size 1 dropped and
   contiguous dims merged), then either run the CPU reference loop (now, or
   recorded while capturing) or launch the library kernel on the current
   stream. Operands are pinned while the op is issued (gk__use). */
#define GK__ND_OPS 4
typedef struct gk__nd {          /* the layout of gk_nd in src/kernels/gk_common.cuh */
    int ndim;
    int pad;
    int64_t n;
    int64_t shape[GK_MAX_DIMS];
    int64_t st[GK__ND_OPS][GK_MAX_DIMS]; /* operand 0: output; 1..3 inputs */
} gk__nd;

static void gk__shape_str(const gk__slot *s, char *buf, size_t n) {
    size_t k = 0;
    int i;
    k += (size_t)snprintf(buf + k, n - k, "[");
    for (i = 0; i < s->ndim && k < n; i++) k += (size_t)snprintf(buf + k, n - k, i ? ",%lld" : "%lld", (long long)s->shape[i]);
    if (k + 1 < n) { buf[k] = ']'; buf[k + 1] = 0; }
}

/* The iteration of an elementwise op: ops[0] is the output, ops[1..nops-1]
   (at most GK__ND_OPS in all) the inputs, broadcast to the output's shape. */
static gk_status gk__nd_build(gk_ctx *ctx, gk__nd *nd, gk__slot *const *ops, int nops, const char *const *names, const char *where) {
    const gk__slot *o = ops[0];
    int64_t st[GK__ND_OPS][GK_MAX_DIMS];
    int k, d, j = 0;
    memset(nd, 0, sizeof *nd);
    for (k = 0; k < nops; k++) {
        const gk__slot *s = ops[k];
        if (s->ndim > o->ndim) goto bad;
        for (d = 0; d < o->ndim; d++) {
            int id = d - (o->ndim - s->ndim);
            if (id < 0) st[k][d] = 0;
            else if (s->shape[id] == o->shape[d]) st[k][d] = s->shape[id] == 1 ? 0 : s->strides[id];
            else if (s->shape[id] == 1) st[k][d] = 0;
            else goto bad;
        }
        continue;
    bad: {
        char a[160], b[160];
        gk__shape_str(s, a, sizeof a);
        gk__shape_str(o, b, sizeof b);
        return gk__err(ctx, GK_ERR_SHAPE, "%s: %s of shape %s does not broadcast to %s of shape %s", where, names[k], a, names[0], b);
    }
    }
    nd->n = gk__numel(o);
    for (d = 0; d < o->ndim; d++) {
        if (o->shape[d] == 1) continue;
        if (j > 0) { /* merge into the previous kept dim when contiguous for every operand */
            int merge = 1;
            for (k = 0; k < nops; k++)
                if (nd->st[k][j - 1] != st[k][d] * o->shape[d]) merge = 0;
            if (merge) {
                nd->shape[j - 1] *= o->shape[d];
                for (k = 0; k < nops; k++) nd->st[k][j - 1] = st[k][d];
                continue;
            }
        }
        nd->shape[j] = o->shape[d];
        for (k = 0; k < nops; k++) nd->st[k][j] = st[k][d];
        j++;
    }
    nd->ndim = j;
    if (j == 0) { nd->ndim = 1; nd->shape[0] = 1; for (k = 0; k < GK__ND_OPS; k++) nd->st[k][0] = 1; }
    return GK_OK;
}
static int gk__nd_contig(const gk__nd *nd, int nops) {
    int k;
    if (nd->ndim != 1) return 0;
    for (k = 0; k < nops; k++) if (nd->st[k][0] != 1) return 0;
    return 1;
}
/* The 16-byte vector path of a broadcast (the *_v kernels): the innermost
   dim is a multiple of vec elements, with stride 1 in the output and 1 or 0
   in each input, and every row of a stride-1 operand starts 16-byte aligned
   (base address and outer strides). */
static int gk__nd_vec_ok(const gk__nd *nd, int nops, const gk__cu_ptr *base, int64_t vec) {
    int in = nd->ndim - 1, k, d;
    if (nd->shape[in] % vec != 0 || nd->st[0][in] != 1) return 0;
    for (k = 0; k < nops; k++) {
        if (nd->st[k][in] == 0) continue;
        if (nd->st[k][in] != 1 || (base[k] & 15) != 0) return 0;
        for (d = 0; d < in; d++)
            if (nd->st[k][d] % vec != 0) return 0;
    }
    return 1;
}

/* Walks every element of nd; o0..o2 are element offsets of the operands. */
#define GK__ND_FOR(nd, ...)                                                             \
    do {                                                                                 \
        int64_t ix_[GK_MAX_DIMS] = { 0 }, o0 = 0, o1 = 0, o2 = 0, o3 = 0, i_;            \
        int d_;                                                                          \
        for (i_ = 0; i_ < (nd)->n; i_++) {                                               \
            __VA_ARGS__;                                                                 \
            for (d_ = (nd)->ndim - 1; d_ >= 0; d_--) {                                   \
                if (++ix_[d_] < (nd)->shape[d_]) {                                       \
                    o0 += (nd)->st[0][d_]; o1 += (nd)->st[1][d_]; o2 += (nd)->st[2][d_]; \
                    o3 += (nd)->st[3][d_];                                               \
                    break;                                                               \
                }                                                                        \
                o0 -= (nd)->st[0][d_] * ((nd)->shape[d_] - 1);                           \
                o1 -= (nd)->st[1][d_] * ((nd)->shape[d_] - 1);                           \
                o2 -= (nd)->st[2][d_] * ((nd)->shape[d_] - 1);                           \
                o3 -= (nd)->st[3][d_] * ((nd)->shape[d_] - 1);                           \
                ix_[d_] = 0;                                                             \
            }                                                                            \
        }                                                                                \
        GK__UNUSED(o0); GK__UNUSED(o1); GK__UNUSED(o2); GK__UNUSED(o3);                  \
    } while (0)

enum { GK__OP_ADD = 0, GK__OP_SUB, GK__OP_MUL, GK__OP_DIV, GK__OP_FILL, GK__OP_COPY, GK__OP_CAST, GK__OP_SCALE, GK__OP_AXPY };

