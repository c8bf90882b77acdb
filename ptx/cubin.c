/* cubin.c: parameter layout of the kernels of an ELF cubin (SASS only), from
 * the EIATTR_KPARAM_INFO records of each .nv.info.<kernel> section. */
#include <stdlib.h>
#include <string.h>

#include "bytes.h"
#include "fatbin.h"

/* .nv.info records: u8 format, u8 attribute, then for format 4 (EIFMT_SVAL) a
 * u16 size and that many bytes, else a u16 value (observed on nvcc 13 cubins). */
#define EIFMT_SVAL 4
#define EIATTR_KPARAM_INFO 0x17
#define MAX_PARAMS 4096

typedef struct {
  int (*fn)(const char *, const ft_cubin_param_t *, size_t, void *);
  void *ctx;
  int bad;
} walk_t;

static int cmp_offset(const void *a, const void *b) {
  const ft_cubin_param_t *x = a, *y = b;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static int one_kernel(const char *name, const uint8_t *d, size_t len, void *ctx) {
  walk_t *w = ctx;
  ft_cubin_param_t *ps = NULL;
  size_t n = 0;
  for (size_t o = 0; len - o >= 4;) {
    unsigned fmt = d[o], attr = d[o + 1];
    size_t rec = 4;
    if (fmt == EIFMT_SVAL) {
      rec = 4 + (size_t)ft_rd16(d + o + 2);
      if (rec > len - o) {
        w->bad = 1;
        break;
      }
      if (attr == EIATTR_KPARAM_INFO && rec >= 16 && n < MAX_PARAMS) {
        /* u32 index, u16 ordinal, u16 offset, u32 flags (size in bytes in bits 18..31) */
        ft_cubin_param_t *g = realloc(ps, (n + 1) * sizeof *g);
        if (!g) {
          w->bad = 1;
          break;
        }
        ps = g;
        ps[n].ordinal = ft_rd16(d + o + 8);
        ps[n].offset = ft_rd16(d + o + 10);
        ps[n].size = ft_rd32(d + o + 12) >> 18;
        n++;
      }
    }
    o += rec;
  }
  int stop = 0;
  if (!w->bad) {
    qsort(ps, n, sizeof *ps, cmp_offset);
    stop = w->fn(name + strlen(".nv.info."), ps, n, w->ctx);
  }
  free(ps);
  return stop || w->bad;
}

int ft_cubin_kernels(const void *cubin, size_t size,
                     int (*fn)(const char *name, const ft_cubin_param_t *params, size_t n, void *ctx), void *ctx) {
  if (!size || ft_image_kind(cubin, size) != FT_IMAGE_CUBIN) return -1;
  walk_t w = {fn, ctx, 0};
  int found = ft_elf_sections(cubin, size, ".nv.info.", one_kernel, &w);
  return found < 0 || w.bad ? -1 : found;
}
