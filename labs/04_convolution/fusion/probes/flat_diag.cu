// probe: what holds fused_flat_sf's schedulers at 71-79% issue, its loads or its instruction mix? (issue
// 20; not part of the product, not built by meson). Written on 2026-11-28 (sixth session) without a GPU,
// run in the seventh on an H200 (plots/archive/h200/run_cc5a13c, run_d668dcc). Build on a GPU machine from
// the repository root:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Xcompiler -fopenmp -D_POSIX_C_SOURCE=200809L -Icommon \
//        -Ilabs/04_convolution/fusion -Ilabs/04_convolution/cnn labs/04_convolution/fusion/probes/flat_diag.cu \
//        labs/04_convolution/fusion/fusion_reference.c -lpng -o /tmp/flat_diag && /tmp/flat_diag
// The question. flat_trim's profiles (NOTEBOOK.md's "Trims of the stages") found the schedulers issuing
// in 71-79% of their cycles for every mix of stages, and the warps waiting longer for their loads the
// fewer instructions they have. Two diagnostics take the memory out of the interior walk
// (probe_walk.cuh, the lab's stages), one side at a time:
//   - l1 loads: every row read from one fixed address a lane (ld.global.ca, asm volatile so that it is
//     neither hoisted nor merged): the same loads, hitting L1, no DRAM reads;
//   - no stores: each row's store kept behind a test the compiler cannot decide and that never holds
//     (diag_parts::store below), so every instruction that computes the row stays;
//   - both.
// If the walk without its memory issues in ~90% of the cycles, the loads (and stores) hold the rate and
// hiding them better (flat_trim_async) is the lever; if it stays near 78%, the instruction mix does, and
// this decomposition cannot reach the goals. The diagnostics' outputs are wrong on purpose: the harness
// runs them but does not check them (probe_fused.cuh's `diagnostic`); the lab's kernel and the copied
// walk beside them are checked at five sizes as always. Timed at 16384^2 beside a cudaMemcpy D2D, three
// passes; profile the three diagnostics and the copied walk with Nsight Compute for the issue rate
// (--kernel-name-base mangled, regex _Z9flat_diagILi[0-9]+EE, skipping the check launches of the four
// smaller sizes).
// Measured (H200, NOTEBOOK.md's "Memory out of the walk"): without any DRAM traffic (L1 loads, fixed
// stores, every instruction kept) the walk takes 7.2% less time, 55% of memcpy, and its schedulers issue
// in 80.8% of the cycles (79.4% with memory): the mix holds the rate, not the memory. One more ALU
// instruction a pixel costs 17.4 us (more than the ALU pipe's 2 cycles), an IMAD 12.4, an HADD2 13.8;
// one fewer ALU instruction saves 14-21 thousand cycles a pixel-instruction, about 9 us (the third call).
// The edge columns cost 5.2% of the cycles (2.9% of the pixels), the top and bottom strips nothing
// measurable; the interior alone without DRAM traffic reaches 59% of memcpy (the fourth call).
#include "probe_walk.cuh"
#include "probe_fused.cuh"

enum { DIAG_L1_LOADS = 1, DIAG_NO_STORES = 2, DIAG_FIXED_STORES = 4 };
/* What one more instruction costs, by pipe: 8 more a row (24 a loop turn) of one kind, in one chain that
 * reads the row's registers, folded into the row by one LOP3 with an opaque zero (the store below). */
enum { EXTRA_LOP3 = 8, EXTRA_IMAD = 16, EXTRA_HADD2 = 24, EXTRA_MASK = 24 };
/* And what one fewer ALU instruction saves: sobel without its clamp (the VIMNMX of every register), the
 * median without its byte permute (its output stays scaled by 16): 12 ALU instructions fewer a loop turn
 * each, nothing else changed. Wrong outputs, so diagnostics. */
enum { LESS_CLAMP = 32, LESS_BYTE_PERM = 64 };
/* And what the blocks off the interior cost: the edge columns' blocks (the strips at the top and bottom
 * excepted) or the top and bottom strips return at once (their outputs stay poisoned: diagnostics). */
enum { SKIP_EDGE_COLUMNS = 128, SKIP_TOP_BOTTOM = 256 };

static __device__ __forceinline__ unsigned load_ca(const uint8_t *p)
{
    unsigned v;
    asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

static __device__ __forceinline__ unsigned lop3_0x6a(unsigned a, unsigned b, unsigned c) /* (a & b) ^ c */
{
    unsigned r;
    asm("lop3.b32 %0, %1, %2, %3, 0x6a;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}

/* 0 in every launch here (no dynamic shared memory), but the compiler cannot know it: the "no stores"
 * diagnostics store a row only if it is 1. A non-volatile asm, so ptxas may read it once, out of the loop. */
static __device__ __forceinline__ unsigned opaque_zero()
{
    unsigned z;
    asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(z));
    return z;
}

/* The output's first row (the host sets it when the output moves, outside the timed launches): in the
 * constant bank, which the kernel's stores cannot change, so ptxas reads it without a load. */
__constant__ uint8_t *c_fixed_row;

// The lab's parts, with D's changes (probe_walk.cuh)
template <int D> struct diag_parts : lab_parts {
    static __device__ __forceinline__ rawrow load(const uint8_t *p, const bk_args &a)
    {
        if (!(D & DIAG_L1_LOADS)) return lab_parts::load(p, a);
        const uint8_t *q = a.in + 4 * threadIdx.x; /* the picture's first row: in bounds at every size */
        return {{load_ca(q), load_ca(q + STRIP_GAP(4)), 0, 0}};
    }
    // opaque_zero() is 0, but the compiler cannot know that: the test keeps every instruction that
    // computes the row and skips the store. A test on the row's own bits would not do: the compiler
    // proved one (its low byte never 0x7f) false and removed the walk. (A first form read a __device__
    // flag, which ptxas reloaded before every store: 3 more loads a loop turn.)
    static __device__ __forceinline__ prow stage(const int k, const prow (&w)[3], const int n)
    {
        const prow &a = w[(n + 1) % 3], &b = w[(n + 2) % 3], &c = w[n % 3]; /* as stage_on_ring */
        if (k == 1 && (D & LESS_BYTE_PERM)) return stage_median_dpx(a, b, c, 4, true, MID_XOR_COLUMNS);
        if (k == 2 && (D & LESS_CLAMP)) return stage_sobel_half(a, b, c, 4, true, false);
        return lab_parts::stage(k, w, n);
    }
    static __device__ __forceinline__ unsigned extra(unsigned c, unsigned x, unsigned y)
    {
        if ((D & EXTRA_MASK) == EXTRA_LOP3) return lop3_0x6a(c, x, y);
        if ((D & EXTRA_MASK) == EXTRA_IMAD) return c * x + y;
        return half2_bits(__hadd2(as_half2(c), as_half2(x)));
    }
    static __device__ __forceinline__ void store(uint8_t *p, const prow &row, bool low, bool high)
    {
        prow o = row;
        if (D & EXTRA_MASK) { /* one chain of 8 that reads the row's registers, four inputs in every two
                                 steps (so ptxas cannot merge two LOP3s), folded into the row as c & 0: one
                                 more LOP3, and nothing ptxas may sink into a branch that is never taken */
            unsigned c = o.p[0];
#pragma unroll
            for (int k = 0; k < 8; k++) c = extra(c, o.p[k % 4], o.p[(k + 1) % 4]);
            o.p[0] = lop3_0x6a(c, opaque_zero(), o.p[0]); /* (c & 0) ^ p[0] */
        }
        if (D & DIAG_FIXED_STORES) /* every row of a block to the same 512 bytes of its own: the output's
                                      first 8 MB, which the L2 holds (a first form put every block on the
                                      same 256 bytes, and the L2 serialised them: 1.6 ms) */
            p = c_fixed_row + 512 * (blockIdx.y * gridDim.x + blockIdx.x) + 4 * threadIdx.x;
        if (!(D & DIAG_NO_STORES) || opaque_zero() == 1u) lab_parts::store(p, o, low, high);
    }
};
template <int D> __global__ void __launch_bounds__(BK_THREADS, 28) flat_diag(bk_args a)
{
    if (D & (SKIP_EDGE_COLUMNS | SKIP_TOP_BOTTOM)) { /* as probe_fused_walk decides its path */
        const strip_at g = strip_of(a, 4, 72, true, slowest_first_block());
        const bool top_bottom = g.y0 - 3 < 0 || g.y0 + 72 + 3 > a.height;
        if ((D & SKIP_TOP_BOTTOM) && top_bottom) return;
        if ((D & SKIP_EDGE_COLUMNS) && g.edge && !top_bottom) return;
    }
    probe_fused_walk<diag_parts<D>, 72>(a, false);
}

struct variant {
    const char *name;
    void (*kernel)(bk_args);
    bool diagnostic;
};
static const variant VARIANTS[] = {
    {"sf (the lab's fused_flat_sf)", probe_lab_sf<4, 72, 28>, false},
    {"sf, copied walk", flat_diag<0>, false},
    {"l1 loads", flat_diag<DIAG_L1_LOADS>, true},
    {"no stores", flat_diag<DIAG_NO_STORES>, true},
    {"l1 loads, no stores", flat_diag<DIAG_L1_LOADS | DIAG_NO_STORES>, true},
    // second call (the first found the "no stores" walk 16% shorter: ptxas had sunk sobel's last
    // instructions into the skipped store): every row stored to the output's first row, every
    // instruction kept, no DRAM writes (L2 holds the row)
    {"fixed stores", flat_diag<DIAG_FIXED_STORES>, true},
    {"l1 loads, fixed stores", flat_diag<DIAG_L1_LOADS | DIAG_FIXED_STORES>, true},
    {"+24 LOP3", flat_diag<EXTRA_LOP3>, false},
    {"+24 IMAD", flat_diag<EXTRA_IMAD>, false},
    {"+24 HADD2", flat_diag<EXTRA_HADD2>, false},
    // third call: ALU instructions taken away
    {"-12 VIMNMX (no clamp)", flat_diag<LESS_CLAMP>, true},
    {"-12 PRMT (no byte permute)", flat_diag<LESS_BYTE_PERM>, true},
    {"-24 ALU (both)", flat_diag<LESS_CLAMP | LESS_BYTE_PERM>, true},
    // fourth call: the blocks off the interior
    {"no edge columns", flat_diag<SKIP_EDGE_COLUMNS>, true},
    {"no top and bottom strips", flat_diag<SKIP_TOP_BOTTOM>, true},
    {"interior only", flat_diag<SKIP_EDGE_COLUMNS | SKIP_TOP_BOTTOM>, true},
    {"interior only, no DRAM", flat_diag<SKIP_EDGE_COLUMNS | SKIP_TOP_BOTTOM | DIAG_L1_LOADS | DIAG_FIXED_STORES>, true},
};

/* c_fixed_row set once for each output buffer (the check launches), never inside a timed launch */
static void set_fixed_row(uint8_t *out)
{
    static uint8_t *now = nullptr;
    if (out == now) return;
    CK(cudaMemcpyToSymbol(c_fixed_row, &out, sizeof out));
    now = out;
}

int main()
{
    return probe_fused_main(VARIANTS, [](const variant &v, const bk_args &a) { set_fixed_row(a.out); v.kernel<<<rolling_grid(&a, 4, 72), BK_THREADS>>>(a); }, 3,
                            [](const bk_args &) {});
}
