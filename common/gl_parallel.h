/* gl_parallel.h - the CPU references on every core: OpenMP when meson found it (root meson.build,
 * dependency('openmp', required: false)), else one thread with the same results.
 *
 * Rule for every use: parallelise over independent outputs (rows, columns, output elements), never
 * over a reduction, so each output is computed by the same operations in the same order as on one
 * core: the results are bit-identical whatever the thread count. Reductions whose result does not
 * depend on the order (max, integer counts) may be split with GL_PARALLEL_FOR_WITH.
 *
 *   GL_PARALLEL_FOR            before a `for` over independent outputs
 *   GL_PARALLEL_FOR_WITH(c)    the same with OpenMP clauses c, e.g. reduction(max : m) (order-free only)
 *   gl_cpu_threads()           how many threads the references use (1 without OpenMP)
 *   gl_cpu_threads_set(n)      use n threads from now on (a one-core timing); returns the old count
 *   gl_cpu_thread()            this thread's number, 0 .. gl_cpu_threads() - 1 (per-thread scratch)
 *   gl_parallel_memset(p, v, n) memset on every core, in 4 MiB pieces (a 1 GiB buffer: 0.3 s on one core) */
#ifndef GL_PARALLEL_H
#define GL_PARALLEL_H

#ifdef _OPENMP
#include <omp.h>
#define GL_PRAGMA(x) _Pragma(#x)
#define GL_PARALLEL_FOR GL_PRAGMA(omp parallel for schedule(static))
#define GL_PARALLEL_FOR_WITH(clauses) GL_PRAGMA(omp parallel for schedule(static) clauses)
static inline int gl_cpu_threads(void) { return omp_get_max_threads(); }
static inline int gl_cpu_thread(void) { return omp_get_thread_num(); }
static inline int gl_cpu_threads_set(int n)
{
    int old = omp_get_max_threads();
    omp_set_num_threads(n);
    return old;
}
#else
#define GL_PARALLEL_FOR
#define GL_PARALLEL_FOR_WITH(clauses)
static inline int gl_cpu_threads(void) { return 1; }
static inline int gl_cpu_thread(void) { return 0; }
static inline int gl_cpu_threads_set(int n)
{
    (void)n;
    return 1;
}
#endif

#include <stddef.h>
#include <string.h>
static inline void gl_parallel_memset(void *dst, int v, size_t bytes)
{
    const size_t chunk = (size_t)1 << 22;
    const long long chunks = (long long)((bytes + chunk - 1) / chunk);
    GL_PARALLEL_FOR
    for (long long c = 0; c < chunks; c++) {
        const size_t at = (size_t)c * chunk;
        memset((unsigned char *)dst + at, v, bytes - at < chunk ? bytes - at : chunk);
    }
}

#endif
