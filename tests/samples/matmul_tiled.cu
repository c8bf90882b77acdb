// matmul_tiled: C = A * B with 16x16 shared-memory tiles (the matrixMul sample's kernel).
#include <cmath>
#include <vector>
#include "samples.h"

#define TILE 16

__global__ void matmul(const float *A, const float *B, float *C, int n, int m, int k) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.0f;
  for (int t = 0; t < (k + TILE - 1) / TILE; t++) {
    int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < n && ac < k) ? A[row * k + ac] : 0.0f;
    Bs[threadIdx.y][threadIdx.x] = (br < k && col < m) ? B[br * m + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < TILE; i++) acc += As[threadIdx.y][i] * Bs[i][threadIdx.x];
    __syncthreads();
  }
  if (row < n && col < m) C[row * m + col] = acc;
}

int main() {
  const int n = 96, m = 80, k = 72;
  std::vector<float> a(n * k), b(k * m), c(n * m);
  for (int i = 0; i < n * k; i++) a[i] = (float)((i * 7) % 11) - 5.0f;
  for (int i = 0; i < k * m; i++) b[i] = (float)((i * 5) % 13) * 0.25f;
  float *da, *db, *dc;
  CHECK(cudaMalloc(&da, a.size() * 4));
  CHECK(cudaMalloc(&db, b.size() * 4));
  CHECK(cudaMalloc(&dc, c.size() * 4));
  CHECK(cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
  dim3 block(TILE, TILE), grid((m + TILE - 1) / TILE, (n + TILE - 1) / TILE);
  matmul<<<grid, block>>>(da, db, dc, n, m, k);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int i = 0; i < n && ok; i++)
    for (int j = 0; j < m && ok; j++) {
      double ref = 0;
      for (int t = 0; t < k; t++) ref += (double)a[i * k + t] * b[t * m + j];
      // Small integers and quarters: every partial sum is exact in float.
      if (c[i * m + j] != (float)ref) {
        printf("C[%d][%d] = %f, expected %f\n", i, j, c[i * m + j], ref);
        ok = false;
      }
    }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
  return verdict("matmul_tiled", ok);
}
