/* exercise.cuh - included by every Lab 03 exercise file: nothing to edit here.
 *
 * YOURS_KERNEL(name, bounds) turns your body `int name_body(work_args a)` into the kernel `name`
 * with `bounds` (empty, or __launch_bounds__(...)) in front of it; launched with a.counts set,
 * its warps write the residency records the lab turns into achieved occupancy and SM efficiency
 * (the lab's own rungs are made the same way: gl_metrics.cuh). The lab launches it with the
 * shape yours_<x>_shape returns and checks that shape with its occupancy calculator. */
#ifndef LAB03_EXERCISE_CUH
#define LAB03_EXERCISE_CUH

#include "exercises.h"
#include "gl_exercise.cuh"

#define YOURS_KERNEL(name, bounds)                                                        \
    static __global__ void bounds name(work_args a)                                       \
    {                                                                                     \
        gl_warp_clock c;                                                                  \
        gl_warp_begin(&c);                                                                \
        if (name##_body(a) && a.counts) gl_warp_record(&c, a.counts);                     \
    }                                                                                     \
    yours_work_fn name##_kernel(void) { return name; }

#endif
