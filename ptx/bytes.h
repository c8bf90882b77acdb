/* bytes.h: little-endian reads from unaligned bytes (image headers). */
#ifndef FT_PTX_BYTES_H
#define FT_PTX_BYTES_H

#include <stdint.h>

static inline uint16_t ft_rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t ft_rd32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t ft_rd64(const uint8_t *p) { return ft_rd32(p) | (uint64_t)ft_rd32(p + 4) << 32; }

#endif
