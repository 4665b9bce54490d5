/* check.h - the few lines of test harness the C unit tests share. */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H
#include <stdio.h>

static int check_failures, check_count;

#define CHECK(cond, ...)                                                             \
    do {                                                                             \
        check_count++;                                                               \
        if (!(cond)) {                                                               \
            check_failures++;                                                        \
            fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                            \
            fprintf(stderr, "\n");                                                   \
        }                                                                            \
    } while (0)

static inline int check_report(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}
#endif
