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

int main(void)
{
    test_hand();
    test_round_trip();
    test_checks();
    return check_report("test_lab05");
}
