/* test_llm_alloc: gpukit_llm.h's host memory and where its errors go.
   1. Every allocation and free of gpukit_llm.h's implementation goes through
      GPUKIT_MALLOC / GPUKIT_REALLOC / GPUKIT_FREE. This file defines counting
      ones (a header before each block: freeing a block they did not make is
      counted as bad), and a raw malloc / calloc / realloc / free / strdup in
      the implementation does not compile here (the names are poisoned while
      it is included). JSON, safetensors, tokenizers, chat templates, Kokoro's
      text and voice front end (tests/fixtures/kokoro) and the
      qwen3 fixture model on the CPU backend run, everything is freed, and
      no block is left.
   2. An allocator that fails after N calls, for every N until the work
      succeeds: each run returns GK_ERR_OUT_OF_MEMORY with a message that says
      so, leaves nothing allocated (the ASan run's leak check agrees), and
      the run that succeeds gives the same result as one with no failure.
   3. Where errors go (gpukit_llm.h, ERRORS): a call without a context
      reports to the calling thread and leaves contexts alone; a call with a
      context (gk_st_upload, gk_llm_*) reports to it and leaves the thread's
      message alone; a NULL context or model reports to the thread. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the counting allocator ---- */
typedef union ta_hdr {
    struct { unsigned long long magic; size_t size; } h;
    long double ld; /* alignment of the block after the header */
    void *p;
    long long ll;
} ta_hdr;
#define TA_MAGIC 0x6770756B69746C6DULL
static long ta_live;            /* blocks made and not freed */
static long ta_total;           /* blocks made */
static long ta_calls;           /* GPUKIT_MALLOC and GPUKIT_REALLOC calls */
static long ta_fail_after = -1; /* >= 0: the calls after this many fail */
static long ta_bad;             /* frees and reallocs of blocks not made here */
static long ta_failed;          /* calls that returned NULL */

static int ta_fails(void) {
    int f = ++ta_calls > ta_fail_after && ta_fail_after >= 0;
    ta_failed += f;
    return f;
}
static void *ta_malloc(size_t n) {
    ta_hdr *h;
    if (ta_fails()) return NULL;
    h = (ta_hdr *)malloc(sizeof(ta_hdr) + n);
    if (!h) return NULL;
    h->h.magic = TA_MAGIC;
    h->h.size = n;
    ta_live++;
    ta_total++;
    return h + 1;
}
static void *ta_realloc(void *p, size_t n) {
    ta_hdr *h, *q;
    if (!p) return ta_malloc(n);
    h = (ta_hdr *)p - 1;
    if (h->h.magic != TA_MAGIC) { ta_bad++; return NULL; }
    if (ta_fails()) return NULL;
    q = (ta_hdr *)realloc(h, sizeof(ta_hdr) + n);
    if (!q) return NULL;
    q->h.size = n;
    return q + 1;
}
static void ta_free(void *p) {
    ta_hdr *h;
    if (!p) return;
    h = (ta_hdr *)p - 1;
    if (h->h.magic != TA_MAGIC) { ta_bad++; return; }
    h->h.magic = 0;
    ta_live--;
    free(h);
}
static void ta_reset(long fail_after) {
    ta_calls = ta_failed = 0;
    ta_fail_after = fail_after;
}

#define GPUKIT_MALLOC(sz) ta_malloc(sz)
#define GPUKIT_REALLOC(p, sz) ta_realloc(p, sz)
#define GPUKIT_FREE(p) ta_free(p)
#define GPUKIT_IMPLEMENTATION
#include "gpukit.h"
/* what gpukit_llm.h's implementation includes, then no raw allocator call
   compiles until it is done */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#define malloc(n) gpukit_llm_h_calls_malloc_directly
#define calloc(n, s) gpukit_llm_h_calls_calloc_directly
#define realloc(p, n) gpukit_llm_h_calls_realloc_directly
#define free(p) gpukit_llm_h_calls_free_directly
#define strdup(s) gpukit_llm_h_calls_strdup_directly
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"
#undef malloc
#undef calloc
#undef realloc
#undef free
#undef strdup
#include "gkt.h"

#define QWEN3 "tests/fixtures/llm/qwen3"

/* ---- results as a hash (FNV-1a), so a run under failures can be compared ---- */
static void hash(uint64_t *h, const void *p, size_t n) {
    const unsigned char *s = (const unsigned char *)p;
    size_t i;
    for (i = 0; i < n; i++) *h = (*h ^ s[i]) * 0x100000001B3ull;
}
static void hash_json(uint64_t *h, const gk_json_value *v) {
    size_t i, n = gk_json_len(v), kl;
    int t = (int)gk_json_typeof(v);
    int64_t iv = gk_json_int(v, 0);
    double dv = gk_json_double(v, 0);
    hash(h, &t, sizeof t);
    hash(h, &iv, sizeof iv);
    hash(h, &dv, sizeof dv);
    if (t == GK_JSON_STRING) hash(h, gk_json_str(v, ""), n);
    if (t == GK_JSON_ARRAY || t == GK_JSON_OBJECT)
        for (i = 0; i < n; i++) {
            const char *k = gk_json_key_at(v, i, &kl);
            if (k) hash(h, k, kl);
            hash_json(h, gk_json_at(v, i));
        }
}

/* ---- the work, one function a part; each frees what it made, also when it fails ---- */
static char *big_json;       /* a document with a 1.2 MB string (a one-off JSON block) */
static size_t big_json_len;
static char sp_json[16384];  /* a SentencePiece-style tokenizer.json (Llama-2 / Mistral components) */

static void make_inputs(void) {
    static const char head[] = "{\"a\":[1,-2,3.5,1e300,true,false,null,\"\\u00e9\\ud83d\\ude00\\n\",{\"b\":{\"c\":[[],{}]}}],"
                               "\"n\":12345678901234567890123456789012345678901234567890123456789012345678901234567890"
                               "12345678901234567890123456789012345678901234567890123456789012345678901234567890.5,"
                               "\"list\":[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33],"
                               "\"big\":\"";
    size_t hl = sizeof head - 1, bl = 1200000, o;
    int b;
    big_json = (char *)malloc(hl + bl + 3);
    memcpy(big_json, head, hl);
    memset(big_json + hl, 'x', bl);
    memcpy(big_json + hl + bl, "\"}", 3);
    big_json_len = hl + bl + 2;
    o = (size_t)snprintf(sp_json, sizeof sp_json,
                         "{\"added_tokens\":[{\"id\":0,\"content\":\"<unk>\",\"special\":true},{\"id\":1,\"content\":\"<s>\",\"special\":true},"
                         "{\"id\":2,\"content\":\"</s>\",\"special\":true}],"
                         "\"normalizer\":{\"type\":\"Sequence\",\"normalizers\":[{\"type\":\"Prepend\",\"prepend\":\"\\u2581\"},"
                         "{\"type\":\"Replace\",\"pattern\":{\"String\":\" \"},\"content\":\"\\u2581\"}]},\"pre_tokenizer\":null,"
                         "\"post_processor\":{\"type\":\"TemplateProcessing\",\"single\":[{\"SpecialToken\":{\"id\":\"<s>\",\"type_id\":0}},"
                         "{\"Sequence\":{\"id\":\"A\",\"type_id\":0}}],\"special_tokens\":{\"<s>\":{\"id\":\"<s>\",\"ids\":[1],\"tokens\":[\"<s>\"]}}},"
                         "\"decoder\":{\"type\":\"Sequence\",\"decoders\":[{\"type\":\"Replace\",\"pattern\":{\"String\":\"\\u2581\"},\"content\":\" \"},"
                         "{\"type\":\"ByteFallback\"},{\"type\":\"Fuse\"},{\"type\":\"Strip\",\"content\":\" \",\"start\":1,\"stop\":0}]},"
                         "\"model\":{\"type\":\"BPE\",\"byte_fallback\":true,\"fuse_unk\":true,\"unk_token\":\"<unk>\",\"vocab\":{"
                         "\"<unk>\":0,\"<s>\":1,\"</s>\":2");
    for (b = 0; b < 256; b++) o += (size_t)snprintf(sp_json + o, sizeof sp_json - o, ",\"<0x%02X>\":%d", b, 3 + b);
    snprintf(sp_json + o, sizeof sp_json - o,
             ",\"\\u2581\":259,\"h\":260,\"e\":261,\"l\":262,\"o\":263,\"w\":264,\"r\":265,\"d\":266,\"lo\":267,\"\\u2581h\":268,"
             "\"\\u2581he\":269,\"\\u2581hel\":270,\"\\u2581w\":271},"
             "\"merges\":[\"l o\",\"\\u2581 h\",\"\\u2581h e\",\"\\u2581he l\",\"\\u2581 w\"]}}");
}

static gk_status part_json(uint64_t *h) {
    gk_json *doc = NULL;
    char *data = NULL;
    size_t n = 0;
    gk_status st = gk_json_parse(big_json, big_json_len, NULL, &doc);
    if (st == GK_OK) {
        hash_json(h, gk_json_root(doc));
        gk_json_free(doc);
        st = gk_json_parse_file("tests/fixtures/safetensors/expected.json", NULL, &doc);
    }
    if (st == GK_OK) {
        hash_json(h, gk_json_root(doc));
        gk_json_free(doc);
        st = gk_read_file(QWEN3 "/config.json", 0, &data, &n);
    }
    if (st == GK_OK) {
        hash(h, data, n + 1);
        gk_read_file_free(data);
    }
    return st;
}

/* every tensor as stored and as f32 */
static gk_status read_all(const gk_safetensors *st, uint64_t *h) {
    size_t i;
    gk_status s = GK_OK;
    for (i = 0; i < gk_st_count(st) && s == GK_OK; i++) {
        const gk_st_tensor_info *t = gk_st_tensor(st, i);
        size_t nb = (size_t)t->nbytes, nf = (size_t)t->numel * sizeof(float);
        void *raw = malloc(nb ? nb : 1), *f = malloc(nf ? nf : 1);
        hash(h, t->name, strlen(t->name));
        hash(h, t->shape, sizeof t->shape);
        s = gk_st_read_raw(st, t->name, raw, nb);
        if (s == GK_OK) s = gk_st_read(st, t->name, GK_F32, f, nf);
        if (s == GK_OK) {
            hash(h, raw, nb);
            hash(h, f, nf);
        }
        free(raw);
        free(f);
    }
    return s;
}
static gk_status part_safetensors(uint64_t *h) {
    static const char *paths[3] = { "tests/fixtures/safetensors/all_dtypes.safetensors", "tests/fixtures/safetensors/sharded", QWEN3 };
    gk_safetensors *st;
    char *img;
    size_t n, k;
    gk_status s = GK_OK;
    for (k = 0; k < 3 && s == GK_OK; k++) {
        s = gk_st_open(paths[k], &st);
        if (s != GK_OK) break;
        s = read_all(st, h);
        hash(h, gk_st_metadata(st, "format") ? "m" : "-", 1);
        gk_st_close(st);
    }
    if (s == GK_OK) s = gk_read_file(paths[0], 0, &img, &n);
    if (s == GK_OK) {
        s = gk_st_open_memory(img, n, &st);
        if (s == GK_OK) {
            s = read_all(st, h);
            gk_st_close(st);
        }
        gk_read_file_free(img);
    }
    return s;
}

/* encode (with and without special tokens), decode (with and without), stream decode */
static gk_status run_tokenizer(const gk_tokenizer *tok, const char *const *texts, int nt, uint64_t *h) {
    gk_status s = GK_OK;
    int i;
    for (i = 0; i < nt && s == GK_OK; i++) {
        gk_ids ids = { 0, 0, 0 };
        gk_buf out = { 0, 0, 0 }, out2 = { 0, 0, 0 }, so = { 0, 0, 0 };
        size_t k;
        s = gk_tokenizer_encode(tok, texts[i], strlen(texts[i]), GK_TOK_ADD_SPECIAL, &ids);
        if (s == GK_OK) s = gk_tokenizer_encode(tok, texts[i], strlen(texts[i]), GK_TOK_SPLIT_SPECIAL, &ids);
        if (s == GK_OK) s = gk_tokenizer_decode(tok, ids.data, ids.len, 0, &out);
        if (s == GK_OK) s = gk_tokenizer_decode(tok, ids.data, ids.len, GK_TOK_SKIP_SPECIAL, &out2);
        if (s == GK_OK) {
            gk_tok_stream ts;
            gk_tok_stream_init(&ts, tok, 0);
            for (k = 0; k < ids.len && s == GK_OK; k++) s = gk_tok_stream_push(&ts, ids.data[k], &so);
            if (s == GK_OK) s = gk_tok_stream_flush(&ts, &so);
        }
        if (s == GK_OK) {
            hash(h, ids.data, ids.len * sizeof(int32_t));
            hash(h, out.data, out.len);
            hash(h, out2.data, out2.len);
            hash(h, so.data, so.len);
        }
        gk_ids_free(&ids);
        gk_buf_free(&out);
        gk_buf_free(&out2);
        gk_buf_free(&so);
    }
    return s;
}
static gk_status part_tokenizer_bytelevel(uint64_t *h) {
    static const char *texts[5] = {
        "Hello world, it's 2024!\n\n  spaces",
        "<|im_start|>user\nhi<|im_end|>\n",
        "caf\x65\xCC\x81 \xED\x95\x9C\xEA\xB8\x80 nai\xCC\x88ve", /* NFC: e + combining acute, Hangul, i + diaeresis */
        "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnop", /* one word > 48 symbols */
        "bad \xFF\xC3 utf8" };
    gk_tokenizer *tok = NULL;
    gk_status s = gk_tokenizer_load(QWEN3 "/tokenizer.json", &tok);
    if (s != GK_OK) return s;
    s = run_tokenizer(tok, texts, 5, h);
    gk_tokenizer_free(tok);
    return s;
}
static gk_status part_tokenizer_spm(uint64_t *h) {
    static const char *texts[3] = { "hello world \xC3\xBC</s>", "  hello  ", "lo w" };
    gk_tokenizer *tok = NULL;
    gk_status s = gk_tokenizer_load_mem(sp_json, strlen(sp_json), &tok);
    if (s != GK_OK) return s;
    s = run_tokenizer(tok, texts, 3, h);
    gk_tokenizer_free(tok);
    return s;
}
static gk_status part_chat(uint64_t *h) {
    gk_chat_template t;
    gk_chat_message msgs[3] = { { "system", "Be brief." }, { "user", "Hi" }, { "assistant", "Hello." } };
    gk_buf out = { 0, 0, 0 };
    gk_status s = gk_chat_template_load(QWEN3 "/tokenizer_config.json", &t);
    if (s == GK_OK) s = gk_chat_apply(&t, msgs, 3, GK_CHAT_ADD_GENERATION_PROMPT, &out);
    if (s == GK_OK) hash(h, out.data, out.len);
    gk_buf_free(&out);
    return s;
}

/* the qwen3 fixture model on the CPU backend: load, generate, chat */
static gk_ctx *model_ctx;
static gk_status part_model_use(gk_llm *m, uint64_t *h) {
    gk_llm_gen_desc gd;
    gk_chat_message msg = { "user", "Hi there" };
    gk_ids out = { 0, 0, 0 };
    gk_buf text = { 0, 0, 0 };
    gk_status s;
    memset(&gd, 0, sizeof gd);
    gd.max_new_tokens = 6;
    gd.sampling = GK_LLM_SAMPLE_GREEDY;
    gd.flags = GK_LLM_GEN_IGNORE_EOS;
    s = gk_llm_generate(m, "Hello world", &gd, &out, &text, NULL);
    if (s == GK_OK) s = gk_llm_chat(m, &msg, 1, &gd, &out, &text, NULL);
    if (s == GK_OK) {
        hash(h, out.data, out.len * sizeof(int32_t));
        hash(h, text.data, text.len);
    }
    gk_ids_free(&out);
    gk_buf_free(&text);
    return s;
}
static gk_llm *model_load(void) {
    gk_llm_desc d;
    gk_llm *m = NULL;
    memset(&d, 0, sizeof d);
    d.dtype = GK_LLM_DTYPE_F32;
    d.max_ctx = 64;
    GKT_OK(model_ctx, gk_llm_load(model_ctx, QWEN3, &d, &m));
    return m;
}

/* Kokoro's front end: vocabulary, ids, chunks, the espeak-ng map, voices (a deflated npz and a blend) */
static gk_status part_kokoro(uint64_t *h) {
    static const char *cfg = "{\"n_token\":178,\"vocab\":{\",\":3,\".\":4,\" \":16,\"a\":43,\"b\":44,\"d\":46,\"h\":50,"
                             "\"l\":54,\"w\":65,\"O\":31,\"\\u0259\":83,\"\\u02c8\":156,\"\\u025c\":87,\"\\u0279\":123}}";
    static const char *ph = "h\xC9\x99l\xCB\x88O, w\xCB\x88\xC9\x9C\xC9\xB9ld. h\xC9\x99l\xCB\x88O w\xCB\x88\xC9\x9C\xC9\xB9ld, ab ba. dab\nbad";
    static const char *ipa = "h\xC9\x99l\xCB\x88o\xCD\xA1\xCA\x8A w\xCB\x88\xC9\x9C\xCB\x90ld (fr)b\xC9\x94\xCC\x83(en) l\xCB\x88\xC9\xAA\xC9\xBE\xC9\x99\xCD\xA1l";
    gk_json *doc = NULL;
    gk_kokoro_vocab *v = NULL;
    gk_ids ids = {NULL, 0, 0};
    gk_kokoro_chunks c;
    gk_kokoro_chunk_desc d;
    gk_kokoro_voice vo;
    gk_buf b = {NULL, 0, 0};
    size_t k, n = 0;
    gk_status s = gk_json_parse(cfg, strlen(cfg), NULL, &doc);
    memset(&c, 0, sizeof c);
    memset(&vo, 0, sizeof vo);
    memset(&d, 0, sizeof d);
    if (s == GK_OK) s = gk_kokoro_vocab_from_json(gk_json_root(doc), &v);
    if (s == GK_OK) s = gk_kokoro_phonemes_to_ids(v, ph, strlen(ph), GK_KOKORO_DROP_UNKNOWN, &ids, &n);
    if (s == GK_OK) {
        hash(h, ids.data, ids.len * sizeof(int32_t));
        hash(h, &n, sizeof n);
        d.max_phonemes = 12;
        s = gk_kokoro_phoneme_chunks(&d, ph, strlen(ph), &c);
    }
    for (k = 0; s == GK_OK && k < c.n; k++) {
        hash(h, c.chunk[k].phonemes, c.chunk[k].phonemes_len);
        hash(h, &c.chunk[k].text_begin, sizeof(size_t));
    }
    if (s == GK_OK) s = gk_kokoro_map_espeak("en-us", ipa, strlen(ipa), &b);
    if (s == GK_OK) s = gk_kokoro_voice_load("tests/fixtures/kokoro/voices_numpy.npz", "af_one:3,bm_two:1", &vo);
    if (s == GK_OK) {
        hash(h, vo.data, vo.rows * GK_KOKORO_STYLE_DIM * sizeof(float));
        s = gk_kokoro_voice_list("tests/fixtures/kokoro/voices_numpy.npz", &b);
    }
    if (s == GK_OK) hash(h, b.data, b.len);
    gk_kokoro_voice_free(&vo);
    gk_kokoro_chunks_free(&c);
    gk_buf_free(&b);
    gk_ids_free(&ids);
    gk_kokoro_vocab_free(v);
    gk_json_free(doc);
    return s;
}

/* ---- 1. counted ---- */
typedef gk_status (*part_fn)(uint64_t *h);
static const struct { const char *name; part_fn fn; } parts[] = {
    { "json", part_json },
    { "safetensors", part_safetensors },
    { "tokenizer (byte-level, fixture)", part_tokenizer_bytelevel },
    { "tokenizer (SentencePiece-style)", part_tokenizer_spm },
    { "chat template", part_chat },
    { "kokoro front end", part_kokoro },
};
#define NPARTS (sizeof parts / sizeof parts[0])
static uint64_t ref_hash[NPARTS];
static long ref_calls[NPARTS];

static void counted(void) {
    size_t i;
    for (i = 0; i < NPARTS; i++) {
        long total0 = ta_total;
        gk_status s;
        ref_hash[i] = 0xCBF29CE484222325ull;
        ta_reset(-1);
        s = parts[i].fn(&ref_hash[i]);
        ref_calls[i] = ta_calls;
        GKT_CHECK(s == GK_OK, "%s: %s: %s", parts[i].name, gk_status_name(s), gk_last_error(NULL));
        GKT_CHECK(ta_total > total0, "%s: no allocation went through GPUKIT_MALLOC", parts[i].name);
        GKT_CHECK(ta_live == 0 && ta_bad == 0, "%s: %ld blocks left, %ld bad frees", parts[i].name, ta_live, ta_bad);
        printf("%s: %ld allocator calls, %ld blocks\n", parts[i].name, ref_calls[i], ta_total - total0);
    }
    /* the model: its blocks and the core's go through the same macros */
    {
        long total0 = ta_total;
        gk_llm *m;
        uint64_t h = 0xCBF29CE484222325ull;
        ta_reset(-1);
        model_ctx = gkt_ref();
        m = model_load();
        if (m) {
            GKT_OK(model_ctx, part_model_use(m, &h));
            gk_llm_free(m);
        }
        gk_ctx_destroy(model_ctx);
        model_ctx = NULL;
        GKT_CHECK(ta_total > total0 && ta_live == 0 && ta_bad == 0, "model: %ld blocks made, %ld left, %ld bad frees", ta_total - total0,
                  ta_live, ta_bad);
        printf("model (CPU backend, with the core): %ld allocator calls, %ld blocks\n", ta_calls, ta_total - total0);
    }
}

/* ---- 2. failing allocators ---- */
static void failing(void) {
    size_t i;
    for (i = 0; i < NPARTS; i++) {
        long n, failed = 0, wrong_status = 0, no_msg = 0, leaked = 0, succeeded_early = 0, wrong_result = 0;
        for (n = 0; n <= ref_calls[i]; n++) {
            uint64_t h = 0xCBF29CE484222325ull;
            gk_status s;
            gk_error_clear(NULL);
            ta_reset(n);
            s = parts[i].fn(&h);
            ta_reset(-1);
            if (ta_live != 0 || ta_bad != 0) {
                if (!leaked++) printf("%s: failing after %ld calls leaves %ld blocks, %ld bad frees\n", parts[i].name, n, ta_live, ta_bad);
                ta_live = 0;
                ta_bad = 0;
            }
            if (s == GK_OK) {
                if (n < ref_calls[i] && !succeeded_early++) printf("%s: succeeded with the allocator failing after %ld of %ld calls\n", parts[i].name, n, ref_calls[i]);
                if (h != ref_hash[i] && !wrong_result++) printf("%s: a different result after %ld calls\n", parts[i].name, n);
                continue;
            }
            failed++;
            if (s != GK_ERR_OUT_OF_MEMORY && !wrong_status++)
                printf("%s: failing after %ld calls gives %s: %s\n", parts[i].name, n, gk_status_name(s), gk_last_error(NULL));
            if (!strstr(gk_last_error(NULL), "out of memory") && !no_msg++)
                printf("%s: failing after %ld calls: message \"%s\"\n", parts[i].name, n, gk_last_error(NULL));
        }
        GKT_CHECK(failed == ref_calls[i], "%s: %ld of %ld runs failed", parts[i].name, failed, ref_calls[i]);
        GKT_CHECK(wrong_status == 0, "%s: %ld runs failed with another status than GK_ERR_OUT_OF_MEMORY", parts[i].name, wrong_status);
        GKT_CHECK(no_msg == 0, "%s: %ld messages do not say out of memory", parts[i].name, no_msg);
        GKT_CHECK(leaked == 0, "%s: %ld runs left blocks", parts[i].name, leaked);
        GKT_CHECK(succeeded_early == 0 && wrong_result == 0, "%s: %ld runs hid a failed allocation, %ld gave another result", parts[i].name,
                  succeeded_early, wrong_result);
        if (failed == ref_calls[i] && !wrong_status && !no_msg && !leaked && !succeeded_early && !wrong_result)
            printf("%s: failing after 0..%ld calls: every run GK_ERR_OUT_OF_MEMORY, nothing left\n", parts[i].name, ref_calls[i] - 1);
    }
    /* the model: load, then generate and chat with the allocator failing at each
       of their calls. The core's pool keeps freed blocks and decode graphs stay
       with the model, so a run's blocks are counted at the end, not per run; a
       run that succeeds must not have seen a failed allocation. The message is
       the context's; the thread's stays. */
    {
        gk_llm *m;
        long n, calls, wrong = 0, hidden = 0, msg_off = 0;
        uint64_t ref = 0xCBF29CE484222325ull;
        model_ctx = gkt_ref();
        m = model_load();
        if (!m) { gk_ctx_destroy(model_ctx); return; }
        ta_reset(-1);
        GKT_OK(model_ctx, part_model_use(m, &ref));
        calls = ta_calls;
        for (n = 0; n < calls; n++) {
            uint64_t h = 0xCBF29CE484222325ull;
            gk_status s;
            gk_error_set(NULL, GK_OK, "thread untouched");
            ta_reset(n);
            s = part_model_use(m, &h);
            if (s == GK_OK && ta_failed && !hidden++) printf("model: succeeded though allocation %ld of %ld failed\n", n + 1, calls);
            ta_reset(-1);
            if (s != GK_OK && (s != GK_ERR_OUT_OF_MEMORY || !strstr(gk_last_error(model_ctx), "memory")) && !wrong++)
                printf("model: failing after %ld calls: %s: %s\n", n, gk_status_name(s), gk_last_error(model_ctx));
            if (strcmp(gk_last_error(NULL), "thread untouched") != 0 && !msg_off++)
                printf("model: failing after %ld calls: the thread's message is \"%s\"\n", n, gk_last_error(NULL));
        }
        GKT_CHECK(hidden == 0 && wrong == 0 && msg_off == 0, "model: %ld runs hid a failed allocation, %ld failed otherwise, %ld wrote the thread's message",
                  hidden, wrong, msg_off);
        gk_llm_free(m);
        gk_ctx_destroy(model_ctx);
        model_ctx = NULL;
        GKT_CHECK(ta_live == 0 && ta_bad == 0, "model: %ld blocks left, %ld bad frees", ta_live, ta_bad);
        if (!hidden && !wrong && !msg_off && !ta_live)
            printf("model: generate and chat failing after 0..%ld calls: GK_ERR_OUT_OF_MEMORY on the context, nothing left\n", calls - 1);
        gk_error_clear(NULL);
    }
}

/* ---- 3. where errors go ---- */
#define THREAD_IS(want, what) \
    GKT_CHECK(strcmp(gk_last_error(NULL), want) == 0, "%s: the thread's message is \"%s\", want \"%s\"", what, gk_last_error(NULL), want)
#define CTX_IS(ctx, want, what) \
    GKT_CHECK(strcmp(gk_last_error(ctx), want) == 0, "%s: the context's message is \"%s\", want \"%s\"", what, gk_last_error(ctx), want)

static void error_rule(void) {
    gk_ctx *ctx = gkt_ref();
    gk_safetensors *st = NULL, *st2 = NULL;
    gk_tokenizer *tok = NULL;
    gk_json *doc = NULL;
    gk_chat_template t;
    gk_tensor out;
    gk_llm *m = NULL;
    char *data = NULL;
    size_t n;
    float f[4];
    GKT_OK(NULL, gk_st_open("tests/fixtures/safetensors/all_dtypes.safetensors", &st));
    if (!st) { gk_ctx_destroy(ctx); return; }
    /* no context: the thread's message; the context's stays */
    gk_error_set(ctx, GK_OK, "ctx untouched");
    GKT_FAILS(NULL, gk_json_parse("{\"a\":", 5, NULL, &doc), GK_ERR_FORMAT, "JSON: unexpected end of input, value expected at line 1, column 6");
    CTX_IS(ctx, "ctx untouched", "gk_json_parse");
    GKT_FAILS(NULL, gk_json_parse_file("/nonexistent/config.json", NULL, &doc), GK_ERR_IO, "cannot open '/nonexistent/config.json'");
    GKT_FAILS(NULL, gk_read_file("/nonexistent/x.txt", 0, &data, &n), GK_ERR_IO, "cannot open '/nonexistent/x.txt'");
    GKT_FAILS(NULL, gk_st_open("/nonexistent/model.safetensors", &st2), GK_ERR_IO, "cannot open '/nonexistent/model.safetensors'");
    GKT_FAILS(NULL, gk_st_read(st, "nope", GK_F32, f, sizeof f), GK_ERR_NOT_FOUND, "safetensors: no tensor named 'nope'");
    GKT_FAILS(NULL, gk_tokenizer_load("/nonexistent/tokenizer.json", &tok), GK_ERR_IO, "/nonexistent/tokenizer.json");
    GKT_FAILS(NULL, gk_chat_template_builtin("nope", NULL, NULL, &t), GK_ERR_NOT_FOUND, "no built-in chat format named 'nope'");
    CTX_IS(ctx, "ctx untouched", "the context-free calls");
    /* with a context: the context's message; the thread's stays */
    gk_error_set(NULL, GK_OK, "thread untouched");
    GKT_FAILS(ctx, gk_st_upload(ctx, st, "nope", GK_F32, &out, NULL, NULL), GK_ERR_NOT_FOUND, "safetensors: no tensor named 'nope'");
    THREAD_IS("thread untouched", "gk_st_upload, no such tensor");
    GKT_FAILS(ctx, gk_st_upload(ctx, st, "f32", (gk_dtype)99, &out, NULL, NULL), GK_ERR_DTYPE, "gk_st_upload: invalid dtype 99");
    GKT_FAILS(ctx, gk_st_upload(ctx, st, "f32", GK_F32, NULL, NULL, NULL), GK_ERR_INVALID_ARGUMENT, "gk_st_upload: out is NULL");
    THREAD_IS("thread untouched", "gk_st_upload");
    GKT_FAILS(ctx, gk_llm_load(ctx, "/nonexistent/model", NULL, &m), GK_ERR_IO, "gk_llm_load: cannot open '/nonexistent/model/config.json'");
    THREAD_IS("thread untouched", "gk_llm_load of a missing folder");
    GKT_CHECK(m == NULL, "no model");
    /* a context call that succeeds leaves the thread's message as it was too */
    model_ctx = ctx;
    m = model_load();
    THREAD_IS("thread untouched", "gk_llm_load of the qwen3 fixture");
    if (m) {
        gk_chat_message bad = { NULL, "hi" };
        gk_ids ids = { 0, 0, 0 };
        GKT_FAILS(ctx, gk_llm_chat_ids(m, &bad, 1, 0, &ids), GK_ERR_INVALID_ARGUMENT, "gk_llm_chat_ids: gk_chat_apply: msgs[0].role is NULL");
        THREAD_IS("thread untouched", "gk_llm_chat_ids (the chat template failed)");
        gk_ids_free(&ids);
        gk_llm_free(m);
    }
    model_ctx = NULL;
    /* a NULL context or model: the thread's message */
    gk_error_set(ctx, GK_OK, "ctx untouched");
    GKT_FAILS(NULL, gk_st_upload(NULL, st, "nope", GK_F32, &out, NULL, NULL), GK_ERR_INVALID_HANDLE, "gk_st_upload: ctx is NULL");
    GKT_FAILS(NULL, gk_llm_forward(NULL, 0, NULL, 0, 0, NULL), GK_ERR_INVALID_ARGUMENT, "gk_llm_forward: m is NULL");
    GKT_FAILS(NULL, gk_llm_load(NULL, QWEN3, NULL, &m), GK_ERR_INVALID_HANDLE, "gk_llm_load: ctx is NULL");
    CTX_IS(ctx, "ctx untouched", "calls with a NULL context or model");
    gk_st_close(st);
    gk_ctx_destroy(ctx);
    gk_error_clear(NULL);
}

int main(void) {
    gkt_seed();
    make_inputs();
    counted();
    failing();
    error_rule();
    GKT_CHECK(ta_live == 0 && ta_bad == 0, "at the end: %ld blocks left, %ld bad frees", ta_live, ta_bad);
    free(big_json);
    return gkt_done("test_llm_alloc");
}
