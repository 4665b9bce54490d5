/* haar_mpi.h - Lab 05 part 2, internal: what the files of haar_mpi share (the program is described
 * in haar_mpi.c). setup.c: the command line, MPI and the GPUs, the sizes and rank counts;
 * problem.c: one image, its single-process references and its strips on n ranks; modes.c: the
 * experiments' runs, timed and verified (gpu_modes.c: those that start on rank 0's GPU); report.c:
 * the CSV, the tables and the seed's Table 2. */
#ifndef HAAR_MPI_H
#define HAAR_MPI_H

#include <math.h>
#include <stdio.h>
#include <mpi.h>
#include "gl_image.h"
#include "gl_lab.h"
#include "haar.h"
#include "haar_gpu.h"
#include "mpi_compress.h"
#include "mpi_gpu.h"
#include "mpi_layout.h"

#define PROG "haar_mpi"
#define LAB "05_haar_mpi"
#define MAX_RANK_COUNTS 32
#define CPU_REF_MAX_PIXELS (8192LL * 8192)   /* the C reference is timed up to this size */
#define COMPRESS_MAX_PIXELS (8192LL * 8192) /* the host-side selection is slow beyond (default list) */
#define TOL_CHECK_MAX_PIXELS (2048LL * 2048) /* one GPU against the C reference (tolerance) */

/* The experiments, in the order of NAMES (setup.c). */
enum {
    EXP_SEED, EXP_CPU, EXP_IO, EXP_DEVICE, EXP_NCCL, EXP_BORN, EXP_COMPRESS, EXP_NCCL_COMPRESS, EXP_WEAK, EXP_COUNT
};
static inline int is_compress(int e) { return e == EXP_COMPRESS || e == EXP_NCCL_COMPRESS; }
static inline int needs_nccl(int e) { return e == EXP_NCCL || e == EXP_NCCL_COMPRESS; }
extern const gl_name NAMES[EXP_COUNT];

/* ---------------------------------------------------------------- phases */

enum { PH_READ, PH_SCATTER, PH_H2D, PH_KERNEL, PH_D2H, PH_GATHER, PH_ASSEMBLE, PH_WRITE, PH_SELECT, PH_PSNR,
       PH_TOTAL, PH_COUNT };
#define NOT_TIMED (-1.0) /* a phase this rank did not run (the maximum over ranks ignores it) */

static inline void phase_add(double *ph, int k, double ms) { ph[k] = (ph[k] < 0 ? 0 : ph[k]) + ms; }
static inline double now_ms(void) { return MPI_Wtime() * 1e3; }

/* ---------------------------------------------------------------- the run's settings */

typedef struct {
    gl_cli cli;
    int levels;
    haar_convention conv;
    int cpu_only; /* --cpu: no GPU is opened; every experiment computes with the C reference */
    char io_dir[512];
    int world_rank, world_size, local_rank, local_size, nodes;
    int gpu; /* this rank's GPU; -1 with --cpu */
    int shared_gpus; /* some node runs more ranks than it has GPUs */
    gl_device_info dev; /* dev.sms: the SMs of this rank's kernels (--sms / GL_SMS), dev.sms_device: the GPU's */
    gl_partition part;  /* the green context of --sms on this rank's GPU (part.green NULL: the whole GPU) */
    int cuda_aware;
    cudaStream_t stream;
    cudaEvent_t ev[4];
    int rank_counts[MAX_RANK_COUNTS], n_rank_counts;
    gl_report report; /* rank 0 */
    FILE *quiet;      /* the report's per-row lines go here; we print our own tables */
    FILE *out;        /* rank 0's tables: stdout, or stderr when the CSV goes to stdout */
    char tag[64];     /* unique part of this run's file names in io_dir */
} app;

/* ---------------------------------------------------------------- one image and its references */

#define N_KEEP 2
extern const int KEEP_PCT[N_KEEP]; /* problem.c: the compress experiment keeps 10% and 1% */

typedef struct {
    int width, height;
    size_t n;
    char pgm[600];          /* the picture as a file, read by seed and io (all ranks know it) */
    long long pgm_offset;   /* where its pixel bytes start */
    int generated;          /* the file is ours to remove */
    /* rank 0 only: */
    unsigned char *pixels;
    float *image;           /* the picture as floats */
    float *ref_forward;     /* single process: forward on the whole image */
    float *ref_inverse;     /* single process: inverse of ref_forward */
    float *ref_kept[N_KEEP], *ref_recon[N_KEEP];
    double ref_psnr[N_KEEP];
    double cpu_ref_ms;      /* the C reference's forward on the whole image, one core (NAN: not timed) */
    int refs_gpu;           /* the references come from the GPU kernels (else the C reference) */
    int with_inverse, with_compress; /* which references the experiment checks against */
} source;

/* ---------------------------------------------------------------- one problem on n ranks */

typedef struct {
    MPI_Comm comm;
    int rank, ranks, use_gpu;
    int width, height, levels;
    haar_strip *strips, mine;
    int *counts, *displs;          /* rows per rank and first rows, for Scatterv / Gatherv */
    MPI_Datatype row_f32, row_u8;  /* one image row: the unit of every count */
    haar_piece **pieces;           /* rank 0: every rank's; others: own only (index rank) */
    size_t *npieces;
    size_t strip_n;                /* this rank's pixels */
    float *h_strip;                /* this rank's strip (pixels, then coefficients) */
    unsigned char *h_u8;           /* this rank's strip of 8-bit pixels */
    float *h_gathered, *h_out;     /* rank 0: strips in rank order; the assembled layout */
    float *d_in, *d_out;
    void *d_scratch;
    char out_path[700];            /* the result file of seed / io */
    const char *mode;              /* the experiment's name (NAMES[e].name), for messages */
} problem;

/* ---------------------------------------------------------------- results */

typedef struct {
    int ranks;
    double med[PH_COUNT], min[PH_COUNT], max[PH_COUNT]; /* ms; NAN: phase not run */
    long long checked;
    double psnr, threshold;
    unsigned long long ties, ties_kept; /* compress: coefficients equal to the threshold, and kept */
    double moved_bytes;  /* nccl: the bytes the scatter (and the gather) move between GPUs */
    int link_kind;       /* what link[] measured in the same run, on rank 0 (LINK_NONE: nothing) */
    double link[3];      /* GB/s: PCIe H2D, D2H, one core's memcpy (device); peer copies out of GPU 0, into it (nccl) */
} result;
enum { LINK_NONE, LINK_PCIE, LINK_PEER };

typedef struct {
    int sides[8], n;
} size_list;

/* Per square size, the totals the seed's Table 2 compares. */
typedef struct {
    int side;
    double cpu_ref_ms, seed1, seedP, cpuP; /* totals: 1 rank and all ranks (seed), all ranks (cpu) */
} ours_row;
#define MAX_OURS 8

/* ---- setup.c ---- */
int agree(MPI_Comm comm, int status);
void finish(int code);
void parse_command_line(app *A, int argc, char **argv);
void open_gpus(app *A);
void print_setup(const app *A);
int experiment_selected(const app *A, int e);
void check_experiments(const app *A);
size_list strong_sizes(const app *A, int e);
size_list weak_sizes(const app *A);
void check_sizes(const app *A);
void make_rank_counts(app *A);
MPI_Comm first_ranks(int n, int world_rank);

/* ---- problem.c ---- */
void to_float(const unsigned char *p, float *f, size_t n);
void source_open(const app *A, source *S, int width, int height, int gpu_refs, int e);
void source_close(const app *A, source *S);
void problem_open(const app *A, problem *P, MPI_Comm comm, const source *S, int use_gpu);
void problem_close(problem *P);
void strip_transform(const app *A, problem *P, float *buf, int inverse, double *ph);
void assemble(const problem *P, const float *gathered, float *image);
void disassemble(const problem *P, const float *image, float *gathered);
void write_floats(const char *path, const float *x, size_t n);
void read_floats(const char *path, float *x, size_t n);
void read_picture(const source *S, float *image);

/* ---- modes.c ---- */
int run_experiment(const app *A, int e, int use_gpu, const source *S, MPI_Comm comm, result *R);

/* ---- runs.c: what every mode shares ---- */
/* One run of a mode (its phases into ph); run_timed: the untimed and the timed runs, per phase the
 * maximum over ranks, the median over runs into R (rank 0). */
typedef void (*run_fn)(const app *A, problem *P, void *ctx, double *ph);
void run_timed(const app *A, problem *P, run_fn once, void *ctx, result *R);
/* Bit-for-bit comparison (the first mismatches printed): the count compared, or -1. */
long long verify(const char *what, const float *got, const float *want, size_t n);
const char *label(char *buf, size_t len, const char *what, const problem *P, const char *part);
void add_checked(result *R, long long c);

/* compress and nccl_compress: one keep fraction's state, its result fields and its checks (runs.c). */
typedef struct {
    const source *S;
    float *h_rec; /* this rank's reconstruction */
    unsigned long long keep;
    haar_mpi_selection sel;
    double psnr;
} compress_state;
void compress_result(const compress_state *C, result *R);
void check_compress(const app *A, problem *P, const source *S, const compress_state *C, int k, result *R);

/* ---- gpu_compress.c ---- */
void run_nccl_compress_experiment(const app *A, problem *P, const source *S, result *R);

/* ---- gpu_modes.c ---- */
/* The milliseconds between events A->ev[from] and A->ev[to] (to already complete). */
float events_ms(const app *A, int from, int to);
/* Strip s's 3L + 1 sub-band rectangles as place_rect: src in a buffer where the strip starts at
 * row src_row (rows of `width` floats), dst in the image's layout. Returns their number. */
int strip_rects(int width, int height, int levels, haar_strip s, int src_row, place_rect *out);
void run_device_experiment(const app *A, problem *P, const source *S, result *R);
void run_nccl_experiment(const app *A, problem *P, const source *S, result *R);
int nccl_built(void); /* 1 when haar_mpi was built with NCCL */
void nccl_version(char *buf, size_t len);

/* ---- report.c ---- */
void open_report(app *A);
void print_experiment_header(const app *A, int e, const char *backend, const source *img, int first);
void print_strips(const app *A, const source *img, int n);
void report_result(app *A, int e, const char *backend, int k, const source *img, const result *R,
                   const result *one);
void report_cpu_ref(app *A, int e, const source *img);
void print_verified(const app *A, int e);
void remember_totals(const app *A, int e, const source *S, const result *all, ours_row *ours, int *n_ours);
void print_seed_table(const app *A, const ours_row *ours, int n);

#endif
