/* sliced_k.cuh - Lab 04, part 2: the pieces of ours9_sliced_k (09_sliced_k.cu) that
 * ours11_cluster_k (11_cluster_k.cu) shares: the 64-deep reduction slice in shared memory, its
 * im2col table (a ring of ST slots, filled without divisions), the copies, the 4 x 4 per thread multiply of a warp group's share of a slice, the
 * loop over a range of slices, and the partial tiles' sum and store. Include after cp_async_pipe.cuh. */
#ifndef CNN_SLICED_CUH
#define CNN_SLICED_CUH
#define SK 64                  /* the reduction slice */
#define SK_LD (SK + 4)         /* As row stride: 68 floats, rows 16-byte aligned, 4 banks apart */
#define SK_NO_TAP (-(1 << 20)) /* a dy outside every image: the tap reads as zero */

/* Shared memory: ST stages (2..4) of As[m][k] (as the weights lie) and Bs[k][p] (im2col), reused
 * at the end as the G partial tiles red[g][m][p]; the im2col tables of ST slices (slot slice % ST). */
template <int BM, int BN> struct sk_stage {
    __align__(16) float a[BM][SK_LD];
    __align__(16) float b[SK][BN];
};
template <int ST = 2> struct sk_ktab {
    int off[ST][SK], dy[ST][SK], dx[ST][SK];
};

/* Thread t < SK's walk over table entry t of successive slices: k = slice SK + t as (c, fy, fx),
 * two divisions once, then each next slice by adding SK = dc R S + dfy S + dfx with carries (no
 * division in the slice loop). put: k -> x offset c H W + dy W + dx and (dy, dx); dy = SK_NO_TAP
 * past K. */
struct sk_walker {
    int k, c, fy, fx, dc, dfy, dfx;
    __device__ sk_walker(const cnn_shape &d, int slice)
    {
        const int rs = d.R * d.S, r0 = SK % rs;
        k = slice * SK + (int)threadIdx.x, c = k / rs, fy = (k - c * rs) / d.S, fx = k - c * rs - fy * d.S;
        dc = SK / rs, dfy = r0 / d.S, dfx = r0 - dfy * d.S;
    }
    template <int ST> __device__ void put(sk_ktab<ST> &kt, const cnn_shape &d, int slot) const
    {
        const int t = threadIdx.x, dy = fy - d.pad_h, dx = fx - d.pad_w;
        kt.off[slot][t] = c * d.H * d.W + dy * d.W + dx;
        kt.dy[slot][t] = k < d.C * d.R * d.S ? dy : SK_NO_TAP;
        kt.dx[slot][t] = dx;
    }
    __device__ void next(const cnn_shape &d)
    {
        k += SK, c += dc, fy += dfy, fx += dfx;
        if (fx >= d.S) fx -= d.S, fy++;
        if (fy >= d.R) fy -= d.R, c++;
    }
};

/* One slice into one stage (copy_w, copy_x: the weights need no im2col table). Weights: 16-byte
 * chunks (row e / 16, k (e % 16) 4) when K % 4 == 0, else single floats; 16 lanes read one row's
 * 256 bytes. im2col: thread t always copies pixel column t % BN (VEC_X: pixels (t % (BN / 4)) 4 ..
 * + 3), base/oy/ox decoded once per block. */
template <int BM, int BN, int THREADS, bool VEC_X> struct sk_loader {
    static_assert(THREADS >= SK && THREADS % BN == 0 && (BM * SK) % THREADS == 0 && (SK * BN) % THREADS == 0,
                  "whole rounds of 4-byte copies, a fixed pixel column per thread, one table entry per thread");
    static __host__ __device__ constexpr int STEPS(int n) { return (n + THREADS - 1) / THREADS; }
    int base, oy, ox; /* x offset of (n, 0, oy, ox); oy = SK_NO_TAP past the last pixel */
    __device__ sk_loader(const cnn_shape &d, int p0)
    {
        const int hw = d.H * d.W, P = d.N * hw, t = threadIdx.x;
        const int p = p0 + (VEC_X ? (t % (BN / 4)) * 4 : t % BN), n = p / hw, q = p - n * hw;
        base = p < P ? n * d.C * hw + q : 0;
        oy = p < P ? q / d.W : SK_NO_TAP;
        ox = q % d.W;
    }
    __device__ void copy_w(sk_stage<BM, BN> &st, const cnn_shape &d, const float *w, int slice, int m0,
                           bool vec_w) const
    {
        const int t = threadIdx.x, K = d.C * d.R * d.S, k0 = slice * SK;
        if (vec_w) {
#pragma unroll
            for (int q = 0; q < STEPS(BM * SK / 4); q++) {
                const int e = t + THREADS * q, row = e / (SK / 4), kc = (e % (SK / 4)) * 4;
                if (BM * SK / 4 % THREADS != 0 && e >= BM * SK / 4) break;
                const bool ok = m0 + row < d.M && k0 + kc < K; /* K % 4 == 0: whole chunks */
                copy_async<16>(&st.a[row][kc], ok ? w + (m0 + row) * K + k0 + kc : w, ok);
            }
        } else {
#pragma unroll 4
            for (int q = 0; q < STEPS(BM * SK); q++) {
                const int e = t + THREADS * q, row = e / SK, kc = e % SK;
                const bool ok = m0 + row < d.M && k0 + kc < K;
                copy_async<4>(&st.a[row][kc], ok ? w + (m0 + row) * K + k0 + kc : w, ok);
            }
        }
    }
    template <int ST>
    __device__ void copy_x(sk_stage<BM, BN> &st, const sk_ktab<ST> &kt, const float *x, int slice, int H, int W) const
    {
        const int t = threadIdx.x, slot = slice % ST;
        if (VEC_X) { /* 1x1: every tap has dy 0, off c H W; SK_NO_TAP past K */
#pragma unroll
            for (int q = 0; q < STEPS(SK * BN / 4); q++) {
                const int kr = t / (BN / 4) + THREADS / (BN / 4) * q;
                if (SK * BN / 4 % THREADS != 0 && kr >= SK) break;
                const bool ok = oy >= 0 && kt.dy[slot][kr] == 0;
                copy_async<16>(&st.b[kr][(t % (BN / 4)) * 4], ok ? x + base + kt.off[slot][kr] : x, ok);
            }
        } else {
#pragma unroll 4
            for (int q = 0; q < STEPS(SK * BN); q++) {
                const int kr = t / BN + THREADS / BN * q;
                const bool ok =
                    (unsigned)(oy + kt.dy[slot][kr]) < (unsigned)H && (unsigned)(ox + kt.dx[slot][kr]) < (unsigned)W;
                copy_async<4>(&st.b[kr][t % BN], ok ? x + base + kt.off[slot][kr] : x, ok);
            }
        }
    }
};

/* Group g's share of one slice: k = g SK / G .. + SK / G. The thread owns rows tm + BM / 4 i (i =
 * 0..3) and pixels tn 4 .. + 3. As is read as float4 along k: a quarter-warp's 8 lanes share tm
 * (BN >= 32: one broadcast) or span 2 rows 68 floats apart (BN 16: banks 4 apart, no conflict);
 * Bs as float4 along p: 8 lanes read 128 consecutive bytes. Per 4 k: 4 + 4 float4 reads, 64 FFMA. */
template <int BM, int BN, int G>
static __device__ __forceinline__ void sk_multiply(const sk_stage<BM, BN> &st, int g, int tm, int tn,
                                                   float (&acc)[4][4])
{
#pragma unroll
    for (int q = 0; q < SK / G; q += 4) {
        const int kq = g * (SK / G) + q;
        float4 a[4];
#pragma unroll
        for (int i = 0; i < 4; i++) a[i] = *(const float4 *)&st.a[tm + BM / 4 * i][kq];
#pragma unroll
        for (int kk = 0; kk < 4; kk++) {
            const float4 b = *(const float4 *)&st.b[kq + kk][tn * 4];
            const float bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
            for (int i = 0; i < 4; i++) {
                const float av = kk == 0 ? a[i].x : kk == 1 ? a[i].y : kk == 2 ? a[i].z : a[i].w;
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] = fmaf(av, bv[j], acc[i][j]);
            }
        }
    }
}
/* The partial tile of warp group g into red[g][BM][BN] (shared memory). */
template <int BM, int BN>
static __device__ __forceinline__ void sk_write_partial(float *red, int g, int tm, int tn, const float (&acc)[4][4])
{
#pragma unroll
    for (int i = 0; i < 4; i++)
        *(float4 *)&red[(g * BM + tm + BM / 4 * i) * BN + tn * 4] =
            make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
}

/* The G partial tiles' sum at (row, col .. col + 3): red[0] + red[1] + ... in that order. */
template <int BM, int BN, int G>
static __device__ __forceinline__ float4 sk_sum_groups(const float *red, int row, int col)
{
    float4 v = *(const float4 *)&red[row * BN + col];
#pragma unroll
    for (int g = 1; g < G; g++) {
        const float4 u = *(const float4 *)&red[(g * BM + row) * BN + col];
        v.x += u.x, v.y += u.y, v.z += u.z, v.w += u.w;
    }
    return v;
}

/* 4 consecutive pixels p .. p + 3 of output row m into NCHW y: one float4 when H W % 4 == 0 (then
 * P % 4 == 0 and the 4 lie in one image, 16-byte aligned), else one float at a time up to P. */
static __device__ __forceinline__ void sk_store4(float *y, const cnn_shape &d, int m, int p, float4 v)
{
    const int hw = d.H * d.W, P = d.N * hw;
    if (m >= d.M || p >= P) return;
    if (hw % 4 == 0) {
        const int n = p / hw;
        *(float4 *)&y[(n * d.M + m) * hw + p - n * hw] = v;
        return;
    }
    const float vv[4] = {v.x, v.y, v.z, v.w};
    for (int j = 0; j < 4 && p + j < P; j++) {
        const int n = (p + j) / hw;
        y[(n * d.M + m) * hw + p + j - n * hw] = vv[j];
    }
}

/* The block's end: the G partial tiles into red (shared memory over the free stages), then each
 * float4 of the tile summed over them and stored. */
template <int BM, int BN, int G, int THREADS>
static __device__ __forceinline__ void sk_finish(float *red, float *y, const cnn_shape &d, int m0, int p0, int g, int tm,
                                                 int tn, const float (&acc)[4][4])
{
    sk_write_partial<BM, BN>(red, g, tm, tn, acc);
    __syncthreads();
    for (int e = threadIdx.x; e < BM * BN / 4; e += THREADS) {
        const int row = e / (BN / 4), col = (e % (BN / 4)) * 4;
        sk_store4(y, d, m0 + row, p0 + col, sk_sum_groups<BM, BN, G>(red, row, col));
    }
}

template <int BM, int BN, int G, int ST = 2> struct sk_shape {
    static const int THREADS = G * (BM / 4) * (BN / 4);
    static const size_t STAGES_BYTES = ST * sizeof(sk_stage<BM, BN>), RED_BYTES = (size_t)G * BM * BN * sizeof(float);
    static const size_t SMEM = STAGES_BYTES > RED_BYTES ? STAGES_BYTES : RED_BYTES;
    static_assert(ST >= 2 && SMEM + sizeof(sk_ktab<ST>) <= 65536,
                  "sm_75 lets a block opt in to 64 KiB of shared memory at most");
    /* 768 threads per SM at least: up to 80 registers a thread (64 spill on sm_90: the 16
     * accumulators, 16 floats of A, 4 of B and the copy addresses) */
    static const int MIN_BLOCKS = 768 / THREADS > 0 ? 768 / THREADS : 1;
};
/* Slices s_begin .. s_end - 1 of the reduction into acc (the block's tile at m0, p0; an empty range
 * leaves acc alone), through ST stages: slices s + 1 .. s + ST - 1 in flight while slice s is
 * multiplied, group g taking its SK / G rows of it. One barrier per slice, at its top: slice s has
 * landed for all, and all are done with slice s - 1's stage, into which slice s + ST - 1 is then
 * copied (and with table slot s % ST, into which threads 0..SK-1 then put slice s + ST's table).
 * The prologue puts ST tables and copies ST - 1 slices. On return every stage is free (a last
 * barrier). */
template <int BM, int BN, int G, bool VEC_X, int ST>
static __device__ __forceinline__ void sk_accumulate(const float *x, const float *w, const cnn_shape &d, int vec_w,
                                                     int m0, int p0, int s_begin, int s_end,
                                                     sk_stage<BM, BN> *stage, sk_ktab<ST> &kt, float (&acc)[4][4])
{
    const int THREADS = sk_shape<BM, BN, G, ST>::THREADS, TG = THREADS / G;
    static_assert(TG % 32 == 0 && SK % (4 * G) == 0, "a group is whole warps, its share whole float4s of k");
    const int t = threadIdx.x, g = t / TG, tm = (t % TG) / (BN / 4), tn = t % (BN / 4);
    if (s_begin >= s_end) return; /* the same for the whole block */
    const sk_loader<BM, BN, THREADS, VEC_X> L(d, p0);
    L.copy_w(stage[s_begin % ST], d, w, s_begin, m0, vec_w); /* the weights need no table: in flight during the walk */
    sk_walker kw(d, s_begin);
    for (int j = 0; j < ST; j++, kw.next(d))
        if (t < SK && s_begin + j < s_end) kw.put(kt, d, (s_begin + j) % ST);
    __syncthreads();
    L.copy_x(stage[s_begin % ST], kt, x, s_begin, d.H, d.W);
    copy_commit(); /* one group per slice, empty past s_end: the count stays fixed */
#pragma unroll
    for (int j = 1; j < ST - 1; j++) {
        if (s_begin + j < s_end) {
            L.copy_w(stage[(s_begin + j) % ST], d, w, s_begin + j, m0, vec_w);
            L.copy_x(stage[(s_begin + j) % ST], kt, x, s_begin + j, d.H, d.W);
        }
        copy_commit();
    }
    for (int s = s_begin; s < s_end; s++) {
        copy_wait<ST - 2>(); /* groups up to slice s + ST - 2 committed: slice s has landed */
        __syncthreads();
        const int ahead = s + ST - 1;
        if (ahead < s_end) {
            L.copy_w(stage[ahead % ST], d, w, ahead, m0, vec_w);
            L.copy_x(stage[ahead % ST], kt, x, ahead, d.H, d.W);
        }
        copy_commit();
        if (t < SK && s + ST < s_end) kw.put(kt, d, s % ST); /* slot s % ST: slice s's copies were issued */
        kw.next(d);
        sk_multiply<BM, BN, G>(stage[s % ST], g, tm, tn, acc);
    }
    __syncthreads();
}

#endif
