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

