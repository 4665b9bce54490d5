/* gl_cli.h - the command line every lab shares (pure C11; no CUDA needed).
 *
 *   --help  --list  --ladders  --only NAME[,NAME]  --all  --quick  --size N  --reps N  --warmup N
 *   --seed S  --device N  --sms N  --csv FILE|-  --flush-l2  --once
 *
 * Two environment variables set defaults that the whole gpu suite can run under:
 *   GL_SMS=N                    as --sms N (a flag given on the command line wins)
 *   GL_DEVICE_MEMORY_LIMIT=4G   the labs believe the GPU has at most this much memory (gl_device.h)
 *
 * A lab describes itself with a gl_cli_spec (its experiment and variant names and its size range);
 * gl_cli_parse validates everything before any GPU work, so usage errors exit 2 on any machine. */
#ifndef GL_CLI_H
#define GL_CLI_H

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GL_MAX_ONLY 32
#define GL_DEFAULT_SEED 20261121ULL

typedef struct {
    const char *name; /* an experiment or a variant, as --only and --list spell it */
    const char *help;
} gl_name;

/* An integer option of one lab (e.g. Lab 05's --levels): its flag, help, range and default. */
typedef struct {
    const char *flag; /* e.g. "--levels" */
    const char *help;
    long long lo, hi, def;
} gl_opt;

#define GL_MAX_OPTS 4

/* A curated ladder: the rungs of one experiment that the default run measures, in ladder order,
 * each adding one idea to the rung before it. The experiment's other rungs (the search behind the
 * ladder) run with --all, or when --only names them. An experiment without a ladder runs every rung
 * by default. `--ladders` prints them (a cpu test pins them: growing a ladder is a decision). */
typedef struct {
    const char *experiment; /* as the CSV's experiment column spells it (e.g. "median") */
    const char *name;       /* NULL, or which of the experiment's ladders (e.g. cnn's "fp32") */
    const char *const *rungs;
    int n_rungs;
    const char *what; /* one line: what the rest of the experiment's rungs are, and where they are told */
} gl_ladder;

#define GL_LADDER(experiment, name, rungs, what) {experiment, name, rungs, (int)(sizeof rungs / sizeof rungs[0]), what}

typedef struct {
    const char *prog;    /* executable name, used in every message */
    const char *summary; /* one line: what the lab teaches */
    const gl_name *names;
    int n_names;
    long long size_min, size_max; /* allowed --size range */
    const char *size_help;        /* what --size means in this lab */
    int takes_images;             /* 1: the lab accepts --image FILE and --save DIR */
    const gl_opt *opts;           /* the lab's own integer options (NULL: none) */
    int n_opts;                   /* at most GL_MAX_OPTS */
    const gl_ladder *ladders;     /* the curated ladders (NULL: none; every rung is in the default run) */
    int n_ladders;
} gl_cli_spec;

typedef struct {
    int reps;         /* timed repetitions (the median of these is reported) */
    int warmup;       /* untimed launches first */
    int flush_l2;     /* overwrite the L2 before every repetition */
    int once;         /* launch each measured kernel exactly once (for profilers); times meaningless */
    double budget_ms; /* soft cap on one measurement: fewer reps (never < 3) for very slow kernels */
} gl_time_opts;

typedef struct {
    int quick;
    int all;        /* --all: every rung of every experiment, not only the curated ladders */
    const gl_ladder *ladders; /* the spec's ladders (gl_cli_rung) */
    int n_ladders;
    long long size; /* 0: the lab's default sizes */
    int device;
    int sms;                   /* --sms N / GL_SMS: run on N SMs (a green context); 0: the whole GPU */
    const char *sms_from;      /* "--sms" or "GL_SMS": what named N, for messages */
    unsigned long long mem_limit; /* GL_DEVICE_MEMORY_LIMIT in bytes; 0: no cap */
    uint64_t seed;
    const char *csv;   /* NULL: no CSV; "-": stdout */
    const char *image; /* --image FILE: the input picture (labs that take images); NULL: generated */
    const char *save;  /* --save DIR: write the input and outputs as PGM and PNG there; NULL: no */
    gl_time_opts timing;
    int n_only;
    char only[GL_MAX_ONLY][64];
    long long opt[GL_MAX_OPTS]; /* the lab's options (spec->opts), their defaults when not given */
} gl_cli;

enum { GL_CLI_RUN = 0, GL_CLI_EXIT_OK = 1, GL_CLI_USAGE = 2 };

static inline void gl_cli_help(const gl_cli_spec *s, FILE *f)
{
    fprintf(f,
            "%s - %s\n\n"
            "usage: %s [options]\n"
            "  --help             this text\n"
            "  --list             list experiments and variants, then exit\n"
            "  --only NAME[,..]   run only these experiments or variants (names from --list)\n"
            "  --all              every rung we have, not only the curated ladders (--ladders)\n"
            "  --ladders          the curated ladders: the rungs the default run measures, then exit\n"
            "  --quick            small sizes and few repetitions (used by the tests)\n"
            "  --size N           %s; allowed %lld..%lld\n"
            "  --reps N           timed repetitions, median reported (default 20; 1..100000)\n"
            "  --warmup N         untimed launches before timing (default 2; 0..1000)\n"
            "  --seed S           seed of all random data and index streams (default %llu)\n"
            "  --device N         GPU to use (default 0)\n"
            "  --sms N            run every kernel on N SMs (a CUDA green context); the allowed N\n"
            "                     come from the GPU (a wrong N is refused with them); default: all,\n"
            "                     or $GL_SMS. $GL_DEVICE_MEMORY_LIMIT (e.g. 4G) caps the memory used\n"
            "  --csv FILE         also write results as CSV (plots/README.md); '-' = stdout\n"
            "  --flush-l2         overwrite the L2 cache before every timed repetition\n"
            "  --once             launch each measured kernel once (for ncu); times not meaningful\n",
            s->prog, s->summary, s->prog, s->size_help, s->size_min, s->size_max,
            (unsigned long long)GL_DEFAULT_SEED);
    if (s->takes_images)
        fprintf(f, "  --image FILE       input picture: 8-bit PGM (P5), PPM (P6) or PNG (when built with libpng);\n"
                   "                     default: generated\n"
                   "  --save DIR         write the input and every output picture there (PGM and PNG)\n");
    for (int i = 0; i < s->n_opts; i++)
        fprintf(f, "  %-8s N         %s; allowed %lld..%lld (default %lld)\n", s->opts[i].flag, s->opts[i].help,
                s->opts[i].lo, s->opts[i].hi, s->opts[i].def);
    fprintf(f, "exit codes: 0 ok, 1 failure (verification, CUDA error, out of memory, write error), "
               "2 usage, 77 no GPU\n");
}

static inline void gl_cli_list(const gl_cli_spec *s, FILE *f)
{
    int width = 16;
    for (int i = 0; i < s->n_names; i++) {
        int len = (int)strlen(s->names[i].name);
        width = len + 1 > width ? len + 1 : width;
    }
    for (int i = 0; i < s->n_names; i++) fprintf(f, "%-*s %s\n", width, s->names[i].name, s->names[i].help);
}

/* --ladders: one line per curated ladder, "experiment: rung rung ..." (the default run's rungs in
 * ladder order), then what the other rungs are. */
static inline void gl_cli_ladders(const gl_cli_spec *s, FILE *f)
{
    if (s->n_ladders == 0) fprintf(f, "%s: no curated ladders: the default run measures every rung\n", s->prog);
    for (int i = 0; i < s->n_ladders; i++) {
        const gl_ladder *l = &s->ladders[i];
        fprintf(f, "%s%s%s (%d rungs):", l->experiment, l->name ? "/" : "", l->name ? l->name : "", l->n_rungs);
        for (int r = 0; r < l->n_rungs; r++) fprintf(f, " %s", l->rungs[r]);
        fprintf(f, "\n");
        if (l->what) fprintf(f, "  (--all adds %s)\n", l->what);
    }
}

/* Parse a whole decimal (or 0x hex) integer in [lo, hi]; 0 on success. */
static inline int gl_parse_ll(const char *text, long long lo, long long hi, long long *out)
{
    if (!text || !*text) return -1;
    errno = 0;
    char *end = NULL;
    long long v = strtoll(text, &end, 0);
    if (errno || *end != '\0' || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

static inline int gl_parse_u64(const char *text, uint64_t *out)
{
    if (!text || !*text || *text == '-' || *text == '+') return -1;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || *end != '\0') return -1;
    *out = (uint64_t)v;
    return 0;
}

/* A byte count: an integer with an optional K, M, G or T suffix (powers of 1024), e.g. "4G". */
static inline int gl_parse_bytes(const char *text, unsigned long long *out)
{
    if (!text || !*text || *text == '-' || *text == '+') return -1;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text) return -1;
    int shift = 0;
    if (*end) {
        const char *units = "KMGT", *u = strchr(units, end[0] & ~0x20);
        if (!u || !end[0] || end[1] != '\0') return -1;
        shift = 10 * (int)(u - units + 1);
    }
    if (v == 0 || v > (~0ULL >> shift)) return -1;
    *out = v << shift;
    return 0;
}

#define GL_SMS_MAX 4096 /* --sms's syntactic bound; the GPU decides the allowed values */

/* --sms N / GL_SMS=N: a whole number 1..GL_SMS_MAX (the GPU checks it further, gl_green.h). */
static inline int gl_cli_set_sms(gl_cli *c, const char *prog, const char *from, const char *val, FILE *err)
{
    long long v = 0;
    if (gl_parse_ll(val, 1, GL_SMS_MAX, &v)) {
        fprintf(err, "%s: %s '%s' is invalid: allowed integers 1..%d, then only the SM counts the GPU "
                     "can give (listed when it cannot)\n", prog, from, val, GL_SMS_MAX);
        return -1;
    }
    c->sms = (int)v;
    c->sms_from = from;
    return 0;
}

/* The environment's defaults (GL_SMS, GL_DEVICE_MEMORY_LIMIT); -1 with a message if malformed. */
static inline int gl_cli_environment(gl_cli *c, const char *prog, FILE *err)
{
    const char *sms = getenv("GL_SMS"), *lim = getenv("GL_DEVICE_MEMORY_LIMIT");
    if (sms && *sms && gl_cli_set_sms(c, prog, "GL_SMS", sms, err)) return -1;
    if (lim && *lim && gl_parse_bytes(lim, &c->mem_limit)) {
        fprintf(err, "%s: GL_DEVICE_MEMORY_LIMIT '%s' is invalid: allowed a whole number of bytes > 0 "
                     "with an optional K, M, G or T suffix (e.g. 4G)\n", prog, lim);
        return -1;
    }
    return 0;
}

static inline int gl_cli_known_name(const gl_cli_spec *s, const char *name)
{
    for (int i = 0; i < s->n_names; i++)
        if (strcmp(s->names[i].name, name) == 0) return 1;
    return 0;
}

static inline int gl_cli_add_only(gl_cli *c, const gl_cli_spec *s, const char *list, FILE *err)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (!gl_cli_known_name(s, tok)) {
            fprintf(err, "%s: --only: unknown name '%s'; allowed:", s->prog, tok);
            for (int i = 0; i < s->n_names; i++) fprintf(err, " %s", s->names[i].name);
            fprintf(err, "\n");
            return -1;
        }
        if (c->n_only == GL_MAX_ONLY) {
            fprintf(err, "%s: --only: at most %d names\n", s->prog, GL_MAX_ONLY);
            return -1;
        }
        snprintf(c->only[c->n_only++], sizeof c->only[0], "%s", tok);
    }
    if (c->n_only == 0) {
        fprintf(err, "%s: --only needs at least one name (see --list)\n", s->prog);
        return -1;
    }
    return 0;
}

static inline void gl_cli_defaults(gl_cli *c)
{
    memset(c, 0, sizeof *c);
    c->seed = GL_DEFAULT_SEED;
    c->timing.reps = 20;
    c->timing.warmup = 2;
    c->timing.budget_ms = 2000.0;
}

/* An output path the run could not write is refused before any GPU work: its directory must exist
 * and be writable, and the path must not be a directory. 0 if fine, else a message on err. */
static inline int gl_cli_check_output(const char *prog, const char *flag, const char *path, FILE *err)
{
    char dir[1024];
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(err, "%s: %s '%s': directory '%s' does not exist\n", prog, flag, path, dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0 && access(path, W_OK) != 0) {
        fprintf(err, "%s: %s '%s': directory '%s' is not writable\n", prog, flag, path, dir);
        return -1;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(err, "%s: %s '%s' is a directory, not a file\n", prog, flag, path);
        return -1;
    }
    return 0;
}

/* The index of `flag` among the lab's own options, or -1. */
static inline int gl_cli_opt_index(const gl_cli_spec *s, const char *flag)
{
    for (int i = 0; i < s->n_opts && i < GL_MAX_OPTS; i++)
        if (!strcmp(s->opts[i].flag, flag)) return i;
    return -1;
}

/* Returns GL_CLI_RUN, GL_CLI_EXIT_OK (help/list printed) or GL_CLI_USAGE (message on err). */
static inline int gl_cli_parse(gl_cli *c, const gl_cli_spec *s, int argc, char **argv, FILE *err)
{
    gl_cli_defaults(c);
    for (int i = 0; i < s->n_opts && i < GL_MAX_OPTS; i++) c->opt[i] = s->opts[i].def;
    if (gl_cli_environment(c, s->prog, err)) return GL_CLI_USAGE;
    int list = 0, ladders = 0;
    c->ladders = s->ladders;
    c->n_ladders = s->n_ladders;
    for (int i = 1; i < argc; i++) {
        char flag[64];
        const char *arg = argv[i], *val = NULL;
        const char *eq = strchr(arg, '=');
        if (strncmp(arg, "--", 2) == 0 && eq && (size_t)(eq - arg) < sizeof flag) {
            snprintf(flag, sizeof flag, "%.*s", (int)(eq - arg), arg);
            val = eq + 1;
        } else {
            snprintf(flag, sizeof flag, "%s", arg);
        }
        /* Switches (no value). */
        int *sw = !strcmp(flag, "--quick") ? &c->quick
                : !strcmp(flag, "--flush-l2") ? &c->timing.flush_l2
                : !strcmp(flag, "--once") ? &c->timing.once
                : !strcmp(flag, "--all") ? &c->all
                : !strcmp(flag, "--ladders") ? &ladders
                : !strcmp(flag, "--list") ? &list : NULL;
        if (!strcmp(flag, "--help") || !strcmp(flag, "-h")) {
            gl_cli_help(s, stdout);
            return GL_CLI_EXIT_OK;
        }
        if (sw) {
            if (val) {
                fprintf(err, "%s: %s takes no value\n", s->prog, flag);
                return GL_CLI_USAGE;
            }
            *sw = 1;
            continue;
        }
        int image_flag = s->takes_images && (!strcmp(flag, "--image") || !strcmp(flag, "--save"));
        int takes_value = !strcmp(flag, "--size") || !strcmp(flag, "--reps") ||
                          !strcmp(flag, "--warmup") || !strcmp(flag, "--seed") ||
                          !strcmp(flag, "--device") || !strcmp(flag, "--csv") || !strcmp(flag, "--only") ||
                          !strcmp(flag, "--sms") ||
                          image_flag || gl_cli_opt_index(s, flag) >= 0;
        if (!takes_value) {
            fprintf(err, "%s: unknown option '%s' (see --help)\n", s->prog, arg);
            return GL_CLI_USAGE;
        }
        if (!val) {
            if (i + 1 >= argc) {
                fprintf(err, "%s: %s needs a value (see --help)\n", s->prog, flag);
                return GL_CLI_USAGE;
            }
            val = argv[++i];
        }
        long long v = 0;
        int opt = gl_cli_opt_index(s, flag);
        if (opt >= 0) {
            const gl_opt *o = &s->opts[opt];
            if (gl_parse_ll(val, o->lo, o->hi, &v)) {
                fprintf(err, "%s: %s '%s' is invalid: allowed integers %lld..%lld (%s)\n", s->prog, flag, val,
                        o->lo, o->hi, o->help);
                return GL_CLI_USAGE;
            }
            c->opt[opt] = v;
        } else if (!strcmp(flag, "--size")) {
            if (gl_parse_ll(val, s->size_min, s->size_max, &v)) {
                fprintf(err, "%s: --size '%s' is invalid: allowed integers %lld..%lld (%s)\n", s->prog,
                        val, s->size_min, s->size_max, s->size_help);
                return GL_CLI_USAGE;
            }
            c->size = v;
        } else if (!strcmp(flag, "--reps") || !strcmp(flag, "--warmup") || !strcmp(flag, "--device")) {
            long long lo = !strcmp(flag, "--reps") ? 1 : 0;
            long long hi = !strcmp(flag, "--reps") ? 100000 : !strcmp(flag, "--warmup") ? 1000 : 1023;
            if (gl_parse_ll(val, lo, hi, &v)) {
                fprintf(err, "%s: %s '%s' is invalid: allowed integers %lld..%lld\n", s->prog, flag, val,
                        lo, hi);
                return GL_CLI_USAGE;
            }
            int *dst = !strcmp(flag, "--reps") ? &c->timing.reps
                     : !strcmp(flag, "--warmup") ? &c->timing.warmup : &c->device;
            *dst = (int)v;
        } else if (!strcmp(flag, "--sms")) {
            if (gl_cli_set_sms(c, s->prog, "--sms", val, err)) return GL_CLI_USAGE;
        } else if (!strcmp(flag, "--seed")) {
            if (gl_parse_u64(val, &c->seed)) {
                fprintf(err, "%s: --seed '%s' is invalid: allowed integers 0..18446744073709551615\n",
                        s->prog, val);
                return GL_CLI_USAGE;
            }
        } else if (!strcmp(flag, "--csv")) {
            if (!*val) {
                fprintf(err, "%s: --csv needs a file name or '-'\n", s->prog);
                return GL_CLI_USAGE;
            }
            if (strcmp(val, "-") && gl_cli_check_output(s->prog, "--csv", val, err)) return GL_CLI_USAGE;
            c->csv = val;
        } else if (!strcmp(flag, "--image")) {
            if (!*val || access(val, R_OK) != 0) {
                fprintf(err, "%s: --image '%s': %s\n", s->prog, val, *val ? strerror(errno) : "needs a file name");
                return GL_CLI_USAGE;
            }
            c->image = val; /* its contents are checked by the lab before any GPU work */
        } else if (!strcmp(flag, "--save")) {
            struct stat st;
            if (!*val || stat(val, &st) != 0 || !S_ISDIR(st.st_mode) || access(val, W_OK | X_OK) != 0) {
                fprintf(err, "%s: --save '%s': needs an existing, writable directory\n", s->prog, val);
                return GL_CLI_USAGE;
            }
            c->save = val;
        } else if (gl_cli_add_only(c, s, val, err)) {
            return GL_CLI_USAGE;
        }
    }
    if (list) {
        gl_cli_list(s, stdout);
        return GL_CLI_EXIT_OK;
    }
    if (ladders) {
        gl_cli_ladders(s, stdout);
        return GL_CLI_EXIT_OK;
    }
    if (c->quick) {
        c->timing.reps = c->timing.reps < 5 ? c->timing.reps : 5;
        c->timing.budget_ms = 200.0;
    }
    if (c->timing.once) {
        c->timing.reps = 1;
        c->timing.warmup = 0;
    }
    return GL_CLI_RUN;
}

/* Is this (experiment, variant) selected by --only? (Everything is when --only is absent.) */
static inline int gl_cli_selected(const gl_cli *c, const char *experiment, const char *variant)
{
    if (c->n_only == 0) return 1;
    for (int i = 0; i < c->n_only; i++)
        if (!strcmp(c->only[i], experiment) || (variant && !strcmp(c->only[i], variant))) return 1;
    return 0;
}

/* Is `variant` a rung of a curated ladder of `experiment` (or has that experiment no ladder)? */
static inline int gl_cli_on_ladder(const gl_cli *c, const char *experiment, const char *variant)
{
    int has_ladder = 0;
    for (int i = 0; i < c->n_ladders; i++) {
        const gl_ladder *l = &c->ladders[i];
        if (strcmp(l->experiment, experiment)) continue;
        has_ladder = 1;
        for (int r = 0; r < l->n_rungs; r++)
            if (!strcmp(l->rungs[r], variant)) return 1;
    }
    return !has_ladder;
}

/* Is rung `variant` of `experiment`'s ladder in this run: a curated rung always; any other with
 * --all, or when --only names it. (Also for experiments that reuse a ladder's rungs, e.g. Lab 04's
 * sizes runs beyond's.) */
static inline int gl_cli_curated(const gl_cli *c, const char *experiment, const char *variant)
{
    if (c->all || gl_cli_on_ladder(c, experiment, variant)) return 1;
    for (int i = 0; i < c->n_only; i++)
        if (!strcmp(c->only[i], variant)) return 1;
    return 0;
}

/* Does this run measure rung `variant` of `experiment`: the experiment selected (--only) and the
 * rung in the run (gl_cli_curated)? */
static inline int gl_cli_rung(const gl_cli *c, const char *experiment, const char *variant)
{
    return gl_cli_selected(c, experiment, variant) && gl_cli_curated(c, experiment, variant);
}

/* An experiment that is not part of the default --quick run (e.g. a sweep over SM counts): it runs
 * when --only names it, or in a full run without --only. */
static inline int gl_cli_selected_sweep(const gl_cli *c, const char *experiment)
{
    for (int i = 0; i < c->n_only; i++)
        if (!strcmp(c->only[i], experiment)) return 1;
    return c->n_only == 0 && !c->quick;
}

#endif
