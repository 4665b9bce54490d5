/* gl_timing.h - how every lab times GPU work. Header-only C11 on the CUDA runtime API.
 *
 * A measurement is a function that enqueues the work once on a stream. gl_time() runs it
 * `warmup` times untimed (once only for work of GL_SLOW_LAUNCH_MS or more), then `reps` times
 * between CUDA events (the first of them the probe that sizes the batch) and reports the median,
 * min and max time per launch. Work shorter than GL_BATCH_TARGET_MS is captured `batch` times into a CUDA
 * graph and the graph is timed, so launch gaps and event resolution do not dominate tiny kernels.
 * With --flush-l2 a buffer of twice the L2 size is overwritten before every repetition, and work
 * is never batched (a batch would run all but its first launch on a warm L2). */
#ifndef GL_TIMING_H
#define GL_TIMING_H

#include <math.h>
#include <time.h>
#include "gl_check.h"
#include "gl_cli.h"
#include "gl_device.h"
#include "gl_stats.h"

#define GL_BATCH_TARGET_MS 0.5 /* shortest timed interval: smaller work is batched in a graph */
#define GL_MAX_BATCH 4096
#define GL_SLOW_LAUNCH_MS 20.0 /* work this long is warm after one warm-up launch */

/* Host wall-clock time in ms (CLOCK_MONOTONIC): for the CPU references and for host calls that
 * CUDA events do not time. */
static inline double gl_wall_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

typedef void (*gl_enqueue_fn)(void *ctx, cudaStream_t stream);

typedef struct {
    cudaStream_t stream;
    cudaEvent_t start, stop;
    void *flush_buf;
    size_t flush_bytes;
} gl_timer;

typedef struct {
    gl_summary ms; /* per launch */
    int reps, batch;
    int l2_flushed;
    /* Edges of the batch's graph along which a launch may start before the one it follows has
     * finished (programmatic dependent launch: the work's own launches or a library's ask for it);
     * 0 with no graph, -1 where this CUDA cannot tell (before 12.3). */
    int programmatic_edges;
} gl_timing;

static inline gl_timer gl_timer_create(const gl_device_info *d)
{
    gl_timer t;
    /* A blocking stream: work on it is ordered after the synchronous cudaMemset/cudaMemcpy calls
     * the labs make on the default stream (poisoning outputs, zeroing counters). */
    GL_CHECK(cudaStreamCreate(&t.stream));
    GL_CHECK(cudaEventCreate(&t.start));
    GL_CHECK(cudaEventCreate(&t.stop));
    t.flush_bytes = 2 * d->l2_bytes;
    t.flush_buf = NULL; /* allocated on first use */
    return t;
}

static inline void gl_timer_destroy(gl_timer *t)
{
    GL_CHECK(cudaEventDestroy(t->start));
    GL_CHECK(cudaEventDestroy(t->stop));
    GL_CHECK(cudaStreamDestroy(t->stream));
    if (t->flush_buf) GL_CHECK(cudaFree(t->flush_buf));
}

/* Evict the working set from L2 by writing 2x its size elsewhere (outside the timed interval). */
static inline void gl_l2_flush(gl_timer *t, int salt)
{
    if (!t->flush_buf) t->flush_buf = gl_device_alloc(t->flush_bytes, "the L2 flush buffer");
    GL_CHECK(cudaMemsetAsync(t->flush_buf, salt & 0xff, t->flush_bytes, t->stream));
}

/* Milliseconds for one run of the graph `exec`, or else `direct` back-to-back calls of `fn`. */
static inline double gl_time_calls(gl_timer *t, gl_enqueue_fn fn, void *ctx, cudaGraphExec_t exec, int direct)
{
    GL_CHECK(cudaEventRecord(t->start, t->stream));
    if (exec) GL_CHECK(cudaGraphLaunch(exec, t->stream));
    else
        for (int i = 0; i < direct; i++) fn(ctx, t->stream);
    GL_CHECK(cudaEventRecord(t->stop, t->stream));
    GL_CHECK(cudaEventSynchronize(t->stop));
    float ms = 0.0f;
    GL_CHECK(cudaEventElapsedTime(&ms, t->start, t->stop));
    return (double)ms;
}

/* Milliseconds for one run of `fn` (exec NULL) or of the graph `exec`. */
static inline double gl_time_once(gl_timer *t, gl_enqueue_fn fn, void *ctx, cudaGraphExec_t exec)
{
    return gl_time_calls(t, fn, ctx, exec, 1);
}

/* The programmatic edges of a captured graph (gl_timing's programmatic_edges). */
static inline int gl_programmatic_edges(cudaGraph_t graph)
{
#if CUDART_VERSION >= 12030
#if CUDART_VERSION >= 13000
#define GL_GRAPH_EDGES cudaGraphGetEdges
#else
#define GL_GRAPH_EDGES cudaGraphGetEdges_v2
#endif
    size_t n = 0;
    GL_CHECK(GL_GRAPH_EDGES(graph, NULL, NULL, NULL, &n));
    if (n == 0) return 0;
    cudaGraphNode_t *from = (cudaGraphNode_t *)gl_host_alloc(2 * n * sizeof(cudaGraphNode_t), "graph edges");
    cudaGraphEdgeData *data = (cudaGraphEdgeData *)gl_host_alloc(n * sizeof(cudaGraphEdgeData), "graph edge data");
    GL_CHECK(GL_GRAPH_EDGES(graph, from, from + n, data, &n));
    int programmatic = 0;
    for (size_t i = 0; i < n; i++) programmatic += data[i].type == cudaGraphDependencyTypeProgrammatic;
    free(from);
    free(data);
    return programmatic;
#undef GL_GRAPH_EDGES
#else
    (void)graph;
    return -1;
#endif
}

static inline cudaGraphExec_t gl_capture_batch(gl_timer *t, gl_enqueue_fn fn, void *ctx, int batch,
                                               int *programmatic_edges)
{
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    GL_CHECK(cudaStreamBeginCapture(t->stream, cudaStreamCaptureModeThreadLocal));
    for (int b = 0; b < batch; b++) fn(ctx, t->stream);
    GL_CHECK(cudaStreamEndCapture(t->stream, &graph));
    *programmatic_edges = gl_programmatic_edges(graph);
    GL_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    GL_CHECK(cudaGraphDestroy(graph));
    return exec;
}

/* Time `fn`: batched in a CUDA graph when use_graph (gl_time), else as back-to-back calls. */
static inline gl_timing gl_time_mode(gl_timer *t, gl_enqueue_fn fn, void *ctx, const gl_time_opts *o, int use_graph)
{
    gl_timing r;
    memset(&r, 0, sizeof r);
    gl_fence(); /* the inputs' uploads and poison on the default stream are done (gl_check.h) */
    r.l2_flushed = o->flush_l2;
    /* Warm-ups: after the first, more only for short work (a launch of GL_SLOW_LAUNCH_MS or more
     * has loaded its module, filled the TLBs and raised the clocks by the time it ends). */
    for (int w = 0; w < o->warmup; w++) {
        const double w0 = gl_wall_ms();
        fn(ctx, t->stream);
        GL_CHECK(cudaStreamSynchronize(t->stream));
        if (gl_wall_ms() - w0 >= GL_SLOW_LAUNCH_MS) break;
    }

    /* Probe one launch to choose the batch and, for very slow work, the number of repetitions. */
    int batch = 1, reps = o->reps;
    double probe = NAN;
    cudaGraphExec_t exec = NULL;
    if (!o->once) {
        if (o->flush_l2) gl_l2_flush(t, 0);
        probe = gl_time_once(t, fn, ctx, NULL);
        if (probe < GL_BATCH_TARGET_MS && !o->flush_l2) {
            batch = (int)ceil(GL_BATCH_TARGET_MS / fmax(probe, 1e-4));
            batch = batch > GL_MAX_BATCH ? GL_MAX_BATCH : batch;
        }
        double per_rep = probe * batch;
        if (o->budget_ms > 0 && per_rep * reps > o->budget_ms) {
            int fit = (int)(o->budget_ms / per_rep);
            int floor_reps = reps < 3 ? reps : 3;
            reps = fit > floor_reps ? fit : floor_reps;
        }
        if (batch > 1 && use_graph) {
            exec = gl_capture_batch(t, fn, ctx, batch, &r.programmatic_edges);
            GL_CHECK(cudaGraphLaunch(exec, t->stream)); /* warm the graph itself */
            GL_CHECK(cudaStreamSynchronize(t->stream));
        }
    }
    double *samples = (double *)gl_host_alloc((size_t)reps * sizeof(double), "timing samples");
    /* Unbatched, the probe is a repetition like the others (the same launch, after the warm-ups
     * and, with --flush-l2, a flush): it is the first sample. */
    int first = 0;
    if (batch == 1 && !isnan(probe)) samples[first++] = probe;
    for (int i = first; i < reps; i++) {
        if (o->flush_l2) gl_l2_flush(t, i + 1);
        samples[i] = gl_time_calls(t, fn, ctx, exec, batch) / batch;
    }
    if (exec) GL_CHECK(cudaGraphExecDestroy(exec));
    r.ms = gl_summarize(samples, reps);
    r.reps = reps;
    r.batch = batch;
    free(samples);
    return r;
}

static inline gl_timing gl_time(gl_timer *t, gl_enqueue_fn fn, void *ctx, const gl_time_opts *o)
{
    return gl_time_mode(t, fn, ctx, o, 1);
}

/* gl_time with the batch issued as back-to-back calls instead of a CUDA graph: for library calls
 * that could not be captured (Lab 04: NPP's filter failed inside a capture, NppStatus -1000).
 * Each call's launch overhead then counts in the time wherever it is longer than the work. */
static inline gl_timing gl_time_without_graph(gl_timer *t, gl_enqueue_fn fn, void *ctx, const gl_time_opts *o)
{
    return gl_time_mode(t, fn, ctx, o, 0);
}

/* ---- the bandwidth ceiling: cudaMemcpy device-to-device, bytes read + bytes written ---- */
typedef struct {
    void *dst;
    const void *src;
    size_t bytes;
} gl_memcpy_job;

static inline void gl_enqueue_memcpy(void *ctx, cudaStream_t s)
{
    gl_memcpy_job *j = (gl_memcpy_job *)ctx;
    GL_CHECK(cudaMemcpyAsync(j->dst, j->src, j->bytes, cudaMemcpyDeviceToDevice, s));
}

/* Time a device-to-device copy of `bytes` from src (holding real data) to dst. */
static inline gl_timing gl_time_memcpy(gl_timer *t, void *dst, const void *src, size_t bytes,
                                       const gl_time_opts *o)
{
    gl_memcpy_job j = {dst, src, bytes};
    return gl_time(t, gl_enqueue_memcpy, &j, o);
}

/* GB/s (1e9 bytes per second) for `bytes` moved in `ms` milliseconds. */
static inline double gl_gbs(double bytes, double ms) { return bytes / (ms * 1e6); }

#endif
