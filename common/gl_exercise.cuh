/* gl_exercise.cuh - the device side of "Your turn" (CUDA only): what each lab's exercises/exercise.cuh
 * header builds on, so that a student's file holds only a body and a launch shape.
 *
 * GL_EXERCISE_LAUNCH(name, grid, block, smem, stream, args) launches the counting twin
 * count_<name> when args.counts is set (the lab measures its metrics with it), else the timed
 * kernel <name> (both made by GL_KERNEL_PAIR from name_body, gl_metrics.cuh), and names the
 * kernel and the line when the launch itself is refused (a block too large, too much shared
 * memory). Faults while the kernel runs are caught by the host (common/gl_exercise.h). */
#ifndef GL_EXERCISE_CUH
#define GL_EXERCISE_CUH

#include <stdio.h>
#include <stdlib.h>
#include "gl_check.h"
#include "gl_metrics.cuh"

static inline void gl_exercise_launch_check(const char *kernel, const char *file, int line)
{
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) return;
    fprintf(stderr,
            "%s:%d: CUDA ERROR launching your kernel %s: %s (%s)\n"
            "  the launch shape was refused: at most 1024 threads per block, a grid within the device's\n"
            "  limits, shared memory within the per-block limit (more than 48 KB needs an opt-in)\n",
            file, line, kernel, cudaGetErrorName(err), cudaGetErrorString(err));
    exit(GL_EXIT_FAIL);
}

#define GL_EXERCISE_LAUNCH(name, grid, block, smem, stream, args)                         \
    do {                                                                                   \
        if ((args).counts) count_##name<<<(grid), (block), (smem), (stream)>>>(args);      \
        else name<<<(grid), (block), (smem), (stream)>>>(args);                            \
        gl_exercise_launch_check(#name, __FILE__, __LINE__);                               \
    } while (0)

#endif
