/* fusion_run.h - Lab 04, part 3: the `fusion` and `median` experiments (fusion_run.c), called from
 * main.c. Each runs only when selected (--only; everything without it). */
#ifndef FUSION_RUN_H
#define FUSION_RUN_H

#include "fusion.h"
#include "gl_lab.h"

void fusion_run(gl_lab *L);
void median_run(gl_lab *L);

#endif
