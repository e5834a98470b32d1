/* ======================================================================== */
/* >>impl_tokenizer                                                         */
/* ======================================================================== */

enum { GK__TOK_NORM_NFC = 1, GK__TOK_NORM_PREPEND, GK__TOK_NORM_REPLACE };
enum { GK__TOK_SCAN_GPT2 = 1, GK__TOK_SCAN_QWEN, GK__TOK_SCAN_LLAMA3, GK__TOK_SCAN_META };
enum { GK__TOK_DOP_BYTELEVEL = 1, GK__TOK_DOP_REPLACE, GK__TOK_DOP_BYTEFALLBACK, GK__TOK_DOP_FUSE, GK__TOK_DOP_STRIP, GK__TOK_DOP_METASPACE };

typedef struct gk__tok_op {   /* normalizer or decoder step */
    int kind;
    char *a, *b;              /* pattern / content (NUL-terminated, owned) */
    size_t alen, blen;
    size_t start, stop;       /* Strip */
    int prepend;              /* Metaspace decoder: strip first space */
} gk__tok_op;

typedef struct gk__tok_added {
    int32_t id;
    char *content;
    size_t len;
    unsigned char special, lstrip, rstrip, single_word, normalized;
} gk__tok_added;

struct gk_tokenizer {
    size_t nid;                /* largest id + 1 */
    size_t *tok_off;           /* per id: offset into pool, or SIZE_MAX */
    uint32_t *tok_len;
    gk_buf pool;               /* token texts */
    gk_buf rawpool;            /* byte-level: raw bytes of each token */
    gk__u_smap vocab;            /* model vocab text -> id (pointers into pool) */
    gk__u_smap raw;              /* byte-level: raw bytes -> id */
    gk__u_umap merges;           /* (left<<32|right) -> (rank<<32|new) */
    int32_t byte_tok[256];     /* byte-level: token of byte b; else <0xXX> token */
    int bytelevel;
    int byte_fallback, fuse_unk, ignore_merges;
    int32_t unk_id;
    gk__tok_op norm[16];
    size_t nnorm;
    int prefix_space;          /* ByteLevel add_prefix_space */
    int meta;                  /* Metaspace pre-tokenizer present */
    char meta_repl[8];
    size_t meta_repl_len;
    int meta_prepend;          /* 0 never, 1 always, 2 first */
    int scan[8];
    size_t nscan;
    gk__tok_added *added;
    size_t nadded;
    int has_normalized_added;
    uint32_t *added_by_byte;   /* indices into added, grouped by first byte, longest first */
    uint32_t added_start[257];
    unsigned char *special;    /* per id */
    int32_t pre[8], post[8];
    size_t npre, npost;
    gk__tok_op dec[16];
    size_t ndec;
    int has_decoder;
};

/* ---- byte-level map (GPT-2 bytes_to_unicode) ---- */
static uint32_t gk__tok_bl_cp(unsigned b) {
    b &= 0xFF;
    if (b <= 0x20) return 256 + b;                    /* 33 control/space bytes */
    if (b >= 0x7F && b <= 0xA0) return 256 + 33 + (b - 0x7F); /* 34 bytes */
    if (b == 0xAD) return 256 + 67;
    return b;
}
static int gk__tok_bl_byte(uint32_t cp) {
    if ((cp >= 0x21 && cp <= 0x7E) || (cp >= 0xA1 && cp <= 0xAC) || (cp >= 0xAE && cp <= 0xFF)) return (int)cp;
    if (cp >= 256 && cp < 256 + 33) return (int)(cp - 256);
    if (cp >= 256 + 33 && cp < 256 + 67) return (int)(0x7F + cp - 256 - 33);
    if (cp == 256 + 67) return 0xAD;
    return -1;
}

static int gk__tok_hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
/* "<0xXX>" -> byte value, else -1 */
static int gk__tok_fallback_byte(const char *s, size_t n) {
    int h, l;
    if (n != 6 || s[0] != '<' || s[1] != '0' || s[2] != 'x' || s[5] != '>') return -1;
    h = gk__tok_hexval((unsigned char)s[3]);
    l = gk__tok_hexval((unsigned char)s[4]);
    return (h < 0 || l < 0) ? -1 : h * 16 + l;
}

static void gk__tok_ops_free(gk__tok_op *ops, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        gk__u_free(ops[i].a);
        gk__u_free(ops[i].b);
    }
}

GKLLMDEF void gk_tokenizer_free(gk_tokenizer *t) {
    size_t i;
    if (!t) return;
    gk__u_free(t->tok_off);
    gk__u_free(t->tok_len);
    gk_buf_free(&t->pool);
    gk_buf_free(&t->rawpool);
    gk__u_smap_free(&t->vocab);
    gk__u_smap_free(&t->raw);
    gk__u_umap_free(&t->merges);
    gk__tok_ops_free(t->norm, t->nnorm);
    gk__tok_ops_free(t->dec, t->ndec);
    for (i = 0; i < t->nadded; i++) gk__u_free(t->added[i].content);
    gk__u_free(t->added);
    gk__u_free(t->added_by_byte);
    gk__u_free(t->special);
    gk__u_free(t);
}

/* ---- loading ---- */
#define GK__TOK_MAX_ID 16777216  /* ids above this are refused (memory safety on hostile files) */

/* a true / false field of obj (what: where it is, for the message): missing or null gives def */
static gk_status gk__tok_bool(const gk_json_value *obj, const char *key, int def, const char *what, int *out) {
    const gk_json_value *v = gk_json_get(obj, key);
    char vb[64];
    if (gk_json_is_null(v)) { *out = def; return GK_OK; }
    if (gk_json_typeof(v) != GK_JSON_BOOL)
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: %s%s = %s is not true or false", what, key, gk__json_show(v, vb, sizeof vb));
    *out = gk_json_bool(v, def);
    return GK_OK;
}
/* the list of a Sequence component (normalizers, pretokenizers, processors, decoders) */
static gk_status gk__tok_seq_list(const gk_json_value *n, const char *key, const char *what, const gk_json_value **list) {
    char vb[64];
    *list = gk_json_get(n, key);
    if (gk_json_typeof(*list) != GK_JSON_ARRAY)
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: %s Sequence: %s = %s is not a list", what, key, gk__json_show(*list, vb, sizeof vb));
    return GK_OK;
}
/* Metaspace prepend_scheme: 1 always, 2 first, 0 never; missing: add_prefix_space (true: always) */
static gk_status gk__tok_prepend_scheme(const gk_json_value *p, const char *what, int *out) {
    const gk_json_value *v = gk_json_get(p, "prepend_scheme");
    const char *scheme = gk_json_str(v, NULL);
    char vb[64];
    int aps;
    gk_status s;
    if (gk_json_is_null(v)) {
        if ((s = gk__tok_bool(p, "add_prefix_space", 1, what, &aps)) != GK_OK) return s;
        *out = aps ? 1 : 0;
        return GK_OK;
    }
    if (scheme && strcmp(scheme, "always") == 0) *out = 1;
    else if (scheme && strcmp(scheme, "first") == 0) *out = 2;
    else if (scheme && strcmp(scheme, "never") == 0) *out = 0;
    else return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: %sprepend_scheme = %s is not \"always\", \"first\" or \"never\"", what, gk__json_show(v, vb, sizeof vb));
    return GK_OK;
}

static gk_status gk__tok_set_op(gk__tok_op *op, int kind, const gk_json_value *a, const gk_json_value *b) {
    memset(op, 0, sizeof *op);
    op->kind = kind;
    if (a) {
        op->a = gk__u_strndup(gk_json_str(a, ""), gk_json_len(a));
        op->alen = gk_json_len(a);
        if (!op->a) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (b) {
        op->b = gk__u_strndup(gk_json_str(b, ""), gk_json_len(b));
        op->blen = gk_json_len(b);
        if (!op->b) { /* nothing owned on failure: a decoder op that fails is not counted in ndec */
            gk__u_free(op->a);
            op->a = NULL;
            return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
        }
    }
    return GK_OK;
}

/* Replace with {"pattern": {"String": s}, "content": c} */
static gk_status gk__tok_replace_op(gk__tok_op *op, const gk_json_value *v, const char *where) {
    const gk_json_value *pat = gk_json_get(gk_json_get(v, "pattern"), "String");
    const gk_json_value *content = gk_json_get(v, "content");
    if (gk_json_typeof(pat) != GK_JSON_STRING || gk_json_typeof(content) != GK_JSON_STRING) {
        if (gk_json_get(gk_json_get(v, "pattern"), "Regex"))
            return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: %s Replace with a Regex pattern is not supported", where);
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: %s Replace needs pattern.String and content", where);
    }
    if (gk_json_len(pat) == 0) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: %s Replace with an empty pattern", where);
    return gk__tok_set_op(op, GK__TOK_NORM_REPLACE, pat, content);
}

static gk_status gk__tok_parse_norm(gk_tokenizer *t, const gk_json_value *n, int depth) {
    const char *type = gk_json_get_string(n, "type", NULL);
    gk_status s;
    if (gk_json_is_null(n)) return GK_OK;
    if (!type) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: normalizer without a type");
    if (depth > 4) return GK__U_ERR(GK_ERR_LIMIT, "tokenizer.json: normalizers nested too deeply");
    if (strcmp(type, "Sequence") == 0) {
        const gk_json_value *list;
        size_t i;
        if ((s = gk__tok_seq_list(n, "normalizers", "normalizer", &list)) != GK_OK) return s;
        for (i = 0; i < gk_json_len(list); i++)
            if ((s = gk__tok_parse_norm(t, gk_json_at(list, i), depth + 1)) != GK_OK) return s;
        return GK_OK;
    }
    if (t->nnorm >= sizeof t->norm / sizeof t->norm[0]) return GK__U_ERR(GK_ERR_LIMIT, "tokenizer.json: too many normalizers");
    if (strcmp(type, "NFC") == 0) {
        memset(&t->norm[t->nnorm], 0, sizeof(gk__tok_op));
        t->norm[t->nnorm++].kind = GK__TOK_NORM_NFC;
        return GK_OK;
    }
    if (strcmp(type, "Prepend") == 0) {
        const gk_json_value *p = gk_json_get(n, "prepend");
        if (gk_json_typeof(p) != GK_JSON_STRING) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: Prepend normalizer without a prepend string");
        s = gk__tok_set_op(&t->norm[t->nnorm++], GK__TOK_NORM_PREPEND, p, NULL);
        return s;
    }
    if (strcmp(type, "Replace") == 0) {
        s = gk__tok_replace_op(&t->norm[t->nnorm], n, "normalizer");
        t->nnorm++;
        return s;
    }
    return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: normalizer type '%.40s' is not supported", type);
}

static const char *gk__tok_pat_qwen =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
static const char *gk__tok_pat_llama3 =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
static const char *gk__tok_pat_gpt2 = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

static gk_status gk__tok_add_scan(gk_tokenizer *t, int kind) {
    if (t->nscan >= sizeof t->scan / sizeof t->scan[0]) return GK__U_ERR(GK_ERR_LIMIT, "tokenizer.json: too many pre-tokenizers");
    t->scan[t->nscan++] = kind;
    return GK_OK;
}

static gk_status gk__tok_parse_pre(gk_tokenizer *t, const gk_json_value *p, int depth) {
    const char *type = gk_json_get_string(p, "type", NULL);
    gk_status s;
    if (gk_json_is_null(p)) return GK_OK;
    if (!type) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: pre_tokenizer without a type");
    if (depth > 4) return GK__U_ERR(GK_ERR_LIMIT, "tokenizer.json: pre_tokenizers nested too deeply");
    if (strcmp(type, "Sequence") == 0) {
        const gk_json_value *list;
        size_t i;
        if ((s = gk__tok_seq_list(p, "pretokenizers", "pre_tokenizer", &list)) != GK_OK) return s;
        for (i = 0; i < gk_json_len(list); i++)
            if ((s = gk__tok_parse_pre(t, gk_json_at(list, i), depth + 1)) != GK_OK) return s;
        return GK_OK;
    }
    if (strcmp(type, "ByteLevel") == 0) {
        int use_regex;
        t->bytelevel = 1;
        if ((s = gk__tok_bool(p, "add_prefix_space", 0, "ByteLevel pre_tokenizer: ", &t->prefix_space)) != GK_OK) return s;
        if ((s = gk__tok_bool(p, "use_regex", 1, "ByteLevel pre_tokenizer: ", &use_regex)) != GK_OK) return s;
        if (use_regex) return gk__tok_add_scan(t, GK__TOK_SCAN_GPT2);
        return GK_OK;
    }
    if (strcmp(type, "Split") == 0) {
        const char *re = gk_json_get_string(p, "pattern.Regex", NULL);
        const char *beh = gk_json_get_string(p, "behavior", "");
        int invert;
        if ((s = gk__tok_bool(p, "invert", 0, "Split pre_tokenizer: ", &invert)) != GK_OK) return s;
        if (invert || strcmp(beh, "Isolated") != 0)
            return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: Split pre-tokenizer with behavior '%.30s'%s is not supported", beh,
                           invert ? " and invert" : "");
        if (!re) return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: Split pre-tokenizer without a Regex pattern is not supported");
        if (strcmp(re, gk__tok_pat_qwen) == 0) return gk__tok_add_scan(t, GK__TOK_SCAN_QWEN);
        if (strcmp(re, gk__tok_pat_llama3) == 0) return gk__tok_add_scan(t, GK__TOK_SCAN_LLAMA3);
        if (strcmp(re, gk__tok_pat_gpt2) == 0) return gk__tok_add_scan(t, GK__TOK_SCAN_GPT2);
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: Split regex is not one of the known patterns (GPT-2, Qwen2, Llama-3): \"%.80s\"", re);
    }
    if (strcmp(type, "Metaspace") == 0) {
        const gk_json_value *r = gk_json_get(p, "replacement");
        uint32_t cp;
        int split;
        if (gk_json_typeof(r) != GK_JSON_STRING || gk_json_len(r) == 0 || gk_json_len(r) >= sizeof t->meta_repl ||
            gk__u_utf8_dec((const unsigned char *)gk_json_str(r, ""), gk_json_len(r), &cp) != (int)gk_json_len(r))
            return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: Metaspace pre-tokenizer needs a one-character replacement");
        memcpy(t->meta_repl, gk_json_str(r, ""), gk_json_len(r));
        t->meta_repl_len = gk_json_len(r);
        t->meta = 1;
        if ((s = gk__tok_prepend_scheme(p, "Metaspace pre_tokenizer: ", &t->meta_prepend)) != GK_OK) return s;
        if ((s = gk__tok_bool(p, "split", 1, "Metaspace pre_tokenizer: ", &split)) != GK_OK) return s;
        if (split) return gk__tok_add_scan(t, GK__TOK_SCAN_META);
        return GK_OK;
    }
    return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: pre_tokenizer type '%.40s' is not supported", type);
}

static gk_status gk__tok_special_ids(gk_tokenizer *t, const gk_json_value *post, const char *name, int32_t *dst, size_t *n) {
    const gk_json_value *ids = gk_json_get(gk_json_get(gk_json_get(post, "special_tokens"), name), "ids");
    size_t i;
    if (gk_json_typeof(ids) != GK_JSON_ARRAY)
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: post_processor special token '%.40s' has no ids", name);
    for (i = 0; i < gk_json_len(ids); i++) {
        int64_t id = gk_json_int(gk_json_at(ids, i), -1);
        if (id < 0 || (size_t)id >= t->nid) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: post_processor id %lld out of range", (long long)id);
        if (*n >= 8) return GK__U_ERR(GK_ERR_LIMIT, "tokenizer.json: too many post_processor tokens");
        dst[(*n)++] = (int32_t)id;
    }
    return GK_OK;
}

static gk_status gk__tok_parse_post(gk_tokenizer *t, const gk_json_value *p, int depth) {
    const char *type = gk_json_get_string(p, "type", NULL);
    gk_status s;
    if (gk_json_is_null(p)) return GK_OK;
    if (!type) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: post_processor without a type");
    if (depth > 4) return GK__U_ERR(GK_ERR_LIMIT, "tokenizer.json: post_processors nested too deeply");
    if (strcmp(type, "ByteLevel") == 0) return GK_OK;
    if (strcmp(type, "Sequence") == 0) {
        const gk_json_value *list;
        size_t i;
        if ((s = gk__tok_seq_list(p, "processors", "post_processor", &list)) != GK_OK) return s;
        for (i = 0; i < gk_json_len(list); i++)
            if ((s = gk__tok_parse_post(t, gk_json_at(list, i), depth + 1)) != GK_OK) return s;
        return GK_OK;
    }
    if (strcmp(type, "TemplateProcessing") == 0) {
        const gk_json_value *single = gk_json_get(p, "single");
        size_t i;
        int seen_a = 0;
        char vb[64];
        if (gk_json_typeof(single) != GK_JSON_ARRAY)
            return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: TemplateProcessing post_processor: single = %s is not a list", gk__json_show(single, vb, sizeof vb));
        t->npre = t->npost = 0;
        for (i = 0; i < gk_json_len(single); i++) {
            const gk_json_value *it = gk_json_at(single, i), *sp = gk_json_get(it, "SpecialToken");
            if (sp) {
                const char *name = gk_json_get_string(sp, "id", NULL);
                if (!name) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: TemplateProcessing SpecialToken without id");
                s = seen_a ? gk__tok_special_ids(t, p, name, t->post, &t->npost) : gk__tok_special_ids(t, p, name, t->pre, &t->npre);
                if (s != GK_OK) return s;
            } else if (gk_json_get(it, "Sequence")) {
                if (seen_a) return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: TemplateProcessing 'single' with two sequences");
                seen_a = 1;
            } else return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: bad TemplateProcessing item");
        }
        return GK_OK;
    }
    if (strcmp(type, "RobertaProcessing") == 0 || strcmp(type, "BertProcessing") == 0) {
        int64_t c = gk_json_get_int(p, "cls.1", -1), e = gk_json_get_int(p, "sep.1", -1);
        if (c < 0 || e < 0 || (size_t)c >= t->nid || (size_t)e >= t->nid)
            return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: %s without valid cls/sep ids", type);
        t->pre[0] = (int32_t)c;
        t->post[0] = (int32_t)e;
        t->npre = t->npost = 1;
        return GK_OK;
    }
    return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: post_processor type '%.40s' is not supported", type);
}

static gk_status gk__tok_parse_dec(gk_tokenizer *t, const gk_json_value *d, int depth) {
    const char *type = gk_json_get_string(d, "type", NULL);
    gk__tok_op *op;
    gk_status s;
    if (gk_json_is_null(d)) return GK_OK;
    if (!type) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: decoder without a type");
    if (depth > 4) return GK__U_ERR(GK_ERR_LIMIT, "tokenizer.json: decoders nested too deeply");
    t->has_decoder = 1;
    if (strcmp(type, "Sequence") == 0) {
        const gk_json_value *list;
        size_t i;
        if ((s = gk__tok_seq_list(d, "decoders", "decoder", &list)) != GK_OK) return s;
        for (i = 0; i < gk_json_len(list); i++)
            if ((s = gk__tok_parse_dec(t, gk_json_at(list, i), depth + 1)) != GK_OK) return s;
        return GK_OK;
    }
    if (t->ndec >= sizeof t->dec / sizeof t->dec[0]) return GK__U_ERR(GK_ERR_LIMIT, "tokenizer.json: too many decoders");
    op = &t->dec[t->ndec];
    memset(op, 0, sizeof *op);
    if (strcmp(type, "ByteLevel") == 0) op->kind = GK__TOK_DOP_BYTELEVEL;
    else if (strcmp(type, "ByteFallback") == 0) op->kind = GK__TOK_DOP_BYTEFALLBACK;
    else if (strcmp(type, "Fuse") == 0) op->kind = GK__TOK_DOP_FUSE;
    else if (strcmp(type, "Replace") == 0) {
        if ((s = gk__tok_replace_op(op, d, "decoder")) != GK_OK) return s;
        op->kind = GK__TOK_DOP_REPLACE;
    } else if (strcmp(type, "Strip") == 0) {
        const gk_json_value *c = gk_json_get(d, "content");
        uint32_t cp;
        if (gk_json_typeof(c) != GK_JSON_STRING || gk__u_utf8_dec((const unsigned char *)gk_json_str(c, ""), gk_json_len(c), &cp) != (int)gk_json_len(c))
            return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: Strip decoder content must be one character");
        {
            const char *keys[2] = { "start", "stop" };
            int k;
            for (k = 0; k < 2; k++) {
                const gk_json_value *v = gk_json_get(d, keys[k]);
                char vb[64];
                if (!gk_json_is_null(v) && (gk_json_typeof(v) != GK_JSON_INT || gk_json_int(v, -1) < 0 || gk_json_int(v, -1) > INT32_MAX))
                    return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: Strip decoder: %s = %s is not a count (an integer >= 0)", keys[k], gk__json_show(v, vb, sizeof vb));
            }
        }
        if ((s = gk__tok_set_op(op, GK__TOK_DOP_STRIP, c, NULL)) != GK_OK) return s;
        op->start = (size_t)gk_json_get_int(d, "start", 0);
        op->stop = (size_t)gk_json_get_int(d, "stop", 0);
    } else if (strcmp(type, "Metaspace") == 0) {
        const gk_json_value *r = gk_json_get(d, "replacement");
        int scheme;
        if (gk_json_typeof(r) != GK_JSON_STRING || gk_json_len(r) == 0)
            return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: Metaspace decoder without a replacement");
        if ((s = gk__tok_prepend_scheme(d, "Metaspace decoder: ", &scheme)) != GK_OK) return s;
        if ((s = gk__tok_set_op(op, GK__TOK_DOP_METASPACE, r, NULL)) != GK_OK) return s;
        op->prepend = scheme != 0;
    } else return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: decoder type '%.40s' is not supported", type);
    t->ndec++;
    return GK_OK;
}

static int gk__tok_added_cmp_len(const void *a, const void *b, const gk__tok_added *added) {
    size_t la = added[*(const uint32_t *)a].len, lb = added[*(const uint32_t *)b].len;
    return la > lb ? -1 : la < lb ? 1 : 0;
}

/* sets token text of an id */
static gk_status gk__tok_set_text(gk_tokenizer *t, int64_t id, const char *s, size_t n) {
    gk_status st;
    if (id < 0 || (size_t)id >= t->nid) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: id %lld out of range", (long long)id);
    t->tok_off[id] = t->pool.len;
    t->tok_len[id] = (uint32_t)n;
    st = gk_buf_append(&t->pool, s, n);
    if (st == GK_OK) st = gk_buf_append(&t->pool, "", 1); /* NUL separator */
    return st;
}

static gk_status gk__tok_build(gk_tokenizer *t, const gk_json_value *root) {
    const gk_json_value *model = gk_json_get(root, "model"), *vocab, *merges, *added;
    const char *mtype;
    size_t i, nv;
    int64_t maxid = -1;
    gk_status s;
    gk_buf tmp = {NULL, 0, 0};
    char vb[64];

    if (gk_json_typeof(root) != GK_JSON_OBJECT) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: top level is not an object");
    if (gk_json_typeof(model) != GK_JSON_OBJECT) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: no \"model\" object");
    if (!gk_json_is_null(gk_json_get(model, "type")) && gk_json_typeof(gk_json_get(model, "type")) != GK_JSON_STRING)
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: model.type = %s is not a string", gk__json_show(gk_json_get(model, "type"), vb, sizeof vb));
    mtype = gk_json_get_string(model, "type", "BPE");
    if (strcmp(mtype, "BPE") != 0) return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: model type '%.40s' is not supported (only BPE)", mtype);
    if (!gk_json_is_null(gk_json_get(model, "continuing_subword_prefix")) && gk_json_get_string(model, "continuing_subword_prefix", "")[0])
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: BPE continuing_subword_prefix is not supported");
    if (!gk_json_is_null(gk_json_get(model, "end_of_word_suffix")) && gk_json_get_string(model, "end_of_word_suffix", "")[0])
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: BPE end_of_word_suffix is not supported");
    vocab = gk_json_get(model, "vocab");
    merges = gk_json_get(model, "merges");
    added = gk_json_get(root, "added_tokens");
    if (gk_json_typeof(vocab) != GK_JSON_OBJECT)
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: model.vocab is %s, not an object", vocab ? gk__json_show(vocab, vb, sizeof vb) : "missing");
    /* HF tokenizers requires the key ("Missing vocab/merges"); [] is a BPE without merges */
    if (!merges)
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: model.merges is missing: a BPE model needs its merges list (\"merges\": [] for none)");
    if (gk_json_typeof(merges) != GK_JSON_ARRAY)
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: model.merges = %s is not a list", gk__json_show(merges, vb, sizeof vb));
    if (!gk_json_is_null(added) && gk_json_typeof(added) != GK_JSON_ARRAY)
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: added_tokens = %s is not a list", gk__json_show(added, vb, sizeof vb));
    {   /* HF: dropout in [0, 1] (BPE dropout; inference ignores it) */
        const gk_json_value *dr = gk_json_get(model, "dropout");
        if (!gk_json_is_null(dr) && !((gk_json_typeof(dr) == GK_JSON_INT || gk_json_typeof(dr) == GK_JSON_DOUBLE) && gk_json_double(dr, -1) >= 0 && gk_json_double(dr, -1) <= 1))
            return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: model.dropout = %s is not null or a number in [0, 1]", gk__json_show(dr, vb, sizeof vb));
    }
    {
        const char *dk = gk__json_dup_key(model);
        if (dk) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: model: key \"%.60s\" appears twice", dk);
        if ((dk = gk__json_dup_key(root)) != NULL) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: key \"%.60s\" appears twice", dk);
    }
    if ((s = gk__tok_bool(model, "byte_fallback", 0, "model.", &t->byte_fallback)) != GK_OK) return s;
    if ((s = gk__tok_bool(model, "fuse_unk", 0, "model.", &t->fuse_unk)) != GK_OK) return s;
    if ((s = gk__tok_bool(model, "ignore_merges", 0, "model.", &t->ignore_merges)) != GK_OK) return s;
    if (!gk_json_is_null(gk_json_get(model, "unk_token")) && gk_json_typeof(gk_json_get(model, "unk_token")) != GK_JSON_STRING)
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: model.unk_token = %s is not a string or null", gk__json_show(gk_json_get(model, "unk_token"), vb, sizeof vb));

    /* ids */
    nv = gk_json_len(vocab);
    for (i = 0; i < nv; i++) {
        const gk_json_value *v = gk_json_at(vocab, i);
        int64_t id = gk_json_int(v, -1);
        if (gk_json_typeof(v) != GK_JSON_INT || id < 0 || id > GK__TOK_MAX_ID)
            return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: vocab entry '%.60s' has an invalid id", gk_json_key_at(vocab, i, NULL));
        if (id > maxid) maxid = id;
    }
    for (i = 0; i < gk_json_len(added); i++) {
        const gk_json_value *a = gk_json_at(added, i);
        int64_t id = gk_json_get_int(a, "id", -1);
        static const char *const flags[5] = { "special", "lstrip", "rstrip", "single_word", "normalized" };
        char what[48];
        int k, b;
        if (gk_json_typeof(gk_json_get(a, "id")) != GK_JSON_INT || id < 0 || id > GK__TOK_MAX_ID ||
            gk_json_typeof(gk_json_get(a, "content")) != GK_JSON_STRING || gk_json_len(gk_json_get(a, "content")) == 0)
            return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: added_tokens[%llu] needs an id and a non-empty content", (unsigned long long)(i));
        snprintf(what, sizeof what, "added_tokens[%llu].", (unsigned long long)i);
        for (k = 0; k < 5; k++)
            if ((s = gk__tok_bool(a, flags[k], 0, what, &b)) != GK_OK) return s;
        if (id > maxid) maxid = id;
    }
    t->nid = (size_t)(maxid + 1);
    t->tok_off = (size_t *)gk__u_malloc(t->nid * sizeof(size_t));
    t->tok_len = (uint32_t *)gk__u_calloc(t->nid, sizeof(uint32_t));
    t->special = (unsigned char *)gk__u_calloc(t->nid, 1);
    if (!t->tok_off || !t->tok_len || !t->special) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    for (i = 0; i < t->nid; i++) t->tok_off[i] = (size_t)-1;
    if (!gk__u_smap_init(&t->vocab, nv)) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    for (i = 0; i < nv; i++) {
        size_t kl;
        const char *k = gk_json_key_at(vocab, i, &kl);
        int64_t id = gk_json_int(gk_json_at(vocab, i), -1);
        if (t->tok_off[id] != (size_t)-1)
            return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: id %lld is used by two vocab entries", (long long)id);
        if ((s = gk__tok_set_text(t, id, k, kl)) != GK_OK) return s;
    }
    /* added tokens */
    if (gk_json_len(added)) { /* nadded only once the array exists (gk_tokenizer_free walks it) */
        t->added = (gk__tok_added *)gk__u_calloc(gk_json_len(added), sizeof(gk__tok_added));
        if (!t->added) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    t->nadded = gk_json_len(added);
    for (i = 0; i < t->nadded; i++) {
        const gk_json_value *a = gk_json_at(added, i), *c = gk_json_get(a, "content");
        gk__tok_added *ad = &t->added[i];
        ad->id = (int32_t)gk_json_get_int(a, "id", 0);
        ad->len = gk_json_len(c);
        ad->content = gk__u_strndup(gk_json_str(c, ""), ad->len);
        if (!ad->content) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
        ad->special = (unsigned char)gk_json_get_bool(a, "special", 0);
        ad->lstrip = (unsigned char)gk_json_get_bool(a, "lstrip", 0);
        ad->rstrip = (unsigned char)gk_json_get_bool(a, "rstrip", 0);
        ad->single_word = (unsigned char)gk_json_get_bool(a, "single_word", 0);
        ad->normalized = (unsigned char)gk_json_get_bool(a, "normalized", !ad->special);
        if (ad->normalized) t->has_normalized_added = 1;
        if (t->tok_off[ad->id] == (size_t)-1 && (s = gk__tok_set_text(t, ad->id, ad->content, ad->len)) != GK_OK) return s;
        if (ad->special) t->special[ad->id] = 1;
    }
    /* vocab map (pool pointers are final now: re-resolve) */
    for (i = 0; i < t->nid; i++) {
        if (t->tok_off[i] == (size_t)-1) continue;
        if (gk__u_smap_put(&t->vocab, t->pool.data + t->tok_off[i], t->tok_len[i], (int32_t)i, NULL) < 0)
            return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    /* added-token index by first byte, longest first */
    if (t->nadded) {
        uint32_t cnt[256], j;
        t->added_by_byte = (uint32_t *)gk__u_malloc(t->nadded * sizeof(uint32_t));
        if (!t->added_by_byte) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
        memset(cnt, 0, sizeof cnt);
        for (i = 0; i < t->nadded; i++) cnt[(unsigned char)t->added[i].content[0]]++;
        t->added_start[0] = 0;
        for (j = 0; j < 256; j++) t->added_start[j + 1] = t->added_start[j] + cnt[j];
        memset(cnt, 0, sizeof cnt);
        for (i = 0; i < t->nadded; i++) {
            unsigned b = (unsigned char)t->added[i].content[0];
            t->added_by_byte[t->added_start[b] + cnt[b]++] = (uint32_t)i;
        }
        for (j = 0; j < 256; j++) { /* insertion sort by length desc (stable) */
            uint32_t a0 = t->added_start[j], a1 = t->added_start[j + 1], x, y;
            for (x = a0 + 1; x < a1; x++) {
                uint32_t v = t->added_by_byte[x];
                y = x;
                while (y > a0 && gk__tok_added_cmp_len(&t->added_by_byte[y - 1], &v, t->added) > 0) {
                    t->added_by_byte[y] = t->added_by_byte[y - 1];
                    y--;
                }
                t->added_by_byte[y] = v;
            }
        }
    }
    /* components */
    if ((s = gk__tok_parse_norm(t, gk_json_get(root, "normalizer"), 0)) != GK_OK) return s;
    if ((s = gk__tok_parse_pre(t, gk_json_get(root, "pre_tokenizer"), 0)) != GK_OK) return s;
    if ((s = gk__tok_parse_post(t, gk_json_get(root, "post_processor"), 0)) != GK_OK) return s;
    if ((s = gk__tok_parse_dec(t, gk_json_get(root, "decoder"), 0)) != GK_OK) return s;
    {   /* HF fails at the first text that needs an unk_token missing from the vocab; here, at load */
        const gk_json_value *u = gk_json_get(model, "unk_token");
        t->unk_id = gk_json_typeof(u) == GK_JSON_STRING ? gk__u_smap_get(&t->vocab, gk_json_str(u, ""), gk_json_len(u)) : -1;
        if (gk_json_typeof(u) == GK_JSON_STRING && t->unk_id < 0)
            return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: model.unk_token %s is not in the vocab", gk__json_show(u, vb, sizeof vb));
    }
    /* byte tokens */
    for (i = 0; i < 256; i++) {
        char b[8];
        if (t->bytelevel) {
            size_t n = gk__u_utf8_enc(gk__tok_bl_cp((unsigned)i), b);
            t->byte_tok[i] = gk__u_smap_get(&t->vocab, b, n);
        } else {
            snprintf(b, sizeof b, "<0x%02X>", (unsigned)i);
            t->byte_tok[i] = gk__u_smap_get(&t->vocab, b, 6);
        }
    }
    /* raw-byte vocab for byte-level models */
    if (t->bytelevel) {
        size_t *roff = (size_t *)gk__u_malloc(t->nid * sizeof(size_t));
        uint32_t *rlen = (uint32_t *)gk__u_malloc(t->nid * sizeof(uint32_t));
        if (!roff || !rlen || !gk__u_smap_init(&t->raw, nv)) {
            gk__u_free(roff);
            gk__u_free(rlen);
            return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
        }
        for (i = 0; i < t->nid; i++) {
            const unsigned char *p;
            size_t n, j = 0, start = t->rawpool.len;
            int ok = 1;
            roff[i] = (size_t)-1;
            if (t->tok_off[i] == (size_t)-1) continue;
            p = (const unsigned char *)t->pool.data + t->tok_off[i];
            n = t->tok_len[i];
            while (j < n) {
                uint32_t cp;
                int k = gk__u_utf8_dec(p + j, n - j, &cp), b;
                unsigned char bb;
                if (k <= 0 || (b = gk__tok_bl_byte(cp)) < 0) { ok = 0; break; }
                bb = (unsigned char)b;
                if (gk_buf_append(&t->rawpool, &bb, 1) != GK_OK) { gk__u_free(roff); gk__u_free(rlen); return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory"); }
                j += (size_t)k;
            }
            if (!ok) { t->rawpool.len = start; continue; }
            roff[i] = start;
            rlen[i] = (uint32_t)(t->rawpool.len - start);
        }
        for (i = 0; i < t->nid; i++)
            if (roff[i] != (size_t)-1 && rlen[i] &&
                gk__u_smap_put(&t->raw, t->rawpool.data + roff[i], rlen[i], (int32_t)i, NULL) < 0) {
                gk__u_free(roff);
                gk__u_free(rlen);
                return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
            }
        gk__u_free(roff);
        gk__u_free(rlen);
    }
    /* merges: every exit goes through the one gk_buf_free(&tmp) below */
    if (!gk__u_umap_init(&t->merges, gk_json_len(merges))) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    s = GK_OK;
    for (i = 0; i < gk_json_len(merges); i++) {
        const gk_json_value *m = gk_json_at(merges, i);
        const char *a, *b;
        size_t la, lb;
        int32_t ia, ib, inew;
        uint64_t key, val;
        if (gk_json_typeof(m) == GK_JSON_STRING) {
            const char *str = gk_json_str(m, ""), *sp = (const char *)memchr(str, ' ', gk_json_len(m));
            if (gk_json_len(m) >= 8 && memcmp(str, "#version", 8) == 0) continue;
            if (!sp || memchr(sp + 1, ' ', gk_json_len(m) - (size_t)(sp + 1 - str))) {
                s = GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: merges[%llu] \"%.60s\" is not two tokens separated by one space", (unsigned long long)(i), str);
                break;
            }
            a = str;
            la = (size_t)(sp - str);
            b = sp + 1;
            lb = gk_json_len(m) - la - 1;
        } else if (gk_json_typeof(m) == GK_JSON_ARRAY && gk_json_len(m) == 2 &&
                   gk_json_typeof(gk_json_at(m, 0)) == GK_JSON_STRING && gk_json_typeof(gk_json_at(m, 1)) == GK_JSON_STRING) {
            a = gk_json_str(gk_json_at(m, 0), "");
            la = gk_json_len(gk_json_at(m, 0));
            b = gk_json_str(gk_json_at(m, 1), "");
            lb = gk_json_len(gk_json_at(m, 1));
        } else {
            s = GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: merges[%llu] is neither \"a b\" nor [\"a\", \"b\"]", (unsigned long long)(i));
            break;
        }
        ia = gk__u_smap_get(&t->vocab, a, la);
        ib = gk__u_smap_get(&t->vocab, b, lb);
        if (ia < 0 || ib < 0) {
            s = GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: merges[%llu]: token '%.40s' is not in the vocab", (unsigned long long)(i), ia < 0 ? a : b);
            break;
        }
        tmp.len = 0;
        if (gk_buf_append(&tmp, a, la) != GK_OK || gk_buf_append(&tmp, b, lb) != GK_OK) {
            s = GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
            break;
        }
        inew = gk__u_smap_get(&t->vocab, tmp.data, tmp.len);
        if (inew < 0) {
            s = GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: merges[%llu]: merged token '%.60s' is not in the vocab", (unsigned long long)(i), tmp.data);
            break;
        }
        key = ((uint64_t)(uint32_t)ia << 32) | (uint32_t)ib;
        val = ((uint64_t)i << 32) | (uint32_t)inew;
        if (gk__u_umap_put(&t->merges, key, val) < 0) {
            s = GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
            break;
        }
    }
    gk_buf_free(&tmp);
    return s;
}

GKLLMDEF gk_status gk_tokenizer_from_json(const gk_json_value *root, gk_tokenizer **out) {
    gk_tokenizer *t;
    gk_status s;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_from_json: out is NULL");
    *out = NULL;
    if (!root) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_from_json: root is NULL");
    t = (gk_tokenizer *)gk__u_calloc(1, sizeof(gk_tokenizer));
    if (!t) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    t->unk_id = -1;
    s = gk__tok_build(t, root);
    if (s != GK_OK) {
        gk_tokenizer_free(t);
        return s;
    }
    *out = t;
    return GK_OK;
}

GKLLMDEF gk_status gk_tokenizer_load_mem(const char *json, size_t len, gk_tokenizer **out) {
    gk_json *doc;
    gk_status s;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_load_mem: out is NULL");
    *out = NULL;
    if (!json && len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_load_mem: json is NULL but len is %llu", (unsigned long long)len);
    s = gk_json_parse(json, len, NULL, &doc);
    if (s != GK_OK) return s;
    s = gk_tokenizer_from_json(gk_json_root(doc), out);
    gk_json_free(doc);
    return s;
}

GKLLMDEF gk_status gk_tokenizer_load(const char *path, gk_tokenizer **out) {
    gk_json *doc;
    gk_status s;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_load: out is NULL");
    *out = NULL;
    if (!path) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_load: path is NULL");
    s = gk_json_parse_file(path, NULL, &doc);
    if (s != GK_OK) return s;
    s = gk_tokenizer_from_json(gk_json_root(doc), out);
    if (s != GK_OK) { /* "tokenizer.json: x" -> "<path>: x" */
        char msg[900];
        gk__u_errcopy(msg, sizeof msg);
        gk_error_set(NULL, s, "%s: %s", path, strncmp(msg, "tokenizer.json: ", 16) == 0 ? msg + 16 : msg);
    }
    gk_json_free(doc);
    return s;
}

GKLLMDEF size_t gk_tokenizer_vocab_size(const gk_tokenizer *t) { return t ? t->nid : 0; }
GKLLMDEF const char *gk_tokenizer_id_to_token(const gk_tokenizer *t, int32_t id, size_t *len) {
    if (!t || id < 0 || (size_t)id >= t->nid || t->tok_off[id] == (size_t)-1) {
        if (len) *len = 0;
        return NULL;
    }
    if (len) *len = t->tok_len[id];
    return t->pool.data + t->tok_off[id];
}
GKLLMDEF int32_t gk_tokenizer_token_to_id(const gk_tokenizer *t, const char *s, size_t n) {
    return (t && s) ? gk__u_smap_get(&t->vocab, s, n) : -1;
}
GKLLMDEF int gk_tokenizer_is_special(const gk_tokenizer *t, int32_t id) {
    return t && id >= 0 && (size_t)id < t->nid && t->special[id];
}

