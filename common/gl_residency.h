/* gl_residency.h - SM efficiency and achieved occupancy from per-warp residency records
 * (gl_metrics.cuh: gl_warp_begin / gl_warp_record), without a profiler. Header-only C11.
 *
 * span          = last warp end - first warp start (the kernel's duration as the warps saw it)
 * SM efficiency = for each SM of the GPU, the time at least one warp was resident on it / span,
 *                 averaged over all SMs (idle SMs count as 0): nvprof's sm_efficiency, ncu's
 *                 sm__cycles_active.avg.pct_of_peak_sustained_elapsed.
 * SMSP eff.     = the same per SM sub-partition (warp slot % 4): ncu's
 *                 smsp__cycles_active.avg.pct_of_peak_sustained_elapsed.
 * achieved occ. = sum of warp residency times / sum of SM active times / max warps per SM: the
 *                 time-weighted resident warps while an SM is active, ncu's
 *                 sm__warps_active.avg.pct_of_peak_sustained_active.
 * A warp counts as resident from the first instruction any warp of its block ran (all warps of a
 * block are placed on the SM together; a warp the scheduler has not yet issued from is resident
 * but has not read the timer) to its own last instruction. */
#ifndef GL_RESIDENCY_H
#define GL_RESIDENCY_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GL_SMSP_PER_SM 4
#define GL_WARP_RECORD_WORDS 3 /* start, end, SM id << 32 | warp slot (gl_metrics.cuh writes them) */

typedef struct {
    uint64_t start, end; /* %globaltimer, ns */
    uint32_t sm, slot;   /* SM id and warp slot on the SM (sub-partition = slot % 4) */
} gl_warp_rec;

typedef struct {
    double span_us;
    double sm_efficiency, smsp_efficiency, achieved_occupancy; /* percent */
    int sms_used;                                               /* SMs that ran at least one warp */
    long long warps;
} gl_residency;

/* Unpack `warps` records of GL_WARP_RECORD_WORDS words; returns -1 (and says which) if a
 * record was never written (still all-ones poison) or is inconsistent. */
static inline int gl_unpack_warp_records(const unsigned long long *w, size_t warps, gl_warp_rec *out,
                                         int sms, const char *what)
{
    for (size_t i = 0; i < warps; i++) {
        const unsigned long long *r = w + GL_WARP_RECORD_WORDS * i;
        gl_warp_rec x = {r[0], r[1], (uint32_t)(r[2] >> 32), (uint32_t)(r[2] & 0xffffffffu)};
        if (r[2] == ~0ull || x.end < x.start || x.sm >= (uint32_t)sms) {
            fprintf(stderr, "%s: residency record of warp %zu is %s\n", what, i,
                    r[2] == ~0ull ? "missing (the warp never wrote it)" : "inconsistent");
            return -1;
        }
        out[i] = x;
    }
    return 0;
}

/* Records in launch order, `per_block` warps per block: start every warp when its block started
 * (the earliest first instruction among the block's warps). */
static inline void gl_warps_start_with_block(gl_warp_rec *r, size_t n, unsigned per_block)
{
    for (size_t b = 0; b < n; b += per_block) {
        uint64_t first = r[b].start;
        for (size_t w = b; w < b + per_block && w < n; w++) first = r[w].start < first ? r[w].start : first;
        for (size_t w = b; w < b + per_block && w < n; w++) r[w].start = first;
    }
}

static inline int gl_rec_cmp_unit_start(const void *a, const void *b, int per_smsp)
{
    const gl_warp_rec *x = (const gl_warp_rec *)a, *y = (const gl_warp_rec *)b;
    uint32_t ux = per_smsp ? x->sm * GL_SMSP_PER_SM + x->slot % GL_SMSP_PER_SM : x->sm;
    uint32_t uy = per_smsp ? y->sm * GL_SMSP_PER_SM + y->slot % GL_SMSP_PER_SM : y->sm;
    if (ux != uy) return ux < uy ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}
static inline int gl_rec_cmp_sm(const void *a, const void *b) { return gl_rec_cmp_unit_start(a, b, 0); }
static inline int gl_rec_cmp_smsp(const void *a, const void *b) { return gl_rec_cmp_unit_start(a, b, 1); }

/* Sum over units (SMs or sub-partitions) of the time covered by at least one warp, in ns.
 * Sorts `r` by (unit, start). */
static inline double gl_busy_ns(gl_warp_rec *r, size_t n, int per_smsp)
{
    qsort(r, n, sizeof *r, per_smsp ? gl_rec_cmp_smsp : gl_rec_cmp_sm);
    double busy = 0;
    size_t i = 0;
    while (i < n) {
        uint32_t unit = per_smsp ? r[i].sm * GL_SMSP_PER_SM + r[i].slot % GL_SMSP_PER_SM : r[i].sm;
        uint64_t lo = r[i].start, hi = r[i].end;
        for (; i < n; i++) {
            uint32_t u = per_smsp ? r[i].sm * GL_SMSP_PER_SM + r[i].slot % GL_SMSP_PER_SM : r[i].sm;
            if (u != unit) break;
            if (r[i].start > hi) { /* a gap: close the interval */
                busy += (double)(hi - lo);
                lo = r[i].start;
                hi = r[i].end;
            } else if (r[i].end > hi) {
                hi = r[i].end;
            }
        }
        busy += (double)(hi - lo);
    }
    return busy;
}

/* The three metrics from `n` records (reordered in place) on a GPU of `sms` SMs with
 * `max_warps_per_sm` warp slots each. */
static inline gl_residency gl_residency_of(gl_warp_rec *r, size_t n, int sms, int max_warps_per_sm)
{
    gl_residency g;
    memset(&g, 0, sizeof g);
    g.warps = (long long)n;
    if (n == 0) return g;
    uint64_t first = r[0].start, last = r[0].end;
    double warp_ns = 0;
    char *used = (char *)calloc((size_t)sms, 1);
    for (size_t i = 0; i < n; i++) {
        if (r[i].start < first) first = r[i].start;
        if (r[i].end > last) last = r[i].end;
        warp_ns += (double)(r[i].end - r[i].start);
        if (!used[r[i].sm]) g.sms_used++;
        used[r[i].sm] = 1;
    }
    free(used);
    double span = (double)(last - first);
    double sm_busy = gl_busy_ns(r, n, 0);
    double smsp_busy = gl_busy_ns(r, n, 1);
    g.span_us = span / 1e3;
    if (span > 0) {
        g.sm_efficiency = 100.0 * sm_busy / (span * sms);
        g.smsp_efficiency = 100.0 * smsp_busy / (span * sms * GL_SMSP_PER_SM);
    }
    if (sm_busy > 0) g.achieved_occupancy = 100.0 * warp_ns / sm_busy / max_warps_per_sm;
    return g;
}

#endif
