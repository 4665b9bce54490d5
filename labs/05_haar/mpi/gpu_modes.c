/* gpu_modes.c - Lab 05 part 2 (haar_mpi): the modes in which the image starts and ends on rank 0's
 * GPU. device: through MPI (device buffers when MPI is CUDA-aware, else staged through pinned host
 * memory); nccl: GPU to GPU with NCCL's send and receive, which take NVLink where the GPUs have it.
 * Beside them, the links measured in the same run: rank 0's PCIe (plain cudaMemcpy of the same
 * bytes from pinned memory) and the peer copies between GPU 0 and the others (cudaMemcpyPeerAsync),
 * the ceilings of the staging copies and of NCCL's scatter and gather. */
#include <stdlib.h>
#include <string.h>
#include "haar_mpi.h"
#ifdef HAVE_NCCL
#include "mpi_nccl.h"
#endif

/* ---------------------------------------------------------------- mode: device (and nccl's buffers) */

typedef struct {
    float *d_image, *d_gathered, *d_result; /* rank 0: the picture, the strips in rank order, the layout */
    float *pin_image, *pin_strip, *pin_gathered; /* staging when MPI is not CUDA-aware */
    place_rect *d_place;                    /* rank 0: every rank's sub-band rectangles, for place_rects */
    int nplace;
} device_bufs;

int strip_rects(int width, int height, int levels, haar_strip s, int src_row, place_rect *out)
{
    haar_block b[HAAR_MAX_BLOCKS];
    int n = haar_strip_blocks(width, height, levels, s, b);
    for (int i = 0; i < n; i++) {
        out[i].src = ((size_t)src_row + b[i].strip_row) * width + b[i].col;
        out[i].dst = (size_t)b[i].image_row * width + b[i].col;
        out[i].rows = b[i].rows;
        out[i].cols = b[i].cols;
    }
    return n;
}

float events_ms(const app *A, int from, int to)
{
    float ms = 0;
    GL_CHECK(cudaEventElapsedTime(&ms, A->ev[from], A->ev[to]));
    return ms;
}

/* staging: pinned host buffers for MPI when it is not CUDA-aware (the device mode). */
static void device_open(const app *A, problem *P, const source *S, device_bufs *D, int staging)
{
    memset(D, 0, sizeof *D);
    size_t bytes = S->n * sizeof(float);
    if (P->rank == 0) {
        D->d_image = (float *)gl_device_alloc(bytes, "the picture on rank 0's GPU");
        D->d_gathered = (float *)gl_device_alloc(bytes, "the gathered strips");
        D->d_result = (float *)gl_device_alloc(bytes, "the assembled coefficients");
        GL_CHECK(cudaMemcpy(D->d_image, S->image, bytes, cudaMemcpyHostToDevice)); /* resident before timing */
        place_rect *tab = (place_rect *)gl_host_alloc((size_t)P->ranks * HAAR_MAX_BLOCKS * sizeof *tab, "rectangles");
        for (int r = 0; r < P->ranks; r++) /* the gathered strips lie in rank order, strip r from row displs[r] */
            D->nplace += strip_rects(P->width, P->height, A->levels, P->strips[r], P->displs[r], tab + D->nplace);
        D->d_place = (place_rect *)gl_device_alloc((size_t)D->nplace * sizeof *tab, "the rectangles");
        GL_CHECK(cudaMemcpy(D->d_place, tab, (size_t)D->nplace * sizeof *tab, cudaMemcpyHostToDevice));
        free(tab);
    }
    if (staging && !A->cuda_aware) {
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
    if (D->d_place) GL_CHECK(cudaFree(D->d_place));
    memset(D, 0, sizeof *D);
}

/* A synchronous copy timed into phase k. */
static void timed_copy(double *ph, int k, void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    double t = now_ms();
    GL_CHECK(cudaMemcpy(dst, src, bytes, kind));
    phase_add(ph, k, now_ms() - t);
}

/* Rank 0: the gathered strips (d_gathered, rank order) placed in the image's layout (d_result) on
 * the GPU: every rank's 3L + 1 sub-band rectangles in one kernel (mpi_gpu.cu's place_rects). */
static void device_assemble(const app *A, const problem *P, const device_bufs *D)
{
    GL_CHECK(place_rects(D->d_place, D->nplace, D->d_gathered, D->d_result, (size_t)P->width, A->stream));
    GL_CHECK(cudaStreamSynchronize(A->stream));
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
    t = now_ms();
    device_assemble(A, P, D);
    phase_add(ph, PH_ASSEMBLE, now_ms() - t);
}

typedef struct {
    const source *S;
    device_bufs *D;
} device_ctx;

static void device_run(const app *A, problem *P, void *ctx, double *ph)
{
    device_ctx *X = (device_ctx *)ctx;
    device_once(A, P, X->S, X->D, ph);
}

/* ---------------------------------------------------------------- the links, measured in the run */

/* The median GB/s of 5 copies (after one untimed) of `bytes` on the rank's stream, CUDA events. */
static double copy_gbs(const app *A, void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    double ms[5];
    for (int i = -1; i < 5; i++) {
        GL_CHECK(cudaEventRecord(A->ev[0], A->stream));
        GL_CHECK(cudaMemcpyAsync(dst, src, bytes, kind, A->stream));
        GL_CHECK(cudaEventRecord(A->ev[1], A->stream));
        GL_CHECK(cudaEventSynchronize(A->ev[1]));
        float t = 0;
        GL_CHECK(cudaEventElapsedTime(&t, A->ev[0], A->ev[1]));
        if (i >= 0) ms[i] = t;
    }
    return gl_gbs((double)bytes, gl_summarize(ms, 5).median);
}

/* Rank 0: its PCIe with plain cudaMemcpy of the whole image as floats from and to pinned memory,
 * the ceiling of the staging copies, and one core's memcpy of the same bytes between host
 * buffers, the pace of MPI's copies in host memory (R->link: H2D, D2H, memcpy). */
static void measure_pcie(const app *A, const problem *P, const source *S, device_bufs *D, result *R)
{
    size_t bytes = S->n * sizeof(float);
    float *pin = D->pin_image;
    if (!pin) GL_CHECK(cudaMallocHost((void **)&pin, bytes));
    R->link[0] = copy_gbs(A, D->d_gathered, pin, bytes, cudaMemcpyHostToDevice);
    R->link[1] = copy_gbs(A, pin, D->d_gathered, bytes, cudaMemcpyDeviceToHost);
    double ms[5];
    for (int i = -1; i < 5; i++) {
        double t = now_ms();
        memcpy(P->h_gathered, pin, bytes);
        if (i >= 0) ms[i] = now_ms() - t;
    }
    R->link[2] = gl_gbs((double)bytes, gl_summarize(ms, 5).median);
    R->link_kind = LINK_PCIE;
    if (!D->pin_image) GL_CHECK(cudaFreeHost(pin));
}

/* device: the timed runs, then the layout assembled on rank 0's GPU against the single-process forward. */
void run_device_experiment(const app *A, problem *P, const source *S, result *R)
{
    char what[160];
    device_bufs D;
    device_open(A, P, S, &D, 1);
    device_ctx X = {S, &D};
    run_timed(A, P, device_run, &X, R);
    if (P->rank == 0) measure_pcie(A, P, S, &D, R);
    if (P->rank == 0) {
        GL_CHECK(cudaMemcpy(P->h_out, D.d_result, S->n * sizeof(float), cudaMemcpyDeviceToHost));
        add_checked(R, verify(label(what, sizeof what, "device", P, "forward (assembled on rank 0's GPU)"), P->h_out,
                              S->ref_forward, S->n));
    }
    device_close(&D);
}


/* ---------------------------------------------------------------- mode: nccl */

#ifdef HAVE_NCCL
int nccl_built(void) { return 1; }

/* "NCCL 2.x.y": the library loaded at run time (which may not be the header's). */
void nccl_version(char *buf, size_t len)
{
    int v = 0;
    if (ncclGetVersion(&v) != ncclSuccess) v = 0;
    snprintf(buf, len, "NCCL %d.%d.%d", v / 10000, (v / 100) % 100, v % 100);
}

void nccl_check(ncclResult_t rc, const char *what, int rank)
{
    if (rc == ncclSuccess) return;
    fprintf(stderr, "%s: [rank %d] %s: %s\n", PROG, rank, what, ncclGetErrorString(rc));
    MPI_Abort(MPI_COMM_WORLD, GL_EXIT_FAIL);
}

ncclComm_t nccl_open(const problem *P)
{
    if (P->ranks == 1) return NULL;
    ncclUniqueId id;
    ncclComm_t comm = NULL;
    if (P->rank == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId", P->rank);
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, P->comm);
    nccl_check(ncclCommInitRank(&comm, P->ranks, id, P->rank), "ncclCommInitRank", P->rank);
    return comm;
}

void nccl_close(ncclComm_t comm, int rank)
{
    if (comm) nccl_check(ncclCommDestroy(comm), "ncclCommDestroy", rank);
}

/* Rank 0: the peer copies the scatter and the gather could make at most, from rank 0's process
 * (cudaMemcpyPeerAsync, one stream per other GPU, all at once): out of GPU 0 to every other rank's
 * GPU, its strip's bytes, and back. R->link: out, in (GB/s, median of 5; timed on the host from
 * the first copy's launch to the last one's end). Only when every rank is on this node with a GPU
 * of its own (else the peers are not this process's to reach). */
static void measure_peers(const app *A, const problem *P, const device_bufs *D, result *R)
{
    int *gpus = P->rank == 0 ? (int *)gl_host_alloc((size_t)P->ranks * sizeof(int), "GPU ids") : NULL;
    MPI_Gather(&A->gpu, 1, MPI_INT, gpus, 1, MPI_INT, 0, P->comm);
    if (P->rank != 0) return;
    int ok = A->nodes == 1 && P->ranks > 1;
    for (int r = 1; r < P->ranks && ok; r++) {
        int can = 0;
        ok = gpus[r] != A->gpu && cudaDeviceCanAccessPeer(&can, A->gpu, gpus[r]) == cudaSuccess && can;
    }
    if (!ok) {
        free(gpus);
        return;
    }
    float **far = (float **)gl_host_alloc((size_t)P->ranks * sizeof(float *), "peer buffers");
    cudaStream_t *st = (cudaStream_t *)gl_host_alloc((size_t)P->ranks * sizeof(cudaStream_t), "peer streams");
    for (int r = 1; r < P->ranks; r++) {
        GL_CHECK(cudaSetDevice(gpus[r]));
        far[r] = (float *)gl_device_alloc((size_t)P->counts[r] * P->width * sizeof(float), "a peer copy's target");
        GL_CHECK(cudaSetDevice(A->gpu));
        static unsigned char enabled[1024]; /* peer access lasts as long as the context: once a GPU */
        if (gpus[r] < 1024 && !enabled[gpus[r]]) {
            GL_CHECK(cudaDeviceEnablePeerAccess(gpus[r], 0));
            enabled[gpus[r]] = 1;
        }
        GL_CHECK(cudaStreamCreateWithFlags(&st[r], cudaStreamNonBlocking));
    }
    for (int dir = 0; dir < 2; dir++) {
        double ms[5];
        for (int i = -1; i < 5; i++) {
            GL_CHECK(cudaDeviceSynchronize());
            double t = now_ms();
            for (int r = 1; r < P->ranks; r++) {
                float *near = (dir ? D->d_gathered : D->d_image) + (size_t)P->displs[r] * P->width;
                size_t bytes = (size_t)P->counts[r] * P->width * sizeof(float);
                if (dir) GL_CHECK(cudaMemcpyPeerAsync(near, A->gpu, far[r], gpus[r], bytes, st[r]));
                else GL_CHECK(cudaMemcpyPeerAsync(far[r], gpus[r], near, A->gpu, bytes, st[r]));
            }
            for (int r = 1; r < P->ranks; r++) GL_CHECK(cudaStreamSynchronize(st[r]));
            if (i >= 0) ms[i] = now_ms() - t;
        }
        R->link[dir] = gl_gbs(R->moved_bytes, gl_summarize(ms, 5).median);
    }
    R->link_kind = LINK_PEER;
    for (int r = 1; r < P->ranks; r++) {
        GL_CHECK(cudaStreamDestroy(st[r]));
        GL_CHECK(cudaSetDevice(gpus[r]));
        GL_CHECK(cudaFree(far[r]));
    }
    GL_CHECK(cudaSetDevice(A->gpu));
    free(st);
    free(far);
    free(gpus);
}

typedef struct {
    const source *S;
    device_bufs *D;
    ncclComm_t comm;
    volatile int *gate; /* mapped pinned: 0 holds the stream (gate_hold), 1 opens it */
    int *gate_dev;      /* its device address */
} nccl_ctx;

/* The strips from rank 0's picture to the other GPUs (scatter), or the coefficients back into
 * rank 0's d_gathered (gather): one group of sends and receives, queued on the rank's stream. */
static void nccl_move(const app *A, problem *P, nccl_ctx *X, int gather)
{
    device_bufs *D = X->D;
    size_t w = (size_t)P->width;
    const char *what = gather ? "the gather" : "the scatter";
    nccl_check(ncclGroupStart(), what, P->rank);
    if (P->rank == 0) {
        for (int r = 1; r < P->ranks; r++) {
            size_t n = (size_t)P->counts[r] * w, at = P->displs[r] * w;
            if (gather) nccl_check(ncclRecv(D->d_gathered + at, n, ncclFloat, r, X->comm, A->stream), what, 0);
            else nccl_check(ncclSend(D->d_image + at, n, ncclFloat, r, X->comm, A->stream), what, 0);
        }
    } else if (gather) {
        nccl_check(ncclSend(P->d_out, P->strip_n, ncclFloat, 0, X->comm, A->stream), what, P->rank);
    } else {
        nccl_check(ncclRecv(P->d_in, P->strip_n, ncclFloat, 0, X->comm, A->stream), what, P->rank);
    }
    nccl_check(ncclGroupEnd(), what, P->rank);
}

/* Close the gate and hold the stream; open it once the work to time is queued. */
static void gate_close(const app *A, nccl_ctx *X)
{
    *X->gate = 0;
    GL_CHECK(gate_hold(X->gate_dev, A->stream));
}
static void gate_open(nccl_ctx *X) { __atomic_store_n((int *)X->gate, 1, __ATOMIC_RELEASE); }

/* Lesson (the data move GPU to GPU): rank 0's GPU holds the picture; ncclSend / ncclRecv, grouped
 * so that every strip moves at once, carry each strip over NVLink (or whatever joins the GPUs:
 * NCCL picks the path) straight into the other GPUs' memory: no host copy, no staging. The kernel
 * is queued behind the receive on the same stream, with no return to the host in between. Every
 * GPU transforms its strip; the coefficients come back the same way, and rank 0's GPU places the
 * sub-bands (one 2D copy each), as the device mode does. Rank 0 transforms its own strip where it
 * lies, in the picture. Timing, with events: the scatter and the gather from their queueing on;
 * the kernel from the end of the scatter, so its launch is hidden behind it, and on 1 rank behind
 * a gate (gate_hold) that holds the stream while it is queued: the GPU's time in both cases. */
static void nccl_once(const app *A, problem *P, nccl_ctx *X, double *ph)
{
    device_bufs *D = X->D;
    const float *in = P->rank == 0 ? D->d_image : P->d_in;
    float *out = P->rank != 0 ? P->d_out : P->ranks > 1 ? D->d_gathered : D->d_result; /* 1 rank: its layout */
    if (P->ranks > 1) {
        MPI_Barrier(P->comm);
        GL_CHECK(cudaEventRecord(A->ev[0], A->stream));
        nccl_move(A, P, X, 0);
    } else {
        gate_close(A, X); /* no NCCL call is ever queued behind the gate */
    }
    GL_CHECK(cudaEventRecord(A->ev[1], A->stream));
    GL_CHECK(haar_gpu_forward(HAAR_SINGLE_PASS, in, out, P->width, P->mine.rows, (size_t)P->width, P->levels, A->conv,
                              P->d_scratch, NULL, A->stream));
    GL_CHECK(cudaEventRecord(A->ev[2], A->stream));
    if (P->ranks == 1) gate_open(X);
    GL_CHECK(cudaEventSynchronize(A->ev[2]));
    if (P->ranks > 1) phase_add(ph, PH_SCATTER, events_ms(A, 0, 1));
    phase_add(ph, PH_KERNEL, events_ms(A, 1, 2));
    if (P->ranks == 1) return;
    MPI_Barrier(P->comm);
    GL_CHECK(cudaEventRecord(A->ev[0], A->stream));
    nccl_move(A, P, X, 1);
    GL_CHECK(cudaEventRecord(A->ev[1], A->stream));
    GL_CHECK(cudaEventSynchronize(A->ev[1]));
    phase_add(ph, PH_GATHER, events_ms(A, 0, 1));
    if (P->rank != 0) return;
    double t = now_ms();
    device_assemble(A, P, D);
    phase_add(ph, PH_ASSEMBLE, now_ms() - t);
}

static void nccl_run(const app *A, problem *P, void *ctx, double *ph) { nccl_once(A, P, (nccl_ctx *)ctx, ph); }

/* nccl: the communicator (bootstrapped over MPI: rank 0's unique id, broadcast), the timed runs,
 * the layout assembled on rank 0's GPU against the single-process forward, then the peer copies. */
void run_nccl_experiment(const app *A, problem *P, const source *S, result *R)
{
    char what[160];
    device_bufs D;
    device_open(A, P, S, &D, 0);
    nccl_ctx X = {S, &D, NULL, NULL, NULL};
    GL_CHECK(cudaHostAlloc((void **)&X.gate, sizeof(int), cudaHostAllocMapped));
    GL_CHECK(cudaHostGetDevicePointer((void **)&X.gate_dev, (void *)X.gate, 0));
    X.comm = nccl_open(P);
    if (X.comm) {
        /* NCCL connects a pair of peers on their first transfer each way: both once here, ungated */
        if (P->rank != 0) GL_CHECK(cudaMemsetAsync(P->d_out, 0, P->strip_n * sizeof(float), A->stream));
        nccl_move(A, P, &X, 0);
        nccl_move(A, P, &X, 1);
        GL_CHECK(cudaStreamSynchronize(A->stream));
    }
    R->moved_bytes = (double)(S->n - (size_t)P->counts[0] * P->width) * sizeof(float);
    run_timed(A, P, nccl_run, &X, R);
    if (P->rank == 0) {
        GL_CHECK(cudaMemcpy(P->h_out, D.d_result, S->n * sizeof(float), cudaMemcpyDeviceToHost));
        add_checked(R, verify(label(what, sizeof what, "nccl", P, "forward (assembled on rank 0's GPU)"), P->h_out,
                              S->ref_forward, S->n));
    }
    nccl_close(X.comm, P->rank);
    GL_CHECK(cudaFreeHost((void *)X.gate));
    measure_peers(A, P, &D, R);
    device_close(&D);
}
#else
int nccl_built(void) { return 0; }

void nccl_version(char *buf, size_t len) { snprintf(buf, len, "none (built without NCCL)"); }

void run_nccl_experiment(const app *A, problem *P, const source *S, result *R)
{
    (void)A, (void)P, (void)S, (void)R; /* setup.c stops with exit 2 before any experiment runs */
    fprintf(stderr, "%s: built without NCCL\n", PROG);
    MPI_Abort(MPI_COMM_WORLD, GL_EXIT_FAIL);
}
#endif
