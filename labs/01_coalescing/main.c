/* main.c - Lab 01: global memory coalescing.
 *
 * Experiments (run `coalescing --list`):
 *   seed    the seed's vector add (coalesced / semi-coalesced / non-coalesced), sizes across the L2
 *   groups  semi-coalesced with group sizes 1, 2, 4, ... segments: time and sectors per request
 *   stream  each element read once, working set >= 4x L2: GB/s against cudaMemcpy
 *   offset  misaligned copy, 0..32 elements
 *   stride  strided copy, 1..32 elements (still every element once)
 * Every row: counting twin (sectors/request), poisoned output, timing, exact check on the CPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "coalescing.h"
#include "exercises/exercises.h"
#include "gl_exercise.h"
#include "gl_lab.h"
#include "gl_parallel.h"
#include "gl_rng.h"
#include "gl_verify.h"

#define PROG "coalescing"
#define SEED_SIZE_MIN (1LL << 15) /* the seed's small size */
#define FULL_CHECK_MAX (1u << 20) /* larger seed outputs: every output checked written, a sample of
                                     SAMPLE_WARPS warps compared with the replayed reference */
#define SAMPLE_WARPS 32768u
#define GROUPS_SWEEP_MAX 256u /* groups: the default sweep stops here (the time's plateau: 0.3 s a launch
                                  at 2^26 on an H200), then the whole array; --all every power of two */
#define SLOW_BUDGET_MS 1000.0 /* at most this per measurement (never fewer than 3 repetitions) */

static const gl_name NAMES[] = {
    {"seed", "the seed's vector add at sizes 32K .. >= 4x L2 (variants below)"},
    {"coalesced", "  seed: C[tid] = A[tid] + B[tid], 100 times"},
    {"semi16", "  seed: each warp reads random elements of one random group of 16 segments"},
    {"noncoalesced", "  seed: each thread reads random elements of the whole array"},
    {"groups", "semi-coalesced with groups of 1, 2, 4, ... 256 segments and the whole array (--all: every power of two)"},
    {"stream", "streaming, every element read once (variants below), GB/s vs cudaMemcpy D2D"},
    {"copy", "  stream: c[i] = a[i]"},
    {"copy_vec4", "  stream: c[i] = a[i] with 16-byte float4 accesses"},
    {"copy_ilp4", "  stream: c[i] = a[i], four independent 4-byte loads per thread"},
    {"add", "  stream: c[i] = a[i] + b[i]"},
    {"offset", "copy with reads misaligned by 0..32 elements"},
    {"stride", "copy with reads strided by 1..32 elements (a permutation: each element once)"},
    {"sms", "copy, copy_vec4 and cudaMemcpy on 8, 16, ... SMs up to the whole GPU (green contexts): "
            "how many SMs saturate DRAM; not in --quick unless named"},
    {"exercises", "Your turn: your kernels in exercises/, ranked among the rungs (only when named)"},
    {"yours_transpose", "  exercises: your transpose of n/32 x 32 floats (exercises/transpose.cu)"},
};

static const gl_cli_spec SPEC = {
    .prog = PROG,
    .summary = "Lab 01: global memory coalescing (sectors per request, the L2 boundary, bandwidth)",
    .names = NAMES,
    .n_names = (int)(sizeof NAMES / sizeof NAMES[0]),
    .size_min = 1024,
    .size_max = 1LL << 30,
    .size_help = "elements (a power of two) for every experiment instead of the default sizes",
    .takes_images = 0, /* no --image / --save */
};

/* The seed's three kernels, with the K40 numbers the seed document reports for them. */
typedef struct {
    const char *name;
    seed_pattern pattern;
    uint32_t group_segments;
    double k40_ms[2];  /* at 32768 and 4194304 elements */
    double k40_tpr[2]; /* nvprof gld_transactions_per_request */
} seed_variant;

static const seed_variant SEED_VARIANTS[] = {
    {"coalesced", PAT_COALESCED, 0, {0.113, 9.89}, {1.0, 1.0}},
    {"semi16", PAT_SEMI, 16, {0.789, 221.0}, {13.4, 13.4}},
    {"noncoalesced", PAT_RANDOM, 0, {1.683, 517.0}, {30.6, 31.1}},
};
#define N_SEED_VARIANTS (sizeof SEED_VARIANTS / sizeof SEED_VARIANTS[0])
static const long long K40_SIZES[2] = {32768, 4194304};

/* The streaming kernels: bytes moved per element (reads + writes). */
typedef struct {
    const char *experiment, *name;
    stream_kind kind;
    int bytes_per_elem;
} stream_variant;

static const stream_variant STREAM_VARIANTS[] = {
    {"stream", "copy", ST_COPY, 8},
    {"stream", "copy_vec4", ST_COPY_VEC4, 8},
    {"stream", "copy_ilp4", ST_COPY_ILP4, 8},
    {"stream", "add", ST_ADD, 12},
};

/* Inputs a, b (random, on host and device; a has `a_extra` elements more) and the output c. */
typedef struct {
    uint32_t n;
    float *h_a, *h_b, *h_c;
    float *d_a, *d_b, *d_c;
} arrays;

/* The seed experiment's data: the arrays and the generators' states (one per thread, one per warp). */
typedef struct {
    arrays x;
    gl_xorwow_states index_rng, group_rng;
} seed_data;

typedef struct {
    gl_lab lab;
    double seed_ms[N_SEED_VARIANTS][2]; /* our times at K40_SIZES, for the comparison table */
    double seed_spr[N_SEED_VARIANTS][2]; /* 32-byte sectors per request */
    double seed_seg[N_SEED_VARIANTS][2]; /* 128-byte segments per request (the K40's unit) */
    double big_ratio;
    long long big_size;
    /* The seed's data and rows at the groups sweep's size, kept for it (the same data, kernels and
     * groups: measured once). */
    int kept;
    seed_data kept_data;
    gl_row kept_rows[N_SEED_VARIANTS];
    int kept_row[N_SEED_VARIANTS];
} lab01;

static int is_pow2(long long n) { return n > 0 && (n & (n - 1)) == 0; }

/* The load counts of a counting twin: requests, sectors and segments per request. */
static void measure_counts(lab01 *L, gl_count_fn fn, void *ctx, gl_row *row)
{
    unsigned long long h[3];
    gl_lab_count(&L->lab, fn, ctx, h, 3);
    row->requests = (double)h[0];
    row->sectors_per_request = h[0] ? (double)h[1] / h[0] : NAN;
    row->segments_per_request = h[0] ? (double)h[2] / h[0] : NAN;
}


static void arrays_create(arrays *D, uint32_t n, uint32_t a_extra, uint64_t seed)
{
    D->n = n;
    D->h_a = (float *)gl_host_alloc((n + a_extra) * sizeof(float), "a");
    D->h_b = (float *)gl_host_alloc(n * sizeof(float), "b");
    D->h_c = (float *)gl_host_alloc_pinned(n * sizeof(float), "c"); /* every row's output is copied back here */
    D->d_a = gl_upload_random_f32(D->h_a, n + a_extra, seed, RNG_DATA_A, "a");
    D->d_b = gl_upload_random_f32(D->h_b, n, seed, RNG_DATA_B, "b");
    D->d_c = (float *)gl_device_alloc(n * sizeof(float), "c");
}

static void arrays_free(arrays *D)
{
    free(D->h_a);
    free(D->h_b);
    gl_host_free_pinned(D->h_c);
    GL_CHECK(cudaFree(D->d_a));
    GL_CHECK(cudaFree(D->d_b));
    GL_CHECK(cudaFree(D->d_c));
}

/* ---------------------------------------------------------------- seed kernels */

typedef struct {
    seed_pattern pattern;
    seed_args args;
} seed_job;

static void enqueue_seed(void *ctx, cudaStream_t s)
{
    seed_job *j = (seed_job *)ctx;
    launch_seed(j->pattern, &j->args, s);
}

static void count_seed(void *ctx, unsigned long long *counts, cudaStream_t s)
{
    seed_job j = *(seed_job *)ctx;
    j.args.counts = counts;
    launch_seed(j.pattern, &j.args, s);
}


static void seed_data_create(seed_data *D, uint32_t n, uint64_t seed)
{
    arrays_create(&D->x, n, 0, seed);
    D->index_rng = lab_rng_create(n, seed, RNG_INDEX, 0);
    D->group_rng = lab_rng_create(n, seed, RNG_GROUP, 5); /* one state per warp */
    GL_CHECK(cudaDeviceSynchronize());
}

static void seed_data_free(seed_data *D)
{
    arrays_free(&D->x);
    lab_rng_free(&D->index_rng);
    lab_rng_free(&D->group_rng);
}

typedef struct {
    const seed_data *S;
    seed_pattern p;
    uint32_t group_elems;
    uint64_t seed;
} seed_ref_ctx;

static float seed_ref(const void *ctx, uint32_t tid)
{
    const seed_ref_ctx *r = (const seed_ref_ctx *)ctx;
    const arrays *D = &r->S->x;
    return ref_seed_output(r->p, D->h_a, D->h_b, D->n, r->group_elems, r->seed, tid);
}

/* Every output must be written; all outputs (n <= FULL_CHECK_MAX) or SAMPLE_WARPS evenly spaced
 * warps are compared bit for bit with the CPU replay. Returns the number compared. */
static long long verify_seed(const seed_data *S, seed_pattern p, uint32_t group_elems, uint64_t seed,
                             const char *what)
{
    seed_ref_ctx ctx = {S, p, group_elems, seed};
    uint32_t n = S->x.n;
    return gl_verify_warps(S->x.d_c, S->x.h_c, n, n <= FULL_CHECK_MAX ? 0 : SAMPLE_WARPS, seed_ref, &ctx, what);
}

static gl_row measure_seed(lab01 *L, seed_data *D, const char *experiment, const char *variant,
                           seed_pattern p, uint32_t group_segments, double base_ms)
{
    uint32_t n = D->x.n;
    uint32_t group_elems = p == PAT_SEMI ? group_segments * SEGMENT_FLOATS : n;
    seed_job job = {p, {D->x.d_a, D->x.d_b, D->x.d_c, n, D->index_rng, D->group_rng, group_elems,
                        n / group_elems, NULL}};
    gl_row row = gl_row_new(experiment, variant, n);
    if (p == PAT_SEMI) row.param = group_segments;
    row.working_set_bytes = 3.0 * n * 4 + (p == PAT_COALESCED ? 0 : (p == PAT_SEMI ? 2 : 1) * 24.0 * n);
    measure_counts(L, count_seed, &job, &row);
    row.expected_sectors_per_request = model_seed_sectors(p, n, group_elems, 32);
    row.expected_segments_per_request = model_seed_sectors(p, n, group_elems, 128);
    gl_poison(D->x.d_c, n * sizeof(float));
    gl_lab_time(&L->lab, &row, enqueue_seed, &job);
    row.ratio = base_ms > 0 ? row.median_ms / base_ms : NAN;
    char what[96];
    snprintf(what, sizeof what, "%s/%s n=%u param=%lld", experiment, variant, n, row.param);
    row.checked = verify_seed(D, p, group_elems, L->lab.cli.seed, what);
    gl_report_row(&L->lab.report, &row);
    return row;
}

static int seed_selected(const gl_cli *c)
{
    int any = 0;
    for (size_t v = 0; v < N_SEED_VARIANTS; v++) any |= gl_cli_selected(c, "seed", SEED_VARIANTS[v].name);
    return any;
}

/* GPU bytes for n elements: the streaming arrays (a has MAX_OFFSET more), and when the seed or
 * groups experiments run, their arrays and two generators' states. */
static size_t seed_bytes(uint64_t n) { return (size_t)(n * (3 * 4 + 2 * GL_XORWOW_WORDS * 4)); }

static size_t device_bytes(const gl_cli *c, uint64_t n)
{
    size_t stream = (size_t)(3 * n + MAX_OFFSET) * 4;
    size_t seed = seed_bytes(n);
    return seed_selected(c) || gl_cli_selected(c, "groups", NULL) ? stream + seed : stream;
}

/* groups_n: the groups sweep's size when it runs (0: it does not): the seed's data and rows at
 * that size are kept for it (L->kept). */
static void run_seed_experiment(lab01 *L, const long long *sizes, int n_sizes, long long groups_n)
{
    gl_cli *c = &L->lab.cli;
    if (!seed_selected(c)) return;
    gl_lab_heading("seed", "vector add, %d iterations, %d threads/block; the two inputs fill the L2 at "
                           "n = %zu", SEED_ITERS, SEED_BLOCK, L->lab.dev.l2_bytes / 8);
    for (int s = 0; s < n_sizes; s++) {
        if (!gl_lab_fits(&L->lab, (double)seed_bytes((uint64_t)sizes[s]), "seed", NULL, sizes[s])) continue;
        seed_data D;
        seed_data_create(&D, (uint32_t)sizes[s], c->seed);
        double base = 0;
        for (size_t v = 0; v < N_SEED_VARIANTS; v++) {
            const seed_variant *sv = &SEED_VARIANTS[v];
            if (!gl_cli_selected(c, "seed", sv->name)) continue;
            gl_row r = measure_seed(L, &D, "seed", sv->name, sv->pattern, sv->group_segments, base);
            if (sv->pattern == PAT_COALESCED) base = r.median_ms;
            for (int k = 0; k < 2; k++)
                if (sizes[s] == K40_SIZES[k]) {
                    L->seed_ms[v][k] = r.median_ms;
                    L->seed_spr[v][k] = r.sectors_per_request;
                    L->seed_seg[v][k] = r.segments_per_request;
                }
            if (sv->pattern == PAT_RANDOM && base > 0) {
                L->big_ratio = r.ratio;
                L->big_size = sizes[s];
            }
            if (sizes[s] == groups_n) L->kept_rows[v] = r, L->kept_row[v] = 1;
        }
        if (sizes[s] == groups_n) L->kept_data = D, L->kept = 1;
        else seed_data_free(&D);
    }
}

/* A row of the seed experiment at the groups' size, reported again under "groups"; 0 if none. */
static int report_kept(lab01 *L, seed_pattern p, uint32_t group_segments, gl_row *row)
{
    for (size_t v = 0; v < N_SEED_VARIANTS; v++)
        if (L->kept_row[v] && SEED_VARIANTS[v].pattern == p && SEED_VARIANTS[v].group_segments == group_segments) {
            *row = L->kept_rows[v];
            row->experiment = "groups";
            row->variant = p == PAT_SEMI ? "semi" : SEED_VARIANTS[v].name;
            gl_report_row(&L->lab.report, row);
            return 1;
        }
    return 0;
}

static void run_groups_experiment(lab01 *L, uint32_t n)
{
    gl_cli *c = &L->lab.cli;
    if (!gl_cli_selected(c, "groups", NULL)) return;
    const uint32_t whole = n / SEGMENT_FLOATS;
    if (c->all)
        gl_lab_heading("groups", "semi-coalesced, n = %u, group = every power of two from 1 to %u segments of 128 bytes",
                       n, whole);
    else
        gl_lab_heading("groups", "semi-coalesced, n = %u, group = 1 .. %u and the whole array, %u segments of 128 bytes",
                       n, GROUPS_SWEEP_MAX, whole);
    if (L->kept) printf("(coalesced and semi 16: the seed experiment's rows at this size, the same data and kernels)\n");
    seed_data D;
    if (L->kept) D = L->kept_data, L->kept = 0;
    else seed_data_create(&D, n, c->seed);
    gl_row base;
    if (!report_kept(L, PAT_COALESCED, 0, &base)) base = measure_seed(L, &D, "groups", "coalesced", PAT_COALESCED, 0, 0);
    for (uint32_t g = 1; g <= whole; g *= 2) {
        gl_row row;
        if ((c->all || g <= GROUPS_SWEEP_MAX || g == whole) && !report_kept(L, PAT_SEMI, g, &row))
            measure_seed(L, &D, "groups", "semi", PAT_SEMI, g, base.median_ms);
    }
    seed_data_free(&D);
}

/* ---------------------------------------------------------------- streaming kernels */

typedef struct {
    stream_kind kind;
    stream_args args;
} stream_job;

static void enqueue_stream(void *ctx, cudaStream_t s)
{
    stream_job *j = (stream_job *)ctx;
    launch_stream(j->kind, &j->args, s);
}

static void count_stream(void *ctx, unsigned long long *counts, cudaStream_t s)
{
    stream_job j = *(stream_job *)ctx;
    j.args.counts = counts;
    launch_stream(j.kind, &j.args, s);
}

/* Every output element is compared bit for bit with the input element it must be (the sum). */
static long long verify_stream(const arrays *D, stream_kind k, uint32_t param, const char *what)
{
    uint32_t n = D->n;
    GL_CHECK(cudaMemcpy(D->h_c, D->d_c, n * sizeof(float), cudaMemcpyDeviceToHost));
    float *want = (float *)gl_host_alloc(n * sizeof(float), "check");
    GL_PARALLEL_FOR /* each expected element on its own, on every core */
    for (uint32_t i = 0; i < n; i++) {
        float x = D->h_a[ref_stream_source(k, n, param, i)];
        want[i] = k == ST_ADD ? x + D->h_b[i] : x;
    }
    gl_require_match(what, gl_compare_exact_f32(what, D->h_c, want, NULL, n), n);
    free(want);
    return n;
}

static gl_row measure_stream(lab01 *L, arrays *D, const char *experiment, const char *variant,
                             stream_kind k, uint32_t param, int bytes_per_elem, double base_ms)
{
    uint32_t n = D->n;
    stream_job job = {k, {D->d_a, D->d_b, D->d_c, n, param, 0, NULL}};
    gl_row row = gl_row_new(experiment, variant, n);
    if (k == ST_OFFSET || k == ST_STRIDE) row.param = param;
    row.bytes = row.working_set_bytes = (double)bytes_per_elem * n;
    measure_counts(L, count_stream, &job, &row);
    row.expected_sectors_per_request = model_stream_sectors(k, n, param, 32);
    row.expected_segments_per_request = model_stream_sectors(k, n, param, 128);
    gl_poison(D->d_c, n * sizeof(float));
    gl_lab_time(&L->lab, &row, enqueue_stream, &job);
    row.ratio = base_ms > 0 ? row.median_ms / base_ms : NAN;
    char what[96];
    snprintf(what, sizeof what, "%s/%s n=%u param=%u", experiment, variant, n, param);
    row.checked = verify_stream(D, k, param, what);
    gl_report_row(&L->lab.report, &row);
    return row;
}

static void run_stream_experiments(lab01 *L, arrays *D)
{
    gl_cli *c = &L->lab.cli;
    double base = 0;
    int header = 0;
    for (size_t v = 0; v < sizeof STREAM_VARIANTS / sizeof STREAM_VARIANTS[0]; v++) {
        const stream_variant *sv = &STREAM_VARIANTS[v];
        if (!gl_cli_selected(c, sv->experiment, sv->name)) continue;
        if (!header++) {
            gl_lab_heading("stream", "every element read once, n = %u", D->n);
            gl_lab_note_working_set(&L->lab, 8.0 * D->n);
        }
        gl_row r = measure_stream(L, D, sv->experiment, sv->name, sv->kind, 0, sv->bytes_per_elem, base);
        if (sv->kind == ST_COPY) base = r.median_ms;
    }
    if (gl_cli_selected(c, "offset", "copy_offset")) {
        gl_lab_heading("offset", "copy reading a[i + offset], n = %u", D->n);
        base = 0;
        for (uint32_t off = 0; off <= MAX_OFFSET; off++) {
            gl_row r = measure_stream(L, D, "offset", "copy_offset", ST_OFFSET, off, 8, base);
            if (off == 0) base = r.median_ms;
        }
    }
    if (gl_cli_selected(c, "stride", "copy_stride")) {
        gl_lab_heading("stride", "copy reading with stride s (each element once), n = %u", D->n);
        base = 0;
        for (uint32_t s = 1; s <= MAX_STRIDE; s++) {
            gl_row r = measure_stream(L, D, "stride", "copy_stride", ST_STRIDE, s, 8, base);
            if (s == 1) base = r.median_ms;
        }
    }
}

/* ---------------------------------------------------------------- sms */

typedef struct {
    lab01 *L;
    arrays *D;
} sms_ctx;

/* One SM count of the sweep: the two copy kernels and cudaMemcpy (does it follow the green
 * context, or run on copy engines?); % of memcpy against the run's own ceiling. */
static void sms_step(void *ctx)
{
    sms_ctx *x = (sms_ctx *)ctx;
    measure_stream(x->L, x->D, "sms", "copy", ST_COPY, 0, 8, 0);
    measure_stream(x->L, x->D, "sms", "copy_vec4", ST_COPY_VEC4, 0, 8, 0);
    gl_lab *lab = &x->L->lab;
    size_t bytes = (size_t)x->D->n * sizeof(float);
    gl_timing t = gl_time_memcpy(&lab->timer, x->D->d_c, x->D->d_a, bytes, &lab->cli.timing);
    gl_row row = gl_row_new("sms", "memcpy_d2d", x->D->n);
    row.bytes = row.working_set_bytes = 2.0 * bytes;
    gl_lab_fill_timing(lab, &row, &t);
    gl_report_row(&lab->report, &row);
}

static void run_sms_sweep(lab01 *L, arrays *D)
{
    if (!gl_cli_selected_sweep(&L->lab.cli, "sms")) return;
    gl_lab_heading("sms", "copy and copy_vec4 (n = %u) on every SM count this GPU gives; the L2 and DRAM "
                          "stay the whole GPU's", D->n);
    gl_lab_note_working_set(&L->lab, 8.0 * D->n);
    sms_ctx x = {L, D};
    gl_lab_sms_sweep(&L->lab, NULL, 0, sms_step, &x);
}

/* ---------------------------------------------------------------- exercises (Your turn) */

static const gl_exercise EX_TRANSPOSE = {"yours_transpose", "exercises/transpose.cu"};

typedef struct {
    arrays *D;
    transpose_args args;
    float *want;
} transpose_ex;

GL_EXERCISE_CALLBACKS(ex_transpose, transpose_ex, transpose_args, launch_yours_transpose)

static void ex_transpose_poison(void *ctx) { gl_poison(((transpose_ex *)ctx)->D->d_c, ((transpose_ex *)ctx)->D->n * 4); }

/* Output (x, y) = out[y * rows + x] must be in[x * 32 + y], bit for bit. */
static long long ex_transpose_verify(void *ctx, const char *what)
{
    transpose_ex *x = (transpose_ex *)ctx;
    return gl_exercise_verify_f32(what, x->D->d_c, x->D->h_c, x->want, x->args.rows, TRANSPOSE_COLS, 0);
}

/* The student's transpose, ranked among the stride experiment's rungs for s = 32 and the copy. */
static void run_exercises(lab01 *L, arrays *D)
{
    if (!gl_exercise_selected(&L->lab.cli, EX_TRANSPOSE.variant)) return;
    uint32_t n = D->n;
    gl_lab_heading("exercises", "your transpose (%s) of %u x %d floats: the task of copy_stride at s = %d",
                   EX_TRANSPOSE.file, n / TRANSPOSE_COLS, TRANSPOSE_COLS, TRANSPOSE_COLS);
    gl_row strided = measure_stream(L, D, "exercises", "copy_stride", ST_STRIDE, TRANSPOSE_COLS, 8, 0);
    gl_row copy = measure_stream(L, D, "exercises", "copy", ST_COPY, 0, 8, 0);
    transpose_ex x = {D, {D->d_a, D->d_c, n / TRANSPOSE_COLS, NULL}, (float *)gl_host_alloc(n * 4, "want")};
    for (uint32_t i = 0; i < n; i++) x.want[i] = D->h_a[ref_stream_source(ST_STRIDE, n, TRANSPOSE_COLS, i)];
    gl_exercise_job j = {&EX_TRANSPOSE, ex_transpose_run, ex_transpose_count, &x, ex_transpose_poison,
                         ex_transpose_verify};
    gl_row row = gl_row_new("exercises", EX_TRANSPOSE.variant, n);
    row.param = TRANSPOSE_COLS;
    row.bytes = row.working_set_bytes = 8.0 * n;
    unsigned long long h[3];
    gl_exercise_measure(&L->lab, &j, &row, h, 3);
    gl_exercise_load_counts(&row, h);
    row.ratio = row.median_ms / strided.median_ms;
    gl_report_row(&L->lab.report, &row);
    free(x.want);
    gl_rung rungs[] = {{"copy_stride s=32", strided.median_ms}, {"copy", copy.median_ms},
                       {"cudaMemcpy", 8.0 * n / (L->lab.report.copy_gbs * 1e6)}};
    char metrics[64];
    snprintf(metrics, sizeof metrics, "%.2f sectors/request", row.sectors_per_request);
    gl_exercise_rank(EX_TRANSPOSE.variant, row.median_ms, metrics, &(gl_rank_key){"ms", 0}, rungs, 3);
}

/* ---------------------------------------------------------------- summary */

static void print_seed_comparison(const lab01 *L)
{
    int measured = 0;
    for (size_t v = 0; v < N_SEED_VARIANTS; v++) measured |= L->seed_ms[v][0] > 0 || L->seed_ms[v][1] > 0;
    if (!measured && L->big_size == 0) return;
    printf("\n== the seed's table: Tesla K40 (from the seed document) beside this GPU (%s)\n",
           L->lab.dev.name);
    static const gl_col cols[] = {{"size variant", "", 22},  {"K40 ms", "%.3f", 9},
                                  {"ours ms", "%.4f", 9},     {"K40 ratio", "%.1fx", 9},
                                  {"our ratio", "%.1fx", 9},  {"K40 tx/rq", "%.1f", 9},
                                  {"our seg/rq", "%.2f", 10}, {"our sect/rq", "%.2f", 11}};
    const int nc = (int)(sizeof cols / sizeof cols[0]);
    gl_table_header(stdout, cols, nc);
    for (int k = 0; k < 2; k++)
        for (size_t v = 0; v < N_SEED_VARIANTS; v++) {
            double ours = L->seed_ms[v][k], our_base = L->seed_ms[0][k];
            if (ours <= 0) continue;
            const seed_variant *sv = &SEED_VARIANTS[v];
            char label[64];
            snprintf(label, sizeof label, "%lld %s", K40_SIZES[k], sv->name);
            double vals[] = {sv->k40_ms[k], ours, sv->k40_ms[k] / SEED_VARIANTS[0].k40_ms[k],
                             our_base > 0 ? ours / our_base : NAN, sv->k40_tpr[k], L->seed_seg[v][k],
                             L->seed_spr[v][k]};
            gl_table_line(stdout, cols, nc, label, vals);
        }
    printf("(K40 'transactions' are nvprof gld_transactions_per_request, 128-byte segments on Kepler:\n"
           " compare them with our 128-byte segments per request; our 32-byte sectors per request are\n"
           " what Nsight Compute reports today. Counted in-program, state loads included: see the handout)\n");
    if (L->big_size > 0)
        printf("non-coalesced / coalesced at n = %lld (%.0f MiB per array): %.1fx\n", L->big_size,
               L->big_size * 4.0 / 1048576.0, L->big_ratio);
}

/* ---------------------------------------------------------------- main */

int main(int argc, char **argv)
{
    lab01 L;
    memset(&L, 0, sizeof L);
    gl_lab_parse(&L.lab, "01_coalescing", &SPEC, argc, argv);
    gl_cli *c = &L.lab.cli;
    if (c->size && !is_pow2(c->size)) {
        fprintf(stderr, "%s: --size %lld is invalid: lab 01 needs a power of two in %lld..%lld\n", PROG,
                c->size, SPEC.size_min, SPEC.size_max);
        return GL_EXIT_USAGE;
    }
    /* The random-access kernels at DRAM sizes take 0.2-0.43 s a launch and vary by 0.01-0.1%
     * (min to max, the committed H100 run): 3 repetitions (the floor) say as much as 4-5. */
    c->timing.budget_ms = fmin(c->timing.budget_ms, SLOW_BUDGET_MS);
    gl_lab_open_device(&L.lab, PROG);

    /* Sizes: the seed's sweep spans the L2 up to the first size whose arrays are >= 4x L2. */
    uint32_t dram_n = (uint32_t)gl_dram_elems(&L.lab.dev, sizeof(float));
    uint32_t big = c->size ? (uint32_t)c->size : c->quick ? (1u << 20) : dram_n;
    long long sizes[32];
    int n_sizes = 0;
    if (c->size) sizes[n_sizes++] = c->size;
    else if (c->quick) {
        sizes[n_sizes++] = SEED_SIZE_MIN;
        sizes[n_sizes++] = 1 << 20;
    } else
        for (long long n = SEED_SIZE_MIN; n <= dram_n; n *= 2) sizes[n_sizes++] = n;
    size_t free_b = gl_lab_free_bytes(&L.lab), spare = GL_LAB_SPARE_BYTES;
    while (!c->size && big > (1u << 20) && device_bytes(c, big) + spare > free_b) {
        big /= 2; /* the default size on a small card: say so */
        printf("note: %.1f MiB of device memory free: the streaming arrays shrink to %u elements\n",
               free_b / 1048576.0, big);
    }
    size_t need = device_bytes(c, big);
    if (need + spare > free_b) {
        fprintf(stderr, "%s: --size %u needs %.1f GiB of GPU memory for the selected experiments; "
                        "%.1f GiB free: use a smaller --size\n",
                PROG, big, need / 1073741824.0, free_b / 1073741824.0);
        return GL_EXIT_USAGE;
    }

    /* The bandwidth ceiling, measured on the streaming experiment's own arrays. */
    arrays S; /* the streaming experiments' arrays; a has MAX_OFFSET extra elements */
    arrays_create(&S, big, MAX_OFFSET, c->seed);
    gl_timing ceil_t = gl_time_memcpy(&L.lab.timer, S.d_c, S.d_a, (size_t)big * 4, &c->timing);
    double copy_gbs = gl_gbs(8.0 * big, ceil_t.ms.median);
    gl_lab_open_report(&L.lab, copy_gbs);
    gl_row ceil_row = gl_row_new("ceiling", "memcpy_d2d", big);
    ceil_row.bytes = ceil_row.working_set_bytes = 8.0 * big;
    gl_lab_fill_timing(&L.lab, &ceil_row, &ceil_t);
    gl_report_row(&L.lab.report, &ceil_row);
    gl_lab_note_working_set(&L.lab, 8.0 * big);

    run_stream_experiments(&L, &S);
    run_sms_sweep(&L, &S);
    run_exercises(&L, &S);
    arrays_free(&S);
    run_seed_experiment(&L, sizes, n_sizes, gl_cli_selected(c, "groups", NULL) ? (long long)big : 0);
    run_groups_experiment(&L, big);
    print_seed_comparison(&L);

    printf("\nall %d measured outputs verified against the CPU reference\n", L.lab.report.rows - 1);
    gl_lab_close(&L.lab);
    return GL_EXIT_OK;
}
