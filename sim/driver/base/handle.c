/* handle.c: the live-handle table. Every handle the application passes in is looked
 * up here first, so a stale or garbage handle yields an error code, never a crash. */
#include <stdlib.h>

#include "base.h"

static pthread_mutex_t tab_mu = PTHREAD_MUTEX_INITIALIZER;
static sim_obj_t **tab;       /* open addressing, NULL = empty, TOMB = deleted */
static size_t tab_cap, tab_used, tab_live;
#define TOMB ((sim_obj_t *)1)

void sim_obj_init(sim_obj_t *o, sim_kind_t kind, sim_ctx_t *ctx, void (*destroy)(sim_obj_t *)) {
  o->kind = kind;
  atomic_init(&o->refs, 1);
  o->ctx = ctx;
  o->destroy = destroy;
}

void sim_obj_ref(sim_obj_t *o) { atomic_fetch_add(&o->refs, 1); }

void sim_obj_unref(sim_obj_t *o) {
  if (o && atomic_fetch_sub(&o->refs, 1) == 1 && o->destroy) o->destroy(o);
}

static size_t slot_of(const void *p, size_t cap) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return (size_t)x & (cap - 1);
}

static void grow(void) {
  size_t ncap = tab_cap ? tab_cap * 2 : 256;
  while (tab_live * 2 >= ncap) ncap *= 2;
  sim_obj_t **nt = calloc(ncap, sizeof *nt);
  if (!nt) abort();
  for (size_t i = 0; i < tab_cap; i++) {
    sim_obj_t *o = tab[i];
    if (!o || o == TOMB) continue;
    size_t j = slot_of(o, ncap);
    while (nt[j]) j = (j + 1) & (ncap - 1);
    nt[j] = o;
  }
  free(tab);
  tab = nt;
  tab_cap = ncap;
  tab_used = tab_live;
}

void sim_handle_add(sim_obj_t *o) {
  pthread_mutex_lock(&tab_mu);
  if ((tab_used + 1) * 4 >= tab_cap * 3) grow();
  size_t j = slot_of(o, tab_cap);
  while (tab[j] && tab[j] != TOMB) j = (j + 1) & (tab_cap - 1);
  if (!tab[j]) tab_used++;
  tab[j] = o;
  tab_live++;
  pthread_mutex_unlock(&tab_mu);
}

/* Caller holds tab_mu. */
static size_t find_slot(const void *h) {
  if (!tab_cap || !h) return (size_t)-1;
  size_t j = slot_of(h, tab_cap);
  for (size_t n = 0; n < tab_cap && tab[j]; n++, j = (j + 1) & (tab_cap - 1))
    if (tab[j] == h) return j;
  return (size_t)-1;
}

bool sim_handle_destroy(const void *h, sim_kind_t kind) {
  sim_obj_t *o = sim_handle_get(h, kind);
  if (!o) return false;
  sim_handle_remove(o);
  sim_obj_unref(o);
  return true;
}

bool sim_handle_remove(sim_obj_t *o) {
  pthread_mutex_lock(&tab_mu);
  size_t j = find_slot(o);
  if (j != (size_t)-1) {
    tab[j] = TOMB;
    tab_live--;
  }
  pthread_mutex_unlock(&tab_mu);
  if (j == (size_t)-1) return false;
  sim_obj_unref(o);
  return true;
}

sim_obj_t *sim_handle_get(const void *h, sim_kind_t kind) {
  sim_obj_t *o = NULL;
  pthread_mutex_lock(&tab_mu);
  size_t j = find_slot(h);
  if (j != (size_t)-1 && tab[j]->kind == kind) {
    o = tab[j];
    sim_obj_ref(o);
  }
  pthread_mutex_unlock(&tab_mu);
  return o;
}

static size_t collect(sim_kind_t kind, bool any, sim_ctx_t *ctx, sim_obj_t **out, size_t max) {
  size_t n = 0;
  pthread_mutex_lock(&tab_mu);
  for (size_t i = 0; i < tab_cap && n < max; i++) {
    sim_obj_t *o = tab[i];
    if (!o || o == TOMB || o->kind != kind || (!any && o->ctx != ctx)) continue;
    sim_obj_ref(o);
    out[n++] = o;
  }
  pthread_mutex_unlock(&tab_mu);
  return n;
}

size_t sim_handle_collect(sim_kind_t kind, sim_ctx_t *ctx, sim_obj_t **out, size_t max) {
  return collect(kind, false, ctx, out, max);
}

size_t sim_handle_collect_any(sim_kind_t kind, sim_obj_t **out, size_t max) {
  return collect(kind, true, NULL, out, max);
}
