/* gl_metrics.cuh - profiler metrics measured inside the program (CUDA only).
 *
 * Memory access efficiency: for each warp-wide global load we count the unique 32-byte sectors
 * and 128-byte segments its active lanes touch, the quantities behind Nsight Compute's
 * l1tex__t_sectors_pipe_lsu_mem_global_op_ld / l1tex__t_requests_pipe_lsu_mem_global_op_ld
 * (and nvprof's gld_transactions_per_request).  A kernel body takes a gl_load_counts pointer:
 * NULL in the timed kernel (the counting code is compiled away), a register-resident counter in
 * its counting twin, which calls gl_count_flush once at the end. */
#ifndef GL_METRICS_CUH
#define GL_METRICS_CUH

typedef struct {
    unsigned long long requests, sectors, segments;
} gl_load_counts;

/* This thread's lane in its warp (right for 1D, 2D and 3D blocks alike). */
static __device__ __forceinline__ unsigned int gl_lane_id(void)
{
    unsigned int v;
    asm("mov.u32 %0, %%laneid;" : "=r"(v));
    return v;
}

/* The lane that acts for its warp (atomics, per-warp counts): the lowest active one. */
static __device__ __forceinline__ unsigned int gl_lowest_active_lane(unsigned int active)
{
    return (unsigned int)__ffs(active) - 1u;
}

/* Number of distinct values of key among the active lanes (every lane gets the same answer). */
static __device__ __forceinline__ unsigned int gl_warp_unique(unsigned int active, unsigned long long key)
{
    unsigned int same = __match_any_sync(active, key);
    unsigned int lane = gl_lane_id();
    unsigned int leader = gl_lowest_active_lane(same); /* lowest lane holding this key */
    return __popc(__ballot_sync(active, leader == lane));
}

/* Count one warp-wide load request of the address this lane is about to read. The request is
 * counted once, in the lowest active lane (so a load that only some lanes execute is counted right
 * whichever lanes they are); gl_count_flush adds every lane's counts. */
static __device__ __forceinline__ void gl_count_load(gl_load_counts *c, const void *addr)
{
    if (!c) return;
    unsigned int active = __activemask();
    unsigned long long a = (unsigned long long)addr;
    unsigned int sectors = gl_warp_unique(active, a >> 5);
    unsigned int segments = gl_warp_unique(active, a >> 7);
    if (gl_lane_id() != gl_lowest_active_lane(active)) return;
    c->requests += 1;
    c->sectors += sectors;
    c->segments += segments;
}

/* Add this lane's counts to the three global totals (only lanes that counted something). */
static __device__ __forceinline__ void gl_count_flush(const gl_load_counts *c, unsigned long long *totals)
{
    if (!c->requests) return;
    atomicAdd(&totals[0], c->requests);
    atomicAdd(&totals[1], c->sectors);
    atomicAdd(&totals[2], c->segments);
}

/* Warp execution efficiency and divergent branches, measured inside the program (Lab 02).
 * A kernel body marks each unit of work it executes with gl_count_active (one loop iteration, or
 * one branch body); every lane that executes the mark adds 1 to lane_units and the lowest active
 * lane adds 1 to warp_units, so lane_units / (32 * warp_units) is the average fraction of the
 * warp's lanes active when a unit ran: nvprof's warp_execution_efficiency, restricted to the
 * marked work (ncu's smsp__thread_inst_executed_per_inst_executed.ratio / 32 counts every
 * instruction, loop and address arithmetic included). gl_count_branch records, at a branch,
 * whether the active lanes disagree (a divergent branch) - the complement of ncu's
 * smsp__sass_average_branch_targets_threads_uniform.pct for that branch. */
typedef struct {
    unsigned long long lane_units, warp_units, branches, divergent;
} gl_lane_counts;

static __device__ __forceinline__ void gl_count_active(gl_lane_counts *c)
{
    if (!c) return;
    unsigned int active = __activemask();
    c->lane_units += 1;
    if (gl_lane_id() == gl_lowest_active_lane(active)) c->warp_units += 1;
}

static __device__ __forceinline__ void gl_count_branch(gl_lane_counts *c, int cond)
{
    if (!c) return;
    unsigned int active = __activemask();
    unsigned int taken = __ballot_sync(active, cond);
    if (gl_lane_id() == gl_lowest_active_lane(active)) {
        c->branches += 1;
        c->divergent += taken != 0u && taken != active;
    }
}

/* Add this lane's counts to the four global totals (lane_units differ from lane to lane). */
static __device__ __forceinline__ void gl_lane_flush(const gl_lane_counts *c, unsigned long long *totals)
{
    atomicAdd(&totals[0], c->lane_units);
    if (c->warp_units) atomicAdd(&totals[1], c->warp_units);
    if (c->branches) atomicAdd(&totals[2], c->branches);
    if (c->divergent) atomicAdd(&totals[3], c->divergent);
}

/* Residency records (Lab 03): where and when each warp ran, for SM efficiency, achieved occupancy
 * and the per-SM timeline (common/gl_residency.h turns them into numbers). Lane 0 of every warp
 * reads %globaltimer (ns) when the warp starts its body and again when it is done, and writes
 * GL_WARP_RECORD_WORDS words at the warp's index in the launch: start, end, and (SM id << 32 |
 * warp slot on the SM). Blocks must be whole warps, launched as a 1D grid. */
#include "gl_residency.h" /* GL_WARP_RECORD_WORDS, and the host side of the records */

typedef struct {
    unsigned long long start;
} gl_warp_clock;

static __device__ __forceinline__ unsigned long long gl_globaltimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __device__ __forceinline__ unsigned int gl_smid(void)
{
    unsigned int v;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(v));
    return v;
}

static __device__ __forceinline__ unsigned int gl_warp_slot(void)
{
    unsigned int v;
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(v));
    return v;
}

/* At the top of a body: remember when this warp started (nothing when c is NULL). */
static __device__ __forceinline__ void gl_warp_begin(gl_warp_clock *c)
{
    if (c) c->start = gl_globaltimer();
}

/* GL_KERNEL_PAIR's flush: once the whole warp is done, lane 0 writes the warp's record. */
static __device__ __forceinline__ void gl_warp_record(const gl_warp_clock *c, unsigned long long *records)
{
    __syncwarp();
    if ((threadIdx.x & 31u) != 0u) return;
    unsigned long long end = gl_globaltimer();
    size_t warp = (size_t)blockIdx.x * (blockDim.x / 32u) + threadIdx.x / 32u;
    unsigned long long *r = records + warp * GL_WARP_RECORD_WORDS;
    r[0] = c->start;
    r[1] = end;
    r[2] = ((unsigned long long)gl_smid() << 32) | gl_warp_slot();
}

/* GL_KERNEL_PAIR(name, args_type, counts_type, flush): the timed kernel `name` and its counting
 * twin `count_name` around one body `name_body(args_type a, counts_type *c)`. The timed kernel
 * passes NULL, so no counting code survives inlining; the twin passes a zeroed counter in
 * registers and, when the body returns non-zero (the thread had work), adds it to a.counts. */
#define GL_KERNEL_PAIR(name, args_type, counts_type, flush)                                 \
    static __global__ void name(args_type a) { name##_body(a, NULL); }                      \
    static __global__ void count_##name(args_type a)                                        \
    {                                                                                       \
        counts_type c;                                                                      \
        memset(&c, 0, sizeof c);                                                            \
        if (name##_body(a, &c)) flush(&c, a.counts);                                        \
    }

/* The same with __launch_bounds__(max_threads) on both kernels: the compiler keeps their registers
 * within what a block of max_threads may use (64 per thread for 1024 threads). */
#define GL_KERNEL_PAIR_BOUNDED(name, args_type, counts_type, flush, max_threads)             \
    static __global__ void __launch_bounds__(max_threads) name(args_type a) { name##_body(a, NULL); } \
    static __global__ void __launch_bounds__(max_threads) count_##name(args_type a)          \
    {                                                                                       \
        counts_type c;                                                                      \
        memset(&c, 0, sizeof c);                                                            \
        if (name##_body(a, &c)) flush(&c, a.counts);                                        \
    }


/* The same with __launch_bounds__' minimum of resident blocks an SM (register budget). */
#define GL_KERNEL_PAIR_BOUNDS(name, args_type, counts_type, flush, max_threads, min_blocks)     \
    static __global__ void __launch_bounds__(max_threads, min_blocks) name(args_type a) { name##_body(a, NULL); } \
    static __global__ void __launch_bounds__(max_threads, min_blocks) count_##name(args_type a) \
    {                                                                                       \
        counts_type c;                                                                      \
        memset(&c, 0, sizeof c);                                                            \
        if (name##_body(a, &c)) flush(&c, a.counts);                                        \
    }

/* GL_KERNEL_RECORDED(name, args_type): one kernel `name` around `name_body(args_type a,
 * gl_warp_clock *c)` that writes residency records when a.counts is non-NULL (a uniform branch
 * decided at launch; the start time is always read, one register). Residency is measured on the
 * very kernel that is timed: a separate twin is compiled separately and can get a different
 * register count - and so a different occupancy. */
#define GL_KERNEL_RECORDED(name, args_type)                                                 \
    static __global__ void name(args_type a)                                                \
    {                                                                                       \
        gl_warp_clock c;                                                                    \
        if (name##_body(a, &c) && a.counts) gl_warp_record(&c, a.counts);                   \
    }

#endif
