/* exercise.cuh - included by every Lab 01 exercise file: nothing to edit here.
 *
 * YOURS_KERNEL(name, args_type) turns your body `name_body(args_type a, gl_load_counts *c)` into
 * the timed kernel `name` and its counting twin (the lab's own rungs are made the same way).
 * LOAD(p) reads *p from global memory and, in the counting twin, counts the sectors the warp's
 * read touches: read global memory only through LOAD, or the lab cannot count your loads.
 * YOURS_LAUNCH(name, grid, block, shared_bytes, stream, args) launches the right one. */
#ifndef LAB01_EXERCISE_CUH
#define LAB01_EXERCISE_CUH

#include "exercises.h"
#include "gl_exercise.cuh"

#define YOURS_KERNEL(name, args_type) GL_KERNEL_PAIR(name, args_type, gl_load_counts, gl_count_flush)
#define LOAD(p) (gl_count_load(c, (p)), *(p))
#define YOURS_LAUNCH GL_EXERCISE_LAUNCH

#endif
