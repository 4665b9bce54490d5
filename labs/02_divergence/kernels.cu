/* kernels.cu - Lab 02 kernels. Each lesson kernel is a body with a `gl_lane_counts *c` argument:
 * the timed kernel passes NULL (no counting code survives inlining); its count_ twin passes a
 * counter (gl_metrics.cuh), so the warp execution efficiency describes the same branches.
 * tests/lab02_sass.sh reads the SASS of the timed kernels: the divergent ones must keep real
 * branches (BSSY/BSYNC, BRA), the predicated one must have none. */
#include <cub/device/device_radix_sort.cuh>
#include "divergence.h"
#include "gl_check.h"
#include "gl_metrics.cuh"
#include "paths.cuh"

#define KERNEL_PAIR(name, args_type) GL_KERNEL_PAIR(name, args_type, gl_lane_counts, gl_lane_flush)

static __device__ __forceinline__ uint32_t global_tid(void) { return blockIdx.x * blockDim.x + threadIdx.x; }

/* ---------------- seed: the K40 pair, as the seed writes it ---------------- */

/* Lesson: the operation follows the warp number, (tid / 32) % 4: every lane of a warp takes the
 * same path, so each warp runs one body per iteration with all 32 lanes. */
static __device__ __forceinline__ int warp_no_divergence_body(seed_args a, gl_lane_counts *c)
{
    uint32_t tid = global_tid();
    for (unsigned int i = 0; i < SEED_ITERS; i++) {
        if ((tid / 32) % 4 == 0) {
            gl_count_active(c);
            a.c[tid] = a.a[tid] + a.b[tid];
        } else if ((tid / 32) % 4 == 1) {
            gl_count_active(c);
            a.c[tid] = a.a[tid] - a.b[tid];
        } else if ((tid / 32) % 4 == 2) {
            gl_count_active(c);
            a.c[tid] = a.a[tid] * a.b[tid];
        } else if ((tid / 32) % 4 == 3) {
            gl_count_active(c);
            a.c[tid] = a.a[tid] / a.b[tid];
        }
    }
    return 1;
}

/* Lesson: the operation follows the lane, tid % 4: every warp holds all four paths and runs them
 * one after another, 8 lanes at a time (25% of the lanes active in each body). */
static __device__ __forceinline__ int warp_divergence_body(seed_args a, gl_lane_counts *c)
{
    uint32_t tid = global_tid();
    for (unsigned int i = 0; i < SEED_ITERS; i++) {
        if (tid % 4 == 0) {
            gl_count_active(c);
            a.c[tid] = a.a[tid] + a.b[tid];
        } else if (tid % 4 == 1) {
            gl_count_active(c);
            a.c[tid] = a.a[tid] - a.b[tid];
        } else if (tid % 4 == 2) {
            gl_count_active(c);
            a.c[tid] = a.a[tid] * a.b[tid];
        } else if (tid % 4 == 3) {
            gl_count_active(c);
            a.c[tid] = a.a[tid] / a.b[tid];
        }
    }
    return 1;
}

KERNEL_PAIR(warp_no_divergence, seed_args)
KERNEL_PAIR(warp_divergence, seed_args)

typedef void (*seed_kernel)(seed_args);

extern "C" void launch_seed(seed_kind k, const seed_args *a, uint32_t n, cudaStream_t s)
{
    static const struct { seed_kernel timed, counting; } table[] = {
        /* in seed_kind order */
        {warp_no_divergence, count_warp_no_divergence},
        {warp_divergence, count_warp_divergence},
    };
    unsigned blocks = n / SEED_BLOCK; /* as in the seed: n is a multiple of the block */
    seed_kernel kern = a->counts ? table[k].counting : table[k].timed;
    kern<<<blocks, SEED_BLOCK, 0, s>>>(*a);
    GL_CHECK_LAUNCH();
}

/* ---------------- paths: k-way divergence with compute-heavy bodies ---------------- */

/* Lesson: lanes split into k groups of 32/k consecutive lanes, one path each: the warp runs k
 * bodies in a row with 32/k lanes active, so the time grows as k and efficiency falls as 1/k. */
static __device__ __forceinline__ int paths_by_lanes_body(paths_args a, gl_lane_counts *c)
{
    uint32_t tid = global_tid();
    if (tid >= a.n) return 0;
    uint32_t path = ((tid & 31u) * a.k) >> 5;
    a.y[tid] = run_path(path, a.x[tid], c);
    return 1;
}

/* Lesson: the same k paths, chosen per warp, (tid / 32) % k: each warp runs one body with all
 * lanes; k costs nothing. */
static __device__ __forceinline__ int paths_by_warps_body(paths_args a, gl_lane_counts *c)
{
    uint32_t tid = global_tid();
    if (tid >= a.n) return 0;
    uint32_t path = (tid >> 5) % a.k;
    a.y[tid] = run_path(path, a.x[tid], c);
    return 1;
}

KERNEL_PAIR(paths_by_lanes, paths_args)
KERNEL_PAIR(paths_by_warps, paths_args)

typedef void (*paths_kernel)(paths_args);

extern "C" void launch_paths(paths_kind k, const paths_args *a, cudaStream_t s)
{
    static const struct { paths_kernel timed, counting; } table[] = {
        /* in paths_kind order */
        {paths_by_lanes, count_paths_by_lanes},
        {paths_by_warps, count_paths_by_warps},
    };
    unsigned blocks = (a->n + WORK_BLOCK - 1) / WORK_BLOCK;
    paths_kernel kern = a->counts ? table[k].counting : table[k].timed;
    kern<<<blocks, WORK_BLOCK, 0, s>>>(*a);
    GL_CHECK_LAUNCH();
}

/* ---------------- data: a branch on the data ---------------- */

/* Lesson: the expensive path is taken where the key says so (probability p). On random keys a
 * warp diverges as soon as one of its 32 lanes disagrees, and then pays for the expensive path
 * whatever the count; on sorted keys the same work gathers in whole warps. */
static __device__ __forceinline__ int data_branch_body(data_args a, gl_lane_counts *c)
{
    uint32_t tid = global_tid();
    if (tid >= a.n) return 0;
    uint32_t key = a.keys[tid];
    float x = (float)(key >> 8) * 0x1p-24f;
    int expensive = (key >> 26) < a.p64;
    gl_count_branch(c, expensive);
    if (expensive) {
#pragma unroll 16
        for (int i = 0; i < DATA_ITERS; i++) {
            x = __fmaf_rn(x, 1.00390625f, -0.0078125f);
            gl_count_active(c);
        }
    } else {
        x = __fmaf_rn(x, 0.5f, 0.25f);
        gl_count_active(c);
    }
    a.y[tid] = x;
    return 1;
}

KERNEL_PAIR(data_branch, data_args)

extern "C" void launch_data(const data_args *a, cudaStream_t s)
{
    unsigned blocks = (a->n + WORK_BLOCK - 1) / WORK_BLOCK;
    if (a->counts) count_data_branch<<<blocks, WORK_BLOCK, 0, s>>>(*a);
    else data_branch<<<blocks, WORK_BLOCK, 0, s>>>(*a);
    GL_CHECK_LAUNCH();
}

extern "C" size_t sort_temp_bytes(uint32_t n)
{
    size_t bytes = 0;
    GL_CHECK(cub::DeviceRadixSort::SortKeys(NULL, bytes, (const uint32_t *)NULL, (uint32_t *)NULL, (int)n));
    return bytes;
}

extern "C" void sort_keys(const uint32_t *in, uint32_t *out, uint32_t n, void *temp, size_t temp_bytes,
                          cudaStream_t s)
{
    GL_CHECK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, in, out, (int)n, 0, 32, s));
}

/* ---------------- predication: when a divergent branch costs nothing ---------------- */

/* The short branch: one FMA on either side, with different constants (slopes of magnitude >= 1,
 * so that the output still depends on the input after PRED_ITERS steps). */
#define PRED_ODD(x) __fmaf_rn(x, 1.0009765625f, 0.25f)
#define PRED_EVEN(x) __fmaf_rn(x, -1.0f, 0.5f)

/* Lesson: a branch by warp, (warp + i) & 1, in every iteration: uniform, no divergence. The
 * compiler turns it into a select of the constants and one FMA (no branch in the SASS). */
static __device__ __forceinline__ int pred_uniform_body(pred_args a, gl_lane_counts *c)
{
    uint32_t tid = global_tid();
    if (tid >= a.n) return 0;
    float x = a.x[tid];
    for (uint32_t i = 0; i < PRED_ITERS; i++) {
        gl_count_active(c);
        x = (((tid >> 5) + i) & 1u) ? PRED_ODD(x) : PRED_EVEN(x);
    }
    a.y[tid] = x;
    return 1;
}

/* Lesson: the same branch by lane, (tid + i) & 1: divergent in the source, yet the compiler emits
 * the same branch-free code, every lane active in every instruction, and the time does not move. */
static __device__ __forceinline__ int pred_divergent_body(pred_args a, gl_lane_counts *c)
{
    uint32_t tid = global_tid();
    if (tid >= a.n) return 0;
    float x = a.x[tid];
    for (uint32_t i = 0; i < PRED_ITERS; i++) {
        gl_count_active(c);
        x = ((tid + i) & 1u) ? PRED_ODD(x) : PRED_EVEN(x);
    }
    a.y[tid] = x;
    return 1;
}

/* The two sides as functions the compiler may not inline: a call cannot be predicated. */
static __device__ __noinline__ float pred_odd_call(float x) { return PRED_ODD(x); }
static __device__ __noinline__ float pred_even_call(float x) { return PRED_EVEN(x); }

/* Lesson: the same short branch by warp, kept as a branch (see branch_divergent): uniform, so
 * each warp calls one side per iteration; this is the baseline of branch_divergent. */
static __device__ __forceinline__ int branch_uniform_body(pred_args a, gl_lane_counts *c)
{
    uint32_t tid = global_tid();
    if (tid >= a.n) return 0;
    float x = a.x[tid];
    for (uint32_t i = 0; i < PRED_ITERS; i++) {
        if (((tid >> 5) + i) & 1u) {
            gl_count_active(c);
            x = pred_odd_call(x);
        } else {
            gl_count_active(c);
            x = pred_even_call(x);
        }
    }
    a.y[tid] = x;
    return 1;
}

/* Lesson: the same divergent branch kept as a branch: each side calls its FMA instead of inlining
 * it, so the compiler cannot compute both sides under predicates; the warp runs the two sides one
 * after another, with a reconvergence barrier (BSSY/BSYNC) in every iteration. */
static __device__ __forceinline__ int branch_divergent_body(pred_args a, gl_lane_counts *c)
{
    uint32_t tid = global_tid();
    if (tid >= a.n) return 0;
    float x = a.x[tid];
    for (uint32_t i = 0; i < PRED_ITERS; i++) {
        if ((tid + i) & 1u) {
            gl_count_active(c);
            x = pred_odd_call(x);
        } else {
            gl_count_active(c);
            x = pred_even_call(x);
        }
    }
    a.y[tid] = x;
    return 1;
}

KERNEL_PAIR(pred_uniform, pred_args)
KERNEL_PAIR(pred_divergent, pred_args)
KERNEL_PAIR(branch_uniform, pred_args)
KERNEL_PAIR(branch_divergent, pred_args)

typedef void (*pred_kernel)(pred_args);

extern "C" void launch_pred(pred_kind k, const pred_args *a, cudaStream_t s)
{
    static const struct { pred_kernel timed, counting; } table[] = {
        /* in pred_kind order */
        {pred_uniform, count_pred_uniform},
        {pred_divergent, count_pred_divergent},
        {branch_uniform, count_branch_uniform},
        {branch_divergent, count_branch_divergent},
    };
    unsigned blocks = (a->n + WORK_BLOCK - 1) / WORK_BLOCK;
    pred_kernel kern = a->counts ? table[k].counting : table[k].timed;
    kern<<<blocks, WORK_BLOCK, 0, s>>>(*a);
    GL_CHECK_LAUNCH();
}
