/* gl_progress.h - long work says what it is doing and how far it is (host C11; its clock is
 * gl_timing.h's gl_wall_ms).
 *
 * A CPU reference, a tuner, a large picture: any step that can take more than a few seconds opens
 * a gl_progress, ticks it as it goes and ends it. On a terminal the line rewrites itself
 * ("what: 3/14 (5 s)"); to a file or pipe one plain line is written whenever GL_PROGRESS_EVERY_S
 * seconds have passed since the last one, and a closing "what: done, N s" when the whole took that
 * long. So no step is silent for longer than its slowest tick, whatever the output is. Progress
 * goes to stderr (the terminal table and --csv - on stdout stay clean); GL_PROGRESS_EVERY_S=0 in
 * the environment prints every tick (the tests use it). */
#ifndef GL_PROGRESS_H
#define GL_PROGRESS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "gl_timing.h"

#define GL_PROGRESS_EVERY_S 2.0 /* a plain line at most this often (file or pipe) */

typedef struct {
    char what[96];
    long long total; /* 0: unknown (no "/total") */
    double start, last; /* seconds (CLOCK_MONOTONIC) */
    double every;
    int tty, printed;
} gl_progress;

/* Seconds on the host's monotonic clock (gl_wall_ms, the one host clock of the labs). */
static inline double gl_progress_now(void) { return gl_wall_ms() / 1e3; }

/* Open a step of `total` ticks (0: unknown) named by fmt, ... */
static inline void gl_progress_begin(gl_progress *p, long long total, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->what, sizeof p->what, fmt, ap);
    va_end(ap);
    p->total = total;
    p->start = p->last = gl_progress_now();
    p->tty = isatty(fileno(stderr));
    p->printed = 0;
    const char *env = getenv("GL_PROGRESS_EVERY_S");
    p->every = env && *env ? atof(env) : GL_PROGRESS_EVERY_S;
    fflush(stdout); /* what came before stays before */
    if (p->tty) { /* on a terminal the step shows at once, and rewrites itself as it goes */
        fprintf(stderr, "\r\033[K%s ...", p->what);
        fflush(stderr);
        p->printed = 1;
    }
}

/* `done` steps of `total` are finished; `detail` (or NULL) names the step just done. */
static inline void gl_progress_tick(gl_progress *p, long long done, const char *detail)
{
    const double now = gl_progress_now();
    if (!p->tty && now - p->last < p->every) return;
    char count[48] = "";
    if (p->total > 0) snprintf(count, sizeof count, " %lld/%lld", done, p->total);
    if (p->tty)
        fprintf(stderr, "\r\033[K%s:%s%s%s (%.0f s)", p->what, count, detail ? " " : "", detail ? detail : "",
                now - p->start);
    else
        fprintf(stderr, "%s:%s%s%s (%.0f s)\n", p->what, count, detail ? " " : "", detail ? detail : "",
                now - p->start);
    fflush(stderr);
    p->last = now;
    p->printed = 1;
}

/* The step is over: the terminal line cleared; a closing line when the step took GL_PROGRESS_EVERY_S
 * or more. Returns the step's seconds. */
static inline double gl_progress_end(gl_progress *p)
{
    const double took = gl_progress_now() - p->start;
    if (p->tty && p->printed) fprintf(stderr, "\r\033[K");
    if (took >= p->every) fprintf(stderr, "%s: done, %.1f s\n", p->what, took);
    fflush(stderr);
    return took;
}

#endif
