/* reference.c - Lab 05: the CPU reference of the 2D Haar transform (the definition). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "haar.h"

const char *haar_convention_name(haar_convention c) { return c == HAAR_AVERAGE ? "average" : "orthonormal"; }

int haar_max_levels(int width, int height)
{
    int l = 0;
    while (width % 2 == 0 && height % 2 == 0 && width > 1 && height > 1) {
        width /= 2;
        height /= 2;
        l++;
    }
    return l;
}

int haar_check(int width, int height, int levels, char *err, size_t errlen)
{
    if (width < 2 || height < 2) {
        snprintf(err, errlen, "%d x %d is too small: both sides must be at least 2", width, height);
        return -1;
    }
    int max = haar_max_levels(width, height);
    if (levels < 1 || levels > max) {
        snprintf(err, errlen, "%d level(s) need both sides to be multiples of 2^%d; %d x %d allows 1..%d", levels,
                 levels, width, height, max);
        return -1;
    }
    return 0;
}

static double scale_of(haar_convention c) { return c == HAAR_AVERAGE ? 0.5 : 1.0 / sqrt(2.0); }

/* One pass over n values spaced `stride` apart: pairs to (low | high) halves, or back. */
static void pass(float *v, int n, size_t stride, double s, int inverse, double *tmp)
{
    int h = n / 2;
    if (!inverse) {
        for (int i = 0; i < h; i++) {
            double a = v[(size_t)(2 * i) * stride], b = v[(size_t)(2 * i + 1) * stride];
            tmp[i] = (a + b) * s;
            tmp[h + i] = (a - b) * s;
        }
    } else {
        /* a + b = low / s, a - b = high / s */
        for (int i = 0; i < h; i++) {
            double lo = v[(size_t)i * stride] / s, hi = v[(size_t)(h + i) * stride] / s;
            tmp[2 * i] = (lo + hi) / 2;
            tmp[2 * i + 1] = (lo - hi) / 2;
        }
    }
    for (int i = 0; i < n; i++) v[(size_t)i * stride] = (float)tmp[i];
}

static void level(float *img, int w, int h, size_t pitch, double s, int inverse, double *tmp)
{
    if (!inverse) {
        for (int y = 0; y < h; y++) pass(img + (size_t)y * pitch, w, 1, s, 0, tmp);
        for (int x = 0; x < w; x++) pass(img + x, h, pitch, s, 0, tmp);
    } else {
        for (int x = 0; x < w; x++) pass(img + x, h, pitch, s, 1, tmp);
        for (int y = 0; y < h; y++) pass(img + (size_t)y * pitch, w, 1, s, 1, tmp);
    }
}

void haar_forward_ref(float *img, int width, int height, size_t pitch, int levels, haar_convention c)
{
    double *tmp = (double *)malloc(sizeof(double) * (size_t)(width > height ? width : height));
    if (!tmp) {
        fprintf(stderr, "haar: out of host memory\n");
        exit(1);
    }
    for (int k = 0; k < levels; k++) level(img, width >> k, height >> k, pitch, scale_of(c), 0, tmp);
    free(tmp);
}

void haar_inverse_ref(float *img, int width, int height, size_t pitch, int levels, haar_convention c)
{
    double *tmp = (double *)malloc(sizeof(double) * (size_t)(width > height ? width : height));
    if (!tmp) {
        fprintf(stderr, "haar: out of host memory\n");
        exit(1);
    }
    for (int k = levels - 1; k >= 0; k--) level(img, width >> k, height >> k, pitch, scale_of(c), 1, tmp);
    free(tmp);
}
