// probe: fused_flat_sf with 16 pixels a lane (issue 20; not part of the product, not built by meson)
// Written on 2026-11-28 without a GPU. Build on a GPU machine from the repository root:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Xcompiler -fopenmp -D_POSIX_C_SOURCE=200809L -Icommon \
//        -Ilabs/04_convolution/fusion -Ilabs/04_convolution/cnn labs/04_convolution/fusion/probes/flat_wide.cu \
//        labs/04_convolution/fusion/fusion_reference.c -lpng -o /tmp/flat_wide && /tmp/flat_wide
// The question: fused_flat_sf's steady loop (rolling_flat.cuh, np = 4: 8 pixels a lane, two strips of
// 4) spends per row the same 12 shuffles and the same walk (addresses, loop) whatever np is, so with
// np = 8 (16 pixels a lane, two strips of 8, 8-byte accesses) those are shared by twice the pixels.
// The price: twice the registers in the windows (fewer warps an SM) and 35 columns of blocks at
// 16384^2 (480 columns a block), 2 of them edge columns, where np = 4 has 69.
// Every variant is checked against fusion_reference.c at five sizes (odd ones included, output
// poisoned first; MISMATCH lines and exit 1 otherwise), then timed at 16384^2 beside a cudaMemcpy
// D2D of the same bytes, in two passes.
// Measured (H100, 2026-11-28, plots/archive/h100/run_a50f1cb/04_flat_wide.txt; every variant exact): np = 8
// in 128 registers, 16 warps an SM: 62.4 / 63.3% of memcpy, where fused_flat_sf made 68.9 / 70.4% in
// the same passes; in 96 or 80 registers (604 / 1608 bytes spilled) 55.6-58.1% and 35.8-36.0%. The 7%
// fewer instructions of the interior loop do not pay for the warps lost. H200 (h200/run_5deb02e): 47.1 /
// 47.1% against the rung's 52.9 / 52.9%.
#include "probe_walk.cuh" /* probe_lab_sf: the lab's kernel for any np */
#include "probe_fused.cuh"

struct variant {
    const char *name;
    void (*kernel)(bk_args);
    int np, rows;
};
static const variant VARIANTS[] = {
    {"np4 r72 28 warps (fused_flat_sf)", probe_lab_sf<4, 72, 28>, 4, 72},
    {"np8 r72 16 warps", probe_lab_sf<8, 72, 16>, 8, 72},
    {"np8 r72 20 warps", probe_lab_sf<8, 72, 20>, 8, 72},
    {"np8 r72 24 warps", probe_lab_sf<8, 72, 24>, 8, 72},
    {"np8 r48 20 warps", probe_lab_sf<8, 48, 20>, 8, 48},
    {"np8 r96 20 warps", probe_lab_sf<8, 96, 20>, 8, 96},
    {"np8 r36 20 warps", probe_lab_sf<8, 36, 20>, 8, 36},
};

static void launch(const variant &v, const bk_args &a)
{
    v.kernel<<<rolling_grid(&a, v.np, v.rows), BK_THREADS>>>(a);
    CK(cudaGetLastError());
}

int main()
{
    return probe_fused_main(VARIANTS, launch, 2, [](const bk_args &) {});
}
