// probe_fused.cuh - the block-based fused probes' one harness (labs/04_convolution/fusion/probes/flat_*.cu; not part of the labs):
// every variant run at five sizes (odd ones included) on fresh random pictures, its output poisoned first and
// checked bit for bit against fusion_reference.c (MISMATCH lines, exit 1; diagnostics excepted, below), then
// timed at 16384^2 in `passes` passes, the variants interleaved, beside a cudaMemcpy D2D of the same bytes
// (probe_timing.cuh's timeit).
#pragma once
#include <cstdint>
#include <string>
#include "probe_timing.cuh"
#include "fusion.h"

// A variant whose struct has `bool diagnostic` set is a measurement, not a kernel: it reads or writes
// elsewhere on purpose (labs/04_convolution/fusion/probes/flat_diag.cu), so its output is run but not checked, and says so.
template <class V> static auto is_diagnostic(const V &v, int) -> decltype(bool(v.diagnostic)) { return v.diagnostic; }
template <class V> static bool is_diagnostic(const V &, long) { return false; }

// PROBE_ONLY="a|b|..." runs only the variants whose names contain one of the '|'-separated pieces, or,
// for a piece "=name", whose name is name (a call with little device time left); unset, every variant runs.
static bool probe_selected(const char *name)
{
    const char *only = getenv("PROBE_ONLY");
    if (!only || !*only) return true;
    std::string list(only);
    for (size_t at = 0; at <= list.size();) {
        size_t end = list.find('|', at);
        if (end == std::string::npos) end = list.size();
        const std::string piece = list.substr(at, end - at);
        if (piece.size() > 1 && piece[0] == '=' ? piece.compare(1, std::string::npos, name) == 0
                                                 : !piece.empty() && std::string(name).find(piece) != std::string::npos)
            return true;
        at = end + 1;
    }
    return false;
}

// launch(v, a): one launch of variant v on a; after(a): called at 16384^2 after the timed passes.
template <class V, size_t N, class Launch, class After>
static int probe_fused_main(const V (&variants)[N], Launch launch, int passes, After after)
{
    int dev;
    cudaDeviceProp p;
    CK(cudaGetDevice(&dev));
    CK(cudaGetDeviceProperties(&p, dev));
    printf("%s, %d SMs\n", p.name, p.multiProcessorCount);
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    static const int sizes[][2] = {{61, 7}, {257, 131}, {1021, 331}, {4093, 2047}, {16384, 16384}};
    int failures = 0;
    for (auto &sz : sizes) {
        const int w = sz[0], h = sz[1], pitch = (w + FUSION_PITCH_ALIGN - 1) / FUSION_PITCH_ALIGN * FUSION_PITCH_ALIGN;
        const size_t n = (size_t)w * h, bytes = (size_t)pitch * h;
        std::vector<uint8_t> in(n), t1(n), t2(n), ref(n), got(n);
        unsigned s = 20261128u + (unsigned)w;
        for (auto &v : in) s = s * 1664525u + 1013904223u, v = (uint8_t)(s >> 24);
        bk_stage_ref(BK_GAUSS, in.data(), t1.data(), w, h);
        bk_stage_ref(BK_MEDIAN, t1.data(), t2.data(), w, h);
        bk_stage_ref(BK_SOBEL, t2.data(), ref.data(), w, h);
        uint8_t *din, *dout;
        CK(cudaMalloc(&din, bytes));
        CK(cudaMalloc(&dout, bytes));
        CK(cudaMemset(din, 0, bytes));
        CK(cudaMemcpy2D(din, pitch, in.data(), w, w, h, cudaMemcpyHostToDevice));
        const bk_args a = {din, dout, w, h, pitch};
        double memcpy_ms = 0;
        if (n >= (size_t)16384 * 16384)
            memcpy_ms = timeit("memcpy D2D", 2.0 * bytes, 0, [&] { CK(cudaMemcpyAsync(dout, din, bytes, cudaMemcpyDeviceToDevice)); });
        for (const V &v : variants) {
            if (!probe_selected(v.name)) continue;
            CK(cudaMemset(dout, 0xa5, bytes)); // poisoned: a pixel the kernel never writes shows
            launch(v, a);
            CK(cudaGetLastError());
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy2D(got.data(), w, dout, pitch, w, h, cudaMemcpyDeviceToHost));
            if (is_diagnostic(v, 0)) {
                printf("%s at %d x %d: a diagnostic, output not checked\n", v.name, w, h);
                continue;
            }
            size_t bad = 0, first = 0;
            for (size_t i = 0; i < n; i++)
                if (got[i] != ref[i] && !bad++) first = i;
            if (bad) {
                failures++;
                printf("MISMATCH %s at %d x %d: %zu pixels, first (%zu, %zu): %d, want %d\n", v.name, w, h, bad,
                       first % w, first / w, got[first], ref[first]);
            }
        }
        for (int pass = 1; memcpy_ms > 0 && pass <= passes; pass++) { // the variants interleaved
            printf("pass %d\n", pass);
            for (const V &v : variants)
                if (probe_selected(v.name)) timeit(v.name, 2.0 * n, memcpy_ms, [&] { launch(v, a); });
        }
        if (memcpy_ms > 0) after(a);
        printf("%d x %d: every variant checked against fusion_reference.c\n", w, h);
        CK(cudaFree(din));
        CK(cudaFree(dout));
    }
    printf(failures ? "%d MISMATCHES\n" : "all variants exact\n", failures);
    return failures ? 1 : 0;
}
