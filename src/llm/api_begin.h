#ifndef GPUKIT_LLM_H
#define GPUKIT_LLM_H

#include "gpukit.h"
#include <stddef.h>
#include <stdint.h>

#ifndef GKLLMDEF
#ifdef GPUKIT_LLM_STATIC
/* private to the including file; unused functions are no warning there */
#if defined(__GNUC__) || defined(__clang__)
#define GKLLMDEF static __attribute__((unused))
#else
#define GKLLMDEF static
#endif
#else
#define GKLLMDEF extern
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

