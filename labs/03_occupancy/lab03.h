/* lab03.h - Lab 03's run state and the measured launch, shared by main.c (the program, the seed,
 * limits, tail, sms and exercises experiments) and latency.c (the latency experiment). Internal to
 * the occupancy executable; occupancy.h is the calculator and the kernels. */
#ifndef LAB03_H
#define LAB03_H

#include <stdint.h>
#include "occupancy.h"
#include "gl_lab.h"
#include "gl_verify.h"

#define SAMPLE_WARPS 1024u /* long-running outputs: this many warps compared bit for bit */
#define N_SEED_SIZES 14 /* 32 .. 262144 */
#define N_LAT 7         /* latency: resident warps per SM, 1 .. 64 (LATENCY_WARPS, latency.c) */
#define N_LAT_VARIANTS 6 /* latency: stream, its three variants, fma, fma_ilp4 (LATENCY_VARIANTS) */

#define MAX_LIMITS_ROWS 40

typedef struct {
    gl_lab lab;
    occ_device occ;
    int max_warps; /* per SM */
    gl_out_file timeline;
    int has_timeline;
    double seed_ms[2][N_SEED_SIZES], seed_theo[2][N_SEED_SIZES], seed_ach[2][N_SEED_SIZES];
    double seed_eff[2][N_SEED_SIZES], seed_tpb[2][N_SEED_SIZES], seed_blocks[2][N_SEED_SIZES];
    double lat[N_LAT_VARIANTS][N_LAT]; /* GB/s or GFLOP/s */
    double lat_ach[N_LAT_VARIANTS][N_LAT];
    struct {
        gl_row row;
        occ_result occ;
    } limits[MAX_LIMITS_ROWS];
    int n_limits;
} lab03;

/* A launch of one kernel: its shape, which kernel, and its arguments. */
typedef struct {
    launch_shape sh;
    int is_seed; /* the seed's vector_add (seed), else work kernel `kernel` (work) */
    work_kernel kernel;
    seed_args seed;
    work_args work;
} launch_job;

/* The steps every row shares: calculator = API, residency, poison, time, check. */
typedef struct {
    float *d_y, *h_y;
    uint32_t n;
    gl_ref_fn ref;
    const void *ref_ctx;
    uint32_t sample_warps;
} output_check;

/* measure.c: the measured launch every experiment calls down into. */
void lab03_report(lab03 *L, gl_row *row);
void lab03_enqueue_job(void *ctx, cudaStream_t s); /* a launch_job, for gl_time and the exercise */
/* The reference of a work kernel's output i (ctx: a work_ref_ctx). */
typedef struct {
    const float *x;
    uint32_t iters;
    int accumulators; /* 0: a plain FMA chain */
} work_ref_ctx;
float lab03_work_ref(const void *ctx, uint32_t i);
/* Calculator = API, residency, poison, time, check: one row (not yet reported). */
occ_result lab03_measure(lab03 *L, launch_job *j, gl_row *row, const output_check *out, int timeline);
/* One compute-bound row: `kernel` on the arrays, FLOPs = 2 x n x iters x max(1, accumulators). */
occ_result lab03_compute_row(lab03 *L, const char *experiment, const char *variant, long long param,
                             work_kernel kernel, gl_arrays *A, uint32_t iters, launch_shape sh, int timeline,
                             gl_row *out_row);

/* latency.c: the latency experiment and its summary table. */
void lab03_run_latency(lab03 *L, uint32_t stream_n);
void lab03_print_latency_summary(const lab03 *L);

#endif
