/* wino4x4.cuh - Lab 04, part 2: the output transform of Winograd F(4x4, 3x3) that ours_wino4x4
 * (03_wino4x4.cu, after its GEMM folded the first half into H) and ours_wino4x4_nonfused
 * (04_wino4x4_nonfused.cu, after both halves) finish with. Device code; include from those two. */
#ifndef CNN_WINO4X4_CUH
#define CNN_WINO4X4_CUH
#include "wino_gemm.cuh" /* wg_dims */

#define WG4_H 24 /* H values per (m, tile): 6 rows i x 4 columns b */

/* o = A^T h for one 6-vector h (stride `st` apart): sums of 4 or 5 terms, at most 4 roundings each. */
static __host__ __device__ __forceinline__ void output6(const float *h, const int st, float o[4])
{
    const float h0 = h[0], h1 = h[st], h2 = h[2 * st], h3 = h[3 * st], h4 = h[4 * st], h5 = h[5 * st];
    const float s12 = h1 + h2, d12 = h1 - h2, s34 = h3 + h4, d34 = h3 - h4;
    o[0] = (h0 + s12) + s34;
    o[1] = fmaf(2.0f, d34, d12);
    o[2] = fmaf(4.0f, s34, s12);
    o[3] = fmaf(8.0f, d34, d12) + h5;
}

/* y[a][b] = sum_i A^T[a][i] h[4 i + b] for output channel m, tile t: the 4x4 outputs, a row of 4 as
 * one float4 where it fits (W % 4 == 0), else the ones inside the image. */
/* (No #pragma unroll in the __host__ __device__ helpers: the host compiler warns; nvcc unrolls these
 * constant 4- and 6-trip loops anyway: 0-byte stack frames in ptxas -v.) */
static __host__ __device__ __forceinline__ void wg4_store_tile(const float h[WG4_H], float *y, const wg_dims &d,
                                                               const int m, const int t)
{
    float o[4][4], col[4];
    for (int b = 0; b < 4; b++) {
        output6(h + b, 4, col); /* col[a] = sum_i A^T[a][i] H[i][b] */
        for (int a = 0; a < 4; a++) o[a][b] = col[a];
    }
    const int per_image = d.th * d.tw, n = t / per_image, q = t - n * per_image;
    const int oy = (q / d.tw) * 4, ox = (q % d.tw) * 4;
    float *yo = y + ((size_t)n * d.M + m) * d.H * d.W + (size_t)oy * d.W + ox;
    const bool whole_rows = d.W % 4 == 0; /* then ox + 3 < W and the row is 16-byte aligned */
    for (int a = 0; a < 4; a++) {
        if (oy + a >= d.H) break;
        if (whole_rows) {
            *(float4 *)(yo + a * d.W) = make_float4(o[a][0], o[a][1], o[a][2], o[a][3]);
            continue;
        }
        for (int b = 0; b < 4; b++)
            if (ox + b < d.W) yo[a * d.W + b] = o[a][b];
    }
}
#endif
