/* kernels.cu - Lab 03 kernels. Each lesson kernel is a body with a `gl_warp_clock *c` argument,
 * wrapped by GL_KERNEL_RECORDED: launched with a.counts set, every warp writes a residency record
 * (SM, warp slot, start, end: gl_metrics.cuh) from which the host computes SM efficiency and
 * achieved occupancy (common/gl_residency.h); launched with a.counts NULL (the timed launches)
 * nothing is recorded. Unlike Labs 01-02 there is no separate counting twin: residency depends on
 * the register count, and a twin compiled on its own gets a different one (ptxas: regs_32 uses 40
 * registers, a twin with the clock 47 - 48 warps per SM against 40). Every kernel takes its
 * launch shape from the caller: the lesson is the shape, not the body. */
#include "occupancy.h"
#include "exercises/exercises.h"
#include "gl_check.h"
#include "gl_metrics.cuh"

#define KERNEL_PAIR(name, args_type) GL_KERNEL_RECORDED(name, args_type)

static __device__ __forceinline__ uint32_t global_tid(void) { return blockIdx.x * blockDim.x + threadIdx.x; }
static __device__ __forceinline__ uint32_t grid_threads(void) { return gridDim.x * blockDim.x; }

/* ---------------- seed ---------------- */

/* Lesson: the seed's vector_add - Lab 02's kernel without divergence, a loop long enough to set
 * the time. C may alias A and B, so every iteration reloads A and B after storing C: each warp
 * runs a chain of dependent memory operations, and how many SMs hold warps decides the time. */
static __device__ __forceinline__ int seed_vector_add_body(seed_args a, gl_warp_clock *c)
{
    gl_warp_begin(c);
    uint32_t tid = global_tid();
    for (uint32_t i = 0; i < a.iters; i++) {
        if ((tid / 32) % 4 == 0) a.c[tid] = a.a[tid] + a.b[tid];
        else if ((tid / 32) % 4 == 1) a.c[tid] = a.a[tid] - a.b[tid];
        else if ((tid / 32) % 4 == 2) a.c[tid] = a.a[tid] * a.b[tid];
        else if ((tid / 32) % 4 == 3) a.c[tid] = a.a[tid] / a.b[tid];
    }
    return 1;
}
KERNEL_PAIR(seed_vector_add, seed_args)

/* ---------------- memory-bound: how many bytes each warp keeps in flight ---------------- */

/* Lesson: one 4-byte load per thread per iteration. The load's latency is hidden only by other
 * warps: full bandwidth needs many resident warps (Little's law: bytes in flight = bandwidth x
 * latency). */
static __device__ __forceinline__ int stream_body(work_args a, gl_warp_clock *c)
{
    gl_warp_begin(c);
    for (uint32_t i = global_tid(); i < a.n; i += grid_threads()) a.y[i] = fmaf(a.x[i], 2.0f, 1.0f);
    return 1;
}

/* Lesson: the same work with four independent loads issued before the first use: four times the
 * bytes in flight per warp, so a quarter of the warps suffice. */
static __device__ __forceinline__ int stream_ilp4_body(work_args a, gl_warp_clock *c)
{
    gl_warp_begin(c);
    const float *__restrict__ x = a.x;
    float *__restrict__ y = a.y;
    uint32_t s = grid_threads(), i = global_tid();
    for (; i + 3 * s < a.n; i += 4 * s) {
        float v0 = x[i], v1 = x[i + s], v2 = x[i + 2 * s], v3 = x[i + 3 * s];
        y[i] = fmaf(v0, 2.0f, 1.0f);
        y[i + s] = fmaf(v1, 2.0f, 1.0f);
        y[i + 2 * s] = fmaf(v2, 2.0f, 1.0f);
        y[i + 3 * s] = fmaf(v3, 2.0f, 1.0f);
    }
    for (; i < a.n; i += s) y[i] = fmaf(x[i], 2.0f, 1.0f);
    return 1;
}

static __device__ __forceinline__ float4 stream4(float4 v)
{
    return make_float4(fmaf(v.x, 2.0f, 1.0f), fmaf(v.y, 2.0f, 1.0f), fmaf(v.z, 2.0f, 1.0f), fmaf(v.w, 2.0f, 1.0f));
}

/* Lesson: 16-byte loads (float4): four times the bytes per load instruction. n % 4 == 0. */
static __device__ __forceinline__ int stream_vec4_body(work_args a, gl_warp_clock *c)
{
    gl_warp_begin(c);
    const float4 *x = (const float4 *)a.x;
    float4 *y = (float4 *)a.y;
    for (uint32_t i = global_tid(); i < a.n / 4; i += grid_threads()) y[i] = stream4(x[i]);
    return 1;
}

/* Lesson: 16-byte loads, four in flight: 64 bytes per thread - full bandwidth from few warps. */
static __device__ __forceinline__ int stream_vec4_ilp4_body(work_args a, gl_warp_clock *c)
{
    gl_warp_begin(c);
    const float4 *__restrict__ x = (const float4 *)a.x;
    float4 *__restrict__ y = (float4 *)a.y;
    uint32_t s = grid_threads(), i = global_tid(), n4 = a.n / 4;
    for (; i + 3 * s < n4; i += 4 * s) {
        float4 v0 = x[i], v1 = x[i + s], v2 = x[i + 2 * s], v3 = x[i + 3 * s];
        y[i] = stream4(v0);
        y[i + s] = stream4(v1);
        y[i + 2 * s] = stream4(v2);
        y[i + 3 * s] = stream4(v3);
    }
    for (; i < n4; i += s) y[i] = stream4(x[i]);
    return 1;
}

/* ---------------- compute-bound: dependent FMA chains ---------------- */

static __device__ __forceinline__ float fma_chain(float v, uint32_t iters)
{
    for (uint32_t k = 0; k < iters; k++) v = fmaf(v, FMA_A, FMA_B);
    return v;
}

/* Lesson: each FMA waits for the previous one (about 4 cycles): a sub-partition issues every
 * cycle only when it holds several warps - compute latency needs occupancy too. */
static __device__ __forceinline__ int fma_body(work_args a, gl_warp_clock *c)
{
    gl_warp_begin(c);
    for (uint32_t i = global_tid(); i < a.n; i += grid_threads()) a.y[i] = fma_chain(a.x[i], a.iters);
    return 1;
}

/* Lesson: four independent chains per thread: the scheduler issues from one warp four times in a
 * row - instruction-level parallelism replaces warps. */
static __device__ __forceinline__ int fma_ilp4_body(work_args a, gl_warp_clock *c)
{
    gl_warp_begin(c);
    uint32_t s = grid_threads(), i = global_tid();
    for (; i + 3 * s < a.n; i += 4 * s) {
        float v0 = a.x[i], v1 = a.x[i + s], v2 = a.x[i + 2 * s], v3 = a.x[i + 3 * s];
        for (uint32_t k = 0; k < a.iters; k++) {
            v0 = fmaf(v0, FMA_A, FMA_B);
            v1 = fmaf(v1, FMA_A, FMA_B);
            v2 = fmaf(v2, FMA_A, FMA_B);
            v3 = fmaf(v3, FMA_A, FMA_B);
        }
        a.y[i] = v0;
        a.y[i + s] = v1;
        a.y[i + 2 * s] = v2;
        a.y[i + 3 * s] = v3;
    }
    for (; i < a.n; i += s) a.y[i] = fma_chain(a.x[i], a.iters);
    return 1;
}

/* Lesson (tail): one block per chunk of blockDim x TAIL_ELEMS elements, no grid-stride loop. When
 * the number of chunks is one more than a whole number of waves, the last wave is one block on
 * one SM while the rest of the GPU waits. */
static __device__ __forceinline__ int tail_chunks_body(work_args a, gl_warp_clock *c)
{
    gl_warp_begin(c);
    uint32_t first = blockIdx.x * blockDim.x * TAIL_ELEMS + threadIdx.x;
    for (uint32_t k = 0; k < TAIL_ELEMS; k++) {
        uint32_t i = first + k * blockDim.x;
        if (i < a.n) a.y[i] = fma_chain(a.x[i], a.iters);
    }
    return 1;
}

KERNEL_PAIR(stream, work_args)
KERNEL_PAIR(stream_ilp4, work_args)
KERNEL_PAIR(stream_vec4, work_args)
KERNEL_PAIR(stream_vec4_ilp4, work_args)
KERNEL_PAIR(fma, work_args)
KERNEL_PAIR(fma_ilp4, work_args)
KERNEL_PAIR(tail_chunks, work_args)

/* ---------------- register pressure ---------------- */

/* Lesson: N accumulators live at once need about N registers per thread (cudaFuncGetAttributes
 * says how many the compiler used): more registers per thread, fewer warps per SM. Each
 * accumulator is an independent FMA chain, so the same kernel also gains ILP as N grows. */
#define REGS_KERNEL(N)                                                                         \
    static __device__ __forceinline__ int regs_##N##_body(work_args a, gl_warp_clock *c)       \
    {                                                                                          \
        gl_warp_begin(c);                                                                      \
        for (uint32_t i = global_tid(); i < a.n; i += grid_threads()) {                        \
            float v[N];                                                                        \
            _Pragma("unroll") for (int j = 0; j < N; j++) v[j] = a.x[i] + (float)j;            \
            for (uint32_t k = 0; k < a.iters; k++) {                                           \
                _Pragma("unroll") for (int j = 0; j < N; j++) v[j] = fmaf(v[j], FMA_A, FMA_B); \
            }                                                                                  \
            float s = 0.0f;                                                                    \
            _Pragma("unroll") for (int j = 0; j < N; j++) s += v[j];                           \
            a.y[i] = s;                                                                        \
        }                                                                                      \
        return 1;                                                                              \
    }                                                                                          \
    KERNEL_PAIR(regs_##N, work_args)

REGS_KERNEL(8)
REGS_KERNEL(32)
REGS_KERNEL(64)
REGS_KERNEL(96)
REGS_KERNEL(128)
REGS_KERNEL(160)
REGS_KERNEL(224)

/* ---------------- the table and the launchers ---------------- */

typedef void (*work_fn)(work_args);
static const struct {
    work_fn fn;
    int accumulators;
} WORK[K_COUNT] = {
    [K_STREAM] = {stream, 0},
    [K_STREAM_ILP4] = {stream_ilp4, 0},
    [K_STREAM_VEC4] = {stream_vec4, 0},
    [K_STREAM_VEC4_ILP4] = {stream_vec4_ilp4, 0},
    [K_FMA] = {fma, 0},
    [K_FMA_ILP4] = {fma_ilp4, 0},
    [K_TAIL_CHUNKS] = {tail_chunks, 0},
    [K_REGS_8] = {regs_8, 8},
    [K_REGS_32] = {regs_32, 32},
    [K_REGS_64] = {regs_64, 64},
    [K_REGS_96] = {regs_96, 96},
    [K_REGS_128] = {regs_128, 128},
    [K_REGS_160] = {regs_160, 160},
    [K_REGS_224] = {regs_224, 224},
};

/* A work kernel: the lab's own (WORK), or the student's (K_YOURS_REGS, in exercises/). */
static work_fn work_fn_of(work_kernel k) { return k == K_YOURS_REGS ? yours_regs_kernel() : WORK[k].fn; }

/* Dynamic shared memory above 48 KB must be allowed per kernel before a launch or a query. */
static void allow_smem(const void *fn, size_t smem)
{
    if (smem > 48 * 1024)
        GL_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
}

static kernel_attrs attrs_of(const void *fn)
{
    cudaFuncAttributes fa;
    GL_CHECK(cudaFuncGetAttributes(&fa, fn));
    kernel_attrs k = {fa.numRegs, (int)fa.sharedSizeBytes, fa.maxThreadsPerBlock, (int)fa.localSizeBytes};
    return k;
}

static int api_blocks(const void *fn, int threads, size_t smem)
{
    int blocks = -1;
    allow_smem(fn, smem);
    GL_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, threads, smem));
    return blocks;
}

extern "C" void launch_seed(const seed_args *a, launch_shape sh, cudaStream_t s)
{
    allow_smem((const void *)seed_vector_add, sh.smem);
    seed_vector_add<<<sh.blocks, sh.threads, sh.smem, s>>>(*a);
    GL_CHECK_LAUNCH();
}

extern "C" void launch_work(work_kernel k, const work_args *a, launch_shape sh, cudaStream_t s)
{
    work_fn fn = work_fn_of(k);
    allow_smem((const void *)fn, sh.smem);
    fn<<<sh.blocks, sh.threads, sh.smem, s>>>(*a);
    GL_CHECK_LAUNCH();
}

extern "C" kernel_attrs seed_attrs(void) { return attrs_of((const void *)seed_vector_add); }
extern "C" kernel_attrs work_attrs(work_kernel k) { return attrs_of((const void *)work_fn_of(k)); }
extern "C" int work_accumulators(work_kernel k) { return k == K_YOURS_REGS ? EXERCISE_ACCUMULATORS : WORK[k].accumulators; }
extern "C" int seed_api_blocks_per_sm(int threads, size_t smem)
{
    return api_blocks((const void *)seed_vector_add, threads, smem);
}
extern "C" int work_api_blocks_per_sm(work_kernel k, int threads, size_t smem)
{
    return api_blocks((const void *)work_fn_of(k), threads, smem);
}
