/* Lab 02 - Your turn: make the warps uniform (edit this file).
 *
 * TASK  y[i] = run_path(p, x[i], c) for every i < n, where element i's path is fixed by the data:
 *       p = (i % 32) * k / 32 with k = 32 - the lab's paths_lanes rung at k = 32, where the 32
 *       lanes of every warp take 32 different paths and the warp runs them one after another (3%
 *       of its lanes busy). Which THREAD computes which element is yours to choose: give each
 *       warp elements of one path, so that it runs one path with all 32 lanes.
 * RULES Compute every path with run_path(path, x, c) (paths.cuh; it marks each FMA, so the lab
 *       measures your warp execution efficiency) and write each y[i] once. a.k is 32; n is a
 *       multiple of 1024. Any launch shape you like.
 * RUN   meson compile -C build && build/labs/02_divergence/divergence --only exercises
 *       (the lab poisons y, checks it, measures the efficiency, times your kernel and ranks it
 *       among paths_lanes and paths_warps at k = 32). Hints: README.md, "Your turn". */
#include "exercise.cuh"

/* Starter: thread i computes element i (the paths_lanes rung): 32 paths in every warp. */
static __device__ __forceinline__ int yours_paths_body(paths_args a, gl_lane_counts *c)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.n) return 0;
    uint32_t path = ((i & 31u) * a.k) >> 5;
    a.y[i] = run_path(path, a.x[i], c);
    return 1;
}

YOURS_KERNEL(yours_paths, paths_args)

/* The launch shape: yours to change with the body. */
extern "C" void launch_yours_paths(const paths_args *a, cudaStream_t s)
{
    unsigned threads = 256, blocks = (a->n + threads - 1) / threads;
    YOURS_LAUNCH(yours_paths, blocks, threads, 0, s, *a);
}
