/* gl_image.h - 8-bit pictures for the image labs, grayscale (gl_image) and RGB (gl_image_rgb):
 * read and write binary PGM (P5) and read PPM (P6) with our own code (the format the labs
 * document; its messages are part of the labs' behaviour), read and write PNG through libpng's
 * simplified API (compressed output), and, through gl_image_gen.h which this header includes,
 * generate deterministic test pictures. Readers by what the lab wants: gl_image_read_gray (P5,
 * P6 or PNG; colour converted with gl_rgb_to_gray) and gl_image_read_rgb (P6, P5 or PNG; gray
 * replicated to R = G = B). Header-only C11 (also compiles as C++); needs POSIX stat() for the
 * file checks and libpng (a required dependency of the build).
 *
 * The reader trusts nothing in the file: every header token is range-checked, and the pixel
 * bytes the header promises must be in the file before any memory is allocated for them, so a
 * 20-byte file that claims 30000x30000 pixels is refused at once. Both writers produce a complete
 * file or none: PATH.tmp, every write checked, then renamed to PATH (a device such as /dev/full
 * is written in place, as gl_report.h does). Errors come back as one line "PATH: reason". */
#ifndef GL_IMAGE_H
#define GL_IMAGE_H

#include <errno.h>
#include <png.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define GL_IMAGE_MAX_SIDE 65535
#define GL_IMAGE_MAX_PIXELS (1LL << 30)

typedef struct {
    int width, height;
    unsigned char *pixels; /* row-major, tight (row stride = width) */
} gl_image;

typedef struct {
    int width, height;
    unsigned char *pixels; /* row-major, tight, 3 bytes per pixel: R, G, B */
} gl_image_rgb;

static inline void gl_image_free(gl_image *img)
{
    free(img->pixels);
    memset(img, 0, sizeof *img);
}

static inline void gl_image_rgb_free(gl_image_rgb *img)
{
    free(img->pixels);
    memset(img, 0, sizeof *img);
}

/* The one colour-to-gray rule of the labs (BT.601 luma weights in 1/256: 77 + 150 + 29 = 256,
 * rounded): (77 R + 150 G + 29 B + 128) >> 8, always 0..255. */
static inline unsigned char gl_rgb_to_gray(unsigned r, unsigned g, unsigned b)
{
    return (unsigned char)((77u * r + 150u * g + 29u * b + 128u) >> 8);
}

/* printf into the caller's error buffer (err may be NULL or errlen 0: no message). */
static inline void gl_image_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (!err || !errlen) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
}

/* 1 if width x height is a size this header handles: each side 1..65535, at most 2^30 pixels. */
static inline int gl_image_size_ok(long long width, long long height)
{
    return width >= 1 && width <= GL_IMAGE_MAX_SIDE && height >= 1 && height <= GL_IMAGE_MAX_SIDE &&
           width * height <= GL_IMAGE_MAX_PIXELS;
}

/* ---- PGM reader ---- */

/* Netpbm whitespace (the C locale's isspace, spelled out so no locale can change it). */
static inline int gl_pgm_space(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* A byte for a message: 'x' if printable, else "byte 0x00"; "end of file" for EOF. */
static inline const char *gl_pgm_byte_name(int c, char *buf, size_t len)
{
    if (c == EOF) snprintf(buf, len, "end of file");
    else if (c > 0x20 && c < 0x7f) snprintf(buf, len, "'%c'", c);
    else snprintf(buf, len, "byte 0x%02x", (unsigned)c);
    return buf;
}

typedef struct {
    FILE *f;
    const char *path;
    long long pos; /* bytes consumed so far */
    char *err;
    size_t errlen;
} gl_pgm_in;

static inline int gl_pgm_getc(gl_pgm_in *in)
{
    int c = getc(in->f);
    if (c != EOF) in->pos++;
    return c;
}

/* EOF in the header: a read error, or the header ends before `what`. Always returns -1. */
static inline int gl_pgm_eof(gl_pgm_in *in, const char *what)
{
    if (ferror(in->f)) gl_image_err(in->err, in->errlen, "%s: read error: %s", in->path, strerror(errno));
    else gl_image_err(in->err, in->errlen, "%s: header ends %s", in->path, what);
    return -1;
}

/* Skip whitespace and '#' comments (a comment runs to the next LF or CR), starting at byte c
 * already read; returns the first byte of the next token, or EOF. */
static inline int gl_pgm_skip(gl_pgm_in *in, int c)
{
    for (;;) {
        if (c == '#') {
            do c = gl_pgm_getc(in);
            while (c != EOF && c != '\n' && c != '\r');
            if (c == EOF) return EOF;
        } else if (!gl_pgm_space(c)) {
            return c;
        }
        c = gl_pgm_getc(in);
    }
}

/* Read the decimal token `what` that starts at byte c. Values above 10^12 saturate there (the
 * digits are still consumed, so thousands of them are fine); *digits counts them. On return
 * *next is the byte after the token. Returns -1 (message set) if c is not a digit. */
static inline int gl_pgm_number(gl_pgm_in *in, int c, const char *what, long long *value, long long *digits,
                                int *next)
{
    const long long cap = 1000000000000LL;
    char b[24];
    if (c == EOF) {
        char where[32];
        snprintf(where, sizeof where, "before the %s", what);
        return gl_pgm_eof(in, where);
    }
    if (c < '0' || c > '9') {
        gl_image_err(in->err, in->errlen, "%s: %s: expected a decimal number, found %s", in->path, what,
                     gl_pgm_byte_name(c, b, sizeof b));
        return -1;
    }
    long long v = 0, n = 0;
    for (; c >= '0' && c <= '9'; c = gl_pgm_getc(in), n++)
        v = v > cap ? v : v * 10 + (c - '0');
    *value = v;
    *digits = n;
    *next = c;
    return 0;
}

/* Read width or height: a number in 1..65535 followed by whitespace or a comment. */
static inline int gl_pgm_side(gl_pgm_in *in, int *c, const char *what, int *side)
{
    long long v, digits;
    char b[24];
    if (gl_pgm_number(in, gl_pgm_skip(in, *c), what, &v, &digits, c)) return -1;
    if (v > 1000000000000LL) {
        gl_image_err(in->err, in->errlen, "%s: %s is too large (%lld digits): allowed 1..%d", in->path, what,
                     digits, GL_IMAGE_MAX_SIDE);
        return -1;
    }
    if (v < 1 || v > GL_IMAGE_MAX_SIDE) {
        gl_image_err(in->err, in->errlen, "%s: %s %lld is invalid: allowed 1..%d", in->path, what, v,
                     GL_IMAGE_MAX_SIDE);
        return -1;
    }
    if (*c == EOF) {
        char where[32];
        snprintf(where, sizeof where, "after the %s", what);
        return gl_pgm_eof(in, where);
    }
    if (!gl_pgm_space(*c) && *c != '#') {
        gl_image_err(in->err, in->errlen, "%s: %s: unexpected %s after the number", in->path, what,
                     gl_pgm_byte_name(*c, b, sizeof b));
        return -1;
    }
    *side = (int)v;
    return 0;
}

/* The header up to the first pixel byte: magic, width, height, maxval, one whitespace byte.
 * digit '5': a PGM (P5); '6': a PPM (P6). */
static inline int gl_pgm_header(gl_pgm_in *in, int *width, int *height, int digit)
{
    char b[24];
    const char *kind = digit == '6' ? "PPM" : "PGM";
    int m0 = gl_pgm_getc(in), m1 = m0 == EOF ? EOF : gl_pgm_getc(in);
    if (m0 == EOF) {
        if (ferror(in->f)) return gl_pgm_eof(in, "");
        gl_image_err(in->err, in->errlen, "%s: empty file: not a binary PGM (P5), PPM (P6) or PNG", in->path);
        return -1;
    }
    if (m0 != 'P' || m1 != digit) {
        char magic[16] = "";
        int m[2] = {m0, m1};
        for (int i = 0; i < 2 && m[i] != EOF; i++) {
            size_t used = strlen(magic);
            if (m[i] >= 0x20 && m[i] < 0x7f && m[i] != '\'' && m[i] != '\\')
                snprintf(magic + used, sizeof magic - used, "%c", m[i]);
            else
                snprintf(magic + used, sizeof magic - used, "\\x%02x", (unsigned)m[i]);
        }
        gl_image_err(in->err, in->errlen, "%s: not a binary %s (magic '%s'; only P%c is supported)", in->path,
                     kind, magic, digit);
        return -1;
    }
    int c = gl_pgm_getc(in);
    if (c != EOF && !gl_pgm_space(c) && c != '#') {
        gl_image_err(in->err, in->errlen, "%s: not a binary %s (P%c followed by %s, not whitespace)", in->path,
                     kind, digit, gl_pgm_byte_name(c, b, sizeof b));
        return -1;
    }
    if (gl_pgm_side(in, &c, "width", width) || gl_pgm_side(in, &c, "height", height)) return -1;
    if ((long long)*width * *height > GL_IMAGE_MAX_PIXELS) {
        gl_image_err(in->err, in->errlen, "%s: %dx%d is too many pixels (%lld): at most %lld", in->path, *width,
                     *height, (long long)*width * *height, GL_IMAGE_MAX_PIXELS);
        return -1;
    }
    long long maxval, digits;
    if (gl_pgm_number(in, gl_pgm_skip(in, c), "maxval", &maxval, &digits, &c)) return -1;
    if (maxval != 255) {
        if (maxval > 1000000000000LL)
            gl_image_err(in->err, in->errlen, "%s: maxval is too large (%lld digits): only 8-bit %s "
                         "(maxval 255) is supported", in->path, digits, kind);
        else
            gl_image_err(in->err, in->errlen, "%s: maxval %lld: only 8-bit %s (maxval 255) is supported",
                         in->path, maxval, kind);
        return -1;
    }
    /* Exactly one whitespace byte ends the header. A comment may come first (Netpbm allows one
     * before that byte); its closing LF or CR is then the whitespace byte. */
    if (c == '#') {
        do c = gl_pgm_getc(in);
        while (c != EOF && c != '\n' && c != '\r');
    }
    if (c == EOF) {
        if (ferror(in->f)) return gl_pgm_eof(in, "");
        gl_image_err(in->err, in->errlen, "%s: truncated: 0 of %lld pixel bytes (header ends after the maxval)",
                     in->path, (long long)*width * *height * (digit == '6' ? 3 : 1));
        return -1;
    }
    if (!gl_pgm_space(c)) {
        gl_image_err(in->err, in->errlen, "%s: maxval: unexpected %s after the number", in->path,
                     gl_pgm_byte_name(c, b, sizeof b));
        return -1;
    }
    return 0;
}

/* Read the binary Netpbm file at `path` whose magic is P<digit> ('5': gray, '6': RGB); channels
 * bytes per pixel. Returns 0 with *pixels malloc'd, or -1 with "PATH: reason" in err. */
static inline int gl_pnm_read(const char *path, int digit, int channels, int *out_w, int *out_h,
                              unsigned char **out_pixels, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        gl_image_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        gl_image_err(err, errlen, "%s: %s", path, S_ISDIR(st.st_mode) ? "is a directory" : "not a regular file");
        return -1;
    }
    gl_pgm_in in = {fopen(path, "rb"), path, 0, err, errlen};
    if (!in.f) {
        gl_image_err(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    /* The file's size bounds what the header may promise. */
    long size = -1;
    if (fseek(in.f, 0, SEEK_END) == 0) size = ftell(in.f);
    if (size < 0 || fseek(in.f, 0, SEEK_SET) != 0) {
        gl_image_err(err, errlen, "%s: cannot determine the file size: %s", path, strerror(errno));
        fclose(in.f);
        return -1;
    }
    int width = 0, height = 0;
    if (gl_pgm_header(&in, &width, &height, digit)) {
        fclose(in.f);
        return -1;
    }
    long long need = (long long)width * height * channels, left = (long long)size - in.pos;
    if (left < need) {
        gl_image_err(err, errlen, "%s: truncated: %lld of %lld pixel bytes", path, left < 0 ? 0 : left, need);
        fclose(in.f);
        return -1;
    }
    unsigned char *pixels = (unsigned char *)malloc((size_t)need);
    if (!pixels) {
        gl_image_err(err, errlen, "%s: out of memory for %dx%d pixels", path, width, height);
        fclose(in.f);
        return -1;
    }
    size_t got = fread(pixels, 1, (size_t)need, in.f);
    int read_error = ferror(in.f), e = errno;
    fclose(in.f);
    if (got != (size_t)need) { /* the file shrank after the size check, or the disk failed */
        if (read_error) gl_image_err(err, errlen, "%s: read error: %s", path, strerror(e));
        else gl_image_err(err, errlen, "%s: truncated: %zu of %lld pixel bytes", path, got, need);
        free(pixels);
        return -1;
    }
    *out_w = width;
    *out_h = height;
    *out_pixels = pixels;
    return 0;
}

/* Read an 8-bit binary PGM (P5, maxval 255); bytes after the pixels are ignored. Only regular
 * files are read (a FIFO could block forever). Returns 0, or -1 with "PATH: reason" in err and
 * *img zeroed. */
static inline int gl_pgm_read(const char *path, gl_image *img, char *err, size_t errlen)
{
    memset(img, 0, sizeof *img);
    return gl_pnm_read(path, '5', 1, &img->width, &img->height, &img->pixels, err, errlen);
}

/* Read an 8-bit binary PPM (P6, maxval 255), the same rules as gl_pgm_read. */
static inline int gl_ppm_read(const char *path, gl_image_rgb *img, char *err, size_t errlen)
{
    memset(img, 0, sizeof *img);
    return gl_pnm_read(path, '6', 3, &img->width, &img->height, &img->pixels, err, errlen);
}

/* ---- PNG reader (libpng's simplified API) ---- */

#define GL_PNG_MAX_RATIO 1100 /* deflate expands at most ~1032:1: a header promising more is refused */

/* Read a PNG as 8-bit gray (channels 1) or RGB (3); libpng converts palette, 16-bit and alpha
 * (alpha is composited on black). want_color < 0: gray files as gray, colour files as RGB, and
 * *channels says which. Returns 0, or -1 with "PATH: reason". */
static inline int gl_png_read_any(const char *path, int want_color, int *width, int *height, int *channels,
                                  unsigned char **pixels, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        gl_image_err(err, errlen, "%s: not a regular file", path);
        return -1;
    }
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&im, path)) {
        gl_image_err(err, errlen, "%s: not a valid PNG: %s", path, im.message);
        png_image_free(&im);
        return -1;
    }
    long long w = im.width, h = im.height;
    if (!gl_image_size_ok(w, h)) {
        gl_image_err(err, errlen, "%s: PNG of %lldx%lld pixels: each side 1..%d and at most %lld pixels", path, w, h,
                     GL_IMAGE_MAX_SIDE, GL_IMAGE_MAX_PIXELS);
        png_image_free(&im);
        return -1;
    }
    if (w * h > (long long)GL_PNG_MAX_RATIO * (long long)st.st_size) {
        gl_image_err(err, errlen, "%s: truncated: %lld bytes cannot hold %lldx%lld pixels", path,
                     (long long)st.st_size, w, h);
        png_image_free(&im);
        return -1;
    }
    int color = want_color < 0 ? (im.format & PNG_FORMAT_FLAG_COLOR) != 0 : want_color;
    im.format = color ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
    size_t bytes = (size_t)w * (size_t)h * (color ? 3u : 1u);
    unsigned char *p = (unsigned char *)malloc(bytes);
    if (!p) {
        gl_image_err(err, errlen, "%s: out of memory for %lldx%lld pixels", path, w, h);
        png_image_free(&im);
        return -1;
    }
    if (!png_image_finish_read(&im, NULL, p, 0, NULL)) {
        gl_image_err(err, errlen, "%s: PNG data: %s", path, im.message);
        png_image_free(&im);
        free(p);
        return -1;
    }
    png_image_free(&im);
    *width = (int)w;
    *height = (int)h;
    *channels = color ? 3 : 1;
    *pixels = p;
    return 0;
}

/* What a picture file is, from its first bytes: '5' (P5), '6' (P6), 'N' (PNG signature), 0 else. */
static inline int gl_image_kind(const char *path)
{
    unsigned char m[8] = {0};
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return 0; /* the readers say why */
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(m, 1, sizeof m, f);
    fclose(f);
    static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n == 8 && !memcmp(m, png_sig, 8)) return 'N';
    if (n >= 2 && m[0] == 'P' && (m[1] == '5' || m[1] == '6')) return m[1];
    return 0;
}

/* Read a picture as 8-bit gray: P5 as is; P6 and colour PNGs through gl_rgb_to_gray; gray PNGs as
 * libpng delivers them (16-bit reduced to 8). Any other file is refused with the PGM reader's
 * message (so "not a binary PGM" names a wrong magic). Returns 0, or -1 with "PATH: reason". */
static inline int gl_image_read_gray(const char *path, gl_image *img, char *err, size_t errlen)
{
    memset(img, 0, sizeof *img);
    int kind = gl_image_kind(path);
    if (kind == '6') {
        gl_image_rgb c;
        if (gl_ppm_read(path, &c, err, errlen)) return -1;
        size_t n = (size_t)c.width * c.height;
        for (size_t i = 0; i < n; i++) /* in place: pixel i is written after bytes 3i..3i+2 are read */
            c.pixels[i] = gl_rgb_to_gray(c.pixels[3 * i], c.pixels[3 * i + 1], c.pixels[3 * i + 2]);
        img->width = c.width;
        img->height = c.height;
        img->pixels = c.pixels;
        return 0;
    }
    if (kind == 'N') {
        int w, h, ch;
        unsigned char *p;
        if (gl_png_read_any(path, -1, &w, &h, &ch, &p, err, errlen)) return -1;
        if (ch == 3)
            for (size_t i = 0; i < (size_t)w * h; i++) p[i] = gl_rgb_to_gray(p[3 * i], p[3 * i + 1], p[3 * i + 2]);
        img->width = w;
        img->height = h;
        img->pixels = p;
        return 0;
    }
    int rc = gl_pgm_read(path, img, err, errlen);
    if (rc && strstr(err ? err : "", "only P5 is supported")) /* a magic we do not read at all */
        gl_image_err(err, errlen, "%s: not a binary PGM (P5), PPM (P6) or PNG", path);
    return rc;
}

/* Read a picture as 8-bit RGB: P6 as is; P5 and gray PNGs replicated to R = G = B; PNG through
 * libpng (palette expanded, alpha composited on black). Returns 0, or -1 with "PATH: reason". */
static inline int gl_image_read_rgb(const char *path, gl_image_rgb *img, char *err, size_t errlen)
{
    memset(img, 0, sizeof *img);
    int kind = gl_image_kind(path);
    if (kind == 'N') {
        int ch;
        return gl_png_read_any(path, 1, &img->width, &img->height, &ch, &img->pixels, err, errlen);
    }
    if (kind == '6') return gl_ppm_read(path, img, err, errlen);
    gl_image g;
    if (gl_image_read_gray(path, &g, err, errlen)) return -1;
    size_t n = (size_t)g.width * g.height;
    unsigned char *p = (unsigned char *)malloc(3 * n);
    if (!p) {
        gl_image_err(err, errlen, "%s: out of memory for %dx%d pixels", path, g.width, g.height);
        gl_image_free(&g);
        return -1;
    }
    for (size_t i = 0; i < n; i++) p[3 * i] = p[3 * i + 1] = p[3 * i + 2] = g.pixels[i];
    img->width = g.width;
    img->height = g.height;
    img->pixels = p;
    gl_image_free(&g);
    return 0;
}

/* ---- checked output: PATH.tmp renamed into place ---- */

typedef struct {
    FILE *f;
    const char *path;
    char *tmp;  /* "PATH.tmp"; NULL when PATH is a device or pipe, written in place */
    int failed; /* a write failed; err_no is its errno (0: none given) */
    int err_no;
} gl_image_out;

static inline int gl_image_out_open(gl_image_out *o, const char *path, const gl_image *img, char *err,
                                    size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->path = path;
    if (!img || !img->pixels || !gl_image_size_ok(img->width, img->height)) {
        gl_image_err(err, errlen, "%s: cannot write an invalid image (%dx%d%s)", path, img ? img->width : 0,
                     img ? img->height : 0, img && img->pixels ? "" : ", no pixels");
        return -1;
    }
    /* Like gl_report.h: a regular file (or a new one) goes through PATH.tmp; an existing device
     * is written as is (renaming over /dev/full would replace the device with a file). */
    struct stat st;
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode)) {
        size_t n = strlen(path);
        o->tmp = (char *)malloc(n + 5);
        if (!o->tmp) {
            gl_image_err(err, errlen, "%s: cannot write: out of memory", path);
            return -1;
        }
        memcpy(o->tmp, path, n);
        memcpy(o->tmp + n, ".tmp", 5);
    }
    errno = 0;
    o->f = fopen(o->tmp ? o->tmp : path, "wb");
    if (!o->f) {
        gl_image_err(err, errlen, "%s: cannot write: %s", path, errno ? strerror(errno) : "fopen failed");
        free(o->tmp);
        o->tmp = NULL;
        return -1;
    }
    return 0;
}

/* Write n bytes; the first failure is remembered and later writes are skipped. */
static inline void gl_image_out_put(gl_image_out *o, const void *p, size_t n)
{
    if (o->failed || n == 0) return;
    errno = 0;
    if (fwrite(p, 1, n, o->f) != n) {
        o->failed = 1;
        o->err_no = errno;
    }
}

/* Flush, close and rename into place. Returns 0, or -1 with "PATH: reason" (tmp removed). */
static inline int gl_image_out_close(gl_image_out *o, char *err, size_t errlen)
{
    errno = 0;
    if (!o->failed && fflush(o->f) != 0) {
        o->failed = 1;
        o->err_no = errno;
    }
    errno = 0;
    if (fclose(o->f) != 0 && !o->failed) {
        o->failed = 1;
        o->err_no = errno;
    }
    o->f = NULL;
    if (!o->failed && o->tmp && rename(o->tmp, o->path) != 0) {
        gl_image_err(err, errlen, "%s: cannot rename %s into place: %s", o->path, o->tmp, strerror(errno));
        o->failed = 2; /* message already written */
    }
    if (o->failed == 1)
        gl_image_err(err, errlen, "%s: cannot write: %s", o->path, o->err_no ? strerror(o->err_no) : "write error");
    if (o->failed && o->tmp) remove(o->tmp);
    free(o->tmp);
    o->tmp = NULL;
    return o->failed ? -1 : 0;
}

/* Write P5 with maxval 255. Returns 0, or -1 with "PATH: reason" in err. */
static inline int gl_pgm_write(const char *path, const gl_image *img, char *err, size_t errlen)
{
    gl_image_out o;
    if (gl_image_out_open(&o, path, img, err, errlen)) return -1;
    char header[48];
    int n = snprintf(header, sizeof header, "P5\n%d %d\n255\n", img->width, img->height);
    gl_image_out_put(&o, header, (size_t)n);
    gl_image_out_put(&o, img->pixels, (size_t)img->width * img->height);
    return gl_image_out_close(&o, err, errlen);
}

/* ---- PNG writer (libpng's simplified API: zlib's default level, adaptive filters) ---- */

/* Write an 8-bit PNG of `channels` bytes per pixel, 1 (gray) or 3 (RGB), through the checked
 * output above; img's pixels hold width x height x channels bytes. Returns 0, or -1 with
 * "PATH: reason" (a failed write names the system's reason, any other libpng error its own). */
static inline int gl_png_write8(const char *path, const gl_image *img, int channels, char *err, size_t errlen)
{
    gl_image_out o;
    if (gl_image_out_open(&o, path, img, err, errlen)) return -1;
    png_image im;
    memset(&im, 0, sizeof im);
    im.version = PNG_IMAGE_VERSION;
    im.width = (png_uint_32)img->width;
    im.height = (png_uint_32)img->height;
    im.format = channels == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
    errno = 0;
    if (!png_image_write_to_stdio(&im, o.f, 0, img->pixels, 0, NULL)) {
        o.failed = 1;
        o.err_no = errno;
        if (!ferror(o.f)) { /* not an I/O error: libpng says what went wrong */
            gl_image_err(err, errlen, "%s: cannot write: libpng: %s", path, im.message);
            o.failed = 2;
        }
    }
    png_image_free(&im);
    return gl_image_out_close(&o, err, errlen);
}

/* Write an 8-bit grayscale PNG. Returns 0, or -1 with "PATH: reason" in err. */
static inline int gl_png_write_gray8(const char *path, const gl_image *img, char *err, size_t errlen)
{
    return gl_png_write8(path, img, 1, err, errlen);
}

/* Write an 8-bit RGB PNG. Returns 0, or -1 with "PATH: reason" in err. */
static inline int gl_png_write_rgb8(const char *path, const gl_image_rgb *img, char *err, size_t errlen)
{
    gl_image view = {img->width, img->height, img->pixels};
    return gl_png_write8(path, &view, 3, err, errlen);
}

#include "gl_image_gen.h" /* the generated test pictures (it includes this header first) */

#endif
