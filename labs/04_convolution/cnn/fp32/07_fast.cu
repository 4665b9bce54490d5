/* 07_fast.cu - Lab 04, part 2: ours7_fast, the fast rung of the FP32 direct ladder (after
 * 02_06_block_tiles.cu's ours2..ours6; ours8_small, for the small layers, is 08_small.cu).
 *
 * Lesson: the same implicit GEMM, Y[M][N*H*W] = W[M][C*R*S] x im2col(X), built for throughput:
 * BK 16 (half the barriers per FFMA of ours6's BK 8), registers capped at 128 so 2 blocks of 256
 * threads share an SM (16 warps to hide latency, ours6 ran 8), a 3-stage cp.async pipeline,
 * weights copied 16 bytes at a time (K % 4 == 0), im2col addresses from a per-slice table (no
 * divisions in the gather) and, for 1x1 filters with H W % 4 == 0, x copied 16 bytes at a time
 * (im2col is then the identity). Tile shape and split-K (workspace + reduce) chosen by the
 * autotuner.
 * Limits: x, w and y each under 2^31 elements (int offsets, cnn_ladder_fits). */
#include "cnn.h"
#include "fast_rungs.h"
#include "gl_check.h"
#include "cp_async_pipe.cuh"

#define FBK 16        /* the reduction slice of ours7 */
#define FSTAGES 3     /* slices in flight: the one multiplied and two being copied */
#define A_LD (FBK + 4) /* As row stride: 16 k + 4 floats of padding (see the lane layout below) */

/* ---------------- ours7_fast ---------------- */

/* One stage: As[m][k] as the weights lie in memory (16-byte copies need the same order), rows
 * padded to 20 floats; Bs[k][p] im2col. */
template <int BM, int BN> struct fast_smem {
    __align__(16) float a[FSTAGES][BM][A_LD];
    __align__(16) float b[FSTAGES][FBK][BN];
};

/* The im2col table of one slice: reduction index k -> x offset c H W + dy W + dx, and (dy, dx);
 * dy = CNN_NO_TAP past the block's reduction range. Written by threads 0..15, one k each. */
struct fast_ktab {
    int off[4][FBK], dy[4][FBK], dx[4][FBK];
};

static __device__ __forceinline__ void fast_decode(fast_ktab &kt, const cnn_shape &d, int slot, int k, int k_end)
{
    const int t = threadIdx.x, rs = d.R * d.S, c = k / rs, r = k - c * rs, fy = r / d.S;
    const int dx = r - fy * d.S - d.pad_w, dy = fy - d.pad_h;
    kt.off[slot][t] = c * d.H * d.W + dy * d.W + dx;
    kt.dy[slot][t] = k < k_end ? dy : CNN_NO_TAP;
    kt.dx[slot][t] = dx;
}

/* What one thread copies, decoded once per block. Weights: 16-byte chunks (row t / 4 + THREADS / 4
 * q, k chunk (t % 4) 4), or single floats when K % 4 != 0. im2col: one pixel column (t % BN) and
 * every RSTEP-th slice row from t / BN; with VEC_X (1x1, H W % 4 == 0) 4 pixels (t % (BN / 4)) 4
 * and every VSTEP-th row: a warp's copies are 128 consecutive bytes of x per slice row. */
template <int BM, int BN, bool VEC_X> struct fast_loader {
    static const int THREADS = BM * BN / 64, RSTEP = THREADS / BN, VSTEP = THREADS * 4 / BN;
    int base, oy, ox; /* the pixel's x offset of (n, 0, oy, ox) and its position; oy CNN_NO_TAP past P */
    __device__ fast_loader(const cnn_shape &d, int p0)
    {
        const int t = threadIdx.x, hw = d.H * d.W, P = d.N * hw;
        const int p = p0 + (VEC_X ? (t % (BN / 4)) * 4 : t % BN), n = p / hw, q = p - n * hw;
        base = p < P ? n * d.C * hw + q : 0;
        oy = p < P ? q / d.W : CNN_NO_TAP;
        ox = q % d.W;
    }
    __device__ void copy(fast_smem<BM, BN> &sm, const fast_ktab &kt, const cnn_shape &d, const float *x,
                         const float *w, int stage, int slot, int k0, int k_end, int m0, bool vec_w) const
    {
        const int t = threadIdx.x, K = d.C * d.R * d.S;
        if (vec_w) {
#pragma unroll 1
            for (int q = 0; q < 256 / BN; q++) {
                const int row = t / 4 + THREADS / 4 * q, kc = (t % 4) * 4, gm = m0 + row;
                const bool ok = gm < d.M && k0 + kc < k_end; /* k_end % 4 == 0 too: whole chunks */
                copy_async<16>(&sm.a[stage][row][kc], ok ? w + gm * K + k0 + kc : w, ok);
            }
        } else {
#pragma unroll 1
            for (int q = 0; q < 1024 / BN; q++) {
                const int e = t + THREADS * q, row = e / FBK, kc = e % FBK, gm = m0 + row;
                const bool ok = gm < d.M && k0 + kc < k_end;
                copy_async<4>(&sm.a[stage][row][kc], ok ? w + gm * K + k0 + kc : w, ok);
            }
        }
        if (VEC_X) {
#pragma unroll 1
            for (int q = 0; q < FBK / VSTEP; q++) {
                const int kr = t / (BN / 4) + VSTEP * q;
                const bool ok = oy >= 0 && kt.dy[slot][kr] == 0; /* 1x1: dy 0 for every k < k_end */
                copy_async<16>(&sm.b[stage][kr][(t % (BN / 4)) * 4], ok ? x + base + kt.off[slot][kr] : x, ok);
            }
        } else {
#pragma unroll 1
            for (int q = 0; q < FBK / RSTEP; q++) {
                const int kr = t / BN + RSTEP * q;
                const bool ok = (unsigned)(oy + kt.dy[slot][kr]) < (unsigned)d.H &&
                                (unsigned)(ox + kt.dx[slot][kr]) < (unsigned)d.W;
                copy_async<4>(&sm.b[stage][kr][t % BN], ok ? x + base + kt.off[slot][kr] : x, ok);
            }
        }
    }
};

/* The lane layout of ours7's multiply (multiply_8xn, cp_async_pipe.cuh). Warp (wm, wn) owns a 64 x 32
 * sub-tile; lane (lm = lane % 8, ln = lane / 8) owns rows lm + 8 i (i = 0..7) and columns
 * ln 4 + 0..3, 16 + ln 4 + 0..3. As is read as float4 along k: the 8 lanes of a quarter-warp read rows r..r+7, 80 bytes apart,
 * which start in banks 0, 20, 8, 28, 16, 4, 24, 12: all 32 banks once, no conflict (rows of 16
 * floats would put all 8 in the same 4 banks). Bs is read as float4, one address per
 * quarter-warp (a broadcast). Per 4 k: 8 + 8 float4 reads for 256 FFMA. */

/* The block's outputs to NCHW: row m, 4 consecutive pixels as one float4 when H W % 4 == 0 (the
 * 4 then lie in one image, 16-byte aligned), else one float at a time. A warp's store writes
 * 64 consecutive bytes in each of 8 rows: whole 32-byte sectors. */
template <int BM, int BN>
static __device__ __forceinline__ void fast_store(float *out, const cnn_shape &d, int m0, int p0, int row0, int col0,
                                                  const float (&acc)[8][8])
{
    const int hw = d.H * d.W, P = d.N * hw;
#pragma unroll
    for (int h = 0; h < 2; h++) {
        const int p = p0 + col0 + 16 * h;
        if (p >= P) continue;
        if (hw % 4 == 0) {
            const int n = p / hw, q = p - n * hw;
#pragma unroll
            for (int i = 0; i < 8; i++) {
                const int m = m0 + row0 + 8 * i;
                if (m < d.M)
                    *(float4 *)&out[(n * d.M + m) * hw + q] =
                        make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
            }
            continue;
        }
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const int pj = p + j, n = pj / hw, q = pj - n * hw;
            if (pj >= P) break;
#pragma unroll
            for (int i = 0; i < 8; i++) {
                const int m = m0 + row0 + 8 * i;
                if (m < d.M) out[(n * d.M + m) * hw + q] = acc[i][4 * h + j];
            }
        }
    }
}

/* Lesson (ours7): the pipeline. Slices s + 1 and s + 2 are in flight (cp.async) while slice s is
 * multiplied; one barrier per slice: after it slice s has landed for everyone and everyone has
 * finished slice s - 1, whose stage slice s + 2 then overwrites. Threads 0..15 decode the im2col
 * table of slice s + 3 into slot (s + 3) % 4 (read in the next iteration, after its barrier).
 * blockIdx.z: the split of the reduction (out = workspace + z split_stride when split). */
template <int BM, int BN, bool VEC_X>
static __global__ void __launch_bounds__(BM * BN / 64, 512 / (BM * BN / 64))
    fast_gemm(const float *x, const float *w, float *out, cnn_shape d, int k_per_split, size_t split_stride,
              int vec_w)
{
    extern __shared__ float4 fast_dynamic[];
    fast_smem<BM, BN> &sm = *(fast_smem<BM, BN> *)fast_dynamic;
    __shared__ fast_ktab kt;
    const int K = d.C * d.R * d.S, t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int m0 = blockIdx.y * BM, p0 = blockIdx.x * BN;
    const int k_begin = blockIdx.z * k_per_split, k_end = min(K, k_begin + k_per_split);
    const int slices = (k_end - k_begin + FBK - 1) / FBK;
    const int row0 = (warp / (BN / 32)) * 64 + lane % 8, col0 = (warp % (BN / 32)) * 32 + (lane / 8) * 4;
    const fast_loader<BM, BN, VEC_X> L(d, p0);
    if (t < FBK)
        for (int j = 0; j < FSTAGES; j++) fast_decode(kt, d, j, k_begin + j * FBK + t, k_end);
    __syncthreads();
    for (int j = 0; j < FSTAGES - 1; j++) {
        if (j < slices) L.copy(sm, kt, d, x, w, j, j, k_begin + j * FBK, k_end, m0, vec_w);
        copy_commit();
    }
    float acc[8][8] = {};
    for (int s = 0; s < slices; s++) {
        copy_wait<FSTAGES - 2>();
        __syncthreads();
        if (t < FBK) fast_decode(kt, d, (s + 3) % 4, k_begin + (s + 3) * FBK + t, k_end);
        if (s + FSTAGES - 1 < slices)
            L.copy(sm, kt, d, x, w, (s + FSTAGES - 1) % FSTAGES, (s + 2) % 4, k_begin + (s + 2) * FBK, k_end, m0,
                   vec_w);
        copy_commit(); /* an empty group at the end keeps the count of copy_wait */
        multiply_8xn<FBK, A_LD, BN, 8, 16, 8>(sm.a[s % FSTAGES], sm.b[s % FSTAGES], row0, col0, acc);
    }
    fast_store<BM, BN>(out + blockIdx.z * split_stride, d, m0, p0, row0, col0, acc);
}

/* The tile shapes and split-K counts the autotuner chooses from. E4 (4096 x 256 x 2304) has 64
 * tiles of 128 x 128 for 132 SMs: split 2 or 4, or 128 x 64 tiles (128). */
static const struct {
    const char *name;
    int bm, bn, splits;
} FAST[] = {{"128x128", 128, 128, 1}, {"128x128_splitk2", 128, 128, 2}, {"128x128_splitk4", 128, 128, 4},
            {"128x64", 128, 64, 1},   {"128x64_splitk2", 128, 64, 2},   {"64x128", 64, 128, 1},
            {"64x64", 64, 64, 1},     {"64x64_splitk4", 64, 64, 4}};
#define N_FAST (int)(sizeof FAST / sizeof FAST[0])
static_assert(N_FAST == CNN_OURS7_TILES, "fast_rungs.h's CNN_OURS7_TILES counts the rows of FAST");

extern "C" const char *cnn_tile_name_ours7(int tile) { return tile >= 0 && tile < N_FAST ? FAST[tile].name : "?"; }

extern "C" size_t cnn_workspace_ours7(const cnn_shape *s, int tile)
{
    if (tile < 0 || tile >= N_FAST) return 0;
    int used;
    cnn_per_split(s->C * s->R * s->S, FAST[tile].splits, FBK, &used);
    return used > 1 ? (size_t)used * s->N * s->M * s->H * s->W * sizeof(float) : 0;
}

template <int BM, int BN, bool VEC_X>
static void fast_launch(const cnn_launch_args *a, float *out, dim3 grid, int per, size_t ny, cudaStream_t st)
{
    const size_t smem = sizeof(fast_smem<BM, BN>);
    static int opted_in; /* above 48 KiB of dynamic shared memory a kernel must ask for it */
    if (!opted_in)
        GL_CHECK(cudaFuncSetAttribute(fast_gemm<BM, BN, VEC_X>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)smem));
    opted_in = 1;
    const int K = a->s.C * a->s.R * a->s.S;
    fast_gemm<BM, BN, VEC_X><<<grid, BM * BN / 64, smem, st>>>(a->x, a->w, out, a->s, per, ny, K % 4 == 0);
    GL_CHECK_LAUNCH();
}

template <int BM, int BN>
static void fast_dispatch(const cnn_launch_args *a, float *out, dim3 grid, int per, size_t ny, cudaStream_t st)
{
    const cnn_shape *s = &a->s;
    if (s->R == 1 && s->S == 1 && s->H * s->W % 4 == 0) fast_launch<BM, BN, true>(a, out, grid, per, ny, st);
    else fast_launch<BM, BN, false>(a, out, grid, per, ny, st);
}

extern "C" cnn_status cnn_launch_ours7(const cnn_launch_args *a, cudaStream_t st)
{
    const cnn_shape *s = &a->s;
    const int tile = a->tile;
    if (!cnn_ladder_fits(s) || tile < 0 || tile >= N_FAST) return CNN_ERR_SHAPE;
    const int K = s->C * s->R * s->S, P = s->N * s->H * s->W, bm = FAST[tile].bm, bn = FAST[tile].bn;
    int used;
    const int per = cnn_per_split(K, FAST[tile].splits, FBK, &used);
    const size_t ny = (size_t)P * s->M;
    if (used > 1 && a->workspace_bytes < used * ny * sizeof(float)) return CNN_ERR_SHAPE;
    float *out = used > 1 ? (float *)a->workspace : a->y;
    const dim3 grid((P + bn - 1) / bn, (s->M + bm - 1) / bm, used);
    if (bm == 128 && bn == 128) fast_dispatch<128, 128>(a, out, grid, per, ny, st);
    else if (bm == 128) fast_dispatch<128, 64>(a, out, grid, per, ny, st);
    else if (bn == 128) fast_dispatch<64, 128>(a, out, grid, per, ny, st);
    else fast_dispatch<64, 64>(a, out, grid, per, ny, st);
    if (used > 1) cnn_sum_splits(out, a->y, ny, used, st);
    return CNN_OK;
}
