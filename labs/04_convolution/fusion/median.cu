/* median.cu - Lab 04, part 3: the median 3x3 ladder's rungs from the seed (scalar, vector, shared);
 * the best rung is a rolling kernel (rolling.cu). fusion.h defines the median with clamp to edge;
 * fusion_reference.c is the definition in C, and every kernel reproduces its bits. */
#include "fusion.h"
#include "gl_check.h"

#define SEED_TILE_X 32 /* the shared-memory median: 32 x 8 outputs per block */
#define SEED_TILE_Y 8

static __device__ __forceinline__ void sort2(int &a, int &b)
{
    const int lo = min(a, b);
    b = max(a, b);
    a = lo;
}

static __device__ __forceinline__ void sort3(int &a, int &b, int &c)
{
    sort2(a, b);
    sort2(b, c);
    sort2(a, b);
}

/* The seed's median of nine (Figure 4.1): sort the rows, sort the columns, and the median is the
 * middle of the anti-diagonal - 21 compare-exchanges, here each a min and a max (no branch). */
static __device__ __forceinline__ int median9(int p[9])
{
    sort3(p[0], p[1], p[2]);
    sort3(p[3], p[4], p[5]);
    sort3(p[6], p[7], p[8]);
    sort3(p[0], p[3], p[6]);
    sort3(p[1], p[4], p[7]);
    sort3(p[2], p[5], p[8]);
    sort3(p[2], p[4], p[6]);
    return p[4];
}

static __device__ __forceinline__ const uint8_t *row_at(bk_args a, int y)
{
    return a.in + (size_t)min(max(y, 0), a.height - 1) * a.pitch;
}

/* Lesson (scalar, the seed's first kernel): one output per thread, nine byte loads (clamped), the
 * network, one byte stored. */
static __global__ void median_kernel_scalar(bk_args a)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= a.width || y >= a.height) return;
    int p[9];
#pragma unroll
    for (int r = 0; r < 3; r++) {
        const uint8_t *row = row_at(a, y - 1 + r);
#pragma unroll
        for (int k = 0; k < 3; k++) p[3 * r + k] = row[min(max(x - 1 + k, 0), a.width - 1)];
    }
    a.out[(size_t)y * a.pitch + x] = (uint8_t)median9(p);
}

/* Lesson (vector, the seed's medianfilter_x4): four outputs per thread; each input row is one
 * 4-byte load plus its left and right neighbour bytes, and the four outputs leave as one uchar4. */
static __global__ void median_kernel_vector(bk_args a)
{
    const int x0 = 4 * (blockIdx.x * blockDim.x + threadIdx.x), y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x0 >= a.width || y >= a.height) return;
    int px[3][6]; /* px[r][i]: row y - 1 + r, column x0 - 1 + i */
#pragma unroll
    for (int r = 0; r < 3; r++) {
        const uint8_t *row = row_at(a, y - 1 + r);
        const uchar4 v = *(const uchar4 *)(row + x0);
        const int last = row[a.width - 1];
        px[r][0] = row[max(x0 - 1, 0)];
        px[r][1] = v.x, px[r][2] = v.y, px[r][3] = v.z, px[r][4] = v.w;
        px[r][5] = row[min(x0 + 4, a.width - 1)];
#pragma unroll
        for (int i = 2; i < 5; i++)
            if (x0 - 1 + i >= a.width) px[r][i] = last; /* past the right edge: clamp */
    }
    int m[4];
#pragma unroll
    for (int i = 0; i < 4; i++) {
        int p[9] = {px[0][i], px[0][i + 1], px[0][i + 2], px[1][i], px[1][i + 1], px[1][i + 2],
                    px[2][i], px[2][i + 1], px[2][i + 2]};
        m[i] = median9(p);
    }
    *(uchar4 *)(a.out + (size_t)y * a.pitch + x0) = make_uchar4(m[0], m[1], m[2], m[3]);
}

/* Lesson (shared, the seed's local-memory kernel): the block stages its (32 + 2) x (8 + 2) input
 * tile in shared memory once; the nine reads of every output are then served on chip. */
static __global__ void median_kernel_shared(bk_args a)
{
    __shared__ uint8_t tile[SEED_TILE_Y + 2][SEED_TILE_X + 2];
    const int bx = blockIdx.x * SEED_TILE_X, by = blockIdx.y * SEED_TILE_Y;
    for (int i = threadIdx.y * SEED_TILE_X + threadIdx.x; i < (SEED_TILE_X + 2) * (SEED_TILE_Y + 2);
         i += SEED_TILE_X * SEED_TILE_Y) {
        const int tx = i % (SEED_TILE_X + 2), ty = i / (SEED_TILE_X + 2);
        tile[ty][tx] = row_at(a, by - 1 + ty)[min(max(bx - 1 + tx, 0), a.width - 1)];
    }
    __syncthreads();
    const int x = bx + threadIdx.x, y = by + threadIdx.y;
    if (x >= a.width || y >= a.height) return;
    int p[9];
#pragma unroll
    for (int r = 0; r < 3; r++)
#pragma unroll
        for (int k = 0; k < 3; k++) p[3 * r + k] = tile[threadIdx.y + r][threadIdx.x + k];
    a.out[(size_t)y * a.pitch + x] = (uint8_t)median9(p);
}

void launch_median(median_rung r, const bk_args *a, cudaStream_t st)
{
    const dim3 block(SEED_TILE_X, SEED_TILE_Y);
    const unsigned gy = (unsigned)((a->height + SEED_TILE_Y - 1) / SEED_TILE_Y);
    switch (r) {
    case MED_SCALAR:
        median_kernel_scalar<<<dim3((a->width + SEED_TILE_X - 1) / SEED_TILE_X, gy), block, 0, st>>>(*a);
        break;
    case MED_VECTOR:
        median_kernel_vector<<<dim3((a->width + 4 * SEED_TILE_X - 1) / (4 * SEED_TILE_X), gy), block, 0, st>>>(*a);
        break;
    case MED_SHARED:
        median_kernel_shared<<<dim3((a->width + SEED_TILE_X - 1) / SEED_TILE_X, gy), block, 0, st>>>(*a);
        break;
    default:
        if (r >= MED_W16_R4) {
            launch_median_w16(a, r, st); /* median_w16.cu: MED_W16_R4 and every rung after it */
            return;
        }
        launch_median_best(a, r, st); /* rolling.cu, rolling_budget.cu */
        return;
    }
    GL_CHECK_LAUNCH();
}

const char *median_rung_name(median_rung r)
{
    static const char *const n[MED_RUNGS] = {"scalar", "vector", "shared", "best", "dpx",
                                                 "dpx_r48", "dpx_a6", "dpx_r48a6", "dpx_r12", "bulk_r48", "bulk_wave",
                                                 "w16_r4", "w16_r8", "w16_r4_fma", "w16_s12", "w16_s24", "w16_r8_lb", "w16_r4_cs", "w16_ring", "w16_tma", "w16_tma_dyn", "w16_tma_r8",
                                                 "w16_lean", "w16_keys", "w16_keys_we"};
    return r >= 0 && r < MED_RUNGS ? n[r] : "?";
}
