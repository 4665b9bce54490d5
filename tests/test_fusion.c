/* test_fusion.c - CPU tests of Lab 04 part 3's reference (fusion_reference.c, the definition every
 * fusion and median kernel must equal): pixels computed by hand for each stage, the floors of
 * negative numbers, clamping, and the clamp-to-edge border on pictures down to 1 x 1. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fusion/fusion.h"
#include "gl_image.h"

static uint32_t rgba(int r, int g, int b, int a) { return (uint32_t)r | (uint32_t)g << 8 | (uint32_t)b << 16 | (uint32_t)a << 24; }

static void test_pixel_stages(void)
{
    uint8_t gamma[256];
    px_gamma_table(gamma);
    CHECK(gamma[0] == 0 && gamma[255] == 255 && gamma[64] > 64, "gamma 1/1.4 brightens: table[64] = %d", gamma[64]);
    /* black -> (16, 128, 128); white: Y = ((220 * 255 + 128) >> 8) + 16 = 219 + 16 */
    CHECK(px_stage_pixel(PX_RGB_TO_YUV, rgba(0, 0, 0, 7), gamma) == rgba(16, 128, 128, 7), "black to YUV (A kept)");
    CHECK(px_stage_pixel(PX_RGB_TO_YUV, rgba(255, 255, 255, 0), gamma) == rgba(235, 128, 128, 0), "white to YUV");
    /* red: Y = (16830 + 128) >> 8 = 66 (+16); U = floor(-9562 / 256) = -38 (+128): a negative floor */
    CHECK(px_stage_pixel(PX_RGB_TO_YUV, rgba(255, 0, 0, 255), gamma) == rgba(82, 90, 240, 255), "red to YUV: %08x",
          px_stage_pixel(PX_RGB_TO_YUV, rgba(255, 0, 0, 255), gamma));
    CHECK(px_stage_pixel(PX_GAMMA, rgba(64, 1, 2, 3), gamma) == rgba(gamma[64], 1, 2, 3), "gamma on Y only");
    /* chroma: 128 + floor(5 (U - 128) / 4): 127 -> 128 + floor(-1.25) = 126; 240 -> 268 -> 255; 16 -> -12 -> 0 */
    CHECK(px_stage_pixel(PX_CHROMA, rgba(9, 127, 128, 1), gamma) == rgba(9, 126, 128, 1), "chroma floor");
    CHECK(px_stage_pixel(PX_CHROMA, rgba(9, 240, 16, 1), gamma) == rgba(9, 255, 0, 1), "chroma clamps");
    /* YUV -> RGB: (16, 128, 128) is black, (235, 128, 128): (298 * 219 + 128) >> 8 = 255 */
    CHECK(px_stage_pixel(PX_YUV_TO_RGB, rgba(16, 128, 128, 5), gamma) == rgba(0, 0, 0, 5), "YUV black");
    CHECK(px_stage_pixel(PX_YUV_TO_RGB, rgba(235, 128, 128, 5), gamma) == rgba(255, 255, 255, 5), "YUV white");
    /* Y 16, V 255: R = clamp(floor((409 * 127 + 128) / 256)) = 203, G = floor(-26288 / 256) < 0 -> 0 */
    CHECK(px_stage_pixel(PX_YUV_TO_RGB, rgba(16, 128, 255, 0), gamma) == rgba(203, 0, 0, 0), "YUV red corner: %08x",
          px_stage_pixel(PX_YUV_TO_RGB, rgba(16, 128, 255, 0), gamma));
    /* gray: (77 * 10 + 150 * 20 + 29 * 30 + 128) >> 8 = 4768 >> 8 = 18 */
    CHECK(px_stage_pixel(PX_RGB_TO_GRAY, rgba(10, 20, 30, 99), gamma) == 18, "gray");
    CHECK(px_stage_pixel(PX_RGB_TO_GRAY, rgba(255, 255, 255, 0), gamma) == 255, "gray of white");
    CHECK(gl_rgb_to_gray(10, 20, 30) == 18, "gl_image.h's rule is the same");
    /* a whole stage over n pixels: bytes out for gray */
    uint32_t in[3] = {rgba(0, 0, 0, 0), rgba(255, 255, 255, 0), rgba(10, 20, 30, 0)};
    uint8_t out[3];
    px_stage_ref(PX_RGB_TO_GRAY, in, out, 3, gamma);
    CHECK(out[0] == 0 && out[1] == 255 && out[2] == 18, "px_stage_ref to bytes");
}

static void test_block_stages(void)
{
    /* a bright dot in the middle of 3 x 3 */
    const uint8_t dot[9] = {0, 0, 0, 0, 255, 0, 0, 0, 0};
    CHECK(bk_stage_pixel(BK_GAUSS, dot, 3, 3, 1, 1) == 64, "gauss centre: (4 * 255 + 8) >> 4");
    /* clamp to edge: at (1, 0) the dot is the bottom middle (weight 2), at (0, 0) the corner (1) */
    CHECK(bk_stage_pixel(BK_GAUSS, dot, 3, 3, 1, 0) == 32, "gauss edge: (2 * 255 + 8) >> 4");
    CHECK(bk_stage_pixel(BK_GAUSS, dot, 3, 3, 0, 0) == 16, "gauss corner: (255 + 8) >> 4");
    CHECK(bk_stage_pixel(BK_MEDIAN, dot, 3, 3, 1, 1) == 0, "median removes the dot");
    const uint8_t ramp[9] = {9, 1, 8, 2, 7, 3, 6, 4, 5};
    CHECK(bk_stage_pixel(BK_MEDIAN, ramp, 3, 3, 1, 1) == 5, "median of 1..9");
    /* at (0, 0): the neighbourhood 9 9 1 / 9 9 1 / 2 2 7 (clamped) sorts to 1 1 2 2 7 9 9 9 9 */
    CHECK(bk_stage_pixel(BK_MEDIAN, ramp, 3, 3, 0, 0) == 7, "median at a corner, clamped");
    /* a vertical step 0 0 40 40: gx = 4 * 40 = 160 -> 160 >> 2 = 40 on both sides of the step */
    const uint8_t step[12] = {0, 0, 40, 40, 0, 0, 40, 40, 0, 0, 40, 40};
    CHECK(bk_stage_pixel(BK_SOBEL, step, 4, 3, 1, 1) == 40 && bk_stage_pixel(BK_SOBEL, step, 4, 3, 2, 1) == 40,
          "sobel across the step");
    CHECK(bk_stage_pixel(BK_SOBEL, step, 4, 3, 0, 0) == 0 && bk_stage_pixel(BK_SOBEL, step, 4, 3, 3, 2) == 0,
          "sobel on the flat sides (clamped border)");
    /* a horizontal step of 255: (|gx| + |gy|) >> 2 = 1020 >> 2 = 255; saturation above that */
    const uint8_t hstep[9] = {0, 0, 0, 255, 255, 255, 255, 255, 255};
    CHECK(bk_stage_pixel(BK_SOBEL, hstep, 3, 3, 1, 1) == 255, "sobel of a full step");
    const uint8_t corner[9] = {0, 0, 0, 0, 255, 255, 0, 255, 255};
    CHECK(bk_stage_pixel(BK_SOBEL, corner, 3, 3, 1, 1) == 255, "sobel saturates at 255 (|gx| + |gy| = 1530)");
    /* 1 x 1: every stage gives the pixel back (gauss, median) or 0 (sobel) */
    const uint8_t one = 77;
    uint8_t o;
    bk_stage_ref(BK_GAUSS, &one, &o, 1, 1);
    CHECK(o == 77, "gauss 1x1");
    bk_stage_ref(BK_MEDIAN, &one, &o, 1, 1);
    CHECK(o == 77, "median 1x1");
    bk_stage_ref(BK_SOBEL, &one, &o, 1, 1);
    CHECK(o == 0, "sobel 1x1");
    /* a flat picture stays flat through gauss and median, any odd size */
    uint8_t flat[35], out[35];
    memset(flat, 123, sizeof flat);
    bk_stage_ref(BK_GAUSS, flat, out, 7, 5);
    int same = 1;
    for (int i = 0; i < 35; i++) same &= out[i] == 123;
    bk_stage_ref(BK_MEDIAN, flat, out, 7, 5);
    for (int i = 0; i < 35; i++) same &= out[i] == 123;
    CHECK(same, "flat 7x5 stays flat");
}

/* fusion.h's bk_slowest_first (the fused_flat_sf rung's order of blocks): every block of the grid
 * exactly once, the edge blocks (bottom strip row, top row, the edge columns between) before any
 * interior one, and the order the lesson states, on every grid up to 12 x 12 and the lab's own. */
static void test_slowest_first(void)
{
    static const unsigned grids[][2] = {{69, 228}, {69, 456}, {5, 5}, {1, 7}, {2, 9}, {9, 2}};
    for (unsigned g = 0; g < 144 + sizeof grids / sizeof grids[0]; g++) {
        const unsigned gx = g < 144 ? 1 + g % 12 : grids[g - 144][0], gy = g < 144 ? 1 + g / 12 : grids[g - 144][1];
        const unsigned n = gx * gy, slow = gx > 2 && gy > 2 ? 2 * gx + 2 * (gy - 2) : 0;
        unsigned char *seen = calloc(n, 1);
        int twice = 0, outside = 0, late_edge = 0;
        for (unsigned i = 0; i < n; i++) {
            const bk_block b = bk_slowest_first(gx, gy, i);
            const unsigned bx = b.x, by = b.y;
            if (bx >= gx || by >= gy) {
                outside++;
                continue;
            }
            twice += seen[by * gx + bx]++ > 0;
            const int edge = bx == 0 || bx == gx - 1 || by == 0 || by == gy - 1;
            if (slow && (i < slow) != edge) late_edge++;
            if (!slow && (bx != i % gx || by != i / gx)) late_edge++; /* small grids keep the index order */
        }
        CHECK(!outside && !twice && !late_edge, "%u x %u grid: %d blocks outside, %d twice, %d out of order", gx, gy,
              outside, twice, late_edge);
        free(seen);
    }
    bk_block b; /* the 16384^2 grid of fused_flat_sf: 69 columns, 228 strips of 72 rows */
    b = bk_slowest_first(69, 228, 0);
    CHECK(b.x == 0 && b.y == 227, "block 0 starts the bottom strip row: (%u, %u)", b.x, b.y);
    b = bk_slowest_first(69, 228, 69);
    CHECK(b.x == 0 && b.y == 0, "block 69 starts the top row: (%u, %u)", b.x, b.y);
    b = bk_slowest_first(69, 228, 139);
    CHECK(b.x == 68 && b.y == 1, "block 139: the right edge column of strip 1: (%u, %u)", b.x, b.y);
    b = bk_slowest_first(69, 228, 590);
    CHECK(b.x == 1 && b.y == 1, "block 590 = 2 x 69 + 2 x 226: the first interior block: (%u, %u)", b.x, b.y);
    b = bk_slowest_first(69, 228, 69 * 228 - 1);
    CHECK(b.x == 67 && b.y == 226, "the last block: the interior's last: (%u, %u)", b.x, b.y);
}

/* fusion.h's bk_sf_rows (fused_flat_sf's strip height): the lab's two pictures on 132 SMs x 28 warps
 * (H100, H200) and on a 16-SM slice, and on every height and slot count tried: a multiple of 6 in
 * 12..72, 4 waves of blocks whenever the height is not 12, and no taller height that has them. */
static void test_sf_rows(void)
{
    CHECK(bk_sf_rows(16384, 69, 132 * 28) == 72, "16384^2 on 132 SMs: 72 rows (%d)", bk_sf_rows(16384, 69, 132 * 28));
    CHECK(bk_sf_rows(2047, 18, 132 * 28) == 12, "4093 x 2047 on 132 SMs: 12 rows (%d)", bk_sf_rows(2047, 18, 132 * 28));
    CHECK(bk_sf_rows(2047, 18, 16 * 28) == 18, "4093 x 2047 on 16 SMs: 18 rows (%d)", bk_sf_rows(2047, 18, 16 * 28));
    CHECK(bk_sf_rows(7, 1, 132 * 28) == 12, "61 x 7: 12 rows (%d)", bk_sf_rows(7, 1, 132 * 28));
    int bad = 0;
    for (int h = 1; h <= 20000; h += 37)
        for (int slots = 28; slots <= 8192; slots *= 2) {
            const int cols = 1 + h % 97, rows = bk_sf_rows(h, cols, slots);
            const long long blocks = (long long)cols * ((h + rows - 1) / rows);
            const long long taller = rows < 72 ? (long long)cols * ((h + rows + 5) / (rows + 6)) : 0;
            bad += rows % 6 || rows < 12 || rows > 72 || (rows > 12 && blocks < 4LL * slots) || taller >= 4LL * slots;
        }
    CHECK(!bad, "bk_sf_rows: %d heights and slot counts off the rule", bad);
}

int main(void)
{
    test_pixel_stages();
    test_block_stages();
    test_slowest_first();
    test_sf_rows();
    return check_report("test_fusion");
}
