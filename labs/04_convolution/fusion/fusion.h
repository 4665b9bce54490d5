/* fusion.h - Lab 04, part 3: kernel fusion and the median ladder. The interface between the host
 * program (fusion_run.c), the kernels (pixel.cu, rolling.cu, median.cu) and the CPU reference (fusion_reference.c, the
 * definition of every bit).
 *
 * Pixel-wise pipeline (the seed's group 1), on RGBA pixels packed in a uint32 (byte 0 R, 1 G, 2 B,
 * 3 A; YUV pictures as byte 0 Y, 1 U, 2 V, 3 A), a flat array of width x height pixels:
 *   1 rgb_to_yuv  the seed's integer BT.601 formula (3.15): Y = ((66R + 129G + 25B + 128) >> 8) + 16,
 *                 U = ((-38R - 74G + 112B + 128) >> 8) + 128, V = ((112R - 94G - 18B + 128) >> 8) + 128
 *   2 gamma       Y = table[Y] (gamma 1/1.4, the table computed once on the host: px_gamma_table)
 *   3 chroma      U, V = clamp(128 + floor(5 (U - 128) / 4)): 25% more saturation
 *   4 yuv_to_rgb  R = clamp((298 C + 409 E + 128) >> 8), G = clamp((298 C - 100 D - 208 E + 128) >> 8),
 *                 B = clamp((298 C + 516 D + 128) >> 8), C = Y - 16, D = U - 128, E = V - 128
 *   5 rgb_to_gray (77 R + 150 G + 29 B + 128) >> 8 into one byte per pixel (gl_rgb_to_gray)
 * >> is a floor everywhere (the reference adds a bias before shifting, so no negative number is
 * ever shifted); A passes through stages 1-4.
 *
 * Block-based pipeline (the seed's group 2), on 8-bit gray pictures with rows `pitch` bytes apart:
 *   1 gauss  (1 2 1; 2 4 2; 1 2 1) / 16: (sum + 8) >> 4
 *   2 median the median of the 3x3 neighbourhood
 *   3 sobel  min(255, (|gx| + |gy|) >> 2), gx = right column (1 2 1) - left column, gy = bottom row
 *            (1 2 1) - top row
 * Borders, once for every stage: clamp to edge. A stage reads its input at (clamp(x + dx, 0, W - 1),
 * clamp(y + dy, 0, H - 1)), so every output pixel is defined and any size from 1 x 1 works. The fused
 * kernel therefore cannot read its input with clamped coordinates alone: an intermediate pixel
 * outside the image must be the intermediate at the clamped position, and it recomputes exactly
 * that (rolling.cu). */
#ifndef FUSION_H
#define FUSION_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "gl_check.h" /* GL_HD */

#define FUSION_PITCH_ALIGN 64 /* gray rows on the GPU: a multiple of this many bytes */

/* The block that the i-th block to start computes in a grid of gx columns and gy strips, the slowest
 * first (the fused_flat_sf rung; rolling_flat.cuh says why): the bottom strip row, the top one, the
 * edge columns of the rows between, then the interior row by row. A grid of at most two columns or
 * strips keeps the index order. x: the block's column, y: its strip. */
typedef struct {
    unsigned x, y;
} bk_block;
GL_HD static inline bk_block bk_block_at(unsigned x, unsigned y)
{
    const bk_block b = {x, y};
    return b;
}
GL_HD static inline bk_block bk_slowest_first(unsigned gx, unsigned gy, unsigned i)
{
    if (gx <= 2 || gy <= 2) return bk_block_at(i % gx, i / gx);
    const unsigned edges = 2 * (gy - 2); /* the edge columns' blocks of the rows between */
    if (i < gx) return bk_block_at(i, gy - 1);
    if (i < 2 * gx) return bk_block_at(i - gx, 0);
    if (i < 2 * gx + edges) return bk_block_at((i - 2 * gx) % 2 ? gx - 1 : 0, 1 + (i - 2 * gx) / 2);
    return bk_block_at(1 + (i - 2 * gx - edges) % (gx - 2), 1 + (i - 2 * gx - edges) / (gx - 2));
}

/* The strip height of fused_flat_sf for a picture of `height` rows in `cols` columns of blocks, with
 * `slots` blocks resident on the GPU at once: the tallest multiple of 6 from 72 down whose grid has
 * at least 4 waves of blocks, else 12. Tall strips fill their windows less often (6 rows a strip);
 * a picture too small for 4 waves of 72-row strips gets shorter ones, so that every SM has warps
 * (4093 x 2047 in 72-row strips: 522 blocks for the H100's 3696 slots). */
static inline int bk_sf_rows(int height, int cols, int slots)
{
    for (int rows = 72; rows > 12; rows -= 6)
        if ((long long)cols * ((height + rows - 1) / rows) >= 4LL * slots) return rows;
    return 12;
}

typedef enum { PX_RGB_TO_YUV, PX_GAMMA, PX_CHROMA, PX_YUV_TO_RGB, PX_RGB_TO_GRAY, PX_STAGES } px_stage;
typedef enum { BK_GAUSS, BK_MEDIAN, BK_SOBEL, BK_STAGES } bk_stage;
/* MED_DPX_R48, _A6, _R48A6, _R12: the dpx rung with 48-row strips, 6 rows loaded ahead, both, 12-row strips
 * (rolling_budget.cu);
 * MED_BULK_R48, _WAVE: dpx_r48 with the rows ahead in a shared-memory ring of bulk copies, and the
 * same with one wave of taller strips (rolling_bulk.cu);
 * MED_W16_R4, _R8, _R4_FMA: a thread a 16 x 4 or 16 x 8 tile, the median of the middles shared or as a sum;
 * MED_W16_S12, _S24: a thread walks a 16-column strip of 12 or 24 rows, 3 rows ahead; MED_W16_R8_LB:
 * _R8 under launch bounds (96 registers, 20 warps an SM); MED_W16_R4_CS: _R4 in 72 registers with
 * streaming stores; MED_W16_RING, _TMA: _R4_CS with its rows in a shared-memory ring (a bulk copy a
 * row, a TMA box a tile), tiles dealt round-robin; _TMA_DYN, _TMA_R8: _TMA with tiles dealt by a
 * counter, 16 x 4 or 16 x 8 a thread; MED_W16_LEAN: _R4_CS with pinned IMADs, shared column sums and its
 * rows in flight at once; MED_W16_KEYS: _LEAN on keys, ALU work moved to the FMA pipe; _KEYS_WE: its
 * edge warps on the clamped path alone (median_w16.cu) */
typedef enum {
    MED_SCALAR, MED_VECTOR, MED_SHARED, MED_BEST, MED_DPX, MED_DPX_R48, MED_DPX_A6, MED_DPX_R48A6, MED_DPX_R12,
    MED_BULK_R48, MED_BULK_WAVE, MED_W16_R4, MED_W16_R8, MED_W16_R4_FMA, MED_W16_S12,
    MED_W16_S24, MED_W16_R8_LB, MED_W16_R4_CS, MED_W16_RING, MED_W16_TMA, MED_W16_TMA_DYN, MED_W16_TMA_R8,
    MED_W16_LEAN, MED_W16_KEYS, MED_W16_KEYS_WE, MED_RUNGS
} median_rung;
/* The fused kernel: block-based, 8 pixels per lane, 16, or the instruction-budget rung (issue 20);
 * the same in two strips (BK_FUSED_STRIPS), with 16 pixels per lane (BK_FUSED_S16) and a leaner
 * sobel and store (BK_FUSED_LEAN; _LEAN_A6: 6 rows loaded ahead; _LEAN_R192: 192-row strips;
 * rolling_budget.cu); pixel-wise:
 * BK_FUSED_W8 (the first), BK_FUSED_DPX, or (pixel-wise only) BK_FUSED_PAIR and _PAIR32 (two pixels
 * an instruction, 16 or 32 pixels a thread); block again: BK_FUSED_HALF (fused_strips with sobel in
 * half precision, 80 registers), BK_FUSED_XOR and _XORC (fused_half with the middles of three by XOR:
 * all of them, or the columns' only), BK_FUSED_FLAT (fused_xorc without its per-row overhead), _FLAT_R36 (in 36-row strips)
 * and _FLAT_SF (its slowest blocks started first, strips of up to 72 rows: bk_sf_rows, 72 registers) */
typedef enum {
    BK_FUSED_W8, BK_FUSED_W16, BK_FUSED_DPX, BK_FUSED_STRIPS, BK_FUSED_S16, BK_FUSED_LEAN, BK_FUSED_LEAN_A6,
    BK_FUSED_LEAN_R192, BK_FUSED_PAIR, BK_FUSED_PAIR32, BK_FUSED_HALF, BK_FUSED_XOR, BK_FUSED_XORC, BK_FUSED_FLAT,
    BK_FUSED_FLAT_R36, BK_FUSED_FLAT_SF, BK_FUSED_KINDS
} bk_fused_kind;

typedef struct {
    const uint32_t *in; /* RGBA or YUVA pixels */
    void *out;          /* uint32 pixels, or bytes after rgb_to_gray */
    size_t n;           /* pixels */
    const uint8_t *gamma; /* the 256-byte table on the GPU */
} px_args;

typedef struct {
    const uint8_t *in;
    uint8_t *out;
    int width, height, pitch; /* pixels, pixels, bytes per row (both pictures) */
} bk_args;

#ifdef __cplusplus
extern "C" {
#endif
/* pixel.cu: the pixel-wise pipeline */
const char *px_stage_name(px_stage s);
void launch_px_stage(px_stage s, const px_args *a, cudaStream_t st);
void launch_px_fused(const px_args *a, bk_fused_kind kind, cudaStream_t st); /* in: RGBA, out: gray bytes; W8, DPX, PAIR, PAIR32 */
/* rolling.cu: the block-based pipeline (rolling kernels) and the median ladder's best rung */
const char *bk_stage_name(bk_stage s);
void launch_bk_stage(bk_stage s, const bk_args *a, cudaStream_t st);
/* gauss -> median -> sobel in one kernel (bk_fused_kind: which one) */
void launch_bk_fused(const bk_args *a, bk_fused_kind kind, cudaStream_t st);
/* launch_median(MED_BEST, ...), MED_DPX (the instruction-budget rung) and its variants */
void launch_median_best(const bk_args *a, median_rung r, cudaStream_t st);
/* rolling_budget.cu: the budget rungs' variants (kinds from BK_FUSED_S16, rungs after MED_DPX) */
void launch_bk_fused_budget(const bk_args *a, bk_fused_kind kind, cudaStream_t st);
void launch_median_budget(const bk_args *a, median_rung r, cudaStream_t st);
/* rolling_bulk.cu: the bulk-copy rungs (MED_BULK_R48, MED_BULK_WAVE) */
void launch_median_bulk(const bk_args *a, median_rung r, cudaStream_t st);
/* median_w16.cu: the thread rungs (MED_W16_R4 .. MED_W16_TMA_R8) */
void launch_median_w16(const bk_args *a, median_rung r, cudaStream_t st);
/* median.cu: the median ladder (MED_BEST and beyond through launch_median_best) */
const char *median_rung_name(median_rung r);
void launch_median(median_rung r, const bk_args *a, cudaStream_t st);

/* fusion_reference.c: the definition */
void px_gamma_table(uint8_t table[256]);
uint32_t px_stage_pixel(px_stage s, uint32_t p, const uint8_t gamma[256]); /* rgb_to_gray: the gray in byte 0 */
/* One stage over n pixels: out is uint32 pixels, or bytes for rgb_to_gray. */
void px_stage_ref(px_stage s, const uint32_t *in, void *out, size_t n, const uint8_t gamma[256]);
uint8_t bk_stage_pixel(bk_stage s, const uint8_t *img, int width, int height, int x, int y); /* tight rows */
void bk_stage_ref(bk_stage s, const uint8_t *in, uint8_t *out, int width, int height); /* tight rows */
#ifdef __cplusplus
}
#endif

#endif
