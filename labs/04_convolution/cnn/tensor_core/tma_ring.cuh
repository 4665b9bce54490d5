/* tma_ring.cuh - Lab 04, part 2: what the TMA wgmma kernels (tm_conv.cuh) stand on:
 *   - the index arithmetic of a layer walked as boxes of output pixels and k-tiles through a ring of
 *     shared-memory stages (plain C, the same on host and device: the host sizes the grid, the maps
 *     and the ring with the very functions the kernel reads them with);
 *   - the PTX the ring is made of (sm_90a only, under TMA_BUILT): mbarriers, TMA tile loads (and
 *     their cluster multicast), cluster barriers, distributed shared memory, and the grid
 *     dependency control of programmatic dependent launch.
 * Included by tm_conv.cuh (the kernels, templates: one translation unit, 05_wgmma_tma.cu) and by
 * tests/test_tma_ring.cu (the index arithmetic, on the CPU). */
#ifndef CNN_TMA_RING_CUH
#define CNN_TMA_RING_CUH
#include "gl_tma.h" /* CUtensorMap */

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define TMA_BUILT 1
#else
#define TMA_BUILT 0
#endif
#define TM_HD static __host__ __device__ __forceinline__

/* ---- index arithmetic: plain C, the same on host and device ---- */
enum { TM_ROW_BYTES = 128, TM_THREADS = 384, TM_CONSUMER_WARPS = 8, TM_KSTEPS = 4 };

/* The layer as the kernel walks it. A k-tile is `rt` filter taps (r0 .. r0 + rt - 1, s) of one
 * 128-byte channel chunk: rt = 1 (one box per tap), or rt = R ("halo": one box of bh + R - 1 rows
 * serves the R taps of a filter column, tap r being the box's rows from r bw on). */
typedef struct {
    int N, H, W, M, R, S, Cp, Hp, Wp; /* Cp: channels in memory; Hp x Wp: x's image in memory */
    int oy, ox;                       /* x's map coordinates of output pixel (0, 0)'s tap (0, 0) */
    int kc, chunks, rt, nk;           /* channels per 128-byte chunk; chunks per tap; taps per k-tile; k-tiles */
    int rows, bw, bh, tiles_x, tiles_y; /* GEMM rows per box (128, 256), the box (bw bh = rows), boxes per image */
    int a_rows, stages;               /* rows of a k-tile's x box ((bh + rt - 1) bw); the ring's stages */
    int nhwc_out;                     /* 1: y written channels-last (NHWC), else NCHW */
    int ystage;                       /* y's staging for the TMA store, bytes from the ring's base; 0: none */
} tm_geom;

/* bw: the power of two >= W, from 8 up to the box's rows (16 with the halo: taller boxes, less halo). x in
 * memory: `bordered` (mma3's xp: a zero border of pad pixels, C rounded up to 8, map coordinates
 * from 0) or the plain NHWC tensor (Cp = C; the map's coordinates start at -pad and TMA fills what
 * lies outside the tensor with zeros: the border costs neither memory nor a copy). */
TM_HD tm_geom tm_geom_make(int N, int C, int H, int W, int M, int R, int S, int pad_h, int pad_w, int elem_bytes,
                           int halo, int rows, int bordered)
{
    tm_geom g;
    g.N = N, g.H = H, g.W = W, g.M = M, g.R = R, g.S = S, g.Cp = bordered ? (C + 7) / 8 * 8 : C;
    g.Hp = bordered ? H + 2 * pad_h : H, g.Wp = bordered ? W + 2 * pad_w : W;
    g.oy = bordered ? 0 : -pad_h, g.ox = bordered ? 0 : -pad_w;
    g.kc = 128 / elem_bytes, g.chunks = (g.Cp + g.kc - 1) / g.kc, g.rt = halo ? R : 1;
    g.nk = R / g.rt * S * g.chunks;
    for (g.bw = 8; g.bw < W && g.bw < (halo ? 16 : rows); g.bw *= 2) {
    }
    g.rows = rows, g.bh = rows / g.bw, g.tiles_x = (W + g.bw - 1) / g.bw, g.tiles_y = (H + g.bh - 1) / g.bh;
    g.a_rows = (g.bh + g.rt - 1) * g.bw, g.stages = 0, g.nhwc_out = 0, g.ystage = 0; /* tm_fit_stages, tm_y_stage_at */
    return g;
}

/* Block b's work: output channels m0.. (bn of them) of the box of image n with top-left output
 * pixel (y0, x0). The channel blocks of one box are neighbours in launch order, so the box's x
 * rows are still in L2 when its other channel blocks read them. Blocks: tm_units with cl = 1. */
TM_HD void tm_block_at(const tm_geom *g, int b, int bn, int *n, int *y0, int *x0, int *m0)
{
    const int m_blocks = (g->M + bn - 1) / bn, box = b / m_blocks, per_image = g->tiles_x * g->tiles_y;
    const int q = box % per_image, ty = q / g->tiles_x;
    *m0 = (b - box * m_blocks) * bn, *n = box / per_image, *y0 = ty * g->bh, *x0 = (q - ty * g->tiles_x) * g->bw;
}

/* Clusters of cl blocks (cl = 1, 2, 4) share w: a cluster's unit of work u is cl boxes of the same
 * output channels m0 (the boxes cl v .. cl v + cl - 1, v = u / m_blocks), rank r taking box
 * cl v + r; past the last box (boxes not a multiple of cl) a rank computes zeros and stores nothing
 * (tm_out_offset: n >= N). tm_unit_block: the block index (as tm_block_at reads it) of rank r. */
TM_HD int tm_units(const tm_geom *g, int bn, int cl)
{
    const int m_blocks = (g->M + bn - 1) / bn, boxes = g->N * g->tiles_y * g->tiles_x;
    return (boxes + cl - 1) / cl * m_blocks;
}
TM_HD int tm_unit_block(const tm_geom *g, int bn, int cl, int u, int r)
{
    const int m_blocks = (g->M + bn - 1) / bn;
    return ((u / m_blocks) * cl + r) * m_blocks + u % m_blocks;
}

/* k-tile i: taps (r0 + j, s), j < rt, first channel c0. Its boxes: x at (c0, x0 + s + ox, y0 + r0 + oy,
 * n) (input pixel y0 + r0 - pad; a bordered xp's row y0 + r0), w at (c0, (r0 + j) S + s, m0). */
TM_HD void tm_ktile_at(const tm_geom *g, int i, int *c0, int *r0, int *s)
{
    const int group = i / g->chunks, col = group / g->S;
    *c0 = (i - group * g->chunks) * g->kc, *r0 = col * g->rt, *s = group - col * g->S;
}

/* The shared-memory matrix descriptor of a K-major operand in the 128-byte swizzle (PTX ISA, "Matrix
 * Descriptor Format"): start address >> 4 (bits 0-13), leading byte offset 16 >> 4 (bits 16-29:
 * unused when the k-step, 32 bytes, lies inside the 128-byte swizzle row), stride byte offset
 * 1024 >> 4 (bits 32-45: the next 8 rows), base offset 0 (stages are 1024-byte aligned), layout type
 * 1 = 128-byte swizzle (bits 62-63). k-step j of a chunk starts 32 j bytes into the row. */
TM_HD unsigned long long tm_desc(unsigned addr)
{
    return (unsigned long long)((addr & 0x3FFFF) >> 4) | 1ull << 16 | (unsigned long long)(1024 >> 4) << 32 |
           1ull << 62;
}

/* wgmma's accumulator register i of thread t (0..127) of a warpgroup (PTX ISA, m64nNk16 D fragment):
 * row 16 (t / 32) + (t % 32) / 4 (+ 8), column 8 (i / 4) + 2 (t % 4) (+ 1). */
TM_HD int tm_acc_row(int t, int i) { return 16 * (t / 32) + t % 32 / 4 + 8 * (i >> 1 & 1); }
TM_HD int tm_acc_col(int t, int i) { return 8 * (i >> 2) + 2 * (t % 4) + (i & 1); }

/* y's offset of GEMM row `row` (pixel (row / bw, row % bw) of the box) at output channel 0, -1
 * outside the image (or past the last image: a cluster's spare rank); the step from one output
 * channel to the next is tm_channel_step: 1 channels-last (NHWC), H W in NCHW. One per row: the
 * epilogue adds channel offsets to it, no division per element. */
TM_HD long long tm_row_offset(const tm_geom *g, int n, int y0, int x0, int row)
{
    const int y = y0 + row / g->bw, x = x0 + row % g->bw;
    if (!(n < g->N && y < g->H && x < g->W)) return -1;
    return g->nhwc_out ? (((long long)n * g->H + y) * g->W + x) * g->M : ((long long)n * g->M * g->H + y) * g->W + x;
}
TM_HD long long tm_channel_step(const tm_geom *g) { return g->nhwc_out ? 1 : (long long)g->H * g->W; }

/* The ring: k-tile i uses stage i % stages in round i / stages. Its full barrier completes phase
 * i / stages (wait parity (i / stages) & 1); before refilling the stage for tile i >= stages the
 * producer waits for the empty barrier's phase of tile i - stages's release. */
TM_HD int tm_stage(int i, int stages) { return i % stages; }
TM_HD unsigned tm_parity(int i, int stages) { return (unsigned)(i / stages) & 1u; }

/* Shared memory: the ring's stages from `base` (1024-byte aligned: the swizzle pattern repeats every
 * 8 rows of 128 bytes), each a_rows rows of x then rt x bn rows of w (tap j's at j bn); then the
 * 2 x stages mbarriers. For tap j the 64-row MMA block mb reads x's rows 64 mb + j bw .. (a
 * multiple of 8 rows: bw >= 8); k-step ks of a chunk starts 32 ks bytes into every row (16 BF16 or
 * 8 TF32). tm_fit_stages: the most stages (up to max) whose bytes, with 1024 of slack for the
 * alignment, fit `budget`. */
TM_HD unsigned tm_align1024(unsigned addr) { return (addr + 1023) & ~1023u; }
TM_HD unsigned tm_stage_bytes(const tm_geom *g, int bn) { return (unsigned)(g->a_rows + g->rt * bn) * TM_ROW_BYTES; }
TM_HD unsigned tm_ring_bytes(const tm_geom *g, int bn) { return g->stages * (tm_stage_bytes(g, bn) + 16); }
/* y through shared memory (the epilogue of channels-last y, when it fits): consumer warp v (0 .. 7)
 * stages 16 GEMM rows x 128 bytes of y at ystage + 2048 v, row r at 128 r and its 16-byte unit u at
 * 16 (u ^ r % 8): the 128-byte swizzle the y map's TMA store reads (rows of one warp store fall in
 * eight different bank groups). tm_y_stage_at: ystage, 1024-aligned past the barriers, or 0 where
 * the 8 warps' 16 KB would not fit the budget (the ring keeps its stages; y is then stored from
 * the registers). */
enum { TM_Y_STAGE_BYTES = 2048 };
TM_HD unsigned tm_y_stage_offset(int row, int byte)
{
    return (unsigned)(row * TM_ROW_BYTES + (((byte >> 4) ^ (row & 7)) << 4) + (byte & 15));
}
TM_HD int tm_y_stage_at(const tm_geom *g, int bn, unsigned budget)
{
    const unsigned at = tm_align1024(tm_ring_bytes(g, bn));
    return 1024 + at + TM_CONSUMER_WARPS * TM_Y_STAGE_BYTES <= budget ? (int)at : 0;
}
TM_HD unsigned tm_smem_bytes(const tm_geom *g, int bn)
{
    return 1024 + (g->ystage ? g->ystage + TM_CONSUMER_WARPS * TM_Y_STAGE_BYTES : tm_ring_bytes(g, bn));
}
TM_HD int tm_fit_stages(const tm_geom *g, int bn, int max, unsigned budget)
{
    const int fit = (int)((budget - 1024) / (tm_stage_bytes(g, bn) + 16));
    return fit < max ? fit : max;
}
TM_HD unsigned tm_a_addr(const tm_geom *g, unsigned base, int st, int bn, int mb)
{
    return base + st * tm_stage_bytes(g, bn) + mb * 64 * TM_ROW_BYTES;
}
TM_HD unsigned tm_b_addr(const tm_geom *g, unsigned base, int st, int bn)
{
    return base + st * tm_stage_bytes(g, bn) + g->a_rows * TM_ROW_BYTES;
}
TM_HD unsigned tm_a_step(const tm_geom *g, int j, int ks) { return j * g->bw * TM_ROW_BYTES + 32 * ks; }
/* Whether a k-tile's rt taps of w come as one box (a 4-d map over w): halo tiles without a cluster
 * (a cluster rank multicasts its share of each tap's rows, one box a tap). */
TM_HD int tm_w_one_box(const tm_geom *g, int cl) { return g->rt > 1 && cl == 1; }
TM_HD unsigned tm_b_step(int bn, int j, int ks) { return j * bn * TM_ROW_BYTES + 32 * ks; }
/* w's map (encode_maps) over w [M][R S][Cp], `row` bytes a tap's Cp values; its rank. One box a tap:
 * dims (Cp, R S, M), box (kc, 1, bn / cl), coordinates (c0, tap, m0). One box a halo k-tile
 * (tm_w_one_box): w seen as [M][R][S][Cp] and walked (c, m, r, s), box (kc, bn, rt, 1), coordinates
 * (c0, m0, r0, s): tap j's bn rows land j bn rows into the stage's w, where tm_b_step reads them. */
TM_HD int tm_w_map(const tm_geom *g, int bn, int cl, cuuint64_t row, cuuint64_t dims[4], cuuint64_t strides[3],
                   cuuint32_t box[4])
{
    const cuuint64_t taps = (cuuint64_t)g->R * g->S;
    if (tm_w_one_box(g, cl)) {
        dims[0] = (cuuint64_t)g->Cp, dims[1] = (cuuint64_t)g->M, dims[2] = (cuuint64_t)g->R, dims[3] = (cuuint64_t)g->S;
        strides[0] = row * taps, strides[1] = row * g->S, strides[2] = row;
        box[0] = (cuuint32_t)g->kc, box[1] = (cuuint32_t)bn, box[2] = (cuuint32_t)g->rt, box[3] = 1;
        return 4;
    }
    dims[0] = (cuuint64_t)g->Cp, dims[1] = taps, dims[2] = (cuuint64_t)g->M;
    strides[0] = row, strides[1] = row * taps;
    box[0] = (cuuint32_t)g->kc, box[1] = 1, box[2] = (cuuint32_t)(bn / cl); /* a cluster rank's share */
    return 3;
}
/* Split-K partial tiles in the ring's shared memory once the mainloop is over: FP32, row r of the
 * box at r (BN + 4) floats (4 of padding: the rows of one store fall in different banks). */
TM_HD unsigned tm_partial_addr(unsigned base, int bn, int row, int col) { return base + (unsigned)(row * (bn + 4) + col) * 4; }
/* ---- end of the index arithmetic ---- */

#if TMA_BUILT
static __device__ __forceinline__ void bar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
/* The producer's arrival: one of the full barrier's one, and `bytes` more to land before it completes. */
static __device__ __forceinline__ void bar_arrive_expect_tx(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
static __device__ __forceinline__ void bar_arrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
/* bar_arrive where `p`, as one predicated instruction: no branch, so a wgmma sequence around it stays
 * one basic block (a branch there makes ptxas insert a warpgroup.arrive before the next wgmma). */
static __device__ __forceinline__ void bar_arrive_if(unsigned bar, bool p)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %1, 0;\n@p mbarrier.arrive.shared::cta.b64 _, [%0];\n}\n" ::"r"(bar),
                 "r"((int)p)
                 : "memory");
}
/* Until the phase of parity `parity` has completed. */
static __device__ __forceinline__ void bar_wait(unsigned bar, unsigned parity)
{
    asm volatile("{\n.reg .pred done;\nTM_WAIT:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra TM_WAIT;\n}\n" ::"r"(bar),
                 "r"(parity)
                 : "memory");
}
/* Rank of this block in its cluster; the whole cluster's barrier (every thread of every block). */
static __device__ __forceinline__ unsigned cluster_rank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}
static __device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}
/* An arrival on the mbarrier at `bar` (this block's shared address) in cluster block `rank`
 * (release at the block's scope, as for a local arrival: the reads it orders are the block's own). */
static __device__ __forceinline__ void bar_arrive_at(unsigned bar, unsigned rank)
{
    asm volatile("{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar),
                 "r"(rank)
                 : "memory");
}
static __device__ __forceinline__ void bar_arrive_at_if(unsigned bar, unsigned rank, bool p)
{
    asm volatile("{\n.reg .b32 remote;\n.reg .pred p;\nsetp.ne.b32 p, %2, 0;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
                 "@p mbarrier.arrive.shared::cluster.b64 _, [remote];\n}\n" ::"r"(bar),
                 "r"(rank), "r"((int)p)
                 : "memory");
}
/* The box at coordinates c (innermost first) of the tensor map into shared memory at dst; the TMA
 * engine counts its bytes on the mbarrier bar. */
static __device__ __forceinline__ void tma_load_4d(unsigned dst, const CUtensorMap *map, unsigned bar, int c0, int c1,
                                                   int c2, int c3)
{
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, "
                 "%4, %5, %6}], [%2];\n" ::"r"(dst),
                 "l"(map), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
                 : "memory");
}
static __device__ __forceinline__ void tma_load_3d(unsigned dst, const CUtensorMap *map, unsigned bar, int c0, int c1,
                                                   int c2)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%3, "
                 "%4, %5}], [%2];\n" ::"r"(dst),
                 "l"(map), "r"(bar), "r"(c0), "r"(c1), "r"(c2)
                 : "memory");
}

/* The box of y at coordinates c (innermost first) from shared memory at src, by the TMA engine, as one
 * bulk group of this thread; wait_read: until the engine has read the thread's groups' shared memory
 * (src may be written again); wait_all: until their writes are done. The fence makes this thread's
 * ordinary shared-memory writes visible to the engine (the async proxy). */
static __device__ __forceinline__ void tma_store_4d(const CUtensorMap *map, unsigned src, int c0, int c1, int c2, int c3)
{
    asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], [%1];\n"
                 "cp.async.bulk.commit_group;\n" ::"l"(map),
                 "r"(src), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
                 : "memory");
}
static __device__ __forceinline__ void tma_store_wait_read() { asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory"); }
static __device__ __forceinline__ void tma_store_wait_all() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }
static __device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

/* Two floats at this block's shared address a in cluster block `rank` (distributed shared memory). */
static __device__ __forceinline__ float2 ld_cluster_f2(unsigned a, unsigned rank)
{
    float2 v;
    asm volatile("{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %2, %3;\n"
                 "ld.shared::cluster.v2.f32 {%0, %1}, [remote];\n}\n"
                 : "=f"(v.x), "=f"(v.y)
                 : "r"(a), "r"(rank)
                 : "memory");
    return v;
}
/* The two consumer warpgroups (256 threads) meet; the producer warpgroup is not waited for. */
static __device__ __forceinline__ void consumers_sync() { asm volatile("bar.sync 1, 256;\n" ::: "memory"); }

/* Programmatic dependent launch (Hopper): a kernel launched with the programmatic-serialization
 * attribute (the pdl_ tiles) may start while the kernel before it in the stream still runs, once
 * every block of that one has said griddepcontrol.launch_dependents (or exited). Its blocks go to the
 * SMs the other leaves idle, set up their barriers, and wait in griddepcontrol.wait until it has
 * finished and its memory is visible: only then is x read or y written. What it saves: the launch's
 * latency and the prologue, a good part of a layer that lasts 3 to 6 us. Without the attribute both
 * instructions return at once. */
static __device__ __forceinline__ void pdl_let_next_launch()
{
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
}
static __device__ __forceinline__ void pdl_wait_for_inputs()
{
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
}

/* tma_load_3d to the same shared address and mbarrier of every block in `mask` (cluster ranks). */
static __device__ __forceinline__ void tma_load_3d_multicast(unsigned dst, const CUtensorMap *map, unsigned bar, int c0,
                                                             int c1, int c2, unsigned short mask)
{
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1, {%3, %4, %5}], [%2], %6;\n" ::"r"(dst),
                 "l"(map), "r"(bar), "r"(c0), "r"(c1), "r"(c2), "h"(mask)
                 : "memory");
}
#endif
#endif
