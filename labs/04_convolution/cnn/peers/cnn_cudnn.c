/* cnn_cudnn.c - Lab 04, part 2: cuDNN as the library peer, one peer row per precision class:
 *   cudnn       FP32 tensors, CUDNN_FMA_MATH (no TF32, no tensor cores)
 *   cudnn_tf32  FP32 tensors, CUDNN_TENSOR_OP_MATH (TF32 tensor cores)
 *   cudnn_bf16  BF16 x, w and y, FP32 compute type, CUDNN_TENSOR_OP_MATH (cuDNN's BFLOAT16 config)
 *   cudnn_{bf16,fp16,tf32}_nhwc  the same in cuDNN's best layout: x and y NHWC, w KRSC, made untimed
 *               (cnn_nhwc.cu); the NCHW rows above change the layout inside their timed call
 * Each keeps only the algorithms cuDNN reports as run with that math type (the NHWC rows add the
 * plans of cuDNN's graph API, cnn_cudnn_graph.c, as PyTorch reaches cuDNN), and the caller keeps the
 * fastest of them within the row's bound. Built only when meson finds cuDNN (HAVE_CUDNN); otherwise
 * the cudnn rows are absent. */
#include <stdio.h>
#include <stdlib.h>
#include "cnn.h"
#include "tensor_core.h"
#include "gl_check.h"
#include "cnn_cudnn_graph.h"

#ifdef HAVE_CUDNN
#include <cudnn.h>
#pragma GCC diagnostic ignored "-Wdeprecated-declarations" /* the v7-style API is deprecated in cuDNN 9 */

/* A peer row's data type, math type and layout (NCHW, or NHWC with KRSC filters). */
typedef struct {
    const char *name;
    cudnnDataType_t data;
    cudnnMathType_t math;
    cudnnTensorFormat_t format;
} peer_mode;
static const peer_mode FP32_FMA = {"FMA", CUDNN_DATA_FLOAT, CUDNN_FMA_MATH, CUDNN_TENSOR_NCHW};
static const peer_mode TF32_TENSOR_OP = {"tensor-op (TF32)", CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH, CUDNN_TENSOR_NCHW};
static const peer_mode BF16_TENSOR_OP = {"tensor-op (BF16)", CUDNN_DATA_BFLOAT16, CUDNN_TENSOR_OP_MATH,
                                         CUDNN_TENSOR_NCHW};
/* NHWC: never CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION (it would let FP32 run as FP16 or BF16). */
static const peer_mode BF16_NHWC = {"tensor-op (BF16, NHWC)", CUDNN_DATA_BFLOAT16, CUDNN_TENSOR_OP_MATH,
                                    CUDNN_TENSOR_NHWC};
static const peer_mode FP16_NHWC = {"tensor-op (FP16, NHWC)", CUDNN_DATA_HALF, CUDNN_TENSOR_OP_MATH, CUDNN_TENSOR_NHWC};
static const peer_mode TF32_NHWC = {"tensor-op (TF32, NHWC)", CUDNN_DATA_FLOAT, CUDNN_TENSOR_OP_MATH, CUDNN_TENSOR_NHWC};

static struct {
    cudnnHandle_t handle;
    cudnnTensorDescriptor_t xd, yd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cd;
    cudnnConvolutionFwdAlgo_t algo;
    int ready;
    int n_candidates;                      /* the legacy API's algorithms */
    cudnnConvolutionFwdAlgo_t candidates[CNN_CUDNN_MAX_CANDIDATES];
    int n_graph;                           /* NHWC rows: then the graph API's plans (cnn_cudnn_graph.c) */
    int graph_i;                           /* the plan `use` selected, -1: the legacy algorithm */
} g;

int cnn_cudnn_available(void) { return 1; }

const char *cnn_cudnn_version(void)
{
    static char buf[32];
    size_t v = cudnnGetVersion();
    snprintf(buf, sizeof buf, "%zu.%zu.%zu", v / 10000, v / 100 % 100, v % 100);
    return buf;
}

static const char *algo_name(cudnnConvolutionFwdAlgo_t a)
{
    static const char *const names[] = {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT", "FFT",
                                        "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
    return (unsigned)a < sizeof names / sizeof names[0] ? names[a] : "?";
}

/* Descriptors for the shape in `mode`, and the algorithms that ran with the mode's math type. */
static cnn_status prepare_mode(const peer_mode *mode, const cnn_shape *s, int heuristic, size_t *workspace_bytes)
{
    cnn_status st = cnn_check(s);
    if (st != CNN_OK) return st;
    if (!g.handle) {
        CUDNN_CHECK(cudnnCreate(&g.handle));
        CUDNN_CHECK(cudnnCreateTensorDescriptor(&g.xd));
        CUDNN_CHECK(cudnnCreateTensorDescriptor(&g.yd));
        CUDNN_CHECK(cudnnCreateFilterDescriptor(&g.wd));
        CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&g.cd));
    }
    g.ready = 0;
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(g.xd, mode->format, mode->data, s->N, s->C, s->H, s->W));
    CUDNN_CHECK(cudnnSetTensor4dDescriptor(g.yd, mode->format, mode->data, s->N, s->M, s->H, s->W));
    CUDNN_CHECK(cudnnSetFilter4dDescriptor(g.wd, mode->data, mode->format, s->M, s->C, s->R, s->S));
    CUDNN_CHECK(cudnnSetConvolution2dDescriptor(g.cd, s->pad_h, s->pad_w, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                                CUDNN_DATA_FLOAT)); /* FP32 compute in every mode */
    CUDNN_CHECK(cudnnSetConvolutionMathType(g.cd, mode->math));
    cudnnConvolutionFwdAlgoPerf_t perf[16];
    int found = 0;
    /* Find runs every algorithm (on buffers and workspaces it allocates itself, outside any timing)
     * and sorts them by time; the heuristic ranks them without running any. */
    if (heuristic)
        CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(g.handle, g.xd, g.wd, g.cd, g.yd, 16, &found, perf));
    else
        CUDNN_CHECK(cudnnFindConvolutionForwardAlgorithm(g.handle, g.xd, g.wd, g.cd, g.yd, 16, &found, perf));
    int most = heuristic ? 3 : CNN_CUDNN_MAX_CANDIDATES;
    /* Every algorithm that ran with the mode's math type is a candidate; the caller times each the
     * way it times its own kernels and keeps the fastest (use). Find's order comes first. */
    g.n_candidates = 0;
    *workspace_bytes = 0;
    for (int i = 0; i < found && g.n_candidates < most; i++) {
        if (perf[i].status != CUDNN_STATUS_SUCCESS || perf[i].mathType != mode->math) continue;
        size_t ws = 0;
        CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(g.handle, g.xd, g.wd, g.cd, g.yd, perf[i].algo, &ws));
        g.candidates[g.n_candidates++] = perf[i].algo;
        if (ws > *workspace_bytes) *workspace_bytes = ws;
    }
    /* NHWC: cuDNN's graph API adds its plans, as PyTorch reaches cuDNN (cnn_cudnn_graph.c) */
    g.n_graph = 0, g.graph_i = -1;
    if (mode->format == CUDNN_TENSOR_NHWC) {
        size_t graph_ws = 0;
        g.n_graph = cnn_cudnn_graph_prepare(g.handle, s, mode->data, heuristic, CNN_CUDNN_GRAPH_WORKSPACE_CAP, &graph_ws);
        if (graph_ws > *workspace_bytes) *workspace_bytes = graph_ws;
        printf("note: cuDNN %s: %d legacy algorithms and %d graph-API plans (%d engine configs left out: over %u MiB"
               " of workspace, reduced-precision numerics, or not for this GPU)\n",
               mode->name, g.n_candidates, g.n_graph, cnn_cudnn_graph_left_out(), CNN_CUDNN_GRAPH_WORKSPACE_CAP >> 20);
    }
    if (g.n_candidates == 0 && mode->math == CUDNN_FMA_MATH) {
        fprintf(stderr, "cuDNN found no FMA-math algorithm for this shape\n");
        exit(GL_EXIT_FAIL);
    }
    if (g.n_candidates + g.n_graph == 0) { /* e.g. a GPU without tensor cores for the type: the row is absent */
        printf("note: cuDNN ran no algorithm with %s math for this shape (%d found, math types:", mode->name, found);
        for (int i = 0; i < found; i++) printf(" %s/%d", algo_name(perf[i].algo), (int)perf[i].mathType);
        printf("): row left out\n");
        return CNN_ERR_VARIANT;
    }
    if (g.n_candidates > 0) g.algo = g.candidates[0];
    else g.graph_i = 0;
    g.ready = 1;
    return CNN_OK;
}

static cnn_status prepare_fp32(const cnn_shape *s, int heuristic, size_t *workspace_bytes)
{
    return prepare_mode(&FP32_FMA, s, heuristic, workspace_bytes);
}

static cnn_status prepare_tf32(const cnn_shape *s, int heuristic, size_t *workspace_bytes)
{
    return prepare_mode(&TF32_TENSOR_OP, s, heuristic, workspace_bytes);
}

/* The BF16 arrays (cnn_bf16_arrays) come first in the workspace, cuDNN's after them. */
static cnn_status prepare_bf16(const cnn_shape *s, int heuristic, size_t *workspace_bytes)
{
    cnn_status r = prepare_mode(&BF16_TENSOR_OP, s, heuristic, workspace_bytes);
    *workspace_bytes += cnn_bf16_bytes(s);
    return r;
}

/* The NHWC arrays (cnn_nhwc_arrays) come first in the workspace, cuDNN's after them. */
static cnn_status prepare_nhwc(const peer_mode *mode, cnn_nhwc_type t, const cnn_shape *s, int heuristic,
                               size_t *workspace_bytes)
{
    cnn_status r = prepare_mode(mode, s, heuristic, workspace_bytes);
    *workspace_bytes += cnn_nhwc_bytes(s, t);
    return r;
}
static cnn_status prepare_bf16_nhwc(const cnn_shape *s, int heuristic, size_t *ws)
{
    return prepare_nhwc(&BF16_NHWC, CNN_NHWC_BF16, s, heuristic, ws);
}
static cnn_status prepare_fp16_nhwc(const cnn_shape *s, int heuristic, size_t *ws)
{
    return prepare_nhwc(&FP16_NHWC, CNN_NHWC_F16, s, heuristic, ws);
}
static cnn_status prepare_tf32_nhwc(const cnn_shape *s, int heuristic, size_t *ws)
{
    return prepare_nhwc(&TF32_NHWC, CNN_NHWC_F32, s, heuristic, ws);
}

static int candidates(void) { return g.n_candidates + g.n_graph; }

/* Candidate i: the legacy algorithms first, then the graph API's plans. */
static const char *use(int i)
{
    if (i >= g.n_candidates) {
        g.graph_i = i - g.n_candidates;
        return cnn_cudnn_graph_name(g.graph_i);
    }
    g.graph_i = -1;
    g.algo = g.candidates[i];
    return algo_name(g.algo);
}

static cnn_status forward(const void *x, const void *w, void *y, void *workspace, size_t workspace_bytes,
                          cudaStream_t st)
{
    if (!g.ready) return CNN_ERR_VARIANT;
    const float one = 1.0f, zero = 0.0f;
    static cudaStream_t current;
    if (st != current) { /* once per stream, not per call */
        CUDNN_CHECK(cudnnSetStream(g.handle, st));
        current = st;
    }
    if (g.graph_i >= 0) return cnn_cudnn_graph_execute(g.handle, g.graph_i, (void *)x, (void *)w, y, workspace,
                                                      workspace_bytes);
    CUDNN_CHECK(cudnnConvolutionForward(g.handle, &one, g.xd, x, g.wd, w, g.cd, g.algo, workspace, workspace_bytes,
                                        &zero, g.yd, y));
    return CNN_OK;
}

cnn_status cnn_cudnn_forward(const float *x, const float *w, float *y, void *workspace, size_t workspace_bytes,
                             cudaStream_t st)
{
    return forward(x, w, y, workspace, workspace_bytes, st);
}

/* cudnn_bf16: cuDNN's BF16 convolution on the BF16 x and w the row's prepare hook left in the
 * workspace (cnn_bf16_prepare, untimed), y back to float for the check (timed, as in ours_bf16_mma). */
cnn_status cnn_launch_cudnn_bf16(const cnn_launch_args *a, cudaStream_t st)
{
    const size_t lead = cnn_bf16_bytes(&a->s);
    if (a->workspace_bytes < lead) return CNN_ERR_SHAPE;
    void *x16, *w16, *y16;
    cnn_bf16_arrays(&a->s, a->workspace, &x16, &w16, &y16);
    cnn_status r = forward(x16, w16, y16, (char *)a->workspace + lead, a->workspace_bytes - lead, st);
    if (r == CNN_OK) cnn_bf16_out(a, y16, st);
    return r;
}

/* cudnn_*_nhwc: the convolution alone, NHWC x and KRSC w in, NHWC y out, all in the workspace. */
static cnn_status launch_nhwc(const cnn_launch_args *a, cnn_nhwc_type t, cudaStream_t st)
{
    const size_t lead = cnn_nhwc_bytes(&a->s, t);
    if (a->workspace_bytes < lead) return CNN_ERR_SHAPE;
    void *x, *w, *y;
    cnn_nhwc_arrays(&a->s, t, a->workspace, &x, &w, &y);
    return forward(x, w, y, (char *)a->workspace + lead, a->workspace_bytes - lead, st);
}
cnn_status cnn_launch_cudnn_bf16_nhwc(const cnn_launch_args *a, cudaStream_t st) { return launch_nhwc(a, CNN_NHWC_BF16, st); }
cnn_status cnn_launch_cudnn_fp16_nhwc(const cnn_launch_args *a, cudaStream_t st) { return launch_nhwc(a, CNN_NHWC_F16, st); }
cnn_status cnn_launch_cudnn_tf32_nhwc(const cnn_launch_args *a, cudaStream_t st) { return launch_nhwc(a, CNN_NHWC_F32, st); }

static void release(void)
{
    if (!g.handle) return;
    cnn_cudnn_graph_release();
    g.n_graph = 0, g.graph_i = -1;
    cudnnDestroyTensorDescriptor(g.xd);
    cudnnDestroyTensorDescriptor(g.yd);
    cudnnDestroyFilterDescriptor(g.wd);
    cudnnDestroyConvolutionDescriptor(g.cd);
    cudnnDestroy(g.handle);
    g.handle = NULL;
    g.ready = 0;
}

#else

int cnn_cudnn_available(void) { return 0; }
const char *cnn_cudnn_version(void) { return "not built (meson found no cuDNN)"; }
static cnn_status prepare_fp32(const cnn_shape *s, int heuristic, size_t *workspace_bytes)
{
    (void)s, (void)heuristic;
    *workspace_bytes = 0;
    return CNN_ERR_VARIANT;
}
#define prepare_tf32 prepare_fp32
#define prepare_bf16 prepare_fp32
#define prepare_bf16_nhwc prepare_fp32
#define prepare_fp16_nhwc prepare_fp32
#define prepare_tf32_nhwc prepare_fp32
cnn_status cnn_launch_cudnn_bf16(const cnn_launch_args *a, cudaStream_t st)
{
    (void)a, (void)st;
    return CNN_ERR_VARIANT;
}
cnn_status cnn_launch_cudnn_bf16_nhwc(const cnn_launch_args *a, cudaStream_t st) { return cnn_launch_cudnn_bf16(a, st); }
cnn_status cnn_launch_cudnn_fp16_nhwc(const cnn_launch_args *a, cudaStream_t st) { return cnn_launch_cudnn_bf16(a, st); }
cnn_status cnn_launch_cudnn_tf32_nhwc(const cnn_launch_args *a, cudaStream_t st) { return cnn_launch_cudnn_bf16(a, st); }
cnn_status cnn_cudnn_forward(const float *x, const float *w, float *y, void *workspace, size_t workspace_bytes,
                             cudaStream_t st)
{
    (void)x, (void)w, (void)y, (void)workspace, (void)workspace_bytes, (void)st;
    return CNN_ERR_VARIANT;
}
static void release(void) {}
static int candidates(void) { return 0; }
static const char *use(int i)
{
    (void)i;
    return "-";
}

#endif

const cnn_peer_ops cnn_cudnn_fp32 = {prepare_fp32, candidates, use, release};
const cnn_peer_ops cnn_cudnn_tf32 = {prepare_tf32, candidates, use, release};
const cnn_peer_ops cnn_cudnn_bf16 = {prepare_bf16, candidates, use, release};
const cnn_peer_ops cnn_cudnn_bf16_nhwc = {prepare_bf16_nhwc, candidates, use, release};
const cnn_peer_ops cnn_cudnn_fp16_nhwc = {prepare_fp16_nhwc, candidates, use, release};
const cnn_peer_ops cnn_cudnn_tf32_nhwc = {prepare_tf32_nhwc, candidates, use, release};

/* The peer row's launcher: the algorithm `use` selected. */
cnn_status cnn_launch_cudnn(const cnn_launch_args *a, cudaStream_t st)
{
    return cnn_cudnn_forward(a->x, a->w, a->y, a->workspace, a->workspace_bytes, st);
}
