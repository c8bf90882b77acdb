// vecadd: c = a + b on the device, checked exactly against the CPU.
// Usage: vecadd [n]  (default 1048576). Prints "checksum: <hex>"; exit 1 on a wrong answer.
#include <vector>

#include "app_common.h"

__global__ void vecadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

int main(int argc, char **argv) {
  const int n = (int)app_arg(argc, argv, 1, 1 << 20, 1, 1 << 28);
  const size_t bytes = (size_t)n * sizeof(float);
  std::vector<float> a(n), b(n), c(n);
  for (int i = 0; i < n; i++) {
    a[i] = (float)(i % 1000) * 0.5f;
    b[i] = (float)((i * 7) % 333) * 0.25f;
  }
  float *da, *db, *dc;
  APP_CK(cudaMalloc(&da, bytes));
  APP_CK(cudaMalloc(&db, bytes));
  APP_CK(cudaMalloc(&dc, bytes));
  APP_CK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
  APP_CK(cudaMemcpy(db, b.data(), bytes, cudaMemcpyHostToDevice));
  const int threads = 256;
  vecadd<<<(n + threads - 1) / threads, threads>>>(da, db, dc, n);
  APP_CK_LAUNCH();
  APP_CK(cudaMemcpy(c.data(), dc, bytes, cudaMemcpyDeviceToHost));
  APP_CK(cudaFree(da));
  APP_CK(cudaFree(db));
  APP_CK(cudaFree(dc));

  long bad = 0;
  for (int i = 0; i < n; i++)
    if (c[i] != a[i] + b[i]) {
      if (bad < 5) fprintf(stderr, "vecadd: c[%d] = %g, expected %g\n", i, c[i], a[i] + b[i]);
      bad++;
    }
  printf("checksum: %016llx\n", (unsigned long long)app_fnv1a(APP_FNV_INIT, c.data(), bytes));
  if (bad) {
    fprintf(stderr, "vecadd: %ld of %d results wrong\n", bad, n);
    return 1;
  }
  printf("vecadd: n=%d ok\n", n);
  return 0;
}
