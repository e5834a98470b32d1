/* gkb.h - the helpers the bench programs share (bench/bench_*.c).
   Include it after gpukit.h (or gpukit_llm.h), which the program includes
   with its implementation; everything here is static (each GKB_MAYBE_UNUSED,
   so a program takes what it needs), C99 and C++ (11) alike, and keeps no
   state of its own beyond the structs the caller holds.

     statistics   gkb_median, gkb_kth                    (each sorts a copy)
     clocks       gkb_now_ms                             (host, monotonic)
     GPU timing   gkb_timer_init / _free / _start / _stop, gkb_time_op
                                                          (gk_event_* around gk ops)
     arguments    gkb_arg, gkb_json_arg                  (--json PATH and the like)
     JSON         gkb_commit, gkb_utc_date, gkb_json_escape, gkb_json_open / _to /
                  _header / _obj / _arr / _row / _rowf / _end / _str / _int / _num /
                  _bool / _close                         (one result a line)
     checks       GKB_CHECK(ctx, call)                   (print the error, exit 1) */
#ifndef GKB_H
#define GKB_H
#include "../gpukit.h"
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__GNUC__) || defined(__clang__)
#define GKB_MAYBE_UNUSED __attribute__((unused))
#define GKB_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define GKB_MAYBE_UNUSED
#define GKB_PRINTF(fmt, args)
#endif

/* a call that must succeed: else prints "call: <the context's error>" and exits 1 */
#define GKB_CHECK(ctx, call)                                                                       \
    do {                                                                                           \
        gk_status gkb_s_ = (call);                                                                 \
        if (gkb_s_ != GK_OK) { printf("%s: %s\n", #call, gk_last_error(ctx)); exit(1); }           \
    } while (0)

/* ---- statistics ------------------------------------------------------------------------- */

GKB_MAYBE_UNUSED static int gkb__cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
/* a sorted copy of v[0 .. n-1] in `small` (n <= 64) or on the heap; NULL when out of memory */
GKB_MAYBE_UNUSED static double *gkb__sorted(const double *v, int n, double *small) {
    double *c = n <= 64 ? small : (double *)malloc(sizeof(double) * (size_t)n);
    if (!c) return NULL;
    memcpy(c, v, sizeof(double) * (size_t)n);
    qsort(c, (size_t)n, sizeof(double), gkb__cmp_d);
    return c;
}
/* the k-th smallest (0-based) of v[0 .. n-1], v left as it is: gkb_kth(v, n, n / 2) is the
   upper median, gkb_kth(v, n, n / 4) the first quartile; 0 when n < 1, k is clamped */
GKB_MAYBE_UNUSED static double gkb_kth(const double *v, int n, int k) {
    double small[64], *c, r;
    if (n < 1) return 0;
    if (k < 0) k = 0;
    if (k >= n) k = n - 1;
    if (!(c = gkb__sorted(v, n, small))) return 0;
    r = c[k];
    if (c != small) free(c);
    return r;
}
/* the median of v[0 .. n-1] (the mean of the two middle values when n is even), v left as it is;
   0 when n < 1 */
GKB_MAYBE_UNUSED static double gkb_median(const double *v, int n) {
    double small[64], *c, r;
    if (n < 1) return 0;
    if (!(c = gkb__sorted(v, n, small))) return 0;
    r = n % 2 ? c[n / 2] : 0.5 * (c[n / 2 - 1] + c[n / 2]);
    if (c != small) free(c);
    return r;
}

/* ---- host clock ------------------------------------------------------------------------- */

/* milliseconds of a monotonic wall clock (an arbitrary origin): differences only */
GKB_MAYBE_UNUSED static double gkb_now_ms(void) {
#if defined(CLOCK_MONOTONIC)
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
#else /* a system header came before gpukit.h without POSIX: processor time */
    return (double)clock() * 1000.0 / CLOCKS_PER_SEC;
#endif
}

/* ---- GPU timing with gk events ---------------------------------------------------------- */

/* two events of a context; `stream` (NULL: the current one) is where start and stop record them */
typedef struct gkb_timer {
    gk_ctx *ctx;
    gk_stream *stream;
    gk_event *e0, *e1;
} gkb_timer;

GKB_MAYBE_UNUSED static gk_status gkb_timer_init(gkb_timer *t, gk_ctx *ctx) {
    gk_status st;
    memset(t, 0, sizeof *t);
    t->ctx = ctx;
    st = gk_event_create(ctx, &t->e0);
    if (st == GK_OK) st = gk_event_create(ctx, &t->e1);
    return st;
}
GKB_MAYBE_UNUSED static void gkb_timer_free(gkb_timer *t) {
    if (t->e0) gk_event_destroy(t->ctx, t->e0);
    if (t->e1) gk_event_destroy(t->ctx, t->e1);
    t->e0 = t->e1 = NULL;
}
/* records the start event */
GKB_MAYBE_UNUSED static gk_status gkb_timer_start(gkb_timer *t) { return gk_event_record(t->ctx, t->e0, t->stream); }
/* records the stop event, waits for it; *ms: the GPU time between the two */
GKB_MAYBE_UNUSED static gk_status gkb_timer_stop(gkb_timer *t, double *ms) {
    float f = 0;
    gk_status st = gk_event_record(t->ctx, t->e1, t->stream);
    if (st == GK_OK) st = gk_event_sync(t->ctx, t->e1);
    if (st == GK_OK) st = gk_event_elapsed_ms(t->ctx, t->e0, t->e1, &f);
    *ms = st == GK_OK ? (double)f : 0;
    return st;
}

/* one call of the op under test; i: the call's index within its run (e.g. which weight copy) */
typedef gk_status (*gkb_op_fn)(void *user, int i);
/* fn(user, i) for i = 0 .. warmup-1 untimed (then gk_sync when `sync`: the timed calls are issued to
   an idle GPU), then `runs` runs of fn(user, i), i = 0 .. inner-1, back to back between the timer's
   two events: ms[r] = the run's GPU time / inner. Stops at the first call that fails and returns its
   status (the context's error says why). */
GKB_MAYBE_UNUSED static gk_status gkb_time_op(gkb_timer *t, gkb_op_fn fn, void *user, int warmup, int sync, int runs, int inner,
                                              double *ms) {
    gk_status st = GK_OK;
    int r, i;
    for (i = 0; i < warmup && st == GK_OK; i++) st = fn(user, i);
    if (st == GK_OK && sync) st = gk_sync(t->ctx);
    for (r = 0; r < runs && st == GK_OK; r++) {
        st = gkb_timer_start(t);
        for (i = 0; i < inner && st == GK_OK; i++) st = fn(user, i);
        if (st == GK_OK) st = gkb_timer_stop(t, &ms[r]);
        if (st == GK_OK && inner > 1) ms[r] /= inner;
    }
    return st;
}

/* ---- arguments -------------------------------------------------------------------------- */

/* argv[*i] is `name` and a value follows: *value = that value, *i moves onto it, returns 1; else 0 */
GKB_MAYBE_UNUSED static int gkb_arg(int argc, char **argv, int *i, const char *name, const char **value) {
    if (strcmp(argv[*i], name) != 0 || *i + 1 >= argc) return 0;
    *value = argv[++*i];
    return 1;
}
/* the PATH of the last "--json PATH" in argv (other arguments skipped); NULL without one */
GKB_MAYBE_UNUSED static const char *gkb_json_arg(int argc, char **argv) {
    const char *path = NULL;
    int i;
    for (i = 1; i < argc; i++) gkb_arg(argc, argv, &i, "--json", &path);
    return path;
}

/* ---- JSON ------------------------------------------------------------------------------- */

/* the commit the results belong to: $GK_COMMIT (tools/gpu_check.sh sets it), else "unknown" */
GKB_MAYBE_UNUSED static const char *gkb_commit(void) {
    const char *c = getenv("GK_COMMIT");
    return c && *c ? c : "unknown";
}
/* t (0: now) as "2026-11-27T12:34:56Z" (UTC) into buf */
GKB_MAYBE_UNUSED static void gkb_utc_date(char *buf, size_t cap, time_t t) {
    struct tm *tm;
    if (!t) t = time(NULL);
    tm = gmtime(&t);
    if (!tm || strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", tm) == 0) snprintf(buf, cap, "unknown");
}
/* s as a JSON string, quotes included (NULL: null); bytes from 0x80 up (UTF-8) go through as they are */
GKB_MAYBE_UNUSED static void gkb_json_escape(FILE *f, const char *s) {
    if (!s) { fputs("null", f); return; }
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') { fputc('\\', f); fputc(c, f); }
        else if (c == '\n') fputs("\\n", f);
        else if (c == '\r') fputs("\\r", f);
        else if (c == '\t') fputs("\\t", f);
        else if (c < 0x20) fprintf(f, "\\u%04x", (unsigned)c);
        else fputc(c, f);
    }
    fputc('"', f);
}

/* A JSON writer: objects and arrays nest (up to GKB_JSON_DEPTH open), each item of a block goes
   on a line of its own, indented two spaces a level, except within a row (gkb_json_row: an object
   on one line, a result). Every call does nothing when no file is open (no --json given), so a
   program calls them whether or not it writes JSON. Keys are escaped, and so are string values;
   a number that is not finite is written as null. */
#define GKB_JSON_DEPTH 16
typedef struct gkb_json {
    FILE *f;                      /* NULL: nothing is written */
    int own;                      /* gkb_json_close closes f */
    int depth;                    /* blocks open */
    int n[GKB_JSON_DEPTH];        /* items written in each open block */
    char close[GKB_JSON_DEPTH];   /* '}' or ']' */
    char inl[GKB_JSON_DEPTH];     /* 1: the block is on one line */
} gkb_json;

/* path NULL: j writes nothing, returns 0. Else creates the file: 0, or -1 (and says so on stdout)
   when it cannot */
GKB_MAYBE_UNUSED static int gkb_json_open(gkb_json *j, const char *path) {
    memset(j, 0, sizeof *j);
    if (!path) return 0;
    if (!(j->f = fopen(path, "w"))) {
        printf("cannot write %s: %s\n", path, strerror(errno));
        return -1;
    }
    j->own = 1;
    return 0;
}
/* writes to an open stream (stdout) that gkb_json_close leaves open */
GKB_MAYBE_UNUSED static void gkb_json_to(gkb_json *j, FILE *f) {
    memset(j, 0, sizeof *j);
    j->f = f;
}
/* what comes before an item: the comma, the line break and indent (or a space within a row), the key */
GKB_MAYBE_UNUSED static int gkb__json_item(gkb_json *j, const char *key) {
    int d = j->depth - 1;
    if (!j->f) return 0;
    if (d >= 0) {
        if (j->n[d]++) fputc(',', j->f);
        if (!j->inl[d]) fprintf(j->f, "\n%*s", 2 * j->depth, "");
        else if (j->n[d] > 1) fputc(' ', j->f);
        if (j->close[d] == '}') {
            gkb_json_escape(j->f, key ? key : "");
            fputs(": ", j->f);
        }
    }
    return 1;
}
GKB_MAYBE_UNUSED static void gkb__json_open(gkb_json *j, const char *key, char open, int inl) {
    if (!gkb__json_item(j, key)) return;
    fputc(open, j->f);
    if (j->depth == GKB_JSON_DEPTH) { /* too deep: the file is cut here */
        fputs("\n", j->f);
        if (j->own) fclose(j->f);
        j->f = NULL;
        return;
    }
    j->n[j->depth] = 0;
    j->close[j->depth] = open == '{' ? '}' : ']';
    j->inl[j->depth] = (char)(inl || (j->depth > 0 && j->inl[j->depth - 1]));
    j->depth++;
}
/* opens an object (key: its name in the enclosing object; NULL at the top or in an array) */
GKB_MAYBE_UNUSED static void gkb_json_obj(gkb_json *j, const char *key) { gkb__json_open(j, key, '{', 0); }
/* opens an array */
GKB_MAYBE_UNUSED static void gkb_json_arr(gkb_json *j, const char *key) { gkb__json_open(j, key, '[', 0); }
/* opens an object written on one line: one result */
GKB_MAYBE_UNUSED static void gkb_json_row(gkb_json *j, const char *key) { gkb__json_open(j, key, '{', 1); }
/* closes the innermost object or array */
GKB_MAYBE_UNUSED static void gkb_json_end(gkb_json *j) {
    int d;
    if (!j->f || j->depth == 0) return;
    d = --j->depth;
    if (!j->inl[d] && j->n[d]) fprintf(j->f, "\n%*s", 2 * d, "");
    fputc(j->close[d], j->f);
    if (d == 0) fputc('\n', j->f);
}
GKB_MAYBE_UNUSED static void gkb_json_str(gkb_json *j, const char *key, const char *s) {
    if (gkb__json_item(j, key)) gkb_json_escape(j->f, s);
}
GKB_MAYBE_UNUSED static void gkb_json_int(gkb_json *j, const char *key, long long v) {
    if (gkb__json_item(j, key)) fprintf(j->f, "%lld", v);
}
/* v with `prec` digits after the point (as %.*f); null when v is NaN or infinite */
GKB_MAYBE_UNUSED static void gkb_json_num(gkb_json *j, const char *key, double v, int prec) {
    if (!gkb__json_item(j, key)) return;
    if (v == v && v - v == 0) fprintf(j->f, "%.*f", prec, v);
    else fputs("null", j->f);
}
/* a row in an array whose text the caller formats (printf): one object, on one line, whose string
   values need no escaping (names the program chose); the comma and the line break come from here */
GKB_MAYBE_UNUSED GKB_PRINTF(2, 3) static void gkb_json_rowf(gkb_json *j, const char *fmt, ...) {
    va_list ap;
    if (!gkb__json_item(j, NULL)) return;
    va_start(ap, fmt);
    vfprintf(j->f, fmt, ap);
    va_end(ap);
}
GKB_MAYBE_UNUSED static void gkb_json_bool(gkb_json *j, const char *key, int v) {
    if (gkb__json_item(j, key)) fputs(v ? "true" : "false", j->f);
}
/* opens the top-level object with the keys every bench file has: "bench", "commit" ($GK_COMMIT),
   "device" and "date" (UTC, of the time `date`; 0: now) */
GKB_MAYBE_UNUSED static void gkb_json_header(gkb_json *j, const char *bench, const char *device, time_t date) {
    char buf[32];
    gkb_utc_date(buf, sizeof buf, date);
    gkb_json_obj(j, NULL);
    gkb_json_str(j, "bench", bench);
    gkb_json_str(j, "commit", gkb_commit());
    gkb_json_str(j, "device", device);
    gkb_json_str(j, "date", buf);
}
/* closes what is still open, then the file (not a stream given to gkb_json_to, which is flushed):
   0, or -1 when writing failed */
GKB_MAYBE_UNUSED static int gkb_json_close(gkb_json *j) {
    int bad;
    if (!j->f) return 0;
    while (j->depth) gkb_json_end(j);
    bad = ferror(j->f) != 0;
    if (j->own) bad |= fclose(j->f) != 0;
    else bad |= fflush(j->f) != 0;
    j->f = NULL;
    return bad ? -1 : 0;
}
#endif
