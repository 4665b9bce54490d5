// probe: what limits the rolling median at 16384^2 (not part of the product)
// Not built by meson: a measurement kept beside the runs it produced (plots/data/*/run_1347e4f,
// run_a9861bc). Build on a GPU machine from the repository root:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Icommon -Ilabs/04_convolution/fusion -Ilabs/04_convolution/ladder \
//        -Ilabs/04_convolution labs/04_convolution/fusion/probes/rolling_walk.cu -o /tmp/probe && /tmp/probe
// Every variant's output is compared byte for byte with a lab rung that the lab verifies against
// its C reference (MISMATCH lines otherwise). The variant lists were edited between runs: each log
// names its variants.
#include "rolling.cuh"
#include "probe_timing.cuh"

__global__ void BK_BOUNDS med_rows(bk_args a, int rows) { rolling_body(a, BK_MEDIAN_DPX, 1, 8, rows, false); }
__global__ void __launch_bounds__(32, 26) med_rows_lb26(bk_args a, int rows) { rolling_body(a, BK_MEDIAN_DPX, 1, 8, rows, false); }
__global__ void __launch_bounds__(32, 32) med_rows_lb32(bk_args a, int rows) { rolling_body(a, BK_MEDIAN_DPX, 1, 8, rows, false); }
__global__ void BK_BOUNDS med_rows_a6(bk_args a, int rows) { rolling_body(a, BK_MEDIAN_DPX, 1, 8, rows, false, 6); }
// pure walk: a warp walks `rows` rows of 512 bytes, D rows loaded ahead, stores each row
template <int D>
__global__ void __launch_bounds__(32) walk_copy(bk_args a, int rows)
{
    const int x = blockIdx.x * 512 + 16 * threadIdx.x, y0 = blockIdx.y * rows;
    uint4 ah[D];
#pragma unroll
    for (int i = 0; i < D; i++) ah[i] = *(const uint4 *)(a.in + (size_t)min(y0 + i, a.height - 1) * a.pitch + x);
    for (int it = 0; it < rows; it += D) {
#pragma unroll
        for (int u = 0; u < D; u++) {
            const uint4 v = ah[u];
            ah[u] = *(const uint4 *)(a.in + (size_t)min(y0 + it + u + D, a.height - 1) * a.pitch + x);
            if (y0 + it + u < a.height) *(uint4 *)(a.out + (size_t)(y0 + it + u) * a.pitch + x) = v;
        }
    }
}
__global__ void vec_copy(const uint4 *in, uint4 *out, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) out[i] = in[i];
}

int main()
{
    const int W = 16384, H = 16384;
    const size_t N = (size_t)W * H;
    uint8_t *in, *out, *ref;
    CK(cudaMalloc(&in, N)); CK(cudaMalloc(&out, N)); CK(cudaMalloc(&ref, N));
    std::vector<uint8_t> h(N); unsigned s = 12345; for (size_t i = 0; i < N; i++) { s = s * 1664525u + 1013904223u; h[i] = s >> 24; }
    CK(cudaMemcpy(in, h.data(), N, cudaMemcpyHostToDevice));
    CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    int dev; cudaDeviceProp p; CK(cudaGetDevice(&dev)); CK(cudaGetDeviceProperties(&p, dev));
    printf("%s, %d SMs\n", p.name, p.multiProcessorCount);
    bk_args a = {in, out, W, H, W};
    const double bytes = 2.0 * N;
    double memcpy_ms = 0;
    {   for (int i = 0; i < 3; i++) CK(cudaMemcpy(out, in, N, cudaMemcpyDeviceToDevice));
        std::vector<float> t; for (int i = 0; i < 15; i++) { CK(cudaEventRecord(e0)); CK(cudaMemcpyAsync(out, in, N, cudaMemcpyDeviceToDevice)); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); t.push_back(ms);} std::sort(t.begin(), t.end()); memcpy_ms = t[7];
        printf("memcpy D2D %.4f ms %.1f GB/s\n", memcpy_ms, bytes / memcpy_ms / 1e6); }
    timeit("vec_copy 132x2048", bytes, memcpy_ms, [&] { vec_copy<<<p.multiProcessorCount * 4, 512>>>((const uint4 *)in, (uint4 *)out, N / 16); });
    timeit("vec_copy n/16 threads", bytes, memcpy_ms, [&] { vec_copy<<<(unsigned)(N / 16 / 256), 256>>>((const uint4 *)in, (uint4 *)out, N / 16); });
    for (int rows : {24, 48, 96, 192, 480}) {
        char nm[64]; snprintf(nm, 64, "walk_copy D3 rows %d", rows);
        timeit(nm, bytes, memcpy_ms, [&] { walk_copy<3><<<dim3(W / 512, (H + rows - 1) / rows), 32>>>(a, rows); });
        snprintf(nm, 64, "walk_copy D6 rows %d", rows);
        timeit(nm, bytes, memcpy_ms, [&] { walk_copy<6><<<dim3(W / 512, (H + rows - 1) / rows), 32>>>(a, rows); });
    }
    // reference: rows 48
    bk_args r = a; r.out = ref;
    med_rows<<<rolling_grid(&a, 8, 48), 32>>>(r, 48); CK(cudaDeviceSynchronize());
    std::vector<uint8_t> hr(N), ho(N); CK(cudaMemcpy(hr.data(), ref, N, cudaMemcpyDeviceToHost));
    auto check = [&](const char *nm) { CK(cudaDeviceSynchronize()); CK(cudaMemcpy(ho.data(), out, N, cudaMemcpyDeviceToHost)); if (ho != hr) printf("MISMATCH %s\n", nm); CK(cudaMemset(out, 0, N)); };
    struct K { const char *n; void (*k)(bk_args, int); } ks[] = {{"dpx", med_rows}, {"dpx_lb26", med_rows_lb26}, {"dpx_lb32", med_rows_lb32}, {"dpx_a6", med_rows_a6}};
    for (auto &k : ks) {
        cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, k.k)); int occ; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, k.k, 32, 0));
        printf("%s: %d regs, %d local bytes, %d warps/SM\n", k.n, fa.numRegs, (int)fa.localSizeBytes, occ);
        for (int rows : {12, 24, 36, 48, 72, 96, 192}) {
            if (k.k == med_rows_a6 && rows % 6) continue;
            char nm[64]; snprintf(nm, 64, "%s rows %d", k.n, rows);
            k.k<<<rolling_grid(&a, 8, rows), 32>>>(a, rows); check(nm);
            timeit(nm, bytes, memcpy_ms, [&] { k.k<<<rolling_grid(&a, 8, rows), 32>>>(a, rows); });
        }
    }
    return 0;
}
