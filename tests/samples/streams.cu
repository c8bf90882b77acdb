// streams: the simpleStreams pattern: one device allocation, pinned host memory,
// 4 streams each copying its quarter in, running a kernel on it and copying it
// back, events timing the whole, all checked against the expected values.
#include <vector>
#include "samples.h"

__global__ void init_array(int *a, const int *factor, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] * *factor + i;
}

int main() {
  const int nstreams = 4, n = 1 << 16, q = n / nstreams;
  int *h, *d, *dfactor, factor = 3;
  CHECK(cudaMallocHost(&h, n * sizeof(int)));
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMalloc(&dfactor, sizeof(int)));
  CHECK(cudaMemcpy(dfactor, &factor, sizeof factor, cudaMemcpyHostToDevice));
  for (int i = 0; i < n; i++) h[i] = i % 101;
  cudaStream_t s[nstreams];
  for (int i = 0; i < nstreams; i++) CHECK(cudaStreamCreate(&s[i]));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  CHECK(cudaEventRecord(start, 0));
  for (int i = 0; i < nstreams; i++) {
    CHECK(cudaMemcpyAsync(d + i * q, h + i * q, q * sizeof(int), cudaMemcpyHostToDevice, s[i]));
    init_array<<<(q + 255) / 256, 256, 0, s[i]>>>(d + i * q, dfactor, q);
    CHECK(cudaMemcpyAsync(h + i * q, d + i * q, q * sizeof(int), cudaMemcpyDeviceToHost, s[i]));
  }
  CHECK(cudaEventRecord(stop, 0));
  CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  bool ok = ms >= 0;
  for (int i = 0; i < n && ok; i++) {
    int expect = (i % 101) * factor + (i % q);
    if (h[i] != expect) {
      printf("h[%d] = %d, expected %d\n", i, h[i], expect);
      ok = false;
    }
  }
  for (int i = 0; i < nstreams; i++) CHECK(cudaStreamDestroy(s[i]));
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaFreeHost(h));
  CHECK(cudaFree(d));
  CHECK(cudaFree(dfactor));
  return verdict("streams", ok);
}
