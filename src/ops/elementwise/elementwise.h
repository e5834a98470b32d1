/* ------------------------------------------------------------------------ */
/* >>api_ops */
/* Ops run on the current stream. Shapes follow NumPy broadcasting: inputs
   broadcast to the output's shape (the output itself never broadcasts).
   Arithmetic on f16 / bf16 / fp8 computes in f32 and rounds to nearest even;
   integer arithmetic wraps; integer division by zero gives 0. The _new
   variants allocate the output (broadcast shape, the inputs' dtype). */
GKDEF gk_status gk_fill(gk_ctx *ctx, gk_tensor t, double value);
GKDEF gk_status gk_copy(gk_ctx *ctx, gk_tensor dst, gk_tensor src);     /* same dtype */
GKDEF gk_status gk_cast(gk_ctx *ctx, gk_tensor dst, gk_tensor src);     /* any dtype pair (gk_convert rules) */
GKDEF gk_status gk_add(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b);
GKDEF gk_status gk_sub(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b);
GKDEF gk_status gk_mul(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b);
GKDEF gk_status gk_div(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b);
GKDEF gk_status gk_scale(gk_ctx *ctx, gk_tensor out, gk_tensor x, double alpha);  /* out = alpha * x */
GKDEF gk_status gk_axpy(gk_ctx *ctx, gk_tensor y, double alpha, gk_tensor x);    /* y += alpha * x */
GKDEF gk_status gk_add_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_tensor *out);
GKDEF gk_status gk_sub_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_tensor *out);
GKDEF gk_status gk_mul_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_tensor *out);
GKDEF gk_status gk_div_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_tensor *out);
GKDEF gk_status gk_cast_new(gk_ctx *ctx, gk_tensor src, gk_dtype dtype, gk_tensor *out);

