#include <stdio.h>
#include <string.h>
#include <cuda_runtime_api.h>
#include <npp.h>
#include <nppi_filtering_functions.h>
int main(void)
{
    int W = 64, H = 32, pitch = 64;
    unsigned char *in, *out;
    int *k, hk[9] = {1, 2, 1, 2, 4, 2, 1, 2, 1};
    printf("npp %d.%d.%d\n", nppGetLibVersion()->major, nppGetLibVersion()->minor, nppGetLibVersion()->build);
    cudaMalloc((void **)&in, pitch * H);
    cudaMalloc((void **)&out, pitch * H);
    cudaMalloc((void **)&k, sizeof hk);
    cudaMemset(in, 7, pitch * H);
    cudaMemcpy(k, hk, sizeof hk, cudaMemcpyHostToDevice);
    printf("pending before: %s\n", cudaGetErrorString(cudaGetLastError()));
    for (int variant = 0; variant < 3; variant++) {
        cudaStream_t s = 0;
        if (variant == 2) cudaStreamCreate(&s);
        NppStreamContext ctx;
        memset(&ctx, 0, sizeof ctx);
        struct cudaDeviceProp p;
        cudaGetDevice(&ctx.nCudaDeviceId);
        cudaGetDeviceProperties(&p, ctx.nCudaDeviceId);
        ctx.hStream = s;
        ctx.nMultiProcessorCount = p.multiProcessorCount;
        ctx.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
        ctx.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
        ctx.nSharedMemPerBlock = p.sharedMemPerBlock;
        ctx.nCudaDevAttrComputeCapabilityMajor = p.major;
        ctx.nCudaDevAttrComputeCapabilityMinor = p.minor;
        cudaStreamGetFlags(s, &ctx.nStreamFlags);
        NppiSize roi = {W - 2, H - 2}, ks = {3, 3};
        NppiPoint anchor = {1, 1};
        NppStatus st;
        if (variant == 0) st = nppiFilter_8u_C1R_Ctx(in + pitch + 1, pitch, out + pitch + 1, pitch, roi, k, ks, anchor, 16, ctx);
        else st = nppiFilter_8u_C1R_Ctx(in + pitch + 1, pitch, out + pitch + 1, pitch, roi, k, ks, anchor, 16, ctx);
        cudaError_t e = cudaDeviceSynchronize();
        unsigned char h[64];
        cudaMemcpy(h, out + pitch, 64, cudaMemcpyDeviceToHost);
        printf("variant %d: status %d, sync %s, last %s, out[1]=%d\n", variant, (int)st, cudaGetErrorString(e),
               cudaGetErrorString(cudaGetLastError()), h[1]);
    }
    /* the same call inside a stream capture, in each capture mode */
    const char *names[] = {"global", "thread-local", "relaxed"};
    enum cudaStreamCaptureMode modes[] = {cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal, cudaStreamCaptureModeRelaxed};
    for (int m = 0; m < 3; m++) {
        cudaStream_t s;
        cudaStreamCreate(&s);
        NppStreamContext ctx;
        memset(&ctx, 0, sizeof ctx);
        struct cudaDeviceProp p;
        cudaGetDevice(&ctx.nCudaDeviceId);
        cudaGetDeviceProperties(&p, ctx.nCudaDeviceId);
        ctx.hStream = s;
        ctx.nMultiProcessorCount = p.multiProcessorCount;
        ctx.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
        ctx.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
        ctx.nSharedMemPerBlock = p.sharedMemPerBlock;
        ctx.nCudaDevAttrComputeCapabilityMajor = p.major;
        ctx.nCudaDevAttrComputeCapabilityMinor = p.minor;
        cudaStreamGetFlags(s, &ctx.nStreamFlags);
        NppiSize roi = {W - 2, H - 2}, ks = {3, 3};
        NppiPoint anchor = {1, 1};
        cudaError_t b = cudaStreamBeginCapture(s, modes[m]);
        NppStatus st = 0;
        int calls = 0;
        for (; calls < 300 && st == 0; calls++)
            st = nppiFilter_8u_C1R_Ctx(in + pitch + 1, pitch, out + pitch + 1, pitch, roi, k, ks, anchor, 16, ctx);
        printf("%d calls captured, last status %d\n", calls, (int)st);
        cudaGraph_t g;
        cudaError_t e = cudaStreamEndCapture(s, &g);
        cudaGraphExec_t x;
        cudaError_t i = e == cudaSuccess ? cudaGraphInstantiate(&x, g, 0) : e;
        cudaError_t l = i == cudaSuccess ? cudaGraphLaunch(x, s) : i;
        cudaError_t y = cudaStreamSynchronize(s);
        printf("capture %s: begin %s, npp status %d, end %s, instantiate %s, launch %s, sync %s, last %s\n", names[m],
               cudaGetErrorString(b), (int)st, cudaGetErrorString(e), cudaGetErrorString(i), cudaGetErrorString(l),
               cudaGetErrorString(y), cudaGetErrorString(cudaGetLastError()));
    }
    return 0;
}
