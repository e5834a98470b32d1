// gk_sm90.cuh - Hopper (sm_90+) building blocks of the kernels that stream
// operands into shared memory with the copy engine (gemm_wg.cu, flash_wg.cu,
// attention.cu's gk_attn_dec4t): mbarriers (init, arrive, arrive with an
// expected byte count, wait on a phase parity), the 4-d tensor-map copy from
// global to shared memory that completes on an mbarrier and its L2 prefetch,
// and the tensor map's type. Addresses of shared
// memory are 32-bit (gk_smem). Defined only when compiling for sm_90 or
// later; a module that uses them keeps its Hopper code under the same test.
#pragma once

// a TMA tensor map (CUtensorMap: 128 opaque bytes, 64-byte aligned), built on the host
// by cuTensorMapEncodeTiled and passed by value as a __grid_constant__ kernel parameter
struct __align__(64) gk_tmap { gk_u64 v[16]; };

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GK_SM90 1
__device__ __forceinline__ unsigned gk_smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void gk_bar_init(unsigned b, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(b), "r"(count));
}
// arrive, and expect `bytes` more of copies to complete on this phase
__device__ __forceinline__ void gk_bar_expect(unsigned b, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(b), "r"(bytes) : "memory");
}
__device__ __forceinline__ void gk_bar_arrive(unsigned b) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(b) : "memory");
}
// wait until the phase of this parity has completed (on a fresh barrier,
// parity 1 passes at once: the phase "before" the first counts as done)
__device__ __forceinline__ void gk_bar_wait(unsigned b, unsigned parity) {
    unsigned ok;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(ok) : "r"(b), "r"(parity) : "memory");
    } while (!ok);
}
// the barriers' initialisation made visible to the copy engine (before the
// block's first barrier sync)
__device__ __forceinline__ void gk_bar_init_fence() { asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); }
// one box of a 4-d tiled tensor map at coordinates (c0 innermost .. c3) into shared
// memory at dst, completing on barrier b (the whole box's bytes, zero-filled past the edges)
__device__ __forceinline__ void gk_tma_load4(unsigned dst, const gk_tmap *m, int c0, int c1, int c2, int c3, unsigned b) {
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];\n"
                 ::"r"(dst), "l"((gk_u64)m), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(b) : "memory");
}
// the same box fetched into L2 only (no shared memory, no barrier): a hint, safe before
// the data's producer is known to be done (L2 is coherent; a later write simply replaces it)
__device__ __forceinline__ void gk_tma_prefetch4(const gk_tmap *m, int c0, int c1, int c2, int c3) {
    asm volatile("cp.async.bulk.prefetch.tensor.4d.L2.global.tile [%0, {%1, %2, %3, %4}];\n"
                 ::"l"((gk_u64)m), "r"(c0), "r"(c1), "r"(c2), "r"(c3) : "memory");
}
#endif
