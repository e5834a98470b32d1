/* >>impl_kokoro_voice: voice packs (raw, .npy, .npz through zlib loaded at run time, safetensors), blends, style rows */
#if !defined(_WIN32)
#ifdef __cplusplus
}
#endif
#include <dirent.h> /* listing a folder of voices */
#ifdef __cplusplus
extern "C" {
#endif
#endif

#define GK__KV_FLOATS ((size_t)GK_KOKORO_VOICE_ROWS * GK_KOKORO_STYLE_DIM)
#define GK__KV_BYTES (GK__KV_FLOATS * 4)           /* 522240 */
#define GK__KV_MAX_FILE ((size_t)1 << 30)          /* a voice file or bundle larger than this is refused */
#define GK__KV_MAX_MEMBER ((uint64_t)64 << 20)     /* an .npz member larger than this is not a voice */

static uint16_t gk__kv_u16(const unsigned char *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint32_t gk__kv_u32(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint64_t gk__kv_u64(const unsigned char *p) { return (uint64_t)gk__kv_u32(p) | ((uint64_t)gk__kv_u32(p + 4) << 32); }

/* 510 x 256 little-endian float32 at p -> a new pack; every value finite */
static gk_status gk__kv_floats(const char *what, const unsigned char *p, gk_kokoro_voice *out) {
    size_t i;
    float *f = (float *)gk__u_malloc(GK__KV_BYTES);
    if (!f) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
    for (i = 0; i < GK__KV_FLOATS; i++) {
        uint32_t u = gk__kv_u32(p + 4 * i);
        memcpy(&f[i], &u, 4);
        if (!(f[i] - f[i] == 0.0f)) {
            int nan = f[i] != f[i];
            gk__u_free(f);
            return GK__U_ERR(GK_ERR_FORMAT, "%s: row %llu, column %llu is %s", what, (unsigned long long)(i / GK_KOKORO_STYLE_DIM),
                             (unsigned long long)(i % GK_KOKORO_STYLE_DIM), nan ? "NaN" : "infinite");
        }
    }
    out->data = f;
    out->rows = GK_KOKORO_VOICE_ROWS;
    return GK_OK;
}

/* appends s[0..n) to o (capacity cap, NUL-terminated, *k bytes used), cutting what does not fit */
static void gk__kv_cat(char *o, size_t cap, size_t *k, const char *s, size_t n) {
    if (*k + 1 >= cap) return;
    if (n > cap - 1 - *k) n = cap - 1 - *k;
    memcpy(o + *k, s, n);
    *k += n;
    o[*k] = 0;
}
/* "(510, 1, 256)" */
static void gk__kv_shape_str(const uint64_t *s, int nd, char *o, size_t cap) {
    int i;
    size_t k = 0;
    o[0] = 0;
    gk__kv_cat(o, cap, &k, "(", 1);
    for (i = 0; i < nd; i++) {
        char num[24];
        int m = snprintf(num, sizeof num, "%llu", (unsigned long long)s[i]);
        if (i) gk__kv_cat(o, cap, &k, ", ", 2);
        gk__kv_cat(o, cap, &k, num, m > 0 ? (size_t)m : 0);
    }
    gk__kv_cat(o, cap, &k, nd == 1 ? ",)" : ")", nd == 1 ? 2 : 1);
}
static int gk__kv_shape_ok(const uint64_t *s, int nd) {
    return (nd == 3 && s[0] == GK_KOKORO_VOICE_ROWS && s[1] == 1 && s[2] == GK_KOKORO_STYLE_DIM) ||
           (nd == 2 && s[0] == GK_KOKORO_VOICE_ROWS && s[1] == GK_KOKORO_STYLE_DIM);
}

/* ---- .npy ---- */
static void gk__kv_ws(const char *h, size_t n, size_t *i) {
    while (*i < n && (h[*i] == ' ' || h[*i] == '\t' || h[*i] == '\n' || h[*i] == '\r')) (*i)++;
}
/* a Python string literal at h[*i]: its contents [*b, *e) */
static int gk__kv_pystr(const char *h, size_t n, size_t *i, size_t *b, size_t *e) {
    char q;
    if (*i >= n || (h[*i] != '\'' && h[*i] != '"')) return 0;
    q = h[(*i)++];
    *b = *i;
    while (*i < n && h[*i] != q) {
        if (h[*i] == '\\') return 0;
        (*i)++;
    }
    if (*i >= n) return 0;
    *e = (*i)++;
    return 1;
}

static gk_status gk__kv_npy(const char *what, const unsigned char *d, size_t n, gk_kokoro_voice *out) {
    size_t hlen, h0, i = 0, b, e;
    const char *h;
    int have_descr = 0, have_fo = 0, have_shape = 0, fortran = 0, nd = 0;
    uint64_t shape[8];
    char sh[160];
    if (n < 10 || memcmp(d, "\x93NUMPY", 6) != 0) return GK__U_ERR(GK_ERR_FORMAT, "%s: not an .npy file (no \\x93NUMPY magic)", what);
    if (d[6] == 1) {
        hlen = gk__kv_u16(d + 8);
        h0 = 10;
    } else if (d[6] == 2 || d[6] == 3) {
        if (n < 12) return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header cut short", what);
        hlen = gk__kv_u32(d + 8);
        h0 = 12;
    } else
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: .npy format version %u.%u (1.0, 2.0 and 3.0 are read)", what, d[6], d[7]);
    if (hlen > n - h0) return GK__U_ERR(GK_ERR_FORMAT, "%s: the .npy header says %llu bytes, the file holds %llu after it", what,
                                        (unsigned long long)hlen, (unsigned long long)(n - h0));
    h = (const char *)d + h0;
    gk__kv_ws(h, hlen, &i);
    if (i >= hlen || h[i++] != '{') return GK__U_ERR(GK_ERR_FORMAT, "%s: the .npy header is not a dict", what);
    for (;;) {
        size_t kb, ke;
        gk__kv_ws(h, hlen, &i);
        if (i < hlen && h[i] == '}') break;
        if (!gk__kv_pystr(h, hlen, &i, &kb, &ke)) return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header: a key at byte %llu is not a string", what, (unsigned long long)(h0 + i));
        gk__kv_ws(h, hlen, &i);
        if (i >= hlen || h[i++] != ':') return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header: no ':' after key '%.*s'", what, (int)(ke - kb), h + kb);
        gk__kv_ws(h, hlen, &i);
        if (ke - kb == 5 && memcmp(h + kb, "descr", 5) == 0) {
            if (!gk__kv_pystr(h, hlen, &i, &b, &e)) return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header: 'descr' is not a string", what);
            if (!(e - b == 3 && memcmp(h + b, "<f4", 3) == 0))
                return GK__U_ERR(GK_ERR_DTYPE, "%s: dtype '%.*s': a voice is float32 ('<f4')", what, (int)(e - b > 32 ? 32 : e - b), h + b);
            have_descr = 1;
        } else if (ke - kb == 13 && memcmp(h + kb, "fortran_order", 13) == 0) {
            if (hlen - i >= 4 && memcmp(h + i, "True", 4) == 0) fortran = 1, i += 4;
            else if (hlen - i >= 5 && memcmp(h + i, "False", 5) == 0) i += 5;
            else return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header: 'fortran_order' is not True or False", what);
            have_fo = 1;
        } else if (ke - kb == 5 && memcmp(h + kb, "shape", 5) == 0) {
            if (i >= hlen || h[i++] != '(') return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header: 'shape' is not a tuple", what);
            for (;;) {
                uint64_t v = 0;
                size_t d0;
                gk__kv_ws(h, hlen, &i);
                if (i < hlen && h[i] == ')') break;
                d0 = i;
                while (i < hlen && h[i] >= '0' && h[i] <= '9' && i - d0 < 12) v = v * 10 + (uint64_t)(h[i++] - '0');
                if (i == d0 || nd >= 8) return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header: a bad 'shape'", what);
                shape[nd++] = v;
                gk__kv_ws(h, hlen, &i);
                if (i < hlen && h[i] == ',') i++;
                else if (!(i < hlen && h[i] == ')')) return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header: a bad 'shape'", what);
            }
            i++;
            have_shape = 1;
        } else
            return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header: unexpected key '%.*s'", what, (int)(ke - kb > 32 ? 32 : ke - kb), h + kb);
        gk__kv_ws(h, hlen, &i);
        if (i < hlen && h[i] == ',') i++;
        else if (!(i < hlen && h[i] == '}')) return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header: no ',' or '}' at byte %llu", what, (unsigned long long)(h0 + i));
    }
    if (!have_descr || !have_fo || !have_shape)
        return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header lacks '%s'", what, !have_descr ? "descr" : !have_fo ? "fortran_order" : "shape");
    if (fortran) return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: fortran_order is True: a voice is stored in C order", what);
    gk__kv_shape_str(shape, nd, sh, sizeof sh);
    if (!gk__kv_shape_ok(shape, nd))
        return GK__U_ERR(GK_ERR_SHAPE, "%s: shape %s: a voice is (510, 1, 256) or (510, 256)", what, sh);
    if (n - h0 - hlen != GK__KV_BYTES)
        return GK__U_ERR(GK_ERR_FORMAT, "%s: shape %s needs %llu bytes of data, the file holds %llu", what, sh,
                         (unsigned long long)GK__KV_BYTES, (unsigned long long)(n - h0 - hlen));
    return gk__kv_floats(what, d + h0 + hlen, out);
}

/* ---- zip (.npz) ---- */
typedef struct gk__kv_zent {
    const char *name;
    size_t nlen;
    uint64_t lho, csize, usize;
    uint32_t crc;
    unsigned method, flags;
} gk__kv_zent;

static gk_status gk__kv_zip_dir(const char *what, const unsigned char *d, size_t n, gk__kv_zent **ents, size_t *nent) {
    size_t p, lo, q, end, k;
    uint64_t count, cdsize, cdoff;
    int found = 0;
    gk__kv_zent *E;
    *ents = NULL;
    *nent = 0;
    if (n < 22) return GK__U_ERR(GK_ERR_FORMAT, "%s: a zip file cut short (%llu bytes)", what, (unsigned long long)n);
    lo = n - 22 > 65535 ? n - 22 - 65535 : 0;
    for (p = n - 22 + 1; p-- > lo;)
        if (memcmp(d + p, "PK\x05\x06", 4) == 0 && p + 22 + gk__kv_u16(d + p + 20) <= n) {
            found = 1;
            break;
        }
    if (!found) return GK__U_ERR(GK_ERR_FORMAT, "%s: a zip file without its end of central directory record", what);
    if (gk__kv_u16(d + p + 4) != 0 || gk__kv_u16(d + p + 6) != 0)
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: a zip file split over several disks", what);
    count = gk__kv_u16(d + p + 10);
    cdsize = gk__kv_u32(d + p + 12);
    cdoff = gk__kv_u32(d + p + 16);
    if (count == 0xFFFF || cdsize == 0xFFFFFFFFu || cdoff == 0xFFFFFFFFu) { /* ZIP64 */
        uint64_t z;
        if (p < 20 || memcmp(d + p - 20, "PK\x06\x07", 4) != 0)
            return GK__U_ERR(GK_ERR_FORMAT, "%s: a ZIP64 file without its ZIP64 end of central directory locator", what);
        z = gk__kv_u64(d + p - 20 + 8);
        if (n < 56 || z > n - 56 || memcmp(d + z, "PK\x06\x06", 4) != 0)
            return GK__U_ERR(GK_ERR_FORMAT, "%s: the ZIP64 end of central directory record is not where its locator says", what);
        count = gk__kv_u64(d + z + 32);
        cdsize = gk__kv_u64(d + z + 40);
        cdoff = gk__kv_u64(d + z + 48);
    }
    if (cdoff > n || cdsize > n - cdoff)
        return GK__U_ERR(GK_ERR_FORMAT, "%s: the zip central directory (%llu bytes at %llu) runs past the end of the file (%llu bytes)", what,
                         (unsigned long long)cdsize, (unsigned long long)cdoff, (unsigned long long)n);
    if (count > cdsize / 46) return GK__U_ERR(GK_ERR_FORMAT, "%s: the zip says %llu members, its central directory holds fewer", what, (unsigned long long)count);
    E = (gk__kv_zent *)gk__u_calloc(count ? (size_t)count : 1, sizeof *E);
    if (!E) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
    q = (size_t)cdoff;
    end = (size_t)(cdoff + cdsize);
    for (k = 0; k < count; k++) {
        gk__kv_zent *z = &E[k];
        size_t nl, xl, cl, x;
        if (end - q < 46 || memcmp(d + q, "PK\x01\x02", 4) != 0) {
            gk__u_free(E);
            return GK__U_ERR(GK_ERR_FORMAT, "%s: zip central directory entry %llu is malformed", what, (unsigned long long)k);
        }
        z->flags = gk__kv_u16(d + q + 8);
        z->method = gk__kv_u16(d + q + 10);
        z->crc = gk__kv_u32(d + q + 16);
        z->csize = gk__kv_u32(d + q + 20);
        z->usize = gk__kv_u32(d + q + 24);
        nl = gk__kv_u16(d + q + 28);
        xl = gk__kv_u16(d + q + 30);
        cl = gk__kv_u16(d + q + 32);
        z->lho = gk__kv_u32(d + q + 42);
        if (end - q - 46 < nl + xl + cl) {
            gk__u_free(E);
            return GK__U_ERR(GK_ERR_FORMAT, "%s: zip central directory entry %llu runs past the directory", what, (unsigned long long)k);
        }
        z->name = (const char *)d + q + 46;
        z->nlen = nl;
        /* the ZIP64 extra field: the 32-bit fields at 0xFFFFFFFF, in order */
        for (x = q + 46 + nl; x + 4 <= q + 46 + nl + xl;) {
            size_t id = gk__kv_u16(d + x), sz = gk__kv_u16(d + x + 2), f = x + 4, fe = x + 4 + sz;
            if (fe > q + 46 + nl + xl) break;
            if (id == 1) {
                if (z->usize == 0xFFFFFFFFu && f + 8 <= fe) z->usize = gk__kv_u64(d + f), f += 8;
                if (z->csize == 0xFFFFFFFFu && f + 8 <= fe) z->csize = gk__kv_u64(d + f), f += 8;
                if (z->lho == 0xFFFFFFFFu && f + 8 <= fe) z->lho = gk__kv_u64(d + f);
            }
            x = fe;
        }
        q += 46 + nl + xl + cl;
    }
    *ents = E;
    *nent = (size_t)count;
    return GK_OK;
}

/* ---- zlib, opened at run time (as gk_whisper_compression_ratio does) ---- */
typedef struct gk__kv_zstream { /* zlib's z_stream */
    const unsigned char *next_in;
    unsigned avail_in;
    unsigned long total_in;
    unsigned char *next_out;
    unsigned avail_out;
    unsigned long total_out;
    const char *msg;
    void *state;
    void *zalloc, *zfree, *opaque;
    int data_type;
    unsigned long adler, reserved;
} gk__kv_zstream;
typedef int (*gk__kv_inflateinit2_fn)(gk__kv_zstream *, int, const char *, int);
typedef int (*gk__kv_inflate_fn)(gk__kv_zstream *, int);
typedef int (*gk__kv_inflateend_fn)(gk__kv_zstream *);
typedef const char *(*gk__kv_zversion_fn)(void);

/* raw deflate src[0..cn) -> exactly un bytes at dst */
static gk_status gk__kv_inflate(const char *what, const unsigned char *src, size_t cn, unsigned char *dst, size_t un) {
    static const char *const names[4] = {"libz.so.1", "libz.so", "libz.dylib", "zlib1.dll"};
    gk__ke_lib lib = NULL;
    gk__kv_inflateinit2_fn init_;
    gk__kv_inflate_fn inflate_;
    gk__kv_inflateend_fn end_;
    gk__kv_zversion_fn ver_;
    void *p[4];
    gk__kv_zstream z;
    gk_status st = GK_OK;
    int i, rc;
    for (i = 0; i < 4 && !lib; i++) lib = gk__ke_dlopen(names[i]);
    if (!lib)
        return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: a deflated .npz member needs zlib, which is not installed (tried libz.so.1, libz.so, "
                         "libz.dylib, zlib1.dll; it is loaded at run time, not linked): install it (Debian / Ubuntu: apt-get install zlib1g)", what);
    p[0] = gk__ke_dlsym(lib, "inflateInit2_");
    p[1] = gk__ke_dlsym(lib, "inflate");
    p[2] = gk__ke_dlsym(lib, "inflateEnd");
    p[3] = gk__ke_dlsym(lib, "zlibVersion");
    if (!p[0] || !p[1] || !p[2] || !p[3]) {
        gk__ke_dlclose(lib);
        return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: the zlib library that loaded lacks inflateInit2_, inflate, inflateEnd or zlibVersion", what);
    }
    memcpy(&init_, &p[0], sizeof init_);
    memcpy(&inflate_, &p[1], sizeof inflate_);
    memcpy(&end_, &p[2], sizeof end_);
    memcpy(&ver_, &p[3], sizeof ver_);
    memset(&z, 0, sizeof z);
    if (init_(&z, -15, ver_(), (int)sizeof z) != 0) st = GK__U_ERR(GK_ERR_INTERNAL, "%s: zlib's inflateInit2 failed", what);
    else {
        z.next_in = src;
        z.avail_in = (unsigned)cn;
        z.next_out = dst;
        z.avail_out = (unsigned)un;
        rc = inflate_(&z, 4 /* Z_FINISH */);
        if (rc != 1 /* Z_STREAM_END */ || z.total_out != un)
            st = GK__U_ERR(GK_ERR_FORMAT, "%s: the deflated data is corrupt or not %llu bytes long (zlib: %d%s%s)", what,
                           (unsigned long long)un, rc, z.msg ? ", " : "", z.msg ? z.msg : "");
        end_(&z);
    }
    gk__ke_dlclose(lib);
    return st;
}

static uint32_t gk__kv_crc32(const unsigned char *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    size_t i;
    int k;
    for (i = 0; i < n; i++) {
        c ^= p[i];
        for (k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

/* ---- sources: a file or memory, sniffed; or a folder ---- */
enum { GK__KV_RAW = 1, GK__KV_NPY, GK__KV_NPZ, GK__KV_ST, GK__KV_DIR };
typedef struct gk__kv_src {
    const char *what;          /* the path or name messages use */
    const unsigned char *d;
    size_t n;
    char *owned;               /* the file's bytes when read here */
    int kind;
    gk__kv_zent *ent;          /* NPZ members */
    size_t nent;
    gk_safetensors *st;
    char base[128];            /* a file's name without folder and extension; "" from memory */
} gk__kv_src;

static void gk__kv_src_free(gk__kv_src *s) {
    gk_read_file_free(s->owned);
    gk__u_free(s->ent);
    gk_st_close(s->st);
    memset(s, 0, sizeof *s);
}

static const char *gk__kv_pt_help =
    "a PyTorch pickle (voices/<name>.pt), which gpukit does not read: convert it once, e.g. "
    "python3 -c \"import torch, numpy; numpy.save('af_heart.npy', torch.load('af_heart.pt').numpy())\", "
    "or use kokoro-onnx's voices-v1.0.bin or a .safetensors voice";

static gk_status gk__kv_src_mem(gk__kv_src *s) {
    const unsigned char *d = s->d;
    size_t n = s->n, i;
    gk_status st;
    if (n >= 6 && memcmp(d, "\x93NUMPY", 6) == 0) s->kind = GK__KV_NPY;
    else if (n >= 4 && (memcmp(d, "PK\x03\x04", 4) == 0 || memcmp(d, "PK\x05\x06", 4) == 0)) {
        if ((st = gk__kv_zip_dir(s->what, d, n, &s->ent, &s->nent)) != GK_OK) return st;
        for (i = 0; i < s->nent; i++)
            if (s->ent[i].nlen >= 8 && memcmp(s->ent[i].name + s->ent[i].nlen - 8, "data.pkl", 8) == 0)
                return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: %s", s->what, gk__kv_pt_help);
        s->kind = GK__KV_NPZ;
    } else if (n >= 9 && d[8] == '{' && gk__kv_u64(d) <= n - 8 && (st = gk_st_open_memory(d, n, &s->st)) != GK_OK &&
               n != GK__KV_BYTES) {
        char msg[512];
        gk__u_errcopy(msg, sizeof msg);
        return GK__U_ERR(st, "%s: %s", s->what, msg);
    } else if (s->st)
        s->kind = GK__KV_ST;
    else if (n == GK__KV_BYTES) /* raw floats (also ones whose first bytes happen to look like a safetensors header) */
        s->kind = GK__KV_RAW;
    else if (n >= 2 && d[0] == 0x80 && d[1] >= 2 && d[1] <= 5)
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: %s", s->what, gk__kv_pt_help);
    else
        return GK__U_ERR(GK_ERR_FORMAT,
                         "%s: %llu bytes, and not .npy, .npz or safetensors: a raw voice (.bin) is 510 x 256 float32, "
                         "exactly %llu bytes",
                         s->what, (unsigned long long)n, (unsigned long long)GK__KV_BYTES);
    return GK_OK;
}

static int gk__kv_isdir(const char *path) { return gk__u_is_dir(path); }
static int gk__kv_isfile(const char *path) { return !gk__u_is_dir(path) && gk__u_file_exists(path); }

static gk_status gk__kv_src_file(const char *path, gk__kv_src *s) {
    const char *b = path, *p, *dot = NULL;
    size_t n;
    gk_status st;
    memset(s, 0, sizeof *s);
    s->what = path;
    if (gk__kv_isdir(path)) {
        s->kind = GK__KV_DIR;
        return GK_OK;
    }
    for (p = path; *p; p++)
        if (*p == '/' || *p == '\\') b = p + 1;
    for (p = b; *p; p++)
        if (*p == '.') dot = p;
    n = dot && dot > b ? (size_t)(dot - b) : strlen(b);
    if (n >= sizeof s->base) n = sizeof s->base - 1;
    memcpy(s->base, b, n);
    s->base[n] = 0;
    if ((st = gk_read_file(path, GK__KV_MAX_FILE, &s->owned, &s->n)) != GK_OK) {
        char msg[512];
        gk__u_errcopy(msg, sizeof msg);
        return GK__U_ERR(st, "gk_kokoro_voice_load: %s", msg);
    }
    s->d = (const unsigned char *)s->owned;
    st = gk__kv_src_mem(s);
    if (st != GK_OK) gk__kv_src_free(s);
    return st;
}

/* the names a source holds, appended to names (each NUL-terminated) */
static int gk__kv_cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static gk_status gk__kv_member(const gk__kv_src *s, const gk__kv_zent *z, gk_kokoro_voice *out) {
    char what[512];
    const unsigned char *d = s->d;
    uint64_t dat;
    unsigned char *buf = NULL;
    gk_status st;
    snprintf(what, sizeof what, "%s: member '%.*s'", s->what, (int)(z->nlen > 200 ? 200 : z->nlen), z->name);
    if (z->flags & 1) return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s is encrypted", what);
    if (z->method != 0 && z->method != 8)
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: zip compression method %u (stored 0 and deflate 8 are read)", what, z->method);
    if (z->lho > s->n || s->n - z->lho < 30 || memcmp(d + z->lho, "PK\x03\x04", 4) != 0)
        return GK__U_ERR(GK_ERR_FORMAT, "%s: no local header at offset %llu", what, (unsigned long long)z->lho);
    dat = z->lho + 30 + gk__kv_u16(d + z->lho + 26) + gk__kv_u16(d + z->lho + 28);
    if (dat > s->n || z->csize > s->n - dat)
        return GK__U_ERR(GK_ERR_FORMAT, "%s: %llu bytes of data at offset %llu run past the end of the file", what,
                         (unsigned long long)z->csize, (unsigned long long)dat);
    if (z->usize > GK__KV_MAX_MEMBER)
        return GK__U_ERR(GK_ERR_LIMIT, "%s: %llu bytes uncompressed, larger than a voice", what, (unsigned long long)z->usize);
    if (z->method == 0) {
        if (z->csize != z->usize)
            return GK__U_ERR(GK_ERR_FORMAT, "%s: stored, but its sizes differ (%llu, %llu)", what, (unsigned long long)z->csize,
                             (unsigned long long)z->usize);
        if (gk__kv_crc32(d + dat, (size_t)z->usize) != z->crc) return GK__U_ERR(GK_ERR_FORMAT, "%s: CRC-32 mismatch", what);
        return gk__kv_npy(what, d + dat, (size_t)z->usize, out);
    }
    buf = (unsigned char *)gk__u_malloc((size_t)z->usize);
    if (!buf) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
    st = gk__kv_inflate(what, d + dat, (size_t)z->csize, buf, (size_t)z->usize);
    if (st == GK_OK && gk__kv_crc32(buf, (size_t)z->usize) != z->crc) st = GK__U_ERR(GK_ERR_FORMAT, "%s: CRC-32 mismatch", what);
    if (st == GK_OK) st = gk__kv_npy(what, buf, (size_t)z->usize, out);
    gk__u_free(buf);
    return st;
}

/* the voice name of an npz member: its name less ".npy" */
static size_t gk__kv_member_name(const gk__kv_zent *z) { return z->nlen >= 4 && memcmp(z->name + z->nlen - 4, ".npy", 4) == 0 ? z->nlen - 4 : z->nlen; }

static gk_status gk__kv_tensor(const gk__kv_src *s, const gk_st_tensor_info *t, gk_kokoro_voice *out) {
    uint64_t sh[GK_ST_MAX_DIMS];
    char shs[160];
    int i;
    float *f;
    size_t k;
    for (i = 0; i < t->ndim; i++) sh[i] = (uint64_t)t->shape[i];
    if (t->dtype != GK_ST_F32 && t->dtype != GK_ST_F16 && t->dtype != GK_ST_BF16)
        return GK__U_ERR(GK_ERR_DTYPE, "%s: tensor '%s' is %s: a voice is F32 (or F16 / BF16)", s->what, t->name, gk_st_dtype_name(t->dtype));
    if (!gk__kv_shape_ok(sh, t->ndim)) {
        gk__kv_shape_str(sh, t->ndim, shs, sizeof shs);
        return GK__U_ERR(GK_ERR_SHAPE, "%s: tensor '%s' has shape %s: a voice is (510, 1, 256) or (510, 256)", s->what, t->name, shs);
    }
    f = (float *)gk__u_malloc(GK__KV_BYTES);
    if (!f) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", s->what);
    if (gk_st_read(s->st, t->name, GK_F32, f, GK__KV_BYTES) != GK_OK) {
        char msg[512];
        gk__u_errcopy(msg, sizeof msg);
        gk__u_free(f);
        return GK__U_ERR(GK_ERR_FORMAT, "%s: %s", s->what, msg);
    }
    for (k = 0; k < GK__KV_FLOATS; k++)
        if (!(f[k] - f[k] == 0.0f)) {
            int nan = f[k] != f[k];
            gk__u_free(f);
            return GK__U_ERR(GK_ERR_FORMAT, "%s: tensor '%s': row %llu, column %llu is %s", s->what, t->name,
                             (unsigned long long)(k / GK_KOKORO_STYLE_DIM), (unsigned long long)(k % GK_KOKORO_STYLE_DIM),
                             nan ? "NaN" : "infinite");
        }
    out->data = f;
    out->rows = GK_KOKORO_VOICE_ROWS;
    return GK_OK;
}

/* "a, b, c, ..." (the first six names) of a bundle for messages */
static void gk__kv_some_names(const gk__kv_src *s, char *o, size_t cap) {
    size_t i, k = 0, n = s->kind == GK__KV_NPZ ? s->nent : gk_st_count(s->st);
    o[0] = 0;
    for (i = 0; i < n && i < 6; i++) {
        if (i) gk__kv_cat(o, cap, &k, ", ", 2);
        if (s->kind == GK__KV_NPZ) gk__kv_cat(o, cap, &k, s->ent[i].name, gk__kv_member_name(&s->ent[i]));
        else gk__kv_cat(o, cap, &k, gk_st_tensor(s->st, i)->name, strlen(gk_st_tensor(s->st, i)->name));
    }
    if (n > 6) gk__kv_cat(o, cap, &k, ", ...", 5);
}

/* one voice of a source by name (NULL or "": its only voice) */
static gk_status gk__kv_get(const gk__kv_src *s, const char *name, gk_kokoro_voice *out) {
    int named = name && name[0];
    char list[400];
    size_t i, nl = named ? strlen(name) : 0;
    memset(out, 0, sizeof *out);
    switch (s->kind) {
    case GK__KV_RAW:
    case GK__KV_NPY:
        if (named && s->base[0] && strcmp(name, s->base) != 0)
            return GK__U_ERR(GK_ERR_NOT_FOUND, "%s holds one voice, '%s', not '%s'", s->what, s->base, name);
        return s->kind == GK__KV_RAW ? gk__kv_floats(s->what, s->d, out) : gk__kv_npy(s->what, s->d, s->n, out);
    case GK__KV_NPZ:
        if (s->nent == 0) return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: the .npz holds no voices", s->what);
        if (!named) {
            if (s->nent == 1) return gk__kv_member(s, &s->ent[0], out);
            gk__kv_some_names(s, list, sizeof list);
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s holds %llu voices (%s): name one", s->what, (unsigned long long)s->nent, list);
        }
        for (i = 0; i < s->nent; i++)
            if (gk__kv_member_name(&s->ent[i]) == nl && memcmp(s->ent[i].name, name, nl) == 0) return gk__kv_member(s, &s->ent[i], out);
        if (s->nent == 1 && s->base[0] && strcmp(name, s->base) == 0) return gk__kv_member(s, &s->ent[0], out);
        gk__kv_some_names(s, list, sizeof list);
        return GK__U_ERR(GK_ERR_NOT_FOUND, "%s has no voice '%s' (it holds %llu: %s)", s->what, name, (unsigned long long)s->nent, list);
    case GK__KV_ST: {
        size_t n = gk_st_count(s->st);
        const gk_st_tensor_info *t;
        if (n == 0) return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: the safetensors file holds no tensors", s->what);
        if (!named) {
            if (n == 1) return gk__kv_tensor(s, gk_st_tensor(s->st, 0), out);
            gk__kv_some_names(s, list, sizeof list);
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s holds %llu voices (%s): name one", s->what, (unsigned long long)n, list);
        }
        if ((t = gk_st_find(s->st, name)) != NULL) return gk__kv_tensor(s, t, out);
        if (n == 1 && s->base[0] && strcmp(name, s->base) == 0) return gk__kv_tensor(s, gk_st_tensor(s->st, 0), out);
        gk__kv_some_names(s, list, sizeof list);
        return GK__U_ERR(GK_ERR_NOT_FOUND, "%s has no voice '%s' (it holds %llu: %s)", s->what, name, (unsigned long long)n, list);
    }
    case GK__KV_DIR: {
        static const char *const ext[3] = {".bin", ".npy", ".safetensors"};
        gk_buf p = {NULL, 0, 0};
        gk_status st = GK_OK;
        int e;
        if (!named) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s is a folder of voices: name one", s->what);
        if (strchr(name, '/') || strchr(name, '\\'))
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "voice name '%s' holds a path separator: name a voice of the folder %s", name, s->what);
        for (e = 0; e < 4 && st == GK_OK; e++) {
            p.len = 0;
            st = gk__u_buf_puts(&p, s->what);
            if (st == GK_OK) st = gk__u_buf_puts(&p, "/");
            if (st == GK_OK) st = gk__u_buf_puts(&p, name);
            if (st == GK_OK) st = gk__u_buf_puts(&p, e < 3 ? ext[e] : ".pt");
            if (st == GK_OK && gk__kv_isfile(p.data)) {
                gk__kv_src f;
                if (e == 3) {
                    st = GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: %s", p.data, gk__kv_pt_help);
                    break;
                }
                if ((st = gk__kv_src_file(p.data, &f)) == GK_OK) {
                    st = gk__kv_get(&f, f.kind == GK__KV_NPZ || f.kind == GK__KV_ST ? NULL : name, out);
                    if (st == GK_ERR_INVALID_ARGUMENT && (f.kind == GK__KV_NPZ || f.kind == GK__KV_ST)) st = gk__kv_get(&f, name, out);
                    gk__kv_src_free(&f);
                }
                gk_buf_free(&p);
                return st;
            }
        }
        gk_buf_free(&p);
        if (st != GK_OK) return st;
        return GK__U_ERR(GK_ERR_NOT_FOUND, "%s has no voice '%s' (looked for %s.bin, %s.npy, %s.safetensors)", s->what, name, name, name, name);
    }
    default:
        return GK__U_ERR(GK_ERR_INTERNAL, "%s: unknown source", s->what);
    }
}

/* ---- blends ---- */
GKLLMDEF gk_status gk_kokoro_voice_blend(const gk_kokoro_voice *voices, const double *weights, size_t n, gk_kokoro_voice *out) {
    const char *F = "gk_kokoro_voice_blend";
    double sum = 0, *acc;
    size_t i, k, rows;
    float *f;
    if (out) memset(out, 0, sizeof *out);
    if (!voices || !out || n == 0) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s", F, !out ? "out is NULL" : !voices ? "voices is NULL" : "n is 0");
    rows = voices[0].rows;
    for (i = 0; i < n; i++) {
        double w = weights ? weights[i] : 1.0;
        if (!voices[i].data || voices[i].rows == 0) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: voice %llu is empty", F, (unsigned long long)i);
        if (voices[i].rows != rows)
            return GK__U_ERR(GK_ERR_SHAPE, "%s: voice %llu has %llu rows, voice 0 has %llu", F, (unsigned long long)i,
                             (unsigned long long)voices[i].rows, (unsigned long long)rows);
        if (!(w > 0) || w - w != 0)
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: weight %llu is %g: weights must be positive and finite", F, (unsigned long long)i, w);
        sum += w;
    }
    if (!(sum - sum == 0)) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: the weights sum to %g", F, sum);
    acc = (double *)gk__u_calloc(rows * GK_KOKORO_STYLE_DIM, sizeof(double));
    f = (float *)gk__u_malloc(rows * GK_KOKORO_STYLE_DIM * sizeof(float));
    if (!acc || !f) {
        gk__u_free(acc);
        gk__u_free(f);
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", F);
    }
    for (i = 0; i < n; i++) {
        double w = (weights ? weights[i] : 1.0) / sum;
        const float *v = voices[i].data;
        for (k = 0; k < rows * GK_KOKORO_STYLE_DIM; k++) acc[k] += w * (double)v[k];
    }
    for (k = 0; k < rows * GK_KOKORO_STYLE_DIM; k++) f[k] = (float)acc[k];
    gk__u_free(acc);
    out->data = f;
    out->rows = rows;
    return GK_OK;
}

/* a weight's text: [+-]digits[.digits][e[+-]digits] (or .digits) */
static int gk__kv_number(const char *s, size_t n) {
    size_t i = 0, dg = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++, dg++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++, dg++;
    }
    if (!dg) return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t e0;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        e0 = i;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
        if (i == e0) return 0;
    }
    return i == n;
}

static gk_status gk__kv_load(gk__kv_src *s, const char *spec, gk_kokoro_voice *out) {
    const char *F = "gk_kokoro_voice_load";
    gk_kokoro_voice *packs = NULL;
    double *w = NULL;
    size_t n = 0, cap = 0, i;
    const char *p = spec;
    gk_status st = GK_OK;
    int weighted = 0;
    if (!spec || !spec[0]) return gk__kv_get(s, NULL, out);
    while (st == GK_OK) {
        const char *e = strchr(p, ','), *c, *nb, *ne;
        char name[256], num[64];
        double v = 1;
        if (!e) e = p + strlen(p);
        for (c = e; c > p && c[-1] != ':'; c--) {}
        nb = p;
        ne = c > p ? c - 1 : e;
        while (nb < ne && (*nb == ' ' || *nb == '\t')) nb++;
        while (ne > nb && (ne[-1] == ' ' || ne[-1] == '\t')) ne--;
        if (ne == nb) {
            st = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: voice spec '%s': an empty voice name at byte %llu", F, spec, (unsigned long long)(p - spec));
            break;
        }
        if ((size_t)(ne - nb) >= sizeof name) {
            st = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: voice spec '%s': a voice name longer than %d bytes", F, spec, (int)sizeof name - 1);
            break;
        }
        memcpy(name, nb, (size_t)(ne - nb));
        name[ne - nb] = 0;
        if (c > p) { /* ":weight" */
            const char *wb = c, *we = e;
            while (wb < we && (*wb == ' ' || *wb == '\t')) wb++;
            while (we > wb && (we[-1] == ' ' || we[-1] == '\t')) we--;
            if ((size_t)(we - wb) >= sizeof num || !gk__kv_number(wb, (size_t)(we - wb))) {
                st = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: voice spec '%s': the weight '%.*s' of '%s' is not a number", F, spec,
                               (int)(we - wb > 40 ? 40 : we - wb), wb, name);
                break;
            }
            memcpy(num, wb, (size_t)(we - wb));
            num[we - wb] = 0;
            v = strtod(num, NULL);
            if (!(v > 0) || v - v != 0) {
                st = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: voice spec '%s': the weight %s of '%s' is %s: weights must be positive and finite",
                               F, spec, num, name, v < 0 ? "negative" : v == 0 ? "zero" : "not finite");
                break;
            }
            weighted = 1;
        }
        if (n == cap) {
            size_t wcap = cap;
            if (!gk__u_grow((void **)&packs, &cap, n + 1, sizeof *packs) || !gk__u_grow((void **)&w, &wcap, cap, sizeof *w)) {
                st = GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", F);
                break;
            }
        }
        if ((st = gk__kv_get(s, name, &packs[n])) != GK_OK) break;
        w[n++] = v;
        if (!*e) break;
        p = e + 1;
    }
    if (st == GK_OK) {
        if (n == 1 && !weighted) { /* one voice: as stored */
            *out = packs[0];
            packs[0].data = NULL;
        } else
            st = gk_kokoro_voice_blend(packs, w, n, out);
    }
    for (i = 0; i < n; i++) gk_kokoro_voice_free(&packs[i]);
    gk__u_free(packs);
    gk__u_free(w);
    return st;
}

GKLLMDEF gk_status gk_kokoro_voice_load(const char *path, const char *spec, gk_kokoro_voice *out) {
    gk__kv_src s;
    gk_status st;
    if (out) memset(out, 0, sizeof *out);
    if (!path || !out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_kokoro_voice_load: %s is NULL", path ? "out" : "path");
    if ((st = gk__kv_src_file(path, &s)) != GK_OK) return st;
    st = gk__kv_load(&s, spec, out);
    gk__kv_src_free(&s);
    return st;
}

GKLLMDEF gk_status gk_kokoro_voice_load_memory(const void *data, size_t size, const char *name, const char *spec, gk_kokoro_voice *out) {
    gk__kv_src s;
    gk_status st;
    if (out) memset(out, 0, sizeof *out);
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_kokoro_voice_load_memory: out is NULL");
    if (!data && size) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_kokoro_voice_load_memory: data is NULL but size is %llu", (unsigned long long)size);
    memset(&s, 0, sizeof s);
    s.what = name ? name : "memory";
    s.d = (const unsigned char *)(data ? data : "");
    s.n = size;
    if ((st = gk__kv_src_mem(&s)) == GK_OK) st = gk__kv_load(&s, spec, out);
    gk__kv_src_free(&s);
    return st;
}

/* the voice files of a folder (*.bin, *.npy, *.safetensors) less their extension, NUL-separated */
static gk_status gk__kv_dir_add(gk_buf *names, size_t *n, const char *nm) {
    size_t l = strlen(nm), k = 0;
    gk_status st;
    if (l > 4 && (strcmp(nm + l - 4, ".bin") == 0 || strcmp(nm + l - 4, ".npy") == 0)) k = l - 4;
    else if (l > 12 && strcmp(nm + l - 12, ".safetensors") == 0) k = l - 12;
    if (!k) return GK_OK;
    if ((st = gk_buf_append(names, nm, k)) != GK_OK) return st;
    (*n)++;
    return gk_buf_append(names, "", 1);
}
#if defined(_WIN32)
static gk_status gk__kv_dir_names(const char *F, const char *path, gk_buf *names, size_t *n) {
    WIN32_FIND_DATAA fd;
    HANDLE h;
    gk_buf pat = {NULL, 0, 0};
    gk_status st = gk__u_buf_puts(&pat, path);
    if (st == GK_OK) st = gk__u_buf_puts(&pat, "\\*");
    if (st != GK_OK) return st;
    h = FindFirstFileA(pat.data, &fd);
    gk_buf_free(&pat);
    if (h == INVALID_HANDLE_VALUE) return GK__U_ERR(GK_ERR_IO, "%s: cannot list the folder '%s' (error %lu)", F, path, (unsigned long)GetLastError());
    do st = gk__kv_dir_add(names, n, fd.cFileName);
    while (st == GK_OK && FindNextFileA(h, &fd));
    FindClose(h);
    return st;
}
#else
static gk_status gk__kv_dir_names(const char *F, const char *path, gk_buf *names, size_t *n) {
    DIR *dir = opendir(path);
    struct dirent *de;
    gk_status st = GK_OK;
    if (!dir) return GK__U_ERR(GK_ERR_IO, "%s: cannot open the folder '%s': %s", F, path, strerror(errno));
    while (st == GK_OK && (de = readdir(dir)) != NULL) st = gk__kv_dir_add(names, n, de->d_name);
    closedir(dir);
    return st;
}
#endif

GKLLMDEF gk_status gk_kokoro_voice_list(const char *path, gk_buf *out) {
    const char *F = "gk_kokoro_voice_list";
    gk__kv_src s;
    gk_buf names = {NULL, 0, 0}; /* NUL-separated */
    const char **v = NULL;
    size_t n = 0, i, off, len0;
    gk_status st;
    if (!path || !out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", F, path ? "out" : "path");
    len0 = out->len;
    if ((st = gk__kv_src_file(path, &s)) != GK_OK) return st;
#define GK__KV_NAME(p, l)                                              \
    do {                                                               \
        if (st == GK_OK) st = gk_buf_append(&names, (p), (l));         \
        if (st == GK_OK) st = gk_buf_append(&names, "", 1);            \
        n++;                                                           \
    } while (0)
    if (s.kind == GK__KV_RAW || s.kind == GK__KV_NPY) GK__KV_NAME(s.base, strlen(s.base));
    else if (s.kind == GK__KV_NPZ)
        for (i = 0; i < s.nent; i++) GK__KV_NAME(s.ent[i].name, gk__kv_member_name(&s.ent[i]));
    else if (s.kind == GK__KV_ST)
        for (i = 0; i < gk_st_count(s.st); i++) GK__KV_NAME(gk_st_tensor(s.st, i)->name, strlen(gk_st_tensor(s.st, i)->name));
    else
        st = gk__kv_dir_names(F, path, &names, &n);
#undef GK__KV_NAME
    if (st == GK_OK && n) {
        v = (const char **)gk__u_calloc(n, sizeof *v);
        if (!v) st = GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", F);
    }
    if (st == GK_OK) {
        for (i = 0, off = 0; i < n; i++) {
            v[i] = names.data + off;
            off += strlen(v[i]) + 1;
        }
        qsort(v, n, sizeof *v, gk__kv_cmp_str);
        for (i = 0; i < n && st == GK_OK; i++) {
            if (i && strcmp(v[i], v[i - 1]) == 0) continue;
            st = gk__u_buf_puts(out, v[i]);
            if (st == GK_OK) st = gk_buf_append(out, "\n", 1);
        }
    }
    if (st != GK_OK && out->data) {
        out->len = len0;
        out->data[len0] = 0;
    }
    gk__u_free(v);
    gk_buf_free(&names);
    gk__kv_src_free(&s);
    return st;
}

GKLLMDEF void gk_kokoro_voice_free(gk_kokoro_voice *v) {
    if (!v) return;
    gk__u_free(v->data);
    memset(v, 0, sizeof *v);
}

GKLLMDEF gk_status gk_kokoro_voice_style(const gk_kokoro_voice *v, size_t n_phonemes, const float **style) {
    const char *F = "gk_kokoro_voice_style";
    if (style) *style = NULL;
    if (!v || !style) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", F, v ? "style" : "voice");
    if (!v->data || v->rows == 0) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: the voice is empty", F);
    if (n_phonemes == 0) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: no phonemes: the style row is chosen by a count of at least 1", F);
    if (n_phonemes > v->rows)
        return GK__U_ERR(GK_ERR_LIMIT, "%s: %llu phonemes, the voice has styles for 1 to %llu (cut the phonemes into chunks)", F,
                         (unsigned long long)n_phonemes, (unsigned long long)v->rows);
    *style = v->data + (n_phonemes - 1) * GK_KOKORO_STYLE_DIM;
    return GK_OK;
}
