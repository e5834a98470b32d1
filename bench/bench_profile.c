/* bench_profile.c - the profiler's cost (>>api_profile) on a decode launch
   stream: one batch-1 decode step of the Qwen2.5-0.5B shape (24 layers,
   hidden 896, 14 q / 2 kv heads of 64, intermediate 4864, vocab 151936, a
   512-key cache; bf16 on CUDA), issued op by op as gpukit_llm.h's decode
   step issues it (decode RMS norm, fused qkv GEMV with bias, fused RoPE + KV
   write, decode attention, o GEMV + residual, RMS norm, gate/up GLU GEMV,
   down GEMV + residual; then the final norm and the LM head), zero weights
   (the kernels' time does not depend on the values).

   Modes, timed in interleaved rounds (each round times every mode once, the
   order rotating, so drift touches them alike; a mode's figure is its median
   over the rounds): "off" (never started), "on" (recording every launch),
   "stopped" (started, then stopped: the results kept, each site calls a hook
   that returns at once) and "off2" (reset: off again; its difference from
   "off" is the noise floor). A timing is `steps` steps issued back to back
   and one gk_sync: wall ms a step, and the host's issue time a step. The
   step replayed from a CUDA graph (no host work between kernels) gives the
   GPU's own time a step, for reference (the profiler does not see inside a
   graph replay).

     build/bench_profile [--json PATH] [--trace PATH] [--quick] [--rounds N] [--steps N] [--backend cpu|cuda]

   --trace PATH: a Chrome trace of one step (open it in Perfetto), and the
   profiler's table of that step printed. --quick (the default on the CPU
   backend): a small shape (2 layers, hidden 128) and fewer rounds. */
#define GPUKIT_IMPLEMENTATION
#include "../gpukit.h"
#include "gkb.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static gk_ctx *ctx;
#define CK(x) GKB_CHECK(ctx, x)
#define MAXL 64

typedef struct shape { const char *name; int layers, hidden, heads, kv_heads, head_dim, inter, vocab, ctx_len; } shape;
static const shape Q05 = { "qwen2.5-0.5b", 24, 896, 14, 2, 64, 4864, 151936, 512 };
static const shape QUICK = { "quick", 2, 128, 4, 2, 32, 256, 1024, 64 };

typedef struct model {
    shape s;
    gk_dtype dt;
    gk_tensor ln1[MAXL], ln2[MAXL], wqkv[MAXL], bqkv[MAXL], wo[MAXL], wgu[MAXL], wdown[MAXL], kv[MAXL], kc[MAXL], vc[MAXL];
    gk_tensor norm, lm_head, cos_tab, sin_tab, pos, kvl;
    gk_tensor h, x, qkv, qkv3, q4, att, att4, h2, act, logits;
    int launches;               /* records of one step (counted with the profiler) */
} model;

static gk_tensor make(gk_dtype dt, int nd, int64_t a, int64_t b, int64_t c, int64_t d, double v) {
    int64_t sh[4];
    gk_tensor t;
    sh[0] = a; sh[1] = b; sh[2] = c; sh[3] = d;
    CK(gk_tensor_empty(ctx, dt, nd, sh, &t));
    CK(gk_fill(ctx, t, v));
    return t;
}

static void model_init(model *m, const shape *s, gk_dtype dt) {
    int64_t H = s->heads, Hkv = s->kv_heads, D = s->head_dim, qn = (H + 2 * Hkv) * D, sh[4];
    gk_rope_config rc;
    gk_tensor q3;
    int l;
    int32_t v;
    memset(m, 0, sizeof *m);
    m->s = *s;
    m->dt = dt;
    for (l = 0; l < s->layers; l++) {
        m->ln1[l] = make(dt, 1, s->hidden, 0, 0, 0, 1);
        m->ln2[l] = make(dt, 1, s->hidden, 0, 0, 0, 1);
        m->wqkv[l] = make(dt, 2, qn, s->hidden, 0, 0, 0);
        m->bqkv[l] = make(dt, 1, qn, 0, 0, 0, 0);
        m->wo[l] = make(dt, 2, s->hidden, H * D, 0, 0, 0);
        m->wgu[l] = make(dt, 2, 2 * (int64_t)s->inter, s->hidden, 0, 0, 0);
        m->wdown[l] = make(dt, 2, s->hidden, s->inter, 0, 0, 0);
        m->kv[l] = make(dt, 4, 1, s->ctx_len, 2 * Hkv, D, 0);
        CK(gk_view_slice(ctx, m->kv[l], 2, 0, Hkv, 1, &m->kc[l]));
        CK(gk_view_slice(ctx, m->kv[l], 2, Hkv, 2 * Hkv, 1, &m->vc[l]));
    }
    m->norm = make(dt, 1, s->hidden, 0, 0, 0, 1);
    m->lm_head = make(dt, 2, s->vocab, s->hidden, 0, 0, 0);
    memset(&rc, 0, sizeof rc);
    rc.rotary_dim = (int)D;
    rc.theta = 1000000;
    CK(gk_rope_table_new(ctx, &rc, s->ctx_len, dt, &m->cos_tab, &m->sin_tab));
    sh[0] = 1;
    v = s->ctx_len - 1; /* every step writes the last row and attends over the whole cache */
    CK(gk_tensor_from_host(ctx, GK_I32, 1, sh, &v, &m->pos));
    v = s->ctx_len;
    CK(gk_tensor_from_host(ctx, GK_I32, 1, sh, &v, &m->kvl));
    m->h = make(dt, 2, 1, s->hidden, 0, 0, 0.1);
    m->x = make(dt, 2, 1, s->hidden, 0, 0, 0);
    m->h2 = make(dt, 2, 1, s->hidden, 0, 0, 0);
    m->qkv = make(dt, 2, 1, qn, 0, 0, 0);
    m->att = make(dt, 2, 1, H * D, 0, 0, 0);
    m->act = make(dt, 2, 1, s->inter, 0, 0, 0);
    m->logits = make(dt, 2, 1, s->vocab, 0, 0, 0);
    sh[0] = 1; sh[1] = H + 2 * Hkv; sh[2] = D;
    CK(gk_view_reshape(ctx, m->qkv, 3, sh, &m->qkv3));
    CK(gk_view_slice(ctx, m->qkv3, 1, 0, H, 1, &q3));
    CK(gk_view_unsqueeze(ctx, q3, 1, &m->q4));
    gk_tensor_free(ctx, q3);
    sh[0] = 1; sh[1] = 1; sh[2] = H; sh[3] = D;
    CK(gk_view_reshape(ctx, m->att, 4, sh, &m->att4));
    CK(gk_sync(ctx));
}

/* one decode step, as gpukit_llm.h's gk__llm_layers issues it for one token */
static gk_status step(model *m) {
    const shape *s = &m->s;
    gk_matmul_desc md;
    gk_attention_desc ad;
    gk_status st = GK_OK;
    gk_tensor none;
    int l;
    none.id = 0;
#define DO(call) do { if (st == GK_OK) st = (call); } while (0)
    for (l = 0; l < s->layers && st == GK_OK; l++) {
        DO(gk_decode_rms_norm(ctx, m->x, m->h, m->ln1[l], 1e-6));
        memset(&md, 0, sizeof md);
        md.bias = m->bqkv[l];
        DO(gk_linear(ctx, m->qkv, m->x, m->wqkv[l], &md));
        DO(gk_rope_kv_write(ctx, m->qkv3, m->kv[l], m->pos, m->cos_tab, m->sin_tab, s->head_dim, s->heads));
        memset(&ad, 0, sizeof ad);
        ad.causal = 1;
        ad.kv_lens = m->kvl;
        DO(gk_attention(ctx, m->att4, m->q4, m->kc[l], m->vc[l], &ad));
        memset(&md, 0, sizeof md);
        md.residual = m->h;
        DO(gk_linear(ctx, m->h2, m->att, m->wo[l], &md));
        DO(gk_decode_rms_norm(ctx, m->x, m->h2, m->ln2[l], 1e-6));
        memset(&md, 0, sizeof md);
        md.act = GK_ACT_SILU;
        DO(gk_linear_glu(ctx, m->act, m->x, m->wgu[l], none, &md));
        memset(&md, 0, sizeof md);
        md.residual = m->h2;
        DO(gk_linear(ctx, m->h, m->act, m->wdown[l], &md));
    }
    DO(gk_decode_rms_norm(ctx, m->x, m->h, m->norm, 1e-6));
    DO(gk_linear(ctx, m->logits, m->x, m->lm_head, NULL));
#undef DO
    return st;
}

enum { M_OFF = 0, M_ON, M_STOPPED, M_OFF2, NMODES };
static const char *const mode_name[NMODES] = { "off", "on", "stopped", "off2" };

/* `steps` steps and a sync: wall ms a step; *issue: the host's issue time a step */
static double time_steps(model *m, int steps, double *issue) {
    double t0 = gkb_now_ms(), t1;
    int i;
    for (i = 0; i < steps; i++) CK(step(m));
    t1 = gkb_now_ms();
    CK(gk_sync(ctx));
    *issue = (t1 - t0) / steps;
    return (gkb_now_ms() - t0) / steps;
}

int main(int argc, char **argv) {
    const char *json = gkb_json_arg(argc, argv), *trace = NULL, *v = NULL;
    gk_ctx_desc cd;
    gk_device_info info;
    gk_profiler_desc pd;
    gk_profile_stats ps;
    model *m;
    gkb_json js;
    int quick = 0, rounds = 0, steps = 0, i, r, k;
    double wall[NMODES][64], issue[NMODES][64], med[NMODES], imed[NMODES], graph_ms = -1, graph_on_ms = -1, on_busy = 0;
    time_t now = time(NULL);
    memset(&cd, 0, sizeof cd);
    cd.backend = GK_BACKEND_AUTO;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) quick = 1;
        else if (gkb_arg(argc, argv, &i, "--trace", &trace)) {}
        else if (gkb_arg(argc, argv, &i, "--json", &v)) {}
        else if (gkb_arg(argc, argv, &i, "--rounds", &v)) rounds = atoi(v);
        else if (gkb_arg(argc, argv, &i, "--steps", &v)) steps = atoi(v);
        else if (gkb_arg(argc, argv, &i, "--backend", &v)) cd.backend = strcmp(v, "cpu") == 0 ? GK_BACKEND_CPU : GK_BACKEND_CUDA;
        else {
            printf("usage: bench_profile [--json PATH] [--trace PATH] [--quick] [--rounds N] [--steps N] [--backend cpu|cuda]\n");
            return 2;
        }
    }
    if (gk_ctx_create(&cd, &ctx) != GK_OK) { printf("bench_profile: %s\n", gk_last_error(NULL)); return 1; }
    CK(gk_device_info_get(ctx, &info));
    if (gk_ctx_backend(ctx) != GK_BACKEND_CUDA) quick = 1;
    if (rounds <= 0) rounds = quick ? 5 : 31;
    if (rounds > 64) rounds = 64;
    if (steps <= 0) steps = quick ? 3 : 50;
    m = (model *)calloc(1, sizeof *m);
    if (!m) return 1;
    model_init(m, quick ? &QUICK : &Q05, gk_ctx_backend(ctx) == GK_BACKEND_CUDA ? GK_BF16 : GK_F32);
    printf("bench_profile on %s: %s decode step (%d layers, hidden %d), %s, %d rounds of %d steps\n", info.name, m->s.name, m->s.layers,
           m->s.hidden, gk_dtype_name(m->dt), rounds, steps);

    /* warm-up (modules loaded, pool classes made), and the step's record count */
    for (i = 0; i < 3; i++) CK(step(m));
    CK(gk_sync(ctx));
    CK(gk_profiler_start(ctx, NULL));
    CK(step(m));
    CK(gk_profiler_stats(ctx, &ps));
    m->launches = (int)ps.records;
    CK(gk_profiler_reset(ctx));
    memset(&pd, 0, sizeof pd);
    pd.max_records = m->launches * steps + 64;
    printf("  %d records a step (kernel launches or CPU ops)\n", m->launches);

    /* the GPU's own time of a step: replayed from a graph */
    {
        gk_stream *gs = NULL;
        gk_graph *g = NULL;
        double t[9], ton[9];
        CK(gk_stream_create(ctx, GK_PRIORITY_NORMAL, &gs));
        CK(gk_set_stream(ctx, gs));
        if (gk_graph_begin(ctx, gs) == GK_OK) {
            gk_status st = step(m), se = gk_graph_end(ctx, gs, &g);
            if (st == GK_OK && se == GK_OK) {
                CK(gk_graph_launch(ctx, g, gs));
                CK(gk_stream_sync(ctx, gs));
                /* off and on interleaved: on, each replay is one record (the graph's launch) */
                for (r = 0; r < 18; r++) {
                    double t0;
                    if (r % 2) CK(gk_profiler_start(ctx, &pd));
                    t0 = gkb_now_ms();
                    for (k = 0; k < steps; k++) CK(gk_graph_launch(ctx, g, gs));
                    CK(gk_stream_sync(ctx, gs));
                    (r % 2 ? ton : t)[r / 2] = (gkb_now_ms() - t0) / steps;
                    if (r % 2) CK(gk_profiler_reset(ctx));
                }
                graph_ms = gkb_median(t, 9);
                graph_on_ms = gkb_median(ton, 9);
            } else printf("  (graph capture failed: %s)\n", gk_last_error(ctx));
            if (g) CK(gk_graph_destroy(ctx, g));
        }
        CK(gk_set_stream(ctx, NULL));
        CK(gk_stream_destroy(ctx, gs));
    }

    /* the modes, interleaved: round r starts at mode r % NMODES */
    for (r = 0; r < rounds; r++) {
        for (k = 0; k < NMODES; k++) {
            int mo = (k + r) % NMODES;
            CK(gk_profiler_reset(ctx));
            if (mo == M_ON || mo == M_STOPPED) CK(gk_profiler_start(ctx, &pd));
            if (mo == M_STOPPED) CK(gk_profiler_stop(ctx));
            wall[mo][r] = time_steps(m, steps, &issue[mo][r]);
            if (mo == M_ON) {
                CK(gk_profiler_stats(ctx, &ps));
                on_busy += ps.busy_ms / steps / rounds;
                if (ps.records != (int64_t)m->launches * steps || ps.dropped)
                    printf("  round %d: %lld records, %lld dropped (want %d)\n", r, (long long)ps.records, (long long)ps.dropped, m->launches * steps);
            }
        }
    }
    CK(gk_profiler_reset(ctx));
    for (k = 0; k < NMODES; k++) {
        med[k] = gkb_median(wall[k], rounds);
        imed[k] = gkb_median(issue[k], rounds);
    }
    printf("  %-8s %12s %12s %10s %14s\n", "mode", "ms a step", "issue ms", "vs off", "us a launch");
    for (k = 0; k < NMODES; k++)
        printf("  %-8s %12.4f %12.4f %9.2f%% %14.3f\n", mode_name[k], med[k], imed[k], 100.0 * (med[k] / med[M_OFF] - 1),
               1e3 * med[k] / (m->launches ? m->launches : 1));
    if (graph_ms >= 0)
        printf("  graph replay (no host work between kernels): %.4f ms a step; profiler on (a record a replay): %.4f ms (%+.2f%%)\n", graph_ms,
               graph_on_ms, 100.0 * (graph_on_ms / graph_ms - 1));
    printf("  profiler on: %.1f%% over off (host issue %+.1f%%), stopped %.2f%%, off2 (noise) %.2f%%; recorded busy time %.4f ms a step\n",
           100.0 * (med[M_ON] / med[M_OFF] - 1), 100.0 * (imed[M_ON] / imed[M_OFF] - 1), 100.0 * (med[M_STOPPED] / med[M_OFF] - 1),
           100.0 * (med[M_OFF2] / med[M_OFF] - 1), on_busy);

    /* one step traced */
    if (trace) {
        char *rep;
        size_t need = 0;
        CK(gk_profiler_start(ctx, NULL));
        CK(step(m));
        CK(gk_sync(ctx));
        CK(gk_profiler_stop(ctx));
        CK(gk_profiler_write_trace(ctx, trace));
        gk_profiler_report(ctx, NULL, 0, &need);
        rep = (char *)malloc(need);
        if (rep && gk_profiler_report(ctx, rep, need, NULL) == GK_OK) printf("%s", rep);
        free(rep);
        printf("  trace of one step: %s\n", trace);
        CK(gk_profiler_reset(ctx));
    }

    if (gkb_json_open(&js, json) == 0 && json) {
        gkb_json_header(&js, "bench_profile", info.name, now);
        gkb_json_str(&js, "shape", m->s.name);
        gkb_json_str(&js, "dtype", gk_dtype_name(m->dt));
        gkb_json_int(&js, "layers", m->s.layers);
        gkb_json_int(&js, "launches_per_step", m->launches);
        gkb_json_int(&js, "rounds", rounds);
        gkb_json_int(&js, "steps", steps);
        gkb_json_arr(&js, "modes");
        for (k = 0; k < NMODES; k++) {
            gkb_json_row(&js, NULL);
            gkb_json_str(&js, "mode", mode_name[k]);
            gkb_json_num(&js, "ms_step", med[k], 5);
            gkb_json_num(&js, "issue_ms_step", imed[k], 5);
            gkb_json_num(&js, "vs_off_pct", 100.0 * (med[k] / med[M_OFF] - 1), 3);
            gkb_json_end(&js);
        }
        gkb_json_end(&js);
        gkb_json_num(&js, "overhead_on_pct", 100.0 * (med[M_ON] / med[M_OFF] - 1), 3);
        gkb_json_num(&js, "overhead_stopped_pct", 100.0 * (med[M_STOPPED] / med[M_OFF] - 1), 3);
        gkb_json_num(&js, "noise_off2_pct", 100.0 * (med[M_OFF2] / med[M_OFF] - 1), 3);
        gkb_json_num(&js, "graph_ms_step", graph_ms, 5);
        gkb_json_num(&js, "graph_on_ms_step", graph_on_ms, 5);
        gkb_json_num(&js, "graph_overhead_on_pct", graph_ms > 0 ? 100.0 * (graph_on_ms / graph_ms - 1) : 0, 3);
        gkb_json_num(&js, "recorded_busy_ms_step", on_busy, 5);
        if (trace) gkb_json_str(&js, "trace", trace);
        if (gkb_json_close(&js) != 0) printf("writing %s failed\n", json);
    }
    free(m);
    gk_ctx_destroy(ctx);
    return 0;
}
