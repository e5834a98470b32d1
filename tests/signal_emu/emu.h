// A tiny CUDA emulator for checking the signal kernels without a GPU
// (`make signal-emu`): the signal kernels under src/ are rewritten by prep.py (inline PTX ->
// atomics / _Float16, extern shared -> per-block buffers, __shared__ ->
// static: blocks run one after another unless launched `concurrent`, as the
// persistent LSTM kernel needs) and compiled as C++20; one std::thread per
// CUDA thread, std::barrier for __syncthreads and for warp shuffles. It
// checks the kernels' logic (indexing, stages, barriers), not timing or the
// GPU memory model. Not part of `make test`.
#pragma once
#include <atomic>
#include <barrier>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>
struct dim3 { unsigned x = 1, y = 1, z = 1; };
struct float2 { float x, y; };
struct alignas(16) float4 { float x, y, z, w; };
struct alignas(16) uint4 { unsigned x, y, z, w; };
static inline float2 make_float2(float a, float b) { return {a, b}; }
static inline uint4 make_uint4(unsigned a, unsigned b, unsigned c, unsigned d) { return {a, b, c, d}; }
inline thread_local dim3 threadIdx, blockIdx, blockDim, gridDim;
inline thread_local char *emu_dyn_smem;
struct emu_warp { std::barrier<> bar{32}; unsigned long long val[32]; };
struct emu_block { std::barrier<> *bar; std::vector<emu_warp *> warps; };
inline thread_local emu_block *emu_cur;
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(x)
#define __align__(n) __attribute__((aligned(n)))
static inline void __syncthreads() { emu_cur->bar->arrive_and_wait(); }
static inline void __threadfence() { std::atomic_thread_fence(std::memory_order_seq_cst); }
template <class T> static inline T __shfl_xor_sync(unsigned, T v, int o) {
    emu_warp *w = emu_cur->warps[threadIdx.x / 32];
    unsigned lane = threadIdx.x & 31;
    unsigned long long u = 0;
    std::memcpy(&u, &v, sizeof v);
    w->val[lane] = u;
    w->bar.arrive_and_wait();
    u = w->val[lane ^ o];
    w->bar.arrive_and_wait();
    T r;
    std::memcpy(&r, &u, sizeof r);
    return r;
}
template <class T> static inline T __ldg(const T *p) { return *p; }
template <class T> static inline T __ldcg(const T *p) { return __atomic_load_n((const volatile T *)p, __ATOMIC_ACQUIRE); }
static inline float __ldcg(const float *p) { unsigned u = __atomic_load_n((const unsigned *)p, __ATOMIC_ACQUIRE); float f; std::memcpy(&f, &u, 4); return f; }
static inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, 4); return i; }
static inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
static inline long long __double_as_longlong(double d) { long long i; std::memcpy(&i, &d, 8); return i; }
static inline int __clzll(unsigned long long x) { return x ? __builtin_clzll(x) : 64; }
static inline void sincospif(float x, float *s, float *c) { double a = M_PI * (double)x; *s = (float)std::sin(a); *c = (float)std::cos(a); }
static inline float cospif(float x) { return (float)std::cos(M_PI * (double)x); }
static inline unsigned atomicMax(unsigned *p, unsigned v) {
    unsigned o = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (o < v && !__atomic_compare_exchange_n(p, &o, v, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {}
    return o;
}
static inline float atomicAdd(float *p, float v) {
    unsigned *u = (unsigned *)p, o = __atomic_load_n(u, __ATOMIC_RELAXED), nv;
    float f;
    do { std::memcpy(&f, &o, 4); f += v; std::memcpy(&nv, &f, 4); } while (!__atomic_compare_exchange_n(u, &o, nv, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    std::memcpy(&f, &o, 4);
    return f;
}
static inline unsigned atomicAdd(unsigned *p, unsigned v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
static inline int atomicAdd(int *p, int v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }
// launch: blocks one after another (concurrent = false; static shared memory is one copy),
// or all at once (concurrent = true; the kernel must use only dynamic shared memory)
template <class F> static void emu_launch(dim3 grid, dim3 block, size_t smem, bool concurrent, F fn) {
    unsigned nb = grid.x * grid.y * grid.z, nt = block.x;
    unsigned nblk = concurrent ? nb : 1;
    std::vector<emu_block> blocks(nblk);
    std::vector<std::vector<char>> sm(nblk, std::vector<char>(smem + 16));
    for (auto &b : blocks) { b.bar = new std::barrier<>(nt); for (unsigned w = 0; w < (nt + 31) / 32; w++) b.warps.push_back(new emu_warp()); }
    std::vector<std::thread> th;
    for (unsigned bi = 0; bi < nblk; bi++)
        for (unsigned t = 0; t < nt; t++)
            th.emplace_back([&, bi, t]() {
                threadIdx.x = t; blockDim = block; gridDim = grid; emu_cur = &blocks[bi]; emu_dyn_smem = sm[bi].data();
                for (unsigned b = concurrent ? bi : 0; b < nb; b += concurrent ? nb : 1) {
                    blockIdx.x = b % grid.x; blockIdx.y = (b / grid.x) % grid.y; blockIdx.z = b / (grid.x * grid.y);
                    fn();
                    if (!concurrent) emu_cur->bar->arrive_and_wait();
                }
            });
    for (auto &t : th) t.join();
    for (auto &b : blocks) { delete b.bar; for (auto *w : b.warps) delete w; }
}
