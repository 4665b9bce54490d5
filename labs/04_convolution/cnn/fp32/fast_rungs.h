/* fast_rungs.h - Lab 04, part 2: the fast direct rungs of the FP32 ladder: ours7_fast (the tuned
 * GEMM) and ours8_small (the small-layer path) in 07_fast.cu and 08_small.cu, ours9_sliced_k (split-K inside the
 * block) in 09_sliced_k.cu, ours10_paired_lanes (the large layers) in 10_paired_lanes.cu, ours11_cluster_k
 * (split-K across a thread-block cluster) in 11_cluster_k.cu, and the two helpers of 02_06_block_tiles.cu
 * they share with it. */
#ifndef CNN_FAST_H
#define CNN_FAST_H

#include "cnn.h"

#ifdef __cplusplus
extern "C" {
#endif
/* An offset outside every image (ours7's im2col table past the reduction, ours8's pixels past the
 * layer): what it addresses reads as zero. */
#define CNN_NO_TAP (-(1 << 20))
#define CNN_OURS7_TILES 8 /* tile shape x split-K configurations of ours7_fast (07_fast.cu) */
cnn_status cnn_launch_ours7(const cnn_launch_args *a, cudaStream_t st);
size_t cnn_workspace_ours7(const cnn_shape *s, int tile);
const char *cnn_tile_name_ours7(int tile);

#define CNN_OURS8_TILES 11 /* output tile x threads per block configurations of ours8_small (08_small.cu) */
int cnn_supports_ours8(const cnn_shape *s);
cnn_status cnn_launch_ours8(const cnn_launch_args *a, cudaStream_t st);
const char *cnn_tile_name_ours8(int tile);

#define CNN_OURS9_TILES 17 /* block tile x warp groups configurations of ours9_sliced_k (09_sliced_k.cu) */
int cnn_supports_ours9(const cnn_shape *s);
cnn_status cnn_launch_ours9(const cnn_launch_args *a, cudaStream_t st);
const char *cnn_tile_name_ours9(int tile);

/* block tile x warp groups x cluster size configurations of ours11_cluster_k (11_cluster_k.cu);
 * supports: ours9's rule on a GPU (cc 9.0+) and build (sm_90 code) with thread-block clusters */
#define CNN_OURS11_TILES 8
int cnn_supports_ours11(const cnn_shape *s);
cnn_status cnn_launch_ours11(const cnn_launch_args *a, cudaStream_t st);
const char *cnn_tile_name_ours11(int tile);

/* tile shape x blocks per SM x split-K configurations of ours10_paired_lanes (10_paired_lanes.cu) */
#define CNN_OURS10_TILES 13
int cnn_supports_ours10(const cnn_shape *s);
cnn_status cnn_launch_ours10(const cnn_launch_args *a, cudaStream_t st);
size_t cnn_workspace_ours10(const cnn_shape *s, int tile);
const char *cnn_tile_name_ours10(int tile);

/* 02_06_block_tiles.cu: every tensor under 2^31 elements (the kernels' int offsets); y = the sum of
 * `splits` partial outputs of n floats each, stored one after another in part (split-K). */
int cnn_ladder_fits(const cnn_shape *s);
/* Split-K of the reduction K into `splits` ranges, each a multiple of bk: the range per split, and
 * in *used the number of splits that get one. */
int cnn_per_split(int K, int splits, int bk, int *used);
void cnn_sum_splits(const float *part, float *y, size_t n, int splits, cudaStream_t st);
#ifdef __cplusplus
}
#endif

#endif
