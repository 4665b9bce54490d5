/* reference.c - Lab 05: the CPU reference of the 2D Haar transform (the definition). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gl_parallel.h"
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

/* One level: every row pass, then every column pass (inverse: the other way round). Rows and
 * columns are independent outputs, so they are shared among the cores (gl_parallel.h); each value
 * is computed exactly as on one core. tmp holds `stride` doubles per thread. */
static void level(float *img, int w, int h, size_t pitch, double s, int inverse, double *tmp, size_t stride)
{
    for (int part = 0; part < 2; part++) {
        int rows = (part == 0) != inverse; /* forward: rows first; inverse: columns first */
        int count = rows ? h : w;
        GL_PARALLEL_FOR
        for (int i = 0; i < count; i++) {
            double *t = tmp + (size_t)gl_cpu_thread() * stride;
            if (rows) pass(img + (size_t)i * pitch, w, 1, s, inverse, t);
            else pass(img + i, h, pitch, s, inverse, t);
        }
    }
}

/* Scratch for pass(): one line of the longer side per thread. */
static double *line_scratch(int width, int height, size_t *stride)
{
    *stride = (size_t)(width > height ? width : height);
    double *tmp = (double *)malloc(sizeof(double) * *stride * (size_t)gl_cpu_threads());
    if (!tmp) {
        fprintf(stderr, "haar: out of host memory\n");
        exit(1);
    }
    return tmp;
}

void haar_forward_ref(float *img, int width, int height, size_t pitch, int levels, haar_convention c)
{
    size_t stride;
    double *tmp = line_scratch(width, height, &stride);
    for (int k = 0; k < levels; k++) level(img, width >> k, height >> k, pitch, scale_of(c), 0, tmp, stride);
    free(tmp);
}

void haar_inverse_ref(float *img, int width, int height, size_t pitch, int levels, haar_convention c)
{
    size_t stride;
    double *tmp = line_scratch(width, height, &stride);
    for (int k = levels - 1; k >= 0; k--) level(img, width >> k, height >> k, pitch, scale_of(c), 1, tmp, stride);
    free(tmp);
}

/* ---------------------------------------------------------------- compression */

static int cmp_desc(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x < y) - (x > y);
}

double haar_keep_largest(float *coeffs, size_t n, size_t keep)
{
    if (keep >= n) return 0.0;
    float *mag = (float *)malloc(n * sizeof(float));
    if (!mag) {
        fprintf(stderr, "haar: out of host memory\n");
        exit(1);
    }
    for (size_t i = 0; i < n; i++) mag[i] = fabsf(coeffs[i]);
    qsort(mag, n, sizeof(float), cmp_desc);
    float threshold = keep ? mag[keep - 1] : INFINITY; /* the keep-th largest magnitude */
    size_t above = 0;                                   /* strictly larger ones: always kept */
    for (size_t i = 0; i < keep; i++) above += mag[i] > threshold;
    free(mag);
    size_t ties = keep - above; /* how many of those equal to the threshold stay */
    double dropped = 0;
    for (size_t i = 0; i < n; i++) {
        float m = fabsf(coeffs[i]);
        if (m > threshold) continue;
        if (m == threshold && ties > 0) {
            ties--;
            continue;
        }
        dropped += (double)coeffs[i] * coeffs[i];
        coeffs[i] = 0.0f;
    }
    return dropped;
}

size_t haar_keep_count(size_t n, double pct) { return (size_t)llround(pct / 100.0 * (double)n); }

unsigned char haar_pixel_u8(float r)
{
    return (unsigned char)(r != r ? 0 : r < 0.0f ? 0 : r > 255.0f ? 255 : (int)lrintf(r));
}

double haar_psnr_u8(const unsigned char *original, const float *reconstructed, size_t n)
{
    double se = 0;
    for (size_t i = 0; i < n; i++) {
        double d = (double)haar_pixel_u8(reconstructed[i]) - original[i];
        se += d * d;
    }
    if (se == 0) return INFINITY;
    return 10.0 * log10(255.0 * 255.0 / (se / (double)n));
}
