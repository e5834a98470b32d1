// emu_test: the signal kernels (FFT shared-memory and global paths, Bluestein,
// STFT / Whisper mel / iSTFT stages, conv, weight norm, LSTM projection and
// persistent recurrence) run in the emulator (emu.h) against naive references.
// `make signal-emu`; an argument (fft, stft, conv, lstm) runs one group.
#include "emu.h"
#include <cstdio>
#include <cstdlib>
#include <random>
#include "../../build/signal_emu/fft.cu"
#include "../../build/signal_emu/conv.cu"
#include "../../build/signal_emu/lstm.cu"
static std::mt19937 rng(7);
static int emu_table = 1; // gk_fft_run with the shared-memory twiddle table (both are run)
static float U(float a, float b) { return std::uniform_real_distribution<float>(a, b)(rng); }
static int fails = 0, checks = 0;
static void check(bool ok, const char *what, double e) { checks++; if (!ok) { fails++; printf("FAIL %s err %g\n", what, e); } }
static double relerr(const std::vector<double> &a, const std::vector<double> &b) {
    double num = 0, den = 0;
    for (size_t i = 0; i < a.size(); i++) { if (std::isnan(a[i])) return 1e9; num = std::max(num, std::fabs(a[i] - b[i])); den = std::max(den, std::fabs(b[i])); }
    return den > 0 ? num / den : num;
}
static int factor(long m, int *f, int *nf) {
    int k = 0;
    while (m % 4 == 0) { f[k++] = 4; m /= 4; }
    while (m % 2 == 0) { f[k++] = 2; m /= 2; }
    while (m % 3 == 0) { f[k++] = 3; m /= 3; }
    while (m % 5 == 0) { f[k++] = 5; m /= 5; }
    *nf = k; return m == 1;
}
static gk_fftp plan(int n, int inverse) {
    gk_fftp P; memset(&P, 0, sizeof P);
    P.n = n; P.inverse = inverse; P.m = n; P.scale = 1;
    if (!factor(n, P.f, &P.nf)) { int t[16], nt; long m = 2 * n - 1; while (!factor(m, t, &nt)) m++; P.m = (int)m; P.blue = 1; factor(m, P.f, &P.nf); }
    return P;
}
// runs P as the host does: shared-memory path or the global stages
static void run_fft(gk_fftp P, float *out, const float *in, const float *win, bool global) {
    std::vector<float2> bhat(P.m), gbuf(global ? (size_t)P.batch * P.m : 1);
    dim3 block; block.x = 64; while (block.x < 256 && (int)block.x * 4 < P.m) block.x *= 2;
    if (!global) {
        if (P.blue) emu_launch(dim3{}, block, P.m * 8, false, [&] { gk_fft_chirp(P, bhat.data()); });
        dim3 grid; grid.x = (unsigned)std::min<long long>(P.batch, 3);
        P.tw_table = emu_table;
        emu_launch(grid, block, P.m * 16 + P.n * 4, false, [&] { gk_fft_run(P, out, in, win, bhat.data()); });
        return;
    }
    auto L1 = [&](long long work, std::function<void()> f) { dim3 g, b; b.x = 64; g.x = (unsigned)std::min<long long>((work + 63) / 64, 3); emu_launch(g, b, 0, false, f); };
    auto stages = [&](float2 *buf, long long rows, float sgn, int dif) {
        int Ls[16], L = 1;
        for (int k = 0; k < P.nf; k++) { Ls[k] = L; L *= P.f[k]; }
        for (int kk = 0; kk < P.nf; kk++) { int k = dif ? P.nf - 1 - kk : kk; int R = P.f[k], LL = Ls[k]; L1(rows * (P.m / R), [&] { gk_fft_g_stage(buf, rows, P.m, LL, R, sgn, dif); }); }
    };
    float sgn = P.inverse ? 1.f : -1.f, sc = 1.f / P.m;
    if (P.blue) {
        L1(P.m, [&] { gk_fft_g_load(P, bhat.data(), in, win, 2); });
        stages(bhat.data(), 1, -1.f, 0);
        L1(P.batch * P.m, [&] { gk_fft_g_load(P, gbuf.data(), in, win, 1); });
        stages(gbuf.data(), P.batch, -1.f, 1);
        L1(P.batch * P.m, [&] { gk_fft_g_mul(P, gbuf.data(), bhat.data(), sc); });
        stages(gbuf.data(), P.batch, 1.f, 0);
    } else {
        L1(P.batch * P.m, [&] { gk_fft_g_load(P, gbuf.data(), in, win, 0); });
        stages(gbuf.data(), P.batch, sgn, 0);
    }
    L1(P.batch * P.n, [&] { gk_fft_g_store(P, out, gbuf.data(), win); });
}
static void test_fft(int n, int batch, bool global, int inverse) {
    gk_fftp P = plan(n, inverse);
    P.batch = batch; P.in_mode = GK_FI_COMPLEX; P.out_mode = GK_FO_COMPLEX; P.scale = inverse ? 1.f / n : 1.f;
    std::vector<float> x(batch * n * 2), y(batch * n * 2, NAN);
    for (auto &v : x) v = U(-1, 1);
    run_fft(P, y.data(), x.data(), nullptr, global);
    std::vector<double> want(x.size()), got(y.begin(), y.end());
    for (int b = 0; b < batch; b++)
        for (int k = 0; k < n; k++) {
            double re = 0, im = 0;
            for (int j = 0; j < n; j++) {
                double a = (inverse ? 2 : -2) * M_PI * (double)((long)j * k % n) / n, c = cos(a), s = sin(a);
                double xr = x[(b * n + j) * 2], xi = x[(b * n + j) * 2 + 1];
                re += xr * c - xi * s; im += xr * s + xi * c;
            }
            want[(b * n + k) * 2] = inverse ? re / n : re; want[(b * n + k) * 2 + 1] = inverse ? im / n : im;
        }
    double e = relerr(got, want);
    char w[128]; snprintf(w, sizeof w, "fft n=%d global=%d inv=%d blue=%d m=%d", n, global, inverse, P.blue, P.m);
    check(e < 1e-4, w, e);
}
static void test_stft_whisper() {
    int L = 3200, n = 400, hop = 160, T = L / hop, F = 201, M = 80, B = 2;
    gk_fftp P = plan(n, 0);
    P.in_mode = GK_FI_FRAMES; P.out_mode = GK_FO_POWER; P.center = 1; P.batch = B * T; P.nframes = T; P.hop = hop; P.sig_len = L; P.sig_avail = L; P.sig_stride = L;
    std::vector<float> x(B * L), pw(B * T * F, NAN), filt(M * F), out(B * M * T, NAN);
    for (auto &v : x) v = U(-0.5, 0.5);
    for (auto &v : filt) v = U(0, 0.01);
    run_fft(P, pw.data(), x.data(), nullptr, false);
    std::vector<double> want(pw.size()), got(pw.begin(), pw.end());
    for (int b = 0; b < B; b++) for (int t = 0; t < T; t++) for (int k = 0; k < F; k++) {
        double re = 0, im = 0;
        for (int j = 0; j < n; j++) { long pos = (long)t * hop + j - n / 2; if (pos < 0) pos = -pos; if (pos >= L) pos = 2 * (L - 1) - pos;
            double v = x[b * L + pos] * (0.5 - 0.5 * cos(2 * M_PI * j / n)), a = -2 * M_PI * (double)((long)j * k % n) / n; re += v * cos(a); im += v * sin(a); }
        want[(b * T + t) * F + k] = re * re + im * im;
    }
    check(relerr(got, want) < 1e-4, "stft power", relerr(got, want));
    std::vector<unsigned> mx(B, 0);
    dim3 g; g.x = (T + 31) / 32; g.y = B; dim3 bl; bl.x = 256;
    float *po = out.data(); float *pp = pw.data(); float *pf = filt.data(); unsigned *pm = mx.data();
    long long TT = T;
    emu_launch(g, bl, 32 * F * 4, false, [&] { gk_wmel_log(po, pp, pf, pm, F, M, TT); });
    long long per = (long long)M * T, nn = B * per;
    dim3 g2; g2.x = 2; emu_launch(g2, bl, 0, false, [&] { gk_wmel_norm(po, pm, per, nn); });
    std::vector<double> w2(out.size()), g3(out.begin(), out.end());
    for (int b = 0; b < B; b++) {
        double m = -1e300;
        for (int mm = 0; mm < M; mm++) for (int t = 0; t < T; t++) { double a = 0; for (int k = 0; k < F; k++) a += (double)filt[mm * F + k] * pw[(b * T + t) * F + k];
            double v = log10(std::max(a, 1e-10)); w2[(b * M + mm) * T + t] = v; m = std::max(m, v); }
        for (int i = 0; i < M * T; i++) { double v = w2[b * M * T + i]; w2[b * M * T + i] = (std::max(v, m - 8) + 4) / 4; }
    }
    check(relerr(g3, w2) < 1e-5, "whisper mel/log/norm", relerr(g3, w2));
}
static void test_stft_istft() {
    int L = 237, n = 20, hop = 5, T = 1 + L / hop, F = n / 2 + 1, B = 2;
    gk_fftp P = plan(n, 0);
    P.in_mode = GK_FI_FRAMES; P.out_mode = GK_FO_SPEC; P.center = 1; P.batch = B * T; P.nframes = T; P.hop = hop; P.sig_len = L; P.sig_avail = L; P.sig_stride = L;
    std::vector<float> x(B * L), spec(B * F * T * 2, NAN), frames(B * T * n, NAN), y(B * L, NAN);
    for (auto &v : x) v = U(-1, 1);
    run_fft(P, spec.data(), x.data(), nullptr, false);
    gk_fftp Q = plan(n, 1);
    Q.in_mode = GK_FI_SPEC; Q.out_mode = GK_FO_WREAL; Q.center = 1; Q.batch = B * T; Q.nframes = T; Q.hop = hop; Q.scale = 1.f / n;
    run_fft(Q, frames.data(), spec.data(), nullptr, false);
    long long BB = B, len = L;
    float *py = y.data(), *pf = frames.data();
    dim3 g; g.x = 2; dim3 b; b.x = 64;
    emu_launch(g, b, 0, false, [&] { gk_istft_ola(Q, py, pf, nullptr, BB, len); });
    std::vector<double> got(y.begin(), y.end()), want(x.begin(), x.end());
    check(relerr(got, want) < 1e-5, "istft(stft(x))", relerr(got, want));
}
template <int DT> static void test_conv(int tr, int two, long B, long Cin, long H, long W, long Cout, long KH, long KW, long sh, long sw, long ph, long pw, long dh, long dw, long G, long op) {
    typedef typename gk_ty<DT>::S S;
    gk_convp p; memset(&p, 0, sizeof p);
    if (!two) { H = 1; KH = 1; sh = 1; ph = 0; dh = 1; }
    long Ho = two ? (H + 2 * ph - dh * (KH - 1) - 1) / sh + 1 : 1;
    long Wo = tr ? (W - 1) * sw - 2 * pw + dw * (KW - 1) + op + 1 : (W + 2 * pw - dw * (KW - 1) - 1) / sw + 1;
    p.B = B; p.Cin = Cin; p.H = H; p.W = W; p.Cout = Cout; p.KH = KH; p.KW = KW; p.Ho = Ho; p.Wo = Wo; p.sh = sh; p.sw = sw; p.ph = ph; p.pw = pw; p.dh = dh; p.dw = dw; p.groups = G; p.transposed = tr; p.has_bias = 1;
    long nx = B * Cin * H * W, nw = tr ? Cin * (Cout / G) * KH * KW : Cout * (Cin / G) * KH * KW, no = B * Cout * Ho * Wo;
    std::vector<float> x(nx), w(nw), bias(Cout);
    for (auto &v : x) v = gk_ty<DT>::ld(gk_ty<DT>::st(U(-1, 1)));
    for (auto &v : w) v = gk_ty<DT>::ld(gk_ty<DT>::st(U(-1, 1)));
    for (auto &v : bias) v = gk_ty<DT>::ld(gk_ty<DT>::st(U(-1, 1)));
    std::vector<S> xs(nx), ws(nw), bs(Cout), os(no);
    for (long i = 0; i < nx; i++) xs[i] = gk_ty<DT>::st(x[i]);
    for (long i = 0; i < nw; i++) ws[i] = gk_ty<DT>::st(w[i]);
    for (long i = 0; i < Cout; i++) bs[i] = gk_ty<DT>::st(bias[i]);
    dim3 g; g.x = (unsigned)((B * Ho * Wo + 63) / 64); g.y = (unsigned)((Cout / G + 63) / 64); g.z = (unsigned)G;
    dim3 bl; bl.x = 256;
    S *po = os.data(); const S *px = xs.data(), *pwp = ws.data(), *pb = bs.data();
    bool poly = tr && !two; // 1-d transposed: the polyphase kernel, as the host runs it
    int ks = poly && DT == GK_DT_f32 ? (int)(1 + (Cin + W) % 4) : 1; // split reduction (atomics into zeros) as the host does for f32
    for (auto &v : os) v = gk_ty<DT>::st(ks > 1 ? 0.f : NAN);
    if (poly) { g.x = (unsigned)((B * ((Wo + sw - 1) / sw) + 63) / 64); g.z = (unsigned)(G * sw * ks); p.ksplit = ks; }
    if (Cout / G >= 128) { g.y = (unsigned)((Cout / G + 127) / 128); emu_launch(g, bl, 0, false, [&] { if (poly) gk_convt1_impl<DT, 2>(p, po, px, pwp, pb); else gk_conv_impl<DT, 2>(p, po, px, pwp, pb); }); }
    else emu_launch(g, bl, 0, false, [&] { if (poly) gk_convt1_impl<DT, 1>(p, po, px, pwp, pb); else gk_conv_impl<DT, 1>(p, po, px, pwp, pb); });
    std::vector<double> want(no, 0), got(no);
    long Cig = Cin / G, Cog = Cout / G;
    for (long b = 0; b < B; b++) for (long co = 0; co < Cout; co++) for (long i = 0; i < Ho * Wo; i++) want[(b * Cout + co) * Ho * Wo + i] = bias[co];
    for (long b = 0; b < B; b++) for (long co = 0; co < Cout; co++) for (long oh = 0; oh < Ho; oh++) for (long ow = 0; ow < Wo; ow++)
        for (long ci = 0; ci < Cig; ci++) for (long kh = 0; kh < KH; kh++) for (long kw = 0; kw < KW; kw++) {
            long g0 = co / Cog, m = co % Cog, ih, iw; double wv;
            if (!tr) { ih = oh * sh - ph + kh * dh; iw = ow * sw - pw + kw * dw; wv = w[((co * Cig + ci) * KH + kh) * KW + kw]; }
            else { long th = oh + ph - kh * dh, tw = ow + pw - kw * dw; if (th < 0 || tw < 0 || th % sh || tw % sw) continue; ih = th / sh; iw = tw / sw;
                   wv = w[(((g0 * Cig + ci) * Cog + m) * KH + kh) * KW + kw]; }
            if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
            want[((b * Cout + co) * Ho + oh) * Wo + ow] += wv * x[((b * Cin + g0 * Cig + ci) * H + ih) * W + iw];
        }
    for (long i = 0; i < no; i++) got[i] = gk_ty<DT>::ld(os[i]);
    char s[128]; snprintf(s, sizeof s, "conv dt%d tr%d 2d%d Cin%ld Cout%ld G%ld ksplit%d", DT, tr, two, Cin, Cout, G, ks);
    check(relerr(got, want) < (DT == GK_DT_f32 ? 1e-5 : 1e-2), s, relerr(got, want));
}
static void test_lstm(int T, int I, int H, int D, int per_dir) {
    int R = 4 * H;
    std::vector<float> x(T * I), wih(D * R * I), whh(D * R * H), bih(D * R), bhh(D * R), h0(D * H), c0(D * H);
    float sc = 1.f / sqrtf(H);
    for (auto &v : x) v = U(-1, 1);
    for (auto &v : wih) v = U(-sc, sc);
    for (auto &v : whh) v = U(-sc, sc);
    for (auto &v : bih) v = U(-sc, sc);
    for (auto &v : bhh) v = U(-sc, sc);
    for (auto &v : h0) v = U(-1, 1);
    for (auto &v : c0) v = U(-1, 1);
    std::vector<float> G((size_t)D * T * R), out(T * D * H, NAN), hn(D * H, NAN), cn(D * H, NAN), hbuf(D * 2 * H);
    int Uu = (H + per_dir - 1) / per_dir, NB = (H + Uu - 1) / Uu;
    std::vector<unsigned> flags(D * NB, 0);
    dim3 g; g.x = (R + 63) / 64; g.y = (T + 63) / 64; g.z = D; dim3 b; b.x = 256;
    float *pG = G.data(); const float *px = x.data(), *pwi = wih.data(), *pbi = bih.data(), *pbh = bhh.data();
    emu_launch(g, b, 0, false, [&] { gk_lstm_proj(pG, px, pwi, pbi, pbh, T, R, I); });
    for (int use_smem = 0; use_smem < 2; use_smem++) {
        std::fill(flags.begin(), flags.end(), 0u);
        size_t smem = 4 * (size_t)((use_smem ? 4 * Uu * H : 0) + H + 8 * Uu);
        dim3 g2; g2.x = D * NB;
        float *po = out.data(), *phn = hn.data(), *pcn = cn.data(), *phb = hbuf.data(); unsigned *pf = flags.data();
        const float *pwh = whh.data(), *ph0 = h0.data(), *pc0 = c0.data();
        emu_launch(g2, b, smem, true, [&] { gk_lstm_rec(pG, pwh, ph0, pc0, po, phn, pcn, phb, pf, T, H, D, NB, Uu, use_smem); });
        // naive
        std::vector<double> want(T * D * H), wh(D * H), wc(D * H);
        for (int d = 0; d < D; d++) {
            std::vector<double> h(h0.begin() + d * H, h0.begin() + d * H + H), c(c0.begin() + d * H, c0.begin() + d * H + H), gg(R);
            for (int s = 0; s < T; s++) {
                int t = d ? T - 1 - s : s;
                for (int r = 0; r < R; r++) { double a = bih[d * R + r] + bhh[d * R + r];
                    for (int k = 0; k < I; k++) a += (double)wih[(d * R + r) * I + k] * x[t * I + k];
                    for (int k = 0; k < H; k++) a += (double)whh[(d * R + r) * H + k] * h[k]; gg[r] = a; }
                auto sg = [](double v) { return 1 / (1 + exp(-v)); };
                for (int j = 0; j < H; j++) { c[j] = sg(gg[H + j]) * c[j] + sg(gg[j]) * tanh(gg[2 * H + j]); h[j] = sg(gg[3 * H + j]) * tanh(c[j]); want[t * D * H + d * H + j] = h[j]; }
            }
            for (int j = 0; j < H; j++) { wh[d * H + j] = h[j]; wc[d * H + j] = c[j]; }
        }
        std::vector<double> got(out.begin(), out.end()), gh(hn.begin(), hn.end()), gc(cn.begin(), cn.end());
        char s[96]; snprintf(s, sizeof s, "lstm T%d H%d D%d NB%d smem%d", T, H, D, NB, use_smem);
        check(relerr(got, want) < 1e-5 && relerr(gh, wh) < 1e-5 && relerr(gc, wc) < 1e-5, s, relerr(got, want));
    }
}
static void test_wnorm() {
    long C = 5, inner = 300;
    std::vector<float> v(C * inner), g(C), o(C * inner, NAN);
    for (auto &a : v) a = U(-1, 1);
    for (auto &a : g) a = U(0.5, 2);
    dim3 gr; gr.x = C; dim3 b; b.x = 256;
    float *po = o.data(); const float *pv = v.data(), *pg = g.data();
    emu_launch(gr, b, 0, false, [&] { gk_wnorm_impl<GK_DT_f32>(inner, po, pv, pg); });
    std::vector<double> want(C * inner), got(o.begin(), o.end());
    for (long c = 0; c < C; c++) { double s = 0; for (long i = 0; i < inner; i++) s += (double)v[c * inner + i] * v[c * inner + i];
        for (long i = 0; i < inner; i++) want[c * inner + i] = g[c] * v[c * inner + i] / sqrt(s); }
    check(relerr(got, want) < 1e-6, "wnorm", relerr(got, want));
}
// gk_stft_pairs (as the host launches it) against a naive DFT: SPEC and POWER
// layouts, center or not, zero tail beyond sig_avail, batch not a multiple of the tile
static void test_stft_pairs(int B, int L, int n, int hop, int center, int power, int avail_cut) {
    gk_fftp P = plan(n, 0);
    if (P.blue) { printf("skip n %d (Bluestein)\n", n); return; }
    int T = 1 + (L + (center ? 2 * (n / 2) : 0) - n) / hop, F = n / 2 + 1;
    P.in_mode = GK_FI_FRAMES; P.out_mode = power ? GK_FO_POWER : GK_FO_SPEC; P.center = center; P.batch = (long long)B * T; P.nframes = T;
    P.hop = hop; P.sig_len = L; P.sig_avail = L - avail_cut; P.sig_stride = L + 3;
    std::vector<float> x((size_t)B * (L + 3)), win(n), out((size_t)B * T * F * (power ? 1 : 2), NAN);
    for (auto &v : x) v = U(-1, 1);
    for (auto &v : win) v = U(0, 1);
    int np = P.m <= 512 ? 8 : P.m <= 1024 ? 2 : 1;
    size_t smem = (size_t)np * P.m * 8 + (size_t)P.m * 12 + (size_t)n * 4 + 8 + (size_t)np * 48;
    dim3 g, bl; bl.x = P.m * np > 2048 ? 256 : 128; g.x = (unsigned)std::min<long long>((P.batch + 2 * np - 1) / (2 * np), 3);
    P.has_window = 1;
    float *po = out.data(); const float *px = x.data(), *pw = win.data();
    emu_launch(g, bl, smem, false, [&] { gk_stft_pairs(P, po, px, pw, np); });
    std::vector<double> want(out.size()), got(out.begin(), out.end());
    for (int b = 0; b < B; b++) for (int t = 0; t < T; t++) for (int k = 0; k < F; k++) {
        double re = 0, im = 0;
        for (int j = 0; j < n; j++) { long pos = (long)t * hop + j - (center ? n / 2 : 0); if (pos < 0) pos = -pos; if (pos >= L) pos = 2 * (L - 1) - pos;
            double v = pos < L - avail_cut ? x[(size_t)b * (L + 3) + pos] * (double)win[j] : 0, a = -2 * M_PI * (double)((long)j * k % n) / n; re += v * cos(a); im += v * sin(a); }
        if (power) want[((size_t)b * T + t) * F + k] = re * re + im * im;
        else { size_t o = (((size_t)b * F + k) * T + t) * 2; want[o] = re; want[o + 1] = im; }
    }
    char w[128]; snprintf(w, sizeof w, "stft pairs B%d L%d n%d hop%d center%d power%d cut%d", B, L, n, hop, center, power, avail_cut);
    check(relerr(got, want) < (power ? 2e-5 : 1e-5) * 4, w, relerr(got, want));
}
int main(int argc, char **argv) {
    const char *only = argc > 1 ? argv[1] : "";
    if (!*only || !strcmp(only, "fft")) {
        for (int n = 2; n <= 40; n++) test_fft(n, 2, false, 0);
        int ns[] = { 64, 400, 997, 1024, 4097 };
        for (int n : ns) test_fft(n, 1, false, 0);
        test_fft(30, 2, false, 1); test_fft(37, 2, false, 1);
        int gs[] = { 2, 7, 48, 400, 997, 4097 };
        for (int n : gs) { test_fft(n, 2, true, 0); test_fft(n, 1, true, 1); }
        emu_table = 0;
        for (int n = 2; n <= 12; n++) test_fft(n, 2, false, n & 1);
        test_fft(400, 2, false, 0); test_fft(997, 1, false, 1);
        emu_table = 1;
    }
    if (!*only || !strcmp(only, "stft")) {
        test_stft_whisper(); test_stft_istft();
        test_stft_pairs(2, 3200, 400, 160, 1, 0, 0);
        test_stft_pairs(1, 1601, 400, 160, 1, 1, 100);
        test_stft_pairs(3, 2000, 512, 128, 1, 0, 0);
        test_stft_pairs(1, 3000, 1024, 256, 0, 0, 0);
        test_stft_pairs(2, 300, 45, 7, 1, 0, 0);   /* odd n_fft 45 = 3*3*5 */
        test_stft_pairs(1, 11, 20, 5, 1, 0, 0);    /* short signal: 3 frames */
        test_stft_pairs(1, 3001, 4000, 1000, 1, 0, 0);   /* np 1 */
    }
    if (!*only || !strcmp(only, "conv")) {
        test_conv<GK_DT_f32>(0, 0, 2, 5, 1, 31, 7, 1, 3, 1, 1, 0, 1, 1, 1, 1, 0);
        test_conv<GK_DT_f32>(0, 0, 1, 12, 1, 100, 8, 1, 5, 1, 2, 0, 2, 1, 3, 4, 0);
        test_conv<GK_DT_f32>(0, 0, 1, 130, 1, 70, 67, 1, 3, 1, 1, 0, 1, 1, 1, 1, 0);
        test_conv<GK_DT_f32>(1, 0, 1, 16, 1, 20, 8, 1, 20, 1, 10, 0, 5, 1, 1, 1, 0);
        test_conv<GK_DT_f32>(1, 0, 2, 12, 1, 17, 12, 1, 3, 1, 2, 0, 1, 1, 1, 12, 1);
        test_conv<GK_DT_f32>(1, 0, 1, 6, 1, 9, 4, 1, 3, 1, 3, 0, 2, 1, 2, 2, 1);
        test_conv<GK_DT_f32>(0, 1, 2, 6, 9, 11, 8, 3, 3, 1, 2, 1, 0, 1, 2, 2, 0);
        test_conv<GK_DT_bf16>(0, 0, 1, 70, 1, 65, 70, 1, 3, 1, 1, 0, 1, 1, 1, 70, 0);
        test_conv<GK_DT_f16>(0, 1, 1, 3, 16, 15, 5, 2, 4, 2, 1, 1, 2, 2, 1, 1, 0);
        test_conv<GK_DT_f32>(0, 0, 1, 24, 1, 70, 200, 1, 3, 1, 1, 0, 1, 1, 1, 1, 0);   /* 128-row tiles, partial */
        test_conv<GK_DT_f32>(1, 0, 1, 260, 1, 9, 260, 1, 4, 1, 2, 0, 1, 1, 1, 2, 0);   /* transposed, 130 per group */
        test_conv<GK_DT_bf16>(0, 1, 1, 16, 5, 7, 256, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0);
        /* polyphase conv_transpose1d: strides 1..10, kernels 1..20, dilation, groups, output_padding, L 1 */
        test_conv<GK_DT_f32>(1, 0, 1, 8, 1, 31, 6, 1, 16, 1, 8, 0, 4, 1, 1, 1, 0);
        test_conv<GK_DT_f32>(1, 0, 2, 6, 1, 13, 4, 1, 7, 1, 3, 0, 3, 1, 1, 2, 2);
        test_conv<GK_DT_f32>(1, 0, 1, 4, 1, 1, 3, 1, 5, 1, 4, 0, 0, 1, 1, 1, 3);
        test_conv<GK_DT_f32>(1, 0, 1, 5, 1, 9, 3, 1, 1, 1, 3, 0, 0, 1, 1, 1, 2); /* K 1 < stride: phases without taps */
        test_conv<GK_DT_f32>(1, 0, 1, 4, 1, 11, 5, 1, 4, 1, 6, 0, 2, 1, 3, 1, 1); /* dilation 3, stride 6 */
        test_conv<GK_DT_f32>(1, 0, 1, 3, 1, 10, 2, 1, 6, 1, 4, 0, 1, 1, 2, 1, 0); /* gcd(stride, dilation) 2 */
        test_conv<GK_DT_f32>(1, 0, 1, 40, 1, 70, 130, 1, 3, 1, 1, 0, 1, 1, 1, 1, 0); /* stride 1, 128-row tiles */
        test_conv<GK_DT_bf16>(1, 0, 1, 9, 1, 20, 7, 1, 20, 1, 10, 0, 5, 1, 1, 1, 0);
        test_conv<GK_DT_f16>(1, 0, 1, 6, 1, 33, 6, 1, 11, 1, 5, 0, 3, 1, 1, 3, 4);
        test_wnorm();
    }
    if (!*only || !strcmp(only, "lstm")) { test_lstm(30, 24, 40, 2, 2); test_lstm(20, 8, 33, 1, 3); test_lstm(6, 8, 200, 1, 2); /* 4U > 256: no prefetch */ }
    printf("emu: %d checks, %d failed\n", checks, fails);
    return fails != 0;
}
