/* cnn_tc.h - Lab 04, part 2: the Winograd rung (cnn_winograd.cu), the tensor-core rungs (cnn_tc.cu)
 * and the error bounds of every precision class (cnn_bounds.c). */
#ifndef CNN_TC_H
#define CNN_TC_H

#include "cnn.h"

#ifdef __cplusplus
extern "C" {
#endif
/* Winograd F(2x2, 3x3), FP32: 3x3 filters only (cnn_winograd_applies). The workspace holds the
 * transformed weights and input tiles: 16 Cp (Mp + Tp) floats (C, M, tiles padded). */
int cnn_winograd_applies(const cnn_shape *s);
size_t cnn_winograd_workspace_bytes(const cnn_shape *s);
cnn_status cnn_winograd_forward(const float *x, const float *w, float *y, const cnn_shape *s, void *workspace,
                                size_t workspace_bytes, cudaStream_t st);

/* Tensor cores (mma.sync; needs sm_80+ in the GPU and in the build: cnn_tc_available). TF32: FP32
 * x, w, y. BF16: x, w and y are BF16 arrays (cnn_to_bf16 converts, outside any timed region). */
int cnn_tc_available(void);
cnn_status cnn_tc_tf32_forward(const float *x, const float *w, float *y, const cnn_shape *s, cudaStream_t st);
cnn_status cnn_tc_bf16_forward(const void *x, const void *w, void *y, const cnn_shape *s, cudaStream_t st);
void cnn_to_bf16(const float *src, void *dst, size_t n, cudaStream_t st);   /* round to nearest even */
void cnn_from_bf16(const void *src, float *dst, size_t n, cudaStream_t st); /* exact */

/* cnn_bounds.c: the error bound of one output, |y - ref| <= bound, for each precision class.
 *   abs_sum   sum |x w| over the output's terms (cnn_reference)
 *   ref       the reference value (double)
 *   wino_sum  the Winograd magnitude sum of the output (cnn_winograd_abs_sums), else unused
 * K = C R S. The derivations are in cnn_bounds.c. */
typedef enum {
    CNN_BOUND_FP32,       /* direct FP32 sums, any order: 16 FLT_EPSILON sqrt(K) sum |x w| */
    CNN_BOUND_WINOGRAD,   /* F(2x2, 3x3) in FP32: gamma_(C+10) * wino_sum */
    CNN_BOUND_TF32,       /* x, w rounded to TF32 to nearest (ours), FP32 accumulate */
    CNN_BOUND_TF32_ANY,   /* x, w rounded to TF32 in any direction (cuDNN: not documented) */
    CNN_BOUND_BF16,       /* x, w rounded to BF16 to nearest, FP32 accumulate, y rounded to BF16 */
    CNN_BOUND_CLASSES
} cnn_bound_class;
const char *cnn_bound_name(cnn_bound_class b);
double cnn_bound(cnn_bound_class b, const cnn_shape *s, double abs_sum, double ref, double wino_sum);
/* The Winograd magnitude sums of the outputs listed in index (all when index == NULL), on all
 * cores: sum over c and the 16 products of |A^T| (|G| |g| |G^T| .* |B^T| |d| |B|) |A| at the
 * output's place in its 2x2 tile. */
void cnn_winograd_abs_sums(const float *x, const float *w, const cnn_shape *s, const size_t *index, size_t n_index,
                           double *out);
#ifdef __cplusplus
}
#endif

#endif
