/* app_common.h: shared by the example programs (host side): CUDA error checks that
 * exit 2, argument parsing, and the FNV-1a checksum printed for bit-exact comparison. */
#ifndef APP_COMMON_H
#define APP_COMMON_H

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Exit codes: 0 right answer, 1 wrong answer, 2 a CUDA call failed. */
#define APP_CK(call)                                                              \
  do {                                                                            \
    cudaError_t e_ = (call);                                                      \
    if (e_ != cudaSuccess) {                                                      \
      fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call,          \
              cudaGetErrorString(e_), cudaGetErrorName(e_));                      \
      exit(2);                                                                    \
    }                                                                             \
  } while (0)

/* Checks the launch just issued (configuration errors are reported at once). */
#define APP_CK_LAUNCH() APP_CK(cudaGetLastError())

static inline long app_arg(int argc, char **argv, int i, long dflt, long lo, long hi) {
  if (argc <= i) return dflt;
  char *end;
  long v = strtol(argv[i], &end, 0);
  if (*end || v < lo || v > hi) {
    fprintf(stderr, "argument %d: expected an integer in [%ld, %ld], got '%s'\n", i, lo, hi,
            argv[i]);
    exit(64);
  }
  return v;
}

static inline uint64_t app_fnv1a(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = (const unsigned char *)p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}
#define APP_FNV_INIT 0xcbf29ce484222325ull

#endif
