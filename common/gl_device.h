/* gl_device.h - pick the GPU (or exit 77), and describe it for the report. Header-only C11. */
#ifndef GL_DEVICE_H
#define GL_DEVICE_H

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "gl_check.h"

typedef struct {
    int id;
    char name[256];
    int cc_major, cc_minor;
    int sms;        /* the SMs this run's kernels use: --sms N, else all (everything derived uses it) */
    int sms_device; /* the GPU's SMs (SM ids in %smid range over these) */
    size_t l2_bytes, mem_bytes;
    int sm_clock_mhz, mem_clock_mhz, bus_bits;
    int driver_api, runtime_api; /* e.g. 13000 = CUDA 13.0 */
    char driver[64];             /* kernel-module version, e.g. 580.159.04, or "unknown" */
} gl_device_info;

/* NVIDIA kernel-module version (the first dotted number after "Kernel Module" in /proc, whose
 * wording varies: "Kernel Module  580.65.06", "Open Kernel Module for x86_64  580.159.04");
 * "unknown" where there is no such file. */
static inline void gl_driver_version(char *out, size_t len)
{
    snprintf(out, len, "unknown");
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f) return;
    char line[512], tok[64];
    if (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "Kernel Module");
        int used = 0;
        while (p && sscanf(p, " %63s%n", tok, &used) == 1) {
            if (tok[0] >= '0' && tok[0] <= '9' && strchr(tok, '.')) {
                snprintf(out, len, "%s", tok);
                break;
            }
            p += used;
        }
    }
    fclose(f);
}

static inline int gl_attr(enum cudaDeviceAttr a, int dev)
{
    int v = 0;
    GL_CHECK(cudaDeviceGetAttribute(&v, a, dev));
    return v;
}

/* Select device `id`. No GPU or no usable driver: one line and exit 77. Bad id: exit 2. */
static inline gl_device_info gl_device_open(const char *prog, int id)
{
    gl_device_info d;
    memset(&d, 0, sizeof d);
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
        /* Without an NVIDIA driver the runtime says "CUDA driver version is insufficient": say
         * what it means on such a machine before quoting it. */
        const int no_driver = access("/proc/driver/nvidia/version", R_OK) != 0;
        printf("%s: no usable CUDA GPU (%s%s); skipping\n", prog,
               no_driver ? "no NVIDIA driver loaded on this machine; the CUDA runtime says: " : "",
               err != cudaSuccess ? cudaGetErrorString(err) : "no device found");
        exit(GL_EXIT_NO_GPU);
    }
    if (id >= count) {
        fprintf(stderr, "%s: --device %d is out of range: allowed 0..%d\n", prog, id, count - 1);
        exit(GL_EXIT_USAGE);
    }
    err = cudaSetDevice(id);
    if (err == cudaSuccess) err = cudaFree(0); /* create the context now, not inside a timing */
    if (err != cudaSuccess) {
        printf("%s: GPU %d is not usable (%s); skipping\n", prog, id, cudaGetErrorString(err));
        exit(GL_EXIT_NO_GPU);
    }
    struct cudaDeviceProp p;
    GL_CHECK(cudaGetDeviceProperties(&p, id));
    d.id = id;
    snprintf(d.name, sizeof d.name, "%s", p.name);
    d.cc_major = p.major;
    d.cc_minor = p.minor;
    d.sms = d.sms_device = p.multiProcessorCount;
    d.l2_bytes = (size_t)p.l2CacheSize;
    d.mem_bytes = p.totalGlobalMem;
    /* CUDA 13 dropped clockRate/memoryClockRate from cudaDeviceProp: ask for the attributes. */
    d.sm_clock_mhz = gl_attr(cudaDevAttrClockRate, id) / 1000;
    d.mem_clock_mhz = gl_attr(cudaDevAttrMemoryClockRate, id) / 1000;
    d.bus_bits = gl_attr(cudaDevAttrGlobalMemoryBusWidth, id);
    GL_CHECK(cudaDriverGetVersion(&d.driver_api));
    GL_CHECK(cudaRuntimeGetVersion(&d.runtime_api));
    gl_driver_version(d.driver, sizeof d.driver);
    return d;
}

static inline void gl_device_print(const gl_device_info *d, FILE *f)
{
    fprintf(f, "GPU %d: %s, compute capability %d.%d, %d SMs, L2 %.1f MiB, %.1f GiB, "
               "SM clock %d MHz, memory clock %d MHz, %d-bit bus\n",
            d->id, d->name, d->cc_major, d->cc_minor, d->sms_device, d->l2_bytes / 1048576.0,
            d->mem_bytes / 1073741824.0, d->sm_clock_mhz, d->mem_clock_mhz, d->bus_bits);
    fprintf(f, "driver %s (CUDA %d.%d), runtime CUDA %d.%d\n", d->driver, d->driver_api / 1000,
            (d->driver_api % 1000) / 10, d->runtime_api / 1000, (d->runtime_api % 1000) / 10);
    if (d->sms != d->sms_device)
        fprintf(f, "running on %d of the GPU's %d SMs (a green context); L2 and memory bandwidth stay "
                   "the whole GPU's\n", d->sms, d->sms_device);
}

/* Device memory in use now (all processes): cudaMemGetInfo's total less its free bytes. */
static inline size_t gl_device_used_bytes(void)
{
    size_t free_b = 0, total_b = 0;
    GL_CHECK(cudaMemGetInfo(&free_b, &total_b));
    return total_b - free_b;
}

/* Free device memory as the labs may use it: cudaMemGetInfo's free bytes, and with a cap
 * (GL_DEVICE_MEMORY_LIMIT, `limit` > 0) no more than the cap less what has been taken since
 * `used_at_open` (gl_device_used_bytes when the run opened the GPU), as if the run had a card of
 * `limit` bytes to itself: the small-card path, testable on a large card whatever other processes
 * held before (the gpu suite runs labs side by side; counting their memory left 0 bytes on the
 * H100). The baseline lives in the run (gl_lab.mem_used_at_open), so every file of a lab counts
 * from the same point. */
static inline size_t gl_device_free_bytes(unsigned long long limit, size_t used_at_open)
{
    size_t free_b = 0, total_b = 0;
    GL_CHECK(cudaMemGetInfo(&free_b, &total_b));
    size_t used = total_b - free_b;
    if (limit == 0 || limit >= total_b) return free_b;
    size_t mine = used > used_at_open ? used - used_at_open : 0;
    size_t left = limit > mine ? (size_t)limit - mine : 0;
    return left < free_b ? left : free_b;
}

/* Smallest power of two number of `elem_bytes` elements whose array is >= 4x the L2: the size at
 * which a kernel streaming that array is measured against DRAM, not against the cache. */
static inline size_t gl_dram_elems(const gl_device_info *d, size_t elem_bytes)
{
    size_t n = 1;
    while (n * elem_bytes < 4 * d->l2_bytes) n <<= 1;
    return n;
}

#endif
