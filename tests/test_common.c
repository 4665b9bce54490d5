/* test_common.c - CPU tests of common/: RNG known answers, statistics, CSV schema, CLI parsing. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "check.h"
#include "gl_cli.h"
#include "gl_progress.h"
#include "gl_green.h"
#include "gl_report.h"
#include "gl_rng.h"
#include "gl_stats.h"

static void test_rng(void)
{
    /* splitmix64 from state 0 and xoshiro256** from {1,2,3,4}: the published reference outputs. */
    uint64_t sm = 0;
    CHECK(gl_splitmix64_next(&sm) == 0xe220a8397b1dcdafULL, "splitmix64 #1");
    CHECK(gl_splitmix64_next(&sm) == 0x6e789e6aa1b965f4ULL, "splitmix64 #2");
    CHECK(gl_splitmix64_next(&sm) == 0x06c45d188009454fULL, "splitmix64 #3");
    gl_rng r = {{1, 2, 3, 4}};
    const uint64_t want[4] = {11520ULL, 0ULL, 1509978240ULL, 1215971899390074240ULL};
    for (int i = 0; i < 4; i++) {
        uint64_t got = gl_rng_next(&r);
        CHECK(got == want[i], "xoshiro256** output %d: %llu", i, (unsigned long long)got);
    }
    /* Determinism and independence of seeded streams. */
    gl_rng a = gl_rng_seeded(42, 1), b = gl_rng_seeded(42, 1), c = gl_rng_seeded(43, 1),
           d = gl_rng_seeded(42, 2);
    uint64_t xa = gl_rng_next(&a);
    CHECK(xa == gl_rng_next(&b), "same seed, same stream");
    CHECK(xa != gl_rng_next(&c), "different seed");
    CHECK(xa != gl_rng_next(&d), "different stream");
    /* Floats: in [-1, 1), mean near 0, not constant. */
    enum { N = 100000 };
    static float f[N];
    gl_fill_floats(f, N, 7, 1);
    double sum = 0, mn = 1, mx = -1;
    int zeros = 0;
    for (int i = 0; i < N; i++) {
        sum += f[i];
        mn = f[i] < mn ? f[i] : mn;
        mx = f[i] > mx ? f[i] : mx;
        zeros += f[i] == 0.0f;
    }
    CHECK(mn >= -1.0 && mx < 1.0, "range [%g, %g]", mn, mx);
    CHECK(mn < -0.99 && mx > 0.99, "spread [%g, %g]", mn, mx);
    CHECK(fabs(sum / N) < 0.01, "mean %g", sum / N);
    CHECK(zeros < 3, "%d zeros", zeros);
    /* Each element a function of (seed, stream, index): the same bytes on one core as on all. */
    static float one_core[N];
    int threads = gl_cpu_threads_set(1);
    gl_fill_floats(one_core, N, 7, 1);
    gl_cpu_threads_set(threads);
    CHECK(!memcmp(f, one_core, sizeof f), "gl_fill_floats on one core differs from all %d cores", threads);
    CHECK(f[12345] == gl_float_of_bits(gl_stream_seed(7, 1, 12345)), "element 12345 is not (seed, stream, index)'s");
    /* gl_range: the seed's r / (2^32 / n) for powers of two, and in range for any n. */
    gl_rng g = gl_rng_seeded(1, 1);
    for (int i = 0; i < 100000; i++) {
        uint32_t x = (uint32_t)gl_rng_next(&g);
        uint32_t n = 1u << (i % 31);
        CHECK(gl_range(x, n) == (uint32_t)(x / (4294967296ULL / n)), "pow2 n=%u", n);
        uint32_t m = 1 + (uint32_t)(gl_rng_next(&g) % 1000000);
        CHECK(gl_range(x, m) < m, "range n=%u", m);
    }
    /* XORWOW model: deterministic, seed-dependent; per-thread seeds distinct. */
    gl_xorwow x1 = gl_xorwow_init(5), x2 = gl_xorwow_init(5), x3 = gl_xorwow_init(6);
    uint32_t v1 = gl_xorwow_next(&x1);
    CHECK(v1 == gl_xorwow_next(&x2), "xorwow deterministic");
    CHECK(v1 != gl_xorwow_next(&x3), "xorwow seed-dependent");
    CHECK(gl_stream_seed(1, 3, 0) != gl_stream_seed(1, 3, 1), "thread seeds differ");
    CHECK(gl_stream_seed(1, 3, 0) != gl_stream_seed(1, 4, 0), "stream seeds differ");
}

static void test_stats(void)
{
    double odd[] = {3, 1, 2}, even[] = {4, 1, 3, 2}, one[] = {7.5}, dup[] = {5, 1, 5, 5, 9, 1};
    gl_summary s = gl_summarize(odd, 3);
    CHECK(s.median == 2 && s.min == 1 && s.max == 3 && s.n == 3, "odd: %g %g %g", s.median, s.min, s.max);
    s = gl_summarize(even, 4);
    CHECK(s.median == 2.5 && s.min == 1 && s.max == 4, "even median %g", s.median);
    s = gl_summarize(one, 1);
    CHECK(s.median == 7.5 && s.min == 7.5 && s.max == 7.5, "single");
    s = gl_summarize(dup, 6);
    CHECK(s.median == 5 && s.min == 1 && s.max == 9, "duplicates median %g", s.median);
    CHECK(even[0] == 4 && even[1] == 1, "input not reordered");
}

static void read_file(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, len - 1, f) : 0;
    buf[n] = '\0';
    if (f) fclose(f);
}

static void test_csv(void)
{
    char path[] = "/tmp/gl_test_csv_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0) return;
    close(fd);
    const char *meta[] = {"lab=test", "gpu=Some GPU", NULL};
    gl_report r;
    FILE *null = fopen("/dev/null", "w");
    CHECK(gl_report_open(&r, "99_test", "prog99", path, meta) == 0, "open");
    r.table = null;
    gl_row row = gl_row_new("exp", "va,r\"x", 1024);
    row.param = 3;
    row.reps = 5;
    row.batch = 2;
    row.median_ms = 0.25;
    row.min_ms = 0.125;
    row.max_ms = 1.5;
    row.gbs = 1234.5;
    row.checked = 1024;
    gl_report_row(&r, &row);
    gl_row bare = gl_row_new("exp", "plain", 7);
    gl_report_row(&r, &bare);
    gl_report_close(&r);
    fclose(null);
    char buf[4096];
    read_file(path, buf, sizeof buf);
    remove(path);
    const char *want =
        "# lab=test\n# gpu=Some GPU\n" GL_CSV_HEADER "\n"
        "99_test,exp,\"va,r\"\"x\",1024,3,,,warm,5,2,0.25,0.125,1.5,1234.5,,,,,,,,,,,,,,,,,,,,,,,,1024,,,\n"
        "99_test,exp,plain,7,,,,warm,0,0,,,,,,,,,,,,,,,,,,,,,,,,,,,,0,,,\n";
    CHECK(strcmp(buf, want) == 0, "CSV text:\n%s\nexpected:\n%s", buf, want);
    /* Every row has as many fields as the header (41). */
    int header_fields = 1;
    for (const char *p = GL_CSV_HEADER; *p; p++) header_fields += *p == ',';
    CHECK(header_fields == 41, "header has %d fields", header_fields);
}

static const gl_name NAMES[] = {{"alpha", "a"}, {"beta", "b"}, {"b1", "variant of beta"}};
#define SPEC_BASE .prog = "prog", .summary = "test", .names = NAMES, .n_names = 3, .size_min = 32, \
                  .size_max = 1 << 20, .size_help = "elements"
static const gl_cli_spec SPEC = {SPEC_BASE};
static const gl_cli_spec SPEC_IMG = {SPEC_BASE, .takes_images = 1};
static const gl_opt OPTS[] = {{"--levels", "levels of the transform", 1, 15, 4}, {"--k", "a second one", -3, 3, 0}};
static const gl_cli_spec SPEC_OPT = {SPEC_BASE, .opts = OPTS, .n_opts = 2};

static const char *const LADDER_B[] = {"b1", "b3"};
static const gl_ladder LADDERS_B[] = {GL_LADDER("beta", NULL, LADDER_B, "b2 (a notebook)")};
static const gl_cli_spec SPEC_LADDER = {SPEC_BASE, .ladders = LADDERS_B, .n_ladders = 1};

static const gl_cli_spec *parse_spec = &SPEC;

static int parse(gl_cli *c, char *msg, size_t len, int argc, char **argv)
{
    FILE *err = tmpfile();
    int rc = gl_cli_parse(c, parse_spec, argc, argv, err);
    rewind(err);
    size_t n = fread(msg, 1, len - 1, err);
    msg[n] = '\0';
    fclose(err);
    return rc;
}

#define ARGV(...) ((char *[]){"prog", __VA_ARGS__})
#define NARGS(...) (int)(sizeof((char *[]){"prog", __VA_ARGS__}) / sizeof(char *))
#define EXPECT_USAGE(text, ...)                                                                  \
    do {                                                                                         \
        int rc_ = parse(&c, msg, sizeof msg, NARGS(__VA_ARGS__), ARGV(__VA_ARGS__));             \
        CHECK(rc_ == GL_CLI_USAGE && strstr(msg, text), "rc %d, message '%s', wanted '%s'", rc_, \
              msg, text);                                                                        \
    } while (0)

/* Run `fn` in a child process with stderr in `msg`; return its exit status (-1: killed). */
static int in_child(void (*fn)(const char *), const char *arg, char *msg, size_t len)
{
    FILE *err = tmpfile();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fileno(err), 2);
        fn(arg);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    rewind(err);
    size_t n = fread(msg, 1, len - 1, err);
    msg[n] = '\0';
    fclose(err);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void write_report(const char *path)
{
    const char *meta[] = {"lab=test", NULL};
    gl_report r;
    if (gl_report_open(&r, "99_test", "prog99", path, meta)) _exit(7);
    r.table = fopen("/dev/null", "w");
    gl_row row = gl_row_new("exp", "v", 1024);
    for (int i = 0; i < 2000; i++) gl_report_row(&r, &row);
    gl_report_close(&r);
}

/* Output that cannot be written is an error with the path in the message; a regular file
 * appears only when complete (PATH.tmp until then). */
static void test_csv_errors(void)
{
    char msg[2048];
    int rc = in_child(write_report, "/dev/full", msg, sizeof msg);
    CHECK(rc == 1, "--csv /dev/full: exit %d", rc);
    CHECK(strstr(msg, "prog99: cannot write --csv file '/dev/full': No space left on device") != NULL, "message: %s", msg);
    rc = in_child(write_report, "/no/such/dir/x.csv", msg, sizeof msg);
    CHECK(rc == 7 && strstr(msg, "'/no/such/dir/x.csv': No such file or directory"), "missing dir: %d %s", rc, msg);

    char dir[] = "/tmp/gl_test_out_XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char path[256], tmp[300];
    snprintf(path, sizeof path, "%s/out.csv", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    const char *meta[] = {"lab=test", NULL};
    gl_report r;
    CHECK(gl_report_open(&r, "99_test", "prog99", path, meta) == 0, "open %s", path);
    r.table = fopen("/dev/null", "w");
    gl_row row = gl_row_new("exp", "v", 1024);
    gl_report_row(&r, &row);
    CHECK(access(tmp, F_OK) == 0 && access(path, F_OK) != 0, "while writing: only %s exists", tmp);
    gl_report_close(&r);
    fclose(r.table);
    CHECK(access(path, F_OK) == 0 && access(tmp, F_OK) != 0, "after close: only %s exists", path);
    remove(path);
    rmdir(dir);

    /* The command line refuses unwritable output paths before any GPU work (exit 2). */
    FILE *null = fopen("/dev/null", "w");
    CHECK(gl_cli_check_output("prog", "--csv", "/no/such/dir/x.csv", null) != 0, "missing directory");
    CHECK(gl_cli_check_output("prog", "--csv", "/tmp", null) != 0, "a directory");
    CHECK(gl_cli_check_output("prog", "--csv", "/tmp/x.csv", null) == 0, "writable directory");
    CHECK(gl_cli_check_output("prog", "--csv", "x.csv", null) == 0, "current directory");
    fclose(null);
}

/* --sms, GL_SMS, GL_DEVICE_MEMORY_LIMIT, and the allowed SM counts (gl_green.h) */
static void test_sms(void)
{
    gl_cli c;
    char msg[1024];
    CHECK(parse(&c, msg, sizeof msg, NARGS("--sms", "16"), ARGV("--sms", "16")) == GL_CLI_RUN && c.sms == 16,
          "--sms 16");
    CHECK(parse(&c, msg, sizeof msg, NARGS("--sms=0"), ARGV("--sms=0")) == GL_CLI_USAGE &&
              strstr(msg, "--sms '0' is invalid: allowed integers 1..4096"), "--sms 0: %s", msg);
    CHECK(parse(&c, msg, sizeof msg, NARGS("--sms", "x"), ARGV("--sms", "x")) == GL_CLI_USAGE, "--sms x");
    CHECK(parse(&c, msg, sizeof msg, NARGS("--sms"), ARGV("--sms")) == GL_CLI_USAGE, "--sms without value");
    setenv("GL_SMS", "32", 1);
    CHECK(parse(&c, msg, sizeof msg, 1, ARGV(NULL)) == GL_CLI_RUN && c.sms == 32 && !strcmp(c.sms_from, "GL_SMS"),
          "GL_SMS=32 is the default");
    CHECK(parse(&c, msg, sizeof msg, NARGS("--sms", "8"), ARGV("--sms", "8")) == GL_CLI_RUN && c.sms == 8,
          "--sms wins over GL_SMS");
    setenv("GL_SMS", "-4", 1);
    CHECK(parse(&c, msg, sizeof msg, 1, ARGV(NULL)) == GL_CLI_USAGE && strstr(msg, "GL_SMS '-4' is invalid"),
          "GL_SMS=-4: %s", msg);
    unsetenv("GL_SMS");
    setenv("GL_DEVICE_MEMORY_LIMIT", "4G", 1);
    CHECK(parse(&c, msg, sizeof msg, 1, ARGV(NULL)) == GL_CLI_RUN && c.mem_limit == 4ULL << 30, "4G");
    setenv("GL_DEVICE_MEMORY_LIMIT", "0", 1);
    CHECK(parse(&c, msg, sizeof msg, 1, ARGV(NULL)) == GL_CLI_USAGE, "a cap of 0 bytes");
    unsetenv("GL_DEVICE_MEMORY_LIMIT");
    unsigned long long b = 0;
    CHECK(!gl_parse_bytes("512m", &b) && b == 512ULL << 20, "512m");
    CHECK(!gl_parse_bytes("1T", &b) && b == 1ULL << 40, "1T");
    CHECK(!gl_parse_bytes("4096", &b) && b == 4096, "plain bytes");
    CHECK(gl_parse_bytes("4GB", &b) && gl_parse_bytes("G", &b) && gl_parse_bytes("-1G", &b) &&
              gl_parse_bytes("99999999999T", &b), "malformed caps refused");
    /* An H100 (132 SMs, partitions of 8 aligned to 8): 8, 16, ..., 128 and 132. */
    int list[64];
    CHECK(gl_sms_list(132, 8, 8, list, 64) == 17 && list[0] == 8 && list[15] == 128 && list[16] == 132,
          "H100 counts");
    CHECK(!gl_sms_allowed(12, 132, 8, 8) && !gl_sms_allowed(4, 132, 8, 8) && !gl_sms_allowed(136, 132, 8, 8),
          "12, 4 and 136 refused on an H100");
    /* Compute capability 8.x (minimum 4, multiples of 2) on 108 SMs; no green contexts: the whole GPU only. */
    CHECK(gl_sms_allowed(6, 108, 4, 2) && !gl_sms_allowed(2, 108, 4, 2) && !gl_sms_allowed(7, 108, 4, 2), "cc 8.x");
    CHECK(gl_sms_list(46, 0, 0, list, 64) == 1 && list[0] == 46, "no green contexts: the whole GPU");
}

static void test_cli(void)
{
    gl_cli c;
    char msg[1024];
    int rc = parse(&c, msg, sizeof msg, NARGS("--size", "4096", "--reps=7", "--seed", "0x10", "--only",
                                              "alpha,b1", "--csv", "-", "--flush-l2", "--device", "1"),
                   ARGV("--size", "4096", "--reps=7", "--seed", "0x10", "--only", "alpha,b1", "--csv",
                        "-", "--flush-l2", "--device", "1"));
    CHECK(rc == GL_CLI_RUN, "valid command line: %d %s", rc, msg);
    CHECK(c.size == 4096 && c.timing.reps == 7 && c.seed == 16 && c.device == 1, "values");
    CHECK(c.timing.flush_l2 == 1 && c.csv && !strcmp(c.csv, "-"), "switches");
    CHECK(gl_cli_selected(&c, "alpha", "x") && gl_cli_selected(&c, "beta", "b1"), "selected");
    CHECK(!gl_cli_selected(&c, "beta", "b2"), "not selected");
    rc = parse(&c, msg, sizeof msg, 1, ARGV(NULL));
    CHECK(rc == GL_CLI_RUN && c.size == 0 && c.timing.reps == 20 && c.timing.warmup == 2 &&
              c.seed == GL_DEFAULT_SEED && gl_cli_selected(&c, "beta", "b9"),
          "defaults");
    rc = parse(&c, msg, sizeof msg, NARGS("--quick", "--reps", "50"), ARGV("--quick", "--reps", "50"));
    CHECK(rc == GL_CLI_RUN && c.quick && c.timing.reps == 5, "--quick caps reps at 5: %d", c.timing.reps);
    rc = parse(&c, msg, sizeof msg, NARGS("--once"), ARGV("--once"));
    CHECK(rc == GL_CLI_RUN && c.timing.reps == 1 && c.timing.warmup == 0, "--once");
    EXPECT_USAGE("--size '0' is invalid: allowed integers 32..1048576", "--size", "0");
    EXPECT_USAGE("--size '-5' is invalid", "--size", "-5");
    EXPECT_USAGE("--size 'abc' is invalid", "--size", "abc");
    EXPECT_USAGE("--size '12x' is invalid", "--size=12x");
    EXPECT_USAGE("--size '' is invalid", "--size=");
    EXPECT_USAGE("--size '2097152' is invalid", "--size", "2097152");
    EXPECT_USAGE("--reps '0' is invalid: allowed integers 1..100000", "--reps", "0");
    EXPECT_USAGE("--warmup '1001' is invalid: allowed integers 0..1000", "--warmup", "1001");
    EXPECT_USAGE("--device '-1' is invalid", "--device", "-1");
    EXPECT_USAGE("--seed '-3' is invalid", "--seed", "-3");
    EXPECT_USAGE("--seed '99999999999999999999' is invalid", "--seed", "99999999999999999999");
    EXPECT_USAGE("unknown option '--bogus'", "--bogus");
    EXPECT_USAGE("unknown option 'stray'", "stray");
    EXPECT_USAGE("--only: unknown name 'gamma'; allowed: alpha beta b1", "--only", "alpha,gamma");
    EXPECT_USAGE("--only needs at least one name", "--only", ",");
    EXPECT_USAGE("--reps needs a value", "--reps");
    EXPECT_USAGE("--quick takes no value", "--quick=1");
    /* --image and --save exist only for labs that take images. */
    EXPECT_USAGE("unknown option '--image'", "--image", "/dev/null");
    parse_spec = &SPEC_IMG;
    rc = parse(&c, msg, sizeof msg, NARGS("--image", "/dev/null", "--save=/tmp"), ARGV("--image", "/dev/null", "--save=/tmp"));
    CHECK(rc == GL_CLI_RUN && c.image && !strcmp(c.image, "/dev/null") && c.save && !strcmp(c.save, "/tmp"),
          "--image, --save: %d %s", rc, msg);
    EXPECT_USAGE("--image '/no/such.pgm': No such file or directory", "--image", "/no/such.pgm");
    EXPECT_USAGE("--image '': needs a file name", "--image=");
    EXPECT_USAGE("--save '/no/such/dir': needs an existing, writable directory", "--save", "/no/such/dir");
    EXPECT_USAGE("--save '/dev/null': needs an existing, writable directory", "--save", "/dev/null");
    /* A lab's own integer options (Lab 05's --levels): defaults, values, ranges, unknown elsewhere. */
    EXPECT_USAGE("unknown option '--levels'", "--levels", "3");
    parse_spec = &SPEC_OPT;
    rc = parse(&c, msg, sizeof msg, 1, ARGV(NULL));
    CHECK(rc == GL_CLI_RUN && c.opt[0] == 4 && c.opt[1] == 0, "option defaults: %lld %lld", c.opt[0], c.opt[1]);
    rc = parse(&c, msg, sizeof msg, NARGS("--levels", "15", "--k=-3"), ARGV("--levels", "15", "--k=-3"));
    CHECK(rc == GL_CLI_RUN && c.opt[0] == 15 && c.opt[1] == -3, "option values: %d %lld %lld", rc, c.opt[0], c.opt[1]);
    EXPECT_USAGE("--levels '0' is invalid: allowed integers 1..15 (levels of the transform)", "--levels", "0");
    EXPECT_USAGE("--levels '16' is invalid", "--levels=16");
    EXPECT_USAGE("--k '4' is invalid: allowed integers -3..3", "--k", "4");
    EXPECT_USAGE("--levels needs a value", "--levels");
    parse_spec = &SPEC;
}

/* The curated ladders: the default run measures a ladder's rungs only; --all, or --only naming a
 * rung, adds the others; experiments without a ladder run every rung; --ladders is a clean exit. */
static void test_ladders(void)
{
    gl_cli c;
    char msg[1024];
    parse_spec = &SPEC_LADDER;
    int rc = parse(&c, msg, sizeof msg, 1, ARGV(NULL));
    CHECK(rc == GL_CLI_RUN && !c.all, "defaults: %d %s", rc, msg);
    CHECK(gl_cli_rung(&c, "beta", "b1") && gl_cli_rung(&c, "beta", "b3"), "the ladder's rungs run");
    CHECK(!gl_cli_rung(&c, "beta", "b2") && !gl_cli_curated(&c, "beta", "b2"), "b2 is off the ladder");
    CHECK(gl_cli_rung(&c, "alpha", "anything"), "no ladder: every rung");
    rc = parse(&c, msg, sizeof msg, NARGS("--all"), ARGV("--all"));
    CHECK(rc == GL_CLI_RUN && c.all && gl_cli_rung(&c, "beta", "b2"), "--all: every rung");
    rc = parse(&c, msg, sizeof msg, NARGS("--only", "b1"), ARGV("--only", "b1"));
    CHECK(rc == GL_CLI_RUN && gl_cli_rung(&c, "beta", "b1") && !gl_cli_rung(&c, "beta", "b3"),
          "--only a rung: that rung alone");
    CHECK(!gl_cli_rung(&c, "alpha", "x"), "--only b1: alpha is not selected");
    rc = parse(&c, msg, sizeof msg, NARGS("--only", "alpha"), ARGV("--only", "alpha"));
    CHECK(!gl_cli_rung(&c, "beta", "b1") && gl_cli_curated(&c, "beta", "b1") && !gl_cli_curated(&c, "beta", "b2"),
          "curated ignores --only's experiments, rung does not");
    EXPECT_USAGE("--all takes no value", "--all=1");
    FILE *out = tmpfile();
    gl_cli_ladders(&SPEC_LADDER, out);
    rewind(out);
    size_t n = fread(msg, 1, sizeof msg - 1, out);
    msg[n] = '\0';
    fclose(out);
    CHECK(!strcmp(msg, "beta (2 rungs): b1 b3\n  (--all adds b2 (a notebook))\n"), "--ladders text: '%s'", msg);
    parse_spec = &SPEC;
}

/* Progress lines: with GL_PROGRESS_EVERY_S=0 every tick is a plain line on a file (stderr here),
 * then the closing line; with the default, ticks closer than 2 s apart print nothing. */
static void test_progress(void)
{
    char path[] = "/tmp/gl_progress_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0, "mkstemp");
    if (fd < 0) return;
    fflush(stderr);
    int saved = dup(2);
    dup2(fd, 2);
    setenv("GL_PROGRESS_EVERY_S", "0", 1);
    gl_progress p;
    gl_progress_begin(&p, 3, "reference %d", 7);
    for (int i = 1; i <= 3; i++) gl_progress_tick(&p, i, i == 2 ? "two" : NULL);
    gl_progress_end(&p);
    unsetenv("GL_PROGRESS_EVERY_S");
    gl_progress_begin(&p, 100, "quiet");
    for (int i = 1; i <= 100; i++) gl_progress_tick(&p, i, NULL);
    gl_progress_end(&p); /* well under 2 s: nothing at all */
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    char text[512];
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(text, 1, sizeof text - 1, f) : 0;
    text[n] = '\0';
    if (f) fclose(f);
    unlink(path);
    CHECK(strstr(text, "reference 7: 1/3 (0 s)\nreference 7: 2/3 two (0 s)\nreference 7: 3/3 (0 s)\n"),
          "tick lines: '%s'", text);
    CHECK(strstr(text, "reference 7: done, ") && !strstr(text, "quiet"), "closing line, quiet step: '%s'", text);
}

int main(void)
{
    test_rng();
    test_stats();
    test_csv();
    test_cli();
    test_ladders();
    test_progress();
    test_sms();
    test_csv_errors();
    return check_report("test_common");
}
