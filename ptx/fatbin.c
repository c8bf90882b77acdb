/* fatbin.c: walks fatbin containers and registration wrappers, extracts and
 * decompresses (libzstd, liblz4) their PTX entries. Layout facts: docs/ptx.md. */
#include "fatbin.h"

#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "bytes.h"

/* Sanity limits for images given without a size. */
#define MAX_CONTAINER ((uint64_t)1 << 31)
#define MAX_TEXT ((uint64_t)1 << 30)
#define MAX_HEADER 4096u
#define ENTRY_MIN 64u

/* Entry flags (observed on nvcc 13 output, docs/ptx.md). */
#define FLAG_LZ4 0x2000u
#define FLAG_ZSTD 0x8000u

#define EM_CUDA 190

static int setf(char *err, size_t errlen, const char *msg) {
  if (err && errlen) snprintf(err, errlen, "%s", msg);
  return -1;
}

static int looks_like_ptx(const uint8_t *p, size_t size) {
  size_t lim = size ? size : 4096, i = 0;
  while (i < lim && i < 4096 && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r')) i++;
  if (i >= lim) return 0;
  if (lim - i >= 2 && p[i] == '/' && (p[i + 1] == '/' || p[i + 1] == '*')) return 1;
  return lim - i >= 8 && memcmp(p + i, ".version", 8) == 0;
}

ft_image_kind_t ft_image_kind(const void *image, size_t size) {
  const uint8_t *p = image;
  if (!p || (size && size < 4)) return FT_IMAGE_UNKNOWN;
  uint32_t magic = ft_rd32(p);
  if (magic == FT_FATBIN_WRAPPER_MAGIC && (!size || size >= 16)) return FT_IMAGE_WRAPPER;
  if (magic == FT_FATBIN_MAGIC && (!size || size >= 16)) return FT_IMAGE_FATBIN;
  if (memcmp(p, "\x7f" "ELF", 4) == 0 && (!size || size >= 64))
    return ft_rd16(p + 0x12) == EM_CUDA ? FT_IMAGE_CUBIN : FT_IMAGE_HOST_ELF;
  if (looks_like_ptx(p, size)) return FT_IMAGE_PTX;
  return FT_IMAGE_UNKNOWN;
}

/* Walks the containers at p: all that fit in size when size is known, the
 * first only when it is not. */
static int walk_containers(const uint8_t *p, size_t size, int (*fn)(const ft_fatbin_entry_t *, void *),
                           void *ctx, char *err, size_t errlen) {
  int count = 0;
  size_t container = 0;
  uint64_t off = 0;
  for (;;) {
    if (size && size - off < 16) break;
    const uint8_t *c = p + off;
    if (ft_rd32(c) != FT_FATBIN_MAGIC) {
      if (off == 0) return setf(err, errlen, "not a fatbin (bad magic)");
      break;   /* zero padding after the last container */
    }
    unsigned hs = ft_rd16(c + 6);
    uint64_t fs = ft_rd64(c + 8);
    if (hs < 16 || hs > MAX_HEADER) return setf(err, errlen, "fatbin: bad header size");
    if (fs > MAX_CONTAINER) return setf(err, errlen, "fatbin: container too large");
    uint64_t total = hs + fs;
    if (size && total > size - off) return setf(err, errlen, "fatbin: truncated container");
    uint64_t e = hs;
    while (total - e >= ENTRY_MIN) {
      const uint8_t *h = c + e;
      uint32_t ehs = ft_rd32(h + 4);
      uint64_t psize = ft_rd64(h + 8);
      uint32_t csize = ft_rd32(h + 16);
      if (ehs < ENTRY_MIN || ehs > MAX_HEADER || ehs > total - e)
        return setf(err, errlen, "fatbin: bad entry header size");
      if (psize > total - e - ehs) return setf(err, errlen, "fatbin: entry larger than its container");
      ft_fatbin_entry_t en;
      memset(&en, 0, sizeof en);
      en.kind = ft_rd16(h);
      en.ver_minor = ft_rd16(h + 24);
      en.ver_major = ft_rd16(h + 26);
      en.sm = ft_rd32(h + 28);
      en.flags = ft_rd64(h + 40);
      en.payload = h + ehs;
      en.container = container;
      unsigned comp = (en.flags & FLAG_ZSTD) ? FT_FATBIN_COMP_ZSTD : (en.flags & FLAG_LZ4) ? FT_FATBIN_COMP_LZ4 : 0;
      if ((en.flags & FLAG_ZSTD) && (en.flags & FLAG_LZ4)) return setf(err, errlen, "fatbin: two compressions on one entry");
      en.compression = comp;
      if (comp) {
        if (csize > psize) return setf(err, errlen, "fatbin: compressed size beyond the entry");
        en.payload_size = csize;
        en.uncompressed_size = (size_t)ft_rd64(h + 56);
      } else {
        en.payload_size = (size_t)psize;
      }
      count++;
      if (fn && fn(&en, ctx)) return count;
      e += ehs + psize;
    }
    container++;
    if (!size) break;
    off += (total + 7) & ~(uint64_t)7;
    if (off >= size) break;
  }
  return count;
}

int ft_fatbin_walk(const void *image, size_t size, int (*fn)(const ft_fatbin_entry_t *, void *), void *ctx,
                   char *err, size_t errlen) {
  const uint8_t *p = image;
  switch (ft_image_kind(image, size)) {
  case FT_IMAGE_FATBIN:
    return walk_containers(p, size, fn, ctx, err, errlen);
  case FT_IMAGE_WRAPPER: {
    const void *data;
    memcpy(&data, p + 8, sizeof data);   /* in-process pointer to one container */
    if (!data) return setf(err, errlen, "fatbin wrapper without data");
    if (ft_rd32(data) != FT_FATBIN_MAGIC) return setf(err, errlen, "fatbin wrapper: data is not a fatbin");
    return walk_containers(data, 0, fn, ctx, err, errlen);
  }
  case FT_IMAGE_HOST_ELF: {
    const uint8_t *sec;
    size_t len;
    if (!size) return setf(err, errlen, "host ELF image without a size");
    if (ft_elf_section(p, size, ".nv_fatbin", &sec, &len) != 0) return 0;
    if (len < 16) return 0;
    return walk_containers(sec, len, fn, ctx, err, errlen);
  }
  default:
    return setf(err, errlen, "not a fatbin");
  }
}

int ft_fatbin_ptx_text(const ft_fatbin_entry_t *e, char **text, size_t *len, char *err, size_t errlen) {
  *text = NULL;
  *len = 0;
  if (e->kind != FT_FATBIN_ENTRY_PTX) return setf(err, errlen, "not a PTX entry");
  size_t n;
  char *out;
  if (e->compression == FT_FATBIN_COMP_NONE) {
    n = e->payload_size;
    out = malloc(n + 1);
    if (!out) return setf(err, errlen, "out of memory");
    memcpy(out, e->payload, n);
  } else {
    uint64_t want = e->uncompressed_size;
    if (e->compression == FT_FATBIN_COMP_ZSTD && !want) {
      unsigned long long fcs = ZSTD_getFrameContentSize(e->payload, e->payload_size);
      if (fcs == ZSTD_CONTENTSIZE_ERROR || fcs == ZSTD_CONTENTSIZE_UNKNOWN)
        return setf(err, errlen, "zstd: no content size");
      want = fcs;
    }
    if (!want || want > MAX_TEXT) return setf(err, errlen, "compressed PTX: bad uncompressed size");
    out = malloc((size_t)want + 1);
    if (!out) return setf(err, errlen, "out of memory");
    if (e->compression == FT_FATBIN_COMP_ZSTD) {
      size_t r = ZSTD_decompress(out, (size_t)want, e->payload, e->payload_size);
      if (ZSTD_isError(r)) {
        free(out);
        if (err && errlen) snprintf(err, errlen, "zstd: %s", ZSTD_getErrorName(r));
        return -1;
      }
      n = r;
    } else {
      if (e->payload_size > (size_t)LZ4_MAX_INPUT_SIZE || want > (uint64_t)INT32_MAX) {
        free(out);
        return setf(err, errlen, "lz4: entry too large");
      }
      int r = LZ4_decompress_safe((const char *)e->payload, out, (int)e->payload_size, (int)want);
      if (r < 0) {
        free(out);
        return setf(err, errlen, "lz4: corrupt PTX entry");
      }
      n = (size_t)r;
    }
  }
  out[n] = '\0';
  *text = out;
  *len = strnlen(out, n);
  return 0;
}

typedef struct {
  ft_image_ptx_t *r;
  char *err;
  size_t errlen;
  int failed;
} collect_t;

static int collect(const ft_fatbin_entry_t *e, void *ctx) {
  collect_t *c = ctx;
  if (e->kind != FT_FATBIN_ENTRY_PTX) {
    c->r->nelf++;
    return 0;
  }
  char *text;
  size_t len;
  if (ft_fatbin_ptx_text(e, &text, &len, c->err, c->errlen) != 0) {
    c->failed = 1;
    return 1;
  }
  ft_ptx_text_t *grown = realloc(c->r->ptx, (c->r->nptx + 1) * sizeof *grown);
  if (!grown) {
    free(text);
    c->failed = 1;
    setf(c->err, c->errlen, "out of memory");
    return 1;
  }
  c->r->ptx = grown;
  c->r->ptx[c->r->nptx++] = (ft_ptx_text_t){text, len, e->sm};
  return 0;
}

int ft_image_ptx(const void *image, size_t size, ft_image_ptx_t *out, char *err, size_t errlen) {
  memset(out, 0, sizeof *out);
  if (err && errlen) err[0] = '\0';
  out->kind = ft_image_kind(image, size);
  switch (out->kind) {
  case FT_IMAGE_UNKNOWN:
    return setf(err, errlen, "unknown image format");
  case FT_IMAGE_PTX: {
    size_t n = size ? strnlen(image, size) : strnlen(image, (size_t)MAX_TEXT);
    char *t = malloc(n + 1);
    out->ptx = malloc(sizeof *out->ptx);
    if (!t || !out->ptx) {
      free(t);
      ft_image_ptx_free(out);
      return setf(err, errlen, "out of memory");
    }
    memcpy(t, image, n);
    t[n] = '\0';
    out->ptx[0] = (ft_ptx_text_t){t, n, 0};
    out->nptx = 1;
    return 0;
  }
  case FT_IMAGE_CUBIN:
    out->nelf = 1;
    setf(err, errlen, "SASS only, no PTX (ELF cubin)");
    return 0;
  default: {
    collect_t c = {out, err, errlen, 0};
    int n = ft_fatbin_walk(image, size, collect, &c, err, errlen);
    if (n < 0 || c.failed) {
      ft_image_ptx_free(out);
      return -1;
    }
    if (!out->nptx)
      setf(err, errlen, out->nelf ? "SASS only, no PTX" : "no GPU code in the image");
    return 0;
  }
  }
}

void ft_image_ptx_free(ft_image_ptx_t *r) {
  for (size_t i = 0; i < r->nptx; i++) free(r->ptx[i].text);
  free(r->ptx);
  r->ptx = NULL;
  r->nptx = 0;
}
