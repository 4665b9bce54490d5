/* modes.c - Lab 05 part 2 (haar_mpi): the experiments. One run of each mode (seed and cpu, io,
 * born, compress; device and nccl are in gpu_modes.c, nccl_compress in gpu_compress.c) and the
 * table that runs them; the timed repetitions and the checks every mode shares are in runs.c, which
 * the modes call down into. MODES is the table of modes (one row each) that run_experiment runs. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "haar_mpi.h"

/* ---- mode: seed (and cpu) ---- */

/* The test suite's proof that the comparison can fail: with HAAR_MPI_INJECT_FAULT set, the last
 * rank of a multi-rank run changes one coefficient of its strip (the lowest bit of the last one). */
static void inject_fault_into(const problem *P, float *strip)
{
    if (!getenv("HAAR_MPI_INJECT_FAULT") || P->ranks < 2 || P->rank != P->ranks - 1) return;
    unsigned char *last = (unsigned char *)&strip[P->strip_n - 1];
    last[0] ^= 1;
}
static void inject_fault(problem *P) { inject_fault_into(P, P->h_strip); }

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

/* ---- mode: born (born distributed) ---- */

/* A whole read or write of `bytes` at `off` (pread / pwrite may move less at a time). */
static int whole_io(int fd, void *buf, size_t bytes, off_t off, int writing)
{
    char *p = (char *)buf;
    while (bytes) {
        ssize_t got = writing ? pwrite(fd, p, bytes, off) : pread(fd, p, bytes, off);
        if (got <= 0) return -1;
        p += got, off += got, bytes -= (size_t)got;
    }
    return 0;
}

typedef struct {
    const source *S;
    unsigned char *u8; /* the strip's pixels (pinned with a GPU) */
    float *f32;        /* its coefficients (pinned with a GPU) */
    unsigned char *d_u8;
    char path[800];    /* this rank's result file */
} born_state;

static void born_path(const problem *P, int rank, char *path, size_t len)
{
    snprintf(path, len, "%s.rank%d", P->out_path, rank);
}

static void born_fail(const char *what, const char *path)
{
    fprintf(stderr, "%s: born: cannot %s '%s': %s\n", PROG, what, path, strerror(errno));
    MPI_Abort(MPI_COMM_WORLD, GL_EXIT_FAIL);
}

/* Lesson (born distributed): no root, no scatter, no gather. Every rank reads its own rows of the
 * picture file (pread at its offset), moves them to its own GPU as bytes, transforms them, and
 * writes its own coefficients to a file of its own. Nothing crosses between ranks, so nothing
 * waits for rank 0: the only setting in which spreading a memory-bound transform over GPUs pays. */
static void born_once(const app *A, problem *P, born_state *B, double *ph)
{
    double t = now_ms();
    int fd = open(B->S->pgm, O_RDONLY);
    if (fd < 0 || whole_io(fd, B->u8, P->strip_n, (off_t)(B->S->pgm_offset + (long long)P->mine.row0 * P->width), 0))
        born_fail("read its rows of", B->S->pgm);
    close(fd);
    if (!P->use_gpu) to_float(B->u8, B->f32, P->strip_n);
    phase_add(ph, PH_READ, now_ms() - t);
    if (P->use_gpu) {
        cudaStream_t s = A->stream;
        GL_CHECK(cudaEventRecord(A->ev[0], s));
        GL_CHECK(cudaMemcpyAsync(B->d_u8, B->u8, P->strip_n, cudaMemcpyHostToDevice, s));
        GL_CHECK(born_widen(B->d_u8, P->d_in, P->strip_n, s));
        GL_CHECK(cudaEventRecord(A->ev[1], s));
        GL_CHECK(haar_gpu_forward(HAAR_SINGLE_PASS, P->d_in, P->d_out, P->width, P->mine.rows, (size_t)P->width,
                                  P->levels, A->conv, P->d_scratch, NULL, s));
        GL_CHECK(cudaEventRecord(A->ev[2], s));
        GL_CHECK(cudaMemcpyAsync(B->f32, P->d_out, P->strip_n * sizeof(float), cudaMemcpyDeviceToHost, s));
        GL_CHECK(cudaEventRecord(A->ev[3], s));
        GL_CHECK(cudaEventSynchronize(A->ev[3]));
        phase_add(ph, PH_H2D, events_ms(A, 0, 1)); /* the bytes, and their widening to floats */
        phase_add(ph, PH_KERNEL, events_ms(A, 1, 2));
        phase_add(ph, PH_D2H, events_ms(A, 2, 3));
    } else {
        strip_transform(A, P, B->f32, 0, ph);
    }
    inject_fault_into(P, B->f32);
    t = now_ms();
    fd = open(B->path, O_WRONLY); /* made at its size before the runs (run_born_experiment) */
    if (fd < 0 || whole_io(fd, B->f32, P->strip_n * sizeof(float), 0, 1) || close(fd)) born_fail("write", B->path);
    phase_add(ph, PH_WRITE, now_ms() - t);
}

static void born_run(const app *A, problem *P, void *ctx, double *ph) { born_once(A, P, (born_state *)ctx, ph); }

/* born: the timed runs, then (untimed) rank 0 reads every rank's file, places the strips and
 * compares the layout with the single-process forward; the files are removed. */
static void run_born_experiment(const app *A, problem *P, const source *S, result *R)
{
    char what[160];
    born_state B;
    memset(&B, 0, sizeof B);
    B.S = S;
    born_path(P, P->rank, B.path, sizeof B.path);
    if (P->use_gpu) {
        GL_CHECK(cudaMallocHost((void **)&B.u8, P->strip_n));
        GL_CHECK(cudaMallocHost((void **)&B.f32, P->strip_n * sizeof(float)));
        B.d_u8 = (unsigned char *)gl_device_alloc(P->strip_n, "the strip's pixels");
    } else {
        B.u8 = P->h_u8;
        B.f32 = P->h_strip;
    }
    /* Each rank's file exists at its size before the runs, as a checkpoint file would: the write
     * phase then moves the coefficients into it, not the file system's allocation of new pages. */
    int fd = open(B.path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || posix_fallocate(fd, 0, (off_t)(P->strip_n * sizeof(float))) || close(fd)) born_fail("make", B.path);
    run_timed(A, P, born_run, &B, R);
    MPI_Barrier(P->comm); /* every file written */
    if (P->rank == 0) {
        for (int r = 0; r < P->ranks; r++) {
            char path[800];
            born_path(P, r, path, sizeof path);
            read_floats(path, P->h_gathered + (size_t)P->displs[r] * P->width, (size_t)P->counts[r] * P->width);
            remove(path);
        }
        assemble(P, P->h_gathered, P->h_out);
        add_checked(R, verify(label(what, sizeof what, "born", P, "forward (every rank's own file)"), P->h_out,
                              S->ref_forward, S->n));
    }
    if (P->use_gpu) {
        GL_CHECK(cudaFreeHost(B.u8));
        GL_CHECK(cudaFreeHost(B.f32));
        GL_CHECK(cudaFree(B.d_u8));
    }
}

/* ---- mode: compress ---- */

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

/* seed and io: what a run needs beyond the problem. */
typedef struct {
    const source *S;
    MPI_Datatype file_type, mem_type; /* io */
} seed_io_ctx;

static void seed_run(const app *A, problem *P, void *ctx, double *ph) { seed_once(A, P, ((seed_io_ctx *)ctx)->S, ph); }
static void io_run(const app *A, problem *P, void *ctx, double *ph)
{
    seed_io_ctx *X = (seed_io_ctx *)ctx;
    io_once(A, P, X->S, X->file_type, X->mem_type, ph);
}
static void compress_run(const app *A, problem *P, void *ctx, double *ph)
{
    compress_state *C = (compress_state *)ctx;
    compress_once(A, P, C->S, C, ph);
}

/* ---------------------------------------------------------------- one experiment on n ranks */

/* seed, cpu, weak: the timed runs, then the assembled layout and the result file against the
 * single-process forward, and a distributed inverse against the single-process inverse. */
static void run_seed_experiment(const app *A, problem *P, const source *S, result *R)
{
    const char *name = P->mode; /* seed, cpu or weak */
    char what[160];
    seed_io_ctx X = {S, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
    run_timed(A, P, seed_run, &X, R);
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
    seed_io_ctx X = {S, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
    io_types(P, &X.file_type, &X.mem_type);
    run_timed(A, P, io_run, &X, R);
    MPI_Type_free(&X.file_type);
    MPI_Type_free(&X.mem_type);
    if (P->rank != 0) return;
    read_floats(P->out_path, P->h_out, S->n);
    add_checked(R, verify(label(what, sizeof what, "io", P, "result file (MPI-IO)"), P->h_out, S->ref_forward, S->n));
    remove(P->out_path);
}

/* compress: the pixels are scattered once, untimed; then, per keep fraction, the timed runs and
 * the checks. R[k] for KEEP_PCT[k]. */
static void run_compress_experiment(const app *A, problem *P, const source *S, result *R)
{
    MPI_Scatterv(P->rank == 0 ? S->pixels : NULL, P->counts, P->displs, P->row_u8, P->h_u8, P->mine.rows, P->row_u8,
                 0, P->comm);
    compress_state C;
    memset(&C, 0, sizeof C);
    C.S = S;
    C.h_rec = (float *)gl_host_alloc(P->strip_n * sizeof(float), "the reconstruction");
    for (int k = 0; k < N_KEEP; k++) {
        C.keep = haar_keep_count(S->n, KEEP_PCT[k]);
        run_timed(A, P, compress_run, &C, &R[k]);
        compress_result(&C, &R[k]);
        check_compress(A, P, S, &C, k, &R[k]);
    }
    free(C.h_rec);
}

/* Run experiment `e` (on the GPU or the CPU) for image S on the ranks of comm; rank 0 compares
 * with the single-process results and fills R (R[0 .. N_KEEP-1] for compress). Returns 1 on rank 0
 * when a comparison failed, else 0. */
/* The modes, one row each (the experiment's index in NAMES): how it runs, how many results it
 * gives (the compress modes: one per keep fraction). A new mode is a row here and a name in NAMES. */
typedef struct {
    void (*run)(const app *A, problem *P, const source *S, result *R);
    int results;
} mode_row;

static const mode_row MODES[EXP_COUNT] = {
    [EXP_SEED] = {.run = run_seed_experiment, .results = 1},
    [EXP_CPU] = {.run = run_seed_experiment, .results = 1},
    [EXP_IO] = {.run = run_io_experiment, .results = 1},
    [EXP_DEVICE] = {.run = run_device_experiment, .results = 1},
    [EXP_NCCL] = {.run = run_nccl_experiment, .results = 1},
    [EXP_BORN] = {.run = run_born_experiment, .results = 1},
    [EXP_COMPRESS] = {.run = run_compress_experiment, .results = N_KEEP},
    [EXP_NCCL_COMPRESS] = {.run = run_nccl_compress_experiment, .results = N_KEEP},
    [EXP_WEAK] = {.run = run_seed_experiment, .results = 1},
};

int run_experiment(const app *A, int e, int use_gpu, const source *S, MPI_Comm comm, result *R)
{
    problem P;
    problem_open(A, &P, comm, S, use_gpu);
    snprintf(P.out_path, sizeof P.out_path, "%s/%s.%s.f32", A->io_dir, A->tag, NAMES[e].name);
    P.mode = NAMES[e].name;
    const mode_row *m = &MODES[e];
    m->run(A, &P, S, R);
    const int n_res = m->results;
    int failed = 0;
    for (int k = 0; k < n_res; k++) failed |= P.rank == 0 && R[k].checked < 0;
    problem_close(&P);
    return failed;
}
