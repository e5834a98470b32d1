/* >>math_sample: top-k and sampling */
/* ---- top-k and sampling: 64-bit keys (value bits, ~index), see src/ops/math/sample.cu ---- */
static uint64_t gk__comp_key(float f, int64_t i) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if (f != f) u = 0xFFFFFFFFu;
    else u = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
    return ((uint64_t)u << 32) | (uint64_t)(~(uint32_t)i);
}
static int gk__cmp_desc_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x > y ? -1 : x < y;
}
typedef struct gk__topk_p {
    gk__nd on;                   /* rows: 0 values, 1 indices, 2 x */
    int64_t n, k, xs, vs, is;
    gk_dtype dt;
    char *v, *ix;
    const char *x;
} gk__topk_p;
static int gk__topk_cpu(const void *vp) {
    const gk__topk_p *p = (const gk__topk_p *)vp;
    int64_t es = (int64_t)gk__dtype_sizes[p->dt], j;
    uint64_t *keys = GK__CAST(uint64_t *, GPUKIT_MALLOC((size_t)p->n * 8));
    const gk__nd *on = &p->on;
    if (!keys) return 1;
    GK__ND_FOR(on, {
        const char *xr = p->x + o2 * es;
        for (j = 0; j < p->n; j++) keys[j] = gk__comp_key(gk__ldf(p->dt, xr + j * p->xs * es), j);
        qsort(keys, (size_t)p->n, 8, gk__cmp_desc_u64);
        for (j = 0; j < p->k; j++) {
            int64_t i = (int64_t)(uint32_t)~(uint32_t)keys[j];
            memcpy(p->v + (o0 + j * p->vs) * es, xr + i * p->xs * es, (size_t)es);
            memcpy(p->ix + (o1 + j * p->is) * 8, &i, 8);
        }
    });
    GPUKIT_FREE(keys);
    return 0;
}
static const char *const gk__k_topk[GK_DTYPE_COUNT] = GK__DTNAMES("gk_topk_", "");
static const char *const gk__k_topk_part[GK_DTYPE_COUNT] = GK__DTNAMES("gk_topk_part_", "");
static const char *const gk__k_topk_merge[GK_DTYPE_COUNT] = GK__DTNAMES("gk_topk_merge_", "");
#define GK__SMEM_SORT 4096
#define GK__TK_PART 4096 /* GK_TK_PART in src/ops/math/sample.cu */
static int64_t gk__pow2_at_least(int64_t k) {
    int64_t p = 1;
    while (p < k) p <<= 1;
    return p;
}

GKDEF gk_status gk_topk(gk_ctx *ctx, gk_tensor values, gk_tensor indices, gk_tensor x, int64_t k) {
    static const char *const names[3] = { "values", "indices", "x" };
    const char *where = "gk_topk";
    gk_tensor ts[3];
    gk__opnds ops;
    gk__topk_p p;
    gk__slot fs[3];
    gk__slot *pp[3];
    int64_t shape[GK_MAX_DIMS];
    gk_status st;
    int i, nd = 0;
    ts[0] = values; ts[1] = indices; ts[2] = x;
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__operands(ctx, &ops, ts, names, 3, where);
    if (st == GK_OK) {
        gk_dtype dt = ops.s[2]->dtype;
        nd = ops.s[2]->ndim;
        if (dt != GK_F32 && dt != GK_F16 && dt != GK_BF16) st = gk__err(ctx, GK_ERR_DTYPE, "%s: x is %s; top-k takes f32, f16 or bf16", where, gk_dtype_name(dt));
        else if (ops.s[0]->dtype != dt) st = gk__err(ctx, GK_ERR_DTYPE, "%s: values is %s but x is %s", where, gk_dtype_name(ops.s[0]->dtype), gk_dtype_name(dt));
        else if (ops.s[1]->dtype != GK_I64) st = gk__err(ctx, GK_ERR_DTYPE, "%s: indices is %s but must be i64", where, gk_dtype_name(ops.s[1]->dtype));
        else if (nd < 1) st = gk__err(ctx, GK_ERR_SHAPE, "%s: x is 0-d; top-k needs a last dim", where);
        else if (ops.s[2]->shape[nd - 1] >= ((int64_t)1 << 31)) st = gk__err(ctx, GK_ERR_LIMIT, "%s: the last dim (%lld) must be below 2^31", where, (long long)ops.s[2]->shape[nd - 1]);
        else if (k < 0 || k > ops.s[2]->shape[nd - 1])
            st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: k = %lld outside 0..%lld (the last dim)", where, (long long)k, (long long)ops.s[2]->shape[nd - 1]);
    }
    if (st == GK_OK) {
        for (i = 0; i < nd; i++) shape[i] = ops.s[2]->shape[i];
        shape[nd - 1] = k;
        st = gk__shape_eq(ctx, ops.s[0], nd, shape, "values", where);
        if (st == GK_OK) st = gk__shape_eq(ctx, ops.s[1], nd, shape, "indices", where);
    }
    if (st == GK_OK) {
        for (i = 0; i < 3; i++) { fs[i] = gk__slot_drop(ops.s[i], nd - 1); pp[i] = &fs[i]; }
        st = gk__nd_build(ctx, &p.on, pp, 3, names, where);
        p.n = ops.s[2]->shape[nd - 1]; p.k = k;
        p.xs = ops.s[2]->strides[nd - 1]; p.vs = ops.s[0]->strides[nd - 1]; p.is = ops.s[1]->strides[nd - 1];
        p.dt = ops.s[2]->dtype;
    }
    if (st == GK_OK && (p.on.n == 0 || k == 0)) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__operands_use(ctx, &ops, where);
    if (st == GK_OK) {
        gk__cu_ptr pv = gk__slot_addr(ops.s[0]), pi = gk__slot_addr(ops.s[1]), px = gk__slot_addr(ops.s[2]);
        p.v = (char *)(uintptr_t)pv; p.ix = (char *)(uintptr_t)pi; p.x = (const char *)(uintptr_t)px;
        if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__topk_cpu, &p, sizeof p, where);
        else if (p.n >= 4 * GK__TK_PART && k <= 256) {
            /* long rows: the top k of each part of GK__TK_PART elements (many blocks per row),
               then one block per row merges the parts' candidates */
            int n = (int)p.n, kk = (int)k, P = (int)gk__pow2_at_least(k), S = (int)((p.n + GK__TK_PART - 1) / GK__TK_PART);
            unsigned grid[3] = { 1, 1, 1 }, block[3] = { 256, 1, 1 };
            gk__cu_ptr ws = 0;
            st = gk__workspace(ctx, (size_t)p.on.n * (size_t)S * (size_t)k * 8, &ws, where);
            if (st == GK_OK) {
                void *args[7] = { &p.on, &n, &p.xs, &kk, &S, &px, &ws };
                grid[0] = (unsigned)gk__grid_cap(ctx, p.on.n * S, 8);
                st = gk__launch_cfg(ctx, GK__MOD_SAMPLE, gk__k_topk_part[p.dt], grid, block, 0, args, where);
            }
            if (st == GK_OK) {
                void *args[12] = { &p.on, &p.xs, &p.vs, &p.is, &kk, &S, &P, &pv, &pi, &px, &ws };
                grid[0] = (unsigned)gk__grid_cap(ctx, p.on.n, 2);
                block[0] = 512;
                st = gk__launch_cfg(ctx, GK__MOD_SAMPLE, gk__k_topk_merge[p.dt], grid, block, (unsigned)P * 8, args, where);
            }
            if (ws) gk__unuse(ctx, ctx->ws);
        } else {
            int n = (int)p.n, kk = (int)k, P = (int)gk__pow2_at_least(k);
            unsigned grid[3] = { 1, 1, 1 }, block[3] = { 1024, 1, 1 };
            gk__cu_ptr ws = 0;
            grid[0] = (unsigned)gk__grid_cap(ctx, p.on.n, 2);
            if (n <= 2048) block[0] = n <= 256 ? 128 : 256;
            if (P > GK__SMEM_SORT) st = gk__workspace(ctx, (size_t)grid[0] * (size_t)P * 8, &ws, where);
            if (st == GK_OK) {
                void *args[12] = { &p.on, &n, &p.xs, &p.vs, &p.is, &kk, &P, &pv, &pi, &px, &ws };
                st = gk__launch_cfg(ctx, GK__MOD_SAMPLE, gk__k_topk[p.dt], grid, block, P <= GK__SMEM_SORT ? (unsigned)P * 8 : 0, args, where);
            }
            if (ws) gk__unuse(ctx, ctx->ws);
        }
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_topk_new(gk_ctx *ctx, gk_tensor x, int64_t k, gk_tensor *values, gk_tensor *indices) {
    gk__slot *s;
    int64_t shape[GK_MAX_DIMS];
    uint32_t i1 = 0, i2 = 0;
    int nd = 0, d, made = 0;
    gk_tensor v, ix;
    gk_status st;
    if (values) values->id = 0;
    if (indices) indices->id = 0;
    GK__ENTER(ctx, "gk_topk_new");
    st = values && indices ? gk__lookup(ctx, x, &s, "gk_topk_new", "x") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_topk_new: values or indices is NULL");
    if (st == GK_OK && s->ndim < 1) st = gk__err(ctx, GK_ERR_SHAPE, "gk_topk_new: x is 0-d; top-k needs a last dim");
    if (st == GK_OK && (k < 0 || k > s->shape[s->ndim - 1]))
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_topk_new: k = %lld outside 0..%lld (the last dim)", (long long)k, (long long)s->shape[s->ndim - 1]);
    if (st == GK_OK) {
        nd = s->ndim;
        for (d = 0; d < nd; d++) shape[d] = s->shape[d];
        shape[nd - 1] = k;
        st = gk__bind(ctx);
    }
    if (st == GK_OK) st = gk__tensor_new(ctx, s->dtype, nd, shape, &i1, "gk_topk_new");
    if (st == GK_OK) { made = 1; st = gk__tensor_new(ctx, GK_I64, nd, shape, &i2, "gk_topk_new"); }
    if (st == GK_OK) made = 2;
    if (made >= 1) v = gk__handle(ctx, i1);
    if (made == 2) ix = gk__handle(ctx, i2);
    gk__unlock(&ctx->mu);
    if (made == 1) gk_tensor_free(ctx, v);
    if (st != GK_OK) return st;
    st = gk_topk(ctx, v, ix, x, k);
    if (st != GK_OK) {
        char save[GK__ERRBUF];
        gk__err_save(ctx, save);
        gk_tensor_free(ctx, v);
        gk_tensor_free(ctx, ix);
        gk__err_restore(ctx, save);
        return st;
    }
    *values = v;
    *indices = ix;
    return GK_OK;
}

GKDEF void gk_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]) {
    uint32_t c0 = counter[0], c1 = counter[1], c2 = counter[2], c3 = counter[3], k0 = key[0], k1 = key[1];
    int r;
    for (r = 0; r < 10; r++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
        if (r) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
        c0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0;
        c1 = (uint32_t)p1;
        c2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c3 = (uint32_t)p0;
    }
    out[0] = c0; out[1] = c1; out[2] = c2; out[3] = c3;
}
static uint64_t gk__mulhi64(uint64_t a, uint64_t b) {
    uint64_t a0 = a & 0xFFFFFFFFu, a1 = a >> 32, b0 = b & 0xFFFFFFFFu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    uint64_t mid = (p00 >> 32) + (p01 & 0xFFFFFFFFu) + (p10 & 0xFFFFFFFFu);
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* sampling parameters: the layout of gk_sp in src/ops/math/sample.cu */
typedef struct gk__sp {
    double log_min_p, top_p;
    int64_t lrs, lcs, prs, pcs, tst;
    float temperature, rep, presence, freq;
    int top_k, n_prev, V, B;
    uint32_t key0, key1, step0, step1;
    int P, pad;
} gk__sp;
typedef struct gk__sample_p {
    gk__sp sp;
    gk_dtype dt;
    int32_t *tokens;
    const char *logits;
    const int32_t *prev;
} gk__sample_p;
/* log-weight and integer weight of a candidate (gk_sw in src/ops/math/sample.cu) */
static double gk__sw(float x, float m, float temp, uint64_t *w) {
    double s;
    if (x == -INFINITY) { *w = 0; return -INFINITY; }
    s = x == m ? 0.0 : ((double)x - (double)m) / (double)temp;
    *w = (uint64_t)(exp(s) * 1099511627776.0);
    return s;
}
static int gk__sample_cpu(const void *vp) {
    const gk__sample_p *pp = (const gk__sample_p *)vp;
    const gk__sp *sp = &pp->sp;
    int V = sp->V, b, i, j;
    int64_t es = (int64_t)gk__dtype_sizes[pp->dt];
    float *xr = GK__CAST(float *, GPUKIT_MALLOC((size_t)V * 4));
    uint64_t *keys = GK__CAST(uint64_t *, GPUKIT_MALLOC((size_t)V * 8));
    if (!xr || !keys) { GPUKIT_FREE(xr); GPUKIT_FREE(keys); return 1; }
    for (b = 0; b < sp->B; b++) {
        float bv = -INFINITY, m;
        int bi = -1, topk, topp, n;
        uint64_t Z = 0, Z2 = 0, cum, w, r, run;
        double target = 0;
        uint32_t ctr[4], key[2], rnd[4];
        int32_t *tok = pp->tokens + (int64_t)b * sp->tst;
        for (i = 0; i < V; i++) {
            float v = gk__ldf(pp->dt, pp->logits + ((int64_t)b * sp->lrs + (int64_t)i * sp->lcs) * es);
            xr[i] = v != v ? -INFINITY : v;
        }
        if (sp->n_prev > 0 && ((sp->rep > 0.0f && sp->rep != 1.0f) || sp->presence != 0.0f || sp->freq != 0.0f)) {
            const int32_t *pr = pp->prev + (int64_t)b * sp->prs;
            for (j = 0; j < sp->n_prev; j++) {
                int t = pr[(int64_t)j * sp->pcs], c = 0, first = 1, q;
                float x;
                if (t < 0 || t >= V) continue;
                for (q = 0; q < sp->n_prev; q++)
                    if (pr[(int64_t)q * sp->pcs] == t) {
                        if (q < j) { first = 0; break; }
                        c++;
                    }
                if (!first) continue;
                x = xr[t];
                if (sp->rep > 0.0f && sp->rep != 1.0f) x = x > 0.0f ? x / sp->rep : x * sp->rep;
                if (sp->presence != 0.0f || sp->freq != 0.0f) {
                    float pen = (float)c * sp->freq;
                    pen = pen + sp->presence;
                    x = x - pen;
                }
                xr[t] = x != x ? -INFINITY : x;
            }
        }
        for (i = 0; i < V; i++)
            if (xr[i] > bv) { bv = xr[i]; bi = i; }
        if (bi < 0 || !(sp->temperature > 0.0f)) { *tok = bi; continue; }
        m = bv;
        topk = sp->top_k > 0 && sp->top_k < V;
        topp = sp->top_p < 1.0;
        n = topk ? sp->top_k : V;
        if (topk || topp) {
            for (i = 0; i < V; i++) keys[i] = gk__comp_key(xr[i], i);
            qsort(keys, (size_t)V, 8, gk__cmp_desc_u64);
        }
#define GK__CAND(j) ((topk || topp) ? (int)(uint32_t)~(uint32_t)keys[j] : (j))
        if (topp) {
            for (j = 0; j < n; j++) { gk__sw(xr[GK__CAND(j)], m, sp->temperature, &w); Z += w; }
            target = sp->top_p * (double)Z;
        }
        cum = 0;
        for (j = 0; j < n; j++) {
            double s = gk__sw(xr[GK__CAND(j)], m, sp->temperature, &w);
            if ((!topp || (double)cum < target) && s >= sp->log_min_p) Z2 += w;
            cum += w;
        }
        ctr[0] = (uint32_t)b; ctr[1] = sp->step0; ctr[2] = sp->step1; ctr[3] = 0;
        key[0] = sp->key0; key[1] = sp->key1;
        gk_philox4x32_10(ctr, key, rnd);
        r = gk__mulhi64(((uint64_t)rnd[0] << 32) | rnd[1], Z2);
        cum = 0; run = 0;
        *tok = -1;
        for (j = 0; j < n; j++) {
            double s = gk__sw(xr[GK__CAND(j)], m, sp->temperature, &w);
            if ((!topp || (double)cum < target) && s >= sp->log_min_p) {
                run += w;
                if (run > r) { *tok = GK__CAND(j); break; }
            }
            cum += w;
        }
#undef GK__CAND
    }
    GPUKIT_FREE(xr);
    GPUKIT_FREE(keys);
    return 0;
}
static const char *const gk__k_sample[GK_DTYPE_COUNT] = GK__DTNAMES("gk_sample_", "");
static const char *const gk__k_greedy_part[GK_DTYPE_COUNT] = GK__DTNAMES("gk_greedy_part_", "");
static const char *const gk__k_spen[GK_DTYPE_COUNT] = GK__DTNAMES("gk_spen_", "");
static const char *const gk__k_smax[GK_DTYPE_COUNT] = GK__DTNAMES("gk_smax_", "");
static const char *const gk__k_ssum[GK_DTYPE_COUNT] = GK__DTNAMES("gk_ssum_", "");
static const char *const gk__k_sfin[GK_DTYPE_COUNT] = GK__DTNAMES("gk_sfin_", "");
static const char *const gk__k_stkpart[GK_DTYPE_COUNT] = GK__DTNAMES("gk_stkpart_", "");
#define GK__SCHUNK 8192    /* GK_SCHUNK in src/ops/math/sample.cu */
#define GK__SKPART 4096    /* GK_SKPART */
#define GK__SFINKEYS 8192  /* GK_SFINKEYS */
#define GK__SP_KMAX 1024   /* the largest top_k of the many-blocks path */
#define GK__SP_SMAX 512    /* the most parts per row of the temperature path (gk_sfin's block) */
static size_t gk__al256(size_t x) { return (x + 255) & ~(size_t)255; } /* also for the lstm and stft workspaces below */
/* Sampling over many blocks per row (src/ops/math/sample.cu, "sampling over many blocks per row"):
   mode 1, temperature without top-k / top-p (or greedy with penalties): per part the
   largest key, then (temperature > 0) per part the kept weight, then per row the draw;
   mode 2, 0 < top_k <= GK__SP_KMAX: per part its top-k keys, then per row the top k of
   those, sorted, and the draw. Penalties first go to a list of per-row overrides. */
static gk_status gk__sample_parts(gk_ctx *ctx, const gk__sample_p *p, int mode, int pen, gk__cu_ptr pt, gk__cu_ptr pl, gk__cu_ptr ppv,
                                  const char *where) {
    gk__sp spc = p->sp;
    const gk__sp *sp = &spc;
    int64_t sms = ctx->info.sm_count > 0 ? ctx->info.sm_count : 1, want = (2 * sms + sp->B - 1) / sp->B, C, cmin, cmax;
    int k = sp->top_k, Ci, Si, P = 0;
    size_t ob = pen ? gk__al256((size_t)sp->B * (size_t)sp->n_prev * 8) : 0, pb, total;
    unsigned grid[3] = { 1, 1, 1 }, block[3] = { 256, 1, 1 };
    gk__cu_ptr ws = 0, ovr = 0, w1 = 0, w2 = 0;
    gk_status st;
    /* parts of C elements: about two blocks per SM over the batch, C in cmin..cmax */
    cmin = mode == 2 ? (8 * (int64_t)k < 1024 ? 1024 : 8 * (int64_t)k < GK__SKPART ? 8 * (int64_t)k : GK__SKPART) : 1024;
    cmax = mode == 2 ? GK__SKPART : GK__SCHUNK;
    if (mode == 1 && (sp->V + GK__SP_SMAX - 1) / GK__SP_SMAX > cmin) cmin = (sp->V + GK__SP_SMAX - 1) / GK__SP_SMAX; /* <= cmax */
    C = (sp->V + want - 1) / want;
    C = (C + 255) / 256 * 256;
    C = C < cmin ? cmin : C > cmax ? cmax : C;
    Ci = (int)C;
    Si = (int)((sp->V + C - 1) / C);
    pb = gk__al256((size_t)sp->B * (size_t)Si * 8);
    if (mode == 2) {
        P = (int)gk__pow2_at_least(k);
        total = ob + (size_t)sp->B * (size_t)Si * (size_t)k * 8;
    } else total = ob + 2 * pb;
    st = gk__workspace(ctx, total, &ws, where);
    if (st != GK_OK) return st;
    if (pen) ovr = ws;
    w1 = ws + ob;
    w2 = w1 + pb;
    if (pen) {
        void *args[4] = { &spc, &pl, &ppv, &ovr };
        grid[0] = (unsigned)gk__grid_cap(ctx, (int64_t)sp->B * ((sp->n_prev + 255) / 256), 8);
        st = gk__launch_ex(ctx, GK__MOD_SAMPLE, gk__k_spen[p->dt], grid, block, 0, args, GK__LAUNCH_PDL, where);
    }
    grid[0] = (unsigned)gk__grid_cap(ctx, (int64_t)sp->B * Si, 8);
    if (mode == 2) {
        if (st == GK_OK) {
            void *args[7] = { &spc, &pl, &ovr, &Ci, &Si, &k, &w1 };
            st = gk__launch_ex(ctx, GK__MOD_SAMPLE, gk__k_stkpart[p->dt], grid, block, 0, args, GK__LAUNCH_PDL, where);
        }
        if (st == GK_OK) {
            void *args[6] = { &spc, &pt, &Si, &k, &P, &w1 };
            int64_t nc = (int64_t)Si * k;
            grid[0] = (unsigned)gk__grid_cap(ctx, sp->B, 2);
            block[0] = 512;
            st = gk__launch_ex(ctx, GK__MOD_SAMPLE, "gk_stkfin_k", grid, block, (unsigned)((P + (nc <= GK__SFINKEYS ? nc : 0)) * 8), args,
                               GK__LAUNCH_PDL, where);
        }
    } else {
        if (st == GK_OK) {
            void *args[6] = { &spc, &pl, &ovr, &Ci, &Si, &w1 };
            st = gk__launch_ex(ctx, GK__MOD_SAMPLE, gk__k_smax[p->dt], grid, block, 0, args, GK__LAUNCH_PDL, where);
        }
        if (st == GK_OK && sp->temperature > 0.0f) {
            void *args[7] = { &spc, &pl, &ovr, &Ci, &Si, &w1, &w2 };
            st = gk__launch_ex(ctx, GK__MOD_SAMPLE, gk__k_ssum[p->dt], grid, block, 0, args, GK__LAUNCH_PDL, where);
        }
        if (st == GK_OK) {
            void *args[8] = { &spc, &pt, &pl, &ovr, &Ci, &Si, &w1, &w2 };
            grid[0] = (unsigned)gk__grid_cap(ctx, sp->B, 2);
            block[0] = 512;
            st = gk__launch_ex(ctx, GK__MOD_SAMPLE, gk__k_sfin[p->dt], grid, block, 0, args, GK__LAUNCH_PDL, where);
        }
    }
    gk__unuse(ctx, ctx->ws);
    return st;
}

GKDEF gk_status gk_sample(gk_ctx *ctx, gk_tensor tokens, gk_tensor logits, gk_tensor prev, const gk_sample_desc *desc) {
    static const char *const names[3] = { "tokens", "logits", "prev" };
    const char *where = "gk_sample";
    gk_tensor ts[3];
    gk__opnds ops;
    gk__sample_p p;
    gk_sample_desc d;
    gk_status st;
    int hasprev = prev.id != 0;
    ts[0] = tokens; ts[1] = logits; ts[2] = prev;
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__operands(ctx, &ops, ts, names, hasprev ? 3 : 2, where);
    if (st == GK_OK) {
        const gk__slot *t = ops.s[0], *l = ops.s[1];
        if (l->dtype != GK_F32 && l->dtype != GK_F16 && l->dtype != GK_BF16)
            st = gk__err(ctx, GK_ERR_DTYPE, "%s: logits are %s; sampling takes f32, f16 or bf16", where, gk_dtype_name(l->dtype));
        else if (t->dtype != GK_I32) st = gk__err(ctx, GK_ERR_DTYPE, "%s: tokens is %s but must be i32", where, gk_dtype_name(t->dtype));
        else if (hasprev && ops.s[2]->dtype != GK_I32) st = gk__err(ctx, GK_ERR_DTYPE, "%s: prev is %s but must be i32", where, gk_dtype_name(ops.s[2]->dtype));
        else if (l->ndim != 2) st = gk__err(ctx, GK_ERR_SHAPE, "%s: logits must be [batch, vocab], got %d dims", where, l->ndim);
        else if (t->ndim != 1 || t->shape[0] != l->shape[0])
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: tokens must be [%lld] (one per logits row)", where, (long long)l->shape[0]);
        else if (hasprev && (ops.s[2]->ndim != 2 || ops.s[2]->shape[0] != l->shape[0]))
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: prev must be [%lld, n_prev]", where, (long long)l->shape[0]);
        else if (l->shape[0] > 0 && (l->shape[1] < 1 || l->shape[1] >= ((int64_t)1 << 31) || l->shape[0] >= ((int64_t)1 << 31)))
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: the vocabulary size (%lld) must be in 1..2^31-1", where, (long long)l->shape[1]);
        else if (hasprev && ops.s[2]->shape[1] >= ((int64_t)1 << 31)) st = gk__err(ctx, GK_ERR_SHAPE, "%s: too many previous tokens", where);
    }
    if (st == GK_OK) {
        if (d.temperature != d.temperature) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: temperature is NaN", where);
        else if (d.top_k < 0) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: top_k = %d is negative", where, d.top_k);
        else if (!(d.top_p >= 0.0f && d.top_p <= 1.0f)) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: top_p = %g outside (0, 1] (0: off)", where, (double)d.top_p);
        else if (!(d.min_p >= 0.0f && d.min_p <= 1.0f)) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: min_p = %g outside [0, 1]", where, (double)d.min_p);
        else if (!(d.repetition_penalty >= 0.0f) || d.repetition_penalty == INFINITY)
            st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: repetition_penalty = %g must be finite and > 0 (0: off)", where, (double)d.repetition_penalty);
        else if (!(fabs((double)d.presence_penalty) < INFINITY) || !(fabs((double)d.frequency_penalty) < INFINITY))
            st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: presence / frequency penalties must be finite", where);
    }
    if (st == GK_OK) {
        const gk__slot *l = ops.s[1];
        gk__sp *sp = &p.sp;
        sp->log_min_p = d.min_p > 0.0f ? log((double)d.min_p) : -INFINITY;
        sp->top_p = d.top_p > 0.0f && d.top_p < 1.0f ? (double)d.top_p : 1.0;
        sp->lrs = l->strides[0]; sp->lcs = l->strides[1];
        sp->prs = hasprev ? ops.s[2]->strides[0] : 0; sp->pcs = hasprev ? ops.s[2]->strides[1] : 0;
        sp->tst = ops.s[0]->strides[0];
        sp->temperature = d.temperature; sp->rep = d.repetition_penalty; sp->presence = d.presence_penalty; sp->freq = d.frequency_penalty;
        sp->top_k = d.top_k; sp->n_prev = hasprev ? (int)ops.s[2]->shape[1] : 0;
        sp->V = (int)l->shape[1]; sp->B = (int)l->shape[0];
        sp->key0 = (uint32_t)d.seed; sp->key1 = (uint32_t)(d.seed >> 32);
        sp->step0 = (uint32_t)d.step; sp->step1 = (uint32_t)(d.step >> 32);
        if (sp->temperature > 0 && ((sp->top_k > 0 && sp->top_k < sp->V) || sp->top_p < 1.0))
            sp->P = (int)gk__pow2_at_least(sp->top_k > 0 && sp->top_k < sp->V ? sp->top_k : sp->V);
        p.dt = l->dtype;
    }
    if (st == GK_OK && p.sp.B == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__operands_use(ctx, &ops, where);
    if (st == GK_OK) {
        gk__cu_ptr pt = gk__slot_addr(ops.s[0]), pl = gk__slot_addr(ops.s[1]), ppv = hasprev ? gk__slot_addr(ops.s[2]) : 0;
        p.tokens = (int32_t *)(uintptr_t)pt; p.logits = (const char *)(uintptr_t)pl; p.prev = (const int32_t *)(uintptr_t)ppv;
        const gk__sp *sp = &p.sp;
        int pen = sp->n_prev > 0 && ((sp->rep > 0.0f && sp->rep != 1.0f) || sp->presence != 0.0f || sp->freq != 0.0f);
        int topk = sp->top_k > 0 && sp->top_k < sp->V, topp = sp->top_p < 1.0;
        /* 1: temperature over every token (or greedy with penalties), 2: top-k, 0: one block per row */
        int mode = sp->temperature > 0.0f ? (topk ? (sp->top_k <= GK__SP_KMAX) * 2 : !topp) : pen;
        if (mode && sp->V > (int64_t)GK__SP_SMAX * GK__SCHUNK) mode = 0; /* more parts than gk_sfin takes (or merges well) */
        if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__sample_cpu, &p, sizeof p, where);
        else if (mode) st = gk__sample_parts(ctx, &p, mode, pen, pt, pl, ppv, where);
        else if (!(sp->temperature > 0.0f) && !pen && sp->V >= 8192) {
            /* greedy without penalties: each row over many blocks, then a merge of the parts */
            int64_t sms = ctx->info.sm_count > 0 ? ctx->info.sm_count : 1, S = (4 * sms + sp->B - 1) / sp->B;
            int Si, chunk;
            unsigned grid[3] = { 1, 1, 1 }, block[3] = { 256, 1, 1 };
            gk__cu_ptr ws = 0;
            if (S > sp->V / 2048) S = sp->V / 2048;
            chunk = (int)((sp->V + S - 1) / S);
            Si = (int)((sp->V + chunk - 1) / chunk);
            st = gk__workspace(ctx, (size_t)sp->B * (size_t)Si * 8, &ws, where);
            if (st == GK_OK) {
                void *args[5] = { &p.sp, &pl, &Si, &chunk, &ws };
                grid[0] = (unsigned)gk__grid_cap(ctx, (int64_t)sp->B * Si, 8);
                st = gk__launch_cfg(ctx, GK__MOD_SAMPLE, gk__k_greedy_part[p.dt], grid, block, 0, args, where);
            }
            if (st == GK_OK) {
                void *args[4] = { &p.sp, &Si, &ws, &pt };
                st = gk__launch(ctx, GK__MOD_SAMPLE, "gk_greedy_fin_k", sp->B, args, where);
            }
            if (ws) gk__unuse(ctx, ctx->ws);
        } else {
            unsigned grid[3] = { 1, 1, 1 }, block[3] = { 1024, 1, 1 };
            gk__cu_ptr ws = 0, pbuf;
            size_t xbytes;
            grid[0] = (unsigned)gk__grid_cap(ctx, p.sp.B, 2);
            xbytes = ((size_t)grid[0] * (size_t)p.sp.V * 4 + 255) / 256 * 256;
            st = gk__workspace(ctx, xbytes + (p.sp.P > GK__SMEM_SORT ? (size_t)grid[0] * (size_t)p.sp.P * 8 : 0), &ws, where);
            if (st == GK_OK) {
                void *args[6] = { &p.sp, &pt, &pl, &ppv, &ws, &pbuf };
                pbuf = ws + xbytes;
                st = gk__launch_cfg(ctx, GK__MOD_SAMPLE, gk__k_sample[p.dt], grid, block,
                                    (unsigned)(p.sp.P < GK__SMEM_SORT ? p.sp.P : GK__SMEM_SORT) * 8, args, where);
            }
            if (ws) gk__unuse(ctx, ctx->ws);
        }
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}

/* ---- Gaussian noise (gk_randn) ---- */
typedef struct gk__randn_p { float *out; int64_t n; uint64_t off; uint32_t k0, k1; } gk__randn_p;
/* number j of the stream of key (k0, k1): the CUDA kernel gk_randn_f32 computes the same in the same order */
static float gk__randn_one(uint64_t j, uint32_t k0, uint32_t k1) {
    uint32_t c[4], key[2], o[4];
    uint64_t b = j >> 2;
    int q = (int)(j & 3), w = q & 2;
    float u1, u2, r, t;
    c[0] = (uint32_t)b; c[1] = (uint32_t)(b >> 32); c[2] = 0; c[3] = 0;
    key[0] = k0; key[1] = k1;
    gk_philox4x32_10(c, key, o);
    u1 = ((float)(o[w] >> 8) + 0.5f) * 5.9604644775390625e-8f;
    u2 = ((float)(o[w + 1] >> 8) + 0.5f) * 5.9604644775390625e-8f;
    r = sqrtf(-2.0f * logf(u1));
    t = 6.28318548f * u2;
    return (q & 1) ? r * sinf(t) : r * cosf(t);
}
static int gk__randn_cpu(const void *vp) {
    const gk__randn_p *p = (const gk__randn_p *)vp;
    int64_t i;
    for (i = 0; i < p->n; i++) p->out[i] = gk__randn_one(p->off + (uint64_t)i, p->k0, p->k1);
    return 0;
}
GKDEF gk_status gk_randn(gk_ctx *ctx, gk_tensor out, uint64_t seed, uint64_t offset) {
    static const char *const names[1] = { "out" };
    const char *where = "gk_randn";
    gk__opnds ops;
    gk__randn_p p;
    gk_status st;
    GK__ENTER(ctx, where);
    memset(&p, 0, sizeof p);
    st = gk__operands(ctx, &ops, &out, names, 1, where);
    if (st == GK_OK && ops.s[0]->dtype != GK_F32) st = gk__err(ctx, GK_ERR_DTYPE, "%s: out is %s; the noise is f32", where, gk_dtype_name(ops.s[0]->dtype));
    if (st == GK_OK && !gk__is_contig(ops.s[0])) st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: out must be contiguous (use a contiguous tensor, then gk_copy)", where);
    if (st == GK_OK) {
        p.n = gk__numel(ops.s[0]);
        p.off = offset;
        p.k0 = (uint32_t)seed; p.k1 = (uint32_t)(seed >> 32);
    }
    if (st == GK_OK && p.n == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__operands_use(ctx, &ops, where);
    if (st == GK_OK) {
        gk__cu_ptr po = gk__slot_addr(ops.s[0]);
        p.out = (float *)(uintptr_t)po;
        if (ctx->backend == GK_BACKEND_CPU) st = gk__cpu_run(ctx, gk__randn_cpu, &p, sizeof p, where);
        else {
            void *args[5];
            args[0] = &po; args[1] = &p.n; args[2] = &p.off; args[3] = &p.k0; args[4] = &p.k1;
            st = gk__launch(ctx, GK__MOD_SAMPLE, "gk_randn_f32", p.n, args, where);
        }
    }
    gk__operands_done(ctx, &ops, st);
    gk__unlock(&ctx->mu);
    return st;
}

/* end of >>ops_math */

