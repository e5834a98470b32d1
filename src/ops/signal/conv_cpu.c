/* >>signal_conv_cpu: the CPU convolution (conv1d, transposed conv1d, conv2d) */
/* ======================= convolution: the CPU backend ======================= */
typedef struct gk__convp { /* the layout of gk_convp in src/ops/signal/conv.cu */
    int64_t B, Cin, H, W, Cout, KH, KW, Ho, Wo, sh, sw, ph, pw, dh, dw, groups;
    int transposed, has_bias;
    int ksplit, pad_; /* gk_convt1 f32: reduction split over ksplit blocks (atomics into a zeroed out) */
} gk__convp;
typedef struct gk__conv_cpu_p {
    gk__convp p;
    gk_dtype dt;
    char *out;
    const char *x, *w, *bias;
} gk__conv_cpu_p;

/* What it computes. Every output element is
       out = acc + bias            (one f32 add, then one rounding to the dtype)
   where acc starts at 0 and adds, in f32, the product w * x of each of the
   output's taps in this order: kh ascending, kw ascending, and within a tap
   the group's input channels ci ascending. An input outside x counts as 0
   (its term w * 0 is added, or the tap is left out: the same for finite
   weights). f16 / bf16 operands are converted to f32 once, on the way in.
   A transposed convolution takes, for each output position, only the taps
   that reach it: (ow + padding - kw * dilation) a multiple of the stride.

   How. Output positions are split by phase: a plain convolution has one
   (position j is ow = j, input iw = j * stride + kw * dilation - padding), a
   transposed one has `stride` of them (phase r: ow = j * stride + r and, for
   its taps, iw = j + c with c = (r + padding - kw * dilation) / stride).
   For each (batch, group, output row, phase) a chunk of positions gets its
   input rows copied to f32 (zero outside x) and split into the `stride`
   residues of iw (1 for a transposed convolution), so that every tap reads
   consecutive floats for consecutive positions. The weights are repacked
   once per call to [group][block of 4 output channels][kh][kw][ci][4]. The
   inner kernel (gk__conv_mk) keeps a block of 4 output channels x 8 positions
   in registers over one tap's input channels; the chunk (about 256 KB of
   input) stays in cache while every block of output channels passes over it.
   Blocks past the last output channel or position are computed from zero
   weights or padding and not stored. The scratch (repacked weights, one
   chunk, the tap tables) is allocated per call; running out returns 1. */
#define GK__CONV_CHUNK_FLOATS 65536

#if defined(__GNUC__) || defined(__clang__)
/* GCC / clang vector extensions: 4 floats, SSE / NEON registers, at any -O level */
typedef float gk__cv4 __attribute__((vector_size(16)));
/* acc[r * 8 + i] += w[ci * 4 + r] * x[ci * xcs + i] for r < 4, i < 8, ci = 0 .. n-1 in order */
static void gk__conv_mk(float *acc, const float *x, int64_t xcs, const float *w, int64_t n) {
    gk__cv4 a0, a1, a2, a3, a4, a5, a6, a7;
    int64_t ci;
    memcpy(&a0, acc, 16); memcpy(&a1, acc + 4, 16); memcpy(&a2, acc + 8, 16); memcpy(&a3, acc + 12, 16);
    memcpy(&a4, acc + 16, 16); memcpy(&a5, acc + 20, 16); memcpy(&a6, acc + 24, 16); memcpy(&a7, acc + 28, 16);
    for (ci = 0; ci < n; ci++, x += xcs, w += 4) {
        gk__cv4 x0, x1;
        gk__cv4 w0 = { w[0], w[0], w[0], w[0] }, w1 = { w[1], w[1], w[1], w[1] };
        gk__cv4 w2 = { w[2], w[2], w[2], w[2] }, w3 = { w[3], w[3], w[3], w[3] };
        memcpy(&x0, x, 16);
        memcpy(&x1, x + 4, 16);
        a0 += w0 * x0; a1 += w0 * x1;
        a2 += w1 * x0; a3 += w1 * x1;
        a4 += w2 * x0; a5 += w2 * x1;
        a6 += w3 * x0; a7 += w3 * x1;
    }
    memcpy(acc, &a0, 16); memcpy(acc + 4, &a1, 16); memcpy(acc + 8, &a2, 16); memcpy(acc + 12, &a3, 16);
    memcpy(acc + 16, &a4, 16); memcpy(acc + 20, &a5, 16); memcpy(acc + 24, &a6, 16); memcpy(acc + 28, &a7, 16);
}
#else
static void gk__conv_mk(float *acc, const float *x, int64_t xcs, const float *w, int64_t n) {
    int64_t ci;
    int r, i;
    for (ci = 0; ci < n; ci++, x += xcs, w += 4)
        for (r = 0; r < 4; r++)
            for (i = 0; i < 8; i++) acc[r * 8 + i] += w[r] * x[i];
}
#endif

/* element i of a dtype-dt array as f32 */
static float gk__conv_ld(gk_dtype dt, const char *base, int64_t i) {
    float v;
    if (dt != GK_F32) return gk__ldf(dt, base + i * (int64_t)gk__dtype_sizes[dt]);
    memcpy(&v, base + i * 4, 4);
    return v;
}

static int gk__conv_cpu(const void *vp) {
    const gk__conv_cpu_p *q = (const gk__conv_cpu_p *)vp;
    const gk__convp *p = &q->p;
    const gk_dtype dt = q->dt;
    const int64_t es = (int64_t)gk__dtype_sizes[dt], G = p->groups, Cig = p->Cin / G, Cog = p->Cout / G, ncb = (Cog + 3) / 4;
    const int64_t KK = p->KH * p->KW, tr = p->transposed;
    const int64_t a = tr ? 1 : p->sw;    /* input step from one position of a phase to the next */
    const int64_t nph = tr ? p->sw : 1;  /* phases */
    const int64_t span = (p->KW - 1) * p->dw / p->sw + 1; /* >= the spread of a phase's taps in its residue rows */
    int64_t TW, Lmax, nwp, nxb, b, g, oh, r, i, k, m, j, j0, cb;
    int64_t *rkh, *rih, *tkw, *tc, *txo, *two;
    float *wp, *xb, acc[32];
    void *mem;
    /* chunk: about GK__CONV_CHUNK_FLOATS input floats, 8 .. 1024 positions (a multiple of 8) */
    TW = GK__CONV_CHUNK_FLOATS / ((Cig > 0 ? Cig : 1) * p->KH * a);
    TW = TW < 8 ? 8 : TW > 1024 ? 1024 : TW / 8 * 8;
    m = ((p->Wo + nph - 1) / nph + 7) / 8 * 8; /* the most positions of a phase, rounded up to 8 */
    if (TW > m) TW = m;
    Lmax = TW + span;
    nwp = G * ncb * KK * Cig * 4;
    nxb = p->KH * a * Cig * Lmax;
    mem = GPUKIT_MALLOC(sizeof(int64_t) * (size_t)(2 * p->KH + 2 * p->KW + 2 * KK) + sizeof(float) * (size_t)(nwp + nxb) + 16);
    if (!mem) return 1;
    rkh = (int64_t *)mem;  /* per input row of an output row: its kh, its ih */
    rih = rkh + p->KH;
    tkw = rih + p->KH;     /* per tap along W of a phase: its kw, its input offset c */
    tc = tkw + p->KW;
    txo = tc + p->KW;      /* per tap (kh, kw): its offset in the chunk and in a weight block */
    two = txo + KK;
    wp = (float *)(two + KK);
    xb = wp + nwp;

    /* weights -> wp[g][cb][kh][kw][ci][4], zero past the group's last output channel */
    memset(wp, 0, sizeof(float) * (size_t)nwp);
    for (g = 0; g < G; g++)
        for (m = 0; m < Cog; m++)
            for (i = 0; i < Cig; i++)
                for (k = 0; k < KK; k++) {
                    int64_t src = tr ? ((g * Cig + i) * Cog + m) * KK + k : ((g * Cog + m) * Cig + i) * KK + k;
                    wp[(((g * ncb + m / 4) * KK + k) * Cig + i) * 4 + m % 4] = gk__conv_ld(dt, q->w, src);
                }

    for (b = 0; b < p->B; b++)
        for (g = 0; g < G; g++)
            for (oh = 0; oh < p->Ho; oh++) {
                int64_t nr = 0, kh;
                for (kh = 0; kh < p->KH; kh++) { /* the input rows of output row oh */
                    int64_t ih;
                    if (!tr) ih = oh * p->sh - p->ph + kh * p->dh;
                    else {
                        int64_t t = oh + p->ph - kh * p->dh;
                        if (t < 0 || t % p->sh) continue;
                        ih = t / p->sh;
                    }
                    if (ih < 0 || ih >= p->H) continue;
                    rkh[nr] = kh;
                    rih[nr] = ih;
                    nr++;
                }
                for (r = 0; r < nph; r++) {
                    int64_t npos = tr ? (p->Wo - r + p->sw - 1) / p->sw : p->Wo, nkw = 0, nt = 0, cmin = 0, cmax = 0, kw, L;
                    for (kw = 0; kw < p->KW; kw++) { /* the taps along W of phase r */
                        int64_t c;
                        if (!tr) c = kw * p->dw - p->pw;
                        else {
                            int64_t t = r + p->pw - kw * p->dw;
                            if (t % p->sw) continue;
                            c = t / p->sw; /* exact */
                        }
                        if (nkw == 0 || c < cmin) cmin = c;
                        if (nkw == 0 || c > cmax) cmax = c;
                        tkw[nkw] = kw;
                        tc[nkw] = c;
                        nkw++;
                    }
                    L = TW + (cmax - cmin) / a + 1; /* residue row length (<= Lmax) */
                    for (i = 0; i < nr; i++)        /* taps in (kh, kw) order */
                        for (k = 0; k < nkw; k++) {
                            int64_t u = tc[k] - cmin;
                            txo[nt] = ((i * a + u % a) * Cig) * L + u / a;
                            two[nt] = (rkh[i] * p->KW + tkw[k]) * Cig * 4;
                            nt++;
                        }
                    for (j0 = 0; j0 < npos; j0 += TW) {
                        int64_t jn = npos - j0 < TW ? npos - j0 : TW, Lf = (jn + 7) / 8 * 8 + (cmax - cmin) / a + 1, ci, res;
                        /* the chunk: xb[i][res][ci][m] = x at iw = (j0 + m) * a + res + cmin of row rih[i], 0 outside */
                        for (i = 0; i < nr && nt > 0; i++)
                            for (res = 0; res < a; res++)
                                for (ci = 0; ci < Cig; ci++) {
                                    float *d = xb + ((i * a + res) * Cig + ci) * L;
                                    int64_t base = ((b * p->Cin + g * Cig + ci) * p->H + rih[i]) * p->W, iw0 = j0 * a + res + cmin;
                                    if (a == 1 && dt == GK_F32) { /* a contiguous run: zeros, a copy, zeros */
                                        int64_t lo = iw0 < 0 ? -iw0 : 0, hi = p->W - iw0 < Lf ? p->W - iw0 : Lf;
                                        if (lo > Lf) lo = Lf;
                                        if (hi < lo) hi = lo;
                                        memset(d, 0, sizeof(float) * (size_t)lo);
                                        if (hi > lo) memcpy(d + lo, q->x + (base + iw0 + lo) * 4, sizeof(float) * (size_t)(hi - lo));
                                        memset(d + hi, 0, sizeof(float) * (size_t)(Lf - hi));
                                    } else
                                        for (m = 0; m < Lf; m++) {
                                            int64_t iw = iw0 + m * a;
                                            d[m] = iw >= 0 && iw < p->W ? gk__conv_ld(dt, q->x, base + iw) : 0.0f;
                                        }
                                }
                        for (cb = 0; cb < ncb; cb++) {
                            const float *wb = wp + (g * ncb + cb) * KK * Cig * 4;
                            int64_t nrow = Cog - cb * 4 < 4 ? Cog - cb * 4 : 4, t, rr;
                            for (j = 0; j < jn; j += 8) {
                                int64_t nj = jn - j < 8 ? jn - j : 8;
                                memset(acc, 0, sizeof acc);
                                for (t = 0; t < nt; t++) gk__conv_mk(acc, xb + txo[t] + j, L, wb + two[t], Cig);
                                for (rr = 0; rr < nrow; rr++) {
                                    int64_t co = g * Cog + cb * 4 + rr, o = ((b * p->Cout + co) * p->Ho + oh) * p->Wo;
                                    float bias = p->has_bias ? gk__conv_ld(dt, q->bias, co) : 0.0f;
                                    for (i = 0; i < nj; i++) {
                                        int64_t ow = (j0 + j + i) * nph + r;
                                        float v = acc[rr * 8 + i] + bias;
                                        if (dt == GK_F32) memcpy(q->out + (o + ow) * 4, &v, 4);
                                        else gk__stf(dt, q->out + (o + ow) * es, v);
                                    }
                                }
                            }
                        }
                    }
                }
            }
    GPUKIT_FREE(mem);
    return 0;
}
