/* wgmma_stub.c - Lab 04, part 2: ours_bf16_wgmma(2) and ours_{bf16,tf32}_wgmma_tma in a build
 * without sm_90a code (90 not in -Dcuda-arch): the rows are left out (cnn_supports_bf16_wgmma and
 * cnn_supports_wgmma_tma say so) and never launched or prepared. */
#include "tensor_core.h"

cnn_status cnn_launch_bf16_wgmma(const cnn_launch_args *a, cudaStream_t st)
{
    (void)a, (void)st;
    return CNN_ERR_VARIANT;
}

cnn_status cnn_launch_bf16_wgmma2(const cnn_launch_args *a, cudaStream_t st) { return cnn_launch_bf16_wgmma(a, st); }

cnn_status cnn_launch_bf16_wgmma_tma(const cnn_launch_args *a, cudaStream_t st) { return cnn_launch_bf16_wgmma(a, st); }
cnn_status cnn_launch_tf32_wgmma_tma(const cnn_launch_args *a, cudaStream_t st) { return cnn_launch_bf16_wgmma(a, st); }
cnn_status cnn_launch_bf16_tma_nhwc(const cnn_launch_args *a, cudaStream_t st) { return cnn_launch_bf16_wgmma(a, st); }
cnn_status cnn_launch_fp16_tma_nhwc(const cnn_launch_args *a, cudaStream_t st) { return cnn_launch_bf16_wgmma(a, st); }
cnn_status cnn_launch_tf32_tma_nhwc(const cnn_launch_args *a, cudaStream_t st) { return cnn_launch_bf16_wgmma(a, st); }
const char *cnn_tile_name_tma_nhwc_sub(int tile) { return cnn_tile_name_wgmma_tma(tile); }
cnn_status cnn_launch_bf16_wgmma_tma_t(const cnn_launch_args *a, cudaStream_t st) { return cnn_launch_bf16_wgmma(a, st); }
cnn_status cnn_launch_bf16_wgmma_tma_nhwc(const cnn_launch_args *a, cudaStream_t st) { return cnn_launch_bf16_wgmma(a, st); }
cnn_status cnn_launch_tf32_wgmma_tma_t(const cnn_launch_args *a, cudaStream_t st) { return cnn_launch_bf16_wgmma(a, st); }
const char *cnn_tile_name_wgmma_tma(int tile)
{
    (void)tile;
    return "?";
}
/* No workspace: these rows never run here (their supports hook says no before any workspace is sized),
 * and the stub calls nothing of 03_channels_last.cu, which calls it (cnn_wgmma_built): no circle. */
size_t cnn_workspace_bf16_wgmma_tma(const cnn_shape *s, int tile)
{
    (void)s, (void)tile;
    return 0;
}
size_t cnn_workspace_tf32_wgmma_tma(const cnn_shape *s, int tile) { return cnn_workspace_bf16_wgmma_tma(s, tile); }

void cnn_tf32_wgmma_tma_prepare(const cnn_shape *s, const float *x, const float *w, void *workspace, cudaStream_t st)
{
    (void)s, (void)x, (void)w, (void)workspace, (void)st;
}

void cnn_tf32_wgmma_tma_t_prepare(const cnn_shape *s, const float *x, const float *w, void *workspace, cudaStream_t st)
{
    cnn_tf32_wgmma_tma_prepare(s, x, w, workspace, st);
}
