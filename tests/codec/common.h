/* Helpers shared by the codec tests: deterministic random data, code buffers. */
#ifndef FT_TEST_CODEC_COMMON_H
#define FT_TEST_CODEC_COMMON_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec.h"
#include "runner.h"

static inline uint64_t tc_rand(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static inline void tc_fill(void *p, size_t n, uint64_t seed) {
  uint8_t *b = (uint8_t *)p;
  for (size_t i = 0; i < n; i++) {
    if ((i & 7) == 0) seed = tc_rand(&seed) ^ i;
    b[i] = (uint8_t)(seed >> ((i & 7) * 8));
  }
}

/* A code buffer for `len` data bytes. */
typedef struct {
  ft_code_t c;
  void *mem;
  size_t bytes;
} tc_code_t;

static inline void tc_code_init(tc_code_t *t, size_t len) {
  t->bytes = ft_code_bytes(len);
  t->mem = calloc(1, t->bytes ? t->bytes : 1);
  ASSERT(t->mem != NULL);
  ft_code_bind(&t->c, t->mem, len);
}

static inline void tc_code_free(tc_code_t *t) { free(t->mem); }

#endif
