/* ptxfacts: prints, for a fatbin / PTX / cubin / executable file, each kernel's
 * argument places with their access class, and a coverage line. Not installed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "fatbin.h"
#include "ptx_ir.h"

typedef struct {
  size_t kernels, kernels_failed, places, exact, as_int, pointers, modules, modules_failed, sass_only;
  size_t beyond, everything; /* kernels reaching beyond their arguments; of them, anything */
  size_t bounded, rd, rd_bounded, wr, wr_bounded; /* ranges (docs/ptx.md, "Ranges") */
  size_t range_places, range_bytes;                  /* places with a record; the pools' bytes */
} totals_t;

/* Range coverage of one dereferenced place: bounded when every direction it is
 * accessed in is. */
static void count_ranges(const ft_ptx_facts_t *f, const ft_ptx_place_t *p, totals_t *t) {
  int r = (p->access & FT_PTX_ACC_READ) || p->access == FT_PTX_ACC_ESCAPES;
  int w = (p->access & FT_PTX_ACC_WRITE) || p->access == FT_PTX_ACC_ESCAPES;
  ft_ptx_range_t rr, wr;
  ft_ptx_place_range(f, p, 0, &rr);
  ft_ptx_place_range(f, p, 1, &wr);
  int rb = ft_ptx_range_bounded(&rr), wb = ft_ptx_range_bounded(&wr);
  t->rd += r;
  t->wr += w;
  t->rd_bounded += r && rb;
  t->wr_bounded += w && wb;
  if (p->access != FT_PTX_ACC_NONE && (!r || rb) && (!w || wb)) t->bounded++;
}

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
      printf("%s: sm_%u %s%s%s%s%s%s%s%s%s\n", path, sm, fn->name,
             (facts.flags & FT_PTX_K_LOADED_PTR) ? " [derefs loaded pointers]" : "",
             (facts.flags & FT_PTX_K_LOADED_UNK) ? " [from memory no place names]" : "",
             (facts.flags & FT_PTX_K_GLOBAL_VAR) ? " [global variables]" : "",
             (facts.flags & FT_PTX_K_UNKNOWN_CALL) ? " [unknown call]" : "",
             (facts.flags & FT_PTX_K_UNKNOWN_ADDR) ? " [address from no pointer]" : "",
             (facts.flags & FT_PTX_K_UNPLACED_PTR) ? " [pointer in parameter bytes]" : "",
             (facts.flags & FT_PTX_K_UNKNOWN_MEM) ? " [memory it does not model]" : "",
             (facts.flags & FT_PTX_K_INCOMPLETE) ? " [incomplete]" : "");
    }
    /* as the shim bounds it (shim/engine/access.c, set_reach) */
    uint32_t any = FT_PTX_K_UNKNOWN_CALL | FT_PTX_K_UNKNOWN_ADDR | FT_PTX_K_UNKNOWN_MEM | FT_PTX_K_INCOMPLETE;
    if (facts.flags & FT_PTX_K_REACHES_BEYOND) t->beyond++;
    if ((facts.flags & any) || ((facts.flags & FT_PTX_K_LOADED_PTR) && (facts.flags & FT_PTX_K_GLOBAL_VAR)))
      t->everything++;
    for (size_t k = 0; k < facts.nplaces; k++) {
      const ft_ptx_place_t *p = &facts.places[k];
      t->places++;
      if (p->exact) t->exact++;
      else if (p->as_int) t->as_int++;
      if (p->access != FT_PTX_ACC_NONE) t->pointers++;
      count_ranges(&facts, p, t);
      t->range_places += p->range != 0;
      if (!quiet) {
        printf("  %4u param %u+%u: %-10s %s%s%s%s\n", p->offset, p->param, p->field, ft_ptx_access_name(p->access),
               p->exact ? "exact" : "conservative", p->nc ? " (.nc)" : "",
               p->ptr_src ? " (pointers loaded through it are used)" : "",
               p->ptr_sink ? " (loaded values stored through it)" : "");
        char buf[512];
        ft_ptx_range_t r;
        for (unsigned d = 0; d < 2; d++) {
          if (!(p->access & (d ? FT_PTX_ACC_WRITE : FT_PTX_ACC_READ))) continue;
          ft_ptx_place_range(&facts, p, d, &r);
          printf("         %s [%s)\n", d ? "write" : "read ", ft_ptx_range_format(&r, buf, sizeof buf));
        }
      }
    }
    t->range_bytes += facts.ranges.n * sizeof *facts.ranges.op;
    ft_ptx_facts_free(&facts);
  }
}

typedef struct {
  const char *path;
  int quiet;
  totals_t *t;
} sass_t;

/* A SASS-only kernel: its layout from the cubin, every place conservative. */
static int sass_kernel(const char *name, const ft_cubin_param_t *ps, size_t n, void *ctx) {
  sass_t *s = ctx;
  uint32_t off[4096], size[4096];
  if (n > 4096) n = 4096;
  for (size_t i = 0; i < n; i++) off[i] = ps[i].offset, size[i] = ps[i].size;
  ft_ptx_facts_t f;
  s->t->kernels++;
  if (ft_ptx_facts_conservative(off, size, n, &f) != 0) {
    s->t->kernels_failed++;
    return 0;
  }
  if (!s->quiet) printf("%s: %s (SASS only: layout from the cubin)\n", s->path, name);
  for (size_t k = 0; k < f.nplaces; k++) {
    s->t->places++;
    if (!s->quiet)
      printf("  %4u param %u+%u: %-10s conservative\n", f.places[k].offset, f.places[k].param, f.places[k].field,
             ft_ptx_access_name(f.places[k].access));
  }
  ft_ptx_facts_free(&f);
  return 0;
}

static int sass_entry(const ft_fatbin_entry_t *e, void *ctx) {
  uint8_t *elf;
  size_t len;
  char err[256];
  if (e->kind != FT_FATBIN_ENTRY_ELF || ft_fatbin_entry_bytes(e, &elf, &len, err, sizeof err) != 0) return 0;
  ft_cubin_kernels(elf, len, sass_kernel, ctx);
  free(elf);
  return 0;
}

static void one_file(const char *path, int quiet, int dump, totals_t *t) {
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
    sass_t s = {path, quiet, t};
    if (img.kind == FT_IMAGE_CUBIN) ft_cubin_kernels(buf, len, sass_kernel, &s);
    else ft_fatbin_walk(buf, len, sass_entry, &s, err, sizeof err);
  }
  for (size_t i = 0; i < img.nptx; i++) {
    if (!dump) t->modules++;
    if (dump) {
      fwrite(img.ptx[i].text, 1, img.ptx[i].len, stdout);
      continue;
    }
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
  int quiet = 0, dump = 0, first = 1;
  if (argc > 1 && strcmp(argv[1], "-q") == 0) quiet = 1, first = 2;
  if (argc > 1 && strcmp(argv[1], "--ptx") == 0) dump = 1, first = 2;
  if (argc <= first) {
    fprintf(stderr, "usage: ptxfacts [-q | --ptx] FILE...  (PTX text, fatbin, cubin, executable or library)\n"
                    "  -q: coverage line only; --ptx: print the PTX the files carry\n");
    return 2;
  }
  totals_t t;
  memset(&t, 0, sizeof t);
  for (int i = first; i < argc; i++) one_file(argv[i], quiet, dump, &t);
  if (dump) return t.modules_failed ? 1 : 0;
  printf("coverage: %zu kernels (%zu not analysed), %zu places (%zu dereferenced): %zu exact, %zu conservative"
         " (%zu of them only as integers); %zu kernels reach beyond their arguments, %zu of them anything;"
         " %zu PTX modules, %zu not analysed; %zu images SASS only\n",
         t.kernels, t.kernels_failed, t.places, t.pointers, t.exact, t.places - t.exact, t.as_int, t.beyond,
         t.everything, t.modules, t.modules_failed, t.sass_only);
  printf("ranges: %zu of %zu dereferenced places bounded; reads %zu of %zu, writes %zu of %zu; programs of %zu "
         "places in %zu bytes\n", t.bounded, t.pointers, t.rd_bounded, t.rd, t.wr_bounded, t.wr, t.range_places,
         t.range_bytes);
  return t.modules_failed || t.kernels_failed ? 1 : 0;
}
