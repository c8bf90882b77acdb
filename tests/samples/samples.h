// samples.h: what every sample program shares: a checked CUDA call and a verdict.
#pragma once
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

// A check that says which one failed (file, line and the condition): on a GPU it
// tells what the driver answered differently from the simulator.
#define EXPECT(cond) ((cond) ? true : (printf("%s:%d: expected %s\n", __FILE__, __LINE__, #cond), false))

// A checked driver call, for the samples that use the driver API (cuda.h first).
#ifdef __cuda_cuda_h__
#define CU(call)                                                                      \
  do {                                                                                \
    CUresult r_ = (call);                                                             \
    if (r_ != CUDA_SUCCESS) {                                                         \
      const char *s_ = "?";                                                           \
      cuGetErrorName(r_, &s_);                                                        \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, s_);              \
      exit(2);                                                                        \
    }                                                                                 \
  } while (0)
#endif

// Texel index i of a dimension of n texels under address mode m, as the CUDA
// Programming Guide gives it (wrap and mirror with normalised coordinates); -1 for
// the border. For the texture samples' host references.
#ifdef __CUDACC__
static inline int tex_address(int i, int n, cudaTextureAddressMode m) {
  if (i >= 0 && i < n) return i;
  if (m == cudaAddressModeWrap) return ((i % n) + n) % n;
  if (m == cudaAddressModeMirror) {
    int p = ((i % (2 * n)) + 2 * n) % (2 * n);
    return p < n ? p : 2 * n - 1 - p;
  }
  if (m == cudaAddressModeBorder) return -1;
  return i < 0 ? 0 : n - 1;
}
#endif

static inline int verdict(const char *name, bool ok) {
  printf("%s: %s\n", name, ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
