/* mpi_layout.c - Lab 05 part 2: strips of rows and the sub-band placement (see mpi_layout.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpi_layout.h"

int haar_split_rows(int height, int levels, int parts, haar_strip *strips, char *err, size_t errlen)
{
    int unit = 1 << levels, units = height / unit;
    if (parts < 1 || units < parts) {
        snprintf(err, errlen,
                 "%d rows make %d strip(s) of 2^%d = %d rows (a strip must hold whole %dx%d Haar tiles), "
                 "fewer than the %d rank(s): use at most %d rank(s), fewer levels or a taller image",
                 height, units, levels, unit, unit, unit, parts, units);
        return -1;
    }
    int row = 0;
    for (int r = 0; r < parts; r++) {
        int n = units / parts + (r < units % parts);
        strips[r].row0 = row;
        strips[r].rows = n * unit;
        row += n * unit;
    }
    return 0;
}

static haar_block block(int strip_row, int image_row, int col, int rows, int cols)
{
    haar_block b = {strip_row, image_row, col, rows, cols};
    return b;
}

int haar_strip_blocks(int width, int height, int levels, haar_strip s, haar_block *blocks)
{
    int n = 0;
    /* The approximation after L levels: the strip's top-left corner, the image's LL_L rows. */
    blocks[n++] = block(0, s.row0 >> levels, 0, s.rows >> levels, width >> levels);
    for (int k = levels; k >= 1; k--) {
        int h = s.rows >> k;     /* the strip's rows in each level-k band */
        int down = s.row0 >> k;  /* where they start inside the image's band */
        int top = 0, bottom = height >> k; /* the image's upper and lower bands start here */
        int w = width >> k;
        blocks[n++] = block(0, top + down, w, h, w);     /* HL_k: detail along x, top right */
        blocks[n++] = block(h, bottom + down, 0, h, w);  /* LH_k: detail along y, bottom left */
        blocks[n++] = block(h, bottom + down, w, h, w);  /* HH_k: both, bottom right */
    }
    return n;
}

static int by_image_off(const void *a, const void *b)
{
    size_t x = ((const haar_piece *)a)->image_off, y = ((const haar_piece *)b)->image_off;
    return (x > y) - (x < y);
}

haar_piece *haar_strip_pieces(int width, int height, int levels, haar_strip s, size_t *count)
{
    haar_block blocks[HAAR_MAX_BLOCKS];
    int nb = haar_strip_blocks(width, height, levels, s, blocks);
    size_t n = 0;
    for (int i = 0; i < nb; i++) n += (size_t)blocks[i].rows;
    haar_piece *p = (haar_piece *)malloc((n ? n : 1) * sizeof *p);
    if (!p) return NULL;
    size_t k = 0;
    for (int i = 0; i < nb; i++)
        for (int r = 0; r < blocks[i].rows; r++, k++) {
            p[k].strip_off = (size_t)(blocks[i].strip_row + r) * (size_t)width + (size_t)blocks[i].col;
            p[k].image_off = (size_t)(blocks[i].image_row + r) * (size_t)width + (size_t)blocks[i].col;
            p[k].len = blocks[i].cols;
        }
    qsort(p, n, sizeof *p, by_image_off);
    *count = n;
    return p;
}

void haar_place_strip(const float *strip, float *image, const haar_piece *pieces, size_t count)
{
    for (size_t i = 0; i < count; i++)
        memcpy(image + pieces[i].image_off, strip + pieces[i].strip_off, (size_t)pieces[i].len * sizeof(float));
}

void haar_take_strip(const float *image, float *strip, const haar_piece *pieces, size_t count)
{
    for (size_t i = 0; i < count; i++)
        memcpy(strip + pieces[i].strip_off, image + pieces[i].image_off, (size_t)pieces[i].len * sizeof(float));
}
