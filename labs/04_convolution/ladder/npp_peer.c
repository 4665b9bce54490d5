/* npp_peer.c - Lab 04: NVIDIA NPP's 3x3 filter as the library peer, on the same interior region.
 *
 * nppiFilter_8u_C1R_Ctx computes, for each pixel of the ROI, the sum of kernel x neighbourhood
 * (the kernel given in reverse order: NPP convolves, our reference correlates - the same for the
 * lab's symmetric filters), divides by nDivisor and saturates to 0..255. The ROI is the interior,
 * (W - 2) x (H - 2) starting at (1, 1), so NPP reads the same frame pixels the kernels read and
 * writes the same pixels. Built only when meson finds NPP (HAVE_NPP); otherwise the lab has no
 * peer rows. */
#include <stdio.h>
#include "convolution.h"
#include "gl_check.h"

#ifdef HAVE_NPP
#include <npp.h>
#include <nppi_filtering_functions.h>

int conv_npp_available(void) { return 1; }

const char *conv_npp_version(void)
{
    static char buf[32];
    const NppLibraryVersion *v = nppGetLibVersion();
    snprintf(buf, sizeof buf, "%d.%d.%d", v->major, v->minor, v->build);
    return buf;
}

static int npp_sms; /* the run's SMs (--sms): NPP sizes its grids from nMultiProcessorCount */

void conv_npp_set_sms(int sms) { npp_sms = sms; }

/* NPP 13 has no nppGetStreamContext: the context is filled from the device's properties. */
static NppStreamContext npp_context(cudaStream_t s)
{
    NppStreamContext ctx = {0};
    struct cudaDeviceProp p;
    GL_CHECK(cudaGetDevice(&ctx.nCudaDeviceId));
    GL_CHECK(cudaGetDeviceProperties(&p, ctx.nCudaDeviceId));
    ctx.hStream = s;
    ctx.nMultiProcessorCount = npp_sms > 0 ? npp_sms : p.multiProcessorCount;
    ctx.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
    ctx.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
    ctx.nSharedMemPerBlock = p.sharedMemPerBlock;
    ctx.nCudaDevAttrComputeCapabilityMajor = p.major;
    ctx.nCudaDevAttrComputeCapabilityMinor = p.minor;
    GL_CHECK(cudaStreamGetFlags(s, &ctx.nStreamFlags));
    return ctx;
}

int conv_npp_run(const uint8_t *in, uint8_t *out, int width, int height, int pitch, const int *d_kernel_reversed,
                 int divisor, cudaStream_t s)
{
    static NppStreamContext ctx;
    static cudaStream_t ctx_stream;
    static int have_ctx;
    if (!have_ctx || ctx_stream != s) {
        ctx = npp_context(s);
        ctx_stream = s;
        have_ctx = 1;
    }
    NppiSize roi = {width - 2, height - 2}, ksize = {3, 3};
    NppiPoint anchor = {1, 1};
    NppStatus st = nppiFilter_8u_C1R_Ctx(in + pitch + 1, pitch, out + pitch + 1, pitch, roi, d_kernel_reversed, ksize,
                                         anchor, divisor, ctx);
    if (st != NPP_SUCCESS) {
        enum cudaStreamCaptureStatus cap = cudaStreamCaptureStatusNone;
        cudaStreamIsCapturing(s, &cap);
        fprintf(stderr, "nppiFilter_8u_C1R_Ctx failed: NppStatus %d (CUDA: %s; stream %s)\n", (int)st,
                cudaGetErrorString(cudaPeekAtLastError()),
                cap == cudaStreamCaptureStatusActive ? "capturing a graph" : "not capturing");
        exit(GL_EXIT_FAIL);
    }
    return 0;
}

#else

int conv_npp_available(void) { return 0; }
void conv_npp_set_sms(int sms) { (void)sms; }
const char *conv_npp_version(void) { return "not built (meson found no NPP)"; }
int conv_npp_run(const uint8_t *in, uint8_t *out, int width, int height, int pitch, const int *d_kernel_reversed,
                 int divisor, cudaStream_t s)
{
    (void)in, (void)out, (void)width, (void)height, (void)pitch, (void)d_kernel_reversed, (void)divisor, (void)s;
    return -1;
}

#endif
