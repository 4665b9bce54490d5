/* cnn_run.h - Lab 04, part 2: the `cnn` experiment (cnn_run.c), called from main.c. */
#ifndef CNN_RUN_H
#define CNN_RUN_H

#include "cnn.h"
#include "gl_lab.h"

void cnn_run(gl_lab *L);
int cnn_config_count(void);
const char *cnn_config_name(int i); /* as --only spells it */
int cnn_row_count(void);
const char *cnn_row_name(int v); /* a row of the table (cnn_variants.c), as --only spells it */

#endif
