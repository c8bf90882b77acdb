/* wide.h: AVX2 forms of full-warp loops the compiler does not vectorise by itself
 * (32-bit values in 64-bit register slots, gathers, unsigned 64-bit compares), for
 * the SIM_AVX2 compilation of the executor files (interp.h) only. */
#ifndef SIM_INTERP_WIDE_H
#define SIM_INTERP_WIDE_H
#ifdef SIM_AVX2

#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>

/* The low words of 8 lanes' slots, in lane order. */
static inline __m256i sim_lo32x8(const uint64_t *p) {
  const __m256i even = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
  __m256i a = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)p), even);
  __m256i b = _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)(p + 4)), even);
  return _mm256_permute2x128_si256(a, b, 0x20);
}

/* 8 words into 8 lanes' slots, zero-extended (as every 32-bit result is kept). */
static inline void sim_st32x8(uint64_t *p, __m256i v) {
  _mm256_storeu_si256((__m256i *)p, _mm256_cvtepu32_epi64(_mm256_castsi256_si128(v)));
  _mm256_storeu_si256((__m256i *)(p + 4), _mm256_cvtepu32_epi64(_mm256_extracti128_si256(v, 1)));
}

/* The 32 addresses A[l] + off of a warp, 4 a vector. */
typedef struct {
  __m256i v[8];
} sim_addr32_t;

static inline void sim_addresses(sim_addr32_t *a, const uint64_t *A, uint64_t off) {
  const __m256i o = _mm256_set1_epi64x((long long)off);
#pragma GCC unroll 8
  for (unsigned k = 0; k < 8; k++) a->v[k] = _mm256_add_epi64(_mm256_loadu_si256((const __m256i *)(A + 4 * k)), o);
}

/* Every address aligned to n and in [lo, lo + span - n] (span >= n): (a - lo) <=
 * span - n unsigned for each, compared as signed after flipping the top bit. */
static inline bool sim_within(const sim_addr32_t *a, uint64_t lo, uint64_t span, unsigned n) {
  const __m256i top = _mm256_set1_epi64x((long long)0x8000000000000000ull), base = _mm256_set1_epi64x((long long)lo);
  const __m256i lim = _mm256_xor_si256(_mm256_set1_epi64x((long long)(span - n)), top);
  __m256i bits = _mm256_setzero_si256(), out = _mm256_setzero_si256();
#pragma GCC unroll 8
  for (unsigned k = 0; k < 8; k++) {
    bits = _mm256_or_si256(bits, a->v[k]);
    out = _mm256_or_si256(out, _mm256_cmpgt_epi64(_mm256_xor_si256(_mm256_sub_epi64(a->v[k], base), top), lim));
  }
  bits = _mm256_and_si256(bits, _mm256_set1_epi64x((long long)(n - 1)));
  return _mm256_testz_si256(bits, bits) && _mm256_testz_si256(out, out);
}

/* host + a[l] for the 32 lanes (addresses checked by sim_within). */
static inline void sim_host_addresses(uint64_t *out, const sim_addr32_t *a, uint64_t host) {
  const __m256i h = _mm256_set1_epi64x((long long)host);
#pragma GCC unroll 8
  for (unsigned k = 0; k < 8; k++) _mm256_storeu_si256((__m256i *)(out + 4 * k), _mm256_add_epi64(a->v[k], h));
}

/* Do all 32 addresses equal lane 0's (a row of a tile every lane reads)? */
static inline bool sim_uniform(const sim_addr32_t *a) {
  __m256i first = _mm256_permute4x64_epi64(a->v[0], 0), diff = _mm256_setzero_si256();
#pragma GCC unroll 8
  for (unsigned k = 0; k < 8; k++) diff = _mm256_or_si256(diff, _mm256_xor_si256(a->v[k], first));
  return _mm256_testz_si256(diff, diff);
}

/* Lane l's address lane 0's + l * n (a coalesced access)? */
static inline bool sim_contiguous(const sim_addr32_t *a, unsigned n) {
  __m256i first = _mm256_permute4x64_epi64(a->v[0], 0), diff = _mm256_setzero_si256();
  __m256i e = _mm256_add_epi64(first, _mm256_setr_epi64x(0, n, 2 * (long long)n, 3 * (long long)n));
  const __m256i step = _mm256_set1_epi64x(4 * (long long)n);
#pragma GCC unroll 8
  for (unsigned k = 0; k < 8; k++, e = _mm256_add_epi64(e, step)) diff = _mm256_or_si256(diff, _mm256_xor_si256(a->v[k], e));
  return _mm256_testz_si256(diff, diff);
}

/* D[l] = the n-byte (4 or 8) element l of p (contiguous lanes): vector loads, each
 * element an aligned access within one. */
static inline void sim_load_run(uint64_t *D, const uint8_t *p, unsigned n) {
#pragma GCC unroll 8
  for (unsigned k = 0; k < 8; k++) {
    if (n == 4) {
      __m128i v = _mm_loadu_si128((const __m128i *)(p + 16 * k));
      _mm256_storeu_si256((__m256i *)(D + 4 * k), _mm256_cvtepu32_epi64(v));
    } else {
      _mm256_storeu_si256((__m256i *)(D + 4 * k), _mm256_loadu_si256((const __m256i *)(p + 32 * k)));
    }
  }
}

/* A .v4 of 4-byte elements whose 32 lanes read 512 consecutive bytes (p): element
 * i of lane l to D[i][l], four lanes at a time transposed from four vector loads
 * (where four gathers would fetch them one by one); each element an aligned access
 * within one load, as in sim_load_run. */
static inline void sim_load_run_v4(uint64_t *const D[4], const uint8_t *p) {
#pragma GCC unroll 8
  for (unsigned k = 0; k < 8; k++) {
    const __m128i *q = (const __m128i *)(p + 64 * k);
    __m128i a = _mm_loadu_si128(q), b = _mm_loadu_si128(q + 1), c = _mm_loadu_si128(q + 2), d = _mm_loadu_si128(q + 3);
    __m128i ab0 = _mm_unpacklo_epi32(a, b), ab1 = _mm_unpackhi_epi32(a, b);
    __m128i cd0 = _mm_unpacklo_epi32(c, d), cd1 = _mm_unpackhi_epi32(c, d);
    __m128i e[4] = {_mm_unpacklo_epi64(ab0, cd0), _mm_unpackhi_epi64(ab0, cd0), _mm_unpacklo_epi64(ab1, cd1),
                    _mm_unpackhi_epi64(ab1, cd1)};
    for (unsigned i = 0; i < 4; i++) _mm256_storeu_si256((__m256i *)(D[i] + 4 * k), _mm256_cvtepu32_epi64(e[i]));
  }
}

/* D[l] = the n-byte (4 or 8) element at host + a[l], for all 32 lanes (addresses
 * checked by sim_within): one gather for 4 lanes, each element one aligned load,
 * single-copy atomic as mem.c's load_elem. */
static inline void sim_gather(uint64_t *D, const sim_addr32_t *a, uint64_t host, unsigned n) {
#pragma GCC unroll 8
  for (unsigned k = 0; k < 8; k++) {
    if (n == 4) {
      __m128i v = _mm256_i64gather_epi32((const int *)(uintptr_t)host, a->v[k], 1);
      _mm256_storeu_si256((__m256i *)(D + 4 * k), _mm256_cvtepu32_epi64(v));
    } else {
      __m256i v = _mm256_i64gather_epi64((const long long *)(uintptr_t)host, a->v[k], 1);
      _mm256_storeu_si256((__m256i *)(D + 4 * k), v);
    }
  }
}

#endif
#endif
