/* >>api_ops_matmul: matrix products (GEMM, GEMV for decode)
   out[b] = act(alpha * A[b] @ B[b] + beta * out[b] + bias) + residual[b]
   A is [.., M, K] and B [.., K, N], 2-d or 3-d (a leading batch dim; a 2-d
   operand is shared by every batch); each may be row-major or column-major
   (a transposed view, e.g. gk_view_transpose of a [N, K] weight), which is
   how the NN / NT / TN layouts are expressed. A and B have one dtype (f32,
   f64, f16, bf16); out is row-major with that dtype or f32. Accumulation is
   f32 (f64 for f64); f32 inputs use tensor cores (TF32) only with
   allow_tf32. The dispatcher (see gk__matmul_plan) picks the GEMV kernel for
   M <= 8 rows against a [N, K] weight, else cuBLASLt when loaded for
   f16/bf16/f32, else gpukit's own GEMM; backend forces one. gpukit's own
   GEMM is a tensor-core kernel for f16/bf16 (wgmma on compute capability
   9.0, mma.sync on other sm_80+ devices; and f32 with allow_tf32 on
   mma.sync) when A and B rows are 16-byte aligned; exact f32 runs on a
   CUDA-core kernel with 128x128 tiles under the same alignment rule; else
   the exact SIMT kernel. */
typedef enum gk_act { GK_ACT_NONE = 0, GK_ACT_GELU, GK_ACT_GELU_TANH, GK_ACT_SILU, GK_ACT_RELU } gk_act;
typedef enum gk_matmul_backend { GK_MATMUL_AUTO = 0, GK_MATMUL_GPUKIT, GK_MATMUL_CUBLASLT } gk_matmul_backend;
typedef struct gk_matmul_desc {
    double alpha;               /* 0 means 1 */
    double beta;                /* weight of out's previous contents (0: ignored) */
    gk_tensor bias;             /* [N], optional (id 0: none) */
    gk_act act;                 /* applied after the bias (GELU: erf form; GELU_TANH: tanh form) */
    gk_tensor residual;         /* shaped like out, added last, optional */
    int allow_tf32;             /* f32 inputs may run on tensor cores in TF32 */
    gk_matmul_backend backend;  /* AUTO, or force gpukit's kernels or cuBLASLt */
} gk_matmul_desc;
GKDEF gk_status gk_matmul(gk_ctx *ctx, gk_tensor out, gk_tensor a, gk_tensor b, const gk_matmul_desc *desc);
GKDEF gk_status gk_matmul_new(gk_ctx *ctx, gk_tensor a, gk_tensor b, gk_dtype out_dtype, const gk_matmul_desc *desc, gk_tensor *out);
/* PyTorch's Linear: out[.., N] = x[.., K] @ w[N, K]^T (+ desc's epilogue);
   x may have any number of leading dims (flattened into M). */
GKDEF gk_status gk_linear(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, const gk_matmul_desc *desc);
/* Gated linear unit from one weight (gate and up projections fused):
   w = [gate; up] is [2N, K], out is [.., N], and
   out = act(x @ gate^T + b[:N]) * (x @ up^T + b[N:]) (+ residual), with
   desc->act as the gate's activation (SILU: SwiGLU; GELU / GELU_TANH:
   GeGLU; NONE: bilinear) and alpha scaling both products; beta must be 0.
   Up to 8 rows (decode) it is one pass over w with nothing in memory (the
   GEMV kernel, or the CPU reference). More rows, or operands the GEMV cannot
   take, go through scratch: the product [rows, 2N] is written there (out's
   dtype, contiguous, as PyTorch rounds the two projections), then the GLU;
   scratch may be id 0 when it is not needed, and an error says so when it
   is. */
GKDEF gk_status gk_linear_glu(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor w, gk_tensor scratch, const gk_matmul_desc *desc);
