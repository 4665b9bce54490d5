/* 03_wino4x4.cu - Lab 04, part 2: ours_wino4x4, Winograd F(4x4, 3x3) for the 3x3 layers (stride 1, pad 1), FP32.
 *
 * Lesson: a 4x4 block of outputs of a 3x3 filter needs 144 multiplications directly, 36 after the
 * transforms of F(4x4, 3x3) (Lavin and Gray, "Fast Algorithms for Convolutional Neural Networks",
 * 2016; interpolation points 0, +-1, +-2 and infinity): 4x fewer than direct, 1.78x fewer than
 * F(2x2). The price: larger transform coefficients (5, 8, 1/6, 1/24) and so a larger rounding error
 * (the bound in cnn_bounds.c), and 6x6 input tiles that overlap by 2.
 *
 * Four kernels per call (all timed; nothing is cached between calls):
 *   wg4_filter  U[xi][c][m] = (G g_mc G^T)[xi], 36 xi, zero-padded to Cp x Mp
 *   wg4_input   V[xi][c][t] = (B^T d_ct B)[xi], zero-padded to Cp x Tp
 *   wg4_gemm    ours_wino2x2_big's GEMM (wino_gemm.cuh), 64 m x 64 tiles of one xi at a
 *               time; a block takes the 6 xi of one row i of the 6x6 tile and folds each into
 *               H[i][b] = sum_j A^T[b][j] M[i][j] (4 values per (m, tile): 64 + 16 registers, where
 *               the whole output transform would need 16 outputs per (m, tile), 256 registers for
 *               the thread's 4 x 4), and writes H to the workspace
 *   wg4_output  y[a][b] = sum_i A^T[a][i] H[i][b]: the second half of the output transform.
 * H (24 floats per (m, tile)) is 2/3 of the 36 products the unfused algorithm stores.
 * Few tiles (E3_N8: 32 x 2 x 6 = 384 blocks for 264 places at 2 per SM on an H100: 1.45 waves) can
 * split each row's 6 xi among 1, 2 or 3 blocks (the row's tile configurations, autotuned); each
 * writes its own partial H and wg4_output adds the parts (more H traffic, more blocks).
 *
 * G = [1/4 0 0; -1/6 -1/6 -1/6; -1/6 1/6 -1/6; 1/24 1/12 1/6; 1/24 -1/12 1/6; 0 0 1],
 * B^T = [4 0 -5 0 1 0; 0 -4 -4 1 1 0; 0 4 -4 -1 1 0; 0 -2 -1 2 1 0; 0 2 -1 -2 1 0; 0 4 0 -5 0 1],
 * A^T = [1 1 1 1 1 0; 0 1 -1 2 -2 0; 0 1 1 4 4 0; 0 1 -1 8 -8 1] (cross-correlation). */
#include "wino_gemm.cuh"
#include "wino4x4.cuh"
#include "gl_check.h"

static const int WG4_PARTS[WG4_SPLITS] = {1, 2, 3}; /* blocks per row of xi, by tile configuration */

/* The sizes of F(4x4, 3x3) on shape s: 4x4 output tiles, C padded to the GEMM's slice, M and T to its tile. */
wg_dims wg4_dims_pad(const cnn_shape *s, const int m_pad, const int t_pad)
{
    wg_dims d = wg_dims_of(s, WGB_BK, m_pad, t_pad);
    d.th = (s->H + 3) / 4, d.tw = (s->W + 3) / 4, d.T = s->N * d.th * d.tw;
    d.Tp = (d.T + t_pad - 1) / t_pad * t_pad;
    return d;
}

static wg_dims wg4_dims_of(const cnn_shape *s) { return wg4_dims_pad(s, WGB_TM, WGB_TT); }

extern "C" size_t cnn_workspace_winograd4(const cnn_shape *s, int tile)
{
    if (!cnn_supports_winograd(s) || tile < 0 || tile >= WG4_SPLITS) return 0;
    const wg_dims d = wg4_dims_of(s);
    const size_t h_floats = (size_t)WG4_PARTS[tile] * WG4_H * d.Mp * d.Tp;
    return (WG4_XI * (size_t)d.Cp * ((size_t)d.Mp + d.Tp) + h_floats) * sizeof(float);
}

extern "C" const char *cnn_tile_name_winograd4(int tile)
{
    static const char *names[WG4_SPLITS] = {"row6", "row3x2", "row2x3"};
    return tile >= 0 && tile < WG4_SPLITS ? names[tile] : "?";
}

/* o = G (a, b, c)^T. 1/6 is not a binary fraction: c6 = fl(1/6) (one rounded coefficient), and
 * 1/24, 1/12 are c6 / 4, c6 / 2 (exact scalings), so o[3] = c6 (a / 4 + b / 2 + c). Every term
 * passes through at most 4 roundings: two additions, the coefficient, the product. */
static __host__ __device__ __forceinline__ void filter6(const float a, const float b, const float c, float o[6])
{
    const float c6 = 1.0f / 6.0f;
    o[0] = 0.25f * a;
    o[1] = -(c6 * ((a + b) + c));
    o[2] = -(c6 * ((a - b) + c));
    o[3] = c6 * ((0.25f * a + 0.5f * b) + c);
    o[4] = c6 * ((0.25f * a - 0.5f * b) + c);
    o[5] = c;
}

/* o = B^T d for one 6-vector d (stride `st` apart): coefficients 4, 5, 2, 1 are exact in the
 * products, every term passes through at most 2 roundings (fmaf's, the additions). */
static __host__ __device__ __forceinline__ void input6(const float *v, const int st, float o[6])
{
    const float d0 = v[0], d1 = v[st], d2 = v[2 * st], d3 = v[3 * st], d4 = v[4 * st], d5 = v[5 * st];
    o[0] = fmaf(-5.0f, d2, 4.0f * d0) + d4;
    o[1] = (d3 + d4) - 4.0f * (d1 + d2);
    o[2] = (d4 - d3) + 4.0f * (d1 - d2);
    o[3] = (d4 - d2) + 2.0f * (d3 - d1);
    o[4] = (d4 - d2) - 2.0f * (d3 - d1);
    o[5] = fmaf(-5.0f, d3, 4.0f * d1) + d5;
}

/* Lesson: U = G g G^T, 36 values from 9, the only transform with inexact coefficients. */
static __global__ void wg4_filter(const float *w, float *U, wg_dims d)
{
    const int m = blockIdx.x * blockDim.x + threadIdx.x, c = blockIdx.y;
    if (m >= d.Mp) return;
    float g[9], t[3][6], u[6];
    const bool real = m < d.M && c < d.C;
#pragma unroll
    for (int k = 0; k < 9; k++) g[k] = real ? w[((size_t)m * d.C + c) * 9 + k] : 0.0f;
#pragma unroll
    for (int s = 0; s < 3; s++) filter6(g[s], g[3 + s], g[6 + s], t[s]); /* t[s][i] = (G g)[i][s] */
    const size_t plane = (size_t)d.Cp * d.Mp, at = (size_t)c * d.Mp + m;
#pragma unroll
    for (int i = 0; i < 6; i++) {
        filter6(t[0][i], t[1][i], t[2][i], u);
#pragma unroll
        for (int j = 0; j < 6; j++) U[(i * 6 + j) * plane + at] = u[j];
    }
}

/* Lesson: V = B^T d B for the 6x6 input tile of (channel c, tile t); tiles overlap by 2. */
static __global__ void wg4_input(const float *x, float *V, wg_dims d)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x, c = blockIdx.y;
    if (t >= d.Tp) return;
    float v[36], b[36], o[6];
    const bool real = t < d.T && c < d.C;
    const int per_image = d.th * d.tw, n = t / per_image, q = t - n * per_image;
    const int y0 = (q / d.tw) * 4 - 1, x0 = (q % d.tw) * 4 - 1; /* pad 1 */
    const float *xc = x + ((size_t)n * d.C + c) * d.H * d.W;
#pragma unroll
    for (int i = 0; i < 6; i++)
#pragma unroll
        for (int j = 0; j < 6; j++) {
            const int iy = y0 + i, ix = x0 + j;
            v[i * 6 + j] = real && (unsigned)iy < (unsigned)d.H && (unsigned)ix < (unsigned)d.W ? xc[iy * d.W + ix] : 0.0f;
        }
#pragma unroll
    for (int j = 0; j < 6; j++) { /* b = B^T v, column j */
        input6(v + j, 6, o);
#pragma unroll
        for (int i = 0; i < 6; i++) b[i * 6 + j] = o[i];
    }
    const size_t plane = (size_t)d.Cp * d.Tp, at = (size_t)c * d.Tp + t;
#pragma unroll
    for (int i = 0; i < 6; i++) { /* V = b B, row i */
        input6(b + i * 6, 1, o);
#pragma unroll
        for (int j = 0; j < 6; j++) V[(i * 6 + j) * plane + at] = o[j];
    }
}

/* A^T[b][j] for b = 0..3, j = 0..5 (powers of two and zeros: the products with them are exact). */
static __host__ __device__ __forceinline__ float at_coef(const int b, const int j)
{
    if (j == 0) return b == 0 ? 1.0f : 0.0f;
    if (j == 5) return b == 3 ? 1.0f : 0.0f;
    const float mag = j <= 2 ? 1.0f : (float)(1 << b), sign = (j % 2 == 0 && b % 2 == 1) ? -1.0f : 1.0f;
    return mag * sign;
}

/* The fold of ours_wino4x4: h[i][l][b] += A^T[b][j] M[i][l] for xi = 6 row + j, m 4 tm + i, tile
 * 4 tt + l (sums of 4 or 5 nonzero terms: at most 4 roundings). */
struct fold_row {
    float h[4][4][4]; /* [m][tile][b] */
    __device__ __forceinline__ void operator()(float acc[4][4], const int xi)
    {
        const int j = xi % 6;
        const float k[4] = {at_coef(0, j), at_coef(1, j), at_coef(2, j), at_coef(3, j)};
        wg_fold4(acc, h, k);
    }
};

/* Lesson: the GEMMs of row i of the 6x6 tile (xi = 6 i .. 6 i + 5; with `parts` > 1, part
 * blockIdx.y % parts of them), each folded into H[i][b] as soon as it is finished; written as
 * float4 (4 consecutive tiles) to H[part][4 i + b][m][t]. */
static __global__ void __launch_bounds__(WGB_THREADS, 2)
    wg4_gemm(const float *U, const float *V, float *H, wg_dims d, int parts)
{
    const wg_place p = wg_place_of(d);
    fold_row f;
    wg_zero4(f.h);
    const int row = blockIdx.y / parts, part = blockIdx.y % parts, per_part = 6 / parts;
    wg_gemm_xi(U, V, d, p, row * 6 + part * per_part, per_part, f);
    const size_t plane = (size_t)d.Mp * d.Tp;
    H += (size_t)part * WG4_H * plane;
#pragma unroll
    for (int b = 0; b < 4; b++)
#pragma unroll
        for (int i = 0; i < 4; i++) {
            float *at = H + (row * 4 + b) * plane + (size_t)(p.m0 + p.tm * 4 + i) * d.Tp + p.t0 + p.tt * 4;
            *(float4 *)at = make_float4(f.h[i][0][b], f.h[i][1][b], f.h[i][2][b], f.h[i][3][b]);
        }
}

/* Lesson: the second half of the output transform, one thread per (m, tile): 24 values of H in
 * (threads along tiles: coalesced), the 4x4 outputs out, a row of 4 as one float4 where it fits. */
static __global__ void wg4_output(const float *H, float *y, wg_dims d, int parts)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x, m = blockIdx.y;
    if (t >= d.T) return;
    const size_t plane = (size_t)d.Mp * d.Tp, at = (size_t)m * d.Tp + t;
    float h[WG4_H];
#pragma unroll
    for (int k = 0; k < WG4_H; k++) h[k] = H[k * plane + at]; /* h[4 i + b] */
    for (int part = 1; part < parts; part++) /* the other parts' sums of the same H terms */
#pragma unroll
        for (int k = 0; k < WG4_H; k++) h[k] += H[((size_t)part * WG4_H + k) * plane + at];
    wg4_store_tile(h, y, d, m, t);
}

void wg4_transforms(const cnn_launch_args *a, const wg_dims *d, float *U, float *V, cudaStream_t st)
{
    wg4_filter<<<dim3((d->Mp + 127) / 128, d->Cp), 128, 0, st>>>(a->w, U, *d);
    GL_CHECK_LAUNCH();
    wg4_input<<<dim3((d->Tp + 127) / 128, d->Cp), 128, 0, st>>>(a->x, V, *d);
    GL_CHECK_LAUNCH();
}

extern "C" cnn_status cnn_launch_winograd4(const cnn_launch_args *a, cudaStream_t st)
{
    if (!cnn_supports_winograd(&a->s) || a->tile < 0 || a->tile >= WG4_SPLITS) return CNN_ERR_VARIANT;
    if (a->workspace_bytes < cnn_workspace_winograd4(&a->s, a->tile)) return CNN_ERR_SHAPE;
    const int parts = WG4_PARTS[a->tile];
    const wg_dims d = wg4_dims_of(&a->s);
    float *U = (float *)a->workspace, *V = U + WG4_XI * (size_t)d.Cp * d.Mp, *H = V + WG4_XI * (size_t)d.Cp * d.Tp;
    wg4_transforms(a, &d, U, V, st);
    wg4_gemm<<<dim3((unsigned)(d.Mp / WGB_TM) * (unsigned)(d.Tp / WGB_TT), 6 * parts), WGB_THREADS, 0, st>>>(U, V, H,
                                                                                                    d, parts);
    GL_CHECK_LAUNCH();
    wg4_output<<<dim3((d.T + 127) / 128, d.M), 128, 0, st>>>(H, a->y, d, parts);
    GL_CHECK_LAUNCH();
    return CNN_OK;
}
