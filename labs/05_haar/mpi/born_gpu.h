/* born_gpu.h - Lab 05 part 2 (haar_mpi): the born-distributed mode's GPU helper (born_gpu.cu). */
#ifndef BORN_GPU_H
#define BORN_GPU_H
#include <stddef.h>
#include <cuda_runtime.h>
#ifdef __cplusplus
extern "C" {
#endif
/* n 8-bit pixels at d_u8 as floats at d_f32 (n a multiple of 4, both 16-byte aligned), on stream s. */
cudaError_t born_widen(const unsigned char *d_u8, float *d_f32, size_t n, cudaStream_t s);
#ifdef __cplusplus
}
#endif
#endif
