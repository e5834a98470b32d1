/* ------------------------------------------------------------------------ */
/* >>dtypes */
static const size_t gk__dtype_sizes[GK_DTYPE_COUNT] = { 4, 8, 2, 2, 1, 1, 1, 1, 4, 8 };
static const char *const gk__dtype_names[GK_DTYPE_COUNT] = {
    "f32", "f64", "f16", "bf16", "f8e4m3", "f8e5m2", "i8", "u8", "i32", "i64" };

GKDEF size_t gk_dtype_size(gk_dtype dt) { return (dt >= 0 && dt < GK_DTYPE_COUNT) ? gk__dtype_sizes[dt] : 0; }
GKDEF const char *gk_dtype_name(gk_dtype dt) { return (dt >= 0 && dt < GK_DTYPE_COUNT) ? gk__dtype_names[dt] : "invalid"; }
GKDEF int gk_dtype_is_float(gk_dtype dt) { return dt >= GK_F32 && dt <= GK_F8E5M2; }
GKDEF gk_status gk_dtype_from_name(const char *name, gk_dtype *out) {
    int i;
    if (!name || !out) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "gk_dtype_from_name: NULL argument");
    for (i = 0; i < GK_DTYPE_COUNT; i++)
        if (strcmp(name, gk__dtype_names[i]) == 0) { *out = (gk_dtype)i; return GK_OK; }
    return gk__err(NULL, GK_ERR_DTYPE, "gk_dtype_from_name: unknown dtype '%s'", name);
}
static int gk__dtype_ok(gk_dtype dt) { return dt >= 0 && dt < GK_DTYPE_COUNT; }

/* Narrow float formats: exponent bits, mantissa bits, has inf (else satfinite). */
typedef struct gk__ffmt { int ebits, mbits, has_inf; } gk__ffmt;
static const gk__ffmt gk__fmt_f16 = { 5, 10, 1 }, gk__fmt_bf16 = { 8, 7, 1 },
                      gk__fmt_e4m3 = { 4, 3, 0 }, gk__fmt_e5m2 = { 5, 2, 1 };

/* Rounds sign * m * 2^(e - 63) (m has its top bit set, sticky already folded
   into bit 0) to the format, round to nearest even. */
static uint32_t gk__round_fmt(int sign, int e, uint64_t m, gk__ffmt f) {
    int bias = (1 << (f.ebits - 1)) - 1, emin = 1 - bias;
    uint32_t sbit = (uint32_t)sign << (f.ebits + f.mbits);
    uint32_t maxfin = f.has_inf ? ((((1u << f.ebits) - 2u) << f.mbits) | ((1u << f.mbits) - 1u))
                                : ((((1u << f.ebits) - 1u) << f.mbits) | ((1u << f.mbits) - 2u));
    uint32_t inf = ((1u << f.ebits) - 1u) << f.mbits;
    int shift = 63 - f.mbits + (e < emin ? emin - e : 0);
    uint64_t kept, rem, half;
    uint32_t bits;
    if (e > bias + 1) return sbit | (f.has_inf ? inf : maxfin);
    if (shift > 64) return sbit; /* below half of the smallest subnormal */
    if (shift == 64) { kept = 0; rem = m; half = (uint64_t)1 << 63; }
    else { kept = m >> shift; rem = m & (((uint64_t)1 << shift) - 1); half = (uint64_t)1 << (shift - 1); }
    if (rem > half || (rem == half && (kept & 1))) kept++;
    if (e < emin) bits = (uint32_t)kept; /* subnormal; a carry into bit mbits makes it normal */
    else bits = ((uint32_t)(e + bias - 1) << f.mbits) + (uint32_t)kept;
    if (bits > maxfin) bits = f.has_inf ? inf : maxfin;
    return sbit | bits;
}
/* canonical quiet NaN: exponent all ones, top mantissa bit (f16 0x7E00, bf16
   0x7FC0, e5m2 0x7E); e4m3's only NaN is 0x7F */
static uint32_t gk__fmt_nan(gk__ffmt f) {
    return f.has_inf ? (((1u << f.ebits) - 1u) << f.mbits) | (1u << (f.mbits - 1)) : (1u << (f.ebits + f.mbits)) - 1u;
}

static uint32_t gk__f64_to_fmt(double x, gk__ffmt f) {
    uint64_t u, m;
    int sign, ex;
    memcpy(&u, &x, 8);
    sign = (int)(u >> 63);
    ex = (int)((u >> 52) & 0x7FF);
    m = u & 0xFFFFFFFFFFFFFull;
    if (ex == 0x7FF) {
        if (m) return gk__fmt_nan(f);
        return ((uint32_t)sign << (f.ebits + f.mbits)) |
               (f.has_inf ? ((1u << f.ebits) - 1u) << f.mbits
                          : ((((1u << f.ebits) - 1u) << f.mbits) | ((1u << f.mbits) - 2u)));
    }
    if (ex == 0) {
        if (m == 0) return (uint32_t)sign << (f.ebits + f.mbits);
        ex = 1 - 1023;
        while (!(m & (1ull << 52))) { m <<= 1; ex--; }
    } else {
        ex -= 1023;
        m |= 1ull << 52;
    }
    return gk__round_fmt(sign, ex, m << 11, f);
}
static uint32_t gk__u64_to_fmt(int sign, uint64_t mag, gk__ffmt f) {
    int e = 63;
    if (mag == 0) return (uint32_t)sign << (f.ebits + f.mbits);
    while (!(mag & (1ull << 63))) { mag <<= 1; e--; }
    return gk__round_fmt(sign, e, mag, f);
}
/* 2^e as a double, built from its bits: valid for -1022 <= e <= 1023, which
   covers every format here (ebits <= 8). Multiplying by it is exact, as
   ldexp is, and costs a few instructions instead of a libm call (the CPU
   backend converts every fp8 load through here). */
static double gk__pow2(int e) {
    uint64_t u = (uint64_t)(e + 1023) << 52;
    double d;
    memcpy(&d, &u, 8);
    return d;
}
static double gk__fmt_to_f64(uint32_t b, gk__ffmt f) {
    int bias = (1 << (f.ebits - 1)) - 1;
    int sign = (int)((b >> (f.ebits + f.mbits)) & 1);
    int ex = (int)((b >> f.mbits) & ((1u << f.ebits) - 1));
    uint32_t man = b & ((1u << f.mbits) - 1);
    double v;
    if (ex == (1 << f.ebits) - 1 && (f.has_inf || man == (1u << f.mbits) - 1)) {
        if (f.has_inf && man == 0) v = HUGE_VAL;
        else return NAN;
    } else if (ex == 0) v = (double)man * gk__pow2(1 - bias - f.mbits);
    else v = (double)(man | (1u << f.mbits)) * gk__pow2(ex - bias - f.mbits);
    return sign ? -v : v;
}

GKDEF uint16_t gk_f32_to_f16(float x) { return (uint16_t)gk__f64_to_fmt((double)x, gk__fmt_f16); }
GKDEF float gk_f16_to_f32(uint16_t h) { /* exact, by bits: normals rebias the exponent, subnormals are man * 2^-24 */
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, ex = (h >> 10) & 0x1Fu, man = h & 0x3FFu, u;
    float f;
    if (ex == 0) { f = (float)man * (1.0f / 16777216.0f); return sign ? -f : f; }
    u = sign | (ex == 0x1Fu ? 0x7F800000u | (man << 13) : ((ex + 112u) << 23) | (man << 13));
    memcpy(&f, &u, 4);
    return f;
}
GKDEF uint16_t gk_f32_to_bf16(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return 0x7FC0;
    return (uint16_t)((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}
GKDEF float gk_bf16_to_f32(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
GKDEF uint8_t gk_f32_to_f8e4m3(float x) { return (uint8_t)gk__f64_to_fmt((double)x, gk__fmt_e4m3); }
GKDEF float gk_f8e4m3_to_f32(uint8_t v) { return (float)gk__fmt_to_f64(v, gk__fmt_e4m3); }
GKDEF uint8_t gk_f32_to_f8e5m2(float x) { return (uint8_t)gk__f64_to_fmt((double)x, gk__fmt_e5m2); }
GKDEF float gk_f8e5m2_to_f32(uint8_t v) { return (float)gk__fmt_to_f64(v, gk__fmt_e5m2); }

/* A loaded scalar: integers stay exact in i, floats are exact in f. */
typedef struct gk__scalar { int is_int; int64_t i; double f; } gk__scalar;

static gk__scalar gk__load(gk_dtype dt, const void *p) {
    gk__scalar s;
    s.is_int = 0; s.i = 0; s.f = 0;
    switch (dt) {
    case GK_F32: { float v; memcpy(&v, p, 4); s.f = v; break; }
    case GK_F64: memcpy(&s.f, p, 8); break;
    case GK_F16: { uint16_t v; memcpy(&v, p, 2); s.f = gk_f16_to_f32(v); break; }
    case GK_BF16: { uint16_t v; memcpy(&v, p, 2); s.f = gk_bf16_to_f32(v); break; }
    case GK_F8E4M3: s.f = gk__fmt_to_f64(*(const uint8_t *)p, gk__fmt_e4m3); break;
    case GK_F8E5M2: s.f = gk__fmt_to_f64(*(const uint8_t *)p, gk__fmt_e5m2); break;
    case GK_I8: s.is_int = 1; s.i = *(const int8_t *)p; break;
    case GK_U8: s.is_int = 1; s.i = *(const uint8_t *)p; break;
    case GK_I32: { int32_t v; memcpy(&v, p, 4); s.is_int = 1; s.i = v; break; }
    case GK_I64: s.is_int = 1; memcpy(&s.i, p, 8); break;
    default: break;
    }
    return s;
}
static int64_t gk__f64_to_i64_sat(double x, int64_t lo, int64_t hi) {
    if (x != x) return 0;
    if (x <= (double)lo) return lo;
    if (x >= (double)hi) return hi; /* (double)INT64_MAX == 2^63 */
    return (int64_t)x;              /* truncates toward zero */
}
static void gk__store(gk_dtype dt, void *p, gk__scalar s) {
    switch (dt) {
    case GK_F32: { /* NaN -> canonical 0x7FC00000 */
        float v = s.is_int ? (float)s.i : (float)s.f;
        uint32_t u = 0x7FC00000u;
        if (v == v) memcpy(&u, &v, 4);
        memcpy(p, &u, 4);
        break;
    }
    case GK_F64: {
        double v = s.is_int ? (double)s.i : s.f;
        uint64_t u = 0x7FF8000000000000ull;
        if (v == v) memcpy(&u, &v, 8);
        memcpy(p, &u, 8);
        break;
    }
    case GK_F16: case GK_BF16: {
        gk__ffmt f = dt == GK_F16 ? gk__fmt_f16 : gk__fmt_bf16;
        uint16_t v = (uint16_t)(s.is_int ? gk__u64_to_fmt(s.i < 0, s.i < 0 ? 0 - (uint64_t)s.i : (uint64_t)s.i, f)
                                         : gk__f64_to_fmt(s.f, f));
        memcpy(p, &v, 2);
        break;
    }
    case GK_F8E4M3: case GK_F8E5M2: {
        gk__ffmt f = dt == GK_F8E4M3 ? gk__fmt_e4m3 : gk__fmt_e5m2;
        *(uint8_t *)p = (uint8_t)(s.is_int ? gk__u64_to_fmt(s.i < 0, s.i < 0 ? 0 - (uint64_t)s.i : (uint64_t)s.i, f)
                                           : gk__f64_to_fmt(s.f, f));
        break;
    }
    case GK_I8: *(int8_t *)p = (int8_t)(uint8_t)(s.is_int ? (uint64_t)s.i : (uint64_t)gk__f64_to_i64_sat(s.f, -128, 127)); break;
    case GK_U8: *(uint8_t *)p = (uint8_t)(s.is_int ? (uint64_t)s.i : (uint64_t)gk__f64_to_i64_sat(s.f, 0, 255)); break;
    case GK_I32: {
        int32_t v = (int32_t)(uint32_t)(s.is_int ? (uint64_t)s.i : (uint64_t)gk__f64_to_i64_sat(s.f, INT32_MIN, INT32_MAX));
        memcpy(p, &v, 4);
        break;
    }
    case GK_I64: { int64_t v = s.is_int ? s.i : gk__f64_to_i64_sat(s.f, INT64_MIN, INT64_MAX); memcpy(p, &v, 8); break; }
    default: break;
    }
}

GKDEF gk_status gk_convert(gk_dtype dt, void *dst, gk_dtype st, const void *src, size_t n) {
    size_t i, ds, ss;
    if (!gk__dtype_ok(dt) || !gk__dtype_ok(st)) return gk__err(NULL, GK_ERR_DTYPE, "gk_convert: invalid dtype (%d -> %d)", (int)st, (int)dt);
    if (n && (!dst || !src)) return gk__err(NULL, GK_ERR_INVALID_ARGUMENT, "gk_convert: NULL buffer");
    ds = gk__dtype_sizes[dt]; ss = gk__dtype_sizes[st];
    if (dt == st) { if (dst != src) memmove(dst, src, n * ds); return GK_OK; }
    if (st == GK_F32 && dt == GK_BF16) { /* the common weight path, kept fast */
        for (i = 0; i < n; i++) { float v; uint16_t h; memcpy(&v, (const char *)src + 4 * i, 4); h = gk_f32_to_bf16(v); memcpy((char *)dst + 2 * i, &h, 2); }
        return GK_OK;
    }
    if (st == GK_BF16 && dt == GK_F32) {
        for (i = 0; i < n; i++) {
            uint16_t h;
            uint32_t u;
            memcpy(&h, (const char *)src + 2 * i, 2);
            u = ((h & 0x7FFFu) > 0x7F80u) ? 0x7FC00000u : (uint32_t)h << 16; /* canonical NaN */
            memcpy((char *)dst + 4 * i, &u, 4);
        }
        return GK_OK;
    }
    for (i = 0; i < n; i++) gk__store(dt, (char *)dst + i * ds, gk__load(st, (const char *)src + i * ss));
    return GK_OK;
}

