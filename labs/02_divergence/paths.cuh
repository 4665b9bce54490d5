/* paths.cuh - Lab 02: the k path bodies of the paths experiment, shared by kernels.cu and the
 * "Your turn" exercise (exercises/paths.cu). CUDA only. */
#ifndef LAB02_PATHS_CUH
#define LAB02_PATHS_CUH

#include "divergence.h"
#include "gl_metrics.cuh"

/* One path body: PATH_ITERS dependent FMAs with constants of its own (path_mul/path_add in
 * model.c), so no two paths are the same code and the compiler cannot merge them. Slopes are
 * close to 1, so the output still depends on the input after PATH_ITERS steps. */
#define PATH_MUL(p) (1.0f - (float)((p) + 1) * 0x1p-13f)
#define PATH_ADD(p) ((float)(p) * 0.03125f - 0.5f)
#define PATH_CASE(p)                                                 \
    case p:                                                          \
        _Pragma("unroll 16") for (int i = 0; i < PATH_ITERS; i++) {  \
            x = __fmaf_rn(x, PATH_MUL(p), PATH_ADD(p));              \
            gl_count_active(c);                                      \
        }                                                            \
        break;

static __device__ __forceinline__ float run_path(uint32_t path, float x, gl_lane_counts *c)
{
    switch (path) {
        PATH_CASE(0) PATH_CASE(1) PATH_CASE(2) PATH_CASE(3) PATH_CASE(4) PATH_CASE(5) PATH_CASE(6)
        PATH_CASE(7) PATH_CASE(8) PATH_CASE(9) PATH_CASE(10) PATH_CASE(11) PATH_CASE(12)
        PATH_CASE(13) PATH_CASE(14) PATH_CASE(15) PATH_CASE(16) PATH_CASE(17) PATH_CASE(18)
        PATH_CASE(19) PATH_CASE(20) PATH_CASE(21) PATH_CASE(22) PATH_CASE(23) PATH_CASE(24)
        PATH_CASE(25) PATH_CASE(26) PATH_CASE(27) PATH_CASE(28) PATH_CASE(29) PATH_CASE(30)
        PATH_CASE(31)
    }
    return x;
}

#endif
