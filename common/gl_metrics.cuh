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

/* Number of distinct values of key among the active lanes (every lane gets the same answer). */
static __device__ __forceinline__ unsigned int gl_warp_unique(unsigned int active, unsigned long long key)
{
    unsigned int same = __match_any_sync(active, key);
    unsigned int lane = threadIdx.x & 31u;
    unsigned int leader = __ffs(same) - 1u; /* lowest lane holding this key */
    return __popc(__ballot_sync(active, leader == lane));
}

/* Count one warp-wide load request of the address this lane is about to read. */
static __device__ __forceinline__ void gl_count_load(gl_load_counts *c, const void *addr)
{
    if (!c) return;
    unsigned int active = __activemask();
    unsigned long long a = (unsigned long long)addr;
    c->requests += 1;
    c->sectors += gl_warp_unique(active, a >> 5);
    c->segments += gl_warp_unique(active, a >> 7);
}

/* Add this warp's counts to the three global totals (one lane per warp does the atomics). */
static __device__ __forceinline__ void gl_count_flush(const gl_load_counts *c, unsigned long long *totals)
{
    unsigned int active = __activemask();
    if ((threadIdx.x & 31u) == (unsigned int)(__ffs(active) - 1)) {
        atomicAdd(&totals[0], c->requests);
        atomicAdd(&totals[1], c->sectors);
        atomicAdd(&totals[2], c->segments);
    }
}

#endif
