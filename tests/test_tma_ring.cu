/* test_tma_ring.cu - CPU tests of the index arithmetic the TMA wgmma kernels stand on
 * (labs/04_convolution/cnn/tensor_core/tma_ring.cuh): the host sizes the grid, the tensor maps
 * and the ring with these very functions, and the kernel reads its boxes, k-tiles, stages and
 * output offsets with them; and a simulation of the ping-pong schedule's parity waits. Host code
 * only (no GPU). */
#include <string.h>
#include "check.h"
#include "tma_ring.cuh"

/* E3_N32 as ours_bf16_tma_nhwc sees it: plain NHWC x (no border), 3 x 3, pad 1, BF16. */
static void test_geometry(void)
{
    tm_geom g = tm_geom_make(32, 128, 64, 64, 128, 3, 3, 1, 1, 2, 1, 128, 0);
    CHECK(g.Cp == 128 && g.Hp == 64 && g.Wp == 64 && g.oy == -1 && g.ox == -1, "plain x: the map starts at -pad");
    CHECK(g.kc == 64 && g.chunks == 2 && g.rt == 3 && g.nk == 6, "halo: 2 chunks x 3 columns = 6 k-tiles, got %d", g.nk);
    CHECK(g.bw == 16 && g.bh == 8 && g.tiles_x == 4 && g.tiles_y == 8, "halo box 16 x 8, 4 x 8 boxes an image");
    CHECK(g.a_rows == 160, "halo x box: (8 + 2) rows of 16 pixels, got %d", g.a_rows);
    CHECK(tm_stage_bytes(&g, 128) == (160 + 3 * 128) * 128, "a halo 128x128 stage: x box + 3 taps of w");
    CHECK(tm_fit_stages(&g, 128, 8, 227 * 1024) == 3, "3 halo 128x128 stages fit 227 KB");
    g = tm_geom_make(32, 128, 64, 64, 128, 3, 3, 1, 1, 2, 0, 256, 0);
    CHECK(g.rt == 1 && g.nk == 18 && g.bw == 64 && g.bh == 4 && g.a_rows == 256, "256 rows, one box per tap");
    /* mma3's bordered xp: C rounded up to 8, the border in memory, coordinates from 0 */
    g = tm_geom_make(1, 348, 7, 7, 128, 5, 5, 2, 2, 2, 0, 128, 1);
    CHECK(g.Cp == 352 && g.Hp == 11 && g.Wp == 11 && g.oy == 0 && g.ox == 0, "bordered T5A_C348");
    CHECK(g.chunks == 6 && g.nk == 150 && g.bw == 8 && g.bh == 16, "T5A_C348: 6 chunks x 25 taps");
    /* TF32: 32 channels a 128-byte chunk */
    g = tm_geom_make(1, 348, 7, 7, 128, 5, 5, 2, 2, 4, 0, 128, 0);
    CHECK(g.kc == 32 && g.chunks == 11 && g.Cp == 348, "TF32 T5A_C348: 11 chunks, the last one part zero fill");
}

/* Byte offset of box element e (innermost first) of a map at coordinates co: what TMA reads. */
static unsigned long long map_offset(int rank, const cuuint64_t *strides, const int *co, const int *e, int elem)
{
    unsigned long long o = (unsigned long long)(co[0] + e[0]) * elem;
    for (int d = 1; d < rank; d++) o += (unsigned long long)(co[d] + e[d]) * strides[d - 1];
    return o;
}

/* w's one-box map (a halo k-tile's rt taps) against the one-box-a-tap map: for every k-tile of L56
 * (TF32, 128 x 64 tiles), the element that lands at each byte of the stage's w is the same. */
static void test_w_map(void)
{
    const tm_geom g = tm_geom_make(1, 256, 56, 56, 256, 3, 3, 1, 1, 4, 1, 128, 0);
    const int bn = 64, elem = 4, m0 = 128;
    const cuuint64_t row = (cuuint64_t)g.Cp * elem;
    cuuint64_t d1[4], s1[3], d3[4], s3[3];
    cuuint32_t b1[4], b3[4];
    CHECK(tm_w_map(&g, bn, 1, row, d1, s1, b1) == 4 && b1[0] * b1[1] * b1[2] * b1[3] * elem == g.rt * bn * TM_ROW_BYTES,
          "halo, no cluster: one 4-d box of the k-tile's rt taps");
    CHECK(tm_w_map(&g, bn, 2, row, d3, s3, b3) == 3 && b3[2] == bn / 2, "halo in a cluster: a rank's share a tap");
    tm_geom plain = tm_geom_make(1, 256, 56, 56, 256, 3, 3, 1, 1, 4, 0, 128, 0);
    CHECK(tm_w_map(&plain, bn, 1, row, d3, s3, b3) == 3 && b3[1] == 1 && b3[2] == bn, "one tap a k-tile: one 3-d box");
    int bad = 0;
    for (int i = 0; i < g.nk; i++) {
        int c0, r0, s;
        tm_ktile_at(&g, i, &c0, &r0, &s);
        const int co4[4] = {c0, m0, r0, s};
        for (int j = 0; j < g.rt; j++)
            for (int m = 0; m < bn; m++)
                for (int c = 0; c < g.kc; c += 7) {
                    const int e4[4] = {c, m, j, 0}, co3[3] = {c0, (r0 + j) * g.S + s, m0}, e3[3] = {c, 0, m};
                    const unsigned at4 = (unsigned)(((j * b1[1] + m) * b1[0] + c) * elem); /* box order in smem */
                    const unsigned at3 = tm_b_step(bn, j, 0) + m * TM_ROW_BYTES + c * elem;
                    bad += map_offset(4, s1, co4, e4, elem) != map_offset(3, s3, co3, e3, elem) || at4 != at3;
                }
    }
    CHECK(bad == 0, "the one-box w map reads what the per-tap boxes read, to the same stage bytes (%d differ)", bad);
}

/* k-tile i's taps and first channel: every (tap, chunk) exactly once, for both walks. */
static void test_ktiles(void)
{
    for (int halo = 0; halo <= 1; halo++) {
        const tm_geom g = tm_geom_make(1, 192, 4, 4, 384, 3, 3, 1, 1, 2, halo, 128, 0);
        int seen[3][3][4];
        memset(seen, 0, sizeof seen);
        for (int i = 0; i < g.nk; i++) {
            int c0, r0, s;
            tm_ktile_at(&g, i, &c0, &r0, &s);
            for (int j = 0; j < g.rt; j++) seen[r0 + j][s][c0 / g.kc]++;
        }
        int once = 1;
        for (int r = 0; r < 3; r++)
            for (int s = 0; s < 3; s++)
                for (int c = 0; c < g.chunks; c++) once &= seen[r][s][c] == 1;
        CHECK(once && g.chunks == 3, "halo %d: every tap and chunk once", halo);
    }
}

/* Clusters sharing w: the cl boxes of a unit have the same output channels; every (box, channel
 * block) is some rank's work exactly once; a spare rank (boxes not a multiple of cl) lands past
 * the last image, where no row is stored. */
static void test_units(void)
{
    const tm_geom g = tm_geom_make(3, 64, 8, 8, 256, 3, 3, 1, 1, 2, 0, 128, 0); /* 3 boxes (bw 8, bh 16) */
    const int bn = 128, cl = 2, boxes = 3, m_blocks = 2;
    CHECK(tm_units(&g, bn, 1) == boxes * m_blocks, "one unit per box and channel block");
    CHECK(tm_units(&g, bn, cl) == 2 * m_blocks, "ceil(3 / 2) box pairs x 2 channel blocks");
    int seen[4][2];
    memset(seen, 0, sizeof seen);
    int same_m = 1, spare_outside = 1;
    for (int u = 0; u < tm_units(&g, bn, cl); u++) {
        int m_of_rank[2];
        for (int r = 0; r < cl; r++) {
            int n, y0, x0, m0;
            const int b = tm_unit_block(&g, bn, cl, u, r);
            tm_block_at(&g, b, bn, &n, &y0, &x0, &m0);
            m_of_rank[r] = m0;
            if (n < g.N) seen[n][m0 / bn]++;
            else spare_outside &= tm_row_offset(&g, n, y0, x0, 0) < 0;
        }
        same_m &= m_of_rank[0] == m_of_rank[1];
    }
    int once = 1;
    for (int n = 0; n < 3; n++)
        for (int m = 0; m < m_blocks; m++) once &= seen[n][m] == 1;
    CHECK(same_m, "the ranks of a unit share m0 (the multicast w box)");
    CHECK(once, "every box and channel block exactly once");
    CHECK(spare_outside, "the spare rank's rows are not stored");
    CHECK(tm_unit_block(&g, bn, 1, 5, 0) == 5, "cl = 1: unit u is block u");
}

/* y's offsets: one per GEMM row plus m times the channel step, as the direct formulas give. */
static void test_offsets(void)
{
    tm_geom g = tm_geom_make(2, 64, 13, 13, 96, 3, 3, 1, 1, 2, 0, 128, 0); /* bw 16, bh 8: boxes overhang */
    int ok = 1, outside = 0;
    for (int nhwc = 0; nhwc <= 1; nhwc++) {
        g.nhwc_out = nhwc;
        const long long step = tm_channel_step(&g);
        const int n = 1, y0 = 8, x0 = 0, m = 37;
        for (int row = 0; row < 128; row++) {
            const int y = y0 + row / g.bw, x = x0 + row % g.bw;
            const long long ro = tm_row_offset(&g, n, y0, x0, row);
            if (y >= 13 || x >= 13) {
                ok &= ro == -1, outside++;
                continue;
            }
            const long long want = nhwc ? ((long long)(n * 13 + y) * 13 + x) * 96 + m
                                        : ((long long)(n * 96 + m) * 13 + y) * 13 + x;
            ok &= ro + m * step == want;
        }
    }
    CHECK(ok, "row offset + m x step == NHWC / NCHW index; -1 outside the image");
    CHECK(outside == 2 * (128 - 5 * 13), "a box at y0 = 8 overhangs by 3 rows and 3 columns");
}

/* The wgmma accumulator fragment: 128 threads x 4 registers cover each 64 x 8 column group once,
 * registers 2 h, 2 h + 1 on one row (the epilogue's pairs); split-K's partial tile fits its ring. */
static void test_fragment(void)
{
    int seen[64][8];
    memset(seen, 0, sizeof seen);
    int pairs = 1;
    for (int t = 0; t < 128; t++)
        for (int i = 0; i < 4; i++) {
            seen[tm_acc_row(t, i)][tm_acc_col(t, i)]++;
            if (i % 2 == 0) pairs &= tm_acc_row(t, i + 1) == tm_acc_row(t, i) && tm_acc_col(t, i + 1) == tm_acc_col(t, i) + 1;
        }
    int once = 1;
    for (int r = 0; r < 64; r++)
        for (int c = 0; c < 8; c++) once &= seen[r][c] == 1;
    CHECK(once, "every element of a 64 x 8 group once");
    CHECK(pairs, "registers 2h, 2h + 1: channels m, m + 1 of one pixel");
    const tm_geom g = tm_geom_make(1, 832, 7, 7, 256, 1, 1, 0, 0, 2, 0, 128, 0); /* T3A, 128 x 64, 9 stages */
    CHECK(tm_partial_addr(0, 64, 128, 0) == 128u * 68 * 4, "partial rows padded by 4 floats");
    CHECK(9 * tm_stage_bytes(&g, 64) >= tm_partial_addr(0, 64, 128, 0), "ks tiles: the partial tile fits the ring");
    CHECK(g.nk == 13, "T3A: 13 k-tiles to split, got %d", g.nk);
}

/* The ping-pong schedule's ring protocol, simulated (tm_conv with PP): one producer, two consumer
 * warpgroups, `stages` stages, each with a full and an empty mbarrier whose waits are parity waits
 * (mbarrier.try_wait.parity P passes while the barrier's current phase has the other parity: it
 * cannot tell the phase it waits for from the one two back). Boxes j = 0, 1, .. of nk k-tiles each
 * go to warpgroup j % 2; the ring's tile k is stage tm_stage(k), parity tm_parity(k). Each step a
 * random agent that can move does (an arrival, a landing or a wait that passes), so many seeds
 * cover many interleavings. A consumer passing the full wait of tile k must find the stage holding
 * exactly tile k (k / stages + 1 phases completed), and the producer passing the empty wait before
 * refilling a stage must find its previous tile released. Returns the faults seen (0: none);
 * *stuck: 1 if the agents deadlocked. turns: the kernel's turn-taking (pp_wait_turn, pp_pass_turn). */
typedef struct { unsigned long long s; } sim_rng;
static int sim_next(sim_rng *r, int n)
{
    r->s = r->s * 6364136223846793005ull + 1442695040888963407ull;
    return (int)((r->s >> 33) % (unsigned long long)n);
}

static int simulate_pingpong(int stages, int nk, int boxes, int turns, unsigned long long seed, int *stuck)
{
    enum { MAXS = 8, MAXT = 64 };
    int full_done[MAXS] = {0}, empty_done[MAXS] = {0}, landed_pending[MAXT] = {0};
    int turn_passed[MAXT] = {0};
    const int tiles = nk * boxes;
    int produced = 0, faults = 0;
    int box_of[2] = {0, 1}, i_of[2] = {0, 0}, waited[2] = {0, 0}; /* consumer c's box, k-tile, wait done */
    sim_rng rng = {seed};
    *stuck = 0;
    for (int step = 0; step < 100000; step++) {
        int moves[8], n = 0; /* 0: producer issues, 1: a landing, 2 + c: consumer c */
        if (produced < tiles) {
            const int k = produced, st = tm_stage(k, stages);
            if (k < stages || (int)((unsigned)empty_done[st] & 1u) != (int)tm_parity(k - stages, stages)) moves[n++] = 0;
        }
        for (int k = 0; k < produced; k++)
            if (landed_pending[k]) { moves[n++] = 1; break; }
        for (int c = 0; c < 2; c++) {
            if (box_of[c] >= boxes) continue;
            const int j = box_of[c], k = j * nk + i_of[c], st = tm_stage(k, stages);
            if (i_of[c] == 0 && !waited[c] && turns && j > 0 && !turn_passed[j - 1]) continue; /* pp_wait_turn */
            if (waited[c] || (int)((unsigned)full_done[st] & 1u) != (int)tm_parity(k, stages)) moves[n++] = 2 + c;
        }
        if (n == 0) {
            int done = produced == tiles && box_of[0] >= boxes && box_of[1] >= boxes;
            *stuck = !done;
            return faults;
        }
        const int m = moves[sim_next(&rng, n)];
        if (m == 0) { /* the producer, having passed the empty wait: the stage must be free */
            const int k = produced, st = tm_stage(k, stages);
            if (k >= stages && empty_done[st] < k / stages) faults++;
            landed_pending[k] = 1, produced++;
        } else if (m == 1) { /* the oldest pending copy lands: its full barrier's phase completes */
            for (int k = 0; k < produced; k++)
                if (landed_pending[k]) { landed_pending[k] = 0, full_done[tm_stage(k, stages)]++; break; }
        } else {
            const int c = m - 2, j = box_of[c], k = j * nk + i_of[c], st = tm_stage(k, stages);
            if (!waited[c]) { /* the full wait of tile k passes: the stage must hold tile k */
                if (full_done[st] != k / stages + 1) faults++;
                waited[c] = 1;
                if (i_of[c] > 0) empty_done[tm_stage(k - 1, stages)]++; /* release tile k - 1 */
                if (i_of[c] == nk - 1 && turns && j + 1 < boxes) turn_passed[j] = 1; /* pp_pass_turn */
            } else { /* the k-tile's MMAs issued: on to the next tile, or (last) release it and take box j + 2 */
                waited[c] = 0;
                if (++i_of[c] == nk) empty_done[st]++, i_of[c] = 0, box_of[c] += 2;
            }
        }
    }
    *stuck = 1;
    return faults;
}

static void test_pingpong_protocol(void)
{
    int faults_with = 0, stuck_with = 0, faults_without = 0, runs = 0;
    for (int stages = 2; stages <= 4; stages++)
        for (int nk = 1; nk <= 12; nk += (nk < 3 ? 1 : 4)) /* 1, 2, 3, 7, 11 */
            for (int boxes = 1; boxes <= 5; boxes++)
                for (unsigned long long seed = 1; seed <= 40; seed++) {
                    int stuck;
                    faults_with += simulate_pingpong(stages, nk, boxes, 1, seed, &stuck);
                    stuck_with += stuck;
                    faults_without += simulate_pingpong(stages, nk, boxes, 0, seed, &stuck);
                    runs++;
                }
    CHECK(faults_with == 0 && stuck_with == 0, "ping-pong with turns: %d stale passes, %d deadlocks in %d runs",
          faults_with, stuck_with, runs);
    CHECK(faults_without > 0, "the model sees the stale pass the turns prevent (79dfae7's hang): %d without turns",
          faults_without);
}

/* y's staging for the TMA store: each warp's 2 KB holds its 16 rows x 128 bytes once each (a
 * bijection), in the 128-byte swizzle TMA reads (unit u of row r at u ^ r % 8), a warp's store of
 * one register pair (BF16: 4 bytes, FP32: 8) hits each bank at most once (BF16) or twice (FP32:
 * 256 bytes, two wavefronts anyway); and the staging fits beside E3_N32's 3 halo stages but not
 * beside 7 stages of 128 x 128 (those keep their ring and store from the registers). */
static void test_y_staging(void)
{
    static unsigned char seen[TM_Y_STAGE_BYTES];
    memset(seen, 0, sizeof seen);
    for (int r = 0; r < 16; r++)
        for (int b = 0; b < 128; b++) {
            const unsigned o = tm_y_stage_offset(r, b);
            CHECK(o < TM_Y_STAGE_BYTES && !seen[o]++, "row %d byte %d: offset %u once", r, b, o);
            CHECK(o / 128 == (unsigned)r && (o % 128) / 16 == (unsigned)((b / 16) ^ (r % 8)) && o % 16 == (unsigned)b % 16,
                  "row %d byte %d: the 128-byte swizzle", r, b);
        }
    for (int elem = 2; elem <= 4; elem += 2)
        for (int jj = 0; jj < 128 / elem / 8; jj++)
            for (int h = 0; h < 2; h++) {
                int banks[32] = {0}, worst = 0;
                for (int lane = 0; lane < 32; lane++)
                    for (int w = 0; w < elem / 2; w++) { /* the 4-byte words of the lane's pair */
                        const unsigned o = tm_y_stage_offset(lane / 4 + 8 * h, (8 * jj + 2 * (lane % 4)) * elem) + 4 * w;
                        const int n = ++banks[o / 4 % 32];
                        worst = n > worst ? n : worst;
                    }
                CHECK(worst == elem / 2, "elem %d, unit %d, rows +%d: %d-way bank use", elem, jj, 8 * h, worst);
            }
    tm_geom g = tm_geom_make(32, 128, 64, 64, 128, 3, 3, 1, 1, 2, 1, 128, 0); /* pp_halo_128x128 */
    g.stages = tm_fit_stages(&g, 128, 8, 227 * 1024);
    g.ystage = tm_y_stage_at(&g, 128, 227 * 1024);
    CHECK(g.ystage == 209920 && g.ystage % 1024 == 0 && g.ystage >= (int)tm_ring_bytes(&g, 128),
          "E3_N32's staging past 3 stages and their barriers, 1024-aligned: %d", g.ystage);
    CHECK(tm_smem_bytes(&g, 128) == 1024 + 209920 + 16384 && tm_smem_bytes(&g, 128) <= 227 * 1024, "and fits 227 KB");
    g = tm_geom_make(32, 128, 64, 64, 128, 3, 3, 1, 1, 2, 0, 128, 0);
    g.stages = tm_fit_stages(&g, 128, 7, 227 * 1024);
    CHECK(g.stages == 7 && tm_y_stage_at(&g, 128, 227 * 1024) == 0, "7 stages of 128 x 128 leave no room");
}

int main(void)
{
    test_geometry();
    test_w_map();
    test_ktiles();
    test_units();
    test_offsets();
    test_fragment();
    test_y_staging();
    test_pingpong_protocol();
    return check_report("test_tma_ring");
}
