/* mma_sync.cuh - Lab 04, part 2: the tensor-core instructions the mma.sync rungs share (inline
 * PTX, sm_80+ only: include inside an `__CUDA_ARCH__ >= 800` guard). */
#ifndef CNN_TC_MMA_CUH
#define CNN_TC_MMA_CUH

#include <cuda_bf16.h>

static __device__ __forceinline__ unsigned smem_u32(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* FP32 -> TF32 (10 fraction bits), rounded to nearest, ties away from zero. */
static __device__ __forceinline__ float to_tf32(float v)
{
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(v));
    return __uint_as_float(r);
}

/* c += a b on one 16 x 8 tile: m16n8k8 with TF32 a, b (PTX fragment layouts), FP32 c. */
static __device__ __forceinline__ void mma_tf32(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* c += a b on one 16 x 8 tile: m16n8k16 with BF16 a, b, FP32 c. */
static __device__ __forceinline__ void mma_bf16(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* Four 8 x 8 b16 matrices (or 8 x 4 32-bit ones) from shared memory: lane L gives the address of
 * row L % 8 of matrix L / 8; register j of lane l holds row l / 4, 32-bit word l % 4 of matrix j. */
static __device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void *p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_u32(p)));
}

/* cp.async of 16 bytes with zero-fill: copies src_bytes (16 or 0) and zeroes the rest. */
static __device__ __forceinline__ void cp_async16(void *dst, const void *src, int src_bytes)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_u32(dst)), "l"(src), "r"(src_bytes));
}

/* One tile of the weights W[M][K] into As[BM][LD]: rows m0.., columns k0..k0 + BK - 1, zero outside
 * W; 16-byte cp.async copies with VEC (K a multiple of 16 bytes), else element by element through
 * registers. */
template <typename T, int BM, int BK, int LD, int THREADS, bool VEC>
static __device__ __forceinline__ void load_w_tile(const T *w, T *As, int m0, int k0, int M, int K, int tid)
{
    enum { PER = 16 / (int)sizeof(T), CH = BK / PER };
#pragma unroll
    for (int f = tid; f < BM * CH; f += THREADS) {
        const int row = f / CH, kk = f % CH * PER, m = m0 + row, k = k0 + kk;
        T *dst = As + row * LD + kk;
        if (VEC) {
            const bool in = m < M && k < K;
            cp_async16(dst, in ? w + (size_t)m * K + k : w, in ? 16 : 0);
        } else {
#pragma unroll
            for (int e = 0; e < PER; e++) dst[e] = m < M && k + e < K ? w[(size_t)m * K + k + e] : (T)0.0f;
        }
    }
}

/* Decode reduction index k = (c, r, s) into (x offset c H W + dy W + dx, dy, dx) for a layer D
 * (fields K, R, S, H, W, pad_h, pad_w); k >= K gets a dy outside every image, so its elements
 * load as zero. */
template <typename D> static __device__ __forceinline__ int4 decode_k(int k, const D &d)
{
    const int rs = d.R * d.S, c = k / rs, r = k - c * rs, fy = r / d.S, fx = r - fy * d.S;
    if (k >= d.K) return make_int4(0, -(1 << 20), 0, 0);
    const int dy = fy - d.pad_h, dx = fx - d.pad_w;
    return make_int4(c * d.H * d.W + dy * d.W + dx, dy, dx, 0);
}

/* y[i] = v, rounded to nearest even where y is BF16. */
static __device__ __forceinline__ void store_out(float *y, size_t i, float v) { y[i] = v; }
static __device__ __forceinline__ void store_out(__nv_bfloat16 *y, size_t i, float v) { y[i] = __float2bfloat16_rn(v); }

/* The same with each matrix transposed (.trans): register j of lane l holds column l / 4, rows
 * 2 (l % 4) and 2 (l % 4) + 1 of matrix j. */
static __device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], const void *p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_u32(p)));
}

/* One k-step (16) of a warp's MT x NT BF16 tiles: A row-major in shared memory (row stride ALD),
 * B k-major (row stride BLD, read with .trans) or, with B_KMAJOR false, pixel-major like A (Bs[n][k],
 * read with plain ldmatrix: matrices n 0-7 | k 0-7, k 8-15, then n 8-15 the same); the warp's tiles
 * start at row wm0, column wn0. */
template <int MT, int NT, int ALD, int BLD, bool B_KMAJOR = true>
static __device__ __forceinline__ void mma_step_bf16(const __nv_bfloat16 *As, const __nv_bfloat16 *Bs, int ks,
                                                     int wm0, int wn0, int lane, float (&acc)[MT][NT][4])
{
    unsigned a[MT][4], b[NT][2];
#pragma unroll
    for (int i = 0; i < MT; i++) /* matrices: rows 0-15 (lanes 0-15), columns 0-7 | 8-15 */
        ldmatrix_x4(a[i], As + (wm0 + i * 16 + (lane & 15)) * ALD + ks * 16 + (lane >> 4) * 8);
#pragma unroll
    for (int j = 0; j < NT; j += 2) { /* one x4(.trans): two n-tiles, k 0..15 */
        unsigned r[4];
        const int k = ks * 16 + (lane & 7) + ((lane >> 3) & 1) * 8;
        if (B_KMAJOR) ldmatrix_x4_trans(r, Bs + k * BLD + wn0 + j * 8 + (lane >> 4) * 8);
        else ldmatrix_x4(r, Bs + (wn0 + j * 8 + (lane >> 4) * 8 + (lane & 7)) * BLD + ks * 16 + ((lane >> 3) & 1) * 8);
        b[j][0] = r[0], b[j][1] = r[1], b[j + 1][0] = r[2], b[j + 1][1] = r[3];
    }
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++) mma_bf16(acc[i][j], a[i], b[j]);
}

/* Where a block of the staged rungs works (WM x WN warps on a BM x BN tile of y, blockIdx.z the
 * K part of k_chunk k-tiles of BK): this warp's sub-tile (wm0, wn0), the tile's first row m0 and
 * pixel p0, the part's first k-tile kt0 and its count nk (may be <= 0 for the last part: it
 * stores zeros). */
typedef struct {
    int tid, lane, wm0, wn0, m0, p0, kt0, nk;
} tc_block;
template <int BM, int BN, int WM, int WN, int BK>
static __device__ __forceinline__ tc_block tc_block_at(int K, int k_chunk)
{
    const int tid = threadIdx.x, warp = tid >> 5, kt0 = blockIdx.z * k_chunk;
    return tc_block{tid, tid & 31, (warp / WN) * (BM / WM), (warp % WN) * (BN / WN), (int)blockIdx.y * BM,
                    (int)blockIdx.x * BN, kt0, min(k_chunk, (K + BK - 1) / BK - kt0)};
}

/* The staged epilogue (ours_*_mma2, ours_bf16_mma3): the warp's accumulators into the output tile
 * Cs[BM][BN + 8] (the pipeline buffers: the caller has waited for every copy and passed a barrier),
 * then this thread stores column tid % BN (pixel p) of rows tid / BN, + THREADS / BN, ... of y
 * (NCHW: a warp writes 32 consecutive pixels of one row) or, split along K (splits > 1), of part
 * blockIdx.z's FP32 partial sums. */
template <typename T, int BM, int BN, int THREADS, int MT, int NT>
static __device__ __forceinline__ void store_tile_staged(float *Cs, const float (&acc)[MT][NT][4], int wm0, int wn0,
                                                         int lane, int tid, int m0, int p, int M, int P, int hw,
                                                         int splits, long long ny, T *y, float *partial)
{
    enum { CLD = BN + 8, ROWS = THREADS / BN };
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int mi = 0; mi < MT; mi++) /* accumulator (mi, nj, e): row g (+8 for e >= 2), columns 2t, 2t + 1 */
#pragma unroll
        for (int nj = 0; nj < NT; nj++)
#pragma unroll
            for (int h = 0; h < 2; h++)
                *(float2 *)&Cs[(wm0 + mi * 16 + g + 8 * h) * CLD + wn0 + nj * 8 + 2 * t] =
                    make_float2(acc[mi][nj][2 * h], acc[mi][nj][2 * h + 1]);
    __syncthreads();
    if (p >= P) return;
    const int n = p / hw, q = p - n * hw, col = tid % BN;
    const size_t at = (size_t)n * M * hw + q; /* y[n][0][q] */
    for (int r = tid / BN; r < BM && m0 + r < M; r += ROWS) {
        const size_t o = at + (size_t)(m0 + r) * hw;
        if (splits > 1) partial[blockIdx.z * ny + o] = Cs[r * CLD + col]; /* this part's partial sums */
        else store_out(y, o, Cs[r * CLD + col]);
    }
}
#endif
