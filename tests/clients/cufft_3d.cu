// cufft_3d.cu: a real cuFFT client for gpuft's acceptance run on a GPU
// (tools/gpu-acceptance): a 3-D complex-to-complex forward transform, checked against a
// separable CPU DFT in double, then the inverse brings the input back.
// Exit 0 right, 1 wrong, 2 CUDA/cuFFT error.
#include <cuda_runtime.h>
#include <cufft.h>

#include <cmath>
#include <complex>
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
#define CF(x)                                                                   \
  do {                                                                          \
    cufftResult r_ = (x);                                                       \
    if (r_ != CUFFT_SUCCESS) {                                                  \
      fprintf(stderr, "%s:%d: %s: cuFFT result %d\n", __FILE__, __LINE__, #x, (int)r_); \
      return 2;                                                                 \
    }                                                                           \
  } while (0)

typedef std::complex<double> cd;

// In-place DFT along one axis of an n^3 array (stride apart, n points), forward.
static void dft_axis(std::vector<cd> &v, int n, size_t stride) {
  std::vector<cd> line(n), out(n);
  const double pi = 3.14159265358979323846;
  size_t nn = (size_t)n * n * n;
  for (size_t base = 0; base < nn; base++) {
    if ((base / stride) % n) continue; // a line starts where its axis index is 0
    for (int i = 0; i < n; i++) line[i] = v[base + i * stride];
    for (int k = 0; k < n; k++) {
      cd s = 0;
      for (int i = 0; i < n; i++) s += line[i] * std::polar(1.0, -2 * pi * (double)i * k / n);
      out[k] = s;
    }
    for (int k = 0; k < n; k++) v[base + k * stride] = out[k];
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 32;
  if (n < 2 || n > 256) return fprintf(stderr, "usage: cufft_3d [n]\n"), 64;
  size_t nn = (size_t)n * n * n;
  std::vector<cufftComplex> h(nn), back(nn);
  std::vector<cd> ref(nn);
  unsigned s = 777;
  for (size_t i = 0; i < nn; i++) {
    s = s * 1664525u + 1013904223u;
    float re = (float)((s >> 8) & 0xffff) / 65536.0f - 0.5f;
    s = s * 1664525u + 1013904223u;
    float im = (float)((s >> 8) & 0xffff) / 65536.0f - 0.5f;
    h[i].x = re;
    h[i].y = im;
    ref[i] = cd(re, im);
  }
  cufftComplex *d;
  CK(cudaMalloc(&d, nn * sizeof *d));
  CK(cudaMemcpy(d, h.data(), nn * sizeof *d, cudaMemcpyHostToDevice));
  cufftHandle plan;
  CF(cufftPlan3d(&plan, n, n, n, CUFFT_C2C));
  CF(cufftExecC2C(plan, d, d, CUFFT_FORWARD));
  std::vector<cufftComplex> got(nn);
  CK(cudaMemcpy(got.data(), d, nn * sizeof *d, cudaMemcpyDeviceToHost));
  CF(cufftExecC2C(plan, d, d, CUFFT_INVERSE));
  CK(cudaMemcpy(back.data(), d, nn * sizeof *d, cudaMemcpyDeviceToHost));
  CF(cufftDestroy(plan));
  CK(cudaFree(d));
  dft_axis(ref, n, 1);
  dft_axis(ref, n, (size_t)n);
  dft_axis(ref, n, (size_t)n * n);
  double max_err = 0, max_back = 0;
  for (size_t i = 0; i < nn; i++) {
    double e = std::abs(ref[i] - cd(got[i].x, got[i].y));
    if (e > max_err) max_err = e;
    double b = std::hypot(back[i].x / (double)nn - h[i].x, back[i].y / (double)nn - h[i].y);
    if (b > max_back) max_back = b;
  }
  // FP32 FFT: error grows like log2(N) * eps * sqrt(N) * |x|
  double tol = 1e-5 * std::sqrt((double)nn) * 3 * std::log2((double)n) + 1e-4;
  int ok = max_err <= tol && max_back <= 1e-5;
  printf("cufft_3d: %d^3, max abs error %.3g (tolerance %.3g), inverse round trip %.3g: %s\n", n,
         max_err, tol, max_back, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
