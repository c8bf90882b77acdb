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

static inline int verdict(const char *name, bool ok) {
  printf("%s: %s\n", name, ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
