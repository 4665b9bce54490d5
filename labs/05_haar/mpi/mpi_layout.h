/* mpi_layout.h - Lab 05 part 2: how an image is cut into row strips for several ranks, and where
 * a strip's coefficients belong in the whole image's Mallat layout. Pure C (no MPI, no CUDA).
 *
 * Why strips work: a strip whose height is a multiple of 2^L holds whole 2^L x 2^L Haar tiles,
 * and no Haar pair ever crosses a tile, so L levels on the strip compute exactly the numbers the
 * whole-image transform computes for those rows. Only their places differ: the strip's own
 * Mallat layout puts its LL, HL, LH, HH in its own corners, while in the image they sit inside
 * the image's sub-bands, (row0 / 2^k) rows down each level-k band. Every such rectangle keeps its
 * columns; only its rows move.
 *
 *   strip (rows row0 .. row0 + h)          whole image, level k bands (k = 1 .. L)
 *   +--------+--------+ 0                  +-----------+-----------+ 0
 *   | LL..   | HL_1   |                    |           | HL_k      |
 *   +--------+--------+ h/2                |           |  rows row0/2^k .. (row0 + h)/2^k
 *   | LH_1   | HH_1   |                    +-----------+-----------+ H/2^k
 *   +--------+--------+ h                  | LH_k      | HH_k      |  rows H/2^k + row0/2^k ..
 *                                          +-----------+-----------+ H/2^(k-1)
 */
#ifndef MPI_LAYOUT_H
#define MPI_LAYOUT_H

#include <stddef.h>

/* Rows [row0, row0 + rows) of the image. */
typedef struct {
    int row0, rows;
} haar_strip;

/* Cut `height` rows into `parts` strips of whole units of 2^levels rows, as equal as possible:
 * every strip gets units / parts units and the first units % parts strips one more. Returns 0, or
 * -1 with a one-line reason in err when there are fewer units than parts. */
int haar_split_rows(int height, int levels, int parts, haar_strip *strips, char *err, size_t errlen);

/* A rectangle of the strip's coefficients: `rows` x `cols` floats at (strip_row, col) in the
 * strip's layout go to (image_row, col) in the image's layout. */
typedef struct {
    int strip_row, image_row, col, rows, cols;
} haar_block;

#define HAAR_MAX_BLOCKS (3 * 31 + 1)

/* The 3L + 1 rectangles of strip s of a width x height image after L levels: LL_L first, then
 * HL_k, LH_k, HH_k for k = L .. 1. Returns their number. */
int haar_strip_blocks(int width, int height, int levels, haar_strip s, haar_block *blocks);

/* One row of one block: `len` floats at strip_off in the strip (rows of `width` floats) go to
 * image_off in the image. A strip's pieces, sorted by image_off, list its coefficients in the
 * image's row-major order: the order of global indices (ties of the compression), of an MPI-IO
 * file view (which must be monotone), and of the assembled image. */
typedef struct {
    size_t strip_off, image_off;
    int len;
} haar_piece;

/* The pieces of strip s, sorted by image_off (malloc'ed; *count set). NULL if out of memory. */
haar_piece *haar_strip_pieces(int width, int height, int levels, haar_strip s, size_t *count);

/* Copy a strip's coefficients (its own layout, `width` floats a row) to their places in the
 * image's layout, and back. */
void haar_place_strip(const float *strip, float *image, const haar_piece *pieces, size_t count);
void haar_take_strip(const float *image, float *strip, const haar_piece *pieces, size_t count);

#endif
