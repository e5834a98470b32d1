/* ======================================================================== */
/* >>api_kokoro_speak                                                       */
/* ======================================================================== */
/* Text (or Kokoro phonemes) to speech with a loaded model (>>api_kokoro),
   its vocabulary and a voice (>>api_kokoro_text), chunk by chunk: the text
   goes through espeak-ng into chunks of at most 510 phonemes at sentence,
   clause or word boundaries (gk_kokoro_text_chunks; phonemes:
   gk_kokoro_phoneme_chunks), each chunk's ids and the voice's style row for
   its phoneme count (gk_kokoro_voice_style) go to gk_kokoro_synthesize, and
   each chunk's audio goes to the callback as soon as it is made, so the first
   sentence plays long before the whole text is done. Errors are the model's
   context's and name the chunk ("chunk 3 of 7 (bytes 120..245): ..."). */
typedef struct gk_kokoro_chunk_info {
    size_t index, count;           /* this chunk, of count */
    size_t text_begin, text_end;   /* the byte span of the input it came from */
    const char *phonemes;          /* its phonemes (NUL-terminated) */
    int64_t frames;                /* its frames (samples = frames * samples_per_frame) */
} gk_kokoro_chunk_info;
/* Gets each chunk's samples (mono, 24 kHz; valid during the call); a
   nonzero return stops the synthesis, which then returns GK_ERR_CANCELLED. */
typedef int (*gk_kokoro_audio_fn)(const float *samples, size_t n, const gk_kokoro_chunk_info *info, void *user);

typedef struct gk_kokoro_speak_desc {
    const gk_kokoro_voice *voice;  /* required: a pack or a blend (gk_kokoro_voice_load) */
    int phonemes;                  /* 1: the input is phonemes in Kokoro's alphabet (no espeak-ng) */
    gk_espeak *espeak;             /* text input: required (gk_espeak_create) */
    const char *language;          /* espeak-ng's language for text: NULL "en-us" (see gk_kokoro_chunk_desc) */
    unsigned chunk_flags;          /* GK_KOKORO_JOIN_LINES */
    unsigned id_flags;             /* GK_KOKORO_DROP_UNKNOWN: phonemes outside the vocabulary are dropped */
    float speed;                   /* 0: 1 (gk_kokoro_synth_desc.speed) */
    gk_kokoro_noise noise;         /* SineGen's noise; seed + the chunk's index seeds each chunk */
    uint64_t seed;
    gk_kokoro_audio_fn on_audio;   /* may be NULL */
    void *user;
} gk_kokoro_speak_desc;

typedef struct gk_kokoro_speak_result {
    size_t chunks;
    int64_t frames;                /* over all chunks */
    double seconds;                /* of audio */
} gk_kokoro_speak_result;

/* Speaks text[0..len) (UTF-8). out (may be NULL: the callback alone gets
   the audio) gets every chunk's samples joined, at 24 kHz; res may be NULL.
   Empty text, whitespace or punctuation only: GK_ERR_INVALID_ARGUMENT
   ("nothing to speak"); a missing voice or espeak-ng handle:
   GK_ERR_INVALID_ARGUMENT naming the field. */
GKLLMDEF gk_status gk_kokoro_speak(gk_kokoro_model *m, const gk_kokoro_vocab *vocab, const char *text, size_t len, const gk_kokoro_speak_desc *desc,
                                   gk_audio *out, gk_kokoro_speak_result *res);
