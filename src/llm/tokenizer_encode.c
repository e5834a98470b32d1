/* >>tok_encode: pre-tokenizers, BPE merges, encoding */
/* ---- encoding ---- */
typedef struct gk__tok_heap_item { uint32_t rank, pos; int32_t newid; } gk__tok_heap_item;

typedef struct gk__tok_enc {
    const gk_tokenizer *t;
    gk_ids *out;
    int32_t *sym, *prv, *nxt;
    size_t scap;
    gk__tok_heap_item *heap;
    size_t hn, hcap;
    gk_buf norm, norm2, pre;
} gk__tok_enc;

static void gk__tok_enc_free(gk__tok_enc *e) {
    gk__u_free(e->sym);
    gk__u_free(e->prv);
    gk__u_free(e->nxt);
    gk__u_free(e->heap);
    gk_buf_free(&e->norm);
    gk_buf_free(&e->norm2);
    gk_buf_free(&e->pre);
}

static int gk__tok_heap_less(const gk__tok_heap_item *a, const gk__tok_heap_item *b) {
    return a->rank < b->rank || (a->rank == b->rank && a->pos < b->pos);
}
static int gk__tok_heap_push(gk__tok_enc *e, uint32_t rank, uint32_t pos, int32_t newid) {
    size_t i;
    if (e->hn == e->hcap && !gk__u_grow((void **)&e->heap, &e->hcap, e->hn + 1, sizeof(gk__tok_heap_item))) return 0;
    i = e->hn++;
    e->heap[i].rank = rank;
    e->heap[i].pos = pos;
    e->heap[i].newid = newid;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        gk__tok_heap_item tmp;
        if (!gk__tok_heap_less(&e->heap[i], &e->heap[p])) break;
        tmp = e->heap[i]; e->heap[i] = e->heap[p]; e->heap[p] = tmp;
        i = p;
    }
    return 1;
}
static gk__tok_heap_item gk__tok_heap_pop(gk__tok_enc *e) {
    gk__tok_heap_item top = e->heap[0];
    size_t i = 0;
    e->heap[0] = e->heap[--e->hn];
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        gk__tok_heap_item tmp;
        if (l < e->hn && gk__tok_heap_less(&e->heap[l], &e->heap[m])) m = l;
        if (r < e->hn && gk__tok_heap_less(&e->heap[r], &e->heap[m])) m = r;
        if (m == i) break;
        tmp = e->heap[i]; e->heap[i] = e->heap[m]; e->heap[m] = tmp;
        i = m;
    }
    return top;
}

static int gk__tok_merge_get(const gk_tokenizer *t, int32_t a, int32_t b, uint32_t *rank, int32_t *newid) {
    uint64_t v;
    if (!gk__u_umap_get(&t->merges, ((uint64_t)(uint32_t)a << 32) | (uint32_t)b, &v)) return 0;
    *rank = (uint32_t)(v >> 32);
    *newid = (int32_t)(uint32_t)v;
    return 1;
}

#define GK__TOK_OOM_ENC GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory while encoding")

/* BPE of one pre-token */
static gk_status gk__tok_bpe(gk__tok_enc *e, const unsigned char *s, size_t n) {
    const gk_tokenizer *t = e->t;
    size_t ns = 0, i;
    int32_t *sym;
    if (!n) return GK_OK;
    if (t->ignore_merges) {
        int32_t id = t->bytelevel ? gk__u_smap_get(&t->raw, (const char *)s, n) : gk__u_smap_get(&t->vocab, (const char *)s, n);
        if (id >= 0) return gk_ids_push(e->out, id);
    }
    if (n > e->scap) {
        size_t c = e->scap;
        if (!gk__u_grow((void **)&e->sym, &c, n, sizeof(int32_t))) return GK__TOK_OOM_ENC;
        c = e->scap;
        if (!gk__u_grow((void **)&e->prv, &c, n, sizeof(int32_t))) return GK__TOK_OOM_ENC;
        c = e->scap;
        if (!gk__u_grow((void **)&e->nxt, &c, n, sizeof(int32_t))) return GK__TOK_OOM_ENC;
        e->scap = c;
    }
    sym = e->sym;
    if (t->bytelevel) {
        for (i = 0; i < n; i++) {
            int32_t id = t->byte_tok[s[i]];
            if (id >= 0) sym[ns++] = id;
            else if (t->unk_id >= 0 && !(t->fuse_unk && ns && sym[ns - 1] == t->unk_id)) sym[ns++] = t->unk_id;
        }
    } else {
        i = 0;
        while (i < n) {
            uint32_t cp;
            int k = gk__u_utf8_dec(s + i, n - i, &cp);
            size_t cl = k > 0 ? (size_t)k : 1, j;
            int32_t id = k > 0 ? gk__u_smap_get(&t->vocab, (const char *)s + i, cl) : -1;
            if (id >= 0) sym[ns++] = id;
            else {
                int ok = t->byte_fallback;
                for (j = 0; ok && j < cl; j++)
                    if (t->byte_tok[s[i + j]] < 0) ok = 0;
                if (ok) {
                    for (j = 0; j < cl; j++) sym[ns++] = t->byte_tok[s[i + j]];
                } else if (t->unk_id >= 0 && !(t->fuse_unk && ns && sym[ns - 1] == t->unk_id)) {
                    sym[ns++] = t->unk_id;
                }
            }
            i += cl;
        }
    }
    if (ns <= 1) return ns ? gk_ids_push(e->out, sym[0]) : GK_OK;
    if (ns <= 48) {
        /* short word: repeated scan for the lowest-rank (then leftmost) pair */
        for (;;) {
            uint32_t best = UINT32_MAX, r;
            size_t bi = 0;
            int32_t bnew = 0, nw;
            for (i = 0; i + 1 < ns; i++)
                if (gk__tok_merge_get(t, sym[i], sym[i + 1], &r, &nw) && r < best) {
                    best = r;
                    bi = i;
                    bnew = nw;
                }
            if (best == UINT32_MAX) break;
            sym[bi] = bnew;
            memmove(sym + bi + 1, sym + bi + 2, (ns - bi - 2) * sizeof(int32_t));
            ns--;
        }
        for (i = 0; i < ns; i++)
            if (gk_ids_push(e->out, sym[i]) != GK_OK) return GK__TOK_OOM_ENC;
        return GK_OK;
    }
    /* long word: linked list + priority queue (like HF word.rs merge_all) */
    {
        int32_t *prv = e->prv, *nxt = e->nxt;
        int32_t first = 0;
        e->hn = 0;
        for (i = 0; i < ns; i++) {
            prv[i] = (int32_t)i - 1;
            nxt[i] = (i + 1 < ns) ? (int32_t)i + 1 : -1;
        }
        for (i = 0; i + 1 < ns; i++) {
            uint32_t r;
            int32_t nw;
            if (gk__tok_merge_get(t, sym[i], sym[i + 1], &r, &nw) && !gk__tok_heap_push(e, r, (uint32_t)i, nw)) return GK__TOK_OOM_ENC;
        }
        while (e->hn) {
            gk__tok_heap_item top = gk__tok_heap_pop(e);
            int32_t p = (int32_t)top.pos, q, nw;
            uint32_t r;
            if (sym[p] < 0) continue;            /* removed */
            q = nxt[p];
            if (q < 0) continue;
            if (!gk__tok_merge_get(t, sym[p], sym[q], &r, &nw) || nw != top.newid) continue;
            sym[p] = top.newid;
            sym[q] = -1;
            nxt[p] = nxt[q];
            if (nxt[q] >= 0) prv[nxt[q]] = p;
            if (prv[p] >= 0 && gk__tok_merge_get(t, sym[prv[p]], sym[p], &r, &nw) && !gk__tok_heap_push(e, r, (uint32_t)prv[p], nw))
                return GK__TOK_OOM_ENC;
            if (nxt[p] >= 0 && gk__tok_merge_get(t, sym[p], sym[nxt[p]], &r, &nw) && !gk__tok_heap_push(e, r, (uint32_t)p, nw))
                return GK__TOK_OOM_ENC;
        }
        {
            int32_t q;
            for (q = first; q >= 0; q = nxt[q])
                if (gk_ids_push(e->out, sym[q]) != GK_OK) return GK__TOK_OOM_ENC;
        }
    }
    return GK_OK;
}

/* character class at s[i] for the scanners: L, N, WS or OTHER (marks,
   punctuation, symbols and invalid bytes are OTHER) */
static int gk__tok_scls(const unsigned char *s, size_t n, size_t i, size_t *len) {
    unsigned c = s[i];
    uint32_t cp;
    int k, cl;
    if (c < 0x80) {
        *len = 1;
        if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return GK__UNI_L;
        if (c >= '0' && c <= '9') return GK__UNI_N;
        if (c == ' ' || (c >= 9 && c <= 13)) return GK__UNI_WS;
        return GK__UNI_OTHER;
    }
    k = gk__u_utf8_dec(s + i, n - i, &cp);
    if (k <= 0) { *len = 1; return GK__UNI_OTHER; }
    *len = (size_t)k;
    cl = gk__uni_class(cp);
    return cl == GK__UNI_M ? GK__UNI_OTHER : cl;
}

/* 's 't 're 've 'm 'll 'd at s[i]=='\''; returns match length or 0 */
static size_t gk__tok_contraction(const unsigned char *s, size_t n, size_t i, int ci) {
    unsigned a, b;
    if (i + 1 >= n) return 0;
    a = s[i + 1];
    if (ci && a >= 'A' && a <= 'Z') a |= 0x20;
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
    if (ci && a == 0xC5 && i + 2 < n && s[i + 2] == 0xBF) return 3; /* U+017F LONG S folds to 's' */
    if (i + 2 >= n) return 0;
    b = s[i + 2];
    if (ci && b >= 'A' && b <= 'Z') b |= 0x20;
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
    return 0;
}

static gk_status gk__tok_stage(gk__tok_enc *e, size_t k, const unsigned char *s, size_t n);

static gk_status gk__tok_scan(gk__tok_enc *e, size_t k, const unsigned char *s, size_t n, int mode) {
    size_t i = 0;
    gk_status st;
    while (i < n) {
        size_t l0, end, j, l;
        int k0 = gk__tok_scls(s, n, i, &l0);
        unsigned c0 = s[i];
        if (c0 == '\'') {
            size_t m = gk__tok_contraction(s, n, i, mode != GK__TOK_SCAN_GPT2);
            if (m) { end = i + m; goto emit; }
        }
        if (mode == GK__TOK_SCAN_GPT2) {
            j = (c0 == ' ') ? i + 1 : i;
            if (j < n) {
                int kj = gk__tok_scls(s, n, j, &l);
                if (kj != GK__UNI_WS) {
                    end = j + l;
                    while (end < n && gk__tok_scls(s, n, end, &l) == kj) end += l;
                    goto emit;
                }
            }
        } else {
            if (k0 == GK__UNI_L) {
                end = i + l0;
                while (end < n && gk__tok_scls(s, n, end, &l) == GK__UNI_L) end += l;
                goto emit;
            }
            if (k0 != GK__UNI_N && c0 != '\r' && c0 != '\n' && i + l0 < n && gk__tok_scls(s, n, i + l0, &l) == GK__UNI_L) {
                end = i + l0 + l;
                while (end < n && gk__tok_scls(s, n, end, &l) == GK__UNI_L) end += l;
                goto emit;
            }
            if (k0 == GK__UNI_N) {
                int cnt = 1, maxd = mode == GK__TOK_SCAN_LLAMA3 ? 3 : 1;
                end = i + l0;
                while (cnt < maxd && end < n && gk__tok_scls(s, n, end, &l) == GK__UNI_N) { end += l; cnt++; }
                goto emit;
            }
            j = (c0 == ' ') ? i + 1 : i;
            if (j < n && gk__tok_scls(s, n, j, &l) == GK__UNI_OTHER) {
                end = j + l;
                while (end < n && gk__tok_scls(s, n, end, &l) == GK__UNI_OTHER) end += l;
                while (end < n && (s[end] == '\r' || s[end] == '\n')) end++;
                goto emit;
            }
        }
        /* whitespace run at i */
        {
            size_t run = i, last_start = i, last_nl = (size_t)-1;
            while (run < n && gk__tok_scls(s, n, run, &l) == GK__UNI_WS) {
                if (s[run] == '\r' || s[run] == '\n') last_nl = run;
                last_start = run;
                run += l;
            }
            if (run == i) { end = i + l0; goto emit; } /* cannot happen; keeps progress */
            if (mode != GK__TOK_SCAN_GPT2 && last_nl != (size_t)-1) { end = last_nl + 1; goto emit; }
            end = (run == n || last_start == i) ? run : last_start;
        }
    emit:
        if ((st = gk__tok_stage(e, k + 1, s + i, end - i)) != GK_OK) return st;
        i = end;
    }
    return GK_OK;
}

static gk_status gk__tok_stage(gk__tok_enc *e, size_t k, const unsigned char *s, size_t n) {
    const gk_tokenizer *t = e->t;
    if (!n) return GK_OK;
    if (k >= t->nscan) return gk__tok_bpe(e, s, n);
    if (t->scan[k] == GK__TOK_SCAN_META) {
        size_t i, start = 0, rl = t->meta_repl_len;
        gk_status st;
        for (i = 1; i + rl <= n; i++)
            if (memcmp(s + i, t->meta_repl, rl) == 0) {
                if ((st = gk__tok_stage(e, k + 1, s + start, i - start)) != GK_OK) return st;
                start = i;
            }
        return gk__tok_stage(e, k + 1, s + start, n - start);
    }
    return gk__tok_scan(e, k, s, n, t->scan[k]);
}

/* pre-tokenizer transforms, then splits and BPE */
static gk_status gk__tok_pretok(gk__tok_enc *e, const unsigned char *s, size_t n, int first) {
    const gk_tokenizer *t = e->t;
    gk_status st;
    if (!n) return GK_OK;
    if (t->prefix_space && s[0] != ' ') {
        e->pre.len = 0;
        if ((st = gk_buf_append(&e->pre, " ", 1)) != GK_OK || (st = gk_buf_append(&e->pre, s, n)) != GK_OK) return st;
        s = (const unsigned char *)e->pre.data;
        n = e->pre.len;
    } else if (t->meta) {
        size_t i;
        int pre = t->meta_prepend == 1 || (t->meta_prepend == 2 && first);
        e->pre.len = 0;
        if (pre && !(s[0] == ' ' || (n >= t->meta_repl_len && memcmp(s, t->meta_repl, t->meta_repl_len) == 0)))
            if ((st = gk_buf_append(&e->pre, t->meta_repl, t->meta_repl_len)) != GK_OK) return st;
        for (i = 0; i < n; i++) {
            st = s[i] == ' ' ? gk_buf_append(&e->pre, t->meta_repl, t->meta_repl_len) : gk_buf_append(&e->pre, s + i, 1);
            if (st != GK_OK) return st;
        }
        s = (const unsigned char *)e->pre.data;
        n = e->pre.len;
    }
    return gk__tok_stage(e, 0, s, n);
}

static int gk__tok_is_ws_char(const unsigned char *s, size_t n, size_t i, size_t *len) {
    return gk__tok_scls(s, n, i, len) == GK__UNI_WS;
}
static int gk__tok_is_word_at(const unsigned char *s, size_t n, size_t i) {
    size_t l;
    int c = gk__tok_scls(s, n, i, &l);
    uint32_t cp;
    if (c == GK__UNI_L || c == GK__UNI_N || s[i] == '_') return 1;
    if (s[i] >= 0x80 && gk__u_utf8_dec(s + i, n - i, &cp) > 0 && gk__uni_class(cp) == GK__UNI_M) return 1;
    return 0;
}

/* next added-token match in s[from..n); (ms, me) include lstrip/rstrip whitespace */
static int gk__tok_find_added(const gk_tokenizer *t, const unsigned char *s, size_t n, size_t from, int want_norm, int skip_special,
                          size_t *ms, size_t *me, uint32_t *idx) {
    size_t i;
    for (i = from; i < n; i++) {
        uint32_t a0 = t->added_start[s[i]], a1 = t->added_start[s[i] + 1], x;
        for (x = a0; x < a1; x++) {
            const gk__tok_added *ad = &t->added[t->added_by_byte[x]];
            size_t st, en, l;
            if ((int)ad->normalized != want_norm || (skip_special && ad->special)) continue;
            if (ad->len > n - i || memcmp(s + i, ad->content, ad->len) != 0) continue;
            st = i;
            en = i + ad->len;
            if (ad->single_word) {
                size_t b = i;
                if (b > 0) {
                    b--;
                    while (b > 0 && (s[b] & 0xC0) == 0x80) b--;
                    if (gk__tok_is_word_at(s, n, b)) continue;
                }
                if (en < n && gk__tok_is_word_at(s, n, en)) continue;
            }
            if (ad->lstrip)
                while (st > from) {
                    size_t b = st - 1;
                    while (b > from && (s[b] & 0xC0) == 0x80) b--;
                    if (!gk__tok_is_ws_char(s, n, b, &l) || b + l != st) break;
                    st = b;
                }
            if (ad->rstrip)
                while (en < n && gk__tok_is_ws_char(s, n, en, &l)) en += l;
            *ms = st;
            *me = en;
            *idx = t->added_by_byte[x];
            return 1;
        }
    }
    return 0;
}

static gk_status gk__tok_normalize(gk__tok_enc *e, const unsigned char *s, size_t n, const unsigned char **out, size_t *outn) {
    const gk_tokenizer *t = e->t;
    size_t k;
    gk_status st = GK_OK;
    gk_buf *cur = NULL, *nxt = &e->norm;
    /* A hostile tokenizer.json can chain Replace steps that each multiply the
       text (fuzz_json found 2 KB of JSON asking for 4 GiB). Models' own
       normalizers grow text a few times at most, so past 64x + 1 MiB this is an
       error, not an allocation. */
    size_t cap = (n > ((size_t)-1 - ((size_t)1 << 20)) / 64 ? (size_t)-1 : 64 * n + ((size_t)1 << 20));
    for (k = 0; k < t->nnorm; k++) {
        const gk__tok_op *op = &t->norm[k];
        const unsigned char *p = cur ? (const unsigned char *)cur->data : s;
        size_t pn = cur ? cur->len : n;
        nxt->len = 0;
        if (op->kind == GK__TOK_NORM_NFC) st = gk__uni_nfc(p, pn, nxt);
        else if (op->kind == GK__TOK_NORM_PREPEND) {
            if (pn) st = gk_buf_append(nxt, op->a, op->alen);
            if (st == GK_OK) st = gk_buf_append(nxt, p, pn);
        } else { /* replace */
            size_t i = 0, run = 0;
            while (st == GK_OK && i + op->alen <= pn && nxt->len <= cap) {
                if (memcmp(p + i, op->a, op->alen) == 0) {
                    st = gk_buf_append(nxt, p + run, i - run);
                    if (st == GK_OK) st = gk_buf_append(nxt, op->b, op->blen);
                    i += op->alen;
                    run = i;
                } else i++;
            }
            if (st == GK_OK && nxt->len <= cap) st = gk_buf_append(nxt, p + run, pn - run);
        }
        if (st != GK_OK) return st;
        if (nxt->len > cap)
            return GK__U_ERR(GK_ERR_LIMIT, "tokenizer: normalizer step %llu grew %llu bytes of text past %llu (64x + 1 MiB); the tokenizer.json normalizers are not a model's",
                             (unsigned long long)k, (unsigned long long)n, (unsigned long long)cap);
        cur = nxt;
        nxt = (cur == &e->norm) ? &e->norm2 : &e->norm;
    }
    *out = cur ? (const unsigned char *)(cur->data ? cur->data : "") : s;
    *outn = cur ? cur->len : n;
    return GK_OK;
}

static gk_status gk__tok_segment(gk__tok_enc *e, const unsigned char *s, size_t n, int first, int skip_special) {
    const gk_tokenizer *t = e->t;
    const unsigned char *p = NULL;
    size_t pn = 0, pos = 0, ms, me;
    uint32_t idx;
    gk_status st;
    if ((st = gk__tok_normalize(e, s, n, &p, &pn)) != GK_OK) return st;
    if (!t->has_normalized_added) return gk__tok_pretok(e, p, pn, first);
    for (;;) {
        int found = gk__tok_find_added(t, p, pn, pos, 1, skip_special, &ms, &me, &idx);
        size_t end = found ? ms : pn;
        if (end > pos && (st = gk__tok_pretok(e, p + pos, end - pos, first && pos == 0)) != GK_OK) return st;
        if (!found) break;
        if ((st = gk_ids_push(e->out, t->added[idx].id)) != GK_OK) return st;
        pos = me;
    }
    return GK_OK;
}

GKLLMDEF gk_status gk_tokenizer_encode(const gk_tokenizer *t, const char *text, size_t len, unsigned flags, gk_ids *out) {
    gk__tok_enc e;
    const unsigned char *s = (const unsigned char *)text;
    size_t pos = 0, i, ms, me;
    uint32_t idx;
    gk_status st = GK_OK;
    int skip_special = (flags & GK_TOK_SPLIT_SPECIAL) != 0;
    if (!t) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_encode: tok is NULL");
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_encode: out is NULL");
    if (!text && len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_encode: text is NULL but len is %llu", (unsigned long long)len);
    if (flags & ~(unsigned)(GK_TOK_ADD_SPECIAL | GK_TOK_SPLIT_SPECIAL))
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_encode: flags 0x%x has bits that are not encode flags (GK_TOK_ADD_SPECIAL, GK_TOK_SPLIT_SPECIAL)", flags);
    memset(&e, 0, sizeof e);
    e.t = t;
    e.out = out;
    if (flags & GK_TOK_ADD_SPECIAL)
        for (i = 0; i < t->npre && st == GK_OK; i++) st = gk_ids_push(out, t->pre[i]);
    while (st == GK_OK) {
        int found = t->nadded && gk__tok_find_added(t, s, len, pos, 0, skip_special, &ms, &me, &idx);
        size_t end = found ? ms : len;
        if (end > pos && (st = gk__tok_segment(&e, s + pos, end - pos, pos == 0, skip_special)) != GK_OK) break;
        if (!found) break;
        if ((st = gk_ids_push(out, t->added[idx].id)) != GK_OK) break;
        pos = me;
    }
    if (st == GK_OK && (flags & GK_TOK_ADD_SPECIAL))
        for (i = 0; i < t->npost && st == GK_OK; i++) st = gk_ids_push(out, t->post[i]);
    gk__tok_enc_free(&e);
    return st;
}

