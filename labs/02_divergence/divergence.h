/* divergence.h - Lab 02: the interface between the host program (C), the kernels (CUDA) and the
 * CPU references and efficiency model (model.c). */
#ifndef DIVERGENCE_H
#define DIVERGENCE_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#define SEED_ITERS 100   /* the seed's loop */
#define SEED_BLOCK 1024  /* the seed's threads per block; every lab size is a multiple of it */
#define WORK_BLOCK 256   /* threads per block of the other experiments */
#define PATH_ITERS 512   /* dependent FMAs in one path body of `paths` */
#define MAX_PATHS 32     /* k = 1, 2, 4, ..., 32 */
#define DATA_ITERS 2048  /* dependent FMAs on the expensive path of `data` */
#define PRED_ITERS 1024  /* iterations of the short branch in `predication` */

/* Random streams of one run (gl_stream_seed's `stream` argument). */
enum { RNG_A = 1, RNG_B = 2, RNG_X = 3, RNG_KEYS = 4 };

/* ---- seed: C[tid] = A[tid] op B[tid], op chosen per warp or per lane, SEED_ITERS times ---- */
typedef enum { SEED_BY_WARP, SEED_BY_LANE } seed_kind;

typedef struct {
    const float *a, *b;
    float *c;
    unsigned long long *counts; /* non-NULL: launch the counting twin (gl_lane_counts) */
} seed_args;

/* ---- paths: k groups of lanes (or of whole warps), each with its own compute-heavy body ---- */
typedef enum { PATHS_BY_LANES, PATHS_BY_WARPS } paths_kind;

typedef struct {
    const float *x;
    float *y;
    uint32_t n, k;
    unsigned long long *counts;
} paths_args;

/* ---- data: the expensive path taken where key >> 26 < p64 (probability p64 / 64) ---- */
typedef struct {
    const uint32_t *keys;
    float *y;
    uint32_t n, p64;
    unsigned long long *counts;
} data_args;

/* ---- predication: a short two-sided branch in a loop, uniform or divergent ---- */
typedef enum { PRED_UNIFORM, PRED_DIVERGENT, BRANCH_UNIFORM, BRANCH_DIVERGENT } pred_kind;

typedef struct {
    const float *x;
    float *y;
    uint32_t n;
    unsigned long long *counts;
} pred_args;

#ifdef __cplusplus
extern "C" {
#endif
/* kernels.cu */
void launch_seed(seed_kind k, const seed_args *a, uint32_t n, cudaStream_t s);
void launch_paths(paths_kind k, const paths_args *a, cudaStream_t s);
void launch_data(const data_args *a, cudaStream_t s);
void launch_pred(pred_kind k, const pred_args *a, cudaStream_t s);
/* Sort n keys ascending with CUB (temp: scratch of sort_temp_bytes(n) bytes). */
size_t sort_temp_bytes(uint32_t n);
void sort_keys(const uint32_t *in, uint32_t *out, uint32_t n, void *temp, size_t temp_bytes, cudaStream_t s);

/* model.c: CPU references (the same IEEE single-precision operations, in the same order) */
float ref_seed(seed_kind k, float a, float b, uint32_t tid);
float path_mul(uint32_t path);
float path_add(uint32_t path);
uint32_t path_of(paths_kind k, uint32_t tid, uint32_t paths);
float ref_path(uint32_t path, float x);
int data_expensive(uint32_t key, uint32_t p64);
float ref_data(uint32_t key, uint32_t p64);
float ref_pred(pred_kind k, float x, uint32_t tid);

/* model.c: what the counting twin should find, computed on the CPU */
typedef struct {
    double lane_units, warp_units; /* warp execution efficiency = lane / (32 * warp) */
    double branches, divergent;    /* data: warps at the branch, and those whose lanes disagree */
} lane_model;
double model_efficiency(const lane_model *m);
lane_model model_seed(seed_kind k, uint32_t n);
lane_model model_paths(paths_kind k, uint32_t n, uint32_t paths);
lane_model model_data(const uint32_t *keys, uint32_t n, uint32_t p64);
lane_model model_pred(pred_kind k, uint32_t n);
#ifdef __cplusplus
}
#endif

#endif
