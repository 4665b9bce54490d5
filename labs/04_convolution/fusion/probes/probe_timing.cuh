// probe_timing.cuh - the probes' one error macro and timer (labs/04_convolution/fusion/probes/; not part of the labs):
// 3 warm-up launches, 15 timed with CUDA events, the median with min and max.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#define CK(x) do{cudaError_t e=(x); if(e){printf("CUDA %s line %d\n",cudaGetErrorString(e),__LINE__); exit(1);} }while(0)
static cudaEvent_t e0, e1;
template <class F> static double timeit(const char *name, double bytes, double ref_ms, F f)
{
    for (int i = 0; i < 3; i++) f();
    std::vector<float> t;
    for (int i = 0; i < 15; i++) { CK(cudaEventRecord(e0)); f(); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); t.push_back(ms); }
    std::sort(t.begin(), t.end());
    printf("%-28s %8.4f ms (min %.4f max %.4f) %7.1f GB/s %6.1f%% of memcpy\n", name, t[7], t[0], t[14], bytes / t[7] / 1e6, ref_ms > 0 ? 100.0 * ref_ms / t[7] : 100.0);
    fflush(stdout); return t[7];
}
