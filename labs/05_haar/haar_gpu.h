/* haar_gpu.h - Lab 05: the GPU ladder of the 2D Haar transform (kernels.cu, single_pass.cu),
 * callable on a strip of rows (a pointer, width, height, pitch, levels) so that the MPI program
 * (haar_mpi) runs the very same kernels on each rank's strip.
 *
 * Every rung computes with the same float operations in the same order, so all rungs give the
 * same bits (checked on every run); against the CPU reference (double per pass) the average
 * convention is bit-exact and the orthonormal one within haar_gpu_tolerance. */
#ifndef HAAR_GPU_H
#define HAAR_GPU_H

#include <stddef.h>
#include <cuda_runtime_api.h>
#include "haar.h"

typedef enum {
    HAAR_SEED,        /* the seed: processRows / processColumns, one block per row / column,
                         a pass per direction per level; columns read with the row pitch as stride */
    HAAR_COALESCED,   /* the column pass with a warp across 32 consecutive columns */
    HAAR_FUSED_LEVEL, /* one kernel per level: rows and columns together on 2 x 2 blocks */
    HAAR_SINGLE_PASS, /* all levels in one pass: every 2^L x 2^L tile on its own, in shared memory */
    HAAR_SINGLE_PASS_ROWS, /* the single pass with a warp per block row of level 1: fewer instructions
                              per pixel; the inverse's loads in fewer round trips */
    HAAR_RUNG_COUNT
} haar_rung;

/* The single pass keeps a 2^L x 2^L tile per block up to this many levels; deeper transforms
 * run a second (1/4^6 as large) single pass on the approximation. */
#define HAAR_SINGLE_PASS_MAX_LEVELS 6

#ifdef __cplusplus
extern "C" {
#endif
const char *haar_rung_name(haar_rung r);

/* Bytes of GPU scratch a rung needs for this transform (0: none; pass NULL then). */
size_t haar_gpu_scratch_bytes(haar_rung r, int width, int height, int levels);

/* Forward transform, L levels, Mallat layout (haar.h): `in` (width x height floats, rows `pitch`
 * floats apart, on the GPU) into `out` (the same shape and pitch, a different buffer). `in` is not
 * modified. Sizes as haar_check allows them. Enqueued on `stream`; returns the launch error.
 * `counts` (NULL: none) receives 3 counters of global load requests, sectors and 128-byte segments
 * (Lab 01's counter) from the counting twins of the kernels. */
cudaError_t haar_gpu_forward(haar_rung r, const float *in, float *out, int width, int height, size_t pitch,
                             int levels, haar_convention c, void *scratch, unsigned long long *counts,
                             cudaStream_t stream);
/* The inverse: coefficients `in` (Mallat layout) into the image `out`; `in` is not modified. */
cudaError_t haar_gpu_inverse(haar_rung r, const float *in, float *out, int width, int height, size_t pitch,
                             int levels, haar_convention c, void *scratch, unsigned long long *counts,
                             cudaStream_t stream);

/* The largest |gpu - reference| allowed for a transform whose reference has max |value| `max_abs`:
 * 0 for the average convention (exact), 4 * levels * FLT_EPSILON * max_abs for the orthonormal. */
double haar_gpu_tolerance(haar_convention c, int levels, double max_abs);

/* Compression on the GPU: keep the `keep` largest |coefficients| of the width x height image
 * (rows `pitch` apart) and zero the others in place, ties at the threshold kept in row-major
 * index order: the rule of haar_keep_largest. The threshold is found with CUB (a radix sort of
 * the magnitudes' bits, then a scan of the ties). Returns the threshold magnitude in *threshold
 * and the number of coefficients strictly above it in *above. Synchronous. */
cudaError_t haar_gpu_keep_largest(float *coeffs, int width, int height, size_t pitch, size_t keep,
                                  float *threshold, size_t *above, cudaStream_t stream);

/* The GPU bytes haar_gpu_keep_largest allocates (and frees) for a width x height image. */
size_t haar_gpu_keep_largest_bytes(int width, int height);
#ifdef __cplusplus
}
#endif

#endif
