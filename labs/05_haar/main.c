/* main.c - Lab 05: the 2D Haar wavelet on one GPU (kernels.cu: the ladder; reference.c: the
 * definition).
 *
 * Experiments (run `haar --list`):
 *   paper        the seed's sizes 512^2, 1024^2, 2048^2 with 4 levels: every rung forward and
 *                inverse, the CPU reference's time, and the seed's speedups beside ours
 *   sizes        8192^2, 16384^2 and 16384 x 4096 with 4 levels: GB/s on the traffic each rung must
 *                move and on the single-pass floor (2 x 4 bytes per pixel), % of memcpy
 *   levels       8192^2 with 1, 2, 3, 4 levels and the most the size allows: what each extra level
 *                costs each rung
 *   conventions  both conventions (average, orthonormal) on odd-aspect sizes with a padded pitch and
 *                the deepest transform: forward and inverse against the reference
 *   compress     keep the largest k% of the coefficients (threshold found with CUB), reconstruct,
 *                PSNR; both conventions; the orthonormal identity MSE = sum dropped^2 / pixels
 *                (compress.c)
 * Every row: the output poisoned, the transform run, every coefficient compared with the CPU
 * reference (the average convention bit for bit, the orthonormal one within
 * haar_gpu_tolerance) and with the first rung's bits (all rungs compute the same operations);
 * the inverse compared with the reference inverse and with the original image. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gl_image.h"
#include "gl_lab.h"
#include "gl_parallel.h"
#include "haar.h"
#include "haar_gpu.h"
#include "lab05.h"
#include "exercises/exercises.h"
#include "gl_exercise.h"

#define PROG "haar"
#define OPT_LEVELS 0

static const gl_name NAMES[] = {
    {"paper", "the seed's sizes (512^2, 1024^2, 2048^2), 4 levels: every rung, the CPU reference, the seed's speedups"},
    {"sizes", "8192^2, 16384^2, 16384 x 4096, 4 levels: GB/s on each rung's traffic and on the floor, % of memcpy"},
    {"levels", "8192^2 with 1, 2, 3, 4 and the most levels: the cost of each extra level per rung"},
    {"conventions", "average and orthonormal, odd-aspect sizes, padded pitch, deepest transforms"},
    {"compress", "keep the largest k% (CUB threshold), reconstruct, PSNR, both conventions"},
    {"seed", "  rung 1: the seed's processRows / processColumns (one block per row / column)"},
    {"coalesced", "  rung 2: the column pass with a warp across consecutive columns"},
    {"fused_level", "  rung 3: one kernel per level on 2 x 2 blocks"},
    {"single_pass", "  rung 4: all levels in one read and one write (2^L x 2^L tiles)"},
    {"single_pass_rows", "  rung 5: rung 4 with a warp per block row (fewer instructions per pixel)"},
    {"exercises", "Your turn: your kernels in exercises/, ranked among the rungs (only when named)"},
    {"yours_haar", "  exercises: your one-level forward transform, coalesced (exercises/haar_level.cu)"},
};

static const gl_opt OPTS[] = {
    {"--levels", "levels of paper, sizes and compress instead of 4 (the image sides must be multiples of 2^L)", 1,
     15, 4},
};

static const gl_cli_spec SPEC = {
    .prog = PROG,
    .summary = "Lab 05: the 2D Haar wavelet - a multi-level transform is a sequence of memory passes",
    .names = NAMES,
    .n_names = (int)(sizeof NAMES / sizeof NAMES[0]),
    .size_min = 2,
    .size_max = 32768,
    .size_help = "side of the square image of sizes and levels (instead of 8192 / 16384) and of compress's generated picture",
    .takes_images = 1,
    .opts = OPTS,
    .n_opts = 1,
};

/* The seed's Table 2 (4 nodes, i5-4670 + GTX 780): 4-GPU cluster speedup over 1 CPU and over
 * 1 GPU; their ratio is the 1-GPU speedup over 1 CPU (transfers included, as the seed times). */
static const struct {
    int side;
    double over_cpu, over_gpu;
} SEED_TABLE2[] = {{512, 13.719, 1.532}, {1024, 45.451, 2.628}, {2048, 69.727, 3.499}};

/* ---------------------------------------------------------------- one image size on the GPU */

static void compare_bits(const char *what, const float *got, const float *want, const haar_case *k);

/* The reference coefficients, computed once per case on every core (timed: cpu_all_ms). With
 * one_core (the seed's sizes: the seed's "1 CPU"), also timed on one core, a plain loop nest, and
 * the two results compared bit for bit (the threads share rows and columns, never a sum). */
static void reference_create(haar_case *k, int one_core)
{
    size_t bytes = k->n * sizeof(float);
    memcpy(k->h_ref, k->h_img, bytes);
    double t0 = gl_wall_ms();
    haar_forward_ref_all_cores(k->h_ref, k->w, k->h, k->pitch, k->levels, k->conv);
    k->cpu_all_ms = gl_wall_ms() - t0;
    k->cpu_ms = NAN;
    if (one_core) {
        float *serial = (float *)gl_host_alloc(bytes, "one-core reference");
        memcpy(serial, k->h_img, bytes);
        t0 = gl_wall_ms();
        haar_forward_ref(serial, k->w, k->h, k->pitch, k->levels, k->conv);
        k->cpu_ms = gl_wall_ms() - t0;
        compare_bits("reference on all cores (the one-core reference's bits)", k->h_ref, serial, k);
        free(serial);
    }
    k->max_abs_ref = lab05_max_abs(k->h_ref, k);
}

/* The scratch every rung may use: the largest any rung asks for. */
static size_t case_scratch_bytes(int w, int h, int levels)
{
    size_t scratch = 0;
    for (int r = 0; r < HAAR_RUNG_COUNT; r++) {
        size_t s = haar_gpu_scratch_bytes((haar_rung)r, w, h, levels);
        scratch = s > scratch ? s : scratch;
    }
    return scratch;
}

/* Does a case fit on the GPU (case_create's image, coefficients, reconstruction and scratch)? If
 * not, one line (gl_lab_fits) and 0: the caller skips the size. */
static int case_fits(lab05 *L, const char *experiment, int w, int h, size_t pitch, int levels)
{
    double bytes = 3.0 * (double)(pitch * (size_t)h * sizeof(float)) + (double)case_scratch_bytes(w, h, levels);
    return gl_lab_fits(&L->lab, bytes, experiment, NULL, (long long)w * h);
}

/* one_core: also time the reference on one core (only at the seed's sizes, see reference_create). */
static void case_create(haar_case *k, int w, int h, size_t pitch, int levels, haar_convention conv, uint64_t seed,
                        int one_core)
{
    memset(k, 0, sizeof *k);
    k->w = w, k->h = h, k->pitch = pitch, k->levels = levels, k->conv = conv;
    k->n = pitch * (size_t)h;
    size_t bytes = k->n * sizeof(float);
    k->h_img = (float *)gl_host_alloc_pinned(bytes, "image"); /* pinned: uploaded, and copied back every row */
    k->h_ref = (float *)gl_host_alloc(bytes, "reference");
    k->h_got = (float *)gl_host_alloc_pinned(bytes, "GPU result");
    k->h_first = (float *)gl_host_alloc(bytes, "first rung's result");
    gl_progress pr;
    gl_progress_begin(&pr, 3, "%d x %d, %d levels: input and CPU reference", w, h, levels);
    gl_fill_floats(k->h_img, k->n, seed, 5); /* [-1, 1): scaled to pixel-like values below */
    gl_progress_tick(&pr, 1, "random input");
    double top = 0;
    GL_PARALLEL_FOR_WITH(reduction(max : top))
    for (size_t i = 0; i < k->n; i++) {
        k->h_img[i] *= 128.0f;
        top = fmax(top, fabs(k->h_img[i]));
    }
    k->max_abs_in = top;
    k->d_in = (float *)gl_device_alloc(bytes, "image");
    k->d_out = (float *)gl_device_alloc(bytes, "coefficients");
    k->d_back = (float *)gl_device_alloc(bytes, "reconstruction");
    size_t scratch = case_scratch_bytes(w, h, levels);
    k->d_scratch = scratch ? gl_device_alloc(scratch, "scratch") : NULL;
    GL_CHECK(cudaMemcpy(k->d_in, k->h_img, bytes, cudaMemcpyHostToDevice));
    gl_progress_tick(&pr, 2, "uploaded");
    reference_create(k, one_core);
    gl_progress_tick(&pr, 3, "reference");
    gl_progress_end(&pr);
}

static void case_free(haar_case *k)
{
    gl_host_free_pinned(k->h_img), free(k->h_ref), gl_host_free_pinned(k->h_got), free(k->h_first);
    GL_CHECK(cudaFree(k->d_in));
    GL_CHECK(cudaFree(k->d_out));
    GL_CHECK(cudaFree(k->d_back));
    if (k->d_scratch) GL_CHECK(cudaFree(k->d_scratch));
}

/* Bytes a rung must move for L levels of a w x h float image: per level k (area A_k = N / 4^(k-1)),
 * the seed and coalesced rungs read and write it twice (a row pass, a column pass), the fused rung
 * once; the single pass reads and writes the image once in all (plus its second chunk beyond 6
 * levels, 1/4^6 of the image). The floor is 2 x 4 bytes per pixel. */
static double rung_traffic(haar_rung r, int w, int h, int levels)
{
    double n = (double)w * h, areas = 0;
    for (int k = 0; k < levels; k++) areas += n / pow(4.0, k);
    switch (r) {
    case HAAR_SEED:
    case HAAR_COALESCED: return 16.0 * areas;
    case HAAR_FUSED_LEVEL: return 8.0 * areas;
    default: {
        double bytes = 0, a = n;
        for (int done = 0; done < levels; done += HAAR_SINGLE_PASS_MAX_LEVELS, a /= pow(4.0, HAAR_SINGLE_PASS_MAX_LEVELS))
            bytes += 8.0 * a;
        return bytes;
    }
    }
}

/* ---------------------------------------------------------------- checking (check.c) */

static void compare_bits(const char *what, const float *got, const float *want, const haar_case *k)
{
    lab05_compare(what, got, want, k, 0);
}

static void download(haar_case *k, const float *d, float *h)
{
    GL_CHECK(cudaMemcpy(h, d, k->n * sizeof(float), cudaMemcpyDeviceToHost));
}

/* ---------------------------------------------------------------- one measured rung */

typedef struct {
    haar_rung rung;
    int inverse;
    haar_case *k;
    unsigned long long *counts;
} haar_job;

static void enqueue_haar(void *ctx, cudaStream_t s)
{
    haar_job *j = (haar_job *)ctx;
    haar_case *k = j->k;
    cudaError_t e = j->inverse ? haar_gpu_inverse(j->rung, k->d_out, k->d_back, k->w, k->h, k->pitch, k->levels,
                                                  k->conv, k->d_scratch, j->counts, s)
                               : haar_gpu_forward(j->rung, k->d_in, k->d_out, k->w, k->h, k->pitch, k->levels,
                                                  k->conv, k->d_scratch, j->counts, s);
    GL_CHECK(e);
}

static void count_haar(void *ctx, unsigned long long *counts, cudaStream_t s)
{
    haar_job j = *(haar_job *)ctx;
    j.counts = counts;
    enqueue_haar(&j, s);
}

/* Run, check, count and time one rung in one direction; returns its row (not yet reported).
 * Forward: against the reference coefficients and the first rung's bits. Inverse (reading d_out,
 * which holds verified coefficients): against the reference inverse of those coefficients, the
 * first rung's bits, and the original image (perfect reconstruction). */
static gl_row measure(lab05 *L, const char *experiment, haar_case *k, haar_rung r, int inverse, int first,
                      const float *ref_inverse)
{
    char what[160];
    snprintf(what, sizeof what, "%s/%s%s %dx%d L%d %s", experiment, haar_rung_name(r), inverse ? "_inv" : "", k->w,
             k->h, k->levels, haar_convention_name(k->conv));
    float *d_result = inverse ? k->d_back : k->d_out;
    haar_job job = {r, inverse, k, NULL};
    gl_poison(d_result, k->n * sizeof(float));
    enqueue_haar(&job, L->lab.timer.stream);
    GL_CHECK(cudaStreamSynchronize(L->lab.timer.stream));
    download(k, d_result, k->h_got);
    check_result c;
    if (!inverse) {
        c = lab05_compare(what, k->h_got, k->h_ref, k, haar_gpu_tolerance(k->conv, k->levels, k->max_abs_ref));
    } else {
        c = lab05_compare(what, k->h_got, ref_inverse, k, haar_gpu_tolerance(k->conv, k->levels, k->max_abs_in));
        char rt[200];
        snprintf(rt, sizeof rt, "%s (reconstruction of the input)", what);
        lab05_compare(rt, k->h_got, k->h_img, k, 8.0 * k->levels * FLT_EPSILON * k->max_abs_in);
    }
    if (first) memcpy(k->h_first, k->h_got, k->n * sizeof(float));
    else {
        char same[200];
        snprintf(same, sizeof same, "%s (the same bits as the first rung)", what);
        lab05_compare(same, k->h_got, k->h_first, k, 0);
    }

    char variant[64];
    snprintf(variant, sizeof variant, "%s%s", haar_rung_name(r), inverse ? "_inv" : "");
    gl_row row = gl_row_new(experiment, variant, (long long)k->w * k->h);
    row.param = k->levels;
    row.bytes = rung_traffic(r, k->w, k->h, k->levels);
    row.working_set_bytes = 8.0 * k->w * k->h; /* the floor: every pixel read once and written once */
    row.max_abs_error = c.max_err;
    row.max_error_over_bound = c.max_over_bound;
    row.checked = c.checked;
    unsigned long long h[3];
    gl_lab_count(&L->lab, count_haar, &job, h, 3);
    row.requests = (double)h[0];
    row.sectors_per_request = h[0] ? (double)h[1] / h[0] : NAN;
    row.segments_per_request = h[0] ? (double)h[2] / h[0] : NAN;
    gl_lab_time(&L->lab, &row, enqueue_haar, &job);
    return row;
}

/* The C reference's time as a row: cpu_reference on one core (the seed's "1 CPU", at the seed's
 * sizes only), cpu_reference_all_cores on every core of this machine (param: levels). */
static void report_cpu(lab05 *L, const char *experiment, const haar_case *k, const char *variant, double ms)
{
    gl_row cpu = gl_row_new(experiment, variant, (long long)k->w * k->h);
    cpu.param = k->levels;
    cpu.reps = 1;
    cpu.median_ms = cpu.min_ms = cpu.max_ms = ms;
    gl_report_row(&L->lab.report, &cpu);
}

/* Every selected rung forward, then inverse, on one case; ratio = time / the seed rung's. */
static void run_case(lab05 *L, const char *experiment, haar_case *k, double *single_pass_ms)
{
    for (int inverse = 0; inverse <= 1; inverse++) {
        float *ref_inverse = NULL;
        if (inverse) { /* the reference inverse of the GPU's (verified) coefficients */
            ref_inverse = (float *)gl_host_alloc(k->n * sizeof(float), "reference inverse");
            download(k, k->d_out, ref_inverse);
            haar_inverse_ref_all_cores(ref_inverse, k->w, k->h, k->pitch, k->levels, k->conv);
        }
        double seed_ms = NAN;
        int first = 1;
        for (int r = 0; r < HAAR_RUNG_COUNT; r++) {
            if (!L->rung_on[r]) continue;
            gl_row row = measure(L, experiment, k, (haar_rung)r, inverse, first, ref_inverse);
            first = 0;
            if (r == HAAR_SEED) seed_ms = row.median_ms;
            row.ratio = isnan(seed_ms) ? NAN : row.median_ms / seed_ms;
            if (r == HAAR_SINGLE_PASS && !inverse && single_pass_ms) *single_pass_ms = row.median_ms;
            gl_report_row(&L->lab.report, &row);
        }
        free(ref_inverse);
        if (first) return; /* no rung selected */
    }
    if (!isnan(k->cpu_ms)) report_cpu(L, experiment, k, "cpu_reference", k->cpu_ms);
    report_cpu(L, experiment, k, "cpu_reference_all_cores", k->cpu_all_ms);
}


/* ---------------------------------------------------------------- experiments */

/* Sizes that do not allow the levels asked for are skipped with a line (only with --levels). */
static int size_allows(int w, int h, int levels)
{
    char err[256];
    if (haar_check(w, h, levels, err, sizeof err) == 0) return 1;
    printf("skipped %d x %d: %s\n", w, h, err);
    return 0;
}

/* Time H2D + the single pass + D2H of one case (pinned host memory), as the seed's GPU time:
 * the median of 7. */
static double end_to_end_ms(lab05 *L, haar_case *k)
{
    size_t bytes = k->n * sizeof(float);
    float *pinned_in, *pinned_out;
    GL_CHECK(cudaMallocHost((void **)&pinned_in, bytes));
    GL_CHECK(cudaMallocHost((void **)&pinned_out, bytes));
    memcpy(pinned_in, k->h_img, bytes);
    cudaStream_t s = L->lab.timer.stream;
    gl_fence(); /* the poison and uploads of the default stream are done (gl_check.h) */
    double ms_rep[7];
    for (int rep = 0; rep < 7; rep++) {
        GL_CHECK(cudaEventRecord(L->lab.timer.start, s));
        GL_CHECK(cudaMemcpyAsync(k->d_in, pinned_in, bytes, cudaMemcpyHostToDevice, s));
        GL_CHECK(haar_gpu_forward(HAAR_SINGLE_PASS, k->d_in, k->d_out, k->w, k->h, k->pitch, k->levels, k->conv,
                                  k->d_scratch, NULL, s));
        GL_CHECK(cudaMemcpyAsync(pinned_out, k->d_out, bytes, cudaMemcpyDeviceToHost, s));
        GL_CHECK(cudaEventRecord(L->lab.timer.stop, s));
        GL_CHECK(cudaEventSynchronize(L->lab.timer.stop));
        float ms;
        GL_CHECK(cudaEventElapsedTime(&ms, L->lab.timer.start, L->lab.timer.stop));
        ms_rep[rep] = ms;
    }
    compare_bits("paper/end-to-end result", pinned_out, k->h_ref, k);
    GL_CHECK(cudaFreeHost(pinned_in));
    GL_CHECK(cudaFreeHost(pinned_out));
    return gl_summarize(ms_rep, 7).median;
}

static void run_paper(lab05 *L)
{
    if (!lab05_wanted(L, "paper")) return;
    int levels = L->levels;
    gl_lab_heading("paper", "the seed's sizes, %d levels, average convention; CPU = the C reference on one core "
                            "(cpu_reference) and on all %d cores (cpu_reference_all_cores)",
                   levels, gl_cpu_threads());
    double cpu[3], gpu[3], e2e[3];
    int ran[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        int side = SEED_TABLE2[i].side;
        if (L->lab.cli.quick && side > 1024) continue;
        if (!size_allows(side, side, levels) || !case_fits(L, "paper", side, side, (size_t)side, levels)) continue;
        haar_case k;
        case_create(&k, side, side, (size_t)side, levels, HAAR_AVERAGE, L->lab.cli.seed + (uint64_t)side, 1);
        gpu[i] = NAN;
        run_case(L, "paper", &k, &gpu[i]);
        cpu[i] = k.cpu_ms;
        e2e[i] = end_to_end_ms(L, &k);
        ran[i] = 1;
        case_free(&k);
    }
    printf("\n%-10s %12s %12s %14s %16s %16s\n", "size", "CPU ms", "GPU ms", "GPU+copies ms", "GPU/CPU (ours)",
           "seed: 1 GPU/1 CPU");
    for (int i = 0; i < 3; i++) {
        if (!ran[i]) continue;
        printf("%4d^2     %12.3f %12.4f %14.4f %7.0fx / %4.0fx %15.1fx\n", SEED_TABLE2[i].side, cpu[i], gpu[i], e2e[i],
               cpu[i] / gpu[i], cpu[i] / e2e[i], SEED_TABLE2[i].over_cpu / SEED_TABLE2[i].over_gpu);
    }
    printf("(ours: kernel only / with the copies to and from the GPU; the seed's ratio of its Table 2 columns, "
           "transfers included, i5-4670 vs GTX 780)\n");
}

static void run_sizes(lab05 *L)
{
    if (!lab05_wanted(L, "sizes")) return;
    int levels = L->levels;
    gl_lab_heading("sizes", "DRAM-sized images, %d levels: GB/s on each rung's traffic (gbs) and on the floor", levels);
    int sizes[3][2] = {{8192, 8192}, {16384, 16384}, {16384, 4096}};
    if (L->lab.cli.size) sizes[0][0] = sizes[0][1] = (int)L->lab.cli.size;
    int count = L->lab.cli.size ? 1 : L->lab.cli.quick ? 1 : 3;
    if (L->lab.cli.quick && !L->lab.cli.size) sizes[0][0] = 2048, sizes[0][1] = 1024;
    for (int i = 0; i < count; i++) {
        int w = sizes[i][0], h = sizes[i][1];
        if (!size_allows(w, h, levels) || !case_fits(L, "sizes", w, h, (size_t)w, levels)) continue;
        haar_case k;
        case_create(&k, w, h, (size_t)w, levels, HAAR_AVERAGE, L->lab.cli.seed + 100 + (uint64_t)i, 0);
        gl_lab_note_working_set(&L->lab, 8.0 * w * h);
        run_case(L, "sizes", &k, NULL);
        case_free(&k);
    }
}

static void run_levels(lab05 *L)
{
    if (!lab05_wanted(L, "levels")) return;
    int side = L->lab.cli.size ? (int)L->lab.cli.size : L->lab.cli.quick ? 512 : 8192;
    int max = haar_max_levels(side, side);
    gl_lab_heading("levels", "%d^2, levels 1..4 and %d (the most): the seed's passes grow with L, the single pass does not",
                   side, max);
    int list[5] = {1, 2, 3, 4, max}, n = 0;
    for (int i = 0; i < 5; i++)
        if (list[i] <= max && (i < 4 ? 1 : max > 4)) list[n++] = list[i];
    for (int i = 0; i < n; i++) {
        if (!case_fits(L, "levels", side, side, (size_t)side, list[i])) continue;
        haar_case k;
        case_create(&k, side, side, (size_t)side, list[i], HAAR_AVERAGE, L->lab.cli.seed + 200 + (uint64_t)i, 0);
        run_case(L, "levels", &k, NULL);
        case_free(&k);
    }
}

static void run_conventions(lab05 *L)
{
    if (!lab05_wanted(L, "conventions")) return;
    gl_lab_heading("conventions", "average (bit for bit) and orthonormal (within 4 L eps max|c|), padded pitch, "
                                  "odd aspects, deepest transforms");
    /* w, h, levels (0: the most), extra pitch */
    int cases[][4] = {{512, 128, 0, 12}, {96, 1024, 0, 4}, {2048, 2048, 4, 0}, {1024, 512, 0, 36}, {4096, 64, 6, 8}};
    int n = (int)(sizeof cases / sizeof cases[0]);
    for (int conv = 0; conv <= 1; conv++)
        for (int i = 0; i < n; i++) {
            int w = cases[i][0], h = cases[i][1], levels = cases[i][2] ? cases[i][2] : haar_max_levels(w, h);
            if (L->lab.cli.quick && (size_t)w * h > 1u << 20) continue;
            if (!case_fits(L, "conventions", w, h, (size_t)w + cases[i][3], levels)) continue;
            haar_case k;
            case_create(&k, w, h, (size_t)w + cases[i][3], levels, (haar_convention)conv,
                        L->lab.cli.seed + 300 + (uint64_t)i, 0);
            char experiment[64];
            snprintf(experiment, sizeof experiment, "conventions_%s", haar_convention_name((haar_convention)conv));
            run_case(L, experiment, &k, NULL);
            case_free(&k);
        }
}

/* ---------------------------------------------------------------- exercises (Your turn) */

static const gl_exercise EX_HAAR = {"yours_haar", "exercises/haar_level.cu"};

typedef struct {
    haar_case *k;
    haar_level_args args;
} haar_ex;

static haar_ex haar_ex_on(haar_case *k)
{
    haar_ex x = {k, {k->d_in, k->d_out, k->w, k->h, k->pitch, 0.5f, NULL}}; /* 0.5: the average convention */
    return x;
}

GL_EXERCISE_CALLBACKS(ex_haar, haar_ex, haar_level_args, launch_yours_haar)

static void ex_haar_poison(void *ctx) { gl_poison(((haar_ex *)ctx)->k->d_out, ((haar_ex *)ctx)->k->n * sizeof(float)); }

/* Bit for bit against the reference's one level (average convention), at (x, y). */
static long long ex_haar_verify(void *ctx, const char *what)
{
    haar_case *k = ((haar_ex *)ctx)->k;
    return gl_exercise_verify_f32(what, k->d_out, k->h_got, k->h_ref, k->pitch, (size_t)k->h, 0);
}

/* Poison, one watched launch, the check: the student's kernel on one more case, untimed. */
static void ex_haar_check(lab05 *L, haar_case *k)
{
    haar_ex x = haar_ex_on(k);
    char what[96];
    snprintf(what, sizeof what, "exercises/%s %dx%d", EX_HAAR.variant, k->w, k->h);
    ex_haar_poison(&x);
    gl_exercise_run_once(&L->lab, &EX_HAAR, ex_haar_run, &x);
    ex_haar_verify(&x, what);
}

/* The student's level: checked on a size that is no multiple of 32 (and on the picture with
 * --save, which writes its mosaic), then measured and ranked among the four rungs at 1 level. */
static void run_exercises(lab05 *L, const picture *p)
{
    if (!gl_exercise_selected(&L->lab.cli, EX_HAAR.variant)) return;
    int quick = L->lab.cli.quick, w = quick ? 2048 : 8192, h = quick ? 1024 : 8192;
    gl_lab_heading("exercises", "your level (%s): 1 level, average, %d x %d; also checked on 1030 x 514", EX_HAAR.file,
                   w, h);
    if (!case_fits(L, "exercises", w, h, (size_t)w, 1)) return; /* the largest of its cases */
    haar_case k;
    case_create(&k, 1030, 514, 1030, 1, HAAR_AVERAGE, L->lab.cli.seed + 300, 0);
    ex_haar_check(L, &k);
    case_free(&k);
    if (L->lab.cli.save && p->w % 2 == 0 && p->h % 2 == 0 && case_fits(L, "exercises", p->w, p->h, (size_t)p->w, 1)) {
        case_create(&k, p->w, p->h, (size_t)p->w, 1, HAAR_AVERAGE, L->lab.cli.seed, 0);
        for (size_t i = 0; i < k.n; i++) k.h_img[i] = k.h_ref[i] = p->img.pixels[i];
        GL_CHECK(cudaMemcpy(k.d_in, k.h_img, k.n * sizeof(float), cudaMemcpyHostToDevice));
        haar_forward_ref(k.h_ref, k.w, k.h, k.pitch, 1, HAAR_AVERAGE);
        ex_haar_check(L, &k);
        lab05_save_mosaic(L, k.h_got, k.w, k.h, "yours_haar_mosaic");
        case_free(&k);
    }
    case_create(&k, w, h, (size_t)w, 1, HAAR_AVERAGE, L->lab.cli.seed + 200, 0);
    gl_rung rungs[HAAR_RUNG_COUNT];
    for (int r = 0; r < HAAR_RUNG_COUNT; r++) {
        gl_row row = measure(L, "exercises", &k, (haar_rung)r, 0, r == 0, NULL);
        gl_report_row(&L->lab.report, &row);
        rungs[r] = (gl_rung){haar_rung_name((haar_rung)r), row.median_ms};
    }
    haar_ex x = haar_ex_on(&k);
    gl_exercise_job j = {&EX_HAAR, ex_haar_run, ex_haar_count, &x, ex_haar_poison, ex_haar_verify};
    gl_row row = gl_row_new("exercises", EX_HAAR.variant, (long long)w * h);
    row.param = 1;
    row.bytes = row.working_set_bytes = 8.0 * w * h;
    unsigned long long c[3]; /* gl_load_counts: requests, sectors, segments */
    gl_exercise_measure(&L->lab, &j, &row, c, 3);
    gl_exercise_load_counts(&row, c);
    gl_report_row(&L->lab.report, &row);
    case_free(&k);
    char metrics[64];
    snprintf(metrics, sizeof metrics, "%.2f sectors/request", row.sectors_per_request);
    gl_exercise_rank(EX_HAAR.variant, row.median_ms, metrics, &(gl_rank_key){"ms", 0}, rungs, HAAR_RUNG_COUNT);
}

/* ---------------------------------------------------------------- main */

/* The picture of compress: --image (checked before any GPU work: a bad file or a size the levels
 * do not allow is a usage error), or a generated one. */
static void load_picture(lab05 *L, picture *p)
{
    gl_cli *c = &L->lab.cli;
    char err[512];
    if (c->image) {
        if (gl_image_read_gray(c->image, &p->img, err, sizeof err)) {
            fprintf(stderr, "%s: --image: %s\n", PROG, err);
            exit(GL_EXIT_USAGE);
        }
        if (haar_check(p->img.width, p->img.height, L->levels, err, sizeof err)) {
            fprintf(stderr, "%s: --image '%s': %s (see --levels)\n", PROG, c->image, err);
            exit(GL_EXIT_USAGE);
        }
    } else {
        int side = c->size ? (int)c->size : c->quick ? 256 : 2048;
        if (gl_image_generate(&p->img, side, side, c->seed)) {
            fprintf(stderr, "%s: out of host memory for a %d x %d picture\n", PROG, side, side);
            exit(GL_EXIT_FAIL);
        }
    }
    p->w = p->img.width, p->h = p->img.height;
}

/* --size with --levels is checked before any GPU work too. */
static void check_size(const lab05 *L)
{
    char err[256];
    long long side = L->lab.cli.size;
    if (side && haar_check((int)side, (int)side, L->levels, err, sizeof err)) {
        fprintf(stderr, "%s: --size %lld with --levels %d: %s\n", PROG, side, L->levels, err);
        exit(GL_EXIT_USAGE);
    }
}

int main(int argc, char **argv)
{
    lab05 L;
    memset(&L, 0, sizeof L);
    gl_lab_parse(&L.lab, "05_haar", &SPEC, argc, argv);
    gl_cli *c = &L.lab.cli;
    L.levels = (int)c->opt[OPT_LEVELS];
    int rung_named = 0, experiment_named = 0;
    for (int r = 0; r < HAAR_RUNG_COUNT; r++)
        rung_named |= c->n_only && gl_cli_selected(c, haar_rung_name((haar_rung)r), NULL);
    for (int i = 0; i < 5; i++) experiment_named |= c->n_only && gl_cli_selected(c, NAMES[i].name, NULL);
    experiment_named |= gl_exercise_selected(c, EX_HAAR.variant);
    for (int r = 0; r < HAAR_RUNG_COUNT; r++)
        L.rung_on[r] = !rung_named || gl_cli_selected(c, haar_rung_name((haar_rung)r), NULL);
    check_size(&L);
    picture pic;
    memset(&pic, 0, sizeof pic);
    load_picture(&L, &pic);
    gl_lab_open_device(&L.lab, PROG);

    if (!experiment_named) c->n_only = 0; /* --only with rung names alone: every experiment, those rungs */

    size_t big = c->quick ? (size_t)1 << 26 : (size_t)1 << 30; /* quick: 64 MiB, still > L2 */
    gl_lab_open_report_at_ceiling(&L.lab, big, GL_SHOW_SECTORS);
    printf("input of compress: %s, %d x %d\n", c->image ? c->image : "generated picture (from --seed)", pic.w, pic.h);

    run_paper(&L);
    run_sizes(&L);
    run_levels(&L);
    run_conventions(&L);
    lab05_run_compress(&L, &pic);
    run_exercises(&L, &pic);

    if (L.lab.report.rows > 1)
        printf("\nall %d measured rows verified against the CPU reference (average: bit for bit; orthonormal: within "
               "4 L eps max|c|) and across rungs (the same bits)\n",
               L.lab.report.rows - 1);
    if (L.compress_steps)
        printf("%scompress: %d keep steps checked against the CPU reference (forward within 4 L eps max|c|, the kept "
               "set bit for bit, the reconstruction within its bound, Parseval for orthonormal)\n",
               L.lab.report.rows > 1 ? "" : "\n", L.compress_steps);
    gl_image_free(&pic.img);
    gl_lab_close(&L.lab);
    return GL_EXIT_OK;
}
