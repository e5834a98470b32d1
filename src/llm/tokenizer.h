/* ======================================================================== */
/* >>api_tokenizer                                                          */
/* ======================================================================== */

typedef struct gk_tokenizer gk_tokenizer;

enum {
    GK_TOK_ADD_SPECIAL   = 1, /* encode: run the post-processor (adds BOS etc.)  */
    GK_TOK_SPLIT_SPECIAL = 2, /* encode: special tokens in the text are plain text */
    GK_TOK_SKIP_SPECIAL  = 4  /* decode: leave special tokens out of the text      */
};

/* Loads a Hugging Face tokenizer.json (BPE model). Unsupported components
   (another model type, an unknown split regex, ...) give GK_ERR_UNSUPPORTED
   with a message that names them. As in HF tokenizers, model.vocab and
   model.merges are required ("merges": [] is a BPE without merges); fields
   of the wrong type, an unk_token missing from the vocab and unknown
   Metaspace prepend_scheme values are GK_ERR_FORMAT naming the field.
   truncation and padding are ignored, as transformers' tokenizers do by
   default. */
GKLLMDEF gk_status gk_tokenizer_load(const char *path, gk_tokenizer **out);
GKLLMDEF gk_status gk_tokenizer_load_mem(const char *json, size_t len, gk_tokenizer **out);
GKLLMDEF gk_status gk_tokenizer_from_json(const gk_json_value *root, gk_tokenizer **out);
GKLLMDEF void gk_tokenizer_free(gk_tokenizer *tok);
/* Largest id + 1 (model vocab and added tokens). */
GKLLMDEF size_t gk_tokenizer_vocab_size(const gk_tokenizer *tok);
/* Token text as stored in tokenizer.json (byte-level tokens in mapped form); NULL if unknown id. */
GKLLMDEF const char *gk_tokenizer_id_to_token(const gk_tokenizer *tok, int32_t id, size_t *len);
GKLLMDEF int32_t gk_tokenizer_token_to_id(const gk_tokenizer *tok, const char *token, size_t len); /* -1 if none */
GKLLMDEF int gk_tokenizer_is_special(const gk_tokenizer *tok, int32_t id);
/* Appends the ids of text[0..len) to out. flags: GK_TOK_ADD_SPECIAL, GK_TOK_SPLIT_SPECIAL (others: GK_ERR_INVALID_ARGUMENT).
   Safe to call from several threads on one tokenizer. */
GKLLMDEF gk_status gk_tokenizer_encode(const gk_tokenizer *tok, const char *text, size_t len, unsigned flags, gk_ids *out);
/* Appends the text of ids to out (valid UTF-8). flags: GK_TOK_SKIP_SPECIAL (others: GK_ERR_INVALID_ARGUMENT).
   Unknown ids are an error (GK_ERR_NOT_FOUND). */
GKLLMDEF gk_status gk_tokenizer_decode(const gk_tokenizer *tok, const int32_t *ids, size_t n, unsigned flags, gk_buf *out);

/* Streaming decode: push ids one at a time; only complete UTF-8 characters
   are appended to out, the bytes of an unfinished character wait for the
   next id; gk_tok_stream_flush emits what is left (U+FFFD for an unfinished
   character). The concatenated output equals gk_tokenizer_decode's for valid
   UTF-8 output. Zero-initialise via gk_tok_stream_init. */
typedef struct gk_tok_stream {
    const gk_tokenizer *tok;
    unsigned flags;
    int at_start;              /* nothing emitted yet (for leading-space strip) */
    size_t npend;
    unsigned char pend[8];     /* bytes of an unfinished UTF-8 character */
    int pend_is_fallback;      /* pending bytes come from <0xXX> tokens */
    size_t ntok;               /* tokens pushed so far */
    size_t nstripped;          /* leading characters removed by a Strip decoder */
} gk_tok_stream;
GKLLMDEF void gk_tok_stream_init(gk_tok_stream *s, const gk_tokenizer *tok, unsigned flags);
GKLLMDEF gk_status gk_tok_stream_push(gk_tok_stream *s, int32_t id, gk_buf *out);
GKLLMDEF gk_status gk_tok_stream_flush(gk_tok_stream *s, gk_buf *out);

