/* test_lab04.c - CPU tests of Lab 04's reference (the definition every kernel must equal):
 * hand-computed pixels, the floor shift, clamping, the frame rule, odd sizes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "cnn/cnn.h"
#include "tensor_core.h"
#include "ladder/convolution.h"

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

/* The CNN reference on hand-computed cases, and every unsupported parameter refused by name. */
static void test_cnn(void)
{
    /* 1x1 identity: M = C = 2, w = identity: y = x */
    cnn_shape s1 = {1, 2, 3, 3, 2, 1, 1, 0, 0, 1, 1, 1, 1, 1};
    float x[18], w1[4] = {1, 0, 0, 1};
    for (int i = 0; i < 18; i++) x[i] = (float)(i - 7) * 0.5f;
    double y[18], mag[18];
    cnn_reference(x, w1, &s1, NULL, 0, y, mag);
    int same = 1;
    for (int i = 0; i < 18; i++) same &= y[i] == x[i] && mag[i] == (x[i] < 0 ? -x[i] : x[i]);
    CHECK(same, "1x1 identity");
    /* a single-tap 3x3 filter (only the top-left weight): y(oy, ox) = x(oy - 1, ox - 1), 0 outside */
    cnn_shape s3 = {1, 1, 3, 3, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1};
    float w3[9] = {2, 0, 0, 0, 0, 0, 0, 0, 0};
    cnn_reference(x, w3, &s3, NULL, 0, y, NULL);
    CHECK(y[0] == 0 && y[1] == 0 && y[3] == 0, "padding: the top row and left column see zeros");
    CHECK(y[4] == 2 * x[0] && y[8] == 2 * x[4], "the tap shifts the image by (1, 1)");
    /* an all-ones 3x3 filter at a padded corner sums the 2x2 pixels that exist */
    float ones[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    size_t corner = 0;
    cnn_reference(x, ones, &s3, &corner, 1, y, NULL);
    CHECK(y[0] == (double)x[0] + x[1] + x[3] + x[4], "corner: %g", y[0]);
    /* the outputs shared among the cores: the same bits as on one core */
    cnn_shape s5 = {2, 3, 9, 7, 4, 5, 5, 2, 2, 1, 1, 1, 1, 1};
    float xs[2 * 3 * 9 * 7], ws[4 * 3 * 5 * 5];
    for (int i = 0; i < 2 * 3 * 9 * 7; i++) xs[i] = (float)((i * 37) % 23) / 7.0f - 1.5f;
    for (int i = 0; i < 4 * 3 * 5 * 5; i++) ws[i] = (float)((i * 11) % 13) / 5.0f - 1.1f;
    double one[2 * 4 * 9 * 7], all[2 * 4 * 9 * 7], mag_one[2 * 4 * 9 * 7], mag_all[2 * 4 * 9 * 7];
    cnn_reference(xs, ws, &s5, NULL, 0, one, mag_one);
    cnn_reference_all_cores(xs, ws, &s5, NULL, 0, all, mag_all);
    CHECK(!memcmp(one, all, sizeof one) && !memcmp(mag_one, mag_all, sizeof mag_one), "all cores = one core");
    CHECK(cnn_flops(&s3) == 2.0 * 9 * 9, "flops");
    /* every unsupported parameter is refused, by cnn_check and by cnn_forward before any GPU work */
    const int ours1 = cnn_variant_find("ours1_64x64");
    CHECK(ours1 >= 0, "the table has the first rung ours1_64x64");
    const struct {
        int field, value;
        cnn_status want;
    } bad[] = {/* fields of cnn_shape: N C H W M R S pad_h pad_w stride_h stride_w dil_h dil_w groups */
               {0, 0, CNN_ERR_SHAPE},     {9, 2, CNN_ERR_STRIDE},    {10, 2, CNN_ERR_STRIDE},
               {11, 2, CNN_ERR_DILATION}, {12, 2, CNN_ERR_DILATION}, {13, 2, CNN_ERR_GROUPS},
               {7, 0, CNN_ERR_PADDING},   {8, 2, CNN_ERR_PADDING}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cnn_shape t = s3;
        ((int *)&t)[bad[i].field] = bad[i].value;
        CHECK(cnn_check(&t) == bad[i].want, "case %zu: %s", i, cnn_status_name(cnn_check(&t)));
        cnn_status r = cnn_forward(NULL, NULL, NULL, t.N, t.C, t.H, t.W, t.M, t.R, t.S, t.pad_h, t.pad_w, t.stride_h,
                                   t.stride_w, t.dil_h, t.dil_w, t.groups, ours1, 0, NULL, 0, 0);
        CHECK(r == bad[i].want, "cnn_forward case %zu: %s", i, cnn_status_name(r));
    }
    cnn_shape even = s3;
    even.R = even.S = 2;
    CHECK(cnn_check(&even) == CNN_ERR_EVEN_FILTER, "even filter");
    CHECK(cnn_check(&s3) == CNN_OK && cnn_check(&s1) == CNN_OK, "supported shapes");
    /* the variant table: names unique and CSV-safe, every row complete, a known variant or tile
     * refused before any GPU work */
    for (int i = 0; i < cnn_variant_count(); i++) {
        const cnn_variant_row *v = cnn_variant_at(i);
        CHECK(v->name && !strpbrk(v->name, "@,\" \n") && cnn_variant_find(v->name) == i, "row %d: name", i);
        CHECK(v->lesson && v->launch && v->tiles >= 1 && v->tile_name && (unsigned)v->cls < CNN_CLASSES,
              "row %s complete", v->name);
        CHECK((v->role == CNN_ROLE_PEER) == (v->peer != NULL), "row %s: peer ops iff a peer", v->name);
    }
    CHECK(cnn_variant_find("cudnn") >= 0 && cnn_variant_find("split") >= 0 && cnn_variant_find("fused") >= 0,
          "the CSV names of the seed and the peer are kept");
    CHECK(cnn_forward(NULL, NULL, NULL, 1, 1, 3, 3, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, cnn_variant_count(), 0, NULL, 0,
                      0) == CNN_ERR_VARIANT, "an unknown variant is refused");
    CHECK(cnn_forward(NULL, NULL, NULL, 1, 1, 3, 3, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, ours1, 99, NULL, 0, 0) ==
              CNN_ERR_VARIANT, "an unknown tile is refused");
    CHECK(cnn_variant_bound(cnn_variant_at(ours1)) != NULL, "FP32 has a bound");
    CHECK(cnn_peak_flop_per_sm_clock(CNN_FP32, 9, 0) == 256 && cnn_peak_flop_per_sm_clock(CNN_TF32, 9, 0) == 2048 &&
              cnn_peak_flop_per_sm_clock(CNN_BF16, 9, 0) == 4096 && isnan(cnn_peak_flop_per_sm_clock(CNN_TF32, 8, 6)),
          "peaks per SM per clock");
    cnn_shape e4 = {1, 256, 64, 64, 256, 3, 3, 1, 1, 1, 1, 1, 1, 1};
    CHECK(cnn_min_bytes(&e4) == 4.0 * (2 * 256 * 64 * 64 + 256 * 256 * 9), "minimum traffic of E4");
    /* the mma2 rows: split-K's partial sums (one FP32 y per part) in the workspace, after the BF16
     * arrays in BF16; a row with a prepare hook has a workspace for it to fill */
    const size_t ny = (size_t)256 * 64 * 64;
    CHECK(cnn_workspace_tf32_mma2(&e4, 0) == 0 && cnn_workspace_tf32_mma2(&e4, 2) == 4 * ny * sizeof(float) &&
              cnn_workspace_bf16_mma2(&e4, 1) == cnn_bf16_bytes(&e4) + 2 * ny * sizeof(float),
          "mma2 workspaces");
    CHECK(!strcmp(cnn_tile_name_tc2(2), "128x128_k4") && !strcmp(cnn_tile_name_tc2(CNN_TC2_TILES), "?"),
          "mma2 tile names");
    /* the mma3 rows: after the BF16 arrays, x channels-last with its zero border (66 x 66 pixels of
     * 256 channels) and the re-laid weights, each 256-byte aligned, then the partial sums */
    const size_t mma3_base = cnn_bf16_bytes(&e4) + (size_t)66 * 66 * 256 * 2 + (size_t)256 * 9 * 256 * 2;
    CHECK(cnn_workspace_bf16_mma3(&e4, 0) == mma3_base && cnn_workspace_bf16_mma3(&e4, 3) == mma3_base &&
              cnn_workspace_bf16_mma3(&e4, 5) == mma3_base + 4 * ny * sizeof(float),
          "mma3 workspaces");
    CHECK(!strcmp(cnn_tile_name_tc3(4), "128x64_k2") && !strcmp(cnn_tile_name_tc3(CNN_TC3_TILES), "?"),
          "mma3 tile names");
    /* ours_bf16_wgmma: mma3's workspace (its prepare hook) for the six mma3 tiles, 128x256 whole */
    CHECK(cnn_workspace_bf16_wgmma(&e4, 6) == mma3_base &&
              cnn_workspace_bf16_wgmma(&e4, 2) == mma3_base + 4 * ny * sizeof(float),
          "wgmma workspaces");
    CHECK(!strcmp(cnn_tile_name_bf16_wgmma(6), "128x256") && !strcmp(cnn_tile_name_bf16_wgmma(1), "128x128_k2") &&
              !strcmp(cnn_tile_name_bf16_wgmma(CNN_WGMMA_TILES), "?"),
          "wgmma tile names");
    for (int i = 0; i < cnn_variant_count(); i++) {
        const cnn_variant_row *v = cnn_variant_at(i);
        CHECK(!v->prepare || v->workspace || v->role == CNN_ROLE_PEER, "row %s: prepare needs a workspace", v->name);
        CHECK(!v->own_output || v->prepare, "row %s: its own output needs the prepare hook's layout", v->name);
        CHECK(cnn_variant_bound(v) != NULL, "row %s: class %s has a bound", v->name, CNN_CLASS[v->cls].name);
    }
    /* the NHWC peers: x, w (KRSC) and y channels-last, each 256-byte aligned, before cuDNN's workspace;
     * each is the first peer of its class (the ratio column's base) */
    CHECK(cnn_nhwc_bytes(&e4, CNN_NHWC_BF16) == 2 * (256 * 64 * 64 + 256 * 9 * 256 + 256 * 64 * 64) &&
              cnn_nhwc_bytes(&e4, CNN_NHWC_F32) == 2 * cnn_nhwc_bytes(&e4, CNN_NHWC_F16),
          "NHWC arrays' bytes");
    const char *bases[][2] = {{"TF32", "cudnn_tf32_nhwc"}, {"BF16", "cudnn_bf16_nhwc"}, {"FP16", "cudnn_fp16_nhwc"}};
    for (int b = 0; b < 3; b++)
        for (int i = 0; i < cnn_variant_count(); i++) {
            const cnn_variant_row *v = cnn_variant_at(i);
            if (v->role != CNN_ROLE_PEER || strcmp(CNN_CLASS[v->cls].name, bases[b][0])) continue;
            CHECK(!strcmp(v->name, bases[b][1]), "%s's first peer is %s, not %s", bases[b][0], v->name, bases[b][1]);
            break;
        }
    /* FP16's bound: BF16's form with u = 2^-11, the subnormal terms, NAN where y could overflow */
    const double fp16 = cnn_bound_fp16(&e4, 100.0), bf16 = cnn_bound_bf16(&e4, 100.0);
    CHECK(fp16 > 0 && fp16 < bf16 / 4 && fp16 > 100.0 * 0x1p-11, "FP16 bound at sum|xw| = 100: %g (BF16 %g)", fp16, bf16);
    CHECK(cnn_bound_fp16(&e4, 0.0) >= 2304 * 0x1p-23, "FP16 bound at 0 keeps the subnormal terms");
    CHECK(isnan(cnn_bound_fp16(&e4, 70000.0)), "FP16 bound refuses an output that could overflow");
}

int main(void)
{
    test_cnn();
    test_shift();
    test_pixels();
    test_frame();
    return check_report("test_lab04");
}
