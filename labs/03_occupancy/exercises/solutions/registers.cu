/* Lab 03 - Your turn, the instructors' solution (built with -Dexercise-solutions=true in place of
 * exercises/registers.cu; ANSWERS.md discusses it).
 *
 * Lesson: registers and occupancy trade against ILP. The 128 chains are independent, so they can
 * run as four groups of 32, each summed into s in order (the same additions in the same order:
 * bit for bit the starter's result). Only 32 values are live, and __launch_bounds__(256, 4)
 * asks the compiler for at least 4 blocks of 256 per SM (<= 64 registers); ptxas gave 48 on sm_90,
 * so 5 blocks fit: 62.5% occupancy instead of the starter's 12.5% (136 registers, one block),
 * without spills (two halves of 64 would need 64 registers for the values alone, and spill). Each warp still has 32 independent FMAs per step - far more than the FMA latency needs
 * - so the GFLOP/s should hardly move: occupancy matters when nothing else hides latency
 * (ANSWERS.md). */
#include "exercise.cuh"

#define THREADS 256
#define BLOCKS_PER_SM 4
#define GROUP 32 /* accumulators live at once */

static __device__ __forceinline__ int yours_regs_body(work_args a)
{
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < a.n; i += gridDim.x * blockDim.x) {
        float s = 0.0f, x = a.x[i];
        for (int g = 0; g < EXERCISE_ACCUMULATORS / GROUP; g++) {
            float v[GROUP];
#pragma unroll
            for (int j = 0; j < GROUP; j++) v[j] = x + (float)(g * GROUP + j);
            for (uint32_t k = 0; k < a.iters; k++) {
#pragma unroll
                for (int j = 0; j < GROUP; j++) v[j] = fmaf(v[j], FMA_A, FMA_B);
            }
#pragma unroll
            for (int j = 0; j < GROUP; j++) s += v[j];
        }
        a.y[i] = s;
    }
    return 1;
}

YOURS_KERNEL(yours_regs, __launch_bounds__(THREADS, BLOCKS_PER_SM))

extern "C" launch_shape yours_regs_shape(uint32_t n, int sms)
{
    (void)sms;
    return (launch_shape){(n + THREADS - 1) / THREADS, THREADS, 0};
}
