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
    CNN_ERR_VARIANT,     /* no such variant, not built (cuDNN not found), or not for this shape/tile */
} cnn_status;

typedef struct {
    int N, C, H, W, M, R, S, pad_h, pad_w, stride_h, stride_w, dil_h, dil_w, groups;
} cnn_shape;

#ifdef __cplusplus
extern "C" {
#endif
const char *cnn_status_name(cnn_status s);
/* The parameters this lab's kernels support (stride 1, dilation 1, groups 1, odd R x S, padding
 * (R-1)/2): anything else is refused with a named status, never computed. */
cnn_status cnn_check(const cnn_shape *s);
double cnn_flops(const cnn_shape *s); /* 2 N M C R S Ho Wo */
/* The least traffic a layer can have: x, w and y each moved once (bytes). */
double cnn_min_bytes(const cnn_shape *s);

/* ---- the variant table (cnn_variants.c): one row per variant, the BabelStream way ----
 * A variant is a row: its name as the CSV spells it, its lesson, its precision class, a launcher
 * and a workspace size. The experiment (cnn_run.c) loops over the table; adding a variant is
 * adding a row (and its launcher in a .cu file). */

/* Precision classes: the inputs' type inside the products (accumulation is FP32 in all). Each
 * class has its own error bound (cnn_class_info.bound) and peak (per SM per clock). */
typedef enum { CNN_FP32, CNN_TF32, CNN_BF16, CNN_FP16, CNN_CLASSES } cnn_class;

/* The bound on |y - reference| of one output, given the layer and sum |x w| of that output. */
typedef double (*cnn_bound_fn)(const cnn_shape *s, double abs_sum);

typedef struct {
    const char *name;           /* "FP32", "TF32", ... */
    cnn_bound_fn bound;         /* NULL: not defined yet; variants of the class are then refused */
    const char *bound_formula;  /* printed with the results */
    double flop_per_sm_clock;   /* dense peak per SM per clock on sm_90 (0: unknown) */
    int peak_cc_major;          /* the compute capability the figure applies to (0: any) */
} cnn_class_info;
extern const cnn_class_info CNN_CLASS[CNN_CLASSES];
/* Dense peak FLOP per SM per clock of class c on a GPU of compute capability major.minor; NAN
 * where the figure is not known (the tensor-core figures are sm_90's). */
double cnn_peak_flop_per_sm_clock(cnn_class c, int cc_major, int cc_minor);

typedef enum {
    CNN_ROLE_SEED, /* the seed's kernels (split, fused) */
    CNN_ROLE_OURS, /* a rung of our ladder; the best FP32 rung is "ours" against cuDNN FP32 */
    CNN_ROLE_PEER  /* a library (cuDNN): its own algorithm search, cnn_peer_ops */
} cnn_role;

/* What every launcher gets: the tensors, the (checked) shape, the workspace, and `tile`: the
 * configuration the autotuner chose for a row with tiles > 1 (else 0). */
typedef struct {
    const float *x, *w;
    float *y;
    cnn_shape s;
    void *workspace;
    size_t workspace_bytes;
    int tile;
} cnn_launch_args;

typedef cnn_status (*cnn_launch_fn)(const cnn_launch_args *a, cudaStream_t st);
typedef size_t (*cnn_workspace_fn)(const cnn_shape *s, int tile); /* bytes; NULL in the row: none */
/* b rounded up to 256 bytes: where a workspace's next array starts (cudaMalloc's alignment). */
static inline size_t cnn_align256(size_t b) { return (b + 255) / 256 * 256; }

/* A library peer's algorithm search (cnn_cudnn.c): prepare for the shape (may run the library's
 * own search, outside any timing), then the caller times each candidate and keeps the fastest. */
typedef struct {
    cnn_status (*prepare)(const cnn_shape *s, int heuristic, size_t *workspace_bytes); /* CNN_ERR_VARIANT: absent */
    int (*candidates)(void);
    const char *(*use)(int i); /* select candidate i; returns its name */
    void (*release)(void);
} cnn_peer_ops;

/* The per-output magnitude sum a row's bound takes instead of sum |x w| (NULL in the row: sum |x w|
 * from the reference), computed on the CPU from the same x and w for the outputs in index (all
 * when index == NULL). Winograd's: cnn_winograd_abs_sums (cnn_bounds.c). */
typedef void (*cnn_magnitude_fn)(const float *x, const float *w, const cnn_shape *s, const size_t *index,
                                 size_t n_index, double *out);

/* A row's work once per configuration, outside every timed region and before the first check:
 * called after the workspace is allocated (and zeroed), with the configuration's FP32 x and w.
 * The BF16 rows round x and w to BF16 into the workspace here (cnn_bf16_prepare), so their timed
 * calls run the convolution on BF16 inputs already in memory. Every launch of the row must then get
 * this workspace (cnn_forward does not call it). */
typedef void (*cnn_prepare_fn)(const cnn_shape *s, const float *x, const float *w, void *workspace,
                               cudaStream_t st);

/* A row whose timed launch writes its own output (cuDNN NHWC: y channels-last in BF16, FP16 or
 * FP32, in the workspace) instead of the float NCHW y: `buffer` names it (poisoned before every
 * checked run) and `to_y` turns it into y for the check, after the run, outside the timing. */
typedef struct {
    void *(*buffer)(const cnn_shape *s, void *workspace, size_t *bytes);
    void (*to_y)(const cnn_launch_args *a, cudaStream_t st);
} cnn_own_output;

typedef struct {
    const char *name;   /* as the CSV spells it: NAME@CONFIG */
    const char *lesson; /* one line */
    cnn_class cls;
    cnn_role role;
    cnn_launch_fn launch;
    cnn_workspace_fn workspace;
    int (*supports)(const cnn_shape *s); /* NULL: every shape cnn_check accepts */
    cnn_bound_fn bound;                  /* NULL: the class's (Winograd rows bring their own) */
    int tiles;                           /* > 1: tile configurations, chosen per shape by the autotuner */
    const char *(*tile_name)(int tile);  /* names them (for the printout and the CSV) */
    const cnn_peer_ops *peer;            /* CNN_ROLE_PEER only */
    cnn_magnitude_fn magnitudes;         /* NULL: bound takes sum |x w|; else it takes these sums */
    cnn_prepare_fn prepare;              /* NULL: none; else run once per configuration, untimed */
    const cnn_own_output *own_output;    /* NULL: the launch writes y; else y comes from its own output */
} cnn_variant_row;

int cnn_variant_count(void);
const cnn_variant_row *cnn_variant_at(int i);
int cnn_variant_find(const char *name); /* index, or -1 */
/* The row's bound, else its class's; NULL when neither is defined. */
cnn_bound_fn cnn_variant_bound(const cnn_variant_row *v);

/* Enqueue variant v (an index into the table) on stream st, after cnn_check. `workspace`
 * (cnn_workspace_bytes) must be allocated outside any timed region. */
cnn_status cnn_forward(const float *x, const float *w, float *y, int N, int C, int H, int W, int M, int R, int S,
                       int pad_h, int pad_w, int stride_h, int stride_w, int dil_h, int dil_w, int groups, int v,
                       int tile, void *workspace, size_t workspace_bytes, cudaStream_t st);
size_t cnn_workspace_bytes(const cnn_shape *s, int v, int tile);

int cnn_sms(void); /* the SMs of this run (cnn_use_sms), else the device's */
void cnn_use_sms(int n); /* the run's --sms count (0: the whole device) */
double cnn_sm_clock_mhz(cudaStream_t st); /* the SM clock measured now (common/gl_clock.cuh), MHz */

/* The launchers of the table's rows (01_implicit_gemm.cu, 02_06_block_tiles.cu, cnn_cudnn.c). */
cnn_status cnn_launch_split(const cnn_launch_args *a, cudaStream_t st);
size_t cnn_workspace_split(const cnn_shape *s, int tile);
cnn_status cnn_launch_fused(const cnn_launch_args *a, cudaStream_t st);
cnn_status cnn_launch_ours1(const cnn_launch_args *a, cudaStream_t st);
cnn_status cnn_launch_cudnn(const cnn_launch_args *a, cudaStream_t st);
cnn_status cnn_launch_ours2(const cnn_launch_args *a, cudaStream_t st);
cnn_status cnn_launch_ours3(const cnn_launch_args *a, cudaStream_t st);
cnn_status cnn_launch_ours4(const cnn_launch_args *a, cudaStream_t st);
cnn_status cnn_launch_ours5(const cnn_launch_args *a, cudaStream_t st);
#define CNN_OURS6_TILES 5 /* the tile shapes ours6_tuned chooses from (02_06_block_tiles.cu) */
cnn_status cnn_launch_ours6(const cnn_launch_args *a, cudaStream_t st);
size_t cnn_workspace_ours6(const cnn_shape *s, int tile);
const char *cnn_tile_name_ours6(int tile);

/* cnn_cudnn.c: cuDNN FP32 with CUDNN_FMA_MATH (no TF32), as the peer row `cudnn` (cnn_cudnn_fp32).
 * prepare sets up the shape and collects every algorithm cudnnFindConvolutionForwardAlgorithm ran
 * with FMA math (workspace_bytes: the largest they need); the caller times each (use) and keeps
 * the fastest. With `heuristic` (--quick) it takes the first 3 FMA-math algorithms of cuDNN's own
 * ranking (cudnnGetConvolutionForwardAlgorithm_v7, which runs nothing) instead: Find runs every
 * algorithm, which under compute-sanitizer takes many minutes. */
#define CNN_CUDNN_MAX_CANDIDATES 8
extern const cnn_peer_ops cnn_cudnn_fp32;
int cnn_cudnn_available(void);
const char *cnn_cudnn_version(void);
cnn_status cnn_cudnn_forward(const float *x, const float *w, float *y, void *workspace, size_t workspace_bytes,
                             cudaStream_t st);

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
