/* kern_avx2.c: AVX2 block kernels. A block is four 256-bit loads; the quarters
 * are pre-rotated by 8, 16 and 24 bits with byte shuffles so that one variable
 * rotate (two shifts) per block finishes D. 8 blocks' partials are folded
 * together; 16 blocks make whole lines of V and D words. Compiled with -mavx2. */
#include <immintrin.h>

#include "kernels.h"

/* Lane i of the result = xor of all 8 lanes of x[i]. */
static inline __m256i fold8(const __m256i x[8]) {
  __m256i y[4], z0, z1;
  for (int i = 0; i < 4; i++)
    y[i] = _mm256_xor_si256(_mm256_unpacklo_epi32(x[2 * i], x[2 * i + 1]),
                            _mm256_unpackhi_epi32(x[2 * i], x[2 * i + 1]));
  z0 = _mm256_xor_si256(_mm256_unpacklo_epi64(y[0], y[1]), _mm256_unpackhi_epi64(y[0], y[1]));
  z1 = _mm256_xor_si256(_mm256_unpacklo_epi64(y[2], y[3]), _mm256_unpackhi_epi64(y[2], y[3]));
  return _mm256_xor_si256(_mm256_permute2x128_si256(z0, z1, 0x20),
                          _mm256_permute2x128_si256(z0, z1, 0x31));
}

static inline void store8(uint32_t *p, __m256i r, int nt) {
  if (nt && !((uintptr_t)p & 31))
    _mm256_stream_si256((__m256i *)p, r);
  else
    _mm256_storeu_si256((__m256i *)p, r);
}

static inline void eight_blocks(uint8_t *dst, const uint8_t *src, int stream, __m256i *vout,
                                __m256i *dout) {
  const __m256i rot8 = _mm256_setr_epi8(3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14,
                                        3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10, 15, 12, 13, 14);
  const __m256i rot16 = _mm256_setr_epi8(2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13,
                                         2, 3, 0, 1, 6, 7, 4, 5, 10, 11, 8, 9, 14, 15, 12, 13);
  const __m256i rot24 = _mm256_setr_epi8(1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12,
                                         1, 2, 3, 0, 5, 6, 7, 4, 9, 10, 11, 8, 13, 14, 15, 12);
  const __m256i sl = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const __m256i sr = _mm256_setr_epi32(32, 31, 30, 29, 28, 27, 26, 25);
  __m256i xv[8], xd[8];
  for (int b = 0; b < 8; b++) {
    const uint8_t *s = src + b * 128;
    __m256i a0 = _mm256_loadu_si256((const __m256i *)s);
    __m256i a1 = _mm256_loadu_si256((const __m256i *)(s + 32));
    __m256i a2 = _mm256_loadu_si256((const __m256i *)(s + 64));
    __m256i a3 = _mm256_loadu_si256((const __m256i *)(s + 96));
    if (dst) {
      uint8_t *o = dst + b * 128;
      if (stream) {
        _mm256_stream_si256((__m256i *)o, a0);
        _mm256_stream_si256((__m256i *)(o + 32), a1);
        _mm256_stream_si256((__m256i *)(o + 64), a2);
        _mm256_stream_si256((__m256i *)(o + 96), a3);
      } else {
        _mm256_storeu_si256((__m256i *)o, a0);
        _mm256_storeu_si256((__m256i *)(o + 32), a1);
        _mm256_storeu_si256((__m256i *)(o + 64), a2);
        _mm256_storeu_si256((__m256i *)(o + 96), a3);
      }
    }
    xv[b] = _mm256_xor_si256(_mm256_xor_si256(a0, a1), _mm256_xor_si256(a2, a3));
    __m256i x = _mm256_xor_si256(
        _mm256_xor_si256(a0, _mm256_shuffle_epi8(a1, rot8)),
        _mm256_xor_si256(_mm256_shuffle_epi8(a2, rot16), _mm256_shuffle_epi8(a3, rot24)));
    xd[b] = _mm256_or_si256(_mm256_sllv_epi32(x, sl), _mm256_srlv_epi32(x, sr));
  }
  *vout = fold8(xv);
  *dout = fold8(xd);
}

/* Prefetch distance: later blocks' loads in flight while this one is folded. */
#define PF_AHEAD 2048

/* 16 blocks at a time, so that the V and D words of one iteration fill whole
 * 64-byte lines: partial-line streaming stores would hold write-combining buffers
 * that the loads need. */
static void run(uint8_t *dst, const uint8_t *src, size_t n, uint32_t *v, uint32_t *d, int nt) {
  int stream = dst && nt && !((uintptr_t)dst & 31);
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256i v0, d0, v1, d1;
    for (int l = 0; l < 32; l++) _mm_prefetch((const char *)src + i * 128 + PF_AHEAD + l * 64, _MM_HINT_T0);
    eight_blocks(dst ? dst + i * 128 : NULL, src + i * 128, stream, &v0, &d0);
    eight_blocks(dst ? dst + (i + 8) * 128 : NULL, src + (i + 8) * 128, stream, &v1, &d1);
    store8(v + i, v0, nt);
    store8(v + i + 8, v1, nt);
    store8(d + i, d0, nt);
    store8(d + i + 8, d1, nt);
  }
  for (; i + 8 <= n; i += 8) {
    __m256i v0, d0;
    eight_blocks(dst ? dst + i * 128 : NULL, src + i * 128, stream, &v0, &d0);
    store8(v + i, v0, 0);
    store8(d + i, d0, 0);
  }
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

const ft_codec_kernels_t ft_kernels_avx2 = {"avx2", encode, copy_encode, NULL};
