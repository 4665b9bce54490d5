/* Lab 04 - Your turn, the instructors' solution (built with -Dexercise-solutions=true in place of
 * exercises/conv3x3.cu; ANSWERS.md discusses it).
 *
 * Lesson: a block of 32 x 8 threads computes 128 x 8 pixels. It first copies its tile with the
 * halo, 130 x 10 bytes, into shared memory (consecutive threads, consecutive bytes: every byte
 * read from DRAM once per block, not 9 times per pixel), and the 9 weights into registers. Each
 * thread then slides a 3x3 window along 4 neighbouring pixels (3 new bytes a pixel instead of 9)
 * and stores the 4 as one 4-byte word where all are interior - the SM_CF4_Vec rung. */
#include "exercise.cuh"

#define BX 32
#define BY 8
#define CF 4
#define TW (BX * CF + 2)
#define TH (BY + 2)

static __device__ __forceinline__ int yours_conv_body(conv_args a, gl_load_counts *c)
{
    __shared__ uint8_t tile[TH][TW];
    int w[9];
#pragma unroll
    for (int k = 0; k < 9; k++) w[k] = LOAD(&a.filter[k]);
    const int ox = blockIdx.x * BX * CF - 1, oy = blockIdx.y * BY - 1;
    for (int i = threadIdx.y * BX + threadIdx.x; i < TW * TH; i += BX * BY) {
        int gx = ox + i % TW, gy = oy + i / TW;
        tile[i / TW][i % TW] = gx >= 0 && gy >= 0 && gx < a.width && gy < a.height ? LOAD(&a.in[(size_t)gy * a.pitch + gx]) : 0;
    }
    __syncthreads();
    const int x0 = (blockIdx.x * BX + threadIdx.x) * CF, y = blockIdx.y * BY + threadIdx.y;
    if (y < 1 || y > a.height - 2 || x0 > a.width - 2) return 1;
    const uint8_t *t = &tile[threadIdx.y][threadIdx.x * CF]; /* the window of pixel x0, top left */
    int f[3][3];
#pragma unroll
    for (int r = 0; r < 3; r++)
#pragma unroll
        for (int k = 0; k < 3; k++) f[r][k] = t[r * TW + k];
    uint8_t v[CF];
#pragma unroll
    for (int i = 0; i < CF; i++) {
        if (i > 0)
#pragma unroll
            for (int r = 0; r < 3; r++) {
                f[r][0] = f[r][1];
                f[r][1] = f[r][2];
                f[r][2] = t[r * TW + i + 2];
            }
        int sum = 0;
#pragma unroll
        for (int r = 0; r < 3; r++)
#pragma unroll
            for (int k = 0; k < 3; k++) sum += w[r * 3 + k] * f[r][k];
        v[i] = PIXEL(sum, a.shift);
    }
    uint8_t *o = a.out + (size_t)y * a.pitch + x0;
    if (x0 >= 1 && x0 + CF - 1 <= a.width - 2) *(uchar4 *)o = make_uchar4(v[0], v[1], v[2], v[3]);
    else
#pragma unroll
        for (int i = 0; i < CF; i++)
            if (x0 + i >= 1 && x0 + i <= a.width - 2) o[i] = v[i];
    return 1;
}

YOURS_KERNEL(yours_conv)

extern "C" void launch_yours_conv(const conv_args *a, cudaStream_t s)
{
    dim3 block(BX, BY), grid((a->width + BX * CF - 1) / (BX * CF), (a->height + BY - 1) / BY);
    YOURS_LAUNCH(yours_conv, grid, block, 0, s, *a);
}
