/* main.c - Lab 03: occupancy and SM efficiency.
 *
 * Experiments (run `occupancy --list`):
 *   seed     the seed's vector_add for 32 .. 262144 elements under launch scenarios S1 and S2
 *   limits   block size, registers per thread, shared memory per block: what caps resident warps
 *   latency  a memory-bound and a compute-bound kernel from 1 to 64 warps per SM (latency.c)
 *   tail     grids of w waves - 1, w waves, w waves + 1 blocks; a grid-stride loop beside them
 * Every launch: the lab's occupancy calculator against cudaOccupancyMaxActiveBlocksPerMultiprocessor
 * (a difference ends the run), a recorded launch (residency per warp: achieved occupancy, SM
 * efficiency), poisoned output, timing, and the output checked against the CPU reference. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lab03.h"
#include "exercises/exercises.h"
#include "gl_exercise.h"
#include "gl_lab.h"
#include "gl_residency.h"
#include "gl_verify.h"

#define PROG "occupancy"
#define SEED_MAX 262144u   /* the seed's sizes 32 .. 65536, then until S1 and S2 coincide */
#define TIMELINE_HEADER "experiment,variant,size,block,sm,warps,start_us,end_us,sms"

static const gl_name NAMES[] = {
    {"seed", "the seed's vector_add, 32 .. 262144 elements, two launch scenarios (variants below)"},
    {"S1", "  seed: threads/block = size up to 1024 (few, full blocks)"},
    {"S2", "  seed: one block per SM first (32-thread blocks), then grow the block"},
    {"limits", "what caps resident warps, one resource at a time (variants below)"},
    {"block_size", "  limits: threads per block 32 .. 1024"},
    {"registers", "  limits: registers per thread (kernels with 8 .. 224 live accumulators)"},
    {"smem", "  limits: dynamic shared memory per block, 0 .. the opt-in maximum"},
    {"latency", "when occupancy matters: 1 .. 64 warps per SM (variants below)"},
    {"stream", "  latency: y = 2x + 1, 4-byte loads (memory-bound, >= 4x L2)"},
    {"stream_ilp4", "  latency: the same, 4 loads in flight per thread"},
    {"stream_vec4", "  latency: the same, 16-byte loads"},
    {"stream_vec4_ilp4", "  latency: the same, 16-byte loads, 4 in flight"},
    {"fma", "  latency: dependent FMA chain per element (compute-bound)"},
    {"fma_ilp4", "  latency: 4 independent FMA chains per thread"},
    {"tail", "the partial last wave (variants below)"},
    {"chunks", "  tail: one block per chunk, w waves - 1, w waves, w waves + 1 chunks"},
    {"grid_stride", "  tail: the same elements, one wave of blocks looping over them"},
    {"sms", "the seed (S1, S2) and the tail again on 16, 32, 64 SMs and the whole GPU (green contexts); "
            "not in --quick unless named"},
    {"exercises", "Your turn: your kernels in exercises/, ranked among the rungs (only when named)"},
    {"yours_regs", "  exercises: your 128-accumulator kernel, its block and bounds (exercises/registers.cu)"},
};

static const gl_cli_spec SPEC = {
    .prog = PROG,
    .summary = "Lab 03: occupancy and SM efficiency (launch shape, resource limits, latency hiding, tails)",
    .names = NAMES,
    .n_names = (int)(sizeof NAMES / sizeof NAMES[0]),
    .size_min = 1 << 20,
    .size_max = 1LL << 28,
    .size_help = "elements of the memory-bound latency arrays, a multiple of 4096",
    .takes_images = 0, /* no --image / --save */
};

/* The seed document's Tesla K40 table (15 SMX, treated as 16): per size, S1 then S2. */
typedef struct {
    unsigned size;
    double sm_eff[2], theo[2], achieved[2], ms[2];
} k40_row;

static const k40_row K40[] = {
    {32, {6.54, 6.55}, {25, 25}, {1.5, 1.5}, {0.35, 0.35}},
    {64, {6.54, 12.46}, {50, 25}, {2.9, 1.5}, {0.41, 0.41}},
    {128, {6.54, 18.83}, {100, 25}, {4.3, 1.5}, {0.69, 0.69}},
    {256, {6.54, 37.17}, {100, 25}, {8.8, 1.5}, {0.70, 0.69}},
    {512, {6.54, 68.48}, {100, 25}, {17, 1.6}, {0.71, 0.69}},
    {1024, {6.54, 78.32}, {100, 50}, {35, 2.8}, {0.74, 0.70}},
    {2048, {13.15, 96.32}, {100, 100}, {35, 4.7}, {0.75, 0.70}},
    {4096, {26.26, 95.91}, {100, 100}, {35, 9.4}, {0.75, 0.72}},
    {8192, {52.41, 95.10}, {100, 100}, {35, 18}, {0.75, 0.74}},
    {16384, {83.29, 83.28}, {100, 100}, {39, 39}, {0.91, 0.91}},
    {32768, {62.07, 62.11}, {100, 100}, {72, 72}, {1.6, 1.6}},
    {65536, {72.80, 72.80}, {100, 100}, {77, 75}, {2.49, 2.49}},
};
#define N_K40 (sizeof K40 / sizeof K40[0])

static const int BLOCK_SIZES[] = {32, 64, 96, 128, 192, 256, 384, 512, 640, 768, 896, 1024};
static const work_kernel REG_KERNELS[] = {K_REGS_8, K_REGS_32, K_REGS_64, K_REGS_96, K_REGS_128, K_REGS_160, K_REGS_224};
static const int SMEM_KB[] = {0, 8, 16, 24, 32, 40, 48, 64, 72, 96, 112, 160, -1}; /* -1: opt-in max */


/* ---------------------------------------------------------------- the device's limits */

static occ_device occ_device_of(int id)
{
    struct cudaDeviceProp p;
    GL_CHECK(cudaGetDeviceProperties(&p, id));
    occ_device d = {p.major, p.minor, p.maxThreadsPerMultiProcessor, p.maxThreadsPerBlock,
                    p.maxBlocksPerMultiProcessor, p.warpSize, p.regsPerMultiprocessor, p.regsPerBlock,
                    (int)p.sharedMemPerMultiprocessor, (int)p.sharedMemPerBlockOptin,
                    (int)p.reservedSharedMemPerBlock};
    return d;
}

static void print_limits(const lab03 *L)
{
    const occ_device *d = &L->occ;
    printf("per SM: %d threads (%d warps), %d blocks, %d registers (%d sub-partitions, allocated per "
           "warp in units of %d), %d B shared memory (blocks: up to %d B opt-in, %d B reserved each, "
           "units of %d B)\n",
           d->max_threads_per_sm, L->max_warps, d->max_blocks_per_sm, d->regs_per_sm, occ_subpartitions(d),
           occ_reg_granularity(d), d->smem_per_sm, d->smem_per_block_optin, d->smem_reserved_per_block,
           occ_smem_granularity(d));
}


/* ---------------------------------------------------------------- seed */

typedef struct {
    const float *a, *b;
} seed_ref_ctx;

static float seed_ref(const void *ctx, uint32_t i)
{
    const seed_ref_ctx *r = (const seed_ref_ctx *)ctx;
    return ref_seed(r->a[i], r->b[i], i);
}

/* `experiment`: "seed", or "sms_seed" for the SM sweep (both variants, tables left alone). */
static void run_seed(lab03 *L, const char *experiment)
{
    gl_cli *c = &L->lab.cli;
    int sweep = strcmp(experiment, "seed") != 0;
    int want[2] = {sweep || gl_cli_selected(c, "seed", "S1"), sweep || gl_cli_selected(c, "seed", "S2")};
    if (!want[0] && !want[1]) return;
    int sms = L->lab.dev.sms;
    uint32_t iters = c->quick ? SEED_ITERS_QUICK : SEED_ITERS;
    gl_lab_heading(experiment, "vector_add, %u iterations (the seed: 1,000,000 on the K40); S1: threads = "
                           "min(size, 1024); S2: the smallest power of two >= 32 with size / threads <= "
                           "%d blocks (the SM count), at most 1024",
                   iters, sms);
    gl_arrays A, B; /* a = A.x, b = B.x, c = A.y */
    gl_arrays_create(&A, SEED_MAX, c->seed, RNG_A);
    gl_arrays_create(&B, SEED_MAX, c->seed, RNG_B);
    seed_ref_ctx ref = {A.h_x, B.h_x};
    for (int s = 0; s < N_SEED_SIZES; s++) {
        unsigned size = 32u << s;
        double s1_ms = NAN;
        for (int v = 0; v < 2; v++) {
            if (!want[v]) continue;
            unsigned t = v == 0 ? seed_s1_threads(size) : seed_s2_threads(size, sms);
            launch_job j;
            memset(&j, 0, sizeof j);
            j.sh = (launch_shape){size / t, t, 0};
            j.is_seed = 1;
            j.seed = (seed_args){A.d_x, B.d_x, A.d_y, iters, NULL};
            gl_row row = gl_row_new(experiment, v == 0 ? "S1" : "S2", size);
            row.working_set_bytes = 12.0 * size;
            output_check out = {A.d_y, A.h_y, size, seed_ref, &ref, 0};
            lab03_measure(L, &j, &row, &out, 1);
            if (v == 0) s1_ms = row.median_ms;
            row.ratio = row.median_ms / (v == 0 ? row.median_ms : s1_ms);
            lab03_report(L, &row);
            if (sweep) continue;
            L->seed_ms[v][s] = row.median_ms;
            L->seed_theo[v][s] = row.theoretical_occupancy;
            L->seed_ach[v][s] = row.achieved_occupancy;
            L->seed_eff[v][s] = row.sm_efficiency;
            L->seed_tpb[v][s] = t;
            L->seed_blocks[v][s] = size / t;
        }
    }
    gl_arrays_free(&A);
    gl_arrays_free(&B);
}

static void print_seed_tables(const lab03 *L)
{
    if (L->seed_ms[0][0] <= 0 || L->seed_ms[1][0] <= 0) return;
    printf("\n== seed: S1 beside S2 on this GPU (%s, %d SMs): threads/block, blocks, theoretical and "
           "achieved occupancy %%, SM efficiency %%, ms\n", L->lab.dev.name, L->lab.dev.sms);
    static const gl_col cols[] = {{"size", "", 7},     {"S1 thr", "%.0f", 6}, {"blk", "%.0f", 4},
                                  {"theo", "%.1f", 5}, {"ach", "%.1f", 5},    {"SMeff", "%.1f", 6},
                                  {"ms", "%.3f", 7},   {"S2 thr", "%.0f", 6}, {"blk", "%.0f", 4},
                                  {"theo", "%.1f", 5}, {"ach", "%.1f", 5},    {"SMeff", "%.1f", 6},
                                  {"ms", "%.3f", 7},   {"S1/S2", "%.2fx", 6}};
    const int nc = (int)(sizeof cols / sizeof cols[0]);
    gl_table_header(stdout, cols, nc);
    int meet = -1;
    for (int s = 0; s < N_SEED_SIZES; s++) {
        char label[16];
        snprintf(label, sizeof label, "%u", 32u << s);
        double v[13];
        for (int k = 0; k < 2; k++) {
            v[6 * k + 0] = L->seed_tpb[k][s];
            v[6 * k + 1] = L->seed_blocks[k][s];
            v[6 * k + 2] = L->seed_theo[k][s];
            v[6 * k + 3] = L->seed_ach[k][s];
            v[6 * k + 4] = L->seed_eff[k][s];
            v[6 * k + 5] = L->seed_ms[k][s];
        }
        v[12] = L->seed_ms[0][s] / L->seed_ms[1][s];
        gl_table_line(stdout, cols, nc, label, v);
        if (meet < 0 && s > 0 && fabs(v[12] - 1.0) < 0.05) meet = s;
        if (meet >= 0 && fabs(v[12] - 1.0) >= 0.05) meet = -1; /* only a lasting meeting counts */
    }
    if (meet >= 0) printf("S1 and S2 meet (within 5%%) from %u elements on\n", 32u << meet);
    else printf("S1 and S2 do not meet within 5%% up to %u elements\n", SEED_MAX);

    printf("\n== the seed's table: Tesla K40 (15 SMX, the seed assumes 16; nvprof, 1,000,000 iterations)\n");
    static const gl_col k40c[] = {{"size", "", 7},       {"S1 SMeff", "%.2f", 9}, {"theo", "%.0f", 5},
                                  {"ach", "%.1f", 5},    {"ms", "%.2f", 5},       {"S2 SMeff", "%.2f", 9},
                                  {"theo", "%.0f", 5},   {"ach", "%.1f", 5},      {"ms", "%.2f", 5}};
    gl_table_header(stdout, k40c, 9);
    for (size_t i = 0; i < N_K40; i++) {
        char label[16];
        snprintf(label, sizeof label, "%u", K40[i].size);
        double v[] = {K40[i].sm_eff[0], K40[i].theo[0], K40[i].achieved[0], K40[i].ms[0],
                      K40[i].sm_eff[1], K40[i].theo[1], K40[i].achieved[1], K40[i].ms[1]};
        gl_table_line(stdout, k40c, 9, label, v);
    }
}

/* ---------------------------------------------------------------- limits */


/* Keep a limits row for the summary table, with the resource that set its occupancy. */
static void keep_limits_row(lab03 *L, const gl_row *row, occ_result r)
{
    if (L->n_limits >= MAX_LIMITS_ROWS) return;
    L->limits[L->n_limits].row = *row;
    L->limits[L->n_limits].occ = r;
    L->n_limits++;
}

static void print_limits_summary(const lab03 *L)
{
    if (!L->n_limits) return;
    printf("\n== limits: what set the occupancy (calculator = API on every row)\n");
    printf("%-11s %8s %5s %8s %7s %-14s %6s %6s %9s\n", "variant", "param", "regs", "smem KB", "blk/SM",
           "limited by", "theo%", "ach%", "GFLOP/s");
    for (int i = 0; i < L->n_limits; i++) {
        const gl_row *r = &L->limits[i].row;
        printf("%-11s %8lld %5.0f %8.1f %7.0f %-14s %6.1f %6.1f %9.0f\n", r->variant, r->param,
               r->registers_per_thread, r->smem_per_block / 1024.0, r->blocks_per_sm,
               occ_limiter_name(L->limits[i].occ.limiter), r->theoretical_occupancy, r->achieved_occupancy,
               r->gflops);
    }
}

static void run_limits(lab03 *L)
{
    gl_cli *c = &L->lab.cli;
    int want_b = gl_cli_selected(c, "limits", "block_size"), want_r = gl_cli_selected(c, "limits", "registers"),
        want_s = gl_cli_selected(c, "limits", "smem");
    if (!want_b && !want_r && !want_s) return;
    int sms = L->lab.dev.sms;
    uint32_t n = (uint32_t)sms * L->occ.max_threads_per_sm * (c->quick ? 2 : 8); /* 8 full waves */
    uint32_t iters = c->quick ? 256 : 2048;
    gl_lab_heading("limits", "FMA chains (%u per element), one element per thread, n = %u (%d full "
                             "waves); param = threads/block, registers/thread, or shared bytes/block; "
                             "ratio = time / the first row's",
                   iters, n, c->quick ? 2 : 8);
    print_limits(L);
    gl_arrays A;
    gl_arrays_create(&A, n, c->seed, RNG_X);
    gl_row row;
    double base = 0;
    if (want_b)
        for (size_t i = 0; i < sizeof BLOCK_SIZES / sizeof BLOCK_SIZES[0]; i++) {
            unsigned t = (unsigned)BLOCK_SIZES[i];
            occ_result r = lab03_compute_row(L, "limits", "block_size", t, K_FMA, &A, iters,
                                       (launch_shape){(n + t - 1) / t, t, 0}, 0, &row);
            base = i == 0 ? row.median_ms : base;
            row.ratio = row.median_ms / base;
            lab03_report(L, &row);
            keep_limits_row(L, &row, r);
        }
    if (want_r)
        for (size_t i = 0; i < sizeof REG_KERNELS / sizeof REG_KERNELS[0]; i++) {
            kernel_attrs ka = work_attrs(REG_KERNELS[i]);
            uint32_t it = iters / 8 > 0 ? iters / 8 : 1; /* each thread runs `accumulators` chains */
            occ_result r = lab03_compute_row(L, "limits", "registers", ka.registers, REG_KERNELS[i], &A, it,
                                       (launch_shape){n / 256, 256, 0}, 0, &row);
            /* the work grows with the accumulators: compare GFLOP/s, not times */
            if (ka.local_bytes) printf("note: %d bytes of local memory per thread (spills)\n", ka.local_bytes);
            lab03_report(L, &row);
            keep_limits_row(L, &row, r);
        }
    if (want_s)
        for (size_t i = 0; i < sizeof SMEM_KB / sizeof SMEM_KB[0]; i++) {
            size_t smem = SMEM_KB[i] < 0 ? (size_t)L->occ.smem_per_block_optin : (size_t)SMEM_KB[i] * 1024;
            occ_result r = lab03_compute_row(L, "limits", "smem", (long long)smem, K_FMA, &A, iters,
                                       (launch_shape){n / 256, 256, smem}, 0, &row);
            base = i == 0 ? row.median_ms : base;
            row.ratio = row.median_ms / base;
            lab03_report(L, &row);
            keep_limits_row(L, &row, r);
        }
    gl_arrays_free(&A);
}

/* ---------------------------------------------------------------- exercises (Your turn) */

static const gl_exercise EX_REGS = {"yours_regs", "exercises/registers.cu"};

/* The student's kernel beside the registers rungs of the same work (limits' sizes), by GFLOP/s:
 * poisoned, one watched launch and its check, then the rows every launch here gets. */
static void run_exercises(lab03 *L)
{
    if (!gl_exercise_selected(&L->lab.cli, EX_REGS.variant)) return;
    int quick = L->lab.cli.quick;
    uint32_t n = (uint32_t)L->lab.dev.sms * L->occ.max_threads_per_sm * (quick ? 2 : 8), it = (quick ? 256 : 2048) / 8;
    gl_lab_heading("exercises", "%s: %d accumulators, %u steps, n = %u", EX_REGS.file, EXERCISE_ACCUMULATORS, it, n);
    gl_arrays A;
    gl_arrays_create(&A, n, L->lab.cli.seed, RNG_X);
    launch_job j = {yours_regs_shape(n, L->lab.dev.sms), 0, K_YOURS_REGS, {0}, {A.d_x, A.d_y, n, it, NULL}};
    if (j.sh.threads == 0 || j.sh.threads % 32 || j.sh.blocks == 0)
        gl_exercise_refuse(&L->lab, &EX_REGS, "its launch shape needs blocks of a non-zero multiple of 32 threads");
    work_ref_ctx ref = {A.h_x, it, EXERCISE_ACCUMULATORS};
    gl_poison(A.d_y, (size_t)n * 4);
    gl_exercise_run_once(&L->lab, &EX_REGS, lab03_enqueue_job, &j);
    gl_verify_warps(A.d_y, A.h_y, n, SAMPLE_WARPS, lab03_work_ref, &ref, "exercises/yours_regs, first launch");
    static const work_kernel kernels[] = {K_REGS_32, K_REGS_64, K_REGS_128, K_YOURS_REGS};
    gl_rung rungs[3] = {{"regs_32", 0}, {"regs_64", 0}, {"regs_128", 0}};
    gl_row row;
    occ_result r = {0};
    for (int k = 0; k < 4; k++) {
        kernel_attrs ka = work_attrs(kernels[k]);
        launch_shape sh = k == 3 ? j.sh : (launch_shape){n / 256, 256, 0};
        r = lab03_compute_row(L, "exercises", k == 3 ? EX_REGS.variant : "registers", ka.registers, kernels[k], &A, it, sh, 0, &row);
        if (ka.local_bytes) printf("note: %d bytes of local memory per thread (spills)\n", ka.local_bytes);
        lab03_report(L, &row);
        if (k < 3) rungs[k].value = row.gflops;
    }
    gl_arrays_free(&A);
    char metrics[160];
    snprintf(metrics, sizeof metrics, "%.3f ms, %.0f registers, %u threads/block, occupancy %.1f%% (limited by %s), "
             "%.1f%% reached", row.median_ms, row.registers_per_thread, j.sh.threads, row.theoretical_occupancy,
             occ_limiter_name(r.limiter), row.achieved_occupancy);
    gl_exercise_rank(EX_REGS.variant, row.gflops, metrics, &(gl_rank_key){"GFLOP/s", 1}, rungs, 3);
}

/* ---------------------------------------------------------------- tail */

/* `experiment`: "tail", or "sms_tail" for the SM sweep (both variants). */
static void run_tail(lab03 *L, const char *experiment)
{
    gl_cli *c = &L->lab.cli;
    int sweep = strcmp(experiment, "tail") != 0;
    int want_c = sweep || gl_cli_selected(c, "tail", "chunks"), want_g = sweep || gl_cli_selected(c, "tail", "grid_stride");
    if (!want_c && !want_g) return;
    const unsigned threads = 1024; /* 2 blocks per SM: a lone last block is half an SM's work */
    uint32_t iters = c->quick ? 64 : 256;
    kernel_attrs ka = work_attrs(K_TAIL_CHUNKS);
    int per_sm = occ_calculate(&L->occ, threads, ka.registers, (size_t)ka.static_smem, 0).blocks_per_sm;
    unsigned wave = (unsigned)(per_sm * L->lab.dev.sms);
    gl_lab_heading(experiment, "%u threads/block, %d blocks per SM: one wave = %u blocks; a chunk = %u x %d "
                           "elements, %u FMAs each; param = chunks; ratio = time / time of w whole waves",
                   threads, per_sm, wave, threads, TAIL_ELEMS, iters);
    static const unsigned WAVES[] = {1, 2, 4};
    unsigned max_chunks = 4 * wave + 1;
    gl_arrays A;
    gl_arrays_create(&A, max_chunks * threads * TAIL_ELEMS, c->seed, RNG_X);
    uint32_t full_n = A.n;
    for (size_t wi = 0; wi < sizeof WAVES / sizeof WAVES[0]; wi++) {
        if (c->quick && WAVES[wi] > 2) continue;
        double whole[2] = {0, 0};
        for (int d = 0; d <= 2; d++) { /* whole waves first: the ratios divide by it */
            int delta = d == 0 ? 0 : d == 1 ? -1 : 1;
            unsigned chunks = WAVES[wi] * wave + (unsigned)delta;
            A.n = chunks * threads * TAIL_ELEMS;
            for (int g = 0; g < 2; g++) {
                if (!(g == 0 ? want_c : want_g)) continue;
                launch_shape sh = g == 0 ? (launch_shape){chunks, threads, 0} : (launch_shape){wave, threads, 0};
                gl_row row;
                int timeline = g == 0 && WAVES[wi] == 1 && delta == 1; /* the lone last block */
                lab03_compute_row(L, experiment, g == 0 ? "chunks" : "grid_stride", chunks, g == 0 ? K_TAIL_CHUNKS : K_FMA,
                            &A, iters, sh, timeline, &row);
                if (d == 0) whole[g] = row.median_ms;
                row.ratio = row.median_ms / whole[g];
                lab03_report(L, &row);
            }
        }
    }
    A.n = full_n;
    gl_arrays_free(&A);
}

/* ---------------------------------------------------------------- sms */

/* The seed and the tail on 16, 32, 64 SMs and the whole GPU, each a green context made in this
 * run (counts the GPU cannot give, or above the run's --sms, are skipped with a line). What the
 * lesson shows: S2's rule and the wave follow the SM count; the L2 and DRAM stay the whole GPU's. */
static void sms_step(void *ctx)
{
    run_seed((lab03 *)ctx, "sms_seed");
    run_tail((lab03 *)ctx, "sms_tail");
}

static void run_sms_sweep(lab03 *L)
{
    if (!gl_cli_selected_sweep(&L->lab.cli, "sms")) return;
    static const int COUNTS[] = {16, 32, 64, 0}; /* 0: the whole GPU */
    gl_lab_heading("sms", "the seed and the tail on 16, 32, 64 SMs and the whole GPU (green contexts)");
    gl_lab_sms_sweep(&L->lab, COUNTS, 4, sms_step, L);
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    lab03 L;
    memset(&L, 0, sizeof L);
    gl_lab_parse(&L.lab, "03_occupancy", &SPEC, argc, argv);
    gl_cli *c = &L.lab.cli;
    if (c->size % 4096) {
        fprintf(stderr, "%s: --size %lld is invalid: lab 03 needs a multiple of 4096 in %lld..%lld\n", PROG,
                c->size, SPEC.size_min, SPEC.size_max);
        return GL_EXIT_USAGE;
    }
    gl_lab_open_device(&L.lab, PROG);
    L.occ = occ_device_of(L.lab.dev.id);
    L.max_warps = L.occ.max_threads_per_sm / L.occ.warp_size;

    /* The memory-bound arrays: >= 4x L2 each (quick: a quarter of that, said so below). */
    uint32_t stream_n = (uint32_t)(c->size ? c->size : (long long)gl_dram_elems(&L.lab.dev, sizeof(float)) / (c->quick ? 4 : 1));
    size_t fixed = (size_t)L.lab.dev.sms * 2048 * 8 * 2 * sizeof(float) + GL_LAB_SPARE_BYTES;
    size_t free_b = gl_lab_free_bytes(&L.lab);
    while (!c->size && stream_n > (1u << 20) && (size_t)stream_n * 2 * sizeof(float) + fixed > free_b) {
        stream_n /= 2; /* the default size on a small card: say so */
        printf("note: %.1f MiB of device memory free: the streaming arrays shrink to %u elements\n",
               free_b / 1048576.0, stream_n);
    }
    size_t need = (size_t)stream_n * 2 * sizeof(float) + fixed;
    if (need > free_b) {
        fprintf(stderr, "%s: --size %lld needs %.1f GiB of GPU memory; %.1f GiB free: use a smaller --size\n",
                PROG, c->size, need / 1073741824.0, free_b / 1073741824.0);
        return GL_EXIT_USAGE;
    }

    gl_arrays C;
    gl_arrays_create(&C, stream_n, c->seed, RNG_A);
    gl_timing ceil_t = gl_time_memcpy(&L.lab.timer, C.d_y, C.d_x, (size_t)stream_n * 4, &c->timing);
    double copy_gbs = gl_gbs(8.0 * stream_n, ceil_t.ms.median);
    gl_arrays_free(&C);
    gl_lab_open_report(&L.lab, copy_gbs);
    L.lab.report.metric = GL_SHOW_OCCUPANCY;
    L.has_timeline = gl_lab_open_beside(&L.lab, &L.timeline, ".timeline.csv", TIMELINE_HEADER) == 0;
    gl_row ceil_row = gl_row_new("ceiling", "memcpy_d2d", stream_n);
    ceil_row.bytes = ceil_row.working_set_bytes = 8.0 * stream_n;
    gl_lab_fill_timing(&L.lab, &ceil_row, &ceil_t);
    lab03_report(&L, &ceil_row);

    run_seed(&L, "seed");
    run_limits(&L);
    lab03_run_latency(&L, stream_n);
    run_tail(&L, "tail");
    run_sms_sweep(&L);
    run_exercises(&L);

    print_seed_tables(&L);
    print_limits_summary(&L);
    lab03_print_latency_summary(&L);
    printf("\ncalculator = cudaOccupancyMaxActiveBlocksPerMultiprocessor on all %d launches; "
           "all outputs verified against the CPU reference\n", L.lab.report.rows - 1);
    if (L.has_timeline) gl_out_close(&L.timeline);
    gl_lab_close(&L.lab);
    return GL_EXIT_OK;
}
