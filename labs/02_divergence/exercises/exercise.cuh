/* exercise.cuh - included by every Lab 02 exercise file: nothing to edit here.
 *
 * YOURS_KERNEL(name, args_type) turns your body `name_body(args_type a, gl_lane_counts *c)` into
 * the timed kernel `name` and its counting twin (the lab's own rungs are made the same way); pass
 * `c` on to run_path (paths.cuh), which marks every FMA it runs so the lab measures the warp
 * execution efficiency of your kernel. YOURS_LAUNCH(name, grid, block, shared_bytes, stream,
 * args) launches the right one. */
#ifndef LAB02_EXERCISE_CUH
#define LAB02_EXERCISE_CUH

#include "exercises.h"
#include "gl_exercise.cuh"
#include "paths.cuh"

#define YOURS_KERNEL(name, args_type) GL_KERNEL_PAIR(name, args_type, gl_lane_counts, gl_lane_flush)
#define YOURS_LAUNCH GL_EXERCISE_LAUNCH

#endif
