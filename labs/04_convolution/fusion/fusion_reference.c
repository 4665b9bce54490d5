/* fusion_reference.c - Lab 04, part 3: the CPU reference of both pipelines; fusion.h states the
 * rules. Plain C, one pixel at a time, written to be read: every GPU kernel must reproduce these
 * bits exactly. */
#include <math.h>
#include "fusion.h"
#include "gl_image.h"
#include "gl_parallel.h"

static int clamp_int(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
static uint8_t clamp_u8(int v) { return (uint8_t)clamp_int(v, 0, 255); }

/* floor(v / 256) for v >= -131072, without shifting a negative number. */
static int floor_div256(int v) { return ((v + 131072) >> 8) - 512; }

static uint32_t pack4(int b0, int b1, int b2, int b3)
{
    return (uint32_t)b0 | (uint32_t)b1 << 8 | (uint32_t)b2 << 16 | (uint32_t)b3 << 24;
}

void px_gamma_table(uint8_t table[256])
{
    for (int i = 0; i < 256; i++) table[i] = (uint8_t)lrint(255.0 * pow(i / 255.0, 1.0 / 1.4));
}

uint32_t px_stage_pixel(px_stage s, uint32_t p, const uint8_t gamma[256])
{
    int c0 = p & 0xff, c1 = p >> 8 & 0xff, c2 = p >> 16 & 0xff, a = (int)(p >> 24);
    switch (s) {
    case PX_RGB_TO_YUV: /* c0 c1 c2 = R G B */
        return pack4(floor_div256(66 * c0 + 129 * c1 + 25 * c2 + 128) + 16,
                     floor_div256(-38 * c0 - 74 * c1 + 112 * c2 + 128) + 128,
                     floor_div256(112 * c0 - 94 * c1 - 18 * c2 + 128) + 128, a);
    case PX_GAMMA: /* Y U V */
        return pack4(gamma[c0], c1, c2, a);
    case PX_CHROMA: {
        int u = 128 + floor_div256(64 * 5 * (c1 - 128)), v = 128 + floor_div256(64 * 5 * (c2 - 128));
        return pack4(c0, clamp_u8(u), clamp_u8(v), a);
    }
    case PX_YUV_TO_RGB: {
        int C = c0 - 16, D = c1 - 128, E = c2 - 128;
        return pack4(clamp_u8(floor_div256(298 * C + 409 * E + 128)),
                     clamp_u8(floor_div256(298 * C - 100 * D - 208 * E + 128)),
                     clamp_u8(floor_div256(298 * C + 516 * D + 128)), a);
    }
    case PX_RGB_TO_GRAY:
        return gl_rgb_to_gray((unsigned)c0, (unsigned)c1, (unsigned)c2);
    default:
        return 0;
    }
}

/* Both stage references share their pixels (rows) among the cores (gl_parallel.h): integer maths,
 * one pixel at a time, the same bytes whatever the thread count. */
void px_stage_ref(px_stage s, const uint32_t *in, void *out, size_t n, const uint8_t gamma[256])
{
    GL_PARALLEL_FOR
    for (size_t i = 0; i < n; i++) {
        uint32_t v = px_stage_pixel(s, in[i], gamma);
        if (s == PX_RGB_TO_GRAY) ((uint8_t *)out)[i] = (uint8_t)v;
        else ((uint32_t *)out)[i] = v;
    }
}

/* The 3x3 neighbourhood of (x, y), clamped to the edge: n[r][k] = img(x - 1 + k, y - 1 + r). */
static void neighbourhood(const uint8_t *img, int width, int height, int x, int y, int n[3][3])
{
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++)
            n[r][k] = img[(size_t)clamp_int(y - 1 + r, 0, height - 1) * width + clamp_int(x - 1 + k, 0, width - 1)];
}

/* The median of 9 by a fixed network of 19 compare-exchanges (Paeth's, as in Devillard's opt_med9):
 * the middle value, as sorting all nine would give, without the branches of a sort. */
static int median9(const int n[3][3])
{
    static const int pairs[19][2] = {{1, 2}, {4, 5}, {7, 8}, {0, 1}, {3, 4}, {6, 7}, {1, 2}, {4, 5}, {7, 8}, {0, 3},
                                     {5, 8}, {4, 7}, {3, 6}, {1, 4}, {2, 5}, {4, 7}, {4, 2}, {6, 4}, {4, 2}};
    int v[9];
    for (int i = 0; i < 9; i++) v[i] = n[i / 3][i % 3];
    for (int k = 0; k < 19; k++) {
        int a = v[pairs[k][0]], b = v[pairs[k][1]];
        v[pairs[k][0]] = a < b ? a : b;
        v[pairs[k][1]] = a < b ? b : a;
    }
    return v[4];
}

uint8_t bk_stage_pixel(bk_stage s, const uint8_t *img, int width, int height, int x, int y)
{
    int n[3][3];
    neighbourhood(img, width, height, x, y, n);
    switch (s) {
    case BK_GAUSS: {
        int sum = 0;
        for (int r = 0; r < 3; r++)
            for (int k = 0; k < 3; k++) sum += n[r][k] << ((r == 1) + (k == 1)); /* weights 1 2 1 / 2 4 2 / 1 2 1 */
        return (uint8_t)((sum + 8) >> 4);
    }
    case BK_MEDIAN:
        return (uint8_t)median9(n);
    case BK_SOBEL: {
        int gx = (n[0][2] + 2 * n[1][2] + n[2][2]) - (n[0][0] + 2 * n[1][0] + n[2][0]);
        int gy = (n[2][0] + 2 * n[2][1] + n[2][2]) - (n[0][0] + 2 * n[0][1] + n[0][2]);
        int mag = (abs(gx) + abs(gy)) >> 2;
        return (uint8_t)(mag > 255 ? 255 : mag);
    }
    default:
        return 0;
    }
}

void bk_stage_ref(bk_stage s, const uint8_t *in, uint8_t *out, int width, int height)
{
    GL_PARALLEL_FOR
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) out[(size_t)y * width + x] = bk_stage_pixel(s, in, width, height, x, y);
}
