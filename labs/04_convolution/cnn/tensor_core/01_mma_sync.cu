/* 01_mma_sync.cu - Lab 04, part 2: the implicit GEMM on tensor cores (mma.sync, inline PTX, sm_80+).
 *
 * Lesson: the same product as ours, Y[M][N*H*W] = W[M][C*R*S] x im2col(X) (im2col never stored),
 * but each warp multiplies 16 x 8 x k tiles in one tensor-core instruction:
 *   tf32  mma.m16n8k8 with TF32 operands: x and w stay FP32 in memory and are rounded to TF32 (10
 *         fraction bits) to nearest in the kernel (cvt.rna.tf32.f32), FP32 accumulate, FP32 y.
 *   bf16  mma.m16n8k16 with BF16 operands: x and w stored as BF16 (converted once per configuration,
 *         outside the timed region: the row's prepare hook, cnn_bf16_prepare), FP32 accumulate, y
 *         rounded to BF16 (as cuDNN's BF16 peer writes it), then converted to float (timed).
 * Block tile 128 x 128 (8 warps of 64 x 32) where there are enough tiles for the GPU, else 64 x 64
 * (4 warps of 32 x 32). Double-buffered shared memory: the weight tile travels by cp.async (16-byte
 * copies, zero-filled outside the matrix), the im2col tile through registers (its elements are
 * scattered: no 16-byte copies), both issued before the current tile is multiplied. BF16 fragments
 * are read with ldmatrix (.trans for the k-major im2col tile); TF32 ones with 32-bit loads. The
 * reduction index k = (c, r, s) is decoded once per tile into a shared table (one thread per k),
 * two tiles ahead, so the inner loop does no divisions. Error bounds: cnn_bounds.c.
 * Compiled only for sm_80 and newer: on older GPUs (or a build without sm_80+ code) the rows are
 * absent (cnn_tc_available). */
#include <stdio.h>
#include <cuda_bf16.h>
#include "tensor_core.h"
#include "gl_check.h"

typedef __nv_bfloat16 bf16;

/* The device code exists for sm_80 and newer only (cp.async, ldmatrix, BF16/TF32 mma). */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define TC_BUILT 1
#else
#define TC_BUILT 0
#endif

template <typename T> struct tc_traits;
template <> struct tc_traits<float> { /* TF32: two k-steps of 8 per tile */
    enum { BK = 16, KSTEP = 8, APAD = 4, BPAD = 8 };
    typedef float out_t;
};
template <> struct tc_traits<bf16> { /* BF16: two k-steps of 16 per tile */
    enum { BK = 32, KSTEP = 16, APAD = 8, BPAD = 8 };
    typedef bf16 out_t;
};

typedef struct {
    int C, H, W, M, R, S, pad_h, pad_w, K, P; /* K = C R S, P = N H W */
} tc_dims;


#if TC_BUILT /* helpers of tc_conv (its body is empty on older GPUs) */
#include "mma_sync.cuh"

/* The warp's MT x NT tensor-core tiles for one k-step (ks) of the current shared tiles. */
template <typename T, int MT, int NT, int ALD, int BLD>
static __device__ __forceinline__ void mma_step(const T *As, const T *Bs, int ks, int wm0, int wn0, int lane,
                                                float (&acc)[MT][NT][4])
{
    if constexpr (sizeof(T) == 4) { /* TF32 m16n8k8: A row-major 16 x 8, B col-major 8 x 8 */
        const int g = lane >> 2, t = lane & 3;
        unsigned a[MT][4], b[NT][2];
#pragma unroll
        for (int i = 0; i < MT; i++) {
            const float *p = (const float *)As + (wm0 + i * 16 + g) * ALD + ks * 8 + t;
            a[i][0] = __float_as_uint(to_tf32(p[0]));
            a[i][1] = __float_as_uint(to_tf32(p[8 * ALD]));
            a[i][2] = __float_as_uint(to_tf32(p[4]));
            a[i][3] = __float_as_uint(to_tf32(p[8 * ALD + 4]));
        }
#pragma unroll
        for (int j = 0; j < NT; j++) { /* already rounded to TF32 when stored */
            const float *p = (const float *)Bs + (ks * 8 + t) * BLD + wn0 + j * 8 + g;
            b[j][0] = __float_as_uint(p[0]);
            b[j][1] = __float_as_uint(p[4 * BLD]);
        }
#pragma unroll
        for (int i = 0; i < MT; i++)
#pragma unroll
            for (int j = 0; j < NT; j++) mma_tf32(acc[i][j], a[i], b[j]);
    } else { /* BF16 m16n8k16, fragments by ldmatrix */
        mma_step_bf16<MT, NT, ALD, BLD>(As, Bs, ks, wm0, wn0, lane, acc);
    }
}

#endif

/* Lesson: the implicit GEMM on tensor cores; see the file comment. Block BM x BN, warps WM x WN. */
template <typename T, int BM, int BN, int WM, int WN, bool VEC>
static __global__ void __launch_bounds__(WM *WN * 32) tc_conv(const T *x, const T *w, typename tc_traits<T>::out_t *y,
                                                              tc_dims d)
{
#if TC_BUILT
    enum { THREADS = WM * WN * 32, BK = tc_traits<T>::BK, ALD = BK + tc_traits<T>::APAD,
           BLD = BN + tc_traits<T>::BPAD, MT = BM / WM / 16, NT = BN / WN / 8, ROWS = THREADS / BN,
           PER_THREAD = BK / ROWS };
    static_assert(THREADS % BN == 0 && BK % ROWS == 0 && NT % 2 == 0, "tile shape");
    __shared__ __align__(16) T As[2][BM * ALD];
    __shared__ __align__(16) T Bs[2][BK * BLD];
    __shared__ int4 kdec[2][BK];
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int wm0 = (warp / WN) * (BM / WM), wn0 = (warp % WN) * (BN / WN);
    const int m0 = blockIdx.y * BM, p0 = blockIdx.x * BN, hw = d.H * d.W;
    const int ktiles = (d.K + BK - 1) / BK;
    /* This thread's im2col column (fixed) and rows row0 + ROWS j of each tile. */
    const int col = tid % BN, row0 = tid / BN, p = p0 + col;
    const int n = p / hw, q = p - n * hw;
    const int pix_base = p < d.P ? n * d.C * hw + q : 0, pix_y = p < d.P ? q / d.W : -(1 << 20), pix_x = q % d.W;
    T b_next[PER_THREAD];
#define TC_LOAD_B(kt)                                                                                \
    _Pragma("unroll") for (int j = 0; j < PER_THREAD; j++) {                                         \
        const int4 kd = kdec[(kt) & 1][row0 + ROWS * j];                                             \
        const int iy = pix_y + kd.y, ix = pix_x + kd.z;                                              \
        b_next[j] = (unsigned)iy < (unsigned)d.H && (unsigned)ix < (unsigned)d.W ? x[pix_base + kd.x] : (T)0.0f; \
    }
#define TC_STORE_B(buf)                                                                              \
    _Pragma("unroll") for (int j = 0; j < PER_THREAD; j++) {                                         \
        T v = b_next[j];                                                                             \
        if constexpr (sizeof(T) == 4) v = to_tf32(v);                                                \
        Bs[buf][(row0 + ROWS * j) * BLD + col] = v;                                                  \
    }
    float acc[MT][NT][4] = {};
    if (tid < BK) {
        kdec[0][tid] = decode_k(tid, d);
        kdec[1][tid] = decode_k(BK + tid, d);
    }
    __syncthreads();
    load_w_tile<T, BM, BK, ALD, THREADS, VEC>(w, As[0], m0, 0, d.M, d.K, tid);
    asm volatile("cp.async.commit_group;\n" ::);
    TC_LOAD_B(0)
    TC_STORE_B(0)
    asm volatile("cp.async.wait_all;\n" ::);
    __syncthreads();
    for (int kt = 0; kt < ktiles; kt++) {
        const int cur = kt & 1, nxt = cur ^ 1;
        if (kt + 1 < ktiles) { /* the next tile's loads, before this tile's multiplications */
            load_w_tile<T, BM, BK, ALD, THREADS, VEC>(w, As[nxt], m0, (kt + 1) * BK, d.M, d.K, tid);
            asm volatile("cp.async.commit_group;\n" ::);
            TC_LOAD_B(kt + 1)
        }
        if (tid < BK && kt + 2 < ktiles) kdec[cur][tid] = decode_k((kt + 2) * BK + tid, d); /* two ahead */
#pragma unroll
        for (int ks = 0; ks < BK / tc_traits<T>::KSTEP; ks++)
            mma_step<T, MT, NT, ALD, BLD>(As[cur], Bs[cur], ks, wm0, wn0, lane, acc);
        if (kt + 1 < ktiles) {
            TC_STORE_B(nxt)
        }
        asm volatile("cp.async.wait_all;\n" ::);
        __syncthreads();
    }
#undef TC_LOAD_B
#undef TC_STORE_B
    /* Accumulator (i, j, e): row g (+8 for e >= 2), columns 2t, 2t + 1 of the 16 x 8 tile. */
    const int g = lane >> 2, t = lane & 3;
#pragma unroll
    for (int i = 0; i < MT; i++)
#pragma unroll
        for (int j = 0; j < NT; j++)
#pragma unroll
            for (int e = 0; e < 4; e++) {
                const int m = m0 + wm0 + i * 16 + g + (e >> 1) * 8, pp = p0 + wn0 + j * 8 + 2 * t + (e & 1);
                if (m >= d.M || pp >= d.P) continue;
                const int nn = pp / hw;
                store_out(y, ((size_t)nn * d.M + m) * hw + (pp - nn * hw), acc[i][j][e]);
            }
#endif
}

/* ---------------- host side ---------------- */

template <typename T, int BM, int BN, int WM, int WN>
static void launch_tc(const T *x, const T *w, typename tc_traits<T>::out_t *y, const tc_dims &d, cudaStream_t st)
{
    dim3 grid((d.P + BN - 1) / BN, (d.M + BM - 1) / BM);
    const bool vec = d.K % (16 / (int)sizeof(T)) == 0; /* 16-byte weight copies stay inside a row */
    if (vec) tc_conv<T, BM, BN, WM, WN, true><<<grid, WM * WN * 32, 0, st>>>(x, w, y, d);
    else tc_conv<T, BM, BN, WM, WN, false><<<grid, WM * WN * 32, 0, st>>>(x, w, y, d);
    GL_CHECK_LAUNCH();
}

/* 128 x 128 tiles when they give at least one block per SM, else 64 x 64 (4x the blocks). */
template <typename T>
static cnn_status tc_forward(const T *x, const T *w, typename tc_traits<T>::out_t *y, const cnn_shape *s,
                             cudaStream_t st)
{
    cnn_status status = cnn_check(s);
    if (status != CNN_OK) return status;
    if (!cnn_tc_available()) return CNN_ERR_VARIANT;
    tc_dims d = {s->C, s->H, s->W, s->M, s->R, s->S, s->pad_h, s->pad_w, s->C * s->R * s->S, s->N * s->H * s->W};
    const long big_tiles = (long)((d.P + 127) / 128) * ((d.M + 127) / 128);
    if (big_tiles >= cnn_sms()) launch_tc<T, 128, 128, 2, 4>(x, w, y, d, st);
    else launch_tc<T, 64, 64, 2, 2>(x, w, y, d, st);
    return CNN_OK;
}

extern "C" int cnn_tc_available(void)
{
    static int known = -1;
    if (known < 0) {
        int dev, major;
        cudaFuncAttributes fa;
        GL_CHECK(cudaGetDevice(&dev));
        GL_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
        GL_CHECK(cudaFuncGetAttributes(&fa, tc_conv<bf16, 128, 128, 2, 4, true>));
        known = major >= 8 && fa.binaryVersion >= 80; /* the sm_80+ code, not the empty pre-sm_80 body */
    }
    return known;
}

/* The rows are absent where the kernels cannot run: said once. */
extern "C" int cnn_supports_tc(const cnn_shape *s)
{
    (void)s;
    static int said;
    if (!cnn_tc_available() && !said++)
        printf("note: cnn: the tensor-core rows (mma.sync) need sm_80 or newer, in the GPU and in the build: "
               "left out\n");
    return cnn_tc_available();
}

extern "C" cnn_status cnn_launch_tf32_mma(const cnn_launch_args *a, cudaStream_t st)
{
    return tc_forward<float>(a->x, a->w, a->y, &a->s, st);
}

/* BF16 copies of x and w and the BF16 y, in this order, each 256-byte aligned. */

extern "C" size_t cnn_bf16_bytes(const cnn_shape *s)
{
    const size_t nx = (size_t)s->N * s->C * s->H * s->W, nw = (size_t)s->M * s->C * s->R * s->S;
    const size_t ny = (size_t)s->N * s->M * s->H * s->W;
    return cnn_align256(nx * 2) + cnn_align256(nw * 2) + cnn_align256(ny * 2);
}

/* Where the three BF16 arrays lie in the workspace (no work). */
extern "C" void cnn_bf16_arrays(const cnn_shape *s, void *workspace, void **x16, void **w16, void **y16)
{
    const size_t nx = (size_t)s->N * s->C * s->H * s->W, nw = (size_t)s->M * s->C * s->R * s->S;
    char *base = (char *)workspace;
    *x16 = base;
    *w16 = base + cnn_align256(nx * 2);
    *y16 = base + cnn_align256(nx * 2) + cnn_align256(nw * 2);
}

/* The BF16 rows' prepare hook (cnn_prepare_fn): x and w rounded to BF16 into the workspace, once
 * per configuration, outside the timed calls. */
extern "C" void cnn_bf16_prepare(const cnn_shape *s, const float *x, const float *w, void *workspace,
                                 cudaStream_t st)
{
    void *x16, *w16, *y16;
    cnn_bf16_arrays(s, workspace, &x16, &w16, &y16);
    cnn_to_bf16(x, x16, (size_t)s->N * s->C * s->H * s->W, st);
    cnn_to_bf16(w, w16, (size_t)s->M * s->C * s->R * s->S, st);
}

extern "C" void cnn_bf16_out(const cnn_launch_args *a, const void *y16, cudaStream_t st)
{
    cnn_from_bf16(y16, a->y, (size_t)a->s.N * a->s.M * a->s.H * a->s.W, st);
}

extern "C" size_t cnn_workspace_bf16_mma(const cnn_shape *s, int tile)
{
    (void)tile;
    return cnn_bf16_bytes(s);
}

/* The BF16 product on the BF16 x and w that cnn_bf16_prepare left in the workspace, y written as
 * BF16 and converted back to float for the check (timed with the row, as in the cudnn_bf16 row). */
extern "C" cnn_status cnn_launch_bf16_mma(const cnn_launch_args *a, cudaStream_t st)
{
    if (a->workspace_bytes < cnn_bf16_bytes(&a->s)) return CNN_ERR_SHAPE;
    void *x16, *w16, *y16;
    cnn_bf16_arrays(&a->s, a->workspace, &x16, &w16, &y16);
    cnn_status r = tc_forward<bf16>((const bf16 *)x16, (const bf16 *)w16, (bf16 *)y16, &a->s, st);
    if (r == CNN_OK) cnn_bf16_out(a, y16, st);
    return r;
}

static __global__ void f32_to_bf16(const float *src, bf16 *dst, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = __float2bfloat16_rn(src[i]);
}

static __global__ void bf16_to_f32(const bf16 *src, float *dst, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = __bfloat162float(src[i]);
}

extern "C" void cnn_to_bf16(const float *src, void *dst, size_t n, cudaStream_t st)
{
    f32_to_bf16<<<(unsigned)((n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096), 256, 0, st>>>(src, (bf16 *)dst, n);
    GL_CHECK_LAUNCH();
}

extern "C" void cnn_from_bf16(const void *src, float *dst, size_t n, cudaStream_t st)
{
    bf16_to_f32<<<(unsigned)((n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096), 256, 0, st>>>((const bf16 *)src, dst, n);
    GL_CHECK_LAUNCH();
}
