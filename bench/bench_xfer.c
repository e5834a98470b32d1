/* bench_xfer.c - the async transfer engine (>>api_xfer; issue 24, GPU checks 2
   and 3), measured side by side in one run:
   (a) host <-> device bandwidth, 4 MiB .. 1 GiB: plain copies
       (gk_copy_*_async: one cuMemcpyHtoDAsync / DtoHAsync a copy, on one
       stream) from pinned memory next to the engine (gk_xfer_*) from the same
       memory, each size copied back to back until 1 GiB has moved, the
       median of --reps runs; engine / plain (target >= 0.9). Pageable memory
       both ways too (the engine stages it through its pinned ring).
   (b) a copy overlapped with a kernel of equal length: an engine upload of
       256 MiB from pinned memory and a spin kernel (gk_module, calibrated to
       the copy's time) on a compute stream: each alone, both together, and
       the same copy issued on the kernel's stream (serialized) for contrast;
       overlap = (copy + kernel - together) / min(copy, kernel), 1 = full.
   (c) loading a 7B-shape model (Llama-2-7B: 6.7 B parameters, 13.5 GB of
       bf16 in 4 shards) with gk_llm_load from the page cache: the files are
       read once first, then loaded (a fresh context: its transfer engine is
       made by the load) and loaded again (the engine made); seconds, GB/s,
       and the ratio to the pinned host-to-device bandwidth of (a) (target
       >= 0.8). --sweep loads it with 4, 8, 12 and 16 staging threads.
     build/bench_xfer [--quick] [--reps N] [--json FILE] [--make-model DIR] [--load DIR]
                      [--workers N] [--chunk-mib M] [--sweep]
   --make-model DIR writes the random-weight 7B folder (config.json, a
   byte-level tokenizer.json, model-0000k-of-00004.safetensors and the index;
   about 13.5 GB; a folder that has the index is reused). Without --load,
   (c) is skipped. One run for everything:
     build/bench_xfer --make-model /tmp/gk_m7b --load /tmp/gk_m7b --sweep --json FILE --quick: small sizes and a
   tiny model written to /tmp and loaded (a smoke test; runs on the CPU
   backend). */
#define GPUKIT_IMPLEMENTATION
#define GPUKIT_LLM_IMPLEMENTATION
#include "../gpukit_llm.h"
#include "gkb.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static gk_ctx *ctx;
static int quick, reps = 5;
static gkb_json J;

/* ---- (a) bandwidth ---- */
typedef struct bw_row { size_t size; double plain_pin, xfer_pin, plain_page, xfer_page; } bw_row;

static double bw_time(int dir, int engine, gk_xfer *x, gk_stream *s, gk_tensor d, void *h, size_t size, int k) {
    double t0 = gkb_now_ms();
    int i;
    for (i = 0; i < k; i++) {
        if (engine) {
            if (dir == 0) GKB_CHECK(ctx, gk_xfer_upload(x, d, 0, h, size, NULL, NULL));
            else GKB_CHECK(ctx, gk_xfer_download(x, d, 0, h, size, NULL, NULL));
        } else if (dir == 0) GKB_CHECK(ctx, gk_copy_from_host_async(ctx, d, h, size, s));
        else GKB_CHECK(ctx, gk_copy_to_host_async(ctx, d, h, size, s));
    }
    if (engine) GKB_CHECK(ctx, gk_xfer_flush(x));
    else GKB_CHECK(ctx, gk_stream_sync(ctx, s));
    return gkb_now_ms() - t0;
}
/* GB/s of size bytes copied back to back until `total` bytes have moved; the median of reps runs */
static double bw_measure(int dir, int engine, gk_xfer *x, gk_stream *s, gk_tensor d, void *h, size_t size, size_t total) {
    double ms[64];
    int k = (int)(total / size), r;
    if (k < 1) k = 1;
    bw_time(dir, engine, x, s, d, h, size, 1); /* warm-up */
    for (r = 0; r < reps && r < 64; r++) ms[r] = bw_time(dir, engine, x, s, d, h, size, k);
    return (double)size * k / (gkb_median(ms, r) * 1e6);
}

static double bandwidth(void) {
    static const size_t mib = (size_t)1 << 20;
    size_t sizes[5] = { 4 * mib, 16 * mib, 64 * mib, 256 * mib, 1024 * mib }, qsizes[2] = { 1 * mib, 4 * mib };
    size_t *sz = quick ? qsizes : sizes, total = quick ? 16 * mib : 1024 * mib, maxs;
    int ns = quick ? 2 : 5, i, dir, bad = 0;
    size_t j;
    gk_xfer *x = NULL;
    gk_stream *s = NULL;
    unsigned char *pin = NULL, *page;
    double best_h2d = 0;
    maxs = sz[ns - 1];
    GKB_CHECK(ctx, gk_xfer_create(ctx, NULL, &x));
    GKB_CHECK(ctx, gk_stream_create(ctx, GK_PRIORITY_NORMAL, &s));
    GKB_CHECK(ctx, gk_host_alloc(ctx, maxs, (void **)&pin));
    page = (unsigned char *)malloc(maxs);
    if (!page) { printf("out of memory\n"); exit(1); }
    for (j = 0; j < maxs; j++) pin[j] = page[j] = (unsigned char)(j * 131 + 7);
    printf("(a) host <-> device, GB/s (the median of %d runs of %.0f MiB in copies of each size; engine: default desc)\n", reps, (double)total / (double)mib);
    printf("    %-9s %-4s %10s %10s %7s | %10s %10s %7s\n", "size", "dir", "plain pin", "xfer pin", "ratio", "plain page", "xfer page", "ratio");
    gkb_json_arr(&J, "bandwidth");
    for (i = 0; i < ns; i++) {
        gk_tensor d;
        int64_t n = (int64_t)sz[i];
        GKB_CHECK(ctx, gk_tensor_empty(ctx, GK_U8, 1, &n, &d));
        for (dir = 0; dir < 2; dir++) {
            bw_row r;
            r.size = sz[i];
            r.plain_pin = bw_measure(dir, 0, x, s, d, pin, sz[i], total);
            r.xfer_pin = bw_measure(dir, 1, x, s, d, pin, sz[i], total);
            r.plain_page = bw_measure(dir, 0, x, s, d, page, sz[i], total);
            r.xfer_page = bw_measure(dir, 1, x, s, d, page, sz[i], total);
            if (dir == 0 && r.plain_pin > best_h2d) best_h2d = r.plain_pin;
            printf("    %6.0f MiB %-4s %10.2f %10.2f %7.3f | %10.2f %10.2f %7.3f\n", (double)sz[i] / (double)mib, dir ? "D2H" : "H2D", r.plain_pin,
                   r.xfer_pin, r.xfer_pin / r.plain_pin, r.plain_page, r.xfer_page, r.xfer_page / r.plain_page);
            gkb_json_rowf(&J, "{\"size\": %zu, \"dir\": \"%s\", \"plain_pinned_gbps\": %.3f, \"xfer_pinned_gbps\": %.3f, \"ratio_pinned\": %.4f, "
                          "\"plain_pageable_gbps\": %.3f, \"xfer_pageable_gbps\": %.3f, \"ratio_pageable\": %.4f}",
                          sz[i], dir ? "D2H" : "H2D", r.plain_pin, r.xfer_pin, r.xfer_pin / r.plain_pin, r.plain_page, r.xfer_page, r.xfer_page / r.plain_page);
        }
        /* the data went where it should: an engine round trip of this size */
        memset(page, 0, sz[i]);
        GKB_CHECK(ctx, gk_xfer_upload(x, d, 0, pin, sz[i], NULL, NULL));
        GKB_CHECK(ctx, gk_xfer_flush(x));
        GKB_CHECK(ctx, gk_xfer_download(x, d, 0, page, sz[i], NULL, NULL));
        GKB_CHECK(ctx, gk_xfer_flush(x));
        bad += memcmp(page, pin, sz[i]) != 0;
        memcpy(page, pin, sz[i]);
        gk_tensor_free(ctx, d);
    }
    gkb_json_end(&J);
    if (bad) { printf("an engine round trip came back wrong\n"); exit(1); }
    {
        gk_xfer_stats st;
        GKB_CHECK(ctx, gk_xfer_stats_get(x, &st));
        printf("    engine: %llu chunks of %zu bytes, %d buffers, %d workers; %.2f GB direct, %.2f GB staged\n", (unsigned long long)st.chunks,
               st.chunk_bytes, st.buffers, st.workers, (double)st.bytes_direct / 1e9, (double)st.bytes_staged / 1e9);
    }
    GKB_CHECK(ctx, gk_host_free(ctx, pin));
    free(page);
    GKB_CHECK(ctx, gk_stream_destroy(ctx, s));
    GKB_CHECK(ctx, gk_xfer_destroy(x));
    return best_h2d;
}

/* ---- (b) a copy overlapped with a kernel ---- */
static const char *SPIN_SRC =
    "extern \"C\" __global__ void spin(long long cycles, float *out) {\n"
    "    long long t0 = clock64();\n"
    "    while (clock64() - t0 < cycles) {}\n"
    "    if (threadIdx.x == 0 && blockIdx.x == 0) out[0] = 1.0f;\n"
    "}\n";
/* the CPU backend's stand-in: `cycles` nanoseconds of busy waiting */
static void spin_cpu(const gk_cpu_launch *l) {
    double end = gkb_now_ms() + (double)l->args[0].v.i64 / 1e6;
    while (gkb_now_ms() < end) {}
}
static double median_ms(double *v, int n) { return gkb_median(v, n); }

static void overlap(void) {
    size_t S = quick ? ((size_t)4 << 20) : ((size_t)256 << 20);
    int64_t n = (int64_t)S, one = 1;
    gk_xfer *x = NULL;
    gk_stream *cs = NULL;
    gk_tensor d, o;
    unsigned char *pin = NULL;
    gk_module *mod = NULL;
    gk_kernel *k = NULL;
    gk_module_desc md;
    gk_launch_desc ld;
    gk_arg args[2];
    gk_device_info info;
    double tc[16], tk[16], tb[16], ts[16], Tc, Tk, Tb, Ts, t0;
    long long cycles = 10000000;
    int r, R = reps < 16 ? reps : 16;
    gk_xfer_id id;
    GKB_CHECK(ctx, gk_device_info_get(ctx, &info));
    GKB_CHECK(ctx, gk_xfer_create(ctx, NULL, &x));
    GKB_CHECK(ctx, gk_stream_create(ctx, GK_PRIORITY_NORMAL, &cs));
    GKB_CHECK(ctx, gk_tensor_empty(ctx, GK_U8, 1, &n, &d));
    GKB_CHECK(ctx, gk_tensor_empty(ctx, GK_F32, 1, &one, &o));
    GKB_CHECK(ctx, gk_host_alloc(ctx, S, (void **)&pin));
    memset(pin, 1, S);
    memset(&md, 0, sizeof md);
    md.source = SPIN_SRC;
    md.name = "bench_xfer_spin.cu";
    if (gk_module_create(ctx, &md, &mod) != GK_OK || gk_module_kernel(ctx, mod, "spin", &k) != GK_OK) {
        printf("(b) skipped: the spin kernel does not compile here: %s\n", gk_last_error(ctx));
        goto done;
    }
    GKB_CHECK(ctx, gk_kernel_set_cpu(ctx, k, spin_cpu, NULL));
    memset(&ld, 0, sizeof ld);
    ld.grid[0] = (unsigned)(info.sm_count > 0 ? info.sm_count : 1);
    ld.block[0] = 128;
    ld.stream = cs;
    ld.args = args;
    ld.num_args = 2;
    args[1] = gk_arg_tensor(o);
#define SPIN(c) (args[0] = gk_arg_i64(c), gk_kernel_launch(ctx, k, &ld))
    /* the copy alone, then the kernel calibrated to it */
    for (r = 0; r < R; r++) {
        t0 = gkb_now_ms();
        GKB_CHECK(ctx, gk_xfer_upload(x, d, 0, pin, S, NULL, &id));
        GKB_CHECK(ctx, gk_xfer_wait(x, id, -1));
        tc[r] = gkb_now_ms() - t0;
    }
    Tc = median_ms(tc, R);
    GKB_CHECK(ctx, SPIN(cycles));
    GKB_CHECK(ctx, gk_stream_sync(ctx, cs));
    for (r = 0; r < 3; r++) {
        t0 = gkb_now_ms();
        GKB_CHECK(ctx, SPIN(cycles));
        GKB_CHECK(ctx, gk_stream_sync(ctx, cs));
        tk[r] = gkb_now_ms() - t0;
    }
    cycles = (long long)((double)cycles * Tc / median_ms(tk, 3));
    if (cycles < 1000) cycles = 1000;
    for (r = 0; r < R; r++) {
        t0 = gkb_now_ms();
        GKB_CHECK(ctx, SPIN(cycles));
        GKB_CHECK(ctx, gk_stream_sync(ctx, cs));
        tk[r] = gkb_now_ms() - t0;
    }
    Tk = median_ms(tk, R);
    /* both: the engine's copy and the kernel on the compute stream */
    for (r = 0; r < R; r++) {
        t0 = gkb_now_ms();
        GKB_CHECK(ctx, gk_xfer_upload(x, d, 0, pin, S, NULL, &id));
        GKB_CHECK(ctx, SPIN(cycles));
        GKB_CHECK(ctx, gk_xfer_wait(x, id, -1));
        GKB_CHECK(ctx, gk_stream_sync(ctx, cs));
        tb[r] = gkb_now_ms() - t0;
    }
    Tb = median_ms(tb, R);
    /* contrast: a plain copy on the kernel's own stream (serialized) */
    for (r = 0; r < R; r++) {
        t0 = gkb_now_ms();
        GKB_CHECK(ctx, gk_copy_from_host_async(ctx, d, pin, S, cs));
        GKB_CHECK(ctx, SPIN(cycles));
        GKB_CHECK(ctx, gk_stream_sync(ctx, cs));
        ts[r] = gkb_now_ms() - t0;
    }
    Ts = median_ms(ts, R);
#undef SPIN
    printf("(b) %.0f MiB engine upload (pinned) and a spin kernel of equal length (%lld cycles), ms (median of %d):\n", (double)S / 1048576.0, cycles, R);
    printf("    copy alone %.3f, kernel alone %.3f, both %.3f (%.3f x the longer), overlap %.3f; on one stream %.3f\n", Tc, Tk, Tb,
           Tb / (Tc > Tk ? Tc : Tk), (Tc + Tk - Tb) / (Tc < Tk ? Tc : Tk), Ts);
    gkb_json_row(&J, "overlap");
    gkb_json_int(&J, "bytes", (long long)S);
    gkb_json_num(&J, "copy_ms", Tc, 4);
    gkb_json_num(&J, "kernel_ms", Tk, 4);
    gkb_json_num(&J, "both_ms", Tb, 4);
    gkb_json_num(&J, "both_over_longer", Tb / (Tc > Tk ? Tc : Tk), 4);
    gkb_json_num(&J, "overlap", (Tc + Tk - Tb) / (Tc < Tk ? Tc : Tk), 4);
    gkb_json_num(&J, "one_stream_ms", Ts, 4);
    gkb_json_end(&J);
done:
    if (mod) gk_module_destroy(ctx, mod);
    GKB_CHECK(ctx, gk_host_free(ctx, pin));
    gk_tensor_free(ctx, d);
    gk_tensor_free(ctx, o);
    GKB_CHECK(ctx, gk_stream_destroy(ctx, cs));
    GKB_CHECK(ctx, gk_xfer_destroy(x));
}

/* ---- (c) model folders ---- */
typedef struct shape { const char *arch; int64_t hidden, inter, layers, heads, kv, vocab, max_pos; int shards; } shape;
static const shape LLAMA7B = { "LlamaForCausalLM", 4096, 11008, 32, 32, 32, 32000, 4096, 4 };
static const shape TINY = { "LlamaForCausalLM", 256, 704, 2, 4, 2, 512, 4096, 2 };

typedef struct wt { char name[96]; int nd; int64_t d0, d1; int norm; uint64_t bytes; int shard; } wt;

static void put_text(const char *dir, const char *name, const char *text) {
    char p[4200];
    FILE *f;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    if (!(f = fopen(p, "wb")) || fputs(text, f) < 0 || fclose(f) != 0) { printf("cannot write %s\n", p); exit(1); }
}
static unsigned long long rng = 0x9E3779B97F4A7C15ull;
/* n bf16 values: +-[1/128, 1/64) for weights, [1, 2) for norms */
static void fill_bf16(uint16_t *p, size_t n, int norm) {
    size_t i;
    for (i = 0; i < n; i += 4) {
        unsigned long long v;
        int j;
        rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
        v = rng;
        for (j = 0; j < 4 && i + j < n; j++, v >>= 16)
            p[i + j] = norm ? (uint16_t)(0x3F80u | (v & 0x7Fu)) : (uint16_t)(0x3C00u | (v & 0x807Fu));
    }
}
static void make_model(const char *dir, const shape *c) {
    wt *w = (wt *)calloc((size_t)(c->layers * 9 + 3), sizeof(wt));
    int n = 0, i, k;
    int64_t l;
    uint64_t total = 0, per, acc = 0;
    char *hdr, cfg[2048], fname[64];
    size_t bufn = (size_t)32 << 20;
    uint16_t *buf = (uint16_t *)malloc(bufn * 2);
    FILE *idx;
    char ip[4200];
    double t0 = gkb_now_ms();
    if (!w || !buf) { printf("out of memory\n"); exit(1); }
#if defined(_WIN32)
    _mkdir(dir);
#else
    mkdir(dir, 0755);
#endif
#define ADD(nd_, a, b, nm_, isnorm) do { w[n].nd = nd_; w[n].d0 = a; w[n].d1 = b; w[n].norm = isnorm; nm_; \
        w[n].bytes = (uint64_t)(a) * (uint64_t)((nd_) == 2 ? (b) : 1) * 2u; total += w[n].bytes; n++; } while (0)
    ADD(2, c->vocab, c->hidden, snprintf(w[n].name, 96, "model.embed_tokens.weight"), 0);
    for (l = 0; l < c->layers; l++) {
        int64_t D = c->hidden / c->heads;
#define NM(s) snprintf(w[n].name, 96, "model.layers.%lld.%s", (long long)l, s)
        ADD(1, c->hidden, 0, NM("input_layernorm.weight"), 1);
        ADD(2, c->heads * D, c->hidden, NM("self_attn.q_proj.weight"), 0);
        ADD(2, c->kv * D, c->hidden, NM("self_attn.k_proj.weight"), 0);
        ADD(2, c->kv * D, c->hidden, NM("self_attn.v_proj.weight"), 0);
        ADD(2, c->hidden, c->heads * D, NM("self_attn.o_proj.weight"), 0);
        ADD(1, c->hidden, 0, NM("post_attention_layernorm.weight"), 1);
        ADD(2, c->inter, c->hidden, NM("mlp.gate_proj.weight"), 0);
        ADD(2, c->inter, c->hidden, NM("mlp.up_proj.weight"), 0);
        ADD(2, c->hidden, c->inter, NM("mlp.down_proj.weight"), 0);
#undef NM
    }
    ADD(1, c->hidden, 0, snprintf(w[n].name, 96, "model.norm.weight"), 1);
    ADD(2, c->vocab, c->hidden, snprintf(w[n].name, 96, "lm_head.weight"), 0);
#undef ADD
    /* shards of about equal size, in tensor order */
    per = total / (uint64_t)c->shards + 1;
    for (i = 0; i < n; i++) {
        w[i].shard = (int)(acc / per);
        acc += w[i].bytes;
    }
    hdr = (char *)malloc((size_t)n * 200 + 64);
    for (k = 0; k < c->shards; k++) {
        size_t hl = 0;
        uint64_t off = 0, hl8;
        char p[4200];
        FILE *f;
        hl += (size_t)sprintf(hdr + hl, "{\"__metadata__\":{\"format\":\"pt\"}");
        for (i = 0; i < n; i++) {
            if (w[i].shard != k) continue;
            if (w[i].nd == 2)
                hl += (size_t)sprintf(hdr + hl, ",\"%s\":{\"dtype\":\"BF16\",\"shape\":[%lld,%lld],\"data_offsets\":[%llu,%llu]}", w[i].name, (long long)w[i].d0,
                                      (long long)w[i].d1, (unsigned long long)off, (unsigned long long)(off + w[i].bytes));
            else
                hl += (size_t)sprintf(hdr + hl, ",\"%s\":{\"dtype\":\"BF16\",\"shape\":[%lld],\"data_offsets\":[%llu,%llu]}", w[i].name, (long long)w[i].d0,
                                      (unsigned long long)off, (unsigned long long)(off + w[i].bytes));
            off += w[i].bytes;
        }
        hl += (size_t)sprintf(hdr + hl, "}");
        while (hl % 8) hdr[hl++] = ' ';
        snprintf(fname, sizeof fname, "model-%05d-of-%05d.safetensors", k + 1, c->shards);
        snprintf(p, sizeof p, "%s/%s", dir, fname);
        if (!(f = fopen(p, "wb"))) { printf("cannot write %s\n", p); exit(1); }
        hl8 = hl;
        fwrite(&hl8, 8, 1, f);
        fwrite(hdr, 1, hl, f);
        for (i = 0; i < n; i++) {
            uint64_t left;
            if (w[i].shard != k) continue;
            for (left = w[i].bytes / 2; left > 0;) {
                size_t m = left < bufn ? (size_t)left : bufn;
                fill_bf16(buf, m, w[i].norm);
                if (fwrite(buf, 2, m, f) != m) { printf("cannot write %s\n", p); exit(1); }
                left -= m;
            }
        }
        if (fclose(f) != 0) { printf("cannot write %s\n", p); exit(1); }
    }
    snprintf(ip, sizeof ip, "%s/model.safetensors.index.json", dir);
    if (!(idx = fopen(ip, "wb"))) { printf("cannot write %s\n", ip); exit(1); }
    fprintf(idx, "{\"metadata\":{\"total_size\":%llu},\"weight_map\":{", (unsigned long long)total);
    for (i = 0; i < n; i++) fprintf(idx, "%s\"%s\":\"model-%05d-of-%05d.safetensors\"", i ? "," : "", w[i].name, w[i].shard + 1, c->shards);
    fprintf(idx, "}}\n");
    fclose(idx);
    snprintf(cfg, sizeof cfg,
             "{\"architectures\":[\"%s\"],\"model_type\":\"llama\",\"hidden_size\":%lld,\"intermediate_size\":%lld,\"num_hidden_layers\":%lld,"
             "\"num_attention_heads\":%lld,\"num_key_value_heads\":%lld,\"vocab_size\":%lld,\"max_position_embeddings\":%lld,\"rms_norm_eps\":1e-5,"
             "\"tie_word_embeddings\":false,\"hidden_act\":\"silu\",\"rope_theta\":10000.0,\"rope_scaling\":null,\"bos_token_id\":95,"
             "\"eos_token_id\":97,\"torch_dtype\":\"bfloat16\"}",
             c->arch, (long long)c->hidden, (long long)c->inter, (long long)c->layers, (long long)c->heads, (long long)c->kv, (long long)c->vocab,
             (long long)c->max_pos);
    put_text(dir, "config.json", cfg);
    {
        /* a byte-level tokenizer: the printable ASCII bytes and a space, no merges, three specials */
        char js[8192];
        size_t o = 0;
        int b, id = 0;
        o += (size_t)sprintf(js + o, "{\"added_tokens\":[{\"id\":95,\"content\":\"<|endoftext|>\",\"special\":true},"
                                     "{\"id\":96,\"content\":\"<|im_start|>\",\"special\":true},{\"id\":97,\"content\":\"<|im_end|>\",\"special\":true}],"
                                     "\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"use_regex\":false},"
                                     "\"decoder\":{\"type\":\"ByteLevel\"},\"model\":{\"type\":\"BPE\",\"vocab\":{");
        o += (size_t)sprintf(js + o, "\"\\u010a\":98,\"\\u0120\":%d", id++);
        for (b = 33; b < 127; b++) {
            if (b == '"' || b == '\\') o += (size_t)sprintf(js + o, ",\"\\%c\":%d", b, id++);
            else o += (size_t)sprintf(js + o, ",\"%c\":%d", b, id++);
        }
        sprintf(js + o, "},\"merges\":[]}}");
        put_text(dir, "tokenizer.json", js);
    }
    put_text(dir, "tokenizer_config.json", "{\"eos_token\":\"<|im_end|>\",\"bos_token\":null}");
    printf("wrote %s: %d tensors, %.2f GB of bf16 in %d shards, in %.1f s\n", dir, n, (double)total / 1e9, c->shards, (gkb_now_ms() - t0) / 1000.0);
    free(hdr);
    free(buf);
    free(w);
}
static void remove_model(const char *dir, const shape *c) {
    static const char *files[] = { "config.json", "tokenizer.json", "tokenizer_config.json", "model.safetensors.index.json" };
    char p[4200];
    int k;
    for (k = 0; k < 4; k++) { snprintf(p, sizeof p, "%s/%s", dir, files[k]); remove(p); }
    for (k = 0; k < c->shards; k++) {
        snprintf(p, sizeof p, "%s/model-%05d-of-%05d.safetensors", dir, k + 1, c->shards);
        remove(p);
    }
    remove(dir);
}

/* reads every file of the folder once (so the load reads from the page cache); bytes read */
static double read_all(const char *dir, double *gbps) {
    char p[4200];
    int k, shards;
    double bytes = 0, t0 = gkb_now_ms();
    size_t bn = (size_t)16 << 20, got;
    unsigned char *b = (unsigned char *)malloc(bn);
    FILE *f;
    /* model-00001-of-0000N.safetensors ... (N found from the first), else model.safetensors */
    for (shards = 1; shards < 100; shards++) {
        snprintf(p, sizeof p, "%s/model-00001-of-%05d.safetensors", dir, shards);
        if ((f = fopen(p, "rb")) != NULL) { fclose(f); break; }
    }
    for (k = 1; b && k <= (shards < 100 ? shards : 1); k++) {
        if (shards < 100) snprintf(p, sizeof p, "%s/model-%05d-of-%05d.safetensors", dir, k, shards);
        else snprintf(p, sizeof p, "%s/model.safetensors", dir);
        if (!(f = fopen(p, "rb"))) break;
        while ((got = fread(b, 1, bn, f)) > 0) bytes += (double)got;
        fclose(f);
    }
    free(b);
    *gbps = bytes / ((gkb_now_ms() - t0) * 1e6);
    return bytes;
}

/* loads dir into a fresh context (desc: its transfer engine's), twice; prints and writes a row */
static void load_once(const char *dir, const gk_xfer_desc *xd, double pinned_h2d, const char *label) {
    gk_ctx *c = NULL;
    gk_ctx_desc cd;
    gk_llm_desc ld;
    gk_llm *m = NULL;
    gk_xfer *x = NULL;
    gk_xfer_stats st;
    double ms[2], gbs[2];
    uint64_t wb = 0;
    int r;
    memset(&cd, 0, sizeof cd);
    cd.log_level = GK_LOG_ERROR;
    GKB_CHECK(NULL, gk_ctx_create(&cd, &c));
    if (xd) GKB_CHECK(c, gk_xfer_default(c, xd, &x));
    memset(&ld, 0, sizeof ld);
    ld.max_ctx = 256;
    ld.no_graphs = 1;
    for (r = 0; r < 2; r++) {
        double t0 = gkb_now_ms();
        GKB_CHECK(c, gk_llm_load(c, dir, &ld, &m));
        ms[r] = gkb_now_ms() - t0;
        wb = gk_llm_weight_bytes(m);
        gbs[r] = (double)wb / (ms[r] * 1e6);
        gk_llm_free(m);
        m = NULL;
    }
    GKB_CHECK(c, gk_xfer_default(c, NULL, &x));
    GKB_CHECK(c, gk_xfer_stats_get(x, &st));
    printf("    %-22s %6.2f GB: first load %.3f s (%.2f GB/s, %.3f of pinned H2D), again %.3f s (%.2f GB/s, %.3f); engine %d workers, %d x %zu MiB\n",
           label, (double)wb / 1e9, ms[0] / 1000.0, gbs[0], gbs[0] / pinned_h2d, ms[1] / 1000.0, gbs[1], gbs[1] / pinned_h2d, st.workers, st.buffers,
           st.chunk_bytes >> 20);
    gkb_json_rowf(&J, "{\"config\": \"%s\", \"weight_bytes\": %llu, \"first_s\": %.4f, \"first_gbps\": %.3f, \"again_s\": %.4f, \"again_gbps\": %.3f, "
                  "\"pinned_h2d_gbps\": %.3f, \"ratio_first\": %.4f, \"ratio_again\": %.4f, \"workers\": %d, \"buffers\": %d, \"chunk_bytes\": %zu}",
                  label, (unsigned long long)wb, ms[0] / 1000.0, gbs[0], ms[1] / 1000.0, gbs[1], pinned_h2d, gbs[0] / pinned_h2d, gbs[1] / pinned_h2d,
                  st.workers, st.buffers, st.chunk_bytes);
    gk_ctx_destroy(c);
}

static void load_model(const char *dir, double pinned_h2d, int workers, int chunk_mib, int sweep) {
    double rb, rgbps;
    rb = read_all(dir, &rgbps);
    printf("(c) gk_llm_load of %s from the page cache (%.2f GB of files read once first, %.2f GB/s on one thread); pinned H2D %.2f GB/s\n", dir, rb / 1e9,
           rgbps, pinned_h2d);
    gkb_json_arr(&J, "load");
    if (sweep) {
        static const int ws[4] = { 4, 8, 12, 16 };
        int i;
        for (i = 0; i < 4; i++) {
            gk_xfer_desc d;
            char label[64];
            memset(&d, 0, sizeof d);
            d.workers = ws[i];
            d.chunk_bytes = chunk_mib > 0 ? (size_t)chunk_mib << 20 : 0;
            snprintf(label, sizeof label, "%d workers", ws[i]);
            load_once(dir, &d, pinned_h2d, label);
        }
    } else if (workers > 0 || chunk_mib > 0) {
        gk_xfer_desc d;
        memset(&d, 0, sizeof d);
        d.workers = workers;
        d.chunk_bytes = chunk_mib > 0 ? (size_t)chunk_mib << 20 : 0;
        load_once(dir, &d, pinned_h2d, "as asked");
    } else load_once(dir, NULL, pinned_h2d, "default engine");
    gkb_json_end(&J);
}

int main(int argc, char **argv) {
    const char *json = gkb_json_arg(argc, argv), *make = NULL, *load = NULL, *v = NULL;
    int i, workers = 0, chunk_mib = 0, sweep = 0;
    gk_device_info info;
    gk_ctx_desc cd;
    double h2d;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
        else if (strcmp(argv[i], "--sweep") == 0) sweep = 1;
        else if (gkb_arg(argc, argv, &i, "--json", &v)) {}
        else if (gkb_arg(argc, argv, &i, "--make-model", &make)) {}
        else if (gkb_arg(argc, argv, &i, "--load", &load)) {}
        else if (gkb_arg(argc, argv, &i, "--reps", &v)) reps = atoi(v);
        else if (gkb_arg(argc, argv, &i, "--workers", &v)) workers = atoi(v);
        else if (gkb_arg(argc, argv, &i, "--chunk-mib", &v)) chunk_mib = atoi(v);
        else {
            printf("usage: bench_xfer [--quick] [--reps N] [--json FILE] [--make-model DIR] [--load DIR] [--workers N] [--chunk-mib M] [--sweep]\n");
            return 2;
        }
    }
    if (reps < 1 || reps > 64 || workers < 0 || workers > 64 || chunk_mib < 0 || chunk_mib > 1024) { printf("bad --reps, --workers or --chunk-mib\n"); return 2; }
    if (quick && reps == 5) reps = 3;
    if (make) {
        char ip[4200];
        FILE *f;
        snprintf(ip, sizeof ip, "%s/model.safetensors.index.json", make);
        if ((f = fopen(ip, "rb")) != NULL) { /* made before: reused */
            fclose(f);
            printf("%s exists: the model folder is reused\n", ip);
        } else make_model(make, &LLAMA7B);
        if (!load && !json) return 0;
    }
    memset(&cd, 0, sizeof cd);
    cd.log_level = GK_LOG_ERROR;
    GKB_CHECK(NULL, gk_ctx_create(&cd, &ctx));
    GKB_CHECK(ctx, gk_device_info_get(ctx, &info));
    printf("device: %s (%s backend)\n", info.name, info.backend == GK_BACKEND_CUDA ? "CUDA" : "CPU");
    if (gkb_json_open(&J, json) != 0) return 1;
    gkb_json_header(&J, "bench_xfer", info.name, 0);
    gkb_json_bool(&J, "quick", quick);
    h2d = bandwidth();
    overlap();
    gk_ctx_destroy(ctx);
    ctx = NULL;
    if (load) load_model(load, h2d, workers, chunk_mib, sweep);
    else if (quick) {
        char dir[256];
        snprintf(dir, sizeof dir, "/tmp/gk_bench_xfer_model_%lu", gk__pid());
        make_model(dir, &TINY);
        load_model(dir, h2d, workers, chunk_mib, sweep);
        remove_model(dir, &TINY);
    } else printf("(c) skipped: --load DIR (a folder from --make-model DIR)\n");
    return gkb_json_close(&J) != 0;
}
