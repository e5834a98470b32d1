/* >>ops_attention: attention: CPU reference, flash, wgmma flash, decode splits */
/* ---- attention ---- */
typedef struct gk__attn {       /* layout of gk_attn_p in src/ops/attention/gk_attn.cuh */
    int64_t B, Sq, Skv, Hq, Hkv, D;
    int64_t q_bs, q_ss, q_hs, k_bs, k_ss, k_hs, v_bs, v_ss, v_hs, o_bs, o_ss, o_hs;
    int64_t m_bs, m_qs;
    uint64_t q, k, v, mask, o, q_lens, kv_lens, part;
    float scale;
    int causal, splits, chunk, tile;
    int comb; /* gk_attn_combine's one-round form allowed (gk__combine_one_round) */
    int pf;   /* decode: 64-key tiles a split prefetched into L2 before the PDL wait (gk__dec_prefetch) */
    int late; /* gk_attn_dec4t: the next kernel launches once the split is streamed (gk__dec4_late) */
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
   one producer), K / V tiles of 128 keys; names by [f16 / bf16][D 64 / 128]
   [kernel: 0 2 stages, 1 2 stages + pingpong, 2 3 stages, 3 3 stages +
   pingpong]; shared memory D/64 * 16384 * (1 + 2 stages) + 1280. Variants
   0..3 launch that kernel with a block per tile of 128 queries (grid = q
   tiles x Hq x B, 1-d); variant 4 launches kernel 3 persistent (a block
   per SM at most, walking the tiles).
   gk__fwg_mode -1: this kernel wherever gk__fwg_ok allows it (unless the
   environment has GPUKIT_ATTN_WGMMA=0); 0: never (src/ops/attention/flash.cu instead).
   gk__fwg_variant -1: gk__fwg_pick's choice, else that variant. Set by
   tests/test_attention.c and bench/bench_gemm.c (they include the
   implementation) to test and measure each; gk__fwg_launches counts launches. */
#define GK__FWG_NAMES(D, N) { "gk_fwg_" D "_" N "_0", "gk_fwg_" D "_" N "_1", "gk_fwg_" D "_" N "_2", "gk_fwg_" D "_" N "_3" }
static const char *const gk__k_fwg[2][2][4] = { { GK__FWG_NAMES("f16", "64"), GK__FWG_NAMES("f16", "128") },
                                                { GK__FWG_NAMES("bf16", "64"), GK__FWG_NAMES("bf16", "128") } };
#undef GK__FWG_NAMES
static int gk__fwg_mode = -1, gk__fwg_variant = -1;
static long gk__fwg_launches = 0;
/* Heads a tile group (the kernel's p.tile; flash_wg.cu's tile order): a
   group's q tiles run before the next group's, so the blocks resident
   together read a few heads' K / V, which stay in L2. 0: gk__fwg_group_for's
   choice; else forced (bench_gemm sweeps it; Hq * B gives the first order,
   every head at one q tile, which streamed K / V from DRAM) */
static int64_t gk__fwg_group = 0;
static int64_t gk__fwg_group_for(const gk__attn *p) { (void)p; return 1; }
/* the variant by head dim (bench/bench_gemm.c times all five): with the
   head-grouped tile order (0fa9251, H100, causal bf16 B8 H32 D128) variant 0
   ran S4096 at 585 TFLOP/s, 2 (3 stages) 580, 1 / 3 (pingpong) 560 / 547,
   4 (persistent) 497; at S1024 0 / 1 / 2 / 3 within 2% (318-324). D 64 is
   not measured apart and takes the same. */
static int gk__fwg_pick(int64_t D) { (void)D; return 0; }

/* Whether the wgmma attention takes this problem: f16 / bf16, head dim 64 or
   128, no mask and no per-sequence lengths, a positive scale (the kernel
   keeps unscaled row maxima), 16-byte aligned q, k, v with sequence, head and
   batch strides in multiples of 8 elements (TMA's 16-byte rules), out as
   flash.cu's (4-byte pairs), on a 9.0 device with cuTensorMapEncodeTiled,
   NVRTC able to target sm_90 (or a cached build) and the module not failed. */
static int gk__fwg_ok(gk_ctx *ctx, const gk__attn *p, gk_dtype dt) {
    static int env = -1;
    int i, nv = ctx->n_nvrtc_archs == 0;
    int64_t lim = (int64_t)1 << 30, big = (int64_t)1 << 38;
    if (gk__fwg_mode == 0) return 0;
    if (!gk__env_on("GPUKIT_ATTN_WGMMA", &env) || ctx->info.cc_major != 9 || ctx->info.cc_minor != 0 || (dt != GK_F16 && dt != GK_BF16) || !ctx->cu.TensorMapEncodeTiled) return 0;
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
   flash_wg.cu takes boxes of 128 rows, gk_attn_dec4's tensor-tile form 64. */
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
    int v = gk__fwg_variant >= 0 && gk__fwg_variant < 5 ? gk__fwg_variant : gk__fwg_pick(p->D), k = v == 4 ? 3 : v, stages = k >= 2 ? 3 : 2;
    int64_t tiles = (p->Sq + 127) / 128 * p->Hq * p->B;
    if (gk__fwg_map(ctx, &tm[0], dt, p->q, p->D, p->Sq, p->Hq, p->B, p->q_ss, p->q_hs, p->q_bs, 128) ||
        gk__fwg_map(ctx, &tm[1], dt, p->k, p->D, p->Skv, p->Hkv, p->B, p->k_ss, p->k_hs, p->k_bs, 128) ||
        gk__fwg_map(ctx, &tm[2], dt, p->v, p->D, p->Skv, p->Hkv, p->B, p->v_ss, p->v_hs, p->v_bs, 128))
        return GK__WG_DECLINED;
    p->tile = (int)GK__MIN(gk__fwg_group > 0 ? gk__fwg_group : gk__fwg_group_for(p), p->Hq * p->B);
    args[0] = &tm[0]; args[1] = &tm[1]; args[2] = &tm[2]; args[3] = p;
    g[0] = (unsigned)(v == 4 && tiles > ctx->info.sm_count ? ctx->info.sm_count : tiles); g[1] = 1; g[2] = 1;
    bl[0] = 384; bl[1] = 1; bl[2] = 1;
#ifdef GK__MOD_FLASH_WG
    st = gk__launch_cfg(ctx, GK__MOD_FLASH_WG, gk__k_fwg[dt == GK_BF16][p->D == 128][k], g, bl, (unsigned)(p->D / 64 * 16384 * (1 + 2 * stages) + 1280),
                        args, W);
    if (st != GK_OK && ctx->lib[GK__MOD_FLASH_WG].status != GK_OK) { ctx->err[0] = 0; return GK__WG_DECLINED; } /* module unavailable */
#else
    (void)W; (void)g; (void)bl; (void)args; (void)k; (void)stages; st = GK__WG_DECLINED;
#endif
    p->tile = 0; /* flash.cu / attention.cu read no group */
    if (st == GK_OK) gk__fwg_launches++;
    return st;
}

/* decode attention kernel: gk__dec_variant -1 (default) takes gk_attn_dec3 (tensor
   cores; D 64 / 128, at most 8 q heads a kv head) where it applies, and on 9.0+ devices
   gk_attn_dec4t from gk__dec4t_from keys of cache on (where its tensor maps build); 0
   always the shared-memory gk_attn_dec (tests and benchmarks compare them);
   gk__dec3_launches counts gk_attn_dec3 launches (tests check which ran) */
static int gk__dec_variant = -1;
/* the default's switch from gk_attn_dec3 to gk_attn_dec4t (9.0+), in keys of cache (the
   K / V views' sequence length); negative: never (gk_attention's decode comment has the
   measurements behind GK__DEC4T_FROM) */
#define GK__DEC4T_FROM 4096
static int64_t gk__dec4t_from = GK__DEC4T_FROM;
static long gk__dec3_launches = 0;
/* gk_attn_dec4 (sm_90+: K / V through a shared-memory ring filled by the copy engine):
   gk__dec_variant 4 selects it with one bulk copy a key row, 5 with 64 x 64 tiles
   through tensor maps (gk_attn_dec4t; where the driver builds the maps, else the row
   form), on 9.0+ devices; the default takes dec4t for long caches (gk__dec4t_from), never
   the row form.
   3 forces gk_attn_dec3. gk__dec4_stages is the ring depth (0: GK__DEC4_STAGES);
   gk__dec4_launches / gk__dec4t_launches count the launches (tests check which ran) */
#define GK__DEC4_STAGES 3
static int gk__dec4_stages = 0;
static long gk__dec4_launches = 0, gk__dec4t_launches = 0;
/* gk_attn_dec5 (sm_80+: each warp streams its own keys through a shared-memory ring
   with cp.async): gk__dec_variant 6 selects it; gk__dec4_stages is its ring depth too
   (0: GK__DEC5_STAGES, at most 8); gk__dec5_launches counts its launches */
#define GK__DEC5_STAGES 3
static long gk__dec5_launches = 0;
/* split sizing of gk_attn_dec4 / dec4t / dec5: at least gk__dec4_min_keys keys a split
   (0: GK__DEC4T_MIN_KEYS for dec4t, the 64-key granule for the others), splits for
   gk__dec4_blocks_sm blocks a SM (0: for dec4t one where that gives at least 4 splits a
   (b, kv head), else as many as are resident, as for the others). Benchmarks sweep both (gk_attention's decode comment has the numbers). */
#define GK__DEC4T_MIN_KEYS 256
static int64_t gk__dec4_min_keys = 0;
static int gk__dec4_blocks_sm = 0;
static int gk__dec3_per_sm = 2; /* splits sized for this many gk_attn_dec3 blocks a SM (2 are resident) */
/* gk_attn_dec3 (and gk_attn_dec4 when asked for) takes one split per (b, kv head),
   writing the output itself (no gk_attn_combine), when the cache holds at most this
   many keys; gk__dec3_direct counts those launches of either kernel (tests check both
   paths; bench_gemv sweeps the bound) */
static int64_t gk__dec3_one_split = 256;
/* gk_attn_combine's one-round form (at most 32 splits): 0 keeps the three-round form
   everywhere (bench_gemv compares the two) */
static int gk__combine_one_round = 1;
/* 64-key tiles of each split that gk_attn_dec3 / dec4t prefetch into L2 before their PDL
   wait (sm_90+, where the wait lets a kernel start while the previous ones drain; the
   kernels' gk_dec_hint_range): -1 each kernel's default, GK__DEC3_PREFETCH for dec3 and
   GK__DEC4T_PREFETCH for dec4t (gk_attention's decode comment has the sweeps); 0 none */
#define GK__DEC3_PREFETCH 2
#define GK__DEC4T_PREFETCH 1
static int gk__dec_prefetch = -1;
/* gk_attn_dec4t lets the next kernel launch (PDL) once its blocks have streamed their splits
   (1), not at its start (0, the default) */
static int gk__dec4_late = 0;
/* gk_attn_dec4t sized for one block a SM asks for more than half an SM's shared memory, so that
   no second block shares its SM (1, the default); 0 asks for what the ring needs (benchmarks
   compare the two) */
static int gk__dec4_pad = 1;
static long gk__dec3_direct = 0;
/* gk_attn_dec3 / dec4t combine their splits themselves (gk_dec_fold: each split publishes
   its result in words of gk__dec_slots, then polls for the other splits' words of its
   slice of the outputs; no gk_attn_combine launch) where the whole grid is resident at once
   and the words exist (1, the default); 0 always launches gk_attn_combine.
   gk__dec_fold_launches counts the launches that folded (tests check both paths) */
static int gk__dec_fold = 1;
static long gk__dec_fold_launches = 0;
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
    p.comb = gk__combine_one_round != 0;
    if (p.B == 0 || p.Sq == 0 || p.Hq == 0 || p.D == 0) goto fail; /* nothing to do: st is GK_OK */
    if ((st = gk__operands_use(ctx, &ops, W)) != GK_OK) { gk__operands_done(ctx, &ops, st); goto fail; }
    p.o = gk__slot_addr(so); p.q = gk__slot_addr(sq); p.k = gk__slot_addr(sk); p.v = gk__slot_addr(sv);
    if (im >= 0) p.mask = gk__slot_addr(ops.s[im]);
    if (iq >= 0) p.q_lens = gk__slot_addr(ops.s[iq]);
    if (ik >= 0) p.kv_lens = gk__slot_addr(ops.s[ik]);
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
               - gk_attn_dec3 (tensor cores; D 64 / 128, at most 8 q heads a kv head; the
                 default): blocks of 4 warps, each warp streaming its own 16-key blocks into
                 registers, 2 blocks a SM resident (at most 255 registers; the split count
                 is sized for gk__dec3_per_sm a SM), granule 64 keys (a 16-key block a warp).
               - gk_attn_dec (the rest): K / V tiles of 64 keys (32 above D 128) in two
                 shared-memory stages, as many blocks a SM as the shared memory holds,
                 granule 8 keys. (A minimum of one tile a split measured slower: batch-8
                 decode of the 0.5B shape went from 8164 to 6198 tok/s, batch 1 unchanged.)
               - a cache of at most gk__dec3_one_split (256) keys: gk_attn_dec3 in one split
                 per (b, kv head), writing the output itself, no combine launch (H100, graph
                 replay: 14 / 2 heads D 64 at 256 keys 4.56 against 6.20 us split; from 512
                 keys the splits win, e.g. 32 / 32 heads D 128: 9.2 against 12.1 us).
               Measured and not kept (H100, 8k-token cache, 32 / 8 heads D 128, graph replay,
               same cache / 16 rotated caches): the splits combined by the last block of each
               (b, kv head) to finish (arrival counters, gk__counters; no gk_attn_combine
               launch) 19.1 / 25.2 us against 15.2 / 21.2 us with gk_attn_combine (8 last
               blocks do the combine's work that 32 blocks share, after a __threadfence
               every block pays); with the split's keys also prefetched into L2 ahead of
               the warps (prefetch.global.L2, 128 to 1024 keys ahead) 21.3 to 26.4 us. A
               second last-block form (all G heads at once, float2 loads, 8 splits of
               loads in flight) was still behind: 16.4 / 21.8 against 15.5 / 21.0 us in
               the same run; gk_attn_combine's launch overlaps dec3's tail (programmatic
               dependent launch), so the second kernel costs little. Nor (8806f0d): the
               warp's two register sets of K / V taking turns in place of the copy of the
               next block's registers at the end of each 16-key block, 16.0 / 21.8 against
               15.1 / 20.7 us, and that with Q in shared memory (fewer spills at D 128),
               16.3 / 21.9 us; nor (a0126b3) one 16-key block in registers with 4 blocks a SM
               (128 registers, 100 bytes spilled) 22.9 / 26.9 us, or the two-block form at 3
               blocks a SM (168 registers, 192 bytes spilled) 24.1 / 25.6 us, against 15.1 /
               20.7. Nsight Compute on the rotated case (L2 flushed): dec3 19 us at
               57% of DRAM peak, 7.6 of 64 warps a SM active (254 registers, 2 blocks a SM),
               an instruction issued every 5 cycles a scheduler, most stalls waiting on the
               loads: the kernel is bound by its few warps' latency, and more warps need
               fewer registers than two 16-key blocks in flight take.
               - gk_attn_dec4 (gk__dec_variant 4, sm_90+) takes the loads off the warps: a
                 producer warp streams the split through a ring of 64-key stages in shared
                 memory, one cp.async.bulk a K or V row (256 bytes at D 128) into rows padded
                 for conflict-free ldmatrix, and 4 consumer warps do dec3's math from there.
                 Correct (test_attention and memcheck on the H100 at bf74910) but slower
                 everywhere: 8k cache 24.2 / 23.8 us (rotated / same cache, graph) against
                 20.6 / 15.1 for dec3; the 7B shape at 4k keys 37.9 against 30.2 us. The
                 same time from L2 as from DRAM, and the ring depth sweep (1, 2, 3, 4, 5, 6
                 stages: 26.3, 24.0, 24.2, 38.0, 38.2, 38.0 us, rotated), whose deep rings
                 leave one block and so one producer a SM, point at the copy engine's rate
                 of requests rather than the bytes in flight: from the times (not a
                 counter), about one 256-byte copy every 40 cycles a SM, 1.4 TB/s in all.
               - gk_attn_dec4t (gk__dec_variant 5; the default from GK__DEC4T_FROM keys, see the end): the same
                 ring filled with tiles of 64 keys x 64 dims through tensor maps built here
                 (cp.async.bulk.tensor, 128-byte swizzle, read back by ldmatrix with the
                 swizzle applied): 4 copies a stage at D 128 instead of 128. Splits sized for
                 one block a SM where that gives at least 4 a (b, kv head), else for the
                 resident blocks (2 a SM at D 128, 4 at D 64), and at least
                 GK__DEC4T_MIN_KEYS (256) keys; 3 stages. H100,
                 graph replay, 16 rotated caches (86e24df), against dec3: 8k cache 32 / 8
                 heads D 128 17.3 us (16 splits of 512 keys) against 20.8 (65% of copy
                 against 54%); the 7B shape at 4k keys 27.0 against 30.3 (4 splits of 1024);
                 batch 8 at 1k keys 32 / 32 heads (one split) 46.1 against 50.7 (98% of
                 copy); Qwen2.5-0.5B's 14 / 2 heads D 64 at 32k keys 15.5 against 22.3 (64
                 splits of 512) and at 4k 7.4 against 11.9 (16 of 256); 32 / 8 heads D 64 at
                 8k 11.2 against 13.7; batch 8 at 2k keys 32 / 8 heads D 64 16.8 against 18.1
                 (8 splits of 256: one block a SM would give 2 splits of 1024, 18.3 us,
                 638f67a). The split rule is from the sweep there (stages 3 / 4 /
                 6 x at least 0 / 256 / 512 / 1024 keys a split x 1 / 2 blocks a SM): splits
                 for as many blocks as are resident (2 a SM at D 128, 4 at D 64) were slower
                 everywhere, most at D 64 (32k keys 32.3 us: 256 splits of 2 stages each, all
                 pipeline fill); deeper rings changed little (8k D 128: 17.7 us at 4 or 6
                 stages). The final run (c0d433c, another H100, same-run ratios): 8k cache
                 D 128 16.3 against 19.6 us (69 / 57% of copy), 7B shape 26.2 against 30.0,
                 0.5B shape at 32k 12.6 against 16.5. The fixed cost of a split decode
                 (512 keys, 2 MiB): 6.0 us at 86e24df (dec3
                 7.9): were it paid in series with the streaming, an 8k cache at 75% of
                 copy (14.9 us) would leave under 9 us for 33.5 MB, above the copy rate.
                 The same bytes summed by two gk_reduce calls (bench_gemv's two_reduces
                 rows, named read_floor in the JSON of 86e24df .. 173d838) took 23.5 us: no
                 floor, a plain streaming-read kernel would be one. Until the splits combined
                 themselves (below) it was not the default: inside a model's decode step it lost.
                 bench_llm --b1-only, H100 (5f7e86e), random-weight Qwen2.5-0.5B / Llama-3.2-1B
                 shapes, 128 tokens after a 1k / 8k / 16k prompt, tok/s against dec3: this
                 rule 0.90 / 1.00 / 0.99 and 0.96 / 0.96 / 0.94; granule splits as resident
                 0.91 / 0.96 / 0.95 and 0.99 / 0.98 / 0.99; no form won anywhere. The loss is
                 in programmatic dependent launch (81cdd9c): with GPUKIT_PDL=0 dec4t is ahead
                 after 16k prompts (976 against 911 tok/s, 0.5B shape) and even after 1k, but
                 PDL lifts dec3 more (1123 to 1417 tok/s after 1k) than dec4t (1110 to 1262).
                 Why is not measured (its 99 KB of shared memory and one block a SM against
                 dec3's 17 KB may keep its neighbours off its SMs).
               - gk_attn_dec5 (gk__dec_variant 6, sm_80+): dec3's work split with each warp
                 streaming its own keys through a ring in shared memory with cp.async (no
                 registers held by loads in flight: 122 at D 128). Correct, and no faster
                 than dec3 (86e24df, 8k D 128: 19.4 us at 4 stages, 20.2 at 3, against 20.8;
                 the D 64 shapes slower); kept as the one ring form that runs before 9.0.
               - Before the PDL wait, dec3 and dec4t may prefetch the first p.pf 64-key tiles of
                 their split into L2 (gk__dec_prefetch; gk_dec_hint_range). H100, graph replay,
                 16 rotated caches (8b6d7f9): dec3 at 8k keys 32 / 8 heads D 128 takes 19.7 us
                 with none, 18.1 with 2 tiles (GK__DEC3_PREFETCH, the default), 17.6 with 4; 2
                 tiles were as fast or faster at every LLM shape of bench_gemv's sweep, 4 and
                 more slower at D 64 (8k keys 11.8 against 11.5) and batch 8 (8 tiles 53.0
                 against 50.8). Model decode (Qwen2.5-0.5B shape, after 1k / 8k prompts): 1415 /
                 1122 tok/s against 1399 / 1124 without, noise. dec4t gained nothing then (1 tile 16.2
                 us as without; 2 / 4 / 8 tiles 16.9 / 18.8 / 21.6), so its default was none
                 (one tile since 1f87c96, see the end); nor from launching its dependents once its blocks have streamed their splits
                 (gk__dec4_late: 17.9 against 16.2 us at 8k; 5.95 against 6.60 at the 0.5B
                 shape's 4k keys). Measured and not kept (a tree on a9c4236): dec4t's splits of a
                 (b, kv head) as one thread-block cluster of up to 16 (non-portable size),
                 merged through distributed shared memory with no gk_attn_combine launch:
                 correct, but 19.6 / 16.6 us against 16.4 / 10.2 at 8k (rotated / same cache),
                 33.2 against 26.3 at the 7B shape's 4k, 7.7 against 6.6 at 512 keys.
               - Where dec4t's 16.2 us at 8k go (Nsight Compute, kernels one at a time, caches and
                 clocks left alone; 8k cache from DRAM, bench_gemv --attn-diag): dec4t alone 16.7
                 to 19.7 us a launch, its busiest SM active 13.6 to 16.2 us and the average SM
                 12.3 to 14.7 (4 of 132 SMs idle: 128 blocks); gk_attn_combine 3.8 to 4.3 us a
                 launch, 1.8 to 2.2 us on its busiest SM for 266 KB of partials. So of the 16.2
                 us a call in graph replay about 13.7 are dec4t's busiest SM (inferred, not one
                 timeline): the average SM streams at 2.7 TB/s (3.0 for a copy), the spread
                 between SMs is about 1.3 us, and about 2.5 us are the combine and the two
                 kernel boundaries that PDL does not hide. Measured and not kept (a tree
                 on 2cf2c93): dec4t's splits merged by the last block of each (b, kv head) (arrival
                 counters, a __threadfence a block, the partials read back from L2 with every load
                 in flight), no gk_attn_combine launch: correct (test_attention on the H100) but
                 slower everywhere: 8k 19.2 against 16.5 us, 7B shape 29.8 against 26.4, 0.5B
                 shape at 4k 7.2 against 6.6, 512 keys 7.7 against 6.6; model decode (0.5B shape,
                 1k / 8k prompt) 1167 / 1104 tok/s against 1238 / 1110 with the combine kernel.
               - Where it goes, measured (H100, 8k, graph replay, 16 rotated caches; experiment trees
                 on bcff790, not kept): with its consumers doing no math, dec4t + combine took 15.3
                 against 16.2 us; with no combine at all, 16.5 us (PDL already hides the combine
                 behind dec4t) and 14.7 us once dec4t asks for more than half an SM's shared memory
                 (gk__dec4_pad): with room for two blocks an SM, the next kernel's blocks, launched
                 early by PDL, take the free slots and double up on some SMs. So dec4t itself streams
                 at 76% of copy; what sits between it and the next dec4t costs 1.7 us. The pad is
                 kept (direct calls at 8k 18.1 against 18.5 / 19.1 us, 32k keys D 64 14.1 against
                 14.6 / 14.8; graph replay the same or better). A combine folded into dec4t by one
                 extra block a (b, kv head) taking the splits' partials in turn as each flags it
                 done was correct but took 45 us (a dependent round of L2 latency a split).
               - A timeline (H100 / H200, graph replay; %globaltimer written by every block of an
                 experiment tree, bench/experiments/dec4t-trace-fold-20261127.diff; README eleventh
                 round): the cache streams at about the copy rate until dec4t's consumers are done
                 (12.4 us after the PDL release on the H100), then DRAM idles about 4 us: the split
                 merge, gk_attn_combine (1.8 us after dec4t, 3.2 after dec3, most of it its one round
                 of loads, in proportion to the loads a thread) and two grid boundaries. The
                 combine folded into dec4t (the last split to count in merges, a bulk copy of the
                 partials) was correct but no faster in graph replay (16.4 against 16.4 us at 8k),
                 faster in direct calls (17.1 against 18.4), slower at small caches (512 keys 7.1
                 against 6.1). Not kept.
               - The splits combine themselves (gk__dec_fold, src/ops/attention/attention.cu gk_dec_fold; README
                 twelfth round): where the grid is one wave (cuOccupancyMaxActiveBlocksPerMultiprocessor
                 over the SMs), dec3 / dec4t publish each split's {o / l, log-sum-exp} as 64-bit words
                 (gk__dec_slots) and each split polls and merges its slice of the outputs; no
                 gk_attn_combine. An arrival counter before the loads was no faster than the combine
                 kernel (H100, 8k, dec4t 16.9 against 16.4 us); words that carry their own presence
                 and an epilogue without divisions or exp chains were. H100, graph replay, 16 rotated
                 caches, against gk_attn_combine (1f87c96): dec4t at 8k 14.97 against 15.75 us (one
                 tile of L2 prefetch, now its default GK__DEC4T_PREFETCH: about 0.55 us either way,
                 folded 15.54 to 14.97, combined 16.33 to 15.75; the eighth round's sweep, which found
                 no gain, predates gk__dec4_pad), 0.5B shape at 4k 5.58 against 6.18, 32k keys D 64 10.67
                 against 12.26, 512 keys 6.20 against 6.25; dec3 at 8k 18.35 against 18.27, 512 keys
                 6.16 against 7.53, 0.5B shape at 4k 7.12 against 8.57.
               - The default's switch to dec4t (GK__DEC4T_FROM, 4096 keys of cache, 9.0+): dec4t with
                 its splits folded is ahead of dec3 alone from 4k keys (above) and behind at 512 (6.20
                 against 6.16); in model decode (bench_llm --b1-only, H100, 128 tokens, 4cb28f0) the
                 default went from dec3 + combine to this rule: 0.5B shape after 1k / 8k prompts 1400
                 to 1473 / 1148 to 1349 tok/s, 1B shape 839 to 858 / 796 to 792; after 1k prompts
                 dec4t folded took 1434 / 862 against 1458 / 855 for dec3 folded (1f87c96), so dec3
                 stays below the switch. 8k cache, 32 / 8 heads, D 128 with the default (cb12f54):
                 14.79 / 14.83 us, 75.3 / 75.1% of copy. */
            static const char *const k3[2][2] = { { "gk_attn_dec3_f16_64", "gk_attn_dec3_f16_128" }, { "gk_attn_dec3_bf16_64", "gk_attn_dec3_bf16_128" } };
            static const char *const k4[2][2] = { { "gk_attn_dec4_f16_64", "gk_attn_dec4_f16_128" }, { "gk_attn_dec4_bf16_64", "gk_attn_dec4_bf16_128" } };
            static const char *const k4t[2][2] = { { "gk_attn_dec4t_f16_64", "gk_attn_dec4t_f16_128" },
                                                   { "gk_attn_dec4t_bf16_64", "gk_attn_dec4t_bf16_128" } };
            void *targs[3];
            const int tc = (p.D == 64 || p.D == 128) && G <= 8;
            unsigned char mbuf[2 * sizeof(gk__cu_tensormap) + 64];
            gk__cu_tensormap *tm = (gk__cu_tensormap *)(void *)(mbuf + ((64 - ((uintptr_t)mbuf & 63)) & 63));
            /* gk_attn_dec4t when asked for (5); tiles: the tensor maps of K and V were built (else the row copies of
               gk_attn_dec4) */
            const int want4t = tc && ctx->info.cc_major >= 9 &&
                               (gk__dec_variant == 5 || (gk__dec_variant == -1 && gk__dec4t_from >= 0 && p.Skv >= gk__dec4t_from));
            const int tiles = want4t && ctx->cu.TensorMapEncodeTiled && p.Skv < ((int64_t)1 << 31) &&
                              !gk__fwg_map(ctx, &tm[0], sq->dtype, p.k, p.D, p.Skv, p.Hkv, p.B, p.k_ss, p.k_hs, p.k_bs, 64) &&
                              !gk__fwg_map(ctx, &tm[1], sq->dtype, p.v, p.D, p.Skv, p.Hkv, p.B, p.v_ss, p.v_hs, p.v_bs, 64);
            const int d4 = tc && ctx->info.cc_major >= 9 && (gk__dec_variant == 4 || gk__dec_variant == 5 || tiles);
            const int d5 = tc && ctx->info.cc_major >= 8 && gk__dec_variant == 6;
            const int d3 = tc && !d4 && !d5 && gk__dec_variant != 0;
            int64_t bh = p.B * p.Hkv, C = p.D <= 128 ? 64 : 32, gran = d3 || d4 || d5 ? 64 : 8, slots, chunk, smem = 0;
            int direct;
            const char *kn;
            if (d4) {
                /* stages of 64 keys (16 a consumer warp) of K and V, rows padded by 16 bytes,
                   then a full and an empty barrier a stage; as many blocks a SM as that fits */
                const int64_t stages = gk__dec4_stages > 0 ? gk__dec4_stages : GK__DEC4_STAGES;
                int per_sm = 1;
                gk__cu_function f4; /* (the launch looks it up again: both are cached lookups) */
                /* rows padded by 16 bytes; tensor tiles unpadded (swizzled) in a ring aligned to 1 KiB */
                smem = tiles ? stages * 2 * 64 * 2 * p.D + 1024 + 16 * stages : stages * 2 * 64 * (2 * p.D + 16) + 16 * stages;
                kn = tiles ? k4t[sq->dtype == GK_BF16][p.D == 128] : k4[sq->dtype == GK_BF16][p.D == 128];
                st = gk__occupancy(ctx, GK__MOD_ATTENTION, kn, 160, (unsigned)smem, &per_sm, &f4, W);
                if (gk__dec4_blocks_sm > 0 && gk__dec4_blocks_sm < per_sm) per_sm = gk__dec4_blocks_sm;
                else if (gk__dec4_blocks_sm == 0 && tiles && (int64_t)ctx->info.sm_count / bh >= 4) {
                    per_sm = 1; /* gk_attn_dec4t: splits for one block a SM, where that still gives 4 a (b, kv head) */
                    /* and no room for a second block on an SM (gk__dec4_pad; half the per-block opt-in
                       maximum, which is an SM's shared memory less 1 KiB): with room for two, the blocks
                       of the next kernel, launched early by PDL, take the free slots and double up on some
                       SMs when it runs (see gk_attention's decode comment) */
                    if (gk__dec4_pad && smem <= (int64_t)ctx->info.max_smem_per_block_optin / 2)
                        smem = (int64_t)ctx->info.max_smem_per_block_optin / 2 + 1024;
                }
                slots = (int64_t)ctx->info.sm_count * GK__MAX(per_sm, 1);
                p.tile = (int)stages;
                p.pf = !tiles ? 0 : gk__dec_prefetch < 0 ? GK__DEC4T_PREFETCH : gk__dec_prefetch;
                p.late = tiles && gk__dec4_late;
            } else if (d5) {
                /* 4 warps, each a ring of stages x 16 keys of K and V in rows padded by 16 bytes */
                static const char *const k5[2][2] = { { "gk_attn_dec5_f16_64", "gk_attn_dec5_f16_128" }, { "gk_attn_dec5_bf16_64", "gk_attn_dec5_bf16_128" } };
                const int64_t stages = gk__dec4_stages > 0 ? GK__MIN(gk__dec4_stages, 8) : GK__DEC5_STAGES;
                int per_sm = 1;
                gk__cu_function f5;
                smem = 4 * stages * 2 * 16 * (2 * p.D + 16);
                kn = k5[sq->dtype == GK_BF16][p.D == 128];
                st = gk__occupancy(ctx, GK__MOD_ATTENTION, kn, 128, (unsigned)smem, &per_sm, &f5, W);
                if (gk__dec4_blocks_sm > 0 && gk__dec4_blocks_sm < per_sm) per_sm = gk__dec4_blocks_sm;
                slots = (int64_t)ctx->info.sm_count * GK__MAX(per_sm, 1);
                p.tile = (int)stages;
            } else if (d3) {
                int per_sm = 1;
                gk__cu_function f3;
                kn = k3[sq->dtype == GK_BF16][p.D == 128];
                /* (at most as many a SM as are resident: 2 at 254 registers, __launch_bounds__(128, 2)) */
                st = gk__occupancy(ctx, GK__MOD_ATTENTION, kn, 128, 0, &per_sm, &f3, W);
                slots = (int64_t)ctx->info.sm_count * GK__MAX(GK__MIN(gk__dec3_per_sm, per_sm), 1);
                p.tile = 16;
                p.pf = gk__dec_prefetch < 0 ? GK__DEC3_PREFETCH : gk__dec_prefetch;
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
                const int64_t mk = gk__dec4_min_keys > 0 ? gk__dec4_min_keys : tiles ? GK__DEC4T_MIN_KEYS : 0; /* the fewest keys a split */
                if ((d4 || d5) && mk > gran) p.splits = (int)GK__MAX(GK__MIN((int64_t)p.splits, (p.Skv + mk - 1) / mk), (int64_t)1);
            }
            if ((d3 || d4 || d5) && p.Skv <= gk__dec3_one_split) p.splits = 1;
            chunk = GK__MAX(((p.Skv + p.splits - 1) / p.splits + gran - 1) / gran * gran, gran);
            p.splits = (int)GK__MAX((p.Skv + chunk - 1) / chunk, (int64_t)1);
            p.chunk = (int)GK__MIN(chunk, (int64_t)2147483647);
            if (chunk > 2147483647) st = gk__err(ctx, GK_ERR_LIMIT, "%s: a cache of %lld keys is too long", W, (long long)p.Skv);
            if (p.Hkv > 65535 || p.B > 65535) st = gk__err(ctx, GK_ERR_LIMIT, "%s: %lld kv heads or batch %lld above 65535", W, (long long)p.Hkv, (long long)p.B);
            direct = (d3 || d4 || d5) && p.splits == 1;
            if (st == GK_OK && !direct && gk__dec_fold && (d3 || tiles) && bh * p.splits <= slots) {
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
            bl[0] = d4 ? 160 : 128; bl[1] = 1; bl[2] = 1; /* gk_attn_dec4: 4 consumer warps and a producer */
            args[0] = &p;
            /* both kernels wait for their predecessor (gk_pdl_wait) before they read anything:
               programmatic dependent launch (sm_90+) overlaps their start with its tail. Splits
               past a sequence's kv_len return at once and the combine skips them. */
            targs[0] = &tm[0]; targs[1] = &tm[1]; targs[2] = &p; /* gk_attn_dec4t(tk, tv, p) */
            if (st == GK_OK) st = gk__launch_ex(ctx, GK__MOD_ATTENTION, kn, g, bl, (unsigned)smem, tiles ? targs : args, GK__LAUNCH_PDL, W);
            if (st == GK_OK && d3) gk__dec3_launches++;
            if (st == GK_OK && d4 && !tiles) gk__dec4_launches++;
            if (st == GK_OK && tiles) gk__dec4t_launches++;
            if (st == GK_OK && d5) gk__dec5_launches++;
            if (st == GK_OK && direct) gk__dec3_direct++;
            g[0] = (unsigned)rows; g[1] = 1;
            bl[0] = p.D > 96 ? 128u : (unsigned)((p.D + 31) / 32 * 32); /* the combine's launch bound */
            if (st == GK_OK && p.slot) gk__dec_fold_launches++;
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

