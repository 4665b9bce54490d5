/* rolling_flat.cuh - Lab 04, part 3: the block-based fused kernel without its per-row overhead (issue
 * 20, the fused_flat rungs in rolling_budget.cu). The stages are fused_xorc's (rolling.cuh); what
 * changes is the walk down the strip on the fast path (interior strips). Every kernel reproduces
 * fusion_reference.c's bits; the strips at the top and bottom take rolling_body's general loop.
 *
 * The lesson: the steady loop of fused_xorc (3 rows of 8 pixels a lane: 545 instructions, SASS of
 * CUDA 13.0 for sm_90) spends about 100 of them on things that are not the filters: for every row
 * a 64-bit address computed from y (IMAD.WIDE, IADD3, IADD3.X and the uniform multiplies), the row
 * loaded ahead clamped to the strip's last row (VIADDMNMX), and a branch around the halo lanes'
 * stores (BSSY, BRA, BSYNC) into which ptxas also sank sobel's last instructions. Nsight Compute's
 * stall samples of that loop (H100) put 13% of the warps' cycles on "no instruction" and 4% on
 * "branch resolving", most of them at those branches. Here each row's load and store address is the
 * one before plus the pitch, the rows loaded ahead past the strip's end are skipped by a predicate
 * that holds for the whole iteration, and the halo lanes' stores are predicated off, not branched
 * around. The second rung (carry = true) also carries sobel's pair sum b + c of one window into the
 * next, where it is a + b: 4 half-precision adds fewer a row. */
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

/* A finished row to p and p + STRIP_GAP, each store only where the lane writes that strip: the
 * halo lanes' stores are predicated off (no branch). */
static __device__ __forceinline__ void flat_store(uint8_t *p, const prow &r, const int np, const int first,
                                                  const bool low, const bool high)
{
    unsigned w[4];
    row_words(r, np, first, w);
    if (np == 4) {
        if (low) *(unsigned *)p = w[0];
        if (high) *(unsigned *)(p + STRIP_GAP(np)) = w[1];
    } else {
        if (low) *(uint2 *)p = make_uint2(w[0], w[1]);
        if (high) *(uint2 *)(p + STRIP_GAP(np)) = make_uint2(w[2], w[3]);
    }
}

/* The walk's state: the next row to load and to store (the lane's first column), and for the carry
 * rung sobel's pair sum b + c of its last window. */
typedef struct {
    const uint8_t *src, *pf; /* pf: the row AHEAD rows below src (WALK_PREFETCH) */
    uint8_t *dst;
    prow x1;
} flat_walk;
/* How the rows loaded ahead reach the end of the strip: skipped there (a predicate), loaded anyway
 * (the fast path then needs AHEAD more rows inside the picture), or skipped and asked of the L2 one
 * load earlier (prefetch.global.L2 of the row AHEAD rows further). */
enum { WALK_SKIP, WALK_ALL, WALK_PREFETCH };

/* Input row r (the walk's m-th, m known at compile time) through the stages, as interior_stages. */
static __device__ __forceinline__ void flat_stages(const bk_args &a, const int first, const int nstages, const int np,
                                                   const bool carry, const int m, prow (&w)[3][3], flat_walk &f, prow r,
                                                   int x0, int x0w, bool edge, bool low, bool high)
{
    if (edge) r = row_clamp_columns(r, x0, x0w, a.width, np, true);
    w[0][m % 3] = r;
#pragma unroll
    for (int k = 0; k < nstages; k++) {
        const int n = m - 2 * k; /* this row's push number in stage k's window */
        const bool last = k == nstages - 1;
        if (carry && last && n >= 1) { /* sobel: x2 of this window is x1 of the one before */
            const pair_sums x1 = sobel_pair_sums(w[k][(n + 2) % 3], w[k][n % 3], np, true);
            if (n >= 2) { /* the carried sum shifted again: carrying its shifts too spills 12 bytes */
                pair_sums x2;
                x2.s = f.x1, x2.l = pairs_left(x2.s, np, true), x2.r = pairs_right(x2.s, np, true);
                flat_store(f.dst, sobel_half_out(w[k][(n + 1) % 3], w[k][n % 3], x1, x2, np), np, first, low, high);
                f.dst += a.pitch;
            }
            f.x1 = x1.s;
            return;
        }
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
                                                const bool carry, const int walk, const int m, bool more, bool pf,
                                                prow (&w)[3][3], rawrow (&ahead)[AHEAD], flat_walk &f, int x0, int x0w,
                                                bool edge, bool low, bool high)
{
    if (walk == WALK_PREFETCH) {
        if (pf && !edge) {
            asm volatile("prefetch.global.L2 [%0];" ::"l"(f.pf));
            asm volatile("prefetch.global.L2 [%0];" ::"l"(f.pf + STRIP_GAP(np)));
        }
        f.pf += a.pitch;
    }
    const prow r = unpack(ahead[m % AHEAD], np, first);
    if (more || walk == WALK_ALL) ahead[m % AHEAD] = flat_load(f.src, x0, a.width, np, edge);
    f.src += a.pitch;
    flat_stages(a, first, nstages, np, carry, m, w, f, r, x0, x0w, edge, low, high);
}

static __device__ __forceinline__ void flat_interior(const bk_args &a, const int first, const int nstages, const int np,
                                                     const bool carry, const int walk, const int rows, const strip_at &g,
                                                     const bool edge)
{
    prow w[3][3];
    rawrow ahead[AHEAD];
    flat_walk f;
    f.src = a.in + (size_t)(g.y0 - nstages) * a.pitch + g.x0;
    f.dst = a.out + (size_t)g.y0 * a.pitch + g.x0;
    const bool low = g.writer & 1, high = g.writer & 2;
#pragma unroll
    for (int i = 0; i < AHEAD; i++, f.src += a.pitch) ahead[i] = flat_load(f.src, g.x0, a.width, np, edge);
    f.pf = f.src + (size_t)AHEAD * a.pitch;
#pragma unroll
    for (int m = 0; m < 2 * nstages; m++)
        flat_row(a, first, nstages, np, carry, walk, m, true, true, w, ahead, f, g.x0, g.x0w, edge, low, high);
#pragma unroll 1
    for (int it = 0; it < rows; it += AHEAD) {
        const bool more = it + AHEAD < rows, pf = it + 2 * AHEAD < rows;
#pragma unroll
        for (int u = 0; u < AHEAD; u++)
            flat_row(a, first, nstages, np, carry, walk, 2 * nstages + u, more, pf, w, ahead, f, g.x0, g.x0w, edge, low,
                     high);
    }
}

/* rolling_body with the flat walk on interior strips (strips layout, rows a multiple of 3). */
static __device__ __forceinline__ void rolling_body_flat(const bk_args &a, const int first, const int nstages,
                                                         const int np, const int rows, const bool carry,
                                                         const int walk = WALK_SKIP)
{
    static_assert(AHEAD == 3, "the walk's loop turns the three-row windows once an iteration");
    const strip_at g = strip_of(a, np, rows, true);
    if (g.y0 - nstages >= 0 && g.y0 + rows + nstages + (walk == WALK_ALL ? AHEAD : 0) <= a.height) {
        if (g.edge) flat_interior(a, first, nstages, np, carry, walk, rows, g, true);
        else flat_interior(a, first, nstages, np, carry, walk, rows, g, false);
        return;
    }
    rolling_body(a, first, nstages, np, rows, true); /* the strips at the top and bottom */
}
#endif
