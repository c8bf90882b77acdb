/* coded.c: which groups of an allocation are under a valid code. A never-written
 * allocation written in part (a tensor carved out of a pool) keeps a bit per group:
 * only what was written or uploaded is encoded, verified, shadowed and snapshotted. */
#include <stdlib.h>

#include "engine.h"

#define WORD(g) ((g) / 64)
#define BIT(g) ((uint64_t)1 << ((g) % 64))

int ft_coded_begin(ft_alloc_t *a) {
  if (a->state != FT_ST_UNINIT || !a->code || a->cmap) return 0;
  uint64_t ng = ft_groups_of(a->size);
  a->cmap = calloc(WORD(ng) + 1, sizeof *a->cmap);
  if (!a->cmap) return 0; /* the caller encodes all of it, as before */
  a->ncoded = 0;
  ft_set_state(a, FT_ST_CLEAN); /* (counted as written: 0 bytes of it so far) */
  return 1;
}

void ft_coded_drop(ft_alloc_t *a) {
  free(a->cmap);
  a->cmap = NULL;
  a->ncoded = 0;
}

/* The first group in [g, end) whose bit is `want`, or end. */
static uint64_t find(const uint64_t *m, uint64_t g, uint64_t end, int want) {
  while (g < end) {
    uint64_t w = want ? m[WORD(g)] : ~m[WORD(g)];
    w &= ~(BIT(g) - 1); /* from g on */
    if (w) {
      uint64_t at = WORD(g) * 64 + (uint64_t)__builtin_ctzll(w);
      return at < end ? at : end;
    }
    g = (WORD(g) + 1) * 64;
  }
  return end;
}

void ft_coded_mark(ft_alloc_t *a, uint64_t g0, uint64_t g1) {
  if (!a->cmap || g0 >= g1) return;
  uint64_t ng = ft_groups_of(a->size);
  if (g1 > ng) g1 = ng;
  ft_set_state(a, a->state); /* exposure so far, at the coded size it had */
  ft_st.bytes_written -= ft_coded_counted(a);
  for (uint64_t g = g0; g < g1; g++) {
    if (g % 64 == 0 && g + 64 <= g1) {
      a->ncoded += 64 - (uint64_t)__builtin_popcountll(a->cmap[WORD(g)]);
      a->cmap[WORD(g)] = ~(uint64_t)0;
      g += 63;
      continue;
    }
    if (!(a->cmap[WORD(g)] & BIT(g))) a->ncoded++;
    a->cmap[WORD(g)] |= BIT(g);
  }
  if (a->ncoded >= ng) ft_coded_drop(a); /* all of it: the state says it again */
  ft_written_add(a);
}

int ft_coded_next(const ft_alloc_t *a, uint64_t *g0, uint64_t *g1, uint64_t end) {
  if (*g0 >= end) return 0;
  if (!a->cmap) {
    *g1 = end;
    return 1;
  }
  uint64_t c0 = find(a->cmap, *g0, end, 1);
  if (c0 >= end) return 0;
  *g0 = c0;
  *g1 = find(a->cmap, c0, end, 0);
  return 1;
}

int ft_coded_all_in(const ft_alloc_t *a, uint64_t g0, uint64_t g1) {
  return !a->cmap || find(a->cmap, g0, g1, 0) >= g1;
}

uint64_t ft_coded_counted(const ft_alloc_t *a) {
  return a->state == FT_ST_CLEAN || a->state == FT_ST_INFLIGHT ? ft_coded_bytes(a) : 0;
}

uint64_t ft_coded_bytes(const ft_alloc_t *a) {
  if (!a->cmap) return a->size;
  uint64_t b = a->ncoded * FT_GROUP_BYTES;
  return b < a->size ? b : a->size;
}

void ft_coded_runs(const ft_alloc_t *a, ft_runs_t *out) {
  uint64_t ng = ft_groups_of(a->size);
  out->n = 0;
  for (uint64_t g0 = 0, g1; ft_coded_next(a, &g0, &g1, ng); g0 = g1) ft_runs_add(out, g0, g1, NULL, NULL);
}

void ft_coded_cover(ft_dev_t *d, ft_alloc_t *a, uint64_t g0, uint64_t g1, CUstream s) {
  if (!a->cmap) return;
  /* never written: the encode takes in what the memory holds, which nothing reads as
   * data, so that a copy of these groups can be checked and brought back whole */
  for (uint64_t u0 = g0, u1; u0 < g1; u0 = u1) {
    u0 = find(a->cmap, u0, g1, 0);
    u1 = find(a->cmap, u0, g1, 1);
    if (u0 < u1) ft_reencode(d, a, u0, u1, s);
    if (!a->cmap) return;
  }
}
