/* registry.c: the interval map of device allocations: a sorted array of
 * non-overlapping [base, base+size) ranges; lookup of any interior pointer by
 * binary search, O(log n). Callers hold the engine lock. */
#include <stdlib.h>
#include <string.h>

#include "state.h"

static ft_alloc_t **g_v;
static size_t g_n, g_cap;

/* Index of the first allocation with base > p. */
static size_t upper(CUdeviceptr p) {
  size_t lo = 0, hi = g_n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (g_v[mid]->base <= p) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

ft_alloc_t *ft_reg_find(CUdeviceptr p) {
  size_t i = upper(p);
  if (i == 0) return NULL;
  ft_alloc_t *a = g_v[i - 1];
  return p - a->base < a->size ? a : NULL;
}

ft_alloc_t *ft_reg_below(CUdeviceptr p) {
  size_t i = upper(p);
  return i ? g_v[i - 1] : NULL;
}

ft_alloc_t *ft_reg_above(CUdeviceptr p) {
  size_t i = upper(p);
  return i < g_n ? g_v[i] : NULL;
}

static uint64_t g_gen = 1;
uint64_t ft_reg_generation(void) { return g_gen; }

ft_alloc_t *ft_reg_find_base(CUdeviceptr base) {
  ft_alloc_t *a = ft_reg_find(base);
  return a && a->base == base ? a : NULL;
}

int ft_reg_insert(ft_alloc_t *a) {
  FT_ASSERT(a->size > 0);
  g_gen++;
  size_t i = upper(a->base);
  /* The driver never hands out overlapping live ranges; a stale entry would mean
   * a free gpuft missed. Replace it rather than corrupt the map. */
  if (i > 0 && g_v[i - 1]->base + g_v[i - 1]->size > a->base) return -1;
  if (i < g_n && a->base + a->size > g_v[i]->base) return -1;
  if (g_n == g_cap) {
    size_t nc = g_cap ? g_cap * 2 : 64;
    ft_alloc_t **nv = realloc(g_v, nc * sizeof *nv);
    if (!nv) return -1;
    g_v = nv;
    g_cap = nc;
  }
  memmove(g_v + i + 1, g_v + i, (g_n - i) * sizeof *g_v);
  g_v[i] = a;
  g_n++;
  return 0;
}

void ft_reg_remove(ft_alloc_t *a) {
  size_t i = upper(a->base);
  FT_ASSERT(i > 0 && g_v[i - 1] == a);
  memmove(g_v + i - 1, g_v + i, (g_n - i) * sizeof *g_v);
  g_n--;
}

size_t ft_reg_count(void) { return g_n; }
ft_alloc_t *ft_reg_at(size_t i) { return i < g_n ? g_v[i] : NULL; }

int ft_code_of(CUdeviceptr p, CUdeviceptr *code, size_t *code_bytes) {
  ft_alloc_t *a = ft_reg_find(p);
  if (!ft_protected(a)) return -1;
  *code = a->code;
  *code_bytes = a->code_bytes;
  return 0;
}
