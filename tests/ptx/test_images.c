/* test_images.c: image recognition and PTX extraction: synthetic fatbins with
 * every compression, the registration wrapper without a size, raw PTX, cubins
 * (SASS only), host ELF files, malformed headers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fatbin.h"
#include "ptx_test_util.h"
#include "runner.h"

TEST_IMPL(fatbin_synthetic_all_compressions) {
  const unsigned comps[] = {FT_FATBIN_COMP_NONE, FT_FATBIN_COMP_ZSTD, FT_FATBIN_COMP_LZ4, FT_FATBIN_COMP_ZSTD};
  size_t len;
  unsigned char *fb = pt_make_fatbin(pt_sample_ptx, comps, 4, &len);
  ASSERT_EQ((int)ft_image_kind(fb, len), FT_IMAGE_FATBIN);
  ft_image_ptx_t r;
  char err[256];
  /* with the size, and without it (bounded by the headers) */
  for (int sized = 0; sized < 2; sized++) {
    ASSERT_EQ(ft_image_ptx(fb, sized ? len : 0, &r, err, sizeof err), 0);
    ASSERT_EQ(r.nptx, 4u);
    ASSERT_EQ(r.nelf, 1u);
    for (size_t i = 0; i < r.nptx; i++) {
      ASSERT_EQ(r.ptx[i].len, strlen(pt_sample_ptx));
      ASSERT_STR_EQ(r.ptx[i].text, pt_sample_ptx);
      ASSERT_EQ(r.ptx[i].sm, 75u + (unsigned)i);
    }
    ft_image_ptx_free(&r);
  }
  free(fb);
  return TEST_OK;
}

TEST_IMPL(fatbin_wrapper_without_size) {
  const unsigned comps[] = {FT_FATBIN_COMP_ZSTD};
  size_t len;
  unsigned char *fb = pt_make_fatbin(pt_sample_ptx, comps, 1, &len);
  /* __fatBinC_Wrapper_t as nvcc emits it: magic, version, data, filename */
  struct {
    int magic, version;
    const void *data;
    void *filename_or_fatbins;
  } w = {(int)FT_FATBIN_WRAPPER_MAGIC, 1, fb, NULL};
  ASSERT_EQ((int)ft_image_kind(&w, 0), FT_IMAGE_WRAPPER);
  ft_image_ptx_t r;
  char err[256];
  ASSERT_EQ(ft_image_ptx(&w, 0, &r, err, sizeof err), 0);
  ASSERT_EQ(r.nptx, 1u);
  ASSERT_STR_EQ(r.ptx[0].text, pt_sample_ptx);
  ft_image_ptx_free(&r);
  /* a wrapper whose data is not a fatbin is an error, not a crash */
  static const unsigned char junk[32] = {1, 2, 3};
  w.data = junk;
  ASSERT_EQ(ft_image_ptx(&w, 0, &r, err, sizeof err), -1);
  ASSERT(strstr(err, "not a fatbin") != NULL);
  w.data = NULL;
  ASSERT_EQ(ft_image_ptx(&w, 0, &r, err, sizeof err), -1);
  free(fb);
  return TEST_OK;
}

TEST_IMPL(raw_ptx_and_unknown_images) {
  ft_image_ptx_t r;
  char err[256];
  ASSERT_EQ((int)ft_image_kind(pt_sample_ptx, 0), FT_IMAGE_PTX);
  ASSERT_EQ(ft_image_ptx(pt_sample_ptx, 0, &r, err, sizeof err), 0);
  ASSERT_EQ(r.nptx, 1u);
  ASSERT_STR_EQ(r.ptx[0].text, pt_sample_ptx);
  ft_image_ptx_free(&r);
  const char *v = "\n\t .version 8.0\n.target sm_80\n.address_size 64\n";
  ASSERT_EQ((int)ft_image_kind(v, strlen(v)), FT_IMAGE_PTX);
  const char *bad[] = {"hello", "", "\x01\x02\x03\x04\x05", "   ", "/x"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ASSERT_EQ((int)ft_image_kind(bad[i], strlen(bad[i])), FT_IMAGE_UNKNOWN);
    ASSERT_EQ(ft_image_ptx(bad[i], strlen(bad[i]), &r, err, sizeof err), -1);
    ASSERT(err[0] != '\0');
  }
  ASSERT_EQ((int)ft_image_kind(NULL, 0), FT_IMAGE_UNKNOWN);
  return TEST_OK;
}

TEST_IMPL(elf_images) {
  /* a host ELF without .nv_fatbin: no GPU code, no error */
  size_t len;
  char *self = pt_read_file("/proc/self/exe", &len);
  ASSERT(self != NULL);
  ASSERT_EQ((int)ft_image_kind(self, len), FT_IMAGE_HOST_ELF);
  ft_image_ptx_t r;
  char err[256];
  ASSERT_EQ(ft_image_ptx(self, len, &r, err, sizeof err), 0);
  ASSERT_EQ(r.nptx, 0u);
  ASSERT(strstr(err, "no GPU code") != NULL);
  /* a host ELF given without a size cannot be walked */
  ASSERT_EQ(ft_image_ptx(self, 0, &r, err, sizeof err), -1);
  /* truncated ELF section tables: never a read past the end */
  for (size_t cut = 0; cut < len; cut += len / 97 + 1) {
    const uint8_t *d;
    size_t dl;
    (void)ft_elf_section(self, cut, ".text", &d, &dl);
  }
  const uint8_t *d;
  size_t dl;
  ASSERT_EQ(ft_elf_section(self, len, ".text", &d, &dl), 0);
  ASSERT_GT(dl, 0u);
  free(self);
#ifdef FT_PTX_CORPUS_BIN
  char path[512];
  snprintf(path, sizeof path, "%s/sass_only.cubin", FT_PTX_CORPUS_BIN);
  char *cubin = pt_read_file(path, &len);
  if (!cubin) FT_FAIL_("cannot read %s", path);
  ASSERT_EQ((int)ft_image_kind(cubin, len), FT_IMAGE_CUBIN);
  ASSERT_EQ(ft_image_ptx(cubin, len, &r, err, sizeof err), 0);
  ASSERT_EQ(r.nptx, 0u);
  ASSERT(strstr(err, "SASS only") != NULL);
  free(cubin);
#endif
  return TEST_OK;
}

TEST_IMPL(fatbin_malformed_headers) {
  const unsigned comps[] = {FT_FATBIN_COMP_ZSTD, FT_FATBIN_COMP_LZ4};
  size_t len;
  unsigned char *fb = pt_make_fatbin(pt_sample_ptx, comps, 2, &len);
  unsigned char *c = malloc(len);
  ft_image_ptx_t r;
  char err[256];
  struct {
    size_t off;
    unsigned char val;
    const char *why;
  } cases[] = {
      {6, 8, "bad header size"},                 /* container header size < 16 */
      {8 + 4, 0x10, "container"},                /* container size beyond the image */
      {16 + 4, 8, "entry header size"},          /* entry header < 64 */
      {16 + 8 + 5, 0x7f, "larger than"},         /* payload size beyond the container */
      {16 + 128 + 41, 0xa0, "two compressions"}, /* zstd and lz4 flags together */
      {16 + 128 + 16 + 3, 0x7f, "compressed size"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    memcpy(c, fb, len);
    c[cases[i].off] = cases[i].val;
    ASSERT_EQ(ft_image_ptx(c, len, &r, err, sizeof err), -1);
    if (!strstr(err, cases[i].why)) FT_FAIL_("case %zu: error '%s', expected '%s'", i, err, cases[i].why);
  }
  /* corrupt compressed payloads: a decompression error, named */
  memcpy(c, fb, len);
  memset(c + 16 + 128 + 80, 0xee, 16);
  ASSERT_EQ(ft_image_ptx(c, len, &r, err, sizeof err), -1);
  ASSERT(strstr(err, "zstd") != NULL);
  free(c);
  free(fb);
  return TEST_OK;
}

/* The parameter layout a cubin records equals the PTX's, kernel by kernel. */
typedef struct {
  const ft_ptx_module_t *m;
  size_t kernels, places;
} layout_t;

static int check_layout(const char *name, const ft_cubin_param_t *ps, size_t n, void *ctx) {
  layout_t *l = ctx;
  const ft_ptx_function_t *fn = ft_ptx_find_function(l->m, name);
  if (!fn) FT_FAIL_("cubin kernel %s not in the PTX", name);
  ASSERT_EQ(n, fn->nparams);
  uint32_t off[64], size[64];
  ASSERT_LE(n, 64u);
  for (size_t i = 0; i < n; i++) {
    ASSERT_EQ(ps[i].ordinal, (uint32_t)i);
    ASSERT_EQ(ps[i].offset, fn->params[i].offset);
    ASSERT_EQ(ps[i].size, fn->params[i].size);
    off[i] = ps[i].offset;
    size[i] = ps[i].size;
  }
  /* conservative facts from the layout: the same places as the PTX analysis */
  ft_ptx_facts_t c, f;
  char err[256];
  ASSERT_EQ(ft_ptx_facts_conservative(off, size, n, &c), 0);
  ASSERT_EQ(ft_ptx_facts(l->m, fn, &f, err, sizeof err), 0);
  ASSERT_EQ(c.nplaces, f.nplaces);
  for (size_t p = 0; p < c.nplaces; p++) {
    ASSERT_EQ(c.places[p].offset, f.places[p].offset);
    ASSERT_EQ(c.places[p].access, (uint8_t)FT_PTX_ACC_READ_WRITE);
    ASSERT(!c.places[p].exact);
  }
  l->places += c.nplaces;
  ft_ptx_facts_free(&c);
  ft_ptx_facts_free(&f);
  l->kernels++;
  return 0;
}

typedef struct {
  layout_t *l;
  size_t elf_entries;
} elf_entry_t;

static int elf_entry(const ft_fatbin_entry_t *e, void *ctx) {
  elf_entry_t *ee = ctx;
  if (e->kind != FT_FATBIN_ENTRY_ELF) return 0;
  uint8_t *elf;
  size_t n;
  char err[256];
  if (ft_fatbin_entry_bytes(e, &elf, &n, err, sizeof err) != 0) FT_FAIL_("ELF entry: %s", err);
  ee->l->kernels = 0;
  ASSERT_EQ(ft_cubin_kernels(elf, n, check_layout, ee->l), 5);
  ASSERT_EQ(ee->l->kernels, 5u);
  free(elf);
  ee->elf_entries++;
  return 0;
}

TEST_IMPL(cubin_param_layout) {
#ifndef FT_PTX_CORPUS_BIN
  return TEST_SKIPF("no nvcc at configure time: no cubin to read");
#else
  char path[512];
  size_t len, plen;
  snprintf(path, sizeof path, "%s/sass_only.cubin", FT_PTX_CORPUS_BIN);
  char *cubin = pt_read_file(path, &len);
  snprintf(path, sizeof path, "%s/atomics.ptx", FT_PTX_CORPUS_BIN);
  char *ptx = pt_read_file(path, &plen);
  ASSERT(cubin && ptx);
  ft_ptx_module_t *m = pt_parse_or_fail(ptx, plen, path);
  layout_t l = {m, 0, 0};
  ASSERT_EQ(ft_cubin_kernels(cubin, len, check_layout, &l), 5);
  ASSERT_EQ(l.kernels, 5u);
  ASSERT_EQ(l.places, 10u);
  /* truncated cubins: an error or fewer kernels, never a read past the end */
  for (size_t cut = 1; cut < len; cut += 7) {
    char *c = malloc(cut);
    memcpy(c, cubin, cut);
    l.kernels = 0;
    (void)ft_cubin_kernels(c, cut, check_layout, &l);
    free(c);
  }
  /* the same from the ELF entry of the fatbin, decompressed when it is */
  snprintf(path, sizeof path, "%s/atomics.fatbin", FT_PTX_CORPUS_BIN);
  char *fb = pt_read_file(path, &len);
  ASSERT(fb != NULL);
  elf_entry_t ee = {&l, 0};
  char err[256];
  ASSERT_GT(ft_fatbin_walk(fb, len, elf_entry, &ee, err, sizeof err), 0);
  ASSERT_EQ(ee.elf_entries, 1u);
  ft_ptx_module_free(m);
  free(fb);
  free(cubin);
  free(ptx);
  return TEST_OK;
#endif
}
