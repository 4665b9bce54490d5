/* fuzz_cli.c - libFuzzer target for the command-line parser of common/gl_cli.h (gl_cli_parse).
 *
 * The input's first byte picks one of two lab descriptions (no pictures and no options of its
 * own, like Lab 01; pictures and two integer options, like Lab 05); the rest, split at NUL
 * bytes, is argv[1..] (each argument in its own exact-size allocation, so reading past one is
 * an AddressSanitizer report). gl_cli_parse returns a code and never exits; usage messages go
 * to /dev/null, --help and --list to stdout (sent to /dev/null too). A finding is a sanitizer
 * report or a broken promise: a code other than run / exit ok / usage, or a run whose settings
 * are outside the ranges the parser checks.
 * Built and run by tests/fuzz/run.sh (clang -fsanitize=fuzzer,address,undefined). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gl_cli.h"

#define FUZZ_NAME "fuzz_cli"
#include "fuzz_expect.h"

#define MAX_ARGS 24

static const gl_name names[] = {{"seed", "the seed experiment"}, {"stride", "strided loads"},
                                {"offset", "misaligned loads"},  {"W16_DP4A", "a variant"},
                                {"a", "a one-letter name"},      {"ladder", "an experiment"}};
static const gl_opt opts[] = {{"--levels", "wavelet levels", 1, 12, 4}, {"--ranks", "MPI ranks", 1, 64, 2}};
static const char *const ladder[] = {"W16_DP4A", "a"};
static const gl_ladder ladders[] = {GL_LADDER("ladder", NULL, ladder, "the others")};
static const gl_cli_spec specs[2] = {
    {.prog = "fuzzlab", .summary = "a lab without pictures", .names = names, .n_names = 3, .size_min = 1024,
     .size_max = 1LL << 30, .size_help = "bytes per array"},
    {.prog = "fuzzimg", .summary = "a lab with pictures", .names = names, .n_names = 6, .size_min = 16,
     .size_max = 16384, .size_help = "picture side", .takes_images = 1, .opts = opts, .n_opts = 2,
     .ladders = ladders, .n_ladders = 1},
};

static FILE *sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    sink = fopen("/dev/null", "w");
    if (!sink || !freopen("/dev/null", "w", stdout)) {
        perror("fuzz_cli: /dev/null");
        exit(1);
    }
    return 0;
}

/* A run's settings are what the parser promised to check. */
static void check_run(const gl_cli *c, const gl_cli_spec *s)
{
    EXPECT(c->size == 0 || (c->size >= s->size_min && c->size <= s->size_max), "--size %lld", c->size);
    EXPECT(c->timing.reps >= 1 && c->timing.reps <= 100000, "--reps %d", c->timing.reps);
    EXPECT(c->timing.warmup >= 0 && c->timing.warmup <= 1000, "--warmup %d", c->timing.warmup);
    EXPECT(c->device >= 0 && c->device <= 1023, "--device %d", c->device);
    EXPECT(c->n_only >= 0 && c->n_only <= GL_MAX_ONLY, "%d --only names", c->n_only);
    for (int i = 0; i < c->n_only; i++) EXPECT(gl_cli_known_name(s, c->only[i]), "--only '%s' unknown", c->only[i]);
    for (int i = 0; i < s->n_opts; i++)
        EXPECT(c->opt[i] >= s->opts[i].lo && c->opt[i] <= s->opts[i].hi, "%s %lld", s->opts[i].flag, c->opt[i]);
    EXPECT(!c->image || s->takes_images, "--image accepted by a lab without pictures");
    EXPECT(!c->save || s->takes_images, "--save accepted by a lab without pictures");
    EXPECT(!c->csv || *c->csv, "--csv ''");
    if (c->timing.once) EXPECT(c->timing.reps == 1 && c->timing.warmup == 0, "--once: %d reps", c->timing.reps);
    for (int i = 0; i < s->n_names; i++) (void)gl_cli_selected(c, s->names[i].name, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    const gl_cli_spec *s = &specs[data[0] & 1];
    char *argv[MAX_ARGS + 2];
    int argc = 0;
    argv[argc++] = strdup(s->prog);
    size_t at = 1;
    while (at < size && argc <= MAX_ARGS) {
        const uint8_t *end = memchr(data + at, 0, size - at);
        size_t len = end ? (size_t)(end - (data + at)) : size - at;
        char *arg = (char *)malloc(len + 1);
        memcpy(arg, data + at, len);
        arg[len] = 0;
        argv[argc++] = arg;
        at += len + 1;
    }
    argv[argc] = NULL;
    gl_cli c;
    int rc = gl_cli_parse(&c, s, argc, argv, sink);
    EXPECT(rc == GL_CLI_RUN || rc == GL_CLI_EXIT_OK || rc == GL_CLI_USAGE, "gl_cli_parse returned %d", rc);
    if (rc == GL_CLI_RUN) check_run(&c, s);
    for (int i = 0; i < argc; i++) free(argv[i]);
    return 0;
}
