/* cnn_wgmma_stub.c - Lab 04, part 2: ours_bf16_wgmma(2) in a build without sm_90a code (90 not in
 * -Dcuda-arch): the rows are left out (cnn_supports_bf16_wgmma says so) and never launched. */
#include "cnn_tc.h"

int cnn_wgmma_built(void) { return 0; }

cnn_status cnn_launch_bf16_wgmma(const cnn_launch_args *a, cudaStream_t st)
{
    (void)a, (void)st;
    return CNN_ERR_VARIANT;
}

cnn_status cnn_launch_bf16_wgmma2(const cnn_launch_args *a, cudaStream_t st) { return cnn_launch_bf16_wgmma(a, st); }
