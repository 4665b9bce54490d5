/* halo_tiles.cuh - Lab 04, part 2: ours9_sliced_k's halo tiles (09_sliced_k.cu), for 3x3 layers whose
 * rows split into whole 16-pixel segments (W % 16 == 0, C % 4 == 0). A block's BN = 16 pixels are
 * x0 .. x0 + 15 of one output row, so the 3 taps fx of one (channel, fy) read the same input row
 * shifted by -1, 0, +1: the slice copies that row once as a strip of 18 floats (4 16-byte copies
 * and 2 4-byte halo copies) instead of 3 x 16 4-byte im2col copies, and the multiply reads the
 * three shifted windows from it. A slice is G whole channels (9 G k); warp group g takes channel g
 * of it. Per E1 block and slice of 8 channels: 144 strip copies + 576 16-byte weight copies
 * (the im2col path: 1,024 + 512 per 64 k). Include after sliced_k.cuh. */
#ifndef CNN_HALO_CUH
#define CNN_HALO_CUH
#define HK_BN 16            /* the pixel segment */
#define HK_HL (HK_BN + 8)   /* strip: j = x - x0 + 4; j 3 and 20 the halo, 4..19 the segment */

/* One stage: the weights a[m][k] of G channels (k = 9 c + 3 fy + fx, as they lie) and the strips
 * h[c][fy][j]. The row stride 9 G + 4 keeps rows 16-byte aligned, 2 rows 12 or 20 banks apart. */
template <int BM, int G> struct hk_stage {
    __align__(16) float a[BM][9 * G + 4];
    __align__(16) float h[G][3][HK_HL];
};

template <int BM, int G, int ST> struct hk_shape {
    static const int THREADS = G * (BM / 4) * (HK_BN / 4), STRIP_COPIES = G * 3 * (HK_BN / 4 + 2);
    static const size_t STAGES_BYTES = ST * sizeof(hk_stage<BM, G>), RED_BYTES = (size_t)G * BM * HK_BN * sizeof(float);
    static const size_t SMEM = STAGES_BYTES > RED_BYTES ? STAGES_BYTES : RED_BYTES;
    static_assert(ST >= 2 && SMEM <= 65536 && STRIP_COPIES <= THREADS, "64 KiB at most; one strip copy a thread");
    static const int MIN_BLOCKS = 768 / THREADS > 0 ? 768 / THREADS : 1;
};

/* Slice s (channels s G .. s G + G - 1) into one stage. Weights: 16-byte chunks (K = 9 C, C % 4 ==
 * 0: whole chunks, zeros past K). Strips: thread t < STRIP_COPIES copies part t % 6 of strip t / 6
 * (channel c, fy): parts 0..3 the 16-byte quarters, 4 the left halo x0 - 1, 5 the right x0 + 16;
 * zeros outside the image or past C. */
template <int BM, int G, int ST>
static __device__ __forceinline__ void hk_copy(hk_stage<BM, G> &st, const float *x, const float *w,
                                               const cnn_shape &d, int s, int m0, int xrow, int oy, int x0)
{
    const int THREADS = hk_shape<BM, G, ST>::THREADS, KS = 9 * G, K = 9 * d.C, t = threadIdx.x;
#pragma unroll
    for (int q = 0; q < (BM * KS / 4 + THREADS - 1) / THREADS; q++) {
        const int e = t + THREADS * q, row = e / (KS / 4), kc = (e % (KS / 4)) * 4;
        if (BM * KS / 4 % THREADS != 0 && e >= BM * KS / 4) break;
        const bool ok = m0 + row < d.M && s * KS + kc < K;
        copy_async<16>(&st.a[row][kc], ok ? w + (m0 + row) * K + s * KS + kc : w, ok);
    }
    if (t >= hk_shape<BM, G, ST>::STRIP_COPIES) return;
    const int strip = t / 6, part = t - strip * 6, c = strip / 3, fy = strip - c * 3, iy = oy + fy - 1;
    const bool row_ok = s * G + c < d.C && (unsigned)iy < (unsigned)d.H;
    const float *src = x + xrow + ((s * G + c) * d.H + iy) * d.W + x0; /* x (n, c, iy, x0) */
    float *dst = st.h[c][fy];
    if (part < 4) copy_async<16>(dst + 4 + 4 * part, row_ok ? src + 4 * part : x, row_ok);
    else if (part == 4) copy_async<4>(dst + 3, row_ok && x0 > 0 ? src - 1 : x, row_ok && x0 > 0);
    else copy_async<4>(dst + 4 + HK_BN, row_ok && x0 + HK_BN < d.W ? src + HK_BN : x, row_ok && x0 + HK_BN < d.W);
}

/* Group g's channel of one slice: its 9 weights of rows tm + BM / 4 i from 3 float4 reads at k 9 g
 * - O (O = 9 g % 4 = g % 4, a template so the picks are registers), and for each fy the window
 * j = 4 tn + 3 .. 4 tn + 8 of its strip (a float4 and 2 floats): pixel 4 tn + jj at tap fx is
 * window element jj + fx. 27 + 12 reads, 144 FFMA. */
template <int BM, int G, int O>
static __device__ __forceinline__ void hk_multiply(const hk_stage<BM, G> &st, int g, int tm, int tn, float (&acc)[4][4])
{
    float b[3][6];
#pragma unroll
    for (int fy = 0; fy < 3; fy++) {
        const float *h = &st.h[g][fy][4 * tn];
        const float4 mid = *(const float4 *)(h + 4);
        b[fy][0] = h[3], b[fy][1] = mid.x, b[fy][2] = mid.y, b[fy][3] = mid.z, b[fy][4] = mid.w, b[fy][5] = h[8];
    }
#pragma unroll
    for (int i = 0; i < 4; i++) {
        float a[12];
#pragma unroll
        for (int v = 0; v < 3; v++) {
            const float4 f = *(const float4 *)&st.a[tm + BM / 4 * i][9 * g - O + 4 * v];
            a[4 * v] = f.x, a[4 * v + 1] = f.y, a[4 * v + 2] = f.z, a[4 * v + 3] = f.w;
        }
#pragma unroll
        for (int fy = 0; fy < 3; fy++)
#pragma unroll
            for (int fx = 0; fx < 3; fx++)
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] = fmaf(a[O + 3 * fy + fx], b[fy][j + fx], acc[i][j]);
    }
}

/* Lesson (ours9, halo tiles): the same sliced-K block, its im2col copies cut 3x by copying each
 * input row once and reading its shifted windows. ST stages, one barrier per slice (as
 * sk_accumulate); then the G partial tiles summed in shared memory. */
template <int BM, int G, int ST>
static __global__ void __launch_bounds__(hk_shape<BM, G, ST>::THREADS, hk_shape<BM, G, ST>::MIN_BLOCKS)
    halo_k_gemm(const float *x, const float *w, float *y, cnn_shape d)
{
    const int THREADS = hk_shape<BM, G, ST>::THREADS, TG = THREADS / G, BN = HK_BN;
    extern __shared__ float4 hk_dynamic[];
    hk_stage<BM, G> *stage = (hk_stage<BM, G> *)hk_dynamic;
    const int t = threadIdx.x, g = t / TG, tm = (t % TG) / (BN / 4), tn = t % (BN / 4);
    const int m0 = blockIdx.y * BM, p0 = blockIdx.x * BN, slices = (d.C + G - 1) / G, hw = d.H * d.W;
    const int n = p0 / hw, q = p0 - n * hw, oy = q / d.W, x0 = q - oy * d.W, xrow = n * d.C * hw;
    float acc[4][4] = {};
#pragma unroll
    for (int j = 0; j < ST - 1; j++) {
        if (j < slices) hk_copy<BM, G, ST>(stage[j], x, w, d, j, m0, xrow, oy, x0);
        copy_commit();
    }
    for (int s = 0; s < slices; s++) {
        copy_wait<ST - 2>(); /* slice s has landed */
        __syncthreads();     /* ... for all; all are done with slice s - 1's stage */
        if (s + ST - 1 < slices) hk_copy<BM, G, ST>(stage[(s + ST - 1) % ST], x, w, d, s + ST - 1, m0, xrow, oy, x0);
        copy_commit();
        const hk_stage<BM, G> &cur = stage[s % ST];
        switch (g & 3) { /* O = 9 g % 4, uniform in a group (whole warps) */
        case 0: hk_multiply<BM, G, 0>(cur, g, tm, tn, acc); break;
        case 1: hk_multiply<BM, G, 1>(cur, g, tm, tn, acc); break;
        case 2: hk_multiply<BM, G, 2>(cur, g, tm, tn, acc); break;
        default: hk_multiply<BM, G, 3>(cur, g, tm, tn, acc); break;
        }
    }
    __syncthreads();
    sk_finish<BM, HK_BN, G, THREADS>((float *)hk_dynamic, y, d, m0, p0, g, tm, tn, acc); /* red over the stages */
}

/* The layers the halo tiles fit; the others run the im2col tile 32x16_g16_s4 in their place. */
static inline bool hk_fits(const cnn_shape *s) { return s->R == 3 && s->S == 3 && s->W % HK_BN == 0 && s->C % 4 == 0; }

#endif
