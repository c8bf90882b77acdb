// shared_group: two streams share one buffer without ordering, each its own bytes,
// the way a program splits a tensor between streams: a kernel on stream A reads the
// first 2,080 ints, a kernel on stream B rewrites the rest, both touching the third
// 4 KiB group of the buffer. Checked on the host: A's sums and B's values.
#include <vector>
#include "samples.h"

__global__ void read_part(const int *x, int n, long long *sums) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd((unsigned long long *)&sums[i % 4], (unsigned long long)x[i]);
}

__global__ void write_part(int *x, int from, int n, int k) {
  int i = from + blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = i * k;
}

int main() {
  const int n = 4096, split = 2080, rounds = 6;
  std::vector<int> hx(n);
  for (int i = 0; i < n; i++) hx[i] = (i * 7) % 1000;
  int *x;
  long long *sums;
  CHECK(cudaMalloc(&x, n * sizeof(int)));
  CHECK(cudaMalloc(&sums, 4 * sizeof(long long)));
  CHECK(cudaMemcpy(x, hx.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  cudaStream_t a, b;
  CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
  bool ok = true;
  for (int r = 0; r < rounds; r++) {
    CHECK(cudaMemsetAsync(sums, 0, 4 * sizeof(long long), a));
    read_part<<<(split + 127) / 128, 128, 0, a>>>(x, split, sums);
    write_part<<<(n - split + 127) / 128, 128, 0, b>>>(x, split, n, r + 2);
    long long got[4];
    CHECK(cudaMemcpyAsync(got, sums, sizeof got, cudaMemcpyDeviceToHost, a));
    CHECK(cudaStreamSynchronize(a));
    CHECK(cudaStreamSynchronize(b));
    for (int k = 0; k < 4; k++) {
      long long want = 0;
      for (int i = k; i < split; i += 4) want += hx[i];
      if (got[k] != want) ok = false, fprintf(stderr, "round %d: sum %d = %lld, expected %lld\n", r, k, got[k], want);
    }
  }
  CHECK(cudaMemcpy(hx.data(), x, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = split; i < n; i++)
    if (hx[i] != i * (rounds + 1)) {
      ok = false;
      fprintf(stderr, "x[%d] = %d, expected %d\n", i, hx[i], i * (rounds + 1));
      break;
    }
  printf("shared_group: %d rounds\n", rounds);
  CHECK(cudaFree(x));
  CHECK(cudaFree(sums));
  return verdict("shared_group", ok);
}
