/* tensor_core.h - Lab 04, part 2: the Winograd rung (01_wino2x2.cu), the tensor-core rungs (01_mma_sync.cu)
 * and the error bounds of every precision class (cnn_bounds.c). */
#ifndef CNN_TC_H
#define CNN_TC_H

#include "cnn.h"

#ifdef __cplusplus
extern "C" {
#endif
/* The launchers of the table's rows (cnn_variants.c) that live in these files. */
/* Winograd F(2x2, 3x3), FP32, 3x3 filters only. The workspace holds the transformed weights and
 * input tiles: 16 Cp (Mp + Tp) floats (C, M and the tile count padded). */
int cnn_supports_winograd(const cnn_shape *s);
size_t cnn_workspace_winograd(const cnn_shape *s, int tile);
cnn_status cnn_launch_winograd(const cnn_launch_args *a, cudaStream_t st);

/* Tensor cores (mma.sync): need sm_80+ in the GPU and in the build (cnn_supports_tc, which says
 * once when they are left out). TF32: FP32 x, w, y. BF16: x and w rounded to BF16 into the
 * workspace once per configuration by the row's prepare hook (cnn_bf16_prepare, untimed), y
 * written as BF16 there and converted back to float for the check inside the timed call
 * (cnn_bf16_out); the cudnn_bf16 row uses the same hook and conversion, so both time the same. */
int cnn_tc_available(void);
int cnn_supports_tc(const cnn_shape *s);
cnn_status cnn_launch_tf32_mma(const cnn_launch_args *a, cudaStream_t st);
size_t cnn_workspace_bf16_mma(const cnn_shape *s, int tile);
cnn_status cnn_launch_bf16_mma(const cnn_launch_args *a, cudaStream_t st);
size_t cnn_bf16_bytes(const cnn_shape *s); /* the three BF16 arrays at the start of the workspace */
void cnn_bf16_arrays(const cnn_shape *s, void *workspace, void **x16, void **w16, void **y16);
void cnn_bf16_prepare(const cnn_shape *s, const float *x, const float *w, void *workspace, cudaStream_t st);
void cnn_bf16_out(const cnn_launch_args *a, const void *y16, cudaStream_t st);
/* 02_mma_pipeline.cu: ours_tf32_mma2 and ours_bf16_mma2, a 3-stage pipeline (cp.async; BF16's im2col tile
 * through registers), ldmatrix, output staged through shared memory, tile shape and split-K
 * autotuned (workspace: the split-K partial sums; BF16: after the cnn_bf16_arrays). */
#define CNN_TC2_TILES 6
cnn_status cnn_launch_tf32_mma2(const cnn_launch_args *a, cudaStream_t st);
size_t cnn_workspace_tf32_mma2(const cnn_shape *s, int tile);
cnn_status cnn_launch_bf16_mma2(const cnn_launch_args *a, cudaStream_t st);
size_t cnn_workspace_bf16_mma2(const cnn_shape *s, int tile);
const char *cnn_tile_name_tc2(int tile);
/* Split-K's reduce of the mma2 rungs for a BF16 y: y16 = the sum of `splits` FP32 partials of ny. */
void cnn_tc_reduce_bf16(const float *partial, void *y16, long long ny, int splits, cudaStream_t st);
/* cnn_nhwc.cu: the channels-last tensors of the cuDNN NHWC peers (x NHWC, w MRSC, y NHWC in the
 * row's type), at the start of the workspace; prepare (the row's prepare hook) makes x and w, to_y
 * turns the row's y into the float NCHW y for the check. Neither is timed. */
typedef enum { CNN_NHWC_F32, CNN_NHWC_BF16, CNN_NHWC_F16 } cnn_nhwc_type;
size_t cnn_nhwc_bytes(const cnn_shape *s, cnn_nhwc_type t);
void cnn_nhwc_arrays(const cnn_shape *s, cnn_nhwc_type t, void *workspace, void **x, void **w, void **y);
void cnn_nhwc_prepare(const cnn_shape *s, cnn_nhwc_type t, const float *x, const float *w, void *workspace,
                      cudaStream_t st);
void cnn_nhwc_to_y(const cnn_launch_args *a, cnn_nhwc_type t, cudaStream_t st);
void cnn_channels_last_to_y(const cnn_launch_args *a, cnn_nhwc_type t, const void *src, cudaStream_t st);
/* 03_channels_last.cu: ours_bf16_mma3, x channels-last (NHWC) with a zero border and C padded to a multiple
 * of 8, k ordered (r, s, c): every load a 16-byte cp.async, 4 stages, tile and split-K autotuned.
 * Its prepare hook makes the layout of x and w (untimed); ours_bf16_mma3_t's makes w's only and its
 * launch changes x's inside the timing. Workspace: the cnn_bf16_arrays, the NHWC x, the re-laid w,
 * the split-K partial sums. */
#define CNN_TC3_TILES 6
size_t cnn_workspace_bf16_mma3(const cnn_shape *s, int tile);
cnn_status cnn_launch_bf16_mma3(const cnn_launch_args *a, cudaStream_t st);
cnn_status cnn_launch_bf16_mma3_t(const cnn_launch_args *a, cudaStream_t st);
void cnn_bf16_mma3_prepare(const cnn_shape *s, const float *x, const float *w, void *workspace, cudaStream_t st);
void cnn_bf16_mma3_t_prepare(const cnn_shape *s, const float *x, const float *w, void *workspace, cudaStream_t st);
const char *cnn_tile_name_tc3(int tile);
/* 04_wgmma.cu: ours_bf16_wgmma, mma3's layout and prepare hook on warpgroup MMA (wgmma, sm_90a:
 * compute capability 9.0 only). Its kernels are built only when 90 is in -Dcuda-arch (else
 * wgmma_stub.c: cnn_wgmma_built(), in 03_channels_last.cu, is 0); cnn_supports_bf16_wgmma says once why it is absent. */
#define CNN_WGMMA_TILES 7
int cnn_wgmma_built(void);
int cnn_supports_bf16_wgmma(const cnn_shape *s);
size_t cnn_workspace_bf16_wgmma(const cnn_shape *s, int tile);
cnn_status cnn_launch_bf16_wgmma(const cnn_launch_args *a, cudaStream_t st);
const char *cnn_tile_name_bf16_wgmma(int tile);
/* ours_bf16_wgmma2: the same kernel with one wgmma group in flight across the k-tile barrier
 * (copies STAGES - 2 tiles ahead); mma3's tiles plus 128x256 and 128x128 with 5 stages. */
#define CNN_WGMMA2_TILES 9
cnn_status cnn_launch_bf16_wgmma2(const cnn_launch_args *a, cudaStream_t st);
const char *cnn_tile_name_bf16_wgmma2(int tile);
/* 05_wgmma_tma.cu (sm_90a, built with 04_wgmma.cu; else the stub): ours_bf16_wgmma_tma and
 * ours_tf32_wgmma_tma, TMA-fed warp-specialised wgmma with an mbarrier ring. BF16: mma3's workspace
 * (no split-K) and prepare hook; TF32: its own prepare (x, w rounded to TF32, the same layouts in
 * FP32) and workspace. cnn_supports_wgmma_tma: compute capability 9.0 and an sm_90a build. */
#define CNN_WGMMA_TMA_TILES 6
#define CNN_TMA_NHWC_TILES 38
#define CNN_TMA_NHWC_SUB_TILES 22
int cnn_supports_wgmma_tma(const cnn_shape *s);
const char *cnn_tile_name_wgmma_tma(int tile);
size_t cnn_workspace_bf16_wgmma_tma(const cnn_shape *s, int tile);
cnn_status cnn_launch_bf16_wgmma_tma(const cnn_launch_args *a, cudaStream_t st);
size_t cnn_workspace_tf32_wgmma_tma(const cnn_shape *s, int tile);
void cnn_tf32_wgmma_tma_prepare(const cnn_shape *s, const float *x, const float *w, void *workspace, cudaStream_t st);
cnn_status cnn_launch_tf32_wgmma_tma(const cnn_launch_args *a, cudaStream_t st);
/* ..._t: the same with x's layout change inside the timing (the prepare hooks lay out w only). */
cnn_status cnn_launch_bf16_wgmma_tma_t(const cnn_launch_args *a, cudaStream_t st);
cnn_status cnn_launch_tf32_wgmma_tma_t(const cnn_launch_args *a, cudaStream_t st);
void cnn_tf32_wgmma_tma_t_prepare(const cnn_shape *s, const float *x, const float *w, void *workspace, cudaStream_t st);
void cnn_to_bf16(const float *src, void *dst, size_t n, cudaStream_t st);   /* round to nearest even */
void cnn_from_bf16(const void *src, float *dst, size_t n, cudaStream_t st); /* exact */

/* cnn_cudnn.c: the tensor-op peers (cudnn_tf32, cudnn_bf16; the state is cnn_cudnn_fp32's). */
extern const cnn_peer_ops cnn_cudnn_tf32, cnn_cudnn_bf16;
cnn_status cnn_launch_cudnn_bf16(const cnn_launch_args *a, cudaStream_t st);
/* ... and in cuDNN's best layout: x and y NHWC, w KRSC, in BF16, FP16 or FP32 (TF32 math), made by
 * cnn_nhwc_prepare (untimed); the timed call reads and writes only those (cnn_nhwc.cu). */
extern const cnn_peer_ops cnn_cudnn_bf16_nhwc, cnn_cudnn_fp16_nhwc, cnn_cudnn_tf32_nhwc;
extern const cnn_own_output cnn_nhwc_output_bf16, cnn_nhwc_output_fp16, cnn_nhwc_output_tf32;
/* ours_bf16_wgmma_tma_nhwc's own output: y16 (cnn_bf16_arrays) written channels-last in BF16. */
extern const cnn_own_output cnn_bf16_y16_nhwc_output;
cnn_status cnn_launch_bf16_wgmma_tma_nhwc(const cnn_launch_args *a, cudaStream_t st);
/* ours_{bf16,fp16,tf32}_tma_nhwc (05_wgmma_tma.cu): the TMA wgmma kernel on the NHWC peer's own
 * tensors of the type (cnn_nhwc_prepare_*, cnn_nhwc_output_*); tiles: BF16 CNN_TMA_NHWC_TILES
 * (persistent, split-K, cluster and ping-pong ones among them), FP16 and TF32 CNN_TMA_NHWC_SUB_TILES
 * of them (cnn_tile_name_tma_nhwc_sub). Supports (03_channels_last.cu): the TMA
 * rows' GPU, M even; TF32 C a multiple of 4. Workspace (cnn_nhwc.cu): the peer's tensors, and for
 * BF16 / FP16 with C not a multiple of 8 the channel-padded copies of x and w the timed call makes. */
int cnn_supports_tma_nhwc(const cnn_shape *s, cnn_nhwc_type t);
int cnn_supports_tma_nhwc_bf16(const cnn_shape *s);
int cnn_supports_tma_nhwc_fp16(const cnn_shape *s);
int cnn_supports_tma_nhwc_tf32(const cnn_shape *s);
cnn_status cnn_launch_bf16_tma_nhwc(const cnn_launch_args *a, cudaStream_t st);
cnn_status cnn_launch_fp16_tma_nhwc(const cnn_launch_args *a, cudaStream_t st);
cnn_status cnn_launch_tf32_tma_nhwc(const cnn_launch_args *a, cudaStream_t st);
const char *cnn_tile_name_tma_nhwc_sub(int tile);
size_t cnn_workspace_tma_nhwc(const cnn_shape *s, cnn_nhwc_type t);
size_t cnn_workspace_tma_nhwc_bf16(const cnn_shape *s, int tile);
size_t cnn_workspace_tma_nhwc_fp16(const cnn_shape *s, int tile);
size_t cnn_workspace_tma_nhwc_tf32(const cnn_shape *s, int tile);
void cnn_nhwc_padded(const cnn_shape *s, cnn_nhwc_type t, void *workspace, void **xp, void **wp);
void cnn_nhwc_pad_channels(const cnn_shape *s, cnn_nhwc_type t, const void *x, const void *w, void *xp, void *wp,
                           cudaStream_t st);
cnn_status cnn_launch_cudnn_bf16_nhwc(const cnn_launch_args *a, cudaStream_t st);
cnn_status cnn_launch_cudnn_fp16_nhwc(const cnn_launch_args *a, cudaStream_t st);
cnn_status cnn_launch_cudnn_tf32_nhwc(const cnn_launch_args *a, cudaStream_t st);
void cnn_nhwc_prepare_bf16(const cnn_shape *s, const float *x, const float *w, void *workspace, cudaStream_t st);
void cnn_nhwc_prepare_fp16(const cnn_shape *s, const float *x, const float *w, void *workspace, cudaStream_t st);
void cnn_nhwc_prepare_tf32(const cnn_shape *s, const float *x, const float *w, void *workspace, cudaStream_t st);

/* cnn_bounds.c: the derived error bounds (cnn_bound_fn), |y - ref| <= bound, derivations there.
 * abs_sum: sum |x w| of the output; wino_sum: its Winograd magnitude sum (cnn_winograd_abs_sums). */
double cnn_bound_winograd(const cnn_shape *s, double wino_sum); /* gamma_(C+10)(2^-24) wino_sum */
double cnn_bound_tf32(const cnn_shape *s, double abs_sum);      /* x, w rounded to TF32 to nearest */
double cnn_bound_tf32_any(const cnn_shape *s, double abs_sum);  /* ... in any direction (cuDNN) */
double cnn_bound_bf16(const cnn_shape *s, double abs_sum);      /* x, w and y rounded to BF16 */
double cnn_bound_fp16(const cnn_shape *s, double abs_sum);      /* x, w and y rounded to FP16 */
/* The Winograd magnitude sums of the outputs listed in index (all when index == NULL), on all
 * cores: sum over c and the 16 products of |A^T| (|G| |g| |G^T| .* |B^T| |d| |B|) |A| at the
 * output's place in its 2x2 tile. */
void cnn_winograd_abs_sums(const float *x, const float *w, const cnn_shape *s, const size_t *index, size_t n_index,
                           double *out);
#ifdef __cplusplus
}
#endif

#endif
