/* 01_wino2x2.cu - Lab 04, part 2: Winograd F(2x2, 3x3) for the 3x3 layers (stride 1, pad 1), FP32.
 *
 * Lesson: a 2x2 block of outputs of a 3x3 filter needs 36 multiplications directly, 16 after the
 * Winograd transforms: y = A^T [ (G g G^T) .* (B^T d B) ] A per channel, summed over channels, where
 * d is the 4x4 input tile and g the 3x3 filter. Summing over channels first turns the 16 element-wise
 * products into 16 independent GEMMs, U[xi] (M x C) times V[xi] (C x tiles), one per position xi of
 * the 4x4 transformed tile: 2.25x fewer multiplications than the direct sum, paid for with transforms
 * (additions) and with rounding error (see the bound in cnn_bounds.c).
 *
 * Three kernels per call (all timed: the weights are transformed on every call, nothing is cached):
 *   winograd_filter  U[xi][c][m] = (G g_mc G^T)[xi], zero-padded to Cp x Mp
 *   winograd_input   V[xi][c][t] = (B^T d_ct B)[xi], zero-padded to Cp x Tp, into the workspace
 *   winograd_gemm    the 16 GEMMs of one 32 (m) x 32 (tile) block, all 16 xi in one block, with the
 *                    output transform A^T m A fused into the epilogue (the 16 products of an output
 *                    tile never leave the chip).
 * Transformed filter: G = [1 0 0; 1/2 1/2 1/2; 1/2 -1/2 1/2; 0 0 1]; input: B^T = [1 0 -1 0; 0 1 1 0;
 * 0 -1 1 0; 0 1 0 -1]; output: A^T = [1 1 1 0; 0 1 -1 -1] (cross-correlation, as cuDNN and the
 * reference compute). */
#include "winograd.h"
#include "gl_check.h"

#define WG_TILE 32    /* output channels (m) and tiles (t) per GEMM block */
#define WG_BC 8       /* channels per shared-memory slice */
#define WG_THREADS 256

wg_dims wg_dims_of(const cnn_shape *s, int c_pad, int m_pad, int t_pad)
{
    wg_dims d;
    d.N = s->N, d.C = s->C, d.H = s->H, d.W = s->W, d.M = s->M;
    d.th = (s->H + 1) / 2, d.tw = (s->W + 1) / 2, d.T = s->N * d.th * d.tw;
    d.Cp = (s->C + c_pad - 1) / c_pad * c_pad;
    d.Mp = (s->M + m_pad - 1) / m_pad * m_pad;
    d.Tp = (d.T + t_pad - 1) / t_pad * t_pad;
    return d;
}

extern "C" int cnn_supports_winograd(const cnn_shape *s) { return s->R == 3 && s->S == 3; }

extern "C" size_t cnn_workspace_winograd(const cnn_shape *s, int tile)
{
    (void)tile;
    if (!cnn_supports_winograd(s)) return 0;
    wg_dims d = wg_dims_of(s, WG_BC, WG_TILE, WG_TILE);
    return 16 * (size_t)d.Cp * ((size_t)d.Mp + d.Tp) * sizeof(float);
}

/* Lesson: U = G g G^T, 16 values from 9; the 1/2 entries are exact in binary (a power of two). */
static __global__ void winograd_filter(const float *w, float *U, wg_dims d)
{
    const int m = blockIdx.x * blockDim.x + threadIdx.x, c = blockIdx.y;
    if (m >= d.Mp) return;
    float g[3][3], t[4][3];
    const bool real = m < d.M && c < d.C;
    for (int r = 0; r < 3; r++)
        for (int s = 0; s < 3; s++) g[r][s] = real ? w[((size_t)m * d.C + c) * 9 + r * 3 + s] : 0.0f;
    for (int s = 0; s < 3; s++) { /* t = G g */
        t[0][s] = g[0][s];
        t[1][s] = 0.5f * (g[0][s] + g[1][s] + g[2][s]);
        t[2][s] = 0.5f * (g[0][s] - g[1][s] + g[2][s]);
        t[3][s] = g[2][s];
    }
    const size_t plane = (size_t)d.Cp * d.Mp, at = (size_t)c * d.Mp + m;
    for (int i = 0; i < 4; i++) { /* U = t G^T */
        U[(i * 4 + 0) * plane + at] = t[i][0];
        U[(i * 4 + 1) * plane + at] = 0.5f * (t[i][0] + t[i][1] + t[i][2]);
        U[(i * 4 + 2) * plane + at] = 0.5f * (t[i][0] - t[i][1] + t[i][2]);
        U[(i * 4 + 3) * plane + at] = t[i][2];
    }
}

/* Lesson: V = B^T d B: additions and subtractions only (B has entries 0 and +-1). One thread per
 * (channel, tile); the 4x4 input tiles overlap by 2 (a 2x2 output tile needs a 4x4 input). */
static __global__ void winograd_input(const float *x, float *V, wg_dims d)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x, c = blockIdx.y;
    if (t >= d.Tp) return;
    float v[4][4], b[4][4];
    const bool real = t < d.T && c < d.C;
    const int per_image = d.th * d.tw, n = t / per_image, q = t - n * per_image;
    const int y0 = (q / d.tw) * 2 - 1, x0 = (q % d.tw) * 2 - 1; /* pad 1 */
    const float *xc = x + ((size_t)n * d.C + c) * d.H * d.W;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            const int iy = y0 + i, ix = x0 + j;
            v[i][j] = real && (unsigned)iy < (unsigned)d.H && (unsigned)ix < (unsigned)d.W ? xc[iy * d.W + ix] : 0.0f;
        }
    for (int j = 0; j < 4; j++) { /* b = B^T v */
        b[0][j] = v[0][j] - v[2][j];
        b[1][j] = v[1][j] + v[2][j];
        b[2][j] = v[2][j] - v[1][j];
        b[3][j] = v[1][j] - v[3][j];
    }
    const size_t plane = (size_t)d.Cp * d.Tp, at = (size_t)c * d.Tp + t;
    for (int i = 0; i < 4; i++) { /* V = b B */
        V[(i * 4 + 0) * plane + at] = b[i][0] - b[i][2];
        V[(i * 4 + 1) * plane + at] = b[i][1] + b[i][2];
        V[(i * 4 + 2) * plane + at] = b[i][2] - b[i][1];
        V[(i * 4 + 3) * plane + at] = b[i][1] - b[i][3];
    }
}

void wg_transforms(const cnn_launch_args *a, const wg_dims *d, float *U, float *V, cudaStream_t st)
{
    winograd_filter<<<dim3((d->Mp + 127) / 128, d->Cp), 128, 0, st>>>(a->w, U, *d);
    GL_CHECK_LAUNCH();
    winograd_input<<<dim3((d->Tp + 127) / 128, d->Cp), 128, 0, st>>>(a->x, V, *d);
    GL_CHECK_LAUNCH();
}

/* The two 2-vectors of A^T m for one 4-vector m. */
static __device__ __forceinline__ void at_times(const float m0, const float m1, const float m2, const float m3,
                                                float *o0, float *o1)
{
    *o0 = m0 + m1 + m2;
    *o1 = m1 - m2 - m3;
}

/* Lesson: 16 GEMMs in one block, then the output transform where the 16 sums already are. Block:
 * 32 output channels x 32 tiles x 16 xi; thread: 4 xi x 4 m x 4 t (64 accumulators), so every
 * shared-memory float4 read feeds 4 FFMAs, as in ours. Each 8-channel slice of U and V (32 KB) is
 * read from the workspace into registers while the previous slice is multiplied. The epilogue
 * writes the products to shared memory (half of the 32 m at a time: 32 KB), and each thread then
 * reads the 16 products of one (m, tile) and writes its 2x2 outputs. */
static __global__ void __launch_bounds__(WG_THREADS) winograd_gemm(const float *U, const float *V, float *y,
                                                                     wg_dims d)
{
    __shared__ __align__(16) float sm[2 * 16 * WG_BC * WG_TILE]; /* Us | Vs; then the products */
    float *Us = sm, *Vs = sm + 16 * WG_BC * WG_TILE;              /* [xi][c][m], [xi][c][t] */
    const int tid = threadIdx.x, m0 = blockIdx.y * WG_TILE, t0 = blockIdx.x * WG_TILE;
    const int grp = tid / 64, pos = tid % 64, tm = pos / 8, tt = pos % 8; /* xi 4grp.., m 4tm.., t 4tt.. */
    const size_t uplane = (size_t)d.Cp * d.Mp, vplane = (size_t)d.Cp * d.Tp;
    float acc[4][4][4] = {};
    float4 u_next[4], v_next[4];
    /* Slice c0: float4 number f = tid + 256 q is (xi = f / 64, c = f / 8 % 8, 4 columns f % 8). */
#define WG_LOAD(c0)                                                                                 \
    _Pragma("unroll") for (int q = 0; q < 4; q++) {                                                 \
        const int f = tid + WG_THREADS * q, xi = f / 64, cc = (c0) + f / 8 % 8, col = f % 8 * 4;    \
        u_next[q] = *(const float4 *)(U + xi * uplane + (size_t)cc * d.Mp + m0 + col);              \
        v_next[q] = *(const float4 *)(V + xi * vplane + (size_t)cc * d.Tp + t0 + col);              \
    }
    WG_LOAD(0)
    for (int c0 = 0; c0 < d.Cp; c0 += WG_BC) {
#pragma unroll
        for (int q = 0; q < 4; q++) { /* same (xi, c, column) order as the workspace */
            ((float4 *)Us)[tid + WG_THREADS * q] = u_next[q];
            ((float4 *)Vs)[tid + WG_THREADS * q] = v_next[q];
        }
        __syncthreads();
        if (c0 + WG_BC < d.Cp) {
            WG_LOAD(c0 + WG_BC)
        }
#pragma unroll
        for (int cc = 0; cc < WG_BC; cc++)
#pragma unroll
            for (int xq = 0; xq < 4; xq++) {
                const int xi = grp * 4 + xq;
                const float4 a = ((const float4 *)Us)[(xi * WG_BC + cc) * (WG_TILE / 4) + tm];
                const float4 b = ((const float4 *)Vs)[(xi * WG_BC + cc) * (WG_TILE / 4) + tt];
                const float av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
                for (int i = 0; i < 4; i++)
#pragma unroll
                    for (int j = 0; j < 4; j++) acc[xq][i][j] = fmaf(av[i], bv[j], acc[xq][i][j]);
            }
        __syncthreads();
    }
#undef WG_LOAD
    /* Epilogue, per half of the block's 32 m: products to sm[xi][m 0..15][t 0..31], then transforms. */
    for (int half = 0; half < 2; half++) {
        if (tm / 4 == half) {
#pragma unroll
            for (int xq = 0; xq < 4; xq++)
#pragma unroll
                for (int i = 0; i < 4; i++) {
                    const int xi = grp * 4 + xq, ml = (tm % 4) * 4 + i;
                    ((float4 *)sm)[(xi * 16 + ml) * (WG_TILE / 4) + tt] =
                        make_float4(acc[xq][i][0], acc[xq][i][1], acc[xq][i][2], acc[xq][i][3]);
                }
        }
        __syncthreads();
        for (int p = tid; p < 16 * WG_TILE; p += WG_THREADS) {
            const int ml = p / WG_TILE, tl = p % WG_TILE, m = m0 + half * 16 + ml, t = t0 + tl;
            float mt[4][4], h[2][4];
#pragma unroll
            for (int xi = 0; xi < 16; xi++) mt[xi / 4][xi % 4] = sm[(xi * 16 + ml) * WG_TILE + tl];
#pragma unroll
            for (int j = 0; j < 4; j++) at_times(mt[0][j], mt[1][j], mt[2][j], mt[3][j], &h[0][j], &h[1][j]);
            float o[2][2];
#pragma unroll
            for (int i = 0; i < 2; i++) at_times(h[i][0], h[i][1], h[i][2], h[i][3], &o[i][0], &o[i][1]);
            if (m >= d.M || t >= d.T) continue;
            const int per_image = d.th * d.tw, n = t / per_image, q = t - n * per_image;
            const int oy = (q / d.tw) * 2, ox = (q % d.tw) * 2;
            float *yo = y + ((size_t)n * d.M + m) * d.H * d.W;
#pragma unroll
            for (int i = 0; i < 2; i++)
#pragma unroll
                for (int j = 0; j < 2; j++)
                    if (oy + i < d.H && ox + j < d.W) yo[(oy + i) * d.W + ox + j] = o[i][j];
        }
        __syncthreads(); /* before the second half overwrites the products */
    }
}

extern "C" cnn_status cnn_launch_winograd(const cnn_launch_args *a, cudaStream_t st)
{
    if (!cnn_supports_winograd(&a->s)) return CNN_ERR_VARIANT;
    if (a->workspace_bytes < cnn_workspace_winograd(&a->s, 0)) return CNN_ERR_SHAPE;
    wg_dims d = wg_dims_of(&a->s, WG_BC, WG_TILE, WG_TILE);
    float *U = (float *)a->workspace, *V = U + 16 * (size_t)d.Cp * d.Mp;
    wg_transforms(a, &d, U, V, st);
    winograd_gemm<<<dim3(d.Tp / WG_TILE, d.Mp / WG_TILE), WG_THREADS, 0, st>>>(U, V, a->y, d);
    GL_CHECK_LAUNCH();
    return CNN_OK;
}
