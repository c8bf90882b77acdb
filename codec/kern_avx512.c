/* kern_avx512.c: AVX-512 block kernels. A block is two 512-bit loads; since
 * rotl(w[j+16], j+16) = rotl(rotl(w[j+16], 16), j), D needs one immediate and one
 * variable rotate (vprolvd) per block. The 16-lane partials of 8 blocks' V and D
 * are folded together into one register; two such make whole lines of V and D
 * words. Whole groups get their level-2 words in the same pass (encode_groups).
 * Compiled with -mavx512f. */
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

/* The V words and the D words of 16 blocks (two folds of 8), one line each. */
static inline void lines16(__m512i r1, __m512i r2, __m512i *vv, __m512i *dd) {
  const __m512i iv = _mm512_set_epi32(23, 22, 21, 20, 19, 18, 17, 16, 7, 6, 5, 4, 3, 2, 1, 0);
  const __m512i id = _mm512_set_epi32(31, 30, 29, 28, 27, 26, 25, 24, 15, 14, 13, 12, 11, 10, 9, 8);
  *vv = _mm512_permutex2var_epi32(r1, iv, r2);
  *dd = _mm512_permutex2var_epi32(r1, id, r2);
}

static inline void store_line(uint32_t *p, __m512i x, int nt) {
  if (nt && !((uintptr_t)p & 63))
    _mm512_stream_si512((void *)p, x);
  else
    _mm512_storeu_si512((void *)p, x);
}

/* 16 blocks at a time: their V and D words fill whole lines. Stored through the
 * cache here: ft_encode_l2 reads them back right after the chunk. */
static inline void store16(uint32_t *v, uint32_t *d, __m512i r1, __m512i r2) {
  __m512i vv, dd;
  lines16(r1, r2, &vv, &dd);
  store_line(v, vv, 0);
  store_line(d, dd, 0);
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

/* Level-2 partials of one group from its V words (a: blocks 0..15, b: 16..31): the
 * group's V words are one block of the same code, so the block step applies. */
static inline void l2_partial(__m512i a, __m512i b, __m512i *xv, __m512i *xd) {
  const __m512i idx = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  *xv = _mm512_xor_si512(a, b);
  *xd = _mm512_rolv_epi32(_mm512_xor_si512(a, _mm512_rol_epi32(b, 16)), idx);
}

/* Whole groups with their level-2 words: codes streamed out (when nt), never read
 * back; four groups' level-2 words come out of one fold. */
static void encode_groups(uint8_t *dst, const uint8_t *src, size_t ng, const ft_code_t *c,
                          size_t g0, int nt) {
  int stream = dst && nt && !((uintptr_t)dst & 63);
  for (size_t g = 0; g < ng; g += 4) {
    __m512i x[16];
    size_t m = ng - g < 4 ? ng - g : 4;
    for (size_t k = 0; k < 4; k++) {
      if (k >= m) {
        x[4 * k] = x[4 * k + 1] = x[4 * k + 2] = x[4 * k + 3] = _mm512_setzero_si512();
        continue;
      }
      size_t b = (g + k) * FT_GROUP_BLOCKS, bg = (g0 + g + k) * FT_GROUP_BLOCKS;
      __m512i v2[2], d2[2];
      for (int h = 0; h < 2; h++) {
        size_t i = b + (size_t)h * 16;
        __m512i r1 = eight_pf(dst ? dst + i * 128 : NULL, src + i * 128, stream);
        __m512i r2 = eight_pf(dst ? dst + (i + 8) * 128 : NULL, src + (i + 8) * 128, stream);
        lines16(r1, r2, &v2[h], &d2[h]);
        store_line(c->v + bg + (size_t)h * 16, v2[h], nt);
        store_line(c->d + bg + (size_t)h * 16, d2[h], nt);
      }
      l2_partial(v2[0], v2[1], &x[4 * k], &x[4 * k + 1]);
      l2_partial(d2[0], d2[1], &x[4 * k + 2], &x[4 * k + 3]);
    }
    uint32_t w[16];
    _mm512_storeu_si512((void *)w, fold16(x));
    for (size_t k = 0; k < m; k++) {
      size_t gi = g0 + g + k;
      c->l2v_v[gi] = w[4 * k];
      c->l2v_d[gi] = w[4 * k + 1];
      c->l2d_v[gi] = w[4 * k + 2];
      c->l2d_d[gi] = w[4 * k + 3];
    }
  }
  if (nt) _mm_sfence();
}

const ft_codec_kernels_t ft_kernels_avx512 = {"avx512", encode, copy_encode, encode_groups};
