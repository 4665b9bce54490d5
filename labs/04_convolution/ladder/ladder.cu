/* ladder.cu - Lab 04, part 1: the image-convolution ladder. Each rung is a short kernel body with a
 * `gl_load_counts *c` argument: the timed kernel passes NULL, its count_ twin a counter of global
 * load requests and the sectors they touch (gl_metrics.cuh), as in Lab 01.
 *
 * The seed's rungs (000: GTX 1660 Ti): 32 x 32 threads per block, and
 *   GM   the filter read from global memory by every thread;
 *   CM   the filter in __constant__ memory: one broadcast per warp;
 *   SM   the input tile (with its one-pixel halo) staged in shared memory first;
 *   CFn  one thread computes n consecutive pixels of a row, sliding a 3x3 register window: the
 *        first pixel loads 9 bytes, every further pixel 3;
 *   _Vec the n outputs stored as uchar2/uchar4 vectors instead of n single bytes.
 * Past the paper: W16 (16-byte loads and stores, 16 pixels per thread, the neighbours left and right
 * taken from the next lanes by warp shuffle) and W16_R4 / W16_R8 (4 or 8 output rows per thread,
 * each loaded row serving three outputs). The frame (row 0 and H-1, column 0 and W-1) is never
 * written. Integer >> on the GPU is arithmetic, the floor the reference defines. */
#include "convolution.h"
#include "gl_check.h"
#include "gl_metrics.cuh"
#include "gl_bulk.cuh"

#define KERNEL_PAIR(name) GL_KERNEL_PAIR_BOUNDED(name, conv_args, gl_load_counts, gl_count_flush, 1024)
#define SEED_BLOCK 32 /* the seed's 32 x 32 threads */
#define FULL_MASK 0xffffffffu

static __constant__ int c_filter[9];
static __constant__ unsigned c_rows8[3]; /* DP4A kernels: each filter row as 4 signed bytes (w0, w1, w2, 0) */
/* _SW kernels: each filter row shifted to byte k (k = 0..3) of a word and the part past byte 3 in
 * the next word's low bytes: c_shifted[row][0..3] = (w0 w1 w2 0) << 8k, [4] = (w2 0 0 0), [5] = (w1 w2 0 0) */
static __constant__ unsigned c_shifted[3][6];
/* _DW kernels: each filter row placed on the row's words as loaded (words_sum): [0] (0 0 0 w0) for the
 * word before the pixel's for k = 0, [1] (w1 w2 0 0) for its own; [2] (w0 w1 w2 0) for k = 1; [3]
 * (0 w0 w1 w2) for k = 2; [4] (0 0 w0 w1) for k = 3 and [5] (w2 0 0 0) for the word after */
static __constant__ unsigned c_direct[3][6];

static __device__ __forceinline__ uint8_t clamp_px(int sum, int shift)
{
    return (uint8_t)min(max(sum >> shift, 0), 255);
}

/* One counted byte load from global memory. */
static __device__ __forceinline__ int load_px(const uint8_t *p, gl_load_counts *c)
{
    gl_count_load(c, p);
    return *p;
}

/* The weights: from global memory (GM: 9 counted loads per thread) or __constant__. */
static __device__ __forceinline__ void load_weights(int w[9], conv_args a, gl_load_counts *c, const bool global)
{
#pragma unroll
    for (int k = 0; k < 9; k++) {
        if (global) gl_count_load(c, &a.filter[k]);
        w[k] = global ? a.filter[k] : c_filter[k];
    }
}

static __device__ __forceinline__ int dot3x3(const int w[9], const int f[3][3])
{
    int s = 0;
#pragma unroll
    for (int r = 0; r < 3; r++)
#pragma unroll
        for (int k = 0; k < 3; k++) s += w[r * 3 + k] * f[r][k];
    return s;
}

/* Store the CF outputs of one thread, starting at column x0 of row `o`: vectors when all CF
 * pixels are interior (the common case), else one byte per interior pixel (the frame and the
 * image's right edge). */
static __device__ __forceinline__ void store_run(uint8_t *o, const uint8_t *v, int x0, int width, const int CF,
                                                 const bool vec)
{
    bool full = x0 >= 1 && x0 + CF - 1 <= width - 2;
    if (vec && full && CF == 2) {
        *(uchar2 *)o = make_uchar2(v[0], v[1]);
    } else if (vec && full) {
#pragma unroll
        for (int i = 0; i < CF; i += 4) *(uchar4 *)(o + i) = make_uchar4(v[i], v[i + 1], v[i + 2], v[i + 3]);
    } else {
#pragma unroll
        for (int i = 0; i < CF; i++)
            if (x0 + i >= 1 && x0 + i <= width - 2) o[i] = v[i];
    }
}

/* Lesson (GM, CM, CFn, _Vec): the body of the seed's kernels. With CF = 1 each output reads its 9
 * input bytes; with a larger CF the window slides right and each further output reads 3. */
static __device__ __forceinline__ int coarse_body(conv_args a, gl_load_counts *c, const int CF, const bool global_filter,
                                                  const bool vec)
{
    int w[9];
    load_weights(w, a, c, global_filter);
    const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * CF;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (y < 1 || y > a.height - 2 || x0 > a.width - 2) return 1;
    const uint8_t *row[3] = {a.in + (size_t)(y - 1) * a.pitch, a.in + (size_t)y * a.pitch, a.in + (size_t)(y + 1) * a.pitch};
    int f[3][3]; /* f[r][k]: row y - 1 + r, column x - 1 + k of the current pixel x */
#pragma unroll
    for (int k = 0; k < 3; k++)
#pragma unroll
        for (int r = 0; r < 3; r++) f[r][k] = x0 - 1 + k >= 0 ? load_px(row[r] + x0 - 1 + k, c) : 0;
    uint8_t v[16]; /* CF <= 16 used */
#pragma unroll
    for (int i = 0; i < CF; i++) {
        if (i > 0) { /* slide: the window's columns move left, one new column comes in */
#pragma unroll
            for (int r = 0; r < 3; r++) {
                f[r][0] = f[r][1];
                f[r][1] = f[r][2];
                f[r][2] = x0 + i + 1 < a.width ? load_px(row[r] + x0 + i + 1, c) : 0;
            }
        }
        v[i] = clamp_px(dot3x3(w, f), a.shift);
    }
    store_run(a.out + (size_t)y * a.pitch + x0, v, x0, a.width, CF, vec);
    return 1;
}

/* Byte i of the block's tile: the input pixel, or 0 outside the image. */
static __device__ __forceinline__ void tile_px(uint8_t *tile, int i, conv_args a, gl_load_counts *c, int tw, int ox, int oy)
{
    const int gx = ox + i % tw, gy = oy + i / tw;
    tile[i] = gx >= 0 && gy >= 0 && gx < a.width && gy < a.height ? (uint8_t)load_px(a.in + (size_t)gy * a.pitch + gx, c) : 0;
}

/* The tile copy: thread tid copies bytes tid, tid + 1024, ... of the n-byte tile. The timed
 * kernel (c == NULL) keeps the plain loop, which nvcc unrolls by 4, running a thread's trips % 4
 * leftover copies first: a lane with one trip more than the other lanes of its warp does its extra
 * copy alone, and from then on shares every warp-wide load with them at a byte 1024 further on.
 * Nsight Compute counts requests and sectors per warp-wide load instruction, so the counting twin
 * runs that order written out. Left to the plain loop, its counting code made nvcc unroll by 2
 * with the leftovers last: the SM rung's warp with a partial second trip split its first load in
 * two (one request too many per block), and in the SM_CFn rungs the lanes shared loads at the
 * same byte (fewer sectors per request than the timed kernel's loads touch). */
static __device__ __forceinline__ void load_tile(uint8_t *tile, conv_args a, gl_load_counts *c, int tw, int th, int ox, int oy)
{
    const int step = SEED_BLOCK * SEED_BLOCK, n = tw * th;
    int i = threadIdx.y * SEED_BLOCK + threadIdx.x;
    if (!c) { /* the timed kernel: the seed's loop as it was (tile_px here changes its SASS) */
        for (; i < n; i += step) {
            int gx = ox + i % tw, gy = oy + i / tw;
            tile[i] = gx >= 0 && gy >= 0 && gx < a.width && gy < a.height ? (uint8_t)load_px(a.in + (size_t)gy * a.pitch + gx, c) : 0;
        }
        return;
    }
    const int trips = i < n ? (n - 1 - i) / step + 1 : 0;
#pragma unroll 1
    for (int r = trips & 3; r > 0; r--, i += step) tile_px(tile, i, a, c, tw, ox, oy);
#pragma unroll 1
    for (int q = trips >> 2; q > 0; q--, i += 4 * step)
#pragma unroll
        for (int u = 0; u < 4; u++) tile_px(tile, i + u * step, a, c, tw, ox, oy);
}

/* Lesson (SM): the block first copies its input tile, (32 CF + 2) x 34 bytes with the halo, into
 * shared memory (consecutive threads, consecutive bytes); after __syncthreads every read of the
 * window is served on chip. The seed's listing left the tile's four corner bytes unloaded; this
 * loader covers the whole tile. */
static __device__ __forceinline__ int shared_body(conv_args a, gl_load_counts *c, const int CF, const bool vec)
{
    extern __shared__ uint8_t tile[];
    int w[9];
    load_weights(w, a, c, false);
    const int tw = SEED_BLOCK * CF + 2, th = SEED_BLOCK + 2;
    load_tile(tile, a, c, tw, th, blockIdx.x * SEED_BLOCK * CF - 1, blockIdx.y * SEED_BLOCK - 1);
    __syncthreads();
    const int x0 = (blockIdx.x * SEED_BLOCK + threadIdx.x) * CF;
    const int y = blockIdx.y * SEED_BLOCK + threadIdx.y;
    if (y < 1 || y > a.height - 2 || x0 > a.width - 2) return 1;
    const uint8_t *t = tile + threadIdx.y * tw + threadIdx.x * CF; /* the window of pixel x0, top left */
    int f[3][3];
#pragma unroll
    for (int r = 0; r < 3; r++)
#pragma unroll
        for (int k = 0; k < 3; k++) f[r][k] = t[r * tw + k];
    uint8_t v[16]; /* CF <= 16 used */
#pragma unroll
    for (int i = 0; i < CF; i++) {
        if (i > 0) {
#pragma unroll
            for (int r = 0; r < 3; r++) {
                f[r][0] = f[r][1];
                f[r][1] = f[r][2];
                f[r][2] = t[r * tw + i + 2];
            }
        }
        v[i] = clamp_px(dot3x3(w, f), a.shift);
    }
    store_run(a.out + (size_t)y * a.pitch + x0, v, x0, a.width, CF, vec);
    return 1;
}

/* ---- past the paper: 16 pixels per thread, 16-byte loads, neighbours by shuffle ---- */

/* 18 bytes of one input row around a thread's 16 columns: the column left of them, the 16 (one
 * uint4), the column right of them. The left and right bytes are the neighbouring lanes' edge
 * bytes (__shfl_up/down); only lanes 0 and 31 load theirs from memory. Every lane of the warp
 * must call this (the shuffles need the whole warp). */
typedef struct {
    uint4 mid;
    int left, right;
} row18;

static __device__ __forceinline__ row18 load_row18(conv_args a, gl_load_counts *c, int y, int x0)
{
    row18 r = {make_uint4(0, 0, 0, 0), 0, 0};
    const bool inside = y < a.height && x0 < a.width;
    const uint8_t *p = a.in + (size_t)y * a.pitch + x0;
    if (inside) {
        gl_count_load(c, p);
        r.mid = *(const uint4 *)p; /* x0 % 16 == 0 and the pitch is a multiple of 64: aligned */
    }
    const unsigned lane = gl_lane_id();
    int from_left = __shfl_up_sync(FULL_MASK, (int)(r.mid.w >> 24), 1);
    int from_right = __shfl_down_sync(FULL_MASK, (int)(r.mid.x & 0xffu), 1);
    r.left = lane == 0 ? (inside && x0 >= 1 ? load_px(p - 1, c) : 0) : from_left;
    r.right = lane == 31 ? (inside && x0 + 16 < a.width ? load_px(p + 16, c) : 0) : from_right;
    return r;
}

/* Byte j (-1 .. 16) of the 18. */
static __device__ __forceinline__ int byte18(const row18 &r, int j)
{
    if (j < 0) return r.left;
    if (j > 15) return r.right;
    unsigned word = j < 4 ? r.mid.x : j < 8 ? r.mid.y : j < 12 ? r.mid.z : r.mid.w;
    return (word >> ((j & 3) * 8)) & 0xffu;
}

/* Lesson (W16, W16_R4, W16_R8): one 16-byte load per row feeds 16 outputs, and a thread walking
 * down R rows loads each row once for three outputs: R + 2 loads for 16 R pixels - close to the
 * floor of one read and one write per pixel. */
static __device__ __forceinline__ int wide_body(conv_args a, gl_load_counts *c, const int R)
{
    int w[9];
    load_weights(w, a, c, false);
    const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * 16;
    const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * R + 1; /* first output row */
    row18 top = load_row18(a, c, y0 - 1, x0), mid = load_row18(a, c, y0, x0);
#pragma unroll
    for (int r = 0; r < R; r++) {
        const int y = y0 + r;
        row18 bot = load_row18(a, c, y + 1, x0);
        if (y <= a.height - 2 && x0 < a.width) {
            uint8_t v[16];
#pragma unroll
            for (int j = 0; j < 16; j++) {
                int f[3][3];
#pragma unroll
                for (int k = 0; k < 3; k++) {
                    f[0][k] = byte18(top, j - 1 + k);
                    f[1][k] = byte18(mid, j - 1 + k);
                    f[2][k] = byte18(bot, j - 1 + k);
                }
                v[j] = clamp_px(dot3x3(w, f), a.shift);
            }
            uint8_t *o = a.out + (size_t)y * a.pitch + x0;
            if (x0 >= 1 && x0 + 15 <= a.width - 2) {
                uint4 out;
                out.x = v[0] | v[1] << 8 | v[2] << 16 | (unsigned)v[3] << 24;
                out.y = v[4] | v[5] << 8 | v[6] << 16 | (unsigned)v[7] << 24;
                out.z = v[8] | v[9] << 8 | v[10] << 16 | (unsigned)v[11] << 24;
                out.w = v[12] | v[13] << 8 | v[14] << 16 | (unsigned)v[15] << 24;
                *(uint4 *)o = out;
            } else {
#pragma unroll
                for (int j = 0; j < 16; j++)
                    if (x0 + j >= 1 && x0 + j <= a.width - 2) o[j] = v[j];
            }
        }
        top = mid;
        mid = bot;
    }
    return 1;
}

/* ---- past the paper, 2: four byte products per instruction ---- */

/* d = c + a.b0*b.b0 + ... + a.b3*b.b3, a's bytes unsigned (pixels), b's signed (weights). */
static __device__ __forceinline__ int dp4a_us(unsigned a, unsigned b, int c)
{
    int d;
    asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

/* The 18 bytes of a row18 as five words: e[k] holds bytes 4k .. 4k + 3 of (left, the 16, right). */
static __device__ __forceinline__ void row_words(const row18 &r, unsigned e[5])
{
    e[0] = ((unsigned)r.left & 0xffu) | (r.mid.x << 8);
    e[1] = __funnelshift_l(r.mid.x, r.mid.y, 8);
    e[2] = __funnelshift_l(r.mid.y, r.mid.z, 8);
    e[3] = __funnelshift_l(r.mid.z, r.mid.w, 8);
    e[4] = (r.mid.w >> 24) | (((unsigned)r.right & 0xffu) << 8);
}

/* The 4 bytes from byte j on: one PRMT, or none when j is a multiple of 4. */
static __device__ __forceinline__ unsigned window4(const unsigned e[5], const int j)
{
    return (j & 3) == 0 ? e[j >> 2] : __byte_perm(e[j >> 2], e[(j >> 2) + 1], 0x3210 + (j & 3) * 0x1111);
}

/* Lesson (sat_pack, W16_DP4A_BULK): clamp to 0..255 and pack, two pixels an instruction:
 * cvt.pack.sat.u8.s32.b32 d, a, b, c saturates a and b to bytes, d = b | a << 8 | c << 16. The
 * four pixels' shifted sums s[0..3] -> one word (byte k: pixel k) in two, where clamp_px and the
 * shifts and ors take about 4 an output. */
static __device__ __forceinline__ unsigned pack4_sat(const int s[4])
{
    unsigned hi, d;
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(hi) : "r"(s[3]), "r"(s[2]), "r"(0));
    asm("cvt.pack.sat.u8.s32.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(s[1]), "r"(s[0]), "r"(hi));
    return d;
}

/* Lesson (_SW: shift the weights, not the pixels): pixel 4q + k's window of a row is bytes k .. k + 2
 * of word q (and, for k = 2 and 3, bytes 0 .. k - 2 of word q + 1). window4 cuts those bytes out of
 * the two words with a byte permute (ALU) for 3 pixels in 4; instead a dot product with the
 * filter row moved to byte k takes them where they are, and one more dp4a adds the bytes in word
 * q + 1: per 4 pixels and row 6 dp4a (FMA pipe) where window4 costs 4 dp4a and 3 permutes. */
static __device__ __forceinline__ int shifted_sum(const unsigned e[5], int row, int q, int k, int sum)
{
    sum = dp4a_us(e[q], c_shifted[row][k], sum);
    return k < 2 ? sum : dp4a_us(e[q + 1], c_shifted[row][k + 2], sum);
}

/* Lesson (_DW: the words as loaded): a row kept as the six words the thread loads - the word
 * ending with pixel -1, the 16 pixels, the word starting with pixel 16 - needs no byte moved at
 * all: pixel 4q + k takes its window from words q + 1 (k = 1, 2: one dp4a), q and q + 1 (k = 0)
 * or q + 1 and q + 2 (k = 3), with the filter row placed on the bytes it covers (c_direct). Per 4
 * pixels and row 6 dp4a, as _SW, and no shuffle, select or funnel shift a row. */
static __device__ __forceinline__ int words_sum(const unsigned m[6], int row, int q, int k, int sum)
{
    if (k == 0) return dp4a_us(m[q + 1], c_direct[row][1], dp4a_us(m[q], c_direct[row][0], sum));
    if (k == 3) return dp4a_us(m[q + 2], c_direct[row][5], dp4a_us(m[q + 1], c_direct[row][4], sum));
    return dp4a_us(m[q + 1], c_direct[row][k + 1], sum);
}

/* Row y's six words at x0 (words_sum): the 16 bytes in one load, the words before and after them
 * where they are in the row (zeros past its ends: only pixels of the frame, which no output keeps,
 * read them). Nothing but loads: no lane waits on another. */
static __device__ __forceinline__ void load_words(conv_args a, gl_load_counts *c, int y, int x0, unsigned m[6])
{
    m[0] = m[1] = m[2] = m[3] = m[4] = m[5] = 0;
    if (y >= a.height || x0 >= a.width) return;
    const uint8_t *p = a.in + (size_t)y * a.pitch + x0;
    gl_count_load(c, p);
    const uint4 v = *(const uint4 *)p; /* x0 % 16 == 0 and the pitch is a multiple of 64: aligned */
    m[1] = v.x, m[2] = v.y, m[3] = v.z, m[4] = v.w;
    if (x0 >= 16) {
        gl_count_load(c, p - 4);
        m[0] = *(const unsigned *)(p - 4);
    }
    if (x0 + 16 < a.width) {
        gl_count_load(c, p + 16);
        m[5] = *(const unsigned *)(p + 16);
    }
}

/* Output row y, columns x0 .. x0 + 15, from the words of input rows y - 1, y, y + 1 (interior
 * pixels only: the frame and the picture's right edge keep their bytes); rows of five words
 * (row_words), or of six as loaded (words: load_words). */
static __device__ __forceinline__ void dp4a_row(conv_args a, const unsigned *top, const unsigned *mid,
                                                const unsigned *bot, unsigned w0, unsigned w1, unsigned w2, int y, int x0,
                                                const bool sat_pack = false, const bool shift_w = false,
                                                const bool words = false)
{
    if (y > a.height - 2 || x0 >= a.width) return;
    unsigned out[4];
#pragma unroll
    for (int q = 0; q < 4; q++) {
        unsigned packed = 0;
        int shifted[4];
#pragma unroll
        for (int k = 0; k < 4; k++) {
            const int j = 4 * q + k;
            int sum;
            if (words) {
                sum = words_sum(top, 0, q, k, 0);
                sum = words_sum(mid, 1, q, k, sum);
                sum = words_sum(bot, 2, q, k, sum);
            } else if (shift_w) {
                sum = shifted_sum(top, 0, q, k, 0);
                sum = shifted_sum(mid, 1, q, k, sum);
                sum = shifted_sum(bot, 2, q, k, sum);
            } else {
                sum = dp4a_us(window4(top, j), w0, 0);
                sum = dp4a_us(window4(mid, j), w1, sum);
                sum = dp4a_us(window4(bot, j), w2, sum);
            }
            if (sat_pack) shifted[k] = sum >> a.shift;
            else packed |= (unsigned)clamp_px(sum, a.shift) << (8 * k);
        }
        out[q] = sat_pack ? pack4_sat(shifted) : packed;
    }
    uint8_t *o = a.out + (size_t)y * a.pitch + x0;
    if (x0 >= 1 && x0 + 15 <= a.width - 2) {
        *(uint4 *)o = make_uint4(out[0], out[1], out[2], out[3]);
    } else {
#pragma unroll
        for (int j = 0; j < 16; j++)
            if (x0 + j >= 1 && x0 + j <= a.width - 2) o[j] = (uint8_t)(out[j >> 2] >> (8 * (j & 3)));
    }
}

/* Lesson (W16_DP4A, W16_DP4A_R4, W16_DP4A_R8): the integer pipe, not memory, limited the W16 rungs - nine
 * multiply-adds and nine byte extractions per pixel. dp4a multiplies four bytes by four weights
 * and adds them in one instruction: a filter row is one dp4a on a 4-byte window (one byte_perm),
 * so a pixel costs 3 dp4a + at most 3 byte_perm. Needs weights in -128 .. 127 (the host checks). */
static __device__ __forceinline__ int dp4a_body(conv_args a, gl_load_counts *c, const int R, const bool sat = false,
                                                const bool shift_w = false, const bool words = false)
{
    const unsigned w0 = c_rows8[0], w1 = c_rows8[1], w2 = c_rows8[2];
    const int x0 = (blockIdx.x * blockDim.x + threadIdx.x) * 16;
    const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * R + 1;
    /* All R + 2 rows are loaded before the first store: the compiler may not move a load past a
     * store to memory that might alias it, so this is what keeps R + 2 loads in flight. */
    unsigned e[10][6]; /* R + 2 <= 10 rows of five words (row_words) or six (load_words) */
#pragma unroll
    for (int r = 0; r < R + 2; r++) {
        if (words) load_words(a, c, y0 - 1 + r, x0, e[r]);
        else row_words(load_row18(a, c, y0 - 1 + r, x0), e[r]);
    }
#pragma unroll
    for (int r = 0; r < R; r++) dp4a_row(a, e[r], e[r + 1], e[r + 2], w0, w1, w2, y0 + r, x0, sat, shift_w, words);
    return 1;
}

/* ---- past the paper, 3: the rows ahead in shared memory (issue 20) ---- */

#define DP4A_RING 6               /* ring slots: rows in flight a warp (a multiple of 3, the window's period) */
#define DP4A_SLOT (16 + 512 + 16) /* a warp's 512 columns and 16 bytes each side (the halo bytes) */
#define DP4A_BULK_BLOCKS 32       /* __launch_bounds__' minimum on sm_90: the 32 one-warp blocks an SM holds */

typedef struct {
    uint8_t (*slot)[DP4A_SLOT];
    uint64_t *bar;
    const uint8_t *in; /* the picture at the first byte copied (column xw - 16 + skip) */
    int pitch, height, y0, total; /* input rows y0 - 1 .. y0 + rows: total = rows + 2 */
    unsigned skip, bytes;         /* a row's copy: bytes into the slot from byte skip */
} dp4a_ring;

/* Input row i of the strip (row y0 - 1 + i, past the bottom: the last row, whose outputs are not written). */
static __device__ __forceinline__ void dp4a_fill(const dp4a_ring &g, int s, int i)
{
    const int y = min(g.y0 - 1 + i, g.height - 1);
    gl_bulk_fill(g.slot[s] + g.skip, g.in + (size_t)y * g.pitch, g.bytes, &g.bar[s]);
}

/* Row i = m + it (m: compile time, it: a multiple of DP4A_RING) out of its slot as five words (a
 * lane's 16 bytes and the bytes left and right of them), the slot refilled with row i + DP4A_RING;
 * once the window holds three rows, output row y0 + i - 2. */
static __device__ __forceinline__ void dp4a_ring_row(conv_args a, const dp4a_ring &g, const int m, int it, unsigned lap,
                                                     unsigned (&e)[3][5], int x0)
{
    const int s = m % DP4A_RING;
    gl_bulk_wait(&g.bar[s], lap ^ (unsigned)(m >= DP4A_RING));
    const uint8_t *p = g.slot[s] + 16 + 16 * threadIdx.x;
    const row18 r = {*(const uint4 *)p, p[-1], p[16]};
    if (m + it + DP4A_RING < g.total) dp4a_fill(g, s, m + it + DP4A_RING);
    row_words(r, e[m % 3]);
    if (m >= 2)
        dp4a_row(a, e[(m + 1) % 3], e[(m + 2) % 3], e[m % 3], c_rows8[0], c_rows8[1], c_rows8[2], g.y0 + m + it - 2, x0,
                 true);
}

/* Lesson (W16_DP4A_BULK): W16_DP4A's arithmetic, one warp a block walking a strip of a.ring_rows
 * output rows (as many strips as one wave of resident warps holds: no tail wave, 2 rows of the
 * strip's input only fill the window). Each input row arrives in a ring slot by one bulk copy
 * (gl_bulk.cuh: cp.async.bulk on sm_90, the warp's own loads below): the rows ahead cost no
 * registers (W16_DP4A_R8: 80 registers, 10 rows a thread loaded at once, then none in flight
 * while it computes), and a lane's left and right bytes are shared-memory reads, not shuffles.
 * The copy covers the warp's columns and 16 each side, cut to [0, the width rounded up to 16);
 * the bytes left out are zeros that only the frame's outputs (never written) would read. Each
 * output word is clamped and packed by two cvt.pack (pack4_sat). Size of the steady loop, an
 * ESTIMATE from nvcc -ptx (no SASS count yet), the vector-store path: 983 PTX instructions for
 * 96 pixels a lane = 10.2 a pixel, against 14.8 for W16_DP4A_R8's whole kernel (ncu: 14.0 SASS
 * instructions a pixel): about 9.7 a pixel, 44% of the H100's 22.4 at memcpy speed, 61% of the
 * H200's 15.9. */
static __device__ __forceinline__ int dp4a_bulk_body(conv_args a, gl_load_counts *c)
{
    (void)c; /* no global load instructions to count: the copies are bulk copies */
    __shared__ __align__(16) uint8_t slots[DP4A_RING][DP4A_SLOT];
    __shared__ uint64_t bars[DP4A_RING];
    const int rows = a.ring_rows, xw = blockIdx.x * 512, x0 = xw + 16 * threadIdx.x, y0 = blockIdx.y * rows + 1;
    const int lo = max(xw - 16, 0), hi = min(xw + 512 + 16, (a.width + 15) / 16 * 16);
#pragma unroll
    for (int s = 0; s < DP4A_RING; s++)
        for (int i = threadIdx.x; i < DP4A_SLOT / 16; i += 32) ((uint4 *)slots[s])[i] = make_uint4(0, 0, 0, 0);
    gl_bulk_init(bars, DP4A_RING); /* after the zeros: it orders them before the copies */
    const dp4a_ring g = {slots, bars, a.in + lo, a.pitch, a.height, y0, rows + 2, (unsigned)(lo - (xw - 16)),
                         (unsigned)(hi - lo)};
#pragma unroll
    for (int i = 0; i < DP4A_RING; i++)
        if (i < g.total) dp4a_fill(g, i, i);
    unsigned e[3][5];
    dp4a_ring_row(a, g, 0, 0, 0, e, x0);
    dp4a_ring_row(a, g, 1, 0, 0, e, x0);
    unsigned lap = 0;
#pragma unroll 1
    for (int it = 0; it < rows; it += DP4A_RING, lap ^= 1)
#pragma unroll
        for (int u = 0; u < DP4A_RING; u++) dp4a_ring_row(a, g, 2 + u, it, lap, e, x0);
    return 1;
}

/* ---- the kernels: one body, the constants fixed per kernel ---- */

/* RUNG(name, pair, call): name_body calls one of the bodies above with fixed constants, and `pair`
 * (KERNEL_PAIR, or GL_KERNEL_PAIR_BOUNDED at 256 threads for the DP4A rungs, which need more than
 * 64 registers) makes the timed kernel and its counting twin. */
#define RUNG(name, pair, call)                                                             \
    static __device__ __forceinline__ int name##_body(conv_args a, gl_load_counts *c)      \
    {                                                                                      \
        return call;                                                                       \
    }                                                                                      \
    pair(name)
#define COARSE(name, cf, global, vec) RUNG(name, KERNEL_PAIR, coarse_body(a, c, cf, global, vec))
#define SHARED(name, cf, vec) RUNG(name, KERNEL_PAIR, shared_body(a, c, cf, vec))
#define WIDE(name, rows) RUNG(name, KERNEL_PAIR, wide_body(a, c, rows))
#define KERNEL_PAIR_256(name) GL_KERNEL_PAIR_BOUNDED(name, conv_args, gl_load_counts, gl_count_flush, 256)
#define DP4A(name, rows) RUNG(name, KERNEL_PAIR_256, dp4a_body(a, c, rows))
#define DP4A_SAT(name, rows) RUNG(name, KERNEL_PAIR_256, dp4a_body(a, c, rows, true))
#define KERNEL_PAIR_128(name) GL_KERNEL_PAIR_BOUNDED(name, conv_args, gl_load_counts, gl_count_flush, 128)
#define DP4A_SW(name, rows) RUNG(name, KERNEL_PAIR_128, dp4a_body(a, c, rows, true, true))
#define DP4A_DW(name, rows) RUNG(name, KERNEL_PAIR_128, dp4a_body(a, c, rows, true, false, true))

COARSE(gm_cf1, 1, true, false)
COARSE(cm_cf1, 1, false, false)
SHARED(sm_cf1, 1, false)
#define RUNGS_CF(cf)                                                                       \
    COARSE(gm_cf##cf, cf, true, false)                                                     \
    COARSE(gm_cf##cf##_vec, cf, true, true)                                                \
    COARSE(cm_cf##cf, cf, false, false)                                                    \
    COARSE(cm_cf##cf##_vec, cf, false, true)                                               \
    SHARED(sm_cf##cf, cf, false)                                                           \
    SHARED(sm_cf##cf##_vec, cf, true)
CONV_VEC_CFS(RUNGS_CF)
WIDE(w16, 1)
WIDE(w16_r4, 4)
WIDE(w16_r8, 8)
DP4A(w16_dp4a, 1)
DP4A(w16_dp4a_r4, 4)
DP4A(w16_dp4a_r8, 8)
/* Lesson (W16_DP4A_R4_SAT, _R6_SAT): the clamp and pack of W16_DP4A_R8 in two cvt.pack.sat a word
 * (pack4_sat), and fewer rows a thread: 52 and 59 registers, where R8 needs 80 (24 warps an SM),
 * so 32 warps an SM keep their rows in flight. _R4_SW, _R6_SW: the same with shifted_sum's weights
 * (no byte permutes) and 128-thread blocks (36 warps an SM for R4). README: the measured figures. */
DP4A_SAT(w16_dp4a_r4_sat, 4)
DP4A_SAT(w16_dp4a_r6_sat, 6)
DP4A_SW(w16_dp4a_r4_sw, 4)
DP4A_SW(w16_dp4a_r6_sw, 6)
DP4A_DW(w16_dp4a_r4_dw, 4)
#define KERNEL_PAIR_BULK(name) \
    GL_KERNEL_PAIR_BOUNDS(name, conv_args, gl_load_counts, gl_count_flush, 32, GL_BULK_ASYNC ? DP4A_BULK_BLOCKS : 1)
RUNG(w16_dp4a_bulk, KERNEL_PAIR_BULK, dp4a_bulk_body(a, c))

/* ---- the table: kernel, twin, name, shape ---- */

typedef void (*conv_fn)(conv_args);
typedef struct {
    conv_fn timed, count;
    const char *name;
    int pixels;  /* consecutive pixels per thread along x */
    int rows;    /* output rows per thread */
    int shared;  /* 1: stages a tile in dynamic shared memory */
    int wide;    /* 1: a W16 kernel (32 x 8 threads, rows counted from the first interior row); 2: the
                    same columns, one warp a block walking a strip (rows: 0, set by bulk_rows) */
    int block_y; /* rows of threads a block, where not the default (32, or 8 for the W16 kernels) */
} conv_entry;

static const conv_entry TABLE[K_CONV_COUNT] = {
    [K_GM_CF1] = {gm_cf1, count_gm_cf1, "GM", 1, 1, 0, 0, 0},
    [K_CM_CF1] = {cm_cf1, count_cm_cf1, "CM", 1, 1, 0, 0, 0},
    [K_SM_CF1] = {sm_cf1, count_sm_cf1, "SM", 1, 1, 1, 0, 0},
#define ENTRIES_CF(cf)                                                                          \
    [K_GM_CF##cf] = {gm_cf##cf, count_gm_cf##cf, "GM_CF" #cf, cf, 1, 0, 0, 0}, \
    [K_GM_CF##cf##_VEC] = {gm_cf##cf##_vec, count_gm_cf##cf##_vec, "GM_CF" #cf "_Vec", cf, 1, 0, 0, 0}, \
    [K_CM_CF##cf] = {cm_cf##cf, count_cm_cf##cf, "CM_CF" #cf, cf, 1, 0, 0, 0}, \
    [K_CM_CF##cf##_VEC] = {cm_cf##cf##_vec, count_cm_cf##cf##_vec, "CM_CF" #cf "_Vec", cf, 1, 0, 0, 0}, \
    [K_SM_CF##cf] = {sm_cf##cf, count_sm_cf##cf, "SM_CF" #cf, cf, 1, 1, 0, 0}, \
    [K_SM_CF##cf##_VEC] = {sm_cf##cf##_vec, count_sm_cf##cf##_vec, "SM_CF" #cf "_Vec", cf, 1, 1, 0, 0},
    CONV_VEC_CFS(ENTRIES_CF)
    [K_W16] = {w16, count_w16, "W16", 16, 1, 0, 1, 0},
    [K_W16_R4] = {w16_r4, count_w16_r4, "W16_R4", 16, 4, 0, 1, 0},
    [K_W16_R8] = {w16_r8, count_w16_r8, "W16_R8", 16, 8, 0, 1, 0},
    [K_W16_DP4A] = {w16_dp4a, count_w16_dp4a, "W16_DP4A", 16, 1, 0, 1, 0},
    [K_W16_DP4A_R4] = {w16_dp4a_r4, count_w16_dp4a_r4, "W16_DP4A_R4", 16, 4, 0, 1, 0},
    [K_W16_DP4A_R8] = {w16_dp4a_r8, count_w16_dp4a_r8, "W16_DP4A_R8", 16, 8, 0, 1, 0},
    [K_W16_DP4A_R4_SAT] = {w16_dp4a_r4_sat, count_w16_dp4a_r4_sat, "W16_DP4A_R4_SAT", 16, 4, 0, 1, 0},
    [K_W16_DP4A_R6_SAT] = {w16_dp4a_r6_sat, count_w16_dp4a_r6_sat, "W16_DP4A_R6_SAT", 16, 6, 0, 1, 0},
    [K_W16_DP4A_R4_SW] = {w16_dp4a_r4_sw, count_w16_dp4a_r4_sw, "W16_DP4A_R4_SW", 16, 4, 0, 1, 4},
    [K_W16_DP4A_R6_SW] = {w16_dp4a_r6_sw, count_w16_dp4a_r6_sw, "W16_DP4A_R6_SW", 16, 6, 0, 1, 4},
    [K_W16_DP4A_R4_DW] = {w16_dp4a_r4_dw, count_w16_dp4a_r4_dw, "W16_DP4A_R4_DW", 16, 4, 0, 1, 4},
    [K_W16_DP4A_BULK] = {w16_dp4a_bulk, count_w16_dp4a_bulk, "W16_DP4A_BULK", 16, 0, 0, 2, 0},
};

extern "C" const char *conv_kernel_name(conv_kernel k) { return TABLE[k].name; }
extern "C" int conv_kernel_pixels(conv_kernel k) { return TABLE[k].pixels; }

extern "C" void conv_set_constant_filter(const conv_filter *f)
{
    GL_CHECK(cudaMemcpyToSymbol(c_filter, f->w, sizeof f->w));
    unsigned rows8[3] = {0, 0, 0}; /* weights outside -128..127 leave the DP4A kernels unusable */
    for (int r = 0; r < 3; r++)
        for (int k = 0; k < 3; k++) rows8[r] |= (unsigned)(f->w[r * 3 + k] & 0xff) << (8 * k);
    GL_CHECK(cudaMemcpyToSymbol(c_rows8, rows8, sizeof rows8));
    unsigned shifted[3][6];
    for (int r = 0; r < 3; r++) {
        for (int k = 0; k < 4; k++) shifted[r][k] = rows8[r] << (8 * k);
        shifted[r][4] = rows8[r] >> 16; /* w2 in byte 0 */
        shifted[r][5] = rows8[r] >> 8;  /* w1, w2 in bytes 0, 1 */
    }
    GL_CHECK(cudaMemcpyToSymbol(c_shifted, shifted, sizeof shifted));
    unsigned direct[3][6];
    for (int r = 0; r < 3; r++) {
        direct[r][0] = rows8[r] << 24; /* w0 on byte 3 of the word before */
        direct[r][1] = rows8[r] >> 8;  /* w1, w2 on bytes 0, 1 */
        direct[r][2] = rows8[r];
        direct[r][3] = rows8[r] << 8;
        direct[r][4] = rows8[r] << 16; /* w0, w1 on bytes 2, 3 */
        direct[r][5] = rows8[r] >> 16; /* w2 on byte 0 of the word after */
    }
    GL_CHECK(cudaMemcpyToSymbol(c_direct, direct, sizeof direct));
}

extern "C" int conv_filter_fits_dp4a(const conv_filter *f)
{
    for (int k = 0; k < 9; k++)
        if (f->w[k] < -128 || f->w[k] > 127) return 0;
    return 1;
}

/* W16_DP4A_BULK's strips: one wave of resident warps (gl_wave_strip_rows), each a multiple of
 * DP4A_RING rows. The first launch (untimed) also sets the most shared memory (32 rings an SM). */
static int bulk_rows(const conv_entry *e, int width, int height)
{
    static int resident = 0;
    if (!resident) {
        GL_CHECK(cudaFuncSetAttribute(e->timed, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
        GL_CHECK(cudaFuncSetAttribute(e->count, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
    }
    return gl_wave_strip_rows((const void *)e->timed, &resident, (width + 511) / 512, height - 2, DP4A_RING);
}

extern "C" void launch_conv(conv_kernel k, const conv_args *a, cudaStream_t s)
{
    const conv_entry *e = &TABLE[k];
    if (e->wide == 2) { /* one warp a block, a strip of ring_rows output rows */
        conv_args b = *a;
        b.ring_rows = bulk_rows(e, a->width, a->height);
        const dim3 grid((unsigned)((a->width + 511) / 512), (unsigned)((a->height - 2 + b.ring_rows - 1) / b.ring_rows));
        (a->counts ? e->count : e->timed)<<<grid, 32, 0, s>>>(b);
        GL_CHECK_LAUNCH();
        return;
    }
    /* The seed's kernels: 32 x 32 threads; the wide ones 32 x 8 (a warp is one row of threads). */
    dim3 block(SEED_BLOCK, e->block_y ? e->block_y : e->wide ? 8 : SEED_BLOCK);
    unsigned groups = (unsigned)((a->width + e->pixels - 1) / e->pixels);
    unsigned rows = e->wide ? (unsigned)((a->height - 2 + e->rows - 1) / e->rows) : (unsigned)a->height;
    dim3 grid((groups + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
    size_t smem = e->shared ? (size_t)(SEED_BLOCK * e->pixels + 2) * (SEED_BLOCK + 2) : 0;
    (a->counts ? e->count : e->timed)<<<grid, block, smem, s>>>(*a);
    GL_CHECK_LAUNCH();
}
