/* >>teardown: context teardown */
/* ------------------------------------------------------------------------ */
/* context teardown */
GKDEF void gk_ctx_destroy(gk_ctx *ctx) {
    uint32_t i;
    gk__block *b, *nb;
    if (!ctx) return;
    /* the services' threads call into the context: stopped first, unlocked */
    gk__sched_destroy_all(ctx);
    gk__xfer_destroy_all(ctx);
    gk__lock(&ctx->mu);
    gk__prof_free(ctx);
    if (ctx->backend == GK_BACKEND_CUDA && gk__bind(ctx) == GK_OK) {
        gk_stream *s;
        if (ctx->default_stream.capture) { gk__cu_graph g = NULL; ctx->cu.StreamEndCapture(ctx->default_stream.cu, &g); if (g) ctx->cu.GraphDestroy(g); }
        for (s = ctx->streams; s; s = s->next)
            if (s->capture) { gk__cu_graph g = NULL; ctx->cu.StreamEndCapture(s->cu, &g); if (g) ctx->cu.GraphDestroy(g); }
        gk__sync_locked(ctx, "gk_ctx_destroy");
    }
    /* the work is done: foreign blocks released from here on wait for no stream (the streams go below) */
    for (b = ctx->pool.wrap_head; b; b = b->next) b->stream = NULL;
    gk__capture_free(ctx, ctx->default_stream.capture);
    ctx->default_stream.capture = NULL;
    if (ctx->backend == GK_BACKEND_CUDA) gk__lt_free(ctx);
    while (ctx->graphs) { gk_graph *g = ctx->graphs; ctx->graphs = g->next; gk__graph_free(ctx, g); }
    while (ctx->modules) { gk_module *m = ctx->modules; ctx->modules = m->next; gk__module_free(ctx, m); }
    for (i = 0; i < GK__MOD_COUNT; i++)
        if (ctx->lib[i].mod && ctx->backend == GK_BACKEND_CUDA) ctx->cu.ModuleUnload(ctx->lib[i].mod);
    while (ctx->events) {
        gk_event *e = ctx->events;
        ctx->events = e->next;
        if (ctx->backend == GK_BACKEND_CUDA) ctx->cu.EventDestroy(e->cu);
        GPUKIT_FREE(e);
    }
    while (ctx->streams) {
        gk_stream *s = ctx->streams;
        ctx->streams = s->next;
        gk__capture_free(ctx, s->capture);
        gk__stream_free_struct(ctx, s);
    }
    /* every block, whatever its state */
    for (b = ctx->pool.live_head; b; b = nb) { nb = b->next; gk__dev_free(ctx, b->ptr); GPUKIT_FREE(b); }
    for (b = ctx->pool.cache_head; b; b = nb) { nb = b->next; gk__dev_free(ctx, b->ptr); GPUKIT_FREE(b); }
    for (b = ctx->pool.evict_head; b; b = nb) { nb = b->next; GPUKIT_FREE(b->host); GPUKIT_FREE(b); }
    for (b = ctx->pool.wrap_head; b; b = nb) { nb = b->next; gk__wrap_release(ctx, b); } /* foreign memory goes back to its owner */
    if (ctx->ctr) gk__dev_free(ctx, ctx->ctr);
    if (ctx->dslot) gk__dev_free(ctx, ctx->dslot);
    for (i = 0; i < ctx->npages; i++) GPUKIT_FREE(ctx->pages[i]);
    GPUKIT_FREE(ctx->pages);
    if (ctx->backend == GK_BACKEND_CUDA && ctx->default_stream.cu) ctx->cu.StreamDestroy(ctx->default_stream.cu);
    GPUKIT_FREE(ctx->cache_dir);
    for (i = 0; i < (uint32_t)ctx->nthreads; i++) GPUKIT_FREE(ctx->threads[i].jit_log);
    GPUKIT_FREE(ctx->threads);
    if (ctx->lib_headers)
        for (i = 0; i < (uint32_t)GK__HEADER_COUNT; i++) GPUKIT_FREE(ctx->lib_headers[i]);
    GPUKIT_FREE(ctx->lib_headers);
    gk__unload_libs(ctx);
    gk__unlock(&ctx->mu);
    gk__mutex_destroy(&ctx->mu);
    gk__cond_destroy(&ctx->pace_cv);
    gk__err_forget(ctx);
    GPUKIT_FREE(ctx);
}

