/* reference.c - Lab 04: the CPU reference, which defines what every kernel must compute. */
#include <string.h>
#include "convolution.h"
#include "gl_parallel.h"

/* The seed's smoothing filter (weights sum 16, >> 4), a sharpen and an edge (Laplacian) filter
 * with negative weights; all three are symmetric, so correlation and convolution agree. */
const conv_filter CONV_FILTERS[N_FILTERS] = {
    {"smooth", {1, 2, 1, 2, 4, 2, 1, 2, 1}, 4},
    {"sharpen", {0, -1, 0, -1, 5, -1, 0, -1, 0}, 0},
    {"edge", {-1, -1, -1, -1, 8, -1, -1, -1, -1}, 0},
};

/* Floor division by 2^shift (an arithmetic right shift) without relying on >> of a negative int. */
int conv_shift_floor(int v, int shift)
{
    if (v >= 0) return v >> shift;
    return -(int)(((unsigned)(-v) + (1u << shift) - 1u) >> shift);
}

uint8_t conv_pixel(const uint8_t *img, int width, int x, int y, const conv_filter *f)
{
    int sum = 0;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) sum += f->w[(dy + 1) * 3 + dx + 1] * img[(size_t)(y + dy) * width + x + dx];
    int v = conv_shift_floor(sum, f->shift);
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* Rows on every core (gl_parallel.h): integer maths, the same bytes whatever the thread count. */
void conv_reference(const uint8_t *in, uint8_t *out, int width, int height, const conv_filter *f, int frame_from_input)
{
    GL_PARALLEL_FOR
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) {
            size_t i = (size_t)y * width + x;
            if (x > 0 && y > 0 && x < width - 1 && y < height - 1) out[i] = conv_pixel(in, width, x, y, f);
            else if (frame_from_input) out[i] = in[i];
        }
}
