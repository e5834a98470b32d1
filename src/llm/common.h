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

