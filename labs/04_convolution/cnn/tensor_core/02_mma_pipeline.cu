/* 02_mma_pipeline.cu - Lab 04, part 2: the second tensor-core rungs, ours_tf32_mma2 and ours_bf16_mma2
 * (sm_80+).
 *
 * Lesson: ours_tf32_mma and ours_bf16_mma (01_mma_sync.cu) wait on memory: their im2col tile goes
 * global -> registers -> shared with the loads only one tile ahead, and their output leaves the
 * registers scattered. These rungs keep the tensor cores fed the way a GEMM library does:
 *   - a 3-stage ring of shared buffers: the weight tile travels by cp.async (16-byte copies); the
 *     im2col tile by cp.async too in TF32, one element (4 bytes) per copy with zero-fill (src-size
 *     0) for the padding and the tail, so no register staging; in BF16 (2-byte elements: cp.async
 *     has no 2-byte copy) through registers, loaded two tiles ahead and stored after the multiply;
 *     BK = 32 (four TF32 k-steps of m16n8k8, two BF16 ones of m16n8k16, per barrier);
 *   - fragments by ldmatrix: TF32 A by ldmatrix.x4 (an 8 x 4-float matrix is an 8 x 8 b16 one: the
 *     four matrices are exactly a0..a3 of m16n8k8), TF32 B by conflict-free 32-bit loads (row stride
 *     BN + 8), both rounded to TF32 to nearest (cvt.rna) just before the mma as in ours_tf32_mma;
 *     BF16 A by ldmatrix.x4, B by ldmatrix.x4.trans (mma_sync.cuh, as ours_bf16_mma);
 *   - the output staged through shared memory (the pipeline buffers, reused) so each warp stores a
 *     contiguous row segment of y;
 *   - tile shapes and split-K chosen per layer by the autotuner: 128 x 128 (8 warps of 64 x 32,
 *     2 blocks per SM) or 64 x 64 (4 warps of 32 x 32), each whole or split along K into 2 or 4
 *     parts (FP32 partial sums in the workspace, then a reduce kernel in a fixed order:
 *     deterministic) for layers with fewer tiles than SMs (E4: 64 tiles of 128 x 128, 132 SMs).
 * The reduction index k = (c, r, s) is decoded once per tile into a ring of shared tables, one
 * thread per k, STAGES tiles ahead. Error bounds: the TF32 and BF16 classes' (cnn_bounds.c): any
 * summation order, so split-K changes nothing in them; y is rounded to BF16 once, from FP32. */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include "tensor_core.h"
#include "gl_check.h"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define TC2_BUILT 1
#else
#define TC2_BUILT 0
#endif

typedef __nv_bfloat16 bf16;

enum { TC2_BK = 32, TC2_STAGES = 3 };

typedef struct {
    int C, H, W, M, R, S, pad_h, pad_w, K, P; /* K = C R S, P = N H W */
    int splits, k_chunk;                      /* split-K: parts, k-tiles per part */
    long long ny;                             /* N M H W: one partial's size in the workspace */
} tc2_dims;

/* Shared memory of one block: the k-decode ring, then the pipeline of T tiles (reused for the FP32
 * output tile). Row strides (elements): A BK + 16 bytes, B BN + 8, output BN + 8: no bank conflicts
 * for ldmatrix, the 32-bit B loads and the float2 output stores. */
template <typename T, int BM, int BN> struct tc2_smem {
    enum { ALD = TC2_BK + 16 / (int)sizeof(T), BLD = BN + 8, CLD = BN + 8, A_STAGE = BM * ALD,
           B_STAGE = TC2_BK * BLD, PIPE_BYTES = TC2_STAGES * (A_STAGE + B_STAGE) * (int)sizeof(T),
           OUT_BYTES = BM * CLD * 4, KDEC_BYTES = (TC2_STAGES + 1) * TC2_BK * 16,
           BYTES = KDEC_BYTES + (PIPE_BYTES > OUT_BYTES ? PIPE_BYTES : OUT_BYTES) };
};

#if TC2_BUILT
#include "mma_sync.cuh"

/* cp.async of 4 bytes with zero-fill: copies src_bytes (4 or 0) and zeroes the rest. */
static __device__ __forceinline__ void cp_async4(void *dst, const void *src, int src_bytes)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_u32(dst)), "l"(src), "r"(src_bytes));
}

/* One k-tile: the weights (load_w_tile) and the im2col tile, whose element (k, column pix.w) is
 * x[pix.x + kd[k].x] when its pixel (pix.y + dy, pix.z + dx) is inside the image, else zero. This
 * thread takes column pix.w, rows tid / BN + (THREADS / BN) j: TF32 by cp.async into bs, BF16 into
 * reg, two per register (tc2_store_b puts them into bs after the current multiply). */
template <typename T, int BM, int BN, int THREADS, bool VEC>
static __device__ __forceinline__ void tc2_load_tile(const T *x, const T *w, T *as, T *bs, const int4 *kd, int m0,
                                                     int k0, int4 pix, const tc2_dims &d, int tid,
                                                     unsigned (&reg)[TC2_BK * BN / THREADS / 2])
{
    enum { ROWS = THREADS / BN, BLD = tc2_smem<T, BM, BN>::BLD };
    load_w_tile<T, BM, TC2_BK, tc2_smem<T, BM, BN>::ALD, THREADS, VEC>(w, as, m0, k0, d.M, d.K, tid);
#pragma unroll
    for (int j = 0; j < TC2_BK / ROWS; j++) {
        const int row = tid / BN + ROWS * j;
        const int4 e = kd[row];
        const int iy = pix.y + e.y, ix = pix.z + e.z;
        const bool in = (unsigned)iy < (unsigned)d.H && (unsigned)ix < (unsigned)d.W;
        if constexpr (sizeof(T) == 4) {
            cp_async4(bs + row * BLD + pix.w, in ? x + pix.x + e.x : x, in ? 4 : 0);
        } else {
            const unsigned v = in ? __bfloat16_as_ushort(x[pix.x + e.x]) : 0u;
            reg[j / 2] = j % 2 ? reg[j / 2] | v << 16 : v;
        }
    }
}

template <typename T, int BM, int BN, int THREADS>
static __device__ __forceinline__ void tc2_store_b(T *bs, int tid, const unsigned (&reg)[TC2_BK * BN / THREADS / 2])
{
    enum { ROWS = THREADS / BN, BLD = tc2_smem<T, BM, BN>::BLD };
    if constexpr (sizeof(T) == 2)
#pragma unroll
        for (int j = 0; j < TC2_BK / ROWS; j++)
            bs[(tid / BN + ROWS * j) * BLD + tid % BN] =
                __ushort_as_bfloat16((unsigned short)(reg[j / 2] >> 16 * (j % 2)));
}

/* One k-step of the warp's MT x NT tiles. TF32: A by ldmatrix, B by 32-bit loads, both rounded. */
template <typename T, int MT, int NT, int ALD, int BLD>
static __device__ __forceinline__ void tc2_mma_step(const T *as, const T *bs, int ks, int wm0, int wn0, int lane,
                                                    float (&acc)[MT][NT][4])
{
    if constexpr (sizeof(T) == 2) {
        mma_step_bf16<MT, NT, ALD, BLD>(as, bs, ks, wm0, wn0, lane, acc);
    } else {
        const int g = lane >> 2, t = lane & 3;
        unsigned a[MT][4], b[NT][2];
#pragma unroll
        for (int mi = 0; mi < MT; mi++) { /* matrices: rows 0-7 | 8-15, columns 0-3 | 4-7 */
            ldmatrix_x4(a[mi], as + (wm0 + mi * 16 + (lane & 7) + ((lane >> 3) & 1) * 8) * ALD + ks * 8 +
                                   (lane >> 4) * 4);
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
#endif

/* Lesson: the tensor-core implicit GEMM with a multi-stage pipeline; see the file comment. Block
 * BM x BN, WM x WN warps; blockIdx.z is the K part (split-K: its FP32 partial sums go to partial). */
template <typename T, int BM, int BN, int WM, int WN, int MIN_BLOCKS, bool VEC>
static __global__ void __launch_bounds__(WM *WN * 32, MIN_BLOCKS)
    tc2_conv(const T *x, const T *w, T *y, float *partial, tc2_dims d)
{
#if TC2_BUILT
    typedef tc2_smem<T, BM, BN> L;
    enum { THREADS = WM * WN * 32, MT = BM / WM / 16, NT = BN / WN / 8, ROWS = THREADS / BN,
           KSTEP = 32 / (int)sizeof(T) };
    static_assert(THREADS % BN == 0 && TC2_BK % ROWS == 0 && THREADS >= TC2_BK && NT % 2 == 0, "tile shape");
    extern __shared__ __align__(16) unsigned char tc2_shared[];
    int4 *kdec = (int4 *)tc2_shared;                  /* [STAGES + 1][BK] */
    T *As = (T *)(tc2_shared + L::KDEC_BYTES);        /* [STAGES][BM][ALD] */
    T *Bs = As + TC2_STAGES * L::A_STAGE;             /* [STAGES][BK][BLD] */
    const tc_block b = tc_block_at<BM, BN, WM, WN, TC2_BK>(d.K, d.k_chunk);
    const int tid = b.tid, lane = b.lane, wm0 = b.wm0, wn0 = b.wn0, m0 = b.m0, p0 = b.p0, kt0 = b.kt0, nk = b.nk;
    const int hw = d.H * d.W;
    /* This thread's im2col column (fixed; its pixel). */
    const int col = tid % BN, p = p0 + col;
    const int n = p / hw, q = p - n * hw;
    const int pix_base = p < d.P ? n * d.C * hw + q : 0, pix_y = p < d.P ? q / d.W : -(1 << 20), pix_x = q % d.W;
    const int4 pix = make_int4(pix_base, pix_y, pix_x, col);
    unsigned breg[TC2_BK * BN / THREADS / 2]; /* BF16: the im2col tile on its way to shared memory */
#define TC2_LOAD_TILE(i) /* local k-tile i into stage i % STAGES (its decode: slot i % (STAGES + 1)) */ \
    tc2_load_tile<T, BM, BN, THREADS, VEC>(x, w, As + (i) % TC2_STAGES * L::A_STAGE,                    \
                                           Bs + (i) % TC2_STAGES * L::B_STAGE,                          \
                                           kdec + (i) % (TC2_STAGES + 1) * TC2_BK, m0,                  \
                                           (kt0 + (i)) * TC2_BK, pix, d, tid, breg)
    if (tid < TC2_BK)
        for (int i = 0; i < TC2_STAGES; i++) kdec[i * TC2_BK + tid] = decode_k((kt0 + i) * TC2_BK + tid, d);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < TC2_STAGES - 1; i++) {
        if (i < nk) {
            TC2_LOAD_TILE(i);
            tc2_store_b<T, BM, BN, THREADS>(Bs + i * L::B_STAGE, tid, breg);
        }
        asm volatile("cp.async.commit_group;\n" ::); /* one group per tile, empty or not */
    }
    float acc[MT][NT][4] = {};
    for (int i = 0; i < nk; i++) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(TC2_STAGES - 2)); /* tile i landed (this thread's) */
        __syncthreads(); /* ... everyone's; and stage (i - 1) % STAGES is free: all finished tile i - 1 */
        const bool ahead = i + TC2_STAGES - 1 < nk;
        if (ahead) TC2_LOAD_TILE(i + TC2_STAGES - 1);
        asm volatile("cp.async.commit_group;\n" ::);
        if (tid < TC2_BK && i + TC2_STAGES < nk) /* slot of tile i - 1, read before the barrier above */
            kdec[(i + TC2_STAGES) % (TC2_STAGES + 1) * TC2_BK + tid] =
                decode_k((kt0 + i + TC2_STAGES) * TC2_BK + tid, d);
        const T *as = As + (i % TC2_STAGES) * L::A_STAGE, *bs = Bs + (i % TC2_STAGES) * L::B_STAGE;
#pragma unroll
        for (int ks = 0; ks < TC2_BK / KSTEP; ks++)
            tc2_mma_step<T, MT, NT, L::ALD, L::BLD>(as, bs, ks, wm0, wn0, lane, acc);
        if (ahead) /* BF16: the registers of tile i + STAGES - 1 into its (free) stage */
            tc2_store_b<T, BM, BN, THREADS>(Bs + (i + TC2_STAGES - 1) % TC2_STAGES * L::B_STAGE, tid, breg);
    }
#undef TC2_LOAD_TILE
    asm volatile("cp.async.wait_group 0;\n" ::);
    __syncthreads(); /* the pipeline buffers become the output tile */
    store_tile_staged<T, BM, BN, THREADS, MT, NT>((float *)As, acc, wm0, wn0, lane, tid, m0, p, d.M, d.P, hw, d.splits,
                                                 d.ny, y, partial);
#endif
}

/* Split-K's second pass: y = the sum of the parts' partial sums, in part order (deterministic). */
template <typename T>
static __global__ void tc2_reduce(const float *partial, T *y, long long ny, int splits)
{
#if TC2_BUILT
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < ny; i += step) {
        float s = partial[i];
        for (int z = 1; z < splits; z++) s += partial[z * ny + i];
        store_out(y, (size_t)i, s);
    }
#endif
}

/* ---------------- host side ---------------- */

/* The autotuner's configurations: block tile and split-K parts (both rows, CNN_TC2_TILES). */
typedef struct {
    const char *name;
    int big, splits; /* big: 128 x 128 (8 warps), else 64 x 64 (4 warps) */
} tc2_tile;
static const tc2_tile TILES[CNN_TC2_TILES] = {
    {"128x128", 1, 1}, {"128x128_k2", 1, 2}, {"128x128_k4", 1, 4},
    {"64x64", 0, 1},   {"64x64_k2", 0, 2},   {"64x64_k4", 0, 4},
};

extern "C" const char *cnn_tile_name_tc2(int tile)
{
    return tile >= 0 && tile < CNN_TC2_TILES ? TILES[tile].name : "?";
}

/* The split-K partial sums (FP32, one y per part); none without split-K. */
static size_t partial_bytes(const cnn_shape *s, int tile)
{
    const int splits = tile >= 0 && tile < CNN_TC2_TILES ? TILES[tile].splits : 1;
    return splits > 1 ? (size_t)splits * s->N * s->M * s->H * s->W * sizeof(float) : 0;
}

extern "C" size_t cnn_workspace_tf32_mma2(const cnn_shape *s, int tile) { return partial_bytes(s, tile); }

/* BF16: x, w and y in BF16 first (cnn_bf16_arrays), the partial sums after them. */
extern "C" size_t cnn_workspace_bf16_mma2(const cnn_shape *s, int tile)
{
    return cnn_bf16_bytes(s) + partial_bytes(s, tile);
}

template <typename T, int BM, int BN, int WM, int WN, int MIN_BLOCKS, bool VEC>
static void launch_tc2(const T *x, const T *w, T *y, float *partial, const tc2_dims &d, cudaStream_t st)
{
    const int bytes = tc2_smem<T, BM, BN>::BYTES;
    static int ready; /* the opt-in above 48 KiB, once per kernel (before any graph capture: the check runs first) */
    if (!ready) {
        GL_CHECK(cudaFuncSetAttribute(tc2_conv<T, BM, BN, WM, WN, MIN_BLOCKS, VEC>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
        ready = 1;
    }
    dim3 grid((d.P + BN - 1) / BN, (d.M + BM - 1) / BM, d.splits);
    tc2_conv<T, BM, BN, WM, WN, MIN_BLOCKS, VEC><<<grid, WM * WN * 32, bytes, st>>>(x, w, y, partial, d);
    GL_CHECK_LAUNCH();
}

template <typename T, int BM, int BN, int WM, int WN, int MIN_BLOCKS>
static void launch_shape(const T *x, const T *w, T *y, float *partial, const tc2_dims &d, cudaStream_t st)
{
    if (d.K % (16 / (int)sizeof(T)) == 0) launch_tc2<T, BM, BN, WM, WN, MIN_BLOCKS, true>(x, w, y, partial, d, st);
    else launch_tc2<T, BM, BN, WM, WN, MIN_BLOCKS, false>(x, w, y, partial, d, st);
}

/* Split-K's second pass on stream st: y = the sum of the parts (tc2_reduce). */
template <typename T> static void reduce_parts(const float *partial, T *y, long long ny, int splits, cudaStream_t st)
{
    const long long blocks = (ny + 255) / 256;
    tc2_reduce<T><<<(unsigned)(blocks < 4096 ? blocks : 4096), 256, 0, st>>>(partial, y, ny, splits);
    GL_CHECK_LAUNCH();
}

extern "C" void cnn_tc_reduce_bf16(const float *partial, void *y16, long long ny, int splits, cudaStream_t st)
{
    reduce_parts<bf16>(partial, (bf16 *)y16, ny, splits, st);
}

/* y = conv(x, w) on the tile configuration `tile`, the split-K partial sums in `partial`. */
template <typename T>
static cnn_status tc2_forward(const T *x, const T *w, T *y, float *partial, const cnn_shape *s, int tile,
                              cudaStream_t st)
{
    cnn_status status = cnn_check(s);
    if (status != CNN_OK) return status;
    if (!cnn_tc_available() || tile < 0 || tile >= CNN_TC2_TILES) return CNN_ERR_VARIANT;
    if ((double)s->N * s->C * s->H * s->W >= 2147483647.0) return CNN_ERR_SHAPE; /* int offsets into x */
    const tc2_tile *tl = &TILES[tile];
    const int K = s->C * s->R * s->S, ktiles = (K + TC2_BK - 1) / TC2_BK;
    tc2_dims d = {s->C, s->H, s->W, s->M, s->R, s->S, s->pad_h, s->pad_w, K, s->N * s->H * s->W,
                  tl->splits, (ktiles + tl->splits - 1) / tl->splits, (long long)s->N * s->M * s->H * s->W};
    if (tl->big) launch_shape<T, 128, 128, 2, 4, 2>(x, w, y, partial, d, st);
    else launch_shape<T, 64, 64, 2, 2, 3>(x, w, y, partial, d, st);
    if (tl->splits > 1) reduce_parts<T>(partial, y, d.ny, tl->splits, st);
    return CNN_OK;
}

extern "C" cnn_status cnn_launch_tf32_mma2(const cnn_launch_args *a, cudaStream_t st)
{
    if (a->workspace_bytes < cnn_workspace_tf32_mma2(&a->s, a->tile)) return CNN_ERR_SHAPE;
    return tc2_forward<float>(a->x, a->w, a->y, (float *)a->workspace, &a->s, a->tile, st);
}

/* The BF16 product on the BF16 x and w that cnn_bf16_prepare left in the workspace, y written as
 * BF16 and converted to float for the check (timed, as in ours_bf16_mma and cudnn_bf16). */
extern "C" cnn_status cnn_launch_bf16_mma2(const cnn_launch_args *a, cudaStream_t st)
{
    if (a->workspace_bytes < cnn_workspace_bf16_mma2(&a->s, a->tile)) return CNN_ERR_SHAPE;
    void *x16, *w16, *y16;
    cnn_bf16_arrays(&a->s, a->workspace, &x16, &w16, &y16);
    float *partial = (float *)((char *)a->workspace + cnn_bf16_bytes(&a->s));
    cnn_status r = tc2_forward<bf16>((const bf16 *)x16, (const bf16 *)w16, (bf16 *)y16, partial, &a->s, a->tile, st);
    if (r == CNN_OK) cnn_bf16_out(a, y16, st);
    return r;
}
