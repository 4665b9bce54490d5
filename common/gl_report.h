/* gl_report.h - one result schema for every lab: a progress table on the terminal (one line per
 * finished measurement) and a long-format CSV (plots/README.md documents each column).
 * Header-only C11; NAN in a numeric field means "not applicable" and is written as an empty field. */
#ifndef GL_REPORT_H
#define GL_REPORT_H

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#define GL_NO_PARAM (-1LL)

#define GL_CSV_HEADER                                                                              \
    "lab,experiment,variant,size,param,bytes,working_set_bytes,l2,reps,batch,median_ms,min_ms,"    \
    "max_ms,gbs,pct_of_copy,ratio,requests,sectors_per_request,expected_sectors_per_request,"      \
    "segments_per_request,expected_segments_per_request,warp_exec_efficiency,achieved_occupancy,"  \
    "theoretical_occupancy,sm_efficiency,expected_warp_exec_efficiency,divergent_branch_fraction,"   \
    "threads_per_block,blocks,registers_per_thread,smem_per_block,blocks_per_sm,api_blocks_per_sm,"    \
    "smsp_efficiency,gflops,max_abs_error,max_error_over_bound,checked,sms,intensity,pct_of_peak"

typedef struct {
    const char *experiment, *variant;
    long long size;  /* elements */
    long long param; /* swept parameter, GL_NO_PARAM if none */
    double bytes;    /* bytes counted for GB/s (NAN: no bandwidth claim) */
    double working_set_bytes;
    const char *l2; /* "warm" or "flushed" */
    int reps, batch;
    int programmatic_edges; /* of the batch's graph (gl_timing): written as a '# graph' line if not 0 */
    double median_ms, min_ms, max_ms, gbs, pct_of_copy, ratio;
    double requests, sectors_per_request, expected_sectors_per_request;
    double segments_per_request, expected_segments_per_request;
    double warp_exec_efficiency, achieved_occupancy, theoretical_occupancy, sm_efficiency;
    double expected_warp_exec_efficiency, divergent_branch_fraction;
    /* launch shape and residency (lab 03): blocks_per_sm from the lab's calculator, api_ from
     * cudaOccupancyMaxActiveBlocksPerMultiprocessor; smsp_efficiency per SM sub-partition */
    double threads_per_block, blocks, registers_per_thread, smem_per_block;
    double blocks_per_sm, api_blocks_per_sm, smsp_efficiency, gflops;
    /* float results checked with a tolerance (lab 04, cnn): the largest |error| and the largest
     * |error| / its bound (<= 1: within tolerance) */
    double max_abs_error, max_error_over_bound;
    long long checked; /* outputs compared with the CPU reference */
    int sms;           /* the SMs the row ran on (--sms, or a sweep's green context); 0: not recorded */
    /* the roofline (lab 04 cnn): FLOP per byte of the least traffic, and gflops / the peak in % */
    double intensity, pct_of_peak;
} gl_row;

static inline gl_row gl_row_new(const char *experiment, const char *variant, long long size)
{
    gl_row r;
    memset(&r, 0, sizeof r);
    r.experiment = experiment;
    r.variant = variant;
    r.size = size;
    r.param = GL_NO_PARAM;
    r.l2 = "warm";
    double *nan_fields[] = {&r.bytes, &r.working_set_bytes, &r.median_ms, &r.min_ms, &r.max_ms, &r.gbs,
                            &r.pct_of_copy, &r.ratio, &r.requests, &r.sectors_per_request,
                            &r.expected_sectors_per_request, &r.segments_per_request,
                            &r.expected_segments_per_request, &r.warp_exec_efficiency,
                            &r.achieved_occupancy, &r.theoretical_occupancy, &r.sm_efficiency,
                            &r.expected_warp_exec_efficiency, &r.divergent_branch_fraction,
                            &r.threads_per_block, &r.blocks, &r.registers_per_thread, &r.smem_per_block,
                            &r.blocks_per_sm, &r.api_blocks_per_sm, &r.smsp_efficiency, &r.gflops,
                            &r.max_abs_error, &r.max_error_over_bound, &r.intensity, &r.pct_of_peak};
    for (size_t i = 0; i < sizeof nan_fields / sizeof nan_fields[0]; i++) *nan_fields[i] = NAN;
    return r;
}

/* The two metric columns of the terminal table (the CSV always has every column). */
typedef enum {
    GL_SHOW_SECTORS,    /* sect/rq and model: sectors per request, measured and modelled (lab 01) */
    GL_SHOW_EFFICIENCY, /* eff% and expect: warp execution efficiency, measured and expected (lab 02) */
    GL_SHOW_OCCUPANCY   /* occ% and SMeff%: achieved occupancy and SM efficiency, measured (lab 03) */
} gl_table_metric;

/* An output file that is complete or absent: a regular file (or a new one) is written as
 * PATH.tmp and renamed when closed, so an interrupted run never leaves a file that looks whole;
 * a device or pipe is written as is. Every write is checked: a failure prints the path and the
 * reason, removes the partial file and exits 1. */
typedef struct {
    FILE *f;
    const char *prog; /* for messages */
    const char *flag; /* the option that named the file, e.g. "--csv" */
    char path[1024];
    char tmp_path[1040]; /* "" = written in place */
} gl_out_file;

static inline void gl_out_check(gl_out_file *o, int failed)
{
    if (!failed && !ferror(o->f)) return;
    int err = errno;
    fprintf(stderr, "%s: cannot write %s file '%s': %s\n", o->prog, o->flag, o->path,
            err ? strerror(err) : "write error");
    if (o->tmp_path[0]) remove(o->tmp_path);
    exit(1); /* GL_EXIT_FAIL */
}

/* Open `path` for writing; prints the reason and returns -1 on failure. */
static inline int gl_out_open(gl_out_file *o, const char *prog, const char *flag, const char *path)
{
    memset(o, 0, sizeof *o);
    o->prog = prog;
    o->flag = flag;
    struct stat st;
    int regular = stat(path, &st) != 0 || S_ISREG(st.st_mode);
    snprintf(o->path, sizeof o->path, "%s", path);
    if (regular) snprintf(o->tmp_path, sizeof o->tmp_path, "%s.tmp", path);
    errno = 0;
    o->f = fopen(regular ? o->tmp_path : path, "w");
    if (!o->f) {
        fprintf(stderr, "%s: cannot write %s file '%s': %s\n", prog, flag, path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Write to standard output instead (checked the same way, never closed). */
static inline void gl_out_stdout(gl_out_file *o, const char *prog, const char *flag)
{
    memset(o, 0, sizeof *o);
    o->prog = prog;
    o->flag = flag;
    o->f = stdout;
    snprintf(o->path, sizeof o->path, "(standard output)");
}

/* Flush, close and rename into place; any failure exits 1 (gl_out_check). */
static inline void gl_out_close(gl_out_file *o)
{
    if (!o->f) return;
    gl_out_check(o, fflush(o->f) != 0);
    if (o->f != stdout) {
        int failed = fclose(o->f) != 0;
        o->f = stdout; /* for gl_out_check's message path: nothing left to flush */
        if (failed) gl_out_check(o, 1);
        if (o->tmp_path[0] && rename(o->tmp_path, o->path) != 0) gl_out_check(o, 1);
    }
    o->f = NULL;
}

typedef struct {
    const char *lab;
    gl_table_metric metric; /* set after gl_report_open, before the first row */
    int header_printed;
    gl_out_file out; /* out.f == NULL: no CSV */
    FILE *csv;       /* out.f */
    FILE *table;     /* stdout, or stderr when the CSV goes to stdout */
    double copy_gbs;
    int rows;
} gl_report;

/* A CSV that cannot be written ends the run (see gl_out_check). */
static inline void gl_report_check_write(gl_report *r, int failed) { gl_out_check(&r->out, failed); }

/* Write the '# key=value' lines of a NULL-terminated `meta` list. */
static inline void gl_write_meta(gl_out_file *o, const char *const *meta)
{
    for (int i = 0; meta && meta[i]; i++) fprintf(o->f, "# %s\n", meta[i]);
}

/* `meta` is a NULL-terminated list of "key=value" strings written as '# ' comment lines. */
static inline int gl_report_open(gl_report *r, const char *lab, const char *prog, const char *csv_path,
                                 const char *const *meta)
{
    memset(r, 0, sizeof *r);
    r->lab = lab;
    r->table = stdout;
    r->copy_gbs = NAN;
    if (csv_path && !strcmp(csv_path, "-")) {
        gl_out_stdout(&r->out, prog, "--csv");
        r->table = stderr;
    } else if (csv_path && gl_out_open(&r->out, prog, "--csv", csv_path)) {
        return -1;
    }
    r->csv = r->out.f;
    if (r->csv) {
        gl_write_meta(&r->out, meta);
        fprintf(r->csv, "%s\n", GL_CSV_HEADER);
        gl_report_check_write(r, fflush(r->csv) != 0);
    }
    return 0;
}

/* Whole numbers (counts, bytes) exactly; measurements to 6 significant digits. */
static inline void gl_csv_num(FILE *f, double v)
{
    if (isnan(v)) fputs(",", f);
    else if (v == floor(v) && fabs(v) < 1e15) fprintf(f, ",%.0f", v);
    else fprintf(f, ",%.6g", v);
}

static inline void gl_csv_str(FILE *f, const char *s)
{
    fputc(',', f);
    if (s && strpbrk(s, ",\"\n")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"') fputc('"', f);
            fputc(*s, f);
        }
        fputc('"', f);
    } else if (s) {
        fputs(s, f);
    }
}

static inline void gl_table_num(FILE *f, int width, const char *fmt, double v)
{
    if (isnan(v)) fprintf(f, " %*s", width, "-");
    else {
        char buf[64];
        snprintf(buf, sizeof buf, fmt, v);
        fprintf(f, " %*s", width, buf);
    }
}

static inline void gl_report_row(gl_report *r, const gl_row *x)
{
    FILE *t = r->table;
    static const char *const heads[][2] = {{"sect/rq", "model"}, {"eff%", "expect"}, {"occ%", "SMeff%"}};
    const double metric[][2] = {{x->sectors_per_request, x->expected_sectors_per_request},
                                {x->warp_exec_efficiency, x->expected_warp_exec_efficiency},
                                {x->achieved_occupancy, x->sm_efficiency}};
    const char *fmt = r->metric == GL_SHOW_SECTORS ? "%.3f" : r->metric == GL_SHOW_EFFICIENCY ? "%.2f" : "%.1f";
    if (!r->header_printed++)
        fprintf(t, "%-11s %-18s %10s %6s %10s %10s %10s %8s %6s %7s %7s %7s %9s\n", "exper.", "variant",
                "size", "param", "median_ms", "min_ms", "max_ms", "GB/s", "%copy", "ratio",
                heads[r->metric][0], heads[r->metric][1], "checked");
    char param[32] = "-";
    if (x->param != GL_NO_PARAM) snprintf(param, sizeof param, "%lld", x->param);
    fprintf(t, "%-11s %-18s %10lld %6s", x->experiment, x->variant, x->size, param);
    gl_table_num(t, 10, "%.4f", x->median_ms);
    gl_table_num(t, 10, "%.4f", x->min_ms);
    gl_table_num(t, 10, "%.4f", x->max_ms);
    gl_table_num(t, 8, "%.1f", x->gbs);
    gl_table_num(t, 6, "%.1f", x->pct_of_copy);
    gl_table_num(t, 7, "%.2f", x->ratio);
    gl_table_num(t, 7, fmt, metric[r->metric][0]);
    gl_table_num(t, 7, fmt, metric[r->metric][1]);
    fprintf(t, " %9lld\n", x->checked);
    fflush(t);
    r->rows++;
    if (!r->csv) return;
    FILE *f = r->csv;
    fputs(r->lab, f);
    gl_csv_str(f, x->experiment);
    gl_csv_str(f, x->variant);
    fprintf(f, ",%lld", x->size);
    if (x->param != GL_NO_PARAM) fprintf(f, ",%lld", x->param);
    else fputs(",", f);
    gl_csv_num(f, x->bytes);
    gl_csv_num(f, x->working_set_bytes);
    gl_csv_str(f, x->l2);
    fprintf(f, ",%d,%d", x->reps, x->batch);
    const double nums[] = {x->median_ms, x->min_ms, x->max_ms, x->gbs, x->pct_of_copy, x->ratio,
                           x->requests, x->sectors_per_request, x->expected_sectors_per_request,
                           x->segments_per_request, x->expected_segments_per_request,
                           x->warp_exec_efficiency, x->achieved_occupancy,
                           x->theoretical_occupancy, x->sm_efficiency,
                           x->expected_warp_exec_efficiency, x->divergent_branch_fraction,
                           x->threads_per_block, x->blocks, x->registers_per_thread, x->smem_per_block,
                           x->blocks_per_sm, x->api_blocks_per_sm, x->smsp_efficiency, x->gflops,
                           x->max_abs_error, x->max_error_over_bound};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) gl_csv_num(f, nums[i]);
    fprintf(f, ",%lld", x->checked);
    if (x->sms > 0) fprintf(f, ",%d", x->sms);
    else fputs(",", f);
    gl_csv_num(f, x->intensity);
    gl_csv_num(f, x->pct_of_peak);
    fputc('\n', f);
    if (x->programmatic_edges) /* the time per launch includes launches overlapping (see gl_timing) */
        fprintf(f, "# graph variant=%s/%s batch=%d programmatic_edges=%d\n", x->experiment, x->variant, x->batch,
                x->programmatic_edges);
    gl_report_check_write(r, fflush(f) != 0);
}

/* Finish the CSV: flush, close, and move PATH.tmp to PATH. Any failure: exit 1 (see above). */
static inline void gl_report_close(gl_report *r)
{
    gl_out_close(&r->out);
    r->csv = NULL;
}

/* ---- a compact table for the terminal, e.g. the seed document's figures beside ours ---- */
typedef struct {
    const char *header;
    const char *fmt; /* printf format of one double, e.g. "%.3f"; the first column is a label */
    int width;
} gl_col;

static inline void gl_table_header(FILE *f, const gl_col *cols, int n)
{
    fprintf(f, "%-*s", cols[0].width, cols[0].header);
    for (int i = 1; i < n; i++) fprintf(f, " %*s", cols[i].width, cols[i].header);
    fprintf(f, "\n");
}

/* One line: `label`, then n - 1 numbers (NAN prints as "-"). */
static inline void gl_table_line(FILE *f, const gl_col *cols, int n, const char *label, const double *v)
{
    fprintf(f, "%-*s", cols[0].width, label);
    for (int i = 1; i < n; i++) gl_table_num(f, cols[i].width, cols[i].fmt, v[i - 1]);
    fprintf(f, "\n");
}

/* UTC time as 2026-11-21T04:35:00Z. */
static inline void gl_utc_now(char *out, size_t len)
{
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tmv);
}

#endif
