// atomics: a running sum kept on the device and updated every iteration with
// floating-point atomicAdd from many blocks: its bits depend on the order the
// blocks add in, so a re-execution may give a different answer than the run the
// program saw. `atomics [n] [iterations]`; prints a checksum of the sums read back.
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                  \
  do {                                                                               \
    cudaError_t e_ = (call);                                                         \
    if (e_ != cudaSuccess) {                                                         \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      exit(2);                                                                       \
    }                                                                                \
  } while (0)

__global__ void evolve(float *v, int n, int it) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] = v[i] * 0.75f + (float)((i * 131 + it * 17) % 97) * 1.0e-3f;
}

__global__ void accumulate(const float *v, float *sum, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  // terms of very different magnitudes: what is lost to rounding depends on order
  const float w[4] = {1.0e7f, 1.0f, 1.0e-3f, -1.0e7f};
  if (i < n) atomicAdd(sum, v[i] * w[i % 4]);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 8192, iters = argc > 2 ? atoi(argv[2]) : 12;
  float *v, *sum;
  CHECK(cudaMalloc(&v, n * 4));
  CHECK(cudaMalloc(&sum, 4));
  CHECK(cudaMemset(v, 0, n * 4));
  CHECK(cudaMemset(sum, 0, 4));
  unsigned long long c = 1469598103934665603ull;
  for (int it = 0; it < iters; it++) {
    evolve<<<(n + 127) / 128, 128>>>(v, n, it);
    accumulate<<<(n + 127) / 128, 128>>>(v, sum, n);
    float s;
    CHECK(cudaMemcpy(&s, sum, 4, cudaMemcpyDeviceToHost));
    const unsigned char *b = (const unsigned char *)&s;
    for (int k = 0; k < 4; k++) c = (c ^ b[k]) * 1099511628211ull;
  }
  printf("checksum: %016llx\n", c);
  CHECK(cudaFree(v));
  CHECK(cudaFree(sum));
  return 0;
}
