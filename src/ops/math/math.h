/* >>api_ops_math: more elementwise ops, reductions, softmax, cumsum, top-k, sampling, Gaussian noise
   (declarations of this group go below this line) */
/* Elementwise math. Float ops take f32, f64, f16 or bf16 (16-bit compute in
   f32, f64 in double); inputs broadcast to the output (NumPy rules, any
   strides), all operands of one dtype unless said otherwise. The _new
   variants allocate the output (broadcast shape). */
typedef enum gk_unary_op {
    GK_UNARY_EXP = 0, GK_UNARY_LOG, GK_UNARY_SQRT, GK_UNARY_RSQRT, GK_UNARY_ABS, GK_UNARY_NEG,
    GK_UNARY_SIN, GK_UNARY_COS, GK_UNARY_TANH,
    GK_UNARY_SIGMOID,    /* 1 / (1 + exp(-x)) */
    GK_UNARY_RELU,       /* max(x, 0), NaN stays NaN */
    GK_UNARY_LEAKY_RELU, /* x < 0 ? param * x : x (torch default slope 0.01 is not implied: pass it) */
    GK_UNARY_GELU,       /* x/2 (1 + erf(x / sqrt 2)): torch gelu(approximate='none') */
    GK_UNARY_GELU_TANH,  /* x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): approximate='tanh' */
    GK_UNARY_SILU,       /* x * sigmoid(x) */
    GK_UNARY_RELU2,      /* relu(x)^2 */
    GK_UNARY_SOFTPLUS,   /* log(1 + exp(b x)) / b, x where b x > 20; b = param, 0 means 1 (torch defaults) */
    GK_UNARY_COUNT
} gk_unary_op;
GKDEF gk_status gk_unary(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_unary_op op, double param);
GKDEF gk_status gk_unary_new(gk_ctx *ctx, gk_tensor x, gk_unary_op op, double param, gk_tensor *out);
/* out = min(max(x, lo), hi); pass -INFINITY / INFINITY for one side; NaN x stays NaN; lo <= hi. */
GKDEF gk_status gk_clamp(gk_ctx *ctx, gk_tensor out, gk_tensor x, double lo, double hi);
GKDEF gk_status gk_clamp_new(gk_ctx *ctx, gk_tensor x, double lo, double hi, gk_tensor *out);

/* Binary: POW takes floats; MAXIMUM / MINIMUM take every dtype (NaN propagates, like torch). */
typedef enum gk_binary_op { GK_BINARY_POW = 0, GK_BINARY_MAXIMUM, GK_BINARY_MINIMUM, GK_BINARY_COUNT } gk_binary_op;
GKDEF gk_status gk_binary(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b, gk_binary_op op);
GKDEF gk_status gk_binary_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_binary_op op, gk_tensor *out);
/* Comparisons: out (u8) = 1 where a OP b holds, else 0; a and b of any one dtype (NaN compares unequal). */
typedef enum gk_compare_op { GK_CMP_EQ = 0, GK_CMP_NE, GK_CMP_LT, GK_CMP_LE, GK_CMP_GT, GK_CMP_GE, GK_CMP_COUNT } gk_compare_op;
GKDEF gk_status gk_compare(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b, gk_compare_op op);
GKDEF gk_status gk_compare_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_compare_op op, gk_tensor *out);
/* out = cond != 0 ? a : b; cond u8, a / b / out of any one dtype (elements copied bit for bit). */
GKDEF gk_status gk_where(gk_ctx *ctx, gk_tensor out, gk_tensor cond, gk_tensor a, gk_tensor b);
GKDEF gk_status gk_where_new(gk_ctx *ctx, gk_tensor cond, gk_tensor a, gk_tensor b, gk_tensor *out);
/* Snake activation of vocoders: out = x + sin(alpha x)^2 / (alpha + 1e-9), x [B, C, T] or [C, T],
   alpha [C] (one value per channel). */
GKDEF gk_status gk_snake(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor alpha);
GKDEF gk_status gk_snake_new(gk_ctx *ctx, gk_tensor x, gk_tensor alpha, gk_tensor *out);
/* Gated units: out = act(gate) * up (SwiGLU: SILU, GeGLU: GELU or GELU_TANH). gk_glu_split takes
   one tensor x [..., 2n] whose first half (along the last dim) is the gate: out [..., n]. */
typedef enum gk_glu_op { GK_GLU_SILU = 0, GK_GLU_GELU, GK_GLU_GELU_TANH, GK_GLU_COUNT } gk_glu_op;
GKDEF gk_status gk_glu(gk_ctx *ctx, gk_tensor out, gk_tensor gate, gk_tensor up, gk_glu_op op);
GKDEF gk_status gk_glu_new(gk_ctx *ctx, gk_tensor gate, gk_tensor up, gk_glu_op op, gk_tensor *out);
GKDEF gk_status gk_glu_split(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_glu_op op);
GKDEF gk_status gk_glu_split_new(gk_ctx *ctx, gk_tensor x, gk_glu_op op, gk_tensor *out);

/* Reductions over one dim (negative counts from the end) or every dim
   (GK_AXIS_ALL) of f32 / f64 / f16 / bf16 tensors, accumulating in f32 (f64
   for f64). out has x's shape with the reduced dims removed (keepdim = 0) or
   kept as 1 (keepdim = 1); its dtype is x's, i64 for ARGMAX / ARGMIN (first
   occurrence; NaN counts as the extreme, like torch). Reducing 0 elements:
   SUM gives 0, MEAN and VAR NaN, MAX / MIN / ARG* are an error. VAR divides
   by n (population), VAR_UNBIASED by n - 1 (torch correction=1; n = 1 gives NaN). */
#define GK_AXIS_ALL 0x7FFF
typedef enum gk_reduce_op {
    GK_REDUCE_SUM = 0, GK_REDUCE_MEAN, GK_REDUCE_MAX, GK_REDUCE_MIN, GK_REDUCE_ARGMAX, GK_REDUCE_ARGMIN,
    GK_REDUCE_VAR, GK_REDUCE_VAR_UNBIASED, GK_REDUCE_COUNT
} gk_reduce_op;
GKDEF gk_status gk_reduce(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_reduce_op op, int axis, int keepdim);
GKDEF gk_status gk_reduce_new(gk_ctx *ctx, gk_tensor x, gk_reduce_op op, int axis, int keepdim, gk_tensor *out);
/* softmax / log_softmax over the last dim (f32 / f64 / f16 / bf16), out of x's shape and dtype.
   Numerically stable (max subtracted). Defined edge cases: a row of only -inf gives zeros
   (softmax) and -inf (log_softmax); a NaN makes its row NaN; +inf entries share the row's
   mass equally (others 0). */
GKDEF gk_status gk_softmax(gk_ctx *ctx, gk_tensor out, gk_tensor x);
GKDEF gk_status gk_softmax_new(gk_ctx *ctx, gk_tensor x, gk_tensor *out);
GKDEF gk_status gk_log_softmax(gk_ctx *ctx, gk_tensor out, gk_tensor x);
GKDEF gk_status gk_log_softmax_new(gk_ctx *ctx, gk_tensor x, gk_tensor *out);
/* Inclusive cumulative sum along dim `axis` (f32 / f64 / f16 / bf16 accumulate in f32 / f64;
   i32 / i64 in i64, wrapping); out of x's shape and dtype. */
GKDEF gk_status gk_cumsum(gk_ctx *ctx, gk_tensor out, gk_tensor x, int axis);
GKDEF gk_status gk_cumsum_new(gk_ctx *ctx, gk_tensor x, int axis, gk_tensor *out);
/* The k largest entries along the last dim of x (f32 / f16 / bf16), largest first, ties by
   lower index, NaN above +inf (like torch.topk): values [..., k] (x's dtype, copied exactly) and
   indices [..., k] (i64). 0 <= k <= the last dim. */
GKDEF gk_status gk_topk(gk_ctx *ctx, gk_tensor values, gk_tensor indices, gk_tensor x, int64_t k);
GKDEF gk_status gk_topk_new(gk_ctx *ctx, gk_tensor x, int64_t k, gk_tensor *values, gk_tensor *indices);

/* Sampling of one token per row from logits [batch, vocab] (f32 / f16 / bf16) into
   tokens [batch] (i32), on the device, deterministic: the same inputs, seed and step give
   the same tokens on every run and on both backends. A zeroed descriptor is greedy.
   Per row, in this order:
     1. NaN logits count as -inf; penalties over the distinct tokens of prev[row]
        (i32 [batch, n_prev], entries < 0 or >= vocab ignored, e.g. -1 padding):
        repetition (x > 0 ? x / r : x * r), then x -= count * frequency + presence
        (HF / llama.cpp semantics).
     2. temperature <= 0: greedy, the first index of the largest logit.
     3. else weights w_i = floor(2^40 exp((x_i - max) / temperature)) (integers, so
        sums are exact in any order); candidates: the top_k largest logits (ties by
        lower index), then top-p (the shortest prefix, largest first, whose mass
        before each kept token is < top_p of the candidates' mass), then min-p
        ((x_i - max) / T >= log(min_p)); one draw r = floor(u * total) with u from
        Philox4x32-10 (counter {row, step lo, step hi, 0}, key {seed lo, seed hi})
        picks the candidate where the running weight passes r (index order when
        neither top_k nor top_p filter, else largest first).
   A row with no finite logit gives -1. On the device each row is split over many blocks
   (partial maxima and integer weight sums, or per-part top-k candidates, then a small
   block per row; the results are the same, since every sum is of integers) when
   temperature > 0 without top_k / top_p, with 0 < top_k <= 1024 (top_p and min_p
   allowed), or greedy with penalties, for vocab <= 4194304. Else one block per row
   (greedy without penalties: many blocks from vocab 8192); top_p without top_k and
   top_k > 1024 sort the candidates (less those of weight 0) in shared memory up to 4096
   of them, else in the workspace (correct, slower: e.g. top_p without top_k on flat logits). */
typedef struct gk_sample_desc {
    float temperature;        /* <= 0: greedy */
    int top_k;                /* 0: off; >= vocab: off */
    float top_p;              /* 0 or 1: off; else in (0, 1) */
    float min_p;              /* 0: off; else in (0, 1] */
    float repetition_penalty; /* 0 or 1: off; else > 0 */
    float presence_penalty;   /* 0: off */
    float frequency_penalty;  /* 0: off */
    uint64_t seed;
    uint64_t step;            /* e.g. the position of the token being sampled */
} gk_sample_desc;
/* prev may be a null handle ({0}) when no penalty applies; desc NULL means greedy. */
GKDEF gk_status gk_sample(gk_ctx *ctx, gk_tensor tokens, gk_tensor logits, gk_tensor prev, const gk_sample_desc *desc);
/* One Philox4x32-10 block: out = philox(counter, key) (the generator gk_sample uses). */
GKDEF void gk_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]);
/* Gaussian noise N(0, 1) on the device: element i of out (f32, contiguous, any shape) is number
   offset + i of the stream of seed. Number j comes from Philox4x32-10 block j / 4 (counter {block lo,
   block hi, 0, 0}, key {seed lo, seed hi}) by Box-Muller in float: words w0, w1 give numbers 0 and 1
   of the block (r cos t, r sin t), words w2, w3 numbers 2 and 3, with u = ((w >> 8) + 0.5) 2^-24 in
   (0, 1), r = sqrt(-2 log u_first), t = 2 pi u_second (so |x| < 5.9). The same seed and offset give
   the same numbers; the CPU and CUDA backends agree up to the rounding of logf, sqrtf, sinf, cosf. */
GKDEF gk_status gk_randn(gk_ctx *ctx, gk_tensor out, uint64_t seed, uint64_t offset);
/* end of >>api_ops_math */

