/* test_lab04.c - CPU tests of Lab 04's reference (the definition every kernel must equal):
 * hand-computed pixels, the floor shift, clamping, the frame rule, odd sizes. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "convolution.h"

static void test_shift(void)
{
    CHECK(conv_shift_floor(35, 4) == 2, "35 >> 4");
    CHECK(conv_shift_floor(-1, 4) == -1, "-1 >> 4 is floor(-1/16) = -1");
    CHECK(conv_shift_floor(-16, 4) == -1 && conv_shift_floor(-17, 4) == -2, "negative floors");
    CHECK(conv_shift_floor(-7, 0) == -7 && conv_shift_floor(0, 4) == 0, "shift 0, zero");
}

static void test_pixels(void)
{
    const conv_filter *smooth = &CONV_FILTERS[FILTER_SMOOTH], *sharpen = &CONV_FILTERS[FILTER_SHARPEN],
                      *edge = &CONV_FILTERS[FILTER_EDGE];
    /* 3 x 3, worked by hand: centre 50, neighbours 10 .. 90 */
    const uint8_t img[9] = {10, 20, 30, 40, 50, 60, 70, 80, 90};
    /* smooth: (10 + 2*20 + 30 + 2*40 + 4*50 + 2*60 + 70 + 2*80 + 90) / 16 = 800 / 16 = 50 */
    CHECK(conv_pixel(img, 3, 1, 1, smooth) == 50, "smooth centre: %d", conv_pixel(img, 3, 1, 1, smooth));
    /* sharpen: 5*50 - (20 + 40 + 60 + 80) = 50 */
    CHECK(conv_pixel(img, 3, 1, 1, sharpen) == 50, "sharpen centre");
    /* edge: 8*50 - (450 - 50) = 0 */
    CHECK(conv_pixel(img, 3, 1, 1, edge) == 0, "edge of a linear ramp is 0");
    /* clamping: a bright dot on black saturates, a dark dot on white goes to 0 */
    const uint8_t dot[9] = {0, 0, 0, 0, 200, 0, 0, 0, 0}, hole[9] = {255, 255, 255, 255, 0, 255, 255, 255, 255};
    CHECK(conv_pixel(dot, 3, 1, 1, sharpen) == 255 && conv_pixel(dot, 3, 1, 1, edge) == 255, "clamp high");
    CHECK(conv_pixel(hole, 3, 1, 1, sharpen) == 0 && conv_pixel(hole, 3, 1, 1, edge) == 0, "clamp low");
    CHECK(conv_pixel(dot, 3, 1, 1, smooth) == 50, "smooth of a dot: 800 / 16");
    /* every filter keeps a constant image constant (weights of sharpen and edge sum to 1 and 0) */
    uint8_t flat[9];
    memset(flat, 77, sizeof flat);
    CHECK(conv_pixel(flat, 3, 1, 1, smooth) == 77 && conv_pixel(flat, 3, 1, 1, sharpen) == 77 &&
              conv_pixel(flat, 3, 1, 1, edge) == 0,
          "constant image");
}

static void test_frame(void)
{
    enum { W = 7, H = 5 };
    uint8_t in[W * H], out[W * H];
    for (int i = 0; i < W * H; i++) in[i] = (uint8_t)(i * 37 + 11);
    memset(out, 0xAB, sizeof out);
    conv_reference(in, out, W, H, &CONV_FILTERS[FILTER_EDGE], 0);
    int frame_untouched = 1, interior_ok = 1;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int frame = x == 0 || y == 0 || x == W - 1 || y == H - 1;
            if (frame && out[y * W + x] != 0xAB) frame_untouched = 0;
            if (!frame && out[y * W + x] != conv_pixel(in, W, x, y, &CONV_FILTERS[FILTER_EDGE])) interior_ok = 0;
        }
    CHECK(frame_untouched, "the frame is never written");
    CHECK(interior_ok, "the interior is conv_pixel");
    conv_reference(in, out, W, H, &CONV_FILTERS[FILTER_EDGE], 1);
    CHECK(out[0] == in[0] && out[W - 1] == in[W - 1] && out[(H - 1) * W + 3] == in[(H - 1) * W + 3],
          "frame copied from the input on request (--save)");
}

int main(void)
{
    test_shift();
    test_pixels();
    test_frame();
    return check_report("test_lab04");
}
