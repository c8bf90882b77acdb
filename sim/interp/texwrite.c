/* texwrite.c: the bytes surface stores wrote during one launch, kept for the
 * undefined-behaviour check: a texture fetch or surface read of them in the same
 * launch is undefined (the texture cache is not kept coherent within a launch). */
#include <stdlib.h>
#include <string.h>

#include "interp.h"

/* Disjoint, non-adjacent intervals [lo, hi), sorted. */
struct sim_texw_s {
  uint64_t (*iv)[2];
  size_t n, cap;
};

static void lock(sim_grid_t *g) {
  int zero = 0;
  while (!atomic_compare_exchange_weak_explicit(&g->texw_lock, &zero, 1, memory_order_acquire, memory_order_relaxed))
    zero = 0;
}
static void unlock(sim_grid_t *g) { atomic_store_explicit(&g->texw_lock, 0, memory_order_release); }

/* The first interval whose end is at or after a (its index; n when none). */
static size_t first_ending_at_or_after(const struct sim_texw_s *s, uint64_t a) {
  size_t lo = 0, hi = s->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->iv[mid][1] < a) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

void sim_texw_note(sim_grid_t *g, uint64_t a, unsigned n) {
  uint64_t lo = a, hi = a + n;
  lock(g);
  struct sim_texw_s *s = g->texw;
  if (!s && !(s = g->texw = calloc(1, sizeof *s))) abort();
  size_t i = first_ending_at_or_after(s, lo), j = i;
  /* merge every interval that touches [lo, hi) */
  while (j < s->n && s->iv[j][0] <= hi) {
    if (s->iv[j][0] < lo) lo = s->iv[j][0];
    if (s->iv[j][1] > hi) hi = s->iv[j][1];
    j++;
  }
  if (j == i) { /* nothing merged: insert at i */
    if (s->n == s->cap) {
      size_t cap = s->cap ? s->cap * 2 : 64;
      void *p = realloc(s->iv, cap * sizeof *s->iv);
      if (!p) abort();
      s->iv = p, s->cap = cap;
    }
    memmove(s->iv + i + 1, s->iv + i, (s->n - i) * sizeof *s->iv);
    s->n++;
  } else if (j > i + 1) { /* several merged into i */
    memmove(s->iv + i + 1, s->iv + j, (s->n - j) * sizeof *s->iv);
    s->n -= j - i - 1;
  }
  s->iv[i][0] = lo, s->iv[i][1] = hi;
  atomic_store_explicit(&g->texw_any, 1, memory_order_release);
  unlock(g);
}

bool sim_texw_hit(sim_grid_t *g, uint64_t a, unsigned n) {
  if (!atomic_load_explicit(&g->texw_any, memory_order_acquire)) return false;
  lock(g);
  const struct sim_texw_s *s = g->texw;
  size_t i = s ? first_ending_at_or_after(s, a + 1) : 0;
  bool hit = s && i < s->n && s->iv[i][0] < a + n;
  unlock(g);
  return hit;
}

void sim_texw_free(sim_grid_t *g) {
  if (!g->texw) return;
  free(g->texw->iv);
  free(g->texw);
  g->texw = NULL;
}
