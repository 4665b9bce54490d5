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
 * A warp counts as resident from its block's placement on the SM (rebuilt from the records:
 * gl_warps_start_at_placement) to its own last instruction. */
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

/* Number the SMs the records name 0, 1, ... in order of their hardware ids (%smid ranges over the
 * whole GPU's `sms_device` ids even when a green context gives the run fewer SMs). Returns how
 * many SMs ran a warp; -1 (and says so) when more than `sms_run`: the kernel left its green context. */
static inline int gl_renumber_sms(gl_warp_rec *r, size_t n, int sms_device, int sms_run, const char *what)
{
    int *rank = (int *)malloc((size_t)sms_device * sizeof(int));
    if (!rank) {
        fprintf(stderr, "out of host memory for %d SM ids\n", sms_device);
        exit(1);
    }
    for (int i = 0; i < sms_device; i++) rank[i] = 0;
    for (size_t i = 0; i < n; i++) rank[r[i].sm] = 1;
    int used = 0;
    for (int i = 0; i < sms_device; i++) rank[i] = rank[i] ? used++ : -1;
    for (size_t i = 0; i < n; i++) r[i].sm = (uint32_t)rank[r[i].sm];
    free(rank);
    if (used > sms_run) {
        fprintf(stderr, "%s: warps ran on %d SMs, more than the run's %d: the launch left its green context\n",
                what, used, sms_run);
        return -1;
    }
    return used;
}

/* A block is resident from its placement on the SM, which the kernel cannot see: it sees its
 * first issued instruction, and a busy scheduler may not issue from a fresh block for a long time.
 * The block scheduler refills a slot as soon as a block exits, so the placement is rebuilt per SM:
 * with K = blocks per SM (the occupancy calculator's), the first K blocks to start were placed
 * when the SM's first block started, and the k-th (k >= K) when the (k - K + 1)-th earlier block
 * exited (never later than its own first instruction). Every warp of a block then starts at the
 * block's placement. `r` holds the records in launch order, `per_block` warps per block. */
typedef struct {
    uint64_t first, end;
    uint32_t sm;
    size_t index; /* of the block in launch order */
} gl_block_span;

static inline int gl_span_cmp(const void *a, const void *b)
{
    const gl_block_span *x = (const gl_block_span *)a, *y = (const gl_block_span *)b;
    if (x->sm != y->sm) return x->sm < y->sm ? -1 : 1;
    return (x->first > y->first) - (x->first < y->first);
}

static inline int gl_u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static inline void gl_warps_start_at_placement(gl_warp_rec *r, size_t n, unsigned per_block, int blocks_per_sm)
{
    size_t blocks = (n + per_block - 1) / per_block;
    gl_block_span *s = (gl_block_span *)malloc(blocks * sizeof *s);
    uint64_t *placed = (uint64_t *)malloc(blocks * sizeof *placed);
    uint64_t *ends = (uint64_t *)malloc(blocks * sizeof *ends);
    if (!s || !placed || !ends) {
        fprintf(stderr, "out of host memory for %zu residency records\n", n);
        exit(1);
    }
    for (size_t b = 0; b < blocks; b++) {
        s[b].first = r[b * per_block].start;
        s[b].end = r[b * per_block].end;
        s[b].sm = r[b * per_block].sm;
        s[b].index = b;
        for (size_t w = b * per_block; w < (b + 1) * per_block && w < n; w++) {
            s[b].first = r[w].start < s[b].first ? r[w].start : s[b].first;
            s[b].end = r[w].end > s[b].end ? r[w].end : s[b].end;
        }
    }
    qsort(s, blocks, sizeof *s, gl_span_cmp);
    size_t K = blocks_per_sm > 0 ? (size_t)blocks_per_sm : 1;
    for (size_t lo = 0; lo < blocks;) { /* one SM: s[lo .. hi) in order of first instruction */
        size_t hi = lo;
        while (hi < blocks && s[hi].sm == s[lo].sm) hi++;
        for (size_t k = 0; k < hi - lo; k++) {
            uint64_t p = s[lo].first; /* the first K: placed when the SM started */
            if (k >= K) {             /* the (k - K + 1)-th exit among the earlier blocks */
                for (size_t j = 0; j < k; j++) ends[j] = s[lo + j].end;
                qsort(ends, k, sizeof *ends, gl_u64_cmp);
                p = ends[k - K];
            }
            placed[s[lo + k].index] = p < s[lo + k].first ? p : s[lo + k].first;
        }
        lo = hi;
    }
    for (size_t w = 0; w < n; w++) r[w].start = placed[w / per_block];
    free(s);
    free(placed);
    free(ends);
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
