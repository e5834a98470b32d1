/* ======================================================================== */
/* >>api_model                                                              */
/* ======================================================================== */
/* Transformer LLM runtime on gpukit's ops (the same code on the CUDA and CPU
   backends): LlamaForCausalLM (Llama 2 / 3 / 3.1 / 3.2, llama3 RoPE scaling,
   tied embeddings), MistralForCausalLM, Qwen2ForCausalLM (q/k/v bias) and
   Qwen3ForCausalLM (q/k RMS norm, explicit head_dim), read from a Hugging
   Face model folder (config.json, generation_config.json, *.safetensors,
   tokenizer.json, tokenizer_config.json / chat_template.jinja).
   Errors of the gk_llm_* functions are recorded on the model's context
   (gk_llm_load's ctx), the tokenizer's and JSON files' included: read them
   with gk_last_error(ctx); the thread's message (gk_last_error(NULL)) is
   left alone, except for a NULL ctx or model (ERRORS at the top). Nothing is
   left allocated by a failed call.

   Per layer: x = rms_norm(h); qkv = x Wqkv^T (+ b); RoPE on q, k at the
   sequence positions; k, v written into the KV cache; attention (causal,
   GQA); h += o_proj; x = rms_norm(h); h += down(silu(gate(x)) * up(x)).
   q/k/v and gate/up weights are fused at load time (one GEMV each; Qwen3's
   q/k norm keeps q, k, v apart). The KV cache is one tensor per layer,
   [max_seqs, max_ctx, 2 * kv_heads, head_dim] (K heads then V heads, no
   expanded heads), so one RoPE call covers q and k and one gk_kv_write
   stores k and v. A decode step of a batch size is captured once as a graph and
   replayed; positions, lengths and token ids live in device memory. */
typedef struct gk_llm gk_llm;

typedef enum gk_llm_arch { GK_LLM_LLAMA = 1, GK_LLM_MISTRAL, GK_LLM_QWEN2, GK_LLM_QWEN3 } gk_llm_arch;
/* Compute dtype; DEFAULT is bf16. */
typedef enum gk_llm_dtype { GK_LLM_DTYPE_DEFAULT = 0, GK_LLM_DTYPE_BF16, GK_LLM_DTYPE_F16, GK_LLM_DTYPE_F32 } gk_llm_dtype;

typedef struct gk_llm_config {
    gk_llm_arch arch;
    char arch_name[64];            /* config.json's architectures[0] */
    int64_t hidden, layers, heads, kv_heads, head_dim, inter, vocab, max_pos;
    double rms_eps;
    int tie_embeddings;            /* lm_head is embed_tokens */
    int qkv_bias;                  /* q/k/v projections have biases (Qwen2, attention_bias) */
    int o_bias;                    /* o_proj has a bias (attention_bias) */
    int qk_norm;                   /* Qwen3 q_norm / k_norm */
    int64_t sliding_window;        /* 0: none */
    gk_rope_config rope;           /* old (rope_theta / rope_scaling) or new (rope_parameters) form */
    int new_rope_form;
    int32_t bos_id;                /* -1: none */
    int32_t eos_ids[8];            /* generation_config.json's eos_token_id, else config.json's */
    int n_eos;
    /* generation_config.json defaults (greedy when do_sample is false or absent) */
    int do_sample;
    gk_sample_desc sample;
    int64_t max_new_tokens;        /* 0: not given */
    gk_dtype weights_dtype;        /* of the first weight in the files */
} gk_llm_config;

typedef struct gk_llm_desc {
    gk_llm_dtype dtype;            /* compute dtype (weights are converted on load) */
    int64_t max_ctx;               /* tokens per sequence; 0: min(max_position_embeddings, 4096); above
                                      max_position_embeddings: GK_ERR_LIMIT */
    int max_seqs;                  /* sequences decoded together, 1..256; 0: 1 */
    gk_st_progress_fn progress;    /* weight upload progress (bytes), may be NULL */
    void *user;
    int no_graphs;                 /* run each decode step op by op instead of replaying a graph */
} gk_llm_desc;

/* Loads a model folder. Reads and checks config.json and
   generation_config.json (every field the runtime uses: its type, its range,
   its relations to the others, such as num_attention_heads a multiple of
   num_key_value_heads or EOS ids inside vocab_size; GK_ERR_FORMAT naming the
   file and field), every tensor's presence and shape (before anything is
   allocated on the device; lm_head.weight unless tie_word_embeddings), the
   tokenizer and chat template, then uploads the weights in the compute dtype
   and allocates the KV cache (GK_ERR_OUT_OF_MEMORY when it does not fit).
   Unsupported architectures or fields are GK_ERR_UNSUPPORTED naming them. */
GKLLMDEF gk_status gk_llm_load(gk_ctx *ctx, const char *dir, const gk_llm_desc *desc, gk_llm **out);
GKLLMDEF void gk_llm_free(gk_llm *m);
GKLLMDEF const gk_llm_config *gk_llm_get_config(const gk_llm *m);
GKLLMDEF const gk_tokenizer *gk_llm_tokenizer(const gk_llm *m);
GKLLMDEF gk_dtype gk_llm_compute_dtype(const gk_llm *m);
GKLLMDEF int64_t gk_llm_max_ctx(const gk_llm *m);
/* Bytes of weights and KV cache (per token of context, all layers) on the device. */
GKLLMDEF uint64_t gk_llm_weight_bytes(const gk_llm *m);
GKLLMDEF uint64_t gk_llm_kv_bytes_per_token(const gk_llm *m);

/* The stream the model's work runs on (a scheduler task's stream, say); NULL:
   the model's own (made at load). The model's calls wait for that stream. */
GKLLMDEF gk_status gk_llm_set_stream(gk_llm *m, gk_stream *s);

/* Sequence state: tokens in sequence seq's cache (0 after load or reset). */
GKLLMDEF int64_t gk_llm_seq_len(const gk_llm *m, int seq);
GKLLMDEF gk_status gk_llm_reset(gk_llm *m, int seq);
/* Prefill: runs ids[0..n) of sequence seq at positions len..len+n-1 (GEMM
   and flash attention; the cache keeps them) and copies f32 logits to the
   host: the last position's [vocab], or with all every position's
   [n, vocab]. logits may be NULL. A sequence that would pass max_ctx is
   GK_ERR_LIMIT, with nothing run. Logits are computed in the compute dtype
   (as HF does) and converted; copied logits that are not finite are
   GK_ERR_FORMAT naming the position (the sequence keeps its length). */
GKLLMDEF gk_status gk_llm_forward(gk_llm *m, int seq, const int32_t *ids, size_t n, int all, float *logits);

/* Generation. The callback gets each new token and its text (complete UTF-8
   characters; the text may include the start of a stop string, which the
   returned text leaves out); a nonzero return stops that sequence. */
typedef int (*gk_llm_token_fn)(int seq, int32_t id, const char *text, size_t len, void *user);
enum {
    GK_LLM_SAMPLE_DEFAULT = 0,     /* generation_config.json's settings (greedy without one), desc->seed */
    GK_LLM_SAMPLE_GREEDY,
    GK_LLM_SAMPLE_CUSTOM           /* desc->sample (its seed too) */
};
enum {
    GK_LLM_GEN_IGNORE_EOS = 1,     /* do not stop at EOS tokens */
    GK_LLM_GEN_NO_THINKING = 2     /* chat: Qwen3 enable_thinking=false */
};
typedef struct gk_llm_gen_desc {
    int64_t max_new_tokens;        /* 0: generation_config.json's max_new_tokens, else 256; < 0: an error */
    int sampling;                  /* GK_LLM_SAMPLE_* */
    gk_sample_desc sample;         /* GK_LLM_SAMPLE_CUSTOM */
    uint64_t seed;                 /* GK_LLM_SAMPLE_DEFAULT */
    const char *const *stop;       /* n_stop stop strings, each non-empty (NULL only with n_stop 0) */
    int n_stop;
    gk_llm_token_fn on_token;
    void *user;
    unsigned flags;                /* GK_LLM_GEN_* */
    float *first_logits;           /* optional [vocab]: the logits of sequence 0's first new token */
    float *step_logits;            /* optional [max_new_tokens, vocab]: sequence 0's logits before each of
                                      its new tokens (a device -> host copy per step: for checks) */
} gk_llm_gen_desc;

typedef struct gk_llm_stats {
    int64_t prompt_tokens, new_tokens;  /* over all sequences */
    int64_t decode_steps;               /* graph replays (batched steps) */
    double prefill_s, decode_s;         /* wall time; prefill includes the first sample */
    double prefill_tok_s, decode_tok_s; /* tokens per second (decode: all sequences) */
} gk_llm_stats;

/* n independent prompts (token ids) decoded together in sequences 0..n-1
   (n <= max_seqs; their caches are reset first): each weight read serves
   all of them. outs[i] / texts[i] (each may be NULL) get the new ids and
   text of prompt i. Stops at EOS, a stop string, max_new_tokens or the
   context's end. A token that cannot be sampled because its logits are all
   NaN or -inf (NaN or infinite weights, an overflow of the compute dtype)
   is GK_ERR_FORMAT naming the new token, its position and (n > 1) the
   sequence, on every backend: the sampled ids come to the host each step,
   so it costs no extra synchronisation; logits copied to the host
   (first_logits, step_logits) are checked whole. Nothing is appended to
   outs / texts by a call that fails. */
GKLLMDEF gk_status gk_llm_generate_batch(gk_llm *m, const int32_t *const *prompts, const size_t *lens, int n,
                                         const gk_llm_gen_desc *desc, gk_ids *outs, gk_buf *texts, gk_llm_stats *stats);
/* One text prompt (tokenized with the tokenizer's special tokens) in sequence 0. */
GKLLMDEF gk_status gk_llm_generate(gk_llm *m, const char *prompt, const gk_llm_gen_desc *desc, gk_ids *out, gk_buf *text,
                                   gk_llm_stats *stats);
/* The chat template applied to msgs (with the generation prompt), tokenized
   as HF apply_chat_template does (no extra special tokens). */
GKLLMDEF gk_status gk_llm_chat_ids(gk_llm *m, const gk_chat_message *msgs, size_t n, unsigned flags, gk_ids *out);
GKLLMDEF gk_status gk_llm_chat(gk_llm *m, const gk_chat_message *msgs, size_t n, const gk_llm_gen_desc *desc, gk_ids *out,
                               gk_buf *text, gk_llm_stats *stats);

