/* cnn_nhwc.cu - Lab 04, part 2: the channels-last (NHWC) tensors of the cuDNN peers in their best
 * layout (cudnn_bf16_nhwc, cudnn_fp16_nhwc, cudnn_tf32_nhwc). Nothing here is timed:
 *   prepare: x NCHW float -> NHWC in the row's type, w MCRS float -> MRSC (cuDNN's NHWC filter
 *            format, "KRSC") in the row's type, once per configuration (the row's prepare hook);
 *   to_y:    the row's own output, y NHWC in its type, -> the float NCHW y the check reads, after
 *            each checked run (the row's own_output hook);
 * and the rows' hooks built on them, one per type (cnn_variants.c names them).
 * The workspace starts with x, w and y in that layout (each 256-byte aligned), the library's own
 * workspace after them. The lesson is in what is *not* here: the timed call reads NHWC x and writes
 * NHWC y, in the library's best layout, with no conversion inside the timing. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include "tensor_core.h"
#include "gl_check.h"


static size_t type_bytes(cnn_nhwc_type t) { return t == CNN_NHWC_F32 ? 4 : 2; }

extern "C" size_t cnn_nhwc_bytes(const cnn_shape *s, cnn_nhwc_type t)
{
    const size_t e = type_bytes(t);
    return cnn_align256((size_t)s->N * s->H * s->W * s->C * e) + cnn_align256((size_t)s->M * s->R * s->S * s->C * e) +
           cnn_align256((size_t)s->N * s->H * s->W * s->M * e);
}

extern "C" void cnn_nhwc_arrays(const cnn_shape *s, cnn_nhwc_type t, void *workspace, void **x, void **w, void **y)
{
    const size_t e = type_bytes(t);
    char *p = (char *)workspace;
    *x = p;
    p += cnn_align256((size_t)s->N * s->H * s->W * s->C * e);
    *w = p;
    p += cnn_align256((size_t)s->M * s->R * s->S * s->C * e);
    *y = p;
}

static __device__ void store_as(cnn_nhwc_type t, void *dst, size_t i, float v)
{
    if (t == CNN_NHWC_BF16) ((__nv_bfloat16 *)dst)[i] = __float2bfloat16_rn(v);
    else if (t == CNN_NHWC_F16) ((__half *)dst)[i] = __float2half_rn(v);
    else ((float *)dst)[i] = v;
}

static __device__ float load_as(cnn_nhwc_type t, const void *src, size_t i)
{
    if (t == CNN_NHWC_BF16) return __bfloat162float(((const __nv_bfloat16 *)src)[i]);
    if (t == CNN_NHWC_F16) return __half2float(((const __half *)src)[i]);
    return ((const float *)src)[i];
}

/* dst[(a, b, c) in channels-last order] = src[a][c][b] for a tensor of A x C x B (B: the pixels of
 * one image, or the taps of one filter): one thread per output, reads strided, untimed. */
static __global__ void to_channels_last(const float *src, void *dst, cnn_nhwc_type t, long long A, int C, long long B)
{
    const long long n = A * C * B;
    for (long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x; o < n; o += (long long)gridDim.x * blockDim.x) {
        const long long c = o % C, b = o / C % B, a = o / C / B;
        store_as(t, dst, (size_t)o, src[(a * C + c) * B + b]);
    }
}

static __global__ void from_channels_last(const void *src, cnn_nhwc_type t, float *dst, long long A, int C, long long B)
{
    const long long n = A * C * B;
    for (long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x; o < n; o += (long long)gridDim.x * blockDim.x) {
        const long long b = o % B, c = o / B % C, a = o / B / C; /* o: NCHW order */
        dst[o] = load_as(t, src, (size_t)((a * B + b) * C + c));
    }
}

static unsigned blocks_for(long long n) { return (unsigned)((n + 255) / 256 < 8192 ? (n + 255) / 256 : 8192); }

extern "C" void cnn_nhwc_prepare(const cnn_shape *s, cnn_nhwc_type t, const float *x, const float *w, void *workspace,
                                 cudaStream_t st)
{
    void *xl, *wl, *yl;
    cnn_nhwc_arrays(s, t, workspace, &xl, &wl, &yl);
    const long long px = (long long)s->H * s->W, taps = (long long)s->R * s->S;
    to_channels_last<<<blocks_for(s->N * s->C * px), 256, 0, st>>>(x, xl, t, s->N, s->C, px);
    GL_CHECK_LAUNCH();
    to_channels_last<<<blocks_for(s->M * s->C * taps), 256, 0, st>>>(w, wl, t, s->M, s->C, taps);
    GL_CHECK_LAUNCH();
}

/* y (float NCHW) from a channels-last y of type t at src. */
extern "C" void cnn_channels_last_to_y(const cnn_launch_args *a, cnn_nhwc_type t, const void *src, cudaStream_t st)
{
    const long long px = (long long)a->s.H * a->s.W;
    from_channels_last<<<blocks_for(a->s.N * a->s.M * px), 256, 0, st>>>(src, t, a->y, a->s.N, a->s.M, px);
    GL_CHECK_LAUNCH();
}

extern "C" void cnn_nhwc_to_y(const cnn_launch_args *a, cnn_nhwc_type t, cudaStream_t st)
{
    void *xl, *wl, *yl;
    cnn_nhwc_arrays(&a->s, t, a->workspace, &xl, &wl, &yl);
    cnn_channels_last_to_y(a, t, yl, st);
}

/* ours_*_tma_nhwc (05_wgmma_tma.cu): where a pixel's C values of 2 bytes are not a multiple of
 * 16 bytes (C not a multiple of 8), TMA cannot read x (nor w) in place: its timed call copies both
 * with C padded by zero channels to Cp = C rounded up to 8, into the workspace after the peer's
 * tensors. */
static size_t padded_c(const cnn_shape *s) { return (size_t)(s->C + 7) / 8 * 8; }
static int needs_padding(const cnn_shape *s, cnn_nhwc_type t) { return t != CNN_NHWC_F32 && s->C % 8; }

extern "C" size_t cnn_workspace_tma_nhwc(const cnn_shape *s, cnn_nhwc_type t)
{
    const size_t e = type_bytes(t), cp = padded_c(s);
    return cnn_nhwc_bytes(s, t) +
           (needs_padding(s, t) ? cnn_align256((size_t)s->N * s->H * s->W * cp * e) + cnn_align256((size_t)s->M * s->R * s->S * cp * e) : 0);
}
extern "C" size_t cnn_workspace_tma_nhwc_bf16(const cnn_shape *s, int tile)
{
    (void)tile;
    return cnn_workspace_tma_nhwc(s, CNN_NHWC_BF16);
}
extern "C" size_t cnn_workspace_tma_nhwc_fp16(const cnn_shape *s, int tile)
{
    (void)tile;
    return cnn_workspace_tma_nhwc(s, CNN_NHWC_F16);
}
extern "C" size_t cnn_workspace_tma_nhwc_tf32(const cnn_shape *s, int tile)
{
    (void)tile;
    return cnn_workspace_tma_nhwc(s, CNN_NHWC_F32);
}

extern "C" void cnn_nhwc_padded(const cnn_shape *s, cnn_nhwc_type t, void *workspace, void **xp, void **wp)
{
    char *p = (char *)workspace + cnn_nhwc_bytes(s, t);
    *xp = p;
    *wp = p + cnn_align256((size_t)s->N * s->H * s->W * padded_c(s) * type_bytes(t));
}

/* dst[a][c] = src[a][c] for c < C, 0 for C <= c < Cp: rows of 2-byte values (one thread each). */
static __global__ void pad_rows(const unsigned short *src, unsigned short *dst, long long rows, int C, int Cp)
{
    const long long n = rows * Cp;
    for (long long o = blockIdx.x * (long long)blockDim.x + threadIdx.x; o < n; o += (long long)gridDim.x * blockDim.x) {
        const long long a = o / Cp;
        const int c = (int)(o - a * Cp);
        dst[o] = c < C ? src[a * C + c] : 0;
    }
}

extern "C" void cnn_nhwc_pad_channels(const cnn_shape *s, cnn_nhwc_type t, const void *x, const void *w, void *xp,
                                      void *wp, cudaStream_t st)
{
    (void)t; /* 2-byte types only: the padding is bits, the same for BF16 and FP16 */
    const int cp = (int)padded_c(s);
    const long long px = (long long)s->N * s->H * s->W, taps = (long long)s->M * s->R * s->S;
    pad_rows<<<blocks_for(px * cp), 256, 0, st>>>((const unsigned short *)x, (unsigned short *)xp, px, s->C, cp);
    GL_CHECK_LAUNCH();
    pad_rows<<<blocks_for(taps * cp), 256, 0, st>>>((const unsigned short *)w, (unsigned short *)wp, taps, s->C, cp);
    GL_CHECK_LAUNCH();
}

/* The rows' hooks (cnn_variants.c), one per type: prepare (cnn_prepare_fn) and own_output. */
extern "C" void cnn_nhwc_prepare_bf16(const cnn_shape *s, const float *x, const float *w, void *ws, cudaStream_t st)
{
    cnn_nhwc_prepare(s, CNN_NHWC_BF16, x, w, ws, st);
}
extern "C" void cnn_nhwc_prepare_fp16(const cnn_shape *s, const float *x, const float *w, void *ws, cudaStream_t st)
{
    cnn_nhwc_prepare(s, CNN_NHWC_F16, x, w, ws, st);
}
extern "C" void cnn_nhwc_prepare_tf32(const cnn_shape *s, const float *x, const float *w, void *ws, cudaStream_t st)
{
    cnn_nhwc_prepare(s, CNN_NHWC_F32, x, w, ws, st);
}

static void *nhwc_y(const cnn_shape *s, cnn_nhwc_type t, void *ws, size_t *bytes)
{
    void *x, *w, *y;
    cnn_nhwc_arrays(s, t, ws, &x, &w, &y);
    *bytes = (size_t)s->N * s->H * s->W * s->M * type_bytes(t);
    return y;
}
static void *y_bf16(const cnn_shape *s, void *ws, size_t *bytes) { return nhwc_y(s, CNN_NHWC_BF16, ws, bytes); }
static void *y_fp16(const cnn_shape *s, void *ws, size_t *bytes) { return nhwc_y(s, CNN_NHWC_F16, ws, bytes); }
static void *y_tf32(const cnn_shape *s, void *ws, size_t *bytes) { return nhwc_y(s, CNN_NHWC_F32, ws, bytes); }
static void to_y_bf16(const cnn_launch_args *a, cudaStream_t st) { cnn_nhwc_to_y(a, CNN_NHWC_BF16, st); }
static void to_y_fp16(const cnn_launch_args *a, cudaStream_t st) { cnn_nhwc_to_y(a, CNN_NHWC_F16, st); }
static void to_y_tf32(const cnn_launch_args *a, cudaStream_t st) { cnn_nhwc_to_y(a, CNN_NHWC_F32, st); }
extern "C" const cnn_own_output cnn_nhwc_output_bf16 = {y_bf16, to_y_bf16};
extern "C" const cnn_own_output cnn_nhwc_output_fp16 = {y_fp16, to_y_fp16};
extern "C" const cnn_own_output cnn_nhwc_output_tf32 = {y_tf32, to_y_tf32};

/* ours_bf16_wgmma_tma_nhwc: its y is the BF16 y16 of cnn_bf16_arrays, written channels-last. */
static void *y16_buffer(const cnn_shape *s, void *workspace, size_t *bytes)
{
    void *x16, *w16, *y16;
    cnn_bf16_arrays(s, workspace, &x16, &w16, &y16);
    *bytes = (size_t)s->N * s->M * s->H * s->W * 2;
    return y16;
}
static void y16_to_y(const cnn_launch_args *a, cudaStream_t st)
{
    size_t bytes;
    cnn_channels_last_to_y(a, CNN_NHWC_BF16, y16_buffer(&a->s, a->workspace, &bytes), st);
}
extern "C" const cnn_own_output cnn_bf16_y16_nhwc_output = {y16_buffer, y16_to_y};
