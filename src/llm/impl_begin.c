/* ======================================================================== */
/*                          IMPLEMENTATION                                  */
/* ======================================================================== */
#ifdef GPUKIT_LLM_IMPLEMENTATION
#ifndef GPUKIT_LLM_IMPLEMENTATION_DONE
#define GPUKIT_LLM_IMPLEMENTATION_DONE

#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <math.h>
#include <errno.h>
#include <limits.h>

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

