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
#include "rolling_flat.cuh"
#include "gl_bulk.cuh" /* gl_resident_blocks */

/* A block count for __launch_bounds__ that the architecture allows: sm_75 and sm_86 hold at most 16
 * resident blocks an SM, sm_89 24, sm_80 and sm_90 32 (ptxas ignores a larger value with a warning). */
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 750 || __CUDA_ARCH__ == 860)
#define BK_MAX_BLOCKS_PER_SM 16
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 890
#define BK_MAX_BLOCKS_PER_SM 24
#else
#define BK_MAX_BLOCKS_PER_SM 32
#endif
#define BK_MIN_BLOCKS(n) ((n) < BK_MAX_BLOCKS_PER_SM ? (n) : BK_MAX_BLOCKS_PER_SM)

/* The median dpx rung (16 pixels a lane) with 48-row strips, with 6 rows loaded ahead, and both.
 * What else could bind dpx (ncu at 34db515: 14.3 instructions a pixel, ALU at 69% and issue at 64%
 * of the H100's budget, yet 74.6% of memcpy where best, ALU-bound at 98.8%, reaches 80.5%):
 *   - bytes in flight: 88 registers -> 23 resident one-warp blocks an SM (65536 / (88 x 32), in
 *     units of 8 registers a thread), x 3 rows x 512 bytes = 35 KB an SM, all of it only while
 *     every warp waits; best has 90 registers, 21 warps, 32 KB: the same, so dpx_a6 tests it;
 *   - the strips: 96 rows give 5985 warps, 1.97 waves of 132 x 23, each warp's first 2 rows and
 *     the start of its loads exposed once a strip; 48 rows (best's): 11970 warps, 3.9 waves;
 *   - the 3-input DPX min / max (VIMNMX3.U16x2): 3 a pixel; if sm_90 issues them at less than the
 *     ALU's full rate, ncu counts 7.6 ALU instructions a pixel that take longer; no variant here
 *     changes that (a per-pipe profile with pct_of_peak would show it).
 * Steady loop (static, per pixel): dpx_r48 is dpx's loop: 590 for 48 pixels = 12.3 in all, ALU
 * 6.4, FMA 5.1, LSU 0.5; with halo (48 rows: x 1.11) 13.7 / ALU 7.1; 88 registers, 23 warps.
 * dpx_a6, dpx_r48a6: the loop of 6 rows, 1168 for 96 pixels = 12.2, ALU 6.4, FMA 5.0, LSU 0.5;
 * with halo 13.2 (96 rows) and 13.5 (48); 106 registers: 18 warps x 6 rows = 55 KB in flight an
 * SM, 2.5 and 5.0 waves at 16384^2. No spills. */
static __global__ void BK_BOUNDS median_kernel_dpx_r48(bk_args a) { rolling_body(a, BK_MEDIAN_DPX, 1, 8, BK_ROWS, false); }
static __global__ void BK_BOUNDS median_kernel_dpx_a6(bk_args a) { rolling_body(a, BK_MEDIAN_DPX, 1, 8, BK_ROWS_DPX, false, 6); }
static __global__ void BK_BOUNDS median_kernel_dpx_r48a6(bk_args a) { rolling_body(a, BK_MEDIAN_DPX, 1, 8, BK_ROWS, false, 6); }
/* Lesson (dpx_r12): shorter strips are faster, though each reads 2 rows more for every 12 it writes
 * (x 14/12, where dpx_r48 reads x 50/48). A sweep of the strip height at 16384^2 (a probe of this
 * kernel with the height a parameter, 2026-11-24, outside the lab; the lab's rows time each rung
 * in its own run): on the H100 9..48 rows gave 89.9, 91.3, 89.3, 87.3, 84.6% of memcpy for 9, 12,
 * 18, 24, 48 rows, on the H200 72.8, 73.4, 73.8, 72.3, 69.6%; 96 and 192 rows 73.0 and 65.1% on
 * the H100. A one-warp block that only copies its strip (no arithmetic, 3 rows ahead) reached
 * 89.4-91.9% of memcpy for every height from 24 to 192 rows on both GPUs, where a plain copy with
 * one 16-byte element a thread reached 99.9% (H100) and 101.5% (H200): walking rows one after
 * another caps a warp's strip near 92%, so dpx_r12 is at that cap on the H100; on the H200 it
 * stays near 73%. The probe's logs: plots/data/{h100,h200}/run_1347e4f/. */
static __global__ void BK_BOUNDS median_kernel_dpx_r12(bk_args a) { rolling_body(a, BK_MEDIAN_DPX, 1, 8, BK_ROWS_SHORT, false); }

/* fused_s16: fused_strips with 8 pixels in each strip (16 a lane, 8-byte loads and stores per
 * strip): its 12 shuffles a row and the loop's address and compare instructions serve twice the
 * pixels. fused_lean: fused_s16 with sobel's B and D as 2048 - A and 2048 - C (IMADs; one IMAD
 * and two IADD3 less a register) and its last byte permute moved into the store (row_store's path
 * for BK_GAUSS_LEAN). fused_lean_a6: with 6 rows loaded ahead; fused_lean_r192: 192-row strips
 * (the 6 rows that fill the windows spread over twice the rows).
 * Steady loop (static, per pixel; fused_strips: 577 for 24 pixels = 24.0, ALU 11.7, FMA 9.7, with
 * halo 27.2 / 13.3, where ncu measured 27.7 / 13.6 at 34db515):
 *   fused_s16       1040 for 48 = 21.7, ALU 11.1, FMA 9.3, LSU 1.0; halo (x 1.13) 24.6 / 12.6; 167 registers
 *   fused_lean       994 for 48 = 20.7, ALU 9.9, FMA 9.5, LSU 1.0; halo 23.5 / 11.2; 154 registers
 *   fused_lean_a6   1968 for 96 = 20.5, ALU 9.8, FMA 9.4; halo 23.2 / 11.1; 168 registers
 *   fused_lean_r192  the loop of fused_lean; halo (x 32/30 x 198/192 = 1.10) 22.8 / 10.8
 * Against the H100's 22.2 in all and 11.1 on the ALU at 100% of memcpy: fused_lean_r192 asks for
 * 103% and 98%, fused_lean 106% and 101% (fused_strips: 124.6% measured). None is <= 20: by the
 * counts the 80% goal needs about 84% issue efficiency even from the best of them. 12 or 13
 * resident warps an SM (152-168 registers): fewer bytes in flight than the 8-pixel rungs' 19-20.
 * No spills. */
static __global__ void BK_BOUNDS bk_kernel_fused_s16(bk_args a) { rolling_body(a, BK_GAUSS_X16, 3, 8, BK_ROWS_DPX, true); }
static __global__ void BK_BOUNDS bk_kernel_fused_lean(bk_args a) { rolling_body(a, BK_GAUSS_LEAN, 3, 8, BK_ROWS_DPX, true); }
static __global__ void BK_BOUNDS bk_kernel_fused_lean_a6(bk_args a) { rolling_body(a, BK_GAUSS_LEAN, 3, 8, BK_ROWS_DPX, true, 6); }
static __global__ void BK_BOUNDS bk_kernel_fused_lean_r192(bk_args a) { rolling_body(a, BK_GAUSS_LEAN, 3, 8, 2 * BK_ROWS_DPX, true); }

/* fused_half: fused_strips with sobel in half precision (stage_sobel_half) and the lean store, under
 * __launch_bounds__(32, 24): 80 registers (101 unbounded), 24 warps an SM (6 of each scheduler's
 * 16384-register file) where fused_strips keeps 16 (99 registers: 4 a scheduler).
 * Static SASS count of the interior steady loop (CUDA 13.0, sm_90, unbounded form): 544 for 24
 * pixels = 22.7 a pixel, ALU 8.5 (fused_strips: 577 = 24.0, ALU 11.7), FMA 11.7 (IMAD 8.3, HADD2 and
 * HFMA2.MMA 3.3), LSU 2.0. ncu at 16384^2 (H200,
 * probe runs of 2026-11-24, h200/run_526de0e): 26.2 thread-instructions a pixel (fused_strips 27.7),
 * the ALU 52% busy (66%), issue 69%; the same 13.8 warps active as fused_strips when unbounded, so
 * the unbounded form gained only the instructions: 37.2% of memcpy against 34.9% (one run); with 80 registers
 * 38.7%; with 72 (28 blocks, 76 bytes spilled) 36.9%. Strips of 108 rows, chosen so that the last
 * wave of blocks would be nearly full, were slower (36.0% against 37.2% at 96). In 80 registers
 * (ncu, h200/run_c1c1f07): 19.9 warps active, issue 78.5%, 2.13 warps ready but not selected per
 * issued instruction: the schedulers, not the ALU (56% busy), now bind. 16 pixels a lane (np = 8,
 * fused_lean's layout) in 128 registers: 25.53 instructions a pixel but 12.5 warps, 33.5%; in 96
 * (284 bytes spilled) 29.4% (probe rungs, not kept). */
static __global__ void __launch_bounds__(BK_THREADS, BK_MIN_BLOCKS(24)) bk_kernel_fused_half(bk_args a)
{
    rolling_body(a, BK_GAUSS_HALF, 3, 4, BK_ROWS_DPX, true);
}

/* fused_xor: fused_half with every middle of three by XOR (mid3_xor: the columns' middles and the
 * final median, 2 and 4 instructions where mid3u2 spends 3 and 6); fused_xorc: the columns only.
 * Steady loop (24 pixels): fused_half 568 instructions, fused_xorc 545, fused_xor 522; 80 registers
 * each. Measured (16384^2, run 1a7c1d4, two runs each): fused_xorc 55.2-55.7% of memcpy on the H100
 * and 39.3-39.6% on the H200 (fused_half 54.5-54.8% / 39.0%), fused_xor 53.5-53.6% / 38.1-38.6%:
 * 8% fewer instructions, slower. ncu (H200): 27.33 / 26.29 / 25.22 instructions a pixel (half, xorc,
 * xor), ALU 9.98 / 11.09 / 12.20; the schedulers issue in 78% / 77% / 72% of their active cycles,
 * about 86 / 85 / 77 of an SM's 128 thread-instructions a clock over the kernel's time.
 * labs/04_convolution/fusion/probes/pipe_rates.cu: alternating ALU and FMA instructions issue 122 a clock with two
 * register operands each and 83-89 with three on one or both sides; fused_xor moves work to
 * three-operand LOP3s on the ALU pipe. */
static __global__ void __launch_bounds__(BK_THREADS, BK_MIN_BLOCKS(24)) bk_kernel_fused_xor(bk_args a)
{
    rolling_body(a, BK_GAUSS_XOR, 3, 4, BK_ROWS_DPX, true);
}
static __global__ void __launch_bounds__(BK_THREADS, BK_MIN_BLOCKS(24)) bk_kernel_fused_xorc(bk_args a)
{
    rolling_body(a, BK_GAUSS_XORC, 3, 4, BK_ROWS_DPX, true);
}

/* fused_flat: fused_xorc's stages on the flat walk (rolling_flat.cuh: addresses stepped by the pitch,
 * no clamp of the rows loaded ahead, the halo lanes' stores predicated off). Steady loop: 494
 * instructions for 24 pixels where fused_xorc spends 545; 80 registers, no spill. Probes of the walk
 * (16384^2, % of memcpy, two runs each; H100 run 75515ad, H200 run 1a8c45c; not kept):
 *   - sobel's pair sum b + c carried into the next window (its a + b): 471 instructions, H100
 *     56.7% against fused_flat's 58.4-59.0%: the 4 HADD2 it saves were on the FMA pipe;
 *   - an L2 prefetch of each row one load earlier: H100 56.9-57.1%;
 *   - 88 registers (23 warps an SM): H100 55.2-55.4%;
 *   - every row ahead loaded, no predicate (16 bytes spilled): H100 59.2-59.9%, H200 42.4-42.8%
 *     (fused_flat 42.0-42.2%);
 *   - 6 rows ahead in a second bank of registers: H200 42.0-42.3% in 80 registers (32 bytes
 *     spilled), 42.1-42.2% in 88, 38.9-39.0% in 96.
 * ptxas places all six loads of an iteration after its first two rows in every form, so a row
 * loaded "3 rows ahead" is in flight for about one row; Nsight Compute (H100) samples 28% of the
 * warps' cycles waiting for it at the loop's first byte permute (fused_xorc: 16%). Yet 6 rows ahead (in flight for
 * four rows) gained nothing: other warps had instructions to issue in those cycles. */
static __global__ void __launch_bounds__(BK_THREADS, BK_MIN_BLOCKS(24)) bk_kernel_fused_flat(bk_args a)
{
    rolling_body_flat(a, BK_GAUSS_FLAT, 3, 4, BK_ROWS_DPX);
}

/* fused_flat_r36: fused_flat in 36-row strips. Shorter strips read 42 rows for 36 written (96-row
 * strips: 102 for 96) and fill their windows three times as often, yet they are faster (16384^2, %
 * of memcpy, two runs each, probes at commit 9afab89, plots/data/{h100,h200}/run_52c4316/
 * probes_flat_rows.txt): 12 / 24 / 36 / 48 / 96 rows: H100 61.1 / 64.1 / 64.5 / 64.0 / 58.4%,
 * H200 43.6 / 45.8 / 46.5 / 46.0 / 42.0%. Nsight Compute (H100, 16384^2, run b588e75): the busiest
 * SM works 5-6.5% longer than the average one, against 15-19% with 96-row strips (each block is
 * 3/8 as long), and the warps wait less for loads (1.4 warps stalled on a load per instruction
 * issued, not 2.0), for 3.4% more instructions (24.63 a pixel, 23.82). */
#define BK_ROWS_FLAT 36
static __global__ void __launch_bounds__(BK_THREADS, BK_MIN_BLOCKS(24)) bk_kernel_fused_flat_r36(bk_args a)
{
    rolling_body_flat(a, BK_GAUSS_FLAT, 3, 4, BK_ROWS_FLAT);
}

/* fused_flat_sf: fused_flat with its slowest blocks started first (rolling_flat.cuh's
 * slowest_first_block), in 72-row strips and 72 registers (28 warps an SM; ptxas spills 7 registers
 * in the edge columns' loop, none in the interior's). Started in index order, 72-row strips and 72
 * registers gained at most a point each (probes, plots/data/{h100,h200}/run_63ad7dd); with the slow
 * blocks first the tail is gone and both pay. Probes at 16384^2 (% of the probe's memcpy, two
 * passes, labs/04_convolution/fusion/probes/flat_next.cu, run_d0723ba): H100 r36 65.0-66.1, r36 slowest first 68.5-69.6,
 * and in 72 registers 70.2-70.4; H200 r36 48.3-48.8, slowest first 52.0, in 72 registers 53.1-53.2,
 * r72 in 72 registers 54.1. The lab at d0723ba: H100 69.8 / 69.9 / 69.85% of memcpy (fused_flat_r36
 * 64.5 / 64.4 / 64.45 in the same runs), H200 51.9 / 51.9 / 51.68% (46.5 / 46.6 / 46.50); ncu: 24.15
 * instructions a pixel (r36 24.63), the busiest SM +0.8-2.3% over the average (+4.7-7.0%), 25.5-25.9
 * warps an SM (19.9-20.6). The strip height comes from the picture (fusion.h's bk_sf_rows): 72 rows
 * where that still makes 4 waves of blocks, shorter ones below (at 4093 x 2047 the 72-row grid had 522
 * blocks for the 3696 an H100 holds at once: 7.6% of memcpy where fused_flat_r36 made 16.5%). */
template <int ROWS> /* 72, or 0: the height in `rows` (a loop bound in a register: 492 instructions, not 495; at
                        16384^2 on the H100 69.5 / 69.4% in run f3d15be, the constant 69.5-70.3% in six runs:
                        72 keeps its constant, the kernel measured since d0723ba) */
static __global__ void __launch_bounds__(BK_THREADS, BK_MIN_BLOCKS(28)) bk_kernel_fused_flat_sf(bk_args a, int rows)
{
    rolling_body_flat(a, BK_GAUSS_FLAT, 3, 4, ROWS ? ROWS : rows, slowest_first_block()); /* fusion.h's bk_sf_rows */
}

void launch_bk_fused_budget(const bk_args *a, bk_fused_kind kind, cudaStream_t st)
{
    if (kind >= BK_FUSED_HALF) {
        const dim3 grid = rolling_grid(a, 4, BK_ROWS_DPX);
        if (kind == BK_FUSED_HALF) bk_kernel_fused_half<<<grid, BK_THREADS, 0, st>>>(*a);
        else if (kind == BK_FUSED_XOR) bk_kernel_fused_xor<<<grid, BK_THREADS, 0, st>>>(*a);
        else if (kind == BK_FUSED_XORC) bk_kernel_fused_xorc<<<grid, BK_THREADS, 0, st>>>(*a);
        else if (kind == BK_FUSED_FLAT) bk_kernel_fused_flat<<<grid, BK_THREADS, 0, st>>>(*a);
        else if (kind == BK_FUSED_FLAT_R36) bk_kernel_fused_flat_r36<<<rolling_grid(a, 4, BK_ROWS_FLAT), BK_THREADS, 0, st>>>(*a);
        else {
            static int slots; /* asked once, on the first (untimed) launch: later ones may be in graph capture */
            if (!slots) slots = gl_resident_blocks((const void *)bk_kernel_fused_flat_sf<72>, BK_THREADS, 0);
            const int rows = bk_sf_rows(a->height, (int)rolling_grid(a, 4, 72).x, slots);
            if (rows == 72) bk_kernel_fused_flat_sf<72><<<rolling_grid(a, 4, rows), BK_THREADS, 0, st>>>(*a, rows);
            else bk_kernel_fused_flat_sf<0><<<rolling_grid(a, 4, rows), BK_THREADS, 0, st>>>(*a, rows);
        }
        GL_CHECK_LAUNCH();
        return;
    }
    const dim3 grid = rolling_grid(a, 8, kind == BK_FUSED_LEAN_R192 ? 2 * BK_ROWS_DPX : BK_ROWS_DPX);
    if (kind == BK_FUSED_S16) bk_kernel_fused_s16<<<grid, BK_THREADS, 0, st>>>(*a);
    else if (kind == BK_FUSED_LEAN) bk_kernel_fused_lean<<<grid, BK_THREADS, 0, st>>>(*a);
    else if (kind == BK_FUSED_LEAN_A6) bk_kernel_fused_lean_a6<<<grid, BK_THREADS, 0, st>>>(*a);
    else bk_kernel_fused_lean_r192<<<grid, BK_THREADS, 0, st>>>(*a);
    GL_CHECK_LAUNCH();
}

void launch_median_budget(const bk_args *a, median_rung r, cudaStream_t st)
{
    const bool r48 = r == MED_DPX_R48 || r == MED_DPX_R48A6;
    const dim3 grid = rolling_grid(a, 8, r == MED_DPX_R12 ? BK_ROWS_SHORT : r48 ? BK_ROWS : BK_ROWS_DPX);
    if (r == MED_DPX_R12) median_kernel_dpx_r12<<<grid, BK_THREADS, 0, st>>>(*a);
    else if (r == MED_DPX_R48) median_kernel_dpx_r48<<<grid, BK_THREADS, 0, st>>>(*a);
    else if (r == MED_DPX_A6) median_kernel_dpx_a6<<<grid, BK_THREADS, 0, st>>>(*a);
    else median_kernel_dpx_r48a6<<<grid, BK_THREADS, 0, st>>>(*a);
    GL_CHECK_LAUNCH();
}
