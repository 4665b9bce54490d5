/* cnn_variants.c - Lab 04, part 2: the variant table (one row per variant: the BabelStream way),
 * the precision classes with their error bounds and peaks, and the entry point cnn_forward.
 * To add a variant: write its launcher (a .cu file), declare it in cnn.h, add its row below. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "cnn.h"
#include "cnn_fast.h"
#include "cnn_tc.h"
#include "cnn_winograd.h"

/* FP32 inputs, FP32 accumulation, any order of the C R S terms: each rounding is at most
 * FLT_EPSILON / 2 relative, a sum of K terms in any order grows like sqrt(K) in practice; 16 x
 * that is the margin (the largest error measured so far was 0.033 of it). */
static double bound_fp32(const cnn_shape *s, double abs_sum)
{
    return 16.0 * FLT_EPSILON * sqrt((double)s->C * s->R * s->S) * abs_sum + 1e-30;
}

/* Per SM per clock, dense, from NVIDIA's H100 SXM5 figures (H100 Tensor Core GPU Architecture
 * whitepaper and datasheet): 494.7 TFLOP/s TF32 and 989.4 TFLOP/s BF16/FP16 at the 1830 MHz boost
 * clock with 132 SMs: 494.7e12 / (132 x 1.83e9) = 2048 and 989.4e12 / (132 x 1.83e9) = 4096 FLOP.
 * They apply to sm_90 only (cnn_peak_flop_per_sm_clock gives NAN elsewhere). The TF32 and BF16
 * bounds are derived in cnn_bounds.c; FP16 has none yet (its rows would be refused). */
const cnn_class_info CNN_CLASS[CNN_CLASSES] = {
    [CNN_FP32] = {"FP32", bound_fp32, "16 FLT_EPSILON sqrt(C R S) sum|x w|", 256, 0},
    [CNN_TF32] = {"TF32", cnn_bound_tf32,
                  "(2u + u^2 + gamma_CRS(2^-23) (1 + u)^2) sum|x w|, u = 2^-11 (cuDNN: 2^-10, rounding unknown)",
                  2048, 9},
    [CNN_BF16] = {"BF16", cnn_bound_bf16, "e = (2u + u^2 + gamma_CRS(2^-23) (1 + u)^2) sum|x w|, u = 2^-8, "
                  "+ 2^-8 (sum|x w| + e) for the BF16 y", 4096, 9},
    [CNN_FP16] = {"FP16", NULL, "(not defined yet)", 4096, 9},
};

double cnn_peak_flop_per_sm_clock(cnn_class c, int cc_major, int cc_minor)
{
    if ((unsigned)c >= CNN_CLASSES) return NAN;
    if (c == CNN_FP32) /* 2 x the FP32 lanes: 64 per SM on sm_70 / sm_75 / sm_80, 128 on sm_86 and later */
        return cc_major < 8 || (cc_major == 8 && cc_minor == 0) ? 128 : 256;
    if (CNN_CLASS[c].peak_cc_major && (cc_major != CNN_CLASS[c].peak_cc_major || cc_minor != 0)) return NAN;
    return CNN_CLASS[c].flop_per_sm_clock;
}

static const char *tile_name_none(int tile)
{
    (void)tile;
    return "-";
}

/* The table. Peers first: their time per class is the ratio column's base. */
static const cnn_variant_row ROWS[] = {
    {"cudnn", "the library bar: cuDNN FP32, FMA math (no TF32), fastest algorithm within the bound", CNN_FP32,
     CNN_ROLE_PEER, cnn_launch_cudnn, NULL, NULL, NULL, 1, tile_name_none, &cnn_cudnn_fp32, NULL, NULL},
    {"split", "the seed: per-tap partial maps through DRAM, then a second kernel sums them", CNN_FP32,
     CNN_ROLE_SEED, cnn_launch_split, cnn_workspace_split, NULL, NULL, 1, tile_name_none, NULL, NULL, NULL},
    {"fused", "the seed: the sum over channels and taps in one register, no partial maps", CNN_FP32,
     CNN_ROLE_SEED, cnn_launch_fused, NULL, NULL, NULL, 1, tile_name_none, NULL, NULL, NULL},
    {"ours1_64x64", "implicit GEMM, 64x64 block tiles, 4x4 outputs per thread, split-K with atomics", CNN_FP32,
     CNN_ROLE_OURS, cnn_launch_ours1, NULL, NULL, NULL, 1, tile_name_none, NULL, NULL, NULL},
    {"ours2_128x128", "128x128 block tiles, 8x8 outputs per thread: 64 FFMA per 16 shared reads", CNN_FP32,
     CNN_ROLE_OURS, cnn_launch_ours2, NULL, NULL, NULL, 1, tile_name_none, NULL, NULL, NULL},
    {"ours3_float4", "the shared tiles read as float4, laid out so a quarter-warp reads 128 bytes: no bank conflicts",
     CNN_FP32, CNN_ROLE_OURS, cnn_launch_ours3, NULL, NULL, NULL, 1, tile_name_none, NULL, NULL, NULL},
    {"ours4_cp_async", "double-buffered shared memory fed by cp.async (sm_80+): the next slice lands during the "
     "multiply", CNN_FP32, CNN_ROLE_OURS, cnn_launch_ours4, NULL, NULL, NULL, 1, tile_name_none, NULL, NULL, NULL},
    {"ours5_warp_tile", "each warp owns a 64x32 sub-tile: a third fewer distinct shared bytes per warp", CNN_FP32,
     CNN_ROLE_OURS, cnn_launch_ours5, NULL, NULL, NULL, 1, tile_name_none, NULL, NULL, NULL},
    {"ours6_tuned", "the tile shape per layer and split-K where it pays (workspace + reduce, no atomics), autotuned",
     CNN_FP32, CNN_ROLE_OURS, cnn_launch_ours6, cnn_workspace_ours6, NULL, NULL, CNN_OURS6_TILES,
     cnn_tile_name_ours6, NULL, NULL, NULL},
    {"ours7_fast", "BK 16, 2 blocks per SM, 3-stage cp.async (16-byte weights; 16-byte x for 1x1), im2col from a "
     "per-slice table; tile and split-K autotuned", CNN_FP32, CNN_ROLE_OURS, cnn_launch_ours7, cnn_workspace_ours7,
     NULL, NULL, CNN_OURS7_TILES, cnn_tile_name_ours7, NULL, NULL, NULL},
    {"ours8_small", "small layers (M N H W <= 2^18): a block's threads split K, warp reduce-scatter; one kernel, no "
     "workspace", CNN_FP32, CNN_ROLE_OURS, cnn_launch_ours8, NULL, cnn_supports_ours8, NULL, CNN_OURS8_TILES,
     cnn_tile_name_ours8, NULL, NULL, NULL},
    {"ours9_sliced_k", "small tiles, the block's warp groups split K (sliced-K, summed in shared memory): blocks "
     "for every SM with no split-K pass; 2-stage cp.async, tuned", CNN_FP32, CNN_ROLE_OURS, cnn_launch_ours9, NULL,
     cnn_supports_ours9, NULL, CNN_OURS9_TILES, cnn_tile_name_ours9, NULL, NULL, NULL},
    {"ours10_paired_lanes", "large layers: lanes l, l^1 share each weight read and l, l^2 each im2col read (LDS.128 "
     "in 2 clocks, not 4); 4-stage cp.async, im2col table + tap mask; tuned", CNN_FP32, CNN_ROLE_OURS,
     cnn_launch_ours10, cnn_workspace_ours10, cnn_supports_ours10, NULL, CNN_OURS10_TILES, cnn_tile_name_ours10,
     NULL, NULL, NULL},
    {"ours11_cluster_k", "sub-wave layers: split-K across a thread-block cluster (sm_90), the partial tiles summed "
     "through distributed shared memory: one pass, no workspace, no atomics; tuned", CNN_FP32, CNN_ROLE_OURS,
     cnn_launch_ours11, NULL, cnn_supports_ours11, NULL, CNN_OURS11_TILES, cnn_tile_name_ours11, NULL, NULL, NULL},
    {"ours_wino2x2", "Winograd F(2x2,3x3): 16 batched GEMMs on transformed tiles, 2.25x fewer multiplications",
     CNN_FP32, CNN_ROLE_OURS, cnn_launch_winograd, cnn_workspace_winograd, cnn_supports_winograd,
     cnn_bound_winograd, 1, tile_name_none, NULL, cnn_winograd_abs_sums, NULL},
    {"ours_wino2x2_big", "F(2x2,3x3), 64x64 block tiles of one xi at a time, the output transform folded in "
     "after each: 2 blocks/SM, cp.async", CNN_FP32, CNN_ROLE_OURS, cnn_launch_winograd_big,
     cnn_workspace_winograd_big, cnn_supports_winograd, cnn_bound_winograd_acc, WGB_SPLITS,
     cnn_tile_name_winograd_big, NULL, cnn_winograd_abs_sums, NULL},
    {"ours_wino4x4", "F(4x4,3x3): 36 xi, 4x fewer multiplications than direct; the big rung's GEMM, the output "
     "transform's rows folded in, rows split (tuned)", CNN_FP32, CNN_ROLE_OURS, cnn_launch_winograd4,
     cnn_workspace_winograd4, cnn_supports_winograd, cnn_bound_winograd4, WG4_SPLITS, cnn_tile_name_winograd4, NULL,
     cnn_winograd4_abs_sums, NULL},
    {"ours_wino4x4_nonfused", "F(4x4,3x3) unfolded: the 36 GEMMs in 128x128 tiles, 8x8 per thread, 3-stage "
     "cp.async; all 36 products to memory, the whole output transform after (tuned)", CNN_FP32, CNN_ROLE_OURS,
     cnn_launch_winograd4_nonfused, cnn_workspace_winograd4_nonfused, cnn_supports_winograd, cnn_bound_winograd4,
     WG4N_TILES, cnn_tile_name_winograd4_nonfused, NULL, cnn_winograd4_abs_sums, NULL},
    {"cudnn_tf32", "the library bar on tensor cores: cuDNN, FP32 tensors, CUDNN_TENSOR_OP_MATH (TF32)", CNN_TF32,
     CNN_ROLE_PEER, cnn_launch_cudnn, NULL, NULL, cnn_bound_tf32_any, 1, tile_name_none, &cnn_cudnn_tf32, NULL, NULL},
    {"ours_tf32_mma", "implicit GEMM on tensor cores: mma.sync m16n8k8 TF32 (x, w rounded in-kernel)", CNN_TF32,
     CNN_ROLE_OURS, cnn_launch_tf32_mma, NULL, cnn_supports_tc, NULL, 1, tile_name_none, NULL, NULL, NULL},
    {"ours_tf32_mma2", "3-stage cp.async for both tiles (4-byte zero-fill im2col), ldmatrix, staged stores, split-K; "
     "tuned", CNN_TF32, CNN_ROLE_OURS, cnn_launch_tf32_mma2, cnn_workspace_tf32_mma2, cnn_supports_tc, NULL,
     CNN_TC2_TILES, cnn_tile_name_tc2, NULL, NULL, NULL},
    {"cudnn_bf16", "cuDNN with BF16 x, w, y (FP32 compute, tensor-op math); x, w converted untimed, y->float timed",
     CNN_BF16, CNN_ROLE_PEER, cnn_launch_cudnn_bf16, NULL, NULL, NULL, 1, tile_name_none, &cnn_cudnn_bf16, NULL,
     cnn_bf16_prepare},
    {"ours_bf16_mma",
     "implicit GEMM on tensor cores: mma.sync m16n8k16 BF16, ldmatrix; BF16 x, w in memory, y->float timed",
     CNN_BF16, CNN_ROLE_OURS, cnn_launch_bf16_mma, cnn_workspace_bf16_mma, cnn_supports_tc, NULL, 1,
     tile_name_none, NULL, NULL, cnn_bf16_prepare},
    {"ours_bf16_mma2", "3-stage pipeline (cp.async weights, im2col through registers), staged stores, split-K; "
     "tuned", CNN_BF16, CNN_ROLE_OURS, cnn_launch_bf16_mma2, cnn_workspace_bf16_mma2, cnn_supports_tc, NULL,
     CNN_TC2_TILES, cnn_tile_name_tc2, NULL, NULL, cnn_bf16_prepare},
    {"ours_bf16_mma3", "x channels-last with a zero border, k = (r,s,c): every load a 16-byte cp.async, 4 stages; "
     "x, w layout untimed", CNN_BF16, CNN_ROLE_OURS, cnn_launch_bf16_mma3, cnn_workspace_bf16_mma3, cnn_supports_tc,
     NULL, CNN_TC3_TILES, cnn_tile_name_tc3, NULL, NULL, cnn_bf16_mma3_prepare},
    {"ours_bf16_mma3_t", "ours_bf16_mma3 with x's NCHW->NHWC transpose inside the timing (w's untimed): the "
     "difference is the layout's cost", CNN_BF16, CNN_ROLE_OURS, cnn_launch_bf16_mma3_t, cnn_workspace_bf16_mma3,
     cnn_supports_tc, NULL, CNN_TC3_TILES, cnn_tile_name_tc3, NULL, NULL, cnn_bf16_mma3_t_prepare},
    {"ours_bf16_wgmma", "mma3's layout on Hopper's warpgroup MMA (wgmma, sm_90a, cc 9.0 only): operands read from "
     "shared memory by descriptor, 128xBN tiles, 3-4 stages", CNN_BF16, CNN_ROLE_OURS, cnn_launch_bf16_wgmma,
     cnn_workspace_bf16_wgmma, cnn_supports_bf16_wgmma, NULL, CNN_WGMMA_TILES, cnn_tile_name_bf16_wgmma, NULL, NULL,
     cnn_bf16_mma3_prepare},
    {"ours_bf16_wgmma2", "ours_bf16_wgmma pipelined: one wgmma group left running across the k-tile barrier "
     "(wait_group 1), copies STAGES-2 tiles ahead into stages whose MMAs are complete", CNN_BF16, CNN_ROLE_OURS,
     cnn_launch_bf16_wgmma2, cnn_workspace_bf16_wgmma, cnn_supports_bf16_wgmma, NULL, CNN_WGMMA2_TILES,
     cnn_tile_name_bf16_wgmma2, NULL, NULL, cnn_bf16_mma3_prepare},
    {"ours_bf16_wgmma_tma", "warp-specialised: a producer thread feeds an mbarrier ring by TMA (128B swizzle, zero "
     "fill = padding), 2 consumer warpgroups run wgmma; tiles autotuned", CNN_BF16, CNN_ROLE_OURS,
     cnn_launch_bf16_wgmma_tma, cnn_workspace_bf16_wgmma_tma, cnn_supports_wgmma_tma, NULL, CNN_WGMMA_TMA_TILES,
     cnn_tile_name_wgmma_tma, NULL, NULL, cnn_bf16_mma3_prepare},
    {"ours_tf32_wgmma_tma", "ours_bf16_wgmma_tma on TF32 (wgmma k8): x, w rounded to TF32 and laid out channels-last "
     "untimed (cudnn_tf32 times its own layout change)", CNN_TF32, CNN_ROLE_OURS, cnn_launch_tf32_wgmma_tma,
     cnn_workspace_tf32_wgmma_tma, cnn_supports_wgmma_tma, NULL, CNN_WGMMA_TMA_TILES, cnn_tile_name_wgmma_tma, NULL,
     NULL, cnn_tf32_wgmma_tma_prepare},
    {"ours_bf16_wgmma_tma_t", "ours_bf16_wgmma_tma with x's NCHW->NHWC transpose inside the timing (w's untimed), "
     "as cudnn_bf16 gets NCHW and changes the layout inside its call", CNN_BF16, CNN_ROLE_OURS,
     cnn_launch_bf16_wgmma_tma_t, cnn_workspace_bf16_wgmma_tma, cnn_supports_wgmma_tma, NULL, CNN_WGMMA_TMA_TILES,
     cnn_tile_name_wgmma_tma, NULL, NULL, cnn_bf16_mma3_t_prepare},
    {"ours_tf32_wgmma_tma_t", "ours_tf32_wgmma_tma with x's NCHW->NHWC change and TF32 rounding inside the timing "
     "(w's untimed), like for like with cudnn_tf32", CNN_TF32, CNN_ROLE_OURS, cnn_launch_tf32_wgmma_tma_t,
     cnn_workspace_tf32_wgmma_tma, cnn_supports_wgmma_tma, NULL, CNN_WGMMA_TMA_TILES, cnn_tile_name_wgmma_tma, NULL,
     NULL, cnn_tf32_wgmma_tma_t_prepare},
};

int cnn_variant_count(void) { return (int)(sizeof ROWS / sizeof ROWS[0]); }

const cnn_variant_row *cnn_variant_at(int i) { return i >= 0 && i < cnn_variant_count() ? &ROWS[i] : NULL; }

int cnn_variant_find(const char *name)
{
    for (int i = 0; i < cnn_variant_count(); i++)
        if (!strcmp(ROWS[i].name, name)) return i;
    return -1;
}

cnn_bound_fn cnn_variant_bound(const cnn_variant_row *v) { return v->bound ? v->bound : CNN_CLASS[v->cls].bound; }

size_t cnn_workspace_bytes(const cnn_shape *s, int v, int tile)
{
    const cnn_variant_row *row = cnn_variant_at(v);
    return row && row->workspace ? row->workspace(s, tile) : 0;
}

cnn_status cnn_forward(const float *x, const float *w, float *y, int N, int C, int H, int W, int M, int R, int S,
                       int pad_h, int pad_w, int stride_h, int stride_w, int dil_h, int dil_w, int groups, int v,
                       int tile, void *workspace, size_t workspace_bytes, cudaStream_t st)
{
    cnn_launch_args a = {x, w, y, {N, C, H, W, M, R, S, pad_h, pad_w, stride_h, stride_w, dil_h, dil_w, groups},
                         workspace, workspace_bytes, tile};
    cnn_status status = cnn_check(&a.s);
    if (status != CNN_OK) return status;
    const cnn_variant_row *row = cnn_variant_at(v);
    if (!row || (row->supports && !row->supports(&a.s)) || tile < 0 || tile >= row->tiles) return CNN_ERR_VARIANT;
    if (workspace_bytes < cnn_workspace_bytes(&a.s, v, tile)) return CNN_ERR_SHAPE;
    return row->launch(&a, st);
}
