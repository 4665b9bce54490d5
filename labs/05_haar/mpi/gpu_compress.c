/* gpu_compress.c - Lab 05 part 2 (haar_mpi): the nccl_compress experiment. The compress experiment's
 * work, with every coefficient kept on its rank's GPU: the forward transform, the global top-k
 * (mpi_compress.c's radix select, its three operations run by kernels of mpi_gpu.cu and summed
 * over the GPUs by ncclAllReduce; only the histograms and counts reach the host, for the walk),
 * the inverse and the PSNR's sum of squared errors (ncclAllReduce). Bit for bit the compress
 * experiment's result, checked the same way. */
#include <stdlib.h>
#include <string.h>
#include "haar_mpi.h"

#ifdef HAVE_NCCL
#include "mpi_nccl.h"

typedef struct {
    const app *A;
    problem *P;
    ncclComm_t comm;              /* NULL on 1 rank: the local sums are the sums */
    place_rect *d_rects;          /* this rank's sub-band rectangles: the global index of each coefficient */
    int nrects;
    unsigned char *d_u8;          /* the strip's pixels, on the GPU before the runs */
    unsigned long long *d_sum;    /* the sums (a histogram's 2048 bins at most) */
    unsigned long long *h_sum;    /* pinned: their copy for the walk */
    compress_state *C;
} gpu_sel;

/* The n partial sums in d_sum, summed over the ranks and copied to h_sum. */
static void sum_over_ranks(gpu_sel *G, size_t n)
{
    if (G->comm)
        nccl_check(ncclAllReduce(G->d_sum, G->d_sum, n, ncclUint64, ncclSum, G->comm, G->A->stream),
                   "nccl_compress: ncclAllReduce", G->P->rank);
    GL_CHECK(cudaMemcpyAsync(G->h_sum, G->d_sum, n * sizeof *G->h_sum, cudaMemcpyDeviceToHost, G->A->stream));
    GL_CHECK(cudaStreamSynchronize(G->A->stream));
}

static void gpu_histogram(void *ctx, int d, uint32_t prefix, unsigned long long *hist)
{
    gpu_sel *G = (gpu_sel *)ctx;
    int shift = haar_digit_shift(d), bins = haar_digit_bins(d), above = shift + (d == 0 ? 11 : 10);
    GL_CHECK(sel_histogram(G->P->d_out, G->P->strip_n, shift, above, (unsigned)bins - 1, prefix, d > 0, G->d_sum,
                           G->A->stream));
    sum_over_ranks(G, (size_t)bins);
    memcpy(hist, G->h_sum, (size_t)bins * sizeof *hist);
}

static unsigned long long gpu_ties_below(void *ctx, uint32_t t, unsigned long long g)
{
    gpu_sel *G = (gpu_sel *)ctx;
    GL_CHECK(sel_ties_below(G->P->d_out, G->P->strip_n, G->P->width, G->d_rects, G->nrects, t, g, G->d_sum,
                            G->A->stream));
    sum_over_ranks(G, 1);
    return G->h_sum[0];
}

/* The squares dropped are not summed here (nothing reads them): NAN. */
static double gpu_drop(void *ctx, uint32_t t, unsigned long long cutoff)
{
    gpu_sel *G = (gpu_sel *)ctx;
    GL_CHECK(sel_drop(G->P->d_out, G->P->strip_n, G->P->width, G->d_rects, G->nrects, t, cutoff, G->A->stream));
    GL_CHECK(cudaStreamSynchronize(G->A->stream));
    return NAN;
}

/* The kernels between events 0 and 1, once done. */
static float kernels_ms(const app *A)
{
    GL_CHECK(cudaEventSynchronize(A->ev[1]));
    return events_ms(A, 0, 1);
}

/* Lesson (the reduction, not the data, crosses): the top-k of the whole image needs every rank's
 * coefficients, but not in one place: three histograms of 1024-2048 counts (and, with ties to
 * split, one count a step of a binary search) summed by ncclAllReduce over NVLink decide the
 * threshold, and each GPU zeroes what falls below it in its own strip. */
static void nccl_compress_once(const app *A, problem *P, gpu_sel *G, double *ph)
{
    compress_state *C = G->C;
    GL_CHECK(cudaEventRecord(A->ev[0], A->stream));
    GL_CHECK(born_widen(G->d_u8, P->d_in, P->strip_n, A->stream));
    GL_CHECK(haar_gpu_forward(HAAR_SINGLE_PASS, P->d_in, P->d_out, P->width, P->mine.rows, (size_t)P->width, P->levels,
                              A->conv, P->d_scratch, NULL, A->stream));
    GL_CHECK(cudaEventRecord(A->ev[1], A->stream));
    phase_add(ph, PH_KERNEL, kernels_ms(A));
    double t = now_ms();
    static const haar_sel_ops ops = {gpu_histogram, gpu_ties_below, gpu_drop};
    haar_mpi_select(&ops, G, (unsigned long long)C->S->n, C->keep, &C->sel);
    phase_add(ph, PH_SELECT, now_ms() - t);
    GL_CHECK(cudaEventRecord(A->ev[0], A->stream)); /* the reconstruction into d_in */
    GL_CHECK(haar_gpu_inverse(HAAR_SINGLE_PASS, P->d_out, P->d_in, P->width, P->mine.rows, (size_t)P->width, P->levels,
                              A->conv, P->d_scratch, NULL, A->stream));
    GL_CHECK(cudaEventRecord(A->ev[1], A->stream));
    phase_add(ph, PH_KERNEL, kernels_ms(A));
    t = now_ms();
    GL_CHECK(squared_error(G->d_u8, P->d_in, P->strip_n, G->d_sum, A->stream));
    sum_over_ranks(G, 1);
    C->psnr = haar_mpi_psnr_of(G->h_sum[0], (unsigned long long)C->S->n);
    phase_add(ph, PH_PSNR, now_ms() - t);
}

static void nccl_compress_run(const app *A, problem *P, void *ctx, double *ph)
{
    nccl_compress_once(A, P, (gpu_sel *)ctx, ph);
}

/* nccl_compress: the pixels scattered and moved to the GPUs once, untimed; the communicator;
 * then per keep fraction the timed runs, the kept coefficients and the reconstruction copied
 * back (untimed) and checked as compress's are. R[k] for KEEP_PCT[k]. */
void run_nccl_compress_experiment(const app *A, problem *P, const source *S, result *R)
{
    MPI_Scatterv(P->rank == 0 ? S->pixels : NULL, P->counts, P->displs, P->row_u8, P->h_u8, P->mine.rows, P->row_u8,
                 0, P->comm);
    compress_state C;
    memset(&C, 0, sizeof C);
    C.S = S;
    C.h_rec = (float *)gl_host_alloc(P->strip_n * sizeof(float), "the reconstruction");
    gpu_sel G = {A, P, NULL, NULL, 0, NULL, NULL, NULL, &C};
    G.d_u8 = (unsigned char *)gl_device_alloc(P->strip_n, "the strip's pixels");
    GL_CHECK(cudaMemcpy(G.d_u8, P->h_u8, P->strip_n, cudaMemcpyHostToDevice));
    place_rect rects[HAAR_MAX_BLOCKS];
    G.nrects = strip_rects(P->width, P->height, A->levels, P->mine, 0, rects); /* its own strip, from row 0 */
    G.d_rects = (place_rect *)gl_device_alloc((size_t)G.nrects * sizeof *rects, "the rectangles");
    GL_CHECK(cudaMemcpy(G.d_rects, rects, (size_t)G.nrects * sizeof *rects, cudaMemcpyHostToDevice));
    G.d_sum = (unsigned long long *)gl_device_alloc(2048 * sizeof(unsigned long long), "the sums");
    GL_CHECK(cudaMallocHost((void **)&G.h_sum, 2048 * sizeof(unsigned long long)));
    G.comm = nccl_open(P);
    for (int k = 0; k < N_KEEP; k++) {
        C.keep = haar_keep_count(S->n, KEEP_PCT[k]);
        run_timed(A, P, nccl_compress_run, &G, &R[k]);
        compress_result(&C, &R[k]);
        GL_CHECK(cudaMemcpy(P->h_strip, P->d_out, P->strip_n * sizeof(float), cudaMemcpyDeviceToHost));
        GL_CHECK(cudaMemcpy(C.h_rec, P->d_in, P->strip_n * sizeof(float), cudaMemcpyDeviceToHost));
        check_compress(A, P, S, &C, k, &R[k]);
    }
    nccl_close(G.comm, P->rank);
    GL_CHECK(cudaFreeHost(G.h_sum));
    GL_CHECK(cudaFree(G.d_sum));
    GL_CHECK(cudaFree(G.d_rects));
    GL_CHECK(cudaFree(G.d_u8));
    free(C.h_rec);
}
#else
void run_nccl_compress_experiment(const app *A, problem *P, const source *S, result *R)
{
    (void)A, (void)P, (void)S, (void)R; /* main skips it without NCCL, and --only stops with exit 2 */
    fprintf(stderr, "%s: built without NCCL\n", PROG);
    MPI_Abort(MPI_COMM_WORLD, GL_EXIT_FAIL);
}
#endif
