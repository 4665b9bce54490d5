// probe: candidates after Lab 04's block-based fused_flat_r36 (issue 20; not part of the product)
// Not built by meson. Written on 2026-11-28 without a GPU, run the same day on an H100 and an H200
// (plots/data/{h100,h200}/run_c0e8efd/flat_next*.txt and the runs named below; labs/04_convolution/fusion/NOTEBOOK.md's "The
// floor of this algorithm" and "Probes after the floor").
// Build on a GPU machine from the repository root:
//   nvcc -O3 -std=c++17 -arch=sm_90 -Xcompiler -fopenmp -D_POSIX_C_SOURCE=200809L -Icommon \
//        -Ilabs/04_convolution/fusion -Ilabs/04_convolution/cnn labs/04_convolution/fusion/probes/flat_next.cu labs/04_convolution/fusion/fusion_reference.c \
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
//     Nsight Compute (plots/archive/h100/run_b588e75) puts r36's gain over 96-row strips in the end of
//     the kernel (the busiest SM 5-6.5% over the average, 15-19% with 96 rows) while 96-row strips
//     issue 3.4% fewer instructions: tall strips for the bulk, short ones where the blocks end.
//     Blocks start in the order of their index (x, then y), so the short strips (higher y) run last.
//     flat_two keeps 80 registers with 16 bytes spilled (ptxas -v; flat_rows: none). Measured:
//     72/24 at most 0.3 (H100) / 0.45 (H200) points faster than r36, within r36's run-to-run spread;
//     96/36 no faster; 96/36 with one tail wave, 144/36 and 36/36 at run time slower (the first H100
//     call, flat_next_1.txt).
//   - whole waves: r36's kernel in strips of 366 / 186 / 120 rows (one, 1.94 and 2.98 waves of 132
//     SMs x 24 warps at 16384^2: every block resident from the start, 6 of 366 rows to fill the
//     windows). Measured (later the same day; h100/run_db920c9, run_63ad7dd, run_016e6d7; h200/
//     run_5b73f74, run_63ad7dd): the taller, the slower, and by far: 366 rows 42.5-43.1% (H100) and
//     30.3-30.7% (H200) of memcpy, 186 rows 52.7-53.9 / 37.8-38.7, 120 rows 56.9-59.3 / 41.8-42.3,
//     against r36's 64.7-65.9 / 47.0-47.6 in the same passes. Not the end of the kernel, then (one
//     wave has none); what is left is what the taller strips change besides: the warps resident at
//     once span more of the picture (46 strips of 366 rows cover all of it, of 36 rows 1656 rows).
//     Not profiled;
//   - lb28: r36 and abs in 72 registers, 28 warps an SM where 80 registers allow 24: r36 65.1-66.7%
//     / 47.7-48.0%, abs 65.2-66.1 / 47.6-48.2: about half a point over r36 (every H200 pass), not kept;
//   - at 63ad7dd (that commit's rolling_flat.cuh; the tweaks left the lab's header after the runs):
//     gauss's +128 in a vector register (an IMAD cannot take a uniform multiplier and an immediate
//     at once, so ptxas copied the multiplier into a vector register 11 times a loop turn: 479
//     instructions, not 494) 65.8-66.7 / 47.5-47.9; the walk's pointers by IMAD.WIDE (no 64-bit
//     IADD3 pairs) 65.3-66.2 / 47.2-47.8; both 64.5-65.9 / 46.6-47.5; with 72 registers or 72/24
//     strips at most 66.0 / 48.2. None more than a point over r36;
//   - delayed stages (flat_delayed below): 63.4-64.2% on the H100 against the control's 65.2-65.6
//     (h100/run_016e6d7); later runs 62.7-65.1 (H100) and 45.3-47.8 (H200), always below r36;
//   - scattered strips (flat_scatter): r36 with its resident warps spread over the whole picture,
//     0.1-1.8 points below r36: the span is not what costs the tall strips;
//   - block timelines (flat_timed, timeline()): the top / bottom strips and the edge columns take
//     about 2x and 1.6x an interior block, and in index order they end the kernel (366 rows: the
//     slowest block ends at 426 us, interior blocks take 216 us);
//   - slowest first (flat_slow_first, rolling_flat.cuh's slowest_first_block): r36 +3 to +4 points,
//     best in 72-row strips and 72 registers - the lab's fused_flat_sf since d0723ba (h100/ and
//     h200/run_d0723ba, flat_next_scatter*, _timeline*, _slowfirst*).
#include "probe_walk.cuh" /* rolling_flat.cuh, and the cp.async walk */
#include "probe_fused.cuh"

#define FLAT_BOUNDS __launch_bounds__(BK_THREADS, 24) /* fused_flat_r36's: 80 registers, 24 warps an SM */

template <int FIRST, int ROWS>
__global__ void FLAT_BOUNDS flat_rows(bk_args a) { rolling_body_flat(a, FIRST, 3, 4, ROWS); }

// The same in 72 registers, 28 warps an SM (ptxas: 48-88 bytes spilled, none in r36's steady loop, 2
// loads in abs's); in 72 registers ptxas keeps abs's IMAD multipliers uniform, as in r36 (96 instructions
// reading three vector registers, not 198).
template <int FIRST>
__global__ void __launch_bounds__(BK_THREADS, 28) flat_r36_lb28(bk_args a) { rolling_body_flat(a, FIRST, 3, 4, 36); }

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

// r36 with its strips dealt out of order: block row b (1 <= b <= n - 2 of n) takes strip row
// 1 + 37 (b - 1) mod (n - 2), the first and last keep theirs. Blocks still start in the order of
// their index, so the warps resident together are 37 strips apart: the strip height, the filling and
// the tail are r36's, the span of the picture in use at once is the one-wave kernel's.
__global__ void FLAT_BOUNDS flat_scatter(bk_args a)
{
    const unsigned n = gridDim.y, by = blockIdx.y;
    const unsigned s = by == 0 || by == n - 1 || n <= 2 ? by : 1 + (37 * (by - 1)) % (n - 2);
    rolling_body_flat(a, BK_GAUSS_FLAT, 3, 4, 36, make_uint2(blockIdx.x, s));
}

// r36 and other heights with their slow blocks first (rolling_flat.cuh's slowest_first_block, the
// lab's fused_flat_sf since: written here first, measured, then moved into the lab).
template <int ROWS, int MINB = 24>
__global__ void __launch_bounds__(BK_THREADS, MINB) flat_slow_first(bk_args a)
{
    rolling_body_flat(a, BK_GAUSS_FLAT, 3, 4, ROWS, slowest_first_block());
}

// Rows ahead by cp.async (the stall profile of fused_flat_sf, ncu on the H100 at 16384^2: of 8.2
// warp-cycles an issued instruction, 2.5 wait on a global load (long scoreboard), 1.5 on the math
// pipe, 2.1 + 1.0 ready): probe_walk.cuh's probe_fused_walk_async with the lab's stages, 3 (G - 1) rows
// ahead where the register walk has about 1-2. Interior strips not on an edge column only; the others
// take rolling_body_flat.
template <int ROWS, int G>
__global__ void __launch_bounds__(BK_THREADS, 28) flat_async(bk_args a)
{
    __shared__ unsigned ring[G][3][2][32];
    probe_fused_walk_async<lab_parts, ROWS, G>(a, ring);
}

// Block timeline (why tall strips are slow): r36's kernel in strips of ROWS rows, lane 0 of each
// block writing when it started and ended (%globaltimer), its SM, and whether its columns reach the
// picture's left or right edge (bit 0: rolling_flat.cuh's clamped path) or its rows the top or
// bottom (bit 1: rolling_body's general path). One launch each, after the timed passes.
struct block_rec {
    unsigned long long t0, t1;
    unsigned sm, edge;
};
static __device__ __forceinline__ unsigned long long global_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
template <int ROWS, bool SLOW_FIRST> __global__ void FLAT_BOUNDS flat_timed(bk_args a, block_rec *rec)
{
    const unsigned long long t0 = global_ns();
    const uint2 blk = SLOW_FIRST ? slowest_first_block() : make_uint2(blockIdx.x, blockIdx.y);
    rolling_body_flat(a, BK_GAUSS_FLAT, 3, 4, ROWS, blk);
    __syncwarp();
    if (threadIdx.x == 0) {
        const strip_at g = strip_of(a, 4, ROWS, true, blk);
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        const unsigned rows_edge = g.y0 - 3 < 0 || g.y0 + ROWS + 3 > a.height;
        rec[blockIdx.y * gridDim.x + blockIdx.x] = {t0, global_ns(), sm, (unsigned)g.edge | rows_edge << 1};
    }
}

template <int ROWS, bool SLOW_FIRST = false> static void timeline(const bk_args &a, int sms)
{
    const dim3 grid = dim3(rolling_grid(&a, 4, 36).x, (unsigned)((a.height + ROWS - 1) / ROWS));
    const size_t nb = (size_t)grid.x * grid.y;
    block_rec *d;
    CK(cudaMalloc(&d, nb * sizeof(block_rec)));
    for (int i = 0; i < 2; i++) flat_timed<ROWS, SLOW_FIRST><<<grid, BK_THREADS>>>(a, d); /* the second one is kept */
    CK(cudaDeviceSynchronize());
    std::vector<block_rec> r(nb);
    CK(cudaMemcpy(r.data(), d, nb * sizeof(block_rec), cudaMemcpyDeviceToHost));
    CK(cudaFree(d));
    unsigned long long t0 = ~0ull, t1 = 0;
    for (auto &b : r) t0 = std::min(t0, b.t0), t1 = std::max(t1, b.t1);
    std::vector<double> dur[3]; /* interior, left/right edge columns, top/bottom rows */
    std::vector<unsigned long long> sm_end(sms, 0);
    for (auto &b : r) {
        dur[b.edge & 2 ? 2 : b.edge & 1 ? 1 : 0].push_back((b.t1 - b.t0) / 1e3);
        if (b.sm < (unsigned)sms) sm_end[b.sm] = std::max(sm_end[b.sm], b.t1 - t0);
    }
    std::sort(sm_end.begin(), sm_end.end());
    printf("timeline r%d%s: %zu blocks, kernel %.1f us; an SM's last block ends at %.1f (earliest SM), %.1f (median), %.1f us\n",
           ROWS, SLOW_FIRST ? " slow blocks first" : "", nb, (t1 - t0) / 1e3, sm_end[0] / 1e3, sm_end[sms / 2] / 1e3, sm_end[sms - 1] / 1e3);
    static const char *const what[3] = {"interior", "edge columns", "top/bottom"};
    for (int k = 0; k < 3; k++) {
        if (dur[k].empty()) continue;
        std::sort(dur[k].begin(), dur[k].end());
        printf("  %-12s %5zu blocks: duration median %.1f us, min %.1f, max %.1f\n", what[k], dur[k].size(),
               dur[k][dur[k].size() / 2], dur[k].front(), dur[k].back());
    }
}

// Strips 0 .. s1 - 1 are h1 rows from y = 0; the rest h2 rows from y = s1 h1. A short strip runs
// rolling_body_flat on the picture moved up by s1 (h1 - h2) rows, where its strip number times h2 is
// its first row; with s1 >= 1 that row is at least h2 >= 3, so the rows above it that the stages
// read are never clamped as a top edge (with s1 = 0 nothing moves), and its bottom is the picture's.
// h1 and h2: multiples of 3 (rolling_body_flat's loop turns three rows at a time).
__global__ void FLAT_BOUNDS flat_two(bk_args a, int s1, int h1, int h2)
{
    const bool tall = (int)blockIdx.y < s1;
    const int shift = tall ? 0 : s1 * (h1 - h2);
    bk_args b = a;
    b.in += (size_t)shift * a.pitch, b.out += (size_t)shift * a.pitch, b.height -= shift;
    rolling_body_flat(b, BK_GAUSS_FLAT, 3, 4, tall ? h1 : h2);
}

// One row a variant: a one-height kernel in strips of h1 rows, or (kernel null) flat_two, h1-row strips
// and h2-row ones for the last tail_waves waves. Run c0e8efd also had r36_abs (flat_rows<BK_GAUSS_ABS,
// 36>), the final median by XOR in every second / fourth register and two 96/36 tail 2 (their code:
// git show c0e8efd:labs/04_convolution/fusion/probes/flat_next.cu); runs 63ad7dd and 016e6d7 the vbias and wide tweaks
// (git show 016e6d7:labs/04_convolution/fusion/probes/flat_next.cu, with that commit's rolling_flat.cuh and rolling.cuh).
struct variant {
    const char *name;
    void (*kernel)(bk_args);
    int h1, h2, tail_waves;
    void (*two)(bk_args, int, int, int); /* kernel null: this flat_two */
};
static const variant VARIANTS[] = {
    {"r36 (the lab's fused_flat_r36)", flat_rows<BK_GAUSS_FLAT, 36>, 36, 0, 0},
    {"two 72/24 tail 2", nullptr, 72, 24, 2, flat_two},
    // whole waves at 16384^2 on 132 SMs x 24 warps (69 columns of strips): 366 rows, 45 strips a column,
    // 3105 blocks (one wave, all resident at once, equal work: no late starters, 6 of 366 rows to fill
    // the windows); 186 rows: 6141 blocks (1.94 waves); 120 rows: 9453 (2.98 waves)
    {"r366 (one wave)", flat_rows<BK_GAUSS_FLAT, 366>, 366, 0, 0},
    {"r186 (1.94 waves)", flat_rows<BK_GAUSS_FLAT, 186>, 186, 0, 0},
    {"r120 (three waves)", flat_rows<BK_GAUSS_FLAT, 120>, 120, 0, 0},
    {"r36_lb28 (72 registers, 28 warps)", flat_r36_lb28<BK_GAUSS_FLAT>, 36, 0, 0},
    {"r36_abs_lb28 (72 registers, 28 warps)", flat_r36_lb28<BK_GAUSS_ABS>, 36, 0, 0},
    {"r36 scattered (37 strips apart)", flat_scatter, 36, 0, 0},
    {"r36 slow blocks first", flat_slow_first<36>, 36, 0, 0},
    {"r36 slow first, 72 registers", flat_slow_first<36, 28>, 36, 0, 0},
    {"r48 slow blocks first", flat_slow_first<48>, 48, 0, 0},
    {"r72 slow blocks first", flat_slow_first<72>, 72, 0, 0},
    {"r96 slow blocks first", flat_slow_first<96>, 96, 0, 0},
    {"r24 slow blocks first", flat_slow_first<24>, 24, 0, 0},
    {"r48 slow first, 72 registers", flat_slow_first<48, 28>, 48, 0, 0},
    {"r72 slow first, 72 registers", flat_slow_first<72, 28>, 72, 0, 0},
    {"r72 slow first, 64 registers", flat_slow_first<72, 32>, 72, 0, 0},
    {"r72 slow first, 80 registers", flat_slow_first<72, 24>, 72, 0, 0},
    {"r48 slow first, 64 registers", flat_slow_first<48, 32>, 48, 0, 0},
    {"r72 sf async 9 rows ahead", flat_async<72, 4>, 72, 0, 0},
    {"r72 sf async 15 rows ahead", flat_async<72, 6>, 72, 0, 0},
    {"r36 sf async 9 rows ahead", flat_async<36, 4>, 36, 0, 0},
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
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    return probe_fused_main(VARIANTS, [&](const variant &v, const bk_args &a) { launch(v, a, sms); }, 2, [&](const bk_args &a) {
        timeline<36>(a, sms), timeline<36, true>(a, sms), timeline<72, true>(a, sms), timeline<366>(a, sms), timeline<120>(a, sms);
    });
}
