/* cnn.h - Lab 04, part 2: multi-channel (CNN) convolution, NCHW float, after cuConv (the seed
 * 001). One entry point, cnn_forward, runs any variant; cnn_reference (C, double accumulation) is
 * the definition every variant is checked against. */
#ifndef CNN_H
#define CNN_H

#include <stddef.h>
#include <cuda_runtime_api.h>

typedef enum {
    CNN_OK = 0,
    CNN_ERR_SHAPE,       /* a size < 1, or an output that would be empty */
    CNN_ERR_STRIDE,      /* stride != 1 */
    CNN_ERR_DILATION,    /* dilation != 1 */
    CNN_ERR_GROUPS,      /* groups != 1 */
    CNN_ERR_EVEN_FILTER, /* R or S even */
    CNN_ERR_PADDING,     /* padding other than (R - 1) / 2, (S - 1) / 2 */
    CNN_ERR_VARIANT,     /* a variant this build does not have (cuDNN not found) */
} cnn_status;

typedef enum { CNN_SPLIT, CNN_FUSED, CNN_OURS, CNN_CUDNN, CNN_VARIANTS } cnn_variant;

typedef struct {
    int N, C, H, W, M, R, S, pad_h, pad_w, stride_h, stride_w, dil_h, dil_w, groups;
} cnn_shape;

#ifdef __cplusplus
extern "C" {
#endif
const char *cnn_status_name(cnn_status s);
const char *cnn_variant_name(cnn_variant v);
/* The parameters this lab's kernels support (stride 1, dilation 1, groups 1, odd R x S, padding
 * (R-1)/2): anything else is refused with a named status, never computed. */
cnn_status cnn_check(const cnn_shape *s);
double cnn_flops(const cnn_shape *s); /* 2 N M C R S Ho Wo */

/* Enqueue variant v on stream st. `workspace` (cnn_workspace_bytes) holds the split variant's
 * partial maps and cuDNN's workspace; allocate it outside any timed region. */
cnn_status cnn_forward(const float *x, const float *w, float *y, int N, int C, int H, int W, int M, int R, int S,
                       int pad_h, int pad_w, int stride_h, int stride_w, int dil_h, int dil_w, int groups,
                       cnn_variant v, void *workspace, size_t workspace_bytes, cudaStream_t st);
size_t cnn_workspace_bytes(const cnn_shape *s, cnn_variant v);

/* cnn_cudnn.c: cuDNN FP32 with CUDNN_FMA_MATH (no TF32). cnn_cudnn_prepare sets up the shape and
 * collects every algorithm cudnnFindConvolutionForwardAlgorithm ran with FMA math (its
 * workspace_bytes: the largest they need); the caller times each (cnn_cudnn_use) and keeps the
 * fastest. With `heuristic` (--quick) it takes the first 3 FMA-math algorithms of cuDNN's own
 * ranking (cudnnGetConvolutionForwardAlgorithm_v7, which runs nothing) instead: Find runs every
 * algorithm, which under compute-sanitizer takes many minutes. */
#define CNN_CUDNN_MAX_CANDIDATES 8
int cnn_cudnn_candidates(void);
const char *cnn_cudnn_use(int i); /* returns the algorithm's name */
int cnn_cudnn_available(void);
const char *cnn_cudnn_version(void);
cnn_status cnn_cudnn_prepare(const cnn_shape *s, const float *x, const float *w, float *y, int heuristic,
                             size_t *workspace_bytes, const char **algo_name);
cnn_status cnn_cudnn_forward(const float *x, const float *w, float *y, void *workspace, size_t workspace_bytes,
                             cudaStream_t st);
void cnn_cudnn_release(void);

/* cnn_reference.c: y[n][m][oy][ox] = sum over c, r, s of x[n][c][oy + r - pad_h][ox + s - pad_w] *
 * w[m][c][r][s] (zero outside the image), accumulated in double. `abs_sum` (may be NULL) receives
 * sum |x * w| per output, for the error bound. Only the outputs listed in `index` (count n_index)
 * are computed when index != NULL. */
void cnn_reference(const float *x, const float *w, const cnn_shape *s, const size_t *index, size_t n_index,
                   double *out, double *abs_sum);
/* The same with the outputs shared among the cores: the same bits (cnn_reference stays on one). */
void cnn_reference_all_cores(const float *x, const float *w, const cnn_shape *s, const size_t *index,
                             size_t n_index, double *out, double *abs_sum);
#ifdef __cplusplus
}
#endif

#endif
