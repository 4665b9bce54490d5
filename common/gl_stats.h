/* gl_stats.h - summary statistics of repeated timings (pure C11). */
#ifndef GL_STATS_H
#define GL_STATS_H

#include <stdlib.h>
#include <string.h>

typedef struct {
    double median, min, max;
    int n;
} gl_summary;

static int gl_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median (mean of the two middle values for even n), min and max. Sorts a copy; n >= 1. */
static inline gl_summary gl_summarize(const double *v, int n)
{
    gl_summary s = {0.0, 0.0, 0.0, n};
    if (n <= 0) return s;
    double *t = (double *)malloc((size_t)n * sizeof *t);
    if (!t) abort();
    memcpy(t, v, (size_t)n * sizeof *t);
    qsort(t, (size_t)n, sizeof *t, gl_cmp_double);
    s.min = t[0];
    s.max = t[n - 1];
    s.median = (n % 2) ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
    free(t);
    return s;
}

#endif
