/* fatbin.h: finds the PTX inside the images CUDA programs load: nvcc's
 * registration wrapper, fatbin containers, raw PTX text, ELF cubins and host
 * executables/libraries (their .nv_fatbin section). No CUDA headers. */
#ifndef FT_PTX_FATBIN_H
#define FT_PTX_FATBIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FT_FATBIN_WRAPPER_MAGIC 0x466243b1u   /* __fatBinC_Wrapper_t.magic */
#define FT_FATBIN_MAGIC 0xba55ed50u           /* fatbin container header */

typedef enum {
  FT_IMAGE_UNKNOWN = 0,
  FT_IMAGE_PTX,        /* PTX text (starts with "//" or ".version" after white space) */
  FT_IMAGE_FATBIN,     /* one or more fatbin containers */
  FT_IMAGE_WRAPPER,    /* __fatBinC_Wrapper_t: {magic, version, data pointer, ...} (in-process only) */
  FT_IMAGE_CUBIN,      /* ELF for the GPU (EM_CUDA): SASS only */
  FT_IMAGE_HOST_ELF    /* an executable or shared library: its .nv_fatbin section */
} ft_image_kind_t;

enum { FT_FATBIN_ENTRY_PTX = 1, FT_FATBIN_ENTRY_ELF = 2 };
enum { FT_FATBIN_COMP_NONE = 0, FT_FATBIN_COMP_ZSTD, FT_FATBIN_COMP_LZ4 };

typedef struct ft_fatbin_entry_s {
  unsigned kind;              /* FT_FATBIN_ENTRY_PTX / _ELF, or the raw kind when unknown */
  unsigned sm;                /* 75 for compute_75 / sm_75 */
  unsigned ver_major, ver_minor;  /* PTX ISA version (PTX) or cubin version (ELF) */
  uint64_t flags;             /* raw entry flags */
  unsigned compression;       /* FT_FATBIN_COMP_* */
  const uint8_t *payload;     /* points into the image */
  size_t payload_size;        /* bytes at payload (compressed size when compressed) */
  size_t uncompressed_size;   /* from the entry header; 0 when not compressed */
  size_t container;           /* index of the container in the image */
} ft_fatbin_entry_t;

/* What the image at `image` is; size 0 = unknown (bounded by the headers). */
ft_image_kind_t ft_image_kind(const void *image, size_t size);

/* Calls fn for every entry of every fatbin container in the image (container,
 * wrapper, or host ELF); fn returns nonzero to stop. Returns the number of
 * entries visited, or -1 with a reason in err for a malformed image. Every read
 * is bounded by size (when nonzero), the headers' sizes and sanity limits. */
int ft_fatbin_walk(const void *image, size_t size,
                   int (*fn)(const ft_fatbin_entry_t *e, void *ctx), void *ctx,
                   char *err, size_t errlen);

/* The PTX text of a PTX entry, decompressed (libzstd / liblz4): malloc'd,
 * NUL-terminated, *len without trailing NULs. 0, or -1 with err. */
int ft_fatbin_ptx_text(const ft_fatbin_entry_t *e, char **text, size_t *len, char *err, size_t errlen);

typedef struct ft_ptx_text_s {
  char *text;                 /* malloc'd, NUL-terminated */
  size_t len;
  unsigned sm;                /* target of the PTX (0 for raw text) */
} ft_ptx_text_t;

typedef struct ft_image_ptx_s {
  ft_image_kind_t kind;
  ft_ptx_text_t *ptx;         /* every PTX the image carries, in image order */
  size_t nptx;
  size_t nelf;                /* SASS (cubin) entries seen */
} ft_image_ptx_t;

/* Every PTX text of an image. 0 on success (nptx may be 0: then err says
 * "SASS only, no PTX" or "no GPU code"); -1 for an unreadable image, with err. */
int ft_image_ptx(const void *image, size_t size, ft_image_ptx_t *out, char *err, size_t errlen);
void ft_image_ptx_free(ft_image_ptx_t *r);

/* The section `name` of a 64-bit little-endian ELF file of `size` bytes:
 * 0 and its bytes, or -1. */
int ft_elf_section(const void *file, size_t size, const char *name, const uint8_t **data, size_t *len);

#ifdef __cplusplus
}
#endif
#endif
