/* ======================================================================== */
/* >>api_whisper                                                            */
/* ======================================================================== */
/* The Whisper model on gpukit's ops (the same code on the CUDA and CPU
   backends), read from a Hugging Face WhisperForConditionalGeneration
   folder: config.json, model.safetensors (or shards with
   model.safetensors.index.json), and when present generation_config.json
   and tokenizer.json. Errors are recorded on the model's context
   (gk_whisper_load's ctx; gk_last_error(ctx)), the JSON files' and the
   decoding rules' included; a NULL model is the thread's error. Nothing is
   left allocated by a failed call.

   Encoder, for B windows at once: log-mel [B, n_mels, 3000] -> conv1 (k 3,
   pad 1) + GELU -> conv2 (k 3, stride 2, pad 1) + GELU -> [B, 1500, d] +
   embed_positions -> pre-LN blocks (x += out_proj(attention(LN(x))), x +=
   fc2(gelu(fc1(LN(x))))) -> layer_norm. Its output goes straight into each
   decoder layer's cross-attention K and V (computed once per window and
   kept in the window's sequence slot); gk_whisper_encode can copy it out.
   Decoder, per sequence: embed_tokens[id] + embed_positions[position] ->
   pre-LN blocks with causal self-attention over a KV cache, cross-attention
   to the window's K / V, MLP -> layer_norm -> logits = h embed_tokens^T
   (proj_out.weight when tie_word_embeddings is false). Layer norms use eps
   1e-5 (torch.nn.LayerNorm's); attention scale 1 / sqrt(head_dim).
   q / k / v weights are fused at load time (k_proj has no bias: its part
   of the fused bias is zero), the cross-attention's k / v too.

   Windows and rows: a model loaded with max_windows W and max_beams B
   holds W windows (each window's cross-attention K / V, filled by
   gk_whisper_encode) and W * B decoder rows (each a token sequence with its
   self-attention KV cache); row r belongs to window r / B. Beam search runs
   a window's B candidates on its B rows; batched transcription runs several
   windows' rows in one decode step (gk_whisper_decode_step), captured once
   as a graph and replayed. */
typedef struct gk_whisper_model gk_whisper_model;

typedef struct gk_whisper_config {
    int64_t d_model;
    int64_t encoder_layers, decoder_layers;
    int64_t encoder_heads, decoder_heads;      /* encoder/decoder_attention_heads */
    int64_t encoder_ffn, decoder_ffn;          /* encoder/decoder_ffn_dim */
    int64_t n_mels;                            /* num_mel_bins: 80 or 128 */
    int64_t n_audio_ctx;                       /* max_source_positions: 1500 (3000 mel frames) */
    int64_t n_text_ctx;                        /* max_target_positions: 448 */
    int64_t vocab;                             /* vocab_size */
    int32_t decoder_start_id;                  /* <|startoftranscript|> (decoder_start_token_id) */
    int32_t eos_id;                            /* <|endoftext|>: eos_token_id; -1 if not given */
    int tie_embeddings;                        /* logits from embed_tokens (tie_word_embeddings, default true) */
    gk_dtype weights_dtype;                    /* of model.encoder.conv1.weight in the files */
    /* generation_config.json (absent: has_generation_config 0 and the defaults below) */
    int has_generation_config;
    int is_multilingual;                       /* 1, -1 (English-only, is_multilingual false), 0 not given */
    const int32_t *suppress_tokens;            /* the list as given (NULL, 0: not given) */
    size_t n_suppress_tokens;
    const int32_t *begin_suppress_tokens;      /* not given: NULL, 0 */
    size_t n_begin_suppress_tokens;
    int64_t max_initial_timestamp_index;       /* -1: none (null); not given: 50 (whisper's 1.0 s) */
    const int32_t *alignment_heads;            /* [n_alignment_heads][2]: (layer, head) pairs */
    size_t n_alignment_heads;
} gk_whisper_config;

typedef struct gk_whisper_desc {
    gk_llm_dtype dtype;            /* compute dtype; DEFAULT: F32 on the CPU backend, BF16 on CUDA */
    int max_windows;               /* windows encoded together (cross-attention slots), 1..64; 0: 1 */
    int max_beams;                 /* decoder rows per window (beam search), 1..16; 0: 1 */
    int64_t max_ctx;               /* decoder tokens per sequence, 1..max_target_positions; 0: max_target_positions */
    gk_st_progress_fn progress;    /* weight upload progress (bytes on the device), may be NULL */
    void *user;
} gk_whisper_desc;

/* Loads a model folder. config.json is checked field by field (type, range,
   relations such as d_model a multiple of the head counts; GK_ERR_FORMAT
   naming the file and field; an activation other than "gelu" is
   GK_ERR_UNSUPPORTED), then every tensor's presence (GK_ERR_NOT_FOUND
   naming it and the folder), dtype and shape against the config
   (GK_ERR_SHAPE naming the tensor, its shape and the config's) before
   anything is allocated on the device; then the weights are uploaded in the
   compute dtype. A folder without config.json or weights: GK_ERR_IO naming
   the missing file. The special tokens come from the folder's tokenizer
   (gk_whisper_tokenizer_load: tokenizer.json, or vocab.json + merges.txt)
   when it has one, else from generation_config.json (decoder_start_token_id,
   eos_token_id, no_timestamps_token_id, prev_sot_token_id, lang_to_id,
   task_to_id: the ids between <|transcribe|> and <|notimestamps|> follow
   OpenAI's order), else from OpenAI's layouts by vocab_size (51864, 51865,
   51866); without any, the model loads but gk_whisper_model_tokens is NULL and
   gk_whisper_transcribe refuses. HF ignores config.json's scale_embedding
   (the embeddings are never scaled); so does this. */
GKLLMDEF gk_status gk_whisper_load(gk_ctx *ctx, const char *dir, const gk_whisper_desc *desc, gk_whisper_model **out);
/* The tokenizer of a Whisper folder: tokenizer.json, else vocab.json +
   merges.txt (+ added_tokens.json; its entries and vocab.json's <|...|>
   ones are special tokens) read as
   GPT-2's byte-level BPE, as HF's converter builds tokenizer.json from them
   (without a post-processor: GK_TOK_ADD_SPECIAL adds nothing; Whisper's
   prompts come from gk_whisper_prompt). Neither: GK_ERR_NOT_FOUND naming the
   file missing. Context-free: errors
   are the thread's. gk_whisper_load uses it. */
GKLLMDEF gk_status gk_whisper_tokenizer_load(const char *dir, gk_tokenizer **out);
GKLLMDEF void gk_whisper_free(gk_whisper_model *m);
GKLLMDEF const gk_whisper_config *gk_whisper_get_config(const gk_whisper_model *m);
/* the special tokens (NULL when the folder does not say them) and the tokenizer (NULL without tokenizer.json) */
GKLLMDEF const gk_whisper_tokens *gk_whisper_model_tokens(const gk_whisper_model *m);
GKLLMDEF const gk_tokenizer *gk_whisper_model_tokenizer(const gk_whisper_model *m);
GKLLMDEF gk_dtype gk_whisper_compute_dtype(const gk_whisper_model *m);
GKLLMDEF int gk_whisper_max_windows(const gk_whisper_model *m);
GKLLMDEF int gk_whisper_max_beams(const gk_whisper_model *m);
GKLLMDEF int64_t gk_whisper_max_ctx(const gk_whisper_model *m);
/* The stream the model's work runs on; NULL: the model's own. */
GKLLMDEF gk_status gk_whisper_set_stream(gk_whisper_model *m, gk_stream *s);

/* The log-mel features of one 30 s window, as HF's WhisperFeatureExtractor
   (gk_whisper_log_mel with the model's n_mels filters): samples at 16 kHz,
   zero-padded to 30 s (the first 30 s when longer), into mel [n_mels, 3000]
   f32 on the host. n == 0 is GK_ERR_INVALID_ARGUMENT; a NaN or infinite
   sample gives non-finite features, reported as GK_ERR_FORMAT. */
GKLLMDEF gk_status gk_whisper_mel(gk_whisper_model *m, const float *samples, size_t n, float *mel);

/* Runs the encoder on n windows, mel [n, n_mels, 3000] f32 on the host, into
   windows seq0..seq0+n-1: each window's cross-attention K / V are computed
   and its rows reset (length 0). enc_out (may be NULL) gets the encoder
   output [n, 1500, d_model] as f32. */
GKLLMDEF gk_status gk_whisper_encode(gk_whisper_model *m, const float *mel, int n, int seq0, float *enc_out);
/* The same with the features on the device: mel f32 [n, n_mels, 3000] (or [n_mels, 3000] for one window). */
GKLLMDEF gk_status gk_whisper_encode_tensor(gk_whisper_model *m, gk_tensor mel, int seq0, float *enc_out);

/* Decoder state of a row: tokens in its cache (-1 outside the rows). */
GKLLMDEF int64_t gk_whisper_seq_len(const gk_whisper_model *m, int row);
/* Forgets the row's tokens (its window's K / V stay). */
GKLLMDEF gk_status gk_whisper_reset(gk_whisper_model *m, int row);
/* Runs ids[0..n) of row seq at positions len..len+n-1 (the cache keeps
   them) and copies f32 logits to the host: the last position's [vocab], or
   with all every position's [n, vocab] (logits may be NULL). A row whose
   window is not encoded is GK_ERR_STATE; passing max_ctx is GK_ERR_LIMIT
   with nothing run; ids outside the vocabulary are GK_ERR_INVALID_ARGUMENT;
   non-finite logits are GK_ERR_FORMAT naming the position (the row keeps
   its length). This is the prompt's path (one row, many tokens). */
GKLLMDEF gk_status gk_whisper_decode(gk_whisper_model *m, int seq, const int32_t *ids, size_t n, int all, float *logits);
/* One decoding step of rows row0..row0+n-1 at once: row row0+i appends
   ids[i] at its own length, and the next token's logits [n][vocab] and their
   log-sum-exp per row [n] (f32, computed on the device) come back to the
   host: into logits and lse when not NULL, and in the model's page-locked
   buffers (gk_whisper_step_logits) either way. The rows cover whole windows
   (row0 and n multiples of max_beams) and each has its prompt
   (gk_whisper_decode) already; ids[i] < 0 skips row i (it is computed but
   keeps its length; its logits are undefined). The step's ops are captured
   as a graph on the second use of the same rows and cache bucket (128 << k
   rows) and replayed after, on either backend; positions and lengths are
   read on the device. The same errors as gk_whisper_decode (a row whose
   log-sum-exp is not finite: GK_ERR_FORMAT naming the logit), with nothing
   appended on a failure. */
GKLLMDEF gk_status gk_whisper_decode_step(gk_whisper_model *m, int row0, int n, const int32_t *ids, float *logits, float *lse);
/* The last successful step's logits [n][vocab] and lse [n] in the model's
   buffers (valid until the next gk_whisper_decode_step); returns n, 0 (and
   NULLs) when the last step failed or none ran. */
GKLLMDEF int gk_whisper_step_logits(const gk_whisper_model *m, const float **logits, const float **lse);
/* Beam search's reordering of a window's rows: row window * B + i becomes a
   copy of the old row window * B + src[i] (src [max_beams], in 0..B-1), cache
   (the filled positions) and length, queued on the model's stream without a
   host sync. Identity: nothing runs. */
GKLLMDEF gk_status gk_whisper_reorder(gk_whisper_model *m, int window, const int32_t *src);

/* The alignment heads used for word timestamps, (layer, head) pairs [n][2]:
   generation_config.json's alignment_heads, else every head of the last
   half of the decoder layers (OpenAI whisper's default). */
GKLLMDEF const int32_t *gk_whisper_alignment_heads(const gk_whisper_model *m, size_t *n);
/* Runs ids[0..n) teacher-forced on row (which starts empty and is left
   empty) and gives the cross-attention probabilities of the alignment heads
   over the window's frames, softmax(q k^T / sqrt(head_dim)):
   weights [n_heads][n][1500] f32, and (logits not NULL) every position's
   logits [n][vocab]: what word timestamps need (gk_whisper_add_words). */
GKLLMDEF gk_status gk_whisper_cross_weights(gk_whisper_model *m, int row, const int32_t *ids, size_t n, float *weights, float *logits);

/* ---- greedy transcription of one window ---- */
typedef struct gk_whisper_transcribe_desc {
    const char *language;          /* multilingual: a code or name; NULL: "en" (gk_whisper_transcribe_long detects) */
    int translate;                 /* task: 0 transcribe, 1 translate */
    int timestamps;                /* 1: timestamp tokens with the timestamp rules; 0: <|notimestamps|> */
    int64_t max_tokens;            /* decoding steps at most, the eot's included (HF's max_new_tokens);
                                      0: n_text_ctx / 2 (whisper's sample_len) */
    int custom_suppress;           /* 1: suppress / n_suppress below instead of generation_config.json's */
    const int32_t *suppress;       /*   suppress_tokens (-1: the non-speech symbols: needs tokenizer.json) */
    size_t n_suppress;
    int seq;                       /* the model window used (its first row decodes); 0 */
    float *mel;                    /* optional out: the window's log-mel [n_mels, 3000] */
} gk_whisper_transcribe_desc;
typedef struct gk_whisper_result {
    size_t sot_index;              /* the prompt's <|startoftranscript|> row */
    size_t sample_begin;           /* prompt tokens before the first sampled one */
    int ended;                     /* 1: eot was sampled (not in the tokens) */
    double sum_logprob;            /* of the sampled tokens after the filters (eot left out) */
    double avg_logprob;            /* sum_logprob / (tokens + 1), as decoding.py */
    double no_speech_prob;         /* softmax at the SOT row; NaN without a no-speech token */
} gk_whisper_result;
/* One 30 s window of samples at 16 kHz (the first 30 s of longer audio):
   log-mel, encoder, the prompt (gk_whisper_prompt: SOT [+ language + task]
   [+ <|notimestamps|>]), then greedy decoding: each step's logits go
   through gk_whisper_filter (begin suppression of " " and eot, the
   suppress list from gk_whisper_suppress_list, and with timestamps the
   timestamp rules with generation_config.json's
   max_initial_timestamp_index) and the first largest logit is taken, until
   eot, max_tokens steps or the end of the context. out gets the sampled
   tokens without eot (appended); res (may be NULL) the rest. */
GKLLMDEF gk_status gk_whisper_transcribe(gk_whisper_model *m, const float *samples, size_t n, const gk_whisper_transcribe_desc *desc, gk_ids *out,
                                         gk_whisper_result *res);
/* The same from a gk_audio (its rate must be 16000). */
GKLLMDEF gk_status gk_whisper_transcribe_audio(gk_whisper_model *m, const gk_audio *a, const gk_whisper_transcribe_desc *desc, gk_ids *out,
                                               gk_whisper_result *res);
