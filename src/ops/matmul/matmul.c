/* >>matmul_dispatch: the matmul dispatcher, gk_matmul / gk_linear / gk_linear_glu */
/* The dispatcher. GEMV (decode) when A has at most 8 rows, B is a [N, K]
   weight (column-major op(B)) and both are 16-byte aligned with K a multiple
   of the vector width: it reads each weight once. Else cuBLASLt for
   f16/bf16/f32/f64 when loaded (AUTO; its wgmma kernels are what gpukit's own
   are measured against; bench/bench_gemm.c), else gpukit's GEMM
   (GK__MM_GEMM), which is, in gk__matmul:
   - gemm_wg (src/ops/matmul/gemm_wg.cu; gk__wg_ok / gk__wg_launch): compute
     capability 9.0 (the module is built for sm_90a), f16 / bf16 / tf32, gemm_tc's
     alignment rules (which are TMA's), every layout, batch, epilogue and
     output dtype; wgmma fed by TMA through an mbarrier pipeline, 128x256 or
     128x128 tiles, persistent grid. Off with GPUKIT_GEMM_WGMMA=0 in the
     environment; any failure to build its tensor maps or its module falls
     back to gemm_tc. At 4096^3 and 8192^3 it runs within about 10% of
     PyTorch and several times gemm_tc (docs/perf-log.md).
     tf32 (f32 with allow_tf32): K-major operands only (tf32 wgmma has no
     transpose bits), so an M-major A / N-major B is first transposed into
     K-major scratch from gk__workspace (gk_wg_tr32, same stream); with that
     transpose it stays within about 10% of cuBLASLt (docs/perf-log.md).
   - gemm_tc (src/ops/matmul/gk_gemm_tc.cuh; gk__tc_ok / gk__tc_launch): sm_80+,
     f16 / bf16, or f32 with allow_tf32 (TF32, m16n8k8); A and B 16-byte
     aligned with leading and batch strides multiples of 16 bytes (any M, N,
     K; any of the NN / NT / TN / TT layouts; batches; every epilogue and
     output dtype). Tile 128x256 (1 block / SM), or 128x128 (2 blocks / SM)
     when 128x256 tiles would not cover the SMs; tf32 128x128. On 9.0 it is
     far behind gemm_wg and cuBLASLt (docs/perf-log.md), so there it runs
     only where gemm_wg declines.
   - exact f32 (no TF32; src/ops/matmul/gemm_f32.cu; gk__sg_ok / gk__sg_launch):
     any arch; A and B 16-byte aligned with leading and batch strides
     multiples of 4 elements, row- or column-major each (NN / NT / TN / TT),
     any M, N, K (edges predicated), batches, every epilogue, f32 / f16 /
     bf16 out. 128x128 block tiles, k tile 8, 8x8 per thread, double-buffered
     shared memory, one barrier per k tile; 1D grid grouped by 8 tile rows.
     bench_gemm --f32 times it and its two k tiles (tune.sg_variant) next to
     cuBLASLt and PyTorch (docs/perf-log.md).
   - else the SIMT kernel (f64, f32 with misaligned or odd strides).
   backend GPUKIT forces gpukit's GEMV / GEMM; CUBLASLT forces cuBLASLt. */
enum { GK__MM_CPU = 0, GK__MM_GEMV, GK__MM_GEMM, GK__MM_LT };
static int gk__matmul_plan(gk_ctx *ctx, const gk__mm *p, int64_t batch, gk_dtype dt, gk_dtype odt, gk_matmul_backend be) {
    int vec = dt == GK_F32 ? 4 : 8;
    if (ctx->backend == GK_BACKEND_CPU) return GK__MM_CPU;
    if (be != GK_MATMUL_CUBLASLT && batch == 1 && p->M <= 8 && dt != GK_F64 && odt == dt && p->b_rs == 1 && p->a_cs == 1 &&
        p->K % vec == 0 && (p->b_cs * (int64_t)gk__dtype_sizes[dt]) % 16 == 0 && (p->a_rs * (int64_t)gk__dtype_sizes[dt]) % 16 == 0 &&
        ((p->a | p->b) & 15) == 0)
        return GK__MM_GEMV;
    if (be == GK_MATMUL_GPUKIT) return GK__MM_GEMM;
    if (ctx->info.has_cublaslt && (odt == dt || (odt == GK_F32 && dt != GK_F64))) return GK__MM_LT;
    return GK__MM_GEMM;
}

static gk_status gk__matmul(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b, const gk_matmul_desc *desc, int linear, const char *W) {
    const char *names[5] = { "out", "a", "b", "bias", "residual" };
    gk_tensor ts[5];
    gk__opnds ops;
    gk__slot *so, *sa, *sb;
    gk__mm p;
    gk_matmul_desc d;
    int64_t batch, M, N, K, tmp;
    int n = 3, plan, ib = -1, ir = -1;
    gk_status st;
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    ts[0] = out; ts[1] = a; ts[2] = b;
    if (d.bias.id) { ib = n; ts[n++] = d.bias; }
    if (d.residual.id) { ir = n; names[n] = "residual"; ts[n++] = d.residual; }
    GK__ENTER(ctx, W);
    memset(&p, 0, sizeof p);
    st = gk__operands(ctx, &ops, ts, names, n, W);
    if (st != GK_OK) goto done;
    so = ops.s[0]; sa = ops.s[1]; sb = ops.s[2];
    if (d.act < GK_ACT_NONE || d.act > GK_ACT_RELU || d.backend < GK_MATMUL_AUTO || d.backend > GK_MATMUL_CUBLASLT) {
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: invalid act %d or backend %d", W, (int)d.act, (int)d.backend);
        goto done;
    }
    if (sa->dtype != sb->dtype || (sa->dtype != GK_F32 && sa->dtype != GK_F64 && sa->dtype != GK_F16 && sa->dtype != GK_BF16)) {
        st = gk__err(ctx, GK_ERR_DTYPE, "%s: a is %s and b is %s; they must be one of f32, f64, f16, bf16", W, gk_dtype_name(sa->dtype), gk_dtype_name(sb->dtype));
        goto done;
    }
    if (!(so->dtype == sa->dtype || (so->dtype == GK_F32 && sa->dtype != GK_F64) ||
          (gk_dtype_is_float(so->dtype) && so->dtype <= GK_BF16 && sa->dtype != GK_F64 && so->dtype != GK_F64))) {
        st = gk__err(ctx, GK_ERR_DTYPE, "%s: out is %s but a and b are %s", W, gk_dtype_name(so->dtype), gk_dtype_name(sa->dtype));
        goto done;
    }
    if (d.allow_tf32 && sa->dtype != GK_F32) {
        st = gk__err(ctx, GK_ERR_DTYPE, "%s: allow_tf32 applies to f32 inputs, not %s", W, gk_dtype_name(sa->dtype));
        goto done;
    }
    if (linear) {
        /* x [.., K] flattened to [M, K]; w [N, K] used as its transpose */
        int64_t rows = 1;
        int i;
        if (sa->ndim < 1 || sb->ndim != 2 || so->ndim != sa->ndim) {
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: x must be [.., K], w [N, K] and out [.., N] (ndims %d, %d, %d)", W, sa->ndim, sb->ndim, so->ndim);
            goto done;
        }
        for (i = 0; i < sa->ndim - 1; i++) {
            if (so->shape[i] != sa->shape[i]) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: out's leading dims differ from x's", W); goto done; }
            rows *= sa->shape[i];
        }
        /* rows must be one stride apart */
        for (i = 0; i + 1 < sa->ndim - 1; i++)
            if (sa->shape[i] > 1 && sa->strides[i] != sa->strides[i + 1] * sa->shape[i + 1]) break;
        if (i + 1 < sa->ndim - 1 || sa->strides[sa->ndim - 1] != 1 || so->strides[so->ndim - 1] != 1) {
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: x and out need contiguous rows (use gk_contiguous)", W);
            goto done;
        }
        batch = 1; M = rows; K = sa->shape[sa->ndim - 1]; N = linear == 2 ? sb->shape[0] / 2 : sb->shape[0];
        if (linear == 2 && (sb->shape[0] % 2 != 0 || d.beta != 0)) {
            st = gk__err(ctx, sb->shape[0] % 2 ? GK_ERR_SHAPE : GK_ERR_INVALID_ARGUMENT, "%s: %s", W,
                         sb->shape[0] % 2 ? "w must have an even number of rows ([gate; up])" : "beta must be 0");
            goto done;
        }
        if (sb->shape[1] != K || so->shape[so->ndim - 1] != N) {
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: x has K = %lld, w is [%lld, %lld], out's last dim %lld", W, (long long)K,
                         (long long)sb->shape[0], (long long)sb->shape[1], (long long)so->shape[so->ndim - 1]);
            goto done;
        }
        p.a_rs = sa->ndim >= 2 ? sa->strides[sa->ndim - 2] : K; p.a_cs = 1;
        if (M == 1) p.a_rs = K;
        p.b_rs = sb->strides[1]; p.b_cs = sb->strides[0]; /* op(B)[k, n] = w[n, k] */
        if (p.b_rs != 1 && p.b_cs != 1) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: w must be contiguous in one dim", W); goto done; }
        p.o_rs = so->ndim >= 2 ? so->strides[so->ndim - 2] : N;
        if (M == 1) p.o_rs = N;
    } else {
        if (sa->ndim < 2 || sa->ndim > 3 || sb->ndim < 2 || sb->ndim > 3) {
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: a and b must be 2-d or 3-d (ndims %d, %d)", W, sa->ndim, sb->ndim);
            goto done;
        }
        M = sa->shape[sa->ndim - 2]; K = sa->shape[sa->ndim - 1]; N = sb->shape[sb->ndim - 1];
        batch = sa->ndim == 3 ? sa->shape[0] : 1;
        if (sb->ndim == 3 && sb->shape[0] != 1) {
            if (batch != 1 && batch != sb->shape[0]) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: batch sizes %lld and %lld differ", W, (long long)batch, (long long)sb->shape[0]); goto done; }
            batch = sb->shape[0];
        }
        if (sb->shape[sb->ndim - 2] != K) {
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: inner dimensions differ: a is [.., %lld, %lld], b is [.., %lld, %lld]", W, (long long)M,
                         (long long)K, (long long)sb->shape[sb->ndim - 2], (long long)N);
            goto done;
        }
        if (so->ndim != (batch > 1 || sa->ndim == 3 || sb->ndim == 3 ? 3 : 2) || so->shape[so->ndim - 2] != M || so->shape[so->ndim - 1] != N ||
            (so->ndim == 3 && so->shape[0] != batch)) {
            char sh[160];
            gk__shape_str(so, sh, sizeof sh);
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: out is %s but the product is [%s%lld, %lld]", W, sh, so->ndim == 3 || batch > 1 ? "batch, " : "",
                         (long long)M, (long long)N);
            goto done;
        }
        if ((st = gk__mat_strides(ctx, sa, &p.a_rs, &p.a_cs, &p.a_bs, "a", W)) != GK_OK) goto done;
        if ((st = gk__mat_strides(ctx, sb, &p.b_rs, &p.b_cs, &p.b_bs, "b", W)) != GK_OK) goto done;
        if ((st = gk__mat_strides(ctx, so, &p.o_rs, &tmp, &p.o_bs, "out", W)) != GK_OK) goto done;
        if (tmp != 1) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: out must be row-major", W); goto done; }
        if (so->ndim == 3 && batch == 1) p.o_bs = 0;
    }
    if (ib >= 0) {
        gk__slot *s = ops.s[ib];
        if (s->ndim != 1 || s->shape[0] != (linear == 2 ? 2 * N : N) || s->strides[0] != 1 || !gk_dtype_is_float(s->dtype) || s->dtype > GK_BF16) {
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: bias must be a contiguous float vector of %lld elements", W, (long long)(linear == 2 ? 2 * N : N));
            goto done;
        }
        p.bias_dt = s->dtype;
    }
    if (ir >= 0) {
        gk__slot *s = ops.s[ir];
        int same = s->ndim == so->ndim, i;
        for (i = 0; same && i < s->ndim; i++) same = s->shape[i] == so->shape[i];
        if (!same || s->strides[s->ndim - 1] != 1 || !gk_dtype_is_float(s->dtype) || s->dtype > GK_BF16) {
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: residual must be a float tensor shaped like out, rows contiguous", W);
            goto done;
        }
        p.r_rs = s->ndim >= 2 ? s->strides[s->ndim - 2] : N;
        p.r_bs = s->ndim == 3 ? s->strides[0] : 0;
        if (linear) { p.r_rs = N; p.r_bs = 0; if (s->ndim >= 2 && !gk__is_contig(s)) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: residual must be contiguous", W); goto done; } }
        p.res_dt = s->dtype;
    }
    if (linear && !gk__is_contig(so)) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: out must be contiguous", W); goto done; }
    if (linear && M > 1 && !gk__is_contig(sa) && sa->ndim > 2) { st = gk__err(ctx, GK_ERR_SHAPE, "%s: x must be contiguous", W); goto done; }
    p.M = M; p.N = N; p.K = K;
    p.alpha = d.alpha == 0 ? 1.0 : d.alpha;
    p.beta = d.beta;
    p.act = d.act;
    if (M == 0 || N == 0 || batch == 0) goto done;
    if ((st = gk__operands_use(ctx, &ops, W)) != GK_OK) goto done;
    p.o = gk__slot_addr(so); p.a = gk__slot_addr(sa); p.b = gk__slot_addr(sb);
    if (ib >= 0) p.bias = gk__slot_addr(ops.s[ib]);
    if (ir >= 0) p.res = gk__slot_addr(ops.s[ir]);
    if (K == 0) { p.a = p.b; } /* the product is 0: the epilogue still runs */
    plan = gk__matmul_plan(ctx, &p, batch, sa->dtype, so->dtype, d.backend);
    if (K == 0 && plan == GK__MM_LT) plan = GK__MM_GEMM; /* nothing to multiply: gpukit's epilogue */
    if (d.backend == GK_MATMUL_CUBLASLT && plan != GK__MM_LT && plan != GK__MM_CPU) {
        st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: cuBLASLt %s for %s -> %s", W, ctx->info.has_cublaslt ? "has no path" : "is not loaded",
                     gk_dtype_name(sa->dtype), gk_dtype_name(so->dtype));
    } else if (linear == 2 && plan != GK__MM_GEMV && !(plan == GK__MM_CPU && M <= 8)) {
        st = GK__NEED_SCRATCH; /* gk_linear_glu takes the two-step path (both backends alike); no error recorded */
    } else if (plan == GK__MM_CPU) {
        gk__mm_cpu c;
        c.m = p; c.batch = batch; c.dt = sa->dtype; c.odt = so->dtype; c.glu = linear == 2;
        if (ctx->prof) gk__mm_note(ctx, &p, batch, sa->dtype, so->dtype, linear == 2);
        st = gk__cpu_run(ctx, gk__matmul_cpu, &c, sizeof c, W);
    } else if (plan == GK__MM_GEMV) {
        /* programmatic dependent launch (sm_90+): the GEMV kernels issue their first
           weight loads, then wait for the previous kernel (gk_pdl_wait), so a block's
           start and its first DRAM round trip overlap the previous kernel's tail */
        void *args[1];
        unsigned g[3], bl[3];
        args[0] = &p;
        int cfg = gk__gemv_cfg(&ctx->tune, K / (16 / (int64_t)gk__dtype_sizes[sa->dtype]), M, sa->dtype, (N + (linear == 2 ? 1 : 3)) / (linear == 2 ? 2 : 4),
                               ctx->info.sm_count, linear == 2);
        int mri = M <= 1 ? 0 : M <= 2 ? 1 : M <= 4 ? 2 : 3;
        g[1] = 1; g[2] = 1; bl[1] = 1; bl[2] = 1;
        if (ctx->prof) gk__mm_note(ctx, &p, 1, sa->dtype, so->dtype, linear == 2);
        if (cfg >= GK__GEMV_NCFG) { /* tensor cores: 16 output columns a block */
            g[0] = (unsigned)((N + 15) / 16);
            bl[0] = (unsigned)(32 * gk__gemvtc_warps[cfg - GK__GEMV_NCFG]);
            st = gk__launch_ex(ctx, GK__MOD_GEMM, gk__k_gemvtc[sa->dtype][linear == 2][cfg - GK__GEMV_NCFG], g, bl, 0, args, GK__LAUNCH_PDL, W);
        } else {
            int rows = gk__gemv_cfgs[cfg][2] / (linear == 2 ? 2 : 1);
            g[0] = (unsigned)((N + rows - 1) / rows);
            bl[0] = (unsigned)gk__gemv_cfgs[cfg][0];
            st = gk__launch_ex(ctx, GK__MOD_GEMM, gk__k_gemv[sa->dtype][linear == 2][mri][cfg], g, bl, 0, args, GK__LAUNCH_PDL, W);
        }
    } else if (plan == GK__MM_LT && K > 0) {
        int epi = GK__LT_EPILOGUE_DEFAULT, post = p.res || (p.act != GK_ACT_NONE && p.act != GK_ACT_GELU_TANH);
        if (p.act == GK_ACT_GELU_TANH) epi = p.bias ? GK__LT_EPILOGUE_GELU_BIAS : GK__LT_EPILOGUE_GELU;
        else if (p.bias) epi = GK__LT_EPILOGUE_BIAS;
        if (p.act != GK_ACT_NONE && p.act != GK_ACT_GELU_TANH && p.bias == 0) epi = GK__LT_EPILOGUE_DEFAULT;
        if (ctx->prof) gk__mm_note(ctx, &p, batch, sa->dtype, so->dtype, 0); /* (cublasLtMatmul's record) */
        st = gk__matmul_lt(ctx, &p, batch, sa->dtype, so->dtype, d.allow_tf32, epi, W);
        if (st == GK_ERR_UNSUPPORTED && epi != GK__LT_EPILOGUE_DEFAULT) {
            /* no algorithm with that epilogue (e.g. unaligned leading dims):
               the plain product, then bias and activation in our pass */
            st = gk__matmul_lt(ctx, &p, batch, sa->dtype, so->dtype, d.allow_tf32, GK__LT_EPILOGUE_DEFAULT, W);
            if (st == GK_OK) { epi = GK__LT_EPILOGUE_DEFAULT; post = 1; }
        }
        if (st == GK_ERR_UNSUPPORTED && d.backend == GK_MATMUL_AUTO) {
            plan = GK__MM_GEMM; /* AUTO never fails a valid problem: gpukit's kernel */
            gk_error_clear(ctx);
            st = GK_OK;
            post = 0;
        } else if (st == GK_OK && post) {
            void *args[1];
            unsigned g[3], bl[3];
            gk__mm q = p;
            if (epi == GK__LT_EPILOGUE_GELU || epi == GK__LT_EPILOGUE_GELU_BIAS) q.act = GK_ACT_NONE; /* done by cuBLASLt */
            q.pad = epi == GK__LT_EPILOGUE_DEFAULT && p.bias != 0; /* the bias is still to add */
            args[0] = &q;
            g[0] = (unsigned)GK__MIN((M * N + 255) / 256, (int64_t)ctx->info.sm_count * 16); g[1] = (unsigned)batch; g[2] = 1;
            bl[0] = 256; bl[1] = 1; bl[2] = 1;
            st = gk__launch_cfg(ctx, GK__MOD_GEMM, gk__k_epi[so->dtype], g, bl, 0, args, W);
        }
    }
    if (st == GK_OK && plan == GK__MM_GEMM) {
        const char *k = gk__k_gemm[sa->dtype][so->dtype];
        void *args[1];
        unsigned g[3], bl[3];
        if (ctx->prof) gk__mm_note(ctx, &p, batch, sa->dtype, so->dtype, 0);
        if (!k) st = gk__err(ctx, GK_ERR_DTYPE, "%s: no kernel for %s -> %s", W, gk_dtype_name(sa->dtype), gk_dtype_name(so->dtype));
        else if (batch > 65535) st = gk__err(ctx, GK_ERR_LIMIT, "%s: batch %lld above 65535", W, (long long)batch);
        else if (K > 0 && gk__wg_ok(ctx, &p, batch, sa->dtype, d.allow_tf32) && (st = gk__wg_launch(ctx, &p, batch, sa->dtype, so->dtype, W)) != GK__WG_DECLINED) {
        } else if (K > 0 && gk__tc_ok(ctx, &p, sa->dtype, d.allow_tf32)) st = gk__tc_launch(ctx, &p, batch, sa->dtype, so->dtype, W);
        else if (K > 0 && gk__sg_ok(ctx, &p, batch, sa->dtype, so->dtype)) st = gk__sg_launch(ctx, &p, batch, so->dtype, W);
        else {
            args[0] = &p;
            g[0] = (unsigned)((N + 63) / 64); g[1] = (unsigned)((M + 63) / 64); g[2] = (unsigned)batch;
            bl[0] = 256; bl[1] = 1; bl[2] = 1;
            if (g[1] > 65535) st = gk__err(ctx, GK_ERR_LIMIT, "%s: M = %lld too large for one launch", W, (long long)M);
            else st = gk__launch_cfg(ctx, GK__MOD_GEMM, k, g, bl, 0, args, W);
        }
    }
    gk__operands_done(ctx, &ops, st == GK__NEED_SCRATCH ? GK_OK : st);
    gk__unlock(&ctx->mu);
    return st;
done:
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_matmul(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b, const gk_matmul_desc *desc) {
    return gk__matmul(ctx, out, a, b, desc, 0, "gk_matmul");
}
GKDEF gk_status gk_linear(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, const gk_matmul_desc *desc) {
    return gk__matmul(ctx, out, x, w, desc, 1, "gk_linear");
}
GKDEF gk_status gk_linear_glu(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor scratch, const gk_matmul_desc *desc) {
    const char *W = "gk_linear_glu";
    gk_tensor_info xi, wi, si, oi;
    gk_matmul_desc d;
    gk_tensor s2, g, u;
    int64_t rows = 1, N, sh[2];
    gk_status st;
    int i;
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    if (d.act != GK_ACT_NONE && d.act != GK_ACT_SILU && d.act != GK_ACT_GELU && d.act != GK_ACT_GELU_TANH)
        return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "%s: act %d is not a GLU gate (NONE, SILU, GELU, GELU_TANH)", W, (int)d.act);
    st = gk__matmul(ctx, out, x, w, &d, 2, W);
    if (st != GK__NEED_SCRATCH) return st;
    /* more than 8 rows, or operands the GEMV kernel cannot take: product to scratch, then the GLU */
    if ((st = gk_tensor_info_get(ctx, x, &xi)) != GK_OK || (st = gk_tensor_info_get(ctx, w, &wi)) != GK_OK ||
        (st = gk_tensor_info_get(ctx, out, &oi)) != GK_OK) return st;
    for (i = 0; i + 1 < xi.ndim; i++) rows *= xi.shape[i];
    N = wi.shape[0] / 2;
    if (scratch.id == 0)
        return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "%s: %lld rows need a scratch tensor of [%lld, %lld] (out's dtype)", W,
                            (long long)rows, (long long)rows, (long long)(2 * N));
    if ((st = gk_tensor_info_get(ctx, scratch, &si)) != GK_OK) return st;
    if (si.numel != rows * 2 * N || !si.contiguous || si.dtype != oi.dtype)
        return gk_error_set(ctx, GK_ERR_SHAPE, "%s: scratch is %s with %lld elements%s; it must be a contiguous %s [%lld, %lld]", W,
                            gk_dtype_name(si.dtype), (long long)si.numel, si.contiguous ? "" : " (not contiguous)", gk_dtype_name(oi.dtype),
                            (long long)rows, (long long)(2 * N));
    sh[0] = rows; sh[1] = 2 * N;
    if ((st = gk_view_reshape(ctx, scratch, 2, sh, &s2)) != GK_OK) return st;
    {
        gk_matmul_desc p = d;
        gk_tensor o2 = out, xo = x;
        int64_t xs[2];
        p.act = GK_ACT_NONE; p.residual.id = 0;
        xs[0] = rows; xs[1] = wi.shape[1];
        if ((st = gk_view_reshape(ctx, x, 2, xs, &xo)) == GK_OK) {
            st = gk_linear(ctx, s2, xo, w, &p);
            gk_tensor_free(ctx, xo);
        }
        if (st == GK_OK && (st = gk_view_slice(ctx, s2, 1, 0, N, 1, &g)) == GK_OK) {
            if ((st = gk_view_slice(ctx, s2, 1, N, 2 * N, 1, &u)) == GK_OK) {
                sh[0] = rows; sh[1] = N;
                if ((st = gk_view_reshape(ctx, out, 2, sh, &o2)) == GK_OK) {
                    gk_glu_op op = d.act == GK_ACT_SILU ? GK_GLU_SILU : d.act == GK_ACT_GELU ? GK_GLU_GELU : GK_GLU_GELU_TANH;
                    if (d.act == GK_ACT_NONE) st = gk_mul(ctx, o2, g, u);
                    else st = gk_glu(ctx, o2, g, u, op);
                    if (st == GK_OK && d.residual.id) st = gk_add(ctx, out, out, d.residual);
                    gk_tensor_free(ctx, o2);
                }
                gk_tensor_free(ctx, u);
            }
            gk_tensor_free(ctx, g);
        }
    }
    gk_tensor_free(ctx, s2);
    return st;
}
GKDEF gk_status gk_matmul_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_dtype out_dtype, const gk_matmul_desc *desc, gk_tensor *out) {
    const char *W = "gk_matmul_new";
    gk__slot *sa, *sb;
    int64_t shape[3];
    int nd;
    uint32_t idx;
    gk_tensor t;
    gk_status st;
    if (out) out->id = 0;
    GK__ENTER(ctx, W);
    st = out ? gk__lookup(ctx, a, &sa, W, "a") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (st == GK_OK) st = gk__lookup(ctx, b, &sb, W, "b");
    if (st == GK_OK && (sa->ndim < 2 || sb->ndim < 2 || sa->ndim > 3 || sb->ndim > 3))
        st = gk__err(ctx, GK_ERR_SHAPE, "%s: a and b must be 2-d or 3-d", W);
    if (st == GK_OK) {
        int64_t batch = sa->ndim == 3 ? sa->shape[0] : (sb->ndim == 3 ? sb->shape[0] : 1);
        if (sb->ndim == 3 && sb->shape[0] != 1) batch = sb->shape[0];
        nd = (sa->ndim == 3 || sb->ndim == 3) ? 3 : 2;
        if (nd == 3) { shape[0] = batch; shape[1] = sa->shape[sa->ndim - 2]; shape[2] = sb->shape[sb->ndim - 1]; }
        else { shape[0] = sa->shape[0]; shape[1] = sb->shape[1]; }
        st = gk__bind(ctx);
        if (st == GK_OK) st = gk__tensor_new(ctx, out_dtype, nd, shape, &idx, W);
        if (st == GK_OK) t = gk__handle(ctx, idx);
    }
    gk__unlock(&ctx->mu);
    if (st != GK_OK) return st;
    return gk__finish_new(ctx, gk_matmul(ctx, t, a, b, desc), t, out);
}

