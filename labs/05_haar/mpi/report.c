/* report.c - Lab 05 part 2 (haar_mpi): what rank 0 reports. The CSV rows of a result (every
 * phase, the speedup, the efficiencies, the PSNR), the tables printed per experiment, and the
 * seed's Table 2 beside ours. */
#include <stdlib.h>
#include <string.h>
#include "haar_mpi.h"

static const char *const PHASE[PH_COUNT] = {"read", "scatter", "h2d",  "kernel", "d2h", "gather",
                                            "assemble", "write", "select", "psnr", "total"};

/* ---------------------------------------------------------------- reporting */

/* Bytes a phase moves in all (for an aggregate GB/s): the image as floats through scatter, H2D,
 * D2H, gather, assemble, write; the 8-bit picture through read (and born's H2D). nccl's scatter
 * and gather: only what crosses between GPUs. NAN where no single figure applies. */
static double phase_bytes(int e, int k, size_t n, const result *R)
{
    if (e == EXP_NCCL && (k == PH_SCATTER || k == PH_GATHER)) return R->moved_bytes;
    if (e == EXP_BORN && k == PH_H2D) return (double)n;
    switch (k) {
    case PH_READ: return (double)n;
    case PH_SCATTER: case PH_GATHER: case PH_WRITE: case PH_ASSEMBLE: return is_compress(e) ? NAN : 4.0 * n;
    case PH_H2D: case PH_D2H: /* device: staging copies and rank 0's whole-image copies mixed */
        return is_compress(e) || e == EXP_DEVICE ? NAN : 4.0 * n;
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
        row.bytes = k == PH_TOTAL ? NAN : phase_bytes(e, k, S->n, R);
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
    if (!is_compress(e) && e != EXP_WEAK) {
        snprintf(variant, sizeof variant, "%s%s/speedup_vs_cpu_ref", backend, keep);
        csv_ratio_row(A, NAMES[e].name, variant, S->n, R->ranks, S->cpu_ref_ms / R->med[PH_TOTAL]);
    }
    if (is_compress(e)) {
        snprintf(variant, sizeof variant, "%s%s/psnr_db", backend, keep);
        csv_ratio_row(A, NAMES[e].name, variant, S->n, R->ranks, R->psnr);
    }
    for (int d = 0; d < (R->link_kind == LINK_PCIE ? 3 : 2) && R->link_kind != LINK_NONE; d++) { /* the links */
        static const char *const what[3][3] = {
            {"", "", ""}, {"pcie_h2d", "pcie_d2h", "host_memcpy"}, {"peer_out", "peer_in", ""}};
        snprintf(variant, sizeof variant, "%s/%s", backend, what[R->link_kind][d]);
        gl_row row = gl_row_new(NAMES[e].name, variant, (long long)S->n);
        row.param = R->ranks;
        row.bytes = R->link_kind == LINK_PCIE ? 4.0 * S->n : R->moved_bytes;
        row.reps = 5;
        row.batch = 1;
        row.gbs = R->link[d];
        row.median_ms = row.min_ms = row.max_ms = row.bytes / (R->link[d] * 1e6);
        gl_report_row(&A->report, &row);
    }
}

/* Under the table line: the links measured in the same run, and what the mode made of them. */
static void print_links(FILE *f, int e, const source *S, const result *R)
{
    if (R->link_kind == LINK_PCIE)
        fprintf(f, "       ^ the image's %.1f MiB on rank 0, plain copies: cudaMemcpy from / to pinned memory "
                       "(PCIe) "
                       "H2D %.1f GB/s, D2H %.1f GB/s; memcpy on one core %.1f GB/s\n", 4.0 * S->n / 1048576.0,
                R->link[0], R->link[1], R->link[2]);
    if (R->link_kind == LINK_PEER && e == EXP_NCCL) {
        double out = gl_gbs(R->moved_bytes, R->med[PH_SCATTER]), in = gl_gbs(R->moved_bytes, R->med[PH_GATHER]);
        fprintf(f, "       ^ peer copies (cudaMemcpyPeerAsync, the same %.1f MiB): out of GPU 0 %.1f GB/s, into it "
                       "%.1f GB/s; NCCL: scatter %.1f GB/s (%.0f%%), gather %.1f GB/s (%.0f%%)\n",
                R->moved_bytes / 1048576.0, R->link[0], R->link[1], out, 100.0 * out / R->link[0], in,
                100.0 * in / R->link[1]);
    }
}

static const gl_col TABLE[] = {
    {"ranks", "", 6},      {"read", "%.2f", 8},   {"scatter", "%.2f", 8}, {"h2d", "%.2f", 8},
    {"kernel", "%.3f", 8}, {"d2h", "%.2f", 8},    {"gather", "%.2f", 8},  {"assemble", "%.2f", 8},
    {"write", "%.2f", 8},  {"select", "%.2f", 8}, {"psnr", "%.2f", 7},    {"total", "%.2f", 9},
    {"speedup", "%.2f", 7}, {"eff", "%.2f", 5},   {"kern.eff", "%.2f", 8}, {"vsCPUref", "%.1f", 8},
};
#define TABLE_COLS ((int)(sizeof TABLE / sizeof TABLE[0]))

static void table_line(FILE *out, int e, const source *S, const result *R, const result *one)
{
    double v[TABLE_COLS - 1];
    for (int k = 0; k < PH_COUNT; k++) v[k] = R->med[k];
    double speedup = one->med[PH_TOTAL] / R->med[PH_TOTAL];
    v[PH_COUNT] = speedup;
    v[PH_COUNT + 1] = e == EXP_WEAK ? speedup : speedup / R->ranks;
    v[PH_COUNT + 2] = e == EXP_WEAK ? one->med[PH_KERNEL] / R->med[PH_KERNEL]
                                    : one->med[PH_KERNEL] / (R->ranks * R->med[PH_KERNEL]);
    v[PH_COUNT + 3] = e == EXP_WEAK || is_compress(e) ? NAN : S->cpu_ref_ms / R->med[PH_TOTAL];
    char ranks[16];
    snprintf(ranks, sizeof ranks, "%d", R->ranks);
    gl_table_line(out, TABLE, TABLE_COLS, ranks, v);
}

/* ---------------------------------------------------------------- the seed's table */

typedef struct {
    int side;
    double over_cpu, over_gpu, over_cluster; /* 4 GPUs over 1 CPU, 1 GPU, the 4-node CPU cluster */
} seed_row;

/* Table 2 of the seed (4 nodes: i5-4670 + GTX 780, Gigabit Ethernet; 4 levels; mean of 10 runs). */
static const seed_row SEED_TABLE2[] = {
    {512, 13.719, 1.532, 4.282}, {1024, 45.451, 2.628, 18.524}, {2048, 69.727, 3.499, 24.446}};


void print_seed_table(const app *A, const ours_row *ours, int n)
{
    if (A->world_rank != 0 || n == 0) return;
    fprintf(A->out, "\n== the seed's Table 2 (4 nodes, GTX 780 + i5-4670, Gigabit Ethernet) beside ours (%d rank(s) "
           "here; totals, medians)\n", A->world_size);
    static const gl_col cols[] = {{"size", "", 10},           {"seed:xCPU", "%.1f", 10}, {"xGPU", "%.2f", 6},
                                  {"xCluster", "%.1f", 9},     {"eff", "%.2f", 5},        {"ours:xCPU", "%.1f", 10},
                                  {"xGPU", "%.2f", 6},         {"xCluster", "%.2f", 9},   {"eff", "%.2f", 5}};
    gl_table_header(A->out, cols, 9);
    for (int i = 0; i < n; i++) {
        const seed_row *s = NULL;
        for (size_t j = 0; j < sizeof SEED_TABLE2 / sizeof SEED_TABLE2[0]; j++)
            if (SEED_TABLE2[j].side == ours[i].side) s = &SEED_TABLE2[j];
        double v[8] = {s ? s->over_cpu : NAN, s ? s->over_gpu : NAN, s ? s->over_cluster : NAN,
                       s ? s->over_gpu / 4 : NAN, ours[i].cpu_ref_ms / ours[i].seedP, ours[i].seed1 / ours[i].seedP,
                       ours[i].cpuP / ours[i].seedP, ours[i].seed1 / ours[i].seedP / A->world_size};
        char size[32];
        snprintf(size, sizeof size, "%dx%d", ours[i].side, ours[i].side);
        gl_table_line(A->out, cols, 9, size, v);
    }
    fprintf(A->out, "(xCPU: over one core running the C reference; xGPU: over the 1-rank run; xCluster: over the "
           "cpu experiment on the same ranks; eff = xGPU / ranks)\n");
}

/* Keep, per square size, the totals Table 2 compares: the seed mode on 1 and on all ranks, the
 * cpu experiment on all ranks, and the C reference's time. */
void remember_totals(const app *A, int e, const source *S, const result *all, ours_row *ours, int *n_ours)
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

void open_report(app *A)
{
    if (A->world_rank != 0) return;
    static char buf[21][320];
    static const char *meta[22];
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
    char nccl[64];
    nccl_version(nccl, sizeof nccl);
    snprintf(buf[k++], sizeof buf[0], "nccl=%s", nccl);
    if (A->gpu >= 0) {
        snprintf(buf[k++], sizeof buf[0], "sms=%d", A->dev.sms); /* rank 0's GPU; every rank asks for the same N */
        snprintf(buf[k++], sizeof buf[0], "sms_device=%d", A->dev.sms_device);
        snprintf(buf[k++], sizeof buf[0], "green_context=%d", A->part.green != NULL);
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
    if (gl_report_open(&A->report, LAB, PROG, A->cli.csv, (const char *const *)meta)) MPI_Abort(MPI_COMM_WORLD, 1);
    A->quiet = fopen("/dev/null", "w");
    if (A->quiet) A->report.table = A->quiet; /* the suite's per-row lines: our own tables instead */
}


/* ---------------------------------------------------------------- one experiment's lines */

/* The experiment's heading and table header: at its first rank count, and for weak (a new picture
 * per rank count) at every one, the table header once. */
void print_experiment_header(const app *A, int e, const char *backend, const source *img, int first)
{
    if (A->world_rank != 0 || !(first || e == EXP_WEAK)) return;
    fprintf(A->out, "\n== %s (%s), %dx%d, %d level(s), %s: median of %d run(s), ms, each phase the max over ranks\n",
           NAMES[e].name, backend, img->width, img->height, A->levels, haar_convention_name(A->conv),
           A->cli.timing.reps);
    if (e == EXP_DEVICE)
        fprintf(A->out, "%s\n", A->cuda_aware ? "MPI is CUDA-aware: device pointers go to MPI_Scatterv / "
                                                "MPI_Gatherv directly"
                                              : "MPI is not CUDA-aware here: staging through pinned host "
                                                "memory (the staging copies count in h2d and d2h)");
    if (e == EXP_NCCL)
        fprintf(A->out, "the picture starts on rank 0's GPU; ncclSend / ncclRecv move the strips and the "
                       "coefficients GPU to GPU; rank 0's GPU assembles (1 rank: the kernel alone)\n");
    if (e == EXP_NCCL_COMPRESS)
        fprintf(A->out, "every rank's pixels on its GPU before the runs; forward, selection (histograms, ties: "
                       "ncclAllReduce), inverse, PSNR (ncclAllReduce): no coefficient leaves its GPU\n");
    if (e == EXP_BORN)
        fprintf(A->out, "every rank: pread of its rows (read%s), %s, its own file (write); no collective\n",
                strcmp(backend, "gpu") ? ", and widened to floats" : "",
                strcmp(backend, "gpu") ? "the C reference (kernel)"
                                       : "to its GPU as bytes and widened there (h2d), kernel, d2h");
    if (first || e != EXP_WEAK) gl_table_header(A->out, TABLE, TABLE_COLS);
}

/* The strip heights of the n-rank run (rank 0). */
void print_strips(const app *A, const source *img, int n)
{
    haar_strip st[1024];
    char err[300];
    if (n <= 1024 && !haar_split_rows(img->height, A->levels, n, st, err, sizeof err)) {
        fprintf(A->out, "strips of the %d-rank run (rows):", n);
        for (int r = 0; r < n && r < 32; r++) fprintf(A->out, " %d", st[r].rows);
        fprintf(A->out, "%s\n", n > 32 ? " ..." : "");
    }
}

/* Rank 0: one result's table line (and for compress, keep k's line) and its CSV rows. */
void report_result(app *A, int e, const char *backend, int k, const source *img, const result *R,
                   const result *one)
{
    char keep[16] = "";
    table_line(A->out, e, img, R, one);
    print_links(A->out, e, img, R);
    if (is_compress(e)) {
        snprintf(keep, sizeof keep, "/k%d", KEEP_PCT[k]);
        fprintf(A->out, "       ^ keep %d%%: threshold %.6g (%llu equal to it, %llu of them kept), PSNR "
                       "%.3f dB (one process: %.3f dB)\n", KEEP_PCT[k], R->threshold, R->ties,
                R->ties_kept, R->psnr, img->ref_psnr[k]);
    }
    csv_result(A, e, backend, keep, img, R, one);
}

/* Rank 0: the C reference's time on the whole image, one core, as a CSV row. */
void report_cpu_ref(app *A, int e, const source *img)
{
    gl_row row = gl_row_new(NAMES[e].name, "cpu_ref/forward", (long long)img->n);
    row.param = 1;
    row.reps = 1;
    row.batch = 1;
    row.median_ms = row.min_ms = row.max_ms = img->cpu_ref_ms;
    gl_report_row(&A->report, &row);
}

void print_verified(const app *A, int e)
{
    fprintf(A->out, "verified: every run equals the single-process result bit for bit (forward%s)\n",
           is_compress(e) ? ", kept coefficients, reconstruction, PSNR"
           : e == EXP_IO || e == EXP_DEVICE || e == EXP_NCCL || e == EXP_BORN ? "" : ", inverse");
}
