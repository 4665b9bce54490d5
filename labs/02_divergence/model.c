/* model.c - Lab 02 on the CPU: the reference outputs (the same single-precision operations as
 * the kernels, in the same order, so the GPU must match bit for bit) and what the counting twin
 * must find (units of work and lanes per unit, from the lane-to-path rule of each kernel). */
#include <math.h>
#include "divergence.h"

float ref_seed(seed_kind k, float a, float b, uint32_t tid)
{
    uint32_t op = k == SEED_BY_WARP ? (tid / 32) % 4 : tid % 4;
    switch (op) {
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    default: return a / b;
    }
}

/* The constants of path p (kernels.cu PATH_MUL/PATH_ADD): exact in single precision. */
float path_mul(uint32_t path) { return 1.0f - (float)(path + 1) * 0x1p-13f; }
float path_add(uint32_t path) { return (float)path * 0.03125f - 0.5f; }

uint32_t path_of(paths_kind k, uint32_t tid, uint32_t paths)
{
    return k == PATHS_BY_LANES ? ((tid & 31u) * paths) >> 5 : (tid >> 5) % paths;
}

float ref_path(uint32_t path, float x)
{
    float m = path_mul(path), a = path_add(path);
    for (int i = 0; i < PATH_ITERS; i++) x = fmaf(x, m, a);
    return x;
}

int data_expensive(uint32_t key, uint32_t p64) { return (key >> 26) < p64; }

float ref_data(uint32_t key, uint32_t p64)
{
    float x = (float)(key >> 8) * 0x1p-24f;
    if (!data_expensive(key, p64)) return fmaf(x, 0.5f, 0.25f);
    for (int i = 0; i < DATA_ITERS; i++) x = fmaf(x, 1.00390625f, -0.0078125f);
    return x;
}

float ref_pred(pred_kind k, float x, uint32_t tid)
{
    uint32_t by = (k == PRED_UNIFORM || k == BRANCH_UNIFORM) ? tid >> 5 : tid;
    for (uint32_t i = 0; i < PRED_ITERS; i++)
        x = ((by + i) & 1u) ? fmaf(x, 1.0009765625f, 0.25f) : fmaf(x, -1.0f, 0.5f);
    return x;
}

/* ---- the counting twin's expected totals; n is a multiple of 32 in every experiment ---- */

double model_efficiency(const lane_model *m)
{
    return m->warp_units > 0 ? 100.0 * m->lane_units / (32.0 * m->warp_units) : NAN;
}

/* Per warp and iteration: one body with 32 lanes (by warp), or four bodies of 8 lanes (by lane). */
lane_model model_seed(seed_kind k, uint32_t n)
{
    lane_model m = {0, 0, 0, 0};
    double warps = n / 32.0;
    m.lane_units = (double)n * SEED_ITERS;
    m.warp_units = warps * SEED_ITERS * (k == SEED_BY_WARP ? 1 : 4);
    return m;
}

/* Each lane runs PATH_ITERS units; a warp runs them once per distinct path among its lanes. */
lane_model model_paths(paths_kind k, uint32_t n, uint32_t paths)
{
    lane_model m = {0, 0, 0, 0};
    double warps = n / 32.0;
    m.lane_units = (double)n * PATH_ITERS;
    m.warp_units = warps * PATH_ITERS * (k == PATHS_BY_LANES ? paths : 1);
    return m;
}

/* Warp by warp from the actual keys: m expensive lanes cost the warp DATA_ITERS units if m > 0,
 * and one cheap unit if any lane is cheap; the branch diverges when 0 < m < 32. */
lane_model model_data(const uint32_t *keys, uint32_t n, uint32_t p64)
{
    lane_model m = {0, 0, 0, 0};
    for (uint32_t w = 0; w < n / 32; w++) {
        uint32_t hot = 0;
        for (uint32_t l = 0; l < 32; l++) hot += (uint32_t)data_expensive(keys[w * 32 + l], p64);
        m.lane_units += (double)hot * DATA_ITERS + (32 - hot);
        m.warp_units += (hot > 0 ? DATA_ITERS : 0) + (hot < 32 ? 1 : 0);
        m.branches += 1;
        m.divergent += hot > 0 && hot < 32;
    }
    return m;
}

/* One unit per lane and iteration. Predicated and uniform code: one unit per warp and iteration;
 * the divergent branch: two (each side with 16 lanes). */
lane_model model_pred(pred_kind k, uint32_t n)
{
    lane_model m = {0, 0, 0, 0};
    m.lane_units = (double)n * PRED_ITERS;
    m.warp_units = n / 32.0 * PRED_ITERS * (k == BRANCH_DIVERGENT ? 2 : 1);
    return m;
}
