/* median_w16.cu - Lab 04, part 3: the median ladder's thread rungs (issue 20): a thread owns 16
 * columns and R rows, as part 1's W16 rungs do, instead of a warp walking a strip (rolling.cu).
 * fusion.h defines the median with clamp to edge; fusion_reference.c is the definition in C, and
 * every kernel reproduces its bits.
 *
 * The lesson: the rolling rungs were not short of instructions alone. A one-warp block that walks
 * a strip keeps 30 of its 32 lanes writing, reads the strip's 2 halo rows once per 12 rows, and
 * waits on 3 rows at a time; here every lane writes, a block of 4 warps keeps (R + 2) rows of every
 * thread in flight at once, and no warp outlives its R rows. What a pixel costs on the ALU pipe
 * (the pipe that binds on the H200):
 *   - unpack: one byte permute a register (two pixels, each x 257 in a 16-bit half: the median of
 *     nine commutes with any order-keeping map, and 257 v keeps v in both bytes of its half, so the
 *     store takes either byte); dpx's unpack takes 1.5;
 *   - the column sorts of stage_median_dpx (min3, max3: one DPX instruction each) with the middle
 *     as the sum minus both on the FMA pipe (four IMADs: add_fma, sub_fma);
 *   - the neighbours: the registers of the row shifted by one pixel are the row's own registers
 *     but for one byte permute at each end (the pixels left and right of the 16, one more register
 *     of two halves, sorted with the rest);
 *   - the median of the medians: `fma` = false shares the sort of two middles between two outputs
 *     (3 ALU instructions an output), true takes the sum minus min3 and max3 (2 ALU and 4 IMADs).
 * Measured (run_42e05af, 2026-11-24; ncu --budget 04 at 16384^2): w16_r4 takes 13.72 thread-
 * instructions a pixel, 7.24 of them on the ALU (dpx_r12: 14.86 and 7.93): 95% of the H200's
 * half-rate ALU budget at memcpy speed, 66% of the H100's. It is the fastest median on both GPUs:
 * 93.4% of memcpy on the H100 (dpx_r12 90.9%), 75.2% on the H200 (71.9%), where the ALU is about 72%
 * busy and warps also wait on their rows (ncu stall reasons: h200/run_e775f51); _fma moves ALU work
 * to the FMA pipe until that binds (fmaheavy 7.62 a pixel; H200 71.9%); the walks are slower the
 * longer their strips, as the rolling rungs are (H200: w16_s12 74.3%, w16_s24 71.0%). Issue rates
 * (labs/04_convolution/fusion/probes/pipe_rates.cu): VIMNMX, VIMNMX3, PRMT, IADD3, LOP3, HMNMX2 and FMNMX 64 thread-
 * instructions an SM a clock, all on the ALU pipe (VIMNMX and HMNMX2 mixed: 64 in all), IMAD 64 on
 * fmaheavy. */
#include "rolling.cuh"
#include "gl_bulk.cuh"
#include "gl_tma.h"

#define RING_ROW 544  /* median_ring: a block's row in shared memory, 16 bytes left of its 512 columns and 16 right */
#define W16_BLOCK_Y 4 /* warps a block: 32 x 4 threads, each 16 columns x R rows; R = 4: 80 registers
                         (6 blocks, 24 warps an SM; the _fma form spills 20 bytes), R = 8: 117 (16 warps);
                         the walks: 80 with 3 rows ahead (4 bytes spilled) */

/* A row's 16 bytes around a thread's columns and the two neighbours: w[0..3] the 16 (byte j of
 * the thread's pixel 4k + j in w[k]), left: pixel -1 in byte 3, right: pixel 16 in byte 0. */
typedef struct {
    unsigned w[4], left, right;
} row_w16;

/* A row's 16 bytes at x0 and both neighbours, from `at` (the row's byte x0, in global or shared
 * memory): inside the picture with both neighbours (the fast path of nearly every thread), the 16
 * bytes in one load and the words left and right of them (from the lines the warp loads anyway:
 * L1 hits), at offsets from one address - no shuffle, no select. Near the left or right edge
 * (EDGE): the same loads where they are inside the row's pitch (x0 < width <= pitch), and every
 * byte past the right edge replaced by the last pixel - a few more instructions, no more registers. */
template <bool EDGE> static __device__ __forceinline__ row_w16 fetch_row_w16(const uint8_t *at, int x0, int width)
{
    row_w16 r;
    const uint4 v = *(const uint4 *)at; /* x0 % 16 == 0, the pitch a multiple of 64: aligned */
    r.w[0] = v.x, r.w[1] = v.y, r.w[2] = v.z, r.w[3] = v.w;
    if (!EDGE) {
        r.left = *(const unsigned *)(at - 4);   /* pixel x0 - 1 in byte 3 */
        r.right = *(const unsigned *)(at + 16); /* pixel x0 + 16 in byte 0 */
        return r;
    }
    const int last = width - 1 - x0; /* the thread's column of pixel width - 1: >= 0 */
    const unsigned last_px = at[min(last, 15)]; /* used only where last <= 15 (never past the thread's row) */
    if (last < 15) { /* bytes past the edge: the last pixel */
        const unsigned fill = last_px * 0x01010101u;
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const int keep = min(max(last + 1 - 4 * k, 0), 4); /* bytes of word k inside the picture */
            const unsigned m = keep == 4 ? 0xffffffffu : (1u << (8 * keep)) - 1u;
            r.w[k] = (r.w[k] & m) | (fill & ~m);
        }
    }
    r.left = x0 > 0 ? *(const unsigned *)(at - 4) : r.w[0] << 24;
    r.right = x0 + 16 < width ? *(const unsigned *)(at + 16) : last_px;
    return r;
}

/* Row y of the picture at x0 (EDGE: y clamped into the picture, and the columns as above). */
template <bool EDGE>
static __device__ __forceinline__ row_w16 load_row_w16(const bk_args &a, int y, int x0)
{
    const uint8_t *row = a.in + (size_t)(EDGE ? min(max(y, 0), a.height - 1) : y) * a.pitch;
    return fetch_row_w16<EDGE>(row + x0, x0, a.width);
}

/* 16 pixels and the two neighbours as 9 registers of two 16-bit halves, each 257 x the pixel:
 * p[j] (j < 8) holds pixels j and j + 8, p[8] pixels -1 and 16. One byte permute each. */
typedef struct {
    unsigned p[9];
} row_pairs;

static __device__ __forceinline__ row_pairs unpack_w16(const row_w16 &r)
{
    row_pairs o;
#pragma unroll
    for (int j = 0; j < 8; j++) { /* byte j % 4 of w[j / 4] into bytes 0, 1; of w[j / 4 + 2] into 2, 3 */
        const unsigned b = (unsigned)(j & 3);
        o.p[j] = __byte_perm(r.w[j / 4], r.w[j / 4 + 2], b | b << 4 | (4 + b) << 8 | (4 + b) << 12);
    }
    o.p[8] = __byte_perm(r.left, r.right, 0x4433);
    return o;
}

/* Each register's left neighbours (pixels j - 1 and j + 7) and right ones (j + 1, j + 9): the next
 * register, but for one byte permute with the neighbours' register at each end. */
static __device__ __forceinline__ unsigned left_of(const row_pairs &v, int j)
{
    return j > 0 ? v.p[j - 1] : __byte_perm(v.p[8], v.p[7], 0x5410); /* (pixel -1, pixel 7) */
}
static __device__ __forceinline__ unsigned right_of(const row_pairs &v, int j)
{
    return j < 7 ? v.p[j + 1] : __byte_perm(v.p[0], v.p[8], 0x7632); /* (pixel 8, pixel 16) */
}

/* The median of one output row from its three input rows (a above, b, c below): 8 registers of
 * medians (x 257, as unpacked). */
static __device__ __forceinline__ row_pairs median_w16(const row_pairs &a, const row_pairs &b, const row_pairs &c,
                                                       const bool fma)
{
    row_pairs lo, mi, hi, o;
#pragma unroll
    for (int j = 0; j < 9; j++) { /* the column sorts, the neighbours' column too */
        lo.p[j] = min3u2(a.p[j], b.p[j], c.p[j]);
        hi.p[j] = max3u2(a.p[j], b.p[j], c.p[j]);
        mi.p[j] = sub_fma(sub_fma(add_fma(add_fma(a.p[j], b.p[j]), c.p[j]), lo.p[j]), hi.p[j]);
    }
#pragma unroll
    for (int j = 0; j < 8; j += 2) {
        unsigned mid_mi[2];
        if (fma) {
            mid_mi[0] = mid3u2(left_of(mi, j), mi.p[j], mi.p[j + 1]);
            mid_mi[1] = mid3u2(mi.p[j], mi.p[j + 1], right_of(mi, j + 1));
        } else { /* the middles j and j + 1 sorted once serve both outputs (stage_median_dpx) */
            middles_median2(left_of(mi, j), mi.p[j], mi.p[j + 1], right_of(mi, j + 1), mid_mi);
        }
#pragma unroll
        for (int i = 0; i < 2; i++) {
            const int k = j + i;
            const unsigned big_lo = max3u2(left_of(lo, k), lo.p[k], right_of(lo, k));
            const unsigned small_hi = min3u2(left_of(hi, k), hi.p[k], right_of(hi, k));
            o.p[k] = mid3u2(big_lo, mid_mi[i], small_hi);
        }
    }
    return o;
}

/* One output row: byte 0 of each half, gathered by four byte permutes a 4 registers; the right
 * edge's thread stores the bytes inside the picture. */
static __device__ __forceinline__ uint4 pack_w16(const unsigned (&o)[9], unsigned bytes = 0x6240)
{
    unsigned w[4];
#pragma unroll
    for (int k = 0; k < 2; k++) { /* registers 4k .. 4k + 3: pixels 4k .. 4k + 3 and 8 + 4k .. */
        const unsigned s = __byte_perm(o[4 * k], o[4 * k + 1], bytes);     /* 4k, 4k+1, 8+4k, 9+4k */
        const unsigned t = __byte_perm(o[4 * k + 2], o[4 * k + 3], bytes); /* 4k+2, 4k+3, 10+4k, 11+4k */
        w[k] = __byte_perm(s, t, 0x5410);
        w[k + 2] = __byte_perm(s, t, 0x7632);
    }
    return make_uint4(w[0], w[1], w[2], w[3]);
}

template <bool EDGE, bool CS = false> static __device__ __forceinline__ void store_w16(const bk_args &a, int y, int x0, const row_pairs &o)
{
    const uint4 v = pack_w16(o.p);
    const unsigned w[4] = {v.x, v.y, v.z, v.w};
    uint8_t *dst = a.out + (size_t)y * a.pitch + x0;
    if (!EDGE || x0 + 16 <= a.width) {
        if (CS) __stcs((uint4 *)dst, v); /* st.global.cs: evict first */
        else *(uint4 *)dst = v;
    } else {
#pragma unroll
        for (int j = 0; j < 16; j++)
            if (x0 + j < a.width) dst[j] = (uint8_t)(w[j / 4] >> (8 * (j & 3)));
    }
}

/* Input row i of a tile (picture row y0 - 1 + i), unpacked: loaded before (raw) or, from the
 * block's ring (median_ring), when it is needed (a shared load waits tens of clocks, not a DRAM
 * trip); an edge thread clamps the row into the picture (w16_tma's copies fill rows outside it
 * with zeros; w16_ring's copies are clamped already, and the clamp changes nothing). */
template <bool EDGE, bool RING, int N>
static __device__ __forceinline__ row_pairs tile_row_w16(const bk_args &a, const row_w16 (&raw)[N], const uint8_t *ring, int i,
                                                         int x0, int y0)
{
    if (!RING) return unpack_w16(raw[i]);
    const int k = EDGE ? min(max(y0 - 1 + i, 0), a.height - 1) - (y0 - 1) : i;
    return unpack_w16(fetch_row_w16<EDGE>(ring + k * RING_ROW, x0, a.width));
}

/* The thread's R output rows from its R + 2 input rows, all loaded from the picture before the
 * first output in the source, each unpacked once. ptxas may sink the last loads to save registers:
 * in 72 registers (w16_r4_cs) it loads rows 4 and 5 after two output rows, so the thread waits for
 * DRAM twice (w16_lean's tie_rows holds them up front). */
template <int R, bool FMA, bool EDGE, bool CS = false, bool RING = false>
static __device__ __forceinline__ void median_tile_w16(const bk_args &a, int x0, int y0, const uint8_t *ring = nullptr)
{
    row_w16 raw[R + 2];
    if (!RING)
#pragma unroll
        for (int i = 0; i < R + 2; i++) raw[i] = load_row_w16<EDGE>(a, y0 - 1 + i, x0);
    row_pairs win[3] = {tile_row_w16<EDGE, RING>(a, raw, ring, 0, x0, y0), tile_row_w16<EDGE, RING>(a, raw, ring, 1, x0, y0), {}};
#pragma unroll
    for (int r = 0; r < R; r++) {
        win[(r + 2) % 3] = tile_row_w16<EDGE, RING>(a, raw, ring, r + 2, x0, y0);
        const row_pairs o = median_w16(win[r % 3], win[(r + 1) % 3], win[(r + 2) % 3], FMA);
        if (!EDGE || y0 + r < a.height) store_w16<EDGE, CS>(a, y0 + r, x0, o);
    }
}

/* Lesson (w16_s12, w16_s24): the thread walks a strip of 16 columns x ROWS rows with DEPTH rows
 * loaded ahead of the one it unpacks (a ring of DEPTH slots: input row k in slot k % DEPTH), so its
 * own loads overlap its arithmetic, where the tile rungs above wait for all their rows first. The
 * loop is unrolled by DEPTH (3), the window's period: the ring and the window
 * turn by renaming registers. Loads past the strip's last input row reload that row (the last
 * DEPTH of a strip: L1 hits). */
template <int ROWS, int DEPTH, bool EDGE> static __device__ __forceinline__ void median_walk_w16(const bk_args &a, int x0, int y0)
{
    static_assert(ROWS % DEPTH == 0 && DEPTH % 3 == 0, "the loop's period: a multiple of 3 that divides the strip");
    const int ylast = y0 + ROWS; /* the strip's last input row (clamped again in the edge path) */
    row_w16 ahead[DEPTH];
#pragma unroll
    for (int i = 0; i < DEPTH; i++) ahead[i] = load_row_w16<EDGE>(a, y0 - 1 + i, x0);
    row_pairs win[3];
#pragma unroll
    for (int k = 0; k < 2; k++) { /* input rows 0 and 1 fill the window */
        win[k] = unpack_w16(ahead[k]);
        ahead[k] = load_row_w16<EDGE>(a, y0 - 1 + k + DEPTH, x0);
    }
#pragma unroll 1
    for (int it = 0; it < ROWS; it += DEPTH)
#pragma unroll
        for (int u = 0; u < DEPTH; u++) { /* output row it + u from input rows it + u .. it + u + 2 */
            const int k = u + 2; /* input row it + k, in slot k % DEPTH and window slot k % 3 */
            win[k % 3] = unpack_w16(ahead[k % DEPTH]);
            ahead[k % DEPTH] = load_row_w16<EDGE>(a, min(y0 - 1 + it + k + DEPTH, ylast), x0);
            const row_pairs o = median_w16(win[u % 3], win[(u + 1) % 3], win[(u + 2) % 3], false);
            if (!EDGE || y0 + it + u < a.height) store_w16<EDGE>(a, y0 + it + u, x0, o);
        }
}

/* Lesson (w16_r4, w16_r8 and their _fma forms): a thread a tile of 16 x R pixels; the threads whose
 * tile and its frame are inside the picture take the fast path (no clamping, no shuffles), the
 * others, along the edges, the clamped one.
 * Lesson (w16_r8_lb: the same 16 x 8 tile under __launch_bounds__(128, 5)): an SM's registers are four
 * files of 16384, one for each scheduler, and a warp's registers come from its scheduler's file.
 * w16_r8 takes 117 a thread (3744 a warp): 4 warps a scheduler, 16 an SM. Asked for 5 blocks, ptxas
 * fits it in 96 with no spill: 5 warps a scheduler, 20 an SM, and 10 input rows in flight for each.
 * H200 at 16384^2 (probe runs of 2026-11-24, h200/run_526de0e): 77.2 and 77.7% of memcpy in two runs,
 * w16_r8 73.3%, w16_r4 74.8%. Taller or tighter tiles were slower: 16 x 8 in 85 registers (6
 * blocks, 232 bytes spilled) 74.5%; 16 x 10 in 5 blocks (152 bytes spilled) 71.8%; 16 x 12 in 4
 * blocks (128 registers) 69.2%, in 5 (480 bytes spilled) 54.5%; 16 x 16 in 3 blocks 59.5%; w16_r4
 * in 72 and 64 registers (7 and 8 blocks, 52 and 152 bytes spilled) 74.8 and 73.3%, in 86 (5
 * blocks) 74.1%; 16 x 6 in 96 (5 blocks) 73.8%.
 * Lesson (w16_r4_cs: w16_r4 in 7 blocks, 72 registers, with streaming stores): the output is never
 * read again, so each row goes out with st.global.cs (__stcs: evict first); the likely reason it pays
 * (not profiled): the lines the stores would have kept in L2 stay free for the input rows a
 * neighbouring tile reads again. Alone, the
 * streaming stores took w16_r4 from 74.7 to 78.9% on the H200 and gained nothing for w16_r8_lb
 * (77.1%); 7 blocks (28 warps an SM, 52 bytes spilled) alone gained nothing (74.8%); together
 * 80.8-81.3% in four runs (h200/run_ef77da7); in 64 registers (8 blocks, 152 bytes spilled) 74.1%;
 * fused_half with streaming stores 39.2%, as without. The rows no other tile reads (input rows
 * y0 + 1, y0 + 2) loaded streaming as well (__ldcs): 80.9 and 81.1%, no gain; w16_r8_lb with both
 * 76.7% (h200/run_51bafef, probe rungs not kept). Two or three tiles a thread, L2 or L1 prefetches,
 * the block's rows staged by cp.async: 69-80% (h200/run_2052c42, probes not kept; NOTEBOOK.md's
 * "What holds the H200 median at 81%"). What held it was its ALU instructions and its loads in two
 * batches (w16_lean, w16_keys below). */
template <int R, bool FMA, int MINB = R == 4 ? 6 : 4, bool CS = false>
static __global__ void __launch_bounds__(32 * W16_BLOCK_Y, MINB) median_kernel_w16(bk_args a)
{
    const int x0 = (blockIdx.x * 32 + threadIdx.x) * 16;
    const int y0 = (blockIdx.y * W16_BLOCK_Y + threadIdx.y) * R; /* the first output row */
    if (x0 >= a.width || y0 >= a.height) return;
    if (x0 >= 16 && x0 + 17 <= a.width && y0 >= 1 && y0 + R + 1 <= a.height)
        median_tile_w16<R, FMA, false, CS>(a, x0, y0);
    else median_tile_w16<R, FMA, true, CS>(a, x0, y0);
}

template <int ROWS, int DEPTH>
static __global__ void __launch_bounds__(32 * W16_BLOCK_Y, 6) median_kernel_walk_w16(bk_args a)
{
    const int x0 = (blockIdx.x * 32 + threadIdx.x) * 16;
    const int y0 = (blockIdx.y * W16_BLOCK_Y + threadIdx.y) * ROWS;
    if (x0 >= a.width || y0 >= a.height) return;
    if (x0 >= 16 && x0 + 17 <= a.width && y0 >= 1 && y0 + ROWS + 1 <= a.height) median_walk_w16<ROWS, DEPTH, false>(a, x0, y0);
    else median_walk_w16<ROWS, DEPTH, true>(a, x0, y0);
}

/* Lesson (w16_ring, w16_tma, w16_tma_dyn, w16_tma_r8: the rows wait in shared memory, not in
 * registers): w16_r4_cs's warps load their 6 rows, wait for DRAM, then compute, so the SM's bytes
 * in flight are what its registers hold. Here a block stays on the SM (one wave of resident blocks)
 * and keeps STAGES tiles of 512 columns x (4R + 2) rows in a ring in shared memory, STAGES - 1
 * tiles ahead of the one it computes; the warps read their rows from shared memory (the same three
 * loads a row) and compute exactly as w16_r4_cs does, with its streaming stores.
 *   w16_ring     one bulk copy a row (cp.async.bulk, rows clamped by the copies; ptxas issues them
 *                one lane at a time: the copy's operands are uniform registers), tiles dealt
 *                round-robin (block b takes tiles b, b + grid, ...);
 *   w16_tma      one TMA copy a tile (cp.async.bulk.tensor.2d: the tile is one box of a tensor map
 *                of the picture as 32-bit words; the engine fills rows and columns outside the
 *                picture with zeros, so the edge threads clamp their rows themselves), round-robin;
 *   w16_tma_dyn  w16_tma with the tiles dealt by a counter: whoever is free takes the next tile;
 *   w16_tma_r8   w16_tma_dyn with 16 x 8 thread tiles (2 stages, 5 blocks).
 * Measured at 16384^2 (2026-11-24, % of memcpy; H200: h200/run_62adba4, H100: h100/run_62adba4):
 * w16_ring 66.5 / 76.5, w16_tma 70.7 / 78.4, w16_tma_dyn 79.0 / 90.0, w16_tma_r8 79.1 / 90.0, against
 * w16_r4_cs 81.2 / 96.1. Two lessons. A static deal loses a tenth on the H200: ncu of w16_tma (base
 * clock, h200/run_d35974d) shows 20 of its 28 warps an SM active on average and the SMs active 91%
 * of the kernel's cycles - SMs do not run at one speed, and a fixed share per block makes the fast
 * ones wait for the slow; the counter fixes that (+8 points). And the rows waiting in shared memory
 * gain nothing here: at base clock w16_r4_cs and w16_tma both issue 0.75 instructions a scheduler a
 * cycle, the median is short of issue slots and ALU (7.22 ALU instructions a pixel), not of bytes in
 * flight, and the ring adds its own (the barrier a tile, the halo rows read twice from L2). */
template <int R> struct ring_geom {
    static constexpr int ROWS = W16_BLOCK_Y * R + 2;                             /* a tile's input rows */
    static constexpr unsigned SLOT = (ROWS * RING_ROW + 127) / 128 * 128;         /* TMA: 128-byte aligned slots */
    static constexpr size_t smem(int stages) { return (size_t)stages * (SLOT + 8 + 4); } /* + mbarriers, tile numbers */
};

/* w16_tma_dyn, w16_tma_r8: the tiles dealt by a counter (the block's thread 0 takes the next tile
 * when it fills a slot and writes its number beside the slot, where the mbarrier's phase publishes
 * it; a number past the last tile completes the phase with no bytes and ends the block), and the
 * last block out resets the counter for the next launch. */
__device__ unsigned ring_next_tile, ring_blocks_done;

template <int R, bool TMA>
static __device__ __forceinline__ void ring_fill_tile(const bk_args &a, const CUtensorMap &map, int t, int tiles_x,
                                                      int tiles, uint8_t *slot, uint64_t *bar)
{
    if (t >= tiles) {
#if GL_BULK_ASYNC
        if (threadIdx.x == 0) /* dynamic tiles: the slot's phase completes with no bytes (its number ends the block) */
            asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"((unsigned)__cvta_generic_to_shared(bar)) : "memory");
#endif
        return;
    }
    const int xb = t % tiles_x * 512, y0 = t / tiles_x * (W16_BLOCK_Y * R);
#if GL_BULK_ASYNC
    if (TMA) { /* below sm_90 the rows are copied as w16_ring's are */
        if (threadIdx.x == 0) {
            const unsigned b = (unsigned)__cvta_generic_to_shared(bar);
            asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
            gl_bar_arrive_expect_tx(bar, ring_geom<R>::ROWS * RING_ROW);
            asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, "
                         "%4}], [%2];\n" ::"r"((unsigned)__cvta_generic_to_shared(slot)),
                         "l"(&map), "r"(b), "r"((xb - 16) / 4), "r"(y0 - 1)
                         : "memory");
        }
        return;
    }
#endif
    const int lo = max(xb - 16, 0), hi = min(xb + 528, a.pitch); /* the bytes copied: inside the pitch */
    gl_bulk_fill_rows(slot + (lo - (xb - 16)), RING_ROW, a.in + lo, a.pitch, y0 - 1, ring_geom<R>::ROWS, a.height,
                      (unsigned)(hi - lo), bar);
}

/* The tile a slot's fill takes (warp 0 calls it): the static deal's `t`, or (DYN) the counter's next,
 * taken by lane 0 and written beside the slot. */
template <bool DYN> static __device__ __forceinline__ int ring_take_tile(int t, int *tile_of_slot)
{
    if (!DYN) return t;
    if (threadIdx.x == 0) *tile_of_slot = (int)atomicAdd(&ring_next_tile, 1u);
    return __shfl_sync(0xffffffffu, threadIdx.x == 0 ? *tile_of_slot : 0, 0);
}

template <int R, int STAGES, int MINB, bool TMA, bool DYN>
static __global__ void __launch_bounds__(32 * W16_BLOCK_Y, MINB)
    median_kernel_ring_w16(bk_args a, const __grid_constant__ CUtensorMap map, int tiles_x, int tiles)
{
    typedef ring_geom<R> G;
    extern __shared__ __align__(128) uint8_t ring[]; /* STAGES slots of SLOT bytes, STAGES mbarriers, STAGES tile numbers */
    uint64_t *full = (uint64_t *)(ring + STAGES * G::SLOT);
    int *tile_of = (int *)(full + STAGES);
    if (threadIdx.y == 0) {
        gl_bulk_init(full, STAGES);
#pragma unroll
        for (int k = 0; k < STAGES; k++) {
            const int t = ring_take_tile<DYN>(blockIdx.x + k * gridDim.x, &tile_of[k]);
            ring_fill_tile<R, TMA>(a, map, t, tiles_x, tiles, ring + k * G::SLOT, &full[k]);
        }
    }
    __syncthreads();
    int s = 0;
    unsigned parity = 0;
    for (int t = blockIdx.x;; t += gridDim.x) {
        if (!DYN && t >= tiles) break;
        gl_bulk_wait(&full[s], parity);
        if (DYN) {
            t = tile_of[s];
            if (t >= tiles) break; /* every later slot holds a larger number: no copy in flight */
        }
        const int x0 = t % tiles_x * 512 + threadIdx.x * 16;
        const int y0 = t / tiles_x * (W16_BLOCK_Y * R) + threadIdx.y * R; /* the thread's first output row */
        const uint8_t *rows = ring + s * G::SLOT + threadIdx.y * R * RING_ROW + 16 + threadIdx.x * 16; /* row y0 - 1 at x0 */
        if (x0 < a.width && y0 < a.height) {
            if (x0 >= 16 && x0 + 17 <= a.width && y0 >= 1 && y0 + R + 1 <= a.height)
                median_tile_w16<R, false, false, true, true>(a, x0, y0, rows);
            else median_tile_w16<R, false, true, true, true>(a, x0, y0, rows);
        }
        __syncthreads(); /* the block's reads of slot s (and its tile number) are done: refill it */
        if (threadIdx.y == 0) {
            const int next = ring_take_tile<DYN>(t + STAGES * gridDim.x, &tile_of[s]);
            ring_fill_tile<R, TMA>(a, map, next, tiles_x, tiles, ring + s * G::SLOT, &full[s]);
        }
        if (++s == STAGES) s = 0, parity ^= 1;
    }
    if (DYN && threadIdx.x == 0 && threadIdx.y == 0 && atomicAdd(&ring_blocks_done, 1u) == gridDim.x - 1) {
        atomicExch(&ring_next_tile, 0u); /* the last block out: every block has taken its last number */
        atomicExch(&ring_blocks_done, 0u);
    }
}

/* One wave of resident blocks (asked on the first, untimed, launch: *resident == 0), at most one a
 * tile. TMA: the picture as a tensor of 32-bit words (pitch / 4 x height), boxes of 136 words (544
 * bytes) x ROWS rows; without a driver encoder (said why) the launch is refused. */
template <int R, int STAGES, int MINB, bool TMA, bool DYN = false> static void launch_ring_w16(const bk_args *a, cudaStream_t st, int *resident)
{
    typedef ring_geom<R> G;
    const size_t smem = G::smem(STAGES);
    void (*kernel)(bk_args, const CUtensorMap, int, int) = median_kernel_ring_w16<R, STAGES, MINB, TMA, DYN>;
    if (!*resident) {
        GL_CHECK(cudaFuncSetAttribute((const void *)kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        *resident = gl_resident_blocks((const void *)kernel, 32 * W16_BLOCK_Y, smem);
    }
    CUtensorMap map;
    memset(&map, 0, sizeof map);
    if (TMA) {
        const cuuint64_t dims[2] = {(cuuint64_t)a->pitch / 4, (cuuint64_t)a->height}, strides[1] = {(cuuint64_t)a->pitch};
        const cuuint32_t box[2] = {RING_ROW / 4, (cuuint32_t)G::ROWS};
        if (!gl_tma_encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, (void *)a->in, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_NONE)) {
            fprintf(stderr, "median: w16_tma needs the driver's tensor maps\n");
            exit(GL_EXIT_FAIL);
        }
    }
    const int tiles_x = (a->width + 511) / 512, tiles = tiles_x * ((a->height + W16_BLOCK_Y * R - 1) / (W16_BLOCK_Y * R));
    kernel<<<min(tiles, *resident), dim3(32, W16_BLOCK_Y), smem, st>>>(*a, map, tiles_x, tiles);
}

/* Lesson (w16_lean, w16_keys: the median within the ALU budget of the H200; measured in NOTEBOOK.md,
 * "The keys: the H200 median at 85%"). w16_r4_cs's SASS says three things its source does not:
 *   - ptxas does not issue the 6 rows at once: it loads 4, computes two output rows and only then
 *     loads the last 2 (to stay in 72 registers), so a thread waits for DRAM twice;
 *   - each column's middle takes 5 IMADs, not 4: NVVM reassociates add_fma(add_fma(a, b), c) into
 *     ((a * 1 + b) * 1 + 0) and adds c later - 36 IMADs a thread;
 *   - the rows' addresses are 64-bit IADD3 pairs on the ALU pipe, the pipe that binds.
 * w16_lean: every IMAD one mad.lo of inline PTX, which neither NVVM nor ptxas reorders; b + c summed
 * once for the two output rows that share them (3.5 IMADs a column a row, not 5); and rows 3 and 4
 * tied to row 0 (tie_rows), so that all but the last row are in flight at once: 8% fewer
 * instructions than w16_r4_cs and 2.5 points faster on the H200 (83.6 against 81.1% of memcpy,
 * h200/run_0a5eda2), with the same 7.22 ALU instructions a pixel: the ALU pipe binds.
 * w16_keys: the same, with ALU work moved to the FMA pipe. A 16-bit half holds a key, 256 x the pixel
 * plus any byte below it: keys compare by the pixel first, so the median of 9 keys is the key of a
 * median pixel whatever the low bytes hold, and the sums and differences of the middles stay exact.
 * Keys unpack with half the byte permutes (two registers of four are the other two x 256: IMADs), and
 * with the neighbour columns in two registers of one key each (pixel -1 in the low half, pixel 16 in
 * the high half, zeros beside), the neighbours at the ends of a row are one instruction each, not
 * a byte permute (an IMAD at the left end; ptxas makes the right end's mad.hi a LEA.HI, still ALU): 98.5 ALU instructions a row of 16 pixels where w16_r4_cs takes 108 (SASS), 6.69 a pixel
 * by ncu against 7.22. 85.2% of memcpy on the H200 and 97.1% on the H100 (run_0a5eda2).
 * Moving more of it to the FMA pipe did not pay (commit 5b73f74, h200/run_5b73f74): the rows'
 * addresses by IMAD.WIDE and the right end's neighbours by IMAD.HI took the ALU from 6.69 to 6.28
 * instructions a pixel and the FMA pipe from 5.75 to 6.27, and ran at 81.6-82.2% of memcpy where
 * w16_keys ran at 84.9-85.5% in the same six runs (64 registers, 8 blocks an SM: 79.8-80.5%). With
 * its schedulers issuing in 74.7% of their active cycles, the H200 median is short of issue slots
 * as a whole, not of one pipe: NOTEBOOK.md's "Probes after the floor". */
static __device__ __forceinline__ unsigned imad_pin(unsigned a, unsigned k, unsigned b)
{
    unsigned d;
    asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(k), "r"(b));
    return d;
}
/* The next row's pointer as one mad.wide of inline PTX. ptxas still makes it a 64-bit IADD3 pair
 * (the SASS in run_0a5eda2), so it saves no ALU instruction; it stays because the same steps as
 * plain pointer arithmetic cost w16_keys a 4-byte spill at 72 registers (CUDA 13.0), and a spill
 * here costs points (NOTEBOOK.md, "The keys": "What did not pay"). */
static __device__ __forceinline__ const uint8_t *step_rows(const uint8_t *p, unsigned pitch, unsigned one)
{
    const uint8_t *d;
    asm("mad.wide.u32 %0, %1, %2, %3;" : "=l"(d) : "r"(pitch), "r"(one), "l"(p));
    return d;
}

/* fetch_row_w16's fast path at a pointer stepped by step_rows: the loads say ld.global themselves,
 * since a pointer out of inline PTX is a generic one to the compiler (LD, not LDG). */
static __device__ __forceinline__ row_w16 fetch_row_global(const uint8_t *at)
{
    row_w16 r;
    asm("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(r.w[0]), "=r"(r.w[1]), "=r"(r.w[2]), "=r"(r.w[3]) : "l"(at));
    asm("ld.global.u32 %0, [%1+-4];" : "=r"(r.left) : "l"(at));
    asm("ld.global.u32 %0, [%1+16];" : "=r"(r.right) : "l"(at));
    return r;
}

/* Rows 3 .. last tied to row 0: its first word plus each of their loads' words times a zero the
 * compiler cannot see (blockDim.x >> 6: the blocks are 32 wide), one IMAD a load. Row 0's first use
 * then waits for those loads, so ptxas issues them with rows 0 .. 2, before any arithmetic. The
 * last row (5) stays free: ptxas loads it a third of the way in, long before output row 3 needs it,
 * and the registers it would hold meanwhile keep the kernel in 72 without a spill. */
template <int N> static __device__ __forceinline__ void tie_rows(row_w16 (&raw)[N], int last)
{
    const unsigned zero = blockDim.x >> 6;
    unsigned t = raw[0].w[0];
#pragma unroll
    for (int i = 3; i <= last; i++) {
        unsigned d;
        asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(raw[i].w[0]), "r"(zero), "r"(t));
        asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(t) : "r"(raw[i].left), "r"(zero), "r"(d));
        asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(raw[i].right), "r"(zero), "r"(t));
        t = d;
    }
    raw[0].w[0] = t;
}

typedef struct {
    unsigned one, minus; /* 1 and -1 that the compiler cannot see (unit_fma) */
} lean_units;

/* The middle of three as the sum (`sum`: a + b + c) minus the smallest and the largest: 2 IMADs. */
static __device__ __forceinline__ unsigned mid_of_sum(unsigned sum, unsigned lo, unsigned hi, lean_units u)
{
    return imad_pin(hi, u.minus, imad_pin(lo, u.minus, sum));
}

/* A row of w16_lean (KEYS false: unpack_w16's 9 registers, 257 x the pixel in each half) or of
 * w16_keys (KEYS true: 10 registers of keys): p[j] pixels (j, j + 8) for j < 8; the neighbours
 * p[8] (pixel -1, 0) and p[9] (0, pixel 16). */
template <bool KEYS> struct lean_row {
    unsigned p[10]; /* w16_lean uses 9 */
};

/* Keys: words w[k] and w[k + 2] give registers 4k + 1 and 4k + 3 by a byte permute each (each
 * pixel's byte and the byte below it), and 4k, 4k + 2 as those x 256 (the byte below moves up:
 * an IMAD); pixel -1 is byte 3 of `left` (high 16 bits of it: IMAD.HI), pixel 16 byte 0 of `right`
 * (x 2^24). 2 byte permutes a 4 registers, not 4, and none for the neighbours. */
template <bool KEYS> static __device__ __forceinline__ lean_row<KEYS> unpack_lean(const row_w16 &r)
{
    lean_row<KEYS> o;
    if (!KEYS) {
        const row_pairs q = unpack_w16(r);
#pragma unroll
        for (int j = 0; j < 9; j++) o.p[j] = q.p[j];
    } else {
#pragma unroll
        for (int k = 0; k < 2; k++) {
            o.p[4 * k + 1] = __byte_perm(r.w[k], r.w[k + 2], 0x5410); /* bytes 0, 1 | 0, 1 */
            o.p[4 * k + 3] = __byte_perm(r.w[k], r.w[k + 2], 0x7632); /* bytes 2, 3 | 2, 3 */
            o.p[4 * k] = o.p[4 * k + 1] * 256u;
            o.p[4 * k + 2] = o.p[4 * k + 3] * 256u;
        }
        o.p[8] = __umulhi(r.left, 65536u); /* (pixel -1 over byte 2 of left, 0) */
        o.p[9] = r.right * 16777216u;       /* (0, pixel 16 in the top byte) */
    }
    return o;
}

/* Register j's neighbours one pixel left (pixels j - 1, j + 7) and right (j + 1, j + 9): register
 * j - 1 or j + 1, but at the ends a byte permute (w16_lean) or (keys) one instruction that adds
 * the other half to the neighbours' register: (pixel -1, 0) + (pixel 7 << 16) is an IMAD;
 * (pixel 8 >> 16) + (0, pixel 16) is a mad.hi, which ptxas makes a shift-add (LEA.HI, ALU pipe). */
template <bool KEYS> static __device__ __forceinline__ unsigned lean_left(const lean_row<KEYS> &v, int j)
{
    if (j > 0) return v.p[j - 1];
    if (!KEYS) return __byte_perm(v.p[8], v.p[7], 0x5410);
    unsigned d;
    asm("mad.lo.u32 %0, %1, 65536, %2;" : "=r"(d) : "r"(v.p[7]), "r"(v.p[8]));
    return d;
}
template <bool KEYS> static __device__ __forceinline__ unsigned lean_right(const lean_row<KEYS> &v, int j)
{
    if (j < 7) return v.p[j + 1];
    if (!KEYS) return __byte_perm(v.p[0], v.p[8], 0x7632);
    unsigned d;
    asm("mad.hi.u32 %0, %1, 65536, %2;" : "=r"(d) : "r"(v.p[0]), "r"(v.p[9]));
    return d;
}

/* The column sorts of output row (a above, b, c), with bc = b + c shared with the row below. */
template <bool KEYS>
static __device__ __forceinline__ void column_sorts_lean(const lean_row<KEYS> &a, const lean_row<KEYS> &b, const lean_row<KEYS> &c,
                                                         const lean_row<KEYS> &bc, lean_units u, lean_row<KEYS> &lo,
                                                         lean_row<KEYS> &mi, lean_row<KEYS> &hi)
{
#pragma unroll
    for (int j = 0; j < (KEYS ? 10 : 9); j++) {
        lo.p[j] = min3u2(a.p[j], b.p[j], c.p[j]);
        hi.p[j] = max3u2(a.p[j], b.p[j], c.p[j]);
        mi.p[j] = mid_of_sum(imad_pin(a.p[j], u.one, bc.p[j]), lo.p[j], hi.p[j], u);
    }
}

/* The rest of median_w16 (fma = false) on the sorted columns, and the 16 output bytes. */
template <bool KEYS>
static __device__ __forceinline__ uint4 median_finish_lean(const lean_row<KEYS> &lo, const lean_row<KEYS> &mi,
                                                           const lean_row<KEYS> &hi, lean_units u)
{
    unsigned o[9];
#pragma unroll
    for (int j = 0; j < 8; j += 2) {
        unsigned mid_mi[2];
        middles_median2(lean_left(mi, j), mi.p[j], mi.p[j + 1], lean_right(mi, j + 1), mid_mi);
#pragma unroll
        for (int i = 0; i < 2; i++) {
            const int k = j + i;
            const unsigned big_lo = max3u2(lean_left(lo, k), lo.p[k], lean_right(lo, k));
            const unsigned small_hi = min3u2(lean_left(hi, k), hi.p[k], lean_right(hi, k));
            const unsigned sum = imad_pin(imad_pin(big_lo, u.one, mid_mi[i]), u.one, small_hi);
            o[k] = mid_of_sum(sum, min3u2(big_lo, mid_mi[i], small_hi), max3u2(big_lo, mid_mi[i], small_hi), u);
        }
    }
    return pack_w16(o, KEYS ? 0x7351 : 0x6240); /* the pixels: bytes 0 and 2 (x 257) or 1 and 3 (keys) */
}

/* Lesson (w16_keys_we: the edge warps): a thread whose tile touches the picture's left or right edge
 * takes the clamped path, and its warp's 31 other threads the fast one: the warp runs both, the
 * clamped path with one thread active (Nsight Compute, w16_keys on the H200: 29.84 threads active
 * a warp on average, not 32). With the decision made per warp (__any_sync: WARP_EDGES), the whole
 * edge warp takes the clamped path, correct for every tile, and skips the fast one. 1 warp in 16
 * at 16384^2. */
static __device__ __forceinline__ bool lean_clamped(const bk_args &a, int x0, int y0, const bool warp_edges)
{
    const bool clamp = !(x0 >= 16 && x0 + 17 <= a.width && y0 >= 1 && y0 + 5 <= a.height);
    return warp_edges ? __any_sync(FULL_MASK, clamp) : clamp; /* warp_edges: before any thread returns */
}

/* w16_r4_cs's tile, blocks and streaming stores; the edge threads (WARP_EDGES: the edge warps) take its
 * clamped path. */
template <bool KEYS, bool WARP_EDGES = false>
static __global__ void __launch_bounds__(32 * W16_BLOCK_Y, 7) median_kernel_lean(bk_args a)
{
    const int x0 = (blockIdx.x * 32 + threadIdx.x) * 16;
    const int y0 = (blockIdx.y * W16_BLOCK_Y + threadIdx.y) * 4;
    const bool clamped = WARP_EDGES && lean_clamped(a, x0, y0, true);
    if (x0 >= a.width || y0 >= a.height) return;
    if (WARP_EDGES ? clamped : lean_clamped(a, x0, y0, false)) {
        median_tile_w16<4, false, true, true>(a, x0, y0);
        return;
    }
    const lean_units u = {unit_fma(), (unsigned)(-(int)blockDim.x >> 5)};
    const unsigned pitch = (unsigned)a.pitch;
    const uint8_t *in = a.in + (size_t)(y0 - 1) * a.pitch + x0;
    row_w16 raw[6];
#pragma unroll
    for (int i = 0; i < 6; i++) {
        raw[i] = fetch_row_global(in);
        if (i < 5) in = step_rows(in, pitch, u.one);
    }
    tie_rows(raw, 4);
    uint8_t *out = a.out + (size_t)y0 * a.pitch + x0;
    lean_row<KEYS> r0 = unpack_lean<KEYS>(raw[0]), r1 = unpack_lean<KEYS>(raw[1]);
#pragma unroll
    for (int r = 0; r < 4; r += 2) { /* output rows r (input rows r .. r + 2) and r + 1 (r + 1 .. r + 3) */
        const lean_row<KEYS> r2 = unpack_lean<KEYS>(raw[r + 2]), r3 = unpack_lean<KEYS>(raw[r + 3]);
        lean_row<KEYS> bc, lo, mi, hi;
#pragma unroll
        for (int j = 0; j < (KEYS ? 10 : 9); j++) bc.p[j] = imad_pin(r1.p[j], u.one, r2.p[j]);
        column_sorts_lean<KEYS>(r0, r1, r2, bc, u, lo, mi, hi);
        __stcs((uint4 *)out, median_finish_lean<KEYS>(lo, mi, hi, u));
        out = (uint8_t *)step_rows(out, pitch, u.one);
        column_sorts_lean<KEYS>(r3, r1, r2, bc, u, lo, mi, hi);
        __stcs((uint4 *)out, median_finish_lean<KEYS>(lo, mi, hi, u));
        if (r == 0) out = (uint8_t *)step_rows(out, pitch, u.one);
        r0 = r2, r1 = r3;
    }
}

void launch_median_w16(const bk_args *a, median_rung r, cudaStream_t st)
{
    static int resident[4];
    switch (r) { /* the rings: one wave of blocks that walk the tiles */
    case MED_W16_RING: launch_ring_w16<4, 3, 7, false>(a, st, &resident[0]); GL_CHECK_LAUNCH(); return;
    case MED_W16_TMA: launch_ring_w16<4, 3, 7, true>(a, st, &resident[1]); GL_CHECK_LAUNCH(); return;
    case MED_W16_TMA_DYN: launch_ring_w16<4, 3, 7, true, true>(a, st, &resident[2]); GL_CHECK_LAUNCH(); return;
    case MED_W16_TMA_R8: launch_ring_w16<8, 2, 5, true, true>(a, st, &resident[3]); GL_CHECK_LAUNCH(); return;
    case MED_W16_LEAN:
    case MED_W16_KEYS:
    case MED_W16_KEYS_WE: {
        const dim3 grid((unsigned)((a->width + 511) / 512), (unsigned)((a->height + 4 * W16_BLOCK_Y - 1) / (4 * W16_BLOCK_Y)));
        if (r == MED_W16_LEAN) median_kernel_lean<false><<<grid, dim3(32, W16_BLOCK_Y), 0, st>>>(*a);
        else if (r == MED_W16_KEYS) median_kernel_lean<true><<<grid, dim3(32, W16_BLOCK_Y), 0, st>>>(*a);
        else median_kernel_lean<true, true><<<grid, dim3(32, W16_BLOCK_Y), 0, st>>>(*a);
        GL_CHECK_LAUNCH();
        return;
    }
    default: break;
    }
    static const int rows_of[] = {4, 8, 4, 12, 24, 8, 4, 4, 4, 4, 4}; /* from MED_W16_R4 on */
    const int rows = rows_of[r - MED_W16_R4];
    const dim3 block(32, W16_BLOCK_Y);
    const dim3 grid((unsigned)((a->width + 511) / 512), (unsigned)((a->height + rows * W16_BLOCK_Y - 1) / (rows * W16_BLOCK_Y)));
    if (r == MED_W16_R4) median_kernel_w16<4, false><<<grid, block, 0, st>>>(*a);
    else if (r == MED_W16_R8) median_kernel_w16<8, false><<<grid, block, 0, st>>>(*a);
    else if (r == MED_W16_R4_FMA) median_kernel_w16<4, true><<<grid, block, 0, st>>>(*a);
    else if (r == MED_W16_S12) median_kernel_walk_w16<12, 3><<<grid, block, 0, st>>>(*a);
    else if (r == MED_W16_S24) median_kernel_walk_w16<24, 3><<<grid, block, 0, st>>>(*a);
    else if (r == MED_W16_R8_LB) median_kernel_w16<8, false, 5><<<grid, block, 0, st>>>(*a);
    else median_kernel_w16<4, false, 7, true><<<grid, block, 0, st>>>(*a); /* MED_W16_R4_CS */
    GL_CHECK_LAUNCH();
}
