// probe_walk.cuh - the block-based fused probes' one copy of fused_flat_sf's interior walk (labs/04_convolution/fusion/probes/
// flat_hints.cu, flat_trim.cu, flat_next.cu; not part of the labs): rolling_flat.cuh's flat_interior for np = 4
// and blocks off the picture's edges, with its four parts a probe may change given by a policy P (static
// members):
//   P::load(p, a)              a row's two strips' words at p (the row loaded ahead);
//   P::unpack(raw)             those words as a row of pairs;
//   P::stage(k, window, n)     stage k (0 gauss, 1 median, 2 sobel) on its window at push number n;
//   P::store(p, o, low, high)  a finished row to p and p + STRIP_GAP(4), as the lanes write it.
// probe_fused_walk runs the walk on the interior blocks (slowest first, ROWS-row strips) and the lab's
// rolling_body_flat on the others, or on every block when lab is true. probe_fused_walk_async is the same
// walk with its rows loaded by cp.async into a shared-memory ring (P::load unused). lab_parts are the
// lab's four parts, probe_lab_sf the lab's kernel.
#pragma once
#include "rolling_flat.cuh"
#include "cp_async_pipe.cuh" /* copy_async, copy_commit, copy_wait: part 2's cp.async pieces */

/* The lab's fused_flat_sf kernel itself (np pixel pairs a lane, ROWS-row strips, MINB warps an SM), the
 * probes' reference row. */
template <int NP, int ROWS, int MINB> __global__ void __launch_bounds__(BK_THREADS, MINB) probe_lab_sf(bk_args a)
{
    rolling_body_flat(a, BK_GAUSS_FLAT, 3, NP, ROWS, slowest_first_block());
}

struct lab_parts {
    static __device__ __forceinline__ rawrow load(const uint8_t *p, const bk_args &a) { return flat_load(p, 0, a.width, 4, false); }
    static __device__ __forceinline__ prow unpack(const rawrow &raw) { return ::unpack(raw, 4, BK_GAUSS_FLAT); }
    static __device__ __forceinline__ prow stage(const int k, const prow (&w)[3], const int n)
    {
        return stage_on_ring(BK_GAUSS_FLAT + k, w, n, 4, true);
    }
    static __device__ __forceinline__ void store(uint8_t *p, const prow &o, bool low, bool high)
    {
        flat_store(p, o, 4, BK_GAUSS_FLAT, low, high);
    }
};

/* Input row m (r, unpacked) through the three stages, as rolling_flat.cuh's flat_stages. */
template <class P> static __device__ __forceinline__ void probe_stages(const bk_args &a, const int m, prow (&w)[3][3], flat_walk &f,
                                                                      const prow &r, bool low, bool high)
{
    w[0][m % 3] = r;
#pragma unroll
    for (int k = 0; k < 3; k++) {
        const int n = m - 2 * k;
        if (n < 2) return;
        const prow o = P::stage(k, w[k], n);
        if (k == 2) {
            P::store(f.dst, o, low, high);
            f.dst += a.pitch;
        } else {
            w[k + 1][(n - 2) % 3] = o;
        }
    }
}

template <class P> static __device__ __forceinline__ void probe_row(const bk_args &a, const int m, bool more, prow (&w)[3][3],
                                                                   rawrow (&ahead)[AHEAD], flat_walk &f, bool low, bool high)
{
    const prow r = P::unpack(ahead[m % AHEAD]);
    if (more) ahead[m % AHEAD] = P::load(f.src, a);
    f.src += a.pitch;
    probe_stages<P>(a, m, w, f, r, low, high);
}

template <class P, int ROWS> static __device__ __forceinline__ void probe_fused_walk(const bk_args &a, const bool lab)
{
    const uint2 blk = slowest_first_block();
    const strip_at g = strip_of(a, 4, ROWS, true, blk);
    if (lab || g.edge || g.y0 - 3 < 0 || g.y0 + ROWS + 3 > a.height) {
        rolling_body_flat(a, BK_GAUSS_FLAT, 3, 4, ROWS, blk); /* the lab's code */
        return;
    }
    prow w[3][3];
    rawrow ahead[AHEAD];
    flat_walk f;
    f.src = a.in + (size_t)(g.y0 - 3) * a.pitch + g.x0;
    f.dst = a.out + (size_t)g.y0 * a.pitch + g.x0;
    const bool low = g.writer & 1, high = g.writer & 2;
#pragma unroll
    for (int i = 0; i < AHEAD; i++, f.src += a.pitch) ahead[i] = P::load(f.src, a);
#pragma unroll
    for (int m = 0; m < 6; m++) probe_row<P>(a, m, true, w, ahead, f, low, high);
#pragma unroll 1
    for (int it = 0; it < ROWS; it += AHEAD) {
        const bool more = it + AHEAD < ROWS;
#pragma unroll
        for (int u = 0; u < AHEAD; u++) probe_row<P>(a, 6 + u, more, w, ahead, f, low, high);
    }
}

// Rows ahead by cp.async (flat_next's flat_async, run 4c52a95; NOTEBOOK.md's "Where fused_flat_sf's issue
// slots go"): the rows a lane loads go to a shared-memory ring of G groups of 3 rows by cp.async (LDGSTS, no
// register held while in flight) and are read back by LDS when their group is due, 3 (G - 1) rows ahead
// where the register walk has about 1-2. Each lane reads back only the words it copied.
template <int G>
static __device__ __forceinline__ void probe_async_group(unsigned (&ring)[G][3][2][32], int slot, const uint8_t *&src, int pitch)
{
#pragma unroll
    for (int u = 0; u < 3; u++, src += pitch) {
        copy_async<4>((float *)&ring[slot][u][0][threadIdx.x], (const float *)src, true);
        copy_async<4>((float *)&ring[slot][u][1][threadIdx.x], (const float *)(src + STRIP_GAP(4)), true);
    }
}
template <class P, int G>
static __device__ __forceinline__ void probe_async_rows(const bk_args &a, unsigned (&ring)[G][3][2][32], int slot, int m0,
                                                        prow (&w)[3][3], flat_walk &f, bool low, bool high)
{
#pragma unroll
    for (int u = 0; u < 3; u++) {
        const rawrow raw = {{ring[slot][u][0][threadIdx.x], ring[slot][u][1][threadIdx.x], 0, 0}};
        probe_stages<P>(a, m0 + u, w, f, P::unpack(raw), low, high);
    }
}
template <class P, int ROWS, int G>
static __device__ __forceinline__ void probe_fused_walk_async(const bk_args &a, unsigned (&ring)[G][3][2][32])
{
    const uint2 blk = slowest_first_block();
    const strip_at g = strip_of(a, 4, ROWS, true, blk);
    if (g.edge || g.y0 - 3 < 0 || g.y0 + ROWS + 3 > a.height) {
        rolling_body_flat(a, BK_GAUSS_FLAT, 3, 4, ROWS, blk);
        return;
    }
    const bool low = g.writer & 1, high = g.writer & 2;
    const uint8_t *src = a.in + (size_t)(g.y0 - 3) * a.pitch + g.x0;
    flat_walk f;
    f.src = nullptr, f.dst = a.out + (size_t)g.y0 * a.pitch + g.x0;
    prow w[3][3];
    constexpr int T = (ROWS + 6) / 3; /* groups of 3 rows: 2 fill the windows */
    static_assert(ROWS % 3 == 0 && T >= G, "whole groups");
#pragma unroll
    for (int q = 0; q < G - 1; q++) probe_async_group<G>(ring, q, src, a.pitch), copy_commit();
#pragma unroll
    for (int q = 0; q < 2; q++) { /* the windows fill: rows 0..5 (compile-time m) */
        probe_async_group<G>(ring, (q + G - 1) % G, src, a.pitch);
        copy_commit();
        copy_wait<G - 1>();
        probe_async_rows<P, G>(a, ring, q % G, 3 * q, w, f, low, high);
    }
#pragma unroll 1
    for (int q = 2; q < T; q++) {
        if (q + G - 1 < T) probe_async_group<G>(ring, (q + G - 1) % G, src, a.pitch);
        copy_commit(); /* empty at the end: wait_group counts groups */
        copy_wait<G - 1>();
        probe_async_rows<P, G>(a, ring, q % G, 6, w, f, low, high);
    }
}
