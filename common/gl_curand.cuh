/* gl_curand.cuh - cuRAND XORWOW states kept in global memory, one per thread (CUDA only).
 *
 * States are initialised by their own kernel, before and outside any timed kernel (as in the seed),
 * and stored as six 32-bit words in structure-of-arrays order, so that a warp loading its states
 * makes six coalesced requests (4 sectors each) that are easy to count and to explain.
 * State i is curand_init(gl_stream_seed(seed, stream, i >> share_shift), 0, 0): with share_shift = 5
 * all 32 lanes of a warp hold the same state and draw the same numbers.  Seeding through splitmix64
 * instead of curand_init's subsequence argument keeps initialisation cheap and lets the CPU replay
 * every draw with gl_xorwow_init/gl_xorwow_next (gl_rng.h). */
#ifndef GL_CURAND_CUH
#define GL_CURAND_CUH

#include <curand_kernel.h>
#include "gl_check.h"
#include "gl_metrics.cuh"
#include "gl_rng.h"

static __global__ void gl_xorwow_init_kernel(gl_xorwow_states st, unsigned long long seed,
                                             unsigned int stream, unsigned int share_shift)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= st.n) return;
    curandStateXORWOW_t s;
    curand_init(gl_stream_seed(seed, stream, i >> share_shift), 0, 0, &s);
    st.words[i] = s.d;
    for (int k = 0; k < 5; k++) st.words[(size_t)(k + 1) * st.stride + i] = s.v[k];
}

static inline gl_xorwow_states gl_xorwow_states_create(size_t n, unsigned long long seed,
                                                       unsigned int stream, unsigned int share_shift)
{
    gl_xorwow_states st;
    st.n = n;
    st.stride = (n + 31) / 32 * 32;
    st.words = (unsigned int *)gl_device_alloc(GL_XORWOW_WORDS * st.stride * sizeof(unsigned int),
                                               "cuRAND states");
    unsigned int blocks = (unsigned int)((n + 255) / 256);
    gl_xorwow_init_kernel<<<blocks, 256>>>(st, seed, stream, share_shift);
    GL_CHECK_LAUNCH();
    return st;
}

static inline void gl_xorwow_states_free(gl_xorwow_states *st)
{
    GL_CHECK(cudaFree(st->words));
    st->words = NULL;
}

/* Load state i: exactly six coalesced loads, each counted when c is not NULL. The loads are
 * volatile so the compiler cannot drop words a short draw sequence never reads (one draw needs
 * only d, v[0] and v[4]), which would make the counted requests differ from the real ones. */
static __device__ __forceinline__ curandStateXORWOW_t gl_xorwow_load(gl_xorwow_states st, size_t i,
                                                                     gl_load_counts *c)
{
    curandStateXORWOW_t s;
    const volatile unsigned int *w = st.words + i;
    gl_count_load(c, (const void *)w);
    s.d = w[0];
    for (int k = 0; k < 5; k++) {
        gl_count_load(c, (const void *)(w + (size_t)(k + 1) * st.stride));
        s.v[k] = w[(size_t)(k + 1) * st.stride];
    }
    s.boxmuller_flag = 0;
    s.boxmuller_flag_double = 0;
    s.boxmuller_extra = 0.0f;
    s.boxmuller_extra_double = 0.0;
    return s;
}

#endif
