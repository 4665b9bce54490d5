/* runs.c - Lab 05 part 2 (haar_mpi): what every mode shares, called down into by modes.c,
 * gpu_modes.c and gpu_compress.c (and calling none of them): the timed repetitions (per phase the
 * maximum over ranks, the median over runs), the bit-for-bit checks of a multi-rank result against
 * the single-process one, and the compress modes' per-keep checks. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "haar_mpi.h"

/* warmup untimed runs, then reps timed ones; rank 0 gets the median over runs of the maximum over
 * ranks of every phase. */
void run_timed(const app *A, problem *P, run_fn once, void *ctx, result *R)
{
    int reps = A->cli.timing.reps;
    double ph[PH_COUNT], worst[PH_COUNT];
    double *samples = (double *)gl_host_alloc((size_t)reps * PH_COUNT * sizeof(double), "timing samples");
    for (int w = 0; w < A->cli.timing.warmup; w++) {
        for (int k = 0; k < PH_COUNT; k++) ph[k] = NOT_TIMED;
        once(A, P, ctx, ph);
    }
    for (int i = 0; i < reps; i++) {
        for (int k = 0; k < PH_COUNT; k++) ph[k] = NOT_TIMED;
        MPI_Barrier(P->comm);
        double t0 = now_ms();
        once(A, P, ctx, ph);
        ph[PH_TOTAL] = now_ms() - t0;
        MPI_Reduce(ph, worst, PH_COUNT, MPI_DOUBLE, MPI_MAX, 0, P->comm);
        for (int k = 0; k < PH_COUNT; k++) samples[(size_t)k * reps + i] = worst[k];
    }
    R->ranks = P->ranks;
    for (int k = 0; k < PH_COUNT; k++) {
        gl_summary s = gl_summarize(samples + (size_t)k * reps, reps);
        int ran = s.max >= 0;
        R->med[k] = ran ? s.median : NAN;
        R->min[k] = ran ? s.min : NAN;
        R->max[k] = ran ? s.max : NAN;
    }
    free(samples);
}

/* Compare bit for bit; print the first mismatches. Returns the number compared, or -1. */
long long verify(const char *what, const float *got, const float *want, size_t n)
{
    long long bad = gl_compare_exact_f32(what, got, want, NULL, n);
    if (bad) {
        fprintf(stderr, "VERIFICATION FAILED: %s: %lld of %zu elements differ from the single-process result\n",
                what, bad, n);
        return -1;
    }
    return (long long)n;
}

/* "WHAT, N rank(s), PART" for the messages of a failed comparison. */
const char *label(char *buf, size_t len, const char *what, const problem *P, const char *part)
{
    snprintf(buf, len, "%s, %d rank(s), %s", what, P->ranks, part);
    return buf;
}

/* Add the count of a further comparison to R->checked (-1 once any comparison failed). */
void add_checked(result *R, long long c) { R->checked = R->checked < 0 || c < 0 ? -1 : R->checked + c; }

/* --save DIR: the reconstruction from the largest k% as an 8-bit PGM (rounded and clamped as the
 * PSNR counts it). */
static void save_reconstruction(const app *A, const source *S, const float *rec, int pct)
{
    gl_image img = {S->width, S->height, (unsigned char *)gl_host_alloc(S->n, "the saved picture")};
    for (size_t i = 0; i < S->n; i++) img.pixels[i] = haar_pixel_u8(rec[i]);
    char path[1200], err[1400];
    snprintf(path, sizeof path, "%s/haar_mpi_%dx%d_keep%02d_%s.pgm", A->cli.save, S->width, S->height, pct,
             haar_convention_name(A->conv));
    if (gl_pgm_write(path, &img, err, sizeof err)) {
        fprintf(stderr, "%s: --save: %s\n", PROG, err);
        MPI_Abort(MPI_COMM_WORLD, GL_EXIT_FAIL);
    }
    fprintf(A->out, "saved %s\n", path);
    free(img.pixels);
}

/* compress and nccl_compress, one keep fraction after the timed runs: the kept coefficients
 * (P->h_strip, assembled), the reconstruction (C->h_rec) and the PSNR against the single process's. */
void check_compress(const app *A, problem *P, const source *S, const compress_state *C, int k, result *R)
{
    char what[160], part[64];
    MPI_Gatherv(P->h_strip, P->mine.rows, P->row_f32, P->h_gathered, P->counts, P->displs, P->row_f32, 0, P->comm);
    if (P->rank == 0) {
        assemble(P, P->h_gathered, P->h_out);
        snprintf(part, sizeof part, "keep %d%%, kept coefficients", KEEP_PCT[k]);
        add_checked(R, verify(label(what, sizeof what, "compress", P, part), P->h_out, S->ref_kept[k], S->n));
    }
    MPI_Gatherv(C->h_rec, P->mine.rows, P->row_f32, P->h_gathered, P->counts, P->displs, P->row_f32, 0, P->comm);
    if (P->rank != 0 || R->checked < 0) return;
    snprintf(part, sizeof part, "keep %d%%, reconstruction", KEEP_PCT[k]);
    add_checked(R, verify(label(what, sizeof what, "compress", P, part), P->h_gathered, S->ref_recon[k], S->n));
    if (R->checked >= 0 && memcmp(&C->psnr, &S->ref_psnr[k], sizeof(double)) != 0) {
        fprintf(stderr, "VERIFICATION FAILED: compress keep %d%%, %d rank(s): PSNR %.17g dB, one process %.17g dB\n",
                KEEP_PCT[k], P->ranks, C->psnr, S->ref_psnr[k]);
        R->checked = -1;
    }
    if (R->checked >= 0 && A->cli.save && P->ranks == A->world_size)
        save_reconstruction(A, S, P->h_gathered, KEEP_PCT[k]);
}

void compress_result(const compress_state *C, result *R)
{
    R->psnr = C->psnr;
    R->threshold = C->sel.threshold;
    R->ties = C->sel.ties;
    R->ties_kept = C->sel.ties_kept;
}
