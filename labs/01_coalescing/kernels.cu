/* kernels.cu - Lab 01 kernels. Each lesson kernel is a body with a `gl_load_counts *c` argument:
 * the timed kernel passes NULL (no counting code survives inlining); its count_ twin passes a
 * counter and adds the warp's totals to args.counts, so the metrics describe the same loads.
 * A body returns 0 for a thread with no element, so the twin flushes only lanes that loaded. */
#include "coalescing.h"
#include "gl_check.h"
#include "gl_curand.cuh"
#include "gl_metrics.cuh"

static __device__ __forceinline__ uint32_t global_tid(void) { return blockIdx.x * blockDim.x + threadIdx.x; }

/* ---------------- the seed experiment ---------------- */

/* Lesson: lane i reads element i, so a warp's load is 32 consecutive floats = one 128-byte
 * segment = 4 sectors. (As in the seed: no RNG, the same addresses every iteration.) */
static __device__ __forceinline__ int coalesced_body(seed_args a, gl_load_counts *c)
{
    uint32_t tid = global_tid();
    if (tid >= a.n) return 0;
    for (int i = 0; i < SEED_ITERS; i++) {
        gl_count_load(c, &a.a[tid]);
        gl_count_load(c, &a.b[tid]);
        a.c[tid] = a.a[tid] + a.b[tid];
    }
    return 1;
}

/* Lesson: every lane reads a random element of the whole array: one request becomes ~32
 * sectors in ~32 different lines, and at large sizes ~32 separate DRAM accesses. */
static __device__ __forceinline__ int non_coalesced_body(seed_args a, gl_load_counts *c)
{
    uint32_t tid = global_tid();
    if (tid >= a.n) return 0;
    curandStateXORWOW_t s = gl_xorwow_load(a.index_rng, tid, c);
    for (int i = 0; i < SEED_ITERS; i++) {
        uint32_t idx = gl_range(curand(&s), a.n);
        gl_count_load(c, &a.a[idx]);
        gl_count_load(c, &a.b[idx]);
        a.c[tid] = a.a[idx] + a.b[idx];
    }
    return 1;
}

/* Lesson: the warp draws one random group of consecutive segments (all lanes share the group
 * generator's state), then each lane reads random elements inside it: randomness bounded by
 * the group size, cost bounded by the group's sectors. */
static __device__ __forceinline__ int semi_coalesced_body(seed_args a, gl_load_counts *c)
{
    uint32_t tid = global_tid();
    if (tid >= a.n) return 0;
    curandStateXORWOW_t s1 = gl_xorwow_load(a.index_rng, tid, c);
    curandStateXORWOW_t s2 = gl_xorwow_load(a.group_rng, tid, c);
    uint32_t base = gl_range(curand(&s2), a.groups) * a.group_elems;
    for (int i = 0; i < SEED_ITERS; i++) {
        uint32_t idx = base + gl_range(curand(&s1), a.group_elems);
        gl_count_load(c, &a.a[idx]);
        gl_count_load(c, &a.b[idx]);
        a.c[tid] = a.a[idx] + a.b[idx];
    }
    return 1;
}

/* The timed kernel and its counting twin around each body (gl_metrics.cuh). */
#define KERNEL_PAIR(name, args_type) GL_KERNEL_PAIR(name, args_type, gl_load_counts, gl_count_flush)
KERNEL_PAIR(coalesced, seed_args)
KERNEL_PAIR(non_coalesced, seed_args)
KERNEL_PAIR(semi_coalesced, seed_args)

typedef void (*seed_kernel)(seed_args);

extern "C" void launch_seed(seed_pattern p, const seed_args *a, cudaStream_t s)
{
    static const struct { seed_kernel timed, counting; } table[] = {
        /* in seed_pattern order */
        {coalesced, count_coalesced},
        {semi_coalesced, count_semi_coalesced},
        {non_coalesced, count_non_coalesced},
    };
    unsigned blocks = (a->n + SEED_BLOCK - 1) / SEED_BLOCK;
    seed_kernel kern = a->counts ? table[p].counting : table[p].timed;
    kern<<<blocks, SEED_BLOCK, 0, s>>>(*a);
    GL_CHECK_LAUNCH();
}

extern "C" gl_xorwow_states lab_rng_create(size_t n, uint64_t seed, unsigned stream, unsigned share_shift)
{
    return gl_xorwow_states_create(n, seed, stream, share_shift);
}

extern "C" void lab_rng_free(gl_xorwow_states *st) { gl_xorwow_states_free(st); }

/* ---------------- streaming: each element read once ---------------- */

/* Lesson: the bandwidth reference. Consecutive threads, consecutive floats: 4 sectors a request,
 * but only 4 bytes in flight per thread - too few to cover DRAM latency on its own. */
static __device__ __forceinline__ int stream_copy_body(stream_args a, gl_load_counts *c)
{
    uint32_t i = global_tid();
    if (i >= a.n) return 0;
    gl_count_load(c, &a.a[i]);
    a.c[i] = a.a[i];
    return 1;
}

/* Lesson: 16-byte accesses: four times the bytes in flight per load instruction. */
static __device__ __forceinline__ int stream_copy_vec4_body(stream_args a, gl_load_counts *c)
{
    uint32_t i = global_tid();
    if (i >= a.n / 4) return 0;
    const float4 *src = (const float4 *)a.a;
    gl_count_load(c, &src[i]);
    ((float4 *)a.c)[i] = src[i];
    return 1;
}

/* Lesson: the same bytes in flight as vec4 with plain 4-byte loads: four independent coalesced
 * loads (a quarter of the array apart) issued before any store. */
static __device__ __forceinline__ int stream_copy_ilp4_body(stream_args a, gl_load_counts *c)
{
    uint32_t i = global_tid(), q = a.n / 4;
    if (i >= q) return 0;
    for (int k = 0; k < 4; k++) gl_count_load(c, &a.a[i + k * q]);
    float x0 = a.a[i], x1 = a.a[i + q], x2 = a.a[i + 2 * q], x3 = a.a[i + 3 * q];
    a.c[i] = x0;
    a.c[i + q] = x1;
    a.c[i + 2 * q] = x2;
    a.c[i + 3 * q] = x3;
    return 1;
}

/* Lesson: two input streams and one output; bytes = 12 per element. */
static __device__ __forceinline__ int stream_add_body(stream_args a, gl_load_counts *c)
{
    uint32_t i = global_tid();
    if (i >= a.n) return 0;
    gl_count_load(c, &a.a[i]);
    gl_count_load(c, &a.b[i]);
    a.c[i] = a.a[i] + a.b[i];
    return 1;
}

/* Lesson: a warp's 128 bytes start `param` floats past a line boundary: one extra sector per
 * request when misaligned, but neighbouring warps use the rest, so DRAM traffic barely moves. */
static __device__ __forceinline__ int stream_copy_offset_body(stream_args a, gl_load_counts *c)
{
    uint32_t i = global_tid();
    if (i >= a.n) return 0;
    gl_count_load(c, &a.a[i + a.param]);
    a.c[i] = a.a[i + a.param];
    return 1;
}

/* Lesson: neighbouring lanes read floats `param` apart; from stride 8 on every lane needs its own
 * sector. The array is read as q = n / s rows of s: blockIdx.y picks the column, x the row, so
 * each element is read once and no thread divides; column 0 also copies the n - q*s tail. */
static __device__ __forceinline__ int stream_copy_stride_body(stream_args a, gl_load_counts *c)
{
    uint32_t s = a.param, q = a.rows, col = blockIdx.y;
    uint32_t row = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t i, src;
    if (row < q) {
        i = col * q + row;
        src = row * s + col;
    } else if (col == 0 && row < q + (a.n - q * s)) {
        i = src = q * s + (row - q);
    } else {
        return 0;
    }
    gl_count_load(c, &a.a[src]);
    a.c[i] = a.a[src];
    return 1;
}

KERNEL_PAIR(stream_copy, stream_args)
KERNEL_PAIR(stream_copy_vec4, stream_args)
KERNEL_PAIR(stream_copy_ilp4, stream_args)
KERNEL_PAIR(stream_add, stream_args)
KERNEL_PAIR(stream_copy_offset, stream_args)
KERNEL_PAIR(stream_copy_stride, stream_args)

typedef void (*stream_kernel)(stream_args);

extern "C" void launch_stream(stream_kind k, const stream_args *a, cudaStream_t s)
{
    static const struct { stream_kernel timed, counting; } table[] = {
        /* in stream_kind order */
        {stream_copy, count_stream_copy},
        {stream_copy_vec4, count_stream_copy_vec4},
        {stream_copy_ilp4, count_stream_copy_ilp4},
        {stream_add, count_stream_add},
        {stream_copy_offset, count_stream_copy_offset},
        {stream_copy_stride, count_stream_copy_stride},
    };
    stream_args args = *a;
    uint32_t rows = a->n, cols = 1; /* threads in x, blocks in y */
    if (k == ST_COPY_VEC4 || k == ST_COPY_ILP4) rows = a->n / 4; /* lab sizes are multiples of 4 */
    if (k == ST_STRIDE) {
        cols = a->param;
        args.rows = a->n / cols;
        rows = args.rows + a->n % cols; /* q rows, plus the tail in column 0 */
    }
    dim3 grid((rows + STREAM_BLOCK - 1) / STREAM_BLOCK, cols);
    stream_kernel kern = a->counts ? table[k].counting : table[k].timed;
    kern<<<grid, STREAM_BLOCK, 0, s>>>(args);
    GL_CHECK_LAUNCH();
}
