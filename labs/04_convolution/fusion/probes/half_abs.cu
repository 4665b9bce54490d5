// half_abs.cu - does sm_90 keep half-precision subnormals, and do HADD2 / HMNMX2 take |x| as a free
// operand modifier? The arithmetic of Lab 04's stage_sobel_half (fusion/rolling_sobel_half.cuh): a pixel v in a
// clean 16-bit half is the subnormal v x 2^-24 (labs/04_convolution/fusion/probes/; not part of the labs). It prints each
// result's bits (the expected integer is in the comment of main); cuobjdump -sass shows the modifiers.
// Build: nvcc -O3 -arch=sm_90 -o half_abs half_abs.cu
#include <cuda_fp16.h>
#include <cstdio>
__device__ __forceinline__ __half2 h2(unsigned u) { return *reinterpret_cast<__half2 *>(&u); }
__device__ __forceinline__ unsigned u32(__half2 h) { return *reinterpret_cast<unsigned *>(&h); }
extern "C" __global__ void absmax(const unsigned *p, const unsigned *q, unsigned *o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half2 a = h2(p[i]), b = h2(q[i]);
    __half2 m = __hmax2(__habs2(a), __habs2(b));
    o[i] = __vminu2(u32(m), 0x01ff01ffu) * 128u;
}
extern "C" __global__ void abssum(const unsigned *p, const unsigned *q, unsigned *o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half2 a = h2(p[i]), b = h2(q[i]);
    o[i] = u32(__hadd2(__habs2(a), __habs2(b)));
}
extern "C" __global__ void diag(const unsigned *p, const unsigned *q, const unsigned *r, unsigned *o, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half2 a = h2(p[i]), b = h2(q[i]), c = h2(r[i]);
    __half2 x1 = __hadd2(b, c), x2 = __hadd2(a, b), d = __hsub2(c, a);
    __half2 P = __hadd2(__hsub2(x1, x2), d);
    o[i] = u32(P);
}
int main()
{
    // halves as integers (0x8000 | v: -v): abssum 200 + 7 = 0xcf, |-300| + 5 = 0x131, 1020 + 1019 = 2039 = 0x7f7;
    // absmax: min(max(|p|, |q|), 511) x 128; diag: (b + c) - (a + b) + (c - a) with b = c = q, a = p
    const int n = 4;
    unsigned hp[n] = {200u | 7u << 16, 0x8000u | 300u, 1020u | (0x8000u | 1020u) << 16, 3u};
    unsigned hq[n] = {7u | 200u << 16, 5u, 1019u | 1u << 16, 0x8000u | 600u};
    unsigned *dp, *dq, *dr, *dout;
    cudaMalloc(&dp, 64); cudaMalloc(&dq, 64); cudaMalloc(&dr, 64); cudaMalloc(&dout, 64);
    cudaMemcpy(dp, hp, 16, cudaMemcpyHostToDevice); cudaMemcpy(dq, hq, 16, cudaMemcpyHostToDevice);
    cudaMemcpy(dr, hq, 16, cudaMemcpyHostToDevice);
    unsigned out[n];
    abssum<<<1, 32>>>(dp, dq, dout, n); cudaMemcpy(out, dout, 16, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) printf("abssum %08x + %08x -> %08x\n", hp[i], hq[i], out[i]);
    absmax<<<1, 32>>>(dp, dq, dout, n); cudaMemcpy(out, dout, 16, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) printf("absmax %08x , %08x -> %08x\n", hp[i], hq[i], out[i]);
    diag<<<1, 32>>>(dp, dq, dr, dout, n); cudaMemcpy(out, dout, 16, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) printf("diag -> %08x\n", out[i]);
    return 0;
}
