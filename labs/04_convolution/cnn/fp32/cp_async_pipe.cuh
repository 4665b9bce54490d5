/* cp_async_pipe.cuh - Lab 04, part 2: the pieces the cp.async SIMT pipelines of ours7_fast (07_fast.cu),
 * ours9_sliced_k (09_sliced_k.cu) and ours10_paired_lanes (10_paired_lanes.cu) share: the global ->
 * shared copies, and the 8 x TN per thread multiply of one slice (ours7, ours10).
 *
 * The copies. On sm_80+ a copy is a cp.async that bypasses the registers; !ok writes
 * zeros without reading (padding, rows past M or K). On sm_75 the same copy goes through the
 * registers (no overlap, the same results), and commit / wait are no-ops. */
#ifndef CNN_PIPE_CUH
#define CNN_PIPE_CUH

/* A BYTES (4 or 16) copy; 16 needs 16-byte aligned addresses. */
template <int BYTES> static __device__ __forceinline__ void copy_async(float *smem, const float *src, bool ok)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    const unsigned dst = (unsigned)__cvta_generic_to_shared(smem);
    if (BYTES == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(ok ? 16 : 0));
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(ok ? 4 : 0));
#else
    if (BYTES == 16) *(float4 *)smem = ok ? __ldg((const float4 *)src) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    else *smem = ok ? __ldg(src) : 0.0f;
#endif
}

static __device__ __forceinline__ void copy_commit(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/* This thread's copies of all but the newest `pending` groups have landed. */
template <int pending> static __device__ __forceinline__ void copy_wait(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
#endif
}

/* 8 x TN outputs per thread from one slice of BK k: the thread's rows are row0 + RSTEP i (i =
 * 0..7) of a[m][k] (the weights as they lie, read as float4 along k: 8 reads per 4 k), its
 * columns col0 + CSTEP g + 0..3 (g < TN / 4) of b[k][p] (im2col, read as float4 along p: TN / 4
 * reads per k). Per 4 k: 8 + TN LDS.128 for 32 TN FFMA (TN 8: 16 for 256; TN 16: 24 for 512). */
template <int BK, int LDA, int BN, int RSTEP, int CSTEP, int TN>
static __device__ __forceinline__ void multiply_8xn(const float (*a)[LDA], const float (*b)[BN], int row0, int col0,
                                                    float (&acc)[8][TN])
{
#pragma unroll
    for (int kq = 0; kq < BK; kq += 4) {
        float4 av[8];
#pragma unroll
        for (int i = 0; i < 8; i++) av[i] = *(const float4 *)&a[row0 + RSTEP * i][kq];
#pragma unroll
        for (int kk = 0; kk < 4; kk++) {
            float bv[TN];
#pragma unroll
            for (int g = 0; g < TN / 4; g++) {
                const float4 bg = *(const float4 *)&b[kq + kk][col0 + CSTEP * g];
                bv[4 * g] = bg.x, bv[4 * g + 1] = bg.y, bv[4 * g + 2] = bg.z, bv[4 * g + 3] = bg.w;
            }
#pragma unroll
            for (int i = 0; i < 8; i++) {
                const float ai = kk == 0 ? av[i].x : kk == 1 ? av[i].y : kk == 2 ? av[i].z : av[i].w;
#pragma unroll
                for (int j = 0; j < TN; j++) acc[i][j] = fmaf(ai, bv[j], acc[i][j]);
            }
        }
    }
}

#endif
