/* exercises.h - Lab 02 "Your turn": what the lab (main.c) and the student's kernels share. */
#ifndef LAB02_EXERCISES_H
#define LAB02_EXERCISES_H

#include "divergence.h" /* paths_args */

#define EXERCISE_PATHS MAX_PATHS /* paths.cu: k = 32, one path per lane of the lab's paths_lanes */

#ifdef __cplusplus
extern "C" {
#endif
void launch_yours_paths(const paths_args *a, cudaStream_t s);
#ifdef __cplusplus
}
#endif

#endif
