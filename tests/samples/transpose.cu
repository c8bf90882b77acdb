// transpose: a matrix transposed through a 32x33 shared tile (padded against bank
// conflicts), 32x8 threads per tile, as in the transpose sample.
#include <vector>
#include "samples.h"

#define TILE 32
#define ROWS 8

__global__ void transpose(float *out, const float *in, int w, int h) {
  __shared__ float tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
  const int w = 200, h = 136;
  std::vector<float> in(w * h), out(w * h);
  for (int i = 0; i < w * h; i++) in[i] = (float)i * 0.5f;
  float *din, *dout;
  CHECK(cudaMalloc(&din, w * h * 4));
  CHECK(cudaMalloc(&dout, w * h * 4));
  CHECK(cudaMemcpy(din, in.data(), w * h * 4, cudaMemcpyHostToDevice));
  dim3 grid((w + TILE - 1) / TILE, (h + TILE - 1) / TILE), block(TILE, ROWS);
  transpose<<<grid, block>>>(dout, din, w, h);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), dout, w * h * 4, cudaMemcpyDeviceToHost));
  bool ok = true;
  for (int y = 0; y < h && ok; y++)
    for (int x = 0; x < w && ok; x++)
      if (out[x * h + y] != in[y * w + x]) {
        printf("out[%d][%d] = %f, expected %f\n", x, y, out[x * h + y], in[y * w + x]);
        ok = false;
      }
  cudaFree(din);
  cudaFree(dout);
  return verdict("transpose", ok);
}
