/* test_whisper_model: the Whisper model of gpukit_llm.h (>>api_whisper).
   1. Small random models written here (f32 and bf16 weights, 80 and 128
      mels, one and two decoder layers): the paths agree with each other:
      two windows encoded together = each alone; the decoder's logits token
      by token over the KV cache = all positions at once = a prefill
      continuing the cache; the slots keep their own windows; greedy
      transcription is repeatable, each of its tokens is the first largest
      filtered logit of a full recompute of its prefix, and the timestamp
      rules hold; the decode step of two windows of three rows (skipped
      rows, graph replays, beam reorders between steps) gives each row the
      logits of its whole sequence decoded alone, and its log-sum-exp.
   2. Bad input: a folder missing config.json, the weights or a tensor (each
      named), a config that does not match the weights (the tensor and both
      shapes named), bad config fields, bad arguments and states, a folder
      that names no special tokens.
   3. The HF transformers fixtures in tests/fixtures/whisper/<case>/ (written
      by tests/gen_whisper_fixtures.py on the GPU machine): log-mel of the
      fixture audio, encoder output on HF's features, decoder logits of a
      token prefix (f32 compute: 1e-4 of the largest value; bf16 compute:
      3e-2 and 5e-2), and HF's greedy ids with and without timestamps,
      exactly (f32). Without the folder this part says so and is skipped. */
#define GPUKIT_IMPLEMENTATION
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"
#include "tests/gkt.h"
#include "tests/gkt_util.h"
#include <sys/stat.h>

static gk_ctx *dut;
static char tmpdir[256];

#define FIX "tests/fixtures/whisper"
static const char *fixdir = FIX; /* GKT_WHISPER_FIXTURES overrides it */

/* ---- writing model folders ---- */
typedef struct wt { char name[112]; int nd; int64_t sh[3]; float *data; } wt;
static size_t wt_numel(const wt *t) {
    size_t n = 1;
    int k;
    for (k = 0; k < t->nd; k++) n *= (size_t)t->sh[k];
    return n;
}

static void put_safetensors(const char *dir, const wt *ts, int n, gk_dtype dt) {
    char p[512], *hdr = (char *)malloc(1 << 18);
    size_t hl = 0, off = 0, es = gk_dtype_size(dt);
    uint64_t hl8;
    int i, k;
    FILE *f;
    hl += (size_t)sprintf(hdr + hl, "{");
    for (i = 0; i < n; i++) {
        size_t numel = wt_numel(&ts[i]);
        hl += (size_t)sprintf(hdr + hl, "%s\"%s\":{\"dtype\":\"%s\",\"shape\":[", i ? "," : "", ts[i].name, dt == GK_F32 ? "F32" : dt == GK_BF16 ? "BF16" : "F16");
        for (k = 0; k < ts[i].nd; k++) hl += (size_t)sprintf(hdr + hl, "%s%lld", k ? "," : "", (long long)ts[i].sh[k]);
        hl += (size_t)sprintf(hdr + hl, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)off, (unsigned long long)(off + numel * es));
        off += numel * es;
    }
    hl += (size_t)sprintf(hdr + hl, "}");
    while (hl % 8) hdr[hl++] = ' ';
    snprintf(p, sizeof p, "%s/model.safetensors", dir);
    f = fopen(p, "wb");
    if (!f) { printf("cannot write %s\n", p); exit(2); }
    hl8 = hl;
    fwrite(&hl8, 8, 1, f);
    fwrite(hdr, 1, hl, f);
    for (i = 0; i < n; i++) {
        size_t numel = wt_numel(&ts[i]);
        void *buf = malloc(numel * es);
        gk_convert(dt, buf, GK_F32, ts[i].data, numel);
        fwrite(buf, es, numel, f);
        free(buf);
    }
    fclose(f);
    free(hdr);
}

/* The special-token layout of the test vocabularies (and of the fixtures):
   text tokens 0..449 (220 is " "), <|endoftext|> 450, <|startoftranscript|>
   451, the languages from 452 (99, or 100 with yue), then <|translate|>,
   <|transcribe|>, <|startoflm|>, <|startofprev|>, <|nospeech|>,
   <|notimestamps|> and the timestamps to the end of the vocabulary. */
typedef struct wcfg {
    int64_t d, enc_layers, dec_layers, heads, ffn, mels, vocab, n_langs;
    gk_dtype wdt;
    const char *skip;        /* leave this tensor out */
    int bad_ffn;             /* config's decoder_ffn_dim off by this */
    const char *extra;       /* appended to config.json's members */
    int no_gen;              /* no generation_config.json */
} wcfg;

static float rnd(double a) { return (float)gkt_uniform(-a, a); }

static void make_model(const char *dir, const wcfg *c) {
    char *cfg = (char *)malloc(8192), *gen = (char *)malloc(16384);
    wt *ts = (wt *)calloc(512, sizeof(wt));
    int n = 0, i;
    int64_t l, k, dm = c->d, F = c->ffn, V = c->vocab, eot = 450, sot = 451, tr = 452 + c->n_langs + 1, nt = tr + 4;
    size_t o;
    mkdir(dir, 0755);
#define ADD3(nm, nd_, d0, d1, d2, sc, base) do { \
        wt *t_ = &ts[n]; snprintf(t_->name, sizeof t_->name, "%s", nm); t_->nd = nd_; t_->sh[0] = d0; t_->sh[1] = d1; t_->sh[2] = d2; \
        t_->data = (float *)malloc(sizeof(float) * wt_numel(t_)); \
        for (k = 0; k < (int64_t)wt_numel(t_); k++) t_->data[k] = (float)(base) + rnd(sc); \
        if (!c->skip || strcmp(c->skip, nm) != 0) n++; else free(t_->data); } while (0)
#define ADD(nm, d0, d1, nd_, sc, base) ADD3(nm, nd_, d0, d1, 1, sc, base)
    ADD3("model.encoder.conv1.weight", 3, dm, c->mels, 3, 0.3, 0);
    ADD("model.encoder.conv1.bias", dm, 0, 1, 0.2, 0);
    ADD3("model.encoder.conv2.weight", 3, dm, dm, 3, 0.15, 0);
    ADD("model.encoder.conv2.bias", dm, 0, 1, 0.2, 0);
    ADD("model.encoder.embed_positions.weight", 1500, dm, 2, 0.5, 0);
    ADD("model.encoder.layer_norm.weight", dm, 0, 1, 0.1, 1);
    ADD("model.encoder.layer_norm.bias", dm, 0, 1, 0.1, 0);
    ADD("model.decoder.embed_tokens.weight", V, dm, 2, 1.0, 0);
    ADD("model.decoder.embed_positions.weight", 448, dm, 2, 0.5, 0);
    ADD("model.decoder.layer_norm.weight", dm, 0, 1, 0.1, 1);
    ADD("model.decoder.layer_norm.bias", dm, 0, 1, 0.1, 0);
    for (l = 0; l < c->enc_layers + c->dec_layers; l++) {
        int dec = l >= c->enc_layers;
        char nm[112];
        int a, na = dec ? 2 : 1;
#define L(s) (snprintf(nm, sizeof nm, "model.%s.layers.%lld.%s", dec ? "decoder" : "encoder", (long long)(dec ? l - c->enc_layers : l), s), nm)
        for (a = 0; a < na; a++) {
            const char *at = a ? "encoder_attn" : "self_attn";
            char s2[64];
#define LA(s) (snprintf(s2, sizeof s2, "%s.%s", at, s), L(s2))
            ADD(LA("q_proj.weight"), dm, dm, 2, 0.3, 0);
            ADD(LA("q_proj.bias"), dm, 0, 1, 0.2, 0);
            ADD(LA("k_proj.weight"), dm, dm, 2, 0.3, 0);
            ADD(LA("v_proj.weight"), dm, dm, 2, 0.3, 0);
            ADD(LA("v_proj.bias"), dm, 0, 1, 0.2, 0);
            ADD(LA("out_proj.weight"), dm, dm, 2, 0.2, 0);
            ADD(LA("out_proj.bias"), dm, 0, 1, 0.2, 0);
            snprintf(s2, sizeof s2, "%s_layer_norm.weight", at);
            ADD(L(s2), dm, 0, 1, 0.1, 1);
            snprintf(s2, sizeof s2, "%s_layer_norm.bias", at);
            ADD(L(s2), dm, 0, 1, 0.1, 0);
#undef LA
        }
        ADD(L("fc1.weight"), F, dm, 2, 0.25, 0);
        ADD(L("fc1.bias"), F, 0, 1, 0.2, 0);
        ADD(L("fc2.weight"), dm, F, 2, 0.15, 0);
        ADD(L("fc2.bias"), dm, 0, 1, 0.2, 0);
        ADD(L("final_layer_norm.weight"), dm, 0, 1, 0.1, 1);
        ADD(L("final_layer_norm.bias"), dm, 0, 1, 0.1, 0);
#undef L
    }
#undef ADD
#undef ADD3
    put_safetensors(dir, ts, n, c->wdt);
    for (i = 0; i < n; i++) free(ts[i].data);
    free(ts);
    snprintf(cfg, 8192,
             "{%s\"architectures\":[\"WhisperForConditionalGeneration\"],\"model_type\":\"whisper\",\"d_model\":%lld,\"encoder_layers\":%lld,\"decoder_layers\":%lld,"
             "\"encoder_attention_heads\":%lld,\"decoder_attention_heads\":%lld,\"encoder_ffn_dim\":%lld,\"decoder_ffn_dim\":%lld,\"num_mel_bins\":%lld,"
             "\"max_source_positions\":1500,\"max_target_positions\":448,\"vocab_size\":%lld,\"activation_function\":\"gelu\",\"scale_embedding\":false,"
             "\"decoder_start_token_id\":%lld,\"eos_token_id\":%lld,\"pad_token_id\":%lld,\"tie_word_embeddings\":true}",
             c->extra ? c->extra : "", (long long)dm, (long long)c->enc_layers, (long long)c->dec_layers, (long long)c->heads, (long long)c->heads, (long long)F,
             (long long)(F + c->bad_ffn), (long long)c->mels, (long long)V, (long long)sot, (long long)eot, (long long)eot);
    gkt_put_file(dir, "config.json", cfg);
    if (!c->no_gen) {
        o = (size_t)sprintf(gen, "{\"decoder_start_token_id\":%lld,\"eos_token_id\":%lld,\"pad_token_id\":%lld,\"no_timestamps_token_id\":%lld,"
                                 "\"prev_sot_token_id\":%lld,\"is_multilingual\":true,\"max_initial_timestamp_index\":50,\"max_length\":448,"
                                 "\"begin_suppress_tokens\":[220,%lld],\"suppress_tokens\":[1,2,7,8,9,10,14,25,%lld,%lld,%lld,%lld,%lld,%lld],"
                                 "\"alignment_heads\":[[%lld,0],[0,1]],\"task_to_id\":{\"translate\":%lld,\"transcribe\":%lld},\"lang_to_id\":{",
                            (long long)sot, (long long)eot, (long long)eot, (long long)nt, (long long)(tr + 2), (long long)eot, (long long)sot, (long long)(tr - 1),
                            (long long)tr, (long long)(tr + 1), (long long)(tr + 2), (long long)(tr + 3), (long long)(c->dec_layers - 1), (long long)(tr - 1),
                            (long long)tr);
        for (i = 0; i < c->n_langs; i++) o += (size_t)sprintf(gen + o, "%s\"<|%s|>\":%d", i ? "," : "", gk_whisper_lang_code(i), 452 + i);
        sprintf(gen + o, "}}");
        gkt_put_file(dir, "generation_config.json", gen);
    }
    free(cfg);
    free(gen);
}

/* ---- checks ---- */
static void poison(float *x, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) x[i] = NAN;
}

static int load_beams = 0; /* gk_whisper_desc.max_beams of load() */
static gk_whisper_model *load(const char *dir, gk_llm_dtype dt, int windows, int64_t max_ctx) {
    gk_whisper_model *m = NULL;
    gk_whisper_desc d;
    memset(&d, 0, sizeof d);
    d.dtype = dt; d.max_windows = windows; d.max_ctx = max_ctx; d.max_beams = load_beams;
    GKT_OK(dut, gk_whisper_load(dut, dir, &d, &m));
    return m;
}

/* a chirp with a little noise, n samples at 16 kHz */
static float *make_audio(size_t n, double f0) {
    float *a = (float *)malloc(sizeof(float) * n);
    size_t i;
    for (i = 0; i < n; i++) {
        double t = (double)i / 16000.0;
        a[i] = (float)(0.4 * sin(2 * 3.14159265358979 * (f0 + 300 * t) * t) + 0.02 * gkt_uniform(-1, 1));
    }
    return a;
}

/* greedy ids of transcribe, checked against a full recompute of each prefix with the same filters */
static void check_greedy(const char *name, gk_whisper_model *m, const gk_ids *tok, const gk_whisper_result *r, int timestamps, const char *lang) {
    const gk_whisper_tokens *t = gk_whisper_model_tokens(m);
    const gk_whisper_config *c = gk_whisper_get_config(m);
    gk_whisper_prompt_desc pd;
    gk_whisper_filter_desc fd;
    gk_ids prompt = { 0, 0, 0 }, sup = { 0, 0, 0 };
    size_t sb = 0, k, T;
    int64_t V = c->vocab;
    float *all;
    int32_t *seq;
    memset(&pd, 0, sizeof pd);
    pd.language = lang;
    pd.without_timestamps = !timestamps;
    GKT_OK(NULL, gk_whisper_prompt(t, &pd, &prompt, NULL, &sb));
    GKT_CHECK(sb == r->sample_begin && prompt.len == sb, "%s: sample_begin %zu, prompt %zu", name, r->sample_begin, prompt.len);
    GKT_OK(NULL, gk_whisper_suppress_list(t, c->suppress_tokens, c->n_suppress_tokens, NULL, &sup));
    T = prompt.len + tok->len;
    seq = (int32_t *)malloc(sizeof(int32_t) * (T + 1));
    all = (float *)malloc(sizeof(float) * (size_t)V * T);
    memcpy(seq, prompt.data, prompt.len * 4);
    if (tok->len) memcpy(seq + prompt.len, tok->data, tok->len * 4);
    GKT_OK(dut, gk_whisper_reset(m, 0));
    GKT_OK(dut, gk_whisper_decode(m, 0, seq, T, 1, all));
    memset(&fd, 0, sizeof fd);
    fd.no_suppress_blank = 1;
    fd.suppress = sup.data; fd.n_suppress = sup.len;
    fd.without_timestamps = !timestamps;
    for (k = 0; k <= tok->len; k++) {
        float *row = all + (prompt.len - 1 + k) * (size_t)V;
        int32_t want = k < tok->len ? tok->data[k] : t->eot;
        if (k == tok->len && !r->ended) break;
        if (k == 0) gk_whisper_suppress(row, V, c->begin_suppress_tokens, c->n_begin_suppress_tokens);
        GKT_OK(NULL, gk_whisper_filter(t, &fd, tok->data, k, row));
        GKT_CHECK(gkt_argmax(row, V) == want, "%s: greedy token %zu is %d, the recomputed argmax %d", name, k, want, gkt_argmax(row, V));
        if (timestamps && k == 0) GKT_CHECK(want >= t->timestamp_begin && want <= t->timestamp_begin + 50, "%s: the first token %d is not an initial timestamp", name, want);
    }
    gk_ids_free(&prompt);
    gk_ids_free(&sup);
    free(seq);
    free(all);
}

static void self_consistency(const char *name, const char *dir, int64_t n_mels) {
    gk_whisper_model *m = load(dir, GK_LLM_DTYPE_F32, 2, 0), *m1;
    const gk_whisper_config *c;
    int64_t V, d, F = 3000, E;
    float *mel, *enc2, *enc1, *all, *one, *ref;
    float *audio = make_audio(16000 * 2 + 123, 200), *audio2 = make_audio(16000 * 3, 500);
    static const int32_t p[6] = { 451, 452, 553, 557, 17, 220 };
    size_t k;
    if (!m) { free(audio); free(audio2); return; }
    c = gk_whisper_get_config(m);
    V = c->vocab; d = c->d_model; E = 1500 * d;
    GKT_CHECK(c->n_mels == n_mels && gk_whisper_model_tokens(m) && gk_whisper_model_tokens(m)->eot == 450 && gk_whisper_model_tokens(m)->sot == 451 &&
              gk_whisper_model_tokens(m)->timestamp_begin == (int32_t)(452 + gk_whisper_model_tokens(m)->n_langs + 6),
              "%s: config / tokens (mels %lld, eot %d, ts %d)", name, (long long)c->n_mels, gk_whisper_model_tokens(m) ? gk_whisper_model_tokens(m)->eot : -1,
              gk_whisper_model_tokens(m) ? gk_whisper_model_tokens(m)->timestamp_begin : -1);
    GKT_CHECK(c->n_alignment_heads == 2 && c->alignment_heads[2] == 0 && c->alignment_heads[3] == 1, "%s: alignment heads", name);
    mel = (float *)malloc(sizeof(float) * (size_t)(2 * n_mels * F));
    enc2 = (float *)malloc(sizeof(float) * (size_t)(2 * E));
    enc1 = (float *)malloc(sizeof(float) * (size_t)E);
    all = (float *)malloc(sizeof(float) * (size_t)(V * 8));
    one = (float *)malloc(sizeof(float) * (size_t)V);
    ref = (float *)malloc(sizeof(float) * (size_t)(V * 8));
    /* features of two windows; the encoder on both at once vs each alone */
    poison(mel, (size_t)(2 * n_mels * F));
    GKT_OK(dut, gk_whisper_mel(m, audio, 16000 * 2 + 123, mel));
    GKT_OK(dut, gk_whisper_mel(m, audio2, 16000 * 3, mel + n_mels * F));
    GKT_CHECK(gkt_max_err(mel, mel, (size_t)(2 * n_mels * F)) == 0, "%s: log-mel has NaN", name);
    poison(enc2, (size_t)(2 * E));
    GKT_OK(dut, gk_whisper_encode(m, mel, 2, 0, enc2));
    m1 = load(dir, GK_LLM_DTYPE_F32, 1, 64);
    if (m1) {
        double e;
        poison(enc1, (size_t)E);
        GKT_OK(dut, gk_whisper_encode(m1, mel + n_mels * F, 1, 0, enc1));
        e = gkt_max_err(enc2 + E, enc1, (size_t)E);
        GKT_CHECK(e <= 1e-5, "%s: window 1 of two encoded together vs alone: %.3g", name, e);
        GKT_CHECK(gkt_max_err(enc2, enc1, (size_t)E) > 1e-3, "%s: two different windows give the same encoder output", name);
        /* the same window's logits in slot 1 of m and slot 0 of m1 */
        GKT_OK(dut, gk_whisper_decode(m1, 0, p, 6, 1, ref));
        GKT_OK(dut, gk_whisper_decode(m, 1, p, 6, 1, all));
        e = gkt_max_err(all, ref, (size_t)(6 * V));
        GKT_CHECK(e <= 1e-4, "%s: slot 1 vs the window alone: %.3g", name, e);
        gk_whisper_free(m1);
    }
    /* slot 0: token by token (the KV cache) vs all positions at once (a full recompute) */
    GKT_OK(dut, gk_whisper_decode(m, 0, p, 6, 1, all));
    GKT_CHECK(gk_whisper_seq_len(m, 0) == 6, "%s: length %lld after 6 tokens", name, (long long)gk_whisper_seq_len(m, 0));
    GKT_CHECK(gkt_max_err(all, ref, (size_t)(6 * V)) > 1e-3, "%s: slot 0 and slot 1 (different windows) give the same logits", name);
    GKT_OK(dut, gk_whisper_reset(m, 0));
    for (k = 0; k < 6; k++) {
        double e;
        poison(one, (size_t)V);
        GKT_OK(dut, gk_whisper_decode(m, 0, p + k, 1, 0, one));
        e = gkt_max_err(one, all + k * (size_t)V, (size_t)V);
        GKT_CHECK(e <= 1e-4, "%s: position %zu one at a time vs all at once: %.3g", name, k, e);
    }
    GKT_OK(dut, gk_whisper_reset(m, 0));
    GKT_OK(dut, gk_whisper_decode(m, 0, p, 2, 0, one));
    GKT_OK(dut, gk_whisper_decode(m, 0, p + 2, 4, 1, ref));
    GKT_CHECK(gkt_max_err(ref, all + 2 * V, (size_t)(4 * V)) <= 1e-4, "%s: a prefill continuing the cache: %.3g", name, gkt_max_err(ref, all + 2 * V, (size_t)(4 * V)));
    /* the encoder again into slot 0 resets it */
    GKT_OK(dut, gk_whisper_encode(m, mel, 1, 0, NULL));
    GKT_CHECK(gk_whisper_seq_len(m, 0) == 0, "%s: encode left %lld tokens in the slot", name, (long long)gk_whisper_seq_len(m, 0));
    /* greedy transcription: repeatable, and each token the filtered argmax of a full recompute */
    {
        int ts;
        for (ts = 0; ts < 2; ts++) {
            gk_whisper_transcribe_desc td;
            gk_whisper_result r1, r2;
            gk_ids a = { 0, 0, 0 }, b = { 0, 0, 0 };
            float *tm = (float *)malloc(sizeof(float) * (size_t)(n_mels * F));
            char nm[96];
            memset(&td, 0, sizeof td);
            td.timestamps = ts;
            td.language = ts ? "de" : NULL;
            td.max_tokens = 12;
            td.mel = tm;
            poison(tm, (size_t)(n_mels * F));
            GKT_OK(dut, gk_whisper_transcribe(m, audio, 16000 * 2 + 123, &td, &a, &r1));
            /* the same function on the same samples: the same values (a copy racing the features' stream would not be) */
            GKT_CHECK(gkt_max_err(tm, mel, (size_t)(n_mels * F)) == 0.0,
                      "%s: transcribe's log-mel differs from gk_whisper_mel: %g", name, gkt_max_err(tm, mel, (size_t)(n_mels * F)));
            td.mel = NULL;
            GKT_OK(dut, gk_whisper_transcribe(m, audio, 16000 * 2 + 123, &td, &b, &r2));
            GKT_CHECK(a.len == b.len && a.len && memcmp(a.data, b.data, a.len * 4) == 0 && r1.ended == r2.ended && r1.sum_logprob == r2.sum_logprob,
                      "%s: greedy is not repeatable (%zu, %zu tokens)", name, a.len, b.len);
            GKT_CHECK(a.len + (size_t)r1.ended <= 12 && (r1.ended || a.len == 12), "%s: %zu tokens, ended %d, max 12", name, a.len, r1.ended);
            GKT_CHECK(r1.no_speech_prob > 0 && r1.no_speech_prob < 1 && r1.avg_logprob <= 0 && r1.sot_index == 0, "%s: result %g %g %zu", name, r1.no_speech_prob,
                      r1.avg_logprob, r1.sot_index);
            snprintf(nm, sizeof nm, "%s greedy%s", name, ts ? " with timestamps" : "");
            check_greedy(nm, m, &a, &r1, ts, ts ? "de" : NULL);
            gk_ids_free(&a); gk_ids_free(&b);
            free(tm);
        }
    }
    /* a gk_audio at 16 kHz works; another rate is refused */
    {
        gk_audio au;
        gk_ids a = { 0, 0, 0 };
        memset(&au, 0, sizeof au);
        au.samples = audio; au.n = 16000; au.rate = 16000;
        GKT_OK(dut, gk_whisper_transcribe_audio(m, &au, NULL, &a, NULL));
        au.rate = 8000;
        GKT_FAILS(dut, gk_whisper_transcribe_audio(m, &au, NULL, &a, NULL), GK_ERR_INVALID_ARGUMENT, "the audio is at 8000 Hz");
        gk_ids_free(&a);
    }
    free(mel); free(enc2); free(enc1); free(all); free(one); free(ref); free(audio); free(audio2);
    gk_whisper_free(m);
}

/* gk_whisper_decode_step and gk_whisper_reorder on a model of two windows of
   three rows, against gk_whisper_decode of each row's whole token sequence
   on a model of one row a window: rows of different lengths, skipped rows,
   steps replayed from the graph, reorders (also two in a row) between
   steps; the step's log-sum-exp against the logits; bad arguments. */
static void step_and_reorder(const char *name, const char *dir, int64_t n_mels) {
    enum { R = 6, B = 3, CAP = 64 };
    gk_whisper_model *m, *mr;
    float *mel = (float *)malloc(sizeof(float) * (size_t)(2 * n_mels * 3000)), *lg = NULL, *ref = NULL, lse[R];
    float *a0 = make_audio(16000 * 2, 300), *a1 = make_audio(16000, 700);
    int32_t seq[R][CAP], ids[R] = { 0 };
    int64_t len[R], V = 0;
    int r, t, k;
    load_beams = B;
    m = load(dir, GK_LLM_DTYPE_F32, 2, 0);
    load_beams = 1;
    mr = load(dir, GK_LLM_DTYPE_F32, 2, 0);
    if (!m || !mr) goto out;
    V = gk_whisper_get_config(m)->vocab;
    lg = (float *)malloc(sizeof(float) * (size_t)(R * V));
    ref = (float *)malloc(sizeof(float) * (size_t)V);
    GKT_OK(dut, gk_whisper_mel(m, a0, 16000 * 2, mel));
    GKT_OK(dut, gk_whisper_mel(m, a1, 16000, mel + n_mels * 3000));
    GKT_OK(dut, gk_whisper_encode(m, mel, 2, 0, NULL));
    GKT_OK(dut, gk_whisper_encode(mr, mel, 2, 0, NULL));
    /* the prompts: SOT, a language, then 1 + r random tokens */
    for (r = 0; r < R; r++) {
        seq[r][0] = 451; seq[r][1] = 452 + r;
        len[r] = 3 + r;
        for (k = 2; k < len[r]; k++) seq[r][k] = (int32_t)(gkt_u64() % 450);
        GKT_OK(dut, gk_whisper_decode(m, r, seq[r], (size_t)len[r], 0, NULL));
    }
    GKT_FAILS(dut, gk_whisper_decode_step(m, 1, 3, ids, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "do not cover whole windows");
    GKT_FAILS(dut, gk_whisper_reorder(m, 2, ids), GK_ERR_INVALID_ARGUMENT, "window 2 outside 0..1");
    ids[0] = 0; ids[1] = 3; ids[2] = 1;
    GKT_FAILS(dut, gk_whisper_reorder(m, 0, ids), GK_ERR_INVALID_ARGUMENT, "src[1] = 3");
    for (t = 0; t < 14; t++) {
        const float *sl = NULL, *sx = NULL;
        /* two reorders before step 6 (the second right after the first), one before step 10 */
        if (t == 6 || t == 10) {
            static const int32_t src[3][2][B] = { { { 2, 0, 0 }, { 1, 2, 1 } }, { { 1, 1, 0 }, { 0, 2, 2 } }, { { 0, 0, 2 }, { 2, 1, 0 } } };
            int nre = t == 6 ? 2 : 1, q, w;
            for (q = 0; q < nre; q++)
                for (w = 0; w < 2; w++) {
                    const int32_t *sr = src[t == 6 ? q : 2][w];
                    int32_t s2[B][CAP];
                    int64_t l2[B];
                    GKT_OK(dut, gk_whisper_reorder(m, w, sr));
                    for (r = 0; r < B; r++) { memcpy(s2[r], seq[w * B + sr[r]], sizeof s2[r]); l2[r] = len[w * B + sr[r]]; }
                    for (r = 0; r < B; r++) { memcpy(seq[w * B + r], s2[r], sizeof s2[r]); len[w * B + r] = l2[r]; }
                }
        }
        for (r = 0; r < R; r++) {
            ids[r] = (r + t) % 4 == 0 ? -1 : (int32_t)(gkt_u64() % 450); /* a few rows skip the step */
            poison(lg + (size_t)r * (size_t)V, (size_t)V);
        }
        GKT_OK(dut, gk_whisper_decode_step(m, 0, R, ids, lg, lse));
        GKT_CHECK(gk_whisper_step_logits(m, &sl, &sx) == R && sl && sx && memcmp(sl, lg, sizeof(float) * (size_t)(R * V)) == 0 && memcmp(sx, lse, sizeof lse) == 0,
                  "%s: step %d: gk_whisper_step_logits differs from the step's copies", name, t);
        for (r = 0; r < R; r++) {
            double e, mx = -INFINITY, sum = 0;
            int64_t i;
            if (ids[r] < 0) {
                GKT_CHECK(gk_whisper_seq_len(m, r) == len[r], "%s: step %d: skipped row %d has length %lld (%lld)", name, t, r, (long long)gk_whisper_seq_len(m, r), (long long)len[r]);
                continue;
            }
            seq[r][len[r]++] = ids[r];
            GKT_CHECK(gk_whisper_seq_len(m, r) == len[r], "%s: step %d: row %d has length %lld (%lld)", name, t, r, (long long)gk_whisper_seq_len(m, r), (long long)len[r]);
            GKT_OK(dut, gk_whisper_reset(mr, r / B));
            GKT_OK(dut, gk_whisper_decode(mr, r / B, seq[r], (size_t)len[r], 0, ref));
            e = gkt_max_err(lg + (size_t)r * (size_t)V, ref, (size_t)V);
            GKT_CHECK(e <= 1e-4, "%s: step %d: row %d (length %lld) vs its whole sequence decoded: %.3g", name, t, r, (long long)len[r], e);
            for (i = 0; i < V; i++) mx = lg[r * V + i] > mx ? lg[r * V + i] : mx;
            for (i = 0; i < V; i++) sum += exp(lg[r * V + i] - mx);
            e = fabs(lse[r] - (mx + log(sum)));
            GKT_CHECK(e <= 1e-5 * (1 + fabs(lse[r])), "%s: step %d: row %d's log-sum-exp %.7g vs %.7g", name, t, r, lse[r], mx + log(sum));
        }
    }
    /* a row emptied by gk_whisper_reset cannot step; a reorder copies the empty length too */
    GKT_OK(dut, gk_whisper_reset(m, 4));
    for (r = 0; r < R; r++) ids[r] = 7;
    GKT_FAILS(dut, gk_whisper_decode_step(m, 0, R, ids, NULL, NULL), GK_ERR_STATE, "row 4 is empty");
    ids[0] = 1; ids[1] = 1; ids[2] = 2;
    GKT_OK(dut, gk_whisper_reorder(m, 1, ids));
    GKT_CHECK(gk_whisper_seq_len(m, 3) == 0 && gk_whisper_seq_len(m, 4) == 0 && gk_whisper_seq_len(m, 5) == len[5], "%s: lengths after a reorder from an empty row: %lld %lld %lld",
              name, (long long)gk_whisper_seq_len(m, 3), (long long)gk_whisper_seq_len(m, 4), (long long)gk_whisper_seq_len(m, 5));
out:
    gk_whisper_free(m);
    gk_whisper_free(mr);
    free(mel); free(lg); free(ref); free(a0); free(a1);
}

static void bad_inputs(void) {
    char d[320], p[400];
    gk_whisper_model *m = NULL;
    wcfg c;
    memset(&c, 0, sizeof c);
    c.d = 16; c.enc_layers = 1; c.dec_layers = 2; c.heads = 2; c.ffn = 24; c.mels = 80; c.vocab = 640; c.n_langs = 99; c.wdt = GK_F32;
    snprintf(d, sizeof d, "%s/nothing", tmpdir);
    mkdir(d, 0755);
    GKT_FAILS(dut, gk_whisper_load(dut, d, NULL, &m), GK_ERR_IO, "/nothing/config.json is missing");
    GKT_CHECK(m == NULL, "no model after a failed load");
    snprintf(d, sizeof d, "%s/bad_noweights", tmpdir);
    make_model(d, &c);
    snprintf(p, sizeof p, "%s/model.safetensors", d);
    remove(p);
    GKT_FAILS(dut, gk_whisper_load(dut, d, NULL, &m), GK_ERR_IO, "bad_noweights has no model.safetensors");
    snprintf(d, sizeof d, "%s/bad_missing", tmpdir);
    c.skip = "model.decoder.layers.1.encoder_attn.v_proj.bias";
    make_model(d, &c);
    GKT_FAILS(dut, gk_whisper_load(dut, d, NULL, &m), GK_ERR_NOT_FOUND, "tensor model.decoder.layers.1.encoder_attn.v_proj.bias is missing from");
    c.skip = NULL;
    snprintf(d, sizeof d, "%s/bad_shape", tmpdir);
    c.bad_ffn = 8;
    make_model(d, &c);
    GKT_FAILS(dut, gk_whisper_load(dut, d, NULL, &m), GK_ERR_SHAPE, "tensor model.decoder.layers.0.fc1.weight has shape [24, 16];");
    GKT_CHECK(strstr(gk_last_error(dut), "bad_shape/config.json says [32, 16]") != NULL, "the message names the config's shape: %s", gk_last_error(dut));
    c.bad_ffn = 0;
    snprintf(d, sizeof d, "%s/bad_cfg", tmpdir);
    c.extra = "\"activation_function\":\"relu\",";
    make_model(d, &c);
    /* a key given twice (extra's, then the default) is refused before the activation is read */
    GKT_FAILS(dut, gk_whisper_load(dut, d, NULL, &m), GK_ERR_FORMAT, "key \"activation_function\" appears twice");
    gkt_put_file(d, "config.json", "{\"d_model\":16,\"encoder_layers\":1,\"decoder_layers\":2,\"encoder_attention_heads\":3,\"decoder_attention_heads\":2,"
                               "\"encoder_ffn_dim\":24,\"decoder_ffn_dim\":24,\"num_mel_bins\":80,\"vocab_size\":640,\"decoder_start_token_id\":451}");
    GKT_FAILS(dut, gk_whisper_load(dut, d, NULL, &m), GK_ERR_FORMAT, "d_model = 16 is not a multiple of encoder_attention_heads = 3");
    gkt_put_file(d, "config.json", "{\"d_model\":16,\"encoder_layers\":1,\"decoder_layers\":2,\"encoder_attention_heads\":2,\"decoder_attention_heads\":2,"
                               "\"encoder_ffn_dim\":24,\"decoder_ffn_dim\":24,\"num_mel_bins\":80,\"decoder_start_token_id\":451}");
    GKT_FAILS(dut, gk_whisper_load(dut, d, NULL, &m), GK_ERR_FORMAT, "bad_cfg/config.json: vocab_size is missing");
    gkt_put_file(d, "config.json", "{\"d_model\":16,\"encoder_layers\":1,\"decoder_layers\":2,\"encoder_attention_heads\":2,\"decoder_attention_heads\":2,\"activation_function\":\"relu\","
                               "\"encoder_ffn_dim\":24,\"decoder_ffn_dim\":24,\"num_mel_bins\":80,\"vocab_size\":640,\"decoder_start_token_id\":451}");
    GKT_FAILS(dut, gk_whisper_load(dut, d, NULL, &m), GK_ERR_UNSUPPORTED, "activation_function \"relu\" is not supported");
    gkt_put_file(d, "config.json", "{\"architectures\":[\"LlamaForCausalLM\"]}");
    GKT_FAILS(dut, gk_whisper_load(dut, d, NULL, &m), GK_ERR_UNSUPPORTED, "architecture LlamaForCausalLM is not a Whisper model");
    c.extra = NULL;
    make_model(d, &c);
    gkt_put_file(d, "generation_config.json", "{\"suppress_tokens\":[1,2,700]}");
    GKT_FAILS(dut, gk_whisper_load(dut, d, NULL, &m), GK_ERR_FORMAT, "generation_config.json: suppress_tokens[2] = 700 is not a token id");
    gkt_put_file(d, "generation_config.json", "{\"alignment_heads\":[[2,0]]}");
    GKT_FAILS(dut, gk_whisper_load(dut, d, NULL, &m), GK_ERR_FORMAT, "alignment_heads[0] = [2, 0] is outside decoder_layers = 2");
    {
        gk_whisper_desc wd;
        memset(&wd, 0, sizeof wd);
        wd.max_ctx = 449;
        make_model(d, &c);
        GKT_FAILS(dut, gk_whisper_load(dut, d, &wd, &m), GK_ERR_LIMIT, "max_ctx = 449 is above the model's max_target_positions = 448");
        wd.max_ctx = 0; wd.max_windows = 65;
        GKT_FAILS(dut, gk_whisper_load(dut, d, &wd, &m), GK_ERR_INVALID_ARGUMENT, "max_windows = 65 must be in 1..64");
    }
    /* a good model: bad calls and states */
    m = load(d, GK_LLM_DTYPE_F32, 2, 8);
    if (m) {
        static const int32_t ids[9] = { 451, 452, 553, 557, 5, 6, 7, 8, 9 };
        float *mel = (float *)calloc(80 * 3000 * 3, sizeof(float)), one[640];
        gk_ids out = { 0, 0, 0 };
        gk_whisper_transcribe_desc td;
        float z = 0;
        GKT_FAILS(dut, gk_whisper_decode(m, 0, ids, 1, 0, one), GK_ERR_STATE, "row 0's window 0 holds no encoded window");
        GKT_FAILS(dut, gk_whisper_encode(m, mel, 3, 0, NULL), GK_ERR_INVALID_ARGUMENT, "3 windows from slot 0 do not fit the 2 slots");
        GKT_FAILS(dut, gk_whisper_encode(m, mel, 1, 2, NULL), GK_ERR_INVALID_ARGUMENT, "1 windows from slot 2 do not fit the 2 slots");
        GKT_OK(dut, gk_whisper_encode(m, mel, 1, 1, NULL));
        GKT_FAILS(dut, gk_whisper_decode(m, 1, ids, 9, 0, NULL), GK_ERR_LIMIT, "9 tokens after 0 in row 1 exceed the context of 8 tokens");
        GKT_FAILS(dut, gk_whisper_decode(m, 1, ids, 0, 0, NULL), GK_ERR_INVALID_ARGUMENT, "n is 0");
        GKT_FAILS(dut, gk_whisper_decode(m, 2, ids, 1, 0, NULL), GK_ERR_INVALID_ARGUMENT, "row 2 outside 0..1");
        {
            int32_t bad = 640;
            GKT_FAILS(dut, gk_whisper_decode(m, 1, &bad, 1, 0, NULL), GK_ERR_INVALID_ARGUMENT, "token id 640 at ids[0] is outside the vocab [0, 640)");
        }
        GKT_OK(dut, gk_whisper_decode(m, 1, ids, 5, 0, NULL));
        GKT_FAILS(dut, gk_whisper_decode(m, 1, ids, 4, 0, NULL), GK_ERR_LIMIT, "4 tokens after 5 in row 1");
        GKT_CHECK(gk_whisper_seq_len(m, 1) == 5, "the refused call left %lld tokens", (long long)gk_whisper_seq_len(m, 1));
        GKT_FAILS(dut, gk_whisper_transcribe(m, &z, 0, NULL, &out, NULL), GK_ERR_INVALID_ARGUMENT, "n is 0 (no audio)");
        memset(&td, 0, sizeof td);
        td.language = "klingon";
        GKT_FAILS(dut, gk_whisper_transcribe(m, &z, 1, &td, &out, NULL), GK_ERR_NOT_FOUND, "unknown language 'klingon'");
        td.language = NULL;
        td.max_tokens = 10; /* a prompt of 4 and a context of 8: stops at the end of the context */
        GKT_OK(dut, gk_whisper_transcribe(m, &z, 1, &td, &out, NULL));
        GKT_CHECK(out.len >= 1 && out.len <= 5, "a context of 8 tokens: %zu sampled", out.len);
        GKT_FAILS(dut, gk_whisper_mel(m, &z, 0, mel), GK_ERR_INVALID_ARGUMENT, "gk_whisper_mel: n is 0");
        gk_error_set(dut, GK_OK, "ctx untouched");
        GKT_FAILS(NULL, gk_whisper_decode(NULL, 0, ids, 1, 0, NULL), GK_ERR_INVALID_ARGUMENT, "gk_whisper_decode: m is NULL");
        GKT_CHECK(strcmp(gk_last_error(dut), "ctx untouched") == 0, "a NULL model wrote the context's message: %s", gk_last_error(dut));
        gk_ids_free(&out);
        free(mel);
        gk_whisper_free(m);
    }
    /* no generation_config.json and no tokenizer: loads, but cannot transcribe */
    snprintf(d, sizeof d, "%s/no_tokens", tmpdir);
    c.no_gen = 1;
    make_model(d, &c);
    m = load(d, GK_LLM_DTYPE_F32, 1, 0);
    if (m) {
        gk_ids out = { 0, 0, 0 };
        float z = 0;
        GKT_CHECK(gk_whisper_model_tokens(m) == NULL && gk_whisper_model_tokenizer(m) == NULL, "special tokens without a source");
        GKT_FAILS(dut, gk_whisper_transcribe(m, &z, 1, NULL, &out, NULL), GK_ERR_NOT_FOUND, "names no special tokens");
        gk_whisper_free(m);
    }
}

/* ---- HF fixtures ---- */
static float *read_bin(const char *dir, const gk_json_value *arr, const char *key, size_t want) {
    const char *file = gk_json_get_string(gk_json_get(arr, key), "file", NULL);
    char p[512];
    float *x;
    FILE *f;
    size_t got;
    if (!file) { GKT_CHECK(0, "%s: expected.json has no array %s", dir, key); return NULL; }
    snprintf(p, sizeof p, "%s/%s", dir, file);
    f = fopen(p, "rb");
    if (!f) { GKT_CHECK(0, "cannot open %s", p); return NULL; }
    x = (float *)malloc(sizeof(float) * (want + 1));
    got = fread(x, sizeof(float), want + 1, f);
    fclose(f);
    GKT_CHECK(got == want, "%s holds %zu floats, %zu expected", p, got, want);
    if (got != want) { free(x); return NULL; }
    return x;
}
static size_t json_ids(const gk_json_value *v, int32_t *out, size_t cap) {
    size_t i, n = gk_json_len(v) < cap ? gk_json_len(v) : cap;
    for (i = 0; i < n; i++) out[i] = (int32_t)gk_json_int(gk_json_at(v, i), -1);
    return n;
}

static void fixture_case(const char *name, const float *audio, size_t n_audio, gk_llm_dtype dt) {
    char dir[256], p[320];
    gk_json *ej = NULL;
    const gk_json_value *root, *arr;
    gk_whisper_model *m = NULL;
    const gk_whisper_config *c;
    int f32 = dt == GK_LLM_DTYPE_F32, cuda = gk_ctx_backend(dut) != GK_BACKEND_CPU;
    int64_t nm, dm, V, F, T, R, i, j;
    float *hf_mel = NULL, *hf_enc = NULL, *hf_lg = NULL, *mel = NULL, *got = NULL, *enc = NULL;
    int32_t prefix[64];
    const char *dn = f32 ? "f32" : "bf16";
    double e, bound;
    snprintf(dir, sizeof dir, "%s/%s", fixdir, name);
    snprintf(p, sizeof p, "%s/expected.json", dir);
    if (gk_json_parse_file(p, NULL, &ej) != GK_OK) { GKT_CHECK(0, "%s: %s", name, gk_last_error(NULL)); return; }
    root = gk_json_root(ej);
    arr = gk_json_get(root, "arrays");
    load_beams = 5;
    m = load(dir, dt, 1, 0);
    load_beams = 0;
    if (!m) goto out;
    c = gk_whisper_get_config(m);
    nm = c->n_mels; dm = c->d_model; V = c->vocab;
    F = gk_json_get_int(root, "mel_frames", -1);
    R = (int64_t)gk_json_len(gk_json_get(root, "enc_rows"));
    T = (int64_t)json_ids(gk_json_get(root, "prefix"), prefix, 64);
    printf("%s %s: d_model %lld, %lld+%lld layers, %lld mels, vocab %lld, weights %s\n", name, dn, (long long)dm, (long long)c->encoder_layers,
           (long long)c->decoder_layers, (long long)nm, (long long)V, gk_dtype_name(c->weights_dtype));
    GKT_CHECK(F > 0 && F <= 3000 && R > 0 && T > 0, "%s: expected.json: mel_frames %lld, enc_rows %lld, prefix %lld", name, (long long)F, (long long)R, (long long)T);
    if (!(F > 0 && F <= 3000 && R > 0 && T > 0)) goto out;
    hf_mel = read_bin(dir, arr, "mel", (size_t)(nm * F));
    hf_enc = read_bin(dir, arr, "enc", (size_t)(R * dm));
    hf_lg = read_bin(dir, arr, "logits", (size_t)(T * V));
    if (!hf_mel || !hf_enc || !hf_lg) goto out;
    mel = (float *)malloc(sizeof(float) * (size_t)(nm * 3000));
    enc = (float *)malloc(sizeof(float) * (size_t)(1500 * dm));
    got = (float *)malloc(sizeof(float) * (size_t)(T * V));
    /* log-mel: the first F frames, then the padding's constant value (features are f32 in any compute dtype) */
    if (f32) {
        float padv = (float)gk_json_get_double(root, "mel_pad_value", 0), *full = (float *)malloc(sizeof(float) * (size_t)(nm * 3000));
        poison(mel, (size_t)(nm * 3000));
        GKT_OK(dut, gk_whisper_mel(m, audio, n_audio, mel));
        for (i = 0; i < nm; i++)
            for (j = 0; j < 3000; j++) full[i * 3000 + j] = j < F ? hf_mel[i * F + j] : padv;
        e = gkt_max_err(mel, full, (size_t)(nm * 3000));
        bound = cuda ? 1e-4 : 2e-5;
        GKT_CHECK(e <= bound, "%s: log-mel max error %.3g (bound %.1g)", name, e, bound);
        printf("%s: log-mel max error %.3g\n", name, e);
        memcpy(mel, full, sizeof(float) * (size_t)(nm * 3000));
        free(full);
    } else {
        for (i = 0; i < nm; i++)
            for (j = 0; j < 3000; j++) mel[i * 3000 + j] = j < F ? hf_mel[i * F + j] : (float)gk_json_get_double(root, "mel_pad_value", 0);
    }
    /* the encoder on HF's features: the recorded rows */
    poison(enc, (size_t)(1500 * dm));
    GKT_OK(dut, gk_whisper_encode(m, mel, 1, 0, enc));
    {
        double worst = 0;
        for (i = 0; i < R; i++) {
            int64_t row = gk_json_int(gk_json_at(gk_json_get(root, "enc_rows"), (size_t)i), 0);
            e = gkt_max_err(enc + row * dm, hf_enc + i * dm, (size_t)dm);
            if (e > worst) worst = e;
        }
        bound = f32 ? 1e-4 : 3e-2;
        GKT_CHECK(worst <= bound, "%s %s: encoder output max error %.3g (bound %.1g)", name, dn, worst, bound);
        printf("%s %s: encoder output max error %.3g over %lld rows\n", name, dn, worst, (long long)R);
    }
    /* decoder logits of the prefix, every position */
    poison(got, (size_t)(T * V));
    GKT_OK(dut, gk_whisper_decode(m, 0, prefix, (size_t)T, 1, got));
    {
        double worst = 0;
        for (i = 0; i < T; i++) {
            e = gkt_max_err(got + i * V, hf_lg + i * V, (size_t)V);
            if (e > worst) worst = e;
        }
        bound = f32 ? 1e-4 : 5e-2;
        GKT_CHECK(worst <= bound, "%s %s: decoder logits max error %.3g (bound %.1g)", name, dn, worst, bound);
        printf("%s %s: decoder logits max error %.3g over %lld positions\n", name, dn, worst, (long long)T);
    }
    /* language detection: the probabilities over the language tokens after <|startoftranscript|> */
    {
        const gk_json_value *dv = gk_json_get(root, "detect"), *pv = gk_json_get(dv, "probs");
        const gk_whisper_tokens *tk = gk_whisper_model_tokens(m);
        float probs[GK_WHISPER_MAX_LANGS];
        int best = -1, L = (int)gk_json_len(pv);
        double worst = 0;
        GKT_CHECK(dv && L > 0, "%s: expected.json has no detect (regenerate the fixtures)", name);
        GKT_OK(dut, gk_whisper_reset(m, 0));
        GKT_OK(dut, gk_whisper_decode(m, 0, &tk->sot, 1, 0, got));
        GKT_OK(NULL, gk_whisper_detect_language(tk, got, probs, &best));
        for (i = 0; i < L; i++) {
            e = fabs((double)probs[i] - gk_json_double(gk_json_at(pv, (size_t)i), -1));
            if (e > worst) worst = e;
        }
        bound = f32 ? 1e-5 : 2e-2;
        GKT_CHECK(L > 0 && worst <= bound, "%s %s: language probabilities max error %.3g (bound %.1g)", name, dn, worst, bound);
        {
            const char *code = best >= 0 ? gk_whisper_lang_code(best) : NULL, *hf = gk_json_get_string(dv, "best", NULL);
            if (!code) code = "?";
            if (!hf) hf = "(none)";
            if (f32) GKT_CHECK(strcmp(code, hf) == 0, "%s: detected %s, HF %s", name, code, hf);
            printf("%s %s: language %s, probabilities max error %.3g\n", name, dn, code, worst);
        }
    }
    /* the alignment heads' cross-attention of a teacher-forced pass */
    {
        int32_t xs[80];
        size_t nx = json_ids(gk_json_get(root, "cross_seq"), xs, 80), nh = 0;
        float *hx, *w;
        (void)gk_whisper_alignment_heads(m, &nh);
        hx = read_bin(dir, arr, "cross", nh * nx * 1500);
        w = (float *)malloc(sizeof(float) * (nh * nx * 1500 + 1));
        if (hx && nx) {
            poison(w, nh * nx * 1500);
            GKT_OK(dut, gk_whisper_cross_weights(m, 0, xs, nx, w, NULL));
            e = gkt_max_err(w, hx, nh * nx * 1500);
            /* bf16: q and K are rounded to bf16 (2^-9 relative), which moves these random weights' scores (up to ~20) by up to
               ~0.05, as the decoder logits' bound below allows; a probability moves by less than its score */
            bound = f32 ? 1e-5 : 5e-2;
            GKT_CHECK(e <= bound, "%s %s: cross-attention weights max error %.3g (bound %.1g)", name, dn, e, bound);
            printf("%s %s: cross-attention of %zu heads x %zu positions, max error %.3g\n", name, dn, nh, nx, e);
            GKT_CHECK(gk_whisper_seq_len(m, 0) == 0, "%s: gk_whisper_cross_weights left row 0 with %lld tokens", name, (long long)gk_whisper_seq_len(m, 0));
        }
        free(hx);
        free(w);
    }
    /* OpenAI's beam search (5 beams, no timestamps) as the fixture script runs it on HF's logits (f32: bf16 may flip near-ties) */
    if (f32) {
        const gk_json_value *bv = gk_json_get(root, "beam");
        gk_whisper_long_desc ld;
        gk_whisper_segments sg;
        gk_whisper_long_result lr;
        int32_t want[512];
        size_t nw = json_ids(gk_json_get(bv, "tokens"), want, 512), k, at = 0;
        int same = 1;
        double bsum = gk_json_get_double(bv, "sum_logprob", 0);
        memset(&ld, 0, sizeof ld);
        memset(&sg, 0, sizeof sg);
        ld.language = "en";
        ld.without_timestamps = 1;
        ld.beam_size = 5;
        ld.max_tokens = gk_json_get_int(bv, "max_new_tokens", 0);
        ld.thresholds.compression_ratio = ld.thresholds.logprob = ld.thresholds.no_speech = ld.thresholds.temperature_increment = NAN;
        GKT_OK(dut, gk_whisper_transcribe_long(m, audio, n_audio, &ld, &sg, &lr));
        for (k = 0; k < sg.len; k++) {
            size_t q;
            for (q = 0; q < sg.data[k].n_tokens; q++, at++) same &= at < nw && sg.data[k].tokens[q] == want[at];
        }
        same &= at == nw;
        GKT_CHECK(bv && same, "%s: beam search: %zu tokens differ from the reference's %zu; smallest candidate gap %g", name, at, nw, gk_json_get_double(bv, "min_gap", -1));
        if (sg.len == 1) {
            double avg = bsum / (double)(nw + 1);
            GKT_CHECK(fabs(sg.data[0].avg_logprob - avg) <= 1e-4 * fabs(avg) + 1e-5, "%s: beam avg_logprob %.6f, reference %.6f", name, sg.data[0].avg_logprob, avg);
        }
        printf("%s: beam 5: %zu tokens, %s\n", name, at, same ? "equal to the reference's" : "DIFFERENT");
        gk_whisper_segments_free(&sg);
    }
    /* HF's greedy ids (f32 only: bf16 may flip near-ties) */
    if (f32) {
        const gk_json_value *gs = gk_json_get(root, "greedy");
        size_t g;
        for (g = 0; g < gk_json_len(gs); g++) {
            const gk_json_value *gv = gk_json_at(gs, g);
            gk_whisper_transcribe_desc td;
            gk_whisper_result r;
            gk_ids ids = { 0, 0, 0 };
            int32_t want[512];
            size_t nw = json_ids(gk_json_get(gv, "tokens"), want, 512), k;
            int ended = nw > 0 && want[nw - 1] == gk_whisper_model_tokens(m)->eot, same;
            memset(&td, 0, sizeof td);
            td.language = gk_json_get_string(gv, "language", NULL);
            td.timestamps = gk_json_get_bool(gv, "timestamps", 0);
            td.max_tokens = gk_json_get_int(gv, "max_new_tokens", 0);
            GKT_OK(dut, gk_whisper_transcribe(m, audio, n_audio, &td, &ids, &r));
            same = ids.len + (size_t)r.ended == nw && r.ended == ended;
            for (k = 0; k < ids.len && same; k++) same = ids.data[k] == want[k];
            GKT_CHECK(same, "%s: greedy%s: %zu tokens (ended %d) differ from HF's %zu (ended %d); smallest HF top-2 margin %g", name, td.timestamps ? " with timestamps" : "",
                      ids.len, r.ended, nw, ended, gk_json_get_double(gv, "min_margin", -1));
            if (!same)
                for (k = 0; k < ids.len && k < nw; k++)
                    if (ids.data[k] != want[k]) { printf("  first difference at token %zu: %d, HF %d\n", k, ids.data[k], want[k]); break; }
            printf("%s: greedy%s: %zu tokens%s, %s\n", name, td.timestamps ? " with timestamps" : "", ids.len, r.ended ? " + eot" : "", same ? "equal to HF's" : "DIFFERENT");
            gk_ids_free(&ids);
        }
    }
out:
    gk_whisper_free(m);
    gk_json_free(ej);
    free(hf_mel); free(hf_enc); free(hf_lg); free(mel); free(got); free(enc);
}

static void fixtures(void) {
    gk_json *ij = NULL;
    const gk_json_value *cases;
    char p[320];
    float *audio;
    size_t n, i, got;
    FILE *f;
    if (getenv("GKT_WHISPER_FIXTURES")) fixdir = getenv("GKT_WHISPER_FIXTURES");
    snprintf(p, sizeof p, "%s/index.json", fixdir);
    if (gk_json_parse_file(p, NULL, &ij) != GK_OK) {
        printf("SKIP the HF parity fixtures: %s is missing (make them on a machine with torch + transformers: python3 tests/gen_whisper_fixtures.py --out " FIX ")\n", p);
        return;
    }
    n = (size_t)gk_json_get_int(gk_json_root(ij), "n_samples", 0);
    snprintf(p, sizeof p, "%s/%s", fixdir, gk_json_get_string(gk_json_root(ij), "audio", "audio.bin"));
    audio = (float *)malloc(sizeof(float) * (n + 1));
    f = fopen(p, "rb");
    got = f ? fread(audio, sizeof(float), n + 1, f) : 0;
    if (f) fclose(f);
    GKT_CHECK(n > 0 && got == n, "%s: %zu samples read, %zu expected", p, got, n);
    cases = gk_json_get(gk_json_root(ij), "cases");
    if (n > 0 && got == n)
        for (i = 0; i < gk_json_len(cases); i++) {
            const char *name = gk_json_str(gk_json_at(cases, i), "");
            fixture_case(name, audio, n, GK_LLM_DTYPE_F32);
            fixture_case(name, audio, n, GK_LLM_DTYPE_BF16);
        }
    free(audio);
    gk_json_free(ij);
}

int main(void) {
    wcfg c;
    char d[320];
    gkt_seed();
    dut = gkt_dut();
    snprintf(tmpdir, sizeof tmpdir, "build/test_whisper_model.%ld", (long)time(NULL) ^ (long)clock());
    mkdir("build", 0755);
    mkdir(tmpdir, 0755);
    /* random models: 80 mels, 99 languages, f32 weights, 2 decoder layers; 128 mels, 100 languages, bf16 weights, 1 decoder layer */
    memset(&c, 0, sizeof c);
    c.d = 32; c.enc_layers = 1; c.dec_layers = 2; c.heads = 2; c.ffn = 48; c.mels = 80; c.vocab = 640; c.n_langs = 99; c.wdt = GK_F32;
    snprintf(d, sizeof d, "%s/ml", tmpdir); make_model(d, &c); self_consistency("self ml", d, 80); step_and_reorder("steps ml", d, 80);
    c.mels = 128; c.dec_layers = 1; c.vocab = 700; c.n_langs = 100; c.wdt = GK_BF16; c.heads = 4;
    snprintf(d, sizeof d, "%s/turbo", tmpdir); make_model(d, &c); self_consistency("self turbo", d, 128); step_and_reorder("steps turbo", d, 128);
    bad_inputs();
    fixtures();
    gk_ctx_destroy(dut);
    {
        char cmd[320];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (getenv("GKT_WHISPER_KEEP")) printf("model folders kept in %s\n", tmpdir);
        else if (system(cmd) != 0) printf("could not remove %s\n", tmpdir);
    }
    return gkt_done("test_whisper_model");
}
