/* elf.c: finds a named section in a 64-bit little-endian ELF file (host
 * executables' .nv_fatbin, cubins' .nv.info). Every read is bounds-checked. */
#include <string.h>

#include "bytes.h"
#include "fatbin.h"

int ft_elf_section(const void *file, size_t size, const char *name, const uint8_t **data, size_t *len) {
  const uint8_t *f = file;
  if (!f || size < 64 || memcmp(f, "\x7f" "ELF", 4) != 0 || f[4] != 2 || f[5] != 1) return -1;
  uint64_t shoff = ft_rd64(f + 0x28);
  unsigned shentsize = ft_rd16(f + 0x3a), shnum = ft_rd16(f + 0x3c), shstrndx = ft_rd16(f + 0x3e);
  if (shentsize < 64 || shnum == 0 || shstrndx >= shnum) return -1;
  if (shoff > size || (uint64_t)shnum * shentsize > size - shoff) return -1;
  const uint8_t *strsh = f + shoff + (uint64_t)shstrndx * shentsize;
  uint64_t stroff = ft_rd64(strsh + 24), strsize = ft_rd64(strsh + 32);
  if (stroff > size || strsize > size - stroff) return -1;
  size_t nlen = strlen(name);
  for (unsigned i = 0; i < shnum; i++) {
    const uint8_t *sh = f + shoff + (uint64_t)i * shentsize;
    uint32_t nm = ft_rd32(sh);
    if (nm >= strsize || strsize - nm < nlen + 1) continue;
    if (memcmp(f + stroff + nm, name, nlen + 1) != 0) continue;
    if (ft_rd32(sh + 4) == 8 /* SHT_NOBITS */) return -1;
    uint64_t off = ft_rd64(sh + 24), sz = ft_rd64(sh + 32);
    if (off > size || sz > size - off) return -1;
    *data = f + off;
    *len = (size_t)sz;
    return 0;
  }
  return -1;
}
