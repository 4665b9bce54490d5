/* cnn_variants.c - Lab 04, part 2: the variant table (one row per variant: the BabelStream way),
 * the precision classes with their error bounds and peaks, and the entry point cnn_forward.
 * To add a variant: write its launcher (a .cu file), declare it in cnn.h, add its row below (designated
 * fields; NULL ones left out); it runs with --all until ladders.c's cnn ladders name it. */
#include <float.h>
#include <math.h>
#include <string.h>
#include "cnn.h"
#include "fast_rungs.h"
#include "tensor_core.h"
#include "winograd.h"

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
 * bounds, FP16's too, are derived in cnn_bounds.c. */
const cnn_class_info CNN_CLASS[CNN_CLASSES] = {
    [CNN_FP32] = {"FP32", bound_fp32, "16 FLT_EPSILON sqrt(C R S) sum|x w|", 256, 0},
    [CNN_TF32] = {"TF32", cnn_bound_tf32,
                  "(2u + u^2 + gamma_CRS(2^-23) (1 + u)^2) sum|x w|, u = 2^-11 (cuDNN: 2^-10, rounding unknown)",
                  2048, 9},
    [CNN_BF16] = {"BF16", cnn_bound_bf16, "e = (2u + u^2 + gamma_CRS(2^-23) (1 + u)^2) sum|x w|, u = 2^-8, "
                  "+ 2^-8 (sum|x w| + e) for the BF16 y", 4096, 9},
    [CNN_FP16] = {"FP16", cnn_bound_fp16, "e = (2u + u^2 + gamma_CRS(2^-23) (1 + u)^2) sum|x w| + CRS 2^-23, u = "
                  "2^-11, + 2^-11 (sum|x w| + e) + 2^-25 for the FP16 y (|x|, |w| <= 1; |y| < 65504)", 4096, 9},
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
    {.name = "cudnn",
     .lesson = "the library bar: cuDNN FP32, FMA math (no TF32), fastest algorithm within the bound",
     .cls = CNN_FP32, .role = CNN_ROLE_PEER, .launch = cnn_launch_cudnn, .tiles = 1, .tile_name = tile_name_none,
     .peer = &cnn_cudnn_fp32},
    {.name = "split",
     .lesson = "the seed: per-tap partial maps through DRAM, then a second kernel sums them",
     .cls = CNN_FP32, .role = CNN_ROLE_SEED, .launch = cnn_launch_split, .workspace = cnn_workspace_split, .tiles = 1,
     .tile_name = tile_name_none},
    {.name = "fused",
     .lesson = "the seed: the sum over channels and taps in one register, no partial maps",
     .cls = CNN_FP32, .role = CNN_ROLE_SEED, .launch = cnn_launch_fused, .tiles = 1, .tile_name = tile_name_none},
    {.name = "ours1_64x64",
     .lesson = "implicit GEMM, 64x64 block tiles, 4x4 outputs per thread, split-K with atomics",
     .cls = CNN_FP32, .role = CNN_ROLE_OURS, .launch = cnn_launch_ours1, .tiles = 1, .tile_name = tile_name_none},
    {.name = "ours2_128x128",
     .lesson = "128x128 block tiles, 8x8 outputs per thread: 64 FFMA per 16 shared reads",
     .cls = CNN_FP32, .role = CNN_ROLE_OURS, .launch = cnn_launch_ours2, .tiles = 1, .tile_name = tile_name_none},
    {.name = "ours3_float4",
     .lesson = "the shared tiles read as float4, laid out so a quarter-warp reads 128 bytes: no bank conflicts",
     .cls = CNN_FP32, .role = CNN_ROLE_OURS, .launch = cnn_launch_ours3, .tiles = 1, .tile_name = tile_name_none},
    {.name = "ours4_cp_async",
     .lesson = "double-buffered shared memory fed by cp.async (sm_80+): the next slice lands during the multiply",
     .cls = CNN_FP32, .role = CNN_ROLE_OURS, .launch = cnn_launch_ours4, .tiles = 1, .tile_name = tile_name_none},
    {.name = "ours5_warp_tile",
     .lesson = "each warp owns a 64x32 sub-tile: a third fewer distinct shared bytes per warp",
     .cls = CNN_FP32, .role = CNN_ROLE_OURS, .launch = cnn_launch_ours5, .tiles = 1, .tile_name = tile_name_none},
    {.name = "ours6_tuned",
     .lesson = "the tile shape per layer and split-K where it pays (workspace + reduce, no atomics), autotuned",
     .cls = CNN_FP32, .role = CNN_ROLE_OURS, .launch = cnn_launch_ours6, .workspace = cnn_workspace_ours6,
     .tiles = CNN_OURS6_TILES, .tile_name = cnn_tile_name_ours6},
    {.name = "ours7_fast",
     .lesson = "BK 16, 2 blocks per SM, 3-stage cp.async (16-byte weights; 16-byte x for 1x1), im2col from a "
                "per-slice table; tile and split-K autotuned",
     .cls = CNN_FP32, .role = CNN_ROLE_OURS, .launch = cnn_launch_ours7, .workspace = cnn_workspace_ours7,
     .tiles = CNN_OURS7_TILES, .tile_name = cnn_tile_name_ours7},
    {.name = "ours8_small",
     .lesson = "small layers (M N H W <= 2^18): a block's threads split K, warp reduce-scatter; one kernel, no "
                "workspace",
     .cls = CNN_FP32, .role = CNN_ROLE_OURS, .launch = cnn_launch_ours8, .supports = cnn_supports_ours8,
     .tiles = CNN_OURS8_TILES, .tile_name = cnn_tile_name_ours8},
    {.name = "ours9_sliced_k",
     .lesson = "small tiles, the block's warp groups split K (sliced-K, summed in shared memory): blocks for "
                "every SM with no split-K pass; 2-stage cp.async, tuned",
     .cls = CNN_FP32, .role = CNN_ROLE_OURS, .launch = cnn_launch_ours9, .supports = cnn_supports_ours9,
     .tiles = CNN_OURS9_TILES, .tile_name = cnn_tile_name_ours9},
    {.name = "ours10_paired_lanes",
     .lesson = "large layers: lanes l, l^1 share each weight read and l, l^2 each im2col read (LDS.128 in 2 "
                "clocks, not 4); 4-stage cp.async, im2col table + tap mask; tuned",
     .cls = CNN_FP32, .role = CNN_ROLE_OURS, .launch = cnn_launch_ours10, .workspace = cnn_workspace_ours10,
     .supports = cnn_supports_ours10, .tiles = CNN_OURS10_TILES, .tile_name = cnn_tile_name_ours10},
    {.name = "ours11_cluster_k",
     .lesson = "sub-wave layers: split-K across a thread-block cluster (sm_90), the partial tiles summed through"
                " distributed shared memory: one pass, no workspace, no atomics; tuned",
     .cls = CNN_FP32, .role = CNN_ROLE_OURS, .launch = cnn_launch_ours11, .supports = cnn_supports_ours11,
     .tiles = CNN_OURS11_TILES, .tile_name = cnn_tile_name_ours11},
    {.name = "ours_wino2x2",
     .lesson = "Winograd F(2x2,3x3): 16 batched GEMMs on transformed tiles, 2.25x fewer multiplications",
     .cls = CNN_FP32, .role = CNN_ROLE_OURS, .launch = cnn_launch_winograd, .workspace = cnn_workspace_winograd,
     .supports = cnn_supports_winograd, .bound = cnn_bound_winograd, .tiles = 1, .tile_name = tile_name_none,
     .magnitudes = cnn_winograd_abs_sums},
    {.name = "ours_wino2x2_big",
     .lesson = "F(2x2,3x3), 64x64 block tiles of one xi at a time, the output transform folded in after each: 2 "
                "blocks/SM, cp.async",
     .cls = CNN_FP32, .role = CNN_ROLE_OURS, .launch = cnn_launch_winograd_big,
     .workspace = cnn_workspace_winograd_big, .supports = cnn_supports_winograd, .bound = cnn_bound_winograd_acc,
     .tiles = WGB_SPLITS, .tile_name = cnn_tile_name_winograd_big, .magnitudes = cnn_winograd_abs_sums},
    {.name = "ours_wino4x4",
     .lesson = "F(4x4,3x3): 36 xi, 4x fewer multiplications than direct; the big rung's GEMM, the output "
                "transform's rows folded in, rows split (tuned)",
     .cls = CNN_FP32, .role = CNN_ROLE_OURS, .launch = cnn_launch_winograd4, .workspace = cnn_workspace_winograd4,
     .supports = cnn_supports_winograd, .bound = cnn_bound_winograd4, .tiles = WG4_SPLITS,
     .tile_name = cnn_tile_name_winograd4, .magnitudes = cnn_winograd4_abs_sums},
    {.name = "ours_wino4x4_nonfused",
     .lesson = "F(4x4,3x3) unfolded: the 36 GEMMs in 128x128 tiles, 8x8 per thread, 3-stage cp.async; all 36 "
                "products to memory, the whole output transform after (tuned)",
     .cls = CNN_FP32, .role = CNN_ROLE_OURS, .launch = cnn_launch_winograd4_nonfused,
     .workspace = cnn_workspace_winograd4_nonfused, .supports = cnn_supports_winograd, .bound = cnn_bound_winograd4,
     .tiles = WG4N_TILES, .tile_name = cnn_tile_name_winograd4_nonfused, .magnitudes = cnn_winograd4_abs_sums},
    {.name = "cudnn_tf32_nhwc",
     .lesson = "the library bar on tensor cores in its best layout: cuDNN TF32, x and y NHWC, w KRSC (made "
                "untimed): the convolution alone",
     .cls = CNN_TF32, .role = CNN_ROLE_PEER, .launch = cnn_launch_cudnn_tf32_nhwc, .bound = cnn_bound_tf32_any,
     .tiles = 1, .tile_name = tile_name_none, .peer = &cnn_cudnn_tf32_nhwc, .prepare = cnn_nhwc_prepare_tf32,
     .own_output = &cnn_nhwc_output_tf32},
    {.name = "cudnn_tf32",
     .lesson = "the library bar on tensor cores: cuDNN, FP32 tensors, CUDNN_TENSOR_OP_MATH (TF32)",
     .cls = CNN_TF32, .role = CNN_ROLE_PEER, .launch = cnn_launch_cudnn, .bound = cnn_bound_tf32_any, .tiles = 1,
     .tile_name = tile_name_none, .peer = &cnn_cudnn_tf32},
    {.name = "ours_tf32_mma",
     .lesson = "implicit GEMM on tensor cores: mma.sync m16n8k8 TF32 (x, w rounded in-kernel)",
     .cls = CNN_TF32, .role = CNN_ROLE_OURS, .launch = cnn_launch_tf32_mma, .supports = cnn_supports_tc, .tiles = 1,
     .tile_name = tile_name_none},
    {.name = "ours_tf32_mma2",
     .lesson = "3-stage cp.async for both tiles (4-byte zero-fill im2col), ldmatrix, staged stores, split-K; "
                "tuned",
     .cls = CNN_TF32, .role = CNN_ROLE_OURS, .launch = cnn_launch_tf32_mma2, .workspace = cnn_workspace_tf32_mma2,
     .supports = cnn_supports_tc, .tiles = CNN_TC2_TILES, .tile_name = cnn_tile_name_tc2},
    {.name = "cudnn_bf16_nhwc",
     .lesson = "cuDNN BF16 in its best layout: x and y NHWC in BF16, w KRSC (made untimed): the convolution "
                "alone, the BF16 rows' ratio base",
     .cls = CNN_BF16, .role = CNN_ROLE_PEER, .launch = cnn_launch_cudnn_bf16_nhwc, .tiles = 1,
     .tile_name = tile_name_none, .peer = &cnn_cudnn_bf16_nhwc, .prepare = cnn_nhwc_prepare_bf16,
     .own_output = &cnn_nhwc_output_bf16},
    {.name = "cudnn_fp16_nhwc",
     .lesson = "cuDNN FP16 (FP32 compute) in its best layout: x and y NHWC in FP16, w KRSC (made untimed)",
     .cls = CNN_FP16, .role = CNN_ROLE_PEER, .launch = cnn_launch_cudnn_fp16_nhwc, .tiles = 1,
     .tile_name = tile_name_none, .peer = &cnn_cudnn_fp16_nhwc, .prepare = cnn_nhwc_prepare_fp16,
     .own_output = &cnn_nhwc_output_fp16},
    {.name = "cudnn_bf16",
     .lesson = "cuDNN with BF16 x, w, y (FP32 compute, tensor-op math); x, w converted untimed, y->float timed",
     .cls = CNN_BF16, .role = CNN_ROLE_PEER, .launch = cnn_launch_cudnn_bf16, .tiles = 1, .tile_name = tile_name_none,
     .peer = &cnn_cudnn_bf16, .prepare = cnn_bf16_prepare},
    {.name = "ours_bf16_mma",
     .lesson = "implicit GEMM on tensor cores: mma.sync m16n8k16 BF16, ldmatrix; BF16 x, w in memory, y->float "
                "timed",
     .cls = CNN_BF16, .role = CNN_ROLE_OURS, .launch = cnn_launch_bf16_mma, .workspace = cnn_workspace_bf16_mma,
     .supports = cnn_supports_tc, .tiles = 1, .tile_name = tile_name_none, .prepare = cnn_bf16_prepare},
    {.name = "ours_bf16_mma2",
     .lesson = "3-stage pipeline (cp.async weights, im2col through registers), staged stores, split-K; tuned",
     .cls = CNN_BF16, .role = CNN_ROLE_OURS, .launch = cnn_launch_bf16_mma2, .workspace = cnn_workspace_bf16_mma2,
     .supports = cnn_supports_tc, .tiles = CNN_TC2_TILES, .tile_name = cnn_tile_name_tc2,
     .prepare = cnn_bf16_prepare},
    {.name = "ours_bf16_mma3",
     .lesson = "x channels-last with a zero border, k = (r,s,c): every load a 16-byte cp.async, 4 stages; x, w "
                "layout untimed",
     .cls = CNN_BF16, .role = CNN_ROLE_OURS, .launch = cnn_launch_bf16_mma3, .workspace = cnn_workspace_bf16_mma3,
     .supports = cnn_supports_tc, .tiles = CNN_TC3_TILES, .tile_name = cnn_tile_name_tc3,
     .prepare = cnn_bf16_mma3_prepare},
    {.name = "ours_bf16_mma3_t",
     .lesson = "ours_bf16_mma3 with x's NCHW->NHWC transpose inside the timing (w's untimed): the difference is "
                "the layout's cost",
     .cls = CNN_BF16, .role = CNN_ROLE_OURS, .launch = cnn_launch_bf16_mma3_t, .workspace = cnn_workspace_bf16_mma3,
     .supports = cnn_supports_tc, .tiles = CNN_TC3_TILES, .tile_name = cnn_tile_name_tc3,
     .prepare = cnn_bf16_mma3_t_prepare},
    {.name = "ours_bf16_wgmma",
     .lesson = "mma3's layout on Hopper's warpgroup MMA (wgmma, sm_90a, cc 9.0 only): operands read from shared "
                "memory by descriptor, 128xBN tiles, 3-4 stages",
     .cls = CNN_BF16, .role = CNN_ROLE_OURS, .launch = cnn_launch_bf16_wgmma, .workspace = cnn_workspace_bf16_wgmma,
     .supports = cnn_supports_bf16_wgmma, .tiles = CNN_WGMMA_TILES, .tile_name = cnn_tile_name_bf16_wgmma,
     .prepare = cnn_bf16_mma3_prepare},
    {.name = "ours_bf16_wgmma2",
     .lesson = "ours_bf16_wgmma pipelined: one wgmma group left running across the k-tile barrier (wait_group "
                "1), copies STAGES-2 tiles ahead into stages whose MMAs are complete",
     .cls = CNN_BF16, .role = CNN_ROLE_OURS, .launch = cnn_launch_bf16_wgmma2, .workspace = cnn_workspace_bf16_wgmma,
     .supports = cnn_supports_bf16_wgmma, .tiles = CNN_WGMMA2_TILES, .tile_name = cnn_tile_name_bf16_wgmma2,
     .prepare = cnn_bf16_mma3_prepare},
    {.name = "ours_bf16_wgmma_tma",
     .lesson = "warp-specialised: a producer thread feeds an mbarrier ring by TMA (128B swizzle, zero fill = "
                "padding), 2 consumer warpgroups run wgmma; tiles autotuned",
     .cls = CNN_BF16, .role = CNN_ROLE_OURS, .launch = cnn_launch_bf16_wgmma_tma,
     .workspace = cnn_workspace_bf16_wgmma_tma, .supports = cnn_supports_wgmma_tma, .tiles = CNN_WGMMA_TMA_TILES,
     .tile_name = cnn_tile_name_wgmma_tma, .prepare = cnn_bf16_mma3_prepare},
    {.name = "ours_tf32_wgmma_tma",
     .lesson = "ours_bf16_wgmma_tma on TF32 (wgmma k8): x, w rounded to TF32 and laid out channels-last untimed "
                "(cudnn_tf32 times its own layout change)",
     .cls = CNN_TF32, .role = CNN_ROLE_OURS, .launch = cnn_launch_tf32_wgmma_tma,
     .workspace = cnn_workspace_tf32_wgmma_tma, .supports = cnn_supports_wgmma_tma, .tiles = CNN_WGMMA_TMA_TILES,
     .tile_name = cnn_tile_name_wgmma_tma, .prepare = cnn_tf32_wgmma_tma_prepare},
    {.name = "ours_bf16_wgmma_tma_t",
     .lesson = "ours_bf16_wgmma_tma with x's NCHW->NHWC transpose inside the timing (w's untimed), as cudnn_bf16"
                " gets NCHW and changes the layout inside its call",
     .cls = CNN_BF16, .role = CNN_ROLE_OURS, .launch = cnn_launch_bf16_wgmma_tma_t,
     .workspace = cnn_workspace_bf16_wgmma_tma, .supports = cnn_supports_wgmma_tma, .tiles = CNN_WGMMA_TMA_TILES,
     .tile_name = cnn_tile_name_wgmma_tma, .prepare = cnn_bf16_mma3_t_prepare},
    {.name = "ours_bf16_wgmma_tma_nhwc",
     .lesson = "ours_bf16_wgmma_tma writing y channels-last in BF16 and stopping there, as cudnn_bf16_nhwc does: "
                "no NCHW scatter, no float conversion in the timing (x still laid out untimed)",
     .cls = CNN_BF16, .role = CNN_ROLE_OURS, .launch = cnn_launch_bf16_wgmma_tma_nhwc,
     .workspace = cnn_workspace_bf16_wgmma_tma, .supports = cnn_supports_wgmma_tma, .tiles = CNN_WGMMA_TMA_TILES,
     .tile_name = cnn_tile_name_wgmma_tma, .prepare = cnn_bf16_mma3_prepare, .own_output = &cnn_bf16_y16_nhwc_output},
    {.name = "ours_bf16_tma_nhwc",
     .lesson = "the TMA wgmma kernel on cudnn_bf16_nhwc's own tensors (x NHWC without a border: TMA's zero fill "
                "is the padding; y NHWC BF16), with persistent tiles (the producer loads the next box while the "
                "consumers store y), split-K across a cluster for the layers under one wave, and ping-pong consumer "
                "warpgroups (one's MMAs while the other stores y)",
     .cls = CNN_BF16, .role = CNN_ROLE_OURS, .launch = cnn_launch_bf16_tma_nhwc,
     .workspace = cnn_workspace_tma_nhwc_bf16, .supports = cnn_supports_tma_nhwc_bf16, .tiles = CNN_TMA_NHWC_TILES,
     .tile_name = cnn_tile_name_wgmma_tma, .prepare = cnn_nhwc_prepare_bf16, .own_output = &cnn_nhwc_output_bf16},
    {.name = "ours_fp16_tma_nhwc",
     .lesson = "ours_bf16_tma_nhwc on FP16 (its kernel, ten of its tiles) against cudnn_fp16_nhwc's own tensors",
     .cls = CNN_FP16, .role = CNN_ROLE_OURS, .launch = cnn_launch_fp16_tma_nhwc,
     .workspace = cnn_workspace_tma_nhwc_fp16, .supports = cnn_supports_tma_nhwc_fp16, .tiles = CNN_TMA_NHWC_SUB_TILES,
     .tile_name = cnn_tile_name_tma_nhwc_sub, .prepare = cnn_nhwc_prepare_fp16, .own_output = &cnn_nhwc_output_fp16},
    {.name = "ours_tf32_tma_nhwc",
     .lesson = "the kernel on TF32 against cudnn_tf32_nhwc's own tensors: raw FP32 x and w, which wgmma truncates "
                "to TF32 (the truncation bound, as cuDNN's)",
     .cls = CNN_TF32, .role = CNN_ROLE_OURS, .launch = cnn_launch_tf32_tma_nhwc, .bound = cnn_bound_tf32_any,
     .workspace = cnn_workspace_tma_nhwc_tf32, .supports = cnn_supports_tma_nhwc_tf32, .tiles = CNN_TMA_NHWC_SUB_TILES,
     .tile_name = cnn_tile_name_tma_nhwc_sub, .prepare = cnn_nhwc_prepare_tf32, .own_output = &cnn_nhwc_output_tf32},
    {.name = "ours_tf32_wgmma_tma_t",
     .lesson = "ours_tf32_wgmma_tma with x's NCHW->NHWC change and TF32 rounding inside the timing (w's "
                "untimed), like for like with cudnn_tf32",
     .cls = CNN_TF32, .role = CNN_ROLE_OURS, .launch = cnn_launch_tf32_wgmma_tma_t,
     .workspace = cnn_workspace_tf32_wgmma_tma, .supports = cnn_supports_wgmma_tma, .tiles = CNN_WGMMA_TMA_TILES,
     .tile_name = cnn_tile_name_wgmma_tma, .prepare = cnn_tf32_wgmma_tma_t_prepare},
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
