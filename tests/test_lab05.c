/* test_lab05.c - CPU tests of Lab 05's Haar reference: hand-computed 2x2 cases in both
 * conventions, inverse(forward(x)) = x, Parseval for the orthonormal one, a strip with a pitch,
 * and the size / level checks. (tests/pywt_check.py compares with PyWavelets.) */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "gl_rng.h"
#include "haar.h"

static void test_hand(void)
{
    /* [[1, 2], [3, 5]]: rows first, then columns */
    float a[4] = {1, 2, 3, 5}, o[4] = {1, 2, 3, 5};
    haar_forward_ref(a, 2, 2, 2, 1, HAAR_AVERAGE);
    CHECK(a[0] == 2.75f && a[1] == -0.75f && a[2] == -1.25f && a[3] == 0.25f, "average: %g %g %g %g", a[0], a[1],
          a[2], a[3]);
    /* PyWavelets: cA 5.5, cV -1.5 (top right), cH -2.5 (bottom left), cD 0.5 */
    haar_forward_ref(o, 2, 2, 2, 1, HAAR_ORTHONORMAL);
    CHECK(fabsf(o[0] - 5.5f) < 1e-6f && fabsf(o[1] + 1.5f) < 1e-6f && fabsf(o[2] + 2.5f) < 1e-6f &&
              fabsf(o[3] - 0.5f) < 1e-6f,
          "orthonormal: %g %g %g %g", o[0], o[1], o[2], o[3]);
}

static void test_round_trip(void)
{
    enum { W = 64, H = 32, PITCH = 80 };
    float *x = malloc(sizeof(float) * PITCH * H), *y = malloc(sizeof(float) * PITCH * H);
    gl_fill_floats(x, (size_t)PITCH * H, 7, 1);
    for (int c = 0; c < 2; c++) {
        memcpy(y, x, sizeof(float) * PITCH * H);
        haar_forward_ref(y, W, H, PITCH, 5, (haar_convention)c);
        double e_in = 0, e_out = 0, worst = 0;
        for (int r = 0; r < H; r++)
            for (int q = 0; q < W; q++) {
                e_in += (double)x[r * PITCH + q] * x[r * PITCH + q];
                e_out += (double)y[r * PITCH + q] * y[r * PITCH + q];
            }
        int pad_untouched = 1;
        for (int r = 0; r < H; r++)
            for (int q = W; q < PITCH; q++) pad_untouched &= y[r * PITCH + q] == x[r * PITCH + q];
        CHECK(pad_untouched, "%s: the pitch padding is not touched", haar_convention_name((haar_convention)c));
        if (c == HAAR_ORTHONORMAL) CHECK(fabs(e_out - e_in) < 1e-4 * e_in, "Parseval: %g vs %g", e_out, e_in);
        haar_inverse_ref(y, W, H, PITCH, 5, (haar_convention)c);
        for (int r = 0; r < H; r++)
            for (int q = 0; q < W; q++) worst = fmax(worst, fabs((double)y[r * PITCH + q] - x[r * PITCH + q]));
        CHECK(worst < 1e-5, "%s: inverse(forward(x)) differs by %g", haar_convention_name((haar_convention)c), worst);
    }
    free(x);
    free(y);
}

static void test_checks(void)
{
    char err[160];
    CHECK(haar_check(512, 512, 9, err, sizeof err) == 0, "512^2, 9 levels");
    CHECK(haar_check(512, 512, 10, err, sizeof err) == -1 && strstr(err, "allows 1..9"), "10 levels: %s", err);
    CHECK(haar_check(96, 64, 5, err, sizeof err) == 0 && haar_check(96, 64, 6, err, sizeof err) == -1, "96 x 64");
    CHECK(haar_check(100, 64, 3, err, sizeof err) == -1 && strstr(err, "multiples of 2^3"), "100 x 64: %s", err);
    CHECK(haar_check(64, 64, 0, err, sizeof err) == -1, "0 levels");
    CHECK(haar_check(1, 64, 1, err, sizeof err) == -1, "1 pixel wide");
    CHECK(haar_max_levels(4096, 2048) == 11, "max levels 4096 x 2048");
}

/* Compression: the kept count, ties, and the orthonormal identity MSE = sum dropped^2 / pixels
 * (which the average convention does not satisfy). */
static void test_compression(void)
{
    float v[6] = {3, -5, 1, -1, 0.5f, 1};
    double d = haar_keep_largest(v, 6, 3); /* keeps -5, 3 and the first of the ties at |1| */
    CHECK(v[0] == 3 && v[1] == -5 && v[2] == 1 && v[3] == 0 && v[4] == 0 && v[5] == 0, "kept: %g %g %g %g %g %g", v[0],
          v[1], v[2], v[3], v[4], v[5]);
    CHECK(d == 1.0 + 0.25 + 1.0, "dropped energy %g", d);
    enum { W = 64, H = 64 };
    unsigned char img[W * H];
    float x[W * H], y[W * H];
    gl_rng r = gl_rng_seeded(3, 1);
    for (int i = 0; i < W * H; i++) img[i] = (unsigned char)(128 + 60 * sin(i * 0.01) + (gl_rng_next(&r) >> 61));
    for (int c = 0; c < 2; c++) {
        for (int i = 0; i < W * H; i++) x[i] = img[i];
        memcpy(y, x, sizeof x);
        haar_forward_ref(y, W, H, W, 4, (haar_convention)c);
        double dropped = haar_keep_largest(y, W * H, W * H / 10);
        haar_inverse_ref(y, W, H, W, 4, (haar_convention)c);
        double mse = 0;
        for (int i = 0; i < W * H; i++) mse += ((double)y[i] - x[i]) * ((double)y[i] - x[i]);
        mse /= W * H;
        double identity = dropped / (W * H);
        if (c == HAAR_ORTHONORMAL)
            CHECK(fabs(mse - identity) < 1e-3 * identity, "orthonormal: MSE %g = dropped / pixels %g", mse, identity);
        else
            CHECK(fabs(mse - identity) > 0.1 * identity, "average: MSE %g should differ from %g", mse, identity);
        double p = haar_psnr_u8(img, y, W * H);
        CHECK(p > 20 && p < 80, "%s: PSNR %g dB at 10%% kept", haar_convention_name((haar_convention)c), p);
    }
    CHECK(isinf(haar_psnr_u8(img, x, W * H)), "PSNR of the image itself is infinite");
}

/* The reference on every core (column strips) gives the one-core bits (one column at a time):
 * padded pitch, odd aspect, a part strip, deepest levels,
 * both conventions, both directions. */
static void test_all_cores(void)
{
    const int W = 1056, H = 96, P = W + 12, L = 5; /* 1056 >> 2 = 264: a part strip of columns */
    size_t n = (size_t)P * H;
    float *one = (float *)malloc(n * sizeof(float)), *all = (float *)malloc(n * sizeof(float));
    for (int c = 0; c <= 1; c++) {
        for (size_t i = 0; i < n; i++) one[i] = (float)((i * 2654435761u) % 509) - 254.5f;
        memcpy(all, one, n * sizeof(float));
        haar_forward_ref(one, W, H, (size_t)P, L, (haar_convention)c);
        haar_forward_ref_all_cores(all, W, H, (size_t)P, L, (haar_convention)c);
        CHECK(memcmp(one, all, n * sizeof(float)) == 0, "%s forward: all cores = one core",
              haar_convention_name((haar_convention)c));
        haar_inverse_ref(one, W, H, (size_t)P, L, (haar_convention)c);
        haar_inverse_ref_all_cores(all, W, H, (size_t)P, L, (haar_convention)c);
        CHECK(memcmp(one, all, n * sizeof(float)) == 0, "%s inverse: all cores = one core",
              haar_convention_name((haar_convention)c));
    }
    free(one);
    free(all);
}

int main(void)
{
    test_all_cores();
    test_compression();
    test_hand();
    test_round_trip();
    test_checks();
    return check_report("test_lab05");
}
