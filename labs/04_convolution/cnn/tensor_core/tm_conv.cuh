/* tm_conv.cuh - Lab 04, part 2, rung 05 (its host side: 05_wgmma_tma.cu): ours_bf16_wgmma_tma and
 * ours_tf32_wgmma_tma, the channels-last implicit GEMM fed by the Tensor Memory Accelerator (TMA)
 * and run by a warp-specialised block, the way Hopper's libraries (cuDNN's sm90_xmma_fprop kernels,
 * CUTLASS) build it, and the same kernel on cuDNN NHWC's own tensors (ours_{bf16,fp16,tf32}_tma_nhwc).
 * sm_90a only (meson: built with 04_wgmma.cu); the rows run on compute capability 9.0 only. The
 * ring's index arithmetic and PTX are in tma_ring.cuh. Include from 05_wgmma_tma.cu only.
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
 * The epilogue (channels-last y, where 16 KB fit beside the ring): each consumer warp stages its
 * rows of y in shared memory, a 128-byte row of channels at a time, and the TMA engine stores them
 * (tm_store_y), where st.global from the registers wrote 16 bytes of a row a warp instruction and
 * took as long as a mainloop (a clock timeline showed it: plots/archive/h200/run_cb83428).
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
#ifndef CNN_TM_CONV_CUH
#define CNN_TM_CONV_CUH
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include "tma_ring.cuh" /* tm_geom, the ring's index arithmetic and PTX (and CUtensorMap) */

typedef __nv_bfloat16 bf16;
typedef __half f16;

#if TMA_BUILT
#include "mma_sync.cuh"
#include "wgmma.cuh"

/* One k-step (32 bytes of every row) of the warpgroup: BF16 or FP16 k16, TF32 k8 (by the type of y), on
 * the operands' shared-memory descriptors (tm_desc). */
template <int NR> static __device__ __forceinline__ void tm_mma(const bf16 *, float (&d)[NR], unsigned long long a, unsigned long long b) { wgmma_bf16(d, a, b); }
template <int NR> static __device__ __forceinline__ void tm_mma(const f16 *, float (&d)[NR], unsigned long long a, unsigned long long b) { wgmma_f16(d, a, b); }
template <int NR> static __device__ __forceinline__ void tm_mma(const float *, float (&d)[NR], unsigned long long a, unsigned long long b) { wgmma_tf32(d, a, b); }
static __device__ __forceinline__ void tm_store(bf16 *y, long long o, float v) { y[o] = __float2bfloat16_rn(v); }
static __device__ __forceinline__ void tm_store(f16 *y, long long o, float v) { y[o] = __float2half_rn(v); }
static __device__ __forceinline__ void tm_store(float *y, long long o, float v) { y[o] = v; }
static __device__ __forceinline__ void tm_store_2(bf16 *y, float v0, float v1)
{
    *(__nv_bfloat162 *)y = __floats2bfloat162_rn(v0, v1);
}
static __device__ __forceinline__ void tm_store_2(f16 *y, float v0, float v1) { *(__half2 *)y = __floats2half2_rn(v0, v1); }
static __device__ __forceinline__ void tm_store_2(float *y, float v0, float v1) { *(float2 *)y = make_float2(v0, v1); }
/* Two neighbouring output channels into y's staging in shared memory (tm_store_y). */
static __device__ __forceinline__ void tm_stage_pair(const bf16 *, unsigned a, float v0, float v1)
{
    const __nv_bfloat162 p = __floats2bfloat162_rn(v0, v1);
    asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(a), "r"(*(const unsigned *)&p) : "memory");
}
static __device__ __forceinline__ void tm_stage_pair(const f16 *, unsigned a, float v0, float v1)
{
    const __half2 p = __floats2half2_rn(v0, v1);
    asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(a), "r"(*(const unsigned *)&p) : "memory");
}
static __device__ __forceinline__ void tm_stage_pair(const float *, unsigned a, float v0, float v1)
{
    asm volatile("st.shared.v2.f32 [%0], {%1, %2};\n" ::"r"(a), "f"(v0), "f"(v1) : "memory");
}
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

/* The producer thread, box b: its k-tiles' boxes (x, then w's rt taps: one box, or one a tap in a
 * cluster) into the ring, up to g.stages
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
        if (tm_w_one_box(&g, CL)) { /* the rt taps in one instruction: fewer for the TMA engine to issue */
            tma_load_4d(tm_b_addr(&g, base, st, BN), wmap, full + 8 * st, c0, m0, r0, s);
            continue;
        }
        for (int j = 0; j < g.rt; j++) {
            const unsigned dst = tm_b_addr(&g, base, st, BN) + tm_b_step(BN, j, 0);
            if (CL == 1) tma_load_3d(dst, wmap, full + 8 * st, c0, (r0 + j) * g.S + s, m0);
            else
                tma_load_3d_multicast(dst + rank * (BN / CL) * TM_ROW_BYTES, wmap, full + 8 * st, c0, (r0 + j) * g.S + s,
                                      m0 + (int)rank * (BN / CL), (unsigned short)((1u << CL) - 1));
        }
    }
}

/* The epilogue of channels-last y through shared memory (g.ystage): each consumer warp writes its 16
 * accumulator rows, a 128-byte chunk of channels at a time (64 BF16 or FP16, 32 FP32), into its own
 * 2 KB in the 128-byte swizzle, and one lane hands the chunk to the TMA engine as a box of y (16
 * pixels x the chunk's channels; what lies outside y is clipped by the engine). Whole 128-byte rows
 * go to L2 in a few instructions a warp, where st.global from the registers writes 16 bytes of a
 * row at a time: the consumer is back at its next box's MMAs sooner, and the last box of a block
 * (whose stores nothing overlaps) ends sooner. Before a chunk overwrites the warp's 2 KB the
 * engine must have read the last one (wait_read). */
template <typename T, int BN, int WM>
static __device__ __forceinline__ void tm_store_y(const tm_geom &g, unsigned base, const CUtensorMap *ymap,
                                                  float (&d)[WM][BN / 2], int n, int y0, int x0, int m0, int cw, int t)
{
    constexpr int KC = TM_ROW_BYTES / (int)sizeof(T); /* channels a chunk */
    const int lane = t % 32;
    const unsigned buf = base + g.ystage + (threadIdx.x / 32 - 4) * TM_Y_STAGE_BYTES; /* warps 4 .. 11 (0 .. 3: the producer) */
#pragma unroll
    for (int mi = 0; mi < WM; mi++) {
        wg_fence_regs(d[mi]);
        const int row0 = 64 * (WM * cw + mi) + 16 * (t / 32); /* the warp's first row: 16 pixels of the box */
        const int py = y0 + row0 / g.bw, px = x0 + row0 % g.bw;
        if (n >= g.N || py >= g.H || px >= g.W) continue; /* all 16 outside y */
#pragma unroll
        for (int c = 0; c < BN / KC; c++) {
            if (m0 + c * KC >= g.M) break;
            if (lane == 0) tma_store_wait_read();
            __syncwarp();
#pragma unroll
            for (int jj = 0; jj < KC / 8; jj++)
#pragma unroll
                for (int h = 0; h < 2; h++) { /* registers 4 j + 2 h, + 1: row lane / 4 + 8 h, channels 8 j + 2 (lane % 4), + 1 */
                    const int i = 4 * (c * KC / 8 + jj) + 2 * h;
                    const unsigned a = tm_y_stage_offset(lane / 4 + 8 * h, (8 * jj + 2 * (lane % 4)) * (int)sizeof(T));
                    tm_stage_pair((const T *)0, buf + a, d[mi][i], d[mi][i + 1]);
                }
            fence_proxy_async();
            __syncwarp();
            if (lane == 0) tma_store_4d(ymap, buf, m0 + c * KC, px, py, n);
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
/* tm_release where p, without a branch (between two wgmma groups of one tile: see bar_arrive_if). */
template <int CL> static __device__ __forceinline__ void tm_release_if(unsigned bar, bool p)
{
    if (CL == 1) bar_arrive_if(bar, p);
    else
#pragma unroll
        for (unsigned r = 0; r < CL; r++) bar_arrive_at_if(bar, r, p);
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
static __device__ __forceinline__ void tm_consume(const tm_geom &g, unsigned base, unsigned full, unsigned empty,
                                                  const CUtensorMap *ymap, T *y,
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
        const unsigned long long db = tm_desc(tm_b_addr(&g, base, st, BN));
        unsigned long long da[WM];
#pragma unroll
        for (int mi = 0; mi < WM; mi++) da[mi] = tm_desc(tm_a_addr(&g, base, st, BN, WM * cw + mi));
        wg_fence();
        /* The tile's k-steps (taps x TM_KSTEPS; g.rt == RT, checked on the host) in two groups: wgmma's
         * issue waits for room in the tensor cores' queue, so by the time the first SPLIT k-steps (at
         * least 512 cycles of MMAs) are issued tile k - 1's MMAs are done, and its stage goes back to
         * the producer then, not a whole tile later. A tile of less work keeps one group. */
        constexpr int WORK = WM * BN / 2, ALL = RT * TM_KSTEPS; /* tensor-core cycles a k-step; k-steps a tile */
        constexpr int SPLIT = (512 + WORK - 1) / WORK < ALL ? (512 + WORK - 1) / WORK : ALL; /* >= 512 cycles queued */
#pragma unroll
        for (int e = 0; e < RT * TM_KSTEPS; e++) {
#pragma unroll
            for (int mi = 0; mi < WM; mi++) /* a descriptor's address field counts 16 bytes: steps added >> 4 */
                tm_mma((const T *)0, d[mi], da[mi] + (tm_a_step(&g, e / TM_KSTEPS, e % TM_KSTEPS) >> 4),
                       db + (tm_b_step(BN, e / TM_KSTEPS, e % TM_KSTEPS) >> 4));
            if (e == SPLIT - 1) {
                wg_commit_and_wait<1>(); /* tile k - 1's last group has retired */
                tm_release_if<CL>(empty + 8 * tm_stage(k - 1, g.stages), i > k_lo && t % 32 == 0);
            }
        }
        if (SPLIT < RT * TM_KSTEPS) wg_commit(); /* the second group */
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
    if (PP && g.ystage) { /* ping-pong tiles only: the code's mere presence costs the others their mainloop's
                           * uniform descriptor arithmetic (ptxas), and none of them wins where it would help */
        tm_store_y<T, BN, WM>(g, base, ymap, d, n, y0, x0, m0, cw, t);
        return;
    }
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
    tm_conv(const __grid_constant__ CUtensorMap xmap, const __grid_constant__ CUtensorMap wmap,
            const __grid_constant__ CUtensorMap ymap, T *y, tm_geom g)
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
                tm_consume<T, BN, WM, RT, CL, KS, PP>(g, base, full, empty, &ymap, y, tm_unit_block(&g, BN, CL, u, box_rank),
                                                      q, PP ? 0 : wg - 1, tid % 128, k_lo, k_hi, j, u + stride < units);
        if (g.ystage && tid % 32 == 0) tma_store_wait_all(); /* y's last chunks written before the block ends */
    }
    if (KS > 1) { /* one box per cluster (tm_unit_block with cl = 1: every rank the same block) */
        cluster_sync(); /* every rank's partial tile is in its shared memory */
        if (wg > 0) tm_reduce<T, BN, WM, KS>(g, base, y, tm_unit_block(&g, BN, 1, blockIdx.x / KS, 0), rank, tid - 128);
    }
    if (CL * KS > 1) cluster_sync(); /* no block leaves while others may still write, arrive or read in it */
#endif
}

#endif
