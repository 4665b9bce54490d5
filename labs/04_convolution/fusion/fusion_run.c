/* fusion_run.c - Lab 04, part 3: the `fusion` and `median` experiments.
 *
 * fusion: two pipelines (fusion.h), each run three ways, as the seed defines them:
 *   sequential  for every stage: its input copied host -> device, the kernel, its output copied back
 *   connected   one upload, every stage's kernel on the device, one download
 *   fused       one upload, one kernel doing every stage, one download
 * Rows per pipeline and picture size: every stage's kernel alone (on the reference's input), then
 * each mode end to end (e2e: transfers included; host buffers pinned, cudaMallocHost) and its
 * kernels only. The sequential mode's kernel time is the sum of the stages' own times (it launches
 * them one by one between copies). Every output - each stage's, each mode's - is checked bit for
 * bit against the CPU reference: outputs poisoned with 0x00, run, checked; poisoned with 0xFF,
 * timed, checked again (a mismatch prints the first pixels and exits 1).
 * median: the median 3x3 ladder (scalar, vector, shared, best), each rung checked the same way. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fusion_run.h"
#include "gl_image.h"
#include "gl_parallel.h"
#include "gl_progress.h"

#define MAX_STAGES 5
#define SAVE_W 640 /* --save without --image: the pictures of a generated 640 x 400 picture */
#define SAVE_H 400
#define SEED_GAIN_PIXEL 32.0 /* the seed: fusion's average gain, GT555M and Vivante GC2000 */
#define SEED_GAIN_BLOCK 17.0
#define SEED_GAIN_VECTOR 20.0 /* the seed's median: uint4 (4 outputs per work-item) over scalar */
#define SEED_GAIN_LOCAL 35.0  /* local-memory tile over scalar */
#define GOAL_PCT_PIXEL 90.0
#define GOAL_PCT_BLOCK 80.0
#define GOAL_MEDIAN 3.0

typedef struct {
    int w, h;
} pic_size;

/* An odd size (no multiple of any block, vector or strip) and the DRAM-bound size of the goals.
 * --quick: a picture smaller than a warp's strip, and one where every rolling kernel has interior
 * strips and, for 8 and 16 pixels a lane, warps clear of both edges (its fast path: 96-row strips
 * from y0 = 96 need 195 rows; a 16-pixel warp from x0 = 464 needs 976 columns). */
static const pic_size FULL_SIZES[] = {{4093, 2047}, {16384, 16384}};
static const pic_size QUICK_SIZES[] = {{61, 7}, {1021, 331}};
#define N_SIZES 2

typedef enum { MODE_SEQUENTIAL, MODE_CONNECTED, MODE_FUSED, MODES } mode;
static const char *const MODE_NAMES[MODES] = {"sequential", "connected", "fused"};

/* The fused kernels' names: "fused" + the kind's suffix. */
static const char *const KIND_SUFFIX[BK_FUSED_KINDS] = {"", "_w16", "_dpx", "_strips", "_s16", "_lean", "_lean_a6",
                                                        "_lean_r192", "_pair", "_pair32", "_half", "_xor", "_xorc",
                                                        "_flat", "_flat_r36", "_flat_sf"};

typedef struct {
    gl_lab *L;
    const char *name; /* "pixel" or "block" */
    int stages;
    int in_bpp[MAX_STAGES], out_bpp[MAX_STAGES]; /* bytes per pixel of each stage's input and output */
    int pitched; /* block: rows padded to FUSION_PITCH_ALIGN on the GPU; pixel: tight (flat kernels) */
    int max_bpp; /* the largest of in_bpp and out_bpp */
    int w, h;
    void *h_in, *h_tmp[2], *h_out; /* pinned, tight rows */
    void *d_in, *d_tmp[2], *d_out;
    size_t d_bytes[2];         /* [0]: d_in and d_tmp; [1]: d_out */
    void *ref[MAX_STAGES];     /* tight: stage k's output by the CPU reference */
    uint8_t *scratch;          /* tight, for checks */
    const uint8_t *d_gamma;
    bk_fused_kind kind; /* which fused kernel (the first, or the extra rows: fused_kind_runs) */
} pipeline;

static size_t pixels(const pipeline *p) { return (size_t)p->w * p->h; }
static size_t tight_row(const pipeline *p, int bpp) { return (size_t)p->w * bpp; }
static size_t dev_pitch(const pipeline *p, int bpp)
{
    size_t t = tight_row(p, bpp);
    return p->pitched ? (t + FUSION_PITCH_ALIGN - 1) / FUSION_PITCH_ALIGN * FUSION_PITCH_ALIGN : t;
}
static int last_stage(const pipeline *p) { return p->stages - 1; }

static void upload(const pipeline *p, void *d, const void *h, int bpp, cudaStream_t s)
{
    GL_CHECK(cudaMemcpy2DAsync(d, dev_pitch(p, bpp), h, tight_row(p, bpp), tight_row(p, bpp), (size_t)p->h,
                               cudaMemcpyHostToDevice, s));
}

static void download(const pipeline *p, void *h, const void *d, int bpp, cudaStream_t s)
{
    GL_CHECK(cudaMemcpy2DAsync(h, tight_row(p, bpp), d, dev_pitch(p, bpp), tight_row(p, bpp), (size_t)p->h,
                               cudaMemcpyDeviceToHost, s));
}

static void launch_stage(const pipeline *p, int k, const void *in, void *out, cudaStream_t s)
{
    if (!p->pitched) {
        px_args a = {(const uint32_t *)in, out, pixels(p), p->d_gamma};
        launch_px_stage((px_stage)k, &a, s);
    } else {
        bk_args a = {(const uint8_t *)in, (uint8_t *)out, p->w, p->h, (int)dev_pitch(p, 1)};
        launch_bk_stage((bk_stage)k, &a, s);
    }
}

static void launch_fused(const pipeline *p, const void *in, void *out, cudaStream_t s)
{
    if (!p->pitched) {
        px_args a = {(const uint32_t *)in, out, pixels(p), p->d_gamma};
        launch_px_fused(&a, p->kind, s);
    } else {
        bk_args a = {(const uint8_t *)in, (uint8_t *)out, p->w, p->h, (int)dev_pitch(p, 1)};
        launch_bk_fused(&a, p->kind, s);
    }
}

/* ---------------------------------------------------------------- the three modes */

static void enqueue_sequential(void *ctx, cudaStream_t s)
{
    pipeline *p = (pipeline *)ctx;
    for (int k = 0; k < p->stages; k++) {
        const int last = k == last_stage(p);
        void *d_out = last ? p->d_out : p->d_tmp[1], *h_out = last ? p->h_out : p->h_tmp[k & 1];
        upload(p, p->d_tmp[0], k == 0 ? p->h_in : p->h_tmp[(k - 1) & 1], p->in_bpp[k], s);
        launch_stage(p, k, p->d_tmp[0], d_out, s);
        download(p, h_out, d_out, p->out_bpp[k], s);
    }
}

static void enqueue_connected_kernels(void *ctx, cudaStream_t s)
{
    pipeline *p = (pipeline *)ctx;
    for (int k = 0; k < p->stages; k++)
        launch_stage(p, k, k == 0 ? p->d_in : p->d_tmp[(k - 1) & 1], k == last_stage(p) ? p->d_out : p->d_tmp[k & 1], s);
}

static void enqueue_connected(void *ctx, cudaStream_t s)
{
    pipeline *p = (pipeline *)ctx;
    upload(p, p->d_in, p->h_in, p->in_bpp[0], s);
    enqueue_connected_kernels(ctx, s);
    download(p, p->h_out, p->d_out, p->out_bpp[last_stage(p)], s);
}

static void enqueue_fused_kernel(void *ctx, cudaStream_t s)
{
    pipeline *p = (pipeline *)ctx;
    launch_fused(p, p->d_in, p->d_out, s);
}

static void enqueue_fused(void *ctx, cudaStream_t s)
{
    pipeline *p = (pipeline *)ctx;
    upload(p, p->d_in, p->h_in, p->in_bpp[0], s);
    enqueue_fused_kernel(ctx, s);
    download(p, p->h_out, p->d_out, p->out_bpp[last_stage(p)], s);
}

typedef struct {
    pipeline *p;
    int k;
} stage_job;

static void enqueue_stage(void *ctx, cudaStream_t s)
{
    stage_job *j = (stage_job *)ctx;
    launch_stage(j->p, j->k, j->p->d_tmp[0], j->k == last_stage(j->p) ? j->p->d_out : j->p->d_tmp[1], s);
}

/* ---------------------------------------------------------------- checks */

/* Compare a tight picture of bpp bytes per pixel with the reference; mismatches print their
 * pixel, channel and values and exit 1. Returns the pixels compared. */
static long long check_host(const pipeline *p, const void *got, int bpp, const void *want, const char *what)
{
    const uint8_t *g = (const uint8_t *)got, *r = (const uint8_t *)want;
    size_t bytes = pixels(p) * bpp;
    long long bad = 0;
    GL_PARALLEL_FOR_WITH(reduction(+ : bad)) /* first count on every core; print only on a failure */
    for (size_t i = 0; i < bytes; i++) bad += g[i] != r[i];
    if (bad == 0) return (long long)pixels(p);
    bad = 0;
    for (size_t i = 0; i < bytes; i++) {
        if (g[i] == r[i]) continue;
        if (bad < GL_MAX_MISMATCH_LINES) {
            size_t px = i / bpp;
            fprintf(stderr, "  %s: pixel (%zu, %zu) byte %zu: got %d, expected %d\n", what, px % p->w, px / p->w,
                    i % bpp, g[i], r[i]);
        }
        bad++;
    }
    gl_require_match(what, bad, (long long)bytes);
    return (long long)pixels(p);
}

static long long check_device(pipeline *p, const void *d, int bpp, const void *want, const char *what)
{
    download(p, p->scratch, d, bpp, 0);
    GL_CHECK(cudaDeviceSynchronize());
    return check_host(p, p->scratch, bpp, want, what);
}

/* Every output buffer set to `v` (d_in is an input: left alone): on the GPU, and with `host` (the
 * end-to-end modes, whose results land there) the host buffers too. */
static void poison(pipeline *p, int v, int host)
{
    for (int i = 0; i < 2; i++) {
        GL_CHECK(cudaMemset(p->d_tmp[i], v, p->d_bytes[0]));
        if (host) gl_parallel_memset(p->h_tmp[i], v, pixels(p) * p->max_bpp);
    }
    GL_CHECK(cudaMemset(p->d_out, v, p->d_bytes[1]));
    if (host) gl_parallel_memset(p->h_out, v, pixels(p) * (size_t)p->out_bpp[last_stage(p)]);
}

/* ---------------------------------------------------------------- one pipeline */

static const char *stage_name(const pipeline *p, int k)
{
    return p->pitched ? bk_stage_name((bk_stage)k) : px_stage_name((px_stage)k);
}

/* Bytes a kernel must move at least: its input read once and its output written once. */
static double stage_bytes(const pipeline *p, int k) { return (double)pixels(p) * (p->in_bpp[k] + p->out_bpp[k]); }
static double fused_bytes(const pipeline *p)
{
    return (double)pixels(p) * (p->in_bpp[0] + p->out_bpp[last_stage(p)]);
}

static gl_row new_row(const pipeline *p, const char *variant, double bytes)
{
    gl_row row = gl_row_new("fusion", variant, (long long)pixels(p));
    row.param = p->w;
    row.bytes = bytes;
    row.working_set_bytes = bytes;
    return row;
}

/* One stage alone: its reference input uploaded, run, checked, timed, checked again. The picture
 * of its output goes to `save_as` (NULL: none). Returns the row. */
static gl_row measure_stage(pipeline *p, int k, const char *save_as)
{
    char variant[64], what[128];
    snprintf(variant, sizeof variant, "%s/stage/%s", p->name, stage_name(p, k));
    snprintf(what, sizeof what, "fusion %s %dx%d", variant, p->w, p->h);
    stage_job job = {p, k};
    const void *in = k == 0 ? p->h_in : p->ref[k - 1];
    void *out = k == last_stage(p) ? p->d_out : p->d_tmp[1];
    gl_row row = new_row(p, variant, stage_bytes(p, k));
    for (int pass = 0; pass < 2; pass++) {
        poison(p, pass ? 0xFF : 0x00, 0); /* a stage reads and writes the GPU's buffers only */
        upload(p, p->d_tmp[0], in, p->in_bpp[k], 0);
        gl_fence();
        if (pass) gl_lab_time(p->L, &row, enqueue_stage, &job);
        else enqueue_stage(&job, p->L->timer.stream);
        GL_CHECK(cudaStreamSynchronize(p->L->timer.stream));
        row.checked = check_device(p, out, p->out_bpp[k], p->ref[k], what);
        if (!pass && save_as) return row; /* checked once; the caller saves p->scratch */
    }
    gl_report_row(&p->L->report, &row);
    return row;
}

static gl_enqueue_fn mode_fn(mode m, int kernels_only)
{
    if (m == MODE_SEQUENTIAL) return enqueue_sequential;
    if (m == MODE_CONNECTED) return kernels_only ? enqueue_connected_kernels : enqueue_connected;
    return kernels_only ? enqueue_fused_kernel : enqueue_fused;
}

/* One mode, end to end or its kernels only (the input already on the GPU, the output checked
 * there). base_ms: the sequential mode's time of the same kind (ratio = time / base). */
static gl_row measure_mode(pipeline *p, mode m, int kernels_only, double base_ms)
{
    char variant[64], what[128];
    snprintf(variant, sizeof variant, "%s/%s%s/%s", p->name, MODE_NAMES[m], KIND_SUFFIX[p->kind],
             kernels_only ? "kernels" : "e2e");
    snprintf(what, sizeof what, "fusion %s %dx%d", variant, p->w, p->h);
    double bytes = NAN;
    if (kernels_only && m == MODE_FUSED) bytes = fused_bytes(p);
    if (kernels_only && m == MODE_CONNECTED) {
        bytes = 0;
        for (int k = 0; k < p->stages; k++) bytes += stage_bytes(p, k);
    }
    gl_row row = new_row(p, variant, bytes);
    gl_enqueue_fn fn = mode_fn(m, kernels_only);
    const int last = last_stage(p);
    for (int pass = 0; pass < 2; pass++) {
        poison(p, pass ? 0xFF : 0x00, !kernels_only);
        if (kernels_only) upload(p, p->d_in, p->h_in, p->in_bpp[0], 0);
        gl_fence();
        if (pass) gl_lab_time(p->L, &row, fn, p);
        else fn(p, p->L->timer.stream);
        GL_CHECK(cudaStreamSynchronize(p->L->timer.stream));
        if (kernels_only) row.checked = check_device(p, p->d_out, p->out_bpp[last], p->ref[last], what);
        else row.checked = check_host(p, p->h_out, p->out_bpp[last], p->ref[last], what);
    }
    if (base_ms > 0) row.ratio = row.median_ms / base_ms;
    gl_report_row(&p->L->report, &row);
    return row;
}

typedef struct {
    double e2e[MODES], kernels[MODES];
    double fused_gbs, fused_pct;
} pipe_result;

static void print_result(const pipeline *p, const pipe_result *r, double seed_gain, double goal_pct)
{
    printf("\n%s pipeline, %d x %d (%d stages), ms; e2e = transfers + kernels, host memory pinned\n", p->name, p->w,
           p->h, p->stages);
    static const gl_col cols[] = {{"mode", "", 11}, {"e2e", "%.3f", 10}, {"kernels", "%.3f", 10},
                                  {"transfers", "%.3f", 10}, {"e2e gain", "%+.0f%%", 9}, {"kern gain", "%+.0f%%", 9}};
    gl_table_header(stdout, cols, 6);
    for (int m = 0; m < MODES; m++) {
        double v[5] = {r->e2e[m], r->kernels[m], r->e2e[m] - r->kernels[m],
                       100.0 * (r->e2e[m] / r->e2e[MODE_FUSED] - 1.0), 100.0 * (r->kernels[m] / r->kernels[MODE_FUSED] - 1.0)};
        gl_table_line(stdout, cols, 6, MODE_NAMES[m], v);
    }
    printf("gain = how much longer the mode takes than fused (fused's speed-up - 1). Fusion gains here: "
           "%+.0f%% over connected, %+.0f%% over sequential (e2e); the seed: %+.0f%% on average\n",
           100.0 * (r->e2e[MODE_CONNECTED] / r->e2e[MODE_FUSED] - 1.0),
           100.0 * (r->e2e[MODE_SEQUENTIAL] / r->e2e[MODE_FUSED] - 1.0), seed_gain);
    printf("fused kernel: %.0f GB/s on the floor of %d + %d bytes per pixel = %.1f%% of this run's memcpy "
           "(goal >= %.0f%% at 16384^2: %s)\n",
           r->fused_gbs, p->in_bpp[0], p->out_bpp[last_stage(p)], r->fused_pct, goal_pct,
           p->w * (double)p->h < 16384.0 * 16384.0 ? "not this size" : r->fused_pct >= goal_pct ? "reached" : "NOT reached");
}

/* The GPU buffers' sizes (d_bytes) from the stages' bytes per pixel; returns what alloc_pipe
 * takes on the GPU: d_in and the two d_tmp of d_bytes[0], d_out of d_bytes[1]. */
static size_t pipe_device_bytes(pipeline *p)
{
    p->max_bpp = 1;
    for (int k = 0; k < p->stages; k++) p->max_bpp = p->in_bpp[k] > p->max_bpp ? p->in_bpp[k] : p->max_bpp;
    p->d_bytes[0] = dev_pitch(p, p->max_bpp) * p->h + 64;
    p->d_bytes[1] = dev_pitch(p, p->out_bpp[last_stage(p)]) * p->h + 64;
    return 3 * p->d_bytes[0] + p->d_bytes[1];
}

/* The pipeline's buffers, if they fit on the GPU (else one line, gl_lab_fits, and 0). */
static int alloc_pipe(pipeline *p, const char *experiment)
{
    if (!gl_lab_fits(p->L, (double)pipe_device_bytes(p), experiment, p->name, (long long)pixels(p))) return 0;
    const size_t n = pixels(p), max_bpp = (size_t)p->max_bpp;
    p->h_in = gl_host_alloc_pinned(n * max_bpp, "a pipeline's input (host)");
    p->h_out = gl_host_alloc_pinned(n * max_bpp, "a pipeline's output (host)");
    for (int i = 0; i < 2; i++) {
        p->h_tmp[i] = gl_host_alloc_pinned(n * max_bpp, "a pipeline's intermediate picture (host)");
        p->d_tmp[i] = gl_device_alloc(p->d_bytes[0], "a pipeline's intermediate picture");
    }
    p->d_in = gl_device_alloc(p->d_bytes[0], "a pipeline's input");
    p->d_out = gl_device_alloc(p->d_bytes[1], "a pipeline's output");
    GL_CHECK(cudaMemset(p->d_in, 0, p->d_bytes[0])); /* the padding of the rows: initialised once */
    p->scratch = (uint8_t *)gl_host_alloc_pinned(n * max_bpp, "check buffer"); /* every row copies back here */
    for (int k = 0; k < p->stages; k++) p->ref[k] = gl_host_alloc(n * p->out_bpp[k], "reference picture");
    return 1;
}

static void free_pipe(pipeline *p)
{
    gl_host_free_pinned(p->h_in);
    gl_host_free_pinned(p->h_out);
    for (int i = 0; i < 2; i++) {
        gl_host_free_pinned(p->h_tmp[i]);
        GL_CHECK(cudaFree(p->d_tmp[i]));
    }
    GL_CHECK(cudaFree(p->d_in));
    GL_CHECK(cudaFree(p->d_out));
    gl_host_free_pinned(p->scratch);
    for (int k = 0; k < p->stages; k++) free(p->ref[k]);
}

/* The pipelines on one picture: pixel-wise on its RGBA pixels, block-based on its gray pixels.
 * Each returns 0, having printed why, when its buffers do not fit on the GPU (alloc_pipe). */
static int setup_pixel(pipeline *p, gl_lab *L, const gl_image_rgb *img, const uint8_t *d_gamma, const uint8_t *gamma)
{
    memset(p, 0, sizeof *p);
    *p = (pipeline){.L = L, .name = "pixel", .stages = PX_STAGES, .pitched = 0, .w = img->width, .h = img->height,
                .d_gamma = d_gamma};
    for (int k = 0; k < PX_STAGES; k++) p->in_bpp[k] = p->out_bpp[k] = 4;
    p->out_bpp[PX_RGB_TO_GRAY] = 1;
    if (!alloc_pipe(p, "fusion")) return 0;
    uint32_t *in = (uint32_t *)p->h_in;
    GL_PARALLEL_FOR
    for (long long i = 0; i < (long long)pixels(p); i++)
        in[i] = img->pixels[3 * i] | (uint32_t)img->pixels[3 * i + 1] << 8 | (uint32_t)img->pixels[3 * i + 2] << 16 |
                0xffu << 24;
    gl_progress pr;
    gl_progress_begin(&pr, PX_STAGES, "fusion %d x %d: the pixel pipeline's CPU references", p->w, p->h);
    for (int k = 0; k < PX_STAGES; k++) {
        px_stage_ref((px_stage)k, k == 0 ? in : (const uint32_t *)p->ref[k - 1], p->ref[k], pixels(p), gamma);
        gl_progress_tick(&pr, k + 1, px_stage_name((px_stage)k));
    }
    gl_progress_end(&pr);
    return 1;
}

static int setup_block(pipeline *p, gl_lab *L, const gl_image *img)
{
    memset(p, 0, sizeof *p);
    *p = (pipeline){.L = L, .name = "block", .stages = BK_STAGES, .pitched = 1, .w = img->width, .h = img->height};
    for (int k = 0; k < BK_STAGES; k++) p->in_bpp[k] = p->out_bpp[k] = 1;
    if (!alloc_pipe(p, "fusion")) return 0;
    memcpy(p->h_in, img->pixels, pixels(p));
    gl_progress pr;
    gl_progress_begin(&pr, BK_STAGES, "fusion %d x %d: the block pipeline's CPU references", p->w, p->h);
    for (int k = 0; k < BK_STAGES; k++) {
        bk_stage_ref((bk_stage)k, k == 0 ? img->pixels : (const uint8_t *)p->ref[k - 1], (uint8_t *)p->ref[k], p->w, p->h);
        gl_progress_tick(&pr, k + 1, bk_stage_name((bk_stage)k));
    }
    gl_progress_end(&pr);
    return 1;
}

/* Does the extra fused kernel `kind` run on this pipeline: it applies (block: W16 to LEAN_R192, HALF,
 * the XOR and the flat rungs; pixel: DPX and the pair rungs) and is a rung of the curated ladder
 * (ladders.c) or the run has --all? */
static int fused_kind_runs(const pipeline *p, bk_fused_kind kind)
{
    const int applies = p->pitched ? (kind >= BK_FUSED_W16 && kind <= BK_FUSED_LEAN_R192) || kind >= BK_FUSED_HALF
                                   : kind == BK_FUSED_DPX || kind == BK_FUSED_PAIR || kind == BK_FUSED_PAIR32;
    char name[32];
    snprintf(name, sizeof name, "fused%s", KIND_SUFFIX[kind]);
    return applies && gl_cli_curated(&p->L->cli, "fusion", name);
}

static void run_pipe(pipeline *p, double seed_gain, double goal_pct)
{
    pipe_result r;
    double seq_kernels = 0, lo = 0, hi = 0;
    int reps = 0;
    for (int k = 0; k < p->stages; k++) {
        gl_row s = measure_stage(p, k, NULL);
        seq_kernels += s.median_ms;
        lo += s.min_ms;
        hi += s.max_ms;
        reps = s.reps;
    }
    /* the sequential mode's kernels: the sum of the stages' own times */
    char variant[64];
    snprintf(variant, sizeof variant, "%s/sequential/kernels", p->name);
    gl_row sk = new_row(p, variant, NAN);
    sk.median_ms = seq_kernels, sk.min_ms = lo, sk.max_ms = hi, sk.reps = reps, sk.batch = 1, sk.ratio = 1.0;
    sk.checked = (long long)pixels(p);
    gl_report_row(&p->L->report, &sk);
    r.kernels[MODE_SEQUENTIAL] = seq_kernels;
    r.e2e[MODE_SEQUENTIAL] = measure_mode(p, MODE_SEQUENTIAL, 0, -1).median_ms;
    for (int m = MODE_CONNECTED; m < MODES; m++) {
        r.e2e[m] = measure_mode(p, (mode)m, 0, r.e2e[MODE_SEQUENTIAL]).median_ms;
        gl_row k = measure_mode(p, (mode)m, 1, seq_kernels);
        r.kernels[m] = k.median_ms;
        if (m == MODE_FUSED) r.fused_gbs = k.gbs, r.fused_pct = k.pct_of_copy;
    }
    print_result(p, &r, seed_gain, goal_pct);
    /* the fused kernel again: block 16 pixels per lane (w16), and the instruction-budget rungs (dpx) */
    static const char *const what[BK_FUSED_KINDS] = {"", "with 16 pixels per lane (fused_w16)",
                                                     "within the instruction budget (fused_dpx)",
                                                     "fused_dpx in two strips (fused_strips)",
                                                     "fused_strips with 16 pixels per lane (fused_s16)",
                                                     "fused_s16 with the sobel's byte permutes in the store (fused_lean)",
                                                     "fused_lean with 6 rows loaded ahead (fused_lean_a6)",
                                                     "fused_lean with 192-row strips (fused_lean_r192)",
                                                     "with two pixels an instruction (fused_pair)",
                                                     "fused_pair with 32 pixels a thread (fused_pair32)",
                                                     "fused_strips with sobel in half precision, 80 registers (fused_half)",
                                                     "fused_half with every middle of three by XOR (fused_xor)",
                                                     "fused_half with the columns' middles by XOR (fused_xorc)",
                                                     "fused_xorc without its per-row overhead (fused_flat)",
                                                     "fused_flat in 36-row strips (fused_flat_r36)",
                                                     "fused_flat with the slowest blocks first, strips of up to 72 rows (fused_flat_sf)"};

    for (int kind = BK_FUSED_W16; kind < BK_FUSED_KINDS; kind++) {
        if (!fused_kind_runs(p, (bk_fused_kind)kind)) continue;
        p->kind = (bk_fused_kind)kind;
        gl_row k = measure_mode(p, MODE_FUSED, 1, seq_kernels);
        p->kind = BK_FUSED_W8;
        printf("fused kernel %s: %.3f ms, %.0f GB/s = %.1f%% of memcpy (the first fused kernel: %.3f ms)\n",
               what[kind], k.median_ms, k.gbs, k.pct_of_copy, r.kernels[MODE_FUSED]);
    }
}

/* ---------------------------------------------------------------- --save: one picture's stages */

static void save_png(gl_lab *L, const char *name, const gl_image *gray, const gl_image_rgb *rgb)
{
    char path[1200], err[512];
    snprintf(path, sizeof path, "%s/%s.png", L->cli.save, name);
    if (gray ? gl_png_write_gray8(path, gray, err, sizeof err) : gl_png_write_rgb8(path, rgb, err, sizeof err)) {
        fprintf(stderr, "convolution: --save: %s\n", err);
        exit(GL_EXIT_FAIL);
    }
    printf("saved %s\n", path);
}

/* Every stage's GPU output (checked against the reference first) as a picture: gray stages as
 * they are, RGB stages in colour, YUV stages as their Y. */
static void save_pipe(pipeline *p, const gl_image_rgb *rgb, const gl_image *gray)
{
    char name[96];
    snprintf(name, sizeof name, "fusion_%s_0_input", p->name);
    save_png(p->L, name, p->pitched ? gray : NULL, rgb);
    uint8_t *buf = (uint8_t *)gl_host_alloc(pixels(p) * 3, "picture");
    for (int k = 0; k < p->stages; k++) {
        measure_stage(p, k, "save"); /* run once, checked; the output is in p->scratch */
        snprintf(name, sizeof name, "fusion_%s_%d_%s", p->name, k + 1, stage_name(p, k));
        gl_image g = {p->w, p->h, p->scratch};
        if (p->out_bpp[k] == 4) {
            const int is_rgb = k == PX_YUV_TO_RGB;
            for (size_t i = 0; i < pixels(p); i++)
                for (int c = 0; c < (is_rgb ? 3 : 1); c++) buf[(is_rgb ? 3 : 1) * i + c] = p->scratch[4 * i + c];
            gl_image_rgb c3 = {p->w, p->h, buf};
            g.pixels = buf;
            if (!is_rgb) strcat(name, "_Y");
            save_png(p->L, name, is_rgb ? NULL : &g, &c3);
        } else {
            save_png(p->L, name, &g, NULL);
        }
    }
    free(buf);
}

/* ---------------------------------------------------------------- the experiments */

/* The picture of one size: --image (read again in colour here; main.c checked it), or generated. */
static void load_pictures(gl_lab *L, int w, int h, int index, gl_image_rgb *rgb, gl_image *gray)
{
    char err[512];
    if (L->cli.image) {
        if (gl_image_read_rgb(L->cli.image, rgb, err, sizeof err)) {
            fprintf(stderr, "convolution: --image: %s\n", err);
            exit(GL_EXIT_USAGE);
        }
    } else {
        gl_progress pr;
        gl_progress_begin(&pr, 0, "fusion: generating a %d x %d picture", w, h);
        if (gl_image_generate_rgb(rgb, w, h, L->cli.seed + 100 + 10 * (uint64_t)index)) {
            fprintf(stderr, "convolution: out of host memory for a %d x %d picture\n", w, h);
            exit(GL_EXIT_FAIL);
        }
        gl_progress_end(&pr);
    }
    /* the block pipeline's input: the same picture in gray */
    gray->width = rgb->width;
    gray->height = rgb->height;
    gray->pixels = (unsigned char *)gl_host_alloc((size_t)rgb->width * rgb->height, "gray picture");
    GL_PARALLEL_FOR
    for (long long i = 0; i < (long long)rgb->width * rgb->height; i++)
        gray->pixels[i] = gl_rgb_to_gray(rgb->pixels[3 * i], rgb->pixels[3 * i + 1], rgb->pixels[3 * i + 2]);
}

static int picture_sizes(const gl_lab *L, pic_size *out)
{
    if (L->cli.image) {
        out[0] = (pic_size){0, 0}; /* the picture's own */
        return 1;
    }
    for (int i = 0; i < N_SIZES; i++) out[i] = L->cli.quick ? QUICK_SIZES[i] : FULL_SIZES[i];
    return N_SIZES;
}

void fusion_run(gl_lab *L)
{
    if (!gl_cli_selected(&L->cli, "fusion", NULL)) return;
    uint8_t gamma[256];
    px_gamma_table(gamma);
    uint8_t *d_gamma = (uint8_t *)gl_device_alloc(256, "gamma table");
    GL_CHECK(cudaMemcpy(d_gamma, gamma, 256, cudaMemcpyHostToDevice));
    gl_lab_heading("fusion", "pixel-wise (RGBA: %d stages) and block-based (gray: gauss -> median -> sobel) "
                             "pipelines, sequential / connected / fused; e2e with pinned host memory",
                   PX_STAGES);
    pic_size sizes[N_SIZES];
    const int n = picture_sizes(L, sizes);
    for (int s = 0; s < n; s++) {
        gl_image_rgb rgb;
        gl_image gray;
        load_pictures(L, sizes[s].w, sizes[s].h, s, &rgb, &gray);
        printf("\npicture: %s, %d x %d\n", L->cli.image ? L->cli.image : "generated (3 seeds, one per channel)",
               rgb.width, rgb.height);
        gl_lab_note_working_set(L, 5.0 * rgb.width * rgb.height);
        pipeline p;
        if (setup_pixel(&p, L, &rgb, d_gamma, gamma)) {
            run_pipe(&p, SEED_GAIN_PIXEL, GOAL_PCT_PIXEL);
            free_pipe(&p);
        }
        gl_lab_note_working_set(L, 2.0 * rgb.width * rgb.height);
        if (setup_block(&p, L, &gray)) {
            run_pipe(&p, SEED_GAIN_BLOCK, GOAL_PCT_BLOCK);
            free_pipe(&p);
        }
        gl_image_rgb_free(&rgb);
        gl_image_free(&gray);
    }
    if (L->cli.save) {
        gl_image_rgb rgb;
        gl_image gray;
        load_pictures(L, SAVE_W, SAVE_H, 9, &rgb, &gray);
        pipeline p;
        if (setup_pixel(&p, L, &rgb, d_gamma, gamma)) {
            save_pipe(&p, &rgb, NULL);
            free_pipe(&p);
        }
        if (setup_block(&p, L, &gray)) {
            save_pipe(&p, NULL, &gray);
            free_pipe(&p);
        }
        gl_image_rgb_free(&rgb);
        gl_image_free(&gray);
    }
    GL_CHECK(cudaFree(d_gamma));
}

/* ---------------------------------------------------------------- the median ladder */

typedef struct {
    median_rung r;
    bk_args a;
} median_job;

static void enqueue_median(void *ctx, cudaStream_t s)
{
    median_job *j = (median_job *)ctx;
    launch_median(j->r, &j->a, s);
}

static void median_size(gl_lab *L, const gl_image *img)
{
    pipeline p; /* the checks and transfers of a one-stage gray pipeline */
    memset(&p, 0, sizeof p);
    p = (pipeline){.L = L, .name = "median", .stages = 1, .pitched = 1, .w = img->width, .h = img->height};
    p.in_bpp[0] = p.out_bpp[0] = 1;
    if (!alloc_pipe(&p, "median")) return;
    bk_stage_ref(BK_MEDIAN, img->pixels, (uint8_t *)p.ref[0], p.w, p.h);
    upload(&p, p.d_in, img->pixels, 1, 0);
    GL_CHECK(cudaDeviceSynchronize());
    gl_lab_note_working_set(L, 2.0 * p.w * p.h);
    double ms[MED_RUNGS] = {0}, pct[MED_RUNGS] = {0};
    for (int r = 0; r < MED_RUNGS; r++) {
        /* the seed's scalar and vector kernels always; then the curated ladder (ladders.c), or --all */
        if (r > MED_VECTOR && !gl_cli_curated(&L->cli, "median", median_rung_name((median_rung)r))) continue;
        char what[96];
        snprintf(what, sizeof what, "median/%s %dx%d", median_rung_name((median_rung)r), p.w, p.h);
        median_job job = {(median_rung)r, {(const uint8_t *)p.d_in, (uint8_t *)p.d_out, p.w, p.h, (int)dev_pitch(&p, 1)}};
        gl_row row = gl_row_new("median", median_rung_name((median_rung)r), (long long)pixels(&p));
        row.param = p.w;
        row.bytes = row.working_set_bytes = 2.0 * pixels(&p);
        for (int pass = 0; pass < 2; pass++) {
            GL_CHECK(cudaMemset(p.d_out, pass ? 0xFF : 0x00, p.d_bytes[1]));
            gl_fence();
            if (pass) gl_lab_time(L, &row, enqueue_median, &job);
            else enqueue_median(&job, L->timer.stream);
            GL_CHECK(cudaStreamSynchronize(L->timer.stream));
            row.checked = check_device(&p, p.d_out, 1, p.ref[0], what);
        }
        row.ratio = r == 0 ? 1.0 : row.median_ms / ms[0];
        ms[r] = row.median_ms;
        pct[r] = row.pct_of_copy;
        gl_report_row(&L->report, &row);
    }
    printf("\nmedian 3x3, %d x %d: speed-up over scalar (the seed: vector +%.0f%%, local memory +%.0f%%)\n", p.w,
           p.h, SEED_GAIN_VECTOR, SEED_GAIN_LOCAL);
    for (int r = 0; r < MED_RUNGS; r++)
        if (ms[r] > 0)
            printf("  %-11s %9.3f ms  %5.1f%% of memcpy  %5.2fx (%+.0f%%)\n", median_rung_name((median_rung)r), ms[r],
                   pct[r], ms[0] / ms[r], 100.0 * (ms[0] / ms[r] - 1.0));
    if (p.w * (double)p.h >= 16384.0 * 16384.0 && ms[MED_BEST] > 0)
        printf("best / scalar %.2fx (goal >= %.0fx: %s)\n", ms[0] / ms[MED_BEST], GOAL_MEDIAN,
               ms[0] / ms[MED_BEST] >= GOAL_MEDIAN ? "reached" : "NOT reached");
    free_pipe(&p);
}

void median_run(gl_lab *L)
{
    if (!gl_cli_selected(&L->cli, "median", NULL)) return;
    gl_lab_heading("median", "the median 3x3 ladder: scalar and vector (the seed's kernels), then %s; "
                             "GB/s on 2 bytes per pixel",
                   L->cli.all ? "every rung we have (--all; --ladders names the curated ones)"
                              : "the curated rungs (--ladders; --all runs every rung, fusion/NOTEBOOK.md tells them)");
    pic_size sizes[N_SIZES];
    const int n = picture_sizes(L, sizes);
    for (int s = 0; s < n; s++) {
        gl_image gray;
        char err[512];
        if (L->cli.image ? gl_image_read_gray(L->cli.image, &gray, err, sizeof err) != 0
                         : gl_image_generate(&gray, sizes[s].w, sizes[s].h, L->cli.seed + 200 + (uint64_t)s) != 0) {
            fprintf(stderr, "convolution: %s\n", L->cli.image ? err : "out of host memory for the median's picture");
            exit(L->cli.image ? GL_EXIT_USAGE : GL_EXIT_FAIL);
        }
        median_size(L, &gray);
        gl_image_free(&gray);
    }
}
