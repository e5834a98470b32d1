#ifndef GPUKIT_H
#define GPUKIT_H

/* The implementation needs POSIX (clock_gettime, dlopen) under -std=c99:
   include gpukit.h before any system header in that file. */
#if defined(GPUKIT_IMPLEMENTATION) && !defined(_WIN32) && !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif
/* mingw-w64: C99 printf (%zu, %lld) in the implementation */
#if defined(GPUKIT_IMPLEMENTATION) && defined(__MINGW32__) && !defined(__USE_MINGW_ANSI_STDIO)
#define __USE_MINGW_ANSI_STDIO 1
#endif

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef GKDEF
#ifdef GPUKIT_STATIC
/* private to the including file; unused functions are no warning there */
#if defined(__GNUC__) || defined(__clang__)
#define GKDEF static __attribute__((unused))
#else
#define GKDEF static
#endif
#else
#define GKDEF extern
#endif
#endif

#define GK_VERSION_MAJOR 0
#define GK_VERSION_MINOR 1
#define GK_VERSION_PATCH 0
#define GK_VERSION_STRING "0.1.0"
#define GK_MAX_DIMS 8

#if defined(__MINGW32__)
#define GK__PRINTF(a, b) __attribute__((format(gnu_printf, a, b)))
#elif defined(__GNUC__) || defined(__clang__)
#define GK__PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GK__PRINTF(a, b)
#endif

typedef struct gk_ctx gk_ctx;

