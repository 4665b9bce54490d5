/* convolution.h - Lab 04: the interface between the host program (C), the image kernels (CUDA),
 * the CPU reference (reference.c) and the NPP peer (npp_peer.c).
 *
 * Semantics (reference.c is the definition): 8-bit grayscale, a 3x3 integer filter, integer
 * accumulation, an arithmetic right shift, clamp to 0..255. Only the interior is computed: the
 * one-pixel frame (row 0, row H-1, column 0, column W-1) is never written, as in the seed. Any
 * width and height >= 3. Images live on the GPU with a row pitch of CONV_PITCH_ALIGN bytes. */
#ifndef CONVOLUTION_H
#define CONVOLUTION_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#define CONV_PITCH_ALIGN 64 /* row pitch on the GPU: a multiple of this (16-byte vectors stay aligned) */

typedef struct {
    const char *name;
    int w[9];  /* row-major: w[0] w[1] w[2] / w[3] w[4] w[5] / w[6] w[7] w[8] */
    int shift; /* out = clamp((sum of w * pixel) >> shift, 0, 255); >> is arithmetic (floor) */
} conv_filter;

enum { FILTER_SMOOTH, FILTER_SHARPEN, FILTER_EDGE, N_FILTERS };
extern const conv_filter CONV_FILTERS[N_FILTERS];

/* The kernels of the ladder. GM: filter in global memory; CM: in __constant__; SM: the input tile
 * in shared memory (filter in __constant__). CFn: one thread computes n consecutive pixels with a
 * sliding 3x3 register window. _VEC: the n outputs are stored as uchar2/uchar4 vectors. Beyond the
 * paper: W16 (16-byte loads and stores, 16 pixels per thread, horizontal neighbours by warp
 * shuffle), W16_R4 / W16_R8 (and 4 or 8 output rows per thread, the rows' loads reused),
 * W16_DP4A / _R4 / _R8 (a filter row as one 4-byte dot product instruction; the rows loaded
 * before any store), W16_DP4A_R4_SAT / _R6_SAT (clamp and pack by cvt.pack.sat, 4 or 6 rows),
 * W16_DP4A_R4_SW / _R6_SW (the same with the weights shifted to the pixels' bytes, 128-thread
 * blocks), W16_DP4A_R4_DW (the _SW rung on the row's words as loaded: each thread loads the words
 * left and right of its 16 bytes, no shuffles, no byte moves), W16_DP4A_BULK (one warp a block down a strip, the rows ahead brought into shared memory
 * by bulk copies). Every kernel from W16 on is a row of the `beyond` experiment (main.c). */
#define CONV_VEC_CFS(X) X(2) X(4) X(8) X(12) X(16) /* CF = 1 has nothing to vectorise */
typedef enum {
    K_GM_CF1, K_CM_CF1, K_SM_CF1,
#define CONV_ENUM_CF(cf) K_GM_CF##cf, K_GM_CF##cf##_VEC, K_CM_CF##cf, K_CM_CF##cf##_VEC, K_SM_CF##cf, K_SM_CF##cf##_VEC,
    CONV_VEC_CFS(CONV_ENUM_CF)
#undef CONV_ENUM_CF
    K_W16, K_W16_R4, K_W16_R8, K_W16_DP4A, K_W16_DP4A_R4, K_W16_DP4A_R8, K_W16_DP4A_R4_SAT, K_W16_DP4A_R6_SAT,
    K_W16_DP4A_R4_SW, K_W16_DP4A_R6_SW, K_W16_DP4A_R4_DW, K_W16_DP4A_BULK, K_CONV_COUNT
} conv_kernel;

typedef struct {
    const uint8_t *in;
    uint8_t *out;
    int width, height, pitch;   /* pixels, pixels, bytes per row on the GPU */
    const int *filter;          /* GM kernels: the 9 weights, in global memory */
    int shift;                  /* the filter's shift (a kernel argument for every kernel) */
    unsigned long long *counts; /* non-NULL: the counting twin (gl_load_counts: requests, sectors, segments) */
    int ring_rows;              /* W16_DP4A_BULK: output rows a warp walks (launch_conv sets it) */
} conv_args;

#ifdef __cplusplus
extern "C" {
#endif
/* ladder.cu */
const char *conv_kernel_name(conv_kernel k);       /* e.g. "CM_CF12_Vec", "W16_R8" */
int conv_kernel_pixels(conv_kernel k);             /* consecutive pixels per thread along x */
void conv_set_constant_filter(const conv_filter *f); /* the CM/SM/W16 kernels' __constant__ copy */
int conv_filter_fits_dp4a(const conv_filter *f);     /* the DP4A kernels need weights in -128..127 */
void launch_conv(conv_kernel k, const conv_args *a, cudaStream_t s);

/* reference.c: the definition */
int conv_shift_floor(int v, int shift);
uint8_t conv_pixel(const uint8_t *img, int width, int x, int y, const conv_filter *f);
/* out (tight, width x height): interior computed, the frame copied from `in` when frame_from_input,
 * else left as it was. */
void conv_reference(const uint8_t *in, uint8_t *out, int width, int height, const conv_filter *f, int frame_from_input);

/* npp_peer.c: NVIDIA NPP's nppiFilter_8u_C1R_Ctx on the interior ROI; conv_npp_available() is 0
 * when the lab was built without NPP, and then conv_npp_run does nothing and returns -1. */
int conv_npp_available(void);
void conv_npp_set_sms(int sms); /* the SMs NPP may size its grids for (--sms); 0: the GPU's */
const char *conv_npp_version(void);
int conv_npp_run(const uint8_t *in, uint8_t *out, int width, int height, int pitch, const int *d_kernel_reversed,
                 int divisor, cudaStream_t s);
#ifdef __cplusplus
}
#endif

#endif
