/* cnn_cudnn_graph.c - Lab 04, part 2: the NHWC cuDNN peers' second door, cuDNN's graph (backend)
 * API, the one PyTorch and cudnn-frontend use. The legacy cudnnConvolutionForward offers eight
 * algorithms; the graph API offers every engine configuration cuDNN's heuristics rank for the
 * operation graph (one convolution: x NHWC, w KRSC, y NHWC, FP32 compute), and some of those engines
 * are not behind any legacy algorithm. cnn_cudnn.c adds each plan built here to the row's
 * candidates; the lab times them all in its own harness (graph capture, short timing, the fastest
 * kept) and checks each against the row's error bound, as it does the legacy algorithms.
 * Plans come from heuristics modes A (its first 10), B (4) and FALLBACK (2), duplicates removed;
 * `quick` (--quick, and the sanitizer runs): mode A's first two. Left out, and said so: plans whose workspace exceeds the cap, engines that down-convert
 * their inputs (FP32 run as FP16 or BF16) or reduce in reduced precision (the rows' bounds assume
 * FP32 sums). Built only with HAVE_CUDNN. */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "cnn_cudnn_graph.h"
#include "gl_check.h"

#ifdef HAVE_CUDNN

enum { UID_X = 1, UID_W = 2, UID_Y = 3 };

/* Describing the graph may be refused where the GPU or this cuDNN lacks the type (BF16 before
 * sm_80): then the graph API adds no plan and the row keeps what the legacy API found. */
static cudnnStatus_t g_described;
static void described(cudnnStatus_t st)
{
    if (g_described == CUDNN_STATUS_SUCCESS) g_described = st;
}

typedef struct {
    cudnnBackendDescriptor_t plan;
    int64_t workspace;
    uint64_t json_hash; /* the plan's JSON representation, hashed: the same engine and knobs from two modes */
    char name[32];
} graph_plan;

static struct {
    graph_plan plans[CNN_CUDNN_GRAPH_MAX_PLANS];
    int n;
    int left_out; /* plans refused: over the workspace cap, reduced-precision numerics, or not finalizable */
} gp;

static cudnnBackendDescriptor_t make(cudnnBackendDescriptorType_t type)
{
    cudnnBackendDescriptor_t d = NULL;
    CUDNN_CHECK(cudnnBackendCreateDescriptor(type, &d));
    return d;
}
static void set(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t a, cudnnBackendAttributeType_t t, int64_t n,
                const void *v)
{
    described(cudnnBackendSetAttribute(d, a, t, n, v));
}

/* A 4-D tensor of logical dims (n, c, h, w) stored channels-last (strides h w c, 1, w c, c). */
static cudnnBackendDescriptor_t channels_last_tensor(int64_t uid, cudnnDataType_t type, int64_t n, int64_t c,
                                                     int64_t h, int64_t w)
{
    cudnnBackendDescriptor_t d = make(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    const int64_t dims[4] = {n, c, h, w}, strides[4] = {h * w * c, 1, w * c, c}, align = 16;
    set(d, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &type);
    set(d, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dims);
    set(d, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, strides);
    set(d, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid);
    set(d, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align);
    described(cudnnBackendFinalize(d));
    return d;
}

/* The operation graph of one forward convolution (cross-correlation, stride 1, FP32 compute). */
static cudnnBackendDescriptor_t convolution_graph(cudnnHandle_t h, const cnn_shape *s, cudnnDataType_t type,
                                                  cudnnBackendDescriptor_t t[3])
{
    t[0] = channels_last_tensor(UID_X, type, s->N, s->C, s->H, s->W);
    t[1] = channels_last_tensor(UID_W, type, s->M, s->C, s->R, s->S);
    t[2] = channels_last_tensor(UID_Y, type, s->N, s->M, s->H, s->W);
    cudnnBackendDescriptor_t conv = make(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR);
    const cudnnDataType_t compute = CUDNN_DATA_FLOAT;
    const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    const int64_t dims = 2, ones[2] = {1, 1}, pad[2] = {s->pad_h, s->pad_w};
    set(conv, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &compute);
    set(conv, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode);
    set(conv, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &dims);
    set(conv, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, 2, ones);
    set(conv, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, ones);
    set(conv, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, pad);
    set(conv, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, 2, pad);
    described(cudnnBackendFinalize(conv));
    cudnnBackendDescriptor_t op = make(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR);
    const float alpha = 1.0f, beta = 0.0f;
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t[0]);
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t[1]);
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &t[2]);
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &conv);
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &alpha);
    set(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &beta);
    described(cudnnBackendFinalize(op));
    cudnnBackendDescriptor_t graph = make(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
    set(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &op);
    set(graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
    described(cudnnBackendFinalize(graph));
    cudnnBackendDestroyDescriptor(op);
    cudnnBackendDestroyDescriptor(conv);
    return graph;
}

/* An engine config's engine: its global index and whether its numerics fit the rows' bounds (no
 * down-converted inputs, no reduced-precision reduction). */
static int engine_fits(cudnnBackendDescriptor_t cfg, int64_t *index)
{
    cudnnBackendDescriptor_t eng = make(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
    int64_t n = 0;
    int fits = 1;
    *index = -1;
    if (cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &eng) ==
        CUDNN_STATUS_SUCCESS) {
        cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, index);
        cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
        int64_t k = 0;
        if (cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                     CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &k, notes) == CUDNN_STATUS_SUCCESS)
            for (int64_t i = 0; i < k; i++)
                if (notes[i] == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS ||
                    notes[i] == CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION)
                    fits = 0;
    }
    cudnnBackendDestroyDescriptor(eng);
    return fits;
}

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Engine config cfg as a plan, kept if it finalizes on this GPU, fits the cap and is new. */
static void add_plan(cudnnHandle_t h, cudnnBackendDescriptor_t cfg, size_t cap)
{
    int64_t index;
    if (!engine_fits(cfg, &index)) {
        gp.left_out++;
        return;
    }
    cudnnBackendDescriptor_t plan = make(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
    set(plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
    set(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &cfg);
    int64_t ws = 0, n = 0;
    if (cudnnBackendFinalize(plan) != CUDNN_STATUS_SUCCESS ||
        cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n, &ws) !=
            CUDNN_STATUS_SUCCESS ||
        ws < 0 || (size_t)ws > cap) {
        cudnnBackendDestroyDescriptor(plan);
        gp.left_out++;
        return;
    }
    static char json[1 << 16];
    uint64_t hash = (uint64_t)index;
    if (cudnnBackendGetAttribute(plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR,
                                 (int64_t)sizeof json - 1, &n, json) == CUDNN_STATUS_SUCCESS && n > 0) {
        json[n < (int64_t)sizeof json ? n : (int64_t)sizeof json - 1] = '\0';
        hash = fnv1a(json);
    }
    for (int i = 0; i < gp.n; i++)
        if (gp.plans[i].json_hash == hash) { /* the same engine and knobs, ranked by another mode */
            cudnnBackendDestroyDescriptor(plan);
            return;
        }
    graph_plan *p = &gp.plans[gp.n++];
    p->plan = plan, p->workspace = ws, p->json_hash = hash;
    snprintf(p->name, sizeof p->name, "graph_eng%lld_%d", (long long)index, gp.n);
}

/* Mode `mode`'s ranked engine configs of graph, up to `most` of them, as plans. */
static void plans_of_mode(cudnnHandle_t h, cudnnBackendDescriptor_t graph, cudnnBackendHeurMode_t mode, int most,
                          size_t cap)
{
    cudnnBackendDescriptor_t heur = make(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    set(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &graph);
    set(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode);
    int64_t count = 0;
    if (cudnnBackendFinalize(heur) != CUDNN_STATUS_SUCCESS ||
        cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count, NULL) !=
            CUDNN_STATUS_SUCCESS) {
        cudnnBackendDestroyDescriptor(heur);
        return; /* a mode with nothing for this graph */
    }
    if (count > most) count = most;
    cudnnBackendDescriptor_t cfgs[CNN_CUDNN_GRAPH_MAX_PLANS];
    for (int64_t i = 0; i < count; i++) cfgs[i] = make(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
    int64_t got = 0;
    if (cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count, &got,
                                 cfgs) == CUDNN_STATUS_SUCCESS)
        for (int64_t i = 0; i < got && i < count && gp.n < CNN_CUDNN_GRAPH_MAX_PLANS; i++) add_plan(h, cfgs[i], cap);
    for (int64_t i = 0; i < count; i++) cudnnBackendDestroyDescriptor(cfgs[i]);
    cudnnBackendDestroyDescriptor(heur);
}

int cnn_cudnn_graph_prepare(cudnnHandle_t h, const cnn_shape *s, cudnnDataType_t type, int quick, size_t cap,
                            size_t *workspace_bytes)
{
    cnn_cudnn_graph_release();
    cudnnBackendDescriptor_t t[3];
    g_described = CUDNN_STATUS_SUCCESS;
    cudnnBackendDescriptor_t graph = convolution_graph(h, s, type, t);
    *workspace_bytes = 0;
    if (g_described != CUDNN_STATUS_SUCCESS) { /* no graph for this type here: no plans */
        printf("note: cuDNN's graph API refused the convolution (%s): no graph-API plans\n",
               cudnnGetErrorString(g_described));
        cudnnBackendDestroyDescriptor(graph);
        for (int i = 0; i < 3; i++) cudnnBackendDestroyDescriptor(t[i]);
        return 0;
    }
    /* mode A's ranking first (its 8th config wins E3_N32 BF16 on the H200), then what B and FALLBACK add */
    plans_of_mode(h, graph, CUDNN_HEUR_MODE_A, quick ? 2 : 10, cap);
    if (!quick) {
        plans_of_mode(h, graph, CUDNN_HEUR_MODE_B, 4, cap);
        plans_of_mode(h, graph, CUDNN_HEUR_MODE_FALLBACK, 2, cap);
    }
    cudnnBackendDestroyDescriptor(graph);
    for (int i = 0; i < 3; i++) cudnnBackendDestroyDescriptor(t[i]);
    for (int i = 0; i < gp.n; i++)
        if ((size_t)gp.plans[i].workspace > *workspace_bytes) *workspace_bytes = (size_t)gp.plans[i].workspace;
    return gp.n;
}

int cnn_cudnn_graph_left_out(void) { return gp.left_out; }

const char *cnn_cudnn_graph_name(int i) { return i >= 0 && i < gp.n ? gp.plans[i].name : "?"; }

cnn_status cnn_cudnn_graph_execute(cudnnHandle_t h, int i, void *x, void *w, void *y, void *workspace,
                                   size_t workspace_bytes)
{
    if (i < 0 || i >= gp.n || (size_t)gp.plans[i].workspace > workspace_bytes) return CNN_ERR_VARIANT;
    cudnnBackendDescriptor_t pack = make(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    const int64_t uids[3] = {UID_X, UID_W, UID_Y};
    void *ptrs[3] = {x, w, y};
    CUDNN_CHECK(cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids));
    CUDNN_CHECK(cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs));
    CUDNN_CHECK(cudnnBackendSetAttribute(pack, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &workspace));
    CUDNN_CHECK(cudnnBackendFinalize(pack));
    CUDNN_CHECK(cudnnBackendExecute(h, gp.plans[i].plan, pack));
    cudnnBackendDestroyDescriptor(pack);
    return CNN_OK;
}

void cnn_cudnn_graph_release(void)
{
    for (int i = 0; i < gp.n; i++) cudnnBackendDestroyDescriptor(gp.plans[i].plan);
    gp.n = 0, gp.left_out = 0;
}

#endif
