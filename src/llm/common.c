/* ======================================================================== */
/* >>impl_common                                                            */
/* ======================================================================== */

#define GK__U_ERR(st, ...) gk_error_set(NULL, (st), __VA_ARGS__)

/* ---- host memory: GPUKIT_MALLOC / GPUKIT_REALLOC / GPUKIT_FREE (>>impl_begin) ---- */
static void *gk__u_malloc(size_t n) { return GPUKIT_MALLOC(n ? n : 1); }
/* zeroed n * s bytes; NULL when the product overflows */
static void *gk__u_calloc(size_t n, size_t s) {
    void *p;
    if (!n) n = 1;
    if (!s) s = 1;
    if (n > ((size_t)-1) / s) return NULL;
    p = GPUKIT_MALLOC(n * s);
    if (p) memset(p, 0, n * s);
    return p;
}
static void gk__u_free(void *p) {
    if (p) GPUKIT_FREE(p);
}
/* the null tensor handle, every field zero (gk_tensor's fields may grow: no {0} initializers, which C++ warns about) */
static gk_tensor gk__u_tnull(void) {
    gk_tensor t;
    memset(&t, 0, sizeof t);
    return t;
}
/* copy of s[0..n) with a NUL after it */
static char *gk__u_strndup(const char *s, size_t n) {
    char *r = (char *)gk__u_malloc(n + 1);
    if (!r) return NULL;
    if (n) memcpy(r, s, n);
    r[n] = 0;
    return r;
}

/* Grows *p (element size es) to hold at least need elements. A NULL *p is a
   fresh GPUKIT_MALLOC (a user's GPUKIT_REALLOC never sees NULL); on failure
   *p and *cap are unchanged. */
static int gk__u_grow(void **p, size_t *cap, size_t need, size_t es) {
    size_t nc;
    void *q;
    if (need <= *cap) return 1;
    nc = *cap ? *cap : 16;
    while (nc < need) {
        if (nc > ((size_t)-1) / 2 / es) return 0;
        nc *= 2;
    }
    q = *p ? GPUKIT_REALLOC(*p, nc * es) : GPUKIT_MALLOC(nc * es);
    if (!q) return 0;
    *p = q;
    *cap = nc;
    return 1;
}

GKLLMDEF void gk_buf_free(gk_buf *b) {
    if (!b) return;
    gk__u_free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
GKLLMDEF void gk_ids_free(gk_ids *v) {
    if (!v) return;
    gk__u_free(v->data);
    v->data = NULL;
    v->len = v->cap = 0;
}
GKLLMDEF gk_status gk_buf_append(gk_buf *b, const void *data, size_t n) {
    if (!b) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_buf_append: b is NULL");
    if (!data && n) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_buf_append: data is NULL but n is %llu", (unsigned long long)n);
    if (b->len + n + 1 < b->len || !gk__u_grow((void **)&b->data, &b->cap, b->len + n + 1, 1))
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory growing a text buffer to %llu bytes", (unsigned long long)(b->len + n + 1));
    if (n) memcpy(b->data + b->len, data, n);
    b->len += n;
    b->data[b->len] = 0;
    return GK_OK;
}
static gk_status gk__u_buf_puts(gk_buf *b, const char *s) { return gk_buf_append(b, s, strlen(s)); }
GKLLMDEF gk_status gk_ids_push(gk_ids *v, int32_t id) {
    if (!v) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_ids_push: v is NULL");
    if (v->len == v->cap && !gk__u_grow((void **)&v->data, &v->cap, v->len + 1, sizeof(int32_t)))
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory growing an id array");
    v->data[v->len++] = id;
    return GK_OK;
}

GKLLMDEF gk_status gk_read_file(const char *path, size_t max_size, char **data, size_t *size) {
    FILE *f;
    char *buf = NULL;
    size_t cap = 0, len = 0;
    if (data) *data = NULL;
    if (size) *size = 0;
    if (!path) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_read_file: path is NULL");
    if (!data) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_read_file: data is NULL");
    if (!size) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_read_file: size is NULL");
    *data = NULL;
    *size = 0;
    f = fopen(path, "rb");
    if (!f) return GK__U_ERR(GK_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    for (;;) {
        size_t got;
        if (len + 65536 + 1 > cap && !gk__u_grow((void **)&buf, &cap, len + 65536 + 1, 1)) {
            fclose(f);
            gk__u_free(buf);
            return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory reading '%s'", path);
        }
        got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (max_size && len > max_size) {
            fclose(f);
            gk__u_free(buf);
            return GK__U_ERR(GK_ERR_LIMIT, "'%s' is larger than the limit of %llu bytes", path, (unsigned long long)(max_size));
        }
        if (got == 0) break;
    }
    if (ferror(f)) {
        int e = errno;
        fclose(f);
        gk__u_free(buf);
        return GK__U_ERR(GK_ERR_IO, "read error on '%s': %s", path, strerror(e));
    }
    fclose(f);
    if (!buf) {
        buf = (char *)gk__u_malloc(1);
        if (!buf) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    buf[len] = 0;
    *data = buf;
    *size = len;
    return GK_OK;
}

GKLLMDEF void gk_read_file_free(char *data) { gk__u_free(data); }

/* copies the current thread's error text (bounded) so it can be reformatted */
static void gk__u_errcopy(char *dst, size_t cap) {
    const char *e = gk_last_error(NULL);
    size_t n = e ? strlen(e) : 0;
    if (n >= cap) n = cap - 1;
    if (n) memcpy(dst, e, n);
    dst[n] = 0;
}

/* ---- where errors go (doc.txt, ERRORS) ----
   A call without a context records its error for the calling thread
   (GK__U_ERR). A call with a context (gk_st_upload, gk_llm_*) records it on
   that context and leaves the thread's text as it was: around a
   context-free part it runs (JSON, tokenizer, chat template, gk_read_file,
   gpukit.h's context-free functions) it saves the thread's text, then moves
   the part's message to the context (gk__u_tl_move) or puts the text back
   (gk__u_tl_restore). A NULL context means the thread: the message stays. */
#define GK__U_ERRSAVE 4096 /* gpukit.h's error texts are shorter */
typedef struct gk__u_tl { char text[GK__U_ERRSAVE]; } gk__u_tl;
static void gk__u_tl_save(gk__u_tl *sv) { gk__u_errcopy(sv->text, sizeof sv->text); }
static void gk__u_tl_restore(const gk__u_tl *sv) {
    if (strcmp(gk_last_error(NULL), sv->text) != 0) gk_error_set(NULL, GK_OK, "%s", sv->text);
}
/* the context-free part failed with st: "prefix + its message" goes to ctx */
static gk_status gk__u_tl_move(gk_ctx *ctx, const gk__u_tl *sv, gk_status st, const char *prefix) {
    char msg[GK__U_ERRSAVE];
    gk__u_errcopy(msg, sizeof msg);
    if (!ctx) return gk_error_set(NULL, st, "%s%s", prefix, msg);
    gk_error_set(ctx, st, "%s%s", prefix, msg);
    gk__u_tl_restore(sv);
    return st;
}

/* ---- hashing ---- */
static uint64_t gk__u_hash_bytes(const void *p, size_t n) {
    const unsigned char *s = (const unsigned char *)p;
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (n * 0xC2B2AE3D27D4EB4Full);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ (w * 0x87C37B91114253D5ull)) * 0x4CF5AD432745937Full;
        h ^= h >> 29;
        s += 8;
        n -= 8;
    }
    if (n) {
        uint64_t w = 0;
        memcpy(&w, s, n);
        h = (h ^ (w * 0x87C37B91114253D5ull)) * 0x4CF5AD432745937Full;
    }
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ull;
    h ^= h >> 32;
    return h;
}
static uint64_t gk__u_hash_u64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDull;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ull;
    x ^= x >> 33;
    return x;
}

/* String -> int32 map; keys are (ptr,len) owned by the caller. */
typedef struct gk__u_smap_slot { const char *key; uint32_t len; int32_t val; } gk__u_smap_slot;
typedef struct gk__u_smap { gk__u_smap_slot *slots; size_t cap, count; } gk__u_smap;

static int gk__u_smap_init(gk__u_smap *m, size_t expected) {
    size_t cap = 16;
    while (cap < expected * 2 + 2) cap *= 2;
    m->slots = (gk__u_smap_slot *)gk__u_calloc(cap, sizeof(gk__u_smap_slot));
    m->cap = m->slots ? cap : 0;
    m->count = 0;
    return m->slots != NULL;
}
static void gk__u_smap_free(gk__u_smap *m) { gk__u_free(m->slots); m->slots = NULL; m->cap = m->count = 0; }
static int32_t gk__u_smap_get(const gk__u_smap *m, const char *k, size_t n) {
    size_t i;
    if (!m->cap) return -1;
    i = (size_t)gk__u_hash_bytes(k, n) & (m->cap - 1);
    for (;;) {
        const gk__u_smap_slot *s = &m->slots[i];
        if (!s->key) return -1;
        if (s->len == n && memcmp(s->key, k, n) == 0) return s->val;
        i = (i + 1) & (m->cap - 1);
    }
}
/* Inserts; returns 1 inserted, 0 key existed (value unchanged, *old set), -1 OOM. */
static int gk__u_smap_put(gk__u_smap *m, const char *k, size_t n, int32_t v, int32_t *old) {
    size_t i;
    if ((m->count + 1) * 2 > m->cap) {
        gk__u_smap nm;
        size_t j;
        if (!gk__u_smap_init(&nm, m->count + 1)) return -1;
        for (j = 0; j < m->cap; j++)
            if (m->slots[j].key) {
                size_t p = (size_t)gk__u_hash_bytes(m->slots[j].key, m->slots[j].len) & (nm.cap - 1);
                while (nm.slots[p].key) p = (p + 1) & (nm.cap - 1);
                nm.slots[p] = m->slots[j];
            }
        nm.count = m->count;
        gk__u_free(m->slots);
        *m = nm;
    }
    i = (size_t)gk__u_hash_bytes(k, n) & (m->cap - 1);
    for (;;) {
        gk__u_smap_slot *s = &m->slots[i];
        if (!s->key) {
            s->key = k ? k : "";
            s->len = (uint32_t)n;
            s->val = v;
            m->count++;
            return 1;
        }
        if (s->len == n && memcmp(s->key, k, n) == 0) {
            if (old) *old = s->val;
            return 0;
        }
        i = (i + 1) & (m->cap - 1);
    }
}

/* u64 -> u64 map, key UINT64_MAX reserved (empty). */
typedef struct gk__u_umap { uint64_t *keys, *vals; size_t cap, count; } gk__u_umap;
static int gk__u_umap_init(gk__u_umap *m, size_t expected) {
    size_t cap = 16, i;
    while (cap < expected * 2 + 2) cap *= 2;
    m->keys = (uint64_t *)gk__u_malloc(cap * sizeof(uint64_t));
    m->vals = (uint64_t *)gk__u_malloc(cap * sizeof(uint64_t));
    if (!m->keys || !m->vals) {
        gk__u_free(m->keys);
        gk__u_free(m->vals);
        m->keys = m->vals = NULL;
        m->cap = 0;
        return 0;
    }
    for (i = 0; i < cap; i++) m->keys[i] = UINT64_MAX;
    m->cap = cap;
    m->count = 0;
    return 1;
}
static void gk__u_umap_free(gk__u_umap *m) { gk__u_free(m->keys); gk__u_free(m->vals); m->keys = m->vals = NULL; m->cap = 0; }
static int gk__u_umap_get(const gk__u_umap *m, uint64_t k, uint64_t *v) {
    size_t i;
    if (!m->cap) return 0;
    i = (size_t)gk__u_hash_u64(k) & (m->cap - 1);
    for (;;) {
        if (m->keys[i] == k) { *v = m->vals[i]; return 1; }
        if (m->keys[i] == UINT64_MAX) return 0;
        i = (i + 1) & (m->cap - 1);
    }
}
/* Inserts if absent: 1 inserted, 0 present, -1 OOM. */
static int gk__u_umap_put(gk__u_umap *m, uint64_t k, uint64_t v) {
    size_t i;
    if ((m->count + 1) * 2 > m->cap) {
        gk__u_umap nm;
        size_t j;
        if (!gk__u_umap_init(&nm, m->count + 1)) return -1;
        for (j = 0; j < m->cap; j++)
            if (m->keys[j] != UINT64_MAX) {
                size_t p = (size_t)gk__u_hash_u64(m->keys[j]) & (nm.cap - 1);
                while (nm.keys[p] != UINT64_MAX) p = (p + 1) & (nm.cap - 1);
                nm.keys[p] = m->keys[j];
                nm.vals[p] = m->vals[j];
            }
        nm.count = m->count;
        gk__u_umap_free(m);
        *m = nm;
    }
    i = (size_t)gk__u_hash_u64(k) & (m->cap - 1);
    for (;;) {
        if (m->keys[i] == k) return 0;
        if (m->keys[i] == UINT64_MAX) {
            m->keys[i] = k;
            m->vals[i] = v;
            m->count++;
            return 1;
        }
        i = (i + 1) & (m->cap - 1);
    }
}

/* ---- UTF-8 ---- */
/* Decodes one UTF-8 sequence at p (n bytes available).
   > 0 : valid, returns its length, *cp set
   0   : n == 0
   < 0 : invalid or truncated; -k where k is the length of the maximal
         subpart (1..3) that should become one U+FFFD. *cp = 0xFFFFFFFF.
   If the sequence is a valid prefix cut off by the end of the input,
   *cp is set to 0xFFFFFFFE instead (so streaming can wait for more). */
static int gk__u_utf8_dec(const unsigned char *p, size_t n, uint32_t *cp) {
    unsigned c;
    int len, i;
    uint32_t v;
    unsigned lo = 0x80, hi = 0xBF;
    if (n == 0) return 0;
    c = p[0];
    if (c < 0x80) { *cp = c; return 1; }
    *cp = 0xFFFFFFFFu;
    if (c < 0xC2) return -1;
    if (c < 0xE0) { len = 2; v = c & 0x1F; }
    else if (c < 0xF0) {
        len = 3; v = c & 0x0F;
        if (c == 0xE0) lo = 0xA0;
        else if (c == 0xED) hi = 0x9F;
    } else if (c < 0xF5) {
        len = 4; v = c & 0x07;
        if (c == 0xF0) lo = 0x90;
        else if (c == 0xF4) hi = 0x8F;
    } else return -1;
    for (i = 1; i < len; i++) {
        unsigned b;
        if ((size_t)i >= n) { *cp = 0xFFFFFFFEu; return -i; }
        b = p[i];
        if (b < lo || b > hi) return -i;
        lo = 0x80; hi = 0xBF;
        v = (v << 6) | (b & 0x3F);
    }
    *cp = v;
    return len;
}
static size_t gk__u_utf8_enc(uint32_t cp, char *o) {
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12)); o[1] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18)); o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}
/* Appends p[0..n) to out replacing invalid UTF-8 by U+FFFD (maximal subparts). */
static gk_status gk__u_append_lossy(gk_buf *out, const unsigned char *p, size_t n) {
    size_t i = 0, run = 0;
    gk_status st;
    while (i < n) {
        uint32_t cp;
        int k = gk__u_utf8_dec(p + i, n - i, &cp);
        if (k > 0) { i += (size_t)k; continue; }
        if ((st = gk_buf_append(out, p + run, i - run)) != GK_OK) return st;
        if ((st = gk_buf_append(out, "\xEF\xBF\xBD", 3)) != GK_OK) return st;
        i += (size_t)(-k);
        run = i;
    }
    return gk_buf_append(out, p + run, i - run);
}

