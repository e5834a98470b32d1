/* safetensors tests: files written here (every dtype, scalar, zero-size,
   misaligned data, a sharded set), every header rule violated once, reads
   with conversion, upload through the CPU backend (or CUDA when
   GPUKIT_TEST_BACKEND=auto finds a GPU), and the fixtures written by HF
   safetensors (tests/gen_safetensors_fixtures.py) when they are committed. */
#define GPUKIT_IMPLEMENTATION
#include "gpukit.h"
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"
#include "gkt.h"
#include <stdlib.h>

#define TMPDIR "build/test_st"

typedef struct { const char *name, *dtype; int ndim; int64_t shape[4]; const void *data; size_t nbytes; } ent;

/* Builds a safetensors image like the reference writer (header padded to
   8 bytes with spaces, tensors in the order given). pad < 0: no padding. */
static gk_buf make(const ent *e, size_t n, const char *meta, int pad) {
    gk_buf h = {NULL, 0, 0}, f = {NULL, 0, 0};
    char tmp[256];
    size_t i, off = 0;
    int k;
    gk_buf_append(&h, "{", 1);
    if (meta) {
        gk_buf_append(&h, "\"__metadata__\":", 15);
        gk_buf_append(&h, meta, strlen(meta));
        if (n) gk_buf_append(&h, ",", 1);
    }
    for (i = 0; i < n; i++) {
        int m = snprintf(tmp, sizeof tmp, "%s\"%s\":{\"dtype\":\"%s\",\"shape\":[", i ? "," : "", e[i].name, e[i].dtype);
        gk_buf_append(&h, tmp, (size_t)m);
        for (k = 0; k < e[i].ndim; k++) {
            m = snprintf(tmp, sizeof tmp, "%s%lld", k ? "," : "", (long long)e[i].shape[k]);
            gk_buf_append(&h, tmp, (size_t)m);
        }
        m = snprintf(tmp, sizeof tmp, "],\"data_offsets\":[%zu,%zu]}", off, off + e[i].nbytes);
        gk_buf_append(&h, tmp, (size_t)m);
        off += e[i].nbytes;
    }
    gk_buf_append(&h, "}", 1);
    while (pad >= 0 && h.len % 8) gk_buf_append(&h, " ", 1);
    {
        unsigned char len8[8];
        uint64_t L = h.len;
        for (k = 0; k < 8; k++) len8[k] = (unsigned char)(L >> (8 * k));
        gk_buf_append(&f, len8, 8);
    }
    gk_buf_append(&f, h.data, h.len);
    for (i = 0; i < n; i++) gk_buf_append(&f, e[i].data, e[i].nbytes);
    gk_buf_free(&h);
    return f;
}

/* a raw file from a header string + data length */
static gk_buf raw(const char *header, size_t datalen) {
    gk_buf f = {NULL, 0, 0};
    unsigned char len8[8];
    uint64_t L = strlen(header);
    size_t i;
    int k;
    for (k = 0; k < 8; k++) len8[k] = (unsigned char)(L >> (8 * k));
    gk_buf_append(&f, len8, 8);
    gk_buf_append(&f, header, strlen(header));
    for (i = 0; i < datalen; i++) gk_buf_append(&f, "\0", 1);
    return f;
}

static void write_file(const char *path, const gk_buf *b) {
    FILE *fp = fopen(path, "wb");
    GKT_CHECK(fp != NULL, "cannot write %s", path);
    if (fp) {
        fwrite(b->data, 1, b->len, fp);
        fclose(fp);
    }
}

static void expect_bad(const char *what, gk_buf img, gk_status want, const char *msg) {
    gk_safetensors *st = (gk_safetensors *)1;
    gk_status s = gk_st_open_memory(img.data, img.len, &st);
    GKT_CHECK(s == want, "%s: got %s (%s), want %s", what, gk_status_name(s), gk_last_error(NULL), gk_status_name(want));
    GKT_CHECK(st == NULL, "%s: out not cleared", what);
    if (msg) GKT_CHECK(strstr(gk_last_error(NULL), msg) != NULL, "%s: message '%s' lacks '%s'", what, gk_last_error(NULL), msg);
    gk_buf_free(&img);
}

static int g_progress_calls = 0;
static uint64_t g_progress_last = 0, g_progress_total = 0;
static void on_progress(uint64_t done, uint64_t total, void *user) {
    (void)user;
    g_progress_calls++;
    g_progress_last = done;
    g_progress_total = total;
}

/* ---- values used in the all-dtype file ---- */
static const float f32v[6] = {1.0f, -2.5f, 3.25f, 0.0f, 1e-3f, -65504.0f};
static const double f64v[2] = {3.141592653589793, -1e300};
static const uint16_t f16v[4] = {0x3C00, 0xC000, 0x3800, 0x7BFF};    /* 1, -2, 0.5, 65504 */
static const uint16_t bf16v[3] = {0x3F80, 0xC020, 0x4049};           /* 1, -2.5, 3.140625 */
static const uint8_t e4m3v[4] = {0x38, 0xB8, 0x7E, 0x01};           /* 1, -1, 448, 2^-9 */
static const uint8_t e5m2v[4] = {0x3C, 0xBC, 0x7B, 0x7C};           /* 1, -1, 57344, inf */
static const uint8_t boolv[4] = {1, 0, 1, 2};                        /* nonzero -> true */
static const uint8_t u8v[3] = {0, 128, 255};
static const int8_t i8v[3] = {-128, -1, 127};
static const int16_t i16v[3] = {-32768, -5, 32767};
static const uint16_t u16v[2] = {0, 65535};
static const int32_t i32v[2] = {INT32_MIN, 7};
static const uint32_t u32v[2] = {4000000000u, 1};
static const int64_t i64v[2] = {INT64_MIN, 123456789012345LL};
static const uint64_t u64v[2] = {18446744073709551615ull, 42};

static void all_dtypes(void) {
    float scalar = 2.5f;
    ent e[] = {
        {"f32", "F32", 2, {2, 3}, f32v, sizeof f32v},   {"f64", "F64", 1, {2}, f64v, sizeof f64v},
        {"f16", "F16", 1, {4}, f16v, sizeof f16v},      {"bf16", "BF16", 1, {3}, bf16v, sizeof bf16v},
        {"e4m3", "F8_E4M3", 1, {4}, e4m3v, 4},          {"e5m2", "F8_E5M2", 2, {2, 2}, e5m2v, 4},
        {"bool", "BOOL", 1, {4}, boolv, 4},             {"u8", "U8", 1, {3}, u8v, 3},
        {"i8", "I8", 1, {3}, i8v, 3},                   {"i16", "I16", 1, {3}, i16v, sizeof i16v},
        {"u16", "U16", 1, {2}, u16v, sizeof u16v},      {"i32", "I32", 1, {2}, i32v, sizeof i32v},
        {"u32", "U32", 1, {2}, u32v, sizeof u32v},      {"i64", "I64", 1, {2}, i64v, sizeof i64v},
        {"u64", "U64", 1, {2}, u64v, sizeof u64v},      {"scalar", "F32", 0, {0}, &scalar, 4},
        {"empty", "BF16", 2, {0, 4}, NULL, 0},
    };
    gk_buf img = make(e, sizeof e / sizeof e[0], "{\"format\":\"pt\",\"note\":\"é\"}", 1);
    gk_safetensors *st;
    const gk_st_tensor_info *t;
    float f[8];
    double d[4];
    int32_t i32[8];
    int64_t i64[4];
    uint8_t u8[16];
    size_t i;
    uint64_t hlen = 0, off = 0;
    for (i = 0; i < 8; i++) hlen |= (uint64_t)(unsigned char)img.data[i] << (8 * i); /* the header's length */
    write_file(TMPDIR "/all.safetensors", &img);
    GKT_OK(NULL, gk_st_open(TMPDIR "/all.safetensors", &st));
    if (!st) { gk_buf_free(&img); return; }
    GKT_CHECK(gk_st_count(st) == sizeof e / sizeof e[0], "count %zu", gk_st_count(st));
    for (i = 1; i < gk_st_count(st); i++)
        GKT_CHECK(strcmp(gk_st_tensor(st, i - 1)->name, gk_st_tensor(st, i)->name) < 0, "sorted by name");
    for (i = 0; i < sizeof e / sizeof e[0]; i++) {
        int k;
        uint64_t want_off = 8 + hlen + off; /* make() writes the data in e[]'s order, back to back */
        off += e[i].nbytes;
        t = gk_st_find(st, e[i].name);
        GKT_CHECK(t != NULL, "find %s", e[i].name);
        if (!t) continue;
        GKT_CHECK(strcmp(gk_st_dtype_name(t->dtype), e[i].dtype) == 0, "%s dtype %s", e[i].name, gk_st_dtype_name(t->dtype));
        GKT_CHECK(t->ndim == e[i].ndim && t->nbytes == e[i].nbytes, "%s shape/bytes", e[i].name);
        for (k = 0; k < t->ndim; k++) GKT_CHECK(t->shape[k] == e[i].shape[k], "%s dim %d", e[i].name, k);
        GKT_CHECK(e[i].nbytes == 0 || memcmp(t->data, e[i].data, e[i].nbytes) == 0, "%s raw bytes", e[i].name);
        GKT_CHECK(t->file_offset == want_off, "%s offset %llu, want %llu", e[i].name, (unsigned long long)t->file_offset,
                  (unsigned long long)want_off);
    }
    GKT_CHECK(gk_st_find(st, "scalar")->numel == 1 && gk_st_find(st, "empty")->numel == 0, "scalar / empty numel");
    GKT_CHECK(strcmp(gk_st_metadata(st, "format"), "pt") == 0 && strcmp(gk_st_metadata(st, "note"), "é") == 0, "metadata");
    GKT_CHECK(gk_st_metadata(st, "nope") == NULL, "missing metadata");
    GKT_CHECK(gk_st_find(st, "nope") == NULL, "find missing");
    /* conversions */
    GKT_OK(NULL, gk_st_read(st, "f16", GK_F32, f, sizeof f));
    GKT_CHECK(f[0] == 1.0f && f[1] == -2.0f && f[2] == 0.5f && f[3] == 65504.0f, "f16 -> f32");
    GKT_OK(NULL, gk_st_read(st, "bf16", GK_F32, f, sizeof f));
    GKT_CHECK(f[0] == 1.0f && f[1] == -2.5f && f[2] == 3.140625f, "bf16 -> f32");
    GKT_OK(NULL, gk_st_read(st, "e4m3", GK_F32, f, sizeof f));
    GKT_CHECK(f[0] == 1.0f && f[1] == -1.0f && f[2] == 448.0f && f[3] == 0.001953125f, "e4m3 -> f32 (%g %g %g %g)", f[0], f[1], f[2], f[3]);
    GKT_OK(NULL, gk_st_read(st, "e5m2", GK_F32, f, sizeof f));
    GKT_CHECK(f[0] == 1.0f && f[1] == -1.0f && f[2] == 57344.0f && f[3] > 3e38f, "e5m2 -> f32");
    GKT_OK(NULL, gk_st_read(st, "f32", GK_BF16, u8, 12));
    GKT_CHECK(u8[0] == 0x80 && u8[1] == 0x3F && u8[2] == 0x20 && u8[3] == 0xC0, "f32 -> bf16");
    GKT_OK(NULL, gk_st_read(st, "f64", GK_F32, f, sizeof f));
    GKT_CHECK(f[0] == 3.14159274f && f[1] == -INFINITY, "f64 -> f32 rounds, overflow to -inf (%g)", f[1]);
    GKT_OK(NULL, gk_st_read(st, "bool", GK_I32, i32, sizeof i32));
    GKT_CHECK(i32[0] == 1 && i32[1] == 0 && i32[2] == 1 && i32[3] == 1, "bool -> i32");
    GKT_OK(NULL, gk_st_read(st, "bool", GK_F32, f, sizeof f));
    GKT_CHECK(f[0] == 1.0f && f[1] == 0.0f && f[3] == 1.0f, "bool -> f32");
    GKT_OK(NULL, gk_st_read(st, "u16", GK_I32, i32, sizeof i32));
    GKT_CHECK(i32[0] == 0 && i32[1] == 65535, "u16 -> i32");
    GKT_OK(NULL, gk_st_read(st, "i16", GK_F32, f, sizeof f));
    GKT_CHECK(f[0] == -32768.0f && f[1] == -5.0f && f[2] == 32767.0f, "i16 -> f32");
    GKT_OK(NULL, gk_st_read(st, "u32", GK_I64, i64, sizeof i64));
    GKT_CHECK(i64[0] == 4000000000LL && i64[1] == 1, "u32 -> i64");
    GKT_OK(NULL, gk_st_read(st, "u64", GK_F64, d, sizeof d));
    GKT_CHECK(d[0] == 18446744073709551615.0 && d[1] == 42.0, "u64 -> f64");
    GKT_OK(NULL, gk_st_read(st, "u64", GK_I64, i64, sizeof i64));
    GKT_CHECK(i64[0] == -1 && i64[1] == 42, "u64 -> i64 keeps the bits");
    GKT_OK(NULL, gk_st_read(st, "i64", GK_I64, i64, sizeof i64));
    GKT_CHECK(i64[0] == INT64_MIN && i64[1] == 123456789012345LL, "i64 -> i64");
    GKT_OK(NULL, gk_st_read(st, "i8", GK_F32, f, sizeof f));
    GKT_CHECK(f[0] == -128.0f && f[1] == -1.0f && f[2] == 127.0f, "i8 -> f32");
    GKT_OK(NULL, gk_st_read(st, "scalar", GK_F64, d, sizeof d));
    GKT_CHECK(d[0] == 2.5, "scalar");
    GKT_OK(NULL, gk_st_read(st, "empty", GK_F32, NULL, 0));
    GKT_FAILS(NULL, gk_st_read(st, "f32", GK_F32, f, 8), GK_ERR_INVALID_ARGUMENT, "needs 24 bytes, buffer has 8");
    GKT_FAILS(NULL, gk_st_read(st, "nope", GK_F32, f, sizeof f), GK_ERR_NOT_FOUND, "no tensor named 'nope'");
    GKT_OK(NULL, gk_st_read_raw(st, "u16", u8, sizeof u8));
    GKT_CHECK(memcmp(u8, u16v, 4) == 0, "read_raw");
    GKT_FAILS(NULL, gk_st_read_raw(st, "f32", u8, 4), GK_ERR_INVALID_ARGUMENT, "needs 24 bytes, buffer has 4");
    /* upload through the core (CPU backend unless GPUKIT_TEST_BACKEND=auto) */
    {
        gk_ctx_desc desc;
        gk_ctx *ctx = NULL;
        gk_tensor dt;
        const char *be = getenv("GPUKIT_TEST_BACKEND");
        memset(&desc, 0, sizeof desc);
        desc.backend = (be && strcmp(be, "auto") == 0) ? GK_BACKEND_AUTO : GK_BACKEND_CPU;
        desc.log_level = GK_LOG_OFF;
        GKT_OK(NULL, gk_ctx_create(&desc, &ctx));
        if (ctx) {
            GKT_OK(ctx, gk_st_upload(ctx, st, "f32", GK_F32, &dt, on_progress, NULL));
            GKT_CHECK(g_progress_calls >= 2 && g_progress_last == 24 && g_progress_total == 24, "progress %d %llu", g_progress_calls,
                  (unsigned long long)g_progress_last);
            GKT_OK(ctx, gk_copy_to_host(ctx, dt, f, 24));
            GKT_CHECK(memcmp(f, f32v, 24) == 0, "uploaded f32");
            gk_tensor_free(ctx, dt);
            GKT_OK(ctx, gk_st_upload(ctx, st, "bf16", GK_F32, &dt, NULL, NULL)); /* device cast */
            GKT_OK(ctx, gk_copy_to_host(ctx, dt, f, 12));
            GKT_CHECK(f[0] == 1.0f && f[1] == -2.5f && f[2] == 3.140625f, "bf16 uploaded and cast to f32");
            gk_tensor_free(ctx, dt);
            GKT_OK(ctx, gk_st_upload(ctx, st, "bool", GK_I32, &dt, NULL, NULL)); /* host conversion */
            GKT_OK(ctx, gk_copy_to_host(ctx, dt, i32, 16));
            GKT_CHECK(i32[0] == 1 && i32[1] == 0 && i32[3] == 1, "bool uploaded as i32");
            gk_tensor_free(ctx, dt);
            GKT_OK(ctx, gk_st_upload(ctx, st, "scalar", GK_F32, &dt, NULL, NULL));
            GKT_OK(ctx, gk_copy_to_host(ctx, dt, f, 4));
            GKT_CHECK(f[0] == 2.5f, "scalar uploaded");
            gk_tensor_free(ctx, dt);
            GKT_OK(ctx, gk_st_upload(ctx, st, "empty", GK_BF16, &dt, NULL, NULL));
            gk_tensor_free(ctx, dt);
            /* a call with a context reports there, not to the thread (gpukit_llm.h ERRORS) */
            gk_error_set(NULL, GK_OK, "untouched");
            GKT_FAILS(ctx, gk_st_upload(ctx, st, "nope", GK_F32, &dt, NULL, NULL), GK_ERR_NOT_FOUND, "no tensor named 'nope'");
            GKT_CHECK(strcmp(gk_last_error(NULL), "untouched") == 0, "thread's message after gk_st_upload: %s", gk_last_error(NULL));
            gk_ctx_destroy(ctx);
        }
    }
    gk_st_close(st);
    /* the same image from memory, and misaligned (unpadded header) */
    GKT_OK(NULL, gk_st_open_memory(img.data, img.len, &st));
    gk_st_close(st);
    gk_buf_free(&img);
    {
        ent e2[] = {{"a", "F32", 1, {6}, f32v, sizeof f32v}};
        gk_buf m;
        size_t base = 0;
        for (;;) { /* find a header length that leaves the data misaligned */
            m = make(e2, 1, base ? "{\"p\":\"xx\"}" : NULL, -1);
            if ((m.len - 24) % 4 != 0) break;
            gk_buf_free(&m);
            base++;
            if (base > 3) break;
        }
        GKT_OK(NULL, gk_st_open_memory(m.data + 0, m.len, &st));
        if (st) {
            const gk_st_tensor_info *a = gk_st_find(st, "a");
            GKT_CHECK(a && a->file_offset % 4 != 0 && (const char *)a->data == m.data + a->file_offset,
                      "data not misaligned in place (offset %llu)", a ? (unsigned long long)a->file_offset : 0ull);
            GKT_OK(NULL, gk_st_read(st, "a", GK_F32, f, sizeof f));
            GKT_CHECK(memcmp(f, f32v, sizeof f32v) == 0, "misaligned read");
            GKT_FAILS(NULL, gk_st_read(st, "a", GK_F64, d, sizeof d), GK_ERR_INVALID_ARGUMENT, "needs 48 bytes"); /* 6 doubles needed */
            gk_st_close(st);
        }
        gk_buf_free(&m);
    }
}

static void sharded(void) {
    ent a[] = {{"w.a", "F32", 1, {2}, f32v, 8}}, b[] = {{"w.b", "I32", 1, {2}, i32v, 8}, {"w.c", "U8", 1, {3}, u8v, 3}};
    gk_buf fa = make(a, 1, "{\"format\":\"pt\"}", 1), fb = make(b, 2, NULL, 1), idx = {NULL, 0, 0};
    gk_safetensors *st;
    const char *ix = "{\"metadata\":{\"total_size\":19},\"weight_map\":{\"w.a\":\"model-00001-of-00002.safetensors\","
                     "\"w.b\":\"model-00002-of-00002.safetensors\",\"w.c\":\"model-00002-of-00002.safetensors\"}}";
    int32_t i32[2];
    write_file(TMPDIR "/model-00001-of-00002.safetensors", &fa);
    write_file(TMPDIR "/model-00002-of-00002.safetensors", &fb);
    gk_buf_append(&idx, ix, strlen(ix));
    write_file(TMPDIR "/model.safetensors.index.json", &idx);
    GKT_OK(NULL, gk_st_open(TMPDIR "/model.safetensors.index.json", &st));
    if (st) {
        GKT_CHECK(gk_st_count(st) == 3 && gk_st_file_count(st) == 2, "sharded count");
        GKT_CHECK(gk_st_find(st, "w.b") && gk_st_find(st, "w.b")->file_index != gk_st_find(st, "w.a")->file_index, "two files");
        GKT_OK(NULL, gk_st_read(st, "w.b", GK_I32, i32, sizeof i32));
        GKT_CHECK(i32[0] == INT32_MIN && i32[1] == 7, "shard 2 data");
        GKT_CHECK(strcmp(gk_st_metadata(st, "format"), "pt") == 0, "metadata of the first shard");
        gk_st_close(st);
    }
    GKT_OK(NULL, gk_st_open(TMPDIR, &st)); /* folder */
    gk_st_close(st);
    GKT_OK(NULL, gk_st_open(TMPDIR "/", &st));
    gk_st_close(st);
    /* index errors */
    {
        const char *bad_idx[] = {
            "{\"weight_map\":{\"w.a\":\"model-00001-of-00002.safetensors\",\"w.zz\":\"model-00001-of-00002.safetensors\"}}",
            "{\"weight_map\":{\"w.a\":\"../x.safetensors\"}}", "{\"nothing\":1}",
            "{\"weight_map\":{\"w.a\":\"missing.safetensors\"}}"};
        const char *msgs[] = {"no such tensor", "plain file name", "weight_map", "missing.safetensors"};
        gk_status want[] = {GK_ERR_FORMAT, GK_ERR_FORMAT, GK_ERR_FORMAT, GK_ERR_IO};
        size_t i;
        for (i = 0; i < 4; i++) {
            gk_buf bi = {NULL, 0, 0};
            gk_buf_append(&bi, bad_idx[i], strlen(bad_idx[i]));
            write_file(TMPDIR "/bad.index.json", &bi);
            gk_buf_free(&bi);
            GKT_FAILS(NULL, gk_st_open(TMPDIR "/bad.index.json", &st), want[i], TMPDIR "/"); /* names the file */
            GKT_CHECK(strstr(gk_last_error(NULL), msgs[i]) != NULL, "index case %zu: %s", i, gk_last_error(NULL));
        }
    }
    /* a tensor in two shards */
    {
        gk_buf dup = make(a, 1, NULL, 1), bi = {NULL, 0, 0};
        const char *ix2 = "{\"weight_map\":{\"w.a\":\"model-00001-of-00002.safetensors\",\"w.b\":\"dup.safetensors\"}}";
        write_file(TMPDIR "/dup.safetensors", &dup);
        gk_buf_append(&bi, ix2, strlen(ix2));
        write_file(TMPDIR "/dup.index.json", &bi);
        GKT_FAILS(NULL, gk_st_open(TMPDIR "/dup.index.json", &st), GK_ERR_FORMAT, "dup.safetensors");
        GKT_CHECK(strstr(gk_last_error(NULL), "duplicate tensor name 'w.a'") != NULL, "dup across shards: %s", gk_last_error(NULL));
        gk_buf_free(&dup);
        gk_buf_free(&bi);
    }
    GKT_FAILS(NULL, gk_st_open(TMPDIR "/none.safetensors", &st), GK_ERR_IO, TMPDIR "/none.safetensors");
    gk_buf_free(&fa);
    gk_buf_free(&fb);
    gk_buf_free(&idx);
}

static void bad_inputs(void) {
    static const char f8[8] = {0};
    {
        gk_buf b = {NULL, 0, 0};
        gk_buf_append(&b, "\x02\0\0\0\0", 5);
        expect_bad("5 bytes", b, GK_ERR_FORMAT, "too small");
    }
    expect_bad("empty header", raw("", 0), GK_ERR_FORMAT, "start with '{'");
    {
        gk_buf b = {NULL, 0, 0};
        gk_buf_append(&b, "\x05\0\0", 3);
        expect_bad("truncated length", b, GK_ERR_FORMAT, "too small");
    }
    {
        gk_buf b = raw("{}", 0);
        b.data[0] = 50; /* header length beyond the file */
        expect_bad("length beyond file", b, GK_ERR_FORMAT, "beyond the end");
    }
    {
        gk_buf b = raw("{}", 0);
        b.data[0] = 0x01; b.data[1] = (char)0xE2; b.data[2] = 0x05; b.data[3] = 0x06; /* 100,000,001+ */
        expect_bad("huge header length", b, GK_ERR_LIMIT, "limit");
    }
    {
        gk_buf b = raw("{}", 0);
        b.data[7] = (char)0x80;
        expect_bad("length 2^63", b, GK_ERR_LIMIT, "limit");
    }
    expect_bad("not an object", raw("[1]     ", 0), GK_ERR_FORMAT, "start with '{'");
    expect_bad("leading space", raw(" {}     ", 0), GK_ERR_FORMAT, "start with '{'");
    expect_bad("bad JSON", raw("{\"a\":}  ", 0), GK_ERR_FORMAT, "line 1");
    expect_bad("invalid UTF-8", raw("{\"\xff\":{}}", 0), GK_ERR_FORMAT, "UTF-8");
    expect_bad("unknown dtype", raw("{\"t\":{\"dtype\":\"F7\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1), GK_ERR_FORMAT, "unknown dtype 'F7'");
    expect_bad("newer dtype", raw("{\"t\":{\"dtype\":\"F8_E8M0\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1), GK_ERR_UNSUPPORTED, "F8_E8M0");
    expect_bad("no dtype", raw("{\"t\":{\"shape\":[1],\"data_offsets\":[0,1]}}", 1), GK_ERR_FORMAT, "dtype");
    expect_bad("no shape", raw("{\"t\":{\"dtype\":\"U8\",\"data_offsets\":[0,1]}}", 1), GK_ERR_FORMAT, "shape");
    expect_bad("negative dim", raw("{\"t\":{\"dtype\":\"U8\",\"shape\":[-1],\"data_offsets\":[0,1]}}", 1), GK_ERR_FORMAT, "shape[0]");
    expect_bad("float dim", raw("{\"t\":{\"dtype\":\"U8\",\"shape\":[1.5],\"data_offsets\":[0,1]}}", 1), GK_ERR_FORMAT, "shape[0]");
    expect_bad("dim overflow", raw("{\"t\":{\"dtype\":\"U8\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,1]}}", 1), GK_ERR_OVERFLOW, "overflows");
    expect_bad("byte overflow", raw("{\"t\":{\"dtype\":\"F64\",\"shape\":[4611686018427387904],\"data_offsets\":[0,1]}}", 1), GK_ERR_OVERFLOW, "overflows");
    expect_bad("17 dims", raw("{\"t\":{\"dtype\":\"U8\",\"shape\":[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1],\"data_offsets\":[0,1]}}", 1), GK_ERR_LIMIT, "dimensions");
    expect_bad("one offset", raw("{\"t\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0]}}", 1), GK_ERR_FORMAT, "data_offsets");
    expect_bad("negative offset", raw("{\"t\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[-1,0]}}", 1), GK_ERR_FORMAT, "non-negative");
    expect_bad("end < begin", raw("{\"t\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[1,0]}}", 1), GK_ERR_FORMAT, "end");
    expect_bad("offset out of range", raw("{\"t\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]}}", 2), GK_ERR_FORMAT, "out of range");
    expect_bad("truncated data", raw("{\"t\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 15), GK_ERR_FORMAT, "out of range");
    expect_bad("size mismatch", raw("{\"t\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}", 4), GK_ERR_FORMAT, "need 8");
    expect_bad("overlap", raw("{\"a\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[0,4]},\"b\":{\"dtype\":\"U8\",\"shape\":[4],\"data_offsets\":[2,6]}}", 6), GK_ERR_FORMAT, "overlaps");
    expect_bad("hole", raw("{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]},\"b\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[3,5]}}", 5), GK_ERR_FORMAT, "hole");
    expect_bad("hole at start", raw("{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[1,3]}}", 3), GK_ERR_FORMAT, "hole");
    expect_bad("trailing bytes", raw("{\"a\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]}}", 3), GK_ERR_FORMAT, "tensors end at byte 2");
    expect_bad("duplicate", raw("{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1,2]}}", 2), GK_ERR_FORMAT, "duplicate tensor name 'a'");
    expect_bad("metadata not string", raw("{\"__metadata__\":{\"k\":1}}", 0), GK_ERR_FORMAT, "__metadata__");
    expect_bad("metadata not object", raw("{\"__metadata__\":[]}", 0), GK_ERR_FORMAT, "__metadata__");
    expect_bad("tensor not object", raw("{\"a\":3}", 0), GK_ERR_FORMAT, "not an object");
    expect_bad("deep header", raw("{\"a\":[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]}", 0), GK_ERR_LIMIT, "depth");
    expect_bad("NUL in name", raw("{\"a\\u0000b\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1), GK_ERR_FORMAT, "NUL");
    {
        gk_safetensors *st;
        gk_buf ok = raw("{}      ", 0);
        GKT_OK(NULL, gk_st_open_memory(ok.data, ok.len, &st)); /* empty file with padding */
        GKT_CHECK(gk_st_count(st) == 0, "no tensors");
        gk_st_close(st);
        gk_buf_free(&ok);
        ok = raw("{\"z\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]},\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1);
        GKT_OK(NULL, gk_st_open_memory(ok.data, ok.len, &st)); /* zero-size tensor sharing an offset */
        gk_st_close(st);
        gk_buf_free(&ok);
    }
    (void)f8;
}

/* ---- fixtures written by HF safetensors (tests/gen_safetensors_fixtures.py) ---- */
static int hexval(char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; }
static int hex_equal(const unsigned char *p, size_t n, const char *hex) {
    size_t i;
    if (strlen(hex) != 2 * n) return 0;
    for (i = 0; i < n; i++)
        if (hexval(hex[2 * i]) * 16 + hexval(hex[2 * i + 1]) != p[i]) return 0;
    return 1;
}
static void fixtures(void) {
    const char *dir = "tests/fixtures/safetensors";
    char path[512];
    gk_json *exp;
    const gk_json_value *files;
    size_t i, j, ntens = 0;
    snprintf(path, sizeof path, "%s/expected.json", dir);
    if (gk_json_parse_file(path, NULL, &exp) != GK_OK) {
        printf("SKIP fixtures: %s not found (run tests/gen_safetensors_fixtures.py on a machine with HF safetensors "
               "and commit its output)\n", path);
        return;
    }
    files = gk_json_get(gk_json_root(exp), "files");
    for (i = 0; i < gk_json_len(files); i++) {
        const char *fname = gk_json_key_at(files, i, NULL);
        const gk_json_value *fe = gk_json_at(files, i), *tens = gk_json_get(fe, "tensors"), *meta = gk_json_get(fe, "metadata");
        gk_safetensors *st;
        snprintf(path, sizeof path, "%s/%s", dir, fname);
        GKT_OK(NULL, gk_st_open(path, &st));
        if (!st) continue;
        GKT_CHECK(gk_st_count(st) == gk_json_len(tens), "%s: %zu tensors, expected %zu", fname, gk_st_count(st), gk_json_len(tens));
        for (j = 0; j < gk_json_len(meta); j++) {
            const char *v = gk_st_metadata(st, gk_json_key_at(meta, j, NULL));
            GKT_CHECK(v && strcmp(v, gk_json_str(gk_json_at(meta, j), "")) == 0, "%s: metadata %s", fname, gk_json_key_at(meta, j, NULL));
        }
        for (j = 0; j < gk_json_len(tens); j++) {
            const char *tn = gk_json_key_at(tens, j, NULL);
            const gk_json_value *te = gk_json_at(tens, j), *shape = gk_json_get(te, "shape");
            const gk_st_tensor_info *t = gk_st_find(st, tn);
            size_t k;
            GKT_CHECK(t != NULL, "%s: tensor %s missing", fname, tn);
            if (!t) continue;
            ntens++;
            GKT_CHECK(strcmp(gk_st_dtype_name(t->dtype), gk_json_get_string(te, "dtype", "")) == 0, "%s/%s dtype", fname, tn);
            GKT_CHECK((size_t)t->ndim == gk_json_len(shape), "%s/%s ndim", fname, tn);
            for (k = 0; k < gk_json_len(shape); k++) GKT_CHECK(t->shape[k] == gk_json_int(gk_json_at(shape, k), -1), "%s/%s dim", fname, tn);
            GKT_CHECK(hex_equal((const unsigned char *)t->data, (size_t)t->nbytes, gk_json_get_string(te, "hex", "")), "%s/%s bytes", fname, tn);
            if (gk_json_get(te, "f32_hex")) { /* torch's .float() of the tensor, bit-exact */
                float *f = (float *)malloc(t->numel * 4 + 4);
                GKT_OK(NULL, gk_st_read(st, tn, GK_F32, f, (size_t)t->numel * 4));
                GKT_CHECK(hex_equal((const unsigned char *)f, (size_t)t->numel * 4, gk_json_get_string(te, "f32_hex", "")), "%s/%s as f32", fname, tn);
                free(f);
            }
            if (gk_json_get(te, "i64_hex")) { /* torch's .to(int64) (U64: the bits) */
                int64_t *v = (int64_t *)malloc(t->numel * 8 + 8);
                GKT_OK(NULL, gk_st_read(st, tn, GK_I64, v, (size_t)t->numel * 8));
                GKT_CHECK(hex_equal((const unsigned char *)v, (size_t)t->numel * 8, gk_json_get_string(te, "i64_hex", "")), "%s/%s as i64", fname, tn);
                free(v);
            }
        }
        gk_st_close(st);
    }
    printf("fixtures: %zu tensors in %zu files checked\n", ntens, gk_json_len(files));
    gk_json_free(exp);
}

int main(void) {
    gkt_seed();
#if defined(_WIN32)
    _mkdir("build"); _mkdir(TMPDIR);
#else
    if (system("mkdir -p " TMPDIR) != 0) fprintf(stderr, "mkdir failed\n");
#endif
    all_dtypes();
    sharded();
    bad_inputs();
    fixtures();
    return gkt_done("test_safetensors");
}
