/* ======================================================================== */
/* >>impl_audio                                                             */
/* ======================================================================== */
/* WAV reading, mixing to mono, resampling, WAV writing (>>api_audio says
   what is read and how). The path of a WAV file:
     reader (gk__au_rd: a FILE in 256 KiB pieces, or the caller's memory)
     -> header and chunks (gk__au_wav) -> data frames decoded to mono floats
     (gk__au_decode) written straight into the resampler's input window
     -> resampler (gk__au_rs: pass-through, or the windowed sinc) -> output.
   The resampler takes its input in pieces, so nothing holds the whole
   input: only the output (allocated once when the input's length is known)
   and a window of 2H + one piece of input samples. */

#define GK__AU_ZEROS 32        /* zero crossings of the kernel on each side */
#define GK__AU_BETA 9.0        /* Kaiser window beta: about 90 dB stopband */
#define GK__AU_ROLLOFF 0.92    /* cutoff = ROLLOFF * min(rate_in, rate_out) / 2 */
#define GK__AU_TABLE_MAX (1u << 20) /* most floats of per-phase tap tables */
#define GK__AU_KDENS 512       /* kernel samples per zero crossing (interpolated taps) */
#define GK__AU_BUF (256u << 10) /* file read piece */
#define GK__AU_PIECE 16384     /* frames decoded or mixed at a time */
#define GK__AU_UNKNOWN ((uint64_t)-1)

static void gk__au_warn(gk_audio *a, const char *fmt, ...) GK__PRINTF(2, 3);
static void gk__au_warn(gk_audio *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->warning, sizeof a->warning, fmt, ap);
    va_end(ap);
}

static uint32_t gk__au_u16(const unsigned char *p) { return (uint32_t)p[0] | ((uint32_t)p[1] << 8); }
static uint32_t gk__au_u32(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint64_t gk__au_u64(const unsigned char *p) { return (uint64_t)gk__au_u32(p) | ((uint64_t)gk__au_u32(p + 4) << 32); }
static void gk__au_put16(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v & 0xFF);
    p[1] = (unsigned char)((v >> 8) & 0xFF);
}
static void gk__au_put32(unsigned char *p, uint32_t v) {
    gk__au_put16(p, v & 0xFFFF);
    gk__au_put16(p + 2, v >> 16);
}
/* a finite float: x - x is 0 for finite x and NaN for NaN and infinities */
static int gk__au_finite(double x) { return x - x == 0.0; }
/* a chunk id for messages: printable ASCII kept, other bytes as '?' */
static void gk__au_id(char dst[5], const unsigned char *p) {
    int i;
    for (i = 0; i < 4; i++) dst[i] = (p[i] >= 0x20 && p[i] < 0x7F) ? (char)p[i] : '?';
    dst[4] = 0;
}
static int gk__au_id_ok(const unsigned char *p) {
    int i;
    for (i = 0; i < 4; i++)
        if (p[i] < 0x20 || p[i] >= 0x7F) return 0;
    return 1;
}

/* ---- the resampler ----
   Output j sits at input time t_j = j * p / q (rate_in / rate_out reduced
   to p / q), kept as b = floor(t_j) and phase ph = (t_j - b) * q. It is
   sum_i x[i] * K((i - t_j) * zc) / sum_i K(...) over i = b - H + 1 .. b + H,
   where K(u) = sinc(u) * kaiser(u / ZEROS) and zc = ROLLOFF * min(1, q / p)
   is the kernel's zero crossings per input sample (H = ceil(ZEROS / zc)
   covers |u| < ZEROS). Samples outside the input are zero; the
   normalisation sums every tap, those outside too, so a constant stays
   constant away from the edges and fades at them. */
typedef struct gk__au_rs {
    int pass;           /* equal rates: the input is the output */
    uint64_t p, q;      /* input samples per output sample = p / q */
    int64_t H;          /* 2H taps an output */
    double zc;          /* zero crossings per input sample */
    float *tab;         /* q phases x 2H taps, each phase summing to 1; NULL: ktab */
    float *ktab;        /* K(u) at u = k / KDENS, k = 0 .. ZEROS * KDENS + 1 */
    float *win;         /* input samples wbase .. wbase + wlen - 1 */
    size_t wlen, wcap;
    uint64_t wbase;
    uint64_t nin;       /* input samples given */
    uint64_t j, b, ph;  /* the next output */
    float *out;         /* the output: nout samples of ocap */
    size_t nout, ocap;
    int fixed;          /* ocap is the final length: no growing */
    const char *label;  /* for messages */
} gk__au_rs;

static double gk__au_i0(double x) { /* modified Bessel function of the first kind, order 0 */
    double s = 1.0, t = 1.0, y = x * x / 4.0;
    int k;
    for (k = 1; k < 500; k++) {
        t *= y / ((double)k * (double)k);
        s += t;
        if (t < s * 1e-17) break;
    }
    return s;
}
static double gk__au_kernel(double u, double i0b) {
    double a = fabs(u), r, w;
    if (a >= GK__AU_ZEROS) return 0.0;
    r = a / GK__AU_ZEROS;
    w = gk__au_i0(GK__AU_BETA * sqrt(1.0 - r * r)) / i0b;
    if (a < 1e-12) return w;
    return sin(3.14159265358979323846 * a) / (3.14159265358979323846 * a) * w;
}
static uint64_t gk__au_gcd(uint64_t a, uint64_t b) {
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}
/* floor(n * q / p + 1/2) without overflow; GK__AU_UNKNOWN when it does not fit */
static uint64_t gk__au_outlen(uint64_t n, uint64_t p, uint64_t q) {
    uint64_t a = n / p, r = n % p, lo = (2 * r * q + p) / (2 * p);
    if (a && a > (GK__AU_UNKNOWN - 1 - lo) / q) return GK__AU_UNKNOWN;
    return a * q + lo;
}

static void gk__au_rs_free(gk__au_rs *rs) {
    gk__u_free(rs->tab);
    gk__u_free(rs->ktab);
    gk__u_free(rs->win);
    gk__u_free(rs->out);
    rs->tab = rs->ktab = rs->win = rs->out = NULL;
}
static gk_status gk__au_oom(const char *label, const char *what, uint64_t n) {
    return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory for %s (%llu floats)", label, what, (unsigned long long)n);
}
/* n_in: the input's length when known (the output is then allocated once,
   at its final size), else GK__AU_UNKNOWN */
static gk_status gk__au_rs_init(gk__au_rs *rs, const char *label, int rate_in, int rate_out, uint64_t n_in) {
    uint64_t g;
    memset(rs, 0, sizeof *rs);
    rs->label = label;
    rs->pass = rate_in == rate_out;
    g = gk__au_gcd((uint64_t)rate_in, (uint64_t)rate_out);
    rs->p = (uint64_t)rate_in / g;
    rs->q = (uint64_t)rate_out / g;
    if (n_in != GK__AU_UNKNOWN) {
        uint64_t n_out = rs->pass ? n_in : gk__au_outlen(n_in, rs->p, rs->q);
        if (n_out == GK__AU_UNKNOWN || n_out > ((size_t)-1) / sizeof(float))
            return GK__U_ERR(GK_ERR_OVERFLOW, "%s: %llu frames at %d Hz make more samples at %d Hz than this machine can address", label,
                             (unsigned long long)n_in, rate_in, rate_out);
        if (n_out) {
            rs->out = (float *)gk__u_malloc((size_t)n_out * sizeof(float));
            if (!rs->out) return gk__au_oom(label, "the samples", n_out);
        }
        rs->ocap = (size_t)n_out;
        rs->fixed = 1;
    }
    if (rs->pass) return GK_OK;
    rs->zc = GK__AU_ROLLOFF * (rs->q < rs->p ? (double)rs->q / (double)rs->p : 1.0);
    rs->H = (int64_t)ceil(GK__AU_ZEROS / rs->zc);
    if ((uint64_t)(2 * rs->H) <= GK__AU_TABLE_MAX && rs->q <= GK__AU_TABLE_MAX / (uint64_t)(2 * rs->H)) {
        size_t T = (size_t)(2 * rs->H), ph, k;
        double i0b = gk__au_i0(GK__AU_BETA);
        rs->tab = (float *)gk__u_malloc((size_t)rs->q * T * sizeof(float));
        if (!rs->tab) return gk__au_oom(label, "the resampling filter", (uint64_t)rs->q * T);
        for (ph = 0; ph < (size_t)rs->q; ph++) {
            float *row = rs->tab + ph * T;
            double s = 0.0, frac = (double)ph / (double)rs->q;
            for (k = 0; k < T; k++) {
                double v = gk__au_kernel(((double)((int64_t)k - rs->H + 1) - frac) * rs->zc, i0b);
                row[k] = (float)v;
                s += v;
            }
            for (k = 0; k < T; k++) row[k] = (float)((double)row[k] / s);
        }
    } else {
        size_t n = (size_t)GK__AU_ZEROS * GK__AU_KDENS + 2, k;
        double i0b = gk__au_i0(GK__AU_BETA);
        rs->ktab = (float *)gk__u_malloc(n * sizeof(float));
        if (!rs->ktab) return gk__au_oom(label, "the resampling filter", n);
        for (k = 0; k < n; k++) rs->ktab[k] = (float)gk__au_kernel((double)k / GK__AU_KDENS, i0b);
    }
    return GK_OK;
}
static gk_status gk__au_rs_room(gk__au_rs *rs, size_t need) {
    if (need <= rs->ocap) return GK_OK;
    if (rs->fixed || !gk__u_grow((void **)&rs->out, &rs->ocap, need, sizeof(float)))
        return gk__au_oom(rs->label, "the samples", need);
    return GK_OK;
}
/* room for n more input samples; write them at the pointer, then commit */
static float *gk__au_rs_reserve(gk__au_rs *rs, size_t n) {
    if (rs->pass) {
        if (gk__au_rs_room(rs, rs->nout + n) != GK_OK) return NULL;
        return rs->out + rs->nout;
    }
    if (rs->wlen + n > rs->wcap && !gk__u_grow((void **)&rs->win, &rs->wcap, rs->wlen + n, sizeof(float))) {
        gk__au_oom(rs->label, "the resampler's input window", rs->wlen + n);
        return NULL;
    }
    return rs->win + rs->wlen;
}
static float gk__au_dot(const float *x, const float *h, size_t n) {
    float s0 = 0.f, s1 = 0.f, s2 = 0.f, s3 = 0.f;
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        s0 += x[k] * h[k];
        s1 += x[k + 1] * h[k + 1];
        s2 += x[k + 2] * h[k + 2];
        s3 += x[k + 3] * h[k + 3];
    }
    for (; k < n; k++) s0 += x[k] * h[k];
    return (s0 + s1) + (s2 + s3);
}
/* the outputs whose inputs are all there (final: every output, zeros after
   the input's end), then the window drops what no later output needs */
static gk_status gk__au_rs_run(gk__au_rs *rs, int final) {
    uint64_t limit = final ? gk__au_outlen(rs->nin, rs->p, rs->q) : GK__AU_UNKNOWN;
    int64_t T = 2 * rs->H, keep;
    if (final && limit == GK__AU_UNKNOWN) return GK__U_ERR(GK_ERR_OVERFLOW, "%s: too many output samples", rs->label);
    while (rs->j < limit) {
        int64_t lo = (int64_t)rs->b - rs->H + 1, hi = (int64_t)rs->b + rs->H, i0, i1;
        double y = 0.0;
        if (!final && hi >= (int64_t)rs->nin) break;
        if (gk__au_rs_room(rs, rs->nout + 1) != GK_OK) return GK_ERR_OUT_OF_MEMORY;
        i0 = lo > 0 ? lo : 0;
        i1 = hi < (int64_t)rs->nin - 1 ? hi : (int64_t)rs->nin - 1;
        if (rs->tab) {
            if (i1 >= i0)
                y = gk__au_dot(rs->win + (i0 - (int64_t)rs->wbase), rs->tab + (size_t)rs->ph * (size_t)T + (i0 - lo), (size_t)(i1 - i0 + 1));
        } else {
            double s = 0.0, frac = (double)rs->ph / (double)rs->q, acc = 0.0;
            int64_t i;
            for (i = lo; i <= hi; i++) {
                double x = fabs(((double)(i - (int64_t)rs->b) - frac) * rs->zc) * GK__AU_KDENS, f, v;
                size_t k = (size_t)x;
                if (k >= (size_t)GK__AU_ZEROS * GK__AU_KDENS) continue;
                f = x - (double)k;
                v = (double)rs->ktab[k] + f * ((double)rs->ktab[k + 1] - (double)rs->ktab[k]);
                s += v;
                if (i >= i0 && i <= i1) acc += v * (double)rs->win[i - (int64_t)rs->wbase];
            }
            y = s != 0.0 ? acc / s : 0.0;
        }
        rs->out[rs->nout++] = (float)y;
        rs->j++;
        rs->b += rs->p / rs->q;
        rs->ph += rs->p % rs->q;
        if (rs->ph >= rs->q) {
            rs->ph -= rs->q;
            rs->b++;
        }
    }
    keep = (int64_t)rs->b - rs->H + 1; /* the next output's first input */
    if (keep > (int64_t)rs->wbase) {
        uint64_t drop = (uint64_t)keep - rs->wbase;
        if (drop >= rs->wlen) drop = rs->wlen;
        if (drop < rs->wlen) memmove(rs->win, rs->win + drop, (rs->wlen - (size_t)drop) * sizeof(float));
        rs->wlen -= (size_t)drop;
        rs->wbase += drop;
    }
    return GK_OK;
}
static gk_status gk__au_rs_commit(gk__au_rs *rs, size_t n) {
    rs->nin += n;
    if (rs->pass) {
        rs->nout += n;
        return GK_OK;
    }
    rs->wlen += n;
    return gk__au_rs_run(rs, 0);
}
/* the last outputs; the samples move to a */
static gk_status gk__au_rs_finish(gk__au_rs *rs, gk_audio *a) {
    if (!rs->pass) {
        gk_status st = gk__au_rs_run(rs, 1);
        if (st != GK_OK) return st;
    }
    if (!rs->nout) {
        gk__u_free(rs->out);
        rs->out = NULL;
    } else if (rs->nout < rs->ocap) { /* grown by doubling, or the file ended early: give back the rest */
        void *q = GPUKIT_REALLOC(rs->out, rs->nout * sizeof(float));
        if (q) rs->out = (float *)q;
    }
    a->samples = rs->out;
    a->n = rs->nout;
    rs->out = NULL;
    return GK_OK;
}

/* ---- options ---- */
static gk_status gk__au_desc(const char *W, const gk_audio_desc *d, gk_audio_desc *o) {
    memset(o, 0, sizeof *o);
    if (d) *o = *d;
    if (o->flags & ~(unsigned)(GK_AUDIO_STRICT | GK_AUDIO_KEEP_RATE))
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_audio_desc.flags = 0x%x has bits that are not GK_AUDIO_* flags (STRICT, KEEP_RATE)", W, o->flags);
    if (o->rate < 0) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_audio_desc.rate = %d must be >= 0 (0: 16000)", W, o->rate);
    if (o->rate && (o->flags & GK_AUDIO_KEEP_RATE))
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_audio_desc.rate = %d with GK_AUDIO_KEEP_RATE, which keeps the input's rate: give one or the other", W,
                         o->rate);
    if (!(o->max_seconds >= 0.0) || !gk__au_finite(o->max_seconds))
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_audio_desc.max_seconds = %g must be finite and >= 0 (0: no limit)", W, o->max_seconds);
    if (!o->rate) o->rate = GK_AUDIO_RATE;
    return GK_OK;
}
static int gk__au_out_rate(const gk_audio_desc *d, int rate_in) { return (d->flags & GK_AUDIO_KEEP_RATE) ? rate_in : d->rate; }
static gk_status gk__au_too_long(const char *label, const gk_audio_desc *d, uint64_t frames, int rate) {
    if (d->max_seconds > 0.0 && (double)frames / (double)rate > d->max_seconds)
        return GK__U_ERR(GK_ERR_LIMIT, "%s: %llu frames at %d Hz (%.1f s) are longer than gk_audio_desc.max_seconds = %g", label,
                         (unsigned long long)frames, rate, (double)frames / (double)rate, d->max_seconds);
    return GK_OK;
}

/* ---- reading bytes: a FILE (in GK__AU_BUF pieces) or memory ---- */
typedef struct gk__au_rd {
    FILE *f;                  /* NULL: memory */
    unsigned char *buf;       /* the file's piece */
    size_t cap;
    const unsigned char *p;   /* the unread bytes we have: p[0 .. avail) */
    size_t avail;
    uint64_t pos;             /* the file offset of p[0] */
    int eof;                  /* nothing after p[avail - 1] */
    int err;                  /* errno of a failed read, or -1 */
} gk__au_rd;

/* makes min(want, what is left of the file) bytes readable at r->p (want <= cap) */
static size_t gk__au_fill(gk__au_rd *r, size_t want) {
    if (r->avail >= want || r->eof) return r->avail;
    if (r->avail && r->p != r->buf) memmove(r->buf, r->p, r->avail);
    r->p = r->buf;
    while (r->avail < want && !r->eof) {
        size_t got = fread(r->buf + r->avail, 1, r->cap - r->avail, r->f);
        r->avail += got;
        if (got == 0) {
            r->eof = 1;
            if (ferror(r->f)) r->err = errno ? errno : -1;
        }
    }
    return r->avail;
}
static void gk__au_take(gk__au_rd *r, size_t n) {
    r->p += n;
    r->avail -= n;
    r->pos += n;
}
/* skips n bytes; returns how many there were */
static uint64_t gk__au_skip(gk__au_rd *r, uint64_t n) {
    uint64_t done = 0;
    while (done < n) {
        size_t k;
        if (!r->avail && !gk__au_fill(r, 1)) break;
        k = r->avail;
        if ((uint64_t)k > n - done) k = (size_t)(n - done);
        gk__au_take(r, k);
        done += k;
    }
    return done;
}
static gk_status gk__au_ioerr(const gk__au_rd *r, const char *label) {
    return GK__U_ERR(GK_ERR_IO, "%s: read error at byte %llu: %s", label, (unsigned long long)(r->pos + r->avail),
                     r->err > 0 ? strerror(r->err) : "unknown error");
}

/* ---- WAV ---- */
enum { GK__AU_U8, GK__AU_S16, GK__AU_S24, GK__AU_S32, GK__AU_F32, GK__AU_F64 };
typedef struct gk__au_fmt {
    int tag;      /* 1 PCM or 3 float (an EXTENSIBLE file's subformat) */
    int kind;     /* GK__AU_U8 ... */
    int channels, rate, bits, block;
} gk__au_fmt;

static const char *gk__au_tag_name(uint32_t tag) {
    switch (tag) {
    case 0x0002: return "Microsoft ADPCM";
    case 0x0006: return "A-law";
    case 0x0007: return "mu-law";
    case 0x0011: return "IMA ADPCM";
    case 0x0031: return "GSM 6.10";
    case 0x0040: return "G.721 ADPCM";
    case 0x0050: return "MPEG";
    case 0x0055: return "MPEG layer 3";
    case 0x0092: return "AC-3 over S/PDIF";
    case 0x0160: case 0x0161: case 0x0162: case 0x0163: return "Windows Media Audio";
    case 0x0165: return "WMA lossless";
    case 0x00FF: case 0x1610: return "AAC";
    case 0x2000: return "AC-3";
    case 0x2001: return "DTS";
    case 0x6750: case 0x674F: case 0x6751: return "Ogg Vorbis";
    case 0xF1AC: return "FLAC";
    default: return "unknown";
    }
}
#define GK__AU_SUPPORTED "supported: PCM (tag 1: 8-bit unsigned, 16/24/32-bit signed), IEEE float (tag 3: 32/64-bit), and WAVE_FORMAT_EXTENSIBLE (0xFFFE) with either"

/* the fmt chunk's first n bytes (n >= 16) */
static gk_status gk__au_parse_fmt(const char *label, const unsigned char *c, size_t n, gk__au_fmt *fm) {
    static const unsigned char base_guid[12] = {0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71};
    uint32_t tag = gk__au_u16(c), channels = gk__au_u16(c + 2), rate = gk__au_u32(c + 4), block = gk__au_u16(c + 12),
             bits = gk__au_u16(c + 14), valid = bits, cont;
    int ext = tag == 0xFFFE;
    memset(fm, 0, sizeof *fm);
    if (ext) {
        uint32_t cb = n >= 18 ? gk__au_u16(c + 16) : 0;
        if (n < 40 || cb < 22)
            return GK__U_ERR(GK_ERR_FORMAT, "%s: fmt chunk: WAVE_FORMAT_EXTENSIBLE needs a 40-byte fmt chunk with a 22-byte extension; this one has %llu bytes, extension size %u",
                             label, (unsigned long long)n, (unsigned)cb);
        if (memcmp(c + 28, base_guid, 12) != 0 || gk__au_u16(c + 26) != 0) {
            const unsigned char *g = c + 24;
            return GK__U_ERR(GK_ERR_UNSUPPORTED,
                             "%s: fmt chunk: WAVE_FORMAT_EXTENSIBLE subformat {%02X%02X%02X%02X-%02X%02X-%02X%02X-%02X%02X-%02X%02X%02X%02X%02X%02X} is not supported; " GK__AU_SUPPORTED,
                             label, g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
        }
        valid = gk__au_u16(c + 18);
        tag = gk__au_u16(c + 24);
    }
    if (tag != 1 && tag != 3)
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: fmt chunk: format tag %u (0x%04X, %s)%s is not supported; " GK__AU_SUPPORTED, label, (unsigned)tag,
                         (unsigned)tag, gk__au_tag_name(tag), ext ? " in WAVE_FORMAT_EXTENSIBLE" : "");
    if (channels == 0) return GK__U_ERR(GK_ERR_FORMAT, "%s: fmt chunk: channels = 0 must be at least 1", label);
    if (rate == 0) return GK__U_ERR(GK_ERR_FORMAT, "%s: fmt chunk: sample rate = 0 must be at least 1 Hz", label);
    if (rate > (uint32_t)INT_MAX)
        return GK__U_ERR(GK_ERR_FORMAT, "%s: fmt chunk: sample rate = %lu Hz is above the limit of %d", label, (unsigned long)rate, INT_MAX);
    /* the container: ceil(bits / 8) bytes; EXTENSIBLE's bits are the container, valid bits <= it */
    if (ext && (bits % 8 != 0 || valid > bits))
        return GK__U_ERR(GK_ERR_FORMAT, "%s: fmt chunk: WAVE_FORMAT_EXTENSIBLE bits per sample = %u with valid bits = %u (the container is a whole number of bytes, valid bits <= it)",
                         label, (unsigned)bits, (unsigned)valid);
    if (ext && valid == 0) valid = bits;
    cont = (bits + 7) / 8;
    if (tag == 1 && (bits == 0 || bits > 32))
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: fmt chunk: PCM with bits per sample = %u; PCM is read at 1 to 32 bits (8-bit unsigned, 16/24/32-bit signed)", label,
                         (unsigned)bits);
    if (tag == 3 && bits != 32 && bits != 64)
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: fmt chunk: IEEE float with bits per sample = %u; float is read at 32 and 64 bits", label, (unsigned)bits);
    if (block != channels * cont)
        return GK__U_ERR(GK_ERR_FORMAT, "%s: fmt chunk: block align = %u does not match %u channel%s of %u bits (%u bytes a frame)", label, (unsigned)block,
                         (unsigned)channels, channels == 1 ? "" : "s", (unsigned)bits, (unsigned)(channels * cont));
    fm->tag = (int)tag;
    fm->channels = (int)channels;
    fm->rate = (int)rate;
    fm->bits = (int)(ext ? valid : bits);
    fm->block = (int)block;
    fm->kind = tag == 3 ? (cont == 4 ? GK__AU_F32 : GK__AU_F64) : cont == 1 ? GK__AU_U8 : cont == 2 ? GK__AU_S16 : cont == 3 ? GK__AU_S24 : GK__AU_S32;
    return GK_OK;
}

/* frames of bytes s to mono floats d: the mean of the channels (in double).
   Returns the first frame holding a NaN or infinity, or frames when none. */
static size_t gk__au_decode(const gk__au_fmt *fm, const unsigned char *s, size_t frames, float *d) {
    size_t f, C = (size_t)fm->channels, c;
    double div = (double)fm->channels;
    switch (fm->kind) {
    case GK__AU_U8:
        for (f = 0; f < frames; f++, s += C) {
            double acc = ((double)s[0] - 128.0) / 128.0;
            for (c = 1; c < C; c++) acc += ((double)s[c] - 128.0) / 128.0;
            d[f] = (float)(acc / div);
        }
        break;
    case GK__AU_S16:
        for (f = 0; f < frames; f++, s += 2 * C) {
            double acc = 0.0;
            for (c = 0; c < C; c++) acc += (double)((int32_t)gk__au_u16(s + 2 * c) - (int32_t)((s[2 * c + 1] & 0x80) ? 65536 : 0)) / 32768.0;
            d[f] = (float)(acc / div);
        }
        break;
    case GK__AU_S24:
        for (f = 0; f < frames; f++, s += 3 * C) {
            double acc = 0.0;
            for (c = 0; c < C; c++) {
                const unsigned char *x = s + 3 * c;
                int32_t v = (int32_t)((uint32_t)x[0] | ((uint32_t)x[1] << 8) | ((uint32_t)x[2] << 16)) - ((x[2] & 0x80) ? 16777216 : 0);
                acc += (double)v / 8388608.0;
            }
            d[f] = (float)(acc / div);
        }
        break;
    case GK__AU_S32:
        for (f = 0; f < frames; f++, s += 4 * C) {
            double acc = 0.0;
            for (c = 0; c < C; c++) acc += (double)((int64_t)gk__au_u32(s + 4 * c) - ((s[4 * c + 3] & 0x80) ? (int64_t)4294967296LL : 0)) / 2147483648.0;
            d[f] = (float)(acc / div);
        }
        break;
    case GK__AU_F32:
        for (f = 0; f < frames; f++, s += 4 * C) {
            double acc = 0.0;
            for (c = 0; c < C; c++) { /* the first value as it is: a -0 stays -0 */
                uint32_t u = gk__au_u32(s + 4 * c);
                float x;
                memcpy(&x, &u, 4);
                acc = c ? acc + (double)x : (double)x;
            }
            if (!gk__au_finite(acc)) return f;
            d[f] = (float)(acc / div);
        }
        break;
    default:
        for (f = 0; f < frames; f++, s += 8 * C) {
            double acc = 0.0;
            for (c = 0; c < C; c++) {
                uint64_t u = gk__au_u64(s + 8 * c);
                double x;
                memcpy(&x, &u, 8);
                acc = c ? acc + x : x;
            }
            if (!gk__au_finite(acc) || !gk__au_finite((double)(float)(acc / div))) return f;
            d[f] = (float)(acc / div);
        }
        break;
    }
    return frames;
}

/* after a chunk of odd size: its pad byte, unless the writer left it out
   (the next id is printable at the unpadded offset and not at the padded one) */
static void gk__au_pad(gk__au_rd *r) {
    size_t n = gk__au_fill(r, 5);
    if (!n) return;
    if (n >= 5 && !gk__au_id_ok(r->p + 1) && gk__au_id_ok(r->p)) return;
    gk__au_take(r, 1);
}

/* the file behind r: header, chunks, data -> a (zeroed by the caller).
   size: the file's size when known, else GK__AU_UNKNOWN. */
static gk_status gk__au_wav(gk__au_rd *r, uint64_t size, const char *label, const gk_audio_desc *d, gk_audio *a, gk__au_rs *rs) {
    unsigned char hdr[12];
    char id[5];
    uint32_t riff_size;
    uint32_t csize = 0;
    int rf64 = 0, have_fmt = 0, have_ds64 = 0, streamed = 0, truncated = 0;
    uint64_t ds64_data = 0, declared = 0, avail, bytes, frames, done = 0, data_at;
    gk__au_fmt fm;
    gk_status st;
    size_t n = gk__au_fill(r, 12);
    if (r->err) return gk__au_ioerr(r, label);
    if (n == 0) return GK__U_ERR(GK_ERR_FORMAT, "%s: the file is empty: not a WAV file", label);
    if (n >= 4 && memcmp(r->p, "RIFX", 4) == 0)
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: a big-endian RIFX file; only little-endian WAV (RIFF, RF64) is read", label);
    if (n < 4 || (memcmp(r->p, "RIFF", 4) != 0 && memcmp(r->p, "RF64", 4) != 0 && memcmp(r->p, "BW64", 4) != 0)) {
        unsigned char b[4] = {0, 0, 0, 0};
        memcpy(b, r->p, n < 4 ? n : 4);
        return GK__U_ERR(GK_ERR_FORMAT, "%s: not a WAV file: it starts with the bytes %02x %02x %02x %02x, not 'RIFF' or 'RF64'", label, b[0], b[1], b[2], b[3]);
    }
    if (n < 12) return GK__U_ERR(GK_ERR_FORMAT, "%s: %llu bytes are too short for a WAV file (its RIFF header is 12 bytes)", label, (unsigned long long)n);
    memcpy(hdr, r->p, 12);
    if (memcmp(hdr + 8, "WAVE", 4) != 0) {
        gk__au_id(id, hdr + 8);
        return GK__U_ERR(GK_ERR_FORMAT, "%s: a RIFF file of form '%s', not 'WAVE': not a WAV file", label, id);
    }
    rf64 = memcmp(hdr, "RIFF", 4) != 0;
    riff_size = gk__au_u32(hdr + 4);
    gk__au_take(r, 12);
    for (;;) { /* the chunks up to data */
        uint64_t at = r->pos;
        unsigned char ch[8];
        n = gk__au_fill(r, 8);
        if (r->err) return gk__au_ioerr(r, label);
        if (n < 8) {
            if (!have_fmt) return GK__U_ERR(GK_ERR_FORMAT, "%s: no fmt chunk (the file ends at byte %llu)", label, (unsigned long long)(at + n));
            return GK__U_ERR(GK_ERR_FORMAT, "%s: no data chunk (the file ends at byte %llu)", label, (unsigned long long)(at + n));
        }
        memcpy(ch, r->p, 8);
        gk__au_id(id, ch);
        csize = gk__au_u32(ch + 4);
        gk__au_take(r, 8);
        if (rf64 && !have_ds64) {
            if (memcmp(ch, "ds64", 4) != 0) return GK__U_ERR(GK_ERR_FORMAT, "%s: an RF64 file whose first chunk is '%s', not 'ds64'", label, id);
            if (csize < 24 || gk__au_fill(r, 24) < 24)
                return GK__U_ERR(GK_ERR_FORMAT, "%s: ds64 chunk of %lu bytes: its three 64-bit sizes need 24", label, (unsigned long)csize);
            ds64_data = gk__au_u64(r->p + 8);
            have_ds64 = 1;
        } else if (memcmp(ch, "fmt ", 4) == 0 && !have_fmt) {
            unsigned char c[40];
            size_t k = csize < 40 ? csize : 40;
            if (csize < 16) return GK__U_ERR(GK_ERR_FORMAT, "%s: fmt chunk of %lu bytes: it needs at least 16", label, (unsigned long)csize);
            if (gk__au_fill(r, k) < k)
                return GK__U_ERR(GK_ERR_FORMAT, "%s: fmt chunk of %lu bytes at byte %llu runs past the end of the file", label, (unsigned long)csize,
                                 (unsigned long long)at);
            memcpy(c, r->p, k);
            if ((st = gk__au_parse_fmt(label, c, k, &fm)) != GK_OK) return st;
            have_fmt = 1;
        } else if (memcmp(ch, "data", 4) == 0) {
            if (!have_fmt) return GK__U_ERR(GK_ERR_FORMAT, "%s: the data chunk at byte %llu comes before the fmt chunk", label, (unsigned long long)at);
            break;
        }
        if (gk__au_skip(r, csize) < csize) { /* a chunk past the end: nothing after it */
            if (r->err) return gk__au_ioerr(r, label);
            return GK__U_ERR(GK_ERR_FORMAT, "%s: chunk '%s' at byte %llu says %lu bytes, but the file ends at byte %llu, before any %s chunk", label, id,
                             (unsigned long long)at, (unsigned long)csize, (unsigned long long)r->pos, have_fmt ? "data" : "fmt");
        }
        if (csize & 1) gk__au_pad(r);
    }
    /* the data chunk: its size */
    data_at = r->pos;
    declared = csize;
    if (rf64 && csize == 0xFFFFFFFFu) declared = ds64_data;
    else if (csize == 0xFFFFFFFFu) streamed = 1;
    else if (csize == 0) {
        int more = size != GK__AU_UNKNOWN ? size > data_at : gk__au_fill(r, 1) > 0;
        if (more && (riff_size == 0 || riff_size == 0xFFFFFFFFu || (uint64_t)riff_size + 8 <= data_at)) streamed = 1;
    }
    avail = size != GK__AU_UNKNOWN ? (size > data_at ? size - data_at : 0) : GK__AU_UNKNOWN;
    if (streamed) bytes = avail;
    else if (avail != GK__AU_UNKNOWN && declared > avail) {
        truncated = 1;
        bytes = avail;
    } else bytes = declared;
    if (truncated && (d->flags & GK_AUDIO_STRICT))
        return GK__U_ERR(GK_ERR_FORMAT, "%s: data chunk says %llu bytes, the file holds %llu", label, (unsigned long long)declared, (unsigned long long)avail);
    frames = bytes == GK__AU_UNKNOWN ? GK__AU_UNKNOWN : bytes / (uint64_t)fm.block;
    a->rate_in = fm.rate;
    a->channels_in = fm.channels;
    a->bits_in = fm.bits;
    a->format_in = fm.tag;
    a->rate = gk__au_out_rate(d, fm.rate);
    if (avail != GK__AU_UNKNOWN && (st = gk__au_too_long(label, d, frames, fm.rate)) != GK_OK) return st; /* else checked as it comes */
    /* the output is allocated at its final size when the file's size says how
       many frames there are (not from a pipe's declared size, which may lie) */
    if ((st = gk__au_rs_init(rs, label, fm.rate, a->rate, avail != GK__AU_UNKNOWN ? frames : GK__AU_UNKNOWN)) != GK_OK) return st;
    /* the frames, a piece at a time */
    for (;;) {
        uint64_t left = frames == GK__AU_UNKNOWN ? GK__AU_UNKNOWN : frames - done;
        size_t k, bad, need = (size_t)GK__AU_PIECE * (size_t)fm.block;
        float *dst;
        if (!left) break;
        if (need > r->cap && r->f) need = r->cap;
        if ((uint64_t)need / (uint64_t)fm.block > left) need = (size_t)left * (size_t)fm.block;
        k = r->avail >= need ? r->avail : gk__au_fill(r, need);
        if (r->err) return gk__au_ioerr(r, label);
        k /= (size_t)fm.block;
        if ((uint64_t)k > left) k = (size_t)left;
        if (k > GK__AU_PIECE) k = GK__AU_PIECE;
        if (!k) break;
        if (avail == GK__AU_UNKNOWN && (st = gk__au_too_long(label, d, done + k, fm.rate)) != GK_OK) return st;
        if (!(dst = gk__au_rs_reserve(rs, k))) return GK_ERR_OUT_OF_MEMORY;
        if ((bad = gk__au_decode(&fm, r->p, k, dst)) < k)
            return GK__U_ERR(GK_ERR_FORMAT, "%s: frame %llu (byte %llu) holds a NaN or an infinity%s", label, (unsigned long long)(done + bad),
                             (unsigned long long)(r->pos + bad * (size_t)fm.block), fm.kind == GK__AU_F64 ? " (or a value beyond float's range)" : "");
        gk__au_take(r, k * (size_t)fm.block);
        if ((st = gk__au_rs_commit(rs, k)) != GK_OK) return st;
        done += k;
    }
    if (!truncated && !streamed && done * (uint64_t)fm.block + (uint64_t)fm.block <= declared) { /* the file ended early (its size was not known) */
        truncated = 1;
        avail = done * (uint64_t)fm.block + r->avail;
        if (d->flags & GK_AUDIO_STRICT)
            return GK__U_ERR(GK_ERR_FORMAT, "%s: data chunk says %llu bytes, the file holds %llu", label, (unsigned long long)declared, (unsigned long long)avail);
    }
    if ((st = gk__au_rs_finish(rs, a)) != GK_OK) return st;
    a->frames_in = done;
    if (streamed) a->flags |= GK_AUDIO_STREAMED;
    if (truncated) {
        a->flags |= GK_AUDIO_TRUNCATED;
        gk__au_warn(a, "%s: data chunk says %llu bytes, the file holds %llu", label, (unsigned long long)declared, (unsigned long long)avail);
    }
    return GK_OK;
}

GKLLMDEF void gk_audio_free(gk_audio *a) {
    if (!a) return;
    gk__u_free(a->samples);
    memset(a, 0, sizeof *a);
}

GKLLMDEF gk_status gk_audio_from_wav_memory(const void *data, size_t size, const gk_audio_desc *desc, gk_audio *out) {
    const char *W = "gk_audio_from_wav_memory";
    gk_audio_desc d;
    gk__au_rd r;
    gk__au_rs rs;
    gk_status st;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    memset(out, 0, sizeof *out);
    if (!data && size) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: data is NULL but size is %llu", W, (unsigned long long)size);
    if ((st = gk__au_desc(W, desc, &d)) != GK_OK) return st;
    memset(&r, 0, sizeof r);
    r.p = (const unsigned char *)data;
    r.avail = size;
    r.eof = 1;
    memset(&rs, 0, sizeof rs);
    st = gk__au_wav(&r, size, d.name ? d.name : "memory", &d, out, &rs);
    gk__au_rs_free(&rs);
    if (st != GK_OK) gk_audio_free(out);
    return st;
}

GKLLMDEF gk_status gk_audio_from_wav(const char *path, const gk_audio_desc *desc, gk_audio *out) {
    const char *W = "gk_audio_from_wav";
    gk_audio_desc d;
    gk__au_rd r;
    gk__au_rs rs;
    gk_status st;
    uint64_t size = GK__AU_UNKNOWN;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    memset(out, 0, sizeof *out);
    if (!path) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: path is NULL", W);
    if ((st = gk__au_desc(W, desc, &d)) != GK_OK) return st;
#if defined(_WIN32)
    {
        WIN32_FILE_ATTRIBUTE_DATA fa;
        if (GetFileAttributesExA(path, GetFileExInfoStandard, &fa)) {
            if (fa.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) return GK__U_ERR(GK_ERR_IO, "%s: '%s' is a folder, not a WAV file", W, path);
            size = ((uint64_t)fa.nFileSizeHigh << 32) | (uint64_t)fa.nFileSizeLow;
        }
    }
#else
    {
        struct stat sb;
        if (stat(path, &sb) == 0) {
            if (S_ISDIR(sb.st_mode)) return GK__U_ERR(GK_ERR_IO, "%s: '%s' is a folder, not a WAV file", W, path);
            if (S_ISREG(sb.st_mode) && sb.st_size >= 0) size = (uint64_t)sb.st_size; /* else a pipe or a device: read to its end */
        }
    }
#endif
    memset(&r, 0, sizeof r);
    r.f = fopen(path, "rb");
    if (!r.f) return GK__U_ERR(GK_ERR_IO, "%s: cannot open '%s': %s", W, path, strerror(errno));
    r.cap = GK__AU_BUF;
    r.buf = (unsigned char *)gk__u_malloc(r.cap);
    if (!r.buf) {
        fclose(r.f);
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory for a %u-byte read buffer", path, (unsigned)GK__AU_BUF);
    }
    r.p = r.buf;
    memset(&rs, 0, sizeof rs);
    st = gk__au_wav(&r, size, path, &d, out, &rs);
    gk__au_rs_free(&rs);
    gk__u_free(r.buf);
    fclose(r.f);
    if (st != GK_OK) gk_audio_free(out);
    return st;
}

GKLLMDEF gk_status gk_audio_from_float(const float *samples, size_t frames, int channels, int rate, const gk_audio_desc *desc, gk_audio *out) {
    const char *W = "gk_audio_from_float";
    gk_audio_desc d;
    gk__au_rs rs;
    gk_status st;
    size_t done = 0;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    memset(out, 0, sizeof *out);
    if (!samples && frames) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: samples is NULL but frames is %llu", W, (unsigned long long)frames);
    if (channels < 1) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: channels = %d must be at least 1", W, channels);
    if (rate < 1) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: rate = %d must be at least 1 Hz", W, rate);
    if (frames > ((size_t)-1) / (size_t)channels)
        return GK__U_ERR(GK_ERR_OVERFLOW, "%s: frames = %llu times channels = %d overflows", W, (unsigned long long)frames, channels);
    if ((st = gk__au_desc(W, desc, &d)) != GK_OK) return st;
    if ((st = gk__au_too_long(W, &d, frames, rate)) != GK_OK) return st;
    out->rate_in = rate;
    out->channels_in = channels;
    out->bits_in = 32;
    out->rate = gk__au_out_rate(&d, rate);
    if ((st = gk__au_rs_init(&rs, W, rate, out->rate, frames)) != GK_OK) {
        gk__au_rs_free(&rs);
        return st;
    }
    while (done < frames && st == GK_OK) {
        size_t k = frames - done < GK__AU_PIECE ? frames - done : GK__AU_PIECE, f, c, C = (size_t)channels;
        const float *s = samples + done * C;
        float *dst = gk__au_rs_reserve(&rs, k);
        if (!dst) {
            st = GK_ERR_OUT_OF_MEMORY;
            break;
        }
        for (f = 0; f < k && st == GK_OK; f++, s += C) {
            double acc = (double)s[0];
            for (c = 1; c < C; c++) acc += (double)s[c];
            if (!gk__au_finite(acc)) {
                for (c = 0; c + 1 < C && gk__au_finite((double)s[c]); c++) {}
                st = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: samples[%llu] (frame %llu, channel %llu) is %s", W, (unsigned long long)((done + f) * C + c),
                               (unsigned long long)(done + f), (unsigned long long)c, s[c] != s[c] ? "NaN" : "infinite");
            }
            dst[f] = (float)(acc / (double)channels);
        }
        if (st == GK_OK) st = gk__au_rs_commit(&rs, k);
        done += k;
    }
    if (st == GK_OK) st = gk__au_rs_finish(&rs, out);
    gk__au_rs_free(&rs);
    if (st != GK_OK) {
        gk_audio_free(out);
        return st;
    }
    out->frames_in = frames;
    return GK_OK;
}

/* ---- writing ---- */
/* the header of a WAV of n samples (44 bytes for PCM16, 58 for float: fmt of 18 bytes and the fact chunk) */
static size_t gk__au_wav_header(unsigned char *h, uint32_t n, int rate, gk_wav_format fmt) {
    uint32_t bps = fmt == GK_WAV_F32 ? 4u : 2u, data = n * bps, fmtlen = fmt == GK_WAV_F32 ? 18u : 16u;
    size_t len = 12 + 8 + fmtlen + (fmt == GK_WAV_F32 ? 12u : 0u) + 8;
    unsigned char *p = h;
    memcpy(p, "RIFF", 4);
    gk__au_put32(p + 4, (uint32_t)(len - 8) + data);
    memcpy(p + 8, "WAVE", 4);
    memcpy(p + 12, "fmt ", 4);
    gk__au_put32(p + 16, fmtlen);
    gk__au_put16(p + 20, (uint32_t)fmt);
    gk__au_put16(p + 22, 1);
    gk__au_put32(p + 24, (uint32_t)rate);
    gk__au_put32(p + 28, (uint32_t)rate * bps);
    gk__au_put16(p + 32, bps);
    gk__au_put16(p + 34, bps * 8);
    p += 36;
    if (fmt == GK_WAV_F32) {
        gk__au_put16(p, 0); /* cbSize */
        memcpy(p + 2, "fact", 4);
        gk__au_put32(p + 6, 4);
        gk__au_put32(p + 10, n);
        p += 14;
    }
    memcpy(p, "data", 4);
    gk__au_put32(p + 4, data);
    return len;
}
static void gk__au_encode(unsigned char *d, const float *s, size_t n, gk_wav_format fmt) {
    size_t i;
    for (i = 0; i < n; i++) {
        if (fmt == GK_WAV_F32) {
            uint32_t u;
            memcpy(&u, &s[i], 4);
            gk__au_put32(d + 4 * i, u);
        } else {
            double v = floor((double)s[i] * 32768.0 + 0.5);
            int32_t k = v < -32768.0 ? -32768 : v > 32767.0 ? 32767 : (int32_t)v;
            gk__au_put16(d + 2 * i, (uint32_t)k & 0xFFFFu);
        }
    }
}
static gk_status gk__au_write_check(const char *W, const float *samples, size_t n, int rate, gk_wav_format fmt) {
    size_t i, bps = fmt == GK_WAV_F32 ? 4 : 2;
    if (!samples && n) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: samples is NULL but n is %llu", W, (unsigned long long)n);
    if (rate < 1) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: rate = %d must be at least 1 Hz", W, rate);
    if (fmt != GK_WAV_PCM16 && fmt != GK_WAV_F32)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: format = %d is not a gk_wav_format (GK_WAV_PCM16 1, GK_WAV_F32 3)", W, (int)fmt);
    if ((uint64_t)rate * bps > 0xFFFFFFFFu)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: rate = %d makes a byte rate above a WAV file's 32 bits", W, rate);
    if ((uint64_t)n > (0xFFFFFFFFu - 58u) / bps)
        return GK__U_ERR(GK_ERR_LIMIT, "%s: %llu samples are more than a WAV file holds (4 GiB of data: %llu samples of this format)", W,
                         (unsigned long long)n, (unsigned long long)((0xFFFFFFFFu - 58u) / bps));
    for (i = 0; i < n; i++)
        if (!gk__au_finite((double)samples[i]))
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: samples[%llu] is %s", W, (unsigned long long)i, samples[i] != samples[i] ? "NaN" : "infinite");
    return GK_OK;
}

GKLLMDEF gk_status gk_audio_write_wav_memory(gk_buf *dst, const float *samples, size_t n, int rate, gk_wav_format format) {
    const char *W = "gk_audio_write_wav_memory";
    unsigned char h[64], tmp[4096];
    size_t len0, i, bps = format == GK_WAV_F32 ? 4 : 2, per = sizeof tmp / 4;
    int had;
    gk_status st;
    if (!dst) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: dst is NULL", W);
    if ((st = gk__au_write_check(W, samples, n, rate, format)) != GK_OK) return st;
    len0 = dst->len;
    had = dst->data != NULL;
    st = gk_buf_append(dst, h, gk__au_wav_header(h, (uint32_t)n, rate, format));
    for (i = 0; i < n && st == GK_OK; i += per) {
        size_t k = n - i < per ? n - i : per;
        gk__au_encode(tmp, samples + i, k, format);
        st = gk_buf_append(dst, tmp, k * bps);
    }
    if (st != GK_OK) { /* as it was */
        if (!had) gk_buf_free(dst);
        dst->len = len0;
        if (dst->data) dst->data[len0] = 0;
        return GK__U_ERR(st, "%s: %s", W, st == GK_ERR_OUT_OF_MEMORY ? "out of memory" : gk_last_error(NULL));
    }
    return GK_OK;
}

GKLLMDEF gk_status gk_audio_write_wav(const char *path, const float *samples, size_t n, int rate, gk_wav_format format) {
    const char *W = "gk_audio_write_wav";
    unsigned char h[64], tmp[4096];
    size_t i, bps = format == GK_WAV_F32 ? 4 : 2, per = sizeof tmp / 4, hl;
    int ok, e = 0;
    FILE *f;
    gk_status st;
    if (!path) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: path is NULL", W);
    if ((st = gk__au_write_check(W, samples, n, rate, format)) != GK_OK) return st;
    f = fopen(path, "wb");
    if (!f) return GK__U_ERR(GK_ERR_IO, "%s: cannot create '%s': %s", W, path, strerror(errno));
    hl = gk__au_wav_header(h, (uint32_t)n, rate, format);
    ok = fwrite(h, 1, hl, f) == hl;
    for (i = 0; i < n && ok; i += per) {
        size_t k = n - i < per ? n - i : per;
        gk__au_encode(tmp, samples + i, k, format);
        ok = fwrite(tmp, 1, k * bps, f) == k * bps;
    }
    if (!ok) e = errno;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (!ok) {
        remove(path);
        return GK__U_ERR(GK_ERR_IO, "%s: cannot write '%s': %s", W, path, e ? strerror(e) : "write failed");
    }
    return GK_OK;
}
