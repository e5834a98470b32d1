// reduce.cu - reductions over any set of dims (sum, mean, max, min, argmax,
// argmin, variance), softmax / log_softmax over the last dim, cumsum.
// Float inputs (f32, f64, f16, bf16); accumulation in f32 (f64 for f64).
// Geometry: `on` iterates the outputs (operand 0: output offset, 1: input
// offset), `rn` the reduced elements of one output (operand 0: input offset).
#include "gk_common.cuh"
#include "gk_vec.cuh"

#define R_SUM 0
#define R_MEAN 1
#define R_MAX 2
#define R_MIN 3
#define R_ARGMAX 4
#define R_ARGMIN 5
#define R_VAR 6
#define R_VARU 7

template <int DT> struct gk_acct { typedef float A; };
template <> struct gk_acct<GK_DT_f64> { typedef double A; };

// state of a reduction: v (sum, extreme or Welford mean), m2 (Welford), n
// (Welford count or the index of the extreme)
template <typename A> struct gk_rs { A v; A m2; gk_i64 n; };
// the layout of partial states in the workspace (gk__rpart in gpukit.h)
struct gk_rpart { double v; double m2; gk_i64 n; };

template <typename A> __device__ __forceinline__ A gk_inf();
template <> __device__ __forceinline__ float gk_inf<float>() { return __int_as_float(0x7F800000); }
template <> __device__ __forceinline__ double gk_inf<double>() { return __longlong_as_double(0x7FF0000000000000ll); }

template <typename A> __device__ __forceinline__ void rs_init(int op, gk_rs<A> &s) {
    s.m2 = 0;
    s.n = (op == R_ARGMAX || op == R_ARGMIN) ? 0x7FFFFFFFFFFFFFFFll : 0;
    s.v = (op == R_MAX || op == R_ARGMAX) ? -gk_inf<A>() : (op == R_MIN || op == R_ARGMIN) ? gk_inf<A>() : (A)0;
}
// is (xv, xi) a better extreme than (sv, si)? NaN is the most extreme; ties: lower index
template <typename A> __device__ __forceinline__ bool rs_better(bool mx, A xv, gk_i64 xi, A sv, gk_i64 si) {
    bool xn = xv != xv, sn = sv != sv;
    if (xn || sn) return xn && (!sn || xi < si);
    if (xv == sv) return xi < si;
    return mx ? xv > sv : xv < sv;
}
template <typename A> __device__ __forceinline__ void rs_push(int op, gk_rs<A> &s, A x, gk_i64 i) {
    switch (op) {
    case R_SUM: case R_MEAN: s.v += x; break;
    case R_MAX: if (s.v == s.v && (x != x || x > s.v)) s.v = x; break;
    case R_MIN: if (s.v == s.v && (x != x || x < s.v)) s.v = x; break;
    case R_ARGMAX: case R_ARGMIN:
        if (rs_better<A>(op == R_ARGMAX, x, i, s.v, s.n)) { s.v = x; s.n = i; }
        break;
    default: {
        A d = x - s.v;
        s.n++;
        s.v += d / (A)s.n;
        s.m2 += d * (x - s.v);
    }
    }
}
template <typename A> __device__ __forceinline__ void rs_merge(int op, gk_rs<A> &s, const gk_rs<A> &o) {
    switch (op) {
    case R_SUM: case R_MEAN: s.v += o.v; break;
    case R_MAX: case R_MIN: rs_push<A>(op, s, o.v, 0); break;
    case R_ARGMAX: case R_ARGMIN:
        if (rs_better<A>(op == R_ARGMAX, o.v, o.n, s.v, s.n)) { s.v = o.v; s.n = o.n; }
        break;
    default:
        if (o.n == 0) break;
        if (s.n == 0) { s = o; break; }
        {
            gk_i64 n = s.n + o.n;
            A d = o.v - s.v;
            s.v += d * ((A)o.n / (A)n);
            s.m2 += o.m2 + d * d * ((A)s.n * (A)o.n / (A)n);
            s.n = n;
        }
    }
}
template <typename A> __device__ __forceinline__ gk_rs<A> rs_shfl(const gk_rs<A> &s, int off) {
    gk_rs<A> o;
    o.v = __shfl_down_sync(0xFFFFFFFFu, s.v, off);
    o.m2 = __shfl_down_sync(0xFFFFFFFFu, s.m2, off);
    o.n = __shfl_down_sync(0xFFFFFFFFu, s.n, off);
    return o;
}
// block-wide merge; the result is valid in thread 0. blockDim.x a multiple of 32.
template <typename A> __device__ __forceinline__ gk_rs<A> rs_block(int op, gk_rs<A> s) {
    __shared__ gk_rs<A> sh[32];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    for (int off = 16; off > 0; off >>= 1) { gk_rs<A> o = rs_shfl<A>(s, off); rs_merge<A>(op, s, o); }
    __syncthreads();
    if (lane == 0) sh[w] = s;
    __syncthreads();
    if (w == 0) {
        if (lane < nw) s = sh[lane];
        else rs_init<A>(op, s);
        for (int off = 16; off > 0; off >>= 1) { gk_rs<A> o = rs_shfl<A>(s, off); rs_merge<A>(op, s, o); }
    }
    return s;
}
// writes the final value of one output
template <int DT> __device__ __forceinline__ void rs_final(int op, const gk_rs<typename gk_acct<DT>::A> &s, gk_i64 R, void *out, gk_i64 o) {
    typedef gk_ty<DT> T;
    typedef typename gk_acct<DT>::A A;
    typename T::S *po = (typename T::S *)out;
    switch (op) {
    case R_SUM: case R_MAX: case R_MIN: po[o] = T::st((typename T::C)s.v); break;
    case R_MEAN: po[o] = T::st((typename T::C)(s.v / (A)R)); break;
    case R_ARGMAX: case R_ARGMIN: ((gk_i64 *)out)[o] = s.n; break;
    case R_VAR: po[o] = T::st((typename T::C)(s.m2 / (A)R)); break;
    default: po[o] = T::st((typename T::C)(s.m2 / (A)(R > 1 ? R - 1 : 0))); break; // n <= 1: NaN
    }
}

// S partial states of output m merged in order, the result written: each
// thread merges a strided subset in order, then the block in a fixed order
// (the same arithmetic whichever block or kernel runs it). L2 loads (__ldcg):
// the parts may come from other blocks of the running kernel.
template <int DT> __device__ __forceinline__ void gk_red_merge(int op, gk_i64 R, gk_i64 S, gk_i64 m, gk_i64 oo, void *out, const gk_rpart *part) {
    typedef typename gk_acct<DT>::A A;
    gk_rs<A> s;
    rs_init<A>(op, s);
    for (gk_i64 p = threadIdx.x; p < S; p += blockDim.x) {
        const gk_rpart *q = part + m * S + p;
        gk_rs<A> o;
        o.v = (A)__ldcg(&q->v); o.m2 = (A)__ldcg(&q->m2); o.n = __ldcg((const long long *)&q->n);
        rs_merge<A>(op, s, o);
    }
    s = rs_block<A>(op, s);
    if (threadIdx.x == 0) rs_final<DT>(op, s, R, out, oo);
}

// One block per (output, part): part p of S covers elements [p*chunk, (p+1)*chunk)
// of the R reduced ones. S == 1 writes the result, else a partial state;
// with arrival counters (ctr, one per output, zero on entry) the last of an
// output's S blocks merges them (gk_red_merge) and resets its counter, and no
// gk_red_finb runs. OP is a template argument so the inner loops carry no
// per-element switch (the push of SUM is one add, MAX no index arithmetic).
// U: 16-byte vectors a thread loads per step of a contiguous row, all in flight
// before the pushes: 16 in the sum / mean / max / min kernel (the fastest count,
// in 512-thread blocks for rows of 4096 and more), 4 in the one with the larger
// states. The last step's loads past the row are identity-filled rather than its
// pushes predicated, which is slower for the sum (docs/perf-log.md).
template <int DT, int OP, int U> __device__ __forceinline__ void gk_red_rows_t(const gk_nd &on, const gk_nd &rn, gk_i64 R, gk_i64 S, gk_i64 chunk,
                                                                        void *out, const typename gk_ty<DT>::S *x, gk_rpart *part,
                                                                        unsigned *ctr) {
    const int op = OP;
    typedef gk_ty<DT> T;
    typedef typename T::S Sx;
    typedef typename gk_acct<DT>::A A;
    __shared__ int last;
    gk_i64 M = on.n;
    bool contig = rn.ndim == 1 && rn.st[0][0] == 1;
    for (gk_i64 blk = blockIdx.x; blk < M * S; blk += gridDim.x) {
        gk_i64 m = blk / S, p = blk - m * S, oo, ox, o2;
        gk_nd_offsets(on, m, oo, ox, o2);
        gk_i64 r0 = p * chunk, r1 = r0 + chunk < R ? r0 + chunk : R;
        gk_rs<A> s;
        rs_init<A>(op, s);
        if (contig) {
            const Sx *b = x + ox;
            const int V = 16 / sizeof(Sx);
            gk_i64 head = (gk_i64)(((16 - ((unsigned long long)(b + r0) & 15)) & 15) / sizeof(Sx));
            if (((unsigned long long)b & (sizeof(Sx) - 1)) != 0) head = r1 - r0;
            if (head > r1 - r0) head = r1 - r0;
            for (gk_i64 r = r0 + threadIdx.x; r < r0 + head; r += blockDim.x) rs_push<A>(op, s, (A)T::ld(b[r]), r);
            gk_i64 v0 = r0 + head, nv = (r1 - v0) / V;
            const uint4 *bv = (const uint4 *)(b + v0);
            // one state per vector lane (4 at most): independent chains (the
            // adds of a sum, the compares of a max) instead of one, merged at
            // the end (argmax ties go to the lower index in any order)
            enum { NL = V < 4 ? V : 4 }; // 4 at most: 8 states of a variance (f16 / bf16) spilled
            gk_rs<A> sl[NL];
#pragma unroll
            for (int k = 0; k < NL; k++) rs_init<A>(op, sl[k]);
            // U vectors a thread in flight: the loads of a step issued before its
            // pushes, the last step predicated (no loop of single vectors after it).
            // Sum / mean / max / min fill the vectors past the row with their
            // identity (0, -inf, +inf: pushing it changes nothing, the sum starts at
            // +0 so it is never -0) and push every vector; the others skip them.
            enum { ID = OP == R_SUM || OP == R_MEAN || OP == R_MAX || OP == R_MIN };
            union { uint4 v; Sx s[16 / sizeof(Sx)]; } idv;
#pragma unroll
            for (int k = 0; k < V; k++)
                idv.s[k] = T::st((typename T::C)(OP == R_MAX ? -gk_inf<A>() : OP == R_MIN ? gk_inf<A>() : (A)0));
            const gk_i64 bd = blockDim.x;
            for (gk_i64 j = threadIdx.x; j < nv; j += U * bd) {
                union { uint4 v; Sx s[16 / sizeof(Sx)]; } u[U];
#pragma unroll
                for (int t = 0; t < U; t++) u[t].v = j + t * bd < nv ? __ldg(bv + j + t * bd) : idv.v;
#pragma unroll
                for (int t = 0; t < U; t++)
                    if (ID || j + t * bd < nv)
#pragma unroll
                        for (int k = 0; k < V; k++) rs_push<A>(op, sl[k % NL], (A)T::ld(u[t].s[k]), v0 + (j + t * bd) * V + k);
            }
#pragma unroll
            for (int k = 0; k < NL; k++) rs_merge<A>(op, s, sl[k]);
            for (gk_i64 r = v0 + nv * V + threadIdx.x; r < r1; r += blockDim.x) rs_push<A>(op, s, (A)T::ld(b[r]), r);
        } else {
            for (gk_i64 r = r0 + threadIdx.x; r < r1; r += blockDim.x) {
                gk_i64 q0, q1, q2;
                gk_nd_offsets(rn, r, q0, q1, q2);
                rs_push<A>(op, s, (A)T::ld(x[ox + q0]), r);
            }
        }
        s = rs_block<A>(op, s);
        if (threadIdx.x == 0) {
            if (S == 1) rs_final<DT>(op, s, R, out, oo);
            else {
                part[blk].v = (double)s.v; part[blk].m2 = (double)s.m2; part[blk].n = s.n;
                if (ctr) {
                    __threadfence(); // the part is visible before the count
                    last = atomicAdd(ctr + m, 1u) == (unsigned)(S - 1);
                }
            }
        }
        if (S > 1 && ctr) {
            __syncthreads();
            if (last) {
                __threadfence();
                gk_red_merge<DT>(op, R, S, m, oo, out, part);
                if (threadIdx.x == 0) ctr[m] = 0u;
            }
        }
        __syncthreads();
    }
}
// FAST: sum / mean / max / min only (a kernel of fewer registers, more blocks an SM)
template <int DT, bool FAST> __device__ __forceinline__ void gk_red_rows(const gk_nd &on, const gk_nd &rn, gk_i64 R, int op, gk_i64 S, gk_i64 chunk,
                                                              void *out, const typename gk_ty<DT>::S *x, gk_rpart *part, unsigned *ctr) {
    if (FAST) {
        switch (op) {
        case R_SUM: gk_red_rows_t<DT, R_SUM, 16>(on, rn, R, S, chunk, out, x, part, ctr); break;
        case R_MEAN: gk_red_rows_t<DT, R_MEAN, 16>(on, rn, R, S, chunk, out, x, part, ctr); break;
        case R_MAX: gk_red_rows_t<DT, R_MAX, 16>(on, rn, R, S, chunk, out, x, part, ctr); break;
        default: gk_red_rows_t<DT, R_MIN, 16>(on, rn, R, S, chunk, out, x, part, ctr); break;
        }
        return;
    }
    switch (op) {
    case R_SUM: gk_red_rows_t<DT, R_SUM, 4>(on, rn, R, S, chunk, out, x, part, ctr); break;
    case R_MEAN: gk_red_rows_t<DT, R_MEAN, 4>(on, rn, R, S, chunk, out, x, part, ctr); break;
    case R_MAX: gk_red_rows_t<DT, R_MAX, 4>(on, rn, R, S, chunk, out, x, part, ctr); break;
    case R_MIN: gk_red_rows_t<DT, R_MIN, 4>(on, rn, R, S, chunk, out, x, part, ctr); break;
    case R_ARGMAX: gk_red_rows_t<DT, R_ARGMAX, 4>(on, rn, R, S, chunk, out, x, part, ctr); break;
    case R_ARGMIN: gk_red_rows_t<DT, R_ARGMIN, 4>(on, rn, R, S, chunk, out, x, part, ctr); break;
    case R_VAR: gk_red_rows_t<DT, R_VAR, 4>(on, rn, R, S, chunk, out, x, part, ctr); break;
    default: gk_red_rows_t<DT, R_VARU, 4>(on, rn, R, S, chunk, out, x, part, ctr); break;
    }
}
// combines the S partial states of each output, in order
template <int DT> __device__ __forceinline__ void gk_red_fin(const gk_nd &on, gk_i64 R, int op, gk_i64 S, void *out, const gk_rpart *part) {
    typedef typename gk_acct<DT>::A A;
    for (gk_i64 m = GK_TID; m < on.n; m += GK_NTHREADS) {
        gk_i64 oo, ox, o2;
        gk_nd_offsets(on, m, oo, ox, o2);
        gk_rs<A> s;
        rs_init<A>(op, s);
        for (gk_i64 p = 0; p < S; p++) {
            gk_rs<A> o;
            o.v = (A)part[m * S + p].v; o.m2 = (A)part[m * S + p].m2; o.n = part[m * S + p].n;
            rs_merge<A>(op, s, o);
        }
        rs_final<DT>(op, s, R, out, oo);
    }
}
// the same with one block an output (many partial states), gk_red_merge
template <int DT> __device__ __forceinline__ void gk_red_finb(const gk_nd &on, gk_i64 R, int op, gk_i64 S, void *out, const gk_rpart *part) {
    for (gk_i64 m = blockIdx.x; m < on.n; m += gridDim.x) {
        gk_i64 oo, ox, o2;
        gk_nd_offsets(on, m, oo, ox, o2);
        gk_red_merge<DT>(op, R, S, m, oo, out, part);
        __syncthreads();
    }
}
// many outputs over a strided dim: blocks of 32 x 8 threads, x over 32
// neighbouring outputs (coalesced), y over slices of the reduced elements;
// the 8 partial states merge in order through shared memory
template <int DT> __device__ __forceinline__ void gk_red_cols(const gk_nd &on, const gk_nd &rn, gk_i64 R, int op, void *out,
                                                              const typename gk_ty<DT>::S *x) {
    typedef gk_ty<DT> T;
    typedef typename gk_acct<DT>::A A;
    __shared__ gk_rs<A> sh[8][32];
    int tx = threadIdx.x, ty = threadIdx.y;
    for (gk_i64 m0 = (gk_i64)blockIdx.x * 32; m0 < on.n; m0 += (gk_i64)gridDim.x * 32) {
        gk_i64 m = m0 + tx;
        gk_rs<A> s;
        rs_init<A>(op, s);
        if (m < on.n) {
            gk_i64 oo, ox, o2;
            gk_nd_offsets(on, m, oo, ox, o2);
            if (rn.ndim == 1) {
                gk_i64 st = rn.st[0][0];
                for (gk_i64 r = ty; r < R; r += 8) rs_push<A>(op, s, (A)T::ld(x[ox + r * st]), r);
            } else {
                for (gk_i64 r = ty; r < R; r += 8) {
                    gk_i64 q0, q1, q2;
                    gk_nd_offsets(rn, r, q0, q1, q2);
                    rs_push<A>(op, s, (A)T::ld(x[ox + q0]), r);
                }
            }
        }
        sh[ty][tx] = s;
        __syncthreads();
        if (ty == 0 && m < on.n) {
            gk_i64 oo, ox, o2;
            gk_nd_offsets(on, m, oo, ox, o2);
            for (int k = 1; k < 8; k++) rs_merge<A>(op, s, sh[k][tx]);
            rs_final<DT>(op, s, R, out, oo);
        }
        __syncthreads();
    }
}

// ---- softmax / log_softmax over rows of n elements (stride xs / os) ----
// Online (max, sum) per thread, merged per block; an element equal to the
// row max counts exp(0) = 1 exactly (so +inf entries share the mass); a row
// of -inf gives 0 (softmax) or -inf (log_softmax); NaN gives a NaN row.
__device__ __forceinline__ float m_expA(float x) { return expf(x); }
__device__ __forceinline__ double m_expA(double x) { return exp(x); }
__device__ __forceinline__ float m_logA(float x) { return logf(x); }
__device__ __forceinline__ double m_logA(double x) { return log(x); }
template <typename A> __device__ __forceinline__ void sm_push(A &m, A &s, A x) {
    if (x != x) { s = x; return; }
    if (x > m) { s = (m == -gk_inf<A>() ? (A)0 : s * m_expA(m - x)) + (A)1; m = x; }
    else if (x == m) s += (A)1;
    else if (x != -gk_inf<A>()) s += m_expA(x - m);
}
template <typename A> __device__ __forceinline__ void sm_merge(A &m, A &s, A om, A os) {
    if (os != os || s != s) { s = s + os; return; }
    if (om == -gk_inf<A>()) return;
    if (m == -gk_inf<A>()) { m = om; s = os; return; }
    if (om > m) { s = s * m_expA(m - om) + os; m = om; }
    else if (om == m) s += os;
    else s += os * m_expA(om - m);
}

template <typename A> __device__ __forceinline__ void sm_bmerge(A &m, A &s);
// (max, sum) of elements [j0, j1) of a row, merged over the block (valid in every thread)
template <int DT> __device__ __forceinline__ void sm_stats(const typename gk_ty<DT>::S *xr, gk_i64 j0, gk_i64 j1, gk_i64 xs, bool vec,
                                                          typename gk_acct<DT>::A &m, typename gk_acct<DT>::A &s) {
    typedef gk_ty<DT> T;
    typedef typename T::S Sx;
    typedef typename gk_acct<DT>::A A;
    const int V = 16 / sizeof(Sx);
    gk_i64 nv = vec ? (j1 - j0) / V : 0;
    const uint4 *xv4 = (const uint4 *)(xr + j0);
    m = -gk_inf<A>();
    s = 0;
#pragma unroll 4
    for (gk_i64 j = threadIdx.x; j < nv; j += blockDim.x) {
        union { uint4 v; Sx s[16 / sizeof(Sx)]; } u;
        u.v = __ldg(xv4 + j);
#pragma unroll
        for (int k = 0; k < V; k++) sm_push<A>(m, s, (A)T::ld(u.s[k]));
    }
    for (gk_i64 j = j0 + nv * V + threadIdx.x; j < j1; j += blockDim.x) sm_push<A>(m, s, (A)T::ld(xr[j * xs]));
    sm_bmerge<A>(m, s);
}
// block-wide merge of the (max, sum) of every thread (the result in every thread)
template <typename A> __device__ __forceinline__ void sm_bmerge(A &m, A &s) {
    __shared__ A shm[32], shs[32];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    for (int off = 16; off > 0; off >>= 1) {
        A om = __shfl_down_sync(0xFFFFFFFFu, m, off), osum = __shfl_down_sync(0xFFFFFFFFu, s, off);
        sm_merge<A>(m, s, om, osum);
    }
    __syncthreads();
    if (lane == 0) { shm[w] = m; shs[w] = s; }
    __syncthreads();
    if (w == 0) {
        m = lane < nw ? shm[lane] : -gk_inf<A>();
        s = lane < nw ? shs[lane] : (A)0;
        for (int off = 16; off > 0; off >>= 1) {
            A om = __shfl_down_sync(0xFFFFFFFFu, m, off), osum = __shfl_down_sync(0xFFFFFFFFu, s, off);
            sm_merge<A>(m, s, om, osum);
        }
        if (lane == 0) { shm[0] = m; shs[0] = s; }
    }
    __syncthreads();
    m = shm[0];
    s = shs[0];
}
// writes elements [j0, j1) of a row given the row's (max, sum)
template <int DT, int LOG> __device__ __forceinline__ void sm_write(const typename gk_ty<DT>::S *xr, typename gk_ty<DT>::S *yr, gk_i64 j0,
                                                                   gk_i64 j1, gk_i64 xs, gk_i64 os, bool vec, typename gk_acct<DT>::A m,
                                                                   typename gk_acct<DT>::A s) {
    typedef gk_ty<DT> T;
    typedef typename T::S Sx;
    typedef typename gk_acct<DT>::A A;
    const int V = 16 / sizeof(Sx);
    gk_i64 nv = vec ? (j1 - j0) / V : 0;
    const uint4 *xv4 = (const uint4 *)(xr + j0);
    uint4 *yv4 = (uint4 *)(yr + j0);
    A ls = m_logA(s), inv = (A)1 / s;
    bool none = m == -gk_inf<A>() && s == s;
#define GK_SM_OUT(xv)                                                                                               \
    (s != s ? s : none ? (LOG ? -gk_inf<A>() : (A)0)                                                                \
                       : LOG ? ((xv) == m ? (A)0 : (xv) - m) - ls : ((xv) == m ? (A)1 : m_expA((xv) - m)) * inv)
#pragma unroll 2
    for (gk_i64 j = threadIdx.x; j < nv; j += blockDim.x) {
        union { uint4 v; Sx s[16 / sizeof(Sx)]; } u, z;
        u.v = __ldg(xv4 + j);
#pragma unroll
        for (int k = 0; k < V; k++) {
            A xv = (A)T::ld(u.s[k]);
            z.s[k] = T::st((typename T::C)(GK_SM_OUT(xv)));
        }
        yv4[j] = z.v;
    }
    for (gk_i64 j = j0 + nv * V + threadIdx.x; j < j1; j += blockDim.x) {
        A xv = (A)T::ld(xr[j * xs]);
        yr[j * os] = T::st((typename T::C)(GK_SM_OUT(xv)));
    }
#undef GK_SM_OUT
}
// One block per (row, part); parts of `chunk` elements (a multiple of 16).
// S == 1: stats and output of whole rows. S > 1, phase 0: the (max, sum) of
// each part into ws; phase 1: merge the row's parts in order, write the part.
template <int DT, int LOG> __device__ __forceinline__ void gk_softmax_rows(const gk_nd &on, gk_i64 n, gk_i64 xs, gk_i64 os, gk_i64 S,
                                                                          gk_i64 chunk, int phase, double *ws,
                                                                          typename gk_ty<DT>::S *out, const typename gk_ty<DT>::S *x) {
    typedef gk_ty<DT> T;
    typedef typename T::S Sx;
    typedef typename gk_acct<DT>::A A;
    for (gk_i64 blk = blockIdx.x; blk < on.n * S; blk += gridDim.x) {
        gk_i64 row = blk / S, part = blk - row * S, oo, ox, o2;
        gk_nd_offsets(on, row, oo, ox, o2);
        const Sx *xr = x + ox;
        Sx *yr = out + oo;
        gk_i64 j0 = part * chunk, j1 = j0 + chunk < n ? j0 + chunk : n;
        bool vec = xs == 1 && os == 1 && (((unsigned long long)(xr + j0) | (unsigned long long)(yr + j0)) & 15) == 0;
        A m, s;
        if (S == 1 || phase == 0) sm_stats<DT>(xr, j0, j1, xs, vec, m, s);
        if (S > 1 && phase == 0) {
            if (threadIdx.x == 0) { ws[2 * blk] = (double)m; ws[2 * blk + 1] = (double)s; }
            continue;
        }
        if (S > 1) { // the row's parts merged by the block (their loads in parallel, not one after another)
            m = -gk_inf<A>();
            s = 0;
            for (gk_i64 q = threadIdx.x; q < S; q += blockDim.x) sm_merge<A>(m, s, (A)ws[2 * (row * S + q)], (A)ws[2 * (row * S + q) + 1]);
            sm_bmerge<A>(m, s);
        }
        sm_write<DT, LOG>(xr, yr, j0, j1, xs, os, vec, m, s);
    }
}

// One pass for rows that fit in registers: each thread keeps NV 16-byte
// vectors (elements t*V + i*T*V of the row, i < NV) and at most one tail
// element; the row is read once, its max and sum are exact two-pass values
// over the registers, and it is written once. Needs unit strides and 16-byte
// aligned rows (a row that is not falls back to the two-pass code above).
template <typename A> __device__ __forceinline__ A sm_bmax(A v, bool &nan, A *sh, int *shn) {
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    int fl = nan ? 1 : 0;
    for (int off = 16; off > 0; off >>= 1) {
        A o = __shfl_xor_sync(0xFFFFFFFFu, v, off);
        v = o > v ? o : v;
        fl |= __shfl_xor_sync(0xFFFFFFFFu, fl, off);
    }
    __syncthreads();
    if (lane == 0) { sh[w] = v; shn[w] = fl; }
    __syncthreads();
    v = sh[0]; fl = shn[0];
    for (int q = 1; q < nw; q++) { A o = sh[q]; v = o > v ? o : v; fl |= shn[q]; }
    nan = fl != 0;
    return v;
}
template <typename A> __device__ __forceinline__ A sm_bsum(A v, A *sh) {
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, off);
    __syncthreads();
    if (lane == 0) sh[w] = v;
    __syncthreads();
    v = sh[0];
    for (int q = 1; q < nw; q++) v += sh[q];
    return v;
}
// a 16-byte vector of V elements <-> V accumulator values (gk_vec.cuh for
// f32 / bf16 / f16: no NaN canonicalisation on load, paired conversions with
// canonical NaNs on store)
template <int DT> struct sm_vec {
    static __device__ __forceinline__ void ld(const uint4 &u, float *f) { gk_nv<DT>::ld(u, f); }
    static __device__ __forceinline__ uint4 st(const float *f) { return gk_nv<DT>::st(f); }
};
template <> struct sm_vec<GK_DT_f64> {
    static __device__ __forceinline__ void ld(const uint4 &u, double *f) {
        f[0] = __hiloint2double((int)u.y, (int)u.x);
        f[1] = __hiloint2double((int)u.w, (int)u.z);
    }
    static __device__ __forceinline__ uint4 st(const double *f) {
        uint4 u;
        u.x = (unsigned)__double2loint(f[0]); u.y = (unsigned)__double2hiint(f[0]);
        u.z = (unsigned)__double2loint(f[1]); u.w = (unsigned)__double2hiint(f[1]);
        return u;
    }
};
__device__ __forceinline__ float sm_fmax(float a, float b) { return fmaxf(a, b); } // NaN-ignoring
__device__ __forceinline__ double sm_fmax(double a, double b) { return fmax(a, b); }

template <int DT, int LOG, int NV> __device__ __forceinline__ void gk_softmax_reg(const gk_nd &on, gk_i64 n, gk_i64 xs, gk_i64 os,
                                                                                 typename gk_ty<DT>::S *out, const typename gk_ty<DT>::S *x) {
    typedef gk_ty<DT> T;
    typedef typename T::S Sx;
    typedef typename gk_acct<DT>::A A;
    typedef sm_vec<DT> W;
    enum { V = 16 / sizeof(Sx), INPLACE = !LOG && sizeof(Sx) == sizeof(A) };
    __shared__ A shA[32];
    __shared__ int shN[32];
    const A NINF = -gk_inf<A>();
    int tid = threadIdx.x, nt = blockDim.x;
    const int nvec = (int)(n / V), tail0 = nvec * V; // 32-bit: rows of at most 8192 vectors (64-bit indices spilled)
    for (gk_i64 row = blockIdx.x; row < on.n; row += gridDim.x) {
        gk_i64 oo, ox, o2;
        gk_nd_offsets(on, row, oo, ox, o2);
        const Sx *xr = x + ox;
        Sx *yr = out + oo;
        if ((((unsigned long long)xr | (unsigned long long)yr) & 15) != 0) { // misaligned row: two passes
            A m, s;
            sm_stats<DT>(xr, 0, n, xs, false, m, s);
            sm_write<DT, LOG>(xr, yr, 0, n, xs, os, false, m, s);
            __syncthreads();
            continue;
        }
        uint4 u[NV];
        A tv = NINF;
        bool ht = tail0 + tid < (int)n;
        const uint4 *xv = (const uint4 *)xr;
#pragma unroll
        for (int i = 0; i < NV; i++) {
            int j = tid + i * nt;
            u[i] = make_uint4(0u, 0u, 0u, 0u);
            if (j < nvec) u[i] = __ldg(xv + j);
        }
        if (ht) tv = (A)T::ld(xr[tail0 + tid]);
        // the max over the non-NaN entries
        A m = sm_fmax(NINF, tv);
#pragma unroll
        for (int i = 0; i < NV; i++) {
            int j = tid + i * nt;
            if (j < nvec) {
                A f[V];
                W::ld(u[i], f);
#pragma unroll
                for (int k = 0; k < V; k++) m = sm_fmax(m, f[k]);
            }
        }
        bool nan = false;
        m = sm_bmax<A>(m, nan, shA, shN);
        uint4 *yv = (uint4 *)yr;
        if (m > NINF && m < gk_inf<A>()) {
            // finite max (the common case): exp(x - m) is 1 for x == m and 0
            // for -inf, a NaN entry makes the sum NaN; softmax of f32 / f64
            // keeps exp(x - m) in place of x, so exp runs once an element
            A s = 0, te = 0;
            if (ht) { te = m_expA(tv - m); s += te; }
#pragma unroll
            for (int i = 0; i < NV; i++) {
                int j = tid + i * nt;
                if (j < nvec) {
                    A f[V];
                    W::ld(u[i], f);
#pragma unroll
                    for (int k = 0; k < V; k++) {
                        f[k] = m_expA(f[k] - m);
                        s += f[k];
                    }
                    if (INPLACE) u[i] = W::st(f);
                }
            }
            s = sm_bsum<A>(s, shA);
            if (s != s) { // a NaN row: every output NaN
                A f[V];
                A qn = (A)__int_as_float(0x7FC00000);
#pragma unroll
                for (int k = 0; k < V; k++) f[k] = qn;
                uint4 z = W::st(f);
#pragma unroll
                for (int i = 0; i < NV; i++) {
                    int j = tid + i * nt;
                    if (j < nvec) yv[j] = z;
                }
                if (ht) yr[tail0 + tid] = T::st((typename T::C)qn);
                continue;
            }
            A ls = m_logA(s), inv = (A)1 / s;
#pragma unroll
            for (int i = 0; i < NV; i++) {
                int j = tid + i * nt;
                if (j < nvec) {
                    A f[V];
                    W::ld(u[i], f);
#pragma unroll
                    for (int k = 0; k < V; k++) f[k] = LOG ? (f[k] - m) - ls : (INPLACE ? f[k] : m_expA(f[k] - m)) * inv;
                    yv[j] = W::st(f);
                }
            }
            if (ht) yr[tail0 + tid] = T::st((typename T::C)(LOG ? (tv - m) - ls : te * inv));
            continue;
        }
        // max +inf (the +inf entries share the mass) or -inf (no finite entry): exact special cases
        nan = tv != tv;
#pragma unroll
        for (int i = 0; i < NV; i++) {
            int j = tid + i * nt;
            if (j < nvec) {
                A f[V];
                W::ld(u[i], f);
#pragma unroll
                for (int k = 0; k < V; k++) nan |= f[k] != f[k];
            }
        }
        nan = __syncthreads_or(nan) != 0;
        A s = 0;
        if (!nan && m != NINF) {
#define GK_SM_TERM(xv) ((xv) == m ? (A)1 : (xv) == NINF ? (A)0 : m_expA((xv) - m))
            if (ht) s += GK_SM_TERM(tv);
#pragma unroll
            for (int i = 0; i < NV; i++) {
                int j = tid + i * nt;
                if (j < nvec) {
                    A f[V];
                    W::ld(u[i], f);
#pragma unroll
                    for (int k = 0; k < V; k++) s += GK_SM_TERM(f[k]);
                }
            }
#undef GK_SM_TERM
        }
        s = sm_bsum<A>(s, shA);
        if (nan) s = __int_as_float(0x7FC00000); // a NaN row: every output NaN
        A ls = m_logA(s), inv = (A)1 / s;
        bool none = m == NINF && !nan;
#define GK_SM_OUT(xv)                                                                                               \
    (nan ? s : none ? (LOG ? NINF : (A)0) : LOG ? ((xv) == m ? (A)0 : (xv) - m) - ls : ((xv) == m ? (A)1 : m_expA((xv) - m)) * inv)
#pragma unroll
        for (int i = 0; i < NV; i++) {
            int j = tid + i * nt;
            if (j < nvec) {
                A f[V];
                W::ld(u[i], f);
#pragma unroll
                for (int k = 0; k < V; k++) f[k] = GK_SM_OUT(f[k]);
                yv[j] = W::st(f);
            }
        }
        if (ht) yr[tail0 + tid] = T::st((typename T::C)(GK_SM_OUT(tv)));
#undef GK_SM_OUT
    }
}

// ---- cumsum along one dim: lines of n elements (strides xs / os) ----
template <int DT> struct gk_cst { typedef typename gk_acct<DT>::A A; };
template <> struct gk_cst<GK_DT_i32> { typedef gk_i64 A; };
template <> struct gk_cst<GK_DT_i64> { typedef gk_i64 A; };
template <typename A> __device__ __forceinline__ A cs_add(A a, A b) { return a + b; }
template <> __device__ __forceinline__ gk_i64 cs_add<gk_i64>(gk_i64 a, gk_i64 b) { return (gk_i64)((gk_u64)a + (gk_u64)b); }

template <int DT> __device__ __forceinline__ void gk_cumsum_lines(const gk_nd &on, gk_i64 n, gk_i64 xs, gk_i64 os,
                                                                  typename gk_ty<DT>::S *out, const typename gk_ty<DT>::S *x) {
    typedef gk_ty<DT> T;
    typedef typename gk_cst<DT>::A A;
    for (gk_i64 l = GK_TID; l < on.n; l += GK_NTHREADS) {
        gk_i64 oo, ox, o2;
        gk_nd_offsets(on, l, oo, ox, o2);
        A acc = 0;
        for (gk_i64 j = 0; j < n; j++) {
            acc = cs_add<A>(acc, (A)T::ld(x[ox + j * xs]));
            out[oo + j * os] = T::st((typename T::C)acc);
        }
    }
}
// one block per line: chunks of blockDim elements, block scan, carry
template <int DT> __device__ __forceinline__ void gk_cumsum_block(const gk_nd &on, gk_i64 n, gk_i64 xs, gk_i64 os,
                                                                  typename gk_ty<DT>::S *out, const typename gk_ty<DT>::S *x) {
    typedef gk_ty<DT> T;
    typedef typename gk_cst<DT>::A A;
    __shared__ A wsum[32];
    __shared__ A carry_sh;
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nw = blockDim.x >> 5;
    for (gk_i64 l = blockIdx.x; l < on.n; l += gridDim.x) {
        gk_i64 oo, ox, o2;
        gk_nd_offsets(on, l, oo, ox, o2);
        A carry = 0;
        for (gk_i64 c0 = 0; c0 < n; c0 += blockDim.x) {
            gk_i64 j = c0 + threadIdx.x;
            A v = j < n ? (A)T::ld(x[ox + j * xs]) : (A)0;
            for (int off = 1; off < 32; off <<= 1) {
                A t = __shfl_up_sync(0xFFFFFFFFu, v, off);
                if (lane >= off) v = cs_add<A>(v, t);
            }
            if (lane == 31) wsum[w] = v;
            __syncthreads();
            if (w == 0) {
                A t = lane < nw ? wsum[lane] : (A)0;
                for (int off = 1; off < 32; off <<= 1) {
                    A u = __shfl_up_sync(0xFFFFFFFFu, t, off);
                    if (lane >= off) t = cs_add<A>(t, u);
                }
                if (lane < nw) wsum[lane] = t; // inclusive
            }
            __syncthreads();
            A pre = w > 0 ? wsum[w - 1] : (A)0;
            v = cs_add<A>(cs_add<A>(carry, pre), v);
            if (j < n) out[oo + j * os] = T::st((typename T::C)v);
            if (threadIdx.x == blockDim.x - 1) carry_sh = v;
            __syncthreads();
            carry = carry_sh;
            __syncthreads();
        }
    }
}

#define GK_RED(DTN)                                                                                                 \
    extern "C" __global__ void __launch_bounds__(512) gk_red_rows_##DTN(gk_nd on, gk_nd rn, gk_i64 R, int op, gk_i64 S, gk_i64 chunk,      \
                                                 void *out, const gk_ty<GK_DT_##DTN>::S *x, gk_rpart *part, unsigned *ctr) { \
        gk_red_rows<GK_DT_##DTN, false>(on, rn, R, op, S, chunk, out, x, part, ctr);                                     \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(512) gk_red_rowsf_##DTN(gk_nd on, gk_nd rn, gk_i64 R, int op, gk_i64 S, gk_i64 chunk,     \
                                                 void *out, const gk_ty<GK_DT_##DTN>::S *x, gk_rpart *part, unsigned *ctr) { \
        gk_red_rows<GK_DT_##DTN, true>(on, rn, R, op, S, chunk, out, x, part, ctr);                                      \
    }                                                                                                               \
    extern "C" __global__ void gk_red_fin_##DTN(gk_nd on, gk_i64 R, int op, gk_i64 S, void *out, const gk_rpart *part) { \
        gk_red_fin<GK_DT_##DTN>(on, R, op, S, out, part);                                                           \
    }                                                                                                               \
    extern "C" __global__ void gk_red_finb_##DTN(gk_nd on, gk_i64 R, int op, gk_i64 S, void *out, const gk_rpart *part) { \
        gk_red_finb<GK_DT_##DTN>(on, R, op, S, out, part);                                                          \
    }                                                                                                               \
    extern "C" __global__ void gk_red_cols_##DTN(gk_nd on, gk_nd rn, gk_i64 R, int op, void *out,                   \
                                                 const gk_ty<GK_DT_##DTN>::S *x) {                                  \
        gk_red_cols<GK_DT_##DTN>(on, rn, R, op, out, x);                                                            \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(1024) gk_softmax_##DTN(gk_nd on, gk_i64 n, gk_i64 xs, gk_i64 os,    \
                                                gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##DTN>::S *x,         \
                                                gk_i64 S, gk_i64 chunk, int phase, double *ws) {                    \
        gk_softmax_rows<GK_DT_##DTN, 0>(on, n, xs, os, S, chunk, phase, ws, out, x);                                \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(1024) gk_log_softmax_##DTN(gk_nd on, gk_i64 n, gk_i64 xs, gk_i64 os, \
                                                    gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##DTN>::S *x,     \
                                                    gk_i64 S, gk_i64 chunk, int phase, double *ws) {                \
        gk_softmax_rows<GK_DT_##DTN, 1>(on, n, xs, os, S, chunk, phase, ws, out, x);                                \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(1024) gk_softmax_r4_##DTN(gk_nd on, gk_i64 n, gk_i64 xs, gk_i64 os, \
                                                gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##DTN>::S *x) {       \
        gk_softmax_reg<GK_DT_##DTN, 0, 4>(on, n, xs, os, out, x);                                                   \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(1024) gk_softmax_r8_##DTN(gk_nd on, gk_i64 n, gk_i64 xs, gk_i64 os, \
                                                gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##DTN>::S *x) {       \
        gk_softmax_reg<GK_DT_##DTN, 0, 8>(on, n, xs, os, out, x);                                                   \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(1024) gk_log_softmax_r4_##DTN(gk_nd on, gk_i64 n, gk_i64 xs, gk_i64 os, \
                                                gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##DTN>::S *x) {       \
        gk_softmax_reg<GK_DT_##DTN, 1, 4>(on, n, xs, os, out, x);                                                   \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(1024) gk_log_softmax_r8_##DTN(gk_nd on, gk_i64 n, gk_i64 xs, gk_i64 os, \
                                                gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##DTN>::S *x) {       \
        gk_softmax_reg<GK_DT_##DTN, 1, 8>(on, n, xs, os, out, x);                                                   \
    }
GK_RED(f32) GK_RED(f64) GK_RED(f16) GK_RED(bf16)

#define GK_CUMSUM(DTN)                                                                                              \
    extern "C" __global__ void gk_cumsum_##DTN(gk_nd on, gk_i64 n, gk_i64 xs, gk_i64 os,                            \
                                               gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##DTN>::S *x) {        \
        gk_cumsum_lines<GK_DT_##DTN>(on, n, xs, os, out, x);                                                        \
    }                                                                                                               \
    extern "C" __global__ void gk_cumsum_##DTN##_b(gk_nd on, gk_i64 n, gk_i64 xs, gk_i64 os,                        \
                                                   gk_ty<GK_DT_##DTN>::S *out, const gk_ty<GK_DT_##DTN>::S *x) {    \
        gk_cumsum_block<GK_DT_##DTN>(on, n, xs, os, out, x);                                                        \
    }
GK_CUMSUM(f32) GK_CUMSUM(f64) GK_CUMSUM(f16) GK_CUMSUM(bf16) GK_CUMSUM(i32) GK_CUMSUM(i64)
