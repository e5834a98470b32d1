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

