/* >>transfer: host <-> device copies, pinned host memory */
/* ---- host transfers ---- */
static gk_status gk__host_copy(gk_ctx *ctx, gk_tensor t, const void *hsrc, void *hdst, size_t nbytes, gk_stream *s,
                               int wait, const char *where) {
    int to_device = hsrc != NULL || hdst == NULL;
    const void *host = to_device ? hsrc : hdst;
    gk__slot *sl;
    gk_status st;
    size_t want;
    GK__ENTER(ctx, where);
    if (!s) s = ctx->cur_stream;
    st = gk__lookup(ctx, t, &sl, where, "the tensor");
    if (st == GK_OK) st = gk__find_stream(ctx, s, where);
    if (st == GK_OK) {
        want = (size_t)gk__numel(sl) * gk__dtype_sizes[sl->dtype];
        if (!gk__is_contig(sl)) st = gk__err(ctx, GK_ERR_SHAPE, "%s: the tensor is not contiguous (use gk_contiguous first)", where);
        else if (nbytes != want) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: nbytes is %zu but the tensor holds %zu bytes", where, nbytes, want);
        else if (want && !host) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: host pointer is NULL", where);
    }
    if (st == GK_OK && want == 0) { gk__unlock(&ctx->mu); return GK_OK; }
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK) st = gk__use(ctx, sl->blk, s, where);
    if (st == GK_OK) {
        gk__cu_ptr p = gk__slot_addr(sl);
        if (ctx->backend == GK_BACKEND_CUDA) {
            if (ctx->prof) gk__prof_note(ctx, (double)nbytes, 0);
            int prof = ctx->prof ? gk__prof_begin(ctx, s, to_device ? "memcpy HtoD" : "memcpy DtoH", to_device ? GK__PROF_H2D : GK__PROF_D2H) : -1;
            gk__cu_result r = to_device ? ctx->cu.MemcpyHtoDAsync(p, hsrc, nbytes, s->cu) : ctx->cu.MemcpyDtoHAsync(hdst, p, nbytes, s->cu);
            if (prof >= 0) gk__prof_end(ctx, s, prof);
            if (r != 0) st = gk__cu_fail(ctx, r, where, to_device ? "cuMemcpyHtoDAsync_v2" : "cuMemcpyDtoHAsync_v2");
            else if (wait) st = gk__stream_wait_unlocked(ctx, s, where); /* the block stays pinned meanwhile */
        } else if (s->capture) st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: host copies cannot be captured on the CPU backend", where);
        else if (to_device) memcpy((void *)(uintptr_t)p, hsrc, nbytes);
        else memcpy(hdst, (const void *)(uintptr_t)p, nbytes);
        gk__unuse(ctx, sl->blk);
    }
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_copy_from_host(gk_ctx *ctx, gk_tensor dst, const void *src, size_t nbytes) {
    return gk__host_copy(ctx, dst, src, NULL, nbytes, NULL, 1, "gk_copy_from_host");
}
GKDEF gk_status gk_copy_to_host(gk_ctx *ctx, gk_tensor src, void *dst, size_t nbytes) {
    return gk__host_copy(ctx, src, NULL, dst, nbytes, NULL, 1, "gk_copy_to_host");
}
GKDEF gk_status gk_copy_from_host_async(gk_ctx *ctx, gk_tensor dst, const void *src, size_t nbytes, gk_stream *s) {
    return gk__host_copy(ctx, dst, src, NULL, nbytes, s, 0, "gk_copy_from_host_async");
}
GKDEF gk_status gk_copy_to_host_async(gk_ctx *ctx, gk_tensor src, void *dst, size_t nbytes, gk_stream *s) {
    return gk__host_copy(ctx, src, NULL, dst, nbytes, s, 0, "gk_copy_to_host_async");
}
GKDEF gk_status gk_tensor_from_host(gk_ctx *ctx, gk_dtype dtype, int ndim, const int64_t *shape, const void *data,
                                    gk_tensor *out) {
    gk_tensor t;
    gk_status st;
    gk_tensor_info info;
    if (out) out->id = 0;
    if (!out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_tensor_from_host: out is NULL");
    GK__TRY(gk_tensor_empty(ctx, dtype, ndim, shape, &t));
    st = gk_tensor_info_get(ctx, t, &info);
    if (st == GK_OK) st = gk_copy_from_host(ctx, t, data, info.nbytes);
    if (st != GK_OK) { char save[GK__ERRBUF]; gk__err_save(ctx, save); gk_tensor_free(ctx, t); gk__err_restore(ctx, save); return st; }
    *out = t;
    return GK_OK;
}
GKDEF gk_status gk_host_alloc(gk_ctx *ctx, size_t nbytes, void **out) {
    gk_status st = GK_OK;
    if (out) *out = NULL;
    GK__ENTER(ctx, "gk_host_alloc");
    if (!out) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_host_alloc: out is NULL");
    else if (ctx->backend == GK_BACKEND_CUDA) {
        gk__cu_result r;
        st = gk__bind(ctx);
        if (st == GK_OK && (r = ctx->cu.MemAllocHost(out, nbytes ? nbytes : 1)) != 0) st = gk__cu_fail(ctx, r, "gk_host_alloc", "cuMemAllocHost_v2");
    } else if (!(*out = GPUKIT_MALLOC(nbytes ? nbytes : 1))) st = gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "gk_host_alloc: %zu bytes", nbytes);
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_host_free(gk_ctx *ctx, void *p) {
    gk_status st = GK_OK;
    GK__ENTER(ctx, "gk_host_free");
    if (p) {
        if (ctx->backend == GK_BACKEND_CUDA) {
            gk__cu_result r;
            st = gk__bind(ctx);
            if (st == GK_OK && (r = ctx->cu.MemFreeHost(p)) != 0) st = gk__cu_fail(ctx, r, "gk_host_free", "cuMemFreeHost");
        } else GPUKIT_FREE(p);
    }
    gk__unlock(&ctx->mu);
    return st;
}

