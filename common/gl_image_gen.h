/* gl_image_gen.h - deterministic test pictures for the image labs: gl_image_generate (gray:
 * gradient, shapes, text-like strokes, noise) and gl_image_generate_rgb (three gray pictures as
 * R, G, B). Same seed, same bytes on every machine (integer arithmetic only). Included by
 * gl_image.h, the header labs include; header-only C11 (also compiles as C++). */
#ifndef GL_IMAGE_GEN_H
#define GL_IMAGE_GEN_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "gl_image.h"
#include "gl_parallel.h"
#include "gl_rng.h"

/* Paint value v into the rectangle [x0, x1) x [y0, y1), clipped to the image. */
static inline void gl_image_fill_rect(gl_image *img, long long x0, long long y0, long long x1, long long y1,
                                      unsigned char v)
{
    if (x0 < 0) x0 = 0;
    if (y0 < 0) y0 = 0;
    if (x1 > img->width) x1 = img->width;
    if (y1 > img->height) y1 = img->height;
    for (long long y = y0; y < y1; y++)
        for (long long x = x0; x < x1; x++) img->pixels[y * img->width + x] = v;
}

/* Paint a filled disc of radius r around (cx, cy): every pixel centre within r. */
static inline void gl_image_fill_disc(gl_image *img, long long cx, long long cy, long long r, unsigned char v)
{
    for (long long y = cy - r; y <= cy + r; y++) {
        if (y < 0 || y >= img->height) continue;
        for (long long x = cx - r; x <= cx + r; x++)
            if (x >= 0 && x < img->width && (x - cx) * (x - cx) + (y - cy) * (y - cy) <= r * r)
                img->pixels[y * img->width + x] = v;
    }
}

/* Draw one made-up glyph with its top-left corner at (x, y): a 5x7 box (scaled by the stroke width
 * s) built from strokes like a segment display's - three bars, four half-height sides, a centre
 * stem - so lines of glyphs read as text. Only pixels inside `clip` (x0, y0, x1, y1) change. */
static inline void gl_image_glyph(gl_image *img, long long x, long long y, int s, uint32_t segments,
                                  unsigned char ink, const long long clip[4])
{
    /* segment: x, y, w, h in glyph units (1 unit = s pixels) */
    static const int seg[8][4] = {{0, 0, 5, 1}, {0, 3, 5, 1}, {0, 6, 5, 1}, {0, 0, 1, 4},
                                  {0, 3, 1, 4}, {4, 0, 1, 4}, {4, 3, 1, 4}, {2, 0, 1, 7}};
    for (int k = 0; k < 8; k++) {
        if (!(segments >> k & 1)) continue;
        long long x0 = x + (long long)seg[k][0] * s, y0 = y + (long long)seg[k][1] * s;
        long long x1 = x0 + (long long)seg[k][2] * s, y1 = y0 + (long long)seg[k][3] * s;
        gl_image_fill_rect(img, x0 > clip[0] ? x0 : clip[0], y0 > clip[1] ? y0 : clip[1],
                           x1 < clip[2] ? x1 : clip[2], y1 < clip[3] ? y1 : clip[3], ink);
    }
}

/* A value in [lo, hi) from the next draw (hi > lo). */
static inline long long gl_image_pick(gl_rng *r, long long lo, long long hi)
{
    return lo + (long long)gl_range((uint32_t)(gl_rng_next(r) >> 32), (uint32_t)(hi - lo));
}

/* A deterministic test picture (same seed: same bytes everywhere; integer arithmetic only): a
 * diagonal gradient, discs and rectangles with sharp edges, a paper block of text-like strokes
 * one and two pixels wide, then uniform noise of +-8. Every position and size is a fraction of
 * the image, so any size works (below 3x3 the shapes degenerate to a few pixels). Returns 0, or
 * -1 if the size is out of range (gl_image_size_ok) or allocation fails; *img is zeroed then. */
static inline int gl_image_generate(gl_image *img, int width, int height, uint64_t seed)
{
    memset(img, 0, sizeof *img);
    if (!gl_image_size_ok(width, height)) return -1;
    img->pixels = (unsigned char *)malloc((size_t)width * height);
    if (!img->pixels) return -1;
    img->width = width;
    img->height = height;
    gl_rng r = gl_rng_seeded(seed, 0x1ae);
    const long long w = width, h = height, small = w < h ? w : h;

    /* Background: 24 at the top-left corner rising to 224 at the bottom-right (rows on every core:
     * each pixel on its own, integer maths). */
    GL_PARALLEL_FOR
    for (long long y = 0; y < h; y++)
        for (long long x = 0; x < w; x++)
            img->pixels[y * w + x] = (unsigned char)(24 + 200 * (x * h + y * w) / (2 * w * h));

    /* Three rectangles and four discs of random grey anywhere in the picture. */
    for (int i = 0; i < 3; i++) {
        long long rw = gl_image_pick(&r, w / 8 + 1, w / 3 + 2), rh = gl_image_pick(&r, h / 8 + 1, h / 3 + 2);
        long long x0 = gl_image_pick(&r, 0, w - rw / 2 + 1), y0 = gl_image_pick(&r, 0, h - rh / 2 + 1);
        gl_image_fill_rect(img, x0, y0, x0 + rw, y0 + rh, (unsigned char)gl_image_pick(&r, 0, 256));
    }
    for (int i = 0; i < 4; i++) {
        long long rad = gl_image_pick(&r, small / 16, small / 6 + 1);
        long long cx = gl_image_pick(&r, 0, w), cy = gl_image_pick(&r, 0, h);
        gl_image_fill_disc(img, cx, cy, rad, (unsigned char)gl_image_pick(&r, 0, 256));
    }

    /* Text: a light block in the lower left, lines of dark glyphs; the upper half of the block
     * has strokes one pixel wide (glyph cells 7x10), the lower half two pixels (14x20). */
    long long clip[4] = {w / 16, h - h / 3 - h / 16, w / 16 + w / 2, h - h / 16};
    gl_image_fill_rect(img, clip[0], clip[1], clip[2], clip[3], (unsigned char)gl_image_pick(&r, 220, 250));
    unsigned char ink = (unsigned char)gl_image_pick(&r, 8, 40);
    long long mid = (clip[1] + clip[3]) / 2;
    for (int s = 1; s <= 2; s++) {
        long long top = s == 1 ? clip[1] + 2 : mid + 2, bottom = s == 1 ? mid : clip[3];
        long long part[4] = {clip[0], top, clip[2], bottom};
        for (long long y = top; y < bottom; y += 10 * s)
            for (long long x = clip[0] + 2; x < clip[2]; x += 7 * s) {
                uint64_t d = gl_rng_next(&r);
                if ((d & 7) == 0) continue; /* a space between words */
                /* keep glyphs sparse enough to read: never all eight segments */
                gl_image_glyph(img, x, y, s, (uint32_t)(d >> 8) & 0xff & ~(uint32_t)(1u << (d >> 3 & 7)), ink, part);
            }
    }

    /* Noise: +-8 on every pixel, clamped; four 16-bit draws from each 64-bit number, number i/4 a
     * function of (seed, i/4) alone (gl_stream_seed), so every core adds its own part. */
    const long long n = w * h;
    GL_PARALLEL_FOR
    for (long long i = 0; i < n; i += 4) {
        uint64_t d = gl_stream_seed(seed, 0x1af, (uint64_t)i / 4);
        for (long long k = 0; k < 4 && i + k < n; k++, d >>= 16) {
            int v = img->pixels[i + k] + (int)(((d & 0xffff) * 17) >> 16) - 8;
            img->pixels[i + k] = (unsigned char)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
    return 0;
}

/* A deterministic colour test picture: channel c (R, G, B) is the gray picture of seed + c, so
 * shapes of one channel cross those of the others in every colour. Returns 0, or -1 as
 * gl_image_generate (*img zeroed then). */
static inline int gl_image_generate_rgb(gl_image_rgb *img, int width, int height, uint64_t seed)
{
    memset(img, 0, sizeof *img);
    if (!gl_image_size_ok(width, height)) return -1;
    size_t n = (size_t)width * height;
    unsigned char *p = (unsigned char *)malloc(3 * n);
    gl_image g[3];
    int failed = p == NULL;
    for (int c = 0; c < 3; c++) failed |= gl_image_generate(&g[c], width, height, seed + (uint64_t)c) != 0;
    if (failed) {
        for (int c = 0; c < 3; c++) gl_image_free(&g[c]); /* a failed one is zeroed: free(NULL) */
        free(p);
        return -1;
    }
    GL_PARALLEL_FOR
    for (long long i = 0; i < (long long)n; i++)
        for (int c = 0; c < 3; c++) p[3 * i + c] = g[c].pixels[i];
    for (int c = 0; c < 3; c++) gl_image_free(&g[c]);
    img->width = width;
    img->height = height;
    img->pixels = p;
    return 0;
}

#endif
