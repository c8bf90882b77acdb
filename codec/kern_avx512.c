/* kern_avx512.c: AVX-512 block kernels. A block is two 512-bit loads; since
 * rotl(w[j+16], j+16) = rotl(rotl(w[j+16], 16), j), D needs one immediate and one
 * variable rotate (vprolvd) per block. The 16-lane partials of 8 blocks' V and D
 * are folded together into one register; two such make whole lines of V and D
 * words. Compiled with -mavx512f. */
#include <immintrin.h>

#include "kernels.h"

/* Lane i of the result = xor of all 16 lanes of x[i]. */
static inline __m512i fold16(const __m512i x[16]) {
  __m512i y[8], z[4], u0, u1;
  for (int i = 0; i < 8; i++)
    y[i] = _mm512_xor_si512(_mm512_unpacklo_epi32(x[2 * i], x[2 * i + 1]),
                            _mm512_unpackhi_epi32(x[2 * i], x[2 * i + 1]));
  for (int i = 0; i < 4; i++)
    z[i] = _mm512_xor_si512(_mm512_unpacklo_epi64(y[2 * i], y[2 * i + 1]),
                            _mm512_unpackhi_epi64(y[2 * i], y[2 * i + 1]));
  u0 = _mm512_xor_si512(_mm512_shuffle_i32x4(z[0], z[1], _MM_SHUFFLE(2, 0, 2, 0)),
                        _mm512_shuffle_i32x4(z[0], z[1], _MM_SHUFFLE(3, 1, 3, 1)));
  u1 = _mm512_xor_si512(_mm512_shuffle_i32x4(z[2], z[3], _MM_SHUFFLE(2, 0, 2, 0)),
                        _mm512_shuffle_i32x4(z[2], z[3], _MM_SHUFFLE(3, 1, 3, 1)));
  return _mm512_xor_si512(_mm512_shuffle_i32x4(u0, u1, _MM_SHUFFLE(2, 0, 2, 0)),
                          _mm512_shuffle_i32x4(u0, u1, _MM_SHUFFLE(3, 1, 3, 1)));
}

static inline void store_codes(uint32_t *v, uint32_t *d, __m512i r) {
  _mm256_storeu_si256((__m256i *)v, _mm512_castsi512_si256(r));
  _mm256_storeu_si256((__m256i *)d, _mm512_extracti64x4_epi64(r, 1));
}

/* Copy (when dst) and encode 8 blocks: x[0..7] get the V partials, x[8..15] D. */
static inline __m512i eight_blocks(uint8_t *dst, const uint8_t *src, int stream) {
  const __m512i idx = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  __m512i x[16];
  for (int b = 0; b < 8; b++) {
    __m512i lo = _mm512_loadu_si512((const void *)(src + b * 128));
    __m512i hi = _mm512_loadu_si512((const void *)(src + b * 128 + 64));
    if (dst) {
      if (stream) {
        _mm512_stream_si512((void *)(dst + b * 128), lo);
        _mm512_stream_si512((void *)(dst + b * 128 + 64), hi);
      } else {
        _mm512_storeu_si512((void *)(dst + b * 128), lo);
        _mm512_storeu_si512((void *)(dst + b * 128 + 64), hi);
      }
    }
    x[b] = _mm512_xor_si512(lo, hi);
    x[8 + b] = _mm512_rolv_epi32(_mm512_xor_si512(lo, _mm512_rol_epi32(hi, 16)), idx);
  }
  return fold16(x);
}

/* 16 blocks at a time: their V words and D words fill one 64-byte line each. They
 * are stored through the cache, not streamed: the level-2 pass (ft_encode_l2) reads
 * them back right after the chunk, and streamed lines would come back from DRAM. */
static inline void store16(uint32_t *v, uint32_t *d, __m512i r1, __m512i r2) {
  const __m512i iv = _mm512_set_epi32(23, 22, 21, 20, 19, 18, 17, 16, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i id = _mm512_set_epi32(31, 30, 29, 28, 27, 26, 25, 24, 15, 14, 13, 12, 11, 10, 9, 8);
  _mm512_storeu_si512((void *)v, _mm512_permutex2var_epi32(r1, iv, r2));
  _mm512_storeu_si512((void *)d, _mm512_permutex2var_epi32(r1, id, r2));
}

/* Prefetch distance (bytes ahead of the block being read): lets the loads of
 * later blocks be in flight while this one is folded. */
#define PF_AHEAD 2048

static inline __m512i eight_pf(uint8_t *dst, const uint8_t *src, int stream) {
  for (int l = 0; l < 16; l++) _mm_prefetch((const char *)src + PF_AHEAD + l * 64, _MM_HINT_T0);
  return eight_blocks(dst, src, stream);
}

static void run(uint8_t *dst, const uint8_t *src, size_t n, uint32_t *v, uint32_t *d, int nt) {
  int stream = dst && nt && !((uintptr_t)dst & 63);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m512i r1 = eight_pf(dst ? dst + i * 128 : NULL, src + i * 128, stream);
    __m512i r2 = eight_pf(dst ? dst + (i + 8) * 128 : NULL, src + (i + 8) * 128, stream);
    store16(v + i, d + i, r1, r2);
  }
  for (; i + 8 <= n; i += 8) store_codes(v + i, d + i, eight_blocks(dst ? dst + i * 128 : NULL, src + i * 128, stream));
  if (nt) _mm_sfence();
  if (i < n) {
    if (dst) ft_kernels_scalar.copy_encode(dst + i * 128, src + i * 128, n - i, v + i, d + i, 0);
    else ft_kernels_scalar.encode(src + i * 128, n - i, v + i, d + i, 0);
  }
}

static void encode(const uint8_t *src, size_t n, uint32_t *v, uint32_t *d, int nt) {
  run(NULL, src, n, v, d, nt);
}

static void copy_encode(uint8_t *dst, const uint8_t *src, size_t n, uint32_t *v, uint32_t *d,
                        int nt) {
  run(dst, src, n, v, d, nt);
}

const ft_codec_kernels_t ft_kernels_avx512 = {"avx512", encode, copy_encode};
