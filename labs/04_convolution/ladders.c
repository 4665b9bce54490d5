/* ladders.c - Lab 04: the curated ladders of its three parts, the rungs the default run measures,
 * each adding one idea to the one before (each part's handout's main table; `convolution --ladders`
 * prints them, tests/fixtures/ladders/convolution.txt pins them). --all runs every rung we have; the
 * parts' NOTEBOOK.md files tell the others. A rung joins a ladder here, in the fixture and in the
 * handout, in one commit. */
#include "ladders.h"

/* The curated ladders: the default run's rungs, each adding one idea to the one before (the
 * handouts' main tables). --all runs every rung we have (the part notebooks tell the search). */
static const char *const BEYOND_LADDER[] = {
    "W16",             /* 16-byte loads and stores, neighbours by warp shuffles */
    "W16_DP4A",        /* a filter row as one dp4a: four byte products and their sum */
    "W16_DP4A_R8",     /* 8 rows a thread, every load in flight before the first store */
    "W16_DP4A_R4_SAT", /* cvt.pack.sat clamps and packs: fewer registers, 4 rows */
    "W16_DP4A_R4_SW",  /* shifted sums: a row's windows from whole words, no byte_perm */
    "W16_DP4A_R4_DW",  /* the sums on the words as they are loaded: no shuffles */
    "W16_DP4A_BULK",   /* the rows ahead in shared memory, brought by bulk copies */
};
static const char *const MEDIAN_LADDER[] = {
    "shared",      /* the input tile on chip (after the seed's scalar and vector kernels) */
    "best",        /* column sorts shared by neighbours, 16 pixels a lane */
    "dpx",         /* 3-input min / max (sm_90 DPX): within the instruction budget */
    "w16_r4",      /* a thread a 16 x 4 tile, its rows loaded at once */
    "w16_r4_cs",   /* in 72 registers, streaming stores */
    "w16_lean",    /* the compiler's extra IMADs out, every row in flight */
    "w16_keys",    /* 16-bit keys: ALU work moved to the FMA pipe */
    "w16_keys_we", /* the edge warps alone on the clamped path */
};
static const char *const CNN_FP32_LADDER[] = { /* FP32, direct (implicit GEMM); the seed's split, fused first */
    "ours1_64x64",      /* implicit GEMM: 64x64 block tiles, 4x4 outputs a thread */
    "ours2_128x128",    /* 8x8 outputs a thread: 64 FFMA per 16 shared reads */
    "ours3_float4",     /* shared tiles read as float4 without bank conflicts */
    "ours4_cp_async",   /* double-buffered shared memory fed by cp.async */
    "ours7_fast",          /* BK 16, 3 stages, 2 blocks an SM; tile and split-K tuned per layer */
    "ours9_sliced_k",      /* small layers: warp groups split K, blocks for every SM without a split-K pass */
    "ours10_paired_lanes", /* large layers: lanes share each shared-memory read (LDS.128 in 2 clocks, not 4) */
    "ours11_cluster_k",    /* sub-wave layers: split-K across a cluster, summed in distributed shared memory */
};
static const char *const CNN_WINOGRAD_LADDER[] = { /* FP32, fewer multiplications */
    "ours_wino2x2",          /* F(2x2,3x3): 16 batched GEMMs, 2.25x fewer multiplications */
    "ours_wino2x2_big",      /* the output transform folded into the GEMM's tiles */
    "ours_wino4x4",          /* F(4x4,3x3): 4x fewer multiplications */
    "ours_wino4x4_nonfused", /* the 36 GEMMs in big tiles, the output transform after */
};
static const char *const CNN_TENSOR_CORE_LADDER[] = { /* BF16 (FP16, TF32: instances of its kernels) */
    "ours_tf32_mma",       /* mma.sync TF32 */
    "ours_bf16_mma",       /* mma.sync BF16, ldmatrix */
    "ours_bf16_mma3",      /* x channels-last: every load a 16-byte cp.async */
    "ours_bf16_wgmma",     /* Hopper's warpgroup MMA from shared memory */
    "ours_bf16_wgmma_tma", /* TMA into an mbarrier ring, a producer warp, 2 consumer warpgroups */
    "ours_bf16_tma_nhwc",  /* on cuDNN NHWC's own tensors: persistent, split-K in clusters */
    "ours_fp16_tma_nhwc",  /* the same kernel on FP16 */
    "ours_tf32_tma_nhwc",  /* ... and on TF32 */
};
static const char *const FUSION_PIXEL_LADDER[] = { /* after the seed's sequential / connected / fused */
    "fused",      /* the seed's stages in one kernel: no intermediate in DRAM */
    "fused_dpx",  /* within the instruction budget: the arithmetic a pixel counted and cut */
    "fused_pair", /* two pixels an instruction */
};
static const char *const FUSION_BLOCK_LADDER[] = {
    "fused",         /* gauss -> median -> sobel in one kernel, the intermediates on chip */
    "fused_dpx",     /* within the instruction budget (3-input min / max) */
    "fused_strips",  /* the picture in two strips a block: fewer halo rows */
    "fused_half",    /* the sobel in half precision: 80 registers */
    "fused_xorc",    /* the columns' middles by XOR */
    "fused_flat",    /* no per-row overhead */
    "fused_flat_sf", /* the slowest blocks first, strips of up to 72 rows */
};
const gl_ladder LAB04_LADDERS[] = {
    GL_LADDER("beyond", NULL, BEYOND_LADDER, "W16_R4, W16_R8, W16_DP4A_R4, W16_DP4A_R6_SAT, W16_DP4A_R6_SW: re-tuned "
              "row counts (ladder/NOTEBOOK.md); also in filters and sizes"),
    GL_LADDER("cnn", "fp32", CNN_FP32_LADDER, "ours5_warp_tile, ours6_tuned, ours8_small (cnn/NOTEBOOK.md)"),
    GL_LADDER("cnn", "winograd", CNN_WINOGRAD_LADDER, NULL),
    GL_LADDER("cnn", "tensor_core", CNN_TENSOR_CORE_LADDER, "ours_tf32_mma2, ours_bf16_mma2, ours_bf16_mma3_t, "
              "ours_bf16_wgmma2, ours_bf16_wgmma_tma_t, ours_bf16_wgmma_tma_nhwc, ours_tf32_wgmma_tma(_t) "
              "(cnn/NOTEBOOK.md)"),
    GL_LADDER("fusion", "pixel", FUSION_PIXEL_LADDER, "fused_pair32 (fusion/NOTEBOOK.md)"),
    GL_LADDER("fusion", "block", FUSION_BLOCK_LADDER, "fused_w16, fused_s16, fused_lean, fused_lean_a6, fused_lean_r192, "
              "fused_xor, fused_flat_r36 (fusion/NOTEBOOK.md)"),
    GL_LADDER("median", NULL, MEDIAN_LADDER, "dpx_r48, dpx_a6, dpx_r48a6, dpx_r12, bulk_r48, bulk_wave, w16_r8, "
              "w16_r4_fma, w16_s12, w16_s24, w16_r8_lb, w16_ring, w16_tma, w16_tma_dyn, w16_tma_r8 "
              "(fusion/NOTEBOOK.md)"),
};
int lab04_ladder_count(void) { return (int)(sizeof LAB04_LADDERS / sizeof LAB04_LADDERS[0]); }
