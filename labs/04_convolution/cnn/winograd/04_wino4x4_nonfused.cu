/* 04_wino4x4_nonfused.cu - Lab 04, part 2: ours_wino4x4_nonfused, Winograd F(4x4, 3x3) with the
 * 36 GEMMs at full tile size and the whole output transform after; the filter and input transforms
 * are ours_wino4x4's (03_wino4x4.cu: wg4_transforms).
 *
 * Lesson: ours_wino4x4 folds half the output transform into its GEMM and keeps 4 values per
 * (m, tile) next to the 4x4 accumulators: 80 registers, so the GEMM's thread tile stays 4x4 and
 * its block tile 64x64 (8 FFMA per shared-memory float4 read, 16 flops per byte of U and V from
 * L2). Not folding frees the registers for an 8x8 thread tile in a 128 (m) x 128 (tiles) block (16
 * FFMA per read, 32 flops per byte; E3_N32's M = 128 in one block, so V is read once): the GEMM
 * writes all 36 products M[xi][m][t] (1.5x H's traffic) and wg4n_output does both stages of the
 * output transform. cuDNN's WINOGRAD_NONFUSED is this split. */
#include "wino_gemm.cuh"
#include "wino4x4.cuh"
#include "gl_check.h"

#define WG4N_BK 16    /* channels per shared-memory slice (the filter and input kernels pad C to it) */
#define WG4N_STAGES 3 /* cp.async ring: slices s + 1, s + 2 land while slice s is multiplied */
#define WG4N_THREADS 256
static const int WG4N_TM[WG4N_TILES] = {128, 64, 128}, WG4N_TT[WG4N_TILES] = {128, 128, 64};

extern "C" const char *cnn_tile_name_winograd4_nonfused(int tile)
{
    static const char *names[WG4N_TILES] = {"128x128", "64x128", "128x64"};
    return tile >= 0 && tile < WG4N_TILES ? names[tile] : "?";
}

extern "C" size_t cnn_workspace_winograd4_nonfused(const cnn_shape *s, int tile)
{
    if (!cnn_supports_winograd(s) || tile < 0 || tile >= WG4N_TILES) return 0;
    const wg_dims d = wg4_dims_pad(s, WG4N_TM[tile], WG4N_TT[tile]);
    return WG4_XI * ((size_t)d.Cp * ((size_t)d.Mp + d.Tp) + (size_t)d.Mp * d.Tp) * sizeof(float);
}

/* Offset of the r-th of this thread's `n` rows (or columns) inside a block tile, thread coordinate
 * q (0..15): groups of 4 consecutive, the groups 64 apart (r / 4), so a warp's 4 (m) or 8 (tile)
 * distinct q read one contiguous 64- or 128-byte span of a slice row: one wavefront per LDS.128. */
static __host__ __device__ __forceinline__ int wg4n_offset(const int q, const int r) { return r / 4 * 64 + q * 4 + r % 4; }

static __device__ __forceinline__ void wg4n_unpack(const float4 v, float *o) { o[0] = v.x, o[1] = v.y, o[2] = v.z, o[3] = v.w; }

/* Copy f (0 .. width * BK / 4 - 1) of a slice `width` floats wide: row f / (width / 4), column
 * 4 (f % (width / 4)). */
static __host__ __device__ __forceinline__ void wg4n_copy_at(const int f, const int width, int *row, int *col)
{
    *row = f / (width / 4), *col = f % (width / 4) * 4;
}

/* One slice (channels c0 .. c0 + 15 of xi) of U and V into shared memory: TM / 64 and TT / 64
 * 16-byte copies per thread. */
template <int TM, int TT>
static __device__ __forceinline__ void wg4n_load(float (*Us)[TM], float (*Vs)[TT], const float *U, const float *V,
                                                 const wg_dims &d, const int m0, const int t0, const int c0)
{
    int r, c;
#pragma unroll
    for (int q = 0; q < TM / 64; q++) {
        wg4n_copy_at(threadIdx.x + q * WG4N_THREADS, TM, &r, &c);
        copy16(&Us[r][c], U + (size_t)(c0 + r) * d.Mp + m0 + c);
    }
#pragma unroll
    for (int q = 0; q < TT / 64; q++) {
        wg4n_copy_at(threadIdx.x + q * WG4N_THREADS, TT, &r, &c);
        copy16(&Vs[r][c], V + (size_t)(c0 + r) * d.Tp + t0 + c);
    }
}

/* Lesson: one GEMM per xi (blockIdx.y), a TM x TT block tile per block, TM / 16 x TT / 16 outputs
 * per thread, the sum over all C in one FMA chain per output (the same C roundings as the folded
 * rung: the bound in cnn_bounds.c covers it); the products written as float4 to M[xi][m][t]. */
template <int TM, int TT>
static __global__ void __launch_bounds__(WG4N_THREADS, 2)
    wg4n_gemm(const float *U, const float *V, float *Mo, wg_dims d)
{
    constexpr int RM = TM / 16, RT = TT / 16;
    __shared__ __align__(16) float Us[WG4N_STAGES][WG4N_BK][TM], Vs[WG4N_STAGES][WG4N_BK][TT];
    const int xi = blockIdx.y, warp = threadIdx.x / 32, lane = threadIdx.x % 32, m_blocks = d.Mp / TM;
    const int tm = (warp / 2) * 4 + lane / 8, tt = (warp % 2) * 8 + lane % 8; /* a warp: 4 m x 8 tiles */
    const int m0 = (int)(blockIdx.x % m_blocks) * TM, t0 = (int)(blockIdx.x / m_blocks) * TT;
    const float *Ux = U + (size_t)xi * d.Cp * d.Mp, *Vx = V + (size_t)xi * d.Cp * d.Tp;
    const int slices = d.Cp / WG4N_BK;
    float acc[RM][RT];
#pragma unroll
    for (int i = 0; i < RM; i++)
#pragma unroll
        for (int j = 0; j < RT; j++) acc[i][j] = 0.0f;
#pragma unroll
    for (int s = 0; s < WG4N_STAGES - 1; s++) { /* the first slices, one group each (empty past the end) */
        if (s < slices) wg4n_load<TM, TT>(Us[s], Vs[s], Ux, Vx, d, m0, t0, s * WG4N_BK);
        copies_commit();
    }
    for (int s = 0; s < slices; s++) {
        copies_wait<WG4N_STAGES - 2>(); /* slice s has landed (this thread's copies) */
        __syncthreads();                /* everyone's copies, and everyone done with slice s - 1's buffer */
        const int next = s + WG4N_STAGES - 1;
        if (next < slices) wg4n_load<TM, TT>(Us[next % WG4N_STAGES], Vs[next % WG4N_STAGES], Ux, Vx, d, m0, t0,
                                            next * WG4N_BK);
        copies_commit();
        const int cur = s % WG4N_STAGES;
#pragma unroll
        for (int k = 0; k < WG4N_BK; k++) {
            float a[RM], b[RT];
#pragma unroll
            for (int i = 0; i < RM; i += 4) wg4n_unpack(*(const float4 *)&Us[cur][k][wg4n_offset(tm, i)], a + i);
#pragma unroll
            for (int j = 0; j < RT; j += 4) wg4n_unpack(*(const float4 *)&Vs[cur][k][wg4n_offset(tt, j)], b + j);
#pragma unroll
            for (int i = 0; i < RM; i++)
#pragma unroll
                for (int j = 0; j < RT; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
    }
    float *out = Mo + (size_t)xi * d.Mp * d.Tp;
#pragma unroll
    for (int i = 0; i < RM; i++)
#pragma unroll
        for (int j = 0; j < RT; j += 4)
            *(float4 *)(out + (size_t)(m0 + wg4n_offset(tm, i)) * d.Tp + t0 + wg4n_offset(tt, j)) =
                make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
}

/* The first stage of the output transform from the 36 products m[6 i + j] of one (m, tile):
 * h[4 i + b] = sum_j A^T[b][j] m[6 i + j] (output6: sums of at most 5 terms, <= 4 roundings). */
static __host__ __device__ __forceinline__ void wg4n_rows(const float mv[WG4_XI], float h[WG4_H])
{
    float o[4];
    for (int i = 0; i < 6; i++) {
        output6(mv + 6 * i, 1, o);
        for (int b = 0; b < 4; b++) h[4 * i + b] = o[b];
    }
}

/* Lesson: the whole output transform, one thread per (m, tile): 36 products in (threads along
 * tiles: coalesced), 4x4 outputs out. */
static __global__ void wg4n_output(const float *Mo, float *y, wg_dims d)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y;
    if (t >= d.T) return;
    const size_t plane = (size_t)d.Mp * d.Tp, at = (size_t)m * d.Tp + t;
    float mv[WG4_XI], h[WG4_H];
#pragma unroll
    for (int k = 0; k < WG4_XI; k++) mv[k] = Mo[k * plane + at];
    wg4n_rows(mv, h);
    wg4_store_tile(h, y, d, m, t);
}

template <int TM, int TT> static void wg4n_gemm_launch(const float *U, const float *V, float *Mo, const wg_dims &d,
                                                       cudaStream_t st)
{
    wg4n_gemm<TM, TT><<<dim3((unsigned)(d.Mp / TM) * (unsigned)(d.Tp / TT), WG4_XI), WG4N_THREADS, 0, st>>>(U, V, Mo, d);
}

extern "C" cnn_status cnn_launch_winograd4_nonfused(const cnn_launch_args *a, cudaStream_t st)
{
    if (!cnn_supports_winograd(&a->s) || a->tile < 0 || a->tile >= WG4N_TILES) return CNN_ERR_VARIANT;
    if (a->workspace_bytes < cnn_workspace_winograd4_nonfused(&a->s, a->tile)) return CNN_ERR_SHAPE;
    const wg_dims d = wg4_dims_pad(&a->s, WG4N_TM[a->tile], WG4N_TT[a->tile]);
    float *U = (float *)a->workspace, *V = U + WG4_XI * (size_t)d.Cp * d.Mp, *Mo = V + WG4_XI * (size_t)d.Cp * d.Tp;
    wg4_transforms(a, &d, U, V, st);
    if (a->tile == 0) wg4n_gemm_launch<128, 128>(U, V, Mo, d, st);
    else if (a->tile == 1) wg4n_gemm_launch<64, 128>(U, V, Mo, d, st);
    else wg4n_gemm_launch<128, 64>(U, V, Mo, d, st);
    GL_CHECK_LAUNCH();
    wg4n_output<<<dim3((d.T + 127) / 128, d.M), 128, 0, st>>>(Mo, a->y, d);
    GL_CHECK_LAUNCH();
    return CNN_OK;
}
