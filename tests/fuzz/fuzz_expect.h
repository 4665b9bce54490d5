/* fuzz_expect.h - EXPECT(cond, printf args) for the libFuzzer targets: a broken promise of the
 * code under test prints "FUZZ_NAME: message" and aborts, so libFuzzer saves the input as a
 * finding. Define FUZZ_NAME (a string) before including. */
#ifndef FUZZ_EXPECT_H
#define FUZZ_EXPECT_H

#include <stdio.h>
#include <stdlib.h>

#define EXPECT(cond, ...)                                                                           \
    do {                                                                                            \
        if (!(cond)) {                                                                              \
            fprintf(stderr, FUZZ_NAME ": " __VA_ARGS__);                                            \
            fprintf(stderr, "\n");                                                                  \
            abort();                                                                                \
        }                                                                                           \
    } while (0)

#endif
