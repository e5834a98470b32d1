/* ------------------------------------------------------------------------ */
/* >>tensor */
#define GK__IDX(id) ((uint32_t)((id) & 0xFFFFFFFFu))
#define GK__GEN(id) ((uint32_t)((id) >> 32))

static gk__slot *gk__slot_at(gk_ctx *ctx, uint32_t idx) { return &ctx->pages[idx / GK__SLOT_PAGE][idx % GK__SLOT_PAGE]; }

static gk_status gk__slot_new(gk_ctx *ctx, uint32_t *out, const char *where) {
    gk__slot *s;
    uint32_t idx;
    if (ctx->free_slot) {
        idx = ctx->free_slot - 1;
        s = gk__slot_at(ctx, idx);
        ctx->free_slot = s->next_free;
    } else {
        if (ctx->nslots == ctx->npages * GK__SLOT_PAGE) {
            gk__slot **np;
            if (ctx->npages >= 1u << 20) return gk__err(ctx, GK_ERR_LIMIT, "%s: too many live tensors", where);
            np = GK__CAST(gk__slot **, GPUKIT_REALLOC(ctx->pages, sizeof(gk__slot *) * (ctx->npages + 1)));
            if (!np) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", where);
            ctx->pages = np;
            np[ctx->npages] = GK__CALLOC(gk__slot, GK__SLOT_PAGE);
            if (!np[ctx->npages]) return gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", where);
            ctx->npages++;
        }
        idx = ctx->nslots++;
        s = gk__slot_at(ctx, idx);
        s->gen = 1;
        s->idx = idx;
    }
    s->live = 1;
    s->next_free = 0;
    s->blk = NULL;
    s->is_view = 0;
    s->offset = 0;
    *out = idx;
    return GK_OK;
}
/* id: the slot index + 1 (low 32 bits) and the slot's generation (high 32
   bits, never 0); owner: the context's serial. */
static gk_tensor gk__handle(gk_ctx *ctx, uint32_t idx) {
    gk_tensor t;
    gk__slot *s = gk__slot_at(ctx, idx);
    t.id = ((uint64_t)s->gen << 32) | (uint64_t)(idx + 1);
    t.owner = ctx->serial;
    return t;
}
static void gk__slot_release(gk_ctx *ctx, uint32_t idx) {
    gk__slot *s = gk__slot_at(ctx, idx);
    s->live = 0;
    s->gen++;
    if (s->gen == 0) s->gen = 1;
    s->blk = NULL;
    s->next_free = ctx->free_slot;
    ctx->free_slot = idx + 1;
}

/* Looks a handle up; `what` names the argument in the message. */
static gk_status gk__lookup(gk_ctx *ctx, gk_tensor t, gk__slot **out, const char *where, const char *what) {
    uint32_t idx = GK__IDX(t.id), hi = GK__GEN(t.id);
    gk__slot *s;
    *out = NULL;
    if (t.id == 0) return gk__err(ctx, GK_ERR_INVALID_HANDLE, "%s: %s is a null tensor handle", where, what);
    if (t.owner != ctx->serial)
        return gk__err(ctx, GK_ERR_INVALID_HANDLE, "%s: %s is not a tensor of this context (it belongs to context #%llu, this is #%llu)",
                       where, what, (unsigned long long)t.owner, (unsigned long long)ctx->serial);
    if (idx == 0 || idx > ctx->nslots || hi == 0)
        return gk__err(ctx, GK_ERR_INVALID_HANDLE, "%s: %s is not a tensor of this context (no such handle)", where, what);
    s = gk__slot_at(ctx, idx - 1);
    if (!s->live || s->gen != hi)
        return gk__err(ctx, GK_ERR_INVALID_HANDLE, "%s: %s was freed (use after free)", where, what);
    *out = s;
    return GK_OK;
}

static int64_t gk__numel(const gk__slot *s) {
    int64_t n = 1;
    int i;
    for (i = 0; i < s->ndim; i++) n *= s->shape[i];
    return n;
}
static int gk__is_contig(const gk__slot *s) {
    int64_t st = 1;
    int i;
    for (i = s->ndim - 1; i >= 0; i--) {
        if (s->shape[i] == 0) return 1;
        if (s->shape[i] != 1 && s->strides[i] != st) return 0;
        st *= s->shape[i];
    }
    return 1;
}
static void gk__contig_strides(int ndim, const int64_t *shape, int64_t *strides) {
    int64_t st = 1;
    int i;
    for (i = ndim - 1; i >= 0; i--) { strides[i] = st; st *= shape[i] > 0 ? shape[i] : 1; }
}
/* Validates a shape; *nbytes = numel * elem, rejecting overflow. */
static gk_status gk__check_shape(gk_ctx *ctx, gk_dtype dt, int ndim, const int64_t *shape, int64_t *numel,
                                 size_t *nbytes, const char *where) {
    int64_t n = 1;
    int i;
    if (!gk__dtype_ok(dt)) return gk__err(ctx, GK_ERR_DTYPE, "%s: invalid dtype %d", where, (int)dt);
    if (ndim < 0 || ndim > GK_MAX_DIMS) return gk__err(ctx, GK_ERR_SHAPE, "%s: ndim %d outside 0..%d", where, ndim, GK_MAX_DIMS);
    if (ndim > 0 && !shape) return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: shape is NULL", where);
    for (i = 0; i < ndim; i++) {
        if (shape[i] < 0) return gk__err(ctx, GK_ERR_SHAPE, "%s: dim %d has negative size %lld", where, i, (long long)shape[i]);
        /* a division only when the product could leave 2^59 elements */
        if ((n >= ((int64_t)1 << 29) || shape[i] >= ((int64_t)1 << 29)) && shape[i] > 0 && n > (INT64_MAX / 16) / shape[i])
            return gk__err(ctx, GK_ERR_OVERFLOW, "%s: shape overflows (dim %d = %lld)", where, i, (long long)shape[i]);
        n *= shape[i];
    }
    /* n < 2^59 here, times at most 8 bytes: no overflow of a 64-bit size_t */
    if (sizeof(size_t) < 8 && (uint64_t)n > (uint64_t)SIZE_MAX / gk__dtype_sizes[dt])
        return gk__err(ctx, GK_ERR_OVERFLOW, "%s: %lld elements overflow size_t", where, (long long)n);
    *numel = n;
    *nbytes = (size_t)n * gk__dtype_sizes[dt];
    return GK_OK;
}

static gk_status gk__tensor_new(gk_ctx *ctx, gk_dtype dt, int ndim, const int64_t *shape, uint32_t *out_idx,
                                const char *where) {
    int64_t numel = 0;
    size_t nbytes = 0;
    uint32_t idx;
    gk__block *b = NULL;
    gk__slot *s;
    GK__TRY(gk__check_shape(ctx, dt, ndim, shape, &numel, &nbytes, where));
    if (nbytes > 0) GK__TRY(gk__pool_alloc(ctx, nbytes, &b, where));
    if (gk__slot_new(ctx, &idx, where) != GK_OK) {
        if (b) gk__block_unref(ctx, b);
        return GK_ERR_OUT_OF_MEMORY;
    }
    s = gk__slot_at(ctx, idx);
    s->blk = b;
    s->dtype = dt;
    s->ndim = ndim;
    if (ndim) memcpy(s->shape, shape, sizeof(int64_t) * (size_t)ndim);
    gk__contig_strides(ndim, s->shape, s->strides);
    *out_idx = idx;
    return GK_OK;
}

#define GK__ENTER(ctx, where)                                                                   \
    if (!(ctx)) return gk__err(NULL, GK_ERR_INVALID_HANDLE, "%s: ctx is NULL", where);          \
    gk__enter(ctx)

GKDEF gk_status gk_tensor_empty(gk_ctx *ctx, gk_dtype dtype, int ndim, const int64_t *shape, gk_tensor *out) {
    gk_status st;
    uint32_t idx;
    if (out) out->id = 0;
    GK__ENTER(ctx, "gk_tensor_empty");
    if (!out) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_tensor_empty: out is NULL");
    else if ((st = gk__bind(ctx)) == GK_OK && (st = gk__tensor_new(ctx, dtype, ndim, shape, &idx, "gk_tensor_empty")) == GK_OK)
        *out = gk__handle(ctx, idx);
    gk__unlock(&ctx->mu);
    return st;
}

/* gk_tensor_wrap's layout: strides (NULL: contiguous) checked and copied to
   st, *span = the bytes from the first element to past the last. Dims of size
   1 take stride 0; the others need strides >= 0 where each, in increasing
   order, passes the extent of the smaller ones (no element shares memory). */
static gk_status gk__wrap_layout(gk_ctx *ctx, gk_dtype dt, int ndim, const int64_t *shape, const int64_t *strides, int64_t *st,
                                 int64_t numel, size_t *span, const char *W) {
    int order[GK_MAX_DIMS], n = 0, i, j;
    int64_t reach = 0; /* elements past the first that the dims seen so far reach */
    if (!strides) gk__contig_strides(ndim, shape, st);
    for (i = 0; i < ndim; i++) {
        if (!strides) continue;
        if (shape[i] <= 1) { st[i] = 0; continue; }
        if (strides[i] < 0)
            return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: strides[%d] = %lld is negative (reversed layouts are not supported: copy the data first)", W, i,
                           (long long)strides[i]);
        if (strides[i] > ((int64_t)1 << 56) / (shape[i] - 1))
            return gk__err(ctx, GK_ERR_OVERFLOW, "%s: strides[%d] = %lld over %lld elements reaches past 2^56 elements", W, i, (long long)strides[i],
                           (long long)shape[i]);
        st[i] = strides[i];
    }
    for (i = 0; i < ndim; i++) /* the dims of size > 1, by increasing stride */
        if (shape[i] > 1) {
            for (j = n; j > 0 && st[order[j - 1]] > st[i]; j--) order[j] = order[j - 1];
            order[j] = i;
            n++;
        }
    for (j = 0; j < n; j++) {
        int d = order[j];
        if (st[d] <= reach)
            return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: strides[%d] = %lld makes elements overlap (dim %d of size %lld needs a stride above %lld)", W, d,
                           (long long)st[d], d, (long long)shape[d], (long long)reach);
        reach += (shape[d] - 1) * st[d];
    }
    if ((uint64_t)(reach + 1) > (uint64_t)SIZE_MAX / gk__dtype_sizes[dt])
        return gk__err(ctx, GK_ERR_OVERFLOW, "%s: the strides reach %lld elements, past size_t", W, (long long)(reach + 1));
    *span = numel > 0 ? (size_t)(reach + 1) * gk__dtype_sizes[dt] : 0;
    return GK_OK;
}

/* On CUDA the driver must know [address, address + span): device memory of
   the context's device, managed memory, or page-locked host memory. */
static gk_status gk__wrap_check_address(gk_ctx *ctx, uint64_t address, size_t span, const char *W) {
    unsigned mt = 0, mt_end = 0, managed = 0;
    int ord = -1;
    if (ctx->backend != GK_BACKEND_CUDA || !ctx->cu.PointerGetAttribute || span == 0) return GK_OK;
    if (ctx->cu.PointerGetAttribute(&mt, GK__CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (gk__cu_ptr)address) != 0 ||
        ctx->cu.PointerGetAttribute(&mt_end, GK__CU_POINTER_ATTRIBUTE_MEMORY_TYPE, (gk__cu_ptr)(address + span - 1)) != 0)
        return gk__err(ctx, GK_ERR_INVALID_ARGUMENT,
                       "%s: address 0x%llx (%zu bytes) is not memory the CUDA driver knows: kernels cannot read pageable host memory "
                       "(wrap device memory or page-locked host memory such as gk_host_alloc's)", W, (unsigned long long)address, span);
    if ((mt != GK__CU_MEMORYTYPE_HOST && mt != GK__CU_MEMORYTYPE_DEVICE && mt != GK__CU_MEMORYTYPE_UNIFIED) || mt_end != mt)
        return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: address 0x%llx (%zu bytes) spans CUDA memory of types %u and %u; one allocation is needed", W,
                       (unsigned long long)address, span, mt, mt_end);
    if (mt == GK__CU_MEMORYTYPE_DEVICE && ctx->cu.PointerGetAttribute(&managed, GK__CU_POINTER_ATTRIBUTE_IS_MANAGED, (gk__cu_ptr)address) == 0 && !managed &&
        ctx->cu.PointerGetAttribute(&ord, GK__CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, (gk__cu_ptr)address) == 0 && ord != ctx->desc.device)
        return gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: address 0x%llx is memory of CUDA device %d; the context runs on device %d", W,
                       (unsigned long long)address, ord, ctx->desc.device);
    return GK_OK;
}

GKDEF gk_status gk_tensor_wrap(gk_ctx *ctx, gk_dtype dtype, int ndim, const int64_t *shape, const int64_t *strides, uint64_t address,
                               gk_release_fn release, void *user, gk_tensor *out) {
    const char *W = "gk_tensor_wrap";
    int64_t numel = 0, st[GK_MAX_DIMS];
    size_t nbytes = 0, span = 0;
    uint32_t idx;
    gk__block *b = NULL;
    gk__slot *s;
    gk_status rc;
    if (out) out->id = 0;
    GK__ENTER(ctx, W);
    if (!out) rc = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    else if ((rc = gk__check_shape(ctx, dtype, ndim, shape, &numel, &nbytes, W)) == GK_OK &&
             (rc = gk__wrap_layout(ctx, dtype, ndim, shape, strides, st, numel, &span, W)) == GK_OK) {
        if (span && !address) rc = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: address is 0 for a tensor of %lld elements", W, (long long)numel);
        else if (span && address % gk__dtype_sizes[dtype])
            rc = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: address 0x%llx is not aligned to the %s element size (%zu bytes)", W,
                         (unsigned long long)address, gk_dtype_name(dtype), gk__dtype_sizes[dtype]);
        else if (span && address > UINT64_MAX - span)
            rc = gk__err(ctx, GK_ERR_OVERFLOW, "%s: address 0x%llx + %zu bytes wraps around", W, (unsigned long long)address, span);
    }
    if (rc == GK_OK) rc = gk__bind(ctx);
    if (rc == GK_OK) rc = gk__wrap_check_address(ctx, address, span, W);
    if (rc == GK_OK && span) {
        if (!(b = GK__CALLOC(gk__block, 1))) rc = gk__err(ctx, GK_ERR_OUT_OF_MEMORY, "%s: out of host memory", W);
        else {
            b->ptr = (gk__cu_ptr)address;
            b->size = span;
            b->cls = -1;
            b->refs = 1;
            b->state = GK__BLK_LIVE;
            b->foreign = 1;
            b->release = release;
            b->release_user = user;
            b->qos = GK_QOS_GUARANTEED;
            b->tick = ++ctx->pool.tick;
        }
    }
    if (rc == GK_OK && (rc = gk__slot_new(ctx, &idx, W)) != GK_OK) {
        GPUKIT_FREE(b);
        b = NULL;
    }
    if (rc == GK_OK) {
        if (b) gk__list_push(&ctx->pool.wrap_head, &ctx->pool.wrap_tail, b);
        else if (release) release(user); /* no elements: nothing of the memory is kept */
        s = gk__slot_at(ctx, idx);
        s->blk = b;
        s->dtype = dtype;
        s->ndim = ndim;
        if (ndim) {
            memcpy(s->shape, shape, sizeof(int64_t) * (size_t)ndim);
            memcpy(s->strides, st, sizeof(int64_t) * (size_t)ndim);
        }
        *out = gk__handle(ctx, idx);
    }
    gk__unlock(&ctx->mu);
    return rc;
}

static void gk__tensor_free_locked(gk_ctx *ctx, gk__slot *s) {
    gk__block *b = s->blk;
    gk__slot_release(ctx, s->idx);
    gk__block_unref(ctx, b);
}

GKDEF gk_status gk_tensor_free(gk_ctx *ctx, gk_tensor t) {
    gk__slot *s;
    gk_status st;
    GK__ENTER(ctx, "gk_tensor_free");
    st = gk__lookup(ctx, t, &s, "gk_tensor_free", "the tensor");
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK) gk__tensor_free_locked(ctx, s);
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF int gk_tensor_valid(gk_ctx *ctx, gk_tensor t) {
    gk__slot *s;
    int ok;
    char save[GK__ERRBUF];
    if (!ctx) return 0;
    gk__enter(ctx);
    gk__err_save(ctx, save);
    ok = gk__lookup(ctx, t, &s, "gk_tensor_valid", "t") == GK_OK;
    gk__err_restore(ctx, save);
    gk__unlock(&ctx->mu);
    return ok;
}

static void gk__fill_info(const gk__slot *s, gk_tensor_info *o) {
    memset(o, 0, sizeof *o);
    o->dtype = s->dtype;
    o->ndim = s->ndim;
    memcpy(o->shape, s->shape, sizeof o->shape);
    memcpy(o->strides, s->strides, sizeof o->strides);
    o->offset = s->offset;
    o->numel = gk__numel(s);
    o->nbytes = (size_t)o->numel * gk__dtype_sizes[s->dtype];
    o->contiguous = gk__is_contig(s);
    o->resident = !s->blk || s->blk->state == GK__BLK_LIVE;
    o->pinned = s->blk && (s->blk->pins > 0 || s->blk->foreign);
    o->is_view = s->is_view;
    o->wrapped = s->blk && s->blk->foreign;
}
GKDEF gk_status gk_tensor_info_get(gk_ctx *ctx, gk_tensor t, gk_tensor_info *out) {
    gk__slot *s;
    gk_status st;
    GK__ENTER(ctx, "gk_tensor_info_get");
    st = out ? gk__lookup(ctx, t, &s, "gk_tensor_info_get", "the tensor")
             : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_tensor_info_get: out is NULL");
    if (st == GK_OK) gk__fill_info(s, out);
    gk__unlock(&ctx->mu);
    return st;
}

static gk__cu_ptr gk__slot_addr(const gk__slot *s) {
    return s->blk ? s->blk->ptr + (gk__cu_ptr)(s->offset * (int64_t)gk__dtype_sizes[s->dtype]) : 0;
}

GKDEF gk_status gk_tensor_ptr(gk_ctx *ctx, gk_tensor t, uint64_t *out) {
    gk__slot *s;
    gk_status st;
    GK__ENTER(ctx, "gk_tensor_ptr");
    st = out ? gk__lookup(ctx, t, &s, "gk_tensor_ptr", "the tensor") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "gk_tensor_ptr: out is NULL");
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK) st = gk__use(ctx, s->blk, ctx->cur_stream, "gk_tensor_ptr");
    if (st == GK_OK) {
        *out = gk__slot_addr(s);
        gk__unuse(ctx, s->blk);
    }
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_tensor_pin(gk_ctx *ctx, gk_tensor t) {
    gk__slot *s;
    gk_status st;
    GK__ENTER(ctx, "gk_tensor_pin");
    st = gk__lookup(ctx, t, &s, "gk_tensor_pin", "the tensor");
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK && s->blk) {
        if (s->blk->state == GK__BLK_EVICTED) st = gk__pool_restore(ctx, s->blk, ctx->cur_stream, "gk_tensor_pin");
        if (st == GK_OK) s->blk->pins++;
    }
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_tensor_unpin(gk_ctx *ctx, gk_tensor t) {
    gk__slot *s;
    gk_status st;
    GK__ENTER(ctx, "gk_tensor_unpin");
    st = gk__lookup(ctx, t, &s, "gk_tensor_unpin", "the tensor");
    if (st == GK_OK && s->blk) {
        if (s->blk->pins <= 0) st = gk__err(ctx, GK_ERR_STATE, "gk_tensor_unpin: the tensor is not pinned");
        else gk__block_unpin(ctx, s->blk);
    }
    gk__unlock(&ctx->mu);
    return st;
}
GKDEF gk_status gk_tensor_evict(gk_ctx *ctx, gk_tensor t) {
    gk__slot *s;
    gk_status st;
    GK__ENTER(ctx, "gk_tensor_evict");
    st = gk__lookup(ctx, t, &s, "gk_tensor_evict", "the tensor");
    if (st == GK_OK) st = gk__bind(ctx);
    if (st == GK_OK && s->blk && s->blk->foreign)
        st = gk__err(ctx, GK_ERR_UNSUPPORTED, "gk_tensor_evict: the tensor wraps memory gpukit does not own (gk_tensor_wrap); it is never evicted");
    else if (st == GK_OK && s->blk && s->blk->state == GK__BLK_LIVE) {
        st = gk__sync_locked(ctx, "gk_tensor_evict");
        if (st == GK_OK) st = gk__pool_evict(ctx, s->blk, "gk_tensor_evict");
    }
    gk__unlock(&ctx->mu);
    return st;
}

