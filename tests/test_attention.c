/* test_attention.c - gk_attention on the device under test (CUDA on the GPU
   machine: also the split-over-keys decode path) and the CPU reference,
   against an independent f64 attention computed here: prefill, decode over a
   KV cache view, cross-attention, causal, GQA / MQA, head dims 64, 80, 96,
   128 and odd ones, additive masks, per-sequence lengths, poisoned outputs;
   on a 9.0 device also the wgmma kernel (kernels/flash_wg.cu), asserted to
   have run through tune.fwg_launches; decode through the tensor-core kernels
   (gk_attn_dec3, the default, and on 9.0+ devices gk_attn_dec4t, which is
   the default from tune.dec4t_from keys of cache; rings of 1 to 3 stages;
   which ran is asserted through the launch counters), each in one
   split writing the output and in splits: gk_attn_dec3 / dec4t's splits
   combine themselves (gk_dec_fold, asserted through tune.dec_fold_launches)
   and also through gk_attn_combine, which the other kernels' splits always
   take; and the shared-memory one (tune.dec_variant 0); cache rows past each
   sequence's length set to NaN.
   Bounds: ||out - ref|| / ||ref|| below 2e-5 (f32), 1e-2 (f16, bf16). */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkt.h"

static gk_ctx *D, *R;

typedef struct {
    gk_dtype dt;
    int64_t B, Sq, Skv, Hq, Hkv, Dh, cache; /* cache > Skv: k/v are views of a longer cache */
    int causal, mask, qlens, kvlens;
    double tol;   /* 0: the dtype's default */
    int variants; /* on a 9.0 device: run kernels/flash_wg.cu in each tile order and assert it ran */
} acase;

static void rnd(gk_dtype dt, double *v, int64_t n, double scale) {
    int64_t i;
    char t[8];
    for (i = 0; i < n; i++) {
        double x = gkt_uniform(-scale, scale);
        gk_convert(dt, t, GK_F64, &x, 1);
        gk_convert(GK_F64, &v[i], dt, t, 1);
    }
}
static gk_tensor up(gk_ctx *c, gk_dtype dt, int nd, const int64_t *sh, const double *v) {
    int64_t n = 1, i;
    gk_tensor t;
    void *b;
    for (i = 0; i < nd; i++) n *= sh[i];
    b = malloc((size_t)n * 8 + 8);
    if (v) gk_convert(dt, b, GK_F64, v, (size_t)n);
    else memset(b, 0xA5, (size_t)n * gk_dtype_size(dt)); /* poison */
    gk_tensor_from_host(c, dt, nd, sh, b, &t);
    free(b);
    return t;
}

static double run(gk_ctx *c, const acase *a, const double *Q, const double *K, const double *V, const double *M, const int32_t *ql,
                  const int32_t *kl, const double *want, gk_status *st) {
    int64_t qs[4] = { a->B, a->Sq, a->Hq, a->Dh }, ks[4] = { a->B, a->cache, a->Hkv, a->Dh }, ms[3] = { a->B, a->Sq, a->Skv }, bs[1] = { a->B };
    int64_t n = a->B * a->Sq * a->Hq * a->Dh, i;
    gk_tensor tq, tk, tv, to, vk, vv, tm = { 0 }, tql = { 0 }, tkl = { 0 };
    gk_attention_desc d;
    double num = 0, den = 0, *got = (double *)malloc((size_t)n * 8 + 8);
    void *b = malloc((size_t)n * 8 + 8);
    tq = up(c, a->dt, 4, qs, Q);
    tk = up(c, a->dt, 4, ks, K);
    tv = up(c, a->dt, 4, ks, V);
    to = up(c, a->dt, 4, qs, NULL);
    gk_view_slice(c, tk, 1, 0, a->Skv, 1, &vk);
    gk_view_slice(c, tv, 1, 0, a->Skv, 1, &vv);
    memset(&d, 0, sizeof d);
    d.causal = a->causal;
    if (a->mask) { tm = up(c, GK_F32, 3, ms, M); d.mask = tm; }
    if (a->qlens) { gk_tensor_from_host(c, GK_I32, 1, bs, ql, &tql); d.q_lens = tql; }
    if (a->kvlens) { gk_tensor_from_host(c, GK_I32, 1, bs, kl, &tkl); d.kv_lens = tkl; }
    *st = gk_attention(c, to, tq, vk, vv, &d);
    if (*st != GK_OK) printf("  %s\n", gk_last_error(c));
    memset(b, 0xFF, (size_t)n * gk_dtype_size(a->dt)); /* NaN: a failed copy never reads as a stale result */
    if (gk_copy_to_host(c, to, b, (size_t)n * gk_dtype_size(a->dt)) != GK_OK) {
        printf("  %s\n", gk_last_error(c));
        if (*st == GK_OK) *st = GK_ERR_CUDA;
    }
    gk_convert(GK_F64, got, a->dt, b, (size_t)n);
    for (i = 0; i < n; i++) {
        if (isnan(got[i])) { num = INFINITY; break; }
        num += (got[i] - want[i]) * (got[i] - want[i]);
        den += want[i] * want[i];
    }
    gk_tensor_free(c, tq); gk_tensor_free(c, tk); gk_tensor_free(c, tv); gk_tensor_free(c, to);
    gk_tensor_free(c, vk); gk_tensor_free(c, vv);
    if (tm.id) gk_tensor_free(c, tm);
    if (tql.id) gk_tensor_free(c, tql);
    if (tkl.id) gk_tensor_free(c, tkl);
    free(got); free(b);
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

static void check(const acase *a) {
    int64_t nq = a->B * a->Sq * a->Hq * a->Dh, nk = a->B * a->cache * a->Hkv * a->Dh, nm = a->B * a->Sq * a->Skv;
    double *Q = (double *)malloc((size_t)nq * 8), *K = (double *)malloc((size_t)nk * 8), *V = (double *)malloc((size_t)nk * 8);
    double *M = (double *)malloc((size_t)nm * 8 + 8), *want = (double *)malloc((size_t)nq * 8), *s = (double *)malloc((size_t)a->Skv * 8 + 8);
    int32_t ql[8], kl[8];
    int64_t b, i, h, j, dd;
    double scale = 1.0 / sqrt((double)a->Dh), e, e2, tol = a->tol > 0 ? a->tol : a->dt == GK_F32 ? 2e-5 : 1e-2;
    gk_status st;
    char desc[160];
    int dec3, dec4;
    long before3, before4t;
    gk__tuning *tu = gk__tune(D); /* the knobs this case sets and the launch counters it reads */
    rnd(a->dt, Q, nq, 2.0);
    rnd(a->dt, K, nk, 2.0);
    rnd(a->dt, V, nk, 1.0);
    for (i = 0; i < nm; i++) M[i] = (gkt_u64() % 5 == 0) ? -INFINITY : gkt_uniform(-1, 1);
    for (b = 0; b < a->B; b++) {
        ql[b] = a->qlens ? (int32_t)(1 + gkt_u64() % (uint64_t)a->Sq) : (int32_t)a->Sq;
        kl[b] = a->kvlens ? (int32_t)(1 + gkt_u64() % (uint64_t)a->Skv) : (int32_t)a->Skv;
        if (a->kvlens && a->causal && kl[b] < ql[b]) kl[b] = ql[b];
    }
    if (a->kvlens && a->Sq == 1) /* decode: cache rows past a sequence's length are NaN, and must not be read */
        for (b = 0; b < a->B; b++)
            for (j = kl[b]; j < a->cache; j++)
                for (i = 0; i < a->Hkv * a->Dh; i++) K[(b * a->cache + j) * a->Hkv * a->Dh + i] = V[(b * a->cache + j) * a->Hkv * a->Dh + i] = NAN;
    for (b = 0; b < a->B; b++)
        for (i = 0; i < a->Sq; i++)
            for (h = 0; h < a->Hq; h++) {
                int64_t hk = h / (a->Hq / a->Hkv), jend = kl[b];
                double mx = -INFINITY, sum = 0, *o = want + ((b * a->Sq + i) * a->Hq + h) * a->Dh;
                if (a->causal && i + (kl[b] - ql[b]) + 1 < jend) jend = i + (kl[b] - ql[b]) + 1;
                if (i >= ql[b] || jend < 0) jend = 0;
                for (j = 0; j < jend; j++) {
                    double dot = 0;
                    for (dd = 0; dd < a->Dh; dd++)
                        dot += Q[((b * a->Sq + i) * a->Hq + h) * a->Dh + dd] * K[((b * a->cache + j) * a->Hkv + hk) * a->Dh + dd];
                    s[j] = dot * scale + (a->mask ? M[(b * a->Sq + i) * a->Skv + j] : 0);
                    if (s[j] > mx) mx = s[j];
                }
                for (dd = 0; dd < a->Dh; dd++) o[dd] = 0;
                if (mx == -INFINITY) continue;
                for (j = 0; j < jend; j++) {
                    double w = exp(s[j] - mx);
                    sum += w;
                    for (dd = 0; dd < a->Dh; dd++) o[dd] += w * V[((b * a->cache + j) * a->Hkv + hk) * a->Dh + dd];
                }
                for (dd = 0; dd < a->Dh; dd++) o[dd] /= sum;
            }
    snprintf(desc, sizeof desc, "%s B%lld Sq%lld Skv%lld H%lld/%lld D%lld cache%lld causal%d mask%d qlens%d kvlens%d", gk_dtype_name(a->dt),
             (long long)a->B, (long long)a->Sq, (long long)a->Skv, (long long)a->Hq, (long long)a->Hkv, (long long)a->Dh, (long long)a->cache,
             a->causal, a->mask, a->qlens, a->kvlens);
    if (a->variants && gk_ctx_backend(D) == GK_BACKEND_CUDA && D->info.cc_major == 9 && D->info.cc_minor == 0 && a->Sq > 1) {
        int v;
        for (v = 0; v < 3; v++) { /* the tile order's head groups: the default, 3 (a smaller last group when 3 does not
                                     divide Hq B) and one group of every head */
            long before = tu->fwg_launches;
            tu->fwg_group = v == 0 ? 0 : v == 1 ? 3 : (int64_t)1 << 40;
            e = run(D, a, Q, K, V, M, ql, kl, want, &st);
            tu->fwg_group = 0;
            GKT_CHECK(st == GK_OK && e <= tol, "device (flash_wg, groups of %s heads): %s: rel err %.3g", v == 0 ? "the default" : v == 1 ? "3" : "all",
                      desc, e);
            GKT_CHECK(tu->fwg_launches == before + 1, "flash_wg did not run: %s", desc);
        }
    }
    dec3 = gk_ctx_backend(D) == GK_BACKEND_CUDA && a->Sq == 1 && a->dt != GK_F32 && !a->mask && !a->qlens && (a->Dh == 64 || a->Dh == 128) &&
           a->Hq / a->Hkv <= 8;
    dec4 = dec3 && D->info.cc_major >= 9;
    if (dec3) { /* decode: the shared-memory kernel too (the tensor-core kernels are the default where they apply) */
        long before = tu->dec3_launches, before4 = tu->dec4t_launches;
        tu->dec_variant = 0;
        e = run(D, a, Q, K, V, M, ql, kl, want, &st);
        tu->dec_variant = -1;
        GKT_CHECK(st == GK_OK && e <= tol, "device (gk_attn_dec): %s: rel err %.3g", desc, e);
        GKT_CHECK(tu->dec3_launches == before && tu->dec4t_launches == before4,
                  "tune.dec_variant 0 still ran a tensor-core kernel: %s",
                  desc);
    }
    before3 = tu->dec3_launches;
    before4t = tu->dec4t_launches;
    e = run(D, a, Q, K, V, M, ql, kl, want, &st);
    GKT_CHECK(st == GK_OK && e <= tol, "device: %s: rel err %.3g", desc, e);
    if (dec3) { /* the default: gk_attn_dec3, on 9.0+ devices gk_attn_dec4t from tune.dec4t_from keys of cache (every case
                   here builds dec4t's tensor maps: the forced runs below assert it ran) */
        const int want4t = dec4 && tu->dec4t_from >= 0 && a->Skv >= tu->dec4t_from;
        GKT_CHECK(tu->dec3_launches == before3 + !want4t && tu->dec4t_launches == before4t + want4t,
                  "the default did not run %s: %s", want4t ? "gk_attn_dec4t" : "gk_attn_dec3", desc);
    }
    if (dec3) { /* each tensor-core kernel forced, both ways: one split writing the output itself, and splits merged by
                   gk_attn_combine; gk_attn_dec4t also with other ring depths (the default is GK__DEC4T_STAGES) */
        static const int runs[4][2] = { { 3, 0 }, { 5, 0 }, { 5, 2 }, { 5, 1 } };
        int r, way;
        for (r = 0; r < 4; r++) {
            const int v = runs[r][0];
            if (v == 5 && !dec4) continue;
            for (way = 0; way < 5; way++) { /* 0 one split, 1 splits of the 64-key granule up, 2 (dec4t) its own split rule;
                                               3 and 4 as 1 and 2 with the splits merged by gk_attn_combine (tune.dec_fold 0) */
                int64_t keep = tu->dec3_one_split;
                long d0 = tu->dec3_direct, l3 = tu->dec3_launches, l4t = tu->dec4t_launches;
                long f0 = tu->dec_fold_launches;
                const int nofold = way >= 3, w = way >= 3 ? way - 2 : way;
                if (w == 0 && runs[r][1] != 0) continue; /* ring depths: the splits only */
                if (w == 2 && (v != 5 || runs[r][1] != 0)) continue;
                if (nofold && runs[r][1] != 0) continue;
                tu->dec_variant = v;
                tu->dec4t_stages = runs[r][1];
                tu->dec3_one_split = w == 0 ? a->Skv : 0;
                tu->dec4t_min_keys = w == 1 ? 64 : 0; /* (gk_attn_dec4t's own rule takes at least 256 keys a split) */
                tu->dec_fold = !nofold;
                e = run(D, a, Q, K, V, M, ql, kl, want, &st);
                tu->dec_fold = 1;
                tu->dec3_one_split = keep;
                tu->dec4t_min_keys = 0;
                tu->dec_variant = -1;
                tu->dec4t_stages = 0;
                GKT_CHECK(st == GK_OK && e <= tol, "device (tune.dec_variant %d, %d stages, %s%s): %s: rel err %.3g", v, runs[r][1],
                          w == 0 ? "one split" : w == 1 ? "splits" : "its own split rule", nofold ? ", gk_attn_combine" : "", desc, e);
                GKT_CHECK(v == 3 ? tu->dec3_launches == l3 + 1 : tu->dec4t_launches == l4t + 1,
                          "tune.dec_variant %d: its kernel did not run: %s", v, desc);
                /* splits of gk_attn_dec3 / dec4t combine themselves unless told not to (every grid here is one wave) */
                GKT_CHECK(tu->dec_fold_launches == f0 + (!nofold && tu->dec3_direct == d0 && (tu->dec3_launches > l3 || tu->dec4t_launches > l4t)),
                          "tune.dec_variant %d %s: the splits %s: %s", v, w == 0 ? "one split" : "splits",
                          tu->dec_fold_launches > f0 ? "combined themselves" : "did not combine themselves", desc);
                /* (a cache of at most 64 keys, the kernels' granule, is one split either way; dec4t's own rule takes one
                   split up to GK__DEC4T_MIN_KEYS rows of cache) */
                if (w == 2) GKT_CHECK(tu->dec3_direct == d0 + (a->cache <= GK__DEC4T_MIN_KEYS), "gk_attn_dec4t's split rule: %s", desc);
                else GKT_CHECK(tu->dec3_direct == d0 + (w == 0 || a->Skv <= 64), "tune.dec_variant %d %s: %s", v,
                          w == 0 ? "did not take one split" : "took one split", desc);
            }
        }
    }
    if (dec3) { /* the L2 prefetch before the PDL wait (tune.dec_prefetch; gk_attn_dec3 takes GK__DEC3_PREFETCH tiles by
                   default): gk_attn_dec3 and dec4t, none, part of a split (3 tiles) and more than any split holds, splits and
                   one split */
        static const int pfs[3] = { 0, 3, 1 << 20 };
        int pi, vi, sp;
        for (vi = 0; vi < (dec4 ? 2 : 1); vi++)
            for (pi = 0; pi < 3; pi++)
                for (sp = 0; sp < 2; sp++) {
                    int64_t keep = tu->dec3_one_split;
                    long l3 = tu->dec3_launches, l4t = tu->dec4t_launches;
                    tu->dec_variant = vi ? 5 : 3;
                    tu->dec_prefetch = pfs[pi];
                    tu->dec3_one_split = sp ? a->Skv : 0;
                    tu->dec4t_min_keys = sp ? 0 : 64;
                    e = run(D, a, Q, K, V, M, ql, kl, want, &st);
                    tu->dec3_one_split = keep;
                    tu->dec4t_min_keys = 0;
                    tu->dec_prefetch = -1;
                    tu->dec_variant = -1;
                    GKT_CHECK(st == GK_OK && e <= tol, "device (%s, L2 prefetch of %d tiles, %s): %s: rel err %.3g",
                              vi ? "gk_attn_dec4t" : "gk_attn_dec3", pfs[pi], sp ? "one split" : "splits", desc, e);
                    GKT_CHECK(vi ? tu->dec4t_launches == l4t + 1 : tu->dec3_launches == l3 + 1, "the prefetching %s did not run: %s",
                              vi ? "gk_attn_dec4t" : "gk_attn_dec3", desc);
                }
    }
    if (dec3 && a->Skv > 64) { /* gk_attn_combine's three-round form too (the one-round form takes at most 32 splits, the default) */
        int64_t keep = tu->dec3_one_split;
        tu->dec_variant = 3;
        tu->dec3_one_split = 0;
        tu->combine_one_round = 0;
        tu->dec_fold = 0;
        e = run(D, a, Q, K, V, M, ql, kl, want, &st);
        tu->dec_fold = 1;
        tu->combine_one_round = 1;
        tu->dec3_one_split = keep;
        tu->dec_variant = -1;
        GKT_CHECK(st == GK_OK && e <= tol, "device (gk_attn_dec3, splits, three-round combine): %s: rel err %.3g", desc, e);
    }
    if (gk_ctx_backend(D) == GK_BACKEND_CUDA && a->B * a->Sq * a->Skv * a->Hq * a->Dh < 200000000) {
        e2 = run(R, a, Q, K, V, M, ql, kl, want, &st);
        GKT_CHECK(st == GK_OK && e2 <= tol, "CPU reference: %s: rel err %.3g", desc, e2);
    }
    free(Q); free(K); free(V); free(M); free(want); free(s);
}

int main(void) {
    static const gk_dtype dts[3] = { GK_F32, GK_BF16, GK_F16 };
    static const int64_t dims[] = { 64, 80, 96, 128, 31 };
    static const int64_t heads[3][2] = { { 4, 4 }, { 8, 2 }, { 4, 1 } };
    acase a;
    int t, i;
    gkt_seed();
    D = gkt_dut();
    R = gkt_ref();
    /* decode first (a time-limited run under compute-sanitizer reaches these kernels early) */
    for (t = 0; t < 3; t++) { /* decode over a KV cache: one query, long cache, GQA */
        memset(&a, 0, sizeof a);
        a.dt = dts[t];
        a.B = t == 2 ? 2 : 1; a.Sq = 1; a.Skv = t == 0 ? 8192 : 3000; a.cache = a.Skv + 100;
        a.Hq = 8; a.Hkv = 2; a.Dh = 128; a.causal = 1; a.kvlens = t > 0;
        check(&a);
    }
    for (t = 0; t < 24; t++) { /* decode kernel: head dims, GQA 1 / 4 / 8 / 32, awkward cache lengths, per-sequence lengths */
        static const int64_t dd[6] = { 64, 80, 96, 128, 256, 40 }, lens[6] = { 1, 17, 100, 129, 1000, 4097 };
        static const int64_t hh[4][2] = { { 4, 4 }, { 8, 2 }, { 16, 2 }, { 32, 1 } };
        memset(&a, 0, sizeof a);
        a.dt = t % 2 ? GK_F16 : GK_BF16;
        a.B = 1 + t % 3; a.Sq = 1; a.Skv = lens[t % 6]; a.cache = a.Skv + (t % 4 == 1 ? 13 : 0);
        a.Hq = hh[t % 4][0]; a.Hkv = hh[t % 4][1]; a.Dh = dd[(t / 2) % 6];
        a.causal = t % 3 == 0; a.kvlens = t % 5 >= 2;
        check(&a);
    }
    for (t = 0; t < 16; t++) { /* decode: every group size 1..8 (Qwen2.5-0.5B: 14 / 2),
                                   D 64 / 128, short and long caches, batches, per-sequence lengths */
        static const int64_t lens[8] = { 1, 16, 33, 160, 255, 1000, 4097, 8192 };
        memset(&a, 0, sizeof a);
        a.dt = t % 2 ? GK_F16 : GK_BF16;
        a.Hkv = 1 + t % 3; a.Hq = a.Hkv * (1 + t % 8);
        a.B = t >= 12 ? 1 : 1 + t % 3; a.Sq = 1; a.Skv = lens[t % 8]; a.cache = a.Skv + (t % 4 == 1 ? 5 : 0);
        a.Dh = (t / 2) % 2 ? 64 : 128;
        a.causal = t % 3 == 1; a.kvlens = t % 4 >= 2;
        check(&a);
    }
    for (i = 0; i < 30; i++) { /* prefill and cross-attention */
        memset(&a, 0, sizeof a);
        a.dt = dts[i % 3];
        a.B = 1 + i % 2;
        a.Sq = i % 4 == 0 ? 1 : i % 4 == 1 ? 17 : i % 4 == 2 ? 100 : 33;
        a.Skv = i % 5 == 0 ? a.Sq : i % 5 == 1 ? 129 : i % 5 == 2 ? 17 : i % 5 == 3 ? 1000 : 100;
        if (a.Skv < a.Sq && i % 2) a.Skv = a.Sq;
        a.Hq = heads[i % 3][0]; a.Hkv = heads[i % 3][1];
        a.Dh = dims[i % 5];
        a.cache = a.Skv + (i % 3 == 2 ? 7 : 0);
        a.causal = i % 2 && a.Skv >= a.Sq;
        a.mask = i % 7 == 3;
        a.qlens = i % 6 == 5;
        a.kvlens = i % 4 == 3;
        check(&a);
    }
    for (t = 0; t < 8; t++) { /* prefill on tensor cores: both block sizes, GQA 8, awkward lengths */
        static const int64_t sq[4] = { 129, 520, 17, 300 }, dd[4] = { 128, 64, 96, 80 };
        memset(&a, 0, sizeof a);
        a.dt = t % 2 ? GK_F16 : GK_BF16;
        a.B = 1 + t % 2; a.Sq = sq[t % 4]; a.Skv = t % 3 == 2 ? a.Sq + 77 : a.Sq; a.cache = a.Skv;
        a.Hq = t < 4 ? 8 : 4; a.Hkv = t < 4 ? 1 : 4; a.Dh = dd[t / 2 % 4];
        a.causal = t % 4 != 3; a.qlens = t == 5; a.kvlens = t == 6 || t == 5;
        check(&a);
    }
    for (t = 0; t < 24; t++) { /* the Hopper kernel (kernels/flash_wg.cu, wgmma + TMA) on 9.0 devices: D 64 / 128, causal
                                   and not, GQA, lengths off the 128 tile, Sq != Skv (causal offset either way), batch > 1,
                                   k / v views of a longer cache; f16 held tighter than bf16 */
        static const int64_t sq[8] = { 1, 17, 100, 129, 1000, 300, 64, 257 }, skv[8] = { 1, 17, 1000, 300, 1000, 129, 700, 257 };
        static const int64_t hh[3][2] = { { 4, 4 }, { 8, 2 }, { 6, 1 } };
        long before = gk__tune(D)->fwg_launches;
        int hopper = gk_ctx_backend(D) == GK_BACKEND_CUDA && D->info.cc_major == 9 && D->info.cc_minor == 0;
        memset(&a, 0, sizeof a);
        a.dt = t % 2 ? GK_F16 : GK_BF16;
        a.tol = a.dt == GK_F16 ? 3e-3 : 1e-2;
        a.Sq = sq[t % 8]; a.Skv = t >= 16 && t % 3 == 0 ? a.Sq : skv[t % 8];
        a.B = a.Sq >= 1000 ? 1 : 1 + t % 3;
        a.Hq = hh[t % 3][0]; a.Hkv = hh[t % 3][1];
        if (a.Sq >= 1000) { a.Hq = 2; a.Hkv = t % 2 ? 1 : 2; }
        a.Dh = (t / 2) % 2 ? 64 : 128;
        a.cache = a.Skv + (t % 4 == 1 ? 9 : 0);
        a.causal = (t / 4) % 2 == 0 || t % 8 == 5;
        a.variants = 1;
        check(&a);
        if (hopper && a.Sq > 1)
            GKT_CHECK(gk__tune(D)->fwg_launches == before + 4, "flash_wg: case %d (Sq %lld, D %lld) did not run the wgmma kernel", t, (long long)a.Sq,
                      (long long)a.Dh);
    }
    for (t = 0; t < 3; t++) { /* flash_wg with more 128-query tiles than SMs, with tiles that see no key (causal, Skv < Sq)
                                  among them */
        static const int64_t cs[3][7] = { { 4, 129, 179, 32, 8, 128, 1 }, { 3, 300, 100, 16, 16, 64, 1 }, { 2, 200, 333, 40, 5, 128, 0 } };
        memset(&a, 0, sizeof a);
        a.dt = t == 1 ? GK_F16 : GK_BF16;
        a.tol = a.dt == GK_F16 ? 3e-3 : 1e-2;
        a.B = cs[t][0]; a.Sq = cs[t][1]; a.Skv = cs[t][2]; a.cache = a.Skv; a.Hq = cs[t][3]; a.Hkv = cs[t][4]; a.Dh = cs[t][5];
        a.causal = (int)cs[t][6];
        a.variants = 1;
        check(&a);
    }
    if (gk_ctx_backend(D) == GK_BACKEND_CUDA && D->info.cc_major == 9 && D->info.cc_minor == 0) { /* forced off: flash.cu runs */
        long before = gk__tune(D)->fwg_launches;
        memset(&a, 0, sizeof a);
        a.dt = GK_BF16; a.B = 2; a.Sq = 129; a.Skv = 129; a.cache = 129; a.Hq = 4; a.Hkv = 2; a.Dh = 128; a.causal = 1;
        gk__tune(D)->fwg_mode = 0;
        check(&a);
        gk__tune(D)->fwg_mode = -1;
        GKT_CHECK(gk__tune(D)->fwg_launches == before, "flash_wg: tune.fwg_mode 0 still ran the wgmma kernel");
    }
    { /* bad input */
        int64_t s4[4] = { 1, 4, 4, 64 }, s4b[4] = { 1, 4, 3, 64 }, sbig[4] = { 1, 2, 2, 300 };
        gk_tensor q, k, o, x, big;
        gk_attention_desc d;
        GKT_OK(D, gk_tensor_empty(D, GK_BF16, 4, s4, &q));
        GKT_OK(D, gk_tensor_empty(D, GK_BF16, 4, s4b, &k));
        GKT_OK(D, gk_tensor_empty(D, GK_BF16, 4, s4, &o));
        GKT_FAILS(D, gk_attention(D, o, q, k, k, NULL), GK_ERR_SHAPE, "not a multiple of 3 kv heads");
        GKT_OK(D, gk_tensor_empty(D, GK_F16, 4, s4, &x));
        GKT_FAILS(D, gk_attention(D, o, q, x, x, NULL), GK_ERR_DTYPE, "share one of");
        GKT_OK(D, gk_tensor_empty(D, GK_F32, 4, sbig, &big));
        GKT_FAILS(D, gk_attention(D, big, big, big, big, NULL), GK_ERR_UNSUPPORTED, "head_dim 300");
        memset(&d, 0, sizeof d);
        d.mask = x;
        GKT_FAILS(D, gk_attention(D, o, q, q, q, &d), GK_ERR_SHAPE, "mask must be f32");
        memset(&d, 0, sizeof d);
        d.kv_lens = q;
        GKT_FAILS(D, gk_attention(D, o, q, q, q, &d), GK_ERR_SHAPE, "kv_lens must be a contiguous i32 vector");
        gk_tensor_free(D, q); gk_tensor_free(D, k); gk_tensor_free(D, o); gk_tensor_free(D, x); gk_tensor_free(D, big);
    }
    gk_ctx_destroy(D);
    gk_ctx_destroy(R);
    return gkt_done("test_attention");
}
