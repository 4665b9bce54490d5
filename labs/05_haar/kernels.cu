/* kernels.cu - Lab 05: the GPU ladder of the 2D Haar transform, forward and inverse.
 *
 * The lesson: a multi-level transform is a sequence of memory passes. The rungs compute exactly
 * the same float operations (so they give the same bits); what changes is how many times the
 * image travels through DRAM and how each pass touches it:
 *   seed         per level, a row pass (one block per row) and a column pass (one block per
 *                column: a warp reads 32 rows of one column, 32 sectors per request);
 *   coalesced    the same passes, the column pass with a warp across 32 consecutive columns;
 *   fused_level  one kernel per level, each thread a 2 x 2 block: rows and columns at once;
 *   single_pass  every 2^L x 2^L tile transforms on its own (Haar pairs never overlap): one read
 *                and one write of the image for all L levels.
 * Every body takes a gl_load_counts pointer: NULL in the timed kernel, a counter in its twin. */
#include <stdlib.h>
#include <string.h>
#include <cub/cub.cuh>
#include "gl_check.h"
#include "gl_metrics.cuh"
#include "haar_gpu.h"

#define KERNEL_PAIR(name, args) GL_KERNEL_PAIR(name, args, gl_load_counts, gl_count_flush)
#define MAX_THREADS 1024
#define SP_TILE_FLOATS 16384 /* single pass: the strip one block takes (its quarter, 16 KB, in shared memory) */
#define SP_THREADS 256
#define SP_WARPS (SP_THREADS / 32)
#define FL_THREADS 256

/* ---------------------------------------------------------------- the arithmetic, once */

/* Forward pair: (a, b) -> low (a + b) s, high (a - b) s; inverse: (low, high) -> (low + high) si,
 * (low - high) si with si = 1 (average) or 1/sqrt(2) (orthonormal). The _rn intrinsics are never
 * contracted into an FMA: with plain operators the compiler fuses (a + b) s + (c + d) s into one
 * FMA where both products sit in registers (the fused rungs) but not where one came from memory
 * (the seed), and the rungs would differ in the last bit. */
static __device__ __forceinline__ void fwd_pair(float a, float b, float s, float *lo, float *hi)
{
    *lo = __fmul_rn(__fadd_rn(a, b), s);
    *hi = __fmul_rn(__fsub_rn(a, b), s);
}

static __device__ __forceinline__ void inv_pair(float lo, float hi, float si, float *a, float *b)
{
    *a = __fmul_rn(__fadd_rn(lo, hi), si);
    *b = __fmul_rn(__fsub_rn(lo, hi), si);
}

/* A 2 x 2 block [[a, b], [c, d]]: rows first, then columns (the order of the reference). q[0] LL,
 * q[1] HL (detail along x, top right), q[2] LH (detail along y, bottom left), q[3] HH. */
static __device__ __forceinline__ void fwd_2x2(float a, float b, float c, float d, float s, float q[4])
{
    float l0, h0, l1, h1;
    fwd_pair(a, b, s, &l0, &h0);
    fwd_pair(c, d, s, &l1, &h1);
    fwd_pair(l0, l1, s, &q[0], &q[2]);
    fwd_pair(h0, h1, s, &q[1], &q[3]);
}

/* The inverse: columns first, then rows. p = {a, b, c, d}. */
static __device__ __forceinline__ void inv_2x2(const float q[4], float si, float p[4])
{
    float l0, l1, h0, h1;
    inv_pair(q[0], q[2], si, &l0, &l1);
    inv_pair(q[1], q[3], si, &h0, &h1);
    inv_pair(l0, h0, si, &p[0], &p[1]);
    inv_pair(l1, h1, si, &p[2], &p[3]);
}

static float fwd_scale(haar_convention c) { return c == HAAR_AVERAGE ? 0.5f : 0.70710678118654752f; }
static float inv_scale(haar_convention c) { return c == HAAR_AVERAGE ? 1.0f : 0.70710678118654752f; }

static __device__ __forceinline__ float load(const float *p, gl_load_counts *c)
{
    gl_count_load(c, p);
    return *p;
}

/* ---------------------------------------------------------------- rung 1: the seed */

/* One pass along a line of n values `stride` floats apart (a row: 1, a column: the pitch), one
 * block per line as the seed launches it. The line is read into shared memory first, so that the
 * block may write its lows and highs over it (src == dst) or elsewhere. A column pass with
 * stride = pitch makes every warp-wide load touch 32 rows: 32 sectors for 128 useful bytes. */
typedef struct {
    const float *src;    /* line i starts at src + i * line_step (and at dst + i * dst_line_step) */
    const float *lo_src; /* inverse: the lows (first half) of lines < split come from here */
    float *dst;
    size_t line_step, dst_line_step, stride;
    int n, split;        /* values per line; lines whose lows come from lo_src */
    float s;
    int inverse;
    unsigned long long *counts;
} line_args;

static __device__ int seed_line_body(line_args a, gl_load_counts *c)
{
    extern __shared__ float line[];
    size_t base = (size_t)blockIdx.x * a.line_step, dbase = (size_t)blockIdx.x * a.dst_line_step;
    const float *lo_src = (int)blockIdx.x < a.split ? a.lo_src : a.src;
    int h = a.n / 2;
    for (int i = threadIdx.x; i < a.n; i += blockDim.x) {
        /* inverse: the first half of the line holds lows (from lo_src), the second highs (src) */
        const float *from = a.inverse && i < h ? lo_src : a.src;
        line[i] = load(from + base + (size_t)i * a.stride, c);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < h; i += blockDim.x) {
        float x, y;
        if (!a.inverse) {
            fwd_pair(line[2 * i], line[2 * i + 1], a.s, &x, &y);
            a.dst[dbase + (size_t)i * a.stride] = x;
            a.dst[dbase + (size_t)(h + i) * a.stride] = y;
        } else {
            inv_pair(line[i], line[h + i], a.s, &x, &y);
            a.dst[dbase + (size_t)(2 * i) * a.stride] = x;
            a.dst[dbase + (size_t)(2 * i + 1) * a.stride] = y;
        }
    }
    return 1;
}
KERNEL_PAIR(seed_line, line_args)

/* ---------------------------------------------------------------- rung 2: coalesced columns */

/* The column pass with threadIdx.x along x: a warp reads 32 consecutive floats of two rows (the
 * pair) and writes 32 consecutive lows and 32 highs: 4 sectors per request, as Lab 01's copy.
 * Out of place (src != dst), so no block waits for another. */
typedef struct {
    const float *src, *src_lo; /* inverse: lows of columns < split_x come from src_lo */
    float *dst;
    size_t src_pitch, dst_pitch;
    int w, h, split_x;
    float s;
    int inverse;
    unsigned long long *counts;
} column_args;

static __device__ int column_body(column_args a, gl_load_counts *c)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y * blockDim.y + threadIdx.y;
    int half = a.h / 2;
    if (x >= a.w || i >= half) return 0;
    float p, q;
    if (!a.inverse) {
        float u = load(a.src + (size_t)(2 * i) * a.src_pitch + x, c);
        float v = load(a.src + (size_t)(2 * i + 1) * a.src_pitch + x, c);
        fwd_pair(u, v, a.s, &p, &q);
        a.dst[(size_t)i * a.dst_pitch + x] = p;
        a.dst[(size_t)(half + i) * a.dst_pitch + x] = q;
    } else {
        const float *lo = x < a.split_x ? a.src_lo : a.src;
        float u = load(lo + (size_t)i * a.src_pitch + x, c);
        float v = load(a.src + (size_t)(half + i) * a.src_pitch + x, c);
        inv_pair(u, v, a.s, &p, &q);
        a.dst[(size_t)(2 * i) * a.dst_pitch + x] = p;
        a.dst[(size_t)(2 * i + 1) * a.dst_pitch + x] = q;
    }
    return 1;
}
KERNEL_PAIR(column, column_args)

/* ---------------------------------------------------------------- rung 3: one kernel per level */

/* Each thread takes one 2 x 2 block: two float2 loads (a warp reads 256 contiguous bytes of each
 * row), rows and columns computed in registers, the four results written to their sub-bands.
 * One read and one write of the level's area, instead of two of each. The approximation goes to
 * a compact buffer (`ll`), read by the next level. */
typedef struct {
    const float *src, *ll_src; /* forward: src; inverse: details from src, LL from ll_src */
    float *dst, *ll_dst;       /* forward: details to dst, LL to ll_dst; inverse: pixels to dst */
    size_t src_pitch, ll_src_pitch, dst_pitch, ll_dst_pitch;
    int w, h; /* the level's area */
    float s;
    unsigned long long *counts;
} level_args;

static __device__ int level_fwd_body(level_args a, gl_load_counts *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    int hw = a.w / 2, hh = a.h / 2;
    if (j >= hw) return 0;
    const float2 *top = (const float2 *)(a.src + (size_t)(2 * i) * a.src_pitch) + j;
    const float2 *bottom = (const float2 *)(a.src + (size_t)(2 * i + 1) * a.src_pitch) + j;
    gl_count_load(c, top);
    gl_count_load(c, bottom);
    float2 t = *top, b = *bottom;
    float q[4];
    fwd_2x2(t.x, t.y, b.x, b.y, a.s, q);
    a.ll_dst[(size_t)i * a.ll_dst_pitch + j] = q[0];
    a.dst[(size_t)i * a.dst_pitch + hw + j] = q[1];
    a.dst[(size_t)(hh + i) * a.dst_pitch + j] = q[2];
    a.dst[(size_t)(hh + i) * a.dst_pitch + hw + j] = q[3];
    return 1;
}
KERNEL_PAIR(level_fwd, level_args)

static __device__ int level_inv_body(level_args a, gl_load_counts *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    int hw = a.w / 2, hh = a.h / 2;
    if (j >= hw) return 0;
    float q[4], p[4];
    q[0] = load(a.ll_src + (size_t)i * a.ll_src_pitch + j, c);
    q[1] = load(a.src + (size_t)i * a.src_pitch + hw + j, c);
    q[2] = load(a.src + (size_t)(hh + i) * a.src_pitch + j, c);
    q[3] = load(a.src + (size_t)(hh + i) * a.src_pitch + hw + j, c);
    inv_2x2(q, a.s, p);
    *((float2 *)(a.dst + (size_t)(2 * i) * a.dst_pitch) + j) = make_float2(p[0], p[1]);
    *((float2 *)(a.dst + (size_t)(2 * i + 1) * a.dst_pitch) + j) = make_float2(p[2], p[3]);
    return 1;
}
KERNEL_PAIR(level_inv, level_args)

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

static __device__ __forceinline__ void bands_load(const tile_args *a, float *t, int tws, int th, int tw, int y0,
                                                  int x0, gl_load_counts *c)
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
            for (int c0 = LANE; c0 < m.cols; c0 += 32 * LOAD_BATCH) {
                float v[LOAD_BATCH];
#pragma unroll
                for (int b = 0; b < LOAD_BATCH; b++) {
                    int col = c0 + 32 * b;
                    if (col >= m.cols) break;
                    gl_count_load(c, src + col);
                    v[b] = __ldg(src + col);
                }
#pragma unroll
                for (int b = 0; b < LOAD_BATCH; b++) {
                    int col = c0 + 32 * b;
                    if (col >= m.cols) break;
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
    if (a.levels > 1) {
        bands_load(&a, t, tws, th, tw, y0, x0, c);
        __syncthreads();
        for (int k = a.levels; k >= 2; k--) {
            tile_level(t, tws, th / 2, tw / 2, 1 << (k - 2), a.s, 1);
            __syncthreads();
        }
    }
    level1(&a, y0, x0, th, tw, t, tws, 1, c);
    return 1;
}
KERNEL_PAIR(tile_inv, tile_args)

/* ---------------------------------------------------------------- host side: the launches */

/* Raise a kernel's dynamic shared memory limit once, to what the device allows. */
static cudaError_t allow_shared(const void *kernel, size_t bytes)
{
    if (bytes <= 48 * 1024) return cudaSuccess;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
}

#define LAUNCH(kernel, grid, block, smem, stream, args, counted)                                    \
    do {                                                                                          \
        if (counted) count_##kernel<<<grid, block, smem, stream>>>(args);                         \
        else kernel<<<grid, block, smem, stream>>>(args);                                         \
    } while (0)

/* A seed pass over `lines` lines of n values. */
static cudaError_t seed_pass(line_args a, int lines, cudaStream_t s)
{
    size_t smem = (size_t)a.n * sizeof(float);
    cudaError_t e = allow_shared(a.counts ? (const void *)count_seed_line : (const void *)seed_line, smem);
    if (e != cudaSuccess) return e;
    int threads = a.n / 2 < MAX_THREADS ? a.n / 2 : MAX_THREADS;
    LAUNCH(seed_line, lines, threads, smem, s, a, a.counts != NULL);
    return cudaGetLastError();
}

/* A row pass: `src` rows src_pitch apart into `dst` rows dst_pitch apart. */
static line_args row_pass(const float *src, float *dst, size_t src_pitch, size_t dst_pitch, int w, float s, int inverse,
                          unsigned long long *counts)
{
    line_args a = {src, src, dst, src_pitch, dst_pitch, 1, w, 0, s, inverse, counts};
    return a;
}

static cudaError_t coalesced_columns(column_args a, cudaStream_t s)
{
    dim3 block(32, 8), grid((a.w + 31) / 32, (a.h / 2 + 7) / 8);
    LAUNCH(column, grid, block, 0, s, a, a.counts != NULL);
    return cudaGetLastError();
}

/* Rungs 1 and 2, forward: per level k a row pass and a column pass on the top-left w_k x h_k.
 * The seed works in place in `out` after a first row pass from `in`; the coalesced rung's row pass
 * writes `scratch` and its column pass reads it back into `out`. */
static cudaError_t passes_forward(int coalesced, const float *in, float *out, int w, int h, size_t pitch, int levels,
                                  float s, float *scratch, unsigned long long *counts, cudaStream_t st)
{
    cudaError_t e = cudaSuccess;
    for (int k = 0; k < levels && e == cudaSuccess; k++) {
        int wk = w >> k, hk = h >> k;
        const float *src = k == 0 ? in : out;
        if (!coalesced) {
            e = seed_pass(row_pass(src, out, pitch, pitch, wk, s, 0, counts), hk, st);
            if (e != cudaSuccess) break;
            line_args col = {out, out, out, 1, 1, pitch, hk, 0, s, 0, counts}; /* line = column x */
            e = seed_pass(col, wk, st);
        } else {
            e = seed_pass(row_pass(src, scratch, pitch, (size_t)w, wk, s, 0, counts), hk, st);
            if (e != cudaSuccess) break;
            column_args col = {scratch, scratch, out, (size_t)w, pitch, wk, hk, 0, s, 0, counts};
            e = coalesced_columns(col, st);
        }
    }
    return e;
}

/* Rungs 1 and 2, inverse: from the coarsest level down, a column pass then a row pass. At level k
 * the lows of the left half of the columns (the approximation) come from `in` at the coarsest
 * level and from `out` (written by the level below) after it; everything else from `in`. */
static cudaError_t passes_inverse(int coalesced, const float *in, float *out, int w, int h, size_t pitch, int levels,
                                  float si, float *scratch, unsigned long long *counts, cudaStream_t st)
{
    cudaError_t e = cudaSuccess;
    for (int k = levels - 1; k >= 0 && e == cudaSuccess; k--) {
        int wk = w >> k, hk = h >> k;
        const float *ll = k == levels - 1 ? in : out;
        float *mid = coalesced ? scratch : out;
        if (!coalesced) {
            line_args col = {in, ll, out, 1, 1, pitch, hk, wk / 2, si, 1, counts};
            e = seed_pass(col, wk, st);
        } else {
            column_args col = {in, ll, scratch, pitch, (size_t)w, wk, hk, wk / 2, si, 1, counts};
            e = coalesced_columns(col, st);
        }
        if (e != cudaSuccess) break;
        e = seed_pass(row_pass(mid, out, coalesced ? (size_t)w : pitch, pitch, wk, si, 1, counts), hk, st);
    }
    return e;
}

/* Rung 3: one launch per level; the approximation ping-pongs between two compact buffers (the
 * first a quarter of the image, the second a sixteenth) and the last one goes to `out`. */
static void level_buffers(float *scratch, int w, int h, float **a, float **b)
{
    *a = scratch;
    *b = scratch + (size_t)(w / 2) * (h / 2);
}

static cudaError_t level_launch(level_args a, int inverse, cudaStream_t st)
{
    dim3 grid((a.w / 2 + FL_THREADS - 1) / FL_THREADS, a.h / 2);
    if (!inverse) LAUNCH(level_fwd, grid, FL_THREADS, 0, st, a, a.counts != NULL);
    else LAUNCH(level_inv, grid, FL_THREADS, 0, st, a, a.counts != NULL);
    return cudaGetLastError();
}

static cudaError_t levels_forward(const float *in, float *out, int w, int h, size_t pitch, int levels, float s,
                                  float *scratch, unsigned long long *counts, cudaStream_t st)
{
    float *buf[2];
    level_buffers(scratch, w, h, &buf[0], &buf[1]);
    const float *src = in;
    size_t src_pitch = pitch;
    cudaError_t e = cudaSuccess;
    for (int k = 0; k < levels && e == cudaSuccess; k++) {
        int last = k == levels - 1;
        float *ll = last ? out : buf[k % 2];
        size_t ll_pitch = last ? pitch : (size_t)(w >> (k + 1));
        level_args a = {src, NULL, out, ll, src_pitch, 0, pitch, ll_pitch, w >> k, h >> k, s, counts};
        e = level_launch(a, 0, st);
        src = ll;
        src_pitch = ll_pitch;
    }
    return e;
}

static cudaError_t levels_inverse(const float *in, float *out, int w, int h, size_t pitch, int levels, float si,
                                  float *scratch, unsigned long long *counts, cudaStream_t st)
{
    float *buf[2];
    level_buffers(scratch, w, h, &buf[0], &buf[1]);
    const float *ll = in;
    size_t ll_pitch = pitch;
    cudaError_t e = cudaSuccess;
    for (int k = levels - 1; k >= 0 && e == cudaSuccess; k--) {
        float *dst = k == 0 ? out : buf[(k + 1) % 2]; /* level k's result is (w >> k) x (h >> k) */
        size_t dst_pitch = k == 0 ? pitch : (size_t)(w >> k);
        level_args a = {in, ll, dst, NULL, pitch, ll_pitch, dst_pitch, 0, w >> k, h >> k, si, counts};
        e = level_launch(a, 1, st);
        ll = dst;
        ll_pitch = dst_pitch;
    }
    return e;
}

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
    if (!inverse) LAUNCH(tile_fwd, grid, SP_THREADS, smem, st, a, a.counts != NULL);
    else LAUNCH(tile_inv, grid, SP_THREADS, smem, st, a, a.counts != NULL);
    return cudaGetLastError();
}

/* Chunk i's approximation goes to compact buffer i % 2 (the last chunk's to `out`). */
static float *chunk_buffer(float *scratch, int w, int h, int i)
{
    size_t first = (size_t)(w >> HAAR_SINGLE_PASS_MAX_LEVELS) * (h >> HAAR_SINGLE_PASS_MAX_LEVELS);
    return i % 2 == 0 ? scratch : scratch + first;
}

static cudaError_t tiles_forward(const float *in, float *out, int w, int h, size_t pitch, int levels, float s,
                                 float *scratch, unsigned long long *counts, cudaStream_t st)
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
        tile_args a = {src, NULL, out, ll, src_pitch, 0, pitch, ll_pitch, wi, hi, l, 0, s, counts};
        e = tile_launch(a, 0, st);
        src = ll;
        src_pitch = ll_pitch;
        shift += l;
    }
    return e;
}

static cudaError_t tiles_inverse(const float *in, float *out, int w, int h, size_t pitch, int levels, float si,
                                 float *scratch, unsigned long long *counts, cudaStream_t st)
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
        tile_args a = {in, ll, dst, NULL, pitch, ll_pitch, dst_pitch, 0, wi, hi, l, 0, si, counts};
        e = tile_launch(a, 1, st);
        ll = dst;
        ll_pitch = dst_pitch;
    }
    return e;
}

/* ---------------------------------------------------------------- the API (haar_gpu.h) */

extern "C" const char *haar_rung_name(haar_rung r)
{
    static const char *names[] = {"seed", "coalesced", "fused_level", "single_pass"};
    return r >= 0 && r < HAAR_RUNG_COUNT ? names[r] : "?";
}

extern "C" size_t haar_gpu_scratch_bytes(haar_rung r, int w, int h, int levels)
{
    size_t quarter = (size_t)(w / 2) * (h / 2);
    switch (r) {
    case HAAR_COALESCED: return (size_t)w * h * sizeof(float); /* the row pass's result, rows w apart */
    case HAAR_FUSED_LEVEL: return (quarter + quarter / 4) * sizeof(float);
    case HAAR_SINGLE_PASS:
        if (levels <= HAAR_SINGLE_PASS_MAX_LEVELS) return 0;
        return ((size_t)(w >> 6) * (h >> 6) + (size_t)(w >> 12) * (h >> 12) + 1) * sizeof(float);
    default: return 0;
    }
}

/* What every rung assumes: haar_check's sizes, an even pitch (8-byte loads), distinct buffers. */
static int shape_ok(const float *in, const float *out, int w, int h, size_t pitch, int levels)
{
    char err[160];
    return in != out && pitch % 2 == 0 && pitch >= (size_t)w && haar_check(w, h, levels, err, sizeof err) == 0;
}

extern "C" cudaError_t haar_gpu_forward(haar_rung r, const float *in, float *out, int w, int h, size_t pitch,
                                        int levels, haar_convention c, void *scratch, unsigned long long *counts,
                                        cudaStream_t st)
{
    if (!shape_ok(in, out, w, h, pitch, levels)) return cudaErrorInvalidValue;
    float s = fwd_scale(c), *tmp = (float *)scratch;
    switch (r) {
    case HAAR_SEED: return passes_forward(0, in, out, w, h, pitch, levels, s, tmp, counts, st);
    case HAAR_COALESCED: return passes_forward(1, in, out, w, h, pitch, levels, s, tmp, counts, st);
    case HAAR_FUSED_LEVEL: return levels_forward(in, out, w, h, pitch, levels, s, tmp, counts, st);
    case HAAR_SINGLE_PASS: return tiles_forward(in, out, w, h, pitch, levels, s, tmp, counts, st);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" cudaError_t haar_gpu_inverse(haar_rung r, const float *in, float *out, int w, int h, size_t pitch,
                                        int levels, haar_convention c, void *scratch, unsigned long long *counts,
                                        cudaStream_t st)
{
    if (!shape_ok(in, out, w, h, pitch, levels)) return cudaErrorInvalidValue;
    float si = inv_scale(c), *tmp = (float *)scratch;
    switch (r) {
    case HAAR_SEED: return passes_inverse(0, in, out, w, h, pitch, levels, si, tmp, counts, st);
    case HAAR_COALESCED: return passes_inverse(1, in, out, w, h, pitch, levels, si, tmp, counts, st);
    case HAAR_FUSED_LEVEL: return levels_inverse(in, out, w, h, pitch, levels, si, tmp, counts, st);
    case HAAR_SINGLE_PASS: return tiles_inverse(in, out, w, h, pitch, levels, si, tmp, counts, st);
    default: return cudaErrorInvalidValue;
    }
}

extern "C" double haar_gpu_tolerance(haar_convention c, int levels, double max_abs)
{
    return c == HAAR_AVERAGE ? 0.0 : 4.0 * levels * 1.1920928955078125e-7 * max_abs;
}

/* ---------------------------------------------------------------- compression (CUB) */

/* Magnitudes as their float bits: for non-negative floats the bit patterns sort like the values. */
static __global__ void magnitude_bits(const float *c, int w, int h, size_t pitch, unsigned *mag)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)w * h) return;
    mag[i] = __float_as_uint(c[(i / w) * pitch + i % w]) & 0x7fffffffu;
}

static __global__ void tie_flags(const unsigned *mag, size_t n, unsigned threshold, unsigned *tie)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) tie[i] = mag[i] == threshold;
}

/* Keep |c| > threshold, and the first `ties` of |c| == threshold in index order; zero the rest. */
static __global__ void apply_threshold(float *c, int w, int h, size_t pitch, const unsigned *mag,
                                       const unsigned *tie_rank, unsigned threshold, size_t ties)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)w * h) return;
    unsigned m = mag[i];
    bool keep = m > threshold || (m == threshold && tie_rank[i] < ties);
    if (!keep) c[(i / w) * pitch + i % w] = 0.0f;
}

/* The first position of `value` in a descending array = how many are strictly larger. */
static __global__ void count_above(const unsigned *sorted, size_t n, unsigned value, unsigned long long *above)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && sorted[i] == value && (i == 0 || sorted[i - 1] > value)) *above = i;
}

#define CUB_TRY(call)                                                                             \
    do {                                                                                          \
        cudaError_t e_ = (call);                                                                  \
        if (e_ != cudaSuccess) { err = e_; goto done; }                                           \
    } while (0)

extern "C" cudaError_t haar_gpu_keep_largest(float *coeffs, int w, int h, size_t pitch, size_t keep,
                                             float *threshold, size_t *above, cudaStream_t st)
{
    size_t n = (size_t)w * h;
    unsigned *mag = NULL, *sorted = NULL, *rank = NULL;
    unsigned long long *d_above = NULL;
    void *temp = NULL;
    size_t temp_sort = 0, temp_scan = 0;
    unsigned t = 0;
    unsigned long long n_above = 0;
    cudaError_t err = cudaSuccess;
    unsigned blocks = (unsigned)((n + 255) / 256);
    if (keep >= n) { /* nothing dropped */
        *threshold = 0.0f;
        *above = n;
        return cudaSuccess;
    }
    CUB_TRY(cudaMalloc(&mag, n * sizeof(unsigned)));
    CUB_TRY(cudaMalloc(&sorted, n * sizeof(unsigned)));
    CUB_TRY(cudaMalloc(&rank, n * sizeof(unsigned)));
    CUB_TRY(cudaMalloc(&d_above, sizeof *d_above));
    CUB_TRY(cub::DeviceRadixSort::SortKeysDescending(NULL, temp_sort, mag, sorted, n, 0, 32, st));
    CUB_TRY(cub::DeviceScan::ExclusiveSum(NULL, temp_scan, rank, rank, n, st));
    CUB_TRY(cudaMalloc(&temp, temp_sort > temp_scan ? temp_sort : temp_scan));
    magnitude_bits<<<blocks, 256, 0, st>>>(coeffs, w, h, pitch, mag);
    CUB_TRY(cudaGetLastError());
    if (keep == 0) {
        t = 0x7f800000u; /* +inf: every finite magnitude is below it */
        n_above = 0;
    } else {
        CUB_TRY(cub::DeviceRadixSort::SortKeysDescending(temp, temp_sort, mag, sorted, n, 0, 32, st));
        CUB_TRY(cudaMemcpyAsync(&t, sorted + keep - 1, sizeof t, cudaMemcpyDeviceToHost, st));
        CUB_TRY(cudaStreamSynchronize(st));
        count_above<<<blocks, 256, 0, st>>>(sorted, n, t, d_above);
        CUB_TRY(cudaGetLastError());
        CUB_TRY(cudaMemcpyAsync(&n_above, d_above, sizeof n_above, cudaMemcpyDeviceToHost, st));
    }
    tie_flags<<<blocks, 256, 0, st>>>(mag, n, t, rank);
    CUB_TRY(cudaGetLastError());
    CUB_TRY(cub::DeviceScan::ExclusiveSum(temp, temp_scan, rank, rank, n, st));
    CUB_TRY(cudaStreamSynchronize(st));
    apply_threshold<<<blocks, 256, 0, st>>>(coeffs, w, h, pitch, mag, rank, t, keep - (size_t)n_above);
    CUB_TRY(cudaGetLastError());
    CUB_TRY(cudaStreamSynchronize(st));
    memcpy(threshold, &t, sizeof t);
    *above = (size_t)n_above;
done:
    cudaFree(mag);
    cudaFree(sorted);
    cudaFree(rank);
    cudaFree(d_above);
    cudaFree(temp);
    return err;
}
