/* kern_scalar.c: the scalar reference block kernels; every SIMD variant must give
 * the same codes bit for bit. */
#include <string.h>

#include "kernels.h"

static inline ft_pair_t block_code(const uint8_t *p) {
  uint32_t w[FT_BLOCK_WORDS];
  memcpy(w, p, sizeof w); /* unaligned sources; little-endian host */
  return ft_encode_words(w, FT_BLOCK_WORDS);
}

static void encode(const uint8_t *src, size_t n, uint32_t *v, uint32_t *d, int nt) {
  (void)nt;
  for (size_t i = 0; i < n; i++) {
    ft_pair_t c = block_code(src + i * FT_BLOCK_BYTES);
    v[i] = c.v;
    d[i] = c.d;
  }
}

static void copy_encode(uint8_t *dst, const uint8_t *src, size_t n, uint32_t *v, uint32_t *d,
                        int nt) {
  (void)nt;
  for (size_t i = 0; i < n; i++) {
    memcpy(dst + i * FT_BLOCK_BYTES, src + i * FT_BLOCK_BYTES, FT_BLOCK_BYTES);
    ft_pair_t c = block_code(src + i * FT_BLOCK_BYTES);
    v[i] = c.v;
    d[i] = c.d;
  }
}

const ft_codec_kernels_t ft_kernels_scalar = {"scalar", encode, copy_encode, NULL};
