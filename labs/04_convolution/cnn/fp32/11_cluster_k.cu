/* 11_cluster_k.cu - Lab 04, part 2: ours11_cluster_k, split-K across a thread-block cluster (sm_90),
 * for the small layers that launch less than one wave (T3A: 256 x 49 outputs, K 832; E1: 64 x
 * 1024, K 576; T4A, T5A). ours9 (09_sliced_k.cu) runs the whole reduction of a tile in one block:
 * E1's 128 blocks of 32 x 16 each walk 9 slices of 64 k in a row, one copy's latency and two
 * barriers apiece, on 128 of 132 SMs with 8 warps each (12 % occupancy). Split-K gives more,
 * shorter work items, but through a workspace and a second pass (ours7) or atomics (ours10).
 *
 * Here the CS blocks of a cluster (CS = 2, 4 or 8, grid z) own the same output tile and each
 * takes a contiguous 1/CS of its slices (sk_accumulate, ours9's loop over a slice range); the
 * cluster's blocks run at the same time on one GPC, and each can read the others' shared memory
 * (distributed shared memory, DSMEM). So the partial tiles never leave the chip: each block sums
 * its G warp groups' tiles in its own shared memory, the cluster meets at one barrier, and rank r
 * adds the CS partial tiles of its 1/CS of the outputs (reading the others' shared memory, in
 * rank order: deterministic) and stores them. One kernel, one pass: no workspace, no memset, no
 * atomics. A second cluster barrier keeps every block's shared memory alive until all have read.
 *
 * Clusters exist on compute capability 9.0 and later: elsewhere (or in a build without sm_90 code)
 * the row's supports() says so once and the row is left out; ours8 and ours9 run those layers.
 * Limits: x, w and y each under 2^31 elements (int offsets, cnn_ladder_fits). */
#include <stdio.h>
#include "cnn.h"
#include "fast_rungs.h"
#include "gl_check.h"
#include "cp_async_pipe.cuh"
#include "sliced_k.cuh"
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#include <cooperative_groups.h>
#define CK_CLUSTERS 1

/* Rank r's share of the reduction: slices r S / CS .. (r + 1) S / CS - 1 (sizes differ by one at
 * most; empty when S < CS). Its share of the tile's BM BN / 4 float4 outputs: a contiguous chunk
 * of ceil(E / CS) (whole rows of the tile when BN / 4 divides it: 16-byte stores side by side). */
static __device__ __forceinline__ int ck_slice_begin(int slices, int rank, int ranks)
{
    return rank * slices / ranks;
}
static __device__ __forceinline__ int ck_chunk(int e_total, int ranks)
{
    return (e_total + ranks - 1) / ranks;
}
#endif

/* Lesson (ours11): a sub-wave layer needs more, smaller work items, and split-K makes them; the
 * cluster sums the partial tiles on chip. Each block: its slice range into 4 x 4 per thread
 * (sk_accumulate), its G partial tiles summed in place into red[0] (shared memory); cluster barrier;
 * rank r sums red[0] of ranks 0..CS-1 (DSMEM reads, map_shared_rank) for its chunk and stores y;
 * cluster barrier (no block exits while another still reads its shared memory). */
template <int BM, int BN, int G, bool VEC_X>
static __global__ void __launch_bounds__(sk_shape<BM, BN, G>::THREADS, sk_shape<BM, BN, G>::MIN_BLOCKS)
    cluster_k_gemm(const float *x, const float *w, float *y, cnn_shape d, int vec_w)
{
#ifdef CK_CLUSTERS
    namespace cg = cooperative_groups;
    const int THREADS = sk_shape<BM, BN, G>::THREADS, TG = THREADS / G, E = BM * BN / 4;
    extern __shared__ float4 ck_dynamic[];
    __shared__ sk_ktab<2> kt;
    cg::cluster_group cluster = cg::this_cluster();
    const int rank = (int)cluster.block_rank(), ranks = (int)cluster.num_blocks();
    const int K = d.C * d.R * d.S, t = threadIdx.x, g = t / TG, tm = (t % TG) / (BN / 4), tn = t % (BN / 4);
    const int m0 = blockIdx.y * BM, p0 = blockIdx.x * BN, slices = (K + SK - 1) / SK;
    float acc[4][4] = {};
    sk_accumulate<BM, BN, G, VEC_X, 2>(x, w, d, vec_w, m0, p0, ck_slice_begin(slices, rank, ranks),
                                    ck_slice_begin(slices, rank + 1, ranks), (sk_stage<BM, BN> *)ck_dynamic, kt, acc);
    float *red = (float *)ck_dynamic; /* red[g][BM][BN] over the stages, free after the last barrier */
    sk_write_partial<BM, BN>(red, g, tm, tn, acc);
    __syncthreads();
    for (int e = t; e < E; e += THREADS) { /* element e: only this thread reads or writes it */
        const int row = e / (BN / 4), col = (e % (BN / 4)) * 4;
        *(float4 *)&red[row * BN + col] = sk_sum_groups<BM, BN, G>(red, row, col);
    }
    cluster.sync(); /* every rank's red[0] is complete and visible to the cluster */
    const int chunk = ck_chunk(E, ranks), e_end = min(E, (rank + 1) * chunk);
    for (int e = rank * chunk + t; e < e_end; e += THREADS) {
        float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (int q = 0; q < ranks; q++) {
            const float4 u = cluster.map_shared_rank((const float4 *)red, q)[e];
            v.x += u.x, v.y += u.y, v.z += u.z, v.w += u.w;
        }
        sk_store4(y, d, m0 + e / (BN / 4), p0 + (e % (BN / 4)) * 4, v);
    }
    cluster.sync();
#endif
}

/* Block tile (BM x BN), warp groups G and cluster size CS: the autotuner's choices. Blocks = tiles
 * x CS; slices per block = ceil(K / 64) / CS. T3A (13 slices): 32x16 and 16x32 with CS 8 give
 * 256 blocks of 4 warps and 1-2 slices each; 32x32_g4_c8 128 blocks of 8 warps. E1 (9 slices):
 * 32x16_g4_c4 512 blocks of 4 warps, 2-3 slices each (ours9's 32x16_g8: 128 blocks, 9 slices);
 * 32x16_g8_c2 256 of 8 warps, 4-5 slices; 32x32_g4_c4 256 of 8 warps, 2-3 slices. */
static const struct {
    const char *name;
    int bm, bn, groups, cs;
} CLUSTERED[] = {{"32x16_g4_c4", 32, 16, 4, 4}, {"32x16_g4_c8", 32, 16, 4, 8}, {"16x32_g4_c4", 16, 32, 4, 4},
                 {"16x32_g4_c8", 16, 32, 4, 8}, {"32x32_g4_c4", 32, 32, 4, 4}, {"32x32_g4_c8", 32, 32, 4, 8},
                 {"32x16_g8_c2", 32, 16, 8, 2}, {"32x16_g8_c4", 32, 16, 8, 4}};
#define N_CLUSTERED (int)(sizeof CLUSTERED / sizeof CLUSTERED[0])
static_assert(N_CLUSTERED == CNN_OURS11_TILES, "fast_rungs.h's CNN_OURS11_TILES counts the rows of CLUSTERED");

extern "C" const char *cnn_tile_name_ours11(int t) { return t >= 0 && t < N_CLUSTERED ? CLUSTERED[t].name : "?"; }

/* Whether this process can run clusters: a GPU of compute capability 9.0 or later, and the
 * kernel's code compiled for sm_90 or later (a build for older GPUs only has no cluster code;
 * the driver's JIT from older PTX would run an empty kernel). Said once when not. */
static int cluster_capable(void)
{
    static int known = -1;
    if (known >= 0) return known;
    int dev, major;
    cudaFuncAttributes fa;
    GL_CHECK(cudaGetDevice(&dev));
    GL_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    const int loaded = major >= 9 && cudaFuncGetAttributes(&fa, cluster_k_gemm<32, 16, 4, false>) == cudaSuccess;
    if (major >= 9 && !loaded) (void)cudaGetLastError(); /* no code for this GPU: not ours to fail on */
    known = loaded && fa.ptxVersion >= 90;
    if (!known)
        printf("note: cnn: ours11_cluster_k needs thread-block clusters: %s: left out\n",
               major < 9 ? "a GPU of compute capability 9.0 or later" : "a build with 90 in -Dcuda-arch");
    return known;
}

/* The rule: ours9's (layers of at most 2^19 outputs), on a GPU and build with clusters. */
extern "C" int cnn_supports_ours11(const cnn_shape *s) { return cnn_supports_ours9(s) && cluster_capable(); }

template <int BM, int BN, int G, bool VEC_X>
static void cluster_launch(const cnn_launch_args *a, int cs, cudaStream_t st)
{
    typedef sk_shape<BM, BN, G> shape;
    static_assert(shape::SMEM + sizeof(sk_ktab<2>) <= 48 * 1024, "no opt-in above 48 KiB of shared memory needed");
    const cnn_shape *s = &a->s;
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute cluster;
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim.x = 1, cluster.val.clusterDim.y = 1, cluster.val.clusterDim.z = (unsigned)cs;
    cfg.gridDim = dim3((s->N * s->H * s->W + BN - 1) / BN, (s->M + BM - 1) / BM, cs);
    cfg.blockDim = dim3(shape::THREADS);
    cfg.dynamicSmemBytes = shape::SMEM;
    cfg.stream = st;
    cfg.attrs = &cluster;
    cfg.numAttrs = 1;
    const int vec_w = s->C * s->R * s->S % 4 == 0;
    GL_CHECK(cudaLaunchKernelEx(&cfg, cluster_k_gemm<BM, BN, G, VEC_X>, a->x, a->w, a->y, *s, vec_w));
    GL_CHECK_LAUNCH();
}

template <int BM, int BN, int G> static void cluster_dispatch(const cnn_launch_args *a, int cs, cudaStream_t st)
{
    const cnn_shape *s = &a->s;
    if (s->R == 1 && s->S == 1 && s->H * s->W % 4 == 0) cluster_launch<BM, BN, G, true>(a, cs, st);
    else cluster_launch<BM, BN, G, false>(a, cs, st);
}

extern "C" cnn_status cnn_launch_ours11(const cnn_launch_args *a, cudaStream_t st)
{
    const int tile = a->tile;
    if (!cnn_ladder_fits(&a->s) || tile < 0 || tile >= N_CLUSTERED) return CNN_ERR_SHAPE;
    if (!cnn_supports_ours11(&a->s)) return CNN_ERR_VARIANT;
    const int bm = CLUSTERED[tile].bm, bn = CLUSTERED[tile].bn, g = CLUSTERED[tile].groups, cs = CLUSTERED[tile].cs;
    if (g == 8) cluster_dispatch<32, 16, 8>(a, cs, st);
    else if (bm == 16) cluster_dispatch<16, 32, 4>(a, cs, st);
    else if (bn == 16) cluster_dispatch<32, 16, 4>(a, cs, st);
    else cluster_dispatch<32, 32, 4>(a, cs, st);
    return CNN_OK;
}
