/* rolling.cu - Lab 04, part 3: the block-based (3x3) pipeline's kernels, each stage alone and the
 * three stages fused, as rolling kernels; the median ladder's best rung is the median stage alone
 * with 16 pixels per lane. The device code they share is rolling.cuh; fusion.h defines what every
 * kernel computes; fusion_reference.c is the definition in C, and every kernel reproduces its bits. */
#include "rolling.cuh"

static __global__ void BK_BOUNDS bk_kernel_gauss(bk_args a) { rolling_body(a, BK_GAUSS, 1, 4, BK_ROWS, false); }
static __global__ void BK_BOUNDS bk_kernel_median(bk_args a) { rolling_body(a, BK_MEDIAN, 1, 4, BK_ROWS, false); }
static __global__ void BK_BOUNDS bk_kernel_sobel(bk_args a) { rolling_body(a, BK_SOBEL, 1, 4, BK_ROWS, false); }
static __global__ void BK_BOUNDS bk_kernel_fused(bk_args a) { rolling_body(a, BK_GAUSS, 3, 4, BK_ROWS, false); }
/* The same with 16 pixels per lane: half the shuffles per pixel, but 133 registers (fewer warps). */
static __global__ void BK_BOUNDS bk_kernel_fused_w16(bk_args a) { rolling_body(a, BK_GAUSS, 3, 8, BK_ROWS, false); }
/* The median ladder's best rung: 16 pixels per lane, 16-byte loads and stores. */
static __global__ void BK_BOUNDS median_kernel_best(bk_args a) { rolling_body(a, BK_MEDIAN, 1, 8, BK_ROWS, false); }
/* Lesson (the budget rungs, issue 20): the same rolling walk with the stages above that fit the
 * sm_90 instruction budget better (at the H100's memcpy speed 22.4 thread-instructions per pixel in
 * all and 11.2 on the ALU; H200: 15.9 / 7.9), and 96-row strips (the rows that fill the windows
 * spread over twice as many outputs). Static SASS count of the interior steady loop (ptxas of CUDA
 * 13.0, sm_90; counted, not timed; ALU = VIMNMX(3), PRMT, IADD3, LOP3, SHF, ISETP...; FMA = IMAD):
 *   fused_dpx (8 px a lane, 24 px an iteration): 600 instructions = 25.0 a pixel: ALU 13.0, FMA
 *     9.8, LSU 1.8 (SHFL); the 8-pixel fused kernel: 566 = 23.6 a pixel, ALU 17.0, FMA 4.4.
 *     With the halo lanes and rows (x 32/30 x 102/96 = 1.13): ALU 14.7 a pixel written, 131% of
 *     the H100's 11.2 at 100% of memcpy (the old kernel: 20.4 at 48 rows, 182%): still ALU-bound.
 *   median dpx (16 px a lane, 48 an iteration): 590 = 12.3 a pixel: ALU 6.4, FMA 5.1, LSU 0.5;
 *     the best rung: 510 = 10.6, ALU 9.4, FMA 0.4. With halo (x 1.09): 13.4 in all (60% of the
 *     H100's budget, 84% of the H200's), ALU 7.0 (62%, 88%): no pipe binds on the H100.
 * Registers (sm_90): fused_dpx 107 (the 8-pixel kernel 96), median dpx 88 (best 90); no spills
 * (fused_dpx keeps the edge path's 32-byte stack frame, as the 8-pixel kernel does). */
static __global__ void BK_BOUNDS bk_kernel_fused_dpx(bk_args a) { rolling_body(a, BK_GAUSS_X16, 3, 4, BK_ROWS_DPX, false); }
static __global__ void BK_BOUNDS median_kernel_dpx(bk_args a) { rolling_body(a, BK_MEDIAN_DPX, 1, 8, BK_ROWS_DPX, false); }
/* fused_strips: fused_dpx in the two-strip layout (STRIP_GAP): the 12 shifts of a row (2 gauss, 6
 * median, 4 sobel) lose their byte permutes. Static SASS count (as above): 577 instructions for 24
 * pixels = 24.0 a pixel: ALU 11.75, FMA 9.7, LSU 2.0 (two 4-byte loads and stores a row); with
 * the halo (x 1.13) 27.2 in all and 13.3 on the ALU: 121% and 119% of the H100's budget at 100%
 * of memcpy (fused_dpx: 28.3 and 14.7). 99 registers, no spills. */
static __global__ void BK_BOUNDS bk_kernel_fused_strips(bk_args a) { rolling_body(a, BK_GAUSS_X16, 3, 4, BK_ROWS_DPX, true); }

void launch_bk_stage(bk_stage s, const bk_args *a, cudaStream_t st)
{
    static void (*const k[BK_STAGES])(bk_args) = {bk_kernel_gauss, bk_kernel_median, bk_kernel_sobel};
    k[s]<<<rolling_grid(a, 4, BK_ROWS), BK_THREADS, 0, st>>>(*a);
    GL_CHECK_LAUNCH();
}

void launch_bk_fused(const bk_args *a, bk_fused_kind kind, cudaStream_t st)
{
    if (kind >= BK_FUSED_S16) {
        launch_bk_fused_budget(a, kind, st); /* rolling_budget.cu */
        return;
    }
    if (kind == BK_FUSED_W16) bk_kernel_fused_w16<<<rolling_grid(a, 8, BK_ROWS), BK_THREADS, 0, st>>>(*a);
    else if (kind == BK_FUSED_DPX) bk_kernel_fused_dpx<<<rolling_grid(a, 4, BK_ROWS_DPX), BK_THREADS, 0, st>>>(*a);
    else if (kind == BK_FUSED_STRIPS) bk_kernel_fused_strips<<<rolling_grid(a, 4, BK_ROWS_DPX), BK_THREADS, 0, st>>>(*a);
    else bk_kernel_fused<<<rolling_grid(a, 4, BK_ROWS), BK_THREADS, 0, st>>>(*a);
    GL_CHECK_LAUNCH();
}

void launch_median_best(const bk_args *a, median_rung r, cudaStream_t st)
{
    if (r >= MED_BULK_R48) {
        launch_median_bulk(a, r, st); /* rolling_bulk.cu */
        return;
    }
    if (r > MED_DPX) {
        launch_median_budget(a, r, st); /* rolling_budget.cu */
        return;
    }
    if (r == MED_DPX) median_kernel_dpx<<<rolling_grid(a, 8, BK_ROWS_DPX), BK_THREADS, 0, st>>>(*a);
    else median_kernel_best<<<rolling_grid(a, 8, BK_ROWS), BK_THREADS, 0, st>>>(*a);
    GL_CHECK_LAUNCH();
}

const char *bk_stage_name(bk_stage s)
{
    static const char *const n[BK_STAGES] = {"gauss", "median", "sobel"};
    return s >= 0 && s < BK_STAGES ? n[s] : "?";
}
