/* test_lab01.c - CPU tests of Lab 01's model and references. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "coalescing.h"

/* Brute force: average distinct values over all units^lanes equally likely lane assignments. */
static double enumerate_unique(int units, int lanes)
{
    long total = 1, sum = 0;
    for (int i = 0; i < lanes; i++) total *= units;
    for (long code = 0; code < total; code++) {
        int seen[16] = {0}, distinct = 0;
        long c = code;
        for (int i = 0; i < lanes; i++, c /= units)
            if (!seen[c % units]++) distinct++;
        sum += distinct;
    }
    return (double)sum / total;
}

static void test_random_model(void)
{
    for (int units = 1; units <= 8; units++)
        for (int lanes = 1; lanes <= 6; lanes++) {
            double e = enumerate_unique(units, lanes), m = model_random_unique(units, lanes);
            CHECK(fabs(e - m) < 1e-9, "units %d lanes %d: enumeration %.12f model %.12f", units, lanes, e, m);
        }
    /* 32 lanes: Monte Carlo with the suite's generator. */
    const int units_list[] = {4, 64, 4096};
    gl_rng r = gl_rng_seeded(3, 9);
    for (int u = 0; u < 3; u++) {
        int units = units_list[u];
        char *seen = calloc((size_t)units, 1);
        double sum = 0;
        const int warps = 100000;
        for (int w = 0; w < warps; w++) {
            int distinct = 0, picks[32];
            for (int l = 0; l < 32; l++) {
                picks[l] = (int)gl_range((uint32_t)gl_rng_next(&r), (uint32_t)units);
                if (!seen[picks[l]]++) distinct++;
            }
            for (int l = 0; l < 32; l++) seen[picks[l]] = 0;
            sum += distinct;
        }
        free(seen);
        double mc = sum / warps, m = model_random_unique(units, 32);
        CHECK(fabs(mc / m - 1) < 0.005, "units %d: Monte Carlo %.4f model %.4f", units, mc, m);
    }
    CHECK(fabs(model_random_unique(4, 32) - 3.999598) < 1e-6, "1 segment = 4 sectors: %.5f",
          model_random_unique(4, 32));
}

static void test_seed_model(void)
{
    uint32_t n = 1u << 22;
    CHECK(model_seed_sectors(PAT_COALESCED, n, n, 32) == 4.0, "coalesced sectors");
    CHECK(model_seed_sectors(PAT_COALESCED, n, n, 128) == 1.0, "coalesced segments");
    /* Random over 4M floats: ~32 sectors for the 200 pattern requests, 4 for the 6 state loads. */
    double r = model_seed_sectors(PAT_RANDOM, n, n, 32);
    double want = (200 * model_random_unique(n / 8.0, 32) + 6 * 4.0) / 206;
    CHECK(fabs(r - want) < 1e-12 && r > 31 && r < 32, "random %.4f", r);
    /* 16-segment groups: 64 sectors to choose from; 12 state loads. */
    double s = model_seed_sectors(PAT_SEMI, n, 16 * 32, 32);
    CHECK(fabs(s - (200 * model_random_unique(64, 32) + 12 * 4.0) / 212) < 1e-12, "semi16 %.4f", s);
    double seg = model_seed_sectors(PAT_SEMI, n, 16 * 32, 128);
    CHECK(fabs(seg - (200 * model_random_unique(16, 32) + 12.0) / 212) < 1e-12, "semi16 segments %.4f", seg);
}

static void test_stream_model(void)
{
    uint32_t n = 1u << 16;
    CHECK(model_stream_sectors(ST_COPY, n, 0, 32) == 4.0, "copy");
    CHECK(model_stream_sectors(ST_COPY, n, 0, 128) == 1.0, "copy segments");
    CHECK(model_stream_sectors(ST_COPY_VEC4, n, 0, 32) == 16.0, "vec4");
    CHECK(model_stream_sectors(ST_COPY_VEC4, n, 0, 128) == 4.0, "vec4 segments");
    CHECK(model_stream_sectors(ST_COPY_ILP4, n, 0, 32) == 4.0, "ilp4");
    CHECK(model_stream_sectors(ST_ADD, n, 0, 32) == 4.0, "add");
    for (uint32_t o = 0; o <= MAX_OFFSET; o++) {
        double s = model_stream_sectors(ST_OFFSET, n, o, 32), g = model_stream_sectors(ST_OFFSET, n, o, 128);
        CHECK(s == (o % 8 ? 5.0 : 4.0), "offset %u: %g sectors", o, s);
        CHECK(g == (o % 32 ? 2.0 : 1.0), "offset %u: %g segments", o, g);
    }
    const double stride_sectors[] = {0, 4, 8, 12, 16, 20, 24, 28, 32};
    for (uint32_t s = 1; s <= 8; s *= 2) {
        double m = model_stream_sectors(ST_STRIDE, n, s, 32);
        CHECK(m == stride_sectors[s], "stride %u: %g sectors", s, m);
    }
    CHECK(model_stream_sectors(ST_STRIDE, n, 32, 32) == 32.0, "stride 32");
    /* Stride 3 (q = n / 3 is not a multiple of 32): brute force over the 2D grid's warps, whose
     * addresses rise monotonically, so distinct sectors = sector changes. */
    double brute = 0;
    long warps = 0;
    for (uint32_t col = 0; col < 3; col++)
        for (uint32_t w0 = 0; w0 < n / 3 + n % 3; w0 += 32) {
            long first = -1, last = -1, units = 0;
            for (uint32_t row = w0; row < w0 + 32; row++) {
                long e = row < n / 3 ? (long)row * 3 + col : (col == 0 && row < n / 3 + n % 3 ? (long)row - n / 3 + (n / 3) * 3 : -1);
                if (e < 0) continue;
                long sector = e / 8;
                if (sector != last) units++, last = sector;
                if (first < 0) first = sector;
            }
            if (units) brute += units, warps++;
        }
    CHECK(fabs(model_stream_sectors(ST_STRIDE, n, 3, 32) - brute / warps) < 1e-12, "stride 3: model %.6f brute %.6f",
          model_stream_sectors(ST_STRIDE, n, 3, 32), brute / warps);
    CHECK(model_stream_sectors(ST_STRIDE, n, 32, 128) == 32.0, "stride 32 segments");
}

static void test_stream_reference(void)
{
    enum { N = 4096 };
    static unsigned char hits[N];
    for (uint32_t s = 1; s <= MAX_STRIDE; s++) {
        memset(hits, 0, sizeof hits);
        int ok = 1;
        for (uint32_t i = 0; i < N; i++) {
            uint32_t src = ref_stream_source(ST_STRIDE, N, s, i);
            ok &= src < N && hits[src]++ == 0;
        }
        CHECK(ok, "stride %u is a permutation of [0, n)", s);
        CHECK(s == 1 || ref_stream_source(ST_STRIDE, N, s, 1) == s, "stride %u: neighbours s apart", s);
    }
    CHECK(ref_stream_source(ST_OFFSET, N, 7, 100) == 107, "offset");
    CHECK(ref_stream_source(ST_COPY, N, 0, 100) == 100, "copy");
}

/* With a[i] = i and b = 0 the reference output is the index it read: check the seed's patterns. */
static void test_seed_reference(void)
{
    enum { N = 1 << 14, GROUP = 16 * 32 };
    static float a[N], b[N];
    for (int i = 0; i < N; i++) a[i] = (float)i;
    double sum = 0;
    int warps_ok = 1, range_ok = 1, distinct_groups = 0, prev_group = -1;
    for (uint32_t t = 0; t < N; t++) {
        CHECK(ref_seed_output(PAT_COALESCED, a, b, N, N, 1, t) == (float)t, "coalesced %u", t);
        float r = ref_seed_output(PAT_RANDOM, a, b, N, N, 1, t);
        range_ok &= r >= 0 && r < N;
        sum += r;
        int g = (int)ref_seed_output(PAT_SEMI, a, b, N, GROUP, 1, t) / GROUP;
        int g0 = (int)ref_seed_output(PAT_SEMI, a, b, N, GROUP, 1, t & ~31u) / GROUP;
        warps_ok &= g == g0;
        if ((t & 31) == 0 && g != prev_group) distinct_groups++, prev_group = g;
    }
    CHECK(range_ok, "random indices in range");
    CHECK(fabs(sum / N / (N / 2.0) - 1) < 0.02, "random indices uniform: mean %g", sum / N);
    CHECK(warps_ok, "all lanes of a warp read inside the warp's group");
    CHECK(distinct_groups > N / 32 / 2, "warps pick different groups: %d", distinct_groups);
    CHECK(ref_seed_output(PAT_RANDOM, a, b, N, N, 1, 5) != ref_seed_output(PAT_RANDOM, a, b, N, N, 2, 5),
          "seed changes the indices");
}

int main(void)
{
    test_random_model();
    test_seed_model();
    test_stream_model();
    test_stream_reference();
    test_seed_reference();
    return check_report("test_lab01");
}
