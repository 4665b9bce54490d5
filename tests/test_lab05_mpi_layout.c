/* test_lab05_mpi_layout.c - Lab 05 part 2: the strip layout without MPI. For several sizes,
 * levels and rank counts (equal and unequal splits): transforming every strip on its own with the
 * C reference and placing its sub-bands (haar_place_strip) gives the whole-image transform bit for
 * bit; the pieces cover every pixel exactly once, in increasing image order; haar_take_strip
 * undoes the placement; too many ranks is refused with the reason. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "gl_rng.h"
#include "haar.h"
#include "mpi_layout.h"

static void test_split(void)
{
    haar_strip s[8];
    char err[300];
    /* 96 rows, 4 levels: 6 units of 16 rows over 4 ranks -> 2, 2, 1, 1 units */
    CHECK(haar_split_rows(96, 4, 4, s, err, sizeof err) == 0, "split 96/4");
    CHECK(s[0].row0 == 0 && s[0].rows == 32 && s[1].row0 == 32 && s[1].rows == 32 && s[2].row0 == 64 &&
              s[2].rows == 16 && s[3].row0 == 80 && s[3].rows == 16,
          "unequal split: %d+%d %d+%d %d+%d %d+%d", s[0].row0, s[0].rows, s[1].row0, s[1].rows, s[2].row0, s[2].rows,
          s[3].row0, s[3].rows);
    CHECK(haar_split_rows(32, 4, 3, s, err, sizeof err) == -1 && strstr(err, "use at most 2 rank(s)"),
          "too many ranks: '%s'", err);
    CHECK(haar_split_rows(32, 4, 2, s, err, sizeof err) == 0 && s[1].row0 == 16 && s[1].rows == 16, "2 of 2");
}

/* The whole transform against the strips' transforms placed in the image. */
static void test_placement(int width, int height, int levels, int ranks, haar_convention c)
{
    size_t n = (size_t)width * height;
    float *img = malloc(n * sizeof(float)), *whole = malloc(n * sizeof(float));
    float *placed = malloc(n * sizeof(float)), *strip = malloc(n * sizeof(float));
    int *hits = calloc(n, sizeof(int));
    gl_fill_floats(img, n, 11, (uint32_t)(width + ranks));
    memcpy(whole, img, n * sizeof(float));
    haar_forward_ref(whole, width, height, (size_t)width, levels, c);
    memset(placed, 0xff, n * sizeof(float)); /* NaN: a place never written shows */
    haar_strip s[16];
    char err[300];
    CHECK(haar_split_rows(height, levels, ranks, s, err, sizeof err) == 0, "%s", err);
    int sorted = 1, round_trip = 1;
    for (int r = 0; r < ranks; r++) {
        size_t m = (size_t)width * s[r].rows, count = 0;
        memcpy(strip, img + (size_t)s[r].row0 * width, m * sizeof(float));
        haar_forward_ref(strip, width, s[r].rows, (size_t)width, levels, c);
        haar_piece *p = haar_strip_pieces(width, height, levels, s[r], &count);
        haar_place_strip(strip, placed, p, count);
        size_t covered = 0;
        for (size_t i = 0; i < count; i++) {
            if (i && p[i].image_off < p[i - 1].image_off + (size_t)p[i - 1].len) sorted = 0;
            for (int j = 0; j < p[i].len; j++) hits[p[i].image_off + (size_t)j]++;
            covered += (size_t)p[i].len;
        }
        CHECK(covered == m, "strip %d: pieces cover %zu of %zu", r, covered, m);
        float *back = malloc(m * sizeof(float));
        haar_take_strip(placed, back, p, count);
        if (memcmp(back, strip, m * sizeof(float))) round_trip = 0;
        free(back);
        free(p);
    }
    size_t bad = 0, uncovered = 0;
    for (size_t i = 0; i < n; i++) {
        bad += memcmp(&placed[i], &whole[i], sizeof(float)) != 0;
        uncovered += hits[i] != 1;
    }
    CHECK(bad == 0, "%dx%d, %d levels, %d ranks, %s: %zu of %zu coefficients differ from the whole transform",
          width, height, levels, ranks, haar_convention_name(c), bad, n);
    CHECK(uncovered == 0, "%zu pixels not covered exactly once", uncovered);
    CHECK(sorted, "pieces not in increasing, non-overlapping image order");
    CHECK(round_trip, "take(place(strip)) != strip");
    free(img);
    free(whole);
    free(placed);
    free(strip);
    free(hits);
}

int main(void)
{
    test_split();
    static const int cases[][4] = {{64, 64, 4, 1}, {64, 64, 4, 2}, {64, 64, 4, 3}, {64, 64, 4, 4},
                                   {96, 96, 4, 4}, {128, 48, 4, 3}, {40, 96, 3, 5}, {256, 256, 8, 1},
                                   {64, 128, 6, 2}, {32, 160, 5, 5}, {16, 64, 1, 16}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (int c = 0; c < 2; c++)
            test_placement(cases[i][0], cases[i][1], cases[i][2], cases[i][3], (haar_convention)c);
    return check_report("test_lab05_mpi_layout");
}
