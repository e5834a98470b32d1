/* ------------------------------------------------------------------------ */
/* >>api_dtypes */
typedef enum gk_dtype {
    GK_F32 = 0,  /* float */
    GK_F64,      /* double */
    GK_F16,      /* IEEE half, stored as uint16_t bits */
    GK_BF16,     /* bfloat16, stored as uint16_t bits */
    GK_F8E4M3,   /* OCP fp8 e4m3fn (no inf; conversion saturates to +-448) */
    GK_F8E5M2,   /* OCP fp8 e5m2 (IEEE-like, has inf) */
    GK_I8,
    GK_U8,
    GK_I32,
    GK_I64,
    GK_DTYPE_COUNT
} gk_dtype;

GKDEF size_t gk_dtype_size(gk_dtype dt);              /* 0 for an invalid dtype */
GKDEF const char *gk_dtype_name(gk_dtype dt);         /* "f32", "bf16", "f8e4m3", ...; "invalid" */
GKDEF gk_status gk_dtype_from_name(const char *name, gk_dtype *out);
GKDEF int gk_dtype_is_float(gk_dtype dt);
/* Converts n values between host buffers with exactly the rules of gk_cast on
   the device: float narrowing rounds to nearest even (overflow gives inf, or
   +-448 for e4m3; NaN stays NaN); float -> int truncates toward zero and
   saturates (NaN -> 0); int -> int wraps (two's complement); int -> float
   rounds to nearest even. dst and src must not overlap unless equal dtypes. */
GKDEF gk_status gk_convert(gk_dtype dst_type, void *dst, gk_dtype src_type, const void *src, size_t n);
/* Scalar conversions (the same rules). */
GKDEF uint16_t gk_f32_to_f16(float x);
GKDEF float gk_f16_to_f32(uint16_t h);
GKDEF uint16_t gk_f32_to_bf16(float x);
GKDEF float gk_bf16_to_f32(uint16_t h);
GKDEF uint8_t gk_f32_to_f8e4m3(float x);
GKDEF float gk_f8e4m3_to_f32(uint8_t v);
GKDEF uint8_t gk_f32_to_f8e5m2(float x);
GKDEF float gk_f8e5m2_to_f32(uint8_t v);

