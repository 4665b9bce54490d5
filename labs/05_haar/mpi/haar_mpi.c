/* haar_mpi.c - Lab 05 part 2: the 2D Haar transform on several GPUs (or CPU cores) with MPI.
 *
 * One rank per GPU, the GPU chosen by the node-local rank, so the same binary runs on one node or
 * on many (mpirun with a hostfile). The image is cut into row strips whose heights are multiples
 * of 2^L: such a strip holds whole Haar tiles, so every rank transforms its strip alone, with the
 * very kernels of the single-GPU ladder (haar_gpu.h, the single-pass rung), and the result is the
 * single-process result bit for bit; only the places of the sub-bands differ (mpi_layout.h).
 *
 * Experiments (haar_mpi --list):
 *   seed      the seed's Algorithm 1: rank 0 reads, MPI_Scatterv of strips, every GPU transforms
 *             its strip, MPI_Gatherv, rank 0 assembles the global sub-band layout and writes
 *   cpu       the same with the C reference on CPU cores (the seed's "CPU cluster")
 *   io        parallel I/O: every rank reads its own strip of the picture and writes its own
 *             coefficients into the result file with MPI-IO (no scatter, no gather)
 *   device    the data stay on the GPUs: device buffers go to MPI when it is CUDA-aware
 *             (MPIX_Query_cuda_support), else they are staged through pinned host memory
 *   compress  keep the largest 10% / 1% of the WHOLE image's coefficients (a radix select over
 *             ranks with MPI_Allreduce, mpi_compress.h), inverse, PSNR by a reduction
 *   weak      weak scaling: the seed mode with --size x --size pixels per rank
 * Every experiment runs on 1, 2, 4, ... and all ranks of the job (sub-communicators of
 * MPI_COMM_WORLD), so one launch gives its own strong scaling; the 1-rank run is the baseline of
 * the speedups, and every multi-rank result is compared bit for bit with the single-process one.
 *
 * Timing: per repetition every rank times its phases (MPI_Wtime; H2D, kernel and D2H with CUDA
 * events); the maximum over ranks of each phase and of the total is kept, and the median over
 * the repetitions is reported. Barriers before the scatter, the gather and the write keep a
 * rank's wait for the others out of the phase it waits in. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#ifdef HAVE_MPI_EXT_H
#include <mpi-ext.h> /* MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support (Open MPI) */
#endif
#include "gl_image.h"
#include "gl_lab.h"
#include "haar.h"
#include "haar_gpu.h"
#include "mpi_compress.h"
#include "mpi_layout.h"

#define PROG "haar_mpi"
#define LAB "05_haar_mpi"
#define MAX_RANK_COUNTS 32
#define CPU_REF_MAX_PIXELS (8192LL * 8192)   /* the C reference is timed up to this size */
#define COMPRESS_MAX_PIXELS (8192LL * 8192) /* the host-side selection is slow beyond (default list) */
#define TOL_CHECK_MAX_PIXELS (2048LL * 2048) /* one GPU against the C reference (tolerance) */

static const gl_name NAMES[] = {
    {"seed", "rank 0 reads, MPI_Scatterv of strips, each GPU transforms its strip, MPI_Gatherv, assemble, write"},
    {"cpu", "the same with the C reference on each rank's CPU core (the seed's CPU cluster)"},
    {"io", "parallel I/O: each rank reads its strip and writes its coefficients with MPI-IO"},
    {"device", "data resident on the GPUs: CUDA-aware MPI if the library has it, else pinned staging"},
    {"compress", "keep the largest 10% and 1% of the whole image (radix select with MPI_Allreduce), PSNR"},
    {"weak", "weak scaling: the seed mode with --size x --size pixels per rank"},
};
enum { EXP_SEED, EXP_CPU, EXP_IO, EXP_DEVICE, EXP_COMPRESS, EXP_WEAK, EXP_COUNT };

static const gl_opt OPTS[] = {
    {"--levels", "Haar levels (the seed: 4; at most log2 of the image side)", 1, 15, 4},
};

static const gl_cli_spec SPEC = {
    PROG,
    "Lab 05 part 2: the 2D Haar transform on several GPUs (or CPU cores) with MPI; run it with mpirun",
    NAMES,
    (int)(sizeof NAMES / sizeof NAMES[0]),
    2,
    32768,
    "image side N (N x N pixels, a multiple of 2^levels); for weak, each rank's part",
    1,
    OPTS,
    1,
};

/* ---------------------------------------------------------------- phases */

enum { PH_READ, PH_SCATTER, PH_H2D, PH_KERNEL, PH_D2H, PH_GATHER, PH_ASSEMBLE, PH_WRITE, PH_SELECT, PH_PSNR,
       PH_TOTAL, PH_COUNT };
static const char *const PHASE[PH_COUNT] = {"read", "scatter", "h2d",  "kernel", "d2h", "gather",
                                            "assemble", "write", "select", "psnr", "total"};
static FILE *g_out; /* rank 0's tables: stdout, or stderr when the CSV goes to stdout */
#define NOT_TIMED (-1.0) /* a phase this rank did not run (the maximum over ranks ignores it) */

static void phase_add(double *ph, int k, double ms) { ph[k] = (ph[k] < 0 ? 0 : ph[k]) + ms; }
static double now_ms(void) { return MPI_Wtime() * 1e3; }

/* ---------------------------------------------------------------- the run's settings */

typedef struct {
    gl_cli cli;
    int levels;
    haar_convention conv;
    int cpu_only; /* --cpu: no GPU is opened; every experiment computes with the C reference */
    char io_dir[512];
    int world_rank, world_size, local_rank, local_size, nodes;
    int gpu; /* this rank's GPU; -1 with --cpu */
    gl_device_info dev;
    int cuda_aware;
    cudaStream_t stream;
    cudaEvent_t ev[4];
    int rank_counts[MAX_RANK_COUNTS], n_rank_counts;
    gl_report report; /* rank 0 */
    FILE *quiet;      /* the report's per-row lines go here; we print our own tables */
    char tag[64];     /* unique part of this run's file names in io_dir */
} app;

/* Every rank reaches the same verdict: the worst status of all (0 < 1 < 2 < 77 by severity). */
static int agree(MPI_Comm comm, int status)
{
    int worst = 0;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, comm);
    return worst;
}

static void finish(int code)
{
    fflush(stdout);
    fflush(stderr);
    MPI_Finalize();
    exit(code);
}

/* ---------------------------------------------------------------- command line */

static int flag_given(int argc, char **argv, const char *flag)
{
    size_t n = strlen(flag);
    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], flag, n) && (argv[i][n] == '\0' || argv[i][n] == '=')) return 1;
    return 0;
}

/* Take this program's own non-integer flags (--convention, --cpu, --io-dir) out of argv; the rest
 * goes to the suite's parser (which knows --levels from OPTS). Returns 0, or -1 with the message on err. */
static int take_own_flags(app *A, int *argc, char **argv, FILE *err)
{
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *arg = argv[i], *val = NULL;
        char flag[32];
        const char *eq = strchr(arg, '=');
        if (!strncmp(arg, "--", 2) && eq && (size_t)(eq - arg) < sizeof flag) {
            snprintf(flag, sizeof flag, "%.*s", (int)(eq - arg), arg);
            val = eq + 1;
        } else {
            snprintf(flag, sizeof flag, "%s", arg);
        }
        int own = !strcmp(flag, "--convention") || !strcmp(flag, "--cpu") || !strcmp(flag, "--io-dir");
        if (!own) {
            argv[out++] = argv[i];
            continue;
        }
        if (!strcmp(flag, "--cpu")) {
            if (val) {
                fprintf(err, "%s: --cpu takes no value\n", PROG);
                return -1;
            }
            A->cpu_only = 1;
            continue;
        }
        if (!val) {
            if (i + 1 >= *argc) {
                fprintf(err, "%s: %s needs a value (see --help)\n", PROG, flag);
                return -1;
            }
            val = argv[++i];
        }
        if (!strcmp(flag, "--convention")) {
            if (!strcmp(val, "average")) A->conv = HAAR_AVERAGE;
            else if (!strcmp(val, "orthonormal")) A->conv = HAAR_ORTHONORMAL;
            else {
                fprintf(err, "%s: --convention '%s' is invalid: allowed average, orthonormal\n", PROG, val);
                return -1;
            }
        } else {
            struct stat st;
            if (!*val || stat(val, &st) != 0 || !S_ISDIR(st.st_mode) || access(val, W_OK | X_OK) != 0 ||
                strlen(val) >= sizeof A->io_dir - 64) {
                fprintf(err, "%s: --io-dir '%s': needs an existing, writable directory (shared by all nodes "
                             "for a multi-node run)\n", PROG, val);
                return -1;
            }
            snprintf(A->io_dir, sizeof A->io_dir, "%s", val);
        }
    }
    *argc = out;
    argv[out] = NULL;
    return 0;
}

static void help_extra(void)
{
    printf("haar_mpi's own options:\n"
           "  --convention C     average (the seed's) or orthonormal (default; PyWavelets' haar)\n"
           "  --cpu              CPU cluster run: every experiment computes with the C reference, no GPU\n"
           "  --io-dir DIR       where the picture and result files go (default $TMPDIR or /tmp;\n"
           "                     a directory every node sees for a multi-node run)\n"
           "here --reps defaults to 10 and --warmup to 1 (whole runs, each timed: the seed's protocol);\n"
           "--image must be a binary PGM (the io experiment reads its rows in place); --save DIR writes\n"
           "the compress experiment's reconstructions (PGM) of the run on all ranks\n"
           "run with mpirun, one rank per GPU: mpirun -np 2 haar_mpi  (see labs/05_haar/README.md)\n");
}

/* Parse on every rank; only rank 0 prints help and list. Every rank that finds an error prints
 * it (ranks may differ: mpirun can give each rank its own arguments); then all exit 2. */
static void parse_command_line(app *A, int argc, char **argv)
{
    char *msg = NULL;
    size_t msg_len = 0;
    FILE *err = open_memstream(&msg, &msg_len);
    if (!err) {
        fprintf(stderr, "%s: out of memory\n", PROG);
        MPI_Abort(MPI_COMM_WORLD, GL_EXIT_FAIL);
    }
    A->conv = HAAR_ORTHONORMAL;
    const char *tmp = getenv("TMPDIR");
    snprintf(A->io_dir, sizeof A->io_dir, "%s", tmp && *tmp && strlen(tmp) < sizeof A->io_dir - 64 ? tmp : "/tmp");
    int reps_given = flag_given(argc, argv, "--reps"), warmup_given = flag_given(argc, argv, "--warmup");
    int help = flag_given(argc, argv, "--help") || flag_given(argc, argv, "-h");
    int rc = take_own_flags(A, &argc, argv, err) ? GL_CLI_USAGE : GL_CLI_RUN;
    if (rc == GL_CLI_RUN) {
        /* gl_cli_parse prints --help and --list on stdout: only rank 0's copy is kept. */
        int saved = -1;
        fflush(stdout);
        if (A->world_rank != 0) {
            saved = dup(STDOUT_FILENO);
            FILE *null = fopen("/dev/null", "w");
            if (null) {
                dup2(fileno(null), STDOUT_FILENO);
                fclose(null);
            }
        }
        rc = gl_cli_parse(&A->cli, &SPEC, argc, argv, err);
        fflush(stdout);
        if (saved >= 0) {
            dup2(saved, STDOUT_FILENO);
            close(saved);
        }
        if (rc == GL_CLI_EXIT_OK && help && A->world_rank == 0) help_extra();
        if (rc == GL_CLI_RUN && A->cli.timing.flush_l2) { /* accepted by the suite's parser, meaningless here */
            fprintf(err, "%s: --flush-l2 does not apply: haar_mpi times whole runs, not kernels in the L2\n", PROG);
            rc = GL_CLI_USAGE;
        }
    }
    fclose(err);
    int worst = agree(MPI_COMM_WORLD, rc);
    if (rc == GL_CLI_USAGE) { /* one write: the ranks' lines must not interleave */
        if (A->world_size > 1) fprintf(stderr, "[rank %d] %s", A->world_rank, msg);
        else fputs(msg, stderr);
    }
    free(msg);
    if (worst == GL_CLI_USAGE) {
        if (A->world_rank == 0 && rc != GL_CLI_USAGE)
            fprintf(stderr, "%s: stopping: the command line is invalid on another rank (message above)\n", PROG);
        finish(GL_EXIT_USAGE);
    }
    if (worst == GL_CLI_EXIT_OK) finish(GL_EXIT_OK);
    /* The protocol: 10 runs each, median; one untimed run first. */
    if (!reps_given) A->cli.timing.reps = A->cli.quick ? 3 : 10;
    if (!warmup_given) A->cli.timing.warmup = 1;
    A->levels = (int)A->cli.opt[0];
}

/* Every rank checks a condition it can evaluate alone (the same on all ranks): on failure every
 * rank prints the reason with its rank and all exit 2 - no rank is left waiting in a collective. */
static void usage_error_everywhere(const app *A, const char *fmt, ...)
{
    char line[1200], rank[32] = "";
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (A->world_size > 1) snprintf(rank, sizeof rank, "[rank %d] ", A->world_rank);
    fprintf(stderr, "%s: %s%s\n", PROG, rank, line); /* one write: the ranks' lines must not interleave */
    finish(GL_EXIT_USAGE);
}

/* ---------------------------------------------------------------- MPI and GPUs */

static int mpi_cuda_aware(void)
{
#if defined(MPIX_CUDA_AWARE_SUPPORT)
    return MPIX_Query_cuda_support(); /* run time: the library loaded now, not the one compiled against */
#else
    return 0;
#endif
}

/* The node-local rank picks the GPU: ranks 0, 1, ... of each node take GPUs --device + 0, 1, ...
 * (modulo the count; a note says when ranks share a GPU). No usable GPU on any rank: exit 77. */
static void open_gpus(app *A)
{
    A->gpu = -1;
    /* CUDA-aware only if every rank's library says so (asked even with --cpu, to report it). */
    int aware = mpi_cuda_aware(), all = 0;
    MPI_Allreduce(&aware, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    A->cuda_aware = all;
    int need = 0; /* a selected experiment that computes on GPUs (everything but cpu) */
    for (int e = 0; e < EXP_COUNT; e++) need |= e != EXP_CPU && gl_cli_selected(&A->cli, NAMES[e].name, NULL);
    if (A->cpu_only || !need) return;
    int count = 0, ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
    if (ok) {
        A->gpu = (A->cli.device + A->local_rank) % count;
        ok = cudaSetDevice(A->gpu) == cudaSuccess && cudaFree(0) == cudaSuccess;
    }
    if (agree(MPI_COMM_WORLD, ok ? 0 : 1)) {
        if (!ok) printf("%s: [rank %d] no usable CUDA GPU; skipping (run with --cpu for the CPU cluster)\n", PROG,
                        A->world_rank);
        finish(GL_EXIT_NO_GPU);
    }
    A->dev = gl_device_open(PROG, A->gpu);
    GL_CHECK(cudaStreamCreate(&A->stream));
    for (int i = 0; i < 4; i++) GL_CHECK(cudaEventCreate(&A->ev[i]));
    int shared = A->local_size > count;
    if (agree(MPI_COMM_WORLD, shared) && A->world_rank == 0)
        fprintf(g_out, "note: some node runs more ranks than it has GPUs: ranks share GPUs, and the times are not "
               "those of one GPU per rank\n");
}

static void print_setup(const app *A)
{
    char names[256] = "";
    char *all = A->world_rank == 0 ? (char *)gl_host_alloc((size_t)A->world_size * 256, "GPU names") : NULL;
    if (A->gpu >= 0) snprintf(names, sizeof names, "GPU %d: %.200s", A->gpu, A->dev.name);
    else snprintf(names, sizeof names, "CPU (C reference)");
    MPI_Gather(names, 256, MPI_CHAR, all, 256, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (A->world_rank == 0) {
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        MPI_Get_library_version(lib, &len);
        char *nl = strchr(lib, '\n');
        if (nl) *nl = '\0';
        fprintf(g_out, "%s: %d rank(s) on %d node(s); %s\n", PROG, A->world_size, A->nodes, lib);
        for (int r = 0; r < A->world_size; r++) fprintf(g_out, "  rank %d: %s\n", r, all + (size_t)r * 256);
        if (A->gpu >= 0) gl_device_print(&A->dev, g_out);
#if defined(MPIX_CUDA_AWARE_SUPPORT)
        fprintf(g_out, "CUDA-aware MPI: compiled with MPIX_CUDA_AWARE_SUPPORT = %d, MPIX_Query_cuda_support() = %d\n",
               (int)MPIX_CUDA_AWARE_SUPPORT, A->cuda_aware);
#else
        fprintf(g_out, "CUDA-aware MPI: this MPI has no CUDA extension (mpi-ext.h); treated as not CUDA-aware\n");
#endif
        fprintf(g_out, "%d level(s), %s convention, seed %llu, median of %d run(s) after %d untimed%s\n", A->levels,
               haar_convention_name(A->conv), (unsigned long long)A->cli.seed, A->cli.timing.reps,
               A->cli.timing.warmup, A->cli.quick ? ", --quick" : "");
        free(all);
    }
}

/* ---------------------------------------------------------------- one image and its references */

#define N_KEEP 2
static const int KEEP_PCT[N_KEEP] = {10, 1};

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

static void to_float(const unsigned char *p, float *f, size_t n)
{
    for (size_t i = 0; i < n; i++) f[i] = (float)p[i];
}

/* Where the pixel bytes of a PGM file start (its header parsed by the suite's reader). */
static long long pgm_pixel_offset(const char *path, int *w, int *h, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    gl_pgm_in in = {f, path, 0, err, errlen};
    int rc = gl_pgm_header(&in, w, h, '5');
    fclose(f);
    return rc ? -1 : in.pos;
}

/* The single-process references on rank 0: the same kernels on one GPU over the whole image (or
 * the C reference with --cpu / for the cpu experiment). */
static void gpu_reference(const app *A, source *S)
{
    size_t bytes = S->n * sizeof(float);
    float *d_a = (float *)gl_device_alloc(bytes, "the reference image");
    float *d_b = (float *)gl_device_alloc(bytes, "the reference coefficients");
    size_t sb = haar_gpu_scratch_bytes(HAAR_SINGLE_PASS, S->width, S->height, A->levels);
    void *d_s = sb ? gl_device_alloc(sb, "the kernels' scratch") : NULL;
    GL_CHECK(cudaMemcpy(d_a, S->image, bytes, cudaMemcpyHostToDevice));
    GL_CHECK(haar_gpu_forward(HAAR_SINGLE_PASS, d_a, d_b, S->width, S->height, (size_t)S->width, A->levels,
                              A->conv, d_s, NULL, A->stream));
    GL_CHECK(cudaStreamSynchronize(A->stream));
    GL_CHECK(cudaMemcpy(S->ref_forward, d_b, bytes, cudaMemcpyDeviceToHost));
    if (S->with_inverse) {
        GL_CHECK(haar_gpu_inverse(HAAR_SINGLE_PASS, d_b, d_a, S->width, S->height, (size_t)S->width, A->levels,
                                  A->conv, d_s, NULL, A->stream));
        GL_CHECK(cudaStreamSynchronize(A->stream));
        GL_CHECK(cudaMemcpy(S->ref_inverse, d_a, bytes, cudaMemcpyDeviceToHost));
    }
    for (int k = 0; k < N_KEEP && S->with_compress; k++) {
        float thr = 0;
        size_t above = 0;
        GL_CHECK(cudaMemcpy(d_b, S->ref_forward, bytes, cudaMemcpyHostToDevice));
        GL_CHECK(haar_gpu_keep_largest(d_b, S->width, S->height, (size_t)S->width, haar_keep_count(S->n, KEEP_PCT[k]),
                                       &thr, &above, A->stream));
        GL_CHECK(cudaMemcpy(S->ref_kept[k], d_b, bytes, cudaMemcpyDeviceToHost));
        GL_CHECK(haar_gpu_inverse(HAAR_SINGLE_PASS, d_b, d_a, S->width, S->height, (size_t)S->width, A->levels,
                                  A->conv, d_s, NULL, A->stream));
        GL_CHECK(cudaStreamSynchronize(A->stream));
        GL_CHECK(cudaMemcpy(S->ref_recon[k], d_a, bytes, cudaMemcpyDeviceToHost));
    }
    GL_CHECK(cudaFree(d_a));
    GL_CHECK(cudaFree(d_b));
    if (d_s) GL_CHECK(cudaFree(d_s));
}

static void cpu_reference(const app *A, source *S, float *forward)
{
    memcpy(S->ref_forward, forward, S->n * sizeof(float));
    if (S->with_inverse) {
        memcpy(S->ref_inverse, forward, S->n * sizeof(float));
        haar_inverse_ref(S->ref_inverse, S->width, S->height, (size_t)S->width, A->levels, A->conv);
    }
    for (int k = 0; k < N_KEEP && S->with_compress; k++) {
        memcpy(S->ref_kept[k], forward, S->n * sizeof(float));
        haar_keep_largest(S->ref_kept[k], S->n, haar_keep_count(S->n, KEEP_PCT[k]));
        memcpy(S->ref_recon[k], S->ref_kept[k], S->n * sizeof(float));
        haar_inverse_ref(S->ref_recon[k], S->width, S->height, (size_t)S->width, A->levels, A->conv);
    }
}

/* One GPU against the C reference, within haar_gpu_tolerance (the kernels' own contract). */
static int check_gpu_against_cpu(const app *A, const source *S, const float *cpu)
{
    double max_abs = 0, worst = 0;
    for (size_t i = 0; i < S->n; i++) max_abs = fmax(max_abs, fabs(cpu[i]));
    double tol = haar_gpu_tolerance(A->conv, A->levels, max_abs);
    size_t at = 0;
    for (size_t i = 0; i < S->n; i++) {
        double d = fabs((double)S->ref_forward[i] - cpu[i]);
        if (!(d <= worst)) { /* also catches NaN */
            worst = isnan(d) ? INFINITY : d;
            at = i;
        }
    }
    if (worst <= tol) return 0;
    fprintf(stderr, "VERIFICATION FAILED: one GPU against the C reference, %dx%d: element %zu differs by %.3g "
                    "(tolerance %.3g)\n", S->width, S->height, at, worst, tol);
    return 1;
}

/* Rank 0 generates (or reads) the picture and writes it where every rank can read it; the
 * references are computed once per image. All ranks learn the file name and pixel offset. */
static void source_open(const app *A, source *S, int width, int height, int gpu_refs, int e)
{
    memset(S, 0, sizeof *S);
    S->with_inverse = e == EXP_SEED || e == EXP_CPU || e == EXP_WEAK;
    S->with_compress = e == EXP_COMPRESS;
    int status = 0;
    char err[700] = "";
    if (A->world_rank == 0) {
        gl_image img;
        if (A->cli.image) {
            snprintf(S->pgm, sizeof S->pgm, "%s", A->cli.image);
            if (gl_pgm_read(A->cli.image, &img, err, sizeof err)) status = GL_EXIT_USAGE;
        } else {
            snprintf(S->pgm, sizeof S->pgm, "%s/%s.%dx%d.pgm", A->io_dir, A->tag, width, height);
            S->generated = 1;
            if (gl_image_generate(&img, width, height, A->cli.seed) ||
                gl_pgm_write(S->pgm, &img, err, sizeof err))
                status = GL_EXIT_FAIL;
        }
        int w = 0, h = 0;
        if (!status) S->pgm_offset = pgm_pixel_offset(S->pgm, &w, &h, err, sizeof err);
        if (!status && S->pgm_offset < 0) status = GL_EXIT_FAIL;
        if (!status) {
            S->width = img.width;
            S->height = img.height;
            S->pixels = img.pixels;
        }
        if (status) fprintf(stderr, "%s: %s\n", PROG, err[0] ? err : "cannot make the picture");
    }
    int agreed = agree(MPI_COMM_WORLD, status);
    if (agreed) finish(agreed);
    MPI_Bcast(S->pgm, sizeof S->pgm, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Bcast(&S->pgm_offset, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    MPI_Bcast(&S->width, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&S->height, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(&S->generated, 1, MPI_INT, 0, MPI_COMM_WORLD);
    S->n = (size_t)S->width * S->height;
    S->cpu_ref_ms = NAN;
    if (A->world_rank != 0) return;

    size_t bytes = S->n * sizeof(float);
    S->image = (float *)gl_host_alloc(bytes, "the picture as floats");
    to_float(S->pixels, S->image, S->n);
    S->ref_forward = (float *)gl_host_alloc(bytes, "the reference coefficients");
    if (S->with_inverse) S->ref_inverse = (float *)gl_host_alloc(bytes, "the reference inverse");
    for (int k = 0; k < N_KEEP && S->with_compress; k++) {
        S->ref_kept[k] = (float *)gl_host_alloc(bytes, "the reference kept coefficients");
        S->ref_recon[k] = (float *)gl_host_alloc(bytes, "the reference reconstruction");
    }
    /* The C reference on the whole image, one core: timed (the seed's "1 CPU"), and the
     * reference itself when the run computes on CPUs. */
    float *cpu = NULL;
    if (!gpu_refs || (long long)S->n <= CPU_REF_MAX_PIXELS) {
        cpu = (float *)gl_host_alloc(bytes, "the C reference");
        memcpy(cpu, S->image, bytes);
        double t = now_ms();
        haar_forward_ref(cpu, S->width, S->height, (size_t)S->width, A->levels, A->conv);
        S->cpu_ref_ms = now_ms() - t;
    }
    S->refs_gpu = gpu_refs;
    if (gpu_refs) gpu_reference(A, S);
    else cpu_reference(A, S, cpu);
    for (int k = 0; k < N_KEEP && S->with_compress; k++) S->ref_psnr[k] = haar_psnr_u8(S->pixels, S->ref_recon[k], S->n);
    int wrong = gpu_refs && cpu && (long long)S->n <= TOL_CHECK_MAX_PIXELS && check_gpu_against_cpu(A, S, cpu);
    free(cpu);
    if (wrong) { /* the baseline itself is wrong: nothing can be compared with it */
        fprintf(stderr, "%s: the single-GPU reference differs from the C reference; stopping\n", PROG);
        MPI_Abort(MPI_COMM_WORLD, GL_EXIT_FAIL);
    }
}

static void source_close(const app *A, source *S)
{
    if (A->world_rank == 0) {
        if (S->generated) remove(S->pgm);
        free(S->pixels);
        free(S->image);
        free(S->ref_forward);
        free(S->ref_inverse);
        for (int k = 0; k < N_KEEP; k++) {
            free(S->ref_kept[k]);
            free(S->ref_recon[k]);
        }
    }
    memset(S, 0, sizeof *S);
}

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
} problem;

static void problem_open(const app *A, problem *P, MPI_Comm comm, const source *S, int use_gpu)
{
    memset(P, 0, sizeof *P);
    P->comm = comm;
    MPI_Comm_rank(comm, &P->rank);
    MPI_Comm_size(comm, &P->ranks);
    P->use_gpu = use_gpu;
    P->width = S->width;
    P->height = S->height;
    P->levels = A->levels;
    P->strips = (haar_strip *)gl_host_alloc((size_t)P->ranks * sizeof *P->strips, "strips");
    char err[300];
    if (haar_split_rows(S->height, A->levels, P->ranks, P->strips, err, sizeof err)) {
        /* checked for every size before any work (check_sizes); here only as a last guard */
        fprintf(stderr, "%s: %s\n", PROG, err);
        MPI_Abort(MPI_COMM_WORLD, GL_EXIT_USAGE);
    }
    P->mine = P->strips[P->rank];
    P->strip_n = (size_t)P->width * P->mine.rows;
    P->counts = (int *)gl_host_alloc((size_t)P->ranks * sizeof(int), "counts");
    P->displs = (int *)gl_host_alloc((size_t)P->ranks * sizeof(int), "displacements");
    for (int r = 0; r < P->ranks; r++) {
        P->counts[r] = P->strips[r].rows;
        P->displs[r] = P->strips[r].row0;
    }
    MPI_Type_contiguous(P->width, MPI_FLOAT, &P->row_f32);
    MPI_Type_commit(&P->row_f32);
    MPI_Type_contiguous(P->width, MPI_UNSIGNED_CHAR, &P->row_u8);
    MPI_Type_commit(&P->row_u8);
    P->pieces = (haar_piece **)calloc((size_t)P->ranks, sizeof *P->pieces);
    P->npieces = (size_t *)calloc((size_t)P->ranks, sizeof *P->npieces);
    if (!P->pieces || !P->npieces) {
        fprintf(stderr, "%s: out of host memory\n", PROG);
        MPI_Abort(MPI_COMM_WORLD, GL_EXIT_FAIL);
    }
    for (int r = 0; r < P->ranks; r++) {
        if (P->rank != 0 && r != P->rank) continue;
        P->pieces[r] = haar_strip_pieces(P->width, P->height, A->levels, P->strips[r], &P->npieces[r]);
        if (!P->pieces[r]) {
            fprintf(stderr, "%s: out of host memory for the layout\n", PROG);
            MPI_Abort(MPI_COMM_WORLD, GL_EXIT_FAIL);
        }
    }
    P->h_strip = (float *)gl_host_alloc(P->strip_n * sizeof(float), "this rank's strip");
    P->h_u8 = (unsigned char *)gl_host_alloc(P->strip_n, "this rank's pixels");
    if (P->rank == 0) {
        P->h_gathered = (float *)gl_host_alloc(S->n * sizeof(float), "the gathered strips");
        P->h_out = (float *)gl_host_alloc(S->n * sizeof(float), "the assembled coefficients");
    }
    if (use_gpu) {
        size_t bytes = P->strip_n * sizeof(float);
        P->d_in = (float *)gl_device_alloc(bytes, "the strip");
        P->d_out = (float *)gl_device_alloc(bytes, "the strip's coefficients");
        size_t sb = haar_gpu_scratch_bytes(HAAR_SINGLE_PASS, P->width, P->mine.rows, A->levels);
        P->d_scratch = sb ? gl_device_alloc(sb, "the kernels' scratch") : NULL;
    }
}

static void problem_close(problem *P)
{
    MPI_Type_free(&P->row_f32);
    MPI_Type_free(&P->row_u8);
    for (int r = 0; r < P->ranks; r++) free(P->pieces[r]);
    free(P->pieces);
    free(P->npieces);
    free(P->strips);
    free(P->counts);
    free(P->displs);
    free(P->h_strip);
    free(P->h_u8);
    free(P->h_gathered);
    free(P->h_out);
    if (P->d_in) GL_CHECK(cudaFree(P->d_in));
    if (P->d_out) GL_CHECK(cudaFree(P->d_out));
    if (P->d_scratch) GL_CHECK(cudaFree(P->d_scratch));
    memset(P, 0, sizeof *P);
}

/* The strip's transform, in place on the host buffer `buf`: on the GPU (H2D, the single-pass
 * kernel, D2H, each timed with CUDA events) or with the C reference on this rank's core. */
static void strip_transform(const app *A, problem *P, float *buf, int inverse, double *ph)
{
    if (!P->use_gpu) {
        double t = now_ms();
        if (inverse) haar_inverse_ref(buf, P->width, P->mine.rows, (size_t)P->width, P->levels, A->conv);
        else haar_forward_ref(buf, P->width, P->mine.rows, (size_t)P->width, P->levels, A->conv);
        phase_add(ph, PH_KERNEL, now_ms() - t);
        return;
    }
    size_t bytes = P->strip_n * sizeof(float);
    cudaStream_t s = A->stream;
    GL_CHECK(cudaEventRecord(A->ev[0], s));
    GL_CHECK(cudaMemcpyAsync(P->d_in, buf, bytes, cudaMemcpyHostToDevice, s));
    GL_CHECK(cudaEventRecord(A->ev[1], s));
    if (inverse)
        GL_CHECK(haar_gpu_inverse(HAAR_SINGLE_PASS, P->d_in, P->d_out, P->width, P->mine.rows, (size_t)P->width,
                                  P->levels, A->conv, P->d_scratch, NULL, s));
    else
        GL_CHECK(haar_gpu_forward(HAAR_SINGLE_PASS, P->d_in, P->d_out, P->width, P->mine.rows, (size_t)P->width,
                                  P->levels, A->conv, P->d_scratch, NULL, s));
    GL_CHECK(cudaEventRecord(A->ev[2], s));
    GL_CHECK(cudaMemcpyAsync(buf, P->d_out, bytes, cudaMemcpyDeviceToHost, s));
    GL_CHECK(cudaEventRecord(A->ev[3], s));
    GL_CHECK(cudaEventSynchronize(A->ev[3]));
    float ms[3];
    for (int i = 0; i < 3; i++) GL_CHECK(cudaEventElapsedTime(&ms[i], A->ev[i], A->ev[i + 1]));
    phase_add(ph, PH_H2D, ms[0]);
    phase_add(ph, PH_KERNEL, ms[1]);
    phase_add(ph, PH_D2H, ms[2]);
}

/* Rank 0: put every rank's strip (in rank order in `gathered`) at its places in `image`, or back. */
static void assemble(const problem *P, const float *gathered, float *image)
{
    for (int r = 0; r < P->ranks; r++)
        haar_place_strip(gathered + (size_t)P->displs[r] * P->width, image, P->pieces[r], P->npieces[r]);
}

static void disassemble(const problem *P, const float *image, float *gathered)
{
    for (int r = 0; r < P->ranks; r++)
        haar_take_strip(image, gathered + (size_t)P->displs[r] * P->width, P->pieces[r], P->npieces[r]);
}

static void write_floats(const char *path, const float *x, size_t n)
{
    gl_out_file o;
    if (gl_out_open(&o, PROG, "--io-dir", path)) MPI_Abort(MPI_COMM_WORLD, GL_EXIT_FAIL);
    gl_out_check(&o, fwrite(x, sizeof(float), n, o.f) != n);
    gl_out_close(&o);
}

static void read_floats(const char *path, float *x, size_t n)
{
    FILE *f = fopen(path, "rb");
    size_t got = f ? fread(x, sizeof(float), n, f) : 0;
    if (f) fclose(f);
    if (got != n) {
        fprintf(stderr, "%s: cannot read back '%s' (%zu of %zu floats)\n", PROG, path, got, n);
        MPI_Abort(MPI_COMM_WORLD, GL_EXIT_FAIL);
    }
}

/* Rank 0 reads the whole picture file (the seed's step 4) into floats. */
static void read_picture(const source *S, float *image)
{
    gl_image img;
    char err[700];
    if (gl_pgm_read(S->pgm, &img, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", PROG, err);
        MPI_Abort(MPI_COMM_WORLD, GL_EXIT_FAIL);
    }
    to_float(img.pixels, image, S->n);
    gl_image_free(&img);
}

/* ---- mode: seed (and cpu) ---- */

/* The test suite's proof that the comparison can fail: with HAAR_MPI_INJECT_FAULT set, the last
 * rank of a multi-rank run changes one coefficient of its strip (the lowest bit of the last one). */
static void inject_fault(problem *P)
{
    if (!getenv("HAAR_MPI_INJECT_FAULT") || P->ranks < 2 || P->rank != P->ranks - 1) return;
    unsigned char *last = (unsigned char *)&P->h_strip[P->strip_n - 1];
    last[0] ^= 1;
}

static void seed_once(const app *A, problem *P, const source *S, double *ph)
{
    double t = now_ms();
    if (P->rank == 0) {
        read_picture(S, P->h_gathered);
        phase_add(ph, PH_READ, now_ms() - t);
    }
    MPI_Barrier(P->comm);
    t = now_ms();
    MPI_Scatterv(P->h_gathered, P->counts, P->displs, P->row_f32, P->h_strip, P->mine.rows, P->row_f32, 0, P->comm);
    phase_add(ph, PH_SCATTER, now_ms() - t);
    strip_transform(A, P, P->h_strip, 0, ph);
    inject_fault(P);
    MPI_Barrier(P->comm);
    t = now_ms();
    MPI_Gatherv(P->h_strip, P->mine.rows, P->row_f32, P->h_gathered, P->counts, P->displs, P->row_f32, 0, P->comm);
    phase_add(ph, PH_GATHER, now_ms() - t);
    if (P->rank == 0) {
        t = now_ms();
        assemble(P, P->h_gathered, P->h_out);
        phase_add(ph, PH_ASSEMBLE, now_ms() - t);
        t = now_ms();
        write_floats(P->out_path, P->h_out, S->n);
        phase_add(ph, PH_WRITE, now_ms() - t);
    }
}

/* The distributed inverse of the assembled coefficients (rank 0's h_out) into rank 0's
 * h_gathered: disassemble, scatter, inverse per strip, gather rows. Verification only. */
static void seed_inverse(const app *A, problem *P)
{
    double ph[PH_COUNT];
    for (int k = 0; k < PH_COUNT; k++) ph[k] = NOT_TIMED;
    if (P->rank == 0) disassemble(P, P->h_out, P->h_gathered);
    MPI_Scatterv(P->h_gathered, P->counts, P->displs, P->row_f32, P->h_strip, P->mine.rows, P->row_f32, 0, P->comm);
    strip_transform(A, P, P->h_strip, 1, ph);
    MPI_Gatherv(P->h_strip, P->mine.rows, P->row_f32, P->h_gathered, P->counts, P->displs, P->row_f32, 0, P->comm);
}

/* ---- mode: io (MPI-IO) ---- */

static void io_check(int rc, const char *what, const char *path)
{
    if (rc == MPI_SUCCESS) return;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "%s: MPI-IO %s '%s': %s\n", PROG, what, path, msg);
    MPI_Abort(MPI_COMM_WORLD, GL_EXIT_FAIL);
}

/* The places of this rank's coefficients as two MPI datatypes with the same element order: in
 * the result file (byte offsets of the image layout, increasing, as a file view requires) and in
 * the strip in memory. */
static void io_types(const problem *P, MPI_Datatype *file_type, MPI_Datatype *mem_type)
{
    size_t n = P->npieces[P->rank];
    const haar_piece *p = P->pieces[P->rank];
    int *len = (int *)gl_host_alloc(n * sizeof(int), "MPI-IO lengths");
    MPI_Aint *file_at = (MPI_Aint *)gl_host_alloc(n * sizeof(MPI_Aint), "MPI-IO offsets");
    MPI_Aint *mem_at = (MPI_Aint *)gl_host_alloc(n * sizeof(MPI_Aint), "MPI-IO offsets");
    for (size_t i = 0; i < n; i++) {
        len[i] = p[i].len;
        file_at[i] = (MPI_Aint)(p[i].image_off * sizeof(float));
        mem_at[i] = (MPI_Aint)(p[i].strip_off * sizeof(float));
    }
    MPI_Type_create_hindexed((int)n, len, file_at, MPI_FLOAT, file_type);
    MPI_Type_commit(file_type);
    MPI_Type_create_hindexed((int)n, len, mem_at, MPI_FLOAT, mem_type);
    MPI_Type_commit(mem_type);
    free(len);
    free(file_at);
    free(mem_at);
}

static void io_once(const app *A, problem *P, const source *S, MPI_Datatype file_type, MPI_Datatype mem_type,
                    double *ph)
{
    MPI_File fh;
    MPI_Status st;
    double t = now_ms();
    io_check(MPI_File_open(P->comm, S->pgm, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh), "open", S->pgm);
    MPI_Offset at = (MPI_Offset)S->pgm_offset + (MPI_Offset)P->mine.row0 * P->width;
    io_check(MPI_File_read_at_all(fh, at, P->h_u8, P->mine.rows, P->row_u8, &st), "read", S->pgm);
    MPI_File_close(&fh);
    to_float(P->h_u8, P->h_strip, P->strip_n);
    phase_add(ph, PH_READ, now_ms() - t);
    strip_transform(A, P, P->h_strip, 0, ph);
    MPI_Barrier(P->comm);
    t = now_ms();
    io_check(MPI_File_open(P->comm, P->out_path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), "open",
             P->out_path);
    io_check(MPI_File_set_size(fh, (MPI_Offset)S->n * (MPI_Offset)sizeof(float)), "set size", P->out_path);
    io_check(MPI_File_set_view(fh, 0, MPI_FLOAT, file_type, "native", MPI_INFO_NULL), "set view", P->out_path);
    io_check(MPI_File_write_at_all(fh, 0, P->h_strip, 1, mem_type, &st), "write", P->out_path);
    io_check(MPI_File_close(&fh), "close", P->out_path);
    phase_add(ph, PH_WRITE, now_ms() - t);
}

/* ---- mode: device ---- */

typedef struct {
    float *d_image, *d_gathered, *d_result; /* rank 0: the picture, the strips in rank order, the layout */
    float *pin_image, *pin_strip, *pin_gathered; /* staging when MPI is not CUDA-aware */
    haar_block *blocks;                     /* rank 0: every rank's blocks (HAAR_MAX_BLOCKS each) */
    int *nblocks;
} device_bufs;

static void device_open(const app *A, problem *P, const source *S, device_bufs *D)
{
    memset(D, 0, sizeof *D);
    size_t bytes = S->n * sizeof(float);
    if (P->rank == 0) {
        D->d_image = (float *)gl_device_alloc(bytes, "the picture on rank 0's GPU");
        D->d_gathered = (float *)gl_device_alloc(bytes, "the gathered strips");
        D->d_result = (float *)gl_device_alloc(bytes, "the assembled coefficients");
        GL_CHECK(cudaMemcpy(D->d_image, S->image, bytes, cudaMemcpyHostToDevice)); /* resident before timing */
        D->blocks = (haar_block *)gl_host_alloc((size_t)P->ranks * HAAR_MAX_BLOCKS * sizeof(haar_block), "blocks");
        D->nblocks = (int *)gl_host_alloc((size_t)P->ranks * sizeof(int), "blocks");
        for (int r = 0; r < P->ranks; r++)
            D->nblocks[r] = haar_strip_blocks(P->width, P->height, A->levels, P->strips[r],
                                              D->blocks + (size_t)r * HAAR_MAX_BLOCKS);
    }
    if (!A->cuda_aware) {
        GL_CHECK(cudaMallocHost((void **)&D->pin_strip, P->strip_n * sizeof(float)));
        if (P->rank == 0) {
            GL_CHECK(cudaMallocHost((void **)&D->pin_image, bytes));
            GL_CHECK(cudaMallocHost((void **)&D->pin_gathered, bytes));
        }
    }
}

static void device_close(device_bufs *D)
{
    float *dev[] = {D->d_image, D->d_gathered, D->d_result};
    for (int i = 0; i < 3; i++)
        if (dev[i]) GL_CHECK(cudaFree(dev[i]));
    float *pin[] = {D->pin_image, D->pin_strip, D->pin_gathered};
    for (int i = 0; i < 3; i++)
        if (pin[i]) GL_CHECK(cudaFreeHost(pin[i]));
    free(D->blocks);
    free(D->nblocks);
    memset(D, 0, sizeof *D);
}

/* A synchronous copy timed into phase k. */
static void timed_copy(double *ph, int k, void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    double t = now_ms();
    GL_CHECK(cudaMemcpy(dst, src, bytes, kind));
    phase_add(ph, k, now_ms() - t);
}

static void device_once(const app *A, problem *P, const source *S, device_bufs *D, double *ph)
{
    size_t bytes = S->n * sizeof(float), strip_bytes = P->strip_n * sizeof(float);
    double t;
    /* scatter: device to device (CUDA-aware), or GPU -> pinned -> MPI -> pinned -> GPU */
    if (!A->cuda_aware && P->rank == 0) timed_copy(ph, PH_D2H, D->pin_image, D->d_image, bytes, cudaMemcpyDeviceToHost);
    MPI_Barrier(P->comm);
    t = now_ms();
    MPI_Scatterv(A->cuda_aware ? (void *)D->d_image : (void *)D->pin_image, P->counts, P->displs, P->row_f32,
                 A->cuda_aware ? (void *)P->d_in : (void *)D->pin_strip, P->mine.rows, P->row_f32, 0, P->comm);
    phase_add(ph, PH_SCATTER, now_ms() - t);
    if (!A->cuda_aware) timed_copy(ph, PH_H2D, P->d_in, D->pin_strip, strip_bytes, cudaMemcpyHostToDevice);
    /* the kernel */
    GL_CHECK(cudaEventRecord(A->ev[0], A->stream));
    GL_CHECK(haar_gpu_forward(HAAR_SINGLE_PASS, P->d_in, P->d_out, P->width, P->mine.rows, (size_t)P->width,
                              P->levels, A->conv, P->d_scratch, NULL, A->stream));
    GL_CHECK(cudaEventRecord(A->ev[1], A->stream));
    GL_CHECK(cudaEventSynchronize(A->ev[1]));
    float ms = 0;
    GL_CHECK(cudaEventElapsedTime(&ms, A->ev[0], A->ev[1]));
    phase_add(ph, PH_KERNEL, ms);
    /* gather */
    if (!A->cuda_aware) timed_copy(ph, PH_D2H, D->pin_strip, P->d_out, strip_bytes, cudaMemcpyDeviceToHost);
    MPI_Barrier(P->comm);
    t = now_ms();
    MPI_Gatherv(A->cuda_aware ? (void *)P->d_out : (void *)D->pin_strip, P->mine.rows, P->row_f32,
                A->cuda_aware ? (void *)D->d_gathered : (void *)D->pin_gathered, P->counts, P->displs, P->row_f32, 0,
                P->comm);
    phase_add(ph, PH_GATHER, now_ms() - t);
    if (P->rank != 0) return;
    if (!A->cuda_aware) timed_copy(ph, PH_H2D, D->d_gathered, D->pin_gathered, bytes, cudaMemcpyHostToDevice);
    /* assemble on the GPU: one 2D copy per sub-band rectangle (3L + 1 per rank), no kernel */
    t = now_ms();
    size_t pitch = (size_t)P->width * sizeof(float);
    for (int r = 0; r < P->ranks; r++) {
        const float *strip = D->d_gathered + (size_t)P->displs[r] * P->width;
        for (int b = 0; b < D->nblocks[r]; b++) {
            const haar_block *k = &D->blocks[(size_t)r * HAAR_MAX_BLOCKS + b];
            GL_CHECK(cudaMemcpy2DAsync(D->d_result + (size_t)k->image_row * P->width + k->col, pitch,
                                       strip + (size_t)k->strip_row * P->width + k->col, pitch,
                                       (size_t)k->cols * sizeof(float), (size_t)k->rows, cudaMemcpyDeviceToDevice,
                                       A->stream));
        }
    }
    GL_CHECK(cudaStreamSynchronize(A->stream));
    phase_add(ph, PH_ASSEMBLE, now_ms() - t);
}

/* ---- mode: compress ---- */

typedef struct {
    float *h_rec; /* this rank's reconstruction */
    unsigned long long keep;
    haar_mpi_selection sel;
    double psnr;
} compress_state;

static void compress_once(const app *A, problem *P, const source *S, compress_state *C, double *ph)
{
    /* the strip's pixels were scattered before the timing (h_u8); forward into h_strip */
    to_float(P->h_u8, P->h_strip, P->strip_n);
    strip_transform(A, P, P->h_strip, 0, ph);
    double t = now_ms();
    haar_mpi_keep_largest(P->comm, P->h_strip, P->pieces[P->rank], P->npieces[P->rank], (unsigned long long)S->n,
                          C->keep, &C->sel);
    phase_add(ph, PH_SELECT, now_ms() - t);
    memcpy(C->h_rec, P->h_strip, P->strip_n * sizeof(float));
    strip_transform(A, P, C->h_rec, 1, ph);
    t = now_ms();
    C->psnr = haar_mpi_psnr_u8(P->comm, P->h_u8, C->h_rec, P->strip_n, (unsigned long long)S->n);
    phase_add(ph, PH_PSNR, now_ms() - t);
}

/* ---------------------------------------------------------------- repetitions and results */

typedef struct {
    int ranks;
    double med[PH_COUNT], min[PH_COUNT], max[PH_COUNT]; /* ms; NAN: phase not run */
    long long checked;
    double psnr, threshold;
    unsigned long long ties, ties_kept; /* compress: coefficients equal to the threshold, and kept */
} result;

typedef enum { RUN_SEED, RUN_IO, RUN_DEVICE, RUN_COMPRESS } run_kind;

typedef struct {
    run_kind kind;
    const source *S;
    MPI_Datatype file_type, mem_type; /* io */
    device_bufs *D;                   /* device */
    compress_state *C;                /* compress */
} run_ctx;

static void run_once(const app *A, problem *P, run_ctx *X, double *ph)
{
    switch (X->kind) {
    case RUN_SEED: seed_once(A, P, X->S, ph); break;
    case RUN_IO: io_once(A, P, X->S, X->file_type, X->mem_type, ph); break;
    case RUN_DEVICE: device_once(A, P, X->S, X->D, ph); break;
    case RUN_COMPRESS: compress_once(A, P, X->S, X->C, ph); break;
    }
}

/* warmup untimed runs, then reps timed ones; rank 0 gets the median over runs of the maximum over
 * ranks of every phase. */
static void run_timed(const app *A, problem *P, run_ctx *X, result *R)
{
    int reps = A->cli.timing.reps;
    double ph[PH_COUNT], worst[PH_COUNT];
    double *samples = (double *)gl_host_alloc((size_t)reps * PH_COUNT * sizeof(double), "timing samples");
    for (int w = 0; w < A->cli.timing.warmup; w++) {
        for (int k = 0; k < PH_COUNT; k++) ph[k] = NOT_TIMED;
        run_once(A, P, X, ph);
    }
    for (int i = 0; i < reps; i++) {
        for (int k = 0; k < PH_COUNT; k++) ph[k] = NOT_TIMED;
        MPI_Barrier(P->comm);
        double t0 = now_ms();
        run_once(A, P, X, ph);
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
static long long verify(const char *what, const float *got, const float *want, size_t n)
{
    long long bad = gl_compare_exact_f32(what, got, want, NULL, n);
    if (bad) {
        fprintf(stderr, "VERIFICATION FAILED: %s: %lld of %zu elements differ from the single-process result\n",
                what, bad, n);
        return -1;
    }
    return (long long)n;
}

/* ---------------------------------------------------------------- one experiment on n ranks */

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
    fprintf(g_out, "saved %s\n", path);
    free(img.pixels);
}

/* Run experiment `e` (on the GPU or the CPU) for image S on the ranks of comm; rank 0 verifies
 * against the single-process results and fills R (per keep for compress). Returns the status
 * (0 or 1) on rank 0, 0 elsewhere. */
/* "WHAT, N rank(s), PART" for the messages of a failed comparison. */
static const char *label(char *buf, size_t len, const char *what, const problem *P, const char *part)
{
    snprintf(buf, len, "%s, %d rank(s), %s", what, P->ranks, part);
    return buf;
}

/* Add the count of a further comparison to R->checked (-1 once any comparison failed). */
static void add_checked(result *R, long long c) { R->checked = R->checked < 0 || c < 0 ? -1 : R->checked + c; }

/* seed, cpu, weak: the timed runs, then the assembled layout and the result file against the
 * single-process forward, and a distributed inverse against the single-process inverse. */
static void run_seed_experiment(const app *A, problem *P, const source *S, const char *name, result *R)
{
    char what[160];
    run_ctx X = {RUN_SEED, S, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, NULL, NULL};
    run_timed(A, P, &X, R);
    if (P->rank == 0) {
        float *file = (float *)gl_host_alloc(S->n * sizeof(float), "the result file");
        read_floats(P->out_path, file, S->n);
        add_checked(R, verify(label(what, sizeof what, name, P, "forward (assembled layout)"), P->h_out,
                              S->ref_forward, S->n));
        if (R->checked >= 0 && verify(label(what, sizeof what, name, P, "result file"), file, S->ref_forward, S->n) < 0)
            R->checked = -1;
        free(file);
        remove(P->out_path);
    }
    seed_inverse(A, P);
    if (P->rank == 0 && R->checked >= 0)
        add_checked(R, verify(label(what, sizeof what, name, P, "inverse"), P->h_gathered, S->ref_inverse, S->n));
}

/* io: the timed runs, then the file the ranks wrote with MPI-IO against the single-process forward. */
static void run_io_experiment(const app *A, problem *P, const source *S, result *R)
{
    char what[160];
    run_ctx X = {RUN_IO, S, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, NULL, NULL};
    io_types(P, &X.file_type, &X.mem_type);
    run_timed(A, P, &X, R);
    MPI_Type_free(&X.file_type);
    MPI_Type_free(&X.mem_type);
    if (P->rank != 0) return;
    read_floats(P->out_path, P->h_out, S->n);
    add_checked(R, verify(label(what, sizeof what, "io", P, "result file (MPI-IO)"), P->h_out, S->ref_forward, S->n));
    remove(P->out_path);
}

/* device: the timed runs, then the layout assembled on rank 0's GPU against the single-process forward. */
static void run_device_experiment(const app *A, problem *P, const source *S, result *R)
{
    char what[160];
    device_bufs D;
    device_open(A, P, S, &D);
    run_ctx X = {RUN_DEVICE, S, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, &D, NULL};
    run_timed(A, P, &X, R);
    if (P->rank == 0) {
        GL_CHECK(cudaMemcpy(P->h_out, D.d_result, S->n * sizeof(float), cudaMemcpyDeviceToHost));
        add_checked(R, verify(label(what, sizeof what, "device", P, "forward (assembled on rank 0's GPU)"), P->h_out,
                              S->ref_forward, S->n));
    }
    device_close(&D);
}

/* compress, one keep fraction after the timed runs: the kept coefficients (assembled), the
 * reconstruction and the PSNR against the single process's. */
static void check_compress(const app *A, problem *P, const source *S, const compress_state *C, int k, result *R)
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

/* compress: the pixels are scattered once, untimed; then, per keep fraction, the timed runs and
 * the checks. R[k] for KEEP_PCT[k]. */
static void run_compress_experiment(const app *A, problem *P, const source *S, result *R)
{
    MPI_Scatterv(P->rank == 0 ? S->pixels : NULL, P->counts, P->displs, P->row_u8, P->h_u8, P->mine.rows, P->row_u8,
                 0, P->comm);
    compress_state C;
    memset(&C, 0, sizeof C);
    C.h_rec = (float *)gl_host_alloc(P->strip_n * sizeof(float), "the reconstruction");
    run_ctx X = {RUN_COMPRESS, S, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, NULL, &C};
    for (int k = 0; k < N_KEEP; k++) {
        C.keep = haar_keep_count(S->n, KEEP_PCT[k]);
        run_timed(A, P, &X, &R[k]);
        R[k].psnr = C.psnr;
        R[k].threshold = C.sel.threshold;
        R[k].ties = C.sel.ties;
        R[k].ties_kept = C.sel.ties_kept;
        check_compress(A, P, S, &C, k, &R[k]);
    }
    free(C.h_rec);
}

/* Run experiment `e` (on the GPU or the CPU) for image S on the ranks of comm; rank 0 compares
 * with the single-process results and fills R (R[0 .. N_KEEP-1] for compress). Returns 1 on rank 0
 * when a comparison failed, else 0. */
static int run_experiment(const app *A, int e, int use_gpu, const source *S, MPI_Comm comm, result *R)
{
    problem P;
    problem_open(A, &P, comm, S, use_gpu);
    snprintf(P.out_path, sizeof P.out_path, "%s/%s.%s.f32", A->io_dir, A->tag, NAMES[e].name);
    int n_res = 1;
    switch (e) {
    case EXP_IO: run_io_experiment(A, &P, S, R); break;
    case EXP_DEVICE: run_device_experiment(A, &P, S, R); break;
    case EXP_COMPRESS: run_compress_experiment(A, &P, S, R); n_res = N_KEEP; break;
    default: run_seed_experiment(A, &P, S, NAMES[e].name, R); break; /* seed, cpu, weak */
    }
    int failed = 0;
    for (int k = 0; k < n_res; k++) failed |= P.rank == 0 && R[k].checked < 0;
    problem_close(&P);
    return failed;
}

/* ---------------------------------------------------------------- reporting */

/* Bytes a phase moves in all (for an aggregate GB/s): the image as floats through scatter, H2D,
 * D2H, gather, assemble, write; the 8-bit picture through read. NAN where no single figure applies. */
static double phase_bytes(int e, int k, size_t n)
{
    switch (k) {
    case PH_READ: return (double)n;
    case PH_SCATTER: case PH_GATHER: case PH_WRITE: case PH_ASSEMBLE: return e == EXP_COMPRESS ? NAN : 4.0 * n;
    case PH_H2D: case PH_D2H: /* device: staging copies and rank 0's whole-image copies mixed */
        return e == EXP_COMPRESS || e == EXP_DEVICE ? NAN : 4.0 * n;
    default: return NAN;
    }
}

static void csv_ratio_row(app *A, const char *exp, const char *variant, size_t n, int ranks, double v)
{
    if (isnan(v)) return;
    gl_row row = gl_row_new(exp, variant, (long long)n);
    row.param = ranks;
    row.ratio = v;
    row.reps = A->cli.timing.reps;
    row.batch = 1;
    gl_report_row(&A->report, &row);
}

/* The CSV rows of one result: every phase that ran, the total with the speedup over 1 rank, then
 * efficiency, kernel-phase efficiency and the speedup over the single-core C reference. */
static void csv_result(app *A, int e, const char *backend, const char *keep, const source *S, const result *R,
                       const result *one)
{
    char variant[64];
    for (int k = 0; k < PH_COUNT; k++) {
        if (isnan(R->med[k])) continue;
        snprintf(variant, sizeof variant, "%s%s/%s", backend, keep, PHASE[k]);
        gl_row row = gl_row_new(NAMES[e].name, variant, (long long)S->n);
        row.param = R->ranks;
        row.bytes = k == PH_TOTAL ? NAN : phase_bytes(e, k, S->n);
        row.working_set_bytes = 4.0 * S->n;
        row.reps = A->cli.timing.reps;
        row.batch = 1;
        row.median_ms = R->med[k];
        row.min_ms = R->min[k];
        row.max_ms = R->max[k];
        if (!isnan(row.bytes)) row.gbs = gl_gbs(row.bytes, row.median_ms);
        if (k == PH_TOTAL) {
            row.ratio = one->med[PH_TOTAL] / R->med[PH_TOTAL];
            row.checked = R->checked;
        }
        gl_report_row(&A->report, &row);
    }
    double speedup = one->med[PH_TOTAL] / R->med[PH_TOTAL];
    snprintf(variant, sizeof variant, "%s%s/efficiency", backend, keep);
    csv_ratio_row(A, NAMES[e].name, variant, S->n, R->ranks, e == EXP_WEAK ? speedup : speedup / R->ranks);
    snprintf(variant, sizeof variant, "%s%s/kernel_efficiency", backend, keep);
    csv_ratio_row(A, NAMES[e].name, variant, S->n, R->ranks,
                  e == EXP_WEAK ? one->med[PH_KERNEL] / R->med[PH_KERNEL]
                                : one->med[PH_KERNEL] / (R->ranks * R->med[PH_KERNEL]));
    if (e != EXP_COMPRESS && e != EXP_WEAK) {
        snprintf(variant, sizeof variant, "%s%s/speedup_vs_cpu_ref", backend, keep);
        csv_ratio_row(A, NAMES[e].name, variant, S->n, R->ranks, S->cpu_ref_ms / R->med[PH_TOTAL]);
    }
    if (e == EXP_COMPRESS) {
        snprintf(variant, sizeof variant, "%s%s/psnr_db", backend, keep);
        csv_ratio_row(A, NAMES[e].name, variant, S->n, R->ranks, R->psnr);
    }
}

static const gl_col TABLE[] = {
    {"ranks", "", 6},      {"read", "%.2f", 8},   {"scatter", "%.2f", 8}, {"h2d", "%.2f", 8},
    {"kernel", "%.3f", 8}, {"d2h", "%.2f", 8},    {"gather", "%.2f", 8},  {"assemble", "%.2f", 8},
    {"write", "%.2f", 8},  {"select", "%.2f", 8}, {"psnr", "%.2f", 7},    {"total", "%.2f", 9},
    {"speedup", "%.2f", 7}, {"eff", "%.2f", 5},   {"kern.eff", "%.2f", 8}, {"vsCPUref", "%.1f", 8},
};
#define TABLE_COLS ((int)(sizeof TABLE / sizeof TABLE[0]))

static void table_line(int e, const source *S, const result *R, const result *one)
{
    double v[TABLE_COLS - 1];
    for (int k = 0; k < PH_COUNT; k++) v[k] = R->med[k];
    double speedup = one->med[PH_TOTAL] / R->med[PH_TOTAL];
    v[PH_COUNT] = speedup;
    v[PH_COUNT + 1] = e == EXP_WEAK ? speedup : speedup / R->ranks;
    v[PH_COUNT + 2] = e == EXP_WEAK ? one->med[PH_KERNEL] / R->med[PH_KERNEL]
                                    : one->med[PH_KERNEL] / (R->ranks * R->med[PH_KERNEL]);
    v[PH_COUNT + 3] = e == EXP_WEAK || e == EXP_COMPRESS ? NAN : S->cpu_ref_ms / R->med[PH_TOTAL];
    char ranks[16];
    snprintf(ranks, sizeof ranks, "%d", R->ranks);
    gl_table_line(g_out, TABLE, TABLE_COLS, ranks, v);
}

/* ---------------------------------------------------------------- sizes and rank counts */

typedef struct {
    int sides[8], n;
} size_list;

static size_list strong_sizes(const app *A, int e)
{
    size_list L = {{0}, 0};
    if (A->cli.size) {
        L.sides[L.n++] = (int)A->cli.size;
        return L;
    }
    static const int quick[] = {64, 96}, cpu[] = {512, 1024, 2048}, gpu[] = {512, 1024, 2048, 8192, 16384};
    const int *s = A->cli.quick ? quick : (A->cpu_only || e == EXP_CPU) ? cpu : gpu;
    int n = A->cli.quick ? 2 : (A->cpu_only || e == EXP_CPU) ? 3 : 5;
    for (int i = 0; i < n; i++) {
        if (e == EXP_COMPRESS && !A->cli.quick && (long long)s[i] * s[i] > COMPRESS_MAX_PIXELS) continue;
        L.sides[L.n++] = s[i];
    }
    return L;
}

static size_list weak_sizes(const app *A)
{
    size_list L = {{0}, 0};
    if (A->cli.size) L.sides[L.n++] = (int)A->cli.size;
    else if (A->cli.quick) L.sides[L.n++] = 32;
    else if (A->cpu_only) L.sides[L.n++] = 512;
    else {
        L.sides[L.n++] = 2048;
        L.sides[L.n++] = 8192;
    }
    return L;
}

/* Every size must take the levels and give every rank a strip: checked on every rank before any
 * work (the same arithmetic everywhere, so every rank stops, with the reason, and none hangs). */
static void check_shape(const app *A, int width, int height, const char *what)
{
    char err[300];
    haar_strip *s = (haar_strip *)gl_host_alloc((size_t)A->world_size * sizeof *s, "strips");
    if (haar_check(width, height, A->levels, err, sizeof err))
        usage_error_everywhere(A, "%s %dx%d: %s", what, width, height, err);
    if (haar_split_rows(height, A->levels, A->world_size, s, err, sizeof err))
        usage_error_everywhere(A, "%s %dx%d: %s", what, width, height, err);
    free(s);
}

static int experiment_selected(const app *A, int e) { return gl_cli_selected(&A->cli, NAMES[e].name, NULL); }

static void check_sizes(const app *A)
{
    if (A->cli.image) {
        /* the picture's own size (rank 0 reads the header; every rank then checks it) */
        int wh[2] = {0, 0};
        if (A->world_rank == 0) {
            char err[700];
            gl_image img;
            if (gl_pgm_read(A->cli.image, &img, err, sizeof err)) fprintf(stderr, "%s: %s\n", PROG, err);
            else {
                wh[0] = img.width;
                wh[1] = img.height;
                gl_image_free(&img);
            }
        }
        MPI_Bcast(wh, 2, MPI_INT, 0, MPI_COMM_WORLD);
        if (!wh[0]) usage_error_everywhere(A, "--image '%s' cannot be used (message above)", A->cli.image);
        check_shape(A, wh[0], wh[1], "--image");
        return;
    }
    for (int e = 0; e < EXP_COUNT; e++) {
        if (!experiment_selected(A, e)) continue;
        if (e == EXP_WEAK) {
            size_list L = weak_sizes(A);
            for (int i = 0; i < L.n; i++)
                check_shape(A, L.sides[i], L.sides[i] * A->world_size, "weak scaling, --size per rank:");
        } else {
            size_list L = strong_sizes(A, e);
            for (int i = 0; i < L.n; i++) check_shape(A, L.sides[i], L.sides[i], "--size");
        }
    }
}

/* 1, 2, 4, ... below the job's size, then the job's size. */
static void make_rank_counts(app *A)
{
    A->n_rank_counts = 0;
    for (int n = 1; n < A->world_size && A->n_rank_counts < MAX_RANK_COUNTS - 1; n *= 2)
        A->rank_counts[A->n_rank_counts++] = n;
    A->rank_counts[A->n_rank_counts++] = A->world_size;
}

/* The ranks 0 .. n-1 of the world (MPI_COMM_NULL on the others). */
static MPI_Comm first_ranks(int n, int world_rank)
{
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank < n ? 0 : MPI_UNDEFINED, world_rank, &c);
    return c;
}

/* ---------------------------------------------------------------- the seed's table */

typedef struct {
    int side;
    double over_cpu, over_gpu, over_cluster; /* 4 GPUs over 1 CPU, 1 GPU, the 4-node CPU cluster */
} seed_row;

/* Table 2 of the seed (4 nodes: i5-4670 + GTX 780, Gigabit Ethernet; 4 levels; mean of 10 runs). */
static const seed_row SEED_TABLE2[] = {
    {512, 13.719, 1.532, 4.282}, {1024, 45.451, 2.628, 18.524}, {2048, 69.727, 3.499, 24.446}};

typedef struct {
    int side;
    double cpu_ref_ms, seed1, seedP, cpuP; /* totals: 1 rank and all ranks (seed), all ranks (cpu) */
} ours_row;
#define MAX_OURS 8

static void print_seed_table(const app *A, const ours_row *ours, int n)
{
    if (A->world_rank != 0 || n == 0) return;
    fprintf(g_out, "\n== the seed's Table 2 (4 nodes, GTX 780 + i5-4670, Gigabit Ethernet) beside ours (%d rank(s) "
           "here; totals, medians)\n", A->world_size);
    static const gl_col cols[] = {{"size", "", 10},           {"seed:xCPU", "%.1f", 10}, {"xGPU", "%.2f", 6},
                                  {"xCluster", "%.1f", 9},     {"eff", "%.2f", 5},        {"ours:xCPU", "%.1f", 10},
                                  {"xGPU", "%.2f", 6},         {"xCluster", "%.2f", 9},   {"eff", "%.2f", 5}};
    gl_table_header(g_out, cols, 9);
    for (int i = 0; i < n; i++) {
        const seed_row *s = NULL;
        for (size_t j = 0; j < sizeof SEED_TABLE2 / sizeof SEED_TABLE2[0]; j++)
            if (SEED_TABLE2[j].side == ours[i].side) s = &SEED_TABLE2[j];
        double v[8] = {s ? s->over_cpu : NAN, s ? s->over_gpu : NAN, s ? s->over_cluster : NAN,
                       s ? s->over_gpu / 4 : NAN, ours[i].cpu_ref_ms / ours[i].seedP, ours[i].seed1 / ours[i].seedP,
                       ours[i].cpuP / ours[i].seedP, ours[i].seed1 / ours[i].seedP / A->world_size};
        char size[32];
        snprintf(size, sizeof size, "%dx%d", ours[i].side, ours[i].side);
        gl_table_line(g_out, cols, 9, size, v);
    }
    fprintf(g_out, "(xCPU: over one core running the C reference; xGPU: over the 1-rank run; xCluster: over the "
           "cpu experiment on the same ranks; eff = xGPU / ranks)\n");
}

/* Keep, per square size, the totals Table 2 compares: the seed mode on 1 and on all ranks, the
 * cpu experiment on all ranks, and the C reference's time. */
static void remember_totals(const app *A, int e, const source *S, const result *all, ours_row *ours, int *n_ours)
{
    int j = 0;
    while (j < *n_ours && ours[j].side != S->width) j++;
    if (j == *n_ours) {
        if (*n_ours == MAX_OURS) return;
        memset(&ours[j], 0, sizeof ours[j]);
        ours[j].side = S->width;
        ours[j].seed1 = ours[j].seedP = ours[j].cpuP = NAN;
        (*n_ours)++;
    }
    ours[j].cpu_ref_ms = S->cpu_ref_ms;
    if (e == EXP_SEED) {
        ours[j].seed1 = all[0].med[PH_TOTAL];
        ours[j].seedP = all[A->n_rank_counts - 1].med[PH_TOTAL];
    } else {
        ours[j].cpuP = all[A->n_rank_counts - 1].med[PH_TOTAL];
    }
}

/* ---------------------------------------------------------------- main */

static void open_report(app *A)
{
    if (A->world_rank != 0) return;
    static char buf[16][320];
    static const char *meta[17];
    char date[32], lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int k = 0, len = 0;
    gl_utc_now(date, sizeof date);
    MPI_Get_library_version(lib, &len);
    char *nl = strchr(lib, '\n');
    if (nl) *nl = '\0';
    snprintf(buf[k++], sizeof buf[0], "lab=%s", LAB);
    snprintf(buf[k++], sizeof buf[0], "gpu=%s", A->gpu >= 0 ? A->dev.name : "none (--cpu: the C reference)");
    snprintf(buf[k++], sizeof buf[0], "ranks=%d", A->world_size);
    snprintf(buf[k++], sizeof buf[0], "nodes=%d", A->nodes);
    snprintf(buf[k++], sizeof buf[0], "mpi=%.280s", lib);
    snprintf(buf[k++], sizeof buf[0], "cuda_aware_mpi=%d", A->cuda_aware);
    if (A->gpu >= 0) {
        snprintf(buf[k++], sizeof buf[0], "driver=%s", A->dev.driver);
        snprintf(buf[k++], sizeof buf[0], "cuda_runtime=%d.%d", A->dev.runtime_api / 1000,
                 (A->dev.runtime_api % 1000) / 10);
    }
    snprintf(buf[k++], sizeof buf[0], "levels=%d", A->levels);
    snprintf(buf[k++], sizeof buf[0], "convention=%s", haar_convention_name(A->conv));
    snprintf(buf[k++], sizeof buf[0], "date=%s", date);
    snprintf(buf[k++], sizeof buf[0], "commit=%s", gl_commit());
    snprintf(buf[k++], sizeof buf[0], "seed=%llu", (unsigned long long)A->cli.seed);
    snprintf(buf[k++], sizeof buf[0], "image=%s", A->cli.image ? A->cli.image : "generated (gl_image_generate)");
    snprintf(buf[k++], sizeof buf[0], "timing=per run the max over ranks of each phase (MPI_Wtime; h2d, kernel, "
                                      "d2h with CUDA events), median (min, max) over reps; param = ranks; "
                                      "ratio = speedup over 1 rank (total rows) or the row's named ratio");
    for (int i = 0; i < k; i++) meta[i] = buf[i];
    meta[k] = NULL;
    if (gl_report_open(&A->report, LAB, A->cli.csv, (const char *const *)meta)) MPI_Abort(MPI_COMM_WORLD, 1);
    A->quiet = fopen("/dev/null", "w");
    if (A->quiet) A->report.table = A->quiet; /* the suite's per-row lines: our own tables instead */
}

/* One experiment at one image on every rank count; rank 0 prints and records. Returns the
 * status agreed by all ranks. */
static int scale(app *A, int e, int use_gpu, source *S, int weak_side, result *all)
{
    int status = 0;
    const char *backend = use_gpu ? "gpu" : "cpu";
    int n_res = e == EXP_COMPRESS ? N_KEEP : 1;
    for (int c = 0; c < A->n_rank_counts; c++) {
        int n = A->rank_counts[c];
        source weak;
        const source *img = S;
        if (e == EXP_WEAK) { /* a new picture per rank count: each rank keeps weak_side^2 pixels */
            source_open(A, &weak, weak_side, weak_side * n, use_gpu, e);
            img = &weak;
        }
        if (A->world_rank == 0 && (c == 0 || e == EXP_WEAK)) {
            fprintf(g_out, "\n== %s (%s), %dx%d, %d level(s), %s: median of %d run(s), ms, each phase the max over ranks\n",
                   NAMES[e].name, backend, img->width, img->height, A->levels, haar_convention_name(A->conv),
                   A->cli.timing.reps);
            if (e == EXP_DEVICE)
                fprintf(g_out, "%s\n", A->cuda_aware ? "MPI is CUDA-aware: device pointers go to MPI_Scatterv / "
                                                        "MPI_Gatherv directly"
                                                      : "MPI is not CUDA-aware here: staging through pinned host "
                                                        "memory (the staging copies count in h2d and d2h)");
            if (c == 0 || e != EXP_WEAK) gl_table_header(g_out, TABLE, TABLE_COLS);
        }
        if (A->world_rank == 0 && n > 1 && c == A->n_rank_counts - 1 && e != EXP_WEAK) {
            haar_strip st[1024];
            char err[300];
            if (n <= 1024 && !haar_split_rows(img->height, A->levels, n, st, err, sizeof err)) {
                fprintf(g_out, "strips of the %d-rank run (rows):", n);
                for (int r = 0; r < n && r < 32; r++) fprintf(g_out, " %d", st[r].rows);
                fprintf(g_out, "%s\n", n > 32 ? " ..." : "");
            }
        }
        result R[N_KEEP];
        memset(R, 0, sizeof R);
        MPI_Comm comm = first_ranks(n, A->world_rank);
        int failed = 0;
        if (comm != MPI_COMM_NULL) {
            failed = run_experiment(A, e, use_gpu, img, comm, R);
            MPI_Comm_free(&comm);
        }
        status = agree(MPI_COMM_WORLD, failed);
        if (A->world_rank == 0) {
            for (int k = 0; k < n_res; k++) {
                result *one = &all[k * MAX_RANK_COUNTS];
                all[k * MAX_RANK_COUNTS + c] = R[k];
                char keep[16] = "";
                table_line(e, img, &R[k], one);
                if (e == EXP_COMPRESS) {
                    snprintf(keep, sizeof keep, "/k%d", KEEP_PCT[k]);
                    fprintf(g_out, "       ^ keep %d%%: threshold %.6g (%llu equal to it, %llu of them kept), PSNR "
                                   "%.3f dB (one process: %.3f dB)\n", KEEP_PCT[k], R[k].threshold, R[k].ties,
                            R[k].ties_kept, R[k].psnr, img->ref_psnr[k]);
                }
                csv_result(A, e, backend, keep, img, &R[k], one);
            }
            if (e != EXP_WEAK && c == 0 && !isnan(img->cpu_ref_ms)) {
                gl_row row = gl_row_new(NAMES[e].name, "cpu_ref/forward", (long long)img->n);
                row.param = 1;
                row.reps = 1;
                row.batch = 1;
                row.median_ms = row.min_ms = row.max_ms = img->cpu_ref_ms;
                gl_report_row(&A->report, &row);
            }
        }
        if (e == EXP_WEAK) source_close(A, &weak);
        if (status) break;
    }
    if (A->world_rank == 0 && status == 0)
        fprintf(g_out, "verified: every run equals the single-process result bit for bit (forward%s)\n",
               e == EXP_COMPRESS ? ", kept coefficients, reconstruction, PSNR" : e == EXP_IO || e == EXP_DEVICE ? "" : ", inverse");
    return status;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    app A;
    memset(&A, 0, sizeof A);
    MPI_Comm_rank(MPI_COMM_WORLD, &A.world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &A.world_size);
    /* The ranks that share a node (and its GPUs): the node-local rank picks the GPU. */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, A.world_rank, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &A.local_rank);
    MPI_Comm_size(node, &A.local_size);
    MPI_Comm_free(&node);
    int first = A.local_rank == 0;
    MPI_Allreduce(&first, &A.nodes, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);

    g_out = stdout;
    parse_command_line(&A, argc, argv);
    if (A.cli.csv && !strcmp(A.cli.csv, "-")) g_out = stderr;
    check_sizes(&A);
    open_gpus(&A);
    make_rank_counts(&A);
    unsigned long pid = (unsigned long)getpid();
    MPI_Bcast(&pid, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
    snprintf(A.tag, sizeof A.tag, "haar_mpi.%lu", pid);
    print_setup(&A);
    open_report(&A);

    int status = 0;
    ours_row ours[MAX_OURS];
    int n_ours = 0;
    static result all[N_KEEP * MAX_RANK_COUNTS];
    for (int e = 0; e < EXP_COUNT && !status; e++) {
        if (!experiment_selected(&A, e)) continue;
        int use_gpu = A.gpu >= 0 && e != EXP_CPU;
        if (A.cpu_only && (e == EXP_SEED || e == EXP_DEVICE)) {
            if (A.world_rank == 0)
                fprintf(g_out, "\n== %s: not run with --cpu (%s)\n", NAMES[e].name,
                       e == EXP_SEED ? "the cpu experiment is the seed mode on CPUs" : "it needs GPUs");
            continue;
        }
        if (e == EXP_WEAK && A.cli.image) {
            if (A.world_rank == 0) fprintf(g_out, "\n== weak: not run with --image (it needs a picture per rank count)\n");
            continue;
        }
        if (e == EXP_WEAK) {
            size_list L = weak_sizes(&A);
            for (int i = 0; i < L.n && !status; i++) status = scale(&A, e, use_gpu, NULL, L.sides[i], all);
            continue;
        }
        size_list L = A.cli.image ? (size_list){{0}, 1} : strong_sizes(&A, e);
        for (int i = 0; i < L.n && !status; i++) {
            source S;
            source_open(&A, &S, L.sides[i], L.sides[i], use_gpu, e);
            status = scale(&A, e, use_gpu, &S, 0, all);
            if (A.world_rank == 0 && !status && (e == EXP_SEED || e == EXP_CPU) && S.width == S.height)
                remember_totals(&A, e, &S, all, ours, &n_ours);
            source_close(&A, &S);
        }
    }
    if (!status && !A.cpu_only) print_seed_table(&A, ours, n_ours);
    if (A.world_rank == 0) {
        gl_report_close(&A.report);
        if (A.quiet) fclose(A.quiet);
        if (!status) fprintf(g_out, "\nall multi-rank results verified against the single-process results\n");
    }
    if (A.gpu >= 0) {
        for (int i = 0; i < 4; i++) GL_CHECK(cudaEventDestroy(A.ev[i]));
        GL_CHECK(cudaStreamDestroy(A.stream));
    }
    finish(status ? GL_EXIT_FAIL : GL_EXIT_OK);
    return 0;
}
