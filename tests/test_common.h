/* Minimal test helpers shared by the gpukit_llm tests. */
#ifndef GK_TEST_COMMON_H
#define GK_TEST_COMMON_H
#include <stdio.h>
#include <string.h>
static int g_pass = 0, g_fail = 0;
#define CHECK(cond, ...)                                                          \
    do {                                                                          \
        if (cond) g_pass++;                                                       \
        else {                                                                    \
            g_fail++;                                                             \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);       \
            fprintf(stderr, __VA_ARGS__);                                         \
            fputc('\n', stderr);                                                  \
        }                                                                         \
    } while (0)
/* status check with the error text in the report */
#define CHECK_ST(expr, want)                                                      \
    do {                                                                          \
        gk_status st__ = (expr);                                                  \
        CHECK(st__ == (want), "got %s (%s), want %s", gk_status_name(st__),       \
              gk_last_error(NULL), gk_status_name(want));                         \
    } while (0)
static int test_summary(void) {
    printf("%d passed, %d failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}
#endif
