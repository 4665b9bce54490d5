/* 05_wgmma_tma.cu - Lab 04, part 2: ours_bf16_wgmma_tma and ours_tf32_wgmma_tma, the channels-last
 * implicit GEMM fed by the Tensor Memory Accelerator (TMA) and run by a warp-specialised block, the
 * way Hopper's libraries (cuDNN's sm90_xmma_fprop kernels, CUTLASS) build it, and the same kernel on
 * cuDNN NHWC's own tensors (ours_{bf16,fp16,tf32}_tma_nhwc, at the end of this file). sm_90a only
 * (meson: built with 04_wgmma.cu); the rows run on compute capability 9.0 only. The ring's index
 * arithmetic and PTX are in tma_ring.cuh.
 *
 * Lesson: in ours_bf16_wgmma every thread computes im2col addresses and issues 16-byte cp.async
 * copies, then waits for its own copies and meets the others at a barrier: the threads that should
 * feed the tensor cores spend their issue slots on address arithmetic and synchronisation, and each
 * 128-byte row of a pixel's channels arrives as eight separate 16-byte L2 requests. Three Hopper
 * features take that work away:
 *   - TMA: one thread describes a whole tile as a box of a tensor (cuTensorMapEncodeTiled on the
 *     host: x as a 4-D tensor (C, W, H, N) in channels-last order, w as (C, R S, M)) and one
 *     instruction (cp.async.bulk.tensor) moves it; the copy engine generates the addresses and asks L2
 *     for whole 128-byte rows. The A tile of filter tap (r, s), channels c0.. and an output box of
 *     BH x BW pixels of image n is the box at (c0, x0 + s, y0 + r, n) of the zero-bordered x: no
 *     per-pixel arithmetic anywhere, and what lies outside the tensor (past the last channel, pixel or
 *     output channel) is filled with zeros by the engine, so no bounds checks either;
 *   - warp specialisation and an mbarrier ring: warpgroup 0 is the producer (one thread issues the
 *     copies, the other 127 leave at once), warpgroups 1 and 2 are consumers (64 pixel rows x BN
 *     output channels each). A ring of stages, each with a "full" mbarrier (the producer arms it with
 *     the stage's byte count, the TMA engine completes it as the bytes land) and an "empty" one (each
 *     consumer warp arrives once the wgmma that read the stage has retired). Nobody waits at a
 *     __syncthreads: the producer runs a ring's length ahead and the consumers keep one wgmma
 *     group in flight (wait_group 1), releasing tile i - 1 while tile i multiplies. setmaxnreg moves
 *     registers from the producer (40) to the consumers (232) where one block fills the SM;
 *   - the 128-byte swizzle: TMA writes each 128-byte row r with its eight 16-byte chunks permuted
 *     (chunk c at c ^ (r % 8)), wgmma's descriptor says so (layout type 1, 8-row groups 1024 bytes
 *     apart), and the eight rows a core-matrix read touches sit in eight different bank groups: no
 *     padding, no conflicts, and a stage is a dense 1024-byte-aligned block.
 * GEMM: M = pixels (the box's BH x BW = 128 rows, BW = the power of two >= W, at least 8, at most
 * 128; rows outside the image are computed on zeros and not stored), N = BN output channels (64, 128
 * or 256, autotuned with the stage count), K = R S x Cp in 128-byte chunks (BF16: 64 channels, TF32:
 * 32; a chunk past Cp reads zeros). A block computes one box of one image (the first tiles), or
 * walks several with one ring (persistent tiles, p...), or shares each w box with the other blocks
 * of a cluster by TMA multicast (pc...), or splits one box's k-tiles across a cluster and sums the
 * partial tiles in distributed shared memory (split-K, ks...), or lets its two consumer warpgroups
 * take whole boxes in turn, one's MMAs running while the other stores y (ping-pong, pp...): see
 * tm_conv.
 * The halo tiles (3 x 3 filters): per tap, x's box is 128 rows of which the next tap down reuses
 * all but BW; one box of BH + 2 rows (BW = 16 at most: taller, so less halo) serves the filter
 * column's 3 taps, tap r being its rows from r BW on (a 1024-byte multiple: BW >= 8), with the 3
 * taps' w boxes in the same stage: per 3 taps of a 128 x 64 tile 20 + 24 KB from L2 instead of
 * 3 x (16 + 8). Stages: as many as fit (at most the tile's count); other filters: one box per tap.
 * What the profile should show against ours_bf16_wgmma (not measured here): far fewer issued
 * instructions per FLOP (no LDGSTS, no address math in the consumers), L2 requests of 128 bytes,
 * zero shared-memory bank conflicts on the tensor-core reads, tensor-pipe activity limited by the
 * ring's depth rather than by __syncthreads stalls, and (halo tiles) less L2 traffic per FLOP.
 * Layout and timing: the BF16 row takes mma3's prepare hook (x16, w16 rounded, xp = NHWC with a zero
 * border, wp = [M][R][S][Cp], all untimed; y written as BF16 and converted to float inside the
 * timing: what every BF16 row, cudnn_bf16 included, times). The TF32 row's prepare (untimed) rounds x
 * and w to TF32 to nearest (the TF32 class's bound assumes it; wgmma would truncate raw FP32) into
 * the same two layouts in FP32. cuDNN gets NCHW and changes the layout inside its timed call (its
 * sm90 kernels are NHWC), so the like-for-like rows are the _t twins, ours_bf16_wgmma_tma_t and
 * ours_tf32_wgmma_tma_t: x's NCHW -> channels-last change (and TF32 rounding) inside the timing.
 * Error bounds: the classes' (the same rounded x and w, FP32 accumulation in any order). */
#include <stdio.h>
#include "gl_tma.h"     /* CUtensorMap, the encoder from the runtime */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include "tensor_core.h"
#include "channels_last.cuh"
#include "tma_ring.cuh" /* tm_geom, the ring's index arithmetic and PTX */

typedef __nv_bfloat16 bf16;
typedef __half f16;

#if TMA_BUILT
#include "mma_sync.cuh"
#include "wgmma.cuh"

/* One k-step (32 bytes of every row) of the warpgroup: BF16 or FP16 k16, TF32 k8 (by the type of y). */
template <int NR> static __device__ __forceinline__ void tm_mma_of(const bf16 *, float (&d)[NR], unsigned a, unsigned b)
{
    wgmma_bf16(d, tm_desc(a), tm_desc(b));
}
template <int NR> static __device__ __forceinline__ void tm_mma_of(const f16 *, float (&d)[NR], unsigned a, unsigned b)
{
    wgmma_f16(d, tm_desc(a), tm_desc(b));
}
template <int NR> static __device__ __forceinline__ void tm_mma_of(const float *, float (&d)[NR], unsigned a, unsigned b)
{
    wgmma_tf32(d, tm_desc(a), tm_desc(b));
}
template <typename T, int NR> static __device__ __forceinline__ void tm_mma(float (&d)[NR], unsigned a, unsigned b)
{
    tm_mma_of((const T *)0, d, a, b);
}
static __device__ __forceinline__ void tm_store(bf16 *y, long long o, float v) { y[o] = __float2bfloat16_rn(v); }
static __device__ __forceinline__ void tm_store(f16 *y, long long o, float v) { y[o] = __float2half_rn(v); }
static __device__ __forceinline__ void tm_store(float *y, long long o, float v) { y[o] = v; }
static __device__ __forceinline__ void tm_store_2(bf16 *y, float v0, float v1)
{
    *(__nv_bfloat162 *)y = __floats2bfloat162_rn(v0, v1);
}
static __device__ __forceinline__ void tm_store_2(f16 *y, float v0, float v1) { *(__half2 *)y = __floats2half2_rn(v0, v1); }
static __device__ __forceinline__ void tm_store_2(float *y, float v0, float v1) { *(float2 *)y = make_float2(v0, v1); }
/* Output channels m, m + 1 of one pixel at o, o + step: one 4-byte (BF16) or 8-byte (FP32) store
 * where they are neighbours (channels-last, o even), else one store each. */
template <typename T> static __device__ __forceinline__ void tm_store_pair(T *y, long long o, long long step, float v0, float v1)
{
    if (step == 1 && !(o & 1)) tm_store_2(y + o, v0, v1);
    else {
        tm_store(y, o, v0);
        tm_store(y, o + step, v1);
    }
}

/* The producer thread, box b: its k-tiles' boxes (x, then rt of w) into the ring, up to g.stages
 * tiles ahead of the consumers: k-tiles k_lo .. k_hi - 1 (all nk, or a split-K rank's share). q:
 * the k-tiles this block's ring has carried before box b (a block
 * that walks several boxes keeps one ring: stage and phase run on across them). In a cluster of CL
 * blocks (all on the same m0), rank r loads rows r BN / CL .. of each w box and multicasts them to
 * every block of the cluster: each block's full barrier still counts the whole stage, and a stage
 * is refilled only once every block's consumers have released it (the empty barriers count the
 * consumer warps of the whole cluster). */
template <int BN, int CL>
static __device__ __forceinline__ void tm_produce(const CUtensorMap *xmap, const CUtensorMap *wmap, const tm_geom &g,
                                                  unsigned base, unsigned full, unsigned empty, int b, int q,
                                                  unsigned rank, int k_lo, int k_hi)
{
    int n, y0, x0, m0;
    tm_block_at(&g, b, BN, &n, &y0, &x0, &m0);
    for (int i = k_lo; i < k_hi; i++) {
        const int k = q + i - k_lo, st = tm_stage(k, g.stages);
        if (k >= g.stages) bar_wait(empty + 8 * st, tm_parity(k - g.stages, g.stages)); /* k - stages released */
        bar_arrive_expect_tx(full + 8 * st, tm_stage_bytes(&g, BN));
        int c0, r0, s;
        tm_ktile_at(&g, i, &c0, &r0, &s);
        tma_load_4d(tm_a_addr(&g, base, st, BN, 0), xmap, full + 8 * st, c0, x0 + s + g.ox, y0 + r0 + g.oy, n);
        for (int j = 0; j < g.rt; j++) {
            const unsigned dst = tm_b_addr(&g, base, st, BN) + tm_b_step(BN, j, 0);
            if (CL == 1) tma_load_3d(dst, wmap, full + 8 * st, c0, (r0 + j) * g.S + s, m0);
            else
                tma_load_3d_multicast(dst + rank * (BN / CL) * TM_ROW_BYTES, wmap, full + 8 * st, c0, (r0 + j) * g.S + s,
                                      m0 + (int)rank * (BN / CL), (unsigned short)((1u << CL) - 1));
        }
    }
}

/* A consumer warpgroup (cw: 0, 1), box b: WM 64-row MMA blocks (rows 64 (WM cw + mi) ..) x BN
 * channels, k-tiles q .. q + nk - 1 of the ring, then y. While it stores y the producer already
 * fills the ring with the block's next box. */
template <int CL> static __device__ __forceinline__ void tm_release(unsigned bar)
{
    if (CL == 1) bar_arrive(bar);
    else
        for (unsigned r = 0; r < CL; r++) bar_arrive_at(bar, r);
}

/* Ping-pong's turn-taking: box j's mainloop starts once box j - 1's (the other warpgroup's) has seen all
 * its k-tiles land. Without it a warpgroup that skipped the other's tiles could wait on a stage's
 * full barrier while that stage still holds the other's tile: a parity wait tells a phase only from
 * its neighbours, and the phase two back has the same parity. Named barriers 2 and 3 (1 is
 * consumers_sync), 256 threads: 128 arrive, 128 wait. */
static __device__ __forceinline__ void pp_wait_turn(int j)
{
    if (j > 0) asm volatile("bar.sync %0, 256;\n" ::"r"(2 + (j - 1) % 2) : "memory");
}
static __device__ __forceinline__ void pp_pass_turn(int j, bool next)
{
    if (next) asm volatile("bar.arrive %0, 256;\n" ::"r"(2 + j % 2) : "memory");
}

template <typename T, int BN, int WM, int RT, int CL, int KS, bool PP>
static __device__ __forceinline__ void tm_consume(const tm_geom &g, unsigned base, unsigned full, unsigned empty, T *y,
                                                  int b, int q, int cw, int t, int k_lo, int k_hi, int j, bool next)
{
    float d[WM][BN / 2];
#pragma unroll
    for (int mi = 0; mi < WM; mi++)
#pragma unroll
        for (int i = 0; i < BN / 2; i++) d[mi][i] = 0.0f;
    if (PP) pp_wait_turn(j);
    for (int i = k_lo; i < k_hi; i++) {
        const int k = q + i - k_lo, st = tm_stage(k, g.stages);
        bar_wait(full + 8 * st, tm_parity(k, g.stages)); /* tile k's bytes have landed */
        __syncwarp(); /* the warp converged for the .aligned wgmma instructions */
        const unsigned bs = tm_b_addr(&g, base, st, BN);
        wg_fence();
#pragma unroll
        for (int j = 0; j < RT; j++) /* the k-tile's taps (g.rt == RT, checked on the host) */
#pragma unroll
            for (int ks = 0; ks < TM_KSTEPS; ks++)
#pragma unroll
                for (int mi = 0; mi < WM; mi++)
                    tm_mma<T>(d[mi], tm_a_addr(&g, base, st, BN, WM * cw + mi) + tm_a_step(&g, j, ks),
                              bs + tm_b_step(BN, j, ks));
        wg_commit_and_wait<1>(); /* tile k - 1's group has retired: its stage goes back to the producer */
        if (i > k_lo && t % 32 == 0) tm_release<CL>(empty + 8 * tm_stage(k - 1, g.stages));
    }
    if (PP) pp_pass_turn(j, next);
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    if (k_hi > k_lo && t % 32 == 0) /* the box's last tile */
        tm_release<CL>(empty + 8 * tm_stage(q + k_hi - k_lo - 1, g.stages));
    if (KS > 1) { /* split-K: the partial tile into the ring's memory, summed across the cluster later */
        consumers_sync(); /* both warpgroups' last wgmma has read its stage */
#pragma unroll
        for (int mi = 0; mi < WM; mi++) {
            wg_fence_regs(d[mi]);
#pragma unroll
            for (int i = 0; i < BN / 2; i += 2) {
                const unsigned a = tm_partial_addr(base, BN, 64 * (WM * cw + mi) + tm_acc_row(t, i), tm_acc_col(t, i));
                asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(a), "f"(d[mi][i]), "f"(d[mi][i + 1]) : "memory");
            }
        }
        return;
    }
    int n, y0, x0, m0;
    tm_block_at(&g, b, BN, &n, &y0, &x0, &m0);
    const long long step = tm_channel_step(&g);
#pragma unroll
    for (int mi = 0; mi < WM; mi++) {
        wg_fence_regs(d[mi]);
#pragma unroll
        for (int h = 0; h < 2; h++) { /* a thread's two rows: registers 4 j + 2 h (+ 1), j < BN / 8 */
            const long long ro = tm_row_offset(&g, n, y0, x0, 64 * (WM * cw + mi) + tm_acc_row(t, 2 * h));
            if (ro < 0) continue;
#pragma unroll
            for (int j = 0; j < BN / 8; j++) {
                const int i = 4 * j + 2 * h, m = m0 + tm_acc_col(t, i); /* channels m, m + 1 */
                if (m + 1 < g.M) tm_store_pair(y, ro + m * step, step, d[mi][i], d[mi][i + 1]);
                else if (m < g.M) tm_store(y, ro + m * step, d[mi][i]);
            }
        }
    }
}

/* Split-K's sum: rank r of the KS blocks of a cluster (one box, each a share of the k-tiles) adds
 * rows r R / KS .. of every rank's partial tile (R = 128 WM rows), in rank order, read through
 * distributed shared memory, and stores them: consecutive threads, consecutive channel pairs of
 * a row (coalesced). c: the consumer thread (0 .. 255). */
template <typename T, int BN, int WM, int KS>
static __device__ __forceinline__ void tm_reduce(const tm_geom &g, unsigned base, T *y, int b, unsigned rank, int c)
{
    int n, y0, x0, m0;
    tm_block_at(&g, b, BN, &n, &y0, &x0, &m0);
    const int rows = 128 * WM / KS, items = rows * (BN / 2);
    const long long step = tm_channel_step(&g);
    for (int it = c; it < items; it += 256) {
        const int row = (int)rank * rows + it / (BN / 2), col = 2 * (it % (BN / 2)), m = m0 + col;
        float2 v = make_float2(0.0f, 0.0f);
#pragma unroll
        for (int q = 0; q < KS; q++) {
            const float2 p = ld_cluster_f2(tm_partial_addr(base, BN, row, col), (unsigned)q);
            v.x += p.x, v.y += p.y;
        }
        const long long ro = tm_row_offset(&g, n, y0, x0, row);
        if (ro < 0) continue;
        if (m + 1 < g.M) tm_store_pair(y, ro + m * step, step, v.x, v.y);
        else if (m < g.M) tm_store(y, ro + m * step, v.x);
    }
}
#endif

/* Lesson: the TMA-fed, warp-specialised implicit GEMM; see the file comment. Block: 384 threads
 * (producer warpgroup + 2 consumer warpgroups), boxes of 128 WM pixel rows x BN output channels:
 * box blockIdx.x, then every gridDim.x-th after it (a grid of one block per box walks one each; a
 * persistent grid of one per SM walks several, the producer loading the next box while the
 * consumers store y). SPLIT_REGS: setmaxnreg (one block per SM); MIN_BLOCKS: the blocks per SM the
 * tile is built for; RT: taps per k-tile (1, or 3 for the halo tiles of 3 x 3 filters); CL: blocks
 * per cluster sharing each w box by multicast (grid: a multiple of CL; the cluster walks units);
 * KS: split-K, the blocks of a cluster of KS each run a share of one box's k-tiles and sum their
 * partial tiles through distributed shared memory (grid: one cluster per box, not persistent); PP:
 * ping-pong, each consumer warpgroup a whole box of 64 WM rows, the two taking the block's boxes in
 * turn: while one stores its y the other's MMAs keep the tensor cores busy (CUTLASS's "pingpong"
 * schedule; the ring is shared in order, so the two mainloops follow each other). */
template <typename T, int BN, int WM, int MIN_BLOCKS, bool SPLIT_REGS, int RT, int CL, int KS, bool PP>
static __global__ void __launch_bounds__(TM_THREADS, MIN_BLOCKS)
    tm_conv(const __grid_constant__ CUtensorMap xmap, const __grid_constant__ CUtensorMap wmap, T *y, tm_geom g)
{
#if TMA_BUILT
    extern __shared__ unsigned char tm_shared[];
    const unsigned base = tm_align1024(smem_u32(tm_shared));
    const unsigned full = base + g.stages * tm_stage_bytes(&g, BN), empty = full + 8 * g.stages;
    static_assert(CL == 1 || KS == 1, "a cluster either shares w or splits K");
    static_assert(!PP || KS == 1, "ping-pong: whole boxes");
    const int tid = threadIdx.x, wg = tid / 128, units = tm_units(&g, BN, CL);
    const unsigned rank = CL * KS > 1 ? cluster_rank() : 0;
    const int k_lo = KS > 1 ? (int)rank * g.nk / KS : 0, k_hi = KS > 1 ? ((int)rank + 1) * g.nk / KS : g.nk;
    const unsigned box_rank = CL > 1 ? rank : 0; /* multicast: rank r's box; split-K: every rank the same box */
    pdl_let_next_launch(); /* the next layer's blocks may take the SMs this grid leaves idle */
    if (tid == 0) {
        for (int s = 0; s < g.stages; s++) {
            bar_init(full + 8 * s, 1);                       /* the producer's arrive_expect_tx (+ the bytes) */
            /* one arrival per consumer warp of the cluster that reads the stage (ping-pong: one warpgroup's) */
            bar_init(empty + 8 * s, (PP ? TM_CONSUMER_WARPS / 2 : TM_CONSUMER_WARPS) * CL);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory"); /* ... visible to the TMA engine */
    }
    if (CL * KS > 1) cluster_sync(); /* every block's barriers ready before any multicast or remote access */
    else __syncthreads();       /* the last block-wide barrier: the roles part here */
    pdl_wait_for_inputs();      /* launched early (a pdl_ tile): the layer before has finished, its y is x */
    if (wg == 0) {
        if (SPLIT_REGS) asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (tid == 0) {
            asm volatile("prefetch.tensormap [%0];\nprefetch.tensormap [%1];\n" ::"l"(&xmap), "l"(&wmap) : "memory");
            for (int u = blockIdx.x / (CL * KS), q = 0; u < units; u += gridDim.x / (CL * KS), q += k_hi - k_lo)
                tm_produce<BN, CL>(&xmap, &wmap, g, base, full, empty, tm_unit_block(&g, BN, CL, u, box_rank), q, rank,
                                   k_lo, k_hi);
        }
    } else {
        if (SPLIT_REGS) asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        /* ping-pong: consumer warpgroup c takes every other box of the block (c, c + 2, ...), all its rows */
        const int stride = gridDim.x / (CL * KS);
        for (int u = blockIdx.x / (CL * KS), q = 0, j = 0; u < units; u += stride, q += k_hi - k_lo, j++)
            if (!PP || j % 2 == wg - 1)
                tm_consume<T, BN, WM, RT, CL, KS, PP>(g, base, full, empty, y, tm_unit_block(&g, BN, CL, u, box_rank), q,
                                                      PP ? 0 : wg - 1, tid % 128, k_lo, k_hi, j, u + stride < units);
    }
    if (KS > 1) { /* one box per cluster (tm_unit_block with cl = 1: every rank the same block) */
        cluster_sync(); /* every rank's partial tile is in its shared memory */
        if (wg > 0) tm_reduce<T, BN, WM, KS>(g, base, y, tm_unit_block(&g, BN, 1, blockIdx.x / KS, 0), rank, tid - 128);
    }
    if (CL * KS > 1) cluster_sync(); /* no block leaves while others may still write, arrive or read in it */
#endif
}

/* ---------------- host side ---------------- */

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
 * bw, a_rows / bw, 1) and (kc, 1, BN / cl). Refuses (0, said why) unless the x box and rt w boxes are
 * exactly the stage's bytes: the full barrier's expect_tx count is those bytes, and a mismatch would
 * hang the block; and unless the ring has the 2 stages its release of tile i - 1 needs. */
static int encode_maps(const tm_geom &g, int BN, int cl, CUtensorMapDataType type, int elem, void *xp, void *wp,
                       CUtensorMap *xmap, CUtensorMap *wmap)
{
    const cuuint64_t row = (cuuint64_t)g.Cp * elem;
    const cuuint64_t xdims[4] = {(cuuint64_t)g.Cp, (cuuint64_t)g.Wp, (cuuint64_t)g.Hp, (cuuint64_t)g.N};
    const cuuint64_t xstrides[3] = {row, row * g.Wp, row * g.Wp * g.Hp};
    const cuuint32_t xbox[4] = {(cuuint32_t)g.kc, (cuuint32_t)g.bw, (cuuint32_t)(g.a_rows / g.bw), 1};
    const cuuint64_t wdims[3] = {(cuuint64_t)g.Cp, (cuuint64_t)g.R * g.S, (cuuint64_t)g.M};
    const cuuint64_t wstrides[2] = {row, row * g.R * g.S};
    const cuuint32_t wbox[3] = {(cuuint32_t)g.kc, 1, (cuuint32_t)(BN / cl)}; /* a cluster rank's share */
    const unsigned box_bytes = (unsigned)(g.kc * elem) * (xbox[1] * xbox[2] + g.rt * BN);
    if (g.kc * elem != TM_ROW_BYTES || g.bw * g.bh != g.rows || box_bytes != tm_stage_bytes(&g, BN) ||
        g.stages < 2 || g.R % g.rt) {
        fprintf(stderr, "cnn: wgmma_tma: boxes (%d x %d x %u, %d x %d x %d) vs a stage of %u bytes, %d stages\n",
                g.kc, g.bw, xbox[2], g.rt, g.kc, BN, tm_stage_bytes(&g, BN), g.stages);
        return 0;
    }
    return encode_map(xmap, type, 4, xp, xdims, xstrides, xbox) && encode_map(wmap, type, 3, wp, wdims, wstrides, wbox);
}

/* Where a launch reads and writes: the tensors' type, x (bordered: mma3's xp; else plain NHWC) and w
 * (wp [M][R S][Cp]); y channels-last or NCHW; persistent: one block per SM (x MIN_BLOCKS). */
typedef struct {
    CUtensorMapDataType type;
    void *x, *w;
    int bordered, nhwc_out, persistent, pdl; /* pdl: launched with programmatic dependent launch */
} tm_io;

/* The ring's stages: up to max_stages, as many as fit the block's share of the SM (227 KB alone, half
 * of 228 KB less 1 KB per block for two). */
static tm_geom with_stages(const cnn_shape *s, int elem, int halo, int rows, int bordered, int bn, int max_stages,
                           int min_blocks)
{
    tm_geom g = geom_of(s, elem, halo, rows, bordered);
    g.stages = tm_fit_stages(&g, bn, max_stages, min_blocks > 1 ? 228 * 1024 / 2 - 1024 : 227 * 1024);
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
    const auto kernel = tm_conv<T, BN, WM, MIN_BLOCKS, SPLIT_REGS, RT, CL, KS, PP>;
    static int ready; /* the opt-in for the largest ring any layer gets */
    tc3_smem_opt_in((const void *)kernel, MIN_BLOCKS > 1 ? 228 * 1024 / 2 - 1024 : 227 * 1024, &ready);
    const size_t smem = tm_smem_bytes(&g, BN);
    const int grid = KS > 1 ? tm_units(&g, BN, 1) * KS : grid_for(kernel, tm_units(&g, BN, CL), CL, io.persistent, smem);
    cudaLaunchAttribute at[2];
    const cudaLaunchConfig_t cfg = tm_config(at, grid, CL * KS, smem, io.pdl, st);
    GL_CHECK(cudaLaunchKernelEx(&cfg, kernel, xmap, wmap, y, g));
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
