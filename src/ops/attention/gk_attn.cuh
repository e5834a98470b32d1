// gk_attn.cuh - the parameter block of the attention kernels (attention.cu,
// flash.cu, flash_wg.cu): one definition, laid out as gpukit.h's gk__attn (the
// host fills that struct and passes it by value).
#pragma once
#include "gk_common.cuh"

struct gk_attn_p {
    gk_i64 B, Sq, Skv, Hq, Hkv, D;
    gk_i64 q_bs, q_ss, q_hs, k_bs, k_ss, k_hs, v_bs, v_ss, v_hs, o_bs, o_ss, o_hs;
    gk_i64 m_bs, m_qs;            // mask[b * m_bs + i * m_qs + j] (f32, additive)
    const void *q, *k, *v, *mask;
    void *o;
    const int *q_lens, *kv_lens;  // per batch, optional
    float *part;                  // splits > 1: [B, Hq, Sq, splits, D + 2]
    float scale;
    int causal, splits;
    int chunk, tile;              // decode: keys a split, keys a shared-memory tile
    int comb;                     // gk_attn_combine's one-round form allowed
    int pf;                       // decode: 64-key tiles of the split prefetched into L2 before the PDL wait
    unsigned long long *slot;     // decode: the splits' {o / l, lse} words, GK_DEC_EMPTY between kernels: they combine themselves (gk_dec_fold)
};
