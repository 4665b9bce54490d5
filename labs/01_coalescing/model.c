/* model.c - Lab 01 on the CPU: the reference outputs every kernel is checked against, and the
 * model of how many 32-byte sectors (or 128-byte segments) one warp-wide load touches. */
#include <math.h>
#include "coalescing.h"

/* Output C[tid] of a seed kernel: the last of SEED_ITERS draws decides it. The draws are replayed
 * with the XORWOW model, from the same per-thread seeds the GPU states were initialised with. */
float ref_seed_output(seed_pattern p, const float *a, const float *b, uint32_t n, uint32_t group_elems,
                      uint64_t seed, uint32_t tid)
{
    if (p == PAT_COALESCED) return a[tid] + b[tid];
    uint32_t base = 0, span = n;
    if (p == PAT_SEMI) {
        gl_xorwow g = gl_xorwow_init(gl_stream_seed(seed, RNG_GROUP, tid >> 5));
        base = gl_range(gl_xorwow_next(&g), n / group_elems) * group_elems;
        span = group_elems;
    }
    gl_xorwow x = gl_xorwow_init(gl_stream_seed(seed, RNG_INDEX, tid));
    uint32_t idx = 0;
    for (int i = 0; i < SEED_ITERS; i++) idx = base + gl_range(gl_xorwow_next(&x), span);
    return a[idx] + b[idx];
}

/* Which element of the input a streaming kernel reads for output element i. */
uint32_t ref_stream_source(stream_kind k, uint32_t n, uint32_t param, uint32_t i)
{
    if (k == ST_OFFSET) return i + param;
    if (k == ST_STRIDE) {
        /* A permutation: view [0, q*s) as q rows of s and read it column by column, so every
         * element is read exactly once and neighbouring threads are `s` elements apart. */
        uint32_t s = param, q = n / s;
        return i < q * s ? (i % q) * s + i / q : i;
    }
    return i;
}

/* Expected distinct units among `lanes` independent uniform picks out of `units`. */
double model_random_unique(double units, int lanes)
{
    if (units <= 1.0) return 1.0;
    return units * -expm1(lanes * log1p(-1.0 / units));
}

/* Average units per load request of a seed kernel, state loads included: the random kernels
 * first load their XORWOW states (6 coalesced words per generator, one unit-aligned 128-byte
 * line each), then make 2 * SEED_ITERS requests of the pattern. */
double model_seed_sectors(seed_pattern p, uint32_t n, uint32_t group_elems, int unit_bytes)
{
    double line = 128.0 / unit_bytes; /* units in one warp's 32 consecutive floats */
    if (p == PAT_COALESCED) return line;
    double span_units = (p == PAT_SEMI ? group_elems : n) * 4.0 / unit_bytes;
    double pattern = model_random_unique(span_units < 1.0 ? 1.0 : span_units, 32);
    double state_requests = (p == PAT_SEMI ? 2 : 1) * 6.0;
    double requests = 2.0 * SEED_ITERS;
    return (requests * pattern + state_requests * line) / (requests + state_requests);
}

static int unique_count(uint64_t *v, int m)
{
    for (int i = 1; i < m; i++) /* insertion sort: m <= 32 */
        for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
            uint64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    int u = m > 0;
    for (int i = 1; i < m; i++) u += v[i] != v[i - 1];
    return u;
}

/* Element read by lane `lane` of warp `w` of a streaming kernel, or -1 for an idle lane. Warps
 * are the kernel's own: 32 consecutive threads in x; for ST_STRIDE, w = column * row_warps + row
 * warp (its 2D grid). ST_COPY_ILP4's four requests each cover 32 consecutive aligned floats, like
 * ST_COPY's one, so it is enumerated as ST_COPY; ST_COPY_VEC4 lanes read 16 bytes (element 4t). */
static int64_t stream_lane_source(stream_kind k, uint32_t n, uint32_t param, uint64_t w, uint32_t lane)
{
    if (k == ST_STRIDE) {
        uint32_t s = param, q = n / s, rows = q + n % s;
        uint64_t row_warps = (rows + 31) / 32, col = w / row_warps;
        uint64_t row = (w % row_warps) * 32 + lane;
        if (row < q) return (int64_t)(row * s + col);
        return col == 0 && row < rows ? (int64_t)(q * s + (row - q)) : -1;
    }
    uint64_t t = w * 32 + lane;
    if (k == ST_COPY_VEC4) return t < n / 4 ? (int64_t)(4 * t) : -1;
    return t < n ? (int64_t)ref_stream_source(k == ST_COPY_ILP4 ? ST_COPY : k, n, param, (uint32_t)t) : -1;
}

static uint64_t stream_warps(stream_kind k, uint32_t n, uint32_t param)
{
    if (k == ST_STRIDE) return (uint64_t)param * ((n / param + n % param + 31) / 32);
    return ((k == ST_COPY_VEC4 ? n / 4 : n) + 31) / 32;
}

/* Average units per load request of a streaming kernel: exact enumeration of the kernel's warps
 * (at most 16384 evenly spaced ones), arrays 256-byte aligned. */
double model_stream_sectors(stream_kind k, uint32_t n, uint32_t param, int unit_bytes)
{
    uint64_t warps = stream_warps(k, n, param), step = warps > 16384 ? warps / 16384 : 1;
    double total = 0.0;
    uint64_t requests = 0;
    for (uint64_t w = 0; w < warps; w += step) {
        uint64_t units[32];
        int m = 0;
        for (uint32_t lane = 0; lane < 32; lane++) {
            int64_t e = stream_lane_source(k, n, param, w, lane);
            if (e >= 0) units[m++] = (uint64_t)e * 4 / (uint64_t)unit_bytes;
        }
        if (m == 0) continue;
        total += unique_count(units, m);
        requests++;
    }
    return total / (double)requests;
}
