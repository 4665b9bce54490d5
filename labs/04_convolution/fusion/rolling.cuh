/* rolling.cuh - Lab 04, part 3: the device code of the rolling kernels (rolling.cu: the
 * block-based (3x3) pipeline's kernels, each stage alone and the three stages fused, and the median
 * ladder's best rung, the median stage alone with 16 pixels per lane; rolling_budget.cu: the
 * instruction-budget rungs' parameter sweep). fusion.h defines what every kernel computes; fusion_reference.c is the
 * definition in C, and every kernel reproduces its bits.
 *
 * The lesson: a fused kernel keeps the intermediate pixels in registers. For 3x3 stages a pixel of
 * stage k needs a 3x3 patch of stage k - 1, so a fused kernel needs an input patch that grows by one
 * pixel on every side per stage (the enlarged halo) and recomputes the intermediate pixels its
 * neighbours also compute. */
#ifndef ROLLING_CUH
#define ROLLING_CUH
#include <cuda_fp16.h>
#include "fusion.h"
#include "gl_check.h"

#define FULL_MASK 0xffffffffu
#define BK_THREADS 32  /* one warp per block of the rolling kernels: the warp's strip then depends on
                          blockIdx only, so the compiler knows every branch on it is warp-uniform */
#define BK_ROWS 48     /* output rows per warp: a strip of the picture walked top to bottom (a multiple of 6) */
#define BK_ROWS_DPX 96 /* the budget rungs: the 2 nstages rows that fill the windows, spread over twice the rows */
#define BK_ROWS_SHORT 12 /* the median's dpx_r12: short strips (rolling_budget.cu says why) */
#define OUT_LANES 30   /* lanes 1..30 write; lanes 0 and 31 only load the halo columns */
#define PREFETCH 4     /* rows loaded ahead of the one being computed (edge strips) */
#define AHEAD 3        /* the same for interior strips: 3, the period of their unrolled loop */
#define AHEAD_MAX 6    /* the deepest prefetch a kernel may ask for (its loop's period: 3 or 6) */
static_assert(BK_ROWS % 6 == 0 && BK_ROWS_DPX % 6 == 0 && BK_ROWS_SHORT % 6 == 0, "interior strips run their loop in steps of 3 or 6 rows");

/* 2 np pixels of one row held by one lane, two per register: pixel j (0 <= j < np) in the low 16
 * bits of p[j], pixel np + j in the high 16 bits. Sums of up to 16 pixels fit in 16 bits, and min /
 * max of two 16-bit halves is one instruction (__vminu2 / __vmaxu2), so one operation serves 2
 * pixels. This split keeps a whole row shifted by one pixel in registers: p[j - 1] already holds
 * the left neighbours of p[j], so a shift costs one shuffle and one byte permute (for p[0]). */
typedef struct {
    unsigned p[8]; /* np = 4 (8 pixels, 8-byte accesses) or 8 (16 pixels, 16-byte accesses) */
} prow;

/* One row's 2 np bytes as loaded (np / 2 words): kept raw while the load is in flight. */
typedef struct {
    unsigned w[4];
} rawrow;

/* Stage numbers of rolling_body beyond bk_stage: the budget rungs. The fused budget rung runs
 * BK_GAUSS_X16, BK_MEDIAN_X16, BK_SOBEL_DIAG (consecutive: first + k); the median rung BK_MEDIAN_DPX.
 * fused_lean (rolling_budget.cu) runs BK_GAUSS_LEAN (= gauss_x16), BK_MEDIAN_LEAN (= median_x16),
 * BK_SOBEL_LEAN: sobel_diag with B and D as 2048 - A and 2048 - C, and without its last byte
 * permute, which row_store's path for BK_GAUSS_LEAN takes over (bytes 1 and 3 of each register). */
enum {
    BK_GAUSS_X16 = BK_STAGES, BK_MEDIAN_X16, BK_SOBEL_DIAG, BK_MEDIAN_DPX, BK_GAUSS_LEAN, BK_MEDIAN_LEAN, BK_SOBEL_LEAN,
    BK_GAUSS_HALF, BK_MEDIAN_HALF, BK_SOBEL_HALF, /* fused_half: gauss_x16, median_x16, sobel_half (lean store) */
    BK_GAUSS_XOR, BK_MEDIAN_XOR, BK_SOBEL_XOR,    /* fused_xor: fused_half, every middle of three by XOR */
    BK_GAUSS_XORC, BK_MEDIAN_XORC, BK_SOBEL_XORC, /* fused_xorc: fused_half, the columns' middles by XOR */
    BK_GAUSS_FLAT, BK_MEDIAN_FLAT, BK_SOBEL_FLAT, /* fused_flat(_sx): fused_xorc's stages (rolling_flat.cuh) */
    BK_GAUSS_ABS, BK_MEDIAN_ABS, BK_SOBEL_ABS     /* fused_flat's with stage_sobel_abs (labs/04_convolution/fusion/probes/flat_next.cu) */
};
/* The rungs whose last stage leaves its result in bytes 1 and 3 (row_store's lean path). */
static __device__ __forceinline__ bool lean_store(int first)
{
    return first == BK_GAUSS_LEAN || first == BK_GAUSS_HALF || first == BK_GAUSS_XOR || first == BK_GAUSS_XORC ||
           first == BK_GAUSS_FLAT || first == BK_GAUSS_ABS;
}

/* a * 1 + b (and a * k + b: madd_fma) with a 1 that the compiler cannot see (blockDim.x /
 * BK_THREADS: every rolling kernel runs BK_THREADS threads a block): an IMAD, issued to the FMA
 * pipe, where a + b would be an IADD3 on the ALU pipe, the one the median fills. b - a the same
 * with a -1 of its own (-blockDim.x >> 5 as a signed shift), which keeps the compiler from
 * gathering the subtrahends into one IADD3. */
static_assert(BK_THREADS == 32, "sub_fma's -1 is -blockDim.x >> 5");
static __device__ __forceinline__ unsigned unit_fma() { return blockDim.x / BK_THREADS; }
static __device__ __forceinline__ unsigned add_fma(unsigned a, unsigned b) { return a * unit_fma() + b; }
static __device__ __forceinline__ unsigned madd_fma(unsigned a, unsigned k, unsigned b) { return a * (k * unit_fma()) + b; }
static __device__ __forceinline__ unsigned sub_fma(unsigned b, unsigned a)
{
    return a * (unsigned)(-(int)blockDim.x >> 5) + b;
}

/* Lesson (two strips, the layout of fused_strips): a lane's low halves hold np pixels of one strip
 * of the picture and its high halves the np pixels STRIP_GAP(np) columns to the right, in a second
 * strip: a register's left neighbour is then the left lane's register whole (one shuffle, no byte
 * permute), where the split layout above pairs pixel j with pixel np + j of the same lane. */
#define STRIP_GAP(np) (OUT_LANES * (np))

/* The np bytes at x (np / 4 words into w[k0..]); zeros outside the picture (edge warps). */
static __device__ __forceinline__ void strip_load(rawrow &r, int k0, const uint8_t *row, int x, int width, const int np,
                                                  const bool edge)
{
    if (edge && (x < 0 || x >= width)) return; /* outside: row_clamp_columns fills it */
    if (np == 4) {
        r.w[k0] = *(const unsigned *)(row + x);
    } else {
        const uint2 v = *(const uint2 *)(row + x);
        r.w[k0] = v.x, r.w[k0 + 1] = v.y;
    }
}

static __device__ __forceinline__ rawrow raw_load(const uint8_t *in, int pitch, int x0, int y, int width, const int np,
                                                const bool edge, const bool strips)
{
    rawrow r = {{0, 0, 0, 0}};
    if (strips) { /* each strip's np bytes: words 0.. (low halves) and np / 4.. (high halves) */
        strip_load(r, 0, in + (size_t)y * pitch, x0, width, np, edge);
        strip_load(r, np / 4, in + (size_t)y * pitch, x0 + STRIP_GAP(np), width, np, edge);
        return r;
    }
    if (edge && (x0 < 0 || x0 >= width)) return r; /* outside: row_clamp_columns fills it */
    const uint8_t *src = in + (size_t)y * pitch + x0; /* x0 % (2 np) == 0, pitch % 64 == 0: aligned, in the row */
    if (np == 4) {
        const uint2 v = *(const uint2 *)src;
        r.w[0] = v.x, r.w[1] = v.y;
    } else {
        const uint4 v = *(const uint4 *)src;
        r.w[0] = v.x, r.w[1] = v.y, r.w[2] = v.z, r.w[3] = v.w;
    }
    return r;
}

/* Lesson (unpack, the budget rungs): the odd bytes of each word with one byte permute (O: pixels
 * 4k + 1 and 4k + 3 in the halves), the even ones as the word minus 256 O (an IMAD, not a mask on
 * the ALU), then each pair of halves with one byte permute: 1.5 ALU instructions a pair, not 2. */
static __device__ __forceinline__ prow unpack_dpx(const rawrow &raw, const int np)
{
    unsigned e[4], o[4];
#pragma unroll
    for (int k = 0; k < np / 2; k++) {
        o[k] = __byte_perm(raw.w[k], 0, 0x4341);
        e[k] = madd_fma(o[k], 0xffffff00u, raw.w[k]);
    }
    prow r;
#pragma unroll
    for (int j = 0; j < np; j++) {
        const unsigned *src = j & 1 ? o : e; /* pixel j: half (j & 2) / 2 of src[j / 4]; pixel np + j likewise */
        r.p[j] = __byte_perm(src[j / 4], src[(np + j) / 4], j & 2 ? 0x7632 : 0x5410);
    }
    return r;
}

/* Bytes j and np + j into the halves of p[j]: byte j % 4 of word j / 4 and of word (np + j) / 4. */
static __device__ __forceinline__ prow unpack(const rawrow &raw, const int np, const int first)
{
    if (first >= BK_GAUSS_X16) return unpack_dpx(raw, np);
    prow r;
#pragma unroll
    for (int j = 0; j < np; j++) {
        const unsigned sel = (unsigned)(j & 3) | (unsigned)(4 + (j & 3)) << 8; /* -> result bytes 0 and 2 */
        r.p[j] = __byte_perm(raw.w[j / 4], raw.w[(np + j) / 4], sel) & 0x00ff00ffu;
    }
    return r;
}

/* The words of a finished row (row_store; rolling_flat.cuh's flat_store): w[k] and w[np / 4 + k]
 * hold pixels 4k..4k+3 of the low and of the high halves. The budget rungs' last stages leave clean
 * halves (0..255, the rest zero): p + 256 q is then an IMAD that interleaves two of them, where
 * other rungs permute (all on the ALU). fused_lean's sobel leaves each result in byte 1 or 3 of its
 * half (junk in bytes 0 and 2): a byte permute of two registers gathers 4 results, and two more
 * make the words: 4 a 4 registers, where the clean path takes 2 + 2 and sobel_diag 4 more. */
static __device__ __forceinline__ void row_words(const prow &r, const int np, const int first, unsigned (&w)[4])
{
#pragma unroll
    for (int k = 0; k < np / 4; k++) { /* pixels 4k..4k+3 (low halves) and np + 4k.. (high halves) */
        if (lean_store(first)) {
            const unsigned a = __byte_perm(r.p[4 * k], r.p[4 * k + 1], 0x7351);     /* lo0 lo1 hi0 hi1 */
            const unsigned b = __byte_perm(r.p[4 * k + 2], r.p[4 * k + 3], 0x7351); /* lo2 lo3 hi2 hi3 */
            w[k] = __byte_perm(a, b, 0x5410);
            w[np / 4 + k] = __byte_perm(a, b, 0x7632);
            continue;
        }
        const bool clean = first >= BK_GAUSS_X16;
        const unsigned a = clean ? madd_fma(r.p[4 * k + 1], 256, r.p[4 * k])                /* lo0 lo1 hi0 hi1 */
                                 : __byte_perm(r.p[4 * k], r.p[4 * k + 1], 0x6240);
        const unsigned b = clean ? madd_fma(r.p[4 * k + 3], 256, r.p[4 * k + 2])            /* lo2 lo3 hi2 hi3 */
                                 : __byte_perm(r.p[4 * k + 2], r.p[4 * k + 3], 0x6240);
        w[k] = __byte_perm(a, b, 0x5410);
        w[np / 4 + k] = __byte_perm(a, b, 0x7632);
    }
}

/* Two strips' words: the low halves' np bytes at p, the high halves' STRIP_GAP further, each only
 * where the lane writes it (rolling_flat.cuh: predicated stores, no branch, for the halo lanes). */
static __device__ __forceinline__ void strips_store(uint8_t *p, const unsigned (&w)[4], const int np, bool low, bool high)
{
    if (np == 4) {
        if (low) *(unsigned *)p = w[0];
        if (high) *(unsigned *)(p + STRIP_GAP(np)) = w[1];
    } else {
        if (low) *(uint2 *)p = make_uint2(w[0], w[1]);
        if (high) *(uint2 *)(p + STRIP_GAP(np)) = make_uint2(w[2], w[3]);
    }
}

/* Into the padding of the row too (the pitch covers whole vectors): only x0 < width matters, which
 * the caller's writer says (bit 0; with two strips, bit 1: the second strip's x0 + STRIP_GAP). */
static __device__ __forceinline__ void row_store(uint8_t *out, int pitch, int x0, int y, const prow &r, const int np,
                                                 const int first, const int writer, const bool strips)
{
    if (!writer) return;
    uint8_t *dst = out + (size_t)y * pitch + x0;
    unsigned w[4];
    row_words(r, np, first, w);
    if (strips) {
        strips_store(dst, w, np, writer & 1, writer & 2);
    } else if (np == 4) {
        *(uint2 *)dst = make_uint2(w[0], w[1]);
    } else {
        *(uint4 *)dst = make_uint4(w[0], w[1], w[2], w[3]);
    }
}

/* The row moved right by one pixel (each pixel's left neighbour): p[j - 1], and for p[0] the left
 * lane's last pixel beside this lane's pixel np - 1. */
static __device__ __forceinline__ prow pairs_left(const prow &r, const int np, const bool strips)
{
    prow o;
    const unsigned from_left = __shfl_up_sync(FULL_MASK, r.p[np - 1], 1);
    o.p[0] = strips ? from_left                                   /* two strips: the left lane's p[np - 1] */
                    : __byte_perm(from_left, r.p[np - 1], 0x5432); /* (left lane's pixel 2np - 1, pixel np - 1) */
#pragma unroll
    for (int j = 1; j < np; j++) o.p[j] = r.p[j - 1];
    return o;
}

/* Each pixel's right neighbour: p[j + 1], and for p[np - 1] pixel np beside the right lane's pixel 0. */
static __device__ __forceinline__ prow pairs_right(const prow &r, const int np, const bool strips)
{
    prow o;
    const unsigned from_right = __shfl_down_sync(FULL_MASK, r.p[0], 1);
#pragma unroll
    for (int j = 0; j < np - 1; j++) o.p[j] = r.p[j + 1];
    o.p[np - 1] = strips ? from_right : __byte_perm(r.p[0], from_right, 0x5432); /* (pixel np, right lane's pixel 0) */
    return o;
}

static __device__ __forceinline__ unsigned half_of(unsigned pair, int h) { return h ? pair >> 16 : pair & 0xffffu; }

/* Clamp to edge, columns: every pixel left of x = 0 becomes pixel 0, every pixel right of
 * width - 1 becomes pixel width - 1 (taken from the lanes holding them). Called by the whole warp
 * (x0w: the warp's first column) when the warp's columns reach past an edge of the picture. */
static __device__ __forceinline__ prow row_clamp_columns(prow r, int x0, int x0w, int width, const int np,
                                                        const bool strips)
{
    /* a lane's span of columns, and the distance from its low half's pixel j to its high half's */
    const int span = strips ? np : 2 * np, gap = strips ? STRIP_GAP(np) : np;
    const int l0 = min(max(-x0w / span, 0), 31); /* the lane holding x = 0 (its pixel 0: low half of p[0]) */
    int xw = max(width - 1 - x0w, 0), hw = 0;   /* x = width - 1: column xw of the low halves, or of the high */
    if (strips && xw >= 32 * span) xw -= gap, hw = 1;
    xw = min(xw, 32 * span - 1);
    const int lw = xw / span, iw = xw % span; /* the lane and pixel holding x = width - 1 */
    const unsigned first = __shfl_sync(FULL_MASK, r.p[0], l0) & 0xffffu;
    unsigned pick = 0;
#pragma unroll
    for (int j = 0; j < np; j++)
        if (j == iw % np) pick = r.p[j];
    const unsigned last = half_of(__shfl_sync(FULL_MASK, pick, lw), strips ? hw : iw / np);
#pragma unroll
    for (int j = 0; j < np; j++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            const int x = x0 + j + h * gap;
            if (x >= 0 && x < width) continue;
            const unsigned v = x < 0 ? first : last;
            r.p[j] = h ? (r.p[j] & 0xffffu) | v << 16 : (r.p[j] & 0xffff0000u) | v;
        }
    return r;
}

static __device__ __forceinline__ unsigned med3(unsigned a, unsigned b, unsigned c)
{
    return __vmaxu2(__vminu2(a, b), __vminu2(__vmaxu2(a, b), c));
}

/* Lesson (gauss): separable - a column sum a + 2b + c, then left + 2 centre + right of the sums. */
static __device__ __forceinline__ prow stage_gauss(const prow &a, const prow &b, const prow &c, const int np)
{
    prow v, o;
#pragma unroll
    for (int j = 0; j < np; j++) v.p[j] = a.p[j] + (b.p[j] << 1) + c.p[j]; /* <= 1020 per half */
    const prow l = pairs_left(v, np, false), r = pairs_right(v, np, false);
#pragma unroll
    for (int j = 0; j < np; j++) o.p[j] = ((l.p[j] + (v.p[j] << 1) + r.p[j] + 0x00080008u) >> 4) & 0x0fff0fffu;
    return o;
}

/* Lesson (median): sort every column of three (min, median, max), then the median of the nine is
 * the median of (the largest of the three minima, the median of the medians, the smallest of the
 * maxima). A column's sort serves the three outputs that contain it: 14 instructions per pair of
 * pixels, where a sorting network per pixel needs 19 compare-exchanges per pixel. The column sort
 * is 4: min and max of three are one instruction each on sm_90 (VIMNMX3), and the middle one is
 * the sum minus both (no half can borrow from its neighbour: each difference is >= 0). */
static __device__ __forceinline__ prow stage_median(const prow &a, const prow &b, const prow &c, const int np)
{
    prow lo, mi, hi, o;
#pragma unroll
    for (int j = 0; j < np; j++) {
        lo.p[j] = __vminu2(__vminu2(a.p[j], b.p[j]), c.p[j]);
        hi.p[j] = __vmaxu2(__vmaxu2(a.p[j], b.p[j]), c.p[j]);
        mi.p[j] = a.p[j] + b.p[j] + c.p[j] - lo.p[j] - hi.p[j];
    }
    const prow lo_l = pairs_left(lo, np, false), lo_r = pairs_right(lo, np, false);
    const prow mi_l = pairs_left(mi, np, false), mi_r = pairs_right(mi, np, false);
    const prow hi_l = pairs_left(hi, np, false), hi_r = pairs_right(hi, np, false);
#pragma unroll
    for (int j = 0; j < np; j++) {
        const unsigned big_lo = __vmaxu2(__vmaxu2(lo_l.p[j], lo.p[j]), lo_r.p[j]);
        const unsigned mid_mi = med3(mi_l.p[j], mi.p[j], mi_r.p[j]);
        const unsigned small_hi = __vminu2(__vminu2(hi_l.p[j], hi.p[j]), hi_r.p[j]);
        o.p[j] = med3(big_lo, mid_mi, small_hi);
    }
    return o;
}

/* Lesson (sobel): gx and gy are signed; a bias keeps every 16-bit half positive so that no borrow
 * crosses into the neighbouring pixel: gx + 1024, gy + 1024 in 4..2044, |g| = max(g, 2048 - g) - 1024.
 * The result, min(|gx| + |gy|, 1023) >> 2, is left with two bits of the high half in byte 1: sobel is
 * always the last stage, and row_store takes bytes 0 and 2 only. */
static __device__ __forceinline__ prow stage_sobel(const prow &a, const prow &b, const prow &c, const int np)
{
    prow s, d, o;
#pragma unroll
    for (int j = 0; j < np; j++) {
        s.p[j] = a.p[j] + (b.p[j] << 1) + c.p[j]; /* column (1 2 1) */
        d.p[j] = c.p[j] + 0x01000100u - a.p[j];   /* bottom - top + 256 */
    }
    const prow s_l = pairs_left(s, np, false), s_r = pairs_right(s, np, false);
    const prow d_l = pairs_left(d, np, false), d_r = pairs_right(d, np, false);
#pragma unroll
    for (int j = 0; j < np; j++) {
        const unsigned gx = s_r.p[j] + 0x04000400u - s_l.p[j];
        const unsigned gy = d_l.p[j] + (d.p[j] << 1) + d_r.p[j];
        const unsigned ax = __vmaxu2(gx, 0x08000800u - gx) - 0x04000400u;
        const unsigned ay = __vmaxu2(gy, 0x08000800u - gy) - 0x04000400u;
        o.p[j] = __vminu2(ax + ay, 0x03ff03ffu) >> 2;
    }
    return o;
}

/* ---------------------------------------------------------------- the instruction budget (issue 20)
 * On sm_90 the ALU pipe issues half as many instructions a clock as the SM (64 of 128 thread-
 * instructions), and so does the FMA pipe's IMAD; the rungs above spend most of theirs on the ALU
 * (median: 4 VIMNMX per median of three). The rungs below: 3-input min / max (VIMNMX3.U16x2, DPX)
 * for every min or max of three, the middle of three as the sum minus both with the adds as IMADs
 * (add_fma), clean halves that IMADs pack, and fewer instructions a pixel where a pipe has room.
 * Below sm_90 the same code runs on __vminu2 / __vmaxu2. */
static __device__ __forceinline__ unsigned extreme3u2(unsigned a, unsigned b, unsigned c, const bool largest)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    return largest ? __vimax3_u16x2(a, b, c) : __vimin3_u16x2(a, b, c);
#else
    return largest ? __vmaxu2(__vmaxu2(a, b), c) : __vminu2(__vminu2(a, b), c);
#endif
}
static __device__ __forceinline__ unsigned min3u2(unsigned a, unsigned b, unsigned c) { return extreme3u2(a, b, c, false); }
static __device__ __forceinline__ unsigned max3u2(unsigned a, unsigned b, unsigned c) { return extreme3u2(a, b, c, true); }

/* The middle of three 16-bit halves: the sum minus the smallest and the largest, four IMADs. The sum
 * may carry out of a half on the way; the result of each half (0..65535) is exact, since 32-bit
 * adds are exact modulo 2^32. */
static __device__ __forceinline__ unsigned mid3u2(unsigned a, unsigned b, unsigned c)
{
    return sub_fma(sub_fma(add_fma(add_fma(a, b), c), min3u2(a, b, c)), max3u2(a, b, c));
}

/* Lesson (the middle of three by XOR, the fused_xor rung): lo, mid and hi are a, b and c in another
 * order, half by half, so a ^ b ^ c = lo ^ mid ^ hi and mid = a ^ b ^ c ^ lo ^ hi: two three-input
 * logic instructions (LOP3), bit for bit, with no carry between the halves to think about. mid3u2
 * spends one IADD3 and two IMADs (or four IMADs) on it: where the issue slots bind, not the ALU
 * pipe, two instructions are cheaper than three or four. */
static __device__ __forceinline__ unsigned mid3_xor(unsigned a, unsigned b, unsigned c, unsigned lo, unsigned hi)
{
    return a ^ b ^ c ^ lo ^ hi;
}
static __device__ __forceinline__ unsigned mid3u2_xor(unsigned a, unsigned b, unsigned c)
{
    return mid3_xor(a, b, c, min3u2(a, b, c), max3u2(a, b, c));
}
/* Which middles of three stage_median_dpx takes by XOR: none (sums), the columns', or all; and two
 * forms of labs/04_convolution/fusion/probes/flat_trim.cu: the columns' by XOR and the final one as an IADD3 and two IMADs,
 * or every middle by four IMADs (mid3u2). */
enum { MID_BY_SUM, MID_XOR_COLUMNS, MID_XOR_ALL, MID_XORC_FINAL_IADD, MID_BY_IMADS };

/* The median of the middles for outputs j and j + 1 at once: both windows hold columns j and j + 1
 * (m0, m1); sorted once (m <= M), med3(x, m, M) = max(m, min(x, M)) with x = column j - 1 (before)
 * for output j and column j + 2 (after) for output j + 1: 3 instructions an output, not 4. */
static __device__ __forceinline__ void middles_median2(unsigned before, unsigned m0, unsigned m1, unsigned after,
                                                       unsigned out[2])
{
    const unsigned m = __vminu2(m0, m1), M = __vmaxu2(m0, m1);
    out[0] = __vmaxu2(m, __vminu2(before, M));
    out[1] = __vmaxu2(m, __vminu2(after, M));
}

/* Lesson (median, the budget rung): the column sorts of stage_median, with min3 / max3 (one DPX
 * instruction each), the column's middle as its sum (one IADD3) minus both (two IMADs), the median
 * of the medians shared by two outputs, and the final median as mid3u2: per pair of pixels 9 min /
 * max and 1 IADD3 on the ALU and 6 IMADs, where stage_median puts 12 min / max and 2 adds on the
 * ALU. Any 16-bit values: the fused rung feeds it the gauss sums scaled by 16. */
static __device__ __forceinline__ prow stage_median_dpx(const prow &a, const prow &b, const prow &c, const int np,
                                                        const bool strips, const int mids = MID_BY_SUM)
{
    prow lo, mi, hi, o;
#pragma unroll
    for (int j = 0; j < np; j++) {
        lo.p[j] = min3u2(a.p[j], b.p[j], c.p[j]);
        hi.p[j] = max3u2(a.p[j], b.p[j], c.p[j]);
        if (mids == MID_BY_SUM) mi.p[j] = sub_fma(sub_fma(a.p[j] + b.p[j] + c.p[j], lo.p[j]), hi.p[j]); /* the sum: one IADD3 */
        else if (mids == MID_BY_IMADS) mi.p[j] = mid3u2(a.p[j], b.p[j], c.p[j]);
        else mi.p[j] = mid3_xor(a.p[j], b.p[j], c.p[j], lo.p[j], hi.p[j]);
    }
    const prow lo_l = pairs_left(lo, np, strips), lo_r = pairs_right(lo, np, strips);
    const prow mi_l = pairs_left(mi, np, strips), mi_r = pairs_right(mi, np, strips);
    const prow hi_l = pairs_left(hi, np, strips), hi_r = pairs_right(hi, np, strips);
#pragma unroll
    for (int j = 0; j < np; j += 2) {
        unsigned mid_mi[2];
        middles_median2(mi_l.p[j], mi.p[j], mi.p[j + 1], mi_r.p[j + 1], mid_mi);
#pragma unroll
        for (int i = 0; i < 2; i++) {
            const unsigned big_lo = max3u2(lo_l.p[j + i], lo.p[j + i], lo_r.p[j + i]);
            const unsigned small_hi = min3u2(hi_l.p[j + i], hi.p[j + i], hi_r.p[j + i]);
            const unsigned x = big_lo, y = mid_mi[i], z = small_hi;
            if (mids == MID_XOR_ALL) o.p[j + i] = mid3u2_xor(x, y, z);
            else if (mids == MID_XORC_FINAL_IADD) o.p[j + i] = sub_fma(sub_fma(x + y + z, min3u2(x, y, z)), max3u2(x, y, z));
            else o.p[j + i] = mid3u2(x, y, z);
        }
    }
    return o;
}

/* Lesson (gauss, scaled): the sum 16 (l + 2 v + r) + 128 <= 65408 is kept whole in its 16 bits, and
 * the gauss pixel, (sum + 8) >> 4, is its high byte. The median commutes with that floor (a median
 * of nine is one of the nine, and x -> x >> 8 keeps their order), so the median runs on the sums
 * and one byte permute afterwards (stage_median_x16) replaces a shift and a mask per pair here.
 * bias: the + 128 (labs/04_convolution/fusion/probes/flat_trim.cu passes it in a vector register). */
static __device__ __forceinline__ prow stage_gauss_x16(const prow &a, const prow &b, const prow &c, const int np,
                                                       const bool strips, const unsigned bias = 0x00800080u)
{
    prow v, o;
#pragma unroll
    for (int j = 0; j < np; j++) v.p[j] = madd_fma(b.p[j], 2, add_fma(a.p[j], c.p[j])); /* <= 1020 per half */
    const prow l = pairs_left(v, np, strips), r = pairs_right(v, np, strips);
#pragma unroll
    for (int j = 0; j < np; j++) o.p[j] = madd_fma(v.p[j], 32, madd_fma(add_fma(l.p[j], r.p[j]), 16, bias));
    return o;
}

/* The median of the scaled gauss sums, and their high bytes: bytes 1 and 3 into bytes 0 and 2. */
static __device__ __forceinline__ prow stage_median_x16(const prow &a, const prow &b, const prow &c, const int np,
                                                        const bool strips, const int mids = MID_BY_SUM)
{
    prow o = stage_median_dpx(a, b, c, np, strips, mids);
#pragma unroll
    for (int j = 0; j < np; j++) o.p[j] = __byte_perm(o.p[j], 0, 0x4341);
    return o;
}

/* Lesson (sobel, diagonal): |gx| + |gy| = max(|gx + gy|, |gx - gy|), and with x1 = b + c, x2 = a + b
 * and d = c - a per column (rows a, b, c top to bottom), gx + gy = 2 (x1 right - x2 left + d) and
 * gx - gy = 2 (x2 right - x1 left - d): the magnitude is max(|P|, |Q|) >> 1 of two diagonal sums.
 * With dd = 1024 + d and ee = 1024 - d every half stays positive: A, B = 1024 +- P and C, D =
 * 1024 +- Q are one three-operand add each, and m = min(max(A, B, C, D), 1535) is 1024 + the
 * clamped 2 x result: 128 (m - 1024) = 128 m - 2^17 (an IMAD; no half borrows, 2^17 x 2^16 is 0
 * modulo 2^32) holds it in bytes 1 and 3, which one byte permute moves to clean halves. */
static __device__ __forceinline__ prow stage_sobel_diag(const prow &a, const prow &b, const prow &c, const int np,
                                                        const bool strips, const bool lean = false)
{
    prow x1, x2, dd, ee, o;
#pragma unroll
    for (int j = 0; j < np; j++) {
        x1.p[j] = add_fma(b.p[j], c.p[j]); /* the column's adds on the FMA pipe, the ALU's share below */
        x2.p[j] = add_fma(a.p[j], b.p[j]);
        dd.p[j] = c.p[j] + 0x04000400u - a.p[j]; /* 769..1279 per half */
        if (!lean) ee.p[j] = sub_fma(0x08000800u, dd.p[j]);
    }
    const prow x1_l = pairs_left(x1, np, strips), x1_r = pairs_right(x1, np, strips);
    const prow x2_l = pairs_left(x2, np, strips), x2_r = pairs_right(x2, np, strips);
#pragma unroll
    for (int j = 0; j < np; j++) {
        const unsigned pa = x1_r.p[j] + dd.p[j] - x2_l.p[j], qd = x1_l.p[j] + dd.p[j] - x2_r.p[j];
        /* B = 2048 - A and C = 2048 - D: lean takes them so (one IMAD each, no ee), where sobel_diag
         * spends an IMAD on ee and two IADD3 on the ALU */
        const unsigned pb = lean ? sub_fma(0x08000800u, pa) : x2_l.p[j] + ee.p[j] - x1_r.p[j];
        const unsigned qc = lean ? sub_fma(0x08000800u, qd) : x2_r.p[j] + ee.p[j] - x1_l.p[j];
        const unsigned m = __vminu2(__vmaxu2(max3u2(pa, pb, qc), qd), 0x05ff05ffu); /* 1024 + min(max, 511) */
        o.p[j] = madd_fma(m, 128, 0xfffe0000u); /* 128 (m - 1024): the result in bytes 1, 3 */
        if (!lean) o.p[j] = __byte_perm(o.p[j], 0, 0x4341);
    }
    return o;
}

#include "rolling_sobel_half.cuh" /* stage_sobel_half and its pieces */

static __device__ __forceinline__ void push(prow (&w)[3], const prow &r)
{
    w[0] = w[1];
    w[1] = w[2];
    w[2] = r;
}

/* How many times a finished row enters the next stage's window: rows 0 and height - 1 twice,
 * as row -1 and row height (clamp to edge, rows); a picture one row high: three times. */
static __device__ __forceinline__ int copies(int y, int height) { return 1 + (y == 0) + (y == height - 1); }

/* Stage s on a window of three rows kept as a ring: after the window's push number n, its newest
 * row is in slot n % 3 and its oldest in slot (n + 1) % 3. With n known at compile time the ring
 * turns by renaming registers, not by moving them. A window kept in order (push() above: oldest
 * in slot 0) is the ring at n = 2. */
static __device__ __forceinline__ prow stage_on_ring(const int s, const prow (&w)[3], const int n, const int np,
                                                    const bool strips)
{
    const prow &a = w[(n + 1) % 3], &b = w[(n + 2) % 3], &c = w[n % 3];
    if (s == BK_GAUSS) return stage_gauss(a, b, c, np);
    if (s == BK_MEDIAN) return stage_median(a, b, c, np);
    if (s == BK_SOBEL) return stage_sobel(a, b, c, np);
    if (s == BK_GAUSS_X16 || s == BK_GAUSS_LEAN || s == BK_GAUSS_HALF || s == BK_GAUSS_XOR || s == BK_GAUSS_XORC ||
        s == BK_GAUSS_FLAT || s == BK_GAUSS_ABS)
        return stage_gauss_x16(a, b, c, np, strips);
    if (s == BK_MEDIAN_X16 || s == BK_MEDIAN_LEAN || s == BK_MEDIAN_HALF) return stage_median_x16(a, b, c, np, strips);
    if (s == BK_MEDIAN_XOR || s == BK_MEDIAN_XORC || s == BK_MEDIAN_FLAT || s == BK_MEDIAN_ABS)
        return stage_median_x16(a, b, c, np, strips, s == BK_MEDIAN_XOR ? MID_XOR_ALL : MID_XOR_COLUMNS);
    if (s == BK_SOBEL_HALF || s == BK_SOBEL_XOR || s == BK_SOBEL_XORC || s == BK_SOBEL_FLAT) return stage_sobel_half(a, b, c, np, strips);
    if (s == BK_SOBEL_DIAG || s == BK_SOBEL_LEAN) return stage_sobel_diag(a, b, c, np, strips, s == BK_SOBEL_LEAN);
    if (s == BK_SOBEL_ABS) return stage_sobel_abs(a, b, c, np, strips);
    return stage_median_dpx(a, b, c, np, strips);
}

/* The stages of interior_row on its unpacked input row r (rolling_bulk.cu's ring rows too). */
static __device__ __forceinline__ void interior_stages(const bk_args &a, const int first, const int nstages, const int np,
                                                       const bool strips, const int m, const int it, prow (&w)[3][3],
                                                       prow r, int x0, int x0w, int y0, bool edge, int writer)
{
    if (edge) r = row_clamp_columns(r, x0, x0w, a.width, np, strips);
    w[0][m % 3] = r;
#pragma unroll
    for (int k = 0; k < nstages; k++) {
        const int n = m - 2 * k; /* this row's push number in stage k's window */
        if (n < 2) return;       /* the window is not full yet (compile time) */
        prow o = stage_on_ring(first + k, w[k], n, np, strips);
        if (k == nstages - 1) {
            row_store(a.out, a.pitch, x0, y0 + m + it - 2 * nstages, o, np, first, writer, strips);
        } else {
            if (edge) o = row_clamp_columns(o, x0, x0w, a.width, np, strips);
            w[k + 1][(n - 2) % 3] = o;
        }
    }
}

/* One input row m of an interior strip (rows y0 - nstages .. y0 + rows + nstages - 1, all inside
 * the picture: no row clamping). m is a compile-time constant (0..2 nstages - 1 while the windows
 * fill, then 2 nstages + 0, 1, 2), `it` the run-time multiple of 3 added to it in the steady loop.
 * Row m enters stage 0's window as its push m; stage k's window gets push m - 2k, and once full
 * (push >= 2) the stage computes a row and pushes it into stage k + 1's window; the last stage's
 * row is output row y0 + m + it - 2 nstages. */
static __device__ __forceinline__ void interior_row(const bk_args &a, const int first, const int nstages, const int np,
                                                    const bool strips, const int depth, const int m, const int it,
                                                    prow (&w)[3][3], rawrow (&ahead)[AHEAD_MAX], int x0, int x0w, int y0,
                                                    int ylast, bool edge, int writer)
{
    const prow r = unpack(ahead[m % depth], np, first);
    ahead[m % depth] = raw_load(a.in, a.pitch, x0, min(y0 - nstages + m + it + depth, ylast), a.width, np, edge, strips);
    interior_stages(a, first, nstages, np, strips, m, it, w, r, x0, x0w, y0, edge, writer);
}

/* Lesson (the rolling kernels, interior strips: the fast path of nearly every warp): the windows
 * fill during the first 2 nstages rows, then every input row yields one output row. The loop is
 * unrolled by `depth` (3 or 6 rows loaded ahead, AHEAD for all but the sweep of rolling_budget.cu),
 * a multiple of 3, the period of the windows, so that nothing is copied between registers and every
 * shuffle runs with the whole warp. */
static __device__ __forceinline__ void rolling_interior(const bk_args &a, const int first, const int nstages, const int np,
                                                        const bool strips, const int depth, const int rows, int x0,
                                                        int x0w, int y0, bool edge, int writer)
{
    prow w[3][3];
    rawrow ahead[AHEAD_MAX];
    const int ylast = y0 + rows + nstages - 1;
#pragma unroll
    for (int i = 0; i < depth; i++) ahead[i] = raw_load(a.in, a.pitch, x0, y0 - nstages + i, a.width, np, edge, strips);
#pragma unroll
    for (int m = 0; m < 2 * nstages; m++)
        interior_row(a, first, nstages, np, strips, depth, m, 0, w, ahead, x0, x0w, y0, ylast, edge, writer);
#pragma unroll 1
    for (int it = 0; it < rows; it += depth)
#pragma unroll
        for (int u = 0; u < depth; u++)
            interior_row(a, first, nstages, np, strips, depth, 2 * nstages + u, it, w, ahead, x0, x0w, y0, ylast, edge,
                         writer);
}

/* The warp's strip and the lane's columns: 2 np from x0 (split), or np from x0 and np from
 * x0 + STRIP_GAP (strips); the warp's output columns are 30 x 2 np wide either way. writer: bit 0
 * the lane writes its (low halves') columns, bit 1 its high halves' (0 for the halo lanes 0, 31). */
typedef struct {
    int x0w, x0, y0, writer;
    bool edge; /* the warp's columns reach past an edge of the picture */
} strip_at;
static __device__ __forceinline__ strip_at strip_of(const bk_args &a, const int np, const int rows, const bool strips,
                                                   const uint2 blk = make_uint2(blockIdx.x, blockIdx.y))
{
    const int span = strips ? np : 2 * np, lane = threadIdx.x, reach = strips ? STRIP_GAP(np) + 32 * np : 32 * span;
    strip_at g;
    g.x0w = blk.x * (OUT_LANES * 2 * np) - span, g.x0 = g.x0w + lane * span;
    g.y0 = blk.y * rows;
    g.edge = g.x0w < 0 || g.x0w + reach > a.width;
    const bool out_lane = lane >= 1 && lane <= OUT_LANES;
    g.writer = !out_lane ? 0 : !strips ? (g.x0 < a.width ? 3 : 0)
                                       : (g.x0 < a.width) | (g.x0 + STRIP_GAP(np) < a.width) << 1;
    return g;
}

/* Lesson (the rolling kernels: one stage, or nstages fused): a warp owns a strip of `rows` rows
 * and 30 lanes x 2 np columns; it walks down the strip one input row at a time. Each stage keeps
 * the last three rows of its input in registers (a window); a new row completes the window, the
 * stage's row is computed and pushed into the next stage's window. Only the first stage reads
 * memory and only the last one writes it: the intermediate rows never leave the registers. The
 * enlarged halo: the strip reads nstages more rows above and below, and lanes 0 and 31 carry the
 * columns left and right of the strip (each stage's shuffles spoil one more of their pixels, and
 * 2 np >= 3 stay right). Picture edges: row and column clamping repeated after every stage (so an
 * intermediate pixel outside the picture is the intermediate at the clamped position). */
static __device__ __forceinline__ void rolling_body(bk_args a, const int first, const int nstages, const int np,
                                                    const int rows, const bool strips, const int depth = AHEAD,
                                                    const uint2 blk = make_uint2(blockIdx.x, blockIdx.y))
{
    const strip_at g = strip_of(a, np, rows, strips, blk); /* blk: the block's column and strip (blockIdx) */
    const int x0w = g.x0w, x0 = g.x0, y0 = g.y0, writer = g.writer;
    const bool edge = g.edge;
    if (y0 >= a.height) return; /* the whole warp */
    const int ybeg = max(y0 - nstages, 0), ylast = min(y0 + rows - 1 + nstages, a.height - 1);
    const int yend = min(y0 + rows, a.height);
    if (y0 - nstages >= 0 && y0 + rows + nstages <= a.height) {
        if (edge) rolling_interior(a, first, nstages, np, strips, depth, rows, x0, x0w, y0, true, writer);
        else rolling_interior(a, first, nstages, np, strips, depth, rows, x0, x0w, y0, false, writer); /* no clamping code */
        return;
    }
    /* Strips at the top or bottom of the picture: rows 0 and height - 1 enter a window twice. */
    prow w0[3], w1[3], w2[3];
    int n0 = 0, n1 = 0, n2 = 0;
    /* the next row each stage computes: the strip's top row - nstages + stage + 1, or 0 at the top */
    int next0 = ybeg == 0 ? 0 : ybeg + 1, next1 = ybeg == 0 ? 0 : ybeg + 2, next2 = ybeg == 0 ? 0 : ybeg + 3;
    /* Loads run PREFETCH rows ahead of the arithmetic: a warp that waited for each row before
     * computing it would keep one load in flight, far too few bytes to cover DRAM's latency. */
    rawrow ahead[PREFETCH];
#pragma unroll
    for (int i = 0; i < PREFETCH; i++) ahead[i] = raw_load(a.in, a.pitch, x0, min(ybeg + i, ylast), a.width, np, true, strips);
    for (int y = ybeg; y <= ylast; y++) {
        prow r = unpack(ahead[0], np, first);
#pragma unroll
        for (int i = 0; i < PREFETCH - 1; i++) ahead[i] = ahead[i + 1];
        ahead[PREFETCH - 1] = raw_load(a.in, a.pitch, x0, min(y + PREFETCH, ylast), a.width, np, true, strips);
        if (edge) r = row_clamp_columns(r, x0, x0w, a.width, np, strips);
        for (int c0 = copies(y, a.height); c0 > 0; c0--) {
            push(w0, r);
            if (++n0 < 3) continue;
            prow r1 = stage_on_ring(first, w0, 2, np, strips);
            if (edge) r1 = row_clamp_columns(r1, x0, x0w, a.width, np, strips);
            const int y1 = next0++;
            if (nstages == 1) {
                if (y1 >= y0 && y1 < yend) row_store(a.out, a.pitch, x0, y1, r1, np, first, writer, strips);
                continue;
            }
            for (int c1 = copies(y1, a.height); c1 > 0; c1--) {
                push(w1, r1);
                if (++n1 < 3) continue;
                prow r2 = stage_on_ring(first + 1, w1, 2, np, strips);
                if (edge) r2 = row_clamp_columns(r2, x0, x0w, a.width, np, strips);
                const int y2 = next1++;
                if (nstages == 2) {
                    if (y2 >= y0 && y2 < yend) row_store(a.out, a.pitch, x0, y2, r2, np, first, writer, strips);
                    continue;
                }
                for (int c2 = copies(y2, a.height); c2 > 0; c2--) {
                    push(w2, r2);
                    if (++n2 < 3) continue;
                    const prow r3 = stage_on_ring(first + 2, w2, 2, np, strips);
                    const int y3 = next2++;
                    if (y3 >= y0 && y3 < yend) row_store(a.out, a.pitch, x0, y3, r3, np, first, writer, strips);
                }
            }
        }
    }
}

static inline dim3 rolling_grid(const bk_args *a, int np, int rows)
{
    const int strips = (a->height + rows - 1) / rows;
    return dim3((unsigned)((a->width + OUT_LANES * 2 * np - 1) / (OUT_LANES * 2 * np)), (unsigned)strips);
}

#define BK_BOUNDS __launch_bounds__(BK_THREADS)
#endif
