/* cnn_bounds.c - Lab 04, part 2: the error bound of each precision class, derived, never fitted.
 *
 * Notation: u the unit roundoff of a format (round to nearest: 2^-p for a p-bit significand; any
 * rounding direction: 2^(1-p)), gamma_k(u) = k u / (1 - k u) (Higham, Accuracy and Stability of
 * Numerical Algorithms, 2nd ed., Lemma 3.1): a value that passes through at most k roundings, each
 * with relative error <= u, is off by at most gamma_k |value|. A sum of terms each of which went
 * through at most k roundings is off by at most gamma_k times the sum of the terms' magnitudes.
 *
 * FP32 (direct): 16 FLT_EPSILON sqrt(K) sum |x w|, the lab's existing bound (float sums in any
 * order; sqrt(K) rather than K: rounding errors of random data grow like a random walk).
 *
 * Winograd F(2x2, 3x3), FP32 (01_wino2x2.cu). Expand y = sum_c A^T [(G g G^T) .* (B^T d B)] A
 * into single terms: each is (a product of transform entries) x g_rs x d_ij. The entries are 0,
 * +-1 and +-1/2: their products are exact in binary, so every rounding is one of the additions or
 * the products along the term's path through the kernels:
 *   filter transform G g G^T: t = G g has sums of up to 3 terms (2 roundings; the 1/2 is exact),
 *     then t G^T again (2 more): <= 4
 *   input transform B^T d B: each stage adds two values (1 rounding each): <= 2
 *   the product U V and the sum over C channels (fmaf, one rounding each): <= C
 *   output transform A^T m A: sums of 3 terms per stage, two stages: <= 4
 * so k = C + 10 and |y - ref| <= gamma_(C+10)(2^-24) * W, where W is the sum of the magnitudes of
 * the expanded terms: W = sum_c |A^T| (|G| |g| |G^T| .* |B^T| |d| |B|) |A| at the output's place
 * (cnn_winograd_abs_sums, computed from the same x and w as the reference). W is not a constant
 * times sum |x w|: the expansion has terms g_rs d_ij that cancel in exact arithmetic but not in
 * their magnitudes (which is where Winograd's extra error comes from), so no constant factor on the
 * direct bound holds output by output; W is computed, per output, instead.
 *
 * ours_wino2x2_big (02_wino2x2_big.cu) computes the same transforms and the same C-channel sums,
 * but the output transform differently: each output adds its 9 nonzero terms of A^T m A one product
 * at a time, out = fmaf(k, m_xi, out) with k = 0 or +-1 (k m_xi exact, one rounding per addition;
 * k = 0 leaves out unchanged), and with the 16 xi split among blocks the partial outputs are added
 * into a zeroed y by atomicAdd. Any order of summing 9 terms (plus exact zeros) puts each term
 * through at most 8 additions, so the output transform's count is 8 instead of 4: k = C + 14, and
 * |y - ref| <= gamma_(C+14)(2^-24) * W with the same W.
 *
 * Winograd F(4x4, 3x3), FP32 (ours_wino4x4, 03_wino4x4.cu), the same expansion with 6x6 tiles,
 * 36 xi and its matrices (in 03_wino4x4.cu). B^T's entries 4, 5, 2, 1 and A^T's 1, 2, 4, 8 are
 * exact; G's 1/6, 1/12, 1/24 are not. The kernel uses one rounded coefficient c6 = fl(1/6) =
 * (1/6)(1 + e), |e| <= 2^-24, with 1/12 = c6 / 2 and 1/24 = c6 / 4 (exact scalings), so a rounded
 * coefficient enters a term as one more factor (1 + e): it counts as a rounding. Per term:
 *   filter transform, per stage: (a + b) + c (2 roundings), times c6 (1 for the coefficient, 1 for
 *     the product), two stages: <= 8
 *   input transform, per stage: fmaf(-5, d2, 4 d0) + d4 and the like (<= 2), two stages: <= 4
 *   the product U V and the sum over C channels (fmaf; padded channels are exact zeros): <= C
 *   output transform, first stage: H[i][b] = sum_j A^T[b][j] M[i][j], at most 5 nonzero terms,
 *     folded into the GEMM after each xi (fmaf with an exact power-of-two coefficient; a zero
 *     coefficient adds an exact 0), the row's parts (1, 2 or 3 blocks) added in wg4_output: a sum of
 *     at most 5 terms in any order and grouping, <= 4 roundings; second stage in wg4_output (sums
 *     of at most 5 terms: <= 4). ours_wino4x4_nonfused (04_wino4x4_nonfused.cu) computes the same sums another
 *     way: the GEMM's one FMA chain over C per product (<= C), then both stages in wg4n_output
 *     with output6 (sums of at most 5 terms, each term through at most 3 roundings: <= 4 per
 *     stage), the same transforms and coefficients: the same k and the same bound cover it
 * so k = C + 20 and |y - ref| <= gamma_(C+20)(2^-24) * W4, W4 = sum_c |A^T| (|G| |g| |G^T| .* |B^T|
 * |d| |B|) |A| at the output's place in its 4x4 tile, with the exact |coefficients| (products of
 * the (1 + theta) factors of the two operands and of the sums: Higham's Lemma 3.3). W4 itself is
 * computed in double (cnn_winograd4_abs_sums): every one of its 36 C terms passes through at most
 * 36 C + 32 double roundings (the coefficients 1/6, 1/12, 1/24, the transforms' sums and products,
 * the sum over xi and c), so the computed W4' >= W4 (1 - gamma_(36C+32)(2^-53)), and the bound uses
 * W4' / (1 - gamma_(36C+32)(2^-53)). FMA contraction by the compiler only removes roundings. A
 * subnormal result errs by at most 2^-150 absolute per rounding: fewer than 10^6 roundings per
 * output stay far below the + 1e-30 every bound carries.
 *
 * Tensor cores (01_mma_sync.cu). x and w are rounded to the input format: x' = x (1 + a), w' = w (1 + b),
 * |a|, |b| <= u_in, so |x'w' - xw| <= (2 u_in + u_in^2) |x w|. The product x'w' is exact in the
 * tensor core (11 + 11 or 8 + 8 significant bits fit FP32's 24). The K products are summed in FP32
 * inside the tensor core and in its FP32 accumulator; tensor cores add with truncation, not round
 * to nearest (Fasi, Higham, Mikaitis, Pranesh, "Numerical behavior of NVIDIA tensor cores", PeerJ
 * CS 2021), so each addition errs by at most 2^-23 relative: gamma_K(2^-23) sum |x'w'|, and
 * sum |x'w'| <= (1 + u_in)^2 sum |x w|. Together:
 *   |y - ref| <= e = [(2 u_in + u_in^2) + gamma_K(2^-23) (1 + u_in)^2] sum |x w|
 *   TF32, rounded to nearest (cvt.rna, ours): u_in = 2^-11
 *   TF32, any rounding (cuDNN does not document whether it rounds or truncates FP32 to TF32;
 *         tensor cores given FP32 operands ignore the low 13 bits, i.e. truncate): u_in = 2^-10
 *   BF16 (x, w converted to nearest by cnn_to_bf16): u_in = 2^-8, and y is rounded to BF16 to
 *         nearest (u_out = 2^-8) from a value within e of ref: |y - ref| <= e + u_out (|ref| + e),
 *         and |ref| <= sum |x w| (the bound functions see sum |x w| only).
 *   FP16 (x, w and y rounded to nearest, FP32 accumulation): u_in = u_out = 2^-11 as for BF16, and
 *         FP16's narrow exponent adds absolute terms: an input below 2^-14 is subnormal, rounded to
 *         within 2^-25 absolute, so with |x|, |w| <= 1 (the lab's data) each product errs by at most
 *         2 x 2^-25 + 2^-50 more: K 2^-23 covers the K products; y rounds to within 2^-25 absolute
 *         below 2^-14. No output may reach FP16's range, 65504: where sum |x w| + e does, the bound
 *         is NAN and the check fails (never a silent overflow).
 * Every bound gets + 1e-30 (an output whose terms are all zero must be exactly zero). */
#include <math.h>
#include "winograd.h"
#include "gl_parallel.h"

static double gamma_k(double k, double u) { return k * u / (1.0 - k * u); }

static double tensor_core_bound(double u_in, const cnn_shape *s, double abs_sum)
{
    const double K = (double)s->C * s->R * s->S;
    return ((2.0 * u_in + u_in * u_in) + gamma_k(K, 0x1p-23) * (1.0 + u_in) * (1.0 + u_in)) * abs_sum + 1e-30;
}

double cnn_bound_winograd(const cnn_shape *s, double wino_sum)
{
    return gamma_k(s->C + 10.0, 0x1p-24) * wino_sum + 1e-30;
}

double cnn_bound_winograd_acc(const cnn_shape *s, double wino_sum)
{
    return gamma_k(s->C + 14.0, 0x1p-24) * wino_sum + 1e-30;
}

double cnn_bound_winograd4(const cnn_shape *s, double wino4_sum)
{
    const double w4 = wino4_sum / (1.0 - gamma_k(36.0 * s->C + 32.0, 0x1p-53));
    return gamma_k(s->C + 20.0, 0x1p-24) * w4 + 1e-30;
}

double cnn_bound_tf32(const cnn_shape *s, double abs_sum) { return tensor_core_bound(0x1p-11, s, abs_sum); }

double cnn_bound_tf32_any(const cnn_shape *s, double abs_sum) { return tensor_core_bound(0x1p-10, s, abs_sum); }

/* |ref| <= sum |x w|: the output rounding's term u_out (|ref| + e) is bounded by u_out (sum |x w| + e). */
double cnn_bound_bf16(const cnn_shape *s, double abs_sum)
{
    const double e = tensor_core_bound(0x1p-8, s, abs_sum);
    return e + 0x1p-8 * (abs_sum + e);
}

double cnn_bound_fp16(const cnn_shape *s, double abs_sum)
{
    const double K = (double)s->C * s->R * s->S;
    const double e = tensor_core_bound(0x1p-11, s, abs_sum) + K * 0x1p-23;
    if (abs_sum + e >= 65504.0) return NAN;
    return e + 0x1p-11 * (abs_sum + e) + 0x1p-25;
}

/* |G| |g| |G^T| for one 3x3 filter (|G| = [1 0 0; 1/2 1/2 1/2; 1/2 1/2 1/2; 0 0 1]). */
static void abs_filter_transform(const float *g, double u[4][4])
{
    double t[4][3];
    for (int s = 0; s < 3; s++) {
        const double a = fabs(g[s]), b = fabs(g[3 + s]), c = fabs(g[6 + s]);
        t[0][s] = a;
        t[1][s] = t[2][s] = 0.5 * (a + b + c);
        t[3][s] = c;
    }
    for (int i = 0; i < 4; i++) {
        u[i][0] = t[i][0];
        u[i][1] = u[i][2] = 0.5 * (t[i][0] + t[i][1] + t[i][2]);
        u[i][3] = t[i][2];
    }
}

/* |B^T| |d| |B| for one 4x4 input tile (|B^T| = [1 0 1 0; 0 1 1 0; 0 1 1 0; 0 1 0 1]). */
static void abs_input_transform(const double d[4][4], double v[4][4])
{
    double b[4][4];
    for (int j = 0; j < 4; j++) {
        b[0][j] = d[0][j] + d[2][j];
        b[1][j] = b[2][j] = d[1][j] + d[2][j];
        b[3][j] = d[1][j] + d[3][j];
    }
    for (int i = 0; i < 4; i++) {
        v[i][0] = b[i][0] + b[i][2];
        v[i][1] = v[i][2] = b[i][1] + b[i][2];
        v[i][3] = b[i][1] + b[i][3];
    }
}

/* |d| for the k x k input tile of image n, channel c from (y0, x0) on (zero outside the image). */
static void abs_input_tile(const float *x, const cnn_shape *s, int n, int c, int y0, int x0, int k, double *d)
{
    const float *xc = x + ((size_t)n * s->C + c) * s->H * s->W;
    for (int i = 0; i < k; i++)
        for (int j = 0; j < k; j++) {
            const int iy = y0 + i, ix = x0 + j;
            d[i * k + j] = iy >= 0 && iy < s->H && ix >= 0 && ix < s->W ? fabs(xc[(size_t)iy * s->W + ix]) : 0.0;
        }
}

/* A Winograd algorithm's magnitudes: e x e output tiles from k x k input tiles, |A^T| (e x k), and
 * transforms(|g|, |d|) -> (|G| |g| |G^T|, |B^T| |d| |B|) (k x k each). */
typedef struct {
    int e, k;
    const double *AT;
    void (*transforms)(const float *g, const double *d, double *u, double *v);
} wino_kind;

/* The magnitude sum of output o: sum over c and the k x k products of |A^T| (U .* V) |A| at o's place. */
static double wino_magnitude(const wino_kind *K, const float *x, const float *w, const cnn_shape *s, size_t o)
{
    const size_t hw = (size_t)s->H * s->W;
    const int ox = (int)(o % s->W), oy = (int)(o / s->W % s->H), m = (int)(o / hw % s->M), n = (int)(o / hw / s->M);
    const int y0 = oy / K->e * K->e - 1, x0 = ox / K->e * K->e - 1, a = oy % K->e, b = ox % K->e, k = K->k;
    double sum = 0;
    for (int c = 0; c < s->C; c++) {
        double d[36], u[36], v[36];
        abs_input_tile(x, s, n, c, y0, x0, k, d);
        K->transforms(w + ((size_t)m * s->C + c) * 9, d, u, v);
        for (int i = 0; i < k; i++)
            for (int j = 0; j < k; j++) sum += K->AT[a * k + i] * K->AT[b * k + j] * u[i * k + j] * v[i * k + j];
    }
    return sum;
}

/* The magnitude sums of the outputs in index (all when index == NULL), on all cores. */
static void all_sums(const wino_kind *K, const float *x, const float *w, const cnn_shape *s, const size_t *index,
                     size_t n_index, double *out)
{
    const size_t n = index ? n_index : (size_t)s->N * s->M * s->H * s->W;
    GL_PARALLEL_FOR
    for (size_t i = 0; i < n; i++) out[i] = wino_magnitude(K, x, w, s, index ? index[i] : i);
}

static void wino2_transforms(const float *g, const double *d, double *u, double *v)
{
    abs_filter_transform(g, (double(*)[4])u);
    abs_input_transform((const double(*)[4])d, (double(*)[4])v);
}

void cnn_winograd_abs_sums(const float *x, const float *w, const cnn_shape *s, const size_t *index, size_t n_index,
                           double *out)
{
    static const double AT[2 * 4] = {1, 1, 1, 0, 0, 1, 1, 1}; /* |A^T| */
    static const wino_kind F2 = {2, 4, AT, wino2_transforms};
    all_sums(&F2, x, w, s, index, n_index, out);
}

/* out = |L| src |L|^T for a 6 x k matrix |L| (row-major) and a k x k src: one transform's magnitudes. */
static void abs_sandwich6(const double *L, int k, const double *src, double *out)
{
    double t[6][6];
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < k; j++) {
            t[i][j] = 0;
            for (int p = 0; p < k; p++) t[i][j] += L[i * k + p] * src[p * k + j];
        }
    for (int i = 0; i < 6; i++)
        for (int j = 0; j < 6; j++) {
            out[i * 6 + j] = 0;
            for (int p = 0; p < k; p++) out[i * 6 + j] += t[i][p] * L[j * k + p];
        }
}

static void wino4_transforms(const float *g, const double *d, double *u, double *v)
{
    static const double G[6 * 3] = {1 / 4., 0, 0, 1 / 6., 1 / 6., 1 / 6., 1 / 6., 1 / 6., 1 / 6.,
                                    1 / 24., 1 / 12., 1 / 6., 1 / 24., 1 / 12., 1 / 6., 0, 0, 1}; /* |G| */
    static const double BT[6 * 6] = {4, 0, 5, 0, 1, 0, 0, 4, 4, 1, 1, 0, 0, 4, 4, 1, 1, 0,
                                     0, 2, 1, 2, 1, 0, 0, 2, 1, 2, 1, 0, 0, 4, 0, 5, 0, 1}; /* |B^T| */
    double ag[9];
    for (int k = 0; k < 9; k++) ag[k] = fabs(g[k]);
    abs_sandwich6(G, 3, ag, u);
    abs_sandwich6(BT, 6, d, v);
}

void cnn_winograd4_abs_sums(const float *x, const float *w, const cnn_shape *s, const size_t *index, size_t n_index,
                            double *out)
{
    static const double AT[4 * 6] = {1, 1, 1, 1, 1, 0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 4, 4, 0, 0, 1, 1, 8, 8, 1}; /* |A^T| */
    static const wino_kind F4 = {4, 6, AT, wino4_transforms};
    all_sums(&F4, x, w, s, index, n_index, out);
}
