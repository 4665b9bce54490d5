/* haar_kernels.cuh - Lab 05, internal to the GPU ladder (kernels.cu: rungs 1-3, the API of
 * haar_gpu.h and compression; single_pass.cu: rung 4): the pair arithmetic every rung shares (so
 * that all rungs give the same bits), the kernel pairs and their launch, and the single pass's
 * entry points. */
#ifndef HAAR_KERNELS_CUH
#define HAAR_KERNELS_CUH

#include "gl_check.h"
#include "gl_metrics.cuh"
#include "haar_gpu.h"

#define KERNEL_PAIR(name, args) GL_KERNEL_PAIR(name, args, gl_load_counts, gl_count_flush)

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

/* ---------------------------------------------------------------- launches */

#define LAUNCH(kernel, grid, block, smem, stream, args, counted)                                    \
    do {                                                                                          \
        if (counted) count_##kernel<<<grid, block, smem, stream>>>(args);                         \
        else kernel<<<grid, block, smem, stream>>>(args);                                         \
    } while (0)

/* Rungs 4 and 5 (single_pass.cu): all L levels in one pass per chunk of HAAR_SINGLE_PASS_MAX_LEVELS,
 * the same arguments as haar_gpu_forward / haar_gpu_inverse with the scale s (si) of the
 * convention and `scratch` of haar_gpu_scratch_bytes(HAAR_SINGLE_PASS, ...); warp_rows 1 runs
 * rung 5's kernels (a warp per block row). */
cudaError_t tiles_forward(const float *in, float *out, int w, int h, size_t pitch, int levels, float s,
                          float *scratch, int warp_rows, unsigned long long *counts, cudaStream_t st);
cudaError_t tiles_inverse(const float *in, float *out, int w, int h, size_t pitch, int levels, float si,
                          float *scratch, int warp_rows, unsigned long long *counts, cudaStream_t st);

#endif
