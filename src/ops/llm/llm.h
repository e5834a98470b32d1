/* >>api_ops_llm: ops for the transformer runtime of gpukit_llm.h
   (declarations of this group go below this line) */
/* KV-cache write at positions read on the device: for every b, t, h,
   cache[b, start[b] + t, h, :] = x[b, t, h, :]. cache [B, S, H, D] and
   x [B, T, H, D] share one dtype (any; elements are copied bit for bit),
   any strides (views into a fused qkv buffer or a cache slot are fine);
   start is a contiguous i32 [B]. Rows whose target start[b] + t falls
   outside [0, S) are skipped (no status: the positions live on the device,
   so a captured graph reads the values current at replay). */
GKDEF gk_status gk_kv_write(gk_ctx *ctx, gk_tensor cache, gk_tensor x, gk_tensor start);
/* RoPE and KV-cache write of one decode token per sequence: x [B, Hq + 2 Hkv, D]
   holds the q heads, k heads and v heads of a fused projection (f32, f16 or
   bf16), cache [B, S, 2 Hkv, D] (k heads, then v heads) has x's dtype, pos is a
   contiguous i32 [B], cos_tab / sin_tab are gk_rope's tables. The same as
   gk_rope(x[:, :Hq + Hkv], positions pos, rotary_dim, GK_ROPE_NEOX) in place,
   then gk_kv_write(cache, x[:, Hq:] as [B, 1, 2 Hkv, D], start pos); on CUDA one
   kernel (launched with programmatic dependent launch) when the heads of x
   are contiguous, the cache rows have unit stride and the tables have x's
   dtype, else those two ops. */
GKDEF gk_status gk_rope_kv_write(gk_ctx *ctx, gk_tensor x, gk_tensor cache, gk_tensor pos, gk_tensor cos_tab, gk_tensor sin_tab, int rotary_dim,
                                 int64_t q_heads);
/* gk_rms_norm(out, x, weight, eps) for the few rows of a decode step: on CUDA,
   with x and out contiguous [R, D], weight [D] of their dtype (f32, f16,
   bf16), 16-byte aligned and D <= 1024 vectors of 16 bytes, one kernel launched
   with programmatic dependent launch (its weight loads overlap the previous
   kernel's tail); otherwise, and on the CPU, gk_rms_norm itself. */
GKDEF gk_status gk_decode_rms_norm(gk_ctx *ctx, gk_tensor out, gk_tensor x, gk_tensor weight, double eps);
/* end of >>api_ops_llm */

