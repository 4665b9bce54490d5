/* occupancy.h - Lab 03: the interface between the host program (C), the kernels (CUDA) and the
 * CPU references and the occupancy calculator (model.c). */
#ifndef OCCUPANCY_H
#define OCCUPANCY_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#define SEED_ITERS 10000       /* the seed's loop (1,000,000 on the K40); 10^4 makes a row take ms */
#define SEED_ITERS_QUICK 1000  /* --quick (and the sanitizer runs, which instrument every access) */
#define FMA_A 0.99951172f /* x = fma(x, A, B): stays bounded, exact on the CPU with fmaf */
#define FMA_B 0.00048828125f
#define MAX_ILP 4         /* independent chains per thread in fma_ilp4 */

/* Random streams of one run (gl_stream_seed's `stream` argument). */
enum { RNG_A = 1, RNG_B = 2, RNG_X = 3 };

/* Every kernel takes its launch shape from the caller; `records` non-NULL launches the counting
 * twin, which writes one residency record per warp (gl_metrics.cuh). */
typedef struct {
    unsigned blocks, threads; /* 1D grid and block; threads a multiple of 32 */
    size_t smem;              /* dynamic shared memory per block (only limits residency) */
} launch_shape;

/* ---- seed: the Lab 02 non-divergent kernel, C = A op B with op by warp, `iters` times ---- */
typedef struct {
    const float *a, *b;
    float *c;
    uint32_t iters;
    unsigned long long *counts;
} seed_args;

/* ---- work kernels: y[i] from x[i], a grid-stride loop over n elements ---- */
typedef enum {
    K_STREAM,       /* y = fma(x, 2, 1): one 4-byte load per element (memory-bound) */
    K_STREAM_ILP4,  /* the same, 4 independent loads in flight per thread */
    K_STREAM_VEC4,  /* the same with float4: 16 bytes per load */
    K_STREAM_VEC4_ILP4, /* float4 and 4 loads in flight: 64 bytes per thread */
    K_FMA,          /* `iters` dependent FMAs per element (compute-bound, no ILP) */
    K_FMA_ILP4,     /* 4 elements per thread interleaved: 4 independent FMA chains */
    K_TAIL_CHUNKS,  /* K_FMA with one block per chunk of TAIL_CHUNK elements (no grid stride) */
    K_REGS_8, K_REGS_32, K_REGS_64, K_REGS_96, K_REGS_128, K_REGS_160, K_REGS_224,
    K_COUNT,
    K_YOURS_REGS /* "Your turn": the student's kernel (exercises/registers.cu), not in WORK */
} work_kernel;
#define TAIL_ELEMS 16 /* elements per thread of one tail chunk */

typedef struct {
    const float *x;
    float *y;
    uint32_t n, iters;
    unsigned long long *counts;
} work_args;

/* What the compiler made of a kernel (cudaFuncGetAttributes) and the API's occupancy. */
typedef struct {
    int registers, static_smem, max_threads, local_bytes;
} kernel_attrs;

#ifdef __cplusplus
extern "C" {
#endif
/* kernels.cu */
void launch_seed(const seed_args *a, launch_shape sh, cudaStream_t s);
void launch_work(work_kernel k, const work_args *a, launch_shape sh, cudaStream_t s);
kernel_attrs seed_attrs(void);
kernel_attrs work_attrs(work_kernel k);
int work_accumulators(work_kernel k); /* K_REGS_n: n; others 0 */
/* cudaOccupancyMaxActiveBlocksPerMultiprocessor for the timed kernel (after allowing `smem`). */
int seed_api_blocks_per_sm(int threads, size_t smem);
int work_api_blocks_per_sm(work_kernel k, int threads, size_t smem);

/* model.c: CPU references (the same IEEE single-precision operations, in the same order) */
float ref_seed(float a, float b, uint32_t tid);
float ref_stream(float x);
float ref_fma(float x, uint32_t iters);
float ref_regs(float x, uint32_t iters, int accumulators);

/* model.c: the seed's two ways to pick threads per block for `size` elements */
unsigned seed_s1_threads(unsigned size);
unsigned seed_s2_threads(unsigned size, int sms);

/* model.c: the occupancy calculator - the hardware's rules, from the device's limits */
typedef struct {
    int cc_major, cc_minor;
    int max_threads_per_sm, max_threads_per_block, max_blocks_per_sm, warp_size;
    int regs_per_sm, regs_per_block;
    int smem_per_sm, smem_per_block_optin, smem_reserved_per_block; /* bytes */
} occ_device;

typedef enum { LIMIT_WARPS, LIMIT_BLOCKS, LIMIT_REGISTERS, LIMIT_SMEM, LIMIT_NONE_FITS } occ_limiter;

typedef struct {
    int blocks_per_sm;                           /* resident blocks of this kernel per SM */
    int by_warps, by_blocks, by_regs, by_smem;   /* each resource's own limit */
    occ_limiter limiter;                         /* the one that binds */
    int regs_per_warp, smem_per_block;           /* after allocation granularity */
    double occupancy;                            /* resident warps / max warps, percent */
} occ_result;

occ_result occ_calculate(const occ_device *d, int threads, int registers, size_t static_smem, size_t dyn_smem);
const char *occ_limiter_name(occ_limiter l);
int occ_reg_granularity(const occ_device *d);  /* registers per allocation unit (per warp) */
int occ_smem_granularity(const occ_device *d); /* bytes */
int occ_subpartitions(const occ_device *d);
#ifdef __cplusplus
}
#endif

#endif
