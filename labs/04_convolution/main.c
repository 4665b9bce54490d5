/* main.c - Lab 04: convolution. Part 1: the image-filter ladder (ladder.cu).
 *
 * Experiments (run `convolution --list`):
 *   ladder   the seed's kernels at 3072 x 3072: GM / CM / SM x CF = 1 .. 16 x scalar / _Vec
 *            stores, the seed's GTX 1660 Ti table beside ours, NPP in the same run
 *   beyond   past the paper: 16-byte loads and stores, warp shuffles, several rows per thread,
 *            dp4a (four byte products per instruction)
 *   filters  every kernel with the three filters on an odd-sized image (tails, negative weights)
 *   sizes    the best rung of each family and NPP from 1024^2 to 16384^2 and an odd size: GB/s
 *            on the floor of 2 bytes per pixel, % of the same run's memcpy
 *   cnn      part 2: multi-channel convolution (01_implicit_gemm.cu, cnn_run.c): the seed's split and fused
 *            kernels, ours (implicit GEMM), cuDNN, on the seed's configurations
 *   fusion   part 3: pixel-wise and block-based pipelines run sequential / connected / fused
 *            (fusion/: pixel.cu, rolling.cu, median.cu, fusion_run.c)
 *   median   part 3: the median 3x3 ladder (scalar, vector, shared, best)
 * Every image row: a counting twin (global load requests, sectors per request), the output poisoned
 * with 0x00, run, checked; poisoned with 0xFF, timed, checked again: every interior pixel must
 * equal the CPU reference and every frame pixel must still hold the poison (never written). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cnn/cnn_run.h"
#include "fusion/fusion_run.h"
#include "ladder/convolution.h"
#include "exercises/exercises.h"
#include "gl_exercise.h"
#include "gl_image.h"
#include "gl_lab.h"
#include "gl_parallel.h"
#include "ladders.h"

#define PROG "convolution"
#define LADDER_SIDE 3072 /* the seed's image */
#define QUICK_SIDE 1024
#define ODD_W 4093 /* filters and sizes: an odd size, not a multiple of any block or CF */
#define ODD_H 2047
#define QUICK_ODD_W 257
#define QUICK_ODD_H 131

static const gl_name NAMES[] = {
    {"ladder", "the seed's kernels at 3072 x 3072 (GM, CM, SM x CF x _Vec) and NPP"},
    {"beyond", "past the paper: W16 (16-byte loads and stores, shuffles), W16_R4/R8 (rows), W16_DP4A(_R4)"},
    {"filters", "every kernel with the smooth, sharpen and edge filters on a 4093 x 2047 image"},
    {"sizes", "the best GM, CM, SM rungs, W16_DP4A(_R8, _BULK) and NPP, 1024^2 .. 16384^2 and 4093 x 2047"},
    {"cnn", "part 2: CNN convolution, split / fused (the seed) / ours / cuDNN (configurations below)"},
    {"T3A", "  cnn: the seed's T3-1x1 A: H 7, 1x1, M 256, C 832"},
    {"T3B", "  cnn: T3-1x1 B: H 14, 1x1, M 1024, C 256"},
    {"T3C", "  cnn: T3-1x1 C: H 27, 1x1, M 256, C 64 (--quick)"},
    {"T4A", "  cnn: T4-3x3 A: H 4, 3x3, M 384, C 192 (--quick)"},
    {"T4B", "  cnn: T4-3x3 B: H 13, 3x3, M 384, C 384"},
    {"T5A", "  cnn: T5-5x5 A: H 7, 5x5, M 128, C 48 (--quick)"},
    {"T5A_C348", "  cnn: T5-5x5 A with C 348, as the seed's code listing has it"},
    {"E1", "  cnn: E1: H 32, 3x3, M 64, C 64 (--quick)"},
    {"E2", "  cnn: E2: H 32, 3x3, M 128, C 128"},
    {"E3", "  cnn: E3: H 64, 3x3, M 128, C 128"},
    {"E4", "  cnn: E4: H 64, 3x3, M 256, C 256"},
    {"E3_N8", "  cnn: E3 with a batch of 8"},
    {"E3_N32", "  cnn: E3 with a batch of 32"},
    {"L56", "  cnn: a large layer: H 56, 3x3, M 256, C 256"},
    {"fusion", "part 3: pixel-wise and block-based pipelines, sequential / connected / fused (4093 x 2047, 16384^2)"},
    {"median", "part 3: the median 3x3 ladder: scalar, vector, shared, best (4093 x 2047, 16384^2)"},
    {"exercises", "Your turn: your kernels in exercises/, ranked among the rungs (only when named)"},
    {"yours_conv", "  exercises: your 3x3 filter, shared tile then coarsened (exercises/conv3x3.cu)"},
};

static const gl_cli_spec SPEC = {
    .prog = PROG,
    .summary = "Lab 04: convolution - part 1: the 3x3 image-filter ladder (GM/CM/SM, coarsening, vectors, NPP)",
    .names = NAMES,
    .n_names = (int)(sizeof NAMES / sizeof NAMES[0]),
    .size_min = 3,
    .size_max = 16384,
    .size_help = "side of the square image of ladder and beyond (pixels), instead of 3072",
    .takes_images = 1,
};

/* The seed's Table 3-5, GTX 1660 Ti, 3072 x 3072, microseconds: CF = 1 (base), 2, 4, 8, 12, 16. */
typedef struct {
    const char *family;
    double us[6], vec_us[6]; /* vec_us[0] unused */
} seed_family;

static const seed_family SEED_TABLE[] = {
    {"GM", {565.5, 373.7, 282.3, 230.3, 331.9, 418.8}, {NAN, 344.7, 243.7, 189.8, 184.2, 280.0}},
    {"CM", {390.1, 322.9, 249.9, 216.8, 329.8, 415.2}, {NAN, 254.2, 227.9, 178.5, 175.2, 269.9}},
    {"SM", {652.1, 447.1, 369.2, 275.6, 351.0, 451.3}, {NAN, 375.7, 280.8, 198.9, 180.7, 296.6}},
};

/* The ladder in table order: family x CF x (scalar, _Vec). */
static conv_kernel ladder_kernel(int family, int cf_index, int vec)
{
    static const conv_kernel base[3] = {K_GM_CF1, K_CM_CF1, K_SM_CF1};
    if (cf_index == 0) return base[family];
    /* after the three CF1 kernels: per CF, GM, GM_Vec, CM, CM_Vec, SM, SM_Vec */
    return (conv_kernel)(3 + (cf_index - 1) * 6 + family * 2 + vec);
}

/* Past the paper: every kernel of the table from W16 on, in table order (a new rung there is a new
 * row of `beyond` and of the load table). */
#define N_BEYOND (K_CONV_COUNT - K_W16)
static conv_kernel beyond_kernel(int b) { return (conv_kernel)(K_W16 + b); }

typedef struct {
    gl_lab lab;
    gl_image input; /* --image, or NULL pixels: generated */
    int *d_filter;  /* the filter's weights on the GPU (GM kernels and NPP) */
    double ladder_us[3][6][2];
    double ladder_requests[K_CONV_COUNT], ladder_spr[K_CONV_COUNT];
    double ladder_npp_us;
    double beyond_us[N_BEYOND];
    conv_kernel best[4]; /* fastest GM*, CM*, SM*, W16* at the ladder size */
    double best_us[4];
} lab04;

/* ---------------------------------------------------------------- images on the GPU */

typedef struct {
    int width, height, pitch;
    uint8_t *d_in, *d_out;
    uint8_t *h_in, *h_out, *h_ref; /* tight */
} gpu_image;

static int image_pitch(int width) { return (width + CONV_PITCH_ALIGN - 1) / CONV_PITCH_ALIGN * CONV_PITCH_ALIGN; }

/* One of an image's two GPU buffers: pitched rows and 64 bytes past the end (16-byte loads). */
static size_t image_buffer_bytes(int width, int height) { return (size_t)image_pitch(width) * height + 64; }

/* The GPU bytes gpu_image_create takes (input and output): for gl_lab_fits. */
static double gpu_image_bytes(int width, int height) { return 2.0 * image_buffer_bytes(width, height); }

static void gpu_image_create(gpu_image *g, const gl_image *src)
{
    g->width = src->width;
    g->height = src->height;
    g->pitch = image_pitch(src->width);
    size_t bytes = image_buffer_bytes(g->width, g->height), tight = (size_t)g->width * g->height;
    g->d_in = (uint8_t *)gl_device_alloc(bytes, "input image");
    g->d_out = (uint8_t *)gl_device_alloc(bytes, "output image");
    GL_CHECK(cudaMemset(g->d_in, 0, bytes)); /* the padding right of each row is read by 16-byte loads */
    GL_CHECK(cudaMemcpy2D(g->d_in, (size_t)g->pitch, src->pixels, (size_t)g->width, (size_t)g->width, (size_t)g->height,
                          cudaMemcpyHostToDevice));
    g->h_in = src->pixels;
    g->h_out = (uint8_t *)gl_host_alloc_pinned(tight, "output image"); /* copied back twice a row */
    g->h_ref = (uint8_t *)gl_host_alloc(tight, "reference image");
}

/* Frees the GPU buffers and the host output and reference; h_in belongs to the gl_image. */
static void gpu_image_free(gpu_image *g)
{
    GL_CHECK(cudaFree(g->d_in));
    GL_CHECK(cudaFree(g->d_out));
    gl_host_free_pinned(g->h_out);
    free(g->h_ref);
}

static void poison_output(const gpu_image *g, int value)
{
    GL_CHECK(cudaMemset(g->d_out, value, (size_t)g->pitch * g->height));
    gl_fence(); /* done before the timer stream's kernel writes (gl_check.h) */
}

/* What pixel (x, y) of the output must hold: the reference inside, the poison byte on the frame. */
static int expected(const gpu_image *g, int poison, int x, int y)
{
    int frame = x == 0 || y == 0 || x == g->width - 1 || y == g->height - 1;
    return frame ? poison : g->h_ref[(size_t)y * g->width + x];
}

/* Copy the output back; every interior pixel must equal the reference, every frame pixel the
 * poison byte. Returns the pixels compared; a mismatch prints the first ones and exits 1. */
static void copy_output(const gpu_image *g)
{
    GL_CHECK(cudaMemcpy2D(g->h_out, (size_t)g->width, g->d_out, (size_t)g->pitch, (size_t)g->width, (size_t)g->height,
                          cudaMemcpyDeviceToHost));
}

static long long check_output(const gpu_image *g, int poison, const char *what)
{
    copy_output(g);
    long long bad = 0;
    GL_PARALLEL_FOR_WITH(reduction(+ : bad)) /* first count on every core; print only on a failure */
    for (int y = 0; y < g->height; y++)
        for (int x = 0; x < g->width; x++) bad += g->h_out[(size_t)y * g->width + x] != expected(g, poison, x, y);
    if (bad == 0) return (long long)g->width * g->height;
    bad = 0;
    for (int y = 0; y < g->height; y++)
        for (int x = 0; x < g->width; x++) {
            size_t i = (size_t)y * g->width + x;
            int frame = x == 0 || y == 0 || x == g->width - 1 || y == g->height - 1;
            int want = expected(g, poison, x, y);
            if (g->h_out[i] == want) continue;
            if (bad < GL_MAX_MISMATCH_LINES)
                fprintf(stderr, "  %s: pixel (%d, %d): got %d, expected %d%s\n", what, x, y, g->h_out[i], want,
                        frame ? " (a frame pixel: must stay unwritten)" : "");
            bad++;
        }
    gl_require_match(what, bad, (long long)g->width * g->height);
    return (long long)g->width * g->height;
}

/* ---------------------------------------------------------------- one measured kernel */

typedef struct {
    conv_kernel kernel; /* K_CONV_COUNT: the NPP peer */
    conv_args args;
    int divisor; /* NPP */
    cudaStream_t stream;
} conv_job;

#define PEER K_CONV_COUNT

static void enqueue_conv(void *ctx, cudaStream_t s)
{
    conv_job *j = (conv_job *)ctx;
    if (j->kernel == PEER)
        conv_npp_run(j->args.in, j->args.out, j->args.width, j->args.height, j->args.pitch, j->args.filter, j->divisor, s);
    else launch_conv(j->kernel, &j->args, s);
}

static void count_conv(void *ctx, unsigned long long *counts, cudaStream_t s)
{
    conv_job j = *(conv_job *)ctx;
    j.args.counts = counts;
    launch_conv(j.kernel, &j.args, s);
}

/* Count, run, check, time, check; one CSV row (ratio = time / base_ms when base_ms > 0, 1 when
 * base_ms < 0: the row is the baseline).
 * Returns the row (median in ms). */
static gl_row measure(lab04 *L, const char *experiment, const char *variant, conv_kernel k, gpu_image *g,
                      const conv_filter *f, double base_ms)
{
    char what[128];
    snprintf(what, sizeof what, "%s/%s %dx%d", experiment, variant, g->width, g->height);
    conv_job job = {k, {g->d_in, g->d_out, g->width, g->height, g->pitch, L->d_filter, f->shift, NULL, 0}, 1 << f->shift,
                    L->lab.timer.stream};
    gl_row row = gl_row_new(experiment, variant, (long long)g->width * g->height);
    row.param = g->width;
    row.bytes = row.working_set_bytes = 2.0 * g->width * g->height;
    poison_output(g, 0x00);
    if (k != PEER) { /* the counting twin writes the output too: check it */
        unsigned long long h[3]; /* gl_load_counts: requests, sectors, segments */
        gl_lab_count(&L->lab, count_conv, &job, h, 3);
        row.requests = (double)h[0];
        row.sectors_per_request = h[0] ? (double)h[1] / h[0] : NAN;
        row.segments_per_request = h[0] ? (double)h[2] / h[0] : NAN;
    } else {
        enqueue_conv(&job, L->lab.timer.stream);
        GL_CHECK(cudaStreamSynchronize(L->lab.timer.stream));
    }
    check_output(g, 0x00, what);
    poison_output(g, 0xFF);
    if (k == PEER) gl_lab_time_without_graph(&L->lab, &row, enqueue_conv, &job); /* NPP cannot be captured */
    else gl_lab_time(&L->lab, &row, enqueue_conv, &job);
    row.checked = check_output(g, 0xFF, what);
    if (base_ms > 0) row.ratio = row.median_ms / base_ms;
    if (base_ms < 0) row.ratio = 1.0; /* this row is the baseline */
    gl_report_row(&L->lab.report, &row);
    return row;
}

/* Upload the filter (GM weights and NPP's reversed kernel are the same: the filters are
 * symmetric) and compute the reference for this image. */
static void use_filter(lab04 *L, gpu_image *g, const conv_filter *f)
{
    conv_set_constant_filter(f);
    GL_CHECK(cudaMemcpy(L->d_filter, f->w, sizeof f->w, cudaMemcpyHostToDevice));
    conv_reference(g->h_in, g->h_ref, g->width, g->height, f, 0);
}

/* The NPP rows run in every experiment when the lab was built with NPP. */
static int npp_selected(const lab04 *L)
{
    (void)L;
    return conv_npp_available();
}

/* ---------------------------------------------------------------- ladder and beyond */

static void run_ladder(lab04 *L, gpu_image *g)
{
    gl_cli *c = &L->lab.cli;
    int want_ladder = gl_cli_selected(c, "ladder", NULL), want_beyond = gl_cli_selected(c, "beyond", NULL);
    if (!want_ladder && !want_beyond) return;
    const conv_filter *f = &CONV_FILTERS[FILTER_SMOOTH];
    use_filter(L, g, f);
    gl_lab_heading("ladder", "%s filter (>> %d), %d x %d pixels (%.1f MB in + out: %s the L2); "
                             "GB/s on 2 bytes per pixel",
                   f->name, f->shift, g->width, g->height, 2.0 * g->width * g->height / 1e6,
                   2.0 * g->width * g->height < (double)L->lab.dev.l2_bytes ? "fits in" : "larger than");
    for (int fam = 0; fam < 3 && want_ladder; fam++)
        for (int ci = 0; ci < 6; ci++)
            for (int vec = 0; vec < 2; vec++) {
                if (ci == 0 && vec) continue;
                conv_kernel k = ladder_kernel(fam, ci, vec);
                double base = fam == 0 && ci == 0 ? -1.0 : L->ladder_us[0][0][0] / 1e3; /* ratio: time / GM's */
                gl_row r = measure(L, "ladder", conv_kernel_name(k), k, g, f, base);
                L->ladder_us[fam][ci][vec] = r.median_ms * 1e3;
                L->ladder_requests[k] = r.requests;
                L->ladder_spr[k] = r.sectors_per_request;
                if (L->best_us[fam] == 0 || r.median_ms * 1e3 < L->best_us[fam]) {
                    L->best_us[fam] = r.median_ms * 1e3;
                    L->best[fam] = k;
                }
            }
    double gm_ms = L->ladder_us[0][0][0] / 1e3;
    if (want_ladder && npp_selected(L)) L->ladder_npp_us = measure(L, "ladder", "NPP", PEER, g, f, gm_ms).median_ms * 1e3;
    for (int b = 0; b < N_BEYOND && want_beyond; b++) {
        const conv_kernel k = beyond_kernel(b);
        if (!gl_cli_rung(c, "beyond", conv_kernel_name(k))) continue; /* curated: --all runs every rung */
        gl_row r = measure(L, "beyond", conv_kernel_name(k), k, g, f, gm_ms);
        L->beyond_us[b] = r.median_ms * 1e3;
        L->ladder_requests[k] = r.requests;
        L->ladder_spr[k] = r.sectors_per_request;
        if (L->best_us[3] == 0 || r.median_ms * 1e3 < L->best_us[3]) {
            L->best_us[3] = r.median_ms * 1e3;
            L->best[3] = k;
        }
    }
}

static void print_seed_table(const lab04 *L, const gpu_image *g)
{
    if (L->ladder_us[0][0][0] <= 0) return;
    printf("\n== the seed's table (GTX 1660 Ti, 3072 x 3072, us) beside this GPU (%s, %d x %d, us)\n",
           L->lab.dev.name, g->width, g->height);
    static const gl_col cols[] = {{"kernel", "", 8},    {"CF=1", "%.1f", 7},  {"2", "%.1f", 7},
                                  {"4", "%.1f", 7},     {"8", "%.1f", 7},     {"12", "%.1f", 7},
                                  {"16", "%.1f", 7}};
    gl_table_header(stdout, cols, 7);
    for (int fam = 0; fam < 3; fam++)
        for (int vec = 0; vec < 2; vec++) {
            char label[32];
            double seed[6], ours[6];
            for (int ci = 0; ci < 6; ci++) {
                seed[ci] = vec ? SEED_TABLE[fam].vec_us[ci] : SEED_TABLE[fam].us[ci];
                ours[ci] = vec && ci == 0 ? NAN : L->ladder_us[fam][ci][vec];
            }
            snprintf(label, sizeof label, "%s%s", SEED_TABLE[fam].family, vec ? "_Vec" : "");
            gl_table_line(stdout, cols, 7, label, seed);
            snprintf(label, sizeof label, "  ours");
            gl_table_line(stdout, cols, 7, label, ours);
        }
    double gm = L->ladder_us[0][0][0], best = L->ladder_us[1][4][1]; /* CM_CF12_Vec, the seed's best */
    printf("CM_CF12_Vec over GM: %.2fx here, 3.22x in the seed", gm / best);
    if (L->ladder_npp_us > 0) printf("; NPP %.1f us", L->ladder_npp_us);
    printf("\n");
    if (L->best_us[3] > 0) {
        printf("past the paper:");
        for (int b = 0, first = 1; b < N_BEYOND; b++)
            if (L->beyond_us[b] > 0) {
                printf("%s %s %.1f us", first ? "" : ",", conv_kernel_name(beyond_kernel(b)), L->beyond_us[b]);
                first = 0;
            }
        printf(" (the best %.2fx over GM)\n", gm / L->best_us[3]);
    }
    printf("\n== global loads: warp-level load requests (the seed's LDG count) and sectors per request\n");
    printf("(the seed, Nsight Compute on the GTX 1660 Ti: LDG 5.3M for GM, 1.2M with coarsening; "
           "sectors/LDG 2.1 -> 14)\n");
    const conv_kernel seed_show[] = {K_GM_CF1, K_CM_CF1, K_SM_CF1, K_GM_CF8, K_CM_CF12_VEC, K_SM_CF12_VEC, K_CM_CF16};
    const int n_seed = (int)(sizeof seed_show / sizeof seed_show[0]);
    printf("%-14s %12s %10s %10s\n", "kernel", "requests", "per pixel", "sect/req");
    for (int i = 0; i < n_seed + N_BEYOND; i++) { /* the seed's, then every kernel past the paper */
        const conv_kernel k = i < n_seed ? seed_show[i] : beyond_kernel(i - n_seed);
        if (L->ladder_requests[k] <= 0) continue;
        printf("%-14s %12.0f %10.3f %10.2f\n", conv_kernel_name(k), L->ladder_requests[k],
               32.0 * L->ladder_requests[k] / ((double)(g->width - 2) * (g->height - 2)), L->ladder_spr[k]);
    }
}

/* ---------------------------------------------------------------- filters (odd size) */

static void run_filters(lab04 *L, const gl_image *odd)
{
    if (!gl_cli_selected(&L->lab.cli, "filters", NULL)) return;
    gl_lab_heading("filters", "every kernel, the three filters, %d x %d pixels (odd: the tails of every block "
                              "and CF are checked)", odd->width, odd->height);
    if (!gl_lab_fits(&L->lab, gpu_image_bytes(odd->width, odd->height), "filters", NULL,
                     (long long)odd->width * odd->height))
        return;
    gpu_image g;
    gpu_image_create(&g, odd);
    for (int fi = 0; fi < N_FILTERS; fi++) {
        const conv_filter *f = &CONV_FILTERS[fi];
        use_filter(L, &g, f);
        char variant[64];
        for (int k = 0; k < K_CONV_COUNT; k++) {
            if (k >= K_W16_DP4A && !conv_filter_fits_dp4a(f)) continue; /* the DP4A kernels */
            if (k >= K_W16 && !gl_cli_curated(&L->lab.cli, "beyond", conv_kernel_name((conv_kernel)k))) continue;
            snprintf(variant, sizeof variant, "%s/%s", f->name, conv_kernel_name((conv_kernel)k));
            measure(L, "filters", variant, (conv_kernel)k, &g, f, 0);
        }
        if (npp_selected(L)) {
            snprintf(variant, sizeof variant, "%s/NPP", f->name);
            measure(L, "filters", variant, PEER, &g, f, 0);
        }
    }
    gpu_image_free(&g);
}

/* ---------------------------------------------------------------- sizes */

static void run_sizes(lab04 *L)
{
    gl_cli *c = &L->lab.cli;
    if (!gl_cli_selected(c, "sizes", NULL)) return;
    /* Families the ladder did not run: the seed's best rung of each, and the last rung past it. */
    static const conv_kernel fallback[3] = {K_GM_CF12_VEC, K_CM_CF12_VEC, K_SM_CF12_VEC};
    for (int f = 0; f < 3; f++)
        if (L->best_us[f] == 0) L->best[f] = fallback[f];
    static const int SIDES[][2] = {{1024, 1024}, {3072, 3072}, {8192, 8192}, {16384, 16384}, {ODD_W, ODD_H}};
    static const int QUICK_SIDES[][2] = {{1024, 1024}, {4 * QUICK_ODD_W + 1, 4 * QUICK_ODD_H + 1}};
    int n = c->quick ? 2 : 5;
    const conv_filter *f = &CONV_FILTERS[FILTER_SMOOTH];
    /* Past the paper, the one-row and the eight-row DP4A rungs: the first wins while the image sits
     * in the L2, the second once it streams from DRAM; and W16_DP4A_BULK (the rows ahead in shared
     * memory, issue 20). */
    const conv_kernel rungs[] = {L->best[0],        L->best[1],        L->best[2],       K_W16_DP4A,
                                 K_W16_DP4A_R8,     K_W16_DP4A_R4_SAT, K_W16_DP4A_R6_SAT, K_W16_DP4A_R4_SW,
                                 K_W16_DP4A_R6_SW,  K_W16_DP4A_R4_DW,  K_W16_DP4A_BULK};
    gl_lab_heading("sizes", "the fastest kernel of each family at the ladder size (%s, %s, %s), W16_DP4A, "
                            "W16_DP4A_R8, its _SAT, _SW and _DW rungs, W16_DP4A_BULK and NPP; GB/s on 2 bytes per pixel; "
                            "ratio = time / NPP's time",
                   conv_kernel_name(L->best[0]), conv_kernel_name(L->best[1]), conv_kernel_name(L->best[2]));
    for (int s = 0; s < n; s++) {
        int w = c->quick ? QUICK_SIDES[s][0] : SIDES[s][0], h = c->quick ? QUICK_SIDES[s][1] : SIDES[s][1];
        if (!gl_lab_fits(&L->lab, gpu_image_bytes(w, h), "sizes", NULL, (long long)w * h)) continue;
        gl_image img;
        if (gl_image_generate(&img, w, h, c->seed + 2 + s)) {
            fprintf(stderr, "%s: out of host memory for a %d x %d image\n", PROG, w, h);
            exit(GL_EXIT_FAIL);
        }
        gpu_image g;
        gpu_image_create(&g, &img);
        use_filter(L, &g, f);
        if ((double)w * h * 2 < 4.0 * L->lab.dev.l2_bytes)
            printf("note: %d x %d: in + out = %.1f MB < 4x L2: served from the L2, not DRAM\n", w, h, 2.0 * w * h / 1e6);
        double npp_ms = npp_selected(L) ? measure(L, "sizes", "NPP", PEER, &g, f, 0).median_ms : 0;
        for (size_t b = 0; b < sizeof rungs / sizeof rungs[0]; b++)
            if (b < 3 || gl_cli_curated(c, "beyond", conv_kernel_name(rungs[b]))) /* the curated ladder's, or --all */
                measure(L, "sizes", conv_kernel_name(rungs[b]), rungs[b], &g, f, npp_ms);
        gpu_image_free(&g);
        gl_image_free(&img);
    }
}

/* ---------------------------------------------------------------- --save */

/* --save: the checked output in g->h_out, with the frame copied from the input so that the
 * picture is whole, as DIR/NAME.pgm and .png. */
static void save_output(lab04 *L, gpu_image *g, const char *name)
{
    for (int y = 0; y < g->height; y++)
        for (int x = 0; x < g->width; x++)
            if (x == 0 || y == 0 || x == g->width - 1 || y == g->height - 1)
                g->h_out[(size_t)y * g->width + x] = g->h_in[(size_t)y * g->width + x];
    gl_image out = {g->width, g->height, g->h_out};
    gl_lab_save_picture(&L->lab, name, &out);
}

/* The input and each filter's output (the fastest kernel's, checked against the reference, with
 * the frame copied from the input so that the picture is whole). */
static void save_pictures(lab04 *L, gpu_image *g)
{
    if (!L->lab.cli.save) return;
    gl_image in = {g->width, g->height, g->h_in};
    gl_lab_save_picture(&L->lab, "input", &in);
    conv_kernel k = L->best_us[3] > 0 ? L->best[3] : K_W16_DP4A_R8;
    for (int fi = 0; fi < N_FILTERS; fi++) {
        const conv_filter *f = &CONV_FILTERS[fi];
        use_filter(L, g, f);
        conv_args a = {g->d_in, g->d_out, g->width, g->height, g->pitch, L->d_filter, f->shift, NULL, 0};
        poison_output(g, 0x00);
        launch_conv(k, &a, L->lab.timer.stream);
        GL_CHECK(cudaStreamSynchronize(L->lab.timer.stream));
        char what[96];
        snprintf(what, sizeof what, "save/%s/%s", f->name, conv_kernel_name(k));
        check_output(g, 0x00, what);
        char name[64];
        snprintf(name, sizeof name, "%s_%s", f->name, conv_kernel_name(k));
        save_output(L, g, name);
    }
}

/* ---------------------------------------------------------------- exercises (Your turn) */

static const gl_exercise EX_CONV = {"yours_conv", "exercises/conv3x3.cu"};
static const conv_kernel EX_RUNGS[] = {K_GM_CF1, K_CM_CF1, K_SM_CF1, K_SM_CF4, K_SM_CF4_VEC, K_W16_R8, K_W16_DP4A_R8};
#define N_EX_RUNGS (sizeof EX_RUNGS / sizeof EX_RUNGS[0])

typedef struct {
    lab04 *L;
    gpu_image *g;
    conv_args args;
} conv_ex;

static conv_ex conv_ex_on(lab04 *L, gpu_image *g, const conv_filter *f)
{
    conv_ex x = {L, g, {g->d_in, g->d_out, g->width, g->height, g->pitch, L->d_filter, f->shift, NULL, 0}};
    return x;
}

GL_EXERCISE_CALLBACKS(ex_conv, conv_ex, conv_args, launch_yours_conv)

static void ex_conv_poison(void *ctx) { poison_output(((conv_ex *)ctx)->g, 0x00); }

/* The run poisoned 0x00 is done: keep its output, run again poisoned 0xFF (watched); both must
 * equal the reference inside and leave the frame unwritten. */
static long long ex_conv_verify(void *ctx, const char *what)
{
    conv_ex *x = (conv_ex *)ctx;
    gpu_image *g = x->g;
    size_t n = (size_t)g->width * g->height;
    uint8_t *first = (uint8_t *)gl_host_alloc(n, "output");
    int *want = (int *)gl_host_alloc(n * sizeof(int), "reference");
    copy_output(g);
    memcpy(first, g->h_out, n);
    poison_output(g, 0xFF);
    gl_exercise_run_once(&x->L->lab, &EX_CONV, ex_conv_run, x);
    copy_output(g);
    for (size_t i = 0; i < n; i++) {
        size_t px = i % g->width, py = i / g->width;
        want[i] = px == 0 || py == 0 || px + 1 == (size_t)g->width || py + 1 == (size_t)g->height ? -1 : g->h_ref[i];
    }
    long long checked = gl_exercise_check_u8(what, first, g->h_out, want, g->width, g->height);
    free(first);
    free(want);
    return checked;
}

/* The student's filter: checked with every filter on the odd picture, then measured on the ladder's
 * picture and ranked among the ladder's rungs (and NPP) measured beside it. */
static void run_exercises(lab04 *L, gpu_image *g, const gl_image *odd)
{
    if (!gl_exercise_selected(&L->lab.cli, EX_CONV.variant)) return;
    const conv_filter *f = &CONV_FILTERS[FILTER_SMOOTH];
    gl_lab_heading("exercises", "your 3x3 filter (%s): %s on %d x %d pixels; every filter checked on %d x %d",
                   EX_CONV.file, f->name, g->width, g->height, odd->width, odd->height);
    if (!gl_lab_fits(&L->lab, gpu_image_bytes(odd->width, odd->height), "exercises", EX_CONV.variant,
                     (long long)odd->width * odd->height))
        return;
    gpu_image go;
    gpu_image_create(&go, odd);
    for (int fi = 0; fi < N_FILTERS; fi++) {
        use_filter(L, &go, &CONV_FILTERS[fi]);
        conv_ex x = conv_ex_on(L, &go, &CONV_FILTERS[fi]);
        char what[96];
        snprintf(what, sizeof what, "exercises/%s %s %dx%d", EX_CONV.variant, CONV_FILTERS[fi].name, go.width, go.height);
        ex_conv_poison(&x);
        gl_exercise_run_once(&L->lab, &EX_CONV, ex_conv_run, &x);
        ex_conv_verify(&x, what);
    }
    gpu_image_free(&go);
    use_filter(L, g, f);
    gl_rung rungs[N_EX_RUNGS + 1];
    int n = 0;
    for (size_t k = 0; k < N_EX_RUNGS; k++) {
        const char *name = conv_kernel_name(EX_RUNGS[k]);
        rungs[n++] = (gl_rung){name, measure(L, "exercises", name, EX_RUNGS[k], g, f, 0).median_ms};
    }
    if (npp_selected(L)) rungs[n++] = (gl_rung){"NPP", measure(L, "exercises", "NPP", PEER, g, f, 0).median_ms};
    conv_ex x = conv_ex_on(L, g, f);
    gl_exercise_job j = {&EX_CONV, ex_conv_run, ex_conv_count, &x, ex_conv_poison, ex_conv_verify};
    gl_row row = gl_row_new("exercises", EX_CONV.variant, (long long)g->width * g->height);
    row.param = g->width;
    row.bytes = row.working_set_bytes = 2.0 * g->width * g->height;
    unsigned long long h[3]; /* gl_load_counts: requests, sectors, segments */
    gl_exercise_measure(&L->lab, &j, &row, h, 3);
    gl_exercise_load_counts(&row, h);
    gl_report_row(&L->lab.report, &row);
    if (L->lab.cli.save) save_output(L, g, "smooth_yours_conv"); /* h_out: the checked output */
    char metrics[64];
    snprintf(metrics, sizeof metrics, "%.2f sectors/request", row.sectors_per_request);
    gl_exercise_rank(EX_CONV.variant, row.median_ms, metrics, &(gl_rank_key){"ms", 0}, rungs, n);
}

/* ---------------------------------------------------------------- main */

/* The picture: --image (checked here, before any GPU work: a bad file is a usage error), or a
 * generated one. */
static void load_input(lab04 *L, int side)
{
    gl_cli *c = &L->lab.cli;
    if (c->image) {
        char err[512];
        if (gl_image_read_gray(c->image, &L->input, err, sizeof err)) {
            fprintf(stderr, "%s: --image: %s\n", PROG, err);
            exit(GL_EXIT_USAGE);
        }
        if (L->input.width < 3 || L->input.height < 3) {
            fprintf(stderr, "%s: --image '%s' is %d x %d: a 3x3 filter needs at least 3 x 3 pixels\n", PROG, c->image,
                    L->input.width, L->input.height);
            exit(GL_EXIT_USAGE);
        }
    } else if (gl_image_generate(&L->input, side, side, c->seed)) {
        fprintf(stderr, "%s: out of host memory for a %d x %d image\n", PROG, side, side);
        exit(GL_EXIT_FAIL);
    }
}

/* SPEC's names, then the cnn table's rows: --only T4A,ours9_sliced_k runs that rung alone on T4A. */
static gl_cli_spec spec_with_rows(void)
{
    static gl_name names[sizeof NAMES / sizeof NAMES[0] + 64];
    int n = 0;
    for (; n < (int)(sizeof NAMES / sizeof NAMES[0]); n++) names[n] = NAMES[n];
    for (int v = 0; v < cnn_row_count() && n < (int)(sizeof names / sizeof names[0]); v++)
        names[n++] = (gl_name){cnn_row_name(v), "  cnn row (cnn/cnn_variants.c): only the named rows run"};
    gl_cli_spec s = SPEC;
    s.names = names;
    s.n_names = n;
    s.ladders = LAB04_LADDERS; /* ladders.c: the curated ladders of the three parts */
    s.n_ladders = lab04_ladder_count();
    return s;
}

int main(int argc, char **argv)
{
    lab04 L;
    memset(&L, 0, sizeof L);
    const gl_cli_spec spec = spec_with_rows();
    gl_lab_parse(&L.lab, "04_convolution", &spec, argc, argv);
    gl_cli *c = &L.lab.cli;
    int side = c->size ? (int)c->size : c->quick ? QUICK_SIDE : LADDER_SIDE;
    load_input(&L, side);
    gl_lab_open_device(&L.lab, PROG);
    conv_npp_set_sms(L.lab.dev.sms); /* NPP sizes its grids for the run's SMs (--sms) */
    printf("NPP: %s\n", conv_npp_version());
    printf("input: %s, %d x %d\n", c->image ? c->image : "generated (gradients, shapes, strokes, noise; from --seed)",
           L.input.width, L.input.height);

    /* The copy ceiling on as many bytes as the largest image moves (in + out). */
    size_t big = c->quick ? (size_t)1 << 26 : (size_t)16384 * 16384; /* quick: 64 MiB, still > L2 */
    gl_lab_open_report_at_ceiling(&L.lab, big, GL_SHOW_SECTORS);

    L.d_filter = (int *)gl_device_alloc(9 * sizeof(int), "filter");
    gpu_image g;
    gpu_image_create(&g, &L.input);
    run_ladder(&L, &g);
    print_seed_table(&L, &g);
    gl_image odd;
    int ow = c->quick ? QUICK_ODD_W : ODD_W, oh = c->quick ? QUICK_ODD_H : ODD_H;
    if (gl_image_generate(&odd, ow, oh, c->seed + 1)) {
        fprintf(stderr, "%s: out of host memory\n", PROG);
        return GL_EXIT_FAIL;
    }
    run_filters(&L, &odd);
    run_exercises(&L, &g, &odd);
    gl_image_free(&odd);
    run_sizes(&L);
    save_pictures(&L, &g);
    cnn_run(&L.lab);
    fusion_run(&L.lab);
    median_run(&L.lab);

    printf("\nall %d measured outputs verified against the CPU reference (images: interior exact, frame "
           "unwritten; cnn: within the error bound; fusion, median: every pixel exact)\n",
           L.lab.report.rows - 1);
    gpu_image_free(&g);
    gl_image_free(&L.input);
    GL_CHECK(cudaFree(L.d_filter));
    gl_lab_close(&L.lab);
    return GL_EXIT_OK;
}
