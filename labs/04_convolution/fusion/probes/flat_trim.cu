// probe: fused_flat_sf with fewer instructions in its stages (issue 20; not part of the product, not
// built by meson). Written on 2026-11-28 (sixth session) without a GPU. Build on a GPU machine from the
// repository root:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Xcompiler -fopenmp -D_POSIX_C_SOURCE=200809L -Icommon \
//        -Ilabs/04_convolution/fusion -Ilabs/04_convolution/cnn labs/04_convolution/fusion/probes/flat_trim.cu \
//        labs/04_convolution/fusion/fusion_reference.c -lpng -o /tmp/flat_trim && /tmp/flat_trim
// The question: fused_flat_sf's interior loop (495 instructions for 24 pixels a lane, CUDA 13.0, sm_90)
// has four places where the same result costs fewer instructions. Do they pay, alone and together?
//   - TRIM_UNPACK: a row's two words into four registers of two pixels with 2 + 2 byte permutes and 2
//     IMADs (t = the strips' bytes 0, 1 side by side; odd = t's bytes 1 and 3; even = t - 256 odd),
//     where unpack_dpx spends 2 + 4 byte permutes and 2 IMADs: 6 ALU instructions a turn fewer;
//   - TRIM_SOBEL: sobel_half_out with P and Q rewritten. With x2 = a + b and d = c - a per column
//     (x1 = b + c = x2 + d): P = x1 right - x2 left + d = E + D, Q = x1 left - x2 right + d = D left - E,
//     where E = x2 right - x2 left and D = d + d right (D left = d left + d). 5 half-precision
//     instructions a register where sobel_half_out spends 6 (x1's sum, and two for each of P and Q);
//     every value is an integer below 2048 in magnitude, exact as a subnormal or the first normal step;
//   - TRIM_VBIAS: gauss's + 128 in a vector register (flat_next's vbias, run 016e6d7): ptxas copies a
//     uniform multiplier into a vector register at each of 12 IMADs a turn otherwise;
//   - TRIM_MED3_IADD: the final median of three as the sum (one IADD3, ALU) minus both ends (two
//     IMADs), where mid3u2 spends four IMADs: one instruction fewer, one more on the ALU.
// Later calls added ALU-lean mixes (sobel_abs, col_iadd, col_imad), gauss's adds in half precision
// (gauss16) and 64 registers; NOTEBOOK.md's "Trims of the stages" has the whole table.
// Measured (2026-11-28, plots/archive/h100/run_{a5d9060,56605cb}, h200/run_{a5d9060,3aa78c0,7fe72ad,56605cb};
// every variant exact): no trim pays. All four: 449 loop instructions, not 494, and no faster than the
// copied walk (H100 0.2-1.7 points slower, H200 -1.0 to +0.5); unpack + sobel, the best, level with the
// lab's kernel (-0.9 to +0.9 points); 10-15% fewer ALU instructions (199-211, not 235) lose 1-3 points. ncu
// (H200, H100): the schedulers issue in 71-79% of their cycles whatever the mix.
// Written later the same day: flat_trim_async, the trims with their rows loaded 9 or 15 rows ahead by
// cp.async (probe_walk.cuh), since the profiles showed the warps waiting longer for their loads the
// fewer instructions they have (loops: the copied walk 516, unpack + sobel 495, all four 478 / 489).
// Measured in the seventh session (H200 only, plots/archive/h200/run_cc5a13c): the load waits fall to
// 0.12-0.16 warps an issue and the issue rate rises 2-4 points, but the walk spends 1.0-1.3 more
// instructions a pixel; every variant 1-2% slower than its register walk (49.5-51.3% of memcpy).
// Only the interior blocks' walk (rolling_flat.cuh's flat_interior, as probe_walk.cuh copies it) changes; the edge
// columns and the top and bottom strips run the lab's code. Every variant is checked against
// fusion_reference.c at five sizes (odd ones included, output poisoned first), then timed at 16384^2
// beside a cudaMemcpy D2D of the same bytes, in three passes.
#include "probe_walk.cuh"
#include "probe_fused.cuh"

enum {
    TRIM_UNPACK = 1, TRIM_SOBEL = 2, TRIM_VBIAS = 4, TRIM_MED3_IADD = 8, TRIM_COPIED = 16 /* none: the copied walk */,
    TRIM_SOBEL_ABS = 32, TRIM_COL_IADD = 64, TRIM_COL_IMAD = 128 /* the ALU-lean trims (second call) */,
    TRIM_GAUSS16 = 256 /* third call: gauss's column sums and l + r in half precision */
};

// np = 4, two strips: raw.w[0] holds strip A's pixels 0..3, raw.w[1] strip B's; p[j] = (A_j, B_j)
static __device__ __forceinline__ prow unpack_trim(const rawrow &raw)
{
    prow r;
    const unsigned t01 = __byte_perm(raw.w[0], raw.w[1], 0x5410); /* A0 A1 B0 B1 */
    const unsigned t23 = __byte_perm(raw.w[0], raw.w[1], 0x7632); /* A2 A3 B2 B3 */
    r.p[1] = __byte_perm(t01, 0, 0x4341);                          /* A1 0 B1 0 */
    r.p[3] = __byte_perm(t23, 0, 0x4341);
    r.p[0] = madd_fma(r.p[1], 0xffffff00u, t01); /* t - 256 odd: A0 0 B0 0 */
    r.p[2] = madd_fma(r.p[3], 0xffffff00u, t23);
    return r;
}

static __device__ __forceinline__ __half2 h2(unsigned u) { return as_half2(u); }
static __device__ __forceinline__ prow sobel_trim(const prow &a, const prow &b, const prow &c)
{
    prow x2, d, dd, o;
#pragma unroll
    for (int j = 0; j < 4; j++) {
        x2.p[j] = half2_bits(__hadd2(h2(a.p[j]), h2(b.p[j])));
        d.p[j] = half2_bits(__hsub2(h2(c.p[j]), h2(a.p[j])));
    }
    const prow x2_l = pairs_left(x2, 4, true), x2_r = pairs_right(x2, 4, true), d_r = pairs_right(d, 4, true);
#pragma unroll
    for (int j = 0; j < 4; j++) dd.p[j] = half2_bits(__hadd2(h2(d.p[j]), h2(d_r.p[j]))); /* D = d + d right */
    const prow dd_l = pairs_left(dd, 4, true);
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const __half2 E = __hsub2(h2(x2_r.p[j]), h2(x2_l.p[j]));
        const __half2 P = __hadd2(E, h2(dd.p[j]));   /* (gx + gy) / 2 */
        const __half2 Q = __hsub2(h2(dd_l.p[j]), E); /* (gy - gx) / 2 */
        const unsigned n = half2_bits(__hmax2(__habs2(P), __habs2(Q)));
        o.p[j] = madd_fma(__vminu2(n, 0x01ff01ffu), 128, 0); /* the result in bytes 1, 3 (lean store) */
    }
    return o;
}

// sobel as |gx| + |gy| (stage_sobel_abs's form) on trim's sums: s = a + 2b + c = 2 x2 + d, gx = s right -
// s left, gy = D left + D (D = d + d right); |gx| + |gy| <= 2040 in one HADD2 with both |x| modifiers. 7
// half-precision instructions and one min (ALU) a register, where sobel_trim spends 6 and two (its HMNMX2)
static __device__ __forceinline__ prow sobel_abs_trim(const prow &a, const prow &b, const prow &c)
{
    prow s, d, dd, o;
    const __half2 two = __floats2half2_rn(2.f, 2.f);
#pragma unroll
    for (int j = 0; j < 4; j++) {
        d.p[j] = half2_bits(__hsub2(h2(c.p[j]), h2(a.p[j])));
        s.p[j] = half2_bits(__hfma2(__hadd2(h2(a.p[j]), h2(b.p[j])), two, h2(d.p[j])));
    }
    const prow s_l = pairs_left(s, 4, true), s_r = pairs_right(s, 4, true), d_r = pairs_right(d, 4, true);
#pragma unroll
    for (int j = 0; j < 4; j++) dd.p[j] = half2_bits(__hadd2(h2(d.p[j]), h2(d_r.p[j])));
    const prow dd_l = pairs_left(dd, 4, true);
#pragma unroll
    for (int j = 0; j < 4; j++) {
        const __half2 gx = __hsub2(h2(s_r.p[j]), h2(s_l.p[j])), gy = __hadd2(h2(dd_l.p[j]), h2(dd.p[j]));
        const unsigned n = half2_bits(__hadd2(__habs2(gx), __habs2(gy)));
        o.p[j] = madd_fma(__vminu2(n, 0x03ff03ffu), 64, 0); /* min(n, 1023) >> 2 in bytes 1, 3 (lean store) */
    }
    return o;
}

// gauss ×16 with its column sum v = a + 2b + c (<= 1020) and l + r (<= 2040) in half precision (HFMA2,
// HADD2: exact integers below 2048, whose bits are the integer), then 16 (l + r) + 32 v + bias by two
// IMADs on those bits: 3 instructions a register move from the FMA pipe's half-rate IMAD to half precision
static __device__ __forceinline__ prow gauss16_trim(const prow &a, const prow &b, const prow &c, unsigned bias)
{
    prow v, o;
    const __half2 two = __floats2half2_rn(2.f, 2.f);
#pragma unroll
    for (int j = 0; j < 4; j++) v.p[j] = half2_bits(__hfma2(h2(b.p[j]), two, __hadd2(h2(a.p[j]), h2(c.p[j]))));
    const prow l = pairs_left(v, 4, true), r = pairs_right(v, 4, true);
#pragma unroll
    for (int j = 0; j < 4; j++)
        o.p[j] = madd_fma(v.p[j], 32, madd_fma(half2_bits(__hadd2(h2(l.p[j]), h2(r.p[j]))), 16, bias));
    return o;
}

template <int T> static __device__ __forceinline__ prow trim_stage(const int k, const prow (&w)[3], const int n)
{
    const prow &a = w[(n + 1) % 3], &b = w[(n + 2) % 3], &c = w[n % 3];
    if (k == 0 && (T & TRIM_GAUSS16)) return gauss16_trim(a, b, c, (T & TRIM_VBIAS) ? 0x00800080u | threadIdx.x >> 5 : 0x00800080u);
    if (k == 0 && (T & TRIM_VBIAS)) return stage_gauss_x16(a, b, c, 4, true, 0x00800080u | threadIdx.x >> 5);
    if (k == 1 && (T & (TRIM_MED3_IADD | TRIM_COL_IADD | TRIM_COL_IMAD)))
        return stage_median_x16(a, b, c, 4, true, (T & TRIM_COL_IADD) ? MID_BY_SUM : (T & TRIM_COL_IMAD) ? MID_BY_IMADS
                                                                                                : MID_XORC_FINAL_IADD);
    if (k == 2 && (T & TRIM_SOBEL_ABS)) return sobel_abs_trim(a, b, c);
    if (k == 2 && (T & TRIM_SOBEL)) return sobel_trim(a, b, c);
    return stage_on_ring(BK_GAUSS_FLAT + k, w, n, 4, true);
}

// the walk's parts with the trims T (probe_walk.cuh): the lab's loads and stores
template <int T> struct trim_parts : lab_parts {
    static __device__ __forceinline__ prow unpack(const rawrow &raw)
    {
        return (T & TRIM_UNPACK) ? unpack_trim(raw) : lab_parts::unpack(raw);
    }
    static __device__ __forceinline__ prow stage(const int k, const prow (&w)[3], const int n) { return trim_stage<T>(k, w, n); }
};
/* T == 0: the lab's kernel whole; else the edge columns and the top and bottom strips take it */
template <int T, int ROWS, int MINB = 28> __global__ void __launch_bounds__(BK_THREADS, MINB) flat_trim(bk_args a)
{
    probe_fused_walk<trim_parts<T>, ROWS>(a, T == 0);
}

/* the same with the rows loaded 3 (G - 1) ahead by cp.async (probe_walk.cuh's probe_fused_walk_async) */
template <int T, int ROWS, int G> __global__ void __launch_bounds__(BK_THREADS, 28) flat_trim_async(bk_args a)
{
    __shared__ unsigned ring[G][3][2][32];
    probe_fused_walk_async<trim_parts<T>, ROWS, G>(a, ring);
}

struct variant {
    const char *name;
    void (*kernel)(bk_args);
};
static const variant VARIANTS[] = {
    {"sf (the lab's fused_flat_sf)", flat_trim<0, 72>},
    {"sf, copied walk", flat_trim<TRIM_COPIED, 72>},
    {"unpack", flat_trim<TRIM_UNPACK, 72>},
    {"sobel", flat_trim<TRIM_SOBEL, 72>},
    {"vbias", flat_trim<TRIM_VBIAS, 72>},
    {"med3 iadd", flat_trim<TRIM_MED3_IADD, 72>},
    {"unpack+sobel", flat_trim<TRIM_UNPACK | TRIM_SOBEL, 72>},
    {"unpack+sobel+vbias", flat_trim<TRIM_UNPACK | TRIM_SOBEL | TRIM_VBIAS, 72>},
    {"all four", flat_trim<TRIM_UNPACK | TRIM_SOBEL | TRIM_VBIAS | TRIM_MED3_IADD, 72>},
    // second call: fewer ALU instructions (the H200's profile of the first: the ALU pipe 68-70% busy, the
    // largest stall "math pipe throttle")
    {"unpack+sobel_abs", flat_trim<TRIM_UNPACK | TRIM_SOBEL_ABS, 72>},
    {"unpack+sobel+col_iadd", flat_trim<TRIM_UNPACK | TRIM_SOBEL | TRIM_COL_IADD, 72>},
    {"unpack+sobel+col_imad", flat_trim<TRIM_UNPACK | TRIM_SOBEL | TRIM_COL_IMAD, 72>},
    {"unpack+sobel_abs+col_iadd", flat_trim<TRIM_UNPACK | TRIM_SOBEL_ABS | TRIM_COL_IADD, 72>},
    {"unpack+sobel_abs+col_imad", flat_trim<TRIM_UNPACK | TRIM_SOBEL_ABS | TRIM_COL_IMAD, 72>},
    {"unpack+sobel_abs+col_imad+vbias", flat_trim<TRIM_UNPACK | TRIM_SOBEL_ABS | TRIM_COL_IMAD | TRIM_VBIAS, 72>},
    // third call: gauss's adds in half precision (the profile of the second: the issue rate ~78% whatever
    // the split between the ALU and the FMA pipe's half-rate IMADs)
    {"unpack+sobel+gauss16", flat_trim<TRIM_UNPACK | TRIM_SOBEL | TRIM_GAUSS16, 72>},
    {"unpack+sobel+gauss16+vbias", flat_trim<TRIM_UNPACK | TRIM_SOBEL | TRIM_GAUSS16 | TRIM_VBIAS, 72>},
    {"unpack+sobel_abs+gauss16", flat_trim<TRIM_UNPACK | TRIM_SOBEL_ABS | TRIM_GAUSS16, 72>},
    // fourth call: the trims in 64 registers (32 warps an SM)
    {"unpack+sobel 64 regs", flat_trim<TRIM_UNPACK | TRIM_SOBEL, 72, 32>},
    {"unpack+sobel_abs 64 regs", flat_trim<TRIM_UNPACK | TRIM_SOBEL_ABS, 72, 32>},
    {"copied walk 64 regs", flat_trim<TRIM_COPIED, 72, 32>},
    // to be measured (written after the profiles: the fewer instructions, the longer the warps wait for
    // their loads, 0.76 -> 1.31 warps an issue on the H200 and 1.9 -> 2.9 on the H100): the trims with
    // their rows loaded 9 or 15 rows ahead by cp.async, where the register walk has 1-2
    {"copied walk async 9", flat_trim_async<TRIM_COPIED, 72, 4>},
    {"unpack+sobel async 9", flat_trim_async<TRIM_UNPACK | TRIM_SOBEL, 72, 4>},
    {"all four async 9", flat_trim_async<TRIM_UNPACK | TRIM_SOBEL | TRIM_VBIAS | TRIM_MED3_IADD, 72, 4>},
    {"unpack+sobel async 15", flat_trim_async<TRIM_UNPACK | TRIM_SOBEL, 72, 6>},
    {"all four async 15", flat_trim_async<TRIM_UNPACK | TRIM_SOBEL | TRIM_VBIAS | TRIM_MED3_IADD, 72, 6>},
};

int main()
{
    return probe_fused_main(VARIANTS, [](const variant &v, const bk_args &a) { v.kernel<<<rolling_grid(&a, 4, 72), BK_THREADS>>>(a); }, 3,
                            [](const bk_args &) {});
}
