/* JSON parser tests: values, escapes, UTF-8, numbers, errors with line and
   column, limits, lookup API, speed on a large document. */
#define GPUKIT_IMPLEMENTATION
#include "gpukit.h"
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"
#include "gkt.h"
#include <stdlib.h>
#include <time.h>
#include <math.h>

static gk_json *parse(const char *s) {
    gk_json *d = NULL;
    gk_status st = gk_json_parse(s, strlen(s), NULL, &d);
    GKT_CHECK(st == GK_OK, "parse '%s': %s", s, gk_last_error(NULL));
    return d;
}

static void bad(const char *s, size_t n, gk_status want, const char *msg) {
    gk_json *d = (gk_json *)1;
    gk_status st = gk_json_parse(s, n, NULL, &d);
    GKT_CHECK(st == want, "'%.*s': got %s (%s), want %s", (int)n, s, gk_status_name(st), gk_last_error(NULL), gk_status_name(want));
    GKT_CHECK(d == NULL, "out not cleared on error");
    if (msg) GKT_CHECK(strstr(gk_last_error(NULL), msg) != NULL, "'%.*s': message '%s' lacks '%s'", (int)n, s, gk_last_error(NULL), msg);
}

int main(void) {
    gk_json *d;
    const gk_json_value *r;
    gkt_seed();
    /* scalars and containers */
    d = parse(" {\"a\": {\"b\": [1, 2.5, {\"c\": \"x\"}], \"t\": true, \"f\": false, \"n\": null}, \"e\": [], \"o\": {}} ");
    r = gk_json_root(d);
    GKT_CHECK(gk_json_typeof(r) == GK_JSON_OBJECT && gk_json_len(r) == 3, "root object");
    GKT_CHECK(gk_json_get_int(r, "a.b.0", -1) == 1, "a.b.0");
    GKT_CHECK(gk_json_get_double(r, "a.b.1", 0) == 2.5, "a.b.1");
    GKT_CHECK(gk_json_get_int(r, "a.b.1", -7) == -7, "non-integral double is no int");
    GKT_CHECK(gk_json_get_double(r, "a.b.0", 0) == 1.0, "int as double");
    GKT_CHECK(strcmp(gk_json_get_string(r, "a.b.2.c", "?"), "x") == 0, "a.b.2.c");
    GKT_CHECK(gk_json_get_bool(r, "a.t", 0) == 1 && gk_json_get_bool(r, "a.f", 1) == 0, "bools");
    GKT_CHECK(gk_json_typeof(gk_json_path(r, "a.n")) == GK_JSON_NULL && gk_json_path(r, "a.n") != NULL, "null present");
    GKT_CHECK(gk_json_path(r, "a.zz") == NULL && gk_json_is_null(gk_json_path(r, "a.zz")), "missing");
    GKT_CHECK(gk_json_path(r, "a.b.3") == NULL && gk_json_path(r, "a.b.x") == NULL, "bad index");
    GKT_CHECK(gk_json_len(gk_json_get(r, "e")) == 0 && gk_json_typeof(gk_json_get(r, "e")) == GK_JSON_ARRAY, "empty array");
    GKT_CHECK(gk_json_len(gk_json_get(r, "o")) == 0 && gk_json_typeof(gk_json_get(r, "o")) == GK_JSON_OBJECT, "empty object");
    GKT_CHECK(strcmp(gk_json_get_string(r, "a.t", "def"), "def") == 0, "type mismatch gives default");
    {
        const char *keys[] = {"a", "b", "2", "c"};
        GKT_CHECK(strcmp(gk_json_str(gk_json_pathv(r, keys, 4), ""), "x") == 0, "pathv");
    }
    {
        size_t kl;
        GKT_CHECK(strcmp(gk_json_key_at(r, 1, &kl), "e") == 0 && kl == 1, "key_at");
        GKT_CHECK(gk_json_key_at(r, 3, &kl) == NULL, "key_at out of range");
        GKT_CHECK(gk_json_at(r, 0) == gk_json_get(r, "a"), "at == get");
    }
    GKT_CHECK(gk_json_path(r, "") == r, "empty path");
    gk_json_free(d);
    /* dotted keys via pathv, duplicate keys: first wins */
    d = parse("{\"a.b\": 1, \"k\": 1, \"k\": 2}");
    {
        const char *keys[] = {"a.b"};
        GKT_CHECK(gk_json_int(gk_json_pathv(gk_json_root(d), keys, 1), 0) == 1, "dotted key");
        GKT_CHECK(gk_json_get_int(gk_json_root(d), "k", 0) == 1 && gk_json_len(gk_json_root(d)) == 3, "duplicates kept, first wins");
    }
    gk_json_free(d);
    /* numbers */
    d = parse("[0, -0, 9223372036854775807, -9223372036854775808, 9223372036854775808, -9223372036854775809, 1e2, 1E-2, -1.5e+3, 0.1, 123456789012345678901234567890]");
    r = gk_json_root(d);
    GKT_CHECK(gk_json_typeof(gk_json_at(r, 0)) == GK_JSON_INT && gk_json_int(gk_json_at(r, 0), 1) == 0, "0");
    GKT_CHECK(gk_json_typeof(gk_json_at(r, 1)) == GK_JSON_INT && gk_json_int(gk_json_at(r, 1), 1) == 0, "-0");
    GKT_CHECK(gk_json_int(gk_json_at(r, 2), 0) == INT64_MAX, "int64 max");
    GKT_CHECK(gk_json_int(gk_json_at(r, 3), 0) == INT64_MIN, "int64 min");
    GKT_CHECK(gk_json_typeof(gk_json_at(r, 4)) == GK_JSON_DOUBLE && gk_json_double(gk_json_at(r, 4), 0) == 9223372036854775808.0, "beyond int64 -> double");
    GKT_CHECK(gk_json_typeof(gk_json_at(r, 5)) == GK_JSON_DOUBLE, "below int64 -> double");
    GKT_CHECK(gk_json_typeof(gk_json_at(r, 6)) == GK_JSON_DOUBLE && gk_json_double(gk_json_at(r, 6), 0) == 100.0 &&
              gk_json_int(gk_json_at(r, 6), 0) == 100, "1e2 is a double with an integral value");
    GKT_CHECK(gk_json_double(gk_json_at(r, 7), 0) == 0.01 && gk_json_double(gk_json_at(r, 8), 0) == -1500.0 &&
              gk_json_double(gk_json_at(r, 9), 0) == 0.1, "exponents");
    GKT_CHECK(fabs(gk_json_double(gk_json_at(r, 10), 0) - 1.2345678901234568e29) < 1e14, "long number");
    gk_json_free(d);
    /* strings and escapes */
    d = parse("[\"\\\"\\\\\\/\\b\\f\\n\\r\\t\", \"\\u0041\\u00e9\\u4e2d\", \"\\ud83d\\ude00\", \"a\\u0000b\", \"é中😀\"]");
    r = gk_json_root(d);
    GKT_CHECK(strcmp(gk_json_str(gk_json_at(r, 0), ""), "\"\\/\b\f\n\r\t") == 0, "simple escapes");
    GKT_CHECK(strcmp(gk_json_str(gk_json_at(r, 1), ""), "A\xC3\xA9\xE4\xB8\xAD") == 0, "\\u escapes");
    GKT_CHECK(strcmp(gk_json_str(gk_json_at(r, 2), ""), "\xF0\x9F\x98\x80") == 0, "surrogate pair");
    GKT_CHECK(gk_json_len(gk_json_at(r, 3)) == 3 && memcmp(gk_json_str(gk_json_at(r, 3), ""), "a\0b", 3) == 0, "embedded NUL");
    GKT_CHECK(strcmp(gk_json_str(gk_json_at(r, 4), ""), "é中😀") == 0, "raw UTF-8");
    gk_json_free(d);
    /* scalars at top level, BOM, whitespace */
    d = parse("\xEF\xBB\xBF 42 \n");
    GKT_CHECK(gk_json_int(gk_json_root(d), 0) == 42, "BOM + scalar");
    gk_json_free(d);
    /* errors with line/column */
    bad("", 0, GK_ERR_FORMAT, "line 1, column 1");
    bad("{\"a\": 1,\n  \"b\" 2}", 16, GK_ERR_FORMAT, "line 2, column 7");
    bad("[1, 2", 5, GK_ERR_FORMAT, "end of input");
    bad("[1,]", 4, GK_ERR_FORMAT, "invalid value");
    bad("{\"a\":1,}", 8, GK_ERR_FORMAT, "key");
    bad("{a:1}", 5, GK_ERR_FORMAT, "key");
    bad("[01]", 4, GK_ERR_FORMAT, "leading zero");
    bad("[1.]", 4, GK_ERR_FORMAT, "digit");
    bad("[.5]", 4, GK_ERR_FORMAT, "invalid value");
    bad("[1e]", 4, GK_ERR_FORMAT, "exponent");
    bad("[-]", 3, GK_ERR_FORMAT, "number");
    bad("[+1]", 4, GK_ERR_FORMAT, "invalid value");
    bad("[NaN]", 5, GK_ERR_FORMAT, "invalid value");
    bad("[Infinity]", 10, GK_ERR_FORMAT, NULL);
    bad("[tru]", 5, GK_ERR_FORMAT, "invalid value");
    bad("[nul]", 5, GK_ERR_FORMAT, NULL);
    bad("\"abc", 4, GK_ERR_FORMAT, "unterminated");
    bad("\"a\nb\"", 5, GK_ERR_FORMAT, "control character");
    bad("\"\\x\"", 4, GK_ERR_FORMAT, "invalid escape");
    bad("\"\\u12\"", 6, GK_ERR_FORMAT, "\\u");
    bad("\"\\ud800\"", 8, GK_ERR_FORMAT, "lone high surrogate");
    bad("\"\\ud800\\u0041\"", 14, GK_ERR_FORMAT, "lone high surrogate");
    bad("\"\\udc00\"", 8, GK_ERR_FORMAT, "lone low surrogate");
    bad("\"\xff\"", 3, GK_ERR_FORMAT, "invalid UTF-8");
    bad("\"\xc0\xaf\"", 4, GK_ERR_FORMAT, "invalid UTF-8");         /* overlong */
    bad("\"\xed\xa0\x80\"", 5, GK_ERR_FORMAT, "invalid UTF-8");     /* encoded surrogate */
    bad("\"\xf4\x90\x80\x80\"", 6, GK_ERR_FORMAT, "invalid UTF-8"); /* > U+10FFFF */
    bad("\"\xe4\xb8\"", 4, GK_ERR_FORMAT, "invalid UTF-8");         /* truncated */
    bad("1 2", 3, GK_ERR_FORMAT, "after the JSON value");
    bad("{} x", 4, GK_ERR_FORMAT, "line 1, column 4");
    bad("[1]\0", 4, GK_ERR_FORMAT, "after");
    /* depth and size limits */
    {
        char deep[600];
        gk_json_options o;
        size_t i;
        for (i = 0; i < 300; i++) { deep[i] = '['; deep[300 + i] = ']'; }
        bad(deep, 600, GK_ERR_LIMIT, "depth");
        memset(&o, 0, sizeof o);
        o.max_depth = 300;
        GKT_OK(NULL, gk_json_parse(deep, 600, &o, &d));
        gk_json_free(d);
        o.max_depth = 0;
        o.max_size = 10;
        GKT_FAILS(NULL, gk_json_parse("[1,2,3,4,5,6]", 13, &o, &d), GK_ERR_LIMIT, "input of 13 bytes");
        GKT_CHECK(strstr(gk_last_error(NULL), "size limit") != NULL, "size limit message: %s", gk_last_error(NULL));
        for (i = 0; i < 128; i++) { deep[i] = '['; deep[128 + i] = ']'; }
        GKT_OK(NULL, gk_json_parse(deep, 256, NULL, &d)); /* exactly the default limit */
        gk_json_free(d);
    }
    GKT_FAILS(NULL, gk_json_parse_file("/nonexistent.json", NULL, &d), GK_ERR_IO, "/nonexistent.json");
    GKT_FAILS(NULL, gk_json_parse(NULL, 0, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "out is NULL");
    /* NULL-safe accessors */
    GKT_CHECK(gk_json_len(NULL) == 0 && gk_json_at(NULL, 0) == NULL && gk_json_get(NULL, "a") == NULL &&
              gk_json_int(NULL, 5) == 5 && gk_json_str(NULL, NULL) == NULL, "NULL accessors");
    /* speed: a generated ~12 MB tokenizer-like document */
    {
        gk_buf b = {NULL, 0, 0};
        char tmp[128];
        int i;
        double t0, dt;
        gk_buf_append(&b, "{\"model\":{\"vocab\":{", 19);
        for (i = 0; i < 200000; i++) {
            int n = snprintf(tmp, sizeof tmp, "%s\"tok\\u00e9n_%d_\xe4\xb8\xad\":%d", i ? "," : "", i, i);
            gk_buf_append(&b, tmp, (size_t)n);
        }
        gk_buf_append(&b, "},\"merges\":[", 12);
        for (i = 0; i < 200000; i++) {
            int n = snprintf(tmp, sizeof tmp, "%s[\"a%d\",\"b%d\"]", i ? "," : "", i, i);
            gk_buf_append(&b, tmp, (size_t)n);
        }
        gk_buf_append(&b, "]}}", 3);
        t0 = (double)clock() / CLOCKS_PER_SEC;
        GKT_OK(NULL, gk_json_parse(b.data, b.len, NULL, &d));
        dt = (double)clock() / CLOCKS_PER_SEC - t0;
        printf("parsed %.1f MB in %.3f s (%.0f MB/s)\n", b.len / 1e6, dt, b.len / 1e6 / (dt > 0 ? dt : 1e-9));
        GKT_CHECK(dt < 1.0, "parsing %.1f MB took %.2f s", b.len / 1e6, dt);
        GKT_CHECK(gk_json_get_int(gk_json_root(d), "model.vocab", -1) == -1, "vocab is an object");
        GKT_CHECK(gk_json_int(gk_json_at(gk_json_get_string(gk_json_root(d), "x", NULL) ? NULL : gk_json_path(gk_json_root(d), "model.vocab"), 199999), -1) == 199999, "last vocab entry");
        GKT_CHECK(strcmp(gk_json_get_string(gk_json_root(d), "model.merges.199999.1", ""), "b199999") == 0, "last merge");
        gk_json_free(d);
        gk_buf_free(&b);
    }
    return gkt_done("test_json");
}
