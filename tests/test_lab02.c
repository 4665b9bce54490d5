/* test_lab02.c - CPU tests of Lab 02: the references and the efficiency model. */
#include <math.h>
#include <stdlib.h>
#include "check.h"
#include "divergence.h"

static void test_references(void)
{
    /* The seed's pair: the operation by warp or by lane. */
    CHECK(ref_seed(SEED_BY_LANE, 3.0f, 2.0f, 0) == 5.0f, "lane 0 adds");
    CHECK(ref_seed(SEED_BY_LANE, 3.0f, 2.0f, 1) == 1.0f, "lane 1 subtracts");
    CHECK(ref_seed(SEED_BY_LANE, 3.0f, 2.0f, 2) == 6.0f, "lane 2 multiplies");
    CHECK(ref_seed(SEED_BY_LANE, 3.0f, 2.0f, 3) == 1.5f, "lane 3 divides");
    CHECK(ref_seed(SEED_BY_WARP, 3.0f, 2.0f, 31) == 5.0f, "warp 0 adds");
    CHECK(ref_seed(SEED_BY_WARP, 3.0f, 2.0f, 32 * 3 + 5) == 1.5f, "warp 3 divides");
    CHECK(ref_seed(SEED_BY_WARP, 3.0f, 2.0f, 32 * 5) == 1.0f, "warp 5 subtracts");
    /* Paths: k groups of 32/k consecutive lanes, or one path per warp. */
    for (uint32_t k = 1; k <= 32; k *= 2) {
        uint32_t seen = 0;
        for (uint32_t lane = 0; lane < 32; lane++) {
            uint32_t p = path_of(PATHS_BY_LANES, 64 + lane, k);
            CHECK(p == lane / (32 / k), "k=%u lane %u -> path %u", k, lane, p);
            seen |= 1u << p;
            CHECK(path_of(PATHS_BY_WARPS, 32 * 7 + lane, k) == 7 % k, "by warps k=%u", k);
        }
        CHECK(seen == (k == 32 ? 0xffffffffu : (1u << k) - 1), "k=%u: every path used", k);
    }
    /* Every path has its own constants, and the bodies really differ. */
    for (uint32_t p = 1; p < MAX_PATHS; p++)
        CHECK(ref_path(p, 0.5f) != ref_path(p - 1, 0.5f), "paths %u and %u agree", p - 1, p);
    CHECK(path_mul(0) == 1.0f - 0x1p-13f && path_add(0) == -0.5f, "path 0 constants");
    /* The outputs keep depending on the input (no body converges to a constant). */
    for (uint32_t p = 0; p < MAX_PATHS; p++)
        CHECK(ref_path(p, 0.5f) != ref_path(p, 0.25f), "path %u forgets its input", p);
    CHECK(ref_data(1u << 31, 64) != ref_data(1u << 30, 64), "expensive path forgets its input");
    CHECK(ref_pred(PRED_DIVERGENT, 0.5f, 0) != ref_pred(PRED_DIVERGENT, 0.25f, 0), "predication forgets its input");
    CHECK(ref_pred(PRED_UNIFORM, 0.5f, 0) != ref_pred(PRED_UNIFORM, 0.25f, 0), "predication forgets its input");
    /* Data: the expensive path exactly where key >> 26 < p64. */
    CHECK(!data_expensive(0u, 0), "p = 0: never");
    CHECK(data_expensive(0xffffffffu, 64), "p = 1: always");
    CHECK(data_expensive((31u << 26) | 0x3ffffffu, 32) && !data_expensive(32u << 26, 32), "p = 1/2 boundary");
    CHECK(ref_data(0, 0) == 0.25f && ref_data(1u << 31, 0) == 0.5f, "cheap path of key 0: %g", ref_data(0, 0));
    CHECK(ref_data(0, 1) != ref_data(0, 0), "expensive path differs");
    /* Predication: by warp, every lane of a warp computes the same from the same input. */
    CHECK(ref_pred(PRED_UNIFORM, 0.3f, 0) == ref_pred(PRED_UNIFORM, 0.3f, 31), "uniform in a warp");
    CHECK(ref_pred(PRED_DIVERGENT, 0.3f, 0) != ref_pred(PRED_DIVERGENT, 0.3f, 1), "divergent by lane");
    CHECK(ref_pred(PRED_DIVERGENT, 0.3f, 5) == ref_pred(BRANCH_DIVERGENT, 0.3f, 5), "same maths");
    CHECK(ref_pred(PRED_UNIFORM, 0.3f, 40) == ref_pred(BRANCH_UNIFORM, 0.3f, 40), "same maths");
}

static void test_model(void)
{
    lane_model m = model_seed(SEED_BY_WARP, 4194304);
    CHECK(model_efficiency(&m) == 100.0, "seed by warp: %g", model_efficiency(&m));
    m = model_seed(SEED_BY_LANE, 4194304);
    CHECK(model_efficiency(&m) == 25.0, "seed by lane: %g", model_efficiency(&m));
    for (uint32_t k = 1; k <= 32; k *= 2) {
        m = model_paths(PATHS_BY_LANES, 1 << 20, k);
        CHECK(fabs(model_efficiency(&m) - 100.0 / k) < 1e-12, "paths lanes k=%u: %g", k, model_efficiency(&m));
        m = model_paths(PATHS_BY_WARPS, 1 << 20, k);
        CHECK(model_efficiency(&m) == 100.0, "paths warps k=%u", k);
    }
    m = model_pred(PRED_DIVERGENT, 1024);
    CHECK(model_efficiency(&m) == 100.0, "predicated: all lanes active");
    m = model_pred(BRANCH_DIVERGENT, 1024);
    CHECK(model_efficiency(&m) == 50.0, "divergent branch: half");

    /* Data, by hand: warp 0 all cheap, warp 1 one expensive lane, warp 2 all expensive. */
    uint32_t keys[96];
    for (int i = 0; i < 96; i++) keys[i] = i < 32 ? 0xffffffffu : i == 32 ? 0u : i < 64 ? 0xffffffffu : 5u;
    m = model_data(keys, 96, 1);
    CHECK(m.branches == 3 && m.divergent == 1, "branches %g divergent %g", m.branches, m.divergent);
    double lanes = 32 + (DATA_ITERS + 31) + 32.0 * DATA_ITERS;
    double warps = 1 + (DATA_ITERS + 1) + DATA_ITERS;
    CHECK(m.lane_units == lanes && m.warp_units == warps, "units %g %g", m.lane_units, m.warp_units);
    /* Random keys at p = 1/2: nearly every warp diverges; sorted: at most one warp does. */
    enum { N = 1 << 16 };
    static uint32_t rnd[N], sorted[N];
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        rnd[i] = (uint32_t)(x >> 32);
    }
    uint32_t hot = 0;
    for (int i = 0; i < N; i++) hot += data_expensive(rnd[i], 32);
    for (int i = 0; i < N; i++) sorted[i] = i < (int)hot ? 0u : 0xffffffffu; /* partitioned */
    lane_model u = model_data(rnd, N, 32), s = model_data(sorted, N, 32);
    CHECK(u.divergent / u.branches > 0.999, "unsorted divergent fraction %g", u.divergent / u.branches);
    CHECK(s.divergent <= 1, "sorted: %g divergent warps", s.divergent);
    CHECK(model_efficiency(&s) > 99.0, "sorted efficiency %g", model_efficiency(&s));
    CHECK(fabs(model_efficiency(&u) - 50.0) < 1.0, "unsorted efficiency %g, expected about 50", model_efficiency(&u));
    /* The time model behind the lesson: warp units, unsorted / sorted, about 2 at p = 1/2. */
    CHECK(fabs(u.warp_units / s.warp_units - 2.0) < 0.05, "warp-unit ratio %g", u.warp_units / s.warp_units);
}

int main(void)
{
    test_references();
    test_model();
    return check_report("test_lab02");
}
