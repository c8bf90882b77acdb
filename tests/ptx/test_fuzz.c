/* test_fuzz.c: truncated and corrupted images and randomly mutated PTX: the
 * front end must return a module or an error, never crash or hang (run under
 * ASan+UBSan in CI). Deterministic seeds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "fatbin.h"
#include "lex.h"
#include "ptx_test_util.h"
#include "runner.h"

static uint64_t rng_state;
static uint64_t rnd(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

/* Runs the whole front end on one image; counts outcomes. */
typedef struct {
  size_t images_ok, images_err, modules_ok, modules_err, kernels;
} outcome_t;

static void analyse_text(const char *text, size_t len, outcome_t *o) {
  ft_ptx_module_t *m;
  char err[256];
  if (ft_ptx_parse(text, len, &m, err, sizeof err) != 0) {
    ASSERT(strstr(err, "not analysed") != NULL || strstr(err, "out of memory") != NULL);
    o->modules_err++;
    return;
  }
  o->modules_ok++;
  for (size_t i = 0; i < m->nfuncs; i++) {
    if (!m->funcs[i].is_entry || m->funcs[i].is_decl) continue;
    ft_ptx_facts_t f;
    if (ft_ptx_facts(m, &m->funcs[i], &f, err, sizeof err) == 0) {
      for (size_t p = 0; p < f.nplaces; p++) ASSERT(f.places[p].access <= FT_PTX_ACC_ESCAPES);
      ft_ptx_facts_free(&f);
      o->kernels++;
    }
  }
  ft_ptx_module_free(m);
}

static void analyse_image(const void *img, size_t len, outcome_t *o) {
  ft_image_ptx_t r;
  char err[256];
  if (ft_image_ptx(img, len, &r, err, sizeof err) != 0) {
    ASSERT(err[0] != '\0');
    o->images_err++;
    return;
  }
  o->images_ok++;
  for (size_t i = 0; i < r.nptx; i++) analyse_text(r.ptx[i].text, r.ptx[i].len, o);
  ft_image_ptx_free(&r);
}

/* The images to fuzz: a synthetic fatbin, and nvcc's when built. */
static size_t load_images(unsigned char **imgs, size_t *lens, size_t max) {
  size_t n = 0;
  const unsigned comps[] = {FT_FATBIN_COMP_ZSTD, FT_FATBIN_COMP_LZ4, FT_FATBIN_COMP_NONE};
  imgs[n] = pt_make_fatbin(pt_sample_ptx, comps, 3, &lens[n]);
  n++;
#ifdef FT_PTX_CORPUS_BIN
  const char *files[] = {"structs.fatbin", "calls.lz4.fatbin"};
  for (size_t i = 0; i < 2 && n < max; i++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", FT_PTX_CORPUS_BIN, files[i]);
    imgs[n] = (unsigned char *)pt_read_file(path, &lens[n]);
    if (!imgs[n]) FT_FAIL_("cannot read %s", path);
    n++;
  }
#endif
  (void)max;
  return n;
}

TEST_IMPL(fuzz_fatbin_truncated) {
  unsigned char *imgs[4];
  size_t lens[4];
  size_t n = load_images(imgs, lens, 4);
  outcome_t o = {0};
  for (size_t k = 0; k < n; k++) {
    /* every length up to 1 KiB, then strided: each prefix copied to a buffer of
     * exactly that size so that ASan sees any read past it (size 0 would mean
     * "unknown size", bounded by the headers only: not a truncation) */
    for (size_t cut = 1; cut < lens[k]; cut += cut < 1024 ? 1 : 61) {
      unsigned char *c = malloc(cut);
      memcpy(c, imgs[k], cut);
      analyse_image(c, cut, &o);
      free(c);
    }
    analyse_image(imgs[k], lens[k], &o);
    free(imgs[k]);
  }
  printf("# %zu images read, %zu refused; %zu modules, %zu kernels analysed\n", o.images_ok, o.images_err,
         o.modules_ok, o.kernels);
  ASSERT_GT(o.images_err, 0u);
  ASSERT_GT(o.kernels, 0u);
  return TEST_OK;
}

TEST_IMPL(fuzz_fatbin_corrupted) {
  unsigned char *imgs[4];
  size_t lens[4];
  size_t n = load_images(imgs, lens, 4);
  outcome_t o = {0};
  for (size_t k = 0; k < n; k++) {
    unsigned char *c = malloc(lens[k]);
    for (unsigned seed = 1; seed <= 600; seed++) {
      rng_state = 0x9e3779b97f4a7c15ull * seed + k;
      memcpy(c, imgs[k], lens[k]);
      unsigned flips = 1 + (unsigned)(rnd() % 6);
      for (unsigned f = 0; f < flips; f++) {
        /* headers are where the walker makes decisions: hit them often */
        size_t at = (rnd() & 1) ? rnd() % (lens[k] < 256 ? lens[k] : 256) : rnd() % lens[k];
        c[at] = (rnd() & 1) ? (unsigned char)rnd() : (unsigned char)(c[at] ^ (1u << (rnd() % 8)));
      }
      analyse_image(c, lens[k], &o);
    }
    free(c);
    free(imgs[k]);
  }
  printf("# %zu images read, %zu refused; %zu modules parsed, %zu refused; %zu kernels analysed\n", o.images_ok,
         o.images_err, o.modules_ok, o.modules_err, o.kernels);
  ASSERT_GT(o.images_err, 0u);
  ASSERT_GT(o.images_ok, 0u);
  return TEST_OK;
}

/* The texts to mutate: the sample, and the corpus PTX when built. */
typedef struct {
  const char *s;
  size_t len;
} span_t;

static void mutate_text(const char *text, size_t len, unsigned seeds, outcome_t *o) {
  /* tokens with their spans */
  size_t cap = 1024, nt = 0;
  span_t *tok = malloc(cap * sizeof *tok);
  ft_lexer_t lx;
  ft_lex_init(&lx, text, len);
  for (;;) {
    ft_tok_t t = ft_lex_next(&lx);
    if (t.kind == FT_TOK_EOF || t.kind == FT_TOK_ERR) break;
    if (nt == cap) tok = realloc(tok, (cap *= 2) * sizeof *tok);
    tok[nt++] = (span_t){t.s, t.len};
  }
  ASSERT_GT(nt, 10u);
  static const char *const extra[] = {"{", "}", "(", ")", "[", "]", ";", ",", "|", "!", "@", "-", "+",
                                      "<", ">", "=", ":", "_", "%r1", "%p1", ".reg", ".b64", ".param",
                                      "0fFFFFFFFF", "99999999999999999999", "%tid.w", ".v4", "ld.global.v4",
                                      "call.uni", "bra", "$L__BB0_1", "{ .reg .pred %p1;", "0x", "1e999"};
  char *out = malloc(len * 2 + 4096);
  for (unsigned seed = 1; seed <= seeds; seed++) {
    rng_state = 0x2545f4914f6cdd1dull * seed + len;
    unsigned nmut = 1 + (rnd() % 4 == 0 ? (unsigned)(rnd() % 4) : 0);
    size_t pos[4], kind[4];
    for (unsigned i = 0; i < nmut; i++) pos[i] = rnd() % nt, kind[i] = rnd() % 5;
    size_t ol = 0, cut = (rnd() % 16 == 0) ? rnd() % nt : nt;
    for (size_t i = 0; i < cut; i++) {
      const span_t *t = &tok[i];
      int skip = 0;
      for (unsigned j = 0; j < nmut; j++) {
        if (pos[j] != i) continue;
        switch (kind[j]) {
        case 0: skip = 1; break;                                   /* delete */
        case 1: t = &tok[rnd() % nt]; break;                       /* replace by another token */
        case 2: memcpy(out + ol, t->s, t->len), ol += t->len, out[ol++] = ' '; break;   /* duplicate */
        case 3: {                                                  /* insert an odd token */
          const char *x = extra[rnd() % (sizeof extra / sizeof extra[0])];
          memcpy(out + ol, x, strlen(x));
          ol += strlen(x);
          out[ol++] = ' ';
          break;
        }
        default: {                                                 /* swap with the next */
          if (i + 1 < nt) t = &tok[i + 1];
          break;
        }
        }
      }
      if (skip) continue;
      if (ol + t->len + 2 > len * 2 + 4000) break;
      memcpy(out + ol, t->s, t->len);
      ol += t->len;
      out[ol++] = (i % 7 == 6) ? '\n' : ' ';
    }
    analyse_text(out, ol, o);
  }
  free(out);
  free(tok);
}

TEST_IMPL(fuzz_ptx_token_mutations) {
  outcome_t o = {0};
  mutate_text(pt_sample_ptx, strlen(pt_sample_ptx), 3000, &o);
#ifdef FT_PTX_CORPUS_BIN
  const char *files[] = {"basics.ptx", "calls.ptx", "structs.ptx", "escape.ptx"};
  for (size_t i = 0; i < 4; i++) {
    char path[512];
    size_t len;
    snprintf(path, sizeof path, "%s/%s", FT_PTX_CORPUS_BIN, files[i]);
    char *text = pt_read_file(path, &len);
    if (!text) FT_FAIL_("cannot read %s", path);
    mutate_text(text, len, 400, &o);
    free(text);
  }
#endif
  printf("# %zu mutated modules parsed, %zu refused; %zu kernels analysed\n", o.modules_ok, o.modules_err,
         o.kernels);
  ASSERT_GT(o.modules_err, 0u);
  ASSERT_GT(o.modules_ok, 0u);
  return TEST_OK;
}
