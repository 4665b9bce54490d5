/* channels_last.cuh - Lab 04, part 2: the channels-last implicit GEMM's indexing, shared by
 * ours_bf16_mma3 (03_channels_last.cu, mma.sync) and ours_bf16_wgmma (04_wgmma.cu, sm_90a): x as
 * xp[N][Hp][Wp][Cp] (a zero border, C padded to Cp, a multiple of 8), w as wp[M][R][S][Cp], the
 * reduction index k = (r, s, c). Plain device code (any architecture). */
#ifndef CNN_TC3_CUH
#define CNN_TC3_CUH

#include "cnn.h"
#include "gl_check.h"

typedef struct {
    int H, W, M, R, S, Cp, Hp, Wp, K, P; /* K = R S Cp, P = N H W, Hp Wp: the padded image */
    int splits, k_chunk;                 /* split-K: parts, k-tiles per part */
    long long ny;                        /* N M H W: one partial's size */
} tc3_dims;

/* The k of one thread's 8-channel chunk: tap (fy, fx), channel c; fy >= R past the end of K. */
typedef struct {
    int fy, fx, c;
} tc3_kpos;

/* Where pixel p's top-left tap starts in xp (elements), -1 past the last pixel. */
static __device__ __forceinline__ int tc3_pixel_offset(int p, const tc3_dims &d)
{
    const int hw = d.H * d.W, n = p / hw, q = p - n * hw, oy = q / d.W;
    return p < d.P ? ((n * d.Hp + oy) * d.Wp + q - oy * d.W) * d.Cp : -1;
}

/* k as (fy, fx, c); only at the start (one division chain per thread). */
static __device__ __forceinline__ tc3_kpos tc3_kpos_at(int k, const tc3_dims &d)
{
    const int tap = k / d.Cp, fy = tap / d.S;
    return tc3_kpos{fy, tap - fy * d.S, k - tap * d.Cp};
}

/* The element offset of k in the im2col column of a pixel (add its tc3_pixel_offset). */
static __device__ __forceinline__ int tc3_kpos_offset(const tc3_kpos &kp, const tc3_dims &d)
{
    return (kp.fy * d.Wp + kp.fx) * d.Cp + kp.c;
}

/* k += BK (the next k-tile), without a division: Cp >= 8, so at most BK / 8 taps per step. */
template <int BK> static __device__ __forceinline__ void tc3_kpos_advance(tc3_kpos &kp, const tc3_dims &d)
{
    for (kp.c += BK; kp.c >= d.Cp; kp.c -= d.Cp)
        if (++kp.fx == d.S) kp.fx = 0, kp.fy++;
}

/* One call of the channels-last rows (host): the prepared arrays in the workspace (xp, wp: BF16;
 * the split-K partial sums; x16 and y16 of cnn_bf16_arrays) and the layer's sizes. tc3_setup
 * (03_channels_last.cu) checks the call (a tile below n_tiles, the workspace, int offsets) and fills it for
 * k-tiles of bk; tc3_finish enqueues split-K's reduce and the BF16 y's conversion to float. */
typedef struct {
    void *xp, *wp, *x16, *y16;
    float *partial;
    tc3_dims d;
} tc3_call;
cnn_status tc3_setup(const cnn_launch_args *a, int n_tiles, int bk, tc3_call *c);
void tc3_finish(const cnn_launch_args *a, const tc3_call &c, cudaStream_t st);
/* x16 (NCHW BF16) -> xp (channels-last, zero border): the layout change the _t rows time. */
void tc3_x_layout(const cnn_launch_args *a, const tc3_call &c, cudaStream_t st);
/* FP32 NCHW -> channels-last interior, rounded to TF32 (03_channels_last.cu; used by the TF32 wgmma rows). */
void tc3_to_channels_last_tf32(const float *x, float *xp, int N, int C, int H, int W, int Cp, int pad_h, int pad_w,
                               cudaStream_t st);

/* A kernel's opt-in above 48 KiB of shared memory, once (*ready), before any graph capture (the
 * first call of every row is the unrecorded check). */
static inline void tc3_smem_opt_in(const void *kernel, int bytes, int *ready)
{
    if (*ready) return;
    GL_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    *ready = 1;
}
#endif
