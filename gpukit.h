/* TEMPORARY STAND-IN for gpukit.h, written on branch `llm` only so that
   gpukit_llm.h can be developed before the real core exists on main.
   It declares the small part of the core API that gpukit_llm.h uses, with a
   host-only implementation. It is deleted when main (with the real
   gpukit.h) is merged. */
#ifndef GPUKIT_H
#define GPUKIT_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
typedef enum gk_status {
    GK_OK = 0, GK_ERR_INVALID_ARGUMENT, GK_ERR_OUT_OF_MEMORY, GK_ERR_IO, GK_ERR_FORMAT,
    GK_ERR_NOT_FOUND, GK_ERR_UNSUPPORTED, GK_ERR_SHAPE, GK_ERR_DTYPE, GK_ERR_OVERFLOW,
    GK_ERR_LIMIT, GK_ERR_NO_DEVICE
} gk_status;
typedef enum gk_dtype {
    GK_F32 = 0, GK_F64, GK_F16, GK_BF16, GK_F8E4M3, GK_F8E5M2, GK_I8, GK_U8, GK_I32, GK_I64,
    GK_DTYPE_COUNT
} gk_dtype;
typedef struct gk_ctx gk_ctx;
typedef struct gk_tensor { uint64_t id; } gk_tensor;
const char *gk_status_name(gk_status st);
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
gk_status gk_error_set(gk_ctx *ctx, gk_status st, const char *fmt, ...);
const char *gk_last_error(gk_ctx *ctx);
size_t gk_dtype_size(gk_dtype t);
const char *gk_dtype_name(gk_dtype t);
gk_status gk_convert(gk_dtype dst_type, void *dst, gk_dtype src_type, const void *src, size_t n);
gk_status gk_tensor_empty(gk_ctx *ctx, gk_dtype dt, int ndim, const int64_t *shape, gk_tensor *out);
gk_status gk_tensor_free(gk_ctx *ctx, gk_tensor t);
gk_status gk_copy_from_host(gk_ctx *ctx, gk_tensor dst, const void *src, size_t nbytes);
gk_status gk_cast(gk_ctx *ctx, gk_tensor dst, gk_tensor src);
#ifdef __cplusplus
}
#endif
#endif /* GPUKIT_H */

#ifdef GPUKIT_IMPLEMENTATION
#ifndef GPUKIT_STUB_IMPL_DONE
#define GPUKIT_STUB_IMPL_DONE
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <math.h>
#if defined(_MSC_VER)
#define GK__STUB_TLS __declspec(thread)
#elif defined(__cplusplus)
#define GK__STUB_TLS thread_local
#else
#define GK__STUB_TLS __thread
#endif
static GK__STUB_TLS char gk__stub_err[1024];
const char *gk_status_name(gk_status st) {
    static const char *n[] = {"GK_OK", "GK_ERR_INVALID_ARGUMENT", "GK_ERR_OUT_OF_MEMORY", "GK_ERR_IO",
        "GK_ERR_FORMAT", "GK_ERR_NOT_FOUND", "GK_ERR_UNSUPPORTED", "GK_ERR_SHAPE", "GK_ERR_DTYPE",
        "GK_ERR_OVERFLOW", "GK_ERR_LIMIT", "GK_ERR_NO_DEVICE"};
    return ((unsigned)st < sizeof n / sizeof n[0]) ? n[st] : "GK_ERR_?";
}
gk_status gk_error_set(gk_ctx *ctx, gk_status st, const char *fmt, ...) {
    va_list ap; (void)ctx;
    va_start(ap, fmt); vsnprintf(gk__stub_err, sizeof gk__stub_err, fmt, ap); va_end(ap);
    return st;
}
const char *gk_last_error(gk_ctx *ctx) { (void)ctx; return gk__stub_err; }
size_t gk_dtype_size(gk_dtype t) {
    static const size_t s[] = {4, 8, 2, 2, 1, 1, 1, 1, 4, 8};
    return ((unsigned)t < GK_DTYPE_COUNT) ? s[t] : 0;
}
const char *gk_dtype_name(gk_dtype t) {
    static const char *n[] = {"f32", "f64", "f16", "bf16", "f8e4m3", "f8e5m2", "i8", "u8", "i32", "i64"};
    return ((unsigned)t < GK_DTYPE_COUNT) ? n[t] : "?";
}
static double gk__stub_minifloat_to_d(unsigned v, int ebits, int mbits, int bias, int fnuz_e4m3) {
    unsigned s = v >> (ebits + mbits), e = (v >> mbits) & ((1u << ebits) - 1), m = v & ((1u << mbits) - 1);
    double r;
    if (fnuz_e4m3 && e == 15 && m == 7) return NAN;
    if (!fnuz_e4m3 && e == (1u << ebits) - 1) r = m ? NAN : INFINITY;
    else if (e == 0) r = ldexp((double)m, 1 - bias - mbits);
    else r = ldexp((double)(m | (1u << mbits)), (int)e - bias - mbits);
    return s ? -r : r;
}
static unsigned gk__stub_d_to_minifloat(double x, int ebits, int mbits, int bias, int e4m3) {
    unsigned s = signbit(x) ? 1u : 0u, best = 0;
    unsigned maxcode = e4m3 ? 0x7E : (unsigned)((((1u << ebits) - 2) << mbits) | ((1u << mbits) - 1));
    double a = fabs(x), bestd = 0;
    unsigned c;
    if (isnan(x)) return e4m3 ? 0x7F : (0x7Fu << 0) | 0x7Cu | 0x2u;
    if (e4m3 && a > 448.0) return (s << 7) | 0x7E;
    if (!e4m3 && a >= 61440.0) return (s << 7) | 0x7C; /* e5m2 overflow -> inf */
    for (c = 0; c <= maxcode; c++) {
        double v = gk__stub_minifloat_to_d(c, ebits, mbits, bias, e4m3), d = fabs(v - a);
        if (c == 0 || d < bestd || (d == bestd && (c & 1) == 0 && (best & 1))) { best = c; bestd = d; }
    }
    return (s << (ebits + mbits)) | best;
}
static double gk__stub_load(gk_dtype t, const void *p, size_t i) {
    const unsigned char *b = (const unsigned char *)p;
    switch (t) {
    case GK_F32: { float f; memcpy(&f, b + 4 * i, 4); return f; }
    case GK_F64: { double d; memcpy(&d, b + 8 * i, 8); return d; }
    case GK_F16: { uint16_t h; memcpy(&h, b + 2 * i, 2); return gk__stub_minifloat_to_d(h, 5, 10, 15, 0); }
    case GK_BF16: { uint16_t h; uint32_t u; float f; memcpy(&h, b + 2 * i, 2); u = (uint32_t)h << 16; memcpy(&f, &u, 4); return f; }
    case GK_F8E4M3: return gk__stub_minifloat_to_d(b[i], 4, 3, 7, 1);
    case GK_F8E5M2: return gk__stub_minifloat_to_d(b[i], 5, 2, 15, 0);
    case GK_I8: return (double)(int8_t)b[i];
    case GK_U8: return b[i];
    case GK_I32: { int32_t v; memcpy(&v, b + 4 * i, 4); return v; }
    case GK_I64: { int64_t v; memcpy(&v, b + 8 * i, 8); return (double)v; }
    default: return 0;
    }
}
static int64_t gk__stub_sat(double v, double lo, double hi) {
    if (v != v) return 0;
    v = trunc(v);
    if (v <= lo) return (int64_t)lo;
    if (v >= hi) return (int64_t)hi;
    return (int64_t)v;
}
gk_status gk_convert(gk_dtype dt, void *dst, gk_dtype st, const void *src, size_t n) {
    unsigned char *o = (unsigned char *)dst;
    size_t i;
    if ((unsigned)dt >= GK_DTYPE_COUNT || (unsigned)st >= GK_DTYPE_COUNT)
        return gk_error_set(NULL, GK_ERR_DTYPE, "gk_convert: bad dtype");
    if (dt == st) { memcpy(dst, src, n * gk_dtype_size(dt)); return GK_OK; }
    for (i = 0; i < n; i++) {
        double v;
        if (st == GK_I64 && dt == GK_I32) { int64_t x; memcpy(&x, (const char *)src + 8 * i, 8);
            { int32_t y = x < INT32_MIN ? INT32_MIN : x > INT32_MAX ? INT32_MAX : (int32_t)x; memcpy(o + 4 * i, &y, 4); } continue; }
        if (st == GK_I64 && dt == GK_F64) { int64_t x; double d; memcpy(&x, (const char *)src + 8 * i, 8); d = (double)x; memcpy(o + 8 * i, &d, 8); continue; }
        v = gk__stub_load(st, src, i);
        switch (dt) {
        case GK_F32: { float f = (float)v; memcpy(o + 4 * i, &f, 4); break; }
        case GK_F64: memcpy(o + 8 * i, &v, 8); break;
        case GK_F16: { uint16_t h = (uint16_t)gk__stub_d_to_minifloat((float)v, 5, 10, 15, 0);
            if (!isnan(v) && fabs(v) >= 65520.0) h = (uint16_t)(signbit(v) ? 0xFC00 : 0x7C00);
            if (isnan(v)) { h = 0x7E00; }
            memcpy(o + 2 * i, &h, 2); break; }
        case GK_BF16: { float f = (float)v; uint32_t u; uint16_t h; memcpy(&u, &f, 4);
            if (isnan(f)) h = 0x7FC0; else { u += 0x7FFF + ((u >> 16) & 1); h = (uint16_t)(u >> 16); }
            memcpy(o + 2 * i, &h, 2); break; }
        case GK_F8E4M3: o[i] = (unsigned char)gk__stub_d_to_minifloat((float)v, 4, 3, 7, 1); break;
        case GK_F8E5M2: o[i] = (unsigned char)gk__stub_d_to_minifloat((float)v, 5, 2, 15, 0); break;
        case GK_I8: { int8_t x = (int8_t)gk__stub_sat(v, -128, 127); memcpy(o + i, &x, 1); break; }
        case GK_U8: o[i] = (unsigned char)gk__stub_sat(v, 0, 255); break;
        case GK_I32: { int32_t x = (int32_t)gk__stub_sat(v, -2147483648.0, 2147483647.0); memcpy(o + 4 * i, &x, 4); break; }
        case GK_I64: { int64_t x = gk__stub_sat(v, -9223372036854775808.0, 9223372036854774784.0); memcpy(o + 8 * i, &x, 8); break; }
        default: break;
        }
    }
    return GK_OK;
}
gk_status gk_tensor_empty(gk_ctx *ctx, gk_dtype dt, int ndim, const int64_t *shape, gk_tensor *out) {
    (void)dt; (void)ndim; (void)shape; (void)out;
    return gk_error_set(ctx, GK_ERR_NO_DEVICE, "stand-in gpukit.h has no device");
}
gk_status gk_tensor_free(gk_ctx *ctx, gk_tensor t) { (void)ctx; (void)t; return GK_OK; }
gk_status gk_copy_from_host(gk_ctx *ctx, gk_tensor dst, const void *src, size_t nbytes) {
    (void)dst; (void)src; (void)nbytes; return gk_error_set(ctx, GK_ERR_NO_DEVICE, "stand-in gpukit.h has no device");
}
gk_status gk_cast(gk_ctx *ctx, gk_tensor dst, gk_tensor src) {
    (void)dst; (void)src; return gk_error_set(ctx, GK_ERR_NO_DEVICE, "stand-in gpukit.h has no device");
}
#endif
#endif
