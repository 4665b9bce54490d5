// probe: part 1 DP4A rows-per-thread x sat-pack x block height, and the median's short strips (not part of the product)
// Not built by meson: a measurement kept beside the runs it produced (plots/data/*/run_1347e4f,
// run_a9861bc). Build on a GPU machine from the repository root:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Icommon -Ilabs/04_convolution/fusion -Ilabs/04_convolution/ladder \
//        -Ilabs/04_convolution labs/04_convolution/fusion/probes/dp4a_rows.cu -o /tmp/probe && /tmp/probe
// Every variant's output is compared byte for byte with a lab rung that the lab verifies against
// its C reference (MISMATCH lines otherwise). The variant lists were edited between runs: each log
// names its variants.
#include "ladder/ladder.cu"
#include "fusion/rolling.cuh"
#include "probe_timing.cuh"
template <int R, bool S, bool SW = false> __global__ void __launch_bounds__(256) p1k(conv_args a) { dp4a_body(a, nullptr, R, S, SW); }
template <int R, bool S, bool SW = false> __global__ void __launch_bounds__(128) p1k128(conv_args a) { dp4a_body(a, nullptr, R, S, SW); }
template <int R, int T, int MB> __global__ void __launch_bounds__(T, MB) p1sw(conv_args a) { dp4a_body(a, nullptr, R, true, true); }
__global__ void BK_BOUNDS med_rows(bk_args a, int rows) { rolling_body(a, BK_MEDIAN_DPX, 1, 8, rows, false); }
__global__ void BK_BOUNDS med_rows_a6(bk_args a, int rows) { rolling_body(a, BK_MEDIAN_DPX, 1, 8, rows, false, 6); }
int main()
{
    const int W = 16384, H = 16384; const size_t N = (size_t)W * H;
    uint8_t *in, *out, *ref; CK(cudaMalloc(&in, N)); CK(cudaMalloc(&out, N)); CK(cudaMalloc(&ref, N));
    std::vector<uint8_t> h(N), hr(N), ho(N); unsigned s = 777; for (size_t i = 0; i < N; i++) { s = s * 1664525u + 1013904223u; h[i] = s >> 24; }
    CK(cudaMemcpy(in, h.data(), N, cudaMemcpyHostToDevice)); CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
    int dev; cudaDeviceProp p; CK(cudaGetDevice(&dev)); CK(cudaGetDeviceProperties(&p, dev)); printf("%s, %d SMs\n", p.name, p.multiProcessorCount);
    const double bytes = 2.0 * N; double mc;
    { std::vector<float> t; for (int i = 0; i < 18; i++) { CK(cudaEventRecord(e0)); CK(cudaMemcpyAsync(out, in, N, cudaMemcpyDeviceToDevice)); CK(cudaEventRecord(e1)); CK(cudaEventSynchronize(e1)); float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); if (i >= 3) t.push_back(ms);} std::sort(t.begin(), t.end()); mc = t[7]; printf("memcpy D2D %.4f ms %.1f GB/s\n", mc, bytes / mc / 1e6); }
    const conv_filter f = {"probe", {-1, -1, -1, -1, 9, -1, -1, -1, -1}, 0};
    conv_set_constant_filter(&f);
    conv_args a = {in, ref, W, H, W, nullptr, f.shift, nullptr, 0};
    CK(cudaMemset(ref, 0, N)); CK(cudaMemset(out, 0, N));
    launch_conv(K_W16_DP4A_R8, &a, 0); CK(cudaDeviceSynchronize()); CK(cudaMemcpy(hr.data(), ref, N, cudaMemcpyDeviceToHost));
    a.out = out;
    auto check = [&](const char *nm) { CK(cudaDeviceSynchronize()); CK(cudaMemcpy(ho.data(), out, N, cudaMemcpyDeviceToHost)); if (ho != hr) printf("MISMATCH %s\n", nm); CK(cudaMemset(out, 0, N)); };
    struct P { const char *n; void (*k)(conv_args); int R, by; } ps[] = {
        {"R4sw_128", p1k128<4, true, true>, 4, 4}, {"R4s_128", p1k128<4, true, false>, 4, 4},
        {"R2sw_128", p1sw<2, 128, 1>, 2, 4}, {"R3sw_128", p1sw<3, 128, 1>, 3, 4}, {"R4sw_128mb10", p1sw<4, 128, 10>, 4, 4},
        {"R4sw_128mb12", p1sw<4, 128, 12>, 4, 4}, {"R3sw_128mb12", p1sw<3, 128, 12>, 3, 4}, {"R4sw_64", p1sw<4, 64, 1>, 4, 2},
        {"R4sw_64mb20", p1sw<4, 64, 20>, 4, 2}, {"R4sw_256", p1sw<4, 256, 1>, 4, 8}, {"R5sw_128", p1sw<5, 128, 1>, 5, 4},
        {"R6sw_128mb10", p1sw<6, 128, 10>, 6, 4}, {"R2sw_64", p1sw<2, 64, 1>, 2, 2}, {"R4sw_32", p1sw<4, 32, 1>, 4, 1}};
    for (auto &q : ps) {
        cudaFuncAttributes fa; CK(cudaFuncGetAttributes(&fa, q.k)); int occ; CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occ, q.k, 32 * q.by, 0));
        dim3 blk(32, q.by), grd((W / 16 + 31) / 32, ((H - 2 + q.R - 1) / q.R + q.by - 1) / q.by);
        char nm[64]; snprintf(nm, 64, "p1 %s (%d regs, %d warps)", q.n, fa.numRegs, occ * q.by);
        q.k<<<grd, blk>>>(a); check(nm);
        timeit(nm, bytes, mc, [&] { q.k<<<grd, blk>>>(a); });
    }
    // median: reference rows 48
    bk_args b = {in, ref, W, H, W};
    med_rows<<<rolling_grid(&b, 8, 48), 32>>>(b, 48); CK(cudaDeviceSynchronize()); CK(cudaMemcpy(hr.data(), ref, N, cudaMemcpyDeviceToHost));
    b.out = out;
    struct K { const char *n; void (*k)(bk_args, int); } ks[] = {{"dpx", med_rows}, {"dpx_a6", med_rows_a6}};
    for (auto &k : ks)
        for (int rows : {12}) {
            if (k.k == med_rows_a6 && rows % 6) continue;
            char nm[64]; snprintf(nm, 64, "median %s rows %d", k.n, rows);
            k.k<<<rolling_grid(&b, 8, rows), 32>>>(b, rows); check(nm);
            timeit(nm, bytes, mc, [&] { k.k<<<rolling_grid(&b, 8, rows), 32>>>(b, rows); });
        }
    return 0;
}
