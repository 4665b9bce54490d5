/* 02_wino2x2_big.cu - Lab 04, part 2: Winograd F(2x2, 3x3) with a GEMM built like the ladder's.
 *
 * Lesson: ours_wino2x2 keeps all 16 products of an output tile in one block, so its block tile is
 * only 32 (m) x 32 (tiles) x 16 (xi) and every thread holds 64 accumulators for 16 outputs' worth of
 * work: each slice of U and V read from the workspace feeds 16 FMAs per float, and at 215 registers
 * one block runs per SM. The output transform is linear, y = sum_xi M[xi] (A^T E_xi A), so it does
 * not need the 16 products at once: a block can do the 16 GEMMs one after the other, each over all
 * C channels, and after each fold its finished products into the 2x2 outputs it keeps in registers,
 * out += (A^T E_xi A) .* M[xi] (coefficients 0 and +-1: an exact multiply, one rounded add). The
 * block tile is then 64 (m) x 64 (tiles) of one xi at a time (32 FMAs per float read from the
 * workspace), a thread holds 4 x 4 products and their 4 x 4 x 4 outputs (at most 128 registers:
 * two blocks per SM), and the slices arrive by cp.async into double-buffered shared memory (sm_80+;
 * a plain copy below). The input transform still goes through DRAM (the workspace V, written by
 * winograd_input): computing V inside the GEMM would read each input 16 times over, once per xi.
 *
 * Few tiles (E2: 256 tiles, 128 m: 8 blocks of 64 x 64) would leave most SMs idle, so the 16 xi can
 * be split among 1, 2, 4, 8 or 16 blocks (the row's tile configurations, chosen by the autotuner):
 * each adds its part of the outputs into y with atomicAdd after a memset. The rounding count of
 * this summation is in cnn_bounds.c (cnn_bound_winograd_acc). */
#include "wino_gemm.cuh"
#include "gl_check.h"

extern "C" size_t cnn_workspace_winograd_big(const cnn_shape *s, int tile)
{
    (void)tile;
    if (!cnn_supports_winograd(s)) return 0;
    wg_dims d = wg_dims_of(s, WGB_BK, WGB_TM, WGB_TT);
    return 16 * (size_t)d.Cp * ((size_t)d.Mp + d.Tp) * sizeof(float);
}

extern "C" const char *cnn_tile_name_winograd_big(int tile)
{
    static const char *names[WGB_SPLITS] = {"xi16", "xi8x2", "xi4x4", "xi2x8", "xi1x16"};
    return tile >= 0 && tile < WGB_SPLITS ? names[tile] : "?";
}

/* out[i][j][2a + b] += (A^T E_xi A)[a][b] acc[i][j] for the finished products of xi, then acc = 0.
 * A^T = [1 1 1 0; 0 1 -1 -1]: the coefficient of xi = 4p + q at output (a, b) is A^T[a][p] A^T[b][q]. */
static __device__ __forceinline__ void fold_products(float acc[4][4], float out[4][4][4], const int xi)
{
    const int p = xi / 4, q = xi % 4;
    const float r0 = p < 3 ? 1.0f : 0.0f, r1 = p == 0 ? 0.0f : (p == 1 ? 1.0f : -1.0f);
    const float c0 = q < 3 ? 1.0f : 0.0f, c1 = q == 0 ? 0.0f : (q == 1 ? 1.0f : -1.0f);
    const float k[4] = {r0 * c0, r0 * c1, r1 * c0, r1 * c1};
    wg_fold4(acc, out, k);
}

/* The fold of ours_wino2x2_big: the thread's 4 x 4 x 4 outputs, in registers. */
struct fold_2x2 {
    float out[4][4][4];
    __device__ __forceinline__ void operator()(float acc[4][4], const int xi) { fold_products(acc, out, xi); }
};

/* Lesson: the 16 GEMMs one after the other, the output transform folded in after each. Block:
 * 64 m x 64 tiles, xi from blockIdx.y * xi_per_block on (the GEMM: wg_gemm_xi, wino_gemm.cuh). */
static __global__ void __launch_bounds__(WGB_THREADS, 2)
    winograd_gemm_acc(const float *U, const float *V, float *y, wg_dims d, int xi_per_block, int add)
{
    const wg_place p = wg_place_of(d);
    const int tm = p.tm, tt = p.tt, m0 = p.m0, t0 = p.t0;
    fold_2x2 f;
    wg_zero4(f.out);
    wg_gemm_xi(U, V, d, p, (int)blockIdx.y * xi_per_block, xi_per_block, f);
    float(&out)[4][4][4] = f.out;
    const int per_image = d.th * d.tw;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const int t = t0 + tt * 4 + j;
        if (t >= d.T) continue;
        const int n = t / per_image, q = t - n * per_image, oy = q / d.tw * 2, ox = q % d.tw * 2;
#pragma unroll
        for (int i = 0; i < 4; i++) {
            const int m = m0 + tm * 4 + i;
            if (m >= d.M) continue;
            float *yo = y + ((size_t)n * d.M + m) * d.H * d.W;
#pragma unroll
            for (int o = 0; o < 4; o++) {
                const int oy_o = oy + o / 2, ox_o = ox + o % 2;
                if (oy_o >= d.H || ox_o >= d.W) continue;
                if (add)
                    atomicAdd(&yo[oy_o * d.W + ox_o], out[i][j][o]);
                else
                    yo[oy_o * d.W + ox_o] = out[i][j][o];
            }
        }
    }
}

extern "C" cnn_status cnn_launch_winograd_big(const cnn_launch_args *a, cudaStream_t st)
{
    if (!cnn_supports_winograd(&a->s) || a->tile < 0 || a->tile >= WGB_SPLITS) return CNN_ERR_VARIANT;
    if (a->workspace_bytes < cnn_workspace_winograd_big(&a->s, a->tile)) return CNN_ERR_SHAPE;
    wg_dims d = wg_dims_of(&a->s, WGB_BK, WGB_TM, WGB_TT);
    float *U = (float *)a->workspace, *V = U + 16 * (size_t)d.Cp * d.Mp;
    wg_transforms(a, &d, U, V, st);
    const int split = 1 << a->tile;
    if (split > 1) GL_CHECK(cudaMemsetAsync(a->y, 0, (size_t)d.N * d.M * d.H * d.W * sizeof(float), st));
    const dim3 grid((unsigned)(d.Mp / WGB_TM) * (unsigned)(d.Tp / WGB_TT), split);
    winograd_gemm_acc<<<grid, WGB_THREADS, 0, st>>>(U, V, a->y, d, 16 / split, split > 1);
    GL_CHECK_LAUNCH();
    return CNN_OK;
}
