/* 05_wgmma_tma.cu - Lab 04, part 2, rung 05: the host side of the TMA-fed, warp-specialised
 * implicit GEMM (tm_conv.cuh: the kernel and its lesson). The tile table (each tile one row of
 * template arguments), the tensor maps, the ring's stages, the grid, and the rows' launchers:
 * ours_{bf16,tf32}_wgmma_tma(_t) on mma3's arrays, ours_{bf16,fp16,tf32}_tma_nhwc on cuDNN NHWC's
 * own tensors. One translation unit with the kernel (its templates are instantiated here). */
#include <stdio.h>
#include "gl_tma.h" /* the tensor-map encoder from the runtime */
#include "tensor_core.h"
#include "channels_last.cuh"
#include "tm_conv.cuh"

/* The tiles (cnn_tile_name_wgmma_tma; launch_tile): rows x BN, stages (at most), blocks per SM; the
 * halo tiles load one x box per filter column of a 3 x 3 filter (tm_geom's rt = 3); p: persistent
 * (a grid of one block per SM, MIN_BLOCKS per SM for 2blk, each walking several boxes); pcN: and
 * clusters of N blocks sharing each w box by TMA multicast (each loads 1 / N of it: BN / N rows,
 * at least 8 for the swizzle's 1024-byte pattern); ksN: split-K over clusters of N blocks (one
 * box per cluster, each block a share of its k-tiles, the partial tiles summed on chip); pp:
 * persistent ping-pong (each consumer warpgroup a whole box, the two in turn: 128 rows, or 64 for
 * pp..._64x... and pp64x..., half the work a unit, so a layer of few boxes spreads over more SMs); pdl_: a tile
 * launched with programmatic dependent launch (TM_PDL_OF). The rows on mma3's arrays try the first
 * CNN_WGMMA_TMA_TILES, ours_bf16_tma_nhwc all of them. */
static const char *const TM_TILE_NAMES[CNN_TMA_NHWC_TILES] = {
    "128x64_4st_2blk", "128x64_9st", "128x128_7st", "128x256_4st", "halo_128x64", "halo_128x128",
    "p128x128_7st",    "p_halo_128x128", "p256x128_4st", "p_halo_256x64", "p128x256_4st", "p128x64_4st_2blk",
    "pc2_halo_128x128", "pc8_128x128_7st", "p_halo_256x128", "ks2_128x64", "ks4_128x64", "ks8_128x64",
    "ks2_halo_128x64", "ks4_halo_128x64", "pp_halo_128x128", "pp128x128_7st", "ks2_halo_128x128", "ks2_128x128_7st", "ppc2_halo_128x128",
    "pp_halo_64x128", "pp64x128_9st", "pp64x64_9st",
    "pdl_128x64_4st_2blk", "pdl_halo_128x64", "pdl_p_halo_128x128", "pdl_p128x64_4st_2blk", "pdl_ks8_128x64",
    "pdl_ks4_halo_128x64", "pdl_pp_halo_128x128", "pdl_pp_halo_64x128", "pdl_pp64x128_9st",
    "pdl_pp64x64_9st"};

/* The pdl_ tiles: tile TM_PDL_OF[i] launched with programmatic dependent launch (tile TM_PDL_FIRST + i). */
enum { TM_PDL_FIRST = 28 };
static constexpr int TM_PDL_OF[] = {0, 4, 7, 11, 17, 19, 20, 25, 26, 27};
static_assert(TM_PDL_FIRST + sizeof TM_PDL_OF / sizeof TM_PDL_OF[0] == CNN_TMA_NHWC_TILES, "tensor_core.h's count");

extern "C" const char *cnn_tile_name_wgmma_tma(int tile)
{
    return tile >= 0 && tile < CNN_TMA_NHWC_TILES ? TM_TILE_NAMES[tile] : "?";
}

static tm_geom geom_of(const cnn_shape *s, int elem_bytes, int halo, int rows = 128, int bordered = 1)
{
    return tm_geom_make(s->N, s->C, s->H, s->W, s->M, s->R, s->S, s->pad_h, s->pad_w, elem_bytes, halo, rows,
                        bordered);
}
static size_t tf32_x_bytes(const tm_geom &g) { return cnn_align256((size_t)g.N * g.Hp * g.Wp * g.Cp * 4); }

extern "C" size_t cnn_workspace_bf16_wgmma_tma(const cnn_shape *s, int tile)
{
    (void)tile;
    return cnn_workspace_bf16_mma3(s, 0); /* mma3's arrays, no split-K partial sums */
}

extern "C" size_t cnn_workspace_tf32_wgmma_tma(const cnn_shape *s, int tile)
{
    (void)tile;
    const tm_geom g = geom_of(s, 4, 0);
    return tf32_x_bytes(g) + cnn_align256((size_t)s->M * s->R * s->S * g.Cp * 4);
}

static void tf32_x_layout(const cnn_shape *s, const float *x, float *xp, const tm_geom &g, cudaStream_t st)
{
    tc3_to_channels_last_tf32(x, xp, s->N, s->C, s->H, s->W, g.Cp, s->pad_h, s->pad_w, st);
}

/* The TF32 prepare hooks (untimed): xp and wp zeroed (the border and the channels past C stay zero),
 * w's layout, and x's for ours_tf32_wgmma_tma (for _t x's is timed). */
static void tf32_prepare(const cnn_shape *s, const float *x, const float *w, void *workspace, cudaStream_t st,
                         int with_x)
{
    const tm_geom g = geom_of(s, 4, 0);
    float *xp = (float *)workspace, *wp = (float *)((char *)workspace + tf32_x_bytes(g));
    GL_CHECK(cudaMemsetAsync(workspace, 0, cnn_workspace_tf32_wgmma_tma(s, 0), st));
    if (with_x) tf32_x_layout(s, x, xp, g, st);
    tc3_to_channels_last_tf32(w, wp, s->M, s->C, s->R, s->S, g.Cp, 0, 0, st);
}

extern "C" void cnn_tf32_wgmma_tma_prepare(const cnn_shape *s, const float *x, const float *w, void *workspace,
                                           cudaStream_t st)
{
    tf32_prepare(s, x, w, workspace, st, 1);
}

extern "C" void cnn_tf32_wgmma_tma_t_prepare(const cnn_shape *s, const float *x, const float *w, void *workspace,
                                             cudaStream_t st)
{
    tf32_prepare(s, x, w, workspace, st, 0);
}

/* A map in the 128-byte swizzle (gl_tma.h: zero fill out of bounds). 0 on failure (said why). */
static int encode_map(CUtensorMap *map, CUtensorMapDataType type, int rank, void *addr, const cuuint64_t *dims,
                      const cuuint64_t *strides, const cuuint32_t *box)
{
    return gl_tma_encode(map, type, rank, addr, dims, strides, box, CU_TENSOR_MAP_SWIZZLE_128B);
}

/* The two maps over x [N][Hp][Wp][Cp] and w [M][R S][Cp] (elements of elem bytes): boxes (kc,
 * bw, a_rows / bw, 1) and w's of tm_w_map. Refuses (0, said why) unless the x box and rt w boxes are
 * exactly the stage's bytes: the full barrier's expect_tx count is those bytes, and a mismatch would
 * hang the block; and unless the ring has the 2 stages its release of tile i - 1 needs. */
static int encode_maps(const tm_geom &g, int BN, int cl, CUtensorMapDataType type, int elem, void *xp, void *wp,
                       CUtensorMap *xmap, CUtensorMap *wmap)
{
    const cuuint64_t row = (cuuint64_t)g.Cp * elem;
    const cuuint64_t xdims[4] = {(cuuint64_t)g.Cp, (cuuint64_t)g.Wp, (cuuint64_t)g.Hp, (cuuint64_t)g.N};
    const cuuint64_t xstrides[3] = {row, row * g.Wp, row * g.Wp * g.Hp};
    const cuuint32_t xbox[4] = {(cuuint32_t)g.kc, (cuuint32_t)g.bw, (cuuint32_t)(g.a_rows / g.bw), 1};
    cuuint64_t wdims[4], wstrides[3];
    cuuint32_t wbox[4];
    const int wrank = tm_w_map(&g, BN, cl, row, wdims, wstrides, wbox);
    const unsigned box_bytes = (unsigned)(g.kc * elem) * (xbox[1] * xbox[2] + g.rt * BN);
    if (g.kc * elem != TM_ROW_BYTES || g.bw * g.bh != g.rows || box_bytes != tm_stage_bytes(&g, BN) ||
        g.stages < 2 || g.R % g.rt) {
        fprintf(stderr, "cnn: wgmma_tma: boxes (%d x %d x %u, %d x %d x %d) vs a stage of %u bytes, %d stages\n",
                g.kc, g.bw, xbox[2], g.rt, g.kc, BN, tm_stage_bytes(&g, BN), g.stages);
        return 0;
    }
    return encode_map(xmap, type, 4, xp, xdims, xstrides, xbox) && encode_map(wmap, type, wrank, wp, wdims, wstrides, wbox);
}

/* y's map for the TMA-store epilogue (tm_store_y): y [N][H][W][M] channels-last, boxes of one 128-byte
 * chunk of channels x the 16 pixels of a consumer warp's rows (bw x 16 / bw with bw = 8, else 16 x 1).
 * 0 (nothing said) where a pixel's M values are not a multiple of 16 bytes: TMA's strides must be. */
static int encode_y_map(const tm_geom &g, CUtensorMapDataType type, int elem, void *y, CUtensorMap *ymap)
{
    const cuuint64_t row = (cuuint64_t)g.M * elem;
    if (row % 16) return 0;
    const cuuint32_t bx = g.bw < 16 ? (cuuint32_t)g.bw : 16;
    const cuuint64_t dims[4] = {(cuuint64_t)g.M, (cuuint64_t)g.W, (cuuint64_t)g.H, (cuuint64_t)g.N};
    const cuuint64_t strides[3] = {row, row * g.W, row * g.W * g.H};
    const cuuint32_t box[4] = {(cuuint32_t)(TM_ROW_BYTES / elem), bx, 16 / bx, 1};
    return encode_map(ymap, type, 4, y, dims, strides, box);
}

/* Where a launch reads and writes: the tensors' type, x (bordered: mma3's xp; else plain NHWC) and w
 * (wp [M][R S][Cp]); y channels-last or NCHW; persistent: one block per SM (x MIN_BLOCKS). */
typedef struct {
    CUtensorMapDataType type;
    void *x, *w;
    int bordered, nhwc_out, persistent, pdl; /* pdl: launched with programmatic dependent launch */
} tm_io;

/* A block's share of the SM's shared memory: 227 KB alone, half of 228 KB less 1 KB per block for two. */
static unsigned smem_budget(int min_blocks) { return min_blocks > 1 ? 228 * 1024 / 2 - 1024 : 227 * 1024; }

/* The ring's stages: up to max_stages, as many as fit the block's share of the SM. */
static tm_geom with_stages(const cnn_shape *s, int elem, int halo, int rows, int bordered, int bn, int max_stages,
                           int min_blocks)
{
    tm_geom g = geom_of(s, elem, halo, rows, bordered);
    g.stages = tm_fit_stages(&g, bn, max_stages, smem_budget(min_blocks));
    return g;
}

/* A launch of `grid` blocks of the ring kernel, in clusters of cl (1: no cluster), with programmatic
 * dependent launch if pdl. at: room for two attributes. */
static cudaLaunchConfig_t tm_config(cudaLaunchAttribute *at, int grid, int cl, size_t smem, int pdl, cudaStream_t st)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)grid), cfg.blockDim = dim3(TM_THREADS), cfg.dynamicSmemBytes = smem, cfg.stream = st;
    cfg.attrs = at, cfg.numAttrs = 0;
    if (cl > 1) {
        at[cfg.numAttrs].id = cudaLaunchAttributeClusterDimension;
        at[cfg.numAttrs].val.clusterDim.x = (unsigned)cl, at[cfg.numAttrs].val.clusterDim.y = 1;
        at[cfg.numAttrs++].val.clusterDim.z = 1;
    }
    if (pdl) {
        at[cfg.numAttrs].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        at[cfg.numAttrs++].val.programmaticStreamSerializationAllowed = 1;
    }
    return cfg;
}

/* The grid: a block per box (x CL: one unit per cluster), or (persistent) as many blocks or
 * clusters as the run's SMs hold at once (cudaOccupancyMaxActiveClusters for clusters), if fewer. */
template <typename K> static int grid_for(K kernel, int units, int cl, int persistent, size_t smem)
{
    if (!persistent) return units * cl;
    int fit = 0;
    if (cl > 1) {
        cudaLaunchAttribute at[2];
        const cudaLaunchConfig_t cfg = tm_config(at, units * cl, cl, smem, 0, 0);
        GL_CHECK(cudaOccupancyMaxActiveClusters(&fit, kernel, &cfg));
    } else { /* the SMs this run's kernels get (cnn_sms: --sms's green context, else the GPU's) */
        int per_sm = 0;
        GL_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, TM_THREADS, smem));
        fit = cnn_sms() * per_sm;
    }
    return (fit > 0 && fit < units ? fit : units) * cl;
}

/* One tile: RT > 1 (the halo) where the filter has RT rows and 2 stages fit, else one box per tap;
 * KS > 1 (split-K) where the layer has KS k-tiles and the ring holds a partial tile, else none. */
template <typename T, int BN, int WM, int MIN_BLOCKS, bool SPLIT_REGS, int RT, int CL = 1, int KS = 1, bool PP = false>
static cnn_status launch_tm(const cnn_shape *s, int max_stages, const tm_io &io, T *y, cudaStream_t st)
{
    tm_geom g = with_stages(s, (int)sizeof(T), RT > 1, (PP ? 64 : 128) * WM, io.bordered, BN, max_stages, MIN_BLOCKS);
    g.nhwc_out = io.nhwc_out;
    if (RT > 1 && (g.rt != RT || g.stages < 2))
        return launch_tm<T, BN, WM, MIN_BLOCKS, SPLIT_REGS, 1, CL, KS, PP>(s, max_stages, io, y, st);
    CUtensorMap xmap, wmap;
    if (g.rt != RT || !encode_maps(g, BN, CL, io.type, (int)sizeof(T), io.x, io.w, &xmap, &wmap))
        return CNN_ERR_VARIANT;
    /* split-K: the partial tile must fit in the ring and each rank have a k-tile, else no split */
    if (KS > 1 && (g.stages * tm_stage_bytes(&g, BN) < tm_partial_addr(0, BN, 128 * WM, 0) || g.nk < KS))
        return launch_tm<T, BN, WM, MIN_BLOCKS, SPLIT_REGS, RT, CL, 1>(s, max_stages, io, y, st);
    /* channels-last y through shared memory and TMA where its staging fits beside the ring (not split-K:
     * its ranks sum and store the tile after the mainloop) */
    CUtensorMap ymap = {};
    if (PP && io.nhwc_out) g.ystage = tm_y_stage_at(&g, BN, smem_budget(MIN_BLOCKS)); /* tm_consume: PP only */
    if (g.ystage && !encode_y_map(g, io.type, (int)sizeof(T), y, &ymap)) g.ystage = 0;
    const auto kernel = tm_conv<T, BN, WM, MIN_BLOCKS, SPLIT_REGS, RT, CL, KS, PP>;
    static int ready; /* the opt-in for the largest ring any layer gets */
    tc3_smem_opt_in((const void *)kernel, smem_budget(MIN_BLOCKS), &ready);
    const size_t smem = tm_smem_bytes(&g, BN);
    const int grid = KS > 1 ? tm_units(&g, BN, 1) * KS : grid_for(kernel, tm_units(&g, BN, CL), CL, io.persistent, smem);
    cudaLaunchAttribute at[2];
    const cudaLaunchConfig_t cfg = tm_config(at, grid, CL * KS, smem, io.pdl, st);
    GL_CHECK(cudaLaunchKernelEx(&cfg, kernel, xmap, wmap, ymap, y, g));
    return CNN_OK;
}

/* FP16's and TF32's tiles: those BF16's autotuner chose on some layer of the H200 run (cnn/README.md)
 * and the ping-pong and 128 x 128 split-K ones, so the kernels compiled stay few; tile t of
 * ours_fp16_tma_nhwc and ours_tf32_tma_nhwc is the table's TM_SUB_TILES[t]. */
static constexpr int TM_SUB_TILES[] = {4, 7, 8, 11, 17, 19, 20, 21, 22, 23, 25, 26, 27, 29, 30, 31, 32, 33, 34, 35, 36, 37};
static_assert(sizeof TM_SUB_TILES / sizeof TM_SUB_TILES[0] == CNN_TMA_NHWC_SUB_TILES, "tensor_core.h's count");

/* The tiles a type's kernels are compiled for: BF16 every one; FP16 the subset; TF32 the subset and
 * the first CNN_WGMMA_TMA_TILES (ours_tf32_wgmma_tma). */
static constexpr bool tm_in_subset(int tile)
{
    for (int t : TM_SUB_TILES)
        if (t == tile) return true;
    return false;
}
static constexpr bool tm_every_tile(const bf16 *) { return true; }
static constexpr bool tm_every_tile(const f16 *) { return false; }
static constexpr bool tm_every_tile(const float *) { return false; }
template <typename T> static constexpr bool tm_built(int tile)
{
    return tm_every_tile((const T *)nullptr) || tm_in_subset(tile) || (sizeof(T) == 4 && tile < CNN_WGMMA_TMA_TILES);
}

/* Tile `tile` (TM_TILE_NAMES): its template arguments and the ring's most stages, defined once for
 * the three types; CNN_ERR_VARIANT for a tile not compiled for T. The first CNN_WGMMA_TMA_TILES are
 * one block per box, the rest persistent. */
template <typename T>
static cnn_status launch_tile(const cnn_shape *s, int tile, tm_io io, T *y, cudaStream_t st)
{
    io.pdl = tile >= TM_PDL_FIRST;
    if (io.pdl) tile = TM_PDL_OF[tile - TM_PDL_FIRST]; /* the same kernel, launched early */
    io.persistent = tile >= CNN_WGMMA_TMA_TILES;
#define TM_TILE(ID, STAGES, ...) \
    case ID: \
        if constexpr (tm_built<T>(ID)) return launch_tm<T, __VA_ARGS__>(s, STAGES, io, y, st); \
        break;
    switch (tile) { /* TM_TILE(tile, most stages, BN, WM, MIN_BLOCKS, SPLIT_REGS, RT[, CL, KS, PP]) */
        TM_TILE(0, 4, 64, 1, 2, false, 1)
        TM_TILE(1, 9, 64, 1, 1, true, 1)
        TM_TILE(2, 7, 128, 1, 1, true, 1)
        TM_TILE(3, 4, 256, 1, 1, true, 1)
        TM_TILE(4, 8, 64, 1, 1, true, 3)
        TM_TILE(5, 8, 128, 1, 1, true, 3)
        TM_TILE(6, 7, 128, 1, 1, true, 1)
        TM_TILE(7, 8, 128, 1, 1, true, 3)
        TM_TILE(8, 4, 128, 2, 1, true, 1)
        TM_TILE(9, 4, 64, 2, 1, true, 3)
        TM_TILE(10, 4, 256, 1, 1, true, 1)
        TM_TILE(11, 4, 64, 1, 2, false, 1)
        TM_TILE(12, 8, 128, 1, 1, true, 3, 2)
        TM_TILE(13, 7, 128, 1, 1, true, 1, 8)
        TM_TILE(14, 4, 128, 2, 1, true, 3)
        TM_TILE(15, 9, 64, 1, 1, true, 1, 1, 2)
        TM_TILE(16, 9, 64, 1, 1, true, 1, 1, 4)
        TM_TILE(17, 9, 64, 1, 1, true, 1, 1, 8)
        TM_TILE(18, 8, 64, 1, 1, true, 3, 1, 2)
        TM_TILE(19, 8, 64, 1, 1, true, 3, 1, 4)
        TM_TILE(20, 8, 128, 2, 1, true, 3, 1, 1, true)
        TM_TILE(21, 7, 128, 2, 1, true, 1, 1, 1, true)
        TM_TILE(22, 8, 128, 1, 1, true, 3, 1, 2)
        TM_TILE(23, 7, 128, 1, 1, true, 1, 1, 2)
        TM_TILE(24, 8, 128, 2, 1, true, 3, 2, 1, true)
        TM_TILE(25, 8, 128, 1, 1, true, 3, 1, 1, true)
        TM_TILE(26, 9, 128, 1, 1, true, 1, 1, 1, true)
        TM_TILE(27, 9, 64, 1, 1, true, 1, 1, 1, true)
    }
#undef TM_TILE
    return CNN_ERR_VARIANT;
}

/* ours_bf16_wgmma_tma: mma3's prepared xp, wp (cnn_bf16_mma3_prepare), y16, then y as float (timed);
 * with timed_x (ours_bf16_wgmma_tma_t) x's NCHW -> channels-last change first, inside the timing;
 * with nhwc_out (ours_bf16_wgmma_tma_nhwc) y16 written channels-last and left there: the row's
 * own output (cnn_bf16_y16_nhwc_output turns it into y for the check, untimed). */
static cnn_status bf16_forward(const cnn_launch_args *a, int timed_x, int nhwc_out, cudaStream_t st)
{
    if (!cnn_supports_wgmma_tma(&a->s) || a->tile < 0 || a->tile >= CNN_WGMMA_TMA_TILES) return CNN_ERR_VARIANT;
    cnn_launch_args whole = *a;
    whole.tile = 0; /* mma3's arrays without split-K */
    tc3_call c;
    const cnn_status status = tc3_setup(&whole, 1, 64, &c);
    if (status != CNN_OK) return status;
    const tm_geom g = geom_of(&a->s, 2, 0);
    if (g.Cp != c.d.Cp || g.Hp != c.d.Hp || g.Wp != c.d.Wp) return CNN_ERR_VARIANT; /* mma3's layout, checked */
    if (timed_x) tc3_x_layout(a, c, st);
    const tm_io io = {CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, c.xp, c.wp, 1, nhwc_out, 0, 0};
    const cnn_status r = launch_tile<bf16>(&a->s, a->tile, io, (bf16 *)c.y16, st);
    if (r == CNN_OK && !nhwc_out) tc3_finish(a, c, st);
    return r;
}

extern "C" cnn_status cnn_launch_bf16_wgmma_tma(const cnn_launch_args *a, cudaStream_t st)
{
    return bf16_forward(a, 0, 0, st);
}

extern "C" cnn_status cnn_launch_bf16_wgmma_tma_t(const cnn_launch_args *a, cudaStream_t st)
{
    return bf16_forward(a, 1, 0, st);
}

extern "C" cnn_status cnn_launch_bf16_wgmma_tma_nhwc(const cnn_launch_args *a, cudaStream_t st)
{
    return bf16_forward(a, 0, 1, st);
}

/* ours_tf32_wgmma_tma: the prepared FP32 (TF32-rounded) xp, wp; y written as FP32 directly. With
 * timed_x (ours_tf32_wgmma_tma_t) x's NCHW -> channels-last change and rounding run inside the timing,
 * as cudnn_tf32's own layout change does. */
static cnn_status tf32_forward(const cnn_launch_args *a, int timed_x, cudaStream_t st)
{
    if (!cnn_supports_wgmma_tma(&a->s) || a->tile < 0 || a->tile >= CNN_WGMMA_TMA_TILES) return CNN_ERR_VARIANT;
    if (cnn_check(&a->s) != CNN_OK || a->workspace_bytes < cnn_workspace_tf32_wgmma_tma(&a->s, a->tile))
        return CNN_ERR_SHAPE;
    const tm_geom g = geom_of(&a->s, 4, 0);
    char *ws = (char *)a->workspace;
    if (timed_x) tf32_x_layout(&a->s, a->x, (float *)ws, g, st);
    const tm_io io = {CU_TENSOR_MAP_DATA_TYPE_FLOAT32, ws, ws + tf32_x_bytes(g), 1, 0, 0, 0};
    return launch_tile<float>(&a->s, a->tile, io, a->y, st);
}

extern "C" cnn_status cnn_launch_tf32_wgmma_tma(const cnn_launch_args *a, cudaStream_t st)
{
    return tf32_forward(a, 0, st);
}

extern "C" cnn_status cnn_launch_tf32_wgmma_tma_t(const cnn_launch_args *a, cudaStream_t st)
{
    return tf32_forward(a, 1, st);
}

extern "C" const char *cnn_tile_name_tma_nhwc_sub(int tile)
{
    return tile >= 0 && tile < CNN_TMA_NHWC_SUB_TILES ? TM_TILE_NAMES[TM_SUB_TILES[tile]] : "?";
}

/* ours_{bf16,fp16,tf32}_tma_nhwc: the kernel on the NHWC peer's own tensors of its type
 * (cnn_nhwc_prepare: x NHWC, w KRSC, y NHWC, with no border and no channel padding): the timed call
 * reads x and w and writes y, as the peer's does. The border is TMA's zero fill (tm_geom_make, not
 * bordered). TMA wants every row stride a multiple of 16 bytes: where a pixel's C BF16 / FP16 values
 * are not (T5A_C348: 696 bytes), x and w are copied with C padded to a multiple of 8 first, inside
 * the timing (cnn_nhwc_pad_channels). TF32: raw FP32 x and w, which wgmma truncates to TF32 (the
 * row's bound is cnn_bound_tf32_any), C a multiple of 4 (cnn_supports_tma_nhwc). */
static cnn_status nhwc_forward(const cnn_launch_args *a, cnn_nhwc_type t, cudaStream_t st)
{
    const int tiles = t == CNN_NHWC_BF16 ? CNN_TMA_NHWC_TILES : CNN_TMA_NHWC_SUB_TILES;
    if (!cnn_supports_tma_nhwc(&a->s, t) || a->tile < 0 || a->tile >= tiles) return CNN_ERR_VARIANT;
    if (cnn_check(&a->s) != CNN_OK || a->workspace_bytes < cnn_workspace_tma_nhwc(&a->s, t)) return CNN_ERR_SHAPE;
    void *x, *w, *y;
    cnn_nhwc_arrays(&a->s, t, a->workspace, &x, &w, &y);
    cnn_shape s = a->s;
    if (t != CNN_NHWC_F32 && s.C % 8) { /* the padded copies, timed */
        void *xp, *wp;
        cnn_nhwc_padded(&a->s, t, a->workspace, &xp, &wp);
        cnn_nhwc_pad_channels(&a->s, t, x, w, xp, wp, st);
        x = xp, w = wp, s.C = (s.C + 7) / 8 * 8; /* the zero channels add nothing */
    }
    if (t == CNN_NHWC_F16)
        return launch_tile<f16>(&s, TM_SUB_TILES[a->tile], {CU_TENSOR_MAP_DATA_TYPE_FLOAT16, x, w, 0, 1, 0, 0}, (f16 *)y, st);
    if (t == CNN_NHWC_F32)
        return launch_tile<float>(&s, TM_SUB_TILES[a->tile], {CU_TENSOR_MAP_DATA_TYPE_FLOAT32, x, w, 0, 1, 0, 0}, (float *)y, st);
    return launch_tile<bf16>(&s, a->tile, {CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, x, w, 0, 1, 0, 0}, (bf16 *)y, st);
}

extern "C" cnn_status cnn_launch_bf16_tma_nhwc(const cnn_launch_args *a, cudaStream_t st)
{
    return nhwc_forward(a, CNN_NHWC_BF16, st);
}
extern "C" cnn_status cnn_launch_fp16_tma_nhwc(const cnn_launch_args *a, cudaStream_t st)
{
    return nhwc_forward(a, CNN_NHWC_F16, st);
}
extern "C" cnn_status cnn_launch_tf32_tma_nhwc(const cnn_launch_args *a, cudaStream_t st)
{
    return nhwc_forward(a, CNN_NHWC_F32, st);
}
