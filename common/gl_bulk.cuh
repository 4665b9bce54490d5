/* gl_bulk.cuh - one warp's ring of row buffers in shared memory, filled by Hopper's bulk copies
 * (issue 20: the image kernels' loads without registers in flight).
 *
 * The lesson: a kernel that keeps the rows it loads ahead in registers pays for the latency it
 * hides with registers, and so with resident warps. On sm_90 one lane issues a bulk copy
 * (cp.async.bulk global -> shared, a whole row of 16-byte multiples) that lands in a ring slot and
 * completes the slot's mbarrier with the bytes it wrote; the warp waits on the barrier's phase,
 * reads the slot (one 16-byte shared load a lane) and refills it with the row `depth` ahead: the
 * bytes in flight are the ring's, not the registers', and the copy costs the warp a handful of
 * instructions a row, whatever its width.
 *
 * Below sm_90 the same calls are a plain path with the same results: the warp copies the row into
 * the slot itself (16-byte loads and stores) and the wait is a no-op.
 *
 * Use (the whole warp calls each function; bar: one uint64_t per slot, 8-byte aligned, shared):
 *   gl_bulk_init(bar, slots);                     once, before the first fill (after any zeroing
 *                                                 of the slots: it orders those writes before the copies)
 *   gl_bulk_fill(slot, src, bytes, &bar[s]);      src and slot 16-byte aligned, bytes % 16 == 0
 *   gl_bulk_fill_rows(...)                        a block's tile of rows, one barrier (below)
 *   gl_bulk_wait(&bar[s], parity);                parity: the slot's fill count - 1, mod 2
 * Every fill must be waited on before the block exits. */
#ifndef GL_BULK_CUH
#define GL_BULK_CUH
#include <stdint.h>
#include "gl_check.h"
#include "gl_green.h" /* gl_current_sms */

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define GL_BULK_ASYNC 1 /* the bulk copies exist (sm_90) */
#else
#define GL_BULK_ASYNC 0
#endif

static __device__ __forceinline__ void gl_bulk_init(uint64_t *bar, int slots)
{
#if GL_BULK_ASYNC
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); /* this lane's shared writes so far (zeros
                                                                     in the slots) before any copy */
#endif
    __syncwarp();
#if GL_BULK_ASYNC
    if ((threadIdx.x & 31) == 0) {
        for (int s = 0; s < slots; s++)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"((unsigned)__cvta_generic_to_shared(bar + s))
                         : "memory");
        /* the inits visible to the bulk copies (the async proxy) that complete them */
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    }
#else
    (void)bar, (void)slots;
#endif
    __syncwarp();
}

#if GL_BULK_ASYNC
/* The two PTX steps every fill takes (one lane): the barrier expects `bytes` more this phase (and
 * counts this lane's arrival), and one bulk copy of `bytes` from src to dst completes them on bar. */
static __device__ __forceinline__ void gl_bar_arrive_expect_tx(uint64_t *bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"((unsigned)__cvta_generic_to_shared(bar)),
                 "r"(bytes)
                 : "memory");
}
static __device__ __forceinline__ void gl_bulk_copy(void *dst, const void *src, unsigned bytes, uint64_t *bar)
{
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                     (unsigned)__cvta_generic_to_shared(dst)),
                 "l"(src), "r"(bytes), "r"((unsigned)__cvta_generic_to_shared(bar))
                 : "memory");
}
#endif

/* Refill a slot: the warp's reads of its previous row are done (__syncwarp) before the copy
 * writes it. */
static __device__ __forceinline__ void gl_bulk_fill(void *slot, const void *src, unsigned bytes, uint64_t *bar)
{
    __syncwarp();
#if GL_BULK_ASYNC
    if ((threadIdx.x & 31) == 0) {
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); /* the generic reads before the async write */
        gl_bar_arrive_expect_tx(bar, bytes);
        gl_bulk_copy(slot, src, bytes, bar);
    }
#else
    (void)bar;
    for (unsigned i = 16 * (threadIdx.x & 31); i < bytes; i += 16 * 32)
        *(uint4 *)((char *)slot + i) = *(const uint4 *)((const char *)src + i);
    __syncwarp();
#endif
}

static __device__ __forceinline__ void gl_bulk_wait(uint64_t *bar, unsigned parity)
{
#if GL_BULK_ASYNC
    /* the spin in PTX (a label local to its braces: one per inlined copy), a try_wait and a branch a turn */
    asm volatile("{\n .reg .pred p;\n GL_BULK_WAIT:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
                 " @!p bra GL_BULK_WAIT;\n}\n" ::"r"((unsigned)__cvta_generic_to_shared(bar)),
                 "r"(parity)
                 : "memory");
#else
    (void)bar, (void)parity;
#endif
}
/* A block's tile of rows (the whole warp calls it; issue 20's median_ring): `rows` rows of `bytes`
 * bytes (16-byte multiples, src and dst 16-byte aligned) into slots `stride` bytes apart from dst,
 * row i from src + y * pitch with y = y0 + i clamped into [0, height) (clamp to edge), all
 * completing one mbarrier (initialised for one arrival). Async: lane 0 expects rows x bytes, then
 * lane i issues the copies of rows i, i + 32, ...: one warp instruction moves up to 32 rows.
 * Plain path: the warp copies the rows itself; the caller orders them before any reader with
 * __syncthreads (a ring of two or more slots has one between a fill and the slot's next reader). */
static __device__ __forceinline__ void gl_bulk_fill_rows(uint8_t *dst, unsigned stride, const uint8_t *src, int pitch,
                                                         int y0, int rows, int height, unsigned bytes, uint64_t *bar)
{
    const int lane = threadIdx.x & 31;
#if GL_BULK_ASYNC
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); /* the block's reads of the slot (before the
                                                                      caller's __syncthreads) before the copies */
    if (lane == 0) gl_bar_arrive_expect_tx(bar, (unsigned)rows * bytes);
    __syncwarp();
    for (int i = lane; i < rows; i += 32)
        gl_bulk_copy(dst + (size_t)i * stride, src + (size_t)min(max(y0 + i, 0), height - 1) * pitch, bytes, bar);
#else
    (void)bar;
    for (int i = 0; i < rows; i++) {
        const uint8_t *row = src + (size_t)min(max(y0 + i, 0), height - 1) * pitch;
        for (unsigned b = 16 * lane; b < bytes; b += 16 * 32) *(uint4 *)(dst + (size_t)i * stride + b) = *(const uint4 *)(row + b);
    }
#endif
}

/* Host: the blocks of `threads` threads and `smem` bytes of dynamic shared memory the run's SMs hold
 * at once (SMs x cudaOccupancyMaxActiveBlocksPerMultiprocessor; the SMs of --sms's green context
 * where there is one), at least 1. */
static inline int gl_resident_blocks(const void *kernel, int threads, size_t smem)
{
    int dev = 0, sms = 0, per_sm = 0;
    GL_CHECK(cudaGetDevice(&dev));
    GL_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    sms = gl_current_sms(sms); /* --sms: the green context's SMs, not the GPU's */
    GL_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
    return sms * per_sm > 0 ? sms * per_sm : 1;
}

/* Host: the strip height that makes one wave. A grid of `cols` columns of one-warp strips fills the
 * GPU once when it has as many blocks as the GPU holds (cudaOccupancyMaxActiveBlocksPerMultiprocessor
 * x SMs): rows a strip = ceil(height / (that / cols)), rounded up to a multiple of `multiple`. The
 * occupancy is asked on the first call for a kernel (*resident == 0: an untimed launch) and kept in
 * *resident, so that later launches, in graph capture, reuse it. */
static inline int gl_wave_strip_rows(const void *kernel, int *resident, int cols, int height, int multiple)
{
    if (!*resident) *resident = gl_resident_blocks(kernel, 32, 0);
    const int strips = *resident / cols > 1 ? *resident / cols : 1;
    const int rows = (height + strips - 1) / strips;
    return (rows + multiple - 1) / multiple * multiple;
}
#endif
