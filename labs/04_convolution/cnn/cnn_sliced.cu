/* cnn_sliced.cu - Lab 04, part 2: ours9_sliced_k, the rung for the mid-sized layers where even
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
#include "cnn_fast.h"
#include "gl_check.h"
#include "cnn_pipe.cuh"

#define SK 64                  /* the reduction slice */
#define SK_LD (SK + 4)         /* As row stride: 68 floats, rows 16-byte aligned, 4 banks apart */
#define SK_NO_TAP (-(1 << 20)) /* a dy outside every image: the tap reads as zero */

/* Shared memory: 2 stages of As[m][k] (as the weights lie) and Bs[k][p] (im2col), reused at the
 * end as the G partial tiles red[g][m][p]; the im2col tables of 2 slices. */
template <int BM, int BN> struct sk_stage {
    __align__(16) float a[BM][SK_LD];
    __align__(16) float b[SK][BN];
};
struct sk_ktab {
    int off[2][SK], dy[2][SK], dx[2][SK];
};

/* Threads 0..SK-1 decode slice `slice` into table slot slice % 2: k -> x offset c H W + dy W + dx
 * and (dy, dx); dy = SK_NO_TAP past K. */
static __device__ __forceinline__ void sk_decode(sk_ktab &kt, const cnn_shape &d, int slice)
{
    const int t = threadIdx.x, k = slice * SK + t, K = d.C * d.R * d.S, rs = d.R * d.S;
    const int c = k / rs, r = k - c * rs, fy = r / d.S, dy = fy - d.pad_h, dx = r - fy * d.S - d.pad_w;
    kt.off[slice % 2][t] = c * d.H * d.W + dy * d.W + dx;
    kt.dy[slice % 2][t] = k < K ? dy : SK_NO_TAP;
    kt.dx[slice % 2][t] = dx;
}

/* One slice into one stage (copy_w, copy_x: the weights need no im2col table). Weights: 16-byte
 * chunks (row e / 16, k (e % 16) 4) when K % 4 == 0, else single floats; 16 lanes read one row's
 * 256 bytes. im2col: thread t always copies pixel column t % BN (VEC_X: pixels (t % (BN / 4)) 4 ..
 * + 3), base/oy/ox decoded once per block. */
template <int BM, int BN, int THREADS, bool VEC_X> struct sk_loader {
    static_assert(THREADS >= SK && THREADS % BN == 0 && (BM * SK) % THREADS == 0 && (SK * BN) % THREADS == 0,
                  "whole rounds of 4-byte copies, a fixed pixel column per thread, one table entry per thread");
    static __host__ __device__ constexpr int STEPS(int n) { return (n + THREADS - 1) / THREADS; }
    int base, oy, ox; /* x offset of (n, 0, oy, ox); oy = SK_NO_TAP past the last pixel */
    __device__ sk_loader(const cnn_shape &d, int p0)
    {
        const int hw = d.H * d.W, P = d.N * hw, t = threadIdx.x;
        const int p = p0 + (VEC_X ? (t % (BN / 4)) * 4 : t % BN), n = p / hw, q = p - n * hw;
        base = p < P ? n * d.C * hw + q : 0;
        oy = p < P ? q / d.W : SK_NO_TAP;
        ox = q % d.W;
    }
    __device__ void copy_w(sk_stage<BM, BN> &st, const cnn_shape &d, const float *w, int slice, int m0,
                           bool vec_w) const
    {
        const int t = threadIdx.x, K = d.C * d.R * d.S, k0 = slice * SK;
        if (vec_w) {
#pragma unroll
            for (int q = 0; q < STEPS(BM * SK / 4); q++) {
                const int e = t + THREADS * q, row = e / (SK / 4), kc = (e % (SK / 4)) * 4;
                if (BM * SK / 4 % THREADS != 0 && e >= BM * SK / 4) break;
                const bool ok = m0 + row < d.M && k0 + kc < K; /* K % 4 == 0: whole chunks */
                copy_async<16>(&st.a[row][kc], ok ? w + (m0 + row) * K + k0 + kc : w, ok);
            }
        } else {
#pragma unroll 4
            for (int q = 0; q < STEPS(BM * SK); q++) {
                const int e = t + THREADS * q, row = e / SK, kc = e % SK;
                const bool ok = m0 + row < d.M && k0 + kc < K;
                copy_async<4>(&st.a[row][kc], ok ? w + (m0 + row) * K + k0 + kc : w, ok);
            }
        }
    }
    __device__ void copy_x(sk_stage<BM, BN> &st, const sk_ktab &kt, const float *x, int slice, int H, int W) const
    {
        const int t = threadIdx.x, slot = slice % 2;
        if (VEC_X) { /* 1x1: every tap has dy 0, off c H W; SK_NO_TAP past K */
#pragma unroll
            for (int q = 0; q < STEPS(SK * BN / 4); q++) {
                const int kr = t / (BN / 4) + THREADS / (BN / 4) * q;
                if (SK * BN / 4 % THREADS != 0 && kr >= SK) break;
                const bool ok = oy >= 0 && kt.dy[slot][kr] == 0;
                copy_async<16>(&st.b[kr][(t % (BN / 4)) * 4], ok ? x + base + kt.off[slot][kr] : x, ok);
            }
        } else {
#pragma unroll 4
            for (int q = 0; q < STEPS(SK * BN); q++) {
                const int kr = t / BN + THREADS / BN * q;
                const bool ok =
                    (unsigned)(oy + kt.dy[slot][kr]) < (unsigned)H && (unsigned)(ox + kt.dx[slot][kr]) < (unsigned)W;
                copy_async<4>(&st.b[kr][t % BN], ok ? x + base + kt.off[slot][kr] : x, ok);
            }
        }
    }
};

/* Group g's share of one slice: k = g SK / G .. + SK / G. The thread owns rows tm + BM / 4 i (i =
 * 0..3) and pixels tn 4 .. + 3. As is read as float4 along k: a quarter-warp's 8 lanes share tm
 * (BN >= 32: one broadcast) or span 2 rows 68 floats apart (BN 16: banks 4 apart, no conflict);
 * Bs as float4 along p: 8 lanes read 128 consecutive bytes. Per 4 k: 4 + 4 float4 reads, 64 FFMA. */
template <int BM, int BN, int G>
static __device__ __forceinline__ void sk_multiply(const sk_stage<BM, BN> &st, int g, int tm, int tn,
                                                   float (&acc)[4][4])
{
#pragma unroll
    for (int q = 0; q < SK / G; q += 4) {
        const int kq = g * (SK / G) + q;
        float4 a[4];
#pragma unroll
        for (int i = 0; i < 4; i++) a[i] = *(const float4 *)&st.a[tm + BM / 4 * i][kq];
#pragma unroll
        for (int kk = 0; kk < 4; kk++) {
            const float4 b = *(const float4 *)&st.b[kq + kk][tn * 4];
            const float bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const float av = kk == 0 ? a[i].x : kk == 1 ? a[i].y : kk == 2 ? a[i].z : a[i].w;
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] = fmaf(av, bv[j], acc[i][j]);
            }
        }
    }
}

/* The G partial tiles, summed: 4 consecutive pixels of one row per step, written to NCHW as one
 * float4 when H W % 4 == 0 (then P % 4 == 0 and the 4 lie in one image, 16-byte aligned). */
template <int BM, int BN, int G, int THREADS>
static __device__ __forceinline__ void sk_sum_store(const float *red, float *y, const cnn_shape &d, int m0, int p0)
{
    const int hw = d.H * d.W, P = d.N * hw;
    for (int e = threadIdx.x; e < BM * BN / 4; e += THREADS) {
        const int row = e / (BN / 4), col = (e % (BN / 4)) * 4, m = m0 + row, p = p0 + col;
        float4 v = *(const float4 *)&red[row * BN + col];
#pragma unroll
        for (int g = 1; g < G; g++) {
            const float4 u = *(const float4 *)&red[(g * BM + row) * BN + col];
            v.x += u.x, v.y += u.y, v.z += u.z, v.w += u.w;
        }
        if (m >= d.M || p >= P) continue;
        if (hw % 4 == 0) {
            const int n = p / hw;
            *(float4 *)&y[(n * d.M + m) * hw + p - n * hw] = v;
            continue;
        }
        const float vv[4] = {v.x, v.y, v.z, v.w};
        for (int j = 0; j < 4 && p + j < P; j++) {
            const int n = (p + j) / hw;
            y[(n * d.M + m) * hw + p + j - n * hw] = vv[j];
        }
    }
}

template <int BM, int BN, int G> struct sk_shape {
    static const int THREADS = G * (BM / 4) * (BN / 4);
    static const size_t STAGES_BYTES = 2 * sizeof(sk_stage<BM, BN>), RED_BYTES = (size_t)G * BM * BN * sizeof(float);
    static const size_t SMEM = STAGES_BYTES > RED_BYTES ? STAGES_BYTES : RED_BYTES;
    static_assert(SMEM + sizeof(sk_ktab) <= 65536, "sm_75 lets a block opt in to 64 KiB of shared memory at most");
    /* 768 threads per SM at least: up to 80 registers a thread (64 spill on sm_90: the 16
     * accumulators, 16 floats of A, 4 of B and the copy addresses) */
    static const int MIN_BLOCKS = 768 / THREADS > 0 ? 768 / THREADS : 1;
};

/* Lesson (ours9): the block's warps split K. Slice s + 1 is in flight while slice s is multiplied,
 * group g taking its SK / G rows of it; two barriers per slice (the first: slice s has landed for
 * all; the second: all are done with its stage, which slice s + 2 then overwrites). Threads
 * 0..SK-1 decode the table of slice s + 2 between them. Then the partial tiles meet in shared
 * memory and are summed once. */
template <int BM, int BN, int G, bool VEC_X>
static __global__ void __launch_bounds__(sk_shape<BM, BN, G>::THREADS, sk_shape<BM, BN, G>::MIN_BLOCKS)
    sliced_k_gemm(const float *x, const float *w, float *y, cnn_shape d, int vec_w)
{
    const int THREADS = sk_shape<BM, BN, G>::THREADS, TG = THREADS / G;
    static_assert(TG % 32 == 0 && SK % (4 * G) == 0, "a group is whole warps, its share whole float4s of k");
    extern __shared__ float4 sk_dynamic[];
    sk_stage<BM, BN> *stage = (sk_stage<BM, BN> *)sk_dynamic;
    __shared__ sk_ktab kt;
    const int K = d.C * d.R * d.S, t = threadIdx.x, g = t / TG, tm = (t % TG) / (BN / 4), tn = t % (BN / 4);
    const int m0 = blockIdx.y * BM, p0 = blockIdx.x * BN, slices = (K + SK - 1) / SK;
    const sk_loader<BM, BN, THREADS, VEC_X> L(d, p0);
    L.copy_w(stage[0], d, w, 0, m0, vec_w); /* the weights need no table: in flight during the decode */
    if (t < SK) {
        sk_decode(kt, d, 0);
        if (slices > 1) sk_decode(kt, d, 1);
    }
    __syncthreads();
    L.copy_x(stage[0], kt, x, 0, d.H, d.W);
    copy_commit(), copy_wait<1>(); /* slice 0 its own group: waits for nothing */
    float acc[4][4] = {};
    for (int s = 0; s < slices; s++) {
        if (s + 1 < slices) {
            L.copy_w(stage[(s + 1) % 2], d, w, s + 1, m0, vec_w);
            L.copy_x(stage[(s + 1) % 2], kt, x, s + 1, d.H, d.W);
        }
        copy_commit(), copy_wait<1>(); /* slice s has landed (an empty group at the end keeps the count) */
        __syncthreads();
        if (t < SK && s + 2 < slices) sk_decode(kt, d, s + 2); /* slot s % 2: slice s's copies were issued */
        sk_multiply<BM, BN, G>(stage[s % 2], g, tm, tn, acc);
        __syncthreads();
    }
    float *red = (float *)sk_dynamic; /* red[g][BM][BN] over the stages, free after the last barrier */
#pragma unroll
    for (int i = 0; i < 4; i++)
        *(float4 *)&red[(g * BM + tm + BM / 4 * i) * BN + tn * 4] =
            make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
    __syncthreads();
    sk_sum_store<BM, BN, G, THREADS>(red, y, d, m0, p0);
}

/* Block tile (BM x BN) and warp groups G (threads G BM BN / 16): the autotuner's choices. T3B
 * (M 1024, P 196): 224 blocks of 32 x 32, 448 of 16 x 32; T3C (256 x 729): 184 of 32 x 32, 368 of
 * 32 x 16 or 16 x 32; E2 (128 x 1024): 128 of 32 x 32, 256 of 32 x 16 or 16 x 32 (2 per SM). */
static const struct {
    const char *name;
    int bm, bn, groups;
} SLICED[] = {{"32x32_g4", 32, 32, 4}, {"32x32_g8", 32, 32, 8}, {"32x32_g2", 32, 32, 2}, {"32x16_g8", 32, 16, 8},
              {"32x16_g4", 32, 16, 4}, {"64x32_g4", 64, 32, 4}, {"32x64_g4", 32, 64, 4}, {"16x32_g8", 16, 32, 8}};
#define N_SLICED (int)(sizeof SLICED / sizeof SLICED[0])
static_assert(N_SLICED == CNN_OURS9_TILES, "cnn_fast.h's CNN_OURS9_TILES counts the rows of SLICED");

extern "C" const char *cnn_tile_name_ours9(int tile)
{
    return tile >= 0 && tile < N_SLICED ? SLICED[tile].name : "?";
}

/* The rule: layers of at most 2^19 outputs (M N H W: T3A .. E3), where 128 x 128 tiles would
 * number fewer than 32 and ours7 needs split-K; the kernel is right for any shape. */
extern "C" int cnn_supports_ours9(const cnn_shape *s) { return (double)s->M * s->N * s->H * s->W <= 524288.0; }

template <int BM, int BN, int G, bool VEC_X> static void sliced_launch(const cnn_launch_args *a, cudaStream_t st)
{
    const cnn_shape *s = &a->s;
    const size_t smem = sk_shape<BM, BN, G>::SMEM;
    static int opted_in; /* above 48 KiB of dynamic shared memory a kernel must ask for it */
    if (!opted_in)
        GL_CHECK(cudaFuncSetAttribute(sliced_k_gemm<BM, BN, G, VEC_X>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      (int)smem));
    opted_in = 1;
    const dim3 grid((s->N * s->H * s->W + BN - 1) / BN, (s->M + BM - 1) / BM);
    sliced_k_gemm<BM, BN, G, VEC_X><<<grid, sk_shape<BM, BN, G>::THREADS, smem, st>>>(
        a->x, a->w, a->y, *s, s->C * s->R * s->S % 4 == 0);
    GL_CHECK_LAUNCH();
}

template <int BM, int BN, int G> static void sliced_dispatch(const cnn_launch_args *a, cudaStream_t st)
{
    const cnn_shape *s = &a->s;
    if (s->R == 1 && s->S == 1 && s->H * s->W % 4 == 0) sliced_launch<BM, BN, G, true>(a, st);
    else sliced_launch<BM, BN, G, false>(a, st);
}

extern "C" cnn_status cnn_launch_ours9(const cnn_launch_args *a, cudaStream_t st)
{
    const int tile = a->tile;
    if (!cnn_ladder_fits(&a->s) || tile < 0 || tile >= N_SLICED) return CNN_ERR_SHAPE;
    const int bm = SLICED[tile].bm, bn = SLICED[tile].bn, g = SLICED[tile].groups;
    if (bm == 16) sliced_dispatch<16, 32, 8>(a, st);
    else if (bm == 64) sliced_dispatch<64, 32, 4>(a, st);
    else if (bn == 64) sliced_dispatch<32, 64, 4>(a, st);
    else if (bn == 16 && g == 8) sliced_dispatch<32, 16, 8>(a, st);
    else if (bn == 16) sliced_dispatch<32, 16, 4>(a, st);
    else if (g == 8) sliced_dispatch<32, 32, 8>(a, st);
    else if (g == 4) sliced_dispatch<32, 32, 4>(a, st);
    else sliced_dispatch<32, 32, 2>(a, st);
    return CNN_OK;
}
