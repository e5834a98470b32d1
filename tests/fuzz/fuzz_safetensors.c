/* libFuzzer harness: safetensors header validation and reads. */
#define GPUKIT_IMPLEMENTATION
#include "gpukit.h"
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    gk_safetensors *st;
    size_t i;
    if (gk_st_open_memory(data, size, &st) != GK_OK) return 0;
    for (i = 0; i < gk_st_count(st); i++) {
        const gk_st_tensor_info *t = gk_st_tensor(st, i);
        /* validation guarantees nbytes fits inside the input */
        if (t->nbytes > size) abort();
        if (t->numel <= (1u << 20)) {
            float *f = (float *)malloc((size_t)t->numel * 8 + 8);
            if (f) {
                gk_st_read(st, t->name, GK_F32, f, (size_t)t->numel * 4);
                gk_st_read(st, t->name, GK_BF16, f, (size_t)t->numel * 2);
                gk_st_read(st, t->name, GK_I64, f, (size_t)t->numel * 8);
                gk_st_read_raw(st, t->name, f, (size_t)t->numel * 8);
                free(f);
            }
        }
        if (gk_st_find(st, t->name) != t) abort();
    }
    (void)gk_st_metadata(st, "format");
    gk_st_close(st);
    return 0;
}
