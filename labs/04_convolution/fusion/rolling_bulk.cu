/* rolling_bulk.cu - Lab 04, part 3: the median ladder's bulk-copy rungs (issue 20), beside the dpx
 * rungs they vary (rolling.cu, rolling_budget.cu). The device code is rolling.cuh's stage_median_dpx
 * on rows that gl_bulk.cuh's ring brings in; every kernel reproduces fusion_reference.c's bits.
 *
 * The lesson: dpx_r48 spends 14.3 thread-instructions a pixel, 64% of the H100's budget at
 * memcpy speed, and still reaches only 85% of memcpy. ncu at 2185011: 88 registers (20 resident
 * one-warp blocks an SM, 31% occupancy), stalls on its loads (L1TEX scoreboard) with 3 rows of
 * 512 bytes loaded ahead a warp in registers, and 4.53 waves (the last half full). Deeper
 * prefetch in registers costs warps (dpx_r48a6: 106 registers, slower). Here the rows ahead wait
 * in shared memory, brought by one bulk copy a row (sm_90: cp.async.bulk, an mbarrier a slot):
 *   bulk_r48   the ring (BULK_RING rows ahead a warp, 3 KB of shared memory), 48-row strips: the
 *              loads alone changed from dpx_r48;
 *   bulk_wave  the same kernel with strips as tall as one wave of resident warps needs (the grid
 *              fills the GPU once: no tail wave, and the 2 rows that only fill the window spread
 *              over about 180 rows instead of 48).
 * Every warp walks its strip the same way: a row index outside the picture is clamped before its
 * copy (rows -1 and height are rows 0 and height - 1: the median has one stage, so clamping its
 * input rows is clamp to edge), a warp at the left or right edge copies only the bytes inside the
 * row's pitch and clamps the columns after (row_clamp_columns), and the last strip writes only
 * the rows inside the picture. No second path: 64 registers or fewer, 32 resident warps an SM
 * (dpx_r48: 20). Below sm_90 the ring is filled by the warp's own loads (gl_bulk.cuh).
 * Size of the interior steady loop, an ESTIMATE from nvcc -ptx (no SASS count yet; PTX counts a
 * 3-input DPX min / max as two): 1520 PTX instructions for 96 pixels a lane = 15.8 a pixel,
 * against dpx_r48's 718 for 48 = 15.0 (its SASS: 12.3): the ring costs about 15 instructions a
 * warp a row (the wait, the refill, the shared load) where the register loads cost about 4, so
 * about 13.2 a pixel in SASS, 14.6 with bulk_r48's halo (x 32/30 x 50/48) and 14.3 with
 * bulk_wave's (~138-row strips at 16384^2): 64% of the H100's 22.4 at memcpy speed, 90% of the
 * H200's 15.9. */
#include "rolling.cuh"
#include "gl_bulk.cuh"

#define BULK_RING 6              /* ring slots: rows in flight a warp (a multiple of 3, the window's period) */
#define BULK_ROW_BYTES (32 * 16) /* one row of a warp: 32 lanes x 16 pixels */
/* __launch_bounds__' minimum on sm_90: <= 64 registers, the 32 blocks an SM holds; the plain path
 * below sm_90 (emulated 16-bit min / max, the warp's own copies) is left unbounded (no spills) */
#define BULK_BLOCKS_PER_SM (GL_BULK_ASYNC ? 32 : 1)
static_assert(BK_ROWS % BULK_RING == 0, "the ring's loop runs in steps of BULK_RING rows");

typedef struct {
    uint4 (*slot)[32];    /* BULK_RING slots of 32 lanes x 16 bytes */
    uint64_t *bar;        /* one mbarrier a slot */
    const uint8_t *in;    /* the picture at the first byte copied (column x0w + skip) */
    int pitch, height, y0, x0w, total; /* input rows y0 - 1 .. y0 + rows: total = rows + 2 */
    unsigned skip, bytes; /* a row's copy: bytes from column x0w + skip into the slot at byte skip */
} bulk_ring;

/* Fill slot s with input row i of the strip: row y0 - 1 + i, clamped into the picture (edge warps;
 * the others' rows are all inside). */
static __device__ __forceinline__ void ring_fill(const bulk_ring &g, int s, int i, const bool edge)
{
    const int y = edge ? min(max(g.y0 - 1 + i, 0), g.height - 1) : g.y0 - 1 + i;
    gl_bulk_fill((uint8_t *)g.slot[s] + g.skip, g.in + (size_t)y * g.pitch, g.bytes, &g.bar[s]);
}

/* Input row i = m + it of the strip (m: compile time, it: a multiple of BULK_RING): wait for its
 * slot (the slot's fill number i / BULK_RING; lap = it / BULK_RING mod 2), read this lane's 16
 * bytes, refill the slot with row i + BULK_RING, then the stage as in rolling_interior. An edge
 * warp clamps the columns and writes only output rows inside the picture. */
static __device__ __forceinline__ void ring_row(const bk_args &a, const bulk_ring &g, const int m, int it, unsigned lap,
                                                prow (&w)[3][3], int writer, const bool edge)
{
    const int s = m % BULK_RING;
    gl_bulk_wait(&g.bar[s], lap ^ (unsigned)(m >= BULK_RING));
    const uint4 v = g.slot[s][threadIdx.x];
    const rawrow raw = {{v.x, v.y, v.z, v.w}};
    if (m + it + BULK_RING < g.total) ring_fill(g, s, m + it + BULK_RING, edge);
    if (edge && g.y0 + m + it - 2 >= a.height) writer = 0; /* the last strip, past the bottom row */
    interior_stages(a, BK_MEDIAN_DPX, 1, 8, false, m, it, w, unpack(raw, 8, BK_MEDIAN_DPX), g.x0w + 16 * threadIdx.x,
                    g.x0w, g.y0, edge, writer);
}

/* A warp's strip: the ring filled with its first BULK_RING rows, the window with two, then one
 * output row an input row. */
static __device__ __forceinline__ void ring_walk(const bk_args &a, const bulk_ring &g, int rows, int writer, const bool edge)
{
#pragma unroll
    for (int i = 0; i < BULK_RING; i++)
        if (i < g.total) ring_fill(g, i, i, edge);
    prow w[3][3];
    ring_row(a, g, 0, 0, 0, w, writer, edge);
    ring_row(a, g, 1, 0, 0, w, writer, edge);
    unsigned lap = 0;
#pragma unroll 1
    for (int it = 0; it < rows; it += BULK_RING, lap ^= 1)
#pragma unroll
        for (int u = 0; u < BULK_RING; u++) ring_row(a, g, 2 + u, it, lap, w, writer, edge);
}

/* Lesson (bulk_r48, bulk_wave): one warp a block, strips of `rows` rows (a multiple of
 * BULK_RING), the warps of rolling_body's grid. The copy of a row covers the warp's 512 columns
 * from x0w, cut to [0, the width rounded up to 16) (inside the pitch); the slot bytes left out
 * hold zeros and are clamped over. */
static __global__ void __launch_bounds__(BK_THREADS, BULK_BLOCKS_PER_SM) median_kernel_bulk(bk_args a, int rows)
{
    __shared__ uint4 slots[BULK_RING][32];
    __shared__ uint64_t bars[BULK_RING];
    const int lane = threadIdx.x, x0w = blockIdx.x * (OUT_LANES * 16) - 16, y0 = blockIdx.y * rows;
    const int end = min(x0w + BULK_ROW_BYTES, (a.width + 15) / 16 * 16), skip = max(-x0w, 0);
    const bool edge = x0w < 0 || x0w + BULK_ROW_BYTES > a.width || y0 == 0 || y0 + rows >= a.height;
    const int writer = lane >= 1 && lane <= OUT_LANES && x0w + 16 * lane < a.width ? 3 : 0;
#pragma unroll
    for (int s = 0; s < BULK_RING; s++) slots[s][lane] = make_uint4(0, 0, 0, 0);
    gl_bulk_init(bars, BULK_RING); /* after the zeros: it orders them before the copies */
    const bulk_ring g = {slots, bars, a.in + (x0w + skip), a.pitch, a.height, y0, x0w, rows + 2, (unsigned)skip,
                         (unsigned)(end - x0w - skip)};
    if (edge) ring_walk(a, g, rows, writer, true);
    else ring_walk(a, g, rows, writer, false);
}

/* bulk_wave's strips: one wave of resident warps (gl_wave_strip_rows), each a multiple of BULK_RING rows. */
static int wave_rows(const bk_args *a)
{
    static int resident = 0;
    return gl_wave_strip_rows((const void *)median_kernel_bulk, &resident, (a->width + OUT_LANES * 16 - 1) / (OUT_LANES * 16),
                              a->height, BULK_RING);
}

void launch_median_bulk(const bk_args *a, median_rung r, cudaStream_t st)
{
    static int carveout = 0; /* the ring's shared memory for 32 blocks an SM: the most shared memory */
    if (!carveout) {
        GL_CHECK(cudaFuncSetAttribute(median_kernel_bulk, cudaFuncAttributePreferredSharedMemoryCarveout,
                                      cudaSharedmemCarveoutMaxShared));
        carveout = 1;
    }
    const int rows = r == MED_BULK_WAVE ? wave_rows(a) : BK_ROWS;
    median_kernel_bulk<<<rolling_grid(a, 8, rows), BK_THREADS, 0, st>>>(*a, rows);
    GL_CHECK_LAUNCH();
}
