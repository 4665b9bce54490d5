/* 01_implicit_gemm.cu - Lab 04, part 2: multi-channel convolution kernels (NCHW float, stride 1, "same" padding).
 *
 *   split  the seed's two kernels (cuConv): scalar_prods computes, for every output pixel, filter and
 *          tap, the dot product over the C channels into a partial map; sum_partials adds the R x S
 *          partial maps. Every partial product travels through DRAM between the two kernels.
 *   fused  the seed's fused kernel: per tap, the block stages that tap's C weights in shared memory
 *          and every thread accumulates over the channels in a register: no partial maps.
 *   ours1  an implicit GEMM: Y[M][N*H*W] = W[M][C*R*S] x im2col(X), the im2col columns built on the
 *          fly while loading shared-memory tiles (64 x 64 outputs per block, 4 x 4 per thread), and
 *          split-K across blocks when the layer has too few outputs to fill the GPU. FP32 FFMA only.
 * The higher rungs of the ours ladder are in 02_06_block_tiles.cu. */
#include "cnn.h"
#include "gl_check.h"
#include "gl_clock.cuh"

#define THREADS 256

typedef struct {
    int N, C, H, W, M, R, S, pad_h, pad_w;
} dims;

static dims dims_of(const cnn_shape *s)
{
    dims d = {s->N, s->C, s->H, s->W, s->M, s->R, s->S, s->pad_h, s->pad_w};
    return d;
}

/* ---------------- split (the seed) ---------------- */

/* Lesson: one thread per (pixel, filter, tap) sums over the channels; for a 1x1 filter that is
 * the whole output, otherwise a partial map that the second kernel must read back. */
static __global__ void scalar_prods(const float *x, const float *w, float *dst, dims d, int direct)
{
    const int hw = d.H * d.W, rs = d.R * d.S;
    const int p = blockIdx.x * THREADS + threadIdx.x;
    if (p >= hw) return;
    const int n = blockIdx.y / d.M, m = blockIdx.y % d.M, k = blockIdx.z;
    const int fy = k / d.S, fx = k % d.S, oy = p / d.W, ox = p % d.W;
    const int iy = oy + fy - d.pad_h, ix = ox + fx - d.pad_w;
    float acc = 0.0f;
    if (iy >= 0 && iy < d.H && ix >= 0 && ix < d.W)
        for (int c = 0; c < d.C; c++)
            acc = fmaf(x[((size_t)(n * d.C + c) * d.H + iy) * d.W + ix], w[((size_t)(m * d.C + c) * d.R + fy) * d.S + fx], acc);
    if (direct) dst[(size_t)blockIdx.y * hw + p] = acc;
    else dst[((size_t)blockIdx.y * rs + k) * hw + p] = acc;
}

/* Lesson: the second pass reads R x S partial values per output from DRAM. */
static __global__ void sum_partials(const float *partial, float *y, int hw, int rs, size_t total)
{
    size_t i = (size_t)blockIdx.x * THREADS + threadIdx.x;
    if (i >= total) return;
    size_t nm = i / hw, p = i % hw;
    float acc = 0.0f;
    for (int k = 0; k < rs; k++) acc += partial[(nm * rs + k) * hw + p];
    y[i] = acc;
}

/* ---------------- fused (the seed) ---------------- */

/* Lesson: the same products, summed over channels and taps in one register: per tap, the block
 * stages the tap's C weights in shared memory (one load each instead of one per thread). */
static __global__ void fused_conv(const float *x, const float *w, float *y, dims d)
{
    extern __shared__ float wtap[]; /* C weights of one tap */
    const int hw = d.H * d.W;
    const int p = blockIdx.x * THREADS + threadIdx.x;
    const int n = blockIdx.y / d.M, m = blockIdx.y % d.M;
    const int oy = p / d.W, ox = p % d.W;
    float acc = 0.0f;
    for (int fy = 0; fy < d.R; fy++)
        for (int fx = 0; fx < d.S; fx++) {
            __syncthreads();
            for (int c = threadIdx.x; c < d.C; c += THREADS) wtap[c] = w[((size_t)(m * d.C + c) * d.R + fy) * d.S + fx];
            __syncthreads();
            const int iy = oy + fy - d.pad_h, ix = ox + fx - d.pad_w;
            if (p < hw && iy >= 0 && iy < d.H && ix >= 0 && ix < d.W) {
                const float *xp = x + ((size_t)n * d.C * d.H + iy) * d.W + ix;
                for (int c = 0; c < d.C; c++) acc = fmaf(__ldg(xp + (size_t)c * hw), wtap[c], acc);
            }
        }
    if (p < hw) y[(size_t)blockIdx.y * hw + p] = acc;
}

/* ---------------- ours: implicit GEMM ---------------- */

#define BM 64 /* output channels per block */
#define BN 64 /* output pixels per block */
#define BK 16 /* reduction (c, r, s) per tile */

/* Lesson (ours1): a convolution is a matrix product. Each block keeps a 64 x 16 slice of the
 * weights and a 16 x 64 slice of im2col(X) in shared memory; each thread computes a 4 x 4 block of
 * outputs from registers, 16 FFMAs per 8 shared-memory values read. The im2col addresses cost no
 * divisions in the inner loop: each block decodes its 64 pixels once (image offset, row, column)
 * and each 16-wide slice of the reduction once (channel offset, tap shift), and an element's
 * address is their sum. The next slice is loaded into registers while the current one is
 * multiplied (software pipelining), so a block rarely waits for memory. blockIdx.z splits the reduction (split-K) when there are too few output
 * tiles to fill the GPU; the partial sums are added with atomics into a zeroed output. */
static __global__ void __launch_bounds__(THREADS) implicit_gemm(const float *x, const float *w, float *y, dims d,
                                                                  int k_per_split)
{
    __shared__ float4 As[BK][BM / 4]; /* As[k][m]: weights, transposed */
    __shared__ float4 Bs[BK][BN / 4]; /* Bs[k][p]: im2col */
    __shared__ int pix_base[BN], pix_y[BN], pix_x[BN]; /* x offset of (n, 0, oy, ox); oy; ox */
    __shared__ int k_off[BK], k_dy[BK], k_dx[BK];      /* c H W + dy W + dx; dy; dx */
    const int K = d.C * d.R * d.S, P = d.N * d.H * d.W, hw = d.H * d.W, rs = d.R * d.S;
    const int m0 = blockIdx.y * BM, p0 = blockIdx.x * BN;
    const int k_begin = blockIdx.z * k_per_split, k_end = min(K, k_begin + k_per_split);
    const int t = threadIdx.x, ty = t / 16, tx = t % 16;
    if (t < BN) {
        const int p = p0 + t, n = p / hw, q = p - n * hw;
        pix_base[t] = p < P ? n * d.C * hw + q : 0;
        pix_y[t] = p < P ? q / d.W : -(1 << 20); /* outside every image: never loaded */
        pix_x[t] = q % d.W;
    }
    float acc[4][4] = {};
    float *as = (float *)As, *bs = (float *)Bs;
    float a_next[4], b_next[4]; /* the next slice, loaded while the current one is used */
    /* Decode reduction slice k0 (one thread per k) into k_off / k_dy / k_dx. */
#define DECODE_SLICE(k0)                                                                            \
    if (t < BK) {                                                                                   \
        const int k = (k0) + t, c = k / rs, r = k - c * rs, fy = r / d.S, fx = r - fy * d.S;        \
        k_dy[t] = k < k_end ? fy - d.pad_h : -(1 << 20);                                            \
        k_dx[t] = fx - d.pad_w;                                                                     \
        k_off[t] = c * hw + k_dy[t] * d.W + k_dx[t];                                                \
    }
    /* Load slice k0's 4 weights and 4 im2col values of this thread into registers. */
#define LOAD_SLICE(k0)                                                                              \
    _Pragma("unroll") for (int q = 0; q < 4; q++) {                                                 \
        const int ia = t + THREADS * q, am = ia / BK, ak = ia % BK, gm = m0 + am, gk = (k0) + ak;   \
        a_next[q] = gm < d.M && gk < k_end ? __ldg(w + (size_t)gm * K + gk) : 0.0f;                 \
        const int bk = ia / BN, bp = ia % BN;                                                       \
        const int iy = pix_y[bp] + k_dy[bk], ix = pix_x[bp] + k_dx[bk];                             \
        b_next[q] = (unsigned)iy < (unsigned)d.H && (unsigned)ix < (unsigned)d.W                    \
                        ? __ldg(x + (size_t)pix_base[bp] + k_off[bk])                               \
                        : 0.0f;                                                                     \
    }
    DECODE_SLICE(k_begin)
    __syncthreads();
    LOAD_SLICE(k_begin)
    for (int k0 = k_begin; k0 < k_end; k0 += BK) {
#pragma unroll
        for (int q = 0; q < 4; q++) { /* the registers become the shared tiles */
            const int ia = t + THREADS * q;
            as[(ia % BK) * BM + ia / BK] = a_next[q];
            bs[(ia / BN) * BN + ia % BN] = b_next[q];
        }
        __syncthreads();
        if (k0 + BK < k_end) { /* issue the next slice's loads before computing on this one */
            DECODE_SLICE(k0 + BK)
            __syncthreads();
            LOAD_SLICE(k0 + BK)
        }
#pragma unroll
        for (int kk = 0; kk < BK; kk++) {
            const float4 a = As[kk][ty], b = Bs[kk][tx];
            const float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
        __syncthreads();
    }
#undef DECODE_SLICE
#undef LOAD_SLICE
#pragma unroll
    for (int i = 0; i < 4; i++) {
        const int m = m0 + ty * 4 + i;
        if (m >= d.M) continue;
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int p = p0 + tx * 4 + j;
            if (p >= P) continue;
            float *dst = y + ((size_t)(p / hw) * d.M + m) * hw + p % hw;
            if (gridDim.z == 1) *dst = acc[i][j];
            else atomicAdd(dst, acc[i][j]);
        }
    }
}

/* ---------------- the launchers of the table's rows (cnn_variants.c) ---------------- */

static int g_run_sms; /* the run's SMs (--sms), set by cnn_use_sms; 0: the whole device */

extern "C" void cnn_use_sms(int n) { g_run_sms = n; }

/* Split-K and tile choices size their grids to the SMs this run's kernels get, not the whole GPU's. */
extern "C" int cnn_sms(void)
{
    static int n;
    if (g_run_sms > 0) return g_run_sms;
    if (!n) {
        int dev;
        GL_CHECK(cudaGetDevice(&dev));
        GL_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
    }
    return n;
}

extern "C" double cnn_sm_clock_mhz(cudaStream_t st)
{
    return gl_measure_sm_clock_mhz(cnn_sms(), st);
}

extern "C" size_t cnn_workspace_split(const cnn_shape *s, int tile)
{
    (void)tile;
    if (s->R * s->S > 1) return (size_t)s->N * s->M * s->R * s->S * s->H * s->W * sizeof(float);
    return 0;
}

extern "C" cnn_status cnn_launch_split(const cnn_launch_args *a, cudaStream_t st)
{
    const cnn_shape *s = &a->s;
    const dims d = dims_of(s);
    const int hw = s->H * s->W, rs = s->R * s->S;
    dim3 grid((hw + THREADS - 1) / THREADS, s->N * s->M, rs);
    float *partial = rs == 1 ? a->y : (float *)a->workspace;
    scalar_prods<<<grid, THREADS, 0, st>>>(a->x, a->w, partial, d, rs == 1);
    GL_CHECK_LAUNCH();
    if (rs > 1) {
        size_t total = (size_t)s->N * s->M * hw;
        sum_partials<<<(unsigned)((total + THREADS - 1) / THREADS), THREADS, 0, st>>>(partial, a->y, hw, rs, total);
        GL_CHECK_LAUNCH();
    }
    return CNN_OK;
}

extern "C" cnn_status cnn_launch_fused(const cnn_launch_args *a, cudaStream_t st)
{
    const cnn_shape *s = &a->s;
    dim3 grid((s->H * s->W + THREADS - 1) / THREADS, s->N * s->M);
    fused_conv<<<grid, THREADS, (size_t)s->C * sizeof(float), st>>>(a->x, a->w, a->y, dims_of(s));
    GL_CHECK_LAUNCH();
    return CNN_OK;
}

extern "C" cnn_status cnn_launch_ours1(const cnn_launch_args *a, cudaStream_t st)
{
    const cnn_shape *s = &a->s;
    const int K = s->C * s->R * s->S, P = s->N * s->H * s->W;
    dim3 grid((P + BN - 1) / BN, (s->M + BM - 1) / BM, 1);
    /* split-K: enough blocks for two per SM, but at least 8 tiles of BK per split */
    int tiles = (int)(grid.x * grid.y), splits = (2 * cnn_sms() + tiles - 1) / tiles;
    int max_splits = (K + 8 * BK - 1) / (8 * BK);
    splits = splits < 1 ? 1 : splits > max_splits ? max_splits : splits;
    int per = (K + splits - 1) / splits;
    per = (per + BK - 1) / BK * BK;
    grid.z = (unsigned)((K + per - 1) / per);
    if (grid.z > 1) GL_CHECK(cudaMemsetAsync(a->y, 0, (size_t)P * s->M * sizeof(float), st));
    implicit_gemm<<<grid, THREADS, 0, st>>>(a->x, a->w, a->y, dims_of(s), per);
    GL_CHECK_LAUNCH();
    return CNN_OK;
}
