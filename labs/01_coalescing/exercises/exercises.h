/* exercises.h - Lab 01 "Your turn": what the lab (main.c) and the student's kernels share. */
#ifndef LAB01_EXERCISES_H
#define LAB01_EXERCISES_H

#include <stdint.h>
#include <cuda_runtime_api.h>

/* ---- transpose.cu: out = the transpose of a rows x TRANSPOSE_COLS matrix ---- */
#define TRANSPOSE_COLS 32 /* the stride experiment's s = 32: the same task as its copy_stride rung */

typedef struct {
    const float *in;            /* rows x TRANSPOSE_COLS floats, row-major */
    float *out;                 /* TRANSPOSE_COLS x rows floats, row-major */
    uint32_t rows;              /* a multiple of 32 */
    unsigned long long *counts; /* set by the lab for the counting twin; leave it alone */
} transpose_args;

#ifdef __cplusplus
extern "C" {
#endif
void launch_yours_transpose(const transpose_args *a, cudaStream_t s);
#ifdef __cplusplus
}
#endif

#endif
