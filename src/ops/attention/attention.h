/* >>api_ops_attention: attention (prefill, decode, GQA / MQA, cross) */
/* Attention, per head: out = softmax(q k^T * scale + mask) v.
   q [B, Sq, Hq, D], k and v [B, Skv, Hkv, D], out [B, Sq, Hq, D] (views
   allowed; the last dim contiguous); Hq a multiple of Hkv (GQA / MQA: q
   head h reads kv head h / (Hq / Hkv)); f32, f16, bf16; D up to 256. Causal:
   query i sees key j <= i + (kv_len - q_len) (aligned at the end, as for a
   KV cache). Cross-attention is Sq != Skv without causal. q_lens / kv_lens
   (i32 [B], optional) give per-sequence lengths inside padded batches; they
   are read on the device, so a captured graph sees the values at replay.
   Rows past q_len, and rows that see no key, are written as zeros.
   Kernels: on a compute capability 9.0 device, f16 / bf16 with D 64 or 128,
   no mask, no lengths and a positive scale run on the wgmma + TMA kernel
   (src/ops/attention/flash_wg.cu; GPUKIT_ATTN_WGMMA=0 in the environment turns it
   off); other 16-bit prefill on mma.sync (src/ops/attention/flash.cu). */
typedef struct gk_attention_desc {
    float scale;                /* 0: 1 / sqrt(D) */
    int causal;
    gk_tensor mask;             /* optional f32 [Sq, Skv] or [B, Sq, Skv], added to the scores (-inf hides) */
    gk_tensor q_lens;           /* optional i32 [B] */
    gk_tensor kv_lens;          /* optional i32 [B] */
} gk_attention_desc;
GKDEF gk_status gk_attention(gk_ctx *ctx, gk_tensor out, gk_tensor q, gk_tensor k, gk_tensor v, const gk_attention_desc *desc);
/* end of >>api_ops_matmul */

