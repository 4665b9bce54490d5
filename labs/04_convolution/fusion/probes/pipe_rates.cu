// pipe_rates.cu - how many thread-instructions an SM issues a clock for each instruction the image
// kernels of Lab 04 part 3 lean on (labs/04_convolution/fusion/probes/; not part of the labs). One block of 1024 threads
// an SM, 8 independent chains a thread, the block's clock64 span; the SASS of each kernel is checked
// with cuobjdump (the instruction named in the table must be the loop's body), and ncu's per-pipe
// counts say which pipe issued it. The third operand is another chain as it is (an XOR with the seed
// there, in the first version, added a LOP3 to every three-input instruction). Build: nvcc -O3 -arch=sm_90 -o pipe_rates pipe_rates.cu
#include <cuda_fp16.h>
#include <cstdio>
#include "probe_timing.cuh"

enum { VMIN2, VMIN3, IADD3, PRMT, IMAD, HMIN2, FMIN, LOP3, VIADDMIN, HFMA2, DP4A, MIX_VMIN3_IMAD, MIX_VMIN2_HMIN2, MIX_VMIN3_HMIN2,
       FFMA, HADD2, MIX_VMIN2_IMADI, MIX_VMIN3_IMADI, MIX_VMIN2_HADD2, MIX_VMIN3_HADD2, MIX_VMIN2_FFMA, MIX_LOP3_IMAD, NOPS };
static const char *names[NOPS] = {"VIMNMX.U16x2 (__vminu2)", "VIMNMX3.U16x2 (__vimin3_u16x2)", "IADD3", "PRMT (__byte_perm)",
                                  "IMAD", "HMNMX2 (__hmin2)", "FMNMX (fminf)", "LOP3", "VIADDMNMX (__viaddmin_u16x2)",
                                  "HFMA2", "IDP4A", "VIMNMX3 + IMAD", "VIMNMX + HMNMX2", "VIMNMX3 + HMNMX2",
                                  "FFMA", "HADD2", "VIMNMX + IMAD (x immediate)", "VIMNMX3 + IMAD (x immediate)",
                                  "VIMNMX + HADD2", "VIMNMX3 + HADD2", "VIMNMX + FFMA", "LOP3 + IMAD"};

static __device__ __forceinline__ unsigned hmin(unsigned a, unsigned b)
{
    __half2 x = *(__half2 *)&a, y = *(__half2 *)&b, r = __hmin2(x, y);
    return *(unsigned *)&r;
}
static __device__ __forceinline__ unsigned hadd(unsigned a, unsigned b)
{
    __half2 x = *(__half2 *)&a, y = *(__half2 *)&b, r = __hadd2(x, y);
    return *(unsigned *)&r;
}
static __device__ __forceinline__ unsigned ffma(unsigned a, unsigned b, unsigned c)
{
    return __float_as_uint(__fmaf_rn(__uint_as_float(a), __uint_as_float(b), __uint_as_float(c)));
}
static __device__ __forceinline__ unsigned hfma(unsigned a, unsigned b, unsigned c)
{
    __half2 x = *(__half2 *)&a, y = *(__half2 *)&b, z = *(__half2 *)&c, r = __hfma2(x, y, z);
    return *(unsigned *)&r;
}

template <int OP> static __device__ __forceinline__ unsigned op(unsigned a, unsigned b, unsigned c, int k)
{
    if (OP == VMIN2) return __vminu2(a, b);
    if (OP == VMIN3) return __vimin3_u16x2(a, b, c);
    if (OP == IADD3) return a + b + c;
    if (OP == PRMT) return __byte_perm(a, b, 0x5140 + k);
    if (OP == IMAD) return a * b + c;
    if (OP == HMIN2) return hmin(a, b);
    if (OP == FMIN) return __float_as_uint(fminf(__uint_as_float(a), __uint_as_float(b)));
    if (OP == LOP3) return (a & b) ^ c;
    if (OP == VIADDMIN) return __viaddmin_u16x2(a, b, c);
    if (OP == HFMA2) return hfma(a, b, c);
    if (OP == DP4A) return __dp4a(a, b, c);
    if (OP == MIX_VMIN3_IMAD) return k & 1 ? a * b + c : __vimin3_u16x2(a, b, c);
    if (OP == MIX_VMIN2_HMIN2) return k & 1 ? hmin(a, b) : __vminu2(a, b);
    if (OP == FFMA) return ffma(a, b, c);
    if (OP == HADD2) return hadd(a, b);
    if (OP == MIX_VMIN2_IMADI) return k & 1 ? a * 0x10001u + c : __vminu2(a, b);
    if (OP == MIX_VMIN3_IMADI) return k & 1 ? a * 0x10001u + c : __vimin3_u16x2(a, b, c);
    if (OP == MIX_VMIN2_HADD2) return k & 1 ? hadd(a, b) : __vminu2(a, b);
    if (OP == MIX_VMIN3_HADD2) return k & 1 ? hadd(a, b) : __vimin3_u16x2(a, b, c);
    if (OP == MIX_VMIN2_FFMA) return k & 1 ? ffma(a, b, c) : __vminu2(a, b);
    if (OP == MIX_LOP3_IMAD) return k & 1 ? a * b + c : (a & b) ^ c;
    return k & 1 ? hmin(a, b) : __vimin3_u16x2(a, b, c);
}

#define CHAINS 8
#define UNROLL 16
template <int OP> __global__ void __launch_bounds__(1024) rate_kernel(unsigned seed, int iters, unsigned *sink, long long *cycles)
{
    unsigned x[CHAINS];
#pragma unroll
    for (int i = 0; i < CHAINS; i++) x[i] = seed * (threadIdx.x + 7 * i + 1) | 0x3c003c00u;
    __syncthreads();
    const long long t0 = clock64();
    for (int it = 0; it < iters; it++)
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
#pragma unroll
            for (int i = 0; i < CHAINS; i++) x[i] = op<OP>(x[i], x[(i + 1) % CHAINS], x[(i + 3) % CHAINS], (u + i) & 3);
    __syncthreads();
    const long long t1 = clock64();
    unsigned s = 0;
#pragma unroll
    for (int i = 0; i < CHAINS; i++) s ^= x[i];
    if (s == 0x12345678u) sink[0] = s; /* keeps the chains alive */
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

template <int OP> static void run(int sms, unsigned *sink, long long *cyc)
{
    const int iters = 256;
    float ms = 0;
    for (int rep = 0; rep < 3; rep++) {
        CK(cudaEventRecord(e0));
        rate_kernel<OP><<<sms, 1024>>>(0x9e3779b9u, iters, sink, cyc);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
    }
    std::vector<long long> c(sms);
    CK(cudaMemcpy(c.data(), cyc, sms * sizeof(long long), cudaMemcpyDeviceToHost));
    std::sort(c.begin(), c.end());
    const double ops = 1024.0 * CHAINS * UNROLL * iters; /* thread-instructions a block (an SM) */
    printf("%-34s %7.1f thread-inst/SM/clock (median block %lld cycles), %.3f ms, clock %.0f MHz\n", names[OP],
           ops / c[sms / 2], c[sms / 2], ms, c[sms / 2] / (ms * 1e3));
}

int main()
{
    int sms;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    unsigned *sink;
    long long *cyc;
    CK(cudaMalloc(&sink, 4));
    CK(cudaMalloc(&cyc, sms * sizeof(long long)));
    run<VMIN2>(sms, sink, cyc);
    run<VMIN3>(sms, sink, cyc);
    run<IADD3>(sms, sink, cyc);
    run<PRMT>(sms, sink, cyc);
    run<IMAD>(sms, sink, cyc);
    run<HMIN2>(sms, sink, cyc);
    run<FMIN>(sms, sink, cyc);
    run<LOP3>(sms, sink, cyc);
    run<VIADDMIN>(sms, sink, cyc);
    run<HFMA2>(sms, sink, cyc);
    run<DP4A>(sms, sink, cyc);
    run<MIX_VMIN3_IMAD>(sms, sink, cyc);
    run<MIX_VMIN2_HMIN2>(sms, sink, cyc);
    run<MIX_VMIN3_HMIN2>(sms, sink, cyc);
    run<FFMA>(sms, sink, cyc);
    run<HADD2>(sms, sink, cyc);
    run<MIX_VMIN2_IMADI>(sms, sink, cyc);
    run<MIX_VMIN3_IMADI>(sms, sink, cyc);
    run<MIX_VMIN2_HADD2>(sms, sink, cyc);
    run<MIX_VMIN3_HADD2>(sms, sink, cyc);
    run<MIX_VMIN2_FFMA>(sms, sink, cyc);
    run<MIX_LOP3_IMAD>(sms, sink, cyc);
    return 0;
}
