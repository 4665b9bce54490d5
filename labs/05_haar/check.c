/* check.c - Lab 05: how a result is checked against the reference (bit for bit, or within a bound;
 * a poisoned value always fails), and which experiments the run selected. main.c and compress.c
 * call down into it; it calls neither of them. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "lab05.h"
#include "gl_parallel.h"

/* Is got[i] right: never written (poison) is wrong; tol 0: bit for bit, else |got - want| <= tol. */
static int value_ok(const float *got, const float *want, size_t i, double tol)
{
    uint32_t g;
    memcpy(&g, &got[i], 4);
    return g != 0xFFFFFFFFu && (tol == 0 ? memcmp(&got[i], &want[i], 4) == 0 : fabs((double)got[i] - want[i]) <= tol);
}

/* Compare the w x h part of got (pitch) with want: |got - want| <= tol (tol 0: bit for bit).
 * Rows are checked on every core (the max and the count do not depend on the order); on failure
 * the first mismatches are printed in order and the run exits 1; a poisoned value always fails. */
check_result lab05_compare(const char *what, const float *got, const float *want, const haar_case *k, double tol)
{
    check_result r = {0, 0, (long long)k->w * k->h};
    long long bad = 0;
    double max_err = 0, max_over = 0;
    GL_PARALLEL_FOR_WITH(reduction(+ : bad) reduction(max : max_err, max_over))
    for (int y = 0; y < k->h; y++)
        for (int x = 0; x < k->w; x++) {
            size_t i = (size_t)y * k->pitch + x;
            double e = fabs((double)got[i] - want[i]);
            if (!isnan(e)) max_err = fmax(max_err, e);
            if (tol > 0 && !isnan(e)) max_over = fmax(max_over, e / tol);
            bad += !value_ok(got, want, i, tol);
        }
    r.max_err = max_err, r.max_over_bound = max_over;
    long long shown = 0;
    for (int y = 0; y < k->h && bad && shown < GL_MAX_MISMATCH_LINES; y++)
        for (int x = 0; x < k->w && shown < GL_MAX_MISMATCH_LINES; x++) {
            size_t i = (size_t)y * k->pitch + x;
            if (value_ok(got, want, i, tol)) continue;
            uint32_t g;
            memcpy(&g, &got[i], 4);
            fprintf(stderr, "  %s: (x %d, y %d): got %.9g%s, expected %.9g (allowed error %.3g)\n", what, x, y, got[i],
                    g == 0xFFFFFFFFu ? " (never written)" : "", want[i], tol);
            shown++;
        }
    gl_require_match(what, bad, r.checked);
    return r;
}


double lab05_max_abs(const float *v, const haar_case *k)
{
    double m = 0;
    GL_PARALLEL_FOR_WITH(reduction(max : m))
    for (int y = 0; y < k->h; y++)
        for (int x = 0; x < k->w; x++) m = fmax(m, fabs(v[(size_t)y * k->pitch + x]));
    return m;
}

int lab05_wanted(const lab05 *L, const char *experiment) { return gl_cli_selected(&L->lab.cli, experiment, NULL); }
