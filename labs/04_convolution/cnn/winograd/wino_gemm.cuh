/* wino_gemm.cuh - Lab 04, part 2: the GEMM the folded Winograd rungs share (ours_wino2x2_big in
 * 02_wino2x2_big.cu, ours_wino4x4 in 03_wino4x4.cu): one 64 (m) x 64 (tiles) block tile of one xi
 * at a time, over all C channels, double-buffered shared memory fed by cp.async (sm_80+; a plain copy
 * below), and after each xi a caller's fold of the finished products into what it keeps. */
#ifndef CNN_WINOGRAD_GEMM_CUH
#define CNN_WINOGRAD_GEMM_CUH

#include "winograd.h"

#define WGB_TM 64 /* output channels (m) per block */
#define WGB_TT 64 /* tiles per block */
#define WGB_BK 16 /* channels per shared-memory slice */
#define WGB_THREADS 256

/* A 16-byte global -> shared copy: cp.async on sm_80+ (it bypasses the registers and lands while
 * the block computes), a plain float4 copy on older GPUs. Both pointers 16-byte aligned. */
static __device__ __forceinline__ void copy16(float *smem, const float *src)
{
#if __CUDA_ARCH__ >= 800
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src));
#else
    *(float4 *)smem = *(const float4 *)src;
#endif
}

/* Close this thread's group of copies, then wait until at most `pending` groups are in flight. */
template <int pending> static __device__ __forceinline__ void copies_commit_wait(void)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\ncp.async.wait_group %0;\n" ::"n"(pending) : "memory");
#endif
}

/* Wait until at most `pending` of this thread's committed groups are in flight. */
template <int pending> static __device__ __forceinline__ void copies_wait(void)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
#endif
}

static __device__ __forceinline__ void copies_commit(void)
{
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/* out[i][j][o] += k[o] acc[i][j] for the 4 x 4 finished products of one xi, then acc = 0: the fold of
 * one xi into 4 values kept per (m, tile), k exact (0 or a power of two: one rounding per add). */
static __device__ __forceinline__ void wg_fold4(float acc[4][4], float out[4][4][4], const float k[4])
{
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) {
#pragma unroll
            for (int o = 0; o < 4; o++) out[i][j][o] = fmaf(k[o], acc[i][j], out[i][j][o]);
            acc[i][j] = 0.0f;
        }
}

/* The 4 x 4 x 4 kept values to zero. */
static __device__ __forceinline__ void wg_zero4(float out[4][4][4])
{
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++)
#pragma unroll
            for (int o = 0; o < 4; o++) out[i][j][o] = 0.0f;
}

/* This thread's place in the block tile: 4 m from m0 + 4 tm, 4 tiles from t0 + 4 tt. A warp covers
 * 16 m x 32 tiles (4 x 8 threads), so its float4 reads of a slice row are 64 bytes of U (broadcast)
 * and 128 bytes of V: one shared-memory wavefront each. blockIdx.x walks m fastest. */
typedef struct {
    int tm, tt, m0, t0;
} wg_place;

static __device__ __forceinline__ wg_place wg_place_of(const wg_dims &d)
{
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, m_blocks = d.Mp / WGB_TM;
    wg_place p;
    p.tm = (warp / 2) * 4 + lane / 8, p.tt = (warp % 2) * 8 + lane % 8; /* 0..15 each */
    p.m0 = (int)(blockIdx.x % m_blocks) * WGB_TM, p.t0 = (int)(blockIdx.x / m_blocks) * WGB_TT;
    return p;
}

/* The GEMMs of xi = xi0 .. xi0 + n_xi - 1 (U: [xi][Cp][Mp], V: [xi][Cp][Tp]) for the block tile at p,
 * one after the other; after each, fold(acc, xi) takes the thread's 4 x 4 finished products and must
 * leave acc zeroed. Slice s (of n_xi x Cp / WGB_BK) is channels c0.. c0 + 15 of one xi; each thread
 * copies one float4 of U and one of V per slice. */
template <class Fold>
static __device__ __forceinline__ void wg_gemm_xi(const float *U, const float *V, const wg_dims &d, const wg_place &p,
                                                  const int xi0, const int n_xi, Fold &fold)
{
    __shared__ __align__(16) float Us[2][WGB_BK][WGB_TM], Vs[2][WGB_BK][WGB_TT];
    const int tid = threadIdx.x, per_xi = d.Cp / WGB_BK, slices = n_xi * per_xi;
    const size_t uplane = (size_t)d.Cp * d.Mp, vplane = (size_t)d.Cp * d.Tp;
    const int lk = tid / 16, lc = tid % 16 * 4; /* this thread's copy: row lk, columns lc.. lc + 3 */
    const float *ug = U + (size_t)lk * d.Mp + p.m0 + lc, *vg = V + (size_t)lk * d.Tp + p.t0 + lc;
    float acc[4][4];
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) acc[i][j] = 0.0f;
    copy16(&Us[0][lk][lc], ug + xi0 * uplane);
    copy16(&Vs[0][lk][lc], vg + xi0 * vplane);
    copies_commit(); /* slice 0: its own group */
    for (int s = 0; s < slices; s++) {
        const int cur = s & 1;
        if (s + 1 < slices) { /* slice s + 1 into the other buffer (free since the last sync) */
            const int xi = xi0 + (s + 1) / per_xi, c0 = (s + 1) % per_xi * WGB_BK;
            copy16(&Us[cur ^ 1][lk][lc], ug + xi * uplane + (size_t)c0 * d.Mp);
            copy16(&Vs[cur ^ 1][lk][lc], vg + xi * vplane + (size_t)c0 * d.Tp);
            copies_commit_wait<1>(); /* slice s has landed, s + 1 may still be in flight */
        } else {
            copies_commit_wait<0>();
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < WGB_BK; k++) {
            const float4 a = *(const float4 *)&Us[cur][k][p.tm * 4], b = *(const float4 *)&Vs[cur][k][p.tt * 4];
            const float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
        if ((s + 1) % per_xi == 0) fold(acc, xi0 + s / per_xi);
        __syncthreads(); /* before the next iteration copies into this buffer */
    }
}

#endif
