/* ======================================================================== */
/* >>api_whisper_rules                                                      */
/* ======================================================================== */
/* Whisper decoding without the model: the host-side rules of OpenAI's
   whisper (decoding.py, transcribe.py, timing.py, utils.py), on logits,
   log-probabilities and cross-attention weights that the caller copies to
   the host. The model runs elsewhere; these functions decide what it runs
   on next. Everything here is CPU-only, keeps no global state and is safe
   from several threads on distinct objects. Errors go to the calling
   thread (gk_last_error(NULL)) and name the argument or field at fault.

   One 30 s window, as transcribe.py does it:
     gk_whisper_prompt           the decoder's first tokens (previous text, SOT, language, task)
     per step, per row:          gk_whisper_filter on the row's logits (suppress blank, suppress
                                 tokens, timestamp rules), gk_whisper_log_softmax
     gk_whisper_search_step      greedy, sampling or beam search: the tokens to append and the
                                 rows (KV cache entries) they extend
     gk_whisper_search_result    the ranked best sequence, its sum and average log-probability
     gk_whisper_compression_ratio, gk_whisper_needs_fallback, gk_whisper_temperature
                                 retry at the next temperature?
     gk_whisper_is_no_speech     skip the window as silence?
     gk_whisper_segments_add     segments from the timestamp tokens, where the next window starts
     gk_whisper_add_words        (optional) word times from the alignment heads (median filter, DTW)
   and at the end gk_whisper_write (SRT, WebVTT, JSON, text, TSV).

   Numbers: log-softmax, log-sum-exp and softmax are computed in float64
   (torch computes them in float32: a comparison that torch decides within
   one float32 ulp may go the other way here); sums of log-probabilities are
   float64. Times are seconds as float64. */

/* mel frames per second (hop 160 at 16 kHz) and frames in a 30 s window */
#define GK_WHISPER_FRAMES_PER_SECOND 100
#define GK_WHISPER_N_FRAMES 3000
#define GK_WHISPER_MAX_LANGS 100

/* ---- languages: whisper's table, in its order ("en", "zh", "de", ... "su",
   then "yue", the 100th, which only large-v3 and later have) ---- */
/* the code / English name of language i (0..99), NULL outside */
GKLLMDEF const char *gk_whisper_lang_code(int i);
GKLLMDEF const char *gk_whisper_lang_name(int i);
/* the index of a code ("de"), a name ("german") or one of whisper's aliases
   ("castilian", "mandarin", ...), ignoring ASCII case; -1 if none */
GKLLMDEF int gk_whisper_lang_index(const char *language);

/* ---- special tokens ---- */
/* The ids of a Whisper vocabulary's special tokens. Ids that the vocabulary
   lacks are -1 (no_speech in a tokenizer without <|nospeech|> or
   <|nocaptions|>; lang[i] for a language it does not have). */
typedef struct gk_whisper_tokens {
    int64_t vocab;                 /* logits per row; every id below is < vocab */
    int multilingual;              /* the prompt has language and task tokens (not the .en models) */
    int n_langs;                   /* language tokens present: 99, or 100 with "yue" */
    int32_t eot, sot, translate, transcribe, sot_lm, sot_prev, no_speech, no_timestamps;
    int32_t timestamp_begin;       /* <|0.00|>; timestamp k (k * 0.02 s) is timestamp_begin + k, up to vocab - 1 */
    int32_t space;                 /* " " as one token (suppress_blank): GPT-2's "Ġ", 220 */
    int32_t lang[GK_WHISPER_MAX_LANGS]; /* <|code|> of gk_whisper_lang_code(i), -1 where absent */
} gk_whisper_tokens;

typedef struct gk_whisper_tokens_desc {
    int64_t vocab;                 /* the model's vocab_size (config.json); 0: the tokenizer's
                                      size (gk_tokenizer_vocab_size); needed with a lookup */
    int multilingual;              /* 0: whisper's rule, vocab >= 51865; 1: multilingual; -1: English-only
                                      (generation_config.json's is_multilingual) */
} gk_whisper_tokens_desc;

/* The layout of OpenAI's vocabularies from their size alone: 51864 (.en,
   GPT-2 base, eot 50256), 51865 (multilingual, 99 languages, eot 50257),
   51866 (large-v3 and later, 100 languages). Other sizes: GK_ERR_UNSUPPORTED. */
GKLLMDEF gk_status gk_whisper_tokens_from_vocab(int64_t vocab, gk_whisper_tokens *out);
/* The layout by name: lookup(name, user) gives the id of a token text as the
   tokenizer stores it ("<|endoftext|>", "<|de|>", "\xC4\xA0" for GPT-2's
   space) or -1. Required: <|endoftext|>, <|startoftranscript|>,
   <|translate|>, <|transcribe|>, <|startoflm|>, <|startofprev|>,
   <|notimestamps|> (GK_ERR_NOT_FOUND naming the first one missing). The
   no-speech token is <|nospeech|> or, in older tokenizers, <|nocaptions|>.
   Without <|0.00|> (tokenizers that do not list the timestamps) the
   timestamps start after <|notimestamps|>, as in every Whisper vocabulary.
   Without "Ġ" the space is 220. An id at or above vocab is GK_ERR_FORMAT. */
typedef int32_t (*gk_whisper_lookup_fn)(const char *name, void *user);
GKLLMDEF gk_status gk_whisper_tokens_from_lookup(const gk_whisper_tokens_desc *d, gk_whisper_lookup_fn lookup, void *user, gk_whisper_tokens *out);
/* the same with a loaded tokenizer's token_to_id (desc may be NULL) */
GKLLMDEF gk_status gk_whisper_tokens_from_tokenizer(const gk_tokenizer *tok, const gk_whisper_tokens_desc *d, gk_whisper_tokens *out);
/* The id of a language (code, name or alias as gk_whisper_lang_index takes
   them). Unknown: GK_ERR_NOT_FOUND naming it; known but not in this
   vocabulary ("yue" before large-v3): GK_ERR_NOT_FOUND saying so. */
GKLLMDEF gk_status gk_whisper_lang_id(const gk_whisper_tokens *t, const char *language, int32_t *id);
/* the code of a language token id, NULL if id is none */
GKLLMDEF const char *gk_whisper_lang_of(const gk_whisper_tokens *t, int32_t id);

/* ---- the prompt ---- */
typedef struct gk_whisper_prompt_desc {
    const char *language;          /* multilingual: code or name; NULL: "en" (detect it first with
                                      gk_whisper_detect_language). English-only: NULL or "en" */
    int translate;                 /* the task: 0 transcribe, 1 translate (multilingual only) */
    int without_timestamps;        /* end with <|notimestamps|>: text only */
    const int32_t *prompt;         /* previous text (transcribe.py: the tokens of the segments since */
    size_t n_prompt;               /*   the last reset; an initial prompt's " " + text); 0: none */
    const int32_t *prefix;         /* tokens that begin the text of this window; 0: none */
    size_t n_prefix;
    int64_t n_text_ctx;            /* the decoder's context; 0: 448 */
    int64_t sample_len;            /* tokens to sample at most; 0: n_text_ctx / 2 */
} gk_whisper_prompt_desc;
/* The decoder's first tokens, as whisper's DecodingTask builds them:
   [<|startofprev|> + the last n_text_ctx/2 - 1 prompt tokens] + <|startoftranscript|>
   [+ language + task] [+ <|notimestamps|>] [+ prefix], the prefix cut as
   decoding.py cuts it (its last n_text_ctx/2 - sample_len tokens, Python's
   slice rules: 0 keeps all). Replaces out's contents. sot_index (the row
   whose logits give the no-speech probability and the language) and
   sample_begin (the number of tokens before the first sampled one) may be
   NULL. transcribe.py resets the prompt (passes none) after a window decoded
   at a temperature above 0.5, and without condition_on_previous_text. */
GKLLMDEF gk_status gk_whisper_prompt(const gk_whisper_tokens *t, const gk_whisper_prompt_desc *d, gk_ids *out, size_t *sot_index, size_t *sample_begin);

/* ---- logits at the SOT position ---- */
/* Language detection: softmax over the language tokens only (the others
   masked), into probs[i] for gk_whisper_lang_code(i) (NULL: not wanted; 0
   where the vocabulary lacks the language); *best: the most probable index
   (the lowest on ties). */
GKLLMDEF gk_status gk_whisper_detect_language(const gk_whisper_tokens *t, const float *logits, float *probs, int *best);
/* softmax(logits)[no_speech] over the whole row; NaN without a no-speech token */
GKLLMDEF gk_status gk_whisper_no_speech_prob(const gk_whisper_tokens *t, const float *logits, double *prob);
/* softmax over the text tokens (ids below eot) at id: a token's probability
   for the word timestamps (timing.py) */
GKLLMDEF gk_status gk_whisper_text_prob(const gk_whisper_tokens *t, const float *logits, int32_t id, double *prob);

/* ---- logit filters (one row of t->vocab logits, in place) ---- */
/* Sets logits[ids[i]] to -inf (suppress_tokens, begin_suppress_tokens). */
GKLLMDEF gk_status gk_whisper_suppress(float *logits, int64_t vocab, const int32_t *ids, size_t n);
/* The suppress_tokens list as decoding.py completes it: ids (generation_config.json's
   suppress_tokens, or the caller's), where -1 stands for the non-speech symbols
   (tokenizer.py's non_speech_tokens: needs tok, which encodes them), plus
   transcribe, translate, sot, sot_prev, sot_lm and no_speech; sorted, without
   repeats, into out (replaced). Whisper's default is {-1}. */
GKLLMDEF gk_status gk_whisper_suppress_list(const gk_whisper_tokens *t, const int32_t *ids, size_t n, const gk_tokenizer *tok, gk_ids *out);
/* At the first sampled position (n_sampled == 0): suppresses " " and eot
   (SuppressBlank; HF's begin_suppress_tokens hold the same two). */
GKLLMDEF gk_status gk_whisper_suppress_blank(const gk_whisper_tokens *t, size_t n_sampled, float *logits);
/* ApplyTimestampRules, for one row whose sampled tokens (after the prompt)
   are sampled[0..n_sampled): <|notimestamps|> is suppressed; timestamps come
   in pairs (after a lone timestamp, no text; after a pair, no timestamp),
   except that eot may follow a lone one; timestamps do not decrease, and a
   segment is not empty (after a pair the next timestamp is above the last);
   the first token is a timestamp, at most max_initial_index (< 0: no limit);
   and when the probabilities of all timestamps together exceed that of the
   most probable other token, only timestamps remain. */
GKLLMDEF gk_status gk_whisper_timestamp_rules(const gk_whisper_tokens *t, const int32_t *sampled, size_t n_sampled, int64_t max_initial_index, float *logits);

typedef struct gk_whisper_filter_desc {
    int no_suppress_blank;         /* leave out SuppressBlank (whisper's suppress_blank=False) */
    const int32_t *suppress;       /* suppress_tokens: a list from gk_whisper_suppress_list; NULL and */
    size_t n_suppress;             /*   0: none */
    int without_timestamps;        /* no timestamp rules (the prompt ends with <|notimestamps|>) */
    double max_initial_timestamp;  /* seconds; 0: 1.0; < 0: no limit */
    double time_precision;         /* seconds per timestamp step; 0: 0.02 */
} gk_whisper_filter_desc;
/* The filters of a DecodingTask, in its order: SuppressBlank, SuppressTokens,
   ApplyTimestampRules (max_initial_timestamp / time_precision rounded half
   to even). desc may be NULL (whisper's defaults without a suppress list). */
GKLLMDEF gk_status gk_whisper_filter(const gk_whisper_tokens *t, const gk_whisper_filter_desc *d, const int32_t *sampled, size_t n_sampled, float *logits);
/* out = log_softmax(logits) (out may be logits). NaN or +inf is GK_ERR_FORMAT
   naming the index; so is a row that is all -inf. */
GKLLMDEF gk_status gk_whisper_log_softmax(const float *logits, int64_t vocab, float *out);

/* ---- greedy, sampling and beam search ---- */
typedef struct gk_whisper_search gk_whisper_search;
typedef struct gk_whisper_search_desc {
    int64_t vocab;                 /* log-probabilities per row (> beam_size) */
    int32_t eot;
    float temperature;             /* 0: greedy, or beam search with beam_size; > 0: sampling */
    int beam_size;                 /* at temperature 0: 0 greedy (one row), >= 1 beams */
    int best_of;                   /* at temperature > 0: rows sampled independently; 0: 1 */
    double patience;               /* beam search: finished candidates wanted = round(beam_size *
                                      patience); 0: 1.0 */
    int has_length_penalty;        /* ranking: 0 divides sum_logprobs by the length (whisper's None); */
    double length_penalty;         /*   1: by ((5 + length) / 6) ^ length_penalty (alpha, 0..1) */
    int max_tokens;                /* tokens sampled at most (sample_len); 0: 224 */
    uint64_t seed;                 /* sampling (the generator is not torch's) */
} gk_whisper_search_desc;
/* The decoders of decoding.py for one window. Each step the caller runs the
   model on the rows (gk_whisper_search_rows of them), filters each row's
   logits, turns them into log-probabilities (gk_whisper_log_softmax) and
   calls step, which gives the token each row appends and the row it
   continues: the caller reorders its KV cache so that new row i is old row
   parents[i], then appends tokens[i]. The search ends (*done) when every row
   has ended (greedy, sampling), enough candidates have finished (beams), or
   after max_tokens steps; the caller may also stop earlier (its context is
   full) and take the result.
     Greedy: the most probable token (the lowest id on ties). Sampling: from
   softmax(logprobs / temperature) by inverse CDF in id order. A row that
   sampled eot repeats it and its sum stops growing; parents[i] = i.
     Beams (BeamSearchDecoder): each row proposes its beam_size + 1 best
   tokens (ties: the lower id), scored sum_logprobs + logprob; the
   candidates are ranked by score, ties keeping their order (row by row, in
   each row best first); eot candidates go to the finished ones (up to
   round(beam_size * patience)), the best beam_size others become the rows.
   At the first step the rows are copies of one prompt: like whisper's
   dictionary of sequences, a candidate proposed by several copies counts
   once, with the score and parent of the last copy. */
GKLLMDEF gk_status gk_whisper_search_create(const gk_whisper_search_desc *d, gk_whisper_search **out);
GKLLMDEF void gk_whisper_search_free(gk_whisper_search *s);
GKLLMDEF int gk_whisper_search_rows(const gk_whisper_search *s);
/* row's sampled tokens so far (the sampled tokens of gk_whisper_filter);
   valid until the next step */
GKLLMDEF const int32_t *gk_whisper_search_tokens(const gk_whisper_search *s, int row, size_t *n);
/* logprobs: [rows][vocab]; tokens, parents: [rows]; done may be NULL. A step
   after the search ended is GK_ERR_STATE. */
GKLLMDEF gk_status gk_whisper_search_step(gk_whisper_search *s, const float *logprobs, int32_t *tokens, int32_t *parents, int *done);
/* The same step on filtered logits with each row's log-sum-exp (lse [rows]):
   the log-probabilities are logits[r][i] - lse[r], so no pass over the rows
   makes them (gk_whisper_filtered_lse gives lse). A non-finite lse of a row
   that has not ended is GK_ERR_FORMAT. */
GKLLMDEF gk_status gk_whisper_search_step_lse(gk_whisper_search *s, const float *logits, const double *lse, int32_t *tokens, int32_t *parents, int *done);
/* The log-sum-exp of a filtered row (the filters' -inf entries removed) from
   the raw row's, raw_lse (computed on the device): raw_lse + log(1 - the
   removed share) while the removed entries hold under half of the mass
   (one pass, exp only of the removed entries), else over the entries left. *out = log-sum-exp(filtered).
   NaN or +inf in filtered, every entry -inf, or a non-finite raw_lse:
   GK_ERR_FORMAT. */
GKLLMDEF gk_status gk_whisper_filtered_lse(const float *raw, const float *filtered, int64_t vocab, double raw_lse, double *out);
/* The best sequence by whisper's MaximumLikelihoodRanker (the first of equal
   scores): its tokens without eot (out replaced), sum_logprobs and
   avg_logprob = sum_logprobs / (tokens + 1). Beams: the finished candidates
   in the order they finished, then, while fewer than beam_size, the rows by
   sum_logprobs (ties: the higher row first, as whisper's reversed argsort).
   Any pointer may be NULL. */
GKLLMDEF gk_status gk_whisper_search_result(const gk_whisper_search *s, gk_ids *tokens, double *sum_logprob, double *avg_logprob);
/* The ranking score: sum_logprob / length, or with has_penalty
   sum_logprob / ((5 + length) / 6) ^ penalty; length 0 without a penalty
   scores -inf (whisper would divide by zero). */
GKLLMDEF double gk_whisper_rank_score(double sum_logprob, size_t length, int has_penalty, double penalty);

/* ---- quality checks and temperature fallback ---- */
/* len(text) / len(zlib.compress(text)) of the UTF-8 bytes, zlib's level 6
   (Python's default), as utils.py computes it. zlib is not linked: the
   first of libz.so.1, libz.so, libz.dylib, zlib1.dll that loads (at each
   call) compresses; without one, GK_ERR_NOT_FOUND saying so (Debian:
   apt-get install zlib1g). A zlib-compatible library with another deflate
   (zlib-ng) may give other lengths. */
GKLLMDEF gk_status gk_whisper_compression_ratio(const char *text, size_t len, double *ratio);
/* sum_logprob / (n_tokens + 1), as decoding.py (the +1 is the eot) */
GKLLMDEF double gk_whisper_avg_logprob(double sum_logprob, size_t n_tokens);
typedef struct gk_whisper_thresholds {
    double compression_ratio;      /* fall back above it; 0: 2.4; NAN: no check */
    double logprob;                /* fall back when avg_logprob is below it; 0: -1.0; NAN: no check */
    double no_speech;              /* silence above it (with avg_logprob below logprob); 0: 0.6; NAN: no check */
    double temperature_increment;  /* 0: 0.2; NAN: one temperature only */
    double temperature_start;      /* 0 */
} gk_whisper_thresholds;
/* decode_with_fallback: 1 when the window is decoded again at the next
   temperature (too repetitive, or too improbable and not silence). th may be NULL. */
GKLLMDEF int gk_whisper_needs_fallback(const gk_whisper_thresholds *th, double compression_ratio, double avg_logprob, double no_speech_prob);
/* transcribe.py's skip: no_speech_prob above the threshold and avg_logprob
   not above logprob (with no logprob check, the first alone). */
GKLLMDEF int gk_whisper_is_no_speech(const gk_whisper_thresholds *th, double no_speech_prob, double avg_logprob);
/* The temperature of attempt k (0, 1, ...): start + k * increment while at
   most 1.0 (+1e-6), as numpy's arange: 0.0, 0.2, 0.4, 0.6000000000000001,
   0.8, 1.0; -1 when there is none. */
GKLLMDEF double gk_whisper_temperature(const gk_whisper_thresholds *th, int attempt);

/* ---- segments ---- */
typedef struct gk_whisper_word {
    char *word;                    /* UTF-8, with its leading space */
    double start, end;             /* seconds, rounded to 0.01 */
    double probability;            /* the mean probability of its tokens */
} gk_whisper_word;
typedef struct gk_whisper_segment {
    int64_t id, seek;              /* seek: the window's first mel frame */
    double start, end;             /* seconds */
    char *text;                    /* UTF-8 */
    int32_t *tokens;               /* with the timestamp tokens */
    size_t n_tokens;
    double temperature, avg_logprob, compression_ratio, no_speech_prob;
    gk_whisper_word *words;        /* gk_whisper_add_words */
    size_t n_words;
} gk_whisper_segment;
/* A transcript: zero-initialise; gk_whisper_segments_free frees every string and array. */
typedef struct gk_whisper_segments {
    gk_whisper_segment *data;
    size_t len, cap;
    int has_words;                 /* words were computed (the writers show words then) */
} gk_whisper_segments;
GKLLMDEF void gk_whisper_segments_free(gk_whisper_segments *s);

/* A decoded window. In: where it is and its DecodingResult's numbers. Out:
   what gk_whisper_segments_add found. */
typedef struct gk_whisper_window {
    int64_t seek;                  /* the window's first mel frame (time offset seek / 100 s) */
    int64_t segment_size;          /* mel frames of audio in it, 1..3000 */
    double temperature, avg_logprob, compression_ratio, no_speech_prob;
    int words;                     /* gk_whisper_add_words follows: it, not segments_add, clears the
                                      empty segments */
    int64_t next_seek;             /* out: the first frame of the next window */
    size_t first;                  /* out: the index of the window's first segment */
    int single_timestamp_ending;   /* out: the tokens end with one timestamp */
} gk_whisper_window;
/* Splits a window's sampled tokens (without eot) into segments, as
   transcribe.py does: at each pair of consecutive timestamps; a single
   timestamp at the end closes the last segment and means no speech after it
   (the next window starts after this one), otherwise the unfinished text
   after the last pair is left out and the next window starts at the last
   timestamp. Tokens without a pair are one segment over the window (up to
   its last timestamp if it has one above <|0.00|>); so are tokens without
   timestamps. Segment text is tok's decoding of the tokens below eot
   (tok NULL: empty text, the tokens kept). With tok, segments whose start
   equals their end, or whose text is blank, are kept with no text and no
   tokens (unless w->words). Appends to out; ids count
   from 0 over out. */
GKLLMDEF gk_status gk_whisper_segments_add(const gk_whisper_tokens *t, const gk_tokenizer *tok, gk_whisper_window *w, const int32_t *tokens, size_t n, gk_whisper_segments *out);

/* ---- word timestamps (timing.py) ---- */
/* Median filter of odd width along each row of x [rows][cols], in place,
   with reflected edges (no repeat of the edge), as timing.py; rows of at
   most width / 2 columns are left alone. */
GKLLMDEF gk_status gk_whisper_median_filter(float *x, int64_t rows, int64_t cols, int width);
/* Dynamic time warping of the cost matrix x [n][m] (timing.py's dtw_cpu:
   float32 costs; from each cell the diagonal when it is strictly the
   cheapest, else up when it is strictly the cheapest, else left). The path
   goes from (0, 0) to (n-1, m-1), each step one row, one column or both:
   rows[k], cols[k] for k < *len (at most n + m - 1; give arrays that long).
   Non-finite x is GK_ERR_FORMAT. */
GKLLMDEF gk_status gk_whisper_dtw(const float *x, int64_t n, int64_t m, int32_t *rows, int32_t *cols, size_t *len);

typedef struct gk_whisper_align_desc {
    int64_t n_cols;                /* columns used: num_frames / 2 of the window; 0: all */
    int medfilt_width;             /* 0: 7 */
    int keep_weights;              /* use the first n_cols columns as given (HF transformers); 0:
                                      rescale them to sum 1, which is whisper's softmax over them */
} gk_whisper_align_desc;
/* The alignment matrix of timing.py: weights [heads][rows][cols] are the
   cross-attention probabilities (softmax over the audio frames) of the
   alignment heads for each decoder position; on the first n_cols columns:
   rescale (see keep_weights), standardise each column over the rows
   (population std; a constant column becomes 0), median filter along the
   columns, average over the heads, into out [rows][n_cols]. */
GKLLMDEF gk_status gk_whisper_attention_matrix(const float *weights, int heads, int64_t rows, int64_t cols, const gk_whisper_align_desc *d, float *out);

typedef struct gk_whisper_words_desc {
    gk_whisper_align_desc align;   /* n_cols 0: the window's segment_size / 2 */
    const char *prepend_punctuations; /* merged into the next word; NULL: "\"'“¿([{-" */
    const char *append_punctuations;  /* merged into the previous word; NULL: "\"'.。,，!！?？:：”)]}、" */
    const char *language;          /* zh, ja, th, lo, my, yue split words at characters; others at spaces */
} gk_whisper_words_desc;
/* add_word_timestamps for the window's segments (segs->data[w->first..]):
   weights [heads][rows][cols] as gk_whisper_attention_matrix takes them, of
   the sequence SOT-sequence + <|notimestamps|> + the segments' text tokens +
   eot, where text_row is the row of <|notimestamps|> (the SOT sequence's
   length) and rows = text_row + n_text + 2; token_probs[n_text] the text
   tokens' probabilities (gk_whisper_text_prob at the row before each).
   DTW on the negated matrix maps tokens to frames; words split as
   tokenizer.py does (tok decodes), with their mean token probability;
   punctuation is merged; words are assigned to segments, rounded to 0.01 s,
   and the long-word and segment-boundary adjustments of transcribe.py are
   made. *last_speech (in/out; 0 at the start of the audio) is the end of
   the last speech. Without a single timestamp ending, w->next_seek moves to
   the end of the last word when that is inside the window. Then the empty
   segments are cleared. On a failure (out of memory) the window's segments
   keep no words. */
GKLLMDEF gk_status gk_whisper_add_words(const gk_whisper_tokens *t, const gk_tokenizer *tok, const gk_whisper_words_desc *d, const float *weights, int heads,
                                        int64_t rows, int64_t cols, size_t text_row, const float *token_probs, gk_whisper_window *w, gk_whisper_segments *segs,
                                        double *last_speech);

/* ---- writers (utils.py) ---- */
typedef enum gk_whisper_format {
    GK_WHISPER_TXT = 1,            /* each segment's text, stripped, one a line */
    GK_WHISPER_SRT,                /* 1-based cues, HH:MM:SS,mmm */
    GK_WHISPER_VTT,                /* "WEBVTT", MM:SS.mmm (HH:MM:SS.mmm from an hour) */
    GK_WHISPER_TSV,                /* start and end in integer milliseconds, text */
    GK_WHISPER_JSON                /* {"text", "segments": [...], "language"} */
} gk_whisper_format;
/* Appends the transcript in a format to out. SRT / VTT cues are the
   segments, or with words (has_words) each segment's words on one line
   (whisper's default, without line-width options). JSON: text (NULL: the
   segments' texts joined), segments with id, seek, start, end, text,
   tokens, temperature, avg_logprob, compression_ratio, no_speech_prob and,
   with has_words, words (word, start, end, probability), and language
   (left out when NULL); strings keep their UTF-8 (json.dump writes \u
   escapes), invalid UTF-8 becomes U+FFFD, numbers print as Python's repr,
   and NaN / inf as null (Python writes NaN, which JSON lacks). A negative
   time is GK_ERR_INVALID_ARGUMENT naming the segment. */
GKLLMDEF gk_status gk_whisper_write(const gk_whisper_segments *s, gk_whisper_format f, const char *text, const char *language, gk_buf *out);
/* the same written to fp (GK_ERR_IO when the write fails) */
#ifdef __cplusplus
}
#endif
#include <stdio.h>
#ifdef __cplusplus
extern "C" {
#endif
GKLLMDEF gk_status gk_whisper_write_file(const gk_whisper_segments *s, gk_whisper_format f, const char *text, const char *language, FILE *fp);
