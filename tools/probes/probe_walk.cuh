// probe_walk.cuh - the block-based fused probes' one copy of fused_flat_sf's interior walk (tools/probes/
// flat_hints.cu, flat_trim.cu; not part of the labs): rolling_flat.cuh's flat_interior for np = 4 and blocks
// off the picture's edges, with its four parts a probe may change given by a policy P (static members):
//   P::load(p, a)              a row's two strips' words at p (the row loaded ahead);
//   P::unpack(raw)             those words as a row of pairs;
//   P::stage(k, window, n)     stage k (0 gauss, 1 median, 2 sobel) on its window at push number n;
//   P::store(p, o, low, high)  a finished row to p and p + STRIP_GAP(4), as the lanes write it.
// probe_fused_walk runs the walk on the interior blocks (slowest first, ROWS-row strips) and the lab's
// rolling_body_flat on the others, or on every block when lab is true.
#pragma once
#include "rolling_flat.cuh"

template <class P> static __device__ __forceinline__ void probe_row(const bk_args &a, const int m, bool more, prow (&w)[3][3],
                                                                   rawrow (&ahead)[AHEAD], flat_walk &f, bool low, bool high)
{
    const prow r = P::unpack(ahead[m % AHEAD]);
    if (more) ahead[m % AHEAD] = P::load(f.src, a);
    f.src += a.pitch;
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
