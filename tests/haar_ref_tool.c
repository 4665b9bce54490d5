/* haar_ref_tool.c - for tests/pywt_check.py: WIDTH HEIGHT LEVELS CONVENTION OUTDIR writes
 * OUTDIR/in.f32 (random floats from gl_rng, seed 11) and OUTDIR/out.f32 (the reference forward
 * transform), raw little-endian float32, row-major, tight. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gl_rng.h"
#include "haar.h"

static int write_file(const char *dir, const char *name, const float *v, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(v, sizeof(float), n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "haar_ref_tool: cannot write %s\n", path);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: haar_ref_tool WIDTH HEIGHT LEVELS average|orthonormal OUTDIR\n");
        return 2;
    }
    int w = atoi(argv[1]), h = atoi(argv[2]), l = atoi(argv[3]);
    haar_convention c = strcmp(argv[4], "average") == 0 ? HAAR_AVERAGE : HAAR_ORTHONORMAL;
    char err[160];
    if (haar_check(w, h, l, err, sizeof err)) {
        fprintf(stderr, "haar_ref_tool: %s\n", err);
        return 2;
    }
    size_t n = (size_t)w * h;
    float *x = malloc(n * sizeof(float)), *y = malloc(n * sizeof(float));
    gl_fill_floats(x, n, 11, 1);
    memcpy(y, x, n * sizeof(float));
    haar_forward_ref(y, w, h, (size_t)w, l, c);
    int rc = write_file(argv[5], "in.f32", x, n) || write_file(argv[5], "out.f32", y, n);
    free(x);
    free(y);
    return rc ? 1 : 0;
}
