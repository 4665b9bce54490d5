/* 03_channels_last.cu - Lab 04, part 2: the third BF16 tensor-core rung, ours_bf16_mma3 (sm_80+), and its
 * twin ours_bf16_mma3_t that times the layout change.
 *
 * Lesson: ours_bf16_mma2 gathers its im2col tile through registers, 2 bytes per load with a bounds
 * check per element: cp.async has no 2-byte copy, and in NCHW the C R S values of one pixel's
 * column lie far apart. Change the layout instead of the loads (what cuDNN's fast kernels do):
 *   - x channels-last (NHWC) in BF16, with a zero border of pad pixels and C padded to Cp (a
 *     multiple of 8) with zero channels: xp[N][H + 2 pad_h][W + 2 pad_w][Cp];
 *   - the reduction index ordered k = (r, s, c), the weights re-laid out to match: wp[M][R][S][Cp];
 *   - then for one output pixel and one tap the Cp values of its im2col column are contiguous and
 *     never outside xp (the border is the padding): every im2col load is a 16-byte cp.async of 8
 *     channels, no check but the tails (pixels past N H W, k past R S Cp: zero-fill), and the B tile
 *     sits in shared memory pixel-major like A ([n][k], row stride BK + 8: no bank conflicts), so
 *     both fragments come from plain ldmatrix.x4;
 *   - a 4-stage cp.async ring, BK = 32, 8 warps: 128 x 128 (warps of 64 x 32, 2 blocks per SM) or
 *     128 x 64 (32 x 32, 3 per SM), whole or split along K into 2 or 4 parts (FP32 partial sums, the
 *     reduce of ours_bf16_mma2: deterministic); the output staged through shared memory.
 * Each thread loads one 8-channel chunk of each k-tile for its pixels and keeps that chunk's k as
 * (fy, fx, c), advanced by BK per tile: no division in the loop.
 * The layout change: w's in the prepare hook for both rows (weights are constants); x's in the
 * prepare hook for ours_bf16_mma3 (untimed, like the BF16 rounding of every BF16 row, cuDNN's
 * included, which gets NCHW), inside the timed call for ours_bf16_mma3_t (an NCHW -> NHWC
 * transpose of the BF16 x through shared memory): the difference of the two rows is its cost.
 * Error bound: the BF16 class's (the same rounded x and w; any summation order). */
#include <stdio.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tensor_core.h"
#include "channels_last.cuh"
#include "gl_check.h"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define TC3_BUILT 1
#else
#define TC3_BUILT 0
#endif

typedef __nv_bfloat16 bf16;
typedef unsigned short u16; /* BF16 bits, moved but not computed on (the layout kernels) */

enum { TC3_BK = 32, TC3_STAGES = 4, TC3_LD = TC3_BK + 8, TC3_CH = TC3_BK / 8 };

/* Shared memory: the pipeline ([STAGES][BM][LD] A, then [STAGES][BN][LD] B), reused for the FP32
 * output tile [BM][BN + 8]. */
template <int BM, int BN> struct tc3_smem {
    enum { A_STAGE = BM * TC3_LD, B_STAGE = BN * TC3_LD, PIPE = TC3_STAGES * (A_STAGE + B_STAGE) * 2,
           OUT = BM * (BN + 8) * 4, BYTES = PIPE > OUT ? PIPE : OUT };
};

#if TC3_BUILT
#include "mma_sync.cuh"

/* One k-tile: the weights (load_w_tile: 16-byte copies, wp rows are R S Cp long) and this thread's
 * chunk (channels kc * 8 .. + 7 of the tile) of the im2col columns of its pixels: 16 bytes at
 * xp[pix_off[j] + (fy Wp + fx) Cp + c], pix_off < 0 for a pixel past N H W; then k moves on by BK. */
template <int BM, int BN, int THREADS>
static __device__ __forceinline__ void tc3_load_tile(const bf16 *xp, const bf16 *wp, bf16 *as, bf16 *bs, int m0,
                                                     int k0, const int (&pix_off)[BN * TC3_CH / THREADS],
                                                     tc3_kpos &kp, const tc3_dims &d, int tid)
{
    enum { PIX_STEP = THREADS / TC3_CH };
    load_w_tile<bf16, BM, TC3_BK, TC3_LD, THREADS, true>(wp, as, m0, k0, d.M, d.K, tid);
    const bool k_in = kp.fy < d.R;
    const int k_off = tc3_kpos_offset(kp, d);
#pragma unroll
    for (int j = 0; j < BN * TC3_CH / THREADS; j++) {
        const bool in = k_in && pix_off[j] >= 0;
        cp_async16(bs + (tid / TC3_CH + PIX_STEP * j) * TC3_LD + tid % TC3_CH * 8, in ? xp + pix_off[j] + k_off : xp,
                   in ? 16 : 0);
    }
    tc3_kpos_advance<TC3_BK>(kp, d);
}
#endif

/* Lesson: the channels-last implicit GEMM, every load a 16-byte cp.async; see the file comment.
 * Block BM x BN, WM x WN warps; blockIdx.z is the K part (split-K: FP32 partial sums to partial). */
template <int BM, int BN, int WM, int WN, int MIN_BLOCKS>
static __global__ void __launch_bounds__(WM *WN * 32, MIN_BLOCKS)
    tc3_conv(const bf16 *xp, const bf16 *wp, bf16 *y, float *partial, tc3_dims d)
{
#if TC3_BUILT
    typedef tc3_smem<BM, BN> L;
    enum { THREADS = WM * WN * 32, MT = BM / WM / 16, NT = BN / WN / 8, PIX = BN * TC3_CH / THREADS };
    static_assert(THREADS % TC3_CH == 0 && PIX * THREADS == BN * TC3_CH && NT % 2 == 0 && THREADS % BN == 0,
                  "tile shape");
    extern __shared__ __align__(16) unsigned char tc3_shared[];
    bf16 *As = (bf16 *)tc3_shared;           /* [STAGES][BM][LD] */
    bf16 *Bs = As + TC3_STAGES * L::A_STAGE; /* [STAGES][BN][LD] */
    const tc_block b = tc_block_at<BM, BN, WM, WN, TC3_BK>(d.K, d.k_chunk);
    const int tid = b.tid, lane = b.lane, wm0 = b.wm0, wn0 = b.wn0, m0 = b.m0, p0 = b.p0, kt0 = b.kt0, nk = b.nk;
    const int hw = d.H * d.W;
    int pix_off[PIX]; /* this thread's pixels tid / CH + (THREADS / CH) j: their top-left tap in xp */
#pragma unroll
    for (int j = 0; j < PIX; j++) pix_off[j] = tc3_pixel_offset(p0 + tid / TC3_CH + THREADS / TC3_CH * j, d);
    tc3_kpos kp = tc3_kpos_at(kt0 * TC3_BK + tid % TC3_CH * 8, d);
#define TC3_LOAD_TILE(i) /* local k-tile i into stage i % STAGES (tiles load in order: kp follows) */ \
    tc3_load_tile<BM, BN, THREADS>(xp, wp, As + (i) % TC3_STAGES * L::A_STAGE, Bs + (i) % TC3_STAGES * L::B_STAGE, \
                                   m0, (kt0 + (i)) * TC3_BK, pix_off, kp, d, tid)
#pragma unroll
    for (int i = 0; i < TC3_STAGES - 1; i++) {
        if (i < nk) TC3_LOAD_TILE(i);
        asm volatile("cp.async.commit_group;\n" ::); /* one group per tile, empty or not */
    }
    float acc[MT][NT][4] = {};
    for (int i = 0; i < nk; i++) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(TC3_STAGES - 2)); /* tile i landed (this thread's) */
        __syncthreads(); /* ... everyone's; and stage (i - 1) % STAGES is free: all finished tile i - 1 */
        if (i + TC3_STAGES - 1 < nk) TC3_LOAD_TILE(i + TC3_STAGES - 1);
        asm volatile("cp.async.commit_group;\n" ::);
        const bf16 *as = As + (i % TC3_STAGES) * L::A_STAGE, *bs = Bs + (i % TC3_STAGES) * L::B_STAGE;
#pragma unroll
        for (int ks = 0; ks < TC3_BK / 16; ks++)
            mma_step_bf16<MT, NT, TC3_LD, TC3_LD, false>(as, bs, ks, wm0, wn0, lane, acc);
    }
#undef TC3_LOAD_TILE
    asm volatile("cp.async.wait_group 0;\n" ::);
    __syncthreads(); /* the pipeline buffers become the output tile */
    store_tile_staged<bf16, BM, BN, THREADS, MT, NT>((float *)As, acc, wm0, wn0, lane, tid, m0, p0 + tid % BN, d.M,
                                                    d.P, hw, d.splits, d.ny, y, partial);
#endif
}

/* TF32 rounding to nearest, ties away from zero (cvt.rna.tf32.f32's rule for finite values, in
 * integer arithmetic so every architecture has it): the 13 bits below TF32's fraction become zero. */
static __device__ __forceinline__ float tf32_rna(float v)
{
    return __uint_as_float((__float_as_uint(v) + 0x1000u) & 0xFFFFE000u);
}

/* x[N][C][H][W] float -> the interior of xp[N][Hp][Wp][Cp] rounded to TF32 (the border and the
 * channels past C stay as the caller zeroed them): a 32 x 32 (channel x column) transpose through
 * shared memory per block, coalesced on both sides. Grid (N H, ceil(C / 32), ceil(W / 32)), block 32 x 8. */
static __global__ void tc3_x_to_nhwc_tf32(const float *x, float *xp, int C, int H, int W, int Cp, int pad_h,
                                          int pad_w)
{
    __shared__ float tile[32][33];
    const int n = blockIdx.x / H, iy = blockIdx.x - n * H, c0 = blockIdx.y * 32, x0 = blockIdx.z * 32;
    const int Hp = H + 2 * pad_h, Wp = W + 2 * pad_w, tx = threadIdx.x;
    for (int j = threadIdx.y; j < 32; j += 8) /* rows: channels, coalesced along the image row */
        if (c0 + j < C && x0 + tx < W) tile[j][tx] = x[((size_t)(n * C + c0 + j) * H + iy) * W + x0 + tx];
    __syncthreads();
    for (int j = threadIdx.y; j < 32; j += 8) /* rows: pixels, coalesced along the channels */
        if (c0 + tx < C && x0 + j < W)
            xp[((size_t)(n * Hp + iy + pad_h) * Wp + x0 + j + pad_w) * Cp + c0 + tx] = tf32_rna(tile[tx][j]);
}

/* w16[M][C][R][S] -> wp[M][R][S][Cp], zero for c >= C (prepare, untimed). */
static __global__ void tc3_w_to_rsc(const u16 *w, u16 *wp, int M, int C, int RS, int Cp)
{
    const size_t n = (size_t)M * RS * Cp;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        const size_t t = i / Cp, m = t / RS;
        const int c = (int)(i - t * Cp), rs = (int)(t - m * RS);
        wp[i] = c < C ? w[(m * C + c) * RS + rs] : (u16)0;
    }
}

/* ---------------- host side ---------------- */

/* The autotuner's configurations (the mma3 rows: the first CNN_TC3_TILES; ours_bf16_wgmma: the
 * first CNN_WGMMA_TILES; ours_bf16_wgmma2: all): tile t is 128 x 128 for t < 3, 128 x 64 for t < 6,
 * split along K into 1 << t % 3 parts; 128 x 256 whole (wgmma only); 128 x 128 with 5 stages
 * whole or split in 2 (wgmma2 only). */
static const char *const TILE_NAMES[CNN_WGMMA2_TILES] = {"128x128", "128x128_k2", "128x128_k4", "128x64", "128x64_k2",
                                                         "128x64_k4", "128x256", "128x128_s5", "128x128_s5_k2"};
static const int TILE_SPLITS[CNN_WGMMA2_TILES] = {1, 2, 4, 1, 2, 4, 1, 1, 2};
static int tile_splits(int tile) { return tile >= 0 && tile < CNN_WGMMA2_TILES ? TILE_SPLITS[tile] : 1; }

extern "C" const char *cnn_tile_name_tc3(int tile)
{
    return tile >= 0 && tile < CNN_TC3_TILES ? TILE_NAMES[tile] : "?";
}

static int padded_c(const cnn_shape *s) { return (s->C + 7) / 8 * 8; }
static size_t xp_count(const cnn_shape *s)
{
    return (size_t)s->N * (s->H + 2 * s->pad_h) * (s->W + 2 * s->pad_w) * padded_c(s);
}
static size_t wp_count(const cnn_shape *s) { return (size_t)s->M * s->R * s->S * padded_c(s); }

/* The workspace: the cnn_bf16_arrays (x16, w16, y16), then xp, wp and the split-K partial sums. */
static void tc3_arrays(const cnn_shape *s, void *workspace, bf16 **xp, bf16 **wp, float **partial)
{
    char *base = (char *)workspace + cnn_bf16_bytes(s);
    *xp = (bf16 *)base;
    *wp = (bf16 *)(base + cnn_align256(xp_count(s) * 2));
    *partial = (float *)(base + cnn_align256(xp_count(s) * 2) + cnn_align256(wp_count(s) * 2));
}

extern "C" size_t cnn_workspace_bf16_mma3(const cnn_shape *s, int tile)
{
    const int splits = tile_splits(tile);
    const size_t partial = splits > 1 ? (size_t)splits * s->N * s->M * s->H * s->W * sizeof(float) : 0;
    return cnn_bf16_bytes(s) + cnn_align256(xp_count(s) * 2) + cnn_align256(wp_count(s) * 2) + partial;
}

/* The wgmma rows' host side (their kernels: 04_wgmma.cu, or the stub without an sm_90a build):
 * mma3's workspace, prepare hook and tiles (plus 128x256; wgmma2 also 128x128 with 5 stages). */
/* Whether the sm_90a objects (04_wgmma.cu, 05_wgmma_tma.cu) are in this build: meson defines
 * CNN_WGMMA_BUILT=1 when 90 is in -Dcuda-arch (else wgmma_stub.c stands in). Decided here, at
 * configure time, so that the sm_90a objects call down into this file and it calls none of them. */
#ifndef CNN_WGMMA_BUILT
#define CNN_WGMMA_BUILT 0
#endif
extern "C" int cnn_wgmma_built(void) { return CNN_WGMMA_BUILT; }

extern "C" size_t cnn_workspace_bf16_wgmma(const cnn_shape *s, int tile) { return cnn_workspace_bf16_mma3(s, tile); }

extern "C" const char *cnn_tile_name_bf16_wgmma(int tile)
{
    return tile >= 0 && tile < CNN_WGMMA_TILES ? TILE_NAMES[tile] : "?";
}

extern "C" const char *cnn_tile_name_bf16_wgmma2(int tile)
{
    return tile >= 0 && tile < CNN_WGMMA2_TILES ? TILE_NAMES[tile] : "?";
}

/* wgmma exists on compute capability 9.0 only, in an sm_90a build only: said once per family of
 * rows (`rows`) where absent (*known: -1 until asked). */
static int wgmma_usable(const char *rows, int *known)
{
    if (*known < 0) {
        int dev, major, minor;
        GL_CHECK(cudaGetDevice(&dev));
        GL_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
        GL_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
        *known = major == 9 && minor == 0 && cnn_wgmma_built();
        if (!*known)
            printf("note: cnn: %s need %s: left out\n", rows,
                   cnn_wgmma_built() ? "a GPU of compute capability 9.0" : "an sm_90a build (90 in -Dcuda-arch)");
    }
    return *known;
}

extern "C" int cnn_supports_bf16_wgmma(const cnn_shape *s)
{
    (void)s;
    static int known = -1;
    return wgmma_usable("ours_bf16_wgmma, ours_bf16_wgmma2 (wgmma)", &known);
}

/* The TMA rows (05_wgmma_tma.cu) take every shape cnn_check accepts (stride 1, odd R x S, padding
 * (R-1)/2): TMA's zero fill covers any C, H, W, M; only the device and the build can rule them out. */
extern "C" int cnn_supports_wgmma_tma(const cnn_shape *s)
{
    (void)s;
    static int known = -1;
    return wgmma_usable("ours_bf16_wgmma_tma, ours_tf32_wgmma_tma (TMA, wgmma)", &known);
}

/* ours_*_tma_nhwc: the TMA rows' GPU, y's channel pairs aligned (M even); TF32: x's pixel stride (C
 * FP32 values) a multiple of 16 bytes as TMA requires (BF16, FP16: padded where not, cnn_nhwc.cu). */
extern "C" int cnn_supports_tma_nhwc(const cnn_shape *s, cnn_nhwc_type t)
{
    return s->M % 2 == 0 && (t != CNN_NHWC_F32 || s->C % 4 == 0) && cnn_supports_wgmma_tma(s);
}
extern "C" int cnn_supports_tma_nhwc_bf16(const cnn_shape *s) { return cnn_supports_tma_nhwc(s, CNN_NHWC_BF16); }
extern "C" int cnn_supports_tma_nhwc_fp16(const cnn_shape *s) { return cnn_supports_tma_nhwc(s, CNN_NHWC_F16); }
extern "C" int cnn_supports_tma_nhwc_tf32(const cnn_shape *s) { return cnn_supports_tma_nhwc(s, CNN_NHWC_F32); }

/* The layout change of x (BF16 NCHW in the workspace -> the interior of xp) on stream st. */
/* The BF16 x's layout change in channel pairs: a 64-channel x 32-column tile per block (block 32 x 8);
 * a warp reads one channel's 32 columns (64 bytes) and writes one pixel's 64 channels as 32 words
 * (128 bytes): half the store instructions of 2-byte elements (Cp is even; pairs past C store the
 * zeros of the padded channels). */
static __global__ void tc3_x_to_nhwc_pairs(const u16 *x, unsigned *xp, int C, int H, int W, int Cp, int pad_h,
                                           int pad_w)
{
    __shared__ u16 tile[64][34];
    const int n = blockIdx.x / H, iy = blockIdx.x - n * H, c0 = blockIdx.y * 64, x0 = blockIdx.z * 32;
    const int Hp = H + 2 * pad_h, Wp = W + 2 * pad_w, tx = threadIdx.x;
    for (int j = threadIdx.y; j < 64; j += 8)
        tile[j][tx] = c0 + j < C && x0 + tx < W ? x[((size_t)(n * C + c0 + j) * H + iy) * W + x0 + tx] : (u16)0;
    __syncthreads();
    for (int j = threadIdx.y; j < 32; j += 8)
        if (c0 + 2 * tx < Cp && x0 + j < W)
            xp[(((size_t)(n * Hp + iy + pad_h) * Wp + x0 + j + pad_w) * Cp + c0) / 2 + tx] =
                tile[2 * tx][j] | (unsigned)tile[2 * tx + 1][j] << 16;
}

static void x_to_nhwc(const cnn_shape *s, const void *x16, bf16 *xp, cudaStream_t st)
{
    dim3 grid(s->N * s->H, (s->C + 63) / 64, (s->W + 31) / 32);
    tc3_x_to_nhwc_pairs<<<grid, dim3(32, 8), 0, st>>>((const u16 *)x16, (unsigned *)xp, s->C, s->H, s->W,
                                                      padded_c(s), s->pad_h, s->pad_w);
    GL_CHECK_LAUNCH();
}

/* x [N][C][H][W] float -> the interior of xp [N][H + 2 ph][W + 2 pw][Cp], rounded to TF32 (the
 * border and the channels past C as the caller left them); w is the same with N = M, H = R, W = S
 * and no border. For the TF32 wgmma rows (05_wgmma_tma.cu). */
void tc3_to_channels_last_tf32(const float *x, float *xp, int N, int C, int H, int W, int Cp, int pad_h, int pad_w,
                               cudaStream_t st)
{
    dim3 grid(N * H, (C + 31) / 32, (W + 31) / 32);
    tc3_x_to_nhwc_tf32<<<grid, dim3(32, 8), 0, st>>>(x, xp, C, H, W, Cp, pad_h, pad_w);
    GL_CHECK_LAUNCH();
}

/* The prepare hooks (cnn_prepare_fn, untimed): x and w rounded to BF16 (cnn_bf16_prepare), xp zeroed
 * (its border and padded channels stay zero), w re-laid out; x too for ours_bf16_mma3. */
static void prepare(const cnn_shape *s, const float *x, const float *w, void *workspace, cudaStream_t st, int with_x)
{
    void *x16, *w16, *y16;
    bf16 *xp, *wp;
    float *partial;
    cnn_bf16_prepare(s, x, w, workspace, st);
    cnn_bf16_arrays(s, workspace, &x16, &w16, &y16);
    tc3_arrays(s, workspace, &xp, &wp, &partial);
    GL_CHECK(cudaMemsetAsync(xp, 0, xp_count(s) * 2, st));
    const size_t nw = wp_count(s);
    tc3_w_to_rsc<<<(unsigned)((nw + 255) / 256 < 4096 ? (nw + 255) / 256 : 4096), 256, 0, st>>>(
        (const u16 *)w16, (u16 *)wp, s->M, s->C, s->R * s->S, padded_c(s));
    GL_CHECK_LAUNCH();
    if (with_x) x_to_nhwc(s, x16, xp, st);
}

extern "C" void cnn_bf16_mma3_prepare(const cnn_shape *s, const float *x, const float *w, void *workspace,
                                      cudaStream_t st)
{
    prepare(s, x, w, workspace, st, 1);
}

extern "C" void cnn_bf16_mma3_t_prepare(const cnn_shape *s, const float *x, const float *w, void *workspace,
                                        cudaStream_t st)
{
    prepare(s, x, w, workspace, st, 0);
}

template <int BM, int BN, int WM, int WN, int MIN_BLOCKS>
static void launch_tc3(const bf16 *xp, const bf16 *wp, bf16 *y, float *partial, const tc3_dims &d, cudaStream_t st)
{
    const int bytes = tc3_smem<BM, BN>::BYTES;
    static int ready;
    tc3_smem_opt_in((const void *)tc3_conv<BM, BN, WM, WN, MIN_BLOCKS>, bytes, &ready);
    dim3 grid((d.P + BN - 1) / BN, (d.M + BM - 1) / BM, d.splits);
    tc3_conv<BM, BN, WM, WN, MIN_BLOCKS><<<grid, WM * WN * 32, bytes, st>>>(xp, wp, y, partial, d);
    GL_CHECK_LAUNCH();
}

/* The convolution on xp and wp (prepared), y16 = BF16 y, then y as float for the check (timed, as
 * in every BF16 row); with timed_x, x's layout change first. */
/* One call's checks, arrays and sizes (tc3_call, channels_last.cuh) for k-tiles of bk and the tile's
 * split-K; CNN_ERR_VARIANT for a tile outside the row's (n_tiles). */
cnn_status tc3_setup(const cnn_launch_args *a, int n_tiles, int bk, tc3_call *c)
{
    const cnn_shape *s = &a->s;
    cnn_status status = cnn_check(s);
    if (status != CNN_OK) return status;
    if (a->tile < 0 || a->tile >= n_tiles) return CNN_ERR_VARIANT;
    if (a->workspace_bytes < cnn_workspace_bf16_mma3(s, a->tile)) return CNN_ERR_SHAPE;
    if ((double)xp_count(s) >= 2147483647.0) return CNN_ERR_SHAPE; /* int offsets into xp */
    void *w16;
    bf16 *xp, *wp;
    cnn_bf16_arrays(s, a->workspace, &c->x16, &w16, &c->y16);
    tc3_arrays(s, a->workspace, &xp, &wp, &c->partial);
    c->xp = xp, c->wp = wp;
    const int splits = tile_splits(a->tile);
    const int Cp = padded_c(s), K = s->R * s->S * Cp, ktiles = (K + bk - 1) / bk;
    c->d = tc3_dims{s->H, s->W, s->M, s->R, s->S, Cp, s->H + 2 * s->pad_h, s->W + 2 * s->pad_w, K,
                    s->N * s->H * s->W, splits, (ktiles + splits - 1) / splits,
                    (long long)s->N * s->M * s->H * s->W};
    return CNN_OK;
}

/* After the convolution kernel: split-K's reduce into y16, then y16 as float (both timed). */
void tc3_finish(const cnn_launch_args *a, const tc3_call &c, cudaStream_t st)
{
    if (c.d.splits > 1) cnn_tc_reduce_bf16(c.partial, c.y16, c.d.ny, c.d.splits, st);
    cnn_bf16_out(a, c.y16, st);
}

void tc3_x_layout(const cnn_launch_args *a, const tc3_call &c, cudaStream_t st)
{
    x_to_nhwc(&a->s, c.x16, (bf16 *)c.xp, st);
}

static cnn_status tc3_forward(const cnn_launch_args *a, int timed_x, cudaStream_t st)
{
    tc3_call c;
    if (!cnn_tc_available()) return CNN_ERR_VARIANT;
    const cnn_status status = tc3_setup(a, CNN_TC3_TILES, TC3_BK, &c);
    if (status != CNN_OK) return status;
    const bf16 *xp = (const bf16 *)c.xp, *wp = (const bf16 *)c.wp;
    if (timed_x) tc3_x_layout(a, c, st);
    if (a->tile < 3) launch_tc3<128, 128, 2, 4, 2>(xp, wp, (bf16 *)c.y16, c.partial, c.d, st);
    else launch_tc3<128, 64, 4, 2, 3>(xp, wp, (bf16 *)c.y16, c.partial, c.d, st);
    tc3_finish(a, c, st);
    return CNN_OK;
}

extern "C" cnn_status cnn_launch_bf16_mma3(const cnn_launch_args *a, cudaStream_t st) { return tc3_forward(a, 0, st); }

extern "C" cnn_status cnn_launch_bf16_mma3_t(const cnn_launch_args *a, cudaStream_t st)
{
    return tc3_forward(a, 1, st);
}
