/* test_audio: gpukit_llm.h's audio in (>>api_audio).
   1. WAV files built here byte by byte: every encoding (PCM 8/16/24/32-bit,
      12-bit in 16, float 32/64, WAVE_FORMAT_EXTENSIBLE with PCM and float),
      read back and checked value by value (exactly: each value is what the
      documented conversion gives); 2, 3 and 6 channels mixed to mono.
   2. The chunk layer: LIST / fact / JUNK skipped, odd sizes with and without
      their pad byte, streamed data sizes (0xFFFFFFFF, 0), RF64 / BW64,
      truncated files (a warning, or an error with GK_AUDIO_STRICT), every
      prefix of a file and random byte flips (no crash; ASan checks bounds).
   3. Every bad input once: its status, and a message naming the file and
      the field.
   4. Files: gk_audio_write_wav / gk_audio_from_wav round trips, a pipe (the
      size not known), and a real espeak-ng WAV when espeak-ng is installed.
   5. The resampler against analytic signals: output length, bit-exact
      pass-through, a sine at 0.8 of the lower Nyquist within 0.1 dB and in
      phase, sines at and above the output's Nyquist 80 dB down, DC kept,
      for 7 Hz ... 192 kHz in and out.
   6. An allocator that fails after N calls, for every N until the work
      succeeds: each run is GK_ERR_OUT_OF_MEMORY and leaves nothing allocated. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- an allocator that counts blocks and can fail ---- */
typedef union ta_hdr {
    size_t size;
    long double ld; /* alignment of the block after the header */
    void *p;
    long long ll;
} ta_hdr;
static long ta_live, ta_calls, ta_fail_after = -1;
static void *ta_malloc(size_t n) {
    ta_hdr *h;
    if (ta_fail_after >= 0 && ++ta_calls > ta_fail_after) return NULL;
    h = (ta_hdr *)malloc(sizeof(ta_hdr) + n);
    if (!h) return NULL;
    h->size = n;
    ta_live++;
    return h + 1;
}
static void *ta_realloc(void *p, size_t n) {
    ta_hdr *q;
    if (!p) return ta_malloc(n);
    if (ta_fail_after >= 0 && ++ta_calls > ta_fail_after) return NULL;
    q = (ta_hdr *)realloc((ta_hdr *)p - 1, sizeof(ta_hdr) + n);
    if (!q) return NULL;
    q->size = n;
    return q + 1;
}
static void ta_free(void *p) {
    if (!p) return;
    ta_live--;
    free((ta_hdr *)p - 1);
}
#define GPUKIT_MALLOC(sz) ta_malloc(sz)
#define GPUKIT_REALLOC(p, sz) ta_realloc(p, sz)
#define GPUKIT_FREE(p) ta_free(p)

#define GPUKIT_IMPLEMENTATION
#include "gpukit.h"
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"
#include "gkt.h"
#include <time.h>
#if defined(__linux__)
#include <pthread.h>
#include <signal.h>
#include <unistd.h>
#endif

#define TMPDIR "build/test_audio_files"
#define PI 3.14159265358979323846

/* ---- building WAV files ---- */
static void put(gk_buf *b, const void *p, size_t n) {
    if (gk_buf_append(b, p, n) != GK_OK) {
        printf("out of memory building a test file\n");
        exit(2);
    }
}
static void u16(gk_buf *b, uint32_t v) {
    unsigned char x[2];
    x[0] = (unsigned char)(v & 0xFF);
    x[1] = (unsigned char)((v >> 8) & 0xFF);
    put(b, x, 2);
}
static void u32(gk_buf *b, uint32_t v) {
    u16(b, v & 0xFFFF);
    u16(b, v >> 16);
}
static void u64(gk_buf *b, uint64_t v) {
    u32(b, (uint32_t)(v & 0xFFFFFFFFu));
    u32(b, (uint32_t)(v >> 32));
}
/* a chunk: id, size (declared: 0 = n), bytes, and its pad byte when n is odd and pad is set */
static void chunk(gk_buf *b, const char *id, uint32_t declared, const void *data, size_t n, int pad) {
    put(b, id, 4);
    u32(b, declared ? declared : (uint32_t)n);
    if (n) put(b, data, n);
    if ((n & 1) && pad) put(b, "\0", 1);
}
static void fmt16(gk_buf *b, unsigned tag, unsigned ch, unsigned rate, unsigned bits, unsigned block) {
    gk_buf c = {NULL, 0, 0};
    u16(&c, tag);
    u16(&c, ch);
    u32(&c, rate);
    u32(&c, rate * block);
    u16(&c, block);
    u16(&c, bits);
    chunk(b, "fmt ", 0, c.data, c.len, 1);
    gk_buf_free(&c);
}
static const unsigned char guid_tail[12] = {0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71};
static void fmt_ext(gk_buf *b, unsigned sub, unsigned ch, unsigned rate, unsigned bits, unsigned valid, unsigned block, unsigned cb,
                    const unsigned char *tail) {
    gk_buf c = {NULL, 0, 0};
    u16(&c, 0xFFFE);
    u16(&c, ch);
    u32(&c, rate);
    u32(&c, rate * block);
    u16(&c, block);
    u16(&c, bits);
    u16(&c, cb);
    u16(&c, valid);
    u32(&c, ch == 1 ? 4u : 3u); /* channel mask */
    u16(&c, sub);
    u16(&c, 0);
    put(&c, tail ? tail : guid_tail, 12);
    chunk(b, "fmt ", 0, c.data, c.len, 1);
    gk_buf_free(&c);
}
/* "RIFF" + size (0xFFFFFFFE: the right one) + "WAVE" + body */
static gk_buf riff(const char *magic, uint32_t size, const gk_buf *body) {
    gk_buf f = {NULL, 0, 0};
    put(&f, magic, 4);
    u32(&f, size == 0xFFFFFFFEu ? (uint32_t)(4 + body->len) : size);
    put(&f, "WAVE", 4);
    put(&f, body->data, body->len);
    return f;
}
#define AUTO 0xFFFFFFFEu
/* a simple file: fmt (16 bytes) + data */
static gk_buf simple(unsigned tag, unsigned ch, unsigned rate, unsigned bits, const void *data, size_t n) {
    gk_buf body = {NULL, 0, 0}, f;
    fmt16(&body, tag, ch, rate, bits, ch * ((bits + 7) / 8));
    chunk(&body, "data", 0, data, n, 1);
    f = riff("RIFF", AUTO, &body);
    gk_buf_free(&body);
    return f;
}

static gk_audio_desc keep(void) {
    gk_audio_desc d;
    memset(&d, 0, sizeof d);
    d.flags = GK_AUDIO_KEEP_RATE;
    return d;
}
static gk_status rd(const gk_buf *f, const gk_audio_desc *d, gk_audio *a) { return gk_audio_from_wav_memory(f->data, f->len, d, a); }
static int same(const float *a, const float *b, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        if (memcmp(&a[i], &b[i], sizeof(float)) != 0) {
            printf("  sample %llu: %.9g, want %.9g\n", (unsigned long long)i, (double)a[i], (double)b[i]);
            return 0;
        }
    return 1;
}

/* ---- 1. encodings ---- */
#define NS 64
static void encodings(void) {
    gk_audio_desc d = keep();
    gk_audio a;
    unsigned char raw[NS * 8];
    float want[NS];
    int i;
    /* 8-bit unsigned: every 4th byte value and the extremes */
    for (i = 0; i < NS; i++) raw[i] = (unsigned char)(i == 0 ? 0 : i == 1 ? 255 : i * 4);
    for (i = 0; i < NS; i++) want[i] = (float)(((double)raw[i] - 128.0) / 128.0);
    {
        gk_buf f = simple(1, 1, 8000, 8, raw, NS);
        GKT_OK(NULL, rd(&f, &d, &a));
        GKT_CHECK(a.n == NS && a.rate == 8000 && a.rate_in == 8000 && a.channels_in == 1 && a.bits_in == 8 && a.format_in == 1 &&
                      a.frames_in == NS && a.flags == 0 && a.warning[0] == 0,
                  "8-bit: n %llu rate %d bits %d tag %d flags %u", (unsigned long long)a.n, a.rate, a.bits_in, a.format_in, a.flags);
        GKT_CHECK(a.n == NS && same(a.samples, want, NS), "8-bit values");
        gk_audio_free(&a);
        gk_buf_free(&f);
    }
    /* 16-bit, and 12-bit in a 16-bit container (left-justified: the same scale) */
    {
        int32_t v[NS];
        int bits;
        for (i = 0; i < NS; i++) v[i] = i == 0 ? -32768 : i == 1 ? 32767 : i == 2 ? 0 : i == 3 ? -1 : (int32_t)(gkt_u64() % 65536) - 32768;
        for (i = 0; i < NS; i++) {
            raw[2 * i] = (unsigned char)(v[i] & 0xFF);
            raw[2 * i + 1] = (unsigned char)((v[i] >> 8) & 0xFF);
            want[i] = (float)((double)v[i] / 32768.0);
        }
        for (bits = 16; bits >= 12; bits -= 4) {
            gk_buf f = simple(1, 1, 16000, (unsigned)bits, raw, 2 * NS);
            GKT_OK(NULL, rd(&f, &d, &a));
            GKT_CHECK(a.n == NS && a.bits_in == bits && same(a.samples, want, NS), "%d-bit values", bits);
            gk_audio_free(&a);
            gk_buf_free(&f);
        }
        /* the same through EXTENSIBLE */
        {
            gk_buf body = {NULL, 0, 0}, f;
            fmt_ext(&body, 1, 1, 16000, 16, 16, 2, 22, NULL);
            chunk(&body, "data", 0, raw, 2 * NS, 1);
            f = riff("RIFF", AUTO, &body);
            GKT_OK(NULL, rd(&f, &d, &a));
            GKT_CHECK(a.n == NS && a.format_in == 1 && a.bits_in == 16 && same(a.samples, want, NS), "EXTENSIBLE 16-bit values");
            gk_audio_free(&a);
            gk_buf_free(&f);
            gk_buf_free(&body);
        }
    }
    /* 24-bit, plain and EXTENSIBLE with 20 valid bits */
    {
        int32_t v[NS];
        int ext;
        for (i = 0; i < NS; i++) v[i] = i == 0 ? -8388608 : i == 1 ? 8388607 : i == 2 ? -1 : (int32_t)(gkt_u64() % 16777216) - 8388608;
        for (i = 0; i < NS; i++) {
            raw[3 * i] = (unsigned char)(v[i] & 0xFF);
            raw[3 * i + 1] = (unsigned char)((v[i] >> 8) & 0xFF);
            raw[3 * i + 2] = (unsigned char)((v[i] >> 16) & 0xFF);
            want[i] = (float)((double)v[i] / 8388608.0);
        }
        for (ext = 0; ext < 2; ext++) {
            gk_buf body = {NULL, 0, 0}, f;
            if (ext) fmt_ext(&body, 1, 1, 44100, 24, 20, 3, 22, NULL);
            else fmt16(&body, 1, 1, 44100, 24, 3);
            chunk(&body, "data", 0, raw, 3 * NS, 1);
            f = riff("RIFF", AUTO, &body);
            GKT_OK(NULL, rd(&f, &d, &a));
            GKT_CHECK(a.n == NS && a.bits_in == (ext ? 20 : 24) && a.rate == 44100 && same(a.samples, want, NS), "24-bit values (extensible %d)", ext);
            gk_audio_free(&a);
            gk_buf_free(&f);
            gk_buf_free(&body);
        }
    }
    /* 32-bit */
    {
        int32_t v[NS];
        int ext;
        for (i = 0; i < NS; i++) v[i] = i == 0 ? INT32_MIN : i == 1 ? INT32_MAX : i == 2 ? 1 : (int32_t)(uint32_t)gkt_u64();
        for (i = 0; i < NS; i++) {
            uint32_t u = (uint32_t)v[i];
            raw[4 * i] = (unsigned char)(u & 0xFF);
            raw[4 * i + 1] = (unsigned char)((u >> 8) & 0xFF);
            raw[4 * i + 2] = (unsigned char)((u >> 16) & 0xFF);
            raw[4 * i + 3] = (unsigned char)(u >> 24);
            want[i] = (float)((double)v[i] / 2147483648.0);
        }
        for (ext = 0; ext < 2; ext++) {
            gk_buf body = {NULL, 0, 0}, f;
            if (ext) fmt_ext(&body, 1, 1, 48000, 32, 0, 4, 22, NULL);
            else fmt16(&body, 1, 1, 48000, 32, 4);
            chunk(&body, "data", 0, raw, 4 * NS, 1);
            f = riff("RIFF", AUTO, &body);
            GKT_OK(NULL, rd(&f, &d, &a));
            GKT_CHECK(a.n == NS && a.bits_in == 32 && same(a.samples, want, NS), "32-bit values (extensible %d)", ext);
            gk_audio_free(&a);
            gk_buf_free(&f);
            gk_buf_free(&body);
        }
    }
    /* float 32 and 64, plain and EXTENSIBLE */
    {
        float fv[NS];
        double dv[NS];
        int ext, w;
        for (i = 0; i < NS; i++) {
            dv[i] = i == 0 ? -0.0 : i == 1 ? 1e-40 : i == 2 ? 3.5 : i == 3 ? -1.0 : gkt_uniform(-1.0, 1.0);
            fv[i] = (float)dv[i];
        }
        for (w = 4; w <= 8; w += 4)
            for (ext = 0; ext < 2; ext++) {
                gk_buf body = {NULL, 0, 0}, f, data = {NULL, 0, 0};
                for (i = 0; i < NS; i++) {
                    if (w == 4) {
                        uint32_t u;
                        memcpy(&u, &fv[i], 4);
                        u32(&data, u);
                    } else {
                        uint64_t u;
                        memcpy(&u, &dv[i], 8);
                        u64(&data, u);
                    }
                    want[i] = w == 4 ? fv[i] : (float)dv[i];
                }
                if (ext) fmt_ext(&body, 3, 1, 22050, (unsigned)(8 * w), (unsigned)(8 * w), (unsigned)w, 22, NULL);
                else fmt16(&body, 3, 1, 22050, (unsigned)(8 * w), (unsigned)w);
                {
                    unsigned char fact[4] = {NS, 0, 0, 0};
                    chunk(&body, "fact", 0, fact, 4, 1);
                }
                chunk(&body, "data", 0, data.data, data.len, 1);
                f = riff("RIFF", AUTO, &body);
                GKT_OK(NULL, rd(&f, &d, &a));
                GKT_CHECK(a.n == NS && a.format_in == 3 && a.bits_in == 8 * w && same(a.samples, want, NS), "float%d values (extensible %d)", 8 * w, ext);
                gk_audio_free(&a);
                gk_buf_free(&f);
                gk_buf_free(&body);
                gk_buf_free(&data);
            }
    }
}

/* ---- 1b. channels ---- */
static void channels(void) {
    static const int counts[] = {2, 3, 6};
    gk_audio_desc d = keep();
    int t;
    for (t = 0; t < 3; t++) {
        int C = counts[t], i, c, ext;
        unsigned char raw[NS * 6 * 2];
        float want[NS];
        for (i = 0; i < NS; i++) {
            double acc = 0.0;
            for (c = 0; c < C; c++) {
                int32_t v = (int32_t)(gkt_u64() % 65536) - 32768;
                raw[2 * (i * C + c)] = (unsigned char)(v & 0xFF);
                raw[2 * (i * C + c) + 1] = (unsigned char)((v >> 8) & 0xFF);
                acc += (double)v / 32768.0;
            }
            want[i] = (float)(acc / C);
        }
        for (ext = 0; ext < 2; ext++) {
            gk_buf body = {NULL, 0, 0}, f;
            gk_audio a;
            if (ext) fmt_ext(&body, 1, (unsigned)C, 16000, 16, 16, (unsigned)(2 * C), 22, NULL);
            else fmt16(&body, 1, (unsigned)C, 16000, 16, (unsigned)(2 * C));
            chunk(&body, "data", 0, raw, (size_t)(2 * NS * C), 1);
            f = riff("RIFF", AUTO, &body);
            GKT_OK(NULL, rd(&f, &d, &a));
            GKT_CHECK(a.n == NS && a.channels_in == C && a.frames_in == NS && same(a.samples, want, NS), "%d channels mixed (extensible %d)", C, ext);
            gk_audio_free(&a);
            gk_buf_free(&f);
            gk_buf_free(&body);
        }
    }
    /* a stereo file whose channels cancel: silence */
    {
        unsigned char raw[8] = {0x00, 0x40, 0x00, 0xC0, 0xFF, 0x7F, 0x01, 0x80};
        gk_buf f = simple(1, 2, 16000, 16, raw, 8);
        gk_audio a;
        GKT_OK(NULL, rd(&f, &d, &a));
        GKT_CHECK(a.n == 2 && a.samples[0] == 0.0f && a.samples[1] == 0.0f, "opposite channels: %g %g", a.n ? (double)a.samples[0] : -1.0,
                  a.n > 1 ? (double)a.samples[1] : -1.0);
        gk_audio_free(&a);
        gk_buf_free(&f);
    }
}

/* ---- 2. chunks ---- */
static const unsigned char pcm8[7] = {128, 0, 255, 192, 64, 129, 127};
static void expect8(const gk_audio *a, size_t n, const char *what) {
    float want[7];
    size_t i;
    for (i = 0; i < 7; i++) want[i] = (float)(((double)pcm8[i] - 128.0) / 128.0);
    GKT_CHECK(a->n == n && (n == 0 || same(a->samples, want, n)), "%s: n = %llu, want %llu", what, (unsigned long long)a->n, (unsigned long long)n);
}
static void chunks(void) {
    gk_audio_desc d = keep();
    gk_audio a;
    gk_buf body = {NULL, 0, 0}, f;
    /* LIST (odd, padded) before fmt, JUNK and fact between, an odd data chunk with its pad, LIST after */
    chunk(&body, "LIST", 0, "INFOabc", 7, 1);
    fmt16(&body, 1, 1, 8000, 8, 1);
    chunk(&body, "JUNK", 0, "\0\0\0\0\0\0", 6, 1);
    chunk(&body, "fact", 0, "\7\0\0\0", 4, 1);
    chunk(&body, "data", 0, pcm8, 7, 1);
    chunk(&body, "LIST", 0, "INFOxyz1", 8, 1);
    f = riff("RIFF", AUTO, &body);
    GKT_OK(NULL, rd(&f, &d, &a));
    expect8(&a, 7, "LIST, JUNK, fact, odd data");
    GKT_CHECK(a.flags == 0, "flags %u", a.flags);
    gk_audio_free(&a);
    gk_buf_free(&f);
    gk_buf_free(&body);
    /* an odd chunk whose writer left out the pad byte */
    chunk(&body, "LIST", 0, "INFOabc", 7, 0);
    fmt16(&body, 1, 1, 8000, 8, 1);
    chunk(&body, "bext", 0, "xyz", 3, 0);
    chunk(&body, "data", 0, pcm8, 7, 1);
    f = riff("RIFF", AUTO, &body);
    GKT_OK(NULL, rd(&f, &d, &a));
    expect8(&a, 7, "missing pad bytes");
    gk_audio_free(&a);
    gk_buf_free(&f);
    gk_buf_free(&body);
    /* a fmt chunk longer than 16 bytes (cbSize and extra bytes), a second fmt chunk ignored */
    {
        gk_buf c = {NULL, 0, 0};
        u16(&c, 1);
        u16(&c, 1);
        u32(&c, 8000);
        u32(&c, 8000);
        u16(&c, 1);
        u16(&c, 8);
        u16(&c, 2);
        u16(&c, 0xABCD);
        chunk(&body, "fmt ", 0, c.data, c.len, 1);
        fmt16(&body, 1, 2, 44100, 16, 4);
        chunk(&body, "data", 0, pcm8, 7, 1);
        f = riff("RIFF", AUTO, &body);
        GKT_OK(NULL, rd(&f, &d, &a));
        expect8(&a, 7, "fmt of 20 bytes");
        GKT_CHECK(a.rate == 8000 && a.channels_in == 1, "the first fmt chunk counts: rate %d channels %d", a.rate, a.channels_in);
        gk_audio_free(&a);
        gk_buf_free(&f);
        gk_buf_free(&body);
        gk_buf_free(&c);
    }
    /* streamed: data size 0xFFFFFFFF (RIFF size too) */
    fmt16(&body, 1, 1, 8000, 8, 1);
    chunk(&body, "data", 0xFFFFFFFFu, pcm8, 7, 0);
    f = riff("RIFF", 0xFFFFFFFFu, &body);
    GKT_OK(NULL, rd(&f, &d, &a));
    expect8(&a, 7, "data size 0xFFFFFFFF");
    GKT_CHECK(a.flags == GK_AUDIO_STREAMED && a.warning[0] == 0, "flags %u warning '%s'", a.flags, a.warning);
    gk_audio_free(&a);
    gk_buf_free(&f);
    gk_buf_free(&body);
    /* streamed: data size 0 with a RIFF size of 0, and one that ends at the data header */
    {
        int k;
        for (k = 0; k < 2; k++) {
            fmt16(&body, 1, 1, 8000, 8, 1);
            put(&body, "data\0\0\0\0", 8);
            put(&body, pcm8, 7);
            f = riff("RIFF", k ? 4u + 24u + 8u : 0u, &body);
            GKT_OK(NULL, rd(&f, &d, &a));
            expect8(&a, 7, "data size 0, streamed");
            GKT_CHECK(a.flags == GK_AUDIO_STREAMED, "data size 0 with RIFF size %s: flags %u", k ? "36" : "0", a.flags);
            gk_audio_free(&a);
            gk_buf_free(&f);
            gk_buf_free(&body);
        }
    }
    /* data size 0, the RIFF covering a LIST after it: zero samples, and so is a file that ends at the data header */
    fmt16(&body, 1, 1, 8000, 8, 1);
    chunk(&body, "data", 0, NULL, 0, 1);
    f = riff("RIFF", AUTO, &body);
    GKT_OK(NULL, rd(&f, &d, &a));
    GKT_CHECK(a.n == 0 && a.samples == NULL && a.flags == 0 && a.rate == 8000, "empty data: n %llu flags %u", (unsigned long long)a.n, a.flags);
    gk_audio_free(&a);
    gk_buf_free(&f);
    chunk(&body, "LIST", 0, "INFOabcd", 8, 1);
    f = riff("RIFF", AUTO, &body);
    GKT_OK(NULL, rd(&f, &d, &a));
    GKT_CHECK(a.n == 0 && a.samples == NULL && a.flags == 0, "empty data then LIST: n %llu flags %u", (unsigned long long)a.n, a.flags);
    gk_audio_free(&a);
    gk_buf_free(&f);
    gk_buf_free(&body);
    /* zero-length audio, resampled: still zero samples */
    {
        gk_buf e = simple(1, 1, 44100, 16, NULL, 0);
        GKT_OK(NULL, rd(&e, NULL, &a));
        GKT_CHECK(a.n == 0 && a.samples == NULL && a.rate == 16000 && a.rate_in == 44100, "empty 44.1 kHz file to 16 kHz: n %llu",
                  (unsigned long long)a.n);
        gk_audio_free(&a);
        gk_buf_free(&e);
    }
    /* RF64 and BW64: ds64 gives the data size; a data size that does not fit 32 bits is truncated to the file */
    {
        int k;
        for (k = 0; k < 3; k++) {
            gk_buf ds = {NULL, 0, 0};
            u64(&ds, 0);
            u64(&ds, k == 2 ? ((uint64_t)1 << 40) : 7);
            u64(&ds, 7);
            u32(&ds, 0);
            chunk(&body, "ds64", 0, ds.data, ds.len, 1);
            fmt16(&body, 1, 1, 8000, 8, 1);
            chunk(&body, "data", 0xFFFFFFFFu, pcm8, 7, 1);
            f = riff(k == 1 ? "BW64" : "RF64", 0xFFFFFFFFu, &body);
            GKT_OK(NULL, rd(&f, &d, &a));
            if (k < 2) expect8(&a, 7, k == 1 ? "BW64" : "RF64");
            else GKT_CHECK(a.n == 8, "RF64 data to the end of the file (7 bytes and the pad byte): n %llu", (unsigned long long)a.n);
            GKT_CHECK(k == 2 ? (a.flags == GK_AUDIO_TRUNCATED && strstr(a.warning, "data chunk says 1099511627776 bytes, the file holds 8") != NULL)
                             : a.flags == 0,
                      "RF64 %d: flags %u warning '%s'", k, a.flags, a.warning);
            gk_audio_free(&a);
            gk_buf_free(&f);
            gk_buf_free(&body);
            gk_buf_free(&ds);
        }
    }
}

/* ---- 2b. truncated files ---- */
static void truncation(void) {
    gk_audio_desc d = keep(), ds = keep();
    gk_audio a;
    unsigned char raw[1000];
    int i, cut;
    ds.flags |= GK_AUDIO_STRICT;
    ds.name = "clip.wav";
    for (i = 0; i < 1000; i++) raw[i] = (unsigned char)(i * 7);
    for (cut = 0; cut < 2; cut++) {
        gk_buf f = simple(1, 1, 16000, 16, raw, 1000);
        size_t hold = 600 + (size_t)cut, m;
        f.len = 44 + hold;
        GKT_OK(NULL, rd(&f, &d, &a));
        m = a.n;
        GKT_CHECK(a.n == 300 && (a.flags & GK_AUDIO_TRUNCATED) && a.frames_in == 300, "truncated to %llu bytes: n %llu flags %u",
                  (unsigned long long)hold, (unsigned long long)a.n, a.flags);
        {
            char want[128];
            snprintf(want, sizeof want, "memory: data chunk says 1000 bytes, the file holds %u", (unsigned)hold);
            GKT_CHECK(strcmp(a.warning, want) == 0, "warning '%s', want '%s'", a.warning, want);
        }
        if (m == 300) {
            float w[300];
            for (i = 0; i < 300; i++) w[i] = (float)((double)(int16_t)(uint16_t)(raw[2 * i] | (raw[2 * i + 1] << 8)) / 32768.0);
            GKT_CHECK(same(a.samples, w, 300), "the truncated file's samples");
        }
        gk_audio_free(&a);
        GKT_FAILS(NULL, rd(&f, &ds, &a), GK_ERR_FORMAT, "clip.wav: data chunk says 1000 bytes, the file holds");
        GKT_CHECK(a.samples == NULL && a.n == 0, "strict: out zeroed");
        /* resampled too */
        GKT_OK(NULL, rd(&f, NULL, &a));
        GKT_CHECK(a.n == 300 && (a.flags & GK_AUDIO_TRUNCATED), "truncated, resampled 16 kHz to 16 kHz: n %llu", (unsigned long long)a.n);
        gk_audio_free(&a);
        gk_buf_free(&f);
    }
    /* a size near 4 GiB in a small file: no huge allocation, the frames that are there */
    {
        gk_buf body = {NULL, 0, 0}, f;
        fmt16(&body, 1, 1, 16000, 16, 2);
        chunk(&body, "data", 0xFFFFFFF0u, raw, 1000, 0);
        f = riff("RIFF", AUTO, &body);
        GKT_OK(NULL, rd(&f, NULL, &a));
        GKT_CHECK(a.n == 500 && (a.flags & GK_AUDIO_TRUNCATED) && strstr(a.warning, "says 4294967280 bytes, the file holds 1000"),
                  "0xFFFFFFF0 data bytes: n %llu warning '%s'", (unsigned long long)a.n, a.warning);
        gk_audio_free(&a);
        gk_buf_free(&f);
        gk_buf_free(&body);
    }
}

/* ---- 2c. every prefix and random damage of a file: a status, never a crash ---- */
static void damage(void) {
    gk_buf body = {NULL, 0, 0}, f;
    gk_audio a;
    size_t n, ok = 0, bad = 0;
    int t;
    unsigned char raw[64];
    for (t = 0; t < 64; t++) raw[t] = (unsigned char)(t * 37);
    chunk(&body, "LIST", 0, "INFOabc", 7, 1);
    fmt_ext(&body, 1, 2, 22050, 16, 16, 4, 22, NULL);
    chunk(&body, "data", 0, raw, 64, 1);
    f = riff("RIFF", AUTO, &body);
    for (n = 0; n <= f.len; n++) {
        gk_status st = gk_audio_from_wav_memory(f.data, n, NULL, &a);
        if (st == GK_OK) ok++;
        else {
            bad++;
            GKT_CHECK(st == GK_ERR_FORMAT && a.samples == NULL && strncmp(gk_last_error(NULL), "memory: ", 8) == 0, "prefix of %llu bytes: %s: %s",
                      (unsigned long long)n, gk_status_name(st), gk_last_error(NULL));
        }
        gk_audio_free(&a);
    }
    /* every prefix that holds the data chunk's header reads (a truncated file), no shorter one does */
    GKT_CHECK(ok == f.len - 83 && bad == 84, "prefixes: %llu read, %llu refused", (unsigned long long)ok, (unsigned long long)bad);
    for (t = 0; t < 20000; t++) {
        unsigned char m[256];
        int k, flips = 1 + (int)(gkt_u64() % 4);
        gk_audio_desc d = keep();
        memcpy(m, f.data, f.len);
        for (k = 0; k < flips; k++) m[gkt_u64() % f.len] = (unsigned char)gkt_u64();
        if (gk_audio_from_wav_memory(m, f.len, t % 16 ? &d : NULL, &a) == GK_OK) GKT_CHECK(a.n < 100000000, "a damaged file gives %llu samples", (unsigned long long)a.n);
        else GKT_CHECK(a.samples == NULL && a.n == 0, "failed read left samples");
        gk_audio_free(&a);
    }
    gk_buf_free(&f);
    gk_buf_free(&body);
}

/* ---- 3. bad input: status and message ---- */
static void bad(const gk_buf *f, gk_status want, const char *text) {
    gk_audio a;
    gk_audio_desc d = keep();
    gk_status st;
    d.name = "bad.wav";
    st = rd(f, &d, &a);
    GKT_CHECK(st == want && strstr(gk_last_error(NULL), text) != NULL && a.samples == NULL && a.n == 0, "%s (want %s): \"%s\" (want \"%s\")",
              gk_status_name(st), gk_status_name(want), gk_last_error(NULL), text);
    gk_audio_free(&a);
}
static void bad_fmt(unsigned tag, unsigned ch, unsigned rate, unsigned bits, unsigned block, gk_status want, const char *text) {
    gk_buf body = {NULL, 0, 0}, f;
    fmt16(&body, tag, ch, rate, bits, block);
    chunk(&body, "data", 0, pcm8, 4, 1);
    f = riff("RIFF", AUTO, &body);
    bad(&f, want, text);
    gk_buf_free(&f);
    gk_buf_free(&body);
}
static void errors(void) {
    gk_buf f = {NULL, 0, 0}, body = {NULL, 0, 0};
    gk_audio a;
    gk_audio_desc d;
    float x[4] = {0.f, 0.5f, 0.25f, 0.f};
    /* not WAV */
    bad(&f, GK_ERR_FORMAT, "bad.wav: the file is empty: not a WAV file");
    put(&f, "OggS\0\2\0\0\0\0\0\0", 12);
    bad(&f, GK_ERR_FORMAT, "bad.wav: not a WAV file: it starts with the bytes 4f 67 67 53, not 'RIFF' or 'RF64'");
    f.len = 2;
    bad(&f, GK_ERR_FORMAT, "bad.wav: not a WAV file");
    gk_buf_free(&f);
    put(&f, "RIFF\4\0\0", 7);
    bad(&f, GK_ERR_FORMAT, "bad.wav: 7 bytes are too short for a WAV file");
    gk_buf_free(&f);
    put(&f, "RIFX\4\0\0\0WAVE", 12);
    bad(&f, GK_ERR_UNSUPPORTED, "bad.wav: a big-endian RIFX file");
    gk_buf_free(&f);
    put(&f, "RIFF\4\0\0\0AVI ", 12);
    bad(&f, GK_ERR_FORMAT, "bad.wav: a RIFF file of form 'AVI ', not 'WAVE'");
    gk_buf_free(&f);
    /* chunks */
    f = riff("RIFF", AUTO, &body);
    bad(&f, GK_ERR_FORMAT, "bad.wav: no fmt chunk (the file ends at byte 12)");
    gk_buf_free(&f);
    fmt16(&body, 1, 1, 8000, 8, 1);
    f = riff("RIFF", AUTO, &body);
    bad(&f, GK_ERR_FORMAT, "bad.wav: no data chunk (the file ends at byte 36)");
    gk_buf_free(&f);
    gk_buf_free(&body);
    chunk(&body, "data", 0, pcm8, 4, 1);
    fmt16(&body, 1, 1, 8000, 8, 1);
    f = riff("RIFF", AUTO, &body);
    bad(&f, GK_ERR_FORMAT, "bad.wav: the data chunk at byte 12 comes before the fmt chunk");
    gk_buf_free(&f);
    gk_buf_free(&body);
    chunk(&body, "fmt ", 0, "\1\0\1\0\100\37\0\0", 8, 1);
    f = riff("RIFF", AUTO, &body);
    bad(&f, GK_ERR_FORMAT, "bad.wav: fmt chunk of 8 bytes: it needs at least 16");
    gk_buf_free(&f);
    gk_buf_free(&body);
    chunk(&body, "fmt ", 16, "\1\0\1\0\100\37\0\0", 8, 1);
    f = riff("RIFF", AUTO, &body);
    bad(&f, GK_ERR_FORMAT, "bad.wav: fmt chunk of 16 bytes at byte 12 runs past the end of the file");
    gk_buf_free(&f);
    gk_buf_free(&body);
    chunk(&body, "LIST", 1000, "INFO", 4, 1);
    f = riff("RIFF", AUTO, &body);
    bad(&f, GK_ERR_FORMAT, "bad.wav: chunk 'LIST' at byte 12 says 1000 bytes, but the file ends at byte 24, before any fmt chunk");
    gk_buf_free(&f);
    gk_buf_free(&body);
    fmt16(&body, 1, 1, 8000, 8, 1);
    put(&body, "\1\2\3\4", 4);
    u32(&body, 1000);
    f = riff("RIFF", AUTO, &body);
    bad(&f, GK_ERR_FORMAT, "bad.wav: chunk '\?\?\?\?' at byte 36 says 1000 bytes, but the file ends at byte 44, before any data chunk");
    gk_buf_free(&f);
    gk_buf_free(&body);
    fmt16(&body, 1, 1, 8000, 8, 1);
    chunk(&body, "data", 0, pcm8, 4, 1);
    f = riff("RF64", AUTO, &body);
    bad(&f, GK_ERR_FORMAT, "bad.wav: an RF64 file whose first chunk is 'fmt ', not 'ds64'");
    gk_buf_free(&f);
    gk_buf_free(&body);
    chunk(&body, "ds64", 0, "\0\0\0\0\0\0\0\0", 8, 1);
    f = riff("RF64", AUTO, &body);
    bad(&f, GK_ERR_FORMAT, "bad.wav: ds64 chunk of 8 bytes: its three 64-bit sizes need 24");
    gk_buf_free(&f);
    gk_buf_free(&body);
    /* fmt fields */
    bad_fmt(1, 0, 8000, 8, 1, GK_ERR_FORMAT, "bad.wav: fmt chunk: channels = 0 must be at least 1");
    bad_fmt(1, 1, 0, 8, 1, GK_ERR_FORMAT, "bad.wav: fmt chunk: sample rate = 0 must be at least 1 Hz");
    bad_fmt(1, 1, 0x80000000u, 8, 1, GK_ERR_FORMAT, "bad.wav: fmt chunk: sample rate = 2147483648 Hz is above the limit of 2147483647");
    bad_fmt(1, 2, 8000, 16, 2, GK_ERR_FORMAT, "bad.wav: fmt chunk: block align = 2 does not match 2 channels of 16 bits (4 bytes a frame)");
    bad_fmt(1, 1, 8000, 24, 4, GK_ERR_FORMAT, "bad.wav: fmt chunk: block align = 4 does not match 1 channel of 24 bits (3 bytes a frame)");
    bad_fmt(1, 1, 8000, 0, 1, GK_ERR_UNSUPPORTED, "bad.wav: fmt chunk: PCM with bits per sample = 0");
    bad_fmt(1, 1, 8000, 40, 5, GK_ERR_UNSUPPORTED, "bad.wav: fmt chunk: PCM with bits per sample = 40");
    bad_fmt(3, 1, 8000, 16, 2, GK_ERR_UNSUPPORTED, "bad.wav: fmt chunk: IEEE float with bits per sample = 16; float is read at 32 and 64 bits");
    bad_fmt(7, 1, 8000, 8, 1, GK_ERR_UNSUPPORTED, "bad.wav: fmt chunk: format tag 7 (0x0007, mu-law) is not supported; supported: PCM (tag 1");
    bad_fmt(6, 1, 8000, 8, 1, GK_ERR_UNSUPPORTED, "format tag 6 (0x0006, A-law) is not supported");
    bad_fmt(2, 1, 8000, 4, 256, GK_ERR_UNSUPPORTED, "format tag 2 (0x0002, Microsoft ADPCM) is not supported");
    bad_fmt(0x11, 1, 8000, 4, 256, GK_ERR_UNSUPPORTED, "format tag 17 (0x0011, IMA ADPCM) is not supported");
    bad_fmt(0x55, 1, 8000, 0, 1, GK_ERR_UNSUPPORTED, "format tag 85 (0x0055, MPEG layer 3) is not supported");
    bad_fmt(0x1234, 1, 8000, 8, 1, GK_ERR_UNSUPPORTED, "format tag 4660 (0x1234, unknown) is not supported");
    /* EXTENSIBLE */
    {
        static const unsigned char ambi[12] = {0x21, 0x07, 0xD3, 0x11, 0x86, 0x44, 0xC8, 0xC1, 0xCA, 0x00, 0x00, 0x00};
        fmt_ext(&body, 1, 1, 8000, 16, 16, 2, 10, NULL);
        chunk(&body, "data", 0, pcm8, 4, 1);
        f = riff("RIFF", AUTO, &body);
        bad(&f, GK_ERR_FORMAT, "bad.wav: fmt chunk: WAVE_FORMAT_EXTENSIBLE needs a 40-byte fmt chunk with a 22-byte extension; this one has 40 bytes, extension size 10");
        gk_buf_free(&f);
        gk_buf_free(&body);
        fmt_ext(&body, 1, 1, 8000, 16, 16, 2, 22, ambi);
        chunk(&body, "data", 0, pcm8, 4, 1);
        f = riff("RIFF", AUTO, &body);
        bad(&f, GK_ERR_UNSUPPORTED, "bad.wav: fmt chunk: WAVE_FORMAT_EXTENSIBLE subformat {00000001-0721-11D3-8644-C8C1CA000000} is not supported");
        gk_buf_free(&f);
        gk_buf_free(&body);
        fmt_ext(&body, 7, 1, 8000, 8, 8, 1, 22, NULL);
        chunk(&body, "data", 0, pcm8, 4, 1);
        f = riff("RIFF", AUTO, &body);
        bad(&f, GK_ERR_UNSUPPORTED, "bad.wav: fmt chunk: format tag 7 (0x0007, mu-law) in WAVE_FORMAT_EXTENSIBLE is not supported");
        gk_buf_free(&f);
        gk_buf_free(&body);
        fmt_ext(&body, 1, 1, 8000, 20, 20, 3, 22, NULL);
        chunk(&body, "data", 0, pcm8, 3, 1);
        f = riff("RIFF", AUTO, &body);
        bad(&f, GK_ERR_FORMAT, "bad.wav: fmt chunk: WAVE_FORMAT_EXTENSIBLE bits per sample = 20 with valid bits = 20");
        gk_buf_free(&f);
        gk_buf_free(&body);
        fmt_ext(&body, 1, 1, 8000, 16, 24, 2, 22, NULL);
        chunk(&body, "data", 0, pcm8, 4, 1);
        f = riff("RIFF", AUTO, &body);
        bad(&f, GK_ERR_FORMAT, "with valid bits = 24");
        gk_buf_free(&f);
        gk_buf_free(&body);
    }
    /* a NaN and an infinity in float data: the frame */
    {
        gk_buf data = {NULL, 0, 0};
        float v[6] = {0.f, 0.5f, 0.f, 0.f, 0.f, 0.f};
        int k;
        uint64_t inf = 0x7FF0000000000000ull;
        v[5] = (float)(0.0 / (x[0] == 0.f ? 0.0 : 1.0)); /* NaN, frame 2 of a stereo file */
        for (k = 0; k < 6; k++) {
            uint32_t u;
            memcpy(&u, &v[k], 4);
            u32(&data, u);
        }
        fmt16(&body, 3, 2, 8000, 32, 8);
        chunk(&body, "data", 0, data.data, data.len, 1);
        f = riff("RIFF", AUTO, &body);
        bad(&f, GK_ERR_FORMAT, "bad.wav: frame 2 (byte 60) holds a NaN or an infinity");
        gk_buf_free(&f);
        gk_buf_free(&body);
        gk_buf_free(&data);
        u64(&data, 0);
        u64(&data, inf);
        fmt16(&body, 3, 1, 8000, 64, 8);
        chunk(&body, "data", 0, data.data, data.len, 1);
        f = riff("RIFF", AUTO, &body);
        bad(&f, GK_ERR_FORMAT, "bad.wav: frame 1 (byte 52) holds a NaN or an infinity (or a value beyond float's range)");
        gk_buf_free(&f);
        gk_buf_free(&body);
        gk_buf_free(&data);
        {
            double big = 1e300;
            uint64_t u;
            memcpy(&u, &big, 8);
            u64(&data, 0);
            u64(&data, 0);
            u64(&data, u);
        }
        fmt16(&body, 3, 1, 8000, 64, 8);
        chunk(&body, "data", 0, data.data, data.len, 1);
        f = riff("RIFF", AUTO, &body);
        bad(&f, GK_ERR_FORMAT, "bad.wav: frame 2 (byte 60) holds a NaN or an infinity (or a value beyond float's range)");
        gk_buf_free(&f);
        gk_buf_free(&body);
        gk_buf_free(&data);
    }
    /* arguments and options */
    f = simple(1, 1, 8000, 8, pcm8, 7);
    GKT_FAILS(NULL, gk_audio_from_wav_memory(f.data, f.len, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_audio_from_wav_memory: out is NULL");
    GKT_FAILS(NULL, gk_audio_from_wav_memory(NULL, 5, NULL, &a), GK_ERR_INVALID_ARGUMENT, "gk_audio_from_wav_memory: data is NULL but size is 5");
    GKT_FAILS(NULL, gk_audio_from_wav(NULL, NULL, &a), GK_ERR_INVALID_ARGUMENT, "gk_audio_from_wav: path is NULL");
    GKT_FAILS(NULL, gk_audio_from_wav("x.wav", NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_audio_from_wav: out is NULL");
    memset(&d, 0, sizeof d);
    d.flags = 0x10;
    GKT_FAILS(NULL, rd(&f, &d, &a), GK_ERR_INVALID_ARGUMENT, "gk_audio_from_wav_memory: gk_audio_desc.flags = 0x10 has bits that are not GK_AUDIO_* flags");
    d.flags = 0;
    d.rate = -1;
    GKT_FAILS(NULL, rd(&f, &d, &a), GK_ERR_INVALID_ARGUMENT, "gk_audio_from_wav_memory: gk_audio_desc.rate = -1 must be >= 0 (0: 16000)");
    d.rate = 8000;
    d.flags = GK_AUDIO_KEEP_RATE;
    GKT_FAILS(NULL, rd(&f, &d, &a), GK_ERR_INVALID_ARGUMENT, "gk_audio_desc.rate = 8000 with GK_AUDIO_KEEP_RATE");
    d.rate = 0;
    d.flags = 0;
    d.max_seconds = -1.0;
    GKT_FAILS(NULL, rd(&f, &d, &a), GK_ERR_INVALID_ARGUMENT, "gk_audio_desc.max_seconds = -1 must be finite and >= 0");
    d.max_seconds = 0.0005;
    GKT_FAILS(NULL, rd(&f, &d, &a), GK_ERR_LIMIT, "memory: 7 frames at 8000 Hz (0.0 s) are longer than gk_audio_desc.max_seconds = 0.0005");
    GKT_CHECK(a.samples == NULL && a.n == 0, "out zeroed");
    d.max_seconds = 0.001;
    GKT_OK(NULL, rd(&f, &d, &a));
    gk_audio_free(&a);
    gk_audio_free(NULL);
    gk_buf_free(&f);
    /* from floats */
    GKT_FAILS(NULL, gk_audio_from_float(NULL, 3, 1, 16000, NULL, &a), GK_ERR_INVALID_ARGUMENT, "gk_audio_from_float: samples is NULL but frames is 3");
    GKT_FAILS(NULL, gk_audio_from_float(x, 2, 0, 16000, NULL, &a), GK_ERR_INVALID_ARGUMENT, "gk_audio_from_float: channels = 0 must be at least 1");
    GKT_FAILS(NULL, gk_audio_from_float(x, 2, 2, 0, NULL, &a), GK_ERR_INVALID_ARGUMENT, "gk_audio_from_float: rate = 0 must be at least 1 Hz");
    GKT_FAILS(NULL, gk_audio_from_float(x, 2, 1, 16000, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_audio_from_float: out is NULL");
    x[3] = (float)(1.0 / (x[0] == 0.f ? 0.0 : 1.0));
    GKT_FAILS(NULL, gk_audio_from_float(x, 2, 2, 16000, NULL, &a), GK_ERR_INVALID_ARGUMENT, "gk_audio_from_float: samples[3] (frame 1, channel 1) is infinite");
    GKT_CHECK(a.samples == NULL && a.n == 0, "out zeroed");
    x[3] = 0.f;
    GKT_OK(NULL, gk_audio_from_float(NULL, 0, 1, 16000, NULL, &a));
    GKT_CHECK(a.n == 0 && a.samples == NULL && a.rate == 16000, "no frames");
    gk_audio_free(&a);
    /* mixing floats */
    {
        float st[8] = {1.f, 0.f, 0.25f, 0.75f, -1.f, -0.5f, 3.f, 1.f}, w[4] = {0.5f, 0.5f, -0.75f, 2.f};
        d = keep();
        GKT_OK(NULL, gk_audio_from_float(st, 4, 2, 11025, &d, &a));
        GKT_CHECK(a.n == 4 && a.rate == 11025 && a.channels_in == 2 && a.frames_in == 4 && a.format_in == 0 && same(a.samples, w, 4), "stereo floats mixed");
        gk_audio_free(&a);
    }
}

/* ---- 4. files ---- */
#if defined(__linux__)
typedef struct { int fd; const gk_buf *f; size_t n; } pipe_job;
static void *pipe_writer(void *p) {
    pipe_job *j = (pipe_job *)p;
    size_t done = 0;
    while (done < j->n) {
        ssize_t w = write(j->fd, j->f->data + done, j->n - done > 3000 ? 3000 : j->n - done);
        if (w <= 0) break;
        done += (size_t)w;
    }
    close(j->fd);
    return NULL;
}
/* reads f's first n bytes through a pipe (a file whose size is not known) */
static gk_status via_pipe(const gk_buf *f, size_t n, const gk_audio_desc *d, gk_audio *a) {
    int fds[2];
    pthread_t th;
    pipe_job j;
    char path[64];
    gk_status st;
    if (pipe(fds) != 0) return GK_ERR_IO;
    j.fd = fds[1];
    j.f = f;
    j.n = n;
    pthread_create(&th, NULL, pipe_writer, &j);
    snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
    st = gk_audio_from_wav(path, d, a);
    close(fds[0]);
    pthread_join(th, NULL);
    return st;
}
#endif
static void files(void) {
    float x[1000], *big;
    gk_audio a;
    gk_audio_desc d = keep();
    gk_buf m = {NULL, 0, 0};
    size_t i, nbig = 300000;
    FILE *fp;
    for (i = 0; i < 1000; i++) x[i] = (float)((double)((int)(gkt_u64() % 65536) - 32768) / 32768.0);
    /* PCM16: k / 32768 round-trips exactly; float: any value */
    GKT_OK(NULL, gk_audio_write_wav(TMPDIR "/pcm16.wav", x, 1000, 16000, GK_WAV_PCM16));
    GKT_OK(NULL, gk_audio_from_wav(TMPDIR "/pcm16.wav", &d, &a));
    GKT_CHECK(a.n == 1000 && a.rate == 16000 && a.bits_in == 16 && a.format_in == 1 && a.flags == 0 && same(a.samples, x, 1000), "PCM16 round trip");
    gk_audio_free(&a);
    GKT_OK(NULL, gk_audio_write_wav_memory(&m, x, 1000, 16000, GK_WAV_PCM16));
    {
        gk_buf want = simple(1, 1, 16000, 16, NULL, 0);
        char *data = NULL;
        size_t size = 0;
        GKT_CHECK(m.len == 44 + 2000 && memcmp(m.data + 8, want.data + 8, 28) == 0 && memcmp(m.data + 36, "data", 4) == 0,
                  "PCM16 header: %llu bytes", (unsigned long long)m.len);
        GKT_OK(NULL, gk_read_file(TMPDIR "/pcm16.wav", 0, &data, &size));
        GKT_CHECK(size == m.len && data && memcmp(data, m.data, size) == 0, "file and memory writers agree");
        gk_read_file_free(data);
        gk_buf_free(&want);
    }
    gk_buf_free(&m);
    for (i = 0; i < 1000; i++) x[i] = (float)gkt_uniform(-2.0, 2.0);
    x[7] = 1e-40f;
    GKT_OK(NULL, gk_audio_write_wav(TMPDIR "/f32.wav", x, 1000, 22050, GK_WAV_F32));
    GKT_OK(NULL, gk_audio_from_wav(TMPDIR "/f32.wav", &d, &a));
    GKT_CHECK(a.n == 1000 && a.rate == 22050 && a.format_in == 3 && a.bits_in == 32 && same(a.samples, x, 1000), "float32 round trip");
    gk_audio_free(&a);
    /* PCM16 rounding and clamping */
    {
        float v[6] = {1.0f, -1.0f, 2.0f, -3.0f, 0.5f / 32768.0f, -1.5f / 32768.0f};
        float w[6] = {32767.0f / 32768.0f, -1.0f, 32767.0f / 32768.0f, -1.0f, 1.0f / 32768.0f, -1.0f / 32768.0f};
        GKT_OK(NULL, gk_audio_write_wav_memory(&m, v, 6, 8000, GK_WAV_PCM16));
        GKT_OK(NULL, gk_audio_from_wav_memory(m.data, m.len, &d, &a));
        GKT_CHECK(a.n == 6 && same(a.samples, w, 6), "PCM16 rounds half up and clamps");
        gk_audio_free(&a);
        gk_buf_free(&m);
    }
    /* a larger file, read in pieces, resampled */
    big = (float *)malloc(nbig * sizeof(float));
    for (i = 0; i < nbig; i++) big[i] = (float)(0.5 * sin(2.0 * PI * 440.0 * (double)i / 44100.0));
    GKT_OK(NULL, gk_audio_write_wav(TMPDIR "/big.wav", big, nbig, 44100, GK_WAV_F32));
    GKT_OK(NULL, gk_audio_from_wav(TMPDIR "/big.wav", NULL, &a));
    {
        gk_audio b;
        GKT_OK(NULL, gk_audio_from_float(big, nbig, 1, 44100, NULL, &b));
        GKT_CHECK(a.n == (nbig * 16000 + 22050) / 44100 && b.n == a.n && same(a.samples, b.samples, a.n), "a file read in pieces = the same samples at once: n %llu",
                  (unsigned long long)a.n);
        gk_audio_free(&b);
    }
    gk_audio_free(&a);
    /* truncated on disk: the path in the warning */
    GKT_OK(NULL, gk_audio_write_wav_memory(&m, big, 5000, 44100, GK_WAV_PCM16));
    fp = fopen(TMPDIR "/cut.wav", "wb");
    if (fp) {
        fwrite(m.data, 1, 44 + 3001, fp);
        fclose(fp);
    }
    GKT_OK(NULL, gk_audio_from_wav(TMPDIR "/cut.wav", NULL, &a));
    GKT_CHECK(a.flags == GK_AUDIO_TRUNCATED && strcmp(a.warning, TMPDIR "/cut.wav: data chunk says 10000 bytes, the file holds 3001") == 0 &&
                  a.frames_in == 1500 && a.n == (1500 * 16000 + 22050) / 44100,
              "truncated file: flags %u warning '%s' n %llu", a.flags, a.warning, (unsigned long long)a.n);
    gk_audio_free(&a);
    d.flags |= GK_AUDIO_STRICT;
    GKT_FAILS(NULL, gk_audio_from_wav(TMPDIR "/cut.wav", &d, &a), GK_ERR_FORMAT, TMPDIR "/cut.wav: data chunk says 10000 bytes, the file holds 3001");
    d.flags = GK_AUDIO_KEEP_RATE;
#if defined(__linux__)
    /* a pipe: no size; the whole file, a truncated one, a streamed one */
    {
        gk_status st = via_pipe(&m, m.len, NULL, &a);
        if (st == GK_ERR_IO) printf("pipes: skipped (%s)\n", gk_last_error(NULL));
        else {
            gk_audio b;
            GKT_CHECK(st == GK_OK && a.frames_in == 5000 && a.flags == 0, "pipe: %s, frames %llu flags %u", gk_last_error(NULL), (unsigned long long)a.frames_in, a.flags);
            GKT_OK(NULL, gk_audio_from_wav_memory(m.data, m.len, NULL, &b));
            GKT_CHECK(a.n == b.n && same(a.samples, b.samples, a.n), "pipe and memory agree");
            gk_audio_free(&b);
            gk_audio_free(&a);
            GKT_OK(NULL, via_pipe(&m, 44 + 3001, NULL, &a));
            GKT_CHECK(a.flags == GK_AUDIO_TRUNCATED && a.frames_in == 1500 && strstr(a.warning, "data chunk says 10000 bytes, the file holds 3001") != NULL,
                      "truncated pipe: flags %u warning '%s'", a.flags, a.warning);
            gk_audio_free(&a);
            d.flags = GK_AUDIO_KEEP_RATE | GK_AUDIO_STRICT;
            GKT_FAILS(NULL, via_pipe(&m, 44 + 3001, &d, &a), GK_ERR_FORMAT, "data chunk says 10000 bytes, the file holds 3001");
            d.flags = GK_AUDIO_KEEP_RATE;
            m.data[40] = m.data[41] = m.data[42] = m.data[43] = (char)0xFF;
            GKT_OK(NULL, via_pipe(&m, m.len, &d, &a));
            GKT_CHECK(a.flags == GK_AUDIO_STREAMED && a.n == 5000, "streamed pipe: flags %u n %llu", a.flags, (unsigned long long)a.n);
            gk_audio_free(&a);
            d.max_seconds = 0.05;
            GKT_FAILS(NULL, via_pipe(&m, m.len, &d, &a), GK_ERR_LIMIT, "longer than gk_audio_desc.max_seconds = 0.05");
            d.max_seconds = 0;
        }
    }
#endif
    gk_buf_free(&m);
    free(big);
    /* errors */
    GKT_FAILS(NULL, gk_audio_from_wav(TMPDIR "/none.wav", NULL, &a), GK_ERR_IO, "gk_audio_from_wav: cannot open '" TMPDIR "/none.wav'");
    GKT_FAILS(NULL, gk_audio_from_wav(TMPDIR, NULL, &a), GK_ERR_IO, "gk_audio_from_wav: '" TMPDIR "' is a folder, not a WAV file");
    fp = fopen(TMPDIR "/text.wav", "wb");
    if (fp) {
        fputs("hello, this is not audio\n", fp);
        fclose(fp);
    }
    GKT_FAILS(NULL, gk_audio_from_wav(TMPDIR "/text.wav", NULL, &a), GK_ERR_FORMAT, TMPDIR "/text.wav: not a WAV file: it starts with the bytes 68 65 6c 6c");
    x[3] = (float)(0.0 / (x[0] == 12345.f ? 1.0 : 0.0));
    remove(TMPDIR "/nan.wav");
    GKT_FAILS(NULL, gk_audio_write_wav(TMPDIR "/nan.wav", x, 1000, 16000, GK_WAV_F32), GK_ERR_INVALID_ARGUMENT, "gk_audio_write_wav: samples[3] is NaN");
    fp = fopen(TMPDIR "/nan.wav", "rb");
    GKT_CHECK(fp == NULL, "a refused write creates no file");
    if (fp) fclose(fp);
    GKT_FAILS(NULL, gk_audio_write_wav_memory(&m, x, 1000, 16000, GK_WAV_PCM16), GK_ERR_INVALID_ARGUMENT, "gk_audio_write_wav_memory: samples[3] is NaN");
    GKT_CHECK(m.len == 0, "a refused write appends nothing");
    x[3] = 0.f;
    GKT_FAILS(NULL, gk_audio_write_wav(TMPDIR "/x.wav", x, 10, 0, GK_WAV_F32), GK_ERR_INVALID_ARGUMENT, "gk_audio_write_wav: rate = 0 must be at least 1 Hz");
    GKT_FAILS(NULL, gk_audio_write_wav(TMPDIR "/x.wav", x, 10, 16000, (gk_wav_format)2), GK_ERR_INVALID_ARGUMENT, "gk_audio_write_wav: format = 2 is not a gk_wav_format");
    GKT_FAILS(NULL, gk_audio_write_wav(TMPDIR "/x.wav", NULL, 10, 16000, GK_WAV_F32), GK_ERR_INVALID_ARGUMENT, "gk_audio_write_wav: samples is NULL but n is 10");
    GKT_FAILS(NULL, gk_audio_write_wav(NULL, x, 10, 16000, GK_WAV_F32), GK_ERR_INVALID_ARGUMENT, "gk_audio_write_wav: path is NULL");
    GKT_FAILS(NULL, gk_audio_write_wav(TMPDIR "/no/such/dir/x.wav", x, 10, 16000, GK_WAV_F32), GK_ERR_IO,
              "gk_audio_write_wav: cannot create '" TMPDIR "/no/such/dir/x.wav'");
    GKT_FAILS(NULL, gk_audio_write_wav(TMPDIR "/x.wav", x, (size_t)1 << 31, 16000, GK_WAV_PCM16), GK_ERR_LIMIT, "2147483648 samples are more than a WAV file holds");
    GKT_FAILS(NULL, gk_audio_write_wav_memory(NULL, x, 10, 16000, GK_WAV_F32), GK_ERR_INVALID_ARGUMENT, "gk_audio_write_wav_memory: dst is NULL");
    GKT_OK(NULL, gk_audio_write_wav(TMPDIR "/empty.wav", NULL, 0, 16000, GK_WAV_PCM16));
    GKT_OK(NULL, gk_audio_from_wav(TMPDIR "/empty.wav", NULL, &a));
    GKT_CHECK(a.n == 0 && a.samples == NULL && a.flags == 0, "an empty WAV written and read: n %llu flags %u", (unsigned long long)a.n, a.flags);
    gk_audio_free(&a);
    /* a real WAV from espeak-ng (22050 Hz, 16-bit), when it is installed */
    if (system("command -v espeak-ng > /dev/null 2>&1") != 0) printf("espeak-ng: not installed, skipped\n");
    else if (system("espeak-ng -w " TMPDIR "/espeak.wav 'hello world' > /dev/null 2>&1") != 0) GKT_CHECK(0, "espeak-ng failed");
    else {
        GKT_OK(NULL, gk_audio_from_wav(TMPDIR "/espeak.wav", NULL, &a));
        {
            double e = 0.0;
            for (i = 0; i < a.n; i++) e += (double)a.samples[i] * a.samples[i];
            e = a.n ? sqrt(e / (double)a.n) : 0.0;
            printf("espeak-ng: %d Hz, %d channel(s), %d bits, %llu frames -> %llu samples at 16 kHz, rms %.3f\n", a.rate_in, a.channels_in, a.bits_in,
                   (unsigned long long)a.frames_in, (unsigned long long)a.n, e);
            GKT_CHECK(a.rate == 16000 && a.frames_in > 5000 && a.n == (size_t)((a.frames_in * 16000 + (uint64_t)a.rate_in / 2) / (uint64_t)a.rate_in) && e > 0.01 &&
                          e < 1.0,
                      "espeak-ng WAV: rate_in %d frames %llu n %llu rms %g", a.rate_in, (unsigned long long)a.frames_in, (unsigned long long)a.n, e);
        }
        gk_audio_free(&a);
    }
}

/* ---- 5. the resampler ---- */
/* least-squares amplitude and phase of the sine at w (rad / sample) in y[a..b) */
static void fit(const float *y, size_t a, size_t b, double w, double *ca, double *sa) {
    double scc = 0, sss = 0, scs = 0, syc = 0, sys = 0, det;
    size_t k;
    for (k = a; k < b; k++) {
        double c = cos(w * (double)k), s = sin(w * (double)k);
        scc += c * c;
        sss += s * s;
        scs += c * s;
        syc += y[k] * c;
        sys += y[k] * s;
    }
    det = scc * sss - scs * scs;
    *ca = (syc * sss - sys * scs) / det;
    *sa = (sys * scc - syc * scs) / det;
}
static size_t outlen(size_t n, int in, int out) { return (size_t)(((uint64_t)n * (uint64_t)out * 2 + (uint64_t)in) / (2 * (uint64_t)in)); }
/* a sine at f Hz through in -> out: the gain in dB (and, in the passband, the phase error) measured away from the edges */
static double tone(int in, int out, double f, size_t n, double *phase_err, double *seconds) {
    float *x = (float *)malloc(n * sizeof(float));
    gk_audio a;
    gk_audio_desc d;
    size_t i, e, L;
    double g = 0.0, ph0 = 0.3;
    clock_t t0;
    memset(&d, 0, sizeof d);
    d.rate = out;
    for (i = 0; i < n; i++) x[i] = (float)(0.5 * sin(2.0 * PI * f * (double)i / in + ph0));
    t0 = clock();
    if (gk_audio_from_float(x, n, 1, in, &d, &a) != GK_OK) {
        GKT_CHECK(0, "%d -> %d: %s", in, out, gk_last_error(NULL));
        free(x);
        return 0.0;
    }
    if (seconds) *seconds = (double)(clock() - t0) / CLOCKS_PER_SEC;
    L = outlen(n, in, out);
    GKT_CHECK(a.n == L, "%d -> %d Hz, %llu samples: n %llu, want %llu", in, out, (unsigned long long)n, (unsigned long long)a.n, (unsigned long long)L);
    /* the edges: the kernel's half width (32 zero crossings at the lower rate) and some */
    e = (size_t)(40.0 * out / (in < out ? in : out) / 0.92) + 8;
    if (a.n > 2 * e + 16) {
        if (f < out / 2.0) {
            double ca, sa, w = 2.0 * PI * f / out;
            fit(a.samples, e, a.n - e, w, &ca, &sa);
            g = 20.0 * log10(sqrt(ca * ca + sa * sa) / 0.5);
            /* y = 0.5 sin(w k + ph0) = 0.5 sin(ph0) cos(w k) + 0.5 cos(ph0) sin(w k) */
            if (phase_err) *phase_err = fabs(atan2(ca, sa) - ph0);
        } else {
            double s = 0.0;
            for (i = e; i < a.n - e; i++) s += (double)a.samples[i] * a.samples[i];
            g = 20.0 * log10(sqrt(2.0 * s / (double)(a.n - 2 * e)) / 0.5 + 1e-30);
        }
    } else GKT_CHECK(0, "%d -> %d: %llu samples are too few to measure", in, out, (unsigned long long)a.n);
    gk_audio_free(&a);
    free(x);
    return g;
}
static void resampler(void) {
    /* to 16 kHz from these, and from 16 kHz to the next list (44099 and 7 Hz: taps interpolated, not tabled) */
    static const int rates[] = {8000, 11025, 22050, 44100, 48000, 96000, 192000, 7, 44099, 16001};
    static const int outs[] = {8000, 11025, 22050, 44100, 48000, 96000, 192000, 100, 12345, 15999};
    int r;
    size_t n;
    /* lengths: round(n * out / in), half up */
    {
        static const int pairs[][2] = {{44100, 16000}, {48000, 16000}, {8000, 16000}, {7, 16000}, {16000, 7}, {11025, 16000}, {3, 2}, {2, 3}};
        static const size_t ns[] = {0, 1, 2, 3, 4, 5, 7, 99, 1000, 4410};
        int p, k;
        float z[4410];
        memset(z, 0, sizeof z);
        for (p = 0; p < 8; p++)
            for (k = 0; k < 10; k++) {
                gk_audio a;
                gk_audio_desc d;
                memset(&d, 0, sizeof d);
                d.rate = pairs[p][1];
                GKT_OK(NULL, gk_audio_from_float(z, ns[k], 1, pairs[p][0], &d, &a));
                GKT_CHECK(a.n == outlen(ns[k], pairs[p][0], pairs[p][1]) && a.rate == pairs[p][1] && a.rate_in == pairs[p][0], "%d -> %d Hz, %llu frames: n %llu",
                          pairs[p][0], pairs[p][1], (unsigned long long)ns[k], (unsigned long long)a.n);
                gk_audio_free(&a);
            }
        GKT_CHECK(outlen(3, 2, 3) == 5 && outlen(1, 2, 1) == 1 && outlen(1, 3, 1) == 0, "the rounding: 4.5 -> 5, 0.5 -> 1, 0.33 -> 0");
    }
    /* equal rates: bit-exact */
    {
        float x[5000];
        gk_audio a;
        int i;
        for (i = 0; i < 5000; i++) x[i] = (float)gkt_uniform(-1.0, 1.0);
        GKT_OK(NULL, gk_audio_from_float(x, 5000, 1, 16000, NULL, &a));
        GKT_CHECK(a.n == 5000 && same(a.samples, x, 5000), "16 kHz to 16 kHz passes through");
        gk_audio_free(&a);
    }
    /* tones and DC, to 16 kHz and from it */
    for (r = 0; r < 20; r++) {
        int in = r < 10 ? rates[r] : 16000, out = r < 10 ? 16000 : outs[r - 10], lo = in < out ? in : out;
        double pe = 0.0, g, secs = 0.0;
        if (in == out) continue;
        /* a second of input, at least 400 samples and 2000 outputs */
        n = (size_t)in;
        if (n < 400) n = 400;
        if ((double)n * out / in < 2000) n = (size_t)(2000.0 * in / out);
        g = tone(in, out, 0.4 * lo, n, &pe, &secs);
        GKT_CHECK(fabs(g) < 0.1 && pe < 1e-3, "%d -> %d Hz: a sine at 0.8 of Nyquist: %.4f dB, phase off by %.2g rad", in, out, g, pe);
        g = tone(in, out, 0.2 * lo, n, &pe, NULL);
        GKT_CHECK(fabs(g) < 0.01 && pe < 1e-4, "%d -> %d Hz: a sine at 0.4 of Nyquist: %.4f dB, phase off by %.2g rad", in, out, g, pe);
        if (in > out) {
            double fs[3] = {0.5, 0.525, 0.75};
            int k;
            for (k = 0; k < 3; k++) {
                double f = fs[k] * out;
                if (f >= 0.49 * in) continue;
                g = tone(in, out, f, n, NULL, NULL);
                GKT_CHECK(g < -80.0, "%d -> %d Hz: a sine at %.3f of the output's Nyquist: %.1f dB, want < -80", in, out, 2 * fs[k], g);
            }
        }
        /* DC */
        {
            float *x = (float *)malloc(n * sizeof(float));
            gk_audio a;
            gk_audio_desc d;
            size_t i, e = (size_t)(40.0 * out / lo / 0.92) + 8;
            double worst = 0.0;
            memset(&d, 0, sizeof d);
            d.rate = out;
            for (i = 0; i < n; i++) x[i] = 0.25f;
            GKT_OK(NULL, gk_audio_from_float(x, n, 1, in, &d, &a));
            for (i = e; i + e < a.n; i++)
                if (fabs(a.samples[i] - 0.25) > worst) worst = fabs(a.samples[i] - 0.25);
            GKT_CHECK(worst < 1e-6, "%d -> %d Hz: DC 0.25 off by %.3g", in, out, worst);
            gk_audio_free(&a);
            free(x);
        }
        printf("  %6d -> %6d Hz: %8llu samples in %.3f s\n", in, out, (unsigned long long)n, secs);
    }
    /* speed: a minute of 44.1 kHz stereo to 16 kHz */
    {
        size_t nf = 44100 * 60, i;
        float *x = (float *)malloc(nf * 2 * sizeof(float));
        gk_audio a;
        clock_t t0;
        double s;
        for (i = 0; i < nf * 2; i++) x[i] = (float)(0.3 * sin((double)i * 0.01));
        t0 = clock();
        GKT_OK(NULL, gk_audio_from_float(x, nf, 2, 44100, NULL, &a));
        s = (double)(clock() - t0) / CLOCKS_PER_SEC;
        printf("speed: 60 s of 44.1 kHz stereo to 16 kHz in %.3f s (%.0fx real time)\n", s, 60.0 / (s > 0 ? s : 1e-9));
        gk_audio_free(&a);
        free(x);
    }
}

/* ---- 6. out of memory ---- */
static void oom(void) {
    static const int rates[] = {44100, 7, 16000};
    gk_buf f44 = {NULL, 0, 0};
    float x[3000];
    int r, k;
    for (k = 0; k < 3000; k++) x[k] = (float)(0.5 * sin(k * 0.1));
    gk_audio_write_wav_memory(&f44, x, 3000, 44100, GK_WAV_PCM16);
    gk_audio_write_wav(TMPDIR "/oom.wav", x, 3000, 44100, GK_WAV_PCM16);
    for (r = 0; r < 3; r++) {
        int job;
        for (job = 0; job < 4; job++) {
            long n, base = ta_live;
            int fails = 0;
            for (n = 0; n < 100; n++) {
                gk_audio a;
                gk_audio_desc d;
                gk_buf m = {NULL, 0, 0};
                gk_status st;
                memset(&d, 0, sizeof d);
                d.rate = rates[r];
                ta_calls = 0;
                ta_fail_after = n;
                st = job == 0 ? gk_audio_from_wav_memory(f44.data, f44.len, &d, &a)
                     : job == 1 ? gk_audio_from_wav(TMPDIR "/oom.wav", &d, &a)
                     : job == 2 ? gk_audio_from_float(x, 1500, 2, 44100, &d, &a)
                                : gk_audio_write_wav_memory(&m, x, 3000, rates[r], GK_WAV_F32);
                ta_fail_after = -1;
                if (st == GK_OK) {
                    if (job < 3) {
                        GKT_CHECK(a.n == outlen(job == 2 ? 1500 : 3000, 44100, rates[r]), "after %ld failures: n %llu", n, (unsigned long long)a.n);
                        gk_audio_free(&a);
                    }
                    gk_buf_free(&m);
                    break;
                }
                fails++;
                GKT_CHECK(st == GK_ERR_OUT_OF_MEMORY && strstr(gk_last_error(NULL), "out of memory") != NULL && ta_live == base && m.len == 0,
                          "job %d to %d Hz, allocation %ld fails: %s: %s, %ld blocks left", job, rates[r], n + 1, gk_status_name(st), gk_last_error(NULL),
                          ta_live - base);
                gk_buf_free(&m);
            }
            GKT_CHECK(n < 100 && fails > 0 && ta_live == base, "job %d to %d Hz: %d failing runs, then success", job, rates[r], fails);
        }
    }
    gk_buf_free(&f44);
}

int main(void) {
    gkt_seed();
    if (system("mkdir -p " TMPDIR) != 0) fprintf(stderr, "mkdir failed\n");
#if defined(__linux__)
    signal(SIGPIPE, SIG_IGN); /* a pipe's reader may stop before its writer */
#endif
    encodings();
    channels();
    chunks();
    truncation();
    damage();
    errors();
    files();
    resampler();
    oom();
    GKT_CHECK(ta_live == 0, "%ld blocks left allocated", ta_live);
    return gkt_done("test_audio");
}
