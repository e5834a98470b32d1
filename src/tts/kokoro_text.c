/* >>impl_kokoro_text: Kokoro's vocabulary, phonemes to ids, and the chunker shared by text and phoneme input */

/* ---- vocabulary: code points sorted, with their ids ---- */
struct gk_kokoro_vocab {
    size_t n;
    uint32_t *cp;
    int32_t *id;
};

/* Python's str.isspace, which re's \s follows */
static int gk__kt_space(uint32_t c) {
    return (c >= 9 && c <= 13) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}
/* a line break: \n, \r (\r\n is one, see gk__kt_gap), NEL, LS, PS */
static int gk__kt_newline(uint32_t c) { return c == 10 || c == 13 || c == 0x85 || c == 0x2028 || c == 0x2029; }

/* "'x' (U+0078)" for messages: the character itself when it prints */
static void gk__kt_cpname(uint32_t cp, char *o, size_t cap) {
    char u[5];
    size_t n;
    if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0) || cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000)) {
        snprintf(o, cap, "U+%04X", (unsigned)cp);
        return;
    }
    n = gk__u_utf8_enc(cp, u);
    u[n] = 0;
    snprintf(o, cap, "'%s' (U+%04X)", u, (unsigned)cp);
}

static int gk__kt_cmp_u32(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

GKLLMDEF gk_status gk_kokoro_vocab_from_json(const gk_json_value *config, gk_kokoro_vocab **out) {
    const char *F = "gk_kokoro_vocab";
    const gk_json_value *voc, *nt;
    gk_kokoro_vocab *v;
    uint64_t *pairs; /* code point << 32 | id, sorted */
    int64_t n_token = 65536;
    size_t i, n;
    if (out) *out = NULL;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", F);
    if (gk_json_typeof(config) != GK_JSON_OBJECT) return GK__U_ERR(GK_ERR_FORMAT, "%s: config.json is not a JSON object", F);
    nt = gk_json_get(config, "n_token");
    if (nt) {
        if (gk_json_typeof(nt) != GK_JSON_INT || gk_json_int(nt, 0) < 2 || gk_json_int(nt, 0) > 65536)
            return GK__U_ERR(GK_ERR_FORMAT, "%s: config.json: n_token must be an integer in [2, 65536]", F);
        n_token = gk_json_int(nt, 0);
    }
    voc = gk_json_get(config, "vocab");
    if (!voc) return GK__U_ERR(GK_ERR_FORMAT, "%s: config.json has no \"vocab\" object", F);
    if (gk_json_typeof(voc) != GK_JSON_OBJECT) return GK__U_ERR(GK_ERR_FORMAT, "%s: config.json: \"vocab\" is not an object", F);
    n = gk_json_len(voc);
    if (n == 0) return GK__U_ERR(GK_ERR_FORMAT, "%s: config.json: \"vocab\" is empty", F);
    pairs = (uint64_t *)gk__u_calloc(n, sizeof(uint64_t));
    if (!pairs) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", F);
    for (i = 0; i < n; i++) {
        size_t kl = 0;
        const char *k = gk_json_key_at(voc, i, &kl);
        const gk_json_value *val = gk_json_at(voc, i);
        uint32_t cp = 0;
        int dl = gk__u_utf8_dec((const unsigned char *)k, kl, &cp);
        int64_t id;
        if (dl <= 0 || (size_t)dl != kl) {
            gk__u_free(pairs);
            return GK__U_ERR(GK_ERR_FORMAT, "%s: config.json: vocab key %llu (\"%.*s\") is not one code point", F,
                             (unsigned long long)i, (int)(kl > 32 ? 32 : kl), k);
        }
        id = gk_json_int(val, -1);
        if (gk_json_typeof(val) != GK_JSON_INT || id < 1 || id >= n_token) {
            char nm[32];
            gk__kt_cpname(cp, nm, sizeof nm);
            gk__u_free(pairs);
            return GK__U_ERR(GK_ERR_FORMAT, "%s: config.json: vocab %s: the id must be an integer in [1, %lld)", F, nm,
                             (long long)n_token);
        }
        pairs[i] = ((uint64_t)cp << 32) | (uint64_t)id;
    }
    qsort(pairs, n, sizeof(uint64_t), gk__kt_cmp_u32);
    for (i = 1; i < n; i++)
        if ((pairs[i] >> 32) == (pairs[i - 1] >> 32)) {
            char nm[32];
            gk__kt_cpname((uint32_t)(pairs[i] >> 32), nm, sizeof nm);
            gk__u_free(pairs);
            return GK__U_ERR(GK_ERR_FORMAT, "%s: config.json: vocab has %s twice", F, nm);
        }
    v = (gk_kokoro_vocab *)gk__u_calloc(1, sizeof *v);
    if (v) {
        v->cp = (uint32_t *)gk__u_calloc(n, sizeof(uint32_t));
        v->id = (int32_t *)gk__u_calloc(n, sizeof(int32_t));
    }
    if (!v || !v->cp || !v->id) {
        gk_kokoro_vocab_free(v);
        gk__u_free(pairs);
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", F);
    }
    for (i = 0; i < n; i++) {
        v->cp[i] = (uint32_t)(pairs[i] >> 32);
        v->id[i] = (int32_t)(pairs[i] & 0xFFFFFFFFu);
    }
    v->n = n;
    gk__u_free(pairs);
    *out = v;
    return GK_OK;
}

GKLLMDEF gk_status gk_kokoro_vocab_load(const char *path, gk_kokoro_vocab **out) {
    const char *F = "gk_kokoro_vocab_load";
    gk_json *doc = NULL;
    gk_buf p = {NULL, 0, 0};
    gk_status st;
    if (out) *out = NULL;
    if (!path || !out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", F, path ? "out" : "path");
    if ((st = gk__u_buf_puts(&p, path)) != GK_OK) return st;
    if (gk__u_is_dir(path)) {
        if ((st = gk__u_buf_puts(&p, "/config.json")) != GK_OK) {
            gk_buf_free(&p);
            return st;
        }
    }
    st = gk_json_parse_file(p.data, NULL, &doc);
    if (st == GK_OK) {
        st = gk_kokoro_vocab_from_json(gk_json_root(doc), out);
        if (st != GK_OK) {
            char msg[1024];
            gk__u_errcopy(msg, sizeof msg);
            st = GK__U_ERR(st, "%s: %s", p.data, msg);
        }
        gk_json_free(doc);
    }
    gk_buf_free(&p);
    return st;
}

GKLLMDEF void gk_kokoro_vocab_free(gk_kokoro_vocab *v) {
    if (!v) return;
    gk__u_free(v->cp);
    gk__u_free(v->id);
    gk__u_free(v);
}
GKLLMDEF size_t gk_kokoro_vocab_size(const gk_kokoro_vocab *v) { return v ? v->n : 0; }
GKLLMDEF int32_t gk_kokoro_vocab_id(const gk_kokoro_vocab *v, uint32_t cp) {
    size_t lo = 0, hi;
    if (!v) return -1;
    hi = v->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v->cp[mid] < cp) lo = mid + 1;
        else hi = mid;
    }
    return lo < v->n && v->cp[lo] == cp ? v->id[lo] : -1;
}

GKLLMDEF gk_status gk_kokoro_phonemes_to_ids(const gk_kokoro_vocab *v, const char *phonemes, size_t len, unsigned flags,
                                             gk_ids *out, size_t *n_phonemes) {
    const char *F = "gk_kokoro_phonemes_to_ids";
    const unsigned char *s = (const unsigned char *)phonemes;
    size_t i = 0, count = 0, len0;
    if (n_phonemes) *n_phonemes = 0;
    if (!v || !out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", F, v ? "out" : "vocab");
    if (!phonemes && len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: phonemes is NULL but len is %llu", F, (unsigned long long)len);
    if (flags & ~GK_KOKORO_DROP_UNKNOWN) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: unknown flags 0x%x", F, flags);
    len0 = out->len;
    while (i < len) {
        uint32_t cp;
        int k = gk__u_utf8_dec(s + i, len - i, &cp);
        int32_t id;
        if (k <= 0) {
            out->len = len0;
            return GK__U_ERR(GK_ERR_FORMAT, "%s: invalid UTF-8 at byte %llu (0x%02X)", F, (unsigned long long)i, s[i]);
        }
        id = gk_kokoro_vocab_id(v, cp);
        if (id < 0 && !(flags & GK_KOKORO_DROP_UNKNOWN)) {
            char nm[32];
            gk__kt_cpname(cp, nm, sizeof nm);
            out->len = len0;
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT,
                             "%s: %s at byte %llu is not in Kokoro's vocabulary (%llu symbols); "
                             "GK_KOKORO_DROP_UNKNOWN drops such symbols as the reference does",
                             F, nm, (unsigned long long)i, (unsigned long long)v->n);
        }
        if (id >= 0 && gk_ids_push(out, id) != GK_OK) {
            out->len = len0;
            return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", F);
        }
        count++;
        i += (size_t)k;
    }
    if (n_phonemes) *n_phonemes = count;
    return GK_OK;
}

/* ---- the chunker ----
   Input of both front ends: units in order, each a word (or a piece of
   words phonemized together) or a run of marks, with its phonemes (bytes of
   a source string), the whitespace before it and its span in the input. */
enum { GK__KT_WORD = 0, GK__KT_MARK = 1, GK__KT_OPEN = 2 };
typedef struct gk__kt_unit {
    size_t tb, te;      /* span in the input */
    size_t pb, pn;      /* phonemes: bytes [pb, pb + pn) of the source */
    size_t ncp;         /* their code points */
    size_t gb, gn;      /* whitespace before it: source bytes [gb, gb + gn); gn == 0: none */
    int gsyn;           /* the whitespace is written as one space (gn > 0) */
    int kind;           /* GK__KT_WORD, GK__KT_MARK (a run's closing part), GK__KT_OPEN (opening marks) */
    int lv;             /* MARK: the split level after it: 4 . ! ? …, 3 : ;, 2 , —, 1 others */
    int forced;         /* a line break before it: a chunk ends there */
} gk__kt_unit;
typedef struct gk__kt_units {
    gk__kt_unit *u;
    size_t n, cap;
} gk__kt_units;

static gk__kt_unit *gk__kt_push(gk__kt_units *U) {
    gk__kt_unit *u;
    if (U->n == U->cap && !gk__u_grow((void **)&U->u, &U->cap, U->n + 1, sizeof(gk__kt_unit))) return NULL;
    u = &U->u[U->n++];
    memset(u, 0, sizeof *u);
    return u;
}

/* code points of the whitespace before unit u as written */
static size_t gk__kt_gcp(const gk__kt_unit *u) { return u->gn == 0 ? 0 : u->gsyn ? 1 : u->gn; }

/* the split level between units i - 1 and i: 5 forced, 0 never */
static int gk__kt_level(const gk__kt_unit *u, size_t i) {
    if (u[i].forced) return 5;
    if (u[i].kind == GK__KT_MARK) return 0;
    if (u[i - 1].kind == GK__KT_OPEN) return 0;
    if (u[i - 1].kind == GK__KT_MARK) return u[i - 1].lv;
    return u[i].gn ? 1 : 0;
}
/* phoneme code points of units [a, b] as one chunk */
static size_t gk__kt_count(const gk__kt_unit *u, size_t a, size_t b) {
    size_t k, c = 0;
    for (k = a; k <= b; k++) c += u[k].ncp + (k > a ? gk__kt_gcp(&u[k]) : 0);
    return c;
}

/* Cuts the units into chunks of at most max phoneme code points (every unit
   fits: the front ends check) and writes them to *out. src holds the
   phoneme and whitespace bytes. Chunks without a word are left out. */
static gk_status gk__kt_assemble(const char *F, const char *src, const gk__kt_units *U, size_t max, gk_kokoro_chunks *out) {
    const gk__kt_unit *u = U->u;
    size_t *cut = NULL, ncut = 0, capcut = 0; /* chunk ranges: [cut[2j], cut[2j+1]) */
    size_t s = 0, cnt = 0, i, j, total = 0, pos = 0, nchunk = 0;
    memset(out, 0, sizeof *out);
#define GK__KT_EMIT(a, b)                                                                                                   \
    do {                                                                                                                  \
        if (ncut + 2 > capcut && !gk__u_grow((void **)&cut, &capcut, ncut + 2, sizeof(size_t))) goto oom;                 \
        cut[ncut++] = (a);                                                                                                \
        cut[ncut++] = (b);                                                                                                \
    } while (0)
    for (i = 0; i < U->n; i++) {
        size_t add;
        if (i > s && gk__kt_level(u, i) == 5) {
            GK__KT_EMIT(s, i);
            s = i;
            cnt = 0;
        }
        add = u[i].ncp + (i > s ? gk__kt_gcp(&u[i]) : 0);
        if (i > s && cnt + add > max) {
            size_t b = i;
            int L;
            for (L = 4; L >= 1 && b == i; L--) {
                for (j = i; j > s; j--)
                    if (gk__kt_level(u, j) >= L) break;
                if (j > s && gk__kt_count(u, j, i) <= max) b = j;
            }
            GK__KT_EMIT(s, b);
            s = b;
            cnt = gk__kt_count(u, s, i);
        } else
            cnt += add;
    }
    if (U->n > s) GK__KT_EMIT(s, U->n);
#undef GK__KT_EMIT
    /* keep the chunks that hold a word; size the store */
    for (j = 0; j < ncut; j += 2) {
        int word = 0;
        for (i = cut[j]; i < cut[j + 1]; i++)
            if (u[i].kind == GK__KT_WORD && u[i].ncp) word = 1;
        if (!word) {
            cut[j] = cut[j + 1] = 0;
            continue;
        }
        nchunk++;
        for (i = cut[j]; i < cut[j + 1]; i++) total += u[i].pn + (i > cut[j] ? (u[i].gsyn ? (u[i].gn ? 1 : 0) : u[i].gn) : 0);
        total++;
    }
    if (nchunk == 0) {
        gk__u_free(cut);
        return GK_OK;
    }
    out->chunk = (gk_kokoro_chunk *)gk__u_calloc(nchunk, sizeof(gk_kokoro_chunk));
    out->store = (char *)gk__u_malloc(total);
    if (!out->chunk || !out->store) goto oom;
    for (j = 0; j < ncut; j += 2) {
        gk_kokoro_chunk *c;
        size_t a = cut[j], b = cut[j + 1], start = pos;
        if (a == b) continue;
        c = &out->chunk[out->n++];
        for (i = a; i < b; i++) {
            if (i > a && u[i].gn) {
                if (u[i].gsyn) out->store[pos++] = ' ';
                else {
                    memcpy(out->store + pos, src + u[i].gb, u[i].gn);
                    pos += u[i].gn;
                }
            }
            if (u[i].pn) memcpy(out->store + pos, src + u[i].pb, u[i].pn);
            pos += u[i].pn;
        }
        c->phonemes = out->store + start;
        c->phonemes_len = pos - start;
        c->n_phonemes = gk__kt_count(u, a, b - 1);
        c->text_begin = u[a].tb;
        c->text_end = u[b - 1].te;
        out->store[pos++] = 0;
    }
    gk__u_free(cut);
    return GK_OK;
oom:
    gk__u_free(cut);
    gk_kokoro_chunks_free(out);
    return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", F);
}

GKLLMDEF void gk_kokoro_chunks_free(gk_kokoro_chunks *c) {
    if (!c) return;
    gk__u_free(c->chunk);
    gk__u_free(c->store);
    memset(c, 0, sizeof *c);
}

/* the chunk limit of a desc */
static gk_status gk__kt_max(const char *F, const gk_kokoro_chunk_desc *d, size_t *max) {
    *max = d && d->max_phonemes ? d->max_phonemes : GK_KOKORO_MAX_PHONEMES;
    if (*max > GK_KOKORO_MAX_PHONEMES)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: max_phonemes = %llu is above Kokoro's %d", F, (unsigned long long)*max,
                         GK_KOKORO_MAX_PHONEMES);
    if (d && (d->flags & ~GK_KOKORO_JOIN_LINES)) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: unknown flags 0x%x", F, d->flags);
    return GK_OK;
}

/* Whitespace from s[i] on: its end (*end), whether it ends a chunk (*forced:
   a line break, or with join_lines two). Stops at the first other code point. */
static void gk__kt_gap(const unsigned char *s, size_t len, size_t i, int join_lines, size_t *end, int *forced) {
    int breaks = 0;
    while (i < len) {
        uint32_t cp;
        int k = gk__u_utf8_dec(s + i, len - i, &cp);
        if (k <= 0 || !gk__kt_space(cp)) break;
        if (gk__kt_newline(cp) && !(cp == 10 && i > 0 && s[i - 1] == 13)) breaks++;
        i += (size_t)k;
    }
    *end = i;
    *forced = join_lines ? breaks >= 2 : breaks >= 1;
}

/* Kokoro's punctuation (config.json's vocab): 0 none, else its split level */
static int gk__kt_mark_level(uint32_t c) {
    switch (c) {
    case '.': case '!': case '?': case 0x2026: return 4;
    case ':': case ';': return 3;
    case ',': case 0x2014: return 2;
    case '"': case '(': case ')': case 0x201C: case 0x201D: return 1;
    default: return 0;
    }
}

/* Splits the mark run [rb, re) of s (marks, and whitespace between them
   without a chunk-ending break) into a closing part and an opening part
   (trailing opening marks: ( “, " after whitespace or at a run that starts
   after whitespace), appending one or two units. mark_level / is_open
   classify a code point; the phonemes are the run's own bytes (phoneme
   input) or written by the caller (text: units are patched after). */
static gk_status gk__kt_run(const unsigned char *s, size_t rb, size_t re, size_t gb, size_t gn, int forced, int ws_before,
                            int (*mark_level)(uint32_t), gk__kt_units *U, size_t *split) {
    size_t i = rb, open_at = re, last_end = rb;
    int lv = 0, prev_ws = ws_before;
    gk__kt_unit *u;
    /* find where the trailing opening marks start */
    while (i < re) {
        uint32_t cp;
        int k = gk__u_utf8_dec(s + i, re - i, &cp);
        if (k <= 0) break;
        if (gk__kt_space(cp)) prev_ws = 1;
        else {
            int opening = cp == '(' || cp == 0x201C || cp == 0xAB || cp == 0xA1 || cp == 0xBF || cp == '[' || cp == '{' ||
                          (cp == '"' && prev_ws);
            if (opening) {
                if (open_at == re) open_at = i;
            } else {
                open_at = re;
                last_end = i + (size_t)k;
            }
            prev_ws = 0;
        }
        i += (size_t)k;
    }
    /* the closing part's level */
    for (i = rb; i < last_end;) {
        uint32_t cp;
        int k = gk__u_utf8_dec(s + i, last_end - i, &cp);
        int l;
        if (k <= 0) break;
        l = mark_level(cp);
        if (l > lv) lv = l;
        i += (size_t)k;
    }
    *split = open_at;
    if (last_end > rb) {
        if (!(u = gk__kt_push(U))) return GK_ERR_OUT_OF_MEMORY;
        u->kind = GK__KT_MARK;
        u->lv = lv ? lv : 1;
        u->tb = rb;
        u->te = last_end;
        u->gb = gb;
        u->gn = gn;
        u->forced = forced;
    }
    if (open_at < re) {
        size_t ws = last_end > rb ? last_end : rb;
        if (!(u = gk__kt_push(U))) return GK_ERR_OUT_OF_MEMORY;
        u->kind = GK__KT_OPEN;
        u->tb = open_at;
        u->te = re;
        if (last_end > rb) {
            u->gb = ws;
            u->gn = open_at - ws;
        } else {
            u->gb = gb;
            u->gn = gn;
            u->forced = forced;
        }
    }
    return GK_OK;
}

static size_t gk__kt_ncp(const unsigned char *s, size_t n) {
    size_t i, c = 0;
    for (i = 0; i < n; i++) c += (s[i] & 0xC0) != 0x80;
    return c;
}
/* 1 when every byte of s[0..n) is a plain space */
static int gk__kt_spaces_only(const unsigned char *s, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        if (s[i] != ' ') return 0;
    return 1;
}

/* the marks that cut text for espeak-ng (phonemizer's default marks): 0 none, else the split level */
static int gk__kt_text_mark_level(uint32_t c) {
    int l = gk__kt_mark_level(c);
    if (l) return l;
    return c == 0xA1 || c == 0xBF || c == 0xAB || c == 0xBB || c == '[' || c == ']' || c == '{' || c == '}' ? 1 : 0;
}
static int gk__kt_digit_at(const unsigned char *s, size_t len, size_t i) { return i < len && s[i] >= '0' && s[i] <= '9'; }

/* Cuts s[0..len) into units: words (runs of other code points), runs of
   marks (split by gk__kt_run) and the whitespace and line breaks between
   them. text: the marks are phonemizer's and a . , : between ASCII digits
   stays in its word; else Kokoro's marks. Phonemes are left unset. */
static gk_status gk__kt_scan(const char *F, const unsigned char *s, size_t len, int join, int text, gk__kt_units *U) {
    int (*mark)(uint32_t) = text ? gk__kt_text_mark_level : gk__kt_mark_level;
    size_t i = 0, gb = 0, gn = 0;
    int forced = 0;
    while (i < len) {
        uint32_t cp;
        int k = gk__u_utf8_dec(s + i, len - i, &cp);
        if (k <= 0) return GK__U_ERR(GK_ERR_FORMAT, "%s: invalid UTF-8 at byte %llu (0x%02X)", F, (unsigned long long)i, s[i]);
        if (gk__kt_space(cp)) {
            size_t e;
            int f;
            gk__kt_gap(s, len, i, join, &e, &f);
            gb = i;
            gn = e - i;
            forced |= f;
            i = e;
        } else if (mark(cp)) {
            /* the run: marks and the whitespace between them, up to a line break that ends a chunk */
            size_t re = i, j = i, split;
            while (j < len) {
                uint32_t c2;
                int k2 = gk__u_utf8_dec(s + j, len - j, &c2);
                if (k2 <= 0) break;
                if (mark(c2)) {
                    j += (size_t)k2;
                    re = j;
                } else if (gk__kt_space(c2)) {
                    size_t e;
                    int f;
                    gk__kt_gap(s, len, j, join, &e, &f);
                    if (f) break;
                    j = e;
                } else
                    break;
            }
            if (gk__kt_run(s, i, re, gb, gn, forced, gn > 0 || i == 0, mark, U, &split) != GK_OK) goto oom;
            gn = 0;
            forced = 0;
            i = re;
        } else {
            size_t j = i + (size_t)k;
            gk__kt_unit *u;
            while (j < len) {
                uint32_t c2;
                int k2 = gk__u_utf8_dec(s + j, len - j, &c2);
                if (k2 <= 0 || gk__kt_space(c2)) break;
                if (mark(c2) && !(text && (c2 == '.' || c2 == ',' || c2 == ':') && gk__kt_digit_at(s, len, j - 1) &&
                                  gk__kt_digit_at(s, len, j + 1)))
                    break;
                j += (size_t)k2;
            }
            if (!(u = gk__kt_push(U))) goto oom;
            u->kind = GK__KT_WORD;
            u->tb = i;
            u->te = j;
            u->gb = gb;
            u->gn = gn;
            u->forced = forced;
            gn = 0;
            forced = 0;
            i = j;
        }
    }
    return GK_OK;
oom:
    return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", F);
}

static gk_status gk__kt_too_long(const char *F, const gk__kt_unit *u, size_t max) {
    return GK__U_ERR(GK_ERR_LIMIT, "%s: the %s at byte %llu is %llu phonemes long, above the chunk limit of %llu: it cannot be cut", F,
                     u->kind == GK__KT_WORD ? "word" : "punctuation", (unsigned long long)u->tb, (unsigned long long)u->ncp,
                     (unsigned long long)max);
}

GKLLMDEF gk_status gk_kokoro_phoneme_chunks(const gk_kokoro_chunk_desc *desc, const char *phonemes, size_t len,
                                            gk_kokoro_chunks *out) {
    const char *F = "gk_kokoro_phoneme_chunks";
    const unsigned char *s = (const unsigned char *)phonemes;
    gk__kt_units U = {NULL, 0, 0};
    size_t max, m;
    gk_status st;
    if (out) memset(out, 0, sizeof *out);
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", F);
    if (!phonemes && len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: phonemes is NULL but len is %llu", F, (unsigned long long)len);
    if ((st = gk__kt_max(F, desc, &max)) != GK_OK) return st;
    st = gk__kt_scan(F, s, len, desc && (desc->flags & GK_KOKORO_JOIN_LINES), 0, &U);
    /* the phonemes are the input's bytes; whitespace other than plain spaces is written as one space */
    for (m = 0; st == GK_OK && m < U.n; m++) {
        gk__kt_unit *u = &U.u[m];
        u->pb = u->tb;
        u->pn = u->te - u->tb;
        u->ncp = gk__kt_ncp(s + u->pb, u->pn);
        u->gsyn = u->gn && !gk__kt_spaces_only(s + u->gb, u->gn);
        if (u->ncp > max) st = gk__kt_too_long(F, u, max);
    }
    if (st == GK_OK) st = gk__kt_assemble(F, phonemes, &U, max, out);
    gk__u_free(U.u);
    if (st == GK_OK && out->n == 0)
        st = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: nothing to speak: the phonemes are %s", F,
                       len == 0 ? "empty" : "whitespace and punctuation only");
    return st;
}
