/* exercises.h - Lab 03 "Your turn": what the lab (main.c, kernels.cu) and the student's kernel
 * share. */
#ifndef LAB03_EXERCISES_H
#define LAB03_EXERCISES_H

#include "occupancy.h" /* work_args, launch_shape */

#define EXERCISE_ACCUMULATORS 128 /* registers.cu: the task of the registers rung regs_128 */

#ifdef __cplusplus
extern "C" {
#endif
/* registers.cu: the student's launch shape for n elements on a GPU of `sms` SMs, and the
 * kernel (kernels.cu launches and measures it as work kernel K_YOURS_REGS). */
launch_shape yours_regs_shape(uint32_t n, int sms);
#ifdef __cplusplus
}
typedef void (*yours_work_fn)(work_args);
yours_work_fn yours_regs_kernel(void);
#endif

#endif
