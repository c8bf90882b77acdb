/* texwrite.c: the bytes surface stores wrote during one launch, and once the
 * driver arms it (a texture object on linear or pitched memory is live) the bytes
 * global stores wrote, kept for the undefined-behaviour check: a texture fetch or
 * surface read of them in the same launch is undefined (the texture cache is not
 * kept coherent within a launch). */
#include <stdlib.h>
#include <string.h>

#include "texsurf.h"

/* Disjoint, non-adjacent intervals [lo, hi), sorted. */
typedef struct {
  uint64_t (*iv)[2];
  size_t n, cap;
} ivset_t;

struct sim_texw_s {
  ivset_t surf, global; /* written by sust/sured; by st/atom/red (armed only) */
  bool armed;           /* global stores are recorded */
};

static void lock(sim_grid_t *g) {
  int zero = 0;
  while (!atomic_compare_exchange_weak_explicit(&g->texw_lock, &zero, 1, memory_order_acquire, memory_order_relaxed))
    zero = 0;
}
static void unlock(sim_grid_t *g) { atomic_store_explicit(&g->texw_lock, 0, memory_order_release); }

/* The first interval whose end is at or after a (its index; n when none). */
static size_t first_ending_at_or_after(const ivset_t *s, uint64_t a) {
  size_t lo = 0, hi = s->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->iv[mid][1] < a) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/* Adds [lo, hi) to s; the interval of s that holds it now in *lo, *hi. */
static void insert(ivset_t *s, uint64_t *plo, uint64_t *phi) {
  uint64_t lo = *plo, hi = *phi;
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
  s->iv[i][0] = *plo = lo, s->iv[i][1] = *phi = hi;
}

static bool hits(const ivset_t *s, uint64_t a, unsigned n) {
  size_t i = first_ending_at_or_after(s, a + 1);
  return i < s->n && s->iv[i][0] < a + n;
}

/* g->texw, made under the lock. */
static struct sim_texw_s *record(sim_grid_t *g) {
  if (!g->texw && !(g->texw = calloc(1, sizeof *g->texw))) abort();
  return g->texw;
}

void sim_texw_note(sim_grid_t *g, uint64_t a, unsigned n) {
  uint64_t lo = a, hi = a + n;
  lock(g);
  insert(&record(g)->surf, &lo, &hi);
  atomic_store_explicit(&g->texw_any, 1, memory_order_release);
  unlock(g);
}

bool sim_texw_hit(sim_grid_t *g, uint64_t a, unsigned n) {
  if (!atomic_load_explicit(&g->texw_any, memory_order_acquire)) return false;
  lock(g);
  bool hit = g->texw && hits(&g->texw->surf, a, n);
  unlock(g);
  return hit;
}

void sim_texw_arm_globals(sim_grid_t *g) {
  lock(g);
  record(g)->armed = true;
  atomic_store_explicit(&g->texw_any, 1, memory_order_release);
  unlock(g);
}

void sim_texw_note_stores(sim_warp_t *w, unsigned space, uint32_t m, const uint64_t *A, uint64_t off, unsigned n) {
  sim_grid_t *g = w->blk->g;
  /* texw is set before texw_any and never changes while blocks run */
  if (!atomic_load_explicit(&g->texw_any, memory_order_acquire) || !g->texw->armed) return;
  /* consecutive lanes storing side by side (a coalesced store) make one interval */
  uint64_t run[32][2];
  unsigned k = 0;
  SIM_FOR_LANES(m, l) {
    uint64_t a = A[l] + off;
    if (space == FT_PTX_SP_GENERIC && (a - SIM_WIN_SHARED < SIM_WIN_SIZE || a - SIM_WIN_LOCAL < SIM_WIN_SIZE))
      continue;
    if (k && run[k - 1][1] == a) run[k - 1][1] = a + n;
    else run[k][0] = a, run[k][1] = a + n, k++;
  }
  /* an interval this host thread recorded in this launch holds what a loop stores
   * again: no lock (intervals only grow within a launch) */
  static __thread struct {
    uint64_t launch, lo, hi;
  } last;
  uint64_t launch = atomic_load_explicit(&g->id, memory_order_relaxed);
  unsigned todo = 0;
  for (unsigned i = 0; i < k; i++)
    if (!launch || last.launch != launch || run[i][0] < last.lo || run[i][1] > last.hi) run[todo][0] = run[i][0], run[todo++][1] = run[i][1];
  if (!todo) return;
  lock(g);
  for (unsigned i = 0; i < todo; i++) {
    insert(&g->texw->global, &run[i][0], &run[i][1]);
    last.launch = launch, last.lo = run[i][0], last.hi = run[i][1];
  }
  unlock(g);
}

bool sim_texw_hit_global(sim_grid_t *g, uint64_t a, unsigned n) {
  if (!atomic_load_explicit(&g->texw_any, memory_order_acquire)) return false;
  lock(g);
  bool hit = g->texw && hits(&g->texw->global, a, n);
  unlock(g);
  return hit;
}

void sim_texw_free(sim_grid_t *g) {
  if (!g->texw) return;
  free(g->texw->surf.iv);
  free(g->texw->global.iv);
  free(g->texw);
  g->texw = NULL;
}
