/* cnn_tc_mma.cuh - Lab 04, part 2: the tensor-core instructions the mma.sync rungs share (inline
 * PTX, sm_80+ only: include inside an `__CUDA_ARCH__ >= 800` guard). */
#ifndef CNN_TC_MMA_CUH
#define CNN_TC_MMA_CUH

static __device__ __forceinline__ unsigned smem_u32(const void *p)
{
    return (unsigned)__cvta_generic_to_shared(p);
}

/* FP32 -> TF32 (10 fraction bits), rounded to nearest, ties away from zero. */
static __device__ __forceinline__ float to_tf32(float v)
{
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(v));
    return __uint_as_float(r);
}

/* c += a b on one 16 x 8 tile: m16n8k8 with TF32 a, b (PTX fragment layouts), FP32 c. */
static __device__ __forceinline__ void mma_tf32(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* c += a b on one 16 x 8 tile: m16n8k16 with BF16 a, b, FP32 c. */
static __device__ __forceinline__ void mma_bf16(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* Four 8 x 8 b16 matrices (or 8 x 4 32-bit ones) from shared memory: lane L gives the address of
 * row L % 8 of matrix L / 8; register j of lane l holds row l / 4, 32-bit word l % 4 of matrix j. */
static __device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void *p)
{
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(smem_u32(p)));
}
#endif
