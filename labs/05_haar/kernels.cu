/* kernels.cu - Lab 05: the GPU ladder (stub until the kernels land). */
#include "haar_gpu.h"
extern "C" const char *haar_rung_name(haar_rung r) { (void)r; return "stub"; }
extern "C" size_t haar_gpu_scratch_bytes(haar_rung r, int w, int h, int l) { (void)r; (void)w; (void)h; (void)l; return 0; }
extern "C" cudaError_t haar_gpu_forward(haar_rung, const float *, float *, int, int, size_t, int, haar_convention, void *,
                                        unsigned long long *, cudaStream_t) { return cudaErrorNotSupported; }
extern "C" cudaError_t haar_gpu_inverse(haar_rung, const float *, float *, int, int, size_t, int, haar_convention, void *,
                                        unsigned long long *, cudaStream_t) { return cudaErrorNotSupported; }
extern "C" double haar_gpu_tolerance(haar_convention c, int levels, double m) { return c == HAAR_AVERAGE ? 0 : 4.0 * levels * 1.1920929e-7 * m; }
extern "C" cudaError_t haar_gpu_keep_largest(float *, int, int, size_t, size_t, float *, size_t *, cudaStream_t) { return cudaErrorNotSupported; }
