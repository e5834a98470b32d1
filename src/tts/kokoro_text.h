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
