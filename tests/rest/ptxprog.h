/* ptxprog.h: what the driver-API programs of tests/rest share: a CUDA call checked
 * (the program exits 2 on failure) and the PTX text read from a file. */
#ifndef FT_TESTS_PTXPROG_H
#define FT_TESTS_PTXPROG_H

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef PROG
#error "define PROG (the program's name) before including ptxprog.h"
#endif

#define CK(x)                                                                      \
  do {                                                                             \
    CUresult r_ = (x);                                                             \
    if (r_ != CUDA_SUCCESS) {                                                      \
      fprintf(stderr, PROG ": %s:%d: %s = %d\n", __FILE__, __LINE__, #x, (int)r_); \
      return 2;                                                                    \
    }                                                                              \
  } while (0)

/* The whole file at path, NUL-terminated, or NULL. */
static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *t = n > 0 ? malloc((size_t)n + 1) : NULL;
  if (t && fread(t, 1, (size_t)n, f) != (size_t)n) {
    free(t);
    t = NULL;
  }
  if (t) t[n] = 0;
  fclose(f);
  return t;
}

#endif
