/* ptxfacts: prints, for a fatbin / PTX / cubin / executable file, each kernel's
 * argument places with their access class, and a coverage line. Not installed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "fatbin.h"
#include "ptx_ir.h"

typedef struct {
  size_t kernels, kernels_failed, places, exact, pointers, modules_failed, sass_only;
} totals_t;

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *buf = NULL;
  size_t cap = 0, n = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? cap * 2 : 65536;
      char *g = realloc(buf, cap + 1);
      if (!g) break;
      buf = g;
    }
    size_t r = fread(buf + n, 1, cap - n, f);
    if (r == 0) break;
    n += r;
  }
  fclose(f);
  if (buf) buf[n] = '\0';
  *len = n;
  return buf;
}

static void module_facts(const char *path, const ft_ptx_module_t *m, unsigned sm, int quiet, totals_t *t) {
  for (size_t i = 0; i < m->nfuncs; i++) {
    const ft_ptx_function_t *fn = &m->funcs[i];
    if (!fn->is_entry || fn->is_decl) continue;
    ft_ptx_facts_t facts;
    char err[256];
    t->kernels++;
    if (ft_ptx_facts(m, fn, &facts, err, sizeof err) != 0) {
      t->kernels_failed++;
      printf("%s: %s: not analysed: %s\n", path, fn->name, err);
      continue;
    }
    if (!quiet) {
      printf("%s: sm_%u %s%s%s%s%s\n", path, sm, fn->name,
             (facts.flags & FT_PTX_K_LOADED_PTR) ? " [derefs loaded pointers]" : "",
             (facts.flags & FT_PTX_K_GLOBAL_VAR) ? " [global variables]" : "",
             (facts.flags & FT_PTX_K_UNKNOWN_CALL) ? " [unknown call]" : "",
             (facts.flags & FT_PTX_K_INCOMPLETE) ? " [incomplete]" : "");
    }
    for (size_t k = 0; k < facts.nplaces; k++) {
      const ft_ptx_place_t *p = &facts.places[k];
      t->places++;
      if (p->exact) t->exact++;
      if (p->access != FT_PTX_ACC_NONE) t->pointers++;
      if (!quiet)
        printf("  %4u param %u+%u: %-10s %s%s\n", p->offset, p->param, p->field, ft_ptx_access_name(p->access),
               p->exact ? "exact" : "conservative", p->nc ? " (.nc)" : "");
    }
    ft_ptx_facts_free(&facts);
  }
}

static void one_file(const char *path, int quiet, totals_t *t) {
  size_t len;
  char *buf = slurp(path, &len);
  if (!buf) {
    printf("%s: cannot read\n", path);
    t->modules_failed++;
    return;
  }
  ft_image_ptx_t img;
  char err[256];
  if (ft_image_ptx(buf, len, &img, err, sizeof err) != 0) {
    printf("%s: not analysed: %s\n", path, err);
    t->modules_failed++;
    free(buf);
    return;
  }
  if (!img.nptx) {
    printf("%s: %s\n", path, err);
    t->sass_only++;
  }
  for (size_t i = 0; i < img.nptx; i++) {
    ft_ptx_module_t *m;
    if (ft_ptx_parse(img.ptx[i].text, img.ptx[i].len, &m, err, sizeof err) != 0) {
      printf("%s: PTX #%zu not analysed: %s\n", path, i, err);
      t->modules_failed++;
      continue;
    }
    module_facts(path, m, img.ptx[i].sm ? img.ptx[i].sm : m->sm, quiet, t);
    ft_ptx_module_free(m);
  }
  ft_image_ptx_free(&img);
  free(buf);
}

int main(int argc, char **argv) {
  int quiet = 0, first = 1;
  if (argc > 1 && strcmp(argv[1], "-q") == 0) quiet = 1, first = 2;
  if (argc <= first) {
    fprintf(stderr, "usage: ptxfacts [-q] FILE...  (PTX text, fatbin, cubin, executable or library)\n");
    return 2;
  }
  totals_t t;
  memset(&t, 0, sizeof t);
  for (int i = first; i < argc; i++) one_file(argv[i], quiet, &t);
  printf("coverage: %zu kernels (%zu not analysed), %zu places (%zu dereferenced): %zu exact, %zu conservative;"
         " %zu PTX modules not analysed, %zu images SASS only\n",
         t.kernels, t.kernels_failed, t.places, t.pointers, t.exact, t.places - t.exact, t.modules_failed,
         t.sass_only);
  return t.modules_failed || t.kernels_failed ? 1 : 0;
}
