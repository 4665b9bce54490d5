/* gl_verify.h - compare GPU output with a CPU reference; print the first mismatches; exit 1.
 * Header-only C11. Outputs are poisoned (all bytes 0xFF, a NaN for floats) before the kernel runs,
 * so an element the kernel never wrote can never pass. */
#ifndef GL_VERIFY_H
#define GL_VERIFY_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gl_check.h"
#include "gl_parallel.h"

#define GL_POISON_BYTE 0xFF
#define GL_MAX_MISMATCH_LINES 10

/* Exact (bit-for-bit) comparison: for integer maths and for float maths that the CPU reference
 * repeats operation for operation. `index` (may be NULL) gives the element number of position i,
 * for the message. Returns the number of mismatches and prints the first few. */
static inline long long gl_compare_exact_f32(const char *what, const float *got, const float *want,
                                             const size_t *index, size_t n)
{
    long long bad = 0;
    GL_PARALLEL_FOR_WITH(reduction(+ : bad)) /* count on every core; print only on a failure */
    for (size_t i = 0; i < n; i++) bad += memcmp(&got[i], &want[i], 4) != 0;
    if (bad == 0) return 0;
    bad = 0;
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
static inline void gl_poison(void *d, size_t bytes)
{
    GL_CHECK(cudaMemset(d, GL_POISON_BYTE, bytes));
    gl_fence();
}

/* Report the outcome of a check; a failure ends the program with exit code 1. */
static inline void gl_require_match(const char *what, long long mismatches, long long checked)
{
    if (mismatches == 0) return;
    fprintf(stderr, "VERIFICATION FAILED: %s: %lld of %lld checked elements differ\n", what,
            mismatches, checked);
    exit(GL_EXIT_FAIL);
}

/* The reference value of output i (ctx: whatever the lab's reference needs). */
typedef float (*gl_ref_fn)(const void *ctx, uint32_t i);

/* Copy n outputs back from the GPU, require every one written, and compare bit for bit with
 * ref(ctx, i) either all of them (sample_warps == 0, or n small enough) or the outputs of
 * `sample_warps` evenly spaced warps of 32. A mismatch exits 1 (gl_require_match). Returns the
 * number compared. */
static inline long long gl_verify_warps(const float *d_y, float *h_y, uint32_t n, uint32_t sample_warps,
                                        gl_ref_fn ref, const void *ctx, const char *what)
{
    GL_CHECK(cudaMemcpy(h_y, d_y, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
    gl_require_match(what, gl_count_unwritten_f32(what, h_y, n), n);
    uint32_t warps = (n + 31) / 32;
    uint32_t step = sample_warps == 0 || warps <= sample_warps ? 1 : warps / sample_warps;
    size_t m = (size_t)((warps + step - 1) / step) * 32;
    float *got = (float *)gl_host_alloc(m * sizeof(float), "check");
    float *want = (float *)gl_host_alloc(m * sizeof(float), "check");
    size_t *index = (size_t *)gl_host_alloc(m * sizeof(size_t), "check");
    /* Each sampled output's reference on its own (shared among the cores: gl_parallel.h). */
    GL_PARALLEL_FOR
    for (uint32_t w = 0; w < warps; w += step)
        for (uint32_t i = w * 32; i < w * 32 + 32 && i < n; i++) {
            size_t k = (size_t)(w / step) * 32 + (i - w * 32);
            index[k] = i;
            got[k] = h_y[i];
            want[k] = ref(ctx, i);
        }
    size_t warps_sampled = (warps + step - 1) / step, last = (size_t)(warps_sampled - 1) * step * 32;
    size_t k = (warps_sampled - 1) * 32 + (n - last < 32 ? n - last : 32); /* the last may be partial */
    gl_require_match(what, gl_compare_exact_f32(what, got, want, index, k), (long long)k);
    free(got);
    free(want);
    free(index);
    return (long long)k;
}

#endif
