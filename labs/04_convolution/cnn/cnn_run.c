/* cnn_run.c - Lab 04, part 2: the `cnn` experiment. For every configuration (the seed's tables,
 * batches of E3, one large layer): random x and w, the CPU reference (the whole output when it
 * takes under a few seconds, else 8192 sampled outputs), then each variant: poison, run, check
 * within its class's error bound, time, check again. The variants are the rows of the table in
 * cnn_variants.c, run in its order. All are timed the same way: a CUDA graph of back-to-back
 * calls between two events; a peer's (cuDNN's) algorithm is the fastest of its candidates that
 * stay within the bound; a row with several tile configurations runs the one a small autotuner
 * chose for the shape (each configuration verified and timed once, outside the reported rows). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cnn_run.h"

#define FULL_REFERENCE_MACS 3e8 /* above this, the reference computes 8192 sampled outputs */
#define SAMPLES 8192
#define CNN_MAG_KINDS 2 /* kinds of magnitude sums per run (Winograd F(2x2) and F(4x4)) */
#define RNG_CNN_X 41
#define RNG_CNN_W 42
#define RNG_CNN_SAMPLES 43

typedef struct {
    const char *name; /* as --only spells it */
    const char *seed_name;
    int N, H, R, M, C;
    int quick, seed10; /* in --quick; one of the seed's ten configurations */
    double rtx3060_fused_ms, rtx3060_split_ms, rtx3060_cpu_ms; /* the seed's figures, NAN if none */
} cnn_config;

/* The seed's configurations (name, H, R, M, C), the E3 batches and one large layer. */
static const cnn_config CONFIGS[] = {
    {"T3A", "T3-1x1 A", 1, 7, 1, 256, 832, 0, 1, NAN, NAN, NAN},
    {"T3B", "T3-1x1 B", 1, 14, 1, 1024, 256, 0, 1, NAN, NAN, NAN},
    {"T3C", "T3-1x1 C", 1, 27, 1, 256, 64, 1, 1, NAN, NAN, NAN},
    {"T4A", "T4-3x3 A", 1, 4, 3, 384, 192, 1, 1, 0.715, 1.751, 167},
    {"T4B", "T4-3x3 B", 1, 13, 3, 384, 384, 0, 1, 1.355, 2.634, 4570},
    {"T5A", "T5-5x5 A", 1, 7, 5, 128, 48, 1, 1, 0.700, 1.700, 121},
    {"T5A_C348", "T5-5x5 A, C = 348 (the seed's code listing)", 1, 7, 5, 128, 348, 0, 0, NAN, NAN, NAN},
    {"E1", "E1", 1, 32, 3, 64, 64, 1, 1, NAN, NAN, NAN},
    {"E2", "E2", 1, 32, 3, 128, 128, 0, 1, NAN, NAN, NAN},
    {"E3", "E3", 1, 64, 3, 128, 128, 0, 1, NAN, NAN, NAN},
    {"E4", "E4", 1, 64, 3, 256, 256, 0, 1, 16.3, NAN, 154838},
    {"E3_N8", "E3, batch 8", 8, 64, 3, 128, 128, 0, 0, NAN, NAN, NAN},
    {"E3_N32", "E3, batch 32", 32, 64, 3, 128, 128, 0, 0, NAN, NAN, NAN},
    {"L56", "a large layer: 56 x 56, C = M = 256, 3x3", 1, 56, 3, 256, 256, 0, 0, NAN, NAN, NAN},
};
#define N_CONFIGS (int)(sizeof CONFIGS / sizeof CONFIGS[0])

const char *cnn_config_name(int i) { return i >= 0 && i < N_CONFIGS ? CONFIGS[i].name : NULL; }
int cnn_config_count(void) { return N_CONFIGS; }
int cnn_row_count(void) { return cnn_variant_count(); }
const char *cnn_row_name(int v) { return v >= 0 && v < cnn_variant_count() ? cnn_variant_at(v)->name : NULL; }

#define MAX_VARIANTS 48

/* The roofs of this run (GFLOP/s per class, NAN where unknown), from the SM clock measured at the
 * start of the experiment; the memory roof is the lab's copy_gbs (its cudaMemcpy D2D). */
static double g_peak[CNN_CLASSES];

typedef struct {
    const float *x, *w;
    float *y;
    cnn_shape s;
    int v, tile;
    void *ws;
    size_t ws_bytes;
} cnn_job;

static void enqueue_cnn(void *ctx, cudaStream_t st)
{
    cnn_job *j = (cnn_job *)ctx;
    const cnn_shape *s = &j->s;
    cnn_status r = cnn_forward(j->x, j->w, j->y, s->N, s->C, s->H, s->W, s->M, s->R, s->S, s->pad_h, s->pad_w,
                               s->stride_h, s->stride_w, s->dil_h, s->dil_w, s->groups, j->v, j->tile, j->ws,
                               j->ws_bytes, st);
    if (r != CNN_OK) {
        fprintf(stderr, "cnn_forward(%s) refused a supported shape: %s\n", cnn_variant_at(j->v)->name,
                cnn_status_name(r));
        exit(GL_EXIT_FAIL);
    }
}

typedef struct {
    cnn_shape s;
    size_t n, *index; /* index == NULL: all outputs */
    double *ref, *abs_sum;
    cnn_magnitude_fn mag_fn[CNN_MAG_KINDS]; /* the rows' other magnitude sums (Winograd's), NULL if none */
    double *mag[CNN_MAG_KINDS];
} reference;

/* Compare y (all outputs or the sampled ones) with the reference: |y - ref| <= bound(sum |x w|),
 * the variant's bound (its class's: FP32 16 FLT_EPSILON sqrt(C R S) sum |x w|, float rounding
 * over C R S terms in any order). Returns the outputs outside the bound; with `fatal`, prints the
 * first and exits 1 if any. */
static long long check_outputs(const float *d_y, size_t total, const reference *ref, cnn_bound_fn bound,
                               const char *what, gl_row *row, int fatal)
{
    float *h = (float *)gl_host_alloc_pinned(total * sizeof(float), "cnn output"); /* kept for the next check */
    GL_CHECK(cudaMemcpy(h, d_y, total * sizeof(float), cudaMemcpyDeviceToHost));
    long long bad = 0;
    double worst_abs = 0, worst_ratio = 0;
    for (size_t i = 0; i < ref->n; i++) {
        size_t o = ref->index ? ref->index[i] : i;
        double err = fabs((double)h[o] - ref->ref[i]), b = bound(&ref->s, ref->abs_sum[i]);
        double ratio = err / b;
        if (!(err <= b)) { /* NaN (never written) fails too */
            if (fatal && bad < GL_MAX_MISMATCH_LINES)
                fprintf(stderr, "  %s: output %zu: got %.9g, reference %.9g, |error| %.3g > bound %.3g\n", what, o,
                        h[o], ref->ref[i], err, b);
            bad++;
        }
        if (err > worst_abs) worst_abs = err;
        if (ratio > worst_ratio) worst_ratio = ratio;
    }
    if (fatal) gl_require_match(what, bad, (long long)ref->n);
    row->max_abs_error = worst_abs;
    row->max_error_over_bound = worst_ratio;
    row->checked = (long long)ref->n;
    gl_host_free_pinned(h);
    return bad;
}

typedef struct {
    double cpu_ms;
    double ms[MAX_VARIANTS]; /* NAN: not run */
    int tile[MAX_VARIANTS];  /* the autotuner's choice */
    const char *algo;        /* the peer's kept algorithm */
} config_result;

/* A reference's time as a row, variant NAME@CONFIG: cpu (one core, the naive loop nest in double:
 * the seed's CPU peer) or cpu_all_cores (the same outputs shared among this machine's cores). */
static void report_cpu(gl_lab *L, int ci, const char *name, double ms, const cnn_shape *s, size_t ny)
{
    char variant[64];
    snprintf(variant, sizeof variant, "%s@%s", name, CONFIGS[ci].name);
    gl_row row = gl_row_new("cnn", variant, (long long)ny);
    row.param = ci;
    row.reps = 1;
    row.batch = 1;
    row.median_ms = row.min_ms = row.max_ms = ms;
    row.gflops = cnn_flops(s) / (ms * 1e6);
    row.checked = (long long)ny;
    gl_report_row(&L->report, &row);
}

/* cuDNN runs only on the whole GPU: in a green context (--sms) its outputs were NaN (cuDNN 9.14,
 * driver 580, 16 SMs of an H100 and of an H200, T4A; our kernels verified in the same runs). */
static int peers_usable(const gl_lab *L) { return L->part.green == NULL; }

/* The reference for configuration ci: every output (timed: the cpu rows), or sampled outputs. */
static void make_reference(gl_lab *L, int ci, const float *hx, const float *hw, reference *ref, double *cpu_ms)
{
    const cnn_shape *s = &ref->s;
    size_t ny = (size_t)s->N * s->M * s->H * s->W;
    const double macs = (double)ny * s->C * s->R * s->S;
    int full = macs <= FULL_REFERENCE_MACS;
    ref->n = ny;
    ref->index = NULL;
    if (!full) {
        ref->n = SAMPLES;
        ref->index = (size_t *)gl_host_alloc(SAMPLES * sizeof(size_t), "samples");
        gl_rng r = gl_rng_seeded(L->cli.seed + (uint64_t)ci, RNG_CNN_SAMPLES);
        for (size_t i = 0; i < SAMPLES; i++) ref->index[i] = (size_t)(gl_rng_next(&r) % ny);
    }
    ref->ref = (double *)gl_host_alloc(ref->n * sizeof(double), "reference");
    ref->abs_sum = (double *)gl_host_alloc(ref->n * sizeof(double), "sum |x w|");
    double t0 = gl_wall_ms();
    cnn_reference_all_cores(hx, hw, s, ref->index, ref->n, ref->ref, ref->abs_sum);
    double cpu_all_ms = gl_wall_ms() - t0;
    *cpu_ms = NAN;
    if (!full) return;
    /* the seed's CPU peer: the same loop nest on one core, which must give the same bits */
    double *one = (double *)gl_host_alloc(2 * ref->n * sizeof(double), "one-core reference"); /* + sums */
    t0 = gl_wall_ms();
    cnn_reference(hx, hw, s, NULL, ref->n, one, one + ref->n);
    *cpu_ms = gl_wall_ms() - t0;
    if (memcmp(one, ref->ref, ref->n * sizeof(double))) {
        fprintf(stderr, "VERIFICATION FAILED: cnn %s: the reference on all cores differs from the one-core one\n",
                CONFIGS[ci].name);
        exit(GL_EXIT_FAIL);
    }
    free(one);
    report_cpu(L, ci, "cpu", *cpu_ms, s, ny);
    report_cpu(L, ci, "cpu_all_cores", cpu_all_ms, s, ny);
}

/* The slot of magnitude-sum kind fn in ref (a free one when it is not there yet), -1 when full. */
static int magnitude_slot(const reference *ref, cnn_magnitude_fn fn)
{
    for (int k = 0; k < CNN_MAG_KINDS; k++)
        if (!ref->mag_fn[k] || ref->mag_fn[k] == fn) return k;
    return -1;
}

/* The magnitude sums of the rows that bring their own (up to CNN_MAG_KINDS kinds per run: Winograd
 * F(2x2) and F(4x4)), for the reference's outputs; rows with a further kind are refused. */
static void make_magnitudes(const float *hx, const float *hw, reference *ref)
{
    for (int k = 0; k < CNN_MAG_KINDS; k++) ref->mag_fn[k] = NULL, ref->mag[k] = NULL;
    for (int v = 0; v < cnn_variant_count(); v++) {
        const cnn_variant_row *row = cnn_variant_at(v);
        if (!row->magnitudes || (row->supports && !row->supports(&ref->s))) continue;
        const int k = magnitude_slot(ref, row->magnitudes);
        if (k < 0) {
            fprintf(stderr, "cnn: variant %s: more than %d kinds of magnitude sums are not supported\n", row->name,
                    CNN_MAG_KINDS);
            exit(GL_EXIT_FAIL);
        }
        if (ref->mag_fn[k]) continue;
        ref->mag_fn[k] = row->magnitudes;
        ref->mag[k] = (double *)gl_host_alloc(ref->n * sizeof(double), "magnitude sums");
        row->magnitudes(hx, hw, &ref->s, ref->index, ref->n, ref->mag[k]);
    }
}

/* Poison the row's outputs: y, and its own output when it writes one (cnn_own_output). */
static void poison_outputs(const cnn_job *job, size_t ny)
{
    gl_poison(job->y, ny * sizeof(float));
    const cnn_own_output *own = cnn_variant_at(job->v)->own_output;
    size_t bytes = 0;
    if (own) gl_poison(own->buffer(&job->s, job->ws, &bytes), bytes);
}

/* After a run: a row with its own output turns it into y for the check (untimed); then wait. */
static void finish_outputs(gl_lab *L, const cnn_job *job)
{
    const cnn_own_output *own = cnn_variant_at(job->v)->own_output;
    if (own) {
        const cnn_launch_args a = {job->x, job->w, job->y, job->s, job->ws, job->ws_bytes, job->tile};
        own->to_y(&a, L->timer.stream);
    }
    GL_CHECK(cudaStreamSynchronize(L->timer.stream));
}

/* One run on poisoned output, checked: the outputs outside the bound (with `fatal`, any exits 1). */
static long long run_checked(gl_lab *L, cnn_job *job, size_t ny, const reference *ref, cnn_bound_fn bound,
                             const char *what, gl_row *row, int fatal)
{
    poison_outputs(job, ny);
    enqueue_cnn(job, L->timer.stream);
    finish_outputs(L, job);
    return check_outputs(job->y, ny, ref, bound, what, row, fatal);
}

/* The same, fatal: the output of `job` is right before it is timed. */
static void run_and_check(gl_lab *L, cnn_job *job, size_t ny, const reference *ref, cnn_bound_fn bound,
                          const char *what, gl_row *row)
{
    run_checked(L, job, ny, ref, bound, what, row, 1);
}

#define TUNE_REPS 3 /* a candidate's timing: one warm-up, then this many graph replays (each >= 0.5 ms) */

/* The short timing of a candidate (ours: a tile; a peer's: an algorithm): at most one warm-up and
 * TUNE_REPS repetitions; the winner is timed again with the run's full rule. */
static gl_time_opts candidate_opts(const gl_lab *L)
{
    gl_time_opts brief = L->cli.timing;
    brief.warmup = brief.warmup < 1 ? brief.warmup : 1;
    brief.reps = brief.reps < TUNE_REPS ? brief.reps : TUNE_REPS;
    return brief;
}

/* A peer: every candidate whose output is within the bound (FFT and Winograd can round more than
 * a direct sum), timed short as our tile candidates are; the fastest is kept (selected again with
 * `use`) and timed with the full rule. Exits 1 if none. */
static void time_peer(gl_lab *L, const cnn_variant_row *v, cnn_job *job, size_t ny, const reference *ref,
                      const char *what, gl_row *row, const char **algo)
{
    gl_row best = *row;
    int best_i = -1;
    double best_ms = INFINITY;
    const gl_time_opts brief = candidate_opts(L);
    for (int a = 0; a < v->peer->candidates(); a++) {
        const char *name = v->peer->use(a);
        gl_row t = *row;
        if (run_checked(L, job, ny, ref, cnn_variant_bound(v), what, &t, 0)) {
            printf("note: %s: %s %s left out: %.3g x the error bound\n", what, v->name, name, t.max_error_over_bound);
            continue;
        }
        const gl_timing tm = gl_time(&L->timer, enqueue_cnn, job, &brief);
        if (best_i < 0 || tm.ms.median < best_ms) {
            best = t;
            best_i = a;
            best_ms = tm.ms.median;
        }
    }
    if (best_i < 0) {
        fprintf(stderr, "%s: no %s algorithm stays within the error bound\n", what, v->name);
        exit(GL_EXIT_FAIL);
    }
    *algo = v->peer->use(best_i);
    gl_lab_time(L, &best, enqueue_cnn, job);
    *row = best;
}

/* The tuner's bill: candidates tried and the wall time they took (printed at the end of cnn_run). */
static struct {
    long long candidates;
    double ms;
} g_tuner;

/* The autotuner of a row with several tile configurations, run on the GPU it runs on (no choice is
 * kept across runs): each candidate verified, then timed short (TUNE_REPS replays of a CUDA graph of
 * launches, not reported as a row); the fastest is kept and timed again by the caller with the full
 * rule. The choice is printed and recorded as a '# cnn_tuned ...' line in the CSV. Returns the tile. */
static int autotune(gl_lab *L, const cnn_variant_row *v, cnn_job *job, size_t ny, const reference *ref,
                    const char *what)
{
    int best = 0;
    double best_ms = INFINITY;
    const double t0 = gl_wall_ms();
    const gl_time_opts brief = candidate_opts(L);
    printf("autotune %s:", what);
    for (int t = 0; t < v->tiles; t++) {
        job->tile = t;
        gl_row r = gl_row_new("cnn", what, (long long)ny);
        run_and_check(L, job, ny, ref, cnn_variant_bound(v), what, &r);
        const gl_timing tm = gl_time(&L->timer, enqueue_cnn, job, &brief);
        printf(" %s %.4f ms%s", v->tile_name(t), tm.ms.median, t + 1 < v->tiles ? "," : "");
        if (tm.ms.median < best_ms) best_ms = tm.ms.median, best = t;
    }
    g_tuner.candidates += v->tiles;
    g_tuner.ms += gl_wall_ms() - t0;
    printf(" -> %s\n", v->tile_name(best));
    if (L->report.csv) {
        fprintf(L->report.csv, "# cnn_tuned variant=%s tile=%s ms=%.6g\n", what, v->tile_name(best), best_ms);
        gl_report_check_write(&L->report, 0);
    }
    return best;
}

/* One row of the table on configuration ci: prepared, verified, timed, verified again, reported. */
static void run_variant(gl_lab *L, int ci, int vi, cnn_job base, size_t ny, const reference *ref,
                        config_result *res)
{
    const cnn_variant_row *v = cnn_variant_at(vi);
    const cnn_shape *s = &ref->s;
    if (v->supports && !v->supports(s)) return;
    if (v->role == CNN_ROLE_PEER && !peers_usable(L)) return;
    cnn_bound_fn bound = cnn_variant_bound(v);
    reference own = *ref; /* the sums the row's bound takes: sum |x w| or its own magnitudes */
    if (v->magnitudes) own.abs_sum = ref->mag[magnitude_slot(ref, v->magnitudes)];
    ref = &own;
    if (!bound) {
        fprintf(stderr, "cnn: variant %s: class %s has no error bound defined: refused\n", v->name,
                CNN_CLASS[v->cls].name);
        exit(GL_EXIT_FAIL);
    }
    size_t ws_bytes = 0;
    if (v->role == CNN_ROLE_PEER && v->peer->prepare(s, L->cli.quick, &ws_bytes) != CNN_OK) return;
    for (int t = 0; t < v->tiles; t++) { /* the largest any tile needs, allocated before any timing */
        size_t b = cnn_workspace_bytes(s, vi, t);
        if (b > ws_bytes) ws_bytes = b;
    }
    cnn_job job = base;
    job.v = vi;
    job.tile = 0;
    job.ws_bytes = ws_bytes;
    char variant[64], what[96];
    snprintf(variant, sizeof variant, "%s@%s", v->name, CONFIGS[ci].name);
    /* x, w and y are taken already: the workspace must fit in what is left (gl_lab_fits prints the skip) */
    if (ws_bytes && !gl_lab_fits(L, (double)ws_bytes, "cnn", variant, (long long)ny)) return;
    job.ws = ws_bytes ? gl_device_alloc(ws_bytes, "workspace") : NULL;
    /* zeroed once, outside any timing: cuDNN's BF16 engine reads workspace bytes it never wrote
     * (compute-sanitizer initcheck on its nhwcToNchwKernel, cuDNN 9.14), harmless but reported */
    if (job.ws) GL_CHECK(cudaMemset(job.ws, 0, ws_bytes));
    gl_fence(); /* the default stream's memset done before the timer stream's prepare (gl_check.h) */
    /* the row's own once-per-configuration work (BF16 rows: x, w -> BF16), outside any timing */
    if (v->prepare) {
        v->prepare(s, job.x, job.w, job.ws, L->timer.stream);
        GL_CHECK(cudaStreamSynchronize(L->timer.stream));
    }
    snprintf(what, sizeof what, "cnn/%s", variant);
    gl_row row = gl_row_new("cnn", variant, (long long)ny);
    row.param = ci;
    row.bytes = cnn_min_bytes(s);
    if (v->role == CNN_ROLE_PEER) {
        const char *algo;
        time_peer(L, v, &job, ny, ref, what, &row, &algo);
        if (v->cls == CNN_FP32) res->algo = algo; /* the summary's cuDNN FP32 column */
        else printf("%s: kept %s\n", what, algo);
        poison_outputs(&job, ny); /* the kept algorithm's output, checked below */
        enqueue_cnn(&job, L->timer.stream);
    } else {
        if (v->tiles > 1) job.tile = autotune(L, v, &job, ny, ref, what);
        run_and_check(L, &job, ny, ref, bound, what, &row);
        poison_outputs(&job, ny);
        gl_lab_time(L, &row, enqueue_cnn, &job);
    }
    finish_outputs(L, &job);
    check_outputs(job.y, ny, ref, bound, what, &row, 1);
    row.gflops = cnn_flops(s) / (row.median_ms * 1e6);
    row.intensity = cnn_flops(s) / cnn_min_bytes(s);
    row.pct_of_peak = 100.0 * row.gflops / g_peak[v->cls];
    res->ms[vi] = row.median_ms;
    res->tile[vi] = job.tile;
    /* the ratio's base: the first peer of the same class (NaN without one) */
    row.ratio = NAN;
    for (int p = 0; p < cnn_variant_count(); p++)
        if (cnn_variant_at(p)->role == CNN_ROLE_PEER && cnn_variant_at(p)->cls == v->cls) {
            row.ratio = row.median_ms / res->ms[p];
            break;
        }
    gl_report_row(&L->report, &row);
    if (job.ws) GL_CHECK(cudaFree(job.ws));
}

static int named(const gl_cli *c, const char *name)
{
    for (int i = 0; i < c->n_only; i++)
        if (!strcmp(c->only[i], name)) return 1;
    return 0;
}

/* --only with cnn row names (e.g. --only T4A,ours9_sliced_k): only those rows run; without any, all. */
static int any_row_named(const gl_cli *c)
{
    for (int v = 0; v < cnn_variant_count(); v++)
        if (named(c, cnn_variant_at(v)->name)) return 1;
    return 0;
}

static int row_selected(const gl_cli *c, int v) { return !any_row_named(c) || named(c, cnn_variant_at(v)->name); }

/* Peers and the seed's kernels always; our rows when they are rungs of a curated ladder (ladders.c's
 * cnn ladders), with --all, or when --only names them. */
static int row_in_run(const gl_cli *c, int v)
{
    const cnn_variant_row *row = cnn_variant_at(v);
    return row->role != CNN_ROLE_OURS || gl_cli_curated(c, "cnn", row->name);
}

/* A layer runs when --only names it, or names no layer but "cnn" or a row (then every layer). */
static int layer_selected(const gl_cli *c, int ci)
{
    if (c->n_only == 0) return 1;
    for (int i = 0; i < N_CONFIGS; i++)
        if (named(c, CONFIGS[i].name)) return named(c, CONFIGS[ci].name);
    return named(c, "cnn") || any_row_named(c);
}

/* Runs one configuration; returns 0 (a line printed by gl_lab_fits) when x, w and y do not fit. */
static int run_config(gl_lab *L, int ci, config_result *res)
{
    const cnn_config *cf = &CONFIGS[ci];
    reference ref;
    ref.s = (cnn_shape){cf->N, cf->C, cf->H, cf->H, cf->M, cf->R, cf->R, (cf->R - 1) / 2, (cf->R - 1) / 2,
                        1, 1, 1, 1, 1};
    const cnn_shape *s = &ref.s;
    size_t nx = (size_t)s->N * s->C * s->H * s->W, nw = (size_t)s->M * s->C * s->R * s->S;
    size_t ny = (size_t)s->N * s->M * s->H * s->W;
    if (!gl_lab_fits(L, (double)((nx + nw + ny) * sizeof(float)), "cnn", cf->name, (long long)ny)) return 0;
    float *hx = (float *)gl_host_alloc(nx * sizeof(float), "x"), *hw = (float *)gl_host_alloc(nw * sizeof(float), "w");
    float *dx = gl_upload_random_f32(hx, nx, L->cli.seed + (uint64_t)ci, RNG_CNN_X, "x");
    float *dw = gl_upload_random_f32(hw, nw, L->cli.seed + (uint64_t)ci, RNG_CNN_W, "w");
    float *dy = (float *)gl_device_alloc(ny * sizeof(float), "y");
    make_reference(L, ci, hx, hw, &ref, &res->cpu_ms);
    make_magnitudes(hx, hw, &ref);
    res->algo = "-";
    for (int v = 0; v < MAX_VARIANTS; v++) res->ms[v] = NAN, res->tile[v] = 0;
    cnn_job base = {dx, dw, dy, *s, 0, 0, NULL, 0};
    for (int v = 0; v < cnn_variant_count(); v++)
        if (row_selected(&L->cli, v) && row_in_run(&L->cli, v)) run_variant(L, ci, v, base, ny, &ref, res);
    GL_CHECK(cudaFree(dx));
    GL_CHECK(cudaFree(dw));
    GL_CHECK(cudaFree(dy));
    free(hx);
    free(hw);
    free(ref.index);
    free(ref.ref);
    free(ref.abs_sum);
    for (int k = 0; k < CNN_MAG_KINDS; k++) free(ref.mag[k]);
    return 1;
}

/* The best FP32 rung of ours on one configuration: its index, or -1. */
static int best_fp32_rung(const config_result *r)
{
    int best = -1;
    for (int v = 0; v < cnn_variant_count(); v++) {
        const cnn_variant_row *row = cnn_variant_at(v);
        if (row->role != CNN_ROLE_OURS || row->cls != CNN_FP32 || isnan(r->ms[v])) continue;
        if (best < 0 || r->ms[v] < r->ms[best]) best = v;
    }
    return best;
}

/* Every variant (rows) on every configuration that ran (columns), ms per call. */
static void print_every_variant(const config_result *res, const int *ran)
{
    printf("\n== cnn: ms per call (median) of every variant; tuned rows: the tile chosen per configuration\n");
    printf("%-16s", "variant");
    for (int i = 0; i < N_CONFIGS; i++)
        if (ran[i]) printf(" %9s", CONFIGS[i].name);
    printf("\n");
    for (int v = 0; v < cnn_variant_count(); v++) {
        const cnn_variant_row *row = cnn_variant_at(v);
        int any = 0; /* a row this run did not measure (not on a ladder without --all) is left out */
        for (int i = 0; i < N_CONFIGS; i++) any |= ran[i] && !isnan(res[i].ms[v]);
        if (!any) continue;
        printf("%-16s", row->name);
        for (int i = 0; i < N_CONFIGS; i++)
            if (ran[i]) printf(" %9.4f", res[i].ms[v]);
        printf("  %s\n", row->lesson);
        if (row->tiles <= 1) continue;
        printf("%-16s", "  tile");
        for (int i = 0; i < N_CONFIGS; i++)
            if (ran[i]) printf(" %9s", isnan(res[i].ms[v]) ? "-" : row->tile_name(res[i].tile[v]));
        printf("\n");
    }
}

/* The roofs: the FP32 peak from the nominal and from the measured SM clock, the tensor-core
 * peaks (sm_90 only, else NA), the memory roof (copy_gbs, the run's memcpy), printed and written
 * to the CSV as '# cnn_...' lines before the first cnn row. Returns the FP32 peak (measured). */
static double write_roofs(gl_lab *L)
{
    const gl_device_info *d = &L->dev;
    const double measured = cnn_sm_clock_mhz(L->timer.stream);
    char lines[CNN_CLASSES + 3][160];
    int k = 0;
    const double fp32 = cnn_peak_flop_per_sm_clock(CNN_FP32, d->cc_major, d->cc_minor);
    snprintf(lines[k++], sizeof lines[0], "cnn_sm_clock_mhz_nominal=%d", d->sm_clock_mhz);
    snprintf(lines[k++], sizeof lines[0], "cnn_sm_clock_mhz_measured=%.0f", measured);
    snprintf(lines[k++], sizeof lines[0], "cnn_peak_fp32_nominal_gflops=%.0f", d->sms * fp32 * d->sm_clock_mhz / 1e3);
    for (int c = 0; c < CNN_CLASSES; c++) {
        g_peak[c] = d->sms * cnn_peak_flop_per_sm_clock((cnn_class)c, d->cc_major, d->cc_minor) * measured / 1e3;
        if (isnan(g_peak[c])) snprintf(lines[k++], sizeof lines[0], "cnn_peak_%s_gflops=NA", CNN_CLASS[c].name);
        else snprintf(lines[k++], sizeof lines[0], "cnn_peak_%s_gflops=%.0f", CNN_CLASS[c].name, g_peak[c]);
    }
    printf("cnn roofs: FP32 peak %d SMs x %.0f FLOP per clock x the SM clock; SM clock %d MHz nominal, %.0f MHz measured (clock64 over %%globaltimer, 1 ms); memory roof "
           "%.1f GB/s (this run's cudaMemcpy D2D); tensor-core peaks: NVIDIA's H100 SXM figures per SM per clock, "
           "sm_90 only\n", d->sms, fp32, d->sm_clock_mhz, measured, L->report.copy_gbs);
    for (int i = 0; i < k; i++) {
        printf("  %s\n", lines[i]);
        for (char *p = lines[i]; *p; p++) /* lower case keys in the CSV */
            if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
        if (L->report.csv) fprintf(L->report.csv, "# %s\n", lines[i]);
    }
    if (L->report.csv) gl_report_check_write(&L->report, 0);
    return g_peak[CNN_FP32];
}

void cnn_run(gl_lab *L)
{
    gl_cli *c = &L->cli;
    int any = 0;
    for (int i = 0; i < N_CONFIGS && !any; i++) any = layer_selected(c, i);
    if (!any) return;
    if (c->quick && c->n_only == 0) { /* cuDNN's algorithm search makes it slow under the sanitizers */
        printf("\n(cnn: not part of the default --quick run; --quick --only cnn runs its small configurations)\n");
        return;
    }
    if (cnn_variant_count() > MAX_VARIANTS) {
        fprintf(stderr, "cnn: %d variants in the table, at most %d\n", cnn_variant_count(), MAX_VARIANTS);
        exit(GL_EXIT_FAIL);
    }
    gl_lab_heading("cnn", "NCHW float, stride 1, same padding; FP32 FFMA only (cuDNN with CUDNN_FMA_MATH); cuDNN %s",
                   cnn_cudnn_version());
    cnn_use_sms(L->dev.sms);
    const double peak = write_roofs(L);
    if (cnn_cudnn_available() && !peers_usable(L))
        printf("note: cuDNN left out on %d of %d SMs (a green context): its outputs were NaN there (H100 and H200, "
               "driver 580, T4A); run without --sms for the cuDNN rows\n", L->dev.sms, L->dev.sms_device);
    static config_result res[N_CONFIGS];
    int ran[N_CONFIGS] = {0};
    for (int i = 0; i < N_CONFIGS; i++) {
        if (c->quick && !CONFIGS[i].quick) continue;
        if (!layer_selected(c, i)) continue;
        ran[i] = run_config(L, i, &res[i]);
    }
    print_every_variant(res, ran);
    const int cudnn = cnn_variant_find("cudnn");
    printf("\n== cnn: ours = the fastest FP32 rung of the ladder, against cuDNN FP32 (the seed: RTX 3060)\n");
    printf("%-9s %5s %5s %3s %5s %9s %9s %-16s %9s %8s %6s  %s\n", "config", "N", "H", "R", "C", "cpu", "ours",
           "(rung)", "cudnn", "ours/cud", "%peak", "cuDNN algorithm");
    double log_sum = 0;
    int n_geo = 0, faster = 0;
    for (int i = 0; i < N_CONFIGS; i++) {
        if (!ran[i]) continue;
        const config_result *r = &res[i];
        const cnn_config *cf = &CONFIGS[i];
        cnn_shape s = {cf->N, cf->C, cf->H, cf->H, cf->M, cf->R, cf->R, 0, 0, 1, 1, 1, 1, 1};
        const int b = best_fp32_rung(r);
        const double ours = b >= 0 ? r->ms[b] : NAN, lib = cudnn >= 0 ? r->ms[cudnn] : NAN, speed = lib / ours;
        printf("%-9s %5d %5d %3d %5d %9.3f %9.4f %-16s %9.4f %7.2fx %5.1f%%  %s\n", cf->name, cf->N, cf->H, cf->R,
               cf->C, r->cpu_ms, ours, b >= 0 ? cnn_variant_at(b)->name : "-", lib, speed,
               100.0 * cnn_flops(&s) / (ours * 1e6) / peak, r->algo);
        if (!isnan(speed) && cf->seed10) { /* the seed's ten configurations */
            log_sum += log(speed);
            n_geo++;
            faster += speed > 1.0;
        }
        if (!isnan(cf->rtx3060_fused_ms)) {
            char split[32] = "-";
            if (!isnan(cf->rtx3060_split_ms)) snprintf(split, sizeof split, "%.3f", cf->rtx3060_split_ms);
            printf("%-9s   the seed, RTX 3060: fused %.3f ms, split %s ms, CPU %.0f ms\n", "", cf->rtx3060_fused_ms,
                   split, cf->rtx3060_cpu_ms);
        }
    }
    if (n_geo)
        printf("ours against cuDNN over the seed's configurations: geometric mean %.2fx, faster on %d of %d\n",
               exp(log_sum / n_geo), faster, n_geo);
    if (g_tuner.candidates)
        printf("cnn tuner: %lld tile candidates verified and timed short (%d graph replays each) in %.1f s; each "
               "winner timed again with the full rule\n", g_tuner.candidates, TUNE_REPS, g_tuner.ms / 1e3);
    for (int v = 0; v < cnn_variant_count(); v++)
        if (cnn_variant_at(v)->peer) cnn_variant_at(v)->peer->release();
}
