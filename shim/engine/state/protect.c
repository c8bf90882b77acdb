/* protect.c: the protection state of an allocation (clean, in flight, ...), which of
 * its groups are under a valid code, and the counters that follow both. A never-
 * written allocation written in part (a tensor carved out of a pool) keeps a bit per
 * group: only what was written or uploaded is encoded, verified, shadowed and
 * snapshotted. */
#include <stdlib.h>
#include <string.h>

#include "state.h"

#define WORD(g) ((g) / 64)
#define BIT(g) ((uint64_t)1 << ((g) % 64))

int ft_coded_begin(ft_alloc_t *a) FT_REQUIRES(ft_eng_lock) {
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

void ft_coded_mark(ft_alloc_t *a, uint64_t g0, uint64_t g1) FT_REQUIRES(ft_eng_lock) {
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

int ft_uncoded_next(const ft_alloc_t *a, uint64_t *g0, uint64_t *g1, uint64_t end) {
  if (!a->cmap || *g0 >= end) return 0;
  uint64_t u0 = find(a->cmap, *g0, end, 0);
  if (u0 >= end) return 0;
  *g0 = u0;
  *g1 = find(a->cmap, u0, end, 1);
  return 1;
}

/* Exposure: byte-seconds spent under a valid code, in flight (written, code
 * stale), and unprotected; memory not yet written holds nothing to protect. */
void ft_exposure_add(int state, double bs) {
  if (state == FT_ST_UNINIT) return;
  ft_st.total_byte_s += bs;
  if (state == FT_ST_CLEAN) ft_st.covered_byte_s += bs;
  else if (state == FT_ST_UNPROT) ft_st.unprotected_byte_s += bs;
  else ft_st.inflight_byte_s += bs;
}

void ft_written_add(const ft_alloc_t *a) {
  ft_st.bytes_written += ft_coded_counted(a);
  if (ft_st.bytes_written > ft_st.bytes_written_peak) ft_st.bytes_written_peak = ft_st.bytes_written;
}

void ft_exposure_kernel(const ft_dev_t *d, uint64_t written, uint64_t moved) {
  if (!d || d->mem_bps <= 0) return;
  ft_st.kernel_model_bps = d->mem_bps;
  ft_st.kernel_byte_s += (double)written * ((double)moved / d->mem_bps);
}

void ft_set_state(ft_alloc_t *a, int state) {
  double t = ft_now();
  ft_exposure_add(a->state, (double)ft_coded_bytes(a) * (t - a->t_state));
  a->t_state = t;
  if (state != FT_ST_INFLIGHT || a->state != FT_ST_INFLIGHT) a->dirty_part = 0;
  ft_st.bytes_written -= ft_coded_counted(a);
  a->state = state;
  if (state == FT_ST_UNINIT || state == FT_ST_UNPROT) ft_coded_drop(a); /* nothing coded */
  ft_written_add(a);
}

void ft_code_fresh(ft_alloc_t *a) {
  a->fresh_epoch = ft_epoch;
  a->fresh_launch = ft_st.launches;
}

int ft_coded_resize(ft_alloc_t *a, size_t size) FT_REQUIRES(ft_eng_lock) {
  uint64_t ng0 = ft_groups_of(a->size), ng = ft_groups_of(size);
  uint64_t *m = a->cmap;
  /* a written allocation that grows: its new groups are not under a code */
  if (m || (a->state == FT_ST_CLEAN && ng > ng0)) {
    m = realloc(m, (WORD(ng) + 1) * sizeof *m);
    if (!m) return -1;
    uint64_t had = a->cmap ? WORD(ng0) + 1 : 0;
    if (had < WORD(ng) + 1) memset(m + had, 0, (WORD(ng) + 1 - had) * sizeof *m);
    if (!a->cmap) /* all of it was coded */
      for (uint64_t g = 0; g < ng0; g++) m[WORD(g)] |= BIT(g);
  }
  ft_set_state(a, a->state); /* exposure so far, at the size it had */
  ft_st.bytes_written -= ft_coded_counted(a);
  a->size = size;
  a->cmap = m;
  if (m) {
    m[WORD(ng)] &= BIT(ng) - 1; /* (groups past the end, when it shrank) */
    a->ncoded = 0;
    for (uint64_t w = 0; w <= WORD(ng); w++) a->ncoded += (uint64_t)__builtin_popcountll(m[w]);
    if (a->ncoded >= ng) ft_coded_drop(a);
  }
  ft_written_add(a);
  return 0;
}
