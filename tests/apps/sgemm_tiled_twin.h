/* sgemm_tiled_twin.h: host twin of sgemm_tiled.cuh: the same tiles, the same zero
 * padding and the same FMA order per output element, so the result is bit-exact.
 * Included by the twin file of each program that launches the kernel. */
#ifndef FT_SGEMM_TILED_TWIN_H
#define FT_SGEMM_TILED_TWIN_H

#include <math.h>

#include "twin_util.h"

#define TILE 16

/* sgemm_tiled(const float *A, const float *B, float *C, int n), 16 x 16 threads. */
static void sgemm_twin(const simcuda_block_t *blk, void **params) {
  const int n = TWIN_ARG(params, 3, int);
  if (blk->blockDim.x != TILE || blk->blockDim.y != TILE || blk->blockDim.z != 1) return;
  const size_t bytes = (size_t)n * n * sizeof(float);
  const float *A = twin_span(blk, TWIN_ARG(params, 0, const float *), bytes);
  const float *B = twin_span(blk, TWIN_ARG(params, 1, const float *), bytes);
  float *C = twin_span(blk, TWIN_ARG(params, 2, float *), bytes);
  if (!A || !B || !C) return;
  float As[TILE][TILE], Bs[TILE][TILE], acc[TILE][TILE] = {{0}};
  const int row0 = (int)blk->blockIdx.y * TILE, col0 = (int)blk->blockIdx.x * TILE;
  for (int t = 0; t < (n + TILE - 1) / TILE; t++) {
    for (int ty = 0; ty < TILE; ty++) /* load phase, up to __syncthreads */
      for (int tx = 0; tx < TILE; tx++) {
        const int row = row0 + ty, col = col0 + tx, ac = t * TILE + tx, br = t * TILE + ty;
        As[ty][tx] = (row < n && ac < n) ? A[(size_t)row * n + ac] : 0.0f;
        Bs[ty][tx] = (br < n && col < n) ? B[(size_t)br * n + col] : 0.0f;
      }
    for (int ty = 0; ty < TILE; ty++) /* multiply phase */
      for (int tx = 0; tx < TILE; tx++)
        for (int k = 0; k < TILE; k++) acc[ty][tx] = fmaf(As[ty][k], Bs[k][tx], acc[ty][tx]);
  }
  for (int ty = 0; ty < TILE; ty++)
    for (int tx = 0; tx < TILE; tx++) {
      const int row = row0 + ty, col = col0 + tx;
      if (row < n && col < n) C[(size_t)row * n + col] = acc[ty][tx];
    }
}

static const uint16_t sgemm_size[] = {8, 8, 8, 4}, sgemm_align[] = {8, 8, 8, 4};
#define SGEMM_TILED_TWIN \
  SIMCUDA_KERNEL("_Z11sgemm_tiledPKfS0_Pfi", sgemm_twin, sgemm_size, sgemm_align)

#endif
