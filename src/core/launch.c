/* >>launch: library kernel launches, workspace, arrival counters */
/* Launches a library kernel over `work` items (grid-stride kernels). */
static gk_status gk__launch(gk_ctx *ctx, int mod, const char *fname, int64_t work, void **args, const char *where) {
    gk__cu_function f;
    int64_t blocks = (work + 255) / 256, maxb = (int64_t)ctx->info.sm_count * 32;
    if (work <= 0) return GK_OK;
    unsigned grid[3] = { 1, 1, 1 }, block[3] = { 256, 1, 1 };
    GK__TRY(gk__lib_function(ctx, mod, fname, &f, where));
    if (blocks > maxb) blocks = maxb;
    if (blocks < 1) blocks = 1;
    grid[0] = (unsigned)blocks;
    return gk__dispatch(ctx, f, fname, grid, block, 0, args, GK__DISPATCH_PLAIN, where);
}

/* Launches a library kernel with an explicit configuration; raises the
   kernel's dynamic shared memory limit when it asks for more than 48 KiB. */
/* The kernel `fname` of module `mod`, its dynamic shared memory limit raised to
   `smem` when that is above the default 48 KiB (GK_ERR_LIMIT past the device's). */
GK__MAYBE_UNUSED static gk_status gk__fn_smem(gk_ctx *ctx, int mod, const char *fname, unsigned smem, gk__cu_function *f, const char *where) {
    gk__cu_result r;
    GK__TRY(gk__lib_function(ctx, mod, fname, f, where));
    if (smem > 48 * 1024) {
        if ((int)smem > ctx->info.max_smem_per_block_optin)
            return gk__err(ctx, GK_ERR_LIMIT, "%s: %s needs %u bytes of shared memory, the device allows %d", where, fname, smem,
                           ctx->info.max_smem_per_block_optin);
        r = ctx->cu.FuncSetAttribute(*f, GK__CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)smem);
        if (r != 0) return gk__cu_fail(ctx, r, where, "cuFuncSetAttribute");
    }
    return GK_OK;
}
GK__MAYBE_UNUSED static gk_status gk__launch_cfg(gk_ctx *ctx, int mod, const char *fname, const unsigned grid[3], const unsigned block[3],
                                unsigned smem, void **args, const char *where) {
    gk__cu_function f;
    GK__TRY(gk__fn_smem(ctx, mod, fname, smem, &f, where));
    return gk__dispatch(ctx, f, fname, grid, block, smem, args, GK__DISPATCH_PLAIN, where);
}

/* gk__launch_cfg with launch options: GK__LAUNCH_PDL launches with
   programmatic stream serialization (sm_90+, when the driver has
   cuLaunchKernelEx; else a plain launch): the kernel may start while its
   predecessor drains. Only for kernels that execute gk_pdl_wait()
   (griddepcontrol.wait, src/kernels/gk_common.cuh) before they touch anything
   the previous kernels write or read. */
enum { GK__LAUNCH_PDL = 1 };
GK__MAYBE_UNUSED static gk_status gk__launch_ex(gk_ctx *ctx, int mod, const char *fname, const unsigned grid[3], const unsigned block[3],
                                               unsigned smem, void **args, unsigned opts, const char *where) {
    gk__cu_function f;
    /* tune.pdl 0 (GPUKIT_PDL=0 when the context was created): plain launches, to rule PDL in or out */
    if (!(opts & GK__LAUNCH_PDL) || !ctx->tune.pdl || !ctx->cu.LaunchKernelEx || ctx->info.cc_major < 9)
        return gk__launch_cfg(ctx, mod, fname, grid, block, smem, args, where);
    GK__TRY(gk__fn_smem(ctx, mod, fname, smem, &f, where));
    return gk__dispatch(ctx, f, fname, grid, block, smem, args, GK__DISPATCH_PDL, where);
}

/* Blocks of `block` threads and `smem` bytes of dynamic shared memory resident
   on one SM at once (registers, shared memory and threads counted by the driver);
   *f the kernel (gk__fn_smem). */
GK__MAYBE_UNUSED static gk_status gk__occupancy(gk_ctx *ctx, int mod, const char *fname, unsigned block, unsigned smem, int *per_sm,
                                                gk__cu_function *f, const char *where) {
    gk__cu_result r;
    GK__TRY(gk__fn_smem(ctx, mod, fname, smem, f, where));
    r = ctx->cu.OccupancyMaxActiveBlocksPerMultiprocessor(per_sm, *f, (int)block, smem);
    if (r != 0) return gk__cu_fail(ctx, r, where, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    return GK_OK;
}

/* A persistent kernel: every block resident at once (cooperative launch), so
   blocks may wait on each other (grid-wide barriers). Fails with GK_ERR_LIMIT
   when the grid is larger than what fits on the device. */
GK__MAYBE_UNUSED static gk_status gk__launch_coop(gk_ctx *ctx, int mod, const char *fname, unsigned grid, unsigned block,
                                                   unsigned smem, void **args, const char *where) {
    gk__cu_function f;
    int per_sm = 0;
    GK__TRY(gk__occupancy(ctx, mod, fname, block, smem, &per_sm, &f, where));
    if ((int64_t)per_sm * ctx->info.sm_count < (int64_t)grid)
        return gk__err(ctx, GK_ERR_LIMIT, "%s: %s needs %u resident blocks of %u threads, the device holds %d", where, fname, grid, block,
                       per_sm * ctx->info.sm_count);
    {
        unsigned g3[3] = { 1, 1, 1 }, b3[3] = { 1, 1, 1 };
        g3[0] = grid;
        b3[0] = block;
        return gk__dispatch(ctx, f, fname, g3, b3, smem, args, GK__DISPATCH_COOP, where);
    }
}

/* Scratch memory for ops (FFT buffers, partial reductions ...): one pool
   block per context, grown only when an op needs more, so warmed-up ops
   allocate nothing. Work on one stream runs in order, so one buffer serves
   every op. The caller holds ctx->mu and, after issuing its work, calls
   gk__unuse(ctx, ctx->ws) (the block is pinned meanwhile, and by a graph
   that captures the op). */
GK__MAYBE_UNUSED static gk_status gk__workspace(gk_ctx *ctx, size_t nbytes, gk__cu_ptr *out, const char *where) {
    if (!ctx->ws || ctx->ws->size < nbytes) {
        gk__block *nb;
        GK__TRY(gk__pool_alloc(ctx, nbytes < ((size_t)1 << 20) ? ((size_t)1 << 20) : nbytes, &nb, where));
        if (ctx->ws) gk__block_unref(ctx, ctx->ws);
        ctx->ws = nb;
    }
    GK__TRY(gk__use(ctx, ctx->ws, ctx->cur_stream, where));
    *out = ctx->ws->ptr;
    return GK_OK;
}

/* Arrival counters for kernels whose last block to finish does the final
   step itself, saving a second launch (the merge of a split reduction):
   GK__CTR_N u32 in one allocation per context,
   outside the pool, zeroed on the current stream when first asked for. A
   kernel counts its blocks in with atomicAdd after a __threadfence, and the
   last one resets its counter to zero, so they are zero between kernels
   (graph replays included). Like the workspace, they serve one stream's
   work at a time. *out is 0 when n is above GK__CTR_N or when they do not
   exist yet and the stream is being captured (no allocation in a graph):
   the caller then takes its two-kernel path, as it does when
   ctx->tune.ctr_off is set (tests and benchmarks compare the two). */
#define GK__CTR_N 16384
/* a context's buffer of n32 32-bit words set to fill32, kept at *buf (allocated and filled on
   the current stream when first asked for; *out 0, and no error, while a graph is captured) */
static gk_status gk__ctx_words(gk_ctx *ctx, gk__cu_ptr *buf, size_t n32, unsigned fill32, gk__cu_ptr *out, const char *where) {
    gk__cu_result r;
    *out = 0;
    if (!*buf) {
        gk__cu_ptr p = 0;
        if (ctx->cur_stream->capture) return GK_OK;
        GK__TRY(gk__dev_alloc(ctx, n32 * 4, &p, where));
        if ((r = ctx->cu.MemsetD32Async(p, fill32, n32, ctx->cur_stream->cu)) != 0) {
            gk__dev_free(ctx, p);
            return gk__cu_fail(ctx, r, where, "cuMemsetD32Async");
        }
        *buf = p;
    }
    *out = *buf;
    return GK_OK;
}
GK__MAYBE_UNUSED static gk_status gk__counters(gk_ctx *ctx, int64_t n, gk__cu_ptr *out, const char *where) {
    *out = 0;
    if (ctx->tune.ctr_off || n > GK__CTR_N || ctx->backend != GK_BACKEND_CUDA) return GK_OK;
    return gk__ctx_words(ctx, &ctx->ctr, GK__CTR_N, 0u, out, where);
}

/* Decode attention's split words (src/ops/attention/attention.cu, gk_dec_fold): GK__DEC_SLOTS_SM
   64-bit words a SM (enough for every grid that is one wave: at most 4 blocks a SM of at
   most 8 q heads x 128 dims each) in one allocation per context, outside the pool, set to
   GK__DEC_EMPTY on the current stream when first asked for; every kernel that fills a word
   empties it again, so they are empty between kernels (graph replays included). Like the
   workspace they serve one stream's work at a time. *out is 0 when nwords is above what
   they hold or when they do not exist yet and the stream is being captured: the caller
   then takes its gk_attn_combine path. */
#define GK__DEC_SLOTS_SM 4096
#define GK__DEC_EMPTY32 0x7fbadbadu /* both halves of src/ops/attention/attention.cu's GK_DEC_EMPTY */
static gk_status gk__dec_slots(gk_ctx *ctx, int64_t nwords, gk__cu_ptr *out, const char *where) {
    const int64_t n = (int64_t)ctx->info.sm_count * GK__DEC_SLOTS_SM;
    *out = 0;
    if (nwords > n || ctx->backend != GK_BACKEND_CUDA) return GK_OK;
    return gk__ctx_words(ctx, &ctx->dslot, (size_t)n * 2, GK__DEC_EMPTY32, out, where);
}

