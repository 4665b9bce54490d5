/* latency.c - Lab 03, the `latency` experiment: when occupancy matters. A memory-bound and a
 * compute-bound kernel from 1 to 64 resident warps per SM, every launch measured like main.c's
 * (lab03_measure: calculator = API, residency, poison, time, check), and the summary table. */
#include <stdio.h>
#include <string.h>
#include "lab03.h"

/* latency: resident warps per SM, set by the block size and blocks per SM (shared memory). */
static const int LATENCY_WARPS[] = {1, 2, 4, 8, 16, 32, 64};
_Static_assert(sizeof LATENCY_WARPS / sizeof LATENCY_WARPS[0] == N_LAT, "N_LAT (lab03.h): one per LATENCY_WARPS");

typedef struct {
    const char *name;
    work_kernel kernel;
    int memory_bound; /* GB/s against the copy; else GFLOP/s */
} latency_variant;

static const latency_variant LATENCY_VARIANTS[] = {
    {"stream", K_STREAM, 1},       {"stream_ilp4", K_STREAM_ILP4, 1}, {"stream_vec4", K_STREAM_VEC4, 1},
    {"stream_vec4_ilp4", K_STREAM_VEC4_ILP4, 1}, {"fma", K_FMA, 0}, {"fma_ilp4", K_FMA_ILP4, 0},
};
_Static_assert(sizeof LATENCY_VARIANTS / sizeof LATENCY_VARIANTS[0] == N_LAT_VARIANTS,
               "N_LAT_VARIANTS (lab03.h): one per LATENCY_VARIANTS");

static float stream_ref(const void *ctx, uint32_t i) { return ref_stream(((const float *)ctx)[i]); }

/* The launch holding exactly `warps` warps per SM: blocks of min(warps, 8) warps, and as many
 * blocks per SM as needed, the rest kept out by a shared-memory request (the calculator finds
 * the smallest request that allows no more; main checks it against the API like every launch). */
static launch_shape latency_shape(const lab03 *L, work_kernel k, int warps)
{
    int per_block = warps < 8 ? warps : 8, blocks = warps / per_block;
    kernel_attrs ka = work_attrs(k);
    int threads = per_block * 32, unit = occ_smem_granularity(&L->occ);
    size_t smem = 0;
    while (occ_calculate(&L->occ, threads, ka.registers, (size_t)ka.static_smem, smem).blocks_per_sm > blocks)
        smem += (size_t)unit;
    launch_shape sh = {(unsigned)(blocks * L->lab.dev.sms), (unsigned)threads, smem};
    return sh;
}

void lab03_run_latency(lab03 *L, uint32_t stream_n)
{
    gl_cli *c = &L->lab.cli;
    int any = 0;
    for (size_t v = 0; v < N_LAT_VARIANTS; v++) any |= gl_cli_selected(c, "latency", LATENCY_VARIANTS[v].name);
    if (!any) return;
    uint32_t fma_n = (uint32_t)L->lab.dev.sms * L->occ.max_threads_per_sm * 8; /* 8 per thread at 64 warps */
    uint32_t iters = c->quick ? 256 : 1024;
    gl_lab_heading("latency", "param = resident warps per SM (blocks of <= 8 warps, one wave, grid-stride; "
                              "extra blocks kept out with shared memory); stream: n = %u (%.0f MiB read + "
                              "written), fma: n = %u, %u FMAs per element",
                   stream_n, 8.0 * stream_n / 1048576.0, fma_n, iters);
    gl_lab_note_working_set(&L->lab, 8.0 * stream_n);
    gl_arrays S, F;
    memset(&S, 0, sizeof S);
    memset(&F, 0, sizeof F);
    for (size_t v = 0; v < N_LAT_VARIANTS; v++) {
        const latency_variant *lv = &LATENCY_VARIANTS[v];
        if (!gl_cli_selected(c, "latency", lv->name)) continue;
        gl_arrays *A = lv->memory_bound ? &S : &F;
        if (!A->d_x) gl_arrays_create(A, lv->memory_bound ? stream_n : fma_n, c->seed, RNG_X);
        for (size_t w = 0; w < N_LAT; w++) {
            launch_shape sh = latency_shape(L, lv->kernel, LATENCY_WARPS[w]);
            gl_row row;
            if (lv->memory_bound) {
                launch_job j;
                memset(&j, 0, sizeof j);
                j.sh = sh;
                j.kernel = lv->kernel;
                j.work = (work_args){A->d_x, A->d_y, A->n, 0, NULL};
                row = gl_row_new("latency", lv->name, A->n);
                row.param = LATENCY_WARPS[w];
                row.bytes = row.working_set_bytes = 8.0 * A->n;
                output_check out = {A->d_y, A->h_y, A->n, stream_ref, A->h_x, SAMPLE_WARPS};
                lab03_measure(L, &j, &row, &out, 0);
                L->lat[v][w] = row.gbs;
            } else {
                lab03_compute_row(L, "latency", lv->name, LATENCY_WARPS[w], lv->kernel, A, iters, sh, 0, &row);
                L->lat[v][w] = row.gflops;
            }
            L->lat_ach[v][w] = row.achieved_occupancy;
            row.ratio = L->lat[v][w] / L->lat[v][0];
            lab03_report(L, &row);
        }
    }
    if (S.d_x) gl_arrays_free(&S);
    if (F.d_x) gl_arrays_free(&F);
}

void lab03_print_latency_summary(const lab03 *L)
{
    int any = 0;
    for (size_t v = 0; v < N_LAT_VARIANTS; v++) any |= L->lat[v][0] > 0;
    if (!any) return;
    printf("\n== latency: throughput against resident warps per SM (GB/s and %% of the copy, or GFLOP/s)\n");
    gl_col cols[1 + N_LAT] = {{"variant", "", 17}};
    char heads[N_LAT][16];
    for (size_t w = 0; w < N_LAT; w++) {
        snprintf(heads[w], sizeof heads[w], "%d warps", LATENCY_WARPS[w]);
        cols[1 + w] = (gl_col){heads[w], "%.0f", 9};
    }
    gl_table_header(stdout, cols, 1 + N_LAT);
    for (size_t v = 0; v < N_LAT_VARIANTS; v++) {
        if (L->lat[v][0] <= 0) continue;
        gl_table_line(stdout, cols, 1 + N_LAT, LATENCY_VARIANTS[v].name, L->lat[v]);
        if (!LATENCY_VARIANTS[v].memory_bound) continue;
        double pct[N_LAT];
        int first90 = -1;
        for (size_t w = 0; w < N_LAT; w++) {
            pct[w] = 100.0 * L->lat[v][w] / L->lab.report.copy_gbs;
            if (first90 < 0 && pct[w] >= 90.0) first90 = LATENCY_WARPS[w];
        }
        gl_table_line(stdout, cols, 1 + N_LAT, "  % of memcpy", pct);
        if (first90 > 0)
            printf("  %s: first >= 90%% of memcpy at %d warps per SM (theoretical occupancy %.1f%%)\n",
                   LATENCY_VARIANTS[v].name, first90, 100.0 * first90 / L->max_warps);
        else printf("  %s: never >= 90%% of memcpy\n", LATENCY_VARIANTS[v].name);
    }
}
