/* ------------------------------------------------------------------------ */
/* >>loader */
static GK__TLS gk__cu_ctx gk__tls_bound;

/* Binds the context's CUDA context to the calling thread (cheap when bound). */
static gk_status gk__bind(gk_ctx *ctx) {
    if (ctx->backend != GK_BACKEND_CUDA || gk__tls_bound == ctx->cuctx) return GK_OK;
    GK__CU(ctx, ctx->cu.CtxSetCurrent(ctx->cuctx), "gpukit");
    gk__tls_bound = ctx->cuctx;
    return GK_OK;
}

/* Resolves the X-list of a library into api; fails naming a missing symbol. */
#define GK__RESOLVE(ret, sym, field, params, req)                                            \
    {                                                                                        \
        void *p_ = gk__dlsym(lib, #sym);                                                     \
        memcpy(&api->field, &p_, sizeof p_);                                                 \
        if (!p_ && (req)) { snprintf(missing, nmissing, "%s", #sym); return 0; }             \
    }
GK__MAYBE_UNUSED static int gk__resolve_cu(gk__lib lib, gk__cu_api *api, char *missing, size_t nmissing) {
    GK__CU_FUNCS(GK__RESOLVE)
    return 1;
}
static int gk__resolve_nvrtc(gk__lib lib, gk__nvrtc_api *api, char *missing, size_t nmissing) {
    GK__NVRTC_FUNCS(GK__RESOLVE)
    return 1;
}
static int gk__resolve_cublaslt(gk__lib lib, gk__cublaslt_api *api, char *missing, size_t nmissing) {
    GK__CUBLASLT_FUNCS(GK__RESOLVE)
    return 1;
}
#undef GK__RESOLVE

/* Opens the first library that loads: explicit path (gk_ctx_desc.<field>),
   then $env, then each name as is (the dynamic linker's search), then in the
   usual CUDA folders. On failure `why` says what was tried and the loader's
   reason (dlerror / GetLastError's text), and *asked is 1 when the path came
   from the desc or the environment (a failure the user should see). */
static gk__lib gk__open_lib(const char *explicit_path, const char *field, const char *env, const char *const *names,
                            char *why, size_t nwhy, int *asked) {
    static const char *const dirs[] = {
#if defined(_WIN32)
        "%CUDA_PATH%\\bin\\x64", "%CUDA_PATH%\\bin",
#else
        "$CUDA_PATH/lib64", "$CUDA_HOME/lib64", "/usr/local/cuda/lib64",
        "/usr/local/cuda/targets/x86_64-linux/lib", "/usr/local/cuda/targets/sbsa-linux/lib",
        "/usr/lib/x86_64-linux-gnu", "/usr/lib64",
#endif
        NULL };
    char path[1024], err[512];
    const char *p = explicit_path ? explicit_path : getenv(env);
    gk__lib l;
    int i, j;
    why[0] = 0;
    *asked = 0;
    if (p && *p) {
        l = gk__dlopen(p);
        *asked = 1;
        if (!l && explicit_path) snprintf(why, nwhy, "gk_ctx_desc.%s \"%s\" cannot be loaded: %s", field, p, gk__dlerror(err, sizeof err));
        else if (!l) snprintf(why, nwhy, "%s=%s cannot be loaded: %s", env, p, gk__dlerror(err, sizeof err));
        return l;
    }
    for (i = 0; names[i]; i++) {
        l = gk__dlopen(names[i]);
        if (l) return l;
        if (i == 0) snprintf(why, nwhy, "%s: %s", names[0], gk__dlerror(err, sizeof err));
    }
    for (j = 0; dirs[j]; j++) {
        const char *d = dirs[j];
        char base[512];
        if (d[0] == '$' || d[0] == '%') { /* $VAR/rest or %VAR%\rest */
            char var[64];
            size_t k = 0;
            const char *s = d + 1, *v;
            while (*s && *s != '/' && *s != '%' && *s != '\\' && k + 1 < sizeof var) var[k++] = *s++;
            var[k] = 0;
            if (*s == '%') s++;
            v = getenv(var);
            if (!v || !*v) continue;
            snprintf(base, sizeof base, "%s%s", v, s);
        } else snprintf(base, sizeof base, "%s", d);
        for (i = 0; names[i]; i++) {
            snprintf(path, sizeof path, "%s%c%s", base, GK__PATH_SEP, names[i]);
            l = gk__dlopen(path);
            if (l) return l;
        }
    }
    return NULL;
}

#if defined(_WIN32)
static const char *const gk__cuda_names[] = { "nvcuda.dll", NULL };
static const char *const gk__nvrtc_names[] = { "nvrtc64_130_0.dll", "nvrtc64_120_0.dll", NULL };
static const char *const gk__cublaslt_names[] = { "cublasLt64_13.dll", "cublasLt64_12.dll", NULL };
#else
static const char *const gk__cuda_names[] = { "libcuda.so.1", "libcuda.so", NULL };
static const char *const gk__nvrtc_names[] = { "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so", NULL };
static const char *const gk__cublaslt_names[] = { "libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so", NULL };
#endif

static void gk__load_nvrtc(gk_ctx *ctx) {
    char why[1200], missing[128];
    int maj = 0, min = 0, n = 0, asked = 0;
    gk__lib l;
#ifdef GPUKIT_NO_CUDA /* as documented: no library is opened */
    snprintf(ctx->nvrtc_why, sizeof ctx->nvrtc_why, "gpukit was built with GPUKIT_NO_CUDA");
    gk__log(ctx, GK_LOG_INFO, "NVRTC not loaded: gpukit was built with GPUKIT_NO_CUDA");
    return;
#endif
    l = gk__open_lib(ctx->desc.nvrtc_lib, "nvrtc_lib", "GPUKIT_NVRTC_LIB", gk__nvrtc_names, why, sizeof why, &asked);
    if (!l) {
        snprintf(ctx->nvrtc_why, sizeof ctx->nvrtc_why, "%.500s", why);
        gk__log(ctx, ctx->backend == GK_BACKEND_CUDA || asked ? GK_LOG_WARN : GK_LOG_INFO,
                "NVRTC not found: GPU kernels unavailable unless already in the kernel cache (%s)", why);
        return;
    }
    if (!gk__resolve_nvrtc(l, &ctx->nvrtc, missing, sizeof missing)) {
        snprintf(ctx->nvrtc_why, sizeof ctx->nvrtc_why, "the NVRTC library lacks %s", missing);
        gk__log(ctx, GK_LOG_WARN, "NVRTC library lacks %s: GPU kernels unavailable", missing);
        gk__dlclose(l);
        memset(&ctx->nvrtc, 0, sizeof ctx->nvrtc);
        return;
    }
    ctx->nvrtc_lib = l;
    ctx->nvrtc.Version(&maj, &min);
    ctx->info.nvrtc_version = maj * 1000 + min * 10;
    ctx->info.has_nvrtc = 1;
    if (ctx->nvrtc.GetNumSupportedArchs && ctx->nvrtc.GetSupportedArchs &&
        ctx->nvrtc.GetNumSupportedArchs(&n) == 0 && n > 0 && n <= 64 &&
        ctx->nvrtc.GetSupportedArchs(ctx->nvrtc_archs) == 0)
        ctx->n_nvrtc_archs = n;
}

static void gk__load_cublaslt(gk_ctx *ctx) {
    char why[1200], missing[128];
    int asked = 0;
    gk__lib l;
    if (ctx->desc.disable_cublaslt) return;
    l = gk__open_lib(ctx->desc.cublaslt_lib, "cublaslt_lib", "GPUKIT_CUBLASLT_LIB", gk__cublaslt_names, why, sizeof why, &asked);
    if (!l) { gk__log(ctx, asked ? GK_LOG_WARN : GK_LOG_INFO, "cuBLASLt not found: using gpukit's own GEMM (%s)", why); return; }
    if (!gk__resolve_cublaslt(l, &ctx->lt, missing, sizeof missing)) {
        gk__log(ctx, GK_LOG_INFO, "cuBLASLt library lacks %s: using gpukit's own GEMM", missing);
        gk__dlclose(l);
        memset(&ctx->lt, 0, sizeof ctx->lt);
        return;
    }
    ctx->cublaslt_lib = l;
    ctx->info.cublaslt_version = ctx->lt.GetVersion();
    ctx->info.has_cublaslt = 1;
}

/* Brings up the CUDA backend, or returns a status and message saying why not;
   *normal is 1 when there is simply no driver on the machine (none found
   where it is looked for, no path asked for), 2 under GPUKIT_NO_CUDA. */
static gk_status gk__cuda_init(gk_ctx *ctx, int *normal) {
#ifdef GPUKIT_NO_CUDA
    *normal = 2;
    return gk__err(ctx, GK_ERR_NO_DRIVER, "CUDA driver not used: gpukit was built with GPUKIT_NO_CUDA");
#else
    char why[1200], missing[128];
    gk__cu_result r;
    int n = 0, v, asked = 0;
    size_t total = 0;
    gk__lib l = gk__open_lib(ctx->desc.cuda_lib, "cuda_lib", "GPUKIT_CUDA_LIB", gk__cuda_names, why, sizeof why, &asked);
    *normal = 0;
    if (!l) {
        *normal = !asked;
        return gk__err(ctx, GK_ERR_NO_DRIVER, "CUDA driver not found (%s)", why);
    }
    if (!gk__resolve_cu(l, &ctx->cu, missing, sizeof missing)) {
        gk__dlclose(l);
        memset(&ctx->cu, 0, sizeof ctx->cu);
        return gk__err(ctx, GK_ERR_NO_DRIVER, "CUDA driver too old: it lacks %s", missing);
    }
    ctx->cu_lib = l;
    r = ctx->cu.Init(0);
    if (r == GK__CUDA_ERROR_STUB_LIBRARY) {
        /* unload it: its SONAME is libcuda.so.1, so while loaded it would
           also answer later lookups of the real driver */
        gk__dlclose(l);
        ctx->cu_lib = NULL;
        memset(&ctx->cu, 0, sizeof ctx->cu);
        return gk__err(ctx, GK_ERR_NO_DRIVER,
                       "the CUDA driver library found is the toolkit's stub (CUDA_ERROR_STUB_LIBRARY): no NVIDIA driver is installed");
    }
    if (r == GK__CUDA_ERROR_NO_DEVICE) return gk__err(ctx, GK_ERR_NO_DEVICE, "no CUDA device found (cuInit: CUDA_ERROR_NO_DEVICE)");
    if (r != 0) return gk__cu_fail(ctx, r, "gk_ctx_create", "cuInit");
    ctx->cu.DriverGetVersion(&ctx->info.driver_version);
    GK__CU(ctx, ctx->cu.DeviceGetCount(&n), "gk_ctx_create");
    if (n == 0) return gk__err(ctx, GK_ERR_NO_DEVICE, "no CUDA device found (cuDeviceGetCount == 0)");
    if (ctx->desc.device < 0 || ctx->desc.device >= n)
        return gk__err(ctx, GK_ERR_NO_DEVICE, "device %d requested, but %d CUDA device%s found", ctx->desc.device, n, n == 1 ? "" : "s");
    GK__CU(ctx, ctx->cu.DeviceGet(&ctx->dev, ctx->desc.device), "gk_ctx_create");
    ctx->cu.DeviceGetName(ctx->info.name, (int)sizeof ctx->info.name - 1, ctx->dev);
#define GK__ATTR(field, a) GK__CU(ctx, ctx->cu.DeviceGetAttribute(&v, a, ctx->dev), "gk_ctx_create"); field = v
    GK__ATTR(ctx->info.cc_major, GK__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
    GK__ATTR(ctx->info.cc_minor, GK__CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
    GK__ATTR(ctx->info.sm_count, GK__CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
    GK__ATTR(ctx->info.warp_size, GK__CU_DEVICE_ATTRIBUTE_WARP_SIZE);
    GK__ATTR(ctx->info.max_threads_per_block, GK__CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
    GK__ATTR(ctx->info.max_smem_per_block_optin, GK__CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
    GK__ATTR(ctx->info.l2_bytes, GK__CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
#undef GK__ATTR
    GK__CU(ctx, ctx->cu.DeviceTotalMem(&total, ctx->dev), "gk_ctx_create");
    ctx->info.total_memory = total;
    /* (bounded so that the compiler sees it fits: compute capabilities are small) */
    snprintf(ctx->info.arch, sizeof ctx->info.arch, "sm_%u%u", (unsigned)ctx->info.cc_major & 255u, (unsigned)ctx->info.cc_minor & 255u);
    if (ctx->info.cc_major < 8)
        return gk__err(ctx, GK_ERR_UNSUPPORTED, "%s has compute capability %d.%d; gpukit needs 8.0 or newer",
                       ctx->info.name, ctx->info.cc_major, ctx->info.cc_minor);
    GK__CU(ctx, ctx->cu.PrimaryCtxRetain(&ctx->cuctx, ctx->dev), "gk_ctx_create");
    r = ctx->cu.CtxSetCurrent(ctx->cuctx);
    if (r != 0) {
        ctx->cu.PrimaryCtxRelease(ctx->dev);
        ctx->cuctx = NULL;
        return gk__cu_fail(ctx, r, "gk_ctx_create", "cuCtxSetCurrent");
    }
    gk__tls_bound = ctx->cuctx;
    ctx->cu.CtxGetStreamPriorityRange(&ctx->prio_least, &ctx->prio_greatest);
    r = ctx->cu.StreamCreateWithPriority(&ctx->default_stream.cu, GK__CU_STREAM_NON_BLOCKING, 0);
    if (r != 0) {
        ctx->cu.PrimaryCtxRelease(ctx->dev);
        ctx->cuctx = NULL;
        return gk__cu_fail(ctx, r, "gk_ctx_create", "cuStreamCreateWithPriority");
    }
    return GK_OK;
#endif
}

static void gk__unload_libs(gk_ctx *ctx) {
    if (ctx->cuctx && ctx->cu.PrimaryCtxRelease) ctx->cu.PrimaryCtxRelease(ctx->dev);
    if (gk__tls_bound == ctx->cuctx) gk__tls_bound = NULL;
    ctx->cuctx = NULL;
    /* The libraries stay loaded for the life of the process (as the CUDA
       runtime does): NVRTC and the driver keep global state that unloading
       would strand, and a later context finds them loaded. */
    ctx->cublaslt_lib = ctx->nvrtc_lib = ctx->cu_lib = NULL;
}

