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
 *   nccl      the data stay on the GPUs and move GPU to GPU with NCCL's send and receive (over
 *             NVLink where the GPUs have it); MPI only starts NCCL. Built when meson finds NCCL
 *   born      born distributed: every rank reads its own rows of the picture, transforms them on
 *             its GPU and writes its coefficients to a file of its own: no root, no collective
 *   compress  keep the largest 10% / 1% of the WHOLE image's coefficients (a radix select over
 *             ranks with MPI_Allreduce, mpi_compress.h), inverse, PSNR by a reduction
 *   weak      weak scaling: the seed mode with --size x --size pixels per rank
 * Every experiment runs on 1, 2, 4, ... and all ranks of the job (sub-communicators of
 * MPI_COMM_WORLD), so one launch gives its own strong scaling; the 1-rank run is the baseline of
 * the speedups, and every multi-rank result is compared bit for bit with the single-process one.
 *
 * The files: setup.c (command line, MPI and GPUs, sizes and rank counts), problem.c (one image,
 * its references, its strips on n ranks), modes.c (the experiments, timed and verified),
 * report.c (CSV, tables, the seed's Table 2); haar_mpi.h is what they share.
 *
 * --sms N / GL_SMS=N: each rank's kernels run on N SMs of its GPU (a green context, gl_green.h,
 * opened through gl_cli_open_partition as in the labs); a count some rank's GPU cannot give stops
 * every rank with exit 2, naming the allowed counts.
 *
 * Timing: per repetition every rank times its phases (MPI_Wtime; H2D, kernel and D2H with CUDA
 * events); the maximum over ranks of each phase and of the total is kept, and the median over
 * the repetitions is reported. Barriers before the scatter, the gather and the write keep a
 * rank's wait for the others out of the phase it waits in. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "haar_mpi.h"


/* One experiment at one image on every rank count; rank 0 prints and records. Returns the
 * status agreed by all ranks. */
static int scale(app *A, int e, int use_gpu, source *S, int weak_side, result *all)
{
    int status = 0;
    const char *backend = use_gpu ? "gpu" : "cpu";
    int n_res = is_compress(e) ? N_KEEP : 1;
    for (int c = 0; c < A->n_rank_counts; c++) {
        int n = A->rank_counts[c];
        source weak;
        const source *img = S;
        if (e == EXP_WEAK) { /* a new picture per rank count: each rank keeps weak_side^2 pixels */
            source_open(A, &weak, weak_side, weak_side * n, use_gpu, e);
            img = &weak;
        }
        print_experiment_header(A, e, backend, img, c == 0);
        if (A->world_rank == 0 && n > 1 && c == A->n_rank_counts - 1 && e != EXP_WEAK) print_strips(A, img, n);
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
                report_result(A, e, backend, k, img, &R[k], one);
            }
            if (e != EXP_WEAK && c == 0 && !isnan(img->cpu_ref_ms)) report_cpu_ref(A, e, img);
        }
        if (e == EXP_WEAK) source_close(A, &weak);
        if (status) break;
    }
    if (A->world_rank == 0 && status == 0) print_verified(A, e);
    return status;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* NVLink multicast (NVLS) stays off: send / receive need none of it, and a program that uses it
     * can put a shared host's GPUs out of service. Set before any NCCL communicator exists. */
    setenv("NCCL_NVLS_ENABLE", "0", 1);
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

    A.out = stdout;
    parse_command_line(&A, argc, argv);
    if (A.cli.csv && !strcmp(A.cli.csv, "-")) A.out = stderr;
    check_experiments(&A);
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
        if (needs_nccl(e) && !nccl_built()) { /* --only nccl without NCCL stopped in check_experiments */
            if (A.world_rank == 0)
                fprintf(A.out, "\n== %s: not run (this haar_mpi was built without NCCL)\n", NAMES[e].name);
            continue;
        }
        if (needs_nccl(e) && A.gpu >= 0 && A.shared_gpus) { /* NCCL refuses a GPU twice in one communicator */
            if (A.world_rank == 0)
                fprintf(A.out, "\n== %s: not run (ranks share a GPU here; NCCL needs a GPU of its own per rank)\n",
                        NAMES[e].name);
            continue;
        }
        if (A.cpu_only && (e == EXP_SEED || e == EXP_DEVICE || needs_nccl(e))) {
            if (A.world_rank == 0)
                fprintf(A.out, "\n== %s: not run with --cpu (%s)\n", NAMES[e].name,
                       e == EXP_SEED ? "the cpu experiment is the seed mode on CPUs" : "it needs GPUs");
            continue;
        }
        if (e == EXP_WEAK && A.cli.image) {
            if (A.world_rank == 0) fprintf(A.out, "\n== weak: not run with --image (it needs a picture per rank count)\n");
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
        if (!status) fprintf(A.out, "\nall multi-rank results verified against the single-process results\n");
    }
    if (A.gpu >= 0) {
        for (int i = 0; i < 4; i++) GL_CHECK(cudaEventDestroy(A.ev[i]));
        GL_CHECK(cudaStreamDestroy(A.stream));
        gl_partition_check_stream(&A.part, NULL, "at the end of the run, the default stream");
        gl_partition_close(&A.part);
    }
    finish(status ? GL_EXIT_FAIL : GL_EXIT_OK);
    return 0;
}
