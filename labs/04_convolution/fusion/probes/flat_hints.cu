// probe: fused_flat_sf with cache hints on its loads and stores (issue 20; not part of the product,
// not built by meson). Written on 2026-11-28 without a GPU. Build on a GPU machine from the repository root:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Xcompiler -fopenmp -D_POSIX_C_SOURCE=200809L -Icommon \
//        -Ilabs/04_convolution/fusion -Ilabs/04_convolution/cnn labs/04_convolution/fusion/probes/flat_hints.cu \
//        labs/04_convolution/fusion/fusion_reference.c -lpng -o /tmp/flat_hints && /tmp/flat_hints
// The question: do hints that cost no instruction move fused_flat_sf? Its output is never read again
// (streaming stores, st.global.cs, alone took the median w16_r4 from 74.7% to 78.9% of memcpy on the
// H200, and gave nothing to fused_half in 96-row strips); its rows are read in 128-byte pieces a strip, and
// ld.global.L2::256B asks the L2 to fetch 256-byte pieces from DRAM. Only the interior blocks' walk
// (rolling_flat.cuh's flat_interior as probe_walk.cuh copies it, with the hints) changes; the edge columns and the
// top and bottom strips run the lab's code. Every variant is checked against fusion_reference.c at
// five sizes (odd ones included, output poisoned first), then timed at 16384^2 beside a cudaMemcpy
// D2D of the same bytes, in three passes.
// Measured (2026-11-28, plots/data/{h100,h200}/run_5deb02e/04_flat_hints.txt; every variant exact): no hint
// beats the copied walk without hints (H100 70.0-70.1%, H200 51.9-52.0%): streaming stores 69.1-69.7 /
// 51.9-52.1, L2::256B loads 69.6-70.0 / 51.6, both 69.6-69.9 / 51.4-51.6, evict-first loads 67.0-67.1 /
// 51.9-52.0; the lab's kernel 70.5-70.8 / 53.0-53.1 in the same passes.
#include "probe_walk.cuh"
#include "probe_fused.cuh"

enum { HINT_LD256 = 1, HINT_STCS = 2, HINT_LDCS = 4, HINT_NONE_COPIED = 8 /* the copied walk, no hint */ };

template <int H> static __device__ __forceinline__ unsigned hint_load(const uint8_t *p)
{
    unsigned v;
    if (H & HINT_LD256) asm("ld.global.nc.L2::256B.u32 %0, [%1];" : "=r"(v) : "l"(p));
    else if (H & HINT_LDCS) v = __ldcs((const unsigned *)p);
    else v = *(const unsigned *)p;
    return v;
}
template <int H> static __device__ __forceinline__ void hint_store(uint8_t *p, unsigned v)
{
    if (H & HINT_STCS) __stcs((unsigned *)p, v);
    else *(unsigned *)p = v;
}

// the walk's parts with the hints H (probe_walk.cuh): the lab's unpack and stages
template <int H> struct hint_parts : lab_parts {
    static __device__ __forceinline__ rawrow load(const uint8_t *p, const bk_args &)
    {
        return {{hint_load<H>(p), hint_load<H>(p + STRIP_GAP(4)), 0, 0}};
    }
    static __device__ __forceinline__ void store(uint8_t *p, const prow &o, bool low, bool high)
    {
        unsigned wd[4];
        row_words(o, 4, BK_GAUSS_FLAT, wd);
        if (low) hint_store<H>(p, wd[0]);
        if (high) hint_store<H>(p + STRIP_GAP(4), wd[1]);
    }
};
/* H == 0: the lab's kernel whole; else the edge columns and the top and bottom strips take it */
template <int H, int ROWS> __global__ void __launch_bounds__(BK_THREADS, 28) flat_hint(bk_args a)
{
    probe_fused_walk<hint_parts<H>, ROWS>(a, H == 0);
}

struct variant {
    const char *name;
    void (*kernel)(bk_args);
};
static const variant VARIANTS[] = {
    {"sf (the lab's fused_flat_sf)", flat_hint<0, 72>},
    {"sf, no hint (copied walk)", flat_hint<HINT_NONE_COPIED, 72>},
    {"sf, stores .cs", flat_hint<HINT_STCS, 72>},
    {"sf, loads L2::256B", flat_hint<HINT_LD256, 72>},
    {"sf, loads L2::256B, stores .cs", flat_hint<HINT_LD256 | HINT_STCS, 72>},
    {"sf, loads .cs, stores .cs", flat_hint<HINT_LDCS | HINT_STCS, 72>},
};

int main()
{
    return probe_fused_main(VARIANTS, [](const variant &v, const bk_args &a) { v.kernel<<<rolling_grid(&a, 4, 72), BK_THREADS>>>(a); }, 3,
                            [](const bk_args &) {});
}
