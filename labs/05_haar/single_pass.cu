/* single_pass.cu - Lab 05, rung 4 of the GPU ladder (kernels.cu holds rungs 1-3 and the API):
 * every 2^L x 2^L tile transforms on its own (Haar pairs never overlap), so all L levels take one
 * read and one write of the image, the levels past the first in shared memory. The arithmetic is
 * the other rungs' (haar_kernels.cuh), so the bits are theirs. */
#include "haar_kernels.cuh"

#define SP_TILE_FLOATS 16384 /* single pass: the strip one block takes (its quarter, 16 KB, in shared memory) */
#define SP_THREADS 256
#define SP_WARPS (SP_THREADS / 32)

/* ---------------------------------------------------------------- rung 4: all levels, one pass */

/* A block takes a strip of 2^L rows x tw columns (tw a multiple of 2^L). Level 1 (three quarters
 * of the coefficients) goes straight between global memory and registers: each thread reads 2 x 2
 * blocks with 8-byte loads, several in flight, and writes its three details to their sub-bands;
 * only the approximation (a quarter) is kept, in shared memory, for levels 2..L, which run in
 * place there (the coefficients of level k at stride 2^(k-2); each 2 x 2 block of a level is
 * disjoint from the others: one barrier per level). Then every remaining coefficient is written
 * once to its sub-band, a warp writing consecutive addresses of one sub-band row. The inverse
 * runs the same steps backwards. */
typedef struct {
    const float *src, *ll_src; /* forward: the image; inverse: details (src) and LL (ll_src) */
    float *dst, *ll_dst;       /* forward: details (dst) and LL (ll_dst); inverse: the image (dst) */
    size_t src_pitch, ll_src_pitch, dst_pitch, ll_dst_pitch;
    int w, h, levels, tw;
    float s;
    unsigned long long *counts;
    int warp_rows; /* 1: rung 5's kernels */
} tile_args;

/* Where the strip's part of one sub-band lives: `band` 0 is the LL of the last level, else
 * 1 + 3 (k - 1) + {0 HL, 1 LH, 2 HH} for level k (k >= 2 are the ones kept in shared memory).
 * Element (r, col) of that part sits in shared memory at (r * step + oy, col * step + ox) of the
 * level-1 approximation, and in the image at (gy0 + r, gx0 + col). */
typedef struct {
    int rows, cols;     /* the strip's part of the sub-band */
    int step, oy, ox;   /* shared position = (r * step + oy, col * step + ox) */
    int gy0, gx0;       /* image position of element (0, 0) */
    int to_ll;          /* 1: the LL band (ll_src / ll_dst) */
} band_map;

static __device__ __forceinline__ band_map map_band(int band, int levels, int th, int tw, int y0, int x0,
                                                    int w, int h)
{
    band_map m;
    int k = band == 0 ? levels : 1 + (band - 1) / 3, kind = band == 0 ? -1 : (band - 1) % 3;
    m.step = 1 << (k - 1); /* shared memory holds the level-1 approximation, (th/2) x (tw/2) */
    m.rows = th >> k;
    m.cols = tw >> k;
    int half = m.step / 2;
    int dx = kind == 0 || kind == 2, dy = kind == 1 || kind == 2; /* HL: x detail; LH: y; HH: both */
    m.oy = dy ? half : 0;
    m.ox = dx ? half : 0;
    m.gy0 = (y0 >> k) + (dy ? h >> k : 0);
    m.gx0 = (x0 >> k) + (dx ? w >> k : 0);
    m.to_ll = band == 0;
    return m;
}

/* The strip of this block: rows [y0, y0 + th), columns [x0, x0 + tw) (tw cut at the image edge). */
static __device__ __forceinline__ void tile_origin(const tile_args *a, int *y0, int *x0, int *th, int *tw)
{
    *th = 1 << a->levels;
    *y0 = blockIdx.y * *th;
    *x0 = blockIdx.x * a->tw;
    *tw = min(a->tw, a->w - *x0);
}

/* Loops without divisions: warp w takes rows w, w + warps, ...; its lanes take the columns.
 * Reads from global memory go through the read-only path (__ldg) in batches of LOAD_BATCH, all
 * issued before the first is stored to shared memory: several loads in flight per thread. */
#define LOAD_BATCH 4
#define LOAD_BATCH_MAX 8 /* rung 5's bands: a level-2 row of a 16 x 1024 strip (256 floats) in one round trip */
#define WARP_ID (threadIdx.x / 32)
#define LANE (threadIdx.x % 32)
#define WARPS SP_WARPS /* the single pass's kernels run SP_THREADS threads */

/* One level in shared memory: every 2 x 2 block of stride m = 2^(k-1), in place. */
static __device__ __forceinline__ void tile_level(float *t, int tw_full, int th, int tw, int m, float s, int inverse)
{
    int rows = th / (2 * m), cols = tw / (2 * m);
    for (int by = WARP_ID; by < rows; by += WARPS)
        for (int bx = LANE; bx < cols; bx += 32) {
            float *p0 = t + by * 2 * m * tw_full + bx * 2 * m, *p1 = p0 + m * tw_full;
            float q[4], p[4];
            if (!inverse) {
                fwd_2x2(p0[0], p0[m], p1[0], p1[m], s, q);
                p0[0] = q[0], p0[m] = q[1], p1[0] = q[2], p1[m] = q[3];
            } else {
                q[0] = p0[0], q[1] = p0[m], q[2] = p1[0], q[3] = p1[m];
                inv_2x2(q, s, p);
                p0[0] = p[0], p0[m] = p[1], p1[0] = p[2], p1[m] = p[3];
            }
        }
}

/* The sub-bands of levels 2..L and the last approximation between shared memory (stride m.step)
 * and global memory. The rows of all these bands are dealt out to the warps in turn (a band of
 * level k has only 2^(L-k) rows in the strip: one warp per band would leave most warps idle). */
static __device__ __forceinline__ void bands_store(const tile_args *a, const float *t, int tws, int th, int tw,
                                                   int y0, int x0)
{
    int task = 0;
    for (int band = 0; band <= 3 * a->levels; band = band == 0 ? 4 : band + 1) {
        band_map m = map_band(band, a->levels, th, tw, y0, x0, a->w, a->h);
        float *g = m.to_ll ? a->ll_dst : a->dst;
        size_t pitch = m.to_ll ? a->ll_dst_pitch : a->dst_pitch;
        for (int r = 0; r < m.rows; r++, task++) {
            if (task % SP_WARPS != (int)WARP_ID) continue;
            const float *src = t + (r * m.step + m.oy) * tws + m.ox;
            float *dst = g + (size_t)(m.gy0 + r) * pitch + m.gx0;
            for (int col = LANE; col < m.cols; col += 32) dst[col] = src[col * m.step];
        }
    }
}

/* `batch` (at most LOAD_BATCH_MAX, a constant at each call) loads per lane in flight per round trip. */
static __device__ __forceinline__ void bands_load(const tile_args *a, float *t, int tws, int th, int tw, int y0,
                                                  int x0, int batch, gl_load_counts *c)
{
    int task = 0;
    for (int band = 0; band <= 3 * a->levels; band = band == 0 ? 4 : band + 1) {
        band_map m = map_band(band, a->levels, th, tw, y0, x0, a->w, a->h);
        const float *g = m.to_ll ? a->ll_src : a->src;
        size_t pitch = m.to_ll ? a->ll_src_pitch : a->src_pitch;
        for (int r = 0; r < m.rows; r++, task++) {
            if (task % SP_WARPS != (int)WARP_ID) continue;
            float *dst = t + (r * m.step + m.oy) * tws + m.ox;
            const float *src = g + (size_t)(m.gy0 + r) * pitch + m.gx0;
            for (int c0 = LANE; c0 < m.cols; c0 += 32 * batch) {
                float v[LOAD_BATCH_MAX];
#pragma unroll
                for (int b = 0; b < LOAD_BATCH_MAX; b++) {
                    int col = c0 + 32 * b;
                    if (b >= batch || col >= m.cols) break;
                    gl_count_load(c, src + col);
                    v[b] = __ldg(src + col);
                }
#pragma unroll
                for (int b = 0; b < LOAD_BATCH_MAX; b++) {
                    int col = c0 + 32 * b;
                    if (b >= batch || col >= m.cols) break;
                    dst[col * m.step] = v[b];
                }
            }
        }
    }
}

/* Level 1 between global memory and registers. Work comes in tasks of 32 2 x 2 blocks of one
 * block row (a warp's lanes side by side: 256 contiguous bytes of each image row); a warp loads
 * LOAD_BATCH tasks before computing the first. Forward: the image in, the three level-1 details
 * out to global memory, the approximation to shared memory (rows tws apart), or to ll_dst when
 * L = 1. Inverse: the details in from global memory, the approximation from shared memory (or
 * ll_src when L = 1), the image out. */
static __device__ __forceinline__ void level1(const tile_args *a, int y0, int x0, int th, int tw, float *t, int tws,
                                              int inverse, gl_load_counts *c)
{
    int rows = th / 2, cols = tw / 2, per_row = (cols + 31) / 32, tasks = rows * per_row;
    int hw = a->w / 2, hh = a->h / 2, gy = y0 / 2, gx = x0 / 2;
    const float *img = inverse ? NULL : a->src;
    float *out = inverse ? a->dst : NULL;
    size_t ipitch = inverse ? a->dst_pitch : a->src_pitch, cpitch = inverse ? a->src_pitch : a->dst_pitch;
    for (int base = WARP_ID; base < tasks; base += WARPS * LOAD_BATCH) {
        float q[LOAD_BATCH][4];
        int ii[LOAD_BATCH], jj[LOAD_BATCH];
#pragma unroll
        for (int b = 0; b < LOAD_BATCH; b++) { /* every load of the batch first */
            int task = base + WARPS * b;
            ii[b] = task / per_row;
            jj[b] = (task % per_row) * 32 + LANE;
            if (task >= tasks || jj[b] >= cols) continue;
            int i = ii[b], j = jj[b];
            if (!inverse) {
                const float *p0 = img + (size_t)(y0 + 2 * i) * ipitch + x0 + 2 * j, *p1 = p0 + ipitch;
                gl_count_load(c, p0);
                gl_count_load(c, p1);
                float2 u = __ldg((const float2 *)p0), v = __ldg((const float2 *)p1);
                q[b][0] = u.x, q[b][1] = u.y, q[b][2] = v.x, q[b][3] = v.y;
            } else {
                const float *r0 = a->src + (size_t)(gy + i) * cpitch + gx + j, *r1 = r0 + (size_t)hh * cpitch;
                gl_count_load(c, r0 + hw);
                gl_count_load(c, r1);
                gl_count_load(c, r1 + hw);
                if (a->levels == 1) {
                    const float *l = a->ll_src + (size_t)(gy + i) * a->ll_src_pitch + gx + j;
                    gl_count_load(c, l);
                    q[b][0] = __ldg(l);
                } else {
                    q[b][0] = t[i * tws + j];
                }
                q[b][1] = __ldg(r0 + hw), q[b][2] = __ldg(r1), q[b][3] = __ldg(r1 + hw);
            }
        }
#pragma unroll
        for (int b = 0; b < LOAD_BATCH; b++) {
            int task = base + WARPS * b, i = ii[b], j = jj[b];
            if (task >= tasks || j >= cols) continue;
            float r[4];
            if (!inverse) {
                fwd_2x2(q[b][0], q[b][1], q[b][2], q[b][3], a->s, r);
                float *d0 = a->dst + (size_t)(gy + i) * cpitch + gx + j, *d1 = d0 + (size_t)hh * cpitch;
                d0[hw] = r[1], d1[0] = r[2], d1[hw] = r[3];
                if (a->levels == 1) a->ll_dst[(size_t)(gy + i) * a->ll_dst_pitch + gx + j] = r[0];
                else t[i * tws + j] = r[0];
            } else {
                inv_2x2(q[b], a->s, r);
                float *p0 = out + (size_t)(y0 + 2 * i) * ipitch + x0 + 2 * j;
                *(float2 *)p0 = make_float2(r[0], r[1]);
                *(float2 *)(p0 + ipitch) = make_float2(r[2], r[3]);
            }
        }
    }
}

/* The inverse of levels L..2 (L > 1): the bands into shared memory (`batch` loads per lane per
 * round trip), then each level in place; every thread sees the level-1 approximation after it. */
static __device__ __forceinline__ void inv_upper_levels(const tile_args *a, float *t, int tws, int th, int tw, int y0,
                                                        int x0, int batch, gl_load_counts *c)
{
    if (a->levels > 1) {
        bands_load(a, t, tws, th, tw, y0, x0, batch, c);
        __syncthreads();
        for (int k = a->levels; k >= 2; k--) {
            tile_level(t, tws, th / 2, tw / 2, 1 << (k - 2), a->s, 1);
            __syncthreads();
        }
    }
}

static __device__ int tile_fwd_body(tile_args a, gl_load_counts *c)
{
    extern __shared__ float t[];
    int y0, x0, th, tw, tws = a.tw / 2;
    tile_origin(&a, &y0, &x0, &th, &tw);
    level1(&a, y0, x0, th, tw, t, tws, 0, c);
    if (a.levels == 1) return 1;
    __syncthreads();
    for (int k = 2; k <= a.levels; k++) { /* on the level-1 approximation, (th/2) x (tw/2) */
        tile_level(t, tws, th / 2, tw / 2, 1 << (k - 2), a.s, 0);
        __syncthreads();
    }
    bands_store(&a, t, tws, th, tw, y0, x0);
    return 1;
}
KERNEL_PAIR(tile_fwd, tile_args)

static __device__ int tile_inv_body(tile_args a, gl_load_counts *c)
{
    extern __shared__ float t[];
    int y0, x0, th, tw, tws = a.tw / 2;
    tile_origin(&a, &y0, &x0, &th, &tw);
    inv_upper_levels(&a, t, tws, th, tw, y0, x0, LOAD_BATCH, c);
    level1(&a, y0, x0, th, tw, t, tws, 1, c);
    return 1;
}
KERNEL_PAIR(tile_inv, tile_args)

/* ---------------------------------------------------------------- rung 5: a warp per block row */

/* Rung 4's level 1 spends most of its instructions finding its data (a task number divided by the
 * row's task count at run time, then 64-bit addresses per task), and its inverse waits on more
 * round trips to memory than its forward: the bands of levels 2..L first (rows of up to 256 floats
 * in batches of 4 loads per lane), a barrier, then level 1's details. Rung 5 gives each warp whole
 * block rows of level 1 (WARPS / rows warps share a row when the strip has fewer than WARPS rows):
 * the row's addresses once, then ROW_BATCH chunks of 32 2 x 2 blocks at constant offsets from
 * them. Its inverse issues the first chunk's details before the bands (they arrive while the
 * levels run in shared memory) and loads the bands LOAD_BATCH_MAX per lane at a time. Same
 * arithmetic, same bits. */
#define ROW_BATCH 4
/* __launch_bounds__(SP_THREADS, ROWS_MIN_BLOCKS): at most 65536 / (5 x 256) -> 48 registers, so 5
 * blocks per SM, where rung 4's inverse runs 4 (52 registers); 6 blocks (40 registers) spilled */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 750
#define ROWS_MIN_BLOCKS 4 /* sm_75: 1024 threads per SM */
#else
#define ROWS_MIN_BLOCKS 5
#endif
#define ROWS_BOUNDS SP_THREADS, ROWS_MIN_BLOCKS

typedef struct { /* one warp's share of level 1: block rows i0, i0 + istep, ...; columns j0, j0 + jstep, ... */
    int i0, istep, j0, jstep;
} row_share;

static __device__ __forceinline__ row_share share_rows(int levels)
{
    static_assert(WARPS == 8, "share_rows: log2(WARPS) = 3");
    int lg = 3 - min(levels - 1, 3); /* log2 of the warps per row: a strip has 2^(L-1) block rows */
    int part = (int)WARP_ID & ((1 << lg) - 1);
    row_share s = {(int)WARP_ID >> lg, WARPS >> lg, part * 32 * ROW_BATCH + (int)LANE, (32 * ROW_BATCH) << lg};
    return s;
}

static __device__ __forceinline__ void rows_fwd(const tile_args *a, int y0, int x0, int th, int tw, float *t, int tws,
                                                gl_load_counts *c)
{
    int rows = th / 2, cols = tw / 2, hw = a->w / 2, hh = a->h / 2;
    row_share s = share_rows(a->levels);
    for (int i = s.i0; i < rows; i += s.istep) {
        const float *p0 = a->src + (size_t)(y0 + 2 * i) * a->src_pitch + x0, *p1 = p0 + a->src_pitch;
        float *d0 = a->dst + (size_t)(y0 / 2 + i) * a->dst_pitch + x0 / 2, *d1 = d0 + (size_t)hh * a->dst_pitch;
        float *ll = a->levels == 1 ? a->ll_dst + (size_t)(y0 / 2 + i) * a->ll_dst_pitch + x0 / 2 : NULL;
        for (int j0 = s.j0; j0 < cols; j0 += s.jstep) {
            float2 u[ROW_BATCH], v[ROW_BATCH];
#pragma unroll
            for (int b = 0; b < ROW_BATCH; b++) {
                int j = j0 + 32 * b;
                if (j >= cols) break;
                gl_count_load(c, p0 + 2 * j);
                gl_count_load(c, p1 + 2 * j);
                u[b] = __ldg((const float2 *)(p0 + 2 * j)), v[b] = __ldg((const float2 *)(p1 + 2 * j));
            }
#pragma unroll
            for (int b = 0; b < ROW_BATCH; b++) {
                int j = j0 + 32 * b;
                if (j >= cols) break;
                float r[4];
                fwd_2x2(u[b].x, u[b].y, v[b].x, v[b].y, a->s, r);
                d0[hw + j] = r[1], d1[j] = r[2], d1[hw + j] = r[3];
                if (ll) ll[j] = r[0];
                else t[i * tws + j] = r[0];
            }
        }
    }
}

/* The inverse's level 1 in two steps: the three details of one chunk into q, then the rest. */
static __device__ __forceinline__ void rows_inv_load(const tile_args *a, int y0, int x0, int i, int j0, int rows,
                                                     int cols, float q[ROW_BATCH][3], gl_load_counts *c)
{
    if (i >= rows) return;
    const float *r0 = a->src + (size_t)(y0 / 2 + i) * a->src_pitch + x0 / 2, *r1 = r0 + (size_t)(a->h / 2) * a->src_pitch;
    int hw = a->w / 2;
#pragma unroll
    for (int b = 0; b < ROW_BATCH; b++) {
        int j = j0 + 32 * b;
        if (j >= cols) break;
        gl_count_load(c, r0 + hw + j);
        gl_count_load(c, r1 + j);
        gl_count_load(c, r1 + hw + j);
        q[b][0] = __ldg(r0 + hw + j), q[b][1] = __ldg(r1 + j), q[b][2] = __ldg(r1 + hw + j);
    }
}

static __device__ __forceinline__ void rows_inv_store(const tile_args *a, int y0, int x0, int i, int j0, int cols,
                                                      const float *t, int tws, float q[ROW_BATCH][3],
                                                      gl_load_counts *c)
{
    const float *ll = a->levels == 1 ? a->ll_src + (size_t)(y0 / 2 + i) * a->ll_src_pitch + x0 / 2 : NULL;
    float *p0 = a->dst + (size_t)(y0 + 2 * i) * a->dst_pitch + x0, *p1 = p0 + a->dst_pitch;
#pragma unroll
    for (int b = 0; b < ROW_BATCH; b++) {
        int j = j0 + 32 * b;
        if (j >= cols) break;
        if (ll) gl_count_load(c, ll + j);
        float in[4] = {ll ? __ldg(ll + j) : t[i * tws + j], q[b][0], q[b][1], q[b][2]}, r[4];
        inv_2x2(in, a->s, r);
        *(float2 *)(p0 + 2 * j) = make_float2(r[0], r[1]);
        *(float2 *)(p1 + 2 * j) = make_float2(r[2], r[3]);
    }
}

static __device__ int tile_rows_fwd_body(tile_args a, gl_load_counts *c)
{
    extern __shared__ float t[];
    int y0, x0, th, tw, tws = a.tw / 2;
    tile_origin(&a, &y0, &x0, &th, &tw);
    rows_fwd(&a, y0, x0, th, tw, t, tws, c);
    if (a.levels == 1) return 1;
    __syncthreads();
    for (int k = 2; k <= a.levels; k++) {
        tile_level(t, tws, th / 2, tw / 2, 1 << (k - 2), a.s, 0);
        __syncthreads();
    }
    bands_store(&a, t, tws, th, tw, y0, x0);
    return 1;
}
GL_KERNEL_PAIR_BOUNDED(tile_rows_fwd, tile_args, gl_load_counts, gl_count_flush, ROWS_BOUNDS)

static __device__ int tile_rows_inv_body(tile_args a, gl_load_counts *c)
{
    extern __shared__ float t[];
    int y0, x0, th, tw, tws = a.tw / 2;
    tile_origin(&a, &y0, &x0, &th, &tw);
    int rows = th / 2, cols = tw / 2;
    row_share s = share_rows(a.levels);
    float q[ROW_BATCH][3];
    rows_inv_load(&a, y0, x0, s.i0, s.j0, rows, cols, q, c); /* in flight during the levels below */
    inv_upper_levels(&a, t, tws, th, tw, y0, x0, LOAD_BATCH_MAX, c);
    int first = 1;
    for (int i = s.i0; i < rows; i += s.istep)
        for (int j0 = s.j0; j0 < cols; j0 += s.jstep) {
            if (!first) rows_inv_load(&a, y0, x0, i, j0, rows, cols, q, c);
            first = 0;
            rows_inv_store(&a, y0, x0, i, j0, cols, t, tws, q, c);
        }
    return 1;
}
GL_KERNEL_PAIR_BOUNDED(tile_rows_inv, tile_args, gl_load_counts, gl_count_flush, ROWS_BOUNDS)

/* ---------------------------------------------------------------- host side: the launches */

/* Rung 4: the levels in chunks of at most HAAR_SINGLE_PASS_MAX_LEVELS; every chunk after the
 * first works on the previous chunk's approximation (1/4^6 of its area). */
static int chunk_count(int levels)
{
    return (levels + HAAR_SINGLE_PASS_MAX_LEVELS - 1) / HAAR_SINGLE_PASS_MAX_LEVELS;
}

static int chunk_levels(int levels, int i) /* levels of chunk i (0 = the finest) */
{
    int rest = levels - i * HAAR_SINGLE_PASS_MAX_LEVELS;
    return rest < HAAR_SINGLE_PASS_MAX_LEVELS ? rest : HAAR_SINGLE_PASS_MAX_LEVELS;
}

static cudaError_t tile_launch(tile_args a, int inverse, cudaStream_t st)
{
    int th = 1 << a.levels;
    a.tw = SP_TILE_FLOATS / th; /* 16384 floats: measured on an H100 against 8192 and 32768 */
    if (a.tw < th) a.tw = th;
    if (a.tw > a.w) a.tw = a.w;
    size_t smem = a.levels > 1 ? (size_t)(th / 2) * (a.tw / 2) * sizeof(float) : 0; /* the level-1 approximation */
    dim3 grid((a.w + a.tw - 1) / a.tw, a.h / th);
    if (a.warp_rows && !inverse) LAUNCH(tile_rows_fwd, grid, SP_THREADS, smem, st, a, a.counts != NULL);
    else if (a.warp_rows) LAUNCH(tile_rows_inv, grid, SP_THREADS, smem, st, a, a.counts != NULL);
    else if (!inverse) LAUNCH(tile_fwd, grid, SP_THREADS, smem, st, a, a.counts != NULL);
    else LAUNCH(tile_inv, grid, SP_THREADS, smem, st, a, a.counts != NULL);
    return cudaGetLastError();
}

/* Chunk i's approximation goes to compact buffer i % 2 (the last chunk's to `out`). */
static float *chunk_buffer(float *scratch, int w, int h, int i)
{
    size_t first = (size_t)(w >> HAAR_SINGLE_PASS_MAX_LEVELS) * (h >> HAAR_SINGLE_PASS_MAX_LEVELS);
    return i % 2 == 0 ? scratch : scratch + first;
}

cudaError_t tiles_forward(const float *in, float *out, int w, int h, size_t pitch, int levels, float s,
                          float *scratch, int warp_rows, unsigned long long *counts, cudaStream_t st)
{
    int n = chunk_count(levels), shift = 0;
    const float *src = in;
    size_t src_pitch = pitch;
    cudaError_t e = cudaSuccess;
    for (int i = 0; i < n && e == cudaSuccess; i++) {
        int l = chunk_levels(levels, i), last = i == n - 1;
        int wi = w >> shift, hi = h >> shift;
        float *ll = last ? out : chunk_buffer(scratch, w, h, i);
        size_t ll_pitch = last ? pitch : (size_t)(wi >> l);
        tile_args a = {src, NULL, out, ll, src_pitch, 0, pitch, ll_pitch, wi, hi, l, 0, s, counts, warp_rows};
        e = tile_launch(a, 0, st);
        src = ll;
        src_pitch = ll_pitch;
        shift += l;
    }
    return e;
}

cudaError_t tiles_inverse(const float *in, float *out, int w, int h, size_t pitch, int levels, float si,
                          float *scratch, int warp_rows, unsigned long long *counts, cudaStream_t st)
{
    int n = chunk_count(levels);
    const float *ll = in;
    size_t ll_pitch = pitch;
    cudaError_t e = cudaSuccess;
    for (int i = n - 1; i >= 0 && e == cudaSuccess; i--) {
        int l = chunk_levels(levels, i), shift = i * HAAR_SINGLE_PASS_MAX_LEVELS;
        int wi = w >> shift, hi = h >> shift;
        float *dst = i == 0 ? out : chunk_buffer(scratch, w, h, i - 1);
        size_t dst_pitch = i == 0 ? pitch : (size_t)wi;
        tile_args a = {in, ll, dst, NULL, pitch, ll_pitch, dst_pitch, 0, wi, hi, l, 0, si, counts, warp_rows};
        e = tile_launch(a, 1, st);
        ll = dst;
        ll_pitch = dst_pitch;
    }
    return e;
}
