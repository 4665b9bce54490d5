/* Test fixture (never a student file): Lab 01's transpose exercise done wrong - it copies instead
 * of transposing, so the check must name (x 1, y 0) as the first mismatch. tests/meson.build
 * builds a test-only coalescing with it (coalescing_fixture_wrong). */
#include "exercise.cuh"

static __device__ __forceinline__ int yours_transpose_body(transpose_args a, gl_load_counts *c)
{
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= a.rows * TRANSPOSE_COLS) return 0;
    a.out[i] = LOAD(&a.in[i]);
    return 1;
}

YOURS_KERNEL(yours_transpose, transpose_args)

extern "C" void launch_yours_transpose(const transpose_args *a, cudaStream_t s)
{
    YOURS_LAUNCH(yours_transpose, (a->rows * TRANSPOSE_COLS + 255) / 256, 256, 0, s, *a);
}
