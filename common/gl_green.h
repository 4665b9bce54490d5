/* gl_green.h - run a lab on N of the GPU's SMs (--sms N, GL_SMS=N): a CUDA green context.
 * Header-only C11 on the CUDA driver API (CUDA 12.4+).
 *
 * How: the device's SM resource (cuDeviceGetDevResource) is split into one group of N SMs
 * (cuDevSmResourceSplitByCount), a green context is made of it with its own default stream
 * (cuGreenCtxCreate, CU_GREEN_CTX_DEFAULT_STREAM), and that context is made current to the thread
 * (cuCtxFromGreenCtx, cuCtxSetCurrent). The driver then runs on those SMs everything the runtime
 * launches from the thread: on the NULL (legacy) stream and on every stream cudaStreamCreate
 * makes while the green context is current (the driver API reference, cuStreamGetGreenCtx:
 * such streams belong to the green context). So the labs, CUB, NPP and cuDNN need no change
 * beyond using the run's stream; gl_partition_check_stream proves the association at run time.
 * Memory belongs to the primary context, which the green context shares.
 *
 * The split rounds a request up silently (on an H100 12 -> 16): N is checked against the rules
 * the device reports (minSmPartitionSize, smCoscheduledAlignment) and against the SM count the
 * split returns, and a count the device cannot give exactly is refused (exit 2) with the
 * allowed values. N = all SMs (or no --sms) means no green context at all.
 *
 * The driver functions are fetched through the runtime (cudaGetDriverEntryPointByVersion), not
 * linked (-lcuda): a lab then loads and exits 77 on a machine without a driver, as before. */
#ifndef GL_GREEN_H
#define GL_GREEN_H

#include <cuda.h>
#include <stdio.h>
#include <string.h>
#include "gl_check.h"

#if CUDA_VERSION >= 12050 && CUDART_VERSION >= 12050
#define GL_HAVE_GREEN 1
#include <cudaTypedefs.h>
#else
#define GL_HAVE_GREEN 0 /* headers older than CUDA 12.5: --sms allows only the whole GPU */
#endif

typedef struct {
    int device;       /* runtime ordinal */
    int sms_device;   /* the GPU's SMs */
    int sms;          /* the SMs this run's kernels use */
    unsigned min_sms; /* the device's smallest partition (0: green contexts not available) */
    unsigned align;   /* partition sizes are multiples of this */
    void *green;      /* CUgreenCtx; NULL: the whole GPU */
    void *context;    /* the green context as a CUcontext (current while it is in use) */
    void *primary;    /* the context that was current before */
} gl_partition;

#if GL_HAVE_GREEN
typedef struct {
    int loaded;
    PFN_cuDeviceGet_v2000 device_get;
    PFN_cuGetErrorString_v6000 error_string;
    PFN_cuCtxGetCurrent_v4000 ctx_get;
    PFN_cuCtxSetCurrent_v4000 ctx_set;
    PFN_cuDeviceGetDevResource_v12040 get_resource;
    PFN_cuDevSmResourceSplitByCount_v12040 split;
    PFN_cuDevResourceGenerateDesc_v12040 generate_desc;
    PFN_cuGreenCtxCreate_v12040 create;
    PFN_cuGreenCtxDestroy_v12040 destroy;
    PFN_cuCtxFromGreenCtx_v12040 as_context;
    PFN_cuStreamGetGreenCtx_v12040 stream_green;
    PFN_cuCtxGetDevResource_v12040 ctx_resource;
} gl_driver_api;

/* The driver functions, fetched once; NULL if this driver lacks any of them. */
static inline const gl_driver_api *gl_driver(void)
{
    static gl_driver_api d;
    if (d.loaded) return d.loaded > 0 ? &d : NULL;
    struct {
        const char *name;
        void **fn;
        unsigned version;
    } want[] = {{"cuDeviceGet", (void **)&d.device_get, 2000},
                {"cuGetErrorString", (void **)&d.error_string, 6000},
                {"cuCtxGetCurrent", (void **)&d.ctx_get, 4000},
                {"cuCtxSetCurrent", (void **)&d.ctx_set, 4000},
                {"cuDeviceGetDevResource", (void **)&d.get_resource, 12040},
                {"cuDevSmResourceSplitByCount", (void **)&d.split, 12040},
                {"cuDevResourceGenerateDesc", (void **)&d.generate_desc, 12040},
                {"cuGreenCtxCreate", (void **)&d.create, 12040},
                {"cuGreenCtxDestroy", (void **)&d.destroy, 12040},
                {"cuCtxFromGreenCtx", (void **)&d.as_context, 12040},
                {"cuStreamGetGreenCtx", (void **)&d.stream_green, 12040},
                {"cuCtxGetDevResource", (void **)&d.ctx_resource, 12040}};
    d.loaded = 1;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        enum cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion(want[i].name, want[i].fn, want[i].version, cudaEnableDefault, &q) !=
                cudaSuccess ||
            q != cudaDriverEntryPointSuccess || !*want[i].fn)
            d.loaded = -1;
    }
    return d.loaded > 0 ? &d : NULL;
}

/* The SMs the kernels of the thread's current context run on: a green context's own (--sms N), else
 * `sms_device`. Asked of the driver, so that code sizing a grid to the GPU needs no lab state. */
static inline int gl_current_sms(int sms_device)
{
    const gl_driver_api *d = gl_driver();
    CUcontext ctx = NULL;
    CUdevResource sm;
    if (!d || d->ctx_get(&ctx) != CUDA_SUCCESS || !ctx || d->ctx_resource(ctx, &sm, CU_DEV_RESOURCE_TYPE_SM) != CUDA_SUCCESS ||
        sm.sm.smCount == 0 || (int)sm.sm.smCount > sms_device)
        return sms_device;
    return (int)sm.sm.smCount;
}

static inline void gl_cu_check(CUresult r, const char *expr, const char *file, int line)
{
    if (r == CUDA_SUCCESS) return;
    const char *text = NULL;
    if (gl_driver()) gl_driver()->error_string(r, &text);
    fprintf(stderr, "%s:%d: CUDA driver error %d (%s) in: %s\n", file, line, (int)r, text ? text : "?", expr);
    exit(GL_EXIT_FAIL);
}
#define GL_CU_CHECK(expr) gl_cu_check((expr), #expr, __FILE__, __LINE__)
#else
static inline int gl_current_sms(int sms_device) { return sms_device; }
#endif

/* Is `n` an SM count the device can give? The whole GPU always; else a multiple of the alignment
 * at least the minimum partition. */
static inline int gl_sms_allowed(int n, int sms_device, unsigned min_sms, unsigned align)
{
    if (n == sms_device) return 1;
    return min_sms > 0 && align > 0 && n >= (int)min_sms && n < sms_device && n % (int)align == 0;
}

/* The allowed SM counts in increasing order, at most `max`; returns how many. */
static inline int gl_sms_list(int sms_device, unsigned min_sms, unsigned align, int *out, int max)
{
    int k = 0;
    for (int n = 1; n <= sms_device && k < max; n++)
        if (gl_sms_allowed(n, sms_device, min_sms, align)) out[k++] = n;
    return k;
}

/* "8, 16, 24, ..., 128, 132" */
static inline void gl_sms_print_allowed(FILE *f, int sms_device, unsigned min_sms, unsigned align)
{
    int list[1024];
    int k = gl_sms_list(sms_device, min_sms, align, list, 1024);
    for (int i = 0; i < k; i++) fprintf(f, "%s%d", i ? ", " : "", list[i]);
}

/* The device's partition rules; min_sms = 0 where green contexts are not available. */
static inline void gl_partition_rules(gl_partition *p)
{
    p->min_sms = p->align = 0;
#if GL_HAVE_GREEN
    const gl_driver_api *d = gl_driver();
    CUdevice dev;
    CUdevResource all;
    if (!d || d->device_get(&dev, p->device) != CUDA_SUCCESS ||
        d->get_resource(dev, &all, CU_DEV_RESOURCE_TYPE_SM) != CUDA_SUCCESS)
        return;
    p->min_sms = all.sm.minSmPartitionSize;
    p->align = all.sm.smCoscheduledAlignment ? all.sm.smCoscheduledAlignment : 1;
#endif
}

/* A count the device cannot give: the message, naming `from` and the allowed counts. */
static inline int gl_partition_refuse(const char *prog, const char *from, int n, const gl_partition *p,
                                      const char *why)
{
    fprintf(stderr, "%s: %s %d: %s; allowed on this GPU: ", prog, from, n, why);
    gl_sms_print_allowed(stderr, p->sms_device, p->min_sms, p->align);
    fprintf(stderr, "%s\n", p->min_sms ? "" : " (no green contexts: CUDA 12.5+ headers and driver needed)");
    return GL_EXIT_USAGE;
}

/* Does `stream` (NULL: the legacy default stream) run on p's SMs? Exit 1 if not. */
static inline void gl_partition_check_stream(const gl_partition *p, cudaStream_t stream, const char *what)
{
    if (!p->green) return;
#if GL_HAVE_GREEN
    CUgreenCtx g = NULL;
    GL_CU_CHECK(gl_driver()->stream_green((CUstream)stream, &g));
    if ((void *)g != p->green) {
        fprintf(stderr, "%s does not belong to the green context of %d SMs: its kernels would run on "
                        "the whole GPU\n", what, p->sms);
        exit(GL_EXIT_FAIL);
    }
#else
    (void)stream;
    (void)what;
#endif
}

/* Run the thread's CUDA work on `n` SMs of runtime device `device` (already current, with
 * `sms_device` SMs); n = 0 or all: the whole GPU. Returns GL_EXIT_OK, or GL_EXIT_USAGE for a
 * count the device cannot give (the message on stderr names `from`, the flag or variable that
 * asked, and the allowed counts; *out is then the whole GPU). For callers that must agree on the
 * exit first (haar_mpi's ranks); gl_partition_open exits itself. */
static inline int gl_partition_try_open(gl_partition *out, const char *prog, const char *from, int device,
                                        int sms_device, int n)
{
    gl_partition p;
    memset(&p, 0, sizeof p);
    p.device = device;
    p.sms_device = p.sms = sms_device;
    gl_partition_rules(&p);
    *out = p;
    if (n == 0 || n == sms_device) return GL_EXIT_OK;
    if (!gl_sms_allowed(n, sms_device, p.min_sms, p.align))
        return gl_partition_refuse(prog, from, n, &p, n > sms_device ? "more SMs than the GPU has"
                                                       : "not a partition size this GPU supports");
#if GL_HAVE_GREEN
    const gl_driver_api *d = gl_driver();
    CUdevice dev;
    CUdevResource all, part, rest;
    unsigned groups = 1;
    GL_CU_CHECK(d->device_get(&dev, device));
    GL_CU_CHECK(d->get_resource(dev, &all, CU_DEV_RESOURCE_TYPE_SM));
    GL_CU_CHECK(d->split(&part, &groups, &all, &rest, 0, (unsigned)n));
    if (groups != 1 || (int)part.sm.smCount != n) { /* the split rounds up without a word */
        char why[128];
        snprintf(why, sizeof why, "the driver's split gives %u SMs, not %d", groups ? part.sm.smCount : 0u, n);
        return gl_partition_refuse(prog, from, n, &p, why);
    }
    CUdevResourceDesc desc;
    CUgreenCtx green;
    CUcontext as_ctx, primary;
    GL_CU_CHECK(d->generate_desc(&desc, &part, 1));
    GL_CU_CHECK(d->create(&green, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
    GL_CU_CHECK(d->as_context(&as_ctx, green));
    GL_CU_CHECK(d->ctx_get(&primary));
    GL_CU_CHECK(d->ctx_set(as_ctx));
    p.green = green;
    p.context = as_ctx;
    p.primary = primary;
    p.sms = n;
    gl_partition_check_stream(&p, NULL, "the default stream");
#endif
    *out = p;
    return GL_EXIT_OK;
}

/* The same, exiting 2 on a count the device cannot give. */
static inline gl_partition gl_partition_open(const char *prog, const char *from, int device, int sms_device, int n)
{
    gl_partition p;
    int rc = gl_partition_try_open(&p, prog, from, device, sms_device, n);
    if (rc) exit(rc);
    return p;
}

/* Back to the whole GPU (the context that was current before); the green context is destroyed.
 * Call after every stream made on it is destroyed. */
static inline void gl_partition_close(gl_partition *p)
{
    if (!p->green) return;
#if GL_HAVE_GREEN
    GL_CHECK(cudaDeviceSynchronize());
    GL_CU_CHECK(gl_driver()->ctx_set((CUcontext)p->primary));
    GL_CU_CHECK(gl_driver()->destroy((CUgreenCtx)p->green));
#endif
    p->green = p->context = p->primary = NULL;
    p->sms = p->sms_device;
}

/* "16 of 132 SMs (green context)" or "all 132 SMs" */
static inline void gl_partition_describe(const gl_partition *p, char *out, size_t len)
{
    if (p->green) snprintf(out, len, "%d of %d SMs (a green context)", p->sms, p->sms_device);
    else snprintf(out, len, "all %d SMs", p->sms_device);
}

#endif
