/* ------------------------------------------------------------------------ */
/* >>jit
   Modules are compiled by NVRTC for the device's exact arch (a cubin; PTX for
   an arch NVRTC does not know) and cached: in memory per context, and on disk
   as <cache_dir>/<key>.gkc, keyed by a 128-bit hash of the source, headers,
   options, target, NVRTC version and gpukit version. Files carry a checksum of
   their payload, are written to a temporary name and renamed (atomic), and a
   file that fails any check is recompiled and rewritten, never trusted. */
struct gk__modrec { uint64_t key[2]; gk__cu_module mod; int refs; gk__modrec *next; };
#define GK__MAX_PARAMS 64
struct gk_kernel {
    gk_module *m;
    char name[128];
    gk__cu_function fn;
    int nparams;                    /* -1: unknown */
    int psize[GK__MAX_PARAMS];      /* bytes; 0: unknown */
    char pkind[GK__MAX_PARAMS];     /* 'p' pointer, 'f' float, 'i' integer, '?' */
    gk_cpu_kernel_fn cpu;
    void *cpu_user;
    gk_kernel *next;
};
struct gk_module {
    gk__modrec *rec;                /* NULL on the CPU backend */
    char *source;
    char *name;
    gk_kernel *kernels;
    gk_module *next;
};

/* 128-bit hash: two 64-bit multiply-xorshift lanes over 8-byte words. */
typedef struct gk__hash { uint64_t a, b; size_t n; } gk__hash;
static uint64_t gk__mix64(uint64_t x) {
    x ^= x >> 30; x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27; x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
static void gk__hash_init(gk__hash *h) { h->a = 0x243f6a8885a308d3ull; h->b = 0x13198a2e03707344ull; h->n = 0; }
static void gk__hash_bytes(gk__hash *h, const void *data, size_t n) {
    const unsigned char *p = (const unsigned char *)data;
    uint64_t w;
    h->n += n;
    while (n >= 8) {
        memcpy(&w, p, 8);
        h->a = (h->a ^ w) * 0x9e3779b97f4a7c15ull;
        h->a ^= h->a >> 29;
        h->b = (h->b + w) * 0xc2b2ae3d27d4eb4full;
        h->b ^= h->b >> 31;
        p += 8;
        n -= 8;
    }
    if (n) {
        w = 0;
        memcpy(&w, p, n);
        w ^= (uint64_t)n << 56;
        h->a = (h->a ^ w) * 0x9e3779b97f4a7c15ull;
        h->b = (h->b + w) * 0xc2b2ae3d27d4eb4full;
    }
    h->a ^= 0xff; /* separates consecutive fields */
    h->b += 0x3d;
}
static void gk__hash_str(gk__hash *h, const char *s) { gk__hash_bytes(h, s, strlen(s)); }
static void gk__hash_final(gk__hash *h, uint64_t key[2]) {
    key[0] = gk__mix64(h->a ^ gk__mix64(h->b + h->n));
    key[1] = gk__mix64(h->b ^ gk__mix64(h->a ^ 0x5851f42d4c957f2dull));
}
static uint64_t gk__checksum(const void *p, size_t n) {
    gk__hash h;
    uint64_t k[2];
    gk__hash_init(&h);
    gk__hash_bytes(&h, p, n);
    gk__hash_final(&h, k);
    return k[0] ^ k[1];
}

#define GK__CACHE_MAGIC "GKCACHE1"
typedef struct gk__cache_hdr {
    char magic[8];
    uint64_t key[2];
    uint64_t size;
    uint64_t checksum;
    uint32_t kind;      /* 1 cubin, 2 ptx */
    uint32_t reserved;
} gk__cache_hdr;

static void gk__cache_path(gk_ctx *ctx, const uint64_t key[2], char *buf, size_t n) {
    snprintf(buf, n, "%s%c%016llx%016llx.gkc", ctx->cache_dir, GK__PATH_SEP, (unsigned long long)key[0], (unsigned long long)key[1]);
}
/* Reads a cache entry: 1 valid (payload malloc'd), 0 absent, -1 corrupt. */
static int gk__cache_read(gk_ctx *ctx, const uint64_t key[2], char **payload, size_t *size) {
    char path[1200];
    gk__cache_hdr h;
    FILE *f;
    long end;
    char *buf;
    *payload = NULL;
    if (!ctx->cache_dir) return 0;
    gk__cache_path(ctx, key, path, sizeof path);
    f = fopen(path, "rb");
    if (!f) return 0;
    if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, GK__CACHE_MAGIC, 8) != 0 || h.key[0] != key[0] ||
        h.key[1] != key[1] || h.size == 0 || h.size > ((uint64_t)1 << 31) || fseek(f, 0, SEEK_END) != 0 ||
        (end = ftell(f)) < 0 || (uint64_t)end != sizeof h + h.size || fseek(f, (long)sizeof h, SEEK_SET) != 0) {
        fclose(f);
        return -1;
    }
    buf = GK__CAST(char *, GPUKIT_MALLOC((size_t)h.size + 1));
    if (!buf) { fclose(f); return 0; }
    if (fread(buf, 1, (size_t)h.size, f) != (size_t)h.size || gk__checksum(buf, (size_t)h.size) != h.checksum) {
        fclose(f);
        GPUKIT_FREE(buf);
        return -1;
    }
    fclose(f);
    buf[h.size] = 0;
    *payload = buf;
    *size = (size_t)h.size;
    return 1;
}
static void gk__cache_write(gk_ctx *ctx, const uint64_t key[2], const char *payload, size_t size, int kind) {
    char path[1200], tmp[1300];
    gk__cache_hdr h;
    FILE *f;
    int ok;
    if (!ctx->cache_dir) return;
    if (gk__mkdirs(ctx->cache_dir) != 0) {
        gk__log(ctx, GK_LOG_WARN, "kernel cache folder %s cannot be created: disk cache off", ctx->cache_dir);
        GPUKIT_FREE(ctx->cache_dir);
        ctx->cache_dir = NULL;
        return;
    }
    gk__cache_path(ctx, key, path, sizeof path);
    /* a name no other writer uses: process, context, this context's count */
    snprintf(tmp, sizeof tmp, "%s.%lu.%llu.%u.tmp", path, gk__pid(), (unsigned long long)ctx->serial, ++ctx->cache_tmp);
    memset(&h, 0, sizeof h);
    memcpy(h.magic, GK__CACHE_MAGIC, 8);
    h.key[0] = key[0];
    h.key[1] = key[1];
    h.size = size;
    h.checksum = gk__checksum(payload, size);
    h.kind = (uint32_t)kind;
    f = fopen(tmp, "wb");
    if (!f) { gk__log(ctx, GK_LOG_WARN, "kernel cache: cannot write %s", tmp); return; }
    ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(payload, 1, size, f) == size;
    ok = (fclose(f) == 0) && ok;
    if (!ok || gk__rename_replace(tmp, path) != 0) {
        remove(tmp);
        gk__log(ctx, GK_LOG_WARN, "kernel cache: cannot write %s", path);
        return;
    }
    ctx->jst.disk_writes++;
}

/* The compile target for an arch "sm_XY[a]": "--gpu-architecture=sm_XY" when
   NVRTC knows it (cubin), else compute_ of the newest arch it knows (PTX). */
static void gk__target(gk_ctx *ctx, const char *arch, char *opt, size_t n, int *ptx) {
    int want = 0, best = 0, i;
    const char *suffix = "";
    if (arch && strncmp(arch, "sm_", 3) == 0) {
        want = atoi(arch + 3);
        if (arch[strlen(arch) - 1] == 'a') suffix = "a";
    }
    *ptx = 0;
    if (ctx->n_nvrtc_archs == 0 || want == 0) { snprintf(opt, n, "--gpu-architecture=%s", arch ? arch : "sm_80"); return; }
    for (i = 0; i < ctx->n_nvrtc_archs; i++) {
        if (ctx->nvrtc_archs[i] == want) { snprintf(opt, n, "--gpu-architecture=sm_%d%s", want, suffix); return; }
        if (ctx->nvrtc_archs[i] <= want && ctx->nvrtc_archs[i] > best) best = ctx->nvrtc_archs[i];
    }
    *ptx = 1;
    snprintf(opt, n, "--gpu-architecture=compute_%d", best ? best : 80);
}

/* The arch a library module is built for: arch (the context's), except the
   Hopper GEMM and attention (src/ops/matmul/gemm_wg.cu, src/ops/attention/flash_wg.cu:
   wgmma, setmaxnreg), which need the arch-specific sm_90a target on an
   sm_90 device. For other arches those modules compile to empty stubs that
   are never launched (gk__wg_ok, gk__fwg_ok). */
static const char *gk__mod_arch(int m, const char *arch) {
    (void)m;
#ifdef GK__MOD_GEMM_WG
    if (m == GK__MOD_GEMM_WG && arch && strcmp(arch, "sm_90") == 0) return "sm_90a";
#endif
#ifdef GK__MOD_FLASH_WG
    if (m == GK__MOD_FLASH_WG && arch && strcmp(arch, "sm_90") == 0) return "sm_90a";
#endif
    return arch;
}

/* Joins the chunks of an embedded source (kept under C99's literal limit). */
static char *gk__join_chunks(const char *const *chunks) {
    size_t n = 0, i, k;
    char *s;
    for (i = 0; chunks[i]; i++) n += strlen(chunks[i]);
    s = GK__CAST(char *, GPUKIT_MALLOC(n + 1));
    if (!s) return NULL;
    for (i = 0, k = 0; chunks[i]; i++) { size_t m = strlen(chunks[i]); memcpy(s + k, chunks[i], m); k += m; }
    s[k] = 0;
    return s;
}
/* The embedded headers every library and user module may #include by name,
   joined on the context's first compile (one copy a context: no
   process-wide state; freed by gk_ctx_destroy). */
static gk_status gk__headers(gk_ctx *ctx, const char *const **names, const char *const **srcs) {
    int i;
    if (!ctx->lib_headers && !(ctx->lib_headers = GK__CALLOC(char *, GK__HEADER_COUNT > 0 ? GK__HEADER_COUNT : 1)))
        return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "jit: out of host memory");
    for (i = 0; i < GK__HEADER_COUNT; i++)
        if (!ctx->lib_headers[i] && !(ctx->lib_headers[i] = gk__join_chunks(gk__header_chunks[i])))
            return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "jit: out of host memory");
    *names = gk__header_names;
    *srcs = GK__CAST(const char *const *, ctx->lib_headers);
    return GK_OK;
}

/* The NVRTC log of the calling thread's last compile on ctx (gk_jit_log). */
static void gk__set_log(gk_ctx *ctx, const char *log) {
    gk__thread_rec *r = log ? gk__thread_get(ctx) : gk__thread_find(ctx);
    if (!r) return;
    GPUKIT_FREE(r->jit_log);
    r->jit_log = log ? gk__strdup(log) : NULL;
    gk__thread_tidy(ctx, r);
}

/* NVRTC: source -> cubin or PTX (malloc'd). */
static gk_status gk__nvrtc_compile(gk_ctx *ctx, const char *src, const char *name, const char *const *opts, int nopts,
                                   int ptx, char **out, size_t *outn, const char *where) {
    gk__nvrtc_program prog = NULL;
    gk__nvrtc_result r;
    const char *const *hn = NULL, *const *hs = NULL;
    size_t logn = 0, n = 0;
    char *log = NULL, *bin;
    double t0 = gk__now_ms();
    *out = NULL;
    GK__TRY(gk__headers(ctx, &hn, &hs));
    r = ctx->nvrtc.CreateProgram(&prog, src, name, GK__HEADER_COUNT, hs, hn);
    if (r != 0) return gk__err(ctx, GK_ERR_COMPILE, "%s: nvrtcCreateProgram(%s) failed: %s", where, name, ctx->nvrtc.GetErrorString(r));
    r = ctx->nvrtc.CompileProgram(prog, nopts, opts);
    ctx->jst.compiles++;
    if (ctx->nvrtc.GetProgramLogSize(prog, &logn) == 0 && logn > 1 && (log = GK__CAST(char *, GPUKIT_MALLOC(logn + 1))) != NULL) {
        ctx->nvrtc.GetProgramLog(prog, log);
        log[logn] = 0;
    }
    gk__set_log(ctx, log);
    if (r != 0) {
        gk__err(ctx, GK_ERR_COMPILE, "%s: NVRTC failed to compile %s (%s) for %s: %s\n%.3000s", where, name,
                ctx->nvrtc.GetErrorString(r), opts[0], "see gk_jit_log for the whole log", log ? log : "");
        GPUKIT_FREE(log);
        ctx->nvrtc.DestroyProgram(&prog);
        return GK_ERR_COMPILE;
    }
    GPUKIT_FREE(log);
    r = ptx ? ctx->nvrtc.GetPTXSize(prog, &n) : ctx->nvrtc.GetCUBINSize(prog, &n);
    if (r != 0 || n == 0 || !(bin = GK__CAST(char *, GPUKIT_MALLOC(n + 1)))) {
        ctx->nvrtc.DestroyProgram(&prog);
        return gk__err(ctx, GK_ERR_COMPILE, "%s: NVRTC produced no %s for %s", where, ptx ? "PTX" : "cubin", name);
    }
    r = ptx ? ctx->nvrtc.GetPTX(prog, bin) : ctx->nvrtc.GetCUBIN(prog, bin);
    ctx->nvrtc.DestroyProgram(&prog);
    if (r != 0) { GPUKIT_FREE(bin); return gk__err(ctx, GK_ERR_COMPILE, "%s: NVRTC could not return the binary of %s", where, name); }
    bin[n] = 0;
    if (ptx) n = strlen(bin) + 1;
    ctx->jst.compile_ms += gk__now_ms() - t0;
    *out = bin;
    *outn = n;
    return GK_OK;
}

/* Compiles (through the caches) source for arch; loads it when mod != NULL. */
static gk_status gk__jit_build(gk_ctx *ctx, const char *src, const char *name, const char *const *uopts, int nuopts,
                               const char *arch, int use_cache, gk__cu_module *mod, gk__modrec **rec_out,
                               const char *where) {
    char target[64];
    const char *opts[72];
    int ptx = 0, i, nopts = 0, disk;
    gk__hash h;
    uint64_t key[2];
    gk__modrec *rec;
    char *bin = NULL;
    size_t binn = 0;
    gk_status st;
    if (nuopts < 0 || nuopts > 64) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: %d options (at most 64)", where, nuopts);
    if (!arch) arch = ctx->info.arch[0] ? ctx->info.arch : "sm_80";
    gk__target(ctx, arch, target, sizeof target, &ptx);
    opts[nopts++] = target;
    for (i = 0; i < nuopts; i++) {
        if (!uopts[i]) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: option %d is NULL", where, i);
        opts[nopts++] = uopts[i];
    }
    gk__hash_init(&h);
    gk__hash_str(&h, "gpukit " GK_VERSION_STRING);
    gk__hash_bytes(&h, &ctx->info.nvrtc_version, sizeof ctx->info.nvrtc_version);
    for (i = 0; i < nopts; i++) gk__hash_str(&h, opts[i]);
    gk__hash_str(&h, src);
    for (i = 0; i < GK__HEADER_COUNT; i++) {
        int j;
        for (j = 0; gk__header_chunks[i][j]; j++) gk__hash_str(&h, gk__header_chunks[i][j]);
    }
    gk__hash_final(&h, key);
    if (mod && use_cache)
        for (rec = ctx->modcache; rec; rec = rec->next)
            if (rec->key[0] == key[0] && rec->key[1] == key[1]) {
                rec->refs++;
                ctx->jst.memory_hits++;
                *mod = rec->mod;
                if (rec_out) *rec_out = rec;
                return GK_OK;
            }
    disk = use_cache ? gk__cache_read(ctx, key, &bin, &binn) : 0;
    if (disk < 0) {
        ctx->jst.disk_rejects++;
        gk__log(ctx, GK_LOG_WARN, "kernel cache entry for %s is corrupt: recompiling", name);
    }
    if (disk > 0 && mod) {
        if (gk__bind(ctx) != GK_OK || ctx->cu.ModuleLoadData(mod, bin) != 0) {
            ctx->jst.disk_rejects++;
            gk__log(ctx, GK_LOG_WARN, "kernel cache entry for %s does not load: recompiling", name);
            GPUKIT_FREE(bin);
            bin = NULL;
            disk = 0;
        }
    }
    if (disk > 0) {
        ctx->jst.disk_hits++;
        GPUKIT_FREE(bin);
        bin = NULL;
    } else {
        if (!ctx->info.has_nvrtc)
            return gk__err(ctx, GK_ERR_NO_NVRTC, "%s: NVRTC not found: cannot compile %s for %s (and no cached copy%s%s); NVRTC: %s", where,
                           name, arch, ctx->cache_dir ? " in " : "", ctx->cache_dir ? ctx->cache_dir : "",
                           ctx->nvrtc_why[0] ? ctx->nvrtc_why : "not loaded");
        GK__TRY(gk__nvrtc_compile(ctx, src, name, opts, nopts, ptx, &bin, &binn, where));
        if (use_cache) gk__cache_write(ctx, key, bin, binn, ptx ? 2 : 1);
        if (mod) {
            gk__cu_result r;
            st = gk__bind(ctx);
            if (st != GK_OK) { GPUKIT_FREE(bin); return st; }
            r = ctx->cu.ModuleLoadData(mod, bin);
            GPUKIT_FREE(bin);
            if (r != 0) return gk__cu_fail(ctx, r, where, "cuModuleLoadData");
        } else GPUKIT_FREE(bin);
    }
    if (mod) {
        rec = GK__CALLOC(gk__modrec, 1);
        if (!rec) { ctx->cu.ModuleUnload(*mod); return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", where); }
        rec->key[0] = key[0];
        rec->key[1] = key[1];
        rec->mod = *mod;
        rec->refs = 1;
        rec->next = ctx->modcache;
        ctx->modcache = rec;
        if (rec_out) *rec_out = rec;
    }
    return GK_OK;
}

/* Library modules: compiled lazily, once per context, on first use. */
static gk_status gk__lib_function(gk_ctx *ctx, int m, const char *fname, gk__cu_function *out, const char *where) {
    gk__libmod *L = &ctx->lib[m];
    int i;
    gk__cu_result r;
    for (i = 0; i < L->nfns; i++)
        if (L->fns[i].name == fname || strcmp(L->fns[i].name, fname) == 0) { *out = L->fns[i].fn; return GK_OK; }
    if (!L->mod) {
        char *src;
        gk_status st;
        if (L->tried && L->status != GK_OK) return gk__err(ctx, L->status, "%s: kernel module %s is unavailable (its first build failed)", where, gk__module_names[m]);
        L->tried = 1;
        src = gk__join_chunks(gk__module_chunks[m]);
        if (!src) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", where);
        st = gk__jit_build(ctx, src, gk__module_names[m], NULL, 0, gk__mod_arch(m, ctx->info.arch[0] ? ctx->info.arch : NULL), 1, &L->mod,
                           NULL, where);
        GPUKIT_FREE(src);
        L->status = st;
        if (st != GK_OK) return st;
    }
    if (L->nfns == (int)(sizeof L->fns / sizeof L->fns[0])) return gk__err(ctx, GK_ERR_LIMIT, "%s: too many kernels in %s", where, gk__module_names[m]);
    r = ctx->cu.ModuleGetFunction(out, L->mod, fname);
    if (r != 0) return gk__err(ctx, GK_ERR_NOT_FOUND, "%s: kernel %s not found in %s (%s)", where, fname, gk__module_names[m], gk__cu_errname(ctx, r));
    L->fns[L->nfns].name = fname;
    L->fns[L->nfns].fn = *out;
    L->nfns++;
    return GK_OK;
}

GKDEF gk_status gk_jit_precompile(gk_ctx *ctx, const char *arch, int *num_modules) {
    int m, n = 0;
    gk_status st = GK_OK;
    GK__ENTER(ctx, "gk_jit_precompile");
    if (!ctx->cache_dir) st = gk__err(ctx, GK_ERR_STATE, "gk_jit_precompile: the disk cache is off");
    if (!arch && !ctx->info.arch[0]) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_jit_precompile: no arch given and no GPU");
    for (m = 0; st == GK_OK && m < GK__MOD_COUNT; m++) {
        char *src = gk__join_chunks(gk__module_chunks[m]);
        if (!src) { st = gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "gk_jit_precompile: out of host memory"); break; }
        st = gk__jit_build(ctx, src, gk__module_names[m], NULL, 0, gk__mod_arch(m, arch ? arch : ctx->info.arch), 1, NULL, NULL,
                           "gk_jit_precompile");
        GPUKIT_FREE(src);
#ifdef GK__MOD_GEMM_WG
        if (st != GK_OK && m == GK__MOD_GEMM_WG && st != GK_ERR_OUT_OF_MEMORY) { st = GK_OK; gk_error_clear(ctx); continue; } /* an NVRTC without sm_90a: gemm_tc serves */
#endif
#ifdef GK__MOD_FLASH_WG
        if (st != GK_OK && m == GK__MOD_FLASH_WG && st != GK_ERR_OUT_OF_MEMORY) { st = GK_OK; gk_error_clear(ctx); continue; } /* no sm_90a: flash.cu serves */
#endif
        if (st == GK_OK) n++;
    }
    if (num_modules) *num_modules = n;
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_jit_stats_get(gk_ctx *ctx, gk_jit_stats *out) {
    if (!ctx || !out) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_jit_stats_get: NULL argument");
    gk__enter(ctx);
    *out = ctx->jst;
    gk__unlock(&ctx->mu);
    return GK_OK;
}
GKDEF const char *gk_jit_log(gk_ctx *ctx) {
    const char *s;
    gk__thread_rec *r;
    if (!ctx) return "";
    gk__enter(ctx);
    r = gk__thread_find(ctx);
    s = r && r->jit_log ? r->jit_log : "";
    gk__unlock(&ctx->mu);
    return s;
}

GKDEF gk_status gk_module_create(gk_ctx *ctx, const gk_module_desc *desc, gk_module **out) {
    const char *W = "gk_module_create";
    gk_module *m;
    gk_status st = GK_OK;
    gk__cu_module cm = NULL;
    if (out) *out = NULL;
    GK__ENTER(ctx, W);
    if (!out || !desc || !desc->source) { gk__unlock(&ctx->mu); return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: desc, desc->source and out must not be NULL", W); }
    m = GK__CALLOC(gk_module, 1);
    if (!m || !(m->source = gk__strdup(desc->source)) || !(m->name = gk__strdup(desc->name ? desc->name : "user.cu"))) {
        if (m) { GPUKIT_FREE(m->source); GPUKIT_FREE(m); }
        gk__unlock(&ctx->mu);
        return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
    }
    if (ctx->backend == GK_BACKEND_CUDA)
        st = gk__jit_build(ctx, desc->source, m->name, desc->options, desc->num_options, NULL, !desc->no_cache, &cm, &m->rec, W);
    else if (ctx->info.has_nvrtc) /* compile anyway: errors show on every backend */
        st = gk__jit_build(ctx, desc->source, m->name, desc->options, desc->num_options, "sm_80", !desc->no_cache, NULL, NULL, W);
    if (st != GK_OK) {
        GPUKIT_FREE(m->source);
        GPUKIT_FREE(m->name);
        GPUKIT_FREE(m);
    } else {
        m->next = ctx->modules;
        ctx->modules = m;
        *out = m;
    }
    gk__unlock(&ctx->mu);
    return st;
}

static void gk__module_free(gk_ctx *ctx, gk_module *m) {
    gk_kernel *k, *nk;
    gk__modrec **pp;
    for (k = m->kernels; k; k = nk) { nk = k->next; GPUKIT_FREE(k); }
    if (m->rec && --m->rec->refs == 0) {
        for (pp = &ctx->modcache; *pp; pp = &(*pp)->next) if (*pp == m->rec) { *pp = m->rec->next; break; }
        ctx->cu.ModuleUnload(m->rec->mod);
        GPUKIT_FREE(m->rec);
    }
    GPUKIT_FREE(m->source);
    GPUKIT_FREE(m->name);
    GPUKIT_FREE(m);
}
static gk_status gk__find_module(gk_ctx *ctx, gk_module *m, const char *where) {
    gk_module *x;
    for (x = ctx->modules; x; x = x->next) if (x == m && m) return GK_OK;
    return gk__err(ctx, GK_ERR_INVALID_HANDLE, "%s: not a live module of this context", where);
}
GKDEF gk_status gk_module_destroy(gk_ctx *ctx, gk_module *m) {
    gk_status st;
    gk_module **pp;
    GK__ENTER(ctx, "gk_module_destroy");
    st = gk__find_module(ctx, m, "gk_module_destroy");
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK) st = gk__sync_locked(ctx, "gk_module_destroy"); /* queued launches use it */
    if (st == GK_OK) {
        for (pp = &ctx->modules; *pp; pp = &(*pp)->next) if (*pp == m) { *pp = m->next; break; }
        gk__module_free(ctx, m);
    }
    gk__unlock(&ctx->mu);
    return st;
}

/* Finds `__global__ ... name(params)` in source and classifies each param. */
static int gk__is_ident(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }
static int gk__has_word(const char *s, size_t n, const char *w) {
    size_t m = strlen(w), i;
    for (i = 0; i + m <= n; i++)
        if (memcmp(s + i, w, m) == 0 && (i == 0 || !gk__is_ident(s[i - 1])) && (i + m == n || !gk__is_ident(s[i + m]))) return 1;
    return 0;
}
static int gk__parse_params(const char *src, const char *name, int *sizes, char *kinds, int max) {
    size_t nl = strlen(name);
    const char *p = src;
    while ((p = strstr(p, name)) != NULL) {
        const char *q = p + nl, *b = p;
        int found_global = 0, depth, n = 0;
        if ((p > src && gk__is_ident(p[-1])) || gk__is_ident(*q)) { p = q; continue; }
        while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
        if (*q != '(') { p = q; continue; }
        while (b > src && b[-1] != ';' && b[-1] != '}' && b[-1] != '{') b--;
        if (gk__has_word(b, (size_t)(p - b), "__global__")) found_global = 1;
        if (!found_global) { p = q; continue; }
        q++;
        depth = 0;
        {
            const char *start = q;
            for (;; q++) {
                if (*q == 0) return -1;
                if (*q == '(' || *q == '<' || *q == '[') depth++;
                else if ((*q == ')' || *q == '>' || *q == ']') && depth > 0) depth--;
                else if ((*q == ',' || *q == ')') && depth == 0) {
                    const char *e = q, *s = start, *ne;
                    size_t len;
                    while (s < e && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')) s++;
                    while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\n' || e[-1] == '\r')) e--;
                    len = (size_t)(e - s);
                    if (len == 0 || (len == 4 && memcmp(s, "void", 4) == 0)) {
                        if (*q == ')' && n == 0) return 0;
                    } else {
                        if (n >= max) return -1;
                        /* the type is everything before the last identifier */
                        ne = e;
                        while (ne > s && gk__is_ident(ne[-1])) ne--;
                        if (ne == s) ne = e; /* unnamed parameter */
                        len = (size_t)(ne - s);
                        if (memchr(s, '*', len) || memchr(s, '&', len)) { kinds[n] = 'p'; sizes[n] = 8; }
                        else if (gk__has_word(s, len, "double")) { kinds[n] = 'f'; sizes[n] = 8; }
                        else if (gk__has_word(s, len, "float")) { kinds[n] = 'f'; sizes[n] = 4; }
                        else if (gk__has_word(s, len, "long") || gk__has_word(s, len, "int64_t") || gk__has_word(s, len, "uint64_t") ||
                                 gk__has_word(s, len, "size_t") || gk__has_word(s, len, "ptrdiff_t")) { kinds[n] = 'i'; sizes[n] = 8; }
                        else if (gk__has_word(s, len, "short") || gk__has_word(s, len, "int16_t") || gk__has_word(s, len, "uint16_t")) { kinds[n] = 'i'; sizes[n] = 2; }
                        else if (gk__has_word(s, len, "char") || gk__has_word(s, len, "bool") || gk__has_word(s, len, "int8_t") || gk__has_word(s, len, "uint8_t")) { kinds[n] = 'i'; sizes[n] = 1; }
                        else if (gk__has_word(s, len, "int") || gk__has_word(s, len, "unsigned") || gk__has_word(s, len, "int32_t") || gk__has_word(s, len, "uint32_t")) { kinds[n] = 'i'; sizes[n] = 4; }
                        else { kinds[n] = '?'; sizes[n] = 0; }
                        n++;
                    }
                    if (*q == ')') return n;
                    start = q + 1;
                }
            }
        }
    }
    return -1;
}

GKDEF gk_status gk_module_kernel(gk_ctx *ctx, gk_module *m, const char *name, gk_kernel **out) {
    const char *W = "gk_module_kernel";
    gk_kernel *k;
    gk_status st;
    if (out) *out = NULL;
    GK__ENTER(ctx, W);
    st = gk__find_module(ctx, m, W);
    if (st == GK_OK && (!name || !out || strlen(name) >= sizeof k->name))
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: name (shorter than %d) and out must be given", W, (int)sizeof k->name);
    if (st != GK_OK) { gk__unlock(&ctx->mu); return st; }
    for (k = m->kernels; k; k = k->next)
        if (strcmp(k->name, name) == 0) { *out = k; gk__unlock(&ctx->mu); return GK_OK; }
    k = GK__CALLOC(gk_kernel, 1);
    if (!k) { gk__unlock(&ctx->mu); return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W); }
    k->m = m;
    snprintf(k->name, sizeof k->name, "%s", name);
    k->nparams = gk__parse_params(m->source, name, k->psize, k->pkind, GK__MAX_PARAMS);
    if (ctx->backend == GK_BACKEND_CUDA) {
        gk__cu_result r;
        st = gk__bind(ctx);
        if (st == GK_OK && (r = ctx->cu.ModuleGetFunction(&k->fn, m->rec->mod, name)) != 0)
            st = gk__err(ctx, GK_ERR_NOT_FOUND, "%s: no kernel '%s' in %s (%s; kernels must be declared extern \"C\" __global__)", W, name,
                         m->name, gk__cu_errname(ctx, r));
        if (st == GK_OK && ctx->cu.FuncGetParamInfo) {
            /* the driver knows the exact parameter sizes; parsed kinds are kept
               only where the parse agrees with it */
            size_t off, sz, i;
            int n = 0, agree;
            int dsize[GK__MAX_PARAMS];
            for (i = 0; i < GK__MAX_PARAMS && ctx->cu.FuncGetParamInfo(k->fn, i, &off, &sz) == 0; i++) dsize[n++] = (int)sz;
            agree = k->nparams == n;
            for (i = 0; i < (size_t)n; i++) {
                if (!agree || (k->psize[i] && k->psize[i] != dsize[i])) k->pkind[i] = '?';
                k->psize[i] = dsize[i];
            }
            k->nparams = n;
        }
    } else if (k->nparams < 0)
        st = gk__err(ctx, GK_ERR_NOT_FOUND, "%s: no __global__ function '%s' in %s", W, name, m->name);
    if (st != GK_OK) GPUKIT_FREE(k);
    else { k->next = m->kernels; m->kernels = k; *out = k; }
    gk__unlock(&ctx->mu);
    return st;
}

static gk_status gk__find_kernel(gk_ctx *ctx, gk_kernel *k, const char *where) {
    gk_module *m;
    gk_kernel *x;
    for (m = ctx->modules; m; m = m->next)
        for (x = m->kernels; x; x = x->next) if (x == k && k) return GK_OK;
    return gk__err(ctx, GK_ERR_INVALID_HANDLE, "%s: not a live kernel of this context", where);
}
GKDEF gk_status gk_kernel_set_cpu(gk_ctx *ctx, gk_kernel *k, gk_cpu_kernel_fn fn, void *user) {
    gk_status st;
    GK__ENTER(ctx, "gk_kernel_set_cpu");
    st = gk__find_kernel(ctx, k, "gk_kernel_set_cpu");
    if (st == GK_OK) { k->cpu = fn; k->cpu_user = user; }
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_kernel_attrs_get(gk_ctx *ctx, gk_kernel *k, gk_kernel_attrs *out) {
    gk_status st;
    GK__ENTER(ctx, "gk_kernel_attrs_get");
    st = out ? gk__find_kernel(ctx, k, "gk_kernel_attrs_get") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_kernel_attrs_get: out is NULL");
    if (st == GK_OK) {
        memset(out, 0, sizeof *out);
        out->num_params = k->nparams;
        if (ctx->backend == GK_BACKEND_CUDA && gk__bind(ctx) == GK_OK) {
            ctx->cu.FuncGetAttribute(&out->num_regs, GK__CU_FUNC_ATTRIBUTE_NUM_REGS, k->fn);
            ctx->cu.FuncGetAttribute(&out->local_bytes, GK__CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, k->fn);
            ctx->cu.FuncGetAttribute(&out->static_smem_bytes, GK__CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->fn);
            ctx->cu.FuncGetAttribute(&out->max_threads_per_block, GK__CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k->fn);
        }
    }
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_kernel_param(gk_ctx *ctx, gk_kernel *k, int i, int *size, char *kind) {
    gk_status st;
    GK__ENTER(ctx, "gk_kernel_param");
    st = gk__find_kernel(ctx, k, "gk_kernel_param");
    if (st == GK_OK && (i < 0 || i >= k->nparams))
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_kernel_param: parameter %d outside 0..%d of kernel '%s'", i, k->nparams - 1, k->name);
    if (st == GK_OK) {
        if (size) *size = k->psize[i];
        if (kind) *kind = k->pkind[i];
    }
    gk__unlock(&ctx->mu);
    return st;
}

static int gk__arg_size(gk_arg_type t) {
    switch (t) {
    case GK_ARG_I32: case GK_ARG_U32: case GK_ARG_F32: return 4;
    case GK_ARG_I64: case GK_ARG_U64: case GK_ARG_F64: case GK_ARG_PTR: case GK_ARG_TENSOR: return 8;
    default: return 0;
    }
}
static char gk__arg_kind(gk_arg_type t) {
    return t == GK_ARG_F32 || t == GK_ARG_F64 ? 'f' : (t == GK_ARG_PTR || t == GK_ARG_TENSOR) ? 'p' : 'i';
}
static const char *const gk__arg_names[] = { "none", "i32", "u32", "i64", "u64", "f32", "f64", "ptr", "tensor" };

typedef struct gk__cpu_kparams {
    gk_cpu_kernel_fn fn;
    void *user;
    unsigned grid[3], block[3];
    int n;
    gk_arg args[GK__MAX_PARAMS];
    void *ptrs[GK__MAX_PARAMS];
} gk__cpu_kparams;
static int gk__cpu_kernel_thunk(const void *p) {
    const gk__cpu_kparams *k = (const gk__cpu_kparams *)p;
    gk_cpu_launch l;
    memcpy(l.grid, k->grid, sizeof l.grid);
    memcpy(l.block, k->block, sizeof l.block);
    l.args = k->args;
    l.ptrs = k->ptrs;
    l.num_args = k->n;
    l.user = k->user;
    k->fn(&l);
    return 0;
}

GKDEF gk_status gk_kernel_launch(gk_ctx *ctx, gk_kernel *k, const gk_launch_desc *d) {
    const char *W = "gk_kernel_launch";
    gk_status st;
    gk_stream *s;
    unsigned g[3], b[3];
    uint64_t vals[GK__MAX_PARAMS];
    void *params[GK__MAX_PARAMS];
    gk__block *used[GK__MAX_PARAMS];
    int i, nused = 0;
    GK__ENTER(ctx, W);
    st = gk__find_kernel(ctx, k, W);
    if (st == GK_OK && !d) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: desc is NULL", W);
    if (st != GK_OK) { gk__unlock(&ctx->mu); return st; }
    s = d->stream ? d->stream : ctx->cur_stream;
    st = gk__find_stream(ctx, s, W);
    if (st == GK_OK && (d->num_args < 0 || d->num_args > GK__MAX_PARAMS || (d->num_args > 0 && !d->args)))
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: num_args %d invalid (0..%d, args not NULL)", W, d->num_args, GK__MAX_PARAMS);
    if (st == GK_OK && k->nparams >= 0 && d->num_args != k->nparams)
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: kernel '%s' takes %d argument%s, the launch passes %d", W, k->name, k->nparams,
                     k->nparams == 1 ? "" : "s", d->num_args);
    for (i = 0; st == GK_OK && i < d->num_args; i++) {
        int sz = gk__arg_size(d->args[i].type);
        if (sz == 0) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: argument %d has an invalid type %d", W, i, (int)d->args[i].type);
        else if (k->nparams >= 0 && k->psize[i] && k->psize[i] != sz)
            st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: argument %d of '%s' is %s (%d bytes) but the parameter takes %d bytes", W, i,
                         k->name, gk__arg_names[d->args[i].type], sz, k->psize[i]);
        else if (k->nparams >= 0 && k->pkind[i] != '?' && k->pkind[i] != gk__arg_kind(d->args[i].type))
            st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: argument %d of '%s' is %s but the parameter is a%s", W, i, k->name,
                         gk__arg_names[d->args[i].type], k->pkind[i] == 'p' ? " pointer" : k->pkind[i] == 'f' ? " float" : "n integer");
    }
    for (i = 0; i < 3; i++) { g[i] = d->grid[i] ? d->grid[i] : 1; b[i] = d->block[i] ? d->block[i] : 1; }
    if (st == GK_OK && (uint64_t)b[0] * b[1] * b[2] > 1024)
        st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: block %ux%ux%u exceeds 1024 threads", W, b[0], b[1], b[2]);
    if (st == GK_OK) st = gk__bind(ctx);
    /* resolve tensors (restoring evicted storage) and pin them for the launch */
    for (i = 0; st == GK_OK && i < d->num_args; i++) {
        vals[i] = d->args[i].v.u64;
        if (d->args[i].type == GK_ARG_TENSOR) {
            gk__slot *sl;
            char what[32];
            snprintf(what, sizeof what, "argument %d", i);
            st = gk__lookup(ctx, d->args[i].v.tensor, &sl, W, what);
            if (st == GK_OK) st = gk__use(ctx, sl->blk, s, W);
            if (st == GK_OK) { used[nused++] = sl->blk; vals[i] = gk__slot_addr(sl); }
        }
        params[i] = &vals[i];
    }
    if (st == GK_OK) {
        if (ctx->backend == GK_BACKEND_CUDA) {
            gk_stream *save = ctx->cur_stream;
            ctx->cur_stream = s;
            st = gk__dispatch(ctx, k->fn, k->name, g, b, d->shared_mem, params, GK__DISPATCH_PLAIN, W);
            ctx->cur_stream = save;
        } else if (!k->cpu)
            st = gk__err(ctx, GK_ERR_UNSUPPORTED, "%s: kernel '%s' has no CPU fallback (gk_kernel_set_cpu) and the context runs on the CPU backend", W, k->name);
        else {
            gk__cpu_kparams kp;
            gk_stream *save = ctx->cur_stream;
            memset(&kp, 0, sizeof kp);
            kp.fn = k->cpu;
            kp.user = k->cpu_user;
            memcpy(kp.grid, g, sizeof g);
            memcpy(kp.block, b, sizeof b);
            kp.n = d->num_args;
            for (i = 0; i < d->num_args; i++) {
                kp.args[i] = d->args[i];
                kp.ptrs[i] = (d->args[i].type == GK_ARG_TENSOR || d->args[i].type == GK_ARG_PTR) ? (void *)(uintptr_t)vals[i] : NULL;
            }
            ctx->cur_stream = s;
            st = gk__cpu_run(ctx, gk__cpu_kernel_thunk, &kp, sizeof kp, W);
            ctx->cur_stream = save;
        }
    }
    for (i = 0; i < nused; i++) gk__unuse(ctx, used[i]);
    if (st != GK_OK && s->capture && s->capture->failed == GK_OK) s->capture->failed = st;
    gk__unlock(&ctx->mu);
    return st;
}

