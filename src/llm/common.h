/* ======================================================================== */
/* >>api_common                                                             */
/* ======================================================================== */

/* A growable byte buffer; functions append to it. data is NUL-terminated
   whenever it is not NULL. Zero-initialise, free with gk_buf_free. */
typedef struct gk_buf { char *data; size_t len, cap; } gk_buf;
/* A growable array of token ids; functions append to it. */
typedef struct gk_ids { int32_t *data; size_t len, cap; } gk_ids;

GKLLMDEF void gk_buf_free(gk_buf *b);
GKLLMDEF void gk_ids_free(gk_ids *v);
GKLLMDEF gk_status gk_buf_append(gk_buf *b, const void *data, size_t n);
GKLLMDEF gk_status gk_ids_push(gk_ids *v, int32_t id);
/* Reads a whole file into a malloc'd buffer (NUL-terminated). max_size 0 = no limit. */
GKLLMDEF gk_status gk_read_file(const char *path, size_t max_size, char **data, size_t *size);

