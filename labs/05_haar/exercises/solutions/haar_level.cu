/* Lab 05 - Your turn, the instructors' solution (built with -Dexercise-solutions=true in place of
 * exercises/haar_level.cu; ANSWERS.md discusses it).
 *
 * Lesson: the same 2 x 2 blocks, the warp along x. Lane i takes block bx = base + i: its two rows'
 * pairs are one 8-byte float2 each, so a warp reads 256 contiguous bytes of each row (8 sectors a
 * request, every byte used) and writes 32 consecutive floats into each of the four sub-bands -
 * rows and columns in registers, one read and one write of the image: the fused_level rung. */
#include "exercise.cuh"

static __device__ __forceinline__ int yours_haar_body(haar_level_args a, gl_load_counts *c)
{
    int bx = blockIdx.x * blockDim.x + threadIdx.x, by = blockIdx.y * blockDim.y + threadIdx.y;
    int hw = a.width / 2, hh = a.height / 2;
    if (bx >= hw || by >= hh) return 0;
    float2 top = LOAD((const float2 *)(a.in + (size_t)(2 * by) * a.pitch) + bx);
    float2 bottom = LOAD((const float2 *)(a.in + (size_t)(2 * by + 1) * a.pitch) + bx);
    float q[4];
    fwd_2x2(top.x, top.y, bottom.x, bottom.y, a.s, q);
    a.out[(size_t)by * a.pitch + bx] = q[0];
    a.out[(size_t)by * a.pitch + hw + bx] = q[1];
    a.out[(size_t)(hh + by) * a.pitch + bx] = q[2];
    a.out[(size_t)(hh + by) * a.pitch + hw + bx] = q[3];
    return 1;
}

YOURS_KERNEL(yours_haar, haar_level_args)

extern "C" void launch_yours_haar(const haar_level_args *a, cudaStream_t s)
{
    dim3 block(32, 8), grid((a->width / 2 + 31) / 32, (a->height / 2 + 7) / 8);
    YOURS_LAUNCH(yours_haar, grid, block, 0, s, *a);
}
