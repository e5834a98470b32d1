/* ======================================================================== */
/*                          IMPLEMENTATION                                  */
/* ======================================================================== */
#ifdef GPUKIT_LLM_IMPLEMENTATION
#ifndef GPUKIT_LLM_IMPLEMENTATION_DONE
#define GPUKIT_LLM_IMPLEMENTATION_DONE

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <math.h>
#include <errno.h>
#include <limits.h>

/* Host memory: the same user macros as gpukit.h (all or none), so one
   definition before including either header covers both, whichever
   translation unit holds each implementation. Every allocation and free of
   this file goes through them (gk__u_malloc / gk__u_calloc / gk__u_grow /
   gk__u_free in >>impl_common); memory handed to the caller is freed by this
   file's own functions (gk_buf_free, gk_ids_free, gk_read_file_free, ...). */
#if defined(GPUKIT_MALLOC) && defined(GPUKIT_FREE) && defined(GPUKIT_REALLOC)
/* ok: the user's, or gpukit.h's defaults when its implementation came first */
#elif !defined(GPUKIT_MALLOC) && !defined(GPUKIT_FREE) && !defined(GPUKIT_REALLOC)
#define GPUKIT_MALLOC(sz) malloc(sz)
#define GPUKIT_REALLOC(p, sz) realloc(p, sz)
#define GPUKIT_FREE(p) free(p)
#else
#error "Must define all or none of GPUKIT_MALLOC, GPUKIT_FREE, and GPUKIT_REALLOC."
#endif

#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#else
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

