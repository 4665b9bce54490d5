/* test_image.c - CPU tests of common/gl_image.h: PGM round trips and every rejection, checked
 * writes (a device that is full, a path that cannot be written), PNG written through libpng and
 * read back exactly (gray and RGB, compressed), the test picture; PPM (P6) reading, the gray and
 * RGB readers' conversions, PNG reading. */
#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include "check.h"
#include "gl_image.h"

static char dir[] = "/tmp/gl_test_image_XXXXXX";

/* DIR/name in a static buffer (one at a time). */
static const char *in_dir(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

/* Write n raw bytes to DIR/name; returns the path. */
static const char *put_file(const char *name, const void *bytes, size_t n)
{
    const char *path = in_dir(name);
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(bytes, 1, n, f) == n && fclose(f) == 0, "cannot write fixture %s", path);
    return path;
}

static int file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/* ---- PGM ---- */

static void test_pgm_round_trip(void)
{
    const int sizes[][2] = {{5, 3}, {1, 1}, {16, 16}, {3, 7}, {257, 2}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        gl_image a = {sizes[s][0], sizes[s][1], NULL}, b;
        size_t n = (size_t)a.width * a.height;
        a.pixels = (unsigned char *)malloc(n);
        for (size_t i = 0; i < n; i++) a.pixels[i] = (unsigned char)(i * 37 + s); /* every value 0..255 */
        char err[512] = "";
        int rc = gl_pgm_write(in_dir("round.pgm"), &a, err, sizeof err);
        CHECK(rc == 0, "write %dx%d: %s", a.width, a.height, err);
        CHECK(!file_exists(in_dir("round.pgm.tmp")), "PATH.tmp left behind");
        rc = gl_pgm_read(in_dir("round.pgm"), &b, err, sizeof err);
        CHECK(rc == 0, "read %dx%d: %s", a.width, a.height, err);
        CHECK(b.width == a.width && b.height == a.height, "size %dx%d -> %dx%d", a.width, a.height, b.width,
              b.height);
        CHECK(rc == 0 && b.pixels && memcmp(a.pixels, b.pixels, n) == 0, "%dx%d pixels differ", a.width,
              a.height);
        gl_image_free(&a);
        gl_image_free(&b);
        CHECK(b.pixels == NULL && b.width == 0 && b.height == 0, "gl_image_free zeroes the struct");
    }
    /* Every byte value survives, in a 16x16 ramp. */
    gl_image a = {16, 16, (unsigned char *)malloc(256)}, b;
    for (int i = 0; i < 256; i++) a.pixels[i] = (unsigned char)i;
    char err[512] = "";
    CHECK(gl_pgm_write(in_dir("ramp.pgm"), &a, err, sizeof err) == 0, "%s", err);
    CHECK(gl_pgm_read(in_dir("ramp.pgm"), &b, err, sizeof err) == 0 && memcmp(a.pixels, b.pixels, 256) == 0,
          "0..255 ramp: %s", err);
    gl_image_free(&a);
    gl_image_free(&b);
}

static void test_pgm_header_forms(void)
{
    /* Comments after the magic, after a number (no space before '#'), on lines of their own,
     * ended by CR, and one right after the maxval whose LF is the single whitespace byte. */
    static const char commented[] = "P5# after magic\n3#w\n# own line\n\t# indented\r 2 # h\n255#m\n"
                                    "\x00\x01\x02\xfd\xfe\xff";
    gl_image img;
    char err[512] = "";
    int rc = gl_pgm_read(put_file("comments.pgm", commented, sizeof commented - 1), &img, err, sizeof err);
    CHECK(rc == 0 && img.width == 3 && img.height == 2, "comments: %s", err);
    static const unsigned char want[6] = {0, 1, 2, 253, 254, 255};
    CHECK(rc == 0 && memcmp(img.pixels, want, 6) == 0, "comments: pixels");
    gl_image_free(&img);

    /* Exactly one whitespace byte after maxval: a second newline is the first pixel. */
    static const char two_ws[] = "P5 2 1 255\n\n\x07";
    rc = gl_pgm_read(put_file("two_ws.pgm", two_ws, sizeof two_ws - 1), &img, err, sizeof err);
    CHECK(rc == 0 && img.pixels[0] == '\n' && img.pixels[1] == 7, "one whitespace byte after maxval: %s", err);
    gl_image_free(&img);

    /* Bytes after the pixels are ignored; leading zeros are decimal digits; any whitespace kind. */
    static const char extra[] = "P5\t0002\v\f0002\r\n00255 \x01\x02\x03\x04trailing bytes";
    rc = gl_pgm_read(put_file("extra.pgm", extra, sizeof extra - 1), &img, err, sizeof err);
    CHECK(rc == 0 && img.width == 2 && img.height == 2 && img.pixels[3] == 4, "trailing bytes: %s", err);
    gl_image_free(&img);
}

/* A malformed file: its bytes and words its message must contain (besides the file name). */
typedef struct {
    const char *name;
    const char *bytes;
    size_t n; /* bytes may hold NULs */
    const char *want1, *want2;
} bad_case;

#define BAD(name, lit, w1, w2) {name, lit, sizeof lit - 1, w1, w2}

static void expect_reject(const char *path, const char *what, const char *want1, const char *want2)
{
    gl_image img = {7, 7, (unsigned char *)&img}; /* garbage in: must come back zeroed */
    char err[512] = "";
    int rc = gl_pgm_read(path, &img, err, sizeof err);
    CHECK(rc == -1, "%s: accepted", what);
    CHECK(img.pixels == NULL && img.width == 0 && img.height == 0, "%s: image not zeroed", what);
    CHECK(strstr(err, path) == err, "%s: message does not start with the path: %s", what, err);
    CHECK(!want1 || strstr(err, want1), "%s: '%s' not in: %s", what, want1, err);
    CHECK(!want2 || strstr(err, want2), "%s: '%s' not in: %s", what, want2, err);
    CHECK(strchr(err, '\n') == NULL, "%s: message is not one line: %s", what, err);
}

static void test_pgm_rejections(void)
{
    static const bad_case cases[] = {
        BAD("empty.pgm", "", "empty file", NULL),
        BAD("p6.pgm", "P6\n2 2\n255\n012345678901", "magic 'P6'", "only P5"),
        BAD("p2.pgm", "P2\n2 2\n255\n0 1 2 3\n", "magic 'P2'", "only P5"),
        BAD("png.pgm", "\x89PNG\r\n\x1a\n", "not a binary PGM", "\\x89P"),
        BAD("lower.pgm", "p5 1 1 255\n\x01", "magic 'p5'", NULL),
        BAD("one_byte.pgm", "P", "magic 'P'", NULL),
        BAD("p5x.pgm", "P5x 1 1 255\n\x01", "not a binary PGM", "'x'"),
        BAD("p53.pgm", "P53 1 255\n\x01", "not a binary PGM", "'3'"),
        BAD("maxval_65535.pgm", "P5 1 1 65535\n\x01\x02", "maxval 65535: only 8-bit PGM (maxval 255)", NULL),
        BAD("maxval_0.pgm", "P5 1 1 0\n\x01", "maxval 0", "8-bit"),
        BAD("maxval_1.pgm", "P5 1 1 1\n\x01", "maxval 1:", "8-bit"),
        BAD("maxval_254.pgm", "P5 1 1 254\n\x01", "maxval 254", "8-bit"),
        BAD("maxval_256.pgm", "P5 1 1 256\n\x01", "maxval 256", "8-bit"),
        BAD("maxval_big.pgm", "P5 1 1 99999999999999999999999\n\x01", "maxval is too large", "8-bit"),
        BAD("width_0.pgm", "P5 0 3 255\n", "width 0 is invalid: allowed 1..65535", NULL),
        BAD("height_0.pgm", "P5 3 0 255\n", "height 0 is invalid: allowed 1..65535", NULL),
        BAD("zero.pgm", "P5 0 0 255\n", "width 0 is invalid", NULL),
        BAD("width_65536.pgm", "P5 65536 1 255\n\x01", "width 65536 is invalid", NULL),
        BAD("height_big.pgm", "P5 1 70000 255\n\x01", "height 70000 is invalid", NULL),
        BAD("overflow.pgm", "P5 18446744073709551617 1 255\n\x01", "width is too large (20 digits)", NULL),
        BAD("negative.pgm", "P5 -3 3 255\n", "width: expected a decimal number", "'-'"),
        BAD("plus.pgm", "P5 +3 3 255\n", "width: expected a decimal number", "'+'"),
        BAD("letters.pgm", "P5 abc 3 255\n", "width: expected a decimal number", "'a'"),
        BAD("suffix.pgm", "P5 3x 3 255\n", "width: unexpected 'x'", NULL),
        BAD("float.pgm", "P5 3 3.0 255\n", "height: unexpected '.'", NULL),
        BAD("nul_width.pgm", "P5 3\0 3 255\n", "width: unexpected byte 0x00", NULL),
        BAD("nul_first.pgm", "P5 \0 3 255\n", "width: expected a decimal number, found byte 0x00", NULL),
        BAD("nul_maxval.pgm", "P5 1 1 255\0\x01", "maxval: unexpected byte 0x00", NULL),
        BAD("magic_only.pgm", "P5", "header ends before the width", NULL),
        BAD("no_height.pgm", "P5 3", "header ends after the width", NULL),
        BAD("no_maxval.pgm", "P5\n3 3\n", "header ends before the maxval", NULL),
        BAD("eof_comment.pgm", "P5 3 3 # a comment without end", "header ends before the maxval", NULL),
        BAD("eof_comment2.pgm", "P5 # only a comment", "header ends before the width", NULL),
        BAD("maxval_eof.pgm", "P5 3 3 255", "truncated: 0 of 9 pixel bytes", NULL),
        BAD("maxval_comment_eof.pgm", "P5 3 3 255# no end", "truncated: 0 of 9", NULL),
        BAD("truncated.pgm", "P5 4 4 255\n0123456789", "truncated: 10 of 16 pixel bytes", NULL),
        BAD("no_data.pgm", "P5 4 4 255\n", "truncated: 0 of 16 pixel bytes", NULL),
        BAD("too_many.pgm", "P5 65535 65535 255\n", "65535x65535 is too many pixels", "at most 1073741824"),
        BAD("too_many2.pgm", "P5 32769 32768 255\n", "too many pixels", NULL),
        BAD("huge_no_data.pgm", "P5 30000 30000 255\n", "truncated: 0 of 900000000 pixel bytes", NULL),
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_reject(put_file(cases[i].name, cases[i].bytes, cases[i].n), cases[i].name, cases[i].want1,
                      cases[i].want2);

    /* Tokens of thousands of digits: consumed, reported by their length, no overflow. */
    enum { DIGITS = 5000 };
    static char big[DIGITS + 64];
    memcpy(big, "P5 ", 3);
    memset(big + 3, '9', DIGITS);
    memcpy(big + 3 + DIGITS, " 1 255\n\x01", 8);
    expect_reject(put_file("digits.pgm", big, 3 + DIGITS + 8), "5000-digit width", "width is too large (5000 digits)",
                  NULL);
    /* ... also when they are all zeros (value 0, not a huge number) */
    memset(big + 3, '0', DIGITS);
    expect_reject(put_file("zeros.pgm", big, 3 + DIGITS + 8), "5000 zeros", "width 0 is invalid", NULL);
    snprintf(big, sizeof big, "P5 1 1 ");
    memset(big + 7, '7', DIGITS);
    expect_reject(put_file("digits_maxval.pgm", big, 7 + DIGITS), "5000-digit maxval", "maxval is too large", NULL);

    /* Headers promising far more than the file holds fail at once, with no allocation. */
    const char *limits[] = {"too_many.pgm", "huge_no_data.pgm"};
    for (int i = 0; i < 2; i++) {
        double t0 = now_s();
        gl_image img;
        char err[512];
        for (int rep = 0; rep < 100; rep++)
            CHECK(gl_pgm_read(in_dir(limits[i]), &img, err, sizeof err) == -1, "%s", limits[i]);
        double dt = now_s() - t0;
        CHECK(dt < 0.5, "%s: 100 rejections took %.3f s", limits[i], dt);
    }

    /* Files that are missing or not regular files. */
    expect_reject(in_dir("missing.pgm"), "missing file", "cannot open: No such file or directory", NULL);
    expect_reject(dir, "directory", "is a directory", NULL);
    if (file_exists("/dev/null")) expect_reject("/dev/null", "/dev/null", "not a regular file", NULL);
}

/* ---- writes that must fail ---- */

static void test_write_failures(void)
{
    gl_image img;
    char err[512] = "";
    CHECK(gl_image_generate(&img, 64, 64, 1) == 0, "generate");
    struct stat st;
    if (stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode)) {
        err[0] = 0;
        CHECK(gl_pgm_write("/dev/full", &img, err, sizeof err) == -1, "PGM to /dev/full succeeded");
        CHECK(strstr(err, "/dev/full: cannot write: No space left on device"), "PGM /dev/full: %s", err);
        err[0] = 0;
        CHECK(gl_png_write_gray8("/dev/full", &img, err, sizeof err) == -1, "PNG to /dev/full succeeded");
        CHECK(strstr(err, "/dev/full: cannot write: No space left on device"), "PNG /dev/full: %s", err);
        /* ... also when libpng's own writes fail (more than one stdio buffer of compressed data) */
        gl_image big;
        CHECK(gl_image_generate(&big, 512, 512, 2) == 0, "generate 512x512");
        err[0] = 0;
        CHECK(gl_png_write_gray8("/dev/full", &big, err, sizeof err) == -1 &&
                  strstr(err, "/dev/full: cannot write: No space left on device"),
              "big PNG /dev/full: %s", err);
        gl_image_free(&big);
        CHECK(stat("/dev/full", &st) == 0 && S_ISCHR(st.st_mode), "/dev/full is no longer a device");
        CHECK(!file_exists("/dev/full.tmp"), "/dev/full.tmp was created");
    } else {
        printf("test_image: no /dev/full here; its checks skipped\n");
    }
    const char *missing = in_dir("no/such/dir/x.pgm");
    char path[512];
    snprintf(path, sizeof path, "%s", missing);
    err[0] = 0;
    CHECK(gl_pgm_write(path, &img, err, sizeof err) == -1, "PGM into a missing directory succeeded");
    CHECK(strstr(err, path) == err && strstr(err, "No such file or directory"), "missing dir: %s", err);
    err[0] = 0;
    CHECK(gl_png_write_gray8(path, &img, err, sizeof err) == -1, "PNG into a missing directory succeeded");
    CHECK(strstr(err, path) == err && strstr(err, "No such file or directory"), "missing dir: %s", err);
    /* A path under a regular file cannot be written (ENOTDIR, even as root): an error, no file. */
    put_file("plain", "x", 1);
    snprintf(path, sizeof path, "%s", in_dir("plain/x.png"));
    err[0] = 0;
    CHECK(gl_png_write_gray8(path, &img, err, sizeof err) == -1 && strstr(err, path) == err &&
              strstr(err, "cannot write: Not a directory"),
          "PNG under a file: %s", err);
    err[0] = 0;
    gl_image_rgb rgb = {img.width, img.height / 3, img.pixels};
    CHECK(gl_png_write_rgb8(path, &rgb, err, sizeof err) == -1 && strstr(err, "Not a directory"), "RGB PNG: %s", err);
    /* A directory as the output path: refused, and the directory stays. */
    err[0] = 0;
    CHECK(gl_pgm_write(dir, &img, err, sizeof err) == -1 && strstr(err, dir) == err, "directory: %s", err);
    err[0] = 0;
    CHECK(gl_png_write_gray8(dir, &img, err, sizeof err) == -1 && strstr(err, dir) == err, "PNG directory: %s", err);
    /* An invalid image is refused before the file is touched. */
    gl_image bad = {0, 5, img.pixels};
    err[0] = 0;
    CHECK(gl_pgm_write(in_dir("bad.pgm"), &bad, err, sizeof err) == -1 && strstr(err, "invalid image"), "%s", err);
    CHECK(gl_png_write_gray8(in_dir("bad.png"), &bad, err, sizeof err) == -1, "PNG of a 0x5 image");
    CHECK(!file_exists(in_dir("bad.pgm")) && !file_exists(in_dir("bad.pgm.tmp")), "bad.pgm created");
    /* A successful write replaces an existing file and leaves no PATH.tmp. */
    put_file("replace.pgm", "old", 3);
    CHECK(gl_pgm_write(in_dir("replace.pgm"), &img, err, sizeof err) == 0, "%s", err);
    CHECK(stat(in_dir("replace.pgm"), &st) == 0 && st.st_size == 64 * 64 + 13, "replaced size %lld",
          (long long)st.st_size);
    CHECK(!file_exists(in_dir("replace.pgm.tmp")), "replace.pgm.tmp left behind");
    gl_image_free(&img);
}

/* ---- PNG written through libpng: read back exactly, compressed, the right header ---- */

static long long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* The PNG signature and IHDR of a file: its size, bit depth and colour type (0 gray, 2 RGB). */
static int png_header(const char *path, unsigned *w, unsigned *h, int *depth, int *colour)
{
    unsigned char b[26];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(b, 1, sizeof b, f) : 0;
    if (f) fclose(f);
    static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n != sizeof b || memcmp(b, sig, 8) || memcmp(b + 12, "IHDR", 4)) return -1;
    *w = (unsigned)b[16] << 24 | (unsigned)b[17] << 16 | (unsigned)b[18] << 8 | b[19];
    *h = (unsigned)b[20] << 24 | (unsigned)b[21] << 16 | (unsigned)b[22] << 8 | b[23];
    *depth = b[24];
    *colour = b[25];
    return 0;
}

/* Write img as a gray PNG at DIR/name, read it back with gl_image_read_gray and compare every
 * pixel and the header; returns the file's size (-1 after a failed check). */
static long long png_gray_round_trip(const char *name, const gl_image *img)
{
    char err[512] = "", path[512];
    snprintf(path, sizeof path, "%s", in_dir(name));
    CHECK(gl_png_write_gray8(path, img, err, sizeof err) == 0, "PNG %dx%d: %s", img->width, img->height, err);
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    CHECK(!file_exists(tmp), "%s left behind", tmp);
    unsigned w = 0, h = 0;
    int depth = 0, colour = -1;
    CHECK(png_header(path, &w, &h, &depth, &colour) == 0 && w == (unsigned)img->width && h == (unsigned)img->height &&
              depth == 8 && colour == 0,
          "%s: IHDR %ux%u depth %d colour type %d", name, w, h, depth, colour);
    gl_image back;
    int rc = gl_image_read_gray(path, &back, err, sizeof err);
    CHECK(rc == 0 && back.width == img->width && back.height == img->height &&
              memcmp(back.pixels, img->pixels, (size_t)img->width * img->height) == 0,
          "%s: %dx%d pixels differ after the round trip: %s", name, img->width, img->height, err);
    gl_image_free(&back);
    return rc == 0 ? file_size(path) : -1;
}

static void test_png(void)
{
    const int sizes[][2] = {{300, 250}, {1, 1}, {255, 257}, {3, 3}, {65535, 1}, {1, 4099}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        gl_image img;
        CHECK(gl_image_generate(&img, sizes[s][0], sizes[s][1], 99 + s) == 0, "generate");
        png_gray_round_trip("t.png", &img);
        gl_image_free(&img);
    }
    /* Every byte value survives. */
    gl_image ramp = {16, 16, (unsigned char *)malloc(256)};
    for (int i = 0; i < 256; i++) ramp.pixels[i] = (unsigned char)i;
    png_gray_round_trip("ramp.png", &ramp);
    gl_image_free(&ramp);

    /* Compressed: a smooth picture takes a small part of its raw bytes, and even the generated
     * picture (noise of +-8 on every pixel) is smaller than raw. */
    gl_image smooth = {512, 512, (unsigned char *)malloc(512 * 512)};
    for (int y = 0; y < 512; y++)
        for (int x = 0; x < 512; x++) smooth.pixels[y * 512 + x] = (unsigned char)((x + y) / 4);
    long long bytes = png_gray_round_trip("smooth.png", &smooth);
    CHECK(bytes > 0 && bytes < 512 * 512 / 20, "smooth 512x512: %lld bytes, want < 5%% of %d raw", bytes,
          512 * 512);
    gl_image_free(&smooth);
    gl_image gen;
    CHECK(gl_image_generate(&gen, 512, 512, 42) == 0, "generate 512x512");
    bytes = png_gray_round_trip("generated.png", &gen);
    CHECK(bytes > 0 && bytes < 512 * 512, "generated 512x512: %lld bytes, want < %d raw", bytes, 512 * 512);
    gl_image_free(&gen);

    /* RGB: colour type 2, exact through gl_image_read_rgb, smaller than raw when smooth. */
    gl_image_rgb rgb = {256, 128, (unsigned char *)malloc(256 * 128 * 3)}, back;
    for (int i = 0; i < 256 * 128; i++) {
        rgb.pixels[3 * i] = (unsigned char)(i % 256);
        rgb.pixels[3 * i + 1] = (unsigned char)(i / 256);
        rgb.pixels[3 * i + 2] = (unsigned char)(255 - i % 256);
    }
    char err[512] = "";
    const char *path = in_dir("rgb.png");
    CHECK(gl_png_write_rgb8(path, &rgb, err, sizeof err) == 0, "rgb write: %s", err);
    unsigned w = 0, h = 0;
    int depth = 0, colour = -1;
    CHECK(png_header(path, &w, &h, &depth, &colour) == 0 && w == 256 && h == 128 && depth == 8 && colour == 2,
          "rgb IHDR %ux%u depth %d colour type %d", w, h, depth, colour);
    CHECK(gl_image_read_rgb(path, &back, err, sizeof err) == 0 && back.width == 256 && back.height == 128 &&
              memcmp(back.pixels, rgb.pixels, 256 * 128 * 3) == 0,
          "rgb round trip: %s", err);
    CHECK(file_size(path) > 0 && file_size(path) < 256 * 128 * 3 / 10, "rgb gradient: %lld bytes", file_size(path));
    gl_image_rgb_free(&back);
    gl_image_rgb_free(&rgb);
}

/* ---- the generated picture ---- */

static uint64_t fnv1a(const unsigned char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

static void test_generate(void)
{
    gl_image a, b, c;
    CHECK(gl_image_generate(&a, 256, 256, 42) == 0 && gl_image_generate(&b, 256, 256, 42) == 0 &&
              gl_image_generate(&c, 256, 256, 43) == 0, "generate 256x256");
    CHECK(memcmp(a.pixels, b.pixels, 256 * 256) == 0, "same seed, different bytes");
    int threads = gl_cpu_threads_set(1);
    gl_image_free(&b);
    CHECK(gl_image_generate(&b, 256, 256, 42) == 0, "generate on one core");
    gl_cpu_threads_set(threads);
    CHECK(memcmp(a.pixels, b.pixels, 256 * 256) == 0, "one core and %d cores: different bytes", threads);
    CHECK(memcmp(a.pixels, c.pixels, 256 * 256) != 0, "different seed, same bytes");
    /* The same bytes on every machine: a known answer (integer arithmetic only; since the noise is
     * drawn per pixel group from (seed, index), filled on every core). */
    uint64_t h = fnv1a(a.pixels, 256 * 256);
    CHECK(h == 0xb5eacbbf9a765b04ULL, "256x256 seed 42: FNV-1a %016llx changed", (unsigned long long)h);
    int seen[256] = {0}, distinct = 0;
    for (int i = 0; i < 256 * 256; i++) distinct += !seen[a.pixels[i]]++;
    CHECK(distinct >= 200, "%d distinct grey levels", distinct);
    /* Smooth almost everywhere, with sharp edges: few but some big steps between neighbours. */
    int steps = 0;
    for (int y = 0; y < 256; y++)
        for (int x = 1; x < 256; x++) steps += abs(a.pixels[y * 256 + x] - a.pixels[y * 256 + x - 1]) > 64;
    CHECK(steps > 100 && steps < 256 * 255 / 10, "%d steps above 64", steps);
    gl_image_free(&a);
    gl_image_free(&b);
    gl_image_free(&c);
    /* Odd and tiny sizes work; a size out of range is refused. */
    const int sizes[][2] = {{3, 3}, {4093, 7}, {7, 4093}, {1, 1}, {2, 5}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        CHECK(gl_image_generate(&a, sizes[s][0], sizes[s][1], 7) == 0 && a.pixels && a.width == sizes[s][0] &&
                  a.height == sizes[s][1], "generate %dx%d", sizes[s][0], sizes[s][1]);
        gl_image_free(&a);
    }
    CHECK(gl_image_generate(&a, 0, 3, 1) == -1 && a.pixels == NULL, "0x3 accepted");
    CHECK(gl_image_generate(&a, 65536, 1, 1) == -1, "65536x1 accepted");
    CHECK(gl_image_generate(&a, 65535, 65535, 1) == -1, "65535x65535 accepted");
}

/* Remove everything the tests wrote (only plain files: the missing-directory writes made none). */
/* ---- PPM, the readers by kind, PNG reading ---- */

static void test_ppm_and_readers(void)
{
    char err[512] = "";
    /* 2 x 1 P6: (10, 20, 30) and (255, 255, 255) */
    static const char p6[] = "P6\n2 1\n255\n\x0a\x14\x1e\xff\xff\xff";
    const char *path = put_file("two.ppm", p6, sizeof p6 - 1);
    gl_image_rgb c;
    CHECK(gl_ppm_read(path, &c, err, sizeof err) == 0 && c.width == 2 && c.height == 1 && c.pixels[0] == 10 &&
              c.pixels[2] == 30 && c.pixels[5] == 255,
          "P6 read: %s", err);
    gl_image_rgb_free(&c);
    gl_image g;
    CHECK(gl_image_read_gray(path, &g, err, sizeof err) == 0 && g.width == 2 && g.pixels[0] == 18 &&
              g.pixels[1] == 255,
          "P6 read as gray: (77 * 10 + 150 * 20 + 29 * 30 + 128) >> 8 = 18: %s", err);
    gl_image_free(&g);
    /* P5 read as RGB: replicated */
    static const char p5[] = "P5 2 1 255\n\x07\x09";
    path = put_file("two.pgm", p5, sizeof p5 - 1);
    CHECK(gl_image_read_rgb(path, &c, err, sizeof err) == 0 && c.pixels[0] == 7 && c.pixels[1] == 7 &&
              c.pixels[2] == 7 && c.pixels[5] == 9,
          "P5 read as RGB: %s", err);
    gl_image_rgb_free(&c);
    /* rejections name the file and say why */
    static const char short6[] = "P6 2 2 255\n0123456789";
    path = put_file("short.ppm", short6, sizeof short6 - 1);
    CHECK(gl_ppm_read(path, &c, err, sizeof err) == -1 && strstr(err, path) == err && strstr(err, "truncated: 10 of 12"),
          "P6 truncated: %s", err);
    CHECK(gl_image_read_gray(path, &g, err, sizeof err) == -1 && g.pixels == NULL, "P6 truncated as gray");
    static const char deep[] = "P6 1 1 65535\n012345";
    path = put_file("deep.ppm", deep, sizeof deep - 1);
    CHECK(gl_image_read_rgb(path, &c, err, sizeof err) == -1 && strstr(err, "only 8-bit PPM"), "P6 16-bit: %s", err);
    static const char p3[] = "P3 1 1 255\n0 0 0\n";
    path = put_file("ascii.ppm", p3, sizeof p3 - 1);
    CHECK(gl_image_read_gray(path, &g, err, sizeof err) == -1 && strstr(err, "not a binary PGM (P5), PPM (P6) or PNG"),
          "P3: %s", err);
    CHECK(gl_ppm_read(in_dir("two.pgm"), &c, err, sizeof err) == -1 && strstr(err, "not a binary PPM"),
          "a PGM is not a PPM: %s", err);
    CHECK(gl_image_read_gray(dir, &g, err, sizeof err) == -1 && strstr(err, "is a directory"), "directory: %s", err);
    /* RGB PNG written, then read back exactly, as RGB and as gray */
    gl_image_rgb pic;
    CHECK(gl_image_generate_rgb(&pic, 37, 11, 3) == 0, "generate rgb");
    path = in_dir("pic.png");
    CHECK(gl_png_write_rgb8(path, &pic, err, sizeof err) == 0, "rgb png write: %s", err);
    CHECK(gl_image_read_rgb(path, &c, err, sizeof err) == 0 && c.width == 37 && c.height == 11 &&
              memcmp(c.pixels, pic.pixels, 37 * 11 * 3) == 0,
          "rgb png round trip: %s", err);
    gl_image_rgb_free(&c);
    CHECK(gl_image_read_gray(path, &g, err, sizeof err) == 0 && g.pixels[5] == gl_rgb_to_gray(pic.pixels[15], pic.pixels[16], pic.pixels[17]),
          "rgb png read as gray: %s", err);
    gl_image_free(&g);
    gl_image gray8 = {5, 4, pic.pixels};
    CHECK(gl_png_write_gray8(in_dir("g.png"), &gray8, err, sizeof err) == 0 &&
              gl_image_read_gray(in_dir("g.png"), &g, err, sizeof err) == 0 && memcmp(g.pixels, pic.pixels, 20) == 0,
          "gray png round trip: %s", err);
    gl_image_free(&g);
    static const unsigned char bad_png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    path = put_file("bad.png", bad_png, sizeof bad_png);
    CHECK(gl_image_read_rgb(path, &c, err, sizeof err) == -1 && strstr(err, path) == err && c.pixels == NULL,
          "truncated png: %s", err);
    gl_image_rgb_free(&pic);
}

static void cleanup(void)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) remove(in_dir(e->d_name));
    if (d) closedir(d);
    CHECK(rmdir(dir) == 0, "cannot remove %s", dir);
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_pgm_round_trip();
    test_pgm_header_forms();
    test_pgm_rejections();
    test_write_failures();
    test_png();
    test_generate();
    test_ppm_and_readers();
    cleanup();
    return check_report("test_image");
}
