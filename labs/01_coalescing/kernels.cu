/* kernels.cu - Lab 01 kernels. Each lesson kernel is a body with a `gl_load_counts *c` argument:
 * the timed kernel passes NULL (no counting code survives inlining); its count_ twin passes a
 * counter and adds the warp's totals to args.counts, so the metrics describe the same loads. */
#include "coalescing.h"
#include "gl_check.h"
#include "gl_curand.cuh"
#include "gl_metrics.cuh"

static __device__ __forceinline__ uint32_t global_tid(void) { return blockIdx.x * blockDim.x + threadIdx.x; }

/* ---------------- the seed experiment ---------------- */

/* Lesson: lane i reads element i, so a warp's load is 32 consecutive floats = one 128-byte
 * segment = 4 sectors. (As in the seed: no RNG, the same addresses every iteration.) */
static __device__ __forceinline__ void coalesced_body(seed_args a, gl_load_counts *c)
{
    uint32_t tid = global_tid();
    for (int i = 0; i < SEED_ITERS; i++) {
        gl_count_load(c, &a.a[tid]);
        gl_count_load(c, &a.b[tid]);
        a.c[tid] = a.a[tid] + a.b[tid];
    }
}

/* Lesson: every lane reads a random element of the whole array: one request becomes ~32
 * sectors in ~32 different lines, and at large sizes ~32 separate DRAM accesses. */
static __device__ __forceinline__ void non_coalesced_body(seed_args a, gl_load_counts *c)
{
    uint32_t tid = global_tid();
    curandStateXORWOW_t s = gl_xorwow_load(a.index_rng, tid, c);
    for (int i = 0; i < SEED_ITERS; i++) {
        uint32_t idx = gl_range(curand(&s), a.n);
        gl_count_load(c, &a.a[idx]);
        gl_count_load(c, &a.b[idx]);
        a.c[tid] = a.a[idx] + a.b[idx];
    }
}

/* Lesson: the warp draws one random group of consecutive segments (all lanes share the group
 * generator's state), then each lane reads random elements inside it: randomness bounded by
 * the group size, cost bounded by the group's sectors. */
static __device__ __forceinline__ void semi_coalesced_body(seed_args a, gl_load_counts *c)
{
    uint32_t tid = global_tid();
    curandStateXORWOW_t s1 = gl_xorwow_load(a.index_rng, tid, c);
    curandStateXORWOW_t s2 = gl_xorwow_load(a.group_rng, tid, c);
    uint32_t base = gl_range(curand(&s2), a.groups) * a.group_elems;
    for (int i = 0; i < SEED_ITERS; i++) {
        uint32_t idx = base + gl_range(curand(&s1), a.group_elems);
        gl_count_load(c, &a.a[idx]);
        gl_count_load(c, &a.b[idx]);
        a.c[tid] = a.a[idx] + a.b[idx];
    }
}

/* A timed kernel and its counting twin around one body. */
#define SEED_KERNELS(name)                                                                    \
    static __global__ void name(seed_args a)                                                  \
    {                                                                                         \
        if (global_tid() < a.n) name##_body(a, NULL);                                         \
    }                                                                                         \
    static __global__ void count_##name(seed_args a)                                          \
    {                                                                                         \
        if (global_tid() >= a.n) return;                                                      \
        gl_load_counts c = {0, 0, 0};                                                         \
        name##_body(a, &c);                                                                   \
        gl_count_flush(&c, a.counts);                                                         \
    }
SEED_KERNELS(coalesced)
SEED_KERNELS(non_coalesced)
SEED_KERNELS(semi_coalesced)

extern "C" void launch_seed(seed_pattern p, const seed_args *a, cudaStream_t s)
{
    unsigned blocks = (a->n + SEED_BLOCK - 1) / SEED_BLOCK;
    int count = a->counts != NULL;
    switch (p) {
    case PAT_COALESCED:
        if (count) count_coalesced<<<blocks, SEED_BLOCK, 0, s>>>(*a);
        else coalesced<<<blocks, SEED_BLOCK, 0, s>>>(*a);
        break;
    case PAT_SEMI:
        if (count) count_semi_coalesced<<<blocks, SEED_BLOCK, 0, s>>>(*a);
        else semi_coalesced<<<blocks, SEED_BLOCK, 0, s>>>(*a);
        break;
    case PAT_RANDOM:
        if (count) count_non_coalesced<<<blocks, SEED_BLOCK, 0, s>>>(*a);
        else non_coalesced<<<blocks, SEED_BLOCK, 0, s>>>(*a);
        break;
    }
    GL_CHECK_LAUNCH();
}

extern "C" gl_xorwow_states lab_rng_create(size_t n, uint64_t seed, unsigned stream, unsigned share_shift)
{
    return gl_xorwow_states_create(n, seed, stream, share_shift);
}

extern "C" void lab_rng_free(gl_xorwow_states *st) { gl_xorwow_states_free(st); }

/* ---------------- streaming: each element read once ---------------- */

/* Lesson: the bandwidth reference. Consecutive threads, consecutive floats: 4 sectors a request. */
static __device__ __forceinline__ void stream_copy_body(stream_args a, gl_load_counts *c)
{
    uint32_t i = global_tid();
    gl_count_load(c, &a.a[i]);
    a.c[i] = a.a[i];
}

/* Lesson: 16-byte accesses: a quarter of the instructions and requests for the same bytes. */
static __device__ __forceinline__ void stream_copy_vec4_body(stream_args a, gl_load_counts *c)
{
    uint32_t i = global_tid();
    const float4 *src = (const float4 *)a.a;
    gl_count_load(c, &src[i]);
    ((float4 *)a.c)[i] = src[i];
}

/* Lesson: two input streams and one output; bytes = 12 per element. */
static __device__ __forceinline__ void stream_add_body(stream_args a, gl_load_counts *c)
{
    uint32_t i = global_tid();
    gl_count_load(c, &a.a[i]);
    gl_count_load(c, &a.b[i]);
    a.c[i] = a.a[i] + a.b[i];
}

/* Lesson: a warp's 128 bytes start `param` floats past a line boundary: one extra sector per
 * request when misaligned, but neighbouring warps use the rest, so DRAM traffic barely moves. */
static __device__ __forceinline__ void stream_copy_offset_body(stream_args a, gl_load_counts *c)
{
    uint32_t i = global_tid();
    gl_count_load(c, &a.a[i + a.param]);
    a.c[i] = a.a[i + a.param];
}

/* Lesson: neighbouring lanes read floats `param` apart (a column-order walk that still reads every
 * element once): from stride 8 on, every lane needs its own sector. */
static __device__ __forceinline__ void stream_copy_stride_body(stream_args a, gl_load_counts *c)
{
    uint32_t i = global_tid();
    uint32_t s = a.param, q = a.n / s;
    uint32_t src = i < q * s ? (i % q) * s + i / q : i;
    gl_count_load(c, &a.a[src]);
    a.c[i] = a.a[src];
}

#define STREAM_KERNELS(name)                                                                  \
    static __global__ void name(stream_args a, uint32_t threads)                              \
    {                                                                                         \
        if (global_tid() < threads) name##_body(a, NULL);                                     \
    }                                                                                         \
    static __global__ void count_##name(stream_args a, uint32_t threads)                      \
    {                                                                                         \
        if (global_tid() >= threads) return;                                                  \
        gl_load_counts c = {0, 0, 0};                                                         \
        name##_body(a, &c);                                                                   \
        gl_count_flush(&c, a.counts);                                                         \
    }
STREAM_KERNELS(stream_copy)
STREAM_KERNELS(stream_copy_vec4)
STREAM_KERNELS(stream_add)
STREAM_KERNELS(stream_copy_offset)
STREAM_KERNELS(stream_copy_stride)

typedef void (*stream_kernel)(stream_args, uint32_t);

extern "C" void launch_stream(stream_kind k, const stream_args *a, cudaStream_t s)
{
    static const struct { stream_kernel timed, counting; } table[] = {
        /* in stream_kind order */
        {stream_copy, count_stream_copy},
        {stream_copy_vec4, count_stream_copy_vec4},
        {stream_add, count_stream_add},
        {stream_copy_offset, count_stream_copy_offset},
        {stream_copy_stride, count_stream_copy_stride},
    };
    uint32_t threads = k == ST_COPY_VEC4 ? a->n / 4 : a->n; /* lab sizes are multiples of 4 */
    unsigned blocks = (threads + STREAM_BLOCK - 1) / STREAM_BLOCK;
    stream_kernel kern = a->counts ? table[k].counting : table[k].timed;
    kern<<<blocks, STREAM_BLOCK, 0, s>>>(*a, threads);
    GL_CHECK_LAUNCH();
}
