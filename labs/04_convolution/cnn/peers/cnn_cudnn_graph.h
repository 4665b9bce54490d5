/* cnn_cudnn_graph.h - Lab 04, part 2: the NHWC cuDNN peers' plans from cuDNN's graph (backend) API
 * (cnn_cudnn_graph.c), used by cnn_cudnn.c only, with HAVE_CUDNN. */
#ifndef CNN_CUDNN_GRAPH_H
#define CNN_CUDNN_GRAPH_H
#include "cnn.h"

#define CNN_CUDNN_GRAPH_MAX_PLANS 16            /* plans kept per layer and type, over the three modes */
#define CNN_CUDNN_GRAPH_WORKSPACE_CAP (256u << 20) /* a plan needing more workspace is left out */

#ifdef HAVE_CUDNN
#include <stdio.h>
#include <stdlib.h>
#include <cudnn.h>
#include "gl_check.h" /* GL_EXIT_FAIL */

/* The peers' one check of a cuDNN call (both files): on failure say which call and why, exit 1. */
#define CUDNN_CHECK(call)                                                                             \
    do {                                                                                              \
        cudnnStatus_t st_ = (call);                                                                   \
        if (st_ != CUDNN_STATUS_SUCCESS) {                                                            \
            fprintf(stderr, "cuDNN error: %s: %s (%s:%d)\n", #call, cudnnGetErrorString(st_), __FILE__, __LINE__); \
            exit(GL_EXIT_FAIL);                                                                       \
        }                                                                                             \
    } while (0)

/* The plans for x NHWC, w KRSC, y NHWC of `type` (FP32 compute): heuristics modes A (10), B (4)
 * and FALLBACK (2) (quick: mode A's first two), each finalized on this GPU, within `cap` bytes of workspace,
 * with numerics the rows' bounds cover. Returns how many; workspace_bytes: the most any needs. */
int cnn_cudnn_graph_prepare(cudnnHandle_t h, const cnn_shape *s, cudnnDataType_t type, int quick, size_t cap,
                            size_t *workspace_bytes);
int cnn_cudnn_graph_left_out(void); /* engine configs refused by the last prepare */
const char *cnn_cudnn_graph_name(int i);
/* Plan i on the handle's stream (captured into the harness's CUDA graph like any call). */
cnn_status cnn_cudnn_graph_execute(cudnnHandle_t h, int i, void *x, void *w, void *y, void *workspace,
                                   size_t workspace_bytes);
void cnn_cudnn_graph_release(void);
#endif
#endif
