/* model.c - Lab 03: the CPU references and the occupancy calculator.
 *
 * The calculator applies the hardware's rules for how many blocks of one kernel fit on an SM at
 * once, each resource on its own, and takes the smallest. It is the lab's own C code; main.c
 * checks it against cudaOccupancyMaxActiveBlocksPerMultiprocessor on every launch it makes, and
 * tests/test_lab03.c against hand-worked cases. */
#include <limits.h>
#include <math.h>
#include "occupancy.h"

/* ---------------------------------------------------------------- references */

float ref_seed(float a, float b, uint32_t tid)
{
    switch ((tid / 32) % 4) { /* the op follows the warp: no divergence */
    case 0: return a + b;
    case 1: return a - b;
    case 2: return a * b;
    default: return a / b;
    }
}

float ref_stream(float x) { return fmaf(x, 2.0f, 1.0f); }

float ref_fma(float x, uint32_t iters)
{
    for (uint32_t i = 0; i < iters; i++) x = fmaf(x, FMA_A, FMA_B);
    return x;
}

float ref_regs(float x, uint32_t iters, int accumulators)
{
    float sum = 0.0f;
    for (int j = 0; j < accumulators; j++) sum += ref_fma(x + (float)j, iters);
    return sum;
}

/* ---------------------------------------------------------------- the seed's launch scenarios */

unsigned seed_s1_threads(unsigned size) { return size < 1024 ? size : 1024; }

/* S2: the smallest power-of-two block (>= 32) that needs no more blocks than the GPU has SMs,
 * at most 1024 (and never more threads than elements). With 16 SMs this is the seed's table. */
unsigned seed_s2_threads(unsigned size, int sms)
{
    unsigned t = 32;
    while (t < 1024 && size / t > (unsigned)sms) t *= 2;
    return t < size ? t : size;
}

/* ---------------------------------------------------------------- occupancy calculator */

/* Registers are given to a warp in units of 256 (8 per thread) on every GPU CUDA 12-13 supports. */
int occ_reg_granularity(const occ_device *d)
{
    (void)d;
    return 256;
}

/* Shared memory is given to a block in units of 128 bytes since Ampere (256 on Volta/Turing). */
int occ_smem_granularity(const occ_device *d) { return d->cc_major >= 8 ? 128 : 256; }

/* An SM is four sub-partitions (each with its own warp scheduler and a quarter of the registers)
 * since Volta. */
int occ_subpartitions(const occ_device *d)
{
    (void)d;
    return 4;
}

static int round_up(int x, int unit) { return (x + unit - 1) / unit * unit; }
static int min_int(int a, int b) { return a < b ? a : b; }

const char *occ_limiter_name(occ_limiter l)
{
    static const char *const names[] = {"warps", "blocks", "registers", "shared memory", "does not fit"};
    return names[l];
}

occ_result occ_calculate(const occ_device *d, int threads, int registers, size_t static_smem, size_t dyn_smem)
{
    occ_result r = {0};
    int max_warps = d->max_threads_per_sm / d->warp_size;
    int warps_per_block = (threads + d->warp_size - 1) / d->warp_size;
    int parts = occ_subpartitions(d);

    /* 1. Warp slots: whole blocks of warps_per_block out of max_warps. */
    r.by_warps = threads > d->max_threads_per_block || threads < 1 ? 0 : max_warps / warps_per_block;

    /* 2. Block slots. */
    r.by_blocks = d->max_blocks_per_sm;

    /* 3. Registers: per warp, rounded up to the allocation unit; each sub-partition holds a
     * quarter of the file, so warps fit per sub-partition. A block must also fit the per-block
     * limit with its warps rounded up to whole sets of four. */
    r.regs_per_warp = round_up(registers * d->warp_size, occ_reg_granularity(d));
    if (registers > 255 || r.regs_per_warp * round_up(warps_per_block, parts) > d->regs_per_block)
        r.by_regs = 0;
    else if (r.regs_per_warp == 0)
        r.by_regs = INT_MAX;
    else
        r.by_regs = (d->regs_per_sm / parts / r.regs_per_warp) * parts / warps_per_block;

    /* 4. Shared memory: static + dynamic + the driver's per-block reservation, rounded up to the
     * allocation unit, out of the SM's shared memory (the largest carveout). */
    long long need = (long long)static_smem + (long long)dyn_smem + d->smem_reserved_per_block;
    r.smem_per_block = (int)((need + occ_smem_granularity(d) - 1) / occ_smem_granularity(d) * occ_smem_granularity(d));
    if (need > (long long)d->smem_per_block_optin + d->smem_reserved_per_block)
        r.by_smem = 0;
    else if (r.smem_per_block == 0) /* nothing to allocate (GPUs without a reservation) */
        r.by_smem = INT_MAX;
    else
        r.by_smem = d->smem_per_sm / r.smem_per_block;

    r.blocks_per_sm = min_int(min_int(r.by_warps, r.by_blocks), min_int(r.by_regs, r.by_smem));
    if (r.blocks_per_sm == 0) r.limiter = LIMIT_NONE_FITS;
    else if (r.blocks_per_sm == r.by_warps) r.limiter = LIMIT_WARPS;
    else if (r.blocks_per_sm == r.by_regs) r.limiter = LIMIT_REGISTERS;
    else if (r.blocks_per_sm == r.by_smem) r.limiter = LIMIT_SMEM;
    else r.limiter = LIMIT_BLOCKS;
    r.occupancy = 100.0 * r.blocks_per_sm * warps_per_block / max_warps;
    return r;
}
