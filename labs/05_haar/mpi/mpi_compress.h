/* mpi_compress.h - Lab 05 part 2: compression across ranks. The ranks of a communicator hold the
 * coefficients of one image as strips (each in its own layout, mpi_layout.h); together they keep
 * the `keep` largest magnitudes of the WHOLE image, with the rule of haar_keep_largest (ties at
 * the threshold kept in the image's row-major index order), so the result is the single-process
 * one bit for bit. No rank ever holds more than its own strip. */
#ifndef MPI_COMPRESS_H
#define MPI_COMPRESS_H

#include <mpi.h>
#include <stdint.h>
#include "mpi_layout.h"

typedef struct {
    float threshold;              /* the keep-th largest magnitude of the whole image */
    unsigned long long above;     /* coefficients strictly above it: all kept */
    unsigned long long ties;      /* coefficients equal to it, over all ranks */
    unsigned long long ties_kept; /* of those, the first ones in global index order */
    unsigned long long cutoff;    /* a tie is kept when its global index is below this */
    double dropped;               /* sum of the squares of the dropped coefficients, all ranks */
    int rounds;                   /* MPI_Allreduce calls the selection needed */
} haar_mpi_selection;

/* The selection's three collective operations, for coefficients wherever they are (host memory
 * with MPI: haar_mpi_keep_largest; GPU memory with NCCL: gpu_compress.c). Each returns or fills
 * the sum over all ranks. histogram: of digit d (bits haar_digit_shift(d) up, haar_digit_bins(d)
 * bins) of the magnitudes whose higher bits equal prefix (digit 0: all); ties_below: of the
 * magnitudes equal to t (as bits), those whose global index is below g; drop: zero every
 * coefficient below t, and those equal to t at global index cutoff or beyond, and return the sum
 * of the squares dropped. */
typedef struct {
    void (*histogram)(void *ctx, int d, uint32_t prefix, unsigned long long *hist);
    unsigned long long (*ties_below)(void *ctx, uint32_t t, unsigned long long g);
    double (*drop)(void *ctx, uint32_t t, unsigned long long cutoff);
} haar_sel_ops;
int haar_digit_shift(int d);
int haar_digit_bins(int d);

/* The radix select's walk over those operations: the same threshold, ties and cutoff on every rank. */
void haar_mpi_select(const haar_sel_ops *ops, void *ctx, unsigned long long total, unsigned long long keep,
                     haar_mpi_selection *sel);

/* Collective over comm. `strip` holds this rank's coefficients (rows of `width` floats, its own
 * layout); `pieces` says where they sit in the image (haar_strip_pieces); `total` is the image's
 * number of coefficients. Zeroes the dropped ones in place and fills *sel (the same on every
 * rank). */
void haar_mpi_keep_largest(MPI_Comm comm, float *strip, const haar_piece *pieces, size_t count,
                           unsigned long long total, unsigned long long keep, haar_mpi_selection *sel);

/* Collective: the PSNR of the whole 8-bit image against its reconstruction, each rank holding n
 * pixels of both. The squared errors of 8-bit values are integers, summed exactly (64-bit) and
 * reduced, so every rank gets haar_psnr_u8's value for the whole image bit for bit. */
double haar_mpi_psnr_u8(MPI_Comm comm, const unsigned char *original, const float *reconstructed, size_t n,
                        unsigned long long total);
/* The PSNR of 8-bit pixels from the sum of their squared errors over `total` pixels. */
double haar_mpi_psnr_of(unsigned long long se, unsigned long long total);

#endif
