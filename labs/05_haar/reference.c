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
    if (max < 1) { /* an odd side: no level at all */
        snprintf(err, errlen, "%d x %d has an odd side: one level needs both sides even", width, height);
        return -1;
    }
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

/* The columns of a strip side by side: pass() on each of `cols` adjacent columns, the strip read
 * and written one row at a time (a row's columns share cache lines and pages; one column alone
 * touches a page per pixel). Every value is computed exactly as pass() computes it. tmp: cols * n. */
static void pass_columns(float *v, int n, size_t pitch, int cols, double s, int inverse, double *tmp)
{
    int h = n / 2;
    for (int i = 0; i < h; i++) {
        const float *a = v + (size_t)(inverse ? i : 2 * i) * pitch, *b = v + (size_t)(inverse ? h + i : 2 * i + 1) * pitch;
        for (int c = 0; c < cols; c++) {
            double *t = tmp + (size_t)c * n;
            if (!inverse) {
                t[i] = ((double)a[c] + b[c]) * s;
                t[h + i] = ((double)a[c] - b[c]) * s;
            } else {
                double lo = a[c] / s, hi = b[c] / s;
                t[2 * i] = (lo + hi) / 2;
                t[2 * i + 1] = (lo - hi) / 2;
            }
        }
    }
    for (int i = 0; i < n; i++)
        for (int c = 0; c < cols; c++) v[(size_t)i * pitch + c] = (float)tmp[(size_t)c * n + i];
}

#define COLUMN_STRIP 16 /* columns per strip on every core: 64 bytes of a row */

/* One level: every row pass, then every column pass (inverse: the other way round). Rows and
 * column strips are independent outputs: with all_cores they are shared among the threads
 * (gl_parallel.h), each value computed exactly as on one core, where the columns go one by one
 * (the seed's plain loop nest). tmp: `stride` * COLUMN_STRIP doubles per thread. */
static void level(float *img, int w, int h, size_t pitch, double s, int inverse, double *tmp, size_t stride,
                  int all_cores)
{
    for (int part = 0; part < 2; part++) {
        int rows = (part == 0) != inverse; /* forward: rows first; inverse: columns first */
        if (rows || all_cores) {
            int strip = rows ? 1 : COLUMN_STRIP, count = rows ? h : (w + strip - 1) / strip;
            GL_PARALLEL_FOR_WITH(if (all_cores))
            for (int i = 0; i < count; i++) {
                double *t = tmp + (size_t)gl_cpu_thread() * stride * COLUMN_STRIP;
                if (rows) pass(img + (size_t)i * pitch, w, 1, s, inverse, t);
                else pass_columns(img + (size_t)i * strip, h, pitch, w - i * strip < strip ? w - i * strip : strip, s,
                                  inverse, t);
            }
        } else {
            for (int i = 0; i < w; i++) pass(img + i, h, pitch, s, inverse, tmp);
        }
    }
}

/* L levels forward (coarsest last) or inverse (coarsest first); scratch: a strip of the longer
 * side per thread for pass_columns(). */
static void transform(float *img, int width, int height, size_t pitch, int levels, haar_convention c, int inverse,
                      int all_cores)
{
    size_t stride = (size_t)(width > height ? width : height);
    double *tmp = (double *)malloc(sizeof(double) * stride * COLUMN_STRIP * (size_t)(all_cores ? gl_cpu_threads() : 1));
    if (!tmp) {
        fprintf(stderr, "haar: out of host memory\n");
        exit(1);
    }
    for (int i = 0; i < levels; i++) {
        int k = inverse ? levels - 1 - i : i;
        level(img, width >> k, height >> k, pitch, scale_of(c), inverse, tmp, stride, all_cores);
    }
    free(tmp);
}

void haar_forward_ref(float *img, int width, int height, size_t pitch, int levels, haar_convention c)
{
    transform(img, width, height, pitch, levels, c, 0, 0);
}

void haar_inverse_ref(float *img, int width, int height, size_t pitch, int levels, haar_convention c)
{
    transform(img, width, height, pitch, levels, c, 1, 0);
}

void haar_forward_ref_all_cores(float *img, int width, int height, size_t pitch, int levels, haar_convention c)
{
    transform(img, width, height, pitch, levels, c, 0, 1);
}

void haar_inverse_ref_all_cores(float *img, int width, int height, size_t pitch, int levels, haar_convention c)
{
    transform(img, width, height, pitch, levels, c, 1, 1);
}

/* ---------------------------------------------------------------- compression */

/* The k-th smallest of a[0..n) (k from 0), by quickselect: a is reordered. */
static float kth_smallest(float *a, size_t n, size_t k)
{
    long long lo = 0, hi = (long long)n - 1, want = (long long)k;
    while (lo < hi) {
        float x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi]; /* the pivot: median of three */
        float pivot = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);
        long long i = lo, j = hi;
        while (i <= j) { /* Hoare: a[lo..j] <= pivot <= a[i..hi] */
            while (a[i] < pivot) i++;
            while (a[j] > pivot) j--;
            if (i <= j) {
                float t = a[i];
                a[i++] = a[j];
                a[j--] = t;
            }
        }
        if (want <= j) hi = j;
        else if (want >= i) lo = i;
        else return a[want]; /* between j and i: equal to the pivot */
    }
    return a[lo];
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
    float threshold = keep ? kth_smallest(mag, n, n - keep) : INFINITY; /* the keep-th largest magnitude */
    free(mag);
    size_t above = 0; /* strictly larger ones: always kept (all of them are among the keep largest) */
    for (size_t i = 0; i < n; i++) above += fabsf(coeffs[i]) > threshold;
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
