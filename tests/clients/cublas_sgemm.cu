// cublas_sgemm.cu: a real cuBLAS client for gpuft's acceptance run on a GPU
// (tools/gpu-acceptance): C = A * B with cublasSgemm (FP32 math, no TF32), checked
// against a CPU reference in double. Exit 0 right, 1 wrong, 2 CUDA/cuBLAS error.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                       \
  do {                                                                              \
    cudaError_t e_ = (x);                                                           \
    if (e_ != cudaSuccess) {                                                        \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      return 2;                                                                     \
    }                                                                               \
  } while (0)
#define CB(x)                                                                  \
  do {                                                                         \
    cublasStatus_t s_ = (x);                                                   \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                         \
      fprintf(stderr, "%s:%d: %s: cuBLAS status %d\n", __FILE__, __LINE__, #x, (int)s_); \
      return 2;                                                                \
    }                                                                          \
  } while (0)

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 512, reps = argc > 2 ? atoi(argv[2]) : 3;
  if (n < 1 || n > 8192 || reps < 1) return fprintf(stderr, "usage: cublas_sgemm [n] [reps]\n"), 64;
  size_t nn = (size_t)n * n;
  std::vector<float> a(nn), b(nn), c(nn);
  unsigned s = 12345;
  for (size_t i = 0; i < nn; i++) {
    s = s * 1664525u + 1013904223u;
    a[i] = (float)((s >> 8) & 0xffff) / 65536.0f - 0.5f;
    s = s * 1664525u + 1013904223u;
    b[i] = (float)((s >> 8) & 0xffff) / 65536.0f - 0.5f;
  }
  float *da, *db, *dc;
  CK(cudaMalloc(&da, nn * 4));
  CK(cudaMalloc(&db, nn * 4));
  CK(cudaMalloc(&dc, nn * 4));
  CK(cudaMemcpy(da, a.data(), nn * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db, b.data(), nn * 4, cudaMemcpyHostToDevice));
  cublasHandle_t h;
  CB(cublasCreate(&h));
  CB(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH)); // FP32 throughout: comparable with the CPU
  const float one = 1.0f, zero = 0.0f;
  for (int r = 0; r < reps; r++) // column-major: C = A * B
    CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, da, n, db, n, &zero, dc, n));
  CK(cudaMemcpy(c.data(), dc, nn * 4, cudaMemcpyDeviceToHost));
  CB(cublasDestroy(h));
  double max_err = 0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < n; i++) {
      double ref = 0;
      for (int k = 0; k < n; k++) ref += (double)a[i + (size_t)k * n] * b[k + (size_t)j * n];
      double err = fabs(ref - c[i + (size_t)j * n]);
      if (err > max_err) max_err = err;
    }
  // FP32 sums of n products of |x| <= 0.5: error bound ~ n * eps * n * 0.25
  double tol = 1e-6 * n * 4;
  printf("cublas_sgemm: n %d, max abs error %.3g (tolerance %.3g): %s\n", n, max_err, tol,
         max_err <= tol ? "ok" : "WRONG");
  CK(cudaFree(da));
  CK(cudaFree(db));
  CK(cudaFree(dc));
  return max_err <= tol ? 0 : 1;
}
