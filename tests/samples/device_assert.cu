// device_assert: assert() in a kernel, as users write it. A launch whose data meets
// the assertion runs; one where a thread fails it reports cudaErrorAssert at the
// next synchronisation, the failing thread's message goes to stderr, and the error
// is sticky: every later call that needs the device fails with it.
#undef NDEBUG  // the build's release flags would compile the assertion out
#include <cassert>
#include <vector>
#include "samples.h"

__global__ void check_positive(const int *x, int *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  assert(x[i] > 0);
  y[i] = 2 * x[i];
}

int main() {
  const int n = 1000;
  std::vector<int> x(n, 1);
  int *dx, *dy;
  CHECK(cudaMalloc(&dx, n * 4));
  CHECK(cudaMalloc(&dy, n * 4));
  CHECK(cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice));
  check_positive<<<(n + 255) / 256, 256>>>(dx, dy, n);
  CHECK(cudaDeviceSynchronize());
  std::vector<int> y(n);
  CHECK(cudaMemcpy(y.data(), dy, n * 4, cudaMemcpyDeviceToHost));
  bool ok = y[0] == 2 && y[n - 1] == 2;
  x[777] = -5;  // block 3, thread 9 fails the assertion
  CHECK(cudaMemcpy(dx, x.data(), n * 4, cudaMemcpyHostToDevice));
  check_positive<<<(n + 255) / 256, 256>>>(dx, dy, n);
  cudaError_t launch = cudaGetLastError();  // the launch itself is fine
  cudaError_t sync = cudaDeviceSynchronize();
  cudaError_t after = cudaMalloc(&dy, 4);  // sticky
  cudaError_t last = cudaGetLastError();   // cannot be cleared
  printf("launch: %s, sync: %s, later malloc: %s, last error: %s\n", cudaGetErrorName(launch),
         cudaGetErrorName(sync), cudaGetErrorName(after), cudaGetErrorName(last));
  ok = ok && launch == cudaSuccess && sync == cudaErrorAssert && after == cudaErrorAssert && last == cudaErrorAssert;
  return verdict("device_assert", ok);
}
