/* ladders.h - Lab 04's curated ladders (ladders.c), wired into the command line by main.c. */
#ifndef LAB04_LADDERS_H
#define LAB04_LADDERS_H

#include "gl_cli.h"

extern const gl_ladder LAB04_LADDERS[];
int lab04_ladder_count(void);

#endif
