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
 * Every body takes a gl_load_counts pointer: NULL in the timed kernel, a counter in its twin.
 * This file: rungs 1-3, the API (haar_gpu.h) and compression; rung 4 is single_pass.cu, and the
 * arithmetic they share is haar_kernels.cuh. */
#include <stdlib.h>
#include <string.h>
#include <cub/cub.cuh>
#include "haar_kernels.cuh"

#define MAX_THREADS 1024
#define FL_THREADS 256

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

/* ---------------------------------------------------------------- host side: the launches */

/* Raise a kernel's dynamic shared memory limit once, to what the device allows. */
static cudaError_t allow_shared(const void *kernel, size_t bytes)
{
    if (bytes <= 48 * 1024) return cudaSuccess;
    return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
}

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

/* ---------------------------------------------------------------- the API (haar_gpu.h) */

extern "C" const char *haar_rung_name(haar_rung r)
{
    static const char *names[] = {"seed", "coalesced", "fused_level", "single_pass", "single_pass_rows"};
    return r >= 0 && r < HAAR_RUNG_COUNT ? names[r] : "?";
}

extern "C" size_t haar_gpu_scratch_bytes(haar_rung r, int w, int h, int levels)
{
    size_t quarter = (size_t)(w / 2) * (h / 2);
    switch (r) {
    case HAAR_COALESCED: return (size_t)w * h * sizeof(float); /* the row pass's result, rows w apart */
    case HAAR_FUSED_LEVEL: return (quarter + quarter / 4) * sizeof(float);
    case HAAR_SINGLE_PASS:
    case HAAR_SINGLE_PASS_ROWS:
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
    case HAAR_SINGLE_PASS: return tiles_forward(in, out, w, h, pitch, levels, s, tmp, 0, counts, st);
    case HAAR_SINGLE_PASS_ROWS: return tiles_forward(in, out, w, h, pitch, levels, s, tmp, 1, counts, st);
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
    case HAAR_SINGLE_PASS: return tiles_inverse(in, out, w, h, pitch, levels, si, tmp, 0, counts, st);
    case HAAR_SINGLE_PASS_ROWS: return tiles_inverse(in, out, w, h, pitch, levels, si, tmp, 1, counts, st);
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

/* CUB's scratch for keep_largest's sort and scan of n magnitudes: the larger of the two (each call
 * is given it; more than a call needs is allowed). */
static cudaError_t keep_temp_bytes(size_t n, size_t *bytes)
{
    size_t sort = 0, scan = 0;
    cudaError_t e = cub::DeviceRadixSort::SortKeysDescending(NULL, sort, (const unsigned *)NULL, (unsigned *)NULL, n, 0, 32);
    if (e == cudaSuccess) e = cub::DeviceScan::ExclusiveSum(NULL, scan, (unsigned *)NULL, (unsigned *)NULL, n);
    *bytes = sort > scan ? sort : scan;
    return e;
}

/* keep_largest's GPU buffers: magnitudes, sorted magnitudes, ranks, one counter, CUB's scratch. */
static size_t keep_buffer_bytes(size_t n) { return n * sizeof(unsigned); }

extern "C" size_t haar_gpu_keep_largest_bytes(int w, int h)
{
    size_t n = (size_t)w * h, temp = 0;
    if (keep_temp_bytes(n, &temp) != cudaSuccess) temp = 0;
    return 3 * keep_buffer_bytes(n) + sizeof(unsigned long long) + temp;
}

extern "C" cudaError_t haar_gpu_keep_largest(float *coeffs, int w, int h, size_t pitch, size_t keep,
                                             float *threshold, size_t *above, cudaStream_t st)
{
    size_t n = (size_t)w * h;
    unsigned *mag = NULL, *sorted = NULL, *rank = NULL;
    unsigned long long *d_above = NULL;
    void *temp = NULL;
    size_t temp_bytes = 0;
    unsigned t = 0;
    unsigned long long n_above = 0;
    cudaError_t err = cudaSuccess;
    unsigned blocks = (unsigned)((n + 255) / 256);
    if (keep >= n) { /* nothing dropped */
        *threshold = 0.0f;
        *above = n;
        return cudaSuccess;
    }
    CUB_TRY(cudaMalloc(&mag, keep_buffer_bytes(n)));
    CUB_TRY(cudaMalloc(&sorted, keep_buffer_bytes(n)));
    CUB_TRY(cudaMalloc(&rank, keep_buffer_bytes(n)));
    CUB_TRY(cudaMalloc(&d_above, sizeof *d_above));
    CUB_TRY(keep_temp_bytes(n, &temp_bytes));
    CUB_TRY(cudaMalloc(&temp, temp_bytes));
    magnitude_bits<<<blocks, 256, 0, st>>>(coeffs, w, h, pitch, mag);
    CUB_TRY(cudaGetLastError());
    if (keep == 0) {
        t = 0x7f800000u; /* +inf: every finite magnitude is below it */
        n_above = 0;
    } else {
        CUB_TRY(cub::DeviceRadixSort::SortKeysDescending(temp, temp_bytes, mag, sorted, n, 0, 32, st));
        CUB_TRY(cudaMemcpyAsync(&t, sorted + keep - 1, sizeof t, cudaMemcpyDeviceToHost, st));
        CUB_TRY(cudaStreamSynchronize(st));
        count_above<<<blocks, 256, 0, st>>>(sorted, n, t, d_above);
        CUB_TRY(cudaGetLastError());
        CUB_TRY(cudaMemcpyAsync(&n_above, d_above, sizeof n_above, cudaMemcpyDeviceToHost, st));
    }
    tie_flags<<<blocks, 256, 0, st>>>(mag, n, t, rank);
    CUB_TRY(cudaGetLastError());
    CUB_TRY(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, rank, rank, n, st));
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
