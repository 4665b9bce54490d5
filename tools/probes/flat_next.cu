// probe: candidates after Lab 04's block-based fused_flat_r36 (issue 20; not part of the product)
// Not built by meson. Written on 2026-11-28 without a GPU, run the same day on an H100 and an H200
// (plots/data/{h100,h200}/run_c0e8efd/flat_next*.txt; the handout's "The floor of this algorithm").
// Build on a GPU machine from the repository root:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Xcompiler -fopenmp -D_POSIX_C_SOURCE=200809L -Icommon \
//        -Ilabs/04_convolution/fusion tools/probes/flat_next.cu labs/04_convolution/fusion/fusion_reference.c \
//        -lpng -o /tmp/flat_next && /tmp/flat_next
// Candidates (every one checked against fusion_reference.c at five sizes, odd ones included, its
// output poisoned first; MISMATCH lines and exit 1 otherwise; then timed at 16384^2 beside a
// cudaMemcpy D2D of the same bytes, in two passes):
//   - abs: fused_flat's stages with stage_sobel_abs (rolling_sobel_half.cuh: |gx| + |gy| as one
//     HFMA2 with |x| modifiers, the HMNMX2 gone): the steady loop is 471 instructions for 24 pixels
//     where fused_flat_r36's is 494 (static count, CUDA 13.0, sm_90). Measured: 2.1 (H100) and 1.6
//     (H200) points of memcpy slower than r36;
//   - xh, xq: the final median of three by XOR (two LOP3 on the ALU pipe) in every second / fourth
//     register, by its sum (four IMADs on the FMA pipe) in the others: 482 / 486 instructions.
//     Measured: 0.3-0.9 points slower (their stage ids left rolling.cuh after that; the code:
//     git show c0e8efd);
//   - two heights: tall strips first, then short ones for the last tail_waves waves of blocks.
//     Nsight Compute (plots/data/h100/run_b588e75) puts r36's gain over 96-row strips in the end of
//     the kernel (the busiest SM 5-6.5% over the average, 15-19% with 96 rows) while 96-row strips
//     issue 3.4% fewer instructions: tall strips for the bulk, short ones where the blocks end.
//     Blocks start in the order of their index (x, then y), so the short strips (higher y) run last.
//     flat_two keeps 80 registers with 16 bytes spilled (ptxas -v; flat_rows: none). Measured:
//     72/24 at most 0.3 (H100) / 0.45 (H200) points faster than r36, within r36's run-to-run spread;
//     96/36 no faster; 96/36 with one tail wave, 144/36 and 36/36 at run time slower (the first H100
//     call, flat_next_1.txt).
//   - whole waves (added after those runs, not yet run on a GPU: the session's device time was spent):
//     r36's kernel in strips of 366 / 186 / 120 rows, so that at 16384^2 the blocks make one, 1.94 and
//     2.98 waves of 132 SMs x 24 warps. One wave: every block resident from the start with equal
//     work (no late starters, the tail the profile blames on 96-row strips), and 6 rows of 366 to
//     fill the windows where r36 fills 6 of 36. The 96-row strips' extra load stalls (2.0 warps a
//     load per instruction against 1.37) may come back; that is what the run would show.
//   - lb28 (not yet run either): r36 and abs in 72 registers, 28 warps an SM where 80 registers allow 24.
//     abs's SASS in 80 registers has its IMADs' multipliers in vector registers (198 instructions read
//     three vector registers, r36's loop 96), which may be why it ran slower; in 72 they stay uniform.
#include "rolling_flat.cuh"
#include "probe_timing.cuh"

#define FLAT_BOUNDS __launch_bounds__(BK_THREADS, 24) /* fused_flat_r36's: 80 registers, 24 warps an SM */

template <int FIRST, int ROWS>
__global__ void FLAT_BOUNDS flat_rows(bk_args a) { rolling_body_flat(a, FIRST, 3, 4, ROWS); }

// The same in 72 registers, 28 warps an SM (ptxas: 48-88 bytes spilled, none in r36's steady loop, 2
// loads in abs's); in 72 registers ptxas keeps abs's IMAD multipliers uniform, as in r36 (96 instructions
// reading three vector registers, not 198).
template <int FIRST>
__global__ void __launch_bounds__(BK_THREADS, 28) flat_r36_lb28(bk_args a) { rolling_body_flat(a, FIRST, 3, 4, 36); }

// fused_flat_r36 with rolling_flat.cuh's probe tweaks (FLAT_VBIAS, FLAT_WIDE), in 80 or 72 registers.
template <int TWEAK, int MINB>
__global__ void __launch_bounds__(BK_THREADS, MINB) flat_tweak(bk_args a) { rolling_body_flat(a, BK_GAUSS_FLAT, 3, 4, 36, TWEAK); }

// Delayed stages (software pipelining across rows): in fused_flat_r36 each step (one input row) runs
// gauss -> median -> sobel as one chain, so the median's ALU run (about 40 instructions in a row in
// the SASS) waits for gauss's IMADs and sobel's half-precision adds wait for the median, and the
// schedulers report the math pipe busy (1.43 warps stalled per issued instruction on the H100).
// With D1 (D2) the median (sobel) of a step works on its window as it was before the step, and the
// row the stage before it computes enters the window after it: the stages of one step are then
// independent, and ptxas may interleave the median's ALU work with gauss's and sobel's FMA work.
// Each delay holds one more row in flight (4 registers) and shifts the output one step later: the
// strip fills in 6 + D1 + D2 steps and drains in D1 + D2 steps with no input row.
template <int D1, int D2>
static __device__ __forceinline__ void delayed_step(const bk_args &a, const int m, const bool input, const bool mid,
                                                    const bool more, prow (&w)[3][3], rawrow (&ahead)[AHEAD],
                                                    flat_walk &f, const strip_at &g, const bool edge, const bool low,
                                                    const bool high)
{
    const int F = BK_GAUSS_FLAT, n1 = m - 2 - D1, n2 = m - 4 - D1 - D2; /* the windows' newest pushes */
    prow o0, o1;
    const bool have0 = input && m >= 2, have1 = mid && n1 >= 2, have2 = n2 >= 2;
    if (input) {
        prow r = unpack(ahead[m % AHEAD], 4, F);
        if (more) ahead[m % AHEAD] = flat_load(f.src, g.x0, a.width, 4, edge);
        f.src += a.pitch;
        if (edge) r = row_clamp_columns(r, g.x0, g.x0w, a.width, 4, true);
        w[0][m % 3] = r;
    }
    if (have0) {
        o0 = stage_on_ring(F, w[0], m, 4, true);
        if (edge) o0 = row_clamp_columns(o0, g.x0, g.x0w, a.width, 4, true);
        if (!D1) w[1][(m - 2) % 3] = o0;
    }
    if (have1) {
        o1 = stage_on_ring(F + 1, w[1], n1, 4, true);
        if (edge) o1 = row_clamp_columns(o1, g.x0, g.x0w, a.width, 4, true);
        if (!D2) w[2][(n1 - 2) % 3] = o1;
    }
    if (have2) {
        flat_store(f.dst, stage_on_ring(F + 2, w[2], n2, 4, true), 4, F, low, high);
        f.dst += a.pitch;
    }
    if (D1 && have0) w[1][(m - 2) % 3] = o0;
    if (D2 && have1) w[2][(n1 - 2) % 3] = o1;
}

// fused_flat_r36's strips (ROWS output rows; ROWS = 6 + D1 + D2 modulo 3 so the steady loop turns
// in threes) with delayed stages; the strips at the top and bottom take rolling_body.
template <int D1, int D2, int ROWS>
__global__ void FLAT_BOUNDS flat_delayed(bk_args a)
{
    constexpr int FILL = 6 + D1 + D2, STEADY = ROWS + 6 - FILL; /* steps with an input row after the fill */
    static_assert(STEADY % 3 == 0, "the steady loop turns the windows in threes");
    const strip_at g = strip_of(a, 4, ROWS, true);
    if (!(g.y0 - 3 >= 0 && g.y0 + ROWS + 3 <= a.height)) {
        rolling_body(a, BK_GAUSS_FLAT, 3, 4, ROWS, true);
        return;
    }
    const bool low = g.writer & 1, high = g.writer & 2;
    auto walk = [&](const bool edge) {
        prow w[3][3];
        rawrow ahead[AHEAD];
        flat_walk f;
        f.src = a.in + (size_t)(g.y0 - 3) * a.pitch + g.x0;
        f.dst = a.out + (size_t)g.y0 * a.pitch + g.x0;
#pragma unroll
        for (int i = 0; i < AHEAD; i++, f.src += a.pitch) ahead[i] = flat_load(f.src, g.x0, a.width, 4, edge);
#pragma unroll
        for (int m = 0; m < FILL; m++) delayed_step<D1, D2>(a, m, true, true, true, w, ahead, f, g, edge, low, high);
#pragma unroll 1
        for (int it = 0; it < STEADY; it += 3) {
            const bool more = it + 3 < STEADY;
#pragma unroll
            for (int u = 0; u < 3; u++) delayed_step<D1, D2>(a, FILL + u, true, true, more, w, ahead, f, g, edge, low, high);
        }
#pragma unroll
        for (int j = 0; j < D1 + D2; j++) /* the drain, at the loop's ring positions (STEADY % 3 == 0); the
                                            median runs in its first D1 steps (its last G row is in) */
            delayed_step<D1, D2>(a, FILL + j, false, j < D1, false, w, ahead, f, g, edge, low, high);
    };
    if (g.edge) walk(true);
    else walk(false);
}

// Strips 0 .. s1 - 1 are h1 rows from y = 0; the rest h2 rows from y = s1 h1. A short strip runs
// rolling_body_flat on the picture moved up by s1 (h1 - h2) rows, where its strip number times h2 is
// its first row; with s1 >= 1 that row is at least h2 >= 3, so the rows above it that the stages
// read are never clamped as a top edge (with s1 = 0 nothing moves), and its bottom is the picture's.
// h1 and h2: multiples of 3 (rolling_body_flat's loop turns three rows at a time).
template <int TWEAK = 0, int MINB = 24>
__global__ void __launch_bounds__(BK_THREADS, MINB) flat_two(bk_args a, int s1, int h1, int h2)
{
    const bool tall = (int)blockIdx.y < s1;
    const int shift = tall ? 0 : s1 * (h1 - h2);
    bk_args b = a;
    b.in += (size_t)shift * a.pitch, b.out += (size_t)shift * a.pitch, b.height -= shift;
    rolling_body_flat(b, BK_GAUSS_FLAT, 3, 4, tall ? h1 : h2, TWEAK);
}

// One row a variant: a one-height kernel in strips of h1 rows, or (kernel null) flat_two, h1-row strips
// and h2-row ones for the last tail_waves waves. Run c0e8efd also had r36_abs (flat_rows<BK_GAUSS_ABS,
// 36>), the final median by XOR in every second / fourth register and two 96/36 tail 2 (their code:
// git show c0e8efd:tools/probes/flat_next.cu).
struct variant {
    const char *name;
    void (*kernel)(bk_args);
    int h1, h2, tail_waves;
    void (*two)(bk_args, int, int, int); /* kernel null: this flat_two */
};
static const variant VARIANTS[] = {
    {"r36 (the lab's fused_flat_r36)", flat_rows<BK_GAUSS_FLAT, 36>, 36, 0, 0},
    {"two 72/24 tail 2", nullptr, 72, 24, 2, flat_two<0, 24>},
    // whole waves at 16384^2 on 132 SMs x 24 warps (69 columns of strips): 366 rows, 45 strips a column,
    // 3105 blocks (one wave, all resident at once, equal work: no late starters, 6 of 366 rows to fill
    // the windows); 186 rows: 6141 blocks (1.94 waves); 120 rows: 9453 (2.98 waves)
    {"r366 (one wave)", flat_rows<BK_GAUSS_FLAT, 366>, 366, 0, 0},
    {"r186 (1.94 waves)", flat_rows<BK_GAUSS_FLAT, 186>, 186, 0, 0},
    {"r120 (three waves)", flat_rows<BK_GAUSS_FLAT, 120>, 120, 0, 0},
    {"r36_lb28 (72 registers, 28 warps)", flat_r36_lb28<BK_GAUSS_FLAT>, 36, 0, 0},
    {"r36_abs_lb28 (72 registers, 28 warps)", flat_r36_lb28<BK_GAUSS_ABS>, 36, 0, 0},
    {"r36 vbias (gauss's 128 in a register)", flat_tweak<FLAT_VBIAS, 24>, 36, 0, 0},
    {"r36 wide (the walk by IMAD.WIDE)", flat_tweak<FLAT_WIDE, 24>, 36, 0, 0},
    {"r36 vbias+wide", flat_tweak<FLAT_VBIAS | FLAT_WIDE, 24>, 36, 0, 0},
    {"r36 vbias+wide lb28", flat_tweak<FLAT_VBIAS | FLAT_WIDE, 28>, 36, 0, 0},
    {"r36 vbias lb28", flat_tweak<FLAT_VBIAS, 28>, 36, 0, 0},
    {"vbias two 72/24 tail 2", nullptr, 72, 24, 2, flat_two<FLAT_VBIAS, 24>},
    {"vbias lb28 two 72/24 tail 2", nullptr, 72, 24, 2, flat_two<FLAT_VBIAS, 28>},
    {"delayed median r37", flat_delayed<1, 0, 37>, 37, 0, 0},
    {"delayed median+sobel r38", flat_delayed<1, 1, 38>, 38, 0, 0},
    {"delayed sobel r37", flat_delayed<0, 1, 37>, 37, 0, 0},
    {"delayed none r36 (control)", flat_delayed<0, 0, 36>, 36, 0, 0},
};

static void launch(const variant &v, const bk_args &a, int sms)
{
    const unsigned cols = rolling_grid(&a, 4, 36).x;
    if (v.kernel) {
        v.kernel<<<dim3(cols, (unsigned)((a.height + v.h1 - 1) / v.h1)), BK_THREADS>>>(a);
        CK(cudaGetLastError());
        return;
    }
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, v.two, BK_THREADS, 0));
    const long short_strips = (v.tail_waves * (long)sms * per_sm + cols - 1) / cols; // the last waves' strips
    const int s1 = (int)std::max(0L, (a.height - short_strips * v.h2) / v.h1);
    const int rest = a.height - s1 * v.h1;
    v.two<<<dim3(cols, (unsigned)(s1 + (rest + v.h2 - 1) / v.h2)), BK_THREADS>>>(a, s1, v.h1, v.h2);
    CK(cudaGetLastError());
}

int main()
{
    int dev, sms;
    cudaDeviceProp p;
    CK(cudaGetDevice(&dev));
    CK(cudaGetDeviceProperties(&p, dev));
    sms = p.multiProcessorCount;
    printf("%s, %d SMs\n", p.name, sms);
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    static const int sizes[][2] = {{61, 7}, {257, 131}, {1021, 331}, {4093, 2047}, {16384, 16384}};
    int failures = 0;
    for (auto &sz : sizes) {
        const int w = sz[0], h = sz[1], pitch = (w + FUSION_PITCH_ALIGN - 1) / FUSION_PITCH_ALIGN * FUSION_PITCH_ALIGN;
        const size_t n = (size_t)w * h, bytes = (size_t)pitch * h;
        std::vector<uint8_t> in(n), t1(n), t2(n), ref(n), got(n);
        unsigned s = 20261128u + (unsigned)w;
        for (auto &v : in) s = s * 1664525u + 1013904223u, v = (uint8_t)(s >> 24);
        bk_stage_ref(BK_GAUSS, in.data(), t1.data(), w, h);
        bk_stage_ref(BK_MEDIAN, t1.data(), t2.data(), w, h);
        bk_stage_ref(BK_SOBEL, t2.data(), ref.data(), w, h);
        uint8_t *din, *dout;
        CK(cudaMalloc(&din, bytes));
        CK(cudaMalloc(&dout, bytes));
        CK(cudaMemset(din, 0, bytes));
        CK(cudaMemcpy2D(din, pitch, in.data(), w, w, h, cudaMemcpyHostToDevice));
        const bk_args a = {din, dout, w, h, pitch};
        double memcpy_ms = 0;
        if (n >= (size_t)16384 * 16384) {
            memcpy_ms = timeit("memcpy D2D", 2.0 * bytes, 0, [&] { CK(cudaMemcpyAsync(dout, din, bytes, cudaMemcpyDeviceToDevice)); });
        }
        for (const variant &v : VARIANTS) {
            CK(cudaMemset(dout, 0xa5, bytes)); // poisoned: a pixel the kernel never writes shows
            launch(v, a, sms);
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy2D(got.data(), w, dout, pitch, w, h, cudaMemcpyDeviceToHost));
            size_t bad = 0, first = 0;
            for (size_t i = 0; i < n; i++)
                if (got[i] != ref[i] && !bad++) first = i;
            if (bad) {
                failures++;
                printf("MISMATCH %s at %d x %d: %zu pixels, first (%zu, %zu): %d, want %d\n", v.name, w, h, bad,
                       first % w, first / w, got[first], ref[first]);
            }
        }
        for (int pass = 1; memcpy_ms > 0 && pass <= 2; pass++) { // two passes, variants interleaved
            printf("pass %d\n", pass);
            for (const variant &v : VARIANTS) timeit(v.name, 2.0 * n, memcpy_ms, [&] { launch(v, a, sms); });
        }
        printf("%d x %d: every variant checked against fusion_reference.c\n", w, h);
        CK(cudaFree(din));
        CK(cudaFree(dout));
    }
    printf(failures ? "%d MISMATCHES\n" : "all variants exact\n", failures);
    return failures ? 1 : 0;
}
