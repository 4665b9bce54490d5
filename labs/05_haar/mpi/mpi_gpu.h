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
/* Hold stream s until the host sets the mapped pinned int whose device address is open_on_device
 * to nonzero (the work queued behind it is then timed without its launch). */
cudaError_t gate_hold(const int *open_on_device, cudaStream_t s);
#ifdef __cplusplus
}
#endif
#endif
