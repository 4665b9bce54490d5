/* winograd.h - Lab 04, part 2: what the Winograd rungs share (01_wino2x2.cu, 02_wino2x2_big.cu,
 * 03_wino4x4.cu, 04_wino4x4_nonfused.cu): the padded sizes of the workspace and the two transform kernels, and the
 * launchers of the rows. */
#ifndef CNN_WINOGRAD_H
#define CNN_WINOGRAD_H

#include "tensor_core.h"

typedef struct {
    int N, C, H, W, M;
    int th, tw, T;    /* tiles per column, per row, in all */
    int Cp, Mp, Tp;   /* C, M, T rounded up to the GEMM's slice and tile sizes: the workspace's sizes */
} wg_dims;

#ifdef __cplusplus
/* The sizes of F(2x2, 3x3) on shape s, C, M and T padded to multiples of c_pad, m_pad, t_pad. */
wg_dims wg_dims_of(const cnn_shape *s, int c_pad, int m_pad, int t_pad);
/* Enqueue U[xi][c][m] = (G g G^T)[xi] and V[xi][c][t] = (B^T d B)[xi], zero-padded to d's sizes. */
void wg_transforms(const cnn_launch_args *a, const wg_dims *d, float *U, float *V, cudaStream_t st);
/* F(4x4, 3x3) (03_wino4x4.cu), which ours_wino4x4_nonfused shares: the sizes on shape s (4x4 output
 * tiles, C padded to the GEMM's slice, M and T to m_pad, t_pad), and the transforms
 * U[xi][c][m] = (G g G^T)[xi], V[xi][c][t] = (B^T d B)[xi] of the WG4_XI positions of a 6x6 tile. */
#define WG4_XI 36
wg_dims wg4_dims_pad(const cnn_shape *s, int m_pad, int t_pad);
void wg4_transforms(const cnn_launch_args *a, const wg_dims *d, float *U, float *V, cudaStream_t st);
extern "C" {
#endif
/* ours_wino2x2_big (02_wino2x2_big.cu): tiles = the xi split (WGB_SPLITS configurations). */
#define WGB_SPLITS 5
size_t cnn_workspace_winograd_big(const cnn_shape *s, int tile);
cnn_status cnn_launch_winograd_big(const cnn_launch_args *a, cudaStream_t st);
const char *cnn_tile_name_winograd_big(int tile);
/* cnn_bounds.c: gamma_(C+14)(2^-24) wino_sum: the output transform accumulated one product at a time. */
double cnn_bound_winograd_acc(const cnn_shape *s, double wino_sum);
/* ours_wino4x4 (03_wino4x4.cu): F(4x4, 3x3); tiles = the row split (WG4_SPLITS configurations);
 * workspace 36 Cp (Mp + Tp) + parts x 24 Mp Tp floats. */
#define WG4_SPLITS 3
size_t cnn_workspace_winograd4(const cnn_shape *s, int tile);
const char *cnn_tile_name_winograd4(int tile);
cnn_status cnn_launch_winograd4(const cnn_launch_args *a, cudaStream_t st);
/* ours_wino4x4_nonfused (04_wino4x4_nonfused.cu): the same transforms, 36 GEMMs in 128x128 / 64x128 /
 * 128x64 block tiles (WG4N_TILES configurations), the 36 products through the workspace
 * (36 (Cp (Mp + Tp) + Mp Tp) floats), the whole output transform after. */
#define WG4N_TILES 3
size_t cnn_workspace_winograd4_nonfused(const cnn_shape *s, int tile);
const char *cnn_tile_name_winograd4_nonfused(int tile);
cnn_status cnn_launch_winograd4_nonfused(const cnn_launch_args *a, cudaStream_t st);
/* cnn_bounds.c: gamma_(C+20)(2^-24) wino4_sum, and the F(4x4) magnitude sums wino4_sum of the outputs
 * in index (all when index == NULL): sum over c and the 36 products of |A^T| (|G| |g| |G^T| .*
 * |B^T| |d| |B|) |A| at the output's place in its 4x4 tile. */
double cnn_bound_winograd4(const cnn_shape *s, double wino4_sum);
void cnn_winograd4_abs_sums(const float *x, const float *w, const cnn_shape *s, const size_t *index,
                            size_t n_index, double *out);
#ifdef __cplusplus
}
#endif

#endif
