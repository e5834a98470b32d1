/* ------------------------------------------------------------------------ */
/* >>errors
   Error text is per thread: gk_last_error(NULL) is the calling thread's last
   error outside any context, gk_last_error(ctx) its last error on ctx. The
   texts of contexts are a small thread-local table keyed by the context's
   serial (never reused, so an entry of a destroyed context matches no other
   context); the least recently written entry is reused when the table is
   full (16 KiB of thread-local storage a thread). Only the owning thread
   writes an entry, so the text gk_last_error returns stays as it is until
   that thread's next error. */
static GK__TLS char gk__tls_err[GK__ERRBUF];
#define GK__TLS_CTX_ERRS 4
typedef struct gk__ctx_err {
    uint64_t serial;            /* the context's; 0: free */
    uint64_t used;              /* gk__tls_err_clock at the last write */
    char text[GK__ERRBUF];
} gk__ctx_err;
static GK__TLS gk__ctx_err gk__tls_ctx_errs[GK__TLS_CTX_ERRS];
static GK__TLS uint64_t gk__tls_err_clock;

static gk__ctx_err *gk__ctx_err_find(const gk_ctx *ctx) {
    int i;
    for (i = 0; i < GK__TLS_CTX_ERRS; i++)
        if (gk__tls_ctx_errs[i].serial == ctx->serial) return &gk__tls_ctx_errs[i];
    return NULL;
}
/* The calling thread's error buffer for ctx, taking a table entry if needed. */
static char *gk__errbuf(gk_ctx *ctx) {
    gk__ctx_err *e = gk__ctx_err_find(ctx);
    int i;
    if (!e) {
        e = &gk__tls_ctx_errs[0];
        for (i = 0; i < GK__TLS_CTX_ERRS; i++) {
            if (gk__tls_ctx_errs[i].serial == 0) { e = &gk__tls_ctx_errs[i]; break; }
            if (gk__tls_ctx_errs[i].used < e->used) e = &gk__tls_ctx_errs[i];
        }
        e->serial = ctx->serial;
        e->text[0] = 0;
    }
    e->used = ++gk__tls_err_clock;
    return e->text;
}
/* Keeps the calling thread's error text of ctx around a call that may
   overwrite it (a lookup that is allowed to fail, a clean-up). */
static void gk__err_save(gk_ctx *ctx, char *save) {
    const gk__ctx_err *e = gk__ctx_err_find(ctx);
    size_t n = e ? strlen(e->text) + 1 : 1;
    memcpy(save, e ? e->text : "", n);
}
static void gk__err_restore(gk_ctx *ctx, const char *save) {
    gk__ctx_err *e = gk__ctx_err_find(ctx);
    if (save[0]) memcpy(e ? e->text : gk__errbuf(ctx), save, strlen(save) + 1);
    else if (e) { e->serial = 0; e->text[0] = 0; } /* no text: no entry (it would push out another context's) */
}
/* The calling thread forgets ctx's entry (ctx is being destroyed). */
static void gk__err_forget(gk_ctx *ctx) {
    gk__ctx_err *e = gk__ctx_err_find(ctx);
    if (e) { e->serial = 0; e->text[0] = 0; }
}

#define GK__STATUS_NAME(name, msg) "GK_" #name,
#define GK__STATUS_MSG(name, msg) msg,
static const char *const gk__status_names[] = { GK__STATUS_LIST(GK__STATUS_NAME) "GK_STATUS_COUNT" };
static const char *const gk__status_msgs[] = { GK__STATUS_LIST(GK__STATUS_MSG) "invalid status" };
#undef GK__STATUS_NAME
#undef GK__STATUS_MSG

GKDEF const char *gk_status_name(gk_status s) {
    return (s >= 0 && s < GK_STATUS_COUNT) ? gk__status_names[s] : "GK_STATUS_INVALID";
}
GKDEF const char *gk_status_message(gk_status s) {
    return (s >= 0 && s < GK_STATUS_COUNT) ? gk__status_msgs[s] : "invalid status";
}
GKDEF const char *gk_last_error(gk_ctx *ctx) {
    const gk__ctx_err *e;
    if (!ctx) return gk__tls_err;
    e = gk__ctx_err_find(ctx);
    return e ? e->text : "";
}
GKDEF void gk_error_clear(gk_ctx *ctx) {
    gk__ctx_err *e;
    if (!ctx) gk__tls_err[0] = 0;
    else if ((e = gk__ctx_err_find(ctx)) != NULL) e->text[0] = 0;
}

static void gk__log(gk_ctx *ctx, gk_log_level lvl, const char *fmt, ...) GK__PRINTF(3, 4);
static void gk__log(gk_ctx *ctx, gk_log_level lvl, const char *fmt, ...) {
    char buf[2048];
    va_list ap;
    gk_log_level thr = (ctx && ctx->desc.log_level != GK_LOG_DEFAULT) ? ctx->desc.log_level : GK_LOG_WARN;
    if (thr == GK_LOG_OFF || lvl > thr) return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (ctx && ctx->desc.log) ctx->desc.log(lvl, buf, ctx->desc.log_user);
    else fprintf(stderr, "gpukit %s: %s\n", lvl == GK_LOG_ERROR ? "error" : lvl == GK_LOG_WARN ? "warning" : lvl == GK_LOG_INFO ? "info" : "debug", buf);
}

static gk_status gk__verr(gk_ctx *ctx, gk_status st, const char *fmt, va_list ap) {
    char *buf = ctx ? gk__errbuf(ctx) : gk__tls_err;
    vsnprintf(buf, GK__ERRBUF, fmt, ap);
    return st;
}
GKDEF gk_status gk_error_set(gk_ctx *ctx, gk_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    gk__verr(ctx, st, fmt, ap);
    va_end(ap);
    return st;
}
/* gk__err(ctx, status, "gk_add: shapes %s and %s do not broadcast", ...) */
static gk_status gk__err(gk_ctx *ctx, gk_status st, const char *fmt, ...) GK__PRINTF(3, 4);
static gk_status gk__err(gk_ctx *ctx, gk_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    gk__verr(ctx, st, fmt, ap);
    va_end(ap);
    gk__log(ctx, GK_LOG_DEBUG, "%s: %s", gk_status_name(st), gk_last_error(ctx));
    return st;
}

static const char *gk__cu_errname(gk_ctx *ctx, gk__cu_result r) {
    const char *s = NULL;
    if (r == GK__CUDA_ERROR_STUB_LIBRARY) return "CUDA_ERROR_STUB_LIBRARY";
    if (ctx && ctx->cu.GetErrorName && ctx->cu.GetErrorName(r, &s) == 0 && s) return s;
    return "CUDA_ERROR_UNKNOWN";
}
static const char *gk__cu_errstr(gk_ctx *ctx, gk__cu_result r) {
    const char *s = NULL;
    if (r == GK__CUDA_ERROR_STUB_LIBRARY) return "the loaded libcuda is the toolkit's stub library, not a driver";
    if (ctx && ctx->cu.GetErrorString && ctx->cu.GetErrorString(r, &s) == 0 && s) return s;
    return "unknown error";
}
/* An error from a CUDA call: "where: call failed: CUDA_ERROR_X (text)" */
static gk_status gk__cu_fail(gk_ctx *ctx, gk__cu_result r, const char *where, const char *call) {
    gk_status st = r == GK__CUDA_ERROR_OUT_OF_MEMORY ? GK_ERR_OUT_OF_MEMORY : GK_ERR_CUDA;
    return gk__err(ctx, st, "%s: %s failed: %s (%s)", where, call, gk__cu_errname(ctx, r), gk__cu_errstr(ctx, r));
}
#define GK__CU(ctx, call, where)                                                   \
    do {                                                                           \
        gk__cu_result r_ = (call);                                                 \
        if (r_ != GK__CUDA_SUCCESS) return gk__cu_fail((ctx), r_, (where), #call); \
    } while (0)
#define GK__TRY(x)                       \
    do {                                 \
        gk_status st_ = (x);             \
        if (st_ != GK_OK) return st_;    \
    } while (0)

