/* cnn_reference.c - Lab 04, part 2: the definition of the convolution (a naive loop nest in double),
 * the parameter check, and names. */
#include <math.h>
#include "cnn.h"
#include "gl_parallel.h"

const char *cnn_status_name(cnn_status s)
{
    static const char *const names[] = {"ok", "bad shape", "unsupported stride (only 1)",
                                        "unsupported dilation (only 1)", "unsupported groups (only 1)",
                                        "unsupported even filter size (only odd R, S)",
                                        "unsupported padding (only (R-1)/2, (S-1)/2)",
                                        "variant not built or not for this shape"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "unknown status";
}

cnn_status cnn_check(const cnn_shape *s)
{
    if (s->N < 1 || s->C < 1 || s->H < 1 || s->W < 1 || s->M < 1 || s->R < 1 || s->S < 1) return CNN_ERR_SHAPE;
    if (s->stride_h != 1 || s->stride_w != 1) return CNN_ERR_STRIDE;
    if (s->dil_h != 1 || s->dil_w != 1) return CNN_ERR_DILATION;
    if (s->groups != 1) return CNN_ERR_GROUPS;
    if (s->R % 2 == 0 || s->S % 2 == 0) return CNN_ERR_EVEN_FILTER;
    if (s->pad_h != (s->R - 1) / 2 || s->pad_w != (s->S - 1) / 2) return CNN_ERR_PADDING;
    return CNN_OK;
}

double cnn_flops(const cnn_shape *s)
{
    return 2.0 * s->N * s->M * s->C * s->R * s->S * (double)s->H * s->W; /* Ho = H, Wo = W */
}

double cnn_min_bytes(const cnn_shape *s)
{
    return sizeof(float) * ((double)s->N * s->C * s->H * s->W + (double)s->M * s->C * s->R * s->S +
                            (double)s->N * s->M * s->H * s->W);
}

static void one_output(const float *x, const float *w, const cnn_shape *s, size_t o, double *out, double *abs_sum)
{
    size_t hw = (size_t)s->H * s->W;
    int ox = (int)(o % s->W), oy = (int)(o / s->W % s->H), m = (int)(o / hw % s->M), n = (int)(o / hw / s->M);
    double acc = 0, mag = 0;
    for (int c = 0; c < s->C; c++)
        for (int r = 0; r < s->R; r++) {
            int iy = oy + r - s->pad_h;
            if (iy < 0 || iy >= s->H) continue;
            for (int q = 0; q < s->S; q++) {
                int ix = ox + q - s->pad_w;
                if (ix < 0 || ix >= s->W) continue;
                double p = (double)x[(((size_t)n * s->C + c) * s->H + iy) * s->W + ix] *
                           (double)w[(((size_t)m * s->C + c) * s->R + r) * s->S + q];
                acc += p;
                mag += fabs(p);
            }
        }
    *out = acc;
    if (abs_sum) *abs_sum = mag;
}

/* Every output (or the listed ones) with its own sum in a fixed order; with all_cores the outputs
 * are shared among the threads (gl_parallel.h), each computed exactly as on one core. */
static void outputs(const float *x, const float *w, const cnn_shape *s, const size_t *index, size_t n_index,
                    double *out, double *abs_sum, int all_cores)
{
    size_t total = (size_t)s->N * s->M * s->H * s->W;
    size_t n = index ? n_index : total;
    (void)all_cores; /* read by the OpenMP clause only */
    GL_PARALLEL_FOR_WITH(if (all_cores))
    for (size_t i = 0; i < n; i++) one_output(x, w, s, index ? index[i] : i, &out[i], abs_sum ? &abs_sum[i] : NULL);
}

void cnn_reference(const float *x, const float *w, const cnn_shape *s, const size_t *index, size_t n_index,
                   double *out, double *abs_sum)
{
    outputs(x, w, s, index, n_index, out, abs_sum, 0);
}

void cnn_reference_all_cores(const float *x, const float *w, const cnn_shape *s, const size_t *index, size_t n_index,
                             double *out, double *abs_sum)
{
    outputs(x, w, s, index, n_index, out, abs_sum, 1);
}
