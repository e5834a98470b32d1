/* ------------------------------------------------------------------------ */
/* >>context
   Process-wide mutable state: everything else lives in a context (or is the
   calling thread's: gk__tls_err, gk__tls_ctx_errs, gk__tls_thread,
   gk__tls_bound), and the environment is read when a context is created.
   What remains, and why it is safe:
   - gk__ctx_serial and gk__thread_serial: counters that number contexts and
     threads; incremented atomically (gk__atomic_inc64), never reused, 2^64
     values.
   - The libraries gpukit opens (driver, NVRTC, cuBLASLt) stay loaded for the
     process (gk__unload_libs says why); dlopen / LoadLibrary count and lock
     themselves, and each context resolves its own function tables.
   - Constant tables only otherwise (kernel sources, dtype and status names). */
static volatile uint64_t gk__ctx_serial;

/* Whether the environment switch `name` is on: on unless it is "0". Read by
   gk_ctx_create only; the context keeps the answer. */
static int gk__env_on(const char *name) {
    const char *e = getenv(name);
    return !(e && strcmp(e, "0") == 0);
}
static int gk__streq_nocase(const char *a, const char *b) {
    for (; *a && *b; a++, b++) {
        char x = *a >= 'A' && *a <= 'Z' ? (char)(*a - 'A' + 'a') : *a;
        if (x != *b) return 0;
    }
    return *a == *b;
}

/* The tuning knobs' defaults (gk__tuning): the dispatchers' own rules; the
   counters and the knobs not set here start at 0 (the context is calloc'd). */
static void gk__tune_init(gk__tuning *t) {
    t->dec_variant = -1;
    t->dec4t_from = 4096; /* gk_attn_dec4t from 4096 keys of cache on 9.0+ (gk_attention's decode) */
    t->dec4t_pad = 1;
    t->dec3_per_sm = 2;   /* the gk_attn_dec3 blocks resident a SM */
    t->dec3_one_split = 256;
    t->combine_one_round = 1;
    t->dec_prefetch = -1;
    t->dec_fold = 1;
    t->fwg_mode = -1;
    t->gemv_force_cfg = -1;
    t->gemv_smalln = 1;
    t->wg_mode = -1;
    t->sg_variant = -1;
    t->sg_last = -1;
    t->sg_mode = -1;
    t->ln_variant = -1;
    t->ln_last = -1;
}
/* The context's tuning knobs and launch counters, for tests and benchmarks
   (which include the implementation): set a knob or read a counter between
   calls, from the thread that makes them. */
GK__MAYBE_UNUSED static gk__tuning *gk__tune(gk_ctx *ctx) { return &ctx->tune; }

static void gk__resolve_cache_dir(gk_ctx *ctx) {
    char buf[1024];
    const char *e;
    buf[0] = 0;
    if (ctx->desc.disable_disk_cache) return;
    if (ctx->desc.cache_dir && ctx->desc.cache_dir[0]) snprintf(buf, sizeof buf, "%s", ctx->desc.cache_dir);
    else if ((e = getenv("GPUKIT_CACHE_DIR")) && *e) snprintf(buf, sizeof buf, "%s", e);
#if defined(_WIN32)
    else if ((e = getenv("LOCALAPPDATA")) && *e) snprintf(buf, sizeof buf, "%s\\gpukit", e);
#endif
    else if ((e = getenv("XDG_CACHE_HOME")) && *e) snprintf(buf, sizeof buf, "%s/gpukit", e);
    else if ((e = getenv("HOME")) && *e) snprintf(buf, sizeof buf, "%s/.cache/gpukit", e);
    if (buf[0]) ctx->cache_dir = gk__strdup(buf);
}


GKDEF gk_status gk_ctx_create(const gk_ctx_desc *desc, gk_ctx **out) {
    gk_ctx *ctx;
    gk_status st = GK_OK;
    const char *env;
    if (!out) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "gk_ctx_create: out is NULL");
    *out = NULL;
    ctx = GK__CALLOC(gk_ctx, 1);
    if (!ctx) return gk__err(NULL, GK_ERR_OUT_OF_MEMORY, "gk_ctx_create: out of host memory");
    if (desc) ctx->desc = *desc;
    if (ctx->desc.backend < GK_BACKEND_AUTO || ctx->desc.backend > GK_BACKEND_CPU) {
        int b = (int)ctx->desc.backend;
        GPUKIT_FREE(ctx);
        return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "gk_ctx_create: invalid backend %d", b);
    }
    ctx->backend = ctx->desc.backend;
    if ((env = getenv("GPUKIT_BACKEND")) && *env) { /* checked even when desc.backend decides: a typo is never ignored */
        gk_backend eb = GK_BACKEND_AUTO;
        if (gk__streq_nocase(env, "cpu")) eb = GK_BACKEND_CPU;
        else if (gk__streq_nocase(env, "cuda")) eb = GK_BACKEND_CUDA;
        else if (!gk__streq_nocase(env, "auto")) {
            GPUKIT_FREE(ctx);
            return gk__err(NULL, GK_ERR_INVALID_ARGUMENT,
                           "gk_ctx_create: environment variable GPUKIT_BACKEND is \"%.100s\"; accepted values: cpu, cuda, auto (or unset)", env);
        }
        if (ctx->backend == GK_BACKEND_AUTO) ctx->backend = eb;
    }
    ctx->serial = gk__atomic_inc64(&gk__ctx_serial);
    gk__mutex_init(&ctx->mu);
    gk__cond_init(&ctx->pace_cv);
    gk__tune_init(&ctx->tune);
    /* the environment's switches, read once (GPUKIT_GEMM_WGMMA / GPUKIT_ATTN_WGMMA "0": those kernels never run) */
    ctx->tune.pdl = gk__env_on("GPUKIT_PDL");
    if (!gk__env_on("GPUKIT_GEMM_WGMMA")) ctx->tune.wg_mode = 0;
    if (!gk__env_on("GPUKIT_ATTN_WGMMA")) ctx->tune.fwg_mode = 0;
    ctx->cur_stream = &ctx->default_stream;
    if (ctx->backend != GK_BACKEND_CPU) {
        int normal = 0; /* no driver on this machine (or none wanted): the CPU backend is no surprise */
        st = gk__cuda_init(ctx, &normal);
        if (st != GK_OK) {
            if (ctx->backend == GK_BACKEND_CUDA) {
                gk__err(NULL, st, "gk_ctx_create: %s", gk_last_error(ctx));
                gk__err_forget(ctx);
                gk__unload_libs(ctx);
                gk__mutex_destroy(&ctx->mu);
                GPUKIT_FREE(ctx);
                return st;
            }
            if (normal) {
                gk__log(ctx, GK_LOG_INFO, "%s: using the CPU backend", normal == 2 ? "built with GPUKIT_NO_CUDA" : "no NVIDIA driver found");
                gk__log(ctx, GK_LOG_DEBUG, "%s", gk_last_error(ctx));
            } else
                gk__log(ctx, GK_LOG_WARN, "%s; using the CPU backend", gk_last_error(ctx));
            gk__unload_libs(ctx);
            memset(&ctx->cu, 0, sizeof ctx->cu);
            memset(&ctx->info, 0, sizeof ctx->info);
            gk__err_forget(ctx);
            ctx->backend = GK_BACKEND_CPU;
        } else ctx->backend = GK_BACKEND_CUDA;
    }
    ctx->info.backend = ctx->backend;
    if (ctx->backend == GK_BACKEND_CPU) {
        snprintf(ctx->info.name, sizeof ctx->info.name, "CPU (gpukit reference backend)");
        ctx->info.total_memory = gk__host_ram();
        ctx->info.sm_count = 1;
        ctx->info.warp_size = 1;
        ctx->info.max_threads_per_block = 1024;
    }
    gk__load_nvrtc(ctx);
    if (ctx->backend == GK_BACKEND_CUDA) gk__load_cublaslt(ctx);
    ctx->default_stream.priority = GK_PRIORITY_NORMAL;
    if (ctx->desc.memory_quota) ctx->pool.quota = ctx->desc.memory_quota;
    else if (ctx->backend == GK_BACKEND_CUDA) {
        size_t fr = 0, tot = 0;
        ctx->cu.MemGetInfo(&fr, &tot);
        ctx->pool.quota = fr / 10 * 9;
    } else ctx->pool.quota = gk__host_ram() / 2;
    gk__resolve_cache_dir(ctx);
    gk__log(ctx, GK_LOG_INFO, "context on %s (%s backend)", ctx->info.name, ctx->backend == GK_BACKEND_CUDA ? "CUDA" : "CPU");
    *out = ctx;
    return GK_OK;
}

GKDEF gk_backend gk_ctx_backend(gk_ctx *ctx) { return ctx ? ctx->backend : GK_BACKEND_CPU; }

GKDEF gk_status gk_device_info_get(gk_ctx *ctx, gk_device_info *out) {
    if (!ctx || !out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_device_info_get: NULL argument");
    *out = ctx->info;
    return GK_OK;
}

static gk_status gk__sync_locked(gk_ctx *ctx, const char *where) {
    gk_stream *s;
    if (ctx->backend != GK_BACKEND_CUDA) return GK_OK;
    GK__TRY(gk__bind(ctx));
    if (!ctx->default_stream.capture) GK__CU(ctx, ctx->cu.StreamSynchronize(ctx->default_stream.cu), where);
    for (s = ctx->streams; s; s = s->next)
        if (!s->capture) GK__CU(ctx, ctx->cu.StreamSynchronize(s->cu), where);
    return GK_OK;
}
static gk_status gk__stream_wait_unlocked(gk_ctx *ctx, gk_stream *s, const char *where);
GKDEF gk_status gk_sync(gk_ctx *ctx) {
    gk_status st = GK_OK;
    if (!ctx) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "gk_sync: ctx is NULL");
    gk__enter(ctx);
    if (ctx->backend != GK_BACKEND_CUDA || (st = gk__bind(ctx)) != GK_OK) st = GK_OK;
    else {
        /* every stream, waited on with the lock released (gk__stream_wait_unlocked) */
        gk_stream *s, **all, *few[16];
        int n = 1, i;
        for (s = ctx->streams; s; s = s->next) n++;
        all = n <= 16 ? few : GK__ALLOC(gk_stream *, n); /* no allocation for the usual few streams */
        if (!all) st = gk__sync_locked(ctx, "gk_sync");
        else {
            all[0] = &ctx->default_stream;
            for (i = 1, s = ctx->streams; s; s = s->next) all[i++] = s;
            for (i = 0; i < n; i++) all[i]->waiters++;
            for (i = 0; i < n; i++) {
                gk_status si = all[i]->dead ? GK_OK : gk__stream_wait_unlocked(ctx, all[i], "gk_sync");
                if (st == GK_OK) st = si;
            }
            for (i = 0; i < n; i++)
                if (--all[i]->waiters == 0 && all[i]->dead) gk__stream_free_struct(ctx, all[i]);
            if (all != few) GPUKIT_FREE(all);
        }
    }
    gk__unlock(&ctx->mu);
    return st;
}

