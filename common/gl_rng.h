/* gl_rng.h - deterministic random numbers for data and for reproducible GPU index streams.
 * Header-only C11; the GL_HD functions are also callable from CUDA device code.
 *
 * - splitmix64: seeds everything (one 64-bit seed, printed by every lab, set with --seed), and
 *   fills input arrays: element i of stream s is a function of (seed, s, i) alone, so every core
 *   fills its own part and the bytes do not depend on the thread count (gl_fill_floats).
 * - xoshiro256**: the host generator for sequential draws (shapes of the test pictures).
 * - gl_xorwow_*: a C model of cuRAND's XORWOW generator as seeded by curand_init(seed, 0, 0),
 *   so CPU references can replay the exact index sequence a kernel drew with curand(). */
#ifndef GL_RNG_H
#define GL_RNG_H

#include <stddef.h>
#include <stdint.h>
#include "gl_check.h"
#include "gl_parallel.h"

/* splitmix64 output for counter z (Steele, Lea, Flood 2014). */
GL_HD static inline uint64_t gl_mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static inline uint64_t gl_splitmix64_next(uint64_t *state)
{
    uint64_t z = gl_mix64(*state);
    *state += 0x9e3779b97f4a7c15ULL;
    return z;
}

/* Independent 64-bit seed for element `id` of random stream `stream` of a run seeded with `seed`. */
GL_HD static inline uint64_t gl_stream_seed(uint64_t seed, uint32_t stream, uint64_t id)
{
    return gl_mix64(seed ^ gl_mix64(((uint64_t)stream << 48) ^ id));
}

/* Map a uniform 32-bit draw onto [0, n) by multiply-high; for n = 2^k it equals the seed's
 * r / (2^32 / n), and unlike that division it is in range for every n. */
GL_HD static inline uint32_t gl_range(uint32_t r, uint32_t n)
{
    return (uint32_t)(((uint64_t)r * n) >> 32);
}

/* ---- xoshiro256** (Blackman, Vigna 2018) ---- */
typedef struct { uint64_t s[4]; } gl_rng;

static inline uint64_t gl_rotl64(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t gl_rng_next(gl_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = gl_rotl64(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = gl_rotl64(s[3], 45);
    return result;
}

/* State from one 64-bit seed via splitmix64 (never all zero). */
static inline gl_rng gl_rng_seeded(uint64_t seed, uint32_t stream)
{
    gl_rng r;
    uint64_t sm = gl_stream_seed(seed, stream, 0);
    for (int i = 0; i < 4; i++) r.s[i] = gl_splitmix64_next(&sm);
    return r;
}

/* Uniform float in [-1, 1) from the top 24 bits of a 64-bit draw. */
static inline float gl_float_of_bits(uint64_t bits) { return (float)(bits >> 40) * (2.0f / 16777216.0f) - 1.0f; }

/* x[i] = a uniform float in [-1, 1) drawn from (seed, stream, i): on every core, the same bytes on any. */
static inline void gl_fill_floats(float *x, size_t n, uint64_t seed, uint32_t stream)
{
    GL_PARALLEL_FOR
    for (long long i = 0; i < (long long)n; i++) x[i] = gl_float_of_bits(gl_stream_seed(seed, stream, (uint64_t)i));
}

/* ---- cuRAND XORWOW model (Marsaglia's xorwow as implemented by curand_kernel.h) ---- */
typedef struct { uint32_t d, v[5]; } gl_xorwow;

/* Same state as curand_init(seed, 0, 0, &state): salt and scramble the seed, no skip-ahead. */
static inline gl_xorwow gl_xorwow_init(uint64_t seed)
{
    uint32_t s0 = (uint32_t)seed ^ 0xaad26b49u;
    uint32_t s1 = (uint32_t)(seed >> 32) ^ 0xf7dcefddu;
    uint32_t t0 = 1099087573u * s0;
    uint32_t t1 = 2591861531u * s1;
    gl_xorwow x;
    x.d = 6615241u + t1 + t0;
    x.v[0] = 123456789u + t0;
    x.v[1] = 362436069u ^ t0;
    x.v[2] = 521288629u + t1;
    x.v[3] = 88675123u ^ t1;
    x.v[4] = 5783321u + t0;
    return x;
}

/* Same value as curand(&state) on a curandStateXORWOW_t. */
static inline uint32_t gl_xorwow_next(gl_xorwow *x)
{
    uint32_t t = x->v[0] ^ (x->v[0] >> 2);
    x->v[0] = x->v[1];
    x->v[1] = x->v[2];
    x->v[2] = x->v[3];
    x->v[3] = x->v[4];
    x->v[4] = (x->v[4] ^ (x->v[4] << 4)) ^ (t ^ (t << 1));
    x->d += 362437u;
    return x->v[4] + x->d;
}

/* Device-resident XORWOW states (created and read by gl_curand.cuh): word k of state i is at
 * words[k * stride + i]; stride = n rounded up to a warp, so every word loads coalesced. */
#define GL_XORWOW_WORDS 6 /* d, v[0..4]: the part of curandStateXORWOW_t that curand() uses */

typedef struct {
    unsigned int *words;
    size_t n, stride;
} gl_xorwow_states;

#endif
