// sgemm_tiled.cuh: the shared-memory tiled SGEMM kernel of the CUDA programming
// guide (16x16 tiles, explicit FMAs in a fixed order), shared by tests/apps/sgemm and
// bench/matmul; its twin is sgemm_tiled_twin.h.
#ifndef FT_SGEMM_TILED_CUH
#define FT_SGEMM_TILED_CUH

#define TILE 16

__global__ void sgemm_tiled(const float *A, const float *B, float *C, int n) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < (n + TILE - 1) / TILE; t++) {
    const int ac = t * TILE + tx, br = t * TILE + ty;
    As[ty][tx] = (row < n && ac < n) ? A[(size_t)row * n + ac] : 0.0f;
    Bs[ty][tx] = (br < n && col < n) ? B[(size_t)br * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < TILE; k++) acc = __fmaf_rn(As[ty][k], Bs[k][tx], acc);
    __syncthreads();
  }
  if (row < n && col < n) C[(size_t)row * n + col] = acc;
}

#endif
