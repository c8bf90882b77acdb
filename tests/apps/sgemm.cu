// sgemm: C = A * B (n x n, row-major) with the classic shared-memory tiled kernel of
// the CUDA programming guide; explicit FMAs in a fixed order, so that the result is
// the same bit for bit on any GPU and on the simulator's twin.
// Usage: sgemm [n]  (default 256). Two H2D copies, one launch, one D2H copy.
#include <cmath>
#include <vector>

#include "app_common.h"

#include "sgemm_tiled.cuh"

int main(int argc, char **argv) {
  const int n = (int)app_arg(argc, argv, 1, 256, 1, 8192);
  const size_t nn = (size_t)n * n, bytes = nn * sizeof(float);
  std::vector<float> A(nn), B(nn), C(nn);
  // Small dyadic values: every product and most sums are exact, errors stay tiny.
  for (size_t i = 0; i < nn; i++) {
    A[i] = (float)((int)((i * 7 + 3) % 17) - 8) / 8.0f;
    B[i] = (float)((int)((i * 5 + 1) % 13) - 6) / 4.0f;
  }
  float *dA, *dB, *dC;
  APP_CK(cudaMalloc(&dA, bytes));
  APP_CK(cudaMalloc(&dB, bytes));
  APP_CK(cudaMalloc(&dC, bytes));
  APP_CK(cudaMemcpy(dA, A.data(), bytes, cudaMemcpyHostToDevice));
  APP_CK(cudaMemcpy(dB, B.data(), bytes, cudaMemcpyHostToDevice));
  dim3 block(TILE, TILE), grid((n + TILE - 1) / TILE, (n + TILE - 1) / TILE);
  sgemm_tiled<<<grid, block>>>(dA, dB, dC, n);
  APP_CK_LAUNCH();
  APP_CK(cudaMemcpy(C.data(), dC, bytes, cudaMemcpyDeviceToHost));
  APP_CK(cudaFree(dA));
  APP_CK(cudaFree(dB));
  APP_CK(cudaFree(dC));

  // Reference in double; tolerance relative to the sum of |products| (float rounding).
  long bad = 0;
  const double tol = 4.0 * n * 1.2e-7;
  std::vector<double> ref(n), mag(n);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) ref[j] = mag[j] = 0.0;
    for (int k = 0; k < n; k++) {
      const double a = A[(size_t)i * n + k];
      for (int j = 0; j < n; j++) {
        const double p = a * B[(size_t)k * n + j];
        ref[j] += p;
        mag[j] += std::fabs(p);
      }
    }
    for (int j = 0; j < n; j++) {
      const double c = C[(size_t)i * n + j], err = std::fabs(c - ref[j]);
      if (!(err <= tol * mag[j] + 1e-30)) {
        if (bad < 5) fprintf(stderr, "sgemm: C[%d][%d] = %.9g, expected %.9g\n", i, j, c, ref[j]);
        bad++;
      }
    }
  }
  printf("checksum: %016llx\n", (unsigned long long)app_fnv1a(APP_FNV_INIT, C.data(), bytes));
  if (bad) {
    fprintf(stderr, "sgemm: %ld of %zu results wrong\n", bad, nn);
    return 1;
  }
  printf("sgemm: n=%d ok\n", n);
  return 0;
}
