/* test_nn_fixtures.h - compares the nn ops with PyTorch / HF transformers
   results written by tests/gen_nn_fixtures.py into tests/fixtures/nn
   (index.txt + raw little-endian f32 files). Included by test_nn.c. */
#include "gkt_util.h"
static const char *fx_dir;
static double kv(const char *ln, const char *key) {
    char pat[64];
    const char *p;
    snprintf(pat, sizeof pat, " %s=", key);
    p = strstr(ln, pat);
    return p ? strtod(p + strlen(pat), NULL) : 0;
}
static int kvs(const char *ln, const char *key, char *out, size_t n) {
    char pat[64];
    const char *p;
    size_t k = 0;
    snprintf(pat, sizeof pat, " %s=", key);
    p = strstr(ln, pat);
    if (!p) return 0;
    p += strlen(pat);
    while (p[k] && p[k] != ' ' && p[k] != '\n' && k + 1 < n) { out[k] = p[k]; k++; }
    out[k] = 0;
    return 1;
}
/* the whole f32 file; *n floats */
static float *fx_load(const char *ln, long *n) {
    char name[256], path[1024];
    FILE *f;
    long sz;
    float *v;
    if (!kvs(ln, "file", name, sizeof name)) return NULL;
    snprintf(path, sizeof path, "%s/%s", fx_dir, name);
    f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    v = (float *)malloc((size_t)sz + 4);
    if (fread(v, 1, (size_t)sz, f) != (size_t)sz) { free(v); fclose(f); return NULL; }
    fclose(f);
    *n = sz / 4;
    return v;
}
/* a f32 tensor in both contexts from host floats */
static pair fx_mk(int nd, const int64_t *shape, const float *v) {
    pair p;
    int64_t n = 1, i;
    double *d;
    int k;
    for (k = 0; k < nd; k++) n *= shape[k];
    d = (double *)malloc(sizeof(double) * (size_t)(n + 1));
    for (i = 0; i < n; i++) d[i] = v ? v[i] : 0;
    p = v ? mk(GK_F32, nd, shape, d) : mkpoison(GK_F32, nd, shape);
    free(d);
    return p;
}
/* both results vs the fixture */
static void fx_check(const char *what, const char *name, pair o, const float *want, double tol) {
    double *dv, *rv;
    float *df, *rf;
    int64_t i;
    get(o, &dv, &rv);
    df = (float *)malloc(sizeof(float) * (size_t)(o.n + 1));
    rf = (float *)malloc(sizeof(float) * (size_t)(o.n + 1));
    for (i = 0; i < o.n; i++) { df[i] = (float)dv[i]; rf[i] = (float)rv[i]; }
    GKT_CHECK(gkt_max_err(rf, want, (size_t)o.n) <= tol, "fixture %s %s: CPU reference vs PyTorch err %g > %g", what, name, gkt_max_err(rf, want, (size_t)o.n), tol);
    GKT_CHECK(gkt_max_err(df, want, (size_t)o.n) <= tol, "fixture %s %s: device vs PyTorch err %g > %g", what, name, gkt_max_err(df, want, (size_t)o.n), tol);
    free(dv); free(rv); free(df); free(rf);
}

static void fx_table(const char *ln, const char *name) {
    gk_rope_config c;
    char ty[32];
    long n;
    float *v = fx_load(ln, &n), inv[4096], *cs, *sn;
    double att = 0;
    int half, npos;
    memset(&c, 0, sizeof c);
    kvs(ln, "type", ty, sizeof ty);
    c.type = !strcmp(ty, "linear") ? GK_ROPE_LINEAR : !strcmp(ty, "dynamic") ? GK_ROPE_DYNAMIC : !strcmp(ty, "yarn") ? GK_ROPE_YARN
           : !strcmp(ty, "llama3") ? GK_ROPE_LLAMA3 : GK_ROPE_DEFAULT;
    c.rotary_dim = (int)kv(ln, "rd");
    c.theta = kv(ln, "theta");
    c.factor = kv(ln, "factor");
    c.max_position_embeddings = (int64_t)kv(ln, "maxpos");
    c.original_max_position_embeddings = (int64_t)kv(ln, "orig");
    c.seq_len = (int64_t)kv(ln, "seq");
    c.attention_factor = kv(ln, "attn");
    c.beta_fast = kv(ln, "bfast");
    c.beta_slow = kv(ln, "bslow");
    c.mscale = kv(ln, "mscale");
    c.mscale_all_dim = kv(ln, "msall");
    c.no_truncate = kv(ln, "trunc") == 0;
    c.low_freq_factor = kv(ln, "low");
    c.high_freq_factor = kv(ln, "high");
    half = c.rotary_dim / 2;
    npos = (int)kv(ln, "npos");
    if (!v || n != half + 2L * npos * half || half > 4096) { GKT_CHECK(0, "fixture table %s: bad file", name); free(v); return; }
    GKT_OK(NULL, gk_rope_inv_freq(&c, inv, &att));
    GKT_CHECK(gkt_max_err(inv, v, half) <= 3e-7, "fixture table %s: inv_freq err %g", name, gkt_max_err(inv, v, half));
    GKT_CHECK(fabs(att - kv(ln, "att")) <= 1e-12 * fabs(att), "fixture table %s: attention scaling %.17g vs HF %.17g", name, att, kv(ln, "att"));
    cs = (float *)malloc(sizeof(float) * (size_t)npos * (size_t)half * 2);
    sn = cs + (size_t)npos * (size_t)half;
    GKT_OK(NULL, gk_rope_table(&c, npos, cs, sn, NULL));
    GKT_CHECK(gkt_max_err(cs, v + half, (size_t)npos * half) <= 3e-5 && gkt_max_err(sn, v + half + (long)npos * half, (size_t)npos * half) <= 3e-5,
              "fixture table %s: cos err %g sin err %g", name, gkt_max_err(cs, v + half, (size_t)npos * half), gkt_max_err(sn, v + half + (long)npos * half, (size_t)npos * half));
    free(cs);
    free(v);
}
static void fx_rope(const char *ln, const char *name) {
    char lay[16];
    long n;
    float *v = fx_load(ln, &n);
    int64_t T = (int64_t)kv(ln, "T"), H = (int64_t)kv(ln, "H"), Dh = (int64_t)kv(ln, "D"), P = (int64_t)kv(ln, "P"), i;
    int rd = (int)kv(ln, "rd");
    int64_t xs[3] = { T, H, Dh }, ps[1] = { T }, ts[2] = { P, rd / 2 };
    double *pv;
    pair x, o, pos, c, s;
    kvs(ln, "layout", lay, sizeof lay);
    if (!v || n != 2 * T * H * Dh + T + P * rd) { GKT_CHECK(0, "fixture rope %s: bad file", name); free(v); return; }
    pv = (double *)malloc(sizeof(double) * (size_t)T);
    for (i = 0; i < T; i++) pv[i] = v[T * H * Dh + i];
    x = fx_mk(3, xs, v);
    pos = mk(GK_I32, 1, ps, pv);
    c = fx_mk(2, ts, v + T * H * Dh + T);
    s = fx_mk(2, ts, v + T * H * Dh + T + P * rd / 2);
    o = fx_mk(3, xs, NULL);
    GKT_OK(D, gk_rope(D, o.d, x.d, pos.d, c.d, s.d, rd, strcmp(lay, "gptj") ? GK_ROPE_NEOX : GK_ROPE_GPTJ));
    GKT_OK(R, gk_rope(R, o.r, x.r, pos.r, c.r, s.r, rd, strcmp(lay, "gptj") ? GK_ROPE_NEOX : GK_ROPE_GPTJ));
    fx_check("rope", name, o, v + T * H * Dh + T + P * rd, 2e-6);
    fr(x); fr(pos); fr(c); fr(s); fr(o);
    free(pv);
    free(v);
}
static void fx_interp(const char *ln, const char *name) {
    char md[16];
    long n;
    float *v = fx_load(ln, &n);
    int nd = (int)kv(ln, "nd");
    int64_t N = (int64_t)kv(ln, "N"), C = (int64_t)kv(ln, "C"), H = (int64_t)kv(ln, "H"), W = (int64_t)kv(ln, "W");
    int64_t OH = (int64_t)kv(ln, "OH"), OW = (int64_t)kv(ln, "OW");
    int64_t xs[4], os[4];
    double sc[2];
    pair x, o;
    kvs(ln, "mode", md, sizeof md);
    xs[0] = os[0] = N; xs[1] = os[1] = C;
    if (nd == 4) { xs[2] = H; xs[3] = W; os[2] = OH; os[3] = OW; sc[0] = kv(ln, "sh"); sc[1] = kv(ln, "sw"); }
    else { xs[2] = W; os[2] = OW; sc[0] = kv(ln, "sw"); sc[1] = 0; }
    if (!v || n != N * C * (H * W + OH * OW)) { GKT_CHECK(0, "fixture interp %s: bad file", name); free(v); return; }
    x = fx_mk(nd, xs, v);
    o = fx_mk(nd, os, NULL);
    GKT_OK(D, gk_interpolate(D, o.d, x.d, strcmp(md, "nearest") ? GK_INTERP_LINEAR : GK_INTERP_NEAREST, sc));
    GKT_OK(R, gk_interpolate(R, o.r, x.r, strcmp(md, "nearest") ? GK_INTERP_LINEAR : GK_INTERP_NEAREST, sc));
    fx_check("interp", name, o, v + N * C * H * W, 2e-6);
    fr(x); fr(o);
    free(v);
}
static void fx_pad(const char *ln, const char *name) {
    char md[16];
    long n;
    float *v = fx_load(ln, &n);
    int nd = (int)kv(ln, "ndim"), np = (int)kv(ln, "npads"), k;
    int64_t xs[4] = { (int64_t)kv(ln, "s0"), (int64_t)kv(ln, "s1"), (int64_t)kv(ln, "s2"), (int64_t)kv(ln, "s3") };
    int64_t pads[4] = { (int64_t)kv(ln, "p0"), (int64_t)kv(ln, "p1"), (int64_t)kv(ln, "p2"), (int64_t)kv(ln, "p3") }, os[4], nx = 1, no = 1;
    gk_pad_mode m;
    pair x, o;
    kvs(ln, "mode", md, sizeof md);
    m = !strcmp(md, "reflect") ? GK_PAD_REFLECT : !strcmp(md, "replicate") ? GK_PAD_REPLICATE : GK_PAD_CONSTANT;
    memcpy(os, xs, sizeof os);
    os[nd - 1] += pads[0] + pads[1];
    if (np == 4) os[nd - 2] += pads[2] + pads[3];
    for (k = 0; k < nd; k++) { nx *= xs[k]; no *= os[k]; }
    if (!v || n != nx + no) { GKT_CHECK(0, "fixture pad %s: bad file", name); free(v); return; }
    x = fx_mk(nd, xs, v);
    o = fx_mk(nd, os, NULL);
    GKT_OK(D, gk_pad(D, o.d, x.d, pads, np, m, kv(ln, "value")));
    GKT_OK(R, gk_pad(R, o.r, x.r, pads, np, m, kv(ln, "value")));
    fx_check("pad", name, o, v + nx, 0);
    fr(x); fr(o);
    free(v);
}
static void fx_sinus(const char *ln, const char *name) {
    long n;
    float *v = fx_load(ln, &n), *y;
    int64_t L = (int64_t)kv(ln, "length"), C = (int64_t)kv(ln, "channels");
    if (!v || n != L * C) { GKT_CHECK(0, "fixture sinus %s: bad file", name); free(v); return; }
    y = (float *)malloc(sizeof(float) * (size_t)(L * C));
    GKT_OK(NULL, gk_sinusoids(L, C, 10000, y));
    GKT_CHECK(gkt_max_err(y, v, n) <= 3e-4, "fixture sinusoids %s: err %g", name, gkt_max_err(y, v, n));
    free(y);
    free(v);
}
static void fx_norm(const char *ln, const char *name) {
    char kind[16];
    long n;
    float *v = fx_load(ln, &n);
    int nd = (int)kv(ln, "ndim"), k, groups = (int)kv(ln, "groups"), affine = (int)kv(ln, "affine");
    int64_t xs[4] = { (int64_t)kv(ln, "s0"), (int64_t)kv(ln, "s1"), (int64_t)kv(ln, "s2"), (int64_t)kv(ln, "s3") }, nx = 1, C, cs[1];
    double eps = kv(ln, "eps");
    pair x, w, b, o;
    kvs(ln, "kind", kind, sizeof kind);
    for (k = 0; k < nd; k++) nx *= xs[k];
    C = (!strcmp(kind, "layer") || !strcmp(kind, "rms")) ? xs[nd - 1] : xs[1];
    cs[0] = C;
    if (!v || n != 2 * nx + 2 * C) { GKT_CHECK(0, "fixture norm %s: bad file", name); free(v); return; }
    x = fx_mk(nd, xs, v);
    w = fx_mk(1, cs, v + nx);
    b = fx_mk(1, cs, v + nx + C);
    o = fx_mk(nd, xs, NULL);
    if (!strcmp(kind, "layer")) {
        GKT_OK(D, gk_layer_norm(D, o.d, x.d, w.d, b.d, eps));
        GKT_OK(R, gk_layer_norm(R, o.r, x.r, w.r, b.r, eps));
    } else if (!strcmp(kind, "rms")) {
        GKT_OK(D, gk_rms_norm(D, o.d, x.d, w.d, eps));
        GKT_OK(R, gk_rms_norm(R, o.r, x.r, w.r, eps));
    } else if (!strcmp(kind, "group")) {
        GKT_OK(D, gk_group_norm(D, o.d, x.d, groups, w.d, b.d, eps));
        GKT_OK(R, gk_group_norm(R, o.r, x.r, groups, w.r, b.r, eps));
    } else {
        GKT_OK(D, gk_instance_norm(D, o.d, x.d, affine ? w.d : NONE, affine ? b.d : NONE, eps));
        GKT_OK(R, gk_instance_norm(R, o.r, x.r, affine ? w.r : NONE, affine ? b.r : NONE, eps));
    }
    fx_check("norm", name, o, v + nx + 2 * C, 2e-5);
    fr(x); fr(w); fr(b); fr(o);
    free(v);
}

static void test_fixtures(void) {
    static const char *const dirs[3] = { NULL, "tests/fixtures/nn", "../tests/fixtures/nn" };
    char path[1024], ln[2048];
    FILE *f = NULL;
    int i, cases = 0;
    for (i = 0; i < 3 && !f; i++) {
        fx_dir = i == 0 ? getenv("GKT_NN_FIXTURES") : dirs[i];
        if (!fx_dir) continue;
        snprintf(path, sizeof path, "%s/index.txt", fx_dir);
        f = fopen(path, "r");
    }
    if (!f) { printf("skip: no fixtures (tests/fixtures/nn/index.txt; make them with tests/gen_nn_fixtures.py)\n"); return; }
    while (fgets(ln, sizeof ln, f)) {
        char kind[32], name[128];
        if (ln[0] == '#' || sscanf(ln, "%31s %127s", kind, name) != 2) continue;
        cases++;
        if (!strcmp(kind, "table")) fx_table(ln, name);
        else if (!strcmp(kind, "rope")) fx_rope(ln, name);
        else if (!strcmp(kind, "interp")) fx_interp(ln, name);
        else if (!strcmp(kind, "pad")) fx_pad(ln, name);
        else if (!strcmp(kind, "sinus")) fx_sinus(ln, name);
        else if (!strcmp(kind, "norm")) fx_norm(ln, name);
        else { cases--; printf("fixture kind %s unknown (skipped)\n", kind); }
    }
    fclose(f);
    printf("fixtures: %d cases from %s\n", cases, fx_dir);
}
