/* elf.c: sections of a 64-bit little-endian ELF file (host executables'
 * .nv_fatbin, cubins' .nv.info.<kernel>). Every read is bounds-checked. */
#include <string.h>

#include "bytes.h"
#include "fatbin.h"

int ft_elf_sections(const void *file, size_t size, const char *prefix,
                    int (*fn)(const char *name, const uint8_t *data, size_t len, void *ctx), void *ctx) {
  const uint8_t *f = file;
  if (!f || size < 64 || memcmp(f, "\x7f" "ELF", 4) != 0 || f[4] != 2 || f[5] != 1) return -1;
  uint64_t shoff = ft_rd64(f + 0x28);
  unsigned shentsize = ft_rd16(f + 0x3a), shnum = ft_rd16(f + 0x3c), shstrndx = ft_rd16(f + 0x3e);
  if (shentsize < 64 || shnum == 0 || shstrndx >= shnum) return -1;
  if (shoff > size || (uint64_t)shnum * shentsize > size - shoff) return -1;
  const uint8_t *strsh = f + shoff + (uint64_t)shstrndx * shentsize;
  uint64_t stroff = ft_rd64(strsh + 24), strsize = ft_rd64(strsh + 32);
  if (stroff > size || strsize > size - stroff || strsize == 0 || f[stroff + strsize - 1] != '\0') return -1;
  size_t plen = strlen(prefix);
  int found = 0;
  for (unsigned i = 0; i < shnum; i++) {
    const uint8_t *sh = f + shoff + (uint64_t)i * shentsize;
    uint32_t nm = ft_rd32(sh);
    if (nm >= strsize) continue;
    const char *name = (const char *)f + stroff + nm;   /* NUL-terminated: the table ends with NUL */
    if (strncmp(name, prefix, plen) != 0) continue;
    if (ft_rd32(sh + 4) == 8 /* SHT_NOBITS */) continue;
    uint64_t off = ft_rd64(sh + 24), sz = ft_rd64(sh + 32);
    if (off > size || sz > size - off) return -1;
    found++;
    if (fn(name, f + off, (size_t)sz, ctx)) break;
  }
  return found;
}

typedef struct {
  const char *name;
  const uint8_t *data;
  size_t len;
  int hit;
} one_t;

static int exact_name(const char *name, const uint8_t *data, size_t len, void *ctx) {
  one_t *o = ctx;
  if (strcmp(name, o->name) != 0) return 0;
  o->data = data;
  o->len = len;
  o->hit = 1;
  return 1;
}

int ft_elf_section(const void *file, size_t size, const char *name, const uint8_t **data, size_t *len) {
  one_t o = {name, NULL, 0, 0};
  if (ft_elf_sections(file, size, name, exact_name, &o) < 0 || !o.hit) return -1;
  *data = o.data;
  *len = o.len;
  return 0;
}
