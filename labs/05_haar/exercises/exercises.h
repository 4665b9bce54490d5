/* exercises.h - Lab 05 "Your turn": what the lab (main.c) and the student's kernels share. */
#ifndef LAB05_EXERCISES_H
#define LAB05_EXERCISES_H

#include <stddef.h>
#include <cuda_runtime_api.h>

/* ---- haar_level.cu: one level of the forward 2D Haar transform ---- */
typedef struct {
    const float *in;            /* width x height floats, rows `pitch` floats apart */
    float *out;                 /* the same shape: LL | HL over LH | HH (Mallat layout, haar.h) */
    int width, height;          /* even */
    size_t pitch;               /* floats per row (>= width, even) */
    float s;                    /* the convention's scale: 0.5 (average) */
    unsigned long long *counts; /* set by the lab for the counting twin; leave it alone */
} haar_level_args;

#ifdef __cplusplus
extern "C" {
#endif
void launch_yours_haar(const haar_level_args *a, cudaStream_t s);
#ifdef __cplusplus
}
#endif

#endif
