/* Test fixture (never a student file): Lab 01's transpose exercise whose kernel never ends, so
 * the watchdog must stop the lab with "TOO LONG" and exit 1 (the test sets a 3 s deadline with
 * GL_EXERCISE_DEADLINE_S). tests/meson.build builds a test-only coalescing with it. */
#include "exercise.cuh"

static __device__ __forceinline__ int yours_transpose_body(transpose_args a, gl_load_counts *c)
{
    (void)c;
    while (clock64() >= 0) { /* clock64 is volatile: the loop stays */
    }
    a.out[0] = a.in[0];
    return 1;
}

YOURS_KERNEL(yours_transpose, transpose_args)

extern "C" void launch_yours_transpose(const transpose_args *a, cudaStream_t s)
{
    YOURS_LAUNCH(yours_transpose, 1, 32, 0, s, *a);
}
