/* gl_exercise.h - "Your turn": the host side of the student's kernel in every lab. Header-only C11.
 *
 * An exercise is a kernel the student writes in labs/NN_x/exercises/<name>.cu (one body, one
 * launch shape; common/gl_exercise.cuh makes its timed kernel and counting twin). The lab runs it
 * as the variant yours_<name> of its `exercises` experiment, which runs only when named with
 * --only (the lab's default run and figures stay the lab's own). Each exercise run is:
 *   poison the output -> one launch, watched -> verify (coordinates, expected, got, "never
 *   written") -> the counting twin, watched -> timing -> a ranking line among the lab's reference
 *   rungs for the same task, timed in the same run.
 * Watched: the host polls the launch (cudaEventQuery) against a deadline scaled to the device;
 * past it the lab says what ran too long and ends with _exit(1) (the host cannot stop a kernel);
 * a CUDA fault prints the error, the kernel and the compute-sanitizer command to run next. */
#ifndef GL_EXERCISE_H
#define GL_EXERCISE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "gl_lab.h"

#define GL_EXERCISE_DEADLINE_S 20.0   /* on the reference device (H100 SXM: 132 SMs at 1980 MHz) */
#define GL_EXERCISE_REF_SM_MHZ (132.0 * 1980.0)
#define GL_EXERCISE_TOOL_FACTOR 100.0 /* under compute-sanitizer, ncu or nsys (an injected tool) */

/* One exercise of a lab: its variant name (yours_<name>, also its kernel's name) and the file
 * the student edits, relative to the lab's folder. */
typedef struct {
    const char *variant;
    const char *file;
} gl_exercise;

/* Exercises run only when --only names them (`exercises` or the variant). */
static inline int gl_exercise_selected(const gl_cli *c, const char *variant)
{
    return c->n_only > 0 && gl_cli_selected(c, "exercises", variant);
}

/* The command that reruns only this exercise under compute-sanitizer's memcheck. */
static inline void gl_exercise_sanitizer_command(char *buf, size_t len, const gl_lab *L, const char *variant)
{
    char exe[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) snprintf(exe, sizeof exe, "build/labs/%s/%s", L->name, L->prog);
    else exe[n] = '\0';
    char seed[48] = "";
    if (L->cli.seed != GL_DEFAULT_SEED) snprintf(seed, sizeof seed, " --seed %llu", (unsigned long long)L->cli.seed);
    snprintf(buf, len, "compute-sanitizer --tool memcheck %s --quick --only %s%s", exe, variant, seed);
}

/* A CUDA error while the student's kernel ran: the error, the kernel, the next command; exit 1. */
static inline void gl_exercise_fault(const gl_lab *L, const gl_exercise *e, const char *what, cudaError_t err)
{
    char cmd[1400];
    gl_exercise_sanitizer_command(cmd, sizeof cmd, L, e->variant);
    fprintf(stderr,
            "CUDA ERROR in your kernel %s (labs/%s/%s), %s: %s (%s)\n"
            "  the GPU context is lost; find the faulting line and thread with:\n"
            "    %s\n",
            e->variant, L->name, e->file, what, cudaGetErrorName(err), cudaGetErrorString(err), cmd);
    exit(GL_EXIT_FAIL);
}

/* The student's file asks for something the lab cannot run: say what and where; exit 1. */
static inline void gl_exercise_refuse(const gl_lab *L, const gl_exercise *e, const char *why)
{
    fprintf(stderr, "%s: your kernel %s (labs/%s/%s): %s\n", L->prog, e->variant, L->name, e->file, why);
    exit(GL_EXIT_FAIL);
}

/* Seconds one launch of the student's kernel may take: GL_EXERCISE_DEADLINE_S on the reference
 * device, scaled by its SMs x clock against this one's, x GL_EXERCISE_TOOL_FACTOR under a tool;
 * GL_EXERCISE_DEADLINE_S in the environment overrides (the tests use it). */
static inline double gl_exercise_deadline_s(const gl_device_info *d)
{
    const char *env = getenv("GL_EXERCISE_DEADLINE_S");
    if (env && atof(env) > 0) return atof(env);
    double power = (double)d->sms * (d->sm_clock_mhz > 0 ? d->sm_clock_mhz : 1000);
    double s = GL_EXERCISE_DEADLINE_S * fmax(1.0, GL_EXERCISE_REF_SM_MHZ / fmax(power, 1.0));
    const char *tool = getenv("CUDA_INJECTION64_PATH");
    return tool && *tool ? s * GL_EXERCISE_TOOL_FACTOR : s;
}

/* Wait for the work enqueued on stream s so far, polling an event against the deadline. */
static inline void gl_exercise_wait(const gl_lab *L, const gl_exercise *e, cudaStream_t s, const char *what)
{
    cudaEvent_t done;
    GL_CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    cudaError_t err = cudaEventRecord(done, s);
    double deadline = gl_exercise_deadline_s(&L->dev), t0 = gl_wall_ms();
    struct timespec nap = {0, 200000}; /* 0.2 ms between polls */
    while (err == cudaSuccess) {
        err = cudaEventQuery(done);
        if (err != cudaErrorNotReady) break; /* done (cudaSuccess), or the kernel's fault */
        err = cudaSuccess;
        if (gl_wall_ms() - t0 > deadline * 1e3) {
            fprintf(stderr,
                    "TOO LONG: your kernel %s (labs/%s/%s), %s, still running after %.1f s (deadline for "
                    "this GPU: %d SMs at %d MHz); a loop that never ends? The lab stops here (exit 1).\n",
                    e->variant, L->name, e->file, what, (gl_wall_ms() - t0) / 1e3, L->dev.sms,
                    L->dev.sm_clock_mhz);
            fflush(stdout);
            _exit(GL_EXIT_FAIL);
        }
        nanosleep(&nap, NULL);
    }
    if (err != cudaSuccess) gl_exercise_fault(L, e, what, err);
    GL_CHECK(cudaEventDestroy(done));
}

/* The run and count callbacks (gl_enqueue_fn, gl_count_fn) of an exercise whose context struct
 * ctx_type holds its kernel's arguments in `args` (args_type, with a `counts` field) and whose
 * launcher takes a pointer to them: prefix_run and prefix_count. */
#define GL_EXERCISE_CALLBACKS(prefix, ctx_type, args_type, launcher)                          \
    static void prefix##_run(void *ctx, cudaStream_t s) { launcher(&((ctx_type *)ctx)->args, s); } \
    static void prefix##_count(void *ctx, unsigned long long *counts, cudaStream_t s)          \
    {                                                                                         \
        args_type a = ((ctx_type *)ctx)->args;                                                \
        a.counts = counts;                                                                    \
        launcher(&a, s);                                                                      \
    }

/* One launch of the timed kernel on the lab's stream, watched. */
static inline void gl_exercise_run_once(gl_lab *L, const gl_exercise *e, gl_enqueue_fn fn, void *ctx)
{
    gl_fence();
    fn(ctx, L->timer.stream);
    gl_exercise_wait(L, e, L->timer.stream, "its first launch");
}

/* gl_lab_count for the student's counting twin: the same, watched. */
static inline void gl_exercise_count(gl_lab *L, const gl_exercise *e, gl_count_fn fn, void *ctx,
                                     unsigned long long *out, int words)
{
    gl_lab_count_begin(L);
    fn(ctx, L->d_counters, L->timer.stream);
    gl_exercise_wait(L, e, L->timer.stream, "its counting twin");
    gl_lab_count_end(L, out, words);
}

/* ---- verification with coordinates ---- */

/* Compare n = width x height outputs (row-major) with the reference: exact when tol == 0, else
 * |got - want| <= tol. Prints the first mismatches as (x, y) (or "element i" when height is 1),
 * got, expected and "never written" where the poison (all bits set) survived; counts those in
 * *unwritten. Returns the number of mismatches. */
static inline long long gl_exercise_compare_f32(const char *what, const float *got, const float *want,
                                                size_t width, size_t height, double tol, long long *unwritten)
{
    long long bad = 0;
    *unwritten = 0;
    for (size_t i = 0; i < width * height; i++) {
        uint32_t g;
        memcpy(&g, &got[i], 4);
        int ok = tol > 0 ? fabs((double)got[i] - (double)want[i]) <= tol : memcmp(&got[i], &want[i], 4) == 0;
        if (ok) continue;
        int never = g == 0xFFFFFFFFu;
        *unwritten += never;
        if (bad++ >= GL_MAX_MISMATCH_LINES) continue;
        if (height == 1) fprintf(stderr, "  %s: element %zu: ", what, i);
        else fprintf(stderr, "  %s: (x %zu, y %zu): ", what, i % width, i / width);
        if (never) fprintf(stderr, "never written (the poison survived), expected %.9g\n", want[i]);
        else fprintf(stderr, "got %.9g, expected %.9g\n", got[i], want[i]);
    }
    return bad;
}

/* A failed check ends the run: how many differ, how many were never written; exit 1. */
static inline void gl_exercise_require(const char *what, long long bad, long long unwritten, long long checked)
{
    if (!bad) return;
    fprintf(stderr, "VERIFICATION FAILED: %s: %lld of %lld outputs differ", what, bad, checked);
    if (unwritten) fprintf(stderr, ", %lld of them never written (no thread stored there)", unwritten);
    fprintf(stderr, "\n");
    exit(GL_EXIT_FAIL);
}

/* Copy width x height floats back, compare and require a match (exit 1 otherwise). */
static inline long long gl_exercise_verify_f32(const char *what, const float *d_got, float *h_got, const float *want,
                                               size_t width, size_t height, double tol)
{
    GL_CHECK(cudaMemcpy(h_got, d_got, width * height * sizeof(float), cudaMemcpyDeviceToHost));
    long long unwritten = 0;
    long long bad = gl_exercise_compare_f32(what, h_got, want, width, height, tol, &unwritten);
    gl_exercise_require(what, bad, unwritten, (long long)(width * height));
    return (long long)(width * height);
}

/* Bytes have no value that no pixel may take, so an 8-bit output is run twice: poisoned with
 * 0x00 (got0) and with 0xFF (got255); a pixel that kept both poisons was never written. want[i]
 * is the reference, or -1 where the kernel must not write (e.g. the frame a 3x3 filter leaves).
 * Prints the first mismatches at (x, y); exits 1 on any (gl_exercise_require). */
static inline long long gl_exercise_check_u8(const char *what, const uint8_t *got0, const uint8_t *got255,
                                             const int *want, size_t width, size_t height)
{
    long long bad = 0, unwritten = 0;
    for (size_t i = 0; i < width * height; i++) {
        int never = got0[i] == 0x00 && got255[i] == 0xFF;
        if (want[i] < 0 ? never : (got0[i] == want[i] && got255[i] == want[i])) continue;
        unwritten += never;
        if (bad++ >= GL_MAX_MISMATCH_LINES) continue;
        fprintf(stderr, "  %s: (x %zu, y %zu): ", what, i % width, i / width);
        if (want[i] < 0) fprintf(stderr, "got %d / %d, expected never written (outside the computed area)\n",
                                 got0[i], got255[i]);
        else if (never) fprintf(stderr, "never written (both poisons survived), expected %d\n", want[i]);
        else fprintf(stderr, "got %d (run poisoned 0x00) / %d (run poisoned 0xFF), expected %d\n", got0[i],
                     got255[i], want[i]);
    }
    gl_exercise_require(what, bad, unwritten, (long long)(width * height));
    return (long long)(width * height);
}

/* ---- the ranking line ---- */

/* A reference rung of the lab for the exercise's task, measured in the same run. */
typedef struct {
    const char *name;
    double value; /* what is ranked: ms (lower is better) unless the lab says otherwise */
} gl_rung;

/* How an exercise is ranked: by `unit` ("ms", "GFLOP/s"), better when lower or higher. */
typedef struct {
    const char *unit;
    int higher_is_better;
} gl_rank_key;

static inline int gl_rank_better(const gl_rank_key *k, double a, double b)
{
    return k->higher_is_better ? a > b : a < b;
}

/* "ranking: yours_x: <value> <unit>, <metrics> - between A (v) and B (v); best rung C v": where
 * the student's value falls among the rungs (any order), `metrics` the lab's in-program figures. */
static inline void gl_exercise_rank(const char *variant, double value, const char *metrics, const gl_rank_key *k,
                                    const gl_rung *rungs, int n)
{
    int best = -1, worse_near = -1, better_near = -1; /* nearest rung on each side */
    for (int i = 0; i < n; i++) {
        if (isnan(rungs[i].value)) continue;
        if (best < 0 || gl_rank_better(k, rungs[i].value, rungs[best].value)) best = i;
        if (gl_rank_better(k, rungs[i].value, value)) {
            if (better_near < 0 || gl_rank_better(k, rungs[better_near].value, rungs[i].value)) better_near = i;
        } else if (worse_near < 0 || gl_rank_better(k, rungs[i].value, rungs[worse_near].value)) {
            worse_near = i;
        }
    }
    printf("\nranking: %s: %.4g %s%s%s - ", variant, value, k->unit, metrics && *metrics ? ", " : "",
           metrics ? metrics : "");
    if (best < 0) printf("no reference rung measured\n");
    else if (better_near < 0) printf("better than every rung (the best rung, %s: %.4g %s)\n", rungs[best].name,
                                     rungs[best].value, k->unit);
    else if (worse_near < 0) printf("behind every rung; best rung %s: %.4g %s\n", rungs[best].name,
                                    rungs[best].value, k->unit);
    else printf("between %s (%.4g) and %s (%.4g); best rung %s: %.4g %s\n", rungs[worse_near].name,
                rungs[worse_near].value, rungs[better_near].name, rungs[better_near].value, rungs[best].name,
                rungs[best].value, k->unit);
}

/* Lab 01's load counts (requests, sectors, segments) of a counting twin into a row. */
static inline void gl_exercise_load_counts(gl_row *row, const unsigned long long *h)
{
    row->requests = (double)h[0];
    row->sectors_per_request = h[0] ? (double)h[1] / h[0] : NAN;
    row->segments_per_request = h[0] ? (double)h[2] / h[0] : NAN;
}

/* The steps every exercise shares, in order: poison (the lab's), one watched launch, verify
 * (the lab's, exits 1 on a mismatch), the counting twin watched (count NULL: none), timing. */
typedef struct {
    const gl_exercise *e;
    gl_enqueue_fn run;
    gl_count_fn count;
    void *ctx;
    void (*poison)(void *ctx);
    long long (*verify)(void *ctx, const char *what);
} gl_exercise_job;

/* Run one exercise row: fills the row's times and `checked`; counts (words of them) into out. */
static inline void gl_exercise_measure(gl_lab *L, const gl_exercise_job *j, gl_row *row, unsigned long long *out,
                                       int words)
{
    char what[160];
    snprintf(what, sizeof what, "exercises/%s size=%lld", j->e->variant, row->size);
    j->poison(j->ctx);
    gl_exercise_run_once(L, j->e, j->run, j->ctx);
    row->checked = j->verify(j->ctx, what);
    if (j->count) gl_exercise_count(L, j->e, j->count, j->ctx, out, words);
    gl_lab_time(L, row, j->run, j->ctx);
}

#endif
