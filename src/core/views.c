/* >>views: reshape, permute, transpose, slice, squeeze */
/* ---- views ---- */
static int gk__norm_dim(int d, int ndim) { return d < 0 ? d + ndim : d; }

static gk_status gk__view_new(gk_ctx *ctx, const gk__slot *src, int ndim, const int64_t *shape,
                              const int64_t *strides, int64_t offset, gk_tensor *out, const char *where) {
    uint32_t idx;
    gk__slot *s;
    GK__TRY(gk__slot_new(ctx, &idx, where));
    s = gk__slot_at(ctx, idx);
    s->blk = src->blk;
    if (s->blk) s->blk->refs++;
    s->dtype = src->dtype;
    s->ndim = ndim;
    if (ndim) {
        memcpy(s->shape, shape, sizeof(int64_t) * (size_t)ndim);
        memcpy(s->strides, strides, sizeof(int64_t) * (size_t)ndim);
    }
    s->offset = offset;
    s->is_view = 1;
    *out = gk__handle(ctx, idx);
    return GK_OK;
}

/* Strides of a reshape that shares storage, or 0 when a copy is needed. */
static int gk__reshape_strides(const gk__slot *s, int nd, const int64_t *nshape, int64_t *nstr) {
    int64_t chunk_stride, tnum = 1, vnum = 1;
    int td, vd = nd - 1;
    if (s->ndim == 0 || gk__numel(s) == 0) { gk__contig_strides(nd, nshape, nstr); return 1; }
    chunk_stride = s->strides[s->ndim - 1];
    for (td = s->ndim - 1; td >= 0; td--) {
        tnum *= s->shape[td];
        if (td == 0 || (s->shape[td - 1] != 1 && s->strides[td - 1] != tnum * chunk_stride)) {
            while (vd >= 0 && (vnum < tnum || nshape[vd] == 1)) {
                nstr[vd] = vnum * chunk_stride;
                vnum *= nshape[vd];
                vd--;
            }
            if (vnum != tnum) return 0;
            if (td > 0) { chunk_stride = s->strides[td - 1]; tnum = 1; vnum = 1; }
        }
    }
    return vd == -1;
}

GKDEF gk_status gk_view_reshape(gk_ctx *ctx, gk_tensor t, int ndim, const int64_t *shape, gk_tensor *out) {
    const char *W = "gk_view_reshape";
    gk__slot *s;
    gk_status st;
    int64_t ns[GK_MAX_DIMS], nstr[GK_MAX_DIMS], known = 1, numel;
    int i, neg = -1;
    if (out) out->id = 0;
    GK__ENTER(ctx, W);
    st = out ? gk__lookup(ctx, t, &s, W, "the tensor") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (st == GK_OK && (ndim < 0 || ndim > GK_MAX_DIMS || (ndim > 0 && !shape)))
        st = gk__err(ctx, GK_ERR_SHAPE, "%s: ndim %d outside 0..%d (or shape NULL)", W, ndim, GK_MAX_DIMS);
    if (st == GK_OK) {
        numel = gk__numel(s);
        for (i = 0; i < ndim && st == GK_OK; i++) {
            ns[i] = shape[i];
            if (shape[i] == -1) {
                if (neg >= 0) st = gk__err(ctx, GK_ERR_SHAPE, "%s: more than one dim is -1", W);
                neg = i;
            } else if (shape[i] < 0) st = gk__err(ctx, GK_ERR_SHAPE, "%s: dim %d is %lld", W, i, (long long)shape[i]);
            else if (shape[i] > 0 && known > INT64_MAX / shape[i]) st = gk__err(ctx, GK_ERR_OVERFLOW, "%s: shape overflows", W);
            else known *= shape[i];
        }
        if (st == GK_OK && neg >= 0) {
            if (known == 0 || numel % known != 0)
                st = gk__err(ctx, GK_ERR_SHAPE, "%s: cannot infer dim %d: %lld elements", W, neg, (long long)numel);
            else { ns[neg] = numel / known; known = numel; }
        }
        if (st == GK_OK && known != numel)
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: %lld elements cannot be viewed as %lld", W, (long long)numel, (long long)known);
        if (st == GK_OK && !gk__reshape_strides(s, ndim, ns, nstr))
            st = gk__err(ctx, GK_ERR_SHAPE, "%s: the strides do not allow this view without a copy (use gk_contiguous first)", W);
        if (st == GK_OK) st = gk__view_new(ctx, s, ndim, ns, nstr, s->offset, out, W);
    }
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_view_permute(gk_ctx *ctx, gk_tensor t, const int *perm, gk_tensor *out) {
    const char *W = "gk_view_permute";
    gk__slot *s;
    gk_status st;
    int64_t ns[GK_MAX_DIMS], nstr[GK_MAX_DIMS];
    int i, seen[GK_MAX_DIMS] = { 0 };
    if (out) out->id = 0;
    GK__ENTER(ctx, W);
    st = out ? gk__lookup(ctx, t, &s, W, "the tensor") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (st == GK_OK && s->ndim > 0 && !perm) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: perm is NULL", W);
    for (i = 0; st == GK_OK && i < s->ndim; i++) {
        int d = gk__norm_dim(perm[i], s->ndim);
        if (d < 0 || d >= s->ndim || seen[d]) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: perm is not a permutation of %d dims (entry %d = %d)", W, s->ndim, i, perm[i]);
        else { seen[d] = 1; ns[i] = s->shape[d]; nstr[i] = s->strides[d]; }
    }
    if (st == GK_OK) st = gk__view_new(ctx, s, s->ndim, ns, nstr, s->offset, out, W);
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_view_transpose(gk_ctx *ctx, gk_tensor t, int d0, int d1, gk_tensor *out) {
    const char *W = "gk_view_transpose";
    gk__slot *s;
    gk_status st;
    int64_t ns[GK_MAX_DIMS], nstr[GK_MAX_DIMS], x;
    if (out) out->id = 0;
    GK__ENTER(ctx, W);
    st = out ? gk__lookup(ctx, t, &s, W, "the tensor") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (st == GK_OK) {
        d0 = gk__norm_dim(d0, s->ndim);
        d1 = gk__norm_dim(d1, s->ndim);
        if (d0 < 0 || d0 >= s->ndim || d1 < 0 || d1 >= s->ndim)
            st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: dims out of range for a %d-d tensor", W, s->ndim);
    }
    if (st == GK_OK) {
        memcpy(ns, s->shape, sizeof ns);
        memcpy(nstr, s->strides, sizeof nstr);
        x = ns[d0]; ns[d0] = ns[d1]; ns[d1] = x;
        x = nstr[d0]; nstr[d0] = nstr[d1]; nstr[d1] = x;
        st = gk__view_new(ctx, s, s->ndim, ns, nstr, s->offset, out, W);
    }
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_view_slice(gk_ctx *ctx, gk_tensor t, int dim, int64_t start, int64_t stop, int64_t step, gk_tensor *out) {
    const char *W = "gk_view_slice";
    gk__slot *s;
    gk_status st;
    int64_t ns[GK_MAX_DIMS], nstr[GK_MAX_DIMS], n, len;
    if (out) out->id = 0;
    GK__ENTER(ctx, W);
    st = out ? gk__lookup(ctx, t, &s, W, "the tensor") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (st == GK_OK) {
        dim = gk__norm_dim(dim, s->ndim);
        if (dim < 0 || dim >= s->ndim) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: dim out of range for a %d-d tensor", W, s->ndim);
        else if (step < 1) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: step %lld < 1", W, (long long)step);
    }
    if (st == GK_OK) {
        n = s->shape[dim];
        if (start < 0) start += n;
        if (stop < 0) stop += n;
        start = start < 0 ? 0 : (start > n ? n : start);
        stop = stop < 0 ? 0 : (stop > n ? n : stop);
        len = stop > start ? (stop - start + step - 1) / step : 0;
        memcpy(ns, s->shape, sizeof ns);
        memcpy(nstr, s->strides, sizeof nstr);
        ns[dim] = len;
        nstr[dim] = s->strides[dim] * step;
        st = gk__view_new(ctx, s, s->ndim, ns, nstr, s->offset + (len > 0 ? start * s->strides[dim] : 0), out, W);
    }
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_view_squeeze(gk_ctx *ctx, gk_tensor t, int dim, gk_tensor *out) {
    const char *W = "gk_view_squeeze";
    gk__slot *s;
    gk_status st;
    int64_t ns[GK_MAX_DIMS], nstr[GK_MAX_DIMS];
    int i, j = 0;
    if (out) out->id = 0;
    GK__ENTER(ctx, W);
    st = out ? gk__lookup(ctx, t, &s, W, "the tensor") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (st == GK_OK) {
        dim = gk__norm_dim(dim, s->ndim);
        if (dim < 0 || dim >= s->ndim) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: dim out of range for a %d-d tensor", W, s->ndim);
        else if (s->shape[dim] != 1) st = gk__err(ctx, GK_ERR_SHAPE, "%s: dim %d has size %lld, not 1", W, dim, (long long)s->shape[dim]);
    }
    if (st == GK_OK) {
        for (i = 0; i < s->ndim; i++)
            if (i != dim) { ns[j] = s->shape[i]; nstr[j] = s->strides[i]; j++; }
        st = gk__view_new(ctx, s, s->ndim - 1, ns, nstr, s->offset, out, W);
    }
    gk__unlock(&ctx->mu);
    return st;
}

GKDEF gk_status gk_view_unsqueeze(gk_ctx *ctx, gk_tensor t, int dim, gk_tensor *out) {
    const char *W = "gk_view_unsqueeze";
    gk__slot *s;
    gk_status st;
    int64_t ns[GK_MAX_DIMS], nstr[GK_MAX_DIMS];
    int i, j = 0;
    if (out) out->id = 0;
    GK__ENTER(ctx, W);
    st = out ? gk__lookup(ctx, t, &s, W, "the tensor") : gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: out is NULL", W);
    if (st == GK_OK) {
        dim = dim < 0 ? dim + s->ndim + 1 : dim;
        if (s->ndim >= GK_MAX_DIMS) st = gk__err(ctx, GK_ERR_SHAPE, "%s: tensor already has %d dims", W, GK_MAX_DIMS);
        else if (dim < 0 || dim > s->ndim) st = gk__err(ctx, GK_ERR_INVALID_ARGUMENT, "%s: dim out of range for a %d-d tensor", W, s->ndim);
    }
    if (st == GK_OK) {
        for (i = 0; i <= s->ndim; i++) {
            if (i == dim) {
                ns[i] = 1;
                nstr[i] = dim < s->ndim ? s->shape[dim] * s->strides[dim] : 1;
            } else { ns[i] = s->shape[j]; nstr[i] = s->strides[j]; j++; }
        }
        st = gk__view_new(ctx, s, s->ndim + 1, ns, nstr, s->offset, out, W);
    }
    gk__unlock(&ctx->mu);
    return st;
}

