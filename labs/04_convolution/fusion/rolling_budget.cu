/* rolling_budget.cu - Lab 04, part 3: the instruction-budget rungs' variants (issue 20), each a row
 * of the part's table beside the rungs it varies (rolling.cu), so that one GPU run compares them.
 * The device code is rolling.cuh's; every kernel reproduces fusion_reference.c's bits.
 *
 * The lesson: a kernel under its instruction budget can still miss the memory floor. Two more
 * things bind a rolling kernel: the bytes each SM keeps in flight (one-warp blocks, each with
 * `depth` rows loaded ahead: about 23 resident warps x 3 rows x 512 bytes for the median) and how
 * its strips fill the GPU (16384 / 96 = 171 strips x 35 columns of warps = 5985 warps, about 2
 * waves of 132 x 23; 48-row strips: 11970, 4 waves, twice the rows that only fill the windows).
 * The median variants change one of those at a time; the fused ones change the instructions.
 *
 * Static SASS counts of the interior steady loop (ptxas of CUDA 13.0, sm_90, cuobjdump -sass;
 * counted, not timed; ALU = VIMNMX(3), PRMT, IADD3, LOP3, SHF, ISETP, MOV...; FMA = IMAD; LSU =
 * LDG, STG, SHFL): see each kernel. "With halo": x 32/30 lanes x (rows + 2 stages) / rows. */
#include "rolling.cuh"

/* The median dpx rung (16 pixels a lane) with 48-row strips, with 6 rows loaded ahead, and both.
 * Steady loop per pixel: dpx_r48 12.3 in all (ALU 6.4, FMA 5.1: dpx's loop, 590 for 48 pixels),
 * with halo x 1.11 (48 rows) = 13.7; dpx_a6 and dpx_r48a6: STATIC_A6 (the loop of 6 rows).
 * Registers: REGS_MED. */
static __global__ void BK_BOUNDS median_kernel_dpx_r48(bk_args a) { rolling_body(a, BK_MEDIAN_DPX, 1, 8, BK_ROWS, false); }
static __global__ void BK_BOUNDS median_kernel_dpx_a6(bk_args a) { rolling_body(a, BK_MEDIAN_DPX, 1, 8, BK_ROWS_DPX, false, 6); }
static __global__ void BK_BOUNDS median_kernel_dpx_r48a6(bk_args a) { rolling_body(a, BK_MEDIAN_DPX, 1, 8, BK_ROWS, false, 6); }

/* fused_s16: fused_strips with 8 pixels in each strip (16 a lane, 8-byte loads and stores per
 * strip): its 12 shuffles a row and the loop's address and compare instructions serve twice the
 * pixels. fused_lean: fused_s16 with the sobel's last byte permute moved into the store (row_store's
 * path for BK_GAUSS_LEAN). fused_lean_a6: with 6 rows loaded ahead.
 * STATIC_FUSED */
static __global__ void BK_BOUNDS bk_kernel_fused_s16(bk_args a) { rolling_body(a, BK_GAUSS_X16, 3, 8, BK_ROWS_DPX, true); }
static __global__ void BK_BOUNDS bk_kernel_fused_lean(bk_args a) { rolling_body(a, BK_GAUSS_LEAN, 3, 8, BK_ROWS_DPX, true); }
static __global__ void BK_BOUNDS bk_kernel_fused_lean_a6(bk_args a) { rolling_body(a, BK_GAUSS_LEAN, 3, 8, BK_ROWS_DPX, true, 6); }

void launch_bk_fused_budget(const bk_args *a, bk_fused_kind kind, cudaStream_t st)
{
    const dim3 grid = rolling_grid(a, 8, BK_ROWS_DPX);
    if (kind == BK_FUSED_S16) bk_kernel_fused_s16<<<grid, BK_THREADS, 0, st>>>(*a);
    else if (kind == BK_FUSED_LEAN) bk_kernel_fused_lean<<<grid, BK_THREADS, 0, st>>>(*a);
    else bk_kernel_fused_lean_a6<<<grid, BK_THREADS, 0, st>>>(*a);
    GL_CHECK_LAUNCH();
}

void launch_median_budget(const bk_args *a, median_rung r, cudaStream_t st)
{
    const bool r48 = r == MED_DPX_R48 || r == MED_DPX_R48A6;
    const dim3 grid = rolling_grid(a, 8, r48 ? BK_ROWS : BK_ROWS_DPX);
    if (r == MED_DPX_R48) median_kernel_dpx_r48<<<grid, BK_THREADS, 0, st>>>(*a);
    else if (r == MED_DPX_A6) median_kernel_dpx_a6<<<grid, BK_THREADS, 0, st>>>(*a);
    else median_kernel_dpx_r48a6<<<grid, BK_THREADS, 0, st>>>(*a);
    GL_CHECK_LAUNCH();
}
