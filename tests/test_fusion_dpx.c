/* test_fusion_dpx.c - a CPU emulation of the packed arithmetic of Lab 04's instruction-budget
 * rungs (fusion/rolling.cuh: stage_gauss_x16, stage_median_dpx, stage_median_x16, stage_sobel_diag
 * and its lean form, stage_sobel_half and stage_sobel_abs (half precision on clean halves),
 * unpack_dpx and row_store's clean and lean paths, the geometry of both layouts;
 * pixel.cu: px_fused_gray_dpx on
 * every colour):
 * two gray pictures packed as the 16-bit halves of uint32 words, each stage applied with 32-bit
 * adds (carries between the halves as on the GPU) and per-half min / max, and both halves compared
 * with the reference (fusion_reference.c) bit for bit, on random, flat and black-and-white pictures
 * at odd sizes down to 1 x 1. The lanes, shuffles and strips are the rolling kernels' own (unchanged
 * and checked on the GPU); what this proves is the arithmetic: the scaled gauss, the median through
 * a floor, the middle of three as a sum and as an XOR (fused_xor), and the biased diagonal sobel. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "fusion/fusion.h"

typedef uint32_t u32;
static u32 half(u32 v, int h) { return h ? v >> 16 : v & 0xffffu; }
static u32 per_half(u32 a, u32 b, u32 c, int take_max)
{
    u32 o = 0;
    for (int h = 0; h < 2; h++) {
        u32 x = half(a, h), y = half(b, h), z = half(c, h), m = x;
        if (take_max ? y > m : y < m) m = y;
        if (take_max ? z > m : z < m) m = z;
        o |= m << (16 * h);
    }
    return o;
}
static u32 min3u2(u32 a, u32 b, u32 c) { return per_half(a, b, c, 0); }
static u32 max3u2(u32 a, u32 b, u32 c) { return per_half(a, b, c, 1); }
static u32 mid3u2(u32 a, u32 b, u32 c) { return a + b + c - min3u2(a, b, c) - max3u2(a, b, c); }
/* fused_xor's middle of three (rolling.cuh mid3_xor): the XOR of the three and of their min and max. */
static u32 mid3_xor(u32 a, u32 b, u32 c) { return a ^ b ^ c ^ min3u2(a, b, c) ^ max3u2(a, b, c); }
static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* __byte_perm(x, y, s): result byte i is byte (s >> 4 i) & 7 of the pair (x: bytes 0-3, y: 4-7). */
static u32 byte_perm(u32 x, u32 y, u32 s)
{
    const uint64_t xy = x | (uint64_t)y << 32;
    u32 o = 0;
    for (int i = 0; i < 4; i++) o |= (u32)(xy >> (8 * ((s >> (4 * i)) & 7)) & 0xffu) << (8 * i);
    return o;
}

/* unpack_dpx and the clean row_store for np pixels pairs (4 or 8): random words to halves and back. */
static void test_unpack_store(int np, unsigned seed)
{
    u32 w[4], e[4], o[4], p[8], back[4];
    srand(seed);
    for (int k = 0; k < np / 2; k++) w[k] = (u32)rand() << 16 ^ (u32)rand() ^ (u32)rand() << 31;
    for (int k = 0; k < np / 2; k++) o[k] = byte_perm(w[k], 0, 0x4341), e[k] = o[k] * 0xffffff00u + w[k];
    int bad = 0;
    for (int j = 0; j < np; j++) {
        const u32 *src = j & 1 ? o : e;
        p[j] = byte_perm(src[j / 4], src[(np + j) / 4], j & 2 ? 0x7632 : 0x5410);
        bad += p[j] != ((w[j / 4] >> (8 * (j % 4)) & 0xffu) | (w[(np + j) / 4] >> (8 * (j % 4)) & 0xffu) << 16);
    }
    for (int k = 0; k < np / 4; k++) {
        const u32 a = p[4 * k + 1] * 256u + p[4 * k], b = p[4 * k + 3] * 256u + p[4 * k + 2];
        back[k] = byte_perm(a, b, 0x5410), back[np / 4 + k] = byte_perm(a, b, 0x7632);
    }
    CHECK(bad == 0 && !memcmp(back, w, (size_t)np / 2 * 4), "unpack_dpx / clean store, np %d: %d pairs wrong", np, bad);
}

/* row_store's lean path (fused_lean): np registers with each result in byte 1 (low half) or byte 3
 * (high half), gathered by byte permutes into the low strip's words and the high strip's. */
static void test_lean_store(int np, unsigned seed)
{
    u32 q[8], w[4];
    srand(seed);
    for (int j = 0; j < np; j++) q[j] = (u32)rand() << 16 ^ (u32)rand() ^ (u32)rand() << 31;
    for (int k = 0; k < np / 4; k++) {
        const u32 a = byte_perm(q[4 * k], q[4 * k + 1], 0x7351), b = byte_perm(q[4 * k + 2], q[4 * k + 3], 0x7351);
        w[k] = byte_perm(a, b, 0x5410), w[np / 4 + k] = byte_perm(a, b, 0x7632);
    }
    int bad = 0;
    for (int j = 0; j < np; j++) {
        bad += (w[j / 4] >> (8 * (j % 4)) & 0xffu) != (q[j] >> 8 & 0xffu);
        bad += (w[np / 4 + j / 4] >> (8 * (j % 4)) & 0xffu) != q[j] >> 24;
    }
    CHECK(bad == 0, "lean store, np %d: %d bytes wrong", np, bad);
}

typedef enum { GAUSS_X16, MEDIAN_X16, SOBEL_DIAG, MEDIAN_DPX, SOBEL_LEAN, SOBEL_HALF, SOBEL_ABS } emu_stage;

static int half_inexact; /* stage_sobel_half: a sum or difference reached 2048 (no longer exact in half precision) */
static int exact_half(int v)
{
    if (v <= -2048 || v >= 2048) half_inexact++;
    return v;
}

/* stage_sobel_half on one half: each pixel v (0..255) is the half-precision number v x 2^-24, so a
 * sum or difference is exact while |result| < 2048 (exact_half counts any that is not); then
 * n = max(|P|, |Q|), min(n, 511) x 128 in the half (the lean store takes byte 1). */
static u32 emu_sobel_half(u32 n[3][3], int h)
{
    int x1[3], x2[3], d[3];
    for (int k = 0; k < 3; k++) {
        const int a = (int)half(n[0][k], h), b = (int)half(n[1][k], h), c = (int)half(n[2][k], h);
        x1[k] = exact_half(b + c), x2[k] = exact_half(a + b), d[k] = exact_half(c - a);
    }
    const int P = exact_half(exact_half(x1[2] - x2[0]) + d[1]), Q = exact_half(exact_half(x1[0] - x2[2]) + d[1]);
    int m = abs(P) > abs(Q) ? abs(P) : abs(Q);
    m = m < 511 ? m : 511;
    return (u32)m * 128u;
}

/* stage_sobel_abs on one half: s = a + 2b + c and d = c - a per column, gx = s right - s left, gy =
 * d left + 2d + d right, n = |gx| + |gy|, each exact while below 2048 in magnitude (exact_half); then
 * min(n, 1023) x 64 in the half (the lean store takes byte 1). */
static u32 emu_sobel_abs(u32 n[3][3], int h)
{
    int s[3], d[3];
    for (int k = 0; k < 3; k++) {
        const int a = (int)half(n[0][k], h), b = (int)half(n[1][k], h), c = (int)half(n[2][k], h);
        s[k] = exact_half(2 * b + exact_half(a + c)), d[k] = exact_half(c - a);
    }
    const int gx = exact_half(s[2] - s[0]), gy = exact_half(exact_half(2 * d[1] + d[0]) + d[2]);
    int m = exact_half(abs(gx) + abs(gy));
    m = m < 1023 ? m : 1023;
    return (u32)m * 64u;
}

/* Both half-precision sobels on single windows against the reference's bk_stage_pixel: every window
 * of 0s and 255s (the largest gradients: the clamps at 511 and 1023 are reached, which the smoothed
 * pictures of run_case never do) in the low half, random windows in the high half. */
static void test_sobel_windows(unsigned seed)
{
    srand(seed);
    int bad_half = 0, bad_abs = 0, saturated = 0;
    for (int mask = 0; mask < 512; mask++) {
        uint8_t lo[9], hi[9];
        u32 n[3][3];
        for (int i = 0; i < 9; i++) {
            lo[i] = (uint8_t)(mask >> i & 1 ? 255 : 0), hi[i] = (uint8_t)rand();
            n[i / 3][i % 3] = lo[i] | (u32)hi[i] << 16;
        }
        const uint8_t want_lo = bk_stage_pixel(BK_SOBEL, lo, 3, 3, 1, 1), want_hi = bk_stage_pixel(BK_SOBEL, hi, 3, 3, 1, 1);
        saturated += want_lo == 255;
        const u32 h = emu_sobel_half(n, 0) | emu_sobel_half(n, 1) << 16, a = emu_sobel_abs(n, 0) | emu_sobel_abs(n, 1) << 16;
        bad_half += (h >> 8 & 0xffu) != want_lo || h >> 24 != want_hi;
        bad_abs += (a >> 8 & 0xffu) != want_lo || a >> 24 != want_hi;
    }
    CHECK(saturated > 0, "no window of 0s and 255s reached the clamp at 255");
    CHECK(bad_half == 0 && bad_abs == 0, "sobel windows: %d wrong in half precision, %d as |gx| + |gy|", bad_half, bad_abs);
}

/* One packed pixel of a stage from the clamped 3x3 neighbourhood n[r][k] (row r, column k); odd: x is. */
static u32 emu_pixel(emu_stage s, u32 n[3][3], int odd)
{
    if (s == SOBEL_HALF) return emu_sobel_half(n, 0) | emu_sobel_half(n, 1) << 16;
    if (s == SOBEL_ABS) return emu_sobel_abs(n, 0) | emu_sobel_abs(n, 1) << 16;
    u32 col[3][4]; /* per column k: the stage's column quantities */
    for (int k = 0; k < 3; k++) {
        u32 a = n[0][k], b = n[1][k], c = n[2][k];
        if (s == GAUSS_X16) col[k][0] = a + 2 * b + c;
        if (s == MEDIAN_X16 || s == MEDIAN_DPX) {
            col[k][0] = min3u2(a, b, c), col[k][2] = max3u2(a, b, c);
            col[k][1] = a + b + c - col[k][0] - col[k][2];
        }
        if (s == SOBEL_DIAG || s == SOBEL_LEAN) col[k][0] = b + c, col[k][1] = a + b, col[k][2] = c + 0x04000400u - a, col[k][3] = a + 0x04000400u - c;
    }
    if (s == GAUSS_X16) return (col[0][0] + col[2][0] + 2 * col[1][0]) * 16 + 0x00800080u;
    if (s == SOBEL_DIAG || s == SOBEL_LEAN) {
        const u32 x1l = col[0][0], x1r = col[2][0], x2l = col[0][1], x2r = col[2][1], dd = col[1][2], ee = col[1][3];
        const u32 pa = x1r + dd - x2l, qd = x1l + dd - x2r;
        const int lean = s == SOBEL_LEAN; /* B = 2048 - A, C = 2048 - D (no ee) */
        const u32 pb = lean ? 0x08000800u - pa : x2l + ee - x1r, qc = lean ? 0x08000800u - qd : x2r + ee - x1l;
        const u32 m = min3u2(max3u2(max3u2(pa, pb, qc), qd, qd), 0x05ff05ffu, 0x05ff05ffu);
        const u32 q = m * 128u + 0xfffe0000u; /* 128 (m - 1024): the result in bytes 1, 3 */
        return lean ? q : byte_perm(q, 0, 0x4341); /* lean: the store takes bytes 1, 3 (test_lean_store) */
    }
    /* the median of the medians as the kernel takes it: columns (x, x + 1) sorted for an even x and
     * (x - 1, x) for an odd one (the pair two outputs share), then max(min of pair, min(other, max)) */
    const u32 *near = odd ? &col[0][1] : &col[1][1], *far = odd ? &col[2][1] : &col[0][1];
    const u32 lo2 = min3u2(near[0], near[4], near[4]), hi2 = max3u2(near[0], near[4], near[4]);
    const u32 mid_mi = max3u2(lo2, min3u2(*far, hi2, hi2), lo2);
    const u32 m = mid3u2(max3u2(col[0][0], col[1][0], col[2][0]), mid_mi, min3u2(col[0][2], col[1][2], col[2][2]));
    return s == MEDIAN_DPX ? m : byte_perm(m, 0, 0x4341);
}

static void emu_stage_run(emu_stage s, const u32 *in, u32 *out, int w, int h)
{
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            u32 n[3][3];
            for (int r = 0; r < 3; r++)
                for (int k = 0; k < 3; k++) n[r][k] = in[(size_t)clampi(y - 1 + r, 0, h - 1) * w + clampi(x - 1 + k, 0, w - 1)];
            out[(size_t)y * w + x] = emu_pixel(s, n, x & 1);
        }
}

/* Both halves of the packed result against the reference of pictures a (low) and b (high). */
static void compare(const u32 *got, const uint8_t *ra, const uint8_t *rb, size_t n, const char *what, int w, int h)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += half(got[i], 0) != ra[i] || half(got[i], 1) != rb[i];
    CHECK(bad == 0, "%s %d x %d: %zu of %zu packed pixels differ", what, w, h, bad, n);
}

static void run_case(int w, int h, int kind, unsigned seed)
{
    const size_t n = (size_t)w * h;
    uint8_t *a = malloc(n), *b = malloc(n), *t = malloc(n), *ra = malloc(n), *rb = malloc(n);
    u32 *p = malloc(4 * n), *q = malloc(4 * n);
    srand(seed);
    for (size_t i = 0; i < n; i++) {
        int v = rand(), u = rand();
        a[i] = (uint8_t)(kind == 0 ? v : kind == 1 ? 255 : (v & 1) * 255);
        b[i] = (uint8_t)(kind == 0 ? u : kind == 1 ? 0 : (u & 1) * 255);
    }
    for (size_t i = 0; i < n; i++) p[i] = a[i] | (u32)b[i] << 16;
    memset(q, 0xAB, 4 * n); /* the output poisoned: a pixel the emulation never wrote fails the compare */
    /* the median rung alone */
    emu_stage_run(MEDIAN_DPX, p, q, w, h);
    bk_stage_ref(BK_MEDIAN, a, ra, w, h);
    bk_stage_ref(BK_MEDIAN, b, rb, w, h);
    compare(q, ra, rb, n, "median dpx", w, h);
    /* the fused rung: gauss_x16 -> median_x16 -> sobel_diag */
    emu_stage_run(GAUSS_X16, p, q, w, h);
    emu_stage_run(MEDIAN_X16, q, p, w, h);
    emu_stage_run(SOBEL_DIAG, p, q, w, h);
    const uint8_t *src[2] = {a, b};
    uint8_t *dst[2] = {ra, rb};
    for (int i = 0; i < 2; i++) {
        bk_stage_ref(BK_GAUSS, src[i], dst[i], w, h);
        bk_stage_ref(BK_MEDIAN, dst[i], t, w, h);
        bk_stage_ref(BK_SOBEL, t, dst[i], w, h);
    }
    compare(q, ra, rb, n, "fused dpx", w, h);
    /* fused_lean: the same stages, its sobel's bytes 1 and 3 as row_store's lean path takes them */
    emu_stage_run(SOBEL_LEAN, p, q, w, h);
    for (size_t i = 0; i < n; i++) q[i] = (q[i] >> 8 & 0xffu) | (q[i] >> 24) << 16;
    compare(q, ra, rb, n, "fused lean", w, h);
    /* fused_half: the same stages, sobel in half precision, bytes 1 and 3 as the lean store takes them */
    half_inexact = 0;
    emu_stage_run(SOBEL_HALF, p, q, w, h);
    for (size_t i = 0; i < n; i++) q[i] = (q[i] >> 8 & 0xffu) | (q[i] >> 24) << 16;
    compare(q, ra, rb, n, "fused half", w, h);
    CHECK(half_inexact == 0, "fused half %d x %d: %d sums outside half precision's exact range", w, h, half_inexact);
    /* stage_sobel_abs (the probe tools/probes/flat_next.cu): the same, sobel as |gx| + |gy| */
    emu_stage_run(SOBEL_ABS, p, q, w, h);
    for (size_t i = 0; i < n; i++) q[i] = (q[i] >> 8 & 0xffu) | (q[i] >> 24) << 16;
    compare(q, ra, rb, n, "fused abs", w, h);
    CHECK(half_inexact == 0, "fused abs %d x %d: %d sums outside half precision's exact range", w, h, half_inexact);
    free(a), free(b), free(t), free(ra), free(rb), free(p), free(q);
}

/* rolling.cu's geometry, split (two halves np apart in one lane) and strips (np columns from x0
 * and np from x0 + 30 np): every column written by exactly one lane (lanes 1..30, rolling_body's
 * writer bits), and row_clamp_columns' choice of the lane, pixel and half holding x = 0 and
 * x = width - 1 is that column wherever the warp holds it. */
static void test_geometry(int np, int strips, int width)
{
    const int span = strips ? np : 2 * np, gap = strips ? 30 * np : np, reach = strips ? gap + 32 * np : 32 * span;
    int *hits = calloc((size_t)width, sizeof *hits), bad = 0;
    for (int bx = 0; bx * 60 * np < width; bx++) {
        const int x0w = bx * 60 * np - span;
        int l0 = -x0w / span, xw = width - 1 - x0w, hw = 0; /* row_clamp_columns, as written there */
        l0 = l0 < 0 ? 0 : l0 > 31 ? 31 : l0;
        xw = xw < 0 ? 0 : xw;
        if (strips && xw >= 32 * span) xw -= gap, hw = 1;
        xw = xw > 32 * span - 1 ? 32 * span - 1 : xw;
        const int lw = xw / span, iw = xw % span, h_last = strips ? hw : iw / np;
        const int x_first = x0w + l0 * span, x_last = x0w + lw * span + iw % np + h_last * gap;
        if (x0w < 0 && x_first != 0) bad++;
        if (x0w + reach > width && width - 1 >= x0w && x_last != width - 1) bad++;
        for (int lane = 1; lane <= 30; lane++) {
            const int x0 = x0w + lane * span;
            for (int h = 0; h < 2; h++) {
                if (x0 + h * gap >= width || (!strips && x0 >= width)) continue;
                for (int j = 0; j < np; j++)
                    if (x0 + h * gap + j < width) hits[x0 + h * gap + j]++;
            }
        }
    }
    for (int x = 0; x < width; x++) bad += hits[x] != 1;
    CHECK(bad == 0, "geometry np %d %s width %d: %d columns or edge picks wrong", np, strips ? "strips" : "split", width, bad);
    free(hits);
}

/* dp4a.u32.s32: four unsigned bytes of p times four signed bytes of w, plus c. */
static int dot4(u32 p, u32 w, int c)
{
    for (int i = 0; i < 4; i++) c += (int)(p >> (8 * i) & 0xffu) * (int8_t)(w >> (8 * i) & 0xffu);
    return c;
}
static int clamp255_add(int v, int k) { return clampi(v + k, 0, 255); }

/* pixel.cu's px_fused_gray_dpx, line for line (>> on a negative int is a floor, as on the GPU),
 * against the five reference stages on every RGB colour (2^24 pixels). */
static void test_pixel_dpx(void)
{
    uint8_t gamma[256];
    px_gamma_table(gamma);
    long long bad = 0;
    for (u32 rgb = 0; rgb < 1u << 24; rgb++) {
        const u32 p = rgb | 0xffu << 24;
        const int g128 = (int)((p & 0xff00u) >> 1);
        const int y = gamma[(dot4(p, 0x00190142, g128 + 128) >> 8) + 16];
        const int d = clamp255_add((5 * (dot4(p, 0x0070b6da, 128) >> 8)) >> 2, 128);
        const int e = clamp255_add((5 * (dot4(p, 0x00eea270, 128) >> 8)) >> 2, 128);
        const int c = 298 * y - 4640;
        const int r = clamp255_add((c + 128 + 409 * e) >> 8, -205);
        const int g = clamp255_add((c - 100 * d - 208 * e) >> 8, 154);
        const int b = clamp255_add((c + 516 * d) >> 8, -258);
        const u32 got = (u32)(77 * r + 150 * g + 29 * b + 128) >> 8;
        u32 want = p;
        for (int s = 0; s < PX_STAGES; s++) want = px_stage_pixel((px_stage)s, want, gamma);
        bad += got != want;
    }
    CHECK(bad == 0, "px_fused_gray_dpx: %lld of 2^24 colours differ from the five stages", bad);
}

/* mid3_xor against mid3u2 and against a per-half sort: random halves, ties (equal halves) and the ends of
 * the 16-bit range, where a wrong identity would show. */
static void test_mid3_xor(unsigned seed)
{
    srand(seed);
    static const u32 edge[] = {0, 1, 0x7fff, 0x8000, 0xfffe, 0xffff};
    for (int i = 0; i < 2000; i++) {
        u32 v[3];
        for (int k = 0; k < 3; k++) {
            const u32 lo = i & 1 ? edge[rand() % 6] : (u32)rand() & 0xffffu;
            const u32 hi = i & 2 ? (u32)rand() % 3 : (u32)rand() & 0xffffu; /* small: many ties */
            v[k] = lo | hi << 16;
        }
        u32 want = 0;
        for (int h = 0; h < 2; h++) {
            u32 x = half(v[0], h), y = half(v[1], h), z = half(v[2], h), t;
            if (x > y) t = x, x = y, y = t;
            if (y > z) t = y, y = z, z = t;
            if (x > y) t = x, x = y, y = t;
            want |= y << (16 * h);
        }
        const u32 got = mid3_xor(v[0], v[1], v[2]);
        CHECK(got == want && got == mid3u2(v[0], v[1], v[2]), "mid3_xor(%08x, %08x, %08x) = %08x, want %08x", v[0],
              v[1], v[2], got, want);
    }
}

int main(void)
{
    test_mid3_xor(7u);
    half_inexact = 0;
    test_sobel_windows(11u);
    CHECK(half_inexact == 0, "sobel windows: %d sums outside half precision's exact range", half_inexact);
    test_pixel_dpx();
    static const int widths[] = {1, 2, 3, 5, 61, 119, 120, 121, 127, 128, 129, 239, 240, 241, 247, 248, 249, 257, 480, 4093};
    for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++)
        for (int np = 4; np <= 8; np += 4)
            for (int strips = 0; strips < 2; strips++) test_geometry(np, strips, widths[i]);
    static const int sizes[][2] = {{1, 1}, {2, 3}, {7, 5}, {61, 7}, {257, 131}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (int kind = 0; kind < 3; kind++) run_case(sizes[s][0], sizes[s][1], kind, 17u + (unsigned)(s * 3 + kind));
    for (unsigned seed = 1; seed <= 50; seed++) test_unpack_store(seed & 1 ? 4 : 8, seed);
    for (unsigned seed = 1; seed <= 50; seed++) test_lean_store(seed & 1 ? 4 : 8, seed);
    return check_report("test_fusion_dpx");
}
