/* Lab 04 - Your turn: the 3x3 filter through a shared-memory tile, then coarsened (edit this file).
 *
 * TASK  For every interior pixel (1 <= x <= width - 2, 1 <= y <= height - 2):
 *         out[y * pitch + x] = PIXEL(sum over r, k in 0..2 of filter[r * 3 + k] * in[(y - 1 + r) * pitch + x - 1 + k], shift)
 *       and never write the one-pixel frame (row 0, row height - 1, column 0, column width - 1).
 *       The starter is the ladder's first rung, GM: one thread per pixel, 9 loads of the picture
 *       and 9 of the filter each. Step 1: load the block's tile (with its one-pixel halo) into
 *       shared memory once, then read the window there (the SM rung). Step 2: coarsen - each
 *       thread computes several neighbouring pixels from one window that slides (SM_CFn), and
 *       stores them as one vector.
 * RULES Read global memory only through LOAD(&x) (the lab counts sectors per request with it).
 *       Any width and height >= 3 (the lab also checks an odd-sized picture); pitch is a multiple
 *       of 64 bytes; the rows' padding right of width holds zeros. Any launch shape.
 * RUN   meson compile -C build && build/labs/04_convolution/convolution --only exercises
 *       (--save DIR also writes the picture your kernel made). Hints: README.md, "Your turn". */
#include "exercise.cuh"

#define BLOCK 32

/* Starter: the GM rung - every thread reads its 9 pixels and the 9 weights from global memory. */
static __device__ __forceinline__ int yours_conv_body(conv_args a, gl_load_counts *c)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x > a.width - 2 || y > a.height - 2) return 0;
    int sum = 0;
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++)
            sum += LOAD(&a.filter[r * 3 + k]) * LOAD(&a.in[(size_t)(y - 1 + r) * a.pitch + x - 1 + k]);
    a.out[(size_t)y * a.pitch + x] = PIXEL(sum, a.shift);
    return 1;
}

YOURS_KERNEL(yours_conv)

/* The launch shape: yours to change with the body. */
extern "C" void launch_yours_conv(const conv_args *a, cudaStream_t s)
{
    dim3 block(BLOCK, BLOCK), grid((a->width + BLOCK - 1) / BLOCK, (a->height + BLOCK - 1) / BLOCK);
    YOURS_LAUNCH(yours_conv, grid, block, 0, s, *a);
}
