// probe: fused_flat_sf with 16 pixels a lane (issue 20; not part of the product, not built by meson)
// Written on 2026-11-28 without a GPU. Build on a GPU machine from the repository root:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Xcompiler -fopenmp -D_POSIX_C_SOURCE=200809L -Icommon \
//        -Ilabs/04_convolution/fusion -Ilabs/04_convolution/cnn tools/probes/flat_wide.cu \
//        labs/04_convolution/fusion/fusion_reference.c -lpng -o /tmp/flat_wide && /tmp/flat_wide
// The question: fused_flat_sf's steady loop (rolling_flat.cuh, np = 4: 8 pixels a lane, two strips of
// 4) spends per row the same 12 shuffles and the same walk (addresses, loop) whatever np is, so with
// np = 8 (16 pixels a lane, two strips of 8, 8-byte accesses) those are shared by twice the pixels.
// The price: twice the registers in the windows (fewer warps an SM) and 35 columns of blocks at
// 16384^2 (480 columns a block), 2 of them edge columns, where np = 4 has 69.
// Every variant is checked against fusion_reference.c at five sizes (odd ones included, output
// poisoned first; MISMATCH lines and exit 1 otherwise), then timed at 16384^2 beside a cudaMemcpy
// D2D of the same bytes, in two passes.
// Measured (H100, 2026-11-28, plots/data/h100/run_a50f1cb/flat_wide.txt; every variant exact): np = 8
// in 128 registers, 16 warps an SM: 62.4 / 63.3% of memcpy, where fused_flat_sf made 68.9 / 70.4% in
// the same passes; in 96 or 80 registers (604 / 1608 bytes spilled) 55.6-58.1% and 35.8-36.0%. The 7%
// fewer instructions of the interior loop do not pay for the warps lost. H200 (h200/run_5deb02e): 47.1 /
// 47.1% against the rung's 52.9 / 52.9%.
#include "rolling_flat.cuh"
#include "probe_timing.cuh"

template <int NP, int ROWS, int MINB>
__global__ void __launch_bounds__(BK_THREADS, MINB) flat_sf(bk_args a)
{
    rolling_body_flat(a, BK_GAUSS_FLAT, 3, NP, ROWS, slowest_first_block());
}

struct variant {
    const char *name;
    void (*kernel)(bk_args);
    int np, rows;
};
static const variant VARIANTS[] = {
    {"np4 r72 28 warps (fused_flat_sf)", flat_sf<4, 72, 28>, 4, 72},
    {"np8 r72 16 warps", flat_sf<8, 72, 16>, 8, 72},
    {"np8 r72 20 warps", flat_sf<8, 72, 20>, 8, 72},
    {"np8 r72 24 warps", flat_sf<8, 72, 24>, 8, 72},
    {"np8 r48 20 warps", flat_sf<8, 48, 20>, 8, 48},
    {"np8 r96 20 warps", flat_sf<8, 96, 20>, 8, 96},
    {"np8 r36 20 warps", flat_sf<8, 36, 20>, 8, 36},
};

static void launch(const variant &v, const bk_args &a)
{
    v.kernel<<<rolling_grid(&a, v.np, v.rows), BK_THREADS>>>(a);
    CK(cudaGetLastError());
}

int main()
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
        for (const variant &v : VARIANTS) {
            CK(cudaMemset(dout, 0xa5, bytes)); // poisoned: a pixel the kernel never writes shows
            launch(v, a);
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy2D(got.data(), w, dout, pitch, w, h, cudaMemcpyDeviceToHost));
            size_t bad = 0, first = 0;
            for (size_t i = 0; i < n; i++)
                if (got[i] != ref[i] && !bad++) first = i;
            if (bad) {
                failures++;
                printf("MISMATCH %s at %d x %d: %zu pixels, first (%zu, %zu): %d, want %d\n", v.name, w, h, bad,
                       first % w, first / w, got[first], ref[first]);
            }
        }
        for (int pass = 1; memcpy_ms > 0 && pass <= 2; pass++) { // two passes, variants interleaved
            printf("pass %d\n", pass);
            for (const variant &v : VARIANTS) timeit(v.name, 2.0 * n, memcpy_ms, [&] { launch(v, a); });
        }
        printf("%d x %d: every variant checked against fusion_reference.c\n", w, h);
        CK(cudaFree(din));
        CK(cudaFree(dout));
    }
    printf(failures ? "%d MISMATCHES\n" : "all variants exact\n", failures);
    return failures ? 1 : 0;
}
