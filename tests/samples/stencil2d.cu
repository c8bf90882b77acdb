// stencil2d: a 5-point Laplacian over a 2-D grid; each block stages its tile plus a
// one-cell halo in dynamic shared memory (extern __shared__, size at launch).
#include <cmath>
#include <vector>
#include "samples.h"

__global__ void stencil(const float *in, float *out, int w, int h) {
  extern __shared__ float tile[];
  int tw = blockDim.x + 2;
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  // Load the (blockDim+2)^2 tile cooperatively, clamping at the borders.
  for (int ty = threadIdx.y; ty < blockDim.y + 2; ty += blockDim.y)
    for (int tx = threadIdx.x; tx < blockDim.x + 2; tx += blockDim.x) {
      int gx = min(max((int)(blockIdx.x * blockDim.x) + tx - 1, 0), w - 1);
      int gy = min(max((int)(blockIdx.y * blockDim.y) + ty - 1, 0), h - 1);
      tile[ty * tw + tx] = in[gy * w + gx];
    }
  __syncthreads();
  if (x < w && y < h) {
    int c = (threadIdx.y + 1) * tw + threadIdx.x + 1;
    out[y * w + x] = tile[c - 1] + tile[c + 1] + tile[c - tw] + tile[c + tw] - 4.0f * tile[c];
  }
}

int main() {
  const int w = 150, h = 97;
  std::vector<float> in(w * h), out(w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) in[y * w + x] = (float)((x * x + 3 * y) % 23);
  float *din, *dout;
  CHECK(cudaMalloc(&din, w * h * 4));
  CHECK(cudaMalloc(&dout, w * h * 4));
  CHECK(cudaMemcpy(din, in.data(), w * h * 4, cudaMemcpyHostToDevice));
  dim3 block(16, 8), grid((w + 15) / 16, (h + 7) / 8);
  size_t shmem = (block.x + 2) * (block.y + 2) * sizeof(float);
  stencil<<<grid, block, shmem>>>(din, dout, w, h);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out.data(), dout, w * h * 4, cudaMemcpyDeviceToHost));
  bool ok = true;
  auto at = [&](int x, int y) { return in[std::min(std::max(y, 0), h - 1) * w + std::min(std::max(x, 0), w - 1)]; };
  for (int y = 0; y < h && ok; y++)
    for (int x = 0; x < w && ok; x++) {
      float ref = at(x - 1, y) + at(x + 1, y) + at(x, y - 1) + at(x, y + 1) - 4.0f * at(x, y);
      if (out[y * w + x] != ref) {  // small integers: exact
        printf("out(%d,%d) = %f, expected %f\n", x, y, out[y * w + x], ref);
        ok = false;
      }
    }
  cudaFree(din);
  cudaFree(dout);
  return verdict("stencil2d", ok);
}
