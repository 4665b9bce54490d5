/* exercise.cuh - included by every Lab 04 exercise file: nothing to edit here.
 *
 * YOURS_KERNEL(name) turns your body `name_body(conv_args a, gl_load_counts *c)` into the timed
 * kernel `name` and its counting twin (the ladder's rungs are made the same way). LOAD(p) reads
 * *p from global memory and, in the counting twin, counts the sectors the warp's read touches:
 * read global memory only through LOAD. PIXEL(sum, shift) is the lab's rounding: the sum shifted
 * right (arithmetic: a floor) and clamped to 0..255. YOURS_LAUNCH(name, grid, block,
 * shared_bytes, stream, args) launches the right one. */
#ifndef LAB04_EXERCISE_CUH
#define LAB04_EXERCISE_CUH

#include "exercises.h"
#include "gl_exercise.cuh"

#define YOURS_KERNEL(name) GL_KERNEL_PAIR(name, conv_args, gl_load_counts, gl_count_flush)
#define LOAD(p) (gl_count_load(c, (p)), *(p))
#define PIXEL(sum, shift) ((uint8_t)min(max((sum) >> (shift), 0), 255))
#define YOURS_LAUNCH GL_EXERCISE_LAUNCH

#endif
