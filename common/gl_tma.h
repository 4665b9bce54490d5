/* gl_tma.h - tensor maps for Hopper's TMA copies (cp.async.bulk.tensor), one way for every lab.
 *
 * The lesson: a tensor map describes a tiled tensor in global memory (dimensions, strides, a box)
 * once, on the host; one thread then moves a whole box into shared memory with one instruction,
 * and the copy engine generates the addresses, fills what lies outside the tensor with zeros and
 * counts the bytes on an mbarrier. Used by Lab 04's cnn_wgmma_tma.cu and median_w16.cu.
 *
 * cuTensorMapEncodeTiled is a driver function: it is fetched through the runtime
 * (cudaGetDriverEntryPointByVersion), so nothing links against libcuda. */
#ifndef GL_TMA_H
#define GL_TMA_H
#include <stdio.h>
#include <cuda.h>         /* CUtensorMap and its enums only */
#include <cudaTypedefs.h> /* PFN_cuTensorMapEncodeTiled */
#include <cuda_runtime.h>
#include "gl_check.h"

/* The driver's encoder, asked once; NULL (said why) where the driver has none. */
static inline PFN_cuTensorMapEncodeTiled_v12000 gl_tma_encoder(void)
{
    static PFN_cuTensorMapEncodeTiled_v12000 fn;
    if (!fn) {
        void *p = NULL;
        enum cudaDriverEntryPointQueryResult q;
#if CUDART_VERSION >= 12050 /* the versioned query; the plain one is deprecated from 12.5 on */
        GL_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q));
#else
        GL_CHECK(cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &p, cudaEnableDefault, &q));
#endif
        if (q == cudaDriverEntryPointSuccess) fn = (PFN_cuTensorMapEncodeTiled_v12000)p;
        else fprintf(stderr, "tma: cuTensorMapEncodeTiled not found in the driver\n");
    }
    return fn;
}

/* A map of `rank` dimensions (innermost first: dims in elements, strides in bytes of dims 1 ..,
 * box in elements), element strides 1, zero fill out of bounds. 1 on success, 0 (said why) if not. */
static inline int gl_tma_encode(CUtensorMap *map, CUtensorMapDataType type, int rank, void *addr, const cuuint64_t *dims,
                                const cuuint64_t *strides, const cuuint32_t *box, CUtensorMapSwizzle swizzle)
{
    static const cuuint32_t ones[5] = {1, 1, 1, 1, 1};
    PFN_cuTensorMapEncodeTiled_v12000 encode = gl_tma_encoder();
    if (!encode) return 0;
    const CUresult r = encode(map, type, (cuuint32_t)rank, addr, dims, strides, box, ones, CU_TENSOR_MAP_INTERLEAVE_NONE,
                              swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) fprintf(stderr, "tma: cuTensorMapEncodeTiled (rank %d): error %d\n", rank, (int)r);
    return r == CUDA_SUCCESS;
}
#endif
