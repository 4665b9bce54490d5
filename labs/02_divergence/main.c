/* main.c - Lab 02: warp divergence.
 *
 * Experiments (run `divergence --list`):
 *   seed         the seed's pair: the operation chosen per warp or per lane, sizes across the L2
 *   paths        k-way divergence, k = 1 .. 32, lanes split into k groups (and whole warps)
 *   data         a data-dependent branch taken with probability p, random vs sorted keys
 *   predication  a short branch the compiler predicates, beside the same branch kept a branch
 * Every row: counting twin (warp execution efficiency, divergent branches) against the CPU's
 * expected value, poisoned output, timing, bit-exact check against the CPU reference. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "divergence.h"
#include "exercises/exercises.h"
#include "gl_exercise.h"
#include "gl_lab.h"
#include "gl_rng.h"
#include "gl_verify.h"

#define PROG "divergence"
#define WORK_SIZE (1LL << 22)      /* paths, data, predication: threads (one output each) */
#define WORK_SIZE_QUICK (1LL << 20)
#define SAMPLE_WARPS 1024u         /* outputs of long bodies: this many warps compared bit for bit */

static const gl_name NAMES[] = {
    {"seed", "the seed's pair at 32K, 4M and >= 4x L2 elements (variants below)"},
    {"warp_no_divergence", "  seed: operation by warp, (tid/32) % 4: add, sub, mul, div"},
    {"warp_divergence", "  seed: operation by lane, tid % 4"},
    {"paths", "k-way divergence, k = 1, 2, 4, ..., 32 compute-heavy paths (variants below)"},
    {"paths_lanes", "  paths: lanes split into k groups inside every warp"},
    {"paths_warps", "  paths: the same k paths, one per warp"},
    {"data", "a data-dependent branch, p = 0, 1/64, ..., 1/2, 1 (variants below)"},
    {"sorted", "  data: keys sorted first (CUB radix sort, timed as its own row)"},
    {"unsorted", "  data: random keys"},
    {"predication", "a short branch, predicated or kept a branch (variants below)"},
    {"pred_uniform", "  predication: by warp, compiled to predicated FMAs"},
    {"pred_divergent", "  predication: by lane, compiled to the same predicated FMAs"},
    {"branch_uniform", "  predication: by warp, each side a call: a real branch"},
    {"branch_divergent", "  predication: by lane, each side a call: a real, divergent branch"},
    {"exercises", "Your turn: your kernels in exercises/, ranked among the rungs (only when named)"},
    {"yours_paths", "  exercises: your k = 32 paths made warp-uniform (exercises/paths.cu)"},
};

static const gl_cli_spec SPEC = {
    .prog = PROG,
    .summary = "Lab 02: warp divergence (serialised paths, efficiency, sorting, predication)",
    .names = NAMES,
    .n_names = (int)(sizeof NAMES / sizeof NAMES[0]),
    .size_min = 1024,
    .size_max = 1LL << 28,
    .size_help = "threads = elements, a multiple of 1024, for every experiment instead of the default sizes",
    .takes_images = 0, /* no --image / --save */
};

/* The seed's pair, with the Tesla K40 figures the seed document reports at 4194304 elements. */
typedef struct {
    const char *name;
    seed_kind kind;
    double k40_ms, k40_efficiency;
} seed_variant;

static const seed_variant SEED_VARIANTS[] = {
    {"warp_no_divergence", SEED_BY_WARP, 12.4316, 100.0},
    {"warp_divergence", SEED_BY_LANE, 38.5476, 34.8},
};
#define N_SEED (sizeof SEED_VARIANTS / sizeof SEED_VARIANTS[0])
#define K40_SIZE 4194304LL

typedef struct {
    const char *name;
    paths_kind kind;
} paths_variant;

static const paths_variant PATHS_VARIANTS[] = {
    {"paths_lanes", PATHS_BY_LANES},
    {"paths_warps", PATHS_BY_WARPS},
};

typedef struct {
    const char *name;
    pred_kind kind;
    pred_kind baseline; /* the ratio column divides by this variant's time */
} pred_variant;

static const pred_variant PRED_VARIANTS[] = {
    {"pred_uniform", PRED_UNIFORM, PRED_UNIFORM},
    {"pred_divergent", PRED_DIVERGENT, PRED_UNIFORM},
    {"branch_uniform", BRANCH_UNIFORM, PRED_UNIFORM},
    {"branch_divergent", BRANCH_DIVERGENT, BRANCH_UNIFORM},
};
#define N_PRED (sizeof PRED_VARIANTS / sizeof PRED_VARIANTS[0])

static const uint32_t DATA_P64[] = {0, 1, 2, 4, 8, 16, 32, 64}; /* p = p64 / 64 */
#define N_DATA (sizeof DATA_P64 / sizeof DATA_P64[0])

typedef struct {
    gl_lab lab;
    double seed_ms[N_SEED], seed_eff[N_SEED], seed_expected[N_SEED]; /* at K40_SIZE */
    double paths_ms[2][6], paths_eff[2][6];                          /* k = 2^0 .. 2^5 */
    double data_ms[2][N_DATA], data_eff[2][N_DATA], data_div[2][N_DATA]; /* [sorted, unsorted] */
} lab02;

/* ---------------------------------------------------------------- shared steps */

/* Run a counting twin; fill the row's measured efficiency and divergent-branch fraction, and the
 * expected efficiency (tests/quick/02_divergence.awk compares the two). */
static void measure_lanes(lab02 *L, gl_count_fn fn, void *ctx, const lane_model *want, gl_row *row)
{
    unsigned long long h[4]; /* gl_lane_counts: lane_units, warp_units, branches, divergent */
    gl_lab_count(&L->lab, fn, ctx, h, 4);
    lane_model got = {(double)h[0], (double)h[1], (double)h[2], (double)h[3]};
    row->warp_exec_efficiency = model_efficiency(&got);
    row->expected_warp_exec_efficiency = model_efficiency(want);
    if (want->branches > 0) row->divergent_branch_fraction = h[2] ? (double)h[3] / h[2] : NAN;
}

static void report(lab02 *L, gl_row *row) { gl_report_row(&L->lab.report, row); }

/* ---------------------------------------------------------------- seed */

typedef struct {
    seed_kind kind;
    seed_args args;
    uint32_t n;
} seed_job;

static void enqueue_seed(void *ctx, cudaStream_t s)
{
    seed_job *j = (seed_job *)ctx;
    launch_seed(j->kind, &j->args, j->n, s);
}

static void count_seed(void *ctx, unsigned long long *counts, cudaStream_t s)
{
    seed_job j = *(seed_job *)ctx;
    j.args.counts = counts;
    launch_seed(j.kind, &j.args, j.n, s);
}

typedef struct {
    seed_kind kind;
    const float *a, *b;
} seed_ref_ctx;

static float seed_ref(const void *ctx, uint32_t i)
{
    const seed_ref_ctx *r = (const seed_ref_ctx *)ctx;
    return ref_seed(r->kind, r->a[i], r->b[i], i);
}

/* GPU bytes of one seed size: A and B (each an input and an output). */
static size_t seed_bytes(uint32_t n) { return 2 * gl_arrays_device_bytes(n); }

static void run_seed_size(lab02 *L, uint32_t n)
{
    gl_cli *c = &L->lab.cli;
    if (!gl_lab_fits(&L->lab, (double)seed_bytes(n), "seed", NULL, n)) return;
    gl_arrays A, B; /* A.x = a, B.x = b; the output goes to A.y */
    gl_arrays_create(&A, n, c->seed, RNG_A);
    gl_arrays_create(&B, n, c->seed, RNG_B);
    gl_lab_note_working_set(&L->lab, 12.0 * n);
    double base = 0;
    for (size_t v = 0; v < N_SEED; v++) {
        const seed_variant *sv = &SEED_VARIANTS[v];
        if (!gl_cli_selected(c, "seed", sv->name)) continue;
        seed_job job = {sv->kind, {A.d_x, B.d_x, A.d_y, NULL}, n};
        gl_row row = gl_row_new("seed", sv->name, n);
        row.working_set_bytes = 12.0 * n;
        lane_model want = model_seed(sv->kind, n);
        measure_lanes(L, count_seed, &job, &want, &row);
        gl_poison(A.d_y, (size_t)n * sizeof(float));
        gl_lab_time(&L->lab, &row, enqueue_seed, &job);
        if (sv->kind == SEED_BY_WARP) base = row.median_ms;
        row.ratio = base > 0 ? row.median_ms / base : NAN;
        char what[96];
        snprintf(what, sizeof what, "seed/%s n=%u", sv->name, n);
        seed_ref_ctx ref = {sv->kind, A.h_x, B.h_x};
        row.checked = gl_verify_warps(A.d_y, A.h_y, n, 0, seed_ref, &ref, what);
        report(L, &row);
        if (n == K40_SIZE) {
            L->seed_ms[v] = row.median_ms;
            L->seed_eff[v] = row.warp_exec_efficiency;
            L->seed_expected[v] = row.expected_warp_exec_efficiency;
        }
    }
    gl_arrays_free(&A);
    gl_arrays_free(&B);
}

static void run_seed(lab02 *L, const long long *sizes, int n_sizes)
{
    gl_cli *c = &L->lab.cli;
    if (!gl_cli_selected(c, "seed", SEED_VARIANTS[0].name) && !gl_cli_selected(c, "seed", SEED_VARIANTS[1].name))
        return;
    gl_lab_heading("seed", "C[tid] = A[tid] op B[tid], %d iterations, %d threads/block; op by warp "
                           "or by lane; the three arrays fill the L2 at n = %zu",
                   SEED_ITERS, SEED_BLOCK, L->lab.dev.l2_bytes / 12);
    for (int s = 0; s < n_sizes; s++) run_seed_size(L, (uint32_t)sizes[s]);
}

/* ---------------------------------------------------------------- paths */

typedef struct {
    paths_kind kind;
    paths_args args;
} paths_job;

static void enqueue_paths(void *ctx, cudaStream_t s)
{
    paths_job *j = (paths_job *)ctx;
    launch_paths(j->kind, &j->args, s);
}

static void count_paths(void *ctx, unsigned long long *counts, cudaStream_t s)
{
    paths_job j = *(paths_job *)ctx;
    j.args.counts = counts;
    launch_paths(j.kind, &j.args, s);
}

typedef struct {
    paths_kind kind;
    uint32_t k;
    const float *x;
} paths_ref_ctx;

static float paths_ref(const void *ctx, uint32_t i)
{
    const paths_ref_ctx *r = (const paths_ref_ctx *)ctx;
    return ref_path(path_of(r->kind, i, r->k), r->x[i]);
}

/* One paths row (not yet reported): counts, poison, time, check a sample of warps. */
static gl_row measure_paths(lab02 *L, gl_arrays *W, const char *experiment, const paths_variant *pv, uint32_t k)
{
    uint32_t n = W->n;
    paths_job job = {pv->kind, {W->d_x, W->d_y, n, k, NULL}};
    gl_row row = gl_row_new(experiment, pv->name, n);
    row.param = k;
    row.working_set_bytes = 8.0 * n;
    lane_model want = model_paths(pv->kind, n, k);
    measure_lanes(L, count_paths, &job, &want, &row);
    gl_poison(W->d_y, (size_t)n * sizeof(float));
    gl_lab_time(&L->lab, &row, enqueue_paths, &job);
    char what[96];
    snprintf(what, sizeof what, "%s/%s k=%u n=%u", experiment, pv->name, k, n);
    paths_ref_ctx ref = {pv->kind, k, W->h_x};
    row.checked = gl_verify_warps(W->d_y, W->h_y, n, SAMPLE_WARPS, paths_ref, &ref, what);
    return row;
}

static void run_paths(lab02 *L, uint32_t n)
{
    gl_cli *c = &L->lab.cli;
    if (!gl_cli_selected(c, "paths", "paths_lanes") && !gl_cli_selected(c, "paths", "paths_warps")) return;
    gl_lab_heading("paths", "k paths of %d dependent FMAs each, n = %u threads, %d per block; "
                            "expected: time k x T(1) and efficiency 100/k %% when lanes split",
                   PATH_ITERS, n, WORK_BLOCK);
    if (!gl_lab_fits(&L->lab, (double)gl_arrays_device_bytes(n), "paths", NULL, n)) return;
    gl_arrays W;
    gl_arrays_create(&W, n, c->seed, RNG_X);
    for (size_t v = 0; v < 2; v++) {
        const paths_variant *pv = &PATHS_VARIANTS[v];
        if (!gl_cli_selected(c, "paths", pv->name)) continue;
        double base = 0;
        for (uint32_t e = 0, k = 1; k <= MAX_PATHS; e++, k *= 2) {
            gl_row row = measure_paths(L, &W, "paths", pv, k);
            if (k == 1) base = row.median_ms;
            row.ratio = row.median_ms / base;
            report(L, &row);
            L->paths_ms[v][e] = row.median_ms;
            L->paths_eff[v][e] = row.warp_exec_efficiency;
        }
    }
    gl_arrays_free(&W);
}

static void print_paths_summary(const lab02 *L)
{
    if (L->paths_ms[0][0] <= 0 && L->paths_ms[1][0] <= 0) return;
    printf("\n== paths: measured beside expected (lanes split: T(k) = k T(1), efficiency 100/k)\n");
    static const gl_col cols[] = {{"k", "", 4},          {"T(k)/T(1)", "%.2f", 10}, {"expected", "%.0f", 9},
                                  {"eff %", "%.2f", 8},    {"expected", "%.2f", 9},  {"warps: T/T(1)", "%.2f", 14},
                                  {"warps eff %", "%.2f", 12}};
    const int nc = (int)(sizeof cols / sizeof cols[0]);
    gl_table_header(stdout, cols, nc);
    for (int e = 0; e < 6; e++) {
        char label[16];
        snprintf(label, sizeof label, "%d", 1 << e);
        double lanes = L->paths_ms[0][0] > 0 ? L->paths_ms[0][e] / L->paths_ms[0][0] : NAN;
        double warps = L->paths_ms[1][0] > 0 ? L->paths_ms[1][e] / L->paths_ms[1][0] : NAN;
        double v[] = {lanes, (double)(1 << e), L->paths_ms[0][0] > 0 ? L->paths_eff[0][e] : NAN,
                      100.0 / (1 << e), warps, L->paths_ms[1][0] > 0 ? L->paths_eff[1][e] : NAN};
        gl_table_line(stdout, cols, nc, label, v);
    }
}

/* ---------------------------------------------------------------- exercises (Your turn) */

static const gl_exercise EX_PATHS = {"yours_paths", "exercises/paths.cu"};

typedef struct {
    gl_arrays *W;
    paths_args args;
} paths_ex;

GL_EXERCISE_CALLBACKS(ex_paths, paths_ex, paths_args, launch_yours_paths)

static void ex_paths_poison(void *ctx) { gl_poison(((paths_ex *)ctx)->W->d_y, ((paths_ex *)ctx)->W->n * 4); }

/* Every output written; a sample of warps bit for bit (as the paths rows). */
static long long ex_paths_verify(void *ctx, const char *what)
{
    gl_arrays *W = ((paths_ex *)ctx)->W;
    paths_ref_ctx ref = {PATHS_BY_LANES, EXERCISE_PATHS, W->h_x};
    return gl_verify_warps(W->d_y, W->h_y, W->n, SAMPLE_WARPS, paths_ref, &ref, what);
}

/* The student's paths kernel, ranked among paths_lanes and paths_warps at k = 32. */
static void run_exercises(lab02 *L, uint32_t n)
{
    if (!gl_exercise_selected(&L->lab.cli, EX_PATHS.variant)) return;
    gl_lab_heading("exercises", "your paths kernel (%s): k = %d paths fixed per lane, n = %u", EX_PATHS.file,
                   EXERCISE_PATHS, n);
    if (!gl_lab_fits(&L->lab, (double)gl_arrays_device_bytes(n), "exercises", EX_PATHS.variant, n)) return;
    gl_arrays W;
    gl_arrays_create(&W, n, L->lab.cli.seed, RNG_X);
    gl_row rungs[2];
    for (int v = 0; v < 2; v++) {
        rungs[v] = measure_paths(L, &W, "exercises", &PATHS_VARIANTS[v], EXERCISE_PATHS);
        report(L, &rungs[v]);
    }
    paths_ex x = {&W, {W.d_x, W.d_y, n, EXERCISE_PATHS, NULL}};
    gl_exercise_job j = {&EX_PATHS, ex_paths_run, ex_paths_count, &x, ex_paths_poison, ex_paths_verify};
    gl_row row = gl_row_new("exercises", EX_PATHS.variant, n);
    row.param = EXERCISE_PATHS;
    row.working_set_bytes = 8.0 * n;
    unsigned long long h[4];
    gl_exercise_measure(&L->lab, &j, &row, h, 4);
    lane_model got = {(double)h[0], (double)h[1], (double)h[2], (double)h[3]};
    row.warp_exec_efficiency = model_efficiency(&got);
    row.ratio = row.median_ms / rungs[0].median_ms;
    report(L, &row);
    gl_arrays_free(&W);
    gl_rung r[] = {{PATHS_VARIANTS[0].name, rungs[0].median_ms}, {PATHS_VARIANTS[1].name, rungs[1].median_ms}};
    char metrics[64];
    snprintf(metrics, sizeof metrics, "%.1f%% warp execution efficiency", row.warp_exec_efficiency);
    gl_exercise_rank(EX_PATHS.variant, row.median_ms, metrics, &(gl_rank_key){"ms", 0}, r, 2);
}

/* ---------------------------------------------------------------- data */

typedef struct {
    data_args args;
} data_job;

static void enqueue_data(void *ctx, cudaStream_t s) { launch_data(&((data_job *)ctx)->args, s); }

static void count_data(void *ctx, unsigned long long *counts, cudaStream_t s)
{
    data_job j = *(data_job *)ctx;
    j.args.counts = counts;
    launch_data(&j.args, s);
}

typedef struct {
    const uint32_t *keys;
    uint32_t p64;
} data_ref_ctx;

static float data_ref(const void *ctx, uint32_t i)
{
    const data_ref_ctx *r = (const data_ref_ctx *)ctx;
    return ref_data(r->keys[i], r->p64);
}

typedef struct {
    const uint32_t *in;
    uint32_t *out, n;
    void *temp;
    size_t temp_bytes;
} sort_job;

static void enqueue_sort(void *ctx, cudaStream_t s)
{
    sort_job *j = (sort_job *)ctx;
    sort_keys(j->in, j->out, j->n, j->temp, j->temp_bytes, s);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Sort the keys on the GPU (timed as its own row), and check the result against qsort. */
static void sort_and_check(lab02 *L, const uint32_t *d_keys, uint32_t *d_sorted, uint32_t *h_sorted,
                           const uint32_t *h_keys, uint32_t n)
{
    sort_job job = {d_keys, d_sorted, n, NULL, sort_temp_bytes(n)};
    job.temp = gl_device_alloc(job.temp_bytes, "radix sort scratch");
    gl_row row = gl_row_new("data", "radix_sort", n);
    row.working_set_bytes = 8.0 * n;
    gl_poison(d_sorted, (size_t)n * 4);
    gl_lab_time(&L->lab, &row, enqueue_sort, &job);
    memcpy(h_sorted, h_keys, (size_t)n * 4);
    qsort(h_sorted, n, 4, cmp_u32);
    uint32_t *got = (uint32_t *)gl_host_alloc((size_t)n * 4, "sorted keys");
    GL_CHECK(cudaMemcpy(got, d_sorted, (size_t)n * 4, cudaMemcpyDeviceToHost));
    long long bad = 0;
    for (uint32_t i = 0; i < n; i++)
        if (got[i] != h_sorted[i] && bad++ < GL_MAX_MISMATCH_LINES)
            fprintf(stderr, "  data/radix_sort: key %u: got %u, expected %u\n", i, got[i], h_sorted[i]);
    gl_require_match("data/radix_sort", bad, n);
    row.checked = n;
    report(L, &row);
    free(got);
    GL_CHECK(cudaFree(job.temp));
}

/* GPU bytes of the data experiment: the keys, the sorted keys, the arrays (only y is used) and,
 * while the sort runs (sort_and_check), its scratch. */
static size_t data_bytes(uint32_t n, int sorting)
{
    return 2 * (size_t)n * 4 + gl_arrays_device_bytes(n) + (sorting ? sort_temp_bytes(n) : 0);
}

static void run_data(lab02 *L, uint32_t n)
{
    gl_cli *c = &L->lab.cli;
    int want_sorted = gl_cli_selected(c, "data", "sorted"), want_unsorted = gl_cli_selected(c, "data", "unsorted");
    if (!want_sorted && !want_unsorted) return;
    gl_lab_heading("data", "expensive path (%d dependent FMAs) where key >> 26 < 64 p, else one FMA; "
                           "n = %u; ratio = unsorted / sorted time at the same p",
                   DATA_ITERS, n);
    if (!gl_lab_fits(&L->lab, (double)data_bytes(n, want_sorted), "data", NULL, n)) return;
    uint32_t *h_keys = (uint32_t *)gl_host_alloc((size_t)n * 4, "keys");
    uint32_t *h_sorted = (uint32_t *)gl_host_alloc((size_t)n * 4, "sorted keys");
    gl_rng r = gl_rng_seeded(c->seed, RNG_KEYS);
    for (uint32_t i = 0; i < n; i++) h_keys[i] = (uint32_t)(gl_rng_next(&r) >> 32);
    uint32_t *d_keys = (uint32_t *)gl_device_alloc((size_t)n * 4, "keys");
    uint32_t *d_sorted = (uint32_t *)gl_device_alloc((size_t)n * 4, "sorted keys");
    GL_CHECK(cudaMemcpy(d_keys, h_keys, (size_t)n * 4, cudaMemcpyHostToDevice));
    gl_arrays W; /* only the output y is used */
    gl_arrays_create(&W, n, c->seed, RNG_X);
    if (want_sorted) sort_and_check(L, d_keys, d_sorted, h_sorted, h_keys, n);
    for (size_t i = 0; i < N_DATA; i++) {
        uint32_t p64 = DATA_P64[i];
        double sorted_ms = 0;
        for (int s = 0; s < 2; s++) { /* 0: sorted (the baseline), 1: unsorted */
            if (!(s == 0 ? want_sorted : want_unsorted)) continue;
            const uint32_t *h = s == 0 ? h_sorted : h_keys;
            data_job job = {{s == 0 ? d_sorted : d_keys, W.d_y, n, p64, NULL}};
            gl_row row = gl_row_new("data", s == 0 ? "sorted" : "unsorted", n);
            row.param = p64;
            row.working_set_bytes = 8.0 * n;
            lane_model want = model_data(h, n, p64);
            measure_lanes(L, count_data, &job, &want, &row);
            gl_poison(W.d_y, (size_t)n * sizeof(float));
            gl_lab_time(&L->lab, &row, enqueue_data, &job);
            if (s == 0) sorted_ms = row.median_ms;
            row.ratio = sorted_ms > 0 ? row.median_ms / sorted_ms : NAN;
            char what[96];
            snprintf(what, sizeof what, "data/%s p=%u/64 n=%u", row.variant, p64, n);
            data_ref_ctx ref = {h, p64};
            row.checked = gl_verify_warps(W.d_y, W.h_y, n, SAMPLE_WARPS, data_ref, &ref, what);
            report(L, &row);
            L->data_ms[s][i] = row.median_ms;
            L->data_eff[s][i] = row.warp_exec_efficiency;
            L->data_div[s][i] = row.divergent_branch_fraction;
        }
    }
    gl_arrays_free(&W);
    free(h_keys);
    free(h_sorted);
    GL_CHECK(cudaFree(d_keys));
    GL_CHECK(cudaFree(d_sorted));
}

static void print_data_summary(const lab02 *L)
{
    if (L->data_ms[0][0] <= 0 || L->data_ms[1][0] <= 0) return;
    printf("\n== data: sorted beside unsorted keys\n");
    static const gl_col cols[] = {{"p", "", 6},
                                  {"sorted ms", "%.4f", 10},
                                  {"unsorted ms", "%.4f", 12},
                                  {"speedup", "%.2fx", 8},
                                  {"eff % sorted", "%.1f", 13},
                                  {"eff % unsorted", "%.1f", 15},
                                  {"div. warps sorted", "%.4f", 18},
                                  {"div. warps unsorted", "%.4f", 20}};
    const int nc = (int)(sizeof cols / sizeof cols[0]);
    gl_table_header(stdout, cols, nc);
    for (size_t i = 0; i < N_DATA; i++) {
        char label[16];
        snprintf(label, sizeof label, "%u/64", DATA_P64[i]);
        double v[] = {L->data_ms[0][i], L->data_ms[1][i], L->data_ms[1][i] / L->data_ms[0][i],
                      L->data_eff[0][i], L->data_eff[1][i], L->data_div[0][i], L->data_div[1][i]};
        gl_table_line(stdout, cols, nc, label, v);
    }
}

/* ---------------------------------------------------------------- predication */

typedef struct {
    pred_kind kind;
    pred_args args;
} pred_job;

static void enqueue_pred(void *ctx, cudaStream_t s)
{
    pred_job *j = (pred_job *)ctx;
    launch_pred(j->kind, &j->args, s);
}

static void count_pred(void *ctx, unsigned long long *counts, cudaStream_t s)
{
    pred_job j = *(pred_job *)ctx;
    j.args.counts = counts;
    launch_pred(j.kind, &j.args, s);
}

typedef struct {
    pred_kind kind;
    const float *x;
} pred_ref_ctx;

static float pred_ref(const void *ctx, uint32_t i)
{
    const pred_ref_ctx *r = (const pred_ref_ctx *)ctx;
    return ref_pred(r->kind, r->x[i], i);
}

static void run_predication(lab02 *L, uint32_t n)
{
    gl_cli *c = &L->lab.cli;
    int any = 0;
    for (size_t v = 0; v < N_PRED; v++) any |= gl_cli_selected(c, "predication", PRED_VARIANTS[v].name);
    if (!any) return;
    gl_lab_heading("predication", "x = cond ? fma(x, 1.00098, 0.25) : fma(x, -1, 0.5), %d iterations, "
                                  "n = %u; ratio: pred_* / pred_uniform, branch_divergent / branch_uniform",
                   PRED_ITERS, n);
    if (!gl_lab_fits(&L->lab, (double)gl_arrays_device_bytes(n), "predication", NULL, n)) return;
    gl_arrays W;
    gl_arrays_create(&W, n, c->seed, RNG_X);
    double ms[N_PRED] = {0};
    for (size_t v = 0; v < N_PRED; v++) {
        const pred_variant *pv = &PRED_VARIANTS[v];
        if (!gl_cli_selected(c, "predication", pv->name)) continue;
        pred_job job = {pv->kind, {W.d_x, W.d_y, n, NULL}};
        gl_row row = gl_row_new("predication", pv->name, n);
        row.working_set_bytes = 8.0 * n;
        lane_model want = model_pred(pv->kind, n);
        measure_lanes(L, count_pred, &job, &want, &row);
        gl_poison(W.d_y, (size_t)n * sizeof(float));
        gl_lab_time(&L->lab, &row, enqueue_pred, &job);
        ms[v] = row.median_ms;
        row.ratio = ms[pv->baseline] > 0 ? row.median_ms / ms[pv->baseline] : NAN;
        char what[96];
        snprintf(what, sizeof what, "predication/%s n=%u", pv->name, n);
        pred_ref_ctx ref = {pv->kind, W.h_x};
        row.checked = gl_verify_warps(W.d_y, W.h_y, n, SAMPLE_WARPS, pred_ref, &ref, what);
        report(L, &row);
    }
    gl_arrays_free(&W);
}

/* ---------------------------------------------------------------- summary */

static void print_seed_comparison(const lab02 *L)
{
    if (L->seed_ms[0] <= 0 && L->seed_ms[1] <= 0) return;
    printf("\n== the seed's table at n = %lld: Tesla K40 (from the seed document) beside this GPU (%s)\n",
           K40_SIZE, L->lab.dev.name);
    static const gl_col cols[] = {{"variant", "", 20},      {"K40 ms", "%.2f", 8},
                                  {"ours ms", "%.4f", 9},    {"K40 ratio", "%.2fx", 9},
                                  {"our ratio", "%.2fx", 9}, {"K40 eff %", "%.1f", 9},
                                  {"our eff %", "%.2f", 9},  {"expected %", "%.1f", 10}};
    const int nc = (int)(sizeof cols / sizeof cols[0]);
    gl_table_header(stdout, cols, nc);
    for (size_t v = 0; v < N_SEED; v++) {
        if (L->seed_ms[v] <= 0) continue;
        const seed_variant *sv = &SEED_VARIANTS[v];
        double vals[] = {sv->k40_ms, L->seed_ms[v], sv->k40_ms / SEED_VARIANTS[0].k40_ms,
                         L->seed_ms[0] > 0 ? L->seed_ms[v] / L->seed_ms[0] : NAN, sv->k40_efficiency,
                         L->seed_eff[v], L->seed_expected[v]};
        gl_table_line(stdout, cols, nc, sv->name, vals);
    }
    printf("(K40: nvprof warp_execution_efficiency over every instruction; ours: lanes active per\n"
           " executed branch body, counted in-program - see the handout for the difference)\n");
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    lab02 L;
    memset(&L, 0, sizeof L);
    gl_lab_parse(&L.lab, "02_divergence", &SPEC, argc, argv);
    gl_cli *c = &L.lab.cli;
    if (c->size % SEED_BLOCK) {
        fprintf(stderr, "%s: --size %lld is invalid: lab 02 needs a multiple of %d in %lld..%lld\n", PROG,
                c->size, SEED_BLOCK, SPEC.size_min, SPEC.size_max);
        return GL_EXIT_USAGE;
    }
    gl_lab_open_device(&L.lab, PROG);

    /* Sizes: the seed at 32K, at the K40's 4M, and at the first size whose arrays are >= 4x L2;
     * the other experiments at one size that fills the GPU many times over. */
    long long sizes[3];
    int n_sizes = 0;
    uint32_t work = (uint32_t)(c->size ? c->size : c->quick ? WORK_SIZE_QUICK : WORK_SIZE);
    if (c->size) sizes[n_sizes++] = c->size;
    else {
        sizes[n_sizes++] = 32768;
        sizes[n_sizes++] = K40_SIZE;
        if (!c->quick) sizes[n_sizes++] = (long long)gl_dram_elems(&L.lab.dev, sizeof(float));
    }
    /* GPU bytes: the seed's a, b and outputs (4 arrays of floats); data's keys, sorted keys,
     * output and CUB's scratch (about another n words): 5 words per element. */
    size_t need = (size_t)sizes[n_sizes - 1] * 4 * sizeof(float);
    if (need < (size_t)work * 20) need = (size_t)work * 20;
    if (need > L.lab.dev.mem_bytes) {
        fprintf(stderr, "%s: --size %lld needs %.1f GiB of GPU memory; this GPU has %.1f GiB: use a smaller --size\n",
                PROG, c->size, need / 1073741824.0, L.lab.dev.mem_bytes / 1073741824.0);
        return GL_EXIT_USAGE;
    }

    /* The copy ceiling of the report header, on arrays as large as the largest seed size (fewer
     * where they do not fit: gl_lab_ceiling_bytes); a size that does not fit is skipped with a line. */
    uint32_t big = (uint32_t)(gl_lab_ceiling_bytes(&L.lab, (size_t)sizes[n_sizes - 1] * 4) / 4);
    gl_arrays C;
    gl_arrays_create(&C, big, c->seed, RNG_A);
    gl_timing ceil_t = gl_time_memcpy(&L.lab.timer, C.d_y, C.d_x, (size_t)big * 4, &c->timing);
    double copy_gbs = gl_gbs(8.0 * big, ceil_t.ms.median);
    gl_arrays_free(&C);
    gl_lab_open_report(&L.lab, copy_gbs);
    L.lab.report.metric = GL_SHOW_EFFICIENCY;
    gl_row ceil_row = gl_row_new("ceiling", "memcpy_d2d", big);
    ceil_row.bytes = ceil_row.working_set_bytes = 8.0 * big;
    gl_lab_fill_timing(&L.lab, &ceil_row, &ceil_t);
    report(&L, &ceil_row);

    run_seed(&L, sizes, n_sizes);
    run_paths(&L, work);
    run_data(&L, work);
    run_predication(&L, work);
    run_exercises(&L, work);

    print_seed_comparison(&L);
    print_paths_summary(&L);
    print_data_summary(&L);
    printf("\nall %d measured outputs verified against the CPU reference\n", L.lab.report.rows - 1);
    gl_lab_close(&L.lab);
    return GL_EXIT_OK;
}
