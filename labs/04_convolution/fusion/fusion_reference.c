/* fusion_reference.c - Lab 04, part 3: the CPU reference of both pipelines; fusion.h states the
 * rules. Plain C, one pixel at a time, written to be read: every GPU kernel must reproduce these
 * bits exactly. */
#include <math.h>
#include "fusion.h"
#include "gl_image.h"

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

void px_stage_ref(px_stage s, const uint32_t *in, void *out, size_t n, const uint8_t gamma[256])
{
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

static int median9(const int n[3][3])
{
    int v[9], m = 0;
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++) {
            int x = n[r][k], j = m++;
            for (; j > 0 && v[j - 1] > x; j--) v[j] = v[j - 1]; /* insertion sort */
            v[j] = x;
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
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) out[(size_t)y * width + x] = bk_stage_pixel(s, in, width, height, x, y);
}
