/* cnn_tc2.cu - Lab 04, part 2: the second TF32 tensor-core rung, ours_tf32_mma2 (sm_80+).
 *
 * Lesson: ours_tf32_mma (cnn_tc.cu) waits on memory: its im2col tile goes global -> registers ->
 * shared with the loads only one tile ahead, and its output leaves the registers scattered. This
 * rung keeps the tensor cores fed the way a GEMM library does:
 *   - both tiles travel by cp.async through a 3-stage ring of shared buffers: the weight tile in
 *     16-byte copies, the im2col tile one element (4 bytes) per copy with zero-fill (src-size 0)
 *     for the padding and the tail, so no register staging and two tiles in flight during each
 *     multiply; BK = 32 (four k-steps of m16n8k8 per barrier);
 *   - A fragments by ldmatrix.x4 (an 8 x 4-float matrix is an 8 x 8 b16 one: the four matrices are
 *     exactly a0..a3 of m16n8k8), B fragments by conflict-free 32-bit loads (row stride BN + 8);
 *     both rounded to TF32 to nearest (cvt.rna) just before the mma, as in ours_tf32_mma;
 *   - the output staged through shared memory (the pipeline buffers, reused) so each warp stores
 *     128 contiguous bytes of a row of y;
 *   - tile shapes and split-K chosen per layer by the autotuner: 128 x 128 (8 warps of 64 x 32,
 *     2 blocks per SM) or 64 x 64 (4 warps of 32 x 32), each whole or split along K into 2 or 4
 *     parts (partial sums in the workspace, then a reduce kernel in a fixed order: deterministic)
 *     for layers with fewer tiles than SMs (E4: 64 tiles of 128 x 128 for 132 SMs).
 * The reduction index k = (c, r, s) is decoded once per tile into a ring of shared tables, one
 * thread per k, STAGES tiles ahead. Error bound: the TF32 class's (cnn_bounds.c): any summation
 * order, so split-K changes nothing in it. */
#include <cuda_runtime.h>
#include "cnn_tc.h"
#include "gl_check.h"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define TC2_BUILT 1
#else
#define TC2_BUILT 0
#endif

enum { TC2_BK = 32, TC2_STAGES = 3, TC2_ALD = TC2_BK + 4 };

typedef struct {
    int C, H, W, M, R, S, pad_h, pad_w, K, P; /* K = C R S, P = N H W */
    int splits, k_chunk;                      /* split-K: parts, k-tiles per part */
    long long ny;                             /* N M H W: one partial's size in the workspace */
} tc2_dims;

/* Shared memory of one block: the k-decode ring, then the pipeline (reused for the output). */
template <int BM, int BN> struct tc2_smem {
    enum { BLD = BN + 8, CLD = BN + 8, A_STAGE = BM * TC2_ALD, B_STAGE = TC2_BK * BLD,
           PIPE = TC2_STAGES * (A_STAGE + B_STAGE), OUT = BM * CLD, FLOATS = PIPE > OUT ? PIPE : OUT,
           KDEC_BYTES = (TC2_STAGES + 1) * TC2_BK * 16, BYTES = KDEC_BYTES + FLOATS * 4 };
};

#if TC2_BUILT
#include "cnn_tc_mma.cuh"

/* cp.async of `bytes` (4 or 16) with zero-fill: copies src_bytes (bytes or 0) and zeroes the rest. */
static __device__ __forceinline__ void cp_async4(void *dst, const void *src, int src_bytes)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_u32(dst)), "l"(src),
                 "r"(src_bytes));
}

static __device__ __forceinline__ void cp_async16(void *dst, const void *src, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(dst)), "l"(src),
                 "r"(src_bytes));
}

/* k -> (x offset c H W + dy W + dx, dy, dx); k >= K gets a dy outside every image (loads zero). */
static __device__ __forceinline__ int4 tc2_decode_k(int k, const tc2_dims &d)
{
    const int rs = d.R * d.S, c = k / rs, r = k - c * rs, fy = r / d.S, fx = r - fy * d.S;
    if (k >= d.K) return make_int4(0, -(1 << 20), 0, 0);
    const int dy = fy - d.pad_h, dx = fx - d.pad_w;
    return make_int4(c * d.H * d.W + dy * d.W + dx, dy, dx, 0);
}

/* The weight tile (rows m0.., columns k0..) into As: 16-byte copies when K % 4 == 0 (VEC), else
 * one element per copy; zero-filled outside W. */
template <int BM, int THREADS, bool VEC>
static __device__ __forceinline__ void tc2_load_a(const float *w, float *As, int m0, int k0, const tc2_dims &d,
                                                  int tid)
{
    enum { CH = TC2_BK / 4 };
#pragma unroll
    for (int f = tid; f < BM * CH; f += THREADS) {
        const int row = f / CH, kk = f % CH * 4, m = m0 + row, k = k0 + kk;
        float *dst = As + row * TC2_ALD + kk;
        if (VEC) {
            const bool in = m < d.M && k < d.K;
            cp_async16(dst, in ? w + (size_t)m * d.K + k : w, in ? 16 : 0);
        } else {
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const bool in = m < d.M && k + e < d.K;
                cp_async4(dst + e, in ? w + (size_t)m * d.K + k + e : w, in ? 4 : 0);
            }
        }
    }
}

/* One k-tile: the weights (tc2_load_a) and the im2col tile, whose element (k, column pix.w) is
 * x[pix.x + kd[k].x] when its pixel (pix.y + dy, pix.z + dx) is inside the image, else zero. This
 * thread copies column pix.w, rows tid / BN + (THREADS / BN) j. */
template <int BM, int BN, int THREADS, bool VEC>
static __device__ __forceinline__ void tc2_load_tile(const float *x, const float *w, float *as, float *bs,
                                                     const int4 *kd, int m0, int k0, int4 pix, const tc2_dims &d,
                                                     int tid)
{
    enum { ROWS = THREADS / BN, BLD = tc2_smem<BM, BN>::BLD };
    tc2_load_a<BM, THREADS, VEC>(w, as, m0, k0, d, tid);
#pragma unroll
    for (int j = 0; j < TC2_BK / ROWS; j++) {
        const int row = tid / BN + ROWS * j;
        const int4 e = kd[row];
        const int iy = pix.y + e.y, ix = pix.z + e.z;
        const bool in = (unsigned)iy < (unsigned)d.H && (unsigned)ix < (unsigned)d.W;
        cp_async4(bs + row * BLD + pix.w, in ? x + pix.x + e.x : x, in ? 4 : 0);
    }
}
#endif

/* Lesson: the tensor-core implicit GEMM with a cp.async pipeline for both operands; see the file
 * comment. Block BM x BN, WM x WN warps; blockIdx.z is the K part (split-K). */
template <int BM, int BN, int WM, int WN, int MIN_BLOCKS, bool VEC>
static __global__ void __launch_bounds__(WM *WN * 32, MIN_BLOCKS)
    tc2_conv(const float *x, const float *w, float *y, float *partial, tc2_dims d)
{
#if TC2_BUILT
    typedef tc2_smem<BM, BN> L;
    enum { THREADS = WM * WN * 32, MT = BM / WM / 16, NT = BN / WN / 8, ROWS = THREADS / BN,
           BLD = L::BLD, CLD = L::CLD };
    static_assert(THREADS % BN == 0 && TC2_BK % ROWS == 0 && THREADS >= TC2_BK, "tile shape");
    extern __shared__ __align__(16) unsigned char tc2_shared[];
    int4 *kdec = (int4 *)tc2_shared;                         /* [STAGES + 1][BK] */
    float *As = (float *)(tc2_shared + L::KDEC_BYTES);       /* [STAGES][BM][ALD] */
    float *Bs = As + TC2_STAGES * L::A_STAGE;                /* [STAGES][BK][BLD] */
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, g = lane >> 2, t = lane & 3;
    const int wm0 = (warp / WN) * (BM / WM), wn0 = (warp % WN) * (BN / WN);
    const int m0 = blockIdx.y * BM, p0 = blockIdx.x * BN, hw = d.H * d.W;
    const int ktiles = (d.K + TC2_BK - 1) / TC2_BK, kt0 = blockIdx.z * d.k_chunk;
    const int nk = min(d.k_chunk, ktiles - kt0); /* may be <= 0 for the last part: it stores zeros */
    /* This thread's im2col column (fixed; its pixel) and output rows row0 + ROWS j. */
    const int col = tid % BN, row0 = tid / BN, p = p0 + col;
    const int n = p / hw, q = p - n * hw;
    const int pix_base = p < d.P ? n * d.C * hw + q : 0, pix_y = p < d.P ? q / d.W : -(1 << 20), pix_x = q % d.W;
    const int4 pix = make_int4(pix_base, pix_y, pix_x, col);
#define TC2_LOAD_TILE(i) /* local k-tile i into stage i % STAGES (its decode: slot i % (STAGES + 1)) */        \
    tc2_load_tile<BM, BN, THREADS, VEC>(x, w, As + (i) % TC2_STAGES * L::A_STAGE, Bs + (i) % TC2_STAGES * L::B_STAGE, \
                                        kdec + (i) % (TC2_STAGES + 1) * TC2_BK, m0, (kt0 + (i)) * TC2_BK, pix, d, tid)
    if (tid < TC2_BK)
        for (int i = 0; i < TC2_STAGES; i++) kdec[i * TC2_BK + tid] = tc2_decode_k((kt0 + i) * TC2_BK + tid, d);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < TC2_STAGES - 1; i++) {
        if (i < nk) TC2_LOAD_TILE(i);
        asm volatile("cp.async.commit_group;\n" ::); /* one group per tile, empty or not */
    }
    float acc[MT][NT][4] = {};
    for (int i = 0; i < nk; i++) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(TC2_STAGES - 2)); /* tile i landed (this thread's) */
        __syncthreads(); /* ... everyone's; and stage (i - 1) % STAGES is free: all finished tile i - 1 */
        if (i + TC2_STAGES - 1 < nk) TC2_LOAD_TILE(i + TC2_STAGES - 1);
        asm volatile("cp.async.commit_group;\n" ::);
        if (tid < TC2_BK && i + TC2_STAGES < nk) /* slot of tile i - 1, read before the barrier above */
            kdec[(i + TC2_STAGES) % (TC2_STAGES + 1) * TC2_BK + tid] =
                tc2_decode_k((kt0 + i + TC2_STAGES) * TC2_BK + tid, d);
        const float *as = As + (i % TC2_STAGES) * L::A_STAGE, *bs = Bs + (i % TC2_STAGES) * L::B_STAGE;
#pragma unroll
        for (int ks = 0; ks < TC2_BK / 8; ks++) {
            unsigned a[MT][4], b[NT][2];
#pragma unroll
            for (int mi = 0; mi < MT; mi++) { /* matrices: rows 0-7 | 8-15, columns 0-3 | 4-7 */
                const float *pa = as + (wm0 + mi * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * TC2_ALD + ks * 8 +
                                  (lane >> 4) * 4;
                ldmatrix_x4(a[mi], pa);
#pragma unroll
                for (int e = 0; e < 4; e++) a[mi][e] = __float_as_uint(to_tf32(__uint_as_float(a[mi][e])));
            }
#pragma unroll
            for (int nj = 0; nj < NT; nj++) {
                const float *pb = bs + (ks * 8 + t) * BLD + wn0 + nj * 8 + g;
                b[nj][0] = __float_as_uint(to_tf32(pb[0]));
                b[nj][1] = __float_as_uint(to_tf32(pb[4 * BLD]));
            }
#pragma unroll
            for (int mi = 0; mi < MT; mi++)
#pragma unroll
                for (int nj = 0; nj < NT; nj++) mma_tf32(acc[mi][nj], a[mi], b[nj]);
        }
    }
#undef TC2_LOAD_TILE
    asm volatile("cp.async.wait_group 0;\n" ::);
    __syncthreads(); /* the pipeline buffers become the output tile */
    float *Cs = As;  /* [BM][CLD] */
#pragma unroll
    for (int mi = 0; mi < MT; mi++) /* accumulator (mi, nj, e): row g (+8 for e >= 2), columns 2t, 2t + 1 */
#pragma unroll
        for (int nj = 0; nj < NT; nj++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                *(float2 *)&Cs[(wm0 + mi * 16 + g + 8 * h) * CLD + wn0 + nj * 8 + 2 * t] =
                    make_float2(acc[mi][nj][2 * h], acc[mi][nj][2 * h + 1]);
    __syncthreads();
    if (p >= d.P) return;
    float *out = d.splits > 1 ? partial + blockIdx.z * d.ny : y; /* this part's partial sums, or y */
    const size_t at = (size_t)n * d.M * hw + q; /* y[n][0][q] */
    for (int r = row0; r < BM && m0 + r < d.M; r += ROWS) /* a warp: 32 consecutive pixels of one row */
        out[at + (size_t)(m0 + r) * hw] = Cs[r * CLD + col];
#endif
}

/* Split-K's second pass: y = the sum of the parts' partial sums, in part order (deterministic). */
static __global__ void tc2_reduce(const float *partial, float *y, long long ny, int splits)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < ny; i += (long long)gridDim.x * blockDim.x) {
        float s = partial[i];
        for (int z = 1; z < splits; z++) s += partial[z * ny + i];
        y[i] = s;
    }
}

/* ---------------- host side ---------------- */

/* The autotuner's configurations: block tile and split-K parts. */
typedef struct {
    const char *name;
    int big, splits; /* big: 128 x 128 (8 warps), else 64 x 64 (4 warps) */
} tc2_tile;
static const tc2_tile TILES[CNN_TF32_MMA2_TILES] = {
    {"128x128", 1, 1}, {"128x128_k2", 1, 2}, {"128x128_k4", 1, 4},
    {"64x64", 0, 1},   {"64x64_k2", 0, 2},   {"64x64_k4", 0, 4},
};

extern "C" const char *cnn_tile_name_tf32_mma2(int tile)
{
    return tile >= 0 && tile < CNN_TF32_MMA2_TILES ? TILES[tile].name : "?";
}

extern "C" size_t cnn_workspace_tf32_mma2(const cnn_shape *s, int tile)
{
    const int splits = tile >= 0 && tile < CNN_TF32_MMA2_TILES ? TILES[tile].splits : 1;
    return splits > 1 ? (size_t)splits * s->N * s->M * s->H * s->W * sizeof(float) : 0;
}

template <int BM, int BN, int WM, int WN, int MIN_BLOCKS, bool VEC>
static void launch_tc2(const float *x, const float *w, float *y, float *partial, const tc2_dims &d, cudaStream_t st)
{
    const int bytes = tc2_smem<BM, BN>::BYTES;
    static int ready; /* the opt-in above 48 KiB, once per kernel (before any graph capture: the check runs first) */
    if (!ready) {
        GL_CHECK(cudaFuncSetAttribute(tc2_conv<BM, BN, WM, WN, MIN_BLOCKS, VEC>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
        ready = 1;
    }
    dim3 grid((d.P + BN - 1) / BN, (d.M + BM - 1) / BM, d.splits);
    tc2_conv<BM, BN, WM, WN, MIN_BLOCKS, VEC><<<grid, WM * WN * 32, bytes, st>>>(x, w, y, partial, d);
    GL_CHECK_LAUNCH();
}

template <int BM, int BN, int WM, int WN, int MIN_BLOCKS>
static void launch_shape(const float *x, const float *w, float *y, float *partial, const tc2_dims &d, cudaStream_t st)
{
    if (d.K % 4 == 0) launch_tc2<BM, BN, WM, WN, MIN_BLOCKS, true>(x, w, y, partial, d, st);
    else launch_tc2<BM, BN, WM, WN, MIN_BLOCKS, false>(x, w, y, partial, d, st);
}

extern "C" cnn_status cnn_launch_tf32_mma2(const cnn_launch_args *a, cudaStream_t st)
{
    const cnn_shape *s = &a->s;
    cnn_status status = cnn_check(s);
    if (status != CNN_OK) return status;
    if (!cnn_tc_available() || a->tile < 0 || a->tile >= CNN_TF32_MMA2_TILES) return CNN_ERR_VARIANT;
    /* int offsets into x inside the kernel */
    if ((double)s->N * s->C * s->H * s->W >= 2147483647.0) return CNN_ERR_SHAPE;
    if (a->workspace_bytes < cnn_workspace_tf32_mma2(s, a->tile)) return CNN_ERR_SHAPE;
    const tc2_tile *tl = &TILES[a->tile];
    const int K = s->C * s->R * s->S, ktiles = (K + TC2_BK - 1) / TC2_BK;
    tc2_dims d = {s->C, s->H, s->W, s->M, s->R, s->S, s->pad_h, s->pad_w, K, s->N * s->H * s->W,
                  tl->splits, (ktiles + tl->splits - 1) / tl->splits, (long long)s->N * s->M * s->H * s->W};
    float *partial = (float *)a->workspace;
    if (tl->big) launch_shape<128, 128, 2, 4, 2>(a->x, a->w, a->y, partial, d, st);
    else launch_shape<64, 64, 2, 2, 3>(a->x, a->w, a->y, partial, d, st);
    if (tl->splits > 1) {
        const long long blocks = (d.ny + 255) / 256;
        tc2_reduce<<<(unsigned)(blocks < 4096 ? blocks : 4096), 256, 0, st>>>(partial, a->y, d.ny, tl->splits);
        GL_CHECK_LAUNCH();
    }
    return CNN_OK;
}
