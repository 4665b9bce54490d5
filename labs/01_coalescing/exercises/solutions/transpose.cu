/* Lab 01 - Your turn, the instructors' solution (built with -Dexercise-solutions=true in place of
 * exercises/transpose.cu; ANSWERS.md discusses it).
 *
 * Lesson: a block stages 32 rows x 32 columns in shared memory. Reads: a warp loads one row of
 * `in`, 32 consecutive floats (4 sectors a request). Writes: a warp stores one row of `out`,
 * 32 consecutive floats, reading a column of the tile. The tile is [32][33]: with [32][32] the
 * column read hits one bank 32 times (a 32-way conflict); the pad puts row r's column c in bank
 * (r + c) % 32, so the 32 lanes hit 32 different banks. */
#include "exercise.cuh"

#define TILE 32
#define ROWS_PER_PASS 8 /* blockDim.y: each thread moves TILE / ROWS_PER_PASS elements each way */

static __device__ __forceinline__ int yours_transpose_body(transpose_args a, gl_load_counts *c)
{
    __shared__ float tile[TILE][TILE + 1];
    uint32_t row0 = blockIdx.x * TILE, x = threadIdx.x;
    for (uint32_t k = threadIdx.y; k < TILE; k += ROWS_PER_PASS) /* tile[k][x] = in[row0 + k][x] */
        if (row0 + k < a.rows) tile[k][x] = LOAD(&a.in[(row0 + k) * TRANSPOSE_COLS + x]);
    __syncthreads();
    for (uint32_t k = threadIdx.y; k < TILE; k += ROWS_PER_PASS) /* out[k][row0 + x] = in[row0 + x][k] */
        if (row0 + x < a.rows) a.out[k * a.rows + row0 + x] = tile[x][k];
    return 1;
}

YOURS_KERNEL(yours_transpose, transpose_args)

extern "C" void launch_yours_transpose(const transpose_args *a, cudaStream_t s)
{
    dim3 block(TILE, ROWS_PER_PASS), grid((a->rows + TILE - 1) / TILE);
    YOURS_LAUNCH(yours_transpose, grid, block, 0, s, *a);
}
