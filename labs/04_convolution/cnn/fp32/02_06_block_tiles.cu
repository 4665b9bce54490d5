/* 02_06_block_tiles.cu - Lab 04, part 2: the FP32 direct ladder of `ours` above its first rung (01_implicit_gemm.cu's
 * ours1_64x64). Every rung is the same implicit GEMM, Y[M][N*H*W] = W[M][C*R*S] x im2col(X) with
 * im2col never materialised, and each rung changes one thing:
 *
 *   ours2_128x128    128 x 128 block tiles, 8 x 8 outputs per thread (64 FFMA per 16 shared floats
 *                    read instead of 16 per 8), BK 8; each thread's 8 rows and 8 columns consecutive
 *   ours3_float4     the same tiles read as float4 without bank conflicts (layout below)
 *   ours4_cp_async   double-buffered shared memory fed by cp.async (sm_80+; a register-staged
 *                    double buffer on sm_75): the next slice lands while this one is multiplied
 *   ours5_warp_tile  each warp owns a 64 x 32 sub-tile: fewer distinct shared bytes per warp
 *   ours6_tuned      the tile shape per layer, and split-K only where it pays (partial sums in the
 *                    workspace + a tiny reduce kernel: no memset, no atomics), chosen per shape by
 *                    the experiment's autotuner
 *
 * The next rungs, ours7_fast and ours8_small, are in 07_fast.cu and 08_small.cu.
 * One kernel template, ladder_gemm<BM, BN, LAYOUT, PIPE>; a rung is one instance of it with
 * its lesson; the differences are in the three small device functions it calls.
 * Limits: x, w and y each under 2^31 elements (int offsets); larger layers are refused. */
#include "cnn.h"
#include "fast_rungs.h"
#include "gl_check.h"

#define LBK 8 /* the reduction slice of every rung */

enum { LAYOUT_BLOCKED, LAYOUT_SPLIT, LAYOUT_WARP }; /* which outputs a thread owns (ladder_frag) */
enum { PIPE_REG, PIPE_DOUBLE };                     /* how slices reach shared memory */

/* Shared tiles of one slice. As[k][m] is the weights transposed, each row padded by 4 floats:
 * a warp's transposed stores (8 k x 4 m) then fall in 32 different banks, and rows stay 16-byte
 * aligned for float4 reads. Bs[k][p] is im2col, written 4 pixels at a time. */
template <int BM, int BN> struct ladder_tiles {
    __align__(16) float a[LBK][BM + 4];
    __align__(16) float b[LBK][BN];
};

/* Which outputs thread t owns: rows m_lo[h] + 0..3 and columns n_lo[h] + 0..3 for h = 0, 1
 * (8 x 8 outputs as 2 x 2 blocks of 4 x 4).
 *   BLOCKED (ours2): 8 consecutive rows and columns, ty * 8, tx * 8. Even written one float at
 *     a time, nvcc reads them as float4s (aligned); then the 8 lanes of a quarter-warp read
 *     float4s 32 bytes apart, 256 bytes: every Bs read is a 2-way bank conflict.
 *   SPLIT (ours3, ours4): ty * 4 and BM/2 + ty * 4 (columns likewise). A quarter-warp (8 lanes,
 *     consecutive tx) reads float4s at tx * 4: 128 consecutive bytes, no conflict; the 2 ty of a
 *     warp read As at 2 addresses (broadcast).
 *   WARP (ours5, ours6): warp (wm, wn) owns rows wm * 64 .. + 63 and columns wn * 32 .. + 31; lane
 *     (lm = lane % 8, ln = lane / 8) owns rows lm * 4 and 32 + lm * 4, columns ln * 4 and
 *     16 + ln * 4 of it. Per k a warp reads 64 + 32 distinct floats (SPLIT: 16 + 128): a third
 *     less shared traffic; a quarter-warp reads 128 consecutive bytes of As and one float4 of Bs. */
template <int BM, int BN, int LAYOUT> struct ladder_frag {
    int m_lo[2], n_lo[2];
    __device__ ladder_frag(int t)
    {
        if (LAYOUT == LAYOUT_WARP) {
            const int w = t / 32, lane = t % 32, wm = w / (BN / 32), wn = w % (BN / 32);
            for (int h = 0; h < 2; h++) {
                m_lo[h] = wm * 64 + (lane % 8) * 4 + 32 * h;
                n_lo[h] = wn * 32 + (lane / 8) * 4 + 16 * h;
            }
        } else {
            const int tx = t % (BN / 8), ty = t / (BN / 8);
            for (int h = 0; h < 2; h++) {
                m_lo[h] = LAYOUT == LAYOUT_BLOCKED ? ty * 8 + 4 * h : ty * 4 + h * (BM / 2);
                n_lo[h] = LAYOUT == LAYOUT_BLOCKED ? tx * 8 + 4 * h : tx * 4 + h * (BN / 2);
            }
        }
    }
};

/* The loads of one thread, decoded once per block. Weights: A_PER elements per slice, element q at
 * row am = (t + THREADS q) / LBK, column ak = (t + THREADS q) % LBK of the slice (8 threads read 32
 * consecutive bytes of a weight row). im2col: B_GROUPS groups of 4 consecutive pixels, group g =
 * t + THREADS q at slice row g / (BN / 4), columns (g % (BN / 4)) * 4 + 0..3. A pixel's x offset is
 * base (n, 0, oy, ox) + the slice row's (c, dy, dx) offset; out-of-image taps read as zero. */
template <int BM, int BN> struct ladder_loader {
    static const int THREADS = BM * BN / 64, A_PER = BM * LBK / THREADS, B_GROUPS = 2 * BN / THREADS;
    int a_off[A_PER];                /* (m0 + am) K + ak, or -1: row outside M */
    int base[B_GROUPS][4], oy[B_GROUPS][4], ox[B_GROUPS][4];
    __device__ ladder_loader(const cnn_shape &d, int t, int m0, int p0, int K)
    {
        const int hw = d.H * d.W, P = d.N * hw;
#pragma unroll
        for (int q = 0; q < A_PER; q++) {
            const int ia = t + THREADS * q, gm = m0 + ia / LBK;
            a_off[q] = gm < d.M ? gm * K + ia % LBK : -1;
        }
#pragma unroll
        for (int g = 0; g < B_GROUPS; g++)
#pragma unroll
            for (int j = 0; j < 4; j++) {
                const int p = p0 + ((t + THREADS * g) % (BN / 4)) * 4 + j, n = p / hw, r = p - n * hw;
                base[g][j] = p < P ? n * d.C * hw + r : 0;
                oy[g][j] = p < P ? r / d.W : -(1 << 20); /* outside every image: never loaded */
                ox[g][j] = r % d.W;
            }
    }
    /* Slice k0's tap for group g: offset c H W + dy W + dx, and (dy, dx); k >= k_end: no tap. */
    __device__ void tap(const cnn_shape &d, int t, int g, int k0, int k_end, int &off, int &dy, int &dx) const
    {
        const int k = k0 + (t + THREADS * g) / (BN / 4), rs = d.R * d.S, c = k / rs, r = k - c * rs, fy = r / d.S;
        dx = r - fy * d.S - d.pad_w;
        off = c * d.H * d.W + (fy - d.pad_h) * d.W + dx;
        dy = k < k_end ? fy - d.pad_h : -(1 << 20); /* past the range: outside every image */
    }
    __device__ bool inside(const cnn_shape &d, int g, int j, int dy, int dx) const
    {
        return (unsigned)(oy[g][j] + dy) < (unsigned)d.H && (unsigned)(ox[g][j] + dx) < (unsigned)d.W;
    }
};

/* A slice in registers (the register-staged paths): the loads issued before the multiply, the
 * values stored to shared memory after it. */
template <int BM, int BN> struct ladder_stage {
    float a[ladder_loader<BM, BN>::A_PER], b[ladder_loader<BM, BN>::B_GROUPS][4];
    __device__ void load(const ladder_loader<BM, BN> &L, const cnn_shape &d, const float *x, const float *w, int t,
                         int k0, int k_end)
    {
#pragma unroll
        for (int q = 0; q < L.A_PER; q++) {
            const int ak = (t + L.THREADS * q) % LBK;
            a[q] = L.a_off[q] >= 0 && k0 + ak < k_end ? __ldg(w + L.a_off[q] + k0) : 0.0f;
        }
#pragma unroll
        for (int g = 0; g < L.B_GROUPS; g++) {
            int off, dy, dx;
            L.tap(d, t, g, k0, k_end, off, dy, dx);
#pragma unroll
            for (int j = 0; j < 4; j++) b[g][j] = L.inside(d, g, j, dy, dx) ? __ldg(x + L.base[g][j] + off) : 0.0f;
        }
    }
    __device__ void store(ladder_tiles<BM, BN> &s, int t) const
    {
#pragma unroll
        for (int q = 0; q < ladder_loader<BM, BN>::A_PER; q++) {
            const int ia = t + ladder_loader<BM, BN>::THREADS * q;
            s.a[ia % LBK][ia / LBK] = a[q];
        }
#pragma unroll
        for (int g = 0; g < ladder_loader<BM, BN>::B_GROUPS; g++) {
            const int gi = t + ladder_loader<BM, BN>::THREADS * g;
            *(float4 *)&s.b[gi / (BN / 4)][(gi % (BN / 4)) * 4] = make_float4(b[g][0], b[g][1], b[g][2], b[g][3]);
        }
    }
};

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800 /* cp.async: not on sm_75 */
/* cp.async (sm_80+): a 4-byte global -> shared copy that bypasses the registers; src_size 0
 * writes a zero (padding, rows outside the layer) without reading. The im2col gather is single
 * floats, so every copy here is 4 bytes; weight rows could go 16 bytes at a time when K % 4 == 0
 * (a later refinement: As would then have to be stored [m][k], not transposed). */
static __device__ __forceinline__ void cp_async4(void *smem, const float *src, bool valid)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(s), "l"(src), "r"(valid ? 4 : 0));
}
static __device__ __forceinline__ void cp_async_commit_wait_all(void)
{
    asm volatile("cp.async.commit_group;\ncp.async.wait_group 0;\n" ::: "memory");
}
static __device__ __forceinline__ void cp_async_commit(void)
{
    asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/* The same slice copied straight into shared memory with cp.async (no registers in between). */
template <int BM, int BN>
static __device__ __forceinline__ void ladder_copy(ladder_tiles<BM, BN> &s, const ladder_loader<BM, BN> &L,
                                                   const cnn_shape &d, const float *x, const float *w, int t, int k0,
                                                   int k_end)
{
#pragma unroll
    for (int q = 0; q < L.A_PER; q++) {
        const int ia = t + L.THREADS * q, ak = ia % LBK;
        const bool ok = L.a_off[q] >= 0 && k0 + ak < k_end;
        cp_async4(&s.a[ak][ia / LBK], ok ? w + L.a_off[q] + k0 : w, ok);
    }
#pragma unroll
    for (int g = 0; g < L.B_GROUPS; g++) {
        const int gi = t + L.THREADS * g;
        int off, dy, dx;
        L.tap(d, t, g, k0, k_end, off, dy, dx);
#pragma unroll
        for (int j = 0; j < 4; j++) {
            const bool ok = L.inside(d, g, j, dy, dx);
            cp_async4(&s.b[gi / (BN / 4)][(gi % (BN / 4)) * 4 + j], ok ? x + L.base[g][j] + off : x, ok);
        }
    }
}

#endif

/* 8 x 8 FFMAs per k of the slice: a thread's 8 weights and 8 im2col values read from shared
 * memory as 4 float4s (m_lo, n_lo are multiples of 4 and the rows 16-byte aligned). */
template <int BM, int BN, int LAYOUT>
static __device__ __forceinline__ void ladder_multiply(const ladder_tiles<BM, BN> &s,
                                                       const ladder_frag<BM, BN, LAYOUT> &f, float (&acc)[8][8])
{
#pragma unroll
    for (int kk = 0; kk < LBK; kk++) {
        float a[8], b[8];
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const float4 av = *(const float4 *)&s.a[kk][f.m_lo[h]], bv = *(const float4 *)&s.b[kk][f.n_lo[h]];
            a[4 * h] = av.x, a[4 * h + 1] = av.y, a[4 * h + 2] = av.z, a[4 * h + 3] = av.w;
            b[4 * h] = bv.x, b[4 * h + 1] = bv.y, b[4 * h + 2] = bv.z, b[4 * h + 3] = bv.w;
        }
#pragma unroll
        for (int i = 0; i < 8; i++)
#pragma unroll
            for (int j = 0; j < 8; j++) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
}

/* Lesson (the ladder): one block computes a BM x BN tile of Y over the reduction range of its
 * blockIdx.z (split-K: the partial sums go to out + z * split_stride, the workspace, and
 * sum_splits adds them; without split-K out is y). */
template <int BM, int BN, int LAYOUT, int PIPE>
static __global__ void __launch_bounds__(BM * BN / 64)
    ladder_gemm(const float *x, const float *w, float *out, cnn_shape d, int k_per_split, size_t split_stride)
{
    __shared__ ladder_tiles<BM, BN> tiles[PIPE == PIPE_DOUBLE ? 2 : 1];
    const int K = d.C * d.R * d.S, hw = d.H * d.W, P = d.N * hw, t = threadIdx.x;
    const int m0 = blockIdx.y * BM, p0 = blockIdx.x * BN;
    const int k_begin = blockIdx.z * k_per_split, k_end = min(K, k_begin + k_per_split);
    const ladder_loader<BM, BN> L(d, t, m0, p0, K);
    const ladder_frag<BM, BN, LAYOUT> f(t);
    float acc[8][8] = {};
    if (PIPE == PIPE_REG) { /* ours1's pipeline: the next slice in registers during the multiply */
        ladder_stage<BM, BN> next;
        next.load(L, d, x, w, t, k_begin, k_end);
        for (int k0 = k_begin; k0 < k_end; k0 += LBK) {
            next.store(tiles[0], t);
            __syncthreads();
            if (k0 + LBK < k_end) next.load(L, d, x, w, t, k0 + LBK, k_end);
            ladder_multiply<BM, BN, LAYOUT>(tiles[0], f, acc);
            __syncthreads();
        }
    } else {
#if __CUDA_ARCH__ >= 800
        /* Two buffers: slice s + 1 is copied (cp.async) into one while slice s is multiplied from
         * the other; one barrier per slice: after it every thread has finished slice s - 1, whose
         * buffer slice s + 1 then overwrites. */
        ladder_copy(tiles[0], L, d, x, w, t, k_begin, k_end);
        for (int k0 = k_begin, s = 0; k0 < k_end; k0 += LBK, s ^= 1) {
            cp_async_commit_wait_all(); /* this thread's copies of slice s have landed */
            __syncthreads();            /* and everyone's */
            if (k0 + LBK < k_end) ladder_copy(tiles[s ^ 1], L, d, x, w, t, k0 + LBK, k_end);
            cp_async_commit();
            ladder_multiply<BM, BN, LAYOUT>(tiles[s], f, acc);
        }
#else
        /* sm_75: the same two buffers filled through registers. */
        ladder_stage<BM, BN> next;
        next.load(L, d, x, w, t, k_begin, k_end);
        next.store(tiles[0], t);
        __syncthreads();
        for (int k0 = k_begin, s = 0; k0 < k_end; k0 += LBK, s ^= 1) {
            const bool more = k0 + LBK < k_end;
            if (more) next.load(L, d, x, w, t, k0 + LBK, k_end);
            ladder_multiply<BM, BN, LAYOUT>(tiles[s], f, acc);
            if (more) next.store(tiles[s ^ 1], t);
            __syncthreads();
        }
#endif
    }
    out += blockIdx.z * split_stride;
#pragma unroll
    for (int j = 0; j < 8; j++) { /* column j of the thread: NCHW offset of (n, 0, q) */
        const int p = p0 + f.n_lo[j / 4] + j % 4;
        if (p >= P) continue;
        const int n = p / hw, col = n * d.M * hw + (p - n * hw);
#pragma unroll
        for (int i = 0; i < 8; i++) {
            const int m = m0 + f.m_lo[i / 4] + i % 4;
            if (m < d.M) out[col + m * hw] = acc[i][j];
        }
    }
}

/* Lesson (split-K without atomics): y = the sum of the splits' partial outputs, read once each. */
static __global__ void sum_splits(const float *part, float *y, size_t n, int splits)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f;
    for (int z = 0; z < splits; z++) s += part[z * n + i];
    y[i] = s;
}

extern "C" void cnn_sum_splits(const float *part, float *y, size_t n, int splits, cudaStream_t st)
{
    sum_splits<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(part, y, n, splits);
    GL_CHECK_LAUNCH();
}

/* ---------------- launchers ---------------- */

/* int offsets: every tensor must have fewer than 2^31 elements. */
extern "C" int cnn_ladder_fits(const cnn_shape *s)
{
    const double lim = 2147483647.0;
    return (double)s->N * s->C * s->H * s->W < lim && (double)s->M * s->C * s->R * s->S < lim &&
           (double)s->N * s->M * s->H * s->W < lim;
}

extern "C" int cnn_per_split(int K, int splits, int bk, int *used)
{
    const int per = ((K + splits - 1) / splits + bk - 1) / bk * bk;
    *used = (K + per - 1) / per;
    return per;
}

/* Split-K for an instance: 1 when off; else as many splits as fill the GPU's resident blocks
 * once (floor, so the blocks make at most one wave), at most one per 4 slices, at least 2. */
template <int BM, int BN, int LAYOUT, int PIPE> static int ladder_splits(const cnn_shape *s, int split_k)
{
    if (!split_k) return 1;
    static int resident; /* blocks per SM of this instance */
    if (!resident)
        GL_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, ladder_gemm<BM, BN, LAYOUT, PIPE>,
                                                               BM * BN / 64, 0));
    const int K = s->C * s->R * s->S, P = s->N * s->H * s->W;
    const long long tiles = (long long)((P + BN - 1) / BN) * ((s->M + BM - 1) / BM);
    long long splits = (long long)cnn_sms() * (resident > 0 ? resident : 1) / tiles;
    const int most = (K + 4 * LBK - 1) / (4 * LBK);
    if (splits > most) splits = most;
    return splits < 2 ? (most >= 2 ? 2 : 1) : (int)splits;
}

/* The reduction range per split: a multiple of LBK. */
static int ladder_per_split(int K, int splits)
{
    const int per = (K + splits - 1) / splits;
    return (per + LBK - 1) / LBK * LBK;
}

template <int BM, int BN, int LAYOUT, int PIPE>
static size_t ladder_workspace(const cnn_shape *s, int split_k)
{
    const int K = s->C * s->R * s->S, splits = ladder_splits<BM, BN, LAYOUT, PIPE>(s, split_k);
    if (splits <= 1) return 0;
    const int used = (K + ladder_per_split(K, splits) - 1) / ladder_per_split(K, splits);
    return (size_t)used * s->N * s->M * s->H * s->W * sizeof(float);
}

template <int BM, int BN, int LAYOUT, int PIPE>
static cnn_status ladder_launch(const cnn_launch_args *a, int split_k, cudaStream_t st)
{
    const cnn_shape *s = &a->s;
    if (!cnn_ladder_fits(s)) return CNN_ERR_SHAPE;
    const int K = s->C * s->R * s->S, P = s->N * s->H * s->W;
    const int splits = ladder_splits<BM, BN, LAYOUT, PIPE>(s, split_k), per = ladder_per_split(K, splits);
    dim3 grid((P + BN - 1) / BN, (s->M + BM - 1) / BM, (K + per - 1) / per);
    const size_t ny = (size_t)P * s->M;
    float *out = grid.z > 1 ? (float *)a->workspace : a->y;
    if (grid.z > 1 && a->workspace_bytes < grid.z * ny * sizeof(float)) return CNN_ERR_SHAPE;
    ladder_gemm<BM, BN, LAYOUT, PIPE><<<grid, BM * BN / 64, 0, st>>>(a->x, a->w, out, *s, per, ny);
    GL_CHECK_LAUNCH();
    if (grid.z > 1) cnn_sum_splits(out, a->y, ny, (int)grid.z, st);
    return CNN_OK;
}

extern "C" cnn_status cnn_launch_ours2(const cnn_launch_args *a, cudaStream_t st)
{
    return ladder_launch<128, 128, LAYOUT_BLOCKED, PIPE_REG>(a, 0, st);
}

extern "C" cnn_status cnn_launch_ours3(const cnn_launch_args *a, cudaStream_t st)
{
    return ladder_launch<128, 128, LAYOUT_SPLIT, PIPE_REG>(a, 0, st);
}

extern "C" cnn_status cnn_launch_ours4(const cnn_launch_args *a, cudaStream_t st)
{
    return ladder_launch<128, 128, LAYOUT_SPLIT, PIPE_DOUBLE>(a, 0, st);
}

extern "C" cnn_status cnn_launch_ours5(const cnn_launch_args *a, cudaStream_t st)
{
    return ladder_launch<128, 128, LAYOUT_WARP, PIPE_DOUBLE>(a, 0, st);
}

/* ours6: the tile shapes the autotuner chooses from (all warp-tiled, double-buffered). Split-K
 * rows: E4 (a 4096 x 256 x 2304 GEMM) has 64 tiles of 128 x 128 for 132 SMs, half a wave at one
 * block per SM; 128x128_splitk cuts its reduction into floor(resident blocks / 64) parts. */
static const struct {
    const char *name;
    int bm, bn, split_k;
} TUNED[] = {{"128x128", 128, 128, 0}, {"128x128_splitk", 128, 128, 1}, {"128x64", 128, 64, 0},
             {"64x64", 64, 64, 0},     {"64x64_splitk", 64, 64, 1}};
#define N_TUNED (int)(sizeof TUNED / sizeof TUNED[0])
static_assert(N_TUNED == CNN_OURS6_TILES, "cnn.h's CNN_OURS6_TILES counts the rows of TUNED");

extern "C" const char *cnn_tile_name_ours6(int tile) { return tile >= 0 && tile < N_TUNED ? TUNED[tile].name : "?"; }

extern "C" size_t cnn_workspace_ours6(const cnn_shape *s, int tile)
{
    if (tile < 0 || tile >= N_TUNED) return 0;
    const int split = TUNED[tile].split_k;
    if (TUNED[tile].bm == 128 && TUNED[tile].bn == 128) return ladder_workspace<128, 128, LAYOUT_WARP, PIPE_DOUBLE>(s, split);
    if (TUNED[tile].bm == 128) return ladder_workspace<128, 64, LAYOUT_WARP, PIPE_DOUBLE>(s, split);
    return ladder_workspace<64, 64, LAYOUT_WARP, PIPE_DOUBLE>(s, split);
}

extern "C" cnn_status cnn_launch_ours6(const cnn_launch_args *a, cudaStream_t st)
{
    const int tile = a->tile, split = TUNED[tile].split_k;
    if (TUNED[tile].bm == 128 && TUNED[tile].bn == 128)
        return ladder_launch<128, 128, LAYOUT_WARP, PIPE_DOUBLE>(a, split, st);
    if (TUNED[tile].bm == 128) return ladder_launch<128, 64, LAYOUT_WARP, PIPE_DOUBLE>(a, split, st);
    return ladder_launch<64, 64, LAYOUT_WARP, PIPE_DOUBLE>(a, split, st);
}
