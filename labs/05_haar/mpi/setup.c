/* setup.c - Lab 05 part 2 (haar_mpi): the command line, MPI and the GPUs, the sizes and rank
 * counts of the run. Every rank parses and checks the same way, so every rank stops with the
 * reason (exit 2) and none waits in a collective. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "haar_mpi.h" /* mpi.h, which mpi-ext.h needs first */
#ifdef HAVE_MPI_EXT_H
#include <mpi-ext.h> /* MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support (Open MPI) */
#endif

const gl_name NAMES[EXP_COUNT] = {
    {"seed", "rank 0 reads, MPI_Scatterv of strips, each GPU transforms its strip, MPI_Gatherv, assemble, write"},
    {"cpu", "the same with the C reference on each rank's CPU core (the seed's CPU cluster)"},
    {"io", "parallel I/O: each rank reads its strip and writes its coefficients with MPI-IO"},
    {"device", "data resident on the GPUs: CUDA-aware MPI if the library has it, else pinned staging"},
    {"nccl", "data resident on the GPUs, moved GPU to GPU by NCCL (NVLink where the GPUs have it); built with NCCL"},
    {"born", "born distributed: each rank reads its own rows, transforms them and writes its own file; no root"},
    {"compress", "keep the largest 10% and 1% of the whole image (radix select with MPI_Allreduce), PSNR"},
    {"nccl_compress", "compress on the GPUs: histograms, ties and PSNR summed by ncclAllReduce; built with NCCL"},
    {"weak", "weak scaling: the seed mode with --size x --size pixels per rank"},
};

static const gl_opt OPTS[] = {
    {"--levels", "Haar levels (the seed: 4; at most log2 of the image side)", 1, 15, 4},
};

static const gl_cli_spec SPEC = {
    .prog = PROG,
    .summary = "Lab 05 part 2: the 2D Haar transform on several GPUs (or CPU cores) with MPI; run it with mpirun",
    .names = NAMES,
    .n_names = (int)(sizeof NAMES / sizeof NAMES[0]),
    .size_min = 2,
    .size_max = 32768,
    .size_help = "image side N (N x N pixels, a multiple of 2^levels); for weak, each rank's part",
    .takes_images = 1,
    .opts = OPTS,
    .n_opts = 1,
};

/* Every rank reaches the same verdict: the worst status of all (0 < 1 < 2 < 77 by severity). */
int agree(MPI_Comm comm, int status)
{
    int worst = 0;
    MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, comm);
    return worst;
}

void finish(int code)
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
void parse_command_line(app *A, int argc, char **argv)
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
void open_gpus(app *A)
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
    /* --sms N / GL_SMS: each rank's kernels on N SMs of its GPU (the labs' green context); a count
     * some rank's GPU cannot give stops every rank with exit 2. */
    int rc = gl_cli_open_partition(&A->cli, PROG, &A->dev, &A->part);
    if (agree(MPI_COMM_WORLD, rc)) {
        if (!rc && A->world_rank == 0)
            fprintf(stderr, "%s: stopping: %s %d is refused by another rank's GPU (message above)\n", PROG,
                    A->cli.sms_from ? A->cli.sms_from : "--sms", A->cli.sms);
        finish(GL_EXIT_USAGE);
    }
    GL_CHECK(cudaStreamCreate(&A->stream));
    gl_partition_check_stream(&A->part, A->stream, "the rank's stream");
    for (int i = 0; i < 4; i++) GL_CHECK(cudaEventCreate(&A->ev[i]));
    int shared = A->local_size > count;
    A->shared_gpus = agree(MPI_COMM_WORLD, shared);
    if (A->shared_gpus && A->world_rank == 0)
        fprintf(A->out, "note: some node runs more ranks than it has GPUs: ranks share GPUs, and the times are not "
               "those of one GPU per rank\n");
}

void print_setup(const app *A)
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
        fprintf(A->out, "%s: %d rank(s) on %d node(s); %s\n", PROG, A->world_size, A->nodes, lib);
        for (int r = 0; r < A->world_size; r++) fprintf(A->out, "  rank %d: %s\n", r, all + (size_t)r * 256);
        if (A->gpu >= 0) gl_device_print(&A->dev, A->out);
#if defined(MPIX_CUDA_AWARE_SUPPORT)
        fprintf(A->out, "CUDA-aware MPI: compiled with MPIX_CUDA_AWARE_SUPPORT = %d, MPIX_Query_cuda_support() = %d\n",
               (int)MPIX_CUDA_AWARE_SUPPORT, A->cuda_aware);
#else
        fprintf(A->out, "CUDA-aware MPI: this MPI has no CUDA extension (mpi-ext.h); treated as not CUDA-aware\n");
#endif
        char nccl[64];
        nccl_version(nccl, sizeof nccl);
        fprintf(A->out, "NCCL for the nccl experiment: %s\n", nccl);
        fprintf(A->out, "%d level(s), %s convention, seed %llu, median of %d run(s) after %d untimed%s\n", A->levels,
               haar_convention_name(A->conv), (unsigned long long)A->cli.seed, A->cli.timing.reps,
               A->cli.timing.warmup, A->cli.quick ? ", --quick" : "");
        free(all);
    }
}

/* ---------------------------------------------------------------- sizes and rank counts */

size_list strong_sizes(const app *A, int e)
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
        /* compress selects on the host: its sizes stop at COMPRESS_MAX_PIXELS (nccl_compress's do not) */
        if (e == EXP_COMPRESS && !A->cli.quick && (long long)s[i] * s[i] > COMPRESS_MAX_PIXELS) continue;
        L.sides[L.n++] = s[i];
    }
    return L;
}

size_list weak_sizes(const app *A)
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

int experiment_selected(const app *A, int e) { return gl_cli_selected(&A->cli, NAMES[e].name, NULL); }

/* An experiment named by --only that this build cannot run stops every rank with exit 2 (without
 * --only, main skips it with a line). */
void check_experiments(const app *A)
{
    for (int i = 0; i < A->cli.n_only; i++)
        for (int e = 0; e < EXP_COUNT; e++)
            if (needs_nccl(e) && !strcmp(A->cli.only[i], NAMES[e].name) && !nccl_built())
                usage_error_everywhere(A, "--only %s: this haar_mpi was built without NCCL (meson found no nccl.h "
                                          "and libnccl; configure with -Dnccl=DIR, a folder with include/nccl.h and "
                                          "lib/libnccl.so*: see labs/05_haar/README.md)", NAMES[e].name);
}

void check_sizes(const app *A)
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
void make_rank_counts(app *A)
{
    A->n_rank_counts = 0;
    for (int n = 1; n < A->world_size && A->n_rank_counts < MAX_RANK_COUNTS - 1; n *= 2)
        A->rank_counts[A->n_rank_counts++] = n;
    A->rank_counts[A->n_rank_counts++] = A->world_size;
}

/* The ranks 0 .. n-1 of the world (MPI_COMM_NULL on the others). */
MPI_Comm first_ranks(int n, int world_rank)
{
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank < n ? 0 : MPI_UNDEFINED, world_rank, &c);
    return c;
}
