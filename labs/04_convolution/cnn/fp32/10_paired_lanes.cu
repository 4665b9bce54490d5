/* 10_paired_lanes.cu - Lab 04, part 2: ours10_paired_lanes, the direct rung for the large layers (more
 * than 2^19 outputs: E4, E3_N8, E3_N32, L56), where ours4..ours7 stop near half the FP32 peak.
 *
 * The lesson: shared memory returns 128 bytes a clock per SM, one register for each of a warp's 32
 * lanes; an LDS.128 returns four, so it costs 4 clocks of that path, or 2 when every lane reads
 * the same address as its neighbour lane ^ 1 (or ^ 2). An 8 x 8 thread tile reads 16 floats per
 * 64 FFMA: at 4 clocks per LDS.128 the warp's reads take 16 clocks per k, its 64 FFMA take 16 of
 * the SM's 4 schedulers' clocks: the read path is as busy as the FFMA pipes, and ours4..ours7
 * (one operand paired, the other not) reach 0.75 of that. Here lane bit 0 picks the column
 * group and bit 1 the row group, so lanes l and l ^ 1 read the same weights and lanes l and l ^ 2
 * the same im2col values: every fragment read costs 2 clocks, the read path is half as busy as
 * the FFMA pipes.
 *
 * And the rest of the ladder's levers, none in the inner loop: 128 x 128 (or 128 x 64) tiles, 8 x 8
 * (or 8 x 16) outputs per thread, BK 16, a 4-stage cp.async ring with one barrier per slice (16-byte copies of
 * the weights, 4-byte zero-fill copies of im2col), 2 or 3 blocks per SM (128 / 170 registers), or
 * 4 of 128 x 64 with 3 stages (128 registers: whole waves on E3_N32's 2048 tiles); im2col from a
 * table of the block's whole reduction range built once ((c, r, s) -> x offset and the tap's bit)
 * and a per-thread bit mask of the taps inside the image: one AND decides the halo. Split-K 2
 * adds into a zeroed y with atomics, which is deterministic: 0 + a + b = 0 + b + a exactly; more
 * splits go through the workspace and the ladder's reduce. Tile and split chosen by the autotuner.
 * Limits: x, w and y each under 2^31 elements (cnn_ladder_fits); R S <= 32; K % 4 == 0. */
#include "cnn.h"
#include "fast_rungs.h"
#include "cp_async_pipe.cuh"
#include "gl_check.h"

#define PBK 16            /* the reduction slice */
#define PA_LD (PBK + 4)   /* As row stride: 20 floats, rows 16-byte aligned, 4 consecutive rows 20 banks apart */

/* One stage: As[m][k] as the weights lie (16-byte copies), Bs[k][p] im2col. */
template <int BM, int BN> struct paired_stage {
    __align__(16) float a[BM][PA_LD];
    __align__(16) float b[PBK][BN];
};

/* STAGES slices in flight (the one multiplied, the others being copied); BLOCKS per SM: the
 * register cap (2: 128 registers at 256 threads, 255 at 128; 3: 170, 4: 128 at 128 threads); TN:
 * outputs per thread along p (8 x 8 or 8 x 16). 4 stages of 128 x 64 fit 3 blocks in an SM's
 * 228 KiB, 3 stages 4 (E3_N32: 52 KiB each with its table). */
template <int BM, int BN, int STAGES, int BLOCKS, int TN> struct paired_shape {
    static const int THREADS = BM * BN / (8 * TN), WARPS_N = BN / (8 * TN); /* warps of 32 x 8 TN outputs */
    static const size_t STAGES_BYTES = STAGES * sizeof(paired_stage<BM, BN>);
    static size_t smem(int table) { return STAGES_BYTES + (size_t)table * sizeof(int2); }
};

/* The im2col table of the block's reduction range, built once by all threads: step i (k =
 * k_begin + i) -> x offset c H W + (r - pad_h) W + s - pad_w and the tap's bit 1 << (r S + s);
 * bit 0 past k_end (no tap). */
static __device__ void paired_table(int2 *tab, const cnn_shape &d, int k_begin, int k_end, int steps)
{
    const int rs = d.R * d.S, hw = d.H * d.W;
    for (int i = threadIdx.x; i < steps; i += blockDim.x) {
        const int k = k_begin + i, c = k / rs, j = k - c * rs, r = j / d.S, s = j - r * d.S;
        tab[i] = make_int2(c * hw + (r - d.pad_h) * d.W + s - d.pad_w, k < k_end ? (int)(1u << j) : 0);
    }
}

/* What one thread copies, decoded once per block. Weights: AQ 16-byte chunks, chunk e = t +
 * THREADS q at row e / 4 = t / 4 + THREADS / 4 q, k (t % 4) 4 of the slice (4 lanes read a row's
 * 64 bytes): one offset and a row count, not AQ offsets (128 registers at 4 blocks per SM).
 * im2col: pixel column t % BN, slice rows t / BN + ROWS q: a warp copies 32 consecutive pixels of
 * one k. */
template <int BM, int BN, int THREADS> struct paired_loader {
    static const int AQ = BM * 4 / THREADS, BQ = PBK * BN / THREADS,
                     ROWS = THREADS / BN;
    int a_off;     /* (m0 + t / 4) K + (t % 4) 4: chunk 0; chunk q is THREADS / 4 rows further */
    int a_rows;    /* M - m0 - t / 4: chunk q lies inside w while THREADS / 4 q < a_rows */
    int base;      /* x offset of (n, 0, oy, ox) */
    unsigned mask; /* bit r S + s: tap (r, s) of this pixel inside the image; 0 past the last pixel */
    __device__ paired_loader(const cnn_shape &d, int m0, int p0, int K)
    {
        const int t = threadIdx.x, hw = d.H * d.W, p = p0 + t % BN, n = p / hw, q = p - n * hw, oy = q / d.W;
        a_rows = d.M - m0 - t / 4;
        a_off = a_rows > 0 ? (m0 + t / 4) * K + t % 4 * 4 : 0;
        base = n * d.C * hw + q;
        mask = 0;
        if (p < d.N * hw)
            for (int r = 0; r < d.R; r++)
                for (int s = 0; s < d.S; s++) {
                    const int iy = oy + r - d.pad_h, ix = q - oy * d.W + s - d.pad_w;
                    if ((unsigned)iy < (unsigned)d.H && (unsigned)ix < (unsigned)d.W) mask |= 1u << (r * d.S + s);
                }
    }
    /* Slice `slice` (k0 = k_begin + slice PBK) into stage st; tab: the block's table; K: w's row. */
    __device__ void copy(paired_stage<BM, BN> &st, const int2 *tab, const float *x, const float *w, int slice, int k0,
                         int k_end, int K) const
    {
        const int t = threadIdx.x;
#pragma unroll
        for (int i = 0; i < AQ; i++) {
            const int row = t / 4 + THREADS / 4 * i, kc = t % 4 * 4;
            const bool ok = THREADS / 4 * i < a_rows && k0 + kc < k_end; /* K % 4 == 0: whole chunks */
            copy_async<16>(&st.a[row][kc], w + (ok ? a_off + THREADS / 4 * i * K + k0 : 0), ok);
        }
        const float *src[BQ]; /* all addresses first: the BQ copies then issue back to back */
        bool ok[BQ];
#pragma unroll
        for (int i = 0; i < BQ; i++) {
            const int2 e = tab[slice * PBK + t / BN + ROWS * i]; /* one address per warp: a broadcast */
            ok[i] = (mask & (unsigned)e.y) != 0;
            src[i] = x + (ok[i] ? base + e.x : 0);
        }
#pragma unroll
        for (int i = 0; i < BQ; i++) copy_async<4>(&st.b[t / BN + ROWS * i][t % BN], src[i], ok[i]);
    }
};

/* One output: a plain store, or (split-K 2) an atomic add into the zeroed y. */
static __device__ __forceinline__ void paired_put(float *dst, float v, bool add)
{
    if (add) atomicAdd(dst, v);
    else *dst = v;
}

/* Four outputs of a row, dst 16-byte aligned (one red.global.add.v4 on sm_90). */
static __device__ __forceinline__ void paired_put4(float *dst, float4 v, bool add)
{
    if (!add) {
        *(float4 *)dst = v;
        return;
    }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    atomicAdd((float4 *)dst, v);
#else
    atomicAdd(dst, v.x), atomicAdd(dst + 1, v.y), atomicAdd(dst + 2, v.z), atomicAdd(dst + 3, v.w);
#endif
}

/* The thread's outputs to NCHW: rows row0 + 4 i, pixels col0 + 32 h + 0..3 (h < TN / 4); 4
 * pixels at a time when H W % 4 == 0 (then P % 4 == 0 and the 4 lie in one image, 16-byte
 * aligned). A warp writes 128 consecutive bytes in each of 4 rows per store. */
template <int TN>
static __device__ __forceinline__ void paired_store(float *out, const cnn_shape &d, int m0, int p0, int row0,
                                                    int col0, const float (&acc)[8][TN], bool add)
{
    const int hw = d.H * d.W, P = d.N * hw;
#pragma unroll
    for (int h = 0; h < TN / 4; h++) {
        const int p = p0 + col0 + 32 * h;
#pragma unroll
        for (int i = 0; i < 8; i++) {
            const int m = m0 + row0 + 4 * i;
            if (m >= d.M || p >= P) continue;
            if (hw % 4 == 0) {
                const int n = p / hw;
                paired_put4(&out[(n * d.M + m) * hw + p - n * hw],
                            make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]), add);
                continue;
            }
            for (int j = 0; j < 4 && p + j < P; j++) {
                const int n = (p + j) / hw;
                paired_put(&out[(n * d.M + m) * hw + p + j - n * hw], acc[i][4 * h + j], add);
            }
        }
    }
}

/* Lesson (ours10): the paired lanes. Warp (wm, wn) owns rows wm 32 .. + 31 and pixels wn 8 TN ..
 * + 8 TN - 1; lane l = (b4 b3 b2 b1 b0) owns rows lm + 4 i with lm = b1 + 2 b4, pixels ln 4 + 32 h
 * .. + 3 (h < TN / 4) with ln = b0 + 2 b2 + 4 b3. An A read (row lm + 4 i, 4 k) is the same for l and
 * l ^ 1, a B read (4 pixels of one k) the same for l and l ^ 2: 2 clocks each. The 4 rows of a read
 * lie 20 floats apart (banks 0, 20, 8, 28), the 8 pixel groups of a B read are 128 consecutive
 * bytes: no bank conflicts. The pipeline: slices s + 1 .. s + STAGES - 1 in flight while slice s
 * is multiplied; after the barrier of iteration s every thread is done with slice s - 1, whose
 * stage slice s + STAGES - 1 then overwrites. out: y, or the workspace + z split_stride; add:
 * atomics into y. */
template <int BM, int BN, int STAGES, int BLOCKS, int TN>
static __global__ void __launch_bounds__(BM * BN / (8 * TN), BLOCKS)
    paired_gemm(const float *x, const float *w, float *out, cnn_shape d, int k_per_split, size_t split_stride, int add)
{
    extern __shared__ float4 paired_dynamic[];
    paired_stage<BM, BN> *stage = (paired_stage<BM, BN> *)paired_dynamic;
    int2 *tab = (int2 *)(stage + STAGES);
    const int K = d.C * d.R * d.S, t = threadIdx.x, lane = t % 32, warp = t / 32;
    const int m0 = blockIdx.y * BM, p0 = blockIdx.x * BN;
    const int k_begin = blockIdx.z * k_per_split, k_end = min(K, k_begin + k_per_split);
    const int slices = (k_end - k_begin + PBK - 1) / PBK;
    const int lm = (lane >> 1 & 1) | (lane >> 3 & 2), ln = (lane & 1) | (lane >> 1 & 6);
    const int row0 = warp / (BN / (8 * TN)) * 32 + lm, col0 = warp % (BN / (8 * TN)) * 8 * TN + ln * 4;
    const paired_loader<BM, BN, BM * BN / (8 * TN)> L(d, m0, p0, K);
    paired_table(tab, d, k_begin, k_end, slices * PBK);
    __syncthreads();
    for (int j = 0; j < STAGES - 1; j++) {
        if (j < slices) L.copy(stage[j], tab, x, w, j, k_begin + j * PBK, k_end, K);
        copy_commit();
    }
    float acc[8][TN] = {};
    for (int s = 0; s < slices; s++) {
        copy_wait<STAGES - 2>(); /* slice s has landed (this thread's copies) */
        __syncthreads();          /* everyone's; and everyone is done with slice s - 1 */
        const int next = s + STAGES - 1;
        if (next < slices) L.copy(stage[next % STAGES], tab, x, w, next, k_begin + next * PBK, k_end, K);
        copy_commit(); /* an empty group at the end keeps the count of copy_wait */
        multiply_8xn<PBK, PA_LD, BN, 4, 32, TN>(stage[s % STAGES].a, stage[s % STAGES].b, row0, col0, acc);
    }
    paired_store(out + blockIdx.z * split_stride, d, m0, p0, row0, col0, acc, add);
}

/* ---------------- launcher ---------------- */

/* Tile shape, blocks per SM and split-K: the autotuner's choices. E3_N32 (M 128, P 131072): 1024
 * tiles of 128 x 128, 3.9 waves of 2 per SM; 2048 of 128 x 64, 5.2 waves of 3 per SM (the sixth
 * 17 % full), or 3.9 of 4 per SM (_b4: 3 stages). E4 (256 x 4096): 64 tiles: split 2 (128 blocks)
 * or 4 (256), or 128 x 64 tiles (128, with split 2: 256; with split 4 and 4 per SM: 512 for 528
 * places). L56 (256 x 3136): 50 tiles; split 5: 250 blocks for 264 places; 128 x 64 with split 4:
 * 392 for 396 (3 per SM), split 5 and 4 per SM: 490 for 528. _t16: 128 x 128 with 128 threads of 8
 * x 16 outputs (255 registers, 2 per SM): 24 LDS.128 per 512 FFMA, half the copies per FFMA; the
 * slice's loop 2309 SASS instructions for 2048 FFMA (88.7 %; 8 x 8: 1199 for 1024, 85.4 %). */
static const struct {
    const char *name;
    int bn, splits, blocks, tn; /* every tile is 128 rows (BM); blocks per SM 4: 3 stages, else 4 */
} PAIRED[] = {{"128x128", 128, 1, 2, 8},      {"128x128_k2", 128, 2, 2, 8},   {"128x128_k4", 128, 4, 2, 8},
              {"128x128_k5", 128, 5, 2, 8},   {"128x64", 64, 1, 3, 8},        {"128x64_k2", 64, 2, 3, 8},
              {"128x64_k4", 64, 4, 3, 8},     {"128x64_b4", 64, 1, 4, 8},     {"128x64_b4_k4", 64, 4, 4, 8},
              {"128x64_b4_k5", 64, 5, 4, 8},
              {"128x128_t16", 128, 1, 2, 16}, {"128x128_t16_k4", 128, 4, 2, 16}, {"128x128_t16_k5", 128, 5, 2, 16}};
#define N_PAIRED (int)(sizeof PAIRED / sizeof PAIRED[0])
static_assert(N_PAIRED == CNN_OURS10_TILES, "fast_rungs.h's CNN_OURS10_TILES counts the rows of PAIRED");

extern "C" const char *cnn_tile_name_ours10(int tile)
{
    return tile >= 0 && tile < N_PAIRED ? PAIRED[tile].name : "?";
}

/* The device's opt-in shared memory per block (0 when unknown). */
static int paired_smem_optin(void)
{
    static int bytes = -1;
    if (bytes < 0) {
        int dev;
        bytes = cudaGetDevice(&dev) == cudaSuccess &&
                        cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) == cudaSuccess
                    ? bytes
                    : 0;
    }
    return bytes;
}

/* The rule: layers of more than 2^19 outputs (M N H W: E4, E3_N8, E3_N32, L56; ours9 takes the
 * rest), R S <= 32 (the tap mask), K % 4 == 0 (16-byte weight copies), and a table of the whole K
 * beside 4 stages of 128 x 128 in the device's shared memory (E4: 90 KiB; not on sm_75's 64). */
extern "C" int cnn_supports_ours10(const cnn_shape *s)
{
    const int K = s->C * s->R * s->S, steps = (K + PBK - 1) / PBK * PBK;
    return (double)s->M * s->N * s->H * s->W > 524288.0 && s->R * s->S <= 32 && K % 4 == 0 && cnn_ladder_fits(s) &&
           (size_t)paired_smem_optin() >= paired_shape<128, 128, 4, 2, 8>::smem(steps);
}

extern "C" size_t cnn_workspace_ours10(const cnn_shape *s, int tile)
{
    if (tile < 0 || tile >= N_PAIRED) return 0;
    int used;
    cnn_per_split(s->C * s->R * s->S, PAIRED[tile].splits, PBK, &used);
    return used > 2 ? (size_t)used * s->N * s->M * s->H * s->W * sizeof(float) : 0;
}

template <int BM, int BN, int STAGES, int BLOCKS, int TN>
static void paired_launch(const cnn_launch_args *a, float *out, dim3 grid, int per, size_t ny, int add,
                          cudaStream_t st)
{
    typedef paired_shape<BM, BN, STAGES, BLOCKS, TN> shape;
    const size_t smem = shape::smem(per);
    static size_t opted_in; /* above 48 KiB of dynamic shared memory a kernel must ask for it */
    if (smem > opted_in) {
        GL_CHECK(cudaFuncSetAttribute(paired_gemm<BM, BN, STAGES, BLOCKS, TN>,
                                      cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        /* all of the SM's unified memory as shared: the BLOCKS blocks' stages, not L1, decide */
        GL_CHECK(cudaFuncSetAttribute(paired_gemm<BM, BN, STAGES, BLOCKS, TN>,
                                      cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
    }
    opted_in = smem > opted_in ? smem : opted_in;
    paired_gemm<BM, BN, STAGES, BLOCKS, TN><<<grid, shape::THREADS, smem, st>>>(a->x, a->w, out, a->s, per,
                                                                            add ? 0 : ny, add);
    GL_CHECK_LAUNCH();
}

extern "C" cnn_status cnn_launch_ours10(const cnn_launch_args *a, cudaStream_t st)
{
    const cnn_shape *s = &a->s;
    const int tile = a->tile;
    if (!cnn_supports_ours10(s) || tile < 0 || tile >= N_PAIRED) return CNN_ERR_SHAPE;
    const int P = s->N * s->H * s->W, bn = PAIRED[tile].bn;
    const size_t ny = (size_t)P * s->M;
    int used;
    const int per = cnn_per_split(s->C * s->R * s->S, PAIRED[tile].splits, PBK, &used), add = used == 2;
    if (used > 2 && a->workspace_bytes < used * ny * sizeof(float)) return CNN_ERR_SHAPE;
    if (add) GL_CHECK(cudaMemsetAsync(a->y, 0, ny * sizeof(float), st)); /* the atomics' zero */
    float *out = used > 2 ? (float *)a->workspace : a->y;
    const dim3 grid((P + bn - 1) / bn, (s->M + 127) / 128, used);
    if (PAIRED[tile].tn == 16) paired_launch<128, 128, 4, 2, 16>(a, out, grid, per, ny, add, st);
    else if (bn == 128) paired_launch<128, 128, 4, 2, 8>(a, out, grid, per, ny, add, st);
    else if (PAIRED[tile].blocks == 4) paired_launch<128, 64, 3, 4, 8>(a, out, grid, per, ny, add, st);
    else paired_launch<128, 64, 4, 3, 8>(a, out, grid, per, ny, add, st);
    if (used > 2) cnn_sum_splits(out, a->y, ny, used, st);
    return CNN_OK;
}
