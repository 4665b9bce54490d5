/* lab05.h - Lab 05's run state, one image size on the GPU (haar_case), the check and the
 * picture of compress, shared by main.c (the program, the ladder's experiments, exercises) and
 * compress.c (the compress experiment and the pictures --save writes). Internal to the haar
 * executable; haar.h and haar_gpu.h are the reference and the GPU ladder. */
#ifndef LAB05_H
#define LAB05_H

#include "gl_image.h"
#include "gl_lab.h"
#include "haar.h"
#include "haar_gpu.h"

typedef struct {
    gl_lab lab;
    int levels;           /* --levels */
    int rung_on[HAAR_RUNG_COUNT];
    gl_out_file compress_csv;
    int compress_open;
    int compress_steps; /* keep-k% steps the compress experiment checked (the closing line says so) */
} lab05;

typedef struct {
    int w, h, levels;
    size_t pitch, n; /* n = pitch * h floats per buffer */
    haar_convention conv;
    float *h_img, *h_ref, *h_got, *h_first; /* host: input, reference, GPU result, first rung's */
    float *d_in, *d_out, *d_back, *d_scratch;
    double max_abs_in, max_abs_ref; /* max |value| of the input and of the reference coefficients */
    double cpu_ms, cpu_all_ms;      /* the reference's time on one core (NAN: not timed), on all cores */
} haar_case;

typedef struct {
    double max_err, max_over_bound;
    long long checked;
} check_result;

typedef struct {
    gl_image img; /* the 8-bit picture */
    int w, h;
} picture;

/* Compare the w x h part of got (pitch) with want: |got - want| <= tol (tol 0: bit for bit);
 * a mismatch prints the first ones and exits 1 (main.c). */
/* check.c: checking against the reference, and the run's selection (main.c and compress.c call down). */
check_result lab05_compare(const char *what, const float *got, const float *want, const haar_case *k, double tol);
double lab05_max_abs(const float *v, const haar_case *k); /* max |value| of the w x h part */
int lab05_wanted(const lab05 *L, const char *experiment);

/* compress.c: the compress experiment; the coefficients' mosaic (also exercises' with --save). */
void lab05_run_compress(lab05 *L, const picture *p);
void lab05_save_mosaic(const lab05 *L, const float *coef, int w, int h, const char *name);

#endif
