/* ======================================================================== */
/* >>impl_json                                                              */
/* ======================================================================== */

struct gk_json_value {
    int type;
    size_t n;                 /* string bytes / element count */
    const char *key;          /* member key when inside an object */
    size_t keylen;
    union { int64_t i; double d; int b; const char *s; struct gk_json_value *kids; } u;
};

typedef struct gk__json_block { struct gk__json_block *next; size_t used, cap; } gk__json_block;

struct gk_json {
    gk__json_block *blocks;
    gk_json_value root;
};

typedef struct gk__json_parser {
    const unsigned char *start, *p, *end;
    gk_json *doc;
    gk_json_value *stack;     /* children of the containers being parsed */
    size_t sp, scap;
    size_t depth, max_depth;
    gk_status st;
} gk__json_parser;

static void *gk__json_alloc(gk_json *doc, size_t n) {
    gk__json_block *b = doc->blocks;
    size_t a = (n + 15) & ~(size_t)15;
    const size_t hdr = (sizeof(gk__json_block) + 15) & ~(size_t)15;
    if (a < n) return NULL;
    if (!b || b->cap - b->used < a) {
        size_t cap = a > (size_t)1 << 20 ? a : (size_t)1 << 20;
        if (cap > ((size_t)-1) - hdr) return NULL;
        b = (gk__json_block *)gk__u_malloc(hdr + cap);
        if (!b) return NULL;
        b->cap = cap;
        b->used = 0;
        if (doc->blocks && a > ((size_t)1 << 20)) {
            /* big one-off: keep the current block as head for small allocations */
            b->next = doc->blocks->next;
            doc->blocks->next = b;
            b->used = a;
            return (char *)b + hdr;
        }
        b->next = doc->blocks;
        doc->blocks = b;
    }
    b->used += a;
    return (char *)b + hdr + b->used - a;
}

static gk_status gk__json_fail(gk__json_parser *ps, const unsigned char *at, gk_status st, const char *what) {
    size_t line = 1, col = 1;
    const unsigned char *q;
    if (ps->st != GK_OK) return ps->st;
    if (at > ps->end) at = ps->end;
    for (q = ps->start; q < at; q++) {
        if (*q == '\n') { line++; col = 1; }
        else if ((*q & 0xC0) != 0x80) col++;
    }
    ps->st = gk_error_set(NULL, st, "JSON: %s at line %llu, column %llu (byte %llu)", what, (unsigned long long)(line), (unsigned long long)(col),
                          (unsigned long long)((size_t)(at - ps->start)));
    return ps->st;
}

static void gk__json_ws(gk__json_parser *ps) {
    const unsigned char *p = ps->p, *e = ps->end;
    while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    ps->p = p;
}

static int gk__json_hex4(const unsigned char *p, uint32_t *v) {
    int i;
    uint32_t r = 0;
    for (i = 0; i < 4; i++) {
        unsigned c = p[i];
        r <<= 4;
        if (c >= '0' && c <= '9') r |= c - '0';
        else if (c >= 'a' && c <= 'f') r |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') r |= c - 'A' + 10;
        else return 0;
    }
    *v = r;
    return 1;
}

/* Parses a string at ps->p (which is at the opening quote). */
static gk_status gk__json_string(gk__json_parser *ps, const char **out, size_t *outlen) {
    const unsigned char *p = ps->p + 1, *e = ps->end, *s0 = p;
    char *dst, *o;
    int has_esc = 0;
    /* pass 1: find the end, validate */
    for (;;) {
        unsigned c;
        if (p >= e) return gk__json_fail(ps, p, GK_ERR_FORMAT, "unterminated string");
        c = *p;
        if (c == '"') break;
        if (c == '\\') {
            has_esc = 1;
            if (p + 1 >= e) return gk__json_fail(ps, p, GK_ERR_FORMAT, "unterminated string");
            c = p[1];
            if (c == 'u') {
                uint32_t v, v2;
                if (e - p < 6 || !gk__json_hex4(p + 2, &v))
                    return gk__json_fail(ps, p, GK_ERR_FORMAT, "bad \\u escape");
                if (v >= 0xD800 && v <= 0xDBFF) {
                    if (e - p < 12 || p[6] != '\\' || p[7] != 'u' || !gk__json_hex4(p + 8, &v2) || v2 < 0xDC00 ||
                        v2 > 0xDFFF)
                        return gk__json_fail(ps, p, GK_ERR_FORMAT, "lone high surrogate in \\u escape");
                    p += 12;
                } else if (v >= 0xDC00 && v <= 0xDFFF) {
                    return gk__json_fail(ps, p, GK_ERR_FORMAT, "lone low surrogate in \\u escape");
                } else p += 6;
                continue;
            }
            if (c != '"' && c != '\\' && c != '/' && c != 'b' && c != 'f' && c != 'n' && c != 'r' && c != 't')
                return gk__json_fail(ps, p, GK_ERR_FORMAT, "invalid escape in string");
            p += 2;
            continue;
        }
        if (c < 0x20) return gk__json_fail(ps, p, GK_ERR_FORMAT, "control character in string");
        if (c < 0x80) { p++; continue; }
        {
            uint32_t cp;
            int k = gk__u_utf8_dec(p, (size_t)(e - p), &cp);
            if (k <= 0) return gk__json_fail(ps, p, GK_ERR_FORMAT, "invalid UTF-8 in string");
            p += k;
        }
    }
    /* p at the closing quote */
    dst = (char *)gk__json_alloc(ps->doc, (size_t)(p - s0) + 1);
    if (!dst) return gk__json_fail(ps, p, GK_ERR_OUT_OF_MEMORY, "out of memory");
    if (!has_esc) {
        memcpy(dst, s0, (size_t)(p - s0));
        o = dst + (p - s0);
    } else {
        const unsigned char *q = s0;
        o = dst;
        while (q < p) {
            if (*q != '\\') { *o++ = (char)*q++; continue; }
            switch (q[1]) {
            case '"': *o++ = '"'; q += 2; break;
            case '\\': *o++ = '\\'; q += 2; break;
            case '/': *o++ = '/'; q += 2; break;
            case 'b': *o++ = '\b'; q += 2; break;
            case 'f': *o++ = '\f'; q += 2; break;
            case 'n': *o++ = '\n'; q += 2; break;
            case 'r': *o++ = '\r'; q += 2; break;
            case 't': *o++ = '\t'; q += 2; break;
            default: { /* 'u', validated above */
                uint32_t v = 0, v2 = 0;
                gk__json_hex4(q + 2, &v);
                q += 6;
                if (v >= 0xD800 && v <= 0xDBFF) {
                    gk__json_hex4(q + 2, &v2);
                    q += 6;
                    v = 0x10000 + ((v - 0xD800) << 10) + (v2 - 0xDC00);
                }
                o += gk__u_utf8_enc(v, o);
            }
            }
        }
    }
    *o = 0;
    *out = dst;
    *outlen = (size_t)(o - dst);
    ps->p = p + 1;
    return GK_OK;
}

static gk_status gk__json_number(gk__json_parser *ps, gk_json_value *v) {
    const unsigned char *p = ps->p, *e = ps->end, *s0 = p;
    int neg = 0, isint = 1;
    uint64_t acc = 0;
    int ovf = 0;
    if (p < e && *p == '-') { neg = 1; p++; }
    if (p >= e || *p < '0' || *p > '9') return gk__json_fail(ps, p, GK_ERR_FORMAT, "invalid number");
    if (*p == '0') {
        p++;
        if (p < e && *p >= '0' && *p <= '9') return gk__json_fail(ps, p, GK_ERR_FORMAT, "leading zero in number");
    } else {
        while (p < e && *p >= '0' && *p <= '9') {
            unsigned d = *p - '0';
            if (acc > (UINT64_MAX - d) / 10) ovf = 1;
            else acc = acc * 10 + d;
            p++;
        }
    }
    if (p < e && *p == '.') {
        isint = 0;
        p++;
        if (p >= e || *p < '0' || *p > '9') return gk__json_fail(ps, p, GK_ERR_FORMAT, "digit expected after '.'");
        while (p < e && *p >= '0' && *p <= '9') p++;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        isint = 0;
        p++;
        if (p < e && (*p == '+' || *p == '-')) p++;
        if (p >= e || *p < '0' || *p > '9') return gk__json_fail(ps, p, GK_ERR_FORMAT, "digit expected in exponent");
        while (p < e && *p >= '0' && *p <= '9') p++;
    }
    if (isint && !ovf && (neg ? acc <= (uint64_t)INT64_MAX + 1 : acc <= (uint64_t)INT64_MAX)) {
        v->type = GK_JSON_INT;
        v->u.i = neg ? (acc == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)acc) : (int64_t)acc;
    } else {
        char tmp[128], *buf = tmp;
        size_t n = (size_t)(p - s0);
        if (n >= sizeof tmp) {
            buf = (char *)gk__u_malloc(n + 1);
            if (!buf) return gk__json_fail(ps, s0, GK_ERR_OUT_OF_MEMORY, "out of memory");
        }
        memcpy(buf, s0, n);
        buf[n] = 0;
        v->type = GK_JSON_DOUBLE;
        v->u.d = strtod(buf, NULL);
        if (buf != tmp) gk__u_free(buf);
    }
    ps->p = p;
    return GK_OK;
}

static gk_status gk__json_push(gk__json_parser *ps, const gk_json_value *v) {
    if (ps->sp == ps->scap && !gk__u_grow((void **)&ps->stack, &ps->scap, ps->sp + 1, sizeof(gk_json_value)))
        return gk__json_fail(ps, ps->p, GK_ERR_OUT_OF_MEMORY, "out of memory");
    ps->stack[ps->sp++] = *v;
    return GK_OK;
}

static gk_status gk__json_value(gk__json_parser *ps, gk_json_value *v);

static gk_status gk__json_container(gk__json_parser *ps, gk_json_value *v, int is_obj) {
    size_t base = ps->sp, n;
    const unsigned char *open = ps->p;
    char close = is_obj ? '}' : ']';
    if (++ps->depth > ps->max_depth)
        return gk__json_fail(ps, ps->p, GK_ERR_LIMIT, "nesting deeper than the depth limit");
    ps->p++;
    gk__json_ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
    } else {
        for (;;) {
            gk_json_value kid;
            const char *key = NULL;
            size_t keylen = 0;
            memset(&kid, 0, sizeof kid);
            if (is_obj) {
                if (ps->p >= ps->end || *ps->p != '"')
                    return gk__json_fail(ps, ps->p, GK_ERR_FORMAT, ps->p >= ps->end ? "unexpected end of input in object" : "object key (string) expected");
                if (gk__json_string(ps, &key, &keylen) != GK_OK) return ps->st;
                gk__json_ws(ps);
                if (ps->p >= ps->end || *ps->p != ':') return gk__json_fail(ps, ps->p, GK_ERR_FORMAT, "':' expected");
                ps->p++;
                gk__json_ws(ps);
            }
            if (gk__json_value(ps, &kid) != GK_OK) return ps->st;
            kid.key = key;
            kid.keylen = keylen;
            if (gk__json_push(ps, &kid) != GK_OK) return ps->st;
            gk__json_ws(ps);
            if (ps->p >= ps->end)
                return gk__json_fail(ps, ps->p, GK_ERR_FORMAT, is_obj ? "unexpected end of input in object" : "unexpected end of input in array");
            if (*ps->p == ',') {
                ps->p++;
                gk__json_ws(ps);
                continue;
            }
            if (*ps->p == close) { ps->p++; break; }
            return gk__json_fail(ps, ps->p, GK_ERR_FORMAT, is_obj ? "',' or '}' expected" : "',' or ']' expected");
        }
    }
    (void)open;
    n = ps->sp - base;
    v->type = is_obj ? GK_JSON_OBJECT : GK_JSON_ARRAY;
    v->n = n;
    v->u.kids = NULL;
    if (n) {
        v->u.kids = (gk_json_value *)gk__json_alloc(ps->doc, n * sizeof(gk_json_value));
        if (!v->u.kids) return gk__json_fail(ps, ps->p, GK_ERR_OUT_OF_MEMORY, "out of memory");
        memcpy(v->u.kids, ps->stack + base, n * sizeof(gk_json_value));
    }
    ps->sp = base;
    ps->depth--;
    return GK_OK;
}

static int gk__json_lit(gk__json_parser *ps, const char *lit, size_t n) {
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, lit, n) != 0) return 0;
    ps->p += n;
    return 1;
}

static gk_status gk__json_value(gk__json_parser *ps, gk_json_value *v) {
    unsigned c;
    if (ps->p >= ps->end) return gk__json_fail(ps, ps->p, GK_ERR_FORMAT, "unexpected end of input, value expected");
    c = *ps->p;
    switch (c) {
    case '{': return gk__json_container(ps, v, 1);
    case '[': return gk__json_container(ps, v, 0);
    case '"': {
        const char *s;
        size_t n;
        if (gk__json_string(ps, &s, &n) != GK_OK) return ps->st;
        v->type = GK_JSON_STRING;
        v->u.s = s;
        v->n = n;
        return GK_OK;
    }
    case 't':
        if (gk__json_lit(ps, "true", 4)) { v->type = GK_JSON_BOOL; v->u.b = 1; return GK_OK; }
        break;
    case 'f':
        if (gk__json_lit(ps, "false", 5)) { v->type = GK_JSON_BOOL; v->u.b = 0; return GK_OK; }
        break;
    case 'n':
        if (gk__json_lit(ps, "null", 4)) { v->type = GK_JSON_NULL; return GK_OK; }
        break;
    default:
        if (c == '-' || (c >= '0' && c <= '9')) return gk__json_number(ps, v);
    }
    return gk__json_fail(ps, ps->p, GK_ERR_FORMAT, "invalid value");
}

GKLLMDEF void gk_json_free(gk_json *doc) {
    gk__json_block *b, *n;
    if (!doc) return;
    for (b = doc->blocks; b; b = n) {
        n = b->next;
        gk__u_free(b);
    }
    gk__u_free(doc);
}

GKLLMDEF gk_status gk_json_parse(const char *text, size_t len, const gk_json_options *opt, gk_json **out) {
    gk__json_parser ps;
    gk_json *doc;
    size_t max_size = (opt && opt->max_size) ? opt->max_size : ((size_t)1 << 30);
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_json_parse: out is NULL");
    *out = NULL;
    if (!text && len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_json_parse: text is NULL but len is %llu", (unsigned long long)len);
    if (len > max_size) return GK__U_ERR(GK_ERR_LIMIT, "JSON: input of %llu bytes exceeds the size limit of %llu bytes", (unsigned long long)(len), (unsigned long long)(max_size));
    doc = (gk_json *)gk__u_calloc(1, sizeof(gk_json));
    if (!doc) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    memset(&ps, 0, sizeof ps);
    ps.start = (const unsigned char *)(text ? text : "");
    ps.p = ps.start;
    ps.end = ps.start + len;
    ps.doc = doc;
    ps.max_depth = (opt && opt->max_depth) ? opt->max_depth : 128;
    ps.st = GK_OK;
    if (len >= 3 && ps.p[0] == 0xEF && ps.p[1] == 0xBB && ps.p[2] == 0xBF) ps.p += 3;
    gk__json_ws(&ps);
    if (gk__json_value(&ps, &doc->root) == GK_OK) {
        gk__json_ws(&ps);
        if (ps.p != ps.end) gk__json_fail(&ps, ps.p, GK_ERR_FORMAT, "unexpected data after the JSON value");
    }
    gk__u_free(ps.stack);
    if (ps.st != GK_OK) {
        gk_json_free(doc);
        return ps.st;
    }
    *out = doc;
    return GK_OK;
}

GKLLMDEF gk_status gk_json_parse_file(const char *path, const gk_json_options *opt, gk_json **out) {
    char *data;
    size_t size;
    gk_status st;
    size_t max_size = (opt && opt->max_size) ? opt->max_size : ((size_t)1 << 30);
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_json_parse_file: out is NULL");
    *out = NULL;
    if (!path) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_json_parse_file: path is NULL");
    st = gk_read_file(path, max_size, &data, &size);
    if (st != GK_OK) return st;
    st = gk_json_parse(data, size, opt, out);
    if (st != GK_OK) {
        char msg[900];
        gk__u_errcopy(msg, sizeof msg);
        gk_error_set(NULL, st, "%s: %s", path, msg);
    }
    gk__u_free(data);
    return st;
}

GKLLMDEF const gk_json_value *gk_json_root(const gk_json *doc) { return doc ? &doc->root : NULL; }
GKLLMDEF gk_json_type gk_json_typeof(const gk_json_value *v) { return v ? (gk_json_type)v->type : GK_JSON_NULL; }
GKLLMDEF int gk_json_is_null(const gk_json_value *v) { return !v || v->type == GK_JSON_NULL; }
GKLLMDEF size_t gk_json_len(const gk_json_value *v) {
    if (!v) return 0;
    return (v->type == GK_JSON_ARRAY || v->type == GK_JSON_OBJECT || v->type == GK_JSON_STRING) ? v->n : 0;
}
GKLLMDEF const gk_json_value *gk_json_at(const gk_json_value *v, size_t i) {
    if (!v || (v->type != GK_JSON_ARRAY && v->type != GK_JSON_OBJECT) || i >= v->n) return NULL;
    return &v->u.kids[i];
}
GKLLMDEF const char *gk_json_key_at(const gk_json_value *obj, size_t i, size_t *len) {
    if (!obj || obj->type != GK_JSON_OBJECT || i >= obj->n) {
        if (len) *len = 0;
        return NULL;
    }
    if (len) *len = obj->u.kids[i].keylen;
    return obj->u.kids[i].key;
}
GKLLMDEF const gk_json_value *gk_json_getn(const gk_json_value *obj, const char *key, size_t keylen) {
    size_t i;
    if (!obj || obj->type != GK_JSON_OBJECT || !key) return NULL;
    for (i = 0; i < obj->n; i++) {
        const gk_json_value *k = &obj->u.kids[i];
        if (k->keylen == keylen && memcmp(k->key, key, keylen) == 0) return k;
    }
    return NULL;
}
GKLLMDEF const gk_json_value *gk_json_get(const gk_json_value *obj, const char *key) {
    return key ? gk_json_getn(obj, key, strlen(key)) : NULL;
}
static const gk_json_value *gk__json_step(const gk_json_value *v, const char *seg, size_t n) {
    if (!v) return NULL;
    if (v->type == GK_JSON_ARRAY) {
        size_t i, idx = 0;
        if (n == 0 || n > 19) return NULL;
        for (i = 0; i < n; i++) {
            if (seg[i] < '0' || seg[i] > '9') return NULL;
            idx = idx * 10 + (size_t)(seg[i] - '0');
        }
        return gk_json_at(v, idx);
    }
    return gk_json_getn(v, seg, n);
}
GKLLMDEF const gk_json_value *gk_json_path(const gk_json_value *v, const char *path) {
    const char *s;
    if (!v || !path) return NULL;
    if (!*path) return v;
    s = path;
    for (;;) {
        const char *dot = strchr(s, '.');
        size_t n = dot ? (size_t)(dot - s) : strlen(s);
        v = gk__json_step(v, s, n);
        if (!v || !dot) return v;
        s = dot + 1;
    }
}
GKLLMDEF const gk_json_value *gk_json_pathv(const gk_json_value *v, const char *const *keys, size_t n) {
    size_t i;
    if (!v || (n && !keys)) return NULL;
    for (i = 0; i < n && v; i++) v = keys[i] ? gk__json_step(v, keys[i], strlen(keys[i])) : NULL;
    return v;
}
GKLLMDEF int64_t gk_json_int(const gk_json_value *v, int64_t def) {
    if (!v) return def;
    if (v->type == GK_JSON_INT) return v->u.i;
    if (v->type == GK_JSON_DOUBLE && v->u.d == floor(v->u.d) && v->u.d >= -9223372036854775808.0 &&
        v->u.d < 9223372036854775808.0)
        return (int64_t)v->u.d;
    return def;
}
GKLLMDEF double gk_json_double(const gk_json_value *v, double def) {
    if (!v) return def;
    if (v->type == GK_JSON_DOUBLE) return v->u.d;
    if (v->type == GK_JSON_INT) return (double)v->u.i;
    return def;
}
GKLLMDEF int gk_json_bool(const gk_json_value *v, int def) {
    return (v && v->type == GK_JSON_BOOL) ? v->u.b : def;
}
GKLLMDEF const char *gk_json_str(const gk_json_value *v, const char *def) {
    return (v && v->type == GK_JSON_STRING) ? v->u.s : def;
}
GKLLMDEF int64_t gk_json_get_int(const gk_json_value *v, const char *path, int64_t def) {
    return gk_json_int(gk_json_path(v, path), def);
}
GKLLMDEF double gk_json_get_double(const gk_json_value *v, const char *path, double def) {
    return gk_json_double(gk_json_path(v, path), def);
}
GKLLMDEF int gk_json_get_bool(const gk_json_value *v, const char *path, int def) {
    return gk_json_bool(gk_json_path(v, path), def);
}
GKLLMDEF const char *gk_json_get_string(const gk_json_value *v, const char *path, const char *def) {
    return gk_json_str(gk_json_path(v, path), def);
}


/* A JSON value as messages quote it: 12, -1, 1e-06, true, null, "text" (first
   40 bytes), a list of 3, an object; "missing" for NULL. */
static const char *gk__json_show(const gk_json_value *v, char *buf, size_t cap) {
    if (!v) snprintf(buf, cap, "missing");
    else switch (v->type) {
    case GK_JSON_NULL: snprintf(buf, cap, "null"); break;
    case GK_JSON_BOOL: snprintf(buf, cap, "%s", v->u.b ? "true" : "false"); break;
    case GK_JSON_INT: snprintf(buf, cap, "%lld", (long long)v->u.i); break;
    case GK_JSON_DOUBLE: snprintf(buf, cap, "%.15g", v->u.d); break;
    case GK_JSON_STRING: snprintf(buf, cap, "\"%.40s%s\"", v->u.s, v->n > 40 ? "..." : ""); break;
    case GK_JSON_ARRAY: snprintf(buf, cap, "a list of %llu", (unsigned long long)v->n); break;
    default: snprintf(buf, cap, "an object"); break;
    }
    return buf;
}

/* The first key that an object holds twice (NULL: none, or not an object).
   Readers that follow Python's json (the last wins) and this one (the first
   wins) would disagree, so the files whose members are read call it. O(n^2):
   for the small objects of config files. */
static const char *gk__json_dup_key(const gk_json_value *obj) {
    size_t i, j, n = gk_json_typeof(obj) == GK_JSON_OBJECT ? obj->n : 0;
    for (i = 1; i < n; i++)
        for (j = 0; j < i; j++)
            if (obj->u.kids[i].keylen == obj->u.kids[j].keylen && memcmp(obj->u.kids[i].key, obj->u.kids[j].key, obj->u.kids[i].keylen) == 0)
                return obj->u.kids[i].key;
    return NULL;
}
