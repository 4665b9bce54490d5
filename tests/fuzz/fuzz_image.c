/* fuzz_image.c - libFuzzer target for the picture readers of common/gl_image.h (PGM, PPM, PNG).
 *
 * Each input is written to a file (the readers take a path) and read with gl_image_read_gray,
 * gl_image_read_rgb, gl_pgm_read and gl_ppm_read. A finding is a sanitizer report or a broken
 * promise of the readers: a refusal must leave the picture zeroed with one line "PATH: reason";
 * an accepted picture must have a size gl_image_size_ok allows, and must survive a PGM (gray) and
 * a PNG (gray and RGB) round trip through the writers pixel for pixel.
 * Built and run by tests/fuzz/run.sh (clang -fsanitize=fuzzer,address,undefined). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gl_image.h"

#define FUZZ_NAME "fuzz_image"
#include "fuzz_expect.h"

static char in_path[512], out_path[520];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(in_path, sizeof in_path, "%.480s/gl_fuzz_XXXXXX", tmp);
    int fd = mkstemp(in_path);
    if (fd < 0) {
        perror("fuzz_image: mkstemp");
        exit(1);
    }
    close(fd);
    snprintf(out_path, sizeof out_path, "%s.out", in_path);
    return 0;
}

/* A refusal: -1, the picture zeroed, one line that starts with the path. */
static void expect_refusal(int rc, const char *err, int width, int height, const void *pixels, const char *who)
{
    EXPECT(rc == -1, "%s returned %d", who, rc);
    EXPECT(width == 0 && height == 0 && pixels == NULL, "%s: refused, but the picture is not zeroed", who);
    EXPECT(strncmp(err, in_path, strlen(in_path)) == 0, "%s: message without the path: %s", who, err);
    EXPECT(strchr(err, '\n') == NULL, "%s: message is not one line: %s", who, err);
}

/* An accepted gray picture: a valid size, and the PGM and PNG writers give it back exactly. */
static void check_gray(const gl_image *img)
{
    EXPECT(img->pixels && gl_image_size_ok(img->width, img->height), "gray %dx%d accepted", img->width, img->height);
    if ((long long)img->width * img->height > 1 << 16) return; /* keep each run fast */
    size_t n = (size_t)img->width * img->height;
    char err[512] = "";
    gl_image back;
    EXPECT(gl_pgm_write(out_path, img, err, sizeof err) == 0, "PGM write: %s", err);
    EXPECT(gl_pgm_read(out_path, &back, err, sizeof err) == 0 && back.width == img->width &&
               back.height == img->height && memcmp(back.pixels, img->pixels, n) == 0,
           "PGM round trip %dx%d: %s", img->width, img->height, err);
    gl_image_free(&back);
    EXPECT(gl_png_write_gray8(out_path, img, err, sizeof err) == 0, "PNG write: %s", err);
    EXPECT(gl_image_read_gray(out_path, &back, err, sizeof err) == 0 && back.width == img->width &&
               back.height == img->height && memcmp(back.pixels, img->pixels, n) == 0,
           "gray PNG round trip %dx%d: %s", img->width, img->height, err);
    gl_image_free(&back);
}

static void check_rgb(const gl_image_rgb *img)
{
    EXPECT(img->pixels && gl_image_size_ok(img->width, img->height), "RGB %dx%d accepted", img->width, img->height);
    if ((long long)img->width * img->height > 1 << 16) return;
    size_t n = (size_t)img->width * img->height * 3;
    char err[512] = "";
    gl_image_rgb back;
    EXPECT(gl_png_write_rgb8(out_path, img, err, sizeof err) == 0, "RGB PNG write: %s", err);
    EXPECT(gl_image_read_rgb(out_path, &back, err, sizeof err) == 0 && back.width == img->width &&
               back.height == img->height && memcmp(back.pixels, img->pixels, n) == 0,
           "RGB PNG round trip %dx%d: %s", img->width, img->height, err);
    gl_image_rgb_free(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fopen(in_path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        perror("fuzz_image: cannot write the input file");
        exit(1);
    }
    char err[512];
    gl_image g;
    gl_image_rgb c;
    err[0] = 0;
    int rc = gl_image_read_gray(in_path, &g, err, sizeof err);
    if (rc == 0) check_gray(&g);
    else expect_refusal(rc, err, g.width, g.height, g.pixels, "gl_image_read_gray");
    int gray_ok = rc == 0;

    err[0] = 0;
    rc = gl_image_read_rgb(in_path, &c, err, sizeof err);
    EXPECT((rc == 0) == gray_ok, "the gray reader says %d, the RGB reader %d: %s", gray_ok, rc == 0, err);
    if (rc == 0) {
        check_rgb(&c);
        EXPECT(c.width == g.width && c.height == g.height, "gray %dx%d, RGB %dx%d", g.width, g.height, c.width,
               c.height);
    } else {
        expect_refusal(rc, err, c.width, c.height, c.pixels, "gl_image_read_rgb");
    }
    gl_image_free(&g);
    gl_image_rgb_free(&c);

    /* The format readers on their own (a PGM read of a P6 file must refuse, and so on). */
    err[0] = 0;
    rc = gl_pgm_read(in_path, &g, err, sizeof err);
    if (rc == 0) EXPECT(gl_image_size_ok(g.width, g.height) && size >= (size_t)g.width * g.height, "P5 size");
    else expect_refusal(rc, err, g.width, g.height, g.pixels, "gl_pgm_read");
    gl_image_free(&g);
    err[0] = 0;
    rc = gl_ppm_read(in_path, &c, err, sizeof err);
    if (rc == 0) EXPECT(gl_image_size_ok(c.width, c.height) && size >= (size_t)c.width * c.height * 3, "P6 size");
    else expect_refusal(rc, err, c.width, c.height, c.pixels, "gl_ppm_read");
    gl_image_rgb_free(&c);
    return 0;
}
