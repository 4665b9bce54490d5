/* cnn_run.c - Lab 04, part 2: the `cnn` experiment. For every configuration (the seed's tables,
 * batches of E3, one large layer): random x and w, the CPU reference (the whole output when it
 * takes under a few seconds, else 8192 sampled outputs), then each variant: poison, run, check
 * within the error bound, time, check again. All variants (and cuDNN) are timed the same way:
 * a CUDA graph of back-to-back calls between two events; cuDNN's algorithm is the fastest of its
 * FMA-math candidates that stay within the bound. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cnn_run.h"

#define FULL_REFERENCE_MACS 3e8 /* above this, the reference computes 8192 sampled outputs */
#define SAMPLES 8192
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

typedef struct {
    const float *x, *w;
    float *y;
    cnn_shape s;
    cnn_variant v;
    void *ws;
    size_t ws_bytes;
} cnn_job;

static void enqueue_cnn(void *ctx, cudaStream_t st)
{
    cnn_job *j = (cnn_job *)ctx;
    const cnn_shape *s = &j->s;
    cnn_status r = cnn_forward(j->x, j->w, j->y, s->N, s->C, s->H, s->W, s->M, s->R, s->S, s->pad_h, s->pad_w,
                               s->stride_h, s->stride_w, s->dil_h, s->dil_w, s->groups, j->v, j->ws, j->ws_bytes, st);
    if (r != CNN_OK) {
        fprintf(stderr, "cnn_forward(%s) refused a supported shape: %s\n", cnn_variant_name(j->v), cnn_status_name(r));
        exit(GL_EXIT_FAIL);
    }
}

typedef struct {
    size_t n, *index; /* index == NULL: all outputs */
    double *ref, *bound;
} reference;

/* Compare y (all outputs or the sampled ones) with the reference: |y - ref| <= bound, where the
 * bound is 16 FLT_EPSILON sqrt(C R S) sum |x w| (float rounding over C R S terms, any order). */
/* Returns the outputs outside the bound; with `fatal`, prints the first and exits 1 if any. */
static long long check_outputs(const float *d_y, size_t total, const reference *ref, const char *what, gl_row *row,
                               int fatal)
{
    float *h = (float *)gl_host_alloc(total * sizeof(float), "cnn output");
    GL_CHECK(cudaMemcpy(h, d_y, total * sizeof(float), cudaMemcpyDeviceToHost));
    long long bad = 0;
    double worst_abs = 0, worst_ratio = 0;
    for (size_t i = 0; i < ref->n; i++) {
        size_t o = ref->index ? ref->index[i] : i;
        double err = fabs((double)h[o] - ref->ref[i]);
        double ratio = err / ref->bound[i];
        if (!(err <= ref->bound[i])) { /* NaN (never written) fails too */
            if (fatal && bad < GL_MAX_MISMATCH_LINES)
                fprintf(stderr, "  %s: output %zu: got %.9g, reference %.9g, |error| %.3g > bound %.3g\n", what, o,
                        h[o], ref->ref[i], err, ref->bound[i]);
            bad++;
        }
        if (err > worst_abs) worst_abs = err;
        if (ratio > worst_ratio) worst_ratio = ratio;
    }
    if (fatal) gl_require_match(what, bad, (long long)ref->n);
    row->max_abs_error = worst_abs;
    row->max_error_over_bound = worst_ratio;
    row->checked = (long long)ref->n;
    free(h);
    return bad;
}

static void check(const float *d_y, size_t total, const reference *ref, const char *what, gl_row *row)
{
    check_outputs(d_y, total, ref, what, row, 1);
}

typedef struct {
    double ms[CNN_VARIANTS + 1]; /* + 1: cpu */
    const char *algo;
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
static int cudnn_usable(const gl_lab *L) { return cnn_cudnn_available() && L->part.green == NULL; }

/* Runs one configuration; returns 0 (a line printed, gl_lab_fits) when its GPU buffers do not fit:
 * x, w, y and the split variant's workspace, then cuDNN's workspace once cuDNN has said its size. */
static int run_config(gl_lab *L, int ci, config_result *res)
{
    const cnn_config *cf = &CONFIGS[ci];
    cnn_shape s = {cf->N, cf->C, cf->H, cf->H, cf->M, cf->R, cf->R, (cf->R - 1) / 2, (cf->R - 1) / 2, 1, 1, 1, 1, 1};
    size_t nx = (size_t)s.N * s.C * s.H * s.W, nw = (size_t)s.M * s.C * s.R * s.S, ny = (size_t)s.N * s.M * s.H * s.W;
    size_t ws_bytes = cnn_workspace_bytes(&s, CNN_SPLIT), cudnn_ws = 0;
    if (!gl_lab_fits(L, (double)((nx + nw + ny) * sizeof(float) + ws_bytes), "cnn", cf->name, (long long)ny)) return 0;
    const double K = (double)s.C * s.R * s.S, macs = (double)ny * K;
    float *hx = (float *)gl_host_alloc(nx * sizeof(float), "x"), *hw = (float *)gl_host_alloc(nw * sizeof(float), "w");
    float *dx = gl_upload_random_f32(hx, nx, L->cli.seed + (uint64_t)ci, RNG_CNN_X, "x");
    float *dw = gl_upload_random_f32(hw, nw, L->cli.seed + (uint64_t)ci, RNG_CNN_W, "w");
    float *dy = (float *)gl_device_alloc(ny * sizeof(float), "y");

    /* The reference: every output (timed: the CPU row), or sampled outputs. */
    reference ref = {ny, NULL, NULL, NULL};
    int full = macs <= FULL_REFERENCE_MACS;
    if (!full) {
        ref.n = SAMPLES;
        ref.index = (size_t *)gl_host_alloc(SAMPLES * sizeof(size_t), "samples");
        gl_rng r = gl_rng_seeded(L->cli.seed + (uint64_t)ci, RNG_CNN_SAMPLES);
        for (size_t i = 0; i < SAMPLES; i++) ref.index[i] = (size_t)(gl_rng_next(&r) % ny);
    }
    ref.ref = (double *)gl_host_alloc(ref.n * sizeof(double), "reference");
    ref.bound = (double *)gl_host_alloc(ref.n * sizeof(double), "bounds");
    double t0 = gl_wall_ms();
    cnn_reference_all_cores(hx, hw, &s, ref.index, ref.n, ref.ref, ref.bound);
    double cpu_all_ms = gl_wall_ms() - t0, cpu_ms = NAN;
    if (full) { /* the seed's CPU peer: the same loop nest on one core, which must give the same bits */
        double *one = (double *)gl_host_alloc(2 * ref.n * sizeof(double), "one-core reference"); /* + bounds */
        t0 = gl_wall_ms();
        cnn_reference(hx, hw, &s, NULL, ref.n, one, one + ref.n);
        cpu_ms = gl_wall_ms() - t0;
        if (memcmp(one, ref.ref, ref.n * sizeof(double))) {
            fprintf(stderr, "VERIFICATION FAILED: cnn %s: the reference on all cores differs from the one-core one\n",
                    cf->name);
            exit(GL_EXIT_FAIL);
        }
        free(one);
        report_cpu(L, ci, "cpu", cpu_ms, &s, ny);
        report_cpu(L, ci, "cpu_all_cores", cpu_all_ms, &s, ny);
    }
    for (size_t i = 0; i < ref.n; i++) ref.bound[i] = 16.0 * FLT_EPSILON * sqrt(K) * ref.bound[i] + 1e-30;
    char variant[64];
    res->ms[CNN_VARIANTS] = cpu_ms;

    /* Workspace: the split variant's partial maps and cuDNN's, allocated before any timing. */
    res->algo = "-";
    int fits = 1;
    if (cudnn_usable(L)) {
        cnn_cudnn_prepare(&s, dx, dw, dy, L->cli.quick, &cudnn_ws, &res->algo);
        if (cudnn_ws > ws_bytes) ws_bytes = cudnn_ws;
        fits = gl_lab_fits(L, (double)ws_bytes, "cnn", cf->name, (long long)ny); /* x, w, y are counted as taken */
    }
    void *ws = ws_bytes && fits ? gl_device_alloc(ws_bytes, "workspace") : NULL;
    static const cnn_variant ORDER[CNN_VARIANTS] = {CNN_CUDNN, CNN_SPLIT, CNN_FUSED, CNN_OURS}; /* cuDNN first: the ratio base */
    for (int v = 0; v < CNN_VARIANTS; v++) res->ms[v] = NAN;
    for (int oi = 0; oi < CNN_VARIANTS && fits; oi++) {
        const cnn_variant v = ORDER[oi];
        if (v == CNN_CUDNN && !cudnn_usable(L)) continue;
        cnn_job job = {dx, dw, dy, s, v, ws, ws_bytes};
        snprintf(variant, sizeof variant, "%s@%s", cnn_variant_name(v), cf->name);
        char what[96];
        snprintf(what, sizeof what, "cnn/%s", variant);
        gl_row row = gl_row_new("cnn", variant, (long long)ny);
        row.param = ci;
        if (v == CNN_CUDNN) {
            /* Every FMA-math algorithm whose output is within the bound (FFT and Winograd can
             * round more than a direct sum), timed like ours; the fastest is kept. */
            gl_row best = row;
            int best_i = -1;
            for (int a = 0; a < cnn_cudnn_candidates(); a++) {
                const char *name = cnn_cudnn_use(a);
                gl_row t = row;
                gl_poison(dy, ny * sizeof(float));
                enqueue_cnn(&job, L->timer.stream);
                GL_CHECK(cudaStreamSynchronize(L->timer.stream));
                if (check_outputs(dy, ny, &ref, what, &t, 0)) {
                    printf("note: %s: cuDNN %s left out: %.3g x the error bound\n", cf->name, name, t.max_error_over_bound);
                    continue;
                }
                gl_lab_time(L, &t, enqueue_cnn, &job);
                if (best_i < 0 || t.median_ms < best.median_ms) {
                    best = t;
                    best_i = a;
                }
            }
            if (best_i < 0) {
                fprintf(stderr, "%s: no cuDNN FMA-math algorithm stays within the error bound\n", cf->name);
                exit(GL_EXIT_FAIL);
            }
            res->algo = cnn_cudnn_use(best_i);
            row = best;
            gl_poison(dy, ny * sizeof(float)); /* the kept algorithm's output, checked below */
            enqueue_cnn(&job, L->timer.stream);
        } else {
            gl_poison(dy, ny * sizeof(float));
            enqueue_cnn(&job, L->timer.stream);
            GL_CHECK(cudaStreamSynchronize(L->timer.stream));
            check(dy, ny, &ref, what, &row);
            gl_poison(dy, ny * sizeof(float));
            gl_lab_time(L, &row, enqueue_cnn, &job);
        }
        check(dy, ny, &ref, what, &row);
        row.gflops = cnn_flops(&s) / (row.median_ms * 1e6);
        res->ms[v] = row.median_ms;
        row.ratio = row.median_ms / res->ms[CNN_CUDNN]; /* NaN without cuDNN */
        gl_report_row(&L->report, &row);
    }
    if (ws) GL_CHECK(cudaFree(ws));
    GL_CHECK(cudaFree(dx));
    GL_CHECK(cudaFree(dw));
    GL_CHECK(cudaFree(dy));
    free(hx);
    free(hw);
    free(ref.index);
    free(ref.ref);
    free(ref.bound);
    return fits;
}

void cnn_run(gl_lab *L)
{
    gl_cli *c = &L->cli;
    int any = gl_cli_selected(c, "cnn", NULL);
    for (int i = 0; i < N_CONFIGS && !any; i++) any = gl_cli_selected(c, "cnn", CONFIGS[i].name);
    if (!any) return;
    if (c->quick && c->n_only == 0) { /* cuDNN's algorithm search makes it slow under the sanitizers */
        printf("\n(cnn: not part of the default --quick run; --quick --only cnn runs its small configurations)\n");
        return;
    }
    double peak = (double)L->dev.sms * 128 * 2 * L->dev.sm_clock_mhz / 1e3; /* GFLOP/s */
    gl_lab_heading("cnn", "NCHW float, stride 1, same padding; FP32 FFMA only (cuDNN with CUDNN_FMA_MATH); "
                          "FP32 peak %d SMs x 128 lanes x 2 x %d MHz = %.0f GFLOP/s; cuDNN %s",
                   L->dev.sms, L->dev.sm_clock_mhz, peak, cnn_cudnn_version());
    if (cnn_cudnn_available() && !cudnn_usable(L))
        printf("note: cuDNN left out on %d of %d SMs (a green context): its outputs were NaN there (H100 and H200, "
               "driver 580, T4A); run without --sms for the cuDNN rows\n", L->dev.sms, L->dev.sms_device);
    config_result res[N_CONFIGS];
    int ran[N_CONFIGS] = {0};
    for (int i = 0; i < N_CONFIGS; i++) {
        if (c->quick && !CONFIGS[i].quick) continue;
        if (!gl_cli_selected(c, "cnn", CONFIGS[i].name)) continue;
        ran[i] = run_config(L, i, &res[i]);
    }
    printf("\n== cnn: ms per call (median), GFLOP/s of the fastest of ours, and speedups (the seed: RTX 3060)\n");
    printf("%-9s %5s %5s %3s %5s %9s %9s %9s %9s %9s %8s %8s %6s  %s\n", "config", "N", "H", "R", "C", "cpu",
           "split", "fused", "ours", "cudnn", "ours/cud", "fus/spl", "%peak", "cuDNN algorithm");
    double log_sum = 0;
    int n_geo = 0, faster = 0;
    for (int i = 0; i < N_CONFIGS; i++) {
        if (!ran[i]) continue;
        const config_result *r = &res[i];
        const cnn_config *cf = &CONFIGS[i];
        cnn_shape s = {cf->N, cf->C, cf->H, cf->H, cf->M, cf->R, cf->R, 0, 0, 1, 1, 1, 1, 1};
        double speed = r->ms[CNN_CUDNN] / r->ms[CNN_OURS];
        printf("%-9s %5d %5d %3d %5d %9.3f %9.4f %9.4f %9.4f %9.4f %7.2fx %7.2fx %5.1f%%  %s\n", cf->name, cf->N,
               cf->H, cf->R, cf->C, r->ms[CNN_VARIANTS], r->ms[CNN_SPLIT], r->ms[CNN_FUSED], r->ms[CNN_OURS],
               r->ms[CNN_CUDNN], speed, r->ms[CNN_SPLIT] / r->ms[CNN_FUSED],
               100.0 * cnn_flops(&s) / (r->ms[CNN_OURS] * 1e6) / peak, r->algo);
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
    cnn_cudnn_release();
}
