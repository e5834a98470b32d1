/* >>tok_decode: decoding, streaming decode */
/* ---- decoding ---- */
/* A list of strings held in one buffer (the HF decoder chain works on token lists). */
typedef struct gk__u_strv { gk_buf b; size_t *off, *len; size_t n, cap; } gk__u_strv;
static void gk__u_strv_free(gk__u_strv *v) { gk_buf_free(&v->b); gk__u_free(v->off); gk__u_free(v->len); memset(v, 0, sizeof *v); }
static gk_status gk__u_strv_begin(gk__u_strv *v) {
    if (v->n == v->cap) {
        size_t c = v->cap;
        if (!gk__u_grow((void **)&v->off, &c, v->n + 1, sizeof(size_t))) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
        c = v->cap;
        if (!gk__u_grow((void **)&v->len, &c, v->n + 1, sizeof(size_t))) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
        v->cap = c;
    }
    v->off[v->n] = v->b.len;
    v->len[v->n] = 0;
    v->n++;
    return GK_OK;
}
static gk_status gk__u_strv_add(gk__u_strv *v, const void *p, size_t n) { /* append to the last string */
    gk_status s = gk_buf_append(&v->b, p, n);
    if (s == GK_OK) v->len[v->n - 1] += n;
    return s;
}
static const unsigned char *gk__u_strv_at(const gk__u_strv *v, size_t i) {
    return v->b.data ? (const unsigned char *)v->b.data + v->off[i] : (const unsigned char *)"";
}

/* raw bytes of a token under the ByteLevel decoder */
static gk_status gk__tok_bl_token_bytes(const unsigned char *p, size_t n, gk_buf *out) {
    size_t j = 0, start = out->len;
    while (j < n) {
        uint32_t cp;
        int k = gk__u_utf8_dec(p + j, n - j, &cp), b;
        unsigned char bb;
        gk_status s;
        if (k <= 0 || (b = gk__tok_bl_byte(cp)) < 0) { /* not a mapped token: its text as is */
            out->len = start;
            return gk_buf_append(out, p, n);
        }
        bb = (unsigned char)b;
        if ((s = gk_buf_append(out, &bb, 1)) != GK_OK) return s;
        j += (size_t)k;
    }
    return GK_OK;
}

static gk_status gk__tok_replace_into(gk__u_strv *dst, const unsigned char *p, size_t n, const gk__tok_op *op) {
    size_t i = 0, run = 0;
    gk_status s = GK_OK;
    while (s == GK_OK && i + op->alen <= n) {
        if (memcmp(p + i, op->a, op->alen) == 0) {
            s = gk__u_strv_add(dst, p + run, i - run);
            if (s == GK_OK) s = gk__u_strv_add(dst, op->b, op->blen);
            i += op->alen;
            run = i;
        } else i++;
    }
    return s == GK_OK ? gk__u_strv_add(dst, p + run, n - run) : s;
}

static gk_status gk__tok_dec_op(const gk__tok_op *op, const gk__u_strv *in, gk__u_strv *out) {
    size_t i, j;
    gk_status s = GK_OK;
    switch (op->kind) {
    case GK__TOK_DOP_BYTELEVEL: {
        gk_buf raw = {NULL, 0, 0};
        for (i = 0; i < in->n && s == GK_OK; i++) s = gk__tok_bl_token_bytes(gk__u_strv_at(in, i), in->len[i], &raw);
        if (s == GK_OK) s = gk__u_strv_begin(out);
        if (s == GK_OK) {
            size_t before = out->b.len;
            s = gk__u_append_lossy(&out->b, (const unsigned char *)(raw.data ? raw.data : ""), raw.len);
            out->len[out->n - 1] = out->b.len - before;
        }
        gk_buf_free(&raw);
        return s;
    }
    case GK__TOK_DOP_REPLACE:
        for (i = 0; i < in->n && s == GK_OK; i++) {
            s = gk__u_strv_begin(out);
            if (s == GK_OK) s = gk__tok_replace_into(out, gk__u_strv_at(in, i), in->len[i], op);
        }
        return s;
    case GK__TOK_DOP_BYTEFALLBACK:
        i = 0;
        while (i < in->n && s == GK_OK) {
            int b = gk__tok_fallback_byte((const char *)gk__u_strv_at(in, i), in->len[i]);
            if (b < 0) {
                s = gk__u_strv_begin(out);
                if (s == GK_OK) s = gk__u_strv_add(out, gk__u_strv_at(in, i), in->len[i]);
                i++;
                continue;
            }
            {
                unsigned char bytes[256];
                size_t nb = 0, q = 0;
                int valid = 1;
                while (i < in->n && nb < sizeof bytes && (b = gk__tok_fallback_byte((const char *)gk__u_strv_at(in, i), in->len[i])) >= 0) {
                    bytes[nb++] = (unsigned char)b;
                    i++;
                }
                while (q < nb) {
                    uint32_t cp;
                    int k = gk__u_utf8_dec(bytes + q, nb - q, &cp);
                    if (k <= 0) { valid = 0; break; }
                    q += (size_t)k;
                }
                s = gk__u_strv_begin(out);
                if (valid) { if (s == GK_OK) s = gk__u_strv_add(out, bytes, nb); }
                else for (j = 0; j < nb && s == GK_OK; j++) s = gk__u_strv_add(out, "\xEF\xBF\xBD", 3);
            }
        }
        return s;
    case GK__TOK_DOP_FUSE:
        s = gk__u_strv_begin(out);
        for (i = 0; i < in->n && s == GK_OK; i++) s = gk__u_strv_add(out, gk__u_strv_at(in, i), in->len[i]);
        return s;
    case GK__TOK_DOP_STRIP:
        for (i = 0; i < in->n && s == GK_OK; i++) {
            const unsigned char *p = gk__u_strv_at(in, i);
            size_t a = 0, e = in->len[i], k;
            for (k = 0; k < op->start && e - a >= op->alen && memcmp(p + a, op->a, op->alen) == 0; k++) a += op->alen;
            for (k = 0; k < op->stop && e - a >= op->alen && memcmp(p + e - op->alen, op->a, op->alen) == 0; k++) e -= op->alen;
            s = gk__u_strv_begin(out);
            if (s == GK_OK) s = gk__u_strv_add(out, p + a, e - a);
        }
        return s;
    case GK__TOK_DOP_METASPACE: {
        gk__tok_op rep;
        memset(&rep, 0, sizeof rep);
        rep.a = op->a;
        rep.alen = op->alen;
        rep.b = (char *)" ";
        rep.blen = 1;
        for (i = 0; i < in->n && s == GK_OK; i++) {
            size_t before;
            s = gk__u_strv_begin(out);
            before = out->b.len;
            if (s == GK_OK) s = gk__tok_replace_into(out, gk__u_strv_at(in, i), in->len[i], &rep);
            if (s == GK_OK && i == 0 && op->prepend && out->len[out->n - 1] && out->b.data[before] == ' ') {
                memmove(out->b.data + before, out->b.data + before + 1, out->len[out->n - 1] - 1);
                out->len[out->n - 1]--;
                out->b.len--;
            }
        }
        return s;
    }
    }
    return GK__U_ERR(GK_ERR_UNSUPPORTED, "unknown decoder op");
}

static gk_status gk__tok_text(const gk_tokenizer *t, int32_t id, const char **p, size_t *n) {
    if (id < 0 || (size_t)id >= t->nid || t->tok_off[id] == (size_t)-1) {
        if (!t->nid) return GK__U_ERR(GK_ERR_NOT_FOUND, "decode: token id %ld is not in the vocabulary (it is empty)", (long)id);
        if (id < 0 || (size_t)id >= t->nid)
            return GK__U_ERR(GK_ERR_NOT_FOUND, "decode: token id %ld is not in the vocabulary (ids 0..%llu)", (long)id, (unsigned long long)(t->nid - 1));
        return GK__U_ERR(GK_ERR_NOT_FOUND, "decode: token id %ld is not in the vocabulary (no token has this id)", (long)id);
    }
    *p = t->pool.data + t->tok_off[id];
    *n = t->tok_len[id];
    return GK_OK;
}

GKLLMDEF gk_status gk_tokenizer_decode(const gk_tokenizer *t, const int32_t *ids, size_t n, unsigned flags, gk_buf *out) {
    gk__u_strv a, b;
    size_t i, k;
    gk_status s = GK_OK;
    if (!t) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_decode: tok is NULL");
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_decode: out is NULL");
    if (!ids && n) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_decode: ids is NULL but n is %llu", (unsigned long long)n);
    if (flags & ~(unsigned)GK_TOK_SKIP_SPECIAL)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_decode: flags 0x%x has bits that are not decode flags (GK_TOK_SKIP_SPECIAL)", flags);
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    for (i = 0; i < n && s == GK_OK; i++) {
        const char *p;
        size_t l;
        if ((s = gk__tok_text(t, ids[i], &p, &l)) != GK_OK) break;
        if ((flags & GK_TOK_SKIP_SPECIAL) && t->special[ids[i]]) continue;
        s = gk__u_strv_begin(&a);
        if (s == GK_OK) s = gk__u_strv_add(&a, p, l);
    }
    for (k = 0; k < t->ndec && s == GK_OK; k++) {
        gk__u_strv tmp;
        b.n = 0;
        b.b.len = 0;
        s = gk__tok_dec_op(&t->dec[k], &a, &b);
        tmp = a; a = b; b = tmp;
    }
    for (i = 0; i < a.n && s == GK_OK; i++) {
        if (!t->has_decoder && i && (s = gk_buf_append(out, " ", 1)) != GK_OK) break;
        s = gk__u_append_lossy(out, gk__u_strv_at(&a, i), a.len[i]);
    }
    gk__u_strv_free(&a);
    gk__u_strv_free(&b);
    return s;
}

/* ---- streaming decode ---- */
GKLLMDEF void gk_tok_stream_init(gk_tok_stream *s, const gk_tokenizer *tok, unsigned flags) {
    if (!s) return; /* nothing to report to: gk_tok_stream_push names a NULL stream */
    memset(s, 0, sizeof *s);
    s->tok = tok;
    s->flags = flags;
    s->at_start = 1;
}

/* emit text that is final, applying a leading Strip that follows Fuse */
static gk_status gk__tok_stream_emit(gk_tok_stream *s, const unsigned char *p, size_t n, gk_buf *out) {
    const gk_tokenizer *t = s->tok;
    size_t k;
    if (!n) return GK_OK;
    if (s->at_start) {
        for (k = 1; k < t->ndec; k++)
            if (t->dec[k].kind == GK__TOK_DOP_STRIP && t->dec[k - 1].kind == GK__TOK_DOP_FUSE) {
                while (s->nstripped < t->dec[k].start && n >= t->dec[k].alen && memcmp(p, t->dec[k].a, t->dec[k].alen) == 0) {
                    p += t->dec[k].alen;
                    n -= t->dec[k].alen;
                    s->nstripped++;
                }
            }
        if (!n) return GK_OK;
        s->at_start = 0;
    }
    return gk_buf_append(out, p, n);
}

/* move complete characters from pend to out; invalid sequences become U+FFFD */
static gk_status gk__tok_stream_drain(gk_tok_stream *s, gk_buf *out, int final) {
    gk_status st = GK_OK;
    while (s->npend && st == GK_OK) {
        uint32_t cp;
        int k = gk__u_utf8_dec(s->pend, s->npend, &cp);
        size_t used;
        if (k > 0) {
            st = gk__tok_stream_emit(s, s->pend, (size_t)k, out);
            used = (size_t)k;
        } else if (cp == 0xFFFFFFFEu && !final) {
            break; /* unfinished character: wait */
        } else {
            if (s->pend_is_fallback) { /* HF ByteFallback: one U+FFFD per byte */
                size_t q;
                for (q = 0; q < s->npend && st == GK_OK; q++) st = gk__tok_stream_emit(s, (const unsigned char *)"\xEF\xBF\xBD", 3, out);
                used = s->npend;
            } else {
                st = gk__tok_stream_emit(s, (const unsigned char *)"\xEF\xBF\xBD", 3, out);
                used = (size_t)(-k);
            }
        }
        memmove(s->pend, s->pend + used, s->npend - used);
        s->npend -= used;
    }
    return st;
}

static gk_status gk__tok_stream_bytes(gk_tok_stream *s, const unsigned char *p, size_t n, int fallback, gk_buf *out) {
    size_t i;
    gk_status st = GK_OK;
    if (s->npend && s->pend_is_fallback != fallback) st = gk__tok_stream_drain(s, out, 1);
    s->pend_is_fallback = fallback;
    for (i = 0; i < n && st == GK_OK; i++) {
        if (s->npend == sizeof s->pend) st = gk__tok_stream_drain(s, out, 1);
        s->pend[s->npend++] = p[i];
        st = gk__tok_stream_drain(s, out, 0);
    }
    return st;
}

GKLLMDEF gk_status gk_tok_stream_push(gk_tok_stream *s, int32_t id, gk_buf *out) {
    const gk_tokenizer *t;
    const char *p;
    size_t n, k;
    gk_status st;
    gk__u_strv a, b;
    if (!s) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tok_stream_push: s is NULL");
    if (!s->tok) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tok_stream_push: s->tok is NULL (gk_tok_stream_init was given no tokenizer)");
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tok_stream_push: out is NULL");
    if (s->flags & ~(unsigned)GK_TOK_SKIP_SPECIAL)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tok_stream_push: the stream's flags 0x%x have bits that are not decode flags (GK_TOK_SKIP_SPECIAL)", s->flags);
    t = s->tok;
    if ((st = gk__tok_text(t, id, &p, &n)) != GK_OK) return st;
    if ((s->flags & GK_TOK_SKIP_SPECIAL) && t->special[id]) return GK_OK;
    if (!t->has_decoder) {
        if (s->ntok++ && (st = gk__tok_stream_bytes(s, (const unsigned char *)" ", 1, 0, out)) != GK_OK) return st;
        return gk__tok_stream_bytes(s, (const unsigned char *)p, n, 0, out);
    }
    /* run the per-token part of the chain on this one token */
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    st = gk__u_strv_begin(&a);
    if (st == GK_OK) st = gk__u_strv_add(&a, p, n);
    for (k = 0; k < t->ndec && st == GK_OK; k++) {
        const gk__tok_op *op = &t->dec[k];
        gk__u_strv tmp;
        if (op->kind == GK__TOK_DOP_BYTELEVEL) {
            gk_buf raw = {NULL, 0, 0};
            size_t i;
            for (i = 0; i < a.n && st == GK_OK; i++) st = gk__tok_bl_token_bytes(gk__u_strv_at(&a, i), a.len[i], &raw);
            if (st == GK_OK) st = gk__tok_stream_bytes(s, (const unsigned char *)(raw.data ? raw.data : ""), raw.len, 0, out);
            gk_buf_free(&raw);
            a.n = 0;
            break;
        }
        if (op->kind == GK__TOK_DOP_BYTEFALLBACK) {
            int byte = a.n == 1 ? gk__tok_fallback_byte((const char *)gk__u_strv_at(&a, 0), a.len[0]) : -1;
            if (byte >= 0) {
                unsigned char bb = (unsigned char)byte;
                st = gk__tok_stream_bytes(s, &bb, 1, 1, out);
                a.n = 0;
                break;
            }
            continue;
        }
        if (op->kind == GK__TOK_DOP_FUSE) continue;
        if (op->kind == GK__TOK_DOP_STRIP && k > 0 && t->dec[k - 1].kind == GK__TOK_DOP_FUSE) continue; /* done in emit */
        if (op->kind == GK__TOK_DOP_METASPACE && s->ntok != 0) {
            gk__tok_op o2 = *op;
            o2.prepend = 0;
            b.n = 0; b.b.len = 0;
            st = gk__tok_dec_op(&o2, &a, &b);
        } else {
            b.n = 0; b.b.len = 0;
            st = gk__tok_dec_op(op, &a, &b);
        }
        tmp = a; a = b; b = tmp;
    }
    if (st == GK_OK && a.n) {
        size_t i;
        for (i = 0; i < a.n && st == GK_OK; i++) st = gk__tok_stream_bytes(s, gk__u_strv_at(&a, i), a.len[i], 0, out);
    }
    s->ntok++;
    gk__u_strv_free(&a);
    gk__u_strv_free(&b);
    return st;
}

GKLLMDEF gk_status gk_tok_stream_flush(gk_tok_stream *s, gk_buf *out) {
    if (!s) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tok_stream_flush: s is NULL");
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tok_stream_flush: out is NULL");
    return gk__tok_stream_drain(s, out, 1);
}

