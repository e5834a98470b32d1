/* libFuzzer harness: WAV files (chunks, fmt fields, every encoding, data
   sizes), mixing to mono and resampling to 16 kHz, and the float WAV writer
   on what was read (it must read back bit for bit). */
#define GPUKIT_IMPLEMENTATION
#include "gpukit.h"
#define GPUKIT_LLM_IMPLEMENTATION
#include "gpukit_llm.h"
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size) {
    gk_audio a, b;
    gk_audio_desc d;
    gk_buf w = {NULL, 0, 0};
    size_t i;
    memset(&d, 0, sizeof d);
    d.flags = GK_AUDIO_KEEP_RATE;
    if (gk_audio_from_wav_memory(data, size, &d, &a) != GK_OK) {
        if (a.samples || a.n) abort(); /* a failed read leaves nothing */
        return 0;
    }
    /* at the input's rate: one finite sample a frame, inside the input */
    if (a.n != a.frames_in || a.rate != a.rate_in || (a.n && !a.samples) || a.frames_in * (uint64_t)a.channels_in > size) abort();
    for (i = 0; i < a.n; i++)
        if (!(a.samples[i] - a.samples[i] == 0.0f)) abort();
    if (gk_audio_write_wav_memory(&w, a.samples, a.n, a.rate, GK_WAV_F32) != GK_OK) {
        if ((uint64_t)a.rate * 4 <= 0xFFFFFFFFu) abort(); /* only a byte rate beyond 32 bits is refused */
    } else {
        if (gk_audio_from_wav_memory(w.data, w.len, &d, &b) != GK_OK || b.n != a.n || (a.n && memcmp(a.samples, b.samples, a.n * sizeof(float)) != 0)) abort();
        gk_audio_free(&b);
    }
    gk_buf_free(&w);
    /* resampled to 16 kHz, for rates and lengths that keep a run short */
    if (a.rate_in >= 4000 && a.rate_in <= 192000 && a.frames_in <= 100000) {
        uint64_t want = (a.frames_in * 16000 * 2 + (uint64_t)a.rate_in) / (2 * (uint64_t)a.rate_in);
        if (gk_audio_from_wav_memory(data, size, NULL, &b) != GK_OK || b.n != want || b.rate != 16000) abort();
        gk_audio_free(&b);
    }
    gk_audio_free(&a);
    return 0;
}
