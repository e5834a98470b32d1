/* gpukit_llm.h - v0.1 - model files and tokenizers for gpukit, in C.
   No warranty implied; use at your own risk. See end of file for license information.

   WHAT IT IS
     A single-file (stb style) companion to gpukit.h for loading language models:
       - JSON     : a strict RFC 8259 parser with a small DOM and lookup API
       - safetensors : open a file or a sharded set (model.safetensors.index.json),
                    mmap, validate the header exactly, list tensors, read a tensor
                    converted to any gpukit dtype, upload to a gpukit tensor
       - tokenizers : Hugging Face tokenizer.json BPE (byte-level: GPT-2 /
                    Whisper, Qwen2/2.5/3, Llama-3; SentencePiece-style:
                    Llama-2 / Mistral), added/special tokens, post-processor,
                    decode, streaming decode
       - chat templates : built-in ChatML (Qwen), Qwen3, Llama-3, Llama-2 and
                    Mistral [INST] formats, chosen by recognising
                    tokenizer_config.json's chat_template
       - audio    : WAV files (PCM, float, extensible, RF64) mixed to mono and
                    resampled to 16 kHz; WAV writing
       - Whisper rules : special tokens, languages, prompts, logit filters and
                    timestamp rules, beam search bookkeeping, segments, word
                    timestamps, SRT / WebVTT / JSON writers (the model is to come)
     Everything except gk_st_upload() is CPU-only and needs no GPU.

   USAGE
     Do this:
        #define GPUKIT_LLM_IMPLEMENTATION
     before you include this file in *one* C or C++ file to create the
     implementation. gpukit_llm.h includes "gpukit.h" and uses only its public
     API; gpukit.h's own implementation (GPUKIT_IMPLEMENTATION) may live in the
     same or another translation unit. Link with -ldl -lm -lpthread.

        gk_tokenizer *tok;
        gk_ids ids = {0};
        if (gk_tokenizer_load("tokenizer.json", &tok) != GK_OK)
            fprintf(stderr, "%s\n", gk_last_error(NULL));
        gk_tokenizer_encode(tok, "Hello world", 11, GK_TOK_ADD_SPECIAL, &ids);
        ... ids.data[0..ids.len) ...
        gk_ids_free(&ids); gk_tokenizer_free(tok);

        gk_safetensors *st;
        gk_st_open("model_dir/", &st);            // file, index.json or folder
        const gk_st_tensor_info *ti = gk_st_find(st, "model.norm.weight");
        float *w = malloc(ti->numel * sizeof(float));
        gk_st_read(st, ti->name, GK_F32, w, ti->numel * sizeof(float));
        gk_st_close(st);

   ERRORS
     Functions return gk_status (GK_OK == 0) and record a message that names
     the input at fault (file, field, option). Where it is recorded:
       - A call that takes a context, or an object bound to one, records it on
         that context; read it with gk_last_error(ctx). These are
         gk_st_upload (its ctx) and the gk_llm_* functions (the ctx given to
         gk_llm_load). The calling thread's message is left as it was, also
         when the failure is in a context-free part such as the tokenizer or
         a JSON file: that message moves to the context, after the call's
         name ("gk_llm_load: <dir>/tokenizer.json: JSON: ...").
       - A call without a context (JSON, safetensors open / read, tokenizers,
         chat templates, gk_buf / gk_ids, gk_read_file) records it for the
         calling thread; read it with gk_last_error(NULL). It leaves every
         context's message alone.
       - A NULL context or model (gk_st_upload(NULL, ...), gk_llm_forward(NULL,
         ...)) is reported to the calling thread.
     A message names the input at fault the way the caller wrote it: the
     argument ("gk_tokenizer_load: path is NULL"), the desc field
     ("gk_llm_gen_desc.stop is NULL but n_stop is 2"; a NULL pointer with a
     nonzero count is GK_ERR_INVALID_ARGUMENT, like gk_kernel_launch's), the
     file and field ("<dir>/config.json: rms_norm_eps = -1 must be > 0"). Flag
     bits a call does not define are GK_ERR_INVALID_ARGUMENT. Input files are
     checked when they are read, not when a value is first used.
     Read a message after a call that failed: successful calls do not clear
     it. Out of host memory is GK_ERR_OUT_OF_MEMORY, with nothing left
     allocated. JSON errors give line and column. Nothing in this file
     aborts, and no input, however malformed, makes it read out of bounds.

   COMPILE-TIME OPTIONS
     GPUKIT_LLM_STATIC        make every function static (private to one TU)
     GKLLMDEF                 override the declaration prefix
     GPUKIT_MALLOC/GPUKIT_REALLOC/GPUKIT_FREE   host allocator (all or none),
                              gpukit.h's own option: define the three once,
                              before including either header, and both
                              implementations use them, in one translation
                              unit or two. Every host allocation here goes
                              through them, and what this file hands out is
                              freed by its own functions: gk_buf_free,
                              gk_ids_free, gk_read_file_free, gk_json_free,
                              gk_st_close, gk_tokenizer_free, gk_llm_free,
                              gk_audio_free.

   WHAT IT DOES NOT DO
     - no regex engine: the pre-tokenizer split patterns of GPT-2, Qwen2/3 and
       Llama-3 are recognised by their exact text and run by hand-written
       scanners; any other pattern is reported as GK_ERR_UNSUPPORTED
     - only BPE models (no WordPiece / Unigram); BPE dropout is ignored
       (inference behaviour)
     - no Jinja: chat templates are recognised, not interpreted; an unknown
       template is an error that quotes it
     - JSON numbers with a fraction/exponent are converted with strtod and so
       follow the C locale's decimal point (the default "C" locale is fine)

   BEHAVIOUR ON INVALID UTF-8 TEXT (tokenizer input)
     Input text is bytes. Each byte that is not part of a valid UTF-8
     sequence is treated as one character of class "other":
       - byte-level BPE (GPT-2/Qwen/Llama-3): the raw byte goes through the
         byte-to-unicode map like any other byte, so encoding never fails and
         decode() gives the same bytes back
       - SentencePiece BPE with byte_fallback: the byte becomes <0xXX>;
         without byte_fallback it becomes the unk token (or is dropped when
         there is none, like HF)
       - NFC leaves such bytes untouched.
     decode() produces valid UTF-8: byte sequences that are not valid UTF-8
     are replaced by U+FFFD (one per maximal invalid subpart, like Rust's
     from_utf8_lossy); ByteFallback groups that are not valid UTF-8 give one
     U+FFFD per byte, like HF.

   TABLE OF CONTENTS (grep for the >>anchors; the source of each part is under src/)
   API
      >>api_common            llm/common.h            buffers, shared helpers
      >>api_json              llm/json.h              JSON parser and DOM
      >>api_safetensors       llm/safetensors.h       safetensors reader
      >>api_tokenizer         llm/tokenizer.h         tokenizer.json BPE tokenizers
      >>api_chat              llm/chat.h              chat templates
      >>api_model             llm/model.h             transformer LLM: load, KV cache, prefill / decode, sampling, generation
      >>api_audio             asr/audio.h             audio: WAV files, mixing to mono, resampling to 16 kHz
      >>api_whisper_rules     asr/whisper_rules.h     Whisper decoding: tokens, prompt, filters, beams, fallback, segments, words, SRT / VTT / JSON
      >>api_whisper           asr/whisper_model.h     Whisper model: load, log-mel, encoder, KV-cached decoder, greedy transcription
      >>api_whisper_long      asr/whisper_long.h      Whisper long-form transcription: windows, seek, previous-text prompts
      >>api_kokoro            tts/kokoro.h            Kokoro-82M text to speech: load, synthesis to 24 kHz audio
      >>api_kokoro_text       tts/kokoro_text.h       Kokoro TTS front end: phonemes to ids, espeak-ng text to phonemes, chunks, voice packs and blends
      >>api_kokoro_speak      tts/kokoro_speak.h      Kokoro: text or phonemes to speech, chunk by chunk, streamed
   IMPLEMENTATION
      >>impl_common           llm/common.c            allocation, hashing, UTF-8
      >>impl_json             llm/json.c              the JSON parser
      >>impl_unicode          llm/unicode.c           generated Unicode tables, classes, NFC
      >>impl_safetensors      llm/safetensors.c       safetensors files, shards, uploads
      >>impl_tokenizer        llm/tokenizer.c         tokenizer model and loading
      >>tok_encode            llm/tokenizer_encode.c  pre-tokenizers, BPE merges, encoding
      >>tok_decode            llm/tokenizer_decode.c  decoding, streaming decode
      >>impl_chat             llm/chat.c              chat templates
      >>impl_model            llm/model_config.c      model config
      >>model_weights         llm/model_weights.c     weights: names, shapes, upload
      >>model_forward         llm/model_forward.c     the forward pass, KV cache, decode graphs
      >>model_generate        llm/generate.c          sampling loop, stop strings, batches, chat
      >>impl_audio            asr/audio.c             WAV reading and writing, mixing, the resampler
      >>impl_whisper_rules    asr/whisper_rules.c     Whisper decoding rules on the host
      >>impl_whisper          asr/whisper_model.c     Whisper model: config, weights, encoder, decoder, greedy decoding
      >>impl_whisper_long     asr/whisper_long.c      the transcribe loop over long audio
      >>impl_kokoro_text      tts/kokoro_text.c       Kokoro vocabulary, phonemes to ids, the chunker
      >>impl_kokoro_espeak    tts/kokoro_espeak.c     espeak-ng at run time, text to Kokoro phonemes, text chunks
      >>impl_kokoro_voice     tts/kokoro_voice.c      voice packs: raw, .npy, .npz (zip, zlib at run time), safetensors; blends, style rows
      >>impl_kokoro           tts/kokoro_model.c      Kokoro model: config.json, weights (weight norm folded, styles stacked)
      >>impl_kokoro_forward   tts/kokoro_forward.c    Kokoro forward: ALBERT, prosody, text encoder, decoder, iSTFTNet generator
      >>impl_kokoro_speak     tts/kokoro_speak.c      Kokoro: chunks through the model, audio to a callback

   RECENT REVISION HISTORY
     0.1  first version
*/
#ifndef GPUKIT_LLM_H
#define GPUKIT_LLM_H

#include "gpukit.h"
#include <stddef.h>
#include <stdint.h>

#ifndef GKLLMDEF
#ifdef GPUKIT_LLM_STATIC
/* private to the including file; unused functions are no warning there */
#if defined(__GNUC__) || defined(__clang__)
#define GKLLMDEF static __attribute__((unused))
#else
#define GKLLMDEF static
#endif
#else
#define GKLLMDEF extern
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* >>api_common                                                             */
/* ======================================================================== */

/* A growable byte buffer; functions append to it. data is NUL-terminated
   whenever it is not NULL. Zero-initialise, free with gk_buf_free (the
   memory comes from GPUKIT_MALLOC / GPUKIT_REALLOC). */
typedef struct gk_buf { char *data; size_t len, cap; } gk_buf;
/* A growable array of token ids; functions append to it. Zero-initialise,
   free with gk_ids_free. */
typedef struct gk_ids { int32_t *data; size_t len, cap; } gk_ids;

GKLLMDEF void gk_buf_free(gk_buf *b);
GKLLMDEF void gk_ids_free(gk_ids *v);
GKLLMDEF gk_status gk_buf_append(gk_buf *b, const void *data, size_t n);
GKLLMDEF gk_status gk_ids_push(gk_ids *v, int32_t id);
/* Reads a whole file into a new buffer (NUL-terminated; *size excludes the
   NUL). max_size 0 = no limit. Free *data with gk_read_file_free (it comes
   from GPUKIT_MALLOC: plain free() is right only without a custom allocator). */
GKLLMDEF gk_status gk_read_file(const char *path, size_t max_size, char **data, size_t *size);
GKLLMDEF void gk_read_file_free(char *data);  /* NULL is a no-op */

/* ======================================================================== */
/* >>api_json                                                               */
/* ======================================================================== */

typedef enum gk_json_type {
    GK_JSON_NULL = 0, GK_JSON_BOOL, GK_JSON_INT, GK_JSON_DOUBLE, GK_JSON_STRING,
    GK_JSON_ARRAY, GK_JSON_OBJECT
} gk_json_type;

typedef struct gk_json gk_json;             /* a parsed document; owns all values */
typedef struct gk_json_value gk_json_value; /* one value inside a document */

typedef struct gk_json_options {
    size_t max_depth;  /* nesting limit; 0 = 128 */
    size_t max_size;   /* input size limit in bytes; 0 = 1 GiB */
} gk_json_options;

/* Parses text[0..len). Strict RFC 8259: UTF-8 is validated, lone surrogates
   in \u escapes are rejected, a leading UTF-8 BOM is skipped. Integral numbers
   that fit int64 are GK_JSON_INT, others GK_JSON_DOUBLE. Duplicate object
   keys are kept (gk_json_get returns the first). opt may be NULL. */
GKLLMDEF gk_status gk_json_parse(const char *text, size_t len, const gk_json_options *opt, gk_json **out);
GKLLMDEF gk_status gk_json_parse_file(const char *path, const gk_json_options *opt, gk_json **out);
GKLLMDEF void gk_json_free(gk_json *doc);
GKLLMDEF const gk_json_value *gk_json_root(const gk_json *doc);

/* All accessors accept NULL and return the "missing" answer for it. */
GKLLMDEF gk_json_type gk_json_typeof(const gk_json_value *v);  /* NULL -> GK_JSON_NULL */
GKLLMDEF int gk_json_is_null(const gk_json_value *v);           /* JSON null or missing */
/* Elements of an array, members of an object, bytes of a string; else 0. */
GKLLMDEF size_t gk_json_len(const gk_json_value *v);
/* i-th element of an array or i-th member value of an object (in file order). */
GKLLMDEF const gk_json_value *gk_json_at(const gk_json_value *v, size_t i);
/* Key of the i-th member of an object (NUL-terminated, may contain NULs: see len). */
GKLLMDEF const char *gk_json_key_at(const gk_json_value *obj, size_t i, size_t *len);
GKLLMDEF const gk_json_value *gk_json_get(const gk_json_value *obj, const char *key);
GKLLMDEF const gk_json_value *gk_json_getn(const gk_json_value *obj, const char *key, size_t keylen);
/* Path lookup: "a.b.0.c" - segments separated by '.', a segment of digits
   indexes an array (on an object it is a key). "" is v itself. */
GKLLMDEF const gk_json_value *gk_json_path(const gk_json_value *v, const char *path);
GKLLMDEF const gk_json_value *gk_json_pathv(const gk_json_value *v, const char *const *keys, size_t n);
/* Typed value accessors with defaults (def when missing or of another type).
   gk_json_int accepts a GK_JSON_DOUBLE only if it is integral and in range;
   gk_json_double accepts GK_JSON_INT. */
GKLLMDEF int64_t gk_json_int(const gk_json_value *v, int64_t def);
GKLLMDEF double gk_json_double(const gk_json_value *v, double def);
GKLLMDEF int gk_json_bool(const gk_json_value *v, int def);
GKLLMDEF const char *gk_json_str(const gk_json_value *v, const char *def);
/* The same after a path lookup: gk_json_get_int(root, "model.dropout", 0). */
GKLLMDEF int64_t gk_json_get_int(const gk_json_value *v, const char *path, int64_t def);
GKLLMDEF double gk_json_get_double(const gk_json_value *v, const char *path, double def);
GKLLMDEF int gk_json_get_bool(const gk_json_value *v, const char *path, int def);
GKLLMDEF const char *gk_json_get_string(const gk_json_value *v, const char *path, const char *def);

/* ======================================================================== */
/* >>api_safetensors                                                        */
/* ======================================================================== */

typedef enum gk_st_dtype {
    GK_ST_BOOL = 0, GK_ST_U8, GK_ST_I8, GK_ST_I16, GK_ST_U16, GK_ST_F16, GK_ST_BF16,
    GK_ST_I32, GK_ST_U32, GK_ST_F32, GK_ST_F64, GK_ST_I64, GK_ST_U64,
    GK_ST_F8_E4M3, GK_ST_F8_E5M2, GK_ST_DTYPE_COUNT
} gk_st_dtype;

#define GK_ST_MAX_DIMS 16
#define GK_ST_MAX_HEADER 100000000u  /* the format's header length limit */

typedef struct gk_st_tensor_info {
    const char *name;
    gk_st_dtype dtype;
    int ndim;                        /* 0 for a scalar */
    int64_t shape[GK_ST_MAX_DIMS];
    uint64_t numel;                  /* 1 for a scalar, 0 for a zero-size tensor */
    uint64_t nbytes;
    const void *data;                /* inside the read-only mapping; NULL-safe when nbytes==0 */
    int file_index;                  /* which shard */
    uint64_t file_offset;            /* absolute offset of the data in that file */
} gk_st_tensor_info;

typedef struct gk_safetensors gk_safetensors;

/* path: a .safetensors file, a *.safetensors.index.json, or a folder holding
   model.safetensors.index.json or model.safetensors. Files are mmap'ed
   read-only and validated (see the format rules in >>impl_safetensors). */
GKLLMDEF gk_status gk_st_open(const char *path, gk_safetensors **out);
/* Validates and indexes an in-memory file; data is not copied and must stay
   alive until gk_st_close. */
GKLLMDEF gk_status gk_st_open_memory(const void *data, size_t size, gk_safetensors **out);
GKLLMDEF void gk_st_close(gk_safetensors *st);
GKLLMDEF size_t gk_st_count(const gk_safetensors *st);           /* tensors, sorted by name */
GKLLMDEF const gk_st_tensor_info *gk_st_tensor(const gk_safetensors *st, size_t i);
GKLLMDEF const gk_st_tensor_info *gk_st_find(const gk_safetensors *st, const char *name);
GKLLMDEF size_t gk_st_file_count(const gk_safetensors *st);
/* __metadata__ of the first file (string values only); NULL when absent. */
GKLLMDEF const char *gk_st_metadata(const gk_safetensors *st, const char *key);
GKLLMDEF const char *gk_st_dtype_name(gk_st_dtype t);      /* "BF16", ... */
GKLLMDEF size_t gk_st_dtype_size(gk_st_dtype t);
/* Returns 1 and sets *out when the safetensors dtype is a gpukit dtype. */
GKLLMDEF int gk_st_gk_dtype(gk_st_dtype t, gk_dtype *out);
/* Copies the tensor's bytes as stored (little-endian). dst_bytes >= nbytes. */
GKLLMDEF gk_status gk_st_read_raw(const gk_safetensors *st, const char *name, void *dst, size_t dst_bytes);
/* Reads the tensor converted to dst_type with gk_convert's rules (float
   narrowing rounds to nearest even, float -> int truncates and saturates,
   int -> int wraps). BOOL, U16, I16, U32 and U64, which have no gpukit dtype,
   are widened here first: BOOL -> 0/1, integers to int64 (U64 keeps its bits,
   so values above INT64_MAX wrap like any int -> int conversion) or, for a
   float destination, to double (U64 as unsigned).
   dst_bytes >= numel * gk_dtype_size(dst_type). */
GKLLMDEF gk_status gk_st_read(const gk_safetensors *st, const char *name, gk_dtype dst_type, void *dst, size_t dst_bytes);
/* Creates a device tensor of dst_type with the tensor's shape and uploads it
   through the context's transfer engine (>>api_xfer in gpukit.h): its
   workers pread() the file into pinned staging buffers (files opened from
   memory are staged from there). If the stored dtype differs and
   is a gpukit dtype, the raw bytes are uploaded and cast on the device
   (gk_cast); other stored dtypes (BOOL, U16, ...) are converted on the host
   first. Copies go in 64 MiB pieces; progress (may be NULL) is called with
   (bytes copied, total bytes) after each piece, first with (0, total).
   A scalar becomes a 1-d tensor of one element if the core refuses ndim 0.
   Errors are recorded on ctx (gk_last_error(ctx)), like the other
   functions that take a context; the rest of this API uses the thread's. */
typedef void (*gk_st_progress_fn)(uint64_t done, uint64_t total, void *user);
GKLLMDEF gk_status gk_st_upload(gk_ctx *ctx, const gk_safetensors *st, const char *name, gk_dtype dst_type,
                                gk_tensor *out, gk_st_progress_fn progress, void *user);

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

/* ======================================================================== */
/* >>api_chat                                                               */
/* ======================================================================== */

typedef enum gk_chat_format {
    GK_CHAT_UNKNOWN = 0,
    GK_CHAT_CHATML,   /* <|im_start|>role\ncontent<|im_end|>\n (Qwen2 / Qwen2.5 without tools) */
    GK_CHAT_QWEN3,    /* ChatML with Qwen3's <think> handling */
    GK_CHAT_LLAMA3,   /* <|start_header_id|>role<|end_header_id|>\n\ncontent<|eot_id|> */
    GK_CHAT_LLAMA2,   /* <s>[INST] <<SYS>>\n..\n<</SYS>>\n\nuser [/INST] assistant </s> */
    GK_CHAT_MISTRAL   /* <s>[INST] user [/INST]assistant</s> */
} gk_chat_format;

typedef struct gk_chat_message { const char *role; const char *content; } gk_chat_message;

typedef struct gk_chat_template {
    gk_chat_format format;
    char bos[64], eos[64];          /* bos_token / eos_token text from the config */
    char default_system[160];       /* system prompt added when none is given ("" = none) */
    int always_generation_prompt;   /* template appends the assistant header unconditionally */
} gk_chat_template;

enum { GK_CHAT_ADD_GENERATION_PROMPT = 1, GK_CHAT_NO_THINKING = 2 /* Qwen3 enable_thinking=false */ };

/* Reads tokenizer_config.json and recognises its chat_template (a string,
   or HF's list of {name, template}: the one named "default"). bos_token /
   eos_token: a string, {"content": ...} or null; longer than 63 bytes is
   GK_ERR_LIMIT (gk_chat_template holds them whole). Errors name the file. */
GKLLMDEF gk_status gk_chat_template_load(const char *tokenizer_config_path, gk_chat_template *out);
GKLLMDEF gk_status gk_chat_template_from_config(const gk_json_value *config, gk_chat_template *out);
/* Recognises a Jinja template text; unknown -> GK_ERR_UNSUPPORTED quoting it. */
GKLLMDEF gk_status gk_chat_template_detect(const char *jinja, const char *bos, const char *eos, gk_chat_template *out);
/* A built-in format by name: "chatml", "qwen3", "llama3", "llama2", "mistral". */
GKLLMDEF gk_status gk_chat_template_builtin(const char *name, const char *bos, const char *eos, gk_chat_template *out);
/* Renders the conversation as text (append to out). flags: GK_CHAT_*. */
GKLLMDEF gk_status gk_chat_apply(const gk_chat_template *t, const gk_chat_message *msgs, size_t n, unsigned flags, gk_buf *out);

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
/* ======================================================================== */
/* >>api_kokoro                                                             */
/* ======================================================================== */
/* Kokoro-82M text to speech (StyleTTS 2 with an iSTFTNet vocoder) on
   gpukit's ops: the same code on the CUDA and CPU backends. Phoneme ids in,
   24 kHz audio out, computed as hexgrad/kokoro's KModel.forward_with_tokens
   does. Errors are recorded on the model's context (gk_kokoro_load's ctx;
   gk_last_error(ctx)); a NULL model is the thread's error. Nothing is left
   allocated by a failed call. One call at a time per model.

   A MODEL FOLDER holds config.json (hexgrad/Kokoro-82M's; kokoro-onnx ships
   the same file) and the weights as kokoro-v1_0.safetensors or
   model.safetensors: tensors named <module>.<key> for the five modules of
   the published kokoro-v1_0.pth (bert, bert_encoder, predictor,
   text_encoder, decoder), as tools/kokoro_convert.py writes them from the
   .pth. Weight-normed layers may be stored as weight_g / weight_v (the
   published checkpoint), parametrizations.weight.original0 / original1 (a
   state dict of PyTorch >= 2.1) or folded (<layer>.weight); they are folded
   at load (g * v / ||v||, the norm over every dim but the first: per output
   channel of a convolution, per input channel of a transposed one). AdaIN's
   InstanceNorm affine parameters (norm.weight / norm.bias), absent from the
   published checkpoint, are used when present. Other tensors (the unused
   ALBERT pooler, buffers) are ignored.

   THE PIPELINE, for ids x_1..x_n (n <= plbert.max_position_embeddings - 2,
   510) and a voice's style row ref_s [256] (its first 128 values style the
   decoder, the last 128 the prosody predictor):
     tokens     [0, x_1, ..., x_n, 0], T = n + 2
     ALBERT     one shared layer applied num_hidden_layers times
                (embeddings + LayerNorm, mapping to hidden_size, then
                attention, LayerNorm, GELU (tanh) feed-forward, LayerNorm);
                bert_encoder: Linear to hidden_dim
     durations  duration encoder (n_layer x [BiLSTM, AdaLayerNorm], the
                prosody style concatenated), BiLSTM, Linear to max_dur,
                sigmoid, sum, / speed, rounded half to even, at least 1
     alignment  frame j of L = sum(durations) reads the token it falls in
     F0, N      BiLSTM over the L frames, 3 AdainResBlk1d each (the second
                upsamples x2), Conv1d to 1 channel: [2L] each
     text       embedding, n_layer x [Conv1d, LayerNorm, LeakyReLU 0.2],
                BiLSTM; aligned to the frames
     decoder    F0 / N convolutions (stride 2), AdainResBlk1d encode and 4
                decode blocks (the last upsamples x2)
     generator  SineGen (9 harmonics of F0, 24 kHz, voiced above 10 Hz,
                Gaussian noise 0.003 voiced / 0.0333 unvoiced), Linear +
                tanh, STFT (n_fft 20, hop 5); per upsampling stage:
                LeakyReLU 0.1, ConvTranspose1d, the source's convolution
                and AdaINResBlock1 added, the mean of the AdaINResBlock1s
                (Snake); LeakyReLU 0.01, conv_post, exp (magnitude) and sin
                (phase), iSTFT
   -> samples_per_frame * L samples (2 * prod(upsample_rates) * hop: 600)
   at 24 kHz. The durations need one host sync (L sizes everything after).
   Two numerical details of the reference are kept: SineGen's phase sums
   in float64 (torch's CPU cumsum accumulates float32 in double), and the
   STFT of the source is exactly real where it is real in exact arithmetic
   (the DC and Nyquist bins, and frame 0, whose reflect-padded frame is
   symmetric), so a negative bin there has phase +pi; torch's frame 0 has
   rounding noise in its imaginary parts, whose signs pick +pi or -pi.
   SineGen's random initial phases are never read by the reference (its
   downsampling interpolation skips sample 0), so they are not drawn. */
typedef struct gk_kokoro_model gk_kokoro_model;

#define GK_KOKORO_MAX_UPS 4         /* istftnet upsampling stages at most */
#define GK_KOKORO_MAX_RESBLOCKS 8   /* istftnet resblock kernels at most */
#define GK_KOKORO_HARMONICS 9       /* SineGen: the fundamental and 8 overtones (fixed by the model) */
#define GK_KOKORO_SAMPLE_RATE 24000 /* SineGen's rate, the output's (fixed by the model) */
#define GK_KOKORO_MAX_FRAMES 20000  /* gk_kokoro_synth_desc.max_frames' default: 500 s at 600 samples a frame */

typedef struct gk_kokoro_config {
    int64_t n_token;               /* symbols: ids 0..n_token-1; 0 is the pad */
    int64_t hidden_dim;            /* 512 (the decoder's widths are fixed around it) */
    int64_t style_dim;             /* 128: ref_s has 2 * style_dim values */
    int64_t max_dur;               /* 50: duration_proj's outputs */
    int64_t n_layer;               /* 3: duration encoder layers, text encoder convolutions */
    int64_t text_kernel;           /* text_encoder_kernel_size (odd) */
    int64_t n_mels;                /* checked, unused by inference */
    /* plbert (ALBERT; AlbertConfig's defaults for what config.json leaves out) */
    int64_t bert_hidden, bert_heads, bert_ffn, bert_max_pos, bert_layers;
    int64_t bert_embed;            /* embedding_size: 128 */
    int64_t bert_type_vocab;       /* type_vocab_size: 2 */
    double bert_ln_eps;            /* layer_norm_eps: 1e-12 */
    int bert_gelu_tanh;            /* hidden_act: 1 gelu_new (default), 0 gelu */
    /* istftnet */
    int n_ups;                     /* len(upsample_rates) */
    int64_t ups_rate[GK_KOKORO_MAX_UPS], ups_kernel[GK_KOKORO_MAX_UPS];
    int64_t ups_channels;          /* upsample_initial_channel: 512 */
    int n_resblocks;               /* len(resblock_kernel_sizes) */
    int64_t res_kernel[GK_KOKORO_MAX_RESBLOCKS], res_dilation[GK_KOKORO_MAX_RESBLOCKS][3];
    int64_t n_fft, hop;            /* gen_istft_n_fft, gen_istft_hop_size */
    /* derived */
    int64_t samples_per_frame;     /* 2 * prod(upsample_rates) * hop */
    gk_dtype weights_dtype;        /* of the first tensor in the file (bert's word embeddings) */
} gk_kokoro_config;

typedef struct gk_kokoro_desc {
    gk_llm_dtype dtype;            /* compute dtype: DEFAULT and F32 are f32; BF16 / F16 are GK_ERR_UNSUPPORTED */
    gk_st_progress_fn progress;    /* weight upload progress (bytes on the device), may be NULL */
    void *user;
    int allow_tf32;                /* the stride-1 convolutions (the vocoder's resblocks, most of the work) may run on
                                      TF32 tensor cores (gk_conv1d_ex): several times faster on CUDA, relative error
                                      ~1e-3 instead of ~1e-6; what PyTorch does by default for cuDNN convolutions.
                                      0: f32 throughout. The CPU backend always computes in f32. */
} gk_kokoro_desc;

/* Loads a model folder (dir). config.json is checked field by field (type,
   range, and what the model hard-codes: hidden_dim 512, style_dim 128,
   upsample_initial_channel 512; GK_ERR_FORMAT or GK_ERR_UNSUPPORTED naming
   the file and the field), then every tensor's presence (GK_ERR_NOT_FOUND
   naming it and the file), dtype (GK_ERR_DTYPE) and shape against the
   config (GK_ERR_SHAPE naming the tensor, its shape and the config's) before
   anything is allocated on the device. A folder without config.json or
   weights: GK_ERR_IO naming the missing file. */
GKLLMDEF gk_status gk_kokoro_load(gk_ctx *ctx, const char *dir, const gk_kokoro_desc *desc, gk_kokoro_model **out);
GKLLMDEF void gk_kokoro_free(gk_kokoro_model *m);
GKLLMDEF const gk_kokoro_config *gk_kokoro_get_config(const gk_kokoro_model *m);
/* The stream the model's work runs on; NULL: the model's own. */
GKLLMDEF gk_status gk_kokoro_set_stream(gk_kokoro_model *m, gk_stream *s);

/* SineGen's Gaussian noise: a stream of the seed (the default), or none. */
typedef enum gk_kokoro_noise {
    GK_KOKORO_NOISE_SEEDED = 0,    /* N(0, 1) values of gk_randn (the seed, offset 0; sample t, harmonic h is
                                      number 9 t + h): the same seed gives the same audio on one backend */
    GK_KOKORO_NOISE_ZERO = 1       /* no noise: the unvoiced source is silent */
} gk_kokoro_noise;

typedef struct gk_kokoro_synth_desc {
    float speed;                   /* durations are divided by it; 0: 1; negative, NaN or infinite: GK_ERR_INVALID_ARGUMENT */
    gk_kokoro_noise noise;
    uint64_t seed;                 /* GK_KOKORO_NOISE_SEEDED's seed */
    const int32_t *durations;      /* optional [n + 2]: frames per token (the pads included), used instead of the
                                      predicted ones (speed then plays no part); each >= 0, their sum >= 1 */
    int32_t *durations_out;        /* optional [n + 2]: the frames per token used */
    int64_t *frames_out;           /* optional: L, the frames (out->n = samples_per_frame * L) */
    int64_t max_frames;            /* more frames is GK_ERR_LIMIT before anything past the durations runs;
                                      0: GK_KOKORO_MAX_FRAMES */
} gk_kokoro_synth_desc;

/* Speaks ids[0..n) (phoneme ids without the 0 pads; 1 <= n <= max_position_embeddings - 2, more is
   GK_ERR_LIMIT; ids outside 0..n_token-1 are GK_ERR_INVALID_ARGUMENT naming the first) in the voice
   ref_s [2 * style_dim] (a row of a voice pack; non-finite values are GK_ERR_INVALID_ARGUMENT).
   desc NULL: the defaults. out gets the samples (mono, GK_KOKORO_SAMPLE_RATE; free with
   gk_audio_free); on failure it is zeroed. Non-finite durations or samples (weights holding NaN,
   overflow) are GK_ERR_FORMAT. */
GKLLMDEF gk_status gk_kokoro_synthesize(gk_kokoro_model *m, const int32_t *ids, size_t n, const float *ref_s,
                                        const gk_kokoro_synth_desc *desc, gk_audio *out);
/* ======================================================================== */
/* >>api_kokoro_text                                                        */
/* ======================================================================== */
/* Kokoro-82M's front end on the host: phonemes to ids, text to phonemes
   through espeak-ng, chunks of at most 510 phonemes, and voice packs. CPU
   only; no context. Errors go to the calling thread (gk_last_error(NULL))
   and name the input at fault (file, voice, symbol and byte offset).

   PHONEMES AND IDS
     Kokoro reads a string in its own phoneme alphabet (UTF-8): every code
     point is one symbol, looked up in config.json's "vocab" ({symbol: id},
     114 symbols with ids 1..177 in v1.0; 0 is the pad the model puts
     around the ids). gk_kokoro_phonemes_to_ids maps a string to ids. A
     symbol outside the vocabulary is an error naming it (the character,
     its U+ code and its byte offset); with GK_KOKORO_DROP_UNKNOWN it is
     dropped silently instead, as the reference (KModel.forward) does.
     The style row of a voice is chosen by the phoneme string's length in
     code points counted before any symbol is dropped (pipeline.py:
     pack[len(ps) - 1]); n_phonemes reports that count.

   TEXT TO PHONEMES (espeak-ng, optional)
     gk_espeak opens libespeak-ng at run time (dlopen; Debian: libespeak-ng1
     and espeak-ng-data; espeak-ng is GPL-3.0 and never linked). Without it,
     gk_espeak_create is GK_ERR_NOT_FOUND and everything else here works:
     phoneme strings are accepted as they are.
     espeak-ng keeps one global state per process (its voice, its buffers),
     so: a gk_espeak serialises every call into the library with its own
     lock (one handle may be shared by any number of threads); two handles
     in one process share that one state, so keep one gk_espeak per
     process (a second handle's calls race with the first's inside
     espeak-ng, and destroying either ends espeak-ng for both).
     gk_espeak_destroy calls espeak_Terminate and unloads the library: a
     terminated espeak-ng cannot be initialised again (1.51 hangs in its
     next espeak_Terminate), so a later gk_espeak_create works because it
     loads the library afresh, which holds only where nothing else in the
     process keeps libespeak-ng open. The voice is set only when the
     language differs from the previous call's; espeak-ng queues a copy of
     each voice it sets (about 1.3 KB) that only its audio synthesis frees,
     so after setting one gk_espeak synthesises the empty text (its audio
     dropped) to free it. espeak-ng itself holds a few KB after
     espeak_Terminate that leave with the library.
     What gk_kokoro_phonemize does, following the reference's espeak paths
     (misaki's EspeakFallback for English, EspeakG2P for es / fr-fr / hi /
     it / pt-br, both on phonemizer's espeak backend):
     1. The text is cut at punctuation, as phonemizer's preserve_punctuation
        does: a run of marks from ; : , . ! ? ¡ ¿ — … " « » “ ” ( ) { } [ ]
        and the whitespace around them is kept aside, the text between runs
        goes to espeak-ng. Unlike phonemizer, a . , or : with an ASCII digit
        on both sides stays in its word ("3.5", "1,000", "10:30"), so that
        espeak-ng reads the number.
     2. Each piece is phonemized by espeak_TextToPhonemes (IPA, U+0361 ties,
        the voice of desc.language as phonemizer chooses it: the first voice
        espeak-ng lists for that language); the clauses it returns are
        joined by spaces, whitespace runs become one space, '_' is removed,
        language-switch flags such as "(fr)" are removed (phonemizer's
        remove-flags; the English reference keeps them, where Kokoro's
        vocabulary then reads their letters), U+0361 becomes '^'.
     3. The result is mapped to Kokoro's alphabet by the reference's table:
        English (en-us, en-gb), misaki's EspeakFallback in its order:
          ʔˌn̩ ʔn̩ -> ʔn; a^ɪ -> I, a^ʊ -> W, d^ʒ -> ʤ, e^ɪ -> A, t^ʃ -> ʧ,
          ɔ^ɪ -> Y, ə^l -> ᵊl; ʲo -> jo, ʲə -> jə; e -> A, ʲ -> (none),
          ɚ -> əɹ, r -> ɹ, x -> k, ç -> k, ɐ -> ə, ɬ -> l, U+0303 -> (none);
          then a non-space symbol followed by U+0329 becomes ᵊ and the
          symbol, other U+0329 are removed;
          en-gb: e^ə -> ɛː, iə -> ɪə, ə^ʊ -> Q;
          en-us: o^ʊ -> O, ɜːɹ -> ɜɹ, ɜː -> ɜɹ, ɪə -> iə, ː -> (none);
          both: o -> ɔ (espeak-ng before 1.52), ɾ -> T, ʔ -> t, ^ removed.
        Other languages, EspeakG2P's table (sorted by key): a^ɪ -> I,
          a^ʊ -> W, d^z -> ʣ, d^ʒ -> ʤ, e^ɪ -> A, o^ʊ -> O, s^s -> S,
          t^s -> ʦ, t^ʃ -> ʧ, ɔ^ɪ -> Y, ə^ʊ -> Q; then ^ and - removed.
        Every replacement runs over the whole piece, one after the other,
        as Python's str.replace does.
     4. The punctuation is put back: a run's marks with one space for each
        whitespace run inside it, « and » as “ and ”, and ¡ ¿ { } [ ] left
        out (they are not in Kokoro's vocabulary, which would drop them);
        a space stands where the text had whitespace between pieces.
     Invalid UTF-8 in the text is GK_ERR_FORMAT naming the byte offset.
     The output may still hold a symbol outside the vocabulary where
     espeak-ng produces one the tables do not map (rare outside English):
     gk_kokoro_phonemes_to_ids says which, or drops it on request.

   CHUNKS
     Kokoro takes at most 510 ids at a time (512 positions less the pads).
     gk_kokoro_text_chunks (text, through espeak-ng) and
     gk_kokoro_phoneme_chunks (a phoneme string) cut the input into chunks
     of at most desc.max_phonemes (default 510) code points of phonemes,
     never inside a word, as the reference's English pipeline does
     (KPipeline.en_tokenize / waterfall_last): pieces are added while they
     fit; when the next one does not, the chunk ends at its last sentence
     end (. ! ? …), else its last : ;, else its last , —, else its last
     space, each taken only when what is left over, with the new piece,
     fits in one chunk; where none is taken it ends before the new piece.
     A chunk ends after closing marks ) ” that follow its last mark, and an
     opening mark ( “ (or " after whitespace) stays with the word after it.
     A line break ends a chunk, as the reference splits text at "\n+"
     first (GK_KOKORO_JOIN_LINES: only a blank line does; a single line
     break is a space). Whitespace at a chunk's ends is not part of it.
     A word whose phonemes alone exceed the limit is GK_ERR_LIMIT naming
     its byte offset. Text: a piece between marks whose phonemes exceed the
     limit is phonemized again word by word (espeak-ng then reads each word
     alone). A chunk of punctuation and spaces only carries no speech and
     is left out; text with nothing else (empty, whitespace or punctuation
     only) is GK_ERR_INVALID_ARGUMENT, "nothing to speak".
     Each chunk has its phonemes (NUL-terminated) and the byte span of the
     input it came from; a phoneme chunk is the input's bytes verbatim
     except that whitespace other than plain spaces (tabs, a joined line
     break) is written as one space. A chunk's size counts code points,
     which is the number of ids when every symbol is in the vocabulary.

   VOICES
     A voice pack is 510 style rows of 256 floats ([510, 1, 256] or
     [510, 256] float32); row n - 1 is the style for n phonemes. Read from:
       .bin          raw little-endian float32, exactly 510 * 256 * 4 =
                     522240 bytes (kokoro.js's voices)
       .npy          NumPy 1.0 / 2.0 / 3.0: dtype '<f4', fortran_order
                     False, shape (510, 1, 256) or (510, 256)
       .npz          a zip of .npy members named <voice>.npy (kokoro-onnx's
                     voices-v1.0.bin): stored or deflated (zlib is loaded
                     at run time for deflate: libz.so.1, Debian zlib1g),
                     ZIP64 fields read, CRC-32 checked
       .safetensors  one tensor per voice name (or a file of one tensor)
                     of F32, F16 or BF16 (widened to float)
     The format is told from the bytes (an .npz is often named .bin), not
     from the name. PyTorch's voices/<name>.pt (a pickle) is not readable
     here: GK_ERR_UNSUPPORTED says how to convert it.
     A path names a file holding one voice, a bundle (npz or safetensors)
     holding many, or a folder of <voice>.bin / .npy / .safetensors files.
     spec picks the voice: a name, or a blend "af_heart:0.7,am_adam:0.3"
     (a name alone weighs 1, so "a,b" is the mean, as pipeline.py's
     load_voice); weights are normalised to sum to 1 and the pack is the
     weighted sum. A weight that is negative, zero, NaN, infinite or not a
     number, an empty name and a name not found are errors naming them. */

#define GK_KOKORO_MAX_PHONEMES 510 /* ids the model takes at once: 512 positions less the two pads */
#define GK_KOKORO_VOICE_ROWS 510   /* style rows in a voice pack */
#define GK_KOKORO_STYLE_DIM 256    /* floats in a style row: [0, 128) decoder, [128, 256) prosody */

/* flags of gk_kokoro_phonemes_to_ids */
#define GK_KOKORO_DROP_UNKNOWN 1u /* drop symbols outside the vocabulary (the reference's filter) instead of failing */
/* gk_kokoro_chunk_desc.flags */
#define GK_KOKORO_JOIN_LINES 2u   /* a single line break is a space; only a blank line ends a chunk */

/* ---- vocabulary ---- */
typedef struct gk_kokoro_vocab gk_kokoro_vocab;

/* Reads "vocab" (and "n_token", when present, which bounds the ids) from
   config.json: path is the file or the model folder holding it. Each key
   must be one code point and each id an integer in [1, n_token) (or
   [1, 65536) without n_token); duplicate symbols are an error. */
GKLLMDEF gk_status gk_kokoro_vocab_load(const char *path, gk_kokoro_vocab **out);
/* The same from a parsed config.json (its root object). */
GKLLMDEF gk_status gk_kokoro_vocab_from_json(const gk_json_value *config, gk_kokoro_vocab **out);
GKLLMDEF void gk_kokoro_vocab_free(gk_kokoro_vocab *v); /* NULL is a no-op */
GKLLMDEF size_t gk_kokoro_vocab_size(const gk_kokoro_vocab *v);            /* symbols */
GKLLMDEF int32_t gk_kokoro_vocab_id(const gk_kokoro_vocab *v, uint32_t cp); /* -1 if none */
/* Appends the ids of phonemes[0..len) to *out (no pads; nothing is appended
   on failure). *n_phonemes (may be NULL) is set to the string's code
   points, the count that picks the style row. flags: GK_KOKORO_DROP_UNKNOWN. */
GKLLMDEF gk_status gk_kokoro_phonemes_to_ids(const gk_kokoro_vocab *v, const char *phonemes, size_t len, unsigned flags,
                                             gk_ids *out, size_t *n_phonemes);

/* ---- espeak-ng ---- */
typedef struct gk_espeak gk_espeak;
typedef struct gk_espeak_desc {
    const char *library;   /* NULL: libespeak-ng.so.1, then libespeak-ng.so (libespeak-ng.dylib, libespeak-ng.dll) */
    const char *data_path; /* the folder holding espeak-ng-data; NULL: the library's own (or ESPEAK_DATA_PATH) */
} gk_espeak_desc;
/* Opens and initialises espeak-ng (desc may be NULL). No library:
   GK_ERR_NOT_FOUND saying what was looked for and which package has it. */
GKLLMDEF gk_status gk_espeak_create(const gk_espeak_desc *desc, gk_espeak **out);
/* Terminates espeak-ng and closes the library; NULL is a no-op. */
GKLLMDEF void gk_espeak_destroy(gk_espeak *es);
GKLLMDEF const char *gk_espeak_version(const gk_espeak *es); /* "1.51" */

typedef struct gk_kokoro_chunk_desc {
    const char *language;  /* text only: "en-us" (NULL), "en-gb", "es", "fr-fr", "hi", "it", "pt-br" */
    size_t max_phonemes;   /* chunks: code points of phonemes a chunk may hold, 1..510; 0 = 510 */
    unsigned flags;        /* chunks: GK_KOKORO_JOIN_LINES */
} gk_kokoro_chunk_desc;

/* Text to Kokoro phonemes (the steps above), appended to *out (as it was on
   failure). desc may be NULL; only its language is read. Empty text gives
   an empty string; line breaks become spaces. */
GKLLMDEF gk_status gk_kokoro_phonemize(gk_espeak *es, const gk_kokoro_chunk_desc *desc, const char *text, size_t len, gk_buf *out);
/* Step 2's output (espeak-ng's IPA, ties as U+0361 or '^') to Kokoro's
   alphabet (step 3) for a language, appended to *out. For tests and for
   phonemes made elsewhere by espeak-ng. */
GKLLMDEF gk_status gk_kokoro_map_espeak(const char *language, const char *ipa, size_t len, gk_buf *out);
/* The espeak language of a Kokoro voice by its first letter (a en-us,
   b en-gb, e es, f fr-fr, h hi, i it, p pt-br); NULL for other voices
   (j and z need misaki's Japanese and Chinese front ends). */
GKLLMDEF const char *gk_kokoro_voice_language(const char *voice);

/* ---- chunks ---- */
typedef struct gk_kokoro_chunk {
    const char *phonemes;         /* NUL-terminated, inside the gk_kokoro_chunks */
    size_t phonemes_len;          /* bytes */
    size_t n_phonemes;            /* code points (1..max_phonemes): the style row's count */
    size_t text_begin, text_end;  /* the byte span of the input it came from */
} gk_kokoro_chunk;
typedef struct gk_kokoro_chunks {
    gk_kokoro_chunk *chunk;
    size_t n;
    char *store;                  /* the phoneme strings */
} gk_kokoro_chunks;
/* Text through espeak-ng into chunks (see CHUNKS). *out is zeroed first and
   holds nothing to free on failure. */
GKLLMDEF gk_status gk_kokoro_text_chunks(gk_espeak *es, const gk_kokoro_chunk_desc *desc, const char *text, size_t len,
                                         gk_kokoro_chunks *out);
/* A phoneme string into chunks; its marks are Kokoro's ; : , . ! ? — … " ( ) “ ”. */
GKLLMDEF gk_status gk_kokoro_phoneme_chunks(const gk_kokoro_chunk_desc *desc, const char *phonemes, size_t len,
                                            gk_kokoro_chunks *out);
GKLLMDEF void gk_kokoro_chunks_free(gk_kokoro_chunks *c); /* zeroes it; NULL is a no-op */

/* ---- voices ---- */
typedef struct gk_kokoro_voice {
    float *data;  /* rows * GK_KOKORO_STYLE_DIM floats, row-major (GPUKIT_MALLOC) */
    size_t rows;  /* GK_KOKORO_VOICE_ROWS */
} gk_kokoro_voice;
/* Reads a voice or a blend (see VOICES). spec NULL or "" is the only voice
   of a single-voice file or bundle. On failure *out is zeroed. */
GKLLMDEF gk_status gk_kokoro_voice_load(const char *path, const char *spec, gk_kokoro_voice *out);
/* The same from a file's bytes in memory (not kept); name says how
   messages call it (NULL: "memory"). */
GKLLMDEF gk_status gk_kokoro_voice_load_memory(const void *data, size_t size, const char *name, const char *spec,
                                               gk_kokoro_voice *out);
/* The voice names of a bundle or folder (a single-voice file: its file
   name without extension), sorted, one a line, appended to *out. */
GKLLMDEF gk_status gk_kokoro_voice_list(const char *path, gk_buf *out);
/* out = sum_i w_i * voices[i] with w normalised to sum to 1 (weights
   positive and finite; all packs of one row count). out may not be one of
   the inputs. */
GKLLMDEF gk_status gk_kokoro_voice_blend(const gk_kokoro_voice *voices, const double *weights, size_t n, gk_kokoro_voice *out);
GKLLMDEF void gk_kokoro_voice_free(gk_kokoro_voice *v); /* zeroes it; NULL is a no-op */
/* The style for n_phonemes phonemes: *style = row n_phonemes - 1
   (GK_KOKORO_STYLE_DIM floats inside v). n_phonemes must be in [1, rows]. */
GKLLMDEF gk_status gk_kokoro_voice_style(const gk_kokoro_voice *v, size_t n_phonemes, const float **style);
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
#ifdef __cplusplus
}
#endif
#endif /* GPUKIT_LLM_H */

/* ======================================================================== */
/*                          IMPLEMENTATION                                  */
/* ======================================================================== */
#ifdef GPUKIT_LLM_IMPLEMENTATION
#ifndef GPUKIT_LLM_IMPLEMENTATION_DONE
#define GPUKIT_LLM_IMPLEMENTATION_DONE

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <math.h>
#include <errno.h>
#include <limits.h>

/* Host memory: the same user macros as gpukit.h (all or none), so one
   definition before including either header covers both, whichever
   translation unit holds each implementation. Every allocation and free of
   this file goes through them (gk__u_malloc / gk__u_calloc / gk__u_grow /
   gk__u_free in >>impl_common); memory handed to the caller is freed by this
   file's own functions (gk_buf_free, gk_ids_free, gk_read_file_free, ...). */
#if defined(GPUKIT_MALLOC) && defined(GPUKIT_FREE) && defined(GPUKIT_REALLOC)
/* ok: the user's, or gpukit.h's defaults when its implementation came first */
#elif !defined(GPUKIT_MALLOC) && !defined(GPUKIT_FREE) && !defined(GPUKIT_REALLOC)
#define GPUKIT_MALLOC(sz) malloc(sz)
#define GPUKIT_REALLOC(p, sz) realloc(p, sz)
#define GPUKIT_FREE(p) free(p)
#else
#error "Must define all or none of GPUKIT_MALLOC, GPUKIT_FREE, and GPUKIT_REALLOC."
#endif

#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>
#else
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <unistd.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================== */
/* >>impl_common                                                            */
/* ======================================================================== */

#define GK__U_ERR(st, ...) gk_error_set(NULL, (st), __VA_ARGS__)

/* ---- host memory: GPUKIT_MALLOC / GPUKIT_REALLOC / GPUKIT_FREE (>>impl_begin) ---- */
static void *gk__u_malloc(size_t n) { return GPUKIT_MALLOC(n ? n : 1); }
/* zeroed n * s bytes; NULL when the product overflows */
static void *gk__u_calloc(size_t n, size_t s) {
    void *p;
    if (!n) n = 1;
    if (!s) s = 1;
    if (n > ((size_t)-1) / s) return NULL;
    p = GPUKIT_MALLOC(n * s);
    if (p) memset(p, 0, n * s);
    return p;
}
static void gk__u_free(void *p) {
    if (p) GPUKIT_FREE(p);
}
/* the null tensor handle, every field zero (gk_tensor's fields may grow: no {0} initializers, which C++ warns about) */
static gk_tensor gk__u_tnull(void) {
    gk_tensor t;
    memset(&t, 0, sizeof t);
    return t;
}
/* copy of s[0..n) with a NUL after it */
static char *gk__u_strndup(const char *s, size_t n) {
    char *r = (char *)gk__u_malloc(n + 1);
    if (!r) return NULL;
    if (n) memcpy(r, s, n);
    r[n] = 0;
    return r;
}

/* Grows *p (element size es) to hold at least need elements. A NULL *p is a
   fresh GPUKIT_MALLOC (a user's GPUKIT_REALLOC never sees NULL); on failure
   *p and *cap are unchanged. */
static int gk__u_grow(void **p, size_t *cap, size_t need, size_t es) {
    size_t nc;
    void *q;
    if (need <= *cap) return 1;
    nc = *cap ? *cap : 16;
    while (nc < need) {
        if (nc > ((size_t)-1) / 2 / es) return 0;
        nc *= 2;
    }
    q = *p ? GPUKIT_REALLOC(*p, nc * es) : GPUKIT_MALLOC(nc * es);
    if (!q) return 0;
    *p = q;
    *cap = nc;
    return 1;
}

GKLLMDEF void gk_buf_free(gk_buf *b) {
    if (!b) return;
    gk__u_free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
GKLLMDEF void gk_ids_free(gk_ids *v) {
    if (!v) return;
    gk__u_free(v->data);
    v->data = NULL;
    v->len = v->cap = 0;
}
GKLLMDEF gk_status gk_buf_append(gk_buf *b, const void *data, size_t n) {
    if (!b) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_buf_append: b is NULL");
    if (!data && n) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_buf_append: data is NULL but n is %llu", (unsigned long long)n);
    if (b->len + n + 1 < b->len || !gk__u_grow((void **)&b->data, &b->cap, b->len + n + 1, 1))
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory growing a text buffer to %llu bytes", (unsigned long long)(b->len + n + 1));
    if (n) memcpy(b->data + b->len, data, n);
    b->len += n;
    b->data[b->len] = 0;
    return GK_OK;
}
static gk_status gk__u_buf_puts(gk_buf *b, const char *s) { return gk_buf_append(b, s, strlen(s)); }
GKLLMDEF gk_status gk_ids_push(gk_ids *v, int32_t id) {
    if (!v) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_ids_push: v is NULL");
    if (v->len == v->cap && !gk__u_grow((void **)&v->data, &v->cap, v->len + 1, sizeof(int32_t)))
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory growing an id array");
    v->data[v->len++] = id;
    return GK_OK;
}

GKLLMDEF gk_status gk_read_file(const char *path, size_t max_size, char **data, size_t *size) {
    FILE *f;
    char *buf = NULL;
    size_t cap = 0, len = 0;
    if (data) *data = NULL;
    if (size) *size = 0;
    if (!path) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_read_file: path is NULL");
    if (!data) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_read_file: data is NULL");
    if (!size) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_read_file: size is NULL");
    *data = NULL;
    *size = 0;
    f = fopen(path, "rb");
    if (!f) return GK__U_ERR(GK_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    for (;;) {
        size_t got;
        if (len + 65536 + 1 > cap && !gk__u_grow((void **)&buf, &cap, len + 65536 + 1, 1)) {
            fclose(f);
            gk__u_free(buf);
            return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory reading '%s'", path);
        }
        got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (max_size && len > max_size) {
            fclose(f);
            gk__u_free(buf);
            return GK__U_ERR(GK_ERR_LIMIT, "'%s' is larger than the limit of %llu bytes", path, (unsigned long long)(max_size));
        }
        if (got == 0) break;
    }
    if (ferror(f)) {
        int e = errno;
        fclose(f);
        gk__u_free(buf);
        return GK__U_ERR(GK_ERR_IO, "read error on '%s': %s", path, strerror(e));
    }
    fclose(f);
    if (!buf) {
        buf = (char *)gk__u_malloc(1);
        if (!buf) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    buf[len] = 0;
    *data = buf;
    *size = len;
    return GK_OK;
}

GKLLMDEF void gk_read_file_free(char *data) { gk__u_free(data); }

/* copies the current thread's error text (bounded) so it can be reformatted */
static void gk__u_errcopy(char *dst, size_t cap) {
    const char *e = gk_last_error(NULL);
    size_t n = e ? strlen(e) : 0;
    if (n >= cap) n = cap - 1;
    if (n) memcpy(dst, e, n);
    dst[n] = 0;
}

/* ---- where errors go (doc.txt, ERRORS) ----
   A call without a context records its error for the calling thread
   (GK__U_ERR). A call with a context (gk_st_upload, gk_llm_*) records it on
   that context and leaves the thread's text as it was: around a
   context-free part it runs (JSON, tokenizer, chat template, gk_read_file,
   gpukit.h's context-free functions) it saves the thread's text, then moves
   the part's message to the context (gk__u_tl_move) or puts the text back
   (gk__u_tl_restore). A NULL context means the thread: the message stays. */
#define GK__U_ERRSAVE 4096 /* gpukit.h's error texts are shorter */
typedef struct gk__u_tl { char text[GK__U_ERRSAVE]; } gk__u_tl;
static void gk__u_tl_save(gk__u_tl *sv) { gk__u_errcopy(sv->text, sizeof sv->text); }
static void gk__u_tl_restore(const gk__u_tl *sv) {
    if (strcmp(gk_last_error(NULL), sv->text) != 0) gk_error_set(NULL, GK_OK, "%s", sv->text);
}
/* the context-free part failed with st: "prefix + its message" goes to ctx */
static gk_status gk__u_tl_move(gk_ctx *ctx, const gk__u_tl *sv, gk_status st, const char *prefix) {
    char msg[GK__U_ERRSAVE];
    gk__u_errcopy(msg, sizeof msg);
    if (!ctx) return gk_error_set(NULL, st, "%s%s", prefix, msg);
    gk_error_set(ctx, st, "%s%s", prefix, msg);
    gk__u_tl_restore(sv);
    return st;
}

/* ---- hashing ---- */
static uint64_t gk__u_hash_bytes(const void *p, size_t n) {
    const unsigned char *s = (const unsigned char *)p;
    uint64_t h = 0x9E3779B97F4A7C15ull ^ (n * 0xC2B2AE3D27D4EB4Full);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ (w * 0x87C37B91114253D5ull)) * 0x4CF5AD432745937Full;
        h ^= h >> 29;
        s += 8;
        n -= 8;
    }
    if (n) {
        uint64_t w = 0;
        memcpy(&w, s, n);
        h = (h ^ (w * 0x87C37B91114253D5ull)) * 0x4CF5AD432745937Full;
    }
    h ^= h >> 32;
    h *= 0xD6E8FEB86659FD93ull;
    h ^= h >> 32;
    return h;
}
static uint64_t gk__u_hash_u64(uint64_t x) {
    x ^= x >> 33;
    x *= 0xFF51AFD7ED558CCDull;
    x ^= x >> 33;
    x *= 0xC4CEB9FE1A85EC53ull;
    x ^= x >> 33;
    return x;
}

/* String -> int32 map; keys are (ptr,len) owned by the caller. */
typedef struct gk__u_smap_slot { const char *key; uint32_t len; int32_t val; } gk__u_smap_slot;
typedef struct gk__u_smap { gk__u_smap_slot *slots; size_t cap, count; } gk__u_smap;

static int gk__u_smap_init(gk__u_smap *m, size_t expected) {
    size_t cap = 16;
    while (cap < expected * 2 + 2) cap *= 2;
    m->slots = (gk__u_smap_slot *)gk__u_calloc(cap, sizeof(gk__u_smap_slot));
    m->cap = m->slots ? cap : 0;
    m->count = 0;
    return m->slots != NULL;
}
static void gk__u_smap_free(gk__u_smap *m) { gk__u_free(m->slots); m->slots = NULL; m->cap = m->count = 0; }
static int32_t gk__u_smap_get(const gk__u_smap *m, const char *k, size_t n) {
    size_t i;
    if (!m->cap) return -1;
    i = (size_t)gk__u_hash_bytes(k, n) & (m->cap - 1);
    for (;;) {
        const gk__u_smap_slot *s = &m->slots[i];
        if (!s->key) return -1;
        if (s->len == n && memcmp(s->key, k, n) == 0) return s->val;
        i = (i + 1) & (m->cap - 1);
    }
}
/* Inserts; returns 1 inserted, 0 key existed (value unchanged, *old set), -1 OOM. */
static int gk__u_smap_put(gk__u_smap *m, const char *k, size_t n, int32_t v, int32_t *old) {
    size_t i;
    if ((m->count + 1) * 2 > m->cap) {
        gk__u_smap nm;
        size_t j;
        if (!gk__u_smap_init(&nm, m->count + 1)) return -1;
        for (j = 0; j < m->cap; j++)
            if (m->slots[j].key) {
                size_t p = (size_t)gk__u_hash_bytes(m->slots[j].key, m->slots[j].len) & (nm.cap - 1);
                while (nm.slots[p].key) p = (p + 1) & (nm.cap - 1);
                nm.slots[p] = m->slots[j];
            }
        nm.count = m->count;
        gk__u_free(m->slots);
        *m = nm;
    }
    i = (size_t)gk__u_hash_bytes(k, n) & (m->cap - 1);
    for (;;) {
        gk__u_smap_slot *s = &m->slots[i];
        if (!s->key) {
            s->key = k ? k : "";
            s->len = (uint32_t)n;
            s->val = v;
            m->count++;
            return 1;
        }
        if (s->len == n && memcmp(s->key, k, n) == 0) {
            if (old) *old = s->val;
            return 0;
        }
        i = (i + 1) & (m->cap - 1);
    }
}

/* u64 -> u64 map, key UINT64_MAX reserved (empty). */
typedef struct gk__u_umap { uint64_t *keys, *vals; size_t cap, count; } gk__u_umap;
static int gk__u_umap_init(gk__u_umap *m, size_t expected) {
    size_t cap = 16, i;
    while (cap < expected * 2 + 2) cap *= 2;
    m->keys = (uint64_t *)gk__u_malloc(cap * sizeof(uint64_t));
    m->vals = (uint64_t *)gk__u_malloc(cap * sizeof(uint64_t));
    if (!m->keys || !m->vals) {
        gk__u_free(m->keys);
        gk__u_free(m->vals);
        m->keys = m->vals = NULL;
        m->cap = 0;
        return 0;
    }
    for (i = 0; i < cap; i++) m->keys[i] = UINT64_MAX;
    m->cap = cap;
    m->count = 0;
    return 1;
}
static void gk__u_umap_free(gk__u_umap *m) { gk__u_free(m->keys); gk__u_free(m->vals); m->keys = m->vals = NULL; m->cap = 0; }
static int gk__u_umap_get(const gk__u_umap *m, uint64_t k, uint64_t *v) {
    size_t i;
    if (!m->cap) return 0;
    i = (size_t)gk__u_hash_u64(k) & (m->cap - 1);
    for (;;) {
        if (m->keys[i] == k) { *v = m->vals[i]; return 1; }
        if (m->keys[i] == UINT64_MAX) return 0;
        i = (i + 1) & (m->cap - 1);
    }
}
/* Inserts if absent: 1 inserted, 0 present, -1 OOM. */
static int gk__u_umap_put(gk__u_umap *m, uint64_t k, uint64_t v) {
    size_t i;
    if ((m->count + 1) * 2 > m->cap) {
        gk__u_umap nm;
        size_t j;
        if (!gk__u_umap_init(&nm, m->count + 1)) return -1;
        for (j = 0; j < m->cap; j++)
            if (m->keys[j] != UINT64_MAX) {
                size_t p = (size_t)gk__u_hash_u64(m->keys[j]) & (nm.cap - 1);
                while (nm.keys[p] != UINT64_MAX) p = (p + 1) & (nm.cap - 1);
                nm.keys[p] = m->keys[j];
                nm.vals[p] = m->vals[j];
            }
        nm.count = m->count;
        gk__u_umap_free(m);
        *m = nm;
    }
    i = (size_t)gk__u_hash_u64(k) & (m->cap - 1);
    for (;;) {
        if (m->keys[i] == k) return 0;
        if (m->keys[i] == UINT64_MAX) {
            m->keys[i] = k;
            m->vals[i] = v;
            m->count++;
            return 1;
        }
        i = (i + 1) & (m->cap - 1);
    }
}

/* ---- UTF-8 ---- */
/* Decodes one UTF-8 sequence at p (n bytes available).
   > 0 : valid, returns its length, *cp set
   0   : n == 0
   < 0 : invalid or truncated; -k where k is the length of the maximal
         subpart (1..3) that should become one U+FFFD. *cp = 0xFFFFFFFF.
   If the sequence is a valid prefix cut off by the end of the input,
   *cp is set to 0xFFFFFFFE instead (so streaming can wait for more). */
static int gk__u_utf8_dec(const unsigned char *p, size_t n, uint32_t *cp) {
    unsigned c;
    int len, i;
    uint32_t v;
    unsigned lo = 0x80, hi = 0xBF;
    if (n == 0) return 0;
    c = p[0];
    if (c < 0x80) { *cp = c; return 1; }
    *cp = 0xFFFFFFFFu;
    if (c < 0xC2) return -1;
    if (c < 0xE0) { len = 2; v = c & 0x1F; }
    else if (c < 0xF0) {
        len = 3; v = c & 0x0F;
        if (c == 0xE0) lo = 0xA0;
        else if (c == 0xED) hi = 0x9F;
    } else if (c < 0xF5) {
        len = 4; v = c & 0x07;
        if (c == 0xF0) lo = 0x90;
        else if (c == 0xF4) hi = 0x8F;
    } else return -1;
    for (i = 1; i < len; i++) {
        unsigned b;
        if ((size_t)i >= n) { *cp = 0xFFFFFFFEu; return -i; }
        b = p[i];
        if (b < lo || b > hi) return -i;
        lo = 0x80; hi = 0xBF;
        v = (v << 6) | (b & 0x3F);
    }
    *cp = v;
    return len;
}
static size_t gk__u_utf8_enc(uint32_t cp, char *o) {
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xC0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3F)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12)); o[1] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18)); o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}
/* Appends p[0..n) to out replacing invalid UTF-8 by U+FFFD (maximal subparts). */
static gk_status gk__u_append_lossy(gk_buf *out, const unsigned char *p, size_t n) {
    size_t i = 0, run = 0;
    gk_status st;
    while (i < n) {
        uint32_t cp;
        int k = gk__u_utf8_dec(p + i, n - i, &cp);
        if (k > 0) { i += (size_t)k; continue; }
        if ((st = gk_buf_append(out, p + run, i - run)) != GK_OK) return st;
        if ((st = gk_buf_append(out, "\xEF\xBF\xBD", 3)) != GK_OK) return st;
        i += (size_t)(-k);
        run = i;
    }
    return gk_buf_append(out, p + run, i - run);
}

/* ======================================================================== */
/* >>impl_json                                                              */
/* ======================================================================== */

struct gk_json_value {
    int type;
    size_t n;                 /* string bytes / element count */
    const char *key;          /* member key when inside an object */
    size_t keylen;
    union { int64_t i; double d; int b; const char *s; struct gk_json_value *kids; } u;
};

typedef struct gk__json_block { struct gk__json_block *next; size_t used, cap; } gk__json_block;

struct gk_json {
    gk__json_block *blocks;
    gk_json_value root;
};

typedef struct gk__json_parser {
    const unsigned char *start, *p, *end;
    gk_json *doc;
    gk_json_value *stack;     /* children of the containers being parsed */
    size_t sp, scap;
    size_t depth, max_depth;
    gk_status st;
} gk__json_parser;

static void *gk__json_alloc(gk_json *doc, size_t n) {
    gk__json_block *b = doc->blocks;
    size_t a = (n + 15) & ~(size_t)15;
    const size_t hdr = (sizeof(gk__json_block) + 15) & ~(size_t)15;
    if (a < n) return NULL;
    if (!b || b->cap - b->used < a) {
        size_t cap = a > (size_t)1 << 20 ? a : (size_t)1 << 20;
        if (cap > ((size_t)-1) - hdr) return NULL;
        b = (gk__json_block *)gk__u_malloc(hdr + cap);
        if (!b) return NULL;
        b->cap = cap;
        b->used = 0;
        if (doc->blocks && a > ((size_t)1 << 20)) {
            /* big one-off: keep the current block as head for small allocations */
            b->next = doc->blocks->next;
            doc->blocks->next = b;
            b->used = a;
            return (char *)b + hdr;
        }
        b->next = doc->blocks;
        doc->blocks = b;
    }
    b->used += a;
    return (char *)b + hdr + b->used - a;
}

static gk_status gk__json_fail(gk__json_parser *ps, const unsigned char *at, gk_status st, const char *what) {
    size_t line = 1, col = 1;
    const unsigned char *q;
    if (ps->st != GK_OK) return ps->st;
    if (at > ps->end) at = ps->end;
    for (q = ps->start; q < at; q++) {
        if (*q == '\n') { line++; col = 1; }
        else if ((*q & 0xC0) != 0x80) col++;
    }
    ps->st = gk_error_set(NULL, st, "JSON: %s at line %llu, column %llu (byte %llu)", what, (unsigned long long)(line), (unsigned long long)(col),
                          (unsigned long long)((size_t)(at - ps->start)));
    return ps->st;
}

static void gk__json_ws(gk__json_parser *ps) {
    const unsigned char *p = ps->p, *e = ps->end;
    while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    ps->p = p;
}

static int gk__json_hex4(const unsigned char *p, uint32_t *v) {
    int i;
    uint32_t r = 0;
    for (i = 0; i < 4; i++) {
        unsigned c = p[i];
        r <<= 4;
        if (c >= '0' && c <= '9') r |= c - '0';
        else if (c >= 'a' && c <= 'f') r |= c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') r |= c - 'A' + 10;
        else return 0;
    }
    *v = r;
    return 1;
}

/* Parses a string at ps->p (which is at the opening quote). */
static gk_status gk__json_string(gk__json_parser *ps, const char **out, size_t *outlen) {
    const unsigned char *p = ps->p + 1, *e = ps->end, *s0 = p;
    char *dst, *o;
    int has_esc = 0;
    /* pass 1: find the end, validate */
    for (;;) {
        unsigned c;
        if (p >= e) return gk__json_fail(ps, p, GK_ERR_FORMAT, "unterminated string");
        c = *p;
        if (c == '"') break;
        if (c == '\\') {
            has_esc = 1;
            if (p + 1 >= e) return gk__json_fail(ps, p, GK_ERR_FORMAT, "unterminated string");
            c = p[1];
            if (c == 'u') {
                uint32_t v, v2;
                if (e - p < 6 || !gk__json_hex4(p + 2, &v))
                    return gk__json_fail(ps, p, GK_ERR_FORMAT, "bad \\u escape");
                if (v >= 0xD800 && v <= 0xDBFF) {
                    if (e - p < 12 || p[6] != '\\' || p[7] != 'u' || !gk__json_hex4(p + 8, &v2) || v2 < 0xDC00 ||
                        v2 > 0xDFFF)
                        return gk__json_fail(ps, p, GK_ERR_FORMAT, "lone high surrogate in \\u escape");
                    p += 12;
                } else if (v >= 0xDC00 && v <= 0xDFFF) {
                    return gk__json_fail(ps, p, GK_ERR_FORMAT, "lone low surrogate in \\u escape");
                } else p += 6;
                continue;
            }
            if (c != '"' && c != '\\' && c != '/' && c != 'b' && c != 'f' && c != 'n' && c != 'r' && c != 't')
                return gk__json_fail(ps, p, GK_ERR_FORMAT, "invalid escape in string");
            p += 2;
            continue;
        }
        if (c < 0x20) return gk__json_fail(ps, p, GK_ERR_FORMAT, "control character in string");
        if (c < 0x80) { p++; continue; }
        {
            uint32_t cp;
            int k = gk__u_utf8_dec(p, (size_t)(e - p), &cp);
            if (k <= 0) return gk__json_fail(ps, p, GK_ERR_FORMAT, "invalid UTF-8 in string");
            p += k;
        }
    }
    /* p at the closing quote */
    dst = (char *)gk__json_alloc(ps->doc, (size_t)(p - s0) + 1);
    if (!dst) return gk__json_fail(ps, p, GK_ERR_OUT_OF_MEMORY, "out of memory");
    if (!has_esc) {
        memcpy(dst, s0, (size_t)(p - s0));
        o = dst + (p - s0);
    } else {
        const unsigned char *q = s0;
        o = dst;
        while (q < p) {
            if (*q != '\\') { *o++ = (char)*q++; continue; }
            switch (q[1]) {
            case '"': *o++ = '"'; q += 2; break;
            case '\\': *o++ = '\\'; q += 2; break;
            case '/': *o++ = '/'; q += 2; break;
            case 'b': *o++ = '\b'; q += 2; break;
            case 'f': *o++ = '\f'; q += 2; break;
            case 'n': *o++ = '\n'; q += 2; break;
            case 'r': *o++ = '\r'; q += 2; break;
            case 't': *o++ = '\t'; q += 2; break;
            default: { /* 'u', validated above */
                uint32_t v = 0, v2 = 0;
                gk__json_hex4(q + 2, &v);
                q += 6;
                if (v >= 0xD800 && v <= 0xDBFF) {
                    gk__json_hex4(q + 2, &v2);
                    q += 6;
                    v = 0x10000 + ((v - 0xD800) << 10) + (v2 - 0xDC00);
                }
                o += gk__u_utf8_enc(v, o);
            }
            }
        }
    }
    *o = 0;
    *out = dst;
    *outlen = (size_t)(o - dst);
    ps->p = p + 1;
    return GK_OK;
}

static gk_status gk__json_number(gk__json_parser *ps, gk_json_value *v) {
    const unsigned char *p = ps->p, *e = ps->end, *s0 = p;
    int neg = 0, isint = 1;
    uint64_t acc = 0;
    int ovf = 0;
    if (p < e && *p == '-') { neg = 1; p++; }
    if (p >= e || *p < '0' || *p > '9') return gk__json_fail(ps, p, GK_ERR_FORMAT, "invalid number");
    if (*p == '0') {
        p++;
        if (p < e && *p >= '0' && *p <= '9') return gk__json_fail(ps, p, GK_ERR_FORMAT, "leading zero in number");
    } else {
        while (p < e && *p >= '0' && *p <= '9') {
            unsigned d = *p - '0';
            if (acc > (UINT64_MAX - d) / 10) ovf = 1;
            else acc = acc * 10 + d;
            p++;
        }
    }
    if (p < e && *p == '.') {
        isint = 0;
        p++;
        if (p >= e || *p < '0' || *p > '9') return gk__json_fail(ps, p, GK_ERR_FORMAT, "digit expected after '.'");
        while (p < e && *p >= '0' && *p <= '9') p++;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        isint = 0;
        p++;
        if (p < e && (*p == '+' || *p == '-')) p++;
        if (p >= e || *p < '0' || *p > '9') return gk__json_fail(ps, p, GK_ERR_FORMAT, "digit expected in exponent");
        while (p < e && *p >= '0' && *p <= '9') p++;
    }
    if (isint && !ovf && (neg ? acc <= (uint64_t)INT64_MAX + 1 : acc <= (uint64_t)INT64_MAX)) {
        v->type = GK_JSON_INT;
        v->u.i = neg ? (acc == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)acc) : (int64_t)acc;
    } else {
        char tmp[128], *buf = tmp;
        size_t n = (size_t)(p - s0);
        if (n >= sizeof tmp) {
            buf = (char *)gk__u_malloc(n + 1);
            if (!buf) return gk__json_fail(ps, s0, GK_ERR_OUT_OF_MEMORY, "out of memory");
        }
        memcpy(buf, s0, n);
        buf[n] = 0;
        v->type = GK_JSON_DOUBLE;
        v->u.d = strtod(buf, NULL);
        if (buf != tmp) gk__u_free(buf);
    }
    ps->p = p;
    return GK_OK;
}

static gk_status gk__json_push(gk__json_parser *ps, const gk_json_value *v) {
    if (ps->sp == ps->scap && !gk__u_grow((void **)&ps->stack, &ps->scap, ps->sp + 1, sizeof(gk_json_value)))
        return gk__json_fail(ps, ps->p, GK_ERR_OUT_OF_MEMORY, "out of memory");
    ps->stack[ps->sp++] = *v;
    return GK_OK;
}

static gk_status gk__json_value(gk__json_parser *ps, gk_json_value *v);

static gk_status gk__json_container(gk__json_parser *ps, gk_json_value *v, int is_obj) {
    size_t base = ps->sp, n;
    const unsigned char *open = ps->p;
    char close = is_obj ? '}' : ']';
    if (++ps->depth > ps->max_depth)
        return gk__json_fail(ps, ps->p, GK_ERR_LIMIT, "nesting deeper than the depth limit");
    ps->p++;
    gk__json_ws(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
    } else {
        for (;;) {
            gk_json_value kid;
            const char *key = NULL;
            size_t keylen = 0;
            memset(&kid, 0, sizeof kid);
            if (is_obj) {
                if (ps->p >= ps->end || *ps->p != '"')
                    return gk__json_fail(ps, ps->p, GK_ERR_FORMAT, ps->p >= ps->end ? "unexpected end of input in object" : "object key (string) expected");
                if (gk__json_string(ps, &key, &keylen) != GK_OK) return ps->st;
                gk__json_ws(ps);
                if (ps->p >= ps->end || *ps->p != ':') return gk__json_fail(ps, ps->p, GK_ERR_FORMAT, "':' expected");
                ps->p++;
                gk__json_ws(ps);
            }
            if (gk__json_value(ps, &kid) != GK_OK) return ps->st;
            kid.key = key;
            kid.keylen = keylen;
            if (gk__json_push(ps, &kid) != GK_OK) return ps->st;
            gk__json_ws(ps);
            if (ps->p >= ps->end)
                return gk__json_fail(ps, ps->p, GK_ERR_FORMAT, is_obj ? "unexpected end of input in object" : "unexpected end of input in array");
            if (*ps->p == ',') {
                ps->p++;
                gk__json_ws(ps);
                continue;
            }
            if (*ps->p == close) { ps->p++; break; }
            return gk__json_fail(ps, ps->p, GK_ERR_FORMAT, is_obj ? "',' or '}' expected" : "',' or ']' expected");
        }
    }
    (void)open;
    n = ps->sp - base;
    v->type = is_obj ? GK_JSON_OBJECT : GK_JSON_ARRAY;
    v->n = n;
    v->u.kids = NULL;
    if (n) {
        v->u.kids = (gk_json_value *)gk__json_alloc(ps->doc, n * sizeof(gk_json_value));
        if (!v->u.kids) return gk__json_fail(ps, ps->p, GK_ERR_OUT_OF_MEMORY, "out of memory");
        memcpy(v->u.kids, ps->stack + base, n * sizeof(gk_json_value));
    }
    ps->sp = base;
    ps->depth--;
    return GK_OK;
}

static int gk__json_lit(gk__json_parser *ps, const char *lit, size_t n) {
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, lit, n) != 0) return 0;
    ps->p += n;
    return 1;
}

static gk_status gk__json_value(gk__json_parser *ps, gk_json_value *v) {
    unsigned c;
    if (ps->p >= ps->end) return gk__json_fail(ps, ps->p, GK_ERR_FORMAT, "unexpected end of input, value expected");
    c = *ps->p;
    switch (c) {
    case '{': return gk__json_container(ps, v, 1);
    case '[': return gk__json_container(ps, v, 0);
    case '"': {
        const char *s;
        size_t n;
        if (gk__json_string(ps, &s, &n) != GK_OK) return ps->st;
        v->type = GK_JSON_STRING;
        v->u.s = s;
        v->n = n;
        return GK_OK;
    }
    case 't':
        if (gk__json_lit(ps, "true", 4)) { v->type = GK_JSON_BOOL; v->u.b = 1; return GK_OK; }
        break;
    case 'f':
        if (gk__json_lit(ps, "false", 5)) { v->type = GK_JSON_BOOL; v->u.b = 0; return GK_OK; }
        break;
    case 'n':
        if (gk__json_lit(ps, "null", 4)) { v->type = GK_JSON_NULL; return GK_OK; }
        break;
    default:
        if (c == '-' || (c >= '0' && c <= '9')) return gk__json_number(ps, v);
    }
    return gk__json_fail(ps, ps->p, GK_ERR_FORMAT, "invalid value");
}

GKLLMDEF void gk_json_free(gk_json *doc) {
    gk__json_block *b, *n;
    if (!doc) return;
    for (b = doc->blocks; b; b = n) {
        n = b->next;
        gk__u_free(b);
    }
    gk__u_free(doc);
}

GKLLMDEF gk_status gk_json_parse(const char *text, size_t len, const gk_json_options *opt, gk_json **out) {
    gk__json_parser ps;
    gk_json *doc;
    size_t max_size = (opt && opt->max_size) ? opt->max_size : ((size_t)1 << 30);
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_json_parse: out is NULL");
    *out = NULL;
    if (!text && len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_json_parse: text is NULL but len is %llu", (unsigned long long)len);
    if (len > max_size) return GK__U_ERR(GK_ERR_LIMIT, "JSON: input of %llu bytes exceeds the size limit of %llu bytes", (unsigned long long)(len), (unsigned long long)(max_size));
    doc = (gk_json *)gk__u_calloc(1, sizeof(gk_json));
    if (!doc) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    memset(&ps, 0, sizeof ps);
    ps.start = (const unsigned char *)(text ? text : "");
    ps.p = ps.start;
    ps.end = ps.start + len;
    ps.doc = doc;
    ps.max_depth = (opt && opt->max_depth) ? opt->max_depth : 128;
    ps.st = GK_OK;
    if (len >= 3 && ps.p[0] == 0xEF && ps.p[1] == 0xBB && ps.p[2] == 0xBF) ps.p += 3;
    gk__json_ws(&ps);
    if (gk__json_value(&ps, &doc->root) == GK_OK) {
        gk__json_ws(&ps);
        if (ps.p != ps.end) gk__json_fail(&ps, ps.p, GK_ERR_FORMAT, "unexpected data after the JSON value");
    }
    gk__u_free(ps.stack);
    if (ps.st != GK_OK) {
        gk_json_free(doc);
        return ps.st;
    }
    *out = doc;
    return GK_OK;
}

GKLLMDEF gk_status gk_json_parse_file(const char *path, const gk_json_options *opt, gk_json **out) {
    char *data;
    size_t size;
    gk_status st;
    size_t max_size = (opt && opt->max_size) ? opt->max_size : ((size_t)1 << 30);
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_json_parse_file: out is NULL");
    *out = NULL;
    if (!path) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_json_parse_file: path is NULL");
    st = gk_read_file(path, max_size, &data, &size);
    if (st != GK_OK) return st;
    st = gk_json_parse(data, size, opt, out);
    if (st != GK_OK) {
        char msg[900];
        gk__u_errcopy(msg, sizeof msg);
        gk_error_set(NULL, st, "%s: %s", path, msg);
    }
    gk__u_free(data);
    return st;
}

GKLLMDEF const gk_json_value *gk_json_root(const gk_json *doc) { return doc ? &doc->root : NULL; }
GKLLMDEF gk_json_type gk_json_typeof(const gk_json_value *v) { return v ? (gk_json_type)v->type : GK_JSON_NULL; }
GKLLMDEF int gk_json_is_null(const gk_json_value *v) { return !v || v->type == GK_JSON_NULL; }
GKLLMDEF size_t gk_json_len(const gk_json_value *v) {
    if (!v) return 0;
    return (v->type == GK_JSON_ARRAY || v->type == GK_JSON_OBJECT || v->type == GK_JSON_STRING) ? v->n : 0;
}
GKLLMDEF const gk_json_value *gk_json_at(const gk_json_value *v, size_t i) {
    if (!v || (v->type != GK_JSON_ARRAY && v->type != GK_JSON_OBJECT) || i >= v->n) return NULL;
    return &v->u.kids[i];
}
GKLLMDEF const char *gk_json_key_at(const gk_json_value *obj, size_t i, size_t *len) {
    if (!obj || obj->type != GK_JSON_OBJECT || i >= obj->n) {
        if (len) *len = 0;
        return NULL;
    }
    if (len) *len = obj->u.kids[i].keylen;
    return obj->u.kids[i].key;
}
GKLLMDEF const gk_json_value *gk_json_getn(const gk_json_value *obj, const char *key, size_t keylen) {
    size_t i;
    if (!obj || obj->type != GK_JSON_OBJECT || !key) return NULL;
    for (i = 0; i < obj->n; i++) {
        const gk_json_value *k = &obj->u.kids[i];
        if (k->keylen == keylen && memcmp(k->key, key, keylen) == 0) return k;
    }
    return NULL;
}
GKLLMDEF const gk_json_value *gk_json_get(const gk_json_value *obj, const char *key) {
    return key ? gk_json_getn(obj, key, strlen(key)) : NULL;
}
static const gk_json_value *gk__json_step(const gk_json_value *v, const char *seg, size_t n) {
    if (!v) return NULL;
    if (v->type == GK_JSON_ARRAY) {
        size_t i, idx = 0;
        if (n == 0 || n > 19) return NULL;
        for (i = 0; i < n; i++) {
            if (seg[i] < '0' || seg[i] > '9') return NULL;
            idx = idx * 10 + (size_t)(seg[i] - '0');
        }
        return gk_json_at(v, idx);
    }
    return gk_json_getn(v, seg, n);
}
GKLLMDEF const gk_json_value *gk_json_path(const gk_json_value *v, const char *path) {
    const char *s;
    if (!v || !path) return NULL;
    if (!*path) return v;
    s = path;
    for (;;) {
        const char *dot = strchr(s, '.');
        size_t n = dot ? (size_t)(dot - s) : strlen(s);
        v = gk__json_step(v, s, n);
        if (!v || !dot) return v;
        s = dot + 1;
    }
}
GKLLMDEF const gk_json_value *gk_json_pathv(const gk_json_value *v, const char *const *keys, size_t n) {
    size_t i;
    if (!v || (n && !keys)) return NULL;
    for (i = 0; i < n && v; i++) v = keys[i] ? gk__json_step(v, keys[i], strlen(keys[i])) : NULL;
    return v;
}
GKLLMDEF int64_t gk_json_int(const gk_json_value *v, int64_t def) {
    if (!v) return def;
    if (v->type == GK_JSON_INT) return v->u.i;
    if (v->type == GK_JSON_DOUBLE && v->u.d == floor(v->u.d) && v->u.d >= -9223372036854775808.0 &&
        v->u.d < 9223372036854775808.0)
        return (int64_t)v->u.d;
    return def;
}
GKLLMDEF double gk_json_double(const gk_json_value *v, double def) {
    if (!v) return def;
    if (v->type == GK_JSON_DOUBLE) return v->u.d;
    if (v->type == GK_JSON_INT) return (double)v->u.i;
    return def;
}
GKLLMDEF int gk_json_bool(const gk_json_value *v, int def) {
    return (v && v->type == GK_JSON_BOOL) ? v->u.b : def;
}
GKLLMDEF const char *gk_json_str(const gk_json_value *v, const char *def) {
    return (v && v->type == GK_JSON_STRING) ? v->u.s : def;
}
GKLLMDEF int64_t gk_json_get_int(const gk_json_value *v, const char *path, int64_t def) {
    return gk_json_int(gk_json_path(v, path), def);
}
GKLLMDEF double gk_json_get_double(const gk_json_value *v, const char *path, double def) {
    return gk_json_double(gk_json_path(v, path), def);
}
GKLLMDEF int gk_json_get_bool(const gk_json_value *v, const char *path, int def) {
    return gk_json_bool(gk_json_path(v, path), def);
}
GKLLMDEF const char *gk_json_get_string(const gk_json_value *v, const char *path, const char *def) {
    return gk_json_str(gk_json_path(v, path), def);
}


/* A JSON value as messages quote it: 12, -1, 1e-06, true, null, "text" (first
   40 bytes), a list of 3, an object; "missing" for NULL. */
static const char *gk__json_show(const gk_json_value *v, char *buf, size_t cap) {
    if (!v) snprintf(buf, cap, "missing");
    else switch (v->type) {
    case GK_JSON_NULL: snprintf(buf, cap, "null"); break;
    case GK_JSON_BOOL: snprintf(buf, cap, "%s", v->u.b ? "true" : "false"); break;
    case GK_JSON_INT: snprintf(buf, cap, "%lld", (long long)v->u.i); break;
    case GK_JSON_DOUBLE: snprintf(buf, cap, "%.15g", v->u.d); break;
    case GK_JSON_STRING: snprintf(buf, cap, "\"%.40s%s\"", v->u.s, v->n > 40 ? "..." : ""); break;
    case GK_JSON_ARRAY: snprintf(buf, cap, "a list of %llu", (unsigned long long)v->n); break;
    default: snprintf(buf, cap, "an object"); break;
    }
    return buf;
}

/* The first key that an object holds twice (NULL: none, or not an object).
   Readers that follow Python's json (the last wins) and this one (the first
   wins) would disagree, so the files whose members are read call it. O(n^2):
   for the small objects of config files. */
static const char *gk__json_dup_key(const gk_json_value *obj) {
    size_t i, j, n = gk_json_typeof(obj) == GK_JSON_OBJECT ? obj->n : 0;
    for (i = 1; i < n; i++)
        for (j = 0; j < i; j++)
            if (obj->u.kids[i].keylen == obj->u.kids[j].keylen && memcmp(obj->u.kids[i].key, obj->u.kids[j].key, obj->u.kids[i].keylen) == 0)
                return obj->u.kids[i].key;
    return NULL;
}
/* ======================================================================== */
/* >>impl_unicode                                                           */
/* ======================================================================== */

/* GK__UNICODE_TABLES_BEGIN */
/* Generated by tools/gen_unicode_tables.py from the Unicode Character Database 15.0.0.
   Do not edit by hand: rerun the script. */
#define GK__UNI_VERSION "15.0.0"
static const uint32_t gk__uni_cls[1116][2] = {
{0x9,0x6B},{0x20,0x103},{0x30,0x1CA},{0x41,0x2D1},{0x61,0x3D1},{0x85,0x42B},
{0xA0,0x503},{0xAA,0x551},{0xB2,0x59A},{0xB5,0x5A9},{0xB9,0x5CA},{0xBA,0x5D1},
{0xBC,0x5F2},{0xC0,0x6B1},{0xD8,0x7B1},{0xF8,0x1609},{0x2C6,0x1689},{0x2E0,0x1721},
{0x2EC,0x1761},{0x2EE,0x1771},{0x300,0x1B7C},{0x370,0x1BA1},{0x376,0x1BB9},{0x37A,0x1BE9},
{0x37F,0x1BF9},{0x386,0x1C31},{0x388,0x1C51},{0x38C,0x1C61},{0x38E,0x1D09},{0x3A3,0x1FA9},
{0x3F7,0x2409},{0x483,0x244C},{0x48A,0x2979},{0x531,0x2AB1},{0x559,0x2AC9},{0x560,0x2C41},
{0x591,0x2DEC},{0x5BF,0x2DFC},{0x5C1,0x2E14},{0x5C4,0x2E2C},{0x5C7,0x2E3C},{0x5D0,0x2F51},
{0x5EF,0x2F91},{0x610,0x30D4},{0x620,0x3251},{0x64B,0x32FC},{0x660,0x334A},{0x66E,0x3379},
{0x670,0x3384},{0x671,0x3699},{0x6D5,0x36A9},{0x6D6,0x36E4},{0x6DF,0x3724},{0x6E5,0x3731},
{0x6E7,0x3744},{0x6EA,0x376C},{0x6EE,0x3779},{0x6F0,0x37CA},{0x6FA,0x37E1},{0x6FF,0x37F9},
{0x710,0x3881},{0x711,0x388C},{0x712,0x3979},{0x730,0x3A54},{0x74D,0x3D29},{0x7A6,0x3D84},
{0x7B1,0x3D89},{0x7C0,0x3E4A},{0x7CA,0x3F51},{0x7EB,0x3F9C},{0x7F4,0x3FA9},{0x7FA,0x3FD1},
{0x7FD,0x3FEC},{0x800,0x40A9},{0x816,0x40CC},{0x81A,0x40D1},{0x81B,0x411C},{0x824,0x4121},
{0x825,0x413C},{0x828,0x4141},{0x829,0x416C},{0x840,0x42C1},{0x859,0x42DC},{0x860,0x4351},
{0x870,0x4439},{0x889,0x4471},{0x898,0x44FC},{0x8A0,0x4649},{0x8CA,0x470C},{0x8E3,0x481C},
{0x904,0x49C9},{0x93A,0x49E4},{0x93D,0x49E9},{0x93E,0x4A7C},{0x950,0x4A81},{0x951,0x4ABC},
{0x958,0x4B09},{0x962,0x4B1C},{0x966,0x4B7A},{0x971,0x4C01},{0x981,0x4C1C},{0x985,0x4C61},
{0x98F,0x4C81},{0x993,0x4D41},{0x9AA,0x4D81},{0x9B2,0x4D91},{0x9B6,0x4DC9},{0x9BC,0x4DE4},
{0x9BD,0x4DE9},{0x9BE,0x4E24},{0x9C7,0x4E44},{0x9CB,0x4E6C},{0x9CE,0x4E71},{0x9D7,0x4EBC},
{0x9DC,0x4EE9},{0x9DF,0x4F09},{0x9E2,0x4F1C},{0x9E6,0x4F7A},{0x9F0,0x4F89},{0x9F4,0x4FCA},
{0x9FC,0x4FE1},{0x9FE,0x4FF4},{0xA01,0x501C},{0xA05,0x5051},{0xA0F,0x5081},{0xA13,0x5141},
{0xA2A,0x5181},{0xA32,0x5199},{0xA35,0x51B1},{0xA38,0x51C9},{0xA3C,0x51E4},{0xA3E,0x5214},
{0xA47,0x5244},{0xA4B,0x526C},{0xA51,0x528C},{0xA59,0x52E1},{0xA5E,0x52F1},{0xA66,0x537A},
{0xA70,0x538C},{0xA72,0x53A1},{0xA75,0x53AC},{0xA81,0x541C},{0xA85,0x5469},{0xA8F,0x5489},
{0xA93,0x5541},{0xAAA,0x5581},{0xAB2,0x5599},{0xAB5,0x55C9},{0xABC,0x55E4},{0xABD,0x55E9},
{0xABE,0x562C},{0xAC7,0x564C},{0xACB,0x566C},{0xAD0,0x5681},{0xAE0,0x5709},{0xAE2,0x571C},
{0xAE6,0x577A},{0xAF9,0x57C9},{0xAFA,0x57FC},{0xB01,0x581C},{0xB05,0x5861},{0xB0F,0x5881},
{0xB13,0x5941},{0xB2A,0x5981},{0xB32,0x5999},{0xB35,0x59C9},{0xB3C,0x59E4},{0xB3D,0x59E9},
{0xB3E,0x5A24},{0xB47,0x5A44},{0xB4B,0x5A6C},{0xB55,0x5ABC},{0xB5C,0x5AE9},{0xB5F,0x5B09},
{0xB62,0x5B1C},{0xB66,0x5B7A},{0xB71,0x5B89},{0xB72,0x5BBA},{0xB82,0x5C14},{0xB83,0x5C19},
{0xB85,0x5C51},{0xB8E,0x5C81},{0xB92,0x5CA9},{0xB99,0x5CD1},{0xB9C,0x5CE1},{0xB9E,0x5CF9},
{0xBA3,0x5D21},{0xBA8,0x5D51},{0xBAE,0x5DC9},{0xBBE,0x5E14},{0xBC6,0x5E44},{0xBCA,0x5E6C},
{0xBD0,0x5E81},{0xBD7,0x5EBC},{0xBE6,0x5F92},{0xC00,0x6024},{0xC05,0x6061},{0xC0E,0x6081},
{0xC12,0x6141},{0xC2A,0x61C9},{0xC3C,0x61E4},{0xC3D,0x61E9},{0xC3E,0x6224},{0xC46,0x6244},
{0xC4A,0x626C},{0xC55,0x62B4},{0xC58,0x62D1},{0xC5D,0x62E9},{0xC60,0x6309},{0xC62,0x631C},
{0xC66,0x637A},{0xC78,0x63F2},{0xC80,0x6401},{0xC81,0x641C},{0xC85,0x6461},{0xC8E,0x6481},
{0xC92,0x6541},{0xCAA,0x6599},{0xCB5,0x65C9},{0xCBC,0x65E4},{0xCBD,0x65E9},{0xCBE,0x6624},
{0xCC6,0x6644},{0xCCA,0x666C},{0xCD5,0x66B4},{0xCDD,0x66F1},{0xCE0,0x6709},{0xCE2,0x671C},
{0xCE6,0x677A},{0xCF1,0x6791},{0xCF3,0x679C},{0xD00,0x681C},{0xD04,0x6861},{0xD0E,0x6881},
{0xD12,0x69D1},{0xD3B,0x69E4},{0xD3D,0x69E9},{0xD3E,0x6A24},{0xD46,0x6A44},{0xD4A,0x6A6C},
{0xD4E,0x6A71},{0xD54,0x6AB1},{0xD57,0x6ABC},{0xD58,0x6AF2},{0xD5F,0x6B09},{0xD62,0x6B1C},
{0xD66,0x6BC2},{0xD7A,0x6BF9},{0xD81,0x6C1C},{0xD85,0x6CB1},{0xD9A,0x6D89},{0xDB3,0x6DD9},
{0xDBD,0x6DE9},{0xDC0,0x6E31},{0xDCA,0x6E54},{0xDCF,0x6EA4},{0xDD6,0x6EB4},{0xDD8,0x6EFC},
{0xDE6,0x6F7A},{0xDF2,0x6F9C},{0xE01,0x7181},{0xE31,0x718C},{0xE32,0x7199},{0xE34,0x71D4},
{0xE40,0x7231},{0xE47,0x7274},{0xE50,0x72CA},{0xE81,0x7411},{0xE84,0x7421},{0xE86,0x7451},
{0xE8C,0x7519},{0xEA5,0x7529},{0xEA7,0x7581},{0xEB1,0x758C},{0xEB2,0x7599},{0xEB4,0x75E4},
{0xEBD,0x75E9},{0xEC0,0x7621},{0xEC6,0x7631},{0xEC8,0x7674},{0xED0,0x76CA},{0xEDC,0x76F9},
{0xF00,0x7801},{0xF18,0x78CC},{0xF20,0x799A},{0xF35,0x79AC},{0xF37,0x79BC},{0xF39,0x79CC},
{0xF3E,0x79FC},{0xF40,0x7A39},{0xF49,0x7B61},{0xF71,0x7C24},{0xF86,0x7C3C},{0xF88,0x7C61},
{0xF8D,0x7CBC},{0xF99,0x7DE4},{0xFC6,0x7E34},{0x1000,0x8151},{0x102B,0x81F4},{0x103F,0x81F9},
{0x1040,0x824A},{0x1050,0x82A9},{0x1056,0x82CC},{0x105A,0x82E9},{0x105E,0x8304},{0x1061,0x8309},
{0x1062,0x8324},{0x1065,0x8331},{0x1067,0x836C},{0x106E,0x8381},{0x1071,0x83A4},{0x1075,0x8409},
{0x1082,0x846C},{0x108E,0x8471},{0x108F,0x847C},{0x1090,0x84CA},{0x109A,0x84EC},{0x10A0,0x8629},
{0x10C7,0x8639},{0x10CD,0x8669},{0x10D0,0x87D1},{0x10FC,0x9241},{0x124A,0x9269},{0x1250,0x92B1},
{0x1258,0x92C1},{0x125A,0x92E9},{0x1260,0x9441},{0x128A,0x9469},{0x1290,0x9581},{0x12B2,0x95A9},
{0x12B8,0x95F1},{0x12C0,0x9601},{0x12C2,0x9629},{0x12C8,0x96B1},{0x12D8,0x9881},{0x1312,0x98A9},
{0x1318,0x9AD1},{0x135D,0x9AFC},{0x1369,0x9BE2},{0x1380,0x9C79},{0x13A0,0x9FA9},{0x13F8,0x9FE9},
{0x1401,0xB361},{0x166F,0xB3F9},{0x1680,0xB403},{0x1681,0xB4D1},{0x16A0,0xB751},{0x16EE,0xB782},
{0x16F1,0xB7C1},{0x1700,0xB889},{0x1712,0xB8AC},{0x171F,0xB989},{0x1732,0xB9A4},{0x1740,0xBA89},
{0x1752,0xBA9C},{0x1760,0xBB61},{0x176E,0xBB81},{0x1772,0xBB9C},{0x1780,0xBD99},{0x17B4,0xBE9C},
{0x17D7,0xBEB9},{0x17DC,0xBEE1},{0x17DD,0xBEEC},{0x17E0,0xBF4A},{0x17F0,0xBFCA},{0x180B,0xC06C},
{0x180F,0xC07C},{0x1810,0xC0CA},{0x1820,0xC3C1},{0x1880,0xC421},{0x1885,0xC434},{0x1887,0xC541},
{0x18A9,0xC54C},{0x18AA,0xC551},{0x18B0,0xC7A9},{0x1900,0xC8F1},{0x1920,0xC95C},{0x1930,0xC9DC},
{0x1946,0xCA7A},{0x1950,0xCB69},{0x1970,0xCBA1},{0x1980,0xCD59},{0x19B0,0xCE49},{0x19D0,0xCED2},
{0x1A00,0xD0B1},{0x1A17,0xD0DC},{0x1A20,0xD2A1},{0x1A55,0xD2F4},{0x1A60,0xD3E4},{0x1A7F,0xD3FC},
{0x1A80,0xD44A},{0x1A90,0xD4CA},{0x1AA7,0xD539},{0x1AB0,0xD674},{0x1B00,0xD824},{0x1B05,0xD999},
{0x1B34,0xDA24},{0x1B45,0xDA61},{0x1B50,0xDACA},{0x1B6B,0xDB9C},{0x1B80,0xDC14},{0x1B83,0xDD01},
{0x1BA1,0xDD6C},{0x1BAE,0xDD79},{0x1BB0,0xDDCA},{0x1BBA,0xDF29},{0x1BE6,0xDF9C},{0x1C00,0xE119},
{0x1C24,0xE1BC},{0x1C40,0xE24A},{0x1C4D,0xE279},{0x1C50,0xE2CA},{0x1C5A,0xE3E9},{0x1C80,0xE441},
{0x1C90,0xE5D1},{0x1CBD,0xE5F9},{0x1CD0,0xE694},{0x1CD4,0xE744},{0x1CE9,0xE761},{0x1CED,0xE76C},
{0x1CEE,0xE799},{0x1CF4,0xE7A4},{0x1CF5,0xE7B1},{0x1CF7,0xE7CC},{0x1CFA,0xE7D1},{0x1D00,0xEDF9},
{0x1DC0,0xEFFC},{0x1E00,0xF8A9},{0x1F18,0xF8E9},{0x1F20,0xFA29},{0x1F48,0xFA69},{0x1F50,0xFAB9},
{0x1F59,0xFAC9},{0x1F5B,0xFAD9},{0x1F5D,0xFAE9},{0x1F5F,0xFBE9},{0x1F80,0xFDA1},{0x1FB6,0xFDE1},
{0x1FBE,0xFDF1},{0x1FC2,0xFE21},{0x1FC6,0xFE61},{0x1FD0,0xFE99},{0x1FD6,0xFED9},{0x1FE0,0xFF61},
{0x1FF2,0xFFA1},{0x1FF6,0xFFE1},{0x2000,0x10053},{0x2028,0x1014B},{0x202F,0x1017B},{0x205F,0x102FB},
{0x2070,0x10382},{0x2071,0x10389},{0x2074,0x103CA},{0x207F,0x103F9},{0x2080,0x1044A},{0x2090,0x104E1},
{0x20D0,0x10784},{0x2102,0x10811},{0x2107,0x10839},{0x210A,0x10899},{0x2115,0x108A9},{0x2119,0x108E9},
{0x2124,0x10921},{0x2126,0x10931},{0x2128,0x10941},{0x212A,0x10969},{0x212F,0x109C9},{0x213C,0x109F9},
{0x2145,0x10A49},{0x214E,0x10A71},{0x2150,0x10C12},{0x2183,0x10C21},{0x2185,0x10C4A},{0x2460,0x124DA},
{0x24EA,0x127FA},{0x2776,0x13C9A},{0x2C00,0x16721},{0x2CEB,0x16771},{0x2CEF,0x1678C},{0x2CF2,0x16799},
{0x2CFD,0x167EA},{0x2D00,0x16929},{0x2D27,0x16939},{0x2D2D,0x16969},{0x2D30,0x16B39},{0x2D6F,0x16B79},
{0x2D7F,0x16BFC},{0x2D80,0x16CB1},{0x2DA0,0x16D31},{0x2DA8,0x16D71},{0x2DB0,0x16DB1},{0x2DB8,0x16DF1},
{0x2DC0,0x16E31},{0x2DC8,0x16E71},{0x2DD0,0x16EB1},{0x2DD8,0x16EF1},{0x2DE0,0x16FFC},{0x2E2F,0x17179},
{0x3000,0x18003},{0x3005,0x18031},{0x3007,0x1803A},{0x3021,0x1814A},{0x302A,0x1817C},{0x3031,0x181A9},
{0x3038,0x181D2},{0x303B,0x181E1},{0x3041,0x184B1},{0x3099,0x184D4},{0x309D,0x184F9},{0x30A1,0x187D1},
{0x30FC,0x187F9},{0x3105,0x18979},{0x3131,0x18C71},{0x3192,0x18CAA},{0x31A0,0x18DF9},{0x31F0,0x18FF9},
{0x3220,0x1914A},{0x3248,0x1927A},{0x3251,0x192FA},{0x3280,0x1944A},{0x32B1,0x195FA},{0x3400,0x26DF9},
{0x4E00,0x52461},{0xA4D0,0x527E9},{0xA500,0x53061},{0xA610,0x530F9},{0xA620,0x5314A},{0xA62A,0x53159},
{0xA640,0x53371},{0xA66F,0x53394},{0xA674,0x533EC},{0xA67F,0x534E9},{0xA69E,0x534FC},{0xA6A0,0x53729},
{0xA6E6,0x5377A},{0xA6F0,0x5378C},{0xA717,0x538F9},{0xA722,0x53C41},{0xA78B,0x53E51},{0xA7D0,0x53E89},
{0xA7D3,0x53E99},{0xA7D5,0x53EC9},{0xA7F2,0x54009},{0xA802,0x54014},{0xA803,0x54029},{0xA806,0x54034},
{0xA807,0x54051},{0xA80B,0x5405C},{0xA80C,0x54111},{0xA823,0x5413C},{0xA82C,0x54164},{0xA830,0x541AA},
{0xA840,0x54399},{0xA880,0x5440C},{0xA882,0x54599},{0xA8B4,0x5462C},{0xA8D0,0x546CA},{0xA8E0,0x5478C},
{0xA8F2,0x547B9},{0xA8FB,0x547D9},{0xA8FD,0x547F1},{0xA8FF,0x547FC},{0xA900,0x5484A},{0xA90A,0x54929},
{0xA926,0x5496C},{0xA930,0x54A31},{0xA947,0x54A9C},{0xA960,0x54BE1},{0xA980,0x54C1C},{0xA984,0x54D91},
{0xA9B3,0x54E04},{0xA9CF,0x54E79},{0xA9D0,0x54ECA},{0xA9E0,0x54F21},{0xA9E5,0x54F2C},{0xA9E6,0x54F79},
{0xA9F0,0x54FCA},{0xA9FA,0x54FF1},{0xAA00,0x55141},{0xAA29,0x551B4},{0xAA40,0x55211},{0xAA43,0x5521C},
{0xAA44,0x55259},{0xAA4C,0x5526C},{0xAA50,0x552CA},{0xAA60,0x553B1},{0xAA7A,0x553D1},{0xAA7B,0x553EC},
{0xAA7E,0x55579},{0xAAB0,0x55584},{0xAAB1,0x55589},{0xAAB2,0x555A4},{0xAAB5,0x555B1},{0xAAB7,0x555C4},
{0xAAB9,0x555E9},{0xAABE,0x555FC},{0xAAC0,0x55601},{0xAAC1,0x5560C},{0xAAC2,0x55611},{0xAADB,0x556E9},
{0xAAE0,0x55751},{0xAAEB,0x5577C},{0xAAF2,0x557A1},{0xAAF5,0x557B4},{0xAB01,0x55831},{0xAB09,0x55871},
{0xAB11,0x558B1},{0xAB20,0x55931},{0xAB28,0x55971},{0xAB30,0x55AD1},{0xAB5C,0x55B49},{0xAB70,0x55F11},
{0xABE3,0x55F54},{0xABEC,0x55F6C},{0xABF0,0x55FCA},{0xAC00,0x6BD19},{0xD7B0,0x6BE31},{0xD7CB,0x6BFD9},
{0xF900,0x7D369},{0xFA70,0x7D6C9},{0xFB00,0x7D831},{0xFB13,0x7D8B9},{0xFB1D,0x7D8E9},{0xFB1E,0x7D8F4},
{0xFB1F,0x7D941},{0xFB2A,0x7D9B1},{0xFB38,0x7D9E1},{0xFB3E,0x7D9F1},{0xFB40,0x7DA09},{0xFB43,0x7DA21},
{0xFB46,0x7DD89},{0xFBD3,0x7E9E9},{0xFD50,0x7EC79},{0xFD92,0x7EE39},{0xFDF0,0x7EFD9},{0xFE00,0x7F07C},
{0xFE20,0x7F17C},{0xFE70,0x7F3A1},{0xFE76,0x7F7E1},{0xFF10,0x7F8CA},{0xFF21,0x7F9D1},{0xFF41,0x7FAD1},
{0xFF66,0x7FDF1},{0xFFC2,0x7FE39},{0xFFCA,0x7FE79},{0xFFD2,0x7FEB9},{0xFFDA,0x7FEE1},{0x10000,0x80059},
{0x1000D,0x80131},{0x10028,0x801D1},{0x1003C,0x801E9},{0x1003F,0x80269},{0x10050,0x802E9},{0x10080,0x807D1},
{0x10107,0x8099A},{0x10140,0x80BC2},{0x1018A,0x80C5A},{0x101FD,0x80FEC},{0x10280,0x814E1},{0x102A0,0x81681},
{0x102E0,0x81704},{0x102E1,0x817DA},{0x10300,0x818F9},{0x10320,0x8191A},{0x1032D,0x81A01},{0x10341,0x81A0A},
{0x10342,0x81A49},{0x1034A,0x81A52},{0x10350,0x81BA9},{0x10376,0x81BD4},{0x10380,0x81CE9},{0x103A0,0x81E19},
{0x103C8,0x81E79},{0x103D1,0x81EAA},{0x10400,0x824E9},{0x104A0,0x8254A},{0x104B0,0x82699},{0x104D8,0x827D9},
{0x10500,0x82939},{0x10530,0x82B19},{0x10570,0x82BD1},{0x1057C,0x82C51},{0x1058C,0x82C91},{0x10594,0x82CA9},
{0x10597,0x82D09},{0x105A3,0x82D89},{0x105B3,0x82DC9},{0x105BB,0x82DE1},{0x10600,0x839B1},{0x10740,0x83AA9},
{0x10760,0x83B39},{0x10780,0x83C29},{0x10787,0x83D81},{0x107B2,0x83DD1},{0x10800,0x84029},{0x10808,0x84041},
{0x1080A,0x841A9},{0x10837,0x841C1},{0x1083C,0x841E1},{0x1083F,0x842A9},{0x10858,0x842FA},{0x10860,0x843B1},
{0x10879,0x843FA},{0x10880,0x844F1},{0x108A7,0x8457A},{0x108E0,0x84791},{0x108F4,0x847A9},{0x108FB,0x847FA},
{0x10900,0x848A9},{0x10916,0x848DA},{0x10920,0x849C9},{0x10980,0x84DB9},{0x109BC,0x84DEA},{0x109BE,0x84DF9},
{0x109C0,0x84E7A},{0x109D2,0x84FFA},{0x10A00,0x85001},{0x10A01,0x8501C},{0x10A05,0x85034},{0x10A0C,0x8507C},
{0x10A10,0x85099},{0x10A15,0x850B9},{0x10A19,0x851A9},{0x10A38,0x851D4},{0x10A3F,0x851FC},{0x10A40,0x85242},
{0x10A60,0x853E1},{0x10A7D,0x853F2},{0x10A80,0x854E1},{0x10A9D,0x854FA},{0x10AC0,0x85639},{0x10AC9,0x85721},
{0x10AE5,0x85734},{0x10AEB,0x8577A},{0x10B00,0x859A9},{0x10B40,0x85AA9},{0x10B58,0x85AFA},{0x10B60,0x85B91},
{0x10B78,0x85BFA},{0x10B80,0x85C89},{0x10BA9,0x85D7A},{0x10C00,0x86241},{0x10C80,0x86591},{0x10CC0,0x86791},
{0x10CFA,0x867FA},{0x10D00,0x86919},{0x10D24,0x8693C},{0x10D30,0x869CA},{0x10E60,0x873F2},{0x10E80,0x87549},
{0x10EAB,0x87564},{0x10EB0,0x87589},{0x10EFD,0x877FC},{0x10F00,0x878E1},{0x10F1D,0x87932},{0x10F27,0x87939},
{0x10F30,0x87A29},{0x10F46,0x87A84},{0x10F51,0x87AA2},{0x10F70,0x87C09},{0x10F82,0x87C2C},{0x10FB0,0x87E21},
{0x10FC5,0x87E5A},{0x10FE0,0x87FB1},{0x11000,0x88014},{0x11003,0x881B9},{0x11038,0x88234},{0x11052,0x8837A},
{0x11070,0x88384},{0x11071,0x88391},{0x11073,0x883A4},{0x11075,0x883A9},{0x1107F,0x88414},{0x11083,0x88579},
{0x110B0,0x885D4},{0x110C2,0x88614},{0x110D0,0x88741},{0x110F0,0x887CA},{0x11100,0x88814},{0x11103,0x88931},
{0x11127,0x889A4},{0x11136,0x889FA},{0x11144,0x88A21},{0x11145,0x88A34},{0x11147,0x88A39},{0x11150,0x88B91},
{0x11173,0x88B9C},{0x11176,0x88BB1},{0x11180,0x88C14},{0x11183,0x88D91},{0x111B3,0x88E04},{0x111C1,0x88E21},
{0x111C9,0x88E64},{0x111CE,0x88E7C},{0x111D0,0x88ECA},{0x111DA,0x88ED1},{0x111DC,0x88EE1},{0x111E1,0x88FA2},
{0x11200,0x89089},{0x11213,0x89159},{0x1122C,0x891BC},{0x1123E,0x891F4},{0x1123F,0x89201},{0x11241,0x8920C},
{0x11280,0x89431},{0x11288,0x89441},{0x1128A,0x89469},{0x1128F,0x894E9},{0x1129F,0x89541},{0x112B0,0x896F1},
{0x112DF,0x89754},{0x112F0,0x897CA},{0x11300,0x8981C},{0x11305,0x89861},{0x1130F,0x89881},{0x11313,0x89941},
{0x1132A,0x89981},{0x11332,0x89999},{0x11335,0x899C9},{0x1133B,0x899E4},{0x1133D,0x899E9},{0x1133E,0x89A24},
{0x11347,0x89A44},{0x1134B,0x89A6C},{0x11350,0x89A81},{0x11357,0x89ABC},{0x1135D,0x89B09},{0x11362,0x89B1C},
{0x11366,0x89B64},{0x11370,0x89BA4},{0x11400,0x8A1A1},{0x11435,0x8A234},{0x11447,0x8A251},{0x11450,0x8A2CA},
{0x1145E,0x8A2F4},{0x1145F,0x8A309},{0x11480,0x8A579},{0x114B0,0x8A61C},{0x114C4,0x8A629},{0x114C7,0x8A639},
{0x114D0,0x8A6CA},{0x11580,0x8AD71},{0x115AF,0x8ADAC},{0x115B8,0x8AE04},{0x115D8,0x8AED9},{0x115DC,0x8AEEC},
{0x11600,0x8B179},{0x11630,0x8B204},{0x11644,0x8B221},{0x11650,0x8B2CA},{0x11680,0x8B551},{0x116AB,0x8B5BC},
{0x116B8,0x8B5C1},{0x116C0,0x8B64A},{0x11700,0x8B8D1},{0x1171D,0x8B95C},{0x11730,0x8B9DA},{0x11740,0x8BA31},
{0x11800,0x8C159},{0x1182C,0x8C1D4},{0x118A0,0x8C6F9},{0x118E0,0x8C792},{0x118FF,0x8C831},{0x11909,0x8C849},
{0x1190C,0x8C899},{0x11915,0x8C8B1},{0x11918,0x8C979},{0x11930,0x8C9AC},{0x11937,0x8C9C4},{0x1193B,0x8C9F4},
{0x1193F,0x8C9F9},{0x11940,0x8CA04},{0x11941,0x8CA09},{0x11942,0x8CA1C},{0x11950,0x8CACA},{0x119A0,0x8CD39},
{0x119AA,0x8CE81},{0x119D1,0x8CEBC},{0x119DA,0x8CF04},{0x119E1,0x8CF09},{0x119E3,0x8CF19},{0x119E4,0x8CF24},
{0x11A00,0x8D001},{0x11A01,0x8D054},{0x11A0B,0x8D191},{0x11A33,0x8D1CC},{0x11A3A,0x8D1D1},{0x11A3B,0x8D1F4},
{0x11A47,0x8D23C},{0x11A50,0x8D281},{0x11A51,0x8D2DC},{0x11A5C,0x8D449},{0x11A8A,0x8D4CC},{0x11A9D,0x8D4E9},
{0x11AB0,0x8D7C1},{0x11C00,0x8E041},{0x11C0A,0x8E171},{0x11C2F,0x8E1B4},{0x11C38,0x8E1FC},{0x11C40,0x8E201},
{0x11C50,0x8E362},{0x11C72,0x8E479},{0x11C92,0x8E53C},{0x11CA9,0x8E5B4},{0x11D00,0x8E831},{0x11D08,0x8E849},
{0x11D0B,0x8E981},{0x11D31,0x8E9B4},{0x11D3A,0x8E9D4},{0x11D3C,0x8E9EC},{0x11D3F,0x8EA2C},{0x11D46,0x8EA31},
{0x11D47,0x8EA3C},{0x11D50,0x8EACA},{0x11D60,0x8EB29},{0x11D67,0x8EB41},{0x11D6A,0x8EC49},{0x11D8A,0x8EC74},
{0x11D90,0x8EC8C},{0x11D93,0x8ECBC},{0x11D98,0x8ECC1},{0x11DA0,0x8ED4A},{0x11EE0,0x8F791},{0x11EF3,0x8F7B4},
{0x11F00,0x8F80C},{0x11F02,0x8F811},{0x11F03,0x8F81C},{0x11F04,0x8F881},{0x11F12,0x8F999},{0x11F34,0x8F9D4},
{0x11F3E,0x8FA14},{0x11F50,0x8FACA},{0x11FB0,0x8FD81},{0x11FC0,0x8FEA2},{0x12000,0x91CC9},{0x12400,0x92372},
{0x12480,0x92A19},{0x12F90,0x97F81},{0x13000,0x9A179},{0x13440,0x9A204},{0x13441,0x9A231},{0x13447,0x9A2AC},
{0x14400,0xA3231},{0x16800,0xB51C1},{0x16A40,0xB52F1},{0x16A60,0xB534A},{0x16A70,0xB55F1},{0x16AC0,0xB564A},
{0x16AD0,0xB5769},{0x16AF0,0xB57A4},{0x16B00,0xB5979},{0x16B30,0xB59B4},{0x16B40,0xB5A19},{0x16B50,0xB5ACA},
{0x16B5B,0xB5B0A},{0x16B63,0xB5BB9},{0x16B7D,0xB5C79},{0x16E40,0xB73F9},{0x16E80,0xB74B2},{0x16F00,0xB7A51},
{0x16F4F,0xB7A7C},{0x16F50,0xB7A81},{0x16F51,0xB7C3C},{0x16F8F,0xB7C94},{0x16F93,0xB7CF9},{0x16FE0,0xB7F09},
{0x16FE3,0xB7F19},{0x16FE4,0xB7F24},{0x16FF0,0xB7F8C},{0x17000,0xC3FB9},{0x18800,0xC66A9},{0x18D00,0xC6841},
{0x1AFF0,0xD7F99},{0x1AFF5,0xD7FD9},{0x1AFFD,0xD7FF1},{0x1B000,0xD8911},{0x1B132,0xD8991},{0x1B150,0xD8A91},
{0x1B155,0xD8AA9},{0x1B164,0xD8B39},{0x1B170,0xD97D9},{0x1BC00,0xDE351},{0x1BC70,0xDE3E1},{0x1BC80,0xDE441},
{0x1BC90,0xDE4C9},{0x1BC9D,0xDE4F4},{0x1CF00,0xE796C},{0x1CF30,0xE7A34},{0x1D165,0xE8B4C},{0x1D16D,0xE8B94},
{0x1D17B,0xE8C14},{0x1D185,0xE8C5C},{0x1D1AA,0xE8D6C},{0x1D242,0xE9224},{0x1D2C0,0xE969A},{0x1D2E0,0xE979A},
{0x1D360,0xE9BC2},{0x1D400,0xEA2A1},{0x1D456,0xEA4E1},{0x1D49E,0xEA4F9},{0x1D4A2,0xEA511},{0x1D4A5,0xEA531},
{0x1D4A9,0xEA561},{0x1D4AE,0xEA5C9},{0x1D4BB,0xEA5D9},{0x1D4BD,0xEA619},{0x1D4C5,0xEA829},{0x1D507,0xEA851},
{0x1D50D,0xEA8A1},{0x1D516,0xEA8E1},{0x1D51E,0xEA9C9},{0x1D53B,0xEA9F1},{0x1D540,0xEAA21},{0x1D546,0xEAA31},
{0x1D54A,0xEAA81},{0x1D552,0xEB529},{0x1D6A8,0xEB601},{0x1D6C2,0xEB6D1},{0x1D6DC,0xEB7D1},{0x1D6FC,0xEB8A1},
{0x1D716,0xEB9A1},{0x1D736,0xEBA71},{0x1D750,0xEBB71},{0x1D770,0xEBC41},{0x1D78A,0xEBD41},{0x1D7AA,0xEBE11},
{0x1D7C4,0xEBE59},{0x1D7CE,0xEBFFA},{0x1DA00,0xED1B4},{0x1DA3B,0xED364},{0x1DA75,0xED3AC},{0x1DA84,0xED424},
{0x1DA9B,0xED4FC},{0x1DAA1,0xED57C},{0x1DF00,0xEF8F1},{0x1DF25,0xEF951},{0x1E000,0xF0034},{0x1E008,0xF00C4},
{0x1E01B,0xF010C},{0x1E023,0xF0124},{0x1E026,0xF0154},{0x1E030,0xF0369},{0x1E08F,0xF047C},{0x1E100,0xF0961},
{0x1E130,0xF09B4},{0x1E137,0xF09E9},{0x1E140,0xF0A4A},{0x1E14E,0xF0A71},{0x1E290,0xF1569},{0x1E2AE,0xF1574},
{0x1E2C0,0xF1759},{0x1E2EC,0xF177C},{0x1E2F0,0xF17CA},{0x1E4D0,0xF2759},{0x1E4EC,0xF277C},{0x1E4F0,0xF27CA},
{0x1E7E0,0xF3F31},{0x1E7E8,0xF3F59},{0x1E7ED,0xF3F71},{0x1E7F0,0xF3FF1},{0x1E800,0xF4621},{0x1E8C7,0xF467A},
{0x1E8D0,0xF46B4},{0x1E900,0xF4A19},{0x1E944,0xF4A54},{0x1E94B,0xF4A59},{0x1E950,0xF4ACA},{0x1EC71,0xF655A},
{0x1ECAD,0xF657A},{0x1ECB1,0xF65A2},{0x1ED01,0xF696A},{0x1ED2F,0xF69EA},{0x1EE00,0xF7019},{0x1EE05,0xF70F9},
{0x1EE21,0xF7111},{0x1EE24,0xF7121},{0x1EE27,0xF7139},{0x1EE29,0xF7191},{0x1EE34,0xF71B9},{0x1EE39,0xF71C9},
{0x1EE3B,0xF71D9},{0x1EE42,0xF7211},{0x1EE47,0xF7239},{0x1EE49,0xF7249},{0x1EE4B,0xF7259},{0x1EE4D,0xF7279},
{0x1EE51,0xF7291},{0x1EE54,0xF72A1},{0x1EE57,0xF72B9},{0x1EE59,0xF72C9},{0x1EE5B,0xF72D9},{0x1EE5D,0xF72E9},
{0x1EE5F,0xF72F9},{0x1EE61,0xF7311},{0x1EE64,0xF7321},{0x1EE67,0xF7351},{0x1EE6C,0xF7391},{0x1EE74,0xF73B9},
{0x1EE79,0xF73E1},{0x1EE7E,0xF73F1},{0x1EE80,0xF7449},{0x1EE8B,0xF74D9},{0x1EEA1,0xF7519},{0x1EEA5,0xF7549},
{0x1EEAB,0xF75D9},{0x1F100,0xF8862},{0x1FBF0,0xFDFCA},{0x20000,0x1536F9},{0x2A700,0x15B9C9},{0x2B740,0x15C0E9},
{0x2B820,0x167509},{0x2CEB0,0x175F01},{0x2F800,0x17D0E9},{0x30000,0x189A51},{0x31350,0x191D79},{0xE0100,0x700F7C},
};
static const uint32_t gk__uni_ccc[388][2] = {
{0x300,0x314E6},{0x315,0x315E8},{0x316,0x319DC},{0x31A,0x31AE8},{0x31B,0x31BD8},{0x31C,0x320DC},
{0x321,0x322CA},{0x323,0x326DC},{0x327,0x328CA},{0x329,0x333DC},{0x334,0x33801},{0x339,0x33CDC},
{0x33D,0x344E6},{0x345,0x345F0},{0x346,0x346E6},{0x347,0x349DC},{0x34A,0x34CE6},{0x34D,0x34EDC},
{0x350,0x352E6},{0x353,0x356DC},{0x357,0x357E6},{0x358,0x358E8},{0x359,0x35ADC},{0x35B,0x35BE6},
{0x35C,0x35CE9},{0x35D,0x35EEA},{0x35F,0x35FE9},{0x360,0x361EA},{0x362,0x362E9},{0x363,0x36FE6},
{0x483,0x487E6},{0x591,0x591DC},{0x592,0x595E6},{0x596,0x596DC},{0x597,0x599E6},{0x59A,0x59ADE},
{0x59B,0x59BDC},{0x59C,0x5A1E6},{0x5A2,0x5A7DC},{0x5A8,0x5A9E6},{0x5AA,0x5AADC},{0x5AB,0x5ACE6},
{0x5AD,0x5ADDE},{0x5AE,0x5AEE4},{0x5AF,0x5AFE6},{0x5B0,0x5B00A},{0x5B1,0x5B10B},{0x5B2,0x5B20C},
{0x5B3,0x5B30D},{0x5B4,0x5B40E},{0x5B5,0x5B50F},{0x5B6,0x5B610},{0x5B7,0x5B711},{0x5B8,0x5B812},
{0x5B9,0x5BA13},{0x5BB,0x5BB14},{0x5BC,0x5BC15},{0x5BD,0x5BD16},{0x5BF,0x5BF17},{0x5C1,0x5C118},
{0x5C2,0x5C219},{0x5C4,0x5C4E6},{0x5C5,0x5C5DC},{0x5C7,0x5C712},{0x610,0x617E6},{0x618,0x6181E},
{0x619,0x6191F},{0x61A,0x61A20},{0x64B,0x64B1B},{0x64C,0x64C1C},{0x64D,0x64D1D},{0x64E,0x64E1E},
{0x64F,0x64F1F},{0x650,0x65020},{0x651,0x65121},{0x652,0x65222},{0x653,0x654E6},{0x655,0x656DC},
{0x657,0x65BE6},{0x65C,0x65CDC},{0x65D,0x65EE6},{0x65F,0x65FDC},{0x670,0x67023},{0x6D6,0x6DCE6},
{0x6DF,0x6E2E6},{0x6E3,0x6E3DC},{0x6E4,0x6E4E6},{0x6E7,0x6E8E6},{0x6EA,0x6EADC},{0x6EB,0x6ECE6},
{0x6ED,0x6EDDC},{0x711,0x71124},{0x730,0x730E6},{0x731,0x731DC},{0x732,0x733E6},{0x734,0x734DC},
{0x735,0x736E6},{0x737,0x739DC},{0x73A,0x73AE6},{0x73B,0x73CDC},{0x73D,0x73DE6},{0x73E,0x73EDC},
{0x73F,0x741E6},{0x742,0x742DC},{0x743,0x743E6},{0x744,0x744DC},{0x745,0x745E6},{0x746,0x746DC},
{0x747,0x747E6},{0x748,0x748DC},{0x749,0x74AE6},{0x7EB,0x7F1E6},{0x7F2,0x7F2DC},{0x7F3,0x7F3E6},
{0x7FD,0x7FDDC},{0x816,0x819E6},{0x81B,0x823E6},{0x825,0x827E6},{0x829,0x82DE6},{0x859,0x85BDC},
{0x898,0x898E6},{0x899,0x89BDC},{0x89C,0x89FE6},{0x8CA,0x8CEE6},{0x8CF,0x8D3DC},{0x8D4,0x8E1E6},
{0x8E3,0x8E3DC},{0x8E4,0x8E5E6},{0x8E6,0x8E6DC},{0x8E7,0x8E8E6},{0x8E9,0x8E9DC},{0x8EA,0x8ECE6},
{0x8ED,0x8EFDC},{0x8F0,0x8F01B},{0x8F1,0x8F11C},{0x8F2,0x8F21D},{0x8F3,0x8F5E6},{0x8F6,0x8F6DC},
{0x8F7,0x8F8E6},{0x8F9,0x8FADC},{0x8FB,0x8FFE6},{0x93C,0x93C07},{0x94D,0x94D09},{0x951,0x951E6},
{0x952,0x952DC},{0x953,0x954E6},{0x9BC,0x9BC07},{0x9CD,0x9CD09},{0x9FE,0x9FEE6},{0xA3C,0xA3C07},
{0xA4D,0xA4D09},{0xABC,0xABC07},{0xACD,0xACD09},{0xB3C,0xB3C07},{0xB4D,0xB4D09},{0xBCD,0xBCD09},
{0xC3C,0xC3C07},{0xC4D,0xC4D09},{0xC55,0xC5554},{0xC56,0xC565B},{0xCBC,0xCBC07},{0xCCD,0xCCD09},
{0xD3B,0xD3C09},{0xD4D,0xD4D09},{0xDCA,0xDCA09},{0xE38,0xE3967},{0xE3A,0xE3A09},{0xE48,0xE4B6B},
{0xEB8,0xEB976},{0xEBA,0xEBA09},{0xEC8,0xECB7A},{0xF18,0xF19DC},{0xF35,0xF35DC},{0xF37,0xF37DC},
{0xF39,0xF39D8},{0xF71,0xF7181},{0xF72,0xF7282},{0xF74,0xF7484},{0xF7A,0xF7D82},{0xF80,0xF8082},
{0xF82,0xF83E6},{0xF84,0xF8409},{0xF86,0xF87E6},{0xFC6,0xFC6DC},{0x1037,0x103707},{0x1039,0x103A09},
{0x108D,0x108DDC},{0x135D,0x135FE6},{0x1714,0x171509},{0x1734,0x173409},{0x17D2,0x17D209},{0x17DD,0x17DDE6},
{0x18A9,0x18A9E4},{0x1939,0x1939DE},{0x193A,0x193AE6},{0x193B,0x193BDC},{0x1A17,0x1A17E6},{0x1A18,0x1A18DC},
{0x1A60,0x1A6009},{0x1A75,0x1A7CE6},{0x1A7F,0x1A7FDC},{0x1AB0,0x1AB4E6},{0x1AB5,0x1ABADC},{0x1ABB,0x1ABCE6},
{0x1ABD,0x1ABDDC},{0x1ABF,0x1AC0DC},{0x1AC1,0x1AC2E6},{0x1AC3,0x1AC4DC},{0x1AC5,0x1AC9E6},{0x1ACA,0x1ACADC},
{0x1ACB,0x1ACEE6},{0x1B34,0x1B3407},{0x1B44,0x1B4409},{0x1B6B,0x1B6BE6},{0x1B6C,0x1B6CDC},{0x1B6D,0x1B73E6},
{0x1BAA,0x1BAB09},{0x1BE6,0x1BE607},{0x1BF2,0x1BF309},{0x1C37,0x1C3707},{0x1CD0,0x1CD2E6},{0x1CD4,0x1CD401},
{0x1CD5,0x1CD9DC},{0x1CDA,0x1CDBE6},{0x1CDC,0x1CDFDC},{0x1CE0,0x1CE0E6},{0x1CE2,0x1CE801},{0x1CED,0x1CEDDC},
{0x1CF4,0x1CF4E6},{0x1CF8,0x1CF9E6},{0x1DC0,0x1DC1E6},{0x1DC2,0x1DC2DC},{0x1DC3,0x1DC9E6},{0x1DCA,0x1DCADC},
{0x1DCB,0x1DCCE6},{0x1DCD,0x1DCDEA},{0x1DCE,0x1DCED6},{0x1DCF,0x1DCFDC},{0x1DD0,0x1DD0CA},{0x1DD1,0x1DF5E6},
{0x1DF6,0x1DF6E8},{0x1DF7,0x1DF8E4},{0x1DF9,0x1DF9DC},{0x1DFA,0x1DFADA},{0x1DFB,0x1DFBE6},{0x1DFC,0x1DFCE9},
{0x1DFD,0x1DFDDC},{0x1DFE,0x1DFEE6},{0x1DFF,0x1DFFDC},{0x20D0,0x20D1E6},{0x20D2,0x20D301},{0x20D4,0x20D7E6},
{0x20D8,0x20DA01},{0x20DB,0x20DCE6},{0x20E1,0x20E1E6},{0x20E5,0x20E601},{0x20E7,0x20E7E6},{0x20E8,0x20E8DC},
{0x20E9,0x20E9E6},{0x20EA,0x20EB01},{0x20EC,0x20EFDC},{0x20F0,0x20F0E6},{0x2CEF,0x2CF1E6},{0x2D7F,0x2D7F09},
{0x2DE0,0x2DFFE6},{0x302A,0x302ADA},{0x302B,0x302BE4},{0x302C,0x302CE8},{0x302D,0x302DDE},{0x302E,0x302FE0},
{0x3099,0x309A08},{0xA66F,0xA66FE6},{0xA674,0xA67DE6},{0xA69E,0xA69FE6},{0xA6F0,0xA6F1E6},{0xA806,0xA80609},
{0xA82C,0xA82C09},{0xA8C4,0xA8C409},{0xA8E0,0xA8F1E6},{0xA92B,0xA92DDC},{0xA953,0xA95309},{0xA9B3,0xA9B307},
{0xA9C0,0xA9C009},{0xAAB0,0xAAB0E6},{0xAAB2,0xAAB3E6},{0xAAB4,0xAAB4DC},{0xAAB7,0xAAB8E6},{0xAABE,0xAABFE6},
{0xAAC1,0xAAC1E6},{0xAAF6,0xAAF609},{0xABED,0xABED09},{0xFB1E,0xFB1E1A},{0xFE20,0xFE26E6},{0xFE27,0xFE2DDC},
{0xFE2E,0xFE2FE6},{0x101FD,0x101FDDC},{0x102E0,0x102E0DC},{0x10376,0x1037AE6},{0x10A0D,0x10A0DDC},{0x10A0F,0x10A0FE6},
{0x10A38,0x10A38E6},{0x10A39,0x10A3901},{0x10A3A,0x10A3ADC},{0x10A3F,0x10A3F09},{0x10AE5,0x10AE5E6},{0x10AE6,0x10AE6DC},
{0x10D24,0x10D27E6},{0x10EAB,0x10EACE6},{0x10EFD,0x10EFFDC},{0x10F46,0x10F47DC},{0x10F48,0x10F4AE6},{0x10F4B,0x10F4BDC},
{0x10F4C,0x10F4CE6},{0x10F4D,0x10F50DC},{0x10F82,0x10F82E6},{0x10F83,0x10F83DC},{0x10F84,0x10F84E6},{0x10F85,0x10F85DC},
{0x11046,0x1104609},{0x11070,0x1107009},{0x1107F,0x1107F09},{0x110B9,0x110B909},{0x110BA,0x110BA07},{0x11100,0x11102E6},
{0x11133,0x1113409},{0x11173,0x1117307},{0x111C0,0x111C009},{0x111CA,0x111CA07},{0x11235,0x1123509},{0x11236,0x1123607},
{0x112E9,0x112E907},{0x112EA,0x112EA09},{0x1133B,0x1133C07},{0x1134D,0x1134D09},{0x11366,0x1136CE6},{0x11370,0x11374E6},
{0x11442,0x1144209},{0x11446,0x1144607},{0x1145E,0x1145EE6},{0x114C2,0x114C209},{0x114C3,0x114C307},{0x115BF,0x115BF09},
{0x115C0,0x115C007},{0x1163F,0x1163F09},{0x116B6,0x116B609},{0x116B7,0x116B707},{0x1172B,0x1172B09},{0x11839,0x1183909},
{0x1183A,0x1183A07},{0x1193D,0x1193E09},{0x11943,0x1194307},{0x119E0,0x119E009},{0x11A34,0x11A3409},{0x11A47,0x11A4709},
{0x11A99,0x11A9909},{0x11C3F,0x11C3F09},{0x11D42,0x11D4207},{0x11D44,0x11D4509},{0x11D97,0x11D9709},{0x11F41,0x11F4209},
{0x16AF0,0x16AF401},{0x16B30,0x16B36E6},{0x16FF0,0x16FF106},{0x1BC9E,0x1BC9E01},{0x1D165,0x1D166D8},{0x1D167,0x1D16901},
{0x1D16D,0x1D16DE2},{0x1D16E,0x1D172D8},{0x1D17B,0x1D182DC},{0x1D185,0x1D189E6},{0x1D18A,0x1D18BDC},{0x1D1AA,0x1D1ADE6},
{0x1D242,0x1D244E6},{0x1E000,0x1E006E6},{0x1E008,0x1E018E6},{0x1E01B,0x1E021E6},{0x1E023,0x1E024E6},{0x1E026,0x1E02AE6},
{0x1E08F,0x1E08FE6},{0x1E130,0x1E136E6},{0x1E2AE,0x1E2AEE6},{0x1E2EC,0x1E2EFE6},{0x1E4EC,0x1E4EDE8},{0x1E4EE,0x1E4EEDC},
{0x1E4EF,0x1E4EFE6},{0x1E8D0,0x1E8D6DC},{0x1E944,0x1E949E6},{0x1E94A,0x1E94A07},
};
static const uint32_t gk__uni_dec[2061][3] = {
{0xC0,0x41,0x300},{0xC1,0x41,0x301},{0xC2,0x41,0x302},{0xC3,0x41,0x303},{0xC4,0x41,0x308},
{0xC5,0x41,0x30A},{0xC7,0x43,0x327},{0xC8,0x45,0x300},{0xC9,0x45,0x301},{0xCA,0x45,0x302},
{0xCB,0x45,0x308},{0xCC,0x49,0x300},{0xCD,0x49,0x301},{0xCE,0x49,0x302},{0xCF,0x49,0x308},
{0xD1,0x4E,0x303},{0xD2,0x4F,0x300},{0xD3,0x4F,0x301},{0xD4,0x4F,0x302},{0xD5,0x4F,0x303},
{0xD6,0x4F,0x308},{0xD9,0x55,0x300},{0xDA,0x55,0x301},{0xDB,0x55,0x302},{0xDC,0x55,0x308},
{0xDD,0x59,0x301},{0xE0,0x61,0x300},{0xE1,0x61,0x301},{0xE2,0x61,0x302},{0xE3,0x61,0x303},
{0xE4,0x61,0x308},{0xE5,0x61,0x30A},{0xE7,0x63,0x327},{0xE8,0x65,0x300},{0xE9,0x65,0x301},
{0xEA,0x65,0x302},{0xEB,0x65,0x308},{0xEC,0x69,0x300},{0xED,0x69,0x301},{0xEE,0x69,0x302},
{0xEF,0x69,0x308},{0xF1,0x6E,0x303},{0xF2,0x6F,0x300},{0xF3,0x6F,0x301},{0xF4,0x6F,0x302},
{0xF5,0x6F,0x303},{0xF6,0x6F,0x308},{0xF9,0x75,0x300},{0xFA,0x75,0x301},{0xFB,0x75,0x302},
{0xFC,0x75,0x308},{0xFD,0x79,0x301},{0xFF,0x79,0x308},{0x100,0x41,0x304},{0x101,0x61,0x304},
{0x102,0x41,0x306},{0x103,0x61,0x306},{0x104,0x41,0x328},{0x105,0x61,0x328},{0x106,0x43,0x301},
{0x107,0x63,0x301},{0x108,0x43,0x302},{0x109,0x63,0x302},{0x10A,0x43,0x307},{0x10B,0x63,0x307},
{0x10C,0x43,0x30C},{0x10D,0x63,0x30C},{0x10E,0x44,0x30C},{0x10F,0x64,0x30C},{0x112,0x45,0x304},
{0x113,0x65,0x304},{0x114,0x45,0x306},{0x115,0x65,0x306},{0x116,0x45,0x307},{0x117,0x65,0x307},
{0x118,0x45,0x328},{0x119,0x65,0x328},{0x11A,0x45,0x30C},{0x11B,0x65,0x30C},{0x11C,0x47,0x302},
{0x11D,0x67,0x302},{0x11E,0x47,0x306},{0x11F,0x67,0x306},{0x120,0x47,0x307},{0x121,0x67,0x307},
{0x122,0x47,0x327},{0x123,0x67,0x327},{0x124,0x48,0x302},{0x125,0x68,0x302},{0x128,0x49,0x303},
{0x129,0x69,0x303},{0x12A,0x49,0x304},{0x12B,0x69,0x304},{0x12C,0x49,0x306},{0x12D,0x69,0x306},
{0x12E,0x49,0x328},{0x12F,0x69,0x328},{0x130,0x49,0x307},{0x134,0x4A,0x302},{0x135,0x6A,0x302},
{0x136,0x4B,0x327},{0x137,0x6B,0x327},{0x139,0x4C,0x301},{0x13A,0x6C,0x301},{0x13B,0x4C,0x327},
{0x13C,0x6C,0x327},{0x13D,0x4C,0x30C},{0x13E,0x6C,0x30C},{0x143,0x4E,0x301},{0x144,0x6E,0x301},
{0x145,0x4E,0x327},{0x146,0x6E,0x327},{0x147,0x4E,0x30C},{0x148,0x6E,0x30C},{0x14C,0x4F,0x304},
{0x14D,0x6F,0x304},{0x14E,0x4F,0x306},{0x14F,0x6F,0x306},{0x150,0x4F,0x30B},{0x151,0x6F,0x30B},
{0x154,0x52,0x301},{0x155,0x72,0x301},{0x156,0x52,0x327},{0x157,0x72,0x327},{0x158,0x52,0x30C},
{0x159,0x72,0x30C},{0x15A,0x53,0x301},{0x15B,0x73,0x301},{0x15C,0x53,0x302},{0x15D,0x73,0x302},
{0x15E,0x53,0x327},{0x15F,0x73,0x327},{0x160,0x53,0x30C},{0x161,0x73,0x30C},{0x162,0x54,0x327},
{0x163,0x74,0x327},{0x164,0x54,0x30C},{0x165,0x74,0x30C},{0x168,0x55,0x303},{0x169,0x75,0x303},
{0x16A,0x55,0x304},{0x16B,0x75,0x304},{0x16C,0x55,0x306},{0x16D,0x75,0x306},{0x16E,0x55,0x30A},
{0x16F,0x75,0x30A},{0x170,0x55,0x30B},{0x171,0x75,0x30B},{0x172,0x55,0x328},{0x173,0x75,0x328},
{0x174,0x57,0x302},{0x175,0x77,0x302},{0x176,0x59,0x302},{0x177,0x79,0x302},{0x178,0x59,0x308},
{0x179,0x5A,0x301},{0x17A,0x7A,0x301},{0x17B,0x5A,0x307},{0x17C,0x7A,0x307},{0x17D,0x5A,0x30C},
{0x17E,0x7A,0x30C},{0x1A0,0x4F,0x31B},{0x1A1,0x6F,0x31B},{0x1AF,0x55,0x31B},{0x1B0,0x75,0x31B},
{0x1CD,0x41,0x30C},{0x1CE,0x61,0x30C},{0x1CF,0x49,0x30C},{0x1D0,0x69,0x30C},{0x1D1,0x4F,0x30C},
{0x1D2,0x6F,0x30C},{0x1D3,0x55,0x30C},{0x1D4,0x75,0x30C},{0x1D5,0xDC,0x304},{0x1D6,0xFC,0x304},
{0x1D7,0xDC,0x301},{0x1D8,0xFC,0x301},{0x1D9,0xDC,0x30C},{0x1DA,0xFC,0x30C},{0x1DB,0xDC,0x300},
{0x1DC,0xFC,0x300},{0x1DE,0xC4,0x304},{0x1DF,0xE4,0x304},{0x1E0,0x226,0x304},{0x1E1,0x227,0x304},
{0x1E2,0xC6,0x304},{0x1E3,0xE6,0x304},{0x1E6,0x47,0x30C},{0x1E7,0x67,0x30C},{0x1E8,0x4B,0x30C},
{0x1E9,0x6B,0x30C},{0x1EA,0x4F,0x328},{0x1EB,0x6F,0x328},{0x1EC,0x1EA,0x304},{0x1ED,0x1EB,0x304},
{0x1EE,0x1B7,0x30C},{0x1EF,0x292,0x30C},{0x1F0,0x6A,0x30C},{0x1F4,0x47,0x301},{0x1F5,0x67,0x301},
{0x1F8,0x4E,0x300},{0x1F9,0x6E,0x300},{0x1FA,0xC5,0x301},{0x1FB,0xE5,0x301},{0x1FC,0xC6,0x301},
{0x1FD,0xE6,0x301},{0x1FE,0xD8,0x301},{0x1FF,0xF8,0x301},{0x200,0x41,0x30F},{0x201,0x61,0x30F},
{0x202,0x41,0x311},{0x203,0x61,0x311},{0x204,0x45,0x30F},{0x205,0x65,0x30F},{0x206,0x45,0x311},
{0x207,0x65,0x311},{0x208,0x49,0x30F},{0x209,0x69,0x30F},{0x20A,0x49,0x311},{0x20B,0x69,0x311},
{0x20C,0x4F,0x30F},{0x20D,0x6F,0x30F},{0x20E,0x4F,0x311},{0x20F,0x6F,0x311},{0x210,0x52,0x30F},
{0x211,0x72,0x30F},{0x212,0x52,0x311},{0x213,0x72,0x311},{0x214,0x55,0x30F},{0x215,0x75,0x30F},
{0x216,0x55,0x311},{0x217,0x75,0x311},{0x218,0x53,0x326},{0x219,0x73,0x326},{0x21A,0x54,0x326},
{0x21B,0x74,0x326},{0x21E,0x48,0x30C},{0x21F,0x68,0x30C},{0x226,0x41,0x307},{0x227,0x61,0x307},
{0x228,0x45,0x327},{0x229,0x65,0x327},{0x22A,0xD6,0x304},{0x22B,0xF6,0x304},{0x22C,0xD5,0x304},
{0x22D,0xF5,0x304},{0x22E,0x4F,0x307},{0x22F,0x6F,0x307},{0x230,0x22E,0x304},{0x231,0x22F,0x304},
{0x232,0x59,0x304},{0x233,0x79,0x304},{0x340,0x300,0x0},{0x341,0x301,0x0},{0x343,0x313,0x0},
{0x344,0x308,0x301},{0x374,0x2B9,0x0},{0x37E,0x3B,0x0},{0x385,0xA8,0x301},{0x386,0x391,0x301},
{0x387,0xB7,0x0},{0x388,0x395,0x301},{0x389,0x397,0x301},{0x38A,0x399,0x301},{0x38C,0x39F,0x301},
{0x38E,0x3A5,0x301},{0x38F,0x3A9,0x301},{0x390,0x3CA,0x301},{0x3AA,0x399,0x308},{0x3AB,0x3A5,0x308},
{0x3AC,0x3B1,0x301},{0x3AD,0x3B5,0x301},{0x3AE,0x3B7,0x301},{0x3AF,0x3B9,0x301},{0x3B0,0x3CB,0x301},
{0x3CA,0x3B9,0x308},{0x3CB,0x3C5,0x308},{0x3CC,0x3BF,0x301},{0x3CD,0x3C5,0x301},{0x3CE,0x3C9,0x301},
{0x3D3,0x3D2,0x301},{0x3D4,0x3D2,0x308},{0x400,0x415,0x300},{0x401,0x415,0x308},{0x403,0x413,0x301},
{0x407,0x406,0x308},{0x40C,0x41A,0x301},{0x40D,0x418,0x300},{0x40E,0x423,0x306},{0x419,0x418,0x306},
{0x439,0x438,0x306},{0x450,0x435,0x300},{0x451,0x435,0x308},{0x453,0x433,0x301},{0x457,0x456,0x308},
{0x45C,0x43A,0x301},{0x45D,0x438,0x300},{0x45E,0x443,0x306},{0x476,0x474,0x30F},{0x477,0x475,0x30F},
{0x4C1,0x416,0x306},{0x4C2,0x436,0x306},{0x4D0,0x410,0x306},{0x4D1,0x430,0x306},{0x4D2,0x410,0x308},
{0x4D3,0x430,0x308},{0x4D6,0x415,0x306},{0x4D7,0x435,0x306},{0x4DA,0x4D8,0x308},{0x4DB,0x4D9,0x308},
{0x4DC,0x416,0x308},{0x4DD,0x436,0x308},{0x4DE,0x417,0x308},{0x4DF,0x437,0x308},{0x4E2,0x418,0x304},
{0x4E3,0x438,0x304},{0x4E4,0x418,0x308},{0x4E5,0x438,0x308},{0x4E6,0x41E,0x308},{0x4E7,0x43E,0x308},
{0x4EA,0x4E8,0x308},{0x4EB,0x4E9,0x308},{0x4EC,0x42D,0x308},{0x4ED,0x44D,0x308},{0x4EE,0x423,0x304},
{0x4EF,0x443,0x304},{0x4F0,0x423,0x308},{0x4F1,0x443,0x308},{0x4F2,0x423,0x30B},{0x4F3,0x443,0x30B},
{0x4F4,0x427,0x308},{0x4F5,0x447,0x308},{0x4F8,0x42B,0x308},{0x4F9,0x44B,0x308},{0x622,0x627,0x653},
{0x623,0x627,0x654},{0x624,0x648,0x654},{0x625,0x627,0x655},{0x626,0x64A,0x654},{0x6C0,0x6D5,0x654},
{0x6C2,0x6C1,0x654},{0x6D3,0x6D2,0x654},{0x929,0x928,0x93C},{0x931,0x930,0x93C},{0x934,0x933,0x93C},
{0x958,0x915,0x93C},{0x959,0x916,0x93C},{0x95A,0x917,0x93C},{0x95B,0x91C,0x93C},{0x95C,0x921,0x93C},
{0x95D,0x922,0x93C},{0x95E,0x92B,0x93C},{0x95F,0x92F,0x93C},{0x9CB,0x9C7,0x9BE},{0x9CC,0x9C7,0x9D7},
{0x9DC,0x9A1,0x9BC},{0x9DD,0x9A2,0x9BC},{0x9DF,0x9AF,0x9BC},{0xA33,0xA32,0xA3C},{0xA36,0xA38,0xA3C},
{0xA59,0xA16,0xA3C},{0xA5A,0xA17,0xA3C},{0xA5B,0xA1C,0xA3C},{0xA5E,0xA2B,0xA3C},{0xB48,0xB47,0xB56},
{0xB4B,0xB47,0xB3E},{0xB4C,0xB47,0xB57},{0xB5C,0xB21,0xB3C},{0xB5D,0xB22,0xB3C},{0xB94,0xB92,0xBD7},
{0xBCA,0xBC6,0xBBE},{0xBCB,0xBC7,0xBBE},{0xBCC,0xBC6,0xBD7},{0xC48,0xC46,0xC56},{0xCC0,0xCBF,0xCD5},
{0xCC7,0xCC6,0xCD5},{0xCC8,0xCC6,0xCD6},{0xCCA,0xCC6,0xCC2},{0xCCB,0xCCA,0xCD5},{0xD4A,0xD46,0xD3E},
{0xD4B,0xD47,0xD3E},{0xD4C,0xD46,0xD57},{0xDDA,0xDD9,0xDCA},{0xDDC,0xDD9,0xDCF},{0xDDD,0xDDC,0xDCA},
{0xDDE,0xDD9,0xDDF},{0xF43,0xF42,0xFB7},{0xF4D,0xF4C,0xFB7},{0xF52,0xF51,0xFB7},{0xF57,0xF56,0xFB7},
{0xF5C,0xF5B,0xFB7},{0xF69,0xF40,0xFB5},{0xF73,0xF71,0xF72},{0xF75,0xF71,0xF74},{0xF76,0xFB2,0xF80},
{0xF78,0xFB3,0xF80},{0xF81,0xF71,0xF80},{0xF93,0xF92,0xFB7},{0xF9D,0xF9C,0xFB7},{0xFA2,0xFA1,0xFB7},
{0xFA7,0xFA6,0xFB7},{0xFAC,0xFAB,0xFB7},{0xFB9,0xF90,0xFB5},{0x1026,0x1025,0x102E},{0x1B06,0x1B05,0x1B35},
{0x1B08,0x1B07,0x1B35},{0x1B0A,0x1B09,0x1B35},{0x1B0C,0x1B0B,0x1B35},{0x1B0E,0x1B0D,0x1B35},{0x1B12,0x1B11,0x1B35},
{0x1B3B,0x1B3A,0x1B35},{0x1B3D,0x1B3C,0x1B35},{0x1B40,0x1B3E,0x1B35},{0x1B41,0x1B3F,0x1B35},{0x1B43,0x1B42,0x1B35},
{0x1E00,0x41,0x325},{0x1E01,0x61,0x325},{0x1E02,0x42,0x307},{0x1E03,0x62,0x307},{0x1E04,0x42,0x323},
{0x1E05,0x62,0x323},{0x1E06,0x42,0x331},{0x1E07,0x62,0x331},{0x1E08,0xC7,0x301},{0x1E09,0xE7,0x301},
{0x1E0A,0x44,0x307},{0x1E0B,0x64,0x307},{0x1E0C,0x44,0x323},{0x1E0D,0x64,0x323},{0x1E0E,0x44,0x331},
{0x1E0F,0x64,0x331},{0x1E10,0x44,0x327},{0x1E11,0x64,0x327},{0x1E12,0x44,0x32D},{0x1E13,0x64,0x32D},
{0x1E14,0x112,0x300},{0x1E15,0x113,0x300},{0x1E16,0x112,0x301},{0x1E17,0x113,0x301},{0x1E18,0x45,0x32D},
{0x1E19,0x65,0x32D},{0x1E1A,0x45,0x330},{0x1E1B,0x65,0x330},{0x1E1C,0x228,0x306},{0x1E1D,0x229,0x306},
{0x1E1E,0x46,0x307},{0x1E1F,0x66,0x307},{0x1E20,0x47,0x304},{0x1E21,0x67,0x304},{0x1E22,0x48,0x307},
{0x1E23,0x68,0x307},{0x1E24,0x48,0x323},{0x1E25,0x68,0x323},{0x1E26,0x48,0x308},{0x1E27,0x68,0x308},
{0x1E28,0x48,0x327},{0x1E29,0x68,0x327},{0x1E2A,0x48,0x32E},{0x1E2B,0x68,0x32E},{0x1E2C,0x49,0x330},
{0x1E2D,0x69,0x330},{0x1E2E,0xCF,0x301},{0x1E2F,0xEF,0x301},{0x1E30,0x4B,0x301},{0x1E31,0x6B,0x301},
{0x1E32,0x4B,0x323},{0x1E33,0x6B,0x323},{0x1E34,0x4B,0x331},{0x1E35,0x6B,0x331},{0x1E36,0x4C,0x323},
{0x1E37,0x6C,0x323},{0x1E38,0x1E36,0x304},{0x1E39,0x1E37,0x304},{0x1E3A,0x4C,0x331},{0x1E3B,0x6C,0x331},
{0x1E3C,0x4C,0x32D},{0x1E3D,0x6C,0x32D},{0x1E3E,0x4D,0x301},{0x1E3F,0x6D,0x301},{0x1E40,0x4D,0x307},
{0x1E41,0x6D,0x307},{0x1E42,0x4D,0x323},{0x1E43,0x6D,0x323},{0x1E44,0x4E,0x307},{0x1E45,0x6E,0x307},
{0x1E46,0x4E,0x323},{0x1E47,0x6E,0x323},{0x1E48,0x4E,0x331},{0x1E49,0x6E,0x331},{0x1E4A,0x4E,0x32D},
{0x1E4B,0x6E,0x32D},{0x1E4C,0xD5,0x301},{0x1E4D,0xF5,0x301},{0x1E4E,0xD5,0x308},{0x1E4F,0xF5,0x308},
{0x1E50,0x14C,0x300},{0x1E51,0x14D,0x300},{0x1E52,0x14C,0x301},{0x1E53,0x14D,0x301},{0x1E54,0x50,0x301},
{0x1E55,0x70,0x301},{0x1E56,0x50,0x307},{0x1E57,0x70,0x307},{0x1E58,0x52,0x307},{0x1E59,0x72,0x307},
{0x1E5A,0x52,0x323},{0x1E5B,0x72,0x323},{0x1E5C,0x1E5A,0x304},{0x1E5D,0x1E5B,0x304},{0x1E5E,0x52,0x331},
{0x1E5F,0x72,0x331},{0x1E60,0x53,0x307},{0x1E61,0x73,0x307},{0x1E62,0x53,0x323},{0x1E63,0x73,0x323},
{0x1E64,0x15A,0x307},{0x1E65,0x15B,0x307},{0x1E66,0x160,0x307},{0x1E67,0x161,0x307},{0x1E68,0x1E62,0x307},
{0x1E69,0x1E63,0x307},{0x1E6A,0x54,0x307},{0x1E6B,0x74,0x307},{0x1E6C,0x54,0x323},{0x1E6D,0x74,0x323},
{0x1E6E,0x54,0x331},{0x1E6F,0x74,0x331},{0x1E70,0x54,0x32D},{0x1E71,0x74,0x32D},{0x1E72,0x55,0x324},
{0x1E73,0x75,0x324},{0x1E74,0x55,0x330},{0x1E75,0x75,0x330},{0x1E76,0x55,0x32D},{0x1E77,0x75,0x32D},
{0x1E78,0x168,0x301},{0x1E79,0x169,0x301},{0x1E7A,0x16A,0x308},{0x1E7B,0x16B,0x308},{0x1E7C,0x56,0x303},
{0x1E7D,0x76,0x303},{0x1E7E,0x56,0x323},{0x1E7F,0x76,0x323},{0x1E80,0x57,0x300},{0x1E81,0x77,0x300},
{0x1E82,0x57,0x301},{0x1E83,0x77,0x301},{0x1E84,0x57,0x308},{0x1E85,0x77,0x308},{0x1E86,0x57,0x307},
{0x1E87,0x77,0x307},{0x1E88,0x57,0x323},{0x1E89,0x77,0x323},{0x1E8A,0x58,0x307},{0x1E8B,0x78,0x307},
{0x1E8C,0x58,0x308},{0x1E8D,0x78,0x308},{0x1E8E,0x59,0x307},{0x1E8F,0x79,0x307},{0x1E90,0x5A,0x302},
{0x1E91,0x7A,0x302},{0x1E92,0x5A,0x323},{0x1E93,0x7A,0x323},{0x1E94,0x5A,0x331},{0x1E95,0x7A,0x331},
{0x1E96,0x68,0x331},{0x1E97,0x74,0x308},{0x1E98,0x77,0x30A},{0x1E99,0x79,0x30A},{0x1E9B,0x17F,0x307},
{0x1EA0,0x41,0x323},{0x1EA1,0x61,0x323},{0x1EA2,0x41,0x309},{0x1EA3,0x61,0x309},{0x1EA4,0xC2,0x301},
{0x1EA5,0xE2,0x301},{0x1EA6,0xC2,0x300},{0x1EA7,0xE2,0x300},{0x1EA8,0xC2,0x309},{0x1EA9,0xE2,0x309},
{0x1EAA,0xC2,0x303},{0x1EAB,0xE2,0x303},{0x1EAC,0x1EA0,0x302},{0x1EAD,0x1EA1,0x302},{0x1EAE,0x102,0x301},
{0x1EAF,0x103,0x301},{0x1EB0,0x102,0x300},{0x1EB1,0x103,0x300},{0x1EB2,0x102,0x309},{0x1EB3,0x103,0x309},
{0x1EB4,0x102,0x303},{0x1EB5,0x103,0x303},{0x1EB6,0x1EA0,0x306},{0x1EB7,0x1EA1,0x306},{0x1EB8,0x45,0x323},
{0x1EB9,0x65,0x323},{0x1EBA,0x45,0x309},{0x1EBB,0x65,0x309},{0x1EBC,0x45,0x303},{0x1EBD,0x65,0x303},
{0x1EBE,0xCA,0x301},{0x1EBF,0xEA,0x301},{0x1EC0,0xCA,0x300},{0x1EC1,0xEA,0x300},{0x1EC2,0xCA,0x309},
{0x1EC3,0xEA,0x309},{0x1EC4,0xCA,0x303},{0x1EC5,0xEA,0x303},{0x1EC6,0x1EB8,0x302},{0x1EC7,0x1EB9,0x302},
{0x1EC8,0x49,0x309},{0x1EC9,0x69,0x309},{0x1ECA,0x49,0x323},{0x1ECB,0x69,0x323},{0x1ECC,0x4F,0x323},
{0x1ECD,0x6F,0x323},{0x1ECE,0x4F,0x309},{0x1ECF,0x6F,0x309},{0x1ED0,0xD4,0x301},{0x1ED1,0xF4,0x301},
{0x1ED2,0xD4,0x300},{0x1ED3,0xF4,0x300},{0x1ED4,0xD4,0x309},{0x1ED5,0xF4,0x309},{0x1ED6,0xD4,0x303},
{0x1ED7,0xF4,0x303},{0x1ED8,0x1ECC,0x302},{0x1ED9,0x1ECD,0x302},{0x1EDA,0x1A0,0x301},{0x1EDB,0x1A1,0x301},
{0x1EDC,0x1A0,0x300},{0x1EDD,0x1A1,0x300},{0x1EDE,0x1A0,0x309},{0x1EDF,0x1A1,0x309},{0x1EE0,0x1A0,0x303},
{0x1EE1,0x1A1,0x303},{0x1EE2,0x1A0,0x323},{0x1EE3,0x1A1,0x323},{0x1EE4,0x55,0x323},{0x1EE5,0x75,0x323},
{0x1EE6,0x55,0x309},{0x1EE7,0x75,0x309},{0x1EE8,0x1AF,0x301},{0x1EE9,0x1B0,0x301},{0x1EEA,0x1AF,0x300},
{0x1EEB,0x1B0,0x300},{0x1EEC,0x1AF,0x309},{0x1EED,0x1B0,0x309},{0x1EEE,0x1AF,0x303},{0x1EEF,0x1B0,0x303},
{0x1EF0,0x1AF,0x323},{0x1EF1,0x1B0,0x323},{0x1EF2,0x59,0x300},{0x1EF3,0x79,0x300},{0x1EF4,0x59,0x323},
{0x1EF5,0x79,0x323},{0x1EF6,0x59,0x309},{0x1EF7,0x79,0x309},{0x1EF8,0x59,0x303},{0x1EF9,0x79,0x303},
{0x1F00,0x3B1,0x313},{0x1F01,0x3B1,0x314},{0x1F02,0x1F00,0x300},{0x1F03,0x1F01,0x300},{0x1F04,0x1F00,0x301},
{0x1F05,0x1F01,0x301},{0x1F06,0x1F00,0x342},{0x1F07,0x1F01,0x342},{0x1F08,0x391,0x313},{0x1F09,0x391,0x314},
{0x1F0A,0x1F08,0x300},{0x1F0B,0x1F09,0x300},{0x1F0C,0x1F08,0x301},{0x1F0D,0x1F09,0x301},{0x1F0E,0x1F08,0x342},
{0x1F0F,0x1F09,0x342},{0x1F10,0x3B5,0x313},{0x1F11,0x3B5,0x314},{0x1F12,0x1F10,0x300},{0x1F13,0x1F11,0x300},
{0x1F14,0x1F10,0x301},{0x1F15,0x1F11,0x301},{0x1F18,0x395,0x313},{0x1F19,0x395,0x314},{0x1F1A,0x1F18,0x300},
{0x1F1B,0x1F19,0x300},{0x1F1C,0x1F18,0x301},{0x1F1D,0x1F19,0x301},{0x1F20,0x3B7,0x313},{0x1F21,0x3B7,0x314},
{0x1F22,0x1F20,0x300},{0x1F23,0x1F21,0x300},{0x1F24,0x1F20,0x301},{0x1F25,0x1F21,0x301},{0x1F26,0x1F20,0x342},
{0x1F27,0x1F21,0x342},{0x1F28,0x397,0x313},{0x1F29,0x397,0x314},{0x1F2A,0x1F28,0x300},{0x1F2B,0x1F29,0x300},
{0x1F2C,0x1F28,0x301},{0x1F2D,0x1F29,0x301},{0x1F2E,0x1F28,0x342},{0x1F2F,0x1F29,0x342},{0x1F30,0x3B9,0x313},
{0x1F31,0x3B9,0x314},{0x1F32,0x1F30,0x300},{0x1F33,0x1F31,0x300},{0x1F34,0x1F30,0x301},{0x1F35,0x1F31,0x301},
{0x1F36,0x1F30,0x342},{0x1F37,0x1F31,0x342},{0x1F38,0x399,0x313},{0x1F39,0x399,0x314},{0x1F3A,0x1F38,0x300},
{0x1F3B,0x1F39,0x300},{0x1F3C,0x1F38,0x301},{0x1F3D,0x1F39,0x301},{0x1F3E,0x1F38,0x342},{0x1F3F,0x1F39,0x342},
{0x1F40,0x3BF,0x313},{0x1F41,0x3BF,0x314},{0x1F42,0x1F40,0x300},{0x1F43,0x1F41,0x300},{0x1F44,0x1F40,0x301},
{0x1F45,0x1F41,0x301},{0x1F48,0x39F,0x313},{0x1F49,0x39F,0x314},{0x1F4A,0x1F48,0x300},{0x1F4B,0x1F49,0x300},
{0x1F4C,0x1F48,0x301},{0x1F4D,0x1F49,0x301},{0x1F50,0x3C5,0x313},{0x1F51,0x3C5,0x314},{0x1F52,0x1F50,0x300},
{0x1F53,0x1F51,0x300},{0x1F54,0x1F50,0x301},{0x1F55,0x1F51,0x301},{0x1F56,0x1F50,0x342},{0x1F57,0x1F51,0x342},
{0x1F59,0x3A5,0x314},{0x1F5B,0x1F59,0x300},{0x1F5D,0x1F59,0x301},{0x1F5F,0x1F59,0x342},{0x1F60,0x3C9,0x313},
{0x1F61,0x3C9,0x314},{0x1F62,0x1F60,0x300},{0x1F63,0x1F61,0x300},{0x1F64,0x1F60,0x301},{0x1F65,0x1F61,0x301},
{0x1F66,0x1F60,0x342},{0x1F67,0x1F61,0x342},{0x1F68,0x3A9,0x313},{0x1F69,0x3A9,0x314},{0x1F6A,0x1F68,0x300},
{0x1F6B,0x1F69,0x300},{0x1F6C,0x1F68,0x301},{0x1F6D,0x1F69,0x301},{0x1F6E,0x1F68,0x342},{0x1F6F,0x1F69,0x342},
{0x1F70,0x3B1,0x300},{0x1F71,0x3AC,0x0},{0x1F72,0x3B5,0x300},{0x1F73,0x3AD,0x0},{0x1F74,0x3B7,0x300},
{0x1F75,0x3AE,0x0},{0x1F76,0x3B9,0x300},{0x1F77,0x3AF,0x0},{0x1F78,0x3BF,0x300},{0x1F79,0x3CC,0x0},
{0x1F7A,0x3C5,0x300},{0x1F7B,0x3CD,0x0},{0x1F7C,0x3C9,0x300},{0x1F7D,0x3CE,0x0},{0x1F80,0x1F00,0x345},
{0x1F81,0x1F01,0x345},{0x1F82,0x1F02,0x345},{0x1F83,0x1F03,0x345},{0x1F84,0x1F04,0x345},{0x1F85,0x1F05,0x345},
{0x1F86,0x1F06,0x345},{0x1F87,0x1F07,0x345},{0x1F88,0x1F08,0x345},{0x1F89,0x1F09,0x345},{0x1F8A,0x1F0A,0x345},
{0x1F8B,0x1F0B,0x345},{0x1F8C,0x1F0C,0x345},{0x1F8D,0x1F0D,0x345},{0x1F8E,0x1F0E,0x345},{0x1F8F,0x1F0F,0x345},
{0x1F90,0x1F20,0x345},{0x1F91,0x1F21,0x345},{0x1F92,0x1F22,0x345},{0x1F93,0x1F23,0x345},{0x1F94,0x1F24,0x345},
{0x1F95,0x1F25,0x345},{0x1F96,0x1F26,0x345},{0x1F97,0x1F27,0x345},{0x1F98,0x1F28,0x345},{0x1F99,0x1F29,0x345},
{0x1F9A,0x1F2A,0x345},{0x1F9B,0x1F2B,0x345},{0x1F9C,0x1F2C,0x345},{0x1F9D,0x1F2D,0x345},{0x1F9E,0x1F2E,0x345},
{0x1F9F,0x1F2F,0x345},{0x1FA0,0x1F60,0x345},{0x1FA1,0x1F61,0x345},{0x1FA2,0x1F62,0x345},{0x1FA3,0x1F63,0x345},
{0x1FA4,0x1F64,0x345},{0x1FA5,0x1F65,0x345},{0x1FA6,0x1F66,0x345},{0x1FA7,0x1F67,0x345},{0x1FA8,0x1F68,0x345},
{0x1FA9,0x1F69,0x345},{0x1FAA,0x1F6A,0x345},{0x1FAB,0x1F6B,0x345},{0x1FAC,0x1F6C,0x345},{0x1FAD,0x1F6D,0x345},
{0x1FAE,0x1F6E,0x345},{0x1FAF,0x1F6F,0x345},{0x1FB0,0x3B1,0x306},{0x1FB1,0x3B1,0x304},{0x1FB2,0x1F70,0x345},
{0x1FB3,0x3B1,0x345},{0x1FB4,0x3AC,0x345},{0x1FB6,0x3B1,0x342},{0x1FB7,0x1FB6,0x345},{0x1FB8,0x391,0x306},
{0x1FB9,0x391,0x304},{0x1FBA,0x391,0x300},{0x1FBB,0x386,0x0},{0x1FBC,0x391,0x345},{0x1FBE,0x3B9,0x0},
{0x1FC1,0xA8,0x342},{0x1FC2,0x1F74,0x345},{0x1FC3,0x3B7,0x345},{0x1FC4,0x3AE,0x345},{0x1FC6,0x3B7,0x342},
{0x1FC7,0x1FC6,0x345},{0x1FC8,0x395,0x300},{0x1FC9,0x388,0x0},{0x1FCA,0x397,0x300},{0x1FCB,0x389,0x0},
{0x1FCC,0x397,0x345},{0x1FCD,0x1FBF,0x300},{0x1FCE,0x1FBF,0x301},{0x1FCF,0x1FBF,0x342},{0x1FD0,0x3B9,0x306},
{0x1FD1,0x3B9,0x304},{0x1FD2,0x3CA,0x300},{0x1FD3,0x390,0x0},{0x1FD6,0x3B9,0x342},{0x1FD7,0x3CA,0x342},
{0x1FD8,0x399,0x306},{0x1FD9,0x399,0x304},{0x1FDA,0x399,0x300},{0x1FDB,0x38A,0x0},{0x1FDD,0x1FFE,0x300},
{0x1FDE,0x1FFE,0x301},{0x1FDF,0x1FFE,0x342},{0x1FE0,0x3C5,0x306},{0x1FE1,0x3C5,0x304},{0x1FE2,0x3CB,0x300},
{0x1FE3,0x3B0,0x0},{0x1FE4,0x3C1,0x313},{0x1FE5,0x3C1,0x314},{0x1FE6,0x3C5,0x342},{0x1FE7,0x3CB,0x342},
{0x1FE8,0x3A5,0x306},{0x1FE9,0x3A5,0x304},{0x1FEA,0x3A5,0x300},{0x1FEB,0x38E,0x0},{0x1FEC,0x3A1,0x314},
{0x1FED,0xA8,0x300},{0x1FEE,0x385,0x0},{0x1FEF,0x60,0x0},{0x1FF2,0x1F7C,0x345},{0x1FF3,0x3C9,0x345},
{0x1FF4,0x3CE,0x345},{0x1FF6,0x3C9,0x342},{0x1FF7,0x1FF6,0x345},{0x1FF8,0x39F,0x300},{0x1FF9,0x38C,0x0},
{0x1FFA,0x3A9,0x300},{0x1FFB,0x38F,0x0},{0x1FFC,0x3A9,0x345},{0x1FFD,0xB4,0x0},{0x2000,0x2002,0x0},
{0x2001,0x2003,0x0},{0x2126,0x3A9,0x0},{0x212A,0x4B,0x0},{0x212B,0xC5,0x0},{0x219A,0x2190,0x338},
{0x219B,0x2192,0x338},{0x21AE,0x2194,0x338},{0x21CD,0x21D0,0x338},{0x21CE,0x21D4,0x338},{0x21CF,0x21D2,0x338},
{0x2204,0x2203,0x338},{0x2209,0x2208,0x338},{0x220C,0x220B,0x338},{0x2224,0x2223,0x338},{0x2226,0x2225,0x338},
{0x2241,0x223C,0x338},{0x2244,0x2243,0x338},{0x2247,0x2245,0x338},{0x2249,0x2248,0x338},{0x2260,0x3D,0x338},
{0x2262,0x2261,0x338},{0x226D,0x224D,0x338},{0x226E,0x3C,0x338},{0x226F,0x3E,0x338},{0x2270,0x2264,0x338},
{0x2271,0x2265,0x338},{0x2274,0x2272,0x338},{0x2275,0x2273,0x338},{0x2278,0x2276,0x338},{0x2279,0x2277,0x338},
{0x2280,0x227A,0x338},{0x2281,0x227B,0x338},{0x2284,0x2282,0x338},{0x2285,0x2283,0x338},{0x2288,0x2286,0x338},
{0x2289,0x2287,0x338},{0x22AC,0x22A2,0x338},{0x22AD,0x22A8,0x338},{0x22AE,0x22A9,0x338},{0x22AF,0x22AB,0x338},
{0x22E0,0x227C,0x338},{0x22E1,0x227D,0x338},{0x22E2,0x2291,0x338},{0x22E3,0x2292,0x338},{0x22EA,0x22B2,0x338},
{0x22EB,0x22B3,0x338},{0x22EC,0x22B4,0x338},{0x22ED,0x22B5,0x338},{0x2329,0x3008,0x0},{0x232A,0x3009,0x0},
{0x2ADC,0x2ADD,0x338},{0x304C,0x304B,0x3099},{0x304E,0x304D,0x3099},{0x3050,0x304F,0x3099},{0x3052,0x3051,0x3099},
{0x3054,0x3053,0x3099},{0x3056,0x3055,0x3099},{0x3058,0x3057,0x3099},{0x305A,0x3059,0x3099},{0x305C,0x305B,0x3099},
{0x305E,0x305D,0x3099},{0x3060,0x305F,0x3099},{0x3062,0x3061,0x3099},{0x3065,0x3064,0x3099},{0x3067,0x3066,0x3099},
{0x3069,0x3068,0x3099},{0x3070,0x306F,0x3099},{0x3071,0x306F,0x309A},{0x3073,0x3072,0x3099},{0x3074,0x3072,0x309A},
{0x3076,0x3075,0x3099},{0x3077,0x3075,0x309A},{0x3079,0x3078,0x3099},{0x307A,0x3078,0x309A},{0x307C,0x307B,0x3099},
{0x307D,0x307B,0x309A},{0x3094,0x3046,0x3099},{0x309E,0x309D,0x3099},{0x30AC,0x30AB,0x3099},{0x30AE,0x30AD,0x3099},
{0x30B0,0x30AF,0x3099},{0x30B2,0x30B1,0x3099},{0x30B4,0x30B3,0x3099},{0x30B6,0x30B5,0x3099},{0x30B8,0x30B7,0x3099},
{0x30BA,0x30B9,0x3099},{0x30BC,0x30BB,0x3099},{0x30BE,0x30BD,0x3099},{0x30C0,0x30BF,0x3099},{0x30C2,0x30C1,0x3099},
{0x30C5,0x30C4,0x3099},{0x30C7,0x30C6,0x3099},{0x30C9,0x30C8,0x3099},{0x30D0,0x30CF,0x3099},{0x30D1,0x30CF,0x309A},
{0x30D3,0x30D2,0x3099},{0x30D4,0x30D2,0x309A},{0x30D6,0x30D5,0x3099},{0x30D7,0x30D5,0x309A},{0x30D9,0x30D8,0x3099},
{0x30DA,0x30D8,0x309A},{0x30DC,0x30DB,0x3099},{0x30DD,0x30DB,0x309A},{0x30F4,0x30A6,0x3099},{0x30F7,0x30EF,0x3099},
{0x30F8,0x30F0,0x3099},{0x30F9,0x30F1,0x3099},{0x30FA,0x30F2,0x3099},{0x30FE,0x30FD,0x3099},{0xF900,0x8C48,0x0},
{0xF901,0x66F4,0x0},{0xF902,0x8ECA,0x0},{0xF903,0x8CC8,0x0},{0xF904,0x6ED1,0x0},{0xF905,0x4E32,0x0},
{0xF906,0x53E5,0x0},{0xF907,0x9F9C,0x0},{0xF908,0x9F9C,0x0},{0xF909,0x5951,0x0},{0xF90A,0x91D1,0x0},
{0xF90B,0x5587,0x0},{0xF90C,0x5948,0x0},{0xF90D,0x61F6,0x0},{0xF90E,0x7669,0x0},{0xF90F,0x7F85,0x0},
{0xF910,0x863F,0x0},{0xF911,0x87BA,0x0},{0xF912,0x88F8,0x0},{0xF913,0x908F,0x0},{0xF914,0x6A02,0x0},
{0xF915,0x6D1B,0x0},{0xF916,0x70D9,0x0},{0xF917,0x73DE,0x0},{0xF918,0x843D,0x0},{0xF919,0x916A,0x0},
{0xF91A,0x99F1,0x0},{0xF91B,0x4E82,0x0},{0xF91C,0x5375,0x0},{0xF91D,0x6B04,0x0},{0xF91E,0x721B,0x0},
{0xF91F,0x862D,0x0},{0xF920,0x9E1E,0x0},{0xF921,0x5D50,0x0},{0xF922,0x6FEB,0x0},{0xF923,0x85CD,0x0},
{0xF924,0x8964,0x0},{0xF925,0x62C9,0x0},{0xF926,0x81D8,0x0},{0xF927,0x881F,0x0},{0xF928,0x5ECA,0x0},
{0xF929,0x6717,0x0},{0xF92A,0x6D6A,0x0},{0xF92B,0x72FC,0x0},{0xF92C,0x90CE,0x0},{0xF92D,0x4F86,0x0},
{0xF92E,0x51B7,0x0},{0xF92F,0x52DE,0x0},{0xF930,0x64C4,0x0},{0xF931,0x6AD3,0x0},{0xF932,0x7210,0x0},
{0xF933,0x76E7,0x0},{0xF934,0x8001,0x0},{0xF935,0x8606,0x0},{0xF936,0x865C,0x0},{0xF937,0x8DEF,0x0},
{0xF938,0x9732,0x0},{0xF939,0x9B6F,0x0},{0xF93A,0x9DFA,0x0},{0xF93B,0x788C,0x0},{0xF93C,0x797F,0x0},
{0xF93D,0x7DA0,0x0},{0xF93E,0x83C9,0x0},{0xF93F,0x9304,0x0},{0xF940,0x9E7F,0x0},{0xF941,0x8AD6,0x0},
{0xF942,0x58DF,0x0},{0xF943,0x5F04,0x0},{0xF944,0x7C60,0x0},{0xF945,0x807E,0x0},{0xF946,0x7262,0x0},
{0xF947,0x78CA,0x0},{0xF948,0x8CC2,0x0},{0xF949,0x96F7,0x0},{0xF94A,0x58D8,0x0},{0xF94B,0x5C62,0x0},
{0xF94C,0x6A13,0x0},{0xF94D,0x6DDA,0x0},{0xF94E,0x6F0F,0x0},{0xF94F,0x7D2F,0x0},{0xF950,0x7E37,0x0},
{0xF951,0x964B,0x0},{0xF952,0x52D2,0x0},{0xF953,0x808B,0x0},{0xF954,0x51DC,0x0},{0xF955,0x51CC,0x0},
{0xF956,0x7A1C,0x0},{0xF957,0x7DBE,0x0},{0xF958,0x83F1,0x0},{0xF959,0x9675,0x0},{0xF95A,0x8B80,0x0},
{0xF95B,0x62CF,0x0},{0xF95C,0x6A02,0x0},{0xF95D,0x8AFE,0x0},{0xF95E,0x4E39,0x0},{0xF95F,0x5BE7,0x0},
{0xF960,0x6012,0x0},{0xF961,0x7387,0x0},{0xF962,0x7570,0x0},{0xF963,0x5317,0x0},{0xF964,0x78FB,0x0},
{0xF965,0x4FBF,0x0},{0xF966,0x5FA9,0x0},{0xF967,0x4E0D,0x0},{0xF968,0x6CCC,0x0},{0xF969,0x6578,0x0},
{0xF96A,0x7D22,0x0},{0xF96B,0x53C3,0x0},{0xF96C,0x585E,0x0},{0xF96D,0x7701,0x0},{0xF96E,0x8449,0x0},
{0xF96F,0x8AAA,0x0},{0xF970,0x6BBA,0x0},{0xF971,0x8FB0,0x0},{0xF972,0x6C88,0x0},{0xF973,0x62FE,0x0},
{0xF974,0x82E5,0x0},{0xF975,0x63A0,0x0},{0xF976,0x7565,0x0},{0xF977,0x4EAE,0x0},{0xF978,0x5169,0x0},
{0xF979,0x51C9,0x0},{0xF97A,0x6881,0x0},{0xF97B,0x7CE7,0x0},{0xF97C,0x826F,0x0},{0xF97D,0x8AD2,0x0},
{0xF97E,0x91CF,0x0},{0xF97F,0x52F5,0x0},{0xF980,0x5442,0x0},{0xF981,0x5973,0x0},{0xF982,0x5EEC,0x0},
{0xF983,0x65C5,0x0},{0xF984,0x6FFE,0x0},{0xF985,0x792A,0x0},{0xF986,0x95AD,0x0},{0xF987,0x9A6A,0x0},
{0xF988,0x9E97,0x0},{0xF989,0x9ECE,0x0},{0xF98A,0x529B,0x0},{0xF98B,0x66C6,0x0},{0xF98C,0x6B77,0x0},
{0xF98D,0x8F62,0x0},{0xF98E,0x5E74,0x0},{0xF98F,0x6190,0x0},{0xF990,0x6200,0x0},{0xF991,0x649A,0x0},
{0xF992,0x6F23,0x0},{0xF993,0x7149,0x0},{0xF994,0x7489,0x0},{0xF995,0x79CA,0x0},{0xF996,0x7DF4,0x0},
{0xF997,0x806F,0x0},{0xF998,0x8F26,0x0},{0xF999,0x84EE,0x0},{0xF99A,0x9023,0x0},{0xF99B,0x934A,0x0},
{0xF99C,0x5217,0x0},{0xF99D,0x52A3,0x0},{0xF99E,0x54BD,0x0},{0xF99F,0x70C8,0x0},{0xF9A0,0x88C2,0x0},
{0xF9A1,0x8AAA,0x0},{0xF9A2,0x5EC9,0x0},{0xF9A3,0x5FF5,0x0},{0xF9A4,0x637B,0x0},{0xF9A5,0x6BAE,0x0},
{0xF9A6,0x7C3E,0x0},{0xF9A7,0x7375,0x0},{0xF9A8,0x4EE4,0x0},{0xF9A9,0x56F9,0x0},{0xF9AA,0x5BE7,0x0},
{0xF9AB,0x5DBA,0x0},{0xF9AC,0x601C,0x0},{0xF9AD,0x73B2,0x0},{0xF9AE,0x7469,0x0},{0xF9AF,0x7F9A,0x0},
{0xF9B0,0x8046,0x0},{0xF9B1,0x9234,0x0},{0xF9B2,0x96F6,0x0},{0xF9B3,0x9748,0x0},{0xF9B4,0x9818,0x0},
{0xF9B5,0x4F8B,0x0},{0xF9B6,0x79AE,0x0},{0xF9B7,0x91B4,0x0},{0xF9B8,0x96B8,0x0},{0xF9B9,0x60E1,0x0},
{0xF9BA,0x4E86,0x0},{0xF9BB,0x50DA,0x0},{0xF9BC,0x5BEE,0x0},{0xF9BD,0x5C3F,0x0},{0xF9BE,0x6599,0x0},
{0xF9BF,0x6A02,0x0},{0xF9C0,0x71CE,0x0},{0xF9C1,0x7642,0x0},{0xF9C2,0x84FC,0x0},{0xF9C3,0x907C,0x0},
{0xF9C4,0x9F8D,0x0},{0xF9C5,0x6688,0x0},{0xF9C6,0x962E,0x0},{0xF9C7,0x5289,0x0},{0xF9C8,0x677B,0x0},
{0xF9C9,0x67F3,0x0},{0xF9CA,0x6D41,0x0},{0xF9CB,0x6E9C,0x0},{0xF9CC,0x7409,0x0},{0xF9CD,0x7559,0x0},
{0xF9CE,0x786B,0x0},{0xF9CF,0x7D10,0x0},{0xF9D0,0x985E,0x0},{0xF9D1,0x516D,0x0},{0xF9D2,0x622E,0x0},
{0xF9D3,0x9678,0x0},{0xF9D4,0x502B,0x0},{0xF9D5,0x5D19,0x0},{0xF9D6,0x6DEA,0x0},{0xF9D7,0x8F2A,0x0},
{0xF9D8,0x5F8B,0x0},{0xF9D9,0x6144,0x0},{0xF9DA,0x6817,0x0},{0xF9DB,0x7387,0x0},{0xF9DC,0x9686,0x0},
{0xF9DD,0x5229,0x0},{0xF9DE,0x540F,0x0},{0xF9DF,0x5C65,0x0},{0xF9E0,0x6613,0x0},{0xF9E1,0x674E,0x0},
{0xF9E2,0x68A8,0x0},{0xF9E3,0x6CE5,0x0},{0xF9E4,0x7406,0x0},{0xF9E5,0x75E2,0x0},{0xF9E6,0x7F79,0x0},
{0xF9E7,0x88CF,0x0},{0xF9E8,0x88E1,0x0},{0xF9E9,0x91CC,0x0},{0xF9EA,0x96E2,0x0},{0xF9EB,0x533F,0x0},
{0xF9EC,0x6EBA,0x0},{0xF9ED,0x541D,0x0},{0xF9EE,0x71D0,0x0},{0xF9EF,0x7498,0x0},{0xF9F0,0x85FA,0x0},
{0xF9F1,0x96A3,0x0},{0xF9F2,0x9C57,0x0},{0xF9F3,0x9E9F,0x0},{0xF9F4,0x6797,0x0},{0xF9F5,0x6DCB,0x0},
{0xF9F6,0x81E8,0x0},{0xF9F7,0x7ACB,0x0},{0xF9F8,0x7B20,0x0},{0xF9F9,0x7C92,0x0},{0xF9FA,0x72C0,0x0},
{0xF9FB,0x7099,0x0},{0xF9FC,0x8B58,0x0},{0xF9FD,0x4EC0,0x0},{0xF9FE,0x8336,0x0},{0xF9FF,0x523A,0x0},
{0xFA00,0x5207,0x0},{0xFA01,0x5EA6,0x0},{0xFA02,0x62D3,0x0},{0xFA03,0x7CD6,0x0},{0xFA04,0x5B85,0x0},
{0xFA05,0x6D1E,0x0},{0xFA06,0x66B4,0x0},{0xFA07,0x8F3B,0x0},{0xFA08,0x884C,0x0},{0xFA09,0x964D,0x0},
{0xFA0A,0x898B,0x0},{0xFA0B,0x5ED3,0x0},{0xFA0C,0x5140,0x0},{0xFA0D,0x55C0,0x0},{0xFA10,0x585A,0x0},
{0xFA12,0x6674,0x0},{0xFA15,0x51DE,0x0},{0xFA16,0x732A,0x0},{0xFA17,0x76CA,0x0},{0xFA18,0x793C,0x0},
{0xFA19,0x795E,0x0},{0xFA1A,0x7965,0x0},{0xFA1B,0x798F,0x0},{0xFA1C,0x9756,0x0},{0xFA1D,0x7CBE,0x0},
{0xFA1E,0x7FBD,0x0},{0xFA20,0x8612,0x0},{0xFA22,0x8AF8,0x0},{0xFA25,0x9038,0x0},{0xFA26,0x90FD,0x0},
{0xFA2A,0x98EF,0x0},{0xFA2B,0x98FC,0x0},{0xFA2C,0x9928,0x0},{0xFA2D,0x9DB4,0x0},{0xFA2E,0x90DE,0x0},
{0xFA2F,0x96B7,0x0},{0xFA30,0x4FAE,0x0},{0xFA31,0x50E7,0x0},{0xFA32,0x514D,0x0},{0xFA33,0x52C9,0x0},
{0xFA34,0x52E4,0x0},{0xFA35,0x5351,0x0},{0xFA36,0x559D,0x0},{0xFA37,0x5606,0x0},{0xFA38,0x5668,0x0},
{0xFA39,0x5840,0x0},{0xFA3A,0x58A8,0x0},{0xFA3B,0x5C64,0x0},{0xFA3C,0x5C6E,0x0},{0xFA3D,0x6094,0x0},
{0xFA3E,0x6168,0x0},{0xFA3F,0x618E,0x0},{0xFA40,0x61F2,0x0},{0xFA41,0x654F,0x0},{0xFA42,0x65E2,0x0},
{0xFA43,0x6691,0x0},{0xFA44,0x6885,0x0},{0xFA45,0x6D77,0x0},{0xFA46,0x6E1A,0x0},{0xFA47,0x6F22,0x0},
{0xFA48,0x716E,0x0},{0xFA49,0x722B,0x0},{0xFA4A,0x7422,0x0},{0xFA4B,0x7891,0x0},{0xFA4C,0x793E,0x0},
{0xFA4D,0x7949,0x0},{0xFA4E,0x7948,0x0},{0xFA4F,0x7950,0x0},{0xFA50,0x7956,0x0},{0xFA51,0x795D,0x0},
{0xFA52,0x798D,0x0},{0xFA53,0x798E,0x0},{0xFA54,0x7A40,0x0},{0xFA55,0x7A81,0x0},{0xFA56,0x7BC0,0x0},
{0xFA57,0x7DF4,0x0},{0xFA58,0x7E09,0x0},{0xFA59,0x7E41,0x0},{0xFA5A,0x7F72,0x0},{0xFA5B,0x8005,0x0},
{0xFA5C,0x81ED,0x0},{0xFA5D,0x8279,0x0},{0xFA5E,0x8279,0x0},{0xFA5F,0x8457,0x0},{0xFA60,0x8910,0x0},
{0xFA61,0x8996,0x0},{0xFA62,0x8B01,0x0},{0xFA63,0x8B39,0x0},{0xFA64,0x8CD3,0x0},{0xFA65,0x8D08,0x0},
{0xFA66,0x8FB6,0x0},{0xFA67,0x9038,0x0},{0xFA68,0x96E3,0x0},{0xFA69,0x97FF,0x0},{0xFA6A,0x983B,0x0},
{0xFA6B,0x6075,0x0},{0xFA6C,0x242EE,0x0},{0xFA6D,0x8218,0x0},{0xFA70,0x4E26,0x0},{0xFA71,0x51B5,0x0},
{0xFA72,0x5168,0x0},{0xFA73,0x4F80,0x0},{0xFA74,0x5145,0x0},{0xFA75,0x5180,0x0},{0xFA76,0x52C7,0x0},
{0xFA77,0x52FA,0x0},{0xFA78,0x559D,0x0},{0xFA79,0x5555,0x0},{0xFA7A,0x5599,0x0},{0xFA7B,0x55E2,0x0},
{0xFA7C,0x585A,0x0},{0xFA7D,0x58B3,0x0},{0xFA7E,0x5944,0x0},{0xFA7F,0x5954,0x0},{0xFA80,0x5A62,0x0},
{0xFA81,0x5B28,0x0},{0xFA82,0x5ED2,0x0},{0xFA83,0x5ED9,0x0},{0xFA84,0x5F69,0x0},{0xFA85,0x5FAD,0x0},
{0xFA86,0x60D8,0x0},{0xFA87,0x614E,0x0},{0xFA88,0x6108,0x0},{0xFA89,0x618E,0x0},{0xFA8A,0x6160,0x0},
{0xFA8B,0x61F2,0x0},{0xFA8C,0x6234,0x0},{0xFA8D,0x63C4,0x0},{0xFA8E,0x641C,0x0},{0xFA8F,0x6452,0x0},
{0xFA90,0x6556,0x0},{0xFA91,0x6674,0x0},{0xFA92,0x6717,0x0},{0xFA93,0x671B,0x0},{0xFA94,0x6756,0x0},
{0xFA95,0x6B79,0x0},{0xFA96,0x6BBA,0x0},{0xFA97,0x6D41,0x0},{0xFA98,0x6EDB,0x0},{0xFA99,0x6ECB,0x0},
{0xFA9A,0x6F22,0x0},{0xFA9B,0x701E,0x0},{0xFA9C,0x716E,0x0},{0xFA9D,0x77A7,0x0},{0xFA9E,0x7235,0x0},
{0xFA9F,0x72AF,0x0},{0xFAA0,0x732A,0x0},{0xFAA1,0x7471,0x0},{0xFAA2,0x7506,0x0},{0xFAA3,0x753B,0x0},
{0xFAA4,0x761D,0x0},{0xFAA5,0x761F,0x0},{0xFAA6,0x76CA,0x0},{0xFAA7,0x76DB,0x0},{0xFAA8,0x76F4,0x0},
{0xFAA9,0x774A,0x0},{0xFAAA,0x7740,0x0},{0xFAAB,0x78CC,0x0},{0xFAAC,0x7AB1,0x0},{0xFAAD,0x7BC0,0x0},
{0xFAAE,0x7C7B,0x0},{0xFAAF,0x7D5B,0x0},{0xFAB0,0x7DF4,0x0},{0xFAB1,0x7F3E,0x0},{0xFAB2,0x8005,0x0},
{0xFAB3,0x8352,0x0},{0xFAB4,0x83EF,0x0},{0xFAB5,0x8779,0x0},{0xFAB6,0x8941,0x0},{0xFAB7,0x8986,0x0},
{0xFAB8,0x8996,0x0},{0xFAB9,0x8ABF,0x0},{0xFABA,0x8AF8,0x0},{0xFABB,0x8ACB,0x0},{0xFABC,0x8B01,0x0},
{0xFABD,0x8AFE,0x0},{0xFABE,0x8AED,0x0},{0xFABF,0x8B39,0x0},{0xFAC0,0x8B8A,0x0},{0xFAC1,0x8D08,0x0},
{0xFAC2,0x8F38,0x0},{0xFAC3,0x9072,0x0},{0xFAC4,0x9199,0x0},{0xFAC5,0x9276,0x0},{0xFAC6,0x967C,0x0},
{0xFAC7,0x96E3,0x0},{0xFAC8,0x9756,0x0},{0xFAC9,0x97DB,0x0},{0xFACA,0x97FF,0x0},{0xFACB,0x980B,0x0},
{0xFACC,0x983B,0x0},{0xFACD,0x9B12,0x0},{0xFACE,0x9F9C,0x0},{0xFACF,0x2284A,0x0},{0xFAD0,0x22844,0x0},
{0xFAD1,0x233D5,0x0},{0xFAD2,0x3B9D,0x0},{0xFAD3,0x4018,0x0},{0xFAD4,0x4039,0x0},{0xFAD5,0x25249,0x0},
{0xFAD6,0x25CD0,0x0},{0xFAD7,0x27ED3,0x0},{0xFAD8,0x9F43,0x0},{0xFAD9,0x9F8E,0x0},{0xFB1D,0x5D9,0x5B4},
{0xFB1F,0x5F2,0x5B7},{0xFB2A,0x5E9,0x5C1},{0xFB2B,0x5E9,0x5C2},{0xFB2C,0xFB49,0x5C1},{0xFB2D,0xFB49,0x5C2},
{0xFB2E,0x5D0,0x5B7},{0xFB2F,0x5D0,0x5B8},{0xFB30,0x5D0,0x5BC},{0xFB31,0x5D1,0x5BC},{0xFB32,0x5D2,0x5BC},
{0xFB33,0x5D3,0x5BC},{0xFB34,0x5D4,0x5BC},{0xFB35,0x5D5,0x5BC},{0xFB36,0x5D6,0x5BC},{0xFB38,0x5D8,0x5BC},
{0xFB39,0x5D9,0x5BC},{0xFB3A,0x5DA,0x5BC},{0xFB3B,0x5DB,0x5BC},{0xFB3C,0x5DC,0x5BC},{0xFB3E,0x5DE,0x5BC},
{0xFB40,0x5E0,0x5BC},{0xFB41,0x5E1,0x5BC},{0xFB43,0x5E3,0x5BC},{0xFB44,0x5E4,0x5BC},{0xFB46,0x5E6,0x5BC},
{0xFB47,0x5E7,0x5BC},{0xFB48,0x5E8,0x5BC},{0xFB49,0x5E9,0x5BC},{0xFB4A,0x5EA,0x5BC},{0xFB4B,0x5D5,0x5B9},
{0xFB4C,0x5D1,0x5BF},{0xFB4D,0x5DB,0x5BF},{0xFB4E,0x5E4,0x5BF},{0x1109A,0x11099,0x110BA},{0x1109C,0x1109B,0x110BA},
{0x110AB,0x110A5,0x110BA},{0x1112E,0x11131,0x11127},{0x1112F,0x11132,0x11127},{0x1134B,0x11347,0x1133E},{0x1134C,0x11347,0x11357},
{0x114BB,0x114B9,0x114BA},{0x114BC,0x114B9,0x114B0},{0x114BE,0x114B9,0x114BD},{0x115BA,0x115B8,0x115AF},{0x115BB,0x115B9,0x115AF},
{0x11938,0x11935,0x11930},{0x1D15E,0x1D157,0x1D165},{0x1D15F,0x1D158,0x1D165},{0x1D160,0x1D15F,0x1D16E},{0x1D161,0x1D15F,0x1D16F},
{0x1D162,0x1D15F,0x1D170},{0x1D163,0x1D15F,0x1D171},{0x1D164,0x1D15F,0x1D172},{0x1D1BB,0x1D1B9,0x1D165},{0x1D1BC,0x1D1BA,0x1D165},
{0x1D1BD,0x1D1BB,0x1D16E},{0x1D1BE,0x1D1BC,0x1D16E},{0x1D1BF,0x1D1BB,0x1D16F},{0x1D1C0,0x1D1BC,0x1D16F},{0x2F800,0x4E3D,0x0},
{0x2F801,0x4E38,0x0},{0x2F802,0x4E41,0x0},{0x2F803,0x20122,0x0},{0x2F804,0x4F60,0x0},{0x2F805,0x4FAE,0x0},
{0x2F806,0x4FBB,0x0},{0x2F807,0x5002,0x0},{0x2F808,0x507A,0x0},{0x2F809,0x5099,0x0},{0x2F80A,0x50E7,0x0},
{0x2F80B,0x50CF,0x0},{0x2F80C,0x349E,0x0},{0x2F80D,0x2063A,0x0},{0x2F80E,0x514D,0x0},{0x2F80F,0x5154,0x0},
{0x2F810,0x5164,0x0},{0x2F811,0x5177,0x0},{0x2F812,0x2051C,0x0},{0x2F813,0x34B9,0x0},{0x2F814,0x5167,0x0},
{0x2F815,0x518D,0x0},{0x2F816,0x2054B,0x0},{0x2F817,0x5197,0x0},{0x2F818,0x51A4,0x0},{0x2F819,0x4ECC,0x0},
{0x2F81A,0x51AC,0x0},{0x2F81B,0x51B5,0x0},{0x2F81C,0x291DF,0x0},{0x2F81D,0x51F5,0x0},{0x2F81E,0x5203,0x0},
{0x2F81F,0x34DF,0x0},{0x2F820,0x523B,0x0},{0x2F821,0x5246,0x0},{0x2F822,0x5272,0x0},{0x2F823,0x5277,0x0},
{0x2F824,0x3515,0x0},{0x2F825,0x52C7,0x0},{0x2F826,0x52C9,0x0},{0x2F827,0x52E4,0x0},{0x2F828,0x52FA,0x0},
{0x2F829,0x5305,0x0},{0x2F82A,0x5306,0x0},{0x2F82B,0x5317,0x0},{0x2F82C,0x5349,0x0},{0x2F82D,0x5351,0x0},
{0x2F82E,0x535A,0x0},{0x2F82F,0x5373,0x0},{0x2F830,0x537D,0x0},{0x2F831,0x537F,0x0},{0x2F832,0x537F,0x0},
{0x2F833,0x537F,0x0},{0x2F834,0x20A2C,0x0},{0x2F835,0x7070,0x0},{0x2F836,0x53CA,0x0},{0x2F837,0x53DF,0x0},
{0x2F838,0x20B63,0x0},{0x2F839,0x53EB,0x0},{0x2F83A,0x53F1,0x0},{0x2F83B,0x5406,0x0},{0x2F83C,0x549E,0x0},
{0x2F83D,0x5438,0x0},{0x2F83E,0x5448,0x0},{0x2F83F,0x5468,0x0},{0x2F840,0x54A2,0x0},{0x2F841,0x54F6,0x0},
{0x2F842,0x5510,0x0},{0x2F843,0x5553,0x0},{0x2F844,0x5563,0x0},{0x2F845,0x5584,0x0},{0x2F846,0x5584,0x0},
{0x2F847,0x5599,0x0},{0x2F848,0x55AB,0x0},{0x2F849,0x55B3,0x0},{0x2F84A,0x55C2,0x0},{0x2F84B,0x5716,0x0},
{0x2F84C,0x5606,0x0},{0x2F84D,0x5717,0x0},{0x2F84E,0x5651,0x0},{0x2F84F,0x5674,0x0},{0x2F850,0x5207,0x0},
{0x2F851,0x58EE,0x0},{0x2F852,0x57CE,0x0},{0x2F853,0x57F4,0x0},{0x2F854,0x580D,0x0},{0x2F855,0x578B,0x0},
{0x2F856,0x5832,0x0},{0x2F857,0x5831,0x0},{0x2F858,0x58AC,0x0},{0x2F859,0x214E4,0x0},{0x2F85A,0x58F2,0x0},
{0x2F85B,0x58F7,0x0},{0x2F85C,0x5906,0x0},{0x2F85D,0x591A,0x0},{0x2F85E,0x5922,0x0},{0x2F85F,0x5962,0x0},
{0x2F860,0x216A8,0x0},{0x2F861,0x216EA,0x0},{0x2F862,0x59EC,0x0},{0x2F863,0x5A1B,0x0},{0x2F864,0x5A27,0x0},
{0x2F865,0x59D8,0x0},{0x2F866,0x5A66,0x0},{0x2F867,0x36EE,0x0},{0x2F868,0x36FC,0x0},{0x2F869,0x5B08,0x0},
{0x2F86A,0x5B3E,0x0},{0x2F86B,0x5B3E,0x0},{0x2F86C,0x219C8,0x0},{0x2F86D,0x5BC3,0x0},{0x2F86E,0x5BD8,0x0},
{0x2F86F,0x5BE7,0x0},{0x2F870,0x5BF3,0x0},{0x2F871,0x21B18,0x0},{0x2F872,0x5BFF,0x0},{0x2F873,0x5C06,0x0},
{0x2F874,0x5F53,0x0},{0x2F875,0x5C22,0x0},{0x2F876,0x3781,0x0},{0x2F877,0x5C60,0x0},{0x2F878,0x5C6E,0x0},
{0x2F879,0x5CC0,0x0},{0x2F87A,0x5C8D,0x0},{0x2F87B,0x21DE4,0x0},{0x2F87C,0x5D43,0x0},{0x2F87D,0x21DE6,0x0},
{0x2F87E,0x5D6E,0x0},{0x2F87F,0x5D6B,0x0},{0x2F880,0x5D7C,0x0},{0x2F881,0x5DE1,0x0},{0x2F882,0x5DE2,0x0},
{0x2F883,0x382F,0x0},{0x2F884,0x5DFD,0x0},{0x2F885,0x5E28,0x0},{0x2F886,0x5E3D,0x0},{0x2F887,0x5E69,0x0},
{0x2F888,0x3862,0x0},{0x2F889,0x22183,0x0},{0x2F88A,0x387C,0x0},{0x2F88B,0x5EB0,0x0},{0x2F88C,0x5EB3,0x0},
{0x2F88D,0x5EB6,0x0},{0x2F88E,0x5ECA,0x0},{0x2F88F,0x2A392,0x0},{0x2F890,0x5EFE,0x0},{0x2F891,0x22331,0x0},
{0x2F892,0x22331,0x0},{0x2F893,0x8201,0x0},{0x2F894,0x5F22,0x0},{0x2F895,0x5F22,0x0},{0x2F896,0x38C7,0x0},
{0x2F897,0x232B8,0x0},{0x2F898,0x261DA,0x0},{0x2F899,0x5F62,0x0},{0x2F89A,0x5F6B,0x0},{0x2F89B,0x38E3,0x0},
{0x2F89C,0x5F9A,0x0},{0x2F89D,0x5FCD,0x0},{0x2F89E,0x5FD7,0x0},{0x2F89F,0x5FF9,0x0},{0x2F8A0,0x6081,0x0},
{0x2F8A1,0x393A,0x0},{0x2F8A2,0x391C,0x0},{0x2F8A3,0x6094,0x0},{0x2F8A4,0x226D4,0x0},{0x2F8A5,0x60C7,0x0},
{0x2F8A6,0x6148,0x0},{0x2F8A7,0x614C,0x0},{0x2F8A8,0x614E,0x0},{0x2F8A9,0x614C,0x0},{0x2F8AA,0x617A,0x0},
{0x2F8AB,0x618E,0x0},{0x2F8AC,0x61B2,0x0},{0x2F8AD,0x61A4,0x0},{0x2F8AE,0x61AF,0x0},{0x2F8AF,0x61DE,0x0},
{0x2F8B0,0x61F2,0x0},{0x2F8B1,0x61F6,0x0},{0x2F8B2,0x6210,0x0},{0x2F8B3,0x621B,0x0},{0x2F8B4,0x625D,0x0},
{0x2F8B5,0x62B1,0x0},{0x2F8B6,0x62D4,0x0},{0x2F8B7,0x6350,0x0},{0x2F8B8,0x22B0C,0x0},{0x2F8B9,0x633D,0x0},
{0x2F8BA,0x62FC,0x0},{0x2F8BB,0x6368,0x0},{0x2F8BC,0x6383,0x0},{0x2F8BD,0x63E4,0x0},{0x2F8BE,0x22BF1,0x0},
{0x2F8BF,0x6422,0x0},{0x2F8C0,0x63C5,0x0},{0x2F8C1,0x63A9,0x0},{0x2F8C2,0x3A2E,0x0},{0x2F8C3,0x6469,0x0},
{0x2F8C4,0x647E,0x0},{0x2F8C5,0x649D,0x0},{0x2F8C6,0x6477,0x0},{0x2F8C7,0x3A6C,0x0},{0x2F8C8,0x654F,0x0},
{0x2F8C9,0x656C,0x0},{0x2F8CA,0x2300A,0x0},{0x2F8CB,0x65E3,0x0},{0x2F8CC,0x66F8,0x0},{0x2F8CD,0x6649,0x0},
{0x2F8CE,0x3B19,0x0},{0x2F8CF,0x6691,0x0},{0x2F8D0,0x3B08,0x0},{0x2F8D1,0x3AE4,0x0},{0x2F8D2,0x5192,0x0},
{0x2F8D3,0x5195,0x0},{0x2F8D4,0x6700,0x0},{0x2F8D5,0x669C,0x0},{0x2F8D6,0x80AD,0x0},{0x2F8D7,0x43D9,0x0},
{0x2F8D8,0x6717,0x0},{0x2F8D9,0x671B,0x0},{0x2F8DA,0x6721,0x0},{0x2F8DB,0x675E,0x0},{0x2F8DC,0x6753,0x0},
{0x2F8DD,0x233C3,0x0},{0x2F8DE,0x3B49,0x0},{0x2F8DF,0x67FA,0x0},{0x2F8E0,0x6785,0x0},{0x2F8E1,0x6852,0x0},
{0x2F8E2,0x6885,0x0},{0x2F8E3,0x2346D,0x0},{0x2F8E4,0x688E,0x0},{0x2F8E5,0x681F,0x0},{0x2F8E6,0x6914,0x0},
{0x2F8E7,0x3B9D,0x0},{0x2F8E8,0x6942,0x0},{0x2F8E9,0x69A3,0x0},{0x2F8EA,0x69EA,0x0},{0x2F8EB,0x6AA8,0x0},
{0x2F8EC,0x236A3,0x0},{0x2F8ED,0x6ADB,0x0},{0x2F8EE,0x3C18,0x0},{0x2F8EF,0x6B21,0x0},{0x2F8F0,0x238A7,0x0},
{0x2F8F1,0x6B54,0x0},{0x2F8F2,0x3C4E,0x0},{0x2F8F3,0x6B72,0x0},{0x2F8F4,0x6B9F,0x0},{0x2F8F5,0x6BBA,0x0},
{0x2F8F6,0x6BBB,0x0},{0x2F8F7,0x23A8D,0x0},{0x2F8F8,0x21D0B,0x0},{0x2F8F9,0x23AFA,0x0},{0x2F8FA,0x6C4E,0x0},
{0x2F8FB,0x23CBC,0x0},{0x2F8FC,0x6CBF,0x0},{0x2F8FD,0x6CCD,0x0},{0x2F8FE,0x6C67,0x0},{0x2F8FF,0x6D16,0x0},
{0x2F900,0x6D3E,0x0},{0x2F901,0x6D77,0x0},{0x2F902,0x6D41,0x0},{0x2F903,0x6D69,0x0},{0x2F904,0x6D78,0x0},
{0x2F905,0x6D85,0x0},{0x2F906,0x23D1E,0x0},{0x2F907,0x6D34,0x0},{0x2F908,0x6E2F,0x0},{0x2F909,0x6E6E,0x0},
{0x2F90A,0x3D33,0x0},{0x2F90B,0x6ECB,0x0},{0x2F90C,0x6EC7,0x0},{0x2F90D,0x23ED1,0x0},{0x2F90E,0x6DF9,0x0},
{0x2F90F,0x6F6E,0x0},{0x2F910,0x23F5E,0x0},{0x2F911,0x23F8E,0x0},{0x2F912,0x6FC6,0x0},{0x2F913,0x7039,0x0},
{0x2F914,0x701E,0x0},{0x2F915,0x701B,0x0},{0x2F916,0x3D96,0x0},{0x2F917,0x704A,0x0},{0x2F918,0x707D,0x0},
{0x2F919,0x7077,0x0},{0x2F91A,0x70AD,0x0},{0x2F91B,0x20525,0x0},{0x2F91C,0x7145,0x0},{0x2F91D,0x24263,0x0},
{0x2F91E,0x719C,0x0},{0x2F91F,0x243AB,0x0},{0x2F920,0x7228,0x0},{0x2F921,0x7235,0x0},{0x2F922,0x7250,0x0},
{0x2F923,0x24608,0x0},{0x2F924,0x7280,0x0},{0x2F925,0x7295,0x0},{0x2F926,0x24735,0x0},{0x2F927,0x24814,0x0},
{0x2F928,0x737A,0x0},{0x2F929,0x738B,0x0},{0x2F92A,0x3EAC,0x0},{0x2F92B,0x73A5,0x0},{0x2F92C,0x3EB8,0x0},
{0x2F92D,0x3EB8,0x0},{0x2F92E,0x7447,0x0},{0x2F92F,0x745C,0x0},{0x2F930,0x7471,0x0},{0x2F931,0x7485,0x0},
{0x2F932,0x74CA,0x0},{0x2F933,0x3F1B,0x0},{0x2F934,0x7524,0x0},{0x2F935,0x24C36,0x0},{0x2F936,0x753E,0x0},
{0x2F937,0x24C92,0x0},{0x2F938,0x7570,0x0},{0x2F939,0x2219F,0x0},{0x2F93A,0x7610,0x0},{0x2F93B,0x24FA1,0x0},
{0x2F93C,0x24FB8,0x0},{0x2F93D,0x25044,0x0},{0x2F93E,0x3FFC,0x0},{0x2F93F,0x4008,0x0},{0x2F940,0x76F4,0x0},
{0x2F941,0x250F3,0x0},{0x2F942,0x250F2,0x0},{0x2F943,0x25119,0x0},{0x2F944,0x25133,0x0},{0x2F945,0x771E,0x0},
{0x2F946,0x771F,0x0},{0x2F947,0x771F,0x0},{0x2F948,0x774A,0x0},{0x2F949,0x4039,0x0},{0x2F94A,0x778B,0x0},
{0x2F94B,0x4046,0x0},{0x2F94C,0x4096,0x0},{0x2F94D,0x2541D,0x0},{0x2F94E,0x784E,0x0},{0x2F94F,0x788C,0x0},
{0x2F950,0x78CC,0x0},{0x2F951,0x40E3,0x0},{0x2F952,0x25626,0x0},{0x2F953,0x7956,0x0},{0x2F954,0x2569A,0x0},
{0x2F955,0x256C5,0x0},{0x2F956,0x798F,0x0},{0x2F957,0x79EB,0x0},{0x2F958,0x412F,0x0},{0x2F959,0x7A40,0x0},
{0x2F95A,0x7A4A,0x0},{0x2F95B,0x7A4F,0x0},{0x2F95C,0x2597C,0x0},{0x2F95D,0x25AA7,0x0},{0x2F95E,0x25AA7,0x0},
{0x2F95F,0x7AEE,0x0},{0x2F960,0x4202,0x0},{0x2F961,0x25BAB,0x0},{0x2F962,0x7BC6,0x0},{0x2F963,0x7BC9,0x0},
{0x2F964,0x4227,0x0},{0x2F965,0x25C80,0x0},{0x2F966,0x7CD2,0x0},{0x2F967,0x42A0,0x0},{0x2F968,0x7CE8,0x0},
{0x2F969,0x7CE3,0x0},{0x2F96A,0x7D00,0x0},{0x2F96B,0x25F86,0x0},{0x2F96C,0x7D63,0x0},{0x2F96D,0x4301,0x0},
{0x2F96E,0x7DC7,0x0},{0x2F96F,0x7E02,0x0},{0x2F970,0x7E45,0x0},{0x2F971,0x4334,0x0},{0x2F972,0x26228,0x0},
{0x2F973,0x26247,0x0},{0x2F974,0x4359,0x0},{0x2F975,0x262D9,0x0},{0x2F976,0x7F7A,0x0},{0x2F977,0x2633E,0x0},
{0x2F978,0x7F95,0x0},{0x2F979,0x7FFA,0x0},{0x2F97A,0x8005,0x0},{0x2F97B,0x264DA,0x0},{0x2F97C,0x26523,0x0},
{0x2F97D,0x8060,0x0},{0x2F97E,0x265A8,0x0},{0x2F97F,0x8070,0x0},{0x2F980,0x2335F,0x0},{0x2F981,0x43D5,0x0},
{0x2F982,0x80B2,0x0},{0x2F983,0x8103,0x0},{0x2F984,0x440B,0x0},{0x2F985,0x813E,0x0},{0x2F986,0x5AB5,0x0},
{0x2F987,0x267A7,0x0},{0x2F988,0x267B5,0x0},{0x2F989,0x23393,0x0},{0x2F98A,0x2339C,0x0},{0x2F98B,0x8201,0x0},
{0x2F98C,0x8204,0x0},{0x2F98D,0x8F9E,0x0},{0x2F98E,0x446B,0x0},{0x2F98F,0x8291,0x0},{0x2F990,0x828B,0x0},
{0x2F991,0x829D,0x0},{0x2F992,0x52B3,0x0},{0x2F993,0x82B1,0x0},{0x2F994,0x82B3,0x0},{0x2F995,0x82BD,0x0},
{0x2F996,0x82E6,0x0},{0x2F997,0x26B3C,0x0},{0x2F998,0x82E5,0x0},{0x2F999,0x831D,0x0},{0x2F99A,0x8363,0x0},
{0x2F99B,0x83AD,0x0},{0x2F99C,0x8323,0x0},{0x2F99D,0x83BD,0x0},{0x2F99E,0x83E7,0x0},{0x2F99F,0x8457,0x0},
{0x2F9A0,0x8353,0x0},{0x2F9A1,0x83CA,0x0},{0x2F9A2,0x83CC,0x0},{0x2F9A3,0x83DC,0x0},{0x2F9A4,0x26C36,0x0},
{0x2F9A5,0x26D6B,0x0},{0x2F9A6,0x26CD5,0x0},{0x2F9A7,0x452B,0x0},{0x2F9A8,0x84F1,0x0},{0x2F9A9,0x84F3,0x0},
{0x2F9AA,0x8516,0x0},{0x2F9AB,0x273CA,0x0},{0x2F9AC,0x8564,0x0},{0x2F9AD,0x26F2C,0x0},{0x2F9AE,0x455D,0x0},
{0x2F9AF,0x4561,0x0},{0x2F9B0,0x26FB1,0x0},{0x2F9B1,0x270D2,0x0},{0x2F9B2,0x456B,0x0},{0x2F9B3,0x8650,0x0},
{0x2F9B4,0x865C,0x0},{0x2F9B5,0x8667,0x0},{0x2F9B6,0x8669,0x0},{0x2F9B7,0x86A9,0x0},{0x2F9B8,0x8688,0x0},
{0x2F9B9,0x870E,0x0},{0x2F9BA,0x86E2,0x0},{0x2F9BB,0x8779,0x0},{0x2F9BC,0x8728,0x0},{0x2F9BD,0x876B,0x0},
{0x2F9BE,0x8786,0x0},{0x2F9BF,0x45D7,0x0},{0x2F9C0,0x87E1,0x0},{0x2F9C1,0x8801,0x0},{0x2F9C2,0x45F9,0x0},
{0x2F9C3,0x8860,0x0},{0x2F9C4,0x8863,0x0},{0x2F9C5,0x27667,0x0},{0x2F9C6,0x88D7,0x0},{0x2F9C7,0x88DE,0x0},
{0x2F9C8,0x4635,0x0},{0x2F9C9,0x88FA,0x0},{0x2F9CA,0x34BB,0x0},{0x2F9CB,0x278AE,0x0},{0x2F9CC,0x27966,0x0},
{0x2F9CD,0x46BE,0x0},{0x2F9CE,0x46C7,0x0},{0x2F9CF,0x8AA0,0x0},{0x2F9D0,0x8AED,0x0},{0x2F9D1,0x8B8A,0x0},
{0x2F9D2,0x8C55,0x0},{0x2F9D3,0x27CA8,0x0},{0x2F9D4,0x8CAB,0x0},{0x2F9D5,0x8CC1,0x0},{0x2F9D6,0x8D1B,0x0},
{0x2F9D7,0x8D77,0x0},{0x2F9D8,0x27F2F,0x0},{0x2F9D9,0x20804,0x0},{0x2F9DA,0x8DCB,0x0},{0x2F9DB,0x8DBC,0x0},
{0x2F9DC,0x8DF0,0x0},{0x2F9DD,0x208DE,0x0},{0x2F9DE,0x8ED4,0x0},{0x2F9DF,0x8F38,0x0},{0x2F9E0,0x285D2,0x0},
{0x2F9E1,0x285ED,0x0},{0x2F9E2,0x9094,0x0},{0x2F9E3,0x90F1,0x0},{0x2F9E4,0x9111,0x0},{0x2F9E5,0x2872E,0x0},
{0x2F9E6,0x911B,0x0},{0x2F9E7,0x9238,0x0},{0x2F9E8,0x92D7,0x0},{0x2F9E9,0x92D8,0x0},{0x2F9EA,0x927C,0x0},
{0x2F9EB,0x93F9,0x0},{0x2F9EC,0x9415,0x0},{0x2F9ED,0x28BFA,0x0},{0x2F9EE,0x958B,0x0},{0x2F9EF,0x4995,0x0},
{0x2F9F0,0x95B7,0x0},{0x2F9F1,0x28D77,0x0},{0x2F9F2,0x49E6,0x0},{0x2F9F3,0x96C3,0x0},{0x2F9F4,0x5DB2,0x0},
{0x2F9F5,0x9723,0x0},{0x2F9F6,0x29145,0x0},{0x2F9F7,0x2921A,0x0},{0x2F9F8,0x4A6E,0x0},{0x2F9F9,0x4A76,0x0},
{0x2F9FA,0x97E0,0x0},{0x2F9FB,0x2940A,0x0},{0x2F9FC,0x4AB2,0x0},{0x2F9FD,0x29496,0x0},{0x2F9FE,0x980B,0x0},
{0x2F9FF,0x980B,0x0},{0x2FA00,0x9829,0x0},{0x2FA01,0x295B6,0x0},{0x2FA02,0x98E2,0x0},{0x2FA03,0x4B33,0x0},
{0x2FA04,0x9929,0x0},{0x2FA05,0x99A7,0x0},{0x2FA06,0x99C2,0x0},{0x2FA07,0x99FE,0x0},{0x2FA08,0x4BCE,0x0},
{0x2FA09,0x29B30,0x0},{0x2FA0A,0x9B12,0x0},{0x2FA0B,0x9C40,0x0},{0x2FA0C,0x9CFD,0x0},{0x2FA0D,0x4CCE,0x0},
{0x2FA0E,0x4CED,0x0},{0x2FA0F,0x9D67,0x0},{0x2FA10,0x2A0CE,0x0},{0x2FA11,0x4CF8,0x0},{0x2FA12,0x2A105,0x0},
{0x2FA13,0x2A20E,0x0},{0x2FA14,0x2A291,0x0},{0x2FA15,0x9EBB,0x0},{0x2FA16,0x4D56,0x0},{0x2FA17,0x9EF9,0x0},
{0x2FA18,0x9EFE,0x0},{0x2FA19,0x9F05,0x0},{0x2FA1A,0x9F0F,0x0},{0x2FA1B,0x9F16,0x0},{0x2FA1C,0x9F3B,0x0},
{0x2FA1D,0x2A600,0x0},
};
static const uint32_t gk__uni_comp[941][3] = {
{0x3C,0x338,0x226E},{0x3D,0x338,0x2260},{0x3E,0x338,0x226F},{0x41,0x300,0xC0},{0x41,0x301,0xC1},
{0x41,0x302,0xC2},{0x41,0x303,0xC3},{0x41,0x304,0x100},{0x41,0x306,0x102},{0x41,0x307,0x226},
{0x41,0x308,0xC4},{0x41,0x309,0x1EA2},{0x41,0x30A,0xC5},{0x41,0x30C,0x1CD},{0x41,0x30F,0x200},
{0x41,0x311,0x202},{0x41,0x323,0x1EA0},{0x41,0x325,0x1E00},{0x41,0x328,0x104},{0x42,0x307,0x1E02},
{0x42,0x323,0x1E04},{0x42,0x331,0x1E06},{0x43,0x301,0x106},{0x43,0x302,0x108},{0x43,0x307,0x10A},
{0x43,0x30C,0x10C},{0x43,0x327,0xC7},{0x44,0x307,0x1E0A},{0x44,0x30C,0x10E},{0x44,0x323,0x1E0C},
{0x44,0x327,0x1E10},{0x44,0x32D,0x1E12},{0x44,0x331,0x1E0E},{0x45,0x300,0xC8},{0x45,0x301,0xC9},
{0x45,0x302,0xCA},{0x45,0x303,0x1EBC},{0x45,0x304,0x112},{0x45,0x306,0x114},{0x45,0x307,0x116},
{0x45,0x308,0xCB},{0x45,0x309,0x1EBA},{0x45,0x30C,0x11A},{0x45,0x30F,0x204},{0x45,0x311,0x206},
{0x45,0x323,0x1EB8},{0x45,0x327,0x228},{0x45,0x328,0x118},{0x45,0x32D,0x1E18},{0x45,0x330,0x1E1A},
{0x46,0x307,0x1E1E},{0x47,0x301,0x1F4},{0x47,0x302,0x11C},{0x47,0x304,0x1E20},{0x47,0x306,0x11E},
{0x47,0x307,0x120},{0x47,0x30C,0x1E6},{0x47,0x327,0x122},{0x48,0x302,0x124},{0x48,0x307,0x1E22},
{0x48,0x308,0x1E26},{0x48,0x30C,0x21E},{0x48,0x323,0x1E24},{0x48,0x327,0x1E28},{0x48,0x32E,0x1E2A},
{0x49,0x300,0xCC},{0x49,0x301,0xCD},{0x49,0x302,0xCE},{0x49,0x303,0x128},{0x49,0x304,0x12A},
{0x49,0x306,0x12C},{0x49,0x307,0x130},{0x49,0x308,0xCF},{0x49,0x309,0x1EC8},{0x49,0x30C,0x1CF},
{0x49,0x30F,0x208},{0x49,0x311,0x20A},{0x49,0x323,0x1ECA},{0x49,0x328,0x12E},{0x49,0x330,0x1E2C},
{0x4A,0x302,0x134},{0x4B,0x301,0x1E30},{0x4B,0x30C,0x1E8},{0x4B,0x323,0x1E32},{0x4B,0x327,0x136},
{0x4B,0x331,0x1E34},{0x4C,0x301,0x139},{0x4C,0x30C,0x13D},{0x4C,0x323,0x1E36},{0x4C,0x327,0x13B},
{0x4C,0x32D,0x1E3C},{0x4C,0x331,0x1E3A},{0x4D,0x301,0x1E3E},{0x4D,0x307,0x1E40},{0x4D,0x323,0x1E42},
{0x4E,0x300,0x1F8},{0x4E,0x301,0x143},{0x4E,0x303,0xD1},{0x4E,0x307,0x1E44},{0x4E,0x30C,0x147},
{0x4E,0x323,0x1E46},{0x4E,0x327,0x145},{0x4E,0x32D,0x1E4A},{0x4E,0x331,0x1E48},{0x4F,0x300,0xD2},
{0x4F,0x301,0xD3},{0x4F,0x302,0xD4},{0x4F,0x303,0xD5},{0x4F,0x304,0x14C},{0x4F,0x306,0x14E},
{0x4F,0x307,0x22E},{0x4F,0x308,0xD6},{0x4F,0x309,0x1ECE},{0x4F,0x30B,0x150},{0x4F,0x30C,0x1D1},
{0x4F,0x30F,0x20C},{0x4F,0x311,0x20E},{0x4F,0x31B,0x1A0},{0x4F,0x323,0x1ECC},{0x4F,0x328,0x1EA},
{0x50,0x301,0x1E54},{0x50,0x307,0x1E56},{0x52,0x301,0x154},{0x52,0x307,0x1E58},{0x52,0x30C,0x158},
{0x52,0x30F,0x210},{0x52,0x311,0x212},{0x52,0x323,0x1E5A},{0x52,0x327,0x156},{0x52,0x331,0x1E5E},
{0x53,0x301,0x15A},{0x53,0x302,0x15C},{0x53,0x307,0x1E60},{0x53,0x30C,0x160},{0x53,0x323,0x1E62},
{0x53,0x326,0x218},{0x53,0x327,0x15E},{0x54,0x307,0x1E6A},{0x54,0x30C,0x164},{0x54,0x323,0x1E6C},
{0x54,0x326,0x21A},{0x54,0x327,0x162},{0x54,0x32D,0x1E70},{0x54,0x331,0x1E6E},{0x55,0x300,0xD9},
{0x55,0x301,0xDA},{0x55,0x302,0xDB},{0x55,0x303,0x168},{0x55,0x304,0x16A},{0x55,0x306,0x16C},
{0x55,0x308,0xDC},{0x55,0x309,0x1EE6},{0x55,0x30A,0x16E},{0x55,0x30B,0x170},{0x55,0x30C,0x1D3},
{0x55,0x30F,0x214},{0x55,0x311,0x216},{0x55,0x31B,0x1AF},{0x55,0x323,0x1EE4},{0x55,0x324,0x1E72},
{0x55,0x328,0x172},{0x55,0x32D,0x1E76},{0x55,0x330,0x1E74},{0x56,0x303,0x1E7C},{0x56,0x323,0x1E7E},
{0x57,0x300,0x1E80},{0x57,0x301,0x1E82},{0x57,0x302,0x174},{0x57,0x307,0x1E86},{0x57,0x308,0x1E84},
{0x57,0x323,0x1E88},{0x58,0x307,0x1E8A},{0x58,0x308,0x1E8C},{0x59,0x300,0x1EF2},{0x59,0x301,0xDD},
{0x59,0x302,0x176},{0x59,0x303,0x1EF8},{0x59,0x304,0x232},{0x59,0x307,0x1E8E},{0x59,0x308,0x178},
{0x59,0x309,0x1EF6},{0x59,0x323,0x1EF4},{0x5A,0x301,0x179},{0x5A,0x302,0x1E90},{0x5A,0x307,0x17B},
{0x5A,0x30C,0x17D},{0x5A,0x323,0x1E92},{0x5A,0x331,0x1E94},{0x61,0x300,0xE0},{0x61,0x301,0xE1},
{0x61,0x302,0xE2},{0x61,0x303,0xE3},{0x61,0x304,0x101},{0x61,0x306,0x103},{0x61,0x307,0x227},
{0x61,0x308,0xE4},{0x61,0x309,0x1EA3},{0x61,0x30A,0xE5},{0x61,0x30C,0x1CE},{0x61,0x30F,0x201},
{0x61,0x311,0x203},{0x61,0x323,0x1EA1},{0x61,0x325,0x1E01},{0x61,0x328,0x105},{0x62,0x307,0x1E03},
{0x62,0x323,0x1E05},{0x62,0x331,0x1E07},{0x63,0x301,0x107},{0x63,0x302,0x109},{0x63,0x307,0x10B},
{0x63,0x30C,0x10D},{0x63,0x327,0xE7},{0x64,0x307,0x1E0B},{0x64,0x30C,0x10F},{0x64,0x323,0x1E0D},
{0x64,0x327,0x1E11},{0x64,0x32D,0x1E13},{0x64,0x331,0x1E0F},{0x65,0x300,0xE8},{0x65,0x301,0xE9},
{0x65,0x302,0xEA},{0x65,0x303,0x1EBD},{0x65,0x304,0x113},{0x65,0x306,0x115},{0x65,0x307,0x117},
{0x65,0x308,0xEB},{0x65,0x309,0x1EBB},{0x65,0x30C,0x11B},{0x65,0x30F,0x205},{0x65,0x311,0x207},
{0x65,0x323,0x1EB9},{0x65,0x327,0x229},{0x65,0x328,0x119},{0x65,0x32D,0x1E19},{0x65,0x330,0x1E1B},
{0x66,0x307,0x1E1F},{0x67,0x301,0x1F5},{0x67,0x302,0x11D},{0x67,0x304,0x1E21},{0x67,0x306,0x11F},
{0x67,0x307,0x121},{0x67,0x30C,0x1E7},{0x67,0x327,0x123},{0x68,0x302,0x125},{0x68,0x307,0x1E23},
{0x68,0x308,0x1E27},{0x68,0x30C,0x21F},{0x68,0x323,0x1E25},{0x68,0x327,0x1E29},{0x68,0x32E,0x1E2B},
{0x68,0x331,0x1E96},{0x69,0x300,0xEC},{0x69,0x301,0xED},{0x69,0x302,0xEE},{0x69,0x303,0x129},
{0x69,0x304,0x12B},{0x69,0x306,0x12D},{0x69,0x308,0xEF},{0x69,0x309,0x1EC9},{0x69,0x30C,0x1D0},
{0x69,0x30F,0x209},{0x69,0x311,0x20B},{0x69,0x323,0x1ECB},{0x69,0x328,0x12F},{0x69,0x330,0x1E2D},
{0x6A,0x302,0x135},{0x6A,0x30C,0x1F0},{0x6B,0x301,0x1E31},{0x6B,0x30C,0x1E9},{0x6B,0x323,0x1E33},
{0x6B,0x327,0x137},{0x6B,0x331,0x1E35},{0x6C,0x301,0x13A},{0x6C,0x30C,0x13E},{0x6C,0x323,0x1E37},
{0x6C,0x327,0x13C},{0x6C,0x32D,0x1E3D},{0x6C,0x331,0x1E3B},{0x6D,0x301,0x1E3F},{0x6D,0x307,0x1E41},
{0x6D,0x323,0x1E43},{0x6E,0x300,0x1F9},{0x6E,0x301,0x144},{0x6E,0x303,0xF1},{0x6E,0x307,0x1E45},
{0x6E,0x30C,0x148},{0x6E,0x323,0x1E47},{0x6E,0x327,0x146},{0x6E,0x32D,0x1E4B},{0x6E,0x331,0x1E49},
{0x6F,0x300,0xF2},{0x6F,0x301,0xF3},{0x6F,0x302,0xF4},{0x6F,0x303,0xF5},{0x6F,0x304,0x14D},
{0x6F,0x306,0x14F},{0x6F,0x307,0x22F},{0x6F,0x308,0xF6},{0x6F,0x309,0x1ECF},{0x6F,0x30B,0x151},
{0x6F,0x30C,0x1D2},{0x6F,0x30F,0x20D},{0x6F,0x311,0x20F},{0x6F,0x31B,0x1A1},{0x6F,0x323,0x1ECD},
{0x6F,0x328,0x1EB},{0x70,0x301,0x1E55},{0x70,0x307,0x1E57},{0x72,0x301,0x155},{0x72,0x307,0x1E59},
{0x72,0x30C,0x159},{0x72,0x30F,0x211},{0x72,0x311,0x213},{0x72,0x323,0x1E5B},{0x72,0x327,0x157},
{0x72,0x331,0x1E5F},{0x73,0x301,0x15B},{0x73,0x302,0x15D},{0x73,0x307,0x1E61},{0x73,0x30C,0x161},
{0x73,0x323,0x1E63},{0x73,0x326,0x219},{0x73,0x327,0x15F},{0x74,0x307,0x1E6B},{0x74,0x308,0x1E97},
{0x74,0x30C,0x165},{0x74,0x323,0x1E6D},{0x74,0x326,0x21B},{0x74,0x327,0x163},{0x74,0x32D,0x1E71},
{0x74,0x331,0x1E6F},{0x75,0x300,0xF9},{0x75,0x301,0xFA},{0x75,0x302,0xFB},{0x75,0x303,0x169},
{0x75,0x304,0x16B},{0x75,0x306,0x16D},{0x75,0x308,0xFC},{0x75,0x309,0x1EE7},{0x75,0x30A,0x16F},
{0x75,0x30B,0x171},{0x75,0x30C,0x1D4},{0x75,0x30F,0x215},{0x75,0x311,0x217},{0x75,0x31B,0x1B0},
{0x75,0x323,0x1EE5},{0x75,0x324,0x1E73},{0x75,0x328,0x173},{0x75,0x32D,0x1E77},{0x75,0x330,0x1E75},
{0x76,0x303,0x1E7D},{0x76,0x323,0x1E7F},{0x77,0x300,0x1E81},{0x77,0x301,0x1E83},{0x77,0x302,0x175},
{0x77,0x307,0x1E87},{0x77,0x308,0x1E85},{0x77,0x30A,0x1E98},{0x77,0x323,0x1E89},{0x78,0x307,0x1E8B},
{0x78,0x308,0x1E8D},{0x79,0x300,0x1EF3},{0x79,0x301,0xFD},{0x79,0x302,0x177},{0x79,0x303,0x1EF9},
{0x79,0x304,0x233},{0x79,0x307,0x1E8F},{0x79,0x308,0xFF},{0x79,0x309,0x1EF7},{0x79,0x30A,0x1E99},
{0x79,0x323,0x1EF5},{0x7A,0x301,0x17A},{0x7A,0x302,0x1E91},{0x7A,0x307,0x17C},{0x7A,0x30C,0x17E},
{0x7A,0x323,0x1E93},{0x7A,0x331,0x1E95},{0xA8,0x300,0x1FED},{0xA8,0x301,0x385},{0xA8,0x342,0x1FC1},
{0xC2,0x300,0x1EA6},{0xC2,0x301,0x1EA4},{0xC2,0x303,0x1EAA},{0xC2,0x309,0x1EA8},{0xC4,0x304,0x1DE},
{0xC5,0x301,0x1FA},{0xC6,0x301,0x1FC},{0xC6,0x304,0x1E2},{0xC7,0x301,0x1E08},{0xCA,0x300,0x1EC0},
{0xCA,0x301,0x1EBE},{0xCA,0x303,0x1EC4},{0xCA,0x309,0x1EC2},{0xCF,0x301,0x1E2E},{0xD4,0x300,0x1ED2},
{0xD4,0x301,0x1ED0},{0xD4,0x303,0x1ED6},{0xD4,0x309,0x1ED4},{0xD5,0x301,0x1E4C},{0xD5,0x304,0x22C},
{0xD5,0x308,0x1E4E},{0xD6,0x304,0x22A},{0xD8,0x301,0x1FE},{0xDC,0x300,0x1DB},{0xDC,0x301,0x1D7},
{0xDC,0x304,0x1D5},{0xDC,0x30C,0x1D9},{0xE2,0x300,0x1EA7},{0xE2,0x301,0x1EA5},{0xE2,0x303,0x1EAB},
{0xE2,0x309,0x1EA9},{0xE4,0x304,0x1DF},{0xE5,0x301,0x1FB},{0xE6,0x301,0x1FD},{0xE6,0x304,0x1E3},
{0xE7,0x301,0x1E09},{0xEA,0x300,0x1EC1},{0xEA,0x301,0x1EBF},{0xEA,0x303,0x1EC5},{0xEA,0x309,0x1EC3},
{0xEF,0x301,0x1E2F},{0xF4,0x300,0x1ED3},{0xF4,0x301,0x1ED1},{0xF4,0x303,0x1ED7},{0xF4,0x309,0x1ED5},
{0xF5,0x301,0x1E4D},{0xF5,0x304,0x22D},{0xF5,0x308,0x1E4F},{0xF6,0x304,0x22B},{0xF8,0x301,0x1FF},
{0xFC,0x300,0x1DC},{0xFC,0x301,0x1D8},{0xFC,0x304,0x1D6},{0xFC,0x30C,0x1DA},{0x102,0x300,0x1EB0},
{0x102,0x301,0x1EAE},{0x102,0x303,0x1EB4},{0x102,0x309,0x1EB2},{0x103,0x300,0x1EB1},{0x103,0x301,0x1EAF},
{0x103,0x303,0x1EB5},{0x103,0x309,0x1EB3},{0x112,0x300,0x1E14},{0x112,0x301,0x1E16},{0x113,0x300,0x1E15},
{0x113,0x301,0x1E17},{0x14C,0x300,0x1E50},{0x14C,0x301,0x1E52},{0x14D,0x300,0x1E51},{0x14D,0x301,0x1E53},
{0x15A,0x307,0x1E64},{0x15B,0x307,0x1E65},{0x160,0x307,0x1E66},{0x161,0x307,0x1E67},{0x168,0x301,0x1E78},
{0x169,0x301,0x1E79},{0x16A,0x308,0x1E7A},{0x16B,0x308,0x1E7B},{0x17F,0x307,0x1E9B},{0x1A0,0x300,0x1EDC},
{0x1A0,0x301,0x1EDA},{0x1A0,0x303,0x1EE0},{0x1A0,0x309,0x1EDE},{0x1A0,0x323,0x1EE2},{0x1A1,0x300,0x1EDD},
{0x1A1,0x301,0x1EDB},{0x1A1,0x303,0x1EE1},{0x1A1,0x309,0x1EDF},{0x1A1,0x323,0x1EE3},{0x1AF,0x300,0x1EEA},
{0x1AF,0x301,0x1EE8},{0x1AF,0x303,0x1EEE},{0x1AF,0x309,0x1EEC},{0x1AF,0x323,0x1EF0},{0x1B0,0x300,0x1EEB},
{0x1B0,0x301,0x1EE9},{0x1B0,0x303,0x1EEF},{0x1B0,0x309,0x1EED},{0x1B0,0x323,0x1EF1},{0x1B7,0x30C,0x1EE},
{0x1EA,0x304,0x1EC},{0x1EB,0x304,0x1ED},{0x226,0x304,0x1E0},{0x227,0x304,0x1E1},{0x228,0x306,0x1E1C},
{0x229,0x306,0x1E1D},{0x22E,0x304,0x230},{0x22F,0x304,0x231},{0x292,0x30C,0x1EF},{0x391,0x300,0x1FBA},
{0x391,0x301,0x386},{0x391,0x304,0x1FB9},{0x391,0x306,0x1FB8},{0x391,0x313,0x1F08},{0x391,0x314,0x1F09},
{0x391,0x345,0x1FBC},{0x395,0x300,0x1FC8},{0x395,0x301,0x388},{0x395,0x313,0x1F18},{0x395,0x314,0x1F19},
{0x397,0x300,0x1FCA},{0x397,0x301,0x389},{0x397,0x313,0x1F28},{0x397,0x314,0x1F29},{0x397,0x345,0x1FCC},
{0x399,0x300,0x1FDA},{0x399,0x301,0x38A},{0x399,0x304,0x1FD9},{0x399,0x306,0x1FD8},{0x399,0x308,0x3AA},
{0x399,0x313,0x1F38},{0x399,0x314,0x1F39},{0x39F,0x300,0x1FF8},{0x39F,0x301,0x38C},{0x39F,0x313,0x1F48},
{0x39F,0x314,0x1F49},{0x3A1,0x314,0x1FEC},{0x3A5,0x300,0x1FEA},{0x3A5,0x301,0x38E},{0x3A5,0x304,0x1FE9},
{0x3A5,0x306,0x1FE8},{0x3A5,0x308,0x3AB},{0x3A5,0x314,0x1F59},{0x3A9,0x300,0x1FFA},{0x3A9,0x301,0x38F},
{0x3A9,0x313,0x1F68},{0x3A9,0x314,0x1F69},{0x3A9,0x345,0x1FFC},{0x3AC,0x345,0x1FB4},{0x3AE,0x345,0x1FC4},
{0x3B1,0x300,0x1F70},{0x3B1,0x301,0x3AC},{0x3B1,0x304,0x1FB1},{0x3B1,0x306,0x1FB0},{0x3B1,0x313,0x1F00},
{0x3B1,0x314,0x1F01},{0x3B1,0x342,0x1FB6},{0x3B1,0x345,0x1FB3},{0x3B5,0x300,0x1F72},{0x3B5,0x301,0x3AD},
{0x3B5,0x313,0x1F10},{0x3B5,0x314,0x1F11},{0x3B7,0x300,0x1F74},{0x3B7,0x301,0x3AE},{0x3B7,0x313,0x1F20},
{0x3B7,0x314,0x1F21},{0x3B7,0x342,0x1FC6},{0x3B7,0x345,0x1FC3},{0x3B9,0x300,0x1F76},{0x3B9,0x301,0x3AF},
{0x3B9,0x304,0x1FD1},{0x3B9,0x306,0x1FD0},{0x3B9,0x308,0x3CA},{0x3B9,0x313,0x1F30},{0x3B9,0x314,0x1F31},
{0x3B9,0x342,0x1FD6},{0x3BF,0x300,0x1F78},{0x3BF,0x301,0x3CC},{0x3BF,0x313,0x1F40},{0x3BF,0x314,0x1F41},
{0x3C1,0x313,0x1FE4},{0x3C1,0x314,0x1FE5},{0x3C5,0x300,0x1F7A},{0x3C5,0x301,0x3CD},{0x3C5,0x304,0x1FE1},
{0x3C5,0x306,0x1FE0},{0x3C5,0x308,0x3CB},{0x3C5,0x313,0x1F50},{0x3C5,0x314,0x1F51},{0x3C5,0x342,0x1FE6},
{0x3C9,0x300,0x1F7C},{0x3C9,0x301,0x3CE},{0x3C9,0x313,0x1F60},{0x3C9,0x314,0x1F61},{0x3C9,0x342,0x1FF6},
{0x3C9,0x345,0x1FF3},{0x3CA,0x300,0x1FD2},{0x3CA,0x301,0x390},{0x3CA,0x342,0x1FD7},{0x3CB,0x300,0x1FE2},
{0x3CB,0x301,0x3B0},{0x3CB,0x342,0x1FE7},{0x3CE,0x345,0x1FF4},{0x3D2,0x301,0x3D3},{0x3D2,0x308,0x3D4},
{0x406,0x308,0x407},{0x410,0x306,0x4D0},{0x410,0x308,0x4D2},{0x413,0x301,0x403},{0x415,0x300,0x400},
{0x415,0x306,0x4D6},{0x415,0x308,0x401},{0x416,0x306,0x4C1},{0x416,0x308,0x4DC},{0x417,0x308,0x4DE},
{0x418,0x300,0x40D},{0x418,0x304,0x4E2},{0x418,0x306,0x419},{0x418,0x308,0x4E4},{0x41A,0x301,0x40C},
{0x41E,0x308,0x4E6},{0x423,0x304,0x4EE},{0x423,0x306,0x40E},{0x423,0x308,0x4F0},{0x423,0x30B,0x4F2},
{0x427,0x308,0x4F4},{0x42B,0x308,0x4F8},{0x42D,0x308,0x4EC},{0x430,0x306,0x4D1},{0x430,0x308,0x4D3},
{0x433,0x301,0x453},{0x435,0x300,0x450},{0x435,0x306,0x4D7},{0x435,0x308,0x451},{0x436,0x306,0x4C2},
{0x436,0x308,0x4DD},{0x437,0x308,0x4DF},{0x438,0x300,0x45D},{0x438,0x304,0x4E3},{0x438,0x306,0x439},
{0x438,0x308,0x4E5},{0x43A,0x301,0x45C},{0x43E,0x308,0x4E7},{0x443,0x304,0x4EF},{0x443,0x306,0x45E},
{0x443,0x308,0x4F1},{0x443,0x30B,0x4F3},{0x447,0x308,0x4F5},{0x44B,0x308,0x4F9},{0x44D,0x308,0x4ED},
{0x456,0x308,0x457},{0x474,0x30F,0x476},{0x475,0x30F,0x477},{0x4D8,0x308,0x4DA},{0x4D9,0x308,0x4DB},
{0x4E8,0x308,0x4EA},{0x4E9,0x308,0x4EB},{0x627,0x653,0x622},{0x627,0x654,0x623},{0x627,0x655,0x625},
{0x648,0x654,0x624},{0x64A,0x654,0x626},{0x6C1,0x654,0x6C2},{0x6D2,0x654,0x6D3},{0x6D5,0x654,0x6C0},
{0x928,0x93C,0x929},{0x930,0x93C,0x931},{0x933,0x93C,0x934},{0x9C7,0x9BE,0x9CB},{0x9C7,0x9D7,0x9CC},
{0xB47,0xB3E,0xB4B},{0xB47,0xB56,0xB48},{0xB47,0xB57,0xB4C},{0xB92,0xBD7,0xB94},{0xBC6,0xBBE,0xBCA},
{0xBC6,0xBD7,0xBCC},{0xBC7,0xBBE,0xBCB},{0xC46,0xC56,0xC48},{0xCBF,0xCD5,0xCC0},{0xCC6,0xCC2,0xCCA},
{0xCC6,0xCD5,0xCC7},{0xCC6,0xCD6,0xCC8},{0xCCA,0xCD5,0xCCB},{0xD46,0xD3E,0xD4A},{0xD46,0xD57,0xD4C},
{0xD47,0xD3E,0xD4B},{0xDD9,0xDCA,0xDDA},{0xDD9,0xDCF,0xDDC},{0xDD9,0xDDF,0xDDE},{0xDDC,0xDCA,0xDDD},
{0x1025,0x102E,0x1026},{0x1B05,0x1B35,0x1B06},{0x1B07,0x1B35,0x1B08},{0x1B09,0x1B35,0x1B0A},{0x1B0B,0x1B35,0x1B0C},
{0x1B0D,0x1B35,0x1B0E},{0x1B11,0x1B35,0x1B12},{0x1B3A,0x1B35,0x1B3B},{0x1B3C,0x1B35,0x1B3D},{0x1B3E,0x1B35,0x1B40},
{0x1B3F,0x1B35,0x1B41},{0x1B42,0x1B35,0x1B43},{0x1E36,0x304,0x1E38},{0x1E37,0x304,0x1E39},{0x1E5A,0x304,0x1E5C},
{0x1E5B,0x304,0x1E5D},{0x1E62,0x307,0x1E68},{0x1E63,0x307,0x1E69},{0x1EA0,0x302,0x1EAC},{0x1EA0,0x306,0x1EB6},
{0x1EA1,0x302,0x1EAD},{0x1EA1,0x306,0x1EB7},{0x1EB8,0x302,0x1EC6},{0x1EB9,0x302,0x1EC7},{0x1ECC,0x302,0x1ED8},
{0x1ECD,0x302,0x1ED9},{0x1F00,0x300,0x1F02},{0x1F00,0x301,0x1F04},{0x1F00,0x342,0x1F06},{0x1F00,0x345,0x1F80},
{0x1F01,0x300,0x1F03},{0x1F01,0x301,0x1F05},{0x1F01,0x342,0x1F07},{0x1F01,0x345,0x1F81},{0x1F02,0x345,0x1F82},
{0x1F03,0x345,0x1F83},{0x1F04,0x345,0x1F84},{0x1F05,0x345,0x1F85},{0x1F06,0x345,0x1F86},{0x1F07,0x345,0x1F87},
{0x1F08,0x300,0x1F0A},{0x1F08,0x301,0x1F0C},{0x1F08,0x342,0x1F0E},{0x1F08,0x345,0x1F88},{0x1F09,0x300,0x1F0B},
{0x1F09,0x301,0x1F0D},{0x1F09,0x342,0x1F0F},{0x1F09,0x345,0x1F89},{0x1F0A,0x345,0x1F8A},{0x1F0B,0x345,0x1F8B},
{0x1F0C,0x345,0x1F8C},{0x1F0D,0x345,0x1F8D},{0x1F0E,0x345,0x1F8E},{0x1F0F,0x345,0x1F8F},{0x1F10,0x300,0x1F12},
{0x1F10,0x301,0x1F14},{0x1F11,0x300,0x1F13},{0x1F11,0x301,0x1F15},{0x1F18,0x300,0x1F1A},{0x1F18,0x301,0x1F1C},
{0x1F19,0x300,0x1F1B},{0x1F19,0x301,0x1F1D},{0x1F20,0x300,0x1F22},{0x1F20,0x301,0x1F24},{0x1F20,0x342,0x1F26},
{0x1F20,0x345,0x1F90},{0x1F21,0x300,0x1F23},{0x1F21,0x301,0x1F25},{0x1F21,0x342,0x1F27},{0x1F21,0x345,0x1F91},
{0x1F22,0x345,0x1F92},{0x1F23,0x345,0x1F93},{0x1F24,0x345,0x1F94},{0x1F25,0x345,0x1F95},{0x1F26,0x345,0x1F96},
{0x1F27,0x345,0x1F97},{0x1F28,0x300,0x1F2A},{0x1F28,0x301,0x1F2C},{0x1F28,0x342,0x1F2E},{0x1F28,0x345,0x1F98},
{0x1F29,0x300,0x1F2B},{0x1F29,0x301,0x1F2D},{0x1F29,0x342,0x1F2F},{0x1F29,0x345,0x1F99},{0x1F2A,0x345,0x1F9A},
{0x1F2B,0x345,0x1F9B},{0x1F2C,0x345,0x1F9C},{0x1F2D,0x345,0x1F9D},{0x1F2E,0x345,0x1F9E},{0x1F2F,0x345,0x1F9F},
{0x1F30,0x300,0x1F32},{0x1F30,0x301,0x1F34},{0x1F30,0x342,0x1F36},{0x1F31,0x300,0x1F33},{0x1F31,0x301,0x1F35},
{0x1F31,0x342,0x1F37},{0x1F38,0x300,0x1F3A},{0x1F38,0x301,0x1F3C},{0x1F38,0x342,0x1F3E},{0x1F39,0x300,0x1F3B},
{0x1F39,0x301,0x1F3D},{0x1F39,0x342,0x1F3F},{0x1F40,0x300,0x1F42},{0x1F40,0x301,0x1F44},{0x1F41,0x300,0x1F43},
{0x1F41,0x301,0x1F45},{0x1F48,0x300,0x1F4A},{0x1F48,0x301,0x1F4C},{0x1F49,0x300,0x1F4B},{0x1F49,0x301,0x1F4D},
{0x1F50,0x300,0x1F52},{0x1F50,0x301,0x1F54},{0x1F50,0x342,0x1F56},{0x1F51,0x300,0x1F53},{0x1F51,0x301,0x1F55},
{0x1F51,0x342,0x1F57},{0x1F59,0x300,0x1F5B},{0x1F59,0x301,0x1F5D},{0x1F59,0x342,0x1F5F},{0x1F60,0x300,0x1F62},
{0x1F60,0x301,0x1F64},{0x1F60,0x342,0x1F66},{0x1F60,0x345,0x1FA0},{0x1F61,0x300,0x1F63},{0x1F61,0x301,0x1F65},
{0x1F61,0x342,0x1F67},{0x1F61,0x345,0x1FA1},{0x1F62,0x345,0x1FA2},{0x1F63,0x345,0x1FA3},{0x1F64,0x345,0x1FA4},
{0x1F65,0x345,0x1FA5},{0x1F66,0x345,0x1FA6},{0x1F67,0x345,0x1FA7},{0x1F68,0x300,0x1F6A},{0x1F68,0x301,0x1F6C},
{0x1F68,0x342,0x1F6E},{0x1F68,0x345,0x1FA8},{0x1F69,0x300,0x1F6B},{0x1F69,0x301,0x1F6D},{0x1F69,0x342,0x1F6F},
{0x1F69,0x345,0x1FA9},{0x1F6A,0x345,0x1FAA},{0x1F6B,0x345,0x1FAB},{0x1F6C,0x345,0x1FAC},{0x1F6D,0x345,0x1FAD},
{0x1F6E,0x345,0x1FAE},{0x1F6F,0x345,0x1FAF},{0x1F70,0x345,0x1FB2},{0x1F74,0x345,0x1FC2},{0x1F7C,0x345,0x1FF2},
{0x1FB6,0x345,0x1FB7},{0x1FBF,0x300,0x1FCD},{0x1FBF,0x301,0x1FCE},{0x1FBF,0x342,0x1FCF},{0x1FC6,0x345,0x1FC7},
{0x1FF6,0x345,0x1FF7},{0x1FFE,0x300,0x1FDD},{0x1FFE,0x301,0x1FDE},{0x1FFE,0x342,0x1FDF},{0x2190,0x338,0x219A},
{0x2192,0x338,0x219B},{0x2194,0x338,0x21AE},{0x21D0,0x338,0x21CD},{0x21D2,0x338,0x21CF},{0x21D4,0x338,0x21CE},
{0x2203,0x338,0x2204},{0x2208,0x338,0x2209},{0x220B,0x338,0x220C},{0x2223,0x338,0x2224},{0x2225,0x338,0x2226},
{0x223C,0x338,0x2241},{0x2243,0x338,0x2244},{0x2245,0x338,0x2247},{0x2248,0x338,0x2249},{0x224D,0x338,0x226D},
{0x2261,0x338,0x2262},{0x2264,0x338,0x2270},{0x2265,0x338,0x2271},{0x2272,0x338,0x2274},{0x2273,0x338,0x2275},
{0x2276,0x338,0x2278},{0x2277,0x338,0x2279},{0x227A,0x338,0x2280},{0x227B,0x338,0x2281},{0x227C,0x338,0x22E0},
{0x227D,0x338,0x22E1},{0x2282,0x338,0x2284},{0x2283,0x338,0x2285},{0x2286,0x338,0x2288},{0x2287,0x338,0x2289},
{0x2291,0x338,0x22E2},{0x2292,0x338,0x22E3},{0x22A2,0x338,0x22AC},{0x22A8,0x338,0x22AD},{0x22A9,0x338,0x22AE},
{0x22AB,0x338,0x22AF},{0x22B2,0x338,0x22EA},{0x22B3,0x338,0x22EB},{0x22B4,0x338,0x22EC},{0x22B5,0x338,0x22ED},
{0x3046,0x3099,0x3094},{0x304B,0x3099,0x304C},{0x304D,0x3099,0x304E},{0x304F,0x3099,0x3050},{0x3051,0x3099,0x3052},
{0x3053,0x3099,0x3054},{0x3055,0x3099,0x3056},{0x3057,0x3099,0x3058},{0x3059,0x3099,0x305A},{0x305B,0x3099,0x305C},
{0x305D,0x3099,0x305E},{0x305F,0x3099,0x3060},{0x3061,0x3099,0x3062},{0x3064,0x3099,0x3065},{0x3066,0x3099,0x3067},
{0x3068,0x3099,0x3069},{0x306F,0x3099,0x3070},{0x306F,0x309A,0x3071},{0x3072,0x3099,0x3073},{0x3072,0x309A,0x3074},
{0x3075,0x3099,0x3076},{0x3075,0x309A,0x3077},{0x3078,0x3099,0x3079},{0x3078,0x309A,0x307A},{0x307B,0x3099,0x307C},
{0x307B,0x309A,0x307D},{0x309D,0x3099,0x309E},{0x30A6,0x3099,0x30F4},{0x30AB,0x3099,0x30AC},{0x30AD,0x3099,0x30AE},
{0x30AF,0x3099,0x30B0},{0x30B1,0x3099,0x30B2},{0x30B3,0x3099,0x30B4},{0x30B5,0x3099,0x30B6},{0x30B7,0x3099,0x30B8},
{0x30B9,0x3099,0x30BA},{0x30BB,0x3099,0x30BC},{0x30BD,0x3099,0x30BE},{0x30BF,0x3099,0x30C0},{0x30C1,0x3099,0x30C2},
{0x30C4,0x3099,0x30C5},{0x30C6,0x3099,0x30C7},{0x30C8,0x3099,0x30C9},{0x30CF,0x3099,0x30D0},{0x30CF,0x309A,0x30D1},
{0x30D2,0x3099,0x30D3},{0x30D2,0x309A,0x30D4},{0x30D5,0x3099,0x30D6},{0x30D5,0x309A,0x30D7},{0x30D8,0x3099,0x30D9},
{0x30D8,0x309A,0x30DA},{0x30DB,0x3099,0x30DC},{0x30DB,0x309A,0x30DD},{0x30EF,0x3099,0x30F7},{0x30F0,0x3099,0x30F8},
{0x30F1,0x3099,0x30F9},{0x30F2,0x3099,0x30FA},{0x30FD,0x3099,0x30FE},{0x11099,0x110BA,0x1109A},{0x1109B,0x110BA,0x1109C},
{0x110A5,0x110BA,0x110AB},{0x11131,0x11127,0x1112E},{0x11132,0x11127,0x1112F},{0x11347,0x1133E,0x1134B},{0x11347,0x11357,0x1134C},
{0x114B9,0x114B0,0x114BC},{0x114B9,0x114BA,0x114BB},{0x114B9,0x114BD,0x114BE},{0x115B8,0x115AF,0x115BA},{0x115B9,0x115AF,0x115BB},
{0x11935,0x11930,0x11938},
};
static const uint32_t gk__uni_nfcqc[112][2] = {
{0x300,0x304},{0x306,0x30C},{0x30F,0x30F},{0x311,0x311},{0x313,0x314},{0x31B,0x31B},
{0x323,0x328},{0x32D,0x32E},{0x330,0x331},{0x338,0x338},{0x340,0x345},{0x374,0x374},
{0x37E,0x37E},{0x387,0x387},{0x653,0x655},{0x93C,0x93C},{0x958,0x95F},{0x9BE,0x9BE},
{0x9D7,0x9D7},{0x9DC,0x9DD},{0x9DF,0x9DF},{0xA33,0xA33},{0xA36,0xA36},{0xA59,0xA5B},
{0xA5E,0xA5E},{0xB3E,0xB3E},{0xB56,0xB57},{0xB5C,0xB5D},{0xBBE,0xBBE},{0xBD7,0xBD7},
{0xC56,0xC56},{0xCC2,0xCC2},{0xCD5,0xCD6},{0xD3E,0xD3E},{0xD57,0xD57},{0xDCA,0xDCA},
{0xDCF,0xDCF},{0xDDF,0xDDF},{0xF43,0xF43},{0xF4D,0xF4D},{0xF52,0xF52},{0xF57,0xF57},
{0xF5C,0xF5C},{0xF69,0xF69},{0xF73,0xF73},{0xF75,0xF76},{0xF78,0xF78},{0xF81,0xF81},
{0xF93,0xF93},{0xF9D,0xF9D},{0xFA2,0xFA2},{0xFA7,0xFA7},{0xFAC,0xFAC},{0xFB9,0xFB9},
{0x102E,0x102E},{0x1161,0x1175},{0x11A8,0x11C2},{0x1B35,0x1B35},{0x1F71,0x1F71},{0x1F73,0x1F73},
{0x1F75,0x1F75},{0x1F77,0x1F77},{0x1F79,0x1F79},{0x1F7B,0x1F7B},{0x1F7D,0x1F7D},{0x1FBB,0x1FBB},
{0x1FBE,0x1FBE},{0x1FC9,0x1FC9},{0x1FCB,0x1FCB},{0x1FD3,0x1FD3},{0x1FDB,0x1FDB},{0x1FE3,0x1FE3},
{0x1FEB,0x1FEB},{0x1FEE,0x1FEF},{0x1FF9,0x1FF9},{0x1FFB,0x1FFB},{0x1FFD,0x1FFD},{0x2000,0x2001},
{0x2126,0x2126},{0x212A,0x212B},{0x2329,0x232A},{0x2ADC,0x2ADC},{0x3099,0x309A},{0xF900,0xFA0D},
{0xFA10,0xFA10},{0xFA12,0xFA12},{0xFA15,0xFA1E},{0xFA20,0xFA20},{0xFA22,0xFA22},{0xFA25,0xFA26},
{0xFA2A,0xFA6D},{0xFA70,0xFAD9},{0xFB1D,0xFB1D},{0xFB1F,0xFB1F},{0xFB2A,0xFB36},{0xFB38,0xFB3C},
{0xFB3E,0xFB3E},{0xFB40,0xFB41},{0xFB43,0xFB44},{0xFB46,0xFB4E},{0x110BA,0x110BA},{0x11127,0x11127},
{0x1133E,0x1133E},{0x11357,0x11357},{0x114B0,0x114B0},{0x114BA,0x114BA},{0x114BD,0x114BD},{0x115AF,0x115AF},
{0x11930,0x11930},{0x1D15E,0x1D164},{0x1D1BB,0x1D1C0},{0x2F800,0x2FA1D},
};
/* GK__UNICODE_TABLES_END */

enum { GK__UNI_OTHER = 0, GK__UNI_L = 1, GK__UNI_N = 2, GK__UNI_WS = 3, GK__UNI_M = 4 };

static int gk__uni_class(uint32_t c) {
    size_t lo = 0, hi = sizeof(gk__uni_cls) / sizeof(gk__uni_cls[0]);
    if (c < 0x80) {
        if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return GK__UNI_L;
        if (c >= '0' && c <= '9') return GK__UNI_N;
        if (c == ' ' || (c >= 9 && c <= 13)) return GK__UNI_WS;
        return GK__UNI_OTHER;
    }
    if (c > 0x10FFFF) return GK__UNI_OTHER; /* invalid byte marker */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c < gk__uni_cls[mid][0]) hi = mid;
        else if (c > (gk__uni_cls[mid][1] >> 3)) lo = mid + 1;
        else return (int)(gk__uni_cls[mid][1] & 7);
    }
    return GK__UNI_OTHER;
}

static unsigned gk__uni_ccc_of(uint32_t c) {
    size_t lo = 0, hi = sizeof(gk__uni_ccc) / sizeof(gk__uni_ccc[0]);
    if (c < 0x300) return 0;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c < gk__uni_ccc[mid][0]) hi = mid;
        else if (c > (gk__uni_ccc[mid][1] >> 8)) lo = mid + 1;
        else return gk__uni_ccc[mid][1] & 0xFF;
    }
    return 0;
}

static int gk__uni_nfc_qc_yes(uint32_t c) {
    size_t lo = 0, hi = sizeof(gk__uni_nfcqc) / sizeof(gk__uni_nfcqc[0]);
    if (c < 0x300) return 1;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c < gk__uni_nfcqc[mid][0]) hi = mid;
        else if (c > gk__uni_nfcqc[mid][1]) lo = mid + 1;
        else return 0;
    }
    return 1;
}

/* one-level canonical decomposition; returns 0 if none */
static int gk__uni_decomp1(uint32_t c, uint32_t *a, uint32_t *b) {
    size_t lo = 0, hi = sizeof(gk__uni_dec) / sizeof(gk__uni_dec[0]);
    if (c < 0xC0) return 0;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c < gk__uni_dec[mid][0]) hi = mid;
        else if (c > gk__uni_dec[mid][0]) lo = mid + 1;
        else {
            *a = gk__uni_dec[mid][1];
            *b = gk__uni_dec[mid][2];
            return 1;
        }
    }
    return 0;
}

static uint32_t gk__uni_compose(uint32_t a, uint32_t b) {
    size_t lo = 0, hi = sizeof(gk__uni_comp) / sizeof(gk__uni_comp[0]);
    /* Hangul */
    if (a >= 0x1100 && a < 0x1100 + 19 && b >= 0x1161 && b < 0x1161 + 21)
        return 0xAC00 + ((a - 0x1100) * 21 + (b - 0x1161)) * 28;
    if (a >= 0xAC00 && a < 0xAC00 + 11172 && (a - 0xAC00) % 28 == 0 && b > 0x11A7 && b < 0x11A7 + 28)
        return a + (b - 0x11A7);
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const uint32_t *r = gk__uni_comp[mid];
        if (a < r[0] || (a == r[0] && b < r[1])) hi = mid;
        else if (a > r[0] || b > r[1]) lo = mid + 1;
        else return r[2];
    }
    return 0;
}

/* Full canonical decomposition of c appended to *v. Invalid-byte markers
   (values >= 0x110000) pass through. */
static int gk__uni_decomp_full(uint32_t c, uint32_t **v, size_t *n, size_t *cap) {
    uint32_t a, b;
    if (c >= 0xAC00 && c < 0xAC00 + 11172) {
        uint32_t s = c - 0xAC00, l = 0x1100 + s / 588, vv = 0x1161 + (s % 588) / 28, t = 0x11A7 + s % 28;
        if (!gk__u_grow((void **)v, cap, *n + 3, sizeof(uint32_t))) return 0;
        (*v)[(*n)++] = l;
        (*v)[(*n)++] = vv;
        if (t != 0x11A7) (*v)[(*n)++] = t;
        return 1;
    }
    if (c < 0x110000 && gk__uni_decomp1(c, &a, &b)) {
        if (!gk__uni_decomp_full(a, v, n, cap)) return 0;
        if (b && !gk__uni_decomp_full(b, v, n, cap)) return 0;
        return 1;
    }
    if (!gk__u_grow((void **)v, cap, *n + 1, sizeof(uint32_t))) return 0;
    (*v)[(*n)++] = c;
    return 1;
}

/* Is text[0..n) already NFC? (quick check: all NFC_QC=Yes and ccc ordered) */
static int gk__uni_nfc_quick_yes(const unsigned char *s, size_t n) {
    size_t i = 0;
    unsigned last = 0;
    while (i < n) {
        uint32_t cp;
        int k;
        unsigned cc;
        if (s[i] < 0x80) { i++; last = 0; continue; }
        k = gk__u_utf8_dec(s + i, n - i, &cp);
        if (k <= 0) { i++; last = 0; continue; }
        i += (size_t)k;
        if (!gk__uni_nfc_qc_yes(cp)) return 0;
        cc = gk__uni_ccc_of(cp);
        if (cc && last > cc) return 0;
        last = cc;
    }
    return 1;
}

/* NFC of s[0..n) appended to out. Invalid UTF-8 bytes are copied unchanged
   (they act as starters that block composition). */
static gk_status gk__uni_nfc(const unsigned char *s, size_t n, gk_buf *out) {
    uint32_t *v = NULL;
    size_t nv = 0, cap = 0, i = 0, j;
    gk_status st = GK_OK;
    if (gk__uni_nfc_quick_yes(s, n)) return gk_buf_append(out, s, n);
    /* decompose; invalid bytes encoded as 0x110000 + byte */
    while (i < n) {
        uint32_t cp;
        int k = gk__u_utf8_dec(s + i, n - i, &cp);
        if (k <= 0) { cp = 0x110000u + s[i]; k = 1; }
        i += (size_t)k;
        if (!gk__uni_decomp_full(cp, &v, &nv, &cap)) { gk__u_free(v); return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory in NFC"); }
    }
    /* canonical ordering: stable sort runs of non-starters by ccc */
    for (i = 0; i < nv; i++) {
        unsigned cc = v[i] < 0x110000 ? gk__uni_ccc_of(v[i]) : 0;
        if (!cc) continue;
        j = i;
        while (j > 0) {
            unsigned pc = v[j - 1] < 0x110000 ? gk__uni_ccc_of(v[j - 1]) : 0;
            uint32_t t;
            if (pc <= cc) break;
            t = v[j - 1]; v[j - 1] = v[j]; v[j] = t;
            j--;
        }
    }
    /* canonical composition */
    if (nv) {
        size_t starter = (size_t)-1, w = 0;
        unsigned last_cc = 0;
        for (i = 0; i < nv; i++) {
            uint32_t c = v[i];
            unsigned cc = c < 0x110000 ? gk__uni_ccc_of(c) : 0;
            if (starter != (size_t)-1 && c < 0x110000) {
                /* blocked if an intervening char has ccc 0 or >= cc */
                int blocked = (w - 1 != starter) && (last_cc == 0 || last_cc >= cc);
                if (!blocked) {
                    uint32_t comp = gk__uni_compose(v[starter], c);
                    if (comp) {
                        v[starter] = comp;
                        continue;
                    }
                }
            }
            if (cc == 0) {
                starter = w;
                last_cc = 0;
            } else {
                last_cc = cc;
            }
            v[w++] = c;
        }
        nv = w;
    }
    for (i = 0; i < nv && st == GK_OK; i++) {
        char tmp[4];
        if (v[i] >= 0x110000) {
            tmp[0] = (char)(v[i] - 0x110000);
            st = gk_buf_append(out, tmp, 1);
        } else {
            st = gk_buf_append(out, tmp, gk__u_utf8_enc(v[i], tmp));
        }
    }
    gk__u_free(v);
    return st;
}

/* ======================================================================== */
/* >>impl_safetensors                                                       */
/* ======================================================================== */
/* Format (safetensors README and safetensors/src/tensor.rs):
     8 bytes  u64 little-endian N (header length), N <= 100,000,000, 8+N <= file size
     N bytes  UTF-8 JSON object starting with '{' (may be right-padded with spaces):
              { "__metadata__": {string: string, ...},          (optional)
                name: {"dtype": D, "shape": [..], "data_offsets": [BEGIN, END]}, ... }
     rest     the byte buffer; offsets are relative to its start, END exclusive.
   Checks made here: every rule above; dtype known; shape entries non-negative
   integers; END-BEGIN == numel*elemsize (no overflow); tensors sorted by
   (BEGIN,END) start at 0 and are contiguous (no holes, no overlaps);
   8+N+last END == file size; no duplicate names (also across shards). */

typedef struct gk__st_file {
    const unsigned char *base;
    size_t size;
    int mapped;
    char *path;              /* a file's path (NULL: in memory), for the transfer engine's reads and messages */
    int fd, has_fd;          /* POSIX: the file stays open for the engine's pread() */
#if defined(_WIN32)
    HANDLE hfile, hmap;
#endif
} gk__st_file;

struct gk_safetensors {
    gk__st_file *files;
    size_t nfiles;
    gk_st_tensor_info *tensors;
    size_t ntensors, tcap;
    gk_json **docs;          /* parsed headers: names and metadata point into them */
    size_t ndocs;
    gk__u_smap byname;
};

static const char *gk__st_names[GK_ST_DTYPE_COUNT] = {"BOOL", "U8", "I8", "I16", "U16", "F16", "BF16", "I32",
                                                     "U32", "F32", "F64", "I64", "U64", "F8_E4M3", "F8_E5M2"};
static const unsigned char gk__st_sizes[GK_ST_DTYPE_COUNT] = {1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 8, 8, 8, 1, 1};

GKLLMDEF const char *gk_st_dtype_name(gk_st_dtype t) {
    return ((unsigned)t < GK_ST_DTYPE_COUNT) ? gk__st_names[t] : "?";
}
GKLLMDEF size_t gk_st_dtype_size(gk_st_dtype t) { return ((unsigned)t < GK_ST_DTYPE_COUNT) ? gk__st_sizes[t] : 0; }
GKLLMDEF int gk_st_gk_dtype(gk_st_dtype t, gk_dtype *out) {
    gk_dtype d;
    switch (t) {
    case GK_ST_U8: d = GK_U8; break;
    case GK_ST_I8: d = GK_I8; break;
    case GK_ST_F16: d = GK_F16; break;
    case GK_ST_BF16: d = GK_BF16; break;
    case GK_ST_I32: d = GK_I32; break;
    case GK_ST_F32: d = GK_F32; break;
    case GK_ST_F64: d = GK_F64; break;
    case GK_ST_I64: d = GK_I64; break;
    case GK_ST_F8_E4M3: d = GK_F8E4M3; break;
    case GK_ST_F8_E5M2: d = GK_F8E5M2; break;
    default: return 0;
    }
    if (out) *out = d;
    return 1;
}

static void gk__st_unmap(gk__st_file *f) {
    gk__u_free(f->path);
    f->path = NULL;
#if !defined(_WIN32)
    if (f->has_fd) close(f->fd);
#endif
    f->has_fd = 0;
    if (!f->mapped || !f->base) return;
#if defined(_WIN32)
    UnmapViewOfFile((LPCVOID)f->base);
    CloseHandle(f->hmap);
    CloseHandle(f->hfile);
#else
    munmap((void *)f->base, f->size);
#endif
    f->base = NULL;
    f->mapped = 0;
}

static gk_status gk__st_map(const char *path, gk__st_file *f) {
    memset(f, 0, sizeof *f);
#if defined(_WIN32)
    {
        LARGE_INTEGER sz;
        HANDLE h = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ, NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
        HANDLE m;
        void *p;
        if (h == INVALID_HANDLE_VALUE) return GK__U_ERR(GK_ERR_IO, "cannot open '%s' (error %lu)", path, (unsigned long)GetLastError());
        if (!GetFileSizeEx(h, &sz)) {
            CloseHandle(h);
            return GK__U_ERR(GK_ERR_IO, "cannot get the size of '%s'", path);
        }
        if (sz.QuadPart < 8) {
            CloseHandle(h);
            return GK__U_ERR(GK_ERR_FORMAT, "'%s': file of %lld bytes is too small for a safetensors header", path, (long long)sz.QuadPart);
        }
        if ((unsigned long long)sz.QuadPart > (size_t)-1) {
            CloseHandle(h);
            return GK__U_ERR(GK_ERR_LIMIT, "'%s' is too large to map", path);
        }
        m = CreateFileMappingA(h, NULL, PAGE_READONLY, 0, 0, NULL);
        if (!m) {
            CloseHandle(h);
            return GK__U_ERR(GK_ERR_IO, "cannot map '%s' (error %lu)", path, (unsigned long)GetLastError());
        }
        p = MapViewOfFile(m, FILE_MAP_READ, 0, 0, 0);
        if (!p) {
            CloseHandle(m);
            CloseHandle(h);
            return GK__U_ERR(GK_ERR_IO, "cannot map '%s' (error %lu)", path, (unsigned long)GetLastError());
        }
        f->base = (const unsigned char *)p;
        f->size = (size_t)sz.QuadPart;
        f->hfile = h;
        f->hmap = m;
        f->mapped = 1;
    }
    if (!(f->path = (char *)gk__u_malloc(strlen(path) + 1))) {
        gk__st_unmap(f);
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    memcpy(f->path, path, strlen(path) + 1);
#else
    {
        struct stat sb;
        void *p;
        int fd = open(path, O_RDONLY);
        if (fd < 0) return GK__U_ERR(GK_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
        if (fstat(fd, &sb) != 0) {
            close(fd);
            return GK__U_ERR(GK_ERR_IO, "cannot stat '%s': %s", path, strerror(errno));
        }
        if (!S_ISREG(sb.st_mode)) {
            close(fd);
            return GK__U_ERR(GK_ERR_IO, "'%s' is not a regular file", path);
        }
        if (sb.st_size < 8) {
            close(fd);
            return GK__U_ERR(GK_ERR_FORMAT, "'%s': file of %lld bytes is too small for a safetensors header", path,
                           (long long)sb.st_size);
        }
        if ((unsigned long long)sb.st_size > (size_t)-1) {
            close(fd);
            return GK__U_ERR(GK_ERR_LIMIT, "'%s' is too large to map", path);
        }
        p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            close(fd);
            return GK__U_ERR(GK_ERR_IO, "cannot mmap '%s': %s", path, strerror(e));
        }
        f->base = (const unsigned char *)p;
        f->size = (size_t)sb.st_size;
        f->mapped = 1;
        f->fd = fd; /* kept open: gk_st_upload reads through the transfer engine (pread) */
        f->has_fd = 1;
        if (!(f->path = (char *)gk__u_malloc(strlen(path) + 1))) {
            gk__st_unmap(f);
            return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
        }
        memcpy(f->path, path, strlen(path) + 1);
    }
#endif
    return GK_OK;
}

static int gk__st_dtype_parse(const char *s, gk_st_dtype *out) {
    int i;
    for (i = 0; i < GK_ST_DTYPE_COUNT; i++)
        if (strcmp(s, gk__st_names[i]) == 0) {
            *out = (gk_st_dtype)i;
            return 1;
        }
    return 0;
}

static int gk__st_cmp_off(const void *a, const void *b) {
    const gk_st_tensor_info *x = *(const gk_st_tensor_info *const *)a, *y = *(const gk_st_tensor_info *const *)b;
    if (x->file_offset != y->file_offset) return x->file_offset < y->file_offset ? -1 : 1;
    if (x->nbytes != y->nbytes) return x->nbytes < y->nbytes ? -1 : 1;
    return 0;
}
static int gk__st_cmp_name(const void *a, const void *b) {
    return strcmp(((const gk_st_tensor_info *)a)->name, ((const gk_st_tensor_info *)b)->name);
}

/* Parses and validates the header of file fi and appends its tensors. */
static gk_status gk__st_parse(gk_safetensors *st, int fi, const char *label) {
    const gk__st_file *f = &st->files[fi];
    uint64_t n = 0, data_len, expect = 0;
    const gk_json_value *root;
    gk_json *doc;
    gk_json_options jo;
    gk_status s;
    size_t i, first = st->ntensors, cnt;
    gk_st_tensor_info **order;
    int k;
    if (f->size < 8)
        return GK__U_ERR(GK_ERR_FORMAT, "%s: file of %llu bytes is too small for a safetensors header", label, (unsigned long long)(f->size));
    for (k = 7; k >= 0; k--) n = (n << 8) | f->base[k];
    if (n > GK_ST_MAX_HEADER)
        return GK__U_ERR(GK_ERR_LIMIT, "%s: header length %llu exceeds the limit of %u bytes", label, (unsigned long long)n,
                       GK_ST_MAX_HEADER);
    if (n > f->size - 8)
        return GK__U_ERR(GK_ERR_FORMAT, "%s: header length %llu goes beyond the end of the file (%llu bytes)", label,
                       (unsigned long long)n, (unsigned long long)(f->size));
    if (n == 0 || f->base[8] != '{')
        return GK__U_ERR(GK_ERR_FORMAT, "%s: header does not start with '{'", label);
    memset(&jo, 0, sizeof jo);
    jo.max_depth = 8;
    jo.max_size = GK_ST_MAX_HEADER;
    s = gk_json_parse((const char *)f->base + 8, (size_t)n, &jo, &doc);
    if (s != GK_OK) {
        char msg[700];
        gk__u_errcopy(msg, sizeof msg);
        return GK__U_ERR(s, "%s: safetensors header: %s", label, msg);
    }
    st->docs[fi] = doc; /* docs has one slot per file (gk__st_new) */
    root = gk_json_root(doc);
    if (gk_json_typeof(root) != GK_JSON_OBJECT) return GK__U_ERR(GK_ERR_FORMAT, "%s: header is not a JSON object", label);
    data_len = f->size - 8 - n;
    for (i = 0; i < gk_json_len(root); i++) {
        size_t klen, j;
        const char *key = gk_json_key_at(root, i, &klen);
        const gk_json_value *v = gk_json_at(root, i), *dt, *shape, *offs;
        gk_st_tensor_info *t;
        uint64_t numel = 1, b, e, nb;
        int32_t old;
        int r;
        if (strlen(key) != klen) return GK__U_ERR(GK_ERR_FORMAT, "%s: tensor name contains a NUL character", label);
        if (strcmp(key, "__metadata__") == 0) {
            if (gk_json_typeof(v) != GK_JSON_OBJECT) return GK__U_ERR(GK_ERR_FORMAT, "%s: __metadata__ is not an object", label);
            for (j = 0; j < gk_json_len(v); j++)
                if (gk_json_typeof(gk_json_at(v, j)) != GK_JSON_STRING)
                    return GK__U_ERR(GK_ERR_FORMAT, "%s: __metadata__ value for '%s' is not a string", label,
                                   gk_json_key_at(v, j, NULL));
            continue;
        }
        if (gk_json_typeof(v) != GK_JSON_OBJECT) return GK__U_ERR(GK_ERR_FORMAT, "%s: tensor '%s' is not an object", label, key);
        if (gk__json_dup_key(v)) return GK__U_ERR(GK_ERR_FORMAT, "%s: tensor '%s': key \"%.20s\" appears twice", label, key, gk__json_dup_key(v));
        dt = gk_json_get(v, "dtype");
        shape = gk_json_get(v, "shape");
        offs = gk_json_get(v, "data_offsets");
        if (gk_json_typeof(dt) != GK_JSON_STRING) return GK__U_ERR(GK_ERR_FORMAT, "%s: tensor '%s' has no dtype string", label, key);
        if (gk_json_typeof(shape) != GK_JSON_ARRAY) return GK__U_ERR(GK_ERR_FORMAT, "%s: tensor '%s' has no shape array", label, key);
        if (gk_json_typeof(offs) != GK_JSON_ARRAY || gk_json_len(offs) != 2)
            return GK__U_ERR(GK_ERR_FORMAT, "%s: tensor '%s' has no data_offsets [begin, end]", label, key);
        if (gk_json_len(shape) > GK_ST_MAX_DIMS)
            return GK__U_ERR(GK_ERR_LIMIT, "%s: tensor '%s' has %llu dimensions (limit %d)", label, key, (unsigned long long)(gk_json_len(shape)), GK_ST_MAX_DIMS);
        if (!gk__u_grow((void **)&st->tensors, &st->tcap, st->ntensors + 1, sizeof(gk_st_tensor_info)))
            return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
        t = &st->tensors[st->ntensors];
        memset(t, 0, sizeof *t);
        t->name = key;
        if (!gk__st_dtype_parse(gk_json_str(dt, ""), &t->dtype)) {
            static const char *newer[] = {"F8_E8M0", "F4", "F6_E2M3", "F6_E3M2", "C64", "F8_E4M3FNUZ", "F8_E5M2FNUZ"};
            for (j = 0; j < sizeof newer / sizeof newer[0]; j++)
                if (strcmp(gk_json_str(dt, ""), newer[j]) == 0)
                    return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: tensor '%s' has dtype '%s', which gpukit does not support", label, key, newer[j]);
            return GK__U_ERR(GK_ERR_FORMAT, "%s: tensor '%s' has unknown dtype '%.40s'", label, key, gk_json_str(dt, ""));
        }
        t->ndim = (int)gk_json_len(shape);
        for (j = 0; j < gk_json_len(shape); j++) {
            const gk_json_value *d = gk_json_at(shape, j);
            int64_t dv = gk_json_int(d, -1);
            if (gk_json_typeof(d) != GK_JSON_INT || dv < 0)
                return GK__U_ERR(GK_ERR_FORMAT, "%s: tensor '%s': shape[%llu] is not a non-negative integer", label, key, (unsigned long long)(j));
            t->shape[j] = dv;
            if (dv && numel > UINT64_MAX / (uint64_t)dv)
                return GK__U_ERR(GK_ERR_OVERFLOW, "%s: tensor '%s': element count overflows", label, key);
            numel *= (uint64_t)dv;
        }
        if (gk_json_typeof(gk_json_at(offs, 0)) != GK_JSON_INT || gk_json_typeof(gk_json_at(offs, 1)) != GK_JSON_INT ||
            gk_json_int(gk_json_at(offs, 0), -1) < 0 || gk_json_int(gk_json_at(offs, 1), -1) < 0)
            return GK__U_ERR(GK_ERR_FORMAT, "%s: tensor '%s': data_offsets are not non-negative integers", label, key);
        b = (uint64_t)gk_json_int(gk_json_at(offs, 0), 0);
        e = (uint64_t)gk_json_int(gk_json_at(offs, 1), 0);
        if (numel > UINT64_MAX / gk__st_sizes[t->dtype])
            return GK__U_ERR(GK_ERR_OVERFLOW, "%s: tensor '%s': byte size overflows", label, key);
        nb = numel * gk__st_sizes[t->dtype];
        if (e < b) return GK__U_ERR(GK_ERR_FORMAT, "%s: tensor '%s': data_offsets end %llu < begin %llu", label, key,
                                  (unsigned long long)e, (unsigned long long)b);
        if (e > data_len)
            return GK__U_ERR(GK_ERR_FORMAT, "%s: tensor '%s': data_offsets [%llu, %llu] out of range (data is %llu bytes)", label,
                           key, (unsigned long long)b, (unsigned long long)e, (unsigned long long)data_len);
        if (e - b != nb)
            return GK__U_ERR(GK_ERR_FORMAT, "%s: tensor '%s': %llu bytes in data_offsets but shape and dtype %s need %llu", label,
                           key, (unsigned long long)(e - b), gk__st_names[t->dtype], (unsigned long long)nb);
        t->numel = numel;
        t->nbytes = nb;
        t->file_index = fi;
        t->file_offset = 8 + n + b;
        t->data = f->base + 8 + n + b;
        r = gk__u_smap_put(&st->byname, key, klen, (int32_t)st->ntensors, &old);
        if (r < 0) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
        if (r == 0) return GK__U_ERR(GK_ERR_FORMAT, "%s: duplicate tensor name '%s'", label, key);
        st->ntensors++;
    }
    /* contiguity */
    cnt = st->ntensors - first;
    if (cnt) {
        order = (gk_st_tensor_info **)gk__u_malloc(cnt * sizeof(*order));
        if (!order) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
        for (i = 0; i < cnt; i++) order[i] = &st->tensors[first + i];
        qsort(order, cnt, sizeof(*order), gk__st_cmp_off);
        for (i = 0; i < cnt; i++) {
            uint64_t b = order[i]->file_offset - 8 - n;
            if (b != expect) {
                const char *nm = order[i]->name;
                gk__u_free(order);
                if (b > expect)
                    return GK__U_ERR(GK_ERR_FORMAT, "%s: hole in the data before tensor '%s' (bytes %llu..%llu unused)", label, nm,
                                   (unsigned long long)expect, (unsigned long long)b);
                return GK__U_ERR(GK_ERR_FORMAT, "%s: tensor '%s' overlaps the previous tensor (begins at %llu, previous ends at %llu)",
                               label, nm, (unsigned long long)b, (unsigned long long)expect);
            }
            expect = b + order[i]->nbytes;
        }
        gk__u_free(order);
    }
    if (expect != data_len)
        return GK__U_ERR(GK_ERR_FORMAT, "%s: tensors end at byte %llu of the data but the file has %llu data bytes", label,
                       (unsigned long long)expect, (unsigned long long)data_len);
    return GK_OK;
}

static gk_status gk__st_finish(gk_safetensors *st) {
    size_t i;
    if (st->ntensors > 1) qsort(st->tensors, st->ntensors, sizeof(gk_st_tensor_info), gk__st_cmp_name);
    gk__u_smap_free(&st->byname);
    if (!gk__u_smap_init(&st->byname, st->ntensors)) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    for (i = 0; i < st->ntensors; i++)
        if (gk__u_smap_put(&st->byname, st->tensors[i].name, strlen(st->tensors[i].name), (int32_t)i, NULL) < 0)
            return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    return GK_OK;
}

static gk_safetensors *gk__st_new(size_t nfiles) {
    gk_safetensors *st = (gk_safetensors *)gk__u_calloc(1, sizeof(gk_safetensors));
    if (!st) return NULL;
    st->files = (gk__st_file *)gk__u_calloc(nfiles, sizeof(gk__st_file));
    st->docs = (gk_json **)gk__u_calloc(nfiles, sizeof(gk_json *));
    st->ndocs = nfiles;
    st->nfiles = nfiles;
    if (!st->files || !st->docs || !gk__u_smap_init(&st->byname, 64)) {
        gk__u_free(st->files);
        gk__u_free(st->docs);
        gk__u_smap_free(&st->byname);
        gk__u_free(st);
        return NULL;
    }
    return st;
}

GKLLMDEF void gk_st_close(gk_safetensors *st) {
    size_t i;
    if (!st) return;
    for (i = 0; i < st->nfiles; i++) gk__st_unmap(&st->files[i]);
    for (i = 0; i < st->ndocs; i++) gk_json_free(st->docs[i]);
    gk__u_free(st->files);
    gk__u_free(st->docs);
    gk__u_free(st->tensors);
    gk__u_smap_free(&st->byname);
    gk__u_free(st);
}

GKLLMDEF gk_status gk_st_open_memory(const void *data, size_t size, gk_safetensors **out) {
    gk_safetensors *st;
    gk_status s;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_st_open_memory: out is NULL");
    *out = NULL;
    if (!data && size) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_st_open_memory: data is NULL but size is %llu", (unsigned long long)size);
    st = gk__st_new(1);
    if (!st) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    st->files[0].base = (const unsigned char *)data;
    st->files[0].size = size;
    s = gk__st_parse(st, 0, "safetensors (memory)");
    if (s == GK_OK) s = gk__st_finish(st);
    if (s != GK_OK) {
        gk_st_close(st);
        return s;
    }
    *out = st;
    return GK_OK;
}

static int gk__u_ends_with(const char *s, const char *suf) {
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}
static int gk__u_is_dir(const char *path) {
#if defined(_WIN32)
    DWORD a = GetFileAttributesA(path);
    return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY);
#else
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
#endif
}
static int gk__u_file_exists(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    fclose(f);
    return 1;
}
/* dir part of path (with trailing separator) + name -> malloc'd */
static char *gk__u_path_join_dir(const char *path, const char *name) {
    const char *slash = strrchr(path, '/');
    size_t dl, nl = strlen(name);
    char *r;
#if defined(_WIN32)
    const char *bs = strrchr(path, '\\');
    if (bs && (!slash || bs > slash)) slash = bs;
#endif
    dl = slash ? (size_t)(slash - path) + 1 : 0;
    r = (char *)gk__u_malloc(dl + nl + 1);
    if (!r) return NULL;
    memcpy(r, path, dl);
    memcpy(r + dl, name, nl + 1);
    return r;
}

static gk_status gk__st_open_index(const char *path, gk_safetensors **out) {
    gk_json *idx;
    const gk_json_value *wm;
    const char **files = NULL;
    size_t nf = 0, fcap = 0, i, j;
    gk_safetensors *st = NULL;
    gk_status s;
    s = gk_json_parse_file(path, NULL, &idx);
    if (s != GK_OK) return s;
    wm = gk_json_get(gk_json_root(idx), "weight_map");
    if (gk_json_typeof(wm) != GK_JSON_OBJECT || gk_json_len(wm) == 0) {
        gk_status e = GK__U_ERR(GK_ERR_FORMAT, "%s: %s", path, gk_json_typeof(wm) != GK_JSON_OBJECT ? "no \"weight_map\" object" : "weight_map is empty (no tensor is listed)");
        gk_json_free(idx);
        return e;
    }
    for (i = 0; i < gk_json_len(wm); i++) {
        const char *fn = gk_json_str(gk_json_at(wm, i), NULL);
        if (!fn || !*fn || strlen(fn) != gk_json_len(gk_json_at(wm, i)) || strstr(fn, "..") || fn[0] == '/' || strchr(fn, '\\')) {
            gk_status e = GK__U_ERR(GK_ERR_FORMAT, "%s: weight_map entry for '%s' is not a plain file name", path, gk_json_key_at(wm, i, NULL));
            gk_json_free(idx);
            gk__u_free((void *)files);
            return e;
        }
        for (j = 0; j < nf; j++)
            if (strcmp(files[j], fn) == 0) break;
        if (j == nf) {
            if (!gk__u_grow((void **)&files, &fcap, nf + 1, sizeof(char *))) {
                gk_json_free(idx);
                gk__u_free((void *)files);
                return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
            }
            files[nf++] = fn;
        }
    }
    st = gk__st_new(nf ? nf : 1);
    if (!st) {
        gk_json_free(idx);
        gk__u_free((void *)files);
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    st->nfiles = nf;
    for (i = 0; i < nf && s == GK_OK; i++) {
        char *fp = gk__u_path_join_dir(path, files[i]);
        if (!fp) { s = GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory"); break; }
        s = gk__st_map(fp, &st->files[i]);
        if (s == GK_OK) s = gk__st_parse(st, (int)i, fp);
        gk__u_free(fp);
    }
    /* every weight_map entry must be in its file */
    for (i = 0; i < gk_json_len(wm) && s == GK_OK; i++) {
        size_t kl;
        const char *name = gk_json_key_at(wm, i, &kl);
        const char *fn = gk_json_str(gk_json_at(wm, i), "");
        int32_t ti = gk__u_smap_get(&st->byname, name, kl);
        if (ti < 0 || strcmp(files[st->tensors[ti].file_index], fn) != 0)
            s = GK__U_ERR(GK_ERR_FORMAT, "%s: weight_map lists tensor '%s' in '%s' but that file has no such tensor", path, name, fn);
    }
    if (s == GK_OK) s = gk__st_finish(st);
    gk_json_free(idx);
    gk__u_free((void *)files);
    if (s != GK_OK) {
        gk_st_close(st);
        return s;
    }
    *out = st;
    return GK_OK;
}

GKLLMDEF gk_status gk_st_open(const char *path, gk_safetensors **out) {
    gk_safetensors *st;
    gk_status s;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_st_open: out is NULL");
    *out = NULL;
    if (!path) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_st_open: path is NULL");
    if (gk__u_is_dir(path)) {
        size_t pl = strlen(path);
        char *p = (char *)gk__u_malloc(pl + 40);
        if (!p) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
        memcpy(p, path, pl);
        if (pl && path[pl - 1] != '/') p[pl++] = '/';
        strcpy(p + pl, "model.safetensors.index.json");
        if (gk__u_file_exists(p)) {
            s = gk__st_open_index(p, out);
            gk__u_free(p);
            return s;
        }
        strcpy(p + pl, "model.safetensors");
        if (gk__u_file_exists(p)) {
            s = gk_st_open(p, out);
            gk__u_free(p);
            return s;
        }
        gk__u_free(p);
        return GK__U_ERR(GK_ERR_NOT_FOUND, "'%s' holds neither model.safetensors.index.json nor model.safetensors", path);
    }
    if (gk__u_ends_with(path, ".json")) return gk__st_open_index(path, out);
    st = gk__st_new(1);
    if (!st) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    s = gk__st_map(path, &st->files[0]);
    if (s == GK_OK) s = gk__st_parse(st, 0, path);
    if (s == GK_OK) s = gk__st_finish(st);
    if (s != GK_OK) {
        gk_st_close(st);
        return s;
    }
    *out = st;
    return GK_OK;
}

GKLLMDEF size_t gk_st_count(const gk_safetensors *st) { return st ? st->ntensors : 0; }
GKLLMDEF size_t gk_st_file_count(const gk_safetensors *st) { return st ? st->nfiles : 0; }
GKLLMDEF const gk_st_tensor_info *gk_st_tensor(const gk_safetensors *st, size_t i) {
    return (st && i < st->ntensors) ? &st->tensors[i] : NULL;
}
GKLLMDEF const gk_st_tensor_info *gk_st_find(const gk_safetensors *st, const char *name) {
    int32_t i;
    if (!st || !name) return NULL;
    i = gk__u_smap_get(&st->byname, name, strlen(name));
    return i < 0 ? NULL : &st->tensors[i];
}
GKLLMDEF const char *gk_st_metadata(const gk_safetensors *st, const char *key) {
    if (!st || !st->ndocs || !st->docs[0]) return NULL;
    return gk_json_str(gk_json_get(gk_json_get(gk_json_root(st->docs[0]), "__metadata__"), key), NULL);
}

/* ectx: where the error goes (NULL: the calling thread; gk_st_upload: its context); W: the public call */
static gk_status gk__st_lookup(gk_ctx *ectx, const char *W, const gk_safetensors *st, const char *name, const gk_st_tensor_info **t) {
    *t = NULL;
    if (!st) return gk_error_set(ectx, GK_ERR_INVALID_ARGUMENT, "%s: st is NULL", W);
    if (!name) return gk_error_set(ectx, GK_ERR_INVALID_ARGUMENT, "%s: name is NULL", W);
    *t = gk_st_find(st, name);
    if (!*t) return gk_error_set(ectx, GK_ERR_NOT_FOUND, "safetensors: no tensor named '%s'", name);
    return GK_OK;
}

GKLLMDEF gk_status gk_st_read_raw(const gk_safetensors *st, const char *name, void *dst, size_t dst_bytes) {
    const gk_st_tensor_info *t;
    gk_status s = gk__st_lookup(NULL, "gk_st_read_raw", st, name, &t);
    if (s != GK_OK) return s;
    if (dst_bytes < t->nbytes)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "safetensors: '%s' needs %llu bytes, buffer has %llu", name,
                       (unsigned long long)t->nbytes, (unsigned long long)(dst_bytes));
    if (t->nbytes) {
        if (!dst) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_st_read_raw: dst is NULL but dst_bytes is %llu", (unsigned long long)dst_bytes);
        memcpy(dst, t->data, (size_t)t->nbytes);
    }
    return GK_OK;
}

/* Loads element i of a non-gpukit dtype as int64 (saturated) or double. */
static int64_t gk__st_load_i64(gk_st_dtype dt, const unsigned char *p, size_t i) {
    switch (dt) {
    case GK_ST_BOOL: return p[i] != 0;
    case GK_ST_I16: { int16_t v; memcpy(&v, p + 2 * i, 2); return v; }
    case GK_ST_U16: { uint16_t v; memcpy(&v, p + 2 * i, 2); return v; }
    case GK_ST_U32: { uint32_t v; memcpy(&v, p + 4 * i, 4); return v; }
    case GK_ST_U64: { int64_t v; memcpy(&v, p + 8 * i, 8); return v; } /* bits as int64: int->int wraps like gk_convert */
    default: return 0;
    }
}

GKLLMDEF gk_status gk_st_read(const gk_safetensors *st, const char *name, gk_dtype dst_type, void *dst, size_t dst_bytes) {
    const gk_st_tensor_info *t;
    gk_dtype src_gk;
    size_t es, done = 0, numel;
    gk_status s = gk__st_lookup(NULL, "gk_st_read", st, name, &t);
    if (s != GK_OK) return s;
    if ((unsigned)dst_type >= GK_DTYPE_COUNT) return GK__U_ERR(GK_ERR_DTYPE, "gk_st_read: dst_type %d is not a gk_dtype", (int)dst_type);
    es = gk_dtype_size(dst_type);
    if (t->numel > ((size_t)-1) / es || dst_bytes < t->numel * es)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "safetensors: '%s' as %s needs %llu bytes, buffer has %llu", name,
                       gk_dtype_name(dst_type), (unsigned long long)t->numel * es, (unsigned long long)(dst_bytes));
    numel = (size_t)t->numel;
    if (!numel) return GK_OK;
    if (!dst) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_st_read: dst is NULL but dst_bytes is %llu", (unsigned long long)dst_bytes);
    if (gk_st_gk_dtype(t->dtype, &src_gk)) {
        size_t ses = gk__st_sizes[t->dtype];
        if (((uintptr_t)t->data % ses) == 0) return gk_convert(dst_type, dst, src_gk, t->data, numel);
        /* misaligned source: convert through an aligned bounce buffer */
        {
            uint64_t bounce[1024];
            size_t chunk = sizeof bounce / ses;
            while (done < numel) {
                size_t m = numel - done < chunk ? numel - done : chunk;
                memcpy(bounce, (const unsigned char *)t->data + done * ses, m * ses);
                s = gk_convert(dst_type, (unsigned char *)dst + done * es, src_gk, bounce, m);
                if (s != GK_OK) return s;
                done += m;
            }
        }
        return GK_OK;
    }
    {
        /* BOOL, I16, U16, U32, U64: widen to I64 (or F64 for float targets), then convert */
        int to_float = dst_type == GK_F32 || dst_type == GK_F64 || dst_type == GK_F16 || dst_type == GK_BF16 ||
                       dst_type == GK_F8E4M3 || dst_type == GK_F8E5M2;
        int64_t ib[512];
        double db[512];
        while (done < numel) {
            size_t m = numel - done < 512 ? numel - done : 512, j;
            for (j = 0; j < m; j++) {
                if (to_float) {
                    if (t->dtype == GK_ST_U64) {
                        uint64_t v;
                        memcpy(&v, (const unsigned char *)t->data + 8 * (done + j), 8);
                        db[j] = (double)v;
                    } else db[j] = (double)gk__st_load_i64(t->dtype, (const unsigned char *)t->data, done + j);
                } else ib[j] = gk__st_load_i64(t->dtype, (const unsigned char *)t->data, done + j);
            }
            s = to_float ? gk_convert(dst_type, (unsigned char *)dst + done * es, GK_F64, db, m)
                         : gk_convert(dst_type, (unsigned char *)dst + done * es, GK_I64, ib, m);
            if (s != GK_OK) return s;
            done += m;
        }
    }
    return GK_OK;
}

#define GK__ST_UPLOAD_CHUNK ((size_t)64 << 20) /* bytes per host->device copy (progress granularity) */

/* Copies host bytes into a contiguous device tensor in chunks through 1-d
   views, reporting progress; no host copy is made. */
static gk_status gk__st_copy_chunked(gk_ctx *ctx, gk_tensor dst, const void *src, uint64_t nbytes, size_t esize,
                                     uint64_t *done, uint64_t total, gk_st_progress_fn progress, void *user) {
    gk_tensor flat = gk__u_tnull();
    int64_t numel = (int64_t)(nbytes / esize), chunk = (int64_t)(GK__ST_UPLOAD_CHUNK / esize), at = 0;
    gk_status s;
    if (nbytes <= GK__ST_UPLOAD_CHUNK) {
        s = gk_copy_from_host(ctx, dst, src, (size_t)nbytes);
        if (s == GK_OK) {
            *done += nbytes;
            if (progress) progress(*done, total, user);
        }
        return s;
    }
    s = gk_view_reshape(ctx, dst, 1, &numel, &flat);
    while (s == GK_OK && at < numel) {
        int64_t stop = numel - at < chunk ? numel : at + chunk;
        gk_tensor part = gk__u_tnull();
        s = gk_view_slice(ctx, flat, 0, at, stop, 1, &part);
        if (s == GK_OK) {
            s = gk_copy_from_host(ctx, part, (const unsigned char *)src + (size_t)at * esize, (size_t)(stop - at) * esize);
            gk_tensor_free(ctx, part);
        }
        if (s == GK_OK) {
            *done += (uint64_t)(stop - at) * esize;
            if (progress) progress(*done, total, user);
        }
        at = stop;
    }
    if (flat.id) gk_tensor_free(ctx, flat);
    return s;
}

/* The label of a stored tensor's file in messages: its path, or "safetensors (memory)". */
static const char *gk__st_file_label(const gk_safetensors *st, const gk_st_tensor_info *t) {
    const char *p = st->files[t->file_index].path;
    return p ? p : "safetensors (memory)";
}

/* Submits bytes [at, at + n) of the stored tensor t into dst at byte dst_off
   through the transfer engine x: read from its file (pread by the engine's
   workers straight into pinned staging buffers: no mapping, no page faults),
   or copied from memory for gk_st_open_memory. */
static gk_status gk__st_submit(gk_xfer *x, const gk_safetensors *st, const gk_st_tensor_info *t, gk_tensor dst, size_t dst_off,
                               uint64_t at, size_t n, gk_xfer_id *id) {
    const gk__st_file *f = &st->files[t->file_index];
    if (f->path) return gk_xfer_upload_file(x, dst, dst_off, f->path, f->has_fd ? f->fd : -1, t->file_offset + at, n, NULL, id);
    return gk_xfer_upload(x, dst, dst_off, (const unsigned char *)t->data + at, n, NULL, id);
}

/* Uploads a stored tensor's raw bytes into the contiguous device tensor dst
   (of t's byte size) through the context's transfer engine (>>api_xfer), in
   pieces of GK__ST_UPLOAD_CHUNK bytes submitted together (up to 64 at a
   time) and reported to progress as they complete, in order. An error names
   the tensor and its file. */
#define GK__ST_BATCH 64
static gk_status gk__st_copy_engine(gk_ctx *ctx, const char *W, const gk_safetensors *st, const gk_st_tensor_info *t, gk_tensor dst,
                                    uint64_t *done, uint64_t total, gk_st_progress_fn progress, void *user) {
    gk_xfer *x = NULL;
    gk_xfer_id ids[GK__ST_BATCH];
    uint64_t lens[GK__ST_BATCH], at = 0;
    char first[1024];
    gk_status s = gk_xfer_default(ctx, NULL, &x);
    first[0] = 0;
    if (s != GK_OK) snprintf(first, sizeof first, "%.1000s", gk_last_error(ctx));
    while (s == GK_OK && at < t->nbytes) {
        int k, nb = 0;
        for (; nb < GK__ST_BATCH && at < t->nbytes; nb++) {
            size_t n = (size_t)(t->nbytes - at < GK__ST_UPLOAD_CHUNK ? t->nbytes - at : GK__ST_UPLOAD_CHUNK);
            if ((s = gk__st_submit(x, st, t, dst, (size_t)at, at, n, &ids[nb])) != GK_OK) {
                snprintf(first, sizeof first, "%.1000s", gk_last_error(ctx));
                break;
            }
            lens[nb] = n;
            at += n;
        }
        /* every piece submitted is waited for, also after a failure (the engine reads the file meanwhile) */
        for (k = 0; k < nb; k++) {
            gk_status w = gk_xfer_wait(x, ids[k], -1);
            if (w != GK_OK && s == GK_OK) {
                s = w;
                snprintf(first, sizeof first, "%.1000s", gk_last_error(ctx));
            } else if (s == GK_OK) {
                *done += lens[k];
                if (progress) progress(*done, total, user);
            }
        }
    }
    if (s != GK_OK) return gk_error_set(ctx, s, "%s: tensor '%s' from %s: %s", W, t->name, gk__st_file_label(st, t), first);
    return GK_OK;
}

GKLLMDEF gk_status gk_st_upload(gk_ctx *ctx, const gk_safetensors *st, const char *name, gk_dtype dst_type, gk_tensor *out,
                                gk_st_progress_fn progress, void *user) {
    const gk_st_tensor_info *t;
    gk_dtype src_gk;
    gk_tensor dev = gk__u_tnull(), tmp = gk__u_tnull();
    int ndim;
    int64_t one = 1;
    const int64_t *shape;
    uint64_t total, done = 0;
    gk_status s;
    if (out) *out = gk__u_tnull();
    if (!ctx) return GK__U_ERR(GK_ERR_INVALID_HANDLE, "gk_st_upload: ctx is NULL");
    s = gk__st_lookup(ctx, "gk_st_upload", st, name, &t); /* errors go to ctx (doc.txt, ERRORS) */
    if (s != GK_OK) return s;
    if (!out) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_st_upload: out is NULL");
    if ((unsigned)dst_type >= GK_DTYPE_COUNT) return gk_error_set(ctx, GK_ERR_DTYPE, "gk_st_upload: invalid dtype %d", (int)dst_type);
    ndim = t->ndim;
    shape = t->shape;
    s = gk_tensor_empty(ctx, dst_type, ndim, shape, &dev);
    if (s != GK_OK && ndim == 0) {
        ndim = 1;
        shape = &one;
        s = gk_tensor_empty(ctx, dst_type, ndim, shape, &dev);
    }
    if (s != GK_OK) return s;
    if (gk_st_gk_dtype(t->dtype, &src_gk)) {
        total = t->nbytes; /* raw bytes go up; a cast on the device follows when needed */
        if (progress) progress(0, total, user);
        if (t->numel == 0) {
            s = GK_OK;
        } else if (src_gk == dst_type) {
            s = gk__st_copy_engine(ctx, "gk_st_upload", st, t, dev, &done, total, progress, user);
        } else {
            s = gk_tensor_empty(ctx, src_gk, ndim, shape, &tmp);
            if (s == GK_OK) {
                s = gk__st_copy_engine(ctx, "gk_st_upload", st, t, tmp, &done, total, progress, user);
                if (s == GK_OK) s = gk_cast(ctx, dev, tmp);
                gk_tensor_free(ctx, tmp);
            }
        }
    } else {
        /* BOOL / I16 / U16 / U32 / U64: no gpukit dtype, convert on the host */
        size_t nb = (size_t)(t->numel * gk_dtype_size(dst_type));
        void *host = t->numel ? gk__u_malloc(nb) : NULL;
        total = nb;
        if (progress) progress(0, total, user);
        if (t->numel && !host) s = gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_st_upload: out of memory converting '%s'", name);
        else if (t->numel) {
            gk__u_tl sv;
            gk__u_tl_save(&sv);
            s = gk_st_read(st, name, dst_type, host, nb);
            if (s != GK_OK) s = gk__u_tl_move(ctx, &sv, s, "gk_st_upload: ");
            if (s == GK_OK) s = gk__st_copy_chunked(ctx, dev, host, nb, gk_dtype_size(dst_type), &done, total, progress, user);
        }
        gk__u_free(host);
    }
    if (s != GK_OK) {
        gk_tensor_free(ctx, dev);
        return s;
    }
    if (progress && done != total) progress(total, total, user);
    *out = dev;
    return GK_OK;
}

/* ======================================================================== */
/* >>impl_tokenizer                                                         */
/* ======================================================================== */

enum { GK__TOK_NORM_NFC = 1, GK__TOK_NORM_PREPEND, GK__TOK_NORM_REPLACE };
enum { GK__TOK_SCAN_GPT2 = 1, GK__TOK_SCAN_QWEN, GK__TOK_SCAN_LLAMA3, GK__TOK_SCAN_META };
enum { GK__TOK_DOP_BYTELEVEL = 1, GK__TOK_DOP_REPLACE, GK__TOK_DOP_BYTEFALLBACK, GK__TOK_DOP_FUSE, GK__TOK_DOP_STRIP, GK__TOK_DOP_METASPACE };

typedef struct gk__tok_op {   /* normalizer or decoder step */
    int kind;
    char *a, *b;              /* pattern / content (NUL-terminated, owned) */
    size_t alen, blen;
    size_t start, stop;       /* Strip */
    int prepend;              /* Metaspace decoder: strip first space */
} gk__tok_op;

typedef struct gk__tok_added {
    int32_t id;
    char *content;
    size_t len;
    unsigned char special, lstrip, rstrip, single_word, normalized;
} gk__tok_added;

struct gk_tokenizer {
    size_t nid;                /* largest id + 1 */
    size_t *tok_off;           /* per id: offset into pool, or SIZE_MAX */
    uint32_t *tok_len;
    gk_buf pool;               /* token texts */
    gk_buf rawpool;            /* byte-level: raw bytes of each token */
    gk__u_smap vocab;            /* model vocab text -> id (pointers into pool) */
    gk__u_smap raw;              /* byte-level: raw bytes -> id */
    gk__u_umap merges;           /* (left<<32|right) -> (rank<<32|new) */
    int32_t byte_tok[256];     /* byte-level: token of byte b; else <0xXX> token */
    int bytelevel;
    int byte_fallback, fuse_unk, ignore_merges;
    int32_t unk_id;
    gk__tok_op norm[16];
    size_t nnorm;
    int prefix_space;          /* ByteLevel add_prefix_space */
    int meta;                  /* Metaspace pre-tokenizer present */
    char meta_repl[8];
    size_t meta_repl_len;
    int meta_prepend;          /* 0 never, 1 always, 2 first */
    int scan[8];
    size_t nscan;
    gk__tok_added *added;
    size_t nadded;
    int has_normalized_added;
    uint32_t *added_by_byte;   /* indices into added, grouped by first byte, longest first */
    uint32_t added_start[257];
    unsigned char *special;    /* per id */
    int32_t pre[8], post[8];
    size_t npre, npost;
    gk__tok_op dec[16];
    size_t ndec;
    int has_decoder;
};

/* ---- byte-level map (GPT-2 bytes_to_unicode) ---- */
static uint32_t gk__tok_bl_cp(unsigned b) {
    b &= 0xFF;
    if (b <= 0x20) return 256 + b;                    /* 33 control/space bytes */
    if (b >= 0x7F && b <= 0xA0) return 256 + 33 + (b - 0x7F); /* 34 bytes */
    if (b == 0xAD) return 256 + 67;
    return b;
}
static int gk__tok_bl_byte(uint32_t cp) {
    if ((cp >= 0x21 && cp <= 0x7E) || (cp >= 0xA1 && cp <= 0xAC) || (cp >= 0xAE && cp <= 0xFF)) return (int)cp;
    if (cp >= 256 && cp < 256 + 33) return (int)(cp - 256);
    if (cp >= 256 + 33 && cp < 256 + 67) return (int)(0x7F + cp - 256 - 33);
    if (cp == 256 + 67) return 0xAD;
    return -1;
}

static int gk__tok_hexval(int c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}
/* "<0xXX>" -> byte value, else -1 */
static int gk__tok_fallback_byte(const char *s, size_t n) {
    int h, l;
    if (n != 6 || s[0] != '<' || s[1] != '0' || s[2] != 'x' || s[5] != '>') return -1;
    h = gk__tok_hexval((unsigned char)s[3]);
    l = gk__tok_hexval((unsigned char)s[4]);
    return (h < 0 || l < 0) ? -1 : h * 16 + l;
}

static void gk__tok_ops_free(gk__tok_op *ops, size_t n) {
    size_t i;
    for (i = 0; i < n; i++) {
        gk__u_free(ops[i].a);
        gk__u_free(ops[i].b);
    }
}

GKLLMDEF void gk_tokenizer_free(gk_tokenizer *t) {
    size_t i;
    if (!t) return;
    gk__u_free(t->tok_off);
    gk__u_free(t->tok_len);
    gk_buf_free(&t->pool);
    gk_buf_free(&t->rawpool);
    gk__u_smap_free(&t->vocab);
    gk__u_smap_free(&t->raw);
    gk__u_umap_free(&t->merges);
    gk__tok_ops_free(t->norm, t->nnorm);
    gk__tok_ops_free(t->dec, t->ndec);
    for (i = 0; i < t->nadded; i++) gk__u_free(t->added[i].content);
    gk__u_free(t->added);
    gk__u_free(t->added_by_byte);
    gk__u_free(t->special);
    gk__u_free(t);
}

/* ---- loading ---- */
#define GK__TOK_MAX_ID 16777216  /* ids above this are refused (memory safety on hostile files) */

/* a true / false field of obj (what: where it is, for the message): missing or null gives def */
static gk_status gk__tok_bool(const gk_json_value *obj, const char *key, int def, const char *what, int *out) {
    const gk_json_value *v = gk_json_get(obj, key);
    char vb[64];
    if (gk_json_is_null(v)) { *out = def; return GK_OK; }
    if (gk_json_typeof(v) != GK_JSON_BOOL)
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: %s%s = %s is not true or false", what, key, gk__json_show(v, vb, sizeof vb));
    *out = gk_json_bool(v, def);
    return GK_OK;
}
/* the list of a Sequence component (normalizers, pretokenizers, processors, decoders) */
static gk_status gk__tok_seq_list(const gk_json_value *n, const char *key, const char *what, const gk_json_value **list) {
    char vb[64];
    *list = gk_json_get(n, key);
    if (gk_json_typeof(*list) != GK_JSON_ARRAY)
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: %s Sequence: %s = %s is not a list", what, key, gk__json_show(*list, vb, sizeof vb));
    return GK_OK;
}
/* Metaspace prepend_scheme: 1 always, 2 first, 0 never; missing: add_prefix_space (true: always) */
static gk_status gk__tok_prepend_scheme(const gk_json_value *p, const char *what, int *out) {
    const gk_json_value *v = gk_json_get(p, "prepend_scheme");
    const char *scheme = gk_json_str(v, NULL);
    char vb[64];
    int aps;
    gk_status s;
    if (gk_json_is_null(v)) {
        if ((s = gk__tok_bool(p, "add_prefix_space", 1, what, &aps)) != GK_OK) return s;
        *out = aps ? 1 : 0;
        return GK_OK;
    }
    if (scheme && strcmp(scheme, "always") == 0) *out = 1;
    else if (scheme && strcmp(scheme, "first") == 0) *out = 2;
    else if (scheme && strcmp(scheme, "never") == 0) *out = 0;
    else return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: %sprepend_scheme = %s is not \"always\", \"first\" or \"never\"", what, gk__json_show(v, vb, sizeof vb));
    return GK_OK;
}

static gk_status gk__tok_set_op(gk__tok_op *op, int kind, const gk_json_value *a, const gk_json_value *b) {
    memset(op, 0, sizeof *op);
    op->kind = kind;
    if (a) {
        op->a = gk__u_strndup(gk_json_str(a, ""), gk_json_len(a));
        op->alen = gk_json_len(a);
        if (!op->a) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    if (b) {
        op->b = gk__u_strndup(gk_json_str(b, ""), gk_json_len(b));
        op->blen = gk_json_len(b);
        if (!op->b) { /* nothing owned on failure: a decoder op that fails is not counted in ndec */
            gk__u_free(op->a);
            op->a = NULL;
            return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
        }
    }
    return GK_OK;
}

/* Replace with {"pattern": {"String": s}, "content": c} */
static gk_status gk__tok_replace_op(gk__tok_op *op, const gk_json_value *v, const char *where) {
    const gk_json_value *pat = gk_json_get(gk_json_get(v, "pattern"), "String");
    const gk_json_value *content = gk_json_get(v, "content");
    if (gk_json_typeof(pat) != GK_JSON_STRING || gk_json_typeof(content) != GK_JSON_STRING) {
        if (gk_json_get(gk_json_get(v, "pattern"), "Regex"))
            return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: %s Replace with a Regex pattern is not supported", where);
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: %s Replace needs pattern.String and content", where);
    }
    if (gk_json_len(pat) == 0) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: %s Replace with an empty pattern", where);
    return gk__tok_set_op(op, GK__TOK_NORM_REPLACE, pat, content);
}

static gk_status gk__tok_parse_norm(gk_tokenizer *t, const gk_json_value *n, int depth) {
    const char *type = gk_json_get_string(n, "type", NULL);
    gk_status s;
    if (gk_json_is_null(n)) return GK_OK;
    if (!type) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: normalizer without a type");
    if (depth > 4) return GK__U_ERR(GK_ERR_LIMIT, "tokenizer.json: normalizers nested too deeply");
    if (strcmp(type, "Sequence") == 0) {
        const gk_json_value *list;
        size_t i;
        if ((s = gk__tok_seq_list(n, "normalizers", "normalizer", &list)) != GK_OK) return s;
        for (i = 0; i < gk_json_len(list); i++)
            if ((s = gk__tok_parse_norm(t, gk_json_at(list, i), depth + 1)) != GK_OK) return s;
        return GK_OK;
    }
    if (t->nnorm >= sizeof t->norm / sizeof t->norm[0]) return GK__U_ERR(GK_ERR_LIMIT, "tokenizer.json: too many normalizers");
    if (strcmp(type, "NFC") == 0) {
        memset(&t->norm[t->nnorm], 0, sizeof(gk__tok_op));
        t->norm[t->nnorm++].kind = GK__TOK_NORM_NFC;
        return GK_OK;
    }
    if (strcmp(type, "Prepend") == 0) {
        const gk_json_value *p = gk_json_get(n, "prepend");
        if (gk_json_typeof(p) != GK_JSON_STRING) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: Prepend normalizer without a prepend string");
        s = gk__tok_set_op(&t->norm[t->nnorm++], GK__TOK_NORM_PREPEND, p, NULL);
        return s;
    }
    if (strcmp(type, "Replace") == 0) {
        s = gk__tok_replace_op(&t->norm[t->nnorm], n, "normalizer");
        t->nnorm++;
        return s;
    }
    return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: normalizer type '%.40s' is not supported", type);
}

static const char *gk__tok_pat_qwen =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
static const char *gk__tok_pat_llama3 =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
static const char *gk__tok_pat_gpt2 = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

static gk_status gk__tok_add_scan(gk_tokenizer *t, int kind) {
    if (t->nscan >= sizeof t->scan / sizeof t->scan[0]) return GK__U_ERR(GK_ERR_LIMIT, "tokenizer.json: too many pre-tokenizers");
    t->scan[t->nscan++] = kind;
    return GK_OK;
}

static gk_status gk__tok_parse_pre(gk_tokenizer *t, const gk_json_value *p, int depth) {
    const char *type = gk_json_get_string(p, "type", NULL);
    gk_status s;
    if (gk_json_is_null(p)) return GK_OK;
    if (!type) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: pre_tokenizer without a type");
    if (depth > 4) return GK__U_ERR(GK_ERR_LIMIT, "tokenizer.json: pre_tokenizers nested too deeply");
    if (strcmp(type, "Sequence") == 0) {
        const gk_json_value *list;
        size_t i;
        if ((s = gk__tok_seq_list(p, "pretokenizers", "pre_tokenizer", &list)) != GK_OK) return s;
        for (i = 0; i < gk_json_len(list); i++)
            if ((s = gk__tok_parse_pre(t, gk_json_at(list, i), depth + 1)) != GK_OK) return s;
        return GK_OK;
    }
    if (strcmp(type, "ByteLevel") == 0) {
        int use_regex;
        t->bytelevel = 1;
        if ((s = gk__tok_bool(p, "add_prefix_space", 0, "ByteLevel pre_tokenizer: ", &t->prefix_space)) != GK_OK) return s;
        if ((s = gk__tok_bool(p, "use_regex", 1, "ByteLevel pre_tokenizer: ", &use_regex)) != GK_OK) return s;
        if (use_regex) return gk__tok_add_scan(t, GK__TOK_SCAN_GPT2);
        return GK_OK;
    }
    if (strcmp(type, "Split") == 0) {
        const char *re = gk_json_get_string(p, "pattern.Regex", NULL);
        const char *beh = gk_json_get_string(p, "behavior", "");
        int invert;
        if ((s = gk__tok_bool(p, "invert", 0, "Split pre_tokenizer: ", &invert)) != GK_OK) return s;
        if (invert || strcmp(beh, "Isolated") != 0)
            return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: Split pre-tokenizer with behavior '%.30s'%s is not supported", beh,
                           invert ? " and invert" : "");
        if (!re) return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: Split pre-tokenizer without a Regex pattern is not supported");
        if (strcmp(re, gk__tok_pat_qwen) == 0) return gk__tok_add_scan(t, GK__TOK_SCAN_QWEN);
        if (strcmp(re, gk__tok_pat_llama3) == 0) return gk__tok_add_scan(t, GK__TOK_SCAN_LLAMA3);
        if (strcmp(re, gk__tok_pat_gpt2) == 0) return gk__tok_add_scan(t, GK__TOK_SCAN_GPT2);
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: Split regex is not one of the known patterns (GPT-2, Qwen2, Llama-3): \"%.80s\"", re);
    }
    if (strcmp(type, "Metaspace") == 0) {
        const gk_json_value *r = gk_json_get(p, "replacement");
        uint32_t cp;
        int split;
        if (gk_json_typeof(r) != GK_JSON_STRING || gk_json_len(r) == 0 || gk_json_len(r) >= sizeof t->meta_repl ||
            gk__u_utf8_dec((const unsigned char *)gk_json_str(r, ""), gk_json_len(r), &cp) != (int)gk_json_len(r))
            return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: Metaspace pre-tokenizer needs a one-character replacement");
        memcpy(t->meta_repl, gk_json_str(r, ""), gk_json_len(r));
        t->meta_repl_len = gk_json_len(r);
        t->meta = 1;
        if ((s = gk__tok_prepend_scheme(p, "Metaspace pre_tokenizer: ", &t->meta_prepend)) != GK_OK) return s;
        if ((s = gk__tok_bool(p, "split", 1, "Metaspace pre_tokenizer: ", &split)) != GK_OK) return s;
        if (split) return gk__tok_add_scan(t, GK__TOK_SCAN_META);
        return GK_OK;
    }
    return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: pre_tokenizer type '%.40s' is not supported", type);
}

static gk_status gk__tok_special_ids(gk_tokenizer *t, const gk_json_value *post, const char *name, int32_t *dst, size_t *n) {
    const gk_json_value *ids = gk_json_get(gk_json_get(gk_json_get(post, "special_tokens"), name), "ids");
    size_t i;
    if (gk_json_typeof(ids) != GK_JSON_ARRAY)
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: post_processor special token '%.40s' has no ids", name);
    for (i = 0; i < gk_json_len(ids); i++) {
        int64_t id = gk_json_int(gk_json_at(ids, i), -1);
        if (id < 0 || (size_t)id >= t->nid) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: post_processor id %lld out of range", (long long)id);
        if (*n >= 8) return GK__U_ERR(GK_ERR_LIMIT, "tokenizer.json: too many post_processor tokens");
        dst[(*n)++] = (int32_t)id;
    }
    return GK_OK;
}

static gk_status gk__tok_parse_post(gk_tokenizer *t, const gk_json_value *p, int depth) {
    const char *type = gk_json_get_string(p, "type", NULL);
    gk_status s;
    if (gk_json_is_null(p)) return GK_OK;
    if (!type) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: post_processor without a type");
    if (depth > 4) return GK__U_ERR(GK_ERR_LIMIT, "tokenizer.json: post_processors nested too deeply");
    if (strcmp(type, "ByteLevel") == 0) return GK_OK;
    if (strcmp(type, "Sequence") == 0) {
        const gk_json_value *list;
        size_t i;
        if ((s = gk__tok_seq_list(p, "processors", "post_processor", &list)) != GK_OK) return s;
        for (i = 0; i < gk_json_len(list); i++)
            if ((s = gk__tok_parse_post(t, gk_json_at(list, i), depth + 1)) != GK_OK) return s;
        return GK_OK;
    }
    if (strcmp(type, "TemplateProcessing") == 0) {
        const gk_json_value *single = gk_json_get(p, "single");
        size_t i;
        int seen_a = 0;
        char vb[64];
        if (gk_json_typeof(single) != GK_JSON_ARRAY)
            return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: TemplateProcessing post_processor: single = %s is not a list", gk__json_show(single, vb, sizeof vb));
        t->npre = t->npost = 0;
        for (i = 0; i < gk_json_len(single); i++) {
            const gk_json_value *it = gk_json_at(single, i), *sp = gk_json_get(it, "SpecialToken");
            if (sp) {
                const char *name = gk_json_get_string(sp, "id", NULL);
                if (!name) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: TemplateProcessing SpecialToken without id");
                s = seen_a ? gk__tok_special_ids(t, p, name, t->post, &t->npost) : gk__tok_special_ids(t, p, name, t->pre, &t->npre);
                if (s != GK_OK) return s;
            } else if (gk_json_get(it, "Sequence")) {
                if (seen_a) return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: TemplateProcessing 'single' with two sequences");
                seen_a = 1;
            } else return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: bad TemplateProcessing item");
        }
        return GK_OK;
    }
    if (strcmp(type, "RobertaProcessing") == 0 || strcmp(type, "BertProcessing") == 0) {
        int64_t c = gk_json_get_int(p, "cls.1", -1), e = gk_json_get_int(p, "sep.1", -1);
        if (c < 0 || e < 0 || (size_t)c >= t->nid || (size_t)e >= t->nid)
            return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: %s without valid cls/sep ids", type);
        t->pre[0] = (int32_t)c;
        t->post[0] = (int32_t)e;
        t->npre = t->npost = 1;
        return GK_OK;
    }
    return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: post_processor type '%.40s' is not supported", type);
}

static gk_status gk__tok_parse_dec(gk_tokenizer *t, const gk_json_value *d, int depth) {
    const char *type = gk_json_get_string(d, "type", NULL);
    gk__tok_op *op;
    gk_status s;
    if (gk_json_is_null(d)) return GK_OK;
    if (!type) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: decoder without a type");
    if (depth > 4) return GK__U_ERR(GK_ERR_LIMIT, "tokenizer.json: decoders nested too deeply");
    t->has_decoder = 1;
    if (strcmp(type, "Sequence") == 0) {
        const gk_json_value *list;
        size_t i;
        if ((s = gk__tok_seq_list(d, "decoders", "decoder", &list)) != GK_OK) return s;
        for (i = 0; i < gk_json_len(list); i++)
            if ((s = gk__tok_parse_dec(t, gk_json_at(list, i), depth + 1)) != GK_OK) return s;
        return GK_OK;
    }
    if (t->ndec >= sizeof t->dec / sizeof t->dec[0]) return GK__U_ERR(GK_ERR_LIMIT, "tokenizer.json: too many decoders");
    op = &t->dec[t->ndec];
    memset(op, 0, sizeof *op);
    if (strcmp(type, "ByteLevel") == 0) op->kind = GK__TOK_DOP_BYTELEVEL;
    else if (strcmp(type, "ByteFallback") == 0) op->kind = GK__TOK_DOP_BYTEFALLBACK;
    else if (strcmp(type, "Fuse") == 0) op->kind = GK__TOK_DOP_FUSE;
    else if (strcmp(type, "Replace") == 0) {
        if ((s = gk__tok_replace_op(op, d, "decoder")) != GK_OK) return s;
        op->kind = GK__TOK_DOP_REPLACE;
    } else if (strcmp(type, "Strip") == 0) {
        const gk_json_value *c = gk_json_get(d, "content");
        uint32_t cp;
        if (gk_json_typeof(c) != GK_JSON_STRING || gk__u_utf8_dec((const unsigned char *)gk_json_str(c, ""), gk_json_len(c), &cp) != (int)gk_json_len(c))
            return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: Strip decoder content must be one character");
        {
            const char *keys[2] = { "start", "stop" };
            int k;
            for (k = 0; k < 2; k++) {
                const gk_json_value *v = gk_json_get(d, keys[k]);
                char vb[64];
                if (!gk_json_is_null(v) && (gk_json_typeof(v) != GK_JSON_INT || gk_json_int(v, -1) < 0 || gk_json_int(v, -1) > INT32_MAX))
                    return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: Strip decoder: %s = %s is not a count (an integer >= 0)", keys[k], gk__json_show(v, vb, sizeof vb));
            }
        }
        if ((s = gk__tok_set_op(op, GK__TOK_DOP_STRIP, c, NULL)) != GK_OK) return s;
        op->start = (size_t)gk_json_get_int(d, "start", 0);
        op->stop = (size_t)gk_json_get_int(d, "stop", 0);
    } else if (strcmp(type, "Metaspace") == 0) {
        const gk_json_value *r = gk_json_get(d, "replacement");
        int scheme;
        if (gk_json_typeof(r) != GK_JSON_STRING || gk_json_len(r) == 0)
            return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: Metaspace decoder without a replacement");
        if ((s = gk__tok_prepend_scheme(d, "Metaspace decoder: ", &scheme)) != GK_OK) return s;
        if ((s = gk__tok_set_op(op, GK__TOK_DOP_METASPACE, r, NULL)) != GK_OK) return s;
        op->prepend = scheme != 0;
    } else return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: decoder type '%.40s' is not supported", type);
    t->ndec++;
    return GK_OK;
}

static int gk__tok_added_cmp_len(const void *a, const void *b, const gk__tok_added *added) {
    size_t la = added[*(const uint32_t *)a].len, lb = added[*(const uint32_t *)b].len;
    return la > lb ? -1 : la < lb ? 1 : 0;
}

/* sets token text of an id */
static gk_status gk__tok_set_text(gk_tokenizer *t, int64_t id, const char *s, size_t n) {
    gk_status st;
    if (id < 0 || (size_t)id >= t->nid) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: id %lld out of range", (long long)id);
    t->tok_off[id] = t->pool.len;
    t->tok_len[id] = (uint32_t)n;
    st = gk_buf_append(&t->pool, s, n);
    if (st == GK_OK) st = gk_buf_append(&t->pool, "", 1); /* NUL separator */
    return st;
}

static gk_status gk__tok_build(gk_tokenizer *t, const gk_json_value *root) {
    const gk_json_value *model = gk_json_get(root, "model"), *vocab, *merges, *added;
    const char *mtype;
    size_t i, nv;
    int64_t maxid = -1;
    gk_status s;
    gk_buf tmp = {NULL, 0, 0};
    char vb[64];

    if (gk_json_typeof(root) != GK_JSON_OBJECT) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: top level is not an object");
    if (gk_json_typeof(model) != GK_JSON_OBJECT) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: no \"model\" object");
    if (!gk_json_is_null(gk_json_get(model, "type")) && gk_json_typeof(gk_json_get(model, "type")) != GK_JSON_STRING)
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: model.type = %s is not a string", gk__json_show(gk_json_get(model, "type"), vb, sizeof vb));
    mtype = gk_json_get_string(model, "type", "BPE");
    if (strcmp(mtype, "BPE") != 0) return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: model type '%.40s' is not supported (only BPE)", mtype);
    if (!gk_json_is_null(gk_json_get(model, "continuing_subword_prefix")) && gk_json_get_string(model, "continuing_subword_prefix", "")[0])
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: BPE continuing_subword_prefix is not supported");
    if (!gk_json_is_null(gk_json_get(model, "end_of_word_suffix")) && gk_json_get_string(model, "end_of_word_suffix", "")[0])
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "tokenizer.json: BPE end_of_word_suffix is not supported");
    vocab = gk_json_get(model, "vocab");
    merges = gk_json_get(model, "merges");
    added = gk_json_get(root, "added_tokens");
    if (gk_json_typeof(vocab) != GK_JSON_OBJECT)
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: model.vocab is %s, not an object", vocab ? gk__json_show(vocab, vb, sizeof vb) : "missing");
    /* HF tokenizers requires the key ("Missing vocab/merges"); [] is a BPE without merges */
    if (!merges)
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: model.merges is missing: a BPE model needs its merges list (\"merges\": [] for none)");
    if (gk_json_typeof(merges) != GK_JSON_ARRAY)
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: model.merges = %s is not a list", gk__json_show(merges, vb, sizeof vb));
    if (!gk_json_is_null(added) && gk_json_typeof(added) != GK_JSON_ARRAY)
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: added_tokens = %s is not a list", gk__json_show(added, vb, sizeof vb));
    {   /* HF: dropout in [0, 1] (BPE dropout; inference ignores it) */
        const gk_json_value *dr = gk_json_get(model, "dropout");
        if (!gk_json_is_null(dr) && !((gk_json_typeof(dr) == GK_JSON_INT || gk_json_typeof(dr) == GK_JSON_DOUBLE) && gk_json_double(dr, -1) >= 0 && gk_json_double(dr, -1) <= 1))
            return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: model.dropout = %s is not null or a number in [0, 1]", gk__json_show(dr, vb, sizeof vb));
    }
    {
        const char *dk = gk__json_dup_key(model);
        if (dk) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: model: key \"%.60s\" appears twice", dk);
        if ((dk = gk__json_dup_key(root)) != NULL) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: key \"%.60s\" appears twice", dk);
    }
    if ((s = gk__tok_bool(model, "byte_fallback", 0, "model.", &t->byte_fallback)) != GK_OK) return s;
    if ((s = gk__tok_bool(model, "fuse_unk", 0, "model.", &t->fuse_unk)) != GK_OK) return s;
    if ((s = gk__tok_bool(model, "ignore_merges", 0, "model.", &t->ignore_merges)) != GK_OK) return s;
    if (!gk_json_is_null(gk_json_get(model, "unk_token")) && gk_json_typeof(gk_json_get(model, "unk_token")) != GK_JSON_STRING)
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: model.unk_token = %s is not a string or null", gk__json_show(gk_json_get(model, "unk_token"), vb, sizeof vb));

    /* ids */
    nv = gk_json_len(vocab);
    for (i = 0; i < nv; i++) {
        const gk_json_value *v = gk_json_at(vocab, i);
        int64_t id = gk_json_int(v, -1);
        if (gk_json_typeof(v) != GK_JSON_INT || id < 0 || id > GK__TOK_MAX_ID)
            return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: vocab entry '%.60s' has an invalid id", gk_json_key_at(vocab, i, NULL));
        if (id > maxid) maxid = id;
    }
    for (i = 0; i < gk_json_len(added); i++) {
        const gk_json_value *a = gk_json_at(added, i);
        int64_t id = gk_json_get_int(a, "id", -1);
        static const char *const flags[5] = { "special", "lstrip", "rstrip", "single_word", "normalized" };
        char what[48];
        int k, b;
        if (gk_json_typeof(gk_json_get(a, "id")) != GK_JSON_INT || id < 0 || id > GK__TOK_MAX_ID ||
            gk_json_typeof(gk_json_get(a, "content")) != GK_JSON_STRING || gk_json_len(gk_json_get(a, "content")) == 0)
            return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: added_tokens[%llu] needs an id and a non-empty content", (unsigned long long)(i));
        snprintf(what, sizeof what, "added_tokens[%llu].", (unsigned long long)i);
        for (k = 0; k < 5; k++)
            if ((s = gk__tok_bool(a, flags[k], 0, what, &b)) != GK_OK) return s;
        if (id > maxid) maxid = id;
    }
    t->nid = (size_t)(maxid + 1);
    t->tok_off = (size_t *)gk__u_malloc(t->nid * sizeof(size_t));
    t->tok_len = (uint32_t *)gk__u_calloc(t->nid, sizeof(uint32_t));
    t->special = (unsigned char *)gk__u_calloc(t->nid, 1);
    if (!t->tok_off || !t->tok_len || !t->special) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    for (i = 0; i < t->nid; i++) t->tok_off[i] = (size_t)-1;
    if (!gk__u_smap_init(&t->vocab, nv)) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    for (i = 0; i < nv; i++) {
        size_t kl;
        const char *k = gk_json_key_at(vocab, i, &kl);
        int64_t id = gk_json_int(gk_json_at(vocab, i), -1);
        if (t->tok_off[id] != (size_t)-1)
            return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: id %lld is used by two vocab entries", (long long)id);
        if ((s = gk__tok_set_text(t, id, k, kl)) != GK_OK) return s;
    }
    /* added tokens */
    if (gk_json_len(added)) { /* nadded only once the array exists (gk_tokenizer_free walks it) */
        t->added = (gk__tok_added *)gk__u_calloc(gk_json_len(added), sizeof(gk__tok_added));
        if (!t->added) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    t->nadded = gk_json_len(added);
    for (i = 0; i < t->nadded; i++) {
        const gk_json_value *a = gk_json_at(added, i), *c = gk_json_get(a, "content");
        gk__tok_added *ad = &t->added[i];
        ad->id = (int32_t)gk_json_get_int(a, "id", 0);
        ad->len = gk_json_len(c);
        ad->content = gk__u_strndup(gk_json_str(c, ""), ad->len);
        if (!ad->content) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
        ad->special = (unsigned char)gk_json_get_bool(a, "special", 0);
        ad->lstrip = (unsigned char)gk_json_get_bool(a, "lstrip", 0);
        ad->rstrip = (unsigned char)gk_json_get_bool(a, "rstrip", 0);
        ad->single_word = (unsigned char)gk_json_get_bool(a, "single_word", 0);
        ad->normalized = (unsigned char)gk_json_get_bool(a, "normalized", !ad->special);
        if (ad->normalized) t->has_normalized_added = 1;
        if (t->tok_off[ad->id] == (size_t)-1 && (s = gk__tok_set_text(t, ad->id, ad->content, ad->len)) != GK_OK) return s;
        if (ad->special) t->special[ad->id] = 1;
    }
    /* vocab map (pool pointers are final now: re-resolve) */
    for (i = 0; i < t->nid; i++) {
        if (t->tok_off[i] == (size_t)-1) continue;
        if (gk__u_smap_put(&t->vocab, t->pool.data + t->tok_off[i], t->tok_len[i], (int32_t)i, NULL) < 0)
            return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    }
    /* added-token index by first byte, longest first */
    if (t->nadded) {
        uint32_t cnt[256], j;
        t->added_by_byte = (uint32_t *)gk__u_malloc(t->nadded * sizeof(uint32_t));
        if (!t->added_by_byte) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
        memset(cnt, 0, sizeof cnt);
        for (i = 0; i < t->nadded; i++) cnt[(unsigned char)t->added[i].content[0]]++;
        t->added_start[0] = 0;
        for (j = 0; j < 256; j++) t->added_start[j + 1] = t->added_start[j] + cnt[j];
        memset(cnt, 0, sizeof cnt);
        for (i = 0; i < t->nadded; i++) {
            unsigned b = (unsigned char)t->added[i].content[0];
            t->added_by_byte[t->added_start[b] + cnt[b]++] = (uint32_t)i;
        }
        for (j = 0; j < 256; j++) { /* insertion sort by length desc (stable) */
            uint32_t a0 = t->added_start[j], a1 = t->added_start[j + 1], x, y;
            for (x = a0 + 1; x < a1; x++) {
                uint32_t v = t->added_by_byte[x];
                y = x;
                while (y > a0 && gk__tok_added_cmp_len(&t->added_by_byte[y - 1], &v, t->added) > 0) {
                    t->added_by_byte[y] = t->added_by_byte[y - 1];
                    y--;
                }
                t->added_by_byte[y] = v;
            }
        }
    }
    /* components */
    if ((s = gk__tok_parse_norm(t, gk_json_get(root, "normalizer"), 0)) != GK_OK) return s;
    if ((s = gk__tok_parse_pre(t, gk_json_get(root, "pre_tokenizer"), 0)) != GK_OK) return s;
    if ((s = gk__tok_parse_post(t, gk_json_get(root, "post_processor"), 0)) != GK_OK) return s;
    if ((s = gk__tok_parse_dec(t, gk_json_get(root, "decoder"), 0)) != GK_OK) return s;
    {   /* HF fails at the first text that needs an unk_token missing from the vocab; here, at load */
        const gk_json_value *u = gk_json_get(model, "unk_token");
        t->unk_id = gk_json_typeof(u) == GK_JSON_STRING ? gk__u_smap_get(&t->vocab, gk_json_str(u, ""), gk_json_len(u)) : -1;
        if (gk_json_typeof(u) == GK_JSON_STRING && t->unk_id < 0)
            return GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: model.unk_token %s is not in the vocab", gk__json_show(u, vb, sizeof vb));
    }
    /* byte tokens */
    for (i = 0; i < 256; i++) {
        char b[8];
        if (t->bytelevel) {
            size_t n = gk__u_utf8_enc(gk__tok_bl_cp((unsigned)i), b);
            t->byte_tok[i] = gk__u_smap_get(&t->vocab, b, n);
        } else {
            snprintf(b, sizeof b, "<0x%02X>", (unsigned)i);
            t->byte_tok[i] = gk__u_smap_get(&t->vocab, b, 6);
        }
    }
    /* raw-byte vocab for byte-level models */
    if (t->bytelevel) {
        size_t *roff = (size_t *)gk__u_malloc(t->nid * sizeof(size_t));
        uint32_t *rlen = (uint32_t *)gk__u_malloc(t->nid * sizeof(uint32_t));
        if (!roff || !rlen || !gk__u_smap_init(&t->raw, nv)) {
            gk__u_free(roff);
            gk__u_free(rlen);
            return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
        }
        for (i = 0; i < t->nid; i++) {
            const unsigned char *p;
            size_t n, j = 0, start = t->rawpool.len;
            int ok = 1;
            roff[i] = (size_t)-1;
            if (t->tok_off[i] == (size_t)-1) continue;
            p = (const unsigned char *)t->pool.data + t->tok_off[i];
            n = t->tok_len[i];
            while (j < n) {
                uint32_t cp;
                int k = gk__u_utf8_dec(p + j, n - j, &cp), b;
                unsigned char bb;
                if (k <= 0 || (b = gk__tok_bl_byte(cp)) < 0) { ok = 0; break; }
                bb = (unsigned char)b;
                if (gk_buf_append(&t->rawpool, &bb, 1) != GK_OK) { gk__u_free(roff); gk__u_free(rlen); return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory"); }
                j += (size_t)k;
            }
            if (!ok) { t->rawpool.len = start; continue; }
            roff[i] = start;
            rlen[i] = (uint32_t)(t->rawpool.len - start);
        }
        for (i = 0; i < t->nid; i++)
            if (roff[i] != (size_t)-1 && rlen[i] &&
                gk__u_smap_put(&t->raw, t->rawpool.data + roff[i], rlen[i], (int32_t)i, NULL) < 0) {
                gk__u_free(roff);
                gk__u_free(rlen);
                return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
            }
        gk__u_free(roff);
        gk__u_free(rlen);
    }
    /* merges: every exit goes through the one gk_buf_free(&tmp) below */
    if (!gk__u_umap_init(&t->merges, gk_json_len(merges))) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    s = GK_OK;
    for (i = 0; i < gk_json_len(merges); i++) {
        const gk_json_value *m = gk_json_at(merges, i);
        const char *a, *b;
        size_t la, lb;
        int32_t ia, ib, inew;
        uint64_t key, val;
        if (gk_json_typeof(m) == GK_JSON_STRING) {
            const char *str = gk_json_str(m, ""), *sp = (const char *)memchr(str, ' ', gk_json_len(m));
            if (gk_json_len(m) >= 8 && memcmp(str, "#version", 8) == 0) continue;
            if (!sp || memchr(sp + 1, ' ', gk_json_len(m) - (size_t)(sp + 1 - str))) {
                s = GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: merges[%llu] \"%.60s\" is not two tokens separated by one space", (unsigned long long)(i), str);
                break;
            }
            a = str;
            la = (size_t)(sp - str);
            b = sp + 1;
            lb = gk_json_len(m) - la - 1;
        } else if (gk_json_typeof(m) == GK_JSON_ARRAY && gk_json_len(m) == 2 &&
                   gk_json_typeof(gk_json_at(m, 0)) == GK_JSON_STRING && gk_json_typeof(gk_json_at(m, 1)) == GK_JSON_STRING) {
            a = gk_json_str(gk_json_at(m, 0), "");
            la = gk_json_len(gk_json_at(m, 0));
            b = gk_json_str(gk_json_at(m, 1), "");
            lb = gk_json_len(gk_json_at(m, 1));
        } else {
            s = GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: merges[%llu] is neither \"a b\" nor [\"a\", \"b\"]", (unsigned long long)(i));
            break;
        }
        ia = gk__u_smap_get(&t->vocab, a, la);
        ib = gk__u_smap_get(&t->vocab, b, lb);
        if (ia < 0 || ib < 0) {
            s = GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: merges[%llu]: token '%.40s' is not in the vocab", (unsigned long long)(i), ia < 0 ? a : b);
            break;
        }
        tmp.len = 0;
        if (gk_buf_append(&tmp, a, la) != GK_OK || gk_buf_append(&tmp, b, lb) != GK_OK) {
            s = GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
            break;
        }
        inew = gk__u_smap_get(&t->vocab, tmp.data, tmp.len);
        if (inew < 0) {
            s = GK__U_ERR(GK_ERR_FORMAT, "tokenizer.json: merges[%llu]: merged token '%.60s' is not in the vocab", (unsigned long long)(i), tmp.data);
            break;
        }
        key = ((uint64_t)(uint32_t)ia << 32) | (uint32_t)ib;
        val = ((uint64_t)i << 32) | (uint32_t)inew;
        if (gk__u_umap_put(&t->merges, key, val) < 0) {
            s = GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
            break;
        }
    }
    gk_buf_free(&tmp);
    return s;
}

GKLLMDEF gk_status gk_tokenizer_from_json(const gk_json_value *root, gk_tokenizer **out) {
    gk_tokenizer *t;
    gk_status s;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_from_json: out is NULL");
    *out = NULL;
    if (!root) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_from_json: root is NULL");
    t = (gk_tokenizer *)gk__u_calloc(1, sizeof(gk_tokenizer));
    if (!t) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
    t->unk_id = -1;
    s = gk__tok_build(t, root);
    if (s != GK_OK) {
        gk_tokenizer_free(t);
        return s;
    }
    *out = t;
    return GK_OK;
}

GKLLMDEF gk_status gk_tokenizer_load_mem(const char *json, size_t len, gk_tokenizer **out) {
    gk_json *doc;
    gk_status s;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_load_mem: out is NULL");
    *out = NULL;
    if (!json && len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_load_mem: json is NULL but len is %llu", (unsigned long long)len);
    s = gk_json_parse(json, len, NULL, &doc);
    if (s != GK_OK) return s;
    s = gk_tokenizer_from_json(gk_json_root(doc), out);
    gk_json_free(doc);
    return s;
}

GKLLMDEF gk_status gk_tokenizer_load(const char *path, gk_tokenizer **out) {
    gk_json *doc;
    gk_status s;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_load: out is NULL");
    *out = NULL;
    if (!path) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_load: path is NULL");
    s = gk_json_parse_file(path, NULL, &doc);
    if (s != GK_OK) return s;
    s = gk_tokenizer_from_json(gk_json_root(doc), out);
    if (s != GK_OK) { /* "tokenizer.json: x" -> "<path>: x" */
        char msg[900];
        gk__u_errcopy(msg, sizeof msg);
        gk_error_set(NULL, s, "%s: %s", path, strncmp(msg, "tokenizer.json: ", 16) == 0 ? msg + 16 : msg);
    }
    gk_json_free(doc);
    return s;
}

GKLLMDEF size_t gk_tokenizer_vocab_size(const gk_tokenizer *t) { return t ? t->nid : 0; }
GKLLMDEF const char *gk_tokenizer_id_to_token(const gk_tokenizer *t, int32_t id, size_t *len) {
    if (!t || id < 0 || (size_t)id >= t->nid || t->tok_off[id] == (size_t)-1) {
        if (len) *len = 0;
        return NULL;
    }
    if (len) *len = t->tok_len[id];
    return t->pool.data + t->tok_off[id];
}
GKLLMDEF int32_t gk_tokenizer_token_to_id(const gk_tokenizer *t, const char *s, size_t n) {
    return (t && s) ? gk__u_smap_get(&t->vocab, s, n) : -1;
}
GKLLMDEF int gk_tokenizer_is_special(const gk_tokenizer *t, int32_t id) {
    return t && id >= 0 && (size_t)id < t->nid && t->special[id];
}

/* >>tok_encode: pre-tokenizers, BPE merges, encoding */
/* ---- encoding ---- */
typedef struct gk__tok_heap_item { uint32_t rank, pos; int32_t newid; } gk__tok_heap_item;

typedef struct gk__tok_enc {
    const gk_tokenizer *t;
    gk_ids *out;
    int32_t *sym, *prv, *nxt;
    size_t scap;
    gk__tok_heap_item *heap;
    size_t hn, hcap;
    gk_buf norm, norm2, pre;
} gk__tok_enc;

static void gk__tok_enc_free(gk__tok_enc *e) {
    gk__u_free(e->sym);
    gk__u_free(e->prv);
    gk__u_free(e->nxt);
    gk__u_free(e->heap);
    gk_buf_free(&e->norm);
    gk_buf_free(&e->norm2);
    gk_buf_free(&e->pre);
}

static int gk__tok_heap_less(const gk__tok_heap_item *a, const gk__tok_heap_item *b) {
    return a->rank < b->rank || (a->rank == b->rank && a->pos < b->pos);
}
static int gk__tok_heap_push(gk__tok_enc *e, uint32_t rank, uint32_t pos, int32_t newid) {
    size_t i;
    if (e->hn == e->hcap && !gk__u_grow((void **)&e->heap, &e->hcap, e->hn + 1, sizeof(gk__tok_heap_item))) return 0;
    i = e->hn++;
    e->heap[i].rank = rank;
    e->heap[i].pos = pos;
    e->heap[i].newid = newid;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        gk__tok_heap_item tmp;
        if (!gk__tok_heap_less(&e->heap[i], &e->heap[p])) break;
        tmp = e->heap[i]; e->heap[i] = e->heap[p]; e->heap[p] = tmp;
        i = p;
    }
    return 1;
}
static gk__tok_heap_item gk__tok_heap_pop(gk__tok_enc *e) {
    gk__tok_heap_item top = e->heap[0];
    size_t i = 0;
    e->heap[0] = e->heap[--e->hn];
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        gk__tok_heap_item tmp;
        if (l < e->hn && gk__tok_heap_less(&e->heap[l], &e->heap[m])) m = l;
        if (r < e->hn && gk__tok_heap_less(&e->heap[r], &e->heap[m])) m = r;
        if (m == i) break;
        tmp = e->heap[i]; e->heap[i] = e->heap[m]; e->heap[m] = tmp;
        i = m;
    }
    return top;
}

static int gk__tok_merge_get(const gk_tokenizer *t, int32_t a, int32_t b, uint32_t *rank, int32_t *newid) {
    uint64_t v;
    if (!gk__u_umap_get(&t->merges, ((uint64_t)(uint32_t)a << 32) | (uint32_t)b, &v)) return 0;
    *rank = (uint32_t)(v >> 32);
    *newid = (int32_t)(uint32_t)v;
    return 1;
}

#define GK__TOK_OOM_ENC GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory while encoding")

/* BPE of one pre-token */
static gk_status gk__tok_bpe(gk__tok_enc *e, const unsigned char *s, size_t n) {
    const gk_tokenizer *t = e->t;
    size_t ns = 0, i;
    int32_t *sym;
    if (!n) return GK_OK;
    if (t->ignore_merges) {
        int32_t id = t->bytelevel ? gk__u_smap_get(&t->raw, (const char *)s, n) : gk__u_smap_get(&t->vocab, (const char *)s, n);
        if (id >= 0) return gk_ids_push(e->out, id);
    }
    if (n > e->scap) {
        size_t c = e->scap;
        if (!gk__u_grow((void **)&e->sym, &c, n, sizeof(int32_t))) return GK__TOK_OOM_ENC;
        c = e->scap;
        if (!gk__u_grow((void **)&e->prv, &c, n, sizeof(int32_t))) return GK__TOK_OOM_ENC;
        c = e->scap;
        if (!gk__u_grow((void **)&e->nxt, &c, n, sizeof(int32_t))) return GK__TOK_OOM_ENC;
        e->scap = c;
    }
    sym = e->sym;
    if (t->bytelevel) {
        for (i = 0; i < n; i++) {
            int32_t id = t->byte_tok[s[i]];
            if (id >= 0) sym[ns++] = id;
            else if (t->unk_id >= 0 && !(t->fuse_unk && ns && sym[ns - 1] == t->unk_id)) sym[ns++] = t->unk_id;
        }
    } else {
        i = 0;
        while (i < n) {
            uint32_t cp;
            int k = gk__u_utf8_dec(s + i, n - i, &cp);
            size_t cl = k > 0 ? (size_t)k : 1, j;
            int32_t id = k > 0 ? gk__u_smap_get(&t->vocab, (const char *)s + i, cl) : -1;
            if (id >= 0) sym[ns++] = id;
            else {
                int ok = t->byte_fallback;
                for (j = 0; ok && j < cl; j++)
                    if (t->byte_tok[s[i + j]] < 0) ok = 0;
                if (ok) {
                    for (j = 0; j < cl; j++) sym[ns++] = t->byte_tok[s[i + j]];
                } else if (t->unk_id >= 0 && !(t->fuse_unk && ns && sym[ns - 1] == t->unk_id)) {
                    sym[ns++] = t->unk_id;
                }
            }
            i += cl;
        }
    }
    if (ns <= 1) return ns ? gk_ids_push(e->out, sym[0]) : GK_OK;
    if (ns <= 48) {
        /* short word: repeated scan for the lowest-rank (then leftmost) pair */
        for (;;) {
            uint32_t best = UINT32_MAX, r;
            size_t bi = 0;
            int32_t bnew = 0, nw;
            for (i = 0; i + 1 < ns; i++)
                if (gk__tok_merge_get(t, sym[i], sym[i + 1], &r, &nw) && r < best) {
                    best = r;
                    bi = i;
                    bnew = nw;
                }
            if (best == UINT32_MAX) break;
            sym[bi] = bnew;
            memmove(sym + bi + 1, sym + bi + 2, (ns - bi - 2) * sizeof(int32_t));
            ns--;
        }
        for (i = 0; i < ns; i++)
            if (gk_ids_push(e->out, sym[i]) != GK_OK) return GK__TOK_OOM_ENC;
        return GK_OK;
    }
    /* long word: linked list + priority queue (like HF word.rs merge_all) */
    {
        int32_t *prv = e->prv, *nxt = e->nxt;
        int32_t first = 0;
        e->hn = 0;
        for (i = 0; i < ns; i++) {
            prv[i] = (int32_t)i - 1;
            nxt[i] = (i + 1 < ns) ? (int32_t)i + 1 : -1;
        }
        for (i = 0; i + 1 < ns; i++) {
            uint32_t r;
            int32_t nw;
            if (gk__tok_merge_get(t, sym[i], sym[i + 1], &r, &nw) && !gk__tok_heap_push(e, r, (uint32_t)i, nw)) return GK__TOK_OOM_ENC;
        }
        while (e->hn) {
            gk__tok_heap_item top = gk__tok_heap_pop(e);
            int32_t p = (int32_t)top.pos, q, nw;
            uint32_t r;
            if (sym[p] < 0) continue;            /* removed */
            q = nxt[p];
            if (q < 0) continue;
            if (!gk__tok_merge_get(t, sym[p], sym[q], &r, &nw) || nw != top.newid) continue;
            sym[p] = top.newid;
            sym[q] = -1;
            nxt[p] = nxt[q];
            if (nxt[q] >= 0) prv[nxt[q]] = p;
            if (prv[p] >= 0 && gk__tok_merge_get(t, sym[prv[p]], sym[p], &r, &nw) && !gk__tok_heap_push(e, r, (uint32_t)prv[p], nw))
                return GK__TOK_OOM_ENC;
            if (nxt[p] >= 0 && gk__tok_merge_get(t, sym[p], sym[nxt[p]], &r, &nw) && !gk__tok_heap_push(e, r, (uint32_t)p, nw))
                return GK__TOK_OOM_ENC;
        }
        {
            int32_t q;
            for (q = first; q >= 0; q = nxt[q])
                if (gk_ids_push(e->out, sym[q]) != GK_OK) return GK__TOK_OOM_ENC;
        }
    }
    return GK_OK;
}

/* character class at s[i] for the scanners: L, N, WS or OTHER (marks,
   punctuation, symbols and invalid bytes are OTHER) */
static int gk__tok_scls(const unsigned char *s, size_t n, size_t i, size_t *len) {
    unsigned c = s[i];
    uint32_t cp;
    int k, cl;
    if (c < 0x80) {
        *len = 1;
        if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return GK__UNI_L;
        if (c >= '0' && c <= '9') return GK__UNI_N;
        if (c == ' ' || (c >= 9 && c <= 13)) return GK__UNI_WS;
        return GK__UNI_OTHER;
    }
    k = gk__u_utf8_dec(s + i, n - i, &cp);
    if (k <= 0) { *len = 1; return GK__UNI_OTHER; }
    *len = (size_t)k;
    cl = gk__uni_class(cp);
    return cl == GK__UNI_M ? GK__UNI_OTHER : cl;
}

/* 's 't 're 've 'm 'll 'd at s[i]=='\''; returns match length or 0 */
static size_t gk__tok_contraction(const unsigned char *s, size_t n, size_t i, int ci) {
    unsigned a, b;
    if (i + 1 >= n) return 0;
    a = s[i + 1];
    if (ci && a >= 'A' && a <= 'Z') a |= 0x20;
    if (a == 's' || a == 't' || a == 'm' || a == 'd') return 2;
    if (ci && a == 0xC5 && i + 2 < n && s[i + 2] == 0xBF) return 3; /* U+017F LONG S folds to 's' */
    if (i + 2 >= n) return 0;
    b = s[i + 2];
    if (ci && b >= 'A' && b <= 'Z') b |= 0x20;
    if ((a == 'r' && b == 'e') || (a == 'v' && b == 'e') || (a == 'l' && b == 'l')) return 3;
    return 0;
}

static gk_status gk__tok_stage(gk__tok_enc *e, size_t k, const unsigned char *s, size_t n);

static gk_status gk__tok_scan(gk__tok_enc *e, size_t k, const unsigned char *s, size_t n, int mode) {
    size_t i = 0;
    gk_status st;
    while (i < n) {
        size_t l0, end, j, l;
        int k0 = gk__tok_scls(s, n, i, &l0);
        unsigned c0 = s[i];
        if (c0 == '\'') {
            size_t m = gk__tok_contraction(s, n, i, mode != GK__TOK_SCAN_GPT2);
            if (m) { end = i + m; goto emit; }
        }
        if (mode == GK__TOK_SCAN_GPT2) {
            j = (c0 == ' ') ? i + 1 : i;
            if (j < n) {
                int kj = gk__tok_scls(s, n, j, &l);
                if (kj != GK__UNI_WS) {
                    end = j + l;
                    while (end < n && gk__tok_scls(s, n, end, &l) == kj) end += l;
                    goto emit;
                }
            }
        } else {
            if (k0 == GK__UNI_L) {
                end = i + l0;
                while (end < n && gk__tok_scls(s, n, end, &l) == GK__UNI_L) end += l;
                goto emit;
            }
            if (k0 != GK__UNI_N && c0 != '\r' && c0 != '\n' && i + l0 < n && gk__tok_scls(s, n, i + l0, &l) == GK__UNI_L) {
                end = i + l0 + l;
                while (end < n && gk__tok_scls(s, n, end, &l) == GK__UNI_L) end += l;
                goto emit;
            }
            if (k0 == GK__UNI_N) {
                int cnt = 1, maxd = mode == GK__TOK_SCAN_LLAMA3 ? 3 : 1;
                end = i + l0;
                while (cnt < maxd && end < n && gk__tok_scls(s, n, end, &l) == GK__UNI_N) { end += l; cnt++; }
                goto emit;
            }
            j = (c0 == ' ') ? i + 1 : i;
            if (j < n && gk__tok_scls(s, n, j, &l) == GK__UNI_OTHER) {
                end = j + l;
                while (end < n && gk__tok_scls(s, n, end, &l) == GK__UNI_OTHER) end += l;
                while (end < n && (s[end] == '\r' || s[end] == '\n')) end++;
                goto emit;
            }
        }
        /* whitespace run at i */
        {
            size_t run = i, last_start = i, last_nl = (size_t)-1;
            while (run < n && gk__tok_scls(s, n, run, &l) == GK__UNI_WS) {
                if (s[run] == '\r' || s[run] == '\n') last_nl = run;
                last_start = run;
                run += l;
            }
            if (run == i) { end = i + l0; goto emit; } /* cannot happen; keeps progress */
            if (mode != GK__TOK_SCAN_GPT2 && last_nl != (size_t)-1) { end = last_nl + 1; goto emit; }
            end = (run == n || last_start == i) ? run : last_start;
        }
    emit:
        if ((st = gk__tok_stage(e, k + 1, s + i, end - i)) != GK_OK) return st;
        i = end;
    }
    return GK_OK;
}

static gk_status gk__tok_stage(gk__tok_enc *e, size_t k, const unsigned char *s, size_t n) {
    const gk_tokenizer *t = e->t;
    if (!n) return GK_OK;
    if (k >= t->nscan) return gk__tok_bpe(e, s, n);
    if (t->scan[k] == GK__TOK_SCAN_META) {
        size_t i, start = 0, rl = t->meta_repl_len;
        gk_status st;
        for (i = 1; i + rl <= n; i++)
            if (memcmp(s + i, t->meta_repl, rl) == 0) {
                if ((st = gk__tok_stage(e, k + 1, s + start, i - start)) != GK_OK) return st;
                start = i;
            }
        return gk__tok_stage(e, k + 1, s + start, n - start);
    }
    return gk__tok_scan(e, k, s, n, t->scan[k]);
}

/* pre-tokenizer transforms, then splits and BPE */
static gk_status gk__tok_pretok(gk__tok_enc *e, const unsigned char *s, size_t n, int first) {
    const gk_tokenizer *t = e->t;
    gk_status st;
    if (!n) return GK_OK;
    if (t->prefix_space && s[0] != ' ') {
        e->pre.len = 0;
        if ((st = gk_buf_append(&e->pre, " ", 1)) != GK_OK || (st = gk_buf_append(&e->pre, s, n)) != GK_OK) return st;
        s = (const unsigned char *)e->pre.data;
        n = e->pre.len;
    } else if (t->meta) {
        size_t i;
        int pre = t->meta_prepend == 1 || (t->meta_prepend == 2 && first);
        e->pre.len = 0;
        if (pre && !(s[0] == ' ' || (n >= t->meta_repl_len && memcmp(s, t->meta_repl, t->meta_repl_len) == 0)))
            if ((st = gk_buf_append(&e->pre, t->meta_repl, t->meta_repl_len)) != GK_OK) return st;
        for (i = 0; i < n; i++) {
            st = s[i] == ' ' ? gk_buf_append(&e->pre, t->meta_repl, t->meta_repl_len) : gk_buf_append(&e->pre, s + i, 1);
            if (st != GK_OK) return st;
        }
        s = (const unsigned char *)e->pre.data;
        n = e->pre.len;
    }
    return gk__tok_stage(e, 0, s, n);
}

static int gk__tok_is_ws_char(const unsigned char *s, size_t n, size_t i, size_t *len) {
    return gk__tok_scls(s, n, i, len) == GK__UNI_WS;
}
static int gk__tok_is_word_at(const unsigned char *s, size_t n, size_t i) {
    size_t l;
    int c = gk__tok_scls(s, n, i, &l);
    uint32_t cp;
    if (c == GK__UNI_L || c == GK__UNI_N || s[i] == '_') return 1;
    if (s[i] >= 0x80 && gk__u_utf8_dec(s + i, n - i, &cp) > 0 && gk__uni_class(cp) == GK__UNI_M) return 1;
    return 0;
}

/* next added-token match in s[from..n); (ms, me) include lstrip/rstrip whitespace */
static int gk__tok_find_added(const gk_tokenizer *t, const unsigned char *s, size_t n, size_t from, int want_norm, int skip_special,
                          size_t *ms, size_t *me, uint32_t *idx) {
    size_t i;
    for (i = from; i < n; i++) {
        uint32_t a0 = t->added_start[s[i]], a1 = t->added_start[s[i] + 1], x;
        for (x = a0; x < a1; x++) {
            const gk__tok_added *ad = &t->added[t->added_by_byte[x]];
            size_t st, en, l;
            if ((int)ad->normalized != want_norm || (skip_special && ad->special)) continue;
            if (ad->len > n - i || memcmp(s + i, ad->content, ad->len) != 0) continue;
            st = i;
            en = i + ad->len;
            if (ad->single_word) {
                size_t b = i;
                if (b > 0) {
                    b--;
                    while (b > 0 && (s[b] & 0xC0) == 0x80) b--;
                    if (gk__tok_is_word_at(s, n, b)) continue;
                }
                if (en < n && gk__tok_is_word_at(s, n, en)) continue;
            }
            if (ad->lstrip)
                while (st > from) {
                    size_t b = st - 1;
                    while (b > from && (s[b] & 0xC0) == 0x80) b--;
                    if (!gk__tok_is_ws_char(s, n, b, &l) || b + l != st) break;
                    st = b;
                }
            if (ad->rstrip)
                while (en < n && gk__tok_is_ws_char(s, n, en, &l)) en += l;
            *ms = st;
            *me = en;
            *idx = t->added_by_byte[x];
            return 1;
        }
    }
    return 0;
}

static gk_status gk__tok_normalize(gk__tok_enc *e, const unsigned char *s, size_t n, const unsigned char **out, size_t *outn) {
    const gk_tokenizer *t = e->t;
    size_t k;
    gk_status st = GK_OK;
    gk_buf *cur = NULL, *nxt = &e->norm;
    /* A hostile tokenizer.json can chain Replace steps that each multiply the
       text (fuzz_json found 2 KB of JSON asking for 4 GiB). Models' own
       normalizers grow text a few times at most, so past 64x + 1 MiB this is an
       error, not an allocation. */
    size_t cap = (n > ((size_t)-1 - ((size_t)1 << 20)) / 64 ? (size_t)-1 : 64 * n + ((size_t)1 << 20));
    for (k = 0; k < t->nnorm; k++) {
        const gk__tok_op *op = &t->norm[k];
        const unsigned char *p = cur ? (const unsigned char *)cur->data : s;
        size_t pn = cur ? cur->len : n;
        nxt->len = 0;
        if (op->kind == GK__TOK_NORM_NFC) st = gk__uni_nfc(p, pn, nxt);
        else if (op->kind == GK__TOK_NORM_PREPEND) {
            if (pn) st = gk_buf_append(nxt, op->a, op->alen);
            if (st == GK_OK) st = gk_buf_append(nxt, p, pn);
        } else { /* replace */
            size_t i = 0, run = 0;
            while (st == GK_OK && i + op->alen <= pn && nxt->len <= cap) {
                if (memcmp(p + i, op->a, op->alen) == 0) {
                    st = gk_buf_append(nxt, p + run, i - run);
                    if (st == GK_OK) st = gk_buf_append(nxt, op->b, op->blen);
                    i += op->alen;
                    run = i;
                } else i++;
            }
            if (st == GK_OK && nxt->len <= cap) st = gk_buf_append(nxt, p + run, pn - run);
        }
        if (st != GK_OK) return st;
        if (nxt->len > cap)
            return GK__U_ERR(GK_ERR_LIMIT, "tokenizer: normalizer step %llu grew %llu bytes of text past %llu (64x + 1 MiB); the tokenizer.json normalizers are not a model's",
                             (unsigned long long)k, (unsigned long long)n, (unsigned long long)cap);
        cur = nxt;
        nxt = (cur == &e->norm) ? &e->norm2 : &e->norm;
    }
    *out = cur ? (const unsigned char *)(cur->data ? cur->data : "") : s;
    *outn = cur ? cur->len : n;
    return GK_OK;
}

static gk_status gk__tok_segment(gk__tok_enc *e, const unsigned char *s, size_t n, int first, int skip_special) {
    const gk_tokenizer *t = e->t;
    const unsigned char *p = NULL;
    size_t pn = 0, pos = 0, ms, me;
    uint32_t idx;
    gk_status st;
    if ((st = gk__tok_normalize(e, s, n, &p, &pn)) != GK_OK) return st;
    if (!t->has_normalized_added) return gk__tok_pretok(e, p, pn, first);
    for (;;) {
        int found = gk__tok_find_added(t, p, pn, pos, 1, skip_special, &ms, &me, &idx);
        size_t end = found ? ms : pn;
        if (end > pos && (st = gk__tok_pretok(e, p + pos, end - pos, first && pos == 0)) != GK_OK) return st;
        if (!found) break;
        if ((st = gk_ids_push(e->out, t->added[idx].id)) != GK_OK) return st;
        pos = me;
    }
    return GK_OK;
}

GKLLMDEF gk_status gk_tokenizer_encode(const gk_tokenizer *t, const char *text, size_t len, unsigned flags, gk_ids *out) {
    gk__tok_enc e;
    const unsigned char *s = (const unsigned char *)text;
    size_t pos = 0, i, ms, me;
    uint32_t idx;
    gk_status st = GK_OK;
    int skip_special = (flags & GK_TOK_SPLIT_SPECIAL) != 0;
    if (!t) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_encode: tok is NULL");
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_encode: out is NULL");
    if (!text && len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_encode: text is NULL but len is %llu", (unsigned long long)len);
    if (flags & ~(unsigned)(GK_TOK_ADD_SPECIAL | GK_TOK_SPLIT_SPECIAL))
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_encode: flags 0x%x has bits that are not encode flags (GK_TOK_ADD_SPECIAL, GK_TOK_SPLIT_SPECIAL)", flags);
    memset(&e, 0, sizeof e);
    e.t = t;
    e.out = out;
    if (flags & GK_TOK_ADD_SPECIAL)
        for (i = 0; i < t->npre && st == GK_OK; i++) st = gk_ids_push(out, t->pre[i]);
    while (st == GK_OK) {
        int found = t->nadded && gk__tok_find_added(t, s, len, pos, 0, skip_special, &ms, &me, &idx);
        size_t end = found ? ms : len;
        if (end > pos && (st = gk__tok_segment(&e, s + pos, end - pos, pos == 0, skip_special)) != GK_OK) break;
        if (!found) break;
        if ((st = gk_ids_push(out, t->added[idx].id)) != GK_OK) break;
        pos = me;
    }
    if (st == GK_OK && (flags & GK_TOK_ADD_SPECIAL))
        for (i = 0; i < t->npost && st == GK_OK; i++) st = gk_ids_push(out, t->post[i]);
    gk__tok_enc_free(&e);
    return st;
}

/* >>tok_decode: decoding, streaming decode */
/* ---- decoding ---- */
/* A list of strings held in one buffer (the HF decoder chain works on token lists). */
typedef struct gk__u_strv { gk_buf b; size_t *off, *len; size_t n, cap; } gk__u_strv;
static void gk__u_strv_free(gk__u_strv *v) { gk_buf_free(&v->b); gk__u_free(v->off); gk__u_free(v->len); memset(v, 0, sizeof *v); }
static gk_status gk__u_strv_begin(gk__u_strv *v) {
    if (v->n == v->cap) {
        size_t c = v->cap;
        if (!gk__u_grow((void **)&v->off, &c, v->n + 1, sizeof(size_t))) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
        c = v->cap;
        if (!gk__u_grow((void **)&v->len, &c, v->n + 1, sizeof(size_t))) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "out of memory");
        v->cap = c;
    }
    v->off[v->n] = v->b.len;
    v->len[v->n] = 0;
    v->n++;
    return GK_OK;
}
static gk_status gk__u_strv_add(gk__u_strv *v, const void *p, size_t n) { /* append to the last string */
    gk_status s = gk_buf_append(&v->b, p, n);
    if (s == GK_OK) v->len[v->n - 1] += n;
    return s;
}
static const unsigned char *gk__u_strv_at(const gk__u_strv *v, size_t i) {
    return v->b.data ? (const unsigned char *)v->b.data + v->off[i] : (const unsigned char *)"";
}

/* raw bytes of a token under the ByteLevel decoder */
static gk_status gk__tok_bl_token_bytes(const unsigned char *p, size_t n, gk_buf *out) {
    size_t j = 0, start = out->len;
    while (j < n) {
        uint32_t cp;
        int k = gk__u_utf8_dec(p + j, n - j, &cp), b;
        unsigned char bb;
        gk_status s;
        if (k <= 0 || (b = gk__tok_bl_byte(cp)) < 0) { /* not a mapped token: its text as is */
            out->len = start;
            return gk_buf_append(out, p, n);
        }
        bb = (unsigned char)b;
        if ((s = gk_buf_append(out, &bb, 1)) != GK_OK) return s;
        j += (size_t)k;
    }
    return GK_OK;
}

static gk_status gk__tok_replace_into(gk__u_strv *dst, const unsigned char *p, size_t n, const gk__tok_op *op) {
    size_t i = 0, run = 0;
    gk_status s = GK_OK;
    while (s == GK_OK && i + op->alen <= n) {
        if (memcmp(p + i, op->a, op->alen) == 0) {
            s = gk__u_strv_add(dst, p + run, i - run);
            if (s == GK_OK) s = gk__u_strv_add(dst, op->b, op->blen);
            i += op->alen;
            run = i;
        } else i++;
    }
    return s == GK_OK ? gk__u_strv_add(dst, p + run, n - run) : s;
}

static gk_status gk__tok_dec_op(const gk__tok_op *op, const gk__u_strv *in, gk__u_strv *out) {
    size_t i, j;
    gk_status s = GK_OK;
    switch (op->kind) {
    case GK__TOK_DOP_BYTELEVEL: {
        gk_buf raw = {NULL, 0, 0};
        for (i = 0; i < in->n && s == GK_OK; i++) s = gk__tok_bl_token_bytes(gk__u_strv_at(in, i), in->len[i], &raw);
        if (s == GK_OK) s = gk__u_strv_begin(out);
        if (s == GK_OK) {
            size_t before = out->b.len;
            s = gk__u_append_lossy(&out->b, (const unsigned char *)(raw.data ? raw.data : ""), raw.len);
            out->len[out->n - 1] = out->b.len - before;
        }
        gk_buf_free(&raw);
        return s;
    }
    case GK__TOK_DOP_REPLACE:
        for (i = 0; i < in->n && s == GK_OK; i++) {
            s = gk__u_strv_begin(out);
            if (s == GK_OK) s = gk__tok_replace_into(out, gk__u_strv_at(in, i), in->len[i], op);
        }
        return s;
    case GK__TOK_DOP_BYTEFALLBACK:
        i = 0;
        while (i < in->n && s == GK_OK) {
            int b = gk__tok_fallback_byte((const char *)gk__u_strv_at(in, i), in->len[i]);
            if (b < 0) {
                s = gk__u_strv_begin(out);
                if (s == GK_OK) s = gk__u_strv_add(out, gk__u_strv_at(in, i), in->len[i]);
                i++;
                continue;
            }
            {
                unsigned char bytes[256];
                size_t nb = 0, q = 0;
                int valid = 1;
                while (i < in->n && nb < sizeof bytes && (b = gk__tok_fallback_byte((const char *)gk__u_strv_at(in, i), in->len[i])) >= 0) {
                    bytes[nb++] = (unsigned char)b;
                    i++;
                }
                while (q < nb) {
                    uint32_t cp;
                    int k = gk__u_utf8_dec(bytes + q, nb - q, &cp);
                    if (k <= 0) { valid = 0; break; }
                    q += (size_t)k;
                }
                s = gk__u_strv_begin(out);
                if (valid) { if (s == GK_OK) s = gk__u_strv_add(out, bytes, nb); }
                else for (j = 0; j < nb && s == GK_OK; j++) s = gk__u_strv_add(out, "\xEF\xBF\xBD", 3);
            }
        }
        return s;
    case GK__TOK_DOP_FUSE:
        s = gk__u_strv_begin(out);
        for (i = 0; i < in->n && s == GK_OK; i++) s = gk__u_strv_add(out, gk__u_strv_at(in, i), in->len[i]);
        return s;
    case GK__TOK_DOP_STRIP:
        for (i = 0; i < in->n && s == GK_OK; i++) {
            const unsigned char *p = gk__u_strv_at(in, i);
            size_t a = 0, e = in->len[i], k;
            for (k = 0; k < op->start && e - a >= op->alen && memcmp(p + a, op->a, op->alen) == 0; k++) a += op->alen;
            for (k = 0; k < op->stop && e - a >= op->alen && memcmp(p + e - op->alen, op->a, op->alen) == 0; k++) e -= op->alen;
            s = gk__u_strv_begin(out);
            if (s == GK_OK) s = gk__u_strv_add(out, p + a, e - a);
        }
        return s;
    case GK__TOK_DOP_METASPACE: {
        gk__tok_op rep;
        memset(&rep, 0, sizeof rep);
        rep.a = op->a;
        rep.alen = op->alen;
        rep.b = (char *)" ";
        rep.blen = 1;
        for (i = 0; i < in->n && s == GK_OK; i++) {
            size_t before;
            s = gk__u_strv_begin(out);
            before = out->b.len;
            if (s == GK_OK) s = gk__tok_replace_into(out, gk__u_strv_at(in, i), in->len[i], &rep);
            if (s == GK_OK && i == 0 && op->prepend && out->len[out->n - 1] && out->b.data[before] == ' ') {
                memmove(out->b.data + before, out->b.data + before + 1, out->len[out->n - 1] - 1);
                out->len[out->n - 1]--;
                out->b.len--;
            }
        }
        return s;
    }
    }
    return GK__U_ERR(GK_ERR_UNSUPPORTED, "unknown decoder op");
}

static gk_status gk__tok_text(const gk_tokenizer *t, int32_t id, const char **p, size_t *n) {
    if (id < 0 || (size_t)id >= t->nid || t->tok_off[id] == (size_t)-1) {
        if (!t->nid) return GK__U_ERR(GK_ERR_NOT_FOUND, "decode: token id %ld is not in the vocabulary (it is empty)", (long)id);
        if (id < 0 || (size_t)id >= t->nid)
            return GK__U_ERR(GK_ERR_NOT_FOUND, "decode: token id %ld is not in the vocabulary (ids 0..%llu)", (long)id, (unsigned long long)(t->nid - 1));
        return GK__U_ERR(GK_ERR_NOT_FOUND, "decode: token id %ld is not in the vocabulary (no token has this id)", (long)id);
    }
    *p = t->pool.data + t->tok_off[id];
    *n = t->tok_len[id];
    return GK_OK;
}

GKLLMDEF gk_status gk_tokenizer_decode(const gk_tokenizer *t, const int32_t *ids, size_t n, unsigned flags, gk_buf *out) {
    gk__u_strv a, b;
    size_t i, k;
    gk_status s = GK_OK;
    if (!t) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_decode: tok is NULL");
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_decode: out is NULL");
    if (!ids && n) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_decode: ids is NULL but n is %llu", (unsigned long long)n);
    if (flags & ~(unsigned)GK_TOK_SKIP_SPECIAL)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tokenizer_decode: flags 0x%x has bits that are not decode flags (GK_TOK_SKIP_SPECIAL)", flags);
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    for (i = 0; i < n && s == GK_OK; i++) {
        const char *p;
        size_t l;
        if ((s = gk__tok_text(t, ids[i], &p, &l)) != GK_OK) break;
        if ((flags & GK_TOK_SKIP_SPECIAL) && t->special[ids[i]]) continue;
        s = gk__u_strv_begin(&a);
        if (s == GK_OK) s = gk__u_strv_add(&a, p, l);
    }
    for (k = 0; k < t->ndec && s == GK_OK; k++) {
        gk__u_strv tmp;
        b.n = 0;
        b.b.len = 0;
        s = gk__tok_dec_op(&t->dec[k], &a, &b);
        tmp = a; a = b; b = tmp;
    }
    for (i = 0; i < a.n && s == GK_OK; i++) {
        if (!t->has_decoder && i && (s = gk_buf_append(out, " ", 1)) != GK_OK) break;
        s = gk__u_append_lossy(out, gk__u_strv_at(&a, i), a.len[i]);
    }
    gk__u_strv_free(&a);
    gk__u_strv_free(&b);
    return s;
}

/* ---- streaming decode ---- */
GKLLMDEF void gk_tok_stream_init(gk_tok_stream *s, const gk_tokenizer *tok, unsigned flags) {
    if (!s) return; /* nothing to report to: gk_tok_stream_push names a NULL stream */
    memset(s, 0, sizeof *s);
    s->tok = tok;
    s->flags = flags;
    s->at_start = 1;
}

/* emit text that is final, applying a leading Strip that follows Fuse */
static gk_status gk__tok_stream_emit(gk_tok_stream *s, const unsigned char *p, size_t n, gk_buf *out) {
    const gk_tokenizer *t = s->tok;
    size_t k;
    if (!n) return GK_OK;
    if (s->at_start) {
        for (k = 1; k < t->ndec; k++)
            if (t->dec[k].kind == GK__TOK_DOP_STRIP && t->dec[k - 1].kind == GK__TOK_DOP_FUSE) {
                while (s->nstripped < t->dec[k].start && n >= t->dec[k].alen && memcmp(p, t->dec[k].a, t->dec[k].alen) == 0) {
                    p += t->dec[k].alen;
                    n -= t->dec[k].alen;
                    s->nstripped++;
                }
            }
        if (!n) return GK_OK;
        s->at_start = 0;
    }
    return gk_buf_append(out, p, n);
}

/* move complete characters from pend to out; invalid sequences become U+FFFD */
static gk_status gk__tok_stream_drain(gk_tok_stream *s, gk_buf *out, int final) {
    gk_status st = GK_OK;
    while (s->npend && st == GK_OK) {
        uint32_t cp;
        int k = gk__u_utf8_dec(s->pend, s->npend, &cp);
        size_t used;
        if (k > 0) {
            st = gk__tok_stream_emit(s, s->pend, (size_t)k, out);
            used = (size_t)k;
        } else if (cp == 0xFFFFFFFEu && !final) {
            break; /* unfinished character: wait */
        } else {
            if (s->pend_is_fallback) { /* HF ByteFallback: one U+FFFD per byte */
                size_t q;
                for (q = 0; q < s->npend && st == GK_OK; q++) st = gk__tok_stream_emit(s, (const unsigned char *)"\xEF\xBF\xBD", 3, out);
                used = s->npend;
            } else {
                st = gk__tok_stream_emit(s, (const unsigned char *)"\xEF\xBF\xBD", 3, out);
                used = (size_t)(-k);
            }
        }
        memmove(s->pend, s->pend + used, s->npend - used);
        s->npend -= used;
    }
    return st;
}

static gk_status gk__tok_stream_bytes(gk_tok_stream *s, const unsigned char *p, size_t n, int fallback, gk_buf *out) {
    size_t i;
    gk_status st = GK_OK;
    if (s->npend && s->pend_is_fallback != fallback) st = gk__tok_stream_drain(s, out, 1);
    s->pend_is_fallback = fallback;
    for (i = 0; i < n && st == GK_OK; i++) {
        if (s->npend == sizeof s->pend) st = gk__tok_stream_drain(s, out, 1);
        s->pend[s->npend++] = p[i];
        st = gk__tok_stream_drain(s, out, 0);
    }
    return st;
}

GKLLMDEF gk_status gk_tok_stream_push(gk_tok_stream *s, int32_t id, gk_buf *out) {
    const gk_tokenizer *t;
    const char *p;
    size_t n, k;
    gk_status st;
    gk__u_strv a, b;
    if (!s) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tok_stream_push: s is NULL");
    if (!s->tok) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tok_stream_push: s->tok is NULL (gk_tok_stream_init was given no tokenizer)");
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tok_stream_push: out is NULL");
    if (s->flags & ~(unsigned)GK_TOK_SKIP_SPECIAL)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tok_stream_push: the stream's flags 0x%x have bits that are not decode flags (GK_TOK_SKIP_SPECIAL)", s->flags);
    t = s->tok;
    if ((st = gk__tok_text(t, id, &p, &n)) != GK_OK) return st;
    if ((s->flags & GK_TOK_SKIP_SPECIAL) && t->special[id]) return GK_OK;
    if (!t->has_decoder) {
        if (s->ntok++ && (st = gk__tok_stream_bytes(s, (const unsigned char *)" ", 1, 0, out)) != GK_OK) return st;
        return gk__tok_stream_bytes(s, (const unsigned char *)p, n, 0, out);
    }
    /* run the per-token part of the chain on this one token */
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    st = gk__u_strv_begin(&a);
    if (st == GK_OK) st = gk__u_strv_add(&a, p, n);
    for (k = 0; k < t->ndec && st == GK_OK; k++) {
        const gk__tok_op *op = &t->dec[k];
        gk__u_strv tmp;
        if (op->kind == GK__TOK_DOP_BYTELEVEL) {
            gk_buf raw = {NULL, 0, 0};
            size_t i;
            for (i = 0; i < a.n && st == GK_OK; i++) st = gk__tok_bl_token_bytes(gk__u_strv_at(&a, i), a.len[i], &raw);
            if (st == GK_OK) st = gk__tok_stream_bytes(s, (const unsigned char *)(raw.data ? raw.data : ""), raw.len, 0, out);
            gk_buf_free(&raw);
            a.n = 0;
            break;
        }
        if (op->kind == GK__TOK_DOP_BYTEFALLBACK) {
            int byte = a.n == 1 ? gk__tok_fallback_byte((const char *)gk__u_strv_at(&a, 0), a.len[0]) : -1;
            if (byte >= 0) {
                unsigned char bb = (unsigned char)byte;
                st = gk__tok_stream_bytes(s, &bb, 1, 1, out);
                a.n = 0;
                break;
            }
            continue;
        }
        if (op->kind == GK__TOK_DOP_FUSE) continue;
        if (op->kind == GK__TOK_DOP_STRIP && k > 0 && t->dec[k - 1].kind == GK__TOK_DOP_FUSE) continue; /* done in emit */
        if (op->kind == GK__TOK_DOP_METASPACE && s->ntok != 0) {
            gk__tok_op o2 = *op;
            o2.prepend = 0;
            b.n = 0; b.b.len = 0;
            st = gk__tok_dec_op(&o2, &a, &b);
        } else {
            b.n = 0; b.b.len = 0;
            st = gk__tok_dec_op(op, &a, &b);
        }
        tmp = a; a = b; b = tmp;
    }
    if (st == GK_OK && a.n) {
        size_t i;
        for (i = 0; i < a.n && st == GK_OK; i++) st = gk__tok_stream_bytes(s, gk__u_strv_at(&a, i), a.len[i], 0, out);
    }
    s->ntok++;
    gk__u_strv_free(&a);
    gk__u_strv_free(&b);
    return st;
}

GKLLMDEF gk_status gk_tok_stream_flush(gk_tok_stream *s, gk_buf *out) {
    if (!s) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tok_stream_flush: s is NULL");
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_tok_stream_flush: out is NULL");
    return gk__tok_stream_drain(s, out, 1);
}

/* ======================================================================== */
/* >>impl_chat                                                              */
/* ======================================================================== */

static void gk__chat_copy(char *dst, size_t cap, const char *src) {
    size_t n = src ? strlen(src) : 0;
    if (n >= cap) n = cap - 1;
    if (n) memcpy(dst, src, n);
    dst[n] = 0;
}
/* bos / eos text must fit gk_chat_template.bos / .eos whole (a cut token would render wrong) */
static gk_status gk__chat_tokens_fit(const char *W, const char *bos, const char *eos) {
    const gk_chat_template *t = NULL;
    if (bos && strlen(bos) >= sizeof t->bos)
        return GK__U_ERR(GK_ERR_LIMIT, "%s: bos \"%.20s...\" is %llu bytes; gk_chat_template holds at most %llu", W, bos, (unsigned long long)strlen(bos),
                         (unsigned long long)(sizeof t->bos - 1));
    if (eos && strlen(eos) >= sizeof t->eos)
        return GK__U_ERR(GK_ERR_LIMIT, "%s: eos \"%.20s...\" is %llu bytes; gk_chat_template holds at most %llu", W, eos, (unsigned long long)strlen(eos),
                         (unsigned long long)(sizeof t->eos - 1));
    return GK_OK;
}

GKLLMDEF gk_status gk_chat_template_builtin(const char *name, const char *bos, const char *eos, gk_chat_template *out) {
    static const struct { const char *n; gk_chat_format f; } names[] = {
        {"chatml", GK_CHAT_CHATML}, {"qwen3", GK_CHAT_QWEN3}, {"llama3", GK_CHAT_LLAMA3},
        {"llama2", GK_CHAT_LLAMA2}, {"mistral", GK_CHAT_MISTRAL}};
    size_t i;
    gk_status s;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_template_builtin: out is NULL");
    memset(out, 0, sizeof *out);
    if (!name) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_template_builtin: name is NULL");
    if ((s = gk__chat_tokens_fit("gk_chat_template_builtin", bos, eos)) != GK_OK) return s;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i].n) == 0) {
            out->format = names[i].f;
            gk__chat_copy(out->bos, sizeof out->bos, bos ? bos : (out->format == GK_CHAT_LLAMA3 ? "<|begin_of_text|>" : "<s>"));
            gk__chat_copy(out->eos, sizeof out->eos, eos ? eos : (out->format == GK_CHAT_LLAMA3 ? "<|eot_id|>" : "</s>"));
            return GK_OK;
        }
    return GK__U_ERR(GK_ERR_NOT_FOUND, "no built-in chat format named '%.40s' (chatml, qwen3, llama3, llama2, mistral)", name);
}

GKLLMDEF gk_status gk_chat_template_detect(const char *j, const char *bos, const char *eos, gk_chat_template *out) {
    char quote[64];
    size_t i;
    gk_status s;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_template_detect: out is NULL");
    memset(out, 0, sizeof *out);
    if (!j) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_template_detect: jinja is NULL");
    if ((s = gk__chat_tokens_fit("gk_chat_template_detect", bos, eos)) != GK_OK) return s;
    gk__chat_copy(out->bos, sizeof out->bos, bos);
    gk__chat_copy(out->eos, sizeof out->eos, eos);
    if (strstr(j, "<|im_start|>")) {
        if (strstr(j, "<think>")) out->format = GK_CHAT_QWEN3;
        else {
            out->format = GK_CHAT_CHATML;
            if (strstr(j, "You are Qwen, created by Alibaba Cloud. You are a helpful assistant."))
                gk__chat_copy(out->default_system, sizeof out->default_system,
                              "You are Qwen, created by Alibaba Cloud. You are a helpful assistant.");
            else if (strstr(j, "You are a helpful assistant."))
                gk__chat_copy(out->default_system, sizeof out->default_system, "You are a helpful assistant.");
        }
        return GK_OK;
    }
    if (strstr(j, "<|start_header_id|>")) {
        if (strstr(j, "Cutting Knowledge Date"))
            return GK__U_ERR(GK_ERR_UNSUPPORTED, "chat template: Llama-3.1-style template with a date preamble is not supported");
        out->format = GK_CHAT_LLAMA3;
        out->always_generation_prompt = strstr(j, "add_generation_prompt") == NULL;
        return GK_OK;
    }
    if (strstr(j, "[INST]") && !strstr(j, "[AVAILABLE_TOOLS]")) {
        out->format = strstr(j, "<<SYS>>") ? GK_CHAT_LLAMA2 : GK_CHAT_MISTRAL;
        return GK_OK;
    }
    for (i = 0; i < 60 && j[i]; i++) quote[i] = (j[i] == '\n' || j[i] == '\r' || j[i] == '\t') ? ' ' : j[i];
    quote[i] = 0;
    return GK__U_ERR(GK_ERR_UNSUPPORTED, "unknown chat template: \"%s%s\"", quote, j[i] ? "..." : "");
}

/* tokenizer_config.json's bos_token / eos_token: a string, {"__type": "AddedToken", "content": ...} or null (*tok NULL) */
static gk_status gk__chat_cfg_token(const gk_json_value *cfg, const char *key, const char **tok) {
    const gk_json_value *v = gk_json_get(cfg, key);
    char vb[64];
    *tok = NULL;
    if (gk_json_is_null(v)) return GK_OK;
    if (gk_json_typeof(v) == GK_JSON_STRING) *tok = gk_json_str(v, NULL);
    else *tok = gk_json_get_string(v, "content", NULL);
    if (!*tok)
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer_config.json: %s = %s is not a string, null or {\"content\": \"...\"}", key, gk__json_show(v, vb, sizeof vb));
    if (strlen(*tok) != (gk_json_typeof(v) == GK_JSON_STRING ? gk_json_len(v) : gk_json_len(gk_json_get(v, "content"))))
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer_config.json: %s holds a NUL character", key);
    if (strlen(*tok) >= sizeof ((gk_chat_template *)0)->bos) /* bos and eos have one size */
        return GK__U_ERR(GK_ERR_LIMIT, "tokenizer_config.json: %s \"%.20s...\" is %llu bytes; gk_chat_template holds at most %llu", key, *tok,
                         (unsigned long long)strlen(*tok), (unsigned long long)(sizeof ((gk_chat_template *)0)->bos - 1));
    return GK_OK;
}

GKLLMDEF gk_status gk_chat_template_from_config(const gk_json_value *cfg, gk_chat_template *out) {
    const gk_json_value *ct = gk_json_get(cfg, "chat_template");
    const char *text = gk_json_str(ct, NULL), *bos, *eos;
    char vb[64];
    gk_status s;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_template_from_config: out is NULL");
    memset(out, 0, sizeof *out);
    if (!cfg) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_template_from_config: config is NULL");
    if (gk_json_typeof(cfg) != GK_JSON_OBJECT) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer_config.json: the top level is not an object");
    {
        const char *dk = gk__json_dup_key(cfg);
        if (dk) return GK__U_ERR(GK_ERR_FORMAT, "tokenizer_config.json: key \"%.60s\" appears twice", dk);
    }
    if (gk_json_typeof(ct) == GK_JSON_ARRAY) { /* [{"name": "default", "template": ...}, ...] */
        size_t i;
        for (i = 0; i < gk_json_len(ct); i++) {
            const gk_json_value *e = gk_json_at(ct, i);
            if (gk_json_typeof(gk_json_get(e, "name")) != GK_JSON_STRING || gk_json_typeof(gk_json_get(e, "template")) != GK_JSON_STRING)
                return GK__U_ERR(GK_ERR_FORMAT, "tokenizer_config.json: chat_template[%llu] is not {\"name\": \"...\", \"template\": \"...\"}", (unsigned long long)i);
            if (strcmp(gk_json_get_string(e, "name", ""), "default") == 0) text = gk_json_get_string(e, "template", NULL);
        }
        if (!text) return GK__U_ERR(GK_ERR_NOT_FOUND, "tokenizer_config.json: chat_template lists %llu templates but none named \"default\"", (unsigned long long)gk_json_len(ct));
    } else if (gk_json_is_null(ct)) {
        return GK__U_ERR(GK_ERR_NOT_FOUND, "tokenizer_config.json has no chat_template");
    } else if (!text) {
        return GK__U_ERR(GK_ERR_FORMAT, "tokenizer_config.json: chat_template = %s is not a string or a list of {name, template}", gk__json_show(ct, vb, sizeof vb));
    }
    if ((s = gk__chat_cfg_token(cfg, "bos_token", &bos)) != GK_OK) return s;
    if ((s = gk__chat_cfg_token(cfg, "eos_token", &eos)) != GK_OK) return s;
    return gk_chat_template_detect(text, bos, eos, out);
}

GKLLMDEF gk_status gk_chat_template_load(const char *path, gk_chat_template *out) {
    gk_json *doc;
    gk_status s;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_template_load: out is NULL");
    memset(out, 0, sizeof *out);
    if (!path) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_template_load: tokenizer_config_path is NULL");
    s = gk_json_parse_file(path, NULL, &doc);
    if (s != GK_OK) return s;
    s = gk_chat_template_from_config(gk_json_root(doc), out);
    if (s != GK_OK) { /* "tokenizer_config.json: x" -> "<path>: x"; other messages get the path in front */
        char msg[900];
        gk__u_errcopy(msg, sizeof msg);
        if (strncmp(msg, "tokenizer_config.json: ", 23) == 0) gk_error_set(NULL, s, "%s: %s", path, msg + 23);
        else if (strncmp(msg, "tokenizer_config.json ", 22) == 0) gk_error_set(NULL, s, "%s %s", path, msg + 22);
        else gk_error_set(NULL, s, "%s: %s", path, msg);
    }
    gk_json_free(doc);
    return s;
}

/* Python-style strip of characters in set (NULL = Unicode whitespace) */
static void gk__chat_strip(const char **p, size_t *n, const char *set, int left, int right) {
    const unsigned char *s = (const unsigned char *)*p;
    size_t a = 0, e = *n, l;
    if (set) {
        while (left && a < e && strchr(set, s[a])) a++;
        while (right && e > a && strchr(set, s[e - 1])) e--;
    } else {
        while (left && a < e && gk__tok_scls(s, e, a, &l) == GK__UNI_WS) a += l;
        while (right && e > a) {
            size_t b = e - 1;
            while (b > a && (s[b] & 0xC0) == 0x80) b--;
            if (gk__tok_scls(s, e, b, &l) != GK__UNI_WS || b + l != e) break;
            e = b;
        }
    }
    *p = (const char *)s + a;
    *n = e - a;
}

static const char *gk__chat_strstr_last(const char *h, const char *n) {
    const char *r = NULL, *p = h;
    while ((p = strstr(p, n)) != NULL) { r = p; p++; }
    return r;
}

static gk_status gk__chat_qwen3(const gk_chat_template *t, const gk_chat_message *m, size_t n, unsigned flags, gk_buf *o) {
    size_t i, last_query = n ? n - 1 : 0;
    int multi = 1;
    gk_status s = GK_OK;
    (void)t;
    if (n && strcmp(m[0].role, "system") == 0) {
        s = gk__u_buf_puts(o, "<|im_start|>system\n");
        if (s == GK_OK) s = gk__u_buf_puts(o, m[0].content);
        if (s == GK_OK) s = gk__u_buf_puts(o, "<|im_end|>\n");
    }
    for (i = n; i-- > 0;) {
        const char *c = m[i].content;
        size_t cl = strlen(c);
        int tool_resp = cl >= 15 + 16 && strncmp(c, "<tool_response>", 15) == 0 && strcmp(c + cl - 16, "</tool_response>") == 0;
        if (multi && strcmp(m[i].role, "user") == 0 && !tool_resp) {
            multi = 0;
            last_query = i;
        }
    }
    for (i = 0; i < n && s == GK_OK; i++) {
        const char *role = m[i].role, *c = m[i].content;
        if (strcmp(role, "user") == 0 || (strcmp(role, "system") == 0 && i != 0)) {
            s = gk__u_buf_puts(o, "<|im_start|>");
            if (s == GK_OK) s = gk__u_buf_puts(o, role);
            if (s == GK_OK) s = gk__u_buf_puts(o, "\n");
            if (s == GK_OK) s = gk__u_buf_puts(o, c);
            if (s == GK_OK) s = gk__u_buf_puts(o, "<|im_end|>\n");
        } else if (strcmp(role, "assistant") == 0) {
            const char *content = c, *reason = "";
            size_t content_n = strlen(c), reason_n = 0;
            const char *endt = gk__chat_strstr_last(c, "</think>");
            if (strstr(c, "</think>")) {
                const char *first_end = strstr(c, "</think>"), *st;
                content = endt + 8;
                content_n = strlen(content);
                gk__chat_strip(&content, &content_n, "\n", 1, 0);
                /* reasoning = content.split('</think>')[0].rstrip('\n').split('<think>')[-1].lstrip('\n') */
                reason = c;
                reason_n = (size_t)(first_end - c);
                gk__chat_strip(&reason, &reason_n, "\n", 0, 1);
                {
                    const char *q = reason, *lastst = NULL;
                    while ((st = (const char *)memchr(q, '<', (size_t)(reason + reason_n - q))) != NULL) {
                        if ((size_t)(reason + reason_n - st) >= 7 && memcmp(st, "<think>", 7) == 0) lastst = st;
                        q = st + 1;
                    }
                    if (lastst) {
                        reason_n -= (size_t)(lastst + 7 - reason);
                        reason = lastst + 7;
                    }
                }
                gk__chat_strip(&reason, &reason_n, "\n", 1, 0);
            }
            s = gk__u_buf_puts(o, "<|im_start|>assistant\n");
            if (s == GK_OK && i > last_query && (i == n - 1 || reason_n)) {
                const char *r2 = reason, *c2 = content;
                size_t r2n = reason_n, c2n = content_n;
                gk__chat_strip(&r2, &r2n, "\n", 1, 1);
                gk__chat_strip(&c2, &c2n, "\n", 1, 0);
                s = gk__u_buf_puts(o, "<think>\n");
                if (s == GK_OK) s = gk_buf_append(o, r2, r2n);
                if (s == GK_OK) s = gk__u_buf_puts(o, "\n</think>\n\n");
                if (s == GK_OK) s = gk_buf_append(o, c2, c2n);
            } else if (s == GK_OK) {
                s = gk_buf_append(o, content, content_n);
            }
            if (s == GK_OK) s = gk__u_buf_puts(o, "<|im_end|>\n");
        } else if (strcmp(role, "tool") == 0) {
            if (i == 0 || strcmp(m[i - 1].role, "tool") != 0) s = gk__u_buf_puts(o, "<|im_start|>user");
            if (s == GK_OK) s = gk__u_buf_puts(o, "\n<tool_response>\n");
            if (s == GK_OK) s = gk__u_buf_puts(o, c);
            if (s == GK_OK) s = gk__u_buf_puts(o, "\n</tool_response>");
            if (s == GK_OK && (i == n - 1 || strcmp(m[i + 1].role, "tool") != 0)) s = gk__u_buf_puts(o, "<|im_end|>\n");
        }
    }
    if (s == GK_OK && (flags & GK_CHAT_ADD_GENERATION_PROMPT)) {
        s = gk__u_buf_puts(o, "<|im_start|>assistant\n");
        if (s == GK_OK && (flags & GK_CHAT_NO_THINKING)) s = gk__u_buf_puts(o, "<think>\n\n</think>\n\n");
    }
    return s;
}

GKLLMDEF gk_status gk_chat_apply(const gk_chat_template *t, const gk_chat_message *m, size_t n, unsigned flags, gk_buf *o) {
    size_t i;
    gk_status s = GK_OK;
    if (!t) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_apply: t is NULL");
    if (!o) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_apply: out is NULL");
    if (!m && n) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_apply: msgs is NULL but n is %llu", (unsigned long long)n);
    if (flags & ~(unsigned)(GK_CHAT_ADD_GENERATION_PROMPT | GK_CHAT_NO_THINKING))
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_apply: flags 0x%x has bits that are not chat flags (GK_CHAT_ADD_GENERATION_PROMPT, GK_CHAT_NO_THINKING)", flags);
    for (i = 0; i < n; i++)
        if (!m[i].role || !m[i].content)
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_apply: msgs[%llu].%s is NULL", (unsigned long long)i, !m[i].role ? "role" : "content");
    /* HF transformers cannot render an empty conversation either (its
       apply_chat_template reads conversation[0]) */
    if (n == 0) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_apply: no messages: a chat needs at least one message");
    if (t->format == GK_CHAT_CHATML)
        for (i = 0; i < n; i++)
            if (strcmp(m[i].role, "tool") == 0)
                return GK__U_ERR(GK_ERR_UNSUPPORTED, "chat template: the built-in ChatML format does not render tool messages");
    switch (t->format) {
    case GK_CHAT_CHATML:
        if (t->default_system[0] && (n == 0 || strcmp(m[0].role, "system") != 0)) {
            s = gk__u_buf_puts(o, "<|im_start|>system\n");
            if (s == GK_OK) s = gk__u_buf_puts(o, t->default_system);
            if (s == GK_OK) s = gk__u_buf_puts(o, "<|im_end|>\n");
        }
        for (i = 0; i < n && s == GK_OK; i++) {
            s = gk__u_buf_puts(o, "<|im_start|>");
            if (s == GK_OK) s = gk__u_buf_puts(o, m[i].role);
            if (s == GK_OK) s = gk__u_buf_puts(o, "\n");
            if (s == GK_OK) s = gk__u_buf_puts(o, m[i].content);
            if (s == GK_OK) s = gk__u_buf_puts(o, "<|im_end|>\n");
        }
        if (s == GK_OK && (flags & GK_CHAT_ADD_GENERATION_PROMPT)) s = gk__u_buf_puts(o, "<|im_start|>assistant\n");
        return s;
    case GK_CHAT_QWEN3: return gk__chat_qwen3(t, m, n, flags, o);
    case GK_CHAT_LLAMA3:
        for (i = 0; i < n && s == GK_OK; i++) {
            const char *c = m[i].content;
            size_t cn = strlen(c);
            gk__chat_strip(&c, &cn, NULL, 1, 1);
            if (i == 0) s = gk__u_buf_puts(o, t->bos);
            if (s == GK_OK) s = gk__u_buf_puts(o, "<|start_header_id|>");
            if (s == GK_OK) s = gk__u_buf_puts(o, m[i].role);
            if (s == GK_OK) s = gk__u_buf_puts(o, "<|end_header_id|>\n\n");
            if (s == GK_OK) s = gk_buf_append(o, c, cn);
            if (s == GK_OK) s = gk__u_buf_puts(o, "<|eot_id|>");
        }
        if (s == GK_OK && ((flags & GK_CHAT_ADD_GENERATION_PROMPT) || t->always_generation_prompt))
            s = gk__u_buf_puts(o, "<|start_header_id|>assistant<|end_header_id|>\n\n");
        return s;
    case GK_CHAT_LLAMA2:
    case GK_CHAT_MISTRAL: {
        size_t first = 0;
        const char *sys = NULL;
        if (t->format == GK_CHAT_LLAMA2 && n && strcmp(m[0].role, "system") == 0) {
            sys = m[0].content;
            first = 1;
        }
        if (t->format == GK_CHAT_MISTRAL) s = gk__u_buf_puts(o, t->bos);
        for (i = first; i < n && s == GK_OK; i++) {
            size_t k = i - first;
            int is_user = strcmp(m[i].role, "user") == 0;
            const char *c = m[i].content;
            size_t cn = strlen(c);
            if (is_user != (k % 2 == 0))
                return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "chat template: conversation roles must alternate user/assistant/user/assistant/... (message %llu is '%.20s')", (unsigned long long)(i), m[i].role);
            if (t->format == GK_CHAT_MISTRAL) {
                if (is_user) {
                    s = gk__u_buf_puts(o, "[INST] ");
                    if (s == GK_OK) s = gk_buf_append(o, c, cn);
                    if (s == GK_OK) s = gk__u_buf_puts(o, " [/INST]");
                } else if (strcmp(m[i].role, "assistant") == 0) {
                    s = gk_buf_append(o, c, cn);
                    if (s == GK_OK) s = gk__u_buf_puts(o, t->eos);
                } else return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "chat template: only user and assistant roles are supported");
                continue;
            }
            if (is_user) {
                gk_buf tmp = {NULL, 0, 0};
                const char *tc;
                size_t tn;
                if (k == 0 && sys) {
                    s = gk__u_buf_puts(&tmp, "<<SYS>>\n");
                    if (s == GK_OK) s = gk__u_buf_puts(&tmp, sys);
                    if (s == GK_OK) s = gk__u_buf_puts(&tmp, "\n<</SYS>>\n\n");
                }
                if (s == GK_OK) s = gk_buf_append(&tmp, c, cn);
                tc = tmp.data ? tmp.data : "";
                tn = tmp.len;
                gk__chat_strip(&tc, &tn, NULL, 1, 1);
                if (s == GK_OK) s = gk__u_buf_puts(o, t->bos);
                if (s == GK_OK) s = gk__u_buf_puts(o, "[INST] ");
                if (s == GK_OK) s = gk_buf_append(o, tc, tn);
                if (s == GK_OK) s = gk__u_buf_puts(o, " [/INST]");
                gk_buf_free(&tmp);
            } else if (strcmp(m[i].role, "assistant") == 0) {
                gk__chat_strip(&c, &cn, NULL, 1, 1);
                s = gk__u_buf_puts(o, " ");
                if (s == GK_OK) s = gk_buf_append(o, c, cn);
                if (s == GK_OK) s = gk__u_buf_puts(o, " ");
                if (s == GK_OK) s = gk__u_buf_puts(o, t->eos);
            }
        }
        return s;
    }
    default: return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_chat_apply: unknown chat format %d", (int)t->format);
    }
}

/* ======================================================================== */
/* >>impl_model                                                             */
/* ======================================================================== */
#include <time.h>

#define GK__LLM_MAX_VIEWS 96

/* A scratch list of views made while issuing one block of ops; errors stick
   (later calls are skipped) and every view is freed at the end. */
typedef struct gk__lv {
    gk_ctx *ctx;
    gk_status st;
    int n;
    gk_tensor t[GK__LLM_MAX_VIEWS];
} gk__lv;

static gk_tensor gk__lv_keep(gk__lv *v, gk_status s, gk_tensor t) {
    gk_tensor z = gk__u_tnull();
    if (s != GK_OK) { if (v->st == GK_OK) v->st = s; return z; }
    if (v->n >= GK__LLM_MAX_VIEWS) {
        gk_tensor_free(v->ctx, t);
        v->st = gk_error_set(v->ctx, GK_ERR_INTERNAL, "internal error: more than %d views in one step of the forward pass", GK__LLM_MAX_VIEWS);
        return z;
    }
    v->t[v->n++] = t;
    return t;
}
static gk_tensor gk__lv_slice(gk__lv *v, gk_tensor x, int dim, int64_t a, int64_t b) {
    gk_tensor t = gk__u_tnull();
    if (v->st != GK_OK) return t;
    return gk__lv_keep(v, gk_view_slice(v->ctx, x, dim, a, b, 1, &t), t);
}
static gk_tensor gk__lv_reshape(gk__lv *v, gk_tensor x, int nd, int64_t d0, int64_t d1, int64_t d2, int64_t d3) {
    gk_tensor t = gk__u_tnull();
    int64_t sh[4];
    sh[0] = d0; sh[1] = d1; sh[2] = d2; sh[3] = d3;
    if (v->st != GK_OK) return t;
    return gk__lv_keep(v, gk_view_reshape(v->ctx, x, nd, sh, &t), t);
}
static gk_tensor gk__lv_unsq(gk__lv *v, gk_tensor x, int dim) {
    gk_tensor t = gk__u_tnull();
    if (v->st != GK_OK) return t;
    return gk__lv_keep(v, gk_view_unsqueeze(v->ctx, x, dim, &t), t);
}
static void gk__lv_do(gk__lv *v, gk_status s) { if (v->st == GK_OK && s != GK_OK) v->st = s; }
/* issues call only while no earlier step of v failed, so the context keeps
   the first failure's message (a later op would fail on its null handles) */
#define GK__LV_DO(v, call) do { if ((v)->st == GK_OK) gk__lv_do((v), (call)); } while (0)
static void gk__lv_free(gk__lv *v) {
    int i;
    for (i = 0; i < v->n; i++) gk_tensor_free(v->ctx, v->t[i]);
    v->n = 0;
}

typedef struct gk__llm_layer {
    gk_tensor ln1, ln2, wqkv, bqkv, wq, wk, wv, bq, bk, bv, wo, bo, qn, kn, wgu, wdown;
    gk_tensor kv;                   /* [max_seqs, max_ctx, 2 * kv_heads, head_dim]: K heads, then V heads */
} gk__llm_layer;

struct gk_llm {
    gk_ctx *ctx;
    gk_llm_config cfg;
    gk_dtype dt;
    int64_t max_ctx;
    int max_seqs;
    int fused;                      /* q/k/v fused (no qk norm) */
    int no_graphs;
    unsigned dbg_skip;              /* GPUKIT_LLM_DEBUG_SKIP (measurement only, wrong results): decode-step ops left out, gk__llm_layers */
    gk_stream *stream;
    gk_stream *stream_use;              /* gk_llm_set_stream's stream; NULL: stream (the model's own) */
    gk_tokenizer *tok;
    gk_chat_template tmpl;
    int has_tmpl;
    gk_tensor embed, lm_head, norm, cos_tab, sin_tab;
    gk__llm_layer *L;
    int64_t *len;                   /* host copy of each sequence's length */
    /* decode state (device), rows = max_seqs */
    gk_tensor d_tok, d_pos, d_kvl, d_one, d_hist;
    gk_tensor a_h, a_h2, a_x, a_qkv, a_q, a_k, a_v, a_att, a_gu, a_act, a_logits;
    int nbucket;                    /* decode graphs by cache length: keys 0..256 << k (the last: max_ctx), k < nbucket */
    gk_graph **graphs;              /* [max_seqs + 1][2][nbucket]: by batch size, greedy-in-graph and cache length */
    int *gwarm;                     /* the same index: a direct (warm-up) step ran */
    int32_t *h_tok, *h_pos;         /* host staging */
    uint64_t weight_bytes;
};

static double gk__llm_now(void) {
#if defined(_WIN32)
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart / (double)f.QuadPart;
#elif defined(CLOCK_MONOTONIC)
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#else
    return (double)clock() / CLOCKS_PER_SEC;
#endif
}

/* ---- config ----
   Every field of config.json and generation_config.json the runtime reads is
   checked here, before any weight is read: its type, its range and its
   relations to the others. A message names the file and the field:
   "gk_llm_load: <dir>/config.json: rms_norm_eps = -1 must be > 0". Missing
   or null fields take HF's defaults. */
typedef struct gk__llm_cf { gk_ctx *ctx; const char *path; const gk_json_value *obj; const char *pre; } gk__llm_cf;

#define GK__CF_ERR(cf, st, ...) gk__llm_cf_err((cf), (st), __VA_ARGS__)
static gk_status gk__llm_cf_err(const gk__llm_cf *cf, gk_status st, const char *fmt, ...) GK__PRINTF(3, 4);
static gk_status gk__llm_cf_err(const gk__llm_cf *cf, gk_status st, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gk_error_set(cf->ctx, st, "gk_llm_load: %s: %s", cf->path, msg);
}
/* an integer field in lo..hi; *present: given (not missing or null) */
static gk_status gk__llm_cf_int(const gk__llm_cf *cf, const char *key, int required, int64_t def, int64_t lo, int64_t hi, int64_t *out, int *present) {
    const gk_json_value *v = gk_json_get(cf->obj, key);
    char vb[64];
    int64_t x;
    if (present) *present = 0;
    if (gk_json_is_null(v)) {
        if (required) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s is %s; the model needs it", cf->pre, key, v ? "null" : "missing");
        *out = def;
        return GK_OK;
    }
    x = gk_json_int(v, 0);
    if ((gk_json_typeof(v) != GK_JSON_INT && gk_json_typeof(v) != GK_JSON_DOUBLE) || (gk_json_typeof(v) == GK_JSON_DOUBLE && gk_json_int(v, -1) != gk_json_int(v, 0)))
        return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s is not an integer", cf->pre, key, gk__json_show(v, vb, sizeof vb));
    if (x < lo || x > hi) { /* a bound of int32 or int64 is the type's: one-sided messages */
        if (hi < INT32_MAX) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s must be in %lld..%lld", cf->pre, key, gk__json_show(v, vb, sizeof vb), (long long)lo, (long long)hi);
        if (x < lo) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s must be >= %lld", cf->pre, key, gk__json_show(v, vb, sizeof vb), (long long)lo);
        return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s must be <= %lld", cf->pre, key, gk__json_show(v, vb, sizeof vb), (long long)hi);
    }
    *out = x;
    if (present) *present = 1;
    return GK_OK;
}
/* a finite number; gt0: must be > 0 (else >= 0 when nonneg); max: upper bound (inclusive) or 0 for none */
enum { GK__CF_ANY = 0, GK__CF_NONNEG, GK__CF_POS };
static gk_status gk__llm_cf_num(const gk__llm_cf *cf, const char *key, int required, double def, int sign, double max, double *out, int *present) {
    const gk_json_value *v = gk_json_get(cf->obj, key);
    char vb[64];
    double x;
    if (present) *present = 0;
    if (gk_json_is_null(v)) {
        if (required) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s is %s; it is needed here", cf->pre, key, v ? "null" : "missing");
        *out = def;
        return GK_OK;
    }
    if (gk_json_typeof(v) != GK_JSON_INT && gk_json_typeof(v) != GK_JSON_DOUBLE)
        return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s is not a number", cf->pre, key, gk__json_show(v, vb, sizeof vb));
    x = gk_json_double(v, 0);
    if (!(x - x == 0)) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s is not finite", cf->pre, key, gk__json_show(v, vb, sizeof vb));
    if (sign == GK__CF_POS && !(x > 0)) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s must be > 0", cf->pre, key, gk__json_show(v, vb, sizeof vb));
    if (sign == GK__CF_NONNEG && !(x >= 0)) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s must be >= 0", cf->pre, key, gk__json_show(v, vb, sizeof vb));
    if (max > 0 && x > max) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s must be <= %g", cf->pre, key, gk__json_show(v, vb, sizeof vb), max);
    *out = x;
    if (present) *present = 1;
    return GK_OK;
}
static gk_status gk__llm_cf_bool(const gk__llm_cf *cf, const char *key, int def, int *out) {
    const gk_json_value *v = gk_json_get(cf->obj, key);
    char vb[64];
    if (gk_json_is_null(v)) { *out = def; return GK_OK; }
    if (gk_json_typeof(v) != GK_JSON_BOOL) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s is not true or false", cf->pre, key, gk__json_show(v, vb, sizeof vb));
    *out = gk_json_bool(v, def);
    return GK_OK;
}
static gk_status gk__llm_cf_str(const gk__llm_cf *cf, const char *key, const char *def, const char **out) {
    const gk_json_value *v = gk_json_get(cf->obj, key);
    char vb[64];
    if (gk_json_is_null(v)) { *out = def; return GK_OK; }
    if (gk_json_typeof(v) != GK_JSON_STRING) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s%s = %s is not a string", cf->pre, key, gk__json_show(v, vb, sizeof vb));
    *out = gk_json_str(v, def);
    return GK_OK;
}
/* a token id or a list of them (eos_token_id), each in the vocabulary; *given: the field is not missing or null */
static gk_status gk__llm_cf_ids(const gk__llm_cf *cf, const char *key, int64_t vocab, int32_t *ids, int *n, int max, int *given) {
    const gk_json_value *v = gk_json_get(cf->obj, key);
    char vb[64];
    size_t i, cnt;
    *given = 0;
    if (gk_json_is_null(v)) return GK_OK;
    if (gk_json_typeof(v) != GK_JSON_INT && gk_json_typeof(v) != GK_JSON_ARRAY)
        return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s = %s is not a token id or a list of them", key, gk__json_show(v, vb, sizeof vb));
    cnt = gk_json_typeof(v) == GK_JSON_INT ? 1 : gk_json_len(v);
    if (cnt > (size_t)max) return GK__CF_ERR(cf, GK_ERR_LIMIT, "%s lists %llu ids; at most %d are supported", key, (unsigned long long)cnt, max);
    for (i = 0; i < cnt; i++) {
        const gk_json_value *e = gk_json_typeof(v) == GK_JSON_INT ? v : gk_json_at(v, i);
        int64_t id = gk_json_int(e, -1);
        if (gk_json_typeof(e) != GK_JSON_INT)
            return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s[%llu] = %s is not a token id", key, (unsigned long long)i, gk__json_show(e, vb, sizeof vb));
        if (id < 0 || id >= vocab) {
            if (gk_json_typeof(v) == GK_JSON_INT)
                return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s = %lld is outside the vocabulary (vocab_size %lld: ids 0..%lld)", key, (long long)id, (long long)vocab, (long long)(vocab - 1));
            return GK__CF_ERR(cf, GK_ERR_FORMAT, "%s[%llu] = %lld is outside the vocabulary (vocab_size %lld: ids 0..%lld)", key, (unsigned long long)i, (long long)id,
                              (long long)vocab, (long long)(vocab - 1));
        }
        ids[i] = (int32_t)id;
    }
    *n = (int)cnt;
    *given = 1;
    return GK_OK;
}

/* an object read member by member must not hold a key twice (Python's json keeps the last, this reader the first) */
static gk_status gk__llm_cf_nodup(const gk__llm_cf *cf, const gk_json_value *obj, const char *what) {
    const char *k = gk__json_dup_key(obj);
    if (k) return GK__CF_ERR(cf, GK_ERR_FORMAT, "%skey \"%.60s\" appears twice", what, k);
    return GK_OK;
}

static gk_status gk__llm_rope_cfg(const gk__llm_cf *top, gk_llm_config *c) {
    const gk_json_value *root = top->obj, *rp = gk_json_get(root, "rope_parameters"), *rs;
    const char *type = "default";
    double partial = 1.0;
    gk_rope_config *r = &c->rope;
    gk__llm_cf cf = *top, rf = *top;
    char vb[64];
    int has_factor, has_omp;
    gk_status s;
    int64_t omp;
    memset(r, 0, sizeof *r);
    if ((s = gk__llm_cf_num(&cf, "partial_rotary_factor", 0, 1.0, GK__CF_POS, 1.0, &partial, NULL)) != GK_OK) return s;
    if ((s = gk__llm_cf_num(&cf, "rope_theta", 0, 10000.0, GK__CF_POS, 0, &r->theta, NULL)) != GK_OK) return s;
    if (gk_json_typeof(rp) == GK_JSON_OBJECT) {
        c->new_rope_form = 1;
        rs = rp;
        rf.obj = rp; rf.pre = "rope_parameters.";
        if ((s = gk__llm_cf_nodup(&cf, rp, "rope_parameters: ")) != GK_OK) return s;
        if ((s = gk__llm_cf_num(&rf, "rope_theta", 0, r->theta, GK__CF_POS, 0, &r->theta, NULL)) != GK_OK) return s;
        if ((s = gk__llm_cf_num(&rf, "partial_rotary_factor", 0, partial, GK__CF_POS, 1.0, &partial, NULL)) != GK_OK) return s;
    } else if (!gk_json_is_null(rp)) {
        return GK__CF_ERR(&cf, GK_ERR_FORMAT, "rope_parameters = %s is not an object", gk__json_show(rp, vb, sizeof vb));
    } else {
        rs = gk_json_get(root, "rope_scaling");
        if (!gk_json_is_null(rs) && gk_json_typeof(rs) != GK_JSON_OBJECT)
            return GK__CF_ERR(&cf, GK_ERR_FORMAT, "rope_scaling = %s is not an object", gk__json_show(rs, vb, sizeof vb));
        rf.obj = rs; rf.pre = "rope_scaling.";
        if ((s = gk__llm_cf_nodup(&cf, rs, "rope_scaling: ")) != GK_OK) return s;
    }
    if (!gk_json_is_null(gk_json_get(rs, "rope_type")) || gk_json_is_null(gk_json_get(rs, "type"))) {
        if ((s = gk__llm_cf_str(&rf, "rope_type", "default", &type)) != GK_OK) return s;
    } else if ((s = gk__llm_cf_str(&rf, "type", "default", &type)) != GK_OK) return s;
    if (strcmp(type, "default") == 0) r->type = GK_ROPE_DEFAULT;
    else if (strcmp(type, "linear") == 0) r->type = GK_ROPE_LINEAR;
    else if (strcmp(type, "dynamic") == 0) r->type = GK_ROPE_DYNAMIC;
    else if (strcmp(type, "yarn") == 0) r->type = GK_ROPE_YARN;
    else if (strcmp(type, "llama3") == 0) r->type = GK_ROPE_LLAMA3;
    else return gk_error_set(cf.ctx, GK_ERR_UNSUPPORTED, "gk_llm_load: %s: RoPE type \"%.40s\" is not supported (default, linear, dynamic, yarn, llama3)", cf.path, type);
    /* the scaling fields: finite numbers where given; required and in range where the type uses them */
    if (r->type != GK_ROPE_DEFAULT) {
        int need_factor = r->type != GK_ROPE_YARN, llama3 = r->type == GK_ROPE_LLAMA3, yarn = r->type == GK_ROPE_YARN, t1;
        if ((s = gk__llm_cf_num(&rf, "factor", need_factor, 0, GK__CF_POS, 0, &r->factor, &has_factor)) != GK_OK) return s;
        if ((s = gk__llm_cf_int(&rf, "original_max_position_embeddings", llama3, 0, 1, INT32_MAX, &omp, &has_omp)) != GK_OK) return s;
        r->original_max_position_embeddings = omp;
        if (llama3) {
            if ((s = gk__llm_cf_num(&rf, "low_freq_factor", 1, 0, GK__CF_POS, 0, &r->low_freq_factor, NULL)) != GK_OK) return s;
            if ((s = gk__llm_cf_num(&rf, "high_freq_factor", 1, 0, GK__CF_POS, 0, &r->high_freq_factor, NULL)) != GK_OK) return s;
            if (!(r->high_freq_factor > r->low_freq_factor))
                return GK__CF_ERR(&cf, GK_ERR_FORMAT, "%slow_freq_factor = %g must be < high_freq_factor = %g", rf.pre, r->low_freq_factor, r->high_freq_factor);
        }
        if (yarn) {
            if ((s = gk__llm_cf_num(&rf, "attention_factor", 0, 0, GK__CF_POS, 0, &r->attention_factor, NULL)) != GK_OK) return s;
            if ((s = gk__llm_cf_num(&rf, "beta_fast", 0, 0, GK__CF_POS, 0, &r->beta_fast, NULL)) != GK_OK) return s;
            if ((s = gk__llm_cf_num(&rf, "beta_slow", 0, 0, GK__CF_POS, 0, &r->beta_slow, NULL)) != GK_OK) return s;
            if ((s = gk__llm_cf_num(&rf, "mscale", 0, 0, GK__CF_ANY, 0, &r->mscale, NULL)) != GK_OK) return s;
            if ((s = gk__llm_cf_num(&rf, "mscale_all_dim", 0, 0, GK__CF_ANY, 0, &r->mscale_all_dim, NULL)) != GK_OK) return s;
            if ((s = gk__llm_cf_bool(&rf, "truncate", 1, &t1)) != GK_OK) return s;
            r->no_truncate = !t1;
        }
    }
    r->max_position_embeddings = c->max_pos;
    r->rotary_dim = (int)((double)c->head_dim * partial);
    if (r->rotary_dim <= 0 || r->rotary_dim % 2 || r->rotary_dim > c->head_dim)
        return GK__CF_ERR(&cf, GK_ERR_UNSUPPORTED, "partial_rotary_factor = %g gives a rotary dim of %d of head_dim %lld; it must be even and > 0", partial,
                          r->rotary_dim, (long long)c->head_dim);
    (void)has_factor; (void)has_omp;
    return GK_OK;
}

static gk_status gk__llm_parse_config_at(gk_ctx *ctx, const char *cpath, const gk_json_value *root, const char *gpath, const gk_json_value *gen, gk_llm_config *c) {
    static const struct { const char *name; gk_llm_arch arch; } archs[4] = {
        { "LlamaForCausalLM", GK_LLM_LLAMA }, { "MistralForCausalLM", GK_LLM_MISTRAL },
        { "Qwen2ForCausalLM", GK_LLM_QWEN2 }, { "Qwen3ForCausalLM", GK_LLM_QWEN3 } };
    const gk_json_value *a = gk_json_get(root, "architectures");
    const char *an = gk_json_str(gk_json_at(a, 0), NULL), *act;
    gk__llm_cf cf;
    char vb[64];
    int64_t v;
    int i, hd_given, kv_given, b, given, n;
    gk_status s;
    memset(c, 0, sizeof *c);
    cf.ctx = ctx; cf.path = cpath; cf.obj = root; cf.pre = "";
    if (gk_json_typeof(root) != GK_JSON_OBJECT) return GK__CF_ERR(&cf, GK_ERR_FORMAT, "the top level is not an object");
    if ((s = gk__llm_cf_nodup(&cf, root, "")) != GK_OK) return s;
    if (gk_json_typeof(a) != GK_JSON_ARRAY || !an)
        return GK__CF_ERR(&cf, GK_ERR_FORMAT, "architectures = %s is not a list of model class names (\"LlamaForCausalLM\", ...)", gk__json_show(a, vb, sizeof vb));
    for (i = 0; i < 4; i++)
        if (strcmp(an, archs[i].name) == 0) c->arch = archs[i].arch;
    if (!c->arch)
        return gk_error_set(ctx, GK_ERR_UNSUPPORTED,
                            "gk_llm_load: %s: architecture %.64s is not supported (LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM)", cpath, an);
    snprintf(c->arch_name, sizeof c->arch_name, "%s", an);
    if (!gk_json_is_null(gk_json_get(root, "quantization_config"))) /* packed integer weights under other names */
        return gk_error_set(ctx, GK_ERR_UNSUPPORTED, "gk_llm_load: %s: quantization_config (quant_method %.40s) is not supported: f32, f16 or bf16 weights only", cpath,
                            gk_json_get_string(root, "quantization_config.quant_method", "?"));
    /* sizes: positive, int32 (the ops' limit), and their relations */
#define GK__CFG(key, req, def, lo, hi, dst, pres) do { if ((s = gk__llm_cf_int(&cf, key, req, def, lo, hi, &v, pres)) != GK_OK) return s; dst = v; } while (0)
    GK__CFG("hidden_size", 1, 0, 1, INT32_MAX, c->hidden, NULL);
    GK__CFG("num_hidden_layers", 1, 0, 1, 65536, c->layers, NULL);
    GK__CFG("num_attention_heads", 1, 0, 1, 65536, c->heads, NULL);
    GK__CFG("intermediate_size", 1, 0, 1, INT32_MAX, c->inter, NULL);
    GK__CFG("vocab_size", 1, 0, 1, INT32_MAX, c->vocab, NULL);
    GK__CFG("num_key_value_heads", 0, c->heads, 1, 65536, c->kv_heads, &kv_given);
    GK__CFG("max_position_embeddings", 0, 4096, 1, INT32_MAX, c->max_pos, NULL);
    GK__CFG("head_dim", 0, 0, 1, INT32_MAX, c->head_dim, &hd_given);
#undef GK__CFG
    if (c->kv_heads > c->heads)
        return GK__CF_ERR(&cf, GK_ERR_FORMAT, "num_key_value_heads = %lld is more than num_attention_heads = %lld", (long long)c->kv_heads, (long long)c->heads);
    if (c->heads % c->kv_heads)
        return GK__CF_ERR(&cf, GK_ERR_FORMAT, "num_attention_heads = %lld is not a multiple of num_key_value_heads = %lld (each key/value head serves a whole group of query heads)",
                          (long long)c->heads, (long long)c->kv_heads);
    if (!hd_given) { /* HF: head_dim = hidden_size // num_attention_heads */
        if (c->hidden % c->heads)
            return GK__CF_ERR(&cf, GK_ERR_FORMAT, "hidden_size = %lld is not divisible by num_attention_heads = %lld (and there is no head_dim)", (long long)c->hidden,
                              (long long)c->heads);
        c->head_dim = c->hidden / c->heads;
    }
    if (c->head_dim > 256)
        return gk_error_set(ctx, GK_ERR_UNSUPPORTED, "gk_llm_load: %s: head_dim %lld above 256 is not supported", cpath, (long long)c->head_dim);
    if ((s = gk__llm_cf_num(&cf, "rms_norm_eps", 0, 1e-6, GK__CF_POS, 0, &c->rms_eps, NULL)) != GK_OK) return s;
    if ((s = gk__llm_cf_str(&cf, "hidden_act", "silu", &act)) != GK_OK) return s;
    if (strcmp(act, "silu") != 0 && strcmp(act, "swish") != 0)
        return gk_error_set(ctx, GK_ERR_UNSUPPORTED, "gk_llm_load: %s: hidden_act \"%.40s\" is not supported (silu)", cpath, act);
    if ((s = gk__llm_cf_bool(&cf, "mlp_bias", 0, &b)) != GK_OK) return s;
    if (b) return gk_error_set(ctx, GK_ERR_UNSUPPORTED, "gk_llm_load: %s: mlp_bias is not supported", cpath);
    if ((s = gk__llm_cf_bool(&cf, "tie_word_embeddings", 0, &c->tie_embeddings)) != GK_OK) return s;
    if (c->arch == GK_LLM_QWEN2) { c->qkv_bias = 1; c->o_bias = 0; } /* HF's Qwen2 has these biases whatever attention_bias says */
    else {
        if ((s = gk__llm_cf_bool(&cf, "attention_bias", 0, &b)) != GK_OK) return s;
        c->qkv_bias = c->o_bias = b;
    }
    c->qk_norm = c->arch == GK_LLM_QWEN3;
    b = c->arch == GK_LLM_MISTRAL;
    if (c->arch == GK_LLM_QWEN2 || c->arch == GK_LLM_QWEN3) {
        /* sliding layers: use_sliding_window, or (newer files) a "sliding_attention" entry of layer_types */
        const gk_json_value *lt = gk_json_get(root, "layer_types");
        size_t k;
        if ((s = gk__llm_cf_bool(&cf, "use_sliding_window", 0, &b)) != GK_OK) return s;
        if (!gk_json_is_null(lt)) {
            if (gk_json_typeof(lt) != GK_JSON_ARRAY || (int64_t)gk_json_len(lt) != c->layers)
                return GK__CF_ERR(&cf, GK_ERR_FORMAT, "layer_types = %s is not a list of num_hidden_layers = %lld entries", gk__json_show(lt, vb, sizeof vb),
                                  (long long)c->layers);
            for (k = 0; k < gk_json_len(lt); k++) {
                const char *e = gk_json_str(gk_json_at(lt, k), "");
                if (strcmp(e, "sliding_attention") == 0) b = 1;
                else if (strcmp(e, "full_attention") != 0)
                    return GK__CF_ERR(&cf, GK_ERR_FORMAT, "layer_types[%llu] = %s is not \"full_attention\" or \"sliding_attention\"", (unsigned long long)k,
                                      gk__json_show(gk_json_at(lt, k), vb, sizeof vb));
            }
        }
    }
    if (b && (s = gk__llm_cf_int(&cf, "sliding_window", 0, 0, 1, INT64_MAX, &c->sliding_window, NULL)) != GK_OK) return s;
    if ((s = gk__llm_rope_cfg(&cf, c)) != GK_OK) return s;
    {   /* the tables must be computable (a backstop: the checks above cover gk_rope_inv_freq's) */
        float f[1];
        double sc;
        gk_rope_config r = c->rope;
        gk__u_tl sv; /* gk_rope_inv_freq has no context: its message goes to ctx */
        char pre[4300];
        r.rotary_dim = 2;
        gk__u_tl_save(&sv);
        snprintf(pre, sizeof pre, "gk_llm_load: %.4000s: RoPE parameters: ", cpath);
        if (gk_rope_inv_freq(&r, f, &sc) != GK_OK) return gk__u_tl_move(ctx, &sv, GK_ERR_FORMAT, pre);
    }
    c->bos_id = -1;
    if ((s = gk__llm_cf_ids(&cf, "bos_token_id", c->vocab, &c->bos_id, &n, 1, &given)) != GK_OK) return s;
    if ((s = gk__llm_cf_ids(&cf, "eos_token_id", c->vocab, c->eos_ids, &c->n_eos, 8, &given)) != GK_OK) return s;
    if (gen) {
        gk__llm_cf gf;
        int32_t ids[8];
        int64_t tk;
        double x;
        gf.ctx = ctx; gf.path = gpath; gf.obj = gen; gf.pre = "";
        if (gk_json_typeof(gen) != GK_JSON_OBJECT) return GK__CF_ERR(&gf, GK_ERR_FORMAT, "the top level is not an object");
        if ((s = gk__llm_cf_nodup(&gf, gen, "")) != GK_OK) return s;
        if ((s = gk__llm_cf_ids(&gf, "eos_token_id", c->vocab, ids, &n, 8, &given)) != GK_OK) return s;
        if (given) { memcpy(c->eos_ids, ids, sizeof ids); c->n_eos = n; }
        if ((s = gk__llm_cf_ids(&gf, "bos_token_id", c->vocab, ids, &n, 1, &given)) != GK_OK) return s;
        if (given) c->bos_id = ids[0];
        if ((s = gk__llm_cf_bool(&gf, "do_sample", 0, &c->do_sample)) != GK_OK) return s;
        if ((s = gk__llm_cf_num(&gf, "temperature", 0, 1.0, GK__CF_NONNEG, 0, &x, &given)) != GK_OK) return s;
        if (c->do_sample && given && !(x > 0))
            return GK__CF_ERR(&gf, GK_ERR_FORMAT, "temperature = 0 must be > 0 when do_sample is true (as in HF; do_sample false decodes greedily)");
        c->sample.temperature = (float)x;
        if ((s = gk__llm_cf_int(&gf, "top_k", 0, 50, 0, INT32_MAX, &tk, NULL)) != GK_OK) return s;
        c->sample.top_k = (int)tk;
        if ((s = gk__llm_cf_num(&gf, "top_p", 0, 1.0, GK__CF_NONNEG, 1.0, &x, NULL)) != GK_OK) return s;
        c->sample.top_p = (float)x;
        if ((s = gk__llm_cf_num(&gf, "min_p", 0, 0, GK__CF_NONNEG, 1.0, &x, NULL)) != GK_OK) return s;
        c->sample.min_p = (float)x;
        if ((s = gk__llm_cf_num(&gf, "repetition_penalty", 0, 1.0, GK__CF_POS, 0, &x, NULL)) != GK_OK) return s;
        c->sample.repetition_penalty = (float)x;
        if ((s = gk__llm_cf_int(&gf, "max_new_tokens", 0, 0, 1, INT64_MAX, &c->max_new_tokens, NULL)) != GK_OK) return s;
        if (c->sample.temperature != c->sample.temperature || (double)c->sample.temperature > 3.0e38)
            return GK__CF_ERR(&gf, GK_ERR_FORMAT, "temperature is too large for a float");
        if ((double)c->sample.repetition_penalty > 3.0e38 || !(c->sample.repetition_penalty > 0))
            return GK__CF_ERR(&gf, GK_ERR_FORMAT, "repetition_penalty must be a float > 0");
    }
    if (!c->do_sample) memset(&c->sample, 0, sizeof c->sample);
    return GK_OK;
}
/* the same, with the files named by their base names (tests/fuzz/fuzz_json.c) */
#define gk__llm_parse_config(ctx, root, gen, c) gk__llm_parse_config_at((ctx), "config.json", (root), "generation_config.json", (gen), (c))
/* >>model_weights: weights: names, shapes, upload */
/* ---- weights ---- */
typedef struct gk__llm_want { char name[96]; int ndim; int64_t shape[2]; gk_tensor *dst; int64_t layer; } gk__llm_want;

static void gk__llm_want_add(gk__llm_want *w, int *n, gk_tensor *dst, int64_t l, const char *fmt, int ndim, int64_t d0, int64_t d1) {
    if (l >= 0) snprintf(w[*n].name, sizeof w[*n].name, fmt, (long long)l);
    else snprintf(w[*n].name, sizeof w[*n].name, "%s", fmt);
    w[*n].ndim = ndim; w[*n].shape[0] = d0; w[*n].shape[1] = d1; w[*n].dst = dst; w[*n].layer = l;
    (*n)++;
}

typedef struct gk__llm_prog { gk_st_progress_fn fn; void *user; uint64_t base, total, cur; } gk__llm_prog;
/* one tensor's progress (in its stored bytes) as a share of its bytes on the device */
static void gk__llm_prog_cb(uint64_t done, uint64_t total, void *user) {
    gk__llm_prog *p = (gk__llm_prog *)user;
    if (p->fn) p->fn(p->base + (total ? (uint64_t)((double)done / (double)total * (double)p->cur) : p->cur), p->total, p->user);
}

static void gk__llm_free_t(gk_ctx *ctx, gk_tensor *t) {
    if (t->id) gk_tensor_free(ctx, *t);
    *t = gk__u_tnull();
}

GKLLMDEF void gk_llm_free(gk_llm *m) {
    int64_t l;
    int i;
    gk_ctx *ctx;
    if (!m) return;
    ctx = m->ctx;
    if (m->stream) gk_stream_sync(ctx, m->stream);
    if (m->graphs)
        for (i = 0; i < 2 * (m->max_seqs + 1) * m->nbucket; i++)
            if (m->graphs[i]) gk_graph_destroy(ctx, m->graphs[i]);
    if (m->L)
        for (l = 0; l < m->cfg.layers; l++) {
            gk__llm_layer *y = &m->L[l];
            gk_tensor *ts[17] = { &y->ln1, &y->ln2, &y->wqkv, &y->bqkv, &y->wq, &y->wk, &y->wv, &y->bq, &y->bk, &y->bv, &y->wo, &y->bo,
                                  &y->qn, &y->kn, &y->wgu, &y->wdown, &y->kv };
            for (i = 0; i < 17; i++) gk__llm_free_t(ctx, ts[i]);
        }
    if (m->lm_head.id == m->embed.id) m->lm_head = gk__u_tnull();
    {
        gk_tensor *ts[20] = { &m->embed, &m->lm_head, &m->norm, &m->cos_tab, &m->sin_tab, &m->d_tok, &m->d_pos, &m->d_kvl, &m->d_one,
                              &m->d_hist, &m->a_h, &m->a_h2, &m->a_x, &m->a_qkv, &m->a_q, &m->a_k, &m->a_v, &m->a_att, &m->a_gu, &m->a_act };
        for (i = 0; i < 20; i++) gk__llm_free_t(ctx, ts[i]);
        gk__llm_free_t(ctx, &m->a_logits);
    }
    if (m->stream) gk_stream_destroy(ctx, m->stream);
    if (m->tok) gk_tokenizer_free(m->tok);
    gk__u_free(m->L); gk__u_free(m->len); gk__u_free(m->graphs); gk__u_free(m->gwarm); gk__u_free(m->h_tok); gk__u_free(m->h_pos);
    gk__u_free(m);
}

static gk_status gk__llm_read_json(gk_ctx *ctx, const char *dir, const char *file, int optional, gk_json **out) {
    char path[4096];
    gk_status s;
    gk__u_tl sv;
    FILE *f;
    *out = NULL;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (optional) {
        if (!(f = fopen(path, "rb"))) return GK_OK;
        fclose(f);
    }
    gk__u_tl_save(&sv);
    s = gk_json_parse_file(path, NULL, out);
    if (s != GK_OK) return gk__u_tl_move(ctx, &sv, s, "gk_llm_load: ");
    return GK_OK;
}

/* a context-free part failed: "gk_llm_load: <dir>/<file>: its message" to ctx ("tokenizer_config.json: " in it becomes the path) */
static gk_status gk__llm_move_file(gk_ctx *ctx, const gk__u_tl *sv, gk_status st, const char *path, const char *label) {
    char msg[GK__U_ERRSAVE], pre[4200];
    size_t ll = strlen(label);
    gk__u_errcopy(msg, sizeof msg);
    if (strncmp(msg, path, strlen(path)) == 0) return gk__u_tl_move(ctx, sv, st, "gk_llm_load: ");
    if (strncmp(msg, label, ll) == 0 && (msg[ll] == ':' || msg[ll] == ' ')) { /* the part named the file by its base name */
        gk_error_set(NULL, st, "gk_llm_load: %.4000s%.2000s", path, msg + ll);
        return gk__u_tl_move(ctx, sv, st, "");
    }
    snprintf(pre, sizeof pre, "gk_llm_load: %.4000s: ", path);
    return gk__u_tl_move(ctx, sv, st, pre);
}

/* tokenizer.json, and the chat template from tokenizer_config.json or chat_template.jinja */
static gk_status gk__llm_load_tokenizer(gk_llm *m, const char *dir) {
    char path[4096], cpath[4096];
    gk_json *tc = NULL;
    gk_status s;
    gk__u_tl sv; /* the context-free parts' errors go to m->ctx (doc.txt, ERRORS) */
    gk__u_tl_save(&sv);
    snprintf(path, sizeof path, "%s/tokenizer.json", dir);
    s = gk_tokenizer_load(path, &m->tok);
    if (s != GK_OK) return gk__u_tl_move(m->ctx, &sv, s, "gk_llm_load: ");
    snprintf(cpath, sizeof cpath, "%s/tokenizer_config.json", dir);
    if ((s = gk__llm_read_json(m->ctx, dir, "tokenizer_config.json", 1, &tc)) != GK_OK) return s;
    if (tc && gk_json_typeof(gk_json_root(tc)) != GK_JSON_OBJECT) {
        gk_json_free(tc);
        return gk_error_set(m->ctx, GK_ERR_FORMAT, "gk_llm_load: %s: the top level is not an object", cpath);
    }
    if (tc && !gk_json_is_null(gk_json_get(gk_json_root(tc), "chat_template"))) {
        s = gk_chat_template_from_config(gk_json_root(tc), &m->tmpl);
        if (s != GK_OK) { gk_json_free(tc); return gk__llm_move_file(m->ctx, &sv, s, cpath, "tokenizer_config.json"); }
        m->has_tmpl = 1;
    } else {
        char *jinja = NULL;
        size_t n = 0;
        gk_status rs;
        const char *bos = NULL, *eos = NULL;
        const gk_json_value *r = tc ? gk_json_root(tc) : NULL;
        snprintf(path, sizeof path, "%s/chat_template.jinja", dir);
        rs = gk_read_file(path, 0, &jinja, &n);
        if (rs == GK_ERR_OUT_OF_MEMORY) { gk_json_free(tc); return gk__u_tl_move(m->ctx, &sv, rs, "gk_llm_load: "); }
        if (rs == GK_OK) {
            /* the template's tokens come from tokenizer_config.json */
            if (r && ((s = gk__chat_cfg_token(r, "bos_token", &bos)) != GK_OK || (s = gk__chat_cfg_token(r, "eos_token", &eos)) != GK_OK)) {
                gk_read_file_free(jinja);
                gk_json_free(tc);
                return gk__llm_move_file(m->ctx, &sv, s, cpath, "tokenizer_config.json");
            }
            if (strlen(jinja) != n) s = gk_error_set(NULL, GK_ERR_FORMAT, "the template holds a NUL byte");
            else s = gk_chat_template_detect(jinja, bos, eos, &m->tmpl);
            gk_read_file_free(jinja);
            if (s != GK_OK) { gk_json_free(tc); return gk__llm_move_file(m->ctx, &sv, s, path, "chat_template.jinja"); }
            m->has_tmpl = 1;
        } else if (rs != GK_ERR_IO || gk__u_file_exists(path)) { /* there, but unreadable */
            gk_json_free(tc);
            return gk__u_tl_move(m->ctx, &sv, rs, "gk_llm_load: ");
        }
        gk__u_tl_restore(&sv); /* no chat_template.jinja is no error */
    }
    gk_json_free(tc);
    return GK_OK;
}

static gk_status gk__llm_empty(gk_llm *m, gk_dtype dt, int nd, int64_t d0, int64_t d1, gk_tensor *out) {
    int64_t sh[2];
    sh[0] = d0; sh[1] = d1;
    return gk_tensor_empty(m->ctx, dt, nd, sh, out);
}

/* ---- weights through the transfer engine ---- */
typedef struct gk__llm_piece { gk_xfer_id id; uint64_t bytes; int w; } gk__llm_piece;
typedef struct gk__llm_up {
    gk_llm *m;
    const gk_safetensors *st;
    const gk__llm_want *want;
    gk_xfer *x;
    gk__llm_piece *pc;
    size_t npc, waited;             /* pieces submitted, pieces waited for */
    gk__llm_prog *prog;
    gk_status s;                    /* the first failure */
    char first[1400];               /* ... and its message */
} gk__llm_up;

/* Notes the first failure: its message, as the context has it or (tensor
   index w >= 0) naming the tensor and its file. */
static void gk__llm_up_fail(gk__llm_up *u, gk_status s, int w) {
    const gk_st_tensor_info *ti;
    char msg[1200];
    if (u->s != GK_OK) return;
    u->s = s;
    snprintf(msg, sizeof msg, "%.1100s", gk_last_error(u->m->ctx));
    if (w < 0) { snprintf(u->first, sizeof u->first, "%.1100s", msg); return; }
    ti = gk_st_find(u->st, u->want[w].name);
    snprintf(u->first, sizeof u->first, "gk_llm_load: tensor %.96s from %.160s: %.1100s", u->want[w].name, ti ? gk__st_file_label(u->st, ti) : "?", msg);
}
/* Waits for the pieces submitted so far, in order, reporting progress. */
static void gk__llm_up_wait(gk__llm_up *u) {
    for (; u->waited < u->npc; u->waited++) {
        gk__llm_piece *p = &u->pc[u->waited];
        gk_status w = gk_xfer_wait(u->x, p->id, -1);
        if (w != GK_OK) gk__llm_up_fail(u, w, p->w);
        else if (u->s == GK_OK) {
            u->prog->base += p->bytes;
            if (u->prog->fn) u->prog->fn(u->prog->base, u->prog->total, u->prog->user);
        }
    }
}
/* A weight tensor of the compute dtype; when the pool is full while pieces are
   in flight (their storage pinned), once more after they are done. */
static gk_status gk__llm_up_alloc(gk__llm_up *u, int nd, int64_t d0, int64_t d1, gk_tensor *out) {
    gk_status s = gk__llm_empty(u->m, u->m->dt, nd, d0, d1, out);
    if (s == GK_ERR_OUT_OF_MEMORY && u->waited < u->npc) {
        gk__llm_up_wait(u);
        if (u->s != GK_OK) return u->s;
        s = gk__llm_empty(u->m, u->m->dt, nd, d0, d1, out);
    }
    if (s != GK_OK) gk__llm_up_fail(u, s, -1);
    return s;
}

/* Weights stored in the compute dtype go from the files straight into their
   device tensors through the context's transfer engine (>>api_xfer): every
   piece (GK__ST_UPLOAD_CHUNK bytes at most) is submitted before the first is
   waited for, so the engine's workers read the files in parallel (pread into
   pinned staging buffers) while earlier pieces are copied to the device; q,
   k and v (and their biases) land in the rows of the fused wqkv (bqkv), gate
   and up in the halves of wgu, so nothing is concatenated afterwards.
   Progress is reported as pieces complete, in order. */
static gk_status gk__llm_upload_direct(gk_llm *m, const gk_safetensors *st, const gk__llm_want *want, int nw, gk__llm_prog *prog) {
    gk_ctx *ctx = m->ctx;
    const gk_llm_config *c = &m->cfg;
    int64_t H = c->heads, Hkv = c->kv_heads, D = c->head_dim, hid = c->hidden, I = c->inter, nqkv = (H + 2 * Hkv) * D;
    size_t es = gk_dtype_size(m->dt), cap = 0;
    gk__llm_up u;
    int i;
    memset(&u, 0, sizeof u);
    u.m = m;
    u.st = st;
    u.want = want;
    u.prog = prog;
    for (i = 0; i < nw; i++) cap += (size_t)((gk_st_find(st, want[i].name)->nbytes + GK__ST_UPLOAD_CHUNK - 1) / GK__ST_UPLOAD_CHUNK);
    if (!(u.pc = (gk__llm_piece *)gk__u_malloc((cap ? cap : 1) * sizeof *u.pc))) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_llm_load: out of host memory");
    if ((u.s = gk_xfer_default(ctx, NULL, &u.x)) != GK_OK) {
        char msg[1200];
        snprintf(msg, sizeof msg, "%.1100s", gk_last_error(ctx));
        gk__u_free(u.pc);
        return gk_error_set(ctx, u.s, "gk_llm_load: %s", msg);
    }
    if (prog->fn) prog->fn(prog->base, prog->total, prog->user);
    for (i = 0; i < nw && u.s == GK_OK; i++) {
        const gk_st_tensor_info *ti = gk_st_find(st, want[i].name);
        gk__llm_layer *y = want[i].layer >= 0 ? &m->L[want[i].layer] : NULL;
        gk_tensor *dst = want[i].dst, into;
        size_t off = 0;
        uint64_t at;
        if (y && m->fused && (dst == &y->wq || dst == &y->wk || dst == &y->wv)) { /* rows of wqkv [nqkv, hid] */
            off = dst == &y->wq ? 0 : (size_t)((dst == &y->wk ? H : H + Hkv) * D * hid) * es;
            if (!y->wqkv.id && gk__llm_up_alloc(&u, 2, nqkv, hid, &y->wqkv) != GK_OK) break;
            into = y->wqkv;
        } else if (y && m->fused && (dst == &y->bq || dst == &y->bk || dst == &y->bv)) { /* parts of bqkv [nqkv] */
            off = dst == &y->bq ? 0 : (size_t)((dst == &y->bk ? H : H + Hkv) * D) * es;
            if (!y->bqkv.id && gk__llm_up_alloc(&u, 1, nqkv, 0, &y->bqkv) != GK_OK) break;
            into = y->bqkv;
        } else if (y && !dst) { /* gate, then up: the halves of wgu [2I, hid] */
            off = strstr(want[i].name, "up_proj") ? (size_t)(I * hid) * es : 0;
            if (!y->wgu.id && gk__llm_up_alloc(&u, 2, 2 * I, hid, &y->wgu) != GK_OK) break;
            into = y->wgu;
        } else {
            if (gk__llm_up_alloc(&u, want[i].ndim, want[i].shape[0], want[i].shape[1], dst) != GK_OK) break;
            into = *dst;
        }
        for (at = 0; at < ti->nbytes; at += GK__ST_UPLOAD_CHUNK) {
            size_t n = (size_t)(ti->nbytes - at < GK__ST_UPLOAD_CHUNK ? ti->nbytes - at : GK__ST_UPLOAD_CHUNK);
            gk__llm_piece *p = &u.pc[u.npc];
            gk_status e = gk__st_submit(u.x, st, ti, into, off + (size_t)at, at, n, &p->id);
            if (e != GK_OK) { gk__llm_up_fail(&u, e, i); break; }
            p->bytes = n;
            p->w = i;
            u.npc++;
        }
        m->weight_bytes += ti->numel * es;
    }
    gk__llm_up_wait(&u); /* all of them, also after a failure: the engine reads the files meanwhile */
    gk__u_free(u.pc);
    if (u.s != GK_OK) return gk_error_set(ctx, u.s, "%s", u.first);
    return GK_OK;
}

GKLLMDEF gk_status gk_llm_load(gk_ctx *ctx, const char *dir, const gk_llm_desc *desc, gk_llm **out) {
    gk_llm_desc d;
    gk_llm *m = NULL;
    gk_json *cj = NULL, *gj = NULL;
    gk_safetensors *st = NULL;
    gk__llm_want *want = NULL;
    gk__llm_prog prog;
    gk_stream *old;
    int nw = 0, i, have_head;
    int64_t l, H, Hkv, D, hid, I, V, nqkv;
    gk_status s;
    const gk_llm_config *c;
    char cpath[4200], gpath[4200];
    if (out) *out = NULL;
    if (!ctx) return gk_error_set(NULL, GK_ERR_INVALID_HANDLE, "gk_llm_load: ctx is NULL");
    if (!dir) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_llm_load: dir is NULL");
    if (!out) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_llm_load: out is NULL");
    if (!dir[0]) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_llm_load: dir is \"\" (a model folder is needed)");
    if (strlen(dir) > 4000) return gk_error_set(ctx, GK_ERR_LIMIT, "gk_llm_load: dir is %llu bytes long (at most 4000)", (unsigned long long)strlen(dir));
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    /* the desc (gk_llm_desc) before any file is read */
    if ((unsigned)d.dtype > (unsigned)GK_LLM_DTYPE_F32)
        return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_llm_load: gk_llm_desc.dtype = %d is not a gk_llm_dtype (GK_LLM_DTYPE_DEFAULT, _BF16, _F16, _F32)", (int)d.dtype);
    if (d.max_seqs < 0 || d.max_seqs > 256)
        return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_llm_load: gk_llm_desc.max_seqs = %d must be in 1..256 (0: 1)", d.max_seqs);
    if (d.max_ctx < 0)
        return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_llm_load: gk_llm_desc.max_ctx = %lld must be >= 1 (0: min(max_position_embeddings, 4096))", (long long)d.max_ctx);
    snprintf(cpath, sizeof cpath, "%s/config.json", dir);
    snprintf(gpath, sizeof gpath, "%s/generation_config.json", dir);
    if (!(m = (gk_llm *)gk__u_calloc(1, sizeof *m))) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_llm_load: out of host memory");
    m->ctx = ctx;
    m->no_graphs = d.no_graphs;
    {   /* a measurement knob: where a decode step's time goes (bench_llm --skip-sweep); never set in normal use */
        const char *e = getenv("GPUKIT_LLM_DEBUG_SKIP");
        m->dbg_skip = e ? (unsigned)strtoul(e, NULL, 0) : 0u;
    }
    switch (d.dtype) {
    case GK_LLM_DTYPE_F16: m->dt = GK_F16; break;
    case GK_LLM_DTYPE_F32: m->dt = GK_F32; break;
    default: m->dt = GK_BF16; break; /* DEFAULT, BF16 (checked above) */
    }
    /* config */
    if ((s = gk__llm_read_json(ctx, dir, "config.json", 0, &cj)) != GK_OK) goto fail;
    if ((s = gk__llm_read_json(ctx, dir, "generation_config.json", 1, &gj)) != GK_OK) goto fail;
    if ((s = gk__llm_parse_config_at(ctx, cpath, gk_json_root(cj), gpath, gj ? gk_json_root(gj) : NULL, &m->cfg)) != GK_OK) goto fail;
    c = &m->cfg;
    H = c->heads; Hkv = c->kv_heads; D = c->head_dim; hid = c->hidden; I = c->inter; V = c->vocab;
    nqkv = (H + 2 * Hkv) * D;
    m->fused = !c->qk_norm;
    m->max_seqs = d.max_seqs > 0 ? d.max_seqs : 1;
    m->max_ctx = d.max_ctx > 0 ? d.max_ctx : (c->max_pos < 4096 ? c->max_pos : 4096);
    /* positions past the model's (RoPE tables, HF's dynamic scaling) are not what the model was made for */
    if (m->max_ctx > c->max_pos) {
        s = gk_error_set(ctx, GK_ERR_LIMIT, "gk_llm_load: gk_llm_desc.max_ctx = %lld is above the model's max_position_embeddings = %lld (%s)", (long long)m->max_ctx,
                         (long long)c->max_pos, cpath);
        goto fail;
    }
    if (m->max_ctx > INT32_MAX / 2) { s = gk_error_set(ctx, GK_ERR_LIMIT, "gk_llm_load: gk_llm_desc.max_ctx = %lld is too large (at most %d)", (long long)m->max_ctx, INT32_MAX / 2); goto fail; }
    for (m->nbucket = 1; ((int64_t)256 << (m->nbucket - 1)) < m->max_ctx; m->nbucket++) {}
    if (c->sliding_window > 0 && c->sliding_window < m->max_ctx) {
        s = gk_error_set(ctx, GK_ERR_UNSUPPORTED, "gk_llm_load: %s: sliding_window = %lld is shorter than the context of %lld tokens: sliding-window attention is not "
                         "supported (ask for max_ctx <= %lld)", cpath, (long long)c->sliding_window, (long long)m->max_ctx, (long long)c->sliding_window);
        goto fail;
    }
    /* tokenizer and chat template */
    if ((s = gk__llm_load_tokenizer(m, dir)) != GK_OK) goto fail;
    {
        size_t k, nv = gk_tokenizer_vocab_size(m->tok), plain = 0;
        for (k = 0; k < nv && !plain; k++) plain = gk_tokenizer_id_to_token(m->tok, (int32_t)k, NULL) && !gk_tokenizer_is_special(m->tok, (int32_t)k);
        if (!plain) { s = gk_error_set(ctx, GK_ERR_FORMAT, "gk_llm_load: %s/tokenizer.json has no vocab (no token but special ones)", dir); goto fail; }
    }
    if ((int64_t)gk_tokenizer_vocab_size(m->tok) > V) {
        s = gk_error_set(ctx, GK_ERR_SHAPE, "gk_llm_load: %s/tokenizer.json has ids up to %llu but %s's vocab_size = %lld (the model's ids 0..%lld)", dir,
                         (unsigned long long)gk_tokenizer_vocab_size(m->tok) - 1, cpath, (long long)V, (long long)V - 1);
        goto fail;
    }
    /* the tensors the config asks for: presence, dtype and shape, before any device allocation */
    {
        gk__u_tl sv;
        gk__u_tl_save(&sv);
        if ((s = gk_st_open(dir, &st)) != GK_OK) { s = gk__u_tl_move(ctx, &sv, s, "gk_llm_load: "); goto fail; }
    }
    if (!(m->L = (gk__llm_layer *)gk__u_calloc((size_t)c->layers, sizeof *m->L)) ||
        !(want = (gk__llm_want *)gk__u_calloc((size_t)(c->layers * 16 + 4), sizeof *want)) ||
        !(m->len = (int64_t *)gk__u_calloc((size_t)m->max_seqs, sizeof(int64_t))) ||
        !(m->graphs = (gk_graph **)gk__u_calloc((size_t)(2 * (m->max_seqs + 1) * m->nbucket), sizeof(gk_graph *))) ||
        !(m->gwarm = (int *)gk__u_calloc((size_t)(2 * (m->max_seqs + 1) * m->nbucket), sizeof(int))) ||
        !(m->h_tok = (int32_t *)gk__u_calloc((size_t)m->max_seqs, sizeof(int32_t))) || !(m->h_pos = (int32_t *)gk__u_calloc((size_t)m->max_seqs, sizeof(int32_t)))) {
        s = gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_llm_load: out of host memory");
        goto fail;
    }
    have_head = gk_st_find(st, "lm_head.weight") != NULL;
    if (!c->tie_embeddings && !have_head) { /* HF would start from a random lm_head */
        s = gk_error_set(ctx, GK_ERR_NOT_FOUND, "gk_llm_load: tensor lm_head.weight is missing from %s and %s's tie_word_embeddings is false", dir, cpath);
        goto fail;
    }
    gk__llm_want_add(want, &nw, &m->embed, -1, "model.embed_tokens.weight", 2, V, hid);
    gk__llm_want_add(want, &nw, &m->norm, -1, "model.norm.weight", 1, hid, 0);
    if (!c->tie_embeddings && have_head) gk__llm_want_add(want, &nw, &m->lm_head, -1, "lm_head.weight", 2, V, hid);
    for (l = 0; l < c->layers; l++) {
        gk__llm_layer *y = &m->L[l];
        gk__llm_want_add(want, &nw, &y->ln1, l, "model.layers.%lld.input_layernorm.weight", 1, hid, 0);
        gk__llm_want_add(want, &nw, &y->ln2, l, "model.layers.%lld.post_attention_layernorm.weight", 1, hid, 0);
        gk__llm_want_add(want, &nw, &y->wq, l, "model.layers.%lld.self_attn.q_proj.weight", 2, H * D, hid);
        gk__llm_want_add(want, &nw, &y->wk, l, "model.layers.%lld.self_attn.k_proj.weight", 2, Hkv * D, hid);
        gk__llm_want_add(want, &nw, &y->wv, l, "model.layers.%lld.self_attn.v_proj.weight", 2, Hkv * D, hid);
        gk__llm_want_add(want, &nw, &y->wo, l, "model.layers.%lld.self_attn.o_proj.weight", 2, hid, H * D);
        if (c->qkv_bias) {
            gk__llm_want_add(want, &nw, &y->bq, l, "model.layers.%lld.self_attn.q_proj.bias", 1, H * D, 0);
            gk__llm_want_add(want, &nw, &y->bk, l, "model.layers.%lld.self_attn.k_proj.bias", 1, Hkv * D, 0);
            gk__llm_want_add(want, &nw, &y->bv, l, "model.layers.%lld.self_attn.v_proj.bias", 1, Hkv * D, 0);
        }
        if (c->o_bias) gk__llm_want_add(want, &nw, &y->bo, l, "model.layers.%lld.self_attn.o_proj.bias", 1, hid, 0);
        if (c->qk_norm) {
            gk__llm_want_add(want, &nw, &y->qn, l, "model.layers.%lld.self_attn.q_norm.weight", 1, D, 0);
            gk__llm_want_add(want, &nw, &y->kn, l, "model.layers.%lld.self_attn.k_norm.weight", 1, D, 0);
        }
        /* gate and up go to wgu (fused below); down */
        gk__llm_want_add(want, &nw, NULL, l, "model.layers.%lld.mlp.gate_proj.weight", 2, I, hid);
        gk__llm_want_add(want, &nw, NULL, l, "model.layers.%lld.mlp.up_proj.weight", 2, I, hid);
        gk__llm_want_add(want, &nw, &y->wdown, l, "model.layers.%lld.mlp.down_proj.weight", 2, hid, I);
    }
    memset(&prog, 0, sizeof prog);
    prog.fn = d.progress; prog.user = d.user;
    for (i = 0; i < nw; i++) {
        const gk_st_tensor_info *ti = gk_st_find(st, want[i].name);
        gk_dtype wd;
        int k, bad = 0;
        if (!ti) { s = gk_error_set(ctx, GK_ERR_NOT_FOUND, "gk_llm_load: tensor %s is missing from %s", want[i].name, dir); goto fail; }
        if (!gk_st_gk_dtype(ti->dtype, &wd) || (wd != GK_F32 && wd != GK_F16 && wd != GK_BF16)) {
            s = gk_error_set(ctx, GK_ERR_DTYPE, "gk_llm_load: tensor %s is %s (f32, f16 or bf16 expected)", want[i].name, gk_st_dtype_name(ti->dtype));
            goto fail;
        }
        if (i == 0) m->cfg.weights_dtype = wd;
        if (ti->ndim != want[i].ndim) bad = 1;
        for (k = 0; k < want[i].ndim && !bad; k++) bad = ti->shape[k] != want[i].shape[k];
        if (bad) {
            char got[128];
            size_t o = 0;
            got[0] = 0;
            for (k = 0; k < ti->ndim && o < sizeof got - 24; k++) o += (size_t)snprintf(got + o, sizeof got - o, "%s%lld", k ? ", " : "", (long long)ti->shape[k]);
            if (want[i].ndim == 1)
                s = gk_error_set(ctx, GK_ERR_SHAPE, "gk_llm_load: tensor %s has shape [%s]; the config says [%lld]", want[i].name, got, (long long)want[i].shape[0]);
            else
                s = gk_error_set(ctx, GK_ERR_SHAPE, "gk_llm_load: tensor %s has shape [%s]; the config says [%lld, %lld]", want[i].name, got,
                                 (long long)want[i].shape[0], (long long)want[i].shape[1]);
            goto fail;
        }
        prog.total += ti->numel * gk_dtype_size(m->dt);
    }
    /* upload (in the compute dtype) and fuse */
    if ((s = gk_stream_create(ctx, GK_PRIORITY_NORMAL, &m->stream)) != GK_OK) goto fail;
    old = gk_get_stream(ctx);
    gk_set_stream(ctx, m->stream);
    {
        gk_tensor gate = gk__u_tnull(), up = gk__u_tnull();
        int direct = 1;
        for (i = 0; i < nw && direct; i++) {
            gk_dtype wd;
            direct = gk_st_gk_dtype(gk_st_find(st, want[i].name)->dtype, &wd) && wd == m->dt;
        }
        /* stored in the compute dtype: straight from the files, in parallel; else a cast on the device a tensor, then concatenation */
        if (direct) s = gk__llm_upload_direct(m, st, want, nw, &prog);
        for (i = 0; i < nw && s == GK_OK && !direct; i++) {
            gk_tensor t = gk__u_tnull();
            const gk_st_tensor_info *ti = gk_st_find(st, want[i].name);
            prog.cur = ti->numel * gk_dtype_size(m->dt);
            s = gk_st_upload(ctx, st, want[i].name, m->dt, &t, gk__llm_prog_cb, &prog);
            prog.base += ti->numel * gk_dtype_size(m->dt);
            if (s != GK_OK) break;
            m->weight_bytes += ti->numel * gk_dtype_size(m->dt);
            if (want[i].dst) *want[i].dst = t;
            else if (!gate.id) gate = t;
            else up = t;
            if (gate.id && up.id) { /* [gate; up] -> wgu [2I, hid] */
                gk_tensor xs[2];
                gk__llm_layer *y = &m->L[want[i].layer];
                xs[0] = gate; xs[1] = up;
                s = gk_concat_new(ctx, xs, 2, 0, &y->wgu);
                gk_tensor_free(ctx, gate); gk_tensor_free(ctx, up);
                gate = up = gk__u_tnull();
            }
        }
        for (l = 0; l < c->layers && s == GK_OK && m->fused && !direct; l++) { /* [q; k; v] -> wqkv, and the biases */
            gk__llm_layer *y = &m->L[l];
            gk_tensor xs[3];
            xs[0] = y->wq; xs[1] = y->wk; xs[2] = y->wv;
            s = gk_concat_new(ctx, xs, 3, 0, &y->wqkv);
            if (s == GK_OK && c->qkv_bias) { xs[0] = y->bq; xs[1] = y->bk; xs[2] = y->bv; s = gk_concat_new(ctx, xs, 3, 0, &y->bqkv); }
            gk__llm_free_t(ctx, &y->wq); gk__llm_free_t(ctx, &y->wk); gk__llm_free_t(ctx, &y->wv);
            gk__llm_free_t(ctx, &y->bq); gk__llm_free_t(ctx, &y->bk); gk__llm_free_t(ctx, &y->bv);
        }
    }
    if (s == GK_OK && !m->lm_head.id) m->lm_head = m->embed;
    /* RoPE tables, KV cache, decode state and activations */
    if (s == GK_OK) s = gk_rope_table_new(ctx, &c->rope, m->max_ctx, m->dt, &m->cos_tab, &m->sin_tab);
    for (l = 0; l < c->layers && s == GK_OK; l++) {
        int64_t sh[4];
        sh[0] = m->max_seqs; sh[1] = m->max_ctx; sh[2] = 2 * Hkv; sh[3] = D;
        s = gk_tensor_empty(ctx, m->dt, 4, sh, &m->L[l].kv);
        if (s == GK_OK) s = gk_fill(ctx, m->L[l].kv, 0);
        if (s == GK_ERR_OUT_OF_MEMORY)
            s = gk_error_set(ctx, s, "gk_llm_load: out of memory for the KV cache of %d x %lld tokens (%.1f MiB per layer): %s", m->max_seqs,
                             (long long)m->max_ctx, 2.0 * (double)(m->max_seqs * m->max_ctx * Hkv * D) * (double)gk_dtype_size(m->dt) / 1048576.0,
                             gk_last_error(ctx));
    }
    {
        int64_t S = m->max_seqs;
        if (s == GK_OK) s = gk__llm_empty(m, GK_I32, 1, S, 0, &m->d_tok);
        if (s == GK_OK) s = gk__llm_empty(m, GK_I32, 1, S, 0, &m->d_pos);
        if (s == GK_OK) s = gk__llm_empty(m, GK_I32, 1, S, 0, &m->d_kvl);
        if (s == GK_OK) s = gk__llm_empty(m, GK_I32, 1, 1, 0, &m->d_one);
        if (s == GK_OK) s = gk__llm_empty(m, GK_I32, 2, S, m->max_ctx, &m->d_hist);
        if (s == GK_OK) s = gk_fill(ctx, m->d_one, 1);
        if (s == GK_OK) s = gk_fill(ctx, m->d_tok, 0);
        if (s == GK_OK) s = gk_fill(ctx, m->d_pos, 0);
        if (s == GK_OK) s = gk_fill(ctx, m->d_hist, -1);
        if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, S, hid, &m->a_h);
        if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, S, hid, &m->a_h2);
        if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, S, hid, &m->a_x);
        if (s == GK_OK && m->fused) s = gk__llm_empty(m, m->dt, 2, S, nqkv, &m->a_qkv);
        if (s == GK_OK && !m->fused) s = gk__llm_empty(m, m->dt, 2, S, H * D, &m->a_q);
        if (s == GK_OK && !m->fused) s = gk__llm_empty(m, m->dt, 2, S, Hkv * D, &m->a_k);
        if (s == GK_OK && !m->fused) s = gk__llm_empty(m, m->dt, 2, S, Hkv * D, &m->a_v);
        if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, S, H * D, &m->a_att);
        if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, S, 2 * I, &m->a_gu);
        if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, S, I, &m->a_act);
        if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, S, V, &m->a_logits);
    }
    if (s == GK_OK) s = gk_stream_sync(ctx, m->stream);
    gk_set_stream(ctx, old);
    if (s != GK_OK) goto fail;
    gk_st_close(st);
    gk_json_free(cj);
    gk_json_free(gj);
    gk__u_free(want);
    *out = m;
    return GK_OK;
fail:
    gk_st_close(st);
    gk_json_free(cj);
    gk_json_free(gj);
    gk__u_free(want);
    gk_llm_free(m);
    return s;
}

GKLLMDEF const gk_llm_config *gk_llm_get_config(const gk_llm *m) { return m ? &m->cfg : NULL; }
GKLLMDEF const gk_tokenizer *gk_llm_tokenizer(const gk_llm *m) { return m ? m->tok : NULL; }
GKLLMDEF gk_dtype gk_llm_compute_dtype(const gk_llm *m) { return m ? m->dt : GK_F32; }
GKLLMDEF int64_t gk_llm_max_ctx(const gk_llm *m) { return m ? m->max_ctx : 0; }
GKLLMDEF uint64_t gk_llm_weight_bytes(const gk_llm *m) { return m ? m->weight_bytes : 0; }
GKLLMDEF uint64_t gk_llm_kv_bytes_per_token(const gk_llm *m) {
    return m ? (uint64_t)(2 * m->cfg.layers * m->cfg.kv_heads * m->cfg.head_dim) * gk_dtype_size(m->dt) : 0;
}
GKLLMDEF int64_t gk_llm_seq_len(const gk_llm *m, int seq) { return m && seq >= 0 && seq < m->max_seqs ? m->len[seq] : -1; }

/* >>model_forward: the forward pass, KV cache, decode graphs */
/* ---- forward ---- */
/* One block of tokens through every layer: N = Bq * Sq rows; Bq sequences
   (cache slots slot0..slot0+Bq-1) of Sq new tokens each; attention over the
   cache rows 0..kv_static. Decode: Bq = B, Sq = 1, kv lengths on the device
   (kvl, at most kv_static), start = pos. Prefill: Bq = 1, Sq = T. */
typedef struct gk__llm_run {
    int64_t N, Bq, Sq, slot0, kv_static;
    gk_tensor kvl, pos, start;
    gk_tensor h, h2, x, qkv, q, k, v, att, gu, act;
} gk__llm_run;

static void gk__llm_layers(gk_llm *m, gk__lv *V, const gk__llm_run *r) {
    const gk_llm_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t H = c->heads, Hkv = c->kv_heads, D = c->head_dim, l;
    int rd = c->rope.rotary_dim, dec = r->Sq == 1 && r->kvl.id, ax = dec ? 1 : 0;
    /* measurement only (GPUKIT_LLM_DEBUG_SKIP): decode steps leave out the ops of these bits:
       1 norms, 2 q/k/v GEMV, 4 RoPE (+ the cache write when fused), 8 cache write, 16 attention, 32 o GEMV, 64 gate/up GEMV, 128 down GEMV */
    unsigned sk = dec ? m->dbg_skip : 0u;
#define GK__LLM_DO(bit, call) do { if (!(sk & (bit))) GK__LV_DO(V, call); } while (0)
    for (l = 0; l < c->layers && V->st == GK_OK; l++) {
        const gk__llm_layer *y = &m->L[l];
        gk_matmul_desc md;
        gk_attention_desc ad;
        gk_tensor q3, q4, kv, kc, vc, att4;
        GK__LLM_DO(1, dec ? gk_decode_rms_norm(ctx, r->x, r->h, y->ln1, c->rms_eps) : gk_rms_norm(ctx, r->x, r->h, y->ln1, c->rms_eps));
        memset(&md, 0, sizeof md);
        /* the cache slots of this block: [Bq, max_ctx, 2 Hkv, D] */
        kv = gk__lv_slice(V, y->kv, 0, r->slot0, r->slot0 + r->Bq);
        if (m->fused) {
            /* one GEMV / GEMM for q, k, v; one RoPE over the q and k heads; one cache write for k and v */
            gk_tensor qkv3;
            md.bias = y->bqkv;
            GK__LLM_DO(2, gk_linear(ctx, r->qkv, r->x, y->wqkv, &md));
            qkv3 = gk__lv_reshape(V, r->qkv, 3, r->N, H + 2 * Hkv, D, 0);
            q3 = gk__lv_slice(V, qkv3, 1, 0, H);
            if (dec) { /* one token a sequence at r->pos: RoPE of q and k and the cache write in one op */
                GK__LLM_DO(4, gk_rope_kv_write(ctx, qkv3, kv, r->pos, m->cos_tab, m->sin_tab, rd, H));
            } else {
                if (V->st == GK_OK) {
                    gk_tensor qk = gk__lv_slice(V, qkv3, 1, 0, H + Hkv);
                    GK__LLM_DO(4, gk_rope(ctx, qk, qk, r->pos, m->cos_tab, m->sin_tab, rd, GK_ROPE_NEOX));
                }
                GK__LLM_DO(8, gk_kv_write(ctx, kv, gk__lv_unsq(V, gk__lv_slice(V, qkv3, 1, H, H + 2 * Hkv), ax), r->start));
            }
        } else {
            gk_tensor k3, v3;
            md.bias = y->bq; GK__LV_DO(V, gk_linear(ctx, r->q, r->x, y->wq, &md));
            md.bias = y->bk; GK__LV_DO(V, gk_linear(ctx, r->k, r->x, y->wk, &md));
            md.bias = y->bv; GK__LV_DO(V, gk_linear(ctx, r->v, r->x, y->wv, &md));
            q3 = gk__lv_reshape(V, r->q, 3, r->N, H, D, 0);
            k3 = gk__lv_reshape(V, r->k, 3, r->N, Hkv, D, 0);
            v3 = gk__lv_reshape(V, r->v, 3, r->N, Hkv, D, 0);
            if (c->qk_norm) {
                gk_tensor qf = gk__lv_reshape(V, r->q, 2, r->N * H, D, 0, 0), kf = gk__lv_reshape(V, r->k, 2, r->N * Hkv, D, 0, 0);
                GK__LV_DO(V, gk_rms_norm(ctx, qf, qf, y->qn, c->rms_eps));
                GK__LV_DO(V, gk_rms_norm(ctx, kf, kf, y->kn, c->rms_eps));
            }
            GK__LV_DO(V, gk_rope(ctx, q3, q3, r->pos, m->cos_tab, m->sin_tab, rd, GK_ROPE_NEOX));
            GK__LV_DO(V, gk_rope(ctx, k3, k3, r->pos, m->cos_tab, m->sin_tab, rd, GK_ROPE_NEOX));
            GK__LV_DO(V, gk_kv_write(ctx, gk__lv_slice(V, kv, 2, 0, Hkv), gk__lv_unsq(V, k3, ax), r->start));
            GK__LV_DO(V, gk_kv_write(ctx, gk__lv_slice(V, kv, 2, Hkv, 2 * Hkv), gk__lv_unsq(V, v3, ax), r->start));
        }
        if (V->st != GK_OK) break;
        /* [N, H, D] -> [Bq, Sq, H, D]; keys: every cached row (decode: kv_lens on the device) or 0..kv_static */
        q4 = gk__lv_unsq(V, q3, ax);
        if (r->kv_static < m->max_ctx) kv = gk__lv_slice(V, kv, 1, 0, r->kv_static);
        kc = gk__lv_slice(V, kv, 2, 0, Hkv);
        vc = gk__lv_slice(V, kv, 2, Hkv, 2 * Hkv);
        att4 = gk__lv_reshape(V, r->att, 4, r->Bq, r->Sq, H, D);
        memset(&ad, 0, sizeof ad);
        ad.causal = 1;
        if (dec) ad.kv_lens = r->kvl;
        if (V->st != GK_OK) break;
        GK__LLM_DO(16, gk_attention(ctx, att4, q4, kc, vc, &ad));
        memset(&md, 0, sizeof md);
        md.bias = y->bo;
        md.residual = r->h;
        GK__LLM_DO(32, gk_linear(ctx, r->h2, r->att, y->wo, &md));
        GK__LLM_DO(1, dec ? gk_decode_rms_norm(ctx, r->x, r->h2, y->ln2, c->rms_eps) : gk_rms_norm(ctx, r->x, r->h2, y->ln2, c->rms_eps));
        /* SwiGLU from the fused [gate; up] weight: one pass for <= 8 rows (decode), else through gu */
        memset(&md, 0, sizeof md);
        md.act = GK_ACT_SILU;
        GK__LLM_DO(64, gk_linear_glu(ctx, r->act, r->x, y->wgu, r->gu, &md));
        memset(&md, 0, sizeof md);
        md.residual = r->h2;
        GK__LLM_DO(128, gk_linear(ctx, r->h, r->act, y->wdown, &md));
        gk__lv_free(V);
    }
#undef GK__LLM_DO
}

/* The decode step of sequences 0..B-1: token d_tok[b] at position d_pos[b];
   logits into a_logits[0..B); pos += 1; greedy: the argmax into d_tok.
   Attention sees cache rows 0..kv_rows (every pos[b] < kv_rows). */
static gk_status gk__llm_step_ops(gk_llm *m, int64_t B, int greedy, int64_t kv_rows) {
    gk__lv V;
    gk__llm_run r;
    gk_ctx *ctx = m->ctx;
    gk_tensor tok, tok4, hist4, logits;
    memset(&V, 0, sizeof V);
    memset(&r, 0, sizeof r);
    V.ctx = ctx;
    r.N = B; r.Bq = B; r.Sq = 1; r.slot0 = 0; r.kv_static = kv_rows;
    tok = gk__lv_slice(&V, m->d_tok, 0, 0, B);
    r.pos = gk__lv_slice(&V, m->d_pos, 0, 0, B);
    r.start = r.pos;
    r.kvl = gk__lv_slice(&V, m->d_kvl, 0, 0, B);
    tok4 = gk__lv_reshape(&V, tok, 4, B, 1, 1, 1);
    hist4 = gk__lv_reshape(&V, gk__lv_slice(&V, m->d_hist, 0, 0, B), 4, B, m->max_ctx, 1, 1);
    r.h = gk__lv_slice(&V, m->a_h, 0, 0, B);
    r.h2 = gk__lv_slice(&V, m->a_h2, 0, 0, B);
    r.x = gk__lv_slice(&V, m->a_x, 0, 0, B);
    if (m->fused) r.qkv = gk__lv_slice(&V, m->a_qkv, 0, 0, B);
    else {
        r.q = gk__lv_slice(&V, m->a_q, 0, 0, B);
        r.k = gk__lv_slice(&V, m->a_k, 0, 0, B);
        r.v = gk__lv_slice(&V, m->a_v, 0, 0, B);
    }
    r.att = gk__lv_slice(&V, m->a_att, 0, 0, B);
    r.gu = gk__lv_slice(&V, m->a_gu, 0, 0, B);
    r.act = gk__lv_slice(&V, m->a_act, 0, 0, B);
    logits = gk__lv_slice(&V, m->a_logits, 0, 0, B);
    if (V.st == GK_OK) {
        /* the step's views (V) stay alive; the layers make and free their own (inner) */
        gk__lv inner;
        gk_tensor none = gk__u_tnull();
        memset(&inner, 0, sizeof inner);
        inner.ctx = ctx;
        GK__LV_DO(&inner, gk_kv_write(ctx, hist4, tok4, r.pos));
        GK__LV_DO(&inner, gk_add(ctx, r.kvl, r.pos, m->d_one));
        GK__LV_DO(&inner, gk_embedding(ctx, r.h, m->embed, tok));
        if (inner.st == GK_OK) gk__llm_layers(m, &inner, &r);
        GK__LV_DO(&inner, gk_decode_rms_norm(ctx, r.x, r.h, m->norm, m->cfg.rms_eps));
        GK__LV_DO(&inner, gk_linear(ctx, logits, r.x, m->lm_head, NULL));
        GK__LV_DO(&inner, gk_add(ctx, r.pos, r.pos, m->d_one));
        if (greedy) GK__LV_DO(&inner, gk_sample(ctx, tok, logits, none, NULL));
        gk__lv_free(&inner);
        V.st = inner.st;
    }
    gk__lv_free(&V);
    return V.st;
}

/* The stream the model's work goes to: gk_llm_set_stream's, else its own. */
static gk_stream *gk__llm_stream(const gk_llm *m) { return m->stream_use ? m->stream_use : m->stream; }
GKLLMDEF gk_status gk_llm_set_stream(gk_llm *m, gk_stream *s) {
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "gk_llm_set_stream: m is NULL");
    m->stream_use = s;
    return GK_OK;
}
static void gk__llm_set_stream(gk_llm *m, gk_stream **old) {
    *old = gk_get_stream(m->ctx);
    gk_set_stream(m->ctx, gk__llm_stream(m));
}

/* Prefill of sequence seq (ids on the host) at positions len..len+n-1; the
   f32 logits [all ? n : 1, vocab] stay on the device in *logits (the caller
   frees it). */
static gk_status gk__llm_prefill(gk_llm *m, int seq, const int32_t *ids, int64_t n, int all, gk_tensor *logits) {
    const gk_llm_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t p0 = m->len[seq], i, H = c->heads, Hkv = c->kv_heads, D = c->head_dim, hid = c->hidden, I = c->inter;
    int32_t *pos = (int32_t *)gk__u_malloc(sizeof(int32_t) * (size_t)n), p0i = (int32_t)p0;
    gk_tensor ids_d = gk__u_tnull(), pos_d = gk__u_tnull(), start_d = gk__u_tnull(), none = gk__u_tnull();
    gk__llm_run r;
    gk__lv V, inner;
    gk_status s = GK_OK;
    int64_t sh1[1];
    *logits = gk__u_tnull();
    if (!pos) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "out of host memory for the positions of a prefill");
    for (i = 0; i < n; i++) pos[i] = (int32_t)(p0 + i);
    memset(&r, 0, sizeof r);
    memset(&V, 0, sizeof V);
    memset(&inner, 0, sizeof inner);
    V.ctx = inner.ctx = ctx;
    sh1[0] = n;
    s = gk_tensor_from_host(ctx, GK_I32, 1, sh1, ids, &ids_d);
    if (s == GK_OK) s = gk_tensor_from_host(ctx, GK_I32, 1, sh1, pos, &pos_d);
    sh1[0] = 1;
    if (s == GK_OK) s = gk_tensor_from_host(ctx, GK_I32, 1, sh1, &p0i, &start_d);
    gk__u_free(pos);
    r.N = n; r.Bq = 1; r.Sq = n; r.slot0 = seq; r.kv_static = p0 + n;
    r.pos = pos_d; r.start = start_d; r.kvl = none;
    if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, n, hid, &r.h);
    if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, n, hid, &r.h2);
    if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, n, hid, &r.x);
    if (s == GK_OK && m->fused) s = gk__llm_empty(m, m->dt, 2, n, (H + 2 * Hkv) * D, &r.qkv);
    if (s == GK_OK && !m->fused) s = gk__llm_empty(m, m->dt, 2, n, H * D, &r.q);
    if (s == GK_OK && !m->fused) s = gk__llm_empty(m, m->dt, 2, n, Hkv * D, &r.k);
    if (s == GK_OK && !m->fused) s = gk__llm_empty(m, m->dt, 2, n, Hkv * D, &r.v);
    if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, n, H * D, &r.att);
    if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, n, 2 * I, &r.gu);
    if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, n, I, &r.act);
    if (s == GK_OK) s = gk__llm_empty(m, m->dt, 2, all ? n : 1, c->vocab, logits);
    if (s == GK_OK) {
        gk_tensor hist4 = gk__lv_reshape(&V, gk__lv_slice(&V, m->d_hist, 0, seq, seq + 1), 4, 1, m->max_ctx, 1, 1);
        gk_tensor ids4 = gk__lv_reshape(&V, ids_d, 4, 1, n, 1, 1), xl;
        GK__LV_DO(&V, gk_kv_write(ctx, hist4, ids4, start_d));
        GK__LV_DO(&V, gk_embedding(ctx, r.h, m->embed, ids_d));
        if (V.st == GK_OK) gk__llm_layers(m, &inner, &r);
        if (V.st == GK_OK) V.st = inner.st;
        GK__LV_DO(&V, gk_rms_norm(ctx, r.x, r.h, m->norm, c->rms_eps));
        xl = all ? r.x : gk__lv_slice(&V, r.x, 0, n - 1, n);
        GK__LV_DO(&V, gk_linear(ctx, *logits, xl, m->lm_head, NULL));
        gk__lv_free(&inner);
        gk__lv_free(&V);
        s = V.st;
    }
    {
        gk_tensor *ts[13] = { &ids_d, &pos_d, &start_d, &r.h, &r.h2, &r.x, &r.qkv, &r.q, &r.k, &r.v, &r.att, &r.gu, &r.act };
        for (i = 0; i < 13; i++) gk__llm_free_t(ctx, ts[i]);
    }
    if (s != GK_OK) gk__llm_free_t(ctx, logits);
    else m->len[seq] = p0 + n;
    return s;
}

/* logits [rows, vocab] of the compute dtype (as HF computes them) to f32 on the host */
static gk_status gk__llm_logits_host(gk_llm *m, gk_tensor lg, float *dst, size_t rows) {
    gk_tensor t;
    gk_status s;
    size_t nb = rows * (size_t)m->cfg.vocab * sizeof(float);
    if (m->dt == GK_F32) return gk_copy_to_host(m->ctx, lg, dst, nb);
    if ((s = gk_cast_new(m->ctx, lg, GK_F32, &t)) != GK_OK) return s;
    s = gk_copy_to_host(m->ctx, t, dst, nb);
    gk_tensor_free(m->ctx, t);
    return s;
}

/* Logits copied to the host (gk_llm_forward's, the first / step logits of a
   generation) must be finite: NaN or infinite weights, or activations past
   the compute dtype's range, are an error that says where. what: "position 6
   of sequence 0", "new token 3 (position 12)". */
static gk_status gk__llm_check_finite(gk_llm *m, const char *W, const float *x, const char *what) {
    int64_t j, V = m->cfg.vocab;
    for (j = 0; j < V; j++)
        if (!(x[j] - x[j] == 0))
            return gk_error_set(m->ctx, GK_ERR_FORMAT, "%s: the logits of %s are not finite (logit %lld is %s): the weights hold NaN or infinite values, or the "
                                "activations overflowed the compute dtype", W, what, (long long)j, x[j] != x[j] ? "NaN" : x[j] > 0 ? "+inf" : "-inf");
    return GK_OK;
}

/* what: "ids", "prompts[1]" */
static gk_status gk__llm_check_ids(gk_llm *m, const char *W, const char *what, const int32_t *ids, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= m->cfg.vocab)
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: token id %d at %s[%llu] is outside the vocab [0, %lld)", W, (int)ids[i], what,
                                (unsigned long long)i, (long long)m->cfg.vocab);
    return GK_OK;
}

GKLLMDEF gk_status gk_llm_reset(gk_llm *m, int seq) {
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "gk_llm_reset: m is NULL");
    if (seq < 0 || seq >= m->max_seqs)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "gk_llm_reset: sequence %d outside 0..%d (the model was loaded with max_seqs %d)", seq, m->max_seqs - 1, m->max_seqs);
    m->len[seq] = 0;
    return GK_OK;
}

GKLLMDEF gk_status gk_llm_forward(gk_llm *m, int seq, const int32_t *ids, size_t n, int all, float *logits) {
    const char *W = "gk_llm_forward";
    gk_stream *old;
    gk_tensor lg;
    gk_status s;
    int64_t p0;
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!ids && n) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: ids is NULL but n is %llu", W, (unsigned long long)n);
    if (n == 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: n is 0 (no tokens to run)", W);
    if (seq < 0 || seq >= m->max_seqs)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: sequence %d outside 0..%d (the model was loaded with max_seqs %d)", W, seq, m->max_seqs - 1, m->max_seqs);
    if ((int64_t)n > m->max_ctx - m->len[seq])
        return gk_error_set(m->ctx, GK_ERR_LIMIT, "%s: %llu tokens after %lld in sequence %d exceed the context of %lld tokens", W, (unsigned long long)n,
                            (long long)m->len[seq], seq, (long long)m->max_ctx);
    if ((s = gk__llm_check_ids(m, W, "ids", ids, n)) != GK_OK) return s;
    gk__llm_set_stream(m, &old);
    p0 = m->len[seq];
    s = gk__llm_prefill(m, seq, ids, (int64_t)n, all, &lg);
    if (s == GK_OK && logits) s = gk__llm_logits_host(m, lg, logits, all ? n : 1);
    if (s == GK_OK) s = gk_stream_sync(m->ctx, gk__llm_stream(m));
    gk__llm_free_t(m->ctx, &lg);
    gk_set_stream(m->ctx, old);
    if (s == GK_OK && logits) { /* the rows are on the host already: non-finite logits are an error (the sequence keeps its length) */
        size_t r, rows = all ? n : 1;
        for (r = 0; r < rows && s == GK_OK; r++) {
            char what[96];
            snprintf(what, sizeof what, "position %lld of sequence %d", (long long)(p0 + (int64_t)(all ? r : n - 1)), seq);
            s = gk__llm_check_finite(m, W, logits + r * (size_t)m->cfg.vocab, what);
        }
        if (s != GK_OK) m->len[seq] = p0;
    }
    return s;
}

/* one decode step of sequences 0..B-1: a graph launch (captured on the
   second use of a batch size and cache bucket, after a direct warm-up step).
   Attention runs over the smallest bucket of 256 << k cache rows (or max_ctx)
   that holds every sequence's new token, so its split over the keys (the
   launch is fixed inside a graph; the lengths are read on the device) fits
   the cache as it grows: a short cache takes gk_attn_dec3's one-split path
   with no combine kernel (tune.dec3_one_split). */
static gk_status gk__llm_decode(gk_llm *m, int B, int greedy) {
    int64_t need = 1, rows = 256;
    int gi, k = 0, i;
    gk_graph *g = NULL;
    gk_status s, s2;
    for (i = 0; i < B; i++) need = m->len[i] + 1 > need ? m->len[i] + 1 : need;
    while (rows < need && k + 1 < m->nbucket) { rows <<= 1; k++; }
    if (rows > m->max_ctx) rows = m->max_ctx;
    gi = (2 * B + (greedy ? 1 : 0)) * m->nbucket + k;
    if (m->no_graphs) return gk__llm_step_ops(m, B, greedy, rows);
    if (m->graphs[gi]) return gk_graph_launch(m->ctx, m->graphs[gi], gk__llm_stream(m));
    if (!m->gwarm[gi]) { m->gwarm[gi] = 1; return gk__llm_step_ops(m, B, greedy, rows); }
    s = gk_graph_begin(m->ctx, gk__llm_stream(m));
    if (s != GK_OK) return s;
    s = gk__llm_step_ops(m, B, greedy, rows);
    s2 = gk_graph_end(m->ctx, m->stream, &g);
    if (s == GK_OK) s = s2;
    if (s != GK_OK) { if (g) gk_graph_destroy(m->ctx, g); return s; }
    m->graphs[gi] = g;
    return gk_graph_launch(m->ctx, g, gk__llm_stream(m));
}

/* >>model_generate: sampling loop, stop strings, batches, chat */
static int gk__llm_is_eos(const gk_llm *m, int32_t id) {
    int i;
    for (i = 0; i < m->cfg.n_eos; i++)
        if (m->cfg.eos_ids[i] == id) return 1;
    return 0;
}

typedef struct gk__llm_seq { gk_tok_stream ts; gk_buf text; gk_ids ids; int done; int64_t nnew; int oom; } gk__llm_seq;

/* a new token of sequence b: EOS, text, callback, stop strings, limits; an
   out-of-memory stops the sequence (q->oom: the call fails); the tokenizer's
   messages do not stay in the thread's error text (sv: as it was) */
static void gk__llm_take(gk_llm *m, const gk_llm_gen_desc *d, gk__llm_seq *q, int b, int32_t id, int64_t max_new, const gk__u_tl *sv) {
    int eos = !(d->flags & GK_LLM_GEN_IGNORE_EOS) && gk__llm_is_eos(m, id);
    size_t before = q->text.len;
    int i;
    gk_status st;
    if (gk_ids_push(&q->ids, id) != GK_OK) { gk__u_tl_restore(sv); q->done = q->oom = 1; return; }
    q->nnew++;
    if (!eos && (st = gk_tok_stream_push(&q->ts, id, &q->text)) != GK_OK) {
        gk__u_tl_restore(sv);
        q->text.len = before; /* an id without text */
        if (st == GK_ERR_OUT_OF_MEMORY) { q->done = q->oom = 1; return; }
    }
    if (q->text.data) q->text.data[q->text.len] = 0;
    if (d->on_token && d->on_token(b, id, q->text.data ? q->text.data + before : "", q->text.len - before, d->user)) q->done = 1;
    for (i = 0; i < d->n_stop && q->text.data; i++) {
        size_t sl = d->stop[i] ? strlen(d->stop[i]) : 0, from = before >= sl ? before - sl + 1 : 0;
        const char *hit = sl ? strstr(q->text.data + from, d->stop[i]) : NULL;
        if (hit) { q->text.len = (size_t)(hit - q->text.data); q->text.data[q->text.len] = 0; q->done = 2; }
    }
    if (eos || q->nnew >= max_new || m->len[b] + 1 >= m->max_ctx) q->done = q->done ? q->done : 1;
}

/* the gk_llm_gen_desc of a call: every field it reads, named */
static gk_status gk__llm_gen_check(gk_llm *m, const char *W, const gk_llm_gen_desc *d) {
    const gk_sample_desc *sd = &d->sample;
    int i;
    if (d->max_new_tokens < 0)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_llm_gen_desc.max_new_tokens = %lld must be >= 1 (0: generation_config.json's, else 256)", W,
                            (long long)d->max_new_tokens);
    if (d->sampling != GK_LLM_SAMPLE_DEFAULT && d->sampling != GK_LLM_SAMPLE_GREEDY && d->sampling != GK_LLM_SAMPLE_CUSTOM)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_llm_gen_desc.sampling = %d is not a GK_LLM_SAMPLE_* mode (DEFAULT 0, GREEDY 1, CUSTOM 2)", W, d->sampling);
    if (d->flags & ~(unsigned)(GK_LLM_GEN_IGNORE_EOS | GK_LLM_GEN_NO_THINKING))
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_llm_gen_desc.flags = 0x%x has bits that are not GK_LLM_GEN_* flags", W, d->flags);
    if (d->n_stop < 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_llm_gen_desc.n_stop = %d is negative", W, d->n_stop);
    if (d->n_stop > 0 && !d->stop)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_llm_gen_desc.stop is NULL but n_stop is %d", W, d->n_stop);
    for (i = 0; i < d->n_stop; i++) {
        if (!d->stop[i]) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_llm_gen_desc.stop[%d] is NULL (n_stop is %d)", W, i, d->n_stop);
        if (!d->stop[i][0]) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_llm_gen_desc.stop[%d] is empty (a stop string needs a character)", W, i);
    }
    if (d->sampling == GK_LLM_SAMPLE_CUSTOM) { /* gk_sample's rules, named by the desc's fields */
        const char *F = "gk_llm_gen_desc.sample";
        if (!(fabs((double)sd->temperature) <= 3.5e38))
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %s.temperature = %g is not finite (<= 0: greedy)", W, F, (double)sd->temperature);
        if (sd->top_k < 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %s.top_k = %d is negative (0: off)", W, F, sd->top_k);
        if (!(sd->top_p >= 0.0f && sd->top_p <= 1.0f))
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %s.top_p = %g must be in (0, 1] (0: off)", W, F, (double)sd->top_p);
        if (!(sd->min_p >= 0.0f && sd->min_p <= 1.0f))
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %s.min_p = %g must be in [0, 1] (0: off)", W, F, (double)sd->min_p);
        if (!(sd->repetition_penalty >= 0.0f && (double)sd->repetition_penalty <= 3.5e38))
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %s.repetition_penalty = %g must be finite and > 0 (0 or 1: off)", W, F, (double)sd->repetition_penalty);
        if (!(fabs((double)sd->presence_penalty) <= 3.5e38))
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %s.presence_penalty = %g is not finite", W, F, (double)sd->presence_penalty);
        if (!(fabs((double)sd->frequency_penalty) <= 3.5e38))
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %s.frequency_penalty = %g is not finite", W, F, (double)sd->frequency_penalty);
    }
    return GK_OK;
}

/* the token sampled for sequence i is not an id: its logits were all NaN or
   -inf (gk_sample gives -1 for such a row, on the CPU and the GPU alike).
   pos: where the token would go; k: which new token it is */
static gk_status gk__llm_no_token(gk_llm *m, const char *W, int n, int i, int64_t k, int64_t pos, int32_t id) {
    char seq[32];
    seq[0] = 0;
    if (n > 1) snprintf(seq, sizeof seq, " of sequence %d", i);
    return gk_error_set(m->ctx, GK_ERR_FORMAT,
                        "%s: no token can be sampled for new token %lld%s (position %lld): its logits are NaN or -inf (sampled id %d); the weights hold NaN "
                        "or infinite values, or the activations overflowed the compute dtype",
                        W, (long long)k, seq, (long long)pos, (int)id);
}

static gk_status gk__llm_gen(gk_llm *m, const char *W, const int32_t *const *prompts, const size_t *lens, int n, const gk_llm_gen_desc *desc,
                             gk_ids *outs, gk_buf *texts, gk_llm_stats *stats) {
    gk_llm_gen_desc d;
    gk_sample_desc sd;
    gk__llm_seq *q = NULL;
    gk_stream *old;
    gk_status s = GK_OK, hs;
    gk__u_tl sv; /* the tokenizer's and buffers' errors go to m->ctx (doc.txt, ERRORS) */
    gk_tensor none = gk__u_tnull(), tokv = gk__u_tnull(), posv = gk__u_tnull(), lgv = gk__u_tnull(), histv = gk__u_tnull();
    int i, greedy, pen, active;
    int64_t max_new, total_prompt = 0, steps = 0;
    double t0, t1, t2;
    if (stats) memset(stats, 0, sizeof *stats);
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!prompts) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: prompts is NULL", W);
    if (!lens) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: lens is NULL", W);
    if (n < 1) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: n = %d prompts; at least 1 is needed", W, n);
    if (n > m->max_seqs) return gk_error_set(m->ctx, GK_ERR_LIMIT, "%s: %d prompts but the model was loaded with max_seqs %d", W, n, m->max_seqs);
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    if ((s = gk__llm_gen_check(m, W, &d)) != GK_OK) return s;
    for (i = 0; i < n; i++) {
        char what[32];
        if (!prompts[i] && lens[i]) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: prompts[%d] is NULL but lens[%d] is %llu", W, i, i, (unsigned long long)lens[i]);
        if (lens[i] == 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: prompt %d is empty (lens[%d] is 0)", W, i, i);
        if ((int64_t)lens[i] >= m->max_ctx)
            return gk_error_set(m->ctx, GK_ERR_LIMIT, "%s: prompt %d of %llu tokens leaves no room in the context of %lld tokens", W, i,
                                (unsigned long long)lens[i], (long long)m->max_ctx);
        snprintf(what, sizeof what, "prompts[%d]", i);
        if ((s = gk__llm_check_ids(m, W, what, prompts[i], lens[i])) != GK_OK) return s;
        total_prompt += (int64_t)lens[i];
    }
    memset(&sd, 0, sizeof sd);
    if (d.sampling == GK_LLM_SAMPLE_CUSTOM) sd = d.sample;
    else if (d.sampling == GK_LLM_SAMPLE_DEFAULT && m->cfg.do_sample) { sd = m->cfg.sample; sd.seed = d.seed; }
    pen = (sd.repetition_penalty != 0 && sd.repetition_penalty != 1) || sd.presence_penalty != 0 || sd.frequency_penalty != 0;
    greedy = sd.temperature <= 0 && !pen;
    max_new = d.max_new_tokens > 0 ? d.max_new_tokens : m->cfg.max_new_tokens > 0 ? m->cfg.max_new_tokens : 256;
    if (!(q = (gk__llm_seq *)gk__u_calloc((size_t)n, sizeof *q))) return gk_error_set(m->ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
    gk__u_tl_save(&sv);
    for (i = 0; i < n; i++) gk_tok_stream_init(&q[i].ts, m->tok, GK_TOK_SKIP_SPECIAL);
    gk__llm_set_stream(m, &old);
    t0 = gk__llm_now();
    s = gk_fill(m->ctx, m->d_hist, -1);
    for (i = 0; i < n && s == GK_OK; i++) {
        gk_tensor lg = gk__u_tnull(), tk = gk__u_tnull(), pv = gk__u_tnull();
        m->len[i] = 0;
        s = gk__llm_prefill(m, i, prompts[i], (int64_t)lens[i], 0, &lg);
        if (s == GK_OK && i == 0 && d.first_logits) s = gk__llm_logits_host(m, lg, d.first_logits, 1);
        if (s == GK_OK && i == 0 && d.step_logits) s = gk__llm_logits_host(m, lg, d.step_logits, 1);
        if (s == GK_OK && i == 0 && (d.first_logits || d.step_logits)) { /* on the host already: check them */
            char what[96];
            snprintf(what, sizeof what, "new token 0%s (position %lld)", n > 1 ? " of sequence 0" : "", (long long)lens[0]);
            s = gk__llm_check_finite(m, W, d.first_logits ? d.first_logits : d.step_logits, what);
        }
        if (s == GK_OK) s = gk_view_slice(m->ctx, m->d_tok, 0, i, i + 1, 1, &tk);
        if (s == GK_OK && pen) s = gk_view_slice(m->ctx, m->d_hist, 0, i, i + 1, 1, &pv);
        sd.step = (uint64_t)lens[i];
        if (s == GK_OK) s = gk_sample(m->ctx, tk, lg, pen ? pv : none, greedy ? NULL : &sd);
        gk__llm_free_t(m->ctx, &lg); gk__llm_free_t(m->ctx, &tk); gk__llm_free_t(m->ctx, &pv);
    }
    if (s == GK_OK) s = gk_view_slice(m->ctx, m->d_tok, 0, 0, n, 1, &tokv);
    if (s == GK_OK) s = gk_view_slice(m->ctx, m->d_pos, 0, 0, n, 1, &posv);
    if (s == GK_OK) s = gk_view_slice(m->ctx, m->a_logits, 0, 0, n, 1, &lgv);
    if (s == GK_OK) s = gk_view_slice(m->ctx, m->d_hist, 0, 0, n, 1, &histv);
    if (s == GK_OK) s = gk_copy_to_host(m->ctx, tokv, m->h_tok, sizeof(int32_t) * (size_t)n);
    t1 = gk__llm_now();
    if (s == GK_OK) {
        for (i = 0; i < n && s == GK_OK; i++)
            if (m->h_tok[i] < 0 || m->h_tok[i] >= m->cfg.vocab) s = gk__llm_no_token(m, W, n, i, 0, m->len[i], m->h_tok[i]);
        for (i = 0; i < n && s == GK_OK; i++) {
            m->h_pos[i] = (int32_t)m->len[i];
            gk__llm_take(m, &d, &q[i], i, m->h_tok[i], max_new, &sv);
        }
        if (s == GK_OK) s = gk_copy_from_host(m->ctx, posv, m->h_pos, sizeof(int32_t) * (size_t)n);
    }
    for (;;) {
        for (active = 0, i = 0; i < n; i++) active += !q[i].done;
        if (!active || s != GK_OK) break;
        s = gk__llm_decode(m, n, greedy);
        if (s == GK_OK && d.step_logits && !q[0].done) {
            gk_tensor row;
            s = gk_view_slice(m->ctx, m->a_logits, 0, 0, 1, 1, &row);
            if (s == GK_OK) {
                s = gk__llm_logits_host(m, row, d.step_logits + (size_t)q[0].nnew * (size_t)m->cfg.vocab, 1);
                gk_tensor_free(m->ctx, row);
            }
            if (s == GK_OK) {
                char what[96];
                snprintf(what, sizeof what, "new token %lld%s (position %lld)", (long long)q[0].nnew, n > 1 ? " of sequence 0" : "", (long long)(m->len[0] + 1));
                s = gk__llm_check_finite(m, W, d.step_logits + (size_t)q[0].nnew * (size_t)m->cfg.vocab, what);
            }
        }
        if (s == GK_OK && !greedy) {
            sd.step = (uint64_t)(m->len[0] + 1);
            s = gk_sample(m->ctx, tokv, lgv, pen ? histv : none, &sd);
        }
        if (s == GK_OK) s = gk_copy_to_host(m->ctx, tokv, m->h_tok, sizeof(int32_t) * (size_t)n);
        steps++;
        for (i = 0; i < n && s == GK_OK; i++) {
            m->len[i]++;
            /* the sampled ids come to the host every step: an invalid one (all-NaN logits) costs no extra sync to see */
            if (!q[i].done && (m->h_tok[i] < 0 || m->h_tok[i] >= m->cfg.vocab)) {
                s = gk__llm_no_token(m, W, n, i, q[i].nnew, m->len[i], m->h_tok[i]);
                break;
            }
            if (!q[i].done) gk__llm_take(m, &d, &q[i], i, m->h_tok[i], max_new, &sv);
            if (q[i].done && m->len[i] >= m->max_ctx - 1 && active > 1) {
                /* a finished sequence that keeps riding along: back to position 0 */
                int32_t zero = 0;
                gk_tensor pv;
                m->len[i] = 0;
                s = gk_view_slice(m->ctx, m->d_pos, 0, i, i + 1, 1, &pv);
                if (s == GK_OK) { s = gk_copy_from_host(m->ctx, pv, &zero, sizeof zero); gk_tensor_free(m->ctx, pv); }
            }
        }
    }
    t2 = gk__llm_now();
    gk__llm_free_t(m->ctx, &tokv); gk__llm_free_t(m->ctx, &posv); gk__llm_free_t(m->ctx, &lgv); gk__llm_free_t(m->ctx, &histv);
    if (s == GK_OK) s = gk_stream_sync(m->ctx, gk__llm_stream(m));
    gk_set_stream(m->ctx, old);
    for (i = 0; i < n && s == GK_OK; i++) /* before any output is appended */
        if (q[i].oom) s = gk_error_set(m->ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory for the tokens of sequence %d", W, i);
    for (i = 0; i < n; i++) {
        hs = GK_OK;
        if (s == GK_OK && q[i].done != 2 && gk_tok_stream_flush(&q[i].ts, &q[i].text) == GK_ERR_OUT_OF_MEMORY) hs = GK_ERR_OUT_OF_MEMORY;
        if (s == GK_OK && hs == GK_OK && outs) {
            size_t k;
            for (k = 0; k < q[i].ids.len && hs == GK_OK; k++) hs = gk_ids_push(&outs[i], q[i].ids.data[k]);
        }
        if (s == GK_OK && hs == GK_OK && texts && q[i].text.len) hs = gk_buf_append(&texts[i], q[i].text.data, q[i].text.len);
        if (s == GK_OK && hs != GK_OK) {
            char pre[64];
            snprintf(pre, sizeof pre, "%s: ", W);
            s = gk__u_tl_move(m->ctx, &sv, hs, pre);
        }
        if (stats) stats->new_tokens += q[i].nnew;
        gk_buf_free(&q[i].text);
        gk_ids_free(&q[i].ids);
    }
    gk__u_free(q);
    if (stats) {
        stats->prompt_tokens = total_prompt;
        stats->decode_steps = steps;
        stats->prefill_s = t1 - t0;
        stats->decode_s = t2 - t1;
        stats->prefill_tok_s = t1 > t0 ? (double)total_prompt / (t1 - t0) : 0;
        stats->decode_tok_s = t2 > t1 ? (double)(stats->new_tokens - n) / (t2 - t1) : 0;
    }
    return s;
}

GKLLMDEF gk_status gk_llm_generate_batch(gk_llm *m, const int32_t *const *prompts, const size_t *lens, int n, const gk_llm_gen_desc *desc,
                                         gk_ids *outs, gk_buf *texts, gk_llm_stats *stats) {
    return gk__llm_gen(m, "gk_llm_generate_batch", prompts, lens, n, desc, outs, texts, stats);
}

GKLLMDEF gk_status gk_llm_generate(gk_llm *m, const char *prompt, const gk_llm_gen_desc *desc, gk_ids *out, gk_buf *text, gk_llm_stats *stats) {
    const char *W = "gk_llm_generate";
    gk_ids ids = { 0, 0, 0 };
    const int32_t *p;
    size_t n;
    gk_status s;
    gk__u_tl sv;
    if (stats) memset(stats, 0, sizeof *stats);
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!prompt) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: prompt is NULL", W);
    gk__u_tl_save(&sv);
    s = gk_tokenizer_encode(m->tok, prompt, strlen(prompt), GK_TOK_ADD_SPECIAL, &ids);
    if (s != GK_OK) { gk_ids_free(&ids); return gk__u_tl_move(m->ctx, &sv, s, "gk_llm_generate: "); }
    if (ids.len == 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: the prompt \"%.40s\" gives no tokens", W, prompt);
    p = ids.data; n = ids.len;
    s = gk__llm_gen(m, W, &p, &n, 1, desc, out, text, stats);
    gk_ids_free(&ids);
    return s;
}

static gk_status gk__llm_chat_ids(gk_llm *m, const char *W, const gk_chat_message *msgs, size_t n, unsigned flags, gk_ids *out) {
    gk_buf b = { 0, 0, 0 };
    gk_status s;
    gk__u_tl sv;
    char pre[64];
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!out) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (!msgs && n) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: msgs is NULL but n is %llu", W, (unsigned long long)n);
    if (flags & ~(unsigned)(GK_LLM_GEN_IGNORE_EOS | GK_LLM_GEN_NO_THINKING))
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: flags = 0x%x has bits that are not GK_LLM_GEN_* flags", W, flags);
    if (!m->has_tmpl) return gk_error_set(m->ctx, GK_ERR_NOT_FOUND, "%s: the model folder has no chat template (no chat_template in tokenizer_config.json, no chat_template.jinja)", W);
    gk__u_tl_save(&sv);
    s = gk_chat_apply(&m->tmpl, msgs, n, GK_CHAT_ADD_GENERATION_PROMPT | ((flags & GK_LLM_GEN_NO_THINKING) ? GK_CHAT_NO_THINKING : 0), &b);
    if (s == GK_OK) s = gk_tokenizer_encode(m->tok, b.data ? b.data : "", b.len, 0, out);
    gk_buf_free(&b);
    snprintf(pre, sizeof pre, "%s: ", W);
    if (s != GK_OK) return gk__u_tl_move(m->ctx, &sv, s, pre);
    return GK_OK;
}

GKLLMDEF gk_status gk_llm_chat_ids(gk_llm *m, const gk_chat_message *msgs, size_t n, unsigned flags, gk_ids *out) {
    return gk__llm_chat_ids(m, "gk_llm_chat_ids", msgs, n, flags, out);
}

GKLLMDEF gk_status gk_llm_chat(gk_llm *m, const gk_chat_message *msgs, size_t n, const gk_llm_gen_desc *desc, gk_ids *out, gk_buf *text,
                               gk_llm_stats *stats) {
    gk_ids ids = { 0, 0, 0 };
    const int32_t *p;
    size_t len;
    gk_status s;
    if (stats) memset(stats, 0, sizeof *stats);
    s = gk__llm_chat_ids(m, "gk_llm_chat", msgs, n, desc ? desc->flags : 0, &ids);
    if (s != GK_OK) { gk_ids_free(&ids); return s; }
    p = ids.data; len = ids.len;
    s = gk__llm_gen(m, "gk_llm_chat", &p, &len, 1, desc, out, text, stats);
    gk_ids_free(&ids);
    return s;
}

/* ======================================================================== */
/* >>impl_audio                                                             */
/* ======================================================================== */
/* WAV reading, mixing to mono, resampling, WAV writing (>>api_audio says
   what is read and how). The path of a WAV file:
     reader (gk__au_rd: a FILE in 256 KiB pieces, or the caller's memory)
     -> header and chunks (gk__au_wav) -> data frames decoded to mono floats
     (gk__au_decode) written straight into the resampler's input window
     -> resampler (gk__au_rs: pass-through, or the windowed sinc) -> output.
   The resampler takes its input in pieces, so nothing holds the whole
   input: only the output (allocated once when the input's length is known)
   and a window of 2H + one piece of input samples. */

#define GK__AU_ZEROS 32        /* zero crossings of the kernel on each side */
#define GK__AU_BETA 9.0        /* Kaiser window beta: about 90 dB stopband */
#define GK__AU_ROLLOFF 0.92    /* cutoff = ROLLOFF * min(rate_in, rate_out) / 2 */
#define GK__AU_TABLE_MAX (1u << 20) /* most floats of per-phase tap tables */
#define GK__AU_KDENS 512       /* kernel samples per zero crossing (interpolated taps) */
#define GK__AU_BUF (256u << 10) /* file read piece */
#define GK__AU_PIECE 16384     /* frames decoded or mixed at a time */
#define GK__AU_UNKNOWN ((uint64_t)-1)

static void gk__au_warn(gk_audio *a, const char *fmt, ...) GK__PRINTF(2, 3);
static void gk__au_warn(gk_audio *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->warning, sizeof a->warning, fmt, ap);
    va_end(ap);
}

static uint32_t gk__au_u16(const unsigned char *p) { return (uint32_t)p[0] | ((uint32_t)p[1] << 8); }
static uint32_t gk__au_u32(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint64_t gk__au_u64(const unsigned char *p) { return (uint64_t)gk__au_u32(p) | ((uint64_t)gk__au_u32(p + 4) << 32); }
static void gk__au_put16(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)(v & 0xFF);
    p[1] = (unsigned char)((v >> 8) & 0xFF);
}
static void gk__au_put32(unsigned char *p, uint32_t v) {
    gk__au_put16(p, v & 0xFFFF);
    gk__au_put16(p + 2, v >> 16);
}
/* a finite float: x - x is 0 for finite x and NaN for NaN and infinities */
static int gk__au_finite(double x) { return x - x == 0.0; }
/* a chunk id for messages: printable ASCII kept, other bytes as '?' */
static void gk__au_id(char dst[5], const unsigned char *p) {
    int i;
    for (i = 0; i < 4; i++) dst[i] = (p[i] >= 0x20 && p[i] < 0x7F) ? (char)p[i] : '?';
    dst[4] = 0;
}
static int gk__au_id_ok(const unsigned char *p) {
    int i;
    for (i = 0; i < 4; i++)
        if (p[i] < 0x20 || p[i] >= 0x7F) return 0;
    return 1;
}

/* ---- the resampler ----
   Output j sits at input time t_j = j * p / q (rate_in / rate_out reduced
   to p / q), kept as b = floor(t_j) and phase ph = (t_j - b) * q. It is
   sum_i x[i] * K((i - t_j) * zc) / sum_i K(...) over i = b - H + 1 .. b + H,
   where K(u) = sinc(u) * kaiser(u / ZEROS) and zc = ROLLOFF * min(1, q / p)
   is the kernel's zero crossings per input sample (H = ceil(ZEROS / zc)
   covers |u| < ZEROS). Samples outside the input are zero; the
   normalisation sums every tap, those outside too, so a constant stays
   constant away from the edges and fades at them. */
typedef struct gk__au_rs {
    int pass;           /* equal rates: the input is the output */
    uint64_t p, q;      /* input samples per output sample = p / q */
    int64_t H;          /* 2H taps an output */
    double zc;          /* zero crossings per input sample */
    float *tab;         /* q phases x 2H taps, each phase summing to 1; NULL: ktab */
    float *ktab;        /* K(u) at u = k / KDENS, k = 0 .. ZEROS * KDENS + 1 */
    float *win;         /* input samples wbase .. wbase + wlen - 1 */
    size_t wlen, wcap;
    uint64_t wbase;
    uint64_t nin;       /* input samples given */
    uint64_t j, b, ph;  /* the next output */
    float *out;         /* the output: nout samples of ocap */
    size_t nout, ocap;
    int fixed;          /* ocap is the final length: no growing */
    const char *label;  /* for messages */
} gk__au_rs;

static double gk__au_i0(double x) { /* modified Bessel function of the first kind, order 0 */
    double s = 1.0, t = 1.0, y = x * x / 4.0;
    int k;
    for (k = 1; k < 500; k++) {
        t *= y / ((double)k * (double)k);
        s += t;
        if (t < s * 1e-17) break;
    }
    return s;
}
static double gk__au_kernel(double u, double i0b) {
    double a = fabs(u), r, w;
    if (a >= GK__AU_ZEROS) return 0.0;
    r = a / GK__AU_ZEROS;
    w = gk__au_i0(GK__AU_BETA * sqrt(1.0 - r * r)) / i0b;
    if (a < 1e-12) return w;
    return sin(3.14159265358979323846 * a) / (3.14159265358979323846 * a) * w;
}
static uint64_t gk__au_gcd(uint64_t a, uint64_t b) {
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}
/* floor(n * q / p + 1/2) without overflow; GK__AU_UNKNOWN when it does not fit */
static uint64_t gk__au_outlen(uint64_t n, uint64_t p, uint64_t q) {
    uint64_t a = n / p, r = n % p, lo = (2 * r * q + p) / (2 * p);
    if (a && a > (GK__AU_UNKNOWN - 1 - lo) / q) return GK__AU_UNKNOWN;
    return a * q + lo;
}

static void gk__au_rs_free(gk__au_rs *rs) {
    gk__u_free(rs->tab);
    gk__u_free(rs->ktab);
    gk__u_free(rs->win);
    gk__u_free(rs->out);
    rs->tab = rs->ktab = rs->win = rs->out = NULL;
}
static gk_status gk__au_oom(const char *label, const char *what, uint64_t n) {
    return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory for %s (%llu floats)", label, what, (unsigned long long)n);
}
/* n_in: the input's length when known (the output is then allocated once,
   at its final size), else GK__AU_UNKNOWN */
static gk_status gk__au_rs_init(gk__au_rs *rs, const char *label, int rate_in, int rate_out, uint64_t n_in) {
    uint64_t g;
    memset(rs, 0, sizeof *rs);
    rs->label = label;
    rs->pass = rate_in == rate_out;
    g = gk__au_gcd((uint64_t)rate_in, (uint64_t)rate_out);
    rs->p = (uint64_t)rate_in / g;
    rs->q = (uint64_t)rate_out / g;
    if (n_in != GK__AU_UNKNOWN) {
        uint64_t n_out = rs->pass ? n_in : gk__au_outlen(n_in, rs->p, rs->q);
        if (n_out == GK__AU_UNKNOWN || n_out > ((size_t)-1) / sizeof(float))
            return GK__U_ERR(GK_ERR_OVERFLOW, "%s: %llu frames at %d Hz make more samples at %d Hz than this machine can address", label,
                             (unsigned long long)n_in, rate_in, rate_out);
        if (n_out) {
            rs->out = (float *)gk__u_malloc((size_t)n_out * sizeof(float));
            if (!rs->out) return gk__au_oom(label, "the samples", n_out);
        }
        rs->ocap = (size_t)n_out;
        rs->fixed = 1;
    }
    if (rs->pass) return GK_OK;
    rs->zc = GK__AU_ROLLOFF * (rs->q < rs->p ? (double)rs->q / (double)rs->p : 1.0);
    rs->H = (int64_t)ceil(GK__AU_ZEROS / rs->zc);
    if ((uint64_t)(2 * rs->H) <= GK__AU_TABLE_MAX && rs->q <= GK__AU_TABLE_MAX / (uint64_t)(2 * rs->H)) {
        size_t T = (size_t)(2 * rs->H), ph, k;
        double i0b = gk__au_i0(GK__AU_BETA);
        rs->tab = (float *)gk__u_malloc((size_t)rs->q * T * sizeof(float));
        if (!rs->tab) return gk__au_oom(label, "the resampling filter", (uint64_t)rs->q * T);
        for (ph = 0; ph < (size_t)rs->q; ph++) {
            float *row = rs->tab + ph * T;
            double s = 0.0, frac = (double)ph / (double)rs->q;
            for (k = 0; k < T; k++) {
                double v = gk__au_kernel(((double)((int64_t)k - rs->H + 1) - frac) * rs->zc, i0b);
                row[k] = (float)v;
                s += v;
            }
            for (k = 0; k < T; k++) row[k] = (float)((double)row[k] / s);
        }
    } else {
        size_t n = (size_t)GK__AU_ZEROS * GK__AU_KDENS + 2, k;
        double i0b = gk__au_i0(GK__AU_BETA);
        rs->ktab = (float *)gk__u_malloc(n * sizeof(float));
        if (!rs->ktab) return gk__au_oom(label, "the resampling filter", n);
        for (k = 0; k < n; k++) rs->ktab[k] = (float)gk__au_kernel((double)k / GK__AU_KDENS, i0b);
    }
    return GK_OK;
}
static gk_status gk__au_rs_room(gk__au_rs *rs, size_t need) {
    if (need <= rs->ocap) return GK_OK;
    if (rs->fixed || !gk__u_grow((void **)&rs->out, &rs->ocap, need, sizeof(float)))
        return gk__au_oom(rs->label, "the samples", need);
    return GK_OK;
}
/* room for n more input samples; write them at the pointer, then commit */
static float *gk__au_rs_reserve(gk__au_rs *rs, size_t n) {
    if (rs->pass) {
        if (gk__au_rs_room(rs, rs->nout + n) != GK_OK) return NULL;
        return rs->out + rs->nout;
    }
    if (rs->wlen + n > rs->wcap && !gk__u_grow((void **)&rs->win, &rs->wcap, rs->wlen + n, sizeof(float))) {
        gk__au_oom(rs->label, "the resampler's input window", rs->wlen + n);
        return NULL;
    }
    return rs->win + rs->wlen;
}
static float gk__au_dot(const float *x, const float *h, size_t n) {
    float s0 = 0.f, s1 = 0.f, s2 = 0.f, s3 = 0.f;
    size_t k = 0;
    for (; k + 4 <= n; k += 4) {
        s0 += x[k] * h[k];
        s1 += x[k + 1] * h[k + 1];
        s2 += x[k + 2] * h[k + 2];
        s3 += x[k + 3] * h[k + 3];
    }
    for (; k < n; k++) s0 += x[k] * h[k];
    return (s0 + s1) + (s2 + s3);
}
/* the outputs whose inputs are all there (final: every output, zeros after
   the input's end), then the window drops what no later output needs */
static gk_status gk__au_rs_run(gk__au_rs *rs, int final) {
    uint64_t limit = final ? gk__au_outlen(rs->nin, rs->p, rs->q) : GK__AU_UNKNOWN;
    int64_t T = 2 * rs->H, keep;
    if (final && limit == GK__AU_UNKNOWN) return GK__U_ERR(GK_ERR_OVERFLOW, "%s: too many output samples", rs->label);
    while (rs->j < limit) {
        int64_t lo = (int64_t)rs->b - rs->H + 1, hi = (int64_t)rs->b + rs->H, i0, i1;
        double y = 0.0;
        if (!final && hi >= (int64_t)rs->nin) break;
        if (gk__au_rs_room(rs, rs->nout + 1) != GK_OK) return GK_ERR_OUT_OF_MEMORY;
        i0 = lo > 0 ? lo : 0;
        i1 = hi < (int64_t)rs->nin - 1 ? hi : (int64_t)rs->nin - 1;
        if (rs->tab) {
            if (i1 >= i0)
                y = gk__au_dot(rs->win + (i0 - (int64_t)rs->wbase), rs->tab + (size_t)rs->ph * (size_t)T + (i0 - lo), (size_t)(i1 - i0 + 1));
        } else {
            double s = 0.0, frac = (double)rs->ph / (double)rs->q, acc = 0.0;
            int64_t i;
            for (i = lo; i <= hi; i++) {
                double x = fabs(((double)(i - (int64_t)rs->b) - frac) * rs->zc) * GK__AU_KDENS, f, v;
                size_t k = (size_t)x;
                if (k >= (size_t)GK__AU_ZEROS * GK__AU_KDENS) continue;
                f = x - (double)k;
                v = (double)rs->ktab[k] + f * ((double)rs->ktab[k + 1] - (double)rs->ktab[k]);
                s += v;
                if (i >= i0 && i <= i1) acc += v * (double)rs->win[i - (int64_t)rs->wbase];
            }
            y = s != 0.0 ? acc / s : 0.0;
        }
        rs->out[rs->nout++] = (float)y;
        rs->j++;
        rs->b += rs->p / rs->q;
        rs->ph += rs->p % rs->q;
        if (rs->ph >= rs->q) {
            rs->ph -= rs->q;
            rs->b++;
        }
    }
    keep = (int64_t)rs->b - rs->H + 1; /* the next output's first input */
    if (keep > (int64_t)rs->wbase) {
        uint64_t drop = (uint64_t)keep - rs->wbase;
        if (drop >= rs->wlen) drop = rs->wlen;
        if (drop < rs->wlen) memmove(rs->win, rs->win + drop, (rs->wlen - (size_t)drop) * sizeof(float));
        rs->wlen -= (size_t)drop;
        rs->wbase += drop;
    }
    return GK_OK;
}
static gk_status gk__au_rs_commit(gk__au_rs *rs, size_t n) {
    rs->nin += n;
    if (rs->pass) {
        rs->nout += n;
        return GK_OK;
    }
    rs->wlen += n;
    return gk__au_rs_run(rs, 0);
}
/* the last outputs; the samples move to a */
static gk_status gk__au_rs_finish(gk__au_rs *rs, gk_audio *a) {
    if (!rs->pass) {
        gk_status st = gk__au_rs_run(rs, 1);
        if (st != GK_OK) return st;
    }
    if (!rs->nout) {
        gk__u_free(rs->out);
        rs->out = NULL;
    } else if (rs->nout < rs->ocap) { /* grown by doubling, or the file ended early: give back the rest */
        void *q = GPUKIT_REALLOC(rs->out, rs->nout * sizeof(float));
        if (q) rs->out = (float *)q;
    }
    a->samples = rs->out;
    a->n = rs->nout;
    rs->out = NULL;
    return GK_OK;
}

/* ---- options ---- */
static gk_status gk__au_desc(const char *W, const gk_audio_desc *d, gk_audio_desc *o) {
    memset(o, 0, sizeof *o);
    if (d) *o = *d;
    if (o->flags & ~(unsigned)(GK_AUDIO_STRICT | GK_AUDIO_KEEP_RATE))
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_audio_desc.flags = 0x%x has bits that are not GK_AUDIO_* flags (STRICT, KEEP_RATE)", W, o->flags);
    if (o->rate < 0) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_audio_desc.rate = %d must be >= 0 (0: 16000)", W, o->rate);
    if (o->rate && (o->flags & GK_AUDIO_KEEP_RATE))
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_audio_desc.rate = %d with GK_AUDIO_KEEP_RATE, which keeps the input's rate: give one or the other", W,
                         o->rate);
    if (!(o->max_seconds >= 0.0) || !gk__au_finite(o->max_seconds))
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_audio_desc.max_seconds = %g must be finite and >= 0 (0: no limit)", W, o->max_seconds);
    if (!o->rate) o->rate = GK_AUDIO_RATE;
    return GK_OK;
}
static int gk__au_out_rate(const gk_audio_desc *d, int rate_in) { return (d->flags & GK_AUDIO_KEEP_RATE) ? rate_in : d->rate; }
static gk_status gk__au_too_long(const char *label, const gk_audio_desc *d, uint64_t frames, int rate) {
    if (d->max_seconds > 0.0 && (double)frames / (double)rate > d->max_seconds)
        return GK__U_ERR(GK_ERR_LIMIT, "%s: %llu frames at %d Hz (%.1f s) are longer than gk_audio_desc.max_seconds = %g", label,
                         (unsigned long long)frames, rate, (double)frames / (double)rate, d->max_seconds);
    return GK_OK;
}

/* ---- reading bytes: a FILE (in GK__AU_BUF pieces) or memory ---- */
typedef struct gk__au_rd {
    FILE *f;                  /* NULL: memory */
    unsigned char *buf;       /* the file's piece */
    size_t cap;
    const unsigned char *p;   /* the unread bytes we have: p[0 .. avail) */
    size_t avail;
    uint64_t pos;             /* the file offset of p[0] */
    int eof;                  /* nothing after p[avail - 1] */
    int err;                  /* errno of a failed read, or -1 */
} gk__au_rd;

/* makes min(want, what is left of the file) bytes readable at r->p (want <= cap) */
static size_t gk__au_fill(gk__au_rd *r, size_t want) {
    if (r->avail >= want || r->eof) return r->avail;
    if (r->avail && r->p != r->buf) memmove(r->buf, r->p, r->avail);
    r->p = r->buf;
    while (r->avail < want && !r->eof) {
        size_t got = fread(r->buf + r->avail, 1, r->cap - r->avail, r->f);
        r->avail += got;
        if (got == 0) {
            r->eof = 1;
            if (ferror(r->f)) r->err = errno ? errno : -1;
        }
    }
    return r->avail;
}
static void gk__au_take(gk__au_rd *r, size_t n) {
    r->p += n;
    r->avail -= n;
    r->pos += n;
}
/* skips n bytes; returns how many there were */
static uint64_t gk__au_skip(gk__au_rd *r, uint64_t n) {
    uint64_t done = 0;
    while (done < n) {
        size_t k;
        if (!r->avail && !gk__au_fill(r, 1)) break;
        k = r->avail;
        if ((uint64_t)k > n - done) k = (size_t)(n - done);
        gk__au_take(r, k);
        done += k;
    }
    return done;
}
static gk_status gk__au_ioerr(const gk__au_rd *r, const char *label) {
    return GK__U_ERR(GK_ERR_IO, "%s: read error at byte %llu: %s", label, (unsigned long long)(r->pos + r->avail),
                     r->err > 0 ? strerror(r->err) : "unknown error");
}

/* ---- WAV ---- */
enum { GK__AU_U8, GK__AU_S16, GK__AU_S24, GK__AU_S32, GK__AU_F32, GK__AU_F64 };
typedef struct gk__au_fmt {
    int tag;      /* 1 PCM or 3 float (an EXTENSIBLE file's subformat) */
    int kind;     /* GK__AU_U8 ... */
    int channels, rate, bits, block;
} gk__au_fmt;

static const char *gk__au_tag_name(uint32_t tag) {
    switch (tag) {
    case 0x0002: return "Microsoft ADPCM";
    case 0x0006: return "A-law";
    case 0x0007: return "mu-law";
    case 0x0011: return "IMA ADPCM";
    case 0x0031: return "GSM 6.10";
    case 0x0040: return "G.721 ADPCM";
    case 0x0050: return "MPEG";
    case 0x0055: return "MPEG layer 3";
    case 0x0092: return "AC-3 over S/PDIF";
    case 0x0160: case 0x0161: case 0x0162: case 0x0163: return "Windows Media Audio";
    case 0x0165: return "WMA lossless";
    case 0x00FF: case 0x1610: return "AAC";
    case 0x2000: return "AC-3";
    case 0x2001: return "DTS";
    case 0x6750: case 0x674F: case 0x6751: return "Ogg Vorbis";
    case 0xF1AC: return "FLAC";
    default: return "unknown";
    }
}
#define GK__AU_SUPPORTED "supported: PCM (tag 1: 8-bit unsigned, 16/24/32-bit signed), IEEE float (tag 3: 32/64-bit), and WAVE_FORMAT_EXTENSIBLE (0xFFFE) with either"

/* the fmt chunk's first n bytes (n >= 16) */
static gk_status gk__au_parse_fmt(const char *label, const unsigned char *c, size_t n, gk__au_fmt *fm) {
    static const unsigned char base_guid[12] = {0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71};
    uint32_t tag = gk__au_u16(c), channels = gk__au_u16(c + 2), rate = gk__au_u32(c + 4), block = gk__au_u16(c + 12),
             bits = gk__au_u16(c + 14), valid = bits, cont;
    int ext = tag == 0xFFFE;
    memset(fm, 0, sizeof *fm);
    if (ext) {
        uint32_t cb = n >= 18 ? gk__au_u16(c + 16) : 0;
        if (n < 40 || cb < 22)
            return GK__U_ERR(GK_ERR_FORMAT, "%s: fmt chunk: WAVE_FORMAT_EXTENSIBLE needs a 40-byte fmt chunk with a 22-byte extension; this one has %llu bytes, extension size %u",
                             label, (unsigned long long)n, (unsigned)cb);
        if (memcmp(c + 28, base_guid, 12) != 0 || gk__au_u16(c + 26) != 0) {
            const unsigned char *g = c + 24;
            return GK__U_ERR(GK_ERR_UNSUPPORTED,
                             "%s: fmt chunk: WAVE_FORMAT_EXTENSIBLE subformat {%02X%02X%02X%02X-%02X%02X-%02X%02X-%02X%02X-%02X%02X%02X%02X%02X%02X} is not supported; " GK__AU_SUPPORTED,
                             label, g[3], g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
        }
        valid = gk__au_u16(c + 18);
        tag = gk__au_u16(c + 24);
    }
    if (tag != 1 && tag != 3)
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: fmt chunk: format tag %u (0x%04X, %s)%s is not supported; " GK__AU_SUPPORTED, label, (unsigned)tag,
                         (unsigned)tag, gk__au_tag_name(tag), ext ? " in WAVE_FORMAT_EXTENSIBLE" : "");
    if (channels == 0) return GK__U_ERR(GK_ERR_FORMAT, "%s: fmt chunk: channels = 0 must be at least 1", label);
    if (rate == 0) return GK__U_ERR(GK_ERR_FORMAT, "%s: fmt chunk: sample rate = 0 must be at least 1 Hz", label);
    if (rate > (uint32_t)INT_MAX)
        return GK__U_ERR(GK_ERR_FORMAT, "%s: fmt chunk: sample rate = %lu Hz is above the limit of %d", label, (unsigned long)rate, INT_MAX);
    /* the container: ceil(bits / 8) bytes; EXTENSIBLE's bits are the container, valid bits <= it */
    if (ext && (bits % 8 != 0 || valid > bits))
        return GK__U_ERR(GK_ERR_FORMAT, "%s: fmt chunk: WAVE_FORMAT_EXTENSIBLE bits per sample = %u with valid bits = %u (the container is a whole number of bytes, valid bits <= it)",
                         label, (unsigned)bits, (unsigned)valid);
    if (ext && valid == 0) valid = bits;
    cont = (bits + 7) / 8;
    if (tag == 1 && (bits == 0 || bits > 32))
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: fmt chunk: PCM with bits per sample = %u; PCM is read at 1 to 32 bits (8-bit unsigned, 16/24/32-bit signed)", label,
                         (unsigned)bits);
    if (tag == 3 && bits != 32 && bits != 64)
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: fmt chunk: IEEE float with bits per sample = %u; float is read at 32 and 64 bits", label, (unsigned)bits);
    if (block != channels * cont)
        return GK__U_ERR(GK_ERR_FORMAT, "%s: fmt chunk: block align = %u does not match %u channel%s of %u bits (%u bytes a frame)", label, (unsigned)block,
                         (unsigned)channels, channels == 1 ? "" : "s", (unsigned)bits, (unsigned)(channels * cont));
    fm->tag = (int)tag;
    fm->channels = (int)channels;
    fm->rate = (int)rate;
    fm->bits = (int)(ext ? valid : bits);
    fm->block = (int)block;
    fm->kind = tag == 3 ? (cont == 4 ? GK__AU_F32 : GK__AU_F64) : cont == 1 ? GK__AU_U8 : cont == 2 ? GK__AU_S16 : cont == 3 ? GK__AU_S24 : GK__AU_S32;
    return GK_OK;
}

/* frames of bytes s to mono floats d: the mean of the channels (in double).
   Returns the first frame holding a NaN or infinity, or frames when none. */
static size_t gk__au_decode(const gk__au_fmt *fm, const unsigned char *s, size_t frames, float *d) {
    size_t f, C = (size_t)fm->channels, c;
    double div = (double)fm->channels;
    switch (fm->kind) {
    case GK__AU_U8:
        for (f = 0; f < frames; f++, s += C) {
            double acc = ((double)s[0] - 128.0) / 128.0;
            for (c = 1; c < C; c++) acc += ((double)s[c] - 128.0) / 128.0;
            d[f] = (float)(acc / div);
        }
        break;
    case GK__AU_S16:
        for (f = 0; f < frames; f++, s += 2 * C) {
            double acc = 0.0;
            for (c = 0; c < C; c++) acc += (double)((int32_t)gk__au_u16(s + 2 * c) - (int32_t)((s[2 * c + 1] & 0x80) ? 65536 : 0)) / 32768.0;
            d[f] = (float)(acc / div);
        }
        break;
    case GK__AU_S24:
        for (f = 0; f < frames; f++, s += 3 * C) {
            double acc = 0.0;
            for (c = 0; c < C; c++) {
                const unsigned char *x = s + 3 * c;
                int32_t v = (int32_t)((uint32_t)x[0] | ((uint32_t)x[1] << 8) | ((uint32_t)x[2] << 16)) - ((x[2] & 0x80) ? 16777216 : 0);
                acc += (double)v / 8388608.0;
            }
            d[f] = (float)(acc / div);
        }
        break;
    case GK__AU_S32:
        for (f = 0; f < frames; f++, s += 4 * C) {
            double acc = 0.0;
            for (c = 0; c < C; c++) acc += (double)((int64_t)gk__au_u32(s + 4 * c) - ((s[4 * c + 3] & 0x80) ? (int64_t)4294967296LL : 0)) / 2147483648.0;
            d[f] = (float)(acc / div);
        }
        break;
    case GK__AU_F32:
        for (f = 0; f < frames; f++, s += 4 * C) {
            double acc = 0.0;
            for (c = 0; c < C; c++) { /* the first value as it is: a -0 stays -0 */
                uint32_t u = gk__au_u32(s + 4 * c);
                float x;
                memcpy(&x, &u, 4);
                acc = c ? acc + (double)x : (double)x;
            }
            if (!gk__au_finite(acc)) return f;
            d[f] = (float)(acc / div);
        }
        break;
    default:
        for (f = 0; f < frames; f++, s += 8 * C) {
            double acc = 0.0;
            for (c = 0; c < C; c++) {
                uint64_t u = gk__au_u64(s + 8 * c);
                double x;
                memcpy(&x, &u, 8);
                acc = c ? acc + x : x;
            }
            if (!gk__au_finite(acc) || !gk__au_finite((double)(float)(acc / div))) return f;
            d[f] = (float)(acc / div);
        }
        break;
    }
    return frames;
}

/* after a chunk of odd size: its pad byte, unless the writer left it out
   (the next id is printable at the unpadded offset and not at the padded one) */
static void gk__au_pad(gk__au_rd *r) {
    size_t n = gk__au_fill(r, 5);
    if (!n) return;
    if (n >= 5 && !gk__au_id_ok(r->p + 1) && gk__au_id_ok(r->p)) return;
    gk__au_take(r, 1);
}

/* the file behind r: header, chunks, data -> a (zeroed by the caller).
   size: the file's size when known, else GK__AU_UNKNOWN. */
static gk_status gk__au_wav(gk__au_rd *r, uint64_t size, const char *label, const gk_audio_desc *d, gk_audio *a, gk__au_rs *rs) {
    unsigned char hdr[12];
    char id[5];
    uint32_t riff_size;
    uint32_t csize = 0;
    int rf64 = 0, have_fmt = 0, have_ds64 = 0, streamed = 0, truncated = 0;
    uint64_t ds64_data = 0, declared = 0, avail, bytes, frames, done = 0, data_at;
    gk__au_fmt fm;
    gk_status st;
    size_t n = gk__au_fill(r, 12);
    if (r->err) return gk__au_ioerr(r, label);
    if (n == 0) return GK__U_ERR(GK_ERR_FORMAT, "%s: the file is empty: not a WAV file", label);
    if (n >= 4 && memcmp(r->p, "RIFX", 4) == 0)
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: a big-endian RIFX file; only little-endian WAV (RIFF, RF64) is read", label);
    if (n < 4 || (memcmp(r->p, "RIFF", 4) != 0 && memcmp(r->p, "RF64", 4) != 0 && memcmp(r->p, "BW64", 4) != 0)) {
        unsigned char b[4] = {0, 0, 0, 0};
        memcpy(b, r->p, n < 4 ? n : 4);
        return GK__U_ERR(GK_ERR_FORMAT, "%s: not a WAV file: it starts with the bytes %02x %02x %02x %02x, not 'RIFF' or 'RF64'", label, b[0], b[1], b[2], b[3]);
    }
    if (n < 12) return GK__U_ERR(GK_ERR_FORMAT, "%s: %llu bytes are too short for a WAV file (its RIFF header is 12 bytes)", label, (unsigned long long)n);
    memcpy(hdr, r->p, 12);
    if (memcmp(hdr + 8, "WAVE", 4) != 0) {
        gk__au_id(id, hdr + 8);
        return GK__U_ERR(GK_ERR_FORMAT, "%s: a RIFF file of form '%s', not 'WAVE': not a WAV file", label, id);
    }
    rf64 = memcmp(hdr, "RIFF", 4) != 0;
    riff_size = gk__au_u32(hdr + 4);
    gk__au_take(r, 12);
    for (;;) { /* the chunks up to data */
        uint64_t at = r->pos;
        unsigned char ch[8];
        n = gk__au_fill(r, 8);
        if (r->err) return gk__au_ioerr(r, label);
        if (n < 8) {
            if (!have_fmt) return GK__U_ERR(GK_ERR_FORMAT, "%s: no fmt chunk (the file ends at byte %llu)", label, (unsigned long long)(at + n));
            return GK__U_ERR(GK_ERR_FORMAT, "%s: no data chunk (the file ends at byte %llu)", label, (unsigned long long)(at + n));
        }
        memcpy(ch, r->p, 8);
        gk__au_id(id, ch);
        csize = gk__au_u32(ch + 4);
        gk__au_take(r, 8);
        if (rf64 && !have_ds64) {
            if (memcmp(ch, "ds64", 4) != 0) return GK__U_ERR(GK_ERR_FORMAT, "%s: an RF64 file whose first chunk is '%s', not 'ds64'", label, id);
            if (csize < 24 || gk__au_fill(r, 24) < 24)
                return GK__U_ERR(GK_ERR_FORMAT, "%s: ds64 chunk of %lu bytes: its three 64-bit sizes need 24", label, (unsigned long)csize);
            ds64_data = gk__au_u64(r->p + 8);
            have_ds64 = 1;
        } else if (memcmp(ch, "fmt ", 4) == 0 && !have_fmt) {
            unsigned char c[40];
            size_t k = csize < 40 ? csize : 40;
            if (csize < 16) return GK__U_ERR(GK_ERR_FORMAT, "%s: fmt chunk of %lu bytes: it needs at least 16", label, (unsigned long)csize);
            if (gk__au_fill(r, k) < k)
                return GK__U_ERR(GK_ERR_FORMAT, "%s: fmt chunk of %lu bytes at byte %llu runs past the end of the file", label, (unsigned long)csize,
                                 (unsigned long long)at);
            memcpy(c, r->p, k);
            if ((st = gk__au_parse_fmt(label, c, k, &fm)) != GK_OK) return st;
            have_fmt = 1;
        } else if (memcmp(ch, "data", 4) == 0) {
            if (!have_fmt) return GK__U_ERR(GK_ERR_FORMAT, "%s: the data chunk at byte %llu comes before the fmt chunk", label, (unsigned long long)at);
            break;
        }
        if (gk__au_skip(r, csize) < csize) { /* a chunk past the end: nothing after it */
            if (r->err) return gk__au_ioerr(r, label);
            return GK__U_ERR(GK_ERR_FORMAT, "%s: chunk '%s' at byte %llu says %lu bytes, but the file ends at byte %llu, before any %s chunk", label, id,
                             (unsigned long long)at, (unsigned long)csize, (unsigned long long)r->pos, have_fmt ? "data" : "fmt");
        }
        if (csize & 1) gk__au_pad(r);
    }
    /* the data chunk: its size */
    data_at = r->pos;
    declared = csize;
    if (rf64 && csize == 0xFFFFFFFFu) declared = ds64_data;
    else if (csize == 0xFFFFFFFFu) streamed = 1;
    else if (csize == 0) {
        int more = size != GK__AU_UNKNOWN ? size > data_at : gk__au_fill(r, 1) > 0;
        if (more && (riff_size == 0 || riff_size == 0xFFFFFFFFu || (uint64_t)riff_size + 8 <= data_at)) streamed = 1;
    }
    avail = size != GK__AU_UNKNOWN ? (size > data_at ? size - data_at : 0) : GK__AU_UNKNOWN;
    if (streamed) bytes = avail;
    else if (avail != GK__AU_UNKNOWN && declared > avail) {
        truncated = 1;
        bytes = avail;
    } else bytes = declared;
    if (truncated && (d->flags & GK_AUDIO_STRICT))
        return GK__U_ERR(GK_ERR_FORMAT, "%s: data chunk says %llu bytes, the file holds %llu", label, (unsigned long long)declared, (unsigned long long)avail);
    frames = bytes == GK__AU_UNKNOWN ? GK__AU_UNKNOWN : bytes / (uint64_t)fm.block;
    a->rate_in = fm.rate;
    a->channels_in = fm.channels;
    a->bits_in = fm.bits;
    a->format_in = fm.tag;
    a->rate = gk__au_out_rate(d, fm.rate);
    if (avail != GK__AU_UNKNOWN && (st = gk__au_too_long(label, d, frames, fm.rate)) != GK_OK) return st; /* else checked as it comes */
    /* the output is allocated at its final size when the file's size says how
       many frames there are (not from a pipe's declared size, which may lie) */
    if ((st = gk__au_rs_init(rs, label, fm.rate, a->rate, avail != GK__AU_UNKNOWN ? frames : GK__AU_UNKNOWN)) != GK_OK) return st;
    /* the frames, a piece at a time */
    for (;;) {
        uint64_t left = frames == GK__AU_UNKNOWN ? GK__AU_UNKNOWN : frames - done;
        size_t k, bad, need = (size_t)GK__AU_PIECE * (size_t)fm.block;
        float *dst;
        if (!left) break;
        if (need > r->cap && r->f) need = r->cap;
        if ((uint64_t)need / (uint64_t)fm.block > left) need = (size_t)left * (size_t)fm.block;
        k = r->avail >= need ? r->avail : gk__au_fill(r, need);
        if (r->err) return gk__au_ioerr(r, label);
        k /= (size_t)fm.block;
        if ((uint64_t)k > left) k = (size_t)left;
        if (k > GK__AU_PIECE) k = GK__AU_PIECE;
        if (!k) break;
        if (avail == GK__AU_UNKNOWN && (st = gk__au_too_long(label, d, done + k, fm.rate)) != GK_OK) return st;
        if (!(dst = gk__au_rs_reserve(rs, k))) return GK_ERR_OUT_OF_MEMORY;
        if ((bad = gk__au_decode(&fm, r->p, k, dst)) < k)
            return GK__U_ERR(GK_ERR_FORMAT, "%s: frame %llu (byte %llu) holds a NaN or an infinity%s", label, (unsigned long long)(done + bad),
                             (unsigned long long)(r->pos + bad * (size_t)fm.block), fm.kind == GK__AU_F64 ? " (or a value beyond float's range)" : "");
        gk__au_take(r, k * (size_t)fm.block);
        if ((st = gk__au_rs_commit(rs, k)) != GK_OK) return st;
        done += k;
    }
    if (!truncated && !streamed && done * (uint64_t)fm.block + (uint64_t)fm.block <= declared) { /* the file ended early (its size was not known) */
        truncated = 1;
        avail = done * (uint64_t)fm.block + r->avail;
        if (d->flags & GK_AUDIO_STRICT)
            return GK__U_ERR(GK_ERR_FORMAT, "%s: data chunk says %llu bytes, the file holds %llu", label, (unsigned long long)declared, (unsigned long long)avail);
    }
    if ((st = gk__au_rs_finish(rs, a)) != GK_OK) return st;
    a->frames_in = done;
    if (streamed) a->flags |= GK_AUDIO_STREAMED;
    if (truncated) {
        a->flags |= GK_AUDIO_TRUNCATED;
        gk__au_warn(a, "%s: data chunk says %llu bytes, the file holds %llu", label, (unsigned long long)declared, (unsigned long long)avail);
    }
    return GK_OK;
}

GKLLMDEF void gk_audio_free(gk_audio *a) {
    if (!a) return;
    gk__u_free(a->samples);
    memset(a, 0, sizeof *a);
}

GKLLMDEF gk_status gk_audio_from_wav_memory(const void *data, size_t size, const gk_audio_desc *desc, gk_audio *out) {
    const char *W = "gk_audio_from_wav_memory";
    gk_audio_desc d;
    gk__au_rd r;
    gk__au_rs rs;
    gk_status st;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    memset(out, 0, sizeof *out);
    if (!data && size) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: data is NULL but size is %llu", W, (unsigned long long)size);
    if ((st = gk__au_desc(W, desc, &d)) != GK_OK) return st;
    memset(&r, 0, sizeof r);
    r.p = (const unsigned char *)data;
    r.avail = size;
    r.eof = 1;
    memset(&rs, 0, sizeof rs);
    st = gk__au_wav(&r, size, d.name ? d.name : "memory", &d, out, &rs);
    gk__au_rs_free(&rs);
    if (st != GK_OK) gk_audio_free(out);
    return st;
}

GKLLMDEF gk_status gk_audio_from_wav(const char *path, const gk_audio_desc *desc, gk_audio *out) {
    const char *W = "gk_audio_from_wav";
    gk_audio_desc d;
    gk__au_rd r;
    gk__au_rs rs;
    gk_status st;
    uint64_t size = GK__AU_UNKNOWN;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    memset(out, 0, sizeof *out);
    if (!path) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: path is NULL", W);
    if ((st = gk__au_desc(W, desc, &d)) != GK_OK) return st;
#if defined(_WIN32)
    {
        WIN32_FILE_ATTRIBUTE_DATA fa;
        if (GetFileAttributesExA(path, GetFileExInfoStandard, &fa)) {
            if (fa.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) return GK__U_ERR(GK_ERR_IO, "%s: '%s' is a folder, not a WAV file", W, path);
            size = ((uint64_t)fa.nFileSizeHigh << 32) | (uint64_t)fa.nFileSizeLow;
        }
    }
#else
    {
        struct stat sb;
        if (stat(path, &sb) == 0) {
            if (S_ISDIR(sb.st_mode)) return GK__U_ERR(GK_ERR_IO, "%s: '%s' is a folder, not a WAV file", W, path);
            if (S_ISREG(sb.st_mode) && sb.st_size >= 0) size = (uint64_t)sb.st_size; /* else a pipe or a device: read to its end */
        }
    }
#endif
    memset(&r, 0, sizeof r);
    r.f = fopen(path, "rb");
    if (!r.f) return GK__U_ERR(GK_ERR_IO, "%s: cannot open '%s': %s", W, path, strerror(errno));
    r.cap = GK__AU_BUF;
    r.buf = (unsigned char *)gk__u_malloc(r.cap);
    if (!r.buf) {
        fclose(r.f);
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory for a %u-byte read buffer", path, (unsigned)GK__AU_BUF);
    }
    r.p = r.buf;
    memset(&rs, 0, sizeof rs);
    st = gk__au_wav(&r, size, path, &d, out, &rs);
    gk__au_rs_free(&rs);
    gk__u_free(r.buf);
    fclose(r.f);
    if (st != GK_OK) gk_audio_free(out);
    return st;
}

GKLLMDEF gk_status gk_audio_from_float(const float *samples, size_t frames, int channels, int rate, const gk_audio_desc *desc, gk_audio *out) {
    const char *W = "gk_audio_from_float";
    gk_audio_desc d;
    gk__au_rs rs;
    gk_status st;
    size_t done = 0;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    memset(out, 0, sizeof *out);
    if (!samples && frames) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: samples is NULL but frames is %llu", W, (unsigned long long)frames);
    if (channels < 1) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: channels = %d must be at least 1", W, channels);
    if (rate < 1) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: rate = %d must be at least 1 Hz", W, rate);
    if (frames > ((size_t)-1) / (size_t)channels)
        return GK__U_ERR(GK_ERR_OVERFLOW, "%s: frames = %llu times channels = %d overflows", W, (unsigned long long)frames, channels);
    if ((st = gk__au_desc(W, desc, &d)) != GK_OK) return st;
    if ((st = gk__au_too_long(W, &d, frames, rate)) != GK_OK) return st;
    out->rate_in = rate;
    out->channels_in = channels;
    out->bits_in = 32;
    out->rate = gk__au_out_rate(&d, rate);
    if ((st = gk__au_rs_init(&rs, W, rate, out->rate, frames)) != GK_OK) {
        gk__au_rs_free(&rs);
        return st;
    }
    while (done < frames && st == GK_OK) {
        size_t k = frames - done < GK__AU_PIECE ? frames - done : GK__AU_PIECE, f, c, C = (size_t)channels;
        const float *s = samples + done * C;
        float *dst = gk__au_rs_reserve(&rs, k);
        if (!dst) {
            st = GK_ERR_OUT_OF_MEMORY;
            break;
        }
        for (f = 0; f < k && st == GK_OK; f++, s += C) {
            double acc = (double)s[0];
            for (c = 1; c < C; c++) acc += (double)s[c];
            if (!gk__au_finite(acc)) {
                for (c = 0; c + 1 < C && gk__au_finite((double)s[c]); c++) {}
                st = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: samples[%llu] (frame %llu, channel %llu) is %s", W, (unsigned long long)((done + f) * C + c),
                               (unsigned long long)(done + f), (unsigned long long)c, s[c] != s[c] ? "NaN" : "infinite");
            }
            dst[f] = (float)(acc / (double)channels);
        }
        if (st == GK_OK) st = gk__au_rs_commit(&rs, k);
        done += k;
    }
    if (st == GK_OK) st = gk__au_rs_finish(&rs, out);
    gk__au_rs_free(&rs);
    if (st != GK_OK) {
        gk_audio_free(out);
        return st;
    }
    out->frames_in = frames;
    return GK_OK;
}

/* ---- writing ---- */
/* the header of a WAV of n samples (44 bytes for PCM16, 58 for float: fmt of 18 bytes and the fact chunk) */
static size_t gk__au_wav_header(unsigned char *h, uint32_t n, int rate, gk_wav_format fmt) {
    uint32_t bps = fmt == GK_WAV_F32 ? 4u : 2u, data = n * bps, fmtlen = fmt == GK_WAV_F32 ? 18u : 16u;
    size_t len = 12 + 8 + fmtlen + (fmt == GK_WAV_F32 ? 12u : 0u) + 8;
    unsigned char *p = h;
    memcpy(p, "RIFF", 4);
    gk__au_put32(p + 4, (uint32_t)(len - 8) + data);
    memcpy(p + 8, "WAVE", 4);
    memcpy(p + 12, "fmt ", 4);
    gk__au_put32(p + 16, fmtlen);
    gk__au_put16(p + 20, (uint32_t)fmt);
    gk__au_put16(p + 22, 1);
    gk__au_put32(p + 24, (uint32_t)rate);
    gk__au_put32(p + 28, (uint32_t)rate * bps);
    gk__au_put16(p + 32, bps);
    gk__au_put16(p + 34, bps * 8);
    p += 36;
    if (fmt == GK_WAV_F32) {
        gk__au_put16(p, 0); /* cbSize */
        memcpy(p + 2, "fact", 4);
        gk__au_put32(p + 6, 4);
        gk__au_put32(p + 10, n);
        p += 14;
    }
    memcpy(p, "data", 4);
    gk__au_put32(p + 4, data);
    return len;
}
static void gk__au_encode(unsigned char *d, const float *s, size_t n, gk_wav_format fmt) {
    size_t i;
    for (i = 0; i < n; i++) {
        if (fmt == GK_WAV_F32) {
            uint32_t u;
            memcpy(&u, &s[i], 4);
            gk__au_put32(d + 4 * i, u);
        } else {
            double v = floor((double)s[i] * 32768.0 + 0.5);
            int32_t k = v < -32768.0 ? -32768 : v > 32767.0 ? 32767 : (int32_t)v;
            gk__au_put16(d + 2 * i, (uint32_t)k & 0xFFFFu);
        }
    }
}
static gk_status gk__au_write_check(const char *W, const float *samples, size_t n, int rate, gk_wav_format fmt) {
    size_t i, bps = fmt == GK_WAV_F32 ? 4 : 2;
    if (!samples && n) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: samples is NULL but n is %llu", W, (unsigned long long)n);
    if (rate < 1) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: rate = %d must be at least 1 Hz", W, rate);
    if (fmt != GK_WAV_PCM16 && fmt != GK_WAV_F32)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: format = %d is not a gk_wav_format (GK_WAV_PCM16 1, GK_WAV_F32 3)", W, (int)fmt);
    if ((uint64_t)rate * bps > 0xFFFFFFFFu)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: rate = %d makes a byte rate above a WAV file's 32 bits", W, rate);
    if ((uint64_t)n > (0xFFFFFFFFu - 58u) / bps)
        return GK__U_ERR(GK_ERR_LIMIT, "%s: %llu samples are more than a WAV file holds (4 GiB of data: %llu samples of this format)", W,
                         (unsigned long long)n, (unsigned long long)((0xFFFFFFFFu - 58u) / bps));
    for (i = 0; i < n; i++)
        if (!gk__au_finite((double)samples[i]))
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: samples[%llu] is %s", W, (unsigned long long)i, samples[i] != samples[i] ? "NaN" : "infinite");
    return GK_OK;
}

GKLLMDEF gk_status gk_audio_write_wav_memory(gk_buf *dst, const float *samples, size_t n, int rate, gk_wav_format format) {
    const char *W = "gk_audio_write_wav_memory";
    unsigned char h[64], tmp[4096];
    size_t len0, i, bps = format == GK_WAV_F32 ? 4 : 2, per = sizeof tmp / 4;
    int had;
    gk_status st;
    if (!dst) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: dst is NULL", W);
    if ((st = gk__au_write_check(W, samples, n, rate, format)) != GK_OK) return st;
    len0 = dst->len;
    had = dst->data != NULL;
    st = gk_buf_append(dst, h, gk__au_wav_header(h, (uint32_t)n, rate, format));
    for (i = 0; i < n && st == GK_OK; i += per) {
        size_t k = n - i < per ? n - i : per;
        gk__au_encode(tmp, samples + i, k, format);
        st = gk_buf_append(dst, tmp, k * bps);
    }
    if (st != GK_OK) { /* as it was */
        if (!had) gk_buf_free(dst);
        dst->len = len0;
        if (dst->data) dst->data[len0] = 0;
        return GK__U_ERR(st, "%s: %s", W, st == GK_ERR_OUT_OF_MEMORY ? "out of memory" : gk_last_error(NULL));
    }
    return GK_OK;
}

GKLLMDEF gk_status gk_audio_write_wav(const char *path, const float *samples, size_t n, int rate, gk_wav_format format) {
    const char *W = "gk_audio_write_wav";
    unsigned char h[64], tmp[4096];
    size_t i, bps = format == GK_WAV_F32 ? 4 : 2, per = sizeof tmp / 4, hl;
    int ok, e = 0;
    FILE *f;
    gk_status st;
    if (!path) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: path is NULL", W);
    if ((st = gk__au_write_check(W, samples, n, rate, format)) != GK_OK) return st;
    f = fopen(path, "wb");
    if (!f) return GK__U_ERR(GK_ERR_IO, "%s: cannot create '%s': %s", W, path, strerror(errno));
    hl = gk__au_wav_header(h, (uint32_t)n, rate, format);
    ok = fwrite(h, 1, hl, f) == hl;
    for (i = 0; i < n && ok; i += per) {
        size_t k = n - i < per ? n - i : per;
        gk__au_encode(tmp, samples + i, k, format);
        ok = fwrite(tmp, 1, k * bps, f) == k * bps;
    }
    if (!ok) e = errno;
    if (fclose(f) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (!ok) {
        remove(path);
        return GK__U_ERR(GK_ERR_IO, "%s: cannot write '%s': %s", W, path, e ? strerror(e) : "write failed");
    }
    return GK_OK;
}
/* >>impl_whisper_rules: Whisper's decoding rules on the host */
#if !defined(_WIN32)
#ifdef __cplusplus
}
#endif
#include <dlfcn.h> /* zlib is opened at run time (gk_whisper_compression_ratio) */
#ifdef __cplusplus
extern "C" {
#endif
#endif

/* ---- languages: whisper/tokenizer.py's LANGUAGES, in its order ---- */
static const char *const gk__wh_langs[GK_WHISPER_MAX_LANGS][2] = {
    {"en", "english"}, {"zh", "chinese"}, {"de", "german"}, {"es", "spanish"}, {"ru", "russian"}, {"ko", "korean"}, {"fr", "french"},
    {"ja", "japanese"}, {"pt", "portuguese"}, {"tr", "turkish"}, {"pl", "polish"}, {"ca", "catalan"}, {"nl", "dutch"}, {"ar", "arabic"},
    {"sv", "swedish"}, {"it", "italian"}, {"id", "indonesian"}, {"hi", "hindi"}, {"fi", "finnish"}, {"vi", "vietnamese"}, {"he", "hebrew"},
    {"uk", "ukrainian"}, {"el", "greek"}, {"ms", "malay"}, {"cs", "czech"}, {"ro", "romanian"}, {"da", "danish"}, {"hu", "hungarian"},
    {"ta", "tamil"}, {"no", "norwegian"}, {"th", "thai"}, {"ur", "urdu"}, {"hr", "croatian"}, {"bg", "bulgarian"}, {"lt", "lithuanian"},
    {"la", "latin"}, {"mi", "maori"}, {"ml", "malayalam"}, {"cy", "welsh"}, {"sk", "slovak"}, {"te", "telugu"}, {"fa", "persian"},
    {"lv", "latvian"}, {"bn", "bengali"}, {"sr", "serbian"}, {"az", "azerbaijani"}, {"sl", "slovenian"}, {"kn", "kannada"}, {"et", "estonian"},
    {"mk", "macedonian"}, {"br", "breton"}, {"eu", "basque"}, {"is", "icelandic"}, {"hy", "armenian"}, {"ne", "nepali"}, {"mn", "mongolian"},
    {"bs", "bosnian"}, {"kk", "kazakh"}, {"sq", "albanian"}, {"sw", "swahili"}, {"gl", "galician"}, {"mr", "marathi"}, {"pa", "punjabi"},
    {"si", "sinhala"}, {"km", "khmer"}, {"sn", "shona"}, {"yo", "yoruba"}, {"so", "somali"}, {"af", "afrikaans"}, {"oc", "occitan"},
    {"ka", "georgian"}, {"be", "belarusian"}, {"tg", "tajik"}, {"sd", "sindhi"}, {"gu", "gujarati"}, {"am", "amharic"}, {"yi", "yiddish"},
    {"lo", "lao"}, {"uz", "uzbek"}, {"fo", "faroese"}, {"ht", "haitian creole"}, {"ps", "pashto"}, {"tk", "turkmen"}, {"nn", "nynorsk"},
    {"mt", "maltese"}, {"sa", "sanskrit"}, {"lb", "luxembourgish"}, {"my", "myanmar"}, {"bo", "tibetan"}, {"tl", "tagalog"}, {"mg", "malagasy"},
    {"as", "assamese"}, {"tt", "tatar"}, {"haw", "hawaiian"}, {"ln", "lingala"}, {"ha", "hausa"}, {"ba", "bashkir"}, {"jw", "javanese"},
    {"su", "sundanese"}, {"yue", "cantonese"}};
/* TO_LANGUAGE_CODE's aliases */
static const char *const gk__wh_alias[][2] = {{"burmese", "my"},     {"valencian", "ca"}, {"flemish", "nl"},   {"haitian", "ht"},
                                              {"letzeburgesch", "lb"}, {"pushto", "ps"},    {"panjabi", "pa"},   {"moldavian", "ro"},
                                              {"moldovan", "ro"},     {"sinhalese", "si"}, {"castilian", "es"}, {"mandarin", "zh"}};

static int gk__wh_ieq(const char *a, const char *b) {
    for (; *a && *b; a++, b++) {
        int x = (unsigned char)*a, y = (unsigned char)*b;
        if (x >= 'A' && x <= 'Z') x += 32;
        if (y >= 'A' && y <= 'Z') y += 32;
        if (x != y) return 0;
    }
    return *a == *b;
}
GKLLMDEF const char *gk_whisper_lang_code(int i) { return i >= 0 && i < GK_WHISPER_MAX_LANGS ? gk__wh_langs[i][0] : NULL; }
GKLLMDEF const char *gk_whisper_lang_name(int i) { return i >= 0 && i < GK_WHISPER_MAX_LANGS ? gk__wh_langs[i][1] : NULL; }
GKLLMDEF int gk_whisper_lang_index(const char *language) {
    int i, k;
    if (!language) return -1;
    for (k = 0; k < 2; k++)
        for (i = 0; i < GK_WHISPER_MAX_LANGS; i++)
            if (gk__wh_ieq(language, gk__wh_langs[i][k])) return i;
    for (i = 0; i < (int)(sizeof gk__wh_alias / sizeof gk__wh_alias[0]); i++)
        if (gk__wh_ieq(language, gk__wh_alias[i][0])) return gk_whisper_lang_index(gk__wh_alias[i][1]);
    return -1;
}

/* ---- special tokens ---- */
static void gk__wh_tokens_clear(gk_whisper_tokens *t) {
    int i;
    memset(t, 0, sizeof *t);
    t->eot = t->sot = t->translate = t->transcribe = t->sot_lm = t->sot_prev = t->no_speech = t->no_timestamps = t->timestamp_begin = t->space = -1;
    for (i = 0; i < GK_WHISPER_MAX_LANGS; i++) t->lang[i] = -1;
}

GKLLMDEF gk_status gk_whisper_tokens_from_vocab(int64_t vocab, gk_whisper_tokens *out) {
    int ml, nl, i;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_whisper_tokens_from_vocab: out is NULL");
    gk__wh_tokens_clear(out);
    if (vocab != 51864 && vocab != 51865 && vocab != 51866)
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "gk_whisper_tokens_from_vocab: vocab = %lld is not one of OpenAI's Whisper vocabularies (51864 .en, 51865, 51866 "
                         "large-v3); read the layout from the tokenizer (gk_whisper_tokens_from_tokenizer)", (long long)vocab);
    ml = vocab >= 51865;
    nl = (int)(vocab - 51765 - ml);
    out->vocab = vocab;
    out->multilingual = ml;
    out->n_langs = nl;
    out->eot = ml ? 50257 : 50256;
    out->sot = out->eot + 1;
    for (i = 0; i < nl; i++) out->lang[i] = out->sot + 1 + i;
    out->translate = out->sot + 1 + nl;
    out->transcribe = out->translate + 1;
    out->sot_lm = out->translate + 2;
    out->sot_prev = out->translate + 3;
    out->no_speech = out->translate + 4;
    out->no_timestamps = out->translate + 5;
    out->timestamp_begin = out->translate + 6;
    out->space = 220;
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_tokens_from_lookup(const gk_whisper_tokens_desc *d, gk_whisper_lookup_fn lookup, void *user, gk_whisper_tokens *out) {
    static const char *const req[7] = {"<|endoftext|>", "<|startoftranscript|>", "<|translate|>", "<|transcribe|>", "<|startoflm|>", "<|startofprev|>", "<|notimestamps|>"};
    const char *W = "gk_whisper_tokens_from_lookup";
    int32_t *slot[7];
    int32_t id;
    int i;
    char name[16];
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    gk__wh_tokens_clear(out);
    if (!lookup) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: lookup is NULL", W);
    if (!d || d->vocab <= 0) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_tokens_desc.vocab = %lld must be > 0 (the model's vocab_size)", W, d ? (long long)d->vocab : 0LL);
    if (d->multilingual < -1 || d->multilingual > 1)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_tokens_desc.multilingual = %d must be -1, 0 or 1", W, d->multilingual);
    out->vocab = d->vocab;
    out->multilingual = d->multilingual ? d->multilingual > 0 : d->vocab >= 51865;
    slot[0] = &out->eot; slot[1] = &out->sot; slot[2] = &out->translate; slot[3] = &out->transcribe;
    slot[4] = &out->sot_lm; slot[5] = &out->sot_prev; slot[6] = &out->no_timestamps;
#define GK__WH_ID(nm, dst)                                                                                                                      \
    do {                                                                                                                                        \
        id = lookup((nm), user);                                                                                                                \
        if (id >= d->vocab || id < -1) {                                                                                                        \
            int32_t bad_ = id;                                                                                                                  \
            gk__wh_tokens_clear(out);                                                                                                           \
            return GK__U_ERR(GK_ERR_FORMAT, "%s: token %s has id %d, outside the vocabulary of %lld", W, (nm), (int)bad_, (long long)d->vocab); \
        }                                                                                                                                       \
        (dst) = id;                                                                                                                             \
    } while (0)
    for (i = 0; i < 7; i++) {
        GK__WH_ID(req[i], *slot[i]);
        if (*slot[i] < 0) {
            gk__wh_tokens_clear(out);
            return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: the vocabulary has no %s token: not a Whisper tokenizer", W, req[i]);
        }
    }
    GK__WH_ID("<|nospeech|>", out->no_speech);
    if (out->no_speech < 0) GK__WH_ID("<|nocaptions|>", out->no_speech);
    GK__WH_ID("<|0.00|>", out->timestamp_begin);
    if (out->timestamp_begin < 0) out->timestamp_begin = out->no_timestamps + 1;
    GK__WH_ID("\xC4\xA0", out->space);
    if (out->space < 0) out->space = 220 < d->vocab ? 220 : -1;
    for (i = 0; i < GK_WHISPER_MAX_LANGS; i++) {
        snprintf(name, sizeof name, "<|%s|>", gk__wh_langs[i][0]);
        GK__WH_ID(name, out->lang[i]);
        if (out->lang[i] >= 0) out->n_langs++;
    }
#undef GK__WH_ID
    if (out->timestamp_begin >= d->vocab) {
        int32_t tb = out->timestamp_begin;
        gk__wh_tokens_clear(out);
        return GK__U_ERR(GK_ERR_FORMAT, "%s: the timestamps start at id %d, beyond the vocabulary of %lld", W, (int)tb, (long long)d->vocab);
    }
    if (out->multilingual && out->n_langs == 0) {
        gk__wh_tokens_clear(out);
        return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: a multilingual vocabulary without language tokens (<|en|> ...)", W);
    }
    return GK_OK;
}

static int32_t gk__wh_tok_lookup(const char *name, void *user) { return gk_tokenizer_token_to_id((const gk_tokenizer *)user, name, strlen(name)); }
GKLLMDEF gk_status gk_whisper_tokens_from_tokenizer(const gk_tokenizer *tok, const gk_whisper_tokens_desc *d, gk_whisper_tokens *out) {
    gk_whisper_tokens_desc dd;
    if (out) gk__wh_tokens_clear(out);
    if (!tok) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_whisper_tokens_from_tokenizer: tok is NULL");
    if (d) dd = *d;
    else memset(&dd, 0, sizeof dd);
    if (dd.vocab == 0) dd.vocab = (int64_t)gk_tokenizer_vocab_size(tok);
    return gk_whisper_tokens_from_lookup(&dd, gk__wh_tok_lookup, (void *)(uintptr_t)tok, out);
}

static gk_status gk__wh_check_t(const char *W, const gk_whisper_tokens *t) {
    if (!t) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: t is NULL", W);
    if (t->vocab <= 0 || t->eot < 0 || t->timestamp_begin <= t->eot || t->timestamp_begin > t->vocab)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: t is not a filled gk_whisper_tokens (vocab %lld, eot %d, timestamp_begin %d)", W, (long long)t->vocab,
                         (int)t->eot, (int)t->timestamp_begin);
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_lang_id(const gk_whisper_tokens *t, const char *language, int32_t *id) {
    const char *W = "gk_whisper_lang_id";
    gk_status s;
    int i;
    if (id) *id = -1;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!id) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: id is NULL", W);
    if (!language) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: language is NULL", W);
    i = gk_whisper_lang_index(language);
    if (i < 0) return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: unknown language '%s' (a code such as \"de\" or a name such as \"german\")", W, language);
    if (t->lang[i] < 0) return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: language '%s' (%s) has no token in this vocabulary of %d languages", W, language, gk__wh_langs[i][0], t->n_langs);
    *id = t->lang[i];
    return GK_OK;
}
GKLLMDEF const char *gk_whisper_lang_of(const gk_whisper_tokens *t, int32_t id) {
    int i;
    if (!t || id < 0) return NULL;
    for (i = 0; i < GK_WHISPER_MAX_LANGS; i++)
        if (t->lang[i] == id) return gk__wh_langs[i][0];
    return NULL;
}

static gk_status gk__wh_check_ids(const char *W, const char *what, const int32_t *ids, size_t n, int64_t vocab) {
    size_t i;
    if (!ids && n) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL but its count is %llu", W, what, (unsigned long long)n);
    for (i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= vocab)
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s[%llu] = %d is not a token id (vocabulary of %lld)", W, what, (unsigned long long)i, (int)ids[i], (long long)vocab);
    return GK_OK;
}

/* Python's l[-k:]: the last k items; k == 0 keeps all, k < 0 drops the first -k */
static size_t gk__wh_py_tail_start(size_t n, int64_t k) {
    if (k == 0) return 0;
    if (k > 0) return (size_t)k >= n ? 0 : n - (size_t)k;
    return (size_t)(-k) >= n ? n : (size_t)(-k);
}

GKLLMDEF gk_status gk_whisper_prompt(const gk_whisper_tokens *t, const gk_whisper_prompt_desc *d, gk_ids *out, size_t *sot_index, size_t *sample_begin) {
    const char *W = "gk_whisper_prompt";
    gk_whisper_prompt_desc z;
    gk_status s = GK_OK;
    int64_t ctx, slen;
    size_t i, p0 = 0, f0 = 0;
    int32_t lang = -1;
    if (sot_index) *sot_index = 0;
    if (sample_begin) *sample_begin = 0;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (!d) { memset(&z, 0, sizeof z); d = &z; }
    ctx = d->n_text_ctx ? d->n_text_ctx : 448;
    slen = d->sample_len ? d->sample_len : ctx / 2;
    if (ctx < 4) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_prompt_desc.n_text_ctx = %lld must be >= 4 (0: 448)", W, (long long)d->n_text_ctx);
    if (slen < 1) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_prompt_desc.sample_len = %lld must be > 0 (0: n_text_ctx / 2)", W, (long long)d->sample_len);
    if (d->translate != 0 && d->translate != 1) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_prompt_desc.translate = %d must be 0 or 1", W, d->translate);
    if ((s = gk__wh_check_ids(W, "gk_whisper_prompt_desc.prompt", d->prompt, d->n_prompt, t->vocab)) != GK_OK) return s;
    if ((s = gk__wh_check_ids(W, "gk_whisper_prompt_desc.prefix", d->prefix, d->n_prefix, t->vocab)) != GK_OK) return s;
    if (t->multilingual) {
        if ((s = gk_whisper_lang_id(t, d->language ? d->language : "en", &lang)) != GK_OK) {
            char msg[512];
            gk__u_errcopy(msg, sizeof msg);
            return GK__U_ERR(s, "%s: gk_whisper_prompt_desc.language: %s", W, msg + strlen("gk_whisper_lang_id: "));
        }
    } else {
        if (d->language && gk_whisper_lang_index(d->language) != 0)
            return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: gk_whisper_prompt_desc.language = '%s' but the vocabulary is English-only (.en)", W, d->language);
        if (d->translate) return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: gk_whisper_prompt_desc.translate needs a multilingual model; this vocabulary is English-only (.en)", W);
    }
    out->len = 0;
    if (d->n_prompt) {
        p0 = gk__wh_py_tail_start(d->n_prompt, ctx / 2 - 1);
        s = gk_ids_push(out, t->sot_prev);
        for (i = p0; i < d->n_prompt && s == GK_OK; i++) s = gk_ids_push(out, d->prompt[i]);
    }
    if (sot_index) *sot_index = out->len;
    if (s == GK_OK) s = gk_ids_push(out, t->sot);
    if (t->multilingual && s == GK_OK) s = gk_ids_push(out, lang);
    if (t->multilingual && s == GK_OK) s = gk_ids_push(out, d->translate ? t->translate : t->transcribe);
    if (d->without_timestamps && s == GK_OK) s = gk_ids_push(out, t->no_timestamps);
    if (d->n_prefix) f0 = gk__wh_py_tail_start(d->n_prefix, ctx / 2 - slen);
    for (i = f0; i < d->n_prefix && s == GK_OK; i++) s = gk_ids_push(out, d->prefix[i]);
    if (s != GK_OK) { out->len = 0; return s; }
    if (sample_begin) *sample_begin = out->len;
    return GK_OK;
}

/* ---- numbers on a row ---- */
static int gk__wh_fin(float v) { return v - v == 0; } /* not NaN, not +-inf */
/* NaN or +inf anywhere, or no finite value: GK_ERR_FORMAT */
static gk_status gk__wh_row_check(const char *W, const char *what, const float *x, int64_t n) {
    int64_t i, fin = 0;
    for (i = 0; i < n; i++) {
        if (x[i] != x[i] || (x[i] > 0 && !gk__wh_fin(x[i]))) return GK__U_ERR(GK_ERR_FORMAT, "%s: %s[%lld] is %s", W, what, (long long)i, x[i] != x[i] ? "NaN" : "+inf");
        fin += gk__wh_fin(x[i]);
    }
    if (!fin) return GK__U_ERR(GK_ERR_FORMAT, "%s: every value of %s is -inf", W, what);
    return GK_OK;
}
static double gk__wh_max(const float *x, int64_t a, int64_t b) {
    double m = -INFINITY;
    for (; a < b; a++)
        if (x[a] > m) m = x[a];
    return m;
}
static double gk__wh_lse(const float *x, int64_t a, int64_t b) {
    double m = gk__wh_max(x, a, b), s = 0;
    if (m == -INFINITY) return m;
    for (; a < b; a++) s += exp((double)x[a] - m);
    return m + log(s);
}

GKLLMDEF gk_status gk_whisper_log_softmax(const float *logits, int64_t vocab, float *out) {
    const char *W = "gk_whisper_log_softmax";
    gk_status s;
    double l;
    int64_t i;
    if (!logits) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: logits is NULL", W);
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (vocab < 1) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: vocab = %lld must be > 0", W, (long long)vocab);
    if ((s = gk__wh_row_check(W, "logits", logits, vocab)) != GK_OK) return s;
    l = gk__wh_lse(logits, 0, vocab);
    for (i = 0; i < vocab; i++) out[i] = (float)((double)logits[i] - l);
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_detect_language(const gk_whisper_tokens *t, const float *logits, float *probs, int *best) {
    const char *W = "gk_whisper_detect_language";
    gk_status s;
    double m = -INFINITY, sum = 0;
    int i, b = -1;
    if (best) *best = -1;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!logits) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: logits is NULL", W);
    if (!t->n_langs) return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: the vocabulary has no language tokens", W);
    for (i = 0; i < GK_WHISPER_MAX_LANGS; i++) {
        float v;
        if (t->lang[i] < 0) continue;
        v = logits[t->lang[i]];
        if (v != v || (v > 0 && !gk__wh_fin(v))) return GK__U_ERR(GK_ERR_FORMAT, "%s: logits[%d] (<|%s|>) is %s", W, (int)t->lang[i], gk__wh_langs[i][0], v != v ? "NaN" : "+inf");
        if (b < 0 || v > m) { m = v; b = i; }
    }
    if (m == -INFINITY) return GK__U_ERR(GK_ERR_FORMAT, "%s: every language token's logit is -inf", W);
    for (i = 0; i < GK_WHISPER_MAX_LANGS; i++)
        if (t->lang[i] >= 0) sum += exp((double)logits[t->lang[i]] - m);
    if (probs)
        for (i = 0; i < GK_WHISPER_MAX_LANGS; i++) probs[i] = t->lang[i] >= 0 ? (float)(exp((double)logits[t->lang[i]] - m) / sum) : 0.0f;
    if (best) *best = b;
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_no_speech_prob(const gk_whisper_tokens *t, const float *logits, double *prob) {
    const char *W = "gk_whisper_no_speech_prob";
    gk_status s;
    if (prob) *prob = NAN;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!logits) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: logits is NULL", W);
    if (!prob) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: prob is NULL", W);
    if (t->no_speech < 0) return GK_OK;
    if ((s = gk__wh_row_check(W, "logits", logits, t->vocab)) != GK_OK) return s;
    *prob = exp((double)logits[t->no_speech] - gk__wh_lse(logits, 0, t->vocab));
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_text_prob(const gk_whisper_tokens *t, const float *logits, int32_t id, double *prob) {
    const char *W = "gk_whisper_text_prob";
    gk_status s;
    if (prob) *prob = 0;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!logits) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: logits is NULL", W);
    if (!prob) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: prob is NULL", W);
    if (id < 0 || id >= t->eot) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: id = %d is not a text token (0..%d)", W, (int)id, (int)t->eot - 1);
    if ((s = gk__wh_row_check(W, "logits (text tokens)", logits, t->eot)) != GK_OK) return s;
    *prob = exp((double)logits[id] - gk__wh_lse(logits, 0, t->eot));
    return GK_OK;
}

/* ---- logit filters ---- */
static void gk__wh_mask(float *x, int64_t a, int64_t b) {
    for (; a < b; a++) x[a] = -INFINITY;
}
GKLLMDEF gk_status gk_whisper_suppress(float *logits, int64_t vocab, const int32_t *ids, size_t n) {
    const char *W = "gk_whisper_suppress";
    gk_status s;
    size_t i;
    if (!logits) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: logits is NULL", W);
    if ((s = gk__wh_check_ids(W, "ids", ids, n, vocab)) != GK_OK) return s;
    for (i = 0; i < n; i++) logits[ids[i]] = -INFINITY;
    return GK_OK;
}

static int gk__wh_cmp_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}
/* tokenizer.py's non_speech_tokens, by encoding the symbols with tok */
static gk_status gk__wh_non_speech(const char *W, const gk_tokenizer *tok, gk_ids *out) {
    static const char *const sym[] = {"\"", "#", "(", ")", "*", "+", "/", ":", ";", "<", "=", ">", "@", "[", "\\", "]", "^", "_", "`", "{", "|", "}", "~",
                                      "\xE3\x80\x8C", "\xE3\x80\x8D", "\xE3\x80\x8E", "\xE3\x80\x8F", "<<", ">>", "<<<", ">>>", "--", "---", "-(", "-[", "('",
                                      "(\"", "((", "))", "(((", ")))", "[[", "]]", "{{", "}}", "\xE2\x99\xAA\xE2\x99\xAA", "\xE2\x99\xAA\xE2\x99\xAA\xE2\x99\xAA",
                                      /* U+2669..U+266F (miscellaneous symbols): their first token even when split */
                                      "\xE2\x99\xA9", "\xE2\x99\xAA", "\xE2\x99\xAB", "\xE2\x99\xAC", "\xE2\x99\xAD", "\xE2\x99\xAE", "\xE2\x99\xAF"};
    const size_t nsym = sizeof sym / sizeof sym[0], nmisc = 7;
    gk_ids e = {NULL, 0, 0};
    gk_status s = GK_OK;
    char text[16];
    size_t i;
    int k;
    for (i = 0; i < 2 && s == GK_OK; i++) {
        e.len = 0;
        s = gk_tokenizer_encode(tok, i ? " '" : " -", 2, 0, &e);
        if (s == GK_OK && e.len) s = gk_ids_push(out, e.data[0]);
    }
    for (i = 0; i < nsym && s == GK_OK; i++)
        for (k = 0; k < 2 && s == GK_OK; k++) {
            snprintf(text, sizeof text, "%s%s", k ? " " : "", sym[i]);
            e.len = 0;
            s = gk_tokenizer_encode(tok, text, strlen(text), 0, &e);
            if (s == GK_OK && (e.len == 1 || (e.len > 1 && i >= nsym - nmisc))) s = gk_ids_push(out, e.data[0]);
        }
    gk_ids_free(&e);
    if (s != GK_OK && s != GK_ERR_OUT_OF_MEMORY) {
        gk__u_tl sv;
        gk__u_tl_save(&sv);
        return gk__u_tl_move(NULL, &sv, s, "gk_whisper_suppress_list: encoding the non-speech symbols: ");
    }
    (void)W;
    return s;
}

GKLLMDEF gk_status gk_whisper_suppress_list(const gk_whisper_tokens *t, const int32_t *ids, size_t n, const gk_tokenizer *tok, gk_ids *out) {
    const char *W = "gk_whisper_suppress_list";
    gk_status s;
    size_t i, k;
    int minus1 = 0;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (!ids && n) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: ids is NULL but n is %llu", W, (unsigned long long)n);
    for (i = 0; i < n; i++) {
        if (ids[i] == -1) minus1 = 1;
        else if (ids[i] < 0 || ids[i] >= t->vocab)
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: ids[%llu] = %d is neither a token id (vocabulary of %lld) nor -1 (the non-speech symbols)", W,
                             (unsigned long long)i, (int)ids[i], (long long)t->vocab);
    }
    if (minus1 && !tok) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: ids hold -1 (the non-speech symbols) but tok is NULL: the symbols are found by encoding them", W);
    out->len = 0;
    for (i = 0; i < n && s == GK_OK; i++)
        if (ids[i] >= 0) s = gk_ids_push(out, ids[i]);
    if (minus1 && s == GK_OK) s = gk__wh_non_speech(W, tok, out);
    if (s == GK_OK) s = gk_ids_push(out, t->transcribe);
    if (s == GK_OK) s = gk_ids_push(out, t->translate);
    if (s == GK_OK) s = gk_ids_push(out, t->sot);
    if (s == GK_OK) s = gk_ids_push(out, t->sot_prev);
    if (s == GK_OK) s = gk_ids_push(out, t->sot_lm);
    if (s == GK_OK && t->no_speech >= 0) s = gk_ids_push(out, t->no_speech);
    if (s != GK_OK) { out->len = 0; return s; }
    for (i = k = 0; i < out->len; i++) /* drop negatives (absent tokens) and ids the tokenizer gave beyond vocab */
        if (out->data[i] >= 0 && out->data[i] < t->vocab) out->data[k++] = out->data[i];
    out->len = k;
    qsort(out->data, out->len, sizeof(int32_t), gk__wh_cmp_i32);
    for (i = k = 0; i < out->len; i++)
        if (!k || out->data[i] != out->data[k - 1]) out->data[k++] = out->data[i];
    out->len = k;
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_suppress_blank(const gk_whisper_tokens *t, size_t n_sampled, float *logits) {
    const char *W = "gk_whisper_suppress_blank";
    gk_status s;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!logits) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: logits is NULL", W);
    if (n_sampled == 0) {
        if (t->space >= 0 && t->space < t->vocab) logits[t->space] = -INFINITY;
        logits[t->eot] = -INFINITY;
    }
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_timestamp_rules(const gk_whisper_tokens *t, const int32_t *sampled, size_t n, int64_t max_initial_index, float *logits) {
    const char *W = "gk_whisper_timestamp_rules";
    gk_status s;
    int64_t tb, V = 0, lastv = -1;
    int last_ts, pen_ts;
    size_t i;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!logits) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: logits is NULL", W);
    if (!sampled && n) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: sampled is NULL but n_sampled is %llu", W, (unsigned long long)n);
    tb = t->timestamp_begin;
    V = t->vocab;
    if (t->no_timestamps >= 0) logits[t->no_timestamps] = -INFINITY;
    last_ts = n >= 1 && sampled[n - 1] >= tb;
    pen_ts = n < 2 || sampled[n - 2] >= tb;
    if (last_ts) {
        if (pen_ts) gk__wh_mask(logits, tb, V); /* after a pair (or a first timestamp): text */
        else gk__wh_mask(logits, 0, t->eot);    /* after a lone one: its partner or eot */
    }
    for (i = n; i-- > 0;)
        if (sampled[i] >= tb) { lastv = sampled[i]; break; }
    if (lastv >= 0) { /* no going back; after a pair, no empty segment */
        int64_t lim = (last_ts && !pen_ts) ? lastv : lastv + 1;
        gk__wh_mask(logits, tb, lim < V ? lim : V);
    }
    if (n == 0) { /* the first token is a timestamp, at most max_initial_index */
        gk__wh_mask(logits, 0, tb);
        if (max_initial_index >= 0 && tb + max_initial_index + 1 < V) gk__wh_mask(logits, tb + max_initial_index + 1, V);
    }
    if (gk__wh_lse(logits, tb, V) > gk__wh_max(logits, 0, tb)) gk__wh_mask(logits, 0, tb);
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_filter(const gk_whisper_tokens *t, const gk_whisper_filter_desc *d, const int32_t *sampled, size_t n, float *logits) {
    const char *W = "gk_whisper_filter";
    gk_whisper_filter_desc z;
    gk_status s;
    double mit, prec;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!logits) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: logits is NULL", W);
    if (!sampled && n) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: sampled is NULL but n_sampled is %llu", W, (unsigned long long)n);
    if (!d) { memset(&z, 0, sizeof z); d = &z; }
    mit = d->max_initial_timestamp == 0 ? 1.0 : d->max_initial_timestamp;
    prec = d->time_precision == 0 ? 0.02 : d->time_precision;
    if (!(prec > 0 && prec < 1e9)) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_filter_desc.time_precision = %g must be > 0 (0: 0.02)", W, prec);
    if (mit != mit || mit > 1e9) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_filter_desc.max_initial_timestamp = %g is not finite", W, mit);
    if (!d->no_suppress_blank && n == 0) {
        if (t->space >= 0 && t->space < t->vocab) logits[t->space] = -INFINITY;
        logits[t->eot] = -INFINITY;
    }
    if ((s = gk__wh_check_ids(W, "gk_whisper_filter_desc.suppress", d->suppress, d->n_suppress, t->vocab)) != GK_OK) return s;
    gk_whisper_suppress(logits, t->vocab, d->suppress, d->n_suppress);
    if (!d->without_timestamps) return gk_whisper_timestamp_rules(t, sampled, n, mit < 0 ? -1 : (int64_t)nearbyint(mit / prec), logits);
    return GK_OK;
}

/* ---- greedy, sampling and beam search ---- */
typedef struct gk__wh_cand { double score; int32_t tok; int src, rep; } gk__wh_cand;
struct gk_whisper_search {
    int64_t vocab;
    int32_t eot;
    float temp;
    int beam;                      /* 0: greedy or sampling */
    int rows, max_cand, max_tokens, has_lp, n_fin, done;
    double lp;
    uint64_t rng;
    size_t len;                    /* steps taken: every row has len tokens */
    int32_t *hist, *hist2;         /* [rows][max_tokens] */
    double *sum, *sum2;
    unsigned char *ended;
    int32_t *fin;                  /* finished candidates [max_cand][max_tokens + 1], with eot */
    size_t *fin_len;
    double *fin_sum;
    gk__wh_cand *cand;             /* [rows * (beam + 1)] */
    int *rep, *topk_id;
    float *topk_v;
};

GKLLMDEF void gk_whisper_search_free(gk_whisper_search *s) {
    if (!s) return;
    gk__u_free(s->hist); gk__u_free(s->hist2); gk__u_free(s->sum); gk__u_free(s->sum2); gk__u_free(s->ended);
    gk__u_free(s->fin); gk__u_free(s->fin_len); gk__u_free(s->fin_sum); gk__u_free(s->cand); gk__u_free(s->rep);
    gk__u_free(s->topk_id); gk__u_free(s->topk_v);
    gk__u_free(s);
}

GKLLMDEF gk_status gk_whisper_search_create(const gk_whisper_search_desc *d, gk_whisper_search **out) {
    const char *W = "gk_whisper_search_create", *F = "gk_whisper_search_desc";
    gk_whisper_search *s;
    double pat;
    size_t R, T, C;
    if (out) *out = NULL;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (!d) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: d is NULL (vocab and eot are needed)", W);
    if (!(d->temperature >= 0 && d->temperature < 1e30f)) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s.temperature = %g must be >= 0 and finite", W, F, (double)d->temperature);
    if (d->beam_size < 0 || d->beam_size > 256) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s.beam_size = %d must be 0..256 (0: greedy)", W, F, d->beam_size);
    if (d->best_of < 0 || d->best_of > 256) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s.best_of = %d must be 0..256 (0: 1)", W, F, d->best_of);
    if (d->max_tokens < 0 || d->max_tokens > 65536) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s.max_tokens = %d must be 1..65536 (0: 224)", W, F, d->max_tokens);
    if (d->vocab < 2 || d->vocab > INT32_MAX) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s.vocab = %lld must be 2..2^31-1", W, F, (long long)d->vocab);
    if (d->eot < 0 || d->eot >= d->vocab) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s.eot = %d is not a token id (vocab %lld)", W, F, (int)d->eot, (long long)d->vocab);
    if (d->temperature == 0 && d->beam_size > 0 && d->vocab <= d->beam_size)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s.vocab = %lld must exceed beam_size %d", W, F, (long long)d->vocab, d->beam_size);
    pat = d->patience == 0 ? 1.0 : d->patience;
    if (!(pat > 0 && pat < 1e6)) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s.patience = %g must be > 0 (0: 1.0)", W, F, d->patience);
    if (d->has_length_penalty != 0 && d->has_length_penalty != 1) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s.has_length_penalty = %d must be 0 or 1", W, F, d->has_length_penalty);
    if (d->has_length_penalty && !(d->length_penalty >= 0 && d->length_penalty <= 1))
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s.length_penalty = %g must be in [0, 1] (alpha)", W, F, d->length_penalty);
    s = (gk_whisper_search *)gk__u_calloc(1, sizeof *s);
    if (!s) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", W);
    s->vocab = d->vocab;
    s->eot = d->eot;
    s->temp = d->temperature;
    s->beam = d->temperature == 0 ? d->beam_size : 0;
    s->rows = s->beam ? s->beam : d->temperature > 0 && d->best_of ? d->best_of : 1;
    s->max_tokens = d->max_tokens ? d->max_tokens : 224;
    s->has_lp = d->has_length_penalty;
    s->lp = d->length_penalty;
    s->rng = d->seed ^ 0x9E3779B97F4A7C15ull;
    if (s->beam) {
        s->max_cand = (int)nearbyint((double)s->beam * pat);
        if (s->max_cand < 1 || s->max_cand > 65536) {
            gk_whisper_search_free(s);
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: round(beam_size %d * patience %g) = %d finished candidates; it must be 1..65536", W, d->beam_size, pat,
                             (int)nearbyint((double)d->beam_size * pat));
        }
    }
    R = (size_t)s->rows;
    T = (size_t)s->max_tokens;
    C = (size_t)s->max_cand;
    s->hist = (int32_t *)gk__u_calloc(R * T, sizeof(int32_t));
    s->hist2 = (int32_t *)gk__u_calloc(R * T, sizeof(int32_t));
    s->sum = (double *)gk__u_calloc(R, sizeof(double));
    s->sum2 = (double *)gk__u_calloc(R, sizeof(double));
    s->ended = (unsigned char *)gk__u_calloc(R, 1);
    s->fin = (int32_t *)gk__u_calloc(C * (T + 1), sizeof(int32_t));
    s->fin_len = (size_t *)gk__u_calloc(C, sizeof(size_t));
    s->fin_sum = (double *)gk__u_calloc(C, sizeof(double));
    s->cand = (gk__wh_cand *)gk__u_calloc(R * (R + 1), sizeof(gk__wh_cand));
    s->rep = (int *)gk__u_calloc(R, sizeof(int));
    s->topk_id = (int *)gk__u_calloc(R + 1, sizeof(int));
    s->topk_v = (float *)gk__u_calloc(R + 1, sizeof(float));
    if (!s->hist || !s->hist2 || !s->sum || !s->sum2 || !s->ended || !s->fin || !s->fin_len || !s->fin_sum || !s->cand || !s->rep || !s->topk_id || !s->topk_v) {
        gk_whisper_search_free(s);
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory for %d rows of %d tokens", W, (int)R, (int)T);
    }
    *out = s;
    return GK_OK;
}

GKLLMDEF int gk_whisper_search_rows(const gk_whisper_search *s) { return s ? s->rows : 0; }
GKLLMDEF const int32_t *gk_whisper_search_tokens(const gk_whisper_search *s, int row, size_t *n) {
    if (n) *n = 0;
    if (!s || row < 0 || row >= s->rows) return NULL;
    if (n) *n = s->len;
    return s->hist + (size_t)row * (size_t)s->max_tokens;
}

static double gk__wh_uniform(gk_whisper_search *s) { /* xorshift64*, 53 bits */
    uint64_t x = s->rng;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    s->rng = x;
    return (double)((x * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

/* the k best of row x (descending; ties: the lower id first) */
static void gk__wh_topk(const float *x, int64_t n, int k, int *id, float *v) {
    int c = 0, j;
    int64_t i;
    for (i = 0; i < n; i++) {
        float y = x[i];
        if (c == k && !(y > v[k - 1])) continue;
        j = c < k ? c++ : k - 1;
        while (j > 0 && y > v[j - 1]) { v[j] = v[j - 1]; id[j] = id[j - 1]; j--; }
        v[j] = y;
        id[j] = (int)i;
    }
}

/* a step on log-probabilities logprobs[r][i] - off[r] (off NULL: 0, and each row checked) */
static gk_status gk__wh_search_step(const char *W, gk_whisper_search *s, const float *logprobs, const double *off, int32_t *tokens, int32_t *parents, int *done) {
    size_t T, r, R;
    int64_t V;
    gk_status st;
    char what[48];
    if (done) *done = 0;
    if (!s) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: s is NULL", W);
    if (!logprobs) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: logprobs is NULL", W);
    if (!tokens) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: tokens is NULL", W);
    if (!parents) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: parents is NULL", W);
    if (s->done) return GK__U_ERR(GK_ERR_STATE, "%s: the search has ended (after %llu tokens); take gk_whisper_search_result", W, (unsigned long long)s->len);
    T = (size_t)s->max_tokens;
    R = (size_t)s->rows;
    V = s->vocab;
    for (r = 0; r < R && !off; r++) {
        snprintf(what, sizeof what, "logprobs[%d]", (int)r);
        if (s->ended[r]) continue;
        if ((st = gk__wh_row_check(W, what, logprobs + r * (size_t)V, V)) != GK_OK) return st;
    }
    for (r = 0; r < R && off; r++)
        if (!s->ended[r] && !(off[r] - off[r] == 0)) return GK__U_ERR(GK_ERR_FORMAT, "%s: lse[%d] is %g (not finite)", W, (int)r, off[r]);
    if (!s->beam) {
        int all = 1;
        for (r = 0; r < R; r++) {
            const float *lp = logprobs + r * (size_t)V;
            int64_t i, tok = 0;
            if (s->ended[r]) tok = s->eot;
            else if (s->temp == 0) {
                for (i = 1; i < V; i++)
                    if (lp[i] > lp[tok]) tok = i;
            } else {
                double m = gk__wh_max(lp, 0, V), tot = 0, u, c = 0;
                for (i = 0; i < V; i++) tot += exp(((double)lp[i] - m) / s->temp);
                u = gk__wh_uniform(s) * tot;
                tok = -1;
                for (i = 0; i < V; i++) {
                    double w = exp(((double)lp[i] - m) / s->temp);
                    if (w > 0) tok = i; /* the last possible token, should rounding leave c <= u */
                    c += w;
                    if (w > 0 && c > u) break;
                }
            }
            if (!s->ended[r]) {
                s->sum[r] += (double)lp[tok] - (off ? off[r] : 0.0);
                if (tok == s->eot) s->ended[r] = 1;
            }
            all &= s->ended[r];
            s->hist[r * T + s->len] = (int32_t)tok;
            tokens[r] = (int32_t)tok;
            parents[r] = (int32_t)r;
        }
        s->len++;
        s->done = all || s->len >= T;
    } else {
        int B = s->beam, K = s->beam + 1, nc = 0, j, k, c, saved = 0;
        for (j = 0; j < B; j++) { /* rows that are copies of an earlier row propose under its name */
            s->rep[j] = j;
            for (k = 0; k < j; k++)
                if (s->rep[k] == k && !memcmp(s->hist + (size_t)k * T, s->hist + (size_t)j * T, s->len * sizeof(int32_t))) { s->rep[j] = k; break; }
        }
        for (j = 0; j < B; j++) {
            gk__wh_topk(logprobs + (size_t)j * (size_t)V, V, K, s->topk_id, s->topk_v);
            for (k = 0; k < K; k++) {
                double sc = s->sum[j] + ((double)s->topk_v[k] - (off ? off[j] : 0.0));
                for (c = 0; c < nc; c++)
                    if (s->cand[c].rep == s->rep[j] && s->cand[c].tok == s->topk_id[k]) break;
                if (c == nc) { s->cand[nc].rep = s->rep[j]; s->cand[nc].tok = s->topk_id[k]; nc++; }
                s->cand[c].score = sc;
                s->cand[c].src = j;
            }
        }
        for (c = 1; c < nc; c++) { /* stable: equal scores keep their order */
            gk__wh_cand x = s->cand[c];
            for (j = c; j > 0 && s->cand[j - 1].score < x.score; j--) s->cand[j] = s->cand[j - 1];
            s->cand[j] = x;
        }
        for (c = 0; c < nc && saved < B; c++) {
            const gk__wh_cand *x = &s->cand[c];
            const int32_t *h = s->hist + (size_t)x->src * T;
            if (x->tok == s->eot) {
                if (s->n_fin < s->max_cand) {
                    int32_t *f = s->fin + (size_t)s->n_fin * (T + 1);
                    if (s->len) memcpy(f, h, s->len * sizeof(int32_t));
                    f[s->len] = s->eot;
                    s->fin_len[s->n_fin] = s->len + 1;
                    s->fin_sum[s->n_fin++] = x->score;
                }
            } else {
                int32_t *h2 = s->hist2 + (size_t)saved * T;
                if (s->len) memcpy(h2, h, s->len * sizeof(int32_t));
                h2[s->len] = x->tok;
                s->sum2[saved] = x->score;
                tokens[saved] = x->tok;
                parents[saved] = x->src;
                saved++;
            }
        }
        if (saved < B) return GK__U_ERR(GK_ERR_INTERNAL, "%s: only %d of %d beams could continue", W, saved, B);
        { int32_t *th = s->hist; s->hist = s->hist2; s->hist2 = th; }
        { double *ts = s->sum; s->sum = s->sum2; s->sum2 = ts; }
        s->len++;
        s->done = s->n_fin >= s->max_cand || s->len >= T;
    }
    if (done) *done = s->done;
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_search_step(gk_whisper_search *s, const float *logprobs, int32_t *tokens, int32_t *parents, int *done) {
    return gk__wh_search_step("gk_whisper_search_step", s, logprobs, NULL, tokens, parents, done);
}
GKLLMDEF gk_status gk_whisper_search_step_lse(gk_whisper_search *s, const float *logits, const double *lse, int32_t *tokens, int32_t *parents, int *done) {
    if (!lse) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_whisper_search_step_lse: lse is NULL");
    return gk__wh_search_step("gk_whisper_search_step_lse", s, logits, lse, tokens, parents, done);
}

GKLLMDEF gk_status gk_whisper_filtered_lse(const float *raw, const float *filtered, int64_t vocab, double raw_lse, double *out) {
    const char *W = "gk_whisper_filtered_lse";
    int64_t i, n_sup = 0, n_ok = 0;
    double mass = 0, m = -INFINITY, sum = 0;
    if (!raw || !filtered || !out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", W, !raw ? "raw" : !filtered ? "filtered" : "out");
    if (vocab < 1) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: vocab = %lld must be > 0", W, (long long)vocab);
    if (!(raw_lse - raw_lse == 0)) return GK__U_ERR(GK_ERR_FORMAT, "%s: raw_lse is %g (the logits hold NaN or +inf, or are all -inf)", W, raw_lse);
    /* one pass: the removed entries' share of the mass (they are few, and together, as the filters remove them) */
    for (i = 0; i < vocab; i++) {
        float f = filtered[i];
        if (f == -INFINITY) {
            if (raw[i] != -INFINITY) { mass += exp((double)raw[i] - raw_lse); n_sup++; }
        } else if (f - f == 0) n_ok++;
        else return GK__U_ERR(GK_ERR_FORMAT, "%s: filtered[%lld] is %s", W, (long long)i, f != f ? "NaN" : "+inf");
    }
    if (!n_ok) return GK__U_ERR(GK_ERR_FORMAT, "%s: every value of filtered is -inf", W);
    if (mass < 0.5) { *out = raw_lse + log1p(-mass); return GK_OK; }
    /* most of the mass removed: over the entries left */
    for (i = 0; i < vocab; i++)
        if (filtered[i] > m) m = filtered[i];
    for (i = 0; i < vocab; i++)
        if (filtered[i] != -INFINITY) sum += exp((double)filtered[i] - m);
    (void)n_sup;
    *out = m + log(sum);
    return GK_OK;
}

GKLLMDEF double gk_whisper_rank_score(double sum_logprob, size_t length, int has_penalty, double penalty) {
    if (has_penalty) return sum_logprob / pow((5.0 + (double)length) / 6.0, penalty);
    return length ? sum_logprob / (double)length : -INFINITY;
}
GKLLMDEF double gk_whisper_avg_logprob(double sum_logprob, size_t n_tokens) { return sum_logprob / ((double)n_tokens + 1.0); }

GKLLMDEF gk_status gk_whisper_search_result(const gk_whisper_search *s, gk_ids *tokens, double *sum_logprob, double *avg_logprob) {
    const int32_t *best = NULL;
    size_t T, bl = 0, i, n;
    double bs = 0, bscore = 0;
    int r, first = 1;
    if (sum_logprob) *sum_logprob = 0;
    if (avg_logprob) *avg_logprob = 0;
    if (!s) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_whisper_search_result: s is NULL");
    T = (size_t)s->max_tokens;
#define GK__WH_CONSIDER(seq, len_, sum_)                                              \
    do {                                                                              \
        double sc_ = gk_whisper_rank_score((sum_), (len_), s->has_lp, s->lp);         \
        if (first || sc_ > bscore) { first = 0; bscore = sc_; best = (seq); bl = (len_); bs = (sum_); } \
    } while (0)
    if (!s->beam) {
        for (r = 0; r < s->rows; r++) {
            const int32_t *h = s->hist + (size_t)r * T;
            for (n = 0; n < s->len && h[n] != s->eot; n++) {}
            GK__WH_CONSIDER(h, n, s->sum[r]);
        }
    } else {
        int order[256], k, j, cnt = s->n_fin;
        for (k = 0; k < s->n_fin; k++) GK__WH_CONSIDER(s->fin + (size_t)k * (T + 1), s->fin_len[k] - 1, s->fin_sum[k]);
        for (k = 0; k < s->rows; k++) { /* by sum descending; ties: the higher row first */
            int x = k;
            for (j = k; j > 0 && (s->sum[order[j - 1]] < s->sum[x] || (s->sum[order[j - 1]] == s->sum[x] && order[j - 1] < x)); j--) order[j] = order[j - 1];
            order[j] = x;
        }
        for (k = 0; k < s->rows && cnt < s->beam; k++, cnt++) GK__WH_CONSIDER(s->hist + (size_t)order[k] * T, s->len, s->sum[order[k]]);
    }
#undef GK__WH_CONSIDER
    if (tokens) {
        tokens->len = 0;
        for (i = 0; i < bl; i++)
            if (gk_ids_push(tokens, best[i]) != GK_OK) { tokens->len = 0; return GK_ERR_OUT_OF_MEMORY; }
    }
    if (sum_logprob) *sum_logprob = bs;
    if (avg_logprob) *avg_logprob = gk_whisper_avg_logprob(bs, bl);
    return GK_OK;
}

/* ---- quality checks ---- */
typedef int (*gk__wh_compress2_fn)(unsigned char *, unsigned long *, const unsigned char *, unsigned long, int);
typedef unsigned long (*gk__wh_bound_fn)(unsigned long);
GKLLMDEF gk_status gk_whisper_compression_ratio(const char *text, size_t len, double *ratio) {
    static const char *const names[4] = {"libz.so.1", "libz.so", "libz.dylib", "zlib1.dll"};
    const char *W = "gk_whisper_compression_ratio";
    gk__wh_compress2_fn compress2_ = NULL;
    gk__wh_bound_fn bound_ = NULL;
    void *p1 = NULL, *p2 = NULL;
    unsigned long dlen;
    unsigned char *buf;
    gk_status st = GK_OK;
    int i, rc;
#if defined(_WIN32)
    HMODULE lib = NULL;
#else
    void *lib = NULL;
#endif
    if (ratio) *ratio = 0;
    if (!ratio) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: ratio is NULL", W);
    if (!text && len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: text is NULL but len is %llu", W, (unsigned long long)len);
    if ((unsigned long long)len > (unsigned long long)(ULONG_MAX / 2)) return GK__U_ERR(GK_ERR_LIMIT, "%s: len = %llu is beyond zlib's one-call limit", W, (unsigned long long)len);
    for (i = 0; i < 4 && !lib; i++) {
#if defined(_WIN32)
        lib = LoadLibraryA(names[i]);
        if (lib) {
            FARPROC a = GetProcAddress(lib, "compress2"), b = GetProcAddress(lib, "compressBound");
            memcpy(&p1, &a, sizeof p1);
            memcpy(&p2, &b, sizeof p2);
        }
#else
        lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (lib) { p1 = dlsym(lib, "compress2"); p2 = dlsym(lib, "compressBound"); }
#endif
    }
    if (!lib)
        return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: zlib is not installed (tried libz.so.1, libz.so, libz.dylib, zlib1.dll; it is loaded at run time, not linked): "
                         "install it (Debian / Ubuntu: apt-get install zlib1g)", W);
    memcpy(&compress2_, &p1, sizeof p1);
    memcpy(&bound_, &p2, sizeof p2);
    if (!compress2_ || !bound_) st = GK__U_ERR(GK_ERR_NOT_FOUND, "%s: the zlib library that loaded lacks compress2 or compressBound", W);
    else {
        dlen = bound_((unsigned long)len);
        buf = (unsigned char *)gk__u_malloc((size_t)dlen);
        if (!buf) st = GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", W);
        else {
            rc = compress2_(buf, &dlen, (const unsigned char *)(len ? text : ""), (unsigned long)len, 6);
            if (rc != 0 || dlen == 0) st = GK__U_ERR(GK_ERR_INTERNAL, "%s: zlib's compress2 failed (%d)", W, rc);
            else *ratio = (double)len / (double)dlen;
            gk__u_free(buf);
        }
    }
#if defined(_WIN32)
    FreeLibrary(lib);
#else
    dlclose(lib);
#endif
    return st;
}

static void gk__wh_th(const gk_whisper_thresholds *th, double *cr, double *lp, double *ns, double *inc, double *t0) {
    *cr = 2.4; *lp = -1.0; *ns = 0.6; *inc = 0.2; *t0 = 0;
    if (!th) return;
    if (th->compression_ratio != 0) *cr = th->compression_ratio;
    if (th->logprob != 0) *lp = th->logprob;
    if (th->no_speech != 0) *ns = th->no_speech;
    if (th->temperature_increment != 0) *inc = th->temperature_increment;
    *t0 = th->temperature_start;
}
GKLLMDEF int gk_whisper_needs_fallback(const gk_whisper_thresholds *th, double compression_ratio, double avg_logprob, double no_speech_prob) {
    double cr, lp, ns, inc, t0;
    int fb = 0;
    gk__wh_th(th, &cr, &lp, &ns, &inc, &t0);
    if (cr == cr && compression_ratio > cr) fb = 1;               /* too repetitive */
    if (lp == lp && avg_logprob < lp) fb = 1;                     /* too improbable */
    if (ns == ns && no_speech_prob > ns && lp == lp && avg_logprob < lp) fb = 0; /* silence */
    (void)inc; (void)t0;
    return fb;
}
GKLLMDEF int gk_whisper_is_no_speech(const gk_whisper_thresholds *th, double no_speech_prob, double avg_logprob) {
    double cr, lp, ns, inc, t0;
    gk__wh_th(th, &cr, &lp, &ns, &inc, &t0);
    (void)cr; (void)inc; (void)t0;
    if (ns != ns || !(no_speech_prob > ns)) return 0;
    return !(lp == lp && avg_logprob > lp);
}
GKLLMDEF double gk_whisper_temperature(const gk_whisper_thresholds *th, int attempt) {
    double cr, lp, ns, inc, t0, t;
    gk__wh_th(th, &cr, &lp, &ns, &inc, &t0);
    (void)cr; (void)lp; (void)ns;
    if (attempt < 0) return -1;
    if (inc != inc) return attempt == 0 ? t0 : -1;
    if (!(inc > 0)) return -1;
    t = t0 + (double)attempt * inc;
    return t < 1.0 + 1e-6 ? t : -1;
}

/* ---- text helpers ---- */
/* Python's str.isspace for one code point */
static int gk__wh_space(uint32_t c) {
    return (c >= 9 && c <= 13) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
           c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}
/* [*b, *e) of s[0..n) without the whitespace str.strip() removes */
static void gk__wh_strip(const char *s, size_t n, size_t *b, size_t *e) {
    size_t i = 0, j = n, last;
    uint32_t cp;
    int k;
    while (i < n && (k = gk__u_utf8_dec((const unsigned char *)s + i, n - i, &cp)) > 0 && gk__wh_space(cp)) i += (size_t)k;
    j = i;
    last = i;
    while (j < n) {
        k = gk__u_utf8_dec((const unsigned char *)s + j, n - j, &cp);
        if (k <= 0) { j++; last = j; continue; }
        j += (size_t)k;
        if (!gk__wh_space(cp)) last = j;
    }
    *b = i;
    *e = last;
}
/* Python's `needle in hay` for strings (the empty string is in every string) */
static int gk__wh_in(const char *hay, const char *needle, size_t n) {
    size_t h = strlen(hay), i;
    if (!n) return 1;
    for (i = 0; i + n <= h; i++)
        if (!memcmp(hay + i, needle, n)) return 1;
    return 0;
}
static size_t gk__wh_ncp(const char *s, size_t n) { /* code points */
    size_t i, c = 0;
    for (i = 0; i < n; i++) c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}
/* tok's text of ids (specials included) into b (replaced) */
static gk_status gk__wh_decode(const gk_tokenizer *tok, const int32_t *ids, size_t n, gk_buf *b) {
    b->len = 0;
    if (b->data) b->data[0] = 0;
    if (!n) return gk_buf_append(b, "", 0);
    return gk_tokenizer_decode(tok, ids, n, 0, b);
}
/* the tokenizer's own message, after the caller's name */
static gk_status gk__wh_tok_err(const char *W, gk_status s) {
    gk__u_tl sv;
    char pre[96];
    if (s == GK_ERR_OUT_OF_MEMORY) return s;
    gk__u_tl_save(&sv);
    snprintf(pre, sizeof pre, "%s: decoding tokens: ", W);
    return gk__u_tl_move(NULL, &sv, s, pre);
}

/* ---- segments ---- */
static void gk__wh_seg_clear(gk_whisper_segment *g) {
    size_t i;
    for (i = 0; i < g->n_words; i++) gk__u_free(g->words[i].word);
    gk__u_free(g->words);
    gk__u_free(g->tokens);
    gk__u_free(g->text);
    memset(g, 0, sizeof *g);
}
GKLLMDEF void gk_whisper_segments_free(gk_whisper_segments *s) {
    size_t i;
    if (!s) return;
    for (i = 0; i < s->len; i++) gk__wh_seg_clear(&s->data[i]);
    gk__u_free(s->data);
    memset(s, 0, sizeof *s);
}
static void gk__wh_segs_truncate(gk_whisper_segments *s, size_t n) {
    while (s->len > n) gk__wh_seg_clear(&s->data[--s->len]);
}
/* transcribe.py: an instantaneous segment or one without text keeps no text, tokens or words */
static gk_status gk__wh_clean(gk_whisper_segments *s, size_t first) {
    size_t i, b, e;
    for (i = first; i < s->len; i++) {
        gk_whisper_segment *g = &s->data[i];
        size_t k;
        gk__wh_strip(g->text ? g->text : "", g->text ? strlen(g->text) : 0, &b, &e);
        if (g->start != g->end && b < e) continue;
        if (g->text) g->text[0] = 0;
        g->n_tokens = 0;
        for (k = 0; k < g->n_words; k++) gk__u_free(g->words[k].word);
        g->n_words = 0;
    }
    return GK_OK;
}

static gk_status gk__wh_seg_new(const char *W, const gk_whisper_tokens *t, const gk_tokenizer *tok, const gk_whisper_window *w, const int32_t *tk, size_t n,
                                double start, double end, gk_whisper_segments *out, gk_buf *tmp, gk_ids *txt) {
    gk_whisper_segment *g;
    gk_status s;
    size_t i;
    if (out->len == out->cap && !gk__u_grow((void **)&out->data, &out->cap, out->len + 1, sizeof *out->data))
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", W);
    txt->len = 0;
    for (i = 0; i < n; i++)
        if (tk[i] < t->eot && (s = gk_ids_push(txt, tk[i])) != GK_OK) return s;
    if (!tok) tmp->len = 0; /* no tokenizer: the text stays empty, the tokens are kept */
    else if ((s = gk__wh_decode(tok, txt->data, txt->len, tmp)) != GK_OK) return gk__wh_tok_err(W, s);
    g = &out->data[out->len];
    memset(g, 0, sizeof *g);
    g->text = gk__u_strndup(tmp->len ? tmp->data : "", tmp->len);
    g->tokens = (int32_t *)gk__u_calloc(n, sizeof(int32_t));
    if (!g->text || !g->tokens) {
        gk__wh_seg_clear(g);
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", W);
    }
    if (n) memcpy(g->tokens, tk, n * sizeof(int32_t));
    g->n_tokens = n;
    g->id = (int64_t)out->len;
    g->seek = w->seek;
    g->start = start;
    g->end = end;
    g->temperature = w->temperature;
    g->avg_logprob = w->avg_logprob;
    g->compression_ratio = w->compression_ratio;
    g->no_speech_prob = w->no_speech_prob;
    out->len++;
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_segments_add(const gk_whisper_tokens *t, const gk_tokenizer *tok, gk_whisper_window *w, const int32_t *tokens, size_t n,
                                           gk_whisper_segments *out) {
    const char *W = "gk_whisper_segments_add";
    const double offset = w ? (double)(w->seek * 160) / 16000.0 : 0, prec = (double)(2 * 160) / 16000.0;
    gk_buf tmp = {NULL, 0, 0};
    gk_ids txt = {NULL, 0, 0};
    gk_status s;
    size_t i, last = 0, n0, npairs = 0;
    int64_t tb;
    int single;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!w) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: w is NULL", W);
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (w->seek < 0 || w->seek > ((int64_t)1 << 40)) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_window.seek = %lld must be >= 0", W, (long long)w->seek);
    if (w->segment_size < 1 || w->segment_size > GK_WHISPER_N_FRAMES)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_window.segment_size = %lld must be 1..3000 mel frames", W, (long long)w->segment_size);
    if ((s = gk__wh_check_ids(W, "tokens", tokens, n, t->vocab)) != GK_OK) return s;
    tb = t->timestamp_begin;
    n0 = out->len;
    w->first = n0;
    single = n >= 2 && tokens[n - 2] < tb && tokens[n - 1] >= tb;
    w->single_timestamp_ending = single;
    for (i = 1; i < n; i++) npairs += tokens[i - 1] >= tb && tokens[i] >= tb;
    if (npairs) { /* a segment ends at each pair of timestamps */
        for (i = 1; i <= n; i++) {
            int cut = i < n ? tokens[i - 1] >= tb && tokens[i] >= tb : single;
            if (!cut) continue;
            s = gk__wh_seg_new(W, t, tok, w, tokens + last, i - last, offset + (double)(tokens[last] - tb) * prec, offset + (double)(tokens[i - 1] - tb) * prec, out,
                               &tmp, &txt);
            if (s != GK_OK) goto fail;
            last = i;
        }
        w->next_seek = single ? w->seek + w->segment_size : w->seek + (int64_t)(tokens[last - 1] - tb) * 2;
    } else {
        double dur = (double)(w->segment_size * 160) / 16000.0;
        for (i = n; i-- > 0;)
            if (tokens[i] >= tb) {
                if (tokens[i] != tb) dur = (double)(tokens[i] - tb) * prec;
                break;
            }
        if ((s = gk__wh_seg_new(W, t, tok, w, tokens, n, offset, offset + dur, out, &tmp, &txt)) != GK_OK) goto fail;
        w->next_seek = w->seek + w->segment_size;
    }
    gk_buf_free(&tmp);
    gk_ids_free(&txt);
    if (!w->words && tok) gk__wh_clean(out, n0);
    return GK_OK;
fail:
    gk_buf_free(&tmp);
    gk_ids_free(&txt);
    gk__wh_segs_truncate(out, n0);
    return s;
}

/* ---- word timestamps ---- */
GKLLMDEF gk_status gk_whisper_median_filter(float *x, int64_t rows, int64_t cols, int width) {
    const char *W = "gk_whisper_median_filter";
    float win[101], *row = NULL;
    int64_t r, c, p;
    int k, j;
    if (!x && rows && cols) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: x is NULL", W);
    if (rows < 0 || cols < 0) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: rows = %lld, cols = %lld must be >= 0", W, (long long)rows, (long long)cols);
    if (width < 1 || width > 101 || width % 2 == 0) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: width = %d must be odd, 1..101", W, width);
    p = width / 2;
    if (cols <= p || width == 1) return GK_OK;
    row = (float *)gk__u_calloc((size_t)cols, sizeof(float));
    if (!row) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", W);
    for (r = 0; r < rows; r++) {
        float *y = x + r * cols;
        memcpy(row, y, (size_t)cols * sizeof(float));
        for (c = 0; c < cols; c++) {
            for (k = 0; k < width; k++) { /* reflect: -1 -> 1, cols -> cols - 2 */
                int64_t q = c - p + k;
                float v;
                if (q < 0) q = -q;
                if (q >= cols) q = 2 * (cols - 1) - q;
                v = row[q];
                for (j = k; j > 0 && win[j - 1] > v; j--) win[j] = win[j - 1];
                win[j] = v;
            }
            y[c] = win[p];
        }
    }
    gk__u_free(row);
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_dtw(const float *x, int64_t n, int64_t m, int32_t *rows, int32_t *cols, size_t *len) {
    const char *W = "gk_whisper_dtw";
    float *cost;
    unsigned char *tr;
    int64_t i, j, M1;
    size_t k = 0, a, b;
    if (len) *len = 0;
    if (!x) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: x is NULL", W);
    if (!rows || !cols) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", W, !rows ? "rows" : "cols");
    if (!len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: len is NULL", W);
    if (n < 1 || m < 1 || n > INT32_MAX || m > INT32_MAX || (double)(n + 1) * (double)(m + 1) > 4e9)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: n = %lld, m = %lld: each must be >= 1 (and the matrix under 4e9 cells)", W, (long long)n, (long long)m);
    for (i = 0; i < n * m; i++)
        if (!gk__wh_fin(x[i])) return GK__U_ERR(GK_ERR_FORMAT, "%s: x[%lld][%lld] = %g is not finite", W, (long long)(i / m), (long long)(i % m), (double)x[i]);
    M1 = m + 1;
    cost = (float *)gk__u_calloc((size_t)((n + 1) * M1), sizeof(float));
    tr = (unsigned char *)gk__u_calloc((size_t)((n + 1) * M1), 1);
    if (!cost || !tr) {
        gk__u_free(cost);
        gk__u_free(tr);
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory for a %lld x %lld matrix", W, (long long)n, (long long)m);
    }
    for (i = 0; i < (n + 1) * M1; i++) cost[i] = INFINITY;
    cost[0] = 0;
    for (j = 1; j <= m; j++)
        for (i = 1; i <= n; i++) {
            float c0 = cost[(i - 1) * M1 + j - 1], c1 = cost[(i - 1) * M1 + j], c2 = cost[i * M1 + j - 1], c;
            unsigned char t;
            if (c0 < c1 && c0 < c2) { c = c0; t = 0; }
            else if (c1 < c0 && c1 < c2) { c = c1; t = 1; }
            else { c = c2; t = 2; }
            cost[i * M1 + j] = (float)((double)x[(i - 1) * m + j - 1] + (double)c);
            tr[i * M1 + j] = t;
        }
    for (j = 0; j <= m; j++) tr[j] = 2;
    for (i = 0; i <= n; i++) tr[i * M1] = 1;
    i = n;
    j = m;
    while (i > 0 || j > 0) {
        unsigned char t = tr[i * M1 + j];
        rows[k] = (int32_t)(i - 1);
        cols[k++] = (int32_t)(j - 1);
        if (t == 0) { i--; j--; }
        else if (t == 1) i--;
        else j--;
    }
    for (a = 0, b = k - 1; a < b; a++, b--) {
        int32_t r0 = rows[a], c0 = cols[a];
        rows[a] = rows[b]; cols[a] = cols[b];
        rows[b] = r0; cols[b] = c0;
    }
    *len = k;
    gk__u_free(cost);
    gk__u_free(tr);
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_attention_matrix(const float *weights, int heads, int64_t rows, int64_t cols, const gk_whisper_align_desc *d, float *out) {
    const char *W = "gk_whisper_attention_matrix";
    gk_whisper_align_desc z;
    int64_t F, h, r, c, i;
    int mw;
    float *tmp;
    gk_status s;
    if (!weights) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: weights is NULL", W);
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (heads < 1 || rows < 1 || cols < 1)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: heads = %d, rows = %lld, cols = %lld must each be >= 1", W, heads, (long long)rows, (long long)cols);
    if (!d) { memset(&z, 0, sizeof z); d = &z; }
    F = d->n_cols ? d->n_cols : cols;
    mw = d->medfilt_width ? d->medfilt_width : 7;
    if (F < 1 || F > cols) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_align_desc.n_cols = %lld must be 1..cols (%lld)", W, (long long)d->n_cols, (long long)cols);
    if (mw < 1 || mw > 101 || mw % 2 == 0) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_align_desc.medfilt_width = %d must be odd, 1..101 (0: 7)", W, mw);
    for (i = 0; i < (int64_t)heads * rows; i++)
        for (c = 0; c < F; c++) {
            float v = weights[i * cols + c];
            if (!gk__wh_fin(v))
                return GK__U_ERR(GK_ERR_FORMAT, "%s: weights[%lld][%lld][%lld] = %g is not finite", W, (long long)(i / rows), (long long)(i % rows), (long long)c, (double)v);
        }
    tmp = (float *)gk__u_calloc((size_t)(heads * rows * F), sizeof(float));
    if (!tmp) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", W);
    for (i = 0; i < (int64_t)heads * rows; i++) { /* softmax over the kept columns = the given probabilities rescaled */
        const float *x = weights + i * cols;
        double sum = 0;
        for (c = 0; c < F; c++) sum += x[c];
        for (c = 0; c < F; c++) tmp[i * F + c] = d->keep_weights ? x[c] : sum > 0 ? (float)(x[c] / sum) : 0.0f;
    }
    for (h = 0; h < heads; h++) /* standardise each column over the rows */
        for (c = 0; c < F; c++) {
            double mean = 0, var = 0, sd;
            float *col = tmp + h * rows * F + c;
            for (r = 0; r < rows; r++) mean += col[r * F];
            mean /= (double)rows;
            for (r = 0; r < rows; r++) var += ((double)col[r * F] - mean) * ((double)col[r * F] - mean);
            sd = sqrt(var / (double)rows);
            for (r = 0; r < rows; r++) col[r * F] = sd > 0 ? (float)(((double)col[r * F] - mean) / sd) : 0.0f;
        }
    if ((s = gk_whisper_median_filter(tmp, heads * rows, F, mw)) != GK_OK) {
        gk__u_free(tmp);
        return s;
    }
    for (r = 0; r < rows; r++)
        for (c = 0; c < F; c++) {
            double a = 0;
            for (h = 0; h < heads; h++) a += tmp[(h * rows + r) * F + c];
            out[r * F + c] = (float)(a / heads);
        }
    gk__u_free(tmp);
    return GK_OK;
}

/* a word of the alignment: its text, its tokens (a run of the text tokens), its times */
typedef struct gk__wh_word { char *s; size_t n, t0, nt; double start, end, prob; } gk__wh_word;
typedef struct gk__wh_words { gk__wh_word *w; size_t len, cap; } gk__wh_words;
static void gk__wh_words_free(gk__wh_words *a) {
    size_t i;
    for (i = 0; i < a->len; i++) gk__u_free(a->w[i].s);
    gk__u_free(a->w);
    memset(a, 0, sizeof *a);
}
static gk_status gk__wh_words_push(gk__wh_words *a, const char *s, size_t n, size_t t0, size_t nt) {
    gk__wh_word *x;
    if (a->len == a->cap && !gk__u_grow((void **)&a->w, &a->cap, a->len + 1, sizeof *a->w)) return GK_ERR_OUT_OF_MEMORY;
    x = &a->w[a->len];
    memset(x, 0, sizeof *x);
    if (!(x->s = gk__u_strndup(s, n))) return GK_ERR_OUT_OF_MEMORY;
    x->n = n;
    x->t0 = t0;
    x->nt = nt;
    a->len++;
    return GK_OK;
}
/* dst->s += src->s */
static gk_status gk__wh_cat(gk__wh_word *dst, const char *s, size_t n, int front) {
    char *p = (char *)gk__u_malloc(dst->n + n + 1);
    if (!p) return GK_ERR_OUT_OF_MEMORY;
    if (front) { memcpy(p, s, n); memcpy(p + n, dst->s, dst->n); }
    else { memcpy(p, dst->s, dst->n); memcpy(p + dst->n, s, n); }
    p[dst->n + n] = 0;
    gk__u_free(dst->s);
    dst->s = p;
    dst->n += n;
    return GK_OK;
}
static void gk__wh_empty(gk__wh_word *x) {
    x->s[0] = 0;
    x->n = 0;
    x->nt = 0;
}

/* tokenizer.py's split_tokens_on_unicode: a word ends where the decoded text
   has no U+FFFD of its own (one the whole text does not also have there) */
static gk_status gk__wh_split_unicode(const gk_tokenizer *tok, const int32_t *ids, size_t n, gk__wh_words *out) {
    gk_buf full = {NULL, 0, 0}, cur = {NULL, 0, 0};
    uint32_t *fc = NULL;
    size_t nf = 0, i, q, start = 0, off = 0;
    gk_status s;
    if ((s = gk__wh_decode(tok, ids, n, &full)) != GK_OK) goto done;
    fc = (uint32_t *)gk__u_calloc(full.len + 1, sizeof(uint32_t));
    if (!fc) { s = GK_ERR_OUT_OF_MEMORY; goto done; }
    for (q = 0; q < full.len;) {
        int k = gk__u_utf8_dec((const unsigned char *)full.data + q, full.len - q, &fc[nf]);
        q += k > 0 ? (size_t)k : 1;
        nf++;
    }
    for (i = 0; i < n; i++) {
        size_t pos = 0, fffd = (size_t)-1;
        if ((s = gk__wh_decode(tok, ids + start, i + 1 - start, &cur)) != GK_OK) goto done;
        for (q = 0; q < cur.len; pos++) {
            uint32_t cp;
            int k = gk__u_utf8_dec((const unsigned char *)cur.data + q, cur.len - q, &cp);
            if (cp == 0xFFFD && fffd == (size_t)-1) fffd = pos;
            q += k > 0 ? (size_t)k : 1;
        }
        if (fffd == (size_t)-1 || (off + fffd < nf && fc[off + fffd] == 0xFFFD)) {
            if ((s = gk__wh_words_push(out, cur.data, cur.len, start, i + 1 - start)) != GK_OK) goto done;
            off += pos;
            start = i + 1;
        }
    }
done:
    gk_buf_free(&full);
    gk_buf_free(&cur);
    gk__u_free(fc);
    return s;
}
/* split_tokens_on_spaces: subwords join the previous word unless special,
   starting with a space, or punctuation */
static gk_status gk__wh_split_spaces(const gk_tokenizer *tok, const int32_t *ids, size_t n, int32_t eot, gk__wh_words *out) {
    static const char punct[] = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
    gk__wh_words sub = {NULL, 0, 0};
    gk_status s = gk__wh_split_unicode(tok, ids, n, &sub);
    size_t i, b, e;
    for (i = 0; i < sub.len && s == GK_OK; i++) {
        gk__wh_word *x = &sub.w[i];
        gk__wh_strip(x->s, x->n, &b, &e);
        if (ids[x->t0] >= eot || (x->n && x->s[0] == ' ') || gk__wh_in(punct, x->s + b, e - b) || out->len == 0)
            s = gk__wh_words_push(out, x->s, x->n, x->t0, x->nt);
        else {
            s = gk__wh_cat(&out->w[out->len - 1], x->s, x->n, 0);
            out->w[out->len - 1].nt += x->nt;
        }
    }
    gk__wh_words_free(&sub);
    return s;
}

/* timing.py's merge_punctuations (times stay with the word that keeps them) */
static gk_status gk__wh_merge_punct(gk__wh_words *a, const char *pre, const char *app) {
    gk_status s;
    size_t b, e;
    int64_t i, j;
    if (a->len < 2) return GK_OK;
    for (i = (int64_t)a->len - 2, j = (int64_t)a->len - 1; i >= 0; i--) {
        gk__wh_word *p = &a->w[i], *f = &a->w[j];
        gk__wh_strip(p->s, p->n, &b, &e);
        if (p->n && p->s[0] == ' ' && gk__wh_in(pre, p->s + b, e - b)) {
            if ((s = gk__wh_cat(f, p->s, p->n, 1)) != GK_OK) return s;
            f->t0 = p->t0;
            f->nt += p->nt;
            gk__wh_empty(p);
        } else j = i;
    }
    for (i = 0, j = 1; j < (int64_t)a->len; j++) {
        gk__wh_word *p = &a->w[i], *f = &a->w[j];
        if (!(p->n && p->s[p->n - 1] == ' ') && gk__wh_in(app, f->s, f->n)) {
            if ((s = gk__wh_cat(p, f->s, f->n, 0)) != GK_OK) return s;
            p->nt += f->nt;
            gk__wh_empty(f);
        } else i = j;
    }
    return GK_OK;
}

static int gk__wh_cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}
/* Python's round(x, 2): the correctly rounded decimal, ties to even */
static double gk__wh_round2(double x) {
    char b[400];
    snprintf(b, sizeof b, "%.2f", x);
    return strtod(b, NULL);
}
/* utils.py's get_end over segments [first, len) */
static int gk__wh_get_end(const gk_whisper_segments *s, size_t first, double *end) {
    size_t i;
    for (i = s->len; i-- > first;)
        if (s->data[i].n_words) { *end = s->data[i].words[s->data[i].n_words - 1].end; return 1; }
    if (s->len > first) { *end = s->data[s->len - 1].end; return 1; }
    return 0;
}

GKLLMDEF gk_status gk_whisper_add_words(const gk_whisper_tokens *t, const gk_tokenizer *tok, const gk_whisper_words_desc *d, const float *weights, int heads,
                                        int64_t rows, int64_t cols, size_t text_row, const float *token_probs, gk_whisper_window *w, gk_whisper_segments *segs,
                                        double *last_speech) {
    static const char *const by_char[6] = {"zh", "ja", "th", "lo", "my", "yue"};
    const char *W = "gk_whisper_add_words", *pre, *app;
    gk_whisper_words_desc z;
    gk_whisper_align_desc ad;
    gk_ids text = {NULL, 0, 0};
    gk__wh_words a = {NULL, 0, 0};
    float *mat = NULL;
    int32_t *pr = NULL, *pc = NULL;
    double *jt = NULL, *dur = NULL, med = 0, maxd, offset, ls, end;
    size_t i, k, T, plen = 0, nw = 0, nd = 0, wi = 0;
    int unicode = 0;
    gk_status s;
    if ((s = gk__wh_check_t(W, t)) != GK_OK) return s;
    if (!tok) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: tok is NULL (words are split on the decoded text)", W);
    if (!w) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: w is NULL", W);
    if (!segs) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: segs is NULL", W);
    if (!last_speech) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: last_speech is NULL", W);
    if (w->first > segs->len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_window.first = %llu is past the %llu segments", W, (unsigned long long)w->first, (unsigned long long)segs->len);
    if (!d) { memset(&z, 0, sizeof z); d = &z; }
    pre = d->prepend_punctuations ? d->prepend_punctuations : "\"'\xE2\x80\x9C\xC2\xBF([{-";
    app = d->append_punctuations ? d->append_punctuations : "\"'.\xE3\x80\x82,\xEF\xBC\x8C!\xEF\xBC\x81?\xEF\xBC\x9F:\xEF\xBC\x9A\xE2\x80\x9D)]}\xE3\x80\x81";
    for (i = 0; d->language && i < 6; i++) unicode |= gk__wh_ieq(d->language, by_char[i]);
    segs->has_words = 1;
    if (w->first == segs->len) return GK_OK; /* no segments: nothing to time */
    for (i = w->first; i < segs->len; i++)
        for (k = 0; k < segs->data[i].n_tokens; k++)
            if (segs->data[i].tokens[k] < t->eot && (s = gk_ids_push(&text, segs->data[i].tokens[k])) != GK_OK) goto done;
    T = text.len;
    if (T) {
        int64_t F = d->align.n_cols ? d->align.n_cols : w->segment_size / 2;
        if (!weights) { s = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: weights is NULL", W); goto done; }
        if (!token_probs) { s = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: token_probs is NULL", W); goto done; }
        if (rows != (int64_t)(text_row + T + 2)) {
            s = GK__U_ERR(GK_ERR_SHAPE, "%s: rows = %lld but the sequence has text_row %llu + <|notimestamps|> + %llu text tokens + eot = %llu rows", W, (long long)rows,
                          (unsigned long long)text_row, (unsigned long long)T, (unsigned long long)(text_row + T + 2));
            goto done;
        }
        if (F < 1 || F > cols) {
            s = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %lld columns wanted (n_cols, else segment_size / 2) but the weights have %lld", W, (long long)F, (long long)cols);
            goto done;
        }
        ad = d->align;
        ad.n_cols = F;
        mat = (float *)gk__u_calloc((size_t)(rows * F), sizeof(float));
        pr = (int32_t *)gk__u_calloc((size_t)(T + 1 + F), sizeof(int32_t));
        pc = (int32_t *)gk__u_calloc((size_t)(T + 1 + F), sizeof(int32_t));
        jt = (double *)gk__u_calloc(T + 1, sizeof(double));
        if (!mat || !pr || !pc || !jt) { s = GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", W); goto done; }
        if ((s = gk_whisper_attention_matrix(weights, heads, rows, cols, &ad, mat)) != GK_OK) goto done;
        for (i = 0; i < (T + 1) * (size_t)F; i++) mat[text_row * (size_t)F + i] = -mat[text_row * (size_t)F + i];
        if ((s = gk_whisper_dtw(mat + text_row * (size_t)F, (int64_t)T + 1, F, pr, pc, &plen)) != GK_OK) goto done;
        for (i = 0, k = 0; i < plen; i++) /* the frame where each token's row is entered */
            if (i == 0 || pr[i] != pr[i - 1]) jt[k++] = (double)pc[i] / 50.0;
        if ((s = gk_ids_push(&text, t->eot)) != GK_OK) goto done;
        s = unicode ? gk__wh_split_unicode(tok, text.data, T + 1, &a) : gk__wh_split_spaces(tok, text.data, T + 1, t->eot, &a);
        if (s != GK_OK) { s = s == GK_ERR_OUT_OF_MEMORY ? GK__U_ERR(s, "%s: out of memory", W) : gk__wh_tok_err(W, s); goto done; }
        nw = a.len > 1 ? a.len - 1 : 0; /* the last word (eot) has no end */
        for (i = 0; i < nw; i++) {
            gk__wh_word *x = &a.w[i];
            double p = 0;
            x->start = jt[x->t0];
            x->end = jt[x->t0 + x->nt];
            for (k = x->t0; k < x->t0 + x->nt; k++) p += token_probs[k];
            x->prob = p / (double)x->nt;
        }
        for (i = nw; i < a.len; i++) gk__u_free(a.w[i].s);
        a.len = nw;
    }
    dur = (double *)gk__u_calloc(nw + 1, sizeof(double));
    if (!dur) { s = GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", W); goto done; }
    for (i = 0; i < nw; i++)
        if (a.w[i].end - a.w[i].start != 0) dur[nd++] = a.w[i].end - a.w[i].start;
    if (nd) {
        qsort(dur, nd, sizeof(double), gk__wh_cmp_d);
        med = nd % 2 ? dur[nd / 2] : (dur[nd / 2 - 1] + dur[nd / 2]) / 2;
    }
    med = med < 0.7 ? med : 0.7;
    maxd = med * 2;
    if (nd) /* words at sentence ends are at most twice the median */
        for (i = 1; i < nw; i++) {
            gk__wh_word *x = &a.w[i];
            static const char marks[] = ".\xE3\x80\x82!\xEF\xBC\x81?\xEF\xBC\x9F";
            if (x->end - x->start <= maxd) continue;
            if (gk__wh_in(marks, x->s, x->n)) x->end = x->start + maxd;
            else if (gk__wh_in(marks, a.w[i - 1].s, a.w[i - 1].n)) x->start = x->end - maxd;
        }
    if ((s = gk__wh_merge_punct(&a, pre, app)) != GK_OK) { s = GK__U_ERR(s, "%s: out of memory", W); goto done; }
    offset = (double)(segs->data[w->first].seek * 160) / 16000.0;
    ls = *last_speech;
    for (i = w->first; i < segs->len; i++) {
        gk_whisper_segment *g = &segs->data[i];
        gk_whisper_word *ws;
        size_t ntext = 0, saved = 0, n = 0;
        for (k = 0; k < g->n_tokens; k++) ntext += g->tokens[k] < t->eot;
        for (k = 0; k < g->n_words; k++) gk__u_free(g->words[k].word);
        g->n_words = 0;
        ws = (gk_whisper_word *)gk__u_calloc(a.len - wi + 1, sizeof *ws);
        if (!ws) { s = GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", W); goto done; }
        gk__u_free(g->words);
        g->words = ws;
        for (; wi < a.len && saved < ntext; wi++) {
            gk__wh_word *x = &a.w[wi];
            if (x->n) {
                if (!(ws[n].word = gk__u_strndup(x->s, x->n))) { s = GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", W); goto done; }
                ws[n].start = gk__wh_round2(offset + x->start);
                ws[n].end = gk__wh_round2(offset + x->end);
                ws[n].probability = x->prob;
                g->n_words = ++n;
            }
            saved += x->nt;
        }
        if (!n) continue;
        /* the first words after a pause are at most twice the median */
        if (ws[0].end - ls > med * 4 && (ws[0].end - ws[0].start > maxd || (n > 1 && ws[1].end - ws[0].start > maxd * 2))) {
            if (n > 1 && ws[1].end - ws[1].start > maxd) {
                double bnd = ws[1].end / 2 > ws[1].end - maxd ? ws[1].end / 2 : ws[1].end - maxd;
                ws[0].end = ws[1].start = bnd;
            }
            ws[0].start = ws[0].end - maxd > 0 ? ws[0].end - maxd : 0;
        }
        /* the segment's own start / end win over a first / last word that is too long */
        if (g->start < ws[0].end && g->start - 0.5 > ws[0].start) {
            double v = ws[0].end - med < g->start ? ws[0].end - med : g->start;
            ws[0].start = v > 0 ? v : 0;
        } else g->start = ws[0].start;
        if (g->end > ws[n - 1].start && g->end + 0.5 < ws[n - 1].end) ws[n - 1].end = ws[n - 1].start + med > g->end ? ws[n - 1].start + med : g->end;
        else g->end = ws[n - 1].end;
        ls = g->end;
    }
    if (gk__wh_get_end(segs, w->first, &end)) {
        if (!w->single_timestamp_ending && end > (double)(w->seek * 160) / 16000.0) w->next_seek = (int64_t)nearbyint(end * GK_WHISPER_FRAMES_PER_SECOND);
        *last_speech = end;
    }
    gk__wh_clean(segs, w->first);
    s = GK_OK;
done:
    if (s != GK_OK)
        for (i = w->first; i < segs->len; i++) {
            for (k = 0; k < segs->data[i].n_words; k++) gk__u_free(segs->data[i].words[k].word);
            segs->data[i].n_words = 0;
        }
    gk_ids_free(&text);
    gk__wh_words_free(&a);
    gk__u_free(mat);
    gk__u_free(pr);
    gk__u_free(pc);
    gk__u_free(jt);
    gk__u_free(dur);
    return s;
}

/* ---- writers ---- */
static gk_status gk__wh_ts(gk_buf *b, double sec, int hours, char mark) {
    char s[96];
    long long ms = (long long)nearbyint(sec * 1000.0), h, m, x;
    h = ms / 3600000; ms -= h * 3600000;
    m = ms / 60000; ms -= m * 60000;
    x = ms / 1000; ms -= x * 1000;
    if (hours || h > 0) snprintf(s, sizeof s, "%02lld:%02lld:%02lld%c%03lld", h, m, x, mark, ms);
    else snprintf(s, sizeof s, "%02lld:%02lld%c%03lld", m, x, mark, ms);
    return gk__u_buf_puts(b, s);
}
/* s[0..n) stripped, "-->" as "->" when arrow */
static gk_status gk__wh_put_text(gk_buf *o, const char *s, size_t n, int strip, int arrow) {
    size_t b = 0, e = n, i;
    gk_status st = GK_OK;
    if (strip) gk__wh_strip(s, n, &b, &e);
    for (i = b; i < e && st == GK_OK; i++) {
        if (arrow && i + 3 <= e && !memcmp(s + i, "-->", 3)) { st = gk_buf_append(o, "->", 2); i += 2; }
        else st = gk_buf_append(o, s + i, 1);
    }
    return st;
}
/* Python's repr of a float (NaN / inf: null) */
static gk_status gk__wh_num(gk_buf *o, double v) {
    char s[400]; /* %f of any double fits */
    int p, e, q;
    if (v != v || v - v != 0) return gk__u_buf_puts(o, "null");
    for (p = 1; p < 17; p++) {
        snprintf(s, sizeof s, "%.*e", p - 1, v);
        if (strtod(s, NULL) == v) break;
    }
    snprintf(s, sizeof s, "%.*e", p - 1, v);
    e = atoi(strchr(s, 'e') + 1);
    if (e >= -4 && e < 16) {
        q = p - 1 - e;
        snprintf(s, sizeof s, "%.*f", q < 0 ? 0 : q > 24 ? 24 : q, v);
        if (!strchr(s, '.')) strcat(s, ".0");
    }
    return gk__u_buf_puts(o, s);
}
static gk_status gk__wh_jstr(gk_buf *o, const char *s) {
    size_t i = 0, run = 0, n = s ? strlen(s) : 0;
    gk_status st = gk_buf_append(o, "\"", 1);
    while (i < n && st == GK_OK) {
        unsigned char c = (unsigned char)s[i];
        uint32_t cp;
        int k;
        const char *esc = NULL;
        char u[8];
        if (c >= 0x80) {
            k = gk__u_utf8_dec((const unsigned char *)s + i, n - i, &cp);
            if (k > 0) { i += (size_t)k; continue; }
            if ((st = gk_buf_append(o, s + run, i - run)) != GK_OK) return st;
            st = gk_buf_append(o, "\xEF\xBF\xBD", 3);
            i += (size_t)(-k);
            run = i;
            continue;
        }
        if (c == '"') esc = "\\\"";
        else if (c == '\\') esc = "\\\\";
        else if (c == '\n') esc = "\\n";
        else if (c == '\r') esc = "\\r";
        else if (c == '\t') esc = "\\t";
        else if (c == '\b') esc = "\\b";
        else if (c == '\f') esc = "\\f";
        else if (c < 0x20) { snprintf(u, sizeof u, "\\u%04x", c); esc = u; }
        if (esc) {
            if ((st = gk_buf_append(o, s + run, i - run)) != GK_OK) return st;
            st = gk__u_buf_puts(o, esc);
            run = i + 1;
        }
        i++;
    }
    if (st == GK_OK) st = gk_buf_append(o, s + run, i - run);
    return st == GK_OK ? gk_buf_append(o, "\"", 1) : st;
}

/* one SRT / VTT cue */
static gk_status gk__wh_cue(gk_buf *o, gk_whisper_format f, size_t *idx, double a, double b, const char *text, size_t n, int strip) {
    gk_status st = GK_OK;
    char num[32];
    if (f == GK_WHISPER_SRT) {
        snprintf(num, sizeof num, "%llu\n", (unsigned long long)++*idx);
        st = gk__u_buf_puts(o, num);
    }
    if (st == GK_OK) st = gk__wh_ts(o, a, f == GK_WHISPER_SRT, f == GK_WHISPER_SRT ? ',' : '.');
    if (st == GK_OK) st = gk__u_buf_puts(o, " --> ");
    if (st == GK_OK) st = gk__wh_ts(o, b, f == GK_WHISPER_SRT, f == GK_WHISPER_SRT ? ',' : '.');
    if (st == GK_OK) st = gk_buf_append(o, "\n", 1);
    if (st == GK_OK) st = gk__wh_put_text(o, text, n, strip, strip);
    return st == GK_OK ? gk_buf_append(o, "\n\n", 2) : st;
}

/* SubtitlesWriter.iterate_result with words, its default options: one cue a
   segment (its words; a new line past 1000 characters) */
static gk_status gk__wh_word_cues(const gk_whisper_segments *s, gk_whisper_format f, gk_buf *o) {
    gk_buf line = {NULL, 0, 0};
    gk_status st = GK_OK;
    size_t i, k, idx = 0, line_len = 0, ci;
    double a = 0, b = 0;
    int have = 0;
    for (i = 0; i < s->len && st == GK_OK; i++) {
        const gk_whisper_segment *g = &s->data[i];
        for (ci = 0; ci < g->n_words && st == GK_OK; ci += 1000)
            for (k = ci; k < g->n_words && k < ci + 1000 && st == GK_OK; k++) {
                const char *wd = g->words[k].word ? g->words[k].word : "";
                size_t wl = strlen(wd), len = gk__wh_ncp(wd, wl), sb, se;
                int seg_break = k == ci && have;
                if (line_len > 0 && line_len + len <= 1000 && !seg_break) {
                    line_len += len;
                    st = gk_buf_append(&line, wd, wl);
                } else {
                    gk__wh_strip(wd, wl, &sb, &se);
                    if (seg_break) {
                        st = gk__wh_cue(o, f, &idx, a, b, line.data, line.len, 0);
                        line.len = 0;
                        have = 0;
                    } else if (line_len > 0) st = gk_buf_append(&line, "\n", 1);
                    if (st == GK_OK) st = gk_buf_append(&line, wd + sb, se - sb);
                    line_len = gk__wh_ncp(wd + sb, se - sb);
                }
                if (!have) a = g->words[k].start;
                b = g->words[k].end;
                have = 1;
            }
    }
    if (st == GK_OK && have) st = gk__wh_cue(o, f, &idx, a, b, line.data, line.len, 0);
    gk_buf_free(&line);
    return st;
}

static gk_status gk__wh_write(const gk_whisper_segments *s, gk_whisper_format f, const char *text, const char *language, gk_buf *o) {
    gk_status st = GK_OK;
    size_t i, k, idx = 0;
    char num[128];
    if (f == GK_WHISPER_VTT) st = gk__u_buf_puts(o, "WEBVTT\n\n");
    if ((f == GK_WHISPER_SRT || f == GK_WHISPER_VTT) && s->has_words && s->len) return st == GK_OK ? gk__wh_word_cues(s, f, o) : st;
    if (f == GK_WHISPER_TSV) st = gk__u_buf_puts(o, "start\tend\ttext\n");
    if (f == GK_WHISPER_JSON) {
        st = gk__u_buf_puts(o, "{\"text\": ");
        if (st == GK_OK && text) st = gk__wh_jstr(o, text);
        else if (st == GK_OK) { /* the segments' texts joined */
            gk_buf all = {NULL, 0, 0};
            for (i = 0; i < s->len && st == GK_OK; i++) st = gk__u_buf_puts(&all, s->data[i].text ? s->data[i].text : "");
            if (st == GK_OK) st = gk__wh_jstr(o, all.data ? all.data : "");
            gk_buf_free(&all);
        }
        if (st == GK_OK) st = gk__u_buf_puts(o, ", \"segments\": [");
    }
    for (i = 0; i < s->len && st == GK_OK; i++) {
        const gk_whisper_segment *g = &s->data[i];
        const char *tx = g->text ? g->text : "";
        if (f == GK_WHISPER_TXT) {
            st = gk__wh_put_text(o, tx, strlen(tx), 1, 0);
            if (st == GK_OK) st = gk_buf_append(o, "\n", 1);
        } else if (f == GK_WHISPER_SRT || f == GK_WHISPER_VTT) {
            st = gk__wh_cue(o, f, &idx, g->start, g->end, tx, strlen(tx), 1);
        } else if (f == GK_WHISPER_TSV) {
            size_t b, e, q;
            snprintf(num, sizeof num, "%lld\t%lld\t", (long long)nearbyint(1000 * g->start), (long long)nearbyint(1000 * g->end));
            st = gk__u_buf_puts(o, num);
            gk__wh_strip(tx, strlen(tx), &b, &e);
            for (q = b; q < e && st == GK_OK; q++) st = gk_buf_append(o, tx[q] == '\t' ? " " : tx + q, 1);
            if (st == GK_OK) st = gk_buf_append(o, "\n", 1);
        } else {
            snprintf(num, sizeof num, "%s{\"id\": %lld, \"seek\": %lld, \"start\": ", i ? ", " : "", (long long)g->id, (long long)g->seek);
            st = gk__u_buf_puts(o, num);
            if (st == GK_OK) st = gk__wh_num(o, g->start);
            if (st == GK_OK) st = gk__u_buf_puts(o, ", \"end\": ");
            if (st == GK_OK) st = gk__wh_num(o, g->end);
            if (st == GK_OK) st = gk__u_buf_puts(o, ", \"text\": ");
            if (st == GK_OK) st = gk__wh_jstr(o, tx);
            if (st == GK_OK) st = gk__u_buf_puts(o, ", \"tokens\": [");
            for (k = 0; k < g->n_tokens && st == GK_OK; k++) {
                snprintf(num, sizeof num, "%s%d", k ? ", " : "", (int)g->tokens[k]);
                st = gk__u_buf_puts(o, num);
            }
            if (st == GK_OK) st = gk__u_buf_puts(o, "], \"temperature\": ");
            if (st == GK_OK) st = gk__wh_num(o, g->temperature);
            if (st == GK_OK) st = gk__u_buf_puts(o, ", \"avg_logprob\": ");
            if (st == GK_OK) st = gk__wh_num(o, g->avg_logprob);
            if (st == GK_OK) st = gk__u_buf_puts(o, ", \"compression_ratio\": ");
            if (st == GK_OK) st = gk__wh_num(o, g->compression_ratio);
            if (st == GK_OK) st = gk__u_buf_puts(o, ", \"no_speech_prob\": ");
            if (st == GK_OK) st = gk__wh_num(o, g->no_speech_prob);
            if (st == GK_OK && s->has_words) {
                st = gk__u_buf_puts(o, ", \"words\": [");
                for (k = 0; k < g->n_words && st == GK_OK; k++) {
                    st = gk__u_buf_puts(o, k ? ", {\"word\": " : "{\"word\": ");
                    if (st == GK_OK) st = gk__wh_jstr(o, g->words[k].word ? g->words[k].word : "");
                    if (st == GK_OK) st = gk__u_buf_puts(o, ", \"start\": ");
                    if (st == GK_OK) st = gk__wh_num(o, g->words[k].start);
                    if (st == GK_OK) st = gk__u_buf_puts(o, ", \"end\": ");
                    if (st == GK_OK) st = gk__wh_num(o, g->words[k].end);
                    if (st == GK_OK) st = gk__u_buf_puts(o, ", \"probability\": ");
                    if (st == GK_OK) st = gk__wh_num(o, g->words[k].probability);
                    if (st == GK_OK) st = gk__u_buf_puts(o, "}");
                }
                if (st == GK_OK) st = gk__u_buf_puts(o, "]");
            }
            if (st == GK_OK) st = gk__u_buf_puts(o, "}");
        }
    }
    if (f == GK_WHISPER_JSON && st == GK_OK) {
        st = gk__u_buf_puts(o, "]");
        if (st == GK_OK && language) {
            st = gk__u_buf_puts(o, ", \"language\": ");
            if (st == GK_OK) st = gk__wh_jstr(o, language);
        }
        if (st == GK_OK) st = gk__u_buf_puts(o, "}");
    }
    return st;
}

static gk_status gk__wh_write_check(const char *W, const gk_whisper_segments *s, gk_whisper_format f) {
    size_t i, k;
    if (!s) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: s is NULL", W);
    if (f < GK_WHISPER_TXT || f > GK_WHISPER_JSON) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: f = %d is not a gk_whisper_format (TXT 1 .. JSON 5)", W, (int)f);
    if (!s->data && s->len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: s->data is NULL but s->len is %llu", W, (unsigned long long)s->len);
    if (f != GK_WHISPER_SRT && f != GK_WHISPER_VTT && f != GK_WHISPER_TSV) return GK_OK;
    for (i = 0; i < s->len; i++) {
        const gk_whisper_segment *g = &s->data[i];
        if (!(g->start >= 0 && g->end >= 0 && g->start < 1e12 && g->end < 1e12))
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: segment %llu: start %g / end %g s must be >= 0 and finite", W, (unsigned long long)i, g->start, g->end);
        for (k = 0; k < g->n_words; k++)
            if (!(g->words[k].start >= 0 && g->words[k].end >= 0 && g->words[k].start < 1e12 && g->words[k].end < 1e12))
                return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: segment %llu, word %llu: start %g / end %g s must be >= 0 and finite", W, (unsigned long long)i,
                                 (unsigned long long)k, g->words[k].start, g->words[k].end);
    }
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_write(const gk_whisper_segments *s, gk_whisper_format f, const char *text, const char *language, gk_buf *out) {
    gk_status st;
    size_t n0;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_whisper_write: out is NULL");
    if ((st = gk__wh_write_check("gk_whisper_write", s, f)) != GK_OK) return st;
    n0 = out->len;
    if ((st = gk__wh_write(s, f, text, language, out)) != GK_OK) {
        out->len = n0;
        if (out->data) out->data[n0] = 0;
    }
    return st;
}
GKLLMDEF gk_status gk_whisper_write_file(const gk_whisper_segments *s, gk_whisper_format f, const char *text, const char *language, FILE *fp) {
    gk_buf b = {NULL, 0, 0};
    gk_status st;
    if (!fp) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_whisper_write_file: fp is NULL");
    if ((st = gk__wh_write_check("gk_whisper_write_file", s, f)) != GK_OK) return st;
    st = gk__wh_write(s, f, text, language, &b);
    if (st == GK_OK && b.len && fwrite(b.data, 1, b.len, fp) != b.len) st = GK__U_ERR(GK_ERR_IO, "gk_whisper_write_file: writing %llu bytes failed: %s", (unsigned long long)b.len, strerror(errno));
    if (st == GK_OK && fflush(fp) != 0) st = GK__U_ERR(GK_ERR_IO, "gk_whisper_write_file: flushing the file failed: %s", strerror(errno));
    gk_buf_free(&b);
    return st;
}
/* ======================================================================== */
/* >>impl_whisper                                                           */
/* ======================================================================== */
/* The Whisper model: config, weights, encoder, decoder, greedy decoding.
   It uses the text runtime's helpers from model_config.c / model_weights.c
   (gk__lv scratch views, gk__llm_free_t, progress). */

typedef struct gk__wsp_layer {
    gk_tensor ln1_w, ln1_b, wqkv, bqkv, wo, bo;         /* self-attention: fused [3d, d], bias [bq; 0; bv] */
    gk_tensor lnx_w, lnx_b, xq, xbq, xkv, xbkv, xo, xbo; /* decoder cross-attention: q, fused k / v [2d, d], bias [0; bv] */
    gk_tensor ln2_w, ln2_b, fc1, fc1_b, fc2, fc2_b;     /* MLP */
    gk_tensor kv;                                       /* decoder: [slots, max_ctx, 2 H, D] (K heads, then V heads) */
    gk_tensor xcache;                                   /* decoder: [slots, n_audio_ctx, 2 H, D], per window */
    /* load-time parts (fused, then freed) */
    gk_tensor tq, tk, tv, tbq, tbv, txk, txv, txbv;
} gk__wsp_layer;
#define GK__WSP_LAYER_TENSORS 30

/* a decode step's graph: rows row0..row0+n-1 over kv_rows cache rows;
   captured on the second use of a key (the first runs op by op) */
#define GK__WSP_GRAPHS 48
typedef struct gk__wsp_graph {
    int row0, n;
    int64_t kv_rows;
    int warm;
    gk_graph *g;
} gk__wsp_graph;

/* a page-locked host buffer uploaded asynchronously on the model's stream:
   it is rewritten only once its last upload has left it (busy: the upload on
   stream st may still be in flight; ev is recorded after it) */
typedef struct gk__wsp_up {
    int32_t *h;
    gk_event *ev;
    gk_stream *st;
    int busy;
} gk__wsp_up;

struct gk_whisper_model {
    gk_ctx *ctx;
    gk_whisper_config cfg;
    gk_dtype dt;
    int slots;
    int64_t max_ctx;
    gk_stream *stream, *stream_use;
    gk_tokenizer *tok;
    gk_whisper_tokens tokens;
    int has_tokens;
    int32_t *gen_ids;                  /* generation_config.json's lists (suppress, begin suppress, alignment heads) */
    gk_tensor conv1_w, conv1_b, conv2_w, conv2_b, enc_pos, enc_ln_w, enc_ln_b;
    gk_tensor embed, dec_pos, dec_ln_w, dec_ln_b, proj;
    gk_tensor mel_filters;             /* f32 [n_mels, 201] */
    gk__wsp_layer *enc, *dec;
    int beams, rows;                   /* decoder rows per window; rows = slots * beams */
    int64_t *len;                      /* decoded tokens per row */
    int *encoded;                      /* per window: the slot holds a window's K / V */
    /* the decode step (gk_whisper_decode_step): buffers for every row, made at load */
    gk_tensor d_buf;                   /* i32 [3, rows]: token, position, kv length of step row i */
    gk_tensor d_src;                   /* i32 [beams * max_ctx]: gk_whisper_reorder's gather index (beams > 1) */
    gk_tensor a_h, a_h2, a_x, a_qkv, a_q, a_att, a_ff, a_lg, a_lg32, a_tmp;
    gk_tensor a_ex, a_mx, a_lse;       /* the logits' log-sum-exp per row: exp scratch [rows, vocab], max, lse [rows] */
    gk__wsp_up up_buf;                 /* d_buf's host side [3, rows] */
    gk__wsp_up up_src;                 /* d_src's host side [beams * max_ctx] (beams > 1) */
    float *h_lg, *h_lse;               /* the step's logits [rows, vocab] and lse [rows] on the host (page-locked on CUDA) */
    int step_n;                        /* rows in them (0: none) */
    int32_t *align;                    /* the alignment heads, (layer, head) pairs */
    size_t n_align;
    gk__wsp_graph graphs[GK__WSP_GRAPHS];
    int ngraphs;
};

/* ---- config ---- */
typedef struct gk__wsp_cf { gk_ctx *ctx; const char *path; const gk_json_value *obj; } gk__wsp_cf;
static gk_status gk__wsp_cf_err(const gk__wsp_cf *cf, gk_status st, const char *fmt, ...) GK__PRINTF(3, 4);
static gk_status gk__wsp_cf_err(const gk__wsp_cf *cf, gk_status st, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gk_error_set(cf->ctx, st, "gk_whisper_load: %s: %s", cf->path, msg);
}
/* an integer in lo..hi; missing or null: def, or an error when required */
static gk_status gk__wsp_cf_int(const gk__wsp_cf *cf, const char *key, int required, int64_t def, int64_t lo, int64_t hi, int64_t *out) {
    const gk_json_value *v = gk_json_get(cf->obj, key);
    char vb[64];
    if (gk_json_is_null(v)) {
        if (required) return gk__wsp_cf_err(cf, GK_ERR_FORMAT, "%s is %s; the model needs it", key, v ? "null" : "missing");
        *out = def;
        return GK_OK;
    }
    if (gk_json_typeof(v) != GK_JSON_INT) return gk__wsp_cf_err(cf, GK_ERR_FORMAT, "%s = %s is not an integer", key, gk__json_show(v, vb, sizeof vb));
    *out = gk_json_int(v, 0);
    if (*out < lo || *out > hi) return gk__wsp_cf_err(cf, GK_ERR_FORMAT, "%s = %lld must be in %lld..%lld", key, (long long)*out, (long long)lo, (long long)hi);
    return GK_OK;
}
/* a token id inside the vocabulary (an int, or the first of a list: eos_token_id may be one); -1 when missing / null */
static gk_status gk__wsp_cf_id(const gk__wsp_cf *cf, const char *key, int64_t vocab, int32_t *out) {
    const gk_json_value *v = gk_json_get(cf->obj, key);
    char vb[64];
    *out = -1;
    if (gk_json_is_null(v)) return GK_OK;
    if (gk_json_typeof(v) == GK_JSON_ARRAY && gk_json_len(v) >= 1) v = gk_json_at(v, 0);
    if (gk_json_typeof(v) != GK_JSON_INT) return gk__wsp_cf_err(cf, GK_ERR_FORMAT, "%s = %s is not a token id", key, gk__json_show(v, vb, sizeof vb));
    if (gk_json_int(v, -1) < 0 || gk_json_int(v, -1) >= vocab)
        return gk__wsp_cf_err(cf, GK_ERR_FORMAT, "%s = %lld is outside the vocabulary (vocab_size %lld)", key, (long long)gk_json_int(v, -1), (long long)vocab);
    *out = (int32_t)gk_json_int(v, -1);
    return GK_OK;
}
/* a list of token ids inside the vocabulary (minus_one: -1 allowed, suppress_tokens' non-speech marker); *n = count, ids appended to buf at *at */
static gk_status gk__wsp_cf_list(const gk__wsp_cf *cf, const char *key, int64_t vocab, int minus_one, int pairs, int32_t *buf, size_t *at, size_t *n, int *given) {
    const gk_json_value *v = gk_json_get(cf->obj, key);
    char vb[64];
    size_t i, k, w = pairs ? 2 : 1;
    *n = 0; *given = 0;
    if (gk_json_is_null(v)) return GK_OK;
    if (gk_json_typeof(v) != GK_JSON_ARRAY) return gk__wsp_cf_err(cf, GK_ERR_FORMAT, "%s = %s is not a list", key, gk__json_show(v, vb, sizeof vb));
    for (i = 0; i < gk_json_len(v); i++) {
        const gk_json_value *e = gk_json_at(v, i);
        if (pairs && (gk_json_typeof(e) != GK_JSON_ARRAY || gk_json_len(e) != 2))
            return gk__wsp_cf_err(cf, GK_ERR_FORMAT, "%s[%llu] = %s is not a [layer, head] pair", key, (unsigned long long)i, gk__json_show(e, vb, sizeof vb));
        for (k = 0; k < w; k++) {
            const gk_json_value *x = pairs ? gk_json_at(e, k) : e;
            int64_t id = gk_json_int(x, -2);
            if (gk_json_typeof(x) != GK_JSON_INT || id < (minus_one ? -1 : 0) || id >= vocab)
                return gk__wsp_cf_err(cf, GK_ERR_FORMAT, "%s[%llu] = %s is not %s", key, (unsigned long long)i, gk__json_show(x, vb, sizeof vb),
                                      pairs ? "a pair of layer and head indices" : "a token id of the vocabulary");
            buf[(*at)++] = (int32_t)id;
        }
    }
    *n = gk_json_len(v);
    *given = 1;
    return GK_OK;
}

static gk_status gk__wsp_read_json(gk_ctx *ctx, const char *path, int optional, gk_json **out) {
    gk_status s;
    gk__u_tl sv;
    *out = NULL;
    if (optional && !gk__u_file_exists(path)) return GK_OK;
    gk__u_tl_save(&sv);
    s = gk_json_parse_file(path, NULL, out);
    if (s != GK_OK) return gk__u_tl_move(ctx, &sv, s, "gk_whisper_load: ");
    return GK_OK;
}

static gk_status gk__wsp_config(gk_whisper_model *m, const char *cpath, const gk_json_value *root, const char *gpath, const gk_json_value *gen) {
    gk_whisper_config *c = &m->cfg;
    gk__wsp_cf cf;
    const gk_json_value *a = gk_json_get(root, "architectures");
    const char *act;
    char vb[64];
    gk_status s;
    int64_t v;
    cf.ctx = m->ctx; cf.path = cpath; cf.obj = root;
    if (gk_json_typeof(root) != GK_JSON_OBJECT) return gk__wsp_cf_err(&cf, GK_ERR_FORMAT, "the top level is not an object");
    if (gk__json_dup_key(root)) return gk__wsp_cf_err(&cf, GK_ERR_FORMAT, "key \"%.60s\" appears twice", gk__json_dup_key(root));
    if (!gk_json_is_null(a)) {
        const char *an = gk_json_str(gk_json_at(a, 0), NULL);
        if (gk_json_typeof(a) != GK_JSON_ARRAY || !an) return gk__wsp_cf_err(&cf, GK_ERR_FORMAT, "architectures = %s is not a list of class names", gk__json_show(a, vb, sizeof vb));
        if (strcmp(an, "WhisperForConditionalGeneration") != 0 && strcmp(an, "WhisperModel") != 0)
            return gk__wsp_cf_err(&cf, GK_ERR_UNSUPPORTED, "architecture %.64s is not a Whisper model (WhisperForConditionalGeneration)", an);
    }
    if (!gk_json_is_null(gk_json_get(root, "model_type")) && strcmp(gk_json_get_string(root, "model_type", ""), "whisper") != 0)
        return gk__wsp_cf_err(&cf, GK_ERR_UNSUPPORTED, "model_type = %s is not \"whisper\"", gk__json_show(gk_json_get(root, "model_type"), vb, sizeof vb));
#define GK__WCF(key, req, def, lo, hi, dst) do { if ((s = gk__wsp_cf_int(&cf, key, req, def, lo, hi, &v)) != GK_OK) return s; dst = v; } while (0)
    GK__WCF("d_model", 1, 0, 1, 65536, c->d_model);
    GK__WCF("encoder_layers", 1, 0, 1, 1024, c->encoder_layers);
    GK__WCF("decoder_layers", 1, 0, 1, 1024, c->decoder_layers);
    GK__WCF("encoder_attention_heads", 1, 0, 1, 1024, c->encoder_heads);
    GK__WCF("decoder_attention_heads", 1, 0, 1, 1024, c->decoder_heads);
    GK__WCF("encoder_ffn_dim", 1, 0, 1, INT32_MAX, c->encoder_ffn);
    GK__WCF("decoder_ffn_dim", 1, 0, 1, INT32_MAX, c->decoder_ffn);
    GK__WCF("num_mel_bins", 1, 0, 1, 1024, c->n_mels);
    GK__WCF("max_source_positions", 0, 1500, 1, 1500, c->n_audio_ctx);
    GK__WCF("max_target_positions", 0, 448, 1, 65536, c->n_text_ctx);
    GK__WCF("vocab_size", 1, 0, 1, INT32_MAX, c->vocab);
#undef GK__WCF
    if (c->n_audio_ctx != 1500)
        return gk__wsp_cf_err(&cf, GK_ERR_UNSUPPORTED, "max_source_positions = %lld: only 1500 (30 s windows of 3000 mel frames) is supported", (long long)c->n_audio_ctx);
    if (c->d_model % c->encoder_heads || c->d_model % c->decoder_heads)
        return gk__wsp_cf_err(&cf, GK_ERR_FORMAT, "d_model = %lld is not a multiple of encoder_attention_heads = %lld and decoder_attention_heads = %lld", (long long)c->d_model,
                              (long long)c->encoder_heads, (long long)c->decoder_heads);
    if (c->d_model / c->encoder_heads > 256 || c->d_model / c->decoder_heads > 256)
        return gk__wsp_cf_err(&cf, GK_ERR_UNSUPPORTED, "a head dim of d_model / heads above 256 is not supported");
    if (gk_json_typeof(gk_json_get(root, "activation_function")) != GK_JSON_NULL && gk_json_typeof(gk_json_get(root, "activation_function")) != GK_JSON_STRING)
        return gk__wsp_cf_err(&cf, GK_ERR_FORMAT, "activation_function = %s is not a string", gk__json_show(gk_json_get(root, "activation_function"), vb, sizeof vb));
    act = gk_json_get_string(root, "activation_function", "gelu");
    if (strcmp(act, "gelu") != 0) return gk__wsp_cf_err(&cf, GK_ERR_UNSUPPORTED, "activation_function \"%.40s\" is not supported (gelu)", act);
    if (!gk_json_is_null(gk_json_get(root, "tie_word_embeddings")) && gk_json_typeof(gk_json_get(root, "tie_word_embeddings")) != GK_JSON_BOOL)
        return gk__wsp_cf_err(&cf, GK_ERR_FORMAT, "tie_word_embeddings = %s is not true or false", gk__json_show(gk_json_get(root, "tie_word_embeddings"), vb, sizeof vb));
    c->tie_embeddings = gk_json_get_bool(root, "tie_word_embeddings", 1);
    if ((s = gk__wsp_cf_id(&cf, "decoder_start_token_id", c->vocab, &c->decoder_start_id)) != GK_OK) return s;
    if ((s = gk__wsp_cf_id(&cf, "eos_token_id", c->vocab, &c->eos_id)) != GK_OK) return s;
    c->max_initial_timestamp_index = 50;
    if (gen) {
        gk__wsp_cf gf;
        const gk_json_value *mi;
        size_t at = 0, cap, n;
        int given;
        int32_t id;
        gf.ctx = m->ctx; gf.path = gpath; gf.obj = gen;
        if (gk_json_typeof(gen) != GK_JSON_OBJECT) return gk__wsp_cf_err(&gf, GK_ERR_FORMAT, "the top level is not an object");
        if (gk__json_dup_key(gen)) return gk__wsp_cf_err(&gf, GK_ERR_FORMAT, "key \"%.60s\" appears twice", gk__json_dup_key(gen));
        c->has_generation_config = 1;
        if ((s = gk__wsp_cf_id(&gf, "decoder_start_token_id", c->vocab, &id)) != GK_OK) return s;
        if (id >= 0) c->decoder_start_id = id;
        if ((s = gk__wsp_cf_id(&gf, "eos_token_id", c->vocab, &id)) != GK_OK) return s;
        if (id >= 0) c->eos_id = id;
        if (!gk_json_is_null(gk_json_get(gen, "is_multilingual"))) {
            if (gk_json_typeof(gk_json_get(gen, "is_multilingual")) != GK_JSON_BOOL)
                return gk__wsp_cf_err(&gf, GK_ERR_FORMAT, "is_multilingual = %s is not true or false", gk__json_show(gk_json_get(gen, "is_multilingual"), vb, sizeof vb));
            c->is_multilingual = gk_json_get_bool(gen, "is_multilingual", 0) ? 1 : -1;
        }
        mi = gk_json_get(gen, "max_initial_timestamp_index");
        if (mi && gk_json_is_null(mi)) c->max_initial_timestamp_index = -1;
        else if ((s = gk__wsp_cf_int(&gf, "max_initial_timestamp_index", 0, 50, 0, INT32_MAX, &c->max_initial_timestamp_index)) != GK_OK) return s;
        cap = gk_json_len(gk_json_get(gen, "suppress_tokens")) + gk_json_len(gk_json_get(gen, "begin_suppress_tokens")) + 2 * gk_json_len(gk_json_get(gen, "alignment_heads"));
        if (!(m->gen_ids = (int32_t *)gk__u_calloc(cap + 1, sizeof(int32_t)))) return gk_error_set(m->ctx, GK_ERR_OUT_OF_MEMORY, "gk_whisper_load: out of host memory");
        if ((s = gk__wsp_cf_list(&gf, "suppress_tokens", c->vocab, 1, 0, m->gen_ids, &at, &n, &given)) != GK_OK) return s;
        if (given) { c->suppress_tokens = m->gen_ids + at - n; c->n_suppress_tokens = n; }
        if ((s = gk__wsp_cf_list(&gf, "begin_suppress_tokens", c->vocab, 0, 0, m->gen_ids, &at, &n, &given)) != GK_OK) return s;
        if (given) { c->begin_suppress_tokens = m->gen_ids + at - n; c->n_begin_suppress_tokens = n; }
        if ((s = gk__wsp_cf_list(&gf, "alignment_heads", INT32_MAX, 0, 1, m->gen_ids, &at, &n, &given)) != GK_OK) return s;
        if (given) {
            size_t k;
            c->alignment_heads = m->gen_ids + at - 2 * n;
            c->n_alignment_heads = n;
            for (k = 0; k < n; k++)
                if (c->alignment_heads[2 * k] >= c->decoder_layers || c->alignment_heads[2 * k + 1] >= c->decoder_heads)
                    return gk__wsp_cf_err(&gf, GK_ERR_FORMAT, "alignment_heads[%llu] = [%d, %d] is outside decoder_layers = %lld, decoder_attention_heads = %lld",
                                          (unsigned long long)k, (int)c->alignment_heads[2 * k], (int)c->alignment_heads[2 * k + 1], (long long)c->decoder_layers,
                                          (long long)c->decoder_heads);
        }
    }
    if (c->decoder_start_id < 0) return gk__wsp_cf_err(&cf, GK_ERR_FORMAT, "decoder_start_token_id is missing (here and in generation_config.json)");
    return GK_OK;
}

/* ---- special tokens from generation_config.json ---- */
typedef struct gk__wsp_lk { const gk_json_value *gen; int32_t eot, sot; } gk__wsp_lk;
static int32_t gk__wsp_lookup(const char *name, void *user) {
    const gk__wsp_lk *k = (const gk__wsp_lk *)user;
    const gk_json_value *g = k->gen;
    int64_t tr = gk_json_get_int(g, "task_to_id.transcribe", -1), nt = gk_json_get_int(g, "no_timestamps_token_id", -1);
    const gk_json_value *v;
    if (strcmp(name, "<|endoftext|>") == 0) return k->eot;
    if (strcmp(name, "<|startoftranscript|>") == 0) return k->sot;
    if (strcmp(name, "<|transcribe|>") == 0) return (int32_t)tr;
    if (strcmp(name, "<|translate|>") == 0) return (int32_t)gk_json_get_int(g, "task_to_id.translate", -1);
    if (strcmp(name, "<|notimestamps|>") == 0) return (int32_t)nt;
    if (strcmp(name, "<|startofprev|>") == 0) {
        int64_t p = gk_json_get_int(g, "prev_sot_token_id", -1);
        return (int32_t)(p >= 0 ? p : tr >= 0 && nt == tr + 4 ? tr + 2 : -1);
    }
    /* OpenAI's order after <|transcribe|>: startoflm, startofprev, nospeech (nocaptions), notimestamps */
    if (strcmp(name, "<|startoflm|>") == 0) return (int32_t)(tr >= 0 && nt == tr + 4 ? tr + 1 : -1);
    if (strcmp(name, "<|nospeech|>") == 0) return (int32_t)(tr >= 0 && nt == tr + 4 ? tr + 3 : -1);
    v = gk_json_get(gk_json_get(g, "lang_to_id"), name);
    if (gk_json_typeof(v) == GK_JSON_INT) return (int32_t)gk_json_int(v, -1);
    return -1;
}

/* ---- the tokenizer of a model folder ---- */
/* s[0..n) as a JSON string's contents */
static gk_status gk__wsp_json_str(gk_buf *b, const char *s, size_t n) {
    gk_status st = GK_OK;
    size_t i, a = 0;
    for (i = 0; i < n && st == GK_OK; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\' || c < 0x20) {
            char e[8];
            if (i > a) st = gk_buf_append(b, s + a, i - a);
            if (c == '"' || c == '\\') { e[0] = '\\'; e[1] = (char)c; e[2] = 0; }
            else snprintf(e, sizeof e, "\\u%04x", c);
            if (st == GK_OK) st = gk__u_buf_puts(b, e);
            a = i + 1;
        }
    }
    if (st == GK_OK && n > a) st = gk_buf_append(b, s + a, n - a);
    return st;
}

GKLLMDEF gk_status gk_whisper_tokenizer_load(const char *dir, gk_tokenizer **out) {
    const char *W = "gk_whisper_tokenizer_load";
    char pv[4200], pm[4200], pa[4200];
    char *voc = NULL, *mer = NULL;
    size_t nv = 0, nm = 0, i, a, line = 0;
    gk_json *vj = NULL, *aj = NULL;
    gk_buf js = {NULL, 0, 0};
    gk_status s;
    int first = 1;
    if (out) *out = NULL;
    if (!dir || !out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", W, !dir ? "dir" : "out");
    if (strlen(dir) > 4000) return GK__U_ERR(GK_ERR_LIMIT, "%s: dir is %llu bytes long (at most 4000)", W, (unsigned long long)strlen(dir));
    snprintf(pv, sizeof pv, "%s/tokenizer.json", dir);
    if (gk__u_file_exists(pv)) return gk_tokenizer_load(pv, out);
    snprintf(pv, sizeof pv, "%s/vocab.json", dir);
    snprintf(pm, sizeof pm, "%s/merges.txt", dir);
    snprintf(pa, sizeof pa, "%s/added_tokens.json", dir);
    if (!gk__u_file_exists(pv) || !gk__u_file_exists(pm))
        return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: %s has no tokenizer.json, nor vocab.json and merges.txt (%s is missing)", W, dir, gk__u_file_exists(pv) ? pm : pv);
    /* vocab.json must be an object of ids; merges.txt lines "a b" after an optional "#version" line */
    if ((s = gk_read_file(pv, 0, &voc, &nv)) != GK_OK) goto done;
    if ((s = gk_json_parse(voc, nv, NULL, &vj)) != GK_OK) goto done;
    if (gk_json_typeof(gk_json_root(vj)) != GK_JSON_OBJECT) { s = GK__U_ERR(GK_ERR_FORMAT, "%s: %s is not a JSON object of token ids", W, pv); goto done; }
    if ((s = gk_read_file(pm, 0, &mer, &nm)) != GK_OK) goto done;
    if (gk__u_file_exists(pa) && (s = gk_json_parse_file(pa, NULL, &aj)) != GK_OK) goto done;
    if (aj && gk_json_typeof(gk_json_root(aj)) != GK_JSON_OBJECT) { s = GK__U_ERR(GK_ERR_FORMAT, "%s: %s is not a JSON object of token ids", W, pa); goto done; }
    /* GPT-2's byte-level BPE (Whisper's), as HF's converter makes tokenizer.json of these files */
    s = gk__u_buf_puts(&js, "{\"model\":{\"type\":\"BPE\",\"vocab\":");
    if (s == GK_OK) s = gk_buf_append(&js, voc, nv);
    if (s == GK_OK) s = gk__u_buf_puts(&js, ",\"merges\":[");
    for (i = 0, a = 0; i <= nm && s == GK_OK; i++) {
        if (i < nm && mer[i] != '\n') continue;
        {
            size_t e = i;
            line++;
            if (e > a && mer[e - 1] == '\r') e--;
            if (e > a && !(line == 1 && mer[a] == '#')) {
                const char *sp = (const char *)memchr(mer + a, ' ', e - a);
                if (!sp || sp == mer + a || sp + 1 == mer + e) {
                    s = GK__U_ERR(GK_ERR_FORMAT, "%s: %s line %llu is not two symbols separated by a space", W, pm, (unsigned long long)line);
                    break;
                }
                s = gk__u_buf_puts(&js, first ? "\"" : ",\"");
                if (s == GK_OK) s = gk__wsp_json_str(&js, mer + a, e - a);
                if (s == GK_OK) s = gk__u_buf_puts(&js, "\"");
                first = 0;
            }
        }
        a = i + 1;
    }
    if (s == GK_OK) s = gk__u_buf_puts(&js, "]},\"pre_tokenizer\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"use_regex\":true},"
                                           "\"decoder\":{\"type\":\"ByteLevel\"},\"added_tokens\":[");
    /* added_tokens.json's entries, and vocab.json's "<|...|>" entries (<|endoftext|>: HF's bos / eos / unk), are special */
    first = 1;
    for (i = 0; s == GK_OK && i < gk_json_len(gk_json_root(vj)) + (aj ? gk_json_len(gk_json_root(aj)) : 0); i++) {
        int in_vocab = i < gk_json_len(gk_json_root(vj));
        const gk_json_value *obj = in_vocab ? gk_json_root(vj) : gk_json_root(aj);
        size_t j = in_vocab ? i : i - gk_json_len(gk_json_root(vj)), kl = 0;
        const char *k = gk_json_key_at(obj, j, &kl);
        const gk_json_value *v = gk_json_at(obj, j);
        char num[48];
        if (in_vocab && !(kl >= 4 && k[0] == '<' && k[1] == '|' && k[kl - 2] == '|' && k[kl - 1] == '>')) continue;
        if (gk_json_typeof(v) != GK_JSON_INT || gk_json_int(v, -1) < 0) {
            s = GK__U_ERR(GK_ERR_FORMAT, "%s: %s: \"%.*s\" is not a token id", W, in_vocab ? pv : pa, (int)(kl < 60 ? kl : 60), k);
            break;
        }
        snprintf(num, sizeof num, "%s{\"id\":%lld,\"content\":\"", first ? "" : ",", (long long)gk_json_int(v, 0));
        first = 0;
        s = gk__u_buf_puts(&js, num);
        if (s == GK_OK) s = gk__wsp_json_str(&js, k, kl);
        if (s == GK_OK) s = gk__u_buf_puts(&js, "\",\"special\":true}");
    }
    if (s == GK_OK) s = gk__u_buf_puts(&js, "]}");
    if (s == GK_OK) {
        gk__u_tl sv;
        gk__u_tl_save(&sv);
        s = gk_tokenizer_load_mem(js.data, js.len, out);
        if (s != GK_OK) {
            char pre[4300];
            snprintf(pre, sizeof pre, "%s: %.3000s + merges.txt: ", W, pv);
            s = gk__u_tl_move(NULL, &sv, s, pre);
        }
    }
done:
    gk_read_file_free(voc);
    gk_read_file_free(mer);
    gk_json_free(vj);
    gk_json_free(aj);
    gk_buf_free(&js);
    return s;
}

static gk_status gk__wsp_tokens(gk_whisper_model *m, const char *dir, const gk_json_value *gen) {
    char path[4200];
    gk_whisper_tokens_desc td;
    gk__u_tl sv;
    gk_status s = GK_OK;
    memset(&td, 0, sizeof td);
    td.vocab = m->cfg.vocab;
    td.multilingual = m->cfg.is_multilingual;
    snprintf(path, sizeof path, "%.4000s/tokenizer.json", dir);
    if (!gk__u_file_exists(path)) snprintf(path, sizeof path, "%.4000s/vocab.json", dir); /* with merges.txt and added_tokens.json */
    gk__u_tl_save(&sv);
    if (gk__u_file_exists(path)) {
        if ((s = gk_whisper_tokenizer_load(dir, &m->tok)) != GK_OK) return gk__u_tl_move(m->ctx, &sv, s, "gk_whisper_load: ");
        if ((int64_t)gk_tokenizer_vocab_size(m->tok) > m->cfg.vocab) {
            gk__u_tl_restore(&sv);
            return gk_error_set(m->ctx, GK_ERR_SHAPE, "gk_whisper_load: %s has ids up to %llu but vocab_size is %lld", path,
                                (unsigned long long)gk_tokenizer_vocab_size(m->tok) - 1, (long long)m->cfg.vocab);
        }
        s = gk_whisper_tokens_from_tokenizer(m->tok, &td, &m->tokens);
        if (s != GK_OK) {
            char pre[4400];
            snprintf(pre, sizeof pre, "gk_whisper_load: %.4000s: ", path);
            return gk__u_tl_move(m->ctx, &sv, s, pre);
        }
        m->has_tokens = 1;
    } else if (gen && gk_json_typeof(gk_json_get(gen, "no_timestamps_token_id")) == GK_JSON_INT && m->cfg.eos_id >= 0) {
        gk__wsp_lk k;
        k.gen = gen; k.eot = m->cfg.eos_id; k.sot = m->cfg.decoder_start_id;
        s = gk_whisper_tokens_from_lookup(&td, gk__wsp_lookup, &k, &m->tokens);
        if (s != GK_OK) {
            char pre[4400];
            snprintf(pre, sizeof pre, "gk_whisper_load: %.4000s/generation_config.json: ", dir);
            return gk__u_tl_move(m->ctx, &sv, s, pre);
        }
        m->has_tokens = 1;
    } else if (gk_whisper_tokens_from_vocab(m->cfg.vocab, &m->tokens) == GK_OK) {
        m->has_tokens = 1;
    }
    gk__u_tl_restore(&sv);
    if (m->has_tokens && m->tokens.sot != m->cfg.decoder_start_id)
        return gk_error_set(m->ctx, GK_ERR_FORMAT, "gk_whisper_load: %s: decoder_start_token_id = %d is not <|startoftranscript|> (%d)", dir, (int)m->cfg.decoder_start_id,
                            (int)m->tokens.sot);
    return GK_OK;
}

/* ---- weights ---- */
typedef struct gk__wsp_want { char name[112]; int nd; int64_t sh[3]; gk_tensor *dst; } gk__wsp_want;
static void gk__wsp_want_add(gk__wsp_want *w, int *n, gk_tensor *dst, int nd, int64_t d0, int64_t d1, int64_t d2, const char *fmt, long long l) {
    snprintf(w[*n].name, sizeof w[*n].name, fmt, l);
    w[*n].nd = nd; w[*n].sh[0] = d0; w[*n].sh[1] = d1; w[*n].sh[2] = d2; w[*n].dst = dst;
    (*n)++;
}

static gk_tensor *gk__wsp_layer_t(gk__wsp_layer *y, int i) {
    gk_tensor *ts[GK__WSP_LAYER_TENSORS] = { &y->ln1_w, &y->ln1_b, &y->wqkv, &y->bqkv, &y->wo, &y->bo, &y->lnx_w, &y->lnx_b, &y->xq, &y->xbq, &y->xkv, &y->xbkv,
                                             &y->xo, &y->xbo, &y->ln2_w, &y->ln2_b, &y->fc1, &y->fc1_b, &y->fc2, &y->fc2_b, &y->kv, &y->xcache, &y->tq, &y->tk,
                                             &y->tv, &y->tbq, &y->tbv, &y->txk, &y->txv, &y->txbv };
    return ts[i];
}

GKLLMDEF void gk_whisper_free(gk_whisper_model *m) {
    int64_t l;
    int i;
    gk_ctx *ctx;
    if (!m) return;
    ctx = m->ctx;
    if (m->stream) gk_stream_sync(ctx, m->stream);
    for (l = 0; m->enc && l < m->cfg.encoder_layers; l++)
        for (i = 0; i < GK__WSP_LAYER_TENSORS; i++) gk__llm_free_t(ctx, gk__wsp_layer_t(&m->enc[l], i));
    for (l = 0; m->dec && l < m->cfg.decoder_layers; l++)
        for (i = 0; i < GK__WSP_LAYER_TENSORS; i++) gk__llm_free_t(ctx, gk__wsp_layer_t(&m->dec[l], i));
    if (m->proj.id == m->embed.id) m->proj = gk__u_tnull();
    {
        gk_tensor *ts[13] = { &m->conv1_w, &m->conv1_b, &m->conv2_w, &m->conv2_b, &m->enc_pos, &m->enc_ln_w, &m->enc_ln_b,
                              &m->embed, &m->dec_pos, &m->dec_ln_w, &m->dec_ln_b, &m->proj, &m->mel_filters };
        for (i = 0; i < 13; i++) gk__llm_free_t(ctx, ts[i]);
    }
    {
        gk_tensor *ts[15] = { &m->d_buf, &m->d_src, &m->a_h, &m->a_h2, &m->a_x, &m->a_qkv, &m->a_q, &m->a_att, &m->a_ff, &m->a_lg, &m->a_lg32, &m->a_tmp,
                              &m->a_ex, &m->a_mx, &m->a_lse };
        for (i = 0; i < 15; i++) gk__llm_free_t(ctx, ts[i]);
    }
    if (m->h_lg) gk_host_free(ctx, m->h_lg);
    if (m->h_lse) gk_host_free(ctx, m->h_lse);
    {
        gk__wsp_up *ups[2] = { &m->up_buf, &m->up_src };
        for (i = 0; i < 2; i++) {
            if (ups[i]->busy) gk_event_sync(ctx, ups[i]->ev); /* its upload leaves the buffer first */
            if (ups[i]->h) gk_host_free(ctx, ups[i]->h);
            if (ups[i]->ev) gk_event_destroy(ctx, ups[i]->ev);
        }
    }
    for (i = 0; i < m->ngraphs; i++)
        if (m->graphs[i].g) gk_graph_destroy(ctx, m->graphs[i].g);
    if (m->stream) gk_stream_destroy(ctx, m->stream);
    if (m->tok) gk_tokenizer_free(m->tok);
    gk__u_free(m->enc); gk__u_free(m->dec); gk__u_free(m->len); gk__u_free(m->encoded); gk__u_free(m->gen_ids); gk__u_free(m->align);
    gk__u_free(m);
}

/* the attention / MLP tensors of one layer; pre: "model.encoder.layers.%lld." */
static void gk__wsp_want_layer(gk__wsp_want *w, int *n, gk__wsp_layer *y, int dec, int64_t l, int64_t d, int64_t ffn) {
    const char *p = dec ? "model.decoder.layers.%lld." : "model.encoder.layers.%lld.";
    char f[160];
#define GK__WW(dst, nd, d0, d1, suffix) do { snprintf(f, sizeof f, "%s%s", p, suffix); gk__wsp_want_add(w, n, dst, nd, d0, d1, 0, f, (long long)l); } while (0)
    GK__WW(&y->tq, 2, d, d, "self_attn.q_proj.weight");
    GK__WW(&y->tbq, 1, d, 0, "self_attn.q_proj.bias");
    GK__WW(&y->tk, 2, d, d, "self_attn.k_proj.weight");
    GK__WW(&y->tv, 2, d, d, "self_attn.v_proj.weight");
    GK__WW(&y->tbv, 1, d, 0, "self_attn.v_proj.bias");
    GK__WW(&y->wo, 2, d, d, "self_attn.out_proj.weight");
    GK__WW(&y->bo, 1, d, 0, "self_attn.out_proj.bias");
    GK__WW(&y->ln1_w, 1, d, 0, "self_attn_layer_norm.weight");
    GK__WW(&y->ln1_b, 1, d, 0, "self_attn_layer_norm.bias");
    if (dec) {
        GK__WW(&y->xq, 2, d, d, "encoder_attn.q_proj.weight");
        GK__WW(&y->xbq, 1, d, 0, "encoder_attn.q_proj.bias");
        GK__WW(&y->txk, 2, d, d, "encoder_attn.k_proj.weight");
        GK__WW(&y->txv, 2, d, d, "encoder_attn.v_proj.weight");
        GK__WW(&y->txbv, 1, d, 0, "encoder_attn.v_proj.bias");
        GK__WW(&y->xo, 2, d, d, "encoder_attn.out_proj.weight");
        GK__WW(&y->xbo, 1, d, 0, "encoder_attn.out_proj.bias");
        GK__WW(&y->lnx_w, 1, d, 0, "encoder_attn_layer_norm.weight");
        GK__WW(&y->lnx_b, 1, d, 0, "encoder_attn_layer_norm.bias");
    }
    GK__WW(&y->fc1, 2, ffn, d, "fc1.weight");
    GK__WW(&y->fc1_b, 1, ffn, 0, "fc1.bias");
    GK__WW(&y->fc2, 2, d, ffn, "fc2.weight");
    GK__WW(&y->fc2_b, 1, d, 0, "fc2.bias");
    GK__WW(&y->ln2_w, 1, d, 0, "final_layer_norm.weight");
    GK__WW(&y->ln2_b, 1, d, 0, "final_layer_norm.bias");
#undef GK__WW
}

/* [a; b; c] along dim 0 into *out (a part may be a zero tensor of n elements: zero_n > 0 at that index) */
static gk_status gk__wsp_cat(gk_whisper_model *m, gk_tensor *parts, int np, int zero_at, int64_t zero_n, gk_tensor *out) {
    gk_tensor xs[3], z = gk__u_tnull();
    gk_status s = GK_OK;
    int i, k = 0;
    for (i = 0; i < np + (zero_at >= 0) && s == GK_OK; i++) {
        if (i == zero_at) {
            s = gk_tensor_empty(m->ctx, m->dt, 1, &zero_n, &z);
            if (s == GK_OK) s = gk_fill(m->ctx, z, 0);
            xs[i] = z;
        } else xs[i] = parts[k++];
    }
    if (s == GK_OK) s = gk_concat_new(m->ctx, xs, np + (zero_at >= 0), 0, out);
    if (z.id) gk_tensor_free(m->ctx, z);
    return s;
}

static gk_status gk__wsp_fuse(gk_whisper_model *m, gk__wsp_layer *y, int dec) {
    gk_tensor p[3];
    gk_status s;
    int64_t d = m->cfg.d_model;
    p[0] = y->tq; p[1] = y->tk; p[2] = y->tv;
    if ((s = gk__wsp_cat(m, p, 3, -1, 0, &y->wqkv)) != GK_OK) return s;
    p[0] = y->tbq; p[1] = y->tbv;
    if ((s = gk__wsp_cat(m, p, 2, 1, d, &y->bqkv)) != GK_OK) return s;
    if (dec) {
        p[0] = y->txk; p[1] = y->txv;
        if ((s = gk__wsp_cat(m, p, 2, -1, 0, &y->xkv)) != GK_OK) return s;
        p[0] = y->txbv;
        if ((s = gk__wsp_cat(m, p, 1, 0, d, &y->xbkv)) != GK_OK) return s;
    }
    gk__llm_free_t(m->ctx, &y->tq); gk__llm_free_t(m->ctx, &y->tk); gk__llm_free_t(m->ctx, &y->tv);
    gk__llm_free_t(m->ctx, &y->tbq); gk__llm_free_t(m->ctx, &y->tbv);
    gk__llm_free_t(m->ctx, &y->txk); gk__llm_free_t(m->ctx, &y->txv); gk__llm_free_t(m->ctx, &y->txbv);
    return GK_OK;
}

static gk_status gk__wsp_empty(gk_whisper_model *m, gk_dtype dt, int nd, int64_t d0, int64_t d1, int64_t d2, int64_t d3, gk_tensor *out) {
    int64_t sh[4];
    sh[0] = d0; sh[1] = d1; sh[2] = d2; sh[3] = d3;
    return gk_tensor_empty(m->ctx, dt, nd, sh, out);
}

static gk_status gk__wsp_up_new(gk_whisper_model *m, gk__wsp_up *u, size_t n) {
    gk_status s = gk_host_alloc(m->ctx, n * sizeof(int32_t), (void **)&u->h);
    if (s == GK_OK) memset(u->h, 0, n * sizeof(int32_t));
    if (s == GK_OK) s = gk_event_create(m->ctx, &u->ev);
    return s;
}

GKLLMDEF gk_status gk_whisper_load(gk_ctx *ctx, const char *dir, const gk_whisper_desc *desc, gk_whisper_model **out) {
    gk_whisper_desc d;
    gk_whisper_model *m = NULL;
    gk_json *cj = NULL, *gj = NULL;
    gk_safetensors *st = NULL;
    gk__wsp_want *want = NULL;
    gk__llm_prog prog;
    gk_stream *old = NULL;
    int nw = 0, i, streamed = 0;
    int64_t l, dm, V;
    gk_status s;
    const gk_whisper_config *c;
    char cpath[4200], gpath[4200], wpath[4200];
    if (out) *out = NULL;
    if (!ctx) return gk_error_set(NULL, GK_ERR_INVALID_HANDLE, "gk_whisper_load: ctx is NULL");
    if (!dir) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_load: dir is NULL");
    if (!out) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_load: out is NULL");
    if (!dir[0]) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_load: dir is \"\" (a model folder is needed)");
    if (strlen(dir) > 4000) return gk_error_set(ctx, GK_ERR_LIMIT, "gk_whisper_load: dir is %llu bytes long (at most 4000)", (unsigned long long)strlen(dir));
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    if ((unsigned)d.dtype > (unsigned)GK_LLM_DTYPE_F32)
        return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_load: gk_whisper_desc.dtype = %d is not a gk_llm_dtype (GK_LLM_DTYPE_DEFAULT, _BF16, _F16, _F32)", (int)d.dtype);
    if (d.max_windows < 0 || d.max_windows > 64)
        return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_load: gk_whisper_desc.max_windows = %d must be in 1..64 (0: 1)", d.max_windows);
    if (d.max_beams < 0 || d.max_beams > 16)
        return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_load: gk_whisper_desc.max_beams = %d must be in 1..16 (0: 1)", d.max_beams);
    if (d.max_ctx < 0) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_load: gk_whisper_desc.max_ctx = %lld must be >= 1 (0: max_target_positions)", (long long)d.max_ctx);
    snprintf(cpath, sizeof cpath, "%s/config.json", dir);
    snprintf(gpath, sizeof gpath, "%s/generation_config.json", dir);
    if (!gk__u_file_exists(cpath)) return gk_error_set(ctx, GK_ERR_IO, "gk_whisper_load: %s is missing (not a Hugging Face model folder?)", cpath);
    if (!(m = (gk_whisper_model *)gk__u_calloc(1, sizeof *m))) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_whisper_load: out of host memory");
    m->ctx = ctx;
    switch (d.dtype) {
    case GK_LLM_DTYPE_F16: m->dt = GK_F16; break;
    case GK_LLM_DTYPE_F32: m->dt = GK_F32; break;
    case GK_LLM_DTYPE_BF16: m->dt = GK_BF16; break;
    default: m->dt = gk_ctx_backend(ctx) == GK_BACKEND_CPU ? GK_F32 : GK_BF16; break;
    }
    if ((s = gk__wsp_read_json(ctx, cpath, 0, &cj)) != GK_OK) goto fail;
    if ((s = gk__wsp_read_json(ctx, gpath, 1, &gj)) != GK_OK) goto fail;
    if ((s = gk__wsp_config(m, cpath, gk_json_root(cj), gpath, gj ? gk_json_root(gj) : NULL)) != GK_OK) goto fail;
    c = &m->cfg;
    dm = c->d_model; V = c->vocab;
    m->slots = d.max_windows > 0 ? d.max_windows : 1;
    m->beams = d.max_beams > 0 ? d.max_beams : 1;
    m->rows = m->slots * m->beams;
    m->max_ctx = d.max_ctx > 0 ? d.max_ctx : c->n_text_ctx;
    if (m->max_ctx > c->n_text_ctx) {
        s = gk_error_set(ctx, GK_ERR_LIMIT, "gk_whisper_load: gk_whisper_desc.max_ctx = %lld is above the model's max_target_positions = %lld (%s)", (long long)m->max_ctx,
                         (long long)c->n_text_ctx, cpath);
        goto fail;
    }
    if ((s = gk__wsp_tokens(m, dir, gj ? gk_json_root(gj) : NULL)) != GK_OK) goto fail;
    /* the alignment heads (checked against the config): generation_config.json's, else every head of the last half of the decoder layers (OpenAI's default) */
    {
        size_t k, na = c->alignment_heads ? c->n_alignment_heads : (size_t)((c->decoder_layers - c->decoder_layers / 2) * c->decoder_heads);
        if (!(m->align = (int32_t *)gk__u_malloc(sizeof(int32_t) * 2 * (na ? na : 1)))) {
            s = gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_whisper_load: out of host memory");
            goto fail;
        }
        for (k = 0; k < na; k++) {
            if (c->alignment_heads) {
                m->align[2 * k] = c->alignment_heads[2 * k];
                m->align[2 * k + 1] = c->alignment_heads[2 * k + 1];
            } else {
                m->align[2 * k] = (int32_t)(c->decoder_layers / 2 + (int64_t)k / c->decoder_heads);
                m->align[2 * k + 1] = (int32_t)((int64_t)k % c->decoder_heads);
            }
        }
        m->n_align = na;
    }
    /* the weights: every tensor present, of a float dtype and the config's shape, before any device allocation */
    {
        char p1[4200], p2[4200];
        gk__u_tl sv;
        snprintf(p1, sizeof p1, "%s/model.safetensors", dir);
        snprintf(p2, sizeof p2, "%s/model.safetensors.index.json", dir);
        if (!gk__u_file_exists(p1) && !gk__u_file_exists(p2)) {
            s = gk_error_set(ctx, GK_ERR_IO, "gk_whisper_load: %s has no model.safetensors (nor model.safetensors.index.json)", dir);
            goto fail;
        }
        memcpy(wpath, gk__u_file_exists(p2) ? p2 : p1, sizeof wpath); /* p1, p2 and wpath are of one size */
        gk__u_tl_save(&sv);
        if ((s = gk_st_open(dir, &st)) != GK_OK) { s = gk__u_tl_move(ctx, &sv, s, "gk_whisper_load: "); goto fail; }
    }
    if (!(m->enc = (gk__wsp_layer *)gk__u_calloc((size_t)c->encoder_layers, sizeof *m->enc)) ||
        !(m->dec = (gk__wsp_layer *)gk__u_calloc((size_t)c->decoder_layers, sizeof *m->dec)) ||
        !(want = (gk__wsp_want *)gk__u_calloc((size_t)(c->encoder_layers * 16 + c->decoder_layers * 26 + 16), sizeof *want)) ||
        !(m->len = (int64_t *)gk__u_calloc((size_t)m->rows, sizeof(int64_t))) || !(m->encoded = (int *)gk__u_calloc((size_t)m->slots, sizeof(int)))) {
        s = gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_whisper_load: out of host memory");
        goto fail;
    }
    gk__wsp_want_add(want, &nw, &m->conv1_w, 3, dm, c->n_mels, 3, "model.encoder.conv1.weight", 0);
    gk__wsp_want_add(want, &nw, &m->conv1_b, 1, dm, 0, 0, "model.encoder.conv1.bias", 0);
    gk__wsp_want_add(want, &nw, &m->conv2_w, 3, dm, dm, 3, "model.encoder.conv2.weight", 0);
    gk__wsp_want_add(want, &nw, &m->conv2_b, 1, dm, 0, 0, "model.encoder.conv2.bias", 0);
    gk__wsp_want_add(want, &nw, &m->enc_pos, 2, c->n_audio_ctx, dm, 0, "model.encoder.embed_positions.weight", 0);
    gk__wsp_want_add(want, &nw, &m->enc_ln_w, 1, dm, 0, 0, "model.encoder.layer_norm.weight", 0);
    gk__wsp_want_add(want, &nw, &m->enc_ln_b, 1, dm, 0, 0, "model.encoder.layer_norm.bias", 0);
    for (l = 0; l < c->encoder_layers; l++) gk__wsp_want_layer(want, &nw, &m->enc[l], 0, l, dm, c->encoder_ffn);
    gk__wsp_want_add(want, &nw, &m->embed, 2, V, dm, 0, "model.decoder.embed_tokens.weight", 0);
    gk__wsp_want_add(want, &nw, &m->dec_pos, 2, c->n_text_ctx, dm, 0, "model.decoder.embed_positions.weight", 0);
    gk__wsp_want_add(want, &nw, &m->dec_ln_w, 1, dm, 0, 0, "model.decoder.layer_norm.weight", 0);
    gk__wsp_want_add(want, &nw, &m->dec_ln_b, 1, dm, 0, 0, "model.decoder.layer_norm.bias", 0);
    for (l = 0; l < c->decoder_layers; l++) gk__wsp_want_layer(want, &nw, &m->dec[l], 1, l, dm, c->decoder_ffn);
    if (!c->tie_embeddings) gk__wsp_want_add(want, &nw, &m->proj, 2, V, dm, 0, "proj_out.weight", 0);
    memset(&prog, 0, sizeof prog);
    prog.fn = d.progress; prog.user = d.user;
    for (i = 0; i < nw; i++) {
        const gk_st_tensor_info *ti = gk_st_find(st, want[i].name);
        gk_dtype wd;
        int k, bad = 0;
        if (!ti) {
            s = gk_error_set(ctx, GK_ERR_NOT_FOUND, "gk_whisper_load: tensor %s is missing from %s%s", want[i].name, wpath,
                             strcmp(want[i].name, "proj_out.weight") == 0 ? " (config.json's tie_word_embeddings is false)" : "");
            goto fail;
        }
        if (!gk_st_gk_dtype(ti->dtype, &wd) || (wd != GK_F32 && wd != GK_F16 && wd != GK_BF16)) {
            s = gk_error_set(ctx, GK_ERR_DTYPE, "gk_whisper_load: tensor %s is %s (f32, f16 or bf16 expected)", want[i].name, gk_st_dtype_name(ti->dtype));
            goto fail;
        }
        if (i == 0) m->cfg.weights_dtype = wd;
        if (ti->ndim != want[i].nd) bad = 1;
        for (k = 0; k < want[i].nd && !bad; k++) bad = ti->shape[k] != want[i].sh[k];
        if (bad) {
            char got[160], exp[96];
            size_t o = 0, e = 0;
            got[0] = exp[0] = 0;
            for (k = 0; k < ti->ndim && o < sizeof got - 24; k++) o += (size_t)snprintf(got + o, sizeof got - o, "%s%lld", k ? ", " : "", (long long)ti->shape[k]);
            for (k = 0; k < want[i].nd; k++) e += (size_t)snprintf(exp + e, sizeof exp - e, "%s%lld", k ? ", " : "", (long long)want[i].sh[k]);
            s = gk_error_set(ctx, GK_ERR_SHAPE, "gk_whisper_load: tensor %s has shape [%s]; %s says [%s]", want[i].name, got, cpath, exp);
            goto fail;
        }
        prog.total += ti->numel * gk_dtype_size(m->dt);
    }
    /* upload in the compute dtype, fuse q/k/v, then the caches */
    if ((s = gk_stream_create(ctx, GK_PRIORITY_NORMAL, &m->stream)) != GK_OK) goto fail;
    old = gk_get_stream(ctx);
    gk_set_stream(ctx, m->stream);
    streamed = 1;
    for (i = 0; i < nw && s == GK_OK; i++) {
        const gk_st_tensor_info *ti = gk_st_find(st, want[i].name);
        prog.cur = ti->numel * gk_dtype_size(m->dt);
        s = gk_st_upload(ctx, st, want[i].name, m->dt, want[i].dst, gk__llm_prog_cb, &prog);
        prog.base += prog.cur;
    }
    for (l = 0; l < c->encoder_layers && s == GK_OK; l++) s = gk__wsp_fuse(m, &m->enc[l], 0);
    for (l = 0; l < c->decoder_layers && s == GK_OK; l++) s = gk__wsp_fuse(m, &m->dec[l], 1);
    if (s == GK_OK && !m->proj.id) m->proj = m->embed;
    if (s == GK_OK) s = gk_mel_filters_new(ctx, c->n_mels, 400, 16000.0, 0.0, 8000.0, GK_MEL_NORM_SLANEY, &m->mel_filters);
    for (l = 0; l < c->decoder_layers && s == GK_OK; l++) {
        int64_t H = c->decoder_heads, D = dm / H;
        s = gk__wsp_empty(m, m->dt, 4, m->rows, m->max_ctx, 2 * H, D, &m->dec[l].kv);
        if (s == GK_OK) s = gk_fill(ctx, m->dec[l].kv, 0);
        if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 4, m->slots, c->n_audio_ctx, 2 * H, D, &m->dec[l].xcache);
        if (s == GK_OK) s = gk_fill(ctx, m->dec[l].xcache, 0);
        if (s == GK_ERR_OUT_OF_MEMORY)
            s = gk_error_set(ctx, s, "gk_whisper_load: out of memory for the decoder caches of %d windows and %d rows (%.1f MiB per layer): %s", m->slots, m->rows,
                             (double)(2 * (m->rows * m->max_ctx + m->slots * c->n_audio_ctx) * dm) * (double)gk_dtype_size(m->dt) / 1048576.0, gk_last_error(ctx));
    }
    /* the decode step's buffers */
    if (s == GK_OK) s = gk__wsp_empty(m, GK_I32, 1, 3 * m->rows, 0, 0, 0, &m->d_buf);
    if (s == GK_OK) s = gk_fill(ctx, m->d_buf, 0);
    if (s == GK_OK && m->beams > 1) s = gk__wsp_empty(m, GK_I32, 1, m->beams * m->max_ctx, 0, 0, 0, &m->d_src);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, m->rows, dm, 0, 0, &m->a_h);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, m->rows, dm, 0, 0, &m->a_h2);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, m->rows, dm, 0, 0, &m->a_x);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, m->rows, 3 * dm, 0, 0, &m->a_qkv);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, m->rows, dm, 0, 0, &m->a_q);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, m->rows, dm, 0, 0, &m->a_att);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, m->rows, c->decoder_ffn, 0, 0, &m->a_ff);
    if (s == GK_OK && m->dt != GK_F32) s = gk__wsp_empty(m, m->dt, 2, m->rows, V, 0, 0, &m->a_lg);
    if (s == GK_OK) s = gk__wsp_empty(m, GK_F32, 2, m->rows, V, 0, 0, &m->a_lg32);
    if (s == GK_OK && m->beams > 1) s = gk__wsp_empty(m, m->dt, 4, m->beams, m->max_ctx, 2 * c->decoder_heads, dm / c->decoder_heads, &m->a_tmp);
    if (s == GK_OK) s = gk__wsp_empty(m, GK_F32, 2, m->rows, V, 0, 0, &m->a_ex);
    if (s == GK_OK) s = gk__wsp_empty(m, GK_F32, 2, m->rows, 1, 0, 0, &m->a_mx);
    if (s == GK_OK) s = gk__wsp_empty(m, GK_F32, 2, m->rows, 1, 0, 0, &m->a_lse);
    if (s == GK_OK) s = gk_host_alloc(ctx, sizeof(float) * (size_t)(m->rows * V), (void **)&m->h_lg);
    if (s == GK_OK) s = gk_host_alloc(ctx, sizeof(float) * (size_t)m->rows, (void **)&m->h_lse);
    if (s == GK_OK) s = gk__wsp_up_new(m, &m->up_buf, 3 * (size_t)m->rows);
    if (s == GK_OK && m->beams > 1) s = gk__wsp_up_new(m, &m->up_src, (size_t)(m->beams * m->max_ctx));
    if (s == GK_OK) s = gk_stream_sync(ctx, m->stream);
    if (s != GK_OK) goto fail;
    gk_set_stream(ctx, old);
    gk_st_close(st);
    gk_json_free(cj);
    gk_json_free(gj);
    gk__u_free(want);
    *out = m;
    return GK_OK;
fail:
    if (streamed) gk_set_stream(ctx, old);
    gk_st_close(st);
    gk_json_free(cj);
    gk_json_free(gj);
    gk__u_free(want);
    gk_whisper_free(m);
    return s;
}

GKLLMDEF const gk_whisper_config *gk_whisper_get_config(const gk_whisper_model *m) { return m ? &m->cfg : NULL; }
GKLLMDEF const gk_whisper_tokens *gk_whisper_model_tokens(const gk_whisper_model *m) { return m && m->has_tokens ? &m->tokens : NULL; }
GKLLMDEF const gk_tokenizer *gk_whisper_model_tokenizer(const gk_whisper_model *m) { return m ? m->tok : NULL; }
GKLLMDEF gk_dtype gk_whisper_compute_dtype(const gk_whisper_model *m) { return m ? m->dt : GK_F32; }
GKLLMDEF int gk_whisper_max_windows(const gk_whisper_model *m) { return m ? m->slots : 0; }
GKLLMDEF int64_t gk_whisper_max_ctx(const gk_whisper_model *m) { return m ? m->max_ctx : 0; }
GKLLMDEF int gk_whisper_max_beams(const gk_whisper_model *m) { return m ? m->beams : 0; }
GKLLMDEF int64_t gk_whisper_seq_len(const gk_whisper_model *m, int row) { return m && row >= 0 && row < m->rows ? m->len[row] : -1; }
GKLLMDEF gk_status gk_whisper_set_stream(gk_whisper_model *m, gk_stream *s) {
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "gk_whisper_set_stream: m is NULL");
    m->stream_use = s;
    return GK_OK;
}
static gk_stream *gk__wsp_stream(const gk_whisper_model *m) { return m->stream_use ? m->stream_use : m->stream; }

/* Queues the f32 copy of logits lg (any float dtype; cast on the device when
   it is not f32) into dst on the host, on the model's stream (the current
   one): the caller syncs the stream before reading dst. */
static gk_status gk__wsp_logits_host(gk_whisper_model *m, gk_tensor lg, float *dst) {
    gk_tensor_info info;
    gk_tensor t = gk__u_tnull();
    gk_status s = gk_tensor_info_get(m->ctx, lg, &info);
    if (s == GK_OK && info.dtype != GK_F32) s = gk_cast_new(m->ctx, lg, GK_F32, &t);
    if (s == GK_OK) s = gk_copy_to_host_async(m->ctx, t.id ? t : lg, dst, sizeof(float) * (size_t)info.numel, gk__wsp_stream(m));
    if (t.id) gk_tensor_free(m->ctx, t); /* the pool keeps its storage until the copy is done */
    return s;
}

/* Before u->h is rewritten: waits for its last upload only when no sync of
   that upload's stream has passed it since (gk__wsp_up_synced). */
static gk_status gk__wsp_up_wait(gk_whisper_model *m, gk__wsp_up *u) {
    gk_status s;
    if (!u->busy) return GK_OK;
    if ((s = gk_event_sync(m->ctx, u->ev)) == GK_OK) u->busy = 0;
    return s;
}
/* u->h[0..n) into dst (i32, n elements) on the model's stream, without a
   host sync; u->h stays untouched until gk__wsp_up_wait */
static gk_status gk__wsp_up_send(gk_whisper_model *m, gk__wsp_up *u, gk_tensor dst, size_t n) {
    gk_stream *st = gk__wsp_stream(m);
    gk_status s = gk_copy_from_host_async(m->ctx, dst, u->h, n * sizeof(int32_t), st);
    if (s != GK_OK) return s;
    u->busy = 1;
    u->st = st;
    s = gk_event_record(m->ctx, u->ev, st);
    if (s != GK_OK && gk_stream_sync(m->ctx, st) == GK_OK) u->busy = 0; /* no event marks the copy: the stream's end does */
    return s;
}
/* a sync of stream st has passed every upload queued on it */
static void gk__wsp_up_synced(gk_whisper_model *m, gk_stream *st) {
    if (m->up_buf.busy && m->up_buf.st == st) m->up_buf.busy = 0;
    if (m->up_src.busy && m->up_src.st == st) m->up_src.busy = 0;
}

/* ---- encoder ---- */
/* One attention + MLP block of the encoder or decoder's self part, pre-LN:
   h2 = h + out_proj(attention(LN1(h))), h = h2 + fc2(gelu(fc1(LN2(h2)))).
   The attention between is the caller's (att holds its output). */
static void gk__wsp_mlp(gk_whisper_model *m, gk__lv *V, const gk__wsp_layer *y, gk_tensor h, gk_tensor h2, gk_tensor x, gk_tensor ff) {
    gk_matmul_desc md;
    gk_ctx *ctx = m->ctx;
    GK__LV_DO(V, gk_layer_norm(ctx, x, h2, y->ln2_w, y->ln2_b, 1e-5));
    memset(&md, 0, sizeof md);
    md.bias = y->fc1_b;
    md.act = GK_ACT_GELU;
    GK__LV_DO(V, gk_linear(ctx, ff, x, y->fc1, &md));
    memset(&md, 0, sizeof md);
    md.bias = y->fc2_b;
    md.residual = h2;
    GK__LV_DO(V, gk_linear(ctx, h, ff, y->fc2, &md));
}

/* mel: f32 [B, n_mels, 3000] on the device; windows into slots seq0..seq0+B-1 */
static gk_status gk__wsp_encode(gk_whisper_model *m, gk_tensor mel, int64_t B, int seq0, float *enc_out) {
    const gk_whisper_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t dm = c->d_model, S = c->n_audio_ctx, N = B * S, H = c->encoder_heads, D = dm / H, HD = c->decoder_heads, DD = dm / HD, l, nf = 2 * S;
    gk_tensor xin = gk__u_tnull(), c1 = gk__u_tnull(), c2 = gk__u_tnull(), h = gk__u_tnull(), h2 = gk__u_tnull(), x = gk__u_tnull(), qkv = gk__u_tnull(),
              att = gk__u_tnull(), ff = gk__u_tnull(), none = gk__u_tnull();
    gk__lv V;
    gk_status s = GK_OK;
    int perm[3];
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    if (m->dt != GK_F32) {
        s = gk__wsp_empty(m, m->dt, 3, B, c->n_mels, nf, 0, &xin);
        if (s == GK_OK) s = gk_cast(ctx, xin, mel);
    }
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 3, B, dm, nf, 0, &c1);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 3, B, dm, S, 0, &c2);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, N, dm, 0, 0, &h);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, N, dm, 0, 0, &h2);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, N, dm, 0, 0, &x);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, N, 3 * dm, 0, 0, &qkv);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, N, dm, 0, 0, &att);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, N, c->encoder_ffn, 0, 0, &ff);
    V.st = s;
    /* the convolutions, positions: h [B * 1500, d] */
    GK__LV_DO(&V, gk_conv1d(ctx, c1, m->dt == GK_F32 ? mel : xin, m->conv1_w, m->conv1_b, 1, 1, 1, 1));
    GK__LV_DO(&V, gk_unary(ctx, c1, c1, GK_UNARY_GELU, 0));
    GK__LV_DO(&V, gk_conv1d(ctx, c2, c1, m->conv2_w, m->conv2_b, 2, 1, 1, 1));
    GK__LV_DO(&V, gk_unary(ctx, c2, c2, GK_UNARY_GELU, 0));
    perm[0] = 0; perm[1] = 2; perm[2] = 1;
    {
        gk_tensor h3 = gk__lv_reshape(&V, h, 3, B, S, dm, 0);
        GK__LV_DO(&V, gk_permute(ctx, h3, c2, perm));
        GK__LV_DO(&V, gk_add(ctx, h3, h3, m->enc_pos));
    }
    gk__lv_free(&V);
    for (l = 0; l < c->encoder_layers && V.st == GK_OK; l++) {
        const gk__wsp_layer *y = &m->enc[l];
        gk_matmul_desc md;
        gk_attention_desc ad;
        gk_tensor q5, q, k, v;
        GK__LV_DO(&V, gk_layer_norm(ctx, x, h, y->ln1_w, y->ln1_b, 1e-5));
        memset(&md, 0, sizeof md);
        md.bias = y->bqkv;
        GK__LV_DO(&V, gk_linear(ctx, qkv, x, y->wqkv, &md));
        q5 = gk__lv_reshape(&V, qkv, 4, B, S, 3 * H, D);
        q = gk__lv_slice(&V, q5, 2, 0, H);
        k = gk__lv_slice(&V, q5, 2, H, 2 * H);
        v = gk__lv_slice(&V, q5, 2, 2 * H, 3 * H);
        memset(&ad, 0, sizeof ad);
        GK__LV_DO(&V, gk_attention(ctx, gk__lv_reshape(&V, att, 4, B, S, H, D), q, k, v, &ad));
        memset(&md, 0, sizeof md);
        md.bias = y->bo;
        md.residual = h;
        GK__LV_DO(&V, gk_linear(ctx, h2, att, y->wo, &md));
        gk__wsp_mlp(m, &V, y, h, h2, x, ff);
        gk__lv_free(&V);
    }
    GK__LV_DO(&V, gk_layer_norm(ctx, x, h, m->enc_ln_w, m->enc_ln_b, 1e-5));
    /* each decoder layer's cross-attention K / V of these windows: [B, 1500, 2 H, D] rows of the slots */
    for (l = 0; l < c->decoder_layers && V.st == GK_OK; l++) {
        const gk__wsp_layer *y = &m->dec[l];
        gk_matmul_desc md;
        gk_tensor dst = gk__lv_reshape(&V, gk__lv_slice(&V, y->xcache, 0, seq0, seq0 + B), 2, N, 2 * HD * DD, 0, 0);
        memset(&md, 0, sizeof md);
        md.bias = y->xbkv;
        GK__LV_DO(&V, gk_linear(ctx, dst, x, y->xkv, &md));
        gk__lv_free(&V);
    }
    if (V.st == GK_OK && enc_out) {
        if (m->dt == GK_F32) V.st = gk_copy_to_host(ctx, x, enc_out, (size_t)(N * dm) * sizeof(float));
        else {
            gk_tensor t;
            V.st = gk_cast_new(ctx, x, GK_F32, &t);
            if (V.st == GK_OK) { V.st = gk_copy_to_host(ctx, t, enc_out, (size_t)(N * dm) * sizeof(float)); gk_tensor_free(ctx, t); }
        }
    }
    if (V.st == GK_OK) V.st = gk_stream_sync(ctx, gk__wsp_stream(m));
    gk__lv_free(&V);
    {
        gk_tensor *ts[9] = { &xin, &c1, &c2, &h, &h2, &x, &qkv, &att, &ff };
        int i;
        for (i = 0; i < 9; i++) gk__llm_free_t(ctx, ts[i]);
    }
    (void)none;
    if (V.st == GK_OK) {
        int64_t b;
        for (b = 0; b < B; b++) m->encoded[seq0 + b] = 1;
        for (b = 0; b < B * m->beams; b++) m->len[seq0 * m->beams + b] = 0;
    } else {
        int64_t b;
        for (b = 0; b < B; b++) m->encoded[seq0 + b] = 0; /* K / V may be half written */
        for (b = 0; b < B * m->beams; b++) m->len[seq0 * m->beams + b] = 0;
    }
    return V.st;
}

/* the non-finite values of a host array: the first index, or -1 */
static int64_t gk__wsp_nonfinite(const float *x, int64_t n) {
    int64_t i;
    for (i = 0; i < n; i++)
        if (!(x[i] - x[i] == 0)) return i;
    return -1;
}

GKLLMDEF gk_status gk_whisper_encode_tensor(gk_whisper_model *m, gk_tensor mel, int seq0, float *enc_out) {
    const char *W = "gk_whisper_encode";
    gk_tensor_info ti;
    gk_stream *old;
    gk_tensor mv = gk__u_tnull();
    gk_status s;
    int64_t B;
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if ((s = gk_tensor_info_get(m->ctx, mel, &ti)) != GK_OK) return s;
    if (ti.dtype != GK_F32) return gk_error_set(m->ctx, GK_ERR_DTYPE, "%s: mel is %s (f32 expected)", W, gk_dtype_name(ti.dtype));
    if (!((ti.ndim == 3 && ti.shape[1] == m->cfg.n_mels && ti.shape[2] == 2 * m->cfg.n_audio_ctx) ||
          (ti.ndim == 2 && ti.shape[0] == m->cfg.n_mels && ti.shape[1] == 2 * m->cfg.n_audio_ctx)))
        return gk_error_set(m->ctx, GK_ERR_SHAPE, "%s: mel must be [windows, %lld, %lld] or [%lld, %lld] (num_mel_bins, 3000 frames)", W, (long long)m->cfg.n_mels,
                            (long long)(2 * m->cfg.n_audio_ctx), (long long)m->cfg.n_mels, (long long)(2 * m->cfg.n_audio_ctx));
    B = ti.ndim == 3 ? ti.shape[0] : 1;
    if (B < 1 || seq0 < 0 || seq0 + B > m->slots)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %lld windows from slot %d do not fit the %d slots of the model (gk_whisper_desc.max_windows)", W, (long long)B, seq0,
                            m->slots);
    if (ti.ndim == 2) {
        int64_t sh[3];
        sh[0] = 1; sh[1] = ti.shape[0]; sh[2] = ti.shape[1];
        if ((s = gk_view_reshape(m->ctx, mel, 3, sh, &mv)) != GK_OK) return s;
    }
    old = gk_get_stream(m->ctx);
    gk_set_stream(m->ctx, gk__wsp_stream(m));
    s = gk__wsp_encode(m, mv.id ? mv : mel, B, seq0, enc_out);
    gk_set_stream(m->ctx, old);
    if (mv.id) gk_tensor_free(m->ctx, mv);
    if (s == GK_OK && enc_out) {
        int64_t bad = gk__wsp_nonfinite(enc_out, B * m->cfg.n_audio_ctx * m->cfg.d_model);
        if (bad >= 0)
            return gk_error_set(m->ctx, GK_ERR_FORMAT, "%s: the encoder output is not finite at window %lld, frame %lld: the weights or features hold NaN or infinite values, or "
                                "the activations overflowed the compute dtype", W, (long long)(bad / (m->cfg.n_audio_ctx * m->cfg.d_model)),
                                (long long)(bad / m->cfg.d_model % m->cfg.n_audio_ctx));
    }
    return s;
}

GKLLMDEF gk_status gk_whisper_encode(gk_whisper_model *m, const float *mel, int n, int seq0, float *enc_out) {
    const char *W = "gk_whisper_encode";
    gk_tensor t = gk__u_tnull();
    gk_status s;
    int64_t sh[3];
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!mel) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: mel is NULL", W);
    if (n < 1 || seq0 < 0 || (int64_t)seq0 + n > m->slots)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %d windows from slot %d do not fit the %d slots of the model (gk_whisper_desc.max_windows)", W, n, seq0, m->slots);
    sh[0] = n; sh[1] = m->cfg.n_mels; sh[2] = 2 * m->cfg.n_audio_ctx;
    if ((s = gk_tensor_from_host(m->ctx, GK_F32, 3, sh, mel, &t)) != GK_OK) return s;
    s = gk_whisper_encode_tensor(m, t, seq0, enc_out);
    gk_tensor_free(m->ctx, t);
    return s;
}

/* ---- decoder ---- */
/* The cross-attention probabilities softmax(q k^T / sqrt(D)) over the
   window's frames of the alignment heads, per decoder position: out
   [n_heads][n][n_audio_ctx] on the host, head k of heads[2 k] (layer),
   heads[2 k + 1] (head). */
typedef struct gk__wsp_cap {
    const int32_t *heads;
    size_t n_heads;
    float *out;
} gk__wsp_cap;

static gk_tensor gk__wsp_lv_permute(gk__lv *v, gk_tensor x, int a, int b, int c) {
    gk_tensor t = gk__u_tnull();
    int perm[3];
    if (v->st != GK_OK) return t;
    perm[0] = a; perm[1] = b; perm[2] = c;
    return gk__lv_keep(v, gk_view_permute(v->ctx, x, perm, &t), t);
}
static gk_tensor gk__wsp_lv_contig(gk__lv *v, gk_tensor x) {
    gk_tensor t = gk__u_tnull();
    if (v->st != GK_OK) return t;
    return gk__lv_keep(v, gk_contiguous(v->ctx, x, &t), t);
}

/* layer l's alignment heads: q [n, d] (the cross-attention queries), xc the window's [1, n_audio_ctx, 2 H, D] */
static void gk__wsp_capture(gk_whisper_model *m, gk__lv *V, const gk__wsp_cap *cap, int64_t l, gk_tensor q, gk_tensor xc, int64_t n) {
    const gk_whisper_config *c = &m->cfg;
    int64_t H = c->decoder_heads, D = c->d_model / H, F = c->n_audio_ctx, h;
    size_t k, any = 0;
    gk_tensor qh, kh, sc = gk__u_tnull();
    gk_matmul_desc md;
    float *host = NULL;
    for (k = 0; k < cap->n_heads; k++) any += cap->heads[2 * k] == l;
    if (!any || V->st != GK_OK) return;
    /* [H, n, D] @ [H, D, F] -> [H, n, F] in f32 */
    qh = gk__wsp_lv_contig(V, gk__wsp_lv_permute(V, gk__lv_reshape(V, q, 3, n, H, D, 0), 1, 0, 2));
    kh = gk__wsp_lv_contig(V, gk__wsp_lv_permute(V, gk__lv_reshape(V, gk__lv_slice(V, xc, 2, 0, H), 3, F, H, D, 0), 1, 2, 0));
    if (V->st == GK_OK) {
        int64_t sh[3];
        sh[0] = H; sh[1] = n; sh[2] = F;
        V->st = gk_tensor_empty(m->ctx, GK_F32, 3, sh, &sc);
        if (V->st == GK_OK) gk__lv_keep(V, GK_OK, sc);
    }
    memset(&md, 0, sizeof md);
    md.alpha = 1.0 / sqrt((double)D);
    GK__LV_DO(V, gk_matmul(m->ctx, sc, qh, kh, &md));
    GK__LV_DO(V, gk_softmax(m->ctx, sc, sc));
    if (V->st != GK_OK) return;
    if (!(host = (float *)gk__u_malloc(sizeof(float) * (size_t)(H * n * F)))) {
        V->st = gk_error_set(m->ctx, GK_ERR_OUT_OF_MEMORY, "gk_whisper_cross_weights: out of host memory");
        return;
    }
    V->st = gk_copy_to_host(m->ctx, sc, host, sizeof(float) * (size_t)(H * n * F));
    for (k = 0; k < cap->n_heads && V->st == GK_OK; k++) {
        if (cap->heads[2 * k] != l) continue;
        h = cap->heads[2 * k + 1];
        memcpy(cap->out + k * (size_t)(n * F), host + (size_t)(h * n * F), sizeof(float) * (size_t)(n * F));
    }
    gk__u_free(host);
}

/* ids (host) of decoder row seq at positions len..len+n-1; f32-convertible
   logits [all ? n : 1, vocab] of the compute dtype in *logits; cap (may be
   NULL) gets the alignment heads' cross-attention probabilities */
static gk_status gk__wsp_prefill(gk_whisper_model *m, int seq, const int32_t *ids, int64_t n, int all, gk_tensor *logits, const gk__wsp_cap *cap) {
    const gk_whisper_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t p0 = m->len[seq], i, dm = c->d_model, H = c->decoder_heads, D = dm / H, l;
    int32_t *pos = (int32_t *)gk__u_malloc(sizeof(int32_t) * (size_t)n), p0i = (int32_t)p0;
    gk_tensor ids_d = gk__u_tnull(), pos_d = gk__u_tnull(), start_d = gk__u_tnull(), h = gk__u_tnull(), h2 = gk__u_tnull(), x = gk__u_tnull(), qkv = gk__u_tnull(),
              q = gk__u_tnull(), att = gk__u_tnull(), ff = gk__u_tnull();
    gk__lv V;
    gk_status s;
    int64_t sh1[1];
    *logits = gk__u_tnull();
    if (!pos) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_whisper_decode: out of host memory");
    for (i = 0; i < n; i++) pos[i] = (int32_t)(p0 + i);
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    sh1[0] = n;
    s = gk_tensor_from_host(ctx, GK_I32, 1, sh1, ids, &ids_d);
    if (s == GK_OK) s = gk_tensor_from_host(ctx, GK_I32, 1, sh1, pos, &pos_d);
    sh1[0] = 1;
    if (s == GK_OK) s = gk_tensor_from_host(ctx, GK_I32, 1, sh1, &p0i, &start_d);
    gk__u_free(pos);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, n, dm, 0, 0, &h);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, n, dm, 0, 0, &h2);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, n, dm, 0, 0, &x);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, n, 3 * dm, 0, 0, &qkv);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, n, dm, 0, 0, &q);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, n, dm, 0, 0, &att);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, n, c->decoder_ffn, 0, 0, &ff);
    if (s == GK_OK) s = gk__wsp_empty(m, m->dt, 2, all ? n : 1, c->vocab, 0, 0, logits);
    V.st = s;
    /* token + position embeddings (h2 holds the positions' rows) */
    GK__LV_DO(&V, gk_embedding(ctx, h, m->embed, ids_d));
    GK__LV_DO(&V, gk_embedding(ctx, h2, m->dec_pos, pos_d));
    GK__LV_DO(&V, gk_add(ctx, h, h, h2));
    for (l = 0; l < c->decoder_layers && V.st == GK_OK; l++) {
        const gk__wsp_layer *y = &m->dec[l];
        gk_matmul_desc md;
        gk_attention_desc ad;
        gk_tensor q4, kv, kc, vc, xc, att4;
        /* self-attention: q/k/v, k and v into the cache at p0, causal over rows 0..p0+n */
        GK__LV_DO(&V, gk_layer_norm(ctx, x, h, y->ln1_w, y->ln1_b, 1e-5));
        memset(&md, 0, sizeof md);
        md.bias = y->bqkv;
        GK__LV_DO(&V, gk_linear(ctx, qkv, x, y->wqkv, &md));
        q4 = gk__lv_reshape(&V, qkv, 4, 1, n, 3 * H, D);
        kv = gk__lv_slice(&V, y->kv, 0, seq, seq + 1);
        GK__LV_DO(&V, gk_kv_write(ctx, kv, gk__lv_slice(&V, q4, 2, H, 3 * H), start_d));
        kv = gk__lv_slice(&V, kv, 1, 0, p0 + n);
        kc = gk__lv_slice(&V, kv, 2, 0, H);
        vc = gk__lv_slice(&V, kv, 2, H, 2 * H);
        att4 = gk__lv_reshape(&V, att, 4, 1, n, H, D);
        memset(&ad, 0, sizeof ad);
        ad.causal = 1;
        GK__LV_DO(&V, gk_attention(ctx, att4, gk__lv_slice(&V, q4, 2, 0, H), kc, vc, &ad));
        memset(&md, 0, sizeof md);
        md.bias = y->bo;
        md.residual = h;
        GK__LV_DO(&V, gk_linear(ctx, h2, att, y->wo, &md));
        /* cross-attention to the window's K / V (h2 -> h) */
        GK__LV_DO(&V, gk_layer_norm(ctx, x, h2, y->lnx_w, y->lnx_b, 1e-5));
        memset(&md, 0, sizeof md);
        md.bias = y->xbq;
        GK__LV_DO(&V, gk_linear(ctx, q, x, y->xq, &md));
        xc = gk__lv_slice(&V, y->xcache, 0, seq / m->beams, seq / m->beams + 1);
        if (cap) gk__wsp_capture(m, &V, cap, l, q, xc, n);
        memset(&ad, 0, sizeof ad);
        GK__LV_DO(&V, gk_attention(ctx, att4, gk__lv_reshape(&V, q, 4, 1, n, H, D), gk__lv_slice(&V, xc, 2, 0, H), gk__lv_slice(&V, xc, 2, H, 2 * H), &ad));
        memset(&md, 0, sizeof md);
        md.bias = y->xbo;
        md.residual = h2;
        GK__LV_DO(&V, gk_linear(ctx, h, att, y->xo, &md));
        /* MLP (h -> h2); the next layer starts from h2 */
        gk__wsp_mlp(m, &V, y, h2, h, x, ff);
        gk__lv_free(&V);
        { gk_tensor t = h; h = h2; h2 = t; }
    }
    {
        gk_tensor xl = all ? x : gk__lv_slice(&V, x, 0, n - 1, n);
        GK__LV_DO(&V, gk_layer_norm(ctx, x, h, m->dec_ln_w, m->dec_ln_b, 1e-5));
        GK__LV_DO(&V, gk_linear(ctx, *logits, xl, m->proj, NULL));
    }
    gk__lv_free(&V);
    {
        gk_tensor *ts[10] = { &ids_d, &pos_d, &start_d, &h, &h2, &x, &qkv, &q, &att, &ff };
        for (i = 0; i < 10; i++) gk__llm_free_t(ctx, ts[i]);
    }
    if (V.st != GK_OK) gk__llm_free_t(ctx, logits);
    else m->len[seq] = p0 + n;
    return V.st;
}

GKLLMDEF gk_status gk_whisper_reset(gk_whisper_model *m, int seq) {
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "gk_whisper_reset: m is NULL");
    if (seq < 0 || seq >= m->rows)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_reset: row %d outside 0..%d (max_windows %d x max_beams %d)", seq, m->rows - 1, m->slots, m->beams);
    m->len[seq] = 0;
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_decode(gk_whisper_model *m, int seq, const int32_t *ids, size_t n, int all, float *logits) {
    const char *W = "gk_whisper_decode";
    gk_stream *old;
    gk_tensor lg;
    gk_status s;
    int64_t p0, V;
    size_t i;
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!ids && n) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: ids is NULL but n is %llu", W, (unsigned long long)n);
    if (n == 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: n is 0 (no tokens to run)", W);
    if (seq < 0 || seq >= m->rows)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: row %d outside 0..%d (max_windows %d x max_beams %d)", W, seq, m->rows - 1, m->slots, m->beams);
    if (!m->encoded[seq / m->beams])
        return gk_error_set(m->ctx, GK_ERR_STATE, "%s: row %d's window %d holds no encoded window (gk_whisper_encode first)", W, seq, seq / m->beams);
    if ((int64_t)n > m->max_ctx - m->len[seq])
        return gk_error_set(m->ctx, GK_ERR_LIMIT, "%s: %llu tokens after %lld in row %d exceed the context of %lld tokens", W, (unsigned long long)n, (long long)m->len[seq], seq,
                            (long long)m->max_ctx);
    V = m->cfg.vocab;
    for (i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= V)
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: token id %d at ids[%llu] is outside the vocab [0, %lld)", W, (int)ids[i], (unsigned long long)i, (long long)V);
    old = gk_get_stream(m->ctx);
    gk_set_stream(m->ctx, gk__wsp_stream(m));
    p0 = m->len[seq];
    s = gk__wsp_prefill(m, seq, ids, (int64_t)n, all, &lg, NULL);
    if (s == GK_OK && logits) s = gk__wsp_logits_host(m, lg, logits);
    if (s == GK_OK) s = gk_stream_sync(m->ctx, gk__wsp_stream(m));
    if (s == GK_OK) gk__wsp_up_synced(m, gk__wsp_stream(m));
    gk__llm_free_t(m->ctx, &lg);
    gk_set_stream(m->ctx, old);
    if (s == GK_OK && logits) {
        size_t r, rows = all ? n : 1;
        for (r = 0; r < rows && s == GK_OK; r++) {
            int64_t bad = gk__wsp_nonfinite(logits + r * (size_t)V, V);
            if (bad >= 0)
                s = gk_error_set(m->ctx, GK_ERR_FORMAT, "%s: the logits of position %lld of row %d are not finite (logit %lld): the weights hold NaN or infinite values, or the "
                                 "activations overflowed the compute dtype", W, (long long)(p0 + (int64_t)(all ? r : n - 1)), seq, (long long)bad);
        }
        if (s != GK_OK) m->len[seq] = p0;
    }
    return s;
}

/* ---- the decode step of several rows ---- */
/* One token for rows row0..row0+n-1 from entries 0..n-1 of d_buf's three
   parts (token, position, kv length), logits f32 into a_lg32[0..n);
   attention over the cache rows 0..kv_rows. The rows cover whole windows
   (row0 and n multiples of beams): the cross-attention runs per window with
   its beams as the queries. */
static gk_status gk__wsp_step_ops(gk_whisper_model *m, int row0, int n, int64_t kv_rows) {
    const gk_whisper_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t dm = c->d_model, H = c->decoder_heads, D = dm / H, l, R = m->rows, nb = m->beams, nw = n / m->beams, w0 = row0 / m->beams;
    gk_tensor ids, pos, kvl, h, h2, x, qkv, q, att, ff, lg;
    gk__lv V;
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    ids = gk__lv_slice(&V, m->d_buf, 0, 0, n);
    pos = gk__lv_slice(&V, m->d_buf, 0, R, R + n);
    kvl = gk__lv_slice(&V, m->d_buf, 0, 2 * R, 2 * R + n);
    h = gk__lv_slice(&V, m->a_h, 0, 0, n);
    h2 = gk__lv_slice(&V, m->a_h2, 0, 0, n);
    x = gk__lv_slice(&V, m->a_x, 0, 0, n);
    qkv = gk__lv_slice(&V, m->a_qkv, 0, 0, n);
    q = gk__lv_slice(&V, m->a_q, 0, 0, n);
    att = gk__lv_slice(&V, m->a_att, 0, 0, n);
    ff = gk__lv_slice(&V, m->a_ff, 0, 0, n);
    GK__LV_DO(&V, gk_embedding(ctx, h, m->embed, ids));
    GK__LV_DO(&V, gk_embedding(ctx, h2, m->dec_pos, pos));
    GK__LV_DO(&V, gk_add(ctx, h, h, h2));
    for (l = 0; l < c->decoder_layers && V.st == GK_OK; l++) {
        const gk__wsp_layer *y = &m->dec[l];
        gk_matmul_desc md;
        gk_attention_desc ad;
        gk_tensor q4, kv, xc, att4;
        gk__lv L;
        memset(&L, 0, sizeof L);
        L.ctx = ctx;
        GK__LV_DO(&L, gk_layer_norm(ctx, x, h, y->ln1_w, y->ln1_b, 1e-5));
        memset(&md, 0, sizeof md);
        md.bias = y->bqkv;
        GK__LV_DO(&L, gk_linear(ctx, qkv, x, y->wqkv, &md));
        q4 = gk__lv_reshape(&L, qkv, 4, n, 1, 3 * H, D);
        kv = gk__lv_slice(&L, y->kv, 0, row0, row0 + n);
        GK__LV_DO(&L, gk_kv_write(ctx, kv, gk__lv_slice(&L, q4, 2, H, 3 * H), pos));
        kv = gk__lv_slice(&L, kv, 1, 0, kv_rows);
        att4 = gk__lv_reshape(&L, att, 4, n, 1, H, D);
        memset(&ad, 0, sizeof ad);
        ad.causal = 1;
        ad.kv_lens = kvl;
        GK__LV_DO(&L, gk_attention(ctx, att4, gk__lv_slice(&L, q4, 2, 0, H), gk__lv_slice(&L, kv, 2, 0, H), gk__lv_slice(&L, kv, 2, H, 2 * H), &ad));
        memset(&md, 0, sizeof md);
        md.bias = y->bo;
        md.residual = h;
        GK__LV_DO(&L, gk_linear(ctx, h2, att, y->wo, &md));
        /* cross-attention: each window's beams are its queries */
        GK__LV_DO(&L, gk_layer_norm(ctx, x, h2, y->lnx_w, y->lnx_b, 1e-5));
        memset(&md, 0, sizeof md);
        md.bias = y->xbq;
        GK__LV_DO(&L, gk_linear(ctx, q, x, y->xq, &md));
        xc = gk__lv_slice(&L, y->xcache, 0, w0, w0 + nw);
        memset(&ad, 0, sizeof ad);
        GK__LV_DO(&L, gk_attention(ctx, gk__lv_reshape(&L, att, 4, nw, nb, H, D), gk__lv_reshape(&L, q, 4, nw, nb, H, D), gk__lv_slice(&L, xc, 2, 0, H),
                                   gk__lv_slice(&L, xc, 2, H, 2 * H), &ad));
        memset(&md, 0, sizeof md);
        md.bias = y->xbo;
        md.residual = h2;
        GK__LV_DO(&L, gk_linear(ctx, h, att, y->xo, &md));
        gk__wsp_mlp(m, &L, y, h2, h, x, ff);
        gk__lv_free(&L);
        if (L.st != GK_OK) V.st = L.st;
        { gk_tensor t = h; h = h2; h2 = t; }
    }
    GK__LV_DO(&V, gk_layer_norm(ctx, x, h, m->dec_ln_w, m->dec_ln_b, 1e-5));
    lg = gk__lv_slice(&V, m->dt == GK_F32 ? m->a_lg32 : m->a_lg, 0, 0, n);
    GK__LV_DO(&V, gk_linear(ctx, lg, x, m->proj, NULL));
    if (m->dt != GK_F32) GK__LV_DO(&V, gk_cast(ctx, gk__lv_slice(&V, m->a_lg32, 0, 0, n), lg));
    /* each row's log-sum-exp (non-finite when the row holds NaN or +inf, or only -inf) */
    {
        gk_tensor l32 = gk__lv_slice(&V, m->a_lg32, 0, 0, n), ex = gk__lv_slice(&V, m->a_ex, 0, 0, n), mx = gk__lv_slice(&V, m->a_mx, 0, 0, n),
                  lse = gk__lv_slice(&V, m->a_lse, 0, 0, n);
        GK__LV_DO(&V, gk_reduce(ctx, mx, l32, GK_REDUCE_MAX, 1, 1));
        GK__LV_DO(&V, gk_sub(ctx, ex, l32, mx));
        GK__LV_DO(&V, gk_unary(ctx, ex, ex, GK_UNARY_EXP, 0));
        GK__LV_DO(&V, gk_reduce(ctx, lse, ex, GK_REDUCE_SUM, 1, 1));
        GK__LV_DO(&V, gk_unary(ctx, lse, lse, GK_UNARY_LOG, 0));
        GK__LV_DO(&V, gk_add(ctx, lse, lse, mx));
    }
    gk__lv_free(&V);
    return V.st;
}

/* the step as a graph replay (captured on a key's second use) */
static gk_status gk__wsp_step(gk_whisper_model *m, int row0, int n, int64_t kv_rows) {
    gk_stream *st = gk__wsp_stream(m);
    gk__wsp_graph *e = NULL;
    gk_graph *g = NULL;
    gk_status s, s2;
    int i;
    for (i = 0; i < m->ngraphs; i++)
        if (m->graphs[i].row0 == row0 && m->graphs[i].n == n && m->graphs[i].kv_rows == kv_rows) { e = &m->graphs[i]; break; }
    if (!e) {
        if (m->ngraphs == GK__WSP_GRAPHS) return gk__wsp_step_ops(m, row0, n, kv_rows); /* every key held: op by op */
        e = &m->graphs[m->ngraphs++];
        e->row0 = row0; e->n = n; e->kv_rows = kv_rows; e->warm = 1; e->g = NULL;
        return gk__wsp_step_ops(m, row0, n, kv_rows);
    }
    if (e->g) return gk_graph_launch(m->ctx, e->g, st);
    if ((s = gk_graph_begin(m->ctx, st)) != GK_OK) return s;
    s = gk__wsp_step_ops(m, row0, n, kv_rows);
    s2 = gk_graph_end(m->ctx, st, &g);
    if (s == GK_OK) s = s2;
    if (s != GK_OK) { if (g) gk_graph_destroy(m->ctx, g); return s; }
    e->g = g;
    return gk_graph_launch(m->ctx, g, st);
}

GKLLMDEF gk_status gk_whisper_decode_step(gk_whisper_model *m, int row0, int n, const int32_t *ids, float *logits, float *lse) {
    const char *W = "gk_whisper_decode_step";
    gk_stream *old;
    gk_status s;
    int64_t V, need = 1, kv_rows = 128;
    int i, R;
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    m->step_n = 0;
    if (!ids) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: ids is NULL", W);
    R = m->rows;
    if (n < 1 || row0 < 0 || row0 > R - n)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: rows %d..%d are outside the model's %d rows (max_windows %d x max_beams %d)", W, row0, row0 + n - 1, R,
                            m->slots, m->beams);
    if (row0 % m->beams || n % m->beams)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: rows %d..%d do not cover whole windows (%d rows each: row0 and n must be multiples of max_beams)", W, row0,
                            row0 + n - 1, m->beams);
    V = m->cfg.vocab;
    for (i = 0; i < n; i++) {
        int r = row0 + i;
        if (!m->encoded[r / m->beams]) return gk_error_set(m->ctx, GK_ERR_STATE, "%s: row %d's window %d holds no encoded window (gk_whisper_encode first)", W, r, r / m->beams);
        if (ids[i] >= V) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: token id %d at ids[%d] is outside the vocab [0, %lld)", W, (int)ids[i], i, (long long)V);
        if (ids[i] < 0) continue;
        if (m->len[r] == 0) return gk_error_set(m->ctx, GK_ERR_STATE, "%s: row %d is empty (gk_whisper_decode runs its prompt first)", W, r);
        if (m->len[r] >= m->max_ctx)
            return gk_error_set(m->ctx, GK_ERR_LIMIT, "%s: row %d holds %lld tokens: its context of %lld tokens is full", W, r, (long long)m->len[r], (long long)m->max_ctx);
        if (m->len[r] + 1 > need) need = m->len[r] + 1;
    }
    /* token, position and kv length of each row, uploaded without a host
       sync from the model's page-locked buffer (the last step's sync has
       passed its upload); a skipped row (id < 0) runs token 0 at its length
       without keeping it */
    if ((s = gk__wsp_up_wait(m, &m->up_buf)) != GK_OK) return s;
    for (i = 0; i < n; i++) {
        int64_t L = m->len[row0 + i];
        m->up_buf.h[i] = ids[i] < 0 ? 0 : ids[i];
        m->up_buf.h[R + i] = (int32_t)(L < m->max_ctx ? L : m->max_ctx - 1);
        m->up_buf.h[2 * R + i] = (int32_t)(L < m->max_ctx ? L + 1 : m->max_ctx);
    }
    while (kv_rows < need) kv_rows <<= 1;
    if (kv_rows > m->max_ctx) kv_rows = m->max_ctx;
    old = gk_get_stream(m->ctx);
    gk_set_stream(m->ctx, gk__wsp_stream(m));
    s = gk__wsp_up_send(m, &m->up_buf, m->d_buf, 3 * (size_t)R);
    if (s == GK_OK) s = gk__wsp_step(m, row0, n, kv_rows);
    if (s == GK_OK) {
        gk_tensor t = gk__u_tnull(), u = gk__u_tnull();
        s = gk_view_slice(m->ctx, m->a_lg32, 0, 0, n, 1, &t);
        if (s == GK_OK) s = gk_view_slice(m->ctx, m->a_lse, 0, 0, n, 1, &u);
        if (s == GK_OK) s = gk__wsp_logits_host(m, t, m->h_lg);
        if (s == GK_OK) s = gk_copy_to_host_async(m->ctx, u, m->h_lse, sizeof(float) * (size_t)n, gk__wsp_stream(m));
        if (s == GK_OK) s = gk_stream_sync(m->ctx, gk__wsp_stream(m));
        if (s == GK_OK) gk__wsp_up_synced(m, gk__wsp_stream(m));
        if (t.id) gk_tensor_free(m->ctx, t);
        if (u.id) gk_tensor_free(m->ctx, u);
    }
    gk_set_stream(m->ctx, old);
    if (s != GK_OK) return s;
    m->step_n = n;
    /* a row's log-sum-exp is finite unless it holds NaN or +inf (or only -inf): then find the entry */
    for (i = 0; i < n; i++) {
        int64_t bad;
        if (ids[i] < 0 || m->h_lse[i] - m->h_lse[i] == 0) continue;
        bad = gk__wsp_nonfinite(m->h_lg + (size_t)i * (size_t)V, V);
        m->step_n = 0;
        return gk_error_set(m->ctx, GK_ERR_FORMAT, "%s: the logits of position %lld of row %d are not finite (logit %lld%s): the weights hold NaN or infinite values, or the "
                            "activations overflowed the compute dtype", W, (long long)m->len[row0 + i], row0 + i, (long long)bad, bad < 0 ? ": all -inf" : "");
    }
    if (logits) memcpy(logits, m->h_lg, sizeof(float) * (size_t)(n * V));
    if (lse) memcpy(lse, m->h_lse, sizeof(float) * (size_t)n);
    for (i = 0; i < n; i++)
        if (ids[i] >= 0) m->len[row0 + i]++;
    return GK_OK;
}

GKLLMDEF int gk_whisper_step_logits(const gk_whisper_model *m, const float **logits, const float **lse) {
    if (logits) *logits = m && m->step_n ? m->h_lg : NULL;
    if (lse) *lse = m && m->step_n ? m->h_lse : NULL;
    return m ? m->step_n : 0;
}

GKLLMDEF gk_status gk_whisper_reorder(gk_whisper_model *m, int window, const int32_t *src) {
    const char *W = "gk_whisper_reorder";
    int64_t lens[16], l, L = 0, p, C, H2, D;
    int i, ident = 1, B;
    gk_stream *old;
    gk_status s = GK_OK;
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!src) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: src is NULL", W);
    if (window < 0 || window >= m->slots)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: window %d outside 0..%d (gk_whisper_desc.max_windows)", W, window, m->slots - 1);
    B = m->beams;
    for (i = 0; i < B; i++) {
        if (src[i] < 0 || src[i] >= B) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: src[%d] = %d is outside the window's rows 0..%d", W, i, (int)src[i], B - 1);
        ident &= src[i] == i;
    }
    if (ident) return GK_OK;
    /* Only the filled positions move: the first L of each row, L the longest
       of the new lengths (a shorter row's positions past its length are
       never read). Each layer gathers rows src[i]'s positions into a_tmp
       (one index_select over the window's cache as [B * max_ctx, 2 H D]
       rows) and copies them back (one strided copy). */
    for (i = 0; i < B; i++) {
        lens[i] = m->len[window * B + src[i]];
        if (lens[i] > L) L = lens[i];
    }
    C = m->max_ctx;
    H2 = 2 * m->cfg.decoder_heads;
    D = m->cfg.d_model / m->cfg.decoder_heads;
    if (L > 0) {
        if ((s = gk__wsp_up_wait(m, &m->up_src)) != GK_OK) return s;
        for (i = 0; i < B; i++)
            for (p = 0; p < L; p++) m->up_src.h[(int64_t)i * L + p] = (int32_t)(src[i] * C + p);
        old = gk_get_stream(m->ctx);
        gk_set_stream(m->ctx, gk__wsp_stream(m));
        {
            gk__lv V;
            gk_tensor idx, tmp;
            memset(&V, 0, sizeof V);
            V.ctx = m->ctx;
            idx = gk__lv_slice(&V, m->d_src, 0, 0, B * L);
            tmp = gk__lv_slice(&V, gk__lv_reshape(&V, m->a_tmp, 2, B * C, H2 * D, 0, 0), 0, 0, B * L);
            if (V.st == GK_OK) V.st = gk__wsp_up_send(m, &m->up_src, idx, (size_t)(B * L));
            for (l = 0; l < m->cfg.decoder_layers && V.st == GK_OK; l++) {
                gk__lv Y;
                gk_tensor win;
                memset(&Y, 0, sizeof Y);
                Y.ctx = m->ctx;
                win = gk__lv_slice(&Y, m->dec[l].kv, 0, (int64_t)window * B, (int64_t)(window + 1) * B);
                GK__LV_DO(&Y, gk_index_select(m->ctx, tmp, gk__lv_reshape(&Y, win, 2, B * C, H2 * D, 0, 0), 0, idx));
                GK__LV_DO(&Y, gk_copy(m->ctx, gk__lv_slice(&Y, win, 1, 0, L), gk__lv_reshape(&Y, tmp, 4, B, L, H2, D)));
                gk__lv_free(&Y);
                V.st = Y.st;
            }
            gk__lv_free(&V);
            s = V.st;
        }
        gk_set_stream(m->ctx, old);
        if (s != GK_OK) return s;
    }
    for (i = 0; i < B; i++) m->len[window * B + i] = lens[i];
    return GK_OK;
}

GKLLMDEF const int32_t *gk_whisper_alignment_heads(const gk_whisper_model *m, size_t *n) {
    if (n) *n = 0;
    if (!m) return NULL;
    if (n) *n = m->n_align;
    return m->align;
}

GKLLMDEF gk_status gk_whisper_cross_weights(gk_whisper_model *m, int row, const int32_t *ids, size_t n, float *weights, float *logits) {
    const char *W = "gk_whisper_cross_weights";
    gk__wsp_cap cap;
    gk_stream *old;
    gk_tensor lg = gk__u_tnull();
    gk_status s;
    int64_t V;
    size_t i;
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!ids || !weights) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", W, !ids ? "ids" : "weights");
    if (n == 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: n is 0 (no tokens to run)", W);
    if (row < 0 || row >= m->rows)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: row %d outside 0..%d (max_windows %d x max_beams %d)", W, row, m->rows - 1, m->slots, m->beams);
    if (!m->encoded[row / m->beams]) return gk_error_set(m->ctx, GK_ERR_STATE, "%s: row %d's window %d holds no encoded window (gk_whisper_encode first)", W, row, row / m->beams);
    if ((int64_t)n > m->max_ctx) return gk_error_set(m->ctx, GK_ERR_LIMIT, "%s: %llu tokens exceed the context of %lld tokens", W, (unsigned long long)n, (long long)m->max_ctx);
    V = m->cfg.vocab;
    for (i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= V)
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: token id %d at ids[%llu] is outside the vocab [0, %lld)", W, (int)ids[i], (unsigned long long)i, (long long)V);
    cap.heads = m->align;
    cap.n_heads = m->n_align;
    cap.out = weights;
    old = gk_get_stream(m->ctx);
    gk_set_stream(m->ctx, gk__wsp_stream(m));
    m->len[row] = 0;
    s = gk__wsp_prefill(m, row, ids, (int64_t)n, 1, &lg, &cap);
    if (s == GK_OK && logits) s = gk__wsp_logits_host(m, lg, logits);
    if (s == GK_OK) s = gk_stream_sync(m->ctx, gk__wsp_stream(m));
    if (s == GK_OK) gk__wsp_up_synced(m, gk__wsp_stream(m));
    gk__llm_free_t(m->ctx, &lg);
    gk_set_stream(m->ctx, old);
    m->len[row] = 0;
    return s;
}

/* ---- log-mel and transcription ---- */
static gk_status gk__wsp_mel(gk_whisper_model *m, const float *samples, size_t n, gk_tensor *mel) {
    gk_ctx *ctx = m->ctx;
    gk_tensor a = gk__u_tnull();
    gk_status s;
    int64_t sh[2], L = (int64_t)(n < 480000 ? n : 480000);
    *mel = gk__u_tnull();
    sh[0] = L;
    if ((s = gk_tensor_from_host(ctx, GK_F32, 1, sh, samples, &a)) != GK_OK) return s;
    sh[0] = m->cfg.n_mels; sh[1] = 2 * m->cfg.n_audio_ctx;
    s = gk_tensor_empty(ctx, GK_F32, 2, sh, mel);
    if (s == GK_OK) s = gk_whisper_log_mel(ctx, *mel, a, m->mel_filters, 480000);
    gk_tensor_free(ctx, a);
    if (s != GK_OK) gk__llm_free_t(ctx, mel);
    return s;
}

GKLLMDEF gk_status gk_whisper_mel(gk_whisper_model *m, const float *samples, size_t n, float *mel) {
    const char *W = "gk_whisper_mel";
    gk_stream *old;
    gk_tensor t;
    gk_status s;
    int64_t cnt, bad;
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!samples || !mel) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", W, !samples ? "samples" : "mel");
    if (n == 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: n is 0 (no audio)", W);
    cnt = m->cfg.n_mels * 2 * m->cfg.n_audio_ctx;
    old = gk_get_stream(m->ctx);
    gk_set_stream(m->ctx, gk__wsp_stream(m));
    s = gk__wsp_mel(m, samples, n, &t);
    if (s == GK_OK) { s = gk_copy_to_host(m->ctx, t, mel, (size_t)cnt * sizeof(float)); gk_tensor_free(m->ctx, t); }
    gk_set_stream(m->ctx, old);
    if (s == GK_OK && (bad = gk__wsp_nonfinite(mel, cnt)) >= 0)
        return gk_error_set(m->ctx, GK_ERR_FORMAT, "%s: the log-mel features are not finite at mel %lld, frame %lld (NaN or infinite samples?)", W,
                            (long long)(bad / (2 * m->cfg.n_audio_ctx)), (long long)(bad % (2 * m->cfg.n_audio_ctx)));
    return s;
}

/* the first largest entry */
static int32_t gk__wsp_argmax(const float *x, int64_t n) {
    int64_t i, b = 0;
    for (i = 1; i < n; i++)
        if (x[i] > x[b]) b = i;
    return (int32_t)b;
}

GKLLMDEF gk_status gk_whisper_transcribe(gk_whisper_model *m, const float *samples, size_t n, const gk_whisper_transcribe_desc *desc, gk_ids *out, gk_whisper_result *res) {
    const char *W = "gk_whisper_transcribe";
    gk_whisper_transcribe_desc d;
    gk_whisper_prompt_desc pd;
    gk_whisper_filter_desc fd;
    gk_whisper_result r;
    gk_ids prompt = { 0, 0, 0 }, sup = { 0, 0, 0 }, got = { 0, 0, 0 };
    gk_tensor mel = gk__u_tnull();
    gk_stream *old;
    float *lg = NULL, *row = NULL;
    const float *raw, *slse;
    double raw_lse, lse_f = 0;
    int32_t sids[16];
    int b, row0;
    gk_status s;
    gk__u_tl sv;
    int64_t V, steps, k, cnt;
    int32_t tok = 0;
    size_t i;
    if (res) memset(res, 0, sizeof *res);
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!out) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (!samples && n) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: samples is NULL but n is %llu", W, (unsigned long long)n);
    if (n == 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: n is 0 (no audio)", W);
    if (!m->has_tokens)
        return gk_error_set(m->ctx, GK_ERR_NOT_FOUND, "%s: the model folder names no special tokens (no tokenizer.json, no no_timestamps_token_id in generation_config.json, "
                            "vocab_size %lld is none of OpenAI's)", W, (long long)m->cfg.vocab);
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    if (d.seq < 0 || d.seq >= m->slots)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_transcribe_desc.seq = %d outside 0..%d", W, d.seq, m->slots - 1);
    if (d.max_tokens < 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_transcribe_desc.max_tokens = %lld is negative", W, (long long)d.max_tokens);
    if (d.custom_suppress && !d.suppress && d.n_suppress)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_transcribe_desc.suppress is NULL but n_suppress is %llu", W, (unsigned long long)d.n_suppress);
    V = m->cfg.vocab;
    memset(&r, 0, sizeof r);
    /* the prompt and the suppress list (context-free parts: their messages move to the context) */
    memset(&pd, 0, sizeof pd);
    pd.language = d.language;
    pd.translate = d.translate;
    pd.without_timestamps = !d.timestamps;
    pd.n_text_ctx = m->cfg.n_text_ctx;
    pd.sample_len = d.max_tokens;
    gk__u_tl_save(&sv);
    s = gk_whisper_prompt(&m->tokens, &pd, &prompt, &r.sot_index, &r.sample_begin);
    if (s == GK_OK) {
        static const int32_t non_speech = -1;
        const int32_t *ids = d.custom_suppress ? d.suppress : m->cfg.suppress_tokens;
        size_t ns = d.custom_suppress ? d.n_suppress : m->cfg.n_suppress_tokens;
        if (!d.custom_suppress && !m->cfg.suppress_tokens && m->tok) { ids = &non_speech; ns = 1; } /* whisper's default: "-1" */
        s = gk_whisper_suppress_list(&m->tokens, ids, ns, m->tok, &sup);
    }
    if (s != GK_OK) {
        char pre[64];
        snprintf(pre, sizeof pre, "%s: ", W);
        s = gk__u_tl_move(m->ctx, &sv, s, pre);
        goto done;
    }
    steps = d.max_tokens > 0 ? d.max_tokens : m->cfg.n_text_ctx / 2;
    if ((int64_t)prompt.len >= m->max_ctx) {
        s = gk_error_set(m->ctx, GK_ERR_LIMIT, "%s: the prompt of %llu tokens leaves no room in the context of %lld tokens", W, (unsigned long long)prompt.len, (long long)m->max_ctx);
        goto done;
    }
    if (!(lg = (float *)gk__u_malloc(sizeof(float) * (size_t)V * prompt.len)) || !(row = (float *)gk__u_malloc(sizeof(float) * (size_t)V))) {
        s = gk_error_set(m->ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
        goto done;
    }
    /* features and encoder */
    old = gk_get_stream(m->ctx);
    gk_set_stream(m->ctx, gk__wsp_stream(m));
    s = gk__wsp_mel(m, samples, n, &mel);
    if (s == GK_OK && d.mel) { /* on the model's stream, which computes the features */
        cnt = m->cfg.n_mels * 2 * m->cfg.n_audio_ctx;
        s = gk_copy_to_host(m->ctx, mel, d.mel, (size_t)cnt * sizeof(float));
    }
    gk_set_stream(m->ctx, old);
    if (s == GK_OK) s = gk_whisper_encode_tensor(m, mel, d.seq, NULL);
    gk__llm_free_t(m->ctx, &mel);
    if (s != GK_OK) goto done;
    /* the prompt (every row: the SOT row gives the no-speech probability) */
    row0 = d.seq * m->beams;
    for (b = 0; b < m->beams; b++) sids[b] = -1;
    if ((s = gk_whisper_decode(m, row0, prompt.data, prompt.len, 1, lg)) != GK_OK) goto done;
    gk__u_tl_save(&sv);
    if (m->tokens.no_speech < 0 || gk_whisper_no_speech_prob(&m->tokens, lg + r.sot_index * (size_t)V, &r.no_speech_prob) != GK_OK) r.no_speech_prob = NAN;
    gk__u_tl_restore(&sv);
    raw = lg + (prompt.len - 1) * (size_t)V;
    raw_lse = gk__wh_lse(raw, 0, V);
    memset(&fd, 0, sizeof fd);
    fd.suppress = sup.data;
    fd.n_suppress = sup.len;
    fd.without_timestamps = !d.timestamps;
    /* generation_config.json's begin_suppress_tokens replace SuppressBlank (HF suppresses that list; whisper's is " " and eot) */
    fd.no_suppress_blank = m->cfg.begin_suppress_tokens != NULL;
    fd.max_initial_timestamp = m->cfg.max_initial_timestamp_index < 0 ? -1.0 : (double)m->cfg.max_initial_timestamp_index * 0.02;
    if (m->cfg.max_initial_timestamp_index == 0) fd.max_initial_timestamp = 1e-9; /* index 0: <|0.00|> only (0 would mean the default) */
    for (k = 0; k < steps; k++) {
        /* HF's order: begin suppression, suppress_tokens, timestamp rules; then the first largest logit */
        gk__u_tl_save(&sv);
        s = GK_OK;
        memcpy(row, raw, sizeof(float) * (size_t)V);
        if (k == 0 && m->cfg.begin_suppress_tokens) s = gk_whisper_suppress(row, V, m->cfg.begin_suppress_tokens, m->cfg.n_begin_suppress_tokens);
        if (s == GK_OK) s = gk_whisper_filter(&m->tokens, &fd, got.data, got.len, row);
        if (s == GK_OK) tok = gk__wsp_argmax(row, V);
        if (s == GK_OK) s = gk_whisper_filtered_lse(raw, row, V, raw_lse, &lse_f);
        if (s != GK_OK) {
            char pre[96];
            snprintf(pre, sizeof pre, "%s: step %lld: ", W, (long long)k);
            s = gk__u_tl_move(m->ctx, &sv, s, pre);
            goto done;
        }
        if (tok == m->tokens.eot) { r.ended = 1; break; }
        r.sum_logprob += (double)row[tok] - lse_f;
        if ((s = gk_ids_push(&got, tok)) != GK_OK) { gk__u_tl_restore(&sv); s = gk_error_set(m->ctx, s, "%s: out of host memory", W); goto done; }
        if (k + 1 == steps || m->len[row0] >= m->max_ctx) break;
        sids[0] = tok;
        if ((s = gk_whisper_decode_step(m, row0, m->beams, sids, NULL, NULL)) != GK_OK) goto done;
        gk_whisper_step_logits(m, &raw, &slse);
        raw_lse = slse[0];
    }
    r.avg_logprob = gk_whisper_avg_logprob(r.sum_logprob, got.len);
    for (i = 0; i < got.len && s == GK_OK; i++) s = gk_ids_push(out, got.data[i]);
    if (s != GK_OK) { out->len -= i; s = gk_error_set(m->ctx, s, "%s: out of host memory", W); }
    if (s == GK_OK && res) *res = r;
done:
    gk_ids_free(&prompt);
    gk_ids_free(&sup);
    gk_ids_free(&got);
    gk__u_free(lg); gk__u_free(row);
    return s;
}

GKLLMDEF gk_status gk_whisper_transcribe_audio(gk_whisper_model *m, const gk_audio *a, const gk_whisper_transcribe_desc *desc, gk_ids *out, gk_whisper_result *res) {
    if (res) memset(res, 0, sizeof *res);
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "gk_whisper_transcribe_audio: m is NULL");
    if (!a) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_transcribe_audio: a is NULL");
    if (a->rate != 16000)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_transcribe_audio: the audio is at %d Hz; Whisper takes 16000 Hz (gk_audio_from_wav resamples to it)", a->rate);
    return gk_whisper_transcribe(m, a->samples, a->n, desc, out, res);
}
/* ======================================================================== */
/* >>impl_whisper_long                                                      */
/* ======================================================================== */
/* The transcribe loop as a batch: each input is a job that walks its audio
   window by window; the jobs' current windows sit in the model's windows
   seq..seq+k-1 and their decoding rows step together (gk_whisper_decode_step).
   A job's window goes: new (features, encoder, language) -> attempt
   (prompt, search at one temperature) -> decoding (steps) -> accepted
   (segments, words, seek) or the next attempt. */

enum { GK__WL_NEW = 0, GK__WL_ATTEMPT, GK__WL_DECODING, GK__WL_DONE };

typedef struct gk__wl_job {
    const float *samples;
    size_t n;
    int64_t frames, seek, size;        /* mel frames; the window's first frame and its frames */
    int window;                        /* model window (rows window * B ..) */
    int state, attempt;
    gk_ids all;                        /* previous text: tokens of the accepted segments */
    size_t reset_since;
    int32_t lang;                      /* the language token (-1: English-only) */
    double last_speech;                /* word timestamps: the end of the last speech */
    gk_whisper_search *search;
    double temperature, nsp;
    size_t sot_index, sample_begin, prompt_len;
    gk_whisper_segments *segs;
    size_t seg0;
    gk_whisper_long_result r;
} gk__wl_job;

typedef struct gk__wl {
    gk_whisper_model *m;
    const gk_whisper_long_desc *d;
    const gk_whisper_config *cfg;
    const gk_whisper_tokens *T;
    const gk_tokenizer *tok;
    gk_whisper_filter_desc fd;
    gk_ids sup, prompt, tmp;
    gk_buf txt;
    int64_t V, max_ctx, steps;
    int B, k;                          /* rows per window; windows in use */
    float *mel, *lg, *lp;              /* features; a window's prompt logits [B][V]; filtered rows [B][V] */
    int32_t *ids;
    int *owner;                        /* per window in use: the job in it, -1 none */
    double done_s, total_s;
} gk__wl;

static gk_status gk__wl_fail(gk__wl *w, const gk__wl_job *j, int idx, gk_status s) {
    const char *msg = gk_last_error(w->m->ctx);
    char *cp = gk__u_strndup(msg ? msg : "", msg ? strlen(msg) : 0);
    s = gk_error_set(w->m->ctx, s, "gk_whisper_transcribe_batch: input %d, window at %lld.%02lld s: %s", idx, (long long)(j->seek / 100), (long long)(j->seek % 100),
                     cp ? cp : "");
    gk__u_free(cp);
    return s;
}
/* a context-free rule's error (thread-local) onto the context, naming the input and window */
static gk_status gk__wl_move(gk__wl *w, const gk__wl_job *j, int idx, gk__u_tl *sv, gk_status s) {
    char pre[160];
    snprintf(pre, sizeof pre, "gk_whisper_transcribe_batch: input %d, window at %lld.%02lld s: ", idx, (long long)(j->seek / 100), (long long)(j->seek % 100));
    return gk__u_tl_move(w->m->ctx, sv, s, pre);
}

/* features and encoder of job j's next window; the language on its first */
static gk_status gk__wl_new_window(gk__wl *w, gk__wl_job *j, int idx) {
    gk_whisper_model *m = w->m;
    size_t off = (size_t)j->seek * 160, len;
    gk_status s;
    j->size = j->frames - j->seek < GK_WHISPER_N_FRAMES ? j->frames - j->seek : GK_WHISPER_N_FRAMES;
    len = (size_t)j->size * 160;
    if (off + len > j->n) len = j->n - off;
    if ((s = gk_whisper_mel(m, j->samples + off, len, w->mel)) != GK_OK) return gk__wl_fail(w, j, idx, s);
    if ((s = gk_whisper_encode(m, w->mel, 1, j->window, NULL)) != GK_OK) return gk__wl_fail(w, j, idx, s);
    if (j->lang == -2) { /* detect: the logits after <|startoftranscript|> over the language tokens (decoding.py's detect_language) */
        int row = j->window * w->B, best = 0;
        gk__u_tl sv;
        if ((s = gk_whisper_decode(m, row, &w->T->sot, 1, 0, w->lg)) != GK_OK) return gk__wl_fail(w, j, idx, s);
        gk_whisper_reset(m, row);
        gk__u_tl_save(&sv);
        if ((s = gk_whisper_detect_language(w->T, w->lg, NULL, &best)) != GK_OK) return gk__wl_move(w, j, idx, &sv, s);
        j->lang = w->T->lang[best];
    }
    j->r.language = j->lang >= 0 ? gk_whisper_lang_of(w->T, j->lang) : NULL;
    j->attempt = 0;
    j->state = GK__WL_ATTEMPT;
    return GK_OK;
}

/* the filters and one search step on the rows' raw logits (lg: [rows][V]) and their log-sum-exp (lse NULL: computed
   here); reorders the rows */
static gk_status gk__wl_search_step(gk__wl *w, gk__wl_job *j, int idx, const float *lg, const float *lse, int first, int *done) {
    gk_whisper_model *m = w->m;
    int r, rows = gk_whisper_search_rows(j->search), ident = 1;
    gk__u_tl sv;
    gk_status s = GK_OK;
    int32_t tk[16], par[16];
    double lf[16] = {0};
    gk__u_tl_save(&sv);
    for (r = 0; r < rows && s == GK_OK; r++) {
        const float *raw = lg + (size_t)r * (size_t)w->V;
        float *row = w->lp + (size_t)r * (size_t)w->V;
        const int32_t *toks;
        size_t nt;
        memcpy(row, raw, sizeof(float) * (size_t)w->V);
        toks = gk_whisper_search_tokens(j->search, r, &nt);
        if (first && w->cfg->begin_suppress_tokens) s = gk_whisper_suppress(row, w->V, w->cfg->begin_suppress_tokens, w->cfg->n_begin_suppress_tokens);
        if (s == GK_OK) s = gk_whisper_filter(w->T, &w->fd, toks, nt, row);
        if (s == GK_OK) s = gk_whisper_filtered_lse(raw, row, w->V, lse ? (double)lse[r] : gk__wh_lse(raw, 0, w->V), &lf[r]);
    }
    if (s == GK_OK) s = gk_whisper_search_step_lse(j->search, w->lp, lf, tk, par, done);
    if (s != GK_OK) return gk__wl_move(w, j, idx, &sv, s);
    for (r = 0; r < rows; r++) {
        w->ids[(j->window - w->d->seq) * w->B + r] = tk[r];
        ident &= par[r] == r;
    }
    if (!ident) {
        int32_t src[16];
        for (r = 0; r < w->B; r++) src[r] = r < rows ? par[r] : r;
        if ((s = gk_whisper_reorder(m, j->window, src)) != GK_OK) return gk__wl_fail(w, j, idx, s);
    }
    return GK_OK;
}

/* a new attempt: the prompt on the window's first row, copied to the search's rows, and the first step */
static gk_status gk__wl_attempt(gk__wl *w, gk__wl_job *j, int idx) {
    gk_whisper_model *m = w->m;
    const gk_whisper_long_desc *d = w->d;
    gk_whisper_prompt_desc pd;
    gk_whisper_search_desc sd;
    int row = j->window * w->B, done = 0, r;
    gk__u_tl sv;
    gk_status s;
    j->temperature = gk_whisper_temperature(&d->thresholds, j->attempt);
    memset(&pd, 0, sizeof pd);
    pd.language = j->r.language;
    pd.translate = d->translate;
    pd.without_timestamps = d->without_timestamps;
    pd.prompt = j->all.data + j->reset_since;
    pd.n_prompt = j->all.len - j->reset_since;
    pd.n_text_ctx = w->max_ctx;
    pd.sample_len = d->max_tokens;
    memset(&sd, 0, sizeof sd);
    sd.vocab = w->V;
    sd.eot = w->T->eot;
    sd.temperature = (float)j->temperature;
    sd.beam_size = d->beam_size;
    sd.best_of = d->best_of;
    sd.patience = d->patience;
    sd.has_length_penalty = d->has_length_penalty;
    sd.length_penalty = d->length_penalty;
    sd.max_tokens = (int)w->steps;
    sd.seed = d->seed + (uint64_t)idx * 1000003u + (uint64_t)j->seek * 7919u + (uint64_t)j->attempt;
    gk_whisper_search_free(j->search);
    j->search = NULL;
    gk__u_tl_save(&sv);
    s = gk_whisper_prompt(w->T, &pd, &w->prompt, &j->sot_index, &j->sample_begin);
    if (s == GK_OK) s = gk_whisper_search_create(&sd, &j->search);
    if (s != GK_OK) return gk__wl_move(w, j, idx, &sv, s);
    if ((int64_t)w->prompt.len >= w->max_ctx)
        return gk_error_set(m->ctx, GK_ERR_LIMIT, "gk_whisper_transcribe_batch: input %d: the prompt of %llu tokens leaves no room in the context of %lld tokens", idx,
                            (unsigned long long)w->prompt.len, (long long)w->max_ctx);
    j->prompt_len = w->prompt.len;
    /* through the SOT row (the no-speech probability), then the rest */
    gk_whisper_reset(m, row);
    if ((s = gk_whisper_decode(m, row, w->prompt.data, j->sot_index + 1, 0, w->lg)) != GK_OK) return gk__wl_fail(w, j, idx, s);
    gk__u_tl_save(&sv);
    if (w->T->no_speech < 0 || gk_whisper_no_speech_prob(w->T, w->lg, &j->nsp) != GK_OK) j->nsp = NAN;
    gk__u_tl_restore(&sv);
    if (w->prompt.len > j->sot_index + 1 &&
        (s = gk_whisper_decode(m, row, w->prompt.data + j->sot_index + 1, w->prompt.len - j->sot_index - 1, 0, w->lg)) != GK_OK)
        return gk__wl_fail(w, j, idx, s);
    /* every row of the search starts from the prompt */
    if (gk_whisper_search_rows(j->search) > 1) {
        int32_t src[16];
        for (r = 0; r < w->B; r++) src[r] = 0;
        if ((s = gk_whisper_reorder(m, j->window, src)) != GK_OK) return gk__wl_fail(w, j, idx, s);
        for (r = 1; r < gk_whisper_search_rows(j->search); r++) memcpy(w->lg + (size_t)r * (size_t)w->V, w->lg, sizeof(float) * (size_t)w->V);
    }
    if ((s = gk__wl_search_step(w, j, idx, w->lg, NULL, 1, &done)) != GK_OK) return s;
    j->state = done ? GK__WL_DONE : GK__WL_DECODING;
    return GK_OK;
}

/* word timestamps of the window's segments from segs->data[first..] */
static gk_status gk__wl_words(gk__wl *w, gk__wl_job *j, int idx, gk_whisper_window *win) {
    gk_whisper_model *m = w->m;
    const gk_whisper_long_desc *d = w->d;
    gk_whisper_words_desc wd;
    size_t i, t, text_row, nh, rows, n_text = 0;
    (void)gk_whisper_alignment_heads(m, &nh);
    double *probs = NULL;
    float *fp = NULL, *lg = NULL, *ww = NULL;
    gk__u_tl sv;
    gk_status s = GK_OK;
    /* [sot (+ language + task)] + <|notimestamps|> + the segments' text tokens + eot */
    w->tmp.len = 0;
    s = gk_ids_push(&w->tmp, w->T->sot);
    if (s == GK_OK && w->T->multilingual) s = gk_ids_push(&w->tmp, j->lang);
    if (s == GK_OK && w->T->multilingual) s = gk_ids_push(&w->tmp, d->translate ? w->T->translate : w->T->transcribe);
    text_row = w->tmp.len;
    if (s == GK_OK) s = gk_ids_push(&w->tmp, w->T->no_timestamps);
    for (i = win->first; i < j->segs->len && s == GK_OK; i++)
        for (t = 0; t < j->segs->data[i].n_tokens && s == GK_OK; t++)
            if (j->segs->data[i].tokens[t] < w->T->eot) { s = gk_ids_push(&w->tmp, j->segs->data[i].tokens[t]); n_text++; }
    if (s == GK_OK) s = gk_ids_push(&w->tmp, w->T->eot);
    if (s != GK_OK) return gk_error_set(m->ctx, s, "gk_whisper_transcribe_batch: out of host memory");
    rows = w->tmp.len;
    if (n_text == 0 || (int64_t)rows > w->max_ctx) return GK_OK; /* no words (or too many tokens to align: none either) */
    if (!(fp = (float *)gk__u_malloc(sizeof(float) * (n_text + 1))) || !(probs = (double *)gk__u_malloc(sizeof(double) * (n_text + 1))) ||
        !(lg = (float *)gk__u_malloc(sizeof(float) * rows * (size_t)w->V)) ||
        !(ww = (float *)gk__u_malloc(sizeof(float) * nh * rows * (size_t)w->cfg->n_audio_ctx))) {
        s = gk_error_set(m->ctx, GK_ERR_OUT_OF_MEMORY, "gk_whisper_transcribe_batch: out of host memory for the word timestamps");
        goto done;
    }
    if ((s = gk_whisper_cross_weights(m, j->window * w->B, w->tmp.data, rows, ww, lg)) != GK_OK) { s = gk__wl_fail(w, j, idx, s); goto done; }
    gk__u_tl_save(&sv);
    for (i = 0; i < n_text && s == GK_OK; i++) {
        s = gk_whisper_text_prob(w->T, lg + (text_row + i) * (size_t)w->V, w->tmp.data[text_row + 1 + i], &probs[i]);
        fp[i] = (float)probs[i];
    }
    if (s == GK_OK) {
        wd = d->words;
        if (!wd.language) wd.language = j->r.language;
        s = gk_whisper_add_words(w->T, w->tok, &wd, ww, (int)nh, (int64_t)rows, w->cfg->n_audio_ctx, text_row, fp, win, j->segs, &j->last_speech);
    }
    if (s != GK_OK) s = gk__wl_move(w, j, idx, &sv, s);
done:
    gk__u_free(fp);
    gk__u_free(probs);
    gk__u_free(lg);
    gk__u_free(ww);
    return s;
}

/* the search ended: fall back to the next temperature, or accept the window */
static gk_status gk__wl_finish(gk__wl *w, gk__wl_job *j, int idx) {
    gk_whisper_model *m = w->m;
    const gk_whisper_long_desc *d = w->d;
    gk_whisper_window win;
    double sum = 0, avg = 0, cr = NAN;
    size_t i, first;
    gk__u_tl sv;
    gk_status s;
    gk__u_tl_save(&sv);
    if ((s = gk_whisper_search_result(j->search, &w->tmp, &sum, &avg)) != GK_OK) return gk__wl_move(w, j, idx, &sv, s);
    if (w->tok) { /* decoding.py's compression ratio of the text (zlib missing: NaN) */
        gk_ids tx = {0, 0, 0};
        for (i = 0, s = GK_OK; i < w->tmp.len && s == GK_OK; i++)
            if (w->tmp.data[i] < w->T->eot) s = gk_ids_push(&tx, w->tmp.data[i]);
        w->txt.len = 0;
        if (s == GK_OK) s = gk_tokenizer_decode(w->tok, tx.data, tx.len, 0, &w->txt);
        if (s == GK_OK && gk_whisper_compression_ratio(w->txt.data ? w->txt.data : "", w->txt.len, &cr) != GK_OK) cr = NAN;
        gk_ids_free(&tx);
        if (s != GK_OK) return gk__wl_move(w, j, idx, &sv, s);
    }
    gk__u_tl_restore(&sv);
    if (gk_whisper_needs_fallback(&d->thresholds, cr, avg, j->nsp) && gk_whisper_temperature(&d->thresholds, j->attempt + 1) >= 0) {
        j->attempt++;
        j->r.fallbacks++;
        j->state = GK__WL_ATTEMPT;
        return GK_OK;
    }
    j->r.windows++;
    j->r.sampled += (int64_t)w->tmp.len;
    memset(&win, 0, sizeof win);
    win.seek = j->seek;
    win.segment_size = j->size;
    win.temperature = j->temperature;
    win.avg_logprob = avg;
    win.compression_ratio = cr;
    win.no_speech_prob = j->nsp;
    win.words = d->word_timestamps;
    if (gk_whisper_is_no_speech(&d->thresholds, j->nsp, avg)) { /* silence: skip the window */
        j->r.skipped++;
        w->done_s += (double)j->size / 100.0;
        j->seek += j->size;
    } else {
        gk__u_tl_save(&sv);
        if ((s = gk_whisper_segments_add(w->T, w->tok, &win, w->tmp.data, w->tmp.len, j->segs)) != GK_OK) return gk__wl_move(w, j, idx, &sv, s);
        if (win.words && (s = gk__wl_words(w, j, idx, &win)) != GK_OK) return s;
        if (win.next_seek <= j->seek) win.next_seek = j->seek + j->size; /* a window that does not advance moves by its length */
        w->done_s += (double)(win.next_seek - j->seek) / 100.0;
        j->seek = win.next_seek;
        for (first = win.first; first < j->segs->len && s == GK_OK; first++)
            for (i = 0; i < j->segs->data[first].n_tokens && s == GK_OK; i++) s = gk_ids_push(&j->all, j->segs->data[first].tokens[i]);
        if (s != GK_OK) return gk_error_set(m->ctx, s, "gk_whisper_transcribe_batch: out of host memory");
        if (d->no_condition || j->temperature > 0.5) j->reset_since = j->all.len;
    }
    if (d->progress) d->progress(w->done_s, w->total_s, d->user);
    j->state = j->seek < j->frames ? GK__WL_NEW : GK__WL_DONE + 1; /* DONE + 1: the job is over */
    return GK_OK;
}

GKLLMDEF gk_status gk_whisper_transcribe_batch(gk_whisper_model *m, const float *const *samples, const size_t *n, int count, const gk_whisper_long_desc *desc,
                                               gk_whisper_segments *segs, gk_whisper_long_result *res) {
    const char *W = "gk_whisper_transcribe_batch";
    gk_whisper_long_desc d;
    gk__wl w;
    gk__wl_job *jobs = NULL;
    gk__u_tl sv;
    gk_status s = GK_OK;
    int i, next = 0, need_rows;
    size_t t;
    if (res && count > 0) memset(res, 0, sizeof *res * (size_t)count);
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (count < 1) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: count is %d (at least one input)", W, count);
    if (!samples || !n || !segs) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", W, !samples ? "samples" : !n ? "n" : "segs");
    for (i = 0; i < count; i++)
        if (!samples[i] && n[i]) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: samples[%d] is NULL but n[%d] is %llu", W, i, i, (unsigned long long)n[i]);
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    memset(&w, 0, sizeof w);
    w.m = m;
    w.d = &d;
    w.T = gk_whisper_model_tokens(m);
    w.cfg = gk_whisper_get_config(m);
    w.tok = gk_whisper_model_tokenizer(m);
    w.max_ctx = gk_whisper_max_ctx(m);
    w.V = w.cfg->vocab;
    w.B = gk_whisper_max_beams(m);
    if (!w.T)
        return gk_error_set(m->ctx, GK_ERR_NOT_FOUND, "%s: the model folder names no special tokens (no tokenizer.json, no no_timestamps_token_id in generation_config.json, "
                            "vocab_size %lld is none of OpenAI's)", W, (long long)w.V);
    if (d.seq < 0 || d.seq >= gk_whisper_max_windows(m))
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_long_desc.seq = %d outside 0..%d", W, d.seq, gk_whisper_max_windows(m) - 1);
    if (d.max_tokens < 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_long_desc.max_tokens = %lld is negative", W, (long long)d.max_tokens);
    if (d.beam_size < 0 || d.best_of < 0)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_long_desc.%s = %d is negative", W, d.beam_size < 0 ? "beam_size" : "best_of",
                            d.beam_size < 0 ? d.beam_size : d.best_of);
    need_rows = d.beam_size > d.best_of ? d.beam_size : d.best_of;
    if (need_rows > w.B)
        return gk_error_set(m->ctx, GK_ERR_LIMIT, "%s: %s = %d needs %d decoder rows per window; the model was loaded with max_beams %d (gk_whisper_desc.max_beams)", W,
                            d.beam_size >= d.best_of ? "beam_size" : "best_of", need_rows, need_rows, w.B);
    if (d.custom_suppress && !d.suppress && d.n_suppress)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_long_desc.suppress is NULL but n_suppress is %llu", W, (unsigned long long)d.n_suppress);
    if (d.word_timestamps && !w.tok)
        return gk_error_set(m->ctx, GK_ERR_NOT_FOUND, "%s: word_timestamps needs the model folder's tokenizer.json (the words are split from the decoded text)", W);
    if (!d.initial_prompt && d.n_initial_prompt)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_long_desc.initial_prompt is NULL but n_initial_prompt is %llu", W,
                            (unsigned long long)d.n_initial_prompt);
    for (t = 0; t < d.n_initial_prompt; t++)
        if (d.initial_prompt[t] < 0 || d.initial_prompt[t] >= w.V)
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_whisper_long_desc.initial_prompt[%llu] = %d is outside the vocabulary of %lld", W,
                                (unsigned long long)t, (int)d.initial_prompt[t], (long long)w.V);
    w.k = gk_whisper_max_windows(m) - d.seq < count ? gk_whisper_max_windows(m) - d.seq : count;
    w.steps = d.max_tokens > 0 ? d.max_tokens : w.cfg->n_text_ctx / 2;
    if (!(jobs = (gk__wl_job *)gk__u_calloc((size_t)count, sizeof *jobs))) return gk_error_set(m->ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
    for (i = 0; i < count; i++) jobs[i].seg0 = segs[i].len;
    /* the language and the suppress list before any work */
    {
        int32_t lang = -1;
        gk__u_tl_save(&sv);
        if (w.T->multilingual) {
            if (d.language) s = gk_whisper_lang_id(w.T, d.language, &lang);
            else lang = -2; /* detected on each input's first window */
        } else if (d.language && strcmp(d.language, "en") != 0 && strcmp(d.language, "english") != 0 && strcmp(d.language, "English") != 0) {
            s = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "language '%s': the model is English-only", d.language);
        }
        if (s == GK_OK) {
            static const int32_t non_speech = -1;
            const int32_t *ids = d.custom_suppress ? d.suppress : w.cfg->suppress_tokens;
            size_t ns = d.custom_suppress ? d.n_suppress : w.cfg->n_suppress_tokens;
            if (!d.custom_suppress && !w.cfg->suppress_tokens && w.tok) { ids = &non_speech; ns = 1; } /* whisper's default: "-1" */
            s = gk_whisper_suppress_list(w.T, ids, ns, w.tok, &w.sup);
        }
        if (s != GK_OK) {
            char pre[64];
            snprintf(pre, sizeof pre, "%s: ", W);
            s = gk__u_tl_move(m->ctx, &sv, s, pre);
            goto done;
        }
        for (i = 0; i < count; i++) {
            gk__wl_job *j = &jobs[i];
            j->samples = samples[i];
            j->n = n[i];
            j->frames = (int64_t)(n[i] / 160); /* transcribe.py's content_frames */
            j->r.duration = (double)j->frames / 100.0;
            j->lang = lang;
            j->window = -1;
            j->segs = &segs[i];
            j->state = j->frames > 0 ? GK__WL_NEW : GK__WL_DONE + 1;
            w.total_s += j->r.duration;
            for (t = 0; t < d.n_initial_prompt && s == GK_OK; t++) s = gk_ids_push(&j->all, d.initial_prompt[t]);
        }
        if (s != GK_OK) { s = gk_error_set(m->ctx, s, "%s: out of host memory", W); goto done; }
    }
    memset(&w.fd, 0, sizeof w.fd);
    w.fd.without_timestamps = d.without_timestamps;
    w.fd.suppress = w.sup.data;
    w.fd.n_suppress = w.sup.len;
    w.fd.no_suppress_blank = w.cfg->begin_suppress_tokens != NULL; /* as gk_whisper_transcribe: HF's begin_suppress_tokens replace SuppressBlank */
    w.fd.max_initial_timestamp = w.cfg->max_initial_timestamp_index < 0 ? -1.0 : (double)w.cfg->max_initial_timestamp_index * 0.02;
    if (w.cfg->max_initial_timestamp_index == 0) w.fd.max_initial_timestamp = 1e-9;
    if (!(w.mel = (float *)gk__u_malloc(sizeof(float) * (size_t)(w.cfg->n_mels * GK_WHISPER_N_FRAMES))) ||
        !(w.lg = (float *)gk__u_malloc(sizeof(float) * (size_t)w.B * (size_t)w.V)) || !(w.lp = (float *)gk__u_malloc(sizeof(float) * (size_t)w.B * (size_t)w.V)) ||
        !(w.ids = (int32_t *)gk__u_malloc(sizeof(int32_t) * (size_t)(w.k * w.B))) || !(w.owner = (int *)gk__u_malloc(sizeof(int) * (size_t)w.k))) {
        s = gk_error_set(m->ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
        goto done;
    }
    /* the windows d.seq.. go to the first inputs; a window whose job ends takes the next input */
    {
        int *owner = w.owner, slot;
        for (slot = 0; slot < w.k; slot++) owner[slot] = -1;
        for (;;) {
            int any = 0, first_dec = -1, last_dec = -1;
            if (d.cancel && d.cancel(d.user)) {
                s = gk_error_set(m->ctx, GK_ERR_CANCELLED, "%s: cancelled by gk_whisper_long_desc.cancel after %.2f of %.2f s of audio", W, w.done_s, w.total_s);
                break;
            }
            for (slot = 0; slot < w.k && s == GK_OK; slot++) {
                gk__wl_job *j;
                while (owner[slot] < 0 || jobs[owner[slot]].state > GK__WL_DONE) { /* a free window: the next input that has audio */
                    while (next < count && jobs[next].state > GK__WL_DONE) next++;
                    if (next >= count) { owner[slot] = -1; break; }
                    owner[slot] = next;
                    jobs[next].window = d.seq + slot;
                    next++;
                }
                if (owner[slot] < 0) continue;
                any = 1;
                j = &jobs[owner[slot]];
                if (j->state == GK__WL_NEW) s = gk__wl_new_window(&w, j, owner[slot]);
                if (s == GK_OK && j->state == GK__WL_ATTEMPT) s = gk__wl_attempt(&w, j, owner[slot]);
                if (s == GK_OK && j->state == GK__WL_DONE) s = gk__wl_finish(&w, j, owner[slot]);
                if (s == GK_OK && j->state == GK__WL_DECODING) {
                    if (first_dec < 0) first_dec = slot;
                    last_dec = slot;
                }
            }
            if (s != GK_OK || !any) break;
            if (first_dec < 0) continue;
            /* one step of every decoding window's rows (the others' rows are skipped) */
            {
                int r0 = (d.seq + first_dec) * w.B, nr = (last_dec - first_dec + 1) * w.B;
                const float *slg = NULL, *slse = NULL;
                int32_t *ids = w.ids + first_dec * w.B;
                for (slot = first_dec; slot <= last_dec; slot++) {
                    int r, rows = 0;
                    if (owner[slot] >= 0 && jobs[owner[slot]].state == GK__WL_DECODING) {
                        gk__wl_job *j = &jobs[owner[slot]];
                        rows = gk_whisper_search_rows(j->search);
                        if (gk_whisper_seq_len(m, j->window * w.B) >= w.max_ctx) { j->state = GK__WL_DONE; rows = 0; } /* the context is full: take the result */
                    }
                    for (r = rows; r < w.B; r++) w.ids[slot * w.B + r] = -1;
                }
                if ((s = gk_whisper_decode_step(m, r0, nr, ids, NULL, NULL)) != GK_OK) { s = gk__wl_fail(&w, &jobs[owner[first_dec]], owner[first_dec], s); break; }
                gk_whisper_step_logits(m, &slg, &slse);
                for (slot = first_dec; slot <= last_dec && s == GK_OK; slot++) {
                    gk__wl_job *j;
                    int dn = 0;
                    if (owner[slot] < 0) continue;
                    j = &jobs[owner[slot]];
                    if (j->state != GK__WL_DECODING) continue;
                    s = gk__wl_search_step(&w, j, owner[slot], slg + (size_t)(slot - first_dec) * (size_t)w.B * (size_t)w.V, slse + (slot - first_dec) * w.B, 0, &dn);
                    if (s == GK_OK && dn) j->state = GK__WL_DONE;
                }
            }
        }
    }
    if (s == GK_OK && res)
        for (i = 0; i < count; i++) res[i] = jobs[i].r;
done:
    for (i = 0; i < count; i++) {
        if (s != GK_OK) gk__wh_segs_truncate(&segs[i], jobs[i].seg0);
        gk_ids_free(&jobs[i].all);
        gk_whisper_search_free(jobs[i].search);
    }
    gk__u_free(jobs);
    gk_ids_free(&w.sup);
    gk_ids_free(&w.prompt);
    gk_ids_free(&w.tmp);
    gk_buf_free(&w.txt);
    gk__u_free(w.mel); gk__u_free(w.lg); gk__u_free(w.lp); gk__u_free(w.ids); gk__u_free(w.owner);
    return s;
}

GKLLMDEF gk_status gk_whisper_transcribe_long(gk_whisper_model *m, const float *samples, size_t n, const gk_whisper_long_desc *desc, gk_whisper_segments *segs,
                                              gk_whisper_long_result *res) {
    if (res) memset(res, 0, sizeof *res);
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "gk_whisper_transcribe_long: m is NULL");
    if (!segs) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_transcribe_long: segs is NULL");
    if (!samples && n) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_transcribe_long: samples is NULL but n is %llu", (unsigned long long)n);
    {
        static const float none = 0;
        const float *p = samples ? samples : &none;
        return gk_whisper_transcribe_batch(m, &p, &n, 1, desc, segs, res);
    }
}

GKLLMDEF gk_status gk_whisper_transcribe_long_audio(gk_whisper_model *m, const gk_audio *a, const gk_whisper_long_desc *desc, gk_whisper_segments *segs,
                                                    gk_whisper_long_result *res) {
    if (res) memset(res, 0, sizeof *res);
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "gk_whisper_transcribe_long_audio: m is NULL");
    if (!a) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "gk_whisper_transcribe_long_audio: a is NULL");
    if (a->rate != 16000)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT,
                            "gk_whisper_transcribe_long_audio: the audio is at %d Hz; Whisper takes 16000 Hz (gk_audio_from_wav resamples to it)", a->rate);
    return gk_whisper_transcribe_long(m, a->samples, a->n, desc, segs, res);
}
/* >>impl_kokoro_text: Kokoro's vocabulary, phonemes to ids, and the chunker shared by text and phoneme input */

/* ---- vocabulary: code points sorted, with their ids ---- */
struct gk_kokoro_vocab {
    size_t n;
    uint32_t *cp;
    int32_t *id;
};

/* Python's str.isspace, which re's \s follows */
static int gk__kt_space(uint32_t c) {
    return (c >= 9 && c <= 13) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}
/* a line break: \n, \r (\r\n is one, see gk__kt_gap), NEL, LS, PS */
static int gk__kt_newline(uint32_t c) { return c == 10 || c == 13 || c == 0x85 || c == 0x2028 || c == 0x2029; }

/* "'x' (U+0078)" for messages: the character itself when it prints */
static void gk__kt_cpname(uint32_t cp, char *o, size_t cap) {
    char u[5];
    size_t n;
    if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0) || cp > 0x10FFFF || (cp >= 0xD800 && cp < 0xE000)) {
        snprintf(o, cap, "U+%04X", (unsigned)cp);
        return;
    }
    n = gk__u_utf8_enc(cp, u);
    u[n] = 0;
    snprintf(o, cap, "'%s' (U+%04X)", u, (unsigned)cp);
}

static int gk__kt_cmp_u32(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y ? 1 : 0;
}

GKLLMDEF gk_status gk_kokoro_vocab_from_json(const gk_json_value *config, gk_kokoro_vocab **out) {
    const char *F = "gk_kokoro_vocab";
    const gk_json_value *voc, *nt;
    gk_kokoro_vocab *v;
    uint64_t *pairs; /* code point << 32 | id, sorted */
    int64_t n_token = 65536;
    size_t i, n;
    if (out) *out = NULL;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", F);
    if (gk_json_typeof(config) != GK_JSON_OBJECT) return GK__U_ERR(GK_ERR_FORMAT, "%s: config.json is not a JSON object", F);
    nt = gk_json_get(config, "n_token");
    if (nt) {
        if (gk_json_typeof(nt) != GK_JSON_INT || gk_json_int(nt, 0) < 2 || gk_json_int(nt, 0) > 65536)
            return GK__U_ERR(GK_ERR_FORMAT, "%s: config.json: n_token must be an integer in [2, 65536]", F);
        n_token = gk_json_int(nt, 0);
    }
    voc = gk_json_get(config, "vocab");
    if (!voc) return GK__U_ERR(GK_ERR_FORMAT, "%s: config.json has no \"vocab\" object", F);
    if (gk_json_typeof(voc) != GK_JSON_OBJECT) return GK__U_ERR(GK_ERR_FORMAT, "%s: config.json: \"vocab\" is not an object", F);
    n = gk_json_len(voc);
    if (n == 0) return GK__U_ERR(GK_ERR_FORMAT, "%s: config.json: \"vocab\" is empty", F);
    pairs = (uint64_t *)gk__u_calloc(n, sizeof(uint64_t));
    if (!pairs) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", F);
    for (i = 0; i < n; i++) {
        size_t kl = 0;
        const char *k = gk_json_key_at(voc, i, &kl);
        const gk_json_value *val = gk_json_at(voc, i);
        uint32_t cp = 0;
        int dl = gk__u_utf8_dec((const unsigned char *)k, kl, &cp);
        int64_t id;
        if (dl <= 0 || (size_t)dl != kl) {
            gk__u_free(pairs);
            return GK__U_ERR(GK_ERR_FORMAT, "%s: config.json: vocab key %llu (\"%.*s\") is not one code point", F,
                             (unsigned long long)i, (int)(kl > 32 ? 32 : kl), k);
        }
        id = gk_json_int(val, -1);
        if (gk_json_typeof(val) != GK_JSON_INT || id < 1 || id >= n_token) {
            char nm[32];
            gk__kt_cpname(cp, nm, sizeof nm);
            gk__u_free(pairs);
            return GK__U_ERR(GK_ERR_FORMAT, "%s: config.json: vocab %s: the id must be an integer in [1, %lld)", F, nm,
                             (long long)n_token);
        }
        pairs[i] = ((uint64_t)cp << 32) | (uint64_t)id;
    }
    qsort(pairs, n, sizeof(uint64_t), gk__kt_cmp_u32);
    for (i = 1; i < n; i++)
        if ((pairs[i] >> 32) == (pairs[i - 1] >> 32)) {
            char nm[32];
            gk__kt_cpname((uint32_t)(pairs[i] >> 32), nm, sizeof nm);
            gk__u_free(pairs);
            return GK__U_ERR(GK_ERR_FORMAT, "%s: config.json: vocab has %s twice", F, nm);
        }
    v = (gk_kokoro_vocab *)gk__u_calloc(1, sizeof *v);
    if (v) {
        v->cp = (uint32_t *)gk__u_calloc(n, sizeof(uint32_t));
        v->id = (int32_t *)gk__u_calloc(n, sizeof(int32_t));
    }
    if (!v || !v->cp || !v->id) {
        gk_kokoro_vocab_free(v);
        gk__u_free(pairs);
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", F);
    }
    for (i = 0; i < n; i++) {
        v->cp[i] = (uint32_t)(pairs[i] >> 32);
        v->id[i] = (int32_t)(pairs[i] & 0xFFFFFFFFu);
    }
    v->n = n;
    gk__u_free(pairs);
    *out = v;
    return GK_OK;
}

GKLLMDEF gk_status gk_kokoro_vocab_load(const char *path, gk_kokoro_vocab **out) {
    const char *F = "gk_kokoro_vocab_load";
    gk_json *doc = NULL;
    gk_buf p = {NULL, 0, 0};
    gk_status st;
    if (out) *out = NULL;
    if (!path || !out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", F, path ? "out" : "path");
    if ((st = gk__u_buf_puts(&p, path)) != GK_OK) return st;
    if (gk__u_is_dir(path)) {
        if ((st = gk__u_buf_puts(&p, "/config.json")) != GK_OK) {
            gk_buf_free(&p);
            return st;
        }
    }
    st = gk_json_parse_file(p.data, NULL, &doc);
    if (st == GK_OK) {
        st = gk_kokoro_vocab_from_json(gk_json_root(doc), out);
        if (st != GK_OK) {
            char msg[1024];
            gk__u_errcopy(msg, sizeof msg);
            st = GK__U_ERR(st, "%s: %s", p.data, msg);
        }
        gk_json_free(doc);
    }
    gk_buf_free(&p);
    return st;
}

GKLLMDEF void gk_kokoro_vocab_free(gk_kokoro_vocab *v) {
    if (!v) return;
    gk__u_free(v->cp);
    gk__u_free(v->id);
    gk__u_free(v);
}
GKLLMDEF size_t gk_kokoro_vocab_size(const gk_kokoro_vocab *v) { return v ? v->n : 0; }
GKLLMDEF int32_t gk_kokoro_vocab_id(const gk_kokoro_vocab *v, uint32_t cp) {
    size_t lo = 0, hi;
    if (!v) return -1;
    hi = v->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v->cp[mid] < cp) lo = mid + 1;
        else hi = mid;
    }
    return lo < v->n && v->cp[lo] == cp ? v->id[lo] : -1;
}

GKLLMDEF gk_status gk_kokoro_phonemes_to_ids(const gk_kokoro_vocab *v, const char *phonemes, size_t len, unsigned flags,
                                             gk_ids *out, size_t *n_phonemes) {
    const char *F = "gk_kokoro_phonemes_to_ids";
    const unsigned char *s = (const unsigned char *)phonemes;
    size_t i = 0, count = 0, len0;
    if (n_phonemes) *n_phonemes = 0;
    if (!v || !out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", F, v ? "out" : "vocab");
    if (!phonemes && len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: phonemes is NULL but len is %llu", F, (unsigned long long)len);
    if (flags & ~GK_KOKORO_DROP_UNKNOWN) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: unknown flags 0x%x", F, flags);
    len0 = out->len;
    while (i < len) {
        uint32_t cp;
        int k = gk__u_utf8_dec(s + i, len - i, &cp);
        int32_t id;
        if (k <= 0) {
            out->len = len0;
            return GK__U_ERR(GK_ERR_FORMAT, "%s: invalid UTF-8 at byte %llu (0x%02X)", F, (unsigned long long)i, s[i]);
        }
        id = gk_kokoro_vocab_id(v, cp);
        if (id < 0 && !(flags & GK_KOKORO_DROP_UNKNOWN)) {
            char nm[32];
            gk__kt_cpname(cp, nm, sizeof nm);
            out->len = len0;
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT,
                             "%s: %s at byte %llu is not in Kokoro's vocabulary (%llu symbols); "
                             "GK_KOKORO_DROP_UNKNOWN drops such symbols as the reference does",
                             F, nm, (unsigned long long)i, (unsigned long long)v->n);
        }
        if (id >= 0 && gk_ids_push(out, id) != GK_OK) {
            out->len = len0;
            return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", F);
        }
        count++;
        i += (size_t)k;
    }
    if (n_phonemes) *n_phonemes = count;
    return GK_OK;
}

/* ---- the chunker ----
   Input of both front ends: units in order, each a word (or a piece of
   words phonemized together) or a run of marks, with its phonemes (bytes of
   a source string), the whitespace before it and its span in the input. */
enum { GK__KT_WORD = 0, GK__KT_MARK = 1, GK__KT_OPEN = 2 };
typedef struct gk__kt_unit {
    size_t tb, te;      /* span in the input */
    size_t pb, pn;      /* phonemes: bytes [pb, pb + pn) of the source */
    size_t ncp;         /* their code points */
    size_t gb, gn;      /* whitespace before it: source bytes [gb, gb + gn); gn == 0: none */
    int gsyn;           /* the whitespace is written as one space (gn > 0) */
    int kind;           /* GK__KT_WORD, GK__KT_MARK (a run's closing part), GK__KT_OPEN (opening marks) */
    int lv;             /* MARK: the split level after it: 4 . ! ? …, 3 : ;, 2 , —, 1 others */
    int forced;         /* a line break before it: a chunk ends there */
} gk__kt_unit;
typedef struct gk__kt_units {
    gk__kt_unit *u;
    size_t n, cap;
} gk__kt_units;

static gk__kt_unit *gk__kt_push(gk__kt_units *U) {
    gk__kt_unit *u;
    if (U->n == U->cap && !gk__u_grow((void **)&U->u, &U->cap, U->n + 1, sizeof(gk__kt_unit))) return NULL;
    u = &U->u[U->n++];
    memset(u, 0, sizeof *u);
    return u;
}

/* code points of the whitespace before unit u as written */
static size_t gk__kt_gcp(const gk__kt_unit *u) { return u->gn == 0 ? 0 : u->gsyn ? 1 : u->gn; }

/* the split level between units i - 1 and i: 5 forced, 0 never */
static int gk__kt_level(const gk__kt_unit *u, size_t i) {
    if (u[i].forced) return 5;
    if (u[i].kind == GK__KT_MARK) return 0;
    if (u[i - 1].kind == GK__KT_OPEN) return 0;
    if (u[i - 1].kind == GK__KT_MARK) return u[i - 1].lv;
    return u[i].gn ? 1 : 0;
}
/* phoneme code points of units [a, b] as one chunk */
static size_t gk__kt_count(const gk__kt_unit *u, size_t a, size_t b) {
    size_t k, c = 0;
    for (k = a; k <= b; k++) c += u[k].ncp + (k > a ? gk__kt_gcp(&u[k]) : 0);
    return c;
}

/* Cuts the units into chunks of at most max phoneme code points (every unit
   fits: the front ends check) and writes them to *out. src holds the
   phoneme and whitespace bytes. Chunks without a word are left out. */
static gk_status gk__kt_assemble(const char *F, const char *src, const gk__kt_units *U, size_t max, gk_kokoro_chunks *out) {
    const gk__kt_unit *u = U->u;
    size_t *cut = NULL, ncut = 0, capcut = 0; /* chunk ranges: [cut[2j], cut[2j+1]) */
    size_t s = 0, cnt = 0, i, j, total = 0, pos = 0, nchunk = 0;
    memset(out, 0, sizeof *out);
#define GK__KT_EMIT(a, b)                                                                                                   \
    do {                                                                                                                  \
        if (ncut + 2 > capcut && !gk__u_grow((void **)&cut, &capcut, ncut + 2, sizeof(size_t))) goto oom;                 \
        cut[ncut++] = (a);                                                                                                \
        cut[ncut++] = (b);                                                                                                \
    } while (0)
    for (i = 0; i < U->n; i++) {
        size_t add;
        if (i > s && gk__kt_level(u, i) == 5) {
            GK__KT_EMIT(s, i);
            s = i;
            cnt = 0;
        }
        add = u[i].ncp + (i > s ? gk__kt_gcp(&u[i]) : 0);
        if (i > s && cnt + add > max) {
            size_t b = i;
            int L;
            for (L = 4; L >= 1 && b == i; L--) {
                for (j = i; j > s; j--)
                    if (gk__kt_level(u, j) >= L) break;
                if (j > s && gk__kt_count(u, j, i) <= max) b = j;
            }
            GK__KT_EMIT(s, b);
            s = b;
            cnt = gk__kt_count(u, s, i);
        } else
            cnt += add;
    }
    if (U->n > s) GK__KT_EMIT(s, U->n);
#undef GK__KT_EMIT
    /* keep the chunks that hold a word; size the store */
    for (j = 0; j < ncut; j += 2) {
        int word = 0;
        for (i = cut[j]; i < cut[j + 1]; i++)
            if (u[i].kind == GK__KT_WORD && u[i].ncp) word = 1;
        if (!word) {
            cut[j] = cut[j + 1] = 0;
            continue;
        }
        nchunk++;
        for (i = cut[j]; i < cut[j + 1]; i++) total += u[i].pn + (i > cut[j] ? (u[i].gsyn ? (u[i].gn ? 1 : 0) : u[i].gn) : 0);
        total++;
    }
    if (nchunk == 0) {
        gk__u_free(cut);
        return GK_OK;
    }
    out->chunk = (gk_kokoro_chunk *)gk__u_calloc(nchunk, sizeof(gk_kokoro_chunk));
    out->store = (char *)gk__u_malloc(total);
    if (!out->chunk || !out->store) goto oom;
    for (j = 0; j < ncut; j += 2) {
        gk_kokoro_chunk *c;
        size_t a = cut[j], b = cut[j + 1], start = pos;
        if (a == b) continue;
        c = &out->chunk[out->n++];
        for (i = a; i < b; i++) {
            if (i > a && u[i].gn) {
                if (u[i].gsyn) out->store[pos++] = ' ';
                else {
                    memcpy(out->store + pos, src + u[i].gb, u[i].gn);
                    pos += u[i].gn;
                }
            }
            if (u[i].pn) memcpy(out->store + pos, src + u[i].pb, u[i].pn);
            pos += u[i].pn;
        }
        c->phonemes = out->store + start;
        c->phonemes_len = pos - start;
        c->n_phonemes = gk__kt_count(u, a, b - 1);
        c->text_begin = u[a].tb;
        c->text_end = u[b - 1].te;
        out->store[pos++] = 0;
    }
    gk__u_free(cut);
    return GK_OK;
oom:
    gk__u_free(cut);
    gk_kokoro_chunks_free(out);
    return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", F);
}

GKLLMDEF void gk_kokoro_chunks_free(gk_kokoro_chunks *c) {
    if (!c) return;
    gk__u_free(c->chunk);
    gk__u_free(c->store);
    memset(c, 0, sizeof *c);
}

/* the chunk limit of a desc */
static gk_status gk__kt_max(const char *F, const gk_kokoro_chunk_desc *d, size_t *max) {
    *max = d && d->max_phonemes ? d->max_phonemes : GK_KOKORO_MAX_PHONEMES;
    if (*max > GK_KOKORO_MAX_PHONEMES)
        return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: max_phonemes = %llu is above Kokoro's %d", F, (unsigned long long)*max,
                         GK_KOKORO_MAX_PHONEMES);
    if (d && (d->flags & ~GK_KOKORO_JOIN_LINES)) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: unknown flags 0x%x", F, d->flags);
    return GK_OK;
}

/* Whitespace from s[i] on: its end (*end), whether it ends a chunk (*forced:
   a line break, or with join_lines two). Stops at the first other code point. */
static void gk__kt_gap(const unsigned char *s, size_t len, size_t i, int join_lines, size_t *end, int *forced) {
    int breaks = 0;
    while (i < len) {
        uint32_t cp;
        int k = gk__u_utf8_dec(s + i, len - i, &cp);
        if (k <= 0 || !gk__kt_space(cp)) break;
        if (gk__kt_newline(cp) && !(cp == 10 && i > 0 && s[i - 1] == 13)) breaks++;
        i += (size_t)k;
    }
    *end = i;
    *forced = join_lines ? breaks >= 2 : breaks >= 1;
}

/* Kokoro's punctuation (config.json's vocab): 0 none, else its split level */
static int gk__kt_mark_level(uint32_t c) {
    switch (c) {
    case '.': case '!': case '?': case 0x2026: return 4;
    case ':': case ';': return 3;
    case ',': case 0x2014: return 2;
    case '"': case '(': case ')': case 0x201C: case 0x201D: return 1;
    default: return 0;
    }
}

/* Splits the mark run [rb, re) of s (marks, and whitespace between them
   without a chunk-ending break) into a closing part and an opening part
   (trailing opening marks: ( “, " after whitespace or at a run that starts
   after whitespace), appending one or two units. mark_level / is_open
   classify a code point; the phonemes are the run's own bytes (phoneme
   input) or written by the caller (text: units are patched after). */
static gk_status gk__kt_run(const unsigned char *s, size_t rb, size_t re, size_t gb, size_t gn, int forced, int ws_before,
                            int (*mark_level)(uint32_t), gk__kt_units *U, size_t *split) {
    size_t i = rb, open_at = re, last_end = rb;
    int lv = 0, prev_ws = ws_before;
    gk__kt_unit *u;
    /* find where the trailing opening marks start */
    while (i < re) {
        uint32_t cp;
        int k = gk__u_utf8_dec(s + i, re - i, &cp);
        if (k <= 0) break;
        if (gk__kt_space(cp)) prev_ws = 1;
        else {
            int opening = cp == '(' || cp == 0x201C || cp == 0xAB || cp == 0xA1 || cp == 0xBF || cp == '[' || cp == '{' ||
                          (cp == '"' && prev_ws);
            if (opening) {
                if (open_at == re) open_at = i;
            } else {
                open_at = re;
                last_end = i + (size_t)k;
            }
            prev_ws = 0;
        }
        i += (size_t)k;
    }
    /* the closing part's level */
    for (i = rb; i < last_end;) {
        uint32_t cp;
        int k = gk__u_utf8_dec(s + i, last_end - i, &cp);
        int l;
        if (k <= 0) break;
        l = mark_level(cp);
        if (l > lv) lv = l;
        i += (size_t)k;
    }
    *split = open_at;
    if (last_end > rb) {
        if (!(u = gk__kt_push(U))) return GK_ERR_OUT_OF_MEMORY;
        u->kind = GK__KT_MARK;
        u->lv = lv ? lv : 1;
        u->tb = rb;
        u->te = last_end;
        u->gb = gb;
        u->gn = gn;
        u->forced = forced;
    }
    if (open_at < re) {
        size_t ws = last_end > rb ? last_end : rb;
        if (!(u = gk__kt_push(U))) return GK_ERR_OUT_OF_MEMORY;
        u->kind = GK__KT_OPEN;
        u->tb = open_at;
        u->te = re;
        if (last_end > rb) {
            u->gb = ws;
            u->gn = open_at - ws;
        } else {
            u->gb = gb;
            u->gn = gn;
            u->forced = forced;
        }
    }
    return GK_OK;
}

static size_t gk__kt_ncp(const unsigned char *s, size_t n) {
    size_t i, c = 0;
    for (i = 0; i < n; i++) c += (s[i] & 0xC0) != 0x80;
    return c;
}
/* 1 when every byte of s[0..n) is a plain space */
static int gk__kt_spaces_only(const unsigned char *s, size_t n) {
    size_t i;
    for (i = 0; i < n; i++)
        if (s[i] != ' ') return 0;
    return 1;
}

/* the marks that cut text for espeak-ng (phonemizer's default marks): 0 none, else the split level */
static int gk__kt_text_mark_level(uint32_t c) {
    int l = gk__kt_mark_level(c);
    if (l) return l;
    return c == 0xA1 || c == 0xBF || c == 0xAB || c == 0xBB || c == '[' || c == ']' || c == '{' || c == '}' ? 1 : 0;
}
static int gk__kt_digit_at(const unsigned char *s, size_t len, size_t i) { return i < len && s[i] >= '0' && s[i] <= '9'; }

/* Cuts s[0..len) into units: words (runs of other code points), runs of
   marks (split by gk__kt_run) and the whitespace and line breaks between
   them. text: the marks are phonemizer's and a . , : between ASCII digits
   stays in its word; else Kokoro's marks. Phonemes are left unset. */
static gk_status gk__kt_scan(const char *F, const unsigned char *s, size_t len, int join, int text, gk__kt_units *U) {
    int (*mark)(uint32_t) = text ? gk__kt_text_mark_level : gk__kt_mark_level;
    size_t i = 0, gb = 0, gn = 0;
    int forced = 0;
    while (i < len) {
        uint32_t cp;
        int k = gk__u_utf8_dec(s + i, len - i, &cp);
        if (k <= 0) return GK__U_ERR(GK_ERR_FORMAT, "%s: invalid UTF-8 at byte %llu (0x%02X)", F, (unsigned long long)i, s[i]);
        if (gk__kt_space(cp)) {
            size_t e;
            int f;
            gk__kt_gap(s, len, i, join, &e, &f);
            gb = i;
            gn = e - i;
            forced |= f;
            i = e;
        } else if (mark(cp)) {
            /* the run: marks and the whitespace between them, up to a line break that ends a chunk */
            size_t re = i, j = i, split;
            while (j < len) {
                uint32_t c2;
                int k2 = gk__u_utf8_dec(s + j, len - j, &c2);
                if (k2 <= 0) break;
                if (mark(c2)) {
                    j += (size_t)k2;
                    re = j;
                } else if (gk__kt_space(c2)) {
                    size_t e;
                    int f;
                    gk__kt_gap(s, len, j, join, &e, &f);
                    if (f) break;
                    j = e;
                } else
                    break;
            }
            if (gk__kt_run(s, i, re, gb, gn, forced, gn > 0 || i == 0, mark, U, &split) != GK_OK) goto oom;
            gn = 0;
            forced = 0;
            i = re;
        } else {
            size_t j = i + (size_t)k;
            gk__kt_unit *u;
            while (j < len) {
                uint32_t c2;
                int k2 = gk__u_utf8_dec(s + j, len - j, &c2);
                if (k2 <= 0 || gk__kt_space(c2)) break;
                if (mark(c2) && !(text && (c2 == '.' || c2 == ',' || c2 == ':') && gk__kt_digit_at(s, len, j - 1) &&
                                  gk__kt_digit_at(s, len, j + 1)))
                    break;
                j += (size_t)k2;
            }
            if (!(u = gk__kt_push(U))) goto oom;
            u->kind = GK__KT_WORD;
            u->tb = i;
            u->te = j;
            u->gb = gb;
            u->gn = gn;
            u->forced = forced;
            gn = 0;
            forced = 0;
            i = j;
        }
    }
    return GK_OK;
oom:
    return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", F);
}

static gk_status gk__kt_too_long(const char *F, const gk__kt_unit *u, size_t max) {
    return GK__U_ERR(GK_ERR_LIMIT, "%s: the %s at byte %llu is %llu phonemes long, above the chunk limit of %llu: it cannot be cut", F,
                     u->kind == GK__KT_WORD ? "word" : "punctuation", (unsigned long long)u->tb, (unsigned long long)u->ncp,
                     (unsigned long long)max);
}

GKLLMDEF gk_status gk_kokoro_phoneme_chunks(const gk_kokoro_chunk_desc *desc, const char *phonemes, size_t len,
                                            gk_kokoro_chunks *out) {
    const char *F = "gk_kokoro_phoneme_chunks";
    const unsigned char *s = (const unsigned char *)phonemes;
    gk__kt_units U = {NULL, 0, 0};
    size_t max, m;
    gk_status st;
    if (out) memset(out, 0, sizeof *out);
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", F);
    if (!phonemes && len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: phonemes is NULL but len is %llu", F, (unsigned long long)len);
    if ((st = gk__kt_max(F, desc, &max)) != GK_OK) return st;
    st = gk__kt_scan(F, s, len, desc && (desc->flags & GK_KOKORO_JOIN_LINES), 0, &U);
    /* the phonemes are the input's bytes; whitespace other than plain spaces is written as one space */
    for (m = 0; st == GK_OK && m < U.n; m++) {
        gk__kt_unit *u = &U.u[m];
        u->pb = u->tb;
        u->pn = u->te - u->tb;
        u->ncp = gk__kt_ncp(s + u->pb, u->pn);
        u->gsyn = u->gn && !gk__kt_spaces_only(s + u->gb, u->gn);
        if (u->ncp > max) st = gk__kt_too_long(F, u, max);
    }
    if (st == GK_OK) st = gk__kt_assemble(F, phonemes, &U, max, out);
    gk__u_free(U.u);
    if (st == GK_OK && out->n == 0)
        st = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: nothing to speak: the phonemes are %s", F,
                       len == 0 ? "empty" : "whitespace and punctuation only");
    return st;
}
/* >>impl_kokoro_espeak: espeak-ng loaded at run time, text to Kokoro phonemes, text chunks */
#if !defined(_WIN32)
#ifdef __cplusplus
}
#endif
#include <dlfcn.h>   /* espeak-ng is opened at run time */
#include <pthread.h> /* the handle's lock */
#ifdef __cplusplus
extern "C" {
#endif
#endif

/* ---- our declarations of espeak-ng's API (speak_lib.h, API revision 12+) ---- */
#define GK__KE_AUDIO_OUTPUT_SYNCHRONOUS 2
#define GK__KE_INITIALIZE_DONT_EXIT 0x8000
#define GK__KE_CHARS_UTF8 1
#define GK__KE_PHONEMES_IPA 0x02
#define GK__KE_PHONEMES_TIE 0x80
typedef struct gk__ke_voice { /* espeak_VOICE */
    const char *name;
    const char *languages; /* (priority byte, language, NUL) pairs, ended by a 0 byte */
    const char *identifier;
    unsigned char gender, age, variant, xx1;
    int score;
    void *spare;
} gk__ke_voice;
typedef int (*gk__ke_init_fn)(int output, int buflength, const char *path, int options);
typedef int (*gk__ke_setvoice_fn)(const char *name);
typedef const char *(*gk__ke_ttp_fn)(const void **textptr, int textmode, int phonememode);
typedef int (*gk__ke_term_fn)(void);
typedef const char *(*gk__ke_info_fn)(const char **path_data);
typedef const gk__ke_voice **(*gk__ke_list_fn)(gk__ke_voice *spec);
typedef int (*gk__ke_synth_cb)(short *wav, int n, void *events);
typedef void (*gk__ke_setcb_fn)(gk__ke_synth_cb cb);
typedef int (*gk__ke_synth_fn)(const void *text, size_t size, unsigned position, int position_type, unsigned end_position,
                               unsigned flags, unsigned *unique_identifier, void *user_data);
/* the synthesis callback: the audio of the empty text that drains a voice change is dropped */
static int gk__ke_discard(short *wav, int n, void *events) {
    (void)wav;
    (void)n;
    (void)events;
    return 0;
}

#if defined(_WIN32)
typedef HMODULE gk__ke_lib;
typedef CRITICAL_SECTION gk__ke_mutex;
static gk__ke_lib gk__ke_dlopen(const char *n) { return LoadLibraryA(n); }
static void *gk__ke_dlsym(gk__ke_lib l, const char *n) {
    FARPROC p = GetProcAddress(l, n);
    void *r;
    memcpy(&r, &p, sizeof r);
    return r;
}
static void gk__ke_dlclose(gk__ke_lib l) { FreeLibrary(l); }
static void gk__ke_dlerror(char *buf, size_t n) { snprintf(buf, n, "error %lu", (unsigned long)GetLastError()); }
static void gk__ke_mutex_init(gk__ke_mutex *m) { InitializeCriticalSection(m); }
static void gk__ke_mutex_destroy(gk__ke_mutex *m) { DeleteCriticalSection(m); }
static void gk__ke_lock(gk__ke_mutex *m) { EnterCriticalSection(m); }
static void gk__ke_unlock(gk__ke_mutex *m) { LeaveCriticalSection(m); }
#else
typedef void *gk__ke_lib;
typedef pthread_mutex_t gk__ke_mutex;
static gk__ke_lib gk__ke_dlopen(const char *n) { return dlopen(n, RTLD_NOW | RTLD_LOCAL); }
static void *gk__ke_dlsym(gk__ke_lib l, const char *n) { return dlsym(l, n); }
static void gk__ke_dlclose(gk__ke_lib l) { dlclose(l); }
static void gk__ke_dlerror(char *buf, size_t n) {
    const char *e = dlerror();
    snprintf(buf, n, "%s", e ? e : "unknown dlopen error");
}
static void gk__ke_mutex_init(gk__ke_mutex *m) { pthread_mutex_init(m, NULL); }
static void gk__ke_mutex_destroy(gk__ke_mutex *m) { pthread_mutex_destroy(m); }
static void gk__ke_lock(gk__ke_mutex *m) { pthread_mutex_lock(m); }
static void gk__ke_unlock(gk__ke_mutex *m) { pthread_mutex_unlock(m); }
#endif

struct gk_espeak {
    gk__ke_lib lib;
    gk__ke_setvoice_fn set_voice;
    gk__ke_ttp_fn ttp;
    gk__ke_term_fn terminate;
    gk__ke_list_fn list;
    gk__ke_synth_fn synth; /* NULL when the library lacks espeak_Synth or espeak_SetSynthCallback */
    gk__ke_mutex lock;   /* held around every call into espeak-ng (its state is global) */
    char version[32];
    char language[16];   /* the language whose voice is set; "" none (guarded by lock) */
};

/* ---- languages: Kokoro's espeak languages (pipeline.py LANG_CODES) ---- */
enum { GK__KE_EN_US = 0, GK__KE_EN_GB = 1, GK__KE_OTHER = 2 };
static const char *const gk__ke_langs[7][2] = {{"en-us", "a"}, {"en-gb", "b"}, {"es", "e"}, {"fr-fr", "f"},
                                                {"hi", "h"},    {"it", "i"},    {"pt-br", "p"}};
/* desc.language (NULL: en-us; a code or a voice letter, any case) -> index into gk__ke_langs, or -1 */
static int gk__ke_lang(const char *l) {
    int i;
    if (!l) return 0;
    for (i = 0; i < 7; i++) {
        const char *a = gk__ke_langs[i][0], *b = l;
        while (*a && *b && (*b >= 'A' && *b <= 'Z' ? *b + 32 : *b) == *a) a++, b++;
        if (!*a && !*b) return i;
        if (l[0] && !l[1] && (l[0] | 0x20) == gk__ke_langs[i][1][0]) return i;
    }
    return -1;
}
static gk_status gk__ke_lang_err(const char *F, const char *l) {
    return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: language '%s' is not one of Kokoro's espeak languages: en-us, en-gb, es, fr-fr, hi, it, pt-br",
                     F, l);
}

GKLLMDEF const char *gk_kokoro_voice_language(const char *voice) {
    int i;
    if (!voice || !voice[0]) return NULL;
    for (i = 0; i < 7; i++)
        if ((voice[0] | 0x20) == gk__ke_langs[i][1][0]) return gk__ke_langs[i][0];
    return NULL;
}

/* ---- calls into espeak-ng ----
   Each in a function of its own (gk__ke_call_*) that does nothing else, so
   that a leak checker can tell the memory espeak-ng still holds after
   espeak_Terminate (a few KB: gk_espeak_destroy unloads the library with
   it) from gpukit's own: tests/test_kokoro_text.c suppresses
   "gk__ke_call_" under LeakSanitizer. */
static int gk__ke_call_init(gk__ke_init_fn init, const char *data_path) {
    return init(GK__KE_AUDIO_OUTPUT_SYNCHRONOUS, 0, data_path, GK__KE_INITIALIZE_DONT_EXIT);
}
static const gk__ke_voice **gk__ke_call_list(gk_espeak *es) { return es->list(NULL); }
static int gk__ke_call_set_voice(gk_espeak *es, const char *id) { return es->set_voice(id); }
static void gk__ke_call_synth_empty(gk_espeak *es) { es->synth("", 1, 0, 1 /* POS_CHARACTER */, 0, GK__KE_CHARS_UTF8, NULL, NULL); }
static const char *gk__ke_call_ttp(gk_espeak *es, const void **p) {
    return es->ttp(p, GK__KE_CHARS_UTF8, GK__KE_PHONEMES_IPA | GK__KE_PHONEMES_TIE | (0x361 << 8));
}

/* ---- the handle ---- */

GKLLMDEF gk_status gk_espeak_create(const gk_espeak_desc *desc, gk_espeak **out) {
    const char *F = "gk_espeak_create";
    static const char *const names[] = {
#if defined(_WIN32)
        "libespeak-ng.dll", "espeak-ng.dll"
#elif defined(__APPLE__)
        "libespeak-ng.1.dylib", "libespeak-ng.dylib"
#else
        "libespeak-ng.so.1", "libespeak-ng.so"
#endif
    };
    const char *tried = desc && desc->library ? desc->library : names[0];
    char first_err[256] = "";
    gk__ke_lib lib = NULL;
    gk__ke_init_fn init;
    gk__ke_info_fn info;
    gk_espeak *es;
    void *p[8];
    int i, rate;
    if (out) *out = NULL;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", F);
    if (desc && desc->library) {
        lib = gk__ke_dlopen(desc->library);
        if (!lib) gk__ke_dlerror(first_err, sizeof first_err);
    } else
        for (i = 0; i < 2 && !lib; i++) {
            lib = gk__ke_dlopen(names[i]);
            if (!lib && i == 0) gk__ke_dlerror(first_err, sizeof first_err);
        }
    if (!lib) {
        char looked[300];
        if (desc && desc->library) snprintf(looked, sizeof looked, "%s", desc->library);
        else snprintf(looked, sizeof looked, "%s and %s", names[0], names[1]);
        return GK__U_ERR(GK_ERR_NOT_FOUND,
                         "%s: espeak-ng is not installed: looked for %s (loaded at run time, not linked: %s); install it "
                         "(Debian / Ubuntu: apt-get install libespeak-ng1 espeak-ng-data) to speak text; phoneme strings are "
                         "still accepted without it",
                         F, looked, first_err);
    }
    p[0] = gk__ke_dlsym(lib, "espeak_Initialize");
    p[1] = gk__ke_dlsym(lib, "espeak_SetVoiceByName");
    p[2] = gk__ke_dlsym(lib, "espeak_TextToPhonemes");
    p[3] = gk__ke_dlsym(lib, "espeak_Terminate");
    p[4] = gk__ke_dlsym(lib, "espeak_ListVoices");
    p[5] = gk__ke_dlsym(lib, "espeak_Info");
    p[6] = gk__ke_dlsym(lib, "espeak_SetSynthCallback");
    p[7] = gk__ke_dlsym(lib, "espeak_Synth");
    for (i = 0; i < 5; i++)
        if (!p[i]) {
            static const char *const fn[5] = {"espeak_Initialize", "espeak_SetVoiceByName", "espeak_TextToPhonemes", "espeak_Terminate",
                                              "espeak_ListVoices"};
            gk__ke_dlclose(lib);
            return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: the espeak-ng library that loaded (%s) lacks %s: espeak-ng 1.49 or newer is needed", F,
                             tried, fn[i]);
        }
    es = (gk_espeak *)gk__u_calloc(1, sizeof *es);
    if (!es) {
        gk__ke_dlclose(lib);
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", F);
    }
    es->lib = lib;
    memcpy(&init, &p[0], sizeof init);
    memcpy(&es->set_voice, &p[1], sizeof es->set_voice);
    memcpy(&es->ttp, &p[2], sizeof es->ttp);
    memcpy(&es->terminate, &p[3], sizeof es->terminate);
    memcpy(&es->list, &p[4], sizeof es->list);
    rate = gk__ke_call_init(init, desc ? desc->data_path : NULL);
    if (rate <= 0) {
        gk__ke_dlclose(lib);
        gk__u_free(es);
        return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: espeak-ng did not initialise (%s%s%s): is espeak-ng-data installed (Debian: espeak-ng-data)?",
                         F, desc && desc->data_path ? "data path '" : "its default data path",
                         desc && desc->data_path ? desc->data_path : "", desc && desc->data_path ? "'" : "");
    }
    if (p[6] && p[7]) {
        gk__ke_setcb_fn setcb;
        memcpy(&setcb, &p[6], sizeof setcb);
        memcpy(&es->synth, &p[7], sizeof es->synth);
        setcb(gk__ke_discard);
    }
    if (p[5]) {
        memcpy(&info, &p[5], sizeof info);
        snprintf(es->version, sizeof es->version, "%s", info(NULL) ? info(NULL) : "");
    }
    gk__ke_mutex_init(&es->lock);
    *out = es;
    return GK_OK;
}

GKLLMDEF void gk_espeak_destroy(gk_espeak *es) {
    if (!es) return;
    es->terminate();
    gk__ke_dlclose(es->lib);
    gk__ke_mutex_destroy(&es->lock);
    gk__u_free(es);
}
GKLLMDEF const char *gk_espeak_version(const gk_espeak *es) { return es ? es->version : ""; }

/* Sets the voice of language l (held lock): the first voice espeak-ng lists
   whose first language is l, as phonemizer's set_voice. */
static gk_status gk__ke_set_language(const char *F, gk_espeak *es, const char *l) {
    const gk__ke_voice **v;
    const char *id = NULL;
    size_t i;
    if (strcmp(es->language, l) == 0) return GK_OK;
    v = gk__ke_call_list(es);
    for (i = 0; v && v[i] && !id; i++)
        if (v[i]->languages && v[i]->languages[0] && strcmp(v[i]->languages + 1, l) == 0) id = v[i]->identifier;
    if (!id) return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: espeak-ng %s has no voice for language '%s'", F, es->version, l);
    es->language[0] = 0;
    if (gk__ke_call_set_voice(es, id) != 0) return GK__U_ERR(GK_ERR_INTERNAL, "%s: espeak-ng could not load voice '%s' for '%s'", F, id, l);
    /* espeak-ng queues a copy of the voice (about 1.3 KB) that only its
       audio synthesis frees: synthesising the empty text frees it */
    if (es->synth) gk__ke_call_synth_empty(es);
    snprintf(es->language, sizeof es->language, "%s", l);
    return GK_OK;
}

/* ---- mapping espeak-ng's IPA to Kokoro's alphabet ---- */
/* *a with every from replaced by to (left to right, not overlapping: Python's str.replace) */
static gk_status gk__ke_repl(gk_buf *a, gk_buf *tmp, const char *from, const char *to) {
    const char *p, *q;
    size_t fl = strlen(from), tl = strlen(to);
    gk_status st = GK_OK;
    gk_buf t;
    if (!a->data || !strstr(a->data, from)) return GK_OK;
    tmp->len = 0;
    p = a->data;
    while ((q = strstr(p, from)) != NULL && st == GK_OK) {
        st = gk_buf_append(tmp, p, (size_t)(q - p));
        if (st == GK_OK) st = gk_buf_append(tmp, to, tl);
        p = q + fl;
    }
    if (st == GK_OK) st = gk_buf_append(tmp, p, strlen(p));
    if (st != GK_OK) return st;
    t = *a;
    *a = *tmp;
    *tmp = t;
    return GK_OK;
}

/* misaki's EspeakFallback.E2M, sorted by decreasing length (stable) */
static const char *const gk__ke_e2m_en[20][2] = {
    {"\xCA\x94\xCB\x8Cn\xCC\xA9", "\xCA\x94n"},  /* ʔˌn̩ -> ʔn */
    {"\xCA\x94n\xCC\xA9", "\xCA\x94n"},          /* ʔn̩ -> ʔn */
    {"a^\xC9\xAA", "I"},                         /* a^ɪ */
    {"a^\xCA\x8A", "W"},                         /* a^ʊ */
    {"d^\xCA\x92", "\xCA\xA4"},                  /* d^ʒ -> ʤ */
    {"e^\xC9\xAA", "A"},                         /* e^ɪ */
    {"t^\xCA\x83", "\xCA\xA7"},                  /* t^ʃ -> ʧ */
    {"\xC9\x94^\xC9\xAA", "Y"},                  /* ɔ^ɪ */
    {"\xC9\x99^l", "\xE1\xB5\x8Al"},             /* ə^l -> ᵊl */
    {"\xCA\xB2o", "jo"},                         /* ʲo */
    {"\xCA\xB2\xC9\x99", "j\xC9\x99"},           /* ʲə -> jə */
    {"e", "A"},
    {"\xCA\xB2", ""},                            /* ʲ */
    {"\xC9\x9A", "\xC9\x99\xC9\xB9"},            /* ɚ -> əɹ */
    {"r", "\xC9\xB9"},                           /* r -> ɹ */
    {"x", "k"},
    {"\xC3\xA7", "k"},                           /* ç */
    {"\xC9\x90", "\xC9\x99"},                    /* ɐ -> ə */
    {"\xC9\xAC", "l"},                           /* ɬ */
    {"\xCC\x83", ""},                            /* U+0303 */
};
/* misaki's EspeakG2P.e2m, sorted by key */
static const char *const gk__ke_e2m_other[11][2] = {
    {"a^\xC9\xAA", "I"},        {"a^\xCA\x8A", "W"},        {"d^z", "\xCA\xA3"},        {"d^\xCA\x92", "\xCA\xA4"},
    {"e^\xC9\xAA", "A"},        {"o^\xCA\x8A", "O"},        {"s^s", "S"},               {"t^s", "\xCA\xA6"},
    {"t^\xCA\x83", "\xCA\xA7"}, {"\xC9\x94^\xC9\xAA", "Y"}, {"\xC9\x99^\xCA\x8A", "Q"},
};

/* Step 2's cleaning of raw espeak-ng output into *a: U+0361 -> '^', '_' and
   language-switch flags "(xx)" removed, whitespace runs -> one space, trimmed. */
static gk_status gk__ke_clean(const char *raw, size_t n, gk_buf *a) {
    const unsigned char *s = (const unsigned char *)raw;
    size_t i = 0;
    int space = 0;
    gk_status st = GK_OK;
    a->len = 0;
    if (a->data) a->data[0] = 0;
    while (i < n && st == GK_OK) {
        uint32_t cp;
        int k = gk__u_utf8_dec(s + i, n - i, &cp);
        if (k <= 0) return GK__U_ERR(GK_ERR_FORMAT, "gk_kokoro_map_espeak: invalid UTF-8 at byte %llu (0x%02X)", (unsigned long long)i, s[i]);
        if (cp == '(') { /* a language switch flag: '(' and at least one more code point up to the next ')' */
            const char *c = i + 2 < n ? (const char *)memchr(raw + i + 2, ')', n - i - 2) : NULL;
            if (c) {
                i = (size_t)(c - raw) + 1;
                continue;
            }
        }
        if (gk__kt_space(cp)) space = 1;
        else if (cp != '_') {
            if (space && a->len) st = gk_buf_append(a, " ", 1);
            space = 0;
            if (st == GK_OK) {
                if (cp == 0x361) st = gk_buf_append(a, "^", 1);
                else st = gk_buf_append(a, raw + i, (size_t)k);
            }
        }
        i += (size_t)k;
    }
    if (st == GK_OK && !a->data) st = gk_buf_append(a, "", 0);
    return st;
}

/* Step 3 on the cleaned string *a (language index li), in place. */
static gk_status gk__ke_map(int li, gk_buf *a, gk_buf *tmp) {
    gk_status st = GK_OK;
    size_t i;
    if (li <= GK__KE_EN_GB) {
        const unsigned char *s;
        for (i = 0; i < 20 && st == GK_OK; i++) st = gk__ke_repl(a, tmp, gk__ke_e2m_en[i][0], gk__ke_e2m_en[i][1]);
        if (st != GK_OK) return st;
        /* re.sub(r'(\S)\u0329', r'ᵊ\1'), then the other U+0329 removed */
        if (strstr(a->data, "\xCC\xA9")) {
            size_t n = a->len;
            s = (const unsigned char *)a->data;
            tmp->len = 0;
            i = 0;
            while (i < n && st == GK_OK) {
                uint32_t c1, c2 = 0;
                int k1 = gk__u_utf8_dec(s + i, n - i, &c1), k2 = 0;
                if (k1 <= 0) k1 = 1;
                if (i + (size_t)k1 < n) k2 = gk__u_utf8_dec(s + i + k1, n - i - (size_t)k1, &c2);
                if (c1 != 0x329 && !gk__kt_space(c1) && k2 > 0 && c2 == 0x329) {
                    st = gk_buf_append(tmp, "\xE1\xB5\x8A", 3);
                    if (st == GK_OK) st = gk_buf_append(tmp, s + i, (size_t)k1);
                    i += (size_t)k1 + (size_t)k2;
                } else if (c1 == 0x329) {
                    i += (size_t)k1;
                } else {
                    st = gk_buf_append(tmp, s + i, (size_t)k1);
                    i += (size_t)k1;
                }
            }
            if (st == GK_OK) {
                gk_buf t = *a;
                if (!tmp->data) st = gk_buf_append(tmp, "", 0);
                *a = *tmp;
                *tmp = t;
            }
        }
        if (li == GK__KE_EN_GB) {
            if (st == GK_OK) st = gk__ke_repl(a, tmp, "e^\xC9\x99", "\xC9\x9B\xCB\x90"); /* e^ə -> ɛː */
            if (st == GK_OK) st = gk__ke_repl(a, tmp, "i\xC9\x99", "\xC9\xAA\xC9\x99");   /* iə -> ɪə */
            if (st == GK_OK) st = gk__ke_repl(a, tmp, "\xC9\x99^\xCA\x8A", "Q");          /* ə^ʊ -> Q */
        } else {
            if (st == GK_OK) st = gk__ke_repl(a, tmp, "o^\xCA\x8A", "O");                                   /* o^ʊ -> O */
            if (st == GK_OK) st = gk__ke_repl(a, tmp, "\xC9\x9C\xCB\x90\xC9\xB9", "\xC9\x9C\xC9\xB9");     /* ɜːɹ -> ɜɹ */
            if (st == GK_OK) st = gk__ke_repl(a, tmp, "\xC9\x9C\xCB\x90", "\xC9\x9C\xC9\xB9");             /* ɜː -> ɜɹ */
            if (st == GK_OK) st = gk__ke_repl(a, tmp, "\xC9\xAA\xC9\x99", "i\xC9\x99");                    /* ɪə -> iə */
            if (st == GK_OK) st = gk__ke_repl(a, tmp, "\xCB\x90", "");                                     /* ː */
        }
        if (st == GK_OK) st = gk__ke_repl(a, tmp, "o", "\xC9\x94");         /* o -> ɔ (espeak-ng < 1.52) */
        if (st == GK_OK) st = gk__ke_repl(a, tmp, "\xC9\xBE", "T");         /* ɾ -> T */
        if (st == GK_OK) st = gk__ke_repl(a, tmp, "\xCA\x94", "t");         /* ʔ -> t */
        if (st == GK_OK) st = gk__ke_repl(a, tmp, "^", "");
    } else {
        for (i = 0; i < 11 && st == GK_OK; i++) st = gk__ke_repl(a, tmp, gk__ke_e2m_other[i][0], gk__ke_e2m_other[i][1]);
        if (st == GK_OK) st = gk__ke_repl(a, tmp, "^", "");
        if (st == GK_OK) st = gk__ke_repl(a, tmp, "-", "");
    }
    return st;
}

GKLLMDEF gk_status gk_kokoro_map_espeak(const char *language, const char *ipa, size_t len, gk_buf *out) {
    const char *F = "gk_kokoro_map_espeak";
    gk_buf a = {NULL, 0, 0}, t = {NULL, 0, 0};
    gk_status st;
    int li = gk__ke_lang(language);
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", F);
    if (!ipa && len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: ipa is NULL but len is %llu", F, (unsigned long long)len);
    if (li < 0) return gk__ke_lang_err(F, language);
    st = gk__ke_clean(ipa, len, &a);
    if (st == GK_OK) st = gk__ke_map(li, &a, &t);
    if (st == GK_OK) st = gk_buf_append(out, a.data, a.len);
    gk_buf_free(&a);
    gk_buf_free(&t);
    return st;
}

/* ---- text to units ---- */
typedef struct gk__ke_job {
    const char *F;
    gk_espeak *es;
    int li;
    const unsigned char *s;
    size_t len;
    gk_buf ph;        /* the units' phonemes */
    gk_buf in, a, t;  /* scratch: espeak's input, its output, replacements */
} gk__ke_job;

/* Phonemizes s[b..e) through espeak-ng and the mapping into job->ph; *pb,
   *pn the bytes written, *ncp their code points. */
static gk_status gk__ke_piece(gk__ke_job *j, size_t b, size_t e, size_t *pb, size_t *pn, size_t *ncp) {
    gk_status st;
    size_t i;
    const void *p;
    int first = 1;
    j->in.len = 0;
    j->a.len = 0;
    if ((st = gk_buf_append(&j->in, j->s + b, e - b)) != GK_OK) return st;
    for (i = 0; i < j->in.len; i++) /* a NUL would end espeak-ng's input early */
        if (!j->in.data[i]) j->in.data[i] = ' ';
    if ((st = gk_buf_append(&j->a, "", 0)) != GK_OK) return st;
    gk__ke_lock(&j->es->lock);
    st = gk__ke_set_language(j->F, j->es, gk__ke_langs[j->li][0]);
    p = j->in.data;
    while (st == GK_OK && p) {
        const char *r = gk__ke_call_ttp(j->es, &p);
        if (r && r[0]) {
            if (!first) st = gk_buf_append(&j->a, " ", 1);
            if (st == GK_OK) st = gk_buf_append(&j->a, r, strlen(r));
            first = 0;
        }
    }
    gk__ke_unlock(&j->es->lock);
    if (st != GK_OK) return st;
    j->t.len = 0;
    if ((st = gk__ke_clean(j->a.data, j->a.len, &j->t)) != GK_OK) return st;
    if ((st = gk__ke_map(j->li, &j->t, &j->a)) != GK_OK) return st;
    *pb = j->ph.len;
    *pn = j->t.len;
    *ncp = gk__kt_ncp((const unsigned char *)j->t.data, j->t.len);
    return gk_buf_append(&j->ph, j->t.data, j->t.len);
}

/* A run of marks as Kokoro punctuation into job->ph: whitespace runs -> one
   space, « » -> “ ”, ¡ ¿ [ ] { } left out, trimmed. */
static gk_status gk__ke_marks(gk__ke_job *j, gk__kt_unit *u) {
    size_t i = u->tb, start = j->ph.len;
    int space = 0;
    gk_status st = GK_OK;
    while (i < u->te && st == GK_OK) {
        uint32_t cp;
        int k = gk__u_utf8_dec(j->s + i, u->te - i, &cp);
        if (k <= 0) k = 1, cp = 0;
        if (gk__kt_space(cp)) space = 1;
        else if (!(cp == 0xA1 || cp == 0xBF || cp == '[' || cp == ']' || cp == '{' || cp == '}')) {
            if (space && j->ph.len > start) st = gk_buf_append(&j->ph, " ", 1);
            space = 0;
            if (st == GK_OK) {
                if (cp == 0xAB) st = gk_buf_append(&j->ph, "\xE2\x80\x9C", 3);
                else if (cp == 0xBB) st = gk_buf_append(&j->ph, "\xE2\x80\x9D", 3);
                else st = gk_buf_append(&j->ph, j->s + i, (size_t)k);
            }
        }
        i += (size_t)k;
    }
    u->pb = start;
    u->pn = j->ph.len - start;
    u->ncp = gk__kt_ncp((const unsigned char *)j->ph.data + start, u->pn);
    return st;
}

/* The units of a text with their phonemes (job->ph): words between marks
   phonemized together, again one by one where their phonemes pass max;
   units without phonemes dropped. */
static gk_status gk__ke_units(gk__ke_job *j, int join, size_t max, gk__kt_units *out) {
    gk__kt_units A = {NULL, 0, 0};
    gk_status st;
    size_t i, k;
    memset(out, 0, sizeof *out);
    if ((st = gk__kt_scan(j->F, j->s, j->len, join, 1, &A)) != GK_OK) goto done;
    for (i = 0; i < A.n && st == GK_OK;) {
        gk__kt_unit *u = &A.u[i], *o;
        if (u->kind != GK__KT_WORD) {
            if ((st = gk__ke_marks(j, u)) != GK_OK) break;
            if (!(o = gk__kt_push(out))) goto oom;
            *o = *u;
            i++;
            continue;
        }
        /* the words up to the next mark or line break */
        for (k = i + 1; k < A.n && A.u[k].kind == GK__KT_WORD && !A.u[k].forced; k++) {}
        if (!(o = gk__kt_push(out))) goto oom;
        *o = *u;
        o->te = A.u[k - 1].te;
        if ((st = gk__ke_piece(j, o->tb, o->te, &o->pb, &o->pn, &o->ncp)) != GK_OK) break;
        if (o->ncp > max) { /* again word by word */
            size_t m;
            out->n--;
            j->ph.len = o->pb;
            j->ph.data[o->pb] = 0;
            for (m = i; m < k && st == GK_OK; m++) {
                if (!(o = gk__kt_push(out))) goto oom;
                *o = A.u[m];
                if ((st = gk__ke_piece(j, o->tb, o->te, &o->pb, &o->pn, &o->ncp)) != GK_OK) break;
                if (o->ncp > max) st = gk__kt_too_long(j->F, o, max);
            }
        }
        i = k;
    }
    /* drop the units without phonemes: their whitespace and line break go to the next one */
    if (st == GK_OK) {
        size_t w = 0, gb = 0, gn = 0;
        int forced = 0;
        for (i = 0; i < out->n; i++) {
            gk__kt_unit u = out->u[i];
            if (u.pn == 0) {
                if (u.gn && !gn) gb = u.gb, gn = u.gn;
                forced |= u.forced;
                continue;
            }
            if (!u.gn && gn) u.gb = gb, u.gn = gn;
            u.forced |= forced;
            u.gsyn = 1;
            out->u[w++] = u;
            gn = 0;
            forced = 0;
        }
        out->n = w;
    }
done:
    gk__u_free(A.u);
    if (st != GK_OK) {
        gk__u_free(out->u);
        memset(out, 0, sizeof *out);
    }
    return st;
oom:
    st = GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", j->F);
    goto done;
}

static gk_status gk__ke_begin(gk__ke_job *j, const char *F, gk_espeak *es, const gk_kokoro_chunk_desc *desc, const char *text, size_t len) {
    memset(j, 0, sizeof *j);
    j->F = F;
    j->es = es;
    j->s = (const unsigned char *)text;
    j->len = len;
    if (!es) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: es is NULL (gk_espeak_create)", F);
    if (!text && len) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: text is NULL but len is %llu", F, (unsigned long long)len);
    j->li = gk__ke_lang(desc ? desc->language : NULL);
    if (j->li < 0) return gk__ke_lang_err(F, desc->language);
    return GK_OK;
}
static void gk__ke_end(gk__ke_job *j) {
    gk_buf_free(&j->ph);
    gk_buf_free(&j->in);
    gk_buf_free(&j->a);
    gk_buf_free(&j->t);
}

GKLLMDEF gk_status gk_kokoro_phonemize(gk_espeak *es, const gk_kokoro_chunk_desc *desc, const char *text, size_t len, gk_buf *out) {
    const char *F = "gk_kokoro_phonemize";
    gk__ke_job j;
    gk__kt_units U = {NULL, 0, 0};
    gk_status st;
    size_t i, len0;
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", F);
    len0 = out->len;
    st = gk__ke_begin(&j, F, es, desc, text, len);
    if (st == GK_OK) st = gk__ke_units(&j, 0, (size_t)-1, &U);
    for (i = 0; st == GK_OK && i < U.n; i++) {
        if (i > 0 && (U.u[i].gn || U.u[i].forced)) st = gk_buf_append(out, " ", 1);
        if (st == GK_OK) st = gk_buf_append(out, j.ph.data + U.u[i].pb, U.u[i].pn);
    }
    if (st == GK_OK && !out->data) st = gk_buf_append(out, "", 0);
    if (st != GK_OK && out->data) {
        out->len = len0;
        out->data[len0] = 0;
    }
    gk__u_free(U.u);
    gk__ke_end(&j);
    return st;
}

GKLLMDEF gk_status gk_kokoro_text_chunks(gk_espeak *es, const gk_kokoro_chunk_desc *desc, const char *text, size_t len,
                                         gk_kokoro_chunks *out) {
    const char *F = "gk_kokoro_text_chunks";
    gk__ke_job j;
    gk__kt_units U = {NULL, 0, 0};
    gk_status st;
    size_t max = 0;
    if (out) memset(out, 0, sizeof *out);
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", F);
    st = gk__ke_begin(&j, F, es, desc, text, len);
    if (st == GK_OK) st = gk__kt_max(F, desc, &max);
    if (st == GK_OK) st = gk__ke_units(&j, desc && (desc->flags & GK_KOKORO_JOIN_LINES), max, &U);
    if (st == GK_OK) st = gk__kt_assemble(F, j.ph.data, &U, max, out);
    if (st == GK_OK && out->n == 0)
        st = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: nothing to speak: the text is %s", F,
                       len == 0 ? "empty" : "whitespace and punctuation only (or nothing espeak-ng reads)");
    gk__u_free(U.u);
    gk__ke_end(&j);
    return st;
}
/* >>impl_kokoro_voice: voice packs (raw, .npy, .npz through zlib loaded at run time, safetensors), blends, style rows */
#if !defined(_WIN32)
#ifdef __cplusplus
}
#endif
#include <dirent.h> /* listing a folder of voices */
#ifdef __cplusplus
extern "C" {
#endif
#endif

#define GK__KV_FLOATS ((size_t)GK_KOKORO_VOICE_ROWS * GK_KOKORO_STYLE_DIM)
#define GK__KV_BYTES (GK__KV_FLOATS * 4)           /* 522240 */
#define GK__KV_MAX_FILE ((size_t)1 << 30)          /* a voice file or bundle larger than this is refused */
#define GK__KV_MAX_MEMBER ((uint64_t)64 << 20)     /* an .npz member larger than this is not a voice */

static uint16_t gk__kv_u16(const unsigned char *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static uint32_t gk__kv_u32(const unsigned char *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint64_t gk__kv_u64(const unsigned char *p) { return (uint64_t)gk__kv_u32(p) | ((uint64_t)gk__kv_u32(p + 4) << 32); }

/* 510 x 256 little-endian float32 at p -> a new pack; every value finite */
static gk_status gk__kv_floats(const char *what, const unsigned char *p, gk_kokoro_voice *out) {
    size_t i;
    float *f = (float *)gk__u_malloc(GK__KV_BYTES);
    if (!f) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
    for (i = 0; i < GK__KV_FLOATS; i++) {
        uint32_t u = gk__kv_u32(p + 4 * i);
        memcpy(&f[i], &u, 4);
        if (!(f[i] - f[i] == 0.0f)) {
            int nan = f[i] != f[i];
            gk__u_free(f);
            return GK__U_ERR(GK_ERR_FORMAT, "%s: row %llu, column %llu is %s", what, (unsigned long long)(i / GK_KOKORO_STYLE_DIM),
                             (unsigned long long)(i % GK_KOKORO_STYLE_DIM), nan ? "NaN" : "infinite");
        }
    }
    out->data = f;
    out->rows = GK_KOKORO_VOICE_ROWS;
    return GK_OK;
}

/* appends s[0..n) to o (capacity cap, NUL-terminated, *k bytes used), cutting what does not fit */
static void gk__kv_cat(char *o, size_t cap, size_t *k, const char *s, size_t n) {
    if (*k + 1 >= cap) return;
    if (n > cap - 1 - *k) n = cap - 1 - *k;
    memcpy(o + *k, s, n);
    *k += n;
    o[*k] = 0;
}
/* "(510, 1, 256)" */
static void gk__kv_shape_str(const uint64_t *s, int nd, char *o, size_t cap) {
    int i;
    size_t k = 0;
    o[0] = 0;
    gk__kv_cat(o, cap, &k, "(", 1);
    for (i = 0; i < nd; i++) {
        char num[24];
        int m = snprintf(num, sizeof num, "%llu", (unsigned long long)s[i]);
        if (i) gk__kv_cat(o, cap, &k, ", ", 2);
        gk__kv_cat(o, cap, &k, num, m > 0 ? (size_t)m : 0);
    }
    gk__kv_cat(o, cap, &k, nd == 1 ? ",)" : ")", nd == 1 ? 2 : 1);
}
static int gk__kv_shape_ok(const uint64_t *s, int nd) {
    return (nd == 3 && s[0] == GK_KOKORO_VOICE_ROWS && s[1] == 1 && s[2] == GK_KOKORO_STYLE_DIM) ||
           (nd == 2 && s[0] == GK_KOKORO_VOICE_ROWS && s[1] == GK_KOKORO_STYLE_DIM);
}

/* ---- .npy ---- */
static void gk__kv_ws(const char *h, size_t n, size_t *i) {
    while (*i < n && (h[*i] == ' ' || h[*i] == '\t' || h[*i] == '\n' || h[*i] == '\r')) (*i)++;
}
/* a Python string literal at h[*i]: its contents [*b, *e) */
static int gk__kv_pystr(const char *h, size_t n, size_t *i, size_t *b, size_t *e) {
    char q;
    if (*i >= n || (h[*i] != '\'' && h[*i] != '"')) return 0;
    q = h[(*i)++];
    *b = *i;
    while (*i < n && h[*i] != q) {
        if (h[*i] == '\\') return 0;
        (*i)++;
    }
    if (*i >= n) return 0;
    *e = (*i)++;
    return 1;
}

static gk_status gk__kv_npy(const char *what, const unsigned char *d, size_t n, gk_kokoro_voice *out) {
    size_t hlen, h0, i = 0, b, e;
    const char *h;
    int have_descr = 0, have_fo = 0, have_shape = 0, fortran = 0, nd = 0;
    uint64_t shape[8];
    char sh[160];
    if (n < 10 || memcmp(d, "\x93NUMPY", 6) != 0) return GK__U_ERR(GK_ERR_FORMAT, "%s: not an .npy file (no \\x93NUMPY magic)", what);
    if (d[6] == 1) {
        hlen = gk__kv_u16(d + 8);
        h0 = 10;
    } else if (d[6] == 2 || d[6] == 3) {
        if (n < 12) return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header cut short", what);
        hlen = gk__kv_u32(d + 8);
        h0 = 12;
    } else
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: .npy format version %u.%u (1.0, 2.0 and 3.0 are read)", what, d[6], d[7]);
    if (hlen > n - h0) return GK__U_ERR(GK_ERR_FORMAT, "%s: the .npy header says %llu bytes, the file holds %llu after it", what,
                                        (unsigned long long)hlen, (unsigned long long)(n - h0));
    h = (const char *)d + h0;
    gk__kv_ws(h, hlen, &i);
    if (i >= hlen || h[i++] != '{') return GK__U_ERR(GK_ERR_FORMAT, "%s: the .npy header is not a dict", what);
    for (;;) {
        size_t kb, ke;
        gk__kv_ws(h, hlen, &i);
        if (i < hlen && h[i] == '}') break;
        if (!gk__kv_pystr(h, hlen, &i, &kb, &ke)) return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header: a key at byte %llu is not a string", what, (unsigned long long)(h0 + i));
        gk__kv_ws(h, hlen, &i);
        if (i >= hlen || h[i++] != ':') return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header: no ':' after key '%.*s'", what, (int)(ke - kb), h + kb);
        gk__kv_ws(h, hlen, &i);
        if (ke - kb == 5 && memcmp(h + kb, "descr", 5) == 0) {
            if (!gk__kv_pystr(h, hlen, &i, &b, &e)) return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header: 'descr' is not a string", what);
            if (!(e - b == 3 && memcmp(h + b, "<f4", 3) == 0))
                return GK__U_ERR(GK_ERR_DTYPE, "%s: dtype '%.*s': a voice is float32 ('<f4')", what, (int)(e - b > 32 ? 32 : e - b), h + b);
            have_descr = 1;
        } else if (ke - kb == 13 && memcmp(h + kb, "fortran_order", 13) == 0) {
            if (hlen - i >= 4 && memcmp(h + i, "True", 4) == 0) fortran = 1, i += 4;
            else if (hlen - i >= 5 && memcmp(h + i, "False", 5) == 0) i += 5;
            else return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header: 'fortran_order' is not True or False", what);
            have_fo = 1;
        } else if (ke - kb == 5 && memcmp(h + kb, "shape", 5) == 0) {
            if (i >= hlen || h[i++] != '(') return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header: 'shape' is not a tuple", what);
            for (;;) {
                uint64_t v = 0;
                size_t d0;
                gk__kv_ws(h, hlen, &i);
                if (i < hlen && h[i] == ')') break;
                d0 = i;
                while (i < hlen && h[i] >= '0' && h[i] <= '9' && i - d0 < 12) v = v * 10 + (uint64_t)(h[i++] - '0');
                if (i == d0 || nd >= 8) return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header: a bad 'shape'", what);
                shape[nd++] = v;
                gk__kv_ws(h, hlen, &i);
                if (i < hlen && h[i] == ',') i++;
                else if (!(i < hlen && h[i] == ')')) return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header: a bad 'shape'", what);
            }
            i++;
            have_shape = 1;
        } else
            return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header: unexpected key '%.*s'", what, (int)(ke - kb > 32 ? 32 : ke - kb), h + kb);
        gk__kv_ws(h, hlen, &i);
        if (i < hlen && h[i] == ',') i++;
        else if (!(i < hlen && h[i] == '}')) return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header: no ',' or '}' at byte %llu", what, (unsigned long long)(h0 + i));
    }
    if (!have_descr || !have_fo || !have_shape)
        return GK__U_ERR(GK_ERR_FORMAT, "%s: .npy header lacks '%s'", what, !have_descr ? "descr" : !have_fo ? "fortran_order" : "shape");
    if (fortran) return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: fortran_order is True: a voice is stored in C order", what);
    gk__kv_shape_str(shape, nd, sh, sizeof sh);
    if (!gk__kv_shape_ok(shape, nd))
        return GK__U_ERR(GK_ERR_SHAPE, "%s: shape %s: a voice is (510, 1, 256) or (510, 256)", what, sh);
    if (n - h0 - hlen != GK__KV_BYTES)
        return GK__U_ERR(GK_ERR_FORMAT, "%s: shape %s needs %llu bytes of data, the file holds %llu", what, sh,
                         (unsigned long long)GK__KV_BYTES, (unsigned long long)(n - h0 - hlen));
    return gk__kv_floats(what, d + h0 + hlen, out);
}

/* ---- zip (.npz) ---- */
typedef struct gk__kv_zent {
    const char *name;
    size_t nlen;
    uint64_t lho, csize, usize;
    uint32_t crc;
    unsigned method, flags;
} gk__kv_zent;

static gk_status gk__kv_zip_dir(const char *what, const unsigned char *d, size_t n, gk__kv_zent **ents, size_t *nent) {
    size_t p, lo, q, end, k;
    uint64_t count, cdsize, cdoff;
    int found = 0;
    gk__kv_zent *E;
    *ents = NULL;
    *nent = 0;
    if (n < 22) return GK__U_ERR(GK_ERR_FORMAT, "%s: a zip file cut short (%llu bytes)", what, (unsigned long long)n);
    lo = n - 22 > 65535 ? n - 22 - 65535 : 0;
    for (p = n - 22 + 1; p-- > lo;)
        if (memcmp(d + p, "PK\x05\x06", 4) == 0 && p + 22 + gk__kv_u16(d + p + 20) <= n) {
            found = 1;
            break;
        }
    if (!found) return GK__U_ERR(GK_ERR_FORMAT, "%s: a zip file without its end of central directory record", what);
    if (gk__kv_u16(d + p + 4) != 0 || gk__kv_u16(d + p + 6) != 0)
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: a zip file split over several disks", what);
    count = gk__kv_u16(d + p + 10);
    cdsize = gk__kv_u32(d + p + 12);
    cdoff = gk__kv_u32(d + p + 16);
    if (count == 0xFFFF || cdsize == 0xFFFFFFFFu || cdoff == 0xFFFFFFFFu) { /* ZIP64 */
        uint64_t z;
        if (p < 20 || memcmp(d + p - 20, "PK\x06\x07", 4) != 0)
            return GK__U_ERR(GK_ERR_FORMAT, "%s: a ZIP64 file without its ZIP64 end of central directory locator", what);
        z = gk__kv_u64(d + p - 20 + 8);
        if (n < 56 || z > n - 56 || memcmp(d + z, "PK\x06\x06", 4) != 0)
            return GK__U_ERR(GK_ERR_FORMAT, "%s: the ZIP64 end of central directory record is not where its locator says", what);
        count = gk__kv_u64(d + z + 32);
        cdsize = gk__kv_u64(d + z + 40);
        cdoff = gk__kv_u64(d + z + 48);
    }
    if (cdoff > n || cdsize > n - cdoff)
        return GK__U_ERR(GK_ERR_FORMAT, "%s: the zip central directory (%llu bytes at %llu) runs past the end of the file (%llu bytes)", what,
                         (unsigned long long)cdsize, (unsigned long long)cdoff, (unsigned long long)n);
    if (count > cdsize / 46) return GK__U_ERR(GK_ERR_FORMAT, "%s: the zip says %llu members, its central directory holds fewer", what, (unsigned long long)count);
    E = (gk__kv_zent *)gk__u_calloc(count ? (size_t)count : 1, sizeof *E);
    if (!E) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
    q = (size_t)cdoff;
    end = (size_t)(cdoff + cdsize);
    for (k = 0; k < count; k++) {
        gk__kv_zent *z = &E[k];
        size_t nl, xl, cl, x;
        if (end - q < 46 || memcmp(d + q, "PK\x01\x02", 4) != 0) {
            gk__u_free(E);
            return GK__U_ERR(GK_ERR_FORMAT, "%s: zip central directory entry %llu is malformed", what, (unsigned long long)k);
        }
        z->flags = gk__kv_u16(d + q + 8);
        z->method = gk__kv_u16(d + q + 10);
        z->crc = gk__kv_u32(d + q + 16);
        z->csize = gk__kv_u32(d + q + 20);
        z->usize = gk__kv_u32(d + q + 24);
        nl = gk__kv_u16(d + q + 28);
        xl = gk__kv_u16(d + q + 30);
        cl = gk__kv_u16(d + q + 32);
        z->lho = gk__kv_u32(d + q + 42);
        if (end - q - 46 < nl + xl + cl) {
            gk__u_free(E);
            return GK__U_ERR(GK_ERR_FORMAT, "%s: zip central directory entry %llu runs past the directory", what, (unsigned long long)k);
        }
        z->name = (const char *)d + q + 46;
        z->nlen = nl;
        /* the ZIP64 extra field: the 32-bit fields at 0xFFFFFFFF, in order */
        for (x = q + 46 + nl; x + 4 <= q + 46 + nl + xl;) {
            size_t id = gk__kv_u16(d + x), sz = gk__kv_u16(d + x + 2), f = x + 4, fe = x + 4 + sz;
            if (fe > q + 46 + nl + xl) break;
            if (id == 1) {
                if (z->usize == 0xFFFFFFFFu && f + 8 <= fe) z->usize = gk__kv_u64(d + f), f += 8;
                if (z->csize == 0xFFFFFFFFu && f + 8 <= fe) z->csize = gk__kv_u64(d + f), f += 8;
                if (z->lho == 0xFFFFFFFFu && f + 8 <= fe) z->lho = gk__kv_u64(d + f);
            }
            x = fe;
        }
        q += 46 + nl + xl + cl;
    }
    *ents = E;
    *nent = (size_t)count;
    return GK_OK;
}

/* ---- zlib, opened at run time (as gk_whisper_compression_ratio does) ---- */
typedef struct gk__kv_zstream { /* zlib's z_stream */
    const unsigned char *next_in;
    unsigned avail_in;
    unsigned long total_in;
    unsigned char *next_out;
    unsigned avail_out;
    unsigned long total_out;
    const char *msg;
    void *state;
    void *zalloc, *zfree, *opaque;
    int data_type;
    unsigned long adler, reserved;
} gk__kv_zstream;
typedef int (*gk__kv_inflateinit2_fn)(gk__kv_zstream *, int, const char *, int);
typedef int (*gk__kv_inflate_fn)(gk__kv_zstream *, int);
typedef int (*gk__kv_inflateend_fn)(gk__kv_zstream *);
typedef const char *(*gk__kv_zversion_fn)(void);

/* raw deflate src[0..cn) -> exactly un bytes at dst */
static gk_status gk__kv_inflate(const char *what, const unsigned char *src, size_t cn, unsigned char *dst, size_t un) {
    static const char *const names[4] = {"libz.so.1", "libz.so", "libz.dylib", "zlib1.dll"};
    gk__ke_lib lib = NULL;
    gk__kv_inflateinit2_fn init_;
    gk__kv_inflate_fn inflate_;
    gk__kv_inflateend_fn end_;
    gk__kv_zversion_fn ver_;
    void *p[4];
    gk__kv_zstream z;
    gk_status st = GK_OK;
    int i, rc;
    for (i = 0; i < 4 && !lib; i++) lib = gk__ke_dlopen(names[i]);
    if (!lib)
        return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: a deflated .npz member needs zlib, which is not installed (tried libz.so.1, libz.so, "
                         "libz.dylib, zlib1.dll; it is loaded at run time, not linked): install it (Debian / Ubuntu: apt-get install zlib1g)", what);
    p[0] = gk__ke_dlsym(lib, "inflateInit2_");
    p[1] = gk__ke_dlsym(lib, "inflate");
    p[2] = gk__ke_dlsym(lib, "inflateEnd");
    p[3] = gk__ke_dlsym(lib, "zlibVersion");
    if (!p[0] || !p[1] || !p[2] || !p[3]) {
        gk__ke_dlclose(lib);
        return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: the zlib library that loaded lacks inflateInit2_, inflate, inflateEnd or zlibVersion", what);
    }
    memcpy(&init_, &p[0], sizeof init_);
    memcpy(&inflate_, &p[1], sizeof inflate_);
    memcpy(&end_, &p[2], sizeof end_);
    memcpy(&ver_, &p[3], sizeof ver_);
    memset(&z, 0, sizeof z);
    if (init_(&z, -15, ver_(), (int)sizeof z) != 0) st = GK__U_ERR(GK_ERR_INTERNAL, "%s: zlib's inflateInit2 failed", what);
    else {
        z.next_in = src;
        z.avail_in = (unsigned)cn;
        z.next_out = dst;
        z.avail_out = (unsigned)un;
        rc = inflate_(&z, 4 /* Z_FINISH */);
        if (rc != 1 /* Z_STREAM_END */ || z.total_out != un)
            st = GK__U_ERR(GK_ERR_FORMAT, "%s: the deflated data is corrupt or not %llu bytes long (zlib: %d%s%s)", what,
                           (unsigned long long)un, rc, z.msg ? ", " : "", z.msg ? z.msg : "");
        end_(&z);
    }
    gk__ke_dlclose(lib);
    return st;
}

static uint32_t gk__kv_crc32(const unsigned char *p, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    size_t i;
    int k;
    for (i = 0; i < n; i++) {
        c ^= p[i];
        for (k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
    }
    return ~c;
}

/* ---- sources: a file or memory, sniffed; or a folder ---- */
enum { GK__KV_RAW = 1, GK__KV_NPY, GK__KV_NPZ, GK__KV_ST, GK__KV_DIR };
typedef struct gk__kv_src {
    const char *what;          /* the path or name messages use */
    const unsigned char *d;
    size_t n;
    char *owned;               /* the file's bytes when read here */
    int kind;
    gk__kv_zent *ent;          /* NPZ members */
    size_t nent;
    gk_safetensors *st;
    char base[128];            /* a file's name without folder and extension; "" from memory */
} gk__kv_src;

static void gk__kv_src_free(gk__kv_src *s) {
    gk_read_file_free(s->owned);
    gk__u_free(s->ent);
    gk_st_close(s->st);
    memset(s, 0, sizeof *s);
}

static const char *gk__kv_pt_help =
    "a PyTorch pickle (voices/<name>.pt), which gpukit does not read: convert it once, e.g. "
    "python3 -c \"import torch, numpy; numpy.save('af_heart.npy', torch.load('af_heart.pt').numpy())\", "
    "or use kokoro-onnx's voices-v1.0.bin or a .safetensors voice";

static gk_status gk__kv_src_mem(gk__kv_src *s) {
    const unsigned char *d = s->d;
    size_t n = s->n, i;
    gk_status st;
    if (n >= 6 && memcmp(d, "\x93NUMPY", 6) == 0) s->kind = GK__KV_NPY;
    else if (n >= 4 && (memcmp(d, "PK\x03\x04", 4) == 0 || memcmp(d, "PK\x05\x06", 4) == 0)) {
        if ((st = gk__kv_zip_dir(s->what, d, n, &s->ent, &s->nent)) != GK_OK) return st;
        for (i = 0; i < s->nent; i++)
            if (s->ent[i].nlen >= 8 && memcmp(s->ent[i].name + s->ent[i].nlen - 8, "data.pkl", 8) == 0)
                return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: %s", s->what, gk__kv_pt_help);
        s->kind = GK__KV_NPZ;
    } else if (n >= 9 && d[8] == '{' && gk__kv_u64(d) <= n - 8 && (st = gk_st_open_memory(d, n, &s->st)) != GK_OK &&
               n != GK__KV_BYTES) {
        char msg[512];
        gk__u_errcopy(msg, sizeof msg);
        return GK__U_ERR(st, "%s: %s", s->what, msg);
    } else if (s->st)
        s->kind = GK__KV_ST;
    else if (n == GK__KV_BYTES) /* raw floats (also ones whose first bytes happen to look like a safetensors header) */
        s->kind = GK__KV_RAW;
    else if (n >= 2 && d[0] == 0x80 && d[1] >= 2 && d[1] <= 5)
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: %s", s->what, gk__kv_pt_help);
    else
        return GK__U_ERR(GK_ERR_FORMAT,
                         "%s: %llu bytes, and not .npy, .npz or safetensors: a raw voice (.bin) is 510 x 256 float32, "
                         "exactly %llu bytes",
                         s->what, (unsigned long long)n, (unsigned long long)GK__KV_BYTES);
    return GK_OK;
}

static int gk__kv_isdir(const char *path) { return gk__u_is_dir(path); }
static int gk__kv_isfile(const char *path) { return !gk__u_is_dir(path) && gk__u_file_exists(path); }

static gk_status gk__kv_src_file(const char *path, gk__kv_src *s) {
    const char *b = path, *p, *dot = NULL;
    size_t n;
    gk_status st;
    memset(s, 0, sizeof *s);
    s->what = path;
    if (gk__kv_isdir(path)) {
        s->kind = GK__KV_DIR;
        return GK_OK;
    }
    for (p = path; *p; p++)
        if (*p == '/' || *p == '\\') b = p + 1;
    for (p = b; *p; p++)
        if (*p == '.') dot = p;
    n = dot && dot > b ? (size_t)(dot - b) : strlen(b);
    if (n >= sizeof s->base) n = sizeof s->base - 1;
    memcpy(s->base, b, n);
    s->base[n] = 0;
    if ((st = gk_read_file(path, GK__KV_MAX_FILE, &s->owned, &s->n)) != GK_OK) {
        char msg[512];
        gk__u_errcopy(msg, sizeof msg);
        return GK__U_ERR(st, "gk_kokoro_voice_load: %s", msg);
    }
    s->d = (const unsigned char *)s->owned;
    st = gk__kv_src_mem(s);
    if (st != GK_OK) gk__kv_src_free(s);
    return st;
}

/* the names a source holds, appended to names (each NUL-terminated) */
static int gk__kv_cmp_str(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

static gk_status gk__kv_member(const gk__kv_src *s, const gk__kv_zent *z, gk_kokoro_voice *out) {
    char what[512];
    const unsigned char *d = s->d;
    uint64_t dat;
    unsigned char *buf = NULL;
    gk_status st;
    snprintf(what, sizeof what, "%s: member '%.*s'", s->what, (int)(z->nlen > 200 ? 200 : z->nlen), z->name);
    if (z->flags & 1) return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s is encrypted", what);
    if (z->method != 0 && z->method != 8)
        return GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: zip compression method %u (stored 0 and deflate 8 are read)", what, z->method);
    if (z->lho > s->n || s->n - z->lho < 30 || memcmp(d + z->lho, "PK\x03\x04", 4) != 0)
        return GK__U_ERR(GK_ERR_FORMAT, "%s: no local header at offset %llu", what, (unsigned long long)z->lho);
    dat = z->lho + 30 + gk__kv_u16(d + z->lho + 26) + gk__kv_u16(d + z->lho + 28);
    if (dat > s->n || z->csize > s->n - dat)
        return GK__U_ERR(GK_ERR_FORMAT, "%s: %llu bytes of data at offset %llu run past the end of the file", what,
                         (unsigned long long)z->csize, (unsigned long long)dat);
    if (z->usize > GK__KV_MAX_MEMBER)
        return GK__U_ERR(GK_ERR_LIMIT, "%s: %llu bytes uncompressed, larger than a voice", what, (unsigned long long)z->usize);
    if (z->method == 0) {
        if (z->csize != z->usize)
            return GK__U_ERR(GK_ERR_FORMAT, "%s: stored, but its sizes differ (%llu, %llu)", what, (unsigned long long)z->csize,
                             (unsigned long long)z->usize);
        if (gk__kv_crc32(d + dat, (size_t)z->usize) != z->crc) return GK__U_ERR(GK_ERR_FORMAT, "%s: CRC-32 mismatch", what);
        return gk__kv_npy(what, d + dat, (size_t)z->usize, out);
    }
    buf = (unsigned char *)gk__u_malloc((size_t)z->usize);
    if (!buf) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", what);
    st = gk__kv_inflate(what, d + dat, (size_t)z->csize, buf, (size_t)z->usize);
    if (st == GK_OK && gk__kv_crc32(buf, (size_t)z->usize) != z->crc) st = GK__U_ERR(GK_ERR_FORMAT, "%s: CRC-32 mismatch", what);
    if (st == GK_OK) st = gk__kv_npy(what, buf, (size_t)z->usize, out);
    gk__u_free(buf);
    return st;
}

/* the voice name of an npz member: its name less ".npy" */
static size_t gk__kv_member_name(const gk__kv_zent *z) { return z->nlen >= 4 && memcmp(z->name + z->nlen - 4, ".npy", 4) == 0 ? z->nlen - 4 : z->nlen; }

static gk_status gk__kv_tensor(const gk__kv_src *s, const gk_st_tensor_info *t, gk_kokoro_voice *out) {
    uint64_t sh[GK_ST_MAX_DIMS];
    char shs[160];
    int i;
    float *f;
    size_t k;
    for (i = 0; i < t->ndim; i++) sh[i] = (uint64_t)t->shape[i];
    if (t->dtype != GK_ST_F32 && t->dtype != GK_ST_F16 && t->dtype != GK_ST_BF16)
        return GK__U_ERR(GK_ERR_DTYPE, "%s: tensor '%s' is %s: a voice is F32 (or F16 / BF16)", s->what, t->name, gk_st_dtype_name(t->dtype));
    if (!gk__kv_shape_ok(sh, t->ndim)) {
        gk__kv_shape_str(sh, t->ndim, shs, sizeof shs);
        return GK__U_ERR(GK_ERR_SHAPE, "%s: tensor '%s' has shape %s: a voice is (510, 1, 256) or (510, 256)", s->what, t->name, shs);
    }
    f = (float *)gk__u_malloc(GK__KV_BYTES);
    if (!f) return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", s->what);
    if (gk_st_read(s->st, t->name, GK_F32, f, GK__KV_BYTES) != GK_OK) {
        char msg[512];
        gk__u_errcopy(msg, sizeof msg);
        gk__u_free(f);
        return GK__U_ERR(GK_ERR_FORMAT, "%s: %s", s->what, msg);
    }
    for (k = 0; k < GK__KV_FLOATS; k++)
        if (!(f[k] - f[k] == 0.0f)) {
            int nan = f[k] != f[k];
            gk__u_free(f);
            return GK__U_ERR(GK_ERR_FORMAT, "%s: tensor '%s': row %llu, column %llu is %s", s->what, t->name,
                             (unsigned long long)(k / GK_KOKORO_STYLE_DIM), (unsigned long long)(k % GK_KOKORO_STYLE_DIM),
                             nan ? "NaN" : "infinite");
        }
    out->data = f;
    out->rows = GK_KOKORO_VOICE_ROWS;
    return GK_OK;
}

/* "a, b, c, ..." (the first six names) of a bundle for messages */
static void gk__kv_some_names(const gk__kv_src *s, char *o, size_t cap) {
    size_t i, k = 0, n = s->kind == GK__KV_NPZ ? s->nent : gk_st_count(s->st);
    o[0] = 0;
    for (i = 0; i < n && i < 6; i++) {
        if (i) gk__kv_cat(o, cap, &k, ", ", 2);
        if (s->kind == GK__KV_NPZ) gk__kv_cat(o, cap, &k, s->ent[i].name, gk__kv_member_name(&s->ent[i]));
        else gk__kv_cat(o, cap, &k, gk_st_tensor(s->st, i)->name, strlen(gk_st_tensor(s->st, i)->name));
    }
    if (n > 6) gk__kv_cat(o, cap, &k, ", ...", 5);
}

/* one voice of a source by name (NULL or "": its only voice) */
static gk_status gk__kv_get(const gk__kv_src *s, const char *name, gk_kokoro_voice *out) {
    int named = name && name[0];
    char list[400];
    size_t i, nl = named ? strlen(name) : 0;
    memset(out, 0, sizeof *out);
    switch (s->kind) {
    case GK__KV_RAW:
    case GK__KV_NPY:
        if (named && s->base[0] && strcmp(name, s->base) != 0)
            return GK__U_ERR(GK_ERR_NOT_FOUND, "%s holds one voice, '%s', not '%s'", s->what, s->base, name);
        return s->kind == GK__KV_RAW ? gk__kv_floats(s->what, s->d, out) : gk__kv_npy(s->what, s->d, s->n, out);
    case GK__KV_NPZ:
        if (s->nent == 0) return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: the .npz holds no voices", s->what);
        if (!named) {
            if (s->nent == 1) return gk__kv_member(s, &s->ent[0], out);
            gk__kv_some_names(s, list, sizeof list);
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s holds %llu voices (%s): name one", s->what, (unsigned long long)s->nent, list);
        }
        for (i = 0; i < s->nent; i++)
            if (gk__kv_member_name(&s->ent[i]) == nl && memcmp(s->ent[i].name, name, nl) == 0) return gk__kv_member(s, &s->ent[i], out);
        if (s->nent == 1 && s->base[0] && strcmp(name, s->base) == 0) return gk__kv_member(s, &s->ent[0], out);
        gk__kv_some_names(s, list, sizeof list);
        return GK__U_ERR(GK_ERR_NOT_FOUND, "%s has no voice '%s' (it holds %llu: %s)", s->what, name, (unsigned long long)s->nent, list);
    case GK__KV_ST: {
        size_t n = gk_st_count(s->st);
        const gk_st_tensor_info *t;
        if (n == 0) return GK__U_ERR(GK_ERR_NOT_FOUND, "%s: the safetensors file holds no tensors", s->what);
        if (!named) {
            if (n == 1) return gk__kv_tensor(s, gk_st_tensor(s->st, 0), out);
            gk__kv_some_names(s, list, sizeof list);
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s holds %llu voices (%s): name one", s->what, (unsigned long long)n, list);
        }
        if ((t = gk_st_find(s->st, name)) != NULL) return gk__kv_tensor(s, t, out);
        if (n == 1 && s->base[0] && strcmp(name, s->base) == 0) return gk__kv_tensor(s, gk_st_tensor(s->st, 0), out);
        gk__kv_some_names(s, list, sizeof list);
        return GK__U_ERR(GK_ERR_NOT_FOUND, "%s has no voice '%s' (it holds %llu: %s)", s->what, name, (unsigned long long)n, list);
    }
    case GK__KV_DIR: {
        static const char *const ext[3] = {".bin", ".npy", ".safetensors"};
        gk_buf p = {NULL, 0, 0};
        gk_status st = GK_OK;
        int e;
        if (!named) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s is a folder of voices: name one", s->what);
        if (strchr(name, '/') || strchr(name, '\\'))
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "voice name '%s' holds a path separator: name a voice of the folder %s", name, s->what);
        for (e = 0; e < 4 && st == GK_OK; e++) {
            p.len = 0;
            st = gk__u_buf_puts(&p, s->what);
            if (st == GK_OK) st = gk__u_buf_puts(&p, "/");
            if (st == GK_OK) st = gk__u_buf_puts(&p, name);
            if (st == GK_OK) st = gk__u_buf_puts(&p, e < 3 ? ext[e] : ".pt");
            if (st == GK_OK && gk__kv_isfile(p.data)) {
                gk__kv_src f;
                if (e == 3) {
                    st = GK__U_ERR(GK_ERR_UNSUPPORTED, "%s: %s", p.data, gk__kv_pt_help);
                    break;
                }
                if ((st = gk__kv_src_file(p.data, &f)) == GK_OK) {
                    st = gk__kv_get(&f, f.kind == GK__KV_NPZ || f.kind == GK__KV_ST ? NULL : name, out);
                    if (st == GK_ERR_INVALID_ARGUMENT && (f.kind == GK__KV_NPZ || f.kind == GK__KV_ST)) st = gk__kv_get(&f, name, out);
                    gk__kv_src_free(&f);
                }
                gk_buf_free(&p);
                return st;
            }
        }
        gk_buf_free(&p);
        if (st != GK_OK) return st;
        return GK__U_ERR(GK_ERR_NOT_FOUND, "%s has no voice '%s' (looked for %s.bin, %s.npy, %s.safetensors)", s->what, name, name, name, name);
    }
    default:
        return GK__U_ERR(GK_ERR_INTERNAL, "%s: unknown source", s->what);
    }
}

/* ---- blends ---- */
GKLLMDEF gk_status gk_kokoro_voice_blend(const gk_kokoro_voice *voices, const double *weights, size_t n, gk_kokoro_voice *out) {
    const char *F = "gk_kokoro_voice_blend";
    double sum = 0, *acc;
    size_t i, k, rows;
    float *f;
    if (out) memset(out, 0, sizeof *out);
    if (!voices || !out || n == 0) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s", F, !out ? "out is NULL" : !voices ? "voices is NULL" : "n is 0");
    rows = voices[0].rows;
    for (i = 0; i < n; i++) {
        double w = weights ? weights[i] : 1.0;
        if (!voices[i].data || voices[i].rows == 0) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: voice %llu is empty", F, (unsigned long long)i);
        if (voices[i].rows != rows)
            return GK__U_ERR(GK_ERR_SHAPE, "%s: voice %llu has %llu rows, voice 0 has %llu", F, (unsigned long long)i,
                             (unsigned long long)voices[i].rows, (unsigned long long)rows);
        if (!(w > 0) || w - w != 0)
            return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: weight %llu is %g: weights must be positive and finite", F, (unsigned long long)i, w);
        sum += w;
    }
    if (!(sum - sum == 0)) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: the weights sum to %g", F, sum);
    acc = (double *)gk__u_calloc(rows * GK_KOKORO_STYLE_DIM, sizeof(double));
    f = (float *)gk__u_malloc(rows * GK_KOKORO_STYLE_DIM * sizeof(float));
    if (!acc || !f) {
        gk__u_free(acc);
        gk__u_free(f);
        return GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", F);
    }
    for (i = 0; i < n; i++) {
        double w = (weights ? weights[i] : 1.0) / sum;
        const float *v = voices[i].data;
        for (k = 0; k < rows * GK_KOKORO_STYLE_DIM; k++) acc[k] += w * (double)v[k];
    }
    for (k = 0; k < rows * GK_KOKORO_STYLE_DIM; k++) f[k] = (float)acc[k];
    gk__u_free(acc);
    out->data = f;
    out->rows = rows;
    return GK_OK;
}

/* a weight's text: [+-]digits[.digits][e[+-]digits] (or .digits) */
static int gk__kv_number(const char *s, size_t n) {
    size_t i = 0, dg = 0;
    if (i < n && (s[i] == '+' || s[i] == '-')) i++;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++, dg++;
    if (i < n && s[i] == '.') {
        i++;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++, dg++;
    }
    if (!dg) return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t e0;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-')) i++;
        e0 = i;
        while (i < n && s[i] >= '0' && s[i] <= '9') i++;
        if (i == e0) return 0;
    }
    return i == n;
}

static gk_status gk__kv_load(gk__kv_src *s, const char *spec, gk_kokoro_voice *out) {
    const char *F = "gk_kokoro_voice_load";
    gk_kokoro_voice *packs = NULL;
    double *w = NULL;
    size_t n = 0, cap = 0, i;
    const char *p = spec;
    gk_status st = GK_OK;
    int weighted = 0;
    if (!spec || !spec[0]) return gk__kv_get(s, NULL, out);
    while (st == GK_OK) {
        const char *e = strchr(p, ','), *c, *nb, *ne;
        char name[256], num[64];
        double v = 1;
        if (!e) e = p + strlen(p);
        for (c = e; c > p && c[-1] != ':'; c--) {}
        nb = p;
        ne = c > p ? c - 1 : e;
        while (nb < ne && (*nb == ' ' || *nb == '\t')) nb++;
        while (ne > nb && (ne[-1] == ' ' || ne[-1] == '\t')) ne--;
        if (ne == nb) {
            st = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: voice spec '%s': an empty voice name at byte %llu", F, spec, (unsigned long long)(p - spec));
            break;
        }
        if ((size_t)(ne - nb) >= sizeof name) {
            st = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: voice spec '%s': a voice name longer than %d bytes", F, spec, (int)sizeof name - 1);
            break;
        }
        memcpy(name, nb, (size_t)(ne - nb));
        name[ne - nb] = 0;
        if (c > p) { /* ":weight" */
            const char *wb = c, *we = e;
            while (wb < we && (*wb == ' ' || *wb == '\t')) wb++;
            while (we > wb && (we[-1] == ' ' || we[-1] == '\t')) we--;
            if ((size_t)(we - wb) >= sizeof num || !gk__kv_number(wb, (size_t)(we - wb))) {
                st = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: voice spec '%s': the weight '%.*s' of '%s' is not a number", F, spec,
                               (int)(we - wb > 40 ? 40 : we - wb), wb, name);
                break;
            }
            memcpy(num, wb, (size_t)(we - wb));
            num[we - wb] = 0;
            v = strtod(num, NULL);
            if (!(v > 0) || v - v != 0) {
                st = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: voice spec '%s': the weight %s of '%s' is %s: weights must be positive and finite",
                               F, spec, num, name, v < 0 ? "negative" : v == 0 ? "zero" : "not finite");
                break;
            }
            weighted = 1;
        }
        if (n == cap) {
            size_t wcap = cap;
            if (!gk__u_grow((void **)&packs, &cap, n + 1, sizeof *packs) || !gk__u_grow((void **)&w, &wcap, cap, sizeof *w)) {
                st = GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", F);
                break;
            }
        }
        if ((st = gk__kv_get(s, name, &packs[n])) != GK_OK) break;
        w[n++] = v;
        if (!*e) break;
        p = e + 1;
    }
    if (st == GK_OK) {
        if (n == 1 && !weighted) { /* one voice: as stored */
            *out = packs[0];
            packs[0].data = NULL;
        } else
            st = gk_kokoro_voice_blend(packs, w, n, out);
    }
    for (i = 0; i < n; i++) gk_kokoro_voice_free(&packs[i]);
    gk__u_free(packs);
    gk__u_free(w);
    return st;
}

GKLLMDEF gk_status gk_kokoro_voice_load(const char *path, const char *spec, gk_kokoro_voice *out) {
    gk__kv_src s;
    gk_status st;
    if (out) memset(out, 0, sizeof *out);
    if (!path || !out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_kokoro_voice_load: %s is NULL", path ? "out" : "path");
    if ((st = gk__kv_src_file(path, &s)) != GK_OK) return st;
    st = gk__kv_load(&s, spec, out);
    gk__kv_src_free(&s);
    return st;
}

GKLLMDEF gk_status gk_kokoro_voice_load_memory(const void *data, size_t size, const char *name, const char *spec, gk_kokoro_voice *out) {
    gk__kv_src s;
    gk_status st;
    if (out) memset(out, 0, sizeof *out);
    if (!out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_kokoro_voice_load_memory: out is NULL");
    if (!data && size) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "gk_kokoro_voice_load_memory: data is NULL but size is %llu", (unsigned long long)size);
    memset(&s, 0, sizeof s);
    s.what = name ? name : "memory";
    s.d = (const unsigned char *)(data ? data : "");
    s.n = size;
    if ((st = gk__kv_src_mem(&s)) == GK_OK) st = gk__kv_load(&s, spec, out);
    gk__kv_src_free(&s);
    return st;
}

/* the voice files of a folder (*.bin, *.npy, *.safetensors) less their extension, NUL-separated */
static gk_status gk__kv_dir_add(gk_buf *names, size_t *n, const char *nm) {
    size_t l = strlen(nm), k = 0;
    gk_status st;
    if (l > 4 && (strcmp(nm + l - 4, ".bin") == 0 || strcmp(nm + l - 4, ".npy") == 0)) k = l - 4;
    else if (l > 12 && strcmp(nm + l - 12, ".safetensors") == 0) k = l - 12;
    if (!k) return GK_OK;
    if ((st = gk_buf_append(names, nm, k)) != GK_OK) return st;
    (*n)++;
    return gk_buf_append(names, "", 1);
}
#if defined(_WIN32)
static gk_status gk__kv_dir_names(const char *F, const char *path, gk_buf *names, size_t *n) {
    WIN32_FIND_DATAA fd;
    HANDLE h;
    gk_buf pat = {NULL, 0, 0};
    gk_status st = gk__u_buf_puts(&pat, path);
    if (st == GK_OK) st = gk__u_buf_puts(&pat, "\\*");
    if (st != GK_OK) return st;
    h = FindFirstFileA(pat.data, &fd);
    gk_buf_free(&pat);
    if (h == INVALID_HANDLE_VALUE) return GK__U_ERR(GK_ERR_IO, "%s: cannot list the folder '%s' (error %lu)", F, path, (unsigned long)GetLastError());
    do st = gk__kv_dir_add(names, n, fd.cFileName);
    while (st == GK_OK && FindNextFileA(h, &fd));
    FindClose(h);
    return st;
}
#else
static gk_status gk__kv_dir_names(const char *F, const char *path, gk_buf *names, size_t *n) {
    DIR *dir = opendir(path);
    struct dirent *de;
    gk_status st = GK_OK;
    if (!dir) return GK__U_ERR(GK_ERR_IO, "%s: cannot open the folder '%s': %s", F, path, strerror(errno));
    while (st == GK_OK && (de = readdir(dir)) != NULL) st = gk__kv_dir_add(names, n, de->d_name);
    closedir(dir);
    return st;
}
#endif

GKLLMDEF gk_status gk_kokoro_voice_list(const char *path, gk_buf *out) {
    const char *F = "gk_kokoro_voice_list";
    gk__kv_src s;
    gk_buf names = {NULL, 0, 0}; /* NUL-separated */
    const char **v = NULL;
    size_t n = 0, i, off, len0;
    gk_status st;
    if (!path || !out) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", F, path ? "out" : "path");
    len0 = out->len;
    if ((st = gk__kv_src_file(path, &s)) != GK_OK) return st;
#define GK__KV_NAME(p, l)                                              \
    do {                                                               \
        if (st == GK_OK) st = gk_buf_append(&names, (p), (l));         \
        if (st == GK_OK) st = gk_buf_append(&names, "", 1);            \
        n++;                                                           \
    } while (0)
    if (s.kind == GK__KV_RAW || s.kind == GK__KV_NPY) GK__KV_NAME(s.base, strlen(s.base));
    else if (s.kind == GK__KV_NPZ)
        for (i = 0; i < s.nent; i++) GK__KV_NAME(s.ent[i].name, gk__kv_member_name(&s.ent[i]));
    else if (s.kind == GK__KV_ST)
        for (i = 0; i < gk_st_count(s.st); i++) GK__KV_NAME(gk_st_tensor(s.st, i)->name, strlen(gk_st_tensor(s.st, i)->name));
    else
        st = gk__kv_dir_names(F, path, &names, &n);
#undef GK__KV_NAME
    if (st == GK_OK && n) {
        v = (const char **)gk__u_calloc(n, sizeof *v);
        if (!v) st = GK__U_ERR(GK_ERR_OUT_OF_MEMORY, "%s: out of memory", F);
    }
    if (st == GK_OK) {
        for (i = 0, off = 0; i < n; i++) {
            v[i] = names.data + off;
            off += strlen(v[i]) + 1;
        }
        qsort(v, n, sizeof *v, gk__kv_cmp_str);
        for (i = 0; i < n && st == GK_OK; i++) {
            if (i && strcmp(v[i], v[i - 1]) == 0) continue;
            st = gk__u_buf_puts(out, v[i]);
            if (st == GK_OK) st = gk_buf_append(out, "\n", 1);
        }
    }
    if (st != GK_OK && out->data) {
        out->len = len0;
        out->data[len0] = 0;
    }
    gk__u_free(v);
    gk_buf_free(&names);
    gk__kv_src_free(&s);
    return st;
}

GKLLMDEF void gk_kokoro_voice_free(gk_kokoro_voice *v) {
    if (!v) return;
    gk__u_free(v->data);
    memset(v, 0, sizeof *v);
}

GKLLMDEF gk_status gk_kokoro_voice_style(const gk_kokoro_voice *v, size_t n_phonemes, const float **style) {
    const char *F = "gk_kokoro_voice_style";
    if (style) *style = NULL;
    if (!v || !style) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: %s is NULL", F, v ? "style" : "voice");
    if (!v->data || v->rows == 0) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: the voice is empty", F);
    if (n_phonemes == 0) return GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "%s: no phonemes: the style row is chosen by a count of at least 1", F);
    if (n_phonemes > v->rows)
        return GK__U_ERR(GK_ERR_LIMIT, "%s: %llu phonemes, the voice has styles for 1 to %llu (cut the phonemes into chunks)", F,
                         (unsigned long long)n_phonemes, (unsigned long long)v->rows);
    *style = v->data + (n_phonemes - 1) * GK_KOKORO_STYLE_DIM;
    return GK_OK;
}
/* ======================================================================== */
/* >>impl_kokoro                                                            */
/* ======================================================================== */
/* The Kokoro model: config.json, the weights (folded and stacked at load),
   the model's lifetime. The forward pass is >>impl_kokoro_forward. It uses
   the text runtime's helpers (gk__lv scratch views, gk__llm_free_t,
   gk__llm_prog). */

#if defined(__GNUC__) || defined(__clang__)
#define GK__KOK_TEST_ONLY __attribute__((unused)) /* called by tests/test_kokoro_model.c only */
#else
#define GK__KOK_TEST_ONLY
#endif

/* An AdaIN / AdaLayerNorm's place in the style vectors: its scale
   (1 + gamma, the affine folded in) is rows off..off+C-1 of style half
   `half` (0: the decoder's, ref_s[0:128]; 1: the prosody predictor's,
   ref_s[128:256]), its shift the next C rows. */
typedef struct gk__kok_ada { int half; int64_t off, C; } gk__kok_ada;
/* a bidirectional LSTM: [2, 4H, I], [2, 4H, H], [2, 4H], [2, 4H] (forward, reverse) */
typedef struct gk__kok_lstm { gk_tensor wih, whh, bih, bhh; int64_t I, H; } gk__kok_lstm;
/* AdainResBlk1d(cin, cout, upsample) */
typedef struct gk__kok_arb {
    int64_t cin, cout;
    int up, learned;
    gk__kok_ada n1, n2;
    gk_tensor c1w, c1b, c2w, c2b, scw, poolw, poolb;
} gk__kok_arb;
/* AdaINResBlock1(C, K, dilations) */
typedef struct gk__kok_rb1 {
    int64_t C, K, dil[3];
    gk__kok_ada a1[3], a2[3];
    gk_tensor c1w[3], c1b[3], c2w[3], c2b[3], al1[3], al2[3];
} gk__kok_rb1;

#define GK__KOK_MAX_LAYER 64   /* n_layer at most */

struct gk_kokoro_model {
    gk_ctx *ctx;
    gk_kokoro_config cfg;
    gk_dtype dt;
    int tf32;                  /* gk_kokoro_desc.allow_tf32: the stride-1 convolutions on TF32 tensor cores */
    gk_stream *stream, *stream_use;
    gk_tensor *owned;          /* every tensor the model allocated (freed by gk_kokoro_free) */
    size_t n_owned, cap_owned;
    /* ALBERT: embeddings, mapping, the shared layer (q / k / v fused) */
    gk_tensor b_word, b_pos, b_type, b_eln_w, b_eln_b, b_map_w, b_map_b;
    gk_tensor b_qkv_w, b_qkv_b, b_o_w, b_o_b, b_aln_w, b_aln_b, b_ffn_w, b_ffn_b, b_ffo_w, b_ffo_b, b_fln_w, b_fln_b;
    gk_tensor benc_w, benc_b;
    /* prosody predictor */
    gk__kok_lstm dur_lstm[GK__KOK_MAX_LAYER];
    gk__kok_ada dur_aln[GK__KOK_MAX_LAYER];
    gk__kok_lstm p_lstm, p_shared;
    gk_tensor dproj_w, dproj_b;
    gk__kok_arb f0b[3], nb[3];
    gk_tensor f0p_w, f0p_b, np_w, np_b;
    /* text encoder */
    gk_tensor te_emb, te_cw[GK__KOK_MAX_LAYER], te_cb[GK__KOK_MAX_LAYER], te_g[GK__KOK_MAX_LAYER], te_b[GK__KOK_MAX_LAYER];
    gk__kok_lstm te_lstm;
    /* decoder */
    gk_tensor f0c_w, f0c_b, nc_w, nc_b, asr_w, asr_b;
    gk__kok_arb enc, dec[4];
    /* generator */
    gk_tensor src_w, src_b;                                  /* m_source.l_linear: [1, 9], [1] */
    gk_tensor ups_w[GK_KOKORO_MAX_UPS], ups_b[GK_KOKORO_MAX_UPS];
    gk_tensor ncv_w[GK_KOKORO_MAX_UPS], ncv_b[GK_KOKORO_MAX_UPS];
    gk__kok_rb1 nres[GK_KOKORO_MAX_UPS];
    gk__kok_rb1 *rbs;                                        /* [n_ups * n_resblocks] */
    gk_tensor post_w, post_b;
    /* every AdaIN / AdaLayerNorm fc of a style half, stacked (see gk__kok_ada) */
    gk_tensor sty_w[2], sty_b[2];
    int64_t sty_n[2];
    /* constants: the harmonic numbers [1, 9, 1], and scalars [1] */
    gk_tensor harm, k_sr, k_zero, k_one, k_vthr, k_amp_v, k_amp_u, k_nk;
};

/* ---- config ---- */
typedef struct gk__kok_cf { gk_ctx *ctx; const char *path; } gk__kok_cf;
static gk_status gk__kok_cf_err(const gk__kok_cf *cf, gk_status st, const char *fmt, ...) GK__PRINTF(3, 4);
static gk_status gk__kok_cf_err(const gk__kok_cf *cf, gk_status st, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gk_error_set(cf->ctx, st, "gk_kokoro_load: %s: %s", cf->path, msg);
}
/* an integer in lo..hi at obj[key] (shown as pre + key); missing or null: def, or an error when required */
static gk_status gk__kok_cf_int(const gk__kok_cf *cf, const gk_json_value *obj, const char *pre, const char *key, int required, int64_t def, int64_t lo,
                                int64_t hi, int64_t *out) {
    const gk_json_value *v = gk_json_get(obj, key);
    char vb[64];
    if (gk_json_is_null(v)) {
        if (required) return gk__kok_cf_err(cf, GK_ERR_FORMAT, "%s%s is %s; the model needs it", pre, key, v ? "null" : "missing");
        *out = def;
        return GK_OK;
    }
    if (gk_json_typeof(v) != GK_JSON_INT) return gk__kok_cf_err(cf, GK_ERR_FORMAT, "%s%s = %s is not an integer", pre, key, gk__json_show(v, vb, sizeof vb));
    *out = gk_json_int(v, 0);
    if (*out < lo || *out > hi)
        return gk__kok_cf_err(cf, GK_ERR_FORMAT, "%s%s = %lld must be in %lld..%lld", pre, key, (long long)*out, (long long)lo, (long long)hi);
    return GK_OK;
}
/* a list of 1..max integers in lo..hi */
static gk_status gk__kok_cf_list(const gk__kok_cf *cf, const gk_json_value *obj, const char *pre, const char *key, int max, int64_t lo, int64_t hi,
                                 int64_t *out, int *n) {
    const gk_json_value *v = gk_json_get(obj, key);
    char vb[64];
    size_t i;
    if (gk_json_is_null(v)) return gk__kok_cf_err(cf, GK_ERR_FORMAT, "%s%s is %s; the model needs it", pre, key, v ? "null" : "missing");
    if (gk_json_typeof(v) != GK_JSON_ARRAY || gk_json_len(v) < 1)
        return gk__kok_cf_err(cf, GK_ERR_FORMAT, "%s%s = %s is not a list of integers", pre, key, gk__json_show(v, vb, sizeof vb));
    if (gk_json_len(v) > (size_t)max)
        return gk__kok_cf_err(cf, GK_ERR_UNSUPPORTED, "%s%s has %llu entries; at most %d are supported", pre, key, (unsigned long long)gk_json_len(v), max);
    for (i = 0; i < gk_json_len(v); i++) {
        const gk_json_value *e = gk_json_at(v, i);
        if (gk_json_typeof(e) != GK_JSON_INT)
            return gk__kok_cf_err(cf, GK_ERR_FORMAT, "%s%s[%llu] = %s is not an integer", pre, key, (unsigned long long)i, gk__json_show(e, vb, sizeof vb));
        out[i] = gk_json_int(e, 0);
        if (out[i] < lo || out[i] > hi)
            return gk__kok_cf_err(cf, GK_ERR_FORMAT, "%s%s[%llu] = %lld must be in %lld..%lld", pre, key, (unsigned long long)i, (long long)out[i], (long long)lo,
                                  (long long)hi);
    }
    *n = (int)gk_json_len(v);
    return GK_OK;
}
static gk_status gk__kok_cf_obj(const gk__kok_cf *cf, const gk_json_value *root, const char *key, const gk_json_value **out) {
    const gk_json_value *v = gk_json_get(root, key);
    char vb[64];
    if (gk_json_is_null(v)) return gk__kok_cf_err(cf, GK_ERR_FORMAT, "%s is %s; the model needs it", key, v ? "null" : "missing");
    if (gk_json_typeof(v) != GK_JSON_OBJECT) return gk__kok_cf_err(cf, GK_ERR_FORMAT, "%s = %s is not an object", key, gk__json_show(v, vb, sizeof vb));
    if (gk__json_dup_key(v)) return gk__kok_cf_err(cf, GK_ERR_FORMAT, "%s: key \"%.60s\" appears twice", key, gk__json_dup_key(v));
    *out = v;
    return GK_OK;
}

/* The lengths through the generator for L frames: every stage's upsampled
   length must equal its source convolution's, the last one's plus the
   reflection pad the STFT frame count. */
static int gk__kok_gen_lengths_ok(const gk_kokoro_config *c, int64_t L) {
    int64_t len = 2 * L, frames, prod = 1, i;
    for (i = 0; i < c->n_ups; i++) prod *= c->ups_rate[i];
    frames = 2 * L * prod + 1; /* STFT frames of 2L * prod * hop samples */
    for (i = 0; i < c->n_ups; i++) {
        int64_t u = c->ups_rate[i], k = c->ups_kernel[i], p = (k - u) / 2, out = (len - 1) * u - 2 * p + k, src;
        if (i + 1 < c->n_ups) {
            int64_t sf = 1, j, pad;
            for (j = i + 1; j < c->n_ups; j++) sf *= c->ups_rate[j];
            pad = (sf + 1) / 2;
            if (frames + 2 * pad < 2 * sf) return 0;
            src = (frames + 2 * pad - 2 * sf) / sf + 1;
        } else {
            src = frames;
            out += 1; /* ReflectionPad1d((1, 0)) */
        }
        if (out != src) return 0;
        len = out;
    }
    return 1;
}

static gk_status gk__kok_config(gk_kokoro_model *m, const char *cpath, const gk_json_value *root) {
    gk_kokoro_config *c = &m->cfg;
    const gk_json_value *pb, *ist, *v, *dl;
    gk__kok_cf cf;
    gk_status s;
    char vb[64];
    int n2 = 0, i;
    int64_t prod = 1, dummy;
    cf.ctx = m->ctx; cf.path = cpath;
    if (gk_json_typeof(root) != GK_JSON_OBJECT) return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "the top level is not an object");
    if (gk__json_dup_key(root)) return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "key \"%.60s\" appears twice", gk__json_dup_key(root));
#define GK__KCF(obj, pre, key, req, def, lo, hi, dst) do { if ((s = gk__kok_cf_int(&cf, obj, pre, key, req, def, lo, hi, &dst)) != GK_OK) return s; } while (0)
    GK__KCF(root, "", "n_token", 1, 0, 2, 1 << 20, c->n_token);
    GK__KCF(root, "", "hidden_dim", 1, 0, 1, 65536, c->hidden_dim);
    GK__KCF(root, "", "style_dim", 1, 0, 1, 65536, c->style_dim);
    GK__KCF(root, "", "max_dur", 1, 0, 1, 65536, c->max_dur);
    GK__KCF(root, "", "n_layer", 1, 0, 1, GK__KOK_MAX_LAYER, c->n_layer);
    GK__KCF(root, "", "text_encoder_kernel_size", 1, 0, 1, 255, c->text_kernel);
    GK__KCF(root, "", "n_mels", 1, 0, 1, 65536, c->n_mels);
    GK__KCF(root, "", "dim_in", 0, 0, 1, 65536, dummy);
    if (c->text_kernel % 2 == 0)
        return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "text_encoder_kernel_size = %lld: only odd sizes keep the sequence length", (long long)c->text_kernel);
    if (c->hidden_dim != 512)
        return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "hidden_dim = %lld: the decoder's asr_res convolution is fixed at 512 input channels", (long long)c->hidden_dim);
    if (c->style_dim != 128)
        return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "style_dim = %lld: the model splits ref_s at 128 (decoder | prosody)", (long long)c->style_dim);
    v = gk_json_get(root, "dropout");
    if (!gk_json_is_null(v) && gk_json_typeof(v) != GK_JSON_INT && gk_json_typeof(v) != GK_JSON_DOUBLE)
        return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "dropout = %s is not a number", gk__json_show(v, vb, sizeof vb));
    /* plbert: AlbertConfig(vocab_size=n_token, **plbert) */
    if ((s = gk__kok_cf_obj(&cf, root, "plbert", &pb)) != GK_OK) return s;
    GK__KCF(pb, "plbert.", "hidden_size", 1, 0, 1, 65536, c->bert_hidden);
    GK__KCF(pb, "plbert.", "num_attention_heads", 1, 0, 1, 1024, c->bert_heads);
    GK__KCF(pb, "plbert.", "intermediate_size", 1, 0, 1, 1 << 20, c->bert_ffn);
    GK__KCF(pb, "plbert.", "max_position_embeddings", 1, 0, 3, 1 << 20, c->bert_max_pos);
    GK__KCF(pb, "plbert.", "num_hidden_layers", 1, 0, 1, 1024, c->bert_layers);
    GK__KCF(pb, "plbert.", "embedding_size", 0, 128, 1, 65536, c->bert_embed);
    GK__KCF(pb, "plbert.", "type_vocab_size", 0, 2, 1, 65536, c->bert_type_vocab);
    GK__KCF(pb, "plbert.", "num_hidden_groups", 0, 1, 1, 1, dummy);
    GK__KCF(pb, "plbert.", "inner_group_num", 0, 1, 1, 1, dummy);
    if (!gk_json_is_null(gk_json_get(pb, "vocab_size")))
        return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "plbert.vocab_size is given; KModel passes vocab_size = n_token itself");
    if (c->bert_hidden % c->bert_heads)
        return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "plbert.hidden_size = %lld is not a multiple of plbert.num_attention_heads = %lld", (long long)c->bert_hidden,
                              (long long)c->bert_heads);
    if (c->bert_hidden / c->bert_heads > 256) return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "plbert: a head dim above 256 is not supported");
    v = gk_json_get(pb, "layer_norm_eps");
    c->bert_ln_eps = 1e-12;
    if (!gk_json_is_null(v)) {
        if (gk_json_typeof(v) != GK_JSON_INT && gk_json_typeof(v) != GK_JSON_DOUBLE)
            return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "plbert.layer_norm_eps = %s is not a number", gk__json_show(v, vb, sizeof vb));
        c->bert_ln_eps = gk_json_double(v, 0);
        if (!(c->bert_ln_eps >= 0 && c->bert_ln_eps < 1))
            return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "plbert.layer_norm_eps = %s must be in [0, 1)", gk__json_show(v, vb, sizeof vb));
    }
    v = gk_json_get(pb, "hidden_act");
    c->bert_gelu_tanh = 1;
    if (!gk_json_is_null(v)) {
        const char *a = gk_json_str(v, NULL);
        if (!a) return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "plbert.hidden_act = %s is not a string", gk__json_show(v, vb, sizeof vb));
        if (strcmp(a, "gelu") == 0) c->bert_gelu_tanh = 0;
        else if (strcmp(a, "gelu_new") != 0 && strcmp(a, "gelu_pytorch_tanh") != 0)
            return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "plbert.hidden_act = \"%.40s\" is not supported (gelu_new, gelu)", a);
    }
    /* istftnet */
    if ((s = gk__kok_cf_obj(&cf, root, "istftnet", &ist)) != GK_OK) return s;
    if ((s = gk__kok_cf_list(&cf, ist, "istftnet.", "upsample_rates", GK_KOKORO_MAX_UPS, 1, 64, c->ups_rate, &c->n_ups)) != GK_OK) return s;
    if ((s = gk__kok_cf_list(&cf, ist, "istftnet.", "upsample_kernel_sizes", GK_KOKORO_MAX_UPS, 1, 256, c->ups_kernel, &n2)) != GK_OK) return s;
    if (n2 != c->n_ups)
        return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "istftnet.upsample_kernel_sizes has %d entries but istftnet.upsample_rates %d", n2, c->n_ups);
    for (i = 0; i < c->n_ups; i++) {
        if (c->ups_kernel[i] < c->ups_rate[i] || (c->ups_kernel[i] - c->ups_rate[i]) % 2)
            return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "istftnet.upsample_kernel_sizes[%d] = %lld: the kernel minus the rate (%lld) must be even and >= 0", i,
                                  (long long)c->ups_kernel[i], (long long)c->ups_rate[i]);
        prod *= c->ups_rate[i];
    }
    GK__KCF(ist, "istftnet.", "upsample_initial_channel", 1, 0, 1, 65536, c->ups_channels);
    if (c->ups_channels != 512)
        return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "istftnet.upsample_initial_channel = %lld: the decoder's last block gives 512 channels", (long long)c->ups_channels);
    if (c->ups_channels % ((int64_t)1 << c->n_ups))
        return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "istftnet: %d upsampling stages halve 512 channels too often", c->n_ups);
    if ((s = gk__kok_cf_list(&cf, ist, "istftnet.", "resblock_kernel_sizes", GK_KOKORO_MAX_RESBLOCKS, 1, 255, c->res_kernel, &c->n_resblocks)) != GK_OK) return s;
    for (i = 0; i < c->n_resblocks; i++)
        if (c->res_kernel[i] % 2 == 0)
            return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "istftnet.resblock_kernel_sizes[%d] = %lld: only odd kernels keep the length", i, (long long)c->res_kernel[i]);
    dl = gk_json_get(ist, "resblock_dilation_sizes");
    if (gk_json_typeof(dl) != GK_JSON_ARRAY)
        return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "istftnet.resblock_dilation_sizes = %s is not a list of lists", gk__json_show(dl, vb, sizeof vb));
    if ((int)gk_json_len(dl) != c->n_resblocks)
        return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "istftnet.resblock_dilation_sizes has %llu entries but istftnet.resblock_kernel_sizes %d",
                              (unsigned long long)gk_json_len(dl), c->n_resblocks);
    for (i = 0; i < c->n_resblocks; i++) {
        const gk_json_value *e = gk_json_at(dl, (size_t)i);
        size_t k;
        if (gk_json_typeof(e) != GK_JSON_ARRAY || gk_json_len(e) != 3)
            return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "istftnet.resblock_dilation_sizes[%d] = %s is not a list of 3 dilations", i, gk__json_show(e, vb, sizeof vb));
        for (k = 0; k < 3; k++) {
            const gk_json_value *x = gk_json_at(e, k);
            if (gk_json_typeof(x) != GK_JSON_INT || gk_json_int(x, 0) < 1 || gk_json_int(x, 0) > 255)
                return gk__kok_cf_err(&cf, GK_ERR_FORMAT, "istftnet.resblock_dilation_sizes[%d][%llu] = %s must be an integer in 1..255", i, (unsigned long long)k,
                                      gk__json_show(x, vb, sizeof vb));
            c->res_dilation[i][k] = gk_json_int(x, 0);
        }
    }
    GK__KCF(ist, "istftnet.", "gen_istft_n_fft", 1, 0, 2, 4096, c->n_fft);
    GK__KCF(ist, "istftnet.", "gen_istft_hop_size", 1, 0, 1, 4096, c->hop);
    if (c->n_fft % 2) return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "istftnet.gen_istft_n_fft = %lld must be even", (long long)c->n_fft);
    if (c->hop > c->n_fft)
        return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "istftnet.gen_istft_hop_size = %lld is above gen_istft_n_fft = %lld (the iSTFT needs overlap)", (long long)c->hop,
                              (long long)c->n_fft);
#undef GK__KCF
    c->samples_per_frame = 2 * prod * c->hop;
    if (!gk__kok_gen_lengths_ok(c, 1) || !gk__kok_gen_lengths_ok(c, 2) || !gk__kok_gen_lengths_ok(c, 7))
        return gk__kok_cf_err(&cf, GK_ERR_UNSUPPORTED, "istftnet: the upsampled lengths of upsample_rates / upsample_kernel_sizes do not line up with the source's STFT frames");
    return GK_OK;
}

/* ---- weights ----
   The model is walked twice by gk__kok_walk: a check pass (every tensor
   present, of a float dtype and the config's shape; the style rows
   counted) before anything is allocated, then the load pass (read as f32,
   folded, stacked, uploaded). */
typedef void (*gk__kok_list_fn)(void *user, const char *name, int nd, const int64_t *shape, int optional);
typedef struct gk__kok_ld {
    gk_kokoro_model *m;
    gk__kok_list_fn list;      /* list mode (no file): every tensor of the published layout to list */
    void *list_user;
    gk_st_tensor_info listed;  /* list mode's stand-in for a found tensor (zero) */
    const gk_safetensors *st;
    const char *wpath;
    int load;                  /* 0: check, 1: load */
    gk_status s;               /* the first failure; later calls do nothing */
    int first;
    gk__llm_prog prog;
    float *sty_w[2], *sty_b[2];/* load pass: the stacked style fc weights [rows, style_dim] and biases */
    int64_t sty_at[2];
} gk__kok_ld;

static void gk__kok_shape_str(char *b, size_t cap, int nd, const int64_t *sh) {
    size_t o = 0;
    int k;
    b[0] = 0;
    for (k = 0; k < nd && o + 24 < cap; k++) o += (size_t)snprintf(b + o, cap - o, "%s%lld", k ? ", " : "", (long long)sh[k]);
}

/* the tensor `name` with shape sh[0..nd) (numel-only when loose: g of weight norm), or NULL with ld->s set (optional: NULL, no error) */
static const gk_st_tensor_info *gk__kok_find(gk__kok_ld *ld, const char *name, int nd, const int64_t *sh, int loose, int optional) {
    const gk_st_tensor_info *ti;
    gk_dtype wd;
    int k, bad = 0;
    if (ld->s != GK_OK) return NULL;
    if (ld->list) {
        int64_t one[3];
        one[0] = sh[0]; one[1] = one[2] = 1;
        ld->list(ld->list_user, name, loose ? 3 : nd, loose ? one : sh, optional);
        return optional ? NULL : &ld->listed;
    }
    ti = gk_st_find(ld->st, name);
    if (!ti) {
        if (!optional) ld->s = gk_error_set(ld->m->ctx, GK_ERR_NOT_FOUND, "gk_kokoro_load: tensor %s is missing from %s", name, ld->wpath);
        return NULL;
    }
    if (!gk_st_gk_dtype(ti->dtype, &wd) || (wd != GK_F32 && wd != GK_F16 && wd != GK_BF16 && wd != GK_F64)) {
        ld->s = gk_error_set(ld->m->ctx, GK_ERR_DTYPE, "gk_kokoro_load: tensor %s is %s (f32, f16, bf16 or f64 expected)", name, gk_st_dtype_name(ti->dtype));
        return NULL;
    }
    if (loose) {
        int64_t n = 1;
        for (k = 0; k < nd; k++) n *= sh[k];
        bad = (int64_t)ti->numel != n;
        for (k = 1; k < ti->ndim && !bad; k++) bad = ti->shape[k] != 1;
    } else {
        bad = ti->ndim != nd;
        for (k = 0; k < nd && !bad; k++) bad = ti->shape[k] != sh[k];
    }
    if (bad) {
        char got[160], exp[96];
        gk__kok_shape_str(got, sizeof got, ti->ndim, ti->shape);
        gk__kok_shape_str(exp, sizeof exp, nd, sh);
        ld->s = gk_error_set(ld->m->ctx, GK_ERR_SHAPE, "gk_kokoro_load: tensor %s has shape [%s]; config.json says [%s]%s", name, got, exp,
                             loose ? " (that many values, as [C] or [C, 1, ...])" : "");
        return NULL;
    }
    if (ld->first) { ld->m->cfg.weights_dtype = wd; ld->first = 0; }
    return ti;
}

static float *gk__kok_read(gk__kok_ld *ld, const char *name, size_t n) {
    float *x;
    gk__u_tl sv;
    gk_status s;
    if (ld->s != GK_OK) return NULL;
    if (!(x = (float *)gk__u_malloc(sizeof(float) * (n ? n : 1)))) {
        ld->s = gk_error_set(ld->m->ctx, GK_ERR_OUT_OF_MEMORY, "gk_kokoro_load: out of host memory for tensor %s", name);
        return NULL;
    }
    gk__u_tl_save(&sv);
    s = gk_st_read(ld->st, name, GK_F32, x, sizeof(float) * n);
    if (s != GK_OK) {
        ld->s = gk__u_tl_move(ld->m->ctx, &sv, s, "gk_kokoro_load: ");
        gk__u_free(x);
        return NULL;
    }
    return x;
}

static void gk__kok_own(gk__kok_ld *ld, gk_tensor t) {
    gk_kokoro_model *m = ld->m;
    if (!gk__u_grow((void **)&m->owned, &m->cap_owned, m->n_owned + 1, sizeof(gk_tensor))) {
        gk_tensor_free(m->ctx, t);
        ld->s = gk_error_set(m->ctx, GK_ERR_OUT_OF_MEMORY, "gk_kokoro_load: out of host memory");
        return;
    }
    m->owned[m->n_owned++] = t;
}

/* host f32 values [nd dims] -> a model tensor of the compute dtype */
static void gk__kok_upload(gk__kok_ld *ld, gk_tensor *dst, const float *x, int nd, const int64_t *sh, const char *name) {
    gk_kokoro_model *m = ld->m;
    gk_tensor t = gk__u_tnull();
    gk_status s;
    int64_t n = 1;
    int k;
    if (ld->s != GK_OK) return;
    for (k = 0; k < nd; k++) n *= sh[k];
    s = gk_tensor_from_host(m->ctx, GK_F32, nd, sh, x, &t);
    if (s != GK_OK) { ld->s = gk_error_set(m->ctx, s, "gk_kokoro_load: tensor %s: %s", name, gk_last_error(m->ctx)); return; }
    gk__kok_own(ld, t);
    if (ld->s != GK_OK) return;
    *dst = t;
    ld->prog.cur = (uint64_t)n * gk_dtype_size(m->dt);
    gk__llm_prog_cb(1, 1, &ld->prog);
    ld->prog.base += ld->prog.cur;
}

/* a plain tensor, uploaded with the given shape (which may flatten the file's, e.g. alpha [1, C, 1] -> [C]) */
static void gk__kok_t(gk__kok_ld *ld, gk_tensor *dst, const char *name, int nd, int64_t d0, int64_t d1, int64_t d2) {
    int64_t sh[3];
    const gk_st_tensor_info *ti;
    sh[0] = d0; sh[1] = d1; sh[2] = d2;
    if (!(ti = gk__kok_find(ld, name, nd, sh, 0, 0))) return;
    if (!ld->load) { ld->prog.total += ti->numel * gk_dtype_size(ld->m->dt); return; }
    {
        float *x = gk__kok_read(ld, name, (size_t)ti->numel);
        if (x) gk__kok_upload(ld, dst, x, nd, sh, name);
        gk__u_free(x);
    }
}
/* alpha [1, C, 1] stored, [C] uploaded */
static void gk__kok_alpha(gk__kok_ld *ld, gk_tensor *dst, const char *name, int64_t C) {
    int64_t sh[3];
    const gk_st_tensor_info *ti;
    sh[0] = 1; sh[1] = C; sh[2] = 1;
    if (!(ti = gk__kok_find(ld, name, 3, sh, 0, 0))) return;
    if (!ld->load) { ld->prog.total += ti->numel * gk_dtype_size(ld->m->dt); return; }
    {
        float *x = gk__kok_read(ld, name, (size_t)C);
        if (x) gk__kok_upload(ld, dst, x, 1, &C, name);
        gk__u_free(x);
    }
}

/* A weight-normed weight [d0, d1, d2] (v's shape), its first dim the norm's:
   <p>.weight_g / <p>.weight_v, or <p>.parametrizations.weight.original0 /
   original1, or <p>.weight folded; and <p>.bias [nbias] unless nbias is 0. */
static void gk__kok_wn(gk__kok_ld *ld, gk_tensor *w, gk_tensor *b, const char *p, int64_t nbias, int64_t d0, int64_t d1, int64_t d2) {
    static const char *const gn[2] = { "weight_g", "parametrizations.weight.original0" }, *const vn[2] = { "weight_v", "parametrizations.weight.original1" };
    char gname[200], vname[200], wname[200];
    int64_t sh[3];
    int form = -1, k;
    const gk_st_tensor_info *tv = NULL;
    if (ld->s != GK_OK) return;
    sh[0] = d0; sh[1] = d1; sh[2] = d2;
    for (k = 0; k < 2 && form < 0; k++) {
        snprintf(vname, sizeof vname, "%s.%s", p, vn[k]);
        if (ld->list || gk_st_find(ld->st, vname)) form = k;
    }
    snprintf(wname, sizeof wname, "%s.weight", p);
    if (form < 0) {
        if (!gk_st_find(ld->st, wname)) {
            ld->s = gk_error_set(ld->m->ctx, GK_ERR_NOT_FOUND, "gk_kokoro_load: tensor %s.weight_v (or %s.parametrizations.weight.original1, or %s folded) is missing from %s", p,
                                 p, wname, ld->wpath);
            return;
        }
        gk__kok_t(ld, w, wname, 3, d0, d1, d2);
    } else {
        snprintf(gname, sizeof gname, "%s.%s", p, gn[form]);
        snprintf(vname, sizeof vname, "%s.%s", p, vn[form]);
        if (!(tv = gk__kok_find(ld, vname, 3, sh, 0, 0))) return;
        if (!gk__kok_find(ld, gname, 1, sh, 1, 0)) return;
        if (!ld->load) ld->prog.total += tv->numel * gk_dtype_size(ld->m->dt);
        else {
            float *v = gk__kok_read(ld, vname, (size_t)tv->numel), *g = gk__kok_read(ld, gname, (size_t)d0);
            if (v && g) {
                int64_t r, j, row = d1 * d2;
                for (r = 0; r < d0; r++) {
                    double ss = 0, f;
                    for (j = 0; j < row; j++) ss += (double)v[r * row + j] * (double)v[r * row + j];
                    f = ss > 0 ? (double)g[r] / sqrt(ss) : 0.0;
                    for (j = 0; j < row; j++) v[r * row + j] = (float)((double)v[r * row + j] * f);
                }
                gk__kok_upload(ld, w, v, 3, sh, vname);
            }
            gk__u_free(v); gk__u_free(g);
        }
    }
    if (nbias) {
        char bname[200];
        snprintf(bname, sizeof bname, "%s.bias", p);
        gk__kok_t(ld, b, bname, 1, nbias, 0, 0);
    }
}

/* a bidirectional LSTM <p> of input size I, hidden size H */
static void gk__kok_lstm_w(gk__kok_ld *ld, gk__kok_lstm *y, const char *p, int64_t I, int64_t H) {
    static const char *const part[4] = { "weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0" };
    gk_tensor *dst[4];
    int64_t cols[4];
    int k, dir;
    dst[0] = &y->wih; dst[1] = &y->whh; dst[2] = &y->bih; dst[3] = &y->bhh;
    cols[0] = I; cols[1] = H; cols[2] = 1; cols[3] = 1;
    y->I = I; y->H = H;
    for (k = 0; k < 4 && ld->s == GK_OK; k++) {
        char name[2][200];
        int64_t sh[2], per = 4 * H * cols[k];
        sh[0] = 4 * H; sh[1] = cols[k];
        for (dir = 0; dir < 2; dir++) {
            snprintf(name[dir], sizeof name[dir], "%s.%s%s", p, part[k], dir ? "_reverse" : "");
            gk__kok_find(ld, name[dir], k < 2 ? 2 : 1, sh, 0, 0);
        }
        if (ld->s != GK_OK) return;
        if (!ld->load) { ld->prog.total += 2 * (uint64_t)per * gk_dtype_size(ld->m->dt); continue; }
        {
            float *both = (float *)gk__u_malloc(sizeof(float) * (size_t)(2 * per));
            int64_t ush[3];
            if (!both) { ld->s = gk_error_set(ld->m->ctx, GK_ERR_OUT_OF_MEMORY, "gk_kokoro_load: out of host memory"); return; }
            for (dir = 0; dir < 2 && ld->s == GK_OK; dir++) {
                gk__u_tl sv;
                gk_status s;
                gk__u_tl_save(&sv);
                s = gk_st_read(ld->st, name[dir], GK_F32, both + dir * per, sizeof(float) * (size_t)per);
                if (s != GK_OK) ld->s = gk__u_tl_move(ld->m->ctx, &sv, s, "gk_kokoro_load: ");
            }
            ush[0] = 2; ush[1] = 4 * H; ush[2] = cols[k];
            if (ld->s == GK_OK) gk__kok_upload(ld, dst[k], both, k < 2 ? 3 : 2, ush, name[0]);
            gk__u_free(both);
        }
    }
}

/* An AdaIN1d / AdaLayerNorm <p> of C channels styled by half `half`:
   <p>.fc.weight [2C, style_dim], <p>.fc.bias [2C], and when affine is
   allowed the optional InstanceNorm <p>.norm.weight / .bias [C]. Stacked
   into the half's style rows as scale (1 + gamma) then shift, the affine
   folded in: (1 + gamma) (w x + b) + beta = [w (1 + gamma)] x + [b (1 + gamma) + beta]. */
static void gk__kok_ada_w(gk__kok_ld *ld, gk__kok_ada *a, const char *p, int64_t C, int half, int affine) {
    gk_kokoro_model *m = ld->m;
    int64_t S = m->cfg.style_dim, sh[2], r, j;
    char fw[200], fb[200], nw[200], nb[200];
    const gk_st_tensor_info *tnw = NULL, *tnb = NULL;
    if (ld->s != GK_OK) return;
    snprintf(fw, sizeof fw, "%s.fc.weight", p);
    snprintf(fb, sizeof fb, "%s.fc.bias", p);
    snprintf(nw, sizeof nw, "%s.norm.weight", p);
    snprintf(nb, sizeof nb, "%s.norm.bias", p);
    sh[0] = 2 * C; sh[1] = S;
    gk__kok_find(ld, fw, 2, sh, 0, 0);
    gk__kok_find(ld, fb, 1, sh, 0, 0);
    sh[0] = C;
    if (affine) {
        tnw = gk__kok_find(ld, nw, 1, sh, 0, 1);
        tnb = gk__kok_find(ld, nb, 1, sh, 0, 1);
    }
    if (ld->s != GK_OK) return;
    a->half = half; a->C = C;
    if (!ld->load) {
        a->off = m->sty_n[half];
        m->sty_n[half] += 2 * C;
        ld->prog.total += (uint64_t)(2 * C * (S + 1)) * gk_dtype_size(m->dt);
        return;
    }
    {
        float *w = ld->sty_w[half] + a->off * S, *b = ld->sty_b[half] + a->off, *aw = NULL, *ab = NULL;
        gk__u_tl sv;
        gk_status s;
        gk__u_tl_save(&sv);
        s = gk_st_read(ld->st, fw, GK_F32, w, sizeof(float) * (size_t)(2 * C * S));
        if (s == GK_OK) s = gk_st_read(ld->st, fb, GK_F32, b, sizeof(float) * (size_t)(2 * C));
        if (s != GK_OK) { ld->s = gk__u_tl_move(m->ctx, &sv, s, "gk_kokoro_load: "); return; }
        if (tnw) aw = gk__kok_read(ld, nw, (size_t)C);
        if (tnb) ab = gk__kok_read(ld, nb, (size_t)C);
        if (ld->s == GK_OK)
            for (r = 0; r < C; r++) {
                double wa = aw ? (double)aw[r] : 1.0, ba = ab ? (double)ab[r] : 0.0, bg = (double)b[r];
                float *wg = w + r * S, *wb = w + (C + r) * S;
                for (j = 0; j < S; j++) {
                    double g = (double)wg[j];
                    wb[j] = (float)((double)wb[j] + ba * g);
                    wg[j] = (float)(wa * g);
                }
                b[C + r] = (float)((double)b[C + r] + ba * (1.0 + bg));
                b[r] = (float)(wa * (1.0 + bg));
            }
        gk__u_free(aw); gk__u_free(ab);
    }
}

static void gk__kok_arb_w(gk__kok_ld *ld, gk__kok_arb *b, const char *p, int64_t cin, int64_t cout, int up, int half) {
    char n[200];
    b->cin = cin; b->cout = cout; b->up = up; b->learned = cin != cout;
    snprintf(n, sizeof n, "%s.conv1", p); gk__kok_wn(ld, &b->c1w, &b->c1b, n, cout, cout, cin, 3);
    snprintf(n, sizeof n, "%s.conv2", p); gk__kok_wn(ld, &b->c2w, &b->c2b, n, cout, cout, cout, 3);
    snprintf(n, sizeof n, "%s.norm1", p); gk__kok_ada_w(ld, &b->n1, n, cin, half, 1);
    snprintf(n, sizeof n, "%s.norm2", p); gk__kok_ada_w(ld, &b->n2, n, cout, half, 1);
    if (b->learned) { snprintf(n, sizeof n, "%s.conv1x1", p); gk__kok_wn(ld, &b->scw, NULL, n, 0, cout, cin, 1); }
    if (up) { snprintf(n, sizeof n, "%s.pool", p); gk__kok_wn(ld, &b->poolw, &b->poolb, n, cin, cin, 1, 3); }
}

static void gk__kok_rb1_w(gk__kok_ld *ld, gk__kok_rb1 *b, const char *p, int64_t C, int64_t K, const int64_t *dil) {
    char n[200];
    int k;
    b->C = C; b->K = K;
    for (k = 0; k < 3; k++) {
        b->dil[k] = dil[k];
        snprintf(n, sizeof n, "%s.convs1.%d", p, k); gk__kok_wn(ld, &b->c1w[k], &b->c1b[k], n, C, C, C, K);
        snprintf(n, sizeof n, "%s.convs2.%d", p, k); gk__kok_wn(ld, &b->c2w[k], &b->c2b[k], n, C, C, C, K);
        snprintf(n, sizeof n, "%s.adain1.%d", p, k); gk__kok_ada_w(ld, &b->a1[k], n, C, 0, 1);
        snprintf(n, sizeof n, "%s.adain2.%d", p, k); gk__kok_ada_w(ld, &b->a2[k], n, C, 0, 1);
        snprintf(n, sizeof n, "%s.alpha1.%d", p, k); gk__kok_alpha(ld, &b->al1[k], n, C);
        snprintf(n, sizeof n, "%s.alpha2.%d", p, k); gk__kok_alpha(ld, &b->al2[k], n, C);
    }
}

/* ALBERT's q / k / v weights and biases fused into [3 hidden, hidden] and [3 hidden] */
static void gk__kok_qkv_w(gk__kok_ld *ld, const char *p, int64_t D) {
    static const char *const qkv[3] = { "query", "key", "value" };
    char wn[3][200], bn[3][200];
    int64_t sh[2];
    int k;
    sh[0] = D; sh[1] = D;
    for (k = 0; k < 3; k++) {
        snprintf(wn[k], sizeof wn[k], "%s.%s.weight", p, qkv[k]);
        snprintf(bn[k], sizeof bn[k], "%s.%s.bias", p, qkv[k]);
        gk__kok_find(ld, wn[k], 2, sh, 0, 0);
        gk__kok_find(ld, bn[k], 1, sh, 0, 0);
    }
    if (ld->s != GK_OK) return;
    if (!ld->load) { ld->prog.total += (uint64_t)(3 * D * (D + 1)) * gk_dtype_size(ld->m->dt); return; }
    {
        float *w = (float *)gk__u_malloc(sizeof(float) * (size_t)(3 * D * D)), *b = (float *)gk__u_malloc(sizeof(float) * (size_t)(3 * D));
        int64_t ws[2], bs[1];
        for (k = 0; k < 3 && w && b && ld->s == GK_OK; k++) {
            gk__u_tl sv;
            gk_status s;
            gk__u_tl_save(&sv);
            s = gk_st_read(ld->st, wn[k], GK_F32, w + k * D * D, sizeof(float) * (size_t)(D * D));
            if (s == GK_OK) s = gk_st_read(ld->st, bn[k], GK_F32, b + k * D, sizeof(float) * (size_t)D);
            if (s != GK_OK) ld->s = gk__u_tl_move(ld->m->ctx, &sv, s, "gk_kokoro_load: ");
        }
        if (!w || !b) ld->s = gk_error_set(ld->m->ctx, GK_ERR_OUT_OF_MEMORY, "gk_kokoro_load: out of host memory");
        ws[0] = 3 * D; ws[1] = D; bs[0] = 3 * D;
        gk__kok_upload(ld, &ld->m->b_qkv_w, w, 2, ws, wn[0]);
        gk__kok_upload(ld, &ld->m->b_qkv_b, b, 1, bs, bn[0]);
        gk__u_free(w); gk__u_free(b);
    }
}

/* every tensor of the model, in the order of the published state dicts */
static void gk__kok_walk(gk__kok_ld *ld) {
    gk_kokoro_model *m = ld->m;
    const gk_kokoro_config *c = &m->cfg;
    int64_t E = c->bert_embed, D = c->bert_hidden, F = c->bert_ffn, Hd = c->hidden_dim, S = c->style_dim, l;
    char n[200];
    int i, j;
    const char *al = "bert.encoder.albert_layer_groups.0.albert_layers.0";
    /* bert */
    gk__kok_t(ld, &m->b_word, "bert.embeddings.word_embeddings.weight", 2, c->n_token, E, 0);
    gk__kok_t(ld, &m->b_pos, "bert.embeddings.position_embeddings.weight", 2, c->bert_max_pos, E, 0);
    gk__kok_t(ld, &m->b_type, "bert.embeddings.token_type_embeddings.weight", 2, c->bert_type_vocab, E, 0);
    gk__kok_t(ld, &m->b_eln_w, "bert.embeddings.LayerNorm.weight", 1, E, 0, 0);
    gk__kok_t(ld, &m->b_eln_b, "bert.embeddings.LayerNorm.bias", 1, E, 0, 0);
    gk__kok_t(ld, &m->b_map_w, "bert.encoder.embedding_hidden_mapping_in.weight", 2, D, E, 0);
    gk__kok_t(ld, &m->b_map_b, "bert.encoder.embedding_hidden_mapping_in.bias", 1, D, 0, 0);
    snprintf(n, sizeof n, "%s.attention", al); gk__kok_qkv_w(ld, n, D);
#define GK__KT1(dst, suffix, nd, d0, d1) do { snprintf(n, sizeof n, "%s.%s", al, suffix); gk__kok_t(ld, dst, n, nd, d0, d1, 0); } while (0)
    GK__KT1(&m->b_o_w, "attention.dense.weight", 2, D, D);
    GK__KT1(&m->b_o_b, "attention.dense.bias", 1, D, 0);
    GK__KT1(&m->b_aln_w, "attention.LayerNorm.weight", 1, D, 0);
    GK__KT1(&m->b_aln_b, "attention.LayerNorm.bias", 1, D, 0);
    GK__KT1(&m->b_ffn_w, "ffn.weight", 2, F, D);
    GK__KT1(&m->b_ffn_b, "ffn.bias", 1, F, 0);
    GK__KT1(&m->b_ffo_w, "ffn_output.weight", 2, D, F);
    GK__KT1(&m->b_ffo_b, "ffn_output.bias", 1, D, 0);
    GK__KT1(&m->b_fln_w, "full_layer_layer_norm.weight", 1, D, 0);
    GK__KT1(&m->b_fln_b, "full_layer_layer_norm.bias", 1, D, 0);
#undef GK__KT1
    gk__kok_t(ld, &m->benc_w, "bert_encoder.weight", 2, Hd, D, 0);
    gk__kok_t(ld, &m->benc_b, "bert_encoder.bias", 1, Hd, 0, 0);
    /* predictor */
    for (l = 0; l < c->n_layer; l++) {
        snprintf(n, sizeof n, "predictor.text_encoder.lstms.%lld", (long long)(2 * l));
        gk__kok_lstm_w(ld, &m->dur_lstm[l], n, Hd + S, Hd / 2);
        snprintf(n, sizeof n, "predictor.text_encoder.lstms.%lld", (long long)(2 * l + 1));
        gk__kok_ada_w(ld, &m->dur_aln[l], n, Hd, 1, 0);
    }
    gk__kok_lstm_w(ld, &m->p_lstm, "predictor.lstm", Hd + S, Hd / 2);
    gk__kok_t(ld, &m->dproj_w, "predictor.duration_proj.linear_layer.weight", 2, c->max_dur, Hd, 0);
    gk__kok_t(ld, &m->dproj_b, "predictor.duration_proj.linear_layer.bias", 1, c->max_dur, 0, 0);
    gk__kok_lstm_w(ld, &m->p_shared, "predictor.shared", Hd + S, Hd / 2);
    for (i = 0; i < 2; i++) {
        gk__kok_arb *b = i ? m->nb : m->f0b;
        const char *br = i ? "N" : "F0";
        snprintf(n, sizeof n, "predictor.%s.0", br); gk__kok_arb_w(ld, &b[0], n, Hd, Hd, 0, 1);
        snprintf(n, sizeof n, "predictor.%s.1", br); gk__kok_arb_w(ld, &b[1], n, Hd, Hd / 2, 1, 1);
        snprintf(n, sizeof n, "predictor.%s.2", br); gk__kok_arb_w(ld, &b[2], n, Hd / 2, Hd / 2, 0, 1);
    }
    gk__kok_t(ld, &m->f0p_w, "predictor.F0_proj.weight", 3, 1, Hd / 2, 1);
    gk__kok_t(ld, &m->f0p_b, "predictor.F0_proj.bias", 1, 1, 0, 0);
    gk__kok_t(ld, &m->np_w, "predictor.N_proj.weight", 3, 1, Hd / 2, 1);
    gk__kok_t(ld, &m->np_b, "predictor.N_proj.bias", 1, 1, 0, 0);
    /* text encoder */
    gk__kok_t(ld, &m->te_emb, "text_encoder.embedding.weight", 2, c->n_token, Hd, 0);
    for (l = 0; l < c->n_layer; l++) {
        snprintf(n, sizeof n, "text_encoder.cnn.%lld.0", (long long)l);
        gk__kok_wn(ld, &m->te_cw[l], &m->te_cb[l], n, Hd, Hd, Hd, c->text_kernel);
        snprintf(n, sizeof n, "text_encoder.cnn.%lld.1.gamma", (long long)l); gk__kok_t(ld, &m->te_g[l], n, 1, Hd, 0, 0);
        snprintf(n, sizeof n, "text_encoder.cnn.%lld.1.beta", (long long)l); gk__kok_t(ld, &m->te_b[l], n, 1, Hd, 0, 0);
    }
    gk__kok_lstm_w(ld, &m->te_lstm, "text_encoder.lstm", Hd, Hd / 2);
    /* decoder */
    gk__kok_arb_w(ld, &m->enc, "decoder.encode", Hd + 2, 1024, 0, 0);
    for (i = 0; i < 4; i++) {
        snprintf(n, sizeof n, "decoder.decode.%d", i);
        gk__kok_arb_w(ld, &m->dec[i], n, 1024 + 2 + 64, i < 3 ? 1024 : 512, i == 3, 0);
    }
    gk__kok_wn(ld, &m->f0c_w, &m->f0c_b, "decoder.F0_conv", 1, 1, 1, 3);
    gk__kok_wn(ld, &m->nc_w, &m->nc_b, "decoder.N_conv", 1, 1, 1, 3);
    gk__kok_wn(ld, &m->asr_w, &m->asr_b, "decoder.asr_res.0", 64, 64, Hd, 1);
    /* generator */
    gk__kok_t(ld, &m->src_w, "decoder.generator.m_source.l_linear.weight", 2, 1, GK_KOKORO_HARMONICS, 0);
    gk__kok_t(ld, &m->src_b, "decoder.generator.m_source.l_linear.bias", 1, 1, 0, 0);
    for (i = 0; i < c->n_ups; i++) {
        int64_t cin = c->ups_channels >> i, cout = c->ups_channels >> (i + 1), sf = 1;
        for (j = i + 1; j < c->n_ups; j++) sf *= c->ups_rate[j];
        snprintf(n, sizeof n, "decoder.generator.noise_convs.%d.weight", i);
        gk__kok_t(ld, &m->ncv_w[i], n, 3, cout, c->n_fft + 2, i + 1 < c->n_ups ? 2 * sf : 1);
        snprintf(n, sizeof n, "decoder.generator.noise_convs.%d.bias", i);
        gk__kok_t(ld, &m->ncv_b[i], n, 1, cout, 0, 0);
        {
            static const int64_t d135[3] = { 1, 3, 5 };
            snprintf(n, sizeof n, "decoder.generator.noise_res.%d", i);
            gk__kok_rb1_w(ld, &m->nres[i], n, cout, i + 1 < c->n_ups ? 7 : 11, d135);
        }
        snprintf(n, sizeof n, "decoder.generator.ups.%d", i);
        /* ConvTranspose1d weight [cin, cout, k]: weight norm per input channel */
        gk__kok_wn(ld, &m->ups_w[i], &m->ups_b[i], n, cout, cin, cout, c->ups_kernel[i]);
        for (j = 0; j < c->n_resblocks; j++) {
            snprintf(n, sizeof n, "decoder.generator.resblocks.%d", i * c->n_resblocks + j);
            gk__kok_rb1_w(ld, &m->rbs[i * c->n_resblocks + j], n, cout, c->res_kernel[j], c->res_dilation[j]);
        }
    }
    gk__kok_wn(ld, &m->post_w, &m->post_b, "decoder.generator.conv_post", c->n_fft + 2, c->n_fft + 2, c->ups_channels >> c->n_ups, 7);
}

GKLLMDEF void gk_kokoro_free(gk_kokoro_model *m) {
    size_t i;
    if (!m) return;
    if (m->stream) gk_stream_sync(m->ctx, m->stream);
    for (i = 0; i < m->n_owned; i++) gk_tensor_free(m->ctx, m->owned[i]);
    if (m->stream) gk_stream_destroy(m->ctx, m->stream);
    gk__u_free(m->owned);
    gk__u_free(m->rbs);
    gk__u_free(m);
}

/* a model-owned f32 tensor of the given values */
static void gk__kok_const(gk__kok_ld *ld, gk_tensor *dst, const float *x, int nd, int64_t d0, int64_t d1, int64_t d2) {
    int64_t sh[3];
    gk_tensor t = gk__u_tnull();
    gk_status s;
    if (ld->s != GK_OK) return;
    sh[0] = d0; sh[1] = d1; sh[2] = d2;
    s = gk_tensor_from_host(ld->m->ctx, GK_F32, nd, sh, x, &t);
    if (s != GK_OK) { ld->s = s; return; }
    gk__kok_own(ld, t);
    if (ld->s == GK_OK) *dst = t;
}

static gk_status gk__kok_read_config(gk_kokoro_model *m, const char *cpath) {
    gk_json *cj = NULL;
    gk__u_tl sv;
    gk_status s;
    gk__u_tl_save(&sv);
    s = gk_json_parse_file(cpath, NULL, &cj);
    if (s != GK_OK) return gk__u_tl_move(m->ctx, &sv, s, "gk_kokoro_load: ");
    s = gk__kok_config(m, cpath, gk_json_root(cj));
    gk_json_free(cj);
    return s;
}

/* The tensors a config.json asks for, in the published layout (weight norm
   as weight_g [C, 1, 1] / weight_v; optional: the InstanceNorm affine
   parameters), one call of fn each: for tests that write model folders. */
GK__KOK_TEST_ONLY static gk_status gk__kok_list(gk_ctx *ctx, const char *config_path, gk__kok_list_fn fn, void *user) {
    gk_kokoro_model *m = (gk_kokoro_model *)gk__u_calloc(1, sizeof *m);
    gk__kok_ld ld;
    gk_status s;
    if (!m) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_kokoro_load: out of host memory");
    m->ctx = ctx;
    s = gk__kok_read_config(m, config_path);
    if (s == GK_OK && !(m->rbs = (gk__kok_rb1 *)gk__u_calloc((size_t)(m->cfg.n_ups * m->cfg.n_resblocks), sizeof *m->rbs)))
        s = gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_kokoro_load: out of host memory");
    if (s == GK_OK) {
        memset(&ld, 0, sizeof ld);
        ld.m = m; ld.list = fn; ld.list_user = user; ld.wpath = "(list)";
        gk__kok_walk(&ld);
        s = ld.s;
    }
    gk_kokoro_free(m);
    return s;
}

GKLLMDEF gk_status gk_kokoro_load(gk_ctx *ctx, const char *dir, const gk_kokoro_desc *desc, gk_kokoro_model **out) {
    gk_kokoro_desc d;
    gk_kokoro_model *m = NULL;
    gk_safetensors *st = NULL;
    gk__kok_ld ld;
    gk_stream *old = NULL;
    gk_status s;
    int streamed = 0, h;
    char cpath[4200], wpath[4200];
    if (out) *out = NULL;
    memset(&ld, 0, sizeof ld);
    if (!ctx) return gk_error_set(NULL, GK_ERR_INVALID_HANDLE, "gk_kokoro_load: ctx is NULL");
    if (!dir) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_kokoro_load: dir is NULL");
    if (!out) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_kokoro_load: out is NULL");
    if (!dir[0]) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_kokoro_load: dir is \"\" (a model folder is needed)");
    if (strlen(dir) > 4000) return gk_error_set(ctx, GK_ERR_LIMIT, "gk_kokoro_load: dir is %llu bytes long (at most 4000)", (unsigned long long)strlen(dir));
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    if ((unsigned)d.dtype > (unsigned)GK_LLM_DTYPE_F32)
        return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "gk_kokoro_load: gk_kokoro_desc.dtype = %d is not a gk_llm_dtype (GK_LLM_DTYPE_DEFAULT, _BF16, _F16, _F32)", (int)d.dtype);
    if (d.dtype == GK_LLM_DTYPE_BF16 || d.dtype == GK_LLM_DTYPE_F16)
        return gk_error_set(ctx, GK_ERR_UNSUPPORTED, "gk_kokoro_load: gk_kokoro_desc.dtype %s: the Kokoro model computes in f32 only (GK_LLM_DTYPE_DEFAULT or _F32)",
                            d.dtype == GK_LLM_DTYPE_BF16 ? "BF16" : "F16");
    snprintf(cpath, sizeof cpath, "%s/config.json", dir);
    if (!gk__u_file_exists(cpath)) return gk_error_set(ctx, GK_ERR_IO, "gk_kokoro_load: %s is missing (not a Kokoro model folder?)", cpath);
    snprintf(wpath, sizeof wpath, "%s/kokoro-v1_0.safetensors", dir);
    if (!gk__u_file_exists(wpath)) snprintf(wpath, sizeof wpath, "%s/model.safetensors", dir);
    if (!gk__u_file_exists(wpath))
        return gk_error_set(ctx, GK_ERR_IO, "gk_kokoro_load: %s has no kokoro-v1_0.safetensors (nor model.safetensors); tools/kokoro_convert.py makes one from the .pth", dir);
    if (!(m = (gk_kokoro_model *)gk__u_calloc(1, sizeof *m))) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_kokoro_load: out of host memory");
    m->ctx = ctx;
    m->dt = GK_F32;
    m->tf32 = d.allow_tf32 != 0;
    if ((s = gk__kok_read_config(m, cpath)) != GK_OK) goto fail;
    {
        gk__u_tl sv;
        gk__u_tl_save(&sv);
        if ((s = gk_st_open(wpath, &st)) != GK_OK) { s = gk__u_tl_move(ctx, &sv, s, "gk_kokoro_load: "); goto fail; }
    }
    if (!(m->rbs = (gk__kok_rb1 *)gk__u_calloc((size_t)(m->cfg.n_ups * m->cfg.n_resblocks), sizeof *m->rbs))) {
        s = gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_kokoro_load: out of host memory");
        goto fail;
    }
    /* check pass */
    ld.m = m; ld.st = st; ld.wpath = wpath; ld.first = 1;
    ld.prog.fn = d.progress; ld.prog.user = d.user;
    gk__kok_walk(&ld);
    if ((s = ld.s) != GK_OK) goto fail;
    /* load pass */
    for (h = 0; h < 2; h++) {
        ld.sty_w[h] = (float *)gk__u_malloc(sizeof(float) * (size_t)(m->sty_n[h] * m->cfg.style_dim));
        ld.sty_b[h] = (float *)gk__u_malloc(sizeof(float) * (size_t)m->sty_n[h]);
        if (!ld.sty_w[h] || !ld.sty_b[h]) { s = gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_kokoro_load: out of host memory"); goto fail; }
    }
    if ((s = gk_stream_create(ctx, GK_PRIORITY_NORMAL, &m->stream)) != GK_OK) goto fail;
    old = gk_get_stream(ctx);
    gk_set_stream(ctx, m->stream);
    streamed = 1;
    ld.load = 1;
    if (d.progress) d.progress(0, ld.prog.total, d.user);
    gk__kok_walk(&ld);
    for (h = 0; h < 2; h++) {
        int64_t sh[2];
        sh[0] = m->sty_n[h]; sh[1] = m->cfg.style_dim;
        gk__kok_upload(&ld, &m->sty_w[h], ld.sty_w[h], 2, sh, "the style fc weights");
        gk__kok_upload(&ld, &m->sty_b[h], ld.sty_b[h], 1, sh, "the style fc biases");
    }
    {
        float hv[GK_KOKORO_HARMONICS], k;
        int i;
        for (i = 0; i < GK_KOKORO_HARMONICS; i++) hv[i] = (float)(i + 1);
        gk__kok_const(&ld, &m->harm, hv, 3, 1, GK_KOKORO_HARMONICS, 1);
        k = (float)GK_KOKORO_SAMPLE_RATE; gk__kok_const(&ld, &m->k_sr, &k, 1, 1, 0, 0);
        k = 0.0f; gk__kok_const(&ld, &m->k_zero, &k, 1, 1, 0, 0);
        k = 1.0f; gk__kok_const(&ld, &m->k_one, &k, 1, 1, 0, 0);
        k = 10.0f; gk__kok_const(&ld, &m->k_vthr, &k, 1, 1, 0, 0);            /* SineGen's voiced threshold */
        k = 0.003f; gk__kok_const(&ld, &m->k_amp_v, &k, 1, 1, 0, 0);         /* noise_std */
        k = (float)(0.1 / 3.0); gk__kok_const(&ld, &m->k_amp_u, &k, 1, 1, 0, 0); /* sine_amp / 3 */
        k = (float)m->cfg.n_resblocks; gk__kok_const(&ld, &m->k_nk, &k, 1, 1, 0, 0);
    }
    if ((s = ld.s) == GK_OK) s = gk_stream_sync(ctx, m->stream);
    if (s != GK_OK) goto fail;
    gk_set_stream(ctx, old);
    for (h = 0; h < 2; h++) { gk__u_free(ld.sty_w[h]); gk__u_free(ld.sty_b[h]); }
    gk_st_close(st);
    *out = m;
    return GK_OK;
fail:
    if (streamed) gk_set_stream(ctx, old);
    for (h = 0; h < 2; h++) { gk__u_free(ld.sty_w[h]); gk__u_free(ld.sty_b[h]); }
    gk_st_close(st);
    gk_kokoro_free(m);
    return s;
}

GKLLMDEF const gk_kokoro_config *gk_kokoro_get_config(const gk_kokoro_model *m) { return m ? &m->cfg : NULL; }
GKLLMDEF gk_status gk_kokoro_set_stream(gk_kokoro_model *m, gk_stream *s) {
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "gk_kokoro_set_stream: m is NULL");
    m->stream_use = s;
    return GK_OK;
}
static gk_stream *gk__kok_stream(const gk_kokoro_model *m) { return m->stream_use ? m->stream_use : m->stream; }
/* ======================================================================== */
/* >>impl_kokoro_forward                                                    */
/* ======================================================================== */
/* The Kokoro forward pass in stages on gpukit's ops (layouts: time-major
   [T, C] around the LSTMs and layer norms, channel-first [1, C, time]
   around the convolutions). Each stage reads and writes the device tensors
   of a gk__kok_run, so a test can run one stage on the reference's inputs:
     gk__kok_begin     ids, ref_s -> the style vectors of every AdaIN
     gk__kok_bert      -> bert [T, bert_hidden]
     gk__kok_prosody   -> d_en [T, hidden], d [T, hidden + style], dsum [T]
     gk__kok_align     durations (the one host sync) -> dur, L, idx [L]
     gk__kok_f0n       -> F0, N [1, 1, 2L]
     gk__kok_text      -> t_en [T, hidden]
     gk__kok_decode    t_en, F0, N -> gen_in [1, 512, 2L]
     gk__kok_generate  gen_in, F0, noise -> audio [1, samples] (har, post kept with keep) */

typedef struct gk__kok_run {
    int64_t T, L, S;           /* tokens (pads included), frames, samples */
    gk_tensor ids, ref;        /* i32 [T]; f32 [1, 2 * style_dim] */
    gk_tensor sty[2];          /* [1, sty_n[h]]: every AdaIN's scale and shift of style half h */
    gk_tensor bert, d_en, d;   /* [T, bert_hidden], [T, hidden], [T, hidden + style] */
    gk_tensor dsum;            /* [T]: sigmoid(duration_proj) summed (before / speed) */
    int32_t *dur;              /* host [T]: the durations used */
    gk_tensor idx;             /* i32 [L]: the token of each frame */
    gk_tensor F0, N;           /* [1, 1, 2L] */
    gk_tensor t_en;            /* [T, hidden] */
    gk_tensor gen_in;          /* [1, 512, 2L] */
    gk_tensor noise;           /* [1, 9, S] or none (zero noise) */
    gk_tensor har, post;       /* [1, S], [1, n_fft + 2, S / hop + 1]: kept when keep; a har set before
                                  gk__kok_generate is used instead of SineGen's (tests) */
    gk_tensor audio;           /* [1, S] */
    int keep;
} gk__kok_run;

static void gk__kok_run_free(gk_kokoro_model *m, gk__kok_run *r) {
    gk_tensor *ts[17];
    int i;
    ts[0] = &r->ids; ts[1] = &r->ref; ts[2] = &r->sty[0]; ts[3] = &r->sty[1]; ts[4] = &r->bert; ts[5] = &r->d_en; ts[6] = &r->d; ts[7] = &r->dsum;
    ts[8] = &r->idx; ts[9] = &r->F0; ts[10] = &r->N; ts[11] = &r->t_en; ts[12] = &r->gen_in; ts[13] = &r->noise; ts[14] = &r->har; ts[15] = &r->post;
    ts[16] = &r->audio;
    for (i = 0; i < 17; i++) gk__llm_free_t(m->ctx, ts[i]);
    gk__u_free(r->dur);
    r->dur = NULL;
}

/* scratch of V (freed with it): a new tensor of dtype dt */
static gk_tensor gk__kok_newt(gk__lv *V, gk_dtype dt, int nd, int64_t d0, int64_t d1, int64_t d2, int64_t d3) {
    gk_tensor t = gk__u_tnull();
    int64_t sh[4];
    gk_status s;
    if (V->st != GK_OK) return t;
    sh[0] = d0; sh[1] = d1; sh[2] = d2; sh[3] = d3;
    s = gk_tensor_empty(V->ctx, dt, nd, sh, &t);
    return gk__lv_keep(V, s, t);
}
static gk_tensor gk__kok_new(gk__lv *V, int nd, int64_t d0, int64_t d1, int64_t d2) { return gk__kok_newt(V, GK_F32, nd, d0, d1, d2, 0); }
/* a result that outlives V: *dst (freed by the caller) */
static void gk__kok_alloc(gk__lv *V, gk_tensor *dst, int nd, int64_t d0, int64_t d1, int64_t d2) {
    int64_t sh[3];
    gk_status s;
    if (V->st != GK_OK) return;
    sh[0] = d0; sh[1] = d1; sh[2] = d2;
    gk__llm_free_t(V->ctx, dst);
    s = gk_tensor_empty(V->ctx, GK_F32, nd, sh, dst);
    if (s != GK_OK) { V->st = s; *dst = gk__u_tnull(); }
}
/* an AdaIN's scale and shift: [1, C] views of the style vectors */
static void gk__kok_ss(gk__lv *V, const gk__kok_run *r, const gk__kok_ada *a, gk_tensor *scale, gk_tensor *shift) {
    *scale = gk__lv_slice(V, r->sty[a->half], 1, a->off, a->off + a->C);
    *shift = gk__lv_slice(V, r->sty[a->half], 1, a->off + a->C, a->off + 2 * a->C);
}
static gk_tensor gk__kok_none(void) { return gk__u_tnull(); }
/* a stride-1, one-group conv1d; on TF32 tensor cores when the model allows them */
static gk_status gk__kok_conv(gk_kokoro_model *m, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor b, int64_t pad, int64_t dil) {
    gk_conv1d_desc d;
    memset(&d, 0, sizeof d);
    d.padding = pad;
    d.dilation = dil;
    d.allow_tf32 = m->tf32;
    return gk_conv1d_ex(m->ctx, out, x, w, b, &d);
}

/* ---- blocks ---- */
/* out [1, cout, L'] = AdainResBlk1d(x [1, cin, L]), L' = 2L when it upsamples */
static gk_status gk__kok_arb_run(gk_kokoro_model *m, const gk__kok_run *r, const gk__kok_arb *b, gk_tensor out, gk_tensor x, int64_t L) {
    gk_ctx *ctx = m->ctx;
    gk__lv V;
    int64_t L2 = b->up ? 2 * L : L;
    gk_tensor sc1, sh1, sc2, sh2, h1, h2, xs;
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    gk__kok_ss(&V, r, &b->n1, &sc1, &sh1);
    gk__kok_ss(&V, r, &b->n2, &sc2, &sh2);
    /* residual: AdaIN, LeakyReLU 0.2, [pool: depthwise transposed conv x2], conv1, AdaIN, LeakyReLU, conv2 */
    h1 = gk__kok_new(&V, 3, 1, b->cin, L);
    GK__LV_DO(&V, gk_adain(ctx, h1, x, sc1, sh1, 1e-5));
    GK__LV_DO(&V, gk_unary(ctx, h1, h1, GK_UNARY_LEAKY_RELU, 0.2));
    if (b->up) {
        gk_tensor hp = gk__kok_new(&V, 3, 1, b->cin, L2);
        GK__LV_DO(&V, gk_conv_transpose1d(ctx, hp, h1, b->poolw, b->poolb, 2, 1, 1, b->cin, 1));
        h1 = hp;
    }
    h2 = gk__kok_new(&V, 3, 1, b->cout, L2);
    GK__LV_DO(&V, gk__kok_conv(m, h2, h1, b->c1w, b->c1b, 1, 1));
    GK__LV_DO(&V, gk_adain(ctx, h2, h2, sc2, sh2, 1e-5));
    GK__LV_DO(&V, gk_unary(ctx, h2, h2, GK_UNARY_LEAKY_RELU, 0.2));
    GK__LV_DO(&V, gk__kok_conv(m, out, h2, b->c2w, b->c2b, 1, 1));
    /* shortcut: [nearest x2], [1x1 conv without bias]; then (residual + shortcut) * rsqrt(2) (a float32 constant, as torch.rsqrt(tensor(2))) */
    xs = x;
    if (b->up) {
        gk_tensor u = gk__kok_new(&V, 3, 1, b->cin, L2);
        GK__LV_DO(&V, gk_repeat_interleave(ctx, u, x, 2, 2));
        xs = u;
    }
    if (b->learned) {
        gk_tensor sc = gk__kok_new(&V, 3, 1, b->cout, L2);
        GK__LV_DO(&V, gk__kok_conv(m, sc, xs, b->scw, gk__kok_none(), 0, 1));
        xs = sc;
    }
    GK__LV_DO(&V, gk_add(ctx, out, out, xs));
    GK__LV_DO(&V, gk_scale(ctx, out, out, (double)(1.0f / sqrtf(2.0f))));
    gk__lv_free(&V);
    return V.st;
}

/* y [1, C, T] = AdaINResBlock1(x [1, C, T]): three times x += conv2(snake(AdaIN(conv1(snake(AdaIN(x)))))) */
static gk_status gk__kok_rb1_run(gk_kokoro_model *m, const gk__kok_run *r, const gk__kok_rb1 *b, gk_tensor y, gk_tensor x, int64_t T) {
    gk_ctx *ctx = m->ctx;
    gk__lv V;
    gk_tensor t1, t2, sc, sh;
    int k;
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    t1 = gk__kok_new(&V, 3, 1, b->C, T);
    t2 = gk__kok_new(&V, 3, 1, b->C, T);
    GK__LV_DO(&V, gk_copy(ctx, y, x));
    for (k = 0; k < 3; k++) {
        gk__kok_ss(&V, r, &b->a1[k], &sc, &sh);
        GK__LV_DO(&V, gk_adain(ctx, t1, y, sc, sh, 1e-5));
        GK__LV_DO(&V, gk_snake(ctx, t1, t1, b->al1[k]));
        GK__LV_DO(&V, gk__kok_conv(m, t2, t1, b->c1w[k], b->c1b[k], b->dil[k] * (b->K - 1) / 2, b->dil[k]));
        gk__kok_ss(&V, r, &b->a2[k], &sc, &sh);
        GK__LV_DO(&V, gk_adain(ctx, t2, t2, sc, sh, 1e-5));
        GK__LV_DO(&V, gk_snake(ctx, t2, t2, b->al2[k]));
        GK__LV_DO(&V, gk__kok_conv(m, t1, t2, b->c2w[k], b->c2b[k], (b->K - 1) / 2, 1));
        GK__LV_DO(&V, gk_add(ctx, y, t1, y));
    }
    gk__lv_free(&V);
    return V.st;
}

static gk_status gk__kok_lstm_run(gk_kokoro_model *m, const gk__kok_lstm *y, gk_tensor out, gk_tensor x) {
    gk_tensor z = gk__u_tnull();
    return gk_lstm(m->ctx, out, z, z, x, y->wih, y->whh, y->bih, y->bhh, z, z);
}

/* ---- stages ---- */
/* ids (host, without the pads) and ref_s (host) -> r->ids, r->ref, the style vectors */
static gk_status gk__kok_begin(gk_kokoro_model *m, gk__kok_run *r, const int32_t *ids, size_t n, const float *ref_s) {
    gk_ctx *ctx = m->ctx;
    int64_t T = (int64_t)n + 2, S = m->cfg.style_dim, sh[2];
    int32_t *tok = (int32_t *)gk__u_malloc(sizeof(int32_t) * (size_t)T);
    gk__lv V;
    int h;
    if (!tok) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "gk_kokoro_synthesize: out of host memory");
    tok[0] = tok[T - 1] = 0;
    if (n) memcpy(tok + 1, ids, sizeof(int32_t) * n);
    r->T = T;
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    sh[0] = T;
    V.st = gk_tensor_from_host(ctx, GK_I32, 1, sh, tok, &r->ids);
    gk__u_free(tok);
    sh[0] = 1; sh[1] = 2 * S;
    if (V.st == GK_OK) V.st = gk_tensor_from_host(ctx, GK_F32, 2, sh, ref_s, &r->ref);
    for (h = 0; h < 2; h++) {
        gk_matmul_desc md;
        gk_tensor half = gk__lv_slice(&V, r->ref, 1, h * S, (h + 1) * S), x = gk__kok_new(&V, 2, 1, S, 0);
        gk__kok_alloc(&V, &r->sty[h], 2, 1, m->sty_n[h], 0);
        GK__LV_DO(&V, gk_copy(ctx, x, half));
        memset(&md, 0, sizeof md);
        md.bias = m->sty_b[h];
        GK__LV_DO(&V, gk_linear(ctx, r->sty[h], x, m->sty_w[h], &md));
    }
    gk__lv_free(&V);
    return V.st;
}

/* ALBERT: r->bert [T, hidden_size] */
static gk_status gk__kok_bert(gk_kokoro_model *m, gk__kok_run *r) {
    const gk_kokoro_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t T = r->T, E = c->bert_embed, D = c->bert_hidden, H = c->bert_heads, Dh = D / H, l;
    gk_tensor e, qkv, att, a, f, qkvh, sc, ch;
    gk__lv V;
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    e = gk__kok_new(&V, 2, T, E, 0);
    qkv = gk__kok_new(&V, 2, T, 3 * D, 0);
    att = gk__kok_new(&V, 2, T, D, 0);
    a = gk__kok_new(&V, 2, T, D, 0);
    f = gk__kok_new(&V, 2, T, c->bert_ffn, 0);
    qkvh = gk__kok_new(&V, 3, 3 * H, T, Dh);
    sc = gk__kok_new(&V, 3, H, T, T);
    ch = gk__kok_new(&V, 3, H, T, Dh);
    gk__kok_alloc(&V, &r->bert, 2, T, D, 0);
    /* embeddings: (word + token_type[0]) + position, LayerNorm; the mapping to the hidden size */
    GK__LV_DO(&V, gk_embedding(ctx, e, m->b_word, r->ids));
    GK__LV_DO(&V, gk_add(ctx, e, e, gk__lv_slice(&V, m->b_type, 0, 0, 1)));
    GK__LV_DO(&V, gk_add(ctx, e, e, gk__lv_slice(&V, m->b_pos, 0, 0, T)));
    GK__LV_DO(&V, gk_layer_norm(ctx, e, e, m->b_eln_w, m->b_eln_b, c->bert_ln_eps));
    {
        gk_matmul_desc md;
        memset(&md, 0, sizeof md);
        md.bias = m->b_map_b;
        GK__LV_DO(&V, gk_linear(ctx, r->bert, e, m->b_map_w, &md));
    }
    for (l = 0; l < c->bert_layers && V.st == GK_OK; l++) {
        gk_matmul_desc md;
        gk__lv W;
        gk_tensor q4;
        memset(&W, 0, sizeof W);
        W.ctx = ctx;
        memset(&md, 0, sizeof md);
        md.bias = m->b_qkv_b;
        GK__LV_DO(&W, gk_linear(ctx, qkv, r->bert, m->b_qkv_w, &md));
        /* attention as two batched GEMMs and a softmax: heads first ([3H, T, Dh]), scores
           [H, T, T] = q k^T / sqrt(Dh), softmax, @ v, back to [T, H, Dh]. One sequence, no
           mask: all of it is a handful of launches (the fused f32 attention kernel walks the
           keys a warp at a time and is an order of magnitude slower at T in the hundreds). */
        {
            static const int perm[3] = { 1, 0, 2 };
            gk_tensor kt = gk__u_tnull();
            q4 = gk__lv_reshape(&W, qkv, 3, T, 3 * H, Dh, 0);
            GK__LV_DO(&W, gk_permute(ctx, qkvh, q4, perm));
            if (W.st == GK_OK) {
                gk_tensor ks = gk__lv_slice(&W, qkvh, 0, H, 2 * H);
                if (W.st == GK_OK) gk__lv_keep(&W, gk_view_transpose(ctx, ks, 1, 2, &kt), kt);
            }
            memset(&md, 0, sizeof md);
            md.alpha = 1.0 / sqrt((double)Dh);
            GK__LV_DO(&W, gk_matmul(ctx, sc, gk__lv_slice(&W, qkvh, 0, 0, H), kt, &md));
            GK__LV_DO(&W, gk_softmax(ctx, sc, sc));
            memset(&md, 0, sizeof md);
            GK__LV_DO(&W, gk_matmul(ctx, ch, sc, gk__lv_slice(&W, qkvh, 0, 2 * H, 3 * H), &md));
            GK__LV_DO(&W, gk_permute(ctx, gk__lv_reshape(&W, att, 3, T, H, Dh, 0), ch, perm));
        }
        memset(&md, 0, sizeof md);
        md.bias = m->b_o_b;
        md.residual = r->bert;
        GK__LV_DO(&W, gk_linear(ctx, a, att, m->b_o_w, &md));
        GK__LV_DO(&W, gk_layer_norm(ctx, a, a, m->b_aln_w, m->b_aln_b, c->bert_ln_eps));
        memset(&md, 0, sizeof md);
        md.bias = m->b_ffn_b;
        md.act = c->bert_gelu_tanh ? GK_ACT_GELU_TANH : GK_ACT_GELU;
        GK__LV_DO(&W, gk_linear(ctx, f, a, m->b_ffn_w, &md));
        memset(&md, 0, sizeof md);
        md.bias = m->b_ffo_b;
        md.residual = a;
        GK__LV_DO(&W, gk_linear(ctx, r->bert, f, m->b_ffo_w, &md));
        GK__LV_DO(&W, gk_layer_norm(ctx, r->bert, r->bert, m->b_fln_w, m->b_fln_b, c->bert_ln_eps));
        gk__lv_free(&W);
        if (V.st == GK_OK) V.st = W.st;
    }
    gk__lv_free(&V);
    return V.st;
}

/* bert_encoder, the duration encoder, the duration head: r->d_en, r->d, r->dsum */
static gk_status gk__kok_prosody(gk_kokoro_model *m, gk__kok_run *r) {
    const gk_kokoro_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t T = r->T, Hd = c->hidden_dim, S = c->style_dim, l;
    gk_tensor h, z, xf, dp;
    gk_matmul_desc md;
    gk__lv V;
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    gk__kok_alloc(&V, &r->d_en, 2, T, Hd, 0);
    gk__kok_alloc(&V, &r->d, 2, T, Hd + S, 0);
    gk__kok_alloc(&V, &r->dsum, 1, T, 0, 0);
    h = gk__kok_new(&V, 2, T, Hd, 0);
    z = gk__kok_new(&V, 2, T, Hd, 0);
    dp = gk__kok_new(&V, 2, T, c->max_dur, 0);
    memset(&md, 0, sizeof md);
    md.bias = m->benc_b;
    GK__LV_DO(&V, gk_linear(ctx, r->d_en, r->bert, m->benc_w, &md));
    /* d = [features | prosody style]: n_layer x (BiLSTM, AdaLayerNorm) over the features */
    xf = gk__lv_slice(&V, r->d, 1, 0, Hd);
    GK__LV_DO(&V, gk_copy(ctx, xf, r->d_en));
    GK__LV_DO(&V, gk_copy(ctx, gk__lv_slice(&V, r->d, 1, Hd, Hd + S), gk__lv_slice(&V, r->ref, 1, S, 2 * S)));
    for (l = 0; l < c->n_layer && V.st == GK_OK; l++) {
        gk_tensor sc, sh;
        GK__LV_DO(&V, gk__kok_lstm_run(m, &m->dur_lstm[l], h, r->d));
        gk__kok_ss(&V, r, &m->dur_aln[l], &sc, &sh);
        GK__LV_DO(&V, gk_layer_norm(ctx, z, h, gk__lv_reshape(&V, sc, 1, Hd, 0, 0, 0), gk__lv_reshape(&V, sh, 1, Hd, 0, 0, 0), 1e-5));
        GK__LV_DO(&V, gk_copy(ctx, xf, z));
    }
    /* durations: BiLSTM, Linear, sigmoid summed over max_dur */
    GK__LV_DO(&V, gk__kok_lstm_run(m, &m->p_lstm, h, r->d));
    memset(&md, 0, sizeof md);
    md.bias = m->dproj_b;
    GK__LV_DO(&V, gk_linear(ctx, dp, h, m->dproj_w, &md));
    GK__LV_DO(&V, gk_unary(ctx, dp, dp, GK_UNARY_SIGMOID, 0));
    GK__LV_DO(&V, gk_reduce(ctx, r->dsum, dp, GK_REDUCE_SUM, 1, 0));
    gk__lv_free(&V);
    return V.st;
}

/* The durations: forced (host [T]) or round_half_even(dsum / speed) >= 1,
   read back (the host sync); r->dur, r->L, r->S, r->idx. */
static gk_status gk__kok_align(gk_kokoro_model *m, gk__kok_run *r, const int32_t *forced, float speed, int64_t max_frames) {
    const char *W = "gk_kokoro_synthesize";
    gk_ctx *ctx = m->ctx;
    int64_t T = r->T, L = 0, i, j, k;
    int32_t *idx;
    gk_status s = GK_OK;
    if (!(r->dur = (int32_t *)gk__u_malloc(sizeof(int32_t) * (size_t)T))) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
    if (forced) {
        for (i = 0; i < T; i++) {
            if (forced[i] < 0)
                return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_kokoro_synth_desc.durations[%lld] = %d is negative", W, (long long)i, (int)forced[i]);
            r->dur[i] = forced[i];
            L += forced[i];
        }
        if (L < 1) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_kokoro_synth_desc.durations sum to 0 frames", W);
    } else {
        float *ds = (float *)gk__u_malloc(sizeof(float) * (size_t)T);
        if (!ds) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
        s = gk_copy_to_host(ctx, r->dsum, ds, sizeof(float) * (size_t)T);
        for (i = 0; i < T && s == GK_OK; i++) {
            float v = ds[i] / speed;
            if (!(v - v == 0)) {
                s = gk_error_set(ctx, GK_ERR_FORMAT, "%s: the duration of token %lld is not finite (the weights hold NaN or infinite values)", W, (long long)i);
                break;
            }
            v = rintf(v); /* round half to even, as torch.round */
            if (v < 1.0f) v = 1.0f;
            if (v > (float)max_frames) v = (float)max_frames + 1.0f;
            r->dur[i] = (int32_t)v;
            L += r->dur[i];
        }
        gk__u_free(ds);
        if (s != GK_OK) return s;
    }
    if (L > max_frames)
        return gk_error_set(ctx, GK_ERR_LIMIT, "%s: the durations add up to %lld frames, above gk_kokoro_synth_desc.max_frames = %lld (%.1f s; a higher speed shortens them)", W,
                            (long long)L, (long long)max_frames, (double)max_frames * (double)m->cfg.samples_per_frame / GK_KOKORO_SAMPLE_RATE);
    r->L = L;
    r->S = L * m->cfg.samples_per_frame;
    if (!(idx = (int32_t *)gk__u_malloc(sizeof(int32_t) * (size_t)L))) return gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
    for (i = 0, k = 0; i < T; i++)
        for (j = 0; j < r->dur[i]; j++) idx[k++] = (int32_t)i;
    s = gk_tensor_from_host(ctx, GK_I32, 1, &L, idx, &r->idx);
    gk__u_free(idx);
    return s;
}

/* F0 and N: the shared BiLSTM over the frames, 3 AdainResBlk1d, a 1x1 conv each: r->F0, r->N [1, 1, 2L] */
static gk_status gk__kok_f0n(gk_kokoro_model *m, gk__kok_run *r) {
    const gk_kokoro_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t L = r->L, Hd = c->hidden_dim, S = c->style_dim, i;
    gk_tensor en, sh, xs, a, b1, b2;
    gk__lv V;
    int perm[2];
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    en = gk__kok_new(&V, 2, L, Hd + S, 0);
    sh = gk__kok_new(&V, 2, L, Hd, 0);
    xs = gk__kok_new(&V, 3, 1, Hd, L);
    a = gk__kok_new(&V, 3, 1, Hd, L);
    b1 = gk__kok_new(&V, 3, 1, Hd / 2, 2 * L);
    b2 = gk__kok_new(&V, 3, 1, Hd / 2, 2 * L);
    gk__kok_alloc(&V, &r->F0, 3, 1, 1, 2 * L);
    gk__kok_alloc(&V, &r->N, 3, 1, 1, 2 * L);
    GK__LV_DO(&V, gk_index_select(ctx, en, r->d, 0, r->idx));
    GK__LV_DO(&V, gk__kok_lstm_run(m, &m->p_shared, sh, en));
    perm[0] = 1; perm[1] = 0;
    GK__LV_DO(&V, gk_permute(ctx, gk__lv_reshape(&V, xs, 2, Hd, L, 0, 0), sh, perm));
    for (i = 0; i < 2; i++) {
        const gk__kok_arb *bl = i ? m->nb : m->f0b;
        GK__LV_DO(&V, gk__kok_arb_run(m, r, &bl[0], a, xs, L));
        GK__LV_DO(&V, gk__kok_arb_run(m, r, &bl[1], b1, a, L));
        GK__LV_DO(&V, gk__kok_arb_run(m, r, &bl[2], b2, b1, 2 * L));
        GK__LV_DO(&V, gk_conv1d(ctx, i ? r->N : r->F0, b2, i ? m->np_w : m->f0p_w, i ? m->np_b : m->f0p_b, 1, 0, 1, 1));
    }
    gk__lv_free(&V);
    return V.st;
}

/* the text encoder: r->t_en [T, hidden] */
static gk_status gk__kok_text(gk_kokoro_model *m, gk__kok_run *r) {
    const gk_kokoro_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t T = r->T, Hd = c->hidden_dim, l;
    gk_tensor e, xc, cv, cf, cf2;
    gk__lv V;
    int perm[2];
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    e = gk__kok_new(&V, 2, T, Hd, 0);
    xc = gk__kok_new(&V, 3, 1, Hd, T);
    cv = gk__kok_new(&V, 3, 1, Hd, T);
    gk__kok_alloc(&V, &r->t_en, 2, T, Hd, 0);
    perm[0] = 1; perm[1] = 0;
    cf = gk__lv_reshape(&V, xc, 2, Hd, T, 0, 0);
    cf2 = gk__lv_reshape(&V, cv, 2, Hd, T, 0, 0);
    GK__LV_DO(&V, gk_embedding(ctx, e, m->te_emb, r->ids));
    GK__LV_DO(&V, gk_permute(ctx, cf, e, perm));
    for (l = 0; l < c->n_layer && V.st == GK_OK; l++) {
        /* Conv1d, LayerNorm over the channels (time-major), LeakyReLU 0.2 */
        GK__LV_DO(&V, gk__kok_conv(m, cv, xc, m->te_cw[l], m->te_cb[l], (c->text_kernel - 1) / 2, 1));
        GK__LV_DO(&V, gk_permute(ctx, e, cf2, perm));
        GK__LV_DO(&V, gk_layer_norm(ctx, e, e, m->te_g[l], m->te_b[l], 1e-5));
        GK__LV_DO(&V, gk_unary(ctx, e, e, GK_UNARY_LEAKY_RELU, 0.2));
        if (l + 1 < c->n_layer) GK__LV_DO(&V, gk_permute(ctx, cf, e, perm));
    }
    GK__LV_DO(&V, gk__kok_lstm_run(m, &m->te_lstm, r->t_en, e));
    gk__lv_free(&V);
    return V.st;
}

/* the decoder up to the generator: r->gen_in [1, 512, 2L] from t_en (aligned), F0, N */
static gk_status gk__kok_decode(gk_kokoro_model *m, gk__kok_run *r) {
    const gk_kokoro_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t L = r->L, Hd = c->hidden_dim, CW = 1024 + 2 + 64;
    gk_tensor at, asr, f0c, nc, x0, bufA, bufB, parts[3];
    gk__lv V;
    int perm[2];
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    at = gk__kok_new(&V, 2, L, Hd, 0);
    asr = gk__kok_new(&V, 3, 1, Hd, L);
    f0c = gk__kok_new(&V, 3, 1, 1, L);
    nc = gk__kok_new(&V, 3, 1, 1, L);
    x0 = gk__kok_new(&V, 3, 1, Hd + 2, L);
    bufA = gk__kok_new(&V, 3, 1, CW, L);
    bufB = gk__kok_new(&V, 3, 1, CW, L);
    gk__kok_alloc(&V, &r->gen_in, 3, 1, c->ups_channels, 2 * L);
    /* asr = t_en aligned to the frames, channel-first */
    GK__LV_DO(&V, gk_index_select(ctx, at, r->t_en, 0, r->idx));
    perm[0] = 1; perm[1] = 0;
    GK__LV_DO(&V, gk_permute(ctx, gk__lv_reshape(&V, asr, 2, Hd, L, 0, 0), at, perm));
    /* F0 and N at the frame rate (stride 2) */
    GK__LV_DO(&V, gk_conv1d(ctx, f0c, r->F0, m->f0c_w, m->f0c_b, 2, 1, 1, 1));
    GK__LV_DO(&V, gk_conv1d(ctx, nc, r->N, m->nc_w, m->nc_b, 2, 1, 1, 1));
    parts[0] = asr; parts[1] = f0c; parts[2] = nc;
    GK__LV_DO(&V, gk_concat(ctx, x0, parts, 3, 1));
    /* the decode blocks read [x | asr_res | F0 | N]: the last 66 channels of both buffers are set once */
    GK__LV_DO(&V, gk__kok_conv(m, gk__lv_slice(&V, bufA, 1, 1024, 1088), asr, m->asr_w, m->asr_b, 0, 1));
    GK__LV_DO(&V, gk_copy(ctx, gk__lv_slice(&V, bufA, 1, 1088, 1089), f0c));
    GK__LV_DO(&V, gk_copy(ctx, gk__lv_slice(&V, bufA, 1, 1089, 1090), nc));
    GK__LV_DO(&V, gk_copy(ctx, gk__lv_slice(&V, bufB, 1, 1024, CW), gk__lv_slice(&V, bufA, 1, 1024, CW)));
    GK__LV_DO(&V, gk__kok_arb_run(m, r, &m->enc, gk__lv_slice(&V, bufA, 1, 0, 1024), x0, L));
    GK__LV_DO(&V, gk__kok_arb_run(m, r, &m->dec[0], gk__lv_slice(&V, bufB, 1, 0, 1024), bufA, L));
    GK__LV_DO(&V, gk__kok_arb_run(m, r, &m->dec[1], gk__lv_slice(&V, bufA, 1, 0, 1024), bufB, L));
    GK__LV_DO(&V, gk__kok_arb_run(m, r, &m->dec[2], gk__lv_slice(&V, bufB, 1, 0, 1024), bufA, L));
    GK__LV_DO(&V, gk__kok_arb_run(m, r, &m->dec[3], r->gen_in, bufB, L));
    gk__lv_free(&V);
    return V.st;
}

/* SineGen, l_linear, tanh: har [1, S] from F0 [1, 1, 2L] (and r->noise [1, 9, S] when set).
   The reference upsamples F0 x U (U = S / 2L, nearest) and computes per
   sample rad = (F0 h / sr) mod 1; its downsampling interpolation (scale
   1 / U) reads samples k U + U/2 - 1 and k U + U/2 of a constant run with
   weights 1/2, 1/2, which is exactly rad at F0[k]: rad is computed at the
   2L points here. The phase sum is in float64 (torch's CPU cumsum of float32
   accumulates in double), then * 2 pi * U in float32 as torch multiplies. */
static gk_status gk__kok_source(gk_kokoro_model *m, gk__kok_run *r, gk_tensor har) {
    gk_ctx *ctx = m->ctx;
    int64_t L2 = 2 * r->L, S = r->S, U = S / L2, H = GK_KOKORO_HARMONICS;
    gk_tensor fn, ti, tf, neg, fr1, r64, c64, ph, pu, uv, uvf, uvu;
    gk__lv V;
    double sc = (double)U;
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    fn = gk__kok_new(&V, 3, 1, H, L2);
    tf = gk__kok_new(&V, 3, 1, H, L2);
    fr1 = gk__kok_new(&V, 3, 1, H, L2);
    ph = gk__kok_new(&V, 3, 1, H, L2);
    pu = gk__kok_new(&V, 3, 1, H, S);
    uvf = gk__kok_new(&V, 3, 1, 1, L2);
    uvu = gk__kok_new(&V, 3, 1, 1, S);
    ti = gk__kok_newt(&V, GK_I32, 3, 1, H, L2, 0);
    neg = gk__kok_newt(&V, GK_U8, 3, 1, H, L2, 0);
    r64 = gk__kok_newt(&V, GK_F64, 3, 1, H, L2, 0);
    c64 = gk__kok_newt(&V, GK_F64, 3, 1, H, L2, 0);
    uv = gk__kok_newt(&V, GK_U8, 3, 1, 1, L2, 0);
    /* rad = (F0 h / sr) mod 1 (torch's remainder: x - floor(x)) */
    GK__LV_DO(&V, gk_mul(ctx, fn, r->F0, m->harm));
    GK__LV_DO(&V, gk_div(ctx, fn, fn, m->k_sr));
    GK__LV_DO(&V, gk_cast(ctx, ti, fn));
    GK__LV_DO(&V, gk_cast(ctx, tf, ti));
    GK__LV_DO(&V, gk_sub(ctx, fn, fn, tf));
    GK__LV_DO(&V, gk_compare(ctx, neg, fn, m->k_zero, GK_CMP_LT));
    GK__LV_DO(&V, gk_add(ctx, fr1, fn, m->k_one));
    GK__LV_DO(&V, gk_where(ctx, fn, neg, fr1, fn));
    /* phase = cumsum(rad) 2 pi U, upsampled linearly x U; sines = 0.1 sin(phase), voiced only */
    GK__LV_DO(&V, gk_cast(ctx, r64, fn));
    GK__LV_DO(&V, gk_cumsum(ctx, c64, r64, 2));
    GK__LV_DO(&V, gk_cast(ctx, ph, c64));
    GK__LV_DO(&V, gk_scale(ctx, ph, ph, 2.0 * (double)(float)3.14159265358979323846));
    GK__LV_DO(&V, gk_scale(ctx, ph, ph, (double)(float)U));
    GK__LV_DO(&V, gk_interpolate(ctx, pu, ph, GK_INTERP_LINEAR, &sc));
    GK__LV_DO(&V, gk_unary(ctx, pu, pu, GK_UNARY_SIN, 0));
    GK__LV_DO(&V, gk_scale(ctx, pu, pu, 0.1));
    GK__LV_DO(&V, gk_compare(ctx, uv, r->F0, m->k_vthr, GK_CMP_GT));
    GK__LV_DO(&V, gk_cast(ctx, uvf, uv));
    GK__LV_DO(&V, gk_repeat_interleave(ctx, uvu, uvf, U, 2));
    GK__LV_DO(&V, gk_mul(ctx, pu, pu, uvu));
    if (r->noise.id) {
        /* + (uv 0.003 + (1 - uv) 0.1 / 3) noise */
        gk_tensor amp = gk__kok_new(&V, 3, 1, 1, L2), ampu = gk__kok_new(&V, 3, 1, 1, S), nz = gk__kok_new(&V, 3, 1, H, S);
        GK__LV_DO(&V, gk_where(ctx, amp, uv, m->k_amp_v, m->k_amp_u));
        GK__LV_DO(&V, gk_repeat_interleave(ctx, ampu, amp, U, 2));
        GK__LV_DO(&V, gk_mul(ctx, nz, r->noise, ampu));
        GK__LV_DO(&V, gk_add(ctx, pu, pu, nz));
    }
    /* l_linear over the harmonics, tanh */
    GK__LV_DO(&V, gk_matmul(ctx, har, m->src_w, gk__lv_reshape(&V, pu, 2, H, S, 0, 0), NULL));
    GK__LV_DO(&V, gk_add(ctx, har, har, m->src_b));
    GK__LV_DO(&V, gk_unary(ctx, har, har, GK_UNARY_TANH, 0));
    gk__lv_free(&V);
    return V.st;
}

/* the generator: r->audio [1, S] from r->gen_in and r->F0 */
static gk_status gk__kok_generate(gk_kokoro_model *m, gk__kok_run *r) {
    const gk_kokoro_config *c = &m->cfg;
    gk_ctx *ctx = m->ctx;
    int64_t K = c->n_fft / 2 + 1, Fr = r->S / c->hop + 1, len = 2 * r->L, i, j;
    gk_tensor hfeat = gk__u_tnull(), x = gk__u_tnull(), acc = gk__u_tnull(), har = gk__u_tnull(), post = gk__u_tnull(), none = gk__u_tnull();
    gk__lv V;
    int nk = c->n_resblocks;
    memset(&V, 0, sizeof V);
    V.ctx = ctx;
    /* the source and its STFT: [|X|, angle X] [1, 2K, Fr]; the bins that are real in exact arithmetic get a zero imaginary part */
    gk__kok_alloc(&V, &hfeat, 3, 1, 2 * K, Fr);
    if (r->har.id) {
        har = r->har;
        r->har = gk__u_tnull();
    } else {
        gk__kok_alloc(&V, &har, 2, 1, r->S, 0);
        GK__LV_DO(&V, gk__kok_source(m, r, har));
    }
    {
        gk_tensor spec = gk__kok_newt(&V, GK_F32, 4, 1, K, Fr, 2), im;
        GK__LV_DO(&V, gk_stft(ctx, spec, har, none, c->n_fft, c->hop, 1));
        im = gk__lv_slice(&V, spec, 3, 1, 2);
        GK__LV_DO(&V, gk_fill(ctx, gk__lv_slice(&V, im, 2, 0, 1), 0.0));
        GK__LV_DO(&V, gk_fill(ctx, gk__lv_slice(&V, im, 1, 0, 1), 0.0));
        GK__LV_DO(&V, gk_fill(ctx, gk__lv_slice(&V, im, 1, K - 1, K), 0.0));
        GK__LV_DO(&V, gk_complex_abs(ctx, gk__lv_slice(&V, hfeat, 1, 0, K), spec));
        GK__LV_DO(&V, gk_complex_angle(ctx, gk__lv_slice(&V, hfeat, 1, K, 2 * K), spec));
        gk__lv_free(&V);
    }
    x = r->gen_in;
    for (i = 0; i < c->n_ups && V.st == GK_OK; i++) {
        int64_t cin = c->ups_channels >> i, cout = c->ups_channels >> (i + 1), u = c->ups_rate[i], k = c->ups_kernel[i], sf = 1, last = i + 1 == c->n_ups;
        int64_t nlen = len * u + (last ? 1 : 0);
        gk_tensor xl, xc, xs, xu, tmp, nacc = gk__u_tnull();
        for (j = i + 1; j < c->n_ups; j++) sf *= c->ups_rate[j];
        xl = gk__kok_new(&V, 3, 1, cin, len);
        xc = gk__kok_new(&V, 3, 1, cout, nlen);
        xs = gk__kok_new(&V, 3, 1, cout, nlen);
        xu = gk__kok_new(&V, 3, 1, cout, len * u);
        tmp = gk__kok_new(&V, 3, 1, cout, nlen);
        gk__kok_alloc(&V, &nacc, 3, 1, cout, nlen);
        GK__LV_DO(&V, gk_unary(ctx, xl, x, GK_UNARY_LEAKY_RELU, 0.1));
        /* the source branch: its convolution to this stage's rate and channels, an AdaINResBlock1 */
        if (last) GK__LV_DO(&V, gk__kok_conv(m, xc, hfeat, m->ncv_w[i], m->ncv_b[i], 0, 1));
        else GK__LV_DO(&V, gk_conv1d(ctx, xc, hfeat, m->ncv_w[i], m->ncv_b[i], sf, (sf + 1) / 2, 1, 1));
        GK__LV_DO(&V, gk__kok_rb1_run(m, r, &m->nres[i], xs, xc, nlen));
        /* upsampling, [ReflectionPad1d((1, 0)) last], the source added */
        GK__LV_DO(&V, gk_conv_transpose1d(ctx, xu, xl, m->ups_w[i], m->ups_b[i], u, (k - u) / 2, 0, 1, 1));
        if (last) {
            int64_t pads[2];
            gk_tensor xp = gk__kok_new(&V, 3, 1, cout, nlen);
            pads[0] = 1; pads[1] = 0;
            GK__LV_DO(&V, gk_pad(ctx, xp, xu, pads, 2, GK_PAD_REFLECT, 0));
            xu = xp;
        }
        GK__LV_DO(&V, gk_add(ctx, xu, xu, xs));
        /* the mean of the resblocks */
        for (j = 0; j < nk && V.st == GK_OK; j++) {
            GK__LV_DO(&V, gk__kok_rb1_run(m, r, &m->rbs[i * nk + j], j ? tmp : nacc, xu, nlen));
            if (j) GK__LV_DO(&V, gk_add(ctx, nacc, nacc, tmp));
        }
        GK__LV_DO(&V, gk_div(ctx, nacc, nacc, m->k_nk));
        gk__lv_free(&V);
        gk__llm_free_t(ctx, &acc);
        acc = nacc;
        x = acc;
        len = nlen;
    }
    /* LeakyReLU 0.01, conv_post, exp / sin, iSTFT */
    gk__kok_alloc(&V, &post, 3, 1, c->n_fft + 2, Fr);
    gk__kok_alloc(&V, &r->audio, 2, 1, r->S, 0);
    if (V.st == GK_OK) {
        gk_tensor mag = gk__kok_new(&V, 3, 1, K, Fr), phs = gk__kok_new(&V, 3, 1, K, Fr), z = gk__kok_newt(&V, GK_F32, 4, 1, K, Fr, 2);
        GK__LV_DO(&V, gk_unary(ctx, acc, acc, GK_UNARY_LEAKY_RELU, 0.01));
        GK__LV_DO(&V, gk__kok_conv(m, post, acc, m->post_w, m->post_b, 3, 1));
        GK__LV_DO(&V, gk_unary(ctx, mag, gk__lv_slice(&V, post, 1, 0, K), GK_UNARY_EXP, 0));
        GK__LV_DO(&V, gk_unary(ctx, phs, gk__lv_slice(&V, post, 1, K, 2 * K), GK_UNARY_SIN, 0));
        GK__LV_DO(&V, gk_complex_polar(ctx, z, mag, phs));
        GK__LV_DO(&V, gk_istft(ctx, r->audio, z, none, c->n_fft, c->hop, 1));
    }
    gk__lv_free(&V);
    gk__llm_free_t(ctx, &acc);
    gk__llm_free_t(ctx, &hfeat);
    if (r->keep && V.st == GK_OK) {
        gk__llm_free_t(ctx, &r->har);
        gk__llm_free_t(ctx, &r->post);
        r->har = har;
        r->post = post;
    } else {
        gk__llm_free_t(ctx, &har);
        gk__llm_free_t(ctx, &post);
    }
    return V.st;
}

/* SineGen's noise of the seed: element (t, h) of torch's [S, 9] layout is gk_randn's number t * 9 + h
   of the seed (on the device); r->noise [1, 9, S] */
static gk_status gk__kok_noise(gk_kokoro_model *m, gk__kok_run *r, uint64_t seed) {
    int64_t S = r->S, H = GK_KOKORO_HARMONICS;
    gk_tensor z;
    gk__lv V;
    int perm[2];
    memset(&V, 0, sizeof V);
    V.ctx = m->ctx;
    z = gk__kok_new(&V, 2, S, H, 0);
    gk__kok_alloc(&V, &r->noise, 3, 1, H, S);
    GK__LV_DO(&V, gk_randn(m->ctx, z, seed, 0));
    perm[0] = 1; perm[1] = 0;
    GK__LV_DO(&V, gk_permute(m->ctx, gk__lv_reshape(&V, r->noise, 2, H, S, 0, 0), z, perm));
    gk__lv_free(&V);
    return V.st;
}

/* the first non-finite value of a host array, or -1 */
static int64_t gk__kok_nonfinite(const float *x, int64_t n) {
    int64_t i;
    for (i = 0; i < n; i++)
        if (!(x[i] - x[i] == 0)) return i;
    return -1;
}

GKLLMDEF gk_status gk_kokoro_synthesize(gk_kokoro_model *m, const int32_t *ids, size_t n, const float *ref_s, const gk_kokoro_synth_desc *desc, gk_audio *out) {
    const char *W = "gk_kokoro_synthesize";
    gk_kokoro_synth_desc d;
    gk__kok_run r;
    gk_stream *old;
    gk_status s;
    float speed;
    float *pcm = NULL;
    int64_t max_frames, bad, i;
    if (out) memset(out, 0, sizeof *out);
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    if (!out) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (!ids && n) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: ids is NULL but n is %llu", W, (unsigned long long)n);
    if (!ref_s) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: ref_s is NULL (a voice's style row of %lld values)", W, (long long)(2 * m->cfg.style_dim));
    if (n == 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: n is 0 (no phoneme ids)", W);
    if ((int64_t)n > m->cfg.bert_max_pos - 2)
        return gk_error_set(m->ctx, GK_ERR_LIMIT, "%s: %llu phoneme ids; at most %lld fit (plbert.max_position_embeddings %lld less the two pads): split the text", W,
                            (unsigned long long)n, (long long)(m->cfg.bert_max_pos - 2), (long long)m->cfg.bert_max_pos);
    for (i = 0; i < (int64_t)n; i++)
        if (ids[i] < 0 || ids[i] >= m->cfg.n_token)
            return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: ids[%lld] = %d is outside the vocabulary 0..%lld", W, (long long)i, (int)ids[i], (long long)(m->cfg.n_token - 1));
    for (i = 0; i < 2 * m->cfg.style_dim; i++)
        if (!(ref_s[i] - ref_s[i] == 0)) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: ref_s[%lld] is not finite", W, (long long)i);
    if (desc) d = *desc;
    else memset(&d, 0, sizeof d);
    speed = d.speed == 0 ? 1.0f : d.speed;
    if (!(speed > 0) || !(speed - speed == 0))
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_kokoro_synth_desc.speed = %g must be > 0 and finite (0: 1)", W, (double)d.speed);
    if (d.noise != GK_KOKORO_NOISE_SEEDED && d.noise != GK_KOKORO_NOISE_ZERO)
        return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_kokoro_synth_desc.noise = %d is not a gk_kokoro_noise", W, (int)d.noise);
    if (d.max_frames < 0) return gk_error_set(m->ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_kokoro_synth_desc.max_frames = %lld is negative", W, (long long)d.max_frames);
    max_frames = d.max_frames ? d.max_frames : GK_KOKORO_MAX_FRAMES;
    memset(&r, 0, sizeof r);
    old = gk_get_stream(m->ctx);
    gk_set_stream(m->ctx, gk__kok_stream(m));
    s = gk__kok_begin(m, &r, ids, n, ref_s);
    if (s == GK_OK) s = gk__kok_bert(m, &r);
    if (s == GK_OK) s = gk__kok_prosody(m, &r);
    if (s == GK_OK) s = gk__kok_align(m, &r, d.durations, speed, max_frames);
    if (s == GK_OK && d.noise == GK_KOKORO_NOISE_SEEDED) s = gk__kok_noise(m, &r, d.seed);
    if (s == GK_OK) s = gk__kok_f0n(m, &r);
    if (s == GK_OK) s = gk__kok_text(m, &r);
    if (s == GK_OK) s = gk__kok_decode(m, &r);
    if (s == GK_OK) s = gk__kok_generate(m, &r);
    if (s == GK_OK && !(pcm = (float *)gk__u_malloc(sizeof(float) * (size_t)r.S)))
        s = gk_error_set(m->ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory for %lld samples", W, (long long)r.S);
    if (s == GK_OK) s = gk_copy_to_host(m->ctx, r.audio, pcm, sizeof(float) * (size_t)r.S);
    if (s == GK_OK) s = gk_stream_sync(m->ctx, gk__kok_stream(m));
    gk_set_stream(m->ctx, old);
    if (s == GK_OK && (bad = gk__kok_nonfinite(pcm, r.S)) >= 0)
        s = gk_error_set(m->ctx, GK_ERR_FORMAT, "%s: sample %lld (frame %lld) is not finite: the weights hold NaN or infinite values, or the spectrum overflowed exp()", W,
                         (long long)bad, (long long)(bad / m->cfg.samples_per_frame));
    if (s == GK_OK) {
        if (d.durations_out) memcpy(d.durations_out, r.dur, sizeof(int32_t) * (size_t)r.T);
        if (d.frames_out) *d.frames_out = r.L;
        out->samples = pcm;
        out->n = (size_t)r.S;
        out->rate = GK_KOKORO_SAMPLE_RATE;
        out->rate_in = GK_KOKORO_SAMPLE_RATE;
        out->channels_in = 1;
        out->bits_in = 32;
        out->frames_in = (uint64_t)r.S;
        pcm = NULL;
    }
    gk__u_free(pcm);
    gk__kok_run_free(m, &r);
    return s;
}
/* ======================================================================== */
/* >>impl_kokoro_speak                                                      */
/* ======================================================================== */

/* the model's error on the context, with the chunk named in front */
static gk_status gk__ks_fail(gk_ctx *ctx, gk_status s, const gk_kokoro_chunks *c, size_t i) {
    const char *msg = gk_last_error(ctx);
    char *cp = gk__u_strndup(msg ? msg : "", msg ? strlen(msg) : 0);
    s = gk_error_set(ctx, s, "gk_kokoro_speak: chunk %llu of %llu (bytes %llu..%llu): %s", (unsigned long long)(i + 1), (unsigned long long)c->n,
                     (unsigned long long)c->chunk[i].text_begin, (unsigned long long)c->chunk[i].text_end, cp ? cp : "");
    gk__u_free(cp);
    return s;
}

GKLLMDEF gk_status gk_kokoro_speak(gk_kokoro_model *m, const gk_kokoro_vocab *vocab, const char *text, size_t len, const gk_kokoro_speak_desc *desc,
                                   gk_audio *out, gk_kokoro_speak_result *res) {
    const char *W = "gk_kokoro_speak";
    gk_kokoro_chunk_desc cd;
    gk_kokoro_chunks ch;
    gk_kokoro_speak_result r;
    gk_ids ids = {0, 0, 0};
    float *all = NULL;
    size_t n_all = 0, cap = 0, i;
    gk_status s;
    gk_ctx *ctx;
    gk__u_tl sv;
    memset(&ch, 0, sizeof ch);
    memset(&r, 0, sizeof r);
    if (out) memset(out, 0, sizeof *out);
    if (res) memset(res, 0, sizeof *res);
    if (!m) return gk_error_set(NULL, GK_ERR_INVALID_ARGUMENT, "%s: m is NULL", W);
    ctx = m->ctx;
    if (!vocab) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "%s: vocab is NULL (gk_kokoro_vocab_load of the model folder)", W);
    if (!desc || !desc->voice) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_kokoro_speak_desc.voice is NULL (gk_kokoro_voice_load)", W);
    if (!text && len) return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "%s: text is NULL but len is %llu", W, (unsigned long long)len);
    if (!desc->phonemes && !desc->espeak)
        return gk_error_set(ctx, GK_ERR_INVALID_ARGUMENT, "%s: gk_kokoro_speak_desc.espeak is NULL: text needs espeak-ng (gk_espeak_create), or give phonemes "
                            "(gk_kokoro_speak_desc.phonemes = 1)", W);
    memset(&cd, 0, sizeof cd);
    cd.language = desc->language;
    cd.flags = desc->chunk_flags;
    gk__u_tl_save(&sv);
    s = desc->phonemes ? gk_kokoro_phoneme_chunks(&cd, text ? text : "", len, &ch) : gk_kokoro_text_chunks(desc->espeak, &cd, text ? text : "", len, &ch);
    if (s != GK_OK) return gk__u_tl_move(ctx, &sv, s, "gk_kokoro_speak: ");
    for (i = 0; i < ch.n && s == GK_OK; i++) {
        const gk_kokoro_chunk *c = &ch.chunk[i];
        const float *style = NULL;
        gk_kokoro_synth_desc sd;
        gk_audio a;
        size_t nph = 0;
        int64_t frames = 0;
        memset(&a, 0, sizeof a);
        ids.len = 0;
        gk__u_tl_save(&sv);
        s = gk_kokoro_phonemes_to_ids(vocab, c->phonemes, c->phonemes_len, desc->id_flags, &ids, &nph);
        if (s == GK_OK && ids.len == 0) s = GK__U_ERR(GK_ERR_INVALID_ARGUMENT, "no phoneme of \"%.60s\" is in the vocabulary", c->phonemes);
        if (s == GK_OK) s = gk_kokoro_voice_style(desc->voice, nph ? nph : ids.len, &style);
        if (s != GK_OK) {
            char pre[128];
            snprintf(pre, sizeof pre, "%s: chunk %llu of %llu (bytes %llu..%llu): ", W, (unsigned long long)(i + 1), (unsigned long long)ch.n,
                     (unsigned long long)c->text_begin, (unsigned long long)c->text_end);
            s = gk__u_tl_move(ctx, &sv, s, pre);
            break;
        }
        memset(&sd, 0, sizeof sd);
        sd.speed = desc->speed;
        sd.noise = desc->noise;
        sd.seed = desc->seed + (uint64_t)i;
        sd.frames_out = &frames;
        if ((s = gk_kokoro_synthesize(m, ids.data, ids.len, style, &sd, &a)) != GK_OK) { s = gk__ks_fail(ctx, s, &ch, i); break; }
        r.chunks++;
        r.frames += frames;
        if (out && a.n) {
            if (n_all + a.n > cap) {
                size_t nc = cap ? cap : 1 << 16;
                float *p;
                while (nc < n_all + a.n) nc *= 2;
                if (nc > ((size_t)-1) / sizeof(float) || !(p = (float *)GPUKIT_REALLOC(all, nc * sizeof(float)))) {
                    gk_audio_free(&a);
                    s = gk_error_set(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory for %llu samples", W, (unsigned long long)(n_all + a.n));
                    break;
                }
                all = p;
                cap = nc;
            }
            memcpy(all + n_all, a.samples, sizeof(float) * a.n);
            n_all += a.n;
        }
        if (desc->on_audio) {
            gk_kokoro_chunk_info info;
            info.index = i;
            info.count = ch.n;
            info.text_begin = c->text_begin;
            info.text_end = c->text_end;
            info.phonemes = c->phonemes;
            info.frames = frames;
            if (desc->on_audio(a.samples, a.n, &info, desc->user) != 0)
                s = gk_error_set(ctx, GK_ERR_CANCELLED, "%s: the callback stopped the synthesis after chunk %llu of %llu", W, (unsigned long long)(i + 1),
                                 (unsigned long long)ch.n);
        }
        gk_audio_free(&a);
    }
    gk_ids_free(&ids);
    gk_kokoro_chunks_free(&ch);
    if (s != GK_OK) { gk__u_free(all); return s; }
    r.seconds = (double)r.frames * (double)gk_kokoro_get_config(m)->samples_per_frame / (double)GK_KOKORO_SAMPLE_RATE;
    if (out) {
        out->samples = all;
        out->n = n_all;
        out->rate = GK_KOKORO_SAMPLE_RATE;
    } else gk__u_free(all);
    if (res) *res = r;
    return GK_OK;
}
#ifdef __cplusplus
}
#endif
#endif /* GPUKIT_LLM_IMPLEMENTATION_DONE */
#endif /* GPUKIT_LLM_IMPLEMENTATION */

/* >>license
This software is available under 2 licenses -- choose whichever you prefer.
------------------------------------------------------------------------------
ALTERNATIVE A - MIT License
Copyright (c) 2026 the gpukit authors
Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do
so, subject to the following conditions:
The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
------------------------------------------------------------------------------
ALTERNATIVE B - Public Domain (www.unlicense.org)
This is free and unencumbered software released into the public domain.
Anyone is free to copy, modify, publish, use, compile, sell, or distribute this
software, either in source code form or as a compiled binary, for any purpose,
commercial or non-commercial, and by any means.
In jurisdictions that recognize copyright laws, the author or authors of this
software dedicate any and all copyright interest in the software to the public
domain. We make this dedication for the benefit of the public at large and to
the detriment of our heirs and successors. We intend this dedication to be an
overt act of relinquishment in perpetuity of all present and future rights to
this software under copyright law.
THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN
ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION
WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE SOFTWARE.
*/
