/* pixel.cu - Lab 04, part 3: the pixel-wise pipeline's kernels (each stage alone, and the five
 * stages fused into one kernel). fusion.h defines what every kernel computes; fusion_reference.c is
 * the definition in C. Every kernel reproduces the reference's bits: the arithmetic is integer, and
 * >> on a signed int is arithmetic (a floor) on the GPU.
 *
 * The lesson: between two kernels every pixel goes to DRAM and back; a fused kernel keeps the
 * intermediate pixels in registers. For pixel-wise stages that is all there is to it. */
#include "fusion.h"
#include "gl_check.h"

#define PX_BLOCK 256
#define PX_VECS 4      /* 16-byte vectors (4 pixels) per thread of the pixel-wise kernels */

/* Four products of an unsigned pixel byte and a signed weight byte, summed, plus c: one dp4a
 * instruction (PTX dp4a.u32.s32; the __dp4a intrinsic has no mixed-sign form). */
static __device__ __forceinline__ int dot4(uint32_t px, int weights, int c)
{
    int d;
    asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(px), "r"(weights), "r"(c));
    return d;
}

/* Y, U, V of an RGBA pixel: the seed's weights as byte dot products (dp4a: four byte products and
 * a sum in one instruction). 129 G and the weights' range (-128..127): 129 G = G + 128 G, the 128 G
 * added as (p & 0xff00) >> 1. */
static __device__ __forceinline__ uint32_t rgb_to_yuv(uint32_t p)
{
    const int g128 = (int)((p & 0xff00u) >> 1);
    const int y = ((dot4(p, 0x00190142, g128) + 128) >> 8) + 16;     /* 66 R + 129 G + 25 B */
    const int u = ((dot4(p, 0x0070b6da, 128)) >> 8) + 128;           /* -38 R - 74 G + 112 B */
    const int v = ((dot4(p, 0x00eea270, 128)) >> 8) + 128;           /* 112 R - 94 G - 18 B */
    return (uint32_t)y | (uint32_t)u << 8 | (uint32_t)v << 16 | (p & 0xff000000u);
}

static __device__ __forceinline__ uint32_t gamma_y(uint32_t p, const uint8_t *table)
{
    return (p & 0xffffff00u) | table[p & 0xffu];
}

static __device__ __forceinline__ int clamp255(int v) { return min(max(v, 0), 255); }

static __device__ __forceinline__ uint32_t chroma(uint32_t p)
{
    const int u = clamp255(128 + ((5 * ((int)(p >> 8 & 0xffu) - 128)) >> 2));
    const int v = clamp255(128 + ((5 * ((int)(p >> 16 & 0xffu) - 128)) >> 2));
    return (p & 0xff0000ffu) | (uint32_t)u << 8 | (uint32_t)v << 16;
}

static __device__ __forceinline__ uint32_t yuv_to_rgb(uint32_t p)
{
    const int c = 298 * ((int)(p & 0xffu) - 16) + 128, d = (int)(p >> 8 & 0xffu) - 128, e = (int)(p >> 16 & 0xffu) - 128;
    const int r = clamp255((c + 409 * e) >> 8), g = clamp255((c - 100 * d - 208 * e) >> 8), b = clamp255((c + 516 * d) >> 8);
    return (uint32_t)r | (uint32_t)g << 8 | (uint32_t)b << 16 | (p & 0xff000000u);
}

/* 77 R + 150 G + 29 B: 150 G = 22 G + 128 G, as in rgb_to_yuv. */
static __device__ __forceinline__ uint32_t rgb_to_gray(uint32_t p)
{
    return (uint32_t)(dot4(p, 0x001d164d, (int)((p & 0xff00u) >> 1) + 128) >> 8);
}

static __device__ __forceinline__ uint32_t px_apply(const int s, uint32_t p, const uint8_t *table)
{
    switch (s) {
    case PX_RGB_TO_YUV: return rgb_to_yuv(p);
    case PX_GAMMA: return gamma_y(p, table);
    case PX_CHROMA: return chroma(p);
    case PX_YUV_TO_RGB: return yuv_to_rgb(p);
    default: return rgb_to_gray(p);
    }
}

/* Lesson (the fused pixel pipeline): the same five stages with the same integer steps, but the
 * pixel is not packed back into bytes between them: Y, U - 128 and V - 128 stay separate ints in
 * registers, and the gamma, chroma and yuv_to_rgb clamps act on them directly. */
static __device__ __forceinline__ uint32_t px_fused_gray(uint32_t p, const uint8_t *table)
{
    const int g128 = (int)((p & 0xff00u) >> 1);
    const int y = table[(dot4(p, 0x00190142, g128 + 128) >> 8) + 16];           /* Y, then gamma */
    const int d = min(max((5 * (dot4(p, 0x0070b6da, 128) >> 8)) >> 2, -128), 127); /* U - 128, chroma */
    const int e = min(max((5 * (dot4(p, 0x00eea270, 128) >> 8)) >> 2, -128), 127); /* V - 128, chroma */
    const int c = 298 * (y - 16) + 128;
    const int r = clamp255((c + 409 * e) >> 8), g = clamp255((c - 100 * d - 208 * e) >> 8), b = clamp255((c + 516 * d) >> 8);
    return (uint32_t)(77 * r + 150 * g + 29 * b + 128) >> 8;
}

/* clamp(v + k, 0, 255): one DPX instruction on sm_90 (VIADDMNMX.S32.RELU: max(min(v + k, 255), 0)),
 * an add and two min / max below. */
static __device__ __forceinline__ int clamp255_add(int v, int k)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    return __viaddmin_s32_relu(v, k, 255);
#else
    return clamp255(v + k);
#endif
}

/* Lesson (the fused pixel pipeline within the instruction budget, issue 20): px_fused_gray's five
 * clamps a pixel cost two ALU instructions each (10 VIMNMX), and one add-min-relu (DPX) does an
 * add and a clamp to 0..255. The chroma clamps to -128..127 become clamps of D + 128 and E + 128
 * (the add in the DPX instruction); the yuv_to_rgb sums take D' = D + 128 and E' = E + 128, and
 * their constants leave the sums where they are multiples of 256 (added after the shift, in the
 * DPX instruction): G = C - 100 D' - 208 E' + 154 * 256, B = C + 516 D' - 258 * 256, and R = C +
 * 128 + 409 E' - 205 * 256 (C = 298 (Y - 16) + 128 as before). ptxas splits each into a shift-add
 * (LEA.HI) and a VIMNMX.RELU, which is still 2 instructions where px_fused_gray spends 3.
 * Static SASS count (CUDA 13.0, sm_90; counted, not timed), from the last 16-byte load to the
 * first vector's store (4 pixels): 172 instructions, ALU 90 (22.5 a pixel), FMA 63, where
 * px_fused_gray takes 185, ALU 101 (25.3). The budget at 100% of memcpy (5 bytes a pixel): H100
 * 55.9 in all and 27.9 on the ALU, H200 39.8 and 19.9: on the H200 the ALU still binds. */
static __device__ __forceinline__ uint32_t px_fused_gray_dpx(uint32_t p, const uint8_t *table)
{
    const int g128 = (int)((p & 0xff00u) >> 1);
    const int y = table[(dot4(p, 0x00190142, g128 + 128) >> 8) + 16];            /* Y, then gamma */
    const int d = clamp255_add((5 * (dot4(p, 0x0070b6da, 128) >> 8)) >> 2, 128); /* U after chroma */
    const int e = clamp255_add((5 * (dot4(p, 0x00eea270, 128) >> 8)) >> 2, 128); /* V after chroma */
    const int c = 298 * y - 4640;
    const int r = clamp255_add((c + 128 + 409 * e) >> 8, -205);
    const int g = clamp255_add((c - 100 * d - 208 * e) >> 8, 154);
    const int b = clamp255_add((c + 516 * d) >> 8, -258);
    return (uint32_t)(77 * r + 150 * g + 29 * b + 128) >> 8;
}

/* The gamma table, 256 bytes, copied into shared memory by the block's first 64 threads. */
static __device__ __forceinline__ void load_table(uint8_t *table, const uint8_t *g)
{
    if (threadIdx.x < 64) ((uint32_t *)table)[threadIdx.x] = ((const uint32_t *)g)[threadIdx.x];
    __syncthreads();
}

/* Pixels i..i + 3 (i a multiple of 4): one 16-byte load, or the pixels left and zeros. */
static __device__ __forceinline__ uint4 load_quad(const px_args *a, size_t i)
{
    if (i + 4 <= a->n) return ((const uint4 *)a->in)[i / 4];
    uint32_t p[4];
    for (int k = 0; k < 4; k++) p[k] = i + k < a->n ? a->in[i + k] : 0;
    return make_uint4(p[0], p[1], p[2], p[3]);
}

/* Four gray bytes (byte k: pixel i + k) stored: one 4-byte store, or the bytes of the pixels left. */
static __device__ __forceinline__ void store_gray_quad(const px_args *a, size_t i, uint32_t quad)
{
    uint8_t *o = (uint8_t *)a->out + i;
    if (i + 4 <= a->n) *(uint32_t *)o = quad;
    else
        for (int k = 0; i + k < a->n; k++) o[k] = (uint8_t)(quad >> 8 * k);
}

/* ---------------------------------------------------------------- the pair rungs (issue 20, H200) */

/* Two unsigned 16-bit halves times two signed weight bytes (bytes 0, 1 of w), plus c: one dp2a. */
static __device__ __forceinline__ uint32_t dot2_signed(uint32_t halves, uint32_t w, uint32_t c)
{
    uint32_t d;
    asm("dp2a.lo.u32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(halves), "r"(w), "r"(c));
    return d;
}

/* a b + c, as written (one IMAD): nvcc would distribute a product over a sum. */
static __device__ __forceinline__ uint32_t mad_u32(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t d;
    asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

typedef struct {
    uint32_t r, g, b; /* yuv_to_rgb's sums: the channel (before its clamp) in bits 8..23 */
} px_sums;

/* One pixel's R, G, B sums, one 32-bit instruction per step where px_fused_gray_dpx takes two or
 * three: Y by an unsigned dp4a (129 fits a u8 weight); U + 128 and V + 128 as bytes 1 of two dp4a
 * sums (+ 32768 folded into the addend) and one PRMT puts them side by side as 16-bit lanes; chroma
 * for both in the x4 domain: clamp(5U - 128, 0, 1023) = 4 D' + f (D' = D + 128) by one 16x2
 * add-min-relu, a mask drops f; G and B sums as dp2a on {4 D', 4 E'} (weights -25, -52 and 129),
 * R's by an IMAD of E' + 128 (a shift-add: 409 (E' + 128) has the residue mod 256 that G's and B's
 * constant has, so one c serves all three; the multiples of 256 left over go into the clamps). */
static __device__ __forceinline__ px_sums pair_sums(uint32_t p, const uint8_t *table)
{
    const uint32_t ys = __dp4a(p, 0x00198142u, 128u);                     /* 66 R + 129 G + 25 B + 128 */
    const uint32_t y = table[(ys >> 8) + 16];                            /* Y, then gamma */
    const uint32_t us = (uint32_t)dot4(p, 0x0070b6da, 128 + 32768);      /* U + 128 in byte 1 */
    const uint32_t vs = (uint32_t)dot4(p, 0x00eea270, 128 + 32768);      /* V + 128 in byte 1 */
    const uint32_t de4 = __viaddmin_s16x2_relu(__byte_perm(us, vs, 0x6521) * 5u, 0xff80ff80u, 0x03ff03ffu);
    const uint32_t de = de4 & 0x03fc03fcu;                               /* {4 D', 4 E'}: chroma done */
    const uint32_t c = 298u * y + 34784u;                                /* G's constant exactly */
    px_sums s = {mad_u32((de4 >> 18) + 128u, 409u, c), dot2_signed(de, 0xcce7u, c), __dp2a_lo(de, 0x81u, c)};
    return s;
}

#define PAIR_R_FIX 0xfdcdfdcdu /* -563 in both lanes: R's sum is 563 x 256 over the reference's */
#define PAIR_B_FIX 0xfe64fe64u /* -412: B's */

/* One channel of two pixels: bits 8..23 of each sum as a 16-bit lane (floor(sum / 256), one PRMT),
 * plus fix, clamped to 0..255 (one 16x2 add-min-relu on sm_90, emulated by CUDA before). */
static __device__ __forceinline__ uint32_t clamp_pair(uint32_t s0, uint32_t s1, uint32_t fix)
{
    return __viaddmin_s16x2_relu(__byte_perm(s0, s1, 0x6521), fix, 0x00ff00ffu);
}

/* Two pixels' gray, in bytes 1 and 3: 77 R + 150 G + 29 B + 128 < 65536 in each lane, so three
 * 32-bit IMADs weigh both pixels' channels at once. */
static __device__ __forceinline__ uint32_t pair_gray(px_sums a, px_sums b)
{
    const uint32_t r = clamp_pair(a.r, b.r, PAIR_R_FIX), g = clamp_pair(a.g, b.g, 0), bl = clamp_pair(a.b, b.b, PAIR_B_FIX);
    return mad_u32(bl, 29u, mad_u32(g, 150u, mad_u32(r, 77u, 0x00800080u)));
}

static __device__ __forceinline__ uint32_t quad_gray(uint4 x, const uint8_t *table)
{
    const px_sums s0 = pair_sums(x.x, table), s1 = pair_sums(x.y, table), s2 = pair_sums(x.z, table),
                  s3 = pair_sums(x.w, table);
    return __byte_perm(pair_gray(s0, s1), pair_gray(s2, s3), 0x7531);
}

#define PX_PAIR_MAX_VECS 8

/* Lesson (the pair rungs, issue 20): the same five stages in about 21 instructions a pixel where
 * fused_dpx spends about 35 (static sm_90 counts, CUDA 13.0, estimated from the cubin without a
 * disassembler): two pixels share every clamp and the gray sum (16-bit lanes),
 * chroma works on U and V together, and a block wholly inside the picture loads and stores with no
 * bounds checks. On the H100 fused_dpx already fits its budget (99% of memcpy); the H200 moves 1.41x
 * the bytes with the same 132 SMs and clock, so there the instruction count sets the time.
 * vecs: 16-byte vectors a thread (4: fused_pair, 8: fused_pair32, fewer address instructions). */
static __device__ __forceinline__ void px_pair_body(px_args a, const int vecs)
{
    __shared__ uint8_t table[256];
    load_table(table, a.gamma);
    const size_t first = (size_t)blockIdx.x * PX_BLOCK * vecs + threadIdx.x; /* the thread's first vector */
    if ((size_t)(blockIdx.x + 1) * PX_BLOCK * vecs * 4 <= a.n) { /* the whole block inside the picture */
        const uint4 *in = (const uint4 *)a.in + first;
        uint32_t *out = (uint32_t *)a.out + first;
        uint4 x[PX_PAIR_MAX_VECS];
#pragma unroll
        for (int v = 0; v < vecs; v++) x[v] = in[v * PX_BLOCK];
#pragma unroll
        for (int v = 0; v < vecs; v++) out[v * PX_BLOCK] = quad_gray(x[v], table);
    } else {
        for (int v = 0; v < vecs; v++) {
            const size_t i = 4 * (first + (size_t)v * PX_BLOCK);
            if (i < a.n) store_gray_quad(&a, i, quad_gray(load_quad(&a, i), table));
        }
    }
}

/* Lesson (one pixel-wise stage, and the fused pipeline): each thread reads 16 pixels in four
 * 16-byte loads (all four issued before any arithmetic), applies stages first..last in registers,
 * and writes them back (4 bytes per 4 pixels once they are gray). One stage per kernel: every
 * intermediate picture goes to DRAM and back; fused (px_fused_gray): only the input and the final
 * gray picture touch DRAM. */
static __device__ __forceinline__ void px_body(px_args a, const int first, const int last, const bool dpx)
{
    __shared__ uint8_t table[256];
    if (first <= PX_GAMMA && last >= PX_GAMMA) load_table(table, a.gamma);
    uint32_t p[PX_VECS][4];
    size_t at[PX_VECS];
#pragma unroll
    for (int v = 0; v < PX_VECS; v++) { /* vector v of the thread: consecutive threads, consecutive vectors */
        at[v] = 4 * ((size_t)blockIdx.x * PX_BLOCK * PX_VECS + (size_t)v * PX_BLOCK + threadIdx.x);
        const uint4 x = load_quad(&a, at[v]);
        p[v][0] = x.x, p[v][1] = x.y, p[v][2] = x.z, p[v][3] = x.w;
    }
#pragma unroll
    for (int v = 0; v < PX_VECS; v++) {
        if (first == PX_RGB_TO_YUV && last == PX_RGB_TO_GRAY) {
#pragma unroll
            for (int k = 0; k < 4; k++) p[v][k] = dpx ? px_fused_gray_dpx(p[v][k], table) : px_fused_gray(p[v][k], table);
        } else {
#pragma unroll
            for (int s = first; s <= last; s++)
#pragma unroll
                for (int k = 0; k < 4; k++) p[v][k] = px_apply(s, p[v][k], table);
        }
        const size_t i = at[v];
        if (i >= a.n) continue;
        const bool whole = i + 4 <= a.n;
        if (last == PX_RGB_TO_GRAY) {
            store_gray_quad(&a, i, p[v][0] | p[v][1] << 8 | p[v][2] << 16 | p[v][3] << 24);
        } else {
            uint32_t *o = (uint32_t *)a.out + i;
            if (whole) *(uint4 *)o = make_uint4(p[v][0], p[v][1], p[v][2], p[v][3]);
            else
                for (int k = 0; i + k < a.n; k++) o[k] = p[v][k];
        }
    }
}

#define PX_STAGE_KERNEL(S) \
    static __global__ void __launch_bounds__(PX_BLOCK) px_kernel_##S(px_args a) { px_body(a, S, S, false); }
PX_STAGE_KERNEL(PX_RGB_TO_YUV)
PX_STAGE_KERNEL(PX_GAMMA)
PX_STAGE_KERNEL(PX_CHROMA)
PX_STAGE_KERNEL(PX_YUV_TO_RGB)
PX_STAGE_KERNEL(PX_RGB_TO_GRAY)
static __global__ void __launch_bounds__(PX_BLOCK) px_kernel_fused(px_args a) { px_body(a, PX_RGB_TO_YUV, PX_RGB_TO_GRAY, false); }
static __global__ void __launch_bounds__(PX_BLOCK) px_kernel_fused_dpx(px_args a)
{
    px_body(a, PX_RGB_TO_YUV, PX_RGB_TO_GRAY, true);
}
static __global__ void __launch_bounds__(PX_BLOCK) px_kernel_fused_pair(px_args a) { px_pair_body(a, 4); }
static __global__ void __launch_bounds__(PX_BLOCK) px_kernel_fused_pair32(px_args a) { px_pair_body(a, 8); }

static dim3 px_grid(size_t n, int vecs)
{
    const size_t per_block = 4 * (size_t)PX_BLOCK * vecs;
    return dim3((unsigned)((n + per_block - 1) / per_block));
}

void launch_px_stage(px_stage s, const px_args *a, cudaStream_t st)
{
    static void (*const k[PX_STAGES])(px_args) = {px_kernel_PX_RGB_TO_YUV, px_kernel_PX_GAMMA, px_kernel_PX_CHROMA,
                                                   px_kernel_PX_YUV_TO_RGB, px_kernel_PX_RGB_TO_GRAY};
    k[s]<<<px_grid(a->n, PX_VECS), PX_BLOCK, 0, st>>>(*a);
    GL_CHECK_LAUNCH();
}

void launch_px_fused(const px_args *a, bk_fused_kind kind, cudaStream_t st)
{
    if (kind == BK_FUSED_DPX) px_kernel_fused_dpx<<<px_grid(a->n, PX_VECS), PX_BLOCK, 0, st>>>(*a);
    else if (kind == BK_FUSED_PAIR) px_kernel_fused_pair<<<px_grid(a->n, 4), PX_BLOCK, 0, st>>>(*a);
    else if (kind == BK_FUSED_PAIR32) px_kernel_fused_pair32<<<px_grid(a->n, 8), PX_BLOCK, 0, st>>>(*a);
    else px_kernel_fused<<<px_grid(a->n, PX_VECS), PX_BLOCK, 0, st>>>(*a);
    GL_CHECK_LAUNCH();
}

const char *px_stage_name(px_stage s)
{
    static const char *const n[PX_STAGES] = {"rgb_to_yuv", "gamma", "chroma", "yuv_to_rgb", "rgb_to_gray"};
    return s >= 0 && s < PX_STAGES ? n[s] : "?";
}
