/* test_corpus.c: access facts of the corpus kernels, read from every container
 * nvcc 13 makes (PTX text, fatbins with zstd and LZ4, executables), and the
 * parser over every kernel of the repository. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fatbin.h"
#include "ptx_test_util.h"
#include "runner.h"

#ifdef FT_PTX_CORPUS_BIN
#define NEED_NVCC() ((void)0)
#else
#define FT_PTX_CORPUS_BIN ""
#define FT_PTX_REPO_BIN ""
#define FT_PTX_REPO_FILES ""
#define NEED_NVCC() return TEST_SKIPF("no nvcc at configure time: the corpus was not compiled")
#endif

/* Checks every PTX of the image at path (size known) against the corpus
 * expectations; returns kernels checked. want_comp: the compression every PTX
 * entry must use (-1: any). */
typedef struct {
  int want_comp;
  size_t ptx_entries, bad_comp;
} comp_check_t;

static int comp_cb(const ft_fatbin_entry_t *e, void *ctx) {
  comp_check_t *c = ctx;
  if (e->kind != FT_FATBIN_ENTRY_PTX) return 0;
  c->ptx_entries++;
  if (c->want_comp >= 0 && e->compression != (unsigned)c->want_comp) c->bad_comp++;
  return 0;
}

static size_t check_image(const char *path, pt_expect_t *ex, size_t n, int want_comp) {
  size_t len;
  char *img = pt_read_file(path, &len);
  if (!img) FT_FAIL_("cannot read %s (was the corpus built?)", path);
  ft_image_ptx_t r;
  char err[256];
  if (ft_image_ptx(img, len, &r, err, sizeof err) != 0) FT_FAIL_("%s: %s", path, err);
  if (r.nptx == 0) FT_FAIL_("%s: no PTX: %s", path, err);
  if (r.kind != FT_IMAGE_PTX) {
    comp_check_t cc = {want_comp, 0, 0};
    ASSERT(ft_fatbin_walk(img, len, comp_cb, &cc, err, sizeof err) > 0);
    ASSERT_EQ(cc.ptx_entries, r.nptx);
    if (cc.bad_comp) FT_FAIL_("%s: %zu PTX entries not compressed as expected", path, cc.bad_comp);
  }
  size_t checked = 0;
  for (size_t i = 0; i < r.nptx; i++) {
    ft_ptx_module_t *m = pt_parse_or_fail(r.ptx[i].text, r.ptx[i].len, path);
    ASSERT_EQ(r.kind == FT_IMAGE_PTX ? m->sm : r.ptx[i].sm, 75u);
    checked += pt_check_module(m, ex, n, path);
    ft_ptx_module_free(m);
  }
  ft_image_ptx_free(&r);
  free(img);
  return checked;
}

static void all_seen(pt_expect_t *ex, size_t n, const char *what) {
  for (size_t k = 0; k < n; k++)
    if (!ex[k].seen) FT_FAIL_("%s: kernel %s (%s) not found", what, ex[k].name, ex[k].file);
}

/* Every corpus file: its own expectations against the given product. */
static int per_file(const char *suffix, int want_comp) {
  char names[64][64];
  size_t nf = pt_corpus_names(FT_PTX_CORPUS_SRC, names, 64), total = 0;
  for (size_t i = 0; i < nf; i++) {
    pt_expect_t *ex = NULL;
    size_t n = 0;
    char src[512], bin[512];
    snprintf(src, sizeof src, "%s/%s.cu", FT_PTX_CORPUS_SRC, names[i]);
    snprintf(bin, sizeof bin, "%s/%s%s", FT_PTX_CORPUS_BIN, names[i], suffix);
    pt_load_expectations(src, &ex, &n);
    ASSERT_GT(n, 0u);
    total += check_image(bin, ex, n, want_comp);
    all_seen(ex, n, bin);
    free(ex);
  }
  printf("# %zu kernels checked from %zu %s files\n", total, nf, suffix);
  ASSERT_GE(total, 40u);
  return TEST_OK;
}

TEST_IMPL(corpus_ptx_text) {
  NEED_NVCC();
  return per_file(".ptx", -1);
}

TEST_IMPL(corpus_fatbin_zstd) {
  NEED_NVCC();
  return per_file(".fatbin", FT_FATBIN_COMP_ZSTD);
}

TEST_IMPL(corpus_fatbin_lz4) {
  NEED_NVCC();
  return per_file(".lz4.fatbin", FT_FATBIN_COMP_LZ4);
}

static int executable(const char *name, int want_comp) {
  pt_expect_t *ex = NULL;
  size_t n = 0;
  pt_load_corpus(FT_PTX_CORPUS_SRC, &ex, &n);
  char bin[512];
  snprintf(bin, sizeof bin, "%s/%s", FT_PTX_CORPUS_BIN, name);
  size_t checked = check_image(bin, ex, n, want_comp);
  all_seen(ex, n, bin);
  printf("# %zu kernels checked in %s\n", checked, name);
  free(ex);
  return TEST_OK;
}

TEST_IMPL(corpus_executable_zstd) {
  NEED_NVCC();
  return executable("corpus_exe", FT_FATBIN_COMP_ZSTD);
}

TEST_IMPL(corpus_executable_lz4) {
  NEED_NVCC();
  return executable("corpus_exe_lz4", FT_FATBIN_COMP_LZ4);
}

/* Every .cu of the repository: PTX parses and every kernel is analysed. */
TEST_IMPL(repository_kernels_parse) {
  NEED_NVCC();
  char *files = strdup(FT_PTX_REPO_FILES);
  size_t nfiles = 0, nkernels = 0, places = 0, exact = 0, not_compiled = 0;
  char *save = NULL;
  for (char *rel = strtok_r(files, ":", &save); rel; rel = strtok_r(NULL, ":", &save)) {
    char flat[512], path[1024];
    snprintf(flat, sizeof flat, "%s", rel);
    for (char *c = flat; *c; c++)
      if (*c == '/') *c = '_';
    snprintf(path, sizeof path, "%s/%s.ptx.err", FT_PTX_REPO_BIN, flat);
    FILE *e = fopen(path, "r");
    if (e) {
      char line[200] = "";
      if (!fgets(line, sizeof line, e)) line[0] = '\0';
      fclose(e);
      printf("# %s: nvcc could not compile it here: %s", rel, line);
      not_compiled++;
      continue;
    }
    snprintf(path, sizeof path, "%s/%s.ptx", FT_PTX_REPO_BIN, flat);
    size_t len;
    char *text = pt_read_file(path, &len);
    if (!text) FT_FAIL_("cannot read %s", path);
    ft_ptx_module_t *m = pt_parse_or_fail(text, len, rel);
    nfiles++;
    for (size_t i = 0; i < m->nfuncs; i++) {
      if (!m->funcs[i].is_entry || m->funcs[i].is_decl) continue;
      ft_ptx_facts_t f;
      char err[256];
      if (ft_ptx_facts(m, &m->funcs[i], &f, err, sizeof err) != 0) FT_FAIL_("%s: %s: %s", rel, m->funcs[i].name, err);
      ASSERT(!(f.flags & FT_PTX_K_INCOMPLETE));
      nkernels++;
      for (size_t p = 0; p < f.nplaces; p++) places++, exact += f.places[p].exact;
      ft_ptx_facts_free(&f);
    }
    ft_ptx_module_free(m);
    free(text);
  }
  free(files);
  printf("# %zu files, %zu kernels, %zu places: %zu exact, %zu conservative; %zu files not compiled\n", nfiles,
         nkernels, places, exact, places - exact, not_compiled);
  ASSERT_GE(nfiles, 5u);
  ASSERT_GE(nkernels, 10u);
  return TEST_OK;
}
