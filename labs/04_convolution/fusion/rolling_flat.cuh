/* rolling_flat.cuh - Lab 04, part 3: the block-based fused kernel without its per-row overhead (issue
 * 20, the fused_flat rung in rolling_budget.cu). The stages are fused_xorc's (rolling.cuh); what
 * changes is the walk down the strip on the fast path (interior strips). Every kernel reproduces
 * fusion_reference.c's bits; the strips at the top and bottom take rolling_body's general loop.
 *
 * The lesson: the steady loop of fused_xorc (3 rows of 8 pixels a lane: 545 instructions, SASS of
 * CUDA 13.0 for sm_90) spends about 100 of them on things that are not the filters: for every row
 * a 64-bit address computed from y (IMAD.WIDE, IADD3, IADD3.X and the uniform multiplies), the row
 * loaded ahead clamped to the strip's last row (VIADDMNMX), and a branch around the halo lanes'
 * stores (BSSY, BRA, BSYNC) into which ptxas also sank sobel's last instructions. Here each row's
 * load and store address is the one before plus the pitch, the rows loaded ahead past the strip's
 * end are skipped by a predicate that holds for the whole iteration, and the halo lanes' stores
 * are predicated off, not branched around: 494 instructions, 7% less time on the H100 and the
 * H200 (run 52c4316). Nsight Compute's stall samples (H100, 16384^2): "no instruction" and
 * "branch resolving" fall from 4.8% of the warps' cycles to 1.2%. */
#ifndef ROLLING_FLAT_CUH
#define ROLLING_FLAT_CUH
#include "rolling.cuh"

/* A row's two strips of np bytes from p (the lane's first column in this row) and p + STRIP_GAP. */
static __device__ __forceinline__ rawrow flat_load(const uint8_t *p, int x0, int width, const int np, const bool edge)
{
    rawrow r = {{0, 0, 0, 0}};
#pragma unroll
    for (int s = 0; s < 2; s++) {
        const int x = x0 + s * STRIP_GAP(np);
        if (edge && (x < 0 || x >= width)) continue; /* outside: row_clamp_columns fills it */
        const uint8_t *q = p + s * STRIP_GAP(np);
        if (np == 4) {
            r.w[s] = *(const unsigned *)q;
        } else {
            const uint2 v = *(const uint2 *)q;
            r.w[2 * s] = v.x, r.w[2 * s + 1] = v.y;
        }
    }
    return r;
}

/* A finished row to p and p + STRIP_GAP; the halo lanes' stores are predicated off (no branch). */
static __device__ __forceinline__ void flat_store(uint8_t *p, const prow &r, const int np, const int first,
                                                  const bool low, const bool high)
{
    unsigned w[4];
    row_words(r, np, first, w);
    strips_store(p, w, np, low, high);
}

/* The walk's state: the next row to load and to store (the lane's first column). */
typedef struct {
    const uint8_t *src;
    uint8_t *dst;
} flat_walk;


/* Input row r (the walk's m-th, m known at compile time) through the stages, as interior_stages. */
static __device__ __forceinline__ void flat_stages(const bk_args &a, const int first, const int nstages, const int np,
                                                   const int m, prow (&w)[3][3], flat_walk &f, prow r, int x0, int x0w,
                                                   bool edge, bool low, bool high)
{
    if (edge) r = row_clamp_columns(r, x0, x0w, a.width, np, true);
    w[0][m % 3] = r;
#pragma unroll
    for (int k = 0; k < nstages; k++) {
        const int n = m - 2 * k; /* this row's push number in stage k's window */
        const bool last = k == nstages - 1;
        if (n < 2) return; /* the window is not full yet (compile time) */
        prow o = stage_on_ring(first + k, w[k], n, np, true);
        if (last) {
            flat_store(f.dst, o, np, first, low, high);
            f.dst += a.pitch;
        } else {
            if (edge) o = row_clamp_columns(o, x0, x0w, a.width, np, true);
            w[k + 1][(n - 2) % 3] = o;
        }
    }
}

/* The fast path (rolling_interior's walk): rows y0 - nstages .. y0 + rows + nstages - 1 all inside
 * the picture. `more`: this iteration's rows loaded ahead are still in the strip (false only in the
 * last iteration, whose loads would read past it). */
static __device__ __forceinline__ void flat_row(const bk_args &a, const int first, const int nstages, const int np,
                                                const int m, bool more, prow (&w)[3][3], rawrow (&ahead)[AHEAD],
                                                flat_walk &f, int x0, int x0w, bool edge, bool low, bool high)
{
    const prow r = unpack(ahead[m % AHEAD], np, first);
    if (more) ahead[m % AHEAD] = flat_load(f.src, x0, a.width, np, edge);
    f.src += a.pitch;
    flat_stages(a, first, nstages, np, m, w, f, r, x0, x0w, edge, low, high);
}

static __device__ __forceinline__ void flat_interior(const bk_args &a, const int first, const int nstages, const int np,
                                                     const int rows, const strip_at &g, const bool edge)
{
    prow w[3][3];
    rawrow ahead[AHEAD];
    flat_walk f;
    f.src = a.in + (size_t)(g.y0 - nstages) * a.pitch + g.x0;
    f.dst = a.out + (size_t)g.y0 * a.pitch + g.x0;
    const bool low = g.writer & 1, high = g.writer & 2;
#pragma unroll
    for (int i = 0; i < AHEAD; i++, f.src += a.pitch) ahead[i] = flat_load(f.src, g.x0, a.width, np, edge);
#pragma unroll
    for (int m = 0; m < 2 * nstages; m++) flat_row(a, first, nstages, np, m, true, w, ahead, f, g.x0, g.x0w, edge, low, high);
#pragma unroll 1
    for (int it = 0; it < rows; it += AHEAD) {
        const bool more = it + AHEAD < rows;
#pragma unroll
        for (int u = 0; u < AHEAD; u++)
            flat_row(a, first, nstages, np, 2 * nstages + u, more, w, ahead, f, g.x0, g.x0w, edge, low, high);
    }
}

/* Lesson (the order blocks start in, the fused_flat_sf rung): a grid's blocks start in the order of
 * their index, x first, as slots free up. Not all of fused_flat's blocks cost the same: the strips
 * at the top and bottom walk rolling_body's general path and the left and right columns clamp every
 * stage's row, about 2x and 1.6x an interior block's time (%globaltimer records of every block,
 * labs/04_convolution/fusion/probes/flat_next.cu). In index order the bottom strips start in the last wave and an edge
 * column block is in every wave, so the kernel ends with a few slow blocks on a few SMs while the
 * others idle: the SMs' last blocks ended over 16-20 us of a 275 us kernel (H100, 36-row strips).
 * This index-to-block map starts them first - the bottom strip row, the top one, the edge columns of
 * the rows between, then the interior row by row - and the SMs' ends spread over 4-5 us. The longest
 * jobs first: the oldest rule for filling parallel machines (the map: fusion.h's bk_slowest_first,
 * tested on the CPU by tests/test_fusion.c). */
static __device__ __forceinline__ uint2 slowest_first_block()
{
    const unsigned gx = gridDim.x, gy = gridDim.y, i = blockIdx.y * gx + blockIdx.x;
    /* small grids keep the index order, as in the map; tested here first, the kernel's SASS is the
     * measured d0723ba build's but for one equivalent compare */
    if (gx <= 2 || gy <= 2) return make_uint2(blockIdx.x, blockIdx.y);
    const bk_block b = bk_slowest_first(gx, gy, i); /* fusion.h */
    return make_uint2(b.x, b.y);
}

/* rolling_body with the flat walk on interior strips (strips layout, rows a multiple of 3); blk: the
 * block's column and strip (blockIdx, or slowest_first_block's). */
static __device__ __forceinline__ void rolling_body_flat(const bk_args &a, const int first, const int nstages,
                                                         const int np, const int rows,
                                                         const uint2 blk = make_uint2(blockIdx.x, blockIdx.y))
{
    static_assert(AHEAD == 3, "the walk's loop turns the three-row windows once an iteration");
    const strip_at g = strip_of(a, np, rows, true, blk);
    if (g.y0 - nstages >= 0 && g.y0 + rows + nstages <= a.height) {
        if (g.edge) flat_interior(a, first, nstages, np, rows, g, true);
        else flat_interior(a, first, nstages, np, rows, g, false);
        return;
    }
    rolling_body(a, first, nstages, np, rows, true, AHEAD, blk); /* the strips at the top and bottom */
}
#endif
