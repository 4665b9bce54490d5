/* problem.c - Lab 05 part 2 (haar_mpi): one image (generated or read, written where every rank
 * reads it) with its single-process references on rank 0, and one problem: that image cut into
 * strips on the ranks of a communicator, each strip transformed alone (on its GPU or its core). */
#include <stdlib.h>
#include <string.h>
#include "haar_mpi.h"

const int KEEP_PCT[N_KEEP] = {10, 1};

void to_float(const unsigned char *p, float *f, size_t n)
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

/* The inverse and the compression references from the forward coefficients (one core: minutes at
 * 32768^2, so each step says how far it is: gl_progress.h). */
static void cpu_reference(const app *A, source *S, float *forward, gl_progress *pr)
{
    memcpy(S->ref_forward, forward, S->n * sizeof(float));
    if (S->with_inverse) {
        memcpy(S->ref_inverse, forward, S->n * sizeof(float));
        haar_inverse_ref(S->ref_inverse, S->width, S->height, (size_t)S->width, A->levels, A->conv);
        gl_progress_tick(pr, 2, "inverse");
    }
    for (int k = 0; k < N_KEEP && S->with_compress; k++) {
        memcpy(S->ref_kept[k], forward, S->n * sizeof(float));
        haar_keep_largest(S->ref_kept[k], S->n, haar_keep_count(S->n, KEEP_PCT[k]));
        memcpy(S->ref_recon[k], S->ref_kept[k], S->n * sizeof(float));
        haar_inverse_ref(S->ref_recon[k], S->width, S->height, (size_t)S->width, A->levels, A->conv);
        char step[48];
        snprintf(step, sizeof step, "keep %d%%", KEEP_PCT[k]);
        gl_progress_tick(pr, 3 + k, step);
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
void source_open(const app *A, source *S, int width, int height, int gpu_refs, int e)
{
    memset(S, 0, sizeof *S);
    S->with_inverse = e == EXP_SEED || e == EXP_CPU || e == EXP_WEAK;
    S->with_compress = is_compress(e);
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
    gl_progress pr;
    gl_progress_begin(&pr, 2 + N_KEEP, "rank 0: the single-process references of %d x %d (%s)", S->width, S->height,
                      gpu_refs ? "one GPU" : "the C reference, one core");
    if (!gpu_refs || (long long)S->n <= CPU_REF_MAX_PIXELS) {
        cpu = (float *)gl_host_alloc(bytes, "the C reference");
        memcpy(cpu, S->image, bytes);
        double t = now_ms();
        haar_forward_ref(cpu, S->width, S->height, (size_t)S->width, A->levels, A->conv);
        S->cpu_ref_ms = now_ms() - t;
        gl_progress_tick(&pr, 1, "forward on one core");
    }
    S->refs_gpu = gpu_refs;
    if (gpu_refs) gpu_reference(A, S);
    else cpu_reference(A, S, cpu, &pr);
    gl_progress_end(&pr);
    for (int k = 0; k < N_KEEP && S->with_compress; k++) S->ref_psnr[k] = haar_psnr_u8(S->pixels, S->ref_recon[k], S->n);
    int wrong = gpu_refs && cpu && (long long)S->n <= TOL_CHECK_MAX_PIXELS && check_gpu_against_cpu(A, S, cpu);
    free(cpu);
    if (wrong) { /* the baseline itself is wrong: nothing can be compared with it */
        fprintf(stderr, "%s: the single-GPU reference differs from the C reference; stopping\n", PROG);
        MPI_Abort(MPI_COMM_WORLD, GL_EXIT_FAIL);
    }
}

void source_close(const app *A, source *S)
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

void problem_open(const app *A, problem *P, MPI_Comm comm, const source *S, int use_gpu)
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

void problem_close(problem *P)
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
void strip_transform(const app *A, problem *P, float *buf, int inverse, double *ph)
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
void assemble(const problem *P, const float *gathered, float *image)
{
    for (int r = 0; r < P->ranks; r++)
        haar_place_strip(gathered + (size_t)P->displs[r] * P->width, image, P->pieces[r], P->npieces[r]);
}

void disassemble(const problem *P, const float *image, float *gathered)
{
    for (int r = 0; r < P->ranks; r++)
        haar_take_strip(image, gathered + (size_t)P->displs[r] * P->width, P->pieces[r], P->npieces[r]);
}

void write_floats(const char *path, const float *x, size_t n)
{
    gl_out_file o;
    if (gl_out_open(&o, PROG, "--io-dir", path)) MPI_Abort(MPI_COMM_WORLD, GL_EXIT_FAIL);
    gl_out_check(&o, fwrite(x, sizeof(float), n, o.f) != n);
    gl_out_close(&o);
}

void read_floats(const char *path, float *x, size_t n)
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
void read_picture(const source *S, float *image)
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
