/* accesscheck.c: SIMCUDA_CHECK_ACCESS, a check of gpuft's PTX access analysis
 * that the analysis cannot talk its way out of. gpuft trusts a READ class: it
 * verifies such a buffer after the kernel and never re-encodes it, so a kernel
 * that wrote it anyway would leave a stale code behind. The interpreter knows
 * what each launch really stored, per allocation; this file compares that with
 * the classes ptx/ (the same analysis gpuft runs) gives the kernel's argument
 * places. It lives in the simulator: gpuft never depends on it.
 *   1: an allocation the launch stored into that only READ (or NONE) places point
 *      into is an analysis bug: reported on stderr, counted in
 *      analysis_violations. Places of other classes pointing into the same
 *      allocation explain the store (a buffer's class is the union over slots).
 *   2: self-test: every place is taken as READ, so every launch that stores
 *      through an argument must be reported; proves the check sees stores.
 * With gpuft loaded, the check also covers what gpuft does with the facts: before
 * each launch it declares the protected allocations it treats as unwritten
 * (simcudaDeclareUnwritten); a store into one of them is a violation, whatever
 * the reason (a class, a kernel flag, a slot with no place, a pointer it did not
 * find). In self-test mode gpuft's declaration is taken as "every allocation". */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "access.h"
#include "exec.h"

typedef struct {
  uint64_t base, stored;
} acheck_alloc_t;

struct sim_acheck_s {
  pthread_mutex_t mu;
  acheck_alloc_t *a;
  size_t n, cap;
};

struct sim_acheck_s *sim_acheck_begin(const sim_launch_t *l) {
  if (!sim_ptxsrc_module(l->func->mod->src)) return NULL; /* a twin image: no PTX to check */
  struct sim_acheck_s *c = calloc(1, sizeof *c);
  if (!c) abort();
  pthread_mutex_init(&c->mu, NULL);
  return c;
}

void sim_acheck_store(struct sim_acheck_s *c, uint64_t base, uint64_t stored) {
  pthread_mutex_lock(&c->mu);
  size_t i = 0;
  while (i < c->n && c->a[i].base != base) i++;
  if (i == c->n) {
    if (c->n == c->cap) {
      c->cap = c->cap ? 2 * c->cap : 8;
      c->a = realloc(c->a, c->cap * sizeof *c->a);
      if (!c->a) abort();
    }
    c->a[c->n++] = (acheck_alloc_t){base, 0};
  }
  c->a[i].stored += stored;
  pthread_mutex_unlock(&c->mu);
}

/* The allocation an argument place points into (its base), or 0. */
static uint64_t place_alloc(const sim_launch_t *l, const ft_ptx_place_t *p) {
  uint64_t v;
  if ((size_t)p->offset + 8 > l->func->lay.param_bytes) return 0;
  memcpy(&v, l->args + p->offset, 8);
  sim_alloc_t a;
  return v && sim_mem_find(v, 0, &a) ? a.base : 0;
}

static bool is_read(const ft_ptx_place_t *p) {
  return sim_opt.check_access == 2 || p->access == FT_PTX_ACC_READ || p->access == FT_PTX_ACC_NONE;
}

static void compare(const sim_launch_t *l, const struct sim_acheck_s *c) {
  const char *name = l->func->lay.k->name;
  const ft_ptx_module_t *mod = sim_ptxsrc_module(l->func->mod->src);
  const ft_ptx_function_t *entry = mod ? ft_ptx_find_function(mod, name) : NULL;
  ft_ptx_facts_t f;
  char err[160];
  if (!entry || ft_ptx_facts(mod, entry, &f, err, sizeof err) != 0) return;
  for (size_t i = 0; i < f.nplaces; i++)
    if (f.places[i].access == FT_PTX_ACC_READ && place_alloc(l, &f.places[i])) SIM_COUNT(analysis_places_checked, 1);
  for (size_t k = 0; k < c->n; k++) {
    if (!c->a[k].stored) continue;
    const ft_ptx_place_t *read = NULL;
    bool explained = false;
    for (size_t i = 0; i < f.nplaces && !explained; i++) {
      if (place_alloc(l, &f.places[i]) != c->a[k].base) continue;
      if (is_read(&f.places[i])) {
        if (!read) read = &f.places[i];
      } else {
        explained = true;
      }
    }
    if (!read || explained) continue; /* stored through no argument place, or a writer's */
    SIM_COUNT(analysis_violations, 1);
    sim_log("analysis bug: kernel %s stored %" PRIu64 " bytes into the allocation at 0x%" PRIx64
            " that only argument places classified %s point into (parameter %u, byte %u of it: %s%s)",
            name, c->a[k].stored, c->a[k].base, sim_opt.check_access == 2 ? "READ (self-test)" : "READ",
            read->param, read->field, ft_ptx_access_name(read->access), read->exact ? ", exact" : "");
  }
  ft_ptx_facts_free(&f);
}

struct sim_decl_s {
  uint64_t *bases;
  size_t n;
};
static __thread struct sim_decl_s *t_decl;

__attribute__((visibility("default"))) int simcudaDeclareUnwritten(const uint64_t *bases, size_t n) {
  if (!sim_opt.check_access) return -1;
  struct sim_decl_s *d = calloc(1, sizeof *d);
  if (!d || (n && !(d->bases = malloc(n * sizeof *bases)))) abort();
  if (n) memcpy(d->bases, bases, n * sizeof *bases);
  d->n = n;
  sim_acheck_decl_free(t_decl);
  t_decl = d;
  return 0;
}

struct sim_decl_s *sim_acheck_take_declared(void) {
  struct sim_decl_s *d = t_decl;
  t_decl = NULL;
  return d;
}

void sim_acheck_decl_free(struct sim_decl_s *d) {
  if (!d) return;
  free(d->bases);
  free(d);
}

/* gpuft's own decision against what the launch stored. */
static void compare_declared(const sim_launch_t *l, const struct sim_acheck_s *c) {
  const struct sim_decl_s *d = l->declared;
  SIM_COUNT(shim_launches_checked, 1);
  for (size_t k = 0; k < c->n; k++) {
    if (!c->a[k].stored) continue;
    bool unwritten = sim_opt.check_access == 2;
    for (size_t i = 0; i < d->n && !unwritten; i++) unwritten = d->bases[i] == c->a[k].base;
    if (!unwritten) continue;
    SIM_COUNT(shim_violations, 1);
    sim_log("gpuft bug: kernel %s stored %" PRIu64 " bytes into the allocation at 0x%" PRIx64
            " that gpuft treated as not written by this launch%s",
            l->func->lay.k->name, c->a[k].stored, c->a[k].base,
            sim_opt.check_access == 2 ? " (self-test: every allocation taken so)" : "");
  }
}

void sim_acheck_end(sim_launch_t *l) {
  struct sim_acheck_s *c = l->acheck;
  l->acheck = NULL;
  compare(l, c);
  if (l->declared) compare_declared(l, c);
  pthread_mutex_destroy(&c->mu);
  free(c->a);
  free(c);
}
