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
    "checked"

typedef struct {
    const char *experiment, *variant;
    long long size;  /* elements */
    long long param; /* swept parameter, GL_NO_PARAM if none */
    double bytes;    /* bytes counted for GB/s (NAN: no bandwidth claim) */
    double working_set_bytes;
    const char *l2; /* "warm" or "flushed" */
    int reps, batch;
    double median_ms, min_ms, max_ms, gbs, pct_of_copy, ratio;
    double requests, sectors_per_request, expected_sectors_per_request;
    double segments_per_request, expected_segments_per_request;
    double warp_exec_efficiency, achieved_occupancy, theoretical_occupancy, sm_efficiency;
    double expected_warp_exec_efficiency, divergent_branch_fraction;
    long long checked; /* outputs compared with the CPU reference */
} gl_row;

static inline gl_row gl_row_new(const char *experiment, const char *variant, long long size)
{
    gl_row r = {experiment, variant, size, GL_NO_PARAM, NAN, NAN, "warm", 0, 0, NAN, NAN, NAN,
                NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, 0};
    return r;
}

/* The two metric columns of the terminal table (the CSV always has every column). */
typedef enum {
    GL_SHOW_SECTORS,   /* sect/rq and model: sectors per request, measured and modelled (lab 01) */
    GL_SHOW_EFFICIENCY /* eff% and expect: warp execution efficiency, measured and expected (lab 02) */
} gl_table_metric;

typedef struct {
    const char *lab;
    gl_table_metric metric; /* set after gl_report_open, before the first row */
    int header_printed;
    FILE *csv;     /* NULL: no CSV */
    FILE *table;   /* stdout, or stderr when the CSV goes to stdout */
    double copy_gbs;
    int rows;
    char path[1024];     /* the --csv path as given */
    char tmp_path[1040]; /* where a regular file is written until it is complete ("" = path) */
} gl_report;

/* A CSV that cannot be written ends the run: print the path and the reason, remove a partial
 * file, exit 1. Called after every write, so a full disk is noticed at the first row. */
static inline void gl_report_check_write(gl_report *r, int failed)
{
    if (!failed && !ferror(r->csv)) return;
    int err = errno;
    fprintf(stderr, "%s: cannot write --csv file '%s': %s\n", r->lab, r->path,
            err ? strerror(err) : "write error");
    if (r->tmp_path[0]) remove(r->tmp_path);
    exit(1); /* GL_EXIT_FAIL */
}

/* `meta` is a NULL-terminated list of "key=value" strings written as '# ' comment lines. */
static inline int gl_report_open(gl_report *r, const char *lab, const char *csv_path,
                                 const char *const *meta)
{
    memset(r, 0, sizeof *r);
    r->lab = lab;
    r->table = stdout;
    r->copy_gbs = NAN;
    if (csv_path && !strcmp(csv_path, "-")) {
        r->csv = stdout;
        r->table = stderr;
    } else if (csv_path) {
        /* A regular file (or a new one) is written as PATH.tmp and renamed when complete, so an
         * interrupted run never leaves a CSV that looks whole; a device or pipe is written as is. */
        struct stat st;
        int regular = stat(csv_path, &st) != 0 || S_ISREG(st.st_mode);
        snprintf(r->path, sizeof r->path, "%s", csv_path);
        if (regular) snprintf(r->tmp_path, sizeof r->tmp_path, "%s.tmp", csv_path);
        errno = 0;
        r->csv = fopen(regular ? r->tmp_path : csv_path, "w");
        if (!r->csv) {
            fprintf(stderr, "%s: cannot write --csv file '%s': %s\n", lab, csv_path, strerror(errno));
            r->tmp_path[0] = '\0';
            return -1;
        }
    }
    if (r->csv) {
        if (!r->path[0]) snprintf(r->path, sizeof r->path, "(standard output)");
        for (int i = 0; meta && meta[i]; i++) fprintf(r->csv, "# %s\n", meta[i]);
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
    int eff = r->metric == GL_SHOW_EFFICIENCY;
    if (!r->header_printed++)
        fprintf(t, "%-11s %-18s %10s %6s %10s %10s %10s %8s %6s %7s %7s %7s %9s\n", "exper.", "variant",
                "size", "param", "median_ms", "min_ms", "max_ms", "GB/s", "%copy", "ratio",
                eff ? "eff%" : "sect/rq", eff ? "expect" : "model", "checked");
    char param[32] = "-";
    if (x->param != GL_NO_PARAM) snprintf(param, sizeof param, "%lld", x->param);
    fprintf(t, "%-11s %-18s %10lld %6s", x->experiment, x->variant, x->size, param);
    gl_table_num(t, 10, "%.4f", x->median_ms);
    gl_table_num(t, 10, "%.4f", x->min_ms);
    gl_table_num(t, 10, "%.4f", x->max_ms);
    gl_table_num(t, 8, "%.1f", x->gbs);
    gl_table_num(t, 6, "%.1f", x->pct_of_copy);
    gl_table_num(t, 7, "%.2f", x->ratio);
    gl_table_num(t, 7, eff ? "%.2f" : "%.3f", eff ? x->warp_exec_efficiency : x->sectors_per_request);
    gl_table_num(t, 7, eff ? "%.2f" : "%.3f",
                 eff ? x->expected_warp_exec_efficiency : x->expected_sectors_per_request);
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
                           x->expected_warp_exec_efficiency, x->divergent_branch_fraction};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) gl_csv_num(f, nums[i]);
    fprintf(f, ",%lld\n", x->checked);
    gl_report_check_write(r, fflush(f) != 0);
}

/* Finish the CSV: flush, close, and move PATH.tmp to PATH. Any failure: exit 1 (see above). */
static inline void gl_report_close(gl_report *r)
{
    if (!r->csv) return;
    gl_report_check_write(r, fflush(r->csv) != 0);
    if (r->csv != stdout) {
        int failed = fclose(r->csv) != 0;
        r->csv = stdout; /* for the message path of gl_report_check_write: nothing left to flush */
        if (failed) gl_report_check_write(r, 1);
        if (r->tmp_path[0] && rename(r->tmp_path, r->path) != 0) gl_report_check_write(r, 1);
    }
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
