/* >>ops_attention: attention: CPU reference, flash, wgmma flash, decode splits */
/* ---- attention ---- */
typedef struct gk__attn {       /* layout of gk_attn_p in src/ops/attention/gk_attn.cuh */
    int64_t B, Sq, Skv, Hq, Hkv, D;
    int64_t q_bs, q_ss, q_hs, k_bs, k_ss, k_hs, v_bs, v_ss, v_hs, o_bs, o_ss, o_hs;
    int64_t m_bs, m_qs;
    uint64_t q, k, v, mask, o, q_lens, kv_lens, part;
    float scale;
    int causal, splits, chunk, tile;
    int comb; /* gk_attn_combine's one-round form allowed (tune.combine_one_round) */
    int pf;   /* decode: 64-key tiles a split prefetched into L2 before the PDL wait (tune.dec_prefetch) */
    uint64_t slot; /* decode: the splits' words (gk__dec_slots): they combine themselves (gk__dec_fold) */
} gk__attn;
typedef struct gk__attn_cpu { gk__attn a; gk_dtype dt; } gk__attn_cpu;

/* The CPU reference: f64 scores and softmax. */
static int gk__attn_cpu_run(const void *vp) {
    const gk__attn_cpu *c = (const gk__attn_cpu *)vp;
    const gk__attn *p = &c->a;
    const char *Q = (const char *)(uintptr_t)p->q, *K = (const char *)(uintptr_t)p->k, *V = (const char *)(uintptr_t)p->v;
    char *O = (char *)(uintptr_t)p->o;
    int64_t es = (int64_t)gk__dtype_sizes[c->dt], b, i, h, hk, j, d, G = p->Hq / p->Hkv;
    size_t kvn = (size_t)(p->Skv > 0 ? p->Skv : 1) * (size_t)(p->D > 0 ? p->D : 1);
    /* one kv head's K and V as f32 (exact: the operands are f32, f16 or bf16),
       converted once per (batch, kv head) rather than once per query and head */
    float *kf = GK__CAST(float *, GPUKIT_MALLOC(sizeof(float) * kvn)), *vf = GK__CAST(float *, GPUKIT_MALLOC(sizeof(float) * kvn));
    double *s = GK__CAST(double *, GPUKIT_MALLOC(sizeof(double) * (size_t)(p->Skv + 1)));
    double *acc = GK__CAST(double *, GPUKIT_MALLOC(sizeof(double) * (size_t)(p->D + 1)));
    double *qd = GK__CAST(double *, GPUKIT_MALLOC(sizeof(double) * (size_t)(p->D + 1)));
    int fail = !s || !acc || !qd || !kf || !vf;
    if (fail) goto done;
    for (b = 0; b < p->B; b++) {
        int64_t qlen = p->q_lens ? ((const int32_t *)(uintptr_t)p->q_lens)[b] : p->Sq;
        int64_t kvlen = p->kv_lens ? ((const int32_t *)(uintptr_t)p->kv_lens)[b] : p->Skv;
        if (kvlen > p->Skv) kvlen = p->Skv;
        if (qlen > p->Sq) qlen = p->Sq;
        for (hk = 0; hk < p->Hkv; hk++) {
            for (j = 0; j < kvlen; j++)
                for (d = 0; d < p->D; d++) {
                    kf[j * p->D + d] = (float)gk__ld_d(c->dt, K, b * p->k_bs + j * p->k_ss + hk * p->k_hs + d);
                    vf[j * p->D + d] = (float)gk__ld_d(c->dt, V, b * p->v_bs + j * p->v_ss + hk * p->v_hs + d);
                }
            for (h = hk * G; h < (hk + 1) * G; h++)
                for (i = 0; i < p->Sq; i++) {
                    int64_t jend = kvlen;
                    double mx = -HUGE_VAL, sum = 0;
                    gk__scalar sc;
                    if (p->causal) { int64_t lim = i + (kvlen - qlen) + 1; if (lim < jend) jend = lim < 0 ? 0 : lim; }
                    if (i >= qlen) jend = 0;
                    for (d = 0; d < p->D; d++) qd[d] = gk__ld_d(c->dt, Q, b * p->q_bs + i * p->q_ss + h * p->q_hs + d);
                    for (j = 0; j < jend; j++) {
                        const float *kr = kf + j * p->D;
                        double dot = 0;
                        for (d = 0; d < p->D; d++) dot += qd[d] * (double)kr[d];
                        s[j] = dot * p->scale;
                        if (p->mask) { float mv; memcpy(&mv, (const char *)(uintptr_t)p->mask + (b * p->m_bs + i * p->m_qs + j) * 4, 4); s[j] += mv; }
                        if (s[j] > mx) mx = s[j];
                    }
                    for (d = 0; d < p->D; d++) acc[d] = 0;
                    if (mx > -HUGE_VAL)
                        for (j = 0; j < jend; j++) {
                            const float *vr = vf + j * p->D;
                            double w = s[j] == -HUGE_VAL ? 0 : exp(s[j] - mx);
                            sum += w;
                            for (d = 0; d < p->D; d++) acc[d] += w * (double)vr[d];
                        }
                    sc.is_int = 0; sc.i = 0;
                    for (d = 0; d < p->D; d++) {
                        sc.f = sum > 0 ? acc[d] / sum : 0;
                        gk__store(c->dt, O + (b * p->o_bs + i * p->o_ss + h * p->o_hs + d) * es, sc);
                    }
                }
        }
    }
done:
    GPUKIT_FREE(kf);
    GPUKIT_FREE(vf);
    GPUKIT_FREE(s);
    GPUKIT_FREE(acc);
    GPUKIT_FREE(qd);
    return fail;
}

/* gpukit's Hopper attention (src/ops/attention/flash_wg.cu, module built for sm_90a):
   wgmma fed by TMA, 128 queries a block (two consumer warpgroups of 64 rows,
   one producer), K / V tiles of 128 keys in a ring of 2 stages; names by
   [f16 / bf16][D 64 / 128]; shared memory D/64 * 16384 * (1 + 2 stages) +
   1280; a block per tile of 128 queries (grid = q tiles x Hq x B, 1-d).
   ctx->tune.fwg_mode -1: this kernel wherever gk__fwg_ok allows it (unless the
   environment has GPUKIT_ATTN_WGMMA=0); 0: never (src/ops/attention/flash.cu instead).
   Set by tests/test_attention.c and bench/bench_gemm.c (they include the
   implementation) to test and measure both; tune.fwg_launches counts launches. */
static const char *const gk__k_fwg[2][2] = { { "gk_fwg_f16_64", "gk_fwg_f16_128" }, { "gk_fwg_bf16_64", "gk_fwg_bf16_128" } };
/* Heads a tile group (the kernel's p.tile; flash_wg.cu's tile order): a
   group's q tiles run before the next group's, so the blocks resident
   together read a few heads' K / V, which stay in L2. ctx->tune.fwg_group 0:
   gk__fwg_group_for's choice; else forced (bench_gemm sweeps it; Hq * B
   gives every head at one q tile, whose blocks stream K / V from DRAM) */
static int64_t gk__fwg_group_for(const gk__attn *p) { (void)p; return 1; }

/* Whether the wgmma attention takes this problem: f16 / bf16, head dim 64 or
   128, no mask and no per-sequence lengths, a positive scale (the kernel
   keeps unscaled row maxima), 16-byte aligned q, k, v with sequence, head and
   batch strides in multiples of 8 elements (TMA's 16-byte rules), out as
   flash.cu's (4-byte pairs), on a 9.0 device with cuTensorMapEncodeTiled,
   NVRTC able to target sm_90 (or a cached build) and the module not failed. */
static int gk__fwg_ok(gk_ctx *ctx, const gk__attn *p, gk_dtype dt) {
    int i, nv = ctx->n_nvrtc_archs == 0;
    int64_t lim = (int64_t)1 << 30, big = (int64_t)1 << 38;
    if (ctx->tune.fwg_mode == 0) return 0; /* also GPUKIT_ATTN_WGMMA=0 (gk_ctx_create) */
    if (ctx->info.cc_major != 9 || ctx->info.cc_minor != 0 || (dt != GK_F16 && dt != GK_BF16) || !ctx->cu.TensorMapEncodeTiled) return 0;
#ifdef GK__MOD_FLASH_WG
    if (ctx->lib[GK__MOD_FLASH_WG].tried && ctx->lib[GK__MOD_FLASH_WG].status != GK_OK) return 0;
#else
    return 0;
#endif
    for (i = 0; i < ctx->n_nvrtc_archs; i++) if (ctx->nvrtc_archs[i] == 90) nv = 1;
    if (!nv || p->mask || p->q_lens || p->kv_lens || !(p->scale > 0) || (p->D != 64 && p->D != 128)) return 0;
    if (p->Sq >= lim || p->Skv >= lim || p->Hq > 65535 || p->B > 65535 || (p->Sq + 127) / 128 * p->Hq * p->B >= ((int64_t)1 << 31)) return 0;
    if (((p->q | p->k | p->v) & 15) != 0 || (p->o & 3) != 0 || ((p->o_ss | p->o_hs | p->o_bs) % 2) != 0) return 0;
    if ((p->q_bs | p->q_ss | p->q_hs | p->k_bs | p->k_ss | p->k_hs | p->v_bs | p->v_ss | p->v_hs) % 8 != 0) return 0;
    if (p->q_bs < 0 || p->q_ss < 0 || p->q_hs < 0 || p->k_bs < 0 || p->k_ss < 0 || p->k_hs < 0 || p->v_bs < 0 || p->v_ss < 0 || p->v_hs < 0 ||
        p->q_bs >= big || p->q_ss >= big || p->q_hs >= big || p->k_bs >= big || p->k_ss >= big || p->k_hs >= big || p->v_bs >= big ||
        p->v_ss >= big || p->v_hs >= big)
        return 0;
    return 1;
}
/* One 4-d map {D, S, H, B} (strides in bytes; a stride of an extent-1
   dimension, which addresses nothing, is replaced by a dense one) with the
   box {64, rows, 1, 1}, 128-byte swizzle; nonzero when the driver refuses.
   flash_wg.cu takes boxes of 128 rows, gk_attn_dec4t 64. */
static int gk__fwg_map(gk_ctx *ctx, gk__cu_tensormap *m, gk_dtype dt, uint64_t addr, int64_t D, int64_t S, int64_t H, int64_t B, int64_t ss,
                       int64_t hs, int64_t bs, unsigned rows) {
    uint64_t dims[4], strides[3];
    unsigned box[4], es[4] = { 1, 1, 1, 1 };
    box[0] = 64; box[1] = rows; box[2] = 1; box[3] = 1;
    dims[0] = (uint64_t)D; dims[1] = (uint64_t)S; dims[2] = (uint64_t)H; dims[3] = (uint64_t)B;
    strides[0] = S > 1 && ss > 0 ? (uint64_t)ss * 2 : (uint64_t)D * 2;
    strides[1] = H > 1 && hs > 0 ? (uint64_t)hs * 2 : strides[0] * dims[1];
    strides[2] = B > 1 && bs > 0 ? (uint64_t)bs * 2 : strides[1] * dims[2];
    return ctx->cu.TensorMapEncodeTiled(m, dt == GK_BF16 ? GK__CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : GK__CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4,
                                        (void *)(uintptr_t)addr, dims, strides, box, es, GK__CU_TENSOR_MAP_INTERLEAVE_NONE,
                                        GK__CU_TENSOR_MAP_SWIZZLE_128B, GK__CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                                        GK__CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != 0;
}
/* Builds the three maps and launches a 1-d grid over the q tiles of 128
   (in head groups of p->tile: flash_wg.cu's tile order); returns
   GK__WG_DECLINED (no error recorded) when a map is refused or the module is
   unavailable: the caller runs flash.cu. */
static gk_status gk__fwg_launch(gk_ctx *ctx, gk__attn *p, gk_dtype dt, const char *W) {
    unsigned char buf[3 * sizeof(gk__cu_tensormap) + 64];
    gk__cu_tensormap *tm = (gk__cu_tensormap *)(void *)(buf + ((64 - ((uintptr_t)buf & 63)) & 63));
    unsigned g[3], bl[3];
    void *args[4];
    gk_status st;
    int64_t tiles = (p->Sq + 127) / 128 * p->Hq * p->B;
    if (gk__fwg_map(ctx, &tm[0], dt, p->q, p->D, p->Sq, p->Hq, p->B, p->q_ss, p->q_hs, p->q_bs, 128) ||
        gk__fwg_map(ctx, &tm[1], dt, p->k, p->D, p->Skv, p->Hkv, p->B, p->k_ss, p->k_hs, p->k_bs, 128) ||
        gk__fwg_map(ctx, &tm[2], dt, p->v, p->D, p->Skv, p->Hkv, p->B, p->v_ss, p->v_hs, p->v_bs, 128))
        return GK__WG_DECLINED;
    p->tile = (int)GK__MIN(ctx->tune.fwg_group > 0 ? ctx->tune.fwg_group : gk__fwg_group_for(p), p->Hq * p->B);
    args[0] = &tm[0]; args[1] = &tm[1]; args[2] = &tm[2]; args[3] = p;
    g[0] = (unsigned)tiles; g[1] = 1; g[2] = 1;
    bl[0] = 384; bl[1] = 1; bl[2] = 1;
#ifdef GK__MOD_FLASH_WG
    st = gk__launch_cfg(ctx, GK__MOD_FLASH_WG, gk__k_fwg[dt == GK_BF16][p->D == 128], g, bl, (unsigned)(p->D / 64 * 16384 * (1 + 2 * 2) + 1280), args, W);
    if (st != GK_OK && ctx->lib[GK__MOD_FLASH_WG].status != GK_OK) { gk_error_clear(ctx); return GK__WG_DECLINED; } /* module unavailable */
#else
    (void)W; (void)g; (void)bl; (void)args; st = GK__WG_DECLINED;
#endif
    p->tile = 0; /* flash.cu / attention.cu read no group */
    if (st == GK_OK) ctx->tune.fwg_launches++;
    return st;
}

/* Decode attention: its kernels and the knobs that force each (ctx->tune, gk__tuning;
   tests and benchmarks set them and read the launch counters to see which ran).
   - dec_variant -1 (the dispatcher): gk_attn_dec3 (tensor cores; D 64 / 128, at most 8 q
     heads a kv head) where it applies, and on 9.0+ devices gk_attn_dec4t from dec4t_from
     keys of cache (the K / V views' sequence length) on, where its tensor maps build; the
     shared-memory gk_attn_dec for the rest. 0 always takes gk_attn_dec; 3 takes
     gk_attn_dec3 and 5 gk_attn_dec4t where they apply (5: on 9.0+ where its maps build,
     else gk_attn_dec3). dec4t_from is 4096 by default: from there dec4t's
     copy-engine ring streams the cache faster than dec3's warps, below it dec3 is ahead
     (docs/perf-log.md).
   - gk_attn_dec4t streams each split through a ring of dec4t_stages (0: GK__DEC4T_STAGES)
     stages of 64 keys in 64 x 64 tiles; its splits take at least dec4t_min_keys keys (0:
     GK__DEC4T_MIN_KEYS) and are sized for dec4t_blocks_sm blocks a SM (0: one, where that
     still gives 4 splits a (b, kv head), else as many as are resident). With dec4t_pad a
     block sized for one a SM asks for more than half an SM's shared memory, so that no
     block of the next kernel, launched early by PDL, shares its SM.
   - gk_attn_dec3's splits are sized for dec3_per_sm blocks a SM (2 are resident at its 254
     registers). A cache of at most dec3_one_split keys takes one split a (b, kv head),
     which writes the output itself, with no gk_attn_combine (dec3_direct counts these
     launches of either kernel).
   - dec_prefetch: the 64-key tiles of each split that dec3 / dec4t prefetch into L2 before
     their PDL wait (sm_90+, where the wait lets a kernel start while the previous ones
     drain; the kernels' gk_dec_hint_range); -1 each kernel's default, GK__DEC3_PREFETCH /
     GK__DEC4T_PREFETCH; 0 none.
   - dec_fold 1 (the default): dec3 / dec4t combine their splits themselves (gk_dec_fold:
     each split publishes its result in words of gk__dec_slots, then polls for the other
     splits' words of its slice of the outputs) where the whole grid is resident at once and
     the words exist, which saves the gk_attn_combine launch (dec_fold_launches counts these
     launches); 0 always launches gk_attn_combine.
   - combine_one_round 1 (the default): gk_attn_combine's one-round form where it applies
     (at most 32 splits); 0 its three-round form everywhere. */
#define GK__DEC4T_STAGES 3
#define GK__DEC4T_MIN_KEYS 256
#define GK__DEC3_PREFETCH 2
#define GK__DEC4T_PREFETCH 1
static const char *const gk__k_attn[4][2] = { { "gk_attn_f32", "gk_attn_combine_f32" }, { NULL, NULL },
                                              { "gk_attn_f16", "gk_attn_combine_f16" }, { "gk_attn_bf16", "gk_attn_combine_bf16" } };

GKDEF gk_status gk_attention(gk_ctx *ctx, gk_tensor out, gk_tensor q, gk_tensor k, gk_tensor v, const gk_attention_desc *desc) {
    const char *W = "gk_attention";
    const char *names[6] = { "out", "q", "k", "v", "", "" };
    gk_tensor ts[6];
    gk__opnds ops;
    gk__attn p;
    gk_attention_desc d;
    int n = 4, im = -1, iq = -1, ik = -1, i;
    gk_status st = GK_OK;
    gk__slot *so, *sq, *sk, *sv;
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    ts[0] = out; ts[1] = q; ts[2] = k; ts[3] = v;
    if (d.mask.id) { im = n; names[n] = "mask"; ts[n++] = d.mask; }
    if (d.q_lens.id) { iq = n; names[n] = "q_lens"; ts[n++] = d.q_lens; }
    if (d.kv_lens.id) { ik = n; names[n] = "kv_lens"; ts[n++] = d.kv_lens; }
    GK__ENTER(ctx, W);
    memset(&p, 0, sizeof p);
    st = gk__operands(ctx, &ops, ts, names, n, W);
    if (st != GK_OK) goto fail;
    so = ops.s[0]; sq = ops.s[1]; sk = ops.s[2]; sv = ops.s[3];
    if (sq->dtype != sk->dtype || sq->dtype != sv->dtype || sq->dtype != so->dtype || (sq->dtype != GK_F32 && sq->dtype != GK_F16 && sq->dtype != GK_BF16)) {
        st = gk__err(ctx, GK_ERR_DTYPE, "%s: q, k, v and out must share one of f32, f16, bf16 (got %s, %s, %s, %s)", W, gk_dtype_name(sq->dtype),
                     gk_dtype_name(sk->dtype), gk_dtype_name(sv->dtype), gk_dtype_name(so->dtype));
        goto fail;
    }
    for (i = 0; i < 4; i++)
        if (ops.s[i]->ndim != 4 || (ops.s[i]->shape[3] > 1 && ops.s[i]->strides[3] != 1)) {
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: %s must be 4-d [B, S, H, D] with D contiguous", W, names[i]);
            goto fail;
        }
    p.B = sq->shape[0]; p.Sq = sq->shape[1]; p.Hq = sq->shape[2]; p.D = sq->shape[3];
    p.Skv = sk->shape[1]; p.Hkv = sk->shape[2];
    for (i = 0; i < 4; i++) {
        const gk__slot *s = ops.s[i];
        int kvside = i == 2 || i == 3;
        if (s->shape[0] != p.B || s->shape[1] != (kvside ? p.Skv : p.Sq) || s->shape[2] != (kvside ? p.Hkv : p.Hq) || s->shape[3] != p.D) {
            char a[160];
            gk__shape_str(s, a, sizeof a);
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: %s is %s; expected [%lld, %lld, %lld, %lld]", W, names[i], a, (long long)p.B,
                         (long long)(kvside ? p.Skv : p.Sq), (long long)(kvside ? p.Hkv : p.Hq), (long long)p.D);
            goto fail;
        }
    }
    if (p.Hkv == 0 || p.Hq % p.Hkv != 0) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: %lld query heads are not a multiple of %lld kv heads", W, (long long)p.Hq, (long long)p.Hkv); goto fail; }
    if (p.D > 256) { st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: head_dim %lld above 256 is not supported", W, (long long)p.D); goto fail; }
    if (im >= 0) {
        gk__slot *s = ops.s[im];
        if (s->dtype != GK_F32 || (s->ndim != 2 && s->ndim != 3) || s->shape[s->ndim - 1] != p.Skv || s->shape[s->ndim - 2] != p.Sq ||
            (s->ndim == 3 && s->shape[0] != p.B && s->shape[0] != 1) || s->strides[s->ndim - 1] != 1) {
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: mask must be f32 [%lld, %lld] or [B, %lld, %lld] with rows contiguous", W, (long long)p.Sq,
                         (long long)p.Skv, (long long)p.Sq, (long long)p.Skv);
            goto fail;
        }
        p.m_qs = s->strides[s->ndim - 2];
        p.m_bs = s->ndim == 3 && s->shape[0] > 1 ? s->strides[0] : 0;
    }
    for (i = 0; i < 2; i++) {
        int ix = i ? ik : iq;
        if (ix >= 0) {
            gk__slot *s = ops.s[ix];
            if (s->dtype != GK_I32 || s->ndim != 1 || s->shape[0] != p.B || s->strides[0] != 1) {
                st = gk__err(ctx, GK_ERR_SHAPE, "%s: %s must be a contiguous i32 vector of %lld", W, names[ix], (long long)p.B);
                goto fail;
            }
        }
    }
#define GK__ATTN_STRIDES(X, s) p.X##_bs = (s)->strides[0]; p.X##_ss = (s)->strides[1]; p.X##_hs = (s)->strides[2]
    GK__ATTN_STRIDES(q, sq); GK__ATTN_STRIDES(k, sk); GK__ATTN_STRIDES(v, sv); GK__ATTN_STRIDES(o, so);
#undef GK__ATTN_STRIDES
    p.scale = d.scale != 0 ? d.scale : (float)(1.0 / sqrt((double)(p.D > 0 ? p.D : 1)));
    p.causal = d.causal != 0;
    p.splits = 1;
    p.comb = ctx->tune.combine_one_round != 0;
    if (p.B == 0 || p.Sq == 0 || p.Hq == 0 || p.D == 0) goto fail; /* nothing to do: st is GK_OK */
    if ((st = gk__operands_use(ctx, &ops, W)) != GK_OK) { gk__operands_done(ctx, &ops, st); goto fail; }
    p.o = gk__slot_addr(so); p.q = gk__slot_addr(sq); p.k = gk__slot_addr(sk); p.v = gk__slot_addr(sv);
    if (im >= 0) p.mask = gk__slot_addr(ops.s[im]);
    if (iq >= 0) p.q_lens = gk__slot_addr(ops.s[iq]);
    if (ik >= 0) p.kv_lens = gk__slot_addr(ops.s[ik]);
    if (ctx->prof) {
        /* the profiler's hint for the main kernel: QK^T and PV, 4*B*Hq*Sq*Skv*D FLOPs (about
           half of the key range under a causal mask when Sq = Skv), and q, k, v and out read or
           written once (kv_lens are on the device: the full cache is counted) */
        double es = (double)gk__dtype_sizes[sq->dtype], keys = (double)p.Skv;
        if (p.causal && p.Sq > 1 && p.Sq <= p.Skv) keys = (double)p.Skv - 0.5 * (double)p.Sq;
        gk__prof_note(ctx, es * (double)(gk__numel(sq) + gk__numel(sk) + gk__numel(sv) + gk__numel(so)),
                      4.0 * (double)p.B * (double)p.Hq * (double)p.Sq * keys * (double)p.D);
    }
    if (ctx->backend == GK_BACKEND_CPU) {
        gk__attn_cpu c;
        c.a = p; c.dt = sq->dtype;
        st = gk__cpu_run(ctx, gk__attn_cpu_run, &c, sizeof c, W);
    } else {
        int64_t rows = p.Sq * p.Hq, warps = rows * p.B, want = (int64_t)ctx->info.sm_count * 32;
        unsigned g[3], bl[3];
        void *args[1];
        int G = (int)(p.Hq / p.Hkv);
        int dec = p.Sq == 1 && !p.mask && !p.q_lens && sq->dtype != GK_F32 && p.D % 8 == 0 && G <= 32 && (p.k_ss % 8) == 0 && (p.v_ss % 8) == 0 &&
                  ((p.k | p.v) & 15) == 0 && (p.k_bs % 8) == 0 && (p.v_bs % 8) == 0 && (p.k_hs % 8) == 0 && (p.v_hs % 8) == 0;
        if (dec) {
            /* decode: a block per (b, kv head, split), one wave: splits = the resident
               slots over B * Hkv, so every SM streams the same bytes; sized for the longest
               cache (kv_lens are read on the device); at most 256 (the combine's limit).
               A split is `chunk` keys, a multiple of the kernel's granule.
               - gk_attn_dec3 (tensor cores; D 64 / 128, at most 8 q heads a kv head): blocks
                 of 4 warps, each warp streaming its own 16-key blocks into registers, 2 blocks
                 a SM resident (at most 255 registers; the split count is sized for
                 tune.dec3_per_sm a SM), granule 64 keys (a 16-key block a warp). Its few
                 warps' latency bounds it: two 16-key blocks in flight take the registers that
                 more warps would need.
               - gk_attn_dec4t (9.0+, from tune.dec4t_from keys of cache): the same math fed by
                 the copy engine, a producer warp streaming the split through a ring in shared
                 memory in 64 x 64 tensor-map tiles (4 copies a stage at D 128) for 4 consumer
                 warps, so the bytes in flight are the ring's and not the registers'. Its
                 splits are sized for one block a SM where that still gives 4 a (b, kv head),
                 else for the resident blocks, with at least GK__DEC4T_MIN_KEYS keys each:
                 more and shorter splits spend their time filling the pipeline.
               - gk_attn_dec (the rest): K / V tiles of 64 keys (32 above D 128) in two
                 shared-memory stages, as many blocks a SM as the shared memory holds,
                 granule 8 keys (a split may hold less than a tile: a tile a split at least
                 is slower at batch 8).
               - a cache of at most tune.dec3_one_split (256) keys: one split per (b, kv head),
                 writing the output itself, with no combine launch, which at that size costs
                 more than the splits gain; from 512 keys the splits win.
               - where the grid is one wave (cuOccupancyMaxActiveBlocksPerMultiprocessor over
                 the SMs), dec3 / dec4t combine their splits themselves (tune.dec_fold;
                 src/ops/attention/attention.cu gk_dec_fold): each split publishes {o / l,
                 log-sum-exp} as 64-bit words that carry their own presence (gk__dec_slots)
                 and polls for and merges its slice of the outputs, a round trip through L2
                 in place of a kernel boundary and gk_attn_combine. Elsewhere gk_attn_combine
                 merges the splits; programmatic dependent launch overlaps its start with the
                 decode kernel's tail.
               - before their PDL wait, dec3 and dec4t prefetch the first p.pf 64-key tiles of
                 their split into L2 (tune.dec_prefetch; GK__DEC3_PREFETCH, GK__DEC4T_PREFETCH),
                 so that the DRAM reads start while the previous kernels drain.
               docs/perf-log.md has the measurements behind each rule and the forms measured
               and not kept. */
            static const char *const k3[2][2] = { { "gk_attn_dec3_f16_64", "gk_attn_dec3_f16_128" }, { "gk_attn_dec3_bf16_64", "gk_attn_dec3_bf16_128" } };
            static const char *const k4t[2][2] = { { "gk_attn_dec4t_f16_64", "gk_attn_dec4t_f16_128" },
                                                   { "gk_attn_dec4t_bf16_64", "gk_attn_dec4t_bf16_128" } };
            void *targs[3];
            const int tc = (p.D == 64 || p.D == 128) && G <= 8;
            unsigned char mbuf[2 * sizeof(gk__cu_tensormap) + 64];
            gk__cu_tensormap *tm = (gk__cu_tensormap *)(void *)(mbuf + ((64 - ((uintptr_t)mbuf & 63)) & 63));
            /* gk_attn_dec4t when asked for (5); tiles: the tensor maps of K and V were built (else gk_attn_dec3) */
            const int want4t = tc && ctx->info.cc_major >= 9 &&
                               (ctx->tune.dec_variant == 5 || (ctx->tune.dec_variant == -1 && ctx->tune.dec4t_from >= 0 && p.Skv >= ctx->tune.dec4t_from));
            const int tiles = want4t && ctx->cu.TensorMapEncodeTiled && p.Skv < ((int64_t)1 << 31) &&
                              !gk__fwg_map(ctx, &tm[0], sq->dtype, p.k, p.D, p.Skv, p.Hkv, p.B, p.k_ss, p.k_hs, p.k_bs, 64) &&
                              !gk__fwg_map(ctx, &tm[1], sq->dtype, p.v, p.D, p.Skv, p.Hkv, p.B, p.v_ss, p.v_hs, p.v_bs, 64);
            const int d4 = tiles;
            const int d3 = tc && !d4 && ctx->tune.dec_variant != 0;
            int64_t bh = p.B * p.Hkv, C = p.D <= 128 ? 64 : 32, gran = d3 || d4 ? 64 : 8, slots, chunk, smem = 0;
            int direct;
            const char *kn;
            if (d4) {
                /* stages of 64 keys (16 a consumer warp) of K and V, then a full and an empty
                   barrier a stage; as many blocks a SM as that fits */
                const int64_t stages = ctx->tune.dec4t_stages > 0 ? ctx->tune.dec4t_stages : GK__DEC4T_STAGES;
                int per_sm = 1;
                gk__cu_function f4; /* (the launch looks it up again: both are cached lookups) */
                /* tensor tiles unpadded (swizzled) in a ring aligned to 1 KiB */
                smem = stages * 2 * 64 * 2 * p.D + 1024 + 16 * stages;
                kn = k4t[sq->dtype == GK_BF16][p.D == 128];
                st = gk__occupancy(ctx, GK__MOD_ATTENTION, kn, 160, (unsigned)smem, &per_sm, &f4, W);
                if (ctx->tune.dec4t_blocks_sm > 0 && ctx->tune.dec4t_blocks_sm < per_sm) per_sm = ctx->tune.dec4t_blocks_sm;
                else if (ctx->tune.dec4t_blocks_sm == 0 && (int64_t)ctx->info.sm_count / bh >= 4) {
                    per_sm = 1; /* gk_attn_dec4t: splits for one block a SM, where that still gives 4 a (b, kv head) */
                    /* and no room for a second block on an SM (tune.dec4t_pad; half the per-block opt-in
                       maximum, which is an SM's shared memory less 1 KiB): with room for two, the blocks
                       of the next kernel, launched early by PDL, take the free slots and double up on some
                       SMs when it runs */
                    if (ctx->tune.dec4t_pad && smem <= (int64_t)ctx->info.max_smem_per_block_optin / 2)
                        smem = (int64_t)ctx->info.max_smem_per_block_optin / 2 + 1024;
                }
                slots = (int64_t)ctx->info.sm_count * GK__MAX(per_sm, 1);
                p.tile = (int)stages;
                p.pf = ctx->tune.dec_prefetch < 0 ? GK__DEC4T_PREFETCH : ctx->tune.dec_prefetch;
            } else if (d3) {
                int per_sm = 1;
                gk__cu_function f3;
                kn = k3[sq->dtype == GK_BF16][p.D == 128];
                /* (at most as many a SM as are resident: 2 at 254 registers, __launch_bounds__(128, 2)) */
                st = gk__occupancy(ctx, GK__MOD_ATTENTION, kn, 128, 0, &per_sm, &f3, W);
                slots = (int64_t)ctx->info.sm_count * GK__MAX(GK__MIN(ctx->tune.dec3_per_sm, per_sm), 1);
                p.tile = 16;
                p.pf = ctx->tune.dec_prefetch < 0 ? GK__DEC3_PREFETCH : ctx->tune.dec_prefetch;
            } else {
                int64_t bps;
                smem = 4 * C * (p.D / 8 + 1) * 16 + (2 * G * p.D + G * C + 3 * G) * 4;
                bps = GK__MAX(GK__MIN((int64_t)ctx->info.max_smem_per_block_optin / (smem + 1024), (int64_t)8), (int64_t)1);
                slots = (int64_t)ctx->info.sm_count * bps;
                kn = sq->dtype == GK_BF16 ? "gk_attn_dec_bf16" : "gk_attn_dec_f16";
                p.tile = (int)C;
            }
            p.splits = (int)GK__MAX(GK__MIN(GK__MIN(slots / bh, (p.Skv + gran - 1) / gran), (int64_t)256), (int64_t)1);
            {
                const int64_t mk = ctx->tune.dec4t_min_keys > 0 ? ctx->tune.dec4t_min_keys : GK__DEC4T_MIN_KEYS; /* the fewest keys a split */
                if (d4 && mk > gran) p.splits = (int)GK__MAX(GK__MIN((int64_t)p.splits, (p.Skv + mk - 1) / mk), (int64_t)1);
            }
            if ((d3 || d4) && p.Skv <= ctx->tune.dec3_one_split) p.splits = 1;
            chunk = GK__MAX(((p.Skv + p.splits - 1) / p.splits + gran - 1) / gran * gran, gran);
            p.splits = (int)GK__MAX((p.Skv + chunk - 1) / chunk, (int64_t)1);
            p.chunk = (int)GK__MIN(chunk, (int64_t)2147483647);
            if (chunk > 2147483647) st = gk__err(ctx, GK_ERR_LIMIT, "%s: a cache of %lld keys is too long", W, (long long)p.Skv);
            if (p.Hkv > 65535 || p.B > 65535) st = gk__err(ctx, GK_ERR_LIMIT, "%s: %lld kv heads or batch %lld above 65535", W, (long long)p.Hkv, (long long)p.B);
            direct = (d3 || d4) && p.splits == 1;
            if (st == GK_OK && !direct && ctx->tune.dec_fold && (d3 || tiles) && bh * p.splits <= slots) {
                /* the splits combine themselves: they wait for each other, so only where the whole grid is
                   resident at once (slots: the resident blocks, from the occupancy of the kernel as launched) */
                gk__cu_ptr sl;
                st = gk__dec_slots(ctx, bh * G * p.splits * p.D, &sl, W);
                p.slot = sl;
            }
            if (st == GK_OK && !direct && !p.slot) {
                gk__cu_ptr ws;
                st = gk__workspace(ctx, (size_t)(p.B * p.Hq * p.splits * (p.D + 2)) * 4, &ws, W);
                p.part = ws;
            }
            g[0] = (unsigned)p.Hkv; g[1] = (unsigned)p.splits; g[2] = (unsigned)p.B;
            bl[0] = d4 ? 160 : 128; bl[1] = 1; bl[2] = 1; /* gk_attn_dec4t: 4 consumer warps and a producer */
            args[0] = &p;
            /* both kernels wait for their predecessor (gk_pdl_wait) before they read anything:
               programmatic dependent launch (sm_90+) overlaps their start with its tail. Splits
               past a sequence's kv_len return at once and the combine skips them. */
            targs[0] = &tm[0]; targs[1] = &tm[1]; targs[2] = &p; /* gk_attn_dec4t(tk, tv, p) */
            if (st == GK_OK) st = gk__launch_ex(ctx, GK__MOD_ATTENTION, kn, g, bl, (unsigned)smem, tiles ? targs : args, GK__LAUNCH_PDL, W);
            if (st == GK_OK && d3) ctx->tune.dec3_launches++;
            if (st == GK_OK && tiles) ctx->tune.dec4t_launches++;
            if (st == GK_OK && direct) ctx->tune.dec3_direct++;
            g[0] = (unsigned)rows; g[1] = 1;
            bl[0] = p.D > 96 ? 128u : (unsigned)((p.D + 31) / 32 * 32); /* the combine's launch bound */
            if (st == GK_OK && p.slot) ctx->tune.dec_fold_launches++;
            if (st == GK_OK && !direct && !p.slot) st = gk__launch_ex(ctx, GK__MOD_ATTENTION, gk__k_attn[sq->dtype][1], g, bl, 0, args, GK__LAUNCH_PDL, W);
            if (p.part) gk__unuse(ctx, ctx->ws);
            gk__operands_done(ctx, &ops, st);
            gk__unlock(&ctx->mu);
            return st;
        }
        /* Hopper (src/ops/attention/flash_wg.cu): wgmma + TMA, head dims 64 / 128 */
        if (p.Sq > 1 && gk__fwg_ok(ctx, &p, sq->dtype)) {
            st = gk__fwg_launch(ctx, &p, sq->dtype, W);
            if (st != GK__WG_DECLINED) {
                gk__operands_done(ctx, &ops, st);
                gk__unlock(&ctx->mu);
                return st;
            }
            st = GK_OK;
        }
        /* tensor cores (src/ops/attention/flash.cu): 16-bit, head dims 64/80/96/128, no mask, 16-byte rows */
        if ((sq->dtype == GK_BF16 || sq->dtype == GK_F16) && !p.mask && (p.D == 64 || p.D == 80 || p.D == 96 || p.D == 128) && p.Sq > 1 &&
            ((p.q_bs | p.q_ss | p.q_hs | p.k_bs | p.k_ss | p.k_hs | p.v_bs | p.v_ss | p.v_hs) % 8) == 0 && ((p.o_ss | p.o_hs | p.o_bs) % 2) == 0 &&
            ((p.q | p.k | p.v) & 15) == 0 && (p.o & 3) == 0 && p.Hq <= 65535 && p.B <= 65535 &&
            (p.Sq + 63) / 64 <= 2147483647) {
            static const char *const fk[2][2][4] = {
                { { "gk_flash_f16_64", "gk_flash_f16_80", "gk_flash_f16_96", "gk_flash_f16_128" },
                  { "gk_flash_bf16_64", "gk_flash_bf16_80", "gk_flash_bf16_96", "gk_flash_bf16_128" } },
                { { "gk_flash8_f16_64", "gk_flash8_f16_80", "gk_flash8_f16_96", "gk_flash8_f16_128" },
                  { "gk_flash8_bf16_64", "gk_flash8_bf16_80", "gk_flash8_bf16_96", "gk_flash8_bf16_128" } } };
            int di = p.D == 64 ? 0 : p.D == 80 ? 1 : p.D == 96 ? 2 : 3;
            /* 128-query blocks (8 warps) when they still fill the device, else 64 (4 warps);
               K / V tiles of 64 keys in two stages: 4 * 64 * (D + 8) * 2 bytes */
            int w8 = (p.Sq + 127) / 128 * p.Hq * p.B >= 2 * (int64_t)ctx->info.sm_count;
            int64_t bq = w8 ? 128 : 64;
            g[0] = (unsigned)((p.Sq + bq - 1) / bq); g[1] = (unsigned)p.Hq; g[2] = (unsigned)p.B; /* a head's q tiles together (K / V stay in L2) */
            bl[0] = (unsigned)(w8 ? 256 : 128); bl[1] = 1; bl[2] = 1;
            args[0] = &p;
            st = gk__launch_cfg(ctx, GK__MOD_FLASH, fk[w8][sq->dtype == GK_BF16][di], g, bl, (unsigned)(4 * 64 * (p.D + 8) * 2), args, W);
            gk__operands_done(ctx, &ops, st);
            gk__unlock(&ctx->mu);
            return st;
        }
        /* split the keys when there are too few (query, head) rows to fill the device */
        if (warps < want && p.Skv >= 128) {
            int64_t sp = (want + warps - 1) / warps, maxs = (p.Skv + 63) / 64;
            p.splits = (int)GK__MIN(GK__MIN(sp, maxs), (int64_t)64);
        }
        if (p.splits > 1) {
            gk__cu_ptr ws;
            st = gk__workspace(ctx, (size_t)(p.B * p.Hq * p.Sq * p.splits * (p.D + 2)) * 4, &ws, W);
            p.part = ws;
        }
        g[0] = (unsigned)((rows + 3) / 4); g[1] = (unsigned)p.splits; g[2] = (unsigned)p.B;
        bl[0] = 128; bl[1] = 1; bl[2] = 1;
        args[0] = &p;
        if (st == GK_OK && (p.B > 65535 || g[0] == 0)) st = gk__err(ctx, GK_ERR_LIMIT, "%s: batch %lld above 65535", W, (long long)p.B);
        if (st == GK_OK) st = gk__launch_cfg(ctx, GK__MOD_ATTENTION, gk__k_attn[sq->dtype][0], g, bl, 0, args, W);
        if (st == GK_OK && p.splits > 1) {
            g[0] = (unsigned)rows; g[1] = 1;
            bl[0] = p.D > 96 ? 128u : (unsigned)((p.D + 31) / 32 * 32); /* the combine's launch bound */
            st = gk__launch_cfg(ctx, GK__MOD_ATTENTION, gk__k_attn[sq->dtype][1], g, bl, 0, args, W);
        }
        if (p.splits > 1 && p.part) gk__unuse(ctx, ctx->ws);
    }
    gk__operands_done(ctx, &ops, st);
fail:
    gk__unlock(&ctx->mu);
    return st;
}
/* end of >>ops_matmul */

