/* test_llm_model: the transformer runtime of gpukit_llm.h (>>api_model).
   1. Small random models written here (Llama with llama3 RoPE in the new
      config form, Qwen2 with biases and bf16 weights, Qwen3 with q/k norm and
      tied embeddings, Mistral): the paths agree with each other (all-position
      prefill, token-by-token prefill, the decode graph, op-by-op decode,
      batched decode of prompts of different lengths, deterministic sampling).
   2. The HF transformers fixtures in tests/fixtures/llm/<case>/ (written by
      tests/gen_llm_fixtures.py): f32 logits at every prompt position (max
      error <= 1e-4 of the row's max |logit|), the greedy continuation and
      its step logits from the decode path, batched decode of two prompts,
      the tokenizer and the chat template; then bf16 compute against the
      same f32 logits (bound 3e-2; greedy tokens compared while HF's top-2
      margin exceeds 4x that bound of the row's max).
   3. Bad input: unsupported architecture and RoPE type, a missing tensor, a
      wrong shape, a tokenizer without vocab, prompts longer than the
      context, out of memory for the cache. */
#define GPUKIT_IMPLEMENTATION
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"
#include "tests/gkt.h"
#include "tests/gkt_util.h"
#include <sys/stat.h>

static gk_ctx *dut;
static char tmpdir[256];

/* ---- writing model folders ---- */
typedef struct wt { char name[96]; int nd; int64_t sh[2]; float *data; } wt;

/* safetensors with every tensor in dtype (F32, BF16 or F16) */
static void put_safetensors(const char *dir, const wt *ts, int n, gk_dtype dt) {
    char p[512], *hdr = (char *)malloc(65536);
    size_t hl = 0, off = 0, es = gk_dtype_size(dt);
    uint64_t hl8;
    int i;
    FILE *f;
    hl += (size_t)sprintf(hdr + hl, "{");
    for (i = 0; i < n; i++) {
        size_t numel = (size_t)ts[i].sh[0] * (size_t)(ts[i].nd == 2 ? ts[i].sh[1] : 1);
        if (ts[i].nd == 2)
            hl += (size_t)sprintf(hdr + hl, "%s\"%s\":{\"dtype\":\"%s\",\"shape\":[%lld,%lld],\"data_offsets\":[%llu,%llu]}", i ? "," : "", ts[i].name,
                                  dt == GK_F32 ? "F32" : dt == GK_BF16 ? "BF16" : "F16", (long long)ts[i].sh[0], (long long)ts[i].sh[1],
                                  (unsigned long long)off, (unsigned long long)(off + numel * es));
        else
            hl += (size_t)sprintf(hdr + hl, "%s\"%s\":{\"dtype\":\"%s\",\"shape\":[%lld],\"data_offsets\":[%llu,%llu]}", i ? "," : "", ts[i].name,
                                  dt == GK_F32 ? "F32" : dt == GK_BF16 ? "BF16" : "F16", (long long)ts[i].sh[0], (unsigned long long)off,
                                  (unsigned long long)(off + numel * es));
        off += numel * es;
    }
    hl += (size_t)sprintf(hdr + hl, "}");
    while (hl % 8) hdr[hl++] = ' ';
    snprintf(p, sizeof p, "%s/model.safetensors", dir);
    f = fopen(p, "wb");
    hl8 = hl;
    fwrite(&hl8, 8, 1, f);
    fwrite(hdr, 1, hl, f);
    for (i = 0; i < n; i++) {
        size_t numel = (size_t)ts[i].sh[0] * (size_t)(ts[i].nd == 2 ? ts[i].sh[1] : 1);
        void *buf = malloc(numel * es);
        gk_convert(dt, buf, GK_F32, ts[i].data, numel);
        fwrite(buf, es, numel, f);
        free(buf);
    }
    fclose(f);
    free(hdr);
}

/* a byte-level tokenizer: the printable ASCII bytes and a space, no merges, three specials */
static void put_tokenizer(const char *dir, int empty_vocab) {
    char *js = (char *)malloc(8192);
    size_t o = 0;
    int b, id = 0;
    o += (size_t)sprintf(js + o, "{\"added_tokens\":[{\"id\":95,\"content\":\"<|endoftext|>\",\"special\":true},"
                                 "{\"id\":96,\"content\":\"<|im_start|>\",\"special\":true},{\"id\":97,\"content\":\"<|im_end|>\",\"special\":true}],"
                                 "\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"use_regex\":false},"
                                 "\"decoder\":{\"type\":\"ByteLevel\"},\"model\":{\"type\":\"BPE\",\"vocab\":{");
    if (!empty_vocab) {
        o += (size_t)sprintf(js + o, "\"\\u010a\":98,\"\\u0120\":%d", id++);
        for (b = 33; b < 127; b++) {
            if (b == '"' || b == '\\') o += (size_t)sprintf(js + o, ",\"\\%c\":%d", b, id++);
            else o += (size_t)sprintf(js + o, ",\"%c\":%d", b, id++);
        }
    }
    o += (size_t)sprintf(js + o, "},\"merges\":[]}}");
    gkt_put_file(dir, "tokenizer.json", js);
    free(js);
}

typedef struct mcfg {
    const char *arch;
    int64_t hidden, layers, heads, kv, head_dim, inter, vocab;
    int tie, qkv_bias, qk_norm, new_rope, llama3;
    gk_dtype wdt;
    const char *skip;        /* leave this tensor out */
    const char *extra;       /* appended to config.json */
    int bad_inter;           /* config's intermediate_size off by this */
} mcfg;

static float rnd(double a) { return (float)gkt_uniform(-a, a); }

static void make_model(const char *dir, const mcfg *c) {
    char cfg[2048];
    wt *ts = (wt *)calloc(64, sizeof(wt));
    int n = 0, i;
    int64_t l, k, H = c->heads, KV = c->kv, D = c->head_dim, hid = c->hidden, I = c->inter, V = c->vocab;
    mkdir(dir, 0755);
#define ADD(nm, d0, d1, nd_, sc, base) do { \
        snprintf(ts[n].name, sizeof ts[n].name, "%s", nm); ts[n].nd = nd_; ts[n].sh[0] = d0; ts[n].sh[1] = d1; \
        ts[n].data = (float *)malloc(sizeof(float) * (size_t)((d0) * ((nd_) == 2 ? (d1) : 1))); \
        for (k = 0; k < (d0) * ((nd_) == 2 ? (d1) : 1); k++) ts[n].data[k] = (float)(base) + rnd(sc); \
        if (!c->skip || strcmp(c->skip, nm) != 0) n++; else free(ts[n].data); } while (0)
    ADD("model.embed_tokens.weight", V, hid, 2, 1.0, 0);
    ADD("model.norm.weight", hid, 0, 1, 0.1, 1);
    if (!c->tie) ADD("lm_head.weight", V, hid, 2, 0.2, 0);
    for (l = 0; l < c->layers; l++) {
        char nm[96];
#define L(s) (snprintf(nm, sizeof nm, "model.layers.%lld.%s", (long long)l, s), nm)
        ADD(L("input_layernorm.weight"), hid, 0, 1, 0.1, 1);
        ADD(L("post_attention_layernorm.weight"), hid, 0, 1, 0.1, 1);
        ADD(L("self_attn.q_proj.weight"), H * D, hid, 2, 0.25, 0);
        ADD(L("self_attn.k_proj.weight"), KV * D, hid, 2, 0.25, 0);
        ADD(L("self_attn.v_proj.weight"), KV * D, hid, 2, 0.25, 0);
        ADD(L("self_attn.o_proj.weight"), hid, H * D, 2, 0.15, 0);
        if (c->qkv_bias) {
            ADD(L("self_attn.q_proj.bias"), H * D, 0, 1, 0.3, 0);
            ADD(L("self_attn.k_proj.bias"), KV * D, 0, 1, 0.3, 0);
            ADD(L("self_attn.v_proj.bias"), KV * D, 0, 1, 0.3, 0);
        }
        if (c->qk_norm) {
            ADD(L("self_attn.q_norm.weight"), D, 0, 1, 0.2, 1);
            ADD(L("self_attn.k_norm.weight"), D, 0, 1, 0.2, 1);
        }
        ADD(L("mlp.gate_proj.weight"), I, hid, 2, 0.2, 0);
        ADD(L("mlp.up_proj.weight"), I, hid, 2, 0.2, 0);
        ADD(L("mlp.down_proj.weight"), hid, I, 2, 0.15, 0);
#undef L
    }
#undef ADD
    put_safetensors(dir, ts, n, c->wdt);
    for (i = 0; i < n; i++) free(ts[i].data);
    free(ts);
    snprintf(cfg, sizeof cfg,
             "{%s\"architectures\":[\"%s\"],\"hidden_size\":%lld,\"num_hidden_layers\":%lld,\"num_attention_heads\":%lld,"
             "\"num_key_value_heads\":%lld,\"head_dim\":%lld,\"intermediate_size\":%lld,\"vocab_size\":%lld,\"max_position_embeddings\":131072,"
             "\"rms_norm_eps\":1e-5,\"tie_word_embeddings\":%s,%s\"bos_token_id\":95,\"eos_token_id\":97,%s\"torch_dtype\":\"float32\"}",
             c->extra ? c->extra : "", c->arch, (long long)hid, (long long)c->layers, (long long)H, (long long)KV, (long long)D, (long long)(I + c->bad_inter), (long long)V,
             c->tie ? "true" : "false",
             /* a key of extra replaces the default (a key given twice is an error) */
             c->extra && strstr(c->extra, "\"hidden_act\"") ? "" : "\"hidden_act\":\"silu\",",
             c->extra && strstr(c->extra, "\"rope_scaling\"") ? "\"rope_theta\":10000.0," : c->new_rope ? (c->llama3 ? "\"rope_parameters\":{\"rope_type\":\"llama3\",\"rope_theta\":500000.0,\"factor\":8.0,\"low_freq_factor\":1.0,"
                                        "\"high_freq_factor\":4.0,\"original_max_position_embeddings\":64}," : "\"rope_parameters\":{\"rope_type\":\"default\",\"rope_theta\":1000000.0},")
                         : "\"rope_theta\":10000.0,\"rope_scaling\":null,");
    gkt_put_file(dir, "config.json", cfg);
    gkt_put_file(dir, "generation_config.json", "{\"do_sample\":true,\"temperature\":0.7,\"top_k\":20,\"top_p\":0.9,\"eos_token_id\":[97,95],\"max_new_tokens\":12}");
    put_tokenizer(dir, 0);
    /* a ChatML template: in tokenizer_config.json, or (Qwen3 here) in chat_template.jinja as newer HF saves write it */
    if (c->qk_norm) {
        gkt_put_file(dir, "tokenizer_config.json", "{\"eos_token\":\"<|im_end|>\",\"bos_token\":null}");
        gkt_put_file(dir, "chat_template.jinja", "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}"
                                             "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}");
    } else
        gkt_put_file(dir, "tokenizer_config.json", "{\"eos_token\":\"<|im_end|>\",\"bos_token\":null,\"chat_template\":\"{% for message in messages %}"
                                               "{{'<|im_start|>' + message['role'] + '\\\\n' + message['content'] + '<|im_end|>' + '\\\\n'}}{% endfor %}"
                                               "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\\\n' }}{% endif %}\"}");
}

/* ---- checks ---- */
static gk_llm *load(const char *dir, gk_llm_dtype dt, int max_seqs, int64_t max_ctx, int no_graphs) {
    gk_llm *m = NULL;
    gk_llm_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = dt; d.max_seqs = max_seqs; d.max_ctx = max_ctx; d.no_graphs = no_graphs;
    GKT_OK(dut, gk_llm_load(dut, dir, &d, &m));
    return m;
}

static int count_and_stop(int seq, int32_t id, const char *text, size_t len, void *user) {
    (void)seq; (void)id; (void)text; (void)len;
    return ++*(int *)user == 3;
}

/* the paths of one model agree with each other (f32) */
static void self_consistency(const char *name, const char *dir) {
    static const int32_t p1[7] = { 40, 72, 79, 79, 82, 0, 5 }, p2[3] = { 3, 1, 4 }, p3[11] = { 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 94 };
    gk_llm *m = load(dir, GK_LLM_DTYPE_F32, 3, 64, 0), *m2;
    int64_t V, T = 7, t, k;
    float *all, *one, *steps, *ref;
    gk_ids g = { 0, 0, 0 }, g2 = { 0, 0, 0 }, gb[3];
    gk_llm_gen_desc gd;
    gk_llm_stats stt;
    const int32_t *ps[3];
    size_t ls[3];
    int i;
    if (!m) return;
    V = gk_llm_get_config(m)->vocab;
    all = (float *)malloc(sizeof(float) * (size_t)(V * 32));
    one = (float *)malloc(sizeof(float) * (size_t)V);
    steps = (float *)malloc(sizeof(float) * (size_t)(V * 8));
    ref = (float *)malloc(sizeof(float) * (size_t)(V * 32));
    /* all positions at once vs one token at a time (each a prefill over the cache) */
    GKT_OK(dut, gk_llm_forward(m, 1, p1, 7, 1, all));
    GKT_CHECK(gk_llm_seq_len(m, 1) == 7, "%s: length %lld after 7 tokens", name, (long long)gk_llm_seq_len(m, 1));
    GKT_OK(dut, gk_llm_reset(m, 1));
    for (t = 0; t < T; t++) {
        double e;
        GKT_OK(dut, gk_llm_forward(m, 1, p1 + t, 1, 0, one));
        e = gkt_max_err(one, all + t * V, V);
        GKT_CHECK(e <= 1e-4, "%s: position %lld one at a time vs all at once: %.3g", name, (long long)t, e);
    }
    /* a prefill continuing a cached sequence (4 tokens, then 3) */
    GKT_OK(dut, gk_llm_reset(m, 0));
    GKT_OK(dut, gk_llm_forward(m, 0, p1, 4, 0, one));
    GKT_OK(dut, gk_llm_forward(m, 0, p1 + 4, 3, 1, ref));
    for (t = 0; t < 3; t++) {
        double e = gkt_max_err(ref + t * V, all + (4 + t) * V, V);
        GKT_CHECK(e <= 1e-4, "%s: continued prefill position %lld: %.3g", name, (long long)(4 + t), e);
    }
    /* the decode path (graph after a warm-up step) vs prefill logits */
    memset(&gd, 0, sizeof gd);
    gd.max_new_tokens = 8; gd.sampling = GK_LLM_SAMPLE_GREEDY; gd.flags = GK_LLM_GEN_IGNORE_EOS; gd.step_logits = steps;
    ps[0] = p1; ls[0] = 7;
    GKT_OK(dut, gk_llm_generate_batch(m, ps, ls, 1, &gd, &g, NULL, &stt));
    GKT_CHECK(g.len == 8 && stt.new_tokens == 8 && stt.prompt_tokens == 7 && stt.decode_steps == 7, "%s: %zu tokens, stats %lld %lld %lld", name, g.len,
              (long long)stt.new_tokens, (long long)stt.prompt_tokens, (long long)stt.decode_steps);
    if (g.len == 8) {
        int32_t seq[16];
        memcpy(seq, p1, sizeof p1);
        for (k = 0; k < 8; k++) seq[7 + k] = g.data[k];
        GKT_OK(dut, gk_llm_reset(m, 2));
        GKT_OK(dut, gk_llm_forward(m, 2, seq, 14, 1, ref));
        for (k = 0; k < 8; k++) {
            double e = gkt_max_err(steps + k * V, ref + (6 + k) * V, V);
            GKT_CHECK(e <= 1e-4, "%s: decode step %lld logits vs prefill: %.3g", name, (long long)k, e);
            GKT_CHECK(g.data[k] == gkt_argmax(ref + (6 + k) * V, V), "%s: greedy token %lld is %d, argmax %d", name, (long long)k, g.data[k],
                      gkt_argmax(ref + (6 + k) * V, V));
        }
    }
    /* op by op (no graphs) gives the same tokens */
    m2 = load(dir, GK_LLM_DTYPE_F32, 1, 64, 1);
    if (m2) {
        gd.step_logits = NULL;
        GKT_OK(dut, gk_llm_generate_batch(m2, ps, ls, 1, &gd, &g2, NULL, NULL));
        GKT_CHECK(g2.len == g.len && g.len && memcmp(g.data, g2.data, g.len * 4) == 0, "%s: no-graph decode differs", name);
        gk_llm_free(m2);
    }
    /* batched decode of three prompts of different lengths = each alone */
    ps[0] = p1; ps[1] = p2; ps[2] = p3; ls[0] = 7; ls[1] = 3; ls[2] = 11;
    memset(gb, 0, sizeof gb);
    gd.step_logits = NULL;
    GKT_OK(dut, gk_llm_generate_batch(m, ps, ls, 3, &gd, gb, NULL, NULL));
    for (i = 0; i < 3; i++) {
        gk_ids s1 = { 0, 0, 0 };
        GKT_OK(dut, gk_llm_generate_batch(m, ps + i, ls + i, 1, &gd, &s1, NULL, NULL));
        GKT_CHECK(s1.len == 8 && gb[i].len == 8 && memcmp(s1.data, gb[i].data, 32) == 0, "%s: batched prompt %d differs from alone", name, i);
        gk_ids_free(&s1);
        gk_ids_free(&gb[i]);
    }
    /* decode across cache buckets (attention over 256, then 512 rows: gk__llm_decode): the steps at
       positions 250..261 against prefill logits, and a batch of two (the bucket follows the longer) */
    m2 = load(dir, GK_LLM_DTYPE_F32, 2, 600, 0);
    if (m2) {
        enum { PL = 250, NG = 12 };
        int32_t *lp = (int32_t *)malloc(sizeof(int32_t) * (PL + NG));
        float *st2 = (float *)malloc(sizeof(float) * (size_t)(V * NG)), *rf2 = (float *)malloc(sizeof(float) * (size_t)(V * (PL + NG)));
        gk_ids l1 = { 0, 0, 0 }, lb[2];
        const int32_t *lps[2];
        size_t lls[2];
        for (k = 0; k < PL; k++) lp[k] = (int32_t)((k * 37 + 11) % V);
        memset(&gd, 0, sizeof gd);
        gd.max_new_tokens = NG; gd.sampling = GK_LLM_SAMPLE_GREEDY; gd.flags = GK_LLM_GEN_IGNORE_EOS; gd.step_logits = st2;
        lps[0] = lp; lls[0] = PL;
        GKT_OK(dut, gk_llm_generate_batch(m2, lps, lls, 1, &gd, &l1, NULL, NULL));
        GKT_CHECK(l1.len == NG, "%s: %zu tokens across the 256-row bucket", name, l1.len);
        if (l1.len == NG) {
            for (k = 0; k < NG; k++) lp[PL + k] = l1.data[k];
            GKT_OK(dut, gk_llm_reset(m2, 1));
            GKT_OK(dut, gk_llm_forward(m2, 1, lp, PL + NG, 1, rf2));
            for (k = 0; k < NG; k++) {
                double e = gkt_max_err(st2 + k * V, rf2 + (PL - 1 + k) * V, V);
                GKT_CHECK(e <= 1e-4, "%s: decode at position %lld (buckets) vs prefill: %.3g", name, (long long)(PL - 1 + k), e);
            }
        }
        gd.step_logits = NULL;
        lps[1] = p2; lls[1] = 3;
        memset(lb, 0, sizeof lb);
        GKT_OK(dut, gk_llm_generate_batch(m2, lps, lls, 2, &gd, lb, NULL, NULL));
        GKT_CHECK(lb[0].len == NG && l1.len == NG && memcmp(lb[0].data, l1.data, NG * 4) == 0, "%s: batched decode across buckets differs", name);
        gk_ids_free(&l1);
        GKT_OK(dut, gk_llm_generate_batch(m2, lps + 1, lls + 1, 1, &gd, &l1, NULL, NULL));
        GKT_CHECK(lb[1].len == NG && l1.len == NG && memcmp(lb[1].data, l1.data, NG * 4) == 0, "%s: the short prompt batched with a long one differs", name);
        gk_ids_free(&lb[0]); gk_ids_free(&lb[1]); gk_ids_free(&l1);
        free(lp); free(st2); free(rf2);
        gk_llm_free(m2);
    }
    /* sampling from generation_config.json: deterministic for a seed; penalties run */
    {
        gk_ids a = { 0, 0, 0 }, b = { 0, 0, 0 }, c = { 0, 0, 0 };
        memset(&gd, 0, sizeof gd);
        gd.seed = 1234; gd.flags = GK_LLM_GEN_IGNORE_EOS;
        GKT_OK(dut, gk_llm_generate_batch(m, ps, ls, 1, &gd, &a, NULL, NULL));
        GKT_OK(dut, gk_llm_generate_batch(m, ps, ls, 1, &gd, &b, NULL, NULL));
        GKT_CHECK(a.len == 12 && a.len == b.len && memcmp(a.data, b.data, a.len * 4) == 0, "%s: sampling with a seed is not repeatable (%zu, %zu)", name,
                  a.len, b.len);
        gd.sampling = GK_LLM_SAMPLE_CUSTOM;
        gd.sample.temperature = 0;
        gd.sample.repetition_penalty = 1.5f;
        gd.max_new_tokens = 6;
        GKT_OK(dut, gk_llm_generate_batch(m, ps, ls, 1, &gd, &c, NULL, NULL));
        GKT_CHECK(c.len == 6, "%s: penalised greedy gave %zu tokens", name, c.len);
        gk_ids_free(&a); gk_ids_free(&b); gk_ids_free(&c);
    }
    /* the chat template (ChatML) and the tokenizer: <|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n */
    {
        static const int32_t want[17] = { 96, 'u' - 32, 's' - 32, 'e' - 32, 'r' - 32, 98, 'H' - 32, 'i' - 32, 97, 98, 96,
                                          'a' - 32, 's' - 32, 's' - 32, 'i' - 32, 's' - 32, 't' - 32 };
        gk_chat_message msg;
        gk_ids ci = { 0, 0, 0 };
        msg.role = "user"; msg.content = "Hi";
        GKT_OK(dut, gk_llm_chat_ids(m, &msg, 1, 0, &ci));
        GKT_CHECK(ci.len == 21 && memcmp(ci.data, want, sizeof want) == 0 && ci.data[20] == 98, "%s: chat ids (%zu)", name, ci.len);
        gk_ids_free(&ci);
    }
    /* stop strings and a callback that stops */
    {
        gk_buf t0 = { 0, 0, 0 }, t1 = { 0, 0, 0 };
        gk_ids i1 = { 0, 0, 0 };
        int calls = 0;
        memset(&gd, 0, sizeof gd);
        gd.max_new_tokens = 10; gd.sampling = GK_LLM_SAMPLE_GREEDY; gd.flags = GK_LLM_GEN_IGNORE_EOS;
        ps[0] = p1; ls[0] = 7;
        GKT_OK(dut, gk_llm_generate_batch(m, ps, ls, 1, &gd, NULL, &t0, NULL));
        if (t0.len >= 4) {
            char stop[3];
            const char *stops[1];
            size_t at;
            stop[0] = t0.data[2]; stop[1] = t0.data[3]; stop[2] = 0;
            at = (size_t)(strstr(t0.data, stop) - t0.data);
            stops[0] = stop;
            gd.stop = stops; gd.n_stop = 1;
            GKT_OK(dut, gk_llm_generate_batch(m, ps, ls, 1, &gd, &i1, &t1, NULL));
            GKT_CHECK(t1.len == at && (at == 0 || memcmp(t1.data, t0.data, at) == 0) && i1.len >= 1 && i1.len <= 10, "%s: stop string \"%s\" in \"%s\": got \"%s\"", name, stop, t0.data,
                      t1.data ? t1.data : "");
        }
        gk_ids_free(&i1);
        gd.stop = NULL; gd.n_stop = 0;
        gd.on_token = count_and_stop; gd.user = &calls;
        GKT_OK(dut, gk_llm_generate_batch(m, ps, ls, 1, &gd, &i1, NULL, NULL));
        GKT_CHECK(i1.len == 3 && calls == 3, "%s: the callback stopped after %d calls, %zu ids", name, calls, i1.len);
        gk_ids_free(&i1); gk_buf_free(&t0); gk_buf_free(&t1);
    }
    gk_ids_free(&g); gk_ids_free(&g2);
    free(all); free(one); free(steps); free(ref);
    gk_llm_free(m);
}

static void bad_inputs(void) {
    char d[320];
    gk_llm *m = NULL;
    mcfg c;
    memset(&c, 0, sizeof c);
    c.arch = "LlamaForCausalLM"; c.hidden = 32; c.layers = 2; c.heads = 4; c.kv = 2; c.head_dim = 8; c.inter = 48; c.vocab = 100; c.wdt = GK_F32;
    snprintf(d, sizeof d, "%s/bad_arch", tmpdir);
    c.arch = "GPT2LMHeadModel";
    make_model(d, &c);
    GKT_FAILS(dut, gk_llm_load(dut, d, NULL, &m), GK_ERR_UNSUPPORTED, "architecture GPT2LMHeadModel is not supported");
    GKT_CHECK(m == NULL, "no model after a failed load");
    c.arch = "LlamaForCausalLM";
    snprintf(d, sizeof d, "%s/bad_missing", tmpdir);
    c.skip = "model.layers.1.mlp.up_proj.weight";
    make_model(d, &c);
    GKT_FAILS(dut, gk_llm_load(dut, d, NULL, &m), GK_ERR_NOT_FOUND, "tensor model.layers.1.mlp.up_proj.weight is missing");
    c.skip = NULL;
    snprintf(d, sizeof d, "%s/bad_shape", tmpdir);
    c.bad_inter = 8;
    make_model(d, &c);
    GKT_FAILS(dut, gk_llm_load(dut, d, NULL, &m), GK_ERR_SHAPE, "model.layers.0.mlp.gate_proj.weight has shape [48, 32]; the config says [56, 32]");
    c.bad_inter = 0;
    snprintf(d, sizeof d, "%s/bad_rope", tmpdir);
    c.extra = "\"rope_scaling\":{\"rope_type\":\"longrope\",\"factor\":2.0},";
    make_model(d, &c);
    GKT_FAILS(dut, gk_llm_load(dut, d, NULL, &m), GK_ERR_UNSUPPORTED, "RoPE type \"longrope\"");
    c.extra = "\"hidden_act\":\"gelu\",";
    make_model(d, &c);
    GKT_FAILS(dut, gk_llm_load(dut, d, NULL, &m), GK_ERR_UNSUPPORTED, "hidden_act \"gelu\"");
    c.extra = NULL;
    snprintf(d, sizeof d, "%s/bad_tok", tmpdir);
    make_model(d, &c);
    put_tokenizer(d, 1);
    {
        gk_status st = gk_llm_load(dut, d, NULL, &m);
        GKT_CHECK(st != GK_OK && m == NULL && strstr(gk_last_error(dut), "vocab"), "a tokenizer without vocab: %s %s", gk_status_name(st), gk_last_error(dut));
    }
    /* where errors go (gpukit_llm.h ERRORS): a failure in the tokenizer's JSON
       is the model's context's, named by file, and the thread's message stays */
    gkt_put_file(d, "tokenizer.json", "{\"model\": [");
    gk_error_set(NULL, GK_OK, "thread untouched");
    GKT_FAILS(dut, gk_llm_load(dut, d, NULL, &m), GK_ERR_FORMAT, "/bad_tok/tokenizer.json: JSON: unexpected end of input");
    GKT_CHECK(strncmp(gk_last_error(dut), "gk_llm_load: ", 13) == 0, "the message starts with the call: %s", gk_last_error(dut));
    GKT_CHECK(strcmp(gk_last_error(NULL), "thread untouched") == 0, "gk_llm_load wrote the thread's message: %s", gk_last_error(NULL));
    /* the context: prompts that do not fit */
    snprintf(d, sizeof d, "%s/good", tmpdir);
    make_model(d, &c);
    m = load(d, GK_LLM_DTYPE_F32, 1, 8, 0);
    if (m) {
        static const int32_t ids[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
        const int32_t *p = ids;
        size_t n = 8;
        gk_ids out = { 0, 0, 0 };
        GKT_FAILS(dut, gk_llm_generate_batch(m, &p, &n, 1, NULL, &out, NULL, NULL), GK_ERR_LIMIT, "prompt 0 of 8 tokens leaves no room in the context of 8");
        GKT_CHECK(out.len == 0, "no tokens after a refused prompt");
        GKT_FAILS(dut, gk_llm_forward(m, 0, ids, 9, 0, NULL), GK_ERR_LIMIT, "9 tokens after 0 in sequence 0 exceed the context of 8");
        GKT_OK(dut, gk_llm_forward(m, 0, ids, 5, 0, NULL));
        GKT_FAILS(dut, gk_llm_forward(m, 0, ids, 4, 0, NULL), GK_ERR_LIMIT, "4 tokens after 5 in sequence 0 exceed the context of 8");
        GKT_CHECK(gk_llm_seq_len(m, 0) == 5, "the refused call left the sequence at %lld", (long long)gk_llm_seq_len(m, 0));
        GKT_FAILS(dut, gk_llm_forward(m, 0, ids + 8, 1, 0, NULL), GK_OK, "");
        {
            int32_t bad = 100;
            GKT_FAILS(dut, gk_llm_forward(m, 0, &bad, 1, 0, NULL), GK_ERR_INVALID_ARGUMENT, "token id 100 at ids[0] is outside the vocab [0, 100)");
        }
        n = 2;
        GKT_FAILS(dut, gk_llm_generate_batch(m, &p, &n, 2, NULL, &out, NULL, NULL), GK_ERR_LIMIT, "2 prompts but the model was loaded with max_seqs 1");
        {   /* a model call that fails in the (context-free) chat template reports on the context;
               no model: the thread's message, and the context's stays */
            gk_chat_message nobody = { NULL, "hi" };
            gk_error_set(NULL, GK_OK, "thread untouched");
            GKT_FAILS(dut, gk_llm_chat_ids(m, &nobody, 1, 0, &out), GK_ERR_INVALID_ARGUMENT, "gk_llm_chat_ids: gk_chat_apply: msgs[0].role is NULL");
            GKT_CHECK(strcmp(gk_last_error(NULL), "thread untouched") == 0, "gk_llm_chat_ids wrote the thread's message: %s", gk_last_error(NULL));
            gk_error_set(dut, GK_OK, "ctx untouched");
            GKT_FAILS(NULL, gk_llm_forward(NULL, 0, ids, 1, 0, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_forward: m is NULL");
            GKT_CHECK(strcmp(gk_last_error(dut), "ctx untouched") == 0, "a NULL model wrote the context's message: %s", gk_last_error(dut));
        }
        /* a generation that reaches the end of the context stops there */
        n = 5;
        {
            gk_llm_gen_desc gd;
            memset(&gd, 0, sizeof gd);
            gd.max_new_tokens = 50; gd.flags = GK_LLM_GEN_IGNORE_EOS; gd.sampling = GK_LLM_SAMPLE_GREEDY;
            GKT_OK(dut, gk_llm_generate_batch(m, &p, &n, 1, &gd, &out, NULL, NULL));
            GKT_CHECK(out.len == 3, "5 prompt tokens in a context of 8: %zu new tokens (3 expected)", out.len);
        }
        gk_ids_free(&out);
        gk_llm_free(m);
    }
    /* out of memory for the requested context: a small quota */
    {
        gk_ctx *small = NULL;
        gk_ctx_desc cd;
        gk_llm_desc ld;
        gk_status st;
        memset(&cd, 0, sizeof cd);
        cd.backend = GK_BACKEND_CPU;
        cd.memory_quota = 4 << 20;
        cd.log_level = GK_LOG_OFF;
        GKT_OK(NULL, gk_ctx_create(&cd, &small));
        memset(&ld, 0, sizeof ld);
        ld.max_ctx = 100000; ld.max_seqs = 4;
        m = NULL;
        st = gk_llm_load(small, d, &ld, &m);
        GKT_CHECK(st == GK_ERR_OUT_OF_MEMORY && m == NULL && strstr(gk_last_error(small), "KV cache of 4 x 100000 tokens"), "OOM for the cache: %s %s",
                  gk_status_name(st), gk_last_error(small));
        ld.max_ctx = 64; ld.max_seqs = 1;
        GKT_OK(small, gk_llm_load(small, d, &ld, &m));
        gk_llm_free(m);
        gk_ctx_destroy(small);
    }
}

/* ---- HF fixtures ---- */
static int read_i64(gk_safetensors *st, const char *name, int32_t **out, size_t *n) {
    const gk_st_tensor_info *ti = gk_st_find(st, name);
    int64_t *t;
    size_t i;
    *out = NULL; *n = 0;
    if (!ti) return 0;
    t = (int64_t *)malloc(sizeof(int64_t) * (size_t)(ti->numel + 1));
    *out = (int32_t *)malloc(sizeof(int32_t) * (size_t)(ti->numel + 1));
    gk_st_read(st, name, GK_I64, t, sizeof(int64_t) * (size_t)ti->numel);
    for (i = 0; i < ti->numel; i++) (*out)[i] = (int32_t)t[i];
    *n = (size_t)ti->numel;
    free(t);
    return 1;
}
static float *read_f32(gk_safetensors *st, const char *name, size_t *n) {
    const gk_st_tensor_info *ti = gk_st_find(st, name);
    float *f;
    if (!ti) return NULL;
    f = (float *)malloc(sizeof(float) * (size_t)ti->numel);
    gk_st_read(st, name, GK_F32, f, sizeof(float) * (size_t)ti->numel);
    *n = (size_t)ti->numel;
    return f;
}

static void fixture_case(const char *name, gk_llm_dtype dt, double bound) {
    char dir[256], p[320];
    gk_safetensors *st = NULL;
    gk_json *ej = NULL;
    int32_t *prompt = NULL, *greedy = NULL, *prompt2 = NULL, *greedy2 = NULL, *chat = NULL;
    size_t np = 0, ng = 0, np2 = 0, ng2 = 0, nc = 0, nl = 0, nsl = 0, i;
    float *logits = NULL, *slog = NULL, *got = NULL, *steps = NULL;
    gk_llm *m;
    int64_t V;
    int f32 = dt == GK_LLM_DTYPE_F32;
    const char *dn = f32 ? "f32" : "bf16";
    snprintf(dir, sizeof dir, "tests/fixtures/llm/%s", name);
    snprintf(p, sizeof p, "%s/expected.safetensors", dir);
    if (gk_st_open(p, &st) != GK_OK) { printf("%s: no fixture (%s)\n", name, gk_last_error(NULL)); return; }
    snprintf(p, sizeof p, "%s/expected.json", dir);
    GKT_CHECK(gk_json_parse_file(p, NULL, &ej) == GK_OK, "%s: expected.json: %s", name, gk_last_error(NULL));
    read_i64(st, "prompt_ids", &prompt, &np);
    read_i64(st, "greedy_ids", &greedy, &ng);
    read_i64(st, "prompt2_ids", &prompt2, &np2);
    read_i64(st, "greedy2_ids", &greedy2, &ng2);
    read_i64(st, "chat_ids", &chat, &nc);
    logits = read_f32(st, "logits", &nl);
    slog = read_f32(st, "step_logits", &nsl);
    m = load(dir, dt, 2, 128, 0);
    if (!m || !prompt || !greedy || !logits || !slog || !ej) goto out;
    V = gk_llm_get_config(m)->vocab;
    GKT_CHECK(nl == np * (size_t)V && nsl == ng * (size_t)V, "%s: fixture sizes", name);
    if (nl != np * (size_t)V || nsl != ng * (size_t)V) goto out;
    printf("%s %s: %s, weights %s, %s rope config\n", name, dn, gk_llm_get_config(m)->arch_name, gk_dtype_name(gk_llm_get_config(m)->weights_dtype),
           gk_llm_get_config(m)->new_rope_form ? "new" : "old");
    /* the tokenizer and the chat template */
    if (f32) {
        const char *text = gk_json_get_string(gk_json_root(ej), "prompt", "");
        const gk_json_value *msgs = gk_json_get(gk_json_root(ej), "messages");
        gk_ids ids = { 0, 0, 0 };
        gk_chat_message cm[8];
        size_t k, nm = gk_json_len(msgs) < 8 ? gk_json_len(msgs) : 8;
        GKT_OK(NULL, gk_tokenizer_encode(gk_llm_tokenizer(m), text, strlen(text), GK_TOK_ADD_SPECIAL, &ids));
        GKT_CHECK(ids.len == np && memcmp(ids.data, prompt, np * 4) == 0, "%s: the prompt tokenizes to %zu ids, HF %zu", name, ids.len, np);
        gk_ids_free(&ids);
        for (k = 0; k < nm; k++) {
            cm[k].role = gk_json_get_string(gk_json_at(msgs, k), "role", "");
            cm[k].content = gk_json_get_string(gk_json_at(msgs, k), "content", "");
        }
        if (chat) {
            GKT_OK(dut, gk_llm_chat_ids(m, cm, nm, 0, &ids));
            GKT_CHECK(ids.len == nc && memcmp(ids.data, chat, nc * 4) == 0, "%s: chat template gives %zu ids, HF %zu", name, ids.len, nc);
            gk_ids_free(&ids);
        }
    }
    /* logits at every prompt position */
    got = (float *)malloc(sizeof(float) * nl);
    GKT_OK(dut, gk_llm_forward(m, 0, prompt, np, 1, got));
    {
        double worst = 0;
        for (i = 0; i < np; i++) {
            double e = gkt_max_err(got + i * (size_t)V, logits + i * (size_t)V, V);
            if (e > worst) worst = e;
        }
        GKT_CHECK(worst <= bound, "%s %s: prompt logits max error %.3g (bound %.1g)", name, dn, worst, bound);
        printf("%s %s: prompt logits max error %.3g\n", name, dn, worst);
    }
    /* the greedy continuation from the decode path, and its step logits */
    {
        gk_llm_gen_desc gd;
        gk_ids g = { 0, 0, 0 };
        size_t k, upto = ng;
        double worst = 0;
        memset(&gd, 0, sizeof gd);
        steps = (float *)malloc(sizeof(float) * nsl);
        gd.max_new_tokens = (int64_t)ng; gd.sampling = GK_LLM_SAMPLE_GREEDY; gd.flags = GK_LLM_GEN_IGNORE_EOS; gd.step_logits = steps;
        GKT_OK(dut, gk_llm_generate_batch(m, (const int32_t *const *)&prompt, &np, 1, &gd, &g, NULL, NULL));
        if (!f32) /* bf16: compare tokens while HF's top-2 margin is clearly above the error */
            for (k = 0; k < ng && upto == ng; k++) {
                const float *r = slog + k * (size_t)V;
                int32_t a = gkt_argmax(r, V);
                float best2 = -INFINITY, mx = 0;
                int64_t j;
                for (j = 0; j < V; j++) {
                    if (j != a && r[j] > best2) best2 = r[j];
                    if (fabsf(r[j]) > mx) mx = fabsf(r[j]);
                }
                if (r[a] - best2 < 4 * bound * mx) upto = k; /* this token may flip: compare those before it */
            }
        GKT_CHECK(g.len == ng && memcmp(g.data, greedy, upto * 4) == 0, "%s %s: greedy ids differ (first %zu compared)", name, dn, upto);
        /* step logits while the contexts agree (through the first token that may flip) */
        for (k = 0; k < g.len && k <= upto && k < ng; k++) {
            double e = gkt_max_err(steps + k * (size_t)V, slog + k * (size_t)V, V);
            if (e > worst) worst = e;
        }
        GKT_CHECK(worst <= bound, "%s %s: step logits max error %.3g", name, dn, worst);
        printf("%s %s: greedy %zu/%zu tokens compared, step logits max error %.3g\n", name, dn, upto, ng, worst);
        gk_ids_free(&g);
    }
    /* batched decode of the two prompts */
    if (prompt2 && greedy2 && f32) {
        const int32_t *ps[2];
        size_t ls[2];
        gk_ids g[2];
        gk_llm_gen_desc gd;
        memset(g, 0, sizeof g);
        memset(&gd, 0, sizeof gd);
        ps[0] = prompt; ps[1] = prompt2; ls[0] = np; ls[1] = np2;
        gd.max_new_tokens = (int64_t)ng; gd.sampling = GK_LLM_SAMPLE_GREEDY; gd.flags = GK_LLM_GEN_IGNORE_EOS;
        GKT_OK(dut, gk_llm_generate_batch(m, ps, ls, 2, &gd, g, NULL, NULL));
        GKT_CHECK(g[0].len == ng && memcmp(g[0].data, greedy, ng * 4) == 0, "%s: batched prompt 1 differs", name);
        GKT_CHECK(g[1].len == ng2 && memcmp(g[1].data, greedy2, ng2 * 4) == 0, "%s: batched prompt 2 differs", name);
        gk_ids_free(&g[0]); gk_ids_free(&g[1]);
    }
out:
    gk_llm_free(m);
    gk_st_close(st);
    gk_json_free(ej);
    free(prompt); free(greedy); free(prompt2); free(greedy2); free(chat); free(logits); free(slog); free(got); free(steps);
}

int main(void) {
    static const char *cases[5] = { "llama2", "llama3", "mistral", "qwen2", "qwen3" };
    gk_device_info info;
    mcfg c;
    char d[320];
    int i;
    gkt_seed();
    dut = gkt_dut();
    snprintf(tmpdir, sizeof tmpdir, "build/test_llm_model.%ld", (long)time(NULL) ^ (long)clock());
    mkdir("build", 0755);
    mkdir(tmpdir, 0755);
    /* small random models: Llama (llama3 RoPE, new form), Qwen2 (biases, bf16 file), Qwen3 (q/k norm, tied), Mistral (f16 file) */
    memset(&c, 0, sizeof c);
    c.arch = "LlamaForCausalLM"; c.hidden = 64; c.layers = 2; c.heads = 4; c.kv = 2; c.head_dim = 16; c.inter = 96; c.vocab = 128;
    c.new_rope = 1; c.llama3 = 1; c.wdt = GK_F32;
    snprintf(d, sizeof d, "%s/llama", tmpdir); make_model(d, &c); self_consistency("self llama", d);
    c.arch = "Qwen2ForCausalLM"; c.new_rope = 0; c.llama3 = 0; c.qkv_bias = 1; c.kv = 1; c.wdt = GK_BF16;
    snprintf(d, sizeof d, "%s/qwen2", tmpdir); make_model(d, &c); self_consistency("self qwen2", d);
    c.arch = "Qwen3ForCausalLM"; c.qkv_bias = 0; c.qk_norm = 1; c.tie = 1; c.kv = 2; c.head_dim = 32; c.new_rope = 1; c.wdt = GK_F32;
    snprintf(d, sizeof d, "%s/qwen3", tmpdir); make_model(d, &c); self_consistency("self qwen3", d);
    c.arch = "MistralForCausalLM"; c.qk_norm = 0; c.tie = 0; c.head_dim = 16; c.kv = 4; c.new_rope = 0; c.wdt = GK_F16;
    c.extra = "\"sliding_window\":null,";
    snprintf(d, sizeof d, "%s/mistral", tmpdir); make_model(d, &c); self_consistency("self mistral", d);
    bad_inputs();
    for (i = 0; i < 5; i++) fixture_case(cases[i], GK_LLM_DTYPE_F32, 1e-4);
    /* bf16 compute (both backends) against HF's f32 logits */
    (void)info;
    for (i = 0; i < 5; i++) fixture_case(cases[i], GK_LLM_DTYPE_BF16, 3e-2);
    gk_ctx_destroy(dut);
    {   /* the model folders written above */
        char cmd[320];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (getenv("GKT_LLM_KEEP")) printf("model folders kept in %s\n", tmpdir);
        else if (system(cmd) != 0) printf("could not remove %s\n", tmpdir);
    }
    return gkt_done("test_llm_model");
}
