/* Lab 02 - Your turn, the instructors' solution (built with -Dexercise-solutions=true in place of
 * exercises/paths.cu; ANSWERS.md discusses it).
 *
 * Lesson: divergence is decided by which thread gets which work, not by the work. A block of 32
 * warps covers 1024 elements; warp w takes the 32 elements whose position in their warp-sized
 * group is w (element base + lane * 32 + w), so all its lanes share one path and run it with
 * all 32 lanes: 100% warp execution efficiency, the time of paths_warps. The price: a warp's 32
 * loads and stores are 128 bytes apart (32 sectors a request) - negligible beside 512 dependent
 * FMAs per element, and avoidable with a shared-memory transpose (ANSWERS.md). */
#include "exercise.cuh"

#define GROUP 1024 /* elements per block: 32 warps x 32 lanes */

static __device__ __forceinline__ int yours_paths_body(paths_args a, gl_lane_counts *c)
{
    uint32_t lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    uint32_t i = blockIdx.x * GROUP + lane * 32u + warp; /* i % 32 == warp: one path per warp */
    if (i >= a.n) return 0;
    uint32_t path = (warp * a.k) >> 5;
    a.y[i] = run_path(path, a.x[i], c);
    return 1;
}

YOURS_KERNEL(yours_paths, paths_args)

extern "C" void launch_yours_paths(const paths_args *a, cudaStream_t s)
{
    YOURS_LAUNCH(yours_paths, (a->n + GROUP - 1) / GROUP, GROUP, 0, s, *a);
}
