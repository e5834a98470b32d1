/* ======================================================================== */
/* >>api_audio                                                              */
/* ======================================================================== */

/* Audio in for speech recognition: WAV files (from a path or from memory)
   and raw float buffers, mixed to mono and resampled to one rate (16 kHz,
   Whisper's, unless asked otherwise); and WAV writing (16-bit PCM, float32).
   CPU only; no context. Errors go to the calling thread (gk_last_error(NULL))
   and name the file (the path, gk_audio_desc.name or "memory") and the
   field at fault: "a.wav: fmt chunk: channels = 0 must be at least 1".

   WAV FILES READ
     RIFF/WAVE, and RF64 / BW64 (the ds64 chunk's 64-bit sizes), little-endian.
       format tag 1 (PCM)         8-bit unsigned; 16-, 24-, 32-bit signed
                                  (and bit depths in between, left-justified
                                  in a container of ceil(bits/8) bytes)
       format tag 3 (IEEE float)  32- and 64-bit
       tag 0xFFFE (EXTENSIBLE)    with the PCM or IEEE float subformat
                                  (container bits as above, valid bits <=
                                  container bits; the channel mask is ignored)
     Every other encoding (A-law, mu-law, ADPCM, MP3 in WAV, ...) is
     GK_ERR_UNSUPPORTED naming its format tag. Samples become floats: PCM as
     s / 2^(bits of the container - 1) (8-bit as (u - 128) / 128), so 16-bit
     gives k / 32768 exactly; float as stored, rounded to float from 64-bit
     (values beyond +-1 are kept; a NaN, an infinity, or a 64-bit value
     beyond float's range is GK_ERR_FORMAT naming the frame). Any channel
     count is mixed to mono by the mean of the channels (summed in double, in
     channel order, then rounded to float once).
     Chunks other than fmt / data / ds64 (LIST, fact, JUNK, bext, ...) are
     skipped; an odd-sized chunk is followed by its pad byte, and a writer's
     missing pad byte is recognised (the next chunk id is printable ASCII at
     one offset and not at the other). The byte rate field is not checked.
     Data size:
       - 0xFFFFFFFF (a streamed file), or 0 where the RIFF size also says the
         file ends at the data header (or is 0 / 0xFFFFFFFF): the data runs
         to the end of the file; result flag GK_AUDIO_STREAMED.
       - more than the file holds (a truncated file): the frames that are
         there are read, result flag GK_AUDIO_TRUNCATED, and `warning` says
         "a.wav: data chunk says N bytes, the file holds M". With
         GK_AUDIO_STRICT in the desc's flags this is a GK_ERR_FORMAT error
         with that text instead.
       - a trailing partial frame (size not a multiple of the block align)
         is ignored.
     Zero-length audio is not an error: n = 0, samples NULL.
     Errors (status, and what the message names): not a RIFF / RF64 file
     (its first bytes), a RIFF form other than WAVE, no fmt or no data chunk,
     a fmt chunk shorter than 16 bytes, an EXTENSIBLE one shorter than 40,
     data before fmt, RF64 without ds64 first, a chunk running past the end
     of the file before the data (GK_ERR_FORMAT, naming the chunk and its
     offset); channels = 0, sample rate = 0 or above INT_MAX, a block align
     that is not channels * container bytes (GK_ERR_FORMAT, naming the field
     and its value); an unsupported encoding or subformat GUID, bits per
     sample that the format does not have, RIFX (big-endian)
     (GK_ERR_UNSUPPORTED); longer than desc.max_seconds (GK_ERR_LIMIT); more
     samples than this machine can address (GK_ERR_OVERFLOW); the file cannot
     be opened or read, or is a folder (GK_ERR_IO). A file is read once,
     front to back, in 256 KiB pieces (a pipe works too): the whole file is
     never in memory, and the result is allocated once, at its final size,
     when the file's size is known (a pipe's result grows). Sizes are 64-bit
     and checked: 8 hours of 48 kHz stereo PCM16 (5.5 GB) reads into 1.8 GB
     of 16 kHz floats in about 11 s on one core, holding little else.

   RESAMPLING (any rate to any rate; equal rates pass through bit-exactly)
     A windowed-sinc interpolator at arbitrary (rational) ratio:
       cutoff   fc = 0.92 * min(rate_in, rate_out) / 2: the response is
                flat (within 0.02 dB) to 0.85 of the lower Nyquist frequency,
                -0.1 dB near 0.865, -6 dB at 0.92, -84 dB at the Nyquist
                frequency itself and -90 dB or less beyond 1.02 of it (at
                16 kHz out: flat to 6.8 kHz, -6 dB at 7.36 kHz, 8 kHz -84 dB)
       kernel   sinc(2 fc t) * Kaiser window, 32 zero crossings each side,
                beta = 9.0 (stopband attenuation about 90 dB); 2H taps an
                output, H = ceil(32 / (0.92 * min(1, rate_out / rate_in))):
                70 when upsampling, 192 from 44.1 kHz, 836 from 192 kHz
       taps     each output phase's taps are normalised to sum to 1, so a
                constant input stays constant exactly (up to rounding)
       phases   rate_in / rate_out reduced to p / q: one tap table per phase
                when q * taps <= 2^20 floats (every common rate: 8, 11.025,
                12, 22.05, 24, 32, 44.1, 48, 88.2, 96, 176.4, 192 kHz to
                16 kHz), else taps interpolated linearly from the kernel
                sampled 512 times per zero crossing (relative error about
                1e-5; some 6x slower: odd rates such as 44099 Hz)
       edges    samples before the first and after the last are zero
       length   n_out = floor(n_in * rate_out / rate_in + 1/2), computed
                exactly in integers (round half up); output sample j is at
                input time j * rate_in / rate_out (the first samples align)
     Checked by tests/test_audio.c (7 Hz, 8 kHz ... 192 kHz and odd rates to
     16 kHz, and 16 kHz to 100 Hz ... 192 kHz): a sine at 0.8 of the lower
     Nyquist frequency keeps its amplitude within 0.1 dB and its phase, one
     at 0.4 within 0.01 dB; sines at 1.0, 1.05 and 1.5 times the output's
     Nyquist frequency come out more than 80 dB lower; a constant stays
     within 1e-6; the length is the formula above. Speed on one core: about
     2400x real time from 44.1 / 48 kHz stereo, 600x from 192 kHz. */

#define GK_AUDIO_RATE 16000 /* the default output rate: Whisper's */

/* gk_audio_desc.flags */
#define GK_AUDIO_STRICT 1u    /* a data chunk longer than the file is an error, not a warning */
#define GK_AUDIO_KEEP_RATE 2u /* no resampling: the output keeps the input's rate (desc.rate must be 0) */

/* gk_audio.flags */
#define GK_AUDIO_TRUNCATED 1u /* the file ended inside the data chunk: read what is there (see warning) */
#define GK_AUDIO_STREAMED 2u  /* the data size was unset (0 / 0xFFFFFFFF): read to the end of the file */

/* Options; zero-initialise (memset or = {0} in C). desc NULL = all defaults. */
typedef struct gk_audio_desc {
    int rate;           /* output rate in Hz; 0 = GK_AUDIO_RATE (16000) */
    unsigned flags;     /* GK_AUDIO_STRICT, GK_AUDIO_KEEP_RATE */
    double max_seconds; /* > 0: input longer than this is GK_ERR_LIMIT; 0 = no limit */
    const char *name;   /* how messages name a WAV read from memory; NULL = "memory" */
} gk_audio_desc;

/* Mono audio: n samples at `rate` Hz. Free with gk_audio_free. */
typedef struct gk_audio {
    float *samples;   /* n floats (GPUKIT_MALLOC); NULL when n == 0 */
    size_t n;
    int rate;         /* the output rate */
    int rate_in;      /* the input's rate */
    int channels_in;  /* the input's channel count (mixed to mono) */
    int bits_in;      /* the input's bits per sample (EXTENSIBLE: its valid bits); 32 for gk_audio_from_float */
    int format_in;    /* WAV format tag: 1 PCM, 3 IEEE float (an EXTENSIBLE file gives its subformat); 0 from floats */
    uint64_t frames_in; /* frames read from the input */
    unsigned flags;   /* GK_AUDIO_TRUNCATED, GK_AUDIO_STREAMED */
    char warning[256];  /* "" or what was wrong but read anyway (GK_AUDIO_TRUNCATED's message) */
} gk_audio;

/* The WAV encodings gk_audio_write_wav writes. */
typedef enum gk_wav_format {
    GK_WAV_PCM16 = 1, /* format tag 1, 16 bits: round(x * 32768), clamped to [-32768, 32767] */
    GK_WAV_F32 = 3    /* format tag 3, 32-bit IEEE float as given */
} gk_wav_format;

/* Reads a WAV file (path) to mono at desc's rate. On failure *out is
   zeroed (nothing to free). */
GKLLMDEF gk_status gk_audio_from_wav(const char *path, const gk_audio_desc *desc, gk_audio *out);
/* The same from a WAV file's bytes in memory (data is not kept). */
GKLLMDEF gk_status gk_audio_from_wav_memory(const void *data, size_t size, const gk_audio_desc *desc, gk_audio *out);
/* Interleaved float frames (frames * channels values, frame-major) at
   `rate` Hz, mixed to mono and resampled like a WAV file's. samples may be
   NULL when frames is 0. A NaN or infinity is GK_ERR_INVALID_ARGUMENT. */
GKLLMDEF gk_status gk_audio_from_float(const float *samples, size_t frames, int channels, int rate,
                                       const gk_audio_desc *desc, gk_audio *out);
/* Frees a's samples and zeroes it; NULL is a no-op. */
GKLLMDEF void gk_audio_free(gk_audio *a);
/* Writes n mono samples at `rate` Hz as a WAV file: RIFF, fmt (16 bytes for
   PCM; 18 with cbSize 0 and then a fact chunk for float, as the format
   asks), data. A NaN or infinity (GK_ERR_INVALID_ARGUMENT, naming the
   index), more than 4 GiB of data (GK_ERR_LIMIT) or a byte rate beyond 32
   bits is refused before anything is written; a write that fails
   (GK_ERR_IO) removes the partial file. */
GKLLMDEF gk_status gk_audio_write_wav(const char *path, const float *samples, size_t n, int rate, gk_wav_format format);
/* The same file's bytes appended to *dst; on failure *dst is as it was. */
GKLLMDEF gk_status gk_audio_write_wav_memory(gk_buf *dst, const float *samples, size_t n, int rate, gk_wav_format format);
