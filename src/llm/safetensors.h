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

