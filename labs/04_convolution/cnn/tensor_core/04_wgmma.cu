/* 04_wgmma.cu - Lab 04, part 2: ours_bf16_wgmma and ours_bf16_wgmma2, the channels-last implicit GEMM of
 * ours_bf16_mma3 on Hopper's warpgroup MMA. Built for sm_90a only (meson: a separate nvcc call);
 * the row runs on compute capability 9.0 only, the mma.sync rows stay the path everywhere else.
 *
 * Lesson: mma.sync makes every warp carry its operands through registers: per 16-deep k-step, a
 * warp of ours_bf16_mma3 issues ldmatrix for its A and B fragments and then 16 or 32 small MMAs,
 * and its 64 x 32 tile reads each A byte once per 32 columns. On sm_90 that instruction stream,
 * not the tensor cores, is the limit. wgmma.mma_async (four warps together, a "warpgroup") reads
 * both operands straight from shared memory through 64-bit matrix descriptors and multiplies
 * 64 x N x 16 in one instruction, asynchronously: no ldmatrix, no fragments in registers, and A is
 * read once per N = 64 / 128 / 256 columns. The layout, the prepare hook (x NHWC with a zero
 * border, w as [M][R][S][Cp], untimed like every BF16 row's rounding) and the 16-byte cp.async
 * gathers are mma3's (channels_last.cuh); what changes:
 *   - block 128 (output channels, two warpgroups of 64 rows, 8 warps) x BN (pixels, 64 / 128 /
 *     256: m64nBNk16), BK = 64 (4 wgmma per warpgroup per k-tile), a 3- or 4-stage cp.async ring;
 *   - shared memory in wgmma's K-major no-swizzle ("interleave") layout: 8 x 16-byte core matrices,
 *     row r, 16-byte chunk c of a tile at byte c CS + 16 r. A descriptor takes SBO = 128 (the next
 *     8 rows) and LBO = CS (the next 8 k); CS = 16 ROWS + 16, not 16 ROWS: eight lanes write one
 *     pixel's 8 chunks (128 contiguous bytes read, a full line), and the odd 16-byte shift puts the
 *     8 chunks in 8 different bank quads, so the cp.async writes have no conflicts; wgmma reads each
 *     core matrix as 128 contiguous bytes. (The 128-byte swizzle would drop the pad; it is not needed
 *     for conflicts here, and its mapping cannot be checked without a GPU.)
 *   - per k-tile: wait for this thread's copies, fence.proxy.async (cp.async writes are generic-proxy
 *     writes, wgmma reads through the async proxy), a barrier, the next copies into the stage freed
 *     one iteration ago, then wgmma.fence, 4 wgmma, commit, wait_group 0. The loads of the next
 *     STAGES - 1 tiles run under the MMAs; the MMAs of one k-tile are drained before the barrier
 *     (so a stage is free as soon as everyone passed it), and two blocks per SM (BN <= 128) cover
 *     that drain and each other's epilogues;
 *   - the accumulators: thread l of warp w holds for row 16 w + l / 4 (+ 8) and columns 8 j + 2 (l % 4)
 *     (+ 1) the same quadruple as an m16n8 mma.sync tile, so mma3's staged epilogue, split-K partial
 *     sums and deterministic reduce are reused as they are.
 * ours_bf16_wgmma2 (IN_FLIGHT = 1) is the same kernel without the drain: wait_group 1 leaves the
 * k-tile's group running across the next barrier, so the tensor cores always have the next group
 * queued behind the running one. The price is one more stage in use: a stage can be refilled only
 * once the group reading it is known complete in BOTH warpgroups, which after the barrier of k-tile
 * i is tile i - 2's, so the copies go STAGES - 2 tiles ahead (3 to 5 stages, see launch_pipelined).
 * Error bound: the BF16 class's (the same rounded x and w; any summation order). */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tensor_core.h"
#include "channels_last.cuh"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define WG_BUILT 1
#else
#define WG_BUILT 0
#endif

typedef __nv_bfloat16 bf16;

enum { WG_BM = 128, WG_BK = 64, WG_CH = WG_BK / 8, WG_THREADS = 256 };

/* Shared memory per stage: A [8 chunks][128 rows] then B [8 chunks][BN rows] of 16 bytes, chunk
 * strides A_CS and B_CS (bytes); reused for the FP32 output tile [128][BN + 8]. */
template <int BN, int STAGES> struct wg_smem {
    enum { A_CS = WG_BM * 16 + 16, B_CS = BN * 16 + 16, A_STAGE = WG_CH * A_CS, B_STAGE = WG_CH * B_CS,
           PIPE = STAGES * (A_STAGE + B_STAGE), OUT = WG_BM * (BN + 8) * 4, BYTES = PIPE > OUT ? PIPE : OUT };
};

#if WG_BUILT
#include "mma_sync.cuh"
#include "wgmma.cuh"

/* A shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"): start address, leading
 * byte offset (K-major, no swizzle: the next 8 k), stride byte offset 128 (the next 8 rows), each
 * >> 4 in 14 bits; base offset 0 and swizzle mode 0 (none). */
static __device__ __forceinline__ unsigned long long wg_desc(unsigned addr, unsigned lbo)
{
    return (unsigned long long)((addr & 0x3FFFF) >> 4) | (unsigned long long)((lbo & 0x3FFFF) >> 4) << 16 |
           (unsigned long long)(128 >> 4) << 32;
}

/* One k-tile (k0 .. k0 + 63) into a stage: thread tid copies 16-byte chunk tid % 8 of rows
 * tid / 8 + 32 j: A's rows of wp (zero past M and K), B's pixels of xp at pix_off[j] + the chunk's
 * k (zero past the last pixel and past K); then the chunk's k moves on by BK. */
template <int BN>
static __device__ __forceinline__ void wg_load_tile(const bf16 *xp, const bf16 *wp, unsigned char *as,
                                                    unsigned char *bs, int m0, int k0,
                                                    const int (&pix_off)[BN / 32], tc3_kpos &kp,
                                                    const tc3_dims &d, int tid)
{
    typedef wg_smem<BN, 1> L;
    const int chunk = tid % WG_CH, row = tid / WG_CH, k = k0 + chunk * 8;
#pragma unroll
    for (int j = 0; j < WG_BM / 32; j++) {
        const int m = m0 + row + 32 * j;
        const bool in = m < d.M && k < d.K;
        cp_async16(as + chunk * L::A_CS + (row + 32 * j) * 16, in ? wp + (size_t)m * d.K + k : wp, in ? 16 : 0);
    }
    const bool k_in = kp.fy < d.R;
    const int k_off = tc3_kpos_offset(kp, d);
#pragma unroll
    for (int j = 0; j < BN / 32; j++) {
        const bool in = k_in && pix_off[j] >= 0;
        cp_async16(bs + chunk * L::B_CS + (row + 32 * j) * 16, in ? xp + pix_off[j] + k_off : xp, in ? 16 : 0);
    }
    tc3_kpos_advance<WG_BK>(kp, d);
}
#endif

/* Lesson: the channels-last implicit GEMM on wgmma; see the file comment. Block 128 x BN, 8 warps
 * (two warpgroups: rows 0-63, 64-127); blockIdx.z is the K part (split-K: FP32 partial sums).
 * IN_FLIGHT: wgmma groups left running at the end of a k-tile, 0 (ours_bf16_wgmma: drained) or 1
 * (ours_bf16_wgmma2). The copies go DIST = STAGES - 1 - IN_FLIGHT tiles ahead: after the barrier
 * of k-tile i every thread has passed k-tile i - 1's wait_group IN_FLIGHT, so the groups of tiles
 * up to i - 1 - IN_FLIGHT are complete in both warpgroups and only their stages may be refilled;
 * tiles i - IN_FLIGHT .. i + DIST - 1 (being read or landing) occupy the other STAGES - 1. */
template <int BN, int STAGES, int MIN_BLOCKS, int IN_FLIGHT>
static __global__ void __launch_bounds__(WG_THREADS, MIN_BLOCKS)
    wg_conv(const bf16 *xp, const bf16 *wp, bf16 *y, float *partial, tc3_dims d)
{
#if WG_BUILT
    enum { DIST = STAGES - 1 - IN_FLIGHT };
    static_assert(DIST >= 1, "a copy distance of at least one tile");
    typedef wg_smem<BN, STAGES> L;
    extern __shared__ __align__(128) unsigned char wg_shared[];
    unsigned char *As = wg_shared, *Bs = wg_shared + STAGES * L::A_STAGE;
    const tc_block b = tc_block_at<WG_BM, BN, 8, 1, WG_BK>(d.K, d.k_chunk); /* warp w: rows 16 w.. */
    const int tid = b.tid, nk = b.nk, wg_row = (tid / 128) * 64;
    int pix_off[BN / 32]; /* this thread's pixels tid / 8 + 32 j: their top-left tap in xp */
#pragma unroll
    for (int j = 0; j < BN / 32; j++) pix_off[j] = tc3_pixel_offset(b.p0 + tid / WG_CH + 32 * j, d);
    tc3_kpos kp = tc3_kpos_at(b.kt0 * WG_BK + tid % WG_CH * 8, d);
#define WG_LOAD_TILE(i) /* local k-tile i into stage i % STAGES (tiles load in order: kp follows) */ \
    wg_load_tile<BN>(xp, wp, As + (i) % STAGES * L::A_STAGE, Bs + (i) % STAGES * L::B_STAGE, b.m0, \
                     (b.kt0 + (i)) * WG_BK, pix_off, kp, d, tid)
#pragma unroll
    for (int i = 0; i < DIST; i++) {
        if (i < nk) WG_LOAD_TILE(i);
        asm volatile("cp.async.commit_group;\n" ::); /* one group per tile, empty or not */
    }
    float acc[1][BN / 8][4] = {};
    float(&d_regs)[BN / 2] = *reinterpret_cast<float(*)[BN / 2]>(&acc[0][0][0]);
    for (int i = 0; i < nk; i++) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(DIST - 1)); /* tile i landed (this thread's) */
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); /* ... visible to wgmma's proxy */
        __syncthreads(); /* everyone's; and tile i - 1 - IN_FLIGHT's wgmma are complete in both warpgroups */
        if (i + DIST < nk) WG_LOAD_TILE(i + DIST); /* into stage (i - 1 - IN_FLIGHT) % STAGES */
        asm volatile("cp.async.commit_group;\n" ::);
        const unsigned as = smem_u32(As + i % STAGES * L::A_STAGE) + wg_row * 16;
        const unsigned bs = smem_u32(Bs + i % STAGES * L::B_STAGE);
        wg_fence();
#pragma unroll
        for (int ks = 0; ks < WG_BK / 16; ks++) /* k 16 ks..: chunks 2 ks, 2 ks + 1 */
            wgmma_bf16(d_regs, wg_desc(as + 2 * ks * L::A_CS, L::A_CS), wg_desc(bs + 2 * ks * L::B_CS, L::B_CS));
        wg_commit_and_wait<IN_FLIGHT>();
    }
#undef WG_LOAD_TILE
    if (IN_FLIGHT) asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory"); /* the last groups */
    wg_fence_regs(d_regs); /* read d after the wait */
    asm volatile("cp.async.wait_group 0;\n" ::);
    __syncthreads(); /* the pipeline buffers become the output tile */
    store_tile_staged<bf16, WG_BM, BN, WG_THREADS, 1, BN / 8>((float *)wg_shared, acc, b.wm0, 0, b.lane, tid, b.m0,
                                                             b.p0 + tid % BN, d.M, d.P, d.H * d.W, d.splits, d.ny, y,
                                                             partial);
#endif
}

/* ---------------- host side ---------------- */

template <int BN, int STAGES, int MIN_BLOCKS, int IN_FLIGHT> static void launch_wg(const tc3_call &c, cudaStream_t st)
{
    const int bytes = wg_smem<BN, STAGES>::BYTES;
    static int ready;
    tc3_smem_opt_in((const void *)wg_conv<BN, STAGES, MIN_BLOCKS, IN_FLIGHT>, bytes, &ready);
    dim3 grid((c.d.P + BN - 1) / BN, (c.d.M + WG_BM - 1) / WG_BM, c.d.splits);
    wg_conv<BN, STAGES, MIN_BLOCKS, IN_FLIGHT><<<grid, WG_THREADS, bytes, st>>>(
        (const bf16 *)c.xp, (const bf16 *)c.wp, (bf16 *)c.y16, c.partial, c.d);
    GL_CHECK_LAUNCH();
}

/* The tiles of ours_bf16_wgmma (cnn_tile_name_bf16_wgmma), drained every k-tile: 128 x 128
 * (3 stages, 2 blocks per SM) for t < 3, 128 x 64 (3 stages, 3 per SM) for t < 6, split-K
 * 1 << t % 3; 128 x 256 (4 stages, 1 per SM) whole. */
static void launch_drained(const tc3_call &c, int tile, cudaStream_t st)
{
    if (tile < 3) launch_wg<128, 3, 2, 0>(c, st);
    else if (tile < 6) launch_wg<64, 3, 3, 0>(c, st);
    else launch_wg<256, 4, 1, 0>(c, st);
}

/* The tiles of ours_bf16_wgmma2 (cnn_tile_name_bf16_wgmma2), one wgmma group in flight, copies
 * STAGES - 2 tiles ahead: 128 x 128, 3 stages (copy distance 1, 2 blocks per SM) for t < 3;
 * 128 x 64, 4 stages (distance 2, 2 per SM) for t < 6, split-K 1 << t % 3; 128 x 256, 4 stages
 * (distance 2, 1 per SM) for t = 6; 128 x 128, 5 stages (distance 3, 1 per SM) whole and split in
 * 2 for t = 7, 8. */
static void launch_pipelined(const tc3_call &c, int tile, cudaStream_t st)
{
    if (tile < 3) launch_wg<128, 3, 2, 1>(c, st);
    else if (tile < 6) launch_wg<64, 4, 2, 1>(c, st);
    else if (tile == 6) launch_wg<256, 4, 1, 1>(c, st);
    else launch_wg<128, 5, 1, 1>(c, st);
}

/* The convolution on xp and wp (mma3's prepare hook), y16 = BF16 y, then y as float (timed). */
static cnn_status wg_forward(const cnn_launch_args *a, int n_tiles,
                             void (*launch)(const tc3_call &, int, cudaStream_t), cudaStream_t st)
{
    tc3_call c;
    if (!cnn_supports_bf16_wgmma(&a->s)) return CNN_ERR_VARIANT;
    const cnn_status status = tc3_setup(a, n_tiles, WG_BK, &c);
    if (status != CNN_OK) return status;
    launch(c, a->tile, st);
    tc3_finish(a, c, st);
    return CNN_OK;
}

extern "C" cnn_status cnn_launch_bf16_wgmma(const cnn_launch_args *a, cudaStream_t st)
{
    return wg_forward(a, CNN_WGMMA_TILES, launch_drained, st);
}

extern "C" cnn_status cnn_launch_bf16_wgmma2(const cnn_launch_args *a, cudaStream_t st)
{
    return wg_forward(a, CNN_WGMMA2_TILES, launch_pipelined, st);
}
