/* mpi_gpu.h - Lab 05 part 2 (haar_mpi): its own GPU helpers (mpi_gpu.cu). */
#ifndef MPI_GPU_H
#define MPI_GPU_H
#include <stddef.h>
#include <cuda_runtime.h>
#ifdef __cplusplus
extern "C" {
#endif
/* n 8-bit pixels at d_u8 as floats at d_f32 (n a multiple of 4, both 16-byte aligned), on stream s. */
cudaError_t born_widen(const unsigned char *d_u8, float *d_f32, size_t n, cudaStream_t s);
/* One sub-band rectangle to place: rows x cols floats from src (in the gathered strips) to dst (in
 * the image's layout), offsets in floats, both with the image's row pitch. */
typedef struct {
    size_t src, dst;
    int rows, cols;
} place_rect;
/* Every rectangle of the table (n of them, in device memory) in one launch, on stream s. */
cudaError_t place_rects(const place_rect *d_table, int n, const float *src, float *dst, size_t pitch, cudaStream_t s);
/* nccl_compress's operations on a strip x of n floats (rows of `width`; rects: its sub-band
 * rectangles, src in the strip, dst in the image, in device memory), each a partial sum of this
 * rank's strip into device memory, on stream s: the histogram of a digit (mask + 1 bins; filter:
 * only magnitudes whose bits above `above` equal prefix), the ties (magnitude bits t) below global
 * index g, the zeroing of what is not kept, and the 8-bit PSNR's squared errors. */
cudaError_t sel_histogram(const float *x, size_t n, int shift, int above, unsigned mask, unsigned prefix, int filter,
                          unsigned long long *d_hist, cudaStream_t s);
cudaError_t sel_ties_below(const float *x, size_t n, int width, const place_rect *rects, int nrects, unsigned t,
                           unsigned long long g, unsigned long long *d_count, cudaStream_t s);
cudaError_t sel_drop(float *x, size_t n, int width, const place_rect *rects, int nrects, unsigned t,
                     unsigned long long cutoff, cudaStream_t s);
cudaError_t squared_error(const unsigned char *orig, const float *rec, size_t n, unsigned long long *d_se,
                          cudaStream_t s);
/* Hold stream s until the host sets the mapped pinned int whose device address is open_on_device
 * to nonzero (the work queued behind it is then timed without its launch). */
cudaError_t gate_hold(const int *open_on_device, cudaStream_t s);
#ifdef __cplusplus
}
#endif
#endif
