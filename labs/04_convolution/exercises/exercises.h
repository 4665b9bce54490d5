/* exercises.h - Lab 04 "Your turn": what the lab (main.c) and the student's kernels share. */
#ifndef LAB04_EXERCISES_H
#define LAB04_EXERCISES_H

#include "convolution.h" /* conv_args: in, out, width, height, pitch, filter (9 ints), shift */

#ifdef __cplusplus
extern "C" {
#endif
void launch_yours_conv(const conv_args *a, cudaStream_t s);
#ifdef __cplusplus
}
#endif

#endif
