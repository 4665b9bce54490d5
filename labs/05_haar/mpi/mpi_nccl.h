/* mpi_nccl.h - Lab 05 part 2 (haar_mpi): the NCCL helpers the nccl and nccl_compress experiments
 * share (gpu_modes.c); included only where HAVE_NCCL is defined. */
#ifndef MPI_NCCL_H
#define MPI_NCCL_H
#include <nccl.h>
#include "haar_mpi.h"

/* A failed NCCL call stops every rank (exit 1), naming the call and this rank. */
void nccl_check(ncclResult_t rc, const char *what, int rank);
/* A communicator over P's ranks, started over MPI: rank 0's unique id, broadcast (NULL on 1 rank:
 * there is nothing to move or sum). nccl_close frees it. */
ncclComm_t nccl_open(const problem *P);
void nccl_close(ncclComm_t comm, int rank);

#endif
