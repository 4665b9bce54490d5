/* gl_lab.h - the skeleton every lab's main() uses: parse the command line (exit 0/2), open the
 * GPU (exit 77 without one), create the timer, and open the report whose '# key=value' header
 * says which GPU, driver, CUDA version, date, commit and seed produced the numbers. */
#ifndef GL_LAB_H
#define GL_LAB_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "gl_check.h"
#include "gl_cli.h"
#include "gl_device.h"
#include "gl_green.h"
#include "gl_image.h"
#include "gl_progress.h"
#include "gl_report.h"
#include "gl_rng.h"
#include "gl_timing.h"
#include "gl_verify.h"
#include "gl_version.h"

#define GL_MAX_COUNTERS 8 /* 64-bit counters a counting twin may fill (gl_lab_count) */

typedef struct {
    const char *name; /* lab id, e.g. "01_coalescing" */
    const char *prog; /* the executable's name, for messages */
    gl_cli cli;
    gl_device_info dev; /* dev.sms: the SMs of the run (--sms), dev.sms_device: the GPU's */
    gl_partition part;  /* the green context the run's kernels go to (part.green NULL: whole GPU) */
    gl_timer timer;
    gl_report report;
    unsigned long long *d_counters; /* GL_MAX_COUNTERS words on the GPU, for counting twins */
    size_t mem_used_at_open;        /* device memory in use when the GPU was opened: the cap counts from here */
} gl_lab;

#define GL_LAB_SPARE_BYTES ((size_t)64 << 20) /* kept free for the libraries' workspaces (gl_lab_fits) */

/* Parse argv; on --help/--list or a usage error this exits (0 or 2) before touching the GPU. */
static inline void gl_lab_parse(gl_lab *L, const char *name, const gl_cli_spec *spec, int argc,
                                char **argv)
{
    L->name = name;
    L->prog = spec->prog;
    int rc = gl_cli_parse(&L->cli, spec, argc, argv, stderr);
    if (rc == GL_CLI_EXIT_OK) exit(GL_EXIT_OK);
    if (rc == GL_CLI_USAGE) exit(GL_EXIT_USAGE);
}

/* The run's timer stream, made on the current partition and checked to run there. */
static inline void gl_lab_make_timer(gl_lab *L)
{
    L->timer = gl_timer_create(&L->dev);
    gl_partition_check_stream(&L->part, L->timer.stream, "the timing stream");
}

/* Move the run to `n` SMs (a green context; n = 0 or all: the whole GPU), e.g. for an experiment
 * that sweeps the SM count. The timer's stream is remade there and dev.sms follows; exits 2 if the
 * GPU cannot give n SMs (see gl_sms_allowed to ask first). */
static inline void gl_lab_use_sms(gl_lab *L, int n)
{
    gl_timer_destroy(&L->timer);
    gl_partition_close(&L->part);
    L->part = gl_partition_open(L->prog, "--sms", L->dev.id, L->dev.sms_device, n);
    L->dev.sms = L->part.sms;
    gl_lab_make_timer(L);
}

/* Run `fn` once on each SM count of `counts` (0: the whole GPU; counts NULL: every count the GPU
 * can give), each a green context made here; a count the GPU cannot give or above the run's --sms
 * is skipped with a line. The run is back on its own SMs afterwards. */
typedef void (*gl_sms_fn)(void *ctx);
static inline void gl_lab_sms_sweep(gl_lab *L, const int *counts, int n_counts, gl_sms_fn fn, void *ctx)
{
    const gl_partition *p = &L->part;
    int all[1024], run_sms = L->dev.sms;
    if (!counts) {
        n_counts = gl_sms_list(p->sms_device, p->min_sms, p->align, all, 1024);
        counts = all;
    }
    for (int i = 0; i < n_counts; i++) {
        int n = counts[i] ? counts[i] : p->sms_device;
        if (n > run_sms || !gl_sms_allowed(n, p->sms_device, p->min_sms, p->align)) {
            printf("\n%d SMs: %s; skipped\n", n, n > run_sms ? "more than this run's --sms" : "not a partition this GPU gives");
            continue;
        }
        gl_lab_use_sms(L, n);
        printf("\n-- on %d of %d SMs\n", L->dev.sms, p->sms_device);
        fn(ctx);
    }
    gl_lab_use_sms(L, run_sms);
}

/* The command line's SMs (--sms N / GL_SMS) on the opened device `dev`: the green context they
 * ask for, made current, and dev->sms set to its SMs. Returns GL_EXIT_OK, or GL_EXIT_USAGE for a
 * count the GPU cannot give (the message printed). The labs (gl_lab_open_device) and each rank of
 * haar_mpi, whose ranks agree on the exit first. */
static inline int gl_cli_open_partition(const gl_cli *c, const char *prog, gl_device_info *dev, gl_partition *p)
{
    int rc = gl_partition_try_open(p, prog, c->sms_from ? c->sms_from : "--sms", dev->id, dev->sms_device, c->sms);
    dev->sms = p->sms;
    return rc;
}

/* Open the GPU (exit 77 without one), move the run onto --sms N SMs, and print what it is. */
static inline void gl_lab_open_device(gl_lab *L, const char *prog)
{
    L->dev = gl_device_open(prog, L->cli.device);
    int rc = gl_cli_open_partition(&L->cli, prog, &L->dev, &L->part);
    if (rc) exit(rc);
    L->mem_used_at_open = gl_device_used_bytes();
    gl_device_print(&L->dev, stdout);
    if (L->cli.mem_limit)
        printf("GL_DEVICE_MEMORY_LIMIT: the run uses at most %.2f GiB of the GPU's memory\n",
               L->cli.mem_limit / 1073741824.0);
    gl_lab_make_timer(L);
    L->d_counters = (unsigned long long *)gl_device_alloc(GL_MAX_COUNTERS * sizeof(unsigned long long),
                                                          "the counting twins' counters");
    printf("seed %llu%s%s\n", (unsigned long long)L->cli.seed, L->cli.quick ? ", --quick" : "",
           L->cli.timing.once ? ", --once: each kernel launched once, times not meaningful" : "");
}

/* Device memory the run may still take (gl_device_free_bytes: under GL_DEVICE_MEMORY_LIMIT, the
 * cap less what the run has taken since it opened the GPU). */
static inline size_t gl_lab_free_bytes(const gl_lab *L)
{
    return gl_device_free_bytes(L->cli.mem_limit, L->mem_used_at_open);
}

/* The commit: $GL_COMMIT if set (for copies of the tree without .git), else the build's. */
static inline const char *gl_commit(void)
{
    const char *env = getenv("GL_COMMIT");
    return env && *env ? env : GL_COMMIT;
}

/* The '# key=value' lines of every file a lab writes: which GPU, driver, CUDA, date, commit, seed. */
static inline const char *const *gl_lab_meta(const gl_lab *L, double copy_gbs)
{
    static char buf[20][320];
    char date[32];
    gl_utc_now(date, sizeof date);
    const gl_device_info *d = &L->dev;
    int k = 0;
    snprintf(buf[k++], sizeof buf[0], "lab=%s", L->name);
    snprintf(buf[k++], sizeof buf[0], "gpu=%s", d->name);
    snprintf(buf[k++], sizeof buf[0], "cc=%d.%d", d->cc_major, d->cc_minor);
    snprintf(buf[k++], sizeof buf[0], "sms=%d", d->sms); /* the SMs the run used (--sms) */
    snprintf(buf[k++], sizeof buf[0], "sms_device=%d", d->sms_device);
    snprintf(buf[k++], sizeof buf[0], "green_context=%d", L->part.green != NULL);
    snprintf(buf[k++], sizeof buf[0], "memory_limit=%llu", L->cli.mem_limit);
    snprintf(buf[k++], sizeof buf[0], "l2_bytes=%zu", d->l2_bytes);
    snprintf(buf[k++], sizeof buf[0], "mem_bytes=%zu", d->mem_bytes);
    snprintf(buf[k++], sizeof buf[0], "driver=%s", d->driver);
    snprintf(buf[k++], sizeof buf[0], "cuda_driver=%d.%d", d->driver_api / 1000, (d->driver_api % 1000) / 10);
    snprintf(buf[k++], sizeof buf[0], "cuda_runtime=%d.%d", d->runtime_api / 1000, (d->runtime_api % 1000) / 10);
    snprintf(buf[k++], sizeof buf[0], "date=%s", date);
    snprintf(buf[k++], sizeof buf[0], "commit=%s", gl_commit());
    snprintf(buf[k++], sizeof buf[0], "seed=%llu", (unsigned long long)L->cli.seed);
    snprintf(buf[k++], sizeof buf[0], "copy_gbs=%.1f", copy_gbs);
    snprintf(buf[k++], sizeof buf[0], "quick=%d", L->cli.quick);
    snprintf(buf[k++], sizeof buf[0], "timing=median of reps (min, max); time per launch; l2 column: "
                                      "warm = not flushed between reps");
    static const char *meta[21];
    for (int i = 0; i < k; i++) meta[i] = buf[i];
    meta[k] = NULL;
    return meta;
}

/* Start the report once the bandwidth ceiling is known; exits 1 if the CSV cannot be written. */
static inline void gl_lab_open_report(gl_lab *L, double copy_gbs)
{
    if (gl_report_open(&L->report, L->name, L->prog, L->cli.csv, gl_lab_meta(L, copy_gbs))) exit(GL_EXIT_FAIL);
    L->report.copy_gbs = copy_gbs;
}

/* A second output file beside the CSV (e.g. per-warp records): --csv DIR/NAME.csv gives
 * DIR/NAME<suffix>, with the same '# key=value' lines and then `header`. Returns 0 when opened,
 * 1 when there is no CSV file to put it beside (no --csv, --csv -, or a device or pipe). Exits 1 if it cannot be
 * written. Close with gl_out_close. */
static inline int gl_lab_open_beside(gl_lab *L, gl_out_file *o, const char *suffix, const char *header)
{
    const char *csv = L->cli.csv;
    if (!csv || !strcmp(csv, "-")) return 1;
    struct stat st; /* a device or a pipe (--csv /dev/full, a fifo) has nowhere beside it */
    if (stat(csv, &st) == 0 && !S_ISREG(st.st_mode)) return 1;
    char path[1024];
    size_t len = strlen(csv);
    if (len > 4 && !strcmp(csv + len - 4, ".csv")) len -= 4;
    snprintf(path, sizeof path, "%.*s%s", (int)len, csv, suffix);
    if (gl_out_open(o, L->prog, "--csv (beside)", path)) exit(GL_EXIT_FAIL);
    gl_write_meta(o, gl_lab_meta(L, L->report.copy_gbs));
    fprintf(o->f, "%s\n", header);
    gl_out_check(o, 0);
    return 0;
}


static inline void gl_lab_close(gl_lab *L)
{
    gl_report_close(&L->report);
    gl_timer_destroy(&L->timer);
    GL_CHECK(cudaFree(L->d_counters));
    gl_partition_check_stream(&L->part, NULL, "at the end of the run, the default stream"); /* no peer moved it */
    gl_partition_close(&L->part);
}

/* Does a step that needs `bytes` of device memory fit (with GL_LAB_SPARE_BYTES to spare for the
 * libraries' workspaces)? If not: one printed line, and a '# skipped ...' comment line in the CSV
 * where the row would have been (readers skip '#' lines; the gap is stated, not silent). Returns 1
 * if it fits. Every lab calls it before each size of an experiment, with bytes computed by the
 * same function as the allocations. */
static inline int gl_lab_fits(gl_lab *L, double bytes, const char *experiment, const char *variant, long long size)
{
    size_t free_b = gl_lab_free_bytes(L);
    if (bytes + (double)GL_LAB_SPARE_BYTES <= (double)free_b) return 1;
    const char *why = L->cli.mem_limit ? " under GL_DEVICE_MEMORY_LIMIT" : "";
    printf("skipped: %s/%s size %lld needs %.1f MiB of device memory, %.1f MiB free%s\n", experiment,
           variant ? variant : "*", size, bytes / 1048576.0, free_b / 1048576.0, why);
    if (L->report.csv) {
        fprintf(L->report.csv, "# skipped experiment=%s variant=%s size=%lld need_bytes=%.0f free_bytes=%zu\n",
                experiment, variant ? variant : "*", size, bytes, free_b);
        gl_report_check_write(&L->report, 0);
    }
    return 0;
}

/* The bytes of each of the memcpy ceiling's two buffers: `bytes`, halved (down to 16 MiB) while
 * the two do not fit, with a note saying so (a small card, or GL_DEVICE_MEMORY_LIMIT). */
static inline size_t gl_lab_ceiling_bytes(const gl_lab *L, size_t bytes)
{
    size_t free_b = gl_lab_free_bytes(L), want = bytes;
    while (bytes > ((size_t)16 << 20) && 2 * bytes + GL_LAB_SPARE_BYTES > free_b) bytes /= 2;
    if (bytes != want)
        printf("note: %.1f MiB of device memory free: the memcpy ceiling is measured on 2 x %.1f MiB, not "
               "2 x %.1f MiB\n", free_b / 1048576.0, bytes / 1048576.0, want / 1048576.0);
    return bytes;
}

/* ---- the steps every measured row shares ---- */

/* Enqueue a counting twin that adds into `counters` (zeroed before the call). */
typedef void (*gl_count_fn)(void *ctx, unsigned long long *counters, cudaStream_t s);

/* Before a counting twin: its counters zeroed (and done: gl_fence). */
static inline void gl_lab_count_begin(gl_lab *L)
{
    GL_CHECK(cudaMemset(L->d_counters, 0, GL_MAX_COUNTERS * sizeof(unsigned long long)));
    gl_fence();
}

/* After the twin has finished: its first `words` counters (<= GL_MAX_COUNTERS) to `out`. */
static inline void gl_lab_count_end(gl_lab *L, unsigned long long *out, int words)
{
    GL_CHECK(cudaMemcpy(out, L->d_counters, (size_t)words * sizeof(unsigned long long),
                        cudaMemcpyDeviceToHost));
}

/* Run a counting twin once and copy its first `words` counters (<= GL_MAX_COUNTERS) to `out`. */
static inline void gl_lab_count(gl_lab *L, gl_count_fn fn, void *ctx, unsigned long long *out, int words)
{
    gl_lab_count_begin(L);
    fn(ctx, L->d_counters, L->timer.stream);
    GL_CHECK(cudaStreamSynchronize(L->timer.stream));
    gl_lab_count_end(L, out, words);
}

/* Copy a timing into a row: times, repetitions, batch, L2 state, and GB/s against the ceiling
 * when the row counts bytes. */
static inline void gl_lab_fill_timing(const gl_lab *L, gl_row *row, const gl_timing *t)
{
    row->reps = t->reps;
    row->batch = t->batch;
    row->programmatic_edges = t->programmatic_edges;
    row->median_ms = t->ms.median;
    row->min_ms = t->ms.min;
    row->max_ms = t->ms.max;
    row->l2 = t->l2_flushed ? "flushed" : "warm";
    row->sms = L->dev.sms;
    if (!isnan(row->bytes)) {
        row->gbs = gl_gbs(row->bytes, row->median_ms);
        row->pct_of_copy = 100.0 * row->gbs / L->report.copy_gbs;
    }
}

/* The bandwidth ceiling on scratch buffers of `bytes` (a cudaMemcpy device to device, bytes read
 * + written; fewer where they do not fit: gl_lab_ceiling_bytes), then the report opened with it
 * and its `ceiling` row written first, the terminal table showing `metric`. Returns the ceiling in GB/s. For labs whose ceiling needs no arrays of
 * their own (Labs 04 and 05). */
static inline double gl_lab_open_report_at_ceiling(gl_lab *L, size_t bytes, gl_table_metric metric)
{
    bytes = gl_lab_ceiling_bytes(L, bytes);
    void *src = gl_device_alloc(bytes, "copy source"), *dst = gl_device_alloc(bytes, "copy target");
    GL_CHECK(cudaMemset(src, 1, bytes));
    gl_timing t = gl_time_memcpy(&L->timer, dst, src, bytes, &L->cli.timing);
    GL_CHECK(cudaFree(src));
    GL_CHECK(cudaFree(dst));
    double copy_gbs = gl_gbs(2.0 * bytes, t.ms.median);
    gl_lab_open_report(L, copy_gbs);
    L->report.metric = metric;
    gl_row row = gl_row_new("ceiling", "memcpy_d2d", (long long)bytes);
    row.bytes = row.working_set_bytes = 2.0 * bytes;
    gl_lab_fill_timing(L, &row, &t);
    gl_report_row(&L->report, &row);
    return copy_gbs;
}

/* Time `fn` with the command line's timing options and fill the row (see gl_lab_fill_timing). */
static inline void gl_lab_time(gl_lab *L, gl_row *row, gl_enqueue_fn fn, void *ctx)
{
    gl_timing t = gl_time(&L->timer, fn, ctx, &L->cli.timing);
    gl_lab_fill_timing(L, row, &t);
}

/* The same without a CUDA graph (library calls that cannot be captured; see gl_time_without_graph). */
static inline void gl_lab_time_without_graph(gl_lab *L, gl_row *row, gl_enqueue_fn fn, void *ctx)
{
    gl_timing t = gl_time_without_graph(&L->timer, fn, ctx, &L->cli.timing);
    gl_lab_fill_timing(L, row, &t);
}

/* Random floats in [-1, 1) from stream `stream` of the run's seed, on the host and on the GPU. */
static inline float *gl_upload_random_f32(float *host, size_t n, uint64_t seed, unsigned stream,
                                          const char *what)
{
    gl_fill_floats(host, n, seed, stream);
    float *d = (float *)gl_device_alloc(n * sizeof(float), what);
    GL_CHECK(cudaMemcpy(d, host, n * sizeof(float), cudaMemcpyHostToDevice));
    return d;
}

/* An input of random floats (stream `stream` of the run's seed) and an output, each on the host
 * and on the GPU: what a kernel y = f(x) needs to be run and checked. */
typedef struct {
    uint32_t n;
    float *h_x, *h_y, *d_x, *d_y;
} gl_arrays;

/* The GPU bytes gl_arrays_create takes for n elements (x and y): for gl_lab_fits. */
static inline size_t gl_arrays_device_bytes(uint32_t n) { return 2 * (size_t)n * sizeof(float); }

static inline void gl_arrays_create(gl_arrays *A, uint32_t n, uint64_t seed, unsigned stream)
{
    A->n = n;
    A->h_x = (float *)gl_host_alloc((size_t)n * sizeof(float), "x");
    A->h_y = (float *)gl_host_alloc_pinned((size_t)n * sizeof(float), "y"); /* copied back on every row */
    A->d_x = gl_upload_random_f32(A->h_x, n, seed, stream, "x");
    A->d_y = (float *)gl_device_alloc((size_t)n * sizeof(float), "y");
}

static inline void gl_arrays_free(gl_arrays *A)
{
    free(A->h_x);
    gl_host_free_pinned(A->h_y);
    GL_CHECK(cudaFree(A->d_x));
    GL_CHECK(cudaFree(A->d_y));
}

/* --save: write `img` as DIR/NAME.pgm and DIR/NAME.png; a file that cannot be written ends the
 * run with the path and the reason (exit 1). */
static inline void gl_lab_save_picture(const gl_lab *L, const char *name, const gl_image *img)
{
    char path[1200], err[512];
    snprintf(path, sizeof path, "%s/%s.pgm", L->cli.save, name);
    if (gl_pgm_write(path, img, err, sizeof err)) {
        fprintf(stderr, "%s: --save: %s\n", L->prog, err);
        exit(GL_EXIT_FAIL);
    }
    snprintf(path, sizeof path, "%s/%s.png", L->cli.save, name);
    if (gl_png_write_gray8(path, img, err, sizeof err)) {
        fprintf(stderr, "%s: --save: %s\n", L->prog, err);
        exit(GL_EXIT_FAIL);
    }
    printf("saved %s/%s.pgm and .png\n", L->cli.save, name);
}

/* Say so when a bandwidth experiment's working set would sit in the L2 (< 4x its size). */
static inline void gl_lab_note_working_set(const gl_lab *L, double bytes)
{
    if (bytes < 4.0 * L->dev.l2_bytes)
        printf("note: working set %.1f MiB < 4x L2 (%.1f MiB): these rows measure the L2, not DRAM\n",
               bytes / 1048576.0, 4.0 * L->dev.l2_bytes / 1048576.0);
}

/* The heading of one experiment in the terminal output: "\n== name: what it does". */
static inline void gl_lab_heading(const char *experiment, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("\n== %s: ", experiment);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
}

#endif
