/* ======================================================================== */
/* >>api_whisper_long                                                       */
/* ======================================================================== */
/* Long-form transcription: OpenAI whisper's transcribe loop (transcribe.py)
   over audio of any length, on the model of >>api_whisper and the rules of
   >>api_whisper_rules. The audio is cut into windows of at most 3000 mel
   frames (30 s); each window is encoded (gk_whisper_mel, gk_whisper_encode)
   and decoded greedily (temperature 0) with the prompt of gk_whisper_prompt,
   which carries the tokens of the previous windows' segments
   (condition_on_previous_text), and the filters of gk_whisper_filter. The
   window's tokens become segments (gk_whisper_segments_add) whose times are
   absolute (the window's start plus its timestamps), and the next window
   starts where gk_whisper_segments_add says (the last timestamp, or the
   window's end after a single timestamp ending or without timestamps). A
   window whose no-speech probability is above thresholds.no_speech while its
   average log-probability is not above thresholds.logprob is skipped as
   silence (no segments; the next window starts at its end).

   Differences from transcribe.py:
   - the features of each window are the log-mel of its own samples
     (gk_whisper_mel: HF's feature extractor on the window, zero-padded to
     30 s), so the normalisation (max - 8) is per window, where transcribe.py
     slices the log-mel of the whole audio;
   - a window that would not move the seek (its last timestamp pair at
     <|0.00|>) moves by its whole length;
   - without tokenizer.json the segments keep their tokens and have empty
     text (no blank-text clearing, compression_ratio NaN);
   - the prompt keeps at most gk_whisper_max_ctx / 2 - 1 previous tokens
     (n_text_ctx / 2 - 1 with the default max_ctx).
   Not in this slice: temperature fallback (every window is decoded at
   temperature 0 once: compression_ratio and the fallback thresholds are
   recorded, not acted on), beam search, language detection (language NULL
   is "en"), word timestamps, clip_timestamps, hallucination_silence_threshold
   and several windows decoded at once. */
typedef void (*gk_whisper_long_progress_fn)(double done_s, double total_s, void *user);

typedef struct gk_whisper_long_desc {
    const char *language;          /* multilingual: a code or name; NULL: "en" (no detection yet) */
    int translate;                 /* task: 0 transcribe, 1 translate */
    int without_timestamps;        /* 1: <|notimestamps|>: one segment a window, windows of 30 s */
    int64_t max_tokens;            /* decoding steps per window at most, the eot's included; 0: n_text_ctx / 2 */
    int no_condition;              /* 1: no previous text in the prompts (condition_on_previous_text=False) */
    const int32_t *initial_prompt; /* tokens of an initial prompt (the encoding of " " + text), may be NULL */
    size_t n_initial_prompt;
    int custom_suppress;           /* 1: suppress / n_suppress instead of generation_config.json's (as */
    const int32_t *suppress;       /*   gk_whisper_transcribe_desc) */
    size_t n_suppress;
    gk_whisper_thresholds thresholds; /* no_speech and logprob for the silence skip (zero: 0.6, -1.0; NAN: no check) */
    int seq;                       /* the sequence slot used; 0 */
    gk_whisper_long_progress_fn progress; /* after each window: seconds done, seconds in all (may be NULL) */
    void *user;
} gk_whisper_long_desc;

typedef struct gk_whisper_long_result {
    double duration;               /* seconds of audio: its mel frames (n / 160) / 100 */
    int64_t windows;               /* windows decoded */
    int64_t skipped;               /* of them, skipped as silence */
    int64_t sampled;               /* tokens sampled over all windows (eot left out) */
    const char *language;          /* the language code used; NULL for an English-only model */
} gk_whisper_long_result;

/* Transcribes samples[0..n) at 16 kHz into segs (appended; ids count from 0
   over segs; on a failure segs is left as it was). Audio shorter than one
   mel frame (n < 160, n == 0 included) has no windows: GK_OK with no
   segments. desc and res may be NULL. Errors are the model's context's,
   naming the window ("window at 30.00 s: ..."). */
GKLLMDEF gk_status gk_whisper_transcribe_long(gk_whisper_model *m, const float *samples, size_t n, const gk_whisper_long_desc *desc, gk_whisper_segments *segs,
                                              gk_whisper_long_result *res);
/* The same from a gk_audio (its rate must be 16000). */
GKLLMDEF gk_status gk_whisper_transcribe_long_audio(gk_whisper_model *m, const gk_audio *a, const gk_whisper_long_desc *desc, gk_whisper_segments *segs,
                                                    gk_whisper_long_result *res);
