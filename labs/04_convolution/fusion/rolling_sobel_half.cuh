/* rolling_sobel_half.cuh - Lab 04, part 3: sobel in half precision (the fused_half, fused_xor(c) and
 * fused_flat rungs; stage_sobel_abs, probed in labs/04_convolution/fusion/probes/flat_next.cu). A part of rolling.cuh,
 * included by it where its stages are defined: it uses rolling.cuh's prow, pairs_left /
 * pairs_right, madd_fma and the 16-bit min / max. */
#ifndef ROLLING_SOBEL_HALF_CUH
#define ROLLING_SOBEL_HALF_CUH

/* Lesson (sobel in half precision, the fused_half rung): a pixel v of 0..255 in a clean 16-bit half is,
 * read as a half-precision number, the subnormal v x 2^-24, and every sum and difference of such
 * numbers below 2048 x 2^-24 is exact (half precision keeps subnormals; the bits of a result stay
 * the integer: v x 2^-24 for v < 1024, then 1024..2047 with the exponent's first step, the same
 * bits). So sobel_diag's adds become HADD2s on the FMA pipe, and |x| is an operand modifier, free:
 * n = max(|P|, |Q|) (P, Q = (gx +- gy) / 2, |P|, |Q| <= 1020) is one HMNMX2, where sobel_diag
 * spends three IADD3 and three min / max on the ALU. min(n, 511) x 128 puts n >> 1 (the result)
 * in bytes 1 and 3: the lean store. Per pair of pixels 2 ALU instructions, 6 IADD3 / VIMNMX fewer
 * than sobel_lean, for 3 more on the FMA pipe (HADD2: 7, where lean spends 4 IMADs). */
static __device__ __forceinline__ __half2 as_half2(unsigned u) { return *reinterpret_cast<const __half2 *>(&u); }
static __device__ __forceinline__ unsigned half2_bits(__half2 h) { return *reinterpret_cast<const unsigned *>(&h); }
/* Two rows summed (half precision), and the sums shifted left and right: x1 = b + c and x2 = a + b of
 * sobel's window. The window one row down has x2 = this window's x1 (rolling_flat.cuh carries it). */
typedef struct {
    prow s, l, r;
} pair_sums;
static __device__ __forceinline__ pair_sums sobel_pair_sums(const prow &u, const prow &v, const int np, const bool strips)
{
    pair_sums x;
#pragma unroll
    for (int j = 0; j < np; j++) x.s.p[j] = half2_bits(__hadd2(as_half2(u.p[j]), as_half2(v.p[j])));
    x.l = pairs_left(x.s, np, strips), x.r = pairs_right(x.s, np, strips);
    return x;
}
/* sobel's row from the window's top and bottom rows a and c and its pair sums x1 and x2; clamp false
 * only in labs/04_convolution/fusion/probes/flat_diag.cu (a diagnostic without the min: wrong above 511) */
static __device__ __forceinline__ prow sobel_half_out(const prow &a, const prow &c, const pair_sums &x1,
                                                      const pair_sums &x2, const int np, const bool clamp = true)
{
    prow o;
#pragma unroll
    for (int j = 0; j < np; j++) {
        const __half2 hd = __hsub2(as_half2(c.p[j]), as_half2(a.p[j]));
        const __half2 P = __hadd2(__hsub2(as_half2(x1.r.p[j]), as_half2(x2.l.p[j])), hd); /* (gx + gy) / 2 */
        const __half2 Q = __hadd2(__hsub2(as_half2(x1.l.p[j]), as_half2(x2.r.p[j])), hd); /* (gy - gx) / 2 */
        const unsigned n = half2_bits(__hmax2(__habs2(P), __habs2(Q)));
        o.p[j] = madd_fma(clamp ? __vminu2(n, 0x01ff01ffu) : n, 128, 0); /* the result in bytes 1, 3 */
    }
    return o;
}
static __device__ __forceinline__ prow stage_sobel_half(const prow &a, const prow &b, const prow &c, const int np,
                                                        const bool strips, const bool clamp = true)
{
    return sobel_half_out(a, c, sobel_pair_sums(b, c, np, strips), sobel_pair_sums(a, b, np, strips), np, clamp);
}

/* Lesson (sobel as |gx| + |gy| in half precision; labs/04_convolution/fusion/probes/flat_next.cu, not a rung): the
 * same subnormal integers, the filter as the reference writes it. Per column s = a + 2b + c and
 * d = c - a (an HADD2 and an HFMA2 by 2, an HADD2 with a negated operand), gx = s right - s left,
 * gy = d left + 2d + d right, and |gx| + |gy| <= 2040 is one more HFMA2 with both operands' |x|
 * modifiers (exact below 2048, as above). min(n, 1023) x 64 puts n >> 2 in bytes 1 and 3 (the lean
 * store). Per pair of pixels 7 half-precision instructions on the FMA pipe and one min on the ALU,
 * where stage_sobel_half spends 7 and two (its HMNMX2): fused_flat_r36's steady loop, 494
 * instructions for 24 pixels, becomes 471 (CUDA 13.0, sm_90). Measured, it is slower: 2.1 points of
 * memcpy on the H100 and 1.6 on the H200 (run c0e8efd), with fewer instructions on both pipes.
 * Not profiled; its SASS has 198 instructions that read three vector registers against r36's 96
 * (ptxas moved the IMADs' uniform multipliers into vector registers), the kind that issues slowly. */
static __device__ __forceinline__ prow stage_sobel_abs(const prow &a, const prow &b, const prow &c, const int np,
                                                       const bool strips)
{
    prow s, d, o;
    const __half2 two = __floats2half2_rn(2.f, 2.f);
#pragma unroll
    for (int j = 0; j < np; j++) {
        s.p[j] = half2_bits(__hfma2(as_half2(b.p[j]), two, __hadd2(as_half2(a.p[j]), as_half2(c.p[j]))));
        d.p[j] = half2_bits(__hsub2(as_half2(c.p[j]), as_half2(a.p[j])));
    }
    const prow s_l = pairs_left(s, np, strips), s_r = pairs_right(s, np, strips);
    const prow d_l = pairs_left(d, np, strips), d_r = pairs_right(d, np, strips);
#pragma unroll
    for (int j = 0; j < np; j++) {
        const __half2 gx = __hsub2(as_half2(s_r.p[j]), as_half2(s_l.p[j]));
        const __half2 gy = __hadd2(__hfma2(as_half2(d.p[j]), two, as_half2(d_l.p[j])), as_half2(d_r.p[j]));
        const unsigned n = half2_bits(__hadd2(__habs2(gx), __habs2(gy)));
        o.p[j] = madd_fma(__vminu2(n, 0x03ff03ffu), 64, 0); /* the result in bytes 1, 3 */
    }
    return o;
}
#endif
