/* ------------------------------------------------------------------------ */
/* >>ops_matmul: GEMM / GEMV (the >>api_ops_matmul group) */
typedef struct gk__mm {          /* layout of gk_gemm_p in src/ops/matmul/gemm.cu */
    int64_t M, N, K;
    int64_t a_rs, a_cs, a_bs, b_rs, b_cs, b_bs, o_rs, o_bs, r_rs, r_bs;
    uint64_t a, b, bias, res;
    uint64_t o;
    double alpha, beta;
    int act, bias_dt, res_dt, pad;
} gk__mm;
typedef struct gk__mm_cpu { gk__mm m; int64_t batch; gk_dtype dt, odt; int glu; } gk__mm_cpu;
/* The profiler's hint for the product's kernel (>>profile gk__prof_note): 2*M*N*K FLOPs
   (N: B's columns, both halves of a GLU's) and the bytes of A, B, C (read too when beta
   is not 0), bias and residual. Called when ctx->prof is set. */
static void gk__mm_note(gk_ctx *ctx, const gk__mm *p, int64_t batch, gk_dtype dt, gk_dtype odt, int glu) {
    double es = (double)gk__dtype_sizes[dt], os = (double)gk__dtype_sizes[odt], nb = (double)p->N * (glu ? 2 : 1);
    double mno = (double)batch * (double)p->M * (double)p->N;
    double bytes = (double)(p->a_bs ? batch : 1) * (double)p->M * (double)p->K * es + (double)(p->b_bs ? batch : 1) * (double)p->K * nb * es +
                   mno * os * (p->beta != 0 ? 2 : 1);
    if (p->bias) bytes += nb * (double)gk__dtype_sizes[p->bias_dt];
    if (p->res) bytes += mno * (double)gk__dtype_sizes[p->res_dt];
    gk__prof_note(ctx, bytes, 2.0 * (double)batch * (double)p->M * nb * (double)p->K);
}

static double gk__act_d(double v, int act) {
    switch (act) {
    case GK_ACT_GELU: return 0.5 * v * (1.0 + erf(v * 0.70710678118654752440));
    case GK_ACT_GELU_TANH: return 0.5 * v * (1.0 + tanh(0.79788456080286535588 * (v + 0.044715 * v * v * v)));
    case GK_ACT_SILU: return v / (1.0 + exp(-v));
    case GK_ACT_RELU: return v > 0 ? v : 0;
    default: return v;
    }
}
static double gk__ld_d(gk_dtype dt, const char *base, int64_t i) { gk__scalar s = gk__load(dt, base + i * (int64_t)gk__dtype_sizes[dt]); return s.f; }

/* The CPU reference: f64 accumulation in k order, f64 epilogue, one rounding
   at the end. B is converted to f64 once, nbw columns at a time (bt: [cols]
   [K], a column contiguous; 64, fewer when K is so long that bt would pass
   4 MB), and each A row once per such block, so a product costs a
   multiply-add, not a conversion (per-element loads would take most of the time). */
static int gk__matmul_cpu(const void *vp) {
    const gk__mm_cpu *c = (const gk__mm_cpu *)vp;
    const gk__mm *p = &c->m;
    const char *A = (const char *)(uintptr_t)p->a, *B = (const char *)(uintptr_t)p->b;
    char *O = (char *)(uintptr_t)p->o;
    int64_t bz, m, n0, j, k, K = p->K, es = (int64_t)gk__dtype_sizes[c->odt], nh = c->glu ? 2 : 1;
    size_t kk = (size_t)(K > 0 ? K : 1), nbw = ((size_t)1 << 19) / (kk * (size_t)nh);
    double *row, *bt;
    nbw = nbw < 1 ? 1 : nbw > 64 ? 64 : nbw;
    row = GK__CAST(double *, GPUKIT_MALLOC(sizeof(double) * kk));
    bt = GK__CAST(double *, GPUKIT_MALLOC(sizeof(double) * kk * nbw * (size_t)nh)); /* [h][col][K] */
    if (!row || !bt) { GPUKIT_FREE(row); GPUKIT_FREE(bt); return 1; }
    for (bz = 0; bz < c->batch; bz++)
        for (n0 = 0; n0 < p->N; n0 += (int64_t)nbw) {
            int64_t nb = p->N - n0 < (int64_t)nbw ? p->N - n0 : (int64_t)nbw, h;
            for (h = 0; h < nh; h++) /* glu: the gate columns n, then the up columns N + n */
                for (j = 0; j < nb; j++) {
                    double *col = bt + ((size_t)h * nbw + (size_t)j) * kk;
                    int64_t off = bz * p->b_bs + (n0 + j + h * p->N) * p->b_cs;
                    for (k = 0; k < K; k++) col[k] = gk__ld_d(c->dt, B, off + k * p->b_rs);
                }
            for (m = 0; m < p->M; m++) {
                for (k = 0; k < K; k++) row[k] = gk__ld_d(c->dt, A, bz * p->a_bs + m * p->a_rs + k * p->a_cs);
                for (j = 0; j < nb; j++) {
                    int64_t n = n0 + j;
                    double acc[2] = { 0, 0 }, v;
                    gk__scalar sc;
                    for (h = 0; h < nh; h++) {
                        const double *col = bt + ((size_t)h * nbw + (size_t)j) * kk;
                        double a = 0;
                        for (k = 0; k < K; k++) a += row[k] * col[k];
                        acc[h] = a;
                    }
                    v = p->alpha * acc[0];
                    if (p->beta != 0) v += p->beta * gk__ld_d(c->odt, O, bz * p->o_bs + m * p->o_rs + n);
                    if (p->bias) v += gk__ld_d((gk_dtype)p->bias_dt, (const char *)(uintptr_t)p->bias, n);
                    v = gk__act_d(v, p->act);
                    if (c->glu) {
                        double u = p->alpha * acc[1];
                        if (p->bias) u += gk__ld_d((gk_dtype)p->bias_dt, (const char *)(uintptr_t)p->bias, p->N + n);
                        v *= u;
                    }
                    if (p->res) v += gk__ld_d((gk_dtype)p->res_dt, (const char *)(uintptr_t)p->res, bz * p->r_bs + m * p->r_rs + n);
                    sc.is_int = 0; sc.i = 0; sc.f = v;
                    gk__store(c->odt, O + (bz * p->o_bs + m * p->o_rs + n) * es, sc);
                }
            }
        }
    GPUKIT_FREE(row);
    GPUKIT_FREE(bt);
    return 0;
}

/* Strides of a matrix operand [.., R, C]: row and column strides and the
   batch stride (0 for a 2-d operand shared by every batch). */
static gk_status gk__mat_strides(gk_ctx *ctx, const gk__slot *s, int64_t *rs, int64_t *cs, int64_t *bs, const char *what, const char *where) {
    int d = s->ndim;
    *rs = s->strides[d - 2];
    *cs = s->strides[d - 1];
    *bs = d == 3 ? (s->shape[0] == 1 ? 0 : s->strides[0]) : 0;
    if (s->shape[d - 1] == 1) *cs = 1; /* a single column: any stride works as contiguous */
    if (s->shape[d - 2] == 1) *rs = *cs == 1 ? s->shape[d - 1] : 1;
    if (*cs != 1 && *rs != 1)
        return gk__err(ctx, GK_ERR_SHAPE, "%s: %s must be row-major or column-major in its last two dims (strides %lld, %lld)", where, what,
                       (long long)s->strides[d - 2], (long long)s->strides[d - 1]);
    return GK_OK;
}

/* cuBLASLt: one handle per context, descriptors and the heuristic's algorithm
   cached per problem shape (cleared when the small cache fills). */
typedef struct gk__lt_entry {
    int64_t key[16];
    gk__lt_desc desc;
    gk__lt_layout la, lb, lc;
    gk__lt_algo algo;
    size_t ws;
    int used;
} gk__lt_entry;
#define GK__LT_CACHE 64
typedef struct gk__lt_state { gk__cublaslt_handle h; gk__lt_entry e[GK__LT_CACHE]; int n; } gk__lt_state;

static void gk__lt_entry_free(gk_ctx *ctx, gk__lt_entry *e) {
    if (e->desc) ctx->lt.DescDestroy(e->desc);
    if (e->la) ctx->lt.LayoutDestroy(e->la);
    if (e->lb) ctx->lt.LayoutDestroy(e->lb);
    if (e->lc) ctx->lt.LayoutDestroy(e->lc);
    memset(e, 0, sizeof *e);
}
static void gk__lt_free(gk_ctx *ctx) {
    int i;
    gk__lt_state *L = (gk__lt_state *)ctx->lt_state;
    if (!L) return;
    for (i = 0; i < L->n; i++) gk__lt_entry_free(ctx, &L->e[i]);
    if (L->h) ctx->lt.Destroy(L->h);
    GPUKIT_FREE(L);
    ctx->lt_state = NULL;
}
static int gk__lt_type(gk_dtype dt) {
    return dt == GK_F32 ? GK__CUDA_R_32F : dt == GK_F16 ? GK__CUDA_R_16F : dt == GK_BF16 ? GK__CUDA_R_16BF : GK__CUDA_R_64F;
}
#define GK__LT(call, what)                                                                                    \
    do {                                                                                                      \
        gk__cublas_status s_ = (call);                                                                        \
        if (s_ != 0) return gk__err(ctx, GK_ERR_CUDA, "%s: cuBLASLt %s failed (cublasStatus %d)", where, what, s_); \
    } while (0)

/* Row-major out[M, N] = op(A) op(B) is column-major out^T[N, M] = op(B)^T op(A)^T:
   cuBLASLt's A is our B and its B our A, with m = N, n = M. */
static gk_status gk__matmul_lt(gk_ctx *ctx, const gk__mm *p, int64_t batch, gk_dtype dt, gk_dtype odt, int tf32, int lt_epi,
                               const char *where) {
    gk__lt_state *L = (gk__lt_state *)ctx->lt_state;
    gk__lt_entry *e = NULL;
    int64_t key[16];
    int i, compute = dt == GK_F64 ? GK__CUBLAS_COMPUTE_64F : (dt == GK_F32 && tf32) ? GK__CUBLAS_COMPUTE_32F_FAST_TF32 : GK__CUBLAS_COMPUTE_32F;
    int scale = dt == GK_F64 ? GK__CUDA_R_64F : GK__CUDA_R_32F;
    int ta = p->b_cs == 1 ? GK__CUBLAS_OP_N : GK__CUBLAS_OP_T, tb = p->a_cs == 1 ? GK__CUBLAS_OP_N : GK__CUBLAS_OP_T;
    int64_t lda = ta == GK__CUBLAS_OP_N ? p->b_rs : p->b_cs, ldb = tb == GK__CUBLAS_OP_N ? p->a_rs : p->a_cs;
    gk__cu_ptr ws = 0;
    size_t wsn = (size_t)32 << 20;
    float af = (float)p->alpha, bf = (float)p->beta;
    const void *alpha = dt == GK_F64 ? (const void *)&p->alpha : (const void *)&af;
    const void *beta = dt == GK_F64 ? (const void *)&p->beta : (const void *)&bf;
    if (!L) {
        L = GK__CALLOC(gk__lt_state, 1);
        if (!L) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", where);
        ctx->lt_state = L;
        GK__LT(ctx->lt.Create(&L->h), "cublasLtCreate");
    }
    memset(key, 0, sizeof key);
    key[0] = dt; key[1] = odt; key[2] = compute; key[3] = ta; key[4] = tb; key[5] = p->M; key[6] = p->N; key[7] = p->K;
    key[8] = lda; key[9] = ldb; key[10] = p->o_rs; key[11] = batch; key[12] = p->a_bs; key[13] = p->b_bs; key[14] = p->o_bs;
    key[15] = lt_epi * 16 + (p->bias ? p->bias_dt + 1 : 0);
    for (i = 0; i < L->n; i++)
        if (memcmp(L->e[i].key, key, sizeof key) == 0) { e = &L->e[i]; break; }
    if (!e) {
        gk__lt_pref pref = NULL;
        gk__lt_heur heur;
        int got = 0;
        int64_t sa = p->b_bs, sb = p->a_bs, sc = p->o_bs;
        int b32 = (int)batch;
        gk_status st = GK_OK;
        if (L->n == GK__LT_CACHE) { for (i = 0; i < L->n; i++) gk__lt_entry_free(ctx, &L->e[i]); L->n = 0; }
        e = &L->e[L->n];
        memset(e, 0, sizeof *e);
        memcpy(e->key, key, sizeof key);
        GK__LT(ctx->lt.DescCreate(&e->desc, compute, scale), "MatmulDescCreate");
        L->n++; /* from here on freed with the cache */
        GK__LT(ctx->lt.DescSet(e->desc, GK__LT_DESC_TRANSA, &ta, sizeof ta), "TRANSA");
        GK__LT(ctx->lt.DescSet(e->desc, GK__LT_DESC_TRANSB, &tb, sizeof tb), "TRANSB");
        if (lt_epi != GK__LT_EPILOGUE_DEFAULT) {
            GK__LT(ctx->lt.DescSet(e->desc, GK__LT_DESC_EPILOGUE, &lt_epi, sizeof lt_epi), "EPILOGUE");
            if (p->bias) {
                int bt = gk__lt_type((gk_dtype)p->bias_dt);
                GK__LT(ctx->lt.DescSet(e->desc, GK__LT_DESC_BIAS_DATA_TYPE, &bt, sizeof bt), "BIAS_DATA_TYPE");
            }
        }
        GK__LT(ctx->lt.LayoutCreate(&e->la, gk__lt_type(dt), (uint64_t)(ta == GK__CUBLAS_OP_N ? p->N : p->K),
                                    (uint64_t)(ta == GK__CUBLAS_OP_N ? p->K : p->N), lda), "layout A");
        GK__LT(ctx->lt.LayoutCreate(&e->lb, gk__lt_type(dt), (uint64_t)(tb == GK__CUBLAS_OP_N ? p->K : p->M),
                                    (uint64_t)(tb == GK__CUBLAS_OP_N ? p->M : p->K), ldb), "layout B");
        GK__LT(ctx->lt.LayoutCreate(&e->lc, gk__lt_type(odt), (uint64_t)p->N, (uint64_t)p->M, p->o_rs), "layout C");
        if (batch > 1) {
            GK__LT(ctx->lt.LayoutSet(e->la, GK__LT_LAYOUT_BATCH_COUNT, &b32, sizeof b32), "batch A");
            GK__LT(ctx->lt.LayoutSet(e->lb, GK__LT_LAYOUT_BATCH_COUNT, &b32, sizeof b32), "batch B");
            GK__LT(ctx->lt.LayoutSet(e->lc, GK__LT_LAYOUT_BATCH_COUNT, &b32, sizeof b32), "batch C");
            GK__LT(ctx->lt.LayoutSet(e->la, GK__LT_LAYOUT_STRIDED_BATCH_OFFSET, &sa, sizeof sa), "batch stride A");
            GK__LT(ctx->lt.LayoutSet(e->lb, GK__LT_LAYOUT_STRIDED_BATCH_OFFSET, &sb, sizeof sb), "batch stride B");
            GK__LT(ctx->lt.LayoutSet(e->lc, GK__LT_LAYOUT_STRIDED_BATCH_OFFSET, &sc, sizeof sc), "batch stride C");
        }
        GK__LT(ctx->lt.PrefCreate(&pref), "PreferenceCreate");
        if (ctx->lt.PrefSet(pref, GK__LT_PREF_MAX_WORKSPACE_BYTES, &wsn, sizeof wsn) != 0 ||
            ctx->lt.AlgoGetHeuristic(L->h, e->desc, e->la, e->lb, e->lc, e->lc, pref, 1, &heur, &got) != 0 || got < 1)
            st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: cuBLASLt has no algorithm for this problem (%s, M=%lld N=%lld K=%lld)", where,
                         gk_dtype_name(dt), (long long)p->M, (long long)p->N, (long long)p->K);
        ctx->lt.PrefDestroy(pref);
        if (st != GK_OK) { L->n--; gk__lt_entry_free(ctx, e); return st; }
        e->algo = heur.algo;
        e->ws = heur.workspace_size;
    }
    if (p->bias && lt_epi != GK__LT_EPILOGUE_DEFAULT) {
        const void *bp = (const void *)(uintptr_t)p->bias;
        GK__LT(ctx->lt.DescSet(e->desc, GK__LT_DESC_BIAS_POINTER, &bp, sizeof bp), "BIAS_POINTER");
    }
    if (e->ws) GK__TRY(gk__workspace(ctx, e->ws, &ws, where));
    {
        int prof = gk__dispatch_begin(ctx, "cublasLtMatmul");
        gk__cublas_status s = ctx->lt.Matmul(L->h, e->desc, alpha, (const void *)(uintptr_t)p->b, e->la, (const void *)(uintptr_t)p->a,
                                             e->lb, beta, (const void *)(uintptr_t)p->o, e->lc, (void *)(uintptr_t)p->o, e->lc, &e->algo,
                                             (void *)(uintptr_t)ws, e->ws, ctx->cur_stream->cu);
        gk__dispatch_end(ctx, prof, s == 0);
        if (e->ws) gk__unuse(ctx, ctx->ws);
        if (s != 0) return gk__err(ctx, GK_ERR_CUDA, "%s: cublasLtMatmul failed (cublasStatus %d)", where, s);
    }
    return GK_OK;
}

static const char *const gk__k_gemm[GK_DTYPE_COUNT][GK_DTYPE_COUNT] = {
    /* in f32 */ { "gk_gemm_f32_f32", NULL, "gk_gemm_f32_f16", "gk_gemm_f32_bf16" },
    /* in f64 */ { NULL, "gk_gemm_f64_f64" },
    /* in f16 */ { "gk_gemm_f16_f32", NULL, "gk_gemm_f16_f16", "gk_gemm_f16_bf16" },
    /* in bf16 */ { "gk_gemm_bf16_f32", NULL, "gk_gemm_bf16_f16", "gk_gemm_bf16_bf16" } };
/* gk__matmul's answer to gk_linear_glu when the one-pass kernel cannot run */
#define GK__NEED_SCRATCH ((gk_status)(GK_STATUS_COUNT + 1))
/* GEMV kernels: [dtype][glu][MR = 1, 2, 4, 8][configuration] */
#define GK__GEMV_CFGN(D, G, M) { "gk_gemv" G "_" D "_m" M "_c0", "gk_gemv" G "_" D "_m" M "_c1", "gk_gemv" G "_" D "_m" M "_c2", \
                                 "gk_gemv" G "_" D "_m" M "_c3", "gk_gemv" G "_" D "_m" M "_c4", "gk_gemv" G "_" D "_m" M "_c5" }
#define GK__GEMV_MRN(D, G) { GK__GEMV_CFGN(D, G, "1"), GK__GEMV_CFGN(D, G, "2"), GK__GEMV_CFGN(D, G, "4"), GK__GEMV_CFGN(D, G, "8") }
#define GK__GEMV_NCFG 6
static const char *const gk__k_gemv[4][2][4][GK__GEMV_NCFG] = {
    { GK__GEMV_MRN("f32", ""), GK__GEMV_MRN("f32", "_glu") }, { { { NULL } } },
    { GK__GEMV_MRN("f16", ""), GK__GEMV_MRN("f16", "_glu") }, { GK__GEMV_MRN("bf16", ""), GK__GEMV_MRN("bf16", "_glu") } };
/* tensor-core GEMV (16-bit weights; src/ops/matmul/gemm.cu gk_gemv_tc): [dtype][glu][configuration 6, 7] */
#define GK__GEMVTC_N(D, G) { "gk_gemvtc" G "_" D "_c0", "gk_gemvtc" G "_" D "_c1" }
#define GK__GEMV_NALL 8
static const char *const gk__k_gemvtc[4][2][2] = {
    { { NULL } }, { { NULL } }, { GK__GEMVTC_N("f16", ""), GK__GEMVTC_N("f16", "_glu") }, { GK__GEMVTC_N("bf16", ""), GK__GEMVTC_N("bf16", "_glu") } };
static const int gk__gemvtc_warps[2] = { 4, 8 };
/* threads, vectors in flight per row, weight rows, per configuration (src/ops/matmul/gemm.cu GK_GEMV_CFGS) */
static const int gk__gemv_cfgs[GK__GEMV_NCFG][3] = { { 32, 4, 4 }, { 64, 4, 4 }, { 128, 4, 2 }, { 256, 4, 2 }, { 128, 2, 4 }, { 256, 2, 2 } };
/* The configuration for K (in 16-byte vectors): the smallest block that covers
   a row in one pass (NT * U >= nv), the fastest of bench_gemv's sweep
   ("gemv_cfg" rows; docs/perf-log.md has the figures). t->gemv_force_cfg >= 0
   forces a configuration (bench_gemv times each), t->gemv_smalln 0 turns the
   few-rows rule off (bench_llm --gemv-smalln 0). */
static int gk__gemv_cfg(const gk__tuning *t, int64_t nv, int64_t M, gk_dtype dt, int64_t blocks4, int sms, int glu) {
    int tc = dt == GK_F16 || dt == GK_BF16;
    if (t->gemv_force_cfg >= 0 && t->gemv_force_cfg < (tc ? GK__GEMV_NALL : GK__GEMV_NCFG)) return t->gemv_force_cfg;
    /* few output rows (blocks4: the blocks at 4 weight rows a block; a decode step's 896- or
       1152-row projections): the 4-row configurations leave most SMs with one or two
       warps, so take 2 rows a block and 4 or 8 warps (twice the blocks, more loads in flight);
       above 256 vectors one pass of 256 threads with 4 vectors in flight, ahead of 2 in flight
       (Qwen2.5-0.5B's down projection, 896 x 4864) */
    if (t->gemv_smalln && M == 1 && blocks4 * (nv <= 128 ? 1 : nv <= 256 ? 2 : 4) < 8 * (int64_t)sms) return nv <= 256 ? 2 : nv <= 1024 ? 3 : 5;
    /* several rows: the tensor cores take all of them in one pass (4 warps a block up to 256
       vectors, 8 above), far ahead of the SIMT kernels */
    if (tc && M > 1) return nv <= 256 ? 6 : 7;
    /* one row of at most 128 vectors: one warp a block of 4 rows; with fewer blocks (under 32 a
       SM at 4 rows a block) a GLU takes the tensor-core GEMV with 8 warps (Qwen2.5-0.5B's gate /
       up, 2 x 4864 x 896), other products 4 rows over 128 threads */
    if (nv <= 128) return blocks4 < 32 * (int64_t)sms ? (glu && tc ? 7 : 4) : 0;
    if (nv <= 256) return 1;
    return 4;
}
static const char *const gk__k_epi[4] = { "gk_epilogue_f32", NULL, "gk_epilogue_f16", "gk_epilogue_bf16" };

/* gpukit's tensor-core GEMM (src/ops/matmul/gk_gemm_tc.cuh, sm_80+; modules gemm_tc.cu
   for bf16, gemm_tc_f16.cu, gemm_tc_tf32.cu): names by input
   [f32 (TF32) / f16 / bf16][tile][A layout k/m][B layout k/n]. Tiles:
   0 = 128x256 (16-bit) / 128x128 (tf32), 1 = 128x128 (16-bit). */
#define GK__TC_NAMES(D, T) { { "gk_tc_" D "_" T "_kk", "gk_tc_" D "_" T "_kn" }, { "gk_tc_" D "_" T "_mk", "gk_tc_" D "_" T "_mn" } }
static const char *const gk__k_tc[3][2][2][2] = {
    { GK__TC_NAMES("tf32", "128x128"), GK__TC_NAMES("tf32", "128x128") },
    { GK__TC_NAMES("f16", "128x256"), GK__TC_NAMES("f16", "128x128") },
    { GK__TC_NAMES("bf16", "128x256"), GK__TC_NAMES("bf16", "128x128") } };
#undef GK__TC_NAMES
/* tile sizes and shared memory (stages * (BM + BN) * BK * element size) of gk__k_tc */
static const int gk__tc_tile[3][2][3] = { { { 128, 128, 3 * 256 * 32 * 4 }, { 128, 128, 3 * 256 * 32 * 4 } },
                                          { { 128, 256, 4 * 384 * 32 * 2 }, { 128, 128, 4 * 256 * 32 * 2 } },
                                          { { 128, 256, 4 * 384 * 32 * 2 }, { 128, 128, 4 * 256 * 32 * 2 } } };

/* Whether the tensor-core kernels take this problem: sm_80+, f16 / bf16 (f32
   only with allow_tf32), A and B 16-byte aligned with leading and batch
   strides that keep every row 16-byte aligned. Anything else (odd leading
   dims, offset views) runs on the SIMT kernel: never a misaligned access. */
static int gk__tc_ok(const gk_ctx *ctx, const gk__mm *p, gk_dtype dt, int tf32) {
    int v = dt == GK_F32 ? 4 : 8;
    int64_t lda = p->a_cs == 1 ? p->a_rs : p->a_cs, ldb = p->b_rs == 1 ? p->b_cs : p->b_rs;
    if (ctx->info.cc_major < 8 || !(dt == GK_F16 || dt == GK_BF16 || (dt == GK_F32 && tf32))) return 0;
    if ((p->a_cs != 1 && p->a_rs != 1) || (p->b_cs != 1 && p->b_rs != 1)) return 0;
    if (((p->a | p->b) & 15) != 0 || lda % v != 0 || ldb % v != 0 || p->a_bs % v != 0 || p->b_bs % v != 0) return 0;
    return 1;
}
/* Launches it: the 128x256 tile unless that gives fewer blocks than SMs. */
static gk_status gk__tc_launch(gk_ctx *ctx, const gk__mm *p, int64_t batch, gk_dtype dt, gk_dtype odt, const char *W) {
    int di = dt == GK_F32 ? 0 : dt == GK_F16 ? 1 : 2, ti = 0;
    int ak = p->a_cs == 1 ? 0 : 1, bk = p->b_rs == 1 ? 0 : 1;
    int64_t tiles;
    unsigned g[3], bl[3];
    void *args[1];
    gk__mm q = *p;
    tiles = (p->M + gk__tc_tile[di][0][0] - 1) / gk__tc_tile[di][0][0] * ((p->N + gk__tc_tile[di][0][1] - 1) / gk__tc_tile[di][0][1]) * batch;
    if (di != 0 && tiles < ctx->info.sm_count) ti = 1;
    tiles = (p->M + gk__tc_tile[di][ti][0] - 1) / gk__tc_tile[di][ti][0] * ((p->N + gk__tc_tile[di][ti][1] - 1) / gk__tc_tile[di][ti][1]);
    if (tiles > 0x7FFFFFFF) return gk__err(ctx, GK_ERR_LIMIT, "%s: %lld tiles too many for one launch", W, (long long)tiles);
    q.pad = (int)odt; /* gemm_tc.cu reads pad as the output dtype */
    args[0] = &q;
    g[0] = (unsigned)tiles; g[1] = 1; g[2] = (unsigned)batch;
    bl[0] = 256; bl[1] = 1; bl[2] = 1;
    return gk__launch_cfg(ctx, di == 0 ? GK__MOD_GEMM_TC_TF32 : di == 1 ? GK__MOD_GEMM_TC_F16 : GK__MOD_GEMM_TC, gk__k_tc[di][ti][ak][bk], g, bl,
                          (unsigned)gk__tc_tile[di][ti][2], args, W);
}

/* gpukit's Hopper GEMM (src/ops/matmul/gemm_wg.cu, module built for sm_90a): wgmma
   fed by TMA, names by [f16 / bf16][tile 128x256 / 128x128][A k/m][B k/n],
   and per tile its BN and shared memory (ST * (128 + BN) * 64 * 2 + 1024 +
   256: 4 stages at BN 256, 6 at BN 128). */
#define GK__WG_NAMES(D, T) { { "gk_wg_" D "_" T "_kk", "gk_wg_" D "_" T "_kn" }, { "gk_wg_" D "_" T "_mk", "gk_wg_" D "_" T "_mn" } }
static const char *const gk__k_wg[2][2][2][2] = { { GK__WG_NAMES("f16", "128x256"), GK__WG_NAMES("f16", "128x128") },
                                                  { GK__WG_NAMES("bf16", "128x256"), GK__WG_NAMES("bf16", "128x128") } };
#undef GK__WG_NAMES
/* tf32 (f32 with allow_tf32): K-major operands only, [tile] */
static const char *const gk__k_wg_f32[2] = { "gk_wg_f32_128x256_kk", "gk_wg_f32_128x128_kk" };
/* gk_wg_tr32's parameters (src/ops/matmul/gemm_wg.cu gk_wg_tr_p):
   out[b][c * ldo + r] = in[b][r * ld + c] */
typedef struct gk__wg_tr { uint64_t in, out; int64_t R, C, ld, bs, ldo, obs; } gk__wg_tr;
static const int gk__wg_tile[2][2] = { { 256, 4 * 384 * 64 * 2 + 1280 }, { 128, 6 * 256 * 64 * 2 + 1280 } };
/* ctx->tune.wg_mode -1: the wgmma kernel wherever gk__wg_ok allows it (unless
   the environment has GPUKIT_GEMM_WGMMA=0); 0: never (the mma.sync kernel
   instead). Set by bench/bench_gemm.c and tests/test_matmul.c (they include
   the implementation) to measure and test both; tune.wg_launches counts
   launches. */
/* gk__wg_launch's answer when it did not launch (no tensor map, module
   unavailable): the caller runs the mma.sync kernel; no error recorded */
#define GK__WG_DECLINED ((gk_status)(GK_STATUS_COUNT + 2))

/* Whether the wgmma kernel takes this problem: what gemm_tc needs (16-byte
   aligned A and B, leading and batch strides multiples of 16 bytes: also
   TMA's rules) for f16 / bf16, or f32 with allow_tf32 (tf32), on a
   compute capability 9.0 device, with
   cuTensorMapEncodeTiled in the driver, NVRTC able to target sm_90 (or a
   cached build) and the module not already failed; sizes within TMA's
   32-bit coordinates and 2^40-byte strides. */
static int gk__wg_ok(gk_ctx *ctx, const gk__mm *p, int64_t batch, gk_dtype dt, int tf32) {
    int i, nv = ctx->n_nvrtc_archs == 0;
    int64_t lim = (int64_t)1 << 30, la = p->a_cs == 1 ? p->a_rs : p->a_cs, lb = p->b_rs == 1 ? p->b_cs : p->b_rs;
    if (ctx->tune.wg_mode == 0) return 0; /* also GPUKIT_GEMM_WGMMA=0 (gk_ctx_create) */
    if (ctx->info.cc_major != 9 || ctx->info.cc_minor != 0 || (dt != GK_F16 && dt != GK_BF16 && !(dt == GK_F32 && tf32)) ||
        !ctx->cu.TensorMapEncodeTiled)
        return 0;
#ifdef GK__MOD_GEMM_WG
    if (ctx->lib[GK__MOD_GEMM_WG].tried && ctx->lib[GK__MOD_GEMM_WG].status != GK_OK) return 0;
#else
    return 0;
#endif
    for (i = 0; i < ctx->n_nvrtc_archs; i++) if (ctx->nvrtc_archs[i] == 90) nv = 1;
    if (!nv || !gk__tc_ok(ctx, p, dt, tf32)) return 0;
    if (p->M >= lim || p->N >= lim || p->K >= lim || batch > 65535 || la >= lim || lb >= lim || p->a_bs >= ((int64_t)1 << 38) ||
        p->b_bs >= ((int64_t)1 << 38) || la * (p->a_cs == 1 ? p->M : p->K) >= ((int64_t)1 << 38) ||
        lb * (p->b_rs == 1 ? p->N : p->K) >= ((int64_t)1 << 38))
        return 0;
    return 1;
}
/* Builds the two tensor maps and launches a persistent grid (at most one
   block per SM): the 128x256 tile unless that gives fewer tiles than SMs
   (then 128x128). Maps are 3-d {inner, outer,
   batch} with the box src/ops/matmul/gemm_wg.cu describes; a 2-d operand shared by
   every batch has a batch extent of 1. tf32 (f32): wgmma reads tf32 operands
   K-major only, so an M-major A or N-major B is first transposed (gk_wg_tr32)
   into K-major scratch from gk__workspace (rows padded to 16 bytes); the
   kernel is gk_wg_f32_*_kk with k tiles of 32 elements (boxes {32, ..}). */
static gk_status gk__wg_launch(gk_ctx *ctx, const gk__mm *p, int64_t batch, gk_dtype dt, gk_dtype odt, const char *W) {
    unsigned char buf[2 * sizeof(gk__cu_tensormap) + 64];
    gk__cu_tensormap *tm = (gk__cu_tensormap *)(void *)(buf + ((64 - ((uintptr_t)buf & 63)) & 63));
    int di = dt == GK_BF16, ak = p->a_cs == 1 ? 0 : 1, bk = p->b_rs == 1 ? 0 : 1, ti = 0, BN, tdt, f32 = dt == GK_F32, ntr = 0, i, pinned = 0;
    int64_t tiles, esz = f32 ? 4 : 2, kbox = f32 ? 32 : 64;
    uint64_t dims[3], strides[2];
    unsigned box[3], es[3] = { 1, 1, 1 }, g[3], bl[3];
    void *args[3];
    gk__mm q = *p;
    gk__wg_tr tr[2];
    gk_status st;
    tdt = f32 ? GK__CU_TENSOR_MAP_DATA_TYPE_FLOAT32 : dt == GK_BF16 ? GK__CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : GK__CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    if (f32 && (ak || bk)) {
        /* K-major copies of the operands that are not: A as [batch][M][ldk], B as [batch][N][ldk] */
        int64_t ldk = (p->K + 3) / 4 * 4, na = ak ? (p->a_bs ? batch : 1) * p->M * ldk : 0, nb = bk ? (p->b_bs ? batch : 1) * p->N * ldk : 0;
        int64_t offb = (na * 4 + 255) / 256 * 256;
        gk__cu_ptr ws;
        if (gk__workspace(ctx, (size_t)(offb + nb * 4), &ws, W) != GK_OK) { gk_error_clear(ctx); return GK__WG_DECLINED; } /* no room: gemm_tc needs none */
        pinned = 1; /* released (gk__unuse) on every return below */
        if (ak) { /* op(A)[m, k] at m + k * a_cs: rows k, columns m */
            tr[ntr].in = p->a; tr[ntr].out = ws; tr[ntr].R = p->K; tr[ntr].C = p->M; tr[ntr].ld = p->a_cs; tr[ntr].bs = p->a_bs;
            tr[ntr].ldo = ldk; tr[ntr].obs = p->a_bs ? p->M * ldk : 0; ntr++;
            q.a = ws; q.a_rs = ldk; q.a_cs = 1; q.a_bs = p->a_bs ? p->M * ldk : 0;
        }
        if (bk) { /* op(B)[k, n] at k * b_rs + n: rows k, columns n; K-major is b_rs = 1, b_cs = ldk */
            tr[ntr].in = p->b; tr[ntr].out = ws + (uint64_t)offb; tr[ntr].R = p->K; tr[ntr].C = p->N; tr[ntr].ld = p->b_rs; tr[ntr].bs = p->b_bs;
            tr[ntr].ldo = ldk; tr[ntr].obs = p->b_bs ? p->N * ldk : 0; ntr++;
            q.b = ws + (uint64_t)offb; q.b_rs = 1; q.b_cs = ldk; q.b_bs = p->b_bs ? p->N * ldk : 0;
        }
        ak = bk = 0;
    }
    if (f32) p = &q; /* the maps below read the (possibly transposed) operands */
    if ((p->M + 127) / 128 * ((p->N + 255) / 256) * batch < ctx->info.sm_count) ti = 1;
    BN = gk__wg_tile[ti][0];
    tiles = (p->M + 127) / 128 * ((p->N + BN - 1) / BN);
    /* A: k-major {K, M, b} box {64, 128}; m-major {M, K, b} box {64, 64} */
    dims[0] = (uint64_t)(ak ? p->M : p->K); dims[1] = (uint64_t)(ak ? p->K : p->M); dims[2] = (uint64_t)(p->a_bs ? batch : 1);
    strides[0] = (uint64_t)((ak ? p->a_cs : p->a_rs) * esz);
    strides[1] = p->a_bs ? (uint64_t)(p->a_bs * esz) : strides[0] * dims[1];
    box[0] = (unsigned)kbox; box[1] = ak ? 64 : 128; box[2] = 1;
    if (ctx->cu.TensorMapEncodeTiled(&tm[0], tdt, 3, (void *)(uintptr_t)p->a, dims, strides, box, es, GK__CU_TENSOR_MAP_INTERLEAVE_NONE,
                                     GK__CU_TENSOR_MAP_SWIZZLE_128B, GK__CU_TENSOR_MAP_L2_PROMOTION_L2_256B, GK__CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != 0) {
        if (pinned) gk__unuse(ctx, ctx->ws);
        return GK__WG_DECLINED;
    }
    /* B: k-major ([N, K] weight) {K, N, b} box {64, BN}; n-major {N, K, b} box {64, 64} */
    dims[0] = (uint64_t)(bk ? p->N : p->K); dims[1] = (uint64_t)(bk ? p->K : p->N); dims[2] = (uint64_t)(p->b_bs ? batch : 1);
    strides[0] = (uint64_t)((bk ? p->b_rs : p->b_cs) * esz);
    strides[1] = p->b_bs ? (uint64_t)(p->b_bs * esz) : strides[0] * dims[1];
    box[0] = (unsigned)kbox; box[1] = bk ? 64 : (unsigned)BN; box[2] = 1;
    if (ctx->cu.TensorMapEncodeTiled(&tm[1], tdt, 3, (void *)(uintptr_t)p->b, dims, strides, box, es, GK__CU_TENSOR_MAP_INTERLEAVE_NONE,
                                     GK__CU_TENSOR_MAP_SWIZZLE_128B, GK__CU_TENSOR_MAP_L2_PROMOTION_L2_256B, GK__CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != 0) {
        if (pinned) gk__unuse(ctx, ctx->ws);
        return GK__WG_DECLINED;
    }
    q.pad = (int)odt | (int)(batch << 8); /* gemm_wg.cu reads pad as output dtype | batch count << 8 */
    args[0] = &tm[0]; args[1] = &tm[1]; args[2] = &q;
    /* persistent: one block per SM at most (197 KiB of shared memory each) walks the tiles */
    tiles *= batch;
    g[0] = (unsigned)(tiles < ctx->info.sm_count ? tiles : ctx->info.sm_count); g[1] = 1; g[2] = 1;
    bl[0] = 384; bl[1] = 1; bl[2] = 1;
#ifdef GK__MOD_GEMM_WG
    st = GK_OK;
    for (i = 0; i < ntr && st == GK_OK; i++) {
        unsigned tg[3], tb[3] = { 32, 8, 1 };
        void *ta[1];
        int64_t ry = (tr[i].R + 63) / 64; /* 64x64 tiles */
        ta[0] = &tr[i];
        tg[0] = (unsigned)((tr[i].C + 63) / 64); tg[1] = (unsigned)(ry < 65535 ? ry : 65535); tg[2] = (unsigned)(tr[i].bs ? batch : 1);
        if (ctx->prof) gk__prof_note(ctx, 8.0 * (double)tr[i].R * (double)tr[i].C * (double)tg[2], 0); /* (the product's hint follows) */
        st = gk__launch_cfg(ctx, GK__MOD_GEMM_WG, "gk_wg_tr32", tg, tb, 0, ta, W);
    }
    if (ntr && ctx->prof) gk__mm_note(ctx, p, batch, dt, odt, 0);
    if (st == GK_OK)
        st = gk__launch_cfg(ctx, GK__MOD_GEMM_WG, f32 ? gk__k_wg_f32[ti] : gk__k_wg[di][ti][ak][bk], g, bl, (unsigned)gk__wg_tile[ti][1], args, W);
    if (pinned) gk__unuse(ctx, ctx->ws);
    if (st != GK_OK && ctx->lib[GK__MOD_GEMM_WG].status != GK_OK) { gk_error_clear(ctx); return GK__WG_DECLINED; } /* module unavailable */
#else
    (void)W; (void)args; (void)g; (void)bl; (void)di; (void)tr; (void)i; st = GK__WG_DECLINED;
    if (pinned) gk__unuse(ctx, ctx->ws);
#endif
    if (st == GK_OK) ctx->tune.wg_launches++;
    return st;
}

/* gpukit's exact f32 GEMM on CUDA cores (src/ops/matmul/gemm_f32.cu): 128x128
   tiles, k tile 8, 256 threads of 8x8 register tiles, double-buffered
   k-major shared memory. Names by [A k/m][B k/n][output dtype]. It needs A
   and B 16-byte aligned with leading and batch strides multiples of 4
   elements (float4 loads; any M, N, K: the edges are predicated), else the
   SIMT kernel runs. ctx->tune.sg_mode -1: used wherever gk__sg_ok allows; 0:
   never (bench and tests set it to compare); tune.sg_launches counts its
   launches. */
#define GK__SG_NAMES(A, B) { "gk_sg_" A "_" B "_f32", NULL, "gk_sg_" A "_" B "_f16", "gk_sg_" A "_" B "_bf16" }
static const char *const gk__k_sg[2][2][4] = { { GK__SG_NAMES("k", "n"), GK__SG_NAMES("k", "k") }, { GK__SG_NAMES("m", "n"), GK__SG_NAMES("m", "k") } };
#undef GK__SG_NAMES
/* gk_sg1_*: the same tile with a k tile of 16 (f32 out only), which halves the
   barriers and, for a k-contiguous operand, reads 64 bytes of a row a tile
   instead of 32: ahead for NT and TN, behind for NN (docs/perf-log.md).
   ctx->tune.sg_variant -1 (default): the rule, f32 out of NN (A k-, B
   n-contiguous) on the kernels above, of the other layouts (TT as NT and
   TN) on gk_sg1; 0 / 1: that kernel (bench_gemm times both, tests check
   both). tune.sg_last: the variant of the last launch. */
static const char *const gk__k_sg1[2][2] = { { "gk_sg1_k_n_f32", "gk_sg1_k_k_f32" }, { "gk_sg1_m_n_f32", "gk_sg1_m_k_f32" } };
static int gk__sg_ok(const gk_ctx *ctx, const gk__mm *p, int64_t batch, gk_dtype dt, gk_dtype odt) {
    int64_t lda = p->a_cs == 1 ? p->a_rs : p->a_cs, ldb = p->b_cs == 1 ? p->b_rs : p->b_cs;
    int64_t tiles = (p->M + 127) / 128 * ((p->N + 127) / 128);
    if (ctx->tune.sg_mode == 0 || dt != GK_F32 || (odt != GK_F32 && odt != GK_F16 && odt != GK_BF16) || p->K <= 0 || batch > 65535 || tiles > 0x7FFFFFFF)
        return 0;
    if ((p->a_cs != 1 && p->a_rs != 1) || (p->b_cs != 1 && p->b_rs != 1)) return 0;
    if (((p->a | p->b) & 15) != 0 || lda % 4 != 0 || ldb % 4 != 0 || p->a_bs % 4 != 0 || p->b_bs % 4 != 0) return 0;
    return 1;
}
static gk_status gk__sg_launch(gk_ctx *ctx, const gk__mm *p, int64_t batch, gk_dtype odt, const char *W) {
    int ak = p->a_cs == 1 ? 0 : 1, bk = p->b_cs == 1 ? 0 : 1, v = 0;
    if (odt == GK_F32) v = ctx->tune.sg_variant >= 0 && ctx->tune.sg_variant <= 1 ? ctx->tune.sg_variant : (ak || bk) ? 1 : 0;
    unsigned g[3], bl[3];
    void *args[1];
    gk__mm q = *p;
    gk_status st;
    args[0] = &q;
    g[0] = (unsigned)((p->M + 127) / 128 * ((p->N + 127) / 128)); g[1] = (unsigned)batch; g[2] = 1;
    bl[0] = 256; bl[1] = 1; bl[2] = 1;
    st = gk__launch_cfg(ctx, GK__MOD_GEMM_F32, v ? gk__k_sg1[ak][bk] : gk__k_sg[ak][bk][odt], g, bl, 0, args, W);
    if (st == GK_OK) { ctx->tune.sg_launches++; ctx->tune.sg_last = v; }
    return st;
}

