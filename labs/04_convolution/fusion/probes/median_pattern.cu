// median_pattern.cu - what w16_r4_cs's memory access pattern reaches on its own, and how much ALU work
// it carries before it leaves the memory floor, at 7 or 10 blocks an SM (labs/04_convolution/fusion/probes/; not part of
// the labs). The kernel has w16_r4_cs's shape: blocks of 32 x 4 threads, a thread 16 columns x 4
// rows, its 6 input rows loaded at once (16 bytes and the words left and right of them), 4 rows
// stored with st.global.cs. Its "work" is K rounds of 2 VIMNMX3 and 2 (VIMNMX3, IMAD) a row: 4K
// ALU and 2K IMAD thread-instructions a row of 16 pixels, in chains as dependent as the median's
// final steps. Nothing is verified (the output is a xor of the inputs, not a median): it measures a
// pattern, not a kernel. The probe needs 45 registers (10 blocks an SM); 7 blocks, as w16_r4_cs runs,
// either by dynamic shared memory (which shrinks L1 to about 28 KB) or by 24 registers held (HOLD). Kept beside the runs it produced: plots/archive/h200/run_2052c42
// and plots/archive/h100/run_2052c42 (pattern.log). Build on a GPU machine from the repository root:
//   nvcc -O3 -std=c++17 -arch=sm_90 labs/04_convolution/fusion/probes/median_pattern.cu -o /tmp/pattern && /tmp/pattern
#include <cstdint>
#include "probe_timing.cuh"

/* HOLD: 6 more 16-byte words (24 registers) loaded again from the rows' own lines (L1 hits: no more
 * DRAM bytes) before the work and used after it, so the kernel needs w16_r4_cs's register count and
 * holds its occupancy by registers, as the median does, not by shared memory (which takes L1). */
static __device__ __forceinline__ uint4 load_again(const uint8_t *p)
{
    uint4 v;
    asm volatile("ld.global.ca.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
    return v;
}
template <int K, bool HOLD>
__global__ void __launch_bounds__(128, 7) tile_pattern(const uint8_t *in, uint8_t *out, int w, int h, int pitch)
{
    const int x0 = (blockIdx.x * 32 + threadIdx.x) * 16, y0 = (blockIdx.y * 4 + threadIdx.y) * 4;
    if (x0 < 16 || x0 + 17 > w || y0 < 1 || y0 + 5 > h) return; /* the interior only: the fast path */
    uint4 v[6];
    unsigned l[6], r[6];
    const uint8_t *p = in + (size_t)(y0 - 1) * pitch + x0;
#pragma unroll
    for (int i = 0; i < 6; i++) {
        v[i] = *(const uint4 *)(p + (size_t)i * pitch);
        l[i] = *(const unsigned *)(p + (size_t)i * pitch - 4);
        r[i] = *(const unsigned *)(p + (size_t)i * pitch + 16);
    }
    uint4 z[6];
#pragma unroll
    for (int i = 0; i < 6; i++) z[i] = HOLD ? load_again(p + (size_t)i * pitch) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int i = 0; i < 4; i++) {
        uint4 o = make_uint4(v[i].x ^ v[i + 1].x ^ v[i + 2].x ^ l[i + 1], v[i].y ^ v[i + 1].y ^ v[i + 2].y,
                             v[i].z ^ v[i + 1].z ^ v[i + 2].z, v[i].w ^ v[i + 1].w ^ v[i + 2].w ^ r[i + 1]);
#pragma unroll
        for (int k = 0; k < K; k++) {
            o.x = __vimax3_u16x2(o.x, o.y, o.z);
            o.y = __vimin3_u16x2(o.y, o.z, o.w) * 3u + o.x;
            o.z = __vimax3_u16x2(o.z, o.w, o.x);
            o.w = __vimin3_u16x2(o.w, o.x, o.y) * 5u + o.z;
        }
        if (HOLD && i == 3)
#pragma unroll
            for (int j = 0; j < 6; j++) o.x ^= z[j].x ^ z[j].y ^ z[j].z ^ z[j].w;
        __stcs((uint4 *)(out + (size_t)(y0 + i) * pitch + x0), o);
    }
}

__global__ void copy16(const uint4 *in, uint4 *out, size_t n)
{
    const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i];
}

template <int K, bool HOLD> static void run(const uint8_t *a, uint8_t *b, int w, int h, int smem, double memcpy_ms)
{
    CK(cudaFuncSetAttribute(tile_pattern<K, HOLD>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int blocks = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, tile_pattern<K, HOLD>, 128, smem));
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, tile_pattern<K, HOLD>));
    char name[96];
    snprintf(name, sizeof name, "K=%2d (%3d ALU %2d IMAD/row) %2d reg %s%2d blk", K, 4 * K, 2 * K, fa.numRegs, smem ? "smem " : "", blocks);
    timeit(name, 2.0 * w * h, memcpy_ms, [&] { tile_pattern<K, HOLD><<<dim3(w / 512, h / 16), dim3(32, 4), smem>>>(a, b, w, h, w); });
    CK(cudaGetLastError());
}

int main()
{
    const int w = 16384, h = 16384;
    const size_t n = (size_t)w * h;
    uint8_t *a, *b;
    CK(cudaMalloc(&a, n));
    CK(cudaMalloc(&b, n));
    CK(cudaMemset(a, 7, n));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s, %d SMs; 16384 x 16384 bytes, one read and one write a pixel\n", prop.name, prop.multiProcessorCount);
    const double mc = timeit("memcpy D2D", 2.0 * n, 0, [&] { CK(cudaMemcpyAsync(b, a, n, cudaMemcpyDeviceToDevice)); });
    timeit("copy, 16 B a thread", 2.0 * n, mc, [&] { copy16<<<(unsigned)(n / 16 / 256), 256>>>((const uint4 *)a, (uint4 *)b, n / 16); });
    for (int smem : {0, 30000}) { /* 10 or 7 blocks an SM; shared memory takes L1's room */
        run<0, false>(a, b, w, h, smem, mc);
        run<16, false>(a, b, w, h, smem, mc);
        run<24, false>(a, b, w, h, smem, mc);
        run<32, false>(a, b, w, h, smem, mc);
    }
    run<0, true>(a, b, w, h, 0, mc); /* 7 blocks held by registers, L1 whole */
    run<16, true>(a, b, w, h, 0, mc);
    run<24, true>(a, b, w, h, 0, mc);
    run<32, true>(a, b, w, h, 0, mc);
    CK(cudaDeviceSynchronize());
    return 0;
}
