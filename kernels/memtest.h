/* memtest.h: contract of gpuft's memory-test kernels (MemtestG80's patterns, see
 * docs/gpu.md), shared by the CUDA kernels (memtest.cu), their C twins and `gpuft memtest`.
 * Usable from C and CUDA: the expected word of every pattern is computed here, once. */
#ifndef FTM_MEMTEST_H
#define FTM_MEMTEST_H

#include <stdint.h>

#ifdef __CUDACC__
#define FTM_FN static __host__ __device__ __forceinline__
#else
#define FTM_FN static inline
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* What a fill/check pass writes and expects, word (32-bit) by word. */
enum {
  FTM_CONST,  /* every word = a (moving inversions, bit fade) */
  FTM_WALK8,  /* every byte of word i = 1 << ((a + i) % 8); complemented when b */
  FTM_WALK32, /* word i = 1 << ((a + i) % 32); complemented when b */
  FTM_RAND,   /* word i = Park-Miller minimal standard generator seeded by (a, i) */
  FTM_ADDR,   /* word i = low 32 bits of its own device address, xor a */
  FTM_MOD20,  /* word i = a when i % 20 == b, else ~a (written twice); only i % 20 == b checked */
  FTM_LCG     /* word i = state of an LCG of period b after a steps from 0 (0 when a % b == 0) */
};
#define FTM_F_INVERT 1u /* check: after reading a word, write its complement (moving inversions) */

typedef struct ftm_pat_s {
  uint32_t mode, a, b, flags;
} ftm_pat_t;

/* Errors of one check pass, in device memory (zeroed by the host before the pass). */
#define FTM_MAX_REC 16
typedef struct ftm_res_s {
  unsigned long long n_err; /* words that differed */
  unsigned long long n_rec; /* records claimed (may exceed FTM_MAX_REC) */
  struct {
    unsigned long long index;
    uint32_t got, want;
  } rec[FTM_MAX_REC];
} ftm_res_t;

/* Kernels (extern "C"), launched with FTM_THREADS threads per block, any grid:
 *   ftm_fill(uint32_t *base, uint64_t n, ftm_pat_t p)
 *   ftm_check(uint32_t *base, uint64_t n, ftm_pat_t p, ftm_res_t *res)
 * Parameter 0 is the tested region, so a simulator fault aimed at "arg=0" lands in it. */
#define FTM_THREADS 256u
#define FTM_NAME_FILL "ftm_fill"
#define FTM_NAME_CHECK "ftm_check"

FTM_FN uint32_t ftm_park_miller(uint32_t x) { /* x * 16807 mod (2^31 - 1), Schrage-free */
  uint64_t p = (uint64_t)x * 16807u;
  uint32_t r = (uint32_t)((p & 0x7fffffffu) + (p >> 31));
  return r >= 0x7fffffffu ? r - 0x7fffffffu : r;
}

FTM_FN uint32_t ftm_expect(const ftm_pat_t *p, uint64_t base, uint64_t i) {
  switch (p->mode) {
    case FTM_CONST: return p->a;
    case FTM_WALK8: {
      uint32_t w = (1u << ((p->a + i) & 7u)) * 0x01010101u;
      return p->b ? ~w : w;
    }
    case FTM_WALK32: {
      uint32_t w = 1u << ((p->a + i) & 31u);
      return p->b ? ~w : w;
    }
    case FTM_RAND: { /* a 32-bit mix of (seed, index), then three generator steps */
      uint32_t x = (uint32_t)(i * 0x9E3779B97F4A7C15ull >> 32) ^ (uint32_t)i ^ p->a;
      x = (x ^ (x >> 16)) * 0x45d9f3bu;
      x = (x % 0x7ffffffeu) + 1u; /* the generator's state is never 0 */
      x = ftm_park_miller(ftm_park_miller(ftm_park_miller(x)));
      return x ^ (x << 17); /* spread over all 32 bits (the state has 31) */
    }
    case FTM_ADDR: return (uint32_t)(base + 4u * i) ^ p->a;
    case FTM_MOD20: return i % 20u == p->b ? p->a : ~p->a;
    default: { /* FTM_LCG: x' = 5x + 1 mod b (b a power of two: full period b) */
      uint32_t x = 0, m = p->b - 1u;
      for (uint32_t s = 0; s < p->a; s++) x = (5u * x + 1u) & m;
      return x;
    }
  }
}

/* What check expects: the fill's word, except for the logic test, whose words all
 * return to 0 (the host runs it for whole periods only) without redoing its work. */
FTM_FN uint32_t ftm_want(const ftm_pat_t *p, uint64_t base, uint64_t i) {
  return p->mode == FTM_LCG ? 0u : ftm_expect(p, base, i);
}

/* Whether check reads word i (modulo-20 checks only its round's words). */
FTM_FN int ftm_checked(const ftm_pat_t *p, uint64_t i) {
  return p->mode != FTM_MOD20 || i % 20u == p->b;
}

#ifdef __cplusplus
}
#endif
#endif
