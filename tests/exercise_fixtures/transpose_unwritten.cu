/* Test fixture (never a student file): Lab 01's transpose exercise that never writes its output,
 * so the check must report "never written". tests/meson.build builds a test-only coalescing with
 * it (coalescing_fixture_unwritten). */
#include "exercise.cuh"

static __device__ __forceinline__ int yours_transpose_body(transpose_args a, gl_load_counts *c)
{
    uint32_t row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= a.rows) return 0;
    (void)LOAD(&a.in[row * TRANSPOSE_COLS]);
    return 1;
}

YOURS_KERNEL(yours_transpose, transpose_args)

extern "C" void launch_yours_transpose(const transpose_args *a, cudaStream_t s)
{
    YOURS_LAUNCH(yours_transpose, (a->rows + 255) / 256, 256, 0, s, *a);
}
