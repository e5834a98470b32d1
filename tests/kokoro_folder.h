/* kokoro_folder.h - Kokoro model folders with random weights, for
   tests/test_kokoro_model.c and bench/bench_kokoro.c (include after
   gpukit_llm.h with its implementation: the tensor list comes from the
   loader's gk__kok_list).
   The values are those of tests/gen_kokoro_fixtures.py: for a tensor `name`,
   element i is base + scale * u, u = the hash of (name, i) in [-1, 1), with
   base and scale per tensor (rule(), as the generator's, or weights.json's).
   write_weights writes the safetensors (f32), stream by stream, in any of
   the stored forms of weight norm. */
#ifndef KOKORO_FOLDER_H
#define KOKORO_FOLDER_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gkt_util.h"

#if defined(__GNUC__) || defined(__clang__)
#define KF_UNUSED __attribute__((unused))
#else
#define KF_UNUSED
#endif

/* hexgrad/Kokoro-82M's config.json with a two-symbol vocabulary (the model does not read it) */
static KF_UNUSED const char *const CONFIG =
    "{\"istftnet\":{\"upsample_kernel_sizes\":[20,12],\"upsample_rates\":[10,6],\"gen_istft_hop_size\":5,\"gen_istft_n_fft\":20,"
    "\"resblock_dilation_sizes\":[[1,3,5],[1,3,5],[1,3,5]],\"resblock_kernel_sizes\":[3,7,11],\"upsample_initial_channel\":512},"
    "\"dim_in\":64,\"dropout\":0.2,\"hidden_dim\":512,\"max_conv_dim\":512,\"max_dur\":50,\"multispeaker\":true,\"n_layer\":3,\"n_mels\":80,"
    "\"n_token\":178,\"style_dim\":128,\"text_encoder_kernel_size\":5,"
    "\"plbert\":{\"hidden_size\":768,\"num_attention_heads\":12,\"intermediate_size\":2048,\"max_position_embeddings\":512,"
    "\"num_hidden_layers\":12,\"dropout\":0.1},\"vocab\":{\";\":1,\"a\":43}}";

/* ---- the weights' hash (tests/gen_kokoro_fixtures.py) ---- */
static KF_UNUSED uint64_t fnv1a(const char *s) {
    uint64_t h = 0xCBF29CE484222325ull;
    while (*s) { h ^= (unsigned char)*s++; h *= 0x100000001B3ull; }
    return h;
}
static KF_UNUSED float hash_u(uint64_t h, uint64_t i) {
    uint64_t z = h + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (float)(z >> 40) * (1.0f / 8388608.0f) - 1.0f;
}
static KF_UNUSED float hash_val(uint64_t h, uint64_t i, float base, float scale) {
    float p = scale * hash_u(h, i);
    return base + p;
}

/* ---- model folders ---- */
typedef struct wdesc { char name[160]; int nd; int64_t sh[3]; float base, scale; int optional; double sum; } wdesc;
typedef struct wlist { wdesc *w; int n, cap; } wlist;
static KF_UNUSED int64_t wnumel(const wdesc *w) {
    int64_t n = 1;
    int k;
    for (k = 0; k < w->nd; k++) n *= w->sh[k];
    return n;
}
static KF_UNUSED int ends(const char *s, const char *suf) { size_t a = strlen(s), b = strlen(suf); return a >= b && strcmp(s + a - b, suf) == 0; }
static KF_UNUSED int has(const char *s, const char *x) { return strstr(s, x) != NULL; }

/* the per-tensor base and scale of tests/gen_kokoro_fixtures.py's rule() */
static KF_UNUSED void rule(wdesc *w) {
    const char *n = w->name, *last = strrchr(n, '.') ? strrchr(n, '.') + 1 : n;
    int64_t fan = 1;
    int k;
    for (k = 1; k < w->nd; k++) fan *= w->sh[k];
    w->base = 0; w->scale = 0.1f;
    if (strcmp(n, "predictor.duration_proj.linear_layer.bias") == 0) { w->base = -5.8f; w->scale = 0.6f; }
    else if (strcmp(n, "predictor.duration_proj.linear_layer.weight") == 0) w->scale = 1.0f;
    else if (strcmp(n, "predictor.F0_proj.bias") == 0) { w->base = -100.0f; w->scale = 0.0f; }
    else if (strcmp(n, "predictor.F0_proj.weight") == 0) w->scale = 30.0f;
    else if (has(n, "decoder.generator.conv_post.") && strcmp(last, "weight_g") == 0) { w->base = 0.4f; w->scale = 0.1f; }
    else if (has(n, ".alpha1.") || has(n, ".alpha2.")) { w->base = 1.0f; w->scale = 0.3f; }
    else if (strcmp(last, "gamma") == 0 || (strcmp(last, "weight") == 0 && (has(n, "LayerNorm") || has(n, "layer_norm") || ends(n, ".norm.weight")))) { w->base = 1.0f; w->scale = 0.1f; }
    else if (strcmp(last, "beta") == 0 || (strcmp(last, "bias") == 0 && (has(n, "LayerNorm") || has(n, "layer_norm") || ends(n, ".norm.bias")))) w->scale = 0.1f;
    else if (has(n, "embeddings") || strcmp(n, "text_encoder.embedding.weight") == 0) w->scale = 1.0f;
    else if (strncmp(last, "weight_ih", 9) == 0 || strncmp(last, "weight_hh", 9) == 0) w->scale = (float)(1.0 / sqrt((double)(w->sh[0] / 4)));
    else if (strncmp(last, "bias_ih", 7) == 0 || strncmp(last, "bias_hh", 7) == 0) w->scale = (float)(0.5 / sqrt((double)(w->sh[0] / 4)));
    else if (strcmp(last, "weight_v") == 0) w->scale = (float)(1.0 / sqrt((double)fan));
    else if (strcmp(last, "weight_g") == 0) { w->base = 0.6f; w->scale = 0.1f; }
    else if (strcmp(last, "weight") == 0) w->scale = (float)(1.0 / sqrt((double)(fan > 1 ? fan : 1)));
}

static KF_UNUSED void list_cb(void *u, const char *name, int nd, const int64_t *sh, int optional) {
    wlist *l = (wlist *)u;
    wdesc *w;
    int k;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        l->w = (wdesc *)realloc(l->w, sizeof(wdesc) * (size_t)l->cap);
    }
    w = &l->w[l->n++];
    memset(w, 0, sizeof *w);
    snprintf(w->name, sizeof w->name, "%s", name);
    w->nd = nd;
    for (k = 0; k < nd; k++) w->sh[k] = sh[k];
    w->optional = optional;
    rule(w);
}

/* How a folder's safetensors differs from the list (for the error cases). */
typedef struct wopts {
    const char *skip;          /* leave this tensor out */
    const char *reshape;       /* store this tensor as [numel / 2, 2] */
    const char *as_i32;        /* store this tensor as I32 */
    int optional;              /* include the optional tensors (InstanceNorm affine) */
    int form;                  /* weight norm: 0 weight_g / weight_v, 1 parametrizations, 2 folded (<p>.weight) */
    const char *file;          /* file name; NULL: kokoro-v1_0.safetensors */
} wopts;

/* the stored name of w under the form (a folded g is left out: NULL) */
static KF_UNUSED const char *stored_name(const wdesc *w, int form, char *buf, size_t cap) {
    size_t n = strlen(w->name);
    if (form == 0 || (!ends(w->name, ".weight_g") && !ends(w->name, ".weight_v"))) { snprintf(buf, cap, "%s", w->name); return buf; }
    if (form == 2 && ends(w->name, ".weight_g")) return NULL;
    snprintf(buf, cap, "%.*s%s", (int)(n - 9), w->name,
             form == 2 ? ".weight" : ends(w->name, ".weight_g") ? ".parametrizations.weight.original0" : ".parametrizations.weight.original1");
    return buf;
}

/* the values of w (as the fixtures define them); for a folded weight, g * v / ||v|| per row */
static KF_UNUSED float *make_values(const wdesc *w, const wlist *l, int form) {
    int64_t n = wnumel(w), i;
    float *x = (float *)malloc(sizeof(float) * (size_t)n);
    uint64_t h = fnv1a(w->name);
    for (i = 0; i < n; i++) x[i] = hash_val(h, (uint64_t)i, w->base, w->scale);
    if (form == 2 && ends(w->name, ".weight_v")) {
        char gname[160];
        const wdesc *g = NULL;
        int64_t r, j, row = n / w->sh[0];
        int k;
        snprintf(gname, sizeof gname, "%.*s.weight_g", (int)strlen(w->name) - 9, w->name);
        for (k = 0; k < l->n && !g; k++)
            if (strcmp(l->w[k].name, gname) == 0) g = &l->w[k];
        if (!g) { printf("no %s\n", gname); exit(2); }
        for (r = 0; r < w->sh[0]; r++) {
            double ss = 0, f;
            for (j = 0; j < row; j++) ss += (double)x[r * row + j] * x[r * row + j];
            f = (double)hash_val(fnv1a(g->name), (uint64_t)r, g->base, g->scale) / sqrt(ss);
            for (j = 0; j < row; j++) x[r * row + j] = (float)((double)x[r * row + j] * f);
        }
    }
    return x;
}

static KF_UNUSED void write_weights(const char *dir, const wlist *l, const wopts *o) {
    char p[512], nm[200], *hdr = (char *)malloc(1 << 20);
    size_t hl = 0, off = 0;
    uint64_t hl8;
    int i, k;
    FILE *f;
    hl += (size_t)sprintf(hdr + hl, "{\"__metadata__\":{\"format\":\"pt\"}");
    for (i = 0; i < l->n; i++) {
        const wdesc *w = &l->w[i];
        const char *sn = stored_name(w, o->form, nm, sizeof nm);
        int64_t n = wnumel(w);
        if (!sn || (w->optional && !o->optional) || (o->skip && strcmp(o->skip, sn) == 0)) continue;
        hl += (size_t)sprintf(hdr + hl, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[", sn, o->as_i32 && strcmp(o->as_i32, sn) == 0 ? "I32" : "F32");
        if (o->reshape && strcmp(o->reshape, sn) == 0) hl += (size_t)sprintf(hdr + hl, "%lld,2", (long long)(n / 2));
        else
            for (k = 0; k < w->nd; k++) hl += (size_t)sprintf(hdr + hl, "%s%lld", k ? "," : "", (long long)w->sh[k]);
        hl += (size_t)sprintf(hdr + hl, "],\"data_offsets\":[%llu,%llu]}", (unsigned long long)off, (unsigned long long)(off + (size_t)n * 4));
        off += (size_t)n * 4;
    }
    hl += (size_t)sprintf(hdr + hl, "}");
    while (hl % 8) hdr[hl++] = ' ';
    snprintf(p, sizeof p, "%s/%s", dir, o->file ? o->file : "kokoro-v1_0.safetensors");
    f = fopen(p, "wb");
    if (!f) { printf("cannot write %s\n", p); exit(2); }
    hl8 = hl;
    fwrite(&hl8, 8, 1, f);
    fwrite(hdr, 1, hl, f);
    for (i = 0; i < l->n; i++) {
        const wdesc *w = &l->w[i];
        const char *sn = stored_name(w, o->form, nm, sizeof nm);
        float *x;
        if (!sn || (w->optional && !o->optional) || (o->skip && strcmp(o->skip, sn) == 0)) continue;
        x = make_values(w, l, o->form);
        fwrite(x, 4, (size_t)wnumel(w), f);
        free(x);
    }
    fclose(f);
    free(hdr);
}

static KF_UNUSED void rm_weights(const char *dir) {
    char p[512];
    snprintf(p, sizeof p, "%s/kokoro-v1_0.safetensors", dir); remove(p);
    snprintf(p, sizeof p, "%s/model.safetensors", dir); remove(p);
}

#endif
