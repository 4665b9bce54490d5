/* mpi_compress.c - Lab 05 part 2: the global top-k of coefficients spread over ranks.
 *
 * The threshold is a radix select on the magnitudes' float bits. For non-negative floats the bit
 * patterns, read as unsigned integers, sort exactly like the values, so the keep-th largest
 * magnitude can be found one digit at a time: every rank counts its magnitudes per digit value
 * (a histogram of 2048 or 1024 bins), MPI_Allreduce adds the histograms, and every rank walks the
 * same global histogram from the top to the bin that holds the keep-th largest. Three digits
 * (11 + 10 + 10 bits) pin down all 31 bits of the threshold in three small reductions, whatever
 * the image size; no rank sorts or sends a single coefficient.
 *
 * Ties: haar_keep_largest keeps, of the coefficients equal to the threshold, the first ones in
 * the image's row-major order. Each rank knows the global index of every coefficient it holds
 * (mpi_layout.h), so a binary search over the global index - "how many ties lie before index G?",
 * answered by one MPI_Allreduce per step - finds the index below which exactly the needed number
 * of ties lie. That takes about log2(pixels) more reductions of one number each, and only when
 * some ties must be dropped. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gl_check.h"
#include "mpi_compress.h"

static uint32_t magnitude_bits(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u & 0x7fffffffu; /* |x|: the sign bit cleared */
}

/* The three digits of a magnitude's 31 bits: bits 30..20, 19..10, 9..0. */
static const int DIGIT_SHIFT[3] = {20, 10, 0};
static const int DIGIT_BINS[3] = {2048, 1024, 1024};
#define MAX_BINS 2048

/* The three digits of a magnitude's 31 bits, as the walk needs them. */
int haar_digit_shift(int d) { return DIGIT_SHIFT[d]; }
int haar_digit_bins(int d) { return DIGIT_BINS[d]; }

/* ---- the host's operations: the strip in host memory, sums by MPI_Allreduce ---- */

typedef struct {
    MPI_Comm comm;
    float *strip;
    const haar_piece *pieces;
    size_t count, n;
    unsigned long long *idx; /* the ties' global indices (sorted), made at the first ties_below */
    size_t nidx;
    uint32_t idx_of;         /* the threshold they were made for */
} host_sel;

/* Global histogram of digit `d` of the magnitudes whose higher digits equal `prefix`. */
static void host_histogram(void *ctx, int d, uint32_t prefix, unsigned long long *hist)
{
    host_sel *H = (host_sel *)ctx;
    unsigned long long local[MAX_BINS] = {0};
    int shift = DIGIT_SHIFT[d], above = shift + (d == 0 ? 11 : 10);
    uint32_t mask = (uint32_t)DIGIT_BINS[d] - 1;
    for (size_t i = 0; i < H->n; i++) {
        uint32_t u = magnitude_bits(H->strip[i]);
        if (d > 0 && (u >> above) != prefix) continue; /* not in the bin chosen so far */
        local[(u >> shift) & mask]++;
    }
    MPI_Allreduce(local, hist, DIGIT_BINS[d], MPI_UNSIGNED_LONG_LONG, MPI_SUM, H->comm);
}

/* The global indices of this rank's coefficients equal to `t`, in increasing order (the pieces
 * are sorted by image offset). Returns a malloc'ed array, its length in *n. */
static unsigned long long *tie_indices(const float *strip, const haar_piece *pieces, size_t count, uint32_t t,
                                       size_t *n)
{
    size_t cap = 64, k = 0;
    unsigned long long *idx = (unsigned long long *)gl_host_alloc(cap * sizeof *idx, "tie indices");
    for (size_t p = 0; p < count; p++)
        for (int j = 0; j < pieces[p].len; j++) {
            if (magnitude_bits(strip[pieces[p].strip_off + (size_t)j]) != t) continue;
            if (k == cap) {
                cap *= 2;
                idx = (unsigned long long *)realloc(idx, cap * sizeof *idx);
                if (!idx) {
                    fprintf(stderr, "haar_mpi: out of host memory for tie indices\n");
                    exit(GL_EXIT_FAIL);
                }
            }
            idx[k++] = pieces[p].image_off + (unsigned long long)j;
        }
    *n = k;
    return idx;
}

/* How many of the sorted indices are below g (a binary search). */
static unsigned long long count_below(const unsigned long long *idx, size_t n, unsigned long long g)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (idx[mid] < g) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The ties (magnitude bits t) below global index g, over all ranks. */
static unsigned long long host_ties_below(void *ctx, uint32_t t, unsigned long long g)
{
    host_sel *H = (host_sel *)ctx;
    if (!H->idx || H->idx_of != t) {
        free(H->idx);
        H->idx = tie_indices(H->strip, H->pieces, H->count, t, &H->nidx);
        H->idx_of = t;
    }
    unsigned long long local = count_below(H->idx, H->nidx, g), global = 0;
    MPI_Allreduce(&local, &global, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, H->comm);
    return global;
}

/* Zero what is not kept (haar_sel_ops.drop); the sum of the squares dropped, over all ranks. */
static double host_drop(void *ctx, uint32_t t, unsigned long long cutoff)
{
    host_sel *H = (host_sel *)ctx;
    double dropped = 0, all = 0;
    for (size_t p = 0; p < H->count; p++)
        for (int j = 0; j < H->pieces[p].len; j++) {
            float *c = &H->strip[H->pieces[p].strip_off + (size_t)j];
            uint32_t u = magnitude_bits(*c);
            if (u > t || (u == t && H->pieces[p].image_off + (unsigned long long)j < cutoff)) continue;
            dropped += (double)*c * *c;
            *c = 0.0f;
        }
    MPI_Allreduce(&dropped, &all, 1, MPI_DOUBLE, MPI_SUM, H->comm);
    return all;
}

/* ---- the walk, the same for every set of operations ---- */

/* The smallest global index G with exactly `need` ties (over all ranks) below it. */
static unsigned long long tie_cutoff(const haar_sel_ops *ops, void *ctx, uint32_t t, unsigned long long total,
                                     unsigned long long need, int *rounds)
{
    unsigned long long lo = 0, hi = total; /* count(below lo) < need <= count(below hi) */
    while (lo < hi) {
        unsigned long long mid = lo + (hi - lo) / 2, global = ops->ties_below(ctx, t, mid);
        (*rounds)++;
        if (global >= need) hi = mid;
        else lo = mid + 1;
    }
    return lo;
}

void haar_mpi_select(const haar_sel_ops *ops, void *ctx, unsigned long long total, unsigned long long keep,
                     haar_mpi_selection *sel)
{
    memset(sel, 0, sizeof *sel);
    if (keep >= total) { /* everything stays (haar_keep_largest returns 0 at once) */
        sel->threshold = 0.0f;
        sel->above = total;
        return;
    }
    if (keep == 0) { /* nothing stays: every magnitude is <= the largest bit pattern, none before index 0 */
        sel->dropped = ops->drop(ctx, 0xffffffffu, 0);
        sel->threshold = INFINITY;
        return;
    }
    /* Radix select: `remaining` of the largest are still to be found below the chosen prefix. */
    unsigned long long remaining = keep, hist[MAX_BINS];
    uint32_t prefix = 0;
    for (int d = 0; d < 3; d++) {
        ops->histogram(ctx, d, prefix, hist);
        sel->rounds++;
        unsigned long long larger = 0; /* in higher bins of this digit: above the threshold */
        int b = DIGIT_BINS[d] - 1;
        while (larger + hist[b] < remaining) larger += hist[b--];
        remaining -= larger;
        sel->above += larger;
        prefix = (prefix << (d == 0 ? 11 : 10)) | (uint32_t)b; /* (digit 0 has 11 bits) */
        if (d == 2) sel->ties = hist[b];
    }
    uint32_t t = prefix; /* all 31 bits: the threshold's magnitude */
    memcpy(&sel->threshold, &t, sizeof t);
    sel->ties_kept = remaining;
    /* Which ties stay: all of them, or those before the cutoff index. */
    sel->cutoff = total;
    if (remaining < sel->ties) sel->cutoff = tie_cutoff(ops, ctx, t, total, remaining, &sel->rounds);
    sel->dropped = ops->drop(ctx, t, sel->cutoff); /* everything else */
    sel->rounds++;
}

void haar_mpi_keep_largest(MPI_Comm comm, float *strip, const haar_piece *pieces, size_t count,
                           unsigned long long total, unsigned long long keep, haar_mpi_selection *sel)
{
    host_sel H = {comm, strip, pieces, count, 0, NULL, 0, 0};
    for (size_t p = 0; p < count; p++) H.n += (size_t)pieces[p].len;
    static const haar_sel_ops ops = {host_histogram, host_ties_below, host_drop};
    haar_mpi_select(&ops, &H, total, keep, sel);
    free(H.idx);
}

/* The 8-bit value of a reconstructed pixel: haar_psnr_u8's rounding and clamping. */
static int to_u8(float r) { return r != r ? 0 : r < 0.0f ? 0 : r > 255.0f ? 255 : (int)lrintf(r); }

double haar_mpi_psnr_u8(MPI_Comm comm, const unsigned char *original, const float *reconstructed, size_t n,
                        unsigned long long total)
{
    unsigned long long local = 0, se = 0;
    for (size_t i = 0; i < n; i++) {
        long long d = (long long)to_u8(reconstructed[i]) - original[i];
        local += (unsigned long long)(d * d);
    }
    MPI_Allreduce(&local, &se, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm);
    return haar_mpi_psnr_of(se, total);
}

double haar_mpi_psnr_of(unsigned long long se, unsigned long long total)
{
    if (se == 0) return INFINITY;
    return 10.0 * log10(255.0 * 255.0 / ((double)se / (double)total));
}
