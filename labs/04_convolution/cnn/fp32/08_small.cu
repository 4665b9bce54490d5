/* 08_small.cu - Lab 04, part 2: ours8_small, the FP32 direct ladder's rung for layers with far
 * fewer output tiles than SMs (T3A, T4A, T5A, E1; after 07_fast.cu's ours7_fast).
 *
 * Lesson: a block owns 32 or 64 outputs and its threads split the reduction K between them
 * (thread t takes k = t, t + threads, ...: weight loads coalesced along K); one warp
 * reduce-scatter (31 or 62 shuffles) and a shared-memory sum finish each output. One kernel: no
 * workspace, no memset, no atomics, no second pass.
 * Limits: x, w and y each under 2^31 elements (int offsets, cnn_ladder_fits). */
#include "cnn.h"
#include "fast_rungs.h"
#include "gl_check.h"

/* One step of the warp reduce-scatter: v[0..N) of every lane becomes v[0..N/2), the half this
 * lane keeps (the upper one when lane & o) plus the partner's (lane ^ o) copy of the same half. */
template <int N> static __device__ __forceinline__ void halve(float *v, int lane, int o)
{
    const bool upper = lane & o;
#pragma unroll
    for (int i = 0; i < N / 2; i++) {
        const float keep = upper ? v[i + N / 2] : v[i], give = upper ? v[i] : v[i + N / 2];
        v[i] = keep + __shfl_xor_sync(0xffffffffu, give, o);
    }
}

/* Lesson (ours8): a block owns TM x TP outputs (rows m0.., pixels p0..) and its threads share the
 * reduction: thread t takes k = t, t + threads, ... (a warp's weight loads: 32 consecutive floats
 * of a row; its x loads: one tap of 32 (c, r, s) per pixel, from L1/L2, x is small here) and keeps
 * all TM TP partial sums. Five reduce-scatter steps leave lane l with the warp's sums of outputs
 * l V / 32 ..; the warps' sums meet in shared memory and V threads write y. No workspace. */
template <int TM, int TP> static __global__ void __launch_bounds__(512) small_direct(const float *x, const float *w,
                                                                                      float *y, cnn_shape d)
{
    const int V = TM * TP; /* 32 or 64 */
    __shared__ int pix_base[TP], pix_oy[TP], pix_ox[TP];
    __shared__ float part[16][V]; /* a partial sum per warp: 512 threads at most */
    const int K = d.C * d.R * d.S, hw = d.H * d.W, P = d.N * hw, rs = d.R * d.S, t = threadIdx.x, lane = t % 32;
    const int m0 = blockIdx.y * TM, p0 = blockIdx.x * TP;
    if (t < TP) {
        const int p = p0 + t, n = p / hw, q = p - n * hw;
        pix_base[t] = p < P ? n * d.C * hw + q : 0;
        pix_oy[t] = p < P ? q / d.W : CNN_NO_TAP;
        pix_ox[t] = q % d.W;
    }
    __syncthreads();
    float v[V] = {};
    for (int k = t; k < K; k += blockDim.x) {
        const int c = k / rs, r = k - c * rs, fy = r / d.S, dy = fy - d.pad_h, dx = r - fy * d.S - d.pad_w;
        const int off = c * hw + dy * d.W + dx;
        float wv[TM], xv[TP];
#pragma unroll
        for (int i = 0; i < TM; i++) wv[i] = m0 + i < d.M ? __ldg(w + (m0 + i) * K + k) : 0.0f;
#pragma unroll
        for (int j = 0; j < TP; j++) {
            const bool ok = (unsigned)(pix_oy[j] + dy) < (unsigned)d.H && (unsigned)(pix_ox[j] + dx) < (unsigned)d.W;
            xv[j] = ok ? __ldg(x + pix_base[j] + off) : 0.0f;
        }
#pragma unroll
        for (int i = 0; i < TM; i++)
#pragma unroll
            for (int j = 0; j < TP; j++) v[i * TP + j] = fmaf(wv[i], xv[j], v[i * TP + j]);
    }
    halve<V>(v, lane, 16);
    halve<V / 2>(v, lane, 8);
    halve<V / 4>(v, lane, 4);
    halve<V / 8>(v, lane, 2);
    halve<V / 16>(v, lane, 1);
#pragma unroll
    for (int i = 0; i < V / 32; i++) part[t / 32][lane * (V / 32) + i] = v[i];
    __syncthreads();
    for (int o = t; o < V; o += blockDim.x) {
        const int m = m0 + o / TP, p = p0 + o % TP;
        if (m >= d.M || p >= P) continue;
        float sum = 0.0f;
        for (int g = 0; g < (int)blockDim.x / 32; g++) sum += part[g][o];
        const int n = p / hw;
        y[(n * d.M + m) * hw + (p - n * hw)] = sum;
    }
}

/* Output tile (TM x TP) and threads per block: the autotuner's choices. The last three are for
 * T3A (M 256, 49 pixels, K 832; 852 KB of weights): 16x4_t256 has 208 blocks of 8 warps (2 per
 * SM by registers: one wave) and 3.25 k per thread (16x4_t128: 6.5); 8x4_t512 416 blocks of 16
 * warps and 1.6 k per thread; 8x8_t256 224 blocks, each weight read by 7 pixel tiles, not 13. */
static const struct {
    const char *name;
    int tm, tp, threads;
} SMALL[] = {{"8x4_t256", 8, 4, 256},  {"8x4_t128", 8, 4, 128},  {"4x8_t128", 4, 8, 128}, {"8x8_t128", 8, 8, 128},
             {"8x8_t64", 8, 8, 64},    {"16x4_t128", 16, 4, 128}, {"4x16_t128", 4, 16, 128}, {"16x4_t64", 16, 4, 64},
             {"16x4_t256", 16, 4, 256}, {"8x4_t512", 8, 4, 512}, {"8x8_t256", 8, 8, 256}};
#define N_SMALL (int)(sizeof SMALL / sizeof SMALL[0])
static_assert(N_SMALL == CNN_OURS8_TILES, "fast_rungs.h's CNN_OURS8_TILES counts the rows of SMALL");

extern "C" const char *cnn_tile_name_ours8(int tile) { return tile >= 0 && tile < N_SMALL ? SMALL[tile].name : "?"; }

/* The rule: layers of at most 2^18 outputs (M N H W). The kernel is right for any shape; above
 * that the GEMM rungs' tiles fill the GPU and reuse each load 8 times, this path at most 16. */
extern "C" int cnn_supports_ours8(const cnn_shape *s) { return (double)s->M * s->N * s->H * s->W <= 262144.0; }

template <int TM, int TP> static void small_launch(const cnn_launch_args *a, int threads, cudaStream_t st)
{
    const cnn_shape *s = &a->s;
    const dim3 grid((s->N * s->H * s->W + TP - 1) / TP, (s->M + TM - 1) / TM);
    small_direct<TM, TP><<<grid, threads, 0, st>>>(a->x, a->w, a->y, *s);
    GL_CHECK_LAUNCH();
}

extern "C" cnn_status cnn_launch_ours8(const cnn_launch_args *a, cudaStream_t st)
{
    const int tile = a->tile;
    if (!cnn_ladder_fits(&a->s) || tile < 0 || tile >= N_SMALL) return CNN_ERR_SHAPE;
    const int tm = SMALL[tile].tm, tp = SMALL[tile].tp, th = SMALL[tile].threads;
    if (tm == 8 && tp == 4) small_launch<8, 4>(a, th, st);
    else if (tm == 4 && tp == 8) small_launch<4, 8>(a, th, st);
    else if (tm == 8) small_launch<8, 8>(a, th, st);
    else if (tm == 16) small_launch<16, 4>(a, th, st);
    else small_launch<4, 16>(a, th, st);
    return CNN_OK;
}
