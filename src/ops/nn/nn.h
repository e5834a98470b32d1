/* >>api_ops_nn: norms, positions (RoPE), layout (permute, concat, gather, pad, interpolate)
   (declarations of this group go below this line) */
/* ---- norms. x is f32, f16 or bf16 and contiguous; out has x's shape and
   dtype, is contiguous and may be x (in place). Statistics in f32, biased
   variance, eps inside the square root as in the PyTorch module each one
   matches. weight / bias are f32 or x's dtype; a zero handle (gk_tensor){0}
   means absent. */
/* torch.nn.LayerNorm over the last dim D: (x - mean) / sqrt(var + eps) * w + b;
   weight, bias [D]. PyTorch's default eps is 1e-5. */
GKDEF gk_status gk_layer_norm(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor weight, gk_tensor bias, double eps);
/* HF LlamaRMSNorm over the last dim: y = round(x * rsqrt(mean(x^2) + eps)) to
   x's dtype, out = round(weight * y); weight [D] or absent. */
GKDEF gk_status gk_rms_norm(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor weight, double eps);
/* Fused residual add: h = round(x + residual) is written to h (x's shape and
   dtype; may be x or residual), out = gk_rms_norm(h). */
GKDEF gk_status gk_add_rms_norm(gk_ctx *ctx, gk_tensor out, gk_tensor h, gk_tensor x, gk_tensor residual, gk_tensor weight, double eps);
/* torch.nn.GroupNorm on x [B, C, *]: statistics per (batch, group) over C /
   num_groups channels and every position; weight, bias [C]. Default eps 1e-5. */
GKDEF gk_status gk_group_norm(gk_ctx *ctx, gk_tensor out, gk_tensor x, int num_groups, gk_tensor weight, gk_tensor bias, double eps);
/* torch.nn.InstanceNorm1d/2d (no running stats) on x [B, C, *] (3+ dims):
   statistics per (b, c) over the positions; optional affine weight, bias [C].
   PyTorch's eps is 1e-5. */
GKDEF gk_status gk_instance_norm(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor weight, gk_tensor bias, double eps);
/* AdaIN: out = scale * instance_norm(x) + shift, x [B, C, *] (3+ dims),
   scale and shift [B, C] (contiguous; f32 or x's dtype). Kokoro's AdaIN1d is
   scale = 1 + gamma, eps 1e-5. */
GKDEF gk_status gk_adain(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor scale, gk_tensor shift, double eps);
GKDEF gk_status gk_layer_norm_new(gk_ctx *ctx, gk_tensor x, gk_tensor weight, gk_tensor bias, double eps, gk_tensor *out);
GKDEF gk_status gk_rms_norm_new(gk_ctx *ctx, gk_tensor x, gk_tensor weight, double eps, gk_tensor *out);
GKDEF gk_status gk_add_rms_norm_new(gk_ctx *ctx, gk_tensor x, gk_tensor residual, gk_tensor weight, double eps, gk_tensor *out, gk_tensor *h);
GKDEF gk_status gk_group_norm_new(gk_ctx *ctx, gk_tensor x, int num_groups, gk_tensor weight, gk_tensor bias, double eps, gk_tensor *out);
GKDEF gk_status gk_instance_norm_new(gk_ctx *ctx, gk_tensor x, gk_tensor weight, gk_tensor bias, double eps, gk_tensor *out);
GKDEF gk_status gk_adain_new(gk_ctx *ctx, gk_tensor x, gk_tensor scale, gk_tensor shift, double eps, gk_tensor *out);

/* ---- rotary position embedding (RoPE) and sinusoidal positions */
typedef enum gk_rope_type {
    GK_ROPE_DEFAULT = 0,   /* inv_freq[i] = 1 / theta^(2i / rotary_dim) */
    GK_ROPE_LINEAR,        /* inv_freq / factor */
    GK_ROPE_DYNAMIC,       /* NTK-aware: theta * ((factor * seq / max_pos) - (factor - 1))^(d / (d - 2)) */
    GK_ROPE_YARN,          /* YaRN ramp between interpolation and extrapolation, attention factor */
    GK_ROPE_LLAMA3         /* Llama 3.1 wavelength bands */
} gk_rope_type;
typedef enum gk_rope_layout {
    GK_ROPE_NEOX = 0,      /* rotate-half: pairs (j, j + rotary_dim/2) (HF default) */
    GK_ROPE_GPTJ           /* interleaved: pairs (2j, 2j + 1) */
} gk_rope_layout;
/* The fields of HF transformers' rope_parameters (a zero means "absent",
   and HF's default applies). */
typedef struct gk_rope_config {
    gk_rope_type type;
    int rotary_dim;                  /* int(head_dim * partial_rotary_factor); even, > 0 */
    double theta;                    /* rope_theta; 0: 10000 */
    double factor;                   /* linear, dynamic, llama3: required; yarn: 0 = max_pos / original */
    int64_t max_position_embeddings; /* dynamic, yarn */
    int64_t original_max_position_embeddings; /* yarn (0: max_position_embeddings), llama3 (required) */
    int64_t seq_len;                 /* dynamic: current length (HF uses max(seq_len, max_pos)); 0: max_pos */
    double attention_factor;         /* yarn: 0 = from factor, mscale, mscale_all_dim */
    double beta_fast, beta_slow;     /* yarn: 0 = 32, 1 */
    double mscale, mscale_all_dim;   /* yarn */
    int no_truncate;                 /* yarn: truncate = false */
    double low_freq_factor, high_freq_factor; /* llama3 (required) */
} gk_rope_config;
/* HF's inverse frequencies (rotary_dim / 2 floats, computed in f32 like
   torch) and attention scaling (1 except YaRN). Host only. */
GKDEF gk_status gk_rope_inv_freq(const gk_rope_config *cfg, float *inv_freq, double *attention_scaling);
/* cos / sin tables [max_pos, rotary_dim / 2] (row p: cos(p * inv_freq) *
   attention_scaling, like HF's cos/sin halves). Host only. */
GKDEF gk_status gk_rope_table(const gk_rope_config *cfg, int64_t max_pos, float *cos_tab, float *sin_tab, double *attention_scaling);
/* The same tables as new tensors [max_pos, rotary_dim / 2] of dtype (f32, f16
   or bf16), uploaded synchronously (set-up time, not for the hot path). */
GKDEF gk_status gk_rope_table_new(gk_ctx *ctx, const gk_rope_config *cfg, int64_t max_pos, gk_dtype dtype, gk_tensor *cos_tab,
                                  gk_tensor *sin_tab);
/* Rotates the first rotary_dim dims of every head of x [T, H, D] (f32, f16,
   bf16; last dim contiguous, any token / head strides, e.g. a view into a
   fused qkv) at positions [T] (i32 or i64) with cos / sin tables [P,
   rotary_dim / 2] (f32 or x's dtype); dims rotary_dim..D-1 pass through.
   out [T, H, D] of x's dtype may be x (in place). Computes in f32, rounds once.
   A position outside [0, P) gives zeros in the rotary part (no host sync
   can check device data). */
GKDEF gk_status gk_rope(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor positions, gk_tensor cos_tab, gk_tensor sin_tab,
                        int rotary_dim, gk_rope_layout layout);
GKDEF gk_status gk_rope_new(gk_ctx *ctx, gk_tensor x, gk_tensor positions, gk_tensor cos_tab, gk_tensor sin_tab, int rotary_dim,
                            gk_rope_layout layout, gk_tensor *out);
/* Whisper's sinusoids(length, channels, max_timescale): out [length, channels]
   f32, sin of the first channels/2, cos of the rest (channels even, >= 4);
   max_timescale 0 means 10000. Host only. */
GKDEF gk_status gk_sinusoids(int64_t length, int64_t channels, double max_timescale, float *out);

/* ---- layout. Any dtype; these copy (on the current stream) unless said. */
/* out = x.permute(perm) materialised (out: the permuted shape, any strides).
   Contiguous runs move 16 bytes per thread; a moved last dim goes through a
   tiled shared-memory transpose. */
GKDEF gk_status gk_permute(gk_ctx *ctx, gk_tensor out, gk_tensor x, const int *perm);
GKDEF gk_status gk_permute_new(gk_ctx *ctx, gk_tensor x, const int *perm, gk_tensor *out);
/* torch.cat(xs, axis): n >= 1 inputs of one dtype, equal shapes but along
   axis. One strided copy per input. */
GKDEF gk_status gk_concat(gk_ctx *ctx, gk_tensor out, const gk_tensor *xs, int n, int axis);
GKDEF gk_status gk_concat_new(gk_ctx *ctx, const gk_tensor *xs, int n, int axis, gk_tensor *out);
/* torch.split(x, sizes, axis) as n VIEWS of x (no copy; sizes sum to the
   dim): free them with gk_tensor_free; gk_contiguous gives copies. */
GKDEF gk_status gk_split(gk_ctx *ctx, gk_tensor x, int axis, const int64_t *sizes, int n, gk_tensor *outs);
/* out = x[..., start:stop:step, ...] along axis (Python rules, step >= 1) as a copy. */
GKDEF gk_status gk_slice_copy(gk_ctx *ctx, gk_tensor out, gk_tensor x, int axis, int64_t start, int64_t stop, int64_t step);
/* torch.index_select(x, axis, index): index i32 / i64 [n] (contiguous); x and
   out contiguous. An index outside [0, x.shape[axis]) (negative included)
   gives zeros in its slice: no status, no host sync. */
GKDEF gk_status gk_index_select(gk_ctx *ctx, gk_tensor out, gk_tensor x, int axis, gk_tensor index);
GKDEF gk_status gk_index_select_new(gk_ctx *ctx, gk_tensor x, int axis, gk_tensor index, gk_tensor *out);
/* Embedding lookup: out [ids.shape..., D] = table [V, D] rows at ids (i32 or
   i64, any shape); out-of-range ids give zero rows (as gk_index_select). */
GKDEF gk_status gk_embedding(gk_ctx *ctx, gk_tensor out, gk_tensor table, gk_tensor ids);
GKDEF gk_status gk_embedding_new(gk_ctx *ctx, gk_tensor table, gk_tensor ids, gk_tensor *out);
/* torch.Tensor.repeat(repeats): nrep >= x.ndim (leading repeats add dims),
   repeats >= 0; out shape [..., repeats[i] * shape[i]]. At most 8 dims after
   dropping size-1 ones (GK_ERR_UNSUPPORTED otherwise). */
GKDEF gk_status gk_repeat(gk_ctx *ctx, gk_tensor out, gk_tensor x, const int64_t *repeats, int nrep);
GKDEF gk_status gk_repeat_new(gk_ctx *ctx, gk_tensor x, const int64_t *repeats, int nrep, gk_tensor *out);
/* torch.repeat_interleave(x, repeats, axis) with one repeat count >= 0. */
GKDEF gk_status gk_repeat_interleave(gk_ctx *ctx, gk_tensor out, gk_tensor x, int64_t repeats, int axis);
GKDEF gk_status gk_repeat_interleave_new(gk_ctx *ctx, gk_tensor x, int64_t repeats, int axis, gk_tensor *out);
typedef enum gk_pad_mode { GK_PAD_CONSTANT = 0, GK_PAD_REFLECT, GK_PAD_REPLICATE } gk_pad_mode;
/* torch.nn.functional.pad over the last 1 (npads 2: left, right) or 2 dims
   (npads 4: left, right, top, bottom); pads >= 0; x and out contiguous.
   Reflect needs each pad < its dim, replicate a non-empty dim. value: the
   constant (converted to x's dtype). */
GKDEF gk_status gk_pad(gk_ctx *ctx, gk_tensor out, gk_tensor x, const int64_t *pads, int npads, gk_pad_mode mode, double value);
GKDEF gk_status gk_pad_new(gk_ctx *ctx, gk_tensor x, const int64_t *pads, int npads, gk_pad_mode mode, double value, gk_tensor *out);
typedef enum gk_interp_mode { GK_INTERP_NEAREST = 0, GK_INTERP_LINEAR } gk_interp_mode;
/* torch.nn.functional.interpolate, align_corners=False: x [N, C, W] (linear
   or nearest over W) or [N, C, H, W] (bilinear or nearest over H, W), f32 /
   f16 / bf16, contiguous; the output size is out's shape. scales (1 per
   spatial dim, NULL or 0: none) are the scale_factor PyTorch was given:
   the source step is then 1 / scale, else in / out, exactly as PyTorch.
   _new: size (NULL: floor(in * scale)) or scales. */
GKDEF gk_status gk_interpolate(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_interp_mode mode, const double *scales);
GKDEF gk_status gk_interpolate_new(gk_ctx *ctx, gk_tensor x, gk_interp_mode mode, const int64_t *size, const double *scales,
                                   gk_tensor *out);

/* end of >>api_ops_nn */

