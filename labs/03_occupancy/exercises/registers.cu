/* Lab 03 - Your turn: a register-heavy kernel, its block size and __launch_bounds__ (edit this file).
 *
 * TASK  y[i] = (((0 + v0) + v1) + ... + v127) for every i < n, where vj starts at x[i] + j and
 *       goes through a.iters steps v = fmaf(v, FMA_A, FMA_B) - the lab's registers rung regs_128
 *       (128 accumulators live at once: about 128 registers a thread, 2 blocks of 256 per SM,
 *       25% occupancy). Choose the block size (THREADS) and __launch_bounds__ (BOUNDS), and the
 *       body if you like, for the most GFLOP/s; the lab prints the registers the compiler used,
 *       the occupancy its calculator predicts, the occupancy reached, and ranks your GFLOP/s
 *       among the registers rungs. Then ask: did occupancy decide the speed?
 * RULES The sum in the order above, every step with fmaf (the check is bit for bit); each y[i]
 *       written once; a.n can be any size; blocks a multiple of 32 threads, a 1D grid.
 * RUN   meson compile -C build && build/labs/03_occupancy/occupancy --only exercises
 *       (look for "spills" in the output: local memory is slow). Hints: README.md, "Your turn". */
#include "exercise.cuh"

#define THREADS 256
#define BOUNDS /* e.g. __launch_bounds__(THREADS, 4): at most 65536 / (4 x THREADS) registers */

/* Starter: the regs_128 rung - 128 chains live at once, a grid-stride loop. */
static __device__ __forceinline__ int yours_regs_body(work_args a)
{
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += gridDim.x * blockDim.x) {
        float v[EXERCISE_ACCUMULATORS];
#pragma unroll
        for (int j = 0; j < EXERCISE_ACCUMULATORS; j++) v[j] = a.x[i] + (float)j;
        for (uint32_t k = 0; k < a.iters; k++) {
#pragma unroll
            for (int j = 0; j < EXERCISE_ACCUMULATORS; j++) v[j] = fmaf(v[j], FMA_A, FMA_B);
        }
        float s = 0.0f;
#pragma unroll
        for (int j = 0; j < EXERCISE_ACCUMULATORS; j++) s += v[j];
        a.y[i] = s;
    }
    return 1;
}

YOURS_KERNEL(yours_regs, BOUNDS)

/* The launch shape: one thread per element (the grid-stride loop also allows fewer). */
extern "C" launch_shape yours_regs_shape(uint32_t n, int sms)
{
    (void)sms;
    return (launch_shape){(n + THREADS - 1) / THREADS, THREADS, 0};
}
