/* test_lab03.c - CPU tests of Lab 03: the occupancy calculator against hand-worked cases (the
 * same cases cudaOccupancyMaxActiveBlocksPerMultiprocessor answered on an H100), the seed's
 * launch scenarios, the residency arithmetic, and the references. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "gl_residency.h"
#include "occupancy.h"

/* H100 SXM (compute capability 9.0) as cudaGetDeviceProperties reports it. */
static const occ_device H100 = {9, 0, 2048, 1024, 32, 32, 65536, 65536, 233472, 232448, 1024};
/* Tesla K40 (3.5): 2048 threads, 16 blocks, 64K registers, 48 KB shared memory per SM. */
static const occ_device K40 = {3, 5, 2048, 1024, 16, 32, 65536, 65536, 49152, 49152, 0};

typedef struct {
    int threads, registers;
    size_t smem;
    int blocks;
    occ_limiter limiter;
} occ_case;

/* Each case: blocks per SM worked out by hand from the rules in model.c. */
static const occ_case H100_CASES[] = {
    {256, 18, 0, 8, LIMIT_WARPS},          /* 8 warps per block, 64 slots */
    {32, 18, 0, 32, LIMIT_BLOCKS},         /* 1 warp per block: the 32-block limit, 50% */
    {96, 18, 0, 21, LIMIT_WARPS},          /* 3 warps: 21 blocks = 63 warps */
    {768, 18, 0, 2, LIMIT_WARPS},          /* 24 warps: 2 blocks = 48 warps, 75% */
    {256, 47, 0, 5, LIMIT_REGISTERS},      /* 47 x 32 -> 1536 per warp; 16384 / 1536 = 10 per SMSP */
    {256, 128, 0, 2, LIMIT_REGISTERS},     /* 4096 per warp: 4 per SMSP = 16 warps */
    {256, 136, 0, 1, LIMIT_REGISTERS},     /* 4352 per warp: 3 per SMSP = 12 warps: one block */
    {256, 232, 0, 1, LIMIT_REGISTERS},     /* 7424 per warp: 2 per SMSP */
    {1024, 255, 0, 0, LIMIT_NONE_FITS},    /* 8192 x 32 warps > 65536 registers per block */
    {1024, 64, 0, 1, LIMIT_REGISTERS},     /* 2048 x 32 = 65536: exactly one block */
    {256, 18, 32768, 6, LIMIT_SMEM},       /* 33792 B per block: 233472 / 33792 = 6 */
    {256, 18, 49152, 4, LIMIT_SMEM},       /* 50176 B */
    {256, 18, 98304, 2, LIMIT_SMEM},       /* 99328 B */
    {256, 18, 232448, 1, LIMIT_SMEM},      /* the opt-in maximum + 1 KB reserved = the whole SM */
    {256, 18, 232449, 0, LIMIT_NONE_FITS}, /* one byte more than a block may have */
    {32, 18, 100, 32, LIMIT_BLOCKS},       /* 1124 -> 1152 B: 202 blocks by memory, 32 by slots */
    {64, 0, 0, 32, LIMIT_WARPS},           /* no registers at all (an empty kernel) */
};

static void test_calculator(void)
{
    for (size_t i = 0; i < sizeof H100_CASES / sizeof H100_CASES[0]; i++) {
        const occ_case *c = &H100_CASES[i];
        occ_result r = occ_calculate(&H100, c->threads, c->registers, 0, c->smem);
        CHECK(r.blocks_per_sm == c->blocks, "H100 %d threads, %d regs, %zu B: %d blocks, expected %d", c->threads,
              c->registers, c->smem, r.blocks_per_sm, c->blocks);
        CHECK(r.limiter == c->limiter, "H100 %d threads, %d regs, %zu B: limited by %s, expected %s", c->threads,
              c->registers, c->smem, occ_limiter_name(r.limiter), occ_limiter_name(c->limiter));
    }
    /* Occupancy in percent, and the granularities behind it. */
    CHECK(occ_calculate(&H100, 96, 18, 0, 0).occupancy == 100.0 * 63 / 64, "96 threads: 63 of 64 warps");
    CHECK(occ_calculate(&H100, 256, 47, 0, 0).regs_per_warp == 1536, "47 registers round up to 48 per thread");
    CHECK(occ_calculate(&H100, 32, 18, 0, 100).smem_per_block == 1152, "100 B + 1 KB reserved -> 1152 B");
    /* Static shared memory counts like dynamic. */
    CHECK(occ_calculate(&H100, 256, 18, 16384, 16384).blocks_per_sm == 6, "static + dynamic shared memory");
    /* The seed document's theoretical occupancy column (K40): 32 threads 25%, 64 50%, >= 128 100%. */
    CHECK(occ_calculate(&K40, 32, 10, 0, 0).occupancy == 25.0, "K40 32 threads: %g", occ_calculate(&K40, 32, 10, 0, 0).occupancy);
    CHECK(occ_calculate(&K40, 64, 10, 0, 0).occupancy == 50.0, "K40 64 threads");
    for (int t = 128; t <= 1024; t *= 2) CHECK(occ_calculate(&K40, t, 10, 0, 0).occupancy == 100.0, "K40 %d threads", t);
}

static void test_scenarios(void)
{
    /* With 16 SMs (the seed's assumption for the K40) the rule gives the seed's S2 column. */
    static const unsigned seed_s2[] = {32, 32, 32, 32, 32, 64, 128, 256, 512, 1024, 1024, 1024};
    for (int s = 0; s < 12; s++) {
        unsigned size = 32u << s;
        CHECK(seed_s2_threads(size, 16) == seed_s2[s], "S2 at %u on 16 SMs: %u, the seed has %u", size,
              seed_s2_threads(size, 16), seed_s2[s]);
        CHECK(seed_s1_threads(size) == (size < 1024 ? size : 1024), "S1 at %u", size);
    }
    /* 132 SMs (H100): 32-thread blocks up to 4096 elements, 128 blocks from 8192, 1024 from 131072. */
    CHECK(seed_s2_threads(4096, 132) == 32, "H100 S2 4096");
    CHECK(seed_s2_threads(8192, 132) == 64, "H100 S2 8192");
    CHECK(seed_s2_threads(65536, 132) == 512, "H100 S2 65536");
    CHECK(seed_s2_threads(131072, 132) == 1024, "H100 S2 131072");
}

static void test_residency(void)
{
    /* 4 SMs; SM 0 holds two warps, SM 1 one, SM 2 two with a gap between them, SM 3 none. */
    const unsigned long long w[][3] = {
        {1000, 1100, (0ull << 32) | 0}, {1000, 1050, (0ull << 32) | 1}, {1050, 1100, (1ull << 32) | 0},
        {1000, 1010, (2ull << 32) | 0}, {1020, 1030, (2ull << 32) | 4},
    };
    gl_warp_rec r[5];
    CHECK(gl_unpack_warp_records(&w[0][0], 5, r, 4, "test") == 0, "unpack");
    gl_residency g = gl_residency_of(r, 5, 4, 64);
    CHECK(g.span_us == 0.1, "span %g us", g.span_us);
    CHECK(g.sms_used == 3, "SMs used %d", g.sms_used);
    /* busy: SM0 100, SM1 50, SM2 20 (the gap not counted), SM3 0 -> 170 / 400 */
    CHECK(fabs(g.sm_efficiency - 42.5) < 1e-9, "SM efficiency %g", g.sm_efficiency);
    /* sub-partitions (slot % 4): SM0/0 100, SM0/1 50, SM1/0 50, SM2/0 10 + 10 -> 220 / 1600 */
    CHECK(fabs(g.smsp_efficiency - 13.75) < 1e-9, "SMSP efficiency %g", g.smsp_efficiency);
    /* warp time 100 + 50 + 50 + 10 + 10 = 220 over 170 busy: 1.294 warps of 64 */
    CHECK(fabs(g.achieved_occupancy - 100.0 * 220 / 170 / 64) < 1e-9, "achieved %g", g.achieved_occupancy);
    /* Placement: 2 blocks per SM, blocks of 2 warps. SM 0: A [10..30], B [12..20], C first issues
     * at 26 but was placed when B exited (20), D at 35 placed when A exited (30); SM 1: E alone. */
    gl_warp_rec b[10] = {{10, 20, 0, 0}, {14, 30, 0, 1}, /* A */ {12, 20, 0, 2}, {13, 18, 0, 3}, /* B */
                         {26, 40, 0, 0}, {27, 41, 0, 1}, /* C */ {35, 50, 0, 2}, {36, 52, 0, 3}, /* D */
                         {11, 60, 1, 0}, {15, 61, 1, 1} /* E */};
    gl_warps_start_at_placement(b, 10, 2, 2);
    CHECK(b[0].start == 10 && b[1].start == 10, "A placed when SM 0 started: %llu", (unsigned long long)b[1].start);
    CHECK(b[2].start == 10 && b[3].start == 10, "B is in the first wave: %llu", (unsigned long long)b[2].start);
    CHECK(b[4].start == 20 && b[5].start == 20, "C placed when B exited: %llu", (unsigned long long)b[4].start);
    CHECK(b[6].start == 30 && b[7].start == 30, "D placed when A exited: %llu", (unsigned long long)b[6].start);
    CHECK(b[8].start == 11 && b[9].start == 11, "E: its own first instruction");
    CHECK(b[1].end == 30 && b[7].end == 52, "ends unchanged");
    /* A record the kernel never wrote (poison) or from an SM the GPU does not have is refused. */
    unsigned long long bad[2][3] = {{1, 2, 0}, {~0ull, ~0ull, ~0ull}};
    CHECK(gl_unpack_warp_records(&bad[0][0], 2, r, 4, "test (expected message)") == -1, "poison refused");
    unsigned long long far[1][3] = {{1, 2, 9ull << 32}};
    CHECK(gl_unpack_warp_records(&far[0][0], 1, r, 4, "test (expected message)") == -1, "SM 9 of 4 refused");
    /* A green context of 2 SMs on a GPU of 8: hardware ids 5 and 2 become 1 and 0; a third SM is refused. */
    gl_warp_rec g2[3] = {{1, 2, 5, 0}, {1, 2, 2, 0}, {1, 2, 5, 1}};
    CHECK(gl_renumber_sms(g2, 3, 8, 2, "test") == 2, "2 SMs used");
    CHECK(g2[0].sm == 1 && g2[1].sm == 0 && g2[2].sm == 1, "renumbered %u %u", g2[0].sm, g2[1].sm);
    gl_warp_rec g3[3] = {{1, 2, 7, 0}, {1, 2, 2, 0}, {1, 2, 0, 1}};
    CHECK(gl_renumber_sms(g3, 3, 8, 2, "test (expected message)") == -1, "3 SMs on a 2-SM context refused");
}

static void test_references(void)
{
    CHECK(ref_seed(3.0f, 2.0f, 0) == 5.0f && ref_seed(3.0f, 2.0f, 32) == 1.0f, "seed add, sub");
    CHECK(ref_seed(3.0f, 2.0f, 64) == 6.0f && ref_seed(3.0f, 2.0f, 96 + 31) == 1.5f, "seed mul, div");
    CHECK(ref_seed(3.0f, 2.0f, 128) == 5.0f, "warp 4 adds again");
    CHECK(ref_stream(1.5f) == 4.0f, "stream 2x + 1");
    CHECK(ref_fma(0.75f, 0) == 0.75f, "no iterations");
    CHECK(ref_fma(1.0f, 1) == fmaf(1.0f, FMA_A, FMA_B), "one FMA");
    float x = ref_fma(0.5f, 4096);
    CHECK(x > 0.0f && x < 1.5f, "the chain stays bounded: %g", x);
    CHECK(ref_regs(0.5f, 7, 1) == ref_fma(0.5f, 7), "one accumulator = the plain chain");
    CHECK(ref_regs(0.5f, 7, 2) == ref_fma(0.5f, 7) + ref_fma(1.5f, 7), "two accumulators");
}

int main(void)
{
    test_calculator();
    test_scenarios();
    test_residency();
    test_references();
    return check_report("test_lab03");
}
