/* coalescing.h - Lab 01: the interface between the host program (C) and the kernels (CUDA),
 * and the CPU model/reference functions (model.c). */
#ifndef COALESCING_H
#define COALESCING_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>
#include "gl_rng.h"

#define SEED_ITERS 100       /* inner iterations of the seed's vector add */
#define SEED_BLOCK 1024      /* threads per block, as in the seed */
#define STREAM_BLOCK 256
#define SEGMENT_FLOATS 32    /* a 128-byte segment holds 32 floats */
#define MAX_OFFSET 32        /* offset sweep 0..MAX_OFFSET elements */
#define MAX_STRIDE 32        /* stride sweep 1..MAX_STRIDE */

/* Random streams of one run (gl_stream_seed's `stream` argument). */
enum { RNG_DATA_A = 1, RNG_DATA_B = 2, RNG_INDEX = 3, RNG_GROUP = 4 };

/* ---- the seed experiment: C[tid] = A[idx] + B[idx], SEED_ITERS times ---- */
typedef enum { PAT_COALESCED, PAT_SEMI, PAT_RANDOM } seed_pattern;

typedef struct {
    const float *a, *b;
    float *c;
    uint32_t n;
    gl_xorwow_states index_rng; /* one state per thread: the element inside the group */
    gl_xorwow_states group_rng; /* one state per warp (shared by its lanes): the group */
    uint32_t group_elems;       /* PAT_SEMI: floats per group (32 x segments) */
    uint32_t groups;            /* PAT_SEMI: n / group_elems */
    unsigned long long *counts; /* non-NULL: launch the counting twin (requests, sectors, segments) */
} seed_args;

/* ---- streaming: every element read once ---- */
typedef enum { ST_COPY, ST_COPY_VEC4, ST_COPY_ILP4, ST_ADD, ST_OFFSET, ST_STRIDE } stream_kind;

typedef struct {
    const float *a, *b; /* a has n + MAX_OFFSET elements */
    float *c;
    uint32_t n;
    uint32_t param; /* ST_OFFSET: offset in elements; ST_STRIDE: stride */
    uint32_t rows;  /* ST_STRIDE: n / param, set by launch_stream (no division on the GPU) */
    unsigned long long *counts;
} stream_args;

#ifdef __cplusplus
extern "C" {
#endif
/* kernels.cu */
gl_xorwow_states lab_rng_create(size_t n, uint64_t seed, unsigned stream, unsigned share_shift);
void lab_rng_free(gl_xorwow_states *st);
void launch_seed(seed_pattern p, const seed_args *a, cudaStream_t s);
void launch_stream(stream_kind k, const stream_args *a, cudaStream_t s);

/* model.c: CPU references */
float ref_seed_output(seed_pattern p, const float *a, const float *b, uint32_t n, uint32_t group_elems,
                      uint64_t seed, uint32_t tid);
uint32_t ref_stream_source(stream_kind k, uint32_t n, uint32_t param, uint32_t i);

/* model.c: sectors and segments per warp request */
double model_random_unique(double units, int lanes);
double model_seed_sectors(seed_pattern p, uint32_t n, uint32_t group_elems, int unit_bytes);
double model_stream_sectors(stream_kind k, uint32_t n, uint32_t param, int unit_bytes);
#ifdef __cplusplus
}
#endif

#endif
