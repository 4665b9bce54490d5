/* Test fixture (never a student file): Lab 01's transpose exercise that writes far outside its
 * output, so the lab must print the CUDA error, the kernel's name and the compute-sanitizer
 * command, and exit 1. tests/meson.build builds a test-only coalescing with it. */
#include "exercise.cuh"

static __device__ __forceinline__ int yours_transpose_body(transpose_args a, gl_load_counts *c)
{
    (void)c;
    a.out[(size_t)1 << 40] = a.in[threadIdx.x]; /* 4 TiB past the output: an illegal address */
    return 1;
}

YOURS_KERNEL(yours_transpose, transpose_args)

extern "C" void launch_yours_transpose(const transpose_args *a, cudaStream_t s)
{
    YOURS_LAUNCH(yours_transpose, 1, 32, 0, s, *a);
}
