/* gl_clock.cuh - the SM clock the GPU actually runs at (the nominal cudaDevAttrClockRate is the
 * boost figure; under load, power or thermal limits the running clock can differ). One block per
 * SM spins for `ns` nanoseconds of %globaltimer and counts clock64 cycles over the same span:
 * cycles / ns = GHz. Include in one .cu file; gl_measure_sm_clock_mhz is host code. */
#ifndef GL_CLOCK_CUH
#define GL_CLOCK_CUH

#include "gl_check.h"
#include "gl_metrics.cuh" /* gl_globaltimer */

/* Lesson: clock64 counts this SM's cycles, %globaltimer counts nanoseconds: their ratio is the
 * clock. Thread 0 of each block writes its MHz. */
static __global__ void gl_clock_spin(double *mhz, unsigned long long ns)
{
    if (threadIdx.x != 0) return;
    const unsigned long long t0 = gl_globaltimer();
    const long long c0 = clock64();
    unsigned long long t1 = t0;
    while (t1 - t0 < ns) t1 = gl_globaltimer();
    const long long c1 = clock64();
    mhz[blockIdx.x] = (double)(c1 - c0) * 1e3 / (double)(t1 - t0);
}

/* The mean SM clock in MHz over `sms` blocks spinning about 1 ms (after one warm-up spin). */
static inline double gl_measure_sm_clock_mhz(int sms, cudaStream_t st)
{
    double *d = (double *)gl_device_alloc((size_t)sms * sizeof(double), "clock samples");
    double *h = (double *)gl_host_alloc((size_t)sms * sizeof(double), "clock samples");
    for (int pass = 0; pass < 2; pass++) {
        gl_clock_spin<<<sms, 32, 0, st>>>(d, 1000000ull);
        GL_CHECK_LAUNCH();
    }
    GL_CHECK(cudaMemcpyAsync(h, d, (size_t)sms * sizeof(double), cudaMemcpyDeviceToHost, st));
    GL_CHECK(cudaStreamSynchronize(st));
    double sum = 0;
    for (int i = 0; i < sms; i++) sum += h[i];
    GL_CHECK(cudaFree(d));
    free(h);
    return sum / sms;
}

#endif
