/* ======================================================================== */
/* >>impl_chat                                                              */
/* ======================================================================== */

static void gk__chat_copy(char *dst, size_t cap, const char *src) {
    size_t n = src ? strlen(src) : 0;
    if (n >= cap) n = cap - 1;
    if (n) memcpy(dst, src, n);
    dst[n] = 0;
}
/* bos / eos text must fit gk_chat_template.bos / .eos whole (a cut token would render wrong) */
static gk_status gk__chat_tokens_fit(const char *W, const char *bos, const char *eos) {
    const gk_chat_template *t = NULL;
    if (bos && strlen(bos) >= sizeof t->bos)
        return GK__U_ERR(GK_ERR_LIMIT, "%s: bos \"%.20s...\" is %llu bytes; gk_chat_template holds at most %llu", W, bos, (unsigned long long)strlen(bos),
                         (unsigned long long)(sizeof t->bos - 1));
    if (eos && strlen(eos) >= sizeof t->eos)
        return GK__U_ERR(GK_ERR_LIMIT, "%s: eos \"%.20s...\" is %llu bytes; gk_chat_template holds at most %llu", W, eos, (unsigned long long)strlen(eos),
                         (unsigned long long)(sizeof t->eos - 1));
    return GK_OK;
}

GKLLMDEF gk_status gk_chat_template_builtin(const char *name, const char *bos, const char *eos, gk_chat_template *out) {
    static const struct { const char *n; gk_chat_format f; } names[] = {
        {"chatml", GK_CHAT_CHATML}, {"qwen3", GK_CHAT_QWEN3}, {"llama3", GK_CHAT_LLAMA3},
        {"llama2", GK_CHAT_LLAMA2}, {"mistral", GK_CHAT_MISTRAL}};
    size_t i;
    gk_status s;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_template_builtin: out is NULL");
    memset(out, 0, sizeof *out);
    if (!name) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_template_builtin: name is NULL");
    if ((s = gk__chat_tokens_fit("gk_chat_template_builtin", bos, eos)) != GK_OK) return s;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i].n) == 0) {
            out->format = names[i].f;
            gk__chat_copy(out->bos, sizeof out->bos, bos ? bos : (out->format == GK_CHAT_LLAMA3 ? "<|begin_of_text|>" : "<s>"));
            gk__chat_copy(out->eos, sizeof out->eos, eos ? eos : (out->format == GK_CHAT_LLAMA3 ? "<|eot_id|>" : "</s>"));
            return GK_OK;
        }
    return GK__U_ERR(GK_ERR_NOT_FOUND, "no built-in chat format named '%.40s' (chatml, qwen3, llama3, llama2, mistral)", name);
}

GKLLMDEF gk_status gk_chat_template_detect(const char *j, const char *bos, const char *eos, gk_chat_template *out) {
    char quote[64];
    size_t i;
    gk_status s;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_template_detect: out is NULL");
    memset(out, 0, sizeof *out);
    if (!j) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_template_detect: jinja is NULL");
    if ((s = gk__chat_tokens_fit("gk_chat_template_detect", bos, eos)) != GK_OK) return s;
    gk__chat_copy(out->bos, sizeof out->bos, bos);
    gk__chat_copy(out->eos, sizeof out->eos, eos);
    if (strstr(j, "<|im_start|>")) {
        if (strstr(j, "<think>")) out->format = GK_CHAT_QWEN3;
        else {
            out->format = GK_CHAT_CHATML;
            if (strstr(j, "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."))
                gk__chat_copy(out->default_system, sizeof out->default_system,
                              "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.");
            else if (strstr(j, "You are a helpful assistant."))
                gk__chat_copy(out->default_system, sizeof out->default_system, "You are a helpful assistant.");
        }
        return GK_OK;
    }
    if (strstr(j, "<|start_header_id|>")) {
        if (strstr(j, "Cutting Knowledge Date"))
            return GK__U_ERR(GK_ERR_UNSUPPORTED, "chat template: Llama-3.1-style template with a date preamble is not supported");
        out->format = GK_CHAT_LLAMA3;
        out->always_generation_prompt = strstr(j, "add_generation_prompt") == NULL;
        return GK_OK;
    }
    if (strstr(j, "[INST]") && !strstr(j, "[AVAILABLE_TOOLS]")) {
        out->format = strstr(j, "<<SYS>>") ? GK_CHAT_LLAMA2 : GK_CHAT_MISTRAL;
        return GK_OK;
    }
    for (i = 0; i < 60 && j[i]; i++) quote[i] = (j[i] == '\n' || j[i] == '\r' || j[i] == '\t') ? ' ' : j[i];
    quote[i] = 0;
    return GK__U_ERR(GK_ERR_UNSUPPORTED, "unknown chat template: \"%s%s\"", quote, j[i] ? "..." : "");
}

/* tokenizer_config.json's bos_token / eos_token: a string, {"__type": "AddedToken", "content": ...} or null (*tok NULL) */
static gk_status gk__chat_cfg_token(const gk_json_value *cfg, const char *key, const char **tok) {
    const gk_json_value *v = gk_json_get(cfg, key);
    char vb[64];
    *tok = NULL;
    if (gk_json_is_null(v)) return GK_OK;
    if (gk_json_typeof(v) == GK_JSON_STRING) *tok = gk_json_str(v, NULL);
    else *tok = gk_json_get_string(v, "content", NULL);
    if (!*tok)
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer_config.json: %s = %s is not a string, null or {\"content\": \"...\"}", key, gk__json_show(v, vb, sizeof vb));
    if (strlen(*tok) != (gk_json_typeof(v) == GK_JSON_STRING ? gk_json_len(v) : gk_json_len(gk_json_get(v, "content"))))
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer_config.json: %s holds a NUL character", key);
    if (strlen(*tok) >= sizeof ((gk_chat_template *)0)->bos) /* bos and eos have one size */
        return GK__U_ERR(GK_ERR_LIMIT, "tokenizer_config.json: %s \"%.20s...\" is %llu bytes; gk_chat_template holds at most %llu", key, *tok,
                         (unsigned long long)strlen(*tok), (unsigned long long)(sizeof ((gk_chat_template *)0)->bos - 1));
    return GK_OK;
}

GKLLMDEF gk_status gk_chat_template_from_config(const gk_json_value *cfg, gk_chat_template *out) {
    const gk_json_value *ct = gk_json_get(cfg, "chat_template");
    const char *text = gk_json_str(ct, NULL), *bos, *eos;
    char vb[64];
    gk_status s;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_template_from_config: out is NULL");
    memset(out, 0, sizeof *out);
    if (!cfg) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_template_from_config: config is NULL");
    if (gk_json_typeof(cfg) != GK_JSON_OBJECT) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer_config.json: the top level is not an object");
    {
        const char *dk = gk__json_dup_key(cfg);
        if (dk) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer_config.json: key \"%.60s\" appears twice", dk);
    }
    if (gk_json_typeof(ct) == GK_JSON_ARRAY) { /* [{"name": "default", "template": ...}, ...] */
        size_t i;
        for (i = 0; i < gk_json_len(ct); i++) {
            const gk_json_value *e = gk_json_at(ct, i);
            if (gk_json_typeof(gk_json_get(e, "name")) != GK_JSON_STRING || gk_json_typeof(gk_json_get(e, "template")) != GK_JSON_STRING)
                return GK__U_ERR(GK_ERR_FORMAT, "tokenizer_config.json: chat_template[%llu] is not {\"name\": \"...\", \"template\": \"...\"}", (unsigned long long)i);
            if (strcmp(gk_json_get_string(e, "name", ""), "default") == 0) text = gk_json_get_string(e, "template", NULL);
        }
        if (!text) return GK__U_ERR(GK_ERR_NOT_FOUND, "tokenizer_config.json: chat_template lists %llu templates but none named \"default\"", (unsigned long long)gk_json_len(ct));
    } else if (gk_json_is_null(ct)) {
        return GK__U_ERR(GK_ERR_NOT_FOUND, "tokenizer_config.json has no chat_template");
    } else if (!text) {
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer_config.json: chat_template = %s is not a string or a list of {name, template}", gk__json_show(ct, vb, sizeof vb));
    }
    if ((s = gk__chat_cfg_token(cfg, "bos_token", &bos)) != GK_OK) return s;
    if ((s = gk__chat_cfg_token(cfg, "eos_token", &eos)) != GK_OK) return s;
    return gk_chat_template_detect(text, bos, eos, out);
}

GKLLMDEF gk_status gk_chat_template_load(const char *path, gk_chat_template *out) {
    gk_json *doc;
    gk_status s;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_template_load: out is NULL");
    memset(out, 0, sizeof *out);
    if (!path) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_template_load: tokenizer_config_path is NULL");
    s = gk_json_parse_file(path, NULL, &doc);
    if (s != GK_OK) return s;
    s = gk_chat_template_from_config(gk_json_root(doc), out);
    if (s != GK_OK) { /* "tokenizer_config.json: x" -> "<path>: x"; other messages get the path in front */
        char msg[900];
        gk__u_errcopy(msg, sizeof msg);
        if (strncmp(msg, "tokenizer_config.json: ", 23) == 0) gk_error_set(NULL, s, "%s: %s", path, msg + 23);
        else if (strncmp(msg, "tokenizer_config.json ", 22) == 0) gk_error_set(NULL, s, "%s %s", path, msg + 22);
        else gk_error_set(NULL, s, "%s: %s", path, msg);
    }
    gk_json_free(doc);
    return s;
}

/* Python-style strip of characters in set (NULL = Unicode whitespace) */
static void gk__chat_strip(const char **p, size_t *n, const char *set, int left, int right) {
    const unsigned char *s = (const unsigned char *)*p;
    size_t a = 0, e = *n, l;
    if (set) {
        while (left && a < e && strchr(set, s[a])) a++;
        while (right && e > a && strchr(set, s[e - 1])) e--;
    } else {
        while (left && a < e && gk__tok_scls(s, e, a, &l) == GK__UNI_WS) a += l;
        while (right && e > a) {
            size_t b = e - 1;
            while (b > a && (s[b] & 0xC0) == 0x80) b--;
            if (gk__tok_scls(s, e, b, &l) != GK__UNI_WS || b + l != e) break;
            e = b;
        }
    }
    *p = (const char *)s + a;
    *n = e - a;
}

static const char *gk__chat_strstr_last(const char *h, const char *n) {
    const char *r = NULL, *p = h;
    while ((p = strstr(p, n)) != NULL) { r = p; p++; }
    return r;
}

static gk_status gk__chat_qwen3(const gk_chat_template *t, const gk_chat_message *m, size_t n, unsigned flags, gk_buf *o) {
    size_t i, last_query = n ? n - 1 : 0;
    int multi = 1;
    gk_status s = GK_OK;
    (void)t;
    if (n && strcmp(m[0].role, "system") == 0) {
        s = gk__u_buf_puts(o, "<|im_start|>system\n");
        if (s == GK_OK) s = gk__u_buf_puts(o, m[0].content);
        if (s == GK_OK) s = gk__u_buf_puts(o, "<|im_end|>\n");
    }
    for (i = n; i-- > 0;) {
        const char *c = m[i].content;
        size_t cl = strlen(c);
        int tool_resp = cl >= 15 + 16 && strncmp(c, "<tool_response>", 15) == 0 && strcmp(c + cl - 16, "</tool_response>") == 0;
        if (multi && strcmp(m[i].role, "user") == 0 && !tool_resp) {
            multi = 0;
            last_query = i;
        }
    }
    for (i = 0; i < n && s == GK_OK; i++) {
        const char *role = m[i].role, *c = m[i].content;
        if (strcmp(role, "user") == 0 || (strcmp(role, "system") == 0 && i != 0)) {
            s = gk__u_buf_puts(o, "<|im_start|>");
            if (s == GK_OK) s = gk__u_buf_puts(o, role);
            if (s == GK_OK) s = gk__u_buf_puts(o, "\n");
            if (s == GK_OK) s = gk__u_buf_puts(o, c);
            if (s == GK_OK) s = gk__u_buf_puts(o, "<|im_end|>\n");
        } else if (strcmp(role, "assistant") == 0) {
            const char *content = c, *reason = "";
            size_t content_n = strlen(c), reason_n = 0;
            const char *endt = gk__chat_strstr_last(c, "</think>");
            if (strstr(c, "</think>")) {
                const char *first_end = strstr(c, "</think>"), *st;
                content = endt + 8;
                content_n = strlen(content);
                gk__chat_strip(&content, &content_n, "\n", 1, 0);
                /* reasoning = content.split('</think>')[0].rstrip('\n').split('<think>')[-1].lstrip('\n') */
                reason = c;
                reason_n = (size_t)(first_end - c);
                gk__chat_strip(&reason, &reason_n, "\n", 0, 1);
                {
                    const char *q = reason, *lastst = NULL;
                    while ((st = (const char *)memchr(q, '<', (size_t)(reason + reason_n - q))) != NULL) {
                        if ((size_t)(reason + reason_n - st) >= 7 && memcmp(st, "<think>", 7) == 0) lastst = st;
                        q = st + 1;
                    }
                    if (lastst) {
                        reason_n -= (size_t)(lastst + 7 - reason);
                        reason = lastst + 7;
                    }
                }
                gk__chat_strip(&reason, &reason_n, "\n", 1, 0);
            }
            s = gk__u_buf_puts(o, "<|im_start|>assistant\n");
            if (s == GK_OK && i > last_query && (i == n - 1 || reason_n)) {
                const char *r2 = reason, *c2 = content;
                size_t r2n = reason_n, c2n = content_n;
                gk__chat_strip(&r2, &r2n, "\n", 1, 1);
                gk__chat_strip(&c2, &c2n, "\n", 1, 0);
                s = gk__u_buf_puts(o, "<think>\n");
                if (s == GK_OK) s = gk_buf_append(o, r2, r2n);
                if (s == GK_OK) s = gk__u_buf_puts(o, "\n</think>\n\n");
                if (s == GK_OK) s = gk_buf_append(o, c2, c2n);
            } else if (s == GK_OK) {
                s = gk_buf_append(o, content, content_n);
            }
            if (s == GK_OK) s = gk__u_buf_puts(o, "<|im_end|>\n");
        } else if (strcmp(role, "tool") == 0) {
            if (i == 0 || strcmp(m[i - 1].role, "tool") != 0) s = gk__u_buf_puts(o, "<|im_start|>user");
            if (s == GK_OK) s = gk__u_buf_puts(o, "\n<tool_response>\n");
            if (s == GK_OK) s = gk__u_buf_puts(o, c);
            if (s == GK_OK) s = gk__u_buf_puts(o, "\n</tool_response>");
            if (s == GK_OK && (i == n - 1 || strcmp(m[i + 1].role, "tool") != 0)) s = gk__u_buf_puts(o, "<|im_end|>\n");
        }
    }
    if (s == GK_OK && (flags & GK_CHAT_ADD_GENERATION_PROMPT)) {
        s = gk__u_buf_puts(o, "<|im_start|>assistant\n");
        if (s == GK_OK && (flags & GK_CHAT_NO_THINKING)) s = gk__u_buf_puts(o, "<think>\n\n</think>\n\n");
    }
    return s;
}

GKLLMDEF gk_status gk_chat_apply(const gk_chat_template *t, const gk_chat_message *m, size_t n, unsigned flags, gk_buf *o) {
    size_t i;
    gk_status s = GK_OK;
    if (!t) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_apply: t is NULL");
    if (!o) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_apply: out is NULL");
    if (!m && n) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_apply: msgs is NULL but n is %llu", (unsigned long long)n);
    if (flags & ~(unsigned)(GK_CHAT_ADD_GENERATION_PROMPT | GK_CHAT_NO_THINKING))
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_apply: flags 0x%x has bits that are not chat flags (GK_CHAT_ADD_GENERATION_PROMPT, GK_CHAT_NO_THINKING)", flags);
    for (i = 0; i < n; i++)
        if (!m[i].role || !m[i].content)
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_apply: msgs[%llu].%s is NULL", (unsigned long long)i, !m[i].role ? "role" : "content");
    /* HF transformers cannot render an empty conversation either (its
       apply_chat_template reads conversation[0]) */
    if (n == 0) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_apply: no messages: a chat needs at least one message");
    if (t->format == GK_CHAT_CHATML)
        for (i = 0; i < n; i++)
            if (strcmp(m[i].role, "tool") == 0)
                return GK__U_ERR(GK_ERR_UNSUPPORTED, "chat template: the built-in ChatML format does not render tool messages");
    switch (t->format) {
    case GK_CHAT_CHATML:
        if (t->default_system[0] && (n == 0 || strcmp(m[0].role, "system") != 0)) {
            s = gk__u_buf_puts(o, "<|im_start|>system\n");
            if (s == GK_OK) s = gk__u_buf_puts(o, t->default_system);
            if (s == GK_OK) s = gk__u_buf_puts(o, "<|im_end|>\n");
        }
        for (i = 0; i < n && s == GK_OK; i++) {
            s = gk__u_buf_puts(o, "<|im_start|>");
            if (s == GK_OK) s = gk__u_buf_puts(o, m[i].role);
            if (s == GK_OK) s = gk__u_buf_puts(o, "\n");
            if (s == GK_OK) s = gk__u_buf_puts(o, m[i].content);
            if (s == GK_OK) s = gk__u_buf_puts(o, "<|im_end|>\n");
        }
        if (s == GK_OK && (flags & GK_CHAT_ADD_GENERATION_PROMPT)) s = gk__u_buf_puts(o, "<|im_start|>assistant\n");
        return s;
    case GK_CHAT_QWEN3: return gk__chat_qwen3(t, m, n, flags, o);
    case GK_CHAT_LLAMA3:
        for (i = 0; i < n && s == GK_OK; i++) {
            const char *c = m[i].content;
            size_t cn = strlen(c);
            gk__chat_strip(&c, &cn, NULL, 1, 1);
            if (i == 0) s = gk__u_buf_puts(o, t->bos);
            if (s == GK_OK) s = gk__u_buf_puts(o, "<|start_header_id|>");
            if (s == GK_OK) s = gk__u_buf_puts(o, m[i].role);
            if (s == GK_OK) s = gk__u_buf_puts(o, "<|end_header_id|>\n\n");
            if (s == GK_OK) s = gk_buf_append(o, c, cn);
            if (s == GK_OK) s = gk__u_buf_puts(o, "<|eot_id|>");
        }
        if (s == GK_OK && ((flags & GK_CHAT_ADD_GENERATION_PROMPT) || t->always_generation_prompt))
            s = gk__u_buf_puts(o, "<|start_header_id|>assistant<|end_header_id|>\n\n");
        return s;
    case GK_CHAT_LLAMA2:
    case GK_CHAT_MISTRAL: {
        size_t first = 0;
        const char *sys = NULL;
        if (t->format == GK_CHAT_LLAMA2 && n && strcmp(m[0].role, "system") == 0) {
            sys = m[0].content;
            first = 1;
        }
        if (t->format == GK_CHAT_MISTRAL) s = gk__u_buf_puts(o, t->bos);
        for (i = first; i < n && s == GK_OK; i++) {
            size_t k = i - first;
            int is_user = strcmp(m[i].role, "user") == 0;
            const char *c = m[i].content;
            size_t cn = strlen(c);
            if (is_user != (k % 2 == 0))
                return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "chat template: conversation roles must alternate user/assistant/user/assistant/... (message %llu is '%.20s')", (unsigned long long)(i), m[i].role);
            if (t->format == GK_CHAT_MISTRAL) {
                if (is_user) {
                    s = gk__u_buf_puts(o, "[INST] ");
                    if (s == GK_OK) s = gk_buf_append(o, c, cn);
                    if (s == GK_OK) s = gk__u_buf_puts(o, " [/INST]");
                } else if (strcmp(m[i].role, "assistant") == 0) {
                    s = gk_buf_append(o, c, cn);
                    if (s == GK_OK) s = gk__u_buf_puts(o, t->eos);
                } else return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "chat template: only user and assistant roles are supported");
                continue;
            }
            if (is_user) {
                gk_buf tmp = {NULL, 0, 0};
                const char *tc;
                size_t tn;
                if (k == 0 && sys) {
                    s = gk__u_buf_puts(&tmp, "<<SYS>>\n");
                    if (s == GK_OK) s = gk__u_buf_puts(&tmp, sys);
                    if (s == GK_OK) s = gk__u_buf_puts(&tmp, "\n<</SYS>>\n\n");
                }
                if (s == GK_OK) s = gk_buf_append(&tmp, c, cn);
                tc = tmp.data ? tmp.data : "";
                tn = tmp.len;
                gk__chat_strip(&tc, &tn, NULL, 1, 1);
                if (s == GK_OK) s = gk__u_buf_puts(o, t->bos);
                if (s == GK_OK) s = gk__u_buf_puts(o, "[INST] ");
                if (s == GK_OK) s = gk_buf_append(o, tc, tn);
                if (s == GK_OK) s = gk__u_buf_puts(o, " [/INST]");
                gk_buf_free(&tmp);
            } else if (strcmp(m[i].role, "assistant") == 0) {
                gk__chat_strip(&c, &cn, NULL, 1, 1);
                s = gk__u_buf_puts(o, " ");
                if (s == GK_OK) s = gk_buf_append(o, c, cn);
                if (s == GK_OK) s = gk__u_buf_puts(o, " ");
                if (s == GK_OK) s = gk__u_buf_puts(o, t->eos);
            }
        }
        return s;
    }
    default: return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_apply: unknown chat format %d", (int)t->format);
    }
}

