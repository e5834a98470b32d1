/* gkt_mat.h - helpers the matrix-product tests share (test_matmul.c,
   test_gemv.c): activations in f64, random values exact in a dtype, uploads
   from f64, and the normwise relative error against an error scale. */
#ifndef GKT_MAT_H
#define GKT_MAT_H
#include "gkt.h"

GKT_MAYBE_UNUSED static double act_ref(double v, gk_act a) {
    switch (a) {
    case GK_ACT_GELU: return 0.5 * v * (1 + erf(v / sqrt(2.0)));
    case GK_ACT_GELU_TANH: return 0.5 * v * (1 + tanh(0.79788456080286535588 * (v + 0.044715 * v * v * v)));
    case GK_ACT_SILU: return v / (1 + exp(-v));
    case GK_ACT_RELU: return v > 0 ? v : 0;
    default: return v;
    }
}
/* values exactly representable in dt */
GKT_MAYBE_UNUSED static void rnd(gk_dtype dt, double *v, int64_t n) {
    int64_t i;
    char tmp[8];
    for (i = 0; i < n; i++) {
        double x = gkt_uniform(-1, 1);
        gk_convert(dt, tmp, GK_F64, &x, 1);
        gk_convert(GK_F64, &v[i], dt, tmp, 1);
    }
}
GKT_MAYBE_UNUSED static gk_tensor up(gk_ctx *c, gk_dtype dt, int nd, const int64_t *shape, const double *v) {
    gk_tensor t;
    int64_t n = 1, i;
    void *b;
    for (i = 0; i < nd; i++) n *= shape[i];
    b = malloc((size_t)n * 8 + 8);
    gk_convert(dt, b, GK_F64, v, (size_t)n);
    if (gk_tensor_from_host(c, dt, nd, shape, b, &t) != GK_OK) { printf("upload: %s\n", gk_last_error(c)); exit(2); }
    free(b);
    return t;
}
/* ||a - b|| / ||mag||, mag holding per element the magnitudes the rounding
   errors scale with (|A||B| and the epilogue terms): a sum that cancels to
   nearly 0 is not held to a relative bound it cannot meet */
GKT_MAYBE_UNUSED static double nrel(const double *a, const double *b, const double *mag, int64_t n) {
    double num = 0, den = 0;
    int64_t i;
    for (i = 0; i < n; i++) {
        if (isnan(a[i])) return INFINITY;
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += mag[i] * mag[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

#endif
