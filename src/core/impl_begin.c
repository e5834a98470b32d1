/* ======================================================================== */
/*                              IMPLEMENTATION                              */
/* ======================================================================== */
#ifdef GPUKIT_IMPLEMENTATION
#ifndef GPUKIT_IMPLEMENTATION_DONE
#define GPUKIT_IMPLEMENTATION_DONE

#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#include <direct.h>
#include <io.h>
#include <process.h>
#else
#if !defined(_POSIX_C_SOURCE) && !defined(__cplusplus)
/* pthreads, dlopen, clock_gettime, mkdir: declared by POSIX headers */
#endif
#include <dlfcn.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <unistd.h>
#include <time.h>
#endif
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpukit_kernels.h"

#if defined(GPUKIT_MALLOC) && defined(GPUKIT_FREE) && defined(GPUKIT_REALLOC)
/* ok */
#elif !defined(GPUKIT_MALLOC) && !defined(GPUKIT_FREE) && !defined(GPUKIT_REALLOC)
#define GPUKIT_MALLOC(sz) malloc(sz)
#define GPUKIT_REALLOC(p, sz) realloc(p, sz)
#define GPUKIT_FREE(p) free(p)
#else
#error "Must define all or none of GPUKIT_MALLOC, GPUKIT_FREE, and GPUKIT_REALLOC."
#endif

#ifdef __cplusplus
#define GK__CAST(T, x) (static_cast<T>(x))
#define GK__RCAST(T, x) (reinterpret_cast<T>(x))
#else
#define GK__CAST(T, x) ((T)(x))
#define GK__RCAST(T, x) ((T)(x))
#endif
#define GK__ALLOC(T, n) GK__CAST(T *, GPUKIT_MALLOC(sizeof(T) * (size_t)(n)))
#define GK__CALLOC(T, n) GK__CAST(T *, gk__calloc(sizeof(T) * (size_t)(n)))
#define GK__UNUSED(x) ((void)(x))
#if defined(__GNUC__) || defined(__clang__)
#define GK__MAYBE_UNUSED __attribute__((unused)) /* helpers for ops still to come */
#else
#define GK__MAYBE_UNUSED
#endif
#define GK__MIN(a, b) ((a) < (b) ? (a) : (b))
#define GK__MAX(a, b) ((a) > (b) ? (a) : (b))

#if defined(__cplusplus)
#define GK__TLS thread_local
#elif defined(_MSC_VER)
#define GK__TLS __declspec(thread)
#else
#define GK__TLS __thread
#endif

static void *gk__calloc(size_t n) {
    void *p = GPUKIT_MALLOC(n ? n : 1);
    if (p) memset(p, 0, n ? n : 1);
    return p;
}
static char *gk__strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *p = GK__CAST(char *, GPUKIT_MALLOC(n));
    if (p) memcpy(p, s, n);
    return p;
}

