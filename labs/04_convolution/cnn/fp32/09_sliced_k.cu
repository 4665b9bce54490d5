/* 09_sliced_k.cu - Lab 04, part 2: ours9_sliced_k, the rung for the mid-sized layers where even
 * ours7's 64 x 64 tiles leave SMs idle (T3B: 1024 x 196 outputs, T3C: 256 x 729, E2: 128 x 1024).
 * ours7 and ours6 fill the GPU there by split-K: a workspace, a second kernel that sums the
 * partial outputs, and 2-4x the output traffic. This rung splits K inside the block instead
 * (sliced-K): small block tiles (32 x 16 .. 64 x 64, enough blocks for 132 SMs) and G groups of
 * warps in each block, every group multiplying its share of each 64-deep reduction slice into
 * the same 4 x 4 outputs per thread; at the end the G partial tiles meet in shared memory and one
 * pass sums and stores them. One kernel, no workspace, no atomics.
 *
 * The slice pipeline: 2 stages fed by cp.async (sm_80+; plain loads on sm_75), weights copied 16
 * bytes at a time (K % 4 == 0), x 16 bytes at a time for 1x1 filters with H W % 4 == 0 (T3B),
 * else 4 bytes at a time through a per-slice im2col table (T3C's 27 x 27 rows are not 16-byte
 * aligned; E2's 3x3 taps). With K <= 64 (T3C) the whole reduction is one slice: one copy, one
 * wait, no pipeline. Tile shape and G chosen by the autotuner.
 * Limits: x, w and y each under 2^31 elements (int offsets, cnn_ladder_fits). */
#include "cnn.h"
#include "fast_rungs.h"
#include "gl_check.h"
#include "cp_async_pipe.cuh"
#include "sliced_k.cuh"
#include "halo_tiles.cuh"

/* Lesson (ours9): the block's warps split K. The block's whole reduction, slice by slice
 * (sk_accumulate: slice s + 1 in flight while group g multiplies its SK / G rows of slice s); then
 * the G partial tiles meet in shared memory and are summed once. */
template <int BM, int BN, int G, int ST, bool VEC_X>
static __global__ void __launch_bounds__(sk_shape<BM, BN, G, ST>::THREADS, sk_shape<BM, BN, G, ST>::MIN_BLOCKS)
    sliced_k_gemm(const float *x, const float *w, float *y, cnn_shape d, int vec_w)
{
    const int THREADS = sk_shape<BM, BN, G, ST>::THREADS, TG = THREADS / G;
    extern __shared__ float4 sk_dynamic[];
    __shared__ sk_ktab<ST> kt;
    const int K = d.C * d.R * d.S, t = threadIdx.x, g = t / TG, tm = (t % TG) / (BN / 4), tn = t % (BN / 4);
    const int m0 = blockIdx.y * BM, p0 = blockIdx.x * BN, slices = (K + SK - 1) / SK;
    float acc[4][4] = {};
    sk_accumulate<BM, BN, G, VEC_X, ST>(x, w, d, vec_w, m0, p0, 0, slices, (sk_stage<BM, BN> *)sk_dynamic, kt, acc);
    sk_finish<BM, BN, G, THREADS>((float *)sk_dynamic, y, d, m0, p0, g, tm, tn, acc); /* red over the stages */
}

/* Block tile (BM x BN) and warp groups G (threads G BM BN / 16): the autotuner's choices. T3B
 * (M 1024, P 196): 224 blocks of 32 x 32, 448 of 16 x 32; T3C (256 x 729): 184 of 32 x 32, 368 of
 * 32 x 16 or 16 x 32; E2 (128 x 1024): 128 of 32 x 32, 256 of 32 x 16 or 16 x 32 (2 per SM).
 * G 16 (512 threads, 16 warps on the SM): E1 (64 x 1024, 9 slices) has 128 blocks of 32 x 16 or
 * 16 x 32 whichever G, one per SM; with 16 groups each multiplies 4 k per slice (64 FFMA a
 * thread, G 8: 128), so the chain of 9 slices, each a copy's latency and two barriers, is shorter
 * by half its multiply. _s3 / _s4: 3 or 4 stages (ST), up to 3 slices in flight while one is
 * multiplied, so E1's chain pays about one copy latency per ST - 1 slices instead of one per slice.
 * _hG_sST (groups -G in the table): the halo kernel (halo_tiles.cuh), slices of G channels, each
 * input row copied once for its 3 taps; layers it does not fit run 32x16_g16_s4 instead. */
static const struct {
    const char *name;
    int bm, bn, groups, stages;
} SLICED[] = {{"32x32_g4", 32, 32, 4, 2},      {"32x32_g8", 32, 32, 8, 2},      {"32x32_g2", 32, 32, 2, 2},
              {"32x16_g8", 32, 16, 8, 2},      {"32x16_g4", 32, 16, 4, 2},      {"64x32_g4", 64, 32, 4, 2},
              {"32x64_g4", 32, 64, 4, 2},      {"16x32_g8", 16, 32, 8, 2},      {"32x16_g16", 32, 16, 16, 2},
              {"16x32_g16", 16, 32, 16, 2},    {"32x16_g16_s4", 32, 16, 16, 4}, {"32x16_g16_s3", 32, 16, 16, 3},
              {"32x16_g8_s4", 32, 16, 8, 4},   {"16x32_g16_s4", 16, 32, 16, 4}, {"32x16_h8_s4", 32, 16, -8, 4},
              {"32x16_h8_s3", 32, 16, -8, 3},  {"32x16_h16_s2", 32, 16, -16, 2}};
#define N_SLICED (int)(sizeof SLICED / sizeof SLICED[0])
static_assert(N_SLICED == CNN_OURS9_TILES, "fast_rungs.h's CNN_OURS9_TILES counts the rows of SLICED");

extern "C" const char *cnn_tile_name_ours9(int tile)
{
    return tile >= 0 && tile < N_SLICED ? SLICED[tile].name : "?";
}

/* The rule: layers of at most 2^19 outputs (M N H W: T3A .. E3), where 128 x 128 tiles would
 * number fewer than 32 and ours7 needs split-K; the kernel is right for any shape. */
extern "C" int cnn_supports_ours9(const cnn_shape *s) { return (double)s->M * s->N * s->H * s->W <= 524288.0; }

template <int BM, int BN, int G, int ST, bool VEC_X>
static void sliced_launch(const cnn_launch_args *a, cudaStream_t st)
{
    const cnn_shape *s = &a->s;
    const size_t smem = sk_shape<BM, BN, G, ST>::SMEM;
    static int opted_in; /* above 48 KiB of dynamic shared memory a kernel must ask for it */
    if (!opted_in)
        GL_CHECK(cudaFuncSetAttribute(sliced_k_gemm<BM, BN, G, ST, VEC_X>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)smem));
    opted_in = 1;
    const dim3 grid((s->N * s->H * s->W + BN - 1) / BN, (s->M + BM - 1) / BM);
    sliced_k_gemm<BM, BN, G, ST, VEC_X><<<grid, sk_shape<BM, BN, G, ST>::THREADS, smem, st>>>(
        a->x, a->w, a->y, *s, s->C * s->R * s->S % 4 == 0);
    GL_CHECK_LAUNCH();
}

template <int BM, int G, int ST> static void halo_launch(const cnn_launch_args *a, cudaStream_t st)
{
    const cnn_shape *s = &a->s;
    const size_t smem = hk_shape<BM, G, ST>::SMEM;
    static int opted_in;
    if (!opted_in)
        GL_CHECK(cudaFuncSetAttribute(halo_k_gemm<BM, G, ST>, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    opted_in = 1;
    const dim3 grid(s->N * s->H * s->W / HK_BN, (s->M + BM - 1) / BM);
    halo_k_gemm<BM, G, ST><<<grid, hk_shape<BM, G, ST>::THREADS, smem, st>>>(a->x, a->w, a->y, *s);
    GL_CHECK_LAUNCH();
}

template <int BM, int BN, int G, int ST = 2> static void sliced_dispatch(const cnn_launch_args *a, cudaStream_t st)
{
    const cnn_shape *s = &a->s;
    if (s->R == 1 && s->S == 1 && s->H * s->W % 4 == 0) sliced_launch<BM, BN, G, ST, true>(a, st);
    else sliced_launch<BM, BN, G, ST, false>(a, st);
}

extern "C" cnn_status cnn_launch_ours9(const cnn_launch_args *a, cudaStream_t st)
{
    const int tile = a->tile;
    if (!cnn_ladder_fits(&a->s) || tile < 0 || tile >= N_SLICED) return CNN_ERR_SHAPE;
    const int bm = SLICED[tile].bm, bn = SLICED[tile].bn, g = SLICED[tile].groups, stages = SLICED[tile].stages;
    if (g < 0 && hk_fits(&a->s)) {
        if (g == -16) halo_launch<32, 16, 2>(a, st);
        else if (stages == 3) halo_launch<32, 8, 3>(a, st);
        else halo_launch<32, 8, 4>(a, st);
        return CNN_OK;
    }
    if (g < 0) sliced_dispatch<32, 16, 16, 4>(a, st);
    else if (stages == 4 && bm == 16) sliced_dispatch<16, 32, 16, 4>(a, st);
    else if (stages == 4 && g == 8) sliced_dispatch<32, 16, 8, 4>(a, st);
    else if (stages == 4) sliced_dispatch<32, 16, 16, 4>(a, st);
    else if (stages == 3) sliced_dispatch<32, 16, 16, 3>(a, st);
    else if (g == 16 && bm == 16) sliced_dispatch<16, 32, 16>(a, st);
    else if (g == 16) sliced_dispatch<32, 16, 16>(a, st);
    else if (bm == 16) sliced_dispatch<16, 32, 8>(a, st);
    else if (bm == 64) sliced_dispatch<64, 32, 4>(a, st);
    else if (bn == 64) sliced_dispatch<32, 64, 4>(a, st);
    else if (bn == 16 && g == 8) sliced_dispatch<32, 16, 8>(a, st);
    else if (bn == 16) sliced_dispatch<32, 16, 4>(a, st);
    else if (g == 8) sliced_dispatch<32, 32, 8>(a, st);
    else if (g == 4) sliced_dispatch<32, 32, 4>(a, st);
    else sliced_dispatch<32, 32, 2>(a, st);
    return CNN_OK;
}
