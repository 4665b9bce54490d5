/* Lab 01 - Your turn: a transpose that reads AND writes coalesced (edit this file).
 *
 * TASK  out[col * rows + row] = in[row * 32 + col] for a matrix of `rows` rows and 32 columns
 *       (transpose_args in exercises.h). It is the lab's stride experiment at s = 32: the starter
 *       below is its copy_stride rung - writes coalesced, but every lane of a warp reads a float
 *       128 bytes from its neighbour's, 32 sectors per request. Make both sides coalesced: a warp
 *       reads 32 consecutive floats of one row into shared memory, and writes 32 consecutive
 *       floats of one output row from it. Then compare a [32][32] tile with a [32][33] one.
 * RULES Read global memory only through LOAD(&x) (the lab counts sectors per request with it);
 *       write every output element exactly as given; any block shape and shared memory you like.
 *       rows is a multiple of 32 (at least 32).
 * RUN   meson compile -C build && build/labs/01_coalescing/coalescing --only exercises
 *       (the lab poisons `out`, checks every element, times your kernel and ranks it among the
 *       copy_stride rung, the copy rung and cudaMemcpy). Hints: README.md, "Your turn". */
#include "exercise.cuh"

/* Starter: one thread per output element, threads along a row of `out` (coalesced writes), so a
 * warp reads down a column of `in` (32 sectors a request). Correct, and slow. */
static __device__ __forceinline__ int yours_transpose_body(transpose_args a, gl_load_counts *c)
{
    uint32_t row = blockIdx.x * blockDim.x + threadIdx.x, col = blockIdx.y;
    if (row >= a.rows) return 0;
    a.out[col * a.rows + row] = LOAD(&a.in[row * TRANSPOSE_COLS + col]);
    return 1;
}

YOURS_KERNEL(yours_transpose, transpose_args)

/* The launch shape: yours to change with the body. */
extern "C" void launch_yours_transpose(const transpose_args *a, cudaStream_t s)
{
    dim3 block(256), grid((a->rows + 255) / 256, TRANSPOSE_COLS);
    YOURS_LAUNCH(yours_transpose, grid, block, 0, s, *a);
}
