/* wgmma.cuh - Lab 04, part 2: Hopper's warpgroup MMA (wgmma.mma_async, sm_90a), shared by
 * ours_bf16_wgmma(2) (04_wgmma.cu) and ours_{bf16,tf32}_wgmma_tma (05_wgmma_tma.cu). Include inside
 * an sm_90a guard (__CUDA_ARCH_FEAT_SM90_ALL): the instructions exist nowhere else. */
#ifndef CNN_WGMMA_CUH
#define CNN_WGMMA_CUH

/* d += A B for one k-step of a warpgroup: A 64 x k, B N x k, both K-major in shared memory (read
 * through the 64-bit descriptors da, db), FP32 d in N / 2 registers per thread: wgmma_bf16 (k16,
 * BF16 operands, no transpose), wgmma_f16 (the same for FP16) and wgmma_tf32 (k8, TF32 operands: K-major is the only layout), for
 * N = 64, 128, 256 (overloaded on d's size). */
#define WG_F8(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), \
    "+f"(d[i + 6]), "+f"(d[i + 7])
#define WG_F32(i) WG_F8(i), WG_F8(i + 8), WG_F8(i + 16), WG_F8(i + 24)
#define WG_R10(t) "%" #t "0, %" #t "1, %" #t "2, %" #t "3, %" #t "4, %" #t "5, %" #t "6, %" #t "7, %" #t "8, %" #t "9, "
#define WG_R60 WG_R10() WG_R10(1) WG_R10(2) WG_R10(3) WG_R10(4) WG_R10(5)
#define WG_MMA(NAME, KTYPES, TAIL, N, REGS, A, B, P, ...) /* operands: d (N / 2), da, db, then 1 */ \
    static __device__ __forceinline__ void NAME(float(&d)[N / 2], unsigned long long da, unsigned long long db) \
    { \
        asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" P ", 0;\nwgmma.mma_async.sync.aligned.m64n" #N KTYPES \
                     " {" REGS "}, %" A ", %" B ", p, 1, 1" TAIL ";\n}\n" \
                     : __VA_ARGS__ \
                     : "l"(da), "l"(db), "r"(1)); \
    }
#define WG_MMA_ALL(NAME, KTYPES, TAIL) \
    WG_MMA(NAME, KTYPES, TAIL, 64, WG_R10() WG_R10(1) WG_R10(2) "%30, %31", "32", "33", "34", WG_F32(0)) \
    WG_MMA(NAME, KTYPES, TAIL, 128, WG_R60 "%60, %61, %62, %63", "64", "65", "66", WG_F32(0), WG_F32(32)) \
    WG_MMA(NAME, KTYPES, TAIL, 256, WG_R60 WG_R10(6) WG_R10(7) WG_R10(8) WG_R10(9) WG_R10(10) WG_R10(11) \
           "%120, %121, %122, %123, %124, %125, %126, %127", "128", "129", "130", WG_F32(0), WG_F32(32), WG_F32(64), \
           WG_F32(96))
WG_MMA_ALL(wgmma_bf16, "k16.f32.bf16.bf16", ", 0, 0")
WG_MMA_ALL(wgmma_f16, "k16.f32.f16.f16", ", 0, 0")
WG_MMA_ALL(wgmma_tf32, "k8.f32.tf32.tf32", "")
#undef WG_MMA_ALL
#undef WG_MMA

static __device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
/* Close the wgmma group of the instructions issued since the last one. */
static __device__ __forceinline__ void wg_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
/* Close this k-tile's wgmma group, then wait until at most IN_FLIGHT groups are still running. */
template <int IN_FLIGHT> static __device__ __forceinline__ void wg_commit_and_wait()
{
    asm volatile("wgmma.commit_group.sync.aligned;\nwgmma.wait_group.sync.aligned %0;\n" ::"n"(IN_FLIGHT) : "memory");
}
/* The accumulators are read only after the last wait: an empty asm per register keeps the compiler
 * from moving their reads above it. */
template <int N> static __device__ __forceinline__ void wg_fence_regs(float (&d)[N])
{
#pragma unroll
    for (int r = 0; r < N; r++) asm volatile("" : "+f"(d[r])::"memory");
}
#endif
