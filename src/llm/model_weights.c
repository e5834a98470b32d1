/* >>model_weights: weights: names, shapes, upload */
/* ---- weights ---- */
typedef struct gk__llm_want { char name[96]; int ndim; int64_t shape[2]; gk_tensor *dst; int64_t layer; } gk__llm_want;

static void gk__llm_want_add(gk__llm_want *w, int *n, gk_tensor *dst, int64_t l, const char *fmt, int ndim, int64_t d0, int64_t d1) {
    if (l >= 0) snprintf(w[*n].name, sizeof w[*n].name, fmt, (long long)l);
    else snprintf(w[*n].name, sizeof w[*n].name, "%s", fmt);
    w[*n].ndim = ndim; w[*n].shape[0] = d0; w[*n].shape[1] = d1; w[*n].dst = dst; w[*n].layer = l;
    (*n)++;
}

typedef struct gk__llm_prog { gk_st_progress_fn fn; void *user; uint64_t base, total, cur; } gk__llm_prog;
/* one tensor's progress (in its stored bytes) as a share of its bytes on the device */
static void gk__llm_prog_cb(uint64_t done, uint64_t total, void *user) {
    gk__llm_prog *p = (gk__llm_prog *)user;
    if (p->fn) p->fn(p->base + (total ? (uint64_t)((double)done / (double)total * (double)p->cur) : p->cur), p->total, p->user);
}

static void gk__llm_free_t(gk_ctx *ctx, gk_tensor *t) {
    if (t->id) gk_tensor_free(ctx, *t);
    *t = gk__u_tnull();
}

GKLLMDEF void gk_llm_free(gk_llm *m) {
    int64_t l;
    int i;
    gk_ctx *ctx;
    if (!m) return;
    ctx = m->ctx;
    if (m->stream) gk_stream_sync(ctx, m->stream);
    if (m->graphs)
        for (i = 0; i < 2 * (m->max_seqs + 1) * m->nbucket; i++)
            if (m->graphs[i]) gk_graph_destroy(ctx, m->graphs[i]);
    if (m->L)
        for (l = 0; l < m->cfg.layers; l++) {
            gk__llm_layer *y = &m->L[l];
            gk_tensor *ts[17] = { &y->ln1, &y->ln2, &y->wqkv, &y->bqkv, &y->wq, &y->wk, &y->wv, &y->bq, &y->bk, &y->bv, &y->wo, &y->bo,
                                  &y->qn, &y->kn, &y->wgu, &y->wdown, &y->kv };
            for (i = 0; i < 17; i++) gk__llm_free_t(ctx, ts[i]);
        }
    if (m->lm_head.id == m->embed.id) m->lm_head = gk__u_tnull();
    {
        gk_tensor *ts[20] = { &m->embed, &m->lm_head, &m->norm, &m->cos_tab, &m->sin_tab, &m->d_tok, &m->d_pos, &m->d_kvl, &m->d_one,
                              &m->d_hist, &m->a_h, &m->a_h2, &m->a_x, &m->a_qkv, &m->a_q, &m->a_k, &m->a_v, &m->a_att, &m->a_gu, &m->a_act };
        for (i = 0; i < 20; i++) gk__llm_free_t(ctx, ts[i]);
        gk__llm_free_t(ctx, &m->a_logits);
    }
    if (m->stream) gk_stream_destroy(ctx, m->stream);
    if (m->tok) gk_tokenizer_free(m->tok);
    gk__u_free(m->L); gk__u_free(m->len); gk__u_free(m->graphs); gk__u_free(m->gwarm); gk__u_free(m->h_tok); gk__u_free(m->h_pos);
    gk__u_free(m);
}

static gk_status gk__llm_read_json(gk_ctx *ctx, const char *dir, const char *file, int optional, gk_json **out) {
    char path[4096];
    gk_status s;
    gk__u_tl sv;
    FILE *f;
    *out = NULL;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (optional) {
        if (!(f = fopen(path, "rb"))) return GK_OK;
        fclose(f);
    }
    gk__u_tl_save(&sv);
    s = gk_json_parse_file(path, NULL, out);
    if (s != GK_OK) return gk__u_tl_move(ctx, &sv, s, "gk_llm_load: ");
    return GK_OK;
}

/* a context-free part failed: "gk_llm_load: <dir>/<file>: its message" to ctx ("tokenizer_config.json: " in it becomes the path) */
static gk_status gk__llm_move_file(gk_ctx *ctx, const gk__u_tl *sv, gk_status st, const char *path, const char *label) {
    char msg[GK__U_ERRSAVE], pre[4200];
    size_t ll = strlen(label);
    gk__u_errcopy(msg, sizeof msg);
    if (strncmp(msg, path, strlen(path)) == 0) return gk__u_tl_move(ctx, sv, st, "gk_llm_load: ");
    if (strncmp(msg, label, ll) == 0 && (msg[ll] == ':' || msg[ll] == ' ')) { /* the part named the file by its base name */
        gk_error_set(NULL, st, "gk_llm_load: %.4000s%.2000s", path, msg + ll);
        return gk__u_tl_move(ctx, sv, st, "");
    }
    snprintf(pre, sizeof pre, "gk_llm_load: %.4000s: ", path);
    return gk__u_tl_move(ctx, sv, st, pre);
}

/* tokenizer.json, and the chat template from tokenizer_config.json or chat_template.jinja */
static gk_status gk__llm_load_tokenizer(gk_llm *m, const char *dir) {
    char path[4096], cpath[4096];
    gk_json *tc = NULL;
    gk_status s;
    gk__u_tl sv; /* the context-free parts' errors go to m->ctx (doc.txt, ERRORS) */
    gk__u_tl_save(&sv);
    snprintf(path, sizeof path, "%s/tokenizer.json", dir);
    s = gk_tokenizer_load(path, &m->tok);
    if (s != GK_OK) return gk__u_tl_move(m->ctx, &sv, s, "gk_llm_load: ");
    snprintf(cpath, sizeof cpath, "%s/tokenizer_config.json", dir);
    if ((s = gk__llm_read_json(m->ctx, dir, "tokenizer_config.json", 1, &tc)) != GK_OK) return s;
    if (tc && gk_json_typeof(gk_json_root(tc)) != GK_JSON_OBJECT) {
        gk_json_free(tc);
        return gk_error_set(m->ctx, GK_ERR_FORMAT, "gk_llm_load: %s: the top level is not an object", cpath);
    }
    if (tc && !gk_json_is_null(gk_json_get(gk_json_root(tc), "chat_template"))) {
        s = gk_chat_template_from_config(gk_json_root(tc), &m->tmpl);
        if (s != GK_OK) { gk_json_free(tc); return gk__llm_move_file(m->ctx, &sv, s, cpath, "tokenizer_config.json"); }
        m->has_tmpl = 1;
    } else {
        char *jinja = NULL;
        size_t n = 0;
        gk_status rs;
        const char *bos = NULL, *eos = NULL;
        const gk_json_value *r = tc ? gk_json_root(tc) : NULL;
        snprintf(path, sizeof path, "%s/chat_template.jinja", dir);
        rs = gk_read_file(path, 0, &jinja, &n);
        if (rs == GK_ERR_OUT_OF_MEMORY) { gk_json_free(tc); return gk__u_tl_move(m->ctx, &sv, rs, "gk_llm_load: "); }
        if (rs == GK_OK) {
            /* the template's tokens come from tokenizer_config.json */
            if (r && ((s = gk__chat_cfg_token(r, "bos_token", &bos)) != GK_OK || (s = gk__chat_cfg_token(r, "eos_token", &eos)) != GK_OK)) {
                gk_read_file_free(jinja);
                gk_json_free(tc);
                return gk__llm_move_file(m->ctx, &sv, s, cpath, "tokenizer_config.json");
            }
            if (strlen(jinja) != n) s = gk_error_set(NULL, GK_ERR_FORMAT, "the template holds a NUL byte");
            else s = gk_chat_template_detect(jinja, bos, eos, &m->tmpl);
            gk_read_file_free(jinja);
            if (s != GK_OK) { gk_json_free(tc); return gk__llm_move_file(m->ctx, &sv, s, path, "chat_template.jinja"); }
            m->has_tmpl = 1;
        } else if (rs != GK_ERR_IO || gk__u_file_exists(path)) { /* there, but unreadable */
            gk_json_free(tc);
            return gk__u_tl_move(m->ctx, &sv, rs, "gk_llm_load: ");
        }
        gk__u_tl_restore(&sv); /* no chat_template.jinja is no error */
    }
    gk_json_free(tc);
    return GK_OK;
}

static gk_status gk__llm_empty(gk_llm *m, gk_dtype dt, int nd, int64_t d0, int64_t d1, gk_tensor *out) {
    int64_t sh[2];
    sh[0] = d0; sh[1] = d1;
    return gk_tensor_empty(m->ctx, dt, nd, sh, out);
}

/* ---- weights through the transfer engine ---- */
typedef struct gk__llm_piece { gk_xfer_id id; uint64_t bytes; int w; } gk__llm_piece;
typedef struct gk__llm_up {
    gk_llm *m;
    const gk_safetensors *st;
    const gk__llm_want *want;
    gk_xfer *x;
    gk__llm_piece *pc;
    size_t npc, waited;             /* pieces submitted, pieces waited for */
    gk__llm_prog *prog;
    gk_status s;                    /* the first failure */
    char first[1400];               /* ... and its message */
} gk__llm_up;

/* Notes the first failure: its message, as the context has it or (tensor
   index w >= 0) naming the tensor and its file. */
static void gk__llm_up_fail(gk__llm_up *u, gk_status s, int w) {
    const gk_st_tensor_info *ti;
    char msg[1200];
    if (u->s != GK_OK) return;
    u->s = s;
    snprintf(msg, sizeof msg, "%.1100s", gk_last_error(u->m->ctx));
    if (w < 0) { snprintf(u->first, sizeof u->first, "%.1100s", msg); return; }
    ti = gk_st_find(u->st, u->want[w].name);
    snprintf(u->first, sizeof u->first, "gk_llm_load: tensor %.96s from %.160s: %.1100s", u->want[w].name, ti ? gk__st_file_label(u->st, ti) : "?", msg);
}
/* Waits for the pieces submitted so far, in order, reporting progress. */
static void gk__llm_up_wait(gk__llm_up *u) {
    for (; u->waited < u->npc; u->waited++) {
        gk__llm_piece *p = &u->pc[u->waited];
        gk_status w = gk_xfer_wait(u->x, p->id, -1);
        if (w != GK_OK) gk__llm_up_fail(u, w, p->w);
        else if (u->s == GK_OK) {
            u->prog->base += p->bytes;
            if (u->prog->fn) u->prog->fn(u->prog->base, u->prog->total, u->prog->user);
        }
    }
}
/* A weight tensor of the compute dtype; when the pool is full while pieces are
   in flight (their storage pinned), once more after they are done. */
static gk_status gk__llm_up_alloc(gk__llm_up *u, int nd, int64_t d0, int64_t d1, gk_tensor *out) {
    gk_status s = gk__llm_empty(u->m, u->m->dt, nd, d0, d1, out);
    if (s == GK_ERR_OUT_OF_MEMORY && u->waited < u->npc) {
        gk__llm_up_wait(u);
        if (u->s != GK_OK) return u->s;
        s = gk__llm_empty(u->m, u->m->dt, nd, d0, d1, out);
    }
    if (s != GK_OK) gk__llm_up_fail(u, s, -1);
    return s;
}

/* Weights stored in the compute dtype go from the files straight into their
   device tensors through the context's transfer engine (>>api_xfer): every
   piece (GK__ST_UPLOAD_CHUNK bytes at most) is submitted before the first is
   waited for, so the engine's workers read the files in parallel (pread into
   pinned staging buffers) while earlier pieces are copied to the device; q,
   k and v (and their biases) land in the rows of the fused wqkv (bqkv), gate
   and up in the halves of wgu, so nothing is concatenated afterwards.
   Progress is reported as pieces complete, in order. */
static gk_status gk__llm_upload_direct(gk_llm *m, const gk_safetensors *st, const gk__llm_want *want, int nw, gk__llm_prog *prog) {
    gk_ctx *ctx = m->ctx;
    const gk_llm_config *c = &m->cfg;
    int64_t H = c->heads, Hkv = c->kv_heads, D = c->head_dim, hid = c->hidden, I = c->inter, nqkv = (H + 2 * Hkv) * D;
    size_t es = gk_dtype_size(m->dt), cap = 0;
    gk__llm_up u;
    int i;
    memset(&u, 0, sizeof u);
    u.m = m;
    u.st = st;
    u.want = want;
    u.prog = prog;
    for (i = 0; i < nw; i++) cap += (size_t)((gk_st_find(st, want[i].name)->nbytes + GK__ST_UPLOAD_CHUNK - 1) / GK__ST_UPLOAD_CHUNK);
    if (!(u.pc = (gk__llm_piece *)gk__u_malloc((cap ? cap : 1) * sizeof *u.pc))) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_llm_load: out of host memory");
    if ((u.s = gk_xfer_default(ctx, NULL, &u.x)) != GK_OK) {
        char msg[1200];
        snprintf(msg, sizeof msg, "%.1100s", gk_last_error(ctx));
        gk__u_free(u.pc);
        return gk_error_set(ctx, u.s, "gk_llm_load: %s", msg);
    }
    if (prog->fn) prog->fn(prog->base, prog->total, prog->user);
    for (i = 0; i < nw && u.s == GK_OK; i++) {
        const gk_st_tensor_info *ti = gk_st_find(st, want[i].name);
        gk__llm_layer *y = want[i].layer >= 0 ? &m->L[want[i].layer] : NULL;
        gk_tensor *dst = want[i].dst, into;
        size_t off = 0;
        uint64_t at;
        if (y && m->fused && (dst == &y->wq || dst == &y->wk || dst == &y->wv)) { /* rows of wqkv [nqkv, hid] */
            off = dst == &y->wq ? 0 : (size_t)((dst == &y->wk ? H : H + Hkv) * D * hid) * es;
            if (!y->wqkv.id && gk__llm_up_alloc(&u, 2, nqkv, hid, &y->wqkv) != GK_OK) break;
            into = y->wqkv;
        } else if (y && m->fused && (dst == &y->bq || dst == &y->bk || dst == &y->bv)) { /* parts of bqkv [nqkv] */
            off = dst == &y->bq ? 0 : (size_t)((dst == &y->bk ? H : H + Hkv) * D) * es;
            if (!y->bqkv.id && gk__llm_up_alloc(&u, 1, nqkv, 0, &y->bqkv) != GK_OK) break;
            into = y->bqkv;
        } else if (y && !dst) { /* gate, then up: the halves of wgu [2I, hid] */
            off = strstr(want[i].name, "up_proj") ? (size_t)(I * hid) * es : 0;
            if (!y->wgu.id && gk__llm_up_alloc(&u, 2, 2 * I, hid, &y->wgu) != GK_OK) break;
            into = y->wgu;
        } else {
            if (gk__llm_up_alloc(&u, want[i].ndim, want[i].shape[0], want[i].shape[1], dst) != GK_OK) break;
            into = *dst;
        }
        for (at = 0; at < ti->nbytes; at += GK__ST_UPLOAD_CHUNK) {
            size_t n = (size_t)(ti->nbytes - at < GK__ST_UPLOAD_CHUNK ? ti->nbytes - at : GK__ST_UPLOAD_CHUNK);
            gk__llm_piece *p = &u.pc[u.npc];
            gk_status e = gk__st_submit(u.x, st, ti, into, off + (size_t)at, at, n, &p->id);
            if (e != GK_OK) { gk__llm_up_fail(&u, e, i); break; }
            p->bytes = n;
            p->w = i;
            u.npc++;
        }
        m->weight_bytes += ti->numel * es;
    }
    gk__llm_up_wait(&u); /* all of them, also after a failure: the engine reads the files meanwhile */
    gk__u_free(u.pc);
    if (u.s != GK_OK) return gk_error_set(ctx, u.s, "%s", u.first);
    return GK_OK;
}

GKLLMDEF gk_status gk_llm_load(gk_ctx *ctx, const char *dir, const gk_llm_desc *desc, gk_llm **out) {
    gk_llm_desc d;
    gk_llm *m = NULL;
    gk_json *cj = NULL, *gj = NULL;
    gk_safetensors *st = NULL;
    gk__llm_want *want = NULL;
    gk__llm_prog prog;
    gk_stream *old;
    int nw = 0, i, have_head;
    int64_t l, H, Hkv, D, hid, I, V, nqkv;
    gk_status s;
    const gk_llm_config *c;
    char cpath[4200], gpath[4200];
    if (out) *out = NULL;
    if (!ctx) return gk_error_set(NULL, GK_ERR_INVALID_HANDLE, "gk_llm_load: ctx is NULL");
    if (!dir) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_llm_load: dir is NULL");
    if (!out) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_llm_load: out is NULL");
    if (!dir[0]) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_llm_load: dir is \"\" (a model folder is needed)");
    if (strlen(dir) > 4000) return gk_error_set(ctx, GK_ERR_LIMIT, "gk_llm_load: dir is %llu bytes long (at most 4000)", (unsigned long long)strlen(dir));
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    /* the desc (gk_llm_desc) before any file is read */
    if ((unsigned)d.dtype > (unsigned)GK_LLM_DTYPE_F32)
        return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_llm_load: gk_llm_desc.dtype = %d is not a gk_llm_dtype (GK_LLM_DTYPE_DEFAULT, _BF16, _F16, _F32)", (int)d.dtype);
    if (d.max_seqs < 0 || d.max_seqs > 256)
        return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_llm_load: gk_llm_desc.max_seqs = %d must be in 1..256 (0: 1)", d.max_seqs);
    if (d.max_ctx < 0)
        return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_llm_load: gk_llm_desc.max_ctx = %lld must be >= 1 (0: min(max_position_embeddings, 4096))", (long long)d.max_ctx);
    snprintf(cpath, sizeof cpath, "%s/config.json", dir);
    snprintf(gpath, sizeof gpath, "%s/generation_config.json", dir);
    if (!(m = (gk_llm *)gk__u_calloc(1, sizeof *m))) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_llm_load: out of host memory");
    m->ctx = ctx;
    m->no_graphs = d.no_graphs;
    {   /* a measurement knob: where a decode step's time goes (bench_llm --skip-sweep); never set in normal use */
        const char *e = getenv("GPUKIT_LLM_DEBUG_SKIP");
        m->dbg_skip = e ? (unsigned)strtoul(e, NULL, 0) : 0u;
    }
    switch (d.dtype) {
    case GK_LLM_DTYPE_F16: m->dt = GK_F16; break;
    case GK_LLM_DTYPE_F32: m->dt = GK_F32; break;
    default: m->dt = GK_BF16; break; /* DEFAULT, BF16 (checked above) */
    }
    /* config */
    if ((s = gk__llm_read_json(ctx, dir, "config.json", 0, &cj)) != GK_OK) goto fail;
    if ((s = gk__llm_read_json(ctx, dir, "generation_config.json", 1, &gj)) != GK_OK) goto fail;
    if ((s = gk__llm_parse_config_at(ctx, cpath, gk_json_root(cj), gpath, gj ? gk_json_root(gj) : NULL, &m->cfg)) != GK_OK) goto fail;
    c = &m->cfg;
    H = c->heads; Hkv = c->kv_heads; D = c->head_dim; hid = c->hidden; I = c->inter; V = c->vocab;
    nqkv = (H + 2 * Hkv) * D;
    m->fused = !c->qk_norm;
    m->max_seqs = d.max_seqs > 0 ? d.max_seqs : 1;
    m->max_ctx = d.max_ctx > 0 ? d.max_ctx : (c->max_pos < 4096 ? c->max_pos : 4096);
    /* positions past the model's (RoPE tables, HF's dynamic scaling) are not what the model was made for */
    if (m->max_ctx > c->max_pos) {
        s = gk_error_set(ctx, GK_ERR_LIMIT, "gk_llm_load: gk_llm_desc.max_ctx = %lld is above the model's max_position_embeddings = %lld (%s)", (long long)m->max_ctx,
                         (long long)c->max_pos, cpath);
        goto fail;
    }
    if (m->max_ctx > INT32_MAX / 2) { s = gk_error_set(ctx, GK_ERR_LIMIT, "gk_llm_load: gk_llm_desc.max_ctx = %lld is too large (at most %d)", (long long)m->max_ctx, INT32_MAX / 2); goto fail; }
    for (m->nbucket = 1; ((int64_t)256 << (m->nbucket - 1)) < m->max_ctx; m->nbucket++) {}
    if (c->sliding_window > 0 && c->sliding_window < m->max_ctx) {
        s = gk_error_set(ctx, GK_ERR_UNSUPPORTED, "gk_llm_load: %s: sliding_window = %lld is shorter than the context of %lld tokens: sliding-window attention is not "
                         "supported (ask for max_ctx <= %lld)", cpath, (long long)c->sliding_window, (long long)m->max_ctx, (long long)c->sliding_window);
        goto fail;
    }
    /* tokenizer and chat template */
    if ((s = gk__llm_load_tokenizer(m, dir)) != GK_OK) goto fail;
    {
        size_t k, nv = gk_tokenizer_vocab_size(m->tok), plain = 0;
        for (k = 0; k < nv && !plain; k++) plain = gk_tokenizer_id_to_token(m->tok, (int32_t)k, NULL) && !gk_tokenizer_is_special(m->tok, (int32_t)k);
        if (!plain) { s = gk_error_set(ctx, GK_ERR_FORMAT, "gk_llm_load: %s/tokenizer.json has no vocab (no token but special ones)", dir); goto fail; }
    }
    if ((int64_t)gk_tokenizer_vocab_size(m->tok) > V) {
        s = gk_error_set(ctx, GK_ERR_SHAPE, "gk_llm_load: %s/tokenizer.json has ids up to %llu but %s's vocab_size = %lld (the model's ids 0..%lld)", dir,
                         (unsigned long long)gk_tokenizer_vocab_size(m->tok) - 1, cpath, (long long)V, (long long)V - 1);
        goto fail;
    }
    /* the tensors the config asks for: presence, dtype and shape, before any device allocation */
    {
        gk__u_tl sv;
        gk__u_tl_save(&sv);
        if ((s = gk_st_open(dir, &st)) != GK_OK) { s = gk__u_tl_move(ctx, &sv, s, "gk_llm_load: "); goto fail; }
    }
    if (!(m->L = (gk__llm_layer *)gk__u_calloc((size_t)c->layers, sizeof *m->L)) ||
        !(want = (gk__llm_want *)gk__u_calloc((size_t)(c->layers * 16 + 4), sizeof *want)) ||
        !(m->len = (int64_t *)gk__u_calloc((size_t)m->max_seqs, sizeof(int64_t))) ||
        !(m->graphs = (gk_graph **)gk__u_calloc((size_t)(2 * (m->max_seqs + 1) * m->nbucket), sizeof(gk_graph *))) ||
        !(m->gwarm = (int *)gk__u_calloc((size_t)(2 * (m->max_seqs + 1) * m->nbucket), sizeof(int))) ||
        !(m->h_tok = (int32_t *)gk__u_calloc((size_t)m->max_seqs, sizeof(int32_t))) || !(m->h_pos = (int32_t *)gk__u_calloc((size_t)m->max_seqs, sizeof(int32_t)))) {
        s = gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_llm_load: out of host memory");
        goto fail;
    }
    have_head = gk_st_find(st, "lm_head.weight") != NULL;
    if (!c->tie_embeddings && !have_head) { /* HF would start from a random lm_head */
        s = gk_error_set(ctx, GK_ERR_NOT_FOUND, "gk_llm_load: tensor lm_head.weight is missing from %s and %s's tie_word_embeddings is false", dir, cpath);
        goto fail;
    }
    gk__llm_want_add(want, &nw, &m->embed, -1, "model.embed_tokens.weight", 2, V, hid);
    gk__llm_want_add(want, &nw, &m->norm, -1, "model.norm.weight", 1, hid, 0);
    if (!c->tie_embeddings && have_head) gk__llm_want_add(want, &nw, &m->lm_head, -1, "lm_head.weight", 2, V, hid);
    for (l = 0; l < c->layers; l++) {
        gk__llm_layer *y = &m->L[l];
        gk__llm_want_add(want, &nw, &y->ln1, l, "model.layers.%lld.input_layernorm.weight", 1, hid, 0);
        gk__llm_want_add(want, &nw, &y->ln2, l, "model.layers.%lld.post_attention_layernorm.weight", 1, hid, 0);
        gk__llm_want_add(want, &nw, &y->wq, l, "model.layers.%lld.self_attn.q_proj.weight", 2, H * D, hid);
        gk__llm_want_add(want, &nw, &y->wk, l, "model.layers.%lld.self_attn.k_proj.weight", 2, Hkv * D, hid);
        gk__llm_want_add(want, &nw, &y->wv, l, "model.layers.%lld.self_attn.v_proj.weight", 2, Hkv * D, hid);
        gk__llm_want_add(want, &nw, &y->wo, l, "model.layers.%lld.self_attn.o_proj.weight", 2, hid, H * D);
        if (c->qkv_bias) {
            gk__llm_want_add(want, &nw, &y->bq, l, "model.layers.%lld.self_attn.q_proj.bias", 1, H * D, 0);
            gk__llm_want_add(want, &nw, &y->bk, l, "model.layers.%lld.self_attn.k_proj.bias", 1, Hkv * D, 0);
            gk__llm_want_add(want, &nw, &y->bv, l, "model.layers.%lld.self_attn.v_proj.bias", 1, Hkv * D, 0);
        }
        if (c->o_bias) gk__llm_want_add(want, &nw, &y->bo, l, "model.layers.%lld.self_attn.o_proj.bias", 1, hid, 0);
        if (c->qk_norm) {
            gk__llm_want_add(want, &nw, &y->qn, l, "model.layers.%lld.self_attn.q_norm.weight", 1, D, 0);
            gk__llm_want_add(want, &nw, &y->kn, l, "model.layers.%lld.self_attn.k_norm.weight", 1, D, 0);
        }
        /* gate and up go to wgu (fused below); down */
        gk__llm_want_add(want, &nw, NULL, l, "model.layers.%lld.mlp.gate_proj.weight", 2, I, hid);
        gk__llm_want_add(want, &nw, NULL, l, "model.layers.%lld.mlp.up_proj.weight", 2, I, hid);
        gk__llm_want_add(want, &nw, &y->wdown, l, "model.layers.%lld.mlp.down_proj.weight", 2, hid, I);
    }
    memset(&prog, 0, sizeof prog);
    prog.fn = d.progress; prog.user = d.user;
    for (i = 0; i < nw; i++) {
        const gk_st_tensor_info *ti = gk_st_find(st, want[i].name);
        gk_dtype wd;
        int k, bad = 0;
        if (!ti) { s = gk_error_set(ctx, GK_ERR_NOT_FOUND, "gk_llm_load: tensor %s is missing from %s", want[i].name, dir); goto fail; }
        if (!gk_st_gk_dtype(ti->dtype, &wd) || (wd != GK_F32 && wd != GK_F16 && wd != GK_BF16)) {
            s = gk_error_set(ctx, GK_ERR_DTYPE, "gk_llm_load: tensor %s is %s (f32, f16 or bf16 expected)", want[i].name, gk_st_dtype_name(ti->dtype));
            goto fail;
        }
        if (i == 0) m->cfg.weights_dtype = wd;
        if (ti->ndim != want[i].ndim) bad = 1;
        for (k = 0; k < want[i].ndim && !bad; k++) bad = ti->shape[k] != want[i].shape[k];
        if (bad) {
            char got[128];
            size_t o = 0;
            got[0] = 0;
            for (k = 0; k < ti->ndim && o < sizeof got - 24; k++) o += (size_t)snprintf(got + o, sizeof got - o, "%s%lld", k ? ", " : "", (long long)ti->shape[k]);
            if (want[i].ndim == 1)
                s = gk_error_set(ctx, GK_ERR_SHAPE, "gk_llm_load: tensor %s has shape [%s]; the config says [%lld]", want[i].name, got, (long long)want[i].shape[0]);
            else
                s = gk_error_set(ctx, GK_ERR_SHAPE, "gk_llm_load: tensor %s has shape [%s]; the config says [%lld, %lld]", want[i].name, got,
                                 (long long)want[i].shape[0], (long long)want[i].shape[1]);
            goto fail;
        }
        prog.total += ti->numel * gk_dtype_size(m->dt);
    }
    /* upload (in the compute dtype) and fuse */
    if ((s = gk_stream_create(ctx, GK_PRIORITY_NORMAL, &m->stream)) != GK_OK) goto fail;
    old = gk_get_stream(ctx);
    gk_set_stream(ctx, m->stream);
    {
        gk_tensor gate = gk__u_tnull(), up = gk__u_tnull();
        int direct = 1;
        for (i = 0; i < nw && direct; i++) {
            gk_dtype wd;
            direct = gk_st_gk_dtype(gk_st_find(st, want[i].name)->dtype, &wd) && wd == m->dt;
        }
        /* stored in the compute dtype: straight from the files, in parallel; else a cast on the device a tensor, then concatenation */
        if (direct) s = gk__llm_upload_direct(m, st, want, nw, &prog);
        for (i = 0; i < nw && s == GK_OK && !direct; i++) {
            gk_tensor t = gk__u_tnull();
            const gk_st_tensor_info *ti = gk_st_find(st, want[i].name);
            prog.cur = ti->numel * gk_dtype_size(m->dt);
            s = gk_st_upload(ctx, st, want[i].name, m->dt, &t, gk__llm_prog_cb, &prog);
            prog.base += ti->numel * gk_dtype_size(m->dt);
            if (s != GK_OK) break;
            m->weight_bytes += ti->numel * gk_dtype_size(m->dt);
            if (want[i].dst) *want[i].dst = t;
            else if (!gate.id) gate = t;
            else up = t;
            if (gate.id && up.id) { /* [gate; up] -> wgu [2I, hid] */
                gk_tensor xs[2];
                gk__llm_layer *y = &m->L[want[i].layer];
                xs[0] = gate; xs[1] = up;
                s = gk_concat_new(ctx, xs, 2, 0, &y->wgu);
                gk_tensor_free(ctx, gate); gk_tensor_free(ctx, up);
                gate = up = gk__u_tnull();
            }
        }
        for (l = 0; l < c->layers && s == GK_OK && m->fused && !direct; l++) { /* [q; k; v] -> wqkv, and the biases */
            gk__llm_layer *y = &m->L[l];
            gk_tensor xs[3];
            xs[0] = y->wq; xs[1] = y->wk; xs[2] = y->wv;
            s = gk_concat_new(ctx, xs, 3, 0, &y->wqkv);
            if (s == GK_OK && c->qkv_bias) { xs[0] = y->bq; xs[1] = y->bk; xs[2] = y->bv; s = gk_concat_new(ctx, xs, 3, 0, &y->bqkv); }
            gk__llm_free_t(ctx, &y->wq); gk__llm_free_t(ctx, &y->wk); gk__llm_free_t(ctx, &y->wv);
            gk__llm_free_t(ctx, &y->bq); gk__llm_free_t(ctx, &y->bk); gk__llm_free_t(ctx, &y->bv);
        }
    }
    if (s == GK_OK && !m->lm_head.id) m->lm_head = m->embed;
    /* RoPE tables, KV cache, decode state and activations */
    if (s == GK_OK) s = gk_rope_table_new(ctx, &c->rope, m->max_ctx, m->dt, &m->cos_tab, &m->sin_tab);
    for (l = 0; l < c->layers && s == GK_OK; l++) {
        int64_t sh[4];
        sh[0] = m->max_seqs; sh[1] = m->max_ctx; sh[2] = 2 * Hkv; sh[3] = D;
        s = gk_tensor_empty(ctx, m->dt, 4, sh, &m->L[l].kv);
        if (s == GK_OK) s = gk_fill(ctx, m->L[l].kv, 0);
        if (s == GK_ERR_OUT_OF_MEMORY)
            s = gk_error_set(ctx, s, "gk_llm_load: out of memory for the KV cache of %d x %lld tokens (%.1f MiB per layer): %s", m->max_seqs,
                             (long long)m->max_ctx, 2.0 * (double)(m->max_seqs * m->max_ctx * Hkv * D) * (double)gk_dtype_size(m->dt) / 1048576.0,
                             gk_last_error(ctx));
    }
    {
        int64_t S = m->max_seqs;
        if (s == GK_OK) s = gk__llm_empty(m, GK_I32, 1, S, 0, &m->d_tok);
        if (s == GK_OK) s = gk__llm_empty(m, GK_I32, 1, S, 0, &m->d_pos);
        if (s == GK_OK) s = gk__llm_empty(m, GK_I32, 1, S, 0, &m->d_kvl);
        if (s == GK_OK) s = gk__llm_empty(m, GK_I32, 1, 1, 0, &m->d_one);
        if (s == GK_OK) s = gk__llm_empty(m, GK_I32, 2, S, m->max_ctx, &m->d_hist);
        if (s == GK_OK) s = gk_fill(ctx, m->d_one, 1);
        if (s == GK_OK) s = gk_fill(ctx, m->d_tok, 0);
        if (s == GK_OK) s = gk_fill(ctx, m->d_pos, 0);
        if (s == GK_OK) s = gk_fill(ctx, m->d_hist, -1);
        if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, S, hid, &m->a_h);
        if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, S, hid, &m->a_h2);
        if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, S, hid, &m->a_x);
        if (s == GK_OK && m->fused) s = gk__llm_empty(m, m->dt, 2, S, nqkv, &m->a_qkv);
        if (s == GK_OK && !m->fused) s = gk__llm_empty(m, m->dt, 2, S, H * D, &m->a_q);
        if (s == GK_OK && !m->fused) s = gk__llm_empty(m, m->dt, 2, S, Hkv * D, &m->a_k);
        if (s == GK_OK && !m->fused) s = gk__llm_empty(m, m->dt, 2, S, Hkv * D, &m->a_v);
        if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, S, H * D, &m->a_att);
        if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, S, 2 * I, &m->a_gu);
        if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, S, I, &m->a_act);
        if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, S, V, &m->a_logits);
    }
    if (s == GK_OK) s = gk_stream_sync(ctx, m->stream);
    gk_set_stream(ctx, old);
    if (s != GK_OK) goto fail;
    gk_st_close(st);
    gk_json_free(cj);
    gk_json_free(gj);
    gk__u_free(want);
    *out = m;
    return GK_OK;
fail:
    gk_st_close(st);
    gk_json_free(cj);
    gk_json_free(gj);
    gk__u_free(want);
    gk_llm_free(m);
    return s;
}

GKLLMDEF const gk_llm_config *gk_llm_get_config(const gk_llm *m) { return m ? &m->cfg : NULL; }
GKLLMDEF const gk_tokenizer *gk_llm_tokenizer(const gk_llm *m) { return m ? m->tok : NULL; }
GKLLMDEF gk_dtype gk_llm_compute_dtype(const gk_llm *m) { return m ? m->dt : GK_F32; }
GKLLMDEF int64_t gk_llm_max_ctx(const gk_llm *m) { return m ? m->max_ctx : 0; }
GKLLMDEF uint64_t gk_llm_weight_bytes(const gk_llm *m) { return m ? m->weight_bytes : 0; }
GKLLMDEF uint64_t gk_llm_kv_bytes_per_token(const gk_llm *m) {
    return m ? (uint64_t)(2 * m->cfg.layers * m->cfg.kv_heads * m->cfg.head_dim) * gk_dtype_size(m->dt) : 0;
}
GKLLMDEF int64_t gk_llm_seq_len(const gk_llm *m, int seq) { return m && seq >= 0 && seq < m->max_seqs ? m->len[seq] : -1; }

