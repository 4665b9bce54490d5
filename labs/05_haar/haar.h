/* haar.h - Lab 05: the 2D Haar wavelet transform: the CPU reference (the definition every GPU
 * rung is checked against, tested against PyWavelets), on one core and on every core; the GPU
 * ladder (haar_gpu.h), the compression experiment and the MPI program (mpi/) build on it.
 *
 * Layout: M x N float image (height x width), rows `pitch` floats apart, transformed in place.
 * One level transforms the top-left (H / 2^(k-1)) x (W / 2^(k-1)) region: every row, pairs
 * (a, b) -> ((a + b) s, (a - b) s) with the lows in the left half and the highs in the right
 * half; then every column the same way, lows on top. s = 1/2 (the seed's average / difference)
 * or 1/sqrt(2) (orthonormal: PyWavelets 'haar', mode 'periodization'). After L levels the image
 * holds the usual Mallat layout: LL top left; at each level, top right = detail along x
 * (PyWavelets cV), bottom left = detail along y (cH), bottom right = both (cD). */
#ifndef HAAR_H
#define HAAR_H

#include <stddef.h>

typedef enum { HAAR_AVERAGE, HAAR_ORTHONORMAL } haar_convention;

#ifdef __cplusplus
extern "C" {
#endif
/* 0 if a width x height image can take `levels` levels (1 .. log2(min(width, height)), both sides
 * multiples of 2^levels); else -1 and a one-line reason naming the constraint in err. */
int haar_check(int width, int height, int levels, char *err, size_t errlen);
int haar_max_levels(int width, int height);
const char *haar_convention_name(haar_convention c);

/* The reference, in place on a strip of rows (computed in double, stored as float). */
void haar_forward_ref(float *img, int width, int height, size_t pitch, int levels, haar_convention c);
void haar_inverse_ref(float *img, int width, int height, size_t pitch, int levels, haar_convention c);
/* The same on every core (rows and columns shared among the threads; gl_parallel.h): the same
 * bits. The plain ones above stay on one core (the seed's "1 CPU"; one MPI rank per core). */
void haar_forward_ref_all_cores(float *img, int width, int height, size_t pitch, int levels, haar_convention c);
void haar_inverse_ref_all_cores(float *img, int width, int height, size_t pitch, int levels, haar_convention c);
/* Compression (the reference): keep the `keep` largest-magnitude coefficients of n (ties at the
 * threshold kept in index order), zero the others in place; returns the sum of the squares of the
 * dropped ones. With the orthonormal convention that sum / pixels is exactly the reconstruction's
 * mean squared error (Parseval); with the average convention it is not. */
double haar_keep_largest(float *coeffs, size_t n, size_t keep);
/* How many coefficients "the largest pct%" of n is: pct / 100 * n, rounded. */
size_t haar_keep_count(size_t n, double pct);
/* A reconstructed value as the 8-bit pixel it stands for: rounded, clamped to 0..255 (NaN: 0). */
unsigned char haar_pixel_u8(float r);
/* PSNR in dB of an 8-bit image against a reconstruction turned into pixels by haar_pixel_u8
 * (INFINITY when equal). */
double haar_psnr_u8(const unsigned char *original, const float *reconstructed, size_t n);
#ifdef __cplusplus
}
#endif

#endif
