/* conv_pictures.c - for peers/filter_peers.py (Lab 04's peers) and its cpu test:
 *   conv_pictures WIDTH HEIGHT SEED OUTDIR [FILTER]
 * writes OUTDIR/in.u8, the picture Lab 04 generates for that size and seed (gl_image_generate:
 * the `sizes` experiment's picture s has seed = the run's seed + 2 + s), and with FILTER (smooth,
 * sharpen or edge) OUTDIR/FILTER.u8, the lab's CPU reference (ladder/reference.c) of it, the frame
 * copied from the input. Raw bytes, row-major, tight. Exit 0 ok, 1 failure, 2 usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "convolution.h"
#include "gl_image.h"

static int write_raw(const char *dir, const char *name, const unsigned char *p, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.u8", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "conv_pictures: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

static const conv_filter *filter_named(const char *name)
{
    for (int i = 0; i < N_FILTERS; i++)
        if (strcmp(CONV_FILTERS[i].name, name) == 0) return &CONV_FILTERS[i];
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 5 || argc > 6) {
        fprintf(stderr, "usage: conv_pictures WIDTH HEIGHT SEED OUTDIR [smooth|sharpen|edge]\n");
        return 2;
    }
    int w = atoi(argv[1]), h = atoi(argv[2]);
    unsigned long long seed = strtoull(argv[3], NULL, 10);
    const conv_filter *f = argc == 6 ? filter_named(argv[5]) : NULL;
    if (w < 3 || h < 3 || !gl_image_size_ok(w, h) || (argc == 6 && !f)) {
        fprintf(stderr, "conv_pictures: WIDTH and HEIGHT >= 3 (at most %d, %lld pixels), FILTER smooth, sharpen or "
                        "edge\n", GL_IMAGE_MAX_SIDE, GL_IMAGE_MAX_PIXELS);
        return 2;
    }
    gl_image img;
    if (gl_image_generate(&img, w, h, seed)) {
        fprintf(stderr, "conv_pictures: out of memory for %d x %d\n", w, h);
        return 1;
    }
    size_t n = (size_t)w * h;
    int rc = write_raw(argv[4], "in", img.pixels, n);
    if (!rc && f) {
        unsigned char *ref = malloc(n);
        if (!ref) {
            fprintf(stderr, "conv_pictures: out of memory\n");
            gl_image_free(&img);
            return 1;
        }
        conv_reference(img.pixels, ref, w, h, f, 1);
        rc = write_raw(argv[4], f->name, ref, n);
        free(ref);
    }
    gl_image_free(&img);
    return rc ? 1 : 0;
}
