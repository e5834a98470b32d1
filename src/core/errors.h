/* ------------------------------------------------------------------------ */
/* >>api_errors */
/* X(name, message): every status has a name ("GK_ERR_SHAPE") and a message. */
#define GK__STATUS_LIST(X)                                                    \
    X(OK, "success")                                                          \
    X(ERR_INVALID_ARGUMENT, "invalid argument")                               \
    X(ERR_INVALID_HANDLE, "invalid, NULL or freed handle")                    \
    X(ERR_SHAPE, "incompatible shape")                                        \
    X(ERR_DTYPE, "unsupported or mismatched dtype")                           \
    X(ERR_OVERFLOW, "size overflow")                                          \
    X(ERR_OUT_OF_MEMORY, "out of memory")                                     \
    X(ERR_NO_DRIVER, "CUDA driver not available")                             \
    X(ERR_NO_DEVICE, "no usable CUDA device")                                 \
    X(ERR_NO_NVRTC, "NVRTC not available")                                    \
    X(ERR_CUDA, "CUDA driver call failed")                                    \
    X(ERR_COMPILE, "kernel compilation failed")                               \
    X(ERR_LAUNCH, "kernel launch failed")                                     \
    X(ERR_NOT_FOUND, "not found")                                             \
    X(ERR_UNSUPPORTED, "not supported")                                       \
    X(ERR_IO, "I/O error")                                                    \
    X(ERR_FORMAT, "malformed data")                                           \
    X(ERR_LIMIT, "limit exceeded")                                            \
    X(ERR_STATE, "call not valid in the current state")                       \
    X(ERR_INTERNAL, "internal error")                                         \
    X(ERR_TIMEOUT, "timed out")                                               \
    X(ERR_CANCELLED, "cancelled")                                             \
    X(ERR_REJECTED, "rejected by admission control")

#define GK__STATUS_ENUM(name, msg) GK_##name,
typedef enum gk_status { GK__STATUS_LIST(GK__STATUS_ENUM) GK_STATUS_COUNT } gk_status;
#undef GK__STATUS_ENUM

GKDEF const char *gk_status_name(gk_status s);     /* "GK_ERR_SHAPE" */
GKDEF const char *gk_status_message(gk_status s);  /* "incompatible shape" */
/* The calling thread's last error text on ctx (what failed and where; other
   threads' errors on a shared context never show here), or its last error
   outside any context when ctx is NULL (gk_ctx_create, context-free calls).
   Never NULL; "" when the thread had no error there. Successful calls leave
   it as it was; it stays until the thread's next error on ctx (a thread keeps
   the texts of the 4 contexts it failed on most recently). */
GKDEF const char *gk_last_error(gk_ctx *ctx);
/* Records an error (printf format) for the calling thread on ctx, or outside
   any context when ctx is NULL, and returns st. For layers built on gpukit
   (gpukit_llm.h). */
GKDEF gk_status gk_error_set(gk_ctx *ctx, gk_status st, const char *fmt, ...) GK__PRINTF(3, 4);
GKDEF void gk_error_clear(gk_ctx *ctx);

typedef enum gk_log_level {
    GK_LOG_DEFAULT = 0, /* = GK_LOG_WARN */
    GK_LOG_OFF,
    GK_LOG_ERROR,
    GK_LOG_WARN,
    GK_LOG_INFO,
    GK_LOG_DEBUG
} gk_log_level;
typedef void (*gk_log_fn)(gk_log_level level, const char *message, void *user);

