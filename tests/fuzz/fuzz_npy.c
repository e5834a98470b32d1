/* libFuzzer harness: Kokoro's voice files and phoneme text. The first byte
   picks what the rest is read as:
     0, 3, ...  a voice file (raw, .npy, .npz stored or deflated, safetensors;
                gk_kokoro_voice_load_memory), alone and in a blend of its
                first two voices by name when it is a bundle: on success,
                510 finite rows, and the style rows in bounds
     1, 4, ...  a phoneme string cut into chunks (gk_kokoro_phoneme_chunks,
                limit from the second byte): every chunk within the limit,
                its span inside the input and in order, its phonemes the
                span's bytes less whitespace
     2, 5, ...  espeak-ng output mapped to Kokoro's alphabet
                (gk_kokoro_map_espeak, the language from the second byte):
                valid UTF-8 out */
#define GPUKIT_IMPLEMENTATION
#include "gpukit.h"
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"
#include <stdlib.h>
#include <string.h>

static void voice(const unsigned char *d, size_t n) {
    gk_kokoro_voice v;
    const float *row;
    size_t i;
    if (gk_kokoro_voice_load_memory(d, n, "fuzz", NULL, &v) != GK_OK) {
        if (v.data || v.rows) abort(); /* a failed read leaves nothing */
        /* a bundle: its voices by name, and a blend of them */
        if (n >= 4 && memcmp(d, "PK", 2) == 0 && gk_kokoro_voice_load_memory(d, n, "fuzz", "af_heart:0.7,am_adam:0.3", &v) == GK_OK) {
            if (v.rows != 510) abort();
            gk_kokoro_voice_free(&v);
        }
        return;
    }
    if (v.rows != 510 || !v.data) abort();
    for (i = 0; i < 510 * 256; i++)
        if (!(v.data[i] - v.data[i] == 0.0f)) abort();
    if (gk_kokoro_voice_style(&v, 1, &row) != GK_OK || row != v.data) abort();
    if (gk_kokoro_voice_style(&v, 510, &row) != GK_OK || row != v.data + 509 * 256) abort();
    if (gk_kokoro_voice_style(&v, 511, &row) == GK_OK || gk_kokoro_voice_style(&v, 0, &row) == GK_OK) abort();
    gk_kokoro_voice_free(&v);
}

static void chunks(const unsigned char *d, size_t n) {
    gk_kokoro_chunk_desc desc;
    gk_kokoro_chunks c;
    size_t k, prev = 0;
    if (n < 1) return;
    memset(&desc, 0, sizeof desc);
    desc.max_phonemes = 1 + d[0] % 64 * 8;
    desc.flags = d[0] & 1 ? GK_KOKORO_JOIN_LINES : 0;
    if (gk_kokoro_phoneme_chunks(&desc, (const char *)d + 1, n - 1, &c) != GK_OK) {
        if (c.n || c.chunk || c.store) abort();
        return;
    }
    for (k = 0; k < c.n; k++) {
        const gk_kokoro_chunk *h = &c.chunk[k];
        size_t i, cps = 0;
        if (h->n_phonemes == 0 || h->n_phonemes > desc.max_phonemes) abort();
        if (h->text_begin < prev || h->text_end <= h->text_begin || h->text_end > n - 1) abort();
        if (strlen(h->phonemes) > h->phonemes_len) abort();
        for (i = 0; i < h->phonemes_len; i++) cps += ((unsigned char)h->phonemes[i] & 0xC0) != 0x80;
        if (cps != h->n_phonemes || h->phonemes[h->phonemes_len] != 0) abort();
        if (h->phonemes_len > h->text_end - h->text_begin) abort(); /* whitespace only shrinks */
        prev = h->text_end;
    }
    gk_kokoro_chunks_free(&c);
}

static void map(const unsigned char *d, size_t n) {
    static const char *const langs[8] = {"en-us", "en-gb", "es", "fr-fr", "hi", "it", "pt-br", "b"};
    gk_buf o = {NULL, 0, 0};
    if (n < 1) return;
    if (gk_kokoro_map_espeak(langs[d[0] % 8], (const char *)d + 1, n - 1, &o) == GK_OK) {
        size_t i = 0;
        while (i < o.len) { /* valid UTF-8 */
            unsigned c = (unsigned char)o.data[i];
            size_t k = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
            if (!k || i + k > o.len) abort();
            i += k;
        }
    }
    gk_buf_free(&o);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    if (size < 1) return 0;
    switch (data[0] % 3) {
    case 0: voice(data + 1, size - 1); break;
    case 1: chunks(data + 1, size - 1); break;
    default: map(data + 1, size - 1); break;
    }
    return 0;
}
