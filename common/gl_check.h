/* gl_check.h - exit codes and the one CUDA error macro of the suite.
 * Header-only C11, usable from .c and .cu files. */
#ifndef GL_CHECK_H
#define GL_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime_api.h>

/* Exit codes shared by every lab (meson counts 77 as "skipped"). */
enum {
    GL_EXIT_OK = 0,
    GL_EXIT_FAIL = 1,   /* verification failure, CUDA error, out of memory */
    GL_EXIT_USAGE = 2,  /* bad command line: the message names the flag and the allowed range */
    GL_EXIT_NO_GPU = 77 /* no usable GPU: one clear line, nothing else */
};

/* Marks helpers that run on host and device (index maths, RNG seeding). */
#ifdef __CUDACC__
#define GL_HD __host__ __device__
#else
#define GL_HD
#endif

static inline void gl_cuda_fail(cudaError_t err, const char *expr, const char *file, int line)
{
    fprintf(stderr, "%s:%d: CUDA error %s (%s) in: %s\n", file, line, cudaGetErrorName(err),
            cudaGetErrorString(err), expr);
    exit(GL_EXIT_FAIL);
}

/* GL_CHECK(expr): run a CUDA runtime call; on error print file:line, name, text, the call; exit 1. */
#define GL_CHECK(expr)                                                          \
    do {                                                                        \
        cudaError_t gl_err_ = (expr);                                           \
        if (gl_err_ != cudaSuccess) gl_cuda_fail(gl_err_, #expr, __FILE__, __LINE__); \
    } while (0)

/* gl_fence(): wait for everything the device was given, on every stream. The labs poison and
 * upload with plain cudaMemset/cudaMemcpy (the default stream) and launch on their timer stream.
 * On a whole GPU the legacy default stream orders the two; in a CUDA green context (--sms) it did
 * not (H100, driver 580: poison written after a kernel's output, cuDNN outputs still NaN; H200: a
 * device-to-device cudaMemcpy, which may return before it is done, still running when Lab 05's
 * compress read its target), so every hand-over between the two goes through this fence. Outside
 * timed regions only. */
#define gl_fence() GL_CHECK(cudaDeviceSynchronize())

/* GL_CHECK_LAUNCH(): call right after a <<<>>> launch; catches bad configurations at once. */
#define GL_CHECK_LAUNCH() GL_CHECK(cudaGetLastError())

/* Allocation that reports out-of-memory as a clear failure (exit 1) naming what was asked. */
static inline void *gl_device_alloc(size_t bytes, const char *what)
{
    void *p = NULL;
    cudaError_t err = cudaMalloc(&p, bytes ? bytes : 1);
    if (err != cudaSuccess) {
        fprintf(stderr, "error: cannot allocate %.1f MiB of GPU memory for %s: %s\n",
                bytes / 1048576.0, what, cudaGetErrorString(err));
        exit(GL_EXIT_FAIL);
    }
    return p;
}

static inline void *gl_host_alloc(size_t bytes, const char *what)
{
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "error: cannot allocate %.1f MiB of host memory for %s\n",
                bytes / 1048576.0, what);
        exit(GL_EXIT_FAIL);
    }
    return p;
}

/* Page-locked host memory (cudaMallocHost), for buffers the GPU's results are copied into on every
 * row (a 1 GiB check buffer comes back in about 0.05 s instead of 0.3 s pageable). Exits 1 when it
 * cannot be had; free with gl_host_free_pinned.
 *
 * Pinning is slow (about 0.1 s for 256 MiB, both ways), and the labs allocate the same sizes case
 * after case: gl_host_free_pinned keeps up to GL_PINNED_KEPT blocks (after waiting for the device,
 * as cudaFreeHost would) and gl_host_alloc_pinned hands back the smallest kept block that is large
 * enough. Kept blocks are released when the process ends. One cache per translation unit: free a
 * block in the file that allocated it. */
#define GL_PINNED_KEPT 6
typedef struct {
    void *p[GL_PINNED_KEPT];
    size_t bytes[GL_PINNED_KEPT];
} gl_pinned_cache;

static inline gl_pinned_cache *gl_pinned_kept(void)
{
    static gl_pinned_cache cache;
    return &cache;
}

/* The size of each live block, so a freed one can be kept with its size. */
typedef struct {
    void *p;
    size_t bytes;
} gl_pinned_block;
#define GL_PINNED_LIVE 64
static inline gl_pinned_block *gl_pinned_live(void)
{
    static gl_pinned_block live[GL_PINNED_LIVE];
    return live;
}

static inline void gl_pinned_note(void *p, size_t bytes)
{
    gl_pinned_block *live = gl_pinned_live();
    for (int i = 0; i < GL_PINNED_LIVE; i++) /* an old entry of this address (freed elsewhere) */
        if (live[i].p == p) live[i].p = NULL;
    for (int i = 0; i < GL_PINNED_LIVE; i++)
        if (!live[i].p) {
            live[i].p = p, live[i].bytes = bytes;
            return;
        }
}

static inline void *gl_host_alloc_pinned(size_t bytes, const char *what)
{
    gl_pinned_cache *c = gl_pinned_kept();
    int best = -1;
    for (int i = 0; i < GL_PINNED_KEPT; i++)
        if (c->p[i] && c->bytes[i] >= bytes && (best < 0 || c->bytes[i] < c->bytes[best])) best = i;
    if (best >= 0) {
        void *p = c->p[best];
        gl_pinned_note(p, c->bytes[best]);
        c->p[best] = NULL;
        return p;
    }
    void *p = NULL;
    if (cudaMallocHost(&p, bytes ? bytes : 1) != cudaSuccess || !p) {
        (void)cudaGetLastError(); /* not sticky: clear it */
        fprintf(stderr, "error: cannot allocate %.1f MiB of page-locked host memory for %s\n", bytes / 1048576.0,
                what);
        exit(GL_EXIT_FAIL);
    }
    gl_pinned_note(p, bytes);
    return p;
}

static inline void gl_host_free_pinned(void *p)
{
    if (!p) return;
    gl_pinned_block *live = gl_pinned_live();
    size_t bytes = 0;
    for (int i = 0; i < GL_PINNED_LIVE; i++)
        if (live[i].p == p) {
            bytes = live[i].bytes;
            live[i].p = NULL;
            break;
        }
    gl_pinned_cache *c = gl_pinned_kept();
    int slot = -1; /* an empty slot, else the smallest kept block if this one is larger */
    for (int i = 0; i < GL_PINNED_KEPT; i++)
        if (!c->p[i]) {
            slot = i;
            break;
        } else if (slot < 0 || c->bytes[i] < c->bytes[slot]) slot = i;
    if (bytes && slot >= 0 && (!c->p[slot] || c->bytes[slot] < bytes)) {
        GL_CHECK(cudaDeviceSynchronize()); /* no copy into it may still be running (cudaFreeHost's wait) */
        if (c->p[slot]) GL_CHECK(cudaFreeHost(c->p[slot]));
        c->p[slot] = p, c->bytes[slot] = bytes;
        return;
    }
    GL_CHECK(cudaFreeHost(p));
}

#endif
