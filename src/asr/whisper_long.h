/* ======================================================================== */
/* >>api_whisper_long                                                       */
/* ======================================================================== */
/* Long-form transcription: OpenAI whisper's transcribe loop (transcribe.py)
   over audio of any length, on the model of >>api_whisper and the rules of
   >>api_whisper_rules. The audio is cut into windows of at most 3000 mel
   frames (30 s); each window is encoded (gk_whisper_mel, gk_whisper_encode)
   and decoded with decode_with_fallback: greedy or beam search at
   temperature 0, then sampling (best_of candidates) at 0.2, 0.4, ... 1.0
   while the result is too repetitive (compression ratio), too improbable
   (average log-probability) and not silence (thresholds). The prompt
   (gk_whisper_prompt) carries the tokens of the previous windows' segments
   (condition_on_previous_text; reset after a window decoded above
   temperature 0.5), the filters are gk_whisper_filter's. The window's
   tokens become segments (gk_whisper_segments_add) whose times are
   absolute, and the next window starts where gk_whisper_segments_add says
   (the last timestamp, or the window's end after a single timestamp ending
   or without timestamps). A window whose no-speech probability is above
   thresholds.no_speech while its average log-probability is not above
   thresholds.logprob is skipped as silence. A multilingual model without a
   language detects it on each input's first window (decoding.py's
   detect_language: the logits after <|startoftranscript|> over the language
   tokens). With word_timestamps (and tokenizer.json) each window's text is
   aligned to the audio on the alignment heads' cross-attention
   (gk_whisper_cross_weights, gk_whisper_add_words), and the next window
   starts after the last word as transcribe.py does.

   Batches: gk_whisper_transcribe_batch runs several inputs at once, one
   window each in the model's windows seq.. (at most max_windows - seq of
   them): their windows are encoded one by one as they come, and every
   decoding window's rows step together in one gk_whisper_decode_step. A
   window that ends takes its input's next window, or the next input.

   Differences from transcribe.py:
   - the features of each window are the log-mel of its own samples
     (gk_whisper_mel: HF's feature extractor on the window, zero-padded to
     30 s), so the normalisation (max - 8) is per window, where transcribe.py
     slices the log-mel of the whole audio;
   - a window that would not move the seek (its last timestamp pair at
     <|0.00|>) moves by its whole length;
   - without tokenizer.json the segments keep their tokens and have empty
     text (no blank-text clearing, compression_ratio NaN so no fallback on
     it; word timestamps are refused);
   - the prompt keeps at most gk_whisper_max_ctx / 2 - 1 previous tokens
     (n_text_ctx / 2 - 1 with the default max_ctx);
   - sampling uses gpukit's generator (seed), not torch's;
   - generation_config.json's begin_suppress_tokens replace SuppressBlank
     (as HF does).
   Not here: clip_timestamps and hallucination_silence_threshold. */
typedef void (*gk_whisper_long_progress_fn)(double done_s, double total_s, void *user);
/* Asked before each window's work and each decoding step: nonzero stops the
   transcription, which returns GK_ERR_CANCELLED (segs as they were). */
typedef int (*gk_whisper_long_cancel_fn)(void *user);

typedef struct gk_whisper_long_desc {
    const char *language;          /* multilingual: a code or name; NULL: detected per input */
    int translate;                 /* task: 0 transcribe, 1 translate */
    int without_timestamps;        /* 1: <|notimestamps|>: one segment a window, windows of 30 s */
    int beam_size;                 /* at temperature 0: 0 greedy, >= 1 beams (needs gk_whisper_desc.max_beams >= it) */
    int best_of;                   /* candidates sampled above temperature 0; 0: 1 (needs max_beams >= it) */
    double patience;               /* beam search (gk_whisper_search_desc); 0: 1.0 */
    int has_length_penalty;        /* 0: rank by sum_logprob / length; 1: ((5 + length) / 6) ^ length_penalty */
    double length_penalty;
    uint64_t seed;                 /* sampling */
    int word_timestamps;           /* 1: words with times and probabilities (without tokenizer.json: GK_ERR_NOT_FOUND) */
    gk_whisper_words_desc words;   /* punctuation and alignment options (zero: whisper's) */
    int64_t max_tokens;            /* decoding steps per window at most, the eot's included; 0: n_text_ctx / 2 */
    int no_condition;              /* 1: no previous text in the prompts (condition_on_previous_text=False) */
    const int32_t *initial_prompt; /* tokens of an initial prompt (the encoding of " " + text), may be NULL */
    size_t n_initial_prompt;
    int custom_suppress;           /* 1: suppress / n_suppress instead of generation_config.json's (as */
    const int32_t *suppress;       /*   gk_whisper_transcribe_desc) */
    size_t n_suppress;
    gk_whisper_thresholds thresholds; /* fallback and silence (zero: 2.4, -1.0, 0.6, temperatures 0..1 by 0.2;
                                         temperature_increment NAN: temperature 0 only) */
    int seq;                       /* the first model window used; 0 */
    gk_whisper_long_progress_fn progress; /* after each window: seconds done, seconds in all (may be NULL) */
    void *user;                    /* progress's and cancel's */
    gk_whisper_long_cancel_fn cancel; /* may be NULL (a Ctrl-C handler, a deadline: see its typedef) */
} gk_whisper_long_desc;

typedef struct gk_whisper_long_result {
    double duration;               /* seconds of audio: its mel frames (n / 160) / 100 */
    int64_t windows;               /* windows decoded (accepted) */
    int64_t fallbacks;             /* decodings repeated at a higher temperature */
    int64_t skipped;               /* of them, skipped as silence */
    int64_t sampled;               /* tokens sampled over all windows (eot left out) */
    const char *language;          /* the language code used (given or detected); NULL for an English-only model */
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
/* Several inputs at once (see above): samples[i][0..n[i]) into segs[i],
   res[i] (res may be NULL). On a failure, every segs[i] is left as it was and
   the error names the input and its window. */
GKLLMDEF gk_status gk_whisper_transcribe_batch(gk_whisper_model *m, const float *const *samples, const size_t *n, int count, const gk_whisper_long_desc *desc,
                                               gk_whisper_segments *segs, gk_whisper_long_result *res);
