/* gl_verify.h - compare GPU output with a CPU reference; print the first mismatches; exit 1.
 * Header-only C11. Outputs are poisoned (all bytes 0xFF, a NaN for floats) before the kernel runs,
 * so an element the kernel never wrote can never pass. */
#ifndef GL_VERIFY_H
#define GL_VERIFY_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "gl_check.h"

#define GL_POISON_BYTE 0xFF
#define GL_MAX_MISMATCH_LINES 10

/* Exact (bit-for-bit) comparison: for integer maths and for float maths that the CPU reference
 * repeats operation for operation. `index` (may be NULL) gives the element number of position i,
 * for the message. Returns the number of mismatches and prints the first few. */
static inline long long gl_compare_exact_f32(const char *what, const float *got, const float *want,
                                             const size_t *index, size_t n)
{
    long long bad = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t g, w;
        memcpy(&g, &got[i], 4);
        memcpy(&w, &want[i], 4);
        if (g == w) continue;
        if (bad < GL_MAX_MISMATCH_LINES)
            fprintf(stderr, "  %s: element %zu: got %.9g (0x%08x%s), expected %.9g (0x%08x)\n", what,
                    index ? index[i] : i, got[i], g, g == 0xFFFFFFFFu ? ", never written" : "", want[i],
                    w);
        bad++;
    }
    return bad;
}

/* Count elements still holding the poison pattern (never written); print the first few. */
static inline long long gl_count_unwritten_f32(const char *what, const float *got, size_t n)
{
    long long bad = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t g;
        memcpy(&g, &got[i], 4);
        if (g != 0xFFFFFFFFu) continue;
        if (bad < GL_MAX_MISMATCH_LINES) fprintf(stderr, "  %s: element %zu was never written\n", what, i);
        bad++;
    }
    return bad;
}

/* Poison `bytes` of GPU memory (every byte GL_POISON_BYTE) before a kernel writes its output. */
static inline void gl_poison(void *d, size_t bytes) { GL_CHECK(cudaMemset(d, GL_POISON_BYTE, bytes)); }

/* Report the outcome of a check; a failure ends the program with exit code 1. */
static inline void gl_require_match(const char *what, long long mismatches, long long checked)
{
    if (mismatches == 0) return;
    fprintf(stderr, "VERIFICATION FAILED: %s: %lld of %lld checked elements differ\n", what,
            mismatches, checked);
    exit(GL_EXIT_FAIL);
}

#endif
