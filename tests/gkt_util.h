/* gkt_util.h - helpers the model tests share (test_whisper_*.c,
   test_llm_model.c, test_kokoro_model.c, test_nn.c through
   test_nn_fixtures.h, and kokoro_folder.h, which bench_kokoro.c uses too):
   writing and copying the files of a model folder, the relative error of
   float arrays, and argmax. It needs only the C library. */
#ifndef GKT_UTIL_H
#define GKT_UTIL_H
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#define GKT_UTIL_UNUSED __attribute__((unused))
#else
#define GKT_UTIL_UNUSED
#endif

/* text into dir/name; a file that cannot be written ends the program (exit 2) */
GKT_UTIL_UNUSED static void gkt_put_file(const char *dir, const char *name, const char *text) {
    char p[512];
    FILE *f;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    f = fopen(p, "wb");
    if (!f) { printf("cannot write %s\n", p); exit(2); }
    fputs(text, f);
    fclose(f);
}
/* copies the file from to the file to; 1 on success */
GKT_UTIL_UNUSED static int gkt_copy_file(const char *from, const char *to) {
    FILE *a = fopen(from, "rb"), *b = a ? fopen(to, "wb") : NULL;
    char buf[65536];
    size_t k;
    int ok = a && b;
    while (ok && (k = fread(buf, 1, sizeof buf, a)) > 0) ok = fwrite(buf, 1, k, b) == k;
    if (a) fclose(a);
    if (b) fclose(b);
    return ok;
}
/* max |a - b| / max |b| over n floats (max |a - b| when b is all zero); a
   NaN in either array gives infinity */
GKT_UTIL_UNUSED static double gkt_max_err(const float *a, const float *b, size_t n) {
    double num = 0, den = 0;
    size_t i;
    for (i = 0; i < n; i++) {
        double d = fabs((double)a[i] - (double)b[i]);
        if (d != d) return INFINITY;
        if (d > num) num = d;
        if (fabs((double)b[i]) > den) den = fabs((double)b[i]);
    }
    return den > 0 ? num / den : num;
}
/* the index of the first largest of x[0..n) */
GKT_UTIL_UNUSED static int32_t gkt_argmax(const float *x, int64_t n) {
    int64_t i, b = 0;
    for (i = 1; i < n; i++)
        if (x[i] > x[b]) b = i;
    return (int32_t)b;
}
#endif
